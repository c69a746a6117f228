// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the core's verbs layer against a minimal fake driver:
 * objects in use cannot be freed, QP transitions and attributes the rules
 * refuse never reach the driver, port events refresh the cache before
 * handlers run, resource tracking counts what exists, and ib_alloc_cq()
 * delivers completions to their ib_cqe.  Kernel and user objects go
 * through the same create functions: the rules they share hold through
 * both the kernel and the user wrappers (which a fake user context and an
 * empty udata are enough to call), and the rules of users alone hold for
 * them only.  With CONFIG_SECURITY_INFINIBAND,
 * the P_Key indexes QPs use are tracked for the LSM as modifies set them,
 * a modify the driver refuses leaves them as they were, and a P_Key
 * change re-checks them (no LSM of a KUnit kernel refuses a P_Key, so the
 * QP stays usable).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

#define KVT_PKEYS	4
#define KVT_GIDS	2
#define KVT_MAX_WC	8

/* The fake driver's state; one device at a time. */
struct kvt_dev {
	struct ib_device ibdev;
	u32 lid;
	u16 pkey3;		/* what the driver reports at P_Key index 3 */
	int modify_qp_calls;
	int modify_qp_err;	/* what the driver's modify_qp returns */
	struct ib_wc pending[KVT_MAX_WC];
	int npending;
	/* objects other clients (IPoIB...) made when the device came */
	int base[RDMA_RESTRACK_MAX];
};

static struct kvt_dev *to_kvt(struct ib_device *ibdev)
{
	return container_of(ibdev, struct kvt_dev, ibdev);
}

static int kvt_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr, struct ib_udata *udata)
{
	attr->max_cqe = 64;
	attr->max_qp_wr = 64;
	attr->max_srq_wr = 64;
	attr->max_srq_sge = 4;
	attr->max_qp_rd_atom = 4;
	attr->max_qp_init_rd_atom = 4;
	attr->max_fast_reg_page_list_len = 16;
	attr->max_mr_size = SZ_1M;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static int kvt_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	attr->state = IB_PORT_ACTIVE;
	attr->lid = to_kvt(ibdev)->lid;
	attr->pkey_tbl_len = KVT_PKEYS;
	attr->gid_tbl_len = KVT_GIDS;
	return 0;
}

static int kvt_port_immutable(struct ib_device *ibdev, u32 port,
			      struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = KVT_PKEYS;
	immutable->gid_tbl_len = KVT_GIDS;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	return 0;
}

static int kvt_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	/* 0xffff, then a limited and a full member of partition 0x1234 */
	static const u16 pkeys[KVT_PKEYS - 1] = { 0xffff, 0x1234, 0x9234 };

	*pkey = index < KVT_PKEYS - 1 ? pkeys[index] : to_kvt(ibdev)->pkey3;
	return 0;
}

static int kvt_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->raw[15] = index + 1;
	return 0;
}

static int kvt_ok_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int kvt_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	cq->cqe = attr->cqe;
	return 0;
}

static int kvt_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int kvt_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	struct kvt_dev *kd = to_kvt(cq->device);
	int i;

	n = min(n, kd->npending);
	for (i = 0; i < n; i++)
		wc[i] = kd->pending[i];
	memmove(kd->pending, kd->pending + n,
		(kd->npending - n) * sizeof(*kd->pending));
	kd->npending -= n;
	return n;
}

static int kvt_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int kvt_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata)
{
	qp->qp_num = 42;
	return 0;
}

static int kvt_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			 struct ib_udata *udata)
{
	to_kvt(qp->device)->modify_qp_calls++;
	return to_kvt(qp->device)->modify_qp_err;
}

static int kvt_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int kvt_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *init,
			  struct ib_udata *udata)
{
	return 0;
}

static int kvt_destroy_srq(struct ib_srq *srq, struct ib_udata *udata)
{
	return 0;
}

static int kvt_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata)
{
	return 0;
}

static int kvt_destroy_ah(struct ib_ah *ah, u32 flags)
{
	return 0;
}

static struct ib_mr *kvt_new_mr(void)
{
	struct ib_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	return mr ? mr : ERR_PTR(-ENOMEM);
}

static struct ib_mr *kvt_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				  u32 max_num_sg)
{
	return kvt_new_mr();
}

static struct ib_mr *kvt_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt_addr, int access,
				     struct ib_udata *udata)
{
	return kvt_new_mr();
}

static int kvt_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	kfree(mr);
	return 0;
}

static const struct ib_device_ops kvt_ops = {
	.query_device = kvt_query_device,
	.query_port = kvt_query_port,
	.get_port_immutable = kvt_port_immutable,
	.query_pkey = kvt_query_pkey,
	.query_gid = kvt_query_gid,
	.alloc_pd = kvt_ok_pd,
	.dealloc_pd = kvt_ok_pd,
	.create_cq = kvt_create_cq,
	.destroy_cq = kvt_destroy_cq,
	.poll_cq = kvt_poll_cq,
	.req_notify_cq = kvt_req_notify_cq,
	.create_qp = kvt_create_qp,
	.modify_qp = kvt_modify_qp,
	.destroy_qp = kvt_destroy_qp,
	.create_srq = kvt_create_srq,
	.destroy_srq = kvt_destroy_srq,
	.create_ah = kvt_create_ah,
	.destroy_ah = kvt_destroy_ah,
	.alloc_mr = kvt_alloc_mr,
	.reg_user_mr = kvt_reg_user_mr,
	.dereg_mr = kvt_dereg_mr,
};

/* A driver that can make objects but not get rid of them. */
static const struct ib_device_ops kvt_no_destroy_ops = {
	.alloc_pd = kvt_ok_pd,
	.create_cq = kvt_create_cq,
	.create_srq = kvt_create_srq,
	.create_qp = kvt_create_qp,
	.create_ah = kvt_create_ah,
	.alloc_mr = kvt_alloc_mr,
	.reg_user_mr = kvt_reg_user_mr,
};

static int kvt_init(struct kunit *test)
{
	struct kvt_dev *kd = ib_alloc_device(struct kvt_dev, ibdev);
	int i;

	if (!kd)
		return -ENOMEM;
	kd->ibdev.ops = &kvt_ops;
	kd->ibdev.node_type = RDMA_NODE_IB_CA;
	kd->ibdev.phys_port_cnt = 1;
	kd->lid = 7;
	if (ib_register_device(&kd->ibdev, "kvt%d", NULL)) {
		ib_dealloc_device(&kd->ibdev);
		return -ENODEV;
	}
	for (i = 0; i < RDMA_RESTRACK_MAX; i++)
		kd->base[i] = rdma_restrack_count(&kd->ibdev, i);
	test->priv = kd;
	return 0;
}

/* The objects of a type the test made, not counting other clients'. */
static int kvt_objects(struct kunit *test, enum rdma_restrack_type type)
{
	struct kvt_dev *kd = test->priv;

	return rdma_restrack_count(&kd->ibdev, type) - kd->base[type];
}

static void kvt_exit(struct kunit *test)
{
	struct kvt_dev *kd = test->priv;

	ib_unregister_device(&kd->ibdev);
	ib_dealloc_device(&kd->ibdev);
}

struct kvt_objs {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
};

static void kvt_make_objs(struct kunit *test, struct kvt_objs *o,
			  enum ib_qp_type type)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_qp_init_attr qp_attr = {
		.qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4 },
	};

	o->pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o->pd));
	o->cq = ib_create_cq(dev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o->cq));
	qp_attr.send_cq = o->cq;
	qp_attr.recv_cq = o->cq;
	o->qp = ib_create_qp(o->pd, &qp_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o->qp));
}

static void kvt_free_objs(struct kunit *test, struct kvt_objs *o)
{
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(o->qp), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq(o->cq), 0);
	ib_dealloc_pd(o->pd);
}

/* A PD or CQ in use refuses to go; in reverse order everything goes. */
static void ib_verbs_usecnt(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_srq_init_attr srq_attr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct kvt_objs o;
	struct ib_srq *srq;

	kvt_make_objs(test, &o, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, o.pd->local_dma_lkey, dev->local_dma_lkey);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_PD), 1);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_CQ), 1);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_QP), 1);

	KUNIT_EXPECT_EQ(test, ib_dealloc_pd_user(o.pd, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq(o.cq), -EBUSY);

	srq = ib_create_srq(o.pd, &srq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	KUNIT_EXPECT_EQ(test, atomic_read(&o.pd->usecnt), 2);
	KUNIT_EXPECT_EQ(test, ib_destroy_srq(srq), 0);

	/* SRQ sizes beyond the device's limits are refused up front. */
	srq_attr.attr.max_wr = 65;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_srq(o.pd, &srq_attr)), -EINVAL);

	kvt_free_objs(test, &o);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_PD), 0);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_QP), 0);
}

/* Creation arguments the core refuses before the driver sees them. */
static void ib_verbs_create_checks(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq_init_attr big = { .cqe = 65 }, none = { .cqe = 0 };
	struct ib_qp_init_attr qp_attr = { .qp_type = IB_QPT_RC };
	struct ib_pd *pd;

	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_cq(dev, NULL, NULL, NULL, &big)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_cq(dev, NULL, NULL, NULL, &none)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_pd(dev, 0x80)), -EINVAL);

	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	/* no CQs */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(pd, &qp_attr)), -EINVAL);
	/* special QPs need a valid port */
	qp_attr.qp_type = IB_QPT_GSI;
	qp_attr.port_num = 2;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(pd, &qp_attr)), -EINVAL);
	/* unknown types */
	qp_attr.qp_type = IB_QPT_MAX;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(pd, &qp_attr)), -EOPNOTSUPP);
	ib_dealloc_pd(pd);
}

/*
 * What the core's user wrappers need of a process: a context on the
 * device and the udata of its command (empty: the fake driver reads none).
 */
struct kvt_user {
	struct ib_ucontext uctx;
	struct ib_udata udata;
};

static void kvt_user_init(struct kunit *test, struct kvt_user *u)
{
	memset(u, 0, sizeof(*u));
	u->uctx.device = &((struct kvt_dev *)test->priv)->ibdev;
}

/* The udata a destroy gets: the user's, or none for the kernel. */
static struct ib_udata *kvt_udata(struct kvt_user *u)
{
	return u ? &u->udata : NULL;
}

static const char *kvt_path(struct kvt_user *u)
{
	return u ? "user" : "kernel";
}

/*
 * Each kvt_try_*() creates an object through the kernel wrapper (@u NULL)
 * or the user wrapper, checks what the core recorded of it and destroys
 * it again.  Return: 0, or the error of the create.
 */
static int kvt_try_pd(struct kunit *test, struct kvt_user *u)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_pd *pd;

	pd = u ? ib_alloc_pd_user(&u->uctx, NULL, &u->udata) :
		 ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	KUNIT_EXPECT_EQ(test, ib_dealloc_pd_user(pd, kvt_udata(u)), 0);
	return 0;
}

static int kvt_try_cq(struct kunit *test, struct kvt_user *u,
		      const struct ib_cq_init_attr *attr)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq *cq;

	cq = u ? ib_create_cq_user(&u->uctx, NULL, attr, NULL, NULL, NULL,
				   &u->udata) :
		 ib_create_cq(dev, NULL, NULL, NULL, attr);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	KUNIT_EXPECT_EQ(test, cq->comp_vector, attr->comp_vector);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq_user(cq, kvt_udata(u)), 0);
	return 0;
}

static int kvt_try_srq(struct kunit *test, struct kvt_user *u,
		       struct ib_pd *pd, struct ib_srq_init_attr *attr)
{
	struct ib_srq *srq;

	srq = u ? ib_create_srq_user(pd, NULL, attr, &u->udata) :
		  ib_create_srq(pd, attr);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	KUNIT_EXPECT_EQ(test, ib_destroy_srq_user(srq, kvt_udata(u)), 0);
	return 0;
}

static int kvt_try_qp(struct kunit *test, struct kvt_user *u,
		      struct ib_pd *pd, struct ib_qp_init_attr *attr)
{
	struct ib_qp *qp;

	qp = u ? ib_create_qp_user(pd, NULL, attr, &u->udata) :
		 ib_create_qp(pd, attr);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	/* both paths record the port of the creation attributes */
	KUNIT_EXPECT_EQ(test, qp->port, attr->port_num);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp_user(qp, kvt_udata(u)), 0);
	return 0;
}

static int kvt_try_ah(struct kunit *test, struct kvt_user *u,
		      struct ib_pd *pd, struct rdma_ah_attr *attr)
{
	struct ib_ah *ah;

	ah = u ? rdma_create_ah_user(pd, NULL, attr, &u->udata) :
		 rdma_create_ah(pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	KUNIT_EXPECT_EQ(test, rdma_destroy_ah_user(ah, 0, kvt_udata(u)), 0);
	return 0;
}

/* A kernel MR of 4 pages, or a user MR of 4 KiB at 0x10000. */
static int kvt_try_mr(struct kunit *test, struct kvt_user *u,
		      struct ib_pd *pd)
{
	struct ib_mr *mr;

	mr = u ? ib_reg_user_mr(pd, NULL, 0x10000, SZ_4K, 0x10000,
				IB_ACCESS_LOCAL_WRITE, &u->udata) :
		 ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	KUNIT_EXPECT_EQ(test, mr->type,
			u ? IB_MR_TYPE_USER : IB_MR_TYPE_MEM_REG);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr_user(mr, kvt_udata(u)), 0);
	return 0;
}

/*
 * The creation checks of ib_verbs_create_checks() and the others the core
 * makes, through the kernel and the user wrappers alike: one create
 * function per object, so one set of rules.
 */
static void ib_verbs_create_checks_both_paths(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_srq_init_attr srq_attr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_qp_init_attr qp_attr = { .qp_type = IB_QPT_RC };
	struct rdma_ah_attr ah_attr = { .port_num = 1 };
	struct kvt_user user, *paths[] = { NULL, &user };
	struct ib_cq *cq;
	struct ib_pd *pd;
	int i;

	kvt_user_init(test, &user);
	/* a vector every CQ may use, whichever the path */
	dev->num_comp_vectors = 1;
	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = ib_create_cq(dev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct kvt_user *u = paths[i];
		const char *path = kvt_path(u);

		KUNIT_EXPECT_EQ_MSG(test, kvt_try_pd(test, u), 0, "%s", path);

		/* CQs: 1 to max_cqe entries, no flags */
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_cq(test, u, &cq_attr), 0,
				    "%s", path);
		cq_attr.cqe = 0;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_cq(test, u, &cq_attr),
				    -EINVAL, "%s", path);
		cq_attr.cqe = 65;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_cq(test, u, &cq_attr),
				    -EINVAL, "%s", path);
		cq_attr.cqe = 16;
		cq_attr.flags = 1;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_cq(test, u, &cq_attr),
				    -EOPNOTSUPP, "%s", path);
		cq_attr.flags = 0;

		/* SRQs: basic ones within the device's sizes */
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_srq(test, u, pd, &srq_attr),
				    0, "%s", path);
		srq_attr.attr.max_wr = 65;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_srq(test, u, pd, &srq_attr),
				    -EINVAL, "%s", path);
		srq_attr.attr.max_wr = 8;
		srq_attr.attr.max_sge = 5;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_srq(test, u, pd, &srq_attr),
				    -EINVAL, "%s", path);
		srq_attr.attr.max_sge = 1;
		srq_attr.attr.srq_limit = 9;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_srq(test, u, pd, &srq_attr),
				    -EINVAL, "%s", path);
		srq_attr.attr.srq_limit = 0;
		srq_attr.srq_type = IB_SRQT_XRC;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_srq(test, u, pd, &srq_attr),
				    -EOPNOTSUPP, "%s", path);
		srq_attr.srq_type = IB_SRQT_BASIC;

		/* QPs: both CQs, a known type, no create flags */
		qp_attr.send_cq = NULL;
		qp_attr.recv_cq = cq;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_qp(test, u, pd, &qp_attr),
				    -EINVAL, "%s", path);
		qp_attr.send_cq = cq;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_qp(test, u, pd, &qp_attr),
				    0, "%s", path);
		qp_attr.qp_type = IB_QPT_MAX;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_qp(test, u, pd, &qp_attr),
				    -EOPNOTSUPP, "%s", path);
		qp_attr.qp_type = IB_QPT_UD;
		qp_attr.create_flags = 1;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_qp(test, u, pd, &qp_attr),
				    -EOPNOTSUPP, "%s", path);
		qp_attr.create_flags = 0;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_qp(test, u, pd, &qp_attr),
				    0, "%s", path);
		qp_attr.qp_type = IB_QPT_RC;

		/* AHs: a port the device has */
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_ah(test, u, pd, &ah_attr),
				    0, "%s", path);
		ah_attr.port_num = 2;
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_ah(test, u, pd, &ah_attr),
				    -EINVAL, "%s", path);
		ah_attr.port_num = 1;

		KUNIT_EXPECT_EQ_MSG(test, kvt_try_mr(test, u, pd), 0, "%s",
				    path);
	}

	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq(cq), 0);
	ib_dealloc_pd(pd);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_PD), 0);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_CQ), 0);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_SRQ), 0);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_QP), 0);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_MR), 0);
}

/*
 * The completion vector, as Linux checks it: a user's must be below the
 * device's num_comp_vectors (so a device without vectors takes no user
 * CQ), a kernel caller's is left to the driver.  The two paths used to
 * disagree on a device without vectors.
 */
static void ib_verbs_cq_comp_vector(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq_init_attr attr = { .cqe = 16 };
	struct kvt_user user;

	kvt_user_init(test, &user);
	KUNIT_ASSERT_EQ(test, dev->num_comp_vectors, 0);
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, &user, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, NULL, &attr), 0);
	attr.comp_vector = 3;
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, &user, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, NULL, &attr), 0);

	dev->num_comp_vectors = 2;
	attr.comp_vector = 1;
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, &user, &attr), 0);
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, NULL, &attr), 0);
	attr.comp_vector = 2;
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, &user, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, kvt_try_cq(test, NULL, &attr), 0);
	KUNIT_EXPECT_EQ(test, kvt_objects(test, RDMA_RESTRACK_CQ), 0);
}

/*
 * A driver that cannot destroy an object does not get to create it,
 * through either path (only the user path used to check).
 */
static void ib_verbs_destroy_op_required(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_srq_init_attr srq_attr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_qp_init_attr qp_attr = { .qp_type = IB_QPT_RC };
	struct rdma_ah_attr ah_attr = { .port_num = 1 };
	struct kvt_user user, *paths[] = { NULL, &user };
	struct ib_cq *cq;
	struct ib_pd *pd;
	int i;

	kvt_user_init(test, &user);
	dev->num_comp_vectors = 1;
	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = ib_create_cq(dev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qp_attr.send_cq = cq;
	qp_attr.recv_cq = cq;

	dev->ops = &kvt_no_destroy_ops;
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct kvt_user *u = paths[i];
		const char *path = kvt_path(u);

		KUNIT_EXPECT_EQ_MSG(test, kvt_try_pd(test, u), -EOPNOTSUPP,
				    "%s", path);
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_cq(test, u, &cq_attr),
				    -EOPNOTSUPP, "%s", path);
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_srq(test, u, pd, &srq_attr),
				    -EOPNOTSUPP, "%s", path);
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_qp(test, u, pd, &qp_attr),
				    -EOPNOTSUPP, "%s", path);
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_ah(test, u, pd, &ah_attr),
				    -EOPNOTSUPP, "%s", path);
		KUNIT_EXPECT_EQ_MSG(test, kvt_try_mr(test, u, pd), -EOPNOTSUPP,
				    "%s", path);
	}
	dev->ops = &kvt_ops;

	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq(cq), 0);
	ib_dealloc_pd(pd);
}

/*
 * The special QPs are the kernel's: a user cannot create one even on a
 * valid port; a kernel caller can, on a port the device has, and the QP
 * records that port (which only kernel QPs used to).
 */
static void ib_verbs_special_qps(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_qp_init_attr qp_attr = { .qp_type = IB_QPT_GSI };
	struct kvt_user user;
	struct ib_cq *cq;
	struct ib_pd *pd;

	kvt_user_init(test, &user);
	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = ib_create_cq(dev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qp_attr.send_cq = cq;
	qp_attr.recv_cq = cq;

	qp_attr.port_num = 1;
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, NULL, pd, &qp_attr), 0);
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, &user, pd, &qp_attr), -EINVAL);
	qp_attr.qp_type = IB_QPT_SMI;
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, NULL, pd, &qp_attr), 0);
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, &user, pd, &qp_attr), -EINVAL);
	qp_attr.port_num = 2;
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, NULL, pd, &qp_attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, &user, pd, &qp_attr), -EINVAL);

	/* an RC QP keeps the port of its creation attributes on both paths */
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.port_num = 1;
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, NULL, pd, &qp_attr), 0);
	KUNIT_EXPECT_EQ(test, kvt_try_qp(test, &user, pd, &qp_attr), 0);

	KUNIT_EXPECT_EQ(test, ib_destroy_cq(cq), 0);
	ib_dealloc_pd(pd);
}

/* Whom resource tracking names: @caller for a kernel object, else @task. */
static void kvt_expect_owner(struct kunit *test,
			     const struct rdma_restrack_entry *res,
			     const char *caller, struct task_struct *task)
{
	KUNIT_EXPECT_EQ(test, rdma_is_kernel_res(res), !task);
	KUNIT_EXPECT_PTR_EQ(test, res->task, task);
	if (caller)
		KUNIT_EXPECT_STREQ(test, res->kern_name, caller);
	else
		KUNIT_EXPECT_NULL(test, res->kern_name);
}

/*
 * The owner resource tracking shows: the kernel caller's module for a
 * kernel object, the task that made it for a user object.
 */
static void ib_verbs_restrack_owner(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_srq_init_attr srq_attr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_qp_init_attr qp_attr = { .qp_type = IB_QPT_RC };
	struct kvt_user user;
	struct ib_pd *kpd, *upd;
	struct ib_cq *kcq, *ucq;
	struct ib_srq *ksrq, *usrq;
	struct ib_qp *kqp, *uqp;
	struct ib_mr *kmr, *umr;

	kvt_user_init(test, &user);
	dev->num_comp_vectors = 1;

	kpd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kpd));
	upd = ib_alloc_pd_user(&user.uctx, NULL, &user.udata);
	KUNIT_ASSERT_FALSE(test, IS_ERR(upd));
	kvt_expect_owner(test, &kpd->res, KBUILD_MODNAME, NULL);
	kvt_expect_owner(test, &upd->res, NULL, current);

	kcq = ib_create_cq(dev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kcq));
	ucq = ib_create_cq_user(&user.uctx, NULL, &cq_attr, NULL, NULL, NULL,
				&user.udata);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ucq));
	kvt_expect_owner(test, &kcq->res, KBUILD_MODNAME, NULL);
	kvt_expect_owner(test, &ucq->res, NULL, current);

	ksrq = ib_create_srq(kpd, &srq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ksrq));
	usrq = ib_create_srq_user(upd, NULL, &srq_attr, &user.udata);
	KUNIT_ASSERT_FALSE(test, IS_ERR(usrq));
	kvt_expect_owner(test, &ksrq->res, KBUILD_MODNAME, NULL);
	kvt_expect_owner(test, &usrq->res, NULL, current);

	qp_attr.send_cq = kcq;
	qp_attr.recv_cq = kcq;
	kqp = ib_create_qp(kpd, &qp_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kqp));
	qp_attr.send_cq = ucq;
	qp_attr.recv_cq = ucq;
	uqp = ib_create_qp_user(upd, NULL, &qp_attr, &user.udata);
	KUNIT_ASSERT_FALSE(test, IS_ERR(uqp));
	kvt_expect_owner(test, &kqp->res, KBUILD_MODNAME, NULL);
	kvt_expect_owner(test, &uqp->res, NULL, current);

	kmr = ib_alloc_mr(kpd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kmr));
	umr = ib_reg_user_mr(upd, NULL, 0x10000, SZ_4K, 0x10000,
			     IB_ACCESS_LOCAL_WRITE, &user.udata);
	KUNIT_ASSERT_FALSE(test, IS_ERR(umr));
	kvt_expect_owner(test, &kmr->res, KBUILD_MODNAME, NULL);
	kvt_expect_owner(test, &umr->res, NULL, current);

	KUNIT_EXPECT_EQ(test, ib_dereg_mr_user(umr, &user.udata), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(kmr), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp_user(uqp, &user.udata), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(kqp), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_srq_user(usrq, &user.udata), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_srq(ksrq), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq_user(ucq, &user.udata), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq(kcq), 0);
	KUNIT_EXPECT_EQ(test, ib_dealloc_pd_user(upd, &user.udata), 0);
	ib_dealloc_pd(kpd);
}

/*
 * The rules of memory regions that belong to one path by nature: a
 * kernel MR's type and page count, a user MR's access flags and range.
 */
static void ib_verbs_mr_checks(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct kvt_user user;
	struct ib_pd *pd;
	struct ib_mr *mr;

	kvt_user_init(test, &user);
	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));

	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_USER, 4)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_SG_GAPS, 4)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 17)),
			-EINVAL);
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 16);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	/* unknown access bits; remote write without local write; ODP */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, NULL, 0x10000, SZ_4K,
						     0x10000, 1 << 30,
						     &user.udata)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, NULL, 0x10000, SZ_4K,
						     0x10000,
						     IB_ACCESS_REMOTE_WRITE,
						     &user.udata)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, NULL, 0x10000, SZ_4K,
						     0x10000,
						     IB_ACCESS_ON_DEMAND,
						     &user.udata)), -EINVAL);
	/* empty, too long, wrapping; start and address at other offsets */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, NULL, 0x10000, 0,
						     0x10000, 0,
						     &user.udata)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, NULL, 0x10000,
						     SZ_1M + 1, 0x10000, 0,
						     &user.udata)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, NULL, U64_MAX - 1,
						     SZ_4K, 0x10ffe, 0,
						     &user.udata)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_reg_user_mr(pd, NULL, 0x10008, SZ_4K,
						     0x10000, 0,
						     &user.udata)), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 0);
	ib_dealloc_pd(pd);
}

/* ib_modify_qp() only lets through what the IBA rules allow. */
static void ib_verbs_modify_qp(struct kunit *test)
{
	struct kvt_dev *kd = test->priv;
	struct ib_qp_attr attr = {};
	struct kvt_objs o;

	kvt_make_objs(test, &o, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, o.qp->state, IB_QPS_RESET);

	/* RESET -> RTR is not a transition */
	attr.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE), -EINVAL);
	/* RESET -> INIT for RC needs PKEY_INDEX, PORT and ACCESS_FLAGS */
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE), -EINVAL);
	KUNIT_EXPECT_EQ(test, kd->modify_qp_calls, 0);

	attr.port_num = 1;
	attr.pkey_index = KVT_PKEYS;	/* out of the table */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), -EINVAL);
	attr.pkey_index = 0;
	attr.port_num = 2;		/* no such port */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), -EINVAL);
	attr.port_num = 1;
	attr.qp_access_flags = 1 << 20;	/* not an access flag */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), -EINVAL);
	KUNIT_EXPECT_EQ(test, kd->modify_qp_calls, 0);

	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), 0);
	KUNIT_EXPECT_EQ(test, o.qp->state, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, kd->modify_qp_calls, 1);

	/* INIT -> RTR with a 25-bit PSN and an invalid MTU */
	attr.qp_state = IB_QPS_RTR;
	attr.ah_attr.port_num = 1;
	attr.path_mtu = IB_MTU_4096 + 1;
	attr.rq_psn = 1 << 24;
	attr.max_dest_rd_atomic = 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE | IB_QP_AV |
					   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					   IB_QP_RQ_PSN |
					   IB_QP_MAX_DEST_RD_ATOMIC |
					   IB_QP_MIN_RNR_TIMER), -EINVAL);
	attr.path_mtu = IB_MTU_1024;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE | IB_QP_AV |
					   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					   IB_QP_RQ_PSN |
					   IB_QP_MAX_DEST_RD_ATOMIC |
					   IB_QP_MIN_RNR_TIMER), -EINVAL);
	attr.rq_psn = 0xffffff;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE | IB_QP_AV |
					   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					   IB_QP_RQ_PSN |
					   IB_QP_MAX_DEST_RD_ATOMIC |
					   IB_QP_MIN_RNR_TIMER), 0);
	KUNIT_EXPECT_EQ(test, o.qp->state, IB_QPS_RTR);

	/* RTR -> RTS: timeout is 5 bits */
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 32;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					   IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
					   IB_QP_MAX_QP_RD_ATOMIC), -EINVAL);
	attr.timeout = 14;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					   IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
					   IB_QP_MAX_QP_RD_ATOMIC), 0);
	KUNIT_EXPECT_EQ(test, o.qp->state, IB_QPS_RTS);

	/* any state -> ERR -> RESET */
	attr.qp_state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE), 0);
	attr.qp_state = IB_QPS_RESET;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, kd->modify_qp_calls, 5);
	kvt_free_objs(test, &o);
}

/* Port queries validate the port and index; the cache serves finds. */
static void ib_verbs_port_cache(struct kunit *test)
{
	struct ib_device *dev = &((struct kvt_dev *)test->priv)->ibdev;
	struct ib_port_attr pattr;
	union ib_gid gid;
	u16 index, pkey;
	u32 port;

	KUNIT_EXPECT_EQ(test, ib_query_port(dev, 0, &pattr), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_query_port(dev, 2, &pattr), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_query_port(dev, 1, &pattr), 0);
	KUNIT_EXPECT_EQ(test, pattr.lid, 7);
	KUNIT_EXPECT_EQ(test, ib_query_pkey(dev, 1, KVT_PKEYS, &pkey), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_query_pkey(dev, 1, 0, &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, 0xffff);

	/* the full member wins over the limited one */
	KUNIT_EXPECT_EQ(test, ib_find_pkey(dev, 1, 0x1234, &index), 0);
	KUNIT_EXPECT_EQ(test, index, 2);
	KUNIT_EXPECT_EQ(test, ib_find_pkey(dev, 1, 0x4321, &index), -ENOENT);

	KUNIT_EXPECT_EQ(test, rdma_query_gid(dev, 1, KVT_GIDS, &gid), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_query_gid(dev, 1, -1, &gid), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_query_gid(dev, 1, 1, &gid), 0);
	KUNIT_EXPECT_EQ(test, gid.raw[15], 2);
	KUNIT_EXPECT_EQ(test, ib_find_gid(dev, &gid, &port, &index), 0);
	KUNIT_EXPECT_EQ(test, port, 1);
	KUNIT_EXPECT_EQ(test, index, 1);
}

struct kvt_event_probe {
	struct ib_event_handler handler;
	struct completion seen;
	enum ib_event_type type;
	int find_ret;
	u16 index;
};

static void kvt_event_fn(struct ib_event_handler *h, struct ib_event *event)
{
	struct kvt_event_probe *p = container_of(h, struct kvt_event_probe,
						 handler);

	p->type = event->event;
	/* The cache must already hold the new table when handlers run. */
	p->find_ret = ib_find_pkey(event->device, 1, 0xbeef, &p->index);
	complete(&p->seen);
}

/* Events reach handlers, in process context, after the cache refresh. */
static void ib_verbs_events(struct kunit *test)
{
	struct kvt_dev *kd = test->priv;
	struct kvt_event_probe probe = {};
	struct ib_event event = {
		.device = &kd->ibdev,
		.event = IB_EVENT_PKEY_CHANGE,
		.element.port_num = 1,
	};
	u16 index;

	init_completion(&probe.seen);
	INIT_IB_EVENT_HANDLER(&probe.handler, &kd->ibdev, kvt_event_fn);
	ib_register_event_handler(&probe.handler);

	/* The driver's table changes; the cache does not know yet. */
	kd->pkey3 = 0xbeef;
	KUNIT_EXPECT_EQ(test, ib_find_pkey(&kd->ibdev, 1, 0xbeef, &index),
			-ENOENT);
	ib_dispatch_event(&event);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&probe.seen, 5 * HZ),
			0);
	KUNIT_EXPECT_EQ(test, probe.type, IB_EVENT_PKEY_CHANGE);
	KUNIT_EXPECT_EQ(test, probe.find_ret, 0);
	KUNIT_EXPECT_EQ(test, probe.index, 3);
	ib_unregister_event_handler(&probe.handler);

	KUNIT_EXPECT_STREQ(test, ib_event_msg(IB_EVENT_LID_CHANGE), "LID change");
	KUNIT_EXPECT_STREQ(test, ib_event_msg(1000), "unrecognized event");
	KUNIT_EXPECT_STREQ(test, ib_wc_status_msg(IB_WC_WR_FLUSH_ERR),
			   "WR flushed");
}

#ifdef CONFIG_SECURITY_INFINIBAND
/* How many pairs of @qp are on the LSM's list of @port. */
static int kvt_listed(struct ib_device *dev, u32 port, struct ib_qp *qp)
{
	struct ib_qp_pkey *pp;
	int n = 0;

	list_for_each_entry(pp, &dev->port_data[port].qp_pkeys, entry)
		n += pp->sec->qp == qp;
	return n;
}

/* The P_Key index a QP uses, tracked for the LSM as modifies set it. */
static void ib_verbs_qp_security(struct kunit *test)
{
	struct kvt_dev *kd = test->priv;
	struct ib_device *dev = &kd->ibdev;
	struct kvt_event_probe probe = {};
	struct ib_event event = {
		.device = dev,
		.event = IB_EVENT_PKEY_CHANGE,
		.element.port_num = 1,
	};
	struct ib_qp_attr attr = {};
	struct ib_qp_security *sec;
	struct kvt_objs o;

	kvt_make_objs(test, &o, IB_QPT_RC);
	sec = o.qp->qp_sec;
	KUNIT_ASSERT_NOT_NULL(test, sec);
	KUNIT_EXPECT_FALSE(test, sec->main.valid);
	KUNIT_EXPECT_FALSE(test, sec->alt.valid);
	KUNIT_EXPECT_EQ(test, kvt_listed(dev, 1, o.qp), 0);

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.pkey_index = 2;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_PORT | IB_QP_PKEY_INDEX |
					   IB_QP_ACCESS_FLAGS), 0);
	KUNIT_EXPECT_TRUE(test, sec->main.valid);
	KUNIT_EXPECT_EQ(test, sec->main.port, 1);
	KUNIT_EXPECT_EQ(test, sec->main.pkey_index, 2);
	KUNIT_EXPECT_EQ(test, kvt_listed(dev, 1, o.qp), 1);

	/* the driver refuses: the pair in force stays, listed once */
	kd->modify_qp_err = -EIO;
	attr.pkey_index = 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX), -EIO);
	KUNIT_EXPECT_EQ(test, sec->main.pkey_index, 2);
	KUNIT_EXPECT_EQ(test, kvt_listed(dev, 1, o.qp), 1);
	kd->modify_qp_err = 0;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(o.qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX), 0);
	KUNIT_EXPECT_EQ(test, sec->main.pkey_index, 1);
	KUNIT_EXPECT_EQ(test, kvt_listed(dev, 1, o.qp), 1);

	/* a P_Key change checks the QP again; allowed, it stays in INIT */
	init_completion(&probe.seen);
	INIT_IB_EVENT_HANDLER(&probe.handler, dev, kvt_event_fn);
	ib_register_event_handler(&probe.handler);
	ib_dispatch_event(&event);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&probe.seen, 5 * HZ),
			0);
	ib_unregister_event_handler(&probe.handler);
	KUNIT_EXPECT_EQ(test, o.qp->state, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, kvt_listed(dev, 1, o.qp), 1);

	kvt_free_objs(test, &o);
	KUNIT_EXPECT_TRUE(test, list_empty(&dev->port_data[1].qp_pkeys));
}
#endif

struct kvt_cqe {
	struct ib_cqe cqe;
	int calls;
	enum ib_wc_status status;
};

static void kvt_cqe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvt_cqe *c = container_of(wc->wr_cqe, struct kvt_cqe, cqe);

	c->calls++;
	c->status = wc->status;
}

/* ib_alloc_cq() + ib_process_cq_direct(): completions find their ib_cqe. */
static void ib_verbs_cq_direct(struct kunit *test)
{
	struct kvt_dev *kd = test->priv;
	struct kvt_cqe a = { .cqe.done = kvt_cqe_done };
	struct kvt_cqe b = { .cqe.done = kvt_cqe_done };
	struct ib_cq *cq;

	cq = ib_alloc_cq(&kd->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_cq(&kd->ibdev, NULL, 16, 0, 99)),
			-EINVAL);

	kd->pending[0] = (struct ib_wc){ .wr_cqe = &a.cqe };
	kd->pending[1] = (struct ib_wc){ .wr_cqe = &b.cqe,
					 .status = IB_WC_REM_ACCESS_ERR };
	kd->pending[2] = (struct ib_wc){ .wr_cqe = &a.cqe };
	kd->npending = 3;
	KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, 2), 2);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, b.calls, 1);
	KUNIT_EXPECT_EQ(test, b.status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, -1), 1);
	KUNIT_EXPECT_EQ(test, a.calls, 2);
	KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, -1), 0);
	ib_free_cq(cq);
}

static struct kunit_case ib_verbs_test_cases[] = {
	KUNIT_CASE(ib_verbs_usecnt),
	KUNIT_CASE(ib_verbs_create_checks),
	KUNIT_CASE(ib_verbs_create_checks_both_paths),
	KUNIT_CASE(ib_verbs_cq_comp_vector),
	KUNIT_CASE(ib_verbs_destroy_op_required),
	KUNIT_CASE(ib_verbs_special_qps),
	KUNIT_CASE(ib_verbs_restrack_owner),
	KUNIT_CASE(ib_verbs_mr_checks),
	KUNIT_CASE(ib_verbs_modify_qp),
	KUNIT_CASE(ib_verbs_port_cache),
	KUNIT_CASE(ib_verbs_events),
	KUNIT_CASE(ib_verbs_cq_direct),
#ifdef CONFIG_SECURITY_INFINIBAND
	KUNIT_CASE(ib_verbs_qp_security),
#endif
	{}
};

static struct kunit_suite ib_verbs_test_suite = {
	.name = "ib_core_verbs",
	.init = kvt_init,
	.exit = kvt_exit,
	.test_cases = ib_verbs_test_cases,
};

kunit_test_suite(ib_verbs_test_suite);
