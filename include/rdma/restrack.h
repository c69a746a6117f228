/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Resource tracking: every PD, CQ, QP, SRQ and MR of a device is entered in
 * a per-device table, so that the RDMA netlink "rdma res" view can list
 * them with their owner, and so that leftovers can be found.
 */
#ifndef RDMA_RESTRACK_H
#define RDMA_RESTRACK_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct ib_device;

/* Tracked object types; the order is that of upstream's netlink view. */
enum rdma_restrack_type {
	RDMA_RESTRACK_PD,
	RDMA_RESTRACK_CQ,
	RDMA_RESTRACK_QP,
	RDMA_RESTRACK_CM_ID,
	RDMA_RESTRACK_MR,
	RDMA_RESTRACK_CTX,
	RDMA_RESTRACK_COUNTER,
	RDMA_RESTRACK_SRQ,
	RDMA_RESTRACK_MAX
};

/**
 * struct rdma_restrack_entry - tracking information embedded in an object
 * @valid: the object is in its device's table
 * @kref: references from readers of the table; the owner waits for them
 *	in rdma_restrack_del()
 * @comp: completed when @kref drops to zero
 * @task: owning user process, or NULL for a kernel object
 * @kern_name: name of the kernel owner (its module), or NULL
 * @type: what kind of object this is
 * @user: the object belongs to userspace
 * @id: index of the object in its device's table of @type
 */
struct rdma_restrack_entry {
	bool			valid;
	struct kref		kref;
	struct completion	comp;
	struct task_struct	*task;
	const char		*kern_name;
	enum rdma_restrack_type	type;
	bool			user;
	u32			id;
};

void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_parent_name(struct rdma_restrack_entry *res,
			       const struct rdma_restrack_entry *parent);
int rdma_restrack_add(struct ib_device *device,
		      struct rdma_restrack_entry *res);
void rdma_restrack_untrack(struct ib_device *device,
			   struct rdma_restrack_entry *res);
void rdma_restrack_del(struct ib_device *device,
		       struct rdma_restrack_entry *res);
int rdma_restrack_get(struct rdma_restrack_entry *res);
int rdma_restrack_put(struct rdma_restrack_entry *res);
int rdma_restrack_count(struct ib_device *device,
			enum rdma_restrack_type type);
struct rdma_restrack_entry *
rdma_restrack_get_next(struct ib_device *device, enum rdma_restrack_type type,
		       unsigned long *id);

/**
 * rdma_is_kernel_res - whether a tracked object belongs to the kernel
 * @res: the tracking entry
 *
 * Return: true for kernel objects, false for userspace ones.
 */
static inline bool rdma_is_kernel_res(const struct rdma_restrack_entry *res)
{
	return !res->user;
}

#endif /* RDMA_RESTRACK_H */
