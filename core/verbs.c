// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verbs: creation and destruction of PDs, AHs, CQs, SRQs, QPs and MRs
 * for kernel users, with the checks every driver would otherwise repeat.
 *
 * Every object counts the objects that use it (usecnt): a PD cannot be
 * freed while an AH, SRQ, QP or MR uses it, a CQ while a QP uses it, an
 * SRQ while a QP uses it.  Freeing one that is in use fails with -EBUSY.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "core_priv.h"

union ib_gid zgid;
EXPORT_SYMBOL(zgid);

static const char * const ib_events[] = {
	[IB_EVENT_CQ_ERR]		= "CQ error",
	[IB_EVENT_QP_FATAL]		= "QP fatal error",
	[IB_EVENT_QP_REQ_ERR]		= "QP request error",
	[IB_EVENT_QP_ACCESS_ERR]	= "QP access error",
	[IB_EVENT_COMM_EST]		= "communication established",
	[IB_EVENT_SQ_DRAINED]		= "send queue drained",
	[IB_EVENT_PATH_MIG]		= "path migration successful",
	[IB_EVENT_PATH_MIG_ERR]		= "path migration error",
	[IB_EVENT_DEVICE_FATAL]		= "device fatal error",
	[IB_EVENT_PORT_ACTIVE]		= "port active",
	[IB_EVENT_PORT_ERR]		= "port error",
	[IB_EVENT_LID_CHANGE]		= "LID change",
	[IB_EVENT_PKEY_CHANGE]		= "P_key change",
	[IB_EVENT_SM_CHANGE]		= "SM change",
	[IB_EVENT_SRQ_ERR]		= "SRQ error",
	[IB_EVENT_SRQ_LIMIT_REACHED]	= "SRQ limit reached",
	[IB_EVENT_QP_LAST_WQE_REACHED]	= "last WQE reached",
	[IB_EVENT_CLIENT_REREGISTER]	= "client reregister",
	[IB_EVENT_GID_CHANGE]		= "GID table change",
	[IB_EVENT_WQ_FATAL]		= "WQ fatal error",
};

/**
 * ib_event_msg - text for an event type
 * @event: the event type
 *
 * Return: a description, "unrecognized event" for unknown values.
 */
const char *ib_event_msg(enum ib_event_type event)
{
	if ((unsigned int)event < ARRAY_SIZE(ib_events) && ib_events[event])
		return ib_events[event];
	return "unrecognized event";
}
EXPORT_SYMBOL(ib_event_msg);

static const char * const wc_statuses[] = {
	[IB_WC_SUCCESS]			= "success",
	[IB_WC_LOC_LEN_ERR]		= "local length error",
	[IB_WC_LOC_QP_OP_ERR]		= "local QP operation error",
	[IB_WC_LOC_EEC_OP_ERR]		= "local EE context operation error",
	[IB_WC_LOC_PROT_ERR]		= "local protection error",
	[IB_WC_WR_FLUSH_ERR]		= "WR flushed",
	[IB_WC_MW_BIND_ERR]		= "memory window bind error",
	[IB_WC_BAD_RESP_ERR]		= "bad response error",
	[IB_WC_LOC_ACCESS_ERR]		= "local access error",
	[IB_WC_REM_INV_REQ_ERR]		= "remote invalid request error",
	[IB_WC_REM_ACCESS_ERR]		= "remote access error",
	[IB_WC_REM_OP_ERR]		= "remote operation error",
	[IB_WC_RETRY_EXC_ERR]		= "transport retry counter exceeded",
	[IB_WC_RNR_RETRY_EXC_ERR]	= "RNR retry counter exceeded",
	[IB_WC_LOC_RDD_VIOL_ERR]	= "local RDD violation error",
	[IB_WC_REM_INV_RD_REQ_ERR]	= "remote invalid RD request",
	[IB_WC_REM_ABORT_ERR]		= "operation aborted",
	[IB_WC_INV_EECN_ERR]		= "invalid EE context number",
	[IB_WC_INV_EEC_STATE_ERR]	= "invalid EE context state",
	[IB_WC_FATAL_ERR]		= "fatal error",
	[IB_WC_RESP_TIMEOUT_ERR]	= "response timeout error",
	[IB_WC_GENERAL_ERR]		= "general error",
};

/**
 * ib_wc_status_msg - text for a completion status
 * @status: the status
 *
 * Return: a description, "unrecognized status" for unknown values.
 */
const char *ib_wc_status_msg(enum ib_wc_status status)
{
	if ((unsigned int)status < ARRAY_SIZE(wc_statuses) &&
	    wc_statuses[status])
		return wc_statuses[status];
	return "unrecognized status";
}
EXPORT_SYMBOL(ib_wc_status_msg);

/* ------------------------------------------------------------------ */
/* Protection domains                                                  */
/* ------------------------------------------------------------------ */

/**
 * __ib_alloc_pd - allocate a kernel protection domain
 * @device: the device
 * @flags: IB_PD_* flags
 * @caller: name of the owning module, for resource tracking
 *
 * Use the ib_alloc_pd() wrapper.  The PD gets a local_dma_lkey: the
 * device's own if it has one, else the lkey of a DMA MR made for it.
 *
 * Return: the PD or an ERR_PTR().
 */
struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller)
{
	int mr_access = 0;
	struct ib_mr *mr;
	struct ib_pd *pd;
	int ret;

	if (!device->ops->alloc_pd)
		return ERR_PTR(-EOPNOTSUPP);
	if (flags & ~IB_PD_UNSAFE_GLOBAL_RKEY)
		return ERR_PTR(-EINVAL);

	pd = rdma_zalloc_obj(device, ib_pd, GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->device = device;
	pd->flags = flags;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, caller);

	ret = device->ops->alloc_pd(pd, NULL);
	if (ret)
		goto err_free;
	ret = rdma_restrack_add(device, &pd->res);
	if (ret)
		goto err_dealloc;

	if (device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY)
		pd->local_dma_lkey = device->local_dma_lkey;
	else
		mr_access |= IB_ACCESS_LOCAL_WRITE;
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY) {
		pr_warn_once("%s: enabling unsafe global rkey\n", caller);
		mr_access |= IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	}

	if (mr_access) {
		ret = -EOPNOTSUPP;
		if (!device->ops->get_dma_mr)
			goto err_untrack;
		mr = device->ops->get_dma_mr(pd, mr_access);
		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			goto err_untrack;
		}
		mr->device = device;
		mr->pd = pd;
		mr->type = IB_MR_TYPE_DMA;
		mr->uobject = NULL;
		mr->need_inval = false;
		pd->internal_mr = mr;
		if (!(device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY))
			pd->local_dma_lkey = mr->lkey;
		if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
			pd->unsafe_global_rkey = mr->rkey;
	}
	return pd;

err_untrack:
	rdma_restrack_del(device, &pd->res);
err_dealloc:
	device->ops->dealloc_pd(pd, NULL);
err_free:
	rdma_restrack_del(device, &pd->res);
	kfree(pd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(__ib_alloc_pd);

/**
 * ib_dealloc_pd_user - free a protection domain
 * @pd: the PD
 * @udata: user data, NULL for kernel PDs
 *
 * Return: 0, or -EBUSY if objects still use the PD (it is not freed then).
 */
int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	int ret;

	if (atomic_read(&pd->usecnt))
		return -EBUSY;

	if (pd->internal_mr) {
		ret = device->ops->dereg_mr(pd->internal_mr, NULL);
		WARN_ON(ret);
		pd->internal_mr = NULL;
	}

	ret = device->ops->dealloc_pd(pd, udata);
	if (ret)
		return ret;
	rdma_restrack_del(device, &pd->res);
	kfree(pd);
	return 0;
}
EXPORT_SYMBOL(ib_dealloc_pd_user);

/* ------------------------------------------------------------------ */
/* Address handles                                                     */
/* ------------------------------------------------------------------ */

/**
 * rdma_create_ah - create a kernel address handle
 * @pd: the protection domain
 * @ah_attr: the address
 * @flags: RDMA_CREATE_AH_* flags; without RDMA_CREATE_AH_SLEEPABLE this may
 *	be called in atomic context
 *
 * Return: the AH or an ERR_PTR().
 */
struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			     u32 flags)
{
	struct ib_device *device = pd->device;
	struct rdma_ah_init_attr init_attr = {
		.ah_attr = ah_attr,
		.flags = flags,
	};
	struct ib_ah *ah;
	int ret;

	if (!device->ops->create_ah)
		return ERR_PTR(-EOPNOTSUPP);
	if (!rdma_is_port_valid(device, ah_attr->port_num))
		return ERR_PTR(-EINVAL);

	ah = rdma_zalloc_obj(device, ib_ah,
			     flags & RDMA_CREATE_AH_SLEEPABLE ?
			     GFP_KERNEL : GFP_ATOMIC);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->device = device;
	ah->pd = pd;
	ah->type = ah_attr->type;

	ret = device->ops->create_ah(ah, &init_attr, NULL);
	if (ret) {
		kfree(ah);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return ah;
}
EXPORT_SYMBOL(rdma_create_ah);

/**
 * rdma_query_ah - the address of an address handle
 * @ah: the AH
 * @ah_attr: filled in
 *
 * Return: 0 or a negative errno.
 */
int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	if (!ah->device->ops->query_ah)
		return -EOPNOTSUPP;
	memset(ah_attr, 0, sizeof(*ah_attr));
	return ah->device->ops->query_ah(ah, ah_attr);
}
EXPORT_SYMBOL(rdma_query_ah);

/**
 * rdma_destroy_ah_user - destroy an address handle
 * @ah: the AH
 * @flags: RDMA_DESTROY_AH_* flags
 * @udata: user data, NULL for kernel AHs
 *
 * Return: 0 or a negative errno.
 */
int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata)
{
	struct ib_pd *pd = ah->pd;
	int ret;

	ret = ah->device->ops->destroy_ah(ah, flags);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	kfree(ah);
	return 0;
}
EXPORT_SYMBOL(rdma_destroy_ah_user);

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

/**
 * __ib_create_cq - create a completion queue polled by its user
 * @device: the device
 * @comp_handler: called after ib_req_notify_cq() when a completion arrives
 * @event_handler: called for CQ errors
 * @cq_context: argument of both handlers
 * @cq_attr: size and completion vector
 * @caller: name of the owning module
 *
 * Use the ib_create_cq() wrapper.
 *
 * Return: the CQ or an ERR_PTR().
 */
struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller)
{
	struct ib_cq *cq;
	int ret;

	if (!device->ops->create_cq)
		return ERR_PTR(-EOPNOTSUPP);
	if (!cq_attr->cqe || cq_attr->cqe > device->attrs.max_cqe ||
	    (device->num_comp_vectors &&
	     cq_attr->comp_vector >= device->num_comp_vectors))
		return ERR_PTR(-EINVAL);

	cq = rdma_zalloc_obj(device, ib_cq, GFP_KERNEL);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->device = device;
	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	cq->cq_context = cq_context;
	cq->comp_vector = cq_attr->comp_vector;
	cq->poll_ctx = IB_POLL_DIRECT;
	atomic_set(&cq->usecnt, 0);
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, caller);

	ret = device->ops->create_cq(cq, cq_attr, NULL);
	if (ret)
		goto err_free;
	ret = rdma_restrack_add(device, &cq->res);
	if (ret)
		goto err_destroy;
	return cq;

err_destroy:
	device->ops->destroy_cq(cq, NULL);
err_free:
	rdma_restrack_del(device, &cq->res);
	kfree(cq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(__ib_create_cq);

/**
 * ib_destroy_cq_user - destroy a completion queue
 * @cq: the CQ
 * @udata: user data, NULL for kernel CQs
 *
 * Return: 0, or -EBUSY if a QP or SRQ still uses the CQ.
 */
int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata)
{
	struct ib_device *device = cq->device;
	int ret;

	if (atomic_read(&cq->usecnt))
		return -EBUSY;
	ret = device->ops->destroy_cq(cq, udata);
	if (ret)
		return ret;
	rdma_restrack_del(device, &cq->res);
	kfree(cq);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_cq_user);

/**
 * ib_resize_cq - change the size of a completion queue
 * @cq: the CQ
 * @cqe: the new minimum number of entries
 *
 * Return: 0 or a negative errno.
 */
int ib_resize_cq(struct ib_cq *cq, int cqe)
{
	if (!cq->device->ops->resize_cq)
		return -EOPNOTSUPP;
	if (cqe <= 0 || cqe > cq->device->attrs.max_cqe)
		return -EINVAL;
	return cq->device->ops->resize_cq(cq, cqe, NULL);
}
EXPORT_SYMBOL(ib_resize_cq);

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

/**
 * ib_create_srq - create a kernel shared receive queue
 * @pd: the protection domain
 * @srq_init_attr: sizes and event handler; the sizes are updated to what
 *	was allocated
 *
 * Return: the SRQ or an ERR_PTR().
 */
struct ib_srq *ib_create_srq(struct ib_pd *pd,
			     struct ib_srq_init_attr *srq_init_attr)
{
	struct ib_device *device = pd->device;
	struct ib_srq_attr *attr = &srq_init_attr->attr;
	struct ib_srq *srq;
	int ret;

	if (!device->ops->create_srq)
		return ERR_PTR(-EOPNOTSUPP);
	if (srq_init_attr->srq_type != IB_SRQT_BASIC)
		return ERR_PTR(-EOPNOTSUPP);
	if (!attr->max_wr || attr->max_wr > device->attrs.max_srq_wr ||
	    !attr->max_sge || attr->max_sge > device->attrs.max_srq_sge ||
	    attr->srq_limit > attr->max_wr)
		return ERR_PTR(-EINVAL);

	srq = rdma_zalloc_obj(device, ib_srq, GFP_KERNEL);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	srq->device = device;
	srq->pd = pd;
	srq->event_handler = srq_init_attr->event_handler;
	srq->srq_context = srq_init_attr->srq_context;
	srq->srq_type = srq_init_attr->srq_type;
	atomic_set(&srq->usecnt, 0);
	rdma_restrack_new(&srq->res, RDMA_RESTRACK_SRQ);
	rdma_restrack_parent_name(&srq->res, &pd->res);

	ret = device->ops->create_srq(srq, srq_init_attr, NULL);
	if (ret)
		goto err_free;
	ret = rdma_restrack_add(device, &srq->res);
	if (ret)
		goto err_destroy;
	atomic_inc(&pd->usecnt);
	return srq;

err_destroy:
	device->ops->destroy_srq(srq, NULL);
err_free:
	rdma_restrack_del(device, &srq->res);
	kfree(srq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_create_srq);

/**
 * ib_modify_srq - resize a shared receive queue or arm its limit
 * @srq: the SRQ
 * @srq_attr: the new values
 * @srq_attr_mask: which of them to apply
 *
 * Return: 0 or a negative errno.
 */
int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask)
{
	if (!srq->device->ops->modify_srq)
		return -EOPNOTSUPP;
	if (srq_attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	return srq->device->ops->modify_srq(srq, srq_attr, srq_attr_mask,
					    NULL);
}
EXPORT_SYMBOL(ib_modify_srq);

/**
 * ib_query_srq - the attributes of a shared receive queue
 * @srq: the SRQ
 * @srq_attr: filled in
 *
 * Return: 0 or a negative errno.
 */
int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr)
{
	if (!srq->device->ops->query_srq)
		return -EOPNOTSUPP;
	return srq->device->ops->query_srq(srq, srq_attr);
}
EXPORT_SYMBOL(ib_query_srq);

/**
 * ib_destroy_srq_user - destroy a shared receive queue
 * @srq: the SRQ
 * @udata: user data, NULL for kernel SRQs
 *
 * Return: 0, or -EBUSY if a QP still uses the SRQ.
 */
int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata)
{
	struct ib_device *device = srq->device;
	struct ib_pd *pd = srq->pd;
	int ret;

	if (atomic_read(&srq->usecnt))
		return -EBUSY;
	ret = device->ops->destroy_srq(srq, udata);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	rdma_restrack_del(device, &srq->res);
	kfree(srq);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_srq_user);

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

/**
 * ib_create_qp - create a kernel queue pair
 * @pd: the protection domain
 * @qp_init_attr: type, CQs, sizes; the sizes are updated to what was
 *	allocated
 *
 * Return: the QP, in the RESET state, or an ERR_PTR().
 */
struct ib_qp *ib_create_qp(struct ib_pd *pd,
			   struct ib_qp_init_attr *qp_init_attr)
{
	struct ib_device *device = pd->device;
	struct ib_qp *qp;
	int ret;

	if (!device->ops->create_qp)
		return ERR_PTR(-EOPNOTSUPP);
	switch (qp_init_attr->qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (!rdma_is_port_valid(device, qp_init_attr->port_num))
			return ERR_PTR(-EINVAL);
		break;
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	default:
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!qp_init_attr->send_cq || !qp_init_attr->recv_cq)
		return ERR_PTR(-EINVAL);
	if (qp_init_attr->create_flags)
		return ERR_PTR(-EOPNOTSUPP);

	qp = rdma_zalloc_obj(device, ib_qp, GFP_KERNEL);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	qp->device = device;
	qp->pd = pd;
	qp->send_cq = qp_init_attr->send_cq;
	qp->recv_cq = qp_init_attr->recv_cq;
	qp->srq = qp_init_attr->srq;
	qp->event_handler = qp_init_attr->event_handler;
	qp->qp_context = qp_init_attr->qp_context;
	qp->qp_type = qp_init_attr->qp_type;
	qp->port = qp_init_attr->port_num;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->mutex);
	rdma_restrack_new(&qp->res, RDMA_RESTRACK_QP);
	rdma_restrack_parent_name(&qp->res, &pd->res);

	ret = device->ops->create_qp(qp, qp_init_attr, NULL);
	if (ret)
		goto err_free;
	ret = ib_qp_security_create(qp);
	if (ret)
		goto err_destroy;
	ret = rdma_restrack_add(device, &qp->res);
	if (ret)
		goto err_security;

	qp->max_send_wr = qp_init_attr->cap.max_send_wr;
	qp->max_recv_wr = qp_init_attr->cap.max_recv_wr;
	atomic_inc(&pd->usecnt);
	atomic_inc(&qp->send_cq->usecnt);
	atomic_inc(&qp->recv_cq->usecnt);
	if (qp->srq)
		atomic_inc(&qp->srq->usecnt);
	return qp;

err_security:
	ib_qp_security_destroy_begin(qp);
	ib_qp_security_destroy_end(qp);
err_destroy:
	device->ops->destroy_qp(qp, NULL);
err_free:
	rdma_restrack_del(device, &qp->res);
	kfree(qp);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_create_qp);

/* Checks of modify attributes the driver need not repeat. */
static int ib_check_qp_attr(struct ib_qp *qp, struct ib_qp_attr *attr,
			    int mask)
{
	struct ib_device *device = qp->device;
	u32 port = mask & IB_QP_PORT ? attr->port_num : qp->port;

	if (mask & IB_QP_PORT && !rdma_is_port_valid(device, attr->port_num))
		return -EINVAL;
	if (mask & IB_QP_AV &&
	    !rdma_is_port_valid(device, attr->ah_attr.port_num))
		return -EINVAL;
	if (mask & IB_QP_ALT_PATH &&
	    (!rdma_is_port_valid(device, attr->alt_port_num) ||
	     !rdma_is_port_valid(device, attr->alt_ah_attr.port_num)))
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX && rdma_is_port_valid(device, port) &&
	    attr->pkey_index >=
	    ib_port_immutable_read(device, port)->pkey_tbl_len)
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS &&
	    attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ |
				      IB_ACCESS_REMOTE_ATOMIC))
		return -EINVAL;
	if (mask & IB_QP_RQ_PSN && attr->rq_psn & ~0xffffff)
		return -EINVAL;
	if (mask & IB_QP_SQ_PSN && attr->sq_psn & ~0xffffff)
		return -EINVAL;
	if (mask & IB_QP_DEST_QPN && attr->dest_qp_num & ~0xffffff)
		return -EINVAL;
	if (mask & IB_QP_TIMEOUT && attr->timeout > 31)
		return -EINVAL;
	if (mask & IB_QP_RETRY_CNT && attr->retry_cnt > 7)
		return -EINVAL;
	if (mask & IB_QP_RNR_RETRY && attr->rnr_retry > 7)
		return -EINVAL;
	if (mask & IB_QP_MIN_RNR_TIMER && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > device->attrs.max_qp_init_rd_atom)
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > device->attrs.max_qp_rd_atom)
		return -EINVAL;
	return 0;
}

/**
 * ib_modify_qp_user - change the state or attributes of a queue pair
 * @qp: the QP
 * @qp_attr: the new values
 * @qp_attr_mask: which of them to apply (enum ib_qp_attr_mask)
 * @udata: the driver data of a user's MODIFY_QP command, NULL for kernel
 *	callers
 *
 * The transition and the attributes it needs are checked against the IBA's
 * rules (ib_modify_qp_is_ok()) and their value ranges before the driver
 * sees them, and the P_Keys a new port or P_Key index gives the QP
 * against the LSM (core/security.c).  Modifies of one QP are serialised.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for a transition or attributes the rules refuse,
 * -EACCES for a P_Key the LSM refuses, or the driver's error.
 */
int ib_modify_qp_user(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		      int qp_attr_mask, struct ib_udata *udata)
{
	enum ib_qp_state cur, next;
	int ret;

	if (!qp->device->ops->modify_qp)
		return -EOPNOTSUPP;

	mutex_lock(&qp->mutex);
	cur = qp_attr_mask & IB_QP_CUR_STATE ? qp_attr->cur_qp_state : qp->state;
	next = qp_attr_mask & IB_QP_STATE ? qp_attr->qp_state : cur;
	ret = -EINVAL;
	if (!ib_modify_qp_is_ok(cur, next, qp->qp_type, qp_attr_mask))
		goto out;
	ret = ib_check_qp_attr(qp, qp_attr, qp_attr_mask);
	if (ret)
		goto out;

	/* with the LSM's say when a port or a P_Key index is set */
	ret = ib_qp_security_modify(qp, qp_attr, qp_attr_mask, udata);
	if (ret)
		goto out;
	qp->state = next;
	if (qp_attr_mask & IB_QP_PORT)
		qp->port = qp_attr->port_num;
out:
	mutex_unlock(&qp->mutex);
	return ret;
}
EXPORT_SYMBOL(ib_modify_qp_user);

/**
 * ib_modify_qp - change the state or attributes of a kernel queue pair
 * @qp: the QP
 * @qp_attr: the new values
 * @qp_attr_mask: which of them to apply (enum ib_qp_attr_mask)
 *
 * See ib_modify_qp_user().
 *
 * Return: 0, -EINVAL for a transition or attributes the rules refuse, or
 * the driver's error.
 */
int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		 int qp_attr_mask)
{
	return ib_modify_qp_user(qp, qp_attr, qp_attr_mask, NULL);
}
EXPORT_SYMBOL(ib_modify_qp);

/**
 * ib_query_qp - the attributes of a queue pair
 * @qp: the QP
 * @qp_attr: filled in
 * @qp_attr_mask: which attributes are wanted (the driver may fill more)
 * @qp_init_attr: filled in with the creation attributes
 *
 * Return: 0 or a negative errno.
 */
int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr)
{
	if (!qp->device->ops->query_qp)
		return -EOPNOTSUPP;
	memset(qp_attr, 0, sizeof(*qp_attr));
	memset(qp_init_attr, 0, sizeof(*qp_init_attr));
	return qp->device->ops->query_qp(qp, qp_attr, qp_attr_mask,
					 qp_init_attr);
}
EXPORT_SYMBOL(ib_query_qp);

/**
 * ib_destroy_qp_user - destroy a queue pair
 * @qp: the QP; outstanding work requests are discarded
 * @udata: user data, NULL for kernel QPs
 *
 * Return: 0 or a negative errno.
 */
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata)
{
	struct ib_device *device = qp->device;
	struct ib_pd *pd = qp->pd;
	struct ib_cq *scq = qp->send_cq, *rcq = qp->recv_cq;
	struct ib_srq *srq = qp->srq;
	int ret;

	ib_qp_security_destroy_begin(qp);
	ret = device->ops->destroy_qp(qp, udata);
	if (ret) {
		ib_qp_security_destroy_abort(qp);
		return ret;
	}
	ib_qp_security_destroy_end(qp);
	atomic_dec(&pd->usecnt);
	atomic_dec(&scq->usecnt);
	atomic_dec(&rcq->usecnt);
	if (srq)
		atomic_dec(&srq->usecnt);
	rdma_restrack_del(device, &qp->res);
	mutex_destroy(&qp->mutex);
	kfree(qp);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_qp_user);

/* Multicast LIDs are 0xC000..0xFFFE; multicast GIDs start with 0xFF. */
static bool ib_is_mcast(const union ib_gid *gid, u16 lid)
{
	return gid->raw[0] == 0xff && lid >= 0xc000 && lid != 0xffff;
}

/**
 * ib_attach_mcast - add a UD queue pair to a multicast group
 * @qp: the QP
 * @gid: the group's GID
 * @lid: the group's LID
 *
 * Return: 0 or a negative errno.
 */
int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	if (!qp->device->ops->attach_mcast)
		return -EOPNOTSUPP;
	if (qp->qp_type != IB_QPT_UD || !ib_is_mcast(gid, lid))
		return -EINVAL;
	return qp->device->ops->attach_mcast(qp, gid, lid);
}
EXPORT_SYMBOL(ib_attach_mcast);

/**
 * ib_detach_mcast - remove a UD queue pair from a multicast group
 * @qp: the QP
 * @gid: the group's GID
 * @lid: the group's LID
 *
 * Return: 0 or a negative errno.
 */
int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	if (!qp->device->ops->detach_mcast)
		return -EOPNOTSUPP;
	if (qp->qp_type != IB_QPT_UD || !ib_is_mcast(gid, lid))
		return -EINVAL;
	return qp->device->ops->detach_mcast(qp, gid, lid);
}
EXPORT_SYMBOL(ib_detach_mcast);

/*
 * Draining: move the QP to the error state, which flushes every
 * outstanding request, post one more request whose completion marks the
 * end of the queue, and wait for it.
 */
struct ib_drain_cqe {
	struct ib_cqe		cqe;
	struct completion	done;
};

static void ib_drain_qp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_drain_cqe *cqe = container_of(wc->wr_cqe,
						struct ib_drain_cqe, cqe);

	complete(&cqe->done);
}

static void ib_drain_wait(struct ib_cq *cq, struct ib_drain_cqe *cqe)
{
	if (cq->poll_ctx != IB_POLL_DIRECT) {
		wait_for_completion(&cqe->done);
		return;
	}
	while (!completion_done(&cqe->done)) {
		ib_process_cq_direct(cq, -1);
		cond_resched();
	}
}

static int ib_drain_to_error(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/**
 * ib_drain_sq - wait until every posted send request has completed
 * @qp: a QP whose send CQ was allocated with ib_alloc_cq(); it is left in
 *	the error state
 */
void ib_drain_sq(struct ib_qp *qp)
{
	struct ib_drain_cqe sdrain = { .cqe.done = ib_drain_qp_done };
	struct ib_rdma_wr swr = {
		.wr = {
			.wr_cqe = &sdrain.cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	int ret;

	if (qp->device->ops->drain_sq) {
		qp->device->ops->drain_sq(qp);
		return;
	}

	init_completion(&sdrain.done);
	ret = ib_drain_to_error(qp);
	if (ret) {
		WARN_ONCE(ret, "failed to drain send queue: %d\n", ret);
		return;
	}
	ret = ib_post_send(qp, &swr.wr, NULL);
	if (ret) {
		WARN_ONCE(ret, "failed to drain send queue: %d\n", ret);
		return;
	}
	ib_drain_wait(qp->send_cq, &sdrain);
}
EXPORT_SYMBOL(ib_drain_sq);

/**
 * ib_drain_rq - wait until every posted receive request has completed
 * @qp: a QP whose receive CQ was allocated with ib_alloc_cq(); it is left in
 *	the error state
 */
void ib_drain_rq(struct ib_qp *qp)
{
	struct ib_drain_cqe rdrain = { .cqe.done = ib_drain_qp_done };
	struct ib_recv_wr rwr = { .wr_cqe = &rdrain.cqe };
	int ret;

	if (qp->device->ops->drain_rq) {
		qp->device->ops->drain_rq(qp);
		return;
	}

	init_completion(&rdrain.done);
	ret = ib_drain_to_error(qp);
	if (ret) {
		WARN_ONCE(ret, "failed to drain receive queue: %d\n", ret);
		return;
	}
	ret = ib_post_recv(qp, &rwr, NULL);
	if (ret) {
		WARN_ONCE(ret, "failed to drain receive queue: %d\n", ret);
		return;
	}
	ib_drain_wait(qp->recv_cq, &rdrain);
}
EXPORT_SYMBOL(ib_drain_rq);

/**
 * ib_drain_qp - drain both queues of a queue pair
 * @qp: the QP (its receive queue is left alone if it uses an SRQ)
 */
void ib_drain_qp(struct ib_qp *qp)
{
	ib_drain_sq(qp);
	if (!qp->srq)
		ib_drain_rq(qp);
}
EXPORT_SYMBOL(ib_drain_qp);

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

/**
 * ib_alloc_mr - allocate a fast-registration memory region
 * @pd: the protection domain
 * @mr_type: IB_MR_TYPE_MEM_REG (or SG_GAPS if the device supports it)
 * @max_num_sg: the most pages the MR can map
 *
 * Return: the MR, to be mapped with ib_map_mr_sg() and registered with an
 * IB_WR_REG_MR work request, or an ERR_PTR().
 */
struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			  u32 max_num_sg)
{
	struct ib_device *device = pd->device;
	struct ib_mr *mr;
	int ret;

	if (!device->ops->alloc_mr)
		return ERR_PTR(-EOPNOTSUPP);
	if (mr_type != IB_MR_TYPE_MEM_REG && mr_type != IB_MR_TYPE_SG_GAPS)
		return ERR_PTR(-EINVAL);
	if (mr_type == IB_MR_TYPE_SG_GAPS &&
	    !(device->attrs.kernel_cap_flags & IBK_SG_GAPS_REG))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg ||
	    max_num_sg > device->attrs.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = device->ops->alloc_mr(pd, mr_type, max_num_sg);
	if (IS_ERR(mr))
		return mr;
	mr->device = device;
	mr->pd = pd;
	mr->type = mr_type;
	mr->uobject = NULL;
	mr->need_inval = false;
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_parent_name(&mr->res, &pd->res);
	ret = rdma_restrack_add(device, &mr->res);
	if (ret) {
		rdma_restrack_del(device, &mr->res);
		device->ops->dereg_mr(mr, NULL);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return mr;
}
EXPORT_SYMBOL(ib_alloc_mr);

/**
 * ib_dereg_mr_user - release a memory region
 * @mr: the MR
 * @udata: user data, NULL for kernel MRs
 *
 * Return: 0 or a negative errno.
 */
int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata)
{
	struct ib_device *device = mr->device;
	struct ib_pd *pd = mr->pd;
	int ret;

	rdma_restrack_del(device, &mr->res);
	ret = device->ops->dereg_mr(mr, udata);
	if (!ret)
		atomic_dec(&pd->usecnt);
	return ret;
}
EXPORT_SYMBOL(ib_dereg_mr_user);
