// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx SMA: the subnet management agent of the HCA ports, reached through
 * the process_mad op.  The PortInfo rules it shares with the switch's SMA
 * (vmlx_switch_sma.c) are vmlx_port_info.c.
 *
 * The MAD core hands process_mad every SMP for a port (directed-route SMPs
 * after its hop-pointer arithmetic) and every PMA MAD.  The SMA answers
 * SubnGet/SubnSet of NodeDescription, NodeInfo, PortInfo, P_KeyTable,
 * GUIDInfo, SLtoVLMappingTable and VLArbitrationTable; it leaves SMInfo,
 * traps and responses to the agents above (IBA 14.2.5, the behaviour of
 * mlx4 and qib).  TrapRepress is consumed.  A change of CapabilityMask by
 * modify_port sends Trap 144 (vmlx_trap.c).
 *
 * One source of truth: what a SubnSet writes is struct vmlx_port, under
 * port->lock, which is what query_port, query_pkey and query_gid read and
 * what the data path checks.  A Set is validated as a whole before
 * anything changes: a bad field answers status 0x001C and changes
 * nothing.  Events go to the core after the lock is dropped.  A Set that
 * takes the link down or up (PortState DOWN, PortPhysicalState) changes
 * the port's states at once and leaves the link operation, which needs
 * the fabric's mutex, to the fabric's work item: process_mad may be
 * called in atomic context.
 */
#include <linux/string.h>

#include "vmlx.h"
#include "vmlx_sma.h"

#define VMLX_PKEYS_PER_BLOCK	32
#define VMLX_GUIDS_PER_BLOCK	8

/* The result of a Set the SMA applied to an HCA port: events to raise. */
#define VMLX_EV_PORT_ERR	BIT(0)
#define VMLX_EV_LID_CHANGE	BIT(1)
#define VMLX_EV_PKEY_CHANGE	BIT(2)
#define VMLX_EV_GID_CHANGE	BIT(3)
#define VMLX_EV_SM_CHANGE	BIT(4)
#define VMLX_EV_CLIENT_REREG	BIT(5)
#define VMLX_EV_PORT_ACTIVE	BIT(6)

/* ------------------------------------------------------------------ */
/* HCA ports                                                           */
/* ------------------------------------------------------------------ */

/**
 * vmlx_port_sma_init() - the subnet management state of a port at reset
 * @port: the port; its guid is set
 */
void vmlx_port_sma_init(struct vmlx_port *port)
{
	port->cap_mask = VMLX_PORT_CAP_BASE;
	port->gid_prefix = VMLX_DEFAULT_SUBNET_PREFIX;
	port->subnet_timeout = VMLX_PI_SUBNET_TIMEOUT;
	vmlx_link_init(&port->link);
	memset(port->guids, 0, sizeof(port->guids));
	port->guids[0] = port->guid;
}

/**
 * vmlx_port_raise() - dispatch the events a change of an HCA port caused
 * @port: the port
 * @events: VMLX_EV_* bits
 *
 * In the order a consumer wants them: the port going away first, the
 * port becoming usable last.
 *
 * Context: any; not under port->lock.
 */
static void vmlx_port_raise(struct vmlx_port *port, unsigned int events)
{
	static const struct {
		unsigned int bit;
		enum ib_event_type type;
	} order[] = {
		{ VMLX_EV_PORT_ERR, IB_EVENT_PORT_ERR },
		{ VMLX_EV_LID_CHANGE, IB_EVENT_LID_CHANGE },
		{ VMLX_EV_PKEY_CHANGE, IB_EVENT_PKEY_CHANGE },
		{ VMLX_EV_GID_CHANGE, IB_EVENT_GID_CHANGE },
		{ VMLX_EV_SM_CHANGE, IB_EVENT_SM_CHANGE },
		{ VMLX_EV_CLIENT_REREG, IB_EVENT_CLIENT_REREGISTER },
		{ VMLX_EV_PORT_ACTIVE, IB_EVENT_PORT_ACTIVE },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (events & order[i].bit)
			vmlx_port_event(port, order[i].type);
}

/* Events of a logical state change; under port->lock. */
static unsigned int vmlx_state_events(enum ib_port_state old,
				      enum ib_port_state state)
{
	if (old == state)
		return 0;
	if (state == IB_PORT_ACTIVE)
		return VMLX_EV_PORT_ACTIVE;
	if (old == IB_PORT_ACTIVE || state == IB_PORT_DOWN)
		return VMLX_EV_PORT_ERR;
	return 0;
}

/*
 * Move a port to @next (already validated); under port->lock.  DOWN and
 * a disabled link also take the physical state down at once; the link
 * operation itself is for the caller to request once the lock is dropped.
 */
static unsigned int vmlx_port_move(struct vmlx_port *port,
				   enum ib_port_state next, u8 phys_req)
{
	enum ib_port_state old = port->state;

	if (phys_req == IB_PORT_PHYS_STATE_DISABLED) {
		next = IB_PORT_DOWN;
		WRITE_ONCE(port->phys_state, IB_PORT_PHYS_STATE_DISABLED);
	} else if (next == IB_PORT_DOWN && old != IB_PORT_DOWN) {
		WRITE_ONCE(port->phys_state, IB_PORT_PHYS_STATE_POLLING);
	}
	WRITE_ONCE(port->state, next);
	return vmlx_state_events(old, next);
}

/**
 * vmlx_port_set_state() - PortInfo:PortState of a SubnSet, alone
 * @port: the HCA port
 * @state: the requested state (enum ib_port_state value)
 *
 * What the SMA does with the state field of a Set, for the module playing
 * subnet manager (static_lids): the same state machine, the same events.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a transition the port does not make.
 */
int vmlx_port_set_state(struct vmlx_port *port, u8 state)
{
	enum ib_port_state next;
	unsigned int events;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	if (vmlx_port_state_next(port->state, state, &next)) {
		spin_unlock_irqrestore(&port->lock, flags);
		return -EINVAL;
	}
	events = vmlx_port_move(port, next, 0);
	spin_unlock_irqrestore(&port->lock, flags);

	if (state == IB_PORT_DOWN)
		vmlx_port_link_request(port, 0, true);
	vmlx_port_raise(port, events);
	return 0;
}

/**
 * vmlx_port_set_lid() - LID, LMC and MasterSMLID of a SubnSet, alone
 * @port: the HCA port
 * @lid: the LID, 1..0xBFFF
 * @lmc: the LMC, 0..7
 * @sm_lid: the SM's LID, 0 for none
 *
 * Context: any.
 * Return: 0, or -EINVAL for a value out of range.
 */
int vmlx_port_set_lid(struct vmlx_port *port, u16 lid, u8 lmc, u16 sm_lid)
{
	unsigned int events = 0;
	unsigned long flags;

	if (!lid || lid > VMLX_LID_UCAST_MAX || lmc > 7 ||
	    sm_lid > VMLX_LID_UCAST_MAX)
		return -EINVAL;
	spin_lock_irqsave(&port->lock, flags);
	if (port->lid != lid || port->lmc != lmc)
		events |= VMLX_EV_LID_CHANGE;
	if (port->sm_lid != sm_lid)
		events |= VMLX_EV_SM_CHANGE;
	WRITE_ONCE(port->lid, lid);
	WRITE_ONCE(port->lmc, lmc);
	port->sm_lid = sm_lid;
	spin_unlock_irqrestore(&port->lock, flags);
	vmlx_port_raise(port, events);
	return 0;
}

/* PortInfo of @port as seen through @in_port; under port->lock. */
static void vmlx_port_pi(struct vmlx_port *port, u32 in_port,
			 struct vmlx_pi *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->mkey = port->mkey;
	pi->gid_prefix = port->gid_prefix;
	pi->lid = port->lid;
	pi->sm_lid = port->sm_lid;
	pi->cap_mask = port->cap_mask;
	pi->mkey_lease = port->mkey_lease;
	pi->local_port = in_port;
	pi->state = port->state;
	pi->phys_state = port->phys_state;
	pi->mkey_protect = port->mkey_protect;
	pi->lmc = port->lmc;
	pi->sm_sl = port->sm_sl;
	pi->mcast_trap_supp = port->mcast_trap_supp;
	pi->subnet_timeout = port->subnet_timeout;
	pi->guid_cap = VMLX_GID_TBL_LEN;
	pi->link = port->link;
}

/*
 * M_Key check of an HCA port (vmlx_smp_mkey_ok()), unless the MAD core
 * says to ignore the M_Key.  A violation is counted and gets no answer.
 */
static bool vmlx_port_mkey_ok(struct vmlx_port *port, int mad_flags,
			      const struct ib_smp *smp, bool *hide)
{
	unsigned long flags;
	bool ok;

	*hide = false;
	if (mad_flags & IB_MAD_IGNORE_MKEY)
		return true;
	spin_lock_irqsave(&port->lock, flags);
	ok = vmlx_smp_mkey_ok(port->mkey, port->mkey_protect, smp, hide);
	if (!ok && port->link.mkey_violations != U16_MAX)
		port->link.mkey_violations++;
	spin_unlock_irqrestore(&port->lock, flags);
	return ok;
}

static int vmlx_sma_node_desc(struct vmlx_dev *vdev, struct ib_smp *smp)
{
	u16 status = vmlx_smp_get_only_status(smp);
	unsigned long flags;

	if (status)
		return vmlx_smp_reply(smp, status);
	spin_lock_irqsave(&vdev->attr_lock, flags);
	memcpy(smp->data, vdev->ibdev.node_desc, IB_DEVICE_NODE_DESC_MAX);
	spin_unlock_irqrestore(&vdev->attr_lock, flags);
	return vmlx_smp_reply(smp, 0);
}

static int vmlx_sma_node_info(struct vmlx_dev *vdev, u32 port_num,
			      struct ib_smp *smp)
{
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;
	u16 status = vmlx_smp_get_only_status(smp);
	unsigned long flags;

	if (status)
		return vmlx_smp_reply(smp, status);
	vmlx_node_info_fill(ni, RDMA_NODE_IB_CA, vdev->ibdev.phys_port_cnt,
			    VMLX_PKEY_TBL_LEN, VMLX_VENDOR_PART_ID, port_num);
	spin_lock_irqsave(&vdev->attr_lock, flags);
	ni->sys_guid = vdev->ibdev.attrs.sys_image_guid;
	spin_unlock_irqrestore(&vdev->attr_lock, flags);
	ni->node_guid = vdev->ibdev.node_guid;
	ni->port_guid = vmlx_port(vdev, port_num)->guid;
	return vmlx_smp_reply(smp, 0);
}

/* The port a PortInfo, SL2VL or VLArb attribute modifier names, or NULL. */
static struct vmlx_port *vmlx_am_port(struct vmlx_dev *vdev, u32 port_num,
				      u32 p)
{
	if (!p)
		p = port_num;
	if (p > vdev->ibdev.phys_port_cnt)
		return NULL;
	return vmlx_port(vdev, p);
}

/*
 * The writable PortInfo fields of a Set, applied to @port as a whole or
 * not at all; under port->lock.  Returns the status and adds the events
 * to raise and the link operations to request.
 */
static u16 vmlx_port_pi_apply(struct vmlx_port *port, const struct vmlx_pi *r,
			      unsigned int *events, bool *retrain)
{
	struct vmlx_link link = port->link;
	enum ib_port_state next;

	if (!vmlx_pi_lids_ok(r, port->lid, port->sm_lid) ||
	    vmlx_pi_port_set(r, port->state, &next, &link))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;

	if (r->lid != port->lid || r->lmc != port->lmc)
		*events |= VMLX_EV_LID_CHANGE;
	if (r->sm_lid != port->sm_lid || r->sm_sl != port->sm_sl)
		*events |= VMLX_EV_SM_CHANGE;
	if (r->gid_prefix != port->gid_prefix)
		*events |= VMLX_EV_GID_CHANGE;
	if (r->client_rereg)
		*events |= VMLX_EV_CLIENT_REREG;
	port->mkey = r->mkey;
	port->gid_prefix = r->gid_prefix;
	WRITE_ONCE(port->lid, r->lid);
	WRITE_ONCE(port->lmc, r->lmc);
	port->sm_lid = r->sm_lid;
	port->sm_sl = r->sm_sl;
	port->mkey_lease = r->mkey_lease;
	port->mkey_protect = r->mkey_protect;
	port->subnet_timeout = r->subnet_timeout;
	port->mcast_trap_supp = r->mcast_trap_supp;
	port->link = link;
	*retrain = r->state == IB_PORT_DOWN;
	*events |= vmlx_port_move(port, next, r->phys_state);
	return 0;
}

static int vmlx_sma_port_info(struct vmlx_dev *vdev, u32 port_num,
			      struct ib_smp *smp, const struct ib_smp *req,
			      bool hide_mkey)
{
	u32 am = be32_to_cpu(smp->attr_mod);
	struct vmlx_pi pi, r;
	struct vmlx_port *port;
	unsigned int events = 0;
	bool retrain = false;
	unsigned long flags;
	u16 status = 0;

	/* bit 31: the SM supports extended speeds; nothing else is used */
	port = (am & 0x7fffff00) ? NULL : vmlx_am_port(vdev, port_num,
						       am & 0xff);
	if (!port)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	if (smp->method == IB_MGMT_METHOD_SET)
		vmlx_pi_decode(req->data, &r);

	spin_lock_irqsave(&port->lock, flags);
	if (smp->method == IB_MGMT_METHOD_SET)
		status = vmlx_port_pi_apply(port, &r, &events, &retrain);
	vmlx_port_pi(port, port_num, &pi);
	spin_unlock_irqrestore(&port->lock, flags);

	if (smp->method == IB_MGMT_METHOD_SET && !status)
		vmlx_port_link_request(port, r.phys_state, retrain);
	vmlx_port_raise(port, events);
	return vmlx_pi_reply(smp, &pi, hide_mkey, status);
}

static int vmlx_sma_pkey_table(struct vmlx_port *port, struct ib_smp *smp,
			       const struct ib_smp *req)
{
	__be16 *out = (__be16 *)smp->data;
	const __be16 *in = (const __be16 *)req->data;
	unsigned int events = 0;
	unsigned long flags;
	unsigned int i;
	u16 pkey;

	/* 16 entries: block 0 only */
	if (smp->attr_mod)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	spin_lock_irqsave(&port->lock, flags);
	for (i = 0; i < VMLX_PKEY_TBL_LEN; i++) {
		if (smp->method == IB_MGMT_METHOD_SET) {
			pkey = be16_to_cpu(in[i]);
			if (pkey != port->pkeys[i])
				events |= VMLX_EV_PKEY_CHANGE;
			WRITE_ONCE(port->pkeys[i], pkey);
		}
		out[i] = cpu_to_be16(port->pkeys[i]);
	}
	spin_unlock_irqrestore(&port->lock, flags);
	vmlx_port_raise(port, events);
	return vmlx_smp_reply(smp, 0);
}

static int vmlx_sma_guid_info(struct vmlx_port *port, struct ib_smp *smp,
			      const struct ib_smp *req)
{
	__be64 *out = (__be64 *)smp->data;
	const __be64 *in = (const __be64 *)req->data;
	unsigned int events = 0;
	unsigned long flags;
	unsigned int i;

	/* 4 GUIDs: block 0 only; entry 0, the port GUID, is read-only */
	if (smp->attr_mod)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	spin_lock_irqsave(&port->lock, flags);
	for (i = 0; i < VMLX_GID_TBL_LEN; i++) {
		if (smp->method == IB_MGMT_METHOD_SET && i &&
		    in[i] != port->guids[i]) {
			port->guids[i] = in[i];
			events |= VMLX_EV_GID_CHANGE;
		}
		out[i] = port->guids[i];
	}
	spin_unlock_irqrestore(&port->lock, flags);
	vmlx_port_raise(port, events);
	return vmlx_smp_reply(smp, 0);
}

static int vmlx_sma_sl2vl(struct vmlx_dev *vdev, u32 port_num,
			  struct ib_smp *smp, const struct ib_smp *req)
{
	struct vmlx_port *port;
	unsigned long flags;

	/* a CA's table is per port; the modifier names no ports */
	port = vmlx_port(vdev, port_num);
	if (smp->attr_mod)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	spin_lock_irqsave(&port->lock, flags);
	if (smp->method == IB_MGMT_METHOD_SET)
		memcpy(port->sl2vl, req->data, VMLX_SL2VL_BYTES);
	memcpy(smp->data, port->sl2vl, VMLX_SL2VL_BYTES);
	spin_unlock_irqrestore(&port->lock, flags);
	return vmlx_smp_reply(smp, 0);
}

static int vmlx_sma_vlarb(struct vmlx_dev *vdev, u32 port_num,
			  struct ib_smp *smp, const struct ib_smp *req)
{
	u32 am = be32_to_cpu(smp->attr_mod);
	u32 block = am >> 16;
	struct vmlx_port *port;
	unsigned long flags;

	/* AM: block 1..4 in bits 31:16, port in bits 7:0 */
	port = (am & 0xff00) ? NULL : vmlx_am_port(vdev, port_num, am & 0xff);
	if (!port || block < 1 || block > VMLX_VLARB_BLOCKS)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	spin_lock_irqsave(&port->lock, flags);
	if (smp->method == IB_MGMT_METHOD_SET)
		memcpy(port->vlarb[block - 1], req->data, VMLX_VLARB_BYTES);
	memcpy(smp->data, port->vlarb[block - 1], VMLX_VLARB_BYTES);
	spin_unlock_irqrestore(&port->lock, flags);
	return vmlx_smp_reply(smp, 0);
}

/*
 * The port an SMP acts on: the one its attribute modifier names for
 * PortInfo and VLArbitration (when valid: else the handler refuses it),
 * the one it arrived on for everything else.
 */
static struct vmlx_port *vmlx_sma_acted_on(struct vmlx_dev *vdev,
					   u32 port_num,
					   const struct ib_smp *smp)
{
	u32 am = be32_to_cpu(smp->attr_mod);
	struct vmlx_port *port = NULL;

	if (smp->attr_id == IB_SMP_ATTR_PORT_INFO ||
	    smp->attr_id == IB_SMP_ATTR_VL_ARB_TABLE)
		port = vmlx_am_port(vdev, port_num, am & 0xff);
	return port ? port : vmlx_port(vdev, port_num);
}

/*
 * SubnGet/SubnSet for an HCA port; @smp is a copy of @req to answer in.
 * The M_Key is checked against the port the SMP arrived on and, as qib
 * and hfi1 do, against the port it acts on when that is another one:
 * each port of a CA has its own M_Key, and an SMP reaching an unprotected
 * port must neither change nor reveal a protected one.
 */
static int vmlx_sma(struct vmlx_dev *vdev, int mad_flags, u32 port_num,
		    const struct ib_smp *req, struct ib_smp *smp)
{
	struct vmlx_port *port = vmlx_port(vdev, port_num);
	struct vmlx_port *target;
	bool hide, hide_target;

	if (smp->class_version != 1)
		return vmlx_smp_reply(smp, IB_MGMT_MAD_STATUS_BAD_VERSION);
	if (!vmlx_port_mkey_ok(port, mad_flags, req, &hide))
		return IB_MAD_RESULT_FAILURE | IB_MAD_RESULT_CONSUMED;
	target = vmlx_sma_acted_on(vdev, port_num, smp);
	if (target != port) {
		if (!vmlx_port_mkey_ok(target, mad_flags, req, &hide_target))
			return IB_MAD_RESULT_FAILURE | IB_MAD_RESULT_CONSUMED;
		hide |= hide_target;
	}
	memset(smp->data, 0, sizeof(smp->data));

	switch (smp->attr_id) {
	case IB_SMP_ATTR_NODE_DESC:
		return vmlx_sma_node_desc(vdev, smp);
	case IB_SMP_ATTR_NODE_INFO:
		return vmlx_sma_node_info(vdev, port_num, smp);
	case IB_SMP_ATTR_PORT_INFO:
		return vmlx_sma_port_info(vdev, port_num, smp, req, hide);
	case IB_SMP_ATTR_PKEY_TABLE:
		return vmlx_sma_pkey_table(port, smp, req);
	case IB_SMP_ATTR_GUID_INFO:
		return vmlx_sma_guid_info(port, smp, req);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return vmlx_sma_sl2vl(vdev, port_num, smp, req);
	case IB_SMP_ATTR_VL_ARB_TABLE:
		return vmlx_sma_vlarb(vdev, port_num, smp, req);
	default:
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	}
}

/**
 * vmlx_process_mad() - the HCA's SMA and PMA (ib_device_ops.process_mad)
 * @ibdev: the HCA
 * @mad_flags: IB_MAD_IGNORE_* bits
 * @port_num: the port the MAD arrived on (or is processed for)
 * @in_wc: the receive completion, NULL for local processing; unused
 * @in_grh: the GRH, if any; unused
 * @in: the MAD
 * @out: room for the answer
 * @out_mad_size: size of @out in bytes, set to the answer's
 * @out_mad_pkey_index: unused: answers go with the request's P_Key
 *
 * Answers SubnGet/SubnSet (classes 0x01 and 0x81) and PMA Get/Set (class
 * 0x04); consumes TrapRepress.  Everything else, SMInfo and responses
 * included, is declined with IB_MAD_RESULT_SUCCESS and no reply, for the
 * MAD core to hand to its agents.
 *
 * Context: any; does not sleep.
 * Return: IB_MAD_RESULT_* bits.
 */
int vmlx_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in, struct ib_mad *out,
		     size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_mad_hdr *hdr = &in->mad_hdr;
	bool smp_class;

	if (!rdma_is_port_valid(ibdev, port_num) || !out_mad_size ||
	    *out_mad_size < sizeof(*out))
		return IB_MAD_RESULT_FAILURE;
	if (hdr->base_version != IB_MGMT_BASE_VERSION)
		return IB_MAD_RESULT_SUCCESS;

	smp_class = hdr->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
		    hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	if (!smp_class && hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return IB_MAD_RESULT_SUCCESS;
	if (smp_class && hdr->method == IB_MGMT_METHOD_TRAP_REPRESS)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	if (hdr->method != IB_MGMT_METHOD_GET &&
	    hdr->method != IB_MGMT_METHOD_SET)
		return IB_MAD_RESULT_SUCCESS;
	/* the SM's business, if there is an SM on this port */
	if (smp_class && hdr->attr_id == IB_SMP_ATTR_SM_INFO)
		return IB_MAD_RESULT_SUCCESS;

	if (out != in)
		memcpy(out, in, sizeof(*out));
	*out_mad_size = sizeof(*out);
	if (!smp_class)
		return vmlx_pma(to_vmlx(ibdev), port_num, in, out);
	return vmlx_sma(to_vmlx(ibdev), mad_flags, port_num,
			(const struct ib_smp *)in, (struct ib_smp *)out);
}

/**
 * vmlx_modify_port() - change a port's capability bits (modify_port op)
 * @ibdev: the HCA
 * @port_num: the port
 * @mask: IB_PORT_SHUTDOWN disables the port's link;
 *	IB_PORT_RESET_QKEY_CNTR clears Q_KeyViolations
 * @props: bits to set and to clear in PortInfo:CapabilityMask
 *
 * A change of the mask is reported to the subnet manager with Trap 144.
 *
 * Context: process context.
 * Return: 0, or -EINVAL for an invalid port or unknown mask bits.
 */
int vmlx_modify_port(struct ib_device *ibdev, u32 port_num, int mask,
		     struct ib_port_modify *props)
{
	struct vmlx_port *port;
	unsigned long flags;
	bool changed;
	u32 old;

	if (!rdma_is_port_valid(ibdev, port_num) ||
	    (mask & ~(IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE |
		      IB_PORT_RESET_QKEY_CNTR))) {
		vmlx_dbg_refusal(ibdev, "modify_port: port %u, mask 0x%x\n",
				 port_num, mask);
		return -EINVAL;
	}
	port = vmlx_port(to_vmlx(ibdev), port_num);
	spin_lock_irqsave(&port->lock, flags);
	old = port->cap_mask;
	port->cap_mask = (port->cap_mask | props->set_port_cap_mask) &
			 ~props->clr_port_cap_mask;
	changed = port->cap_mask != old;
	if (mask & IB_PORT_RESET_QKEY_CNTR)
		port->link.qkey_violations = 0;
	spin_unlock_irqrestore(&port->lock, flags);
	if (changed)
		vmlx_port_trap_local_changes(port);
	if (mask & IB_PORT_SHUTDOWN)
		return vmlx_port_set_link(port, false);
	return 0;
}
