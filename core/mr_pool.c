// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MR pools (include/rdma/mr_pool.h): lists of fast-registration MRs that
 * a QP keeps ready, so that its user can take one for an I/O without
 * allocating, in any context, and put it back when the I/O is over.  The
 * RDMA READ/WRITE contexts (core/rw.c) fill &ib_qp.rdma_mrs when a kernel
 * QP is created with max_rdma_ctxs and empty it when the QP is destroyed.
 *
 * Locking: the QP's mr_lock, a spinlock taken with interrupts disabled
 * (MRs are put back from completion handlers), protects the lists and
 * &ib_qp.mrs_used.  MRs are allocated and deregistered outside it, as
 * both may sleep: filling a pool builds the new MRs on a private list and
 * splices it in at once, emptying one takes the whole list out at once
 * first.  The pool's owner serialises filling and emptying a pool
 * against each other and against the gets and puts.
 */
#include <linux/export.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <rdma/mr_pool.h>

/**
 * ib_mr_pool_get - take an MR out of a QP's pool
 * @qp: the QP
 * @list: the pool, a list head in @qp
 *
 * The MR keeps its registration state (&ib_mr.need_inval) and keys from
 * its last use.  The caller gives it back with ib_mr_pool_put().
 *
 * Context: any context.
 * Return: the MR, or NULL if the pool is empty.
 */
struct ib_mr *ib_mr_pool_get(struct ib_qp *qp, struct list_head *list)
{
	unsigned long flags;
	struct ib_mr *mr;

	spin_lock_irqsave(&qp->mr_lock, flags);
	mr = list_first_entry_or_null(list, struct ib_mr, qp_entry);
	if (mr) {
		list_del(&mr->qp_entry);
		qp->mrs_used++;
	}
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return mr;
}
EXPORT_SYMBOL(ib_mr_pool_get);

/**
 * ib_mr_pool_put - give an MR back to the QP's pool it was taken from
 * @qp: the QP
 * @list: the pool the MR came from
 * @mr: the MR, from ib_mr_pool_get() on @qp and @list
 *
 * The MR goes to the front of the pool: the next get takes it again.
 *
 * Context: any context.
 */
void ib_mr_pool_put(struct ib_qp *qp, struct list_head *list,
		    struct ib_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_add(&mr->qp_entry, list);
	qp->mrs_used--;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
}
EXPORT_SYMBOL(ib_mr_pool_put);

/* Deregister the MRs of a list no one else can see. */
static void ib_mr_pool_free(struct list_head *mrs)
{
	struct ib_mr *mr, *next;
	int ret;

	list_for_each_entry_safe(mr, next, mrs, qp_entry) {
		list_del(&mr->qp_entry);
		ret = ib_dereg_mr(mr);
		if (ret)
			dev_warn(&mr->device->dev,
				 "MR pool: deregistration of an MR failed: %d\n",
				 ret);
	}
}

/**
 * ib_mr_pool_init - add new MRs to a QP's pool
 * @qp: the QP; the MRs are allocated in its PD
 * @list: the pool, a list head in @qp (INIT_LIST_HEAD()ed, possibly
 *	holding MRs already)
 * @nr: how many MRs to add
 * @type: their type, IB_MR_TYPE_MEM_REG or IB_MR_TYPE_SG_GAPS;
 *	IB_MR_TYPE_INTEGRITY (signature MRs) is not supported
 * @max_num_sg: the most pages each MR maps
 * @max_num_meta_sg: the most pages of protection information each
 *	signature MR maps; unused, as there are none
 *
 * All or nothing: if one MR cannot be allocated, those allocated before
 * it are released and the pool is left as it was.
 *
 * Context: process context; may sleep.
 * Return: 0, or a negative errno: -EINVAL for a negative @nr,
 * -EOPNOTSUPP for IB_MR_TYPE_INTEGRITY, or the error of ib_alloc_mr().
 */
int ib_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		    enum ib_mr_type type, u32 max_num_sg, u32 max_num_meta_sg)
{
	unsigned long flags;
	LIST_HEAD(mrs);
	struct ib_mr *mr;
	int i, ret;

	if (nr < 0)
		return -EINVAL;
	if (type == IB_MR_TYPE_INTEGRITY)
		return -EOPNOTSUPP;

	for (i = 0; i < nr; i++) {
		mr = ib_alloc_mr(qp->pd, type, max_num_sg);
		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			goto err_free;
		}
		list_add_tail(&mr->qp_entry, &mrs);
	}

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_splice_tail(&mrs, list);
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return 0;

err_free:
	ib_mr_pool_free(&mrs);
	return ret;
}
EXPORT_SYMBOL(ib_mr_pool_init);

/**
 * ib_mr_pool_destroy - deregister every MR in a QP's pool
 * @qp: the QP
 * @list: the pool
 *
 * Only the MRs in the pool are released: the pool's owner destroys it
 * once every MR taken out is back, or those are lost.  The pool is
 * empty afterwards and may be filled again.
 *
 * Context: process context; may sleep.
 */
void ib_mr_pool_destroy(struct ib_qp *qp, struct list_head *list)
{
	unsigned long flags;
	LIST_HEAD(mrs);

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_splice_init(list, &mrs);
	spin_unlock_irqrestore(&qp->mr_lock, flags);

	ib_mr_pool_free(&mrs);
}
EXPORT_SYMBOL(ib_mr_pool_destroy);
