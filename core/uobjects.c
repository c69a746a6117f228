// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Creation of user-owned CQs, SRQs, QPs, AHs and MRs, for the uverbs
 * module.  They mirror the kernel verbs of verbs.c: the same checks, the
 * same use counts (a PD, CQ or SRQ cannot be freed while an object uses
 * it) and the same resource tracking, but the driver gets the command's
 * udata, the object records its uverbs object, and resource tracking
 * charges it to the current process.  They are destroyed with the
 * ib_destroy_*_user(), rdma_destroy_ah_user() and ib_dereg_mr_user()
 * functions of verbs.c.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "core_priv.h"

/**
 * ib_create_cq_user - create a completion queue for a user process
 * @uctx: the process's context on the device
 * @uobject: the uverbs object that will hold the CQ
 * @cq_attr: size, completion vector and flags
 * @comp_handler: called after a notify request when a completion arrives
 * @event_handler: called for CQ errors
 * @cq_context: argument of both handlers
 * @udata: the driver data of the user's CREATE_CQ command
 *
 * Context: process context; may sleep.
 * Return: the CQ or an ERR_PTR(): -EINVAL for a size of 0 or above the
 * device's max_cqe or a completion vector it does not have, -EOPNOTSUPP
 * for flags.
 */
struct ib_cq *ib_create_cq_user(struct ib_ucontext *uctx,
				struct ib_uobject *uobject,
				const struct ib_cq_init_attr *cq_attr,
				ib_comp_handler comp_handler,
				void (*event_handler)(struct ib_event *, void *),
				void *cq_context, struct ib_udata *udata)
{
	struct ib_device *device = uctx->device;
	struct ib_cq *cq;
	int ret;

	if (!device->ops->create_cq || !device->ops->destroy_cq)
		return ERR_PTR(-EOPNOTSUPP);
	if (!cq_attr->cqe || cq_attr->cqe > device->attrs.max_cqe ||
	    cq_attr->comp_vector >= max_t(u32, device->num_comp_vectors, 1))
		return ERR_PTR(-EINVAL);
	if (cq_attr->flags)
		return ERR_PTR(-EOPNOTSUPP);

	cq = rdma_zalloc_obj(device, ib_cq, GFP_KERNEL);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->device = device;
	cq->uobject = uobject;
	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	cq->cq_context = cq_context;
	cq->comp_vector = cq_attr->comp_vector;
	cq->poll_ctx = IB_POLL_DIRECT;
	atomic_set(&cq->usecnt, 0);
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, NULL);

	ret = device->ops->create_cq(cq, cq_attr, udata);
	if (ret)
		goto err_free;
	ret = rdma_restrack_add(device, &cq->res);
	if (ret)
		goto err_destroy;
	return cq;

err_destroy:
	device->ops->destroy_cq(cq, udata);
err_free:
	rdma_restrack_del(device, &cq->res);
	kfree(cq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_create_cq_user);

/**
 * ib_create_srq_user - create a shared receive queue for a user process
 * @pd: the protection domain, of the same process
 * @uobject: the uverbs object that will hold the SRQ
 * @srq_init_attr: sizes and event handler; the sizes are updated to what
 *	was allocated
 * @udata: the driver data of the user's CREATE_SRQ command
 *
 * Context: process context; may sleep.
 * Return: the SRQ or an ERR_PTR().
 */
struct ib_srq *ib_create_srq_user(struct ib_pd *pd, struct ib_uobject *uobject,
				  struct ib_srq_init_attr *srq_init_attr,
				  struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	struct ib_srq_attr *attr = &srq_init_attr->attr;
	struct ib_srq *srq;
	int ret;

	if (!device->ops->create_srq || !device->ops->destroy_srq)
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
	srq->uobject = uobject;
	srq->event_handler = srq_init_attr->event_handler;
	srq->srq_context = srq_init_attr->srq_context;
	srq->srq_type = srq_init_attr->srq_type;
	atomic_set(&srq->usecnt, 0);
	rdma_restrack_new(&srq->res, RDMA_RESTRACK_SRQ);
	rdma_restrack_set_name(&srq->res, NULL);

	ret = device->ops->create_srq(srq, srq_init_attr, udata);
	if (ret)
		goto err_free;
	ret = rdma_restrack_add(device, &srq->res);
	if (ret)
		goto err_destroy;
	atomic_inc(&pd->usecnt);
	return srq;

err_destroy:
	device->ops->destroy_srq(srq, udata);
err_free:
	rdma_restrack_del(device, &srq->res);
	kfree(srq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_create_srq_user);

/**
 * ib_modify_srq_user - resize a user SRQ or arm its limit
 * @srq: the SRQ
 * @srq_attr: the new values
 * @srq_attr_mask: which of them to apply
 * @udata: the driver data of the user's MODIFY_SRQ command
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for unknown mask bits, or the driver's error.
 */
int ib_modify_srq_user(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		       enum ib_srq_attr_mask srq_attr_mask,
		       struct ib_udata *udata)
{
	if (!srq->device->ops->modify_srq)
		return -EOPNOTSUPP;
	if (srq_attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	return srq->device->ops->modify_srq(srq, srq_attr, srq_attr_mask,
					    udata);
}
EXPORT_SYMBOL(ib_modify_srq_user);

/**
 * ib_create_qp_user - create a queue pair for a user process
 * @pd: the protection domain, of the same process
 * @uobject: the uverbs object that will hold the QP
 * @qp_init_attr: type, CQs, SRQ, sizes; the sizes are updated to what was
 *	allocated
 * @udata: the driver data of the user's CREATE_QP command
 *
 * Only RC, UC and UD QPs; the special QPs are the kernel's.
 *
 * Context: process context; may sleep.
 * Return: the QP, in the RESET state, or an ERR_PTR().
 */
struct ib_qp *ib_create_qp_user(struct ib_pd *pd, struct ib_uobject *uobject,
				struct ib_qp_init_attr *qp_init_attr,
				struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	struct ib_qp *qp;
	int ret;

	if (!device->ops->create_qp || !device->ops->destroy_qp)
		return ERR_PTR(-EOPNOTSUPP);
	switch (qp_init_attr->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		return ERR_PTR(-EINVAL);
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
	qp->uobject = uobject;
	qp->event_handler = qp_init_attr->event_handler;
	qp->qp_context = qp_init_attr->qp_context;
	qp->qp_type = qp_init_attr->qp_type;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->mutex);
	rdma_restrack_new(&qp->res, RDMA_RESTRACK_QP);
	rdma_restrack_set_name(&qp->res, NULL);

	ret = device->ops->create_qp(qp, qp_init_attr, udata);
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
	device->ops->destroy_qp(qp, udata);
err_free:
	rdma_restrack_del(device, &qp->res);
	mutex_destroy(&qp->mutex);
	kfree(qp);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_create_qp_user);

/**
 * rdma_create_ah_user - create an address handle for a user process
 * @pd: the protection domain, of the same process
 * @uobject: the uverbs object that will hold the AH
 * @ah_attr: the address
 * @udata: the driver data of the user's CREATE_AH command
 *
 * Context: process context; may sleep (the driver is told so).
 * Return: the AH or an ERR_PTR(); -EINVAL for a port the device does not
 * have.
 */
struct ib_ah *rdma_create_ah_user(struct ib_pd *pd, struct ib_uobject *uobject,
				  struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	struct rdma_ah_init_attr init_attr = {
		.ah_attr = ah_attr,
		.flags = RDMA_CREATE_AH_SLEEPABLE,
	};
	struct ib_ah *ah;
	int ret;

	if (!device->ops->create_ah || !device->ops->destroy_ah)
		return ERR_PTR(-EOPNOTSUPP);
	if (!rdma_is_port_valid(device, ah_attr->port_num))
		return ERR_PTR(-EINVAL);

	ah = rdma_zalloc_obj(device, ib_ah, GFP_KERNEL);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->device = device;
	ah->pd = pd;
	ah->uobject = uobject;
	ah->type = ah_attr->type;

	ret = device->ops->create_ah(ah, &init_attr, udata);
	if (ret) {
		kfree(ah);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return ah;
}
EXPORT_SYMBOL(rdma_create_ah_user);

/*
 * The access flags of a user MR, as upstream's ib_check_mr_access(): known
 * bits only, remote write and atomic need local write, no on-demand
 * paging here.
 */
static int ib_check_user_mr_access(int access)
{
	if (access & ~IB_ACCESS_SUPPORTED)
		return -EINVAL;
	if (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (access & IB_ACCESS_ON_DEMAND)
		return -EINVAL;
	return 0;
}

/**
 * ib_reg_user_mr - register a user memory region
 * @pd: the protection domain, of the same process
 * @uobject: the uverbs object that will hold the MR
 * @start: the first byte, a user virtual address
 * @length: the length in bytes
 * @virt_addr: the address work requests use for @start (same offset in
 *	its page)
 * @access: IB_ACCESS_* flags; the optional ones are dropped
 * @udata: the driver data of the user's REG_MR command
 *
 * The driver pins the memory with ib_umem_get().
 *
 * Context: process context; may sleep.
 * Return: the MR or an ERR_PTR(): -EINVAL for bad access flags, an empty
 * or too long region, or @start and @virt_addr at different page offsets.
 */
struct ib_mr *ib_reg_user_mr(struct ib_pd *pd, struct ib_uobject *uobject,
			     u64 start, u64 length, u64 virt_addr, int access,
			     struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	struct ib_mr *mr;
	int ret;

	if (!device->ops->reg_user_mr || !device->ops->dereg_mr)
		return ERR_PTR(-EOPNOTSUPP);
	ret = ib_check_user_mr_access(access);
	if (ret)
		return ERR_PTR(ret);
	if (!length || length > device->attrs.max_mr_size ||
	    start + length < start)
		return ERR_PTR(-EINVAL);
	if ((start & ~PAGE_MASK) != (virt_addr & ~PAGE_MASK))
		return ERR_PTR(-EINVAL);

	mr = device->ops->reg_user_mr(pd, start, length, virt_addr,
				      access & ~IB_ACCESS_OPTIONAL, udata);
	if (IS_ERR(mr))
		return mr;
	mr->device = device;
	mr->pd = pd;
	mr->type = IB_MR_TYPE_USER;
	mr->uobject = uobject;
	mr->need_inval = false;
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_set_name(&mr->res, NULL);
	ret = rdma_restrack_add(device, &mr->res);
	if (ret) {
		rdma_restrack_del(device, &mr->res);
		device->ops->dereg_mr(mr, udata);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return mr;
}
EXPORT_SYMBOL(ib_reg_user_mr);
