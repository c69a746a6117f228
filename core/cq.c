// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues that the core polls for its users: ib_alloc_cq()
 * users give every work request an ib_cqe and are called back through it,
 * from softirq context, a work queue, or their own ib_process_cq_direct().
 */
#include <linux/list.h>
#include <linux/irq_poll.h>
#include <linux/slab.h>

#include "core_priv.h"

/* Completions taken from the driver per poll call. */
#define IB_POLL_BATCH			16
/* Completions handled per softirq run before yielding. */
#define IB_POLL_BUDGET_IRQ		256
/* Completions handled per work item run before requeueing. */
#define IB_POLL_BUDGET_WORKQUEUE	65536

/*
 * Handle up to @budget completions (all of them for a negative budget).
 * Returns how many were handled.
 */
static int ib_process_cq(struct ib_cq *cq, int budget, struct ib_wc *wcs,
			 int batch)
{
	int i, n, completed = 0;

	while (budget < 0 || completed < budget) {
		int want = batch;

		if (budget >= 0)
			want = min(batch, budget - completed);
		n = ib_poll_cq(cq, want, wcs);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &wcs[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(cq, wc);
			else
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		completed += n;
		if (n != want)
			break;
	}
	return completed;
}

/**
 * ib_process_cq_direct - handle completions of an IB_POLL_DIRECT queue
 * @cq: the CQ, from ib_alloc_cq() with IB_POLL_DIRECT
 * @budget: the most completions to handle, or -1 for all that are there
 *
 * Calls the done callback of each completion's ib_cqe, in the caller's
 * context.
 *
 * Return: the number of completions handled.
 */
int ib_process_cq_direct(struct ib_cq *cq, int budget)
{
	struct ib_wc wcs[IB_POLL_BATCH];

	WARN_ON_ONCE(cq->poll_ctx != IB_POLL_DIRECT);
	return ib_process_cq(cq, budget, wcs, IB_POLL_BATCH);
}
EXPORT_SYMBOL(ib_process_cq_direct);

static void ib_cq_completion_direct(struct ib_cq *cq, void *private)
{
	WARN_ONCE(1, "got unsolicited completion for CQ 0x%p\n", cq);
}

static int ib_poll_handler(struct irq_poll *iop, int budget)
{
	struct ib_cq *cq = container_of(iop, struct ib_cq, iop);
	int completed;

	completed = ib_process_cq(cq, budget, cq->wc, IB_POLL_BATCH);
	if (completed < budget) {
		irq_poll_complete(&cq->iop);
		if (ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			irq_poll_sched(&cq->iop);
	}
	return completed;
}

static void ib_cq_completion_softirq(struct ib_cq *cq, void *private)
{
	irq_poll_sched(&cq->iop);
}

static void ib_cq_poll_work(struct work_struct *work)
{
	struct ib_cq *cq = container_of(work, struct ib_cq, work);
	int completed;

	completed = ib_process_cq(cq, IB_POLL_BUDGET_WORKQUEUE, cq->wc,
				  IB_POLL_BATCH);
	if (completed >= IB_POLL_BUDGET_WORKQUEUE ||
	    ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		queue_work(cq->comp_wq, &cq->work);
}

static void ib_cq_completion_workqueue(struct ib_cq *cq, void *private)
{
	queue_work(cq->comp_wq, &cq->work);
}

/**
 * __ib_alloc_cq - allocate a completion queue the core polls
 * @device: the device
 * @private: the user's context, in &ib_cq.cq_context
 * @nr_cqe: number of entries
 * @comp_vector: completion vector
 * @poll_ctx: where completions are handled
 * @caller: name of the owning module
 *
 * Use the ib_alloc_cq() wrapper.
 *
 * Return: the CQ or an ERR_PTR().
 */
struct ib_cq *__ib_alloc_cq(struct ib_device *device, void *private,
			    int nr_cqe, int comp_vector,
			    enum ib_poll_context poll_ctx, const char *caller)
{
	struct ib_cq_init_attr attr = {
		.cqe = nr_cqe,
		.comp_vector = comp_vector,
	};
	ib_comp_handler handler;
	struct ib_cq *cq;
	int ret = -ENOMEM;

	switch (poll_ctx) {
	case IB_POLL_DIRECT:
		handler = ib_cq_completion_direct;
		break;
	case IB_POLL_SOFTIRQ:
		handler = ib_cq_completion_softirq;
		break;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		handler = ib_cq_completion_workqueue;
		break;
	default:
		return ERR_PTR(-EINVAL);
	}
	if (nr_cqe <= 0 || comp_vector < 0)
		return ERR_PTR(-EINVAL);

	cq = __ib_create_cq(device, handler, NULL, private, &attr, caller);
	if (IS_ERR(cq))
		return cq;
	cq->poll_ctx = poll_ctx;

	cq->wc = kmalloc_array(IB_POLL_BATCH, sizeof(*cq->wc), GFP_KERNEL);
	if (!cq->wc)
		goto err_destroy;

	switch (poll_ctx) {
	case IB_POLL_DIRECT:
		break;
	case IB_POLL_SOFTIRQ:
		irq_poll_init(&cq->iop, IB_POLL_BUDGET_IRQ, ib_poll_handler);
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
		break;
	default:
		cq->comp_wq = poll_ctx == IB_POLL_WORKQUEUE ?
			ib_comp_wq : ib_comp_unbound_wq;
		INIT_WORK(&cq->work, ib_cq_poll_work);
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
		break;
	}
	return cq;

err_destroy:
	ib_destroy_cq(cq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(__ib_alloc_cq);

/**
 * ib_free_cq - free a completion queue from ib_alloc_cq()
 * @cq: the CQ; no QP may use it any more
 */
void ib_free_cq(struct ib_cq *cq)
{
	struct ib_wc *wc;
	int ret;

	if (WARN_ON_ONCE(atomic_read(&cq->usecnt)))
		return;

	switch (cq->poll_ctx) {
	case IB_POLL_DIRECT:
		break;
	case IB_POLL_SOFTIRQ:
		irq_poll_disable(&cq->iop);
		break;
	default:
		cancel_work_sync(&cq->work);
		break;
	}

	wc = cq->wc;
	ret = ib_destroy_cq(cq);
	if (WARN_ONCE(ret, "destroy of kernel CQ failed: %d\n", ret))
		return;
	kfree(wc);
}
EXPORT_SYMBOL(ib_free_cq);
