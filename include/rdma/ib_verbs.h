/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel-internal verbs API: RDMA devices, their operations table, the
 * verbs objects (PD, MR, CQ, QP, SRQ, AH) and the clients (upper-layer
 * protocols, user access modules) that use them.
 *
 * A hardware driver allocates a struct ib_device with ib_alloc_device(),
 * points it at its ops table and calls ib_register_device().  Clients call
 * ib_register_client() and are told of every device that comes and goes
 * through their add and remove callbacks.  Drivers and clients only meet
 * through this header.
 *
 * Verbs objects are allocated by the core with room for the driver's
 * private part (see INIT_RDMA_OBJ_SIZE()); the driver's create operation
 * fills in an object the core already holds, and its destroy operation
 * releases what it set up, never the object itself.  MRs are the exception:
 * the driver allocates them.
 */
#ifndef IB_VERBS_H
#define IB_VERBS_H

#include <linux/cgroup_rdma.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/irq_poll.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>	/* RDMA_NODE_*: node types */

#define IB_DEVICE_NODE_DESC_MAX	64
#define IB_FW_VERSION_NAME_MAX	32

enum rdma_link_layer {
	IB_LINK_LAYER_UNSPECIFIED,
	IB_LINK_LAYER_INFINIBAND,
	IB_LINK_LAYER_ETHERNET,
};

/* A GID: 128 bits, subnet prefix and interface id, big endian. */
union ib_gid {
	u8	raw[16];
	struct {
		__be64	subnet_prefix;
		__be64	interface_id;
	} global;
};

extern union ib_gid zgid;

/* ------------------------------------------------------------------ */
/* Device and port attributes                                          */
/* ------------------------------------------------------------------ */

/* What a device can do; reported to userspace by query_device. */
enum ib_device_cap_flags {
	IB_DEVICE_RESIZE_MAX_WR = IB_UVERBS_DEVICE_RESIZE_MAX_WR,
	IB_DEVICE_BAD_PKEY_CNTR = IB_UVERBS_DEVICE_BAD_PKEY_CNTR,
	IB_DEVICE_BAD_QKEY_CNTR = IB_UVERBS_DEVICE_BAD_QKEY_CNTR,
	IB_DEVICE_RAW_MULTI = IB_UVERBS_DEVICE_RAW_MULTI,
	IB_DEVICE_AUTO_PATH_MIG = IB_UVERBS_DEVICE_AUTO_PATH_MIG,
	IB_DEVICE_CHANGE_PHY_PORT = IB_UVERBS_DEVICE_CHANGE_PHY_PORT,
	IB_DEVICE_UD_AV_PORT_ENFORCE = IB_UVERBS_DEVICE_UD_AV_PORT_ENFORCE,
	IB_DEVICE_CURR_QP_STATE_MOD = IB_UVERBS_DEVICE_CURR_QP_STATE_MOD,
	IB_DEVICE_SHUTDOWN_PORT = IB_UVERBS_DEVICE_SHUTDOWN_PORT,
	IB_DEVICE_PORT_ACTIVE_EVENT = IB_UVERBS_DEVICE_PORT_ACTIVE_EVENT,
	IB_DEVICE_SYS_IMAGE_GUID = IB_UVERBS_DEVICE_SYS_IMAGE_GUID,
	IB_DEVICE_RC_RNR_NAK_GEN = IB_UVERBS_DEVICE_RC_RNR_NAK_GEN,
	IB_DEVICE_SRQ_RESIZE = IB_UVERBS_DEVICE_SRQ_RESIZE,
	IB_DEVICE_N_NOTIFY_CQ = IB_UVERBS_DEVICE_N_NOTIFY_CQ,
	IB_DEVICE_MEM_WINDOW = IB_UVERBS_DEVICE_MEM_WINDOW,
	IB_DEVICE_UD_IP_CSUM = IB_UVERBS_DEVICE_UD_IP_CSUM,
	IB_DEVICE_XRC = IB_UVERBS_DEVICE_XRC,
	IB_DEVICE_MEM_MGT_EXTENSIONS = IB_UVERBS_DEVICE_MEM_MGT_EXTENSIONS,
	IB_DEVICE_MEM_WINDOW_TYPE_2A = IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2A,
	IB_DEVICE_MEM_WINDOW_TYPE_2B = IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2B,
	IB_DEVICE_RC_IP_CSUM = IB_UVERBS_DEVICE_RC_IP_CSUM,
	IB_DEVICE_RAW_IP_CSUM = IB_UVERBS_DEVICE_RAW_IP_CSUM,
	IB_DEVICE_MANAGED_FLOW_STEERING =
		IB_UVERBS_DEVICE_MANAGED_FLOW_STEERING,
	IB_DEVICE_RAW_SCATTER_FCS = IB_UVERBS_DEVICE_RAW_SCATTER_FCS,
	IB_DEVICE_PCI_WRITE_END_PADDING =
		IB_UVERBS_DEVICE_PCI_WRITE_END_PADDING,
};

/* Capabilities only kernel users see. */
enum ib_kernel_cap_flags {
	IBK_LOCAL_DMA_LKEY		= 1 << 0,
	IBK_INTEGRITY_HANDOVER		= 1 << 1,
	IBK_ON_DEMAND_PAGING		= 1 << 2,
	IBK_SG_GAPS_REG			= 1 << 3,
	IBK_ALLOW_USER_UNREG		= 1 << 4,
	IBK_BLOCK_MULTICAST_LOOPBACK	= 1 << 5,
	IBK_UD_TSO			= 1 << 6,
	IBK_VIRTUAL_FUNCTION		= 1 << 7,
	IBK_RDMA_NETDEV_OPA		= 1 << 8,
};

enum ib_atomic_cap {
	IB_ATOMIC_NONE,
	IB_ATOMIC_HCA,
	IB_ATOMIC_GLOB,
};

/*
 * struct ib_device_attr - device-wide attributes and limits
 *
 * Filled in by the driver's query_device before registration; the core
 * keeps the result in &ib_device.attrs.  Field meanings are those of the
 * IBA's HCA attributes (and of ibv_query_device()).
 */
struct ib_device_attr {
	u64			fw_ver;
	__be64			sys_image_guid;
	u64			max_mr_size;
	u64			page_size_cap;
	u32			vendor_id;
	u32			vendor_part_id;
	u32			hw_ver;
	int			max_qp;
	int			max_qp_wr;
	u64			device_cap_flags;
	u64			kernel_cap_flags;
	int			max_send_sge;
	int			max_recv_sge;
	int			max_sge_rd;
	int			max_cq;
	int			max_cqe;
	int			max_mr;
	int			max_pd;
	int			max_qp_rd_atom;
	int			max_ee_rd_atom;
	int			max_res_rd_atom;
	int			max_qp_init_rd_atom;
	int			max_ee_init_rd_atom;
	enum ib_atomic_cap	atomic_cap;
	enum ib_atomic_cap	masked_atomic_cap;
	int			max_ee;
	int			max_rdd;
	int			max_mw;
	int			max_raw_ipv6_qp;
	int			max_raw_ethy_qp;
	int			max_mcast_grp;
	int			max_mcast_qp_attach;
	int			max_total_mcast_qp_attach;
	int			max_ah;
	int			max_srq;
	int			max_srq_wr;
	int			max_srq_sge;
	unsigned int		max_fast_reg_page_list_len;
	u16			max_pkeys;
	u8			local_ca_ack_delay;
	u32			max_inline_data;
};

enum ib_mtu {
	IB_MTU_256  = 1,
	IB_MTU_512  = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5,
};

/**
 * ib_mtu_enum_to_int - an MTU in bytes
 * @mtu: the MTU code
 *
 * Return: the size in bytes, or -1 for an invalid code.
 */
static inline int ib_mtu_enum_to_int(enum ib_mtu mtu)
{
	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return -1;
	return 128 << mtu;
}

enum ib_port_state {
	IB_PORT_NOP		= 0,
	IB_PORT_DOWN		= 1,
	IB_PORT_INIT		= 2,
	IB_PORT_ARMED		= 3,
	IB_PORT_ACTIVE		= 4,
	IB_PORT_ACTIVE_DEFER	= 5,
};

enum ib_port_phys_state {
	IB_PORT_PHYS_STATE_SLEEP = 1,
	IB_PORT_PHYS_STATE_POLLING = 2,
	IB_PORT_PHYS_STATE_DISABLED = 3,
	IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING = 4,
	IB_PORT_PHYS_STATE_LINK_UP = 5,
	IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY = 6,
	IB_PORT_PHYS_STATE_PHY_TEST = 7,
};

enum ib_port_width {
	IB_WIDTH_1X	= 1,
	IB_WIDTH_4X	= 2,
	IB_WIDTH_8X	= 4,
	IB_WIDTH_12X	= 8,
	IB_WIDTH_2X	= 16,
};

enum ib_port_speed {
	IB_SPEED_SDR	= 1,
	IB_SPEED_DDR	= 2,
	IB_SPEED_QDR	= 4,
	IB_SPEED_FDR10	= 8,
	IB_SPEED_FDR	= 16,
	IB_SPEED_EDR	= 32,
	IB_SPEED_HDR	= 64,
	IB_SPEED_NDR	= 128,
};

/* PortInfo:CapabilityMask bits (IBA 14.2.5.6). */
enum ib_port_capability_mask_bits {
	IB_PORT_SM				= 1 << 1,
	IB_PORT_NOTICE_SUP			= 1 << 2,
	IB_PORT_TRAP_SUP			= 1 << 3,
	IB_PORT_OPT_IPD_SUP			= 1 << 4,
	IB_PORT_AUTO_MIGR_SUP			= 1 << 5,
	IB_PORT_SL_MAP_SUP			= 1 << 6,
	IB_PORT_MKEY_NVRAM			= 1 << 7,
	IB_PORT_PKEY_NVRAM			= 1 << 8,
	IB_PORT_LED_INFO_SUP			= 1 << 9,
	IB_PORT_SM_DISABLED			= 1 << 10,
	IB_PORT_SYS_IMAGE_GUID_SUP		= 1 << 11,
	IB_PORT_PKEY_SW_EXT_PORT_TRAP_SUP	= 1 << 12,
	IB_PORT_EXTENDED_SPEEDS_SUP		= 1 << 14,
	IB_PORT_CAP_MASK2_SUP			= 1 << 15,
	IB_PORT_CM_SUP				= 1 << 16,
	IB_PORT_SNMP_TUNNEL_SUP			= 1 << 17,
	IB_PORT_REINIT_SUP			= 1 << 18,
	IB_PORT_DEVICE_MGMT_SUP			= 1 << 19,
	IB_PORT_VENDOR_CLASS_SUP		= 1 << 20,
	IB_PORT_DR_NOTICE_SUP			= 1 << 21,
	IB_PORT_CAP_MASK_NOTICE_SUP		= 1 << 22,
	IB_PORT_BOOT_MGMT_SUP			= 1 << 23,
	IB_PORT_LINK_LATENCY_SUP		= 1 << 24,
	IB_PORT_CLIENT_REG_SUP			= 1 << 25,
	IB_PORT_OTHER_LOCAL_CHANGES_SUP		= 1 << 26,
	IB_PORT_LINK_SPEED_WIDTH_TABLE_SUP	= 1 << 27,
	IB_PORT_VENDOR_SPECIFIC_MADS_TABLE_SUP	= 1 << 28,
	IB_PORT_MCAST_PKEY_TRAP_SUPPRESSION_SUP	= 1 << 29,
	IB_PORT_MCAST_FDB_TOP_SUP		= 1 << 30,
	IB_PORT_HIERARCHY_INFO_SUP		= 1ULL << 31,
};

/*
 * struct ib_port_attr - the state and limits of one port
 *
 * Field meanings follow PortInfo (IBA 14.2.5.6) and ibv_query_port().
 */
struct ib_port_attr {
	u64			subnet_prefix;
	enum ib_port_state	state;
	enum ib_mtu		max_mtu;
	enum ib_mtu		active_mtu;
	u32			phys_mtu;
	int			gid_tbl_len;
	unsigned int		ip_gids:1;
	u32			port_cap_flags;
	u32			max_msg_sz;
	u32			bad_pkey_cntr;
	u32			qkey_viol_cntr;
	u16			pkey_tbl_len;
	u32			sm_lid;
	u32			lid;
	u8			lmc;
	u8			max_vl_num;
	u8			sm_sl;
	u8			subnet_timeout;
	u8			init_type_reply;
	u8			active_width;
	u16			active_speed;
	u8			phys_state;
	u16			port_cap_flags2;
};

/* Bits of the @mask argument of ib_modify_device(). */
enum ib_device_modify_flags {
	IB_DEVICE_MODIFY_SYS_IMAGE_GUID	= 1 << 0,
	IB_DEVICE_MODIFY_NODE_DESC	= 1 << 1,
};

/**
 * struct ib_device_modify - new values for ib_modify_device()
 * @sys_image_guid: system image GUID, big endian
 * @node_desc: node description, not necessarily NUL terminated
 */
struct ib_device_modify {
	__be64	sys_image_guid;
	char	node_desc[IB_DEVICE_NODE_DESC_MAX];
};

/* Bits of the @mask argument of ib_modify_port(). */
enum ib_port_modify_flags {
	IB_PORT_SHUTDOWN		= 1,
	IB_PORT_INIT_TYPE		= 1 << 2,
	IB_PORT_RESET_QKEY_CNTR		= 1 << 3,
	IB_PORT_OPA_MASK_CHG		= 1 << 4,
};

/**
 * struct ib_port_modify - changes for ib_modify_port()
 * @set_port_cap_mask: capability bits to set
 * @clr_port_cap_mask: capability bits to clear
 * @init_type: new InitType
 */
struct ib_port_modify {
	u32	set_port_cap_mask;
	u32	clr_port_cap_mask;
	u8	init_type;
};

/* Core capability bits of a port (struct ib_port_immutable). */
enum {
	RDMA_CORE_CAP_IB_MAD		= 1 << 0,
	RDMA_CORE_CAP_IB_SMI		= 1 << 1,
	RDMA_CORE_CAP_IB_CM		= 1 << 2,
	RDMA_CORE_CAP_IW_CM		= 1 << 3,
	RDMA_CORE_CAP_IB_SA		= 1 << 4,
	RDMA_CORE_CAP_OPA_MAD		= 1 << 5,
	RDMA_CORE_CAP_AF_IB		= 1 << 12,
	RDMA_CORE_CAP_ETH_AH		= 1 << 13,
	RDMA_CORE_CAP_OPA_AH		= 1 << 14,
	RDMA_CORE_CAP_IB_GRH_REQUIRED	= 1 << 15,
	RDMA_CORE_CAP_PROT_IB		= 1 << 20,
	RDMA_CORE_CAP_PROT_ROCE		= 1 << 21,
	RDMA_CORE_CAP_PROT_IWARP	= 1 << 22,
	RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP = 1 << 23,
	RDMA_CORE_CAP_PROT_RAW_PACKET	= 1 << 24,
	RDMA_CORE_CAP_PROT_USNIC	= 1 << 25,
};

#define RDMA_CORE_PORT_IBA_IB	(RDMA_CORE_CAP_PROT_IB  \
				 | RDMA_CORE_CAP_IB_MAD \
				 | RDMA_CORE_CAP_IB_SMI \
				 | RDMA_CORE_CAP_IB_CM  \
				 | RDMA_CORE_CAP_IB_SA  \
				 | RDMA_CORE_CAP_AF_IB)

/**
 * struct ib_port_immutable - what never changes about a port
 * @pkey_tbl_len: size of the P_Key table
 * @gid_tbl_len: size of the GID table
 * @core_cap_flags: RDMA_CORE_CAP_* bits
 * @max_mad_size: largest MAD the port handles
 */
struct ib_port_immutable {
	int	pkey_tbl_len;
	int	gid_tbl_len;
	u32	core_cap_flags;
	u32	max_mad_size;
};

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

enum ib_event_type {
	IB_EVENT_CQ_ERR,
	IB_EVENT_QP_FATAL,
	IB_EVENT_QP_REQ_ERR,
	IB_EVENT_QP_ACCESS_ERR,
	IB_EVENT_COMM_EST,
	IB_EVENT_SQ_DRAINED,
	IB_EVENT_PATH_MIG,
	IB_EVENT_PATH_MIG_ERR,
	IB_EVENT_DEVICE_FATAL,
	IB_EVENT_PORT_ACTIVE,
	IB_EVENT_PORT_ERR,
	IB_EVENT_LID_CHANGE,
	IB_EVENT_PKEY_CHANGE,
	IB_EVENT_SM_CHANGE,
	IB_EVENT_SRQ_ERR,
	IB_EVENT_SRQ_LIMIT_REACHED,
	IB_EVENT_QP_LAST_WQE_REACHED,
	IB_EVENT_CLIENT_REREGISTER,
	IB_EVENT_GID_CHANGE,
	IB_EVENT_WQ_FATAL,
};

const char *ib_event_msg(enum ib_event_type event);

struct ib_cq;
struct ib_qp;
struct ib_srq;

/**
 * struct ib_event - an asynchronous event
 * @device: the device it happened on
 * @element: the object concerned, by @event type
 * @event: what happened
 */
struct ib_event {
	struct ib_device	*device;
	union {
		struct ib_cq	*cq;
		struct ib_qp	*qp;
		struct ib_srq	*srq;
		u32		port_num;
	} element;
	enum ib_event_type	event;
};

/**
 * struct ib_event_handler - a receiver of device-wide events
 * @device: the device
 * @handler: called for every port and device event, in process context
 *	and in the order the events happened
 * @list: entry in the device's handler list (core private)
 */
struct ib_event_handler {
	struct ib_device *device;
	void (*handler)(struct ib_event_handler *handler,
			struct ib_event *event);
	struct list_head list;
};

/**
 * ib_init_event_handler - prepare an event handler for registration
 * @handler: the handler
 * @device: the device whose events it wants
 * @fn: the function to call
 */
static inline void
ib_init_event_handler(struct ib_event_handler *handler,
		      struct ib_device *device,
		      void (*fn)(struct ib_event_handler *, struct ib_event *))
{
	handler->device = device;
	handler->handler = fn;
	INIT_LIST_HEAD(&handler->list);
}

#define INIT_IB_EVENT_HANDLER(ptr, device, fn) \
	ib_init_event_handler(ptr, device, fn)

/* ------------------------------------------------------------------ */
/* Address handles                                                     */
/* ------------------------------------------------------------------ */

/**
 * struct ib_global_route - the GRH part of an address
 * @dgid: destination GID
 * @flow_label: flow label
 * @sgid_index: index of the source GID in the port's table
 * @hop_limit: hop limit
 * @traffic_class: traffic class
 */
struct ib_global_route {
	union ib_gid	dgid;
	u32		flow_label;
	u8		sgid_index;
	u8		hop_limit;
	u8		traffic_class;
};

enum ib_ah_flags {
	IB_AH_GRH = 1,
};

enum rdma_ah_attr_type {
	RDMA_AH_ATTR_TYPE_UNDEFINED,
	RDMA_AH_ATTR_TYPE_IB,
	RDMA_AH_ATTR_TYPE_ROCE,
	RDMA_AH_ATTR_TYPE_OPA,
};

/**
 * struct rdma_ah_attr - an address vector
 * @grh: global route, valid if @ah_flags has IB_AH_GRH
 * @sl: service level
 * @static_rate: inter-packet delay code (IBA 9.11.1)
 * @port_num: local port
 * @ah_flags: IB_AH_* bits
 * @type: link-layer flavour of the address
 * @dlid: destination LID
 * @src_path_bits: source path bits (LMC)
 */
struct rdma_ah_attr {
	struct ib_global_route	grh;
	u8			sl;
	u8			static_rate;
	u32			port_num;
	u8			ah_flags;
	enum rdma_ah_attr_type	type;
	u32			dlid;
	u8			src_path_bits;
};

/**
 * struct rdma_ah_init_attr - arguments of the driver's create_ah
 * @ah_attr: the address
 * @flags: RDMA_CREATE_AH_* bits
 */
struct rdma_ah_init_attr {
	struct rdma_ah_attr	*ah_attr;
	u32			flags;
};

enum rdma_create_ah_flags {
	RDMA_CREATE_AH_SLEEPABLE = 1 << 0,
};

enum rdma_destroy_ah_flags {
	RDMA_DESTROY_AH_SLEEPABLE = 1 << 0,
};

/* ------------------------------------------------------------------ */
/* Work requests and completions                                       */
/* ------------------------------------------------------------------ */

enum ib_wc_status {
	IB_WC_SUCCESS,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_EEC_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_LOC_RDD_VIOL_ERR,
	IB_WC_REM_INV_RD_REQ_ERR,
	IB_WC_REM_ABORT_ERR,
	IB_WC_INV_EECN_ERR,
	IB_WC_INV_EEC_STATE_ERR,
	IB_WC_FATAL_ERR,
	IB_WC_RESP_TIMEOUT_ERR,
	IB_WC_GENERAL_ERR,
};

const char *ib_wc_status_msg(enum ib_wc_status status);

enum ib_wc_opcode {
	IB_WC_SEND = IB_UVERBS_WC_SEND,
	IB_WC_RDMA_WRITE = IB_UVERBS_WC_RDMA_WRITE,
	IB_WC_RDMA_READ = IB_UVERBS_WC_RDMA_READ,
	IB_WC_COMP_SWAP = IB_UVERBS_WC_COMP_SWAP,
	IB_WC_FETCH_ADD = IB_UVERBS_WC_FETCH_ADD,
	IB_WC_BIND_MW = IB_UVERBS_WC_BIND_MW,
	IB_WC_LOCAL_INV = IB_UVERBS_WC_LOCAL_INV,
	IB_WC_LSO = IB_UVERBS_WC_TSO,
	IB_WC_REG_MR,
	IB_WC_MASKED_COMP_SWAP,
	IB_WC_MASKED_FETCH_ADD,
	/* receive completions have this bit set */
	IB_WC_RECV = 1 << 7,
	IB_WC_RECV_RDMA_WITH_IMM,
};

enum ib_wc_flags {
	IB_WC_GRH			= 1,
	IB_WC_WITH_IMM			= 1 << 1,
	IB_WC_WITH_INVALIDATE		= 1 << 2,
	IB_WC_IP_CSUM_OK		= 1 << 3,
	IB_WC_WITH_SMAC			= 1 << 4,
	IB_WC_WITH_VLAN			= 1 << 5,
	IB_WC_WITH_NETWORK_HDR_TYPE	= 1 << 6,
};

struct ib_wc;

/**
 * struct ib_cqe - a completion entry's callback, for ib_alloc_cq() users
 * @done: called for the completion of the work request that carries this
 *	entry in its wr_cqe
 */
struct ib_cqe {
	void (*done)(struct ib_cq *cq, struct ib_wc *wc);
};

/**
 * struct ib_wc - a work completion
 * @wr_id: the work request's wr_id
 * @wr_cqe: or its completion entry
 * @status: how it ended
 * @opcode: what it was
 * @vendor_err: driver-specific detail of an error
 * @byte_len: bytes received (receive completions)
 * @qp: the QP of the work request
 * @ex: immediate data (network order) or invalidated rkey, per @wc_flags
 * @src_qp: sender's QP number (UD receives)
 * @slid: sender's LID (UD receives)
 * @wc_flags: IB_WC_* flags
 * @pkey_index: P_Key index of the packet (UD, GSI receives)
 * @sl: service level of the packet
 * @dlid_path_bits: low bits of the destination LID
 * @port_num: port the packet came in on (for switches and GSI)
 */
struct ib_wc {
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	enum ib_wc_status	status;
	enum ib_wc_opcode	opcode;
	u32			vendor_err;
	u32			byte_len;
	struct ib_qp		*qp;
	union {
		__be32		imm_data;
		u32		invalidate_rkey;
	} ex;
	u32			src_qp;
	u32			slid;
	int			wc_flags;
	u16			pkey_index;
	u8			sl;
	u8			dlid_path_bits;
	u32			port_num;
};

enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = IB_UVERBS_WR_RDMA_WRITE,
	IB_WR_RDMA_WRITE_WITH_IMM = IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
	IB_WR_SEND = IB_UVERBS_WR_SEND,
	IB_WR_SEND_WITH_IMM = IB_UVERBS_WR_SEND_WITH_IMM,
	IB_WR_RDMA_READ = IB_UVERBS_WR_RDMA_READ,
	IB_WR_ATOMIC_CMP_AND_SWP = IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
	IB_WR_ATOMIC_FETCH_AND_ADD = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
	IB_WR_BIND_MW = IB_UVERBS_WR_BIND_MW,
	IB_WR_LSO = IB_UVERBS_WR_TSO,
	IB_WR_SEND_WITH_INV = IB_UVERBS_WR_SEND_WITH_INV,
	IB_WR_RDMA_READ_WITH_INV = IB_UVERBS_WR_RDMA_READ_WITH_INV,
	IB_WR_LOCAL_INV = IB_UVERBS_WR_LOCAL_INV,
	IB_WR_MASKED_ATOMIC_CMP_AND_SWP =
		IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP,
	IB_WR_MASKED_ATOMIC_FETCH_AND_ADD =
		IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD,
	/* kernel only */
	IB_WR_REG_MR = 0x20,
	IB_WR_REG_MR_INTEGRITY,
};

enum ib_send_flags {
	IB_SEND_FENCE		= 1,
	IB_SEND_SIGNALED	= 1 << 1,
	IB_SEND_SOLICITED	= 1 << 2,
	IB_SEND_INLINE		= 1 << 3,
	IB_SEND_IP_CSUM		= 1 << 4,
};

/**
 * struct ib_sge - a scatter/gather element
 * @addr: address, in the MR's address space
 * @length: bytes
 * @lkey: the MR's local key
 */
struct ib_sge {
	u64	addr;
	u32	length;
	u32	lkey;
};

/**
 * struct ib_send_wr - a work request for the send queue
 * @next: the next request of a chain
 * @wr_id: returned in the completion
 * @wr_cqe: or a completion entry, for ib_alloc_cq() users
 * @sg_list: the data
 * @num_sge: entries in @sg_list
 * @opcode: the operation
 * @send_flags: IB_SEND_* flags
 * @ex: immediate data (network order) or rkey to invalidate
 *
 * RDMA, atomic, UD and REG_MR requests embed this in the structures below.
 */
struct ib_send_wr {
	struct ib_send_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
	enum ib_wr_opcode	opcode;
	int			send_flags;
	union {
		__be32		imm_data;
		u32		invalidate_rkey;
	} ex;
};

/**
 * struct ib_rdma_wr - RDMA WRITE and READ work requests
 * @wr: the generic part
 * @remote_addr: remote address
 * @rkey: remote key
 */
struct ib_rdma_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u32			rkey;
};

static inline const struct ib_rdma_wr *rdma_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_rdma_wr, wr);
}

/**
 * struct ib_atomic_wr - atomic work requests
 * @wr: the generic part
 * @remote_addr: remote address, 8-byte aligned
 * @compare_add: compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD)
 * @swap: swap value
 * @compare_add_mask: masks of the masked atomics
 * @swap_mask: masks of the masked atomics
 * @rkey: remote key
 */
struct ib_atomic_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u64			compare_add;
	u64			swap;
	u64			compare_add_mask;
	u64			swap_mask;
	u32			rkey;
};

static inline const struct ib_atomic_wr *
atomic_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_atomic_wr, wr);
}

struct ib_ah;

/**
 * struct ib_ud_wr - UD send work requests
 * @wr: the generic part
 * @ah: destination address
 * @header: LSO header (unused without LSO)
 * @hlen: LSO header length
 * @mss: LSO segment size
 * @remote_qpn: destination QP number
 * @remote_qkey: Q_Key
 * @pkey_index: P_Key index (GSI only)
 * @port_num: port (switches only)
 */
struct ib_ud_wr {
	struct ib_send_wr	wr;
	struct ib_ah		*ah;
	void			*header;
	int			hlen;
	int			mss;
	u32			remote_qpn;
	u32			remote_qkey;
	u16			pkey_index;
	u32			port_num;
};

static inline const struct ib_ud_wr *ud_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_ud_wr, wr);
}

struct ib_mr;

/**
 * struct ib_reg_wr - fast registration of an MR
 * @wr: the generic part
 * @mr: the MR, mapped with ib_map_mr_sg()
 * @key: the new key (its low 8 bits may have changed)
 * @access: IB_ACCESS_* rights
 */
struct ib_reg_wr {
	struct ib_send_wr	wr;
	struct ib_mr		*mr;
	u32			key;
	int			access;
};

static inline const struct ib_reg_wr *reg_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_reg_wr, wr);
}

/**
 * struct ib_recv_wr - a work request for a receive queue
 * @next: the next request of a chain
 * @wr_id: returned in the completion
 * @wr_cqe: or a completion entry
 * @sg_list: where to put the data
 * @num_sge: entries in @sg_list
 */
struct ib_recv_wr {
	struct ib_recv_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
};

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = IB_UVERBS_ACCESS_LOCAL_WRITE,
	IB_ACCESS_REMOTE_WRITE = IB_UVERBS_ACCESS_REMOTE_WRITE,
	IB_ACCESS_REMOTE_READ = IB_UVERBS_ACCESS_REMOTE_READ,
	IB_ACCESS_REMOTE_ATOMIC = IB_UVERBS_ACCESS_REMOTE_ATOMIC,
	IB_ACCESS_MW_BIND = IB_UVERBS_ACCESS_MW_BIND,
	IB_ZERO_BASED = IB_UVERBS_ACCESS_ZERO_BASED,
	IB_ACCESS_ON_DEMAND = IB_UVERBS_ACCESS_ON_DEMAND,
	IB_ACCESS_HUGETLB = IB_UVERBS_ACCESS_HUGETLB,
	IB_ACCESS_RELAXED_ORDERING = IB_UVERBS_ACCESS_RELAXED_ORDERING,
	IB_ACCESS_OPTIONAL = IB_UVERBS_ACCESS_OPTIONAL_RANGE,
	IB_ACCESS_SUPPORTED =
		((IB_ACCESS_HUGETLB << 1) - 1) | IB_ACCESS_OPTIONAL,
};

enum ib_mr_type {
	IB_MR_TYPE_MEM_REG,
	IB_MR_TYPE_SG_GAPS,
	IB_MR_TYPE_DM,
	IB_MR_TYPE_USER,
	IB_MR_TYPE_DMA,
	IB_MR_TYPE_INTEGRITY,
};

struct ib_pd;
struct ib_uobject;

/**
 * struct ib_mr - a memory region
 * @device: its device
 * @pd: its protection domain
 * @lkey: local key
 * @rkey: remote key
 * @iova: first address of the region, in its own address space
 * @length: size in bytes
 * @page_size: page size of a fast-registration mapping
 * @type: what kind of MR
 * @need_inval: a fast-registered MR that must be invalidated before reuse
 * @uobject: the user object, or NULL for a kernel MR
 * @res: resource tracking
 * @qp_entry: in a QP's MR pool (include/rdma/mr_pool.h) while the pool
 *	holds the MR, under the QP's mr_lock
 */
struct ib_mr {
	struct ib_device	*device;
	struct ib_pd		*pd;
	u32			lkey;
	u32			rkey;
	u64			iova;
	u64			length;
	unsigned int		page_size;
	enum ib_mr_type		type;
	bool			need_inval;
	struct ib_uobject	*uobject;
	struct rdma_restrack_entry res;
	struct list_head	qp_entry;
};

/**
 * struct ib_pd - a protection domain
 * @device: its device
 * @uobject: the user object, or NULL for a kernel PD
 * @usecnt: objects using the PD; it cannot be freed while non-zero
 * @local_dma_lkey: lkey covering all of kernel memory for local access
 * @flags: IB_PD_* flags it was allocated with
 * @unsafe_global_rkey: rkey covering all memory, with IB_PD_UNSAFE_GLOBAL_RKEY
 * @internal_mr: MR the core made for @local_dma_lkey and
 *	@unsafe_global_rkey, if the device has no local DMA lkey
 * @res: resource tracking
 */
struct ib_pd {
	struct ib_device	*device;
	struct ib_uobject	*uobject;
	atomic_t		usecnt;
	u32			local_dma_lkey;
	u32			flags;
	u32			unsafe_global_rkey;
	struct ib_mr		*internal_mr;
	struct rdma_restrack_entry res;
};

enum ib_pd_flags {
	/* the PD gets an rkey with remote access to all memory: unsafe */
	IB_PD_UNSAFE_GLOBAL_RKEY = 1 << 0,
};

struct ib_uverbs_file;

/**
 * struct ib_rdmacg_object - what a resource charged to the rdma cgroup
 *	controller remembers for its uncharge (core/cgroup.c)
 * @cg: the cgroup charged
 */
struct ib_rdmacg_object {
#ifdef CONFIG_CGROUP_RDMA
	struct rdma_cgroup	*cg;
#endif
};

#ifdef CONFIG_CGROUP_RDMA
int ib_rdmacg_try_charge(struct ib_rdmacg_object *cg_obj,
			 struct ib_device *device,
			 enum rdmacg_resource_type type);
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type type);
#else
static inline int ib_rdmacg_try_charge(struct ib_rdmacg_object *cg_obj,
				       struct ib_device *device,
				       enum rdmacg_resource_type type)
{
	return 0;
}

static inline void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
				      struct ib_device *device,
				      enum rdmacg_resource_type type)
{
}
#endif

/**
 * struct ib_ucontext - a user process's context on a device
 * @device: the device
 * @ufile: the uverbs file the context belongs to; opaque outside uverbs
 * @res: resource tracking
 * @cg_obj: its charge (one hca_handle) to the rdma cgroup of its creator
 *
 * Created by the uverbs GET_CONTEXT command through ib_alloc_ucontext(),
 * with room for the driver's private part (INIT_RDMA_OBJ_SIZE()).  Every
 * user object of the process on the device belongs to it, and it is
 * destroyed after all of them.
 */
struct ib_ucontext {
	struct ib_device	*device;
	struct ib_uverbs_file	*ufile;
	struct rdma_restrack_entry res;
	struct ib_rdmacg_object	cg_obj;
};

/**
 * struct ib_ah - an address handle
 * @device: its device
 * @pd: its protection domain
 * @uobject: the user object, or NULL
 * @type: the address type
 */
struct ib_ah {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	enum rdma_ah_attr_type	type;
};

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

enum ib_cq_notify_flags {
	IB_CQ_SOLICITED			= 1 << 0,
	IB_CQ_NEXT_COMP			= 1 << 1,
	IB_CQ_SOLICITED_MASK		= IB_CQ_SOLICITED | IB_CQ_NEXT_COMP,
	IB_CQ_REPORT_MISSED_EVENTS	= 1 << 2,
};

/* Where ib_alloc_cq() polls completions. */
enum ib_poll_context {
	IB_POLL_SOFTIRQ,		/* in softirq context (irq_poll) */
	IB_POLL_WORKQUEUE,		/* in the ib_comp_wq work queue */
	IB_POLL_UNBOUND_WORKQUEUE,	/* in the unbound ib_comp_unbound_wq */
	IB_POLL_LAST_POOL_TYPE = IB_POLL_UNBOUND_WORKQUEUE,
	IB_POLL_DIRECT,			/* by the caller, ib_process_cq_direct() */
};

typedef void (*ib_comp_handler)(struct ib_cq *cq, void *cq_context);

/**
 * struct ib_cq_init_attr - arguments of the driver's create_cq
 * @cqe: minimum number of entries
 * @comp_vector: completion vector, below num_comp_vectors (the core
 *	checks a user's, the driver a kernel caller's)
 * @flags: IB_CQ_FLAGS_* (none defined for kernel CQs here)
 */
struct ib_cq_init_attr {
	unsigned int	cqe;
	u32		comp_vector;
	u32		flags;
};

/**
 * struct ib_cq - a completion queue
 * @device: its device
 * @uobject: the user object, or NULL
 * @comp_handler: called when a completion arrives after a notify request
 * @event_handler: called for CQ errors
 * @cq_context: argument of both handlers
 * @cqe: number of entries
 * @usecnt: QPs and SRQs using the CQ; it cannot be freed while non-zero
 * @poll_ctx: how ib_alloc_cq() users are polled
 * @wc: completion array for the core's polling
 * @iop: softirq poller (IB_POLL_SOFTIRQ)
 * @work: work item (IB_POLL_WORKQUEUE and IB_POLL_UNBOUND_WORKQUEUE)
 * @comp_wq: the work queue of @work
 * @comp_vector: completion vector
 * @res: resource tracking
 */
struct ib_cq {
	struct ib_device	*device;
	struct ib_uobject	*uobject;
	ib_comp_handler		comp_handler;
	void			(*event_handler)(struct ib_event *event,
						 void *context);
	void			*cq_context;
	int			cqe;
	atomic_t		usecnt;
	enum ib_poll_context	poll_ctx;
	struct ib_wc		*wc;
	union {
		struct irq_poll		iop;
		struct work_struct	work;
	};
	struct workqueue_struct	*comp_wq;
	u32			comp_vector;
	struct rdma_restrack_entry res;
};

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

enum ib_srq_type {
	IB_SRQT_BASIC,
	IB_SRQT_XRC,
	IB_SRQT_TM,
};

enum ib_srq_attr_mask {
	IB_SRQ_MAX_WR	= 1 << 0,
	IB_SRQ_LIMIT	= 1 << 1,
};

/**
 * struct ib_srq_attr - sizes and limit of an SRQ
 * @max_wr: receive requests it holds
 * @max_sge: scatter entries per request
 * @srq_limit: IB_EVENT_SRQ_LIMIT_REACHED fires when fewer are left (0: off)
 */
struct ib_srq_attr {
	u32	max_wr;
	u32	max_sge;
	u32	srq_limit;
};

/**
 * struct ib_srq_init_attr - arguments of ib_create_srq()
 * @event_handler: called for SRQ events
 * @srq_context: its argument
 * @attr: sizes; the driver writes back what it allocated
 * @srq_type: only IB_SRQT_BASIC here
 */
struct ib_srq_init_attr {
	void			(*event_handler)(struct ib_event *event,
						 void *context);
	void			*srq_context;
	struct ib_srq_attr	attr;
	enum ib_srq_type	srq_type;
};

/**
 * struct ib_srq - a shared receive queue
 * @device: its device
 * @pd: its protection domain
 * @uobject: the user object, or NULL
 * @event_handler: called for SRQ events
 * @srq_context: its argument
 * @srq_type: what kind of SRQ
 * @usecnt: QPs using it; it cannot be freed while non-zero
 * @res: resource tracking
 */
struct ib_srq {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	void			(*event_handler)(struct ib_event *event,
						 void *context);
	void			*srq_context;
	enum ib_srq_type	srq_type;
	atomic_t		usecnt;
	struct rdma_restrack_entry res;
};

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

enum ib_qp_type {
	IB_QPT_SMI,
	IB_QPT_GSI,
	IB_QPT_RC = IB_UVERBS_QPT_RC,
	IB_QPT_UC = IB_UVERBS_QPT_UC,
	IB_QPT_UD = IB_UVERBS_QPT_UD,
	IB_QPT_RAW_IPV6,
	IB_QPT_RAW_ETHERTYPE,
	IB_QPT_RAW_PACKET = IB_UVERBS_QPT_RAW_PACKET,
	IB_QPT_XRC_INI = IB_UVERBS_QPT_XRC_INI,
	IB_QPT_XRC_TGT = IB_UVERBS_QPT_XRC_TGT,
	IB_QPT_MAX,
	IB_QPT_DRIVER = IB_UVERBS_QPT_DRIVER,
};

enum ib_qp_state {
	IB_QPS_RESET,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR,
};

enum ib_mig_state {
	IB_MIG_MIGRATED,
	IB_MIG_REARM,
	IB_MIG_ARMED,
};

enum ib_sig_type {
	IB_SIGNAL_ALL_WR,
	IB_SIGNAL_REQ_WR,
};

/* Which ib_qp_attr fields a modify or query concerns.  User ABI. */
enum ib_qp_attr_mask {
	IB_QP_STATE			= 1,
	IB_QP_CUR_STATE			= 1 << 1,
	IB_QP_EN_SQD_ASYNC_NOTIFY	= 1 << 2,
	IB_QP_ACCESS_FLAGS		= 1 << 3,
	IB_QP_PKEY_INDEX		= 1 << 4,
	IB_QP_PORT			= 1 << 5,
	IB_QP_QKEY			= 1 << 6,
	IB_QP_AV			= 1 << 7,
	IB_QP_PATH_MTU			= 1 << 8,
	IB_QP_TIMEOUT			= 1 << 9,
	IB_QP_RETRY_CNT			= 1 << 10,
	IB_QP_RNR_RETRY			= 1 << 11,
	IB_QP_RQ_PSN			= 1 << 12,
	IB_QP_MAX_QP_RD_ATOMIC		= 1 << 13,
	IB_QP_ALT_PATH			= 1 << 14,
	IB_QP_MIN_RNR_TIMER		= 1 << 15,
	IB_QP_SQ_PSN			= 1 << 16,
	IB_QP_MAX_DEST_RD_ATOMIC	= 1 << 17,
	IB_QP_PATH_MIG_STATE		= 1 << 18,
	IB_QP_CAP			= 1 << 19,
	IB_QP_DEST_QPN			= 1 << 20,
	IB_QP_RESERVED1			= 1 << 21,
	IB_QP_RESERVED2			= 1 << 22,
	IB_QP_RESERVED3			= 1 << 23,
	IB_QP_RESERVED4			= 1 << 24,
	IB_QP_RATE_LIMIT		= 1 << 25,

	IB_QP_ATTR_STANDARD_BITS	= GENMASK(20, 0),
};

/**
 * struct ib_qp_cap - queue sizes of a QP
 * @max_send_wr: send queue entries
 * @max_recv_wr: receive queue entries (ignored with an SRQ)
 * @max_send_sge: gather entries per send request
 * @max_recv_sge: scatter entries per receive request
 * @max_inline_data: bytes a send may carry inline
 * @max_rdma_ctxs: kernel QPs only: how many RDMA READ/WRITE contexts
 *	(struct rdma_rw_ctx, include/rdma/rw.h) the user keeps in flight at
 *	once.  When it is not 0, ib_create_qp() adds to @max_send_wr the
 *	work requests those contexts post (one RDMA request each, two more
 *	for memory registration where it is used; see rdma_rw_init_qp(),
 *	at most the device's max_qp_wr in all) and fills the QP's MR pool
 *	with one MR per context where registration is used.  The port must
 *	be given in &ib_qp_init_attr.port_num then.
 */
struct ib_qp_cap {
	u32	max_send_wr;
	u32	max_recv_wr;
	u32	max_send_sge;
	u32	max_recv_sge;
	u32	max_inline_data;
	u32	max_rdma_ctxs;
};

/**
 * struct ib_qp_init_attr - arguments of ib_create_qp()
 * @event_handler: called for QP events
 * @qp_context: its argument
 * @send_cq: CQ of send completions
 * @recv_cq: CQ of receive completions
 * @srq: shared receive queue, or NULL
 * @cap: queue sizes; the driver writes back what it allocated
 * @sq_sig_type: whether every send completes, or only signalled ones
 * @qp_type: transport
 * @create_flags: IB_QP_CREATE_* (none supported here)
 * @port_num: the port, for IB_QPT_SMI and IB_QPT_GSI, and for QPs with
 *	@cap.max_rdma_ctxs set
 */
struct ib_qp_init_attr {
	void			(*event_handler)(struct ib_event *event,
						 void *context);
	void			*qp_context;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_srq		*srq;
	struct ib_qp_cap	cap;
	enum ib_sig_type	sq_sig_type;
	enum ib_qp_type		qp_type;
	u32			create_flags;
	u32			port_num;
};

/*
 * struct ib_qp_attr - QP attributes, for modify and query
 *
 * Which fields count is said by an enum ib_qp_attr_mask; meanings are the
 * IBA's (11.2.5).
 */
struct ib_qp_attr {
	enum ib_qp_state	qp_state;
	enum ib_qp_state	cur_qp_state;
	enum ib_mtu		path_mtu;
	enum ib_mig_state	path_mig_state;
	u32			qkey;
	u32			rq_psn;
	u32			sq_psn;
	u32			dest_qp_num;
	int			qp_access_flags;
	struct ib_qp_cap	cap;
	struct rdma_ah_attr	ah_attr;
	struct rdma_ah_attr	alt_ah_attr;
	u16			pkey_index;
	u16			alt_pkey_index;
	u8			en_sqd_async_notify;
	u8			sq_draining;
	u8			max_rd_atomic;
	u8			max_dest_rd_atomic;
	u8			min_rnr_timer;
	u32			port_num;
	u8			timeout;
	u8			retry_cnt;
	u8			rnr_retry;
	u32			alt_port_num;
	u8			alt_timeout;
	u32			rate_limit;
};

struct ib_qp_security;

/**
 * struct ib_qp - a queue pair
 * @device: its device
 * @pd: its protection domain
 * @send_cq: CQ of send completions
 * @recv_cq: CQ of receive completions
 * @srq: shared receive queue, or NULL
 * @uobject: the user object, or NULL
 * @event_handler: called for QP events
 * @qp_context: its argument
 * @qp_num: the QP number (0 and 1 for the special QPs of each port)
 * @max_send_wr: send queue size, as allocated
 * @max_recv_wr: receive queue size, as allocated
 * @qp_type: transport
 * @port: the port given at creation (that of a special QP), then the
 *	one the last modify with IB_QP_PORT set
 * @state: current state, as last set through ib_modify_qp()
 * @mutex: see below
 * @res: resource tracking
 * @qp_sec: the LSM's view of the QP (core/security.c), or NULL
 * @mr_lock: see below
 * @mrs_used: MRs taken from the pools below and not put back yet
 * @rdma_mrs: the QP's pool of fast-registration MRs for RDMA READ/WRITE
 *	contexts (include/rdma/mr_pool.h, include/rdma/rw.h), linked by
 *	&ib_mr.qp_entry
 * @sig_mrs: the pool of signature MRs; always empty here (no PI support)
 * @max_write_sge: SGEs an RDMA WRITE of a kernel QP may carry: its
 *	max_send_sge as created
 * @max_read_sge: SGEs an RDMA READ of a kernel QP may carry: the same,
 *	at most the device's max_sge_rd
 */
struct ib_qp {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_srq		*srq;
	struct ib_uobject	*uobject;
	void			(*event_handler)(struct ib_event *event,
						 void *context);
	void			*qp_context;
	u32			qp_num;
	u32			max_send_wr;
	u32			max_recv_wr;
	enum ib_qp_type		qp_type;
	u32			port;
	enum ib_qp_state	state;
	/* serialises ib_modify_qp() on this QP; protects state and port */
	struct mutex		mutex;
	struct rdma_restrack_entry res;
	struct ib_qp_security	*qp_sec;
	/* protects rdma_mrs, sig_mrs and mrs_used */
	spinlock_t		mr_lock;
	int			mrs_used;
	struct list_head	rdma_mrs;
	struct list_head	sig_mrs;
	u32			max_write_sge;
	u32			max_read_sge;
};

bool ib_modify_qp_is_ok(enum ib_qp_state cur_state, enum ib_qp_state next_state,
			enum ib_qp_type type, enum ib_qp_attr_mask mask);

/* ------------------------------------------------------------------ */
/* The device and its operations                                       */
/* ------------------------------------------------------------------ */

/**
 * struct ib_udata - a user command's driver-specific data
 * @inbuf: input from userspace
 * @outbuf: output to userspace
 * @inlen: bytes at @inbuf
 * @outlen: room at @outbuf
 *
 * Kernel callers pass NULL for the udata arguments of the operations.
 */
struct ib_udata {
	const void __user	*inbuf;
	void __user		*outbuf;
	size_t			inlen;
	size_t			outlen;
};

struct ib_device;

/*
 * Object sizes the core allocates for a driver: the core structure first,
 * the driver's private part after it.  Use INIT_RDMA_OBJ_SIZE() in the ops
 * table, with the driver's full type, e.g.
 * INIT_RDMA_OBJ_SIZE(ib_pd, struct vmlx_pd, ibpd).
 */
#define INIT_RDMA_OBJ_SIZE(ib_struct, type, member)			\
	.size_##ib_struct = sizeof(type) +				\
		BUILD_BUG_ON_ZERO(offsetof(type, member))

struct ib_grh;
struct ib_mad;

/**
 * struct ib_device_ops - operations a driver provides to the core
 * @owner: module implementing the operations
 * @driver_id: enum rdma_driver_id, for userspace provider matching
 * @uverbs_abi_ver: ABI version of the driver's user data
 *
 * @query_device: fill in the device attributes; @udata is NULL for kernel
 *	callers
 * @query_port: fill in a port's attributes
 * @get_port_immutable: fill in what never changes about a port
 * @get_link_layer: link layer of a port (IB if not provided)
 * @query_gid: a GID table entry
 * @query_pkey: a P_Key table entry
 * @modify_device: change the attributes selected by @mask
 *	(enum ib_device_modify_flags); only called with a mask of bits the
 *	core knows
 * @modify_port: change port capability bits
 * @get_dev_fw_str: write the firmware version, at most
 *	IB_FW_VERSION_NAME_MAX bytes including the NUL, into @str
 * @process_mad: optional; the device's SMA and PMA.  Called by the MAD
 *	layer for MADs received on QP0/QP1 and for locally processed
 *	directed-route SMPs; @in_wc and @in_grh may be NULL.  Returns
 *	IB_MAD_RESULT_* bits (rdma/ib_mad.h)
 * @get_vector_affinity: the CPUs that completion vector @comp_vector
 *	(0 <= @comp_vector < num_comp_vectors) interrupts, or NULL
 *
 * @alloc_ucontext: set up the driver part of a user context; @udata holds
 *	the driver data of the GET_CONTEXT command
 * @dealloc_ucontext: release it; every object of the context is gone
 * @mmap: map into a process what the driver offered it in an earlier
 *	response (queue rings); @vma->vm_pgoff names it, as the driver chose
 * @reg_user_mr: register the user memory [@start, @start + @length),
 *	addressed as @virt_addr by work requests (see ib_umem_get())
 * @alloc_pd: set up the driver part of a PD
 * @dealloc_pd: release it
 * @create_ah: set up an address handle; may not sleep unless
 *	RDMA_CREATE_AH_SLEEPABLE is set
 * @query_ah: read back an AH's address
 * @destroy_ah: release an address handle
 * @create_srq: set up an SRQ, writing the allocated sizes back
 * @modify_srq: resize an SRQ or arm its limit
 * @query_srq: read an SRQ's attributes
 * @destroy_srq: release an SRQ
 * @post_srq_recv: post receive requests to an SRQ
 * @create_qp: set up a QP, writing the allocated sizes back
 * @modify_qp: change QP attributes; the core has checked the transition
 *	with ib_modify_qp_is_ok()
 * @query_qp: read QP attributes
 * @destroy_qp: release a QP; outstanding requests are discarded
 * @post_send: post send requests
 * @post_recv: post receive requests
 * @drain_sq: complete every outstanding send request (optional; the core
 *	has a generic drain)
 * @drain_rq: the same for receive requests
 * @create_cq: set up a CQ
 * @destroy_cq: release a CQ
 * @resize_cq: change the number of entries
 * @poll_cq: take up to @num_entries completions
 * @req_notify_cq: arm the completion handler (enum ib_cq_notify_flags);
 *	with IB_CQ_REPORT_MISSED_EVENTS, return 1 if completions may have
 *	arrived unreported
 * @get_dma_mr: an MR covering all of kernel memory
 * @alloc_mr: a fast-registration MR of up to @max_num_sg pages
 * @map_mr_sg: map a scatterlist into a fast-registration MR (drivers
 *	normally call ib_sg_to_pages())
 * @dereg_mr: release an MR, including its memory
 * @attach_mcast: add a UD QP to a multicast group
 * @detach_mcast: remove it
 * @dealloc_driver: release driver resources when the core frees the device
 * @device_group: optional driver-specific sysfs attributes, shown in the
 *	device's directory next to the core's
 * @size_ib_ah: allocation size of an AH, see INIT_RDMA_OBJ_SIZE()
 * @size_ib_cq: the same for CQs
 * @size_ib_pd: the same for PDs
 * @size_ib_qp: the same for QPs
 * @size_ib_srq: the same for SRQs
 * @size_ib_ucontext: the same for user contexts
 *
 * Operations not listed as optional are required for the objects a driver
 * supports; the core answers -EOPNOTSUPP for those it leaves out.
 */
struct ib_device_ops {
	struct module *owner;
	enum rdma_driver_id driver_id;
	u32 uverbs_abi_ver;

	int (*query_device)(struct ib_device *device,
			    struct ib_device_attr *attr, struct ib_udata *udata);
	int (*query_port)(struct ib_device *device, u32 port_num,
			  struct ib_port_attr *attr);
	int (*get_port_immutable)(struct ib_device *device, u32 port_num,
				  struct ib_port_immutable *immutable);
	enum rdma_link_layer (*get_link_layer)(struct ib_device *device,
					       u32 port_num);
	int (*query_gid)(struct ib_device *device, u32 port_num, int index,
			 union ib_gid *gid);
	int (*query_pkey)(struct ib_device *device, u32 port_num, u16 index,
			  u16 *pkey);
	int (*modify_device)(struct ib_device *device, int mask,
			     struct ib_device_modify *modify);
	int (*modify_port)(struct ib_device *device, u32 port_num, int mask,
			   struct ib_port_modify *modify);
	void (*get_dev_fw_str)(struct ib_device *device, char *str);
	int (*process_mad)(struct ib_device *device, int process_mad_flags,
			   u32 port_num, const struct ib_wc *in_wc,
			   const struct ib_grh *in_grh,
			   const struct ib_mad *in_mad, struct ib_mad *out_mad,
			   size_t *out_mad_size, u16 *out_mad_pkey_index);
	const struct cpumask *(*get_vector_affinity)(struct ib_device *device,
						     int comp_vector);

	int (*alloc_ucontext)(struct ib_ucontext *uctx, struct ib_udata *udata);
	void (*dealloc_ucontext)(struct ib_ucontext *uctx);
	int (*mmap)(struct ib_ucontext *uctx, struct vm_area_struct *vma);
	struct ib_mr *(*reg_user_mr)(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt_addr, int access,
				     struct ib_udata *udata);
	int (*alloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	int (*dealloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	int (*create_ah)(struct ib_ah *ah, struct rdma_ah_init_attr *init_attr,
			 struct ib_udata *udata);
	int (*query_ah)(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
	int (*destroy_ah)(struct ib_ah *ah, u32 flags);
	int (*create_srq)(struct ib_srq *srq, struct ib_srq_init_attr *init_attr,
			  struct ib_udata *udata);
	int (*modify_srq)(struct ib_srq *srq, struct ib_srq_attr *attr,
			  enum ib_srq_attr_mask mask, struct ib_udata *udata);
	int (*query_srq)(struct ib_srq *srq, struct ib_srq_attr *attr);
	int (*destroy_srq)(struct ib_srq *srq, struct ib_udata *udata);
	int (*post_srq_recv)(struct ib_srq *srq, const struct ib_recv_wr *wr,
			     const struct ib_recv_wr **bad_wr);
	int (*create_qp)(struct ib_qp *qp, struct ib_qp_init_attr *init_attr,
			 struct ib_udata *udata);
	int (*modify_qp)(struct ib_qp *qp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata);
	int (*query_qp)(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init_attr);
	int (*destroy_qp)(struct ib_qp *qp, struct ib_udata *udata);
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr);
	int (*post_recv)(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);
	void (*drain_sq)(struct ib_qp *qp);
	void (*drain_rq)(struct ib_qp *qp);
	int (*create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata);
	int (*destroy_cq)(struct ib_cq *cq, struct ib_udata *udata);
	int (*resize_cq)(struct ib_cq *cq, int cqe, struct ib_udata *udata);
	int (*poll_cq)(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
	int (*req_notify_cq)(struct ib_cq *cq, enum ib_cq_notify_flags flags);
	struct ib_mr *(*get_dma_mr)(struct ib_pd *pd, int access);
	struct ib_mr *(*alloc_mr)(struct ib_pd *pd, enum ib_mr_type mr_type,
				  u32 max_num_sg);
	int (*map_mr_sg)(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
			 unsigned int *sg_offset);
	int (*dereg_mr)(struct ib_mr *mr, struct ib_udata *udata);
	int (*attach_mcast)(struct ib_qp *qp, union ib_gid *gid, u16 lid);
	int (*detach_mcast)(struct ib_qp *qp, union ib_gid *gid, u16 lid);
	void (*dealloc_driver)(struct ib_device *device);

	const struct attribute_group *device_group;

	size_t size_ib_ah;
	size_t size_ib_cq;
	size_t size_ib_pd;
	size_t size_ib_qp;
	size_t size_ib_srq;
	size_t size_ib_ucontext;
};

/* Registration state of an ib_device; see ib_register_device(). */
enum ib_device_reg_state {
	IB_DEV_NEW,		/* allocated, never registered */
	IB_DEV_LIVE,		/* registered, visible to clients */
	IB_DEV_GONE,		/* unregistered; can only be freed now */
};

struct ib_port_data;
struct rdma_restrack_root;

/**
 * struct ib_device - an RDMA device
 * @dev: the device model object; its reference count controls the lifetime
 *	of the memory (see ib_dealloc_device())
 * @dma_device: the device to map DMA for, or NULL for software devices,
 *	whose "DMA addresses" are kernel virtual addresses
 * @ops: the driver's operations, never NULL
 * @attrs: device attributes, from the driver's query_device at registration
 * @node_guid: node GUID, big endian, set by the driver
 * @node_desc: node description (not NUL terminated when 64 bytes long)
 * @node_type: RDMA_NODE_*, set by the driver
 * @phys_port_cnt: number of physical ports, set by the driver
 * @num_comp_vectors: number of completion vectors (event sources for CQs),
 *	set by the driver
 * @port_data: per-port data of the core, indexed by port number (1-based)
 * @ports_kobj: the directory /sys/class/infiniband/<dev>/ports while the
 *	device is registered (core private)
 * @local_dma_lkey: lkey for local access to all of kernel memory, valid
 *	with IBK_LOCAL_DMA_LKEY in the kernel capabilities
 * @event_handler_rwsem: see below
 * @event_handler_list: the registered struct ib_event_handler
 * @res: resource tracking tables, one per enum rdma_restrack_type
 * @index: device index, unique while the device is registered; user ABI
 *	through RDMA netlink
 * @reg_state: registration state, changed under the core's registration
 *	lock
 * @refcount: registration references, see ib_device_try_get(); zero while
 *	not registered
 * @unreg_completion: completed when @refcount drops to zero
 * @client_data: client id -> per-client context, for clients whose add
 *	callback accepted this device
 * @groups: sysfs attribute groups of @dev
 * @cg_device: the device as the rdma cgroup controller knows it, while
 *	registered (core/cgroup.c)
 */
struct ib_device {
	struct device			dev;
	struct device			*dma_device;
	const struct ib_device_ops	*ops;
	struct ib_device_attr		attrs;

	__be64				node_guid;
	char				node_desc[IB_DEVICE_NODE_DESC_MAX];
	u8				node_type;
	u32				phys_port_cnt;
	int				num_comp_vectors;

	u32				local_dma_lkey;
	struct ib_port_data		*port_data;
	struct kobject			*ports_kobj;
	/* protects event_handler_list */
	struct rw_semaphore		event_handler_rwsem;
	struct list_head		event_handler_list;
	struct rdma_restrack_root	*res;

	u32				index;
	enum ib_device_reg_state	reg_state;
	refcount_t			refcount;
	struct completion		unreg_completion;
	struct xarray			client_data;
	const struct attribute_group	*groups[3];
#ifdef CONFIG_CGROUP_RDMA
	struct rdmacg_device		cg_device;
#endif
};

/**
 * struct ib_client_nl_info - a client's answer to RDMA_NLDEV_CMD_GET_CHARDEV
 * @cdev: the character device's struct device (its devt and name are sent)
 * @abi: the ABI version of the character device
 * @port: the port the character device is for, 0 if none
 */
struct ib_client_nl_info {
	struct device	*cdev;
	u64		abi;
	u32		port;
};

struct net_device;
struct sockaddr;

/**
 * struct ib_client - an upper-layer user of RDMA devices
 * @name: name of the client, for messages
 * @add: called once for every device registered while the client is
 *	registered.  Returns 0 to attach to the device, -EOPNOTSUPP to ignore
 *	it (remove is then not called for it), or another negative errno to
 *	fail the registration that triggered the call.
 * @remove: called once for every device @add accepted, when either the
 *	device or the client goes away.  @client_data is the value set with
 *	ib_set_client_data() (NULL if none).
 * @get_nl_info: optional; fills in @res with the character device the
 *	client offers userspace for @device, for RDMA_NLDEV_CMD_GET_CHARDEV
 *	with a DEV_INDEX.  Called with the core's registration lock held, so
 *	the client stays attached.
 * @get_global_nl_info: optional; the same for a client whose character
 *	device is not tied to a device (rdma_cm's), for
 *	RDMA_NLDEV_CMD_GET_CHARDEV without a DEV_INDEX.  Called with the
 *	core's registration lock held, so the client stays registered.
 * @get_net_dev_by_params: optional; the net device of @dev's @port that a
 *	connection request for P_Key @pkey, port GID @gid and IP address
 *	@addr (NULL: none known) is addressed to, held with dev_hold(), or
 *	NULL if the client has none (see ib_get_net_dev_by_params()).
 *	@client_data is the client's context on @dev (NULL if it set none).
 *	Called only while the client is attached to @dev, without the
 *	registration lock but under a lock that keeps its remove callback
 *	from starting; it may sleep, but must neither register nor
 *	unregister anything nor call ib_get_net_dev_by_params().
 * @list: entry in the core's client list (core private)
 * @client_id: index of the client's context in each device (core private)
 *
 * The core serialises all add and remove calls; a callback must not
 * register or unregister devices or clients itself.
 */
struct ib_client {
	const char *name;
	int (*add)(struct ib_device *device);
	void (*remove)(struct ib_device *device, void *client_data);
	int (*get_nl_info)(struct ib_device *device, void *client_data,
			   struct ib_client_nl_info *res);
	int (*get_global_nl_info)(struct ib_client_nl_info *res);
	struct net_device *(*get_net_dev_by_params)(struct ib_device *dev,
						    u32 port, u16 pkey,
						    const union ib_gid *gid,
						    const struct sockaddr *addr,
						    void *client_data);

	struct list_head list;
	u32 client_id;
};

struct ib_device *_ib_alloc_device(size_t size);

/**
 * ib_alloc_device - allocate a driver structure embedding a struct ib_device
 * @type: the driver's structure type, e.g. ``struct vmlx_dev``
 * @member: name of its struct ib_device member, which must come first
 *
 * Return: pointer to the zeroed driver structure, or NULL.
 */
#define ib_alloc_device(type, member)					\
	((type *)_ib_alloc_device(sizeof(type) +			\
				  BUILD_BUG_ON_ZERO(offsetof(type, member))))

void ib_dealloc_device(struct ib_device *device);

int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device);
void ib_unregister_device(struct ib_device *device);

int ib_register_client(struct ib_client *client);
void ib_unregister_client(struct ib_client *client);

void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data);
void *ib_get_client_data(struct ib_device *device, struct ib_client *client);
int ib_get_client_nl_info(struct ib_device *device, const char *client_name,
			  struct ib_client_nl_info *res);
struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port,
					    u16 pkey, const union ib_gid *gid,
					    const struct sockaddr *addr);

/**
 * ib_device_try_get - take a registration reference on a device
 * @device: the device
 *
 * Succeeds only while @device is registered.  ib_unregister_device() waits
 * until every reference taken here has been dropped with ib_device_put(),
 * so holders must drop it promptly, at the latest from their client's
 * remove callback.
 *
 * Return: true if the reference was taken.
 */
static inline bool ib_device_try_get(struct ib_device *device)
{
	return refcount_inc_not_zero(&device->refcount);
}

void ib_device_put(struct ib_device *device);
struct ib_device *ib_device_get_by_name(const char *name);
struct ib_device *ib_device_get_by_index(u32 index);

int ib_modify_device(struct ib_device *device, int mask,
		     struct ib_device_modify *modify);
void ib_get_device_fw_str(struct ib_device *device, char *str);

int ib_device_set_netdev(struct ib_device *device, struct net_device *ndev,
			 u32 port);

/**
 * rdma_device_to_ibdev - the ib_device behind a struct device
 * @device: the @dev member of a struct ib_device
 *
 * Return: the containing ib_device.
 */
static inline struct ib_device *rdma_device_to_ibdev(struct device *device)
{
	return container_of(device, struct ib_device, dev);
}

/**
 * ib_device_name - name of an ib_device, for messages
 * @device: the device
 *
 * Return: the device name, as registered.
 */
static inline const char *ib_device_name(const struct ib_device *device)
{
	return dev_name(&device->dev);
}

/**
 * ib_get_vector_affinity - CPUs served by a completion vector
 * @device: the device
 * @comp_vector: the completion vector
 *
 * Storage protocols use this to place their queues next to the
 * interrupts of the vectors they use.
 *
 * Return: the CPU mask, or NULL if unknown or @comp_vector is out of range.
 */
static inline const struct cpumask *
ib_get_vector_affinity(struct ib_device *device, int comp_vector)
{
	if (comp_vector < 0 || comp_vector >= device->num_comp_vectors ||
	    !device->ops->get_vector_affinity)
		return NULL;
	return device->ops->get_vector_affinity(device, comp_vector);
}

/* ------------------------------------------------------------------ */
/* Ports                                                               */
/* ------------------------------------------------------------------ */

/**
 * rdma_start_port - first port number of a device
 * @device: the device
 *
 * Return: 0 for a switch (its management port), 1 otherwise.
 */
static inline u32 rdma_start_port(const struct ib_device *device)
{
	return device->node_type == RDMA_NODE_IB_SWITCH ? 0 : 1;
}

/**
 * rdma_end_port - last port number of a device
 * @device: the device
 *
 * Return: the last valid port number.
 */
static inline u32 rdma_end_port(const struct ib_device *device)
{
	return device->node_type == RDMA_NODE_IB_SWITCH ?
		0 : device->phys_port_cnt;
}

/**
 * rdma_is_port_valid - whether a port number exists on a device
 * @device: the device
 * @port: the port number
 *
 * Return: true if @port is between rdma_start_port() and rdma_end_port().
 */
static inline bool rdma_is_port_valid(const struct ib_device *device,
				      unsigned int port)
{
	return port >= rdma_start_port(device) && port <= rdma_end_port(device);
}

const struct ib_port_immutable *
ib_port_immutable_read(struct ib_device *device, u32 port);
enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device,
					      u32 port_num);
int ib_query_port(struct ib_device *device, u32 port_num,
		  struct ib_port_attr *attr);
int ib_modify_port(struct ib_device *device, u32 port_num, int mask,
		   struct ib_port_modify *modify);
int ib_query_pkey(struct ib_device *device, u32 port_num, u16 index,
		  u16 *pkey);
int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey,
		 u16 *index);
int rdma_query_gid(struct ib_device *device, u32 port_num, int index,
		   union ib_gid *gid);
int ib_find_gid(struct ib_device *device, const union ib_gid *gid,
		u32 *port_num, u16 *index);
int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc);
int ib_get_cached_pkey(struct ib_device *device, u32 port_num, u16 index,
		       u16 *pkey);
int ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				u64 *prefix);
int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *state);

int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups);
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups);
struct ib_device *ib_port_sysfs_port(struct kobject *kobj, u32 *port_num);

void ib_register_event_handler(struct ib_event_handler *handler);
void ib_unregister_event_handler(struct ib_event_handler *handler);
void ib_dispatch_event(const struct ib_event *event);

/* ------------------------------------------------------------------ */
/* Verbs                                                               */
/* ------------------------------------------------------------------ */

struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller);

/**
 * ib_alloc_pd - allocate a kernel protection domain
 * @device: the device
 * @flags: IB_PD_* flags
 *
 * Return: the PD or an ERR_PTR().
 */
#define ib_alloc_pd(device, flags) \
	__ib_alloc_pd((device), (flags), KBUILD_MODNAME)

int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata);

struct ib_ucontext *ib_alloc_ucontext(struct ib_device *device,
				      struct ib_udata *udata);
void ib_dealloc_ucontext(struct ib_ucontext *uctx);
struct ib_pd *ib_alloc_pd_user(struct ib_ucontext *uctx,
			       struct ib_uobject *uobject,
			       struct ib_udata *udata);
struct ib_cq *ib_create_cq_user(struct ib_ucontext *uctx,
				struct ib_uobject *uobject,
				const struct ib_cq_init_attr *cq_attr,
				ib_comp_handler comp_handler,
				void (*event_handler)(struct ib_event *, void *),
				void *cq_context, struct ib_udata *udata);
struct ib_srq *ib_create_srq_user(struct ib_pd *pd, struct ib_uobject *uobject,
				  struct ib_srq_init_attr *srq_init_attr,
				  struct ib_udata *udata);
int ib_modify_srq_user(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		       enum ib_srq_attr_mask srq_attr_mask,
		       struct ib_udata *udata);
struct ib_qp *ib_create_qp_user(struct ib_pd *pd, struct ib_uobject *uobject,
				struct ib_qp_init_attr *qp_init_attr,
				struct ib_udata *udata);
int ib_modify_qp_user(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		      int qp_attr_mask, struct ib_udata *udata);
struct ib_ah *rdma_create_ah_user(struct ib_pd *pd, struct ib_uobject *uobject,
				  struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata);
struct ib_mr *ib_reg_user_mr(struct ib_pd *pd, struct ib_uobject *uobject,
			     u64 start, u64 length, u64 virt_addr, int access,
			     struct ib_udata *udata);

/**
 * ib_dealloc_pd - free a kernel protection domain
 * @pd: the PD; nothing may use it any more
 */
static inline void ib_dealloc_pd(struct ib_pd *pd)
{
	int ret = ib_dealloc_pd_user(pd, NULL);

	WARN_ONCE(ret, "Destroy of kernel PD shouldn't fail");
}

struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			     u32 flags);
int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr);
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num);
int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata);

/**
 * rdma_destroy_ah - destroy a kernel address handle
 * @ah: the AH
 * @flags: RDMA_DESTROY_AH_* flags
 *
 * Return: 0 or a negative errno.
 */
static inline int rdma_destroy_ah(struct ib_ah *ah, u32 flags)
{
	return rdma_destroy_ah_user(ah, flags, NULL);
}

struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller);

/**
 * ib_create_cq - create a completion queue polled by its user
 * @device: the device
 * @comp_handler: called after ib_req_notify_cq() when a completion arrives
 * @event_handler: called for CQ errors
 * @cq_context: argument of both handlers
 * @cq_attr: size and vector
 *
 * Return: the CQ or an ERR_PTR().
 */
#define ib_create_cq(device, comp_handler, event_handler, cq_context, cq_attr) \
	__ib_create_cq((device), (comp_handler), (event_handler),	\
		       (cq_context), (cq_attr), KBUILD_MODNAME)

int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata);

/**
 * ib_destroy_cq - destroy a completion queue from ib_create_cq()
 * @cq: the CQ; no QP or SRQ may use it any more
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_destroy_cq(struct ib_cq *cq)
{
	return ib_destroy_cq_user(cq, NULL);
}

int ib_resize_cq(struct ib_cq *cq, int cqe);

struct ib_cq *__ib_alloc_cq(struct ib_device *device, void *private,
			    int nr_cqe, int comp_vector,
			    enum ib_poll_context poll_ctx, const char *caller);

/**
 * ib_alloc_cq - allocate a completion queue the core polls
 * @device: the device
 * @private: the user's context, in &ib_cq.cq_context
 * @nr_cqe: number of entries
 * @comp_vector: completion vector
 * @poll_ctx: where completions are processed
 *
 * Completions call the done callback of the ib_cqe in their wr_cqe.
 *
 * Return: the CQ or an ERR_PTR().
 */
#define ib_alloc_cq(device, private, nr_cqe, comp_vector, poll_ctx)	\
	__ib_alloc_cq((device), (private), (nr_cqe), (comp_vector),	\
		      (poll_ctx), KBUILD_MODNAME)

void ib_free_cq(struct ib_cq *cq);
int ib_process_cq_direct(struct ib_cq *cq, int budget);

struct ib_srq *ib_create_srq_kernel(struct ib_pd *pd,
				    struct ib_srq_init_attr *srq_init_attr,
				    const char *caller);

/**
 * ib_create_srq - create a kernel shared receive queue
 * @pd: the protection domain
 * @srq_init_attr: sizes and event handler; the sizes are updated to what
 *	was allocated
 *
 * Return: the SRQ or an ERR_PTR().
 */
static inline struct ib_srq *
ib_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *srq_init_attr)
{
	return ib_create_srq_kernel(pd, srq_init_attr, KBUILD_MODNAME);
}

int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask);
int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr);
int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata);

/**
 * ib_destroy_srq - destroy a kernel shared receive queue
 * @srq: the SRQ; no QP may use it any more
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_destroy_srq(struct ib_srq *srq)
{
	return ib_destroy_srq_user(srq, NULL);
}

struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd,
				  struct ib_qp_init_attr *qp_init_attr,
				  const char *caller);

/**
 * ib_create_qp - create a kernel queue pair
 * @pd: the protection domain
 * @qp_init_attr: type, CQs, sizes; the sizes are updated to what was
 *	allocated
 *
 * Return: the QP, in the RESET state, or an ERR_PTR().
 */
static inline struct ib_qp *ib_create_qp(struct ib_pd *pd,
					 struct ib_qp_init_attr *qp_init_attr)
{
	return ib_create_qp_kernel(pd, qp_init_attr, KBUILD_MODNAME);
}

int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		 int qp_attr_mask);
int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr);
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata);

/**
 * ib_destroy_qp - destroy a kernel queue pair
 * @qp: the QP
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_destroy_qp(struct ib_qp *qp)
{
	return ib_destroy_qp_user(qp, NULL);
}

void ib_drain_sq(struct ib_qp *qp);
void ib_drain_rq(struct ib_qp *qp);
void ib_drain_qp(struct ib_qp *qp);

int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);
int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);

/**
 * ib_post_send - post a chain of send work requests
 * @qp: the QP
 * @send_wr: the first request
 * @bad_send_wr: set to the first request not posted on error (may be NULL)
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_post_send(struct ib_qp *qp,
			       const struct ib_send_wr *send_wr,
			       const struct ib_send_wr **bad_send_wr)
{
	const struct ib_send_wr *dummy;

	return qp->device->ops->post_send(qp, send_wr,
					  bad_send_wr ? : &dummy);
}

/**
 * ib_post_recv - post a chain of receive work requests
 * @qp: the QP
 * @recv_wr: the first request
 * @bad_recv_wr: set to the first request not posted on error (may be NULL)
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_post_recv(struct ib_qp *qp,
			       const struct ib_recv_wr *recv_wr,
			       const struct ib_recv_wr **bad_recv_wr)
{
	const struct ib_recv_wr *dummy;

	return qp->device->ops->post_recv(qp, recv_wr,
					  bad_recv_wr ? : &dummy);
}

/**
 * ib_post_srq_recv - post a chain of receive work requests to an SRQ
 * @srq: the SRQ
 * @recv_wr: the first request
 * @bad_recv_wr: set to the first request not posted on error (may be NULL)
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_post_srq_recv(struct ib_srq *srq,
				   const struct ib_recv_wr *recv_wr,
				   const struct ib_recv_wr **bad_recv_wr)
{
	const struct ib_recv_wr *dummy;

	return srq->device->ops->post_srq_recv(srq, recv_wr,
					       bad_recv_wr ? : &dummy);
}

/**
 * ib_poll_cq - take completions from a CQ
 * @cq: the CQ
 * @num_entries: room in @wc
 * @wc: where to put them
 *
 * Return: the number of completions taken, or a negative errno.
 */
static inline int ib_poll_cq(struct ib_cq *cq, int num_entries,
			     struct ib_wc *wc)
{
	return cq->device->ops->poll_cq(cq, num_entries, wc);
}

/**
 * ib_req_notify_cq - ask for the completion handler to be called
 * @cq: the CQ
 * @flags: enum ib_cq_notify_flags
 *
 * Return: 0, 1 if IB_CQ_REPORT_MISSED_EVENTS was given and completions may
 * be waiting, or a negative errno.
 */
static inline int ib_req_notify_cq(struct ib_cq *cq,
				   enum ib_cq_notify_flags flags)
{
	return cq->device->ops->req_notify_cq(cq, flags);
}

struct ib_mr *ib_alloc_mr_kernel(struct ib_pd *pd, enum ib_mr_type mr_type,
				 u32 max_num_sg, const char *caller);

/**
 * ib_alloc_mr - allocate a fast-registration memory region
 * @pd: the protection domain
 * @mr_type: IB_MR_TYPE_MEM_REG (or SG_GAPS if the device supports it)
 * @max_num_sg: the most pages the MR can map
 *
 * Return: the MR, to be mapped with ib_map_mr_sg() and registered with an
 * IB_WR_REG_MR work request, or an ERR_PTR().
 */
static inline struct ib_mr *ib_alloc_mr(struct ib_pd *pd,
					enum ib_mr_type mr_type,
					u32 max_num_sg)
{
	return ib_alloc_mr_kernel(pd, mr_type, max_num_sg, KBUILD_MODNAME);
}

int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata);

/**
 * ib_dereg_mr - release a kernel memory region
 * @mr: the MR
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_dereg_mr(struct ib_mr *mr)
{
	return ib_dereg_mr_user(mr, NULL);
}

int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size);
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset, int (*set_page)(struct ib_mr *, u64));

/**
 * ib_update_fast_reg_key - change the variable low byte of an MR's keys
 * @mr: the MR, not in use by any registration in flight
 * @newkey: the new low byte
 */
static inline void ib_update_fast_reg_key(struct ib_mr *mr, u8 newkey)
{
	mr->lkey = (mr->lkey & 0xffffff00) | newkey;
	mr->rkey = (mr->rkey & 0xffffff00) | newkey;
}

/**
 * ib_inc_rkey - the next key of a fast-registration MR
 * @rkey: the current key
 *
 * Return: @rkey with its low byte incremented.
 */
static inline u32 ib_inc_rkey(u32 rkey)
{
	return (rkey & 0xffffff00) | ((rkey + 1) & 0xff);
}

/* ------------------------------------------------------------------ */
/* DMA mapping                                                         */
/* ------------------------------------------------------------------ */

/**
 * ib_uses_virt_dma - whether a device's DMA addresses are kernel addresses
 * @device: the device
 *
 * Software devices have no DMA device: they access memory through kernel
 * virtual addresses, which the ib_dma_* helpers hand out.
 *
 * Return: true for such devices.
 */
static inline bool ib_uses_virt_dma(struct ib_device *device)
{
	return !device->dma_device;
}

/**
 * ib_dma_mapping_error - check an address from an ib_dma_map_* helper
 * @dev: the device
 * @dma_addr: the address
 *
 * Return: non-zero if mapping failed.
 */
static inline int ib_dma_mapping_error(struct ib_device *dev, u64 dma_addr)
{
	if (ib_uses_virt_dma(dev))
		return 0;
	return dma_mapping_error(dev->dma_device, dma_addr);
}

/**
 * ib_dma_map_single - map a kernel buffer for a device
 * @dev: the device
 * @cpu_addr: the buffer
 * @size: its size
 * @direction: DMA direction
 *
 * Return: the address to use in work requests.
 */
static inline u64 ib_dma_map_single(struct ib_device *dev, void *cpu_addr,
				    size_t size,
				    enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return (uintptr_t)cpu_addr;
	return dma_map_single(dev->dma_device, cpu_addr, size, direction);
}

/**
 * ib_dma_unmap_single - undo ib_dma_map_single()
 * @dev: the device
 * @addr: the mapped address
 * @size: the size
 * @direction: DMA direction
 */
static inline void ib_dma_unmap_single(struct ib_device *dev, u64 addr,
				       size_t size,
				       enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_single(dev->dma_device, addr, size, direction);
}

/**
 * ib_dma_map_page - map part of a page for a device
 * @dev: the device
 * @page: the page
 * @offset: offset in the page
 * @size: bytes
 * @direction: DMA direction
 *
 * Return: the address to use in work requests.
 */
static inline u64 ib_dma_map_page(struct ib_device *dev, struct page *page,
				  unsigned long offset, size_t size,
				  enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return (uintptr_t)(page_address(page) + offset);
	return dma_map_page(dev->dma_device, page, offset, size, direction);
}

/**
 * ib_dma_unmap_page - undo ib_dma_map_page()
 * @dev: the device
 * @addr: the mapped address
 * @size: the size
 * @direction: DMA direction
 */
static inline void ib_dma_unmap_page(struct ib_device *dev, u64 addr,
				     size_t size,
				     enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_page(dev->dma_device, addr, size, direction);
}

int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg,
		       int nents);

/**
 * ib_dma_map_sg - map a scatterlist for a device
 * @dev: the device
 * @sg: the scatterlist
 * @nents: entries
 * @direction: DMA direction
 *
 * Return: number of mapped entries, 0 on failure.
 */
static inline int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sg,
				int nents, enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return ib_dma_virt_map_sg(dev, sg, nents);
	return dma_map_sg(dev->dma_device, sg, nents, direction);
}

/**
 * ib_dma_unmap_sg - undo ib_dma_map_sg()
 * @dev: the device
 * @sg: the scatterlist
 * @nents: entries passed to ib_dma_map_sg()
 * @direction: DMA direction
 */
static inline void ib_dma_unmap_sg(struct ib_device *dev,
				   struct scatterlist *sg, int nents,
				   enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_sg(dev->dma_device, sg, nents, direction);
}

/**
 * ib_dma_sync_single_for_cpu - give a mapped buffer back to the CPU
 * @dev: the device
 * @addr: the mapped address
 * @size: bytes
 * @dir: DMA direction
 */
static inline void ib_dma_sync_single_for_cpu(struct ib_device *dev, u64 addr,
					      size_t size,
					      enum dma_data_direction dir)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_single_for_cpu(dev->dma_device, addr, size, dir);
}

/**
 * ib_dma_sync_single_for_device - give a mapped buffer to the device
 * @dev: the device
 * @addr: the mapped address
 * @size: bytes
 * @dir: DMA direction
 */
static inline void ib_dma_sync_single_for_device(struct ib_device *dev,
						 u64 addr, size_t size,
						 enum dma_data_direction dir)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_single_for_device(dev->dma_device, addr, size, dir);
}

#endif /* IB_VERBS_H */
