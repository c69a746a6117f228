// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx receive: what an HCA port does with a packet that arrives on its
 * link, before any QP sees it.
 *
 * The checks come in the order of the layers: the link (lengths, VCRC,
 * ICRC, header format; a failure is a receive error), then the port's
 * addressing and state (DLID, VL, port state, P_Key; a failure is a
 * discard), then the QP lookup.  What the packet means to its QP (PSN,
 * Q_Key, the QP's own P_Key) is the transport's business.
 *
 * vmlx_rcv() runs in the sender's context under rcu_read_lock(), from
 * vmlx_port_xmit(): it must not sleep, and it takes no lock.  The port
 * fields it reads are written under port->lock with WRITE_ONCE() and read
 * here with READ_ONCE(); a packet that races with a LID or state change
 * is judged by either the old or the new value.
 */
#include <linux/export.h>
#include <kunit/visibility.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

#define VMLX_VL_SMI		15
#define VMLX_PKEY_BASE		0x7fff
#define VMLX_PKEY_FULL		0x8000

/*
 * IBA 10.9.3: two P_Keys match when their low 15 bits agree and are not
 * zero (the invalid P_Key), and at least one of them is a full member.
 */
static bool vmlx_pkey_match(u16 a, u16 b)
{
	return (a & VMLX_PKEY_BASE) && (a & VMLX_PKEY_BASE) ==
	       (b & VMLX_PKEY_BASE) && ((a | b) & VMLX_PKEY_FULL);
}

static bool vmlx_port_pkey_ok(struct vmlx_port *port, u16 pkey)
{
	unsigned int i;

	for (i = 0; i < VMLX_PKEY_TBL_LEN; i++)
		if (vmlx_pkey_match(READ_ONCE(port->pkeys[i]), pkey))
			return true;
	return false;
}

/* A unicast DLID is for the port if it is in LID..LID + 2^LMC - 1. */
static bool vmlx_port_dlid_ok(struct vmlx_port *port, u16 dlid)
{
	u16 lid = READ_ONCE(port->lid);
	u8 lmc = READ_ONCE(port->lmc) & 7;

	if (dlid == VMLX_LID_PERMISSIVE)
		return true;
	return lid && dlid <= VMLX_LID_UCAST_MAX && dlid >= lid &&
	       dlid - lid < (1U << lmc);
}

static bool vmlx_is_mcast_lid(u16 lid)
{
	return lid >= VMLX_LID_MCAST_MIN && lid <= VMLX_LID_MCAST_MAX;
}

/**
 * vmlx_pkt_describe() - check a packet from the link and describe it
 * @port: the port it arrived on
 * @skb: the whole packet, LRH through VCRC, its headers linear (an RC
 *	request's payload may be attached, see vmlx_pkt.c), or a burst
 *	(vmlx_burst.c)
 *
 * Checks the CRCs (unless the sender sealed the packet without them, see
 * vmlx_crc.c) and the header format and fills in vmlx_pkt(@skb); of a
 * burst, the first packet's headers and the form of the whole.
 *
 * Return: 0, or -EINVAL for a packet that is malformed or damaged.
 */
VISIBLE_IF_KUNIT int vmlx_pkt_describe(struct vmlx_port *port,
				       struct sk_buff *skb)
{
	struct vmlx_pkt_layout layout;
	const struct vmlx_lrh *lrh;
	const struct vmlx_bth *bth;
	struct vmlx_pkt *pkt = vmlx_pkt(skb);

	if (!vmlx_pkt_intact(skb) ||
	    vmlx_pkt_parse(skb->data, vmlx_pkt_first_len(skb), &layout) ||
	    layout.payload > skb_headlen(skb))
		return -EINVAL;
	lrh = (const struct vmlx_lrh *)skb->data;
	if (vmlx_lrh_lver(lrh) != 0)
		return -EINVAL;
	bth = (const struct vmlx_bth *)(skb->data + layout.bth);

	pkt->port = port;
	pkt->op = layout.op;
	pkt->bth = layout.bth;
	pkt->payload = layout.payload;
	pkt->paylen = layout.payload_len;
	pkt->slid = vmlx_lrh_slid(lrh);
	pkt->dlid = vmlx_lrh_dlid(lrh);
	pkt->sl = vmlx_lrh_sl(lrh);
	pkt->opcode = vmlx_bth_opcode(bth);
	pkt->global = layout.global;
	pkt->psn = vmlx_bth_psn(bth);
	pkt->qpn = vmlx_bth_qpn(bth);
	if (pkt->burst && !vmlx_burst_valid(skb))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_pkt_describe);

/**
 * vmlx_rcv() - a packet arrives at an HCA port
 * @port: the receiving port
 * @skb: the whole packet, LRH through VCRC, its headers linear; consumed
 *
 * Checks the packet (bad CRC, malformed: rcv_errors), fills in
 * vmlx_pkt(skb), and hands it to the QP it is for, or to the multicast
 * groups of its MLID.  A unicast DLID must be one of the port's LIDs or
 * the permissive LID; VL15 must carry QP0's packets and nothing else; the
 * port must be ACTIVE or ARMED except for QP0; the BTH P_Key must match
 * the port's P_Key table except for QP0.  A packet refused here counts
 * in rcv_discards.
 *
 * Context: under rcu_read_lock(), from vmlx_port_xmit(); does not sleep.
 */
void vmlx_rcv(struct vmlx_port *port, struct sk_buff *skb)
{
	enum ib_port_state state;
	struct vmlx_pkt *pkt;
	struct vmlx_qp *qp;
	bool smi;

	if (vmlx_pkt_describe(port, skb))
		goto error;
	pkt = vmlx_pkt(skb);

	/* VL15 carries QP0's packets and nothing else */
	smi = vmlx_lrh_vl((const struct vmlx_lrh *)skb->data) == VMLX_VL_SMI;
	if (smi != !pkt->qpn)
		goto discard;
	state = READ_ONCE(port->state);
	if (pkt->qpn != 0 && state != IB_PORT_ACTIVE && state != IB_PORT_ARMED)
		goto discard;
	if (pkt->qpn != 0 &&
	    !vmlx_port_pkey_ok(port, vmlx_bth_pkey(vmlx_pkt_bth(skb))))
		goto discard;

	if (vmlx_is_mcast_lid(pkt->dlid)) {
		vmlx_mcast_deliver(port, skb);
		return;
	}
	if (!vmlx_port_dlid_ok(port, pkt->dlid))
		goto discard;

	qp = vmlx_qp_get(port, pkt->qpn);
	if (!qp)
		goto discard;
	vmlx_qp_rx(qp, skb);
	vmlx_qp_put(qp);
	return;

error:
	atomic64_add(vmlx_pkt_count(skb), &port->cnt.rcv_errors);
	kfree_skb(skb);
	return;
discard:
	atomic64_add(vmlx_pkt_count(skb), &port->cnt.rcv_discards);
	kfree_skb(skb);
}
