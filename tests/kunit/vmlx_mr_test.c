// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of vmlx's memory regions (hw/mlx/vmlx_mr.c) and of the
 * objects around them (vmlx_pd.c, vmlx_cq.c, vmlx_srq.c), run against the
 * HCA vmlx0 that the built-in driver registered at boot, through the
 * core's verbs and the driver's internal functions: key and bounds
 * checks, fast registration and invalidation, dereg against users,
 * scatter/gather copies; plus PSN window arithmetic (vmlx_hdr.h).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "vmlx.h"

#define VMR_REMOTE	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)

struct vmr_ctx {
	struct ib_device *ibdev;
	struct vmlx_dev *vdev;
	struct ib_pd *pd;
	struct ib_pd *pd2;
};

static int vmr_init(struct kunit *test)
{
	struct vmr_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->ibdev = ib_device_get_by_name("vmlx0");
	KUNIT_ASSERT_NOT_NULL_MSG(test, ctx->ibdev,
				  "vmlx0 is not registered");
	ctx->vdev = to_vmlx(ctx->ibdev);
	test->priv = ctx;

	ctx->pd = ib_alloc_pd(ctx->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->pd));
	ctx->pd2 = ib_alloc_pd(ctx->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->pd2));
	return 0;
}

static void vmr_exit(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;

	if (!ctx || !ctx->ibdev)
		return;
	if (ctx->pd2 && !IS_ERR(ctx->pd2))
		ib_dealloc_pd(ctx->pd2);
	if (ctx->pd && !IS_ERR(ctx->pd))
		ib_dealloc_pd(ctx->pd);
	ib_device_put(ctx->ibdev);
}

/* vmlx_mr_get() must fail with @want; no reference is left behind. */
static void vmr_expect_fail(struct kunit *test, struct ib_pd *pd, u32 key,
			    u64 iova, u64 len, int access, int want)
{
	struct vmr_ctx *ctx = test->priv;
	struct vmlx_mr *mr;
	int err = 0;

	mr = vmlx_mr_get(ctx->vdev, pd, key, VMLX_RKEY, iova, len, access,
			 &err);
	KUNIT_EXPECT_NULL(test, mr);
	if (mr)
		vmlx_mr_put(mr);
	KUNIT_EXPECT_EQ(test, err, want);
}

static void vmr_expect_ok(struct kunit *test, struct ib_pd *pd, u32 key,
			  u64 iova, u64 len, int access)
{
	struct vmr_ctx *ctx = test->priv;
	struct vmlx_mr *mr;
	int err = 0;

	mr = vmlx_mr_get(ctx->vdev, pd, key, VMLX_LKEY, iova, len, access,
			 &err);
	KUNIT_EXPECT_NOT_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, err, 0);
	if (mr)
		vmlx_mr_put(mr);
}

/* The core's DMA MR behind a kernel PD's local_dma_lkey. */
static void vmlx_mr_dma_key_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	u32 key = ctx->pd->local_dma_lkey;
	u64 buf;

	buf = (uintptr_t)kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NE(test, buf, 0);

	KUNIT_EXPECT_NE(test, key >> 8, 0);
	KUNIT_EXPECT_EQ(test, key & 0xff, 0);
	KUNIT_EXPECT_NE(test, key, ctx->pd2->local_dma_lkey);
	vmr_expect_ok(test, ctx->pd, key, buf, 64, 0);
	vmr_expect_ok(test, ctx->pd, key, buf, 64, IB_ACCESS_LOCAL_WRITE);

	/* wrong variant byte, no such index, wrong PD */
	vmr_expect_fail(test, ctx->pd, key | 1, buf, 64, 0, -EINVAL);
	vmr_expect_fail(test, ctx->pd, key ^ 0xff, buf, 64, 0, -EINVAL);
	vmr_expect_fail(test, ctx->pd, 0, buf, 64, 0, -EINVAL);
	vmr_expect_fail(test, ctx->pd, (VMLX_MAX_MR + 1) << 8, buf, 64, 0,
			-EINVAL);
	vmr_expect_fail(test, ctx->pd2, key, buf, 64, 0, -EINVAL);

	/* a local-only MR refuses every remote access */
	vmr_expect_fail(test, ctx->pd, key, buf, 64, IB_ACCESS_REMOTE_READ,
			-EACCES);
	vmr_expect_fail(test, ctx->pd, key, buf, 64, IB_ACCESS_REMOTE_WRITE,
			-EACCES);
	vmr_expect_fail(test, ctx->pd, key, buf, 8, IB_ACCESS_REMOTE_ATOMIC,
			-EACCES);

	/* all of memory up to U64_MAX - 1, and no range that wraps */
	vmr_expect_ok(test, ctx->pd, key, U64_MAX - 10, 10, 0);
	vmr_expect_ok(test, ctx->pd, key, U64_MAX, 0, 0);
	vmr_expect_fail(test, ctx->pd, key, U64_MAX - 9, 10, 0, -ERANGE);
	vmr_expect_fail(test, ctx->pd, key, U64_MAX - 10, 100, 0, -ERANGE);
	vmr_expect_fail(test, ctx->pd, key, 1, U64_MAX, 0, -ERANGE);
}

/*
 * A fast-registration MR over two discontiguous pieces: from byte 100 of
 * page 0 to the end of page 0, then 1000 bytes at the start of page 2.
 */
struct vmr_frmr {
	struct ib_mr *mr;
	u8 *base;		/* 4 pages */
	struct scatterlist sg[2];
	u64 iova;
	u64 length;
};

#define VMR_OFF0	100
#define VMR_LEN1	1000

static void vmr_frmr_alloc(struct kunit *test, struct vmr_frmr *f)
{
	struct vmr_ctx *ctx = test->priv;
	int n;

	f->base = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, 2);
	KUNIT_ASSERT_NOT_NULL(test, f->base);
	f->mr = ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->mr));

	sg_init_table(f->sg, 2);
	sg_set_buf(&f->sg[0], f->base + VMR_OFF0, PAGE_SIZE - VMR_OFF0);
	sg_set_buf(&f->sg[1], f->base + 2 * PAGE_SIZE, VMR_LEN1);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(ctx->ibdev, f->sg, 2,
					    DMA_BIDIRECTIONAL), 2);
	n = ib_map_mr_sg(f->mr, f->sg, 2, NULL, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, n, 2);
	f->iova = (uintptr_t)(f->base + VMR_OFF0);
	f->length = PAGE_SIZE - VMR_OFF0 + VMR_LEN1;
	KUNIT_EXPECT_EQ(test, f->mr->iova, f->iova);
	KUNIT_EXPECT_EQ(test, f->mr->length, f->length);
}

static void vmr_frmr_free(struct vmr_frmr *f)
{
	if (f->mr && !IS_ERR(f->mr))
		ib_dereg_mr(f->mr);
	free_pages((unsigned long)f->base, 2);
}

/* Where byte @off of the MR lives. */
static u8 *vmr_frmr_byte(struct vmr_frmr *f, u64 off)
{
	if (off < PAGE_SIZE - VMR_OFF0)
		return f->base + VMR_OFF0 + off;
	return f->base + 2 * PAGE_SIZE + (off - (PAGE_SIZE - VMR_OFF0));
}

static void vmlx_mr_fast_reg_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	int rw = IB_ACCESS_LOCAL_WRITE | VMR_REMOTE;
	struct vmr_frmr f = {};
	u32 old_key, key;

	vmr_frmr_alloc(test, &f);

	/* not usable before the REG_MR work request */
	old_key = f.mr->rkey;
	KUNIT_EXPECT_EQ(test, f.mr->lkey, f.mr->rkey);
	KUNIT_EXPECT_EQ(test, old_key & 0xff, 0);
	vmr_expect_fail(test, ctx->pd, old_key, f.iova, 1, 0, -EINVAL);

	ib_update_fast_reg_key(f.mr, 0x5a);
	key = f.mr->rkey;
	KUNIT_EXPECT_EQ(test, key, (old_key & ~0xffU) | 0x5a);
	vmr_expect_fail(test, ctx->pd, key, f.iova, 1, 0, -EINVAL);

	/* a REG_MR with someone else's index or PD fails */
	KUNIT_EXPECT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, f.mr,
					       key + 0x100, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd2, f.mr,
					       key, rw), -EINVAL);
	vmr_expect_fail(test, ctx->pd, key, f.iova, 1, 0, -EINVAL);

	KUNIT_ASSERT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, f.mr,
					       key, rw), 0);
	vmr_expect_ok(test, ctx->pd, key, f.iova, f.length, 0);
	vmr_expect_ok(test, ctx->pd, key, f.iova, f.length, rw);

	/* only the registered variant opens it; only its PD */
	vmr_expect_fail(test, ctx->pd, old_key, f.iova, 1, 0, -EINVAL);
	vmr_expect_fail(test, ctx->pd, key ^ 0x01, f.iova, 1, 0, -EINVAL);
	vmr_expect_fail(test, ctx->pd2, key, f.iova, 1, 0, -EINVAL);
	vmr_expect_fail(test, ctx->pd, key, f.iova, 8,
			IB_ACCESS_REMOTE_ATOMIC, -EACCES);

	/* bounds */
	vmr_expect_fail(test, ctx->pd, key, f.iova - 1, 1, 0, -ERANGE);
	vmr_expect_fail(test, ctx->pd, key, f.iova - 1, 2, 0, -ERANGE);
	vmr_expect_fail(test, ctx->pd, key, f.iova + f.length - 10, 11, 0,
			-ERANGE);
	vmr_expect_fail(test, ctx->pd, key, f.iova, f.length + 1, 0,
			-ERANGE);
	vmr_expect_fail(test, ctx->pd, key, f.iova + 10, U64_MAX - 5, 0,
			-ERANGE);
	vmr_expect_fail(test, ctx->pd, key, f.iova + 1, U64_MAX, 0,
			-ERANGE);
	vmr_expect_fail(test, ctx->pd, key, U64_MAX, 2, 0, -ERANGE);
	vmr_expect_ok(test, ctx->pd, key, f.iova + f.length - 1, 1, 0);
	vmr_expect_ok(test, ctx->pd, key, f.iova + f.length, 0, 0);
	vmr_expect_ok(test, ctx->pd, key, f.iova, 0, 0);
	vmr_expect_fail(test, ctx->pd, key, f.iova + f.length + 1, 0, 0,
			-ERANGE);
	vmr_expect_fail(test, ctx->pd, key, f.iova - 1, 0, 0, -ERANGE);

	/* LOCAL_INV: wrong PD or variant first, then the real one */
	KUNIT_EXPECT_EQ(test, vmlx_mr_invalidate(ctx->vdev, ctx->pd2, key),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_mr_invalidate(ctx->vdev, ctx->pd,
						 key ^ 1), -EINVAL);
	vmr_expect_ok(test, ctx->pd, key, f.iova, 1, 0);
	KUNIT_EXPECT_EQ(test, vmlx_mr_invalidate(ctx->vdev, ctx->pd, key), 0);
	vmr_expect_fail(test, ctx->pd, key, f.iova, 1, 0, -EINVAL);
	/* the DMA MR cannot be invalidated */
	KUNIT_EXPECT_EQ(test, vmlx_mr_invalidate(ctx->vdev, ctx->pd,
						 ctx->pd->local_dma_lkey),
			-EINVAL);

	/* and registered again under the next key */
	ib_update_fast_reg_key(f.mr, 0x5b);
	KUNIT_EXPECT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, f.mr,
					       f.mr->rkey, rw), 0);
	vmr_expect_ok(test, ctx->pd, f.mr->rkey, f.iova, f.length, 0);
	vmr_expect_fail(test, ctx->pd, key, f.iova, 1, 0, -EINVAL);

	vmr_frmr_free(&f);
}

/* Remote rights without LOCAL_WRITE: local reads only. */
static void vmlx_mr_local_write_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	struct vmr_frmr f = {};
	struct rxe_sge sge;
	u8 buf[16] = {};

	vmr_frmr_alloc(test, &f);
	KUNIT_ASSERT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, f.mr,
					       f.mr->rkey,
					       IB_ACCESS_REMOTE_READ), 0);
	vmr_expect_ok(test, ctx->pd, f.mr->lkey, f.iova, 16, 0);
	vmr_expect_ok(test, ctx->pd, f.mr->rkey, f.iova, 16,
		      IB_ACCESS_REMOTE_READ);
	vmr_expect_fail(test, ctx->pd, f.mr->lkey, f.iova, 16,
			IB_ACCESS_LOCAL_WRITE, -EACCES);
	vmr_expect_fail(test, ctx->pd, f.mr->rkey, f.iova, 16,
			IB_ACCESS_REMOTE_WRITE, -EACCES);

	sge.addr = f.iova;
	sge.length = 16;
	sge.lkey = f.mr->lkey;
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, &sge, 1, 0,
					    buf, 16, VMLX_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, &sge, 1, 0,
					    buf, 16, VMLX_TO_MR), -EACCES);
	vmr_frmr_free(&f);
}

/* vmlx_mr_copy() and vmlx_mr_atomic_addr() across the MR's pages. */
static void vmlx_mr_copy_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	struct vmr_frmr f = {};
	struct vmlx_mr *mr;
	u64 start = PAGE_SIZE - VMR_OFF0 - 200;	/* 200 bytes before the gap */
	u8 out[400], in[400];
	int err, i;
	u64 iova;

	vmr_frmr_alloc(test, &f);
	KUNIT_ASSERT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, f.mr,
					       f.mr->rkey,
					       IB_ACCESS_LOCAL_WRITE), 0);

	for (i = 0; i < sizeof(out); i++)
		out[i] = i * 7 + 3;
	mr = vmlx_mr_get(ctx->vdev, ctx->pd, f.mr->lkey, VMLX_LKEY,
			 f.iova + start, sizeof(out), IB_ACCESS_LOCAL_WRITE,
			 &err);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	vmlx_mr_copy(mr, f.iova + start, out, sizeof(out), VMLX_TO_MR);
	for (i = 0; i < sizeof(out); i++)
		KUNIT_EXPECT_EQ(test, *vmr_frmr_byte(&f, start + i), out[i]);
	/* nothing in the page in between */
	KUNIT_EXPECT_EQ(test, f.base[PAGE_SIZE], 0);
	KUNIT_EXPECT_EQ(test, f.base[2 * PAGE_SIZE - 1], 0);

	memset(in, 0, sizeof(in));
	vmlx_mr_copy(mr, f.iova + start, in, sizeof(in), VMLX_FROM_MR);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, sizeof(in)), 0);

	/* an aligned 8 bytes in the second piece */
	iova = f.iova + PAGE_SIZE - VMR_OFF0 + 64;
	KUNIT_EXPECT_PTR_EQ(test, vmlx_mr_atomic_addr(mr, iova),
			    (void *)(f.base + 2 * PAGE_SIZE + 64));
	vmlx_mr_put(mr);
	vmr_frmr_free(&f);
}

/* Nobody uses the MR: dereg returns at once and the key is gone. */
static void vmlx_mr_dereg_idle_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	struct vmr_frmr f = {};
	u32 key;

	vmr_frmr_alloc(test, &f);
	key = f.mr->rkey;
	KUNIT_ASSERT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, f.mr, key,
					       IB_ACCESS_REMOTE_READ), 0);
	vmr_expect_ok(test, ctx->pd, key, f.iova, 1, IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(f.mr), 0);
	f.mr = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->pd->usecnt), 0);
	vmr_expect_fail(test, ctx->pd, key, f.iova, 1, 0, -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_mr_invalidate(ctx->vdev, ctx->pd, key),
			-EINVAL);
	vmr_frmr_free(&f);

	/* a REG_MR of an MR that was never mapped is refused */
	f.mr = ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f.mr));
	KUNIT_EXPECT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, f.mr,
					       f.mr->rkey, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(f.mr), 0);

	/* the core's limits on what can be allocated */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG,
						  VMLX_MAX_FAST_REG_PAGES + 1)),
			-EINVAL);
}

struct vmr_dereg {
	struct work_struct work;
	struct vmr_frmr f;
	int ret;
	struct completion done;
};

static void vmr_dereg_work(struct work_struct *work)
{
	struct vmr_dereg *d = container_of(work, struct vmr_dereg, work);

	d->ret = ib_dereg_mr(d->f.mr);
	complete(&d->done);
}

/* A packet holds the MR: dereg waits until it lets go. */
static void vmlx_mr_dereg_busy_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	struct vmr_dereg d = {};
	struct vmlx_mr *user;
	int err;
	u32 key;

	vmr_frmr_alloc(test, &d.f);
	key = d.f.mr->rkey;
	KUNIT_ASSERT_EQ(test, vmlx_mr_fast_reg(ctx->vdev, ctx->pd, d.f.mr,
					       key, IB_ACCESS_REMOTE_READ), 0);
	user = vmlx_mr_get(ctx->vdev, ctx->pd, key, VMLX_RKEY, d.f.iova, 8,
			   IB_ACCESS_REMOTE_READ, &err);
	KUNIT_ASSERT_NOT_NULL(test, user);

	init_completion(&d.done);
	INIT_WORK_ONSTACK(&d.work, vmr_dereg_work);
	schedule_work(&d.work);
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&d.done));
	/* already unreachable by key while it waits */
	vmr_expect_fail(test, ctx->pd, key, d.f.iova, 8, 0, -EINVAL);

	vmlx_mr_put(user);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&d.done, 10 * HZ),
			0);
	flush_work(&d.work);
	destroy_work_on_stack(&d.work);
	KUNIT_EXPECT_EQ(test, d.ret, 0);
	d.f.mr = NULL;
	vmr_frmr_free(&d.f);
}

/* Three buffers through the DMA lkey, with an empty entry in between. */
static void vmlx_mr_sge_copy_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	static const u32 lens[4] = { 10, 0, 20, 30 };
	struct rxe_sge sge[4];
	u8 *mem[4], src[60], dst[60];
	int i, j, k;

	for (i = 0; i < 4; i++) {
		mem[i] = kunit_kzalloc(test, lens[i] + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, mem[i]);
		sge[i].addr = (uintptr_t)mem[i];
		sge[i].length = lens[i];
		sge[i].lkey = ctx->pd->local_dma_lkey;
	}
	for (i = 0, k = 0; i < 4; i++)
		for (j = 0; j < lens[i]; j++, k++)
			mem[i][j] = k + 1;	/* byte k of the list is k + 1 */
	/* the empty entry's key is never looked at */
	sge[1].lkey = 0;

	memset(dst, 0, sizeof(dst));
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4, 5,
					    dst, 50, VMLX_FROM_MR), 0);
	for (k = 0; k < 50; k++)
		KUNIT_EXPECT_EQ(test, dst[k], k + 5 + 1);

	for (k = 0; k < 40; k++)
		src[k] = 0x80 | k;
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4, 15,
					    src, 40, VMLX_TO_MR), 0);
	for (i = 0, k = 0; i < 4; i++) {
		for (j = 0; j < lens[i]; j++, k++)
			KUNIT_EXPECT_EQ(test, mem[i][j],
					k < 15 || k >= 55 ?
					k + 1 : 0x80 | (k - 15));
		KUNIT_EXPECT_EQ(test, mem[i][lens[i]], 0);	/* no overrun */
	}

	/* shorter than offset + len: nothing copied */
	memset(dst, 0xee, sizeof(dst));
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4, 50,
					    dst, 11, VMLX_FROM_MR), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4, 0,
					    src, 61, VMLX_TO_MR), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4,
					    U32_MAX, dst, 2, VMLX_FROM_MR),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, dst[0], 0xee);
	KUNIT_EXPECT_EQ(test, mem[0][0], 1);
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4, 60,
					    dst, 0, VMLX_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 0, 0,
					    dst, 0, VMLX_FROM_MR), 0);

	/* a key problem in an entry the copy reaches */
	sge[3].lkey ^= 1;
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4, 0,
					    dst, 30, VMLX_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd, sge, 4, 0,
					    dst, 31, VMLX_FROM_MR), -EINVAL);
	sge[3].lkey ^= 1;
	KUNIT_EXPECT_EQ(test, vmlx_sge_copy(ctx->vdev, ctx->pd2, sge, 4, 0,
					    dst, 1, VMLX_FROM_MR), -EINVAL);
}

/* AH numbers and their lookup by PD. */
static void vmlx_mr_ah_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	struct rdma_ah_attr attr = {
		.type = RDMA_AH_ATTR_TYPE_IB,
		.port_num = 1,
		.dlid = 0x1234,
		.sl = 3,
		.src_path_bits = 1,
		.ah_flags = IB_AH_GRH,
		.grh = { .hop_limit = 7, .flow_label = 0x12345 },
	};
	struct rdma_ah_attr back;
	struct vmlx_av av;
	struct ib_ah *ah;
	u32 num;

	ah = rdma_create_ah(ctx->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	num = to_vah(ah)->ah_num;
	KUNIT_EXPECT_NE(test, num, 0);
	KUNIT_EXPECT_TRUE(test, vmlx_ah_lookup(ctx->vdev, num, ctx->pd, &av));
	KUNIT_EXPECT_EQ(test, av.dlid, 0x1234);
	KUNIT_EXPECT_EQ(test, av.sl, 3);
	KUNIT_EXPECT_EQ(test, av.src_path_bits, 1);
	KUNIT_EXPECT_EQ(test, av.port_num, 1);
	KUNIT_EXPECT_TRUE(test, av.global);
	KUNIT_EXPECT_EQ(test, av.grh.flow_label, 0x12345);
	KUNIT_EXPECT_FALSE(test, vmlx_ah_lookup(ctx->vdev, num, ctx->pd2,
						&av));
	KUNIT_EXPECT_FALSE(test, vmlx_ah_lookup(ctx->vdev, 0, ctx->pd, &av));

	KUNIT_EXPECT_EQ(test, rdma_query_ah(ah, &back), 0);
	KUNIT_EXPECT_EQ(test, back.dlid, 0x1234);
	KUNIT_EXPECT_EQ(test, back.ah_flags, IB_AH_GRH);
	KUNIT_EXPECT_EQ(test, back.grh.hop_limit, 7);

	KUNIT_EXPECT_EQ(test, rdma_destroy_ah(ah, 0), 0);
	KUNIT_EXPECT_FALSE(test, vmlx_ah_lookup(ctx->vdev, num, ctx->pd,
						&av));

	attr.sl = 16;
	KUNIT_EXPECT_EQ(test, PTR_ERR(rdma_create_ah(ctx->pd, &attr, 0)),
			-EINVAL);
}

struct vmr_cq_ctx {
	int comps;
	int events;
};

static void vmr_cq_comp(struct ib_cq *cq, void *context)
{
	((struct vmr_cq_ctx *)context)->comps++;
}

static void vmr_cq_event(struct ib_event *ev, void *context)
{
	if (ev->event == IB_EVENT_CQ_ERR)
		((struct vmr_cq_ctx *)context)->events++;
}

/* Arming, solicited-only arming, polling and overflow of a CQ. */
static void vmlx_mr_cq_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	struct ib_cq_init_attr cq_attr = { .cqe = 3 };
	struct vmr_cq_ctx cc = {};
	struct ib_wc wc = {}, out[4];
	struct vmlx_cq *cq;
	struct ib_cq *ibcq;
	int i;

	ibcq = ib_create_cq(ctx->ibdev, vmr_cq_comp, vmr_cq_event, &cc,
			    &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibcq));
	cq = to_vcq(ibcq);
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 3);

	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_SOLICITED |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	wc.wr_id = 1;
	KUNIT_EXPECT_EQ(test, vmlx_cq_post(cq, &wc, false), 0);
	KUNIT_EXPECT_EQ(test, cc.comps, 0);
	wc.wr_id = 2;
	KUNIT_EXPECT_EQ(test, vmlx_cq_post(cq, &wc, true), 0);
	KUNIT_EXPECT_EQ(test, cc.comps, 1);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 1);
	wc.wr_id = 3;
	KUNIT_EXPECT_EQ(test, vmlx_cq_post(cq, &wc, false), 0);
	KUNIT_EXPECT_EQ(test, cc.comps, 2);
	/* full: lost, reported once */
	KUNIT_EXPECT_EQ(test, vmlx_cq_post(cq, &wc, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vmlx_cq_post(cq, &wc, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, cc.events, 1);
	KUNIT_EXPECT_EQ(test, cc.comps, 2);

	KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, 2, out), 2);
	KUNIT_EXPECT_EQ(test, out[0].wr_id, 1);
	KUNIT_EXPECT_EQ(test, out[1].wr_id, 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, 4, out), 1);
	KUNIT_EXPECT_EQ(test, out[0].wr_id, 3);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, 4, out), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);

	/* the ring keeps going round */
	for (i = 0; i < 10; i++) {
		wc.wr_id = 100 + i;
		KUNIT_EXPECT_EQ(test, vmlx_cq_post(cq, &wc, false), 0);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, 4, out), 1);
		KUNIT_EXPECT_EQ(test, out[0].wr_id, 100 + i);
	}
	KUNIT_EXPECT_EQ(test, cc.comps, 3);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq(ibcq), 0);
}

struct vmr_srq_ctx {
	int limit_events;
};

static void vmr_srq_event(struct ib_event *ev, void *context)
{
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		((struct vmr_srq_ctx *)context)->limit_events++;
}

/* The SRQ limit fires once, when the count falls below it. */
static void vmlx_mr_srq_test(struct kunit *test)
{
	struct vmr_ctx *ctx = test->priv;
	struct vmr_srq_ctx sc = {};
	struct ib_srq_init_attr init = {
		.event_handler = vmr_srq_event,
		.srq_context = &sc,
		.attr = { .max_wr = 4, .max_sge = 2 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_sge sg = { .addr = 0x1000, .length = 8, .lkey = 0x100 };
	struct ib_recv_wr wr = { .sg_list = &sg, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	struct ib_srq_attr attr;
	struct rxe_recv_wqe *wqe;
	struct vmlx_srq *srq;
	struct ib_srq *ibsrq;
	int i;

	ibsrq = ib_create_srq(ctx->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibsrq));
	srq = to_vsrq(ibsrq);
	KUNIT_EXPECT_GE(test, init.attr.max_wr, 4);
	wqe = kunit_kzalloc(test, vmlx_recv_wqe_size(init.attr.max_sge),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wqe);

	for (i = 0; i < 3; i++) {
		wr.wr_id = i;
		KUNIT_EXPECT_EQ(test, ib_post_srq_recv(ibsrq, &wr, &bad), 0);
	}
	attr.srq_limit = init.attr.max_wr + 1;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ibsrq, &attr, IB_SRQ_LIMIT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ibsrq, &attr, IB_SRQ_MAX_WR),
			-EOPNOTSUPP);
	attr.srq_limit = 2;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ibsrq, &attr, IB_SRQ_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, ib_query_srq(ibsrq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 2);

	KUNIT_EXPECT_TRUE(test, vmlx_srq_pop(srq, wqe));	/* 2 left */
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 0);
	KUNIT_EXPECT_EQ(test, sc.limit_events, 0);
	KUNIT_EXPECT_TRUE(test, vmlx_srq_pop(srq, wqe));	/* 1 left */
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 1);
	KUNIT_EXPECT_EQ(test, wqe->dma.sge[0].lkey, 0x100);
	KUNIT_EXPECT_EQ(test, sc.limit_events, 1);
	KUNIT_EXPECT_EQ(test, ib_query_srq(ibsrq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 0);
	KUNIT_EXPECT_TRUE(test, vmlx_srq_pop(srq, wqe));	/* disarmed */
	KUNIT_EXPECT_EQ(test, sc.limit_events, 1);
	KUNIT_EXPECT_FALSE(test, vmlx_srq_pop(srq, wqe));

	KUNIT_EXPECT_EQ(test, ib_destroy_srq(ibsrq), 0);
}

static struct kunit_case vmlx_mr_cases[] = {
	KUNIT_CASE(vmlx_mr_dma_key_test),
	KUNIT_CASE(vmlx_mr_fast_reg_test),
	KUNIT_CASE(vmlx_mr_local_write_test),
	KUNIT_CASE(vmlx_mr_copy_test),
	KUNIT_CASE(vmlx_mr_dereg_idle_test),
	KUNIT_CASE(vmlx_mr_dereg_busy_test),
	KUNIT_CASE(vmlx_mr_sge_copy_test),
	KUNIT_CASE(vmlx_mr_ah_test),
	KUNIT_CASE(vmlx_mr_cq_test),
	KUNIT_CASE(vmlx_mr_srq_test),
	{}
};

static struct kunit_suite vmlx_mr_suite = {
	.name = "vmlx_mr",
	.init = vmr_init,
	.exit = vmr_exit,
	.test_cases = vmlx_mr_cases,
};

/* ------------------------------------------------------------------ */
/* PSN windows                                                         */
/* ------------------------------------------------------------------ */

/* Whether @psn lies in the @n PSNs from @first on, the way windows do. */
static bool vmr_psn_in(u32 psn, u32 first, u32 n)
{
	return vmlx_psn_compare(psn, first) >= 0 &&
	       vmlx_psn_compare(psn, vmlx_psn_add(first, n)) < 0;
}

static void vmlx_psn_add_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0xffffff, 1), 0);
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0xfffff0, 0x20), 0x10);
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0x123456, 0x1000000), 0x123456);
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0, VMLX_PSN_MASK), 0xffffff);
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0x800000, 0x800000), 0);
	/* subtracting n is adding 2^24 - n */
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(2, 0x1000000 - 5), 0xfffffd);
}

static void vmlx_psn_compare_test(struct kunit *test)
{
	/* around the wrap */
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x000000, 0xffffff), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0xffffff, 0x000000), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x000005, 0xfffffb), 0);
	KUNIT_EXPECT_EQ(test, vmlx_psn_compare(0xffffff,
					       vmlx_psn_add(0xfffffe, 1)), 0);

	/* at 2^23: just under it is ahead, exactly 2^23 counts as behind */
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x7fffff, 0x000000), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0x000000, 0x7fffff), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0x800000, 0x000000), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0x000000, 0x800000), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x7ffffe, 0xffffff), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0x7fffff, 0xffffff), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x000000, 0x800001), 0);

	/* a window of in-flight PSNs across the wrap */
	KUNIT_EXPECT_TRUE(test, vmr_psn_in(0xfffffe, 0xfffff0, 0x20));
	KUNIT_EXPECT_TRUE(test, vmr_psn_in(0x00000f, 0xfffff0, 0x20));
	KUNIT_EXPECT_TRUE(test, vmr_psn_in(0xfffff0, 0xfffff0, 0x20));
	KUNIT_EXPECT_FALSE(test, vmr_psn_in(0x000010, 0xfffff0, 0x20));
	KUNIT_EXPECT_FALSE(test, vmr_psn_in(0xffffef, 0xfffff0, 0x20));
	KUNIT_EXPECT_FALSE(test, vmr_psn_in(0x7ffff0, 0xfffff0, 0x20));
	/* the largest window that still orders: 2^23 - 1 PSNs */
	KUNIT_EXPECT_TRUE(test, vmr_psn_in(0x7ffffc, 0xfffffe, 0x7fffff));
	KUNIT_EXPECT_FALSE(test, vmr_psn_in(0x7ffffd, 0xfffffe, 0x7fffff));
}

static struct kunit_case vmlx_psn_cases[] = {
	KUNIT_CASE(vmlx_psn_add_test),
	KUNIT_CASE(vmlx_psn_compare_test),
	{}
};

static struct kunit_suite vmlx_psn_suite = {
	.name = "vmlx_psn",
	.test_cases = vmlx_psn_cases,
};

kunit_test_suites(&vmlx_mr_suite, &vmlx_psn_suite);

MODULE_DESCRIPTION("KUnit tests of vmlx memory regions and PSN windows");
MODULE_LICENSE("Dual BSD/GPL");
