// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User contexts, for the uverbs module: a process's context on a device,
 * allocated with the driver's private part, entered in resource tracking
 * and charged to the process's rdma cgroup.  The uverbs module owns the
 * handles and the per-file bookkeeping; the user objects of a context are
 * made and destroyed by the same functions as kernel objects (verbs.c).
 *
 * Locking: none here.  The uverbs module serialises the creation and
 * destruction of the context of a file (its ctx_mutex).
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "core_priv.h"

/**
 * ib_alloc_ucontext - create a user context on a device
 * @device: the device
 * @udata: the driver data of the user's GET_CONTEXT command
 *
 * Allocates the context with room for the driver's part, lets the driver
 * set it up and enters it in resource tracking, owned by the current
 * process, whose rdma cgroup it is charged to (an hca_handle).  The
 * caller sets @ufile.
 *
 * Context: process context; may sleep.
 * Return: the context, or ERR_PTR(-EOPNOTSUPP) if the driver has no user
 * contexts, ERR_PTR(-EAGAIN) if the cgroup is at its limit of handles
 * for the device, or another ERR_PTR().
 */
struct ib_ucontext *ib_alloc_ucontext(struct ib_device *device,
				      struct ib_udata *udata)
{
	struct ib_ucontext *uctx;
	int ret;

	if (!device->ops->alloc_ucontext || !device->ops->dealloc_ucontext) {
		dev_dbg_ratelimited(&device->dev,
				    "new user context refused: the driver has no user contexts\n");
		return ERR_PTR(-EOPNOTSUPP);
	}

	uctx = rdma_zalloc_obj(device, ib_ucontext, GFP_KERNEL);
	if (!uctx)
		return ERR_PTR(-ENOMEM);
	uctx->device = device;
	rdma_restrack_new(&uctx->res, RDMA_RESTRACK_CTX);
	rdma_restrack_set_name(&uctx->res, NULL);

	ret = ib_rdmacg_try_charge(&uctx->cg_obj, device,
				   RDMACG_RESOURCE_HCA_HANDLE);
	if (ret)
		goto err_free;
	ret = device->ops->alloc_ucontext(uctx, udata);
	if (ret)
		goto err_uncharge;
	ret = rdma_restrack_add(device, &uctx->res);
	if (ret)
		goto err_dealloc;
	return uctx;

err_dealloc:
	device->ops->dealloc_ucontext(uctx);
err_uncharge:
	ib_rdmacg_uncharge(&uctx->cg_obj, device, RDMACG_RESOURCE_HCA_HANDLE);
err_free:
	rdma_restrack_del(device, &uctx->res);
	kfree(uctx);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_alloc_ucontext);

/**
 * ib_dealloc_ucontext - destroy a user context
 * @uctx: a context from ib_alloc_ucontext() whose objects are all gone
 *
 * Context: process context; may sleep.
 */
void ib_dealloc_ucontext(struct ib_ucontext *uctx)
{
	struct ib_device *device = uctx->device;

	rdma_restrack_del(device, &uctx->res);
	device->ops->dealloc_ucontext(uctx);
	ib_rdmacg_uncharge(&uctx->cg_obj, device, RDMACG_RESOURCE_HCA_HANDLE);
	kfree(uctx);
}
EXPORT_SYMBOL(ib_dealloc_ucontext);
