// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx traps: the SMPs the emulated silicon sends on its own, rather than
 * in answer to a subnet manager, and the packets that carry MADs the
 * fabric sends: vmlx_mad_skb() builds the VL15 QP0 packets of SMPs (traps,
 * the switch SMA's responses) and the QP1 packets of the switch PMA's
 * responses.
 *
 * A Trap(Notice) (IBA 14.2.5.1, 14.3.8) is a LID-routed SMP from the
 * issuer's LID to the subnet manager's (PortInfo:MasterSMLID), QP0 to
 * QP0.  The switch sends Trap 128 when one of its links goes up or down
 * (vmlx_switch_sma.c); an HCA port sends Trap 144 when its CapabilityMask
 * changes, e.g. when a subnet manager opens issmN and IsSM is set.
 *
 * Each trap is sent once.  IBA has the issuer repeat it every
 * SubnetTimeOut until the SM answers TrapRepress; the SMAs consume
 * TrapRepress, and opensm finds what changed in its next sweep anyway
 * (Trap 128 and 144 make it sweep at once).
 */
#include <linux/skbuff.h>
#include <asm/unaligned.h>

#include "vmlx_fabric.h"
#include "vmlx_sma.h"

#define VMLX_TRAP_LOCAL_CHANGES		144

/* A MAD on the wire: LRH, BTH, DETH and the 256-byte MAD. */
#define VMLX_MAD_PKT_BYTES	(VMLX_LRH_BYTES + VMLX_BTH_BYTES + \
				 VMLX_DETH_BYTES + sizeof(struct ib_mad))

static_assert(sizeof(struct ib_smp) == sizeof(struct ib_mad));

/**
 * vmlx_mad_skb() - a MAD as a finished packet
 * @mad: the 256-byte MAD (an SMP or a GMP)
 * @a: where it goes: LIDs, VL, P_Key, QPs and Q_Key
 *
 * A UD SEND ONLY without GRH, SL 0, its CRCs computed.
 *
 * Context: any; allocates atomically.
 * Return: the packet, or NULL if out of memory.
 */
struct sk_buff *vmlx_mad_skb(const void *mad, const struct vmlx_mad_addr *a)
{
	struct vmlx_lrh *lrh;
	struct vmlx_bth *bth;
	struct vmlx_deth *deth;
	struct sk_buff *skb;
	int len;

	skb = alloc_skb(VMLX_MAD_PKT_BYTES + VMLX_CRC_BYTES, GFP_ATOMIC);
	if (!skb)
		return NULL;
	memset(skb_put(skb, VMLX_MAD_PKT_BYTES), 0, VMLX_MAD_PKT_BYTES);
	lrh = (struct vmlx_lrh *)skb->data;
	vmlx_lrh_set_vl(lrh, a->vl);
	vmlx_lrh_set_lnh(lrh, VMLX_LNH_IBA_LOCAL);
	vmlx_lrh_set_dlid(lrh, a->dlid);
	vmlx_lrh_set_slid(lrh, a->slid ? a->slid : VMLX_LID_PERMISSIVE);
	vmlx_lrh_set_pktlen(lrh, (VMLX_MAD_PKT_BYTES + VMLX_ICRC_BYTES) / 4);
	bth = (struct vmlx_bth *)(skb->data + VMLX_LRH_BYTES);
	vmlx_bth_set_opcode(bth, VMLX_OPC_UD_SEND_ONLY);
	vmlx_bth_set_tver(bth, VMLX_BTH_TVER);
	vmlx_bth_set_pkey(bth, a->pkey);
	vmlx_bth_set_qpn(bth, a->dest_qpn);
	deth = (struct vmlx_deth *)((u8 *)bth + VMLX_BTH_BYTES);
	vmlx_deth_set_qkey(deth, a->qkey);
	vmlx_deth_set_sqpn(deth, a->src_qpn);
	memcpy((u8 *)deth + VMLX_DETH_BYTES, mad, sizeof(struct ib_mad));

	len = vmlx_pkt_finalize(skb->data, skb->len);
	if (WARN_ON_ONCE(len < 0)) {
		kfree_skb(skb);
		return NULL;
	}
	skb_put(skb, len - skb->len);
	return skb;
}

/**
 * vmlx_trap_init() - the header and Notice of a generic trap
 * @smp: the SMP to fill; zeroed first
 * @tid: transaction ID
 * @type: IB_NOTICE_TYPE_* (generic, and urgent, informational, ...)
 * @producer: IB_NOTICE_PROD_* (CA, switch, ...)
 * @trap_num: the trap number
 * @issuer_lid: the LID of the issuing port
 *
 * Return: the Notice inside @smp, for the trap's details.
 */
struct ib_mad_notice_attr *vmlx_trap_init(struct ib_smp *smp, u64 tid,
					  u8 type, __be16 producer, u16 trap_num,
					  u16 issuer_lid)
{
	struct ib_mad_notice_attr *n = (struct ib_mad_notice_attr *)smp->data;

	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->tid = cpu_to_be64(tid);
	smp->attr_id = IB_SMP_ATTR_NOTICE;
	n->generic_type = type;
	n->prod_type_lsb = producer;
	n->trap_num = cpu_to_be16(trap_num);
	n->issuer_lid = cpu_to_be16(issuer_lid);
	return n;
}

/**
 * vmlx_port_trap_local_changes() - Trap 144 from an HCA port
 * @port: the port whose CapabilityMask changed
 *
 * Sent from the port's LID to its MasterSMLID; nothing while either is
 * unknown.
 *
 * Context: any; not under the port's lock.
 */
void vmlx_port_trap_local_changes(struct vmlx_port *port)
{
	struct ib_mad_notice_attr *n;
	struct vmlx_mad_addr a = {
		.vl = VMLX_VL_SMI,
		.pkey = VMLX_DEFAULT_PKEY,
	};
	struct sk_buff *skb;
	struct ib_smp smp;
	unsigned long flags;
	u16 lid, sm_lid;
	u32 cap_mask;
	u64 tid;

	spin_lock_irqsave(&port->lock, flags);
	lid = port->lid;
	sm_lid = port->sm_lid;
	cap_mask = port->cap_mask;
	tid = ++port->trap_tid;
	spin_unlock_irqrestore(&port->lock, flags);
	if (!lid || !sm_lid)
		return;

	n = vmlx_trap_init(&smp, tid, IB_NOTICE_TYPE_INFO, IB_NOTICE_PROD_CA,
			   VMLX_TRAP_LOCAL_CHANGES, lid);
	n->details.ntc_144.lid = cpu_to_be16(lid);
	n->details.ntc_144.new_cap_mask = cpu_to_be32(cap_mask);
	a.slid = lid;
	a.dlid = sm_lid;
	skb = vmlx_mad_skb(&smp, &a);
	if (!skb) {
		atomic64_inc(&port->cnt.xmit_discards);
		return;
	}
	atomic64_inc(&port->cnt.traps);
	vmlx_port_xmit(port, skb);
}
