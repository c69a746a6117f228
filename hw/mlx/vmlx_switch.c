// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx switch: the emulated switch as it comes out of reset and how it
 * forwards what enters it by an external port.  Its SMA and SMI, which
 * answer and pass on VL15 packets, are vmlx_switch_sma.c; its PMA, for
 * other packets to its own LID, vmlx_switch_pma.c; the cables on both
 * sides, vmlx_fabric.c.
 *
 * A packet entering the switch is counted on its ingress port, then:
 * VL15 goes to the SMI; another packet needs the ingress port ARMED or
 * ACTIVE; one for the switch's LID goes to the PMA, one for a multicast
 * LID out of every port of its MFT entry but the ingress one, and any
 * other out of the port the LFT gives its DLID.  A packet leaves only by
 * an ACTIVE port (VL15 by any), and is counted there once it has reached
 * the other end of the link.  What the switch cannot forward counts in
 * the ingress port's relay_errors, what cannot leave in the egress
 * port's xmit_discards.
 *
 * Locking: none taken.  Forwarding runs in the packet sender's context
 * under rcu_read_lock() (vmlx_port_xmit()) and never sleeps.  It reads
 * the switch's LID and LMC, LinearFDBTop, the LFT, the MFT and the port
 * states with READ_ONCE(); their writers (the SMA, static_lids, the
 * fabric's link changes) hold the switch's lock and use WRITE_ONCE().
 * The counters are atomic64.  vmlx_switch_init() runs before the switch
 * is reachable.
 */
#include <linux/bitops.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include "vmlx_fabric.h"
#include "vmlx_sma.h"

#define VMLX_SW_LIFE_TIME	0x12

/**
 * vmlx_switch_init() - a switch as it comes out of reset
 * @sw: the switch, zeroed
 * @num_ports: external ports
 * @guid: node GUID
 *
 * Nothing routed, no LID, port 0 ACTIVE, external ports DOWN until their
 * links come up.
 */
void vmlx_switch_init(struct vmlx_switch *sw, unsigned int num_ports,
		      u64 guid)
{
	unsigned int i;

	spin_lock_init(&sw->lock);
	sw->guid = guid;
	sw->num_ports = num_ports;
	sw->gid_prefix = VMLX_DEFAULT_SUBNET_PREFIX;
	sw->subnet_timeout = VMLX_PI_SUBNET_TIMEOUT;
	sw->pkeys[0] = VMLX_DEFAULT_PKEY;
	sw->life_time = VMLX_SW_LIFE_TIME;
	sw->default_port = VMLX_LFT_UNROUTED;
	sw->default_mcast_primary = VMLX_LFT_UNROUTED;
	sw->default_mcast_not_primary = VMLX_LFT_UNROUTED;
	memset(sw->lft, VMLX_LFT_UNROUTED, sizeof(sw->lft));
	for (i = 0; i <= num_ports; i++) {
		struct vmlx_fport *p = &sw->ports[i];

		p->sw = sw;
		p->num = i;
		p->enabled = true;
		p->state = i ? IB_PORT_DOWN : IB_PORT_ACTIVE;
		p->phys = i ? IB_PORT_PHYS_STATE_POLLING :
			      IB_PORT_PHYS_STATE_LINK_UP;
		vmlx_link_init(&p->link);
	}
}

/**
 * vmlx_switch_own_lid() - whether a DLID is one of the switch's LIDs
 * @sw: the switch
 * @dlid: the DLID
 *
 * Context: any.
 * Return: true for LID .. LID + 2^LMC - 1 of port 0, once it has a LID.
 */
bool vmlx_switch_own_lid(struct vmlx_switch *sw, u16 dlid)
{
	u16 lid = READ_ONCE(sw->lid);
	u8 lmc = READ_ONCE(sw->lmc) & 7;

	return lid && dlid >= lid && dlid <= VMLX_LID_UCAST_MAX &&
	       dlid - lid < (1U << lmc);
}

/* ------------------------------------------------------------------ */
/* Forwarding                                                          */
/* ------------------------------------------------------------------ */

/**
 * vmlx_switch_send() - a packet leaves the switch
 * @out: the external switch port it leaves by
 * @skb: the packet; consumed
 *
 * Only VL15 leaves a port that is not ACTIVE.  A packet lost because of
 * the port's state or its link counts in the port's xmit_discards, one
 * that reached the other end of the link in its transmit counters.
 *
 * Context: under rcu_read_lock(); does not sleep.
 */
void vmlx_switch_send(struct vmlx_fport *out, struct sk_buff *skb)
{
	u32 packets, len;
	bool mcast;

	if (vmlx_lrh_vl((struct vmlx_lrh *)skb->data) != VMLX_VL_SMI &&
	    READ_ONCE(out->state) != IB_PORT_ACTIVE) {
		atomic64_inc(&out->cnt.xmit_discards);
		kfree_skb(skb);
		return;
	}
	packets = vmlx_pkt_count(skb);
	len = vmlx_pkt_wire_len(skb);
	mcast = vmlx_skb_mcast(skb);
	if (vmlx_fport_deliver(out->peer, skb))
		vmlx_count_packet(&out->cnt, false, packets, len, mcast);
	else
		atomic64_add(packets, &out->cnt.xmit_discards);
}

/*
 * A multicast packet goes out of every port of its MFT entry except the
 * one it came in on, a copy each.
 */
static void vmlx_switch_multicast(struct vmlx_fport *in, u16 mlid,
				  struct sk_buff *skb)
{
	struct vmlx_switch *sw = in->sw;
	struct sk_buff *copy;
	unsigned int i;
	u64 mask;

	mask = READ_ONCE(sw->mft[mlid - VMLX_LID_MCAST_MIN]);
	mask &= GENMASK_ULL(sw->num_ports, 1) & ~BIT_ULL(in->num);
	if (!mask) {
		atomic64_inc(&in->cnt.relay_errors);
		kfree_skb(skb);
		return;
	}
	while (mask) {
		i = __ffs64(mask);
		mask &= mask - 1;
		/* the last port gets the packet itself */
		copy = mask ? skb_clone(skb, GFP_ATOMIC) : skb;
		if (!copy) {
			atomic64_inc(&sw->ports[i].cnt.xmit_discards);
			continue;
		}
		vmlx_switch_send(&sw->ports[i], copy);
	}
}

/**
 * vmlx_switch_lft() - the egress port of a unicast LID
 * @sw: the switch
 * @dlid: the LID
 *
 * Context: any; reads the LFT with READ_ONCE().
 * Return: the external port the LFT routes @dlid to, or 0 if it routes
 * it nowhere, to port 0 or to a port the switch does not have, or if
 * @dlid is above LinearFDBTop.
 */
u8 vmlx_switch_lft(struct vmlx_switch *sw, u16 dlid)
{
	u8 egress = VMLX_LFT_UNROUTED;

	if (dlid <= VMLX_LID_UCAST_MAX && dlid <= READ_ONCE(sw->lft_top))
		egress = READ_ONCE(sw->lft[dlid]);
	return egress > sw->num_ports ? 0 : egress;
}

/**
 * vmlx_switch_unicast() - forward a packet by the linear forwarding table
 * @in: the switch port it came in on
 * @dlid: its DLID, a unicast LID
 * @skb: the packet; consumed
 *
 * LIDs above LinearFDBTop and LIDs routed nowhere (0xFF), to a port that
 * does not exist or to port 0 are dropped and counted in the ingress
 * port's relay_errors (packets for the switch itself never get here).
 * A packet may go back out of the port it came in on: that is how an HCA
 * port reaches its own LID.
 *
 * Context: under rcu_read_lock(); does not sleep.
 */
void vmlx_switch_unicast(struct vmlx_fport *in, u16 dlid, struct sk_buff *skb)
{
	struct vmlx_switch *sw = in->sw;
	u8 egress = vmlx_switch_lft(sw, dlid);

	if (!egress) {
		atomic64_inc(&in->cnt.relay_errors);
		kfree_skb(skb);
		return;
	}
	vmlx_switch_send(&sw->ports[egress], skb);
}

/**
 * vmlx_switch_forward() - a packet enters the switch
 * @in: the external switch port it comes in by
 * @skb: the packet, LRH through VCRC; consumed
 *
 * Counted on @in.  VL15 goes to the switch's SMI, which answers or
 * forwards SMPs; other packets need @in ARMED or ACTIVE; those for the
 * switch's LID go to its GSI (the PMA), the others are forwarded by
 * their DLID.
 *
 * Context: under rcu_read_lock(), from vmlx_port_xmit(); does not sleep.
 */
void vmlx_switch_forward(struct vmlx_fport *in, struct sk_buff *skb)
{
	const struct vmlx_lrh *lrh = (const struct vmlx_lrh *)skb->data;
	struct vmlx_switch *sw = in->sw;
	u16 dlid = vmlx_lrh_dlid(lrh);
	u8 state;

	vmlx_count_skb(&in->cnt, true, skb);
	if (vmlx_lrh_vl(lrh) == VMLX_VL_SMI) {
		vmlx_switch_smi(in, skb);
		return;
	}
	state = READ_ONCE(in->state);
	if ((state != IB_PORT_ARMED && state != IB_PORT_ACTIVE) ||
	    dlid == VMLX_LID_PERMISSIVE) {
		atomic64_inc(&in->cnt.relay_errors);
		kfree_skb(skb);
		return;
	}
	if (vmlx_switch_own_lid(sw, dlid)) {
		vmlx_switch_gsi(in, skb);
		return;
	}
	if (dlid >= VMLX_LID_MCAST_MIN) {
		vmlx_switch_multicast(in, dlid, skb);
		return;
	}
	vmlx_switch_unicast(in, dlid, skb);
}
