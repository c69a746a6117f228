// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Resource tracking: a per-device table of every PD, CQ, QP, SRQ and MR,
 * for the RDMA netlink resource view and to catch objects left behind.
 */
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/restrack.h>

#include "core_priv.h"

/**
 * struct rdma_restrack_root - the tracked objects of one type
 * @xa: id -> struct rdma_restrack_entry; its lock protects it and @next_id
 * @next_id: where cyclic id allocation continues
 */
struct rdma_restrack_root {
	struct xarray	xa;
	u32		next_id;
};

static const char * const rdma_restrack_names[RDMA_RESTRACK_MAX] = {
	[RDMA_RESTRACK_PD] = "PD",
	[RDMA_RESTRACK_CQ] = "CQ",
	[RDMA_RESTRACK_QP] = "QP",
	[RDMA_RESTRACK_CM_ID] = "CM_ID",
	[RDMA_RESTRACK_MR] = "MR",
	[RDMA_RESTRACK_CTX] = "CTX",
	[RDMA_RESTRACK_COUNTER] = "COUNTER",
	[RDMA_RESTRACK_SRQ] = "SRQ",
};

int rdma_restrack_init(struct ib_device *device)
{
	int i;

	device->res = kcalloc(RDMA_RESTRACK_MAX, sizeof(*device->res),
			      GFP_KERNEL);
	if (!device->res)
		return -ENOMEM;
	for (i = 0; i < RDMA_RESTRACK_MAX; i++)
		xa_init_flags(&device->res[i].xa, XA_FLAGS_ALLOC);
	return 0;
}

/*
 * At the end of unregistration, when every client is gone: objects still
 * tracked are leaks of their owners.  Every one is reported, and the
 * kernel warns once.
 */
void rdma_restrack_report(struct ib_device *device)
{
	struct rdma_restrack_entry *res;
	unsigned long index;
	bool leaked = false;
	int i;

	for (i = 0; i < RDMA_RESTRACK_MAX; i++) {
		xa_for_each(&device->res[i].xa, index, res) {
			dev_err(&device->dev,
				"%s object %lu of %s was not freed\n",
				rdma_restrack_names[i], index,
				res->kern_name ? : "a user process");
			leaked = true;
		}
	}
	WARN_ON(leaked);
}

void rdma_restrack_free(struct ib_device *device)
{
	int i;

	if (!device->res)
		return;
	for (i = 0; i < RDMA_RESTRACK_MAX; i++)
		xa_destroy(&device->res[i].xa);
	kfree(device->res);
	device->res = NULL;
}

/**
 * rdma_restrack_new - initialise the tracking entry of a new object
 * @res: the entry
 * @type: the object's type
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type)
{
	kref_init(&res->kref);
	init_completion(&res->comp);
	res->type = type;
}
EXPORT_SYMBOL(rdma_restrack_new);

/**
 * rdma_restrack_set_name - record who owns an object
 * @res: the entry
 * @caller: name of the kernel owner, or NULL for the current user process
 */
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller)
{
	if (caller) {
		res->kern_name = caller;
		return;
	}
	res->user = true;
	res->task = get_task_struct(current);
}
EXPORT_SYMBOL(rdma_restrack_set_name);

/**
 * rdma_restrack_parent_name - give an object the owner of another
 * @res: the entry of a new object
 * @parent: the entry of the object it belongs to, e.g. its PD
 *
 * For objects made on behalf of the owner of @parent, such as a QP in a
 * PD, so that resource listings show who really owns them.
 */
void rdma_restrack_parent_name(struct rdma_restrack_entry *res,
			       const struct rdma_restrack_entry *parent)
{
	if (rdma_is_kernel_res(parent)) {
		res->kern_name = parent->kern_name;
		return;
	}
	res->user = true;
	res->task = get_task_struct(parent->task);
}
EXPORT_SYMBOL(rdma_restrack_parent_name);

/**
 * rdma_restrack_add - enter an object in its device's table
 * @device: the device
 * @res: the object's entry, from rdma_restrack_new(), not in a table
 *	(again, after rdma_restrack_untrack(), possibly of another device)
 *
 * Return: 0 or a negative errno.
 */
int rdma_restrack_add(struct ib_device *device, struct rdma_restrack_entry *res)
{
	struct rdma_restrack_root *root = &device->res[res->type];
	int ret;

	/* the table's reference, which readers hold on to */
	kref_init(&res->kref);
	reinit_completion(&res->comp);
	ret = xa_alloc_cyclic(&root->xa, &res->id, res, xa_limit_32b,
			      &root->next_id, GFP_KERNEL);
	if (ret < 0)
		return ret;
	res->valid = true;
	return 0;
}
EXPORT_SYMBOL(rdma_restrack_add);

static void rdma_restrack_release(struct kref *kref)
{
	struct rdma_restrack_entry *res =
		container_of(kref, struct rdma_restrack_entry, kref);

	complete(&res->comp);
}

/**
 * rdma_restrack_get - hold a tracked object while reading it
 * @res: the entry, found in the table under its lock
 *
 * Return: non-zero if the object was not already being removed.
 */
int rdma_restrack_get(struct rdma_restrack_entry *res)
{
	return kref_get_unless_zero(&res->kref);
}
EXPORT_SYMBOL(rdma_restrack_get);

/**
 * rdma_restrack_put - release a hold from rdma_restrack_get()
 * @res: the entry
 *
 * Return: 1 if this was the last reference.
 */
int rdma_restrack_put(struct rdma_restrack_entry *res)
{
	return kref_put(&res->kref, rdma_restrack_release);
}
EXPORT_SYMBOL(rdma_restrack_put);

/**
 * rdma_restrack_untrack - take an object out of its device's table
 * @device: the device
 * @res: the entry
 *
 * Waits until readers holding the object have let go of it.  The owner
 * stays: an object that moves between devices (an RDMA CM id whose bind
 * failed) is added again later.  Nothing happens if it is not in a table.
 */
void rdma_restrack_untrack(struct ib_device *device,
			   struct rdma_restrack_entry *res)
{
	if (!res->valid)
		return;
	xa_erase(&device->res[res->type].xa, res->id);
	res->valid = false;
	rdma_restrack_put(res);
	wait_for_completion(&res->comp);
}
EXPORT_SYMBOL(rdma_restrack_untrack);

/**
 * rdma_restrack_del - take an object out of its device's table for good
 * @device: the device
 * @res: the entry
 *
 * As rdma_restrack_untrack(), and releases the owner information, whether
 * or not the object was ever added.
 */
void rdma_restrack_del(struct ib_device *device,
		       struct rdma_restrack_entry *res)
{
	rdma_restrack_untrack(device, res);
	if (res->task) {
		put_task_struct(res->task);
		res->task = NULL;
	}
}
EXPORT_SYMBOL(rdma_restrack_del);

/**
 * rdma_restrack_count - number of tracked objects of a type
 * @device: the device
 * @type: the type
 *
 * Return: the count at the time of the call.
 */
int rdma_restrack_count(struct ib_device *device, enum rdma_restrack_type type)
{
	struct rdma_restrack_root *root = &device->res[type];
	struct rdma_restrack_entry *res;
	unsigned long index;
	int count = 0;

	xa_lock(&root->xa);
	xa_for_each(&root->xa, index, res)
		count++;
	xa_unlock(&root->xa);
	return count;
}
EXPORT_SYMBOL(rdma_restrack_count);

/**
 * rdma_restrack_get_next - the next tracked object of a type, held
 * @device: the device
 * @type: the type
 * @id: in: the lowest id wanted; out: the id of the object returned
 *
 * For walking a device's table without holding its lock: start with
 * @id 0 and continue with @id + 1 after each object.  Objects added or
 * removed meanwhile may or may not be seen.
 *
 * Return: the object with a reference from rdma_restrack_get(), to be
 * dropped with rdma_restrack_put(), or NULL when there is none left.
 */
struct rdma_restrack_entry *
rdma_restrack_get_next(struct ib_device *device, enum rdma_restrack_type type,
		       unsigned long *id)
{
	struct rdma_restrack_root *root = &device->res[type];
	struct rdma_restrack_entry *res;

	xa_lock(&root->xa);
	for (res = xa_find(&root->xa, id, ULONG_MAX, XA_PRESENT); res;
	     res = xa_find_after(&root->xa, id, ULONG_MAX, XA_PRESENT))
		if (rdma_restrack_get(res))
			break;
	xa_unlock(&root->xa);
	return res;
}
EXPORT_SYMBOL(rdma_restrack_get_next);
