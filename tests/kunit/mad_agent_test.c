// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of MAD agent registration and of the checks of the send
 * path, on a fake one-port IB device: the MAD layer opens QP0 and QP1 on
 * it when it registers.  The fake device never completes a send, so only
 * sends that stay in the node (directed-route SMPs with hop count 0) are
 * posted; they go to the fake device's process_mad.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

/* The fake driver's state; one device at a time. */
struct kmad_dev {
	struct ib_device ibdev;
	int qps;		/* special QPs created and not destroyed */
	int posted_recvs;
	int posted_sends;
	int process_mad_calls;
	int process_mad_ret;	/* what process_mad returns */
};

static struct kmad_dev *to_kmad(struct ib_device *ibdev)
{
	return container_of(ibdev, struct kmad_dev, ibdev);
}

static int kmad_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata)
{
	attr->max_cqe = 4096;
	attr->max_qp_wr = 4096;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static int kmad_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	attr->state = IB_PORT_ACTIVE;
	attr->lid = 3;
	attr->pkey_tbl_len = 1;
	attr->gid_tbl_len = 1;
	return 0;
}

static int kmad_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	return 0;
}

static int kmad_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	*pkey = 0xffff;
	return 0;
}

static int kmad_query_gid(struct ib_device *ibdev, u32 port, int index,
			  union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	return 0;
}

static int kmad_ok_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int kmad_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
	cq->cqe = attr->cqe;
	return 0;
}

static int kmad_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int kmad_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int kmad_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int kmad_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
			  struct ib_udata *udata)
{
	if (init->qp_type != IB_QPT_SMI && init->qp_type != IB_QPT_GSI)
		return -EOPNOTSUPP;
	qp->qp_num = init->qp_type == IB_QPT_SMI ? 0 : 1;
	to_kmad(qp->device)->qps++;
	return 0;
}

static int kmad_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			  struct ib_udata *udata)
{
	return 0;
}

static int kmad_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	to_kmad(qp->device)->qps--;
	return 0;
}

static int kmad_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad)
{
	for (; wr; wr = wr->next)
		to_kmad(qp->device)->posted_sends++;
	return 0;
}

static int kmad_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad)
{
	for (; wr; wr = wr->next)
		to_kmad(qp->device)->posted_recvs++;
	return 0;
}

static int kmad_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			  struct ib_udata *udata)
{
	return 0;
}

static int kmad_destroy_ah(struct ib_ah *ah, u32 flags)
{
	return 0;
}

/* The SMA: answers NodeInfo Gets with a NodeInfo of a CA. */
static int kmad_process_mad(struct ib_device *ibdev, int flags, u32 port,
			    const struct ib_wc *in_wc,
			    const struct ib_grh *in_grh,
			    const struct ib_mad *in, struct ib_mad *out,
			    size_t *out_size, u16 *out_pkey_index)
{
	struct kmad_dev *kd = to_kmad(ibdev);
	struct ib_node_info *ni;

	kd->process_mad_calls++;
	if (kd->process_mad_ret != (IB_MAD_RESULT_SUCCESS |
				    IB_MAD_RESULT_REPLY))
		return kd->process_mad_ret;
	memcpy(out, in, sizeof(*out));
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = IB_SMP_DIRECTION;
	ni = (struct ib_node_info *)((struct ib_smp *)out)->data;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = 1;
	*out_size = sizeof(*out);
	return kd->process_mad_ret;
}

static const struct ib_device_ops kmad_ops = {
	.query_device = kmad_query_device,
	.query_port = kmad_query_port,
	.get_port_immutable = kmad_port_immutable,
	.query_pkey = kmad_query_pkey,
	.query_gid = kmad_query_gid,
	.alloc_pd = kmad_ok_pd,
	.dealloc_pd = kmad_ok_pd,
	.create_cq = kmad_create_cq,
	.destroy_cq = kmad_destroy_cq,
	.poll_cq = kmad_poll_cq,
	.req_notify_cq = kmad_req_notify_cq,
	.create_qp = kmad_create_qp,
	.modify_qp = kmad_modify_qp,
	.destroy_qp = kmad_destroy_qp,
	.post_send = kmad_post_send,
	.post_recv = kmad_post_recv,
	.create_ah = kmad_create_ah,
	.destroy_ah = kmad_destroy_ah,
	.process_mad = kmad_process_mad,
};

static int kmad_init(struct kunit *test)
{
	struct kmad_dev *kd = ib_alloc_device(struct kmad_dev, ibdev);

	if (!kd)
		return -ENOMEM;
	kd->ibdev.ops = &kmad_ops;
	kd->ibdev.node_type = RDMA_NODE_IB_CA;
	kd->ibdev.phys_port_cnt = 1;
	kd->process_mad_ret = IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
	if (ib_register_device(&kd->ibdev, "kmad%d", NULL)) {
		ib_dealloc_device(&kd->ibdev);
		return -ENODEV;
	}
	test->priv = kd;
	return 0;
}

static void kmad_exit(struct kunit *test)
{
	struct kmad_dev *kd = test->priv;

	ib_unregister_device(&kd->ibdev);
	/* the MAD layer closed its QPs */
	KUNIT_EXPECT_EQ(test, kd->qps, 0);
	ib_dealloc_device(&kd->ibdev);
}

/* What the handlers saw. */
struct kmad_seen {
	struct completion	done;
	struct completion	recv;
	enum ib_wc_status	status;
	struct ib_smp		smp;
	struct ib_mad_send_buf	*resp_to;
};

static void kmad_send_handler(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	struct kmad_seen *seen = agent->context;

	if (!seen)
		return;
	seen->status = wc->status;
	complete(&seen->done);
}

static void kmad_recv_handler(struct ib_mad_agent *agent,
			      struct ib_mad_send_buf *send_buf,
			      struct ib_mad_recv_wc *rwc)
{
	struct kmad_seen *seen = agent->context;

	if (seen) {
		memcpy(&seen->smp, rwc->recv_buf.mad, sizeof(seen->smp));
		seen->resp_to = send_buf;
		complete(&seen->recv);
	}
	ib_free_recv_mad(rwc);
}

static struct ib_mad_agent *kmad_reg(struct kunit *test, u32 port,
				     enum ib_qp_type type, u8 mgmt_class,
				     u8 version, u8 method, const u8 *oui,
				     u8 rmpp)
{
	struct kmad_dev *kd = test->priv;
	struct ib_mad_reg_req req = {
		.mgmt_class = mgmt_class,
		.mgmt_class_version = version,
	};

	if (oui)
		memcpy(req.oui, oui, 3);
	set_bit(method, req.method_mask);
	return ib_register_mad_agent(&kd->ibdev, port, type, &req, rmpp,
				     kmad_send_handler, kmad_recv_handler,
				     NULL, 0);
}

static long kmad_err(struct ib_mad_agent *agent)
{
	if (IS_ERR(agent))
		return PTR_ERR(agent);
	ib_unregister_mad_agent(agent);
	return 0;
}

static void mad_qps_test(struct kunit *test)
{
	struct kmad_dev *kd = test->priv;

	KUNIT_EXPECT_EQ(test, kd->qps, 2);
	KUNIT_EXPECT_GT(test, kd->posted_recvs, 0);
}

static void mad_conflict_test(struct kunit *test)
{
	static const u8 oui1[3] = { 0x00, 0x14, 0x05 };
	static const u8 oui2[3] = { 0x00, 0x02, 0xc9 };
	struct ib_mad_agent *a, *b, *v;

	a = kmad_reg(test, 1, IB_QPT_GSI, 0x09, 1, IB_MGMT_METHOD_GET, NULL,
		     0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	/* the same class, version and method: refused */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x09, 1,
						IB_MGMT_METHOD_GET, NULL, 0)),
			-EINVAL);
	/* another method, version or class: fine */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x09, 1,
						IB_MGMT_METHOD_SET, NULL, 0)),
			0);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x09, 2,
						IB_MGMT_METHOD_GET, NULL, 0)),
			0);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x0a, 1,
						IB_MGMT_METHOD_GET, NULL, 0)),
			0);
	ib_unregister_mad_agent(a);
	/* free again */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x09, 1,
						IB_MGMT_METHOD_GET, NULL, 0)),
			0);

	/* vendor range 2: by OUI */
	v = kmad_reg(test, 1, IB_QPT_GSI, 0x31, 1, IB_MGMT_METHOD_GET, oui1,
		     0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(v));
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x31, 1,
						IB_MGMT_METHOD_GET, oui1, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x31, 1,
						IB_MGMT_METHOD_GET, oui2, 0)),
			0);
	ib_unregister_mad_agent(v);

	/* QP0 and QP1 have separate SMP classes: the SM's DR agent */
	b = kmad_reg(test, 1, IB_QPT_SMI, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE,
		     1, IB_MGMT_METHOD_GET_RESP & 0x7f, NULL, 0);
	KUNIT_EXPECT_FALSE(test, IS_ERR(b));
	if (!IS_ERR(b))
		ib_unregister_mad_agent(b);
}

static void mad_bad_reg_test(struct kunit *test)
{
	static const u8 zero[3];
	struct kmad_dev *kd = test->priv;
	struct ib_mad_reg_req req = { .mgmt_class = 0x09,
				      .mgmt_class_version = 1 };

	/* the class against the QP */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI,
						IB_MGMT_CLASS_SUBN_LID_ROUTED,
						1, 1, NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_SMI, 0x09, 1,
						1, NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_UD, 0x09, 1,
						1, NULL, 0)), -EINVAL);
	/* reserved class 0, classes from 0x50 (but 0x81), version 8 */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0, 1, 1,
						NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x50, 1,
						1, NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x09, 8,
						1, NULL, 0)), -EINVAL);
	/* vendor range 2 needs an OUI */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x30, 1,
						1, zero, 0)), -EINVAL);
	/* RMPP only for RMPP classes, and only version 1 */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI, 0x09, 1,
						1, NULL, 1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI,
						IB_MGMT_CLASS_SUBN_ADM, 2, 1,
						NULL, 2)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 1, IB_QPT_GSI,
						IB_MGMT_CLASS_SUBN_ADM, 2, 1,
						NULL, 1)), 0);
	/* no such port */
	KUNIT_EXPECT_EQ(test, kmad_err(kmad_reg(test, 2, IB_QPT_GSI, 0x09, 1,
						1, NULL, 0)), -ENODEV);
	/* a request without receive handler; a send-only agent without
	 * send handler or with user RMPP
	 */
	KUNIT_EXPECT_EQ(test,
			kmad_err(ib_register_mad_agent(&kd->ibdev, 1,
						       IB_QPT_GSI, &req, 0,
						       kmad_send_handler, NULL,
						       NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			kmad_err(ib_register_mad_agent(&kd->ibdev, 1,
						       IB_QPT_GSI, NULL, 0,
						       NULL, kmad_recv_handler,
						       NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			kmad_err(ib_register_mad_agent(&kd->ibdev, 1,
						       IB_QPT_GSI, NULL, 0,
						       kmad_send_handler, NULL,
						       NULL,
						       IB_MAD_USER_RMPP)),
			-EINVAL);
}

static void mad_hi_tid_test(struct kunit *test)
{
	struct kmad_dev *kd = test->priv;
	struct ib_mad_agent *a, *b;

	a = ib_register_mad_agent(&kd->ibdev, 1, IB_QPT_GSI, NULL, 0,
				  kmad_send_handler, NULL, NULL, 0);
	b = ib_register_mad_agent(&kd->ibdev, 1, IB_QPT_SMI, NULL, 0,
				  kmad_send_handler, NULL, NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	KUNIT_EXPECT_NE(test, a->hi_tid, b->hi_tid);
	KUNIT_EXPECT_EQ(test, a->qp->qp_num, 1);
	KUNIT_EXPECT_EQ(test, b->qp->qp_num, 0);
	ib_unregister_mad_agent(a);
	ib_unregister_mad_agent(b);
}

static struct ib_ah *kmad_ah(struct kunit *test, struct ib_mad_agent *agent)
{
	struct rdma_ah_attr attr = {
		.type = RDMA_AH_ATTR_TYPE_IB,
		.port_num = 1,
		.dlid = 0xffff,
	};
	struct ib_ah *ah = rdma_create_ah(agent->qp->pd, &attr,
					  RDMA_CREATE_AH_SLEEPABLE);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	return ah;
}

static void mad_send_checks_test(struct kunit *test)
{
	struct kmad_dev *kd = test->priv;
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *a;
	struct ib_smp *smp;
	struct ib_ah *ah;

	a = ib_register_mad_agent(&kd->ibdev, 1, IB_QPT_SMI, NULL, 0,
				  kmad_send_handler, NULL, NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_send_mad(a, 0, 0, 1, 24, 232,
							 GFP_KERNEL, 1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_send_mad(a, 0, 0, 0, 24, 233,
							 GFP_KERNEL, 1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_send_mad(a, 0, 0, 0, 24, 232,
							 GFP_KERNEL, 0x80)),
			-EINVAL);
	buf = ib_create_send_mad(a, 0, 0, 0, 24, 232, GFP_KERNEL, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(buf));
	smp = buf->mad;
	smp->base_version = 1;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_GET;
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	/* no AH */
	KUNIT_EXPECT_EQ(test, ib_post_send_mad(buf, NULL), -EINVAL);
	ah = kmad_ah(test, a);
	buf->ah = ah;
	/* a timeout needs a receive handler */
	buf->timeout_ms = 100;
	KUNIT_EXPECT_EQ(test, ib_post_send_mad(buf, NULL), -EINVAL);
	buf->timeout_ms = 0;
	/* more than 63 hops */
	smp->hop_cnt = 64;
	KUNIT_EXPECT_EQ(test, ib_post_send_mad(buf, NULL), -EINVAL);
	/* InitialPath[1] is not this port */
	smp->hop_cnt = 1;
	smp->hop_ptr = 0;
	smp->initial_path[1] = 2;
	KUNIT_EXPECT_EQ(test, ib_post_send_mad(buf, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kd->posted_sends, 0);
	/* ib_modify_mad of a send that is not posted */
	KUNIT_EXPECT_EQ(test, ib_modify_mad(buf, 0), -EINVAL);
	ib_free_send_mad(buf);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_unregister_mad_agent(a);
}

/* hop count 0: process_mad answers, the reply comes back at hop_ptr 0. */
static void mad_local_smp_test(struct kunit *test)
{
	struct kmad_dev *kd = test->priv;
	struct kmad_seen seen;
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *a;
	struct ib_smp *smp;
	struct ib_ah *ah;
	int ret, i;

	for (i = 0; i < 3; i++) {
		init_completion(&seen.done);
		init_completion(&seen.recv);
		seen.resp_to = NULL;
		/* 0: SMA replies, 1: SMA declines, nobody else: core 0x000C,
		 * 2: SMA fails: the send fails
		 */
		kd->process_mad_ret = i == 0 ? IB_MAD_RESULT_SUCCESS |
					       IB_MAD_RESULT_REPLY :
				      i == 1 ? IB_MAD_RESULT_SUCCESS :
					       IB_MAD_RESULT_FAILURE;
		a = ib_register_mad_agent(&kd->ibdev, 1, IB_QPT_SMI, NULL, 0,
					  kmad_send_handler, kmad_recv_handler,
					  &seen, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(a));
		ah = kmad_ah(test, a);
		buf = ib_create_send_mad(a, 0, 0, 0, 24, 232, GFP_KERNEL, 1);
		KUNIT_ASSERT_FALSE(test, IS_ERR(buf));
		smp = buf->mad;
		smp->base_version = 1;
		smp->mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
		smp->class_version = 1;
		smp->method = IB_MGMT_METHOD_GET;
		smp->attr_id = IB_SMP_ATTR_NODE_INFO;
		smp->tid = cpu_to_be64((u64)a->hi_tid << 32 | 77);
		smp->dr_slid = IB_LID_PERMISSIVE;
		smp->dr_dlid = IB_LID_PERMISSIVE;
		buf->ah = ah;
		buf->timeout_ms = 5000;
		ret = ib_post_send_mad(buf, NULL);
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&seen.done,
								  10 * HZ), 0);
		if (i < 2) {
			KUNIT_EXPECT_EQ(test, seen.status, IB_WC_SUCCESS);
			KUNIT_ASSERT_TRUE(test, completion_done(&seen.recv));
			KUNIT_EXPECT_PTR_EQ(test, seen.resp_to, buf);
			KUNIT_EXPECT_EQ(test, seen.smp.method,
					IB_MGMT_METHOD_GET_RESP);
			KUNIT_EXPECT_EQ(test, seen.smp.hop_ptr, 0);
			KUNIT_EXPECT_TRUE(test,
					  ib_get_smp_direction(&seen.smp));
			KUNIT_EXPECT_EQ(test, be16_to_cpu(seen.smp.status) &
					0x7fff,
					i == 0 ? 0 :
					IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
		} else {
			KUNIT_EXPECT_NE(test, seen.status, IB_WC_SUCCESS);
			KUNIT_EXPECT_FALSE(test, completion_done(&seen.recv));
		}
		/* never on the wire */
		KUNIT_EXPECT_EQ(test, kd->posted_sends, 0);
		ib_free_send_mad(buf);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_unregister_mad_agent(a);
	}
	KUNIT_EXPECT_EQ(test, kd->process_mad_calls, 3);
}

static struct kunit_case mad_agent_test_cases[] = {
	KUNIT_CASE(mad_qps_test),
	KUNIT_CASE(mad_conflict_test),
	KUNIT_CASE(mad_bad_reg_test),
	KUNIT_CASE(mad_hi_tid_test),
	KUNIT_CASE(mad_send_checks_test),
	KUNIT_CASE(mad_local_smp_test),
	{}
};

static struct kunit_suite mad_agent_test_suite = {
	.name = "ib_core_mad_agent",
	.init = kmad_init,
	.exit = kmad_exit,
	.test_cases = mad_agent_test_cases,
};

kunit_test_suite(mad_agent_test_suite);
