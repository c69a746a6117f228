// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx shared receive queues.
 *
 * An SRQ is a receive queue (vmlx_queue.c) that the responders of several
 * QPs take WQEs from, plus the limit event: once armed with a limit, the
 * first time a WQE taken leaves fewer WQEs than the limit the SRQ is
 * disarmed and its event handler hears of IB_EVENT_SRQ_LIMIT_REACHED.
 * The limit is one word changed with cmpxchg(), so that of several
 * responders crossing it together exactly one raises the event, and
 * re-arming races with none of them.
 *
 * A user SRQ's ring is mapped into its process, which writes the WQEs and
 * the producer index; vmlx_rq_pop() copies and sanitises each WQE.  It
 * also gets a number (struct rxe_create_srq_resp.srq_num).
 */
#include <linux/uaccess.h>

#include "vmlx.h"

/* Number a user SRQ and offer its ring to its process. */
static int vmlx_srq_share(struct vmlx_srq *srq, struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(srq->ibsrq.device);
	struct rxe_create_srq_resp resp = {};
	int ret;

	if (udata->outlen < sizeof(resp)) {
		vmlx_dbg_refusal(&vdev->ibdev,
				 "create_srq: response room %zu below %zu\n",
				 udata->outlen, sizeof(resp));
		return -EINVAL;
	}
	ret = xa_alloc(&vdev->srqs, &srq->srq_num, srq,
		       XA_LIMIT(1, VMLX_MAX_SRQ), GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -ENOMEM : ret;
	resp.srq_num = srq->srq_num;
	ret = vmlx_queue_share(&srq->rq.q, vdev, &resp.mi);
	if (ret)
		return ret;
	if (copy_to_user(udata->outbuf, &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

static void vmlx_srq_unshare(struct vmlx_srq *srq)
{
	if (srq->srq_num)
		xa_erase(&to_vmlx(srq->ibsrq.device)->srqs, srq->srq_num);
	srq->srq_num = 0;
}

int vmlx_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		    struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(ibsrq->device);
	struct vmlx_srq *srq = to_vsrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	u32 max_wr = attr->max_wr;
	u32 max_sge = attr->max_sge;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC) {
		vmlx_dbg_refusal(ibsrq->device, "create_srq: type %d\n",
				 init->srq_type);
		return -EOPNOTSUPP;
	}
	if (max_wr < 1 || max_wr > VMLX_MAX_QP_WR) {
		vmlx_dbg_refusal(ibsrq->device, "create_srq: max_wr %u, not 1..%u\n",
				 max_wr, VMLX_MAX_QP_WR);
		return -EINVAL;
	}
	if (max_sge < 1 || max_sge > VMLX_MAX_SGE) {
		vmlx_dbg_refusal(ibsrq->device, "create_srq: max_sge %u, not 1..%u\n",
				 max_sge, VMLX_MAX_SGE);
		return -EINVAL;
	}
	if (attr->srq_limit > max_wr) {
		vmlx_dbg_refusal(ibsrq->device, "create_srq: srq_limit %u > max_wr %u\n",
				 attr->srq_limit, max_wr);
		return -EINVAL;
	}
	if (!atomic_add_unless(&vdev->num_srqs, 1, VMLX_MAX_SRQ))
		return -ENOMEM;

	ret = vmlx_rq_init(&srq->rq, &max_wr, &max_sge, vmlx_gfp(udata));
	if (ret)
		goto err_count;
	srq->srq_num = 0;
	if (udata) {
		ret = vmlx_srq_share(srq, udata);
		if (ret)
			goto err_rq;
	}
	/* a limit given at creation arms the SRQ, as ib_modify_srq() would */
	srq->limit = attr->srq_limit;
	attr->max_wr = max_wr;
	attr->max_sge = max_sge;
	return 0;

err_rq:
	vmlx_srq_unshare(srq);
	vmlx_rq_cleanup(&srq->rq);
err_count:
	atomic_dec(&vdev->num_srqs);
	return ret;
}

int vmlx_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vmlx_srq *srq = to_vsrq(ibsrq);

	/*
	 * Resizing would mean moving posted WQEs to a new ring while
	 * responders take from the old one; no kernel user needs it, so it
	 * is not offered (max_srq_wr is the only size anyway).  For a user SRQ
	 * the udata would hold struct rxe_modify_srq_cmd, only read when
	 * resizing.
	 */
	if (mask & IB_SRQ_MAX_WR) {
		vmlx_dbg_refusal(ibsrq->device, "modify_srq: resizing to %u WRs\n",
				 attr->max_wr);
		return -EOPNOTSUPP;
	}
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->rq.max_wr) {
			vmlx_dbg_refusal(ibsrq->device,
					 "modify_srq: srq_limit %u > max_wr %u\n",
					 attr->srq_limit, srq->rq.max_wr);
			return -EINVAL;
		}
		WRITE_ONCE(srq->limit, attr->srq_limit);
	}
	return 0;
}

int vmlx_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vmlx_srq *srq = to_vsrq(ibsrq);

	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int vmlx_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct vmlx_srq *srq = to_vsrq(ibsrq);

	vmlx_srq_unshare(srq);
	vmlx_rq_cleanup(&srq->rq);
	atomic_dec(&to_vmlx(ibsrq->device)->num_srqs);
	return 0;
}

int vmlx_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct vmlx_srq *srq = to_vsrq(ibsrq);
	int ret;

	ret = vmlx_rq_post(&srq->rq, wr, bad_wr);
	if (ret == -EINVAL)
		vmlx_dbg_refusal(ibsrq->device,
				 "post_srq_recv: num_sge %d, not 0..%u\n",
				 (*bad_wr)->num_sge, srq->rq.max_sge);
	return ret;
}

/**
 * vmlx_srq_pop() - take the oldest receive WQE of an SRQ
 * @srq: the SRQ
 * @wqe: where to copy it; room for the SRQ's max_sge scatter entries
 *
 * Raises IB_EVENT_SRQ_LIMIT_REACHED, and disarms the limit, if the SRQ was
 * armed and now holds fewer WQEs than its limit.
 *
 * Context: process; the event handler is called directly.
 * Return: true if a WQE was taken, false if the SRQ was empty.
 */
bool vmlx_srq_pop(struct vmlx_srq *srq, struct rxe_recv_wqe *wqe)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	u32 limit;

	if (!vmlx_rq_pop(&srq->rq, wqe))
		return false;

	limit = READ_ONCE(srq->limit);
	if (limit && vmlx_rq_count(&srq->rq) < limit &&
	    cmpxchg(&srq->limit, limit, 0) == limit &&
	    ibsrq->event_handler) {
		struct ib_event ev = {
			.device = ibsrq->device,
			.element.srq = ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		ibsrq->event_handler(&ev, ibsrq->srq_context);
	}
	return true;
}
