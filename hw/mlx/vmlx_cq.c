// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx completion queues.
 *
 * A CQ is a ring in the soft-RoCE layout.  The transport fills it with
 * vmlx_cq_post() from any QP's work; kernel users drain it with poll_cq,
 * which may run in softirq context (ib_alloc_cq() with IB_POLL_SOFTIRQ),
 * so the CQ's lock is taken with interrupts off.  The slots of a kernel
 * CQ hold struct ib_wc; those of a user CQ, sized the same, hold struct
 * ib_uverbs_wc, which librxe copies out.  A user CQ's ring is mapped into
 * the process, which owns the consumer index: the HCA reads it with
 * acquire, masked, and only to know whether a slot is free.
 */
#include <linux/bottom_half.h>
#include <linux/minmax.h>
#include <linux/uaccess.h>
#include <rdma/ib_user_verbs.h>

#include "vmlx.h"

/* wc_flags of struct ib_uverbs_wc, as libibverbs defines them */
#define VMLX_UWC_GRH		BIT(0)
#define VMLX_UWC_WITH_IMM	BIT(1)
#define VMLX_UWC_IP_CSUM_OK	BIT(2)
#define VMLX_UWC_WITH_INV	BIT(3)

int vmlx_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(ibcq->device);
	struct vmlx_cq *cq = to_vcq(ibcq);
	u32 cqe = attr->cqe;
	int ret;

	if (attr->flags) {
		vmlx_dbg_refusal(ibcq->device, "create_cq: flags 0x%x\n",
				 attr->flags);
		return -EOPNOTSUPP;
	}
	if (cqe < 1 || cqe > VMLX_MAX_CQE) {
		vmlx_dbg_refusal(ibcq->device, "create_cq: cqe %u, not 1..%u\n",
				 cqe, VMLX_MAX_CQE);
		return -EINVAL;
	}
	if (!atomic_add_unless(&vdev->num_cqs, 1, VMLX_MAX_CQ))
		return -ENOMEM;

	ret = vmlx_queue_init(&cq->q, &cqe,
			      max(sizeof(struct ib_wc),
				  sizeof(struct ib_uverbs_wc)),
			      vmlx_gfp(udata));
	if (ret)
		goto err_count;
	if (udata) {
		struct rxe_create_cq_resp resp = {};

		if (udata->outlen < sizeof(resp)) {
			vmlx_dbg_refusal(ibcq->device,
					 "create_cq: response room %zu below %zu\n",
					 udata->outlen, sizeof(resp));
			ret = -EINVAL;
			goto err_queue;
		}
		ret = vmlx_queue_share(&cq->q, vdev, &resp.mi);
		if (ret)
			goto err_queue;
		if (copy_to_user(udata->outbuf, &resp, sizeof(resp))) {
			ret = -EFAULT;
			goto err_queue;
		}
	}
	spin_lock_init(&cq->lock);
	cq->notify = 0;
	cq->overflow = false;
	ibcq->cqe = cqe;
	return 0;

err_queue:
	vmlx_queue_cleanup(&cq->q);
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

/* A completion in the layout of a user CQ's slots. */
static void vmlx_cq_write_user(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	u32 flags = 0;

	if (wc->wc_flags & IB_WC_GRH)
		flags |= VMLX_UWC_GRH;
	if (wc->wc_flags & IB_WC_WITH_IMM)
		flags |= VMLX_UWC_WITH_IMM;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		flags |= VMLX_UWC_WITH_INV;
	if (wc->wc_flags & IB_WC_IP_CSUM_OK)
		flags |= VMLX_UWC_IP_CSUM_OK;

	/* every byte is written: the slot may hold an older completion */
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	/* imm_data and invalidate_rkey share the word, in both layouts */
	uwc->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	uwc->qp_num = wc->qp ? wc->qp->qp_num : 0;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = flags;
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

/**
 * vmlx_cq_post() - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion
 * @solicited: it completes a receive of a message with the solicited
 *	event bit set
 *
 * Calls the CQ's completion handler if the CQ was armed for this
 * completion (disarming it), after dropping the CQ's lock, with bottom
 * halves disabled: a handler may expect the interrupt context of a real
 * HCA's (it may take, without _bh, a lock its softirq takes too), and
 * the softirq it raises (NAPI) then runs as soon as it returns, here,
 * instead of waiting for ksoftirqd.  When the CQ is
 * full, the completion is lost, the CQ is marked overflowed and, the first
 * time, its event handler hears of IB_EVENT_CQ_ERR.
 *
 * Context: process or softirq, hard interrupts enabled; callers hold no
 * spinlock the handlers may take.
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

	if (vmlx_queue_is_user(&cq->q))
		vmlx_cq_write_user(vmlx_queue_slot(&cq->q, cq->q.index), wc);
	else
		memcpy(vmlx_queue_slot(&cq->q, cq->q.index), wc, sizeof(*wc));
	vmlx_queue_fill_commit(&cq->q);

	notify = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED && solicited);
	if (notify)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && ibcq->comp_handler) {
		u64 start = vmlx_prof_now();

		/* the softirqs it raises (a NAPI poll) run at the enable */
		local_bh_disable();
		ibcq->comp_handler(ibcq, ibcq->cq_context);
		local_bh_enable();
		vmlx_prof_end(VMLX_PROF_CQ_HANDLER, start);
	}
	return 0;
}

int vmlx_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vmlx_cq *cq = to_vcq(ibcq);
	struct vmlx_queue *q = &cq->q;
	unsigned long flags;
	int n;

	/* the process polls a user CQ itself, in its own layout */
	if (vmlx_queue_is_user(q)) {
		vmlx_dbg_refusal(ibcq->device, "poll_cq: a user CQ\n");
		return -EINVAL;
	}

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
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		u32 cons = cq->q.peer_index;

		if (vmlx_queue_is_user(&cq->q))
			/* pairs with the process's release of its index */
			cons = smp_load_acquire(&cq->q.buf->consumer_index) &
			       cq->q.mask;
		if (cons != cq->q.index)
			ret = 1;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
