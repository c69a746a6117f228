/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx rings: struct vmlx_queue, a ring in the soft-RoCE layout that a
 * user process may share with the HCA, the inlines of its two protocols
 * (the HCA drains a SQ, RQ or SRQ that posters fill; it fills a CQ that a
 * poller drains), and the receive queue of a QP or an SRQ built on it
 * (vmlx_queue.c).
 *
 * Locking: a ring has no lock of its own.  Each end is moved under the
 * lock of the object that owns the ring: the HCA's end of a SQ under the
 * QP's mutex, the kernel posters' end under the SQ's spinlock; both ends
 * of a RQ or an SRQ under its spinlock (struct vmlx_rq below); both ends
 * of a kernel CQ under the CQ's.  The end a user process owns is the
 * process's, which the HCA only reads.  The two ends meet through the
 * shared indexes alone, with acquire and release as the inlines say.
 */
#ifndef VMLX_QUEUE_H
#define VMLX_QUEUE_H

#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct vmlx_dev;
struct vmlx_mmap;

/**
 * struct vmlx_queue - a ring in the layout of struct rxe_queue_buf
 * @buf: the header and the slots; zeroed vmalloc() pages so that a user
 *	queue can be mapped into its process
 * @buf_size: bytes of @buf
 * @log2_elem_size: log2 of the slot size
 * @mask: slots - 1
 * @index: the kernel's own index: the producer index of a queue the HCA
 *	fills (CQ), the consumer index of a queue the HCA drains (SQ, RQ,
 *	SRQ).  The copy in @buf is only ever written from it.
 * @peer_index: the index of the other end when that end is in the
 *	kernel too: the producer index of kernel posters to a SQ, RQ or
 *	SRQ, the consumer index of a kernel CQ's poller (under the owner's
 *	lock)
 * @mmap: for a ring of a user object, its mmap entry, which owns @buf;
 *	the other end's index is then written by the process, and is only
 *	ever read with acquire and masked
 *
 * The shared indexes follow the soft-RoCE protocol: stored masked, read
 * with acquire, written with release; a full ring has one free slot.
 */
struct vmlx_queue {
	struct rxe_queue_buf	*buf;
	size_t			buf_size;
	u32			log2_elem_size;
	u32			mask;
	u32			index;
	u32			peer_index;
	struct vmlx_mmap	*mmap;
};

/* vmlx_queue.c */
int vmlx_queue_init(struct vmlx_queue *q, u32 *num_elem, size_t elem_size,
		    gfp_t gfp);
int vmlx_queue_share(struct vmlx_queue *q, struct vmlx_dev *vdev,
		     struct mminfo *mi);
void vmlx_queue_cleanup(struct vmlx_queue *q);

static inline bool vmlx_queue_is_user(const struct vmlx_queue *q)
{
	return q->mmap;
}

static inline void *vmlx_queue_slot(const struct vmlx_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->mask) << q->log2_elem_size);
}

static inline size_t vmlx_queue_elem_size(const struct vmlx_queue *q)
{
	return (size_t)1 << q->log2_elem_size;
}

/* The HCA drains the queue: posters produce, the HCA consumes. */
static inline u32 vmlx_queue_producer(const struct vmlx_queue *q)
{
	/* pairs with the producer's release: the slots are written */
	return smp_load_acquire(&q->buf->producer_index) & q->mask;
}

static inline bool vmlx_queue_empty(const struct vmlx_queue *q)
{
	return vmlx_queue_producer(q) == q->index;
}

static inline void vmlx_queue_consume(struct vmlx_queue *q)
{
	q->index = (q->index + 1) & q->mask;
	/* the slot is read before the producer may reuse it */
	smp_store_release(&q->buf->consumer_index, q->index);
}

/* Consume everything posted so far, unread (a QP going to RESET). */
static inline void vmlx_queue_consume_all(struct vmlx_queue *q)
{
	q->index = vmlx_queue_producer(q);
	/* the consumer's side of the protocol, as in vmlx_queue_consume() */
	smp_store_release(&q->buf->consumer_index, q->index);
}

/* Kernel posters to a queue the HCA drains; under the owner's lock. */
static inline bool vmlx_queue_post_full(const struct vmlx_queue *q)
{
	/* pairs with the consumer's release: the slot is free to reuse */
	u32 cons = smp_load_acquire(&q->buf->consumer_index) & q->mask;

	return ((q->peer_index + 1) & q->mask) == cons;
}

static inline void *vmlx_queue_post_slot(const struct vmlx_queue *q)
{
	return vmlx_queue_slot(q, q->peer_index);
}

static inline void vmlx_queue_post_commit(struct vmlx_queue *q)
{
	q->peer_index = (q->peer_index + 1) & q->mask;
	/* the slot's contents are visible before the index moves */
	smp_store_release(&q->buf->producer_index, q->peer_index);
}

/* The HCA fills the queue (CQ): the HCA produces. */
static inline bool vmlx_queue_fill_full(const struct vmlx_queue *q)
{
	/* pairs with the consumer's release: the slot is free to reuse */
	u32 cons = smp_load_acquire(&q->buf->consumer_index) & q->mask;

	return ((q->index + 1) & q->mask) == cons;
}

static inline void vmlx_queue_fill_commit(struct vmlx_queue *q)
{
	q->index = (q->index + 1) & q->mask;
	/* the entry's contents are visible before the index moves */
	smp_store_release(&q->buf->producer_index, q->index);
}

/**
 * struct vmlx_rq - a receive queue, of a QP or of an SRQ
 * @q: the ring of struct rxe_recv_wqe
 * @lock: see below
 * @max_wr: its capacity
 * @max_sge: scatter entries per WQE
 */
struct vmlx_rq {
	struct vmlx_queue	q;
	/* protects q.peer_index (kernel posters) and q.index (consumers) */
	spinlock_t		lock;
	u32			max_wr;
	u32			max_sge;
};

/* vmlx_queue.c */
int vmlx_rq_init(struct vmlx_rq *rq, u32 *max_wr, u32 *max_sge, gfp_t gfp);
void vmlx_rq_cleanup(struct vmlx_rq *rq);
int vmlx_rq_post(struct vmlx_rq *rq, const struct ib_recv_wr *wr,
		 const struct ib_recv_wr **bad_wr);
bool vmlx_rq_pop(struct vmlx_rq *rq, struct rxe_recv_wqe *wqe);
u32 vmlx_rq_count(struct vmlx_rq *rq);

static inline size_t vmlx_recv_wqe_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

#endif /* VMLX_QUEUE_H */
