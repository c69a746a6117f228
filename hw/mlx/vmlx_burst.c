// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx bursts: a run of MIDDLE packets of one RC SEND, RDMA WRITE or RDMA
 * READ response that travels through the fabric as one skb, as TCP's
 * segments travel through Linux's stack as one GSO skb.
 *
 * Each packet of a message costs the same to build, route, count, check
 * and place, however few bytes it carries; within one kernel the fabric
 * is memory, and the per-packet work cost more than the copy of a 4 KiB
 * payload.  A burst pays it once for up to vmlx_burst_max packets:
 *
 *   skb->data    the headers of the first packet: LRH, GRH if any, BTH
 *                with its PSN, the AckReq bit of the last packet of the
 *                run (a MIDDLE packet has no extension header)
 *   fragments    the payloads of all the packets, path MTU bytes each
 *                (no pad), then the CRC bytes of one packet
 *   vmlx_pkt     burst = packets - 1; paylen, psn: the first packet's
 *
 * The requester builds one where the packets would follow each other
 * anyway: MIDDLE packets only (no FIRST, whose checks may fail, and no
 * LAST, which completes something), never past a packet that asks for an
 * ACK, never beyond the window or while it probes after a timeout, and
 * only with the payload attached; so does the responder with the MIDDLE
 * responses of a READ, within the slice it sends per run.  A burst is
 * sealed, like every packet of a QP.  The rules of the transport are
 * those of the packets it stands for: the responder executes a burst
 * that starts at its expected PSN and fits as a whole (vmlx_resp.c), and
 * ACKs its last PSN if that packet asked for it; the completer places a
 * burst of responses that starts at the PSN it waits for, within the
 * READ at the head of the send queue (vmlx_comp.c).  Anything else about
 * a burst (a duplicate, a PSN gap, a check that fails) is decided packet
 * by packet, on the packets vmlx_burst_split() cuts it into.  So is everything that must see
 * packets one by one: the drop and corrupt knobs of a port
 * (vmlx_port_xmit()).  The counters count the packets it stands for and
 * their bytes on the wire.  Retransmission needs nothing: the requester
 * rebuilds packets from the WQE, from any PSN.
 *
 * Locking: none; a burst is handled by one context at a time, as any
 * packet (vmlx_pkt.h).
 */
#include <linux/moduleparam.h>
#include <linux/skbuff.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* A burst's payload must fit the fragments of one skb. */
#define VMLX_BURST_LIMIT	16

unsigned int vmlx_burst_max = VMLX_BURST_LIMIT;

static int vmlx_burst_max_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > VMLX_BURST_LIMIT)
		return -EINVAL;
	WRITE_ONCE(vmlx_burst_max, n);
	return 0;
}

static const struct kernel_param_ops vmlx_burst_max_ops = {
	.set = vmlx_burst_max_set,
	.get = param_get_uint,
};

module_param_cb(burst, &vmlx_burst_max_ops, &vmlx_burst_max, 0644);
MODULE_PARM_DESC(burst,
		 "MIDDLE packets of an RC message carried through the fabric as one, at most (0 or 1: each alone; up to 16, the default)");

/**
 * vmlx_burst_valid() - check the form of a burst that reached a port
 * @skb: a packet with vmlx_pkt(@skb)->burst set, described from its
 *	first packet's headers (vmlx_pkt_describe())
 *
 * Return: true if it is sealed and made of MIDDLE packets of an RC SEND,
 * RDMA WRITE or RDMA READ response, each of the same whole number of
 * words, which the skb holds in full.
 */
bool vmlx_burst_valid(struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 flags = pkt->op->flags;
	u32 first;

	/* the first packet's length, as its LRH says */
	first = vmlx_lrh_pktlen((struct vmlx_lrh *)skb->data) * 4 +
		VMLX_VCRC_BYTES;
	return pkt->sealed && (flags & VMLX_OPF_MIDDLE) &&
	       (flags & (VMLX_OPF_SEND | VMLX_OPF_WRITE | VMLX_OPF_READ)) &&
	       (pkt->opcode & VMLX_OPC_SERVICE_MASK) == VMLX_OPC_RC &&
	       pkt->paylen && !(pkt->paylen & 3) &&
	       first + pkt->burst * pkt->paylen == skb->len;
}

/* The packet at @index of a burst, the whole packet in its head. */
static struct sk_buff *vmlx_burst_packet(struct sk_buff *skb, u32 index)
{
	const struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 hdr = pkt->payload;
	struct vmlx_pkt *seg;
	struct sk_buff *one;
	bool ackreq;

	one = alloc_skb(hdr + pkt->paylen + VMLX_CRC_BYTES, GFP_ATOMIC);
	if (!one)
		return NULL;
	skb_put_data(one, skb->data, hdr);
	if (skb_copy_bits(skb, hdr + index * pkt->paylen,
			  skb_put(one, pkt->paylen), pkt->paylen)) {
		kfree_skb(one);
		return NULL;
	}
	skb_put_zero(one, VMLX_CRC_BYTES);

	seg = vmlx_pkt(one);
	*seg = *pkt;
	seg->burst = 0;
	seg->psn = vmlx_psn_add(pkt->psn, index);
	vmlx_bth_set_psn(vmlx_pkt_bth(one), seg->psn);
	/* only the last packet of the run may have asked for an ACK */
	ackreq = vmlx_bth_ackreq(vmlx_pkt_bth(skb)) && index == pkt->burst;
	vmlx_bth_set_ackreq(vmlx_pkt_bth(one), ackreq);
	return one;
}

/**
 * vmlx_burst_split() - cut a burst into the packets it stands for
 * @skb: the burst, its vmlx_pkt filled in (by its sender or by
 *	vmlx_pkt_describe()); consumed
 * @list: where the packets go, in PSN order; each is sealed and linear
 *
 * Context: any; does not sleep.
 * Return: 0, or -ENOMEM (then nothing is added to @list).
 */
int vmlx_burst_split(struct sk_buff *skb, struct sk_buff_head *list)
{
	struct sk_buff_head segs;
	struct sk_buff *one;
	u32 i;

	__skb_queue_head_init(&segs);
	for (i = 0; i <= vmlx_pkt(skb)->burst; i++) {
		one = vmlx_burst_packet(skb, i);
		if (!one) {
			__skb_queue_purge(&segs);
			kfree_skb(skb);
			return -ENOMEM;
		}
		__skb_queue_tail(&segs, one);
	}
	skb_queue_splice_tail(&segs, list);
	consume_skb(skb);
	return 0;
}
