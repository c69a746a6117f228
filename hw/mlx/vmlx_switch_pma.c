// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx switch PMA: the performance management agent of the emulated
 * switch (class 0x04, IBA 16.1), on its management port 0, and the
 * switch's GSI that carries it.
 *
 * A packet that is not on VL15 and whose DLID is one of the switch's LIDs
 * comes here (vmlx_switch.c).  It must be a well-formed UD SEND ONLY to
 * QP1, its BTH P_Key must match an entry of port 0's P_Key table and its
 * DETH Q_Key must be 0x80010000; the MAD in it base version 1.  Anything
 * else, and every MAD that is not a request (a response, a trap), is
 * dropped and counted in the switch's gmp_discards.
 *
 * The PMA answers Get and Set of ClassPortInfo, PortCounters and
 * PortCountersExtended with the HCA PMA's code (vmlx_pma.c) over the
 * switch ports' counters (vmlx_fport.cnt): PortSelect 1..num_ports names
 * an external port, 0 port 0, which counts nothing.  AllPortSelect is not
 * offered.  Methods other than Get and Set get status 0x0008; a request
 * of any other class gets 0x000C, as the core's MAD layer answers classes
 * nobody registered for.
 *
 * The response goes back as a UD SEND ONLY from the switch's LID and QP1
 * to the requester's SLID and source QP, with the request's P_Key, Q_Key
 * 0x80010000, on VL0, forwarded by the LFT; a requester LID the LFT does
 * not route is a discard.
 *
 * Everything runs in the context of the packet's sender, under
 * rcu_read_lock(): nothing sleeps, allocations are atomic.
 */
#include <linux/skbuff.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>

#include "vmlx_fabric.h"
#include "vmlx_pkt.h"
#include "vmlx_sma.h"

#define VMLX_PKEY_BASE		0x7fff
#define VMLX_PKEY_FULL		0x8000
#define VMLX_GSI_QPN		1

/* The counters of switch port @sel, 0 included. */
static bool vmlx_switch_pma_port(void *ctx, u8 sel, struct vmlx_pma_set *set)
{
	struct vmlx_switch *sw = ctx;

	if (sel > sw->num_ports)
		return false;
	set->cnt = &sw->ports[sel].cnt;
	set->base = sw->ports[sel].pma_base;
	set->lock = &sw->lock;
	return true;
}

/**
 * vmlx_switch_pma() - the switch's PMA answers a GMP
 * @sw: the switch
 * @in: the request, base version 1
 * @out: where the response is written
 *
 * See the top of this file.
 *
 * Context: any; does not sleep.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY if @out is a
 * response to send, IB_MAD_RESULT_FAILURE if @in is not a request.
 */
int vmlx_switch_pma(struct vmlx_switch *sw, const struct ib_mad *in,
		    struct ib_mad *out)
{
	u8 method = in->mad_hdr.method;
	u16 status;

	if (method & IB_MGMT_METHOD_RESP || method == IB_MGMT_METHOD_TRAP ||
	    method == IB_MGMT_METHOD_TRAP_REPRESS ||
	    method == IB_MGMT_METHOD_REPORT)
		return IB_MAD_RESULT_FAILURE;
	memcpy(out, in, sizeof(*out));
	if (in->mad_hdr.mgmt_class == IB_MGMT_CLASS_PERF_MGMT &&
	    (method == IB_MGMT_METHOD_GET || method == IB_MGMT_METHOD_SET))
		return vmlx_pma_answer(in, out, vmlx_switch_pma_port, sw);
	status = in->mad_hdr.mgmt_class == IB_MGMT_CLASS_PERF_MGMT ?
		 IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD :
		 IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/* IBA 10.9.3: the BTH P_Key matches an entry of port 0's table. */
static bool vmlx_switch_pkey_ok(struct vmlx_switch *sw, u16 pkey)
{
	unsigned long flags;
	unsigned int i;
	bool ok = false;
	u16 e;

	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < VMLX_SW_PKEY_TBL_LEN && !ok; i++) {
		e = sw->pkeys[i];
		ok = (e & VMLX_PKEY_BASE) &&
		     (e & VMLX_PKEY_BASE) == (pkey & VMLX_PKEY_BASE) &&
		     ((e | pkey) & VMLX_PKEY_FULL);
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	return ok;
}

/*
 * The MAD of a packet for the switch's QP1, copied out, and where the
 * response goes (@a: dlid, pkey, dest_qpn); false if the packet is not
 * one the GSI takes.
 */
static bool vmlx_switch_gmp_get(struct vmlx_switch *sw, struct sk_buff *skb,
				struct ib_mad *mad, struct vmlx_mad_addr *a)
{
	struct vmlx_pkt_layout layout;
	const struct vmlx_deth *deth;
	const struct vmlx_bth *bth;

	if (!vmlx_pkt_intact(skb) ||
	    vmlx_pkt_parse(skb->data, skb->len, &layout))
		return false;
	bth = (const struct vmlx_bth *)(skb->data + layout.bth);
	deth = (const struct vmlx_deth *)((const u8 *)bth + VMLX_BTH_BYTES);
	if (vmlx_bth_opcode(bth) != VMLX_OPC_UD_SEND_ONLY ||
	    vmlx_bth_qpn(bth) != VMLX_GSI_QPN ||
	    layout.payload_len < sizeof(*mad) ||
	    vmlx_deth_qkey(deth) != IB_QP1_QKEY ||
	    !vmlx_switch_pkey_ok(sw, vmlx_bth_pkey(bth)))
		return false;
	a->dlid = vmlx_lrh_slid((const struct vmlx_lrh *)skb->data);
	a->pkey = vmlx_bth_pkey(bth);
	a->dest_qpn = vmlx_deth_sqpn(deth);
	memcpy(mad, skb->data + layout.payload, sizeof(*mad));
	return mad->mad_hdr.base_version == IB_MGMT_BASE_VERSION;
}

/**
 * vmlx_switch_gsi() - a packet for the switch's LID, not on VL15, arrives
 * @in: the external switch port it came in on
 * @skb: the packet; consumed
 *
 * See the top of this file.
 *
 * Context: under rcu_read_lock(), from vmlx_port_xmit(); does not sleep.
 */
void vmlx_switch_gsi(struct vmlx_fport *in, struct sk_buff *skb)
{
	struct vmlx_switch *sw = in->sw;
	struct vmlx_mad_addr a = {
		.vl = 0,
		.src_qpn = VMLX_GSI_QPN,
		.qkey = IB_QP1_QKEY,
	};
	struct ib_mad req, resp;
	struct sk_buff *out;
	u8 egress;

	if (!vmlx_switch_gmp_get(sw, skb, &req, &a)) {
		kfree_skb(skb);
		goto discard;
	}
	consume_skb(skb);
	if (!(vmlx_switch_pma(sw, &req, &resp) & IB_MAD_RESULT_REPLY))
		goto discard;
	egress = vmlx_switch_lft(sw, a.dlid);
	if (!a.dlid || !egress)
		goto discard;
	a.slid = READ_ONCE(sw->lid);
	out = vmlx_mad_skb(&resp, &a);
	if (!out) {
		atomic64_inc(&sw->ports[egress].cnt.xmit_discards);
		return;
	}
	atomic64_inc(&sw->gmps);
	vmlx_switch_send(&sw->ports[egress], out);
	return;

discard:
	atomic64_inc(&sw->gmp_discards);
}
