// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx completer: what comes back to an RC requester.
 *
 * ACKs retire the send WQEs whose PSNs they cover; read responses and
 * atomic acknowledgements carry data into the requester's memory; NAKs
 * send the requester back (sequence error), make it wait (RNR) or fail the
 * WQE (invalid request, remote access or operational error).  The local
 * ACK timeout and the RNR back-off are timers that only flag the QP's work
 * item, where the retry is decided.
 *
 * comp.psn is the oldest PSN not yet acknowledged, req.sent_psn the one
 * after the highest ever sent: answers are taken for the PSNs between,
 * including those to packets sent before a rewind, and when they pass the
 * rewound requester it catches up (vmlx_req_catch_up()).  Retries are
 * counted while no progress is made: every advance of comp.psn gives the
 * QP its retry_cnt and rnr_retry afresh.
 *
 * A local ACK timeout usually means a peer slower than the timeout, not a
 * lost packet (the fabric loses none unless told to): the requester then
 * sends only the oldest unacknowledged packet, with AckReq, until an
 * answer comes (comp.probing), rather than the whole window again, which
 * would bury the peer under duplicates it must each acknowledge and make
 * the next timeout likelier.  A NAK for a sequence error (a real loss)
 * still sends it back to resend everything from the lost packet on.
 *
 * Runs only in the QP's work item, with qp->lock held (except the timer
 * callbacks, which only set a flag and kick the work item).
 */
#include <linux/jiffies.h>
#include <linux/skbuff.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* rnr_retry of 7 means: retry without limit (IBA 9.7.5.2.8). */
#define VMLX_RNR_RETRY_INFINITE	7

/* RNR NAK timer field to microseconds, IBA table 45. */
static const u32 vmlx_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void vmlx_comp_timeout(struct timer_list *t)
{
	struct vmlx_qp *qp = from_timer(qp, t, comp.timer);

	WRITE_ONCE(qp->comp.timed_out, true);
	vmlx_qp_kick(qp);
}

static void vmlx_comp_rnr_timeout(struct timer_list *t)
{
	struct vmlx_qp *qp = from_timer(qp, t, comp.rnr_timer);

	WRITE_ONCE(qp->comp.rnr_done, true);
	vmlx_qp_kick(qp);
}

/**
 * vmlx_comp_init() - set up the completer's timers
 * @qp: the QP
 */
void vmlx_comp_init(struct vmlx_qp *qp)
{
	timer_setup(&qp->comp.timer, vmlx_comp_timeout, 0);
	timer_setup(&qp->comp.rnr_timer, vmlx_comp_rnr_timeout, 0);
}

/**
 * vmlx_comp_stop() - stop the completer's timers and forget their state
 * @qp: the QP
 */
void vmlx_comp_stop(struct vmlx_qp *qp)
{
	del_timer_sync(&qp->comp.timer);
	del_timer_sync(&qp->comp.rnr_timer);
	WRITE_ONCE(qp->comp.timed_out, false);
	WRITE_ONCE(qp->comp.rnr_done, false);
	qp->comp.rnr_wait = false;
}

/**
 * vmlx_comp_arm_timer() - start the local ACK timeout if it is not running
 * @qp: the QP
 *
 * The timeout is 4.096 us * 2^timeout (IBA 9.7.6.1.3); 0 means none.
 */
void vmlx_comp_arm_timer(struct vmlx_qp *qp)
{
	unsigned long delay;

	if (!qp->attr.timeout || timer_pending(&qp->comp.timer))
		return;
	delay = max_t(unsigned long,
		      nsecs_to_jiffies(4096ULL << qp->attr.timeout), 1);
	mod_timer(&qp->comp.timer, jiffies + delay);
}

/* Restart the timeout after progress, or stop it if nothing is left. */
static void vmlx_comp_progress(struct vmlx_qp *qp)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.rewind_valid = false;
	del_timer(&qp->comp.timer);
	if (qp->comp.psn != qp->req.sent_psn)
		vmlx_comp_arm_timer(qp);
}

static void vmlx_comp_rewind(struct vmlx_qp *qp, u32 psn)
{
	qp->comp.rewind_psn = psn;
	qp->comp.rewind_valid = true;
	vmlx_req_rewind(qp, psn);
}

/* The oldest send WQE still waiting for its answer, or NULL. */
static struct rxe_send_wqe *vmlx_comp_head(struct vmlx_qp *qp)
{
	u32 mask = qp->sq.q.mask;
	struct rxe_send_wqe *wqe;
	u32 i;

	for (i = qp->sq.q.index; i != qp->req.fetched; i = (i + 1) & mask) {
		wqe = vmlx_sq_wqe(&qp->sq, i);
		if (wqe->state == VMLX_WQE_SENT ||
		    wqe->state == VMLX_WQE_PENDING)
			return wqe;
		if (wqe->state == VMLX_WQE_POSTED)
			return NULL;
	}
	return NULL;
}

static bool vmlx_wqe_is_read(const struct rxe_send_wqe *wqe)
{
	return wqe->wr.opcode == IB_WR_RDMA_READ;
}

static bool vmlx_wqe_is_atomic(const struct rxe_send_wqe *wqe)
{
	return wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wqe->wr.opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Everything up to and including @psn is acknowledged: finish the SEND
 * and WRITE WQEs it covers.  If an ACK covers a READ or atomic, their
 * responses were lost (an implicit NAK, IBA 9.7.5.1.3): send the request
 * again.  A response (@response) only acknowledges what came before its
 * own READ or atomic.
 */
static void vmlx_comp_ack_upto(struct vmlx_qp *qp, u32 psn, bool response)
{
	struct rxe_send_wqe *wqe;

	while ((wqe = vmlx_comp_head(qp))) {
		if (vmlx_psn_compare(wqe->first_psn, psn) > 0)
			break;
		if (vmlx_wqe_is_read(wqe) || vmlx_wqe_is_atomic(wqe)) {
			if (response)
				return;
			if (!qp->comp.rewind_valid ||
			    qp->comp.rewind_psn != qp->comp.psn)
				vmlx_comp_rewind(qp, qp->comp.psn);
			return;
		}
		if (vmlx_psn_compare(wqe->last_psn, psn) > 0) {
			/* partly acknowledged */
			qp->comp.psn = vmlx_psn_add(psn, 1);
			vmlx_comp_progress(qp);
			return;
		}
		wqe->state = VMLX_WQE_DONE;
		wqe->status = IB_WC_SUCCESS;
		qp->comp.psn = vmlx_psn_add(wqe->last_psn, 1);
		vmlx_comp_progress(qp);
	}
}

/* The WQE at the head fails with @status; the QP goes to ERR. */
static void vmlx_comp_fail(struct vmlx_qp *qp, enum ib_wc_status status)
{
	struct rxe_send_wqe *wqe = vmlx_comp_head(qp);

	if (status == IB_WC_RETRY_EXC_ERR || status == IB_WC_RNR_RETRY_EXC_ERR)
		atomic64_inc(&vmlx_qp_cnt(qp)->retry_exceeded);

	if (wqe) {
		wqe->state = VMLX_WQE_DONE;
		wqe->status = status;
	}
	/*
	 * Retiring it moves the QP to ERR; the WQEs after it are flushed.
	 * No WQE (nothing outstanding any more): only the QP fails.
	 */
	if (!wqe)
		vmlx_qp_error(qp);
	vmlx_comp_stop(qp);
}

static void vmlx_comp_rnr(struct vmlx_qp *qp, u32 psn, u8 timer)
{
	if (!qp->comp.rnr_left) {
		vmlx_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (qp->comp.rnr_left != VMLX_RNR_RETRY_INFINITE)
		qp->comp.rnr_left--;
	del_timer(&qp->comp.timer);
	qp->comp.rnr_wait = true;
	vmlx_req_rewind(qp, psn);
	mod_timer(&qp->comp.rnr_timer,
		  jiffies + max_t(unsigned long,
				  usecs_to_jiffies(vmlx_rnr_usecs[timer & 31]),
				  1));
}

static void vmlx_comp_aeth(struct vmlx_qp *qp, u32 psn, u8 syndrome)
{
	u8 value = syndrome & VMLX_AETH_VALUE_MASK;

	switch (syndrome & VMLX_AETH_TYPE_MASK) {
	case VMLX_AETH_ACK:
		vmlx_comp_ack_upto(qp, psn, false);
		break;
	case VMLX_AETH_RNR_NAK:
		atomic64_inc(&vmlx_qp_cnt(qp)->rnr_naks_rcvd);
		vmlx_comp_ack_upto(qp, vmlx_psn_add(psn, VMLX_PSN_MASK), true);
		vmlx_comp_rnr(qp, psn, value);
		break;
	case VMLX_AETH_NAK:
		/* everything before the NAKed PSN arrived */
		vmlx_comp_ack_upto(qp, vmlx_psn_add(psn, VMLX_PSN_MASK), true);
		switch (value) {
		case VMLX_AETH_NAK_PSN_SEQ:
			atomic64_inc(&vmlx_qp_cnt(qp)->seq_naks_rcvd);
			if (qp->comp.rewind_valid &&
			    qp->comp.rewind_psn == psn) {
				/* the same gap again, without progress */
				if (!qp->comp.retry_left) {
					vmlx_comp_fail(qp,
						       IB_WC_RETRY_EXC_ERR);
					return;
				}
				qp->comp.retry_left--;
			}
			vmlx_comp_rewind(qp, psn);
			break;
		case VMLX_AETH_NAK_INVALID_REQ:
			vmlx_comp_fail(qp, IB_WC_REM_INV_REQ_ERR);
			break;
		case VMLX_AETH_NAK_REM_ACCESS:
			vmlx_comp_fail(qp, IB_WC_REM_ACCESS_ERR);
			break;
		default:
			vmlx_comp_fail(qp, IB_WC_REM_OP_ERR);
			break;
		}
		break;
	default:
		/* reserved AETH type: ignore the packet */
		break;
	}
}

/* A response packet that carries data for the READ or atomic at @wqe. */
static void vmlx_comp_read_data(struct vmlx_qp *qp, struct rxe_send_wqe *wqe,
				struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 index = (pkt->psn - wqe->first_psn) & VMLX_PSN_MASK;
	u32 offset = index * qp->mtu;
	u32 expect;
	int ret;

	if (!(pkt->op->flags & VMLX_OPF_READ) || !vmlx_wqe_is_read(wqe))
		return;
	expect = min(qp->mtu, wqe->dma.length - offset);
	if (pkt->paylen != expect) {
		/* a response that does not fit the request: drop it */
		return;
	}
	/* the payload may be attached (vmlx_resp.c) */
	ret = vmlx_sge_copy_payload(qp->vdev, qp->ibqp.pd, wqe->dma.sge,
				    wqe->dma.num_sge, offset, skb);
	if (ret) {
		vmlx_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	qp->comp.psn = vmlx_psn_add(pkt->psn, 1);
	if (pkt->psn == wqe->last_psn) {
		wqe->state = VMLX_WQE_DONE;
		wqe->status = IB_WC_SUCCESS;
	}
	vmlx_comp_progress(qp);
}

static void vmlx_comp_atomic_ack(struct vmlx_qp *qp, struct rxe_send_wqe *wqe,
				 struct sk_buff *skb)
{
	struct vmlx_atmacketh *ack = vmlx_pkt_eth(skb, VMLX_ETH_ATMACKETH);
	u64 orig = vmlx_atmacketh_orig(ack);
	int ret;

	if (!vmlx_wqe_is_atomic(wqe))
		return;
	ret = vmlx_sge_copy(qp->vdev, qp->ibqp.pd, wqe->dma.sge, 1, 0,
			    &orig, sizeof(orig), VMLX_TO_MR);
	if (ret) {
		vmlx_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	wqe->state = VMLX_WQE_DONE;
	wqe->status = IB_WC_SUCCESS;
	qp->comp.psn = vmlx_psn_add(vmlx_pkt(skb)->psn, 1);
	vmlx_comp_progress(qp);
}

/* Read responses and atomic ACKs: the data of the WQE at the head. */
static void vmlx_comp_response(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct rxe_send_wqe *wqe;

	/* a response implies that what was sent before it arrived */
	vmlx_comp_ack_upto(qp, vmlx_psn_add(pkt->psn, VMLX_PSN_MASK), true);
	if (qp->state == IB_QPS_ERR)
		return;
	wqe = vmlx_comp_head(qp);
	if (!wqe || vmlx_psn_compare(pkt->psn, wqe->first_psn) < 0 ||
	    vmlx_psn_compare(pkt->psn, wqe->last_psn) > 0)
		return;
	if (pkt->psn != qp->comp.psn) {
		/* one went missing: ask again from there, once */
		if (vmlx_psn_compare(pkt->psn, qp->comp.psn) > 0 &&
		    (!qp->comp.rewind_valid ||
		     qp->comp.rewind_psn != qp->comp.psn))
			vmlx_comp_rewind(qp, qp->comp.psn);
		return;
	}
	if (pkt->op->flags & VMLX_OPF_ATMACKETH)
		vmlx_comp_atomic_ack(qp, wqe, skb);
	else
		vmlx_comp_read_data(qp, wqe, skb);
}

/*
 * A burst of READ responses (vmlx_burst.c) placed as a whole, as its
 * packets would have been one after the other: it starts at comp.psn and
 * lies within the READ at the head of the send queue.  Return: false, and
 * nothing changed but bytes its packets will place again, if it is not
 * that simple.
 */
static bool vmlx_comp_burst(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	u32 last = vmlx_psn_add(pkt->psn, pkt->burst);
	struct rxe_send_wqe *wqe;
	u32 offset;

	if (pkt->psn != qp->comp.psn ||
	    vmlx_psn_compare(last, qp->req.sent_psn) >= 0 ||
	    !(pkt->op->flags & VMLX_OPF_READ) || pkt->paylen != qp->mtu)
		return false;
	wqe = vmlx_comp_head(qp);
	if (!wqe || !vmlx_wqe_is_read(wqe) ||
	    vmlx_psn_compare(pkt->psn, wqe->first_psn) <= 0 ||
	    vmlx_psn_compare(last, wqe->last_psn) >= 0)
		return false;
	offset = ((pkt->psn - wqe->first_psn) & VMLX_PSN_MASK) * qp->mtu;
	if ((u64)offset + vmlx_pkt_bytes(pkt) > wqe->dma.length ||
	    vmlx_sge_copy_payload(qp->vdev, qp->ibqp.pd, wqe->dma.sge,
				  wqe->dma.num_sge, offset, skb))
		return false;
	qp->comp.probing = false;
	qp->comp.psn = vmlx_psn_add(last, 1);
	vmlx_comp_progress(qp);
	return true;
}

/* A burst of READ responses: placed whole, or packet by packet. */
static void vmlx_comp_rcv_burst(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct sk_buff_head list;

	if (vmlx_comp_burst(qp, skb)) {
		vmlx_req_catch_up(qp);
		consume_skb(skb);
		return;
	}
	__skb_queue_head_init(&list);
	if (vmlx_burst_split(skb, &list))
		return;
	while ((skb = __skb_dequeue(&list)))
		vmlx_comp_rcv(qp, skb);
}

/**
 * vmlx_comp_rcv() - handle a response packet
 * @qp: the QP
 * @skb: the packet; consumed
 *
 * Only an RC QP in RTS, SQD or SQE takes responses, and only from its
 * peer (vmlx_qp_from_peer()): an ACK or NAK from anyone else is dropped.
 * A burst of READ responses (vmlx_burst.c) is taken as its packets.
 */
void vmlx_comp_rcv(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_aeth *aeth;
	u8 syndrome = VMLX_AETH_ACK;

	if (qp->ibqp.qp_type != IB_QPT_RC ||
	    (pkt->opcode & VMLX_OPC_SERVICE_MASK) != VMLX_OPC_RC ||
	    (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD &&
	     qp->state != IB_QPS_SQE) || !vmlx_qp_from_peer(qp, skb)) {
		kfree_skb(skb);
		return;
	}
	if (pkt->burst) {
		vmlx_comp_rcv_burst(qp, skb);
		return;
	}
	if (pkt->op->flags & VMLX_OPF_AETH) {
		aeth = vmlx_pkt_eth(skb, VMLX_ETH_AETH);
		syndrome = vmlx_aeth_syndrome(aeth);
	}
	/*
	 * Nothing is waiting for a PSN outside [comp.psn, sent_psn), but a
	 * NAK for the oldest unacknowledged PSN is still news.  An answer
	 * to a packet sent before a rewind is as good as one to its resend.
	 */
	if (vmlx_psn_compare(pkt->psn, qp->comp.psn) < 0 ||
	    vmlx_psn_compare(pkt->psn, qp->req.sent_psn) >= 0) {
		if ((syndrome & VMLX_AETH_TYPE_MASK) == VMLX_AETH_ACK ||
		    pkt->psn != qp->comp.psn)
			goto done;
	}
	/* the peer answers: the window is open again */
	qp->comp.probing = false;
	if (pkt->op->flags & (VMLX_OPF_READ | VMLX_OPF_ATMACKETH) &&
	    (syndrome & VMLX_AETH_TYPE_MASK) == VMLX_AETH_ACK)
		vmlx_comp_response(qp, skb);
	else if (pkt->op->flags & VMLX_OPF_AETH)
		vmlx_comp_aeth(qp, pkt->psn, syndrome);
	if (qp->state != IB_QPS_ERR)
		vmlx_req_catch_up(qp);
done:
	/* a stale or duplicate answer is normal traffic, not a drop */
	consume_skb(skb);
}

/**
 * vmlx_comp_run() - act on the completer's timers
 * @qp: the QP
 *
 * Return: true if anything happened.
 */
bool vmlx_comp_run(struct vmlx_qp *qp)
{
	bool progress = false;

	if (qp->ibqp.qp_type != IB_QPT_RC)
		return false;
	if (READ_ONCE(qp->comp.rnr_done)) {
		WRITE_ONCE(qp->comp.rnr_done, false);
		qp->comp.rnr_wait = false;
		progress = true;
	}
	if (READ_ONCE(qp->comp.timed_out)) {
		WRITE_ONCE(qp->comp.timed_out, false);
		progress = true;
		if (qp->comp.psn != qp->req.sent_psn && !qp->comp.rnr_wait) {
			if (!qp->comp.retry_left) {
				vmlx_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
				return true;
			}
			qp->comp.retry_left--;
			atomic64_inc(&vmlx_qp_cnt(qp)->timeouts);
			vmlx_comp_rewind(qp, qp->comp.psn);
			/* a slow peer is asked, not flooded (see the top) */
			qp->comp.probing = true;
		}
	}
	if (qp->state == IB_QPS_SQD && !qp->req.sqd_notified &&
	    qp->comp.psn == qp->req.sent_psn) {
		qp->req.sqd_notified = true;
		if (qp->attr.en_sqd_async_notify)
			vmlx_qp_event(qp, IB_EVENT_SQ_DRAINED);
	}
	return progress;
}
