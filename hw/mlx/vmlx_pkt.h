/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx packets as the driver handles them: an skb holding the whole
 * packet, LRH through VCRC, with what is known about it in skb->cb
 * (struct vmlx_pkt) and the accessors to its headers and payload; the
 * building and sending of a QP's packets (vmlx_pkt.c) and the arrival of
 * one at a port (vmlx_recv.c).  The wire format itself is vmlx_hdr.h.
 *
 * Locking: none.  A packet is handled by one context at a time: its
 * sender's until vmlx_rcv() queues it for the QP it is for, then that
 * QP's work item.  The copies of a multicast packet are clones, which
 * share the data: nobody changes a packet once it has left its port.
 */
#ifndef VMLX_PKT_H
#define VMLX_PKT_H

#include <linux/build_bug.h>
#include <linux/skbuff.h>

#include "vmlx_hdr.h"

struct rxe_sge;
struct vmlx_av;
struct vmlx_mr;
struct vmlx_port;
struct vmlx_qp;

/**
 * struct vmlx_pkt - what is known about a packet, kept in skb->cb
 * @port: the port it arrived on (receive) or leaves from (send)
 * @op: its opcode's description
 * @bth: offset of the BTH in skb->data
 * @payload: offset of the payload
 * @paylen: payload bytes, pad excluded
 * @slid: LRH:SLID
 * @dlid: LRH:DLID
 * @sl: LRH:SL
 * @opcode: BTH:OpCode
 * @global: whether a GRH follows the LRH
 * @psn: BTH:PSN
 * @qpn: BTH:DestQP
 * @sealed: its ICRC and VCRC were not computed (vmlx_pkt_seal()): it
 *	comes from a QP of this kernel and nothing damaged it, so the
 *	receiver does not check them
 * @burst: 0 for one packet; n for a burst of n + 1 MIDDLE packets of
 *	one RC message, which the skb carries as the first one's headers
 *	and all their payloads (vmlx_burst.c).  @paylen and @psn are the
 *	first packet's
 *
 * skb->data holds the whole packet, LRH through VCRC, except for an RC
 * request or READ response whose payload is attached: its headers (see
 * vmlx_pkt.c).  Only the
 * receiving port fills in the fields, from the headers; @sealed and @burst
 * are the sender's and travel with the packet (skb->cb is copied with
 * clones).
 */
struct vmlx_pkt {
	struct vmlx_port		*port;
	const struct vmlx_opcode_info	*op;
	u16				bth;
	u16				payload;
	u16				paylen;
	u16				slid;
	u16				dlid;
	u8				sl;
	u8				opcode;
	bool				global;
	u32				psn;
	u32				qpn;
	bool				sealed;
	u8				burst;
};

static inline struct vmlx_pkt *vmlx_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vmlx_pkt) > sizeof(skb->cb));
	return (struct vmlx_pkt *)skb->cb;
}

static inline struct vmlx_bth *vmlx_pkt_bth(struct sk_buff *skb)
{
	return (struct vmlx_bth *)(skb->data + vmlx_pkt(skb)->bth);
}

static inline struct vmlx_grh *vmlx_pkt_grh(struct sk_buff *skb)
{
	return (struct vmlx_grh *)(skb->data + VMLX_LRH_BYTES);
}

/* An extension header the packet's opcode carries. */
static inline void *vmlx_pkt_eth(struct sk_buff *skb, enum vmlx_eth eth)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);

	return skb->data + pkt->bth + pkt->op->eth_off[eth];
}

/* The payload bytes of all the packets an skb carries, pads excluded. */
static inline u32 vmlx_pkt_bytes(const struct vmlx_pkt *pkt)
{
	return pkt->paylen * (pkt->burst + 1);
}

/* The length of the first (or only) packet an skb carries, LRH to VCRC. */
static inline u32 vmlx_pkt_first_len(struct sk_buff *skb)
{
	return skb->len - vmlx_pkt(skb)->burst * vmlx_pkt(skb)->paylen;
}

/* The packets an skb carries. */
static inline u32 vmlx_pkt_count(struct sk_buff *skb)
{
	return vmlx_pkt(skb)->burst + 1;
}

/* What the packets an skb carries take on the wire, LRH through VCRC. */
static inline u32 vmlx_pkt_wire_len(struct sk_buff *skb)
{
	return vmlx_pkt_first_len(skb) * vmlx_pkt_count(skb);
}

/* The payload of a linear packet (not one whose payload is attached). */
static inline void *vmlx_pkt_payload(struct sk_buff *skb)
{
	return skb->data + vmlx_pkt(skb)->payload;
}

/*
 * Whether a packet arrived as it was sent: its length (the first one's,
 * for a burst), and its CRCs unless its sender sealed it without them.
 */
static inline bool vmlx_pkt_intact(struct sk_buff *skb)
{
	if (vmlx_pkt(skb)->sealed)
		return vmlx_pkt_check_len(skb->data, vmlx_pkt_first_len(skb));
	return !vmlx_pkt(skb)->burst && vmlx_pkt_check(skb->data, skb->len);
}

/* vmlx_pkt.c */
struct sk_buff *vmlx_pkt_alloc(struct vmlx_qp *qp, const struct vmlx_av *av,
			       u32 dqpn, u8 opcode, u32 psn, u32 paylen);
struct sk_buff *vmlx_pkt_alloc_hdrs(struct vmlx_qp *qp,
				    const struct vmlx_av *av, u32 dqpn,
				    u8 opcode, u32 psn, u32 paylen);
int vmlx_pkt_attach_payload(struct vmlx_qp *qp, struct sk_buff *skb,
			    const struct rxe_sge *sge, u32 num_sge, u32 offset);
int vmlx_pkt_attach_mr(struct sk_buff *skb, struct vmlx_mr *mr, u64 iova);
int vmlx_pkt_send(struct vmlx_qp *qp, struct sk_buff *skb);

/* vmlx_recv.c */
void vmlx_rcv(struct vmlx_port *port, struct sk_buff *skb);

/* vmlx_burst.c */
extern unsigned int vmlx_burst_max;
bool vmlx_burst_valid(struct sk_buff *skb);
int vmlx_burst_split(struct sk_buff *skb, struct sk_buff_head *list);

/* Static without KUnit, for the suites (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(VMLX_KUNIT_SUITE)
/* vmlx_recv.c */
int vmlx_pkt_describe(struct vmlx_port *port, struct sk_buff *skb);
#endif

#endif /* VMLX_PKT_H */
