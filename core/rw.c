// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA READ/WRITE contexts (include/rdma/rw.h).  A ULP that moves the
 * data of an I/O by RDMA, such as a storage target, hands over a
 * scatterlist, the peer's address and rkey and a direction, and gets the
 * chain of work requests that moves the data, to post alone or ahead of
 * a request of its own (the SEND of a response).  The scatterlist is
 * mapped for the device here, and the local memory is reached in one of
 * two ways:
 *
 *  - through the PD's local_dma_lkey: one RDMA request with one SGE when
 *    one DMA segment holds the data, else requests of up to the QP's
 *    max_write_sge or max_read_sge SGEs each (and at most the IBA's 2 GiB
 *    message);
 *  - through MRs of the QP's pool (core/mr_pool.c), where the device
 *    needs it (an iWARP RDMA READ's sink must be registered) or the
 *    module parameter force_mr asks for it: per MR, up to 256 entries of
 *    the scatterlist, a LOCAL_INV if the MR is still registered from its
 *    last use, an IB_WR_REG_MR, and the RDMA request through the MR (an
 *    RDMA READ with invalidate on iWARP, which leaves nothing to undo).
 *
 * The requests are chained and only the last one is signalled, with the
 * caller's completion entry, unless the caller chains its own request
 * behind them.  ib_create_qp() prepares a QP whose cap.max_rdma_ctxs is
 * set: room in its send queue (rdma_rw_init_qp()) and its MR pool
 * (rdma_rw_init_mrs()), which ib_destroy_qp() releases
 * (rdma_rw_cleanup_mrs()).
 *
 * Left out: signature (T10-PI) contexts, upstream's
 * rdma_rw_ctx_signature_init() and rdma_rw_ctx_destroy_signature(), as no
 * device here offers integrity offload; the QPs' sig_mrs pools stay
 * empty.  The iWARP branches follow upstream but no device here is iWARP.
 *
 * Locking: none of its own.  A context is its caller's, who serialises
 * its init, posting and destruction and destroys it only once its
 * requests are done.  MRs come from the pool and go back to it under the
 * QP's mr_lock; force_mr is read once per decision.
 */
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <kunit/visibility.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>

#include "core_priv.h"

/* How the requests of a context are kept: &rdma_rw_ctx.type. */
enum {
	RDMA_RW_NONE,		/* not initialised, or destroyed */
	RDMA_RW_SINGLE_WR,	/* single: one request, one SGE */
	RDMA_RW_MULTI_WR,	/* map: requests with the local DMA lkey */
	RDMA_RW_MR,		/* reg: registrations and their requests */
};

/* The largest message the IBA allows, 2^31 bytes. */
#define RDMA_RW_MAX_MSG		((u64)SZ_2G)
/* Pages per MR at most, which keeps the pools' MRs small. */
#define RDMA_RW_MAX_MR_PAGES	256U

static bool rdma_rw_force_mr;
module_param_named(force_mr, rdma_rw_force_mr, bool, 0);
MODULE_PARM_DESC(force_mr,
		 "Register memory for every RDMA READ/WRITE context (testing)");

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * rdma_rw_set_force_mr - set the force_mr parameter, for the KUnit suites
 * @force: the new value
 *
 * QPs created before keep the MR pool they were given.
 *
 * Return: the old value.
 */
bool rdma_rw_set_force_mr(bool force)
{
	bool old = READ_ONCE(rdma_rw_force_mr);

	WRITE_ONCE(rdma_rw_force_mr, force);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(rdma_rw_set_force_mr);
#endif

static bool rdma_rw_is_iwarp(struct ib_device *dev, u32 port_num)
{
	return rdma_is_port_valid(dev, port_num) &&
	       ib_port_immutable_read(dev, port_num)->core_cap_flags &
	       RDMA_CORE_CAP_PROT_IWARP;
}

/* Whether contexts on the port may register memory: QPs need a pool. */
static bool rdma_rw_can_use_mr(struct ib_device *dev, u32 port_num)
{
	return rdma_rw_is_iwarp(dev, port_num) || READ_ONCE(rdma_rw_force_mr);
}

/* Whether this context registers its memory. */
static bool rdma_rw_io_needs_mr(struct ib_device *dev, u32 port_num,
				enum dma_data_direction dir)
{
	if (dir == DMA_FROM_DEVICE && rdma_rw_is_iwarp(dev, port_num))
		return true;
	return READ_ONCE(rdma_rw_force_mr);
}

/* Pages, and so scatterlist entries, per MR. */
static u32 rdma_rw_mr_pages(struct ib_device *dev)
{
	return min(dev->attrs.max_fast_reg_page_list_len, RDMA_RW_MAX_MR_PAGES);
}

/* ------------------------------------------------------------------ */
/* Building the requests                                               */
/* ------------------------------------------------------------------ */

/* The request the chain of one MR starts with. */
static struct ib_send_wr *rdma_rw_reg_first(struct rdma_rw_reg_ctx *reg)
{
	return reg->inv_wr.next ? &reg->inv_wr : &reg->reg_wr.wr;
}

/*
 * Take an MR from the pool and map @nents entries of @sg into it, from
 * byte @offset of the first: all of them, or the context cannot be
 * built.  Sets up its invalidation, if it is still registered, and its
 * registration, which get their keys when posted.  @reg is zeroed.
 * Returns the number of requests, or a negative errno.
 */
static int rdma_rw_init_one_mr(struct ib_qp *qp, struct rdma_rw_reg_ctx *reg,
			       struct scatterlist *sg, u32 nents, u32 offset,
			       bool iwarp)
{
	int count = 0;
	int n;

	reg->mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	if (!reg->mr)
		return -EAGAIN;

	n = ib_map_mr_sg(reg->mr, sg, nents, &offset, PAGE_SIZE);
	if (n < 0 || (u32)n < nents) {
		/* a gap, or more pages than the MR holds */
		ib_mr_pool_put(qp, &qp->rdma_mrs, reg->mr);
		reg->mr = NULL;
		return n < 0 ? n : -EINVAL;
	}

	if (reg->mr->need_inval) {
		reg->inv_wr.opcode = IB_WR_LOCAL_INV;
		reg->inv_wr.ex.invalidate_rkey = reg->mr->lkey;
		reg->inv_wr.next = &reg->reg_wr.wr;
		count++;
	}

	reg->reg_wr.wr.opcode = IB_WR_REG_MR;
	reg->reg_wr.wr.next = &reg->wr.wr;
	reg->reg_wr.mr = reg->mr;
	reg->reg_wr.access = IB_ACCESS_LOCAL_WRITE;
	if (iwarp)
		reg->reg_wr.access |= IB_ACCESS_REMOTE_WRITE;
	count++;

	reg->sge.addr = reg->mr->iova;
	reg->sge.length = reg->mr->length;
	return count;
}

/* A context that registers its memory; see rdma_rw_init_one_mr(). */
static int rdma_rw_init_mr_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, struct scatterlist *sg,
			       u32 sg_cnt, u32 offset, u64 remote_addr,
			       u32 rkey, enum dma_data_direction dir)
{
	bool iwarp = rdma_rw_is_iwarp(qp->device, port_num);
	u32 per_mr = rdma_rw_mr_pages(qp->device);
	struct rdma_rw_reg_ctx *reg, *prev = NULL;
	int count = 0;
	u32 i, j, nents;
	int ret;

	if (!per_mr)
		return -EOPNOTSUPP;

	ctx->nr_ops = DIV_ROUND_UP(sg_cnt, per_mr);
	ctx->reg = kcalloc(ctx->nr_ops, sizeof(*ctx->reg), GFP_KERNEL);
	if (!ctx->reg)
		return -ENOMEM;

	for (i = 0; i < ctx->nr_ops; i++) {
		reg = &ctx->reg[i];
		nents = min(sg_cnt, per_mr);

		ret = rdma_rw_init_one_mr(qp, reg, sg, nents, offset, iwarp);
		if (ret < 0)
			goto err_put;
		count += ret;

		reg->wr.wr.sg_list = &reg->sge;
		reg->wr.wr.num_sge = 1;
		reg->wr.remote_addr = remote_addr;
		reg->wr.rkey = rkey;
		if (dir == DMA_TO_DEVICE)
			reg->wr.wr.opcode = IB_WR_RDMA_WRITE;
		else if (iwarp)
			reg->wr.wr.opcode = IB_WR_RDMA_READ_WITH_INV;
		else
			reg->wr.wr.opcode = IB_WR_RDMA_READ;
		count++;

		if (prev)
			prev->wr.wr.next = rdma_rw_reg_first(reg);
		prev = reg;

		remote_addr += reg->sge.length;
		sg_cnt -= nents;
		for (j = 0; j < nents; j++)
			sg = sg_next(sg);
		offset = 0;
	}

	ctx->type = RDMA_RW_MR;
	return count;

err_put:
	while (i-- > 0)
		ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[i].mr);
	kfree(ctx->reg);
	ctx->reg = NULL;
	return ret;
}

/*
 * Whether an entry of @len bytes still goes into a request that holds
 * @nr_sge SGEs of @bytes in all.
 */
static bool rdma_rw_sge_fits(u32 nr_sge, u64 bytes, u32 len, u32 max_sge)
{
	return nr_sge < max_sge && bytes + len <= RDMA_RW_MAX_MSG;
}

/*
 * A context of several requests through the local DMA lkey: the entries
 * of @sg in order, a new request whenever one is full.  Counts the
 * requests first, then builds them the same way.
 */
static int rdma_rw_init_map_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				struct scatterlist *sg, u32 sg_cnt,
				u32 offset, u64 remote_addr, u32 rkey,
				enum dma_data_direction dir)
{
	u32 max_sge = dir == DMA_TO_DEVICE ? qp->max_write_sge :
					     qp->max_read_sge;
	struct ib_rdma_wr *wr = NULL;
	struct scatterlist *s;
	u32 nr_ops = 0, nr_sge = 0, i, len;
	struct ib_sge *sge;
	u64 bytes = 0, done = 0;

	if (!max_sge)
		return -EINVAL;
	for_each_sg(sg, s, sg_cnt, i) {
		len = sg_dma_len(s) - (i ? 0 : offset);
		if (len > RDMA_RW_MAX_MSG)
			return -EINVAL;
		if (!nr_ops || !rdma_rw_sge_fits(nr_sge, bytes, len, max_sge)) {
			nr_ops++;
			nr_sge = 0;
			bytes = 0;
		}
		nr_sge++;
		bytes += len;
	}

	ctx->map.sges = kcalloc(sg_cnt, sizeof(*ctx->map.sges), GFP_KERNEL);
	if (!ctx->map.sges)
		goto err;
	ctx->map.wrs = kcalloc(nr_ops, sizeof(*ctx->map.wrs), GFP_KERNEL);
	if (!ctx->map.wrs)
		goto err_free_sges;

	sge = ctx->map.sges;
	for_each_sg(sg, s, sg_cnt, i) {
		len = sg_dma_len(s) - (i ? 0 : offset);
		if (!wr || !rdma_rw_sge_fits(wr->wr.num_sge, bytes, len,
					     max_sge)) {
			if (wr)
				wr->wr.next = &wr[1].wr;
			wr = wr ? wr + 1 : ctx->map.wrs;
			wr->wr.opcode = dir == DMA_TO_DEVICE ?
					IB_WR_RDMA_WRITE : IB_WR_RDMA_READ;
			wr->wr.sg_list = sge;
			wr->remote_addr = remote_addr + done;
			wr->rkey = rkey;
			bytes = 0;
		}
		sge->addr = sg_dma_address(s) + (i ? 0 : offset);
		sge->length = len;
		sge->lkey = qp->pd->local_dma_lkey;
		sge++;
		wr->wr.num_sge++;
		bytes += len;
		done += len;
	}

	ctx->nr_ops = nr_ops;
	ctx->type = RDMA_RW_MULTI_WR;
	return nr_ops;

err_free_sges:
	kfree(ctx->map.sges);
	ctx->map.sges = NULL;
err:
	return -ENOMEM;
}

/* A context of one request with one SGE, from byte @offset of @sg. */
static int rdma_rw_init_single_wr(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				  struct scatterlist *sg, u32 offset,
				  u64 remote_addr, u32 rkey,
				  enum dma_data_direction dir)
{
	struct ib_rdma_wr *wr = &ctx->single.wr;
	u32 len = sg_dma_len(sg) - offset;

	if (len > RDMA_RW_MAX_MSG)
		return -EINVAL;

	ctx->single.sge.addr = sg_dma_address(sg) + offset;
	ctx->single.sge.length = len;
	ctx->single.sge.lkey = qp->pd->local_dma_lkey;

	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = dir == DMA_TO_DEVICE ? IB_WR_RDMA_WRITE :
					       IB_WR_RDMA_READ;
	wr->wr.sg_list = &ctx->single.sge;
	wr->wr.num_sge = 1;
	wr->remote_addr = remote_addr;
	wr->rkey = rkey;

	ctx->nr_ops = 1;
	ctx->type = RDMA_RW_SINGLE_WR;
	return 1;
}

/**
 * rdma_rw_ctx_init - prepare an RDMA READ or WRITE of a scatterlist
 * @ctx: the context to fill in
 * @qp: the QP, created with cap.max_rdma_ctxs set
 * @port_num: the port the QP's connection uses
 * @sg: the local memory
 * @sg_cnt: the entries of @sg
 * @sg_offset: where in @sg the data starts, in bytes
 * @remote_addr: the peer's address of the data (in its @rkey's MR)
 * @rkey: the peer's key
 * @dir: %DMA_TO_DEVICE for an RDMA WRITE to the peer, %DMA_FROM_DEVICE
 *	for an RDMA READ from it
 *
 * Maps @sg for the device, then builds the requests that move all of it
 * from @sg_offset on; the top of this file says which.  The requests
 * are posted with rdma_rw_ctx_post() (or rdma_rw_ctx_wrs() and
 * ib_post_send()); the context is released with rdma_rw_ctx_destroy(),
 * with the same @sg, @sg_cnt and @dir, once they are done or were never
 * posted.  Nothing is left to release after an error.
 *
 * Context: process context; may sleep.
 * Return: the number of send queue entries the requests take, or a
 * negative errno: -EINVAL for an empty @sg or one @sg_offset goes
 * beyond, a bad @dir, a DMA segment of more than 2 GiB, or a
 * scatterlist an MR cannot map (a gap inside, or more pages in one entry
 * than an MR holds); -EAGAIN if the QP's pool has no MR left (also when
 * it never had any: the QP was created before force_mr was set, or
 * without max_rdma_ctxs); -ENOMEM.
 */
int rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	struct ib_device *dev = qp->device;
	struct scatterlist *first = sg;
	u32 cnt;
	int ret;

	ctx->type = RDMA_RW_NONE;
	ctx->nr_ops = 0;
	if (!sg || !sg_cnt || sg_cnt > INT_MAX)
		return -EINVAL;
	if (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE)
		return -EINVAL;

	ret = ib_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!ret)
		return -ENOMEM;
	cnt = ret;

	/* The entries wholly before @sg_offset take no part. */
	while (cnt && sg_offset >= sg_dma_len(sg)) {
		sg_offset -= sg_dma_len(sg);
		sg = sg_next(sg);
		cnt--;
	}
	if (!cnt) {
		ret = -EINVAL;
		goto err_unmap;
	}

	if (rdma_rw_io_needs_mr(dev, port_num, dir))
		ret = rdma_rw_init_mr_wrs(ctx, qp, port_num, sg, cnt,
					  sg_offset, remote_addr, rkey, dir);
	else if (cnt > 1)
		ret = rdma_rw_init_map_wrs(ctx, qp, sg, cnt, sg_offset,
					   remote_addr, rkey, dir);
	else
		ret = rdma_rw_init_single_wr(ctx, qp, sg, sg_offset,
					     remote_addr, rkey, dir);
	if (ret < 0)
		goto err_unmap;
	return ret;

err_unmap:
	ib_dma_unmap_sg(dev, first, sg_cnt, dir);
	return ret;
}
EXPORT_SYMBOL(rdma_rw_ctx_init);

/* ------------------------------------------------------------------ */
/* Posting                                                             */
/* ------------------------------------------------------------------ */

/*
 * The keys of an MR's registration are chosen when it is posted, not at
 * init: a context that is destroyed unposted leaves the MR as it was.
 * The MR is registered from now on, unless the RDMA READ invalidates it.
 */
static void rdma_rw_set_keys(struct rdma_rw_reg_ctx *reg)
{
	struct ib_mr *mr = reg->mr;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey) & 0xff);
	reg->reg_wr.key = mr->lkey;
	reg->sge.lkey = mr->lkey;
	if (reg->wr.wr.opcode == IB_WR_RDMA_READ_WITH_INV) {
		reg->wr.wr.ex.invalidate_rkey = mr->lkey;
		mr->need_inval = false;
	} else {
		mr->need_inval = true;
	}
}

/**
 * rdma_rw_ctx_wrs - the chain of work requests of a context
 * @ctx: the context, from rdma_rw_ctx_init()
 * @qp: its QP
 * @port_num: its port
 * @cqe: the completion entry of the last request, when @chain_wr is NULL
 * @chain_wr: a request of the caller's to chain behind the context's, or
 *	NULL
 *
 * For callers that post the chain themselves, possibly behind requests
 * of their own.  Without @chain_wr the last request is signalled and
 * completes with @cqe, which must not be NULL; with it, no request of the
 * context is signalled and @chain_wr's completion tells that all are
 * done.  Fixes the keys of the context's registrations: call it once per
 * posting.
 *
 * Return: the first request of the chain, or NULL if @ctx holds none.
 */
struct ib_send_wr *rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first, *last;
	u32 i;

	switch (ctx->type) {
	case RDMA_RW_SINGLE_WR:
		first = &ctx->single.wr.wr;
		last = first;
		break;
	case RDMA_RW_MULTI_WR:
		first = &ctx->map.wrs[0].wr;
		last = &ctx->map.wrs[ctx->nr_ops - 1].wr;
		break;
	case RDMA_RW_MR:
		for (i = 0; i < ctx->nr_ops; i++)
			rdma_rw_set_keys(&ctx->reg[i]);
		first = rdma_rw_reg_first(&ctx->reg[0]);
		last = &ctx->reg[ctx->nr_ops - 1].wr.wr;
		break;
	default:
		WARN_ONCE(1, "RDMA R/W context %p is not initialised\n", ctx);
		return NULL;
	}

	last->next = chain_wr;
	if (!chain_wr) {
		last->wr_cqe = cqe;
		last->send_flags |= IB_SEND_SIGNALED;
	}
	return first;
}
EXPORT_SYMBOL(rdma_rw_ctx_wrs);

/**
 * rdma_rw_ctx_post - post the work requests of a context
 * @ctx: the context, from rdma_rw_ctx_init()
 * @qp: its QP
 * @port_num: its port
 * @cqe: the completion entry of the last request, when @chain_wr is NULL
 * @chain_wr: a request of the caller's to post behind the context's, or
 *	NULL
 *
 * Posts the chain of rdma_rw_ctx_wrs(); see there for @cqe and
 * @chain_wr.  One completion comes back, with @cqe or @chain_wr's; the
 * context may be destroyed after it.
 *
 * Return: 0, -EINVAL if @ctx holds no requests, or the error of
 * ib_post_send().
 */
int rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct ib_cqe *cqe, struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first;

	first = rdma_rw_ctx_wrs(ctx, qp, port_num, cqe, chain_wr);
	if (!first)
		return -EINVAL;
	return ib_post_send(qp, first, NULL);
}
EXPORT_SYMBOL(rdma_rw_ctx_post);

/**
 * rdma_rw_ctx_destroy - release a context
 * @ctx: the context, from rdma_rw_ctx_init()
 * @qp: its QP
 * @port_num: its port
 * @sg: the scatterlist given to rdma_rw_ctx_init()
 * @sg_cnt: its entries, as given to rdma_rw_ctx_init()
 * @dir: the direction given to rdma_rw_ctx_init()
 *
 * Puts the context's MRs back into the QP's pool, frees its requests and
 * unmaps @sg.  Its requests must be done, or never have been posted.
 *
 * Context: any context.
 */
void rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			 enum dma_data_direction dir)
{
	u32 i;

	switch (ctx->type) {
	case RDMA_RW_SINGLE_WR:
		break;
	case RDMA_RW_MULTI_WR:
		kfree(ctx->map.wrs);
		kfree(ctx->map.sges);
		break;
	case RDMA_RW_MR:
		for (i = 0; i < ctx->nr_ops; i++)
			ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[i].mr);
		kfree(ctx->reg);
		break;
	default:
		WARN_ONCE(1, "RDMA R/W context %p is not initialised\n", ctx);
		return;
	}

	ctx->type = RDMA_RW_NONE;
	ib_dma_unmap_sg(qp->device, sg, sg_cnt, dir);
}
EXPORT_SYMBOL(rdma_rw_ctx_destroy);

/* ------------------------------------------------------------------ */
/* Sizing and QPs                                                      */
/* ------------------------------------------------------------------ */

/**
 * rdma_rw_mr_factor - how many MRs (or RDMA READs) a payload needs
 * @device: the device
 * @port_num: the port of the connection
 * @maxpages: the pages of the largest payload of one context
 *
 * For ULPs sizing their queues and max_rdma_ctxs: the number of MRs a
 * context of @maxpages pages registers on this port, or where it
 * registers nothing, the number of RDMA READs of max_sge_rd pages.
 *
 * Return: that number, 0 for no pages.
 */
unsigned int rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
			       unsigned int maxpages)
{
	unsigned int per;

	if (rdma_rw_can_use_mr(device, port_num))
		per = rdma_rw_mr_pages(device);
	else
		per = max(device->attrs.max_sge_rd, 0);
	per = max(per, 1U);
	return maxpages / per + !!(maxpages % per);
}
EXPORT_SYMBOL(rdma_rw_mr_factor);

/**
 * rdma_rw_init_qp - make room in a new QP's send queue for its contexts
 * @dev: the device
 * @attr: the QP's attributes, with cap.max_rdma_ctxs and port_num set
 *
 * For ib_create_qp(), before the driver sees @attr: adds to
 * cap.max_send_wr one RDMA request per context, and where contexts may
 * register memory two more (the LOCAL_INV and the REG_MR of one MR).
 * The sum is cut to the device's max_qp_wr: the QP is made with what
 * the device has.
 */
void rdma_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *attr)
{
	u32 per_ctx = rdma_rw_can_use_mr(dev, attr->port_num) ? 3 : 1;
	u32 limit = max(dev->attrs.max_qp_wr, 0);
	u32 extra, total;

	if (check_mul_overflow(attr->cap.max_rdma_ctxs, per_ctx, &extra) ||
	    check_add_overflow(attr->cap.max_send_wr, extra, &total))
		total = U32_MAX;
	attr->cap.max_send_wr = min(total, limit);
}

/**
 * rdma_rw_init_mrs - fill a new QP's MR pool for its contexts
 * @qp: the QP, just made by the driver
 * @attr: its attributes, with cap.max_rdma_ctxs and port_num set
 *
 * For ib_create_qp(): where contexts on the port may register memory,
 * one MR of up to 256 pages per context in &ib_qp.rdma_mrs, else
 * nothing.
 *
 * Return: 0, or a negative errno (the pool is left empty):
 * -EOPNOTSUPP if the device cannot register memory, or the error of
 * ib_mr_pool_init().
 */
int rdma_rw_init_mrs(struct ib_qp *qp, struct ib_qp_init_attr *attr)
{
	struct ib_device *dev = qp->device;
	u32 nr = attr->cap.max_rdma_ctxs;
	u32 pages = rdma_rw_mr_pages(dev);
	int ret;

	if (!rdma_rw_can_use_mr(dev, attr->port_num))
		return 0;
	if (!pages) {
		dev_dbg_ratelimited(&dev->dev,
				    "new QP refused: RDMA R/W contexts must register memory, which the device cannot\n");
		return -EOPNOTSUPP;
	}
	if (nr > INT_MAX) {
		dev_dbg_ratelimited(&dev->dev,
				    "new QP refused: %u RDMA R/W contexts, an MR for each is too many\n",
				    nr);
		return -EINVAL;
	}

	ret = ib_mr_pool_init(qp, &qp->rdma_mrs, nr, IB_MR_TYPE_MEM_REG,
			      pages, 0);
	if (ret)
		dev_dbg_ratelimited(&dev->dev,
				    "new QP refused: no pool of %u MRs for its RDMA R/W contexts: %d\n",
				    nr, ret);
	return ret;
}

/**
 * rdma_rw_cleanup_mrs - release a QP's MR pool
 * @qp: the QP, with every MR back in the pool
 *
 * For ib_destroy_qp().
 */
void rdma_rw_cleanup_mrs(struct ib_qp *qp)
{
	ib_mr_pool_destroy(qp, &qp->rdma_mrs);
}
