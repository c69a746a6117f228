/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * RDMA netlink (NETLINK_RDMA) user ABI: client ids, operations and
 * attributes of the iWARP port mapper (IWPM), the local service (LS,
 * e.g. ibacm path resolution) and the device interface (NLDEV, used by
 * libibverbs device discovery and by iproute2's "rdma" tool).
 *
 * Every number below is ABI: it must stay equal to Linux 6.1's.
 *
 * The guard carries the _UAPI_ prefix so that it does not collide with the
 * kernel-internal <rdma/rdma_netlink.h>, which includes this file.
 */
#ifndef _UAPI_RDMA_NETLINK_H
#define _UAPI_RDMA_NETLINK_H

#include <linux/types.h>

/* Netlink clients; the client id sits in bits 15:10 of nlmsg_type. */
enum {
	RDMA_NL_IWCM = 2,
	RDMA_NL_RSVD = 3,
	RDMA_NL_LS = 4,			/* local service */
	RDMA_NL_NLDEV = 5,		/* device interface */
	RDMA_NL_NUM_CLIENTS = 6
};

/* Multicast groups */
enum {
	RDMA_NL_GROUP_IWPM = 2,
	RDMA_NL_GROUP_LS = 3,
	RDMA_NL_NUM_GROUPS = 4
};

/* nlmsg_type = client << 10 | op; the op takes the low 10 bits. */
#define RDMA_NL_GET_CLIENT(type)	(((type) & 0xfc00) >> 10)
#define RDMA_NL_GET_OP(type)		((type) & 0x3ff)
#define RDMA_NL_GET_TYPE(client, op)	(((client) << 10) + (op))

/* IWPM: oldest and newest user ABI versions the kernel speaks */
#define IWPM_UABI_VERSION_MIN	3
#define IWPM_UABI_VERSION	4

/* IWPM request flags */
enum {
	IWPM_FLAGS_NO_PORT_MAP = 1 << 0	/* leave the port unmapped */
};

/* IWPM operations (RDMA_NL_IWCM client) */
enum {
	RDMA_NL_IWPM_REG_PID = 0,
	RDMA_NL_IWPM_ADD_MAPPING = 1,
	RDMA_NL_IWPM_QUERY_MAPPING = 2,
	RDMA_NL_IWPM_REMOVE_MAPPING = 3,
	RDMA_NL_IWPM_REMOTE_INFO = 4,
	RDMA_NL_IWPM_HANDLE_ERR = 5,
	RDMA_NL_IWPM_MAPINFO = 6,
	RDMA_NL_IWPM_MAPINFO_NUM = 7,
	RDMA_NL_IWPM_HELLO = 8,
	RDMA_NL_IWPM_NUM_OPS = 9
};

/* IWPM attributes of REG_PID, kernel to port mapper */
enum {
	IWPM_NLA_REG_PID_UNSPEC = 0,
	IWPM_NLA_REG_PID_SEQ = 1,
	IWPM_NLA_REG_IF_NAME = 2,
	IWPM_NLA_REG_IBDEV_NAME = 3,
	IWPM_NLA_REG_ULIB_NAME = 4,
	IWPM_NLA_REG_PID_MAX = 5
};

/* IWPM attributes of the REG_PID reply */
enum {
	IWPM_NLA_RREG_PID_UNSPEC = 0,
	IWPM_NLA_RREG_PID_SEQ = 1,
	IWPM_NLA_RREG_IBDEV_NAME = 2,
	IWPM_NLA_RREG_ULIB_NAME = 3,
	IWPM_NLA_RREG_ULIB_VER = 4,
	IWPM_NLA_RREG_PID_ERR = 5,
	IWPM_NLA_RREG_PID_MAX = 6
};

/* IWPM attributes of ADD_MAPPING / REMOVE_MAPPING requests */
enum {
	IWPM_NLA_MANAGE_MAPPING_UNSPEC = 0,
	IWPM_NLA_MANAGE_MAPPING_SEQ = 1,
	IWPM_NLA_MANAGE_ADDR = 2,
	IWPM_NLA_MANAGE_FLAGS = 3,
	IWPM_NLA_MANAGE_MAPPING_MAX = 4
};

/* IWPM attributes of the ADD_MAPPING reply */
enum {
	IWPM_NLA_RMANAGE_MAPPING_UNSPEC = 0,
	IWPM_NLA_RMANAGE_MAPPING_SEQ = 1,
	IWPM_NLA_RMANAGE_ADDR = 2,
	IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR = 3,
	/* older name of the above, still used by rdma-core */
	IWPM_NLA_MANAGE_MAPPED_LOC_ADDR = IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR,
	IWPM_NLA_RMANAGE_MAPPING_ERR = 4,
	IWPM_NLA_RMANAGE_MAPPING_MAX = 5
};

#define IWPM_NLA_MAPINFO_SEND_MAX	3
#define IWPM_NLA_REMOVE_MAPPING_MAX	3

/* IWPM attributes of QUERY_MAPPING requests */
enum {
	IWPM_NLA_QUERY_MAPPING_UNSPEC = 0,
	IWPM_NLA_QUERY_MAPPING_SEQ = 1,
	IWPM_NLA_QUERY_LOCAL_ADDR = 2,
	IWPM_NLA_QUERY_REMOTE_ADDR = 3,
	IWPM_NLA_QUERY_FLAGS = 4,
	IWPM_NLA_QUERY_MAPPING_MAX = 5
};

/* IWPM attributes of the QUERY_MAPPING reply */
enum {
	IWPM_NLA_RQUERY_MAPPING_UNSPEC = 0,
	IWPM_NLA_RQUERY_MAPPING_SEQ = 1,
	IWPM_NLA_RQUERY_LOCAL_ADDR = 2,
	IWPM_NLA_RQUERY_REMOTE_ADDR = 3,
	IWPM_NLA_RQUERY_MAPPED_LOC_ADDR = 4,
	IWPM_NLA_RQUERY_MAPPED_REM_ADDR = 5,
	IWPM_NLA_RQUERY_MAPPING_ERR = 6,
	IWPM_NLA_RQUERY_MAPPING_MAX = 7
};

/* IWPM attributes of MAPINFO requests (port mapper restarted) */
enum {
	IWPM_NLA_MAPINFO_REQ_UNSPEC = 0,
	IWPM_NLA_MAPINFO_ULIB_NAME = 1,
	IWPM_NLA_MAPINFO_ULIB_VER = 2,
	IWPM_NLA_MAPINFO_REQ_MAX = 3
};

/* IWPM attributes of one MAPINFO record */
enum {
	IWPM_NLA_MAPINFO_UNSPEC = 0,
	IWPM_NLA_MAPINFO_LOCAL_ADDR = 1,
	IWPM_NLA_MAPINFO_MAPPED_ADDR = 2,
	IWPM_NLA_MAPINFO_FLAGS = 3,
	IWPM_NLA_MAPINFO_MAX = 4
};

/* IWPM attributes of MAPINFO_NUM */
enum {
	IWPM_NLA_MAPINFO_NUM_UNSPEC = 0,
	IWPM_NLA_MAPINFO_SEQ = 1,
	IWPM_NLA_MAPINFO_SEND_NUM = 2,
	IWPM_NLA_MAPINFO_ACK_NUM = 3,
	IWPM_NLA_MAPINFO_NUM_MAX = 4
};

/* IWPM attributes of HANDLE_ERR */
enum {
	IWPM_NLA_ERR_UNSPEC = 0,
	IWPM_NLA_ERR_SEQ = 1,
	IWPM_NLA_ERR_CODE = 2,
	IWPM_NLA_ERR_MAX = 3
};

/* IWPM attributes of HELLO */
enum {
	IWPM_NLA_HELLO_UNSPEC = 0,
	IWPM_NLA_HELLO_ABI_VERSION = 1,
	IWPM_NLA_HELLO_MAX = 2
};

/*
 * Node types reported in RDMA_NLDEV_ATTR_DEV_NODE_TYPE.  The InfiniBand
 * ones equal the NodeType field of the NodeInfo attribute.
 */
enum {
	RDMA_NODE_IB_CA = 1,
	RDMA_NODE_IB_SWITCH = 2,
	RDMA_NODE_IB_ROUTER = 3,
	RDMA_NODE_RNIC = 4,
	RDMA_NODE_USNIC = 5,
	RDMA_NODE_USNIC_UDP = 6,
	RDMA_NODE_UNSPECIFIED = 7
};

/*
 * LS operations (RDMA_NL_LS client):
 * RESOLVE      kernel asks the local service for path records;
 * SET_TIMEOUT  the local service tells the kernel which timeout to use;
 * IP_RESOLVE   kernel asks the local service to map an IP address to a GID.
 */
enum {
	RDMA_NL_LS_OP_RESOLVE = 0,
	RDMA_NL_LS_OP_SET_TIMEOUT = 1,
	RDMA_NL_LS_OP_IP_RESOLVE = 2,
	RDMA_NL_LS_NUM_OPS = 3
};

/* LS message flag (in nlmsg_flags): the response reports a failure */
#define RDMA_NL_LS_F_ERR	0x0100

/*
 * How the paths of a RESOLVE request will be used:
 * ALL             connected CM, six path records;
 * UNIDIRECTIONAL  UD, one path record;
 * GMP             general management packets, one or more reversible paths.
 */
enum {
	LS_RESOLVE_PATH_USE_ALL = 0,
	LS_RESOLVE_PATH_USE_UNIDIRECTIONAL = 1,
	LS_RESOLVE_PATH_USE_GMP = 2,
	LS_RESOLVE_PATH_USE_MAX = 3
};

#define LS_DEVICE_NAME_MAX	64

/* Family header of RESOLVE; attributes follow it. */
struct rdma_ls_resolve_header {
	__u8	device_name[LS_DEVICE_NAME_MAX];
	__u8	port_num;
	__u8	path_use;		/* LS_RESOLVE_PATH_USE_* */
};

/* Family header of IP_RESOLVE */
struct rdma_ls_ip_resolve_header {
	__u32	ifindex;
};

/*
 * LS attribute type flag and mask.  The mask strips the generic netlink
 * flags NLA_F_NESTED and NLA_F_NET_BYTEORDER, so users of it need
 * <linux/netlink.h>.
 */
#define RDMA_NLA_F_MANDATORY	(1 << 13)
#define RDMA_NLA_TYPE_MASK	(~(NLA_F_NESTED | NLA_F_NET_BYTEORDER | \
				   RDMA_NLA_F_MANDATORY))

/*
 * LS attributes and their payload ("be" = network byte order, otherwise
 * host order):
 * PATH_RECORD struct ib_path_rec_data, TIMEOUT u32, SERVICE_ID u64,
 * DGID and SGID u8[16] be, TCLASS u8, PKEY u16, QOS_CLASS u16,
 * IPV4 u32 be, IPV6 u8[16] be.
 */
enum {
	LS_NLA_TYPE_UNSPEC = 0,
	LS_NLA_TYPE_PATH_RECORD = 1,
	LS_NLA_TYPE_TIMEOUT = 2,
	LS_NLA_TYPE_SERVICE_ID = 3,
	LS_NLA_TYPE_DGID = 4,
	LS_NLA_TYPE_SGID = 5,
	LS_NLA_TYPE_TCLASS = 6,
	LS_NLA_TYPE_PKEY = 7,
	LS_NLA_TYPE_QOS_CLASS = 8,
	LS_NLA_TYPE_IPV4 = 9,
	LS_NLA_TYPE_IPV6 = 10,
	LS_NLA_TYPE_MAX = 11
};

/* Payload of LS_NLA_TYPE_DGID and LS_NLA_TYPE_SGID, network byte order */
struct rdma_nla_ls_gid {
	__u8	gid[16];
};

/* NLDEV commands (RDMA_NL_NLDEV client); "dump" marks NLM_F_DUMP support */
enum rdma_nldev_command {
	RDMA_NLDEV_CMD_UNSPEC = 0,
	RDMA_NLDEV_CMD_GET = 1,			/* dump */
	RDMA_NLDEV_CMD_SET = 2,
	RDMA_NLDEV_CMD_NEWLINK = 3,
	RDMA_NLDEV_CMD_DELLINK = 4,
	RDMA_NLDEV_CMD_PORT_GET = 5,		/* dump */
	RDMA_NLDEV_CMD_SYS_GET = 6,
	RDMA_NLDEV_CMD_SYS_SET = 7,
	/* 8 is unused */
	RDMA_NLDEV_CMD_RES_GET = 9,		/* dump */
	RDMA_NLDEV_CMD_RES_QP_GET = 10,		/* dump */
	RDMA_NLDEV_CMD_RES_CM_ID_GET = 11,	/* dump */
	RDMA_NLDEV_CMD_RES_CQ_GET = 12,		/* dump */
	RDMA_NLDEV_CMD_RES_MR_GET = 13,		/* dump */
	RDMA_NLDEV_CMD_RES_PD_GET = 14,		/* dump */
	RDMA_NLDEV_CMD_GET_CHARDEV = 15,
	RDMA_NLDEV_CMD_STAT_SET = 16,
	RDMA_NLDEV_CMD_STAT_GET = 17,		/* dump */
	RDMA_NLDEV_CMD_STAT_DEL = 18,
	RDMA_NLDEV_CMD_RES_QP_GET_RAW = 19,
	RDMA_NLDEV_CMD_RES_CQ_GET_RAW = 20,
	RDMA_NLDEV_CMD_RES_MR_GET_RAW = 21,
	RDMA_NLDEV_CMD_RES_CTX_GET = 22,	/* dump */
	RDMA_NLDEV_CMD_RES_SRQ_GET = 23,	/* dump */
	RDMA_NLDEV_CMD_STAT_GET_STATUS = 24,
	RDMA_NLDEV_NUM_OPS = 25
};

/* How user space should print a driver attribute */
enum rdma_nldev_print_type {
	RDMA_NLDEV_PRINT_TYPE_UNSPEC = 0,
	RDMA_NLDEV_PRINT_TYPE_HEX = 1
};

/*
 * NLDEV attributes.  The numbering is ABI: never renumber, insert or
 * remove; new attributes go right before RDMA_NLDEV_ATTR_MAX.  The comment
 * gives the payload type.
 */
enum rdma_nldev_attr {
	RDMA_NLDEV_ATTR_UNSPEC = 0,
	RDMA_NLDEV_ATTR_PAD = RDMA_NLDEV_ATTR_UNSPEC,	/* 64-bit padding */

	/* Device identity */
	RDMA_NLDEV_ATTR_DEV_INDEX = 1,			/* u32 */
	RDMA_NLDEV_ATTR_DEV_NAME = 2,			/* string */
	/*
	 * Port number, counted from 1 as in sysfs.  In a device-wide
	 * RDMA_NLDEV_CMD_GET reply it holds the number of ports instead.
	 */
	RDMA_NLDEV_ATTR_PORT_INDEX = 3,			/* u32 */
	/*
	 * Device capability flags; for a port, CapabilityMask in the low
	 * 32 bits and CapabilityMask2 in the next 16.
	 */
	RDMA_NLDEV_ATTR_CAP_FLAGS = 4,			/* u64 */
	RDMA_NLDEV_ATTR_FW_VERSION = 5,			/* string */
	RDMA_NLDEV_ATTR_NODE_GUID = 6,			/* u64, host order */
	RDMA_NLDEV_ATTR_SYS_IMAGE_GUID = 7,		/* u64, host order */
	RDMA_NLDEV_ATTR_SUBNET_PREFIX = 8,		/* u64, host order */
	/* LIDs are 16 bits in InfiniBand, 32 for OmniPath */
	RDMA_NLDEV_ATTR_LID = 9,			/* u32 */
	RDMA_NLDEV_ATTR_SM_LID = 10,			/* u32 */
	RDMA_NLDEV_ATTR_LMC = 11,			/* u8 */
	RDMA_NLDEV_ATTR_PORT_STATE = 12,		/* u8 */
	RDMA_NLDEV_ATTR_PORT_PHYS_STATE = 13,		/* u8 */
	RDMA_NLDEV_ATTR_DEV_NODE_TYPE = 14,		/* u8, RDMA_NODE_* */

	/* Resource tracking: summary table */
	RDMA_NLDEV_ATTR_RES_SUMMARY = 15,		/* nested */
	RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY = 16,		/* nested */
	RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME = 17,	/* string */
	RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR = 18,	/* u64 */

	/* Resource tracking: queue pairs */
	RDMA_NLDEV_ATTR_RES_QP = 19,			/* nested */
	RDMA_NLDEV_ATTR_RES_QP_ENTRY = 20,		/* nested */
	RDMA_NLDEV_ATTR_RES_LQPN = 21,			/* u32, local QPN */
	RDMA_NLDEV_ATTR_RES_RQPN = 22,			/* u32, RC/UC only */
	RDMA_NLDEV_ATTR_RES_RQ_PSN = 23,		/* u32, RC/UC only */
	RDMA_NLDEV_ATTR_RES_SQ_PSN = 24,		/* u32 */
	RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE = 25,	/* u8 */
	RDMA_NLDEV_ATTR_RES_TYPE = 26,			/* u8, public QP types */
	RDMA_NLDEV_ATTR_RES_STATE = 27,			/* u8 */
	/* Owner: a PID for user objects, a name for kernel ones */
	RDMA_NLDEV_ATTR_RES_PID = 28,			/* u32 */
	RDMA_NLDEV_ATTR_RES_KERN_NAME = 29,		/* string */

	/* Resource tracking: rdma_cm IDs */
	RDMA_NLDEV_ATTR_RES_CM_ID = 30,			/* nested */
	RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY = 31,		/* nested */
	RDMA_NLDEV_ATTR_RES_PS = 32,			/* u32, port space */
	RDMA_NLDEV_ATTR_RES_SRC_ADDR = 33,	/* __kernel_sockaddr_storage */
	RDMA_NLDEV_ATTR_RES_DST_ADDR = 34,	/* __kernel_sockaddr_storage */

	/* Resource tracking: completion queues */
	RDMA_NLDEV_ATTR_RES_CQ = 35,			/* nested */
	RDMA_NLDEV_ATTR_RES_CQ_ENTRY = 36,		/* nested */
	RDMA_NLDEV_ATTR_RES_CQE = 37,			/* u32 */
	RDMA_NLDEV_ATTR_RES_USECNT = 38,		/* u64 */
	RDMA_NLDEV_ATTR_RES_POLL_CTX = 39,		/* u8 */

	/* Resource tracking: memory regions */
	RDMA_NLDEV_ATTR_RES_MR = 40,			/* nested */
	RDMA_NLDEV_ATTR_RES_MR_ENTRY = 41,		/* nested */
	RDMA_NLDEV_ATTR_RES_RKEY = 42,			/* u32 */
	RDMA_NLDEV_ATTR_RES_LKEY = 43,			/* u32 */
	RDMA_NLDEV_ATTR_RES_IOVA = 44,			/* u64 */
	RDMA_NLDEV_ATTR_RES_MRLEN = 45,			/* u64 */

	/* Resource tracking: protection domains */
	RDMA_NLDEV_ATTR_RES_PD = 46,			/* nested */
	RDMA_NLDEV_ATTR_RES_PD_ENTRY = 47,		/* nested */
	RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY = 48,	/* u32 */
	RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY = 49,	/* u32 */

	/* Net device bound to a port (RoCE, iWARP) */
	RDMA_NLDEV_ATTR_NDEV_INDEX = 50,		/* u32 */
	RDMA_NLDEV_ATTR_NDEV_NAME = 51,			/* string */

	/* Driver-specific attributes */
	RDMA_NLDEV_ATTR_DRIVER = 52,			/* nested */
	RDMA_NLDEV_ATTR_DRIVER_ENTRY = 53,		/* nested */
	RDMA_NLDEV_ATTR_DRIVER_STRING = 54,		/* string */
	RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE = 55,	/* u8, rdma_nldev_print_type */
	RDMA_NLDEV_ATTR_DRIVER_S32 = 56,		/* s32 */
	RDMA_NLDEV_ATTR_DRIVER_U32 = 57,		/* u32 */
	RDMA_NLDEV_ATTR_DRIVER_S64 = 58,		/* s64 */
	RDMA_NLDEV_ATTR_DRIVER_U64 = 59,		/* u64 */

	/* Object numbers selecting one entry (QPs use RES_LQPN) */
	RDMA_NLDEV_ATTR_RES_PDN = 60,			/* u32 */
	RDMA_NLDEV_ATTR_RES_CQN = 61,			/* u32 */
	RDMA_NLDEV_ATTR_RES_MRN = 62,			/* u32 */
	RDMA_NLDEV_ATTR_RES_CM_IDN = 63,		/* u32 */
	RDMA_NLDEV_ATTR_RES_CTXN = 64,			/* u32 */

	/* Link type for NEWLINK, i.e. the driver ("rxe", "siw") */
	RDMA_NLDEV_ATTR_LINK_TYPE = 65,			/* string */
	/* Net namespace mode: shared (1) or exclusive (0) */
	RDMA_NLDEV_SYS_ATTR_NETNS_MODE = 66,		/* u8 */
	/* Protocol: "ib", "iw", "roce", "usnic" or "opa" */
	RDMA_NLDEV_ATTR_DEV_PROTOCOL = 67,		/* string */
	/* Net namespace file descriptor, to move a device */
	RDMA_NLDEV_NET_NS_FD = 68,			/* u32 */

	/*
	 * Character device of a client: TYPE is its ABI name ("uverbs",
	 * "umad", ...), NAME the node under /dev, ABI its ABI version, and
	 * CHARDEV the dev_t.
	 */
	RDMA_NLDEV_ATTR_CHARDEV_TYPE = 69,		/* string */
	RDMA_NLDEV_ATTR_CHARDEV_NAME = 70,		/* string */
	RDMA_NLDEV_ATTR_CHARDEV_ABI = 71,		/* u64 */
	RDMA_NLDEV_ATTR_CHARDEV = 72,			/* u64 */
	RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID = 73,	/* u64, enum rdma_driver_id */

	/* Statistic counters */
	RDMA_NLDEV_ATTR_STAT_MODE = 74,			/* u32 */
	RDMA_NLDEV_ATTR_STAT_RES = 75,			/* u32 */
	RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK = 76,	/* u32 */
	RDMA_NLDEV_ATTR_STAT_COUNTER = 77,		/* nested */
	RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY = 78,	/* nested */
	RDMA_NLDEV_ATTR_STAT_COUNTER_ID = 79,		/* u32 */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTERS = 80,		/* nested */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY = 81,	/* nested */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME = 82,	/* string */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE = 83, /* u64 */

	/* Adaptive CQ moderation (DIM) on or off */
	RDMA_NLDEV_ATTR_DEV_DIM = 84,			/* u8 */

	/* Raw driver dump of an object */
	RDMA_NLDEV_ATTR_RES_RAW = 85,			/* binary */

	/* Resource tracking: user contexts and shared receive queues */
	RDMA_NLDEV_ATTR_RES_CTX = 86,			/* nested */
	RDMA_NLDEV_ATTR_RES_CTX_ENTRY = 87,		/* nested */
	RDMA_NLDEV_ATTR_RES_SRQ = 88,			/* nested */
	RDMA_NLDEV_ATTR_RES_SRQ_ENTRY = 89,		/* nested */
	RDMA_NLDEV_ATTR_RES_SRQN = 90,			/* u32 */

	/* Range of object numbers (e.g. QPNs attached to an SRQ) */
	RDMA_NLDEV_ATTR_MIN_RANGE = 91,			/* u32 */
	RDMA_NLDEV_ATTR_MAX_RANGE = 92,			/* u32 */

	RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK = 93,		/* u8 */

	/* Optional (dynamically enabled) hardware counters */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX = 94,	/* u32 */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC = 95,	/* u8 */

	RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE = 96,	/* u8 */
	/* Ask for driver-specific details in resource dumps */
	RDMA_NLDEV_ATTR_DRIVER_DETAILS = 97,		/* u8 */
	/* Driver QP subtype name */
	RDMA_NLDEV_ATTR_RES_SUBTYPE = 98,		/* string */

	RDMA_NLDEV_ATTR_MAX = 99			/* always last */
};

/* Counter binding modes (RDMA_NLDEV_ATTR_STAT_MODE), mutually exclusive */
enum rdma_nl_counter_mode {
	RDMA_COUNTER_MODE_NONE = 0,
	/* QPs get a counter by the criteria of rdma_nl_counter_mask */
	RDMA_COUNTER_MODE_AUTO = 1,
	/* the user binds each QP to a counter */
	RDMA_COUNTER_MODE_MANUAL = 2,
	RDMA_COUNTER_MODE_MAX = 3		/* always last */
};

/* Criteria of RDMA_COUNTER_MODE_AUTO (RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK) */
enum rdma_nl_counter_mask {
	RDMA_COUNTER_MASK_QP_TYPE = 1 << 0,
	RDMA_COUNTER_MASK_PID = 1 << 1
};

#endif /* _UAPI_RDMA_NETLINK_H */
