// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx queue pairs: creation and destruction, state changes, posting work
 * requests, and the per-QP work item that runs the transport.
 *
 * The requester, the completer and the responder of a QP run only with
 * qp->lock held, so they never race with each other or with a state
 * change: in the QP's work item (vmlx_qp_work()), at a user QP's
 * doorbell for a few packets (vmlx_qp_doorbell_run()), or, for a QP that
 * packets of such a run went to, in the same thread once it let go of
 * its own QP (vmlx_qp_hand_off()).  Kernel posters only touch the rings,
 * under the ring's spinlock, and kick the work item; packets arrive on
 * rx_queue and kick it too, or are handed to the sending thread.
 *
 * User QPs: the process writes WQEs straight into the rings, mapped into
 * it, and owns their producer indexes; post_send without WRs is its
 * doorbell.  Every send WQE is copied out of the ring into the private
 * shadow and checked there (vmlx_user_wqe_check()) before the transport
 * looks at it; receive WQEs are copied and sanitised by vmlx_rq_pop().
 *
 * Lifetime: a QP is found by packet delivery through vdev->qps (or the
 * port's qp0/qp1) under the xarray's lock, with a reference taken on
 * @refs.  vmlx_destroy_qp() unpublishes it, drops the QP's own reference
 * and waits for the others before anything is freed.  (Not RCU: the core
 * frees the QP, without a grace period, as soon as destroy returns.)
 */
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* Packets the work item handles before it gives the CPU to others. */
#define VMLX_QP_WORK_BUDGET	256

/* Packets queued for a QP beyond which a sender no longer runs it. */
#define VMLX_QP_HANDOFF_MAX	32

static bool vmlx_qp_hand_off(struct vmlx_qp *qp);

static bool handoff = true;
module_param(handoff, bool, 0644);
MODULE_PARM_DESC(handoff,
		 "a doorbell runs its QP, and a QP's run the QP its packets went to, in the same thread (default: on)");

/**
 * vmlx_qp_pkey() - the P_Key a QP sends with
 * @qp: the QP
 *
 * Return: the P_Key at the QP's pkey_index in its port's table.
 */
u16 vmlx_qp_pkey(struct vmlx_qp *qp)
{
	struct vmlx_port *port = vmlx_port(qp->vdev, qp->attr.port_num);
	unsigned long flags;
	u16 pkey;

	spin_lock_irqsave(&port->lock, flags);
	pkey = port->pkeys[qp->attr.pkey_index % VMLX_PKEY_TBL_LEN];
	spin_unlock_irqrestore(&port->lock, flags);
	return pkey;
}

/**
 * vmlx_qp_get() - find the QP a packet is for
 * @port: the port the packet arrived on
 * @qpn: BTH:DestQP
 *
 * Return: the QP with a reference, or %NULL.
 */
struct vmlx_qp *vmlx_qp_get(struct vmlx_port *port, u32 qpn)
{
	struct xarray *qps = &port->vdev->qps;
	struct vmlx_qp *qp;

	xa_lock(qps);
	if (qpn == 0)
		qp = port->qp0;
	else if (qpn == 1)
		qp = port->qp1;
	else
		qp = xa_load(qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refs))
		qp = NULL;
	xa_unlock(qps);
	if (qp && qp->attr.port_num != port->port_num) {
		vmlx_qp_put(qp);
		qp = NULL;
	}
	return qp;
}

/**
 * vmlx_qp_put() - drop a reference from vmlx_qp_get()
 * @qp: the QP
 */
void vmlx_qp_put(struct vmlx_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->released);
}

/**
 * vmlx_qp_kick() - make the QP's work item run
 * @qp: the QP
 */
void vmlx_qp_kick(struct vmlx_qp *qp)
{
	u64 now = vmlx_prof_now();

	if (READ_ONCE(qp->dying))
		return;
	if (now && !work_pending(&qp->work))
		WRITE_ONCE(qp->prof_kicked, now);
	if (queue_work(vmlx_wq, &qp->work))
		vmlx_prof_end(VMLX_PROF_KICK, now);
}

/**
 * vmlx_qp_rx() - hand a received packet to its QP
 * @qp: the QP, referenced by the caller
 * @skb: the packet; consumed
 */
void vmlx_qp_rx(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_port *port = vmlx_pkt(skb)->port;

	if (READ_ONCE(qp->dying) ||
	    skb_queue_len(&qp->rx_queue) >= VMLX_QP_RX_QUEUE_MAX) {
		if (!READ_ONCE(qp->dying))
			atomic64_inc(&port->cnt.rx_queue_full);
		atomic64_add(vmlx_pkt_count(skb), &port->cnt.rcv_discards);
		kfree_skb(skb);
		return;
	}
	/* the arrival time, for the profile; 0 while it is off */
	skb->tstamp = vmlx_prof_now();
	skb_queue_tail(&qp->rx_queue, skb);
	if (!vmlx_qp_hand_off(qp))
		vmlx_qp_kick(qp);
}

/**
 * vmlx_qp_from_peer() - whether a packet comes from a connected QP's peer
 * @qp: the QP; qp->lock held
 * @skb: a packet for it, with vmlx_pkt(@skb) filled in
 *
 * An RC or UC QP takes packets (requests, and on RC acknowledgements and
 * responses) only from the other end of its primary path, as an HCA
 * checks them against the QP context: the SLID must be the path's DLID,
 * and a GRH must be there exactly when the path has one, with the path's
 * DGID as its SGID.  The BTH names no source QP, so QPs behind one LID
 * are told apart only by their PSNs.  A packet from anyone else is
 * counted in rcv_discards and rcv_bad_source.  UD QPs take packets from
 * anyone, their Q_Key permitting.
 *
 * Return: true if the packet may be processed.
 */
bool vmlx_qp_from_peer(struct vmlx_qp *qp, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	const struct vmlx_av *av = &qp->av;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return true;
	if (pkt->slid == av->dlid && pkt->global == av->global &&
	    (!pkt->global || !memcmp(vmlx_pkt_grh(skb)->sgid, av->grh.dgid.raw,
				     sizeof(av->grh.dgid.raw))))
		return true;
	atomic64_inc(&pkt->port->cnt.rcv_discards);
	atomic64_inc(&pkt->port->cnt.rcv_bad_source);
	return false;
}

/**
 * vmlx_qp_event() - report an affiliated asynchronous event
 * @qp: the QP
 * @type: the event
 */
void vmlx_qp_event(struct vmlx_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &qp->vdev->ibdev,
		.event = type,
		.element.qp = &qp->ibqp,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
}

/**
 * vmlx_qp_error() - move a QP to the error state
 * @qp: the QP; qp->lock held
 *
 * The work item flushes the queues on its next pass.
 */
void vmlx_qp_error(struct vmlx_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == IB_QPS_ERR)
		return;
	qp->state = IB_QPS_ERR;
	vmlx_comp_stop(qp);
	vmlx_qp_kick(qp);
}

/* ------------------------------------------------------------------ */
/* The work item                                                       */
/* ------------------------------------------------------------------ */

static enum ib_wc_opcode vmlx_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Retire the send WQE at the head of the SQ: give its slot back, then
 * report it if it must be reported.  In that order: a process that sees
 * the completion may post again at once, and must find the slot free.
 * @wqe is the private shadow copy, which nothing rewrites meanwhile.
 */
static void vmlx_sq_retire(struct vmlx_qp *qp, struct rxe_send_wqe *wqe)
{
	struct ib_wc wc = {
		.wr_id = wqe->wr.wr_id,
		.status = wqe->status,
		.opcode = vmlx_wc_opcode(wqe->wr.opcode),
		.byte_len = wqe->dma.length,
		.qp = &qp->ibqp,
		.port_num = qp->attr.port_num,
	};

	bool report = wqe->status != IB_WC_SUCCESS || qp->sig_all ||
		      wqe->wr.send_flags & IB_SEND_SIGNALED;

	if (wqe->has_rd_atomic && qp->req.rd_atomic)
		qp->req.rd_atomic--;
	wqe->has_rd_atomic = 0;
	vmlx_queue_consume(&qp->sq.q);
	if (report)
		vmlx_cq_post(qp->scq, &wc, false);
}

/* The send flags a user WQE may carry. */
#define VMLX_USER_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

/* Opcodes of user WQEs, by QP type: never the kernel-only ones. */
static bool vmlx_user_opcode_ok(enum ib_qp_type type, u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_LOCAL_INV:
		return type == IB_QPT_RC || type == IB_QPT_UC;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return type == IB_QPT_RC;
	default:
		return false;
	}
}

/**
 * vmlx_user_wqe_check() - check a send WQE a user process wrote
 * @type: the QP's type
 * @sq: the QP's send queue
 * @wqe: the WQE, already copied out of the ring into the shadow; fixed
 *	up in place
 *
 * Only the fields the process is meant to write are believed: the work
 * request, the SGE list or inline bytes and, for inline data, the total
 * length.  Everything else the transport uses is set here: the iova of
 * RDMA and atomic requests, the flags it may act on, and the length,
 * recomputed from the SGEs.
 *
 * Context: any; touches nothing but @wqe.
 * Return: IB_WC_SUCCESS, or the status the WQE completes with:
 * IB_WC_LOC_QP_OP_ERR for an opcode the QP cannot carry or too many
 * SGEs, IB_WC_LOC_LEN_ERR for too much inline data or a message too big.
 */
VISIBLE_IF_KUNIT enum ib_wc_status
vmlx_user_wqe_check(enum ib_qp_type type, const struct vmlx_sq *sq,
		    struct rxe_send_wqe *wqe)
{
	struct rxe_send_wr *w = &wqe->wr;
	u32 opcode = w->opcode;
	u64 length = 0;
	u32 i;

	/* the transport's own fields, whatever the ring said */
	wqe->state = VMLX_WQE_POSTED;
	wqe->status = IB_WC_SUCCESS;
	wqe->mask = 0;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->ack_length = 0;
	wqe->has_rd_atomic = 0;
	wqe->iova = 0;
	wqe->dma.resid = 0;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	w->send_flags &= VMLX_USER_SEND_FLAGS;

	if (!vmlx_user_opcode_ok(type, opcode))
		return IB_WC_LOC_QP_OP_ERR;

	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->iova = w->wr.rdma.remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->iova = w->wr.atomic.remote_addr;
		break;
	default:
		break;
	}

	if (w->send_flags & IB_SEND_INLINE &&
	    (opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ||
	     opcode == IB_WR_RDMA_WRITE ||
	     opcode == IB_WR_RDMA_WRITE_WITH_IMM)) {
		/* the bytes are in the slot: only their count is told */
		if (wqe->dma.length > sq->max_inline)
			return IB_WC_LOC_LEN_ERR;
		wqe->dma.num_sge = 0;
		length = wqe->dma.length;
	} else {
		w->send_flags &= ~IB_SEND_INLINE;
		if (wqe->dma.num_sge > sq->max_sge)
			return IB_WC_LOC_QP_OP_ERR;
		for (i = 0; i < wqe->dma.num_sge; i++)
			length += wqe->dma.sge[i].length;
	}
	if (opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		/* the original value lands in the first 8 bytes */
		if (wqe->dma.num_sge != 1 || wqe->dma.sge[0].length < 8)
			return IB_WC_LOC_QP_OP_ERR;
		length = 8;
	}
	if (length > VMLX_MAX_MSG_SIZE)
		return IB_WC_LOC_LEN_ERR;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	return IB_WC_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_user_wqe_check);

/**
 * vmlx_sq_fetch() - copy the next posted send WQE to the shadow queue
 * @qp: the QP; qp->lock held
 *
 * A user WQE is checked there, and a UD WQE's AH resolved into its
 * address (vmlx_wqe_av()); a WQE that fails either completes in error.
 *
 * Return: true if there was one.
 */
bool vmlx_sq_fetch(struct vmlx_qp *qp)
{
	struct vmlx_sq *sq = &qp->sq;
	struct rxe_send_wqe *wqe;
	enum ib_wc_status status;

	if (qp->req.fetched == vmlx_queue_producer(&sq->q))
		return false;
	/*
	 * Never run into the oldest WQE not yet retired: a process moving
	 * its producer index back and forth must not overwrite the shadow
	 * of a WQE in flight.  An honest poster never gets here.
	 */
	if (((qp->req.fetched + 1) & sq->q.mask) == sq->q.index)
		return false;
	wqe = vmlx_sq_wqe(sq, qp->req.fetched);
	memcpy(wqe, vmlx_queue_slot(&sq->q, qp->req.fetched),
	       vmlx_queue_elem_size(&sq->q));
	wqe->state = VMLX_WQE_POSTED;
	wqe->status = IB_WC_SUCCESS;
	wqe->has_rd_atomic = 0;
	status = IB_WC_SUCCESS;
	/* a bad WQE completes in error, and the QP with it */
	if (vmlx_queue_is_user(&sq->q))
		status = vmlx_user_wqe_check(qp->ibqp.qp_type, sq, wqe);
	if (status == IB_WC_SUCCESS && vmlx_qp_is_ud(qp) &&
	    qp->state != IB_QPS_ERR &&
	    !vmlx_ah_lookup(qp->vdev, wqe->wr.wr.ud.ah_num, qp->ibqp.pd,
			    vmlx_wqe_av(wqe)))
		status = IB_WC_LOC_PROT_ERR;
	if (status != IB_WC_SUCCESS) {
		wqe->status = status;
		wqe->state = VMLX_WQE_DONE;
	}
	qp->req.fetched = (qp->req.fetched + 1) & sq->q.mask;
	return true;
}

/**
 * vmlx_flush_pass() - how many more WQEs a flush may complete now
 * @left: the WQEs left in the current pass, 0 if none is under way
 * @posted: the WQEs in the ring now
 * @budget: what is left of the work item's budget
 *
 * A pass completes the WQEs a ring held when it started, and no more: the
 * process of a user QP writes the producer index and could otherwise keep
 * a flush running for ever.  A pass longer than the budget goes on in the
 * next run of the work item; a new one starts when the QP is kicked again
 * after it ended (a doorbell, a packet).
 *
 * Return: the number to complete in this run; *@left is updated for them.
 */
static u32 vmlx_flush_pass(u32 *left, u32 posted, unsigned int *budget)
{
	u32 n;

	if (!*left)
		*left = posted;
	n = min_t(u32, *left, *budget);
	*left -= n;
	*budget -= n;
	return n;
}

/*
 * In ERR: complete the send WQEs, those not yet done as flushed, at most
 * one pass of them and @budget; see vmlx_flush_pass().
 */
static void vmlx_sq_flush(struct vmlx_qp *qp, unsigned int *budget)
{
	struct vmlx_queue *q = &qp->sq.q;
	struct rxe_send_wqe *wqe;
	u32 n;

	n = vmlx_flush_pass(&qp->req.flush_left,
			    (vmlx_queue_producer(q) - q->index) & q->mask,
			    budget);
	while (n--) {
		if (q->index == qp->req.fetched && !vmlx_sq_fetch(qp))
			break;
		wqe = vmlx_sq_wqe(&qp->sq, q->index);
		if (wqe->state != VMLX_WQE_DONE)
			wqe->status = IB_WC_WR_FLUSH_ERR;
		vmlx_sq_retire(qp, wqe);
	}
	qp->req.next = q->index;
	qp->req.rd_atomic = 0;
}

/* The same for the QP's own receive queue; an SRQ keeps its WQEs. */
static void vmlx_rq_flush(struct vmlx_qp *qp, unsigned int *budget)
{
	u32 n;

	if (qp->srq) {
		vmlx_resp_srq_drained(qp);
		return;
	}
	vmlx_resp_flush_held(qp);
	n = vmlx_flush_pass(&qp->resp.flush_left, vmlx_rq_count(&qp->rq),
			    budget);
	while (n-- && vmlx_resp_flush_next(qp))
		;
}

/**
 * vmlx_sq_retire_done() - complete the finished WQEs at the head of the SQ
 * @qp: the QP
 *
 * Return: true if any was.
 */
static bool vmlx_sq_retire_done(struct vmlx_qp *qp)
{
	struct rxe_send_wqe *wqe;
	bool progress = false;

	while (qp->sq.q.index != qp->req.next) {
		wqe = vmlx_sq_wqe(&qp->sq, qp->sq.q.index);
		if (wqe->state != VMLX_WQE_DONE)
			break;
		progress = true;
		if (wqe->status != IB_WC_SUCCESS) {
			vmlx_sq_retire(qp, wqe);
			vmlx_qp_error(qp);
			break;
		}
		vmlx_sq_retire(qp, wqe);
	}
	return progress;
}

static void vmlx_qp_dispatch(struct vmlx_qp *qp, struct sk_buff *skb)
{
	u64 start = vmlx_prof_now();

	vmlx_prof_end(VMLX_PROF_QUEUED, skb->tstamp);
	if (vmlx_pkt(skb)->op->flags & VMLX_OPF_RESP) {
		vmlx_comp_rcv(qp, skb);
		vmlx_prof_end(VMLX_PROF_COMP_PKT, start);
	} else {
		vmlx_resp_rcv(qp, skb);
		vmlx_prof_end(VMLX_PROF_RESP_PKT, start);
	}
}

/* Run the transport of @qp until it is idle or @budget is spent. */
static void vmlx_qp_process(struct vmlx_qp *qp, unsigned int *budget)
{
	struct sk_buff *skb;
	bool progress;

	lockdep_assert_held(&qp->lock);
	do {
		progress = false;
		if (qp->dying)
			break;
		while (*budget && (skb = skb_dequeue(&qp->rx_queue))) {
			vmlx_qp_dispatch(qp, skb);
			(*budget)--;
			progress = true;
		}
		if (qp->state == IB_QPS_ERR) {
			skb_queue_purge(&qp->rx_queue);
			vmlx_sq_flush(qp, budget);
			vmlx_rq_flush(qp, budget);
			/* a pass cut short goes on in the next run */
			if (qp->req.flush_left || qp->resp.flush_left)
				*budget = 0;
			break;
		}
		if (qp->state == IB_QPS_RESET)
			break;
		progress |= vmlx_resp_run(qp, budget);
		progress |= vmlx_comp_run(qp);
		progress |= vmlx_sq_retire_done(qp);
		if (qp->state == IB_QPS_ERR)
			continue;
		if (vmlx_req_run(qp)) {
			progress = true;
			if (*budget)
				(*budget)--;
		}
		progress |= vmlx_sq_retire_done(qp);
	} while (progress && *budget);
}

/*
 * Run the QPs the packets of this run went to (vmlx_qp_hand_off()), in
 * this thread, with what is left of its budget.  A QP whose lock is
 * taken (its own work item, a state change) or that is left with work
 * is queued as usual.
 */
static void vmlx_qp_run_handoffs(struct vmlx_qp **handoff_qp,
				 unsigned int budget)
{
	struct vmlx_qp *qp;
	u64 start;

	while ((qp = *handoff_qp)) {
		*handoff_qp = NULL;
		if (budget && mutex_trylock(&qp->lock)) {
			start = vmlx_prof_now();
			vmlx_qp_process(qp, &budget);
			mutex_unlock(&qp->lock);
			vmlx_prof_end(VMLX_PROF_HANDOFF, start);
			if (!budget)
				vmlx_qp_kick(qp);
		} else {
			vmlx_qp_kick(qp);
		}
		vmlx_qp_put(qp);
	}
}

static void vmlx_qp_work(struct work_struct *work)
{
	struct vmlx_qp *qp = container_of(work, struct vmlx_qp, work);
	unsigned int budget = VMLX_QP_WORK_BUDGET;
	u64 start = vmlx_prof_now();

	if (start) {
		vmlx_prof_end(VMLX_PROF_WAKEUP, READ_ONCE(qp->prof_kicked));
		WRITE_ONCE(qp->prof_kicked, 0);
	}
	mutex_lock(&qp->lock);
	vmlx_qp_process(qp, &budget);
	mutex_unlock(&qp->lock);
	vmlx_prof_end(VMLX_PROF_WORK, start);
	/* out of budget with work left: go to the back of the queue */
	if (!budget)
		vmlx_qp_kick(qp);
	vmlx_qp_run_handoffs(&qp->handoff, budget);
}

/*
 * A process that rings a user QP's doorbell runs the QP's transport
 * itself for a few packets, and what they go to, rather than wake the
 * work item.  Such a run is found by vmlx_qp_hand_off() through a slot
 * of its CPU, claimed with the task's pointer while the task may not
 * migrate; only that task reads or writes the slot's @handoff.
 */
#define VMLX_DOORBELL_RUNS	4
#define VMLX_DOORBELL_BUDGET	16

struct vmlx_doorbell_run {
	struct task_struct	*task;
	struct vmlx_qp		*handoff;
};

static DEFINE_PER_CPU(struct vmlx_doorbell_run [VMLX_DOORBELL_RUNS],
		      vmlx_doorbell_runs);

static struct vmlx_doorbell_run *vmlx_doorbell_begin(void)
{
	struct vmlx_doorbell_run *runs;
	unsigned int i;

	migrate_disable();
	runs = this_cpu_ptr(vmlx_doorbell_runs);
	for (i = 0; i < VMLX_DOORBELL_RUNS; i++)
		if (!cmpxchg(&runs[i].task, NULL, current))
			return &runs[i];
	migrate_enable();
	return NULL;
}

static void vmlx_doorbell_end(struct vmlx_doorbell_run *run)
{
	WRITE_ONCE(run->task, NULL);
	migrate_enable();
}

/* The handoff slot of the run the current task is in, or NULL. */
static struct vmlx_qp **vmlx_run_handoff(void)
{
	struct work_struct *work = current_work();
	struct vmlx_doorbell_run *runs;
	unsigned int i;

	if (!in_task())
		return NULL;
	if (work && work->func == vmlx_qp_work)
		return &container_of(work, struct vmlx_qp, work)->handoff;
	/* a task that claimed a slot does not migrate until it lets it go */
	runs = raw_cpu_ptr(vmlx_doorbell_runs);
	for (i = 0; i < VMLX_DOORBELL_RUNS; i++)
		if (READ_ONCE(runs[i].task) == current)
			return &runs[i].handoff;
	return NULL;
}

/**
 * vmlx_qp_hand_off() - let the running thread run a QP that a packet of
 *	its own was just queued for
 * @qp: the QP the packet is for, referenced by the caller
 *
 * A packet sent from a QP's work item (or its doorbell) goes to its
 * destination's queue; waking the destination's work item costs more
 * than the packet's handling (Documentation/performance.rst).  Instead
 * the sending thread, once it has let go of its own QP, runs the
 * destination itself if that QP's lock is free (vmlx_qp_run_handoffs()),
 * one destination per run.  The reference taken here keeps @qp until
 * that run is over.
 *
 * Context: the fabric's delivery, in any context.
 * Return: true if the running thread will run @qp.
 */
static bool vmlx_qp_hand_off(struct vmlx_qp *qp)
{
	struct vmlx_qp **slot;

	if (!READ_ONCE(handoff))
		return false;
	/* many packets waiting: the QP's own worker takes them in parallel */
	if (skb_queue_len(&qp->rx_queue) > VMLX_QP_HANDOFF_MAX)
		return false;
	slot = vmlx_run_handoff();
	if (!slot)
		return false;
	if (*slot)
		return *slot == qp;
	refcount_inc(&qp->refs);
	*slot = qp;
	return true;
}

/* The doorbell of a user QP, whose WQEs were fetched: qp->lock held. */
static void vmlx_qp_doorbell_run(struct vmlx_qp *qp)
{
	unsigned int budget = VMLX_DOORBELL_BUDGET;
	struct vmlx_doorbell_run *run = NULL;

	if (READ_ONCE(handoff))
		run = vmlx_doorbell_begin();
	if (!run) {
		mutex_unlock(&qp->lock);
		vmlx_qp_kick(qp);
		return;
	}
	vmlx_qp_process(qp, &budget);
	mutex_unlock(&qp->lock);
	if (!budget)
		vmlx_qp_kick(qp);
	vmlx_qp_run_handoffs(&run->handoff, budget);
	vmlx_doorbell_end(run);
}

/* ------------------------------------------------------------------ */
/* Creation and destruction                                            */
/* ------------------------------------------------------------------ */

/* A queue size create_qp asks for, within the HCA's limit or refused. */
static bool vmlx_qp_cap_ok(struct ib_device *ibdev, const char *name, u32 val,
			   u32 max)
{
	if (val <= max)
		return true;
	vmlx_dbg_refusal(ibdev, "create_qp: %s %u > %u\n", name, val, max);
	return false;
}

static int vmlx_qp_check_init(struct vmlx_dev *vdev,
			      struct ib_qp_init_attr *init, bool user)
{
	struct ib_qp_cap *cap = &init->cap;
	struct ib_device *ibdev = &vdev->ibdev;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (user) {
			vmlx_dbg_refusal(ibdev, "create_qp: type %d is the kernel's\n",
					 init->qp_type);
			return -EINVAL;
		}
		if (!rdma_is_port_valid(ibdev, init->port_num)) {
			vmlx_dbg_refusal(ibdev, "create_qp: type %d on port %u\n",
					 init->qp_type, init->port_num);
			return -EINVAL;
		}
		break;
	default:
		vmlx_dbg_refusal(ibdev, "create_qp: type %d not supported\n",
				 init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags) {
		vmlx_dbg_refusal(ibdev, "create_qp: create_flags 0x%x\n",
				 init->create_flags);
		return -EOPNOTSUPP;
	}
	if (!init->send_cq || !init->recv_cq) {
		vmlx_dbg_refusal(ibdev, "create_qp: a CQ is missing\n");
		return -EINVAL;
	}
	if (!vmlx_qp_cap_ok(ibdev, "max_send_wr", cap->max_send_wr,
			    VMLX_MAX_QP_WR) ||
	    !vmlx_qp_cap_ok(ibdev, "max_send_sge", cap->max_send_sge,
			    VMLX_MAX_SGE) ||
	    !vmlx_qp_cap_ok(ibdev, "max_inline_data", cap->max_inline_data,
			    VMLX_MAX_INLINE))
		return -EINVAL;
	if (!init->srq &&
	    (!vmlx_qp_cap_ok(ibdev, "max_recv_wr", cap->max_recv_wr,
			     VMLX_MAX_QP_WR) ||
	     !vmlx_qp_cap_ok(ibdev, "max_recv_sge", cap->max_recv_sge,
			     VMLX_MAX_SGE)))
		return -EINVAL;
	return 0;
}

static int vmlx_sq_init(struct vmlx_sq *sq, struct ib_qp_cap *cap, gfp_t gfp)
{
	u32 sge = max_t(u32, cap->max_send_sge, 1);
	size_t room = max_t(size_t, sge * sizeof(struct rxe_sge),
			    cap->max_inline_data);
	u32 num = max_t(u32, cap->max_send_wr, 1);
	int ret;

	ret = vmlx_queue_init(&sq->q, &num,
			      sizeof(struct rxe_send_wqe) + room, gfp);
	if (ret)
		return ret;
	sq->shadow = __vmalloc(sq->q.buf_size - sizeof(*sq->q.buf),
			       gfp | __GFP_ZERO);
	if (!sq->shadow) {
		vmlx_queue_cleanup(&sq->q);
		return -ENOMEM;
	}
	spin_lock_init(&sq->lock);
	/* the slot may have room for more than asked: report what fits */
	room = vmlx_queue_elem_size(&sq->q) - sizeof(struct rxe_send_wqe);
	sq->max_wr = num;
	sq->max_sge = min_t(u32, room / sizeof(struct rxe_sge), VMLX_MAX_SGE);
	sq->max_inline = min_t(u32, room, VMLX_MAX_INLINE);
	cap->max_send_wr = num;
	cap->max_send_sge = sq->max_sge;
	cap->max_inline_data = sq->max_inline;
	return 0;
}

static void vmlx_sq_cleanup(struct vmlx_sq *sq)
{
	vfree(sq->shadow);
	vmlx_queue_cleanup(&sq->q);
}

static int vmlx_qp_publish(struct vmlx_qp *qp, struct ib_qp_init_attr *init)
{
	struct vmlx_dev *vdev = qp->vdev;
	struct vmlx_port *port;
	struct vmlx_qp **slot;
	u32 qpn;
	int ret;

	if (init->qp_type == IB_QPT_SMI || init->qp_type == IB_QPT_GSI) {
		port = vmlx_port(vdev, init->port_num);
		slot = init->qp_type == IB_QPT_SMI ? &port->qp0 : &port->qp1;
		qpn = init->qp_type == IB_QPT_SMI ? 0 : 1;
		qp->ibqp.qp_num = qpn;
		ret = 0;
		xa_lock(&vdev->qps);
		if (*slot)
			ret = -EBUSY;
		else
			*slot = qp;
		xa_unlock(&vdev->qps);
		return ret;
	}
	ret = xa_alloc_cyclic(&vdev->qps, &qpn, qp,
			      XA_LIMIT(VMLX_QPN_MIN, VMLX_QPN_MAX),
			      &vdev->next_qpn, GFP_KERNEL);
	if (ret < 0)
		return ret;
	qp->ibqp.qp_num = qpn;
	return 0;
}

static void vmlx_qp_unpublish(struct vmlx_qp *qp)
{
	struct xarray *qps = &qp->vdev->qps;
	struct vmlx_port *port;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		port = vmlx_port(qp->vdev, qp->attr.port_num);
		xa_lock(qps);
		if (port->qp0 == qp)
			port->qp0 = NULL;
		if (port->qp1 == qp)
			port->qp1 = NULL;
		xa_unlock(qps);
		break;
	default:
		xa_erase(qps, qp->ibqp.qp_num);
		break;
	}
}

/* Offer a user QP's rings to its process and say where they are. */
static int vmlx_qp_share(struct vmlx_qp *qp, struct ib_udata *udata)
{
	struct rxe_create_qp_resp resp = {};
	int ret;

	if (udata->outlen < sizeof(resp)) {
		vmlx_dbg_refusal(qp->ibqp.device,
				 "create_qp: response room %zu below %zu\n",
				 udata->outlen, sizeof(resp));
		return -EINVAL;
	}
	ret = vmlx_queue_share(&qp->sq.q, qp->vdev, &resp.sq_mi);
	if (ret)
		return ret;
	/* with an SRQ, rq_mi stays empty: librxe does not map it */
	if (!qp->srq) {
		ret = vmlx_queue_share(&qp->rq.q, qp->vdev, &resp.rq_mi);
		if (ret)
			return ret;
	}
	if (copy_to_user(udata->outbuf, &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

/**
 * vmlx_create_qp() - the create_qp verb
 * @ibqp: the QP the core allocated
 * @init: its attributes; the capabilities are updated to what was made
 * @udata: for a user QP, where struct rxe_create_qp_resp goes; NULL for
 *	a kernel QP
 *
 * Return: 0 or a negative errno.
 */
int vmlx_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		   struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(ibqp->device);
	struct vmlx_qp *qp = to_vqp(ibqp);
	int ret;

	ret = vmlx_qp_check_init(vdev, init, !!udata);
	if (ret)
		return ret;
	if (atomic_inc_return(&vdev->num_qps) > VMLX_MAX_QP) {
		ret = -ENOMEM;
		goto err_count;
	}

	qp->vdev = vdev;
	mutex_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_vcq(init->send_cq);
	qp->rcq = to_vcq(init->recv_cq);
	qp->srq = init->srq ? to_vsrq(init->srq) : NULL;
	qp->attr.port_num = init->port_num ? init->port_num : 1;
	qp->attr.path_mtu = IB_MTU_256;
	qp->mtu = 256;
	qp->av.port_num = qp->attr.port_num;
	skb_queue_head_init(&qp->rx_queue);
	INIT_WORK(&qp->work, vmlx_qp_work);
	refcount_set(&qp->refs, 1);
	init_completion(&qp->released);
	INIT_LIST_HEAD(&qp->mcast_list);
	vmlx_comp_init(qp);

	ret = vmlx_sq_init(&qp->sq, &init->cap, vmlx_gfp(udata));
	if (ret)
		goto err_count;
	if (!qp->srq) {
		ret = vmlx_rq_init(&qp->rq, &init->cap.max_recv_wr,
				   &init->cap.max_recv_sge, vmlx_gfp(udata));
		if (ret)
			goto err_sq;
	}
	if (udata) {
		ret = vmlx_qp_share(qp, udata);
		if (ret)
			goto err_rq;
	}
	ret = vmlx_resp_init(qp, vmlx_gfp(udata));
	if (ret)
		goto err_rq;
	ret = vmlx_qp_publish(qp, init);
	if (ret)
		goto err_resp;
	return 0;

err_resp:
	vmlx_resp_cleanup(qp);
err_rq:
	if (!qp->srq)
		vmlx_rq_cleanup(&qp->rq);
err_sq:
	vmlx_sq_cleanup(&qp->sq);
err_count:
	atomic_dec(&vdev->num_qps);
	return ret;
}

/**
 * vmlx_destroy_qp() - the destroy_qp verb
 * @ibqp: the QP
 * @udata: user data, unused
 *
 * Return: 0.
 */
int vmlx_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vmlx_qp *qp = to_vqp(ibqp);

	mutex_lock(&qp->lock);
	vmlx_req_send_posted(qp);
	WRITE_ONCE(qp->dying, true);
	mutex_unlock(&qp->lock);

	vmlx_mcast_detach_qp(qp);
	vmlx_qp_unpublish(qp);
	vmlx_qp_put(qp);
	wait_for_completion(&qp->released);

	/*
	 * One round stops both for good, timers first.  Only the work item
	 * arms the timers, under qp->lock and only while the QP is not
	 * dying: a run that began before dying was set ended its locked
	 * part before we took the lock above, and every later run stops at
	 * once, arming nothing and with its budget whole, so not re-queueing
	 * itself either.  So once vmlx_comp_stop() has waited for the
	 * callbacks, no timer fires again; the work they, packets or that
	 * earlier run queued meanwhile is then cancelled, or waited for, by
	 * cancel_work_sync(), and nothing is left to queue it again: packet
	 * delivery let go of the QP before @released, and vmlx_qp_kick()
	 * queues nothing for a dying QP.
	 */
	vmlx_comp_stop(qp);
	cancel_work_sync(&qp->work);

	skb_queue_purge(&qp->rx_queue);
	vmlx_resp_cleanup(qp);
	if (!qp->srq)
		vmlx_rq_cleanup(&qp->rq);
	vmlx_sq_cleanup(&qp->sq);
	atomic_dec(&qp->vdev->num_qps);
	return 0;
}

/* ------------------------------------------------------------------ */
/* State changes                                                       */
/* ------------------------------------------------------------------ */

/* Empty both queues without completions: the QP goes back to RESET. */
static void vmlx_qp_reset(struct vmlx_qp *qp)
{
	unsigned long flags;

	vmlx_comp_stop(qp);
	skb_queue_purge(&qp->rx_queue);

	vmlx_queue_consume_all(&qp->sq.q);
	qp->req.next = qp->sq.q.index;
	qp->req.fetched = qp->sq.q.index;
	qp->req.rd_atomic = 0;
	qp->req.flush_left = 0;

	if (!qp->srq) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		vmlx_queue_consume_all(&qp->rq.q);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
	}
	qp->state = IB_QPS_RESET;
	vmlx_resp_reset(qp);
}

static int vmlx_qp_check_attr(struct vmlx_qp *qp, struct ib_qp_attr *attr,
			      int mask)
{
	struct rdma_ah_attr *ah = &attr->ah_attr;
	struct ib_device *ibdev = qp->ibqp.device;
	u32 qpn = qp->ibqp.qp_num;
	u32 max_recv_wr = qp->srq ? 0 : qp->rq.max_wr;

	if (mask & IB_QP_AV) {
		if (ah->type != RDMA_AH_ATTR_TYPE_IB) {
			vmlx_dbg_refusal(ibdev, "modify_qp: QP %u: address type %d, not IB\n",
					 qpn, ah->type);
			return -EINVAL;
		}
		if (ah->ah_flags & IB_AH_GRH &&
		    ah->grh.sgid_index >= VMLX_GID_TBL_LEN) {
			vmlx_dbg_refusal(ibdev, "modify_qp: QP %u: sgid_index %u >= %u\n",
					 qpn, ah->grh.sgid_index,
					 VMLX_GID_TBL_LEN);
			return -EINVAL;
		}
		if (ah->dlid > VMLX_LID_PERMISSIVE) {
			vmlx_dbg_refusal(ibdev, "modify_qp: QP %u: DLID 0x%x > 0xffff\n",
					 qpn, ah->dlid);
			return -EINVAL;
		}
	}
	if (mask & IB_QP_PKEY_INDEX && attr->pkey_index >= VMLX_PKEY_TBL_LEN) {
		vmlx_dbg_refusal(ibdev, "modify_qp: QP %u: pkey_index %u >= %u\n",
				 qpn, attr->pkey_index, VMLX_PKEY_TBL_LEN);
		return -EINVAL;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > VMLX_MAX_RD_ATOMIC) {
		vmlx_dbg_refusal(ibdev, "modify_qp: QP %u: max_rd_atomic %u > %u\n",
				 qpn, attr->max_rd_atomic, VMLX_MAX_RD_ATOMIC);
		return -EINVAL;
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > VMLX_MAX_RD_ATOMIC) {
		vmlx_dbg_refusal(ibdev,
				 "modify_qp: QP %u: max_dest_rd_atomic %u > %u\n",
				 qpn, attr->max_dest_rd_atomic,
				 VMLX_MAX_RD_ATOMIC);
		return -EINVAL;
	}
	if (mask & IB_QP_CAP &&
	    (attr->cap.max_send_wr > qp->sq.max_wr ||
	     attr->cap.max_recv_wr > max_recv_wr)) {
		vmlx_dbg_refusal(ibdev,
				 "modify_qp: QP %u: max_send_wr/max_recv_wr %u/%u > %u/%u\n",
				 qpn, attr->cap.max_send_wr,
				 attr->cap.max_recv_wr, qp->sq.max_wr,
				 max_recv_wr);
		return -EINVAL;
	}
	/* the core's view of the state can lag when the HCA moved to ERR */
	if (qp->state == IB_QPS_ERR && mask & IB_QP_STATE &&
	    attr->qp_state != IB_QPS_ERR && attr->qp_state != IB_QPS_RESET) {
		vmlx_dbg_refusal(ibdev,
				 "modify_qp: QP %u: from ERR to state %d, not RESET or ERR\n",
				 qpn, attr->qp_state);
		return -EINVAL;
	}
	return 0;
}

static void vmlx_qp_apply_attr(struct vmlx_qp *qp, struct ib_qp_attr *attr,
			       int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		vmlx_av_from_attr(&qp->av, &attr->ah_attr);
	}
	if (mask & IB_QP_PATH_MTU) {
		a->path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	/* one port per QP: the path leaves through it */
	qp->av.port_num = a->port_num;
}

static void vmlx_qp_enter(struct vmlx_qp *qp, enum ib_qp_state cur,
			  enum ib_qp_state next)
{
	switch (next) {
	case IB_QPS_RESET:
		vmlx_qp_reset(qp);
		break;
	case IB_QPS_INIT:
		qp->state = next;
		if (cur == IB_QPS_RESET)
			vmlx_resp_reset(qp);
		break;
	case IB_QPS_RTR:
		qp->state = next;
		if (cur == IB_QPS_INIT)
			vmlx_resp_reset(qp);
		break;
	case IB_QPS_RTS:
		if (cur == IB_QPS_RTR) {
			qp->req.psn = qp->attr.sq_psn;
			qp->req.sent_psn = qp->attr.sq_psn;
			qp->comp.psn = qp->attr.sq_psn;
			qp->comp.rewind_valid = false;
			qp->comp.probing = false;
		}
		qp->comp.retry_left = qp->attr.retry_cnt;
		qp->comp.rnr_left = qp->attr.rnr_retry;
		qp->state = next;
		break;
	case IB_QPS_SQD:
		qp->req.sqd_notified = false;
		qp->state = next;
		break;
	case IB_QPS_SQE:
		qp->state = next;
		break;
	case IB_QPS_ERR:
		vmlx_qp_error(qp);
		/*
		 * The consumer may destroy the QP as soon as Last WQE
		 * Reached is in: flush the held SRQ WQE now, not in the
		 * work item that the destroy could cancel.
		 */
		if (qp->srq)
			vmlx_resp_srq_drained(qp);
		break;
	}
}

/**
 * vmlx_modify_qp() - the modify_qp verb
 * @ibqp: the QP
 * @attr: the new attributes
 * @mask: which of them apply
 * @udata: user data, unused
 *
 * The core has checked the transition and the ranges against the IBA; this
 * checks what depends on the HCA and applies them.
 *
 * Return: 0 or -EINVAL.
 */
int vmlx_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct vmlx_qp *qp = to_vqp(ibqp);
	enum ib_qp_state cur, next;
	int ret;

	mutex_lock(&qp->lock);
	ret = vmlx_qp_check_attr(qp, attr, mask);
	if (ret)
		goto out;
	cur = qp->state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	vmlx_qp_apply_attr(qp, attr, mask);
	if (next != cur || next == IB_QPS_RESET)
		vmlx_qp_enter(qp, cur, next);
	vmlx_qp_kick(qp);
out:
	mutex_unlock(&qp->lock);
	return ret;
}

/**
 * vmlx_query_qp() - the query_qp verb
 * @ibqp: the QP
 * @attr: filled in
 * @mask: attributes asked for (all are filled in)
 * @init: filled in with the creation attributes
 *
 * Return: 0.
 */
int vmlx_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init)
{
	struct vmlx_qp *qp = to_vqp(ibqp);

	mutex_lock(&qp->lock);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_draining = qp->state == IB_QPS_SQD &&
			    qp->sq.q.index != qp->req.next;
	mutex_unlock(&qp->lock);

	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.max_wr;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq.max_sge;

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = qp->attr.port_num;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Posting                                                             */
/* ------------------------------------------------------------------ */

static bool vmlx_wr_allowed(struct vmlx_qp *qp, enum ib_wr_opcode opcode)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		switch (opcode) {
		case IB_WR_SEND:
		case IB_WR_SEND_WITH_IMM:
		case IB_WR_SEND_WITH_INV:
		case IB_WR_RDMA_WRITE:
		case IB_WR_RDMA_WRITE_WITH_IMM:
		case IB_WR_RDMA_READ:
		case IB_WR_ATOMIC_CMP_AND_SWP:
		case IB_WR_ATOMIC_FETCH_AND_ADD:
		case IB_WR_LOCAL_INV:
		case IB_WR_REG_MR:
			return true;
		default:
			return false;
		}
	case IB_QPT_UC:
		switch (opcode) {
		case IB_WR_SEND:
		case IB_WR_SEND_WITH_IMM:
		case IB_WR_RDMA_WRITE:
		case IB_WR_RDMA_WRITE_WITH_IMM:
		case IB_WR_LOCAL_INV:
		case IB_WR_REG_MR:
			return true;
		default:
			return false;
		}
	default:
		return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM;
	}
}

/* Turn one kernel send WR into a WQE in the ring's next slot. */
static int vmlx_wr_to_wqe(struct vmlx_qp *qp, const struct ib_send_wr *wr,
			  struct rxe_send_wqe *wqe)
{
	struct ib_device *ibdev = qp->ibqp.device;
	struct rxe_send_wr *w = &wqe->wr;
	u32 qpn = qp->ibqp.qp_num;
	u64 length = 0;
	int i;

	if (!vmlx_wr_allowed(qp, wr->opcode)) {
		vmlx_dbg_refusal(ibdev, "post_send: QP %u: opcode %d on QP type %d\n",
				 qpn, wr->opcode, qp->ibqp.qp_type);
		return -EINVAL;
	}
	if (wr->num_sge < 0 ||
	    (!(wr->send_flags & IB_SEND_INLINE) &&
	     wr->num_sge > qp->sq.max_sge)) {
		vmlx_dbg_refusal(ibdev, "post_send: QP %u: num_sge %d, not 0..%u\n",
				 qpn, wr->num_sge, qp->sq.max_sge);
		return -EINVAL;
	}

	memset(wqe, 0, sizeof(*wqe));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags;
	w->ex.imm_data = wr->ex.imm_data;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		w->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		w->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.atomic.swap = atomic_wr(wr)->swap;
		w->wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->iova = atomic_wr(wr)->remote_addr;
		break;
	case IB_WR_REG_MR:
		w->wr.reg.mr = reg_wr(wr)->mr;
		w->wr.reg.key = reg_wr(wr)->key;
		w->wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
	if (vmlx_qp_is_ud(qp)) {
		if (!ud_wr(wr)->ah) {
			vmlx_dbg_refusal(ibdev, "post_send: QP %u: UD WR without an AH\n",
					 qpn);
			return -EINVAL;
		}
		w->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		w->wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		w->wr.ud.ah_num = to_vah(ud_wr(wr)->ah)->ah_num;
	}

	if (wr->send_flags & IB_SEND_INLINE &&
	    (wr->opcode == IB_WR_SEND || wr->opcode == IB_WR_SEND_WITH_IMM ||
	     wr->opcode == IB_WR_RDMA_WRITE ||
	     wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)) {
		u8 *p = wqe->dma.inline_data;

		for (i = 0; i < wr->num_sge; i++)
			length += wr->sg_list[i].length;
		if (length > qp->sq.max_inline) {
			vmlx_dbg_refusal(ibdev, "post_send: QP %u: %llu inline bytes > %u\n",
					 qpn, length, qp->sq.max_inline);
			return -EINVAL;
		}
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		w->send_flags &= ~IB_SEND_INLINE;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			length += wr->sg_list[i].length;
		}
		wqe->dma.num_sge = wr->num_sge;
	}
	if (wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		/* the original value lands in the first 8 bytes */
		if (wr->num_sge != 1 || wr->sg_list[0].length < 8) {
			vmlx_dbg_refusal(ibdev,
					 "post_send: QP %u: atomic WR needs one SGE of 8 bytes or more\n",
					 qpn);
			return -EINVAL;
		}
		length = 8;
	}
	if (length > VMLX_MAX_MSG_SIZE) {
		vmlx_dbg_refusal(ibdev, "post_send: QP %u: message of %llu bytes > %lu\n",
				 qpn, length, VMLX_MAX_MSG_SIZE);
		return -EINVAL;
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	return 0;
}

/**
 * vmlx_post_send() - the post_send verb
 * @ibqp: the QP
 * @wr: the chain of WRs; for a user QP, NULL: the doorbell
 * @bad_wr: set to the first WR not posted
 *
 * Return: 0, -EINVAL for a bad WR or a QP that cannot send yet (RESET,
 * INIT, RTR: also the doorbell of a user QP, as in Linux's drivers), or
 * WRs for a user QP, whose WQEs are in its ring; -ENOMEM when the send
 * queue is full.
 */
int vmlx_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct vmlx_qp *qp = to_vqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int ret = 0;

	/* a QP sends from RTS on; in ERR what is posted is flushed */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		vmlx_dbg_refusal(ibqp->device, "post_send: QP %u: state %d, before RTS\n",
				 ibqp->qp_num, state);
		*bad_wr = wr;
		return -EINVAL;
	}
	if (vmlx_queue_is_user(&qp->sq.q)) {
		if (wr) {
			vmlx_dbg_refusal(ibqp->device,
					 "post_send: QP %u: WRs for a user QP, not its ring\n",
					 ibqp->qp_num);
			*bad_wr = wr;
			return -EINVAL;
		}
		/*
		 * The HCA reads what was posted at the doorbell: a process
		 * may free the AHs and the ring's WQEs right after it
		 */
		mutex_lock(&qp->lock);
		while (!qp->dying && vmlx_sq_fetch(qp))
			;
		vmlx_qp_doorbell_run(qp);
		return 0;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		if (vmlx_queue_post_full(&qp->sq.q)) {
			ret = -ENOMEM;
			break;
		}
		ret = vmlx_wr_to_wqe(qp, wr, vmlx_queue_post_slot(&qp->sq.q));
		if (ret)
			break;
		vmlx_queue_post_commit(&qp->sq.q);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (ret)
		*bad_wr = wr;
	vmlx_qp_kick(qp);
	return ret;
}

/**
 * vmlx_post_recv() - the post_recv verb
 * @ibqp: the QP
 * @wr: the chain of WRs; for a user QP, NULL (the responder reads the
 *	ring when a message comes)
 * @bad_wr: set to the first WR not posted
 *
 * Return: 0, -EINVAL for a bad WR, a QP with an SRQ or in RESET (or WRs
 * for a user QP), -ENOMEM when the receive queue is full.
 */
int vmlx_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct vmlx_qp *qp = to_vqp(ibqp);
	int ret;

	if (vmlx_queue_is_user(&qp->sq.q)) {
		if (wr) {
			vmlx_dbg_refusal(ibqp->device,
					 "post_recv: QP %u: WRs for a user QP, not its ring\n",
					 ibqp->qp_num);
			*bad_wr = wr;
			return -EINVAL;
		}
		/* in ERR, what was posted is flushed */
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			vmlx_qp_kick(qp);
		return 0;
	}

	if (qp->srq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		vmlx_dbg_refusal(ibqp->device, "post_recv: QP %u: %s\n",
				 ibqp->qp_num,
				 qp->srq ? "it has an SRQ" : "in RESET");
		*bad_wr = wr;
		return -EINVAL;
	}
	ret = vmlx_rq_post(&qp->rq, wr, bad_wr);
	if (ret == -EINVAL)
		vmlx_dbg_refusal(ibqp->device, "post_recv: QP %u: num_sge %d, not 0..%u\n",
				 ibqp->qp_num, (*bad_wr)->num_sge,
				 qp->rq.max_sge);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		vmlx_qp_kick(qp);
	return ret;
}
