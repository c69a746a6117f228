// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx fabric: the cables between HCA ports and the emulated switch, the
 * fault knobs and counters on the way out of a port, a packet's way
 * across a cable, and the port states that follow from the links.  The
 * switch's own forwarding is vmlx_switch.c.
 *
 * Topology.  vmlx_fabric_init() creates every cable end ("fport") the
 * fabric will have and wires them once:
 *
 *   default       one switch.  HCA port i, counted in creation order
 *                 (vmlx0 port 1, vmlx0 port 2, vmlx1 port 1, ...), is cabled
 *                 to switch port i + 1.  Switch port 0 is the switch's own
 *                 management port: its SMA (vmlx_switch_sma.c) answers the
 *                 SMPs that reach it and forwards directed-route SMPs.
 *   back_to_back  no switch.  HCA 2k port p is cabled to HCA 2k+1 port p;
 *                 with an odd number of HCAs the last one has no peer.
 *
 * vmlx_fabric_cable() plugs an HCA port into its end, vmlx_fabric_uncable()
 * pulls it out.  A link is up when both of its ends are plugged in and
 * enabled (the "link" knob).
 *
 * Switch ports count what passes them (vmlx_fport.cnt, read by the
 * switch's PMA, vmlx_switch_pma.c): a packet is received on the port it
 * enters the switch by, whatever becomes of it, and transmitted on the
 * port it leaves by once it is on the link; packets to and from the
 * switch's own port 0 are counted on the external port they pass.
 *
 * Data path.  vmlx_port_xmit() runs in the sender's context (process
 * context, perhaps holding a QP's mutex, never a spinlock) and takes no
 * lock: the HCA port at the far end of a cable is found under RCU, the
 * knobs and the port states are read with READ_ONCE(), and the counters
 * are atomic64; so does the switch's forwarding (vmlx_switch_forward()).
 * A packet crosses at most one switch and ends in vmlx_rcv() on the
 * receiving port, which only queues it for its QP: nothing here recurses.
 *
 * Control path.  Cabling, the link knobs, static LIDs and every change of
 * a link are serialised by vmlx_fabric_mutex.  The port fields they change
 * are written under port->lock (an HCA port) or the switch's lock (a
 * switch port), so that query_port and the SMAs see them together, and
 * with WRITE_ONCE(), for the data path.  The SMAs change logical states
 * (INIT, ARMED, ACTIVE) under those locks alone; what takes a link down
 * or up at their request (PortState DOWN, PortPhysicalState) is handed
 * to vmlx_fabric_work, since an SMA may run in atomic context.  Events go
 * to the core once port->lock is dropped (the core re-reads the port
 * through query_port).
 */
#include <linux/export.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "vmlx_fabric.h"
#include "vmlx_pkt.h"
#include "vmlx_sma.h"

/**
 * struct vmlx_fabric - all there is of the fabric
 * @num_hcas: HCAs, as given to vmlx_fabric_init()
 * @num_ports: ports per HCA, likewise
 * @static_lids: vmlx_fabric_static_lids() has run: a port whose link
 *	comes up goes to ACTIVE with its LID rather than to INIT
 * @hca: the HCA ends, HCA number * @num_ports + port number - 1; NULL
 *	while the fabric does not exist
 * @sw: the switch, NULL when back to back
 */
struct vmlx_fabric {
	unsigned int		num_hcas;
	unsigned int		num_ports;
	bool			static_lids;
	struct vmlx_fport	*hca;
	struct vmlx_switch	*sw;
};

/* protects vmlx_fabric, the plugging and the knobs of every fport */
static DEFINE_MUTEX(vmlx_fabric_mutex);
static struct vmlx_fabric vmlx_fabric;

static struct vmlx_port *vmlx_fport_port(struct vmlx_fport *end)
{
	return rcu_dereference_protected(end->port,
					 lockdep_is_held(&vmlx_fabric_mutex));
}

/* ------------------------------------------------------------------ */
/* Port states and events                                              */
/* ------------------------------------------------------------------ */

/**
 * vmlx_port_event() - tell the core about a change of an HCA port
 * @port: the port
 * @type: the event
 *
 * Context: any.  The core drops it while the device is not registered.
 */
void vmlx_port_event(struct vmlx_port *port, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &port->vdev->ibdev,
		.element.port_num = port->port_num,
		.event = type,
	};

	ib_dispatch_event(&event);
}

/* The logical state a port goes to when its link is (still) up. */
static u8 vmlx_link_up_state(u8 old, bool has_lid)
{
	if (old != IB_PORT_DOWN)
		return old;
	return vmlx_fabric.static_lids && has_lid ? IB_PORT_ACTIVE :
						    IB_PORT_INIT;
}

/*
 * Give an HCA port a new physical state, and the logical state that goes
 * with its link: DOWN when the link is not @up; when it is, a port that
 * was DOWN comes back in INIT (ACTIVE with static LIDs) and another keeps
 * its state.  Tells the core: PORT_ERR when the port leaves ACTIVE or
 * goes DOWN, PORT_ACTIVE when it becomes ACTIVE.
 */
static void vmlx_port_change(struct vmlx_port *port,
			     enum ib_port_phys_state phys, bool up)
{
	enum ib_port_phys_state old_phys;
	enum ib_port_state old, state;
	unsigned long flags;

	lockdep_assert_held(&vmlx_fabric_mutex);

	spin_lock_irqsave(&port->lock, flags);
	old = port->state;
	old_phys = port->phys_state;
	state = up ? vmlx_link_up_state(old, port->lid) : IB_PORT_DOWN;
	WRITE_ONCE(port->phys_state, phys);
	WRITE_ONCE(port->state, state);
	spin_unlock_irqrestore(&port->lock, flags);

	if (old_phys == IB_PORT_PHYS_STATE_LINK_UP &&
	    phys != IB_PORT_PHYS_STATE_LINK_UP)
		atomic64_inc(&port->cnt.link_downed);
	if (state == old)
		return;
	if (state == IB_PORT_ACTIVE)
		vmlx_port_event(port, IB_EVENT_PORT_ACTIVE);
	else if (old == IB_PORT_ACTIVE || state == IB_PORT_DOWN)
		vmlx_port_event(port, IB_EVENT_PORT_ERR);
}

/*
 * The same for an external switch port, which has no events but the
 * switch's PortStateChange bit, set whenever the link goes up or down,
 * and its Trap 128.
 */
static void vmlx_sw_port_change(struct vmlx_fport *end, u8 phys, bool up)
{
	bool now_up = phys == IB_PORT_PHYS_STATE_LINK_UP;
	struct vmlx_switch *sw = end->sw;
	unsigned long flags;
	bool was_up;
	u8 state;

	lockdep_assert_held(&vmlx_fabric_mutex);

	spin_lock_irqsave(&sw->lock, flags);
	state = up ? vmlx_link_up_state(end->state, true) : IB_PORT_DOWN;
	was_up = end->phys == IB_PORT_PHYS_STATE_LINK_UP;
	if (was_up != now_up)
		sw->psc = true;
	if (was_up && !now_up)
		atomic64_inc(&end->cnt.link_downed);
	WRITE_ONCE(end->phys, phys);
	WRITE_ONCE(end->state, state);
	spin_unlock_irqrestore(&sw->lock, flags);
	if (was_up != now_up)
		vmlx_switch_trap_link(sw);
}

/* An end takes part in a link: something is plugged in and enabled. */
static bool vmlx_fport_ready(struct vmlx_fport *end)
{
	return end->enabled && (end->sw || rcu_access_pointer(end->port));
}

static bool vmlx_link_up(struct vmlx_fport *end)
{
	return end->peer && vmlx_fport_ready(end) &&
	       vmlx_fport_ready(end->peer);
}

/*
 * Bring the port at @end (an HCA port plugged in there, or an external
 * switch port) in line with its link.  Down: DISABLED if this end is
 * switched off, else POLLING (waiting for the other end), logical state
 * DOWN.  Up: LINK_UP, and a port that was DOWN comes back in INIT, or in
 * ACTIVE with static LIDs.  With @retrain the link goes down first.
 */
static void vmlx_fport_refresh(struct vmlx_fport *end, bool retrain)
{
	struct vmlx_port *port = vmlx_fport_port(end);
	bool up = vmlx_link_up(end);
	u8 phys;

	phys = up ? IB_PORT_PHYS_STATE_LINK_UP :
	       end->enabled ? IB_PORT_PHYS_STATE_POLLING :
			      IB_PORT_PHYS_STATE_DISABLED;
	if (end->sw) {
		if (!end->num)
			return;
		if (retrain)
			vmlx_sw_port_change(end, IB_PORT_PHYS_STATE_POLLING,
					    false);
		vmlx_sw_port_change(end, phys, up);
		return;
	}
	if (!port)
		return;
	if (retrain)
		vmlx_port_change(port, IB_PORT_PHYS_STATE_POLLING, false);
	vmlx_port_change(port, phys, up);
}

/* Both ends of the cable @end belongs to. */
static void vmlx_cable_refresh(struct vmlx_fport *end, bool retrain)
{
	vmlx_fport_refresh(end, retrain);
	if (end->peer)
		vmlx_fport_refresh(end->peer, retrain);
}

/**
 * vmlx_port_set_link() - the link knob of a port
 * @port: the HCA port
 * @up: enable (true) or disable (false) this end of the port's cable
 *
 * Disabling takes the link down at both ends: this port becomes DISABLED,
 * the port at the other end (a switch port, or an HCA port back to back)
 * POLLING, both DOWN, with IB_EVENT_PORT_ERR for an HCA port and the
 * switch's PortStateChange bit for a switch port.  Enabling brings the
 * link up again, both ends in INIT, if the other end is enabled too.
 *
 * Context: process context.
 * Return: 0, or -ENOLINK if the port is not cabled.
 */
int vmlx_port_set_link(struct vmlx_port *port, bool up)
{
	struct vmlx_fport *end;
	int ret = -ENOLINK;

	mutex_lock(&vmlx_fabric_mutex);
	end = port->fport;
	if (end) {
		end->enabled = up;
		vmlx_cable_refresh(end, false);
		ret = 0;
	}
	mutex_unlock(&vmlx_fabric_mutex);
	return ret;
}

/* Carries out the link operations the SMAs asked for (vmlx_fport.pending). */
static void vmlx_fabric_work_fn(struct work_struct *work);
static DECLARE_WORK(vmlx_fabric_work, vmlx_fabric_work_fn);

static void vmlx_fport_do_pending(struct vmlx_fport *end)
{
	bool retrain;

	if (!READ_ONCE(end->pending))
		return;
	if (test_and_clear_bit(VMLX_FP_DISABLE, &end->pending))
		end->enabled = false;
	if (test_and_clear_bit(VMLX_FP_ENABLE, &end->pending))
		end->enabled = true;
	retrain = test_and_clear_bit(VMLX_FP_RETRAIN, &end->pending);
	vmlx_cable_refresh(end, retrain);
}

static void vmlx_fabric_work_fn(struct work_struct *work)
{
	unsigned int i, n;

	mutex_lock(&vmlx_fabric_mutex);
	if (!vmlx_fabric.hca)
		goto out;
	n = vmlx_fabric.num_hcas * vmlx_fabric.num_ports;
	for (i = 0; i < n; i++)
		vmlx_fport_do_pending(&vmlx_fabric.hca[i]);
	for (i = 1; vmlx_fabric.sw && i <= vmlx_fabric.sw->num_ports; i++)
		vmlx_fport_do_pending(&vmlx_fabric.sw->ports[i]);
out:
	mutex_unlock(&vmlx_fabric_mutex);
}

/**
 * vmlx_fport_request() - ask for a link operation on a cable end
 * @end: the end
 * @op: %VMLX_FP_DISABLE, %VMLX_FP_ENABLE or %VMLX_FP_RETRAIN
 *
 * The operation happens soon, in process context, as if the link knob
 * had been turned (disable, enable) or the link had lost its training
 * (retrain: both ends go DOWN, then come back in INIT).
 *
 * Context: any.
 */
void vmlx_fport_request(struct vmlx_fport *end, unsigned int op)
{
	set_bit(op, &end->pending);
	queue_work(vmlx_wq, &vmlx_fabric_work);
}

/**
 * vmlx_port_link_request() - what an HCA port's SMA asks of the link
 * @port: the HCA port
 * @phys_req: PortInfo:PortPhysicalState of a Set: 0 (no change),
 *	%IB_PORT_PHYS_STATE_POLLING (enable) or
 *	%IB_PORT_PHYS_STATE_DISABLED (disable)
 * @retrain: PortInfo:PortState DOWN was set: retrain the link
 *
 * Context: any.
 */
void vmlx_port_link_request(struct vmlx_port *port, u8 phys_req,
			    bool retrain)
{
	struct vmlx_fport *end;

	rcu_read_lock();
	end = READ_ONCE(port->fport);
	if (end) {
		if (phys_req == IB_PORT_PHYS_STATE_DISABLED)
			vmlx_fport_request(end, VMLX_FP_DISABLE);
		else if (phys_req == IB_PORT_PHYS_STATE_POLLING)
			vmlx_fport_request(end, VMLX_FP_ENABLE);
		if (retrain)
			vmlx_fport_request(end, VMLX_FP_RETRAIN);
	}
	rcu_read_unlock();
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Only the KUnit suites look into the fabric from outside. */

/**
 * vmlx_fabric_switch() - the emulated switch
 *
 * Return: the switch, NULL back to back or while there is no fabric.
 */
struct vmlx_switch *vmlx_fabric_switch(void)
{
	return READ_ONCE(vmlx_fabric.sw);
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_fabric_switch);

/**
 * vmlx_fabric_flush() - wait for the link operations asked for so far
 *
 * Context: process context.
 */
void vmlx_fabric_flush(void)
{
	flush_work(&vmlx_fabric_work);
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_fabric_flush);
#endif

/* ------------------------------------------------------------------ */
/* Building and tearing down the fabric                                */
/* ------------------------------------------------------------------ */

/**
 * vmlx_fabric_init() - create the fabric, before any HCA exists
 * @num_hcas: HCAs that will be cabled, 1..%VMLX_MAX_HCAS
 * @num_ports: ports per HCA, 1..%VMLX_MAX_PORTS
 * @back_to_back: cable HCAs in pairs instead of to one switch
 * @switch_guid: node GUID of the switch, if there is one
 *
 * Context: process context.
 * Return: 0, -EINVAL for out-of-range sizes, -EBUSY if the fabric exists
 * already, -ENOMEM.
 */
int vmlx_fabric_init(unsigned int num_hcas, unsigned int num_ports,
		     bool back_to_back, u64 switch_guid)
{
	struct vmlx_switch *sw = NULL;
	struct vmlx_fport *hca;
	unsigned int n, i, h, p;
	int ret;

	if (!num_hcas || num_hcas > VMLX_MAX_HCAS || !num_ports ||
	    num_ports > VMLX_MAX_PORTS)
		return -EINVAL;
	n = num_hcas * num_ports;

	hca = kcalloc(n, sizeof(*hca), GFP_KERNEL);
	if (!hca)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		hca[i].enabled = true;

	if (back_to_back) {
		for (h = 0; h + 1 < num_hcas; h += 2) {
			for (p = 0; p < num_ports; p++) {
				struct vmlx_fport *a = &hca[h * num_ports + p];
				struct vmlx_fport *b = a + num_ports;

				a->peer = b;
				b->peer = a;
			}
		}
	} else {
		sw = kvzalloc(sizeof(*sw), GFP_KERNEL);
		if (!sw) {
			ret = -ENOMEM;
			goto err_hca;
		}
		vmlx_switch_init(sw, n, switch_guid);
		for (i = 0; i < n; i++) {
			hca[i].peer = &sw->ports[i + 1];
			sw->ports[i + 1].peer = &hca[i];
		}
	}

	mutex_lock(&vmlx_fabric_mutex);
	if (vmlx_fabric.hca) {
		mutex_unlock(&vmlx_fabric_mutex);
		ret = -EBUSY;
		goto err_sw;
	}
	vmlx_fabric.num_hcas = num_hcas;
	vmlx_fabric.num_ports = num_ports;
	vmlx_fabric.static_lids = false;
	vmlx_fabric.sw = sw;
	vmlx_fabric.hca = hca;
	mutex_unlock(&vmlx_fabric_mutex);
	return 0;

err_sw:
	kvfree(sw);
err_hca:
	kfree(hca);
	return ret;
}

/**
 * vmlx_fabric_exit() - take the fabric down, after every port is uncabled
 *
 * Context: process context.
 */
void vmlx_fabric_exit(void)
{
	struct vmlx_switch *sw;
	struct vmlx_fport *hca;
	struct vmlx_port *port;
	unsigned int i, n;

	/* no SMA asks for anything any more: every port is uncabled */
	cancel_work_sync(&vmlx_fabric_work);
	mutex_lock(&vmlx_fabric_mutex);
	hca = vmlx_fabric.hca;
	sw = vmlx_fabric.sw;
	n = vmlx_fabric.num_hcas * vmlx_fabric.num_ports;
	for (i = 0; hca && i < n; i++) {
		port = vmlx_fport_port(&hca[i]);
		/* a port still cabled is a bug of the caller: cut it off */
		if (WARN_ON_ONCE(port)) {
			WRITE_ONCE(port->fport, NULL);
			RCU_INIT_POINTER(hca[i].port, NULL);
		}
	}
	vmlx_fabric.hca = NULL;
	vmlx_fabric.sw = NULL;
	vmlx_fabric.static_lids = false;
	mutex_unlock(&vmlx_fabric_mutex);

	synchronize_rcu();
	kvfree(sw);
	kfree(hca);
}

/**
 * vmlx_fabric_cable() - plug an HCA port into its end of the fabric
 * @port: the port; vdev, port_num and lock are set up
 *
 * The port takes the state of its link: if the other end is not there
 * (yet), the port is DOWN and POLLING.
 *
 * Context: process context.
 */
void vmlx_fabric_cable(struct vmlx_port *port)
{
	unsigned int num = port->vdev->num;
	struct vmlx_fport *end;

	mutex_lock(&vmlx_fabric_mutex);
	if (WARN_ON(!vmlx_fabric.hca || num >= vmlx_fabric.num_hcas ||
		    !port->port_num ||
		    port->port_num > vmlx_fabric.num_ports || port->fport))
		goto out;
	end = &vmlx_fabric.hca[num * vmlx_fabric.num_ports +
			       port->port_num - 1];
	if (WARN_ON(vmlx_fport_port(end)))
		goto out;
	rcu_assign_pointer(end->port, port);
	WRITE_ONCE(port->fport, end);
	vmlx_cable_refresh(end, false);
out:
	mutex_unlock(&vmlx_fabric_mutex);
}

/**
 * vmlx_fabric_uncable() - pull an HCA port out of the fabric
 * @port: the port
 *
 * The port goes DOWN, and so does the far end of a back-to-back link.
 * On return no packet is on its way to or from the port.
 *
 * Context: process context.
 */
void vmlx_fabric_uncable(struct vmlx_port *port)
{
	struct vmlx_fport *end;

	mutex_lock(&vmlx_fabric_mutex);
	end = port->fport;
	if (end) {
		WRITE_ONCE(port->fport, NULL);
		RCU_INIT_POINTER(end->port, NULL);
		vmlx_port_change(port, IB_PORT_PHYS_STATE_POLLING, false);
		if (end->peer)
			vmlx_fport_refresh(end->peer, false);
	}
	mutex_unlock(&vmlx_fabric_mutex);

	if (end)
		synchronize_rcu();
}

/**
 * vmlx_fabric_static_lids() - configure the subnet without a subnet manager
 *
 * A lab option (module parameter static_lids): the module plays subnet
 * manager, through the same paths as the SMAs' SubnSet.  Every HCA port
 * gets LID 1, 2, 3, ... in cabling order, LMC 0 and SM LID 0; the switch
 * routes each LID to its port (LinearFDBTop is the last of them) and
 * floods every MLID to every external port; ports whose link is up go to
 * ARMED, then ACTIVE, the switch's as well.  From now on a port whose link
 * comes back up returns to ACTIVE.  Call it once, in process context,
 * after the HCAs are registered, so that the core hears of the changes.
 */
void vmlx_fabric_static_lids(void)
{
	struct vmlx_switch *sw;
	struct vmlx_port *port;
	unsigned long flags;
	unsigned int i, n;

	mutex_lock(&vmlx_fabric_mutex);
	if (!vmlx_fabric.hca)
		goto out;
	n = vmlx_fabric.num_hcas * vmlx_fabric.num_ports;
	sw = vmlx_fabric.sw;
	vmlx_fabric.static_lids = true;

	if (sw) {
		u64 all = GENMASK_ULL(sw->num_ports, 1);

		spin_lock_irqsave(&sw->lock, flags);
		for (i = 0; i < n; i++)
			WRITE_ONCE(sw->lft[i + 1], vmlx_fabric.hca[i].peer->num);
		WRITE_ONCE(sw->lft_top, n);
		for (i = 0; i < VMLX_MFT_SIZE; i++)
			WRITE_ONCE(sw->mft[i], all);
		for (i = 1; i <= sw->num_ports; i++)
			if (sw->ports[i].phys == IB_PORT_PHYS_STATE_LINK_UP)
				WRITE_ONCE(sw->ports[i].state, IB_PORT_ACTIVE);
		spin_unlock_irqrestore(&sw->lock, flags);
	}

	for (i = 0; i < n; i++) {
		port = vmlx_fport_port(&vmlx_fabric.hca[i]);
		if (!port)
			continue;
		vmlx_port_set_lid(port, i + 1, 0, 0);
		if (READ_ONCE(port->phys_state) != IB_PORT_PHYS_STATE_LINK_UP)
			continue;
		vmlx_port_set_state(port, IB_PORT_ARMED);
		vmlx_port_set_state(port, IB_PORT_ACTIVE);
	}
out:
	mutex_unlock(&vmlx_fabric_mutex);
}

/* ------------------------------------------------------------------ */
/* Packets                                                             */
/* ------------------------------------------------------------------ */

/* True with probability @ppm / 1000000. */
static bool vmlx_chance(u32 ppm)
{
	return ppm && ((u64)get_random_u32() * 1000000 >> 32) < ppm;
}

/*
 * The corrupt knob: flip one bit, anywhere from the LRH to the VCRC, of
 * a packet with its CRCs, which the receiver will check.
 */
static void vmlx_corrupt(struct vmlx_port *port, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 bit;

	/* the sender may keep a clone for retransmission: do not touch it */
	if (skb_ensure_writable(skb, skb->len))
		return;
	if (pkt->sealed) {
		vmlx_pkt_fill_crcs(skb->data, skb->len);
		pkt->sealed = false;
	}
	bit = (u64)get_random_u32() * (skb->len * 8) >> 32;
	skb->data[bit / 8] ^= BIT(bit % 8);
	atomic64_inc(&port->cnt.injected_corruptions);
}

/**
 * vmlx_count_packet() - count a packet in or out of a port
 * @cnt: the port's counters, an HCA port's or a switch port's
 * @rcv: the packet came in (else it went out)
 * @packets: 1, or the packets of a burst (vmlx_burst.c)
 * @len: their bytes, LRH through VCRC
 * @mcast: its DLID is a multicast LID
 *
 * Context: any.
 */
void vmlx_count_packet(struct vmlx_port_counters *cnt, bool rcv,
		       u32 packets, u32 len, bool mcast)
{
	/* packets before bytes: the PMA reads them in that order */
	atomic64_add(packets, rcv ? &cnt->rcv_packets : &cnt->xmit_packets);
	atomic64_add(len, rcv ? &cnt->rcv_bytes : &cnt->xmit_bytes);
	if (mcast)
		atomic64_inc(rcv ? &cnt->rcv_mcast_packets :
				   &cnt->xmit_mcast_packets);
}

/**
 * vmlx_fport_deliver() - a packet reaches the HCA end of a cable
 * @end: the HCA end, or NULL if the cable has none
 * @skb: the packet; consumed
 *
 * The port plugged in at @end counts the packet and receives it.
 *
 * Context: under rcu_read_lock(); does not sleep.
 * Return: false if the packet was lost because no port is plugged in
 * there or its link is down.
 */
bool vmlx_fport_deliver(struct vmlx_fport *end, struct sk_buff *skb)
{
	struct vmlx_port *port = end ? rcu_dereference(end->port) : NULL;

	if (!port ||
	    READ_ONCE(port->phys_state) != IB_PORT_PHYS_STATE_LINK_UP) {
		kfree_skb(skb);
		return false;
	}
	vmlx_count_skb(&port->cnt, true, skb);
	vmlx_rcv(port, skb);
	return true;
}

/* The packet is for one of the sending port's own LIDs. */
static bool vmlx_port_own_dlid(struct vmlx_port *port, struct sk_buff *skb)
{
	u16 dlid = vmlx_lrh_dlid((struct vmlx_lrh *)skb->data);
	u16 lid = READ_ONCE(port->lid);
	u8 lmc = READ_ONCE(port->lmc) & 7;

	return lid && dlid >= lid && dlid <= VMLX_LID_UCAST_MAX &&
	       dlid - lid < (1U << lmc);
}

/* A burst meets a fault knob: its packets go one by one. */
static int vmlx_port_xmit_split(struct vmlx_port *port, struct sk_buff *skb)
{
	struct sk_buff_head list;
	int ret, err = 0;

	__skb_queue_head_init(&list);
	if (vmlx_burst_split(skb, &list)) {
		atomic64_inc(&port->cnt.xmit_discards);
		return -ENOMEM;
	}
	while ((skb = __skb_dequeue(&list))) {
		ret = vmlx_port_xmit(port, skb);
		if (ret)
			err = ret;
	}
	return err;
}

/**
 * vmlx_port_xmit() - put a packet on a port's link
 * @port: the sending HCA port
 * @skb: the whole packet, LRH through VCRC; consumed
 *
 * Drops the packet (xmit_discards) if the link is down, or if the port is
 * not ACTIVE and the packet is not on VL15.  Then applies the fault knobs:
 * drop_ppm (the packet vanishes: injected_drops and xmit_discards) and
 * corrupt_ppm (one bit flips: injected_corruptions).  Counts the packet
 * in xmit_packets and xmit_bytes and carries it to its destination: the
 * far end of a back-to-back cable (or the port itself, for its own LID),
 * or the switch, which forwards it by DLID, or, on VL15, hands it to its
 * SMI: an SMP with the permissive DLID is for the switch (the physical
 * link partner), directed-route SMPs are forwarded hop by hop.  The
 * receiving port's vmlx_rcv() runs before this returns.  A burst
 * (vmlx_burst.c) goes as one unless a knob is on: then packet by packet.
 *
 * Context: any; does not sleep and takes no lock.
 * Return: 0 if the packet left the port (whatever happened to it later),
 * -ENETDOWN if the link or the port was down for it, -EINVAL for a packet
 * too short to have an LRH, -ENOMEM.
 */
int vmlx_port_xmit(struct vmlx_port *port, struct sk_buff *skb)
{
	struct vmlx_port_counters *cnt = &port->cnt;
	struct vmlx_fport *end, *peer;
	int ret;

	if (unlikely(skb->len < VMLX_LRH_BYTES)) {
		ret = -EINVAL;
		goto discard;
	}
	/* a QP's packets may have their payload attached (vmlx_pkt.c) */
	if (unlikely(!vmlx_pkt(skb)->sealed && skb_linearize(skb))) {
		ret = -ENOMEM;
		goto discard;
	}
	if (vmlx_pkt(skb)->burst &&
	    (READ_ONCE(port->drop_ppm) || READ_ONCE(port->corrupt_ppm)))
		return vmlx_port_xmit_split(port, skb);
	ret = -ENETDOWN;
	if (READ_ONCE(port->phys_state) != IB_PORT_PHYS_STATE_LINK_UP)
		goto discard;
	if (READ_ONCE(port->state) != IB_PORT_ACTIVE &&
	    vmlx_lrh_vl((struct vmlx_lrh *)skb->data) != VMLX_VL_SMI)
		goto discard;

	if (vmlx_chance(READ_ONCE(port->drop_ppm))) {
		atomic64_inc(&cnt->injected_drops);
		ret = 0;
		goto discard;
	}
	if (vmlx_chance(READ_ONCE(port->corrupt_ppm)))
		vmlx_corrupt(port, skb);

	vmlx_count_skb(cnt, false, skb);

	rcu_read_lock();
	end = READ_ONCE(port->fport);
	peer = end ? end->peer : NULL;
	if (peer && peer->sw)
		vmlx_switch_forward(peer, skb);
	else if (peer && vmlx_port_own_dlid(port, skb))
		/* back to back, the switch cannot turn it around */
		vmlx_fport_deliver(end, skb);
	else
		/* lost on the wire if the cable was pulled meanwhile */
		vmlx_fport_deliver(peer, skb);
	rcu_read_unlock();
	return 0;

discard:
	atomic64_add(vmlx_pkt_count(skb), &cnt->xmit_discards);
	kfree_skb(skb);
	return ret;
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */
/* ------------------------------------------------------------------ */

static void vmlx_show_hca_end(struct seq_file *m, struct vmlx_fport *end)
{
	struct vmlx_port *port;
	const char *name;
	unsigned int i;

	if (!end) {
		seq_puts(m, "-");
		return;
	}
	i = end - vmlx_fabric.hca;
	port = vmlx_fport_port(end);
	name = port ? dev_name(&port->vdev->ibdev.dev) : NULL;
	if (name)
		seq_printf(m, "%s/%u", name, port->port_num);
	else
		seq_printf(m, "hca%u/%u", i / vmlx_fabric.num_ports,
			   i % vmlx_fabric.num_ports + 1);
}

/**
 * vmlx_fabric_show() - describe the topology, for debugfs
 * @m: where to print
 *
 * Context: process context.
 */
void vmlx_fabric_show(struct seq_file *m)
{
	struct vmlx_switch *sw;
	struct vmlx_fport *end;
	unsigned int i, n;

	mutex_lock(&vmlx_fabric_mutex);
	if (!vmlx_fabric.hca)
		goto out;
	sw = vmlx_fabric.sw;
	n = vmlx_fabric.num_hcas * vmlx_fabric.num_ports;
	seq_printf(m, "topology %s\nstatic_lids %d\n",
		   sw ? "switch" : "back_to_back", vmlx_fabric.static_lids);
	if (sw) {
		seq_printf(m, "switch lid %u ports %u\n", sw->lid,
			   sw->num_ports);
		seq_printf(m, "switch smps %lld smp_discards %lld traps %lld gmps %lld gmp_discards %lld\n",
			   atomic64_read(&sw->smps),
			   atomic64_read(&sw->smp_discards),
			   atomic64_read(&sw->traps),
			   atomic64_read(&sw->gmps),
			   atomic64_read(&sw->gmp_discards));
		for (i = 0; i <= sw->num_ports; i++) {
			end = &sw->ports[i];
			seq_printf(m, "port %u ", i);
			if (i)
				vmlx_show_hca_end(m, end->peer);
			else
				seq_puts(m, "switch");
			seq_printf(m, " link %s state %u relay_errors %lld xmit_discards %lld",
				   !i || vmlx_link_up(end) ? "up" : "down",
				   i ? end->state : IB_PORT_ACTIVE,
				   atomic64_read(&end->cnt.relay_errors),
				   atomic64_read(&end->cnt.xmit_discards));
			seq_printf(m, " xmit_packets %lld xmit_bytes %lld rcv_packets %lld rcv_bytes %lld xmit_mcast_packets %lld rcv_mcast_packets %lld link_downed %lld\n",
				   atomic64_read(&end->cnt.xmit_packets),
				   atomic64_read(&end->cnt.xmit_bytes),
				   atomic64_read(&end->cnt.rcv_packets),
				   atomic64_read(&end->cnt.rcv_bytes),
				   atomic64_read(&end->cnt.xmit_mcast_packets),
				   atomic64_read(&end->cnt.rcv_mcast_packets),
				   atomic64_read(&end->cnt.link_downed));
		}
		goto out;
	}
	for (i = 0; i < n; i++) {
		end = &vmlx_fabric.hca[i];
		/* each cable once */
		if (end->peer && end->peer < end)
			continue;
		vmlx_show_hca_end(m, end);
		seq_puts(m, " ");
		vmlx_show_hca_end(m, end->peer);
		seq_printf(m, " link %s\n", vmlx_link_up(end) ? "up" : "down");
	}
out:
	mutex_unlock(&vmlx_fabric_mutex);
}
