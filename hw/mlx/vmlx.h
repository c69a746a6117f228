/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx: a software InfiniBand HCA.  Private structures of the driver.
 */
#ifndef VMLX_H
#define VMLX_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#define VMLX_MAX_HCAS	16
#define VMLX_MAX_PORTS	2

/*
 * Node GUIDs are EUI-64 values under a locally administered prefix
 * ("vml" with the U/L bit set), so they never collide with a vendor's.
 * Bits 16..31 hold the host id, bits 4..15 the HCA number; a port GUID is
 * the node GUID plus the port number.
 */
#define VMLX_GUID_PREFIX	0x02766d6c00000000ULL

/**
 * struct vmlx_dev - one software HCA
 * @ibdev: the core's device, first so that ib_alloc_device() works
 * @list: entry in the driver's list of HCAs
 * @num: HCA number, used for its GUIDs
 * @attr_lock: see below
 */
struct vmlx_dev {
	struct ib_device ibdev;
	struct list_head list;
	unsigned int num;
	/* protects ibdev.node_desc and ibdev.attrs.sys_image_guid */
	spinlock_t attr_lock;
};

static inline struct vmlx_dev *to_vmlx(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vmlx_dev, ibdev);
}

#endif /* VMLX_H */
