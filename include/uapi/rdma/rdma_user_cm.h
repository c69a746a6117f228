/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * The write() command ABI of /dev/infiniband/rdma_cm (rdma_ucm, librdmacm).
 *
 * A command is one write() of a struct rdma_ucm_cmd_hdr followed by the
 * command's struct; a command with a response names the user buffer for it
 * in its "response" field.  Connection events are fetched with
 * RDMA_USER_CM_CMD_GET_EVENT.
 *
 * Everything here is ABI and equal to Linux 6.1; layouts are the same for
 * 32-bit and 64-bit callers.
 */
#ifndef RDMA_USER_CM_H
#define RDMA_USER_CM_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/in6.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_sa.h>

/* Reported in /sys/class/misc/rdma_cm/abi_version */
#define RDMA_USER_CM_ABI_VERSION	4

/* Largest private data a CM message can carry here */
#define RDMA_MAX_PRIVATE_DATA		256

/* Command numbers (rdma_ucm_cmd_hdr.cmd) */
enum {
	RDMA_USER_CM_CMD_CREATE_ID = 0,
	RDMA_USER_CM_CMD_DESTROY_ID = 1,
	RDMA_USER_CM_CMD_BIND_IP = 2,
	RDMA_USER_CM_CMD_RESOLVE_IP = 3,
	RDMA_USER_CM_CMD_RESOLVE_ROUTE = 4,
	RDMA_USER_CM_CMD_QUERY_ROUTE = 5,
	RDMA_USER_CM_CMD_CONNECT = 6,
	RDMA_USER_CM_CMD_LISTEN = 7,
	RDMA_USER_CM_CMD_ACCEPT = 8,
	RDMA_USER_CM_CMD_REJECT = 9,
	RDMA_USER_CM_CMD_DISCONNECT = 10,
	RDMA_USER_CM_CMD_INIT_QP_ATTR = 11,
	RDMA_USER_CM_CMD_GET_EVENT = 12,
	RDMA_USER_CM_CMD_GET_OPTION = 13,
	RDMA_USER_CM_CMD_SET_OPTION = 14,
	RDMA_USER_CM_CMD_NOTIFY = 15,
	RDMA_USER_CM_CMD_JOIN_IP_MCAST = 16,
	RDMA_USER_CM_CMD_LEAVE_MCAST = 17,
	RDMA_USER_CM_CMD_MIGRATE_ID = 18,
	RDMA_USER_CM_CMD_QUERY = 19,
	RDMA_USER_CM_CMD_BIND = 20,
	RDMA_USER_CM_CMD_RESOLVE_ADDR = 21,
	RDMA_USER_CM_CMD_JOIN_MCAST = 22
};

/* Port spaces: bytes 4 and 5 of the IB service id (IBTA annex A11) */
enum rdma_ucm_port_space {
	RDMA_PS_IPOIB = 0x0002,
	RDMA_PS_IB    = 0x013F,
	RDMA_PS_TCP   = 0x0106,
	RDMA_PS_UDP   = 0x0111,
};

/* Starts every write(); in: bytes of command after it, out: response */
struct rdma_ucm_cmd_hdr {
	__u32 cmd;
	__u16 in;
	__u16 out;
};

/* CREATE_ID, DESTROY_ID, MIGRATE_ID */

struct rdma_ucm_create_id {
	__aligned_u64 uid;		/* returned in this id's events */
	__aligned_u64 response;
	__u16 ps;			/* enum rdma_ucm_port_space */
	__u8  qp_type;
	__u8  reserved[5];
};

struct rdma_ucm_create_id_resp {
	__u32 id;
};

struct rdma_ucm_destroy_id {
	__aligned_u64 response;
	__u32 id;
	__u32 reserved;
};

/* Events delivered for the id so far */
struct rdma_ucm_destroy_id_resp {
	__u32 events_reported;
};

/* Move an id to the rdma_cm file open as fd */
struct rdma_ucm_migrate_id {
	__aligned_u64 response;
	__u32 id;
	__u32 fd;
};

struct rdma_ucm_migrate_resp {
	__u32 events_reported;
};

/* BIND_IP, BIND, RESOLVE_IP, RESOLVE_ADDR, RESOLVE_ROUTE */

struct rdma_ucm_bind_ip {
	__aligned_u64 response;
	struct sockaddr_in6 addr;
	__u32 id;
};

/* Any address family; addr_size bytes of addr are used */
struct rdma_ucm_bind {
	__u32 id;
	__u16 addr_size;
	__u16 reserved;
	struct __kernel_sockaddr_storage addr;
};

struct rdma_ucm_resolve_ip {
	struct sockaddr_in6 src_addr;
	struct sockaddr_in6 dst_addr;
	__u32 id;
	__u32 timeout_ms;
};

struct rdma_ucm_resolve_addr {
	__u32 id;
	__u32 timeout_ms;
	__u16 src_size;		/* 0: no source address */
	__u16 dst_size;
	__u32 reserved;
	struct __kernel_sockaddr_storage src_addr;
	struct __kernel_sockaddr_storage dst_addr;
};

struct rdma_ucm_resolve_route {
	__u32 id;
	__u32 timeout_ms;
};

/* QUERY_ROUTE and QUERY; rdma_ucm_query.option is one of these */
enum {
	RDMA_USER_CM_QUERY_ADDR = 0,
	RDMA_USER_CM_QUERY_PATH = 1,
	RDMA_USER_CM_QUERY_GID = 2
};

struct rdma_ucm_query {
	__aligned_u64 response;
	__u32 id;
	__u32 option;
};

struct rdma_ucm_query_route_resp {
	__aligned_u64 node_guid;
	struct ib_user_path_rec ib_route[2];	/* primary, alternate */
	struct sockaddr_in6 src_addr;
	struct sockaddr_in6 dst_addr;
	__u32 num_paths;
	__u8 port_num;
	__u8 reserved[3];
	__u32 ibdev_index;
	__u32 reserved1;
};

struct rdma_ucm_query_addr_resp {
	__aligned_u64 node_guid;
	__u8  port_num;
	__u8  reserved;
	__u16 pkey;
	__u16 src_size;
	__u16 dst_size;
	struct __kernel_sockaddr_storage src_addr;
	struct __kernel_sockaddr_storage dst_addr;
	__u32 ibdev_index;
	__u32 reserved1;
};

struct rdma_ucm_query_path_resp {
	__u32 num_paths;
	__u32 reserved;
	struct ib_path_rec_data path_data[];
};

/* CONNECT, LISTEN, ACCEPT, REJECT, DISCONNECT */

struct rdma_ucm_conn_param {
	__u32 qp_num;
	__u32 qkey;
	__u8  private_data[RDMA_MAX_PRIVATE_DATA];
	__u8  private_data_len;
	__u8  srq;
	__u8  responder_resources;
	__u8  initiator_depth;
	__u8  flow_control;
	__u8  retry_count;
	__u8  rnr_retry_count;
	__u8  valid;
};

struct rdma_ucm_ud_param {
	__u32 qp_num;
	__u32 qkey;
	struct ib_uverbs_ah_attr ah_attr;
	__u8  private_data[RDMA_MAX_PRIVATE_DATA];
	__u8  private_data_len;
	__u8  reserved[7];
};

/* Enhanced connection establishment options */
struct rdma_ucm_ece {
	__u32 vendor_id;
	__u32 attr_mod;
};

struct rdma_ucm_connect {
	struct rdma_ucm_conn_param conn_param;
	__u32 id;
	__u32 reserved;
	struct rdma_ucm_ece ece;
};

struct rdma_ucm_listen {
	__u32 id;
	__u32 backlog;
};

struct rdma_ucm_accept {
	__aligned_u64 uid;
	struct rdma_ucm_conn_param conn_param;
	__u32 id;
	__u32 reserved;
	struct rdma_ucm_ece ece;
};

struct rdma_ucm_reject {
	__u32 id;
	__u8  private_data_len;
	__u8  reason;
	__u8  reserved[2];
	__u8  private_data[RDMA_MAX_PRIVATE_DATA];
};

struct rdma_ucm_disconnect {
	__u32 id;
};

/* INIT_QP_ATTR (response: struct ib_uverbs_qp_attr), NOTIFY */

struct rdma_ucm_init_qp_attr {
	__aligned_u64 response;
	__u32 id;
	__u32 qp_state;
};

struct rdma_ucm_notify {
	__u32 id;
	__u32 event;
};

/* JOIN_IP_MCAST, JOIN_MCAST; both respond with rdma_ucm_create_id_resp */

struct rdma_ucm_join_ip_mcast {
	__aligned_u64 response;
	__aligned_u64 uid;
	struct sockaddr_in6 addr;
	__u32 id;
};

/* rdma_ucm_join_mcast.join_flags: the kind of membership */
enum {
	RDMA_MC_JOIN_FLAG_FULLMEMBER = 0,
	RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER = 1,
	RDMA_MC_JOIN_FLAG_RESERVED = 2,
};

struct rdma_ucm_join_mcast {
	__aligned_u64 response;
	__aligned_u64 uid;
	__u32 id;
	__u16 addr_size;
	__u16 join_flags;
	struct __kernel_sockaddr_storage addr;
};

/* GET_EVENT */

struct rdma_ucm_get_event {
	__aligned_u64 response;
};

struct rdma_ucm_event_resp {
	__aligned_u64 uid;
	__u32 id;
	__u32 event;
	__u32 status;
	/*
	 * param starts at offset 20, so nothing in it may need more than
	 * 4-byte alignment.
	 */
	union {
		struct rdma_ucm_conn_param conn;
		struct rdma_ucm_ud_param   ud;
	} param;
	__u32 reserved;
	struct rdma_ucm_ece ece;
};

/* GET_OPTION, SET_OPTION: levels, then the options of each level */
enum {
	RDMA_OPTION_ID		= 0,
	RDMA_OPTION_IB		= 1
};

enum {
	RDMA_OPTION_ID_TOS	 = 0,
	RDMA_OPTION_ID_REUSEADDR = 1,
	RDMA_OPTION_ID_AFONLY	 = 2,
	RDMA_OPTION_ID_ACK_TIMEOUT = 3
};

enum {
	RDMA_OPTION_IB_PATH	 = 1	/* struct ib_path_rec_data array */
};

struct rdma_ucm_set_option {
	__aligned_u64 optval;	/* user address of the value */
	__u32 id;
	__u32 level;
	__u32 optname;
	__u32 optlen;
};

#endif /* RDMA_USER_CM_H */
