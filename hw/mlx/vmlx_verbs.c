// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx verbs: the driver's ib_device_ops table and the device and port
 * queries.
 *
 * Port attributes come from struct vmlx_port, which the fabric
 * (vmlx_fabric.c) and the SMA (vmlx_sma.c) keep up to date: what a subnet
 * manager's SubnSet writes is what query_port, query_pkey and query_gid
 * report.  Without a subnet manager (and without the static_lids lab
 * option) a cabled port behaves like real hardware: the physical link is
 * up, the logical state is INIT, the LID is 0.  GID i is the GID prefix
 * with GUIDInfo entry i: entry 0 is the port GUID, the others are 0
 * (an empty GID) until a subnet manager sets alias GUIDs.
 */
#include <linux/string.h>
#include <linux/sysfs.h>

#include "vmlx.h"
#include "vmlx_sma.h"

static int vmlx_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata)
{
	/* read first: at registration @attr is ibdev->attrs itself */
	__be64 sys_image_guid = ibdev->attrs.sys_image_guid;

	if (udata && (udata->inlen || udata->outlen)) {
		vmlx_dbg_refusal(ibdev, "query_device: driver data %zu in, %zu out\n",
				 udata->inlen, udata->outlen);
		return -EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = VMLX_FW_VERSION_NUM;
	attr->sys_image_guid = sys_image_guid;
	attr->vendor_id = VMLX_VENDOR_ID;
	attr->vendor_part_id = VMLX_VENDOR_PART_ID;
	attr->max_mr_size = VMLX_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = VMLX_MAX_QP;
	attr->max_qp_wr = VMLX_MAX_QP_WR;
	attr->max_send_sge = VMLX_MAX_SGE;
	attr->max_recv_sge = VMLX_MAX_SGE;
	attr->max_sge_rd = VMLX_MAX_SGE;
	attr->max_cq = VMLX_MAX_CQ;
	attr->max_cqe = VMLX_MAX_CQE;
	attr->max_mr = VMLX_MAX_MR;
	attr->max_pd = VMLX_MAX_PD;
	attr->max_qp_rd_atom = VMLX_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = VMLX_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = VMLX_MAX_RD_ATOMIC * VMLX_MAX_QP;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_mcast_grp = VMLX_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = VMLX_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach =
		VMLX_MAX_MCAST_QP_ATTACH * VMLX_MAX_MCAST_GRP;
	attr->max_ah = VMLX_MAX_AH;
	attr->max_srq = VMLX_MAX_SRQ;
	attr->max_srq_wr = VMLX_MAX_QP_WR;
	attr->max_srq_sge = VMLX_MAX_SGE;
	attr->max_fast_reg_page_list_len = VMLX_MAX_FAST_REG_PAGES;
	attr->max_pkeys = VMLX_PKEY_TBL_LEN;
	attr->local_ca_ack_delay = 15;
	attr->max_inline_data = VMLX_MAX_INLINE;
	attr->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				 IB_DEVICE_BAD_QKEY_CNTR |
				 IB_DEVICE_SHUTDOWN_PORT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_MEM_MGT_EXTENSIONS;
	return 0;
}

static int vmlx_query_port(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_attr *attr)
{
	struct vmlx_port *port = vmlx_port(to_vmlx(ibdev), port_num);
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	attr->state = port->state;
	attr->phys_state = port->phys_state;
	attr->lid = port->lid;
	attr->lmc = port->lmc;
	attr->sm_lid = port->sm_lid;
	attr->sm_sl = port->sm_sl;
	attr->port_cap_flags = port->cap_mask;
	attr->subnet_timeout = port->subnet_timeout;
	attr->subnet_prefix = port->gid_prefix;
	attr->active_mtu = port->link.neighbor_mtu;
	attr->max_vl_num = port->link.op_vls;
	attr->bad_pkey_cntr = port->link.pkey_violations;
	attr->qkey_viol_cntr = port->link.qkey_violations;
	spin_unlock_irqrestore(&port->lock, flags);

	attr->max_mtu = VMLX_PI_MTU_CAP;
	attr->phys_mtu = 4096;
	attr->gid_tbl_len = VMLX_GID_TBL_LEN;
	attr->pkey_tbl_len = VMLX_PKEY_TBL_LEN;
	attr->max_msg_sz = VMLX_MAX_MSG_SIZE;
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_EDR;
	return 0;
}

static int vmlx_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = VMLX_PKEY_TBL_LEN;
	immutable->gid_tbl_len = VMLX_GID_TBL_LEN;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->max_mad_size = 256;
	return 0;
}

static enum rdma_link_layer vmlx_get_link_layer(struct ib_device *ibdev,
						u32 port_num)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static int vmlx_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			   u16 *pkey)
{
	struct vmlx_port *port = vmlx_port(to_vmlx(ibdev), port_num);
	unsigned long flags;

	if (index >= VMLX_PKEY_TBL_LEN) {
		vmlx_dbg_refusal(ibdev, "query_pkey: index %u >= %u\n", index,
				 VMLX_PKEY_TBL_LEN);
		return -EINVAL;
	}
	spin_lock_irqsave(&port->lock, flags);
	*pkey = port->pkeys[index];
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

static int vmlx_query_gid(struct ib_device *ibdev, u32 port_num, int index,
			  union ib_gid *gid)
{
	struct vmlx_port *port = vmlx_port(to_vmlx(ibdev), port_num);
	unsigned long flags;
	__be64 guid;
	u64 prefix;

	if (index < 0 || index >= VMLX_GID_TBL_LEN) {
		vmlx_dbg_refusal(ibdev, "query_gid: index %d, not 0..%u\n", index,
				 VMLX_GID_TBL_LEN - 1);
		return -EINVAL;
	}
	spin_lock_irqsave(&port->lock, flags);
	prefix = port->gid_prefix;
	guid = port->guids[index];
	spin_unlock_irqrestore(&port->lock, flags);

	memset(gid, 0, sizeof(*gid));
	if (!guid)
		return 0;
	gid->global.subnet_prefix = cpu_to_be64(prefix);
	gid->global.interface_id = guid;
	return 0;
}

static void vmlx_get_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 (u32)(VMLX_FW_VERSION_NUM >> 32),
		 (u32)(VMLX_FW_VERSION_NUM >> 16) & 0xffff,
		 (u32)VMLX_FW_VERSION_NUM & 0xffff);
}

static int vmlx_modify_device(struct ib_device *ibdev, int mask,
			      struct ib_device_modify *modify)
{
	struct vmlx_dev *vdev = to_vmlx(ibdev);
	unsigned long flags;

	/* the SMA reads them, perhaps with interrupts off */
	spin_lock_irqsave(&vdev->attr_lock, flags);
	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID)
		ibdev->attrs.sys_image_guid = modify->sys_image_guid;
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, modify->node_desc,
		       sizeof(ibdev->node_desc));
	spin_unlock_irqrestore(&vdev->attr_lock, flags);
	return 0;
}

/*
 * The device attributes HCA drivers add to sysfs (ibstat shows hca_type
 * as "CA type" and hw_rev as "Hardware version"; ibv_devinfo shows
 * board_id).
 */
static ssize_t hw_rev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%x\n", VMLX_HW_REV);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", VMLX_HCA_TYPE);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", VMLX_BOARD_ID);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *vmlx_dev_attrs[] = {
	&dev_attr_hw_rev.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_board_id.attr,
	NULL
};

static const struct attribute_group vmlx_dev_attr_group = {
	.attrs = vmlx_dev_attrs,
};

const struct ib_device_ops vmlx_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = 2,

	.query_device = vmlx_query_device,
	.query_port = vmlx_query_port,
	.get_port_immutable = vmlx_get_port_immutable,
	.get_link_layer = vmlx_get_link_layer,
	.query_pkey = vmlx_query_pkey,
	.query_gid = vmlx_query_gid,
	.get_dev_fw_str = vmlx_get_fw_str,
	.device_group = &vmlx_dev_attr_group,
	.modify_device = vmlx_modify_device,
	.modify_port = vmlx_modify_port,
	.process_mad = vmlx_process_mad,

	.alloc_ucontext = vmlx_alloc_ucontext,
	.dealloc_ucontext = vmlx_dealloc_ucontext,
	.mmap = vmlx_mmap,
	.alloc_pd = vmlx_alloc_pd,
	.dealloc_pd = vmlx_dealloc_pd,
	.create_ah = vmlx_create_ah,
	.query_ah = vmlx_query_ah,
	.destroy_ah = vmlx_destroy_ah,
	.get_dma_mr = vmlx_get_dma_mr,
	.alloc_mr = vmlx_alloc_mr,
	.map_mr_sg = vmlx_map_mr_sg,
	.reg_user_mr = vmlx_reg_user_mr,
	.dereg_mr = vmlx_dereg_mr,
	.create_cq = vmlx_create_cq,
	.destroy_cq = vmlx_destroy_cq,
	.poll_cq = vmlx_poll_cq,
	.req_notify_cq = vmlx_req_notify_cq,
	.create_srq = vmlx_create_srq,
	.modify_srq = vmlx_modify_srq,
	.query_srq = vmlx_query_srq,
	.destroy_srq = vmlx_destroy_srq,
	.post_srq_recv = vmlx_post_srq_recv,
	.create_qp = vmlx_create_qp,
	.modify_qp = vmlx_modify_qp,
	.query_qp = vmlx_query_qp,
	.destroy_qp = vmlx_destroy_qp,
	.post_send = vmlx_post_send,
	.post_recv = vmlx_post_recv,
	.attach_mcast = vmlx_attach_mcast,
	.detach_mcast = vmlx_detach_mcast,

	INIT_RDMA_OBJ_SIZE(ib_pd, struct vmlx_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ah, struct vmlx_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, struct vmlx_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_srq, struct vmlx_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_qp, struct vmlx_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, struct vmlx_ucontext, ibuc),
};
