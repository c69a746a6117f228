/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RDMA connection manager (rdma_cm.ko): connections named by IP
 * addresses and ports, as sockets name them, made over the IB CM, the SA
 * client and IPoIB's neighbours.  Kernel users (SDP, iSER, NFS/RDMA) call
 * this API directly; rdma_ucm.ko offers it to processes through
 * /dev/infiniband/rdma_cm.  The functions are documented where they are
 * defined, in core/cma*.c.
 */
#ifndef RDMA_CM_H
#define RDMA_CM_H

#include <linux/socket.h>
#include <linux/in6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_cm.h>

/* What happened to an id; the values are rdma_ucm's ABI. */
enum rdma_cm_event_type {
	RDMA_CM_EVENT_ADDR_RESOLVED,
	RDMA_CM_EVENT_ADDR_ERROR,
	RDMA_CM_EVENT_ROUTE_RESOLVED,
	RDMA_CM_EVENT_ROUTE_ERROR,
	RDMA_CM_EVENT_CONNECT_REQUEST,
	RDMA_CM_EVENT_CONNECT_RESPONSE,
	RDMA_CM_EVENT_CONNECT_ERROR,
	RDMA_CM_EVENT_UNREACHABLE,
	RDMA_CM_EVENT_REJECTED,
	RDMA_CM_EVENT_ESTABLISHED,
	RDMA_CM_EVENT_DISCONNECTED,
	RDMA_CM_EVENT_DEVICE_REMOVAL,
	RDMA_CM_EVENT_MULTICAST_JOIN,
	RDMA_CM_EVENT_MULTICAST_ERROR,
	RDMA_CM_EVENT_ADDR_CHANGE,
	RDMA_CM_EVENT_TIMEWAIT_EXIT
};

const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event);

/*
 * AF_IB service IDs of the IP port spaces: the port space in bits 16..31
 * and the port in bits 0..15 (IBTA Annex A11).
 */
#define RDMA_IB_IP_PS_MASK	0xFFFFFFFFFFFF0000ULL
#define RDMA_IB_IP_PS_TCP	0x0000000001060000ULL
#define RDMA_IB_IP_PS_UDP	0x0000000001110000ULL
#define RDMA_IB_IP_PS_IB	0x00000000013F0000ULL

/*
 * SDP's port space (IBTA Annex A4), for kernel consumers only: the uapi
 * enum does not name it and rdma_ucm never creates such ids.  Its service
 * IDs are 0x10000 + port.  The private data of an SDP REQ is SDP's Hello
 * message itself (RDMA_SDP_HELLO_SIZE bytes at least), whose IP version,
 * port and addresses the CM writes on connect and reads on a request,
 * instead of the addressing header of the other port spaces.
 */
#define RDMA_PS_SDP		((enum rdma_ucm_port_space)0x0001)
#define RDMA_SDP_HELLO_SIZE	76

/* The Q_Key of UD ids of the UDP port space, and of their groups. */
#define RDMA_UDP_QKEY		0x01234567

/**
 * struct rdma_addr - the two ends of an id
 * @src_addr: the local address (AF_INET, AF_INET6 or AF_IB)
 * @dst_addr: the remote address
 * @dev_addr: their link-level side
 */
struct rdma_addr {
	struct sockaddr_storage src_addr;
	struct sockaddr_storage dst_addr;
	struct rdma_dev_addr dev_addr;
};

/**
 * struct rdma_route - how an id reaches its peer
 * @addr: the addresses
 * @path_rec: the path records, @num_pri_alt_paths of them (primary, then
 *	alternate)
 * @num_pri_alt_paths: 0 (no route yet), 1 or 2
 */
struct rdma_route {
	struct rdma_addr addr;
	struct sa_path_rec *path_rec;
	int num_pri_alt_paths;
};

/**
 * struct rdma_conn_param - what a connection asks for or agrees to
 * @private_data: the consumer's bytes for the peer
 * @private_data_len: their length
 * @responder_resources: RDMA READ and atomic requests the local QP takes
 *	from the peer at a time
 * @initiator_depth: those the local QP sends to the peer at a time
 * @flow_control: end-to-end flow control
 * @retry_count: transport retries; ignored when accepting
 * @rnr_retry_count: RNR NAK retries
 * @srq: the QP has an SRQ; with @qp_num, only when the id has no QP
 * @qp_num: the QP's number, when the id has no QP (rdma_ucm's users)
 * @qkey: the Q_Key, for UD
 */
struct rdma_conn_param {
	const void *private_data;
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 srq;
	u32 qp_num;
	u32 qkey;
};

/**
 * struct rdma_ud_param - how to reach a UD peer or a multicast group
 * @private_data: the peer's bytes
 * @private_data_len: their length
 * @ah_attr: the address handle attributes
 * @qp_num: the remote QP number (0xffffff for a group)
 * @qkey: the Q_Key
 */
struct rdma_ud_param {
	const void *private_data;
	u8 private_data_len;
	struct rdma_ah_attr ah_attr;
	u32 qp_num;
	u32 qkey;
};

/**
 * struct rdma_cm_event - an event of an id
 * @event: what happened
 * @status: 0, a negative errno, or for REJECTED the IB CM's reject reason
 * @param: connection (@param.conn) or UD (@param.ud) parameters of the
 *	peer, for the events that carry them
 * @ece: enhanced connection establishment options (always zero here)
 */
struct rdma_cm_event {
	enum rdma_cm_event_type event;
	int status;
	union {
		struct rdma_conn_param conn;
		struct rdma_ud_param ud;
	} param;
	struct rdma_ucm_ece ece;
};

struct rdma_cm_id;

/*
 * An id's events.  Called with the id's handler mutex held, in process
 * context; it may sleep.  It must not destroy the id it is called for
 * (nor the listener of a CONNECT_REQUEST): a non-zero return destroys it
 * instead, after the handler returns.
 */
typedef int (*rdma_cm_event_handler)(struct rdma_cm_id *id,
				     struct rdma_cm_event *event);

/**
 * struct rdma_cm_id - an RDMA CM identifier, a socket's counterpart
 * @device: the IB device it is bound to, NULL until it is
 * @context: the consumer's
 * @qp: the QP rdma_create_qp() made for it, or NULL
 * @event_handler: its events
 * @route: addresses and path
 * @ps: its port space
 * @qp_type: IB_QPT_RC, IB_QPT_UC or IB_QPT_UD
 * @port_num: the port of @device, once bound
 */
struct rdma_cm_id {
	struct ib_device *device;
	void *context;
	struct ib_qp *qp;
	rdma_cm_event_handler event_handler;
	struct rdma_route route;
	enum rdma_ucm_port_space ps;
	enum ib_qp_type qp_type;
	u32 port_num;
};

struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller);
struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type);

/* An id of the calling module, in namespace @net (which it references). */
#define rdma_create_id(net, event_handler, context, ps, qp_type)	\
	__rdma_create_kernel_id(net, event_handler, context, ps, qp_type, \
				KBUILD_MODNAME)

void rdma_destroy_id(struct rdma_cm_id *id);
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr,
		      unsigned long timeout_ms);
int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms);
int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr);
void rdma_destroy_qp(struct rdma_cm_id *id);
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask);
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param);
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece);
int rdma_listen(struct rdma_cm_id *id, int backlog);
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece);
void rdma_lock_handler(struct rdma_cm_id *id);
void rdma_unlock_handler(struct rdma_cm_id *id);
int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event);
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason);
int rdma_disconnect(struct rdma_cm_id *id);
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context);
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr);
void rdma_set_service_type(struct rdma_cm_id *id, int tos);
int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse);
int rdma_set_afonly(struct rdma_cm_id *id, int afonly);
int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout);
int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer);
__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr);
const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason);
bool rdma_is_consumer_reject(struct rdma_cm_id *id, int reason);
const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len);
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec);
void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid);
struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res);

#endif /* RDMA_CM_H */
