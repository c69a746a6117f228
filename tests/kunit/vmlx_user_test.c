// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of what vmlx does for user objects without needing a
 * process: the checks of send WQEs a process wrote into its ring
 * (vmlx_user_wqe_check() in hw/mlx/vmlx_qp.c), and the separation of
 * kernel and user memory regions by PD (vmlx_mr.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "vmlx.h"

/* A send queue as vmlx_sq_init() sizes it for 256-byte slots. */
#define VUT_MAX_SGE	3
#define VUT_MAX_INLINE	48
#define VUT_SLOT	256

static void vut_sq(struct vmlx_sq *sq)
{
	memset(sq, 0, sizeof(*sq));
	sq->max_wr = 15;
	sq->max_sge = VUT_MAX_SGE;
	sq->max_inline = VUT_MAX_INLINE;
}

/* A WQE of @opcode with one SGE of @len bytes and junk in the scratch. */
static struct rxe_send_wqe *vut_wqe(struct kunit *test, u32 opcode, u32 len)
{
	struct rxe_send_wqe *wqe = kunit_kzalloc(test, VUT_SLOT, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	wqe->wr.wr_id = 0x1234;
	wqe->wr.opcode = opcode;
	wqe->wr.send_flags = IB_SEND_SIGNALED;
	wqe->status = 0xdead;
	wqe->state = 0xbeef;
	wqe->mask = ~0U;
	wqe->first_psn = 7;
	wqe->has_rd_atomic = 1;
	wqe->dma.num_sge = 1;
	wqe->dma.sge[0].addr = 0x10000;
	wqe->dma.sge[0].length = len;
	wqe->dma.sge[0].lkey = 0x100;
	wqe->dma.length = 1;
	wqe->dma.resid = 99;
	wqe->dma.cur_sge = 5;
	wqe->dma.sge_offset = 77;
	return wqe;
}

static void vmlx_uwqe_send_test(struct kunit *test)
{
	struct rxe_send_wqe *wqe = vut_wqe(test, IB_WR_SEND, 100);
	struct vmlx_sq sq;

	vut_sq(&sq);
	wqe->wr.send_flags |= BIT(20);
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_SUCCESS);
	/* the length is recomputed, the scratch reset, unknown flags gone */
	KUNIT_EXPECT_EQ(test, wqe->dma.length, 100U);
	KUNIT_EXPECT_EQ(test, wqe->dma.resid, 100U);
	KUNIT_EXPECT_EQ(test, wqe->dma.cur_sge, 0U);
	KUNIT_EXPECT_EQ(test, wqe->dma.sge_offset, 0U);
	KUNIT_EXPECT_EQ(test, wqe->state, (u32)VMLX_WQE_POSTED);
	KUNIT_EXPECT_EQ(test, wqe->status, (u32)IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wqe->mask, 0U);
	KUNIT_EXPECT_EQ(test, wqe->first_psn, 0U);
	KUNIT_EXPECT_EQ(test, wqe->has_rd_atomic, 0U);
	KUNIT_EXPECT_EQ(test, wqe->wr.send_flags, (u32)IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, wqe->wr.wr_id, 0x1234ULL);

	/* UD and UC QPs send too */
	wqe = vut_wqe(test, IB_WR_SEND_WITH_IMM, 10);
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_UD, &sq, wqe),
			IB_WC_SUCCESS);
	wqe = vut_wqe(test, IB_WR_SEND, 10);
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_UC, &sq, wqe),
			IB_WC_SUCCESS);
}

static void vmlx_uwqe_opcode_test(struct kunit *test)
{
	static const struct {
		enum ib_qp_type type;
		u32 opcode;
		bool ok;
	} cases[] = {
		{ IB_QPT_RC, IB_WR_RDMA_WRITE, true },
		{ IB_QPT_RC, IB_WR_RDMA_READ, true },
		{ IB_QPT_RC, IB_WR_SEND_WITH_INV, true },
		{ IB_QPT_RC, IB_WR_LOCAL_INV, true },
		{ IB_QPT_UC, IB_WR_RDMA_WRITE_WITH_IMM, true },
		{ IB_QPT_UC, IB_WR_RDMA_READ, false },
		{ IB_QPT_UC, IB_WR_ATOMIC_FETCH_AND_ADD, false },
		{ IB_QPT_UD, IB_WR_RDMA_WRITE, false },
		{ IB_QPT_UD, IB_WR_LOCAL_INV, false },
		/* kernel-only: would hand the kernel a pointer */
		{ IB_QPT_RC, IB_WR_REG_MR, false },
		{ IB_QPT_RC, IB_WR_REG_MR_INTEGRITY, false },
		{ IB_QPT_RC, IB_WR_BIND_MW, false },
		{ IB_QPT_RC, IB_WR_LSO, false },
		{ IB_QPT_RC, IB_WR_MASKED_ATOMIC_CMP_AND_SWP, false },
		{ IB_QPT_RC, 11, false },
		{ IB_QPT_RC, 0xffffffff, false },
	};
	enum ib_wc_status want;
	struct rxe_send_wqe *wqe;
	struct vmlx_sq sq;
	unsigned int i;

	vut_sq(&sq);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		wqe = vut_wqe(test, cases[i].opcode, 8);
		want = IB_WC_SUCCESS;
		if (!cases[i].ok)
			want = IB_WC_LOC_QP_OP_ERR;
		KUNIT_EXPECT_EQ_MSG(test,
				    vmlx_user_wqe_check(cases[i].type, &sq, wqe),
				    want, "case %u", i);
	}
}

static void vmlx_uwqe_sge_test(struct kunit *test)
{
	struct rxe_send_wqe *wqe;
	struct vmlx_sq sq;

	vut_sq(&sq);
	/* more SGEs than the QP has room for */
	wqe = vut_wqe(test, IB_WR_SEND, 8);
	wqe->dma.num_sge = VUT_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_LOC_QP_OP_ERR);
	wqe = vut_wqe(test, IB_WR_SEND, 8);
	wqe->dma.num_sge = 0x80000000;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_LOC_QP_OP_ERR);

	/* the total is the sum of the SGEs, not what the WQE says */
	wqe = vut_wqe(test, IB_WR_RDMA_WRITE, 1000);
	wqe->dma.num_sge = 3;
	wqe->dma.sge[1].length = 24;
	wqe->dma.sge[2].length = 0;
	wqe->dma.length = 5;
	wqe->wr.wr.rdma.remote_addr = 0xabc000;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wqe->dma.length, 1024U);
	KUNIT_EXPECT_EQ(test, wqe->iova, 0xabc000ULL);

	/* SGEs adding up past the largest message */
	wqe = vut_wqe(test, IB_WR_SEND, 0xffffffff);
	wqe->dma.num_sge = 2;
	wqe->dma.sge[1].length = 0xffffffff;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_LOC_LEN_ERR);
}

static void vmlx_uwqe_inline_test(struct kunit *test)
{
	struct rxe_send_wqe *wqe;
	struct vmlx_sq sq;

	vut_sq(&sq);
	wqe = vut_wqe(test, IB_WR_SEND, 0);
	wqe->wr.send_flags |= IB_SEND_INLINE;
	wqe->dma.length = VUT_MAX_INLINE;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wqe->dma.length, (u32)VUT_MAX_INLINE);
	KUNIT_EXPECT_EQ(test, wqe->dma.num_sge, 0U);

	wqe = vut_wqe(test, IB_WR_SEND, 0);
	wqe->wr.send_flags |= IB_SEND_INLINE;
	wqe->dma.length = VUT_MAX_INLINE + 1;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_LOC_LEN_ERR);

	/* inline means nothing to a READ: its SGEs count */
	wqe = vut_wqe(test, IB_WR_RDMA_READ, 64);
	wqe->wr.send_flags |= IB_SEND_INLINE;
	wqe->dma.length = 4096;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_FALSE(test, wqe->wr.send_flags & IB_SEND_INLINE);
	KUNIT_EXPECT_EQ(test, wqe->dma.length, 64U);
}

static void vmlx_uwqe_atomic_test(struct kunit *test)
{
	struct rxe_send_wqe *wqe;
	struct vmlx_sq sq;

	vut_sq(&sq);
	wqe = vut_wqe(test, IB_WR_ATOMIC_CMP_AND_SWP, 64);
	wqe->wr.wr.atomic.remote_addr = 0x5000;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wqe->dma.length, 8U);
	KUNIT_EXPECT_EQ(test, wqe->iova, 0x5000ULL);

	wqe = vut_wqe(test, IB_WR_ATOMIC_FETCH_AND_ADD, 4);
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_LOC_QP_OP_ERR);
	wqe = vut_wqe(test, IB_WR_ATOMIC_FETCH_AND_ADD, 8);
	wqe->dma.num_sge = 2;
	KUNIT_EXPECT_EQ(test, vmlx_user_wqe_check(IB_QPT_RC, &sq, wqe),
			IB_WC_LOC_QP_OP_ERR);
}

/* Kernel MRs stay out of user PDs, user MRs out of kernel PDs. */
static void vmlx_user_pd_test(struct kunit *test)
{
	struct ib_device *ibdev = ib_device_get_by_name("vmlx0");
	struct vmlx_mr *mr;
	struct ib_pd *pd;
	struct ib_mr *ibmr;
	int err = 0;

	KUNIT_ASSERT_NOT_NULL(test, ibdev);
	pd = ib_alloc_pd(ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));

	ibmr = vmlx_reg_user_mr(pd, 0x10000, 4096, 0x10000,
				IB_ACCESS_LOCAL_WRITE, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ibmr), -EINVAL);

	/* the same PD seen as a user PD: its DMA key no longer works */
	mr = vmlx_mr_get(to_vmlx(ibdev), pd, pd->local_dma_lkey, VMLX_LKEY,
			 (uintptr_t)pd, 8, 0, &err);
	KUNIT_EXPECT_NOT_NULL(test, mr);
	if (mr)
		vmlx_mr_put(mr);
	to_vpd(pd)->user = true;
	mr = vmlx_mr_get(to_vmlx(ibdev), pd, pd->local_dma_lkey, VMLX_LKEY,
			 (uintptr_t)pd, 8, 0, &err);
	KUNIT_EXPECT_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	if (mr)
		vmlx_mr_put(mr);
	ibmr = vmlx_get_dma_mr(pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ibmr), -EINVAL);
	ibmr = vmlx_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ibmr), -EINVAL);
	to_vpd(pd)->user = false;

	ib_dealloc_pd(pd);
	ib_device_put(ibdev);
}

static struct kunit_case vmlx_user_cases[] = {
	KUNIT_CASE(vmlx_uwqe_send_test),
	KUNIT_CASE(vmlx_uwqe_opcode_test),
	KUNIT_CASE(vmlx_uwqe_sge_test),
	KUNIT_CASE(vmlx_uwqe_inline_test),
	KUNIT_CASE(vmlx_uwqe_atomic_test),
	KUNIT_CASE(vmlx_user_pd_test),
	{}
};

static struct kunit_suite vmlx_user_suite = {
	.name = "vmlx_user",
	.test_cases = vmlx_user_cases,
};

kunit_test_suites(&vmlx_user_suite);

/* what the driver exports for the suites alone (VISIBLE_IF_KUNIT) */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
