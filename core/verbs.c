// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verbs: creation, modification and destruction of PDs, AHs, CQs,
 * SRQs, QPs and MRs, for kernel users and, through the uverbs module, for
 * user processes, with the checks every driver would otherwise repeat.
 *
 * Each object has one create function here, static, that both kinds of
 * caller go through: a kernel wrapper (__ib_alloc_pd(), __ib_create_cq(),
 * ib_create_qp_kernel() ...) passes the caller's KBUILD_MODNAME, the name
 * resource tracking shows, and a user wrapper (ib_alloc_pd_user(),
 * ib_create_cq_user() ...) passes the uverbs object and the command's
 * udata, and the object is tracked as the current task's.  What only
 * users are refused is one "if (udata ...)" in the create function.  Each
 * object also has one destroy function, which takes the udata of a user's
 * command or NULL; the kernel's are inline wrappers in ib_verbs.h.  Every
 * -EINVAL, -EOPNOTSUPP or -EBUSY of a create, modify or destroy check says
 * why in a rate-limited dynamic-debug message on the device.
 *
 * Kernel QPs created with cap.max_rdma_ctxs are made ready for the RDMA
 * READ/WRITE contexts of core/rw.c: a larger send queue, an MR pool
 * (rdma_rw_init_qp(), rdma_rw_init_mrs()); a QP is not destroyed while an
 * MR of its pools is out, and the pool goes after the driver's QP.
 *
 * Locking: this file takes no lock of its own but the mutex of a QP,
 * which serialises the modifies of that QP (see struct ib_qp), and its
 * mr_lock to look at its MR pools (core/mr_pool.c).  Every
 * object counts the objects that use it (usecnt, atomic): a PD cannot be
 * freed while an AH, SRQ, QP or MR uses it, a CQ while a QP uses it, an
 * SRQ while a QP uses it.  Freeing one that is in use fails with -EBUSY.
 * Callers serialise the destruction of an object against its other uses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/rw.h>

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

/*
 * The keys a kernel PD works with: its local_dma_lkey is the device's own
 * if the device has one, else the lkey of a DMA MR made for the PD; with
 * IB_PD_UNSAFE_GLOBAL_RKEY that MR also opens all memory to remote access.
 */
static int ib_pd_set_kernel_keys(struct ib_pd *pd, const char *caller)
{
	struct ib_device *device = pd->device;
	int mr_access = 0;
	struct ib_mr *mr;

	if (device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY)
		pd->local_dma_lkey = device->local_dma_lkey;
	else
		mr_access |= IB_ACCESS_LOCAL_WRITE;
	if (pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) {
		pr_warn_once("%s: enabling unsafe global rkey\n", caller);
		mr_access |= IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	}
	if (!mr_access)
		return 0;

	if (!device->ops->get_dma_mr || !device->ops->dereg_mr) {
		dev_dbg_ratelimited(&device->dev,
				    "new PD refused: %s needs a DMA MR, which the driver cannot make\n",
				    pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY ?
				    "the global rkey" : "the local DMA lkey");
		return -EOPNOTSUPP;
	}
	mr = device->ops->get_dma_mr(pd, mr_access);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	mr->device = device;
	mr->pd = pd;
	mr->type = IB_MR_TYPE_DMA;
	mr->uobject = NULL;
	mr->need_inval = false;
	pd->internal_mr = mr;
	if (!(device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY))
		pd->local_dma_lkey = mr->lkey;
	if (pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		pd->unsafe_global_rkey = mr->rkey;
	return 0;
}

/* Release the DMA MR of ib_pd_set_kernel_keys(), if there is one. */
static void ib_pd_put_internal_mr(struct ib_pd *pd)
{
	if (!pd->internal_mr)
		return;
	WARN_ON(pd->device->ops->dereg_mr(pd->internal_mr, NULL));
	pd->internal_mr = NULL;
}

/*
 * The one way to make a PD: for a kernel caller (@udata NULL, the name
 * @caller) or for a user process (@uobject, @udata, @caller NULL).
 */
static struct ib_pd *alloc_pd(struct ib_device *device, unsigned int flags,
			      struct ib_uobject *uobject,
			      struct ib_udata *udata, const char *caller)
{
	struct ib_pd *pd;
	int ret;

	if (!device->ops->alloc_pd || !device->ops->dealloc_pd) {
		dev_dbg_ratelimited(&device->dev,
				    "new PD refused: the driver cannot allocate and free PDs\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (flags & ~IB_PD_UNSAFE_GLOBAL_RKEY) {
		dev_dbg_ratelimited(&device->dev,
				    "new PD refused: flags %#x, only IB_PD_UNSAFE_GLOBAL_RKEY is known\n",
				    flags);
		return ERR_PTR(-EINVAL);
	}

	pd = rdma_zalloc_obj(device, ib_pd, GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->device = device;
	pd->uobject = uobject;
	pd->flags = flags;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, caller);

	ret = device->ops->alloc_pd(pd, udata);
	if (ret)
		goto err_free;
	/* a user PD has neither a local DMA lkey nor an internal MR */
	if (!udata) {
		ret = ib_pd_set_kernel_keys(pd, caller);
		if (ret)
			goto err_dealloc;
	}
	ret = rdma_restrack_add(device, &pd->res);
	if (ret)
		goto err_put_internal_mr;
	return pd;

err_put_internal_mr:
	ib_pd_put_internal_mr(pd);
err_dealloc:
	device->ops->dealloc_pd(pd, udata);
err_free:
	rdma_restrack_del(device, &pd->res);
	kfree(pd);
	return ERR_PTR(ret);
}

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
	return alloc_pd(device, flags, NULL, NULL, caller);
}
EXPORT_SYMBOL(__ib_alloc_pd);

/**
 * ib_alloc_pd_user - allocate a protection domain for a user process
 * @uctx: the process's context on the device
 * @uobject: the uverbs object that will hold the PD
 * @udata: the driver data of the user's ALLOC_PD command
 *
 * Unlike kernel PDs, user PDs get no local DMA lkey and no internal MR.
 * The PD is entered in resource tracking, owned by the current process,
 * and freed with ib_dealloc_pd_user().
 *
 * Context: process context; may sleep.
 * Return: the PD or an ERR_PTR().
 */
struct ib_pd *ib_alloc_pd_user(struct ib_ucontext *uctx,
			       struct ib_uobject *uobject,
			       struct ib_udata *udata)
{
	return alloc_pd(uctx->device, 0, uobject, udata, NULL);
}
EXPORT_SYMBOL(ib_alloc_pd_user);

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
	int users = atomic_read(&pd->usecnt);
	int ret;

	if (users) {
		dev_dbg_ratelimited(&device->dev,
				    "free of PD %u refused: it still has %d users\n",
				    pd->res.id, users);
		return -EBUSY;
	}

	ib_pd_put_internal_mr(pd);
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

/*
 * The one way to make an AH: for a kernel caller (@udata NULL) or for a
 * user process (@uobject, @udata).  AHs are not resource-tracked, so
 * there is no owner name to record.
 */
static struct ib_ah *create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			       u32 flags, struct ib_uobject *uobject,
			       struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	struct rdma_ah_init_attr init_attr = {
		.ah_attr = ah_attr,
		.flags = flags,
	};
	struct ib_ah *ah;
	int ret;

	if (!device->ops->create_ah || !device->ops->destroy_ah) {
		dev_dbg_ratelimited(&device->dev,
				    "new AH refused: the driver cannot create and destroy AHs\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!rdma_is_port_valid(device, ah_attr->port_num)) {
		dev_dbg_ratelimited(&device->dev,
				    "new AH refused: port %u does not exist\n",
				    ah_attr->port_num);
		return ERR_PTR(-EINVAL);
	}

	ah = rdma_zalloc_obj(device, ib_ah,
			     flags & RDMA_CREATE_AH_SLEEPABLE ?
			     GFP_KERNEL : GFP_ATOMIC);
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
	return create_ah(pd, ah_attr, flags, NULL, NULL);
}
EXPORT_SYMBOL(rdma_create_ah);

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
	return create_ah(pd, ah_attr, RDMA_CREATE_AH_SLEEPABLE, uobject,
			 udata);
}
EXPORT_SYMBOL(rdma_create_ah_user);

/* The index of @gid in the GID table of @port_num, or -ENOENT. */
static int ib_port_gid_index(struct ib_device *device, u32 port_num,
			     const union ib_gid *gid)
{
	int len = ib_port_immutable_read(device, port_num)->gid_tbl_len;
	union ib_gid cur;
	int i;

	for (i = 0; i < len; i++)
		if (!rdma_query_gid(device, port_num, i, &cur) &&
		    !memcmp(&cur, gid, sizeof(cur)))
			return i;
	return -ENOENT;
}

/**
 * ib_init_ah_attr_from_wc - the address back to the sender of a receive
 * @device: the device that received
 * @port_num: the port that received
 * @wc: the receive's work completion (of a UD QP)
 * @grh: the packet's GRH, read only if @wc has IB_WC_GRH
 * @ah_attr: filled in: the sender's LID and SL, the path bits the packet
 *	was addressed to, and with a GRH the sender's GID as destination and
 *	the local GID it was sent to as source
 *
 * Context: any.
 * Return: 0, -EINVAL for a bad port or a GRH flag without @grh, or
 * -ENOENT if the GID the packet was sent to is not in the port's table.
 */
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr)
{
	u32 vtf;
	int idx;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = RDMA_AH_ATTR_TYPE_IB;
	ah_attr->port_num = port_num;
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	if (!(wc->wc_flags & IB_WC_GRH))
		return 0;
	if (!grh)
		return -EINVAL;
	idx = ib_port_gid_index(device, port_num, &grh->dgid);
	if (idx < 0)
		return idx;
	vtf = be32_to_cpu(grh->version_tclass_flow);
	ah_attr->ah_flags = IB_AH_GRH;
	ah_attr->grh.dgid = grh->sgid;
	ah_attr->grh.sgid_index = idx;
	ah_attr->grh.flow_label = vtf & 0xfffff;
	ah_attr->grh.traffic_class = (vtf >> 20) & 0xff;
	ah_attr->grh.hop_limit = 0xff;
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_wc);

/**
 * ib_create_ah_from_wc - an address handle back to the sender of a receive
 * @pd: the protection domain of the AH
 * @wc: the receive's work completion (of a UD QP)
 * @grh: the packet's GRH, read only if @wc has IB_WC_GRH
 * @port_num: the port that received
 *
 * Context: any; does not sleep (the driver is told so).
 * Return: the AH or an ERR_PTR(), see ib_init_ah_attr_from_wc().
 */
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num)
{
	struct rdma_ah_attr ah_attr;
	int ret;

	ret = ib_init_ah_attr_from_wc(pd->device, port_num, wc, grh, &ah_attr);
	if (ret)
		return ERR_PTR(ret);
	return rdma_create_ah(pd, &ah_attr, 0);
}
EXPORT_SYMBOL(ib_create_ah_from_wc);

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

/*
 * The one way to make a CQ: for a kernel caller (@udata NULL, the name
 * @caller) or for a user process (@uobject, @udata, @caller NULL).
 *
 * As in Linux, the core holds a user's completion vector to the device's
 * num_comp_vectors (a device without any takes no user CQ) and leaves a
 * kernel caller's to the driver.
 */
static struct ib_cq *create_cq(struct ib_device *device,
			       const struct ib_cq_init_attr *cq_attr,
			       ib_comp_handler comp_handler,
			       void (*event_handler)(struct ib_event *, void *),
			       void *cq_context, struct ib_uobject *uobject,
			       struct ib_udata *udata, const char *caller)
{
	struct ib_cq *cq;
	int ret;

	if (!device->ops->create_cq || !device->ops->destroy_cq) {
		dev_dbg_ratelimited(&device->dev,
				    "new CQ refused: the driver cannot create and destroy CQs\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!cq_attr->cqe || cq_attr->cqe > device->attrs.max_cqe) {
		dev_dbg_ratelimited(&device->dev,
				    "new CQ refused: %u entries, the device allows 1 to %d\n",
				    cq_attr->cqe, device->attrs.max_cqe);
		return ERR_PTR(-EINVAL);
	}
	if (cq_attr->flags) {
		dev_dbg_ratelimited(&device->dev,
				    "new CQ refused: flags %#x, none is supported\n",
				    cq_attr->flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (udata && cq_attr->comp_vector >= device->num_comp_vectors) {
		dev_dbg_ratelimited(&device->dev,
				    "new CQ refused: completion vector %u of a user CQ, the device has %d\n",
				    cq_attr->comp_vector,
				    device->num_comp_vectors);
		return ERR_PTR(-EINVAL);
	}

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
	rdma_restrack_set_name(&cq->res, caller);

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

/**
 * __ib_create_cq - create a completion queue polled by its user
 * @device: the device
 * @comp_handler: called after ib_req_notify_cq() when a completion arrives
 * @event_handler: called for CQ errors
 * @cq_context: argument of both handlers
 * @cq_attr: size and completion vector; the vector is the driver's to
 *	check
 * @caller: name of the owning module
 *
 * Use the ib_create_cq() wrapper.
 *
 * Return: the CQ or an ERR_PTR(): -EINVAL for a size of 0 or above the
 * device's max_cqe, -EOPNOTSUPP for flags.
 */
struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller)
{
	return create_cq(device, cq_attr, comp_handler, event_handler,
			 cq_context, NULL, NULL, caller);
}
EXPORT_SYMBOL(__ib_create_cq);

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
	return create_cq(uctx->device, cq_attr, comp_handler, event_handler,
			 cq_context, uobject, udata, NULL);
}
EXPORT_SYMBOL(ib_create_cq_user);

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
	int users = atomic_read(&cq->usecnt);
	int ret;

	if (users) {
		dev_dbg_ratelimited(&device->dev,
				    "destroy of CQ %u refused: it still has %d users\n",
				    cq->res.id, users);
		return -EBUSY;
	}
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
	struct ib_device *device = cq->device;

	if (!device->ops->resize_cq) {
		dev_dbg_ratelimited(&device->dev,
				    "resize of CQ %u refused: the driver cannot resize CQs\n",
				    cq->res.id);
		return -EOPNOTSUPP;
	}
	if (cqe <= 0 || cqe > device->attrs.max_cqe) {
		dev_dbg_ratelimited(&device->dev,
				    "resize of CQ %u refused: %d entries, the device allows 1 to %d\n",
				    cq->res.id, cqe, device->attrs.max_cqe);
		return -EINVAL;
	}
	return device->ops->resize_cq(cq, cqe, NULL);
}
EXPORT_SYMBOL(ib_resize_cq);

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

/* The sizes of a new SRQ against the device's limits. */
static int ib_check_srq_attr(struct ib_device *device,
			     const struct ib_srq_attr *attr)
{
	if (!attr->max_wr || attr->max_wr > device->attrs.max_srq_wr) {
		dev_dbg_ratelimited(&device->dev,
				    "new SRQ refused: %u work requests, the device allows 1 to %d\n",
				    attr->max_wr, device->attrs.max_srq_wr);
		return -EINVAL;
	}
	if (!attr->max_sge || attr->max_sge > device->attrs.max_srq_sge) {
		dev_dbg_ratelimited(&device->dev,
				    "new SRQ refused: %u scatter entries, the device allows 1 to %d\n",
				    attr->max_sge, device->attrs.max_srq_sge);
		return -EINVAL;
	}
	if (attr->srq_limit > attr->max_wr) {
		dev_dbg_ratelimited(&device->dev,
				    "new SRQ refused: limit %u above its %u work requests\n",
				    attr->srq_limit, attr->max_wr);
		return -EINVAL;
	}
	return 0;
}

/*
 * The one way to make an SRQ: for a kernel caller (@udata NULL, the name
 * @caller) or for a user process (@uobject, @udata, @caller NULL).
 */
static struct ib_srq *create_srq(struct ib_pd *pd,
				 struct ib_srq_init_attr *srq_init_attr,
				 struct ib_uobject *uobject,
				 struct ib_udata *udata, const char *caller)
{
	struct ib_device *device = pd->device;
	struct ib_srq *srq;
	int ret;

	if (!device->ops->create_srq || !device->ops->destroy_srq) {
		dev_dbg_ratelimited(&device->dev,
				    "new SRQ refused: the driver cannot create and destroy SRQs\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (srq_init_attr->srq_type != IB_SRQT_BASIC) {
		dev_dbg_ratelimited(&device->dev,
				    "new SRQ refused: type %d, only basic SRQs are supported\n",
				    srq_init_attr->srq_type);
		return ERR_PTR(-EOPNOTSUPP);
	}
	ret = ib_check_srq_attr(device, &srq_init_attr->attr);
	if (ret)
		return ERR_PTR(ret);

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
	rdma_restrack_set_name(&srq->res, caller);

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

/**
 * ib_create_srq_kernel - create a kernel shared receive queue
 * @pd: the protection domain
 * @srq_init_attr: sizes and event handler; the sizes are updated to what
 *	was allocated
 * @caller: name of the owning module
 *
 * Use the ib_create_srq() wrapper.
 *
 * Return: the SRQ or an ERR_PTR().
 */
struct ib_srq *ib_create_srq_kernel(struct ib_pd *pd,
				    struct ib_srq_init_attr *srq_init_attr,
				    const char *caller)
{
	return create_srq(pd, srq_init_attr, NULL, NULL, caller);
}
EXPORT_SYMBOL(ib_create_srq_kernel);

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
	return create_srq(pd, srq_init_attr, uobject, udata, NULL);
}
EXPORT_SYMBOL(ib_create_srq_user);

/**
 * ib_modify_srq_user - resize a shared receive queue or arm its limit
 * @srq: the SRQ
 * @srq_attr: the new values
 * @srq_attr_mask: which of them to apply
 * @udata: the driver data of a user's MODIFY_SRQ command, NULL for kernel
 *	callers
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for unknown mask bits, or the driver's error.
 */
int ib_modify_srq_user(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		       enum ib_srq_attr_mask srq_attr_mask,
		       struct ib_udata *udata)
{
	struct ib_device *device = srq->device;

	if (!device->ops->modify_srq) {
		dev_dbg_ratelimited(&device->dev,
				    "modify of SRQ %u refused: the driver cannot modify SRQs\n",
				    srq->res.id);
		return -EOPNOTSUPP;
	}
	if (srq_attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT)) {
		dev_dbg_ratelimited(&device->dev,
				    "modify of SRQ %u refused: attribute mask %#x, only IB_SRQ_MAX_WR and IB_SRQ_LIMIT are known\n",
				    srq->res.id, srq_attr_mask);
		return -EINVAL;
	}
	return device->ops->modify_srq(srq, srq_attr, srq_attr_mask, udata);
}
EXPORT_SYMBOL(ib_modify_srq_user);

/**
 * ib_modify_srq - resize a kernel shared receive queue or arm its limit
 * @srq: the SRQ
 * @srq_attr: the new values
 * @srq_attr_mask: which of them to apply
 *
 * See ib_modify_srq_user().
 *
 * Return: 0 or a negative errno.
 */
int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask)
{
	return ib_modify_srq_user(srq, srq_attr, srq_attr_mask, NULL);
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
	int users = atomic_read(&srq->usecnt);
	struct ib_pd *pd = srq->pd;
	int ret;

	if (users) {
		dev_dbg_ratelimited(&device->dev,
				    "destroy of SRQ %u refused: it still has %d users\n",
				    srq->res.id, users);
		return -EBUSY;
	}
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

/*
 * The one way to make a QP: for a kernel caller (@udata NULL, the name
 * @caller) or for a user process (@uobject, @udata, @caller NULL).  The
 * special QPs (SMI, GSI) are the kernel's.
 */
static struct ib_qp *create_qp(struct ib_pd *pd,
			       struct ib_qp_init_attr *qp_init_attr,
			       struct ib_uobject *uobject,
			       struct ib_udata *udata, const char *caller)
{
	enum ib_qp_type type = qp_init_attr->qp_type;
	struct ib_device *device = pd->device;
	struct ib_qp *qp;
	int ret;

	if (!device->ops->create_qp || !device->ops->destroy_qp) {
		dev_dbg_ratelimited(&device->dev,
				    "new QP refused: the driver cannot create and destroy QPs\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (udata && (type == IB_QPT_SMI || type == IB_QPT_GSI)) {
		dev_dbg_ratelimited(&device->dev,
				    "new QP refused: type %d is a special QP, which only the kernel creates\n",
				    type);
		return ERR_PTR(-EINVAL);
	}
	switch (type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (!rdma_is_port_valid(device, qp_init_attr->port_num)) {
			dev_dbg_ratelimited(&device->dev,
					    "new QP refused: special QP on port %u, which does not exist\n",
					    qp_init_attr->port_num);
			return ERR_PTR(-EINVAL);
		}
		break;
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	default:
		dev_dbg_ratelimited(&device->dev,
				    "new QP refused: type %d, only SMI, GSI, RC, UC and UD are supported\n",
				    type);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!qp_init_attr->send_cq || !qp_init_attr->recv_cq) {
		dev_dbg_ratelimited(&device->dev,
				    "new QP refused: no %s CQ\n",
				    qp_init_attr->send_cq ? "receive" : "send");
		return ERR_PTR(-EINVAL);
	}
	if (qp_init_attr->create_flags) {
		dev_dbg_ratelimited(&device->dev,
				    "new QP refused: create flags %#x, none is supported\n",
				    qp_init_attr->create_flags);
		return ERR_PTR(-EOPNOTSUPP);
	}

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
	qp->qp_type = type;
	qp->port = qp_init_attr->port_num;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->mutex);
	spin_lock_init(&qp->mr_lock);
	INIT_LIST_HEAD(&qp->rdma_mrs);
	INIT_LIST_HEAD(&qp->sig_mrs);
	rdma_restrack_new(&qp->res, RDMA_RESTRACK_QP);
	rdma_restrack_set_name(&qp->res, caller);

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

/**
 * ib_create_qp_kernel - create a kernel queue pair
 * @pd: the protection domain
 * @qp_init_attr: type, CQs, sizes; the sizes are updated to what was
 *	allocated
 * @caller: name of the owning module
 *
 * Use the ib_create_qp() wrapper.  With cap.max_rdma_ctxs set, the send
 * queue is made larger for that many RDMA READ/WRITE contexts and the
 * QP's MR pool is filled for them (see struct ib_qp_cap).
 *
 * Return: the QP, in the RESET state, or an ERR_PTR().
 */
struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd,
				  struct ib_qp_init_attr *qp_init_attr,
				  const char *caller)
{
	struct ib_device *device = pd->device;
	struct ib_qp *qp;
	int ret;

	if (qp_init_attr->cap.max_rdma_ctxs)
		rdma_rw_init_qp(device, qp_init_attr);

	qp = create_qp(pd, qp_init_attr, NULL, NULL, caller);
	if (IS_ERR(qp))
		return qp;

	/* what the driver gave, as rdma_rw_ctx_init() splits requests by */
	qp->max_write_sge = qp_init_attr->cap.max_send_sge;
	qp->max_read_sge = min_t(u32, qp_init_attr->cap.max_send_sge,
				 max(device->attrs.max_sge_rd, 0));

	if (qp_init_attr->cap.max_rdma_ctxs) {
		ret = rdma_rw_init_mrs(qp, qp_init_attr);
		if (ret)
			goto err_destroy;
	}
	return qp;

err_destroy:
	if (ib_destroy_qp(qp))
		dev_warn(&device->dev,
			 "QP %u without its MR pool could not be destroyed\n",
			 qp->qp_num);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_create_qp_kernel);

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
	return create_qp(pd, qp_init_attr, uobject, udata, NULL);
}
EXPORT_SYMBOL(ib_create_qp_user);

/* Is @port a port of the QP's device?  If not, say which attribute. */
static bool ib_qp_attr_port_ok(struct ib_qp *qp, const char *what, u32 port)
{
	if (rdma_is_port_valid(qp->device, port))
		return true;
	dev_dbg_ratelimited(&qp->device->dev,
			    "modify of QP %u refused: %s %u does not exist\n",
			    qp->qp_num, what, port);
	return false;
}

/* Is @value of the attribute @what at most @max?  If not, say so. */
static bool ib_qp_attr_max_ok(struct ib_qp *qp, const char *what, u32 value,
			      u32 max)
{
	if (value <= max)
		return true;
	dev_dbg_ratelimited(&qp->device->dev,
			    "modify of QP %u refused: %s %u, at most %u\n",
			    qp->qp_num, what, value, max);
	return false;
}

/*
 * Checks of modify attributes the driver need not repeat; a refusal names
 * the attribute and its value.
 */
static int ib_check_qp_attr(struct ib_qp *qp, struct ib_qp_attr *attr,
			    int mask)
{
	struct ib_device *device = qp->device;
	u32 port = mask & IB_QP_PORT ? attr->port_num : qp->port;
	u16 pkey_tbl_len;

	if (mask & IB_QP_PORT &&
	    !ib_qp_attr_port_ok(qp, "port", attr->port_num))
		return -EINVAL;
	if (mask & IB_QP_AV &&
	    !ib_qp_attr_port_ok(qp, "address vector port",
				attr->ah_attr.port_num))
		return -EINVAL;
	if (mask & IB_QP_ALT_PATH &&
	    (!ib_qp_attr_port_ok(qp, "alternate path port",
				 attr->alt_port_num) ||
	     !ib_qp_attr_port_ok(qp, "alternate address vector port",
				 attr->alt_ah_attr.port_num)))
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX && rdma_is_port_valid(device, port)) {
		pkey_tbl_len = ib_port_immutable_read(device, port)->pkey_tbl_len;
		if (attr->pkey_index >= pkey_tbl_len) {
			dev_dbg_ratelimited(&device->dev,
					    "modify of QP %u refused: P_Key index %u, port %u has %u P_Keys\n",
					    qp->qp_num, attr->pkey_index, port,
					    pkey_tbl_len);
			return -EINVAL;
		}
	}
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)) {
		dev_dbg_ratelimited(&device->dev,
				    "modify of QP %u refused: path MTU %d, not one of 1 (256 bytes) to 5 (4096 bytes)\n",
				    qp->qp_num, attr->path_mtu);
		return -EINVAL;
	}
	if (mask & IB_QP_ACCESS_FLAGS &&
	    attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ |
				      IB_ACCESS_REMOTE_ATOMIC)) {
		dev_dbg_ratelimited(&device->dev,
				    "modify of QP %u refused: access flags %#x, only local write and remote read, write and atomic are known\n",
				    qp->qp_num, attr->qp_access_flags);
		return -EINVAL;
	}
	if (mask & IB_QP_RQ_PSN &&
	    !ib_qp_attr_max_ok(qp, "receive PSN", attr->rq_psn, 0xffffff))
		return -EINVAL;
	if (mask & IB_QP_SQ_PSN &&
	    !ib_qp_attr_max_ok(qp, "send PSN", attr->sq_psn, 0xffffff))
		return -EINVAL;
	if (mask & IB_QP_DEST_QPN &&
	    !ib_qp_attr_max_ok(qp, "destination QPN", attr->dest_qp_num,
			       0xffffff))
		return -EINVAL;
	if (mask & IB_QP_TIMEOUT &&
	    !ib_qp_attr_max_ok(qp, "local ACK timeout", attr->timeout, 31))
		return -EINVAL;
	if (mask & IB_QP_RETRY_CNT &&
	    !ib_qp_attr_max_ok(qp, "retry count", attr->retry_cnt, 7))
		return -EINVAL;
	if (mask & IB_QP_RNR_RETRY &&
	    !ib_qp_attr_max_ok(qp, "RNR retry count", attr->rnr_retry, 7))
		return -EINVAL;
	if (mask & IB_QP_MIN_RNR_TIMER &&
	    !ib_qp_attr_max_ok(qp, "minimum RNR NAK timer",
			       attr->min_rnr_timer, 31))
		return -EINVAL;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    !ib_qp_attr_max_ok(qp, "initiator depth (max_rd_atomic)",
			       attr->max_rd_atomic,
			       device->attrs.max_qp_init_rd_atom))
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    !ib_qp_attr_max_ok(qp, "responder resources (max_dest_rd_atomic)",
			       attr->max_dest_rd_atomic,
			       device->attrs.max_qp_rd_atom))
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
	struct ib_device *device = qp->device;
	enum ib_qp_state cur, next;
	int ret;

	if (!device->ops->modify_qp) {
		dev_dbg_ratelimited(&device->dev,
				    "modify of QP %u refused: the driver cannot modify QPs\n",
				    qp->qp_num);
		return -EOPNOTSUPP;
	}

	mutex_lock(&qp->mutex);
	cur = qp_attr_mask & IB_QP_CUR_STATE ? qp_attr->cur_qp_state : qp->state;
	next = qp_attr_mask & IB_QP_STATE ? qp_attr->qp_state : cur;
	ret = -EINVAL;
	if (!ib_modify_qp_is_ok(cur, next, qp->qp_type, qp_attr_mask)) {
		dev_dbg_ratelimited(&device->dev,
				    "modify of QP %u refused: type %d, state %d to %d with attribute mask %#x breaks the IBA's transition rules\n",
				    qp->qp_num, qp->qp_type, cur, next,
				    qp_attr_mask);
		goto out;
	}
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
 * The QP's MR pool (core/mr_pool.c) is released after the driver's QP.
 *
 * Return: 0 or a negative errno: -EBUSY while an MR taken from the QP's
 * pools (by an RDMA READ/WRITE context) is not back.
 */
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata)
{
	struct ib_device *device = qp->device;
	struct ib_pd *pd = qp->pd;
	struct ib_cq *scq = qp->send_cq, *rcq = qp->recv_cq;
	struct ib_srq *srq = qp->srq;
	unsigned long flags;
	int mrs_used;
	int ret;

	spin_lock_irqsave(&qp->mr_lock, flags);
	mrs_used = qp->mrs_used;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	if (mrs_used) {
		dev_dbg_ratelimited(&device->dev,
				    "destroy of QP %u refused: %d MRs of its pool are in use\n",
				    qp->qp_num, mrs_used);
		return -EBUSY;
	}

	ib_qp_security_destroy_begin(qp);
	ret = device->ops->destroy_qp(qp, udata);
	if (ret) {
		ib_qp_security_destroy_abort(qp);
		return ret;
	}
	ib_qp_security_destroy_end(qp);
	rdma_rw_cleanup_mrs(qp);
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
 * struct ib_mr_args - what a new memory region is to be
 * @type: IB_MR_TYPE_MEM_REG or IB_MR_TYPE_SG_GAPS for a kernel caller's
 *	fast-registration MR, IB_MR_TYPE_USER for a user process's
 * @max_num_sg: the most pages a kernel MR can map
 * @start: the first byte of a user MR, a user virtual address
 * @length: the length of a user MR in bytes
 * @virt_addr: the address work requests use for @start
 * @access: IB_ACCESS_* flags of a user MR
 */
struct ib_mr_args {
	enum ib_mr_type	type;
	u32		max_num_sg;
	u64		start;
	u64		length;
	u64		virt_addr;
	int		access;
};

/*
 * A kernel MR: a fast-registration type (SG_GAPS only where the device
 * has it) mapping 1 to max_fast_reg_page_list_len pages.
 */
static int ib_check_kernel_mr(struct ib_device *device,
			      const struct ib_mr_args *args)
{
	if (!device->ops->alloc_mr) {
		dev_dbg_ratelimited(&device->dev,
				    "new MR refused: the driver cannot allocate fast-registration MRs\n");
		return -EOPNOTSUPP;
	}
	if (args->type != IB_MR_TYPE_MEM_REG &&
	    args->type != IB_MR_TYPE_SG_GAPS) {
		dev_dbg_ratelimited(&device->dev,
				    "new MR refused: type %d, only MEM_REG and SG_GAPS\n",
				    args->type);
		return -EINVAL;
	}
	if (args->type == IB_MR_TYPE_SG_GAPS &&
	    !(device->attrs.kernel_cap_flags & IBK_SG_GAPS_REG)) {
		dev_dbg_ratelimited(&device->dev,
				    "new MR refused: SG_GAPS, which the device does not support\n");
		return -EOPNOTSUPP;
	}
	if (!args->max_num_sg ||
	    args->max_num_sg > device->attrs.max_fast_reg_page_list_len) {
		dev_dbg_ratelimited(&device->dev,
				    "new MR refused: %u pages, the device allows 1 to %u\n",
				    args->max_num_sg,
				    device->attrs.max_fast_reg_page_list_len);
		return -EINVAL;
	}
	return 0;
}

/*
 * A user MR, as upstream's ib_check_mr_access() and REG_MR: known access
 * bits only, remote write and atomic need local write, no on-demand
 * paging here; a range that is not empty, not too long and does not wrap,
 * and a virtual address at the same offset in its page as the start.
 */
static int ib_check_user_mr(struct ib_device *device,
			    const struct ib_mr_args *args)
{
	if (!device->ops->reg_user_mr) {
		dev_dbg_ratelimited(&device->dev,
				    "new user MR refused: the driver cannot register user memory\n");
		return -EOPNOTSUPP;
	}
	if (args->access & ~IB_ACCESS_SUPPORTED) {
		dev_dbg_ratelimited(&device->dev,
				    "new user MR refused: access flags %#x, unknown bits %#x\n",
				    args->access,
				    args->access & ~IB_ACCESS_SUPPORTED);
		return -EINVAL;
	}
	if (args->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) &&
	    !(args->access & IB_ACCESS_LOCAL_WRITE)) {
		dev_dbg_ratelimited(&device->dev,
				    "new user MR refused: access flags %#x, remote write or atomic without local write\n",
				    args->access);
		return -EINVAL;
	}
	if (args->access & IB_ACCESS_ON_DEMAND) {
		dev_dbg_ratelimited(&device->dev,
				    "new user MR refused: access flags %#x, on-demand paging is not supported\n",
				    args->access);
		return -EINVAL;
	}
	if (!args->length || args->length > device->attrs.max_mr_size ||
	    args->start + args->length < args->start) {
		dev_dbg_ratelimited(&device->dev,
				    "new user MR refused: %llu bytes at %#llx, the device allows 1 to %llu without wrapping\n",
				    args->length, args->start,
				    device->attrs.max_mr_size);
		return -EINVAL;
	}
	if ((args->start & ~PAGE_MASK) != (args->virt_addr & ~PAGE_MASK)) {
		dev_dbg_ratelimited(&device->dev,
				    "new user MR refused: start %#llx and virtual address %#llx at different offsets in their pages\n",
				    args->start, args->virt_addr);
		return -EINVAL;
	}
	return 0;
}

/*
 * The one way to make an MR the core tracks: a kernel caller's
 * fast-registration MR (@udata NULL, the name @caller) from the driver's
 * alloc_mr, or a user process's registered memory (@uobject, @udata,
 * @caller NULL) from its reg_user_mr.  The checks and the driver's op
 * differ, the bookkeeping does not.
 */
static struct ib_mr *create_mr(struct ib_pd *pd, const struct ib_mr_args *args,
			       struct ib_uobject *uobject,
			       struct ib_udata *udata, const char *caller)
{
	struct ib_device *device = pd->device;
	struct ib_mr *mr;
	int ret;

	if (!device->ops->dereg_mr) {
		dev_dbg_ratelimited(&device->dev,
				    "new MR refused: the driver cannot release MRs\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (udata) {
		ret = ib_check_user_mr(device, args);
		if (ret)
			return ERR_PTR(ret);
		mr = device->ops->reg_user_mr(pd, args->start, args->length,
					      args->virt_addr,
					      args->access & ~IB_ACCESS_OPTIONAL,
					      udata);
	} else {
		ret = ib_check_kernel_mr(device, args);
		if (ret)
			return ERR_PTR(ret);
		mr = device->ops->alloc_mr(pd, args->type, args->max_num_sg);
	}
	if (IS_ERR(mr))
		return mr;

	mr->device = device;
	mr->pd = pd;
	mr->type = args->type;
	mr->uobject = uobject;
	mr->need_inval = false;
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_set_name(&mr->res, caller);
	ret = rdma_restrack_add(device, &mr->res);
	if (ret)
		goto err_dereg;
	atomic_inc(&pd->usecnt);
	return mr;

err_dereg:
	rdma_restrack_del(device, &mr->res);
	device->ops->dereg_mr(mr, udata);
	return ERR_PTR(ret);
}

/**
 * ib_alloc_mr_kernel - allocate a fast-registration memory region
 * @pd: the protection domain
 * @mr_type: IB_MR_TYPE_MEM_REG (or SG_GAPS if the device supports it)
 * @max_num_sg: the most pages the MR can map
 * @caller: name of the owning module
 *
 * Use the ib_alloc_mr() wrapper.
 *
 * Return: the MR, to be mapped with ib_map_mr_sg() and registered with an
 * IB_WR_REG_MR work request, or an ERR_PTR().
 */
struct ib_mr *ib_alloc_mr_kernel(struct ib_pd *pd, enum ib_mr_type mr_type,
				 u32 max_num_sg, const char *caller)
{
	const struct ib_mr_args args = {
		.type = mr_type,
		.max_num_sg = max_num_sg,
	};

	return create_mr(pd, &args, NULL, NULL, caller);
}
EXPORT_SYMBOL(ib_alloc_mr_kernel);

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
	const struct ib_mr_args args = {
		.type = IB_MR_TYPE_USER,
		.start = start,
		.length = length,
		.virt_addr = virt_addr,
		.access = access,
	};

	return create_mr(pd, &args, uobject, udata, NULL);
}
EXPORT_SYMBOL(ib_reg_user_mr);

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
