// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx rings: the queue buffers of send, receive and completion queues, in
 * the layout soft-RoCE shares with its user library (struct rxe_queue_buf),
 * and the receive queues built on them.
 *
 * A ring is a power-of-two number of power-of-two slots after a header
 * holding the producer and the consumer index.  Each index is written by
 * one side only, with release semantics, and read by the other with
 * acquire semantics; the kernel keeps a private copy of every index it owns
 * and never reads its own index back from the shared header.
 */
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "vmlx.h"

/**
 * vmlx_queue_init() - allocate a ring
 * @q: the ring to set up
 * @num_elem: in: entries wanted; out: entries the ring holds
 * @elem_size: bytes each entry needs
 * @gfp: GFP_KERNEL, or GFP_KERNEL_ACCOUNT for the ring of a user object
 *	(vmlx_gfp()), which is then charged to its creator's memory cgroup
 *
 * The buffer is whole zeroed pages, so that it may be mapped into a
 * process (vmlx_mmap()) without showing it anything else.
 *
 * Return: 0 or -ENOMEM.
 */
int vmlx_queue_init(struct vmlx_queue *q, u32 *num_elem, size_t elem_size,
		    gfp_t gfp)
{
	size_t slot = roundup_pow_of_two(max_t(size_t, elem_size,
					       cache_line_size()));
	u32 slots = roundup_pow_of_two(*num_elem + 1);

	memset(q, 0, sizeof(*q));
	q->buf_size = sizeof(*q->buf) + (size_t)slots * slot;
	q->buf = __vmalloc(q->buf_size, gfp | __GFP_ZERO);
	if (!q->buf)
		return -ENOMEM;
	q->log2_elem_size = ilog2(slot);
	q->mask = slots - 1;
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->mask;
	*num_elem = slots - 1;
	return 0;
}

/**
 * vmlx_queue_share() - offer a ring to the current process for mmap
 * @q: the ring, just initialised
 * @vdev: the HCA
 * @mi: filled in with where the process finds it
 *
 * From now on the ring's mmap entry owns the buffer, which lives until
 * both vmlx_queue_cleanup() and the last munmap() have happened.
 *
 * Return: 0, or a negative errno; the buffer is gone then, but
 * vmlx_queue_cleanup() may still be called.
 */
int vmlx_queue_share(struct vmlx_queue *q, struct vmlx_dev *vdev,
		     struct mminfo *mi)
{
	struct vmlx_mmap *m;

	m = vmlx_mmap_add(vdev, q->buf, q->buf_size, mi);
	if (IS_ERR(m)) {
		q->buf = NULL;
		return PTR_ERR(m);
	}
	q->mmap = m;
	return 0;
}

/**
 * vmlx_queue_cleanup() - free a ring
 * @q: the ring
 *
 * The buffer of a ring offered for mmap stays while a process maps it.
 */
void vmlx_queue_cleanup(struct vmlx_queue *q)
{
	if (q->mmap)
		vmlx_mmap_remove(q->mmap);
	else
		vfree(q->buf);
	q->mmap = NULL;
	q->buf = NULL;
}

/**
 * vmlx_rq_init() - set up a receive queue
 * @rq: the receive queue
 * @max_wr: in: WRs wanted; out: WRs it holds
 * @max_sge: in: scatter entries wanted per WR; out: entries per WR
 * @gfp: as for vmlx_queue_init()
 *
 * Return: 0, -EINVAL for sizes beyond the device's limits, or -ENOMEM.
 */
int vmlx_rq_init(struct vmlx_rq *rq, u32 *max_wr, u32 *max_sge, gfp_t gfp)
{
	u32 num = max_t(u32, *max_wr, 1);
	int ret;

	if (*max_wr > VMLX_MAX_QP_WR || *max_sge > VMLX_MAX_SGE)
		return -EINVAL;
	if (!*max_sge)
		*max_sge = 1;
	ret = vmlx_queue_init(&rq->q, &num, vmlx_recv_wqe_size(*max_sge), gfp);
	if (ret)
		return ret;
	spin_lock_init(&rq->lock);
	*max_wr = num;
	rq->max_wr = num;
	rq->max_sge = *max_sge;
	return 0;
}

/**
 * vmlx_rq_cleanup() - free a receive queue
 * @rq: the receive queue
 */
void vmlx_rq_cleanup(struct vmlx_rq *rq)
{
	vmlx_queue_cleanup(&rq->q);
}

/**
 * vmlx_rq_post() - post receive WRs from a kernel consumer
 * @rq: the receive queue
 * @wr: the chain of WRs
 * @bad_wr: set to the WR that failed
 *
 * Return: 0, -EINVAL for a WR with too many SGEs, -ENOMEM when full.
 */
int vmlx_rq_post(struct vmlx_rq *rq, const struct ib_recv_wr *wr,
		 const struct ib_recv_wr **bad_wr)
{
	struct rxe_recv_wqe *wqe;
	unsigned long flags;
	int ret = 0;
	u32 length;
	int i;

	spin_lock_irqsave(&rq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > rq->max_sge) {
			ret = -EINVAL;
			break;
		}
		if (vmlx_queue_post_full(&rq->q)) {
			ret = -ENOMEM;
			break;
		}
		wqe = vmlx_queue_post_slot(&rq->q);
		wqe->wr_id = wr->wr_id;
		length = 0;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			length += wr->sg_list[i].length;
		}
		wqe->dma.length = length;
		wqe->dma.resid = length;
		wqe->dma.num_sge = wr->num_sge;
		wqe->dma.cur_sge = 0;
		wqe->dma.sge_offset = 0;
		vmlx_queue_post_commit(&rq->q);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/**
 * vmlx_rq_pop() - take the oldest receive WQE
 * @rq: the receive queue
 * @wqe: where the WQE is copied, with room for rq->max_sge SGEs
 *
 * The copy is the one the responder works on: a user process may rewrite
 * the slot once it is consumed.  The SGE count and total length are
 * recomputed from the copy, so a bad user WQE cannot mislead the
 * responder.
 *
 * Return: true if there was one.
 */
bool vmlx_rq_pop(struct vmlx_rq *rq, struct rxe_recv_wqe *wqe)
{
	unsigned long flags;
	u64 length = 0;
	u32 i;

	spin_lock_irqsave(&rq->lock, flags);
	if (vmlx_queue_empty(&rq->q)) {
		spin_unlock_irqrestore(&rq->lock, flags);
		return false;
	}
	memcpy(wqe, vmlx_queue_slot(&rq->q, rq->q.index),
	       vmlx_recv_wqe_size(rq->max_sge));
	vmlx_queue_consume(&rq->q);
	spin_unlock_irqrestore(&rq->lock, flags);

	wqe->dma.num_sge = min(wqe->dma.num_sge, rq->max_sge);
	for (i = 0; i < wqe->dma.num_sge; i++)
		length += wqe->dma.sge[i].length;
	wqe->dma.length = min_t(u64, length, VMLX_MAX_MSG_SIZE);
	wqe->dma.resid = wqe->dma.length;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	return true;
}

/**
 * vmlx_rq_count() - receive WQEs posted and not yet taken
 * @rq: the receive queue
 *
 * Return: the count.
 */
u32 vmlx_rq_count(struct vmlx_rq *rq)
{
	return (vmlx_queue_producer(&rq->q) - rq->q.index) & rq->q.mask;
}
