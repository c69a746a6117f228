/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx: a software InfiniBand HCA.  Private structures of the driver.
 */
#ifndef VMLX_H
#define VMLX_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#define VMLX_MAX_HCAS	16
#define VMLX_MAX_PORTS	2

/*
 * Identity.  No silicon is claimed: the vendor id is 0 (unassigned), the
 * part id spells "vmlx" loosely, the firmware version is this driver's.
 */
#define VMLX_VENDOR_ID			0
#define VMLX_VENDOR_PART_ID		0x766d
#define VMLX_FW_VERSION_NUM		((0ULL << 32) | (1 << 16) | 0)

/* Limits reported by query_device. */
#define VMLX_MAX_QP			4096
#define VMLX_MAX_QP_WR			4096
#define VMLX_MAX_SGE			32
#define VMLX_MAX_CQ			4096
#define VMLX_MAX_CQE			32768
#define VMLX_MAX_MR			8192
#define VMLX_MAX_PD			4096
#define VMLX_MAX_AH			8192
#define VMLX_MAX_SRQ			1024
#define VMLX_MAX_RD_ATOMIC		16
#define VMLX_MAX_MCAST_GRP		256
#define VMLX_MAX_MCAST_QP_ATTACH	64
#define VMLX_MAX_FAST_REG_PAGES		512
#define VMLX_MAX_INLINE			256
#define VMLX_MAX_MR_SIZE		BIT_ULL(40)
#define VMLX_MAX_MSG_SIZE		BIT(31)

/* Port tables. */
#define VMLX_PKEY_TBL_LEN		16
#define VMLX_GID_TBL_LEN		4
#define VMLX_DEFAULT_SUBNET_PREFIX	0xfe80000000000000ULL

/*
 * Node GUIDs are EUI-64 values under a locally administered prefix
 * ("vml" with the U/L bit set), so they never collide with a vendor's.
 * Bits 16..31 hold the host id, bits 4..15 the HCA number; a port GUID is
 * the node GUID plus the port number.
 */
#define VMLX_GUID_PREFIX	0x02766d6c00000000ULL

/**
 * struct vmlx_port - one port of an HCA
 * @guid: port GUID, big endian
 * @state: logical port state (INIT until a subnet manager activates it)
 * @lid: base LID, 0 until assigned
 * @sm_lid: LID of the subnet manager, 0 if none
 */
struct vmlx_port {
	__be64			guid;
	enum ib_port_state	state;
	u32			lid;
	u32			sm_lid;
};

/**
 * struct vmlx_dev - one software HCA
 * @ibdev: the core's device, first so that ib_alloc_device() works
 * @list: entry in the driver's list of HCAs
 * @num: HCA number, used for its GUIDs
 * @ports: its ports, ibdev.phys_port_cnt of them
 * @attr_lock: see below
 */
struct vmlx_dev {
	struct ib_device ibdev;
	struct list_head list;
	unsigned int num;
	struct vmlx_port ports[VMLX_MAX_PORTS];
	/* protects ibdev.node_desc and ibdev.attrs.sys_image_guid */
	spinlock_t attr_lock;
};

static inline struct vmlx_dev *to_vmlx(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vmlx_dev, ibdev);
}

extern const struct ib_device_ops vmlx_dev_ops;

#endif /* VMLX_H */
