// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the core's MR pools (core/mr_pool.c) and RDMA READ/WRITE
 * contexts (core/rw.c), on the HCAs vmlx0 and vmlx1 that the built-in
 * vmlx driver created at boot.
 *
 * Suite rw_mr_pool, on vmlx0 alone: ib_mr_pool_init/get/put/destroy on a
 * QP's list, exhaustion, mrs_used, ib_destroy_qp() refused while an MR
 * is out, the refused pool types and sizes; what ib_create_qp() does with
 * cap.max_rdma_ctxs (send queue, pool, limits) and rdma_rw_mr_factor().
 *
 * Suite rw_ctx: an RC QP on vmlx0 (the contexts' side) connected to one
 * on vmlx1, whose PD has the unsafe global rkey so that any of its kernel
 * memory is the peer's buffer, over LIDs 1 and 2 routed by the switch.
 * RDMA WRITEs and READs of a three-page scatterlist starting inside its
 * first page, through the local DMA lkey and, with force_mr, through MRs
 * of the QP's pool (twice, so that the second registration invalidates
 * the first); many SGEs in several requests; 257 pages in two MRs; every
 * byte checked at both ends, one completion with the caller's ib_cqe, the
 * pool whole again after.  Bad input: errnos, never an oops, nothing
 * left taken.
 *
 * force_mr is changed through rdma_rw_set_force_mr() and put back as it
 * was; the ports and the switch are put back as they were at boot.  The
 * tests run one at a time; they take a QP's mr_lock only to count its
 * pool, and the switch's lock to route LIDs, as vmlx does.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>

#include "core_priv.h"
#include "vmlx_test.h"

/* The PSNs both ends start from. */
#define RWT_PSN		0x123456
/* The peer's buffer, and where in it the data goes. */
#define RWT_REMOTE_BYTES SZ_2M
#define RWT_REMOTE_OFF	300
/* The three-page scatterlist: where the data starts, how it ends. */
#define RWT_OFF		100
#define RWT_TAIL	2000
/* Pages in two MRs: one more than rw.c puts into one. */
#define RWT_BIG_PAGES	257
/* Fills: what was not moved keeps them. */
#define RWT_LOCAL_FILL	0xa5
#define RWT_REMOTE_FILL	0x5a
/* Completions are waited for 5 s at most, in polls every 20 ms. */
#define RWT_POLLS	250

static_assert((RWT_BIG_PAGES + 1) * PAGE_SIZE <= RWT_REMOTE_BYTES);

/* A scatterlist of pages of its own, and the bytes a test moves in it. */
struct rwt_buf {
	struct sg_table sgt;
	u32 nents;
	u32 offset;	/* the rdma_rw_ctx_init() sg_offset */
	u32 len;	/* bytes from there to the end */
};

/*
 * Side 0 is on vmlx0 (LID 1) and uses the contexts, side 1 on vmlx1
 * (LID 2) holds the peer's memory.  The QPs are made by each test.
 */
struct rwt_ctx {
	struct ib_device *ibdev[2];
	struct vmlx_port *port[2];
	struct vmlx_switch *sw;
	struct ib_pd *pd[2];
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	bool fabric;		/* the ports and the switch were changed */
	bool force_mr;		/* force_mr as it was before the test */
	u8 *remote;		/* RWT_REMOTE_BYTES of side 1 */
	struct rwt_buf buf;
	/* a context a failed test left initialised */
	struct rdma_rw_ctx rw;
	bool rw_live;
	enum dma_data_direction rw_dir;
	struct ib_cqe cqe;
};

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                                */
/* ------------------------------------------------------------------ */

/* LIDs 1 and 2 routed by the switch, the ports ACTIVE, with no SM. */
static void rwt_fabric_up(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct vmlx_switch *sw = ctx->sw;
	unsigned long flags;
	unsigned int i;
	u8 num;

	ctx->fabric = true;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < 2; i++) {
		num = ctx->port[i]->fport->peer->num;
		WRITE_ONCE(sw->lft[i + 1], num);
		WRITE_ONCE(sw->ports[num].state, IB_PORT_ACTIVE);
	}
	WRITE_ONCE(sw->lft_top, 2);
	spin_unlock_irqrestore(&sw->lock, flags);

	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vmlx_port_set_lid(ctx->port[i], i + 1, 0,
							0), 0);
		KUNIT_ASSERT_EQ(test, vmlx_port_set_state(ctx->port[i],
							  IB_PORT_ARMED), 0);
		KUNIT_ASSERT_EQ(test, vmlx_port_set_state(ctx->port[i],
							  IB_PORT_ACTIVE), 0);
	}
}

/* The devices, PDs and CQs of @sides sides; force_mr off. */
static int rwt_init_sides(struct kunit *test, unsigned int sides)
{
	static const char * const names[] = { "vmlx0", "vmlx1" };
	struct ib_cq_init_attr cq_attr = { .cqe = 256 };
	struct rwt_ctx *ctx;
	unsigned int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	ctx->force_mr = rdma_rw_set_force_mr(false);

	for (i = 0; i < sides; i++) {
		ctx->ibdev[i] = ib_device_get_by_name(names[i]);
		KUNIT_ASSERT_NOT_NULL_MSG(test, ctx->ibdev[i],
					  "%s is not registered", names[i]);
		ctx->port[i] = vmlx_port(to_vmlx(ctx->ibdev[i]), 1);

		/* side 1's memory is all the peer's */
		ctx->pd[i] = ib_alloc_pd(ctx->ibdev[i],
					 i ? IB_PD_UNSAFE_GLOBAL_RKEY : 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->pd[i]));
		ctx->cq[i] = ib_create_cq(ctx->ibdev[i], NULL, NULL, NULL,
					  &cq_attr);
		KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->cq[i]));
	}
	return 0;
}

static int rwt_pool_init(struct kunit *test)
{
	return rwt_init_sides(test, 1);
}

static int rwt_ctx_init(struct kunit *test)
{
	struct rwt_ctx *ctx;
	unsigned int i;

	rwt_init_sides(test, 2);
	ctx = test->priv;
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, READ_ONCE(ctx->port[i]->phys_state),
				IB_PORT_PHYS_STATE_LINK_UP);
	ctx->sw = vmlx_fabric_switch();
	KUNIT_ASSERT_NOT_NULL(test, ctx->sw);
	for (i = 0; i < 2; i++)
		vmlx_test_port_reset(ctx->port[i]);
	vmlx_test_switch_reset(ctx->sw);
	rwt_fabric_up(test);

	ctx->remote = vmalloc(RWT_REMOTE_BYTES);
	KUNIT_ASSERT_NOT_NULL(test, ctx->remote);
	return 0;
}

static void rwt_buf_free(struct rwt_buf *b)
{
	struct scatterlist *s;
	unsigned int i;

	if (!b->sgt.sgl)
		return;
	for_each_sg(b->sgt.sgl, s, b->nents, i)
		if (sg_page(s))
			__free_page(sg_page(s));
	sg_free_table(&b->sgt);
	memset(b, 0, sizeof(*b));
}

static void rwt_exit(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	unsigned int i;

	if (!ctx)
		return;
	if (ctx->rw_live)
		rdma_rw_ctx_destroy(&ctx->rw, ctx->qp[0], 1, ctx->buf.sgt.sgl,
				    ctx->buf.nents, ctx->rw_dir);
	for (i = 0; i < 2; i++)
		if (ctx->qp[i])
			KUNIT_EXPECT_EQ(test, ib_destroy_qp(ctx->qp[i]), 0);
	for (i = 0; i < 2; i++) {
		if (ctx->cq[i] && !IS_ERR(ctx->cq[i]))
			KUNIT_EXPECT_EQ(test, ib_destroy_cq(ctx->cq[i]), 0);
		if (ctx->pd[i] && !IS_ERR(ctx->pd[i]))
			ib_dealloc_pd(ctx->pd[i]);
	}
	rwt_buf_free(&ctx->buf);
	vfree(ctx->remote);
	if (ctx->fabric) {
		for (i = 0; i < 2; i++)
			vmlx_test_port_reset(ctx->port[i]);
		vmlx_test_switch_reset(ctx->sw);
	}
	for (i = 0; i < 2; i++)
		if (ctx->ibdev[i])
			ib_device_put(ctx->ibdev[i]);
	rdma_rw_set_force_mr(ctx->force_mr);
}

/* ------------------------------------------------------------------ */
/* QPs                                                                 */
/* ------------------------------------------------------------------ */

/* An RC QP on side @i, with @rdma_ctxs contexts; @init is filled in. */
static struct ib_qp *rwt_create_qp(struct kunit *test, unsigned int i,
				   u32 rdma_ctxs, struct ib_qp_init_attr *init)
{
	struct rwt_ctx *ctx = test->priv;

	memset(init, 0, sizeof(*init));
	init->send_cq = ctx->cq[i];
	init->recv_cq = ctx->cq[i];
	init->qp_type = IB_QPT_RC;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	init->cap.max_send_wr = 16;
	init->cap.max_recv_wr = 4;
	init->cap.max_send_sge = 1;
	init->cap.max_recv_sge = 1;
	init->cap.max_rdma_ctxs = rdma_ctxs;
	init->port_num = 1;
	return ib_create_qp(ctx->pd[i], init);
}

/* INIT, RTR, RTS towards QP @dqpn at @dlid, remote READ and WRITE open. */
static int rwt_modify(struct ib_qp *qp, u32 dqpn, u16 dlid)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_4096;
	attr.dest_qp_num = dqpn;
	attr.rq_psn = RWT_PSN;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.dlid = dlid;
	attr.max_dest_rd_atomic = 4;
	attr.min_rnr_timer = 1;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = RWT_PSN;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 4;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/* Side 0's QP, with @rdma_ctxs contexts, connected to side 1's. */
static void rwt_connect(struct kunit *test, u32 rdma_ctxs)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		ctx->qp[i] = rwt_create_qp(test, i, i ? 0 : rdma_ctxs, &init);
		KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->qp[i]));
	}
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, rwt_modify(ctx->qp[i],
						 ctx->qp[!i]->qp_num, !i + 1),
				0);
}

/* The MRs in a pool of @qp. */
static unsigned int rwt_pool_count(struct ib_qp *qp, struct list_head *list)
{
	unsigned int n = 0;
	unsigned long flags;
	struct ib_mr *mr;

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_for_each_entry(mr, list, qp_entry)
		n++;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return n;
}

static int rwt_mrs_used(struct ib_qp *qp)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&qp->mr_lock, flags);
	n = qp->mrs_used;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return n;
}

/* ------------------------------------------------------------------ */
/* Suite rw_mr_pool                                                    */
/* ------------------------------------------------------------------ */

/* Three MRs: taken, exhausted, given back, taken again, released. */
static void rw_mr_pool_get_put_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init;
	struct ib_mr *mr[4];
	struct ib_qp *qp;
	int pd_users, i;

	qp = rwt_create_qp(test, 0, 0, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	ctx->qp[0] = qp;
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->rdma_mrs));
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->sig_mrs));
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);
	KUNIT_EXPECT_NULL(test, ib_mr_pool_get(qp, &qp->rdma_mrs));
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);

	pd_users = atomic_read(&ctx->pd[0]->usecnt);
	KUNIT_ASSERT_EQ(test, ib_mr_pool_init(qp, &qp->rdma_mrs, 3,
					      IB_MR_TYPE_MEM_REG, 16, 0), 0);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(qp, &qp->rdma_mrs), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt), pd_users + 3);

	for (i = 0; i < 3; i++) {
		mr[i] = ib_mr_pool_get(qp, &qp->rdma_mrs);
		KUNIT_ASSERT_NOT_NULL(test, mr[i]);
		KUNIT_EXPECT_PTR_EQ(test, mr[i]->pd, ctx->pd[0]);
		KUNIT_EXPECT_EQ(test, mr[i]->type, IB_MR_TYPE_MEM_REG);
		KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), i + 1);
	}
	KUNIT_EXPECT_PTR_NE(test, mr[0], mr[1]);
	KUNIT_EXPECT_PTR_NE(test, mr[1], mr[2]);
	KUNIT_EXPECT_PTR_NE(test, mr[0], mr[2]);

	/* exhausted: nothing, and nothing counted */
	mr[3] = ib_mr_pool_get(qp, &qp->rdma_mrs);
	KUNIT_EXPECT_NULL(test, mr[3]);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 3);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->rdma_mrs));

	/* the QP stays while its MRs are out */
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), -EBUSY);

	/* the MR given back is the next one taken */
	ib_mr_pool_put(qp, &qp->rdma_mrs, mr[1]);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 2);
	KUNIT_EXPECT_PTR_EQ(test, ib_mr_pool_get(qp, &qp->rdma_mrs), mr[1]);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 3);

	for (i = 0; i < 3; i++)
		ib_mr_pool_put(qp, &qp->rdma_mrs, mr[i]);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(qp, &qp->rdma_mrs), 3);

	ib_mr_pool_destroy(qp, &qp->rdma_mrs);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->rdma_mrs));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt), pd_users);
	/* an empty pool is destroyed again without harm */
	ib_mr_pool_destroy(qp, &qp->rdma_mrs);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt), pd_users);
}

/* Refused types and sizes leave the pool as it was. */
static void rw_mr_pool_init_errors_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init;
	struct ib_qp *qp;
	int pd_users;

	qp = rwt_create_qp(test, 0, 0, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	ctx->qp[0] = qp;
	pd_users = atomic_read(&ctx->pd[0]->usecnt);

	KUNIT_EXPECT_EQ(test, ib_mr_pool_init(qp, &qp->sig_mrs, 2,
					      IB_MR_TYPE_INTEGRITY, 16, 16),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ib_mr_pool_init(qp, &qp->rdma_mrs, -1,
					      IB_MR_TYPE_MEM_REG, 16, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_mr_pool_init(qp, &qp->rdma_mrs, 0,
					      IB_MR_TYPE_MEM_REG, 16, 0), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->rdma_mrs));

	/* two MRs in, then three more asked that vmlx cannot make */
	KUNIT_ASSERT_EQ(test, ib_mr_pool_init(qp, &qp->rdma_mrs, 2,
					      IB_MR_TYPE_MEM_REG, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, ib_mr_pool_init(qp, &qp->rdma_mrs, 3,
					      IB_MR_TYPE_MEM_REG,
					      VMLX_MAX_FAST_REG_PAGES + 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(qp, &qp->rdma_mrs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt), pd_users + 2);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->sig_mrs));

	/* a second fill adds to the first */
	KUNIT_EXPECT_EQ(test, ib_mr_pool_init(qp, &qp->rdma_mrs, 3,
					      IB_MR_TYPE_MEM_REG, 4, 0), 0);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(qp, &qp->rdma_mrs), 5);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);

	/* ib_destroy_qp() releases what is left in the pool */
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	ctx->qp[0] = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt),
			pd_users - 1);
}

/* ib_create_qp() with cap.max_rdma_ctxs, with and without force_mr. */
static void rw_qp_init_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_device *dev = ctx->ibdev[0];
	struct ib_qp_init_attr init;
	struct ib_qp *qp;
	int pd_users = atomic_read(&ctx->pd[0]->usecnt);

	/* without registration: one more request per context */
	qp = rwt_create_qp(test, 0, 5, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	ctx->qp[0] = qp;
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, 16 + 5);
	KUNIT_EXPECT_EQ(test, qp->max_send_wr, init.cap.max_send_wr);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->rdma_mrs));
	KUNIT_EXPECT_EQ(test, qp->max_write_sge, init.cap.max_send_sge);
	KUNIT_EXPECT_EQ(test, qp->max_read_sge,
			min_t(u32, init.cap.max_send_sge,
			      dev->attrs.max_sge_rd));
	KUNIT_EXPECT_GE(test, qp->max_write_sge, 1);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	ctx->qp[0] = NULL;

	/* with it: three per context, and an MR each */
	rdma_rw_set_force_mr(true);
	qp = rwt_create_qp(test, 0, 5, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	ctx->qp[0] = qp;
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, 16 + 3 * 5);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(qp, &qp->rdma_mrs), 5);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt),
			pd_users + 1 + 5);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	ctx->qp[0] = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt), pd_users);

	/* too many contexts for an MR each: refused, nothing left over */
	qp = rwt_create_qp(test, 0, U32_MAX, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);
	if (!IS_ERR(qp))
		ctx->qp[0] = qp;
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd[0]->usecnt), pd_users);
	rdma_rw_set_force_mr(false);

	/* the send queue is cut to the device's, even on overflow */
	memset(&init, 0, sizeof(init));
	init.cap.max_send_wr = dev->attrs.max_qp_wr - 10;
	init.cap.max_rdma_ctxs = 100;
	init.port_num = 1;
	rdma_rw_init_qp(dev, &init);
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, dev->attrs.max_qp_wr);
	init.cap.max_send_wr = 16;
	init.cap.max_rdma_ctxs = U32_MAX;
	rdma_rw_init_qp(dev, &init);
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, dev->attrs.max_qp_wr);

	/* vmlx takes no more than max_qp_wr, and may round its ring up */
	qp = rwt_create_qp(test, 0, U32_MAX, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	ctx->qp[0] = qp;
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, VMLX_MAX_QP_WR);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->rdma_mrs));
}

/* rdma_rw_mr_factor(): MRs of 256 pages, or READs of max_sge_rd. */
static void rw_mr_factor_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_device *dev = ctx->ibdev[0];
	u32 sge_rd = dev->attrs.max_sge_rd;

	KUNIT_ASSERT_GT(test, sge_rd, 1);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, 1), 1);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, sge_rd), 1);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, sge_rd + 1), 2);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, UINT_MAX),
			UINT_MAX / sge_rd + !!(UINT_MAX % sge_rd));

	rdma_rw_set_force_mr(true);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, 256), 1);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, RWT_BIG_PAGES), 2);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(dev, 1, 512), 2);
	rdma_rw_set_force_mr(false);
}

static struct kunit_case rw_mr_pool_cases[] = {
	KUNIT_CASE(rw_mr_pool_get_put_test),
	KUNIT_CASE(rw_mr_pool_init_errors_test),
	KUNIT_CASE(rw_qp_init_test),
	KUNIT_CASE(rw_mr_factor_test),
	{}
};

static struct kunit_suite rw_mr_pool_suite = {
	.name = "rw_mr_pool",
	.init = rwt_pool_init,
	.exit = rwt_exit,
	.test_cases = rw_mr_pool_cases,
};

/* ------------------------------------------------------------------ */
/* Buffers and patterns                                                */
/* ------------------------------------------------------------------ */

/* Byte @i of what a test moves, the @seed-th time. */
static u8 rwt_byte(u32 i, u8 seed)
{
	return i * 7 + (i >> 9) + seed;
}

/*
 * ctx->buf: @nents pages of their own, the last one holding @last bytes,
 * filled with RWT_LOCAL_FILL; the data starts @offset bytes in.
 */
static void rwt_buf_alloc(struct kunit *test, u32 nents, u32 last, u32 offset)
{
	struct rwt_ctx *ctx = test->priv;
	struct rwt_buf *b = &ctx->buf;
	struct scatterlist *s;
	struct page *page;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sg_alloc_table(&b->sgt, nents, GFP_KERNEL), 0);
	b->nents = nents;
	for_each_sg(b->sgt.sgl, s, nents, i) {
		page = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memset(page_address(page), RWT_LOCAL_FILL, PAGE_SIZE);
		sg_set_page(s, page, i == nents - 1 ? last : PAGE_SIZE, 0);
	}
	b->offset = offset;
	b->len = (nents - 1) * PAGE_SIZE + last - offset;
}

/*
 * Write the pattern into the data of ctx->buf, or count the data bytes
 * that differ from it and the bytes around them that lost their fill.
 * Every entry but the last is a whole page.
 */
static u32 rwt_buf_pattern(struct rwt_buf *b, u8 seed, bool check)
{
	struct scatterlist *s;
	u32 i, j, k = 0, bad = 0;
	u8 *p;

	for_each_sg(b->sgt.sgl, s, b->nents, i) {
		p = sg_virt(s);
		for (j = 0; j < PAGE_SIZE; j++) {
			bool data = j < s->length &&
				    i * PAGE_SIZE + j >= b->offset;

			if (!check && data)
				p[j] = rwt_byte(k, seed);
			else if (check && data)
				bad += p[j] != rwt_byte(k, seed);
			else if (check)
				bad += p[j] != RWT_LOCAL_FILL;
			k += data;
		}
	}
	return bad;
}

/* The same for @len bytes of the peer's buffer at @off, in its fill. */
static u32 rwt_remote_pattern(struct rwt_ctx *ctx, u32 off, u32 len, u8 seed,
			      bool check)
{
	u32 i, bad = 0;

	if (!check) {
		memset(ctx->remote, RWT_REMOTE_FILL, RWT_REMOTE_BYTES);
		for (i = 0; i < len; i++)
			ctx->remote[off + i] = rwt_byte(i, seed);
		return 0;
	}
	for (i = 0; i < RWT_REMOTE_BYTES; i++) {
		if (i >= off && i < off + len)
			bad += ctx->remote[i] != rwt_byte(i - off, seed);
		else
			bad += ctx->remote[i] != RWT_REMOTE_FILL;
	}
	return bad;
}

static void rwt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	/* the tests poll their CQs themselves */
}

/* Wait for a completion on side 0's CQ; then none may follow. */
static void rwt_poll_one(struct kunit *test, struct ib_wc *wc)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_wc more;
	int i, n = 0;

	for (i = 0; i < RWT_POLLS && !n; i++) {
		n = ib_poll_cq(ctx->cq[0], 1, wc);
		if (!n)
			msleep(20);
	}
	KUNIT_ASSERT_EQ_MSG(test, n, 1, "no completion in %d ms",
			    RWT_POLLS * 20);
	msleep(50);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->cq[0], 1, &more), 0);
}

/*
 * Side 0's one completion: the caller's ib_cqe, success, the opcode of
 * @dir.  The peer's CQ has none.
 */
static void rwt_expect_one_completion(struct kunit *test,
				      enum dma_data_direction dir)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_wc wc = {};

	rwt_poll_one(test, &wc);
	KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "%s",
			    ib_wc_status_msg(wc.status));
	KUNIT_EXPECT_PTR_EQ(test, wc.wr_cqe, &ctx->cqe);
	KUNIT_EXPECT_EQ(test, wc.opcode, dir == DMA_TO_DEVICE ?
			IB_WC_RDMA_WRITE : IB_WC_RDMA_READ);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, ctx->qp[0]);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->cq[1], 1, &wc), 0);
}

/*
 * Move ctx->buf's data to or from the peer's buffer at RWT_REMOTE_OFF
 * with a context on side 0, which must take @wrs requests of which @ops
 * RDMA ones; check every byte and that the pool is whole again.
 */
static void rwt_move(struct kunit *test, enum dma_data_direction dir,
		     u8 seed, int wrs, u32 ops)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_qp *qp = ctx->qp[0];
	struct rwt_buf *b = &ctx->buf;
	unsigned int pool = rwt_pool_count(qp, &qp->rdma_mrs);
	u64 raddr = (uintptr_t)ctx->remote + RWT_REMOTE_OFF;
	int ret;

	if (dir == DMA_TO_DEVICE) {
		rwt_buf_pattern(b, seed, false);
		rwt_remote_pattern(ctx, RWT_REMOTE_OFF, 0, 0, false);
	} else {
		rwt_remote_pattern(ctx, RWT_REMOTE_OFF, b->len, seed, false);
	}

	ctx->cqe.done = rwt_done;
	ret = rdma_rw_ctx_init(&ctx->rw, qp, 1, b->sgt.sgl, b->nents,
			       b->offset, raddr, ctx->pd[1]->unsafe_global_rkey,
			       dir);
	KUNIT_ASSERT_EQ(test, ret, wrs);
	ctx->rw_live = true;
	ctx->rw_dir = dir;
	KUNIT_EXPECT_EQ(test, ctx->rw.nr_ops, ops);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), pool ? ops : 0);

	KUNIT_ASSERT_EQ(test, rdma_rw_ctx_post(&ctx->rw, qp, 1, &ctx->cqe,
					       NULL), 0);
	rwt_expect_one_completion(test, dir);

	rdma_rw_ctx_destroy(&ctx->rw, qp, 1, b->sgt.sgl, b->nents, dir);
	ctx->rw_live = false;
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(qp, &qp->rdma_mrs), pool);

	if (dir == DMA_TO_DEVICE) {
		KUNIT_EXPECT_EQ(test, rwt_remote_pattern(ctx, RWT_REMOTE_OFF,
							 b->len, seed, true),
				0);
	} else {
		KUNIT_EXPECT_EQ(test, rwt_buf_pattern(b, seed, true), 0);
	}
}

/* ------------------------------------------------------------------ */
/* Suite rw_ctx                                                        */
/* ------------------------------------------------------------------ */

/*
 * Three pages from byte RWT_OFF of the first to byte RWT_TAIL of the
 * third, twice in direction @dir.  Without registration: requests of up
 * to the QP's SGE limit.  With it: LOCAL_INV (the second time), REG_MR
 * and the RDMA request, through one MR.
 */
static void rwt_three_pages(struct kunit *test, enum dma_data_direction dir,
			    bool force_mr)
{
	struct rwt_ctx *ctx = test->priv;
	u32 max_sge, ops;

	rdma_rw_set_force_mr(force_mr);
	rwt_connect(test, 4);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(ctx->qp[0], &ctx->qp[0]->rdma_mrs),
			force_mr ? 4 : 0);
	rwt_buf_alloc(test, 3, RWT_TAIL, RWT_OFF);

	if (force_mr) {
		rwt_move(test, dir, 1, 2, 1);
		rwt_move(test, dir, 2, 3, 1);
		return;
	}
	max_sge = dir == DMA_TO_DEVICE ? ctx->qp[0]->max_write_sge :
					 ctx->qp[0]->max_read_sge;
	ops = DIV_ROUND_UP(3, max_sge);
	rwt_move(test, dir, 1, ops, ops);
	rwt_move(test, dir, 2, ops, ops);
}

static void rw_write_test(struct kunit *test)
{
	rwt_three_pages(test, DMA_TO_DEVICE, false);
}

static void rw_read_test(struct kunit *test)
{
	rwt_three_pages(test, DMA_FROM_DEVICE, false);
}

static void rw_write_mr_test(struct kunit *test)
{
	rwt_three_pages(test, DMA_TO_DEVICE, true);
}

static void rw_read_mr_test(struct kunit *test)
{
	rwt_three_pages(test, DMA_FROM_DEVICE, true);
}

/* One page from RWT_OFF: one request with one SGE, or one MR. */
static void rw_single_sge_test(struct kunit *test)
{
	rwt_connect(test, 2);
	rwt_buf_alloc(test, 1, PAGE_SIZE, RWT_OFF);
	rwt_move(test, DMA_TO_DEVICE, 3, 1, 1);
	rwt_move(test, DMA_FROM_DEVICE, 4, 1, 1);
}

/*
 * More entries than a request has SGEs: the requests are chained, only
 * the last is signalled.  The offset passes over the whole first entry.
 */
static void rw_many_sges_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	u32 n, ops;

	rwt_connect(test, 2);
	n = min(ctx->qp[0]->max_write_sge, ctx->qp[0]->max_read_sge);
	KUNIT_ASSERT_GE(test, n, 1);
	rwt_buf_alloc(test, 2 * n + 2, 123, PAGE_SIZE + 10);
	/* entry 0 skipped, 2n + 1 left */

	ops = DIV_ROUND_UP(2 * n + 1, ctx->qp[0]->max_write_sge);
	rwt_move(test, DMA_TO_DEVICE, 5, ops, ops);
	ops = DIV_ROUND_UP(2 * n + 1, ctx->qp[0]->max_read_sge);
	rwt_move(test, DMA_FROM_DEVICE, 6, ops, ops);
}

/* RWT_BIG_PAGES pages with force_mr: two MRs, chained. */
static void rw_two_mrs_test(struct kunit *test)
{
	rdma_rw_set_force_mr(true);
	rwt_connect(test, 2);
	rwt_buf_alloc(test, RWT_BIG_PAGES, PAGE_SIZE / 2, 1);
	/* REG_MR and WRITE twice; then LOCAL_INV, REG_MR and READ twice */
	rwt_move(test, DMA_TO_DEVICE, 7, 4, 2);
	rwt_move(test, DMA_FROM_DEVICE, 8, 6, 2);
}

/* rdma_rw_ctx_init() must fail with @want and leave nothing taken. */
static void rwt_expect_init_fails(struct kunit *test, struct scatterlist *sg,
				  u32 sg_cnt, u32 offset,
				  enum dma_data_direction dir, int want)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_qp *qp = ctx->qp[0];
	unsigned int pool = rwt_pool_count(qp, &qp->rdma_mrs);
	struct rdma_rw_ctx rw;
	int ret;

	ret = rdma_rw_ctx_init(&rw, qp, 1, sg, sg_cnt, offset,
			       (uintptr_t)ctx->remote,
			       ctx->pd[1]->unsafe_global_rkey, dir);
	KUNIT_EXPECT_EQ(test, ret, want);
	if (ret >= 0)
		rdma_rw_ctx_destroy(&rw, qp, 1, sg, sg_cnt, dir);
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);
	KUNIT_EXPECT_EQ(test, rwt_pool_count(qp, &qp->rdma_mrs), pool);
}

/*
 * Bad input, without registration: nothing to move, a bad direction,
 * more than the IBA's largest message in one entry; and registration
 * asked for on a QP that was made without a pool.  The entries of more
 * than a page point at one page only: they are never touched.
 */
static void rw_bad_input_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct scatterlist big[2];
	struct rdma_rw_ctx rw;
	struct page *page;
	u32 ops;
	int ret;

	rwt_connect(test, 2);
	KUNIT_ASSERT_TRUE(test, list_empty(&ctx->qp[0]->rdma_mrs));
	rwt_buf_alloc(test, 3, RWT_TAIL, RWT_OFF);

	rwt_expect_init_fails(test, ctx->buf.sgt.sgl, 0, 0, DMA_TO_DEVICE,
			      -EINVAL);
	rwt_expect_init_fails(test, NULL, 3, 0, DMA_TO_DEVICE, -EINVAL);
	rwt_expect_init_fails(test, ctx->buf.sgt.sgl, 3, 0, DMA_BIDIRECTIONAL,
			      -EINVAL);
	rwt_expect_init_fails(test, ctx->buf.sgt.sgl, 3, 0, DMA_NONE,
			      -EINVAL);
	/* an offset at or past the end */
	rwt_expect_init_fails(test, ctx->buf.sgt.sgl, 3,
			      2 * PAGE_SIZE + RWT_TAIL, DMA_TO_DEVICE, -EINVAL);
	rwt_expect_init_fails(test, ctx->buf.sgt.sgl, 3, U32_MAX,
			      DMA_FROM_DEVICE, -EINVAL);

	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	/* 3 GiB in one request, one SGE or several */
	sg_init_table(big, 2);
	sg_set_page(&big[0], page, 3U * SZ_1G, 0);
	sg_set_page(&big[1], page, 100, 0);
	rwt_expect_init_fails(test, big, 1, 0, DMA_TO_DEVICE, -EINVAL);
	rwt_expect_init_fails(test, big, 2, 0, DMA_FROM_DEVICE, -EINVAL);
	/* 1.5 GiB twice: two requests, posted never */
	sg_set_page(&big[0], page, SZ_1G + SZ_512M, 0);
	sg_set_page(&big[1], page, SZ_1G + SZ_512M, 0);
	ret = rdma_rw_ctx_init(&rw, ctx->qp[0], 1, big, 2, 0,
			       (uintptr_t)ctx->remote,
			       ctx->pd[1]->unsafe_global_rkey, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, ret, 2);
	if (ret >= 0) {
		KUNIT_EXPECT_EQ(test, rw.nr_ops, 2);
		rdma_rw_ctx_destroy(&rw, ctx->qp[0], 1, big, 2, DMA_TO_DEVICE);
	}

	/* registration on a QP made without a pool */
	rdma_rw_set_force_mr(true);
	rwt_expect_init_fails(test, ctx->buf.sgt.sgl, 3, RWT_OFF,
			      DMA_TO_DEVICE, -EAGAIN);
	rwt_expect_init_fails(test, ctx->buf.sgt.sgl, 3, RWT_OFF,
			      DMA_FROM_DEVICE, -EAGAIN);
	rdma_rw_set_force_mr(false);
	__free_page(page);

	/* and the QP still works */
	ops = DIV_ROUND_UP(3, ctx->qp[0]->max_write_sge);
	rwt_move(test, DMA_TO_DEVICE, 9, ops, ops);
}

/*
 * Bad input with registration: an entry with more pages than an MR
 * holds, a gap an MR cannot map, more MRs than the pool has.  The MRs
 * go back into the pool every time.
 */
static void rw_bad_input_mr_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct scatterlist gap[2];
	struct sg_table many;
	struct scatterlist *s;
	struct page *page;
	unsigned int i;

	rdma_rw_set_force_mr(true);
	rwt_connect(test, 1);
	KUNIT_ASSERT_EQ(test, rwt_pool_count(ctx->qp[0],
					     &ctx->qp[0]->rdma_mrs), 1);

	page = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, page);

	/* 257 pages in one entry */
	sg_init_table(gap, 1);
	sg_set_page(gap, page, RWT_BIG_PAGES * PAGE_SIZE, 0);
	rwt_expect_init_fails(test, gap, 1, 0, DMA_TO_DEVICE, -EINVAL);

	/* an entry that ends inside its page, then another page */
	sg_init_table(gap, 2);
	sg_set_page(&gap[0], page, 100, 0);
	sg_set_page(&gap[1], page + 1, PAGE_SIZE, 0);
	rwt_expect_init_fails(test, gap, 2, 0, DMA_FROM_DEVICE, -EINVAL);

	/* 257 entries need two MRs; the pool has one */
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&many, RWT_BIG_PAGES,
					     GFP_KERNEL), 0);
	for_each_sg(many.sgl, s, RWT_BIG_PAGES, i)
		sg_set_page(s, page, PAGE_SIZE, 0);
	rwt_expect_init_fails(test, many.sgl, RWT_BIG_PAGES, 0, DMA_TO_DEVICE,
			      -EAGAIN);
	sg_free_table(&many);
	__free_pages(page, 1);

	/* and the QP still works */
	rwt_buf_alloc(test, 3, RWT_TAIL, RWT_OFF);
	rwt_move(test, DMA_TO_DEVICE, 10, 2, 1);
	rwt_move(test, DMA_FROM_DEVICE, 11, 3, 1);
}

/*
 * A request of the caller's chained behind the context's, here a SEND of
 * no bytes: it alone completes.
 */
static void rw_chain_test(struct kunit *test)
{
	struct rwt_ctx *ctx = test->priv;
	struct ib_cqe other = { .done = rwt_done };
	struct ib_send_wr send = {
		.wr_cqe = &other,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr recv = { .wr_cqe = &other };
	struct rwt_buf *b = &ctx->buf;
	struct ib_send_wr *first;
	struct ib_wc wc = {};
	struct ib_qp *qp;

	rdma_rw_set_force_mr(true);
	rwt_connect(test, 2);
	qp = ctx->qp[0];
	rwt_buf_alloc(test, 3, RWT_TAIL, RWT_OFF);
	rwt_buf_pattern(b, 12, false);
	rwt_remote_pattern(ctx, RWT_REMOTE_OFF, 0, 0, false);

	KUNIT_ASSERT_EQ(test, rdma_rw_ctx_init(&ctx->rw, qp, 1, b->sgt.sgl,
					       b->nents, b->offset,
					       (uintptr_t)ctx->remote +
					       RWT_REMOTE_OFF,
					       ctx->pd[1]->unsafe_global_rkey,
					       DMA_TO_DEVICE), 2);
	ctx->rw_live = true;
	ctx->rw_dir = DMA_TO_DEVICE;

	first = rdma_rw_ctx_wrs(&ctx->rw, qp, 1, &ctx->cqe, &send);
	KUNIT_ASSERT_NOT_NULL(test, first);
	KUNIT_EXPECT_EQ(test, first->opcode, IB_WR_REG_MR);
	KUNIT_EXPECT_PTR_EQ(test, first->next, &ctx->rw.reg[0].wr.wr);
	KUNIT_EXPECT_PTR_EQ(test, ctx->rw.reg[0].wr.wr.next, &send);
	KUNIT_EXPECT_FALSE(test, ctx->rw.reg[0].wr.wr.send_flags &
			   IB_SEND_SIGNALED);
	KUNIT_ASSERT_EQ(test, ib_post_recv(ctx->qp[1], &recv, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(qp, first, NULL), 0);

	rwt_poll_one(test, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, wc.wr_cqe, &other);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);

	rdma_rw_ctx_destroy(&ctx->rw, qp, 1, b->sgt.sgl, b->nents,
			    DMA_TO_DEVICE);
	ctx->rw_live = false;
	KUNIT_EXPECT_EQ(test, rwt_mrs_used(qp), 0);
	KUNIT_EXPECT_EQ(test, rwt_remote_pattern(ctx, RWT_REMOTE_OFF, b->len,
						 12, true), 0);
}

static struct kunit_case rw_ctx_cases[] = {
	KUNIT_CASE(rw_write_test),
	KUNIT_CASE(rw_read_test),
	KUNIT_CASE(rw_write_mr_test),
	KUNIT_CASE(rw_read_mr_test),
	KUNIT_CASE(rw_single_sge_test),
	KUNIT_CASE(rw_many_sges_test),
	KUNIT_CASE(rw_two_mrs_test),
	KUNIT_CASE(rw_chain_test),
	KUNIT_CASE(rw_bad_input_test),
	KUNIT_CASE(rw_bad_input_mr_test),
	{}
};

static struct kunit_suite rw_ctx_suite = {
	.name = "rw_ctx",
	.init = rwt_ctx_init,
	.exit = rwt_exit,
	.test_cases = rw_ctx_cases,
};

kunit_test_suites(&rw_mr_pool_suite, &rw_ctx_suite);

MODULE_LICENSE("Dual BSD/GPL");
/* rdma_rw_set_force_mr() is exported for the suites alone */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
