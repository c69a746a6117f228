// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx completion queues.
 *
 * A CQ is a ring in the soft-RoCE layout.  The transport fills it with
 * vmlx_cq_post() from any QP's work; kernel users drain it with poll_cq,
 * which may run in softirq context (ib_alloc_cq() with IB_POLL_SOFTIRQ),
 * so the CQ's lock is taken with interrupts off.  Only kernel CQs exist so
 * far; their slots hold struct ib_wc, and are sized for struct
 * ib_uverbs_wc as well so that user CQs can share the ring code later.
 */
#include <linux/minmax.h>
#include <rdma/ib_user_verbs.h>

#include "vmlx.h"

int vmlx_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(ibcq->device);
	struct vmlx_cq *cq = to_vcq(ibcq);
	u32 cqe = attr->cqe;
	int ret;

	/* user CQs come with uverbs */
	if (udata)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > VMLX_MAX_CQE)
		return -EINVAL;
	if (!atomic_add_unless(&vdev->num_cqs, 1, VMLX_MAX_CQ))
		return -ENOMEM;

	ret = vmlx_queue_init(&cq->q, &cqe,
			      max(sizeof(struct ib_wc),
				  sizeof(struct ib_uverbs_wc)));
	if (ret)
		goto err_count;
	spin_lock_init(&cq->lock);
	cq->notify = 0;
	cq->overflow = false;
	ibcq->cqe = cqe;
	return 0;

err_count:
	atomic_dec(&vdev->num_cqs);
	return ret;
}

int vmlx_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct vmlx_cq *cq = to_vcq(ibcq);

	vmlx_queue_cleanup(&cq->q);
	atomic_dec(&to_vmlx(ibcq->device)->num_cqs);
	return 0;
}

/**
 * vmlx_cq_post() - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion
 * @solicited: it completes a receive of a message with the solicited
 *	event bit set
 *
 * Calls the CQ's completion handler if the CQ was armed for this
 * completion (disarming it), after dropping the CQ's lock.  When the CQ is
 * full, the completion is lost, the CQ is marked overflowed and, the first
 * time, its event handler hears of IB_EVENT_CQ_ERR.
 *
 * Context: any; callers hold no spinlock the handlers may take.
 * Return: 0, or -ENOSPC if the CQ is full.
 */
int vmlx_cq_post(struct vmlx_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	unsigned long flags;
	bool first_overflow;
	bool notify;

	spin_lock_irqsave(&cq->lock, flags);
	if (vmlx_queue_fill_full(&cq->q)) {
		first_overflow = !cq->overflow;
		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);

		if (first_overflow && ibcq->event_handler) {
			struct ib_event ev = {
				.device = ibcq->device,
				.element.cq = ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			ibcq->event_handler(&ev, ibcq->cq_context);
		}
		return -ENOSPC;
	}

	memcpy(vmlx_queue_slot(&cq->q, cq->q.index), wc, sizeof(*wc));
	vmlx_queue_fill_commit(&cq->q);

	notify = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED && solicited);
	if (notify)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	return 0;
}

int vmlx_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vmlx_cq *cq = to_vcq(ibcq);
	struct vmlx_queue *q = &cq->q;
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		/* q.index: producer (the HCA); q.peer_index: the poller */
		if (q->peer_index == q->index)
			break;
		memcpy(&wc[n], vmlx_queue_slot(q, q->peer_index),
		       sizeof(*wc));
		q->peer_index = (q->peer_index + 1) & q->mask;
		/* the slot is read before the producer may reuse it */
		smp_store_release(&q->buf->consumer_index, q->peer_index);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int vmlx_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct vmlx_cq *cq = to_vcq(ibcq);
	unsigned long irqflags;
	int ret = 0;
	u8 arm = 0;

	if (flags & IB_CQ_NEXT_COMP)
		arm = IB_CQ_NEXT_COMP;
	else if (flags & IB_CQ_SOLICITED)
		arm = IB_CQ_SOLICITED;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* armed for every completion stays so when asked for solicited ones */
	if (arm && cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = arm;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    cq->q.peer_index != cq->q.index)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
