// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx: the responder.  It executes the requests that reach a QP from the
 * wire: SENDs land in receive WQEs, RDMA WRITEs, RDMA READs and atomics
 * reach memory regions, and on RC it answers with ACKs, NAKs, RDMA READ
 * responses and ATOMIC ACKNOWLEDGEs (IBA Vol 1, 9.7 and 9.9).  Like the
 * requester and the completer it runs in the QP's work item with
 * qp->lock held, so it needs no lock of its own for struct vmlx_resp.
 *
 * State kept in struct vmlx_resp:
 *   psn       RC: the expected PSN (ePSN).  UC: the PSN after the last
 *             one seen.  UD: unused.
 *   msn       messages completed, reported in every AETH we send.
 *   in_msg    the kind of multi-packet message in progress (SEND or
 *             WRITE), 0 between messages; offset counts its bytes.
 *   wqe       a private copy of the receive WQE that the current or the
 *             next SEND (or WRITE with immediate) lands in, when
 *             wqe_valid.  It is taken at the message's first packet and
 *             given back to the consumer with a completion.
 *   va, rkey, resid   the RDMA WRITE in progress.
 *   res       a ring of the last res_num READ and atomic requests, to
 *             answer them again when they come back as duplicates.
 *   read      the READ whose responses are being sent: a READ of up to
 *             2 GiB is answered a budget of packets per run of the work
 *             item (vmlx_resp_run()).
 *   waiting   the requests that came behind it, kept until its last
 *             response is out (a duplicate of it or of an earlier READ
 *             does not wait: it restarts the stream).
 *   nak_sent  a NAK (sequence error, or RNR) was sent for ePSN; nothing
 *             more is said until the requester resends ePSN.
 *
 * RC PSN rules: a request at ePSN is executed and ePSN moves past it (by
 * the number of response packets for a READ).  A request before ePSN is a
 * duplicate and is never executed twice: a SEND or WRITE packet is
 * answered with an ACK for ePSN - 1; a READ gets its responses again,
 * rebuilt from the resent request, which may restart in the middle of the
 * original, replacing the stream under way if that is the same READ or a
 * later one, else after it (resp_must_wait()); an atomic gets its
 * saved ATOMIC ACKNOWLEDGE again; a duplicate we no longer remember is
 * dropped.  A request after ePSN means packets were lost: one NAK (PSN
 * sequence error) names ePSN, then the following packets are dropped
 * quietly until ePSN arrives.  An RNR NAK also sets nak_sent, so that the
 * packets already behind it do not draw a sequence NAK that would cut the
 * requester's RNR wait short.
 *
 * UC has no acknowledgements and no duplicates: a packet at any other PSN
 * than the expected one abandons the message in progress and, if it
 * begins a message, starts that one.  UD messages are single packets.
 *
 * Errors: on RC a request the responder cannot honour is NAKed and the
 * QP goes to the error state; on UC the message is dropped; a UD packet
 * that nobody can take is counted in rcv_discards.  MR references are
 * taken and dropped within the handling of one packet, so none outlives
 * it (and none survives a reset or a destroy).
 */
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* P_Key membership bit (IBA 10.9.1.2): 1 = full member. */
#define VMLX_PKEY_FULL		0x8000
#define VMLX_PKEY_BASE_MASK	0x7fff

/* The operation bits of an opcode's flags. */
#define VMLX_OPF_KIND	(VMLX_OPF_SEND | VMLX_OPF_WRITE | VMLX_OPF_READ | \
			 VMLX_OPF_ATOMIC)

/*
 * Serialises every atomic operation that vmlx executes, on any QP of any
 * HCA, so that atomics aimed at the same memory are atomic with respect
 * to each other (IB_ATOMIC_HCA).
 */
static DEFINE_SPINLOCK(vmlx_atomic_lock);

static bool resp_is_rc(const struct vmlx_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC;
}

/* ------------------------------------------------------------------ */
/* Sending ACKs, NAKs and responses                                    */
/* ------------------------------------------------------------------ */

/* An ACKNOWLEDGE packet: an ACK, an RNR NAK or a NAK, by @syndrome. */
static void resp_send_ack(struct vmlx_qp *qp, u8 syndrome, u32 psn)
{
	struct vmlx_aeth *aeth;
	struct sk_buff *skb;

	skb = vmlx_pkt_alloc(qp, &qp->av, qp->attr.dest_qp_num,
			     VMLX_OPC_RC_ACKNOWLEDGE, psn, 0);
	if (!skb)
		return;		/* the requester will retry */
	aeth = vmlx_pkt_eth(skb, VMLX_ETH_AETH);
	vmlx_aeth_set_syndrome(aeth, syndrome);
	vmlx_aeth_set_msn(aeth, qp->resp.msn);
	vmlx_pkt_send(qp, skb);
}

static void resp_send_atomic_ack(struct vmlx_qp *qp, u32 psn, u64 orig)
{
	struct vmlx_aeth *aeth;
	struct sk_buff *skb;

	skb = vmlx_pkt_alloc(qp, &qp->av, qp->attr.dest_qp_num,
			     VMLX_OPC_RC_ATOMIC_ACKNOWLEDGE, psn, 0);
	if (!skb)
		return;
	aeth = vmlx_pkt_eth(skb, VMLX_ETH_AETH);
	vmlx_aeth_set_syndrome(aeth, VMLX_AETH_ACK | VMLX_AETH_CREDIT_INVALID);
	vmlx_aeth_set_msn(aeth, qp->resp.msn);
	vmlx_atmacketh_set_orig(vmlx_pkt_eth(skb, VMLX_ETH_ATMACKETH), orig);
	vmlx_pkt_send(qp, skb);
}

static u32 resp_read_npkts(const struct vmlx_qp *qp, u32 len)
{
	return max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu));
}

/*
 * Start sending the RDMA READ responses for @len bytes at @va, PSNs from
 * @psn on; vmlx_resp_run() sends them.  A stream already under way is
 * replaced: only a duplicate of it or of an earlier READ comes in while
 * one is (see resp_must_wait()), and the requester wants the responses
 * from there.
 */
static void resp_read_start(struct vmlx_qp *qp, u64 va, u32 rkey, u32 len,
			    u32 psn)
{
	struct vmlx_resp_read *rd = &qp->resp.read;

	rd->active = true;
	rd->psn = psn;
	rd->first_psn = psn;
	rd->last_psn = vmlx_psn_add(psn, resp_read_npkts(qp, len) - 1);
	rd->va = va;
	rd->rkey = rkey;
	rd->left = len;
}

/* The opcode of the READ response at rd->psn. */
static u8 resp_read_opcode(const struct vmlx_resp_read *rd)
{
	bool first = rd->psn == rd->first_psn, last = rd->psn == rd->last_psn;

	if (first && last)
		return VMLX_OPC_RC_RDMA_READ_RESPONSE_ONLY;
	if (first)
		return VMLX_OPC_RC_RDMA_READ_RESPONSE_FIRST;
	if (last)
		return VMLX_OPC_RC_RDMA_READ_RESPONSE_LAST;
	return VMLX_OPC_RC_RDMA_READ_RESPONSE_MIDDLE;
}

/*
 * The READ response at rd->psn with its @paylen bytes from @mr: attached
 * when it is big enough for page references to beat a copy (as an RC
 * request's payload, vmlx_req.c), else copied.  NULL if memory ran out.
 */
static struct sk_buff *resp_read_packet(struct vmlx_qp *qp,
					struct vmlx_mr *mr, u32 paylen)
{
	struct vmlx_resp_read *rd = &qp->resp.read;
	u8 opcode = resp_read_opcode(rd);
	struct sk_buff *skb;

	if (paylen >= VMLX_ATTACH_MIN) {
		skb = vmlx_pkt_alloc_hdrs(qp, &qp->av, qp->attr.dest_qp_num,
					  opcode, rd->psn, paylen);
		if (!skb)
			return NULL;
		if (!vmlx_pkt_attach_mr(skb, mr, rd->va))
			return skb;
		kfree_skb(skb);
	}
	skb = vmlx_pkt_alloc(qp, &qp->av, qp->attr.dest_qp_num, opcode,
			     rd->psn, paylen);
	if (skb && paylen)
		vmlx_mr_copy(mr, rd->va, vmlx_pkt_payload(skb), paylen,
			     VMLX_FROM_MR);
	return skb;
}

/*
 * A burst (vmlx_burst.c) of the @n MIDDLE responses from rd->psn on, with
 * their payload from @mr attached; NULL if that cannot be done.
 */
static struct sk_buff *resp_read_burst(struct vmlx_qp *qp,
				       struct vmlx_mr *mr, u32 n)
{
	struct vmlx_resp_read *rd = &qp->resp.read;
	struct sk_buff *skb;

	skb = vmlx_pkt_alloc_hdrs(qp, &qp->av, qp->attr.dest_qp_num,
				  VMLX_OPC_RC_RDMA_READ_RESPONSE_MIDDLE,
				  rd->psn, qp->mtu);
	if (!skb)
		return NULL;
	vmlx_pkt(skb)->burst = n - 1;
	if (vmlx_pkt_attach_mr(skb, mr, rd->va)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * How many of the responses from rd->psn on, at most @n, go as one burst:
 * MIDDLE ones only, as many as the fragments of one skb hold.
 */
static u32 resp_read_burst_len(const struct vmlx_qp *qp, u32 n)
{
	const struct vmlx_resp_read *rd = &qp->resp.read;

	if (rd->psn == rd->first_psn || qp->mtu < VMLX_ATTACH_MIN)
		return 1;
	n = min3(n, READ_ONCE(vmlx_burst_max),
		 vmlx_psn_sub(rd->last_psn, rd->psn));
	n = min_t(u32, n, (MAX_SKB_FRAGS - 2) * PAGE_SIZE / qp->mtu);
	return max(n, 1U);
}

/*
 * Send up to @budget more responses of the READ under way, at least one
 * unless the stream ends.  The R_Key is looked up again for each slice,
 * so that no MR reference outlives one run of the work item; an MR gone
 * meanwhile ends the stream, and the requester's retries run out.
 */
static void resp_read_send(struct vmlx_qp *qp, unsigned int *budget)
{
	struct vmlx_resp_read *rd = &qp->resp.read;
	u32 paylen, bytes, n, k;
	struct vmlx_mr *mr = NULL;
	struct sk_buff *skb;
	int err;

	n = min_t(u32, *budget, vmlx_psn_sub(rd->last_psn, rd->psn) + 1);
	bytes = min_t(u64, rd->left, (u64)n * qp->mtu);
	if (bytes) {
		mr = vmlx_mr_get(qp->vdev, qp->ibqp.pd, rd->rkey, VMLX_RKEY,
				 rd->va, bytes, IB_ACCESS_REMOTE_READ, &err);
		if (!mr) {
			rd->active = false;
			return;
		}
	}
	while (n) {
		k = resp_read_burst_len(qp, n);
		skb = k > 1 ? resp_read_burst(qp, mr, k) : NULL;
		if (!skb) {
			k = 1;
			skb = resp_read_packet(qp, mr, min(rd->left, qp->mtu));
		}
		if (!skb) {
			/* the requester asks again from here */
			rd->active = false;
			break;
		}
		if (vmlx_pkt(skb)->op->flags & VMLX_OPF_AETH) {
			struct vmlx_aeth *aeth;

			aeth = vmlx_pkt_eth(skb, VMLX_ETH_AETH);
			vmlx_aeth_set_syndrome(aeth, VMLX_AETH_ACK |
					       VMLX_AETH_CREDIT_INVALID);
			vmlx_aeth_set_msn(aeth, qp->resp.msn);
		}
		paylen = vmlx_pkt_bytes(vmlx_pkt(skb));
		vmlx_pkt_send(qp, skb);
		n -= k;
		*budget -= k;

		/* the last response is never part of a burst */
		if (rd->psn == rd->last_psn) {
			rd->active = false;
			break;
		}
		rd->va += paylen;
		rd->left -= paylen;
		rd->psn = vmlx_psn_add(rd->psn, k);
	}
	if (mr)
		vmlx_mr_put(mr);
}

/* ------------------------------------------------------------------ */
/* Receive WQEs and completions                                        */
/* ------------------------------------------------------------------ */

/* Make sure a receive WQE is held, taking one from the RQ or SRQ. */
static bool resp_get_wqe(struct vmlx_qp *qp)
{
	struct vmlx_resp *resp = &qp->resp;

	if (resp->wqe_valid)
		return true;
	if (qp->srq)
		resp->wqe_valid = vmlx_srq_pop(qp->srq, resp->wqe);
	else
		resp->wqe_valid = vmlx_rq_pop(&qp->rq, resp->wqe);
	return resp->wqe_valid;
}

static u8 resp_path_bits(const struct vmlx_pkt *pkt)
{
	/* lmc is one byte; a stale value only mislabels one completion */
	u8 lmc = READ_ONCE(pkt->port->lmc);

	if (pkt->dlid >= VMLX_LID_MCAST_MIN)
		return 0;
	return pkt->dlid & (BIT(lmc) - 1);
}

/* A completion for the held WQE, from what @skb says of the sender. */
static void resp_wc_init(struct vmlx_qp *qp, struct sk_buff *skb,
			 struct ib_wc *wc, enum ib_wc_status status,
			 enum ib_wc_opcode opcode)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = qp->resp.wqe->wr_id;
	wc->status = status;
	wc->opcode = opcode;
	wc->qp = &qp->ibqp;
	wc->src_qp = qp->attr.dest_qp_num;
	wc->slid = pkt->slid;
	wc->sl = pkt->sl;
	wc->dlid_path_bits = resp_path_bits(pkt);
	wc->pkey_index = qp->attr.pkey_index;
	wc->port_num = pkt->port->port_num;
}

/* Hand the held WQE back to the consumer. */
static void resp_post(struct vmlx_qp *qp, struct ib_wc *wc, bool solicited)
{
	vmlx_cq_post(qp->rcq, wc, solicited);
	qp->resp.wqe_valid = false;
}

static void resp_complete_error(struct vmlx_qp *qp, struct sk_buff *skb,
				enum ib_wc_status status)
{
	struct ib_wc wc;

	resp_wc_init(qp, skb, &wc, status, IB_WC_RECV);
	resp_post(qp, &wc, false);
}

static void resp_flush_wqe(struct vmlx_qp *qp)
{
	struct ib_wc wc = {
		.wr_id		= qp->resp.wqe->wr_id,
		.status		= IB_WC_WR_FLUSH_ERR,
		.opcode		= IB_WC_RECV,
		.qp		= &qp->ibqp,
		.port_num	= qp->attr.port_num,
	};

	resp_post(qp, &wc, false);
}

/* ------------------------------------------------------------------ */
/* Message state and errors                                            */
/* ------------------------------------------------------------------ */

/* Forget the message in progress; a held WQE stays for the next one. */
static void resp_abandon(struct vmlx_qp *qp)
{
	qp->resp.in_msg = 0;
	qp->resp.offset = 0;
	qp->resp.resid = 0;
}

/*
 * A request that cannot be executed.  RC: NAK it with @nak_code (the
 * NAK's PSN is the request's) and fail the QP, with the affiliated event
 * that goes with the code.  UC: drop the message.
 */
static void resp_error(struct vmlx_qp *qp, struct sk_buff *skb, u8 nak_code)
{
	if (!resp_is_rc(qp)) {
		resp_abandon(qp);
		return;
	}
	resp_send_ack(qp, VMLX_AETH_NAK | nak_code, vmlx_pkt(skb)->psn);
	vmlx_qp_error(qp);
	if (nak_code == VMLX_AETH_NAK_REM_ACCESS)
		vmlx_qp_event(qp, IB_EVENT_QP_ACCESS_ERR);
	else if (nak_code == VMLX_AETH_NAK_INVALID_REQ)
		vmlx_qp_event(qp, IB_EVENT_QP_REQ_ERR);
}

/* No receive WQE for a message that needs one. */
static void resp_no_wqe(struct vmlx_qp *qp, struct sk_buff *skb)
{
	if (!resp_is_rc(qp)) {
		resp_abandon(qp);
		return;
	}
	/* ePSN stays: the requester resends this packet after the delay */
	resp_send_ack(qp, VMLX_AETH_RNR_NAK |
		      (qp->attr.min_rnr_timer & VMLX_AETH_VALUE_MASK),
		      vmlx_pkt(skb)->psn);
	qp->resp.nak_sent = true;
}

/*
 * Placing a SEND's data in the held WQE failed: -EMSGSIZE when the
 * message does not fit, else a key problem with one of its SGEs.
 */
static void resp_wqe_error(struct vmlx_qp *qp, struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE) {
		resp_complete_error(qp, skb, IB_WC_LOC_LEN_ERR);
		resp_error(qp, skb, VMLX_AETH_NAK_INVALID_REQ);
		return;
	}
	resp_complete_error(qp, skb, IB_WC_LOC_PROT_ERR);
	resp_error(qp, skb, VMLX_AETH_NAK_REM_OP);
	/* a local protection error fails a UC QP too */
	vmlx_qp_error(qp);
}

/* Whether the remote key gives @access to [@va, @va + @len). */
static bool resp_rkey_ok(struct vmlx_qp *qp, u32 rkey, u64 va, u32 len,
			 int access)
{
	struct vmlx_mr *mr;
	int err;

	if (!(qp->attr.qp_access_flags & access))
		return false;
	if (!len)
		return true;
	mr = vmlx_mr_get(qp->vdev, qp->ibqp.pd, rkey, VMLX_RKEY, va, len,
			 access, &err);
	if (!mr)
		return false;
	vmlx_mr_put(mr);
	return true;
}

/* A SEND or WRITE packet done: move ePSN past it, ACK it if asked. */
static void resp_advance(struct vmlx_qp *qp, struct sk_buff *skb)
{
	u32 psn = vmlx_pkt(skb)->psn;

	qp->resp.psn = vmlx_psn_add(psn, 1);
	if (resp_is_rc(qp) && vmlx_bth_ackreq(vmlx_pkt_bth(skb)))
		resp_send_ack(qp, VMLX_AETH_ACK | VMLX_AETH_CREDIT_INVALID,
			      psn);
}

static void resp_msg_done(struct vmlx_qp *qp)
{
	qp->resp.in_msg = 0;
	qp->resp.msn = (qp->resp.msn + 1) & VMLX_MSN_MASK;
}

/* The next slot of the ring of remembered READ and atomic requests. */
static struct vmlx_resp_res *resp_res_new(struct vmlx_qp *qp)
{
	struct vmlx_resp *resp = &qp->resp;
	struct vmlx_resp_res *res = &resp->res[resp->res_next];

	resp->res_next = (resp->res_next + 1) % resp->res_num;
	memset(res, 0, sizeof(*res));
	return res;
}

/* The remembered request with @opcode whose PSNs include @psn. */
static struct vmlx_resp_res *resp_res_find(struct vmlx_qp *qp, u8 opcode,
					   u32 psn)
{
	struct vmlx_resp_res *res;
	u32 i;

	for (i = 0; i < qp->resp.res_num; i++) {
		res = &qp->resp.res[i];
		if (res->opcode == opcode &&
		    vmlx_psn_compare(psn, res->first_psn) >= 0 &&
		    vmlx_psn_compare(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* One handler per class of request                                    */
/* ------------------------------------------------------------------ */

/* SEND FIRST/MIDDLE/LAST/ONLY, with immediate or invalidate (RC, UC). */
static bool resp_send(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_resp *resp = &qp->resp;
	u32 flags = pkt->op->flags;
	struct ib_wc wc;
	int err = 0;

	if (flags & VMLX_OPF_FIRST) {
		if (!resp_get_wqe(qp)) {
			resp_no_wqe(qp, skb);
			return false;
		}
		resp->in_msg = VMLX_OPF_SEND;
		resp->offset = 0;
	}

	if ((u64)resp->offset + pkt->paylen > resp->wqe->dma.length)
		err = -EMSGSIZE;
	else if (pkt->paylen)
		err = vmlx_sge_copy_payload(qp->vdev, qp->ibqp.pd,
					    resp->wqe->dma.sge,
					    resp->wqe->dma.num_sge,
					    resp->offset, skb);
	if (err) {
		resp_wqe_error(qp, skb, err);
		return false;
	}
	resp->offset += pkt->paylen;

	if (flags & VMLX_OPF_LAST) {
		resp_wc_init(qp, skb, &wc, IB_WC_SUCCESS, IB_WC_RECV);
		wc.byte_len = resp->offset;
		if (flags & VMLX_OPF_IMMDT) {
			struct vmlx_immdt *immdt;

			immdt = vmlx_pkt_eth(skb, VMLX_ETH_IMMDT);
			wc.wc_flags |= IB_WC_WITH_IMM;
			wc.ex.imm_data = immdt->imm;
		}
		if (flags & VMLX_OPF_IETH) {
			u32 rkey = vmlx_ieth_rkey(vmlx_pkt_eth(skb,
							       VMLX_ETH_IETH));

			if (vmlx_mr_invalidate(qp->vdev, qp->ibqp.pd, rkey)) {
				resp_error(qp, skb, VMLX_AETH_NAK_INVALID_REQ);
				return false;
			}
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
			wc.ex.invalidate_rkey = rkey;
		}
		resp_msg_done(qp);
		resp_post(qp, &wc, vmlx_bth_se(vmlx_pkt_bth(skb)));
	}
	resp_advance(qp, skb);
	return true;
}

/* RDMA WRITE FIRST/MIDDLE/LAST/ONLY, with immediate (RC, UC). */
static bool resp_write(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_resp *resp = &qp->resp;
	u32 flags = pkt->op->flags;
	struct vmlx_reth *reth = NULL;
	struct vmlx_mr *mr;
	struct ib_wc wc;
	int err;

	if (flags & VMLX_OPF_FIRST) {
		reth = vmlx_pkt_eth(skb, VMLX_ETH_RETH);
		if (vmlx_reth_len(reth) > VMLX_MAX_MSG_SIZE) {
			resp_error(qp, skb, VMLX_AETH_NAK_INVALID_REQ);
			return false;
		}
		if (!resp_rkey_ok(qp, vmlx_reth_rkey(reth),
				  vmlx_reth_va(reth), vmlx_reth_len(reth),
				  IB_ACCESS_REMOTE_WRITE)) {
			resp_error(qp, skb, VMLX_AETH_NAK_REM_ACCESS);
			return false;
		}
	}
	/*
	 * With immediate, the last packet consumes a receive WQE: find it
	 * before anything changes, so that an RNR NAK leaves the state as
	 * the resent packet will expect it.
	 */
	if ((flags & VMLX_OPF_IMMDT) && !resp_get_wqe(qp)) {
		resp_no_wqe(qp, skb);
		return false;
	}
	if (reth) {
		resp->in_msg = VMLX_OPF_WRITE;
		resp->va = vmlx_reth_va(reth);
		resp->rkey = vmlx_reth_rkey(reth);
		resp->resid = vmlx_reth_len(reth);
		resp->offset = 0;
	}

	if (pkt->paylen > resp->resid ||
	    ((flags & VMLX_OPF_LAST) && pkt->paylen != resp->resid)) {
		resp_error(qp, skb, VMLX_AETH_NAK_INVALID_REQ);
		return false;
	}
	if (pkt->paylen) {
		/* the MR may have gone since the first packet: look again */
		mr = vmlx_mr_get(qp->vdev, qp->ibqp.pd, resp->rkey, VMLX_RKEY,
				 resp->va, pkt->paylen, IB_ACCESS_REMOTE_WRITE,
				 &err);
		if (!mr) {
			resp_error(qp, skb, VMLX_AETH_NAK_REM_ACCESS);
			return false;
		}
		vmlx_mr_copy_payload(mr, resp->va, skb);
		vmlx_mr_put(mr);
	}
	resp->va += pkt->paylen;
	resp->resid -= pkt->paylen;
	resp->offset += pkt->paylen;

	if (flags & VMLX_OPF_LAST) {
		resp_msg_done(qp);
		if (flags & VMLX_OPF_IMMDT) {
			struct vmlx_immdt *immdt;

			immdt = vmlx_pkt_eth(skb, VMLX_ETH_IMMDT);
			resp_wc_init(qp, skb, &wc, IB_WC_SUCCESS,
				     IB_WC_RECV_RDMA_WITH_IMM);
			wc.byte_len = resp->offset;
			wc.wc_flags |= IB_WC_WITH_IMM;
			wc.ex.imm_data = immdt->imm;
			resp_post(qp, &wc, vmlx_bth_se(vmlx_pkt_bth(skb)));
		}
	}
	resp_advance(qp, skb);
	return true;
}

/* RDMA READ Request (RC). */
static bool resp_read(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_reth *reth = vmlx_pkt_eth(skb, VMLX_ETH_RETH);
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_resp *resp = &qp->resp;
	u32 rkey = vmlx_reth_rkey(reth);
	u32 len = vmlx_reth_len(reth);
	u64 va = vmlx_reth_va(reth);
	struct vmlx_resp_res *res;
	u32 n;

	if (len > VMLX_MAX_MSG_SIZE) {
		resp_error(qp, skb, VMLX_AETH_NAK_INVALID_REQ);
		return false;
	}
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ)) {
		resp_error(qp, skb, VMLX_AETH_NAK_REM_ACCESS);
		return false;
	}
	if (!resp_rkey_ok(qp, rkey, va, len, IB_ACCESS_REMOTE_READ)) {
		resp_error(qp, skb, VMLX_AETH_NAK_REM_ACCESS);
		return false;
	}

	/* more outstanding than max_dest_rd_atomic: the oldest is forgotten */
	n = resp_read_npkts(qp, len);
	res = resp_res_new(qp);
	res->opcode = pkt->opcode;
	res->first_psn = pkt->psn;
	res->last_psn = vmlx_psn_add(pkt->psn, n - 1);
	res->va = va;
	res->rkey = rkey;
	res->length = len;

	resp->psn = vmlx_psn_add(pkt->psn, n);
	resp_msg_done(qp);
	resp_read_start(qp, va, rkey, len, pkt->psn);
	return true;
}

/* CmpSwap and FetchAdd (RC). */
static bool resp_atomic(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_atmeth *atmeth = vmlx_pkt_eth(skb, VMLX_ETH_ATMETH);
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 rkey = vmlx_atmeth_rkey(atmeth);
	u64 va = vmlx_atmeth_va(atmeth);
	struct vmlx_resp_res *res;
	struct vmlx_mr *mr;
	u64 *addr, orig;
	int err;

	if (va & (sizeof(u64) - 1)) {
		resp_error(qp, skb, VMLX_AETH_NAK_INVALID_REQ);
		return false;
	}
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC)) {
		resp_error(qp, skb, VMLX_AETH_NAK_REM_ACCESS);
		return false;
	}
	mr = vmlx_mr_get(qp->vdev, qp->ibqp.pd, rkey, VMLX_RKEY, va,
			 sizeof(u64), IB_ACCESS_REMOTE_ATOMIC, &err);
	if (!mr) {
		resp_error(qp, skb, VMLX_AETH_NAK_REM_ACCESS);
		return false;
	}

	addr = vmlx_mr_atomic_addr(mr, va);
	if (!addr) {
		vmlx_mr_put(mr);
		resp_error(qp, skb, VMLX_AETH_NAK_REM_ACCESS);
		return false;
	}
	spin_lock(&vmlx_atomic_lock);
	orig = READ_ONCE(*addr);
	if (pkt->opcode == VMLX_OPC_RC_COMPARE_SWAP) {
		if (orig == vmlx_atmeth_compare(atmeth))
			WRITE_ONCE(*addr, vmlx_atmeth_swap_add(atmeth));
	} else {
		WRITE_ONCE(*addr, orig + vmlx_atmeth_swap_add(atmeth));
	}
	spin_unlock(&vmlx_atomic_lock);
	vmlx_mr_put(mr);

	res = resp_res_new(qp);
	res->opcode = pkt->opcode;
	res->first_psn = pkt->psn;
	res->last_psn = pkt->psn;
	res->va = va;
	res->rkey = rkey;
	res->orig = orig;

	qp->resp.psn = vmlx_psn_add(pkt->psn, 1);
	resp_msg_done(qp);
	resp_send_atomic_ack(qp, pkt->psn, orig);
	return true;
}

/*
 * A READ we answered before, asked again from its PSN on, possibly for
 * the tail of the original only: the address and length must be those of
 * the original from that PSN's response on.  Anything else, or a key
 * that no longer works, is dropped and the requester's retries run out.
 * The responses start again from there, replacing any stream under way,
 * so a duplicate never costs more than the original did.
 */
static bool resp_dup_read(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_reth *reth = vmlx_pkt_eth(skb, VMLX_ETH_RETH);
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 len = vmlx_reth_len(reth);
	u64 va = vmlx_reth_va(reth);
	struct vmlx_resp_res *res;
	u64 offset;

	res = resp_res_find(qp, pkt->opcode, pkt->psn);
	if (!res || vmlx_reth_rkey(reth) != res->rkey)
		return false;
	offset = (u64)vmlx_psn_sub(pkt->psn, res->first_psn) * qp->mtu;
	if (offset > res->length || va != res->va + offset ||
	    len != res->length - offset)
		return false;
	if (!resp_rkey_ok(qp, res->rkey, va, len, IB_ACCESS_REMOTE_READ))
		return false;
	resp_read_start(qp, va, res->rkey, len, pkt->psn);
	return true;
}

/* An atomic we executed before: answer again, never execute again. */
static bool resp_dup_atomic(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_atmeth *atmeth = vmlx_pkt_eth(skb, VMLX_ETH_ATMETH);
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_resp_res *res;

	res = resp_res_find(qp, pkt->opcode, pkt->psn);
	if (!res || res->va != vmlx_atmeth_va(atmeth) ||
	    res->rkey != vmlx_atmeth_rkey(atmeth))
		return false;
	resp_send_atomic_ack(qp, pkt->psn, res->orig);
	return true;
}

/* An RC request before ePSN. */
static bool resp_duplicate(struct vmlx_qp *qp, struct sk_buff *skb)
{
	u32 flags = vmlx_pkt(skb)->op->flags;

	atomic64_inc(&vmlx_qp_cnt(qp)->dup_requests);
	if (flags & VMLX_OPF_READ)
		return resp_dup_read(qp, skb);
	if (flags & VMLX_OPF_ATOMIC)
		return resp_dup_atomic(qp, skb);
	resp_send_ack(qp, VMLX_AETH_ACK | VMLX_AETH_CREDIT_INVALID,
		      vmlx_psn_add(qp->resp.psn, VMLX_PSN_MASK));
	return true;
}

/* A SEND ONLY on a UD QP (and on the special QPs). */
static bool resp_ud(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_deth *deth = vmlx_pkt_eth(skb, VMLX_ETH_DETH);
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct rxe_recv_wqe *wqe = qp->resp.wqe;
	u32 flags = pkt->op->flags;
	struct ib_wc wc;
	int err = 0;

	if (qp->ibqp.qp_type != IB_QPT_SMI &&
	    vmlx_deth_qkey(deth) != qp->attr.qkey)
		goto discard;
	if (!resp_get_wqe(qp))
		goto discard;

	/* the first 40 bytes of the buffer are room for the GRH */
	if ((u64)pkt->paylen + VMLX_GRH_BYTES > wqe->dma.length) {
		resp_complete_error(qp, skb, IB_WC_LOC_LEN_ERR);
		return false;
	}
	if (pkt->global)
		err = vmlx_sge_copy(qp->vdev, qp->ibqp.pd, wqe->dma.sge,
				    wqe->dma.num_sge, 0, vmlx_pkt_grh(skb),
				    VMLX_GRH_BYTES, VMLX_TO_MR);
	if (!err && pkt->paylen)
		err = vmlx_sge_copy(qp->vdev, qp->ibqp.pd, wqe->dma.sge,
				    wqe->dma.num_sge, VMLX_GRH_BYTES,
				    vmlx_pkt_payload(skb), pkt->paylen,
				    VMLX_TO_MR);
	if (err == -EMSGSIZE) {
		resp_complete_error(qp, skb, IB_WC_LOC_LEN_ERR);
		return false;
	}
	if (err) {
		resp_complete_error(qp, skb, IB_WC_LOC_PROT_ERR);
		vmlx_qp_error(qp);
		return false;
	}

	resp_wc_init(qp, skb, &wc, IB_WC_SUCCESS, IB_WC_RECV);
	wc.byte_len = pkt->paylen + VMLX_GRH_BYTES;
	wc.src_qp = vmlx_deth_sqpn(deth);
	if (pkt->global)
		wc.wc_flags |= IB_WC_GRH;
	if (flags & VMLX_OPF_IMMDT) {
		struct vmlx_immdt *immdt = vmlx_pkt_eth(skb, VMLX_ETH_IMMDT);

		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = immdt->imm;
	}
	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		u16 pkey = vmlx_bth_pkey(vmlx_pkt_bth(skb));
		struct vmlx_port *port = pkt->port;
		unsigned long irqflags;
		u16 i;

		spin_lock_irqsave(&port->lock, irqflags);
		for (i = 0; i < VMLX_PKEY_TBL_LEN; i++) {
			if (port->pkeys[i] == pkey) {
				wc.pkey_index = i;
				break;
			}
		}
		spin_unlock_irqrestore(&port->lock, irqflags);
	}
	resp_post(qp, &wc, vmlx_bth_se(vmlx_pkt_bth(skb)));
	return true;

discard:
	atomic64_inc(&pkt->port->cnt.rcv_discards);
	return false;
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

/* MIDDLE/LAST continue a message of their kind; FIRST/ONLY start one. */
static bool resp_seq_ok(const struct vmlx_qp *qp, u32 flags)
{
	if (flags & VMLX_OPF_FIRST)
		return !qp->resp.in_msg;
	return qp->resp.in_msg == (flags & VMLX_OPF_KIND);
}

/* FIRST and MIDDLE carry exactly one MTU, LAST and ONLY at most one. */
static bool resp_len_ok(const struct vmlx_qp *qp, const struct vmlx_pkt *pkt)
{
	u32 flags = pkt->op->flags;

	if (!(flags & VMLX_OPF_PAYLOAD))
		return true;
	if (flags & VMLX_OPF_LAST)
		return pkt->paylen <= qp->mtu;
	return pkt->paylen == qp->mtu;
}

static bool resp_execute(struct vmlx_qp *qp, struct sk_buff *skb)
{
	u32 flags = vmlx_pkt(skb)->op->flags;

	if (flags & VMLX_OPF_SEND)
		return resp_send(qp, skb);
	if (flags & VMLX_OPF_WRITE)
		return resp_write(qp, skb);
	if (flags & VMLX_OPF_READ)
		return resp_read(qp, skb);
	if (flags & VMLX_OPF_ATOMIC)
		return resp_atomic(qp, skb);
	return false;
}

static bool resp_rc(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_resp *resp = &qp->resp;
	int order = vmlx_psn_compare(pkt->psn, resp->psn);

	if (order < 0)
		return resp_duplicate(qp, skb);
	if (order > 0) {
		if (!resp->nak_sent) {
			atomic64_inc(&vmlx_qp_cnt(qp)->seq_naks_sent);
			resp_send_ack(qp, VMLX_AETH_NAK | VMLX_AETH_NAK_PSN_SEQ,
				      resp->psn);
			resp->nak_sent = true;
		}
		return false;
	}
	resp->nak_sent = false;

	if (!resp_seq_ok(qp, pkt->op->flags) || !resp_len_ok(qp, pkt)) {
		resp_error(qp, skb, VMLX_AETH_NAK_INVALID_REQ);
		return false;
	}
	return resp_execute(qp, skb);
}

static bool resp_uc(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 flags = pkt->op->flags;
	bool in_order = pkt->psn == qp->resp.psn;

	qp->resp.psn = vmlx_psn_add(pkt->psn, 1);
	if (!in_order) {
		resp_abandon(qp);
		if (!(flags & VMLX_OPF_FIRST))
			return false;
	}
	if (!resp_seq_ok(qp, flags) || !resp_len_ok(qp, pkt)) {
		resp_abandon(qp);
		return false;
	}
	return resp_execute(qp, skb);
}

/* Whether the opcode belongs to the QP's transport service. */
static bool resp_service_ok(const struct vmlx_qp *qp,
			    const struct vmlx_pkt *pkt)
{
	u8 service;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		service = VMLX_OPC_RC;
		break;
	case IB_QPT_UC:
		service = VMLX_OPC_UC;
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
	case IB_QPT_SMI:
		service = VMLX_OPC_UD;
		break;
	default:
		return false;
	}
	return (pkt->opcode & VMLX_OPC_SERVICE_MASK) == service &&
	       (pkt->op->flags & VMLX_OPF_REQ);
}

/*
 * The BTH P_Key must match the QP's own (IBA 9.6.1.1, 10.9.3): same base,
 * not both limited members.  QP1 takes any P_Key of the port's table,
 * which vmlx_rcv() has checked; QP0 is exempt.
 */
static bool resp_pkey_ok(struct vmlx_qp *qp, struct sk_buff *skb)
{
	u16 pkey, own;

	if (qp->ibqp.qp_type == IB_QPT_GSI || qp->ibqp.qp_type == IB_QPT_SMI)
		return true;
	pkey = vmlx_bth_pkey(vmlx_pkt_bth(skb));
	own = vmlx_qp_pkey(qp);
	return (pkey & VMLX_PKEY_BASE_MASK) &&
	       (pkey & VMLX_PKEY_BASE_MASK) == (own & VMLX_PKEY_BASE_MASK) &&
	       ((pkey | own) & VMLX_PKEY_FULL);
}

/*
 * While READ responses are being sent, the requests behind the READ wait
 * in resp.waiting: they must be executed, and answered, after it, and so
 * must the requests behind them.  A duplicate READ for the stream under
 * way or an earlier one goes ahead: the requester went back to it, and
 * the stream restarts there.  A duplicate of a later READ waits like the
 * rest: a requester that went back resends its READs in order, and each
 * must be answered in full before the next, or the responses it waits
 * for would be cut off by those of the READs behind.  Acknowledgements
 * and responses for the QP's own requests never wait: they go to the
 * completer as they arrive.
 */
static bool resp_must_wait(struct vmlx_qp *qp, const struct vmlx_pkt *pkt)
{
	const struct vmlx_resp_read *rd = &qp->resp.read;

	if ((pkt->op->flags & VMLX_OPF_READ) &&
	    vmlx_psn_compare(pkt->psn, qp->resp.psn) < 0)
		return rd->active &&
		       vmlx_psn_compare(pkt->psn, rd->last_psn) > 0;
	return rd->active || !skb_queue_empty(&qp->resp.waiting);
}

/* Keep a request until the READ responses ahead of it are out. */
static void resp_hold(struct vmlx_qp *qp, struct sk_buff *skb)
{
	if (skb_queue_len(&qp->resp.waiting) >= VMLX_QP_RX_QUEUE_MAX) {
		/* the requester sends it again */
		atomic64_inc(&vmlx_pkt(skb)->port->cnt.rcv_discards);
		kfree_skb(skb);
		return;
	}
	__skb_queue_tail(&qp->resp.waiting, skb);
}

/*
 * A burst (vmlx_burst.c) executed as a whole, as its packets would have
 * been one after the other: it starts at ePSN, continues the message
 * under way, and all of its payload fits.  Return: false, and nothing
 * changed but bytes that its packets will place again, if it is not
 * that simple.
 */
static bool resp_burst(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_resp *resp = &qp->resp;
	u32 flags = pkt->op->flags;
	u32 bytes = vmlx_pkt_bytes(pkt);
	u32 last = vmlx_psn_add(pkt->psn, pkt->burst);
	struct vmlx_mr *mr;
	int err;

	if (pkt->psn != resp->psn || !resp_seq_ok(qp, flags) ||
	    !resp_len_ok(qp, pkt))
		return false;
	if (flags & VMLX_OPF_SEND) {
		if ((u64)resp->offset + bytes > resp->wqe->dma.length ||
		    vmlx_sge_copy_payload(qp->vdev, qp->ibqp.pd,
					  resp->wqe->dma.sge,
					  resp->wqe->dma.num_sge, resp->offset,
					  skb))
			return false;
	} else {
		if (bytes > resp->resid)
			return false;
		mr = vmlx_mr_get(qp->vdev, qp->ibqp.pd, resp->rkey, VMLX_RKEY,
				 resp->va, bytes, IB_ACCESS_REMOTE_WRITE, &err);
		if (!mr)
			return false;
		vmlx_mr_copy_payload(mr, resp->va, skb);
		vmlx_mr_put(mr);
		resp->va += bytes;
		resp->resid -= bytes;
	}
	resp->offset += bytes;
	resp->nak_sent = false;
	resp->psn = vmlx_psn_add(last, 1);
	if (vmlx_bth_ackreq(vmlx_pkt_bth(skb)))
		resp_send_ack(qp, VMLX_AETH_ACK | VMLX_AETH_CREDIT_INVALID,
			      last);
	return true;
}

/* Execute an RC request that passed the checks of vmlx_resp_rcv(). */
static void resp_rc_take(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_port *port = vmlx_pkt(skb)->port;
	struct sk_buff_head list;
	u32 packets;

	if (vmlx_pkt(skb)->burst) {
		if (qp->mtu && resp_burst(qp, skb)) {
			consume_skb(skb);
			return;
		}
		/* decided packet by packet */
		packets = vmlx_pkt_count(skb);
		__skb_queue_head_init(&list);
		if (vmlx_burst_split(skb, &list)) {
			atomic64_add(packets, &port->cnt.rcv_discards);
			return;
		}
		while ((skb = __skb_dequeue(&list)))
			resp_rc_take(qp, skb);
		return;
	}
	if (qp->mtu && resp_rc(qp, skb))
		consume_skb(skb);
	else
		kfree_skb(skb);
}

/**
 * vmlx_resp_rcv() - handle a request packet addressed to a QP
 * @qp: the QP; qp->lock held, in the QP's work item
 * @skb: the packet, with vmlx_pkt(@skb) filled in; always consumed
 *
 * Requests are executed only in RTR, RTS, SQD and SQE; in the other
 * states they are dropped.  A packet of another transport service than
 * the QP's, with a P_Key the QP does not accept, or (RC, UC) from another
 * port than the QP's peer, is counted in the port's rcv_discards.  An RC
 * request behind RDMA READ responses still to send is kept, and executed
 * by vmlx_resp_run() once they are out.
 */
void vmlx_resp_rcv(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	bool used = false;

	switch (qp->state) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
		break;
	default:
		goto out;
	}
	if (!resp_service_ok(qp, pkt) || !resp_pkey_ok(qp, skb)) {
		atomic64_inc(&pkt->port->cnt.rcv_discards);
		goto out;
	}
	if (!vmlx_qp_from_peer(qp, skb))
		goto out;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		if (resp_must_wait(qp, pkt))
			resp_hold(qp, skb);
		else
			resp_rc_take(qp, skb);
		return;
	case IB_QPT_UC:
		if (qp->mtu)
			used = resp_uc(qp, skb);
		break;
	default:
		used = resp_ud(qp, skb);
		break;
	}
out:
	if (used)
		consume_skb(skb);
	else
		kfree_skb(skb);
}

/**
 * vmlx_resp_run() - send more of the RDMA READ responses under way, and
 *	execute the requests that waited for them
 * @qp: the QP; qp->lock held, in the QP's work item
 * @budget: packets the work item may still handle; decreased by the
 *	responses sent and the requests executed
 *
 * An RDMA READ of up to 2 GiB is answered a budget at a time, so that one
 * request (or a duplicate of it) never holds the work item for long.
 *
 * Return: true if anything was done.
 */
bool vmlx_resp_run(struct vmlx_qp *qp, unsigned int *budget)
{
	struct sk_buff *skb;
	bool progress = false;

	while (*budget) {
		if (qp->resp.read.active) {
			resp_read_send(qp, budget);
		} else {
			skb = __skb_dequeue(&qp->resp.waiting);
			if (!skb)
				break;
			resp_rc_take(qp, skb);
			(*budget)--;
		}
		progress = true;
	}
	return progress;
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */
/* ------------------------------------------------------------------ */

/**
 * vmlx_resp_init() - allocate the responder's state of a new QP
 * @qp: the QP, whose RQ or SRQ exists
 * @gfp: vmlx_gfp() of the QP
 *
 * Return: 0 or -ENOMEM.
 */
int vmlx_resp_init(struct vmlx_qp *qp, gfp_t gfp)
{
	struct vmlx_resp *resp = &qp->resp;
	u32 max_sge = qp->srq ? qp->srq->rq.max_sge : qp->rq.max_sge;

	resp->wqe = kzalloc(vmlx_recv_wqe_size(max_sge), gfp);
	if (!resp->wqe)
		return -ENOMEM;
	resp->res = kcalloc(VMLX_MAX_RD_ATOMIC, sizeof(*resp->res), gfp);
	if (!resp->res)
		goto err_free_wqe;
	resp->res_num = 1;
	resp->res_next = 0;
	resp->wqe_valid = false;
	__skb_queue_head_init(&resp->waiting);
	return 0;

err_free_wqe:
	kfree(resp->wqe);
	resp->wqe = NULL;
	return -ENOMEM;
}

/**
 * vmlx_resp_cleanup() - free the responder's state
 * @qp: the QP, whose work item no longer runs
 */
void vmlx_resp_cleanup(struct vmlx_qp *qp)
{
	__skb_queue_purge(&qp->resp.waiting);
	kfree(qp->resp.res);
	qp->resp.res = NULL;
	kfree(qp->resp.wqe);
	qp->resp.wqe = NULL;
	qp->resp.wqe_valid = false;
}

/**
 * vmlx_resp_reset() - start the responder afresh
 * @qp: the QP, entering RESET, INIT or RTR, with qp->attr.rq_psn set
 *
 * A receive WQE held for the next message survives, except on entering
 * RESET, where the RQ is emptied.
 */
void vmlx_resp_reset(struct vmlx_qp *qp)
{
	struct vmlx_resp *resp = &qp->resp;

	resp->psn = qp->attr.rq_psn & VMLX_PSN_MASK;
	resp->msn = 0;
	resp->nak_sent = false;
	resp_abandon(qp);
	resp->va = 0;
	resp->rkey = 0;
	if (qp->state == IB_QPS_RESET)
		resp->wqe_valid = false;
	memset(resp->res, 0, VMLX_MAX_RD_ATOMIC * sizeof(*resp->res));
	resp->res_num = clamp_t(u32, qp->attr.max_dest_rd_atomic, 1,
				VMLX_MAX_RD_ATOMIC);
	resp->res_next = 0;
	resp->flush_left = 0;
	resp->last_wqe = false;
	resp->read.active = false;
	__skb_queue_purge(&resp->waiting);
}

/**
 * vmlx_resp_flush_held() - give back the receive WQE of a QP in error
 * @qp: the QP, in ERR; qp->lock held
 *
 * The message in progress is abandoned; the WQE held for it, taken from
 * the RQ or an SRQ, completes with IB_WC_WR_FLUSH_ERR.
 */
void vmlx_resp_flush_held(struct vmlx_qp *qp)
{
	resp_abandon(qp);
	qp->resp.read.active = false;
	__skb_queue_purge(&qp->resp.waiting);
	if (qp->resp.wqe_valid)
		resp_flush_wqe(qp);
}

/**
 * vmlx_resp_srq_drained() - flush the held WQE of a QP in error on an SRQ
 * @qp: the QP, in ERR, with an SRQ; qp->lock held
 *
 * Once the WQE it held is flushed the QP takes no other from the SRQ, so
 * the consumer is told, once, with IB_EVENT_QP_LAST_WQE_REACHED (IBA Vol
 * 1, 11.6.3.1): after that event and the completions before it are
 * polled, the QP can be destroyed without losing an SRQ WQE.
 */
void vmlx_resp_srq_drained(struct vmlx_qp *qp)
{
	vmlx_resp_flush_held(qp);
	if (qp->resp.last_wqe)
		return;
	qp->resp.last_wqe = true;
	vmlx_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/**
 * vmlx_resp_flush_next() - flush the oldest WQE of a QP's own RQ
 * @qp: the QP, in ERR, without an SRQ (whose WQEs stay for its other
 *	QPs); qp->lock held
 *
 * Return: true if there was one; it completed with IB_WC_WR_FLUSH_ERR.
 */
bool vmlx_resp_flush_next(struct vmlx_qp *qp)
{
	if (!vmlx_rq_pop(&qp->rq, qp->resp.wqe))
		return false;
	resp_flush_wqe(qp);
	return true;
}
