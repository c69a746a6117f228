// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx packets: building the headers of a packet a QP sends, and handing
 * the finished packet to its port.
 *
 * The requester, the completer and the responder all build packets here;
 * they fill in the extension headers and the payload themselves.  A
 * packet is one linear skb, LRH through VCRC, except an RC request or an
 * RDMA READ response whose payload is attached (vmlx_pkt_alloc_hdrs(),
 * then vmlx_pkt_attach_payload() or vmlx_pkt_attach_mr()): its headers
 * are linear, its payload is page fragments of the sender's memory and
 * its pad and CRC bytes a fragment of the zero page.
 */
#include <linux/mm.h>
#include <linux/skbuff.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* The SLID a port puts on its packets: its LID plus the path bits. */
static u16 vmlx_port_slid(struct vmlx_port *port, u8 src_path_bits)
{
	unsigned long flags;
	u16 lid;
	u8 lmc;

	spin_lock_irqsave(&port->lock, flags);
	lid = port->lid;
	lmc = port->lmc;
	spin_unlock_irqrestore(&port->lock, flags);
	if (!lid)
		return 0;
	return lid | (src_path_bits & (BIT(lmc) - 1));
}

static void vmlx_pkt_fill_grh(struct vmlx_grh *grh, struct vmlx_port *port,
			      const struct vmlx_av *av, u32 after_grh)
{
	u8 index = av->grh.sgid_index % VMLX_GID_TBL_LEN;
	unsigned long flags;
	__be64 prefix, guid;

	/* the source GID is the one the path names, else GID 0 */
	spin_lock_irqsave(&port->lock, flags);
	prefix = cpu_to_be64(port->gid_prefix);
	guid = port->guids[index] ? port->guids[index] : port->guid;
	spin_unlock_irqrestore(&port->lock, flags);

	vmlx_grh_set_ipver(grh, VMLX_GRH_IPVER);
	vmlx_grh_set_tclass(grh, av->grh.traffic_class);
	vmlx_grh_set_flow_label(grh, av->grh.flow_label);
	vmlx_grh_set_paylen(grh, after_grh);
	grh->nxthdr = VMLX_GRH_NXTHDR_IBA;
	grh->hoplmt = av->grh.hop_limit;
	memcpy(grh->sgid, &prefix, sizeof(prefix));
	memcpy(grh->sgid + sizeof(prefix), &guid, sizeof(guid));
	memcpy(grh->dgid, av->grh.dgid.raw, sizeof(grh->dgid));
}

/*
 * The headers of a packet (see vmlx_pkt_alloc()), in an skb that holds
 * them alone if @hdrs_only, else them and the rest of the packet.
 */
static struct sk_buff *vmlx_pkt_build(struct vmlx_qp *qp,
				      const struct vmlx_av *av, u32 dqpn,
				      u8 opcode, u32 psn, u32 paylen,
				      bool hdrs_only)
{
	const struct vmlx_opcode_info *op = vmlx_opcode_info(opcode);
	struct vmlx_port *port = vmlx_port(qp->vdev, av->port_num);
	u32 pad = -paylen & 3;
	struct vmlx_lrh *lrh;
	struct vmlx_bth *bth;
	struct vmlx_pkt *pkt;
	struct sk_buff *skb;
	u32 hdr, len;

	if (!op)
		return NULL;
	hdr = VMLX_LRH_BYTES + (av->global ? VMLX_GRH_BYTES : 0);
	len = hdr + op->hdr_len + paylen + pad;
	if (hdrs_only)
		skb = alloc_skb(hdr + op->hdr_len, GFP_KERNEL);
	else
		skb = alloc_skb(len + VMLX_CRC_BYTES, GFP_KERNEL);
	if (!skb)
		return NULL;
	memset(skb_put(skb, hdrs_only ? hdr + op->hdr_len : len), 0,
	       hdr + op->hdr_len);

	lrh = (struct vmlx_lrh *)skb->data;
	vmlx_lrh_set_vl(lrh, qp->ibqp.qp_type == IB_QPT_SMI ? 15 : 0);
	vmlx_lrh_set_sl(lrh, av->sl);
	vmlx_lrh_set_lnh(lrh, av->global ? VMLX_LNH_IBA_GLOBAL :
					   VMLX_LNH_IBA_LOCAL);
	vmlx_lrh_set_dlid(lrh, av->dlid);
	vmlx_lrh_set_slid(lrh, vmlx_port_slid(port, av->src_path_bits));
	vmlx_lrh_set_pktlen(lrh, (len + VMLX_ICRC_BYTES) / 4);
	if (av->global)
		vmlx_pkt_fill_grh((struct vmlx_grh *)(skb->data + VMLX_LRH_BYTES),
				  port, av, len - hdr + VMLX_ICRC_BYTES);

	bth = (struct vmlx_bth *)(skb->data + hdr);
	vmlx_bth_set_opcode(bth, opcode);
	vmlx_bth_set_padcnt(bth, pad);
	vmlx_bth_set_tver(bth, VMLX_BTH_TVER);
	vmlx_bth_set_pkey(bth, vmlx_qp_pkey(qp));
	vmlx_bth_set_qpn(bth, dqpn);
	vmlx_bth_set_psn(bth, psn);

	pkt = vmlx_pkt(skb);
	pkt->port = port;
	pkt->op = op;
	pkt->bth = hdr;
	pkt->payload = hdr + op->hdr_len;
	pkt->paylen = paylen;
	pkt->slid = vmlx_lrh_slid(lrh);
	pkt->dlid = av->dlid;
	pkt->sl = av->sl;
	pkt->opcode = opcode;
	pkt->global = av->global;
	pkt->psn = psn;
	pkt->qpn = dqpn;
	pkt->burst = 0;
	/* the pad must be zero: it is covered by the ICRC */
	if (!hdrs_only)
		memset(skb->data + pkt->payload + paylen, 0, pad);
	return skb;
}

/**
 * vmlx_pkt_alloc() - start a packet
 * @qp: the sending QP
 * @av: where the packet goes
 * @dqpn: the destination QP number
 * @opcode: the BTH opcode
 * @psn: the PSN
 * @paylen: payload bytes that will follow the extension headers
 *
 * Builds the LRH, the GRH if @av asks for one and the BTH, zeroes the
 * extension headers and reserves @paylen bytes of payload, the pad and
 * room for the CRCs.
 *
 * Return: the packet, or %NULL if memory ran out or @opcode is unknown.
 */
struct sk_buff *vmlx_pkt_alloc(struct vmlx_qp *qp, const struct vmlx_av *av,
			       u32 dqpn, u8 opcode, u32 psn, u32 paylen)
{
	return vmlx_pkt_build(qp, av, dqpn, opcode, psn, paylen, false);
}

/**
 * vmlx_pkt_alloc_hdrs() - start a packet whose payload will be attached
 * @qp: the sending QP
 * @av: where the packet goes
 * @dqpn: the destination QP number
 * @opcode: the BTH opcode
 * @psn: the PSN
 * @paylen: payload bytes that vmlx_pkt_attach_payload() will add
 *
 * As vmlx_pkt_alloc(), but the skb holds the headers alone.
 *
 * Return: the packet, or %NULL if memory ran out or @opcode is unknown.
 */
struct sk_buff *vmlx_pkt_alloc_hdrs(struct vmlx_qp *qp,
				    const struct vmlx_av *av, u32 dqpn,
				    u8 opcode, u32 psn, u32 paylen)
{
	return vmlx_pkt_build(qp, av, dqpn, opcode, psn, paylen, true);
}

/*
 * After an attached payload: its pad and the room for the CRCs, zero (of
 * the last packet, for a burst, whose packets have no pad).
 */
static int vmlx_pkt_attach_tail(struct sk_buff *skb)
{
	u32 tail = (-vmlx_pkt(skb)->paylen & 3) + VMLX_CRC_BYTES;
	struct page *zero = ZERO_PAGE(0);
	int i;

	i = skb_shinfo(skb)->nr_frags;
	if (i >= MAX_SKB_FRAGS)
		return -EAGAIN;
	get_page(zero);
	skb_fill_page_desc(skb, i, zero, 0, tail);
	skb->len += tail;
	skb->data_len += tail;
	skb->truesize += tail;
	return 0;
}

/**
 * vmlx_pkt_attach_payload() - attach the payload of a packet
 * @qp: the sending QP, an RC QP (see vmlx_sge_attach())
 * @skb: a packet from vmlx_pkt_alloc_hdrs()
 * @sge: the send WQE's gather list
 * @num_sge: its entries
 * @offset: where in the list's bytes the payload starts
 *
 * Adds the payload as page fragments of the memory the list names, then
 * the pad and the room for the CRCs, zero.  For a burst (vmlx_burst.c,
 * vmlx_pkt(@skb)->burst set first), the payloads of all its packets.
 *
 * Return: as vmlx_sge_attach(); after an error the packet must be freed.
 */
int vmlx_pkt_attach_payload(struct vmlx_qp *qp, struct sk_buff *skb,
			    const struct rxe_sge *sge, u32 num_sge, u32 offset)
{
	int ret;

	ret = vmlx_sge_attach(qp->vdev, qp->ibqp.pd, sge, num_sge, offset,
			      skb, vmlx_pkt_bytes(vmlx_pkt(skb)));
	if (ret)
		return ret;
	return vmlx_pkt_attach_tail(skb);
}

/**
 * vmlx_pkt_attach_mr() - attach the payload of an RDMA READ response
 * @skb: a packet from vmlx_pkt_alloc_hdrs()
 * @mr: the MR the READ names, from vmlx_mr_get() for the payload's range
 * @iova: where in it the payload starts
 *
 * As vmlx_pkt_attach_payload(), from a memory region (vmlx_mr_attach()),
 * for a burst of responses too.
 *
 * Return: as vmlx_mr_attach(); after an error the packet must be freed.
 */
int vmlx_pkt_attach_mr(struct sk_buff *skb, struct vmlx_mr *mr, u64 iova)
{
	int ret;

	ret = vmlx_mr_attach(mr, iova, skb, vmlx_pkt_bytes(vmlx_pkt(skb)));
	if (ret)
		return ret;
	return vmlx_pkt_attach_tail(skb);
}

/**
 * vmlx_pkt_send() - finish a packet and put it on the wire
 * @qp: the sending QP
 * @skb: the packet from vmlx_pkt_alloc(), headers and payload filled in;
 *	consumed
 *
 * The packet is sealed without its CRCs (see vmlx_crc.c): the fabric
 * computes them if it damages the packet.
 *
 * Return: what vmlx_port_xmit() returns, or -EINVAL for a packet whose
 * headers are inconsistent (a driver bug; it is dropped).
 */
int vmlx_pkt_send(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	int len, ret;
	u64 start;

	if (skb_is_nonlinear(skb)) {
		/* attached: the pad and the CRC bytes are there, zero */
		if (WARN_ON_ONCE(!vmlx_pkt_check_len(skb->data,
						     vmlx_pkt_first_len(skb)))) {
			kfree_skb(skb);
			return -EINVAL;
		}
	} else {
		len = vmlx_pkt_seal(skb->data, skb->len);
		if (WARN_ON_ONCE(len < 0)) {
			kfree_skb(skb);
			return -EINVAL;
		}
		skb_put(skb, len - skb->len);
	}
	pkt->sealed = true;
	start = vmlx_prof_now();
	ret = vmlx_port_xmit(pkt->port, skb);
	vmlx_prof_end(VMLX_PROF_XMIT, start);
	return ret;
}
