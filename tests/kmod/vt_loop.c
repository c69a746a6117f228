// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "loop": many rounds of creating a PD, a CQ, a
 * fast-registration MR and a QP (every eighth round also an SRQ and an
 * address handle), taking the QP to RTS and back, and destroying it all;
 * then the core's resource tracking must count what it counted before.
 * The rounds alternate between the two devices, the QP types, the ways a
 * CQ is made (ib_create_cq, ib_alloc_cq with each poll context) and the
 * PD flags (with and without the unsafe global rkey's DMA MR).
 */
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "vt.h"

#define VT_LOOP_N	10000

static const enum rdma_restrack_type vt_loop_types[] = {
	RDMA_RESTRACK_PD, RDMA_RESTRACK_CQ, RDMA_RESTRACK_QP,
	RDMA_RESTRACK_MR, RDMA_RESTRACK_SRQ,
};

static const char * const vt_loop_names[] = { "pd", "cq", "qp", "mr", "srq" };

#define VT_LOOP_NTYPES	ARRAY_SIZE(vt_loop_types)

static void vt_loop_count(struct ib_device *dev, int *counts)
{
	int t;

	for (t = 0; t < VT_LOOP_NTYPES; t++)
		counts[t] = rdma_restrack_count(dev, vt_loop_types[t]);
}

static struct ib_cq *vt_loop_cq(struct ib_device *dev, unsigned int i)
{
	struct ib_cq_init_attr attr = { .cqe = 8 };

	switch (i % 4) {
	case 0:
		return ib_create_cq(dev, NULL, NULL, NULL, &attr);
	case 1:
		return ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_DIRECT);
	case 2:
		return ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_SOFTIRQ);
	default:
		return ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_WORKQUEUE);
	}
}

static void vt_loop_free_cq(struct ib_cq *cq, unsigned int i)
{
	if (i % 4 == 0)
		ib_destroy_cq(cq);
	else
		ib_free_cq(cq);
}

/* One round on side @s; on error vt_why() says what failed. */
static int vt_loop_once(struct vt_run *run, struct vt_side *s,
			unsigned int i, s64 *destroy_ns)
{
	static const enum ib_qp_type types[] = {
		IB_QPT_RC, IB_QPT_UC, IB_QPT_UD,
	};
	enum ib_qp_type type = types[i % ARRAY_SIZE(types)];
	bool extras = i % 8 == 7;
	struct ib_qp_init_attr init = {};
	struct ib_srq *srq = NULL;
	struct ib_ah *ah = NULL;
	struct vt_qp q = {};
	struct ib_cq *cq;
	struct ib_mr *mr;
	struct vt_conn c;
	ktime_t t0;
	int ret;

	s->pd = ib_alloc_pd(s->dev, i & 1 ? IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(s->pd)) {
		ret = PTR_ERR(s->pd);
		vt_why(run, "ib_alloc_pd: %d", ret);
		goto out;
	}
	cq = vt_loop_cq(s->dev, i);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		vt_why(run, "CQ (way %u): %d", i % 4, ret);
		goto err_pd;
	}
	mr = ib_alloc_mr(s->pd, IB_MR_TYPE_MEM_REG, 1 + i % 32);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		vt_why(run, "ib_alloc_mr: %d", ret);
		goto err_cq;
	}
	if (extras) {
		struct ib_srq_init_attr sinit = {
			.attr = { .max_wr = 16, .max_sge = 1 },
			.srq_type = IB_SRQT_BASIC,
		};

		ah = vt_create_ah(run, s, s->lid, NULL);
		if (!ah) {
			ret = -EIO;
			goto err_mr;
		}
		if (type != IB_QPT_UD) {
			srq = ib_create_srq(s->pd, &sinit);
			if (IS_ERR(srq)) {
				ret = PTR_ERR(srq);
				srq = NULL;
				vt_why(run, "ib_create_srq: %d", ret);
				goto err_ah;
			}
		}
	}

	init.send_cq = cq;
	init.recv_cq = cq;
	init.srq = srq;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = srq ? 0 : 4;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = srq ? 0 : 1;
	init.sq_sig_type = IB_SIGNAL_ALL_WR;
	init.qp_type = type;
	q.side = s;
	q.qp = ib_create_qp(s->pd, &init);
	if (IS_ERR(q.qp)) {
		ret = PTR_ERR(q.qp);
		vt_why(run, "ib_create_qp(type %d): %d", type, ret);
		goto err_srq;
	}
	vt_conn_default(run, &c);
	ret = vt_qp_connect(run, &q, s->lid, q.qp->qp_num, &c);
	if (ret)
		goto err_qp;
	ret = vt_qp_state(&q);
	if (ret != IB_QPS_RTS) {
		vt_why(run, "QP reports state %s after the move to RTS",
		       vt_state_str(ret));
		ret = -EIO;
		goto err_qp;
	}
	if (i & 1) {
		ret = vt_qp_modify_state(&q, IB_QPS_ERR);
		if (ret) {
			vt_why(run, "RTS -> ERR: %d", ret);
			goto err_qp;
		}
	}
	ret = vt_qp_modify_state(&q, IB_QPS_RESET);
	if (ret) {
		vt_why(run, "%s -> RESET: %d", i & 1 ? "ERR" : "RTS", ret);
		goto err_qp;
	}
	ret = vt_qp_state(&q);
	if (ret != IB_QPS_RESET) {
		vt_why(run, "QP reports state %s after the move to RESET",
		       vt_state_str(ret));
		ret = -EIO;
		goto err_qp;
	}
	ret = 0;

err_qp:
	t0 = ktime_get();
	if (ib_destroy_qp(q.qp) && !ret) {
		vt_why(run, "ib_destroy_qp failed");
		ret = -EIO;
	}
	*destroy_ns += ktime_to_ns(ktime_sub(ktime_get(), t0));
err_srq:
	if (srq && ib_destroy_srq(srq) && !ret) {
		vt_why(run, "ib_destroy_srq failed");
		ret = -EIO;
	}
err_ah:
	if (ah && rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE) && !ret) {
		vt_why(run, "rdma_destroy_ah failed");
		ret = -EIO;
	}
err_mr:
	if (ib_dereg_mr(mr) && !ret) {
		vt_why(run, "ib_dereg_mr failed");
		ret = -EIO;
	}
err_cq:
	vt_loop_free_cq(cq, i);
err_pd:
	ib_dealloc_pd(s->pd);
out:
	s->pd = NULL;
	return ret;
}

static int vt_loop_side(struct vt_run *run, struct vt_side *s,
			struct vt_dev *vdev)
{
	struct ib_port_attr pattr = {};
	int ret;

	s->vdev = vdev;
	s->dev = vdev->ibdev;
	s->port = 1;
	ret = ib_query_port(s->dev, s->port, &pattr);
	if (ret)
		vt_why(run, "ib_query_port: %d", ret);
	s->lid = pattr.lid;
	return ret;
}

/**
 * vt_cmd_loop - "loop [n=N]": create/destroy rounds, then the resource
 * tracking balance
 * @run: the command
 *
 * Return: 0, or -EINVAL for extra words.
 */
int vt_cmd_loop(struct vt_run *run)
{
	int before[2][VT_LOOP_NTYPES], after[2][VT_LOOP_NTYPES];
	unsigned int n = run->n ? run->n : VT_LOOP_N, i;
	struct vt_side side[2] = {};
	char diff[160] = "";
	size_t len = 0;
	s64 destroy_ns = 0;
	ktime_t start;
	int d, t;

	if (run->argc)
		return -EINVAL;
	if (vt_loop_side(run, &side[0], run->va) ||
	    vt_loop_side(run, &side[1], run->vb)) {
		vt_result(run, "loop: setup");
		return 0;
	}
	for (d = 0; d < 2; d++)
		vt_loop_count(side[d].dev, before[d]);

	start = ktime_get();
	for (i = 0; i < n; i++) {
		if (vt_loop_once(run, &side[i & 2 ? 1 : 0], i, &destroy_ns)) {
			vt_why(run, "(round %u)", i);
			break;
		}
		cond_resched();
		if (vt_aborted(run))
			break;
	}
	vt_out(run, "# loop: %u rounds in %lld ms, %lld ms of it in ib_destroy_qp",
	       i, ktime_ms_delta(ktime_get(), start), destroy_ns / NSEC_PER_MSEC);
	vt_out(run, "# loop: each round: PD, CQ, fast-reg MR, QP (RC/UC/UD; %s",
	       "every 8th also AH and SRQ), QP RESET->RTS->(ERR->)RESET");
	vt_result(run, "loop: %u rounds of create, QP to RTS and back, destroy",
		  n);

	for (d = 0; d < 2; d++) {
		vt_loop_count(side[d].dev, after[d]);
		for (t = 0; t < VT_LOOP_NTYPES; t++)
			if (before[d][t] != after[d][t])
				len += scnprintf(diff + len, sizeof(diff) - len,
						 " %s %s %d->%d",
						 ib_device_name(side[d].dev),
						 vt_loop_names[t], before[d][t],
						 after[d][t]);
	}
	if (len)
		vt_why(run, "counts changed:%s", diff);
	vt_result(run, "loop: restrack pd/cq/qp/mr/srq as before (%d %d %d %d %d / %d %d %d %d %d)",
		  after[0][0], after[0][1], after[0][2], after[0][3],
		  after[0][4], after[1][0], after[1][1], after[1][2],
		  after[1][3], after[1][4]);
	return 0;
}
