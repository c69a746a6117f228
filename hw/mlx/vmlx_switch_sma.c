// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx switch SMA: the subnet management agent of the emulated switch and
 * its subnet management interface, i.e. what happens to a VL15 packet that
 * arrives at a switch port.  (Other packets for the switch's LID go to its
 * PMA, vmlx_switch_pma.c.)
 *
 *   - An SMP whose LRH DLID is the permissive LID is for the switch: the
 *     switch is the physical link partner of the port that sent it.  So
 *     is a LID-routed SMP (class 0x01) for one of the switch's LIDs.
 *   - Other LID-routed SMPs are forwarded by the linear forwarding table,
 *     like any unicast packet, whatever the port states.
 *   - A directed-route SMP (class 0x81) follows the rules of IBA 14.2.2
 *     (vmlx_dr_switch_recv()): on its way out the switch records the
 *     ingress port in ReturnPath and sends it on by InitialPath; on its
 *     way back it sends it on by ReturnPath; at the end of its path the
 *     switch's SMA answers it.  An SMP whose hop pointer, hop count or
 *     paths do not add up, or that uses a LID-routed part (non-permissive
 *     DrSLID/DrDLID), is dropped and counted in smp_discards.
 *
 * The SMA answers NodeInfo, NodeDescription, SwitchInfo, PortInfo (port 0
 * and the external ports), P_KeyTable (port 0), LinearForwardingTable and
 * MulticastForwardingTable; a Set programs the tables the data path
 * forwards by (vmlx_switch.c).  External ports have the state machine of
 * HCA ports: INIT -> ARMED -> ACTIVE by SubnSet, DOWN retrains the link.
 * Port 0 is a base port 0: always ACTIVE, LinkUp.  When a link goes up or
 * down the switch sends Trap 128 to the subnet manager (vmlx_trap.c: once;
 * the subnet manager also finds the PortStateChange bit in its sweeps).
 *
 * Everything runs in the context of the packet's sender, under
 * rcu_read_lock(): the SMA takes only the switch's spinlock and allocates
 * atomically; link operations go to the fabric's work item.
 */
#include <linux/export.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include <kunit/visibility.h>

#include "vmlx_fabric.h"
#include "vmlx_pkt.h"
#include "vmlx_sma.h"

#define VMLX_SW_NODE_DESC	"vmlx switch"
#define VMLX_SW_PORT0_CAP	(IB_PORT_SYS_IMAGE_GUID_SUP | \
				 IB_PORT_EXTENDED_SPEEDS_SUP)

/* Trap 128 (IBA 14.2.5.1): generic, urgent, from a switch */
#define VMLX_TRAP_LINK_STATE	128

/* SwitchInfo byte offsets (IBA 14.2.5.4) */
#define VMLX_SI_LFT_CAP		0
#define VMLX_SI_RFT_CAP		2
#define VMLX_SI_MFT_CAP		4
#define VMLX_SI_LFT_TOP		6
#define VMLX_SI_DEF_PORT	8
#define VMLX_SI_DEF_MC_PRI	9
#define VMLX_SI_DEF_MC_NOT_PRI	10
#define VMLX_SI_LIFE_PSC	11
#define VMLX_SI_LIDS_PER_PORT	12
#define VMLX_SI_ENF_CAP		14
#define VMLX_SI_FLAGS		16
#define VMLX_SI_MFT_TOP		18
#define VMLX_SI_PSC		BIT(2)

/* ------------------------------------------------------------------ */
/* Directed route                                                      */
/* ------------------------------------------------------------------ */

/**
 * vmlx_dr_switch_recv() - a directed-route SMP arrives at a switch port
 * @smp: the SMP; its hop pointer and ReturnPath are updated
 * @in: the port it came in on, 1..@num_ports
 * @num_ports: the switch's external ports
 *
 * The rules of IBA 14.2.2.2 and 14.2.2.4 (C14-9, C14-13) for a switch in
 * a purely directed route (DrSLID and DrDLID permissive).  Outgoing
 * (direction 0), 1 <= hop pointer <= hop count: ReturnPath[hop pointer] =
 * @in, the hop pointer moves on; past the hop count the switch is the
 * destination, else the SMP leaves by InitialPath[hop pointer].
 * Returning (direction 1), 2 <= hop pointer <= hop count, having come in
 * by InitialPath[hop pointer]: the hop pointer moves back and the SMP
 * leaves by ReturnPath[hop pointer].
 *
 * Return: the egress port (1..@num_ports) to send the SMP on by, 0 if the
 * switch's SMA is its destination, -EINVAL if it is to be dropped: hop
 * count 0 or over 63, hop pointer out of place, a LID-routed part, an
 * egress port the switch does not have.
 */
VISIBLE_IF_KUNIT int vmlx_dr_switch_recv(struct ib_smp *smp, u8 in,
					 u8 num_ports)
{
	u8 hop_cnt = smp->hop_cnt;
	u8 hop_ptr = smp->hop_ptr;
	u8 out;

	if (!hop_cnt || hop_cnt >= IB_SMP_MAX_PATH_HOPS || !in ||
	    in > num_ports || smp->dr_slid != IB_LID_PERMISSIVE ||
	    smp->dr_dlid != IB_LID_PERMISSIVE)
		return -EINVAL;

	if (!ib_get_smp_direction(smp)) {
		if (!hop_ptr || hop_ptr > hop_cnt)
			return -EINVAL;
		smp->return_path[hop_ptr] = in;
		smp->hop_ptr = ++hop_ptr;
		if (hop_ptr > hop_cnt)
			return 0;
		out = smp->initial_path[hop_ptr];
	} else {
		if (hop_ptr < 2 || hop_ptr > hop_cnt ||
		    smp->initial_path[hop_ptr] != in)
			return -EINVAL;
		smp->hop_ptr = --hop_ptr;
		out = smp->return_path[hop_ptr];
	}
	if (!out || out > num_ports)
		return -EINVAL;
	return out;
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_dr_switch_recv);

/**
 * vmlx_dr_switch_reply() - where the switch SMA's response goes
 * @smp: the response (direction 1, hop pointer = hop count + 1); its hop
 *	pointer is moved back
 * @num_ports: the switch's external ports
 *
 * C14-13:1: the response leaves by ReturnPath[hop count], the port the
 * request came in on.
 *
 * Return: the egress port, or -EINVAL if the SMP is not such a response.
 */
VISIBLE_IF_KUNIT int vmlx_dr_switch_reply(struct ib_smp *smp, u8 num_ports)
{
	u8 out;

	if (!ib_get_smp_direction(smp) || !smp->hop_cnt ||
	    smp->hop_cnt >= IB_SMP_MAX_PATH_HOPS ||
	    smp->hop_ptr != smp->hop_cnt + 1)
		return -EINVAL;
	smp->hop_ptr--;
	out = smp->return_path[smp->hop_ptr];
	if (!out || out > num_ports)
		return -EINVAL;
	return out;
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_dr_switch_reply);

/* ------------------------------------------------------------------ */
/* Attributes                                                          */
/* ------------------------------------------------------------------ */

static int vmlx_sw_node_info(struct vmlx_switch *sw, u8 in,
			     struct ib_smp *smp)
{
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;
	u16 status = vmlx_smp_get_only_status(smp);

	if (status)
		return vmlx_smp_reply(smp, status);
	vmlx_node_info_fill(ni, RDMA_NODE_IB_SWITCH, sw->num_ports,
			    VMLX_SW_PKEY_TBL_LEN, VMLX_SW_DEVICE_ID, in);
	ni->sys_guid = cpu_to_be64(sw->guid);
	ni->node_guid = cpu_to_be64(sw->guid);
	ni->port_guid = cpu_to_be64(sw->guid);
	return vmlx_smp_reply(smp, 0);
}

static int vmlx_sw_node_desc(struct ib_smp *smp)
{
	u16 status = vmlx_smp_get_only_status(smp);

	if (status)
		return vmlx_smp_reply(smp, status);
	strscpy(smp->data, VMLX_SW_NODE_DESC, IB_SMP_DATA_SIZE);
	return vmlx_smp_reply(smp, 0);
}

/* SwitchInfo; under the switch's lock. */
static void vmlx_sw_info_fill(struct vmlx_switch *sw, u8 *d)
{
	put_unaligned_be16(VMLX_SW_LFT_CAP, d + VMLX_SI_LFT_CAP);
	put_unaligned_be16(0, d + VMLX_SI_RFT_CAP);
	put_unaligned_be16(VMLX_SW_MFT_CAP, d + VMLX_SI_MFT_CAP);
	put_unaligned_be16(sw->lft_top, d + VMLX_SI_LFT_TOP);
	d[VMLX_SI_DEF_PORT] = sw->default_port;
	d[VMLX_SI_DEF_MC_PRI] = sw->default_mcast_primary;
	d[VMLX_SI_DEF_MC_NOT_PRI] = sw->default_mcast_not_primary;
	d[VMLX_SI_LIFE_PSC] = sw->life_time << 3 |
			      (sw->psc ? VMLX_SI_PSC : 0);
	put_unaligned_be16(0, d + VMLX_SI_LIDS_PER_PORT);
	put_unaligned_be16(0, d + VMLX_SI_ENF_CAP);
	d[VMLX_SI_FLAGS] = 0;
	put_unaligned_be16(sw->mft_top, d + VMLX_SI_MFT_TOP);
}

static bool vmlx_sw_port_or_none(struct vmlx_switch *sw, u8 p)
{
	return p == VMLX_LFT_UNROUTED || p <= sw->num_ports;
}

static int vmlx_sw_info(struct vmlx_switch *sw, struct ib_smp *smp,
			const u8 *req)
{
	u16 lft_top = get_unaligned_be16(req + VMLX_SI_LFT_TOP);
	unsigned long flags;
	u16 status = 0;

	if (smp->attr_mod)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	spin_lock_irqsave(&sw->lock, flags);
	if (smp->method == IB_MGMT_METHOD_SET) {
		if (lft_top >= VMLX_SW_LFT_CAP ||
		    !vmlx_sw_port_or_none(sw, req[VMLX_SI_DEF_PORT]) ||
		    !vmlx_sw_port_or_none(sw, req[VMLX_SI_DEF_MC_PRI]) ||
		    !vmlx_sw_port_or_none(sw, req[VMLX_SI_DEF_MC_NOT_PRI])) {
			status = IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
		} else {
			WRITE_ONCE(sw->lft_top, lft_top);
			sw->mft_top = get_unaligned_be16(req + VMLX_SI_MFT_TOP);
			sw->default_port = req[VMLX_SI_DEF_PORT];
			sw->default_mcast_primary = req[VMLX_SI_DEF_MC_PRI];
			sw->default_mcast_not_primary =
				req[VMLX_SI_DEF_MC_NOT_PRI];
			sw->life_time = req[VMLX_SI_LIFE_PSC] >> 3;
			/* PortStateChange: writing 1 clears it */
			if (req[VMLX_SI_LIFE_PSC] & VMLX_SI_PSC)
				sw->psc = false;
		}
	}
	vmlx_sw_info_fill(sw, smp->data);
	spin_unlock_irqrestore(&sw->lock, flags);
	return vmlx_smp_reply(smp, status);
}

/* PortInfo of switch port @p as seen through @in; under the lock. */
static void vmlx_sw_pi(struct vmlx_switch *sw, u8 p, u8 in,
		       struct vmlx_pi *pi)
{
	struct vmlx_fport *end = &sw->ports[p];

	memset(pi, 0, sizeof(*pi));
	pi->mkey = sw->mkey;
	pi->gid_prefix = sw->gid_prefix;
	pi->lid = sw->lid;
	pi->sm_lid = sw->sm_lid;
	pi->cap_mask = p ? 0 : VMLX_SW_PORT0_CAP;
	pi->mkey_lease = sw->mkey_lease;
	pi->local_port = in;
	pi->state = end->state;
	pi->phys_state = end->phys;
	pi->mkey_protect = sw->mkey_protect;
	pi->lmc = sw->lmc;
	pi->sm_sl = sw->sm_sl;
	pi->mcast_trap_supp = sw->mcast_trap_supp;
	pi->subnet_timeout = sw->subnet_timeout;
	pi->guid_cap = p ? 0 : 1;
	pi->link = end->link;
}

/* A Set of port 0: the switch's addresses; under the lock. */
static u16 vmlx_sw_pi_set0(struct vmlx_switch *sw, const struct vmlx_pi *r)
{
	struct vmlx_link link = sw->ports[0].link;

	/* base port 0 is always ACTIVE; a state request changes nothing */
	if (r->state > IB_PORT_ACTIVE ||
	    !vmlx_pi_lids_ok(r, sw->lid, sw->sm_lid) ||
	    vmlx_link_set(r, &link))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	sw->mkey = r->mkey;
	sw->gid_prefix = r->gid_prefix;
	WRITE_ONCE(sw->lid, r->lid);
	WRITE_ONCE(sw->lmc, r->lmc);
	sw->sm_lid = r->sm_lid;
	sw->sm_sl = r->sm_sl;
	sw->mkey_lease = r->mkey_lease;
	sw->mkey_protect = r->mkey_protect;
	sw->subnet_timeout = r->subnet_timeout;
	sw->mcast_trap_supp = r->mcast_trap_supp;
	sw->ports[0].link = link;
	return 0;
}

/* A Set of external port @p: its link and state; under the lock. */
static u16 vmlx_sw_pi_set(struct vmlx_switch *sw, u8 p,
			  const struct vmlx_pi *r)
{
	struct vmlx_fport *end = &sw->ports[p];
	struct vmlx_link link = end->link;
	enum ib_port_state next;

	if (vmlx_pi_port_set(r, end->state, &next, &link))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	end->link = link;
	if (r->phys_state == IB_PORT_PHYS_STATE_DISABLED) {
		next = IB_PORT_DOWN;
		WRITE_ONCE(end->phys, IB_PORT_PHYS_STATE_DISABLED);
		vmlx_fport_request(end, VMLX_FP_DISABLE);
	} else if (r->phys_state == IB_PORT_PHYS_STATE_POLLING) {
		vmlx_fport_request(end, VMLX_FP_ENABLE);
	}
	if (r->state == IB_PORT_DOWN) {
		if (end->phys == IB_PORT_PHYS_STATE_LINK_UP)
			WRITE_ONCE(end->phys, IB_PORT_PHYS_STATE_POLLING);
		vmlx_fport_request(end, VMLX_FP_RETRAIN);
	}
	if (next != end->state)
		WRITE_ONCE(end->state, next);
	return 0;
}

static int vmlx_sw_port_info(struct vmlx_switch *sw, u8 in,
			     struct ib_smp *smp, const struct ib_smp *req,
			     bool hide_mkey)
{
	u32 am = be32_to_cpu(smp->attr_mod);
	u8 p = am & 0xff;
	unsigned long flags;
	struct vmlx_pi pi, r;
	u16 status = 0;

	if ((am & 0x7fffff00) || p > sw->num_ports)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	if (smp->method == IB_MGMT_METHOD_SET)
		vmlx_pi_decode(req->data, &r);
	spin_lock_irqsave(&sw->lock, flags);
	if (smp->method == IB_MGMT_METHOD_SET)
		status = p ? vmlx_sw_pi_set(sw, p, &r) : vmlx_sw_pi_set0(sw, &r);
	vmlx_sw_pi(sw, p, in, &pi);
	spin_unlock_irqrestore(&sw->lock, flags);
	return vmlx_pi_reply(smp, &pi, hide_mkey, status);
}

static int vmlx_sw_pkey_table(struct vmlx_switch *sw, struct ib_smp *smp,
			      const struct ib_smp *req)
{
	const __be16 *in = (const __be16 *)req->data;
	__be16 *out = (__be16 *)smp->data;
	unsigned long flags;
	unsigned int i;

	/* block 0 of port 0: external ports enforce no partitions */
	if (smp->attr_mod)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < VMLX_SW_PKEY_TBL_LEN; i++) {
		if (smp->method == IB_MGMT_METHOD_SET)
			sw->pkeys[i] = be16_to_cpu(in[i]);
		out[i] = cpu_to_be16(sw->pkeys[i]);
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	return vmlx_smp_reply(smp, 0);
}

static int vmlx_sw_lft(struct vmlx_switch *sw, struct ib_smp *smp,
		       const struct ib_smp *req)
{
	u32 block = be32_to_cpu(smp->attr_mod);
	unsigned long flags;
	unsigned int i, lid;

	if (block >= VMLX_SW_LFT_CAP / VMLX_SW_LFT_BLOCK)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	lid = block * VMLX_SW_LFT_BLOCK;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < VMLX_SW_LFT_BLOCK; i++) {
		if (smp->method == IB_MGMT_METHOD_SET)
			WRITE_ONCE(sw->lft[lid + i], req->data[i]);
		smp->data[i] = sw->lft[lid + i];
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	return vmlx_smp_reply(smp, 0);
}

static int vmlx_sw_mft(struct vmlx_switch *sw, struct ib_smp *smp,
		       const struct ib_smp *req)
{
	const __be16 *in = (const __be16 *)req->data;
	u32 am = be32_to_cpu(smp->attr_mod);
	__be16 *out = (__be16 *)smp->data;
	u32 block = am & 0x1ff, pos = am >> 28;
	u64 ports = GENMASK_ULL(sw->num_ports, 0);
	unsigned long flags;
	unsigned int i, shift;
	u64 mask;

	/* AM: PortMask position in bits 31:28, block in bits 8:0 */
	if ((am & 0x0ffffe00) || block >= VMLX_SW_MFT_CAP / VMLX_SW_MFT_BLOCK ||
	    pos * 16 > sw->num_ports)
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	shift = pos * 16;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < VMLX_SW_MFT_BLOCK; i++) {
		u64 *entry = &sw->mft[block * VMLX_SW_MFT_BLOCK + i];

		mask = *entry;
		if (smp->method == IB_MGMT_METHOD_SET) {
			mask &= ~(0xffffULL << shift);
			mask |= ((u64)be16_to_cpu(in[i]) << shift) & ports;
			WRITE_ONCE(*entry, mask);
		}
		out[i] = cpu_to_be16((mask >> shift) & 0xffff);
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	return vmlx_smp_reply(smp, 0);
}

/* M_Key check of the switch (vmlx_smp_mkey_ok()); a violation is dropped. */
static bool vmlx_sw_mkey_ok(struct vmlx_switch *sw, const struct ib_smp *smp,
			    bool *hide)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&sw->lock, flags);
	ok = vmlx_smp_mkey_ok(sw->mkey, sw->mkey_protect, smp, hide);
	spin_unlock_irqrestore(&sw->lock, flags);
	return ok;
}

/**
 * vmlx_switch_sma() - the switch's SMA answers an SMP
 * @sw: the switch
 * @in: the port the SMP came in on (LocalPortNum)
 * @smp: the request; turned into the response in place
 *
 * Context: any; does not sleep.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY if @smp is now a
 * response to send back, another IB_MAD_RESULT_* value if there is none
 * (a response, a TrapRepress, an M_Key violation).
 */
VISIBLE_IF_KUNIT int vmlx_switch_sma(struct vmlx_switch *sw, u8 in,
				     struct ib_smp *smp)
{
	struct ib_smp req;
	bool hide;

	if (smp->method & IB_MGMT_METHOD_RESP ||
	    smp->method == IB_MGMT_METHOD_TRAP ||
	    smp->method == IB_MGMT_METHOD_TRAP_REPRESS)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	if (smp->method != IB_MGMT_METHOD_GET &&
	    smp->method != IB_MGMT_METHOD_SET)
		return vmlx_smp_reply(smp,
				      IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
	if (smp->class_version != 1)
		return vmlx_smp_reply(smp, IB_MGMT_MAD_STATUS_BAD_VERSION);
	if (!vmlx_sw_mkey_ok(sw, smp, &hide))
		return IB_MAD_RESULT_FAILURE | IB_MAD_RESULT_CONSUMED;
	req = *smp;
	memset(smp->data, 0, sizeof(smp->data));

	switch (smp->attr_id) {
	case IB_SMP_ATTR_NODE_INFO:
		return vmlx_sw_node_info(sw, in, smp);
	case IB_SMP_ATTR_NODE_DESC:
		return vmlx_sw_node_desc(smp);
	case IB_SMP_ATTR_SWITCH_INFO:
		return vmlx_sw_info(sw, smp, req.data);
	case IB_SMP_ATTR_PORT_INFO:
		return vmlx_sw_port_info(sw, in, smp, &req, hide);
	case IB_SMP_ATTR_PKEY_TABLE:
		return vmlx_sw_pkey_table(sw, smp, &req);
	case IB_SMP_ATTR_LINEAR_FORWARD_TABLE:
		return vmlx_sw_lft(sw, smp, &req);
	case IB_SMP_ATTR_MCAST_FORWARD_TABLE:
		return vmlx_sw_mft(sw, smp, &req);
	default:
		return vmlx_smp_reply(smp,
				IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_switch_sma);

/* ------------------------------------------------------------------ */
/* The switch's subnet management interface                            */
/* ------------------------------------------------------------------ */

/* Send @smp from the switch out of port @out to @dlid, on VL15 to QP0. */
static void vmlx_switch_smp_xmit(struct vmlx_switch *sw, u8 out,
				 const struct ib_smp *smp, u16 dlid)
{
	struct vmlx_mad_addr a = {
		.slid = READ_ONCE(sw->lid),
		.dlid = dlid,
		.vl = VMLX_VL_SMI,
		.pkey = VMLX_DEFAULT_PKEY,
	};
	struct sk_buff *skb;

	skb = vmlx_mad_skb(smp, &a);
	if (!skb) {
		atomic64_inc(&sw->ports[out].cnt.xmit_discards);
		return;
	}
	vmlx_switch_send(&sw->ports[out], skb);
}

/**
 * vmlx_switch_trap_link() - Trap 128: a link of the switch went up or down
 * @sw: the switch
 *
 * A LID-routed Trap(Notice) to MasterSMLID, by the LFT, from the switch's
 * LID; nothing if the switch has no LID or SM LID yet or the SM LID is not
 * routed.
 *
 * Context: any; not under the switch's lock.
 */
void vmlx_switch_trap_link(struct vmlx_switch *sw)
{
	struct ib_mad_notice_attr *n;
	struct ib_smp smp;
	unsigned long flags;
	u16 lid, sm_lid;
	u8 egress;
	u32 tid;

	spin_lock_irqsave(&sw->lock, flags);
	lid = sw->lid;
	sm_lid = sw->sm_lid;
	tid = ++sw->trap_tid;
	spin_unlock_irqrestore(&sw->lock, flags);
	egress = vmlx_switch_lft(sw, sm_lid);
	if (!lid || !sm_lid || !egress)
		return;

	n = vmlx_trap_init(&smp, tid, IB_NOTICE_TYPE_URGENT,
			   IB_NOTICE_PROD_SWITCH, VMLX_TRAP_LINK_STATE, lid);
	/* the details of Trap 128: the switch's LID */
	put_unaligned_be16(lid, n->details.raw_data.details);
	atomic64_inc(&sw->traps);
	rcu_read_lock();
	vmlx_switch_smp_xmit(sw, egress, &smp, sm_lid);
	rcu_read_unlock();
}

/*
 * The SMP of a VL15 packet for the switch, copied out; false if the
 * packet is not a well-formed UD SEND to QP0 carrying a MAD.
 */
static bool vmlx_switch_smp_get(struct sk_buff *skb, struct ib_smp *smp)
{
	struct vmlx_pkt_layout layout;
	const struct vmlx_bth *bth;

	if (!vmlx_pkt_intact(skb) ||
	    vmlx_pkt_parse(skb->data, skb->len, &layout))
		return false;
	bth = (const struct vmlx_bth *)(skb->data + layout.bth);
	if (vmlx_bth_opcode(bth) != VMLX_OPC_UD_SEND_ONLY ||
	    vmlx_bth_qpn(bth) != 0 || layout.payload_len < sizeof(*smp))
		return false;
	memcpy(smp, skb->data + layout.payload, sizeof(*smp));
	return smp->base_version == IB_MGMT_BASE_VERSION;
}

/**
 * vmlx_switch_smi() - a VL15 packet arrives at a switch port
 * @in: the external switch port
 * @skb: the packet; consumed
 *
 * See the top of this file.
 *
 * Context: under rcu_read_lock(), from vmlx_port_xmit(); does not sleep.
 */
void vmlx_switch_smi(struct vmlx_fport *in, struct sk_buff *skb)
{
	const struct vmlx_lrh *lrh = (const struct vmlx_lrh *)skb->data;
	u16 dlid = vmlx_lrh_dlid(lrh), slid = vmlx_lrh_slid(lrh);
	struct vmlx_switch *sw = in->sw;
	struct ib_smp smp;
	int egress, ret;
	bool dr;

	if (dlid != VMLX_LID_PERMISSIVE && !vmlx_switch_own_lid(sw, dlid)) {
		if (dlid >= VMLX_LID_MCAST_MIN) {
			atomic64_inc(&in->cnt.relay_errors);
			kfree_skb(skb);
			return;
		}
		vmlx_switch_unicast(in, dlid, skb);
		return;
	}
	if (!vmlx_switch_smp_get(skb, &smp)) {
		kfree_skb(skb);
		goto discard;
	}
	consume_skb(skb);

	dr = smp.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	if (dr) {
		egress = vmlx_dr_switch_recv(&smp, in->num, sw->num_ports);
		if (egress < 0)
			goto discard;
		if (egress) {
			vmlx_switch_smp_xmit(sw, egress, &smp,
					     VMLX_LID_PERMISSIVE);
			return;
		}
	} else if (smp.mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED) {
		goto discard;
	}

	ret = vmlx_switch_sma(sw, in->num, &smp);
	if (!(ret & IB_MAD_RESULT_REPLY)) {
		if (!(ret & IB_MAD_RESULT_SUCCESS))
			goto discard;
		return;
	}
	atomic64_inc(&sw->smps);
	if (dr) {
		egress = vmlx_dr_switch_reply(&smp, sw->num_ports);
		if (egress < 0)
			goto discard;
		vmlx_switch_smp_xmit(sw, egress, &smp, VMLX_LID_PERMISSIVE);
		return;
	}
	/* LID routed: back to the SLID, by the LFT unless it came direct */
	if (dlid == VMLX_LID_PERMISSIVE || !slid ||
	    slid == VMLX_LID_PERMISSIVE) {
		vmlx_switch_smp_xmit(sw, in->num, &smp,
				     slid ? slid : VMLX_LID_PERMISSIVE);
		return;
	}
	egress = vmlx_switch_lft(sw, slid);
	if (!egress)
		goto discard;
	vmlx_switch_smp_xmit(sw, egress, &smp, slid);
	return;

discard:
	atomic64_inc(&sw->smp_discards);
}
