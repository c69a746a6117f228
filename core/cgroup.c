// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rdma cgroup controller for RDMA devices: every registered device is
 * a device of the controller under its name, and what processes make on
 * it is charged to their cgroup, so that rdma.max ("vmlx0 hca_handle=2
 * hca_object=100") bounds what one group of processes can take of a
 * device's object limits, which are shared by everybody.  A user context
 * counts as one hca_handle, every user object (PD, MR, CQ, QP, SRQ, AH)
 * as one hca_object.  Kernel consumers are not charged.
 *
 * The controller has its own lock; nothing here adds one.  Built only
 * with CONFIG_CGROUP_RDMA; core_priv.h and ib_verbs.h give the stubs.
 */
#include <linux/cgroup_rdma.h>

#include "core_priv.h"

/**
 * ib_device_register_rdmacg() - make a device known to the rdma controller
 * @device: a device being registered, with its name assigned
 *
 * Device names do not change while a device is registered, so the
 * controller may keep a pointer to the name.
 */
void ib_device_register_rdmacg(struct ib_device *device)
{
	device->cg_device.name = (char *)dev_name(&device->dev);
	rdmacg_register_device(&device->cg_device);
}

/**
 * ib_device_unregister_rdmacg() - the controller forgets a device
 * @device: a device being unregistered, whose user objects and contexts
 *	are all gone (and uncharged)
 */
void ib_device_unregister_rdmacg(struct ib_device *device)
{
	rdmacg_unregister_device(&device->cg_device);
}

/**
 * ib_rdmacg_try_charge() - charge one resource to the current cgroup
 * @cg_obj: where the cgroup charged is remembered, for the uncharge
 * @device: the device the resource is of
 * @type: RDMACG_RESOURCE_HCA_HANDLE or RDMACG_RESOURCE_HCA_OBJECT
 *
 * Context: process context, of the task the resource is made for.
 * Return: 0, or -EAGAIN when the cgroup (or one above it) is at its
 * rdma.max for the device, or -ENOMEM.
 */
int ib_rdmacg_try_charge(struct ib_rdmacg_object *cg_obj,
			 struct ib_device *device,
			 enum rdmacg_resource_type type)
{
	return rdmacg_try_charge(&cg_obj->cg, &device->cg_device, type);
}
EXPORT_SYMBOL(ib_rdmacg_try_charge);

/**
 * ib_rdmacg_uncharge() - give back what ib_rdmacg_try_charge() charged
 * @cg_obj: as passed to ib_rdmacg_try_charge(), which succeeded
 * @device: the device
 * @type: the same resource type
 */
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type type)
{
	rdmacg_uncharge(cg_obj->cg, &device->cg_device, type);
}
EXPORT_SYMBOL(ib_rdmacg_uncharge);
