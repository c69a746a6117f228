/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private to rdma_cm.ko (core/cma*.c), and read by nldev for "rdma res
 * show cm_id": the private side of an RDMA CM id, the devices the CM
 * knows, the port spaces.
 *
 * Locking, from the outside in:
 *   - handler_mutex of an id serialises its event handler calls with each
 *     other and with the calls that change what the handler is told
 *     (rdma_destroy_id() takes it to stop events);
 *   - cma_lock (a mutex, cma.c) protects the device list, each device's
 *     list of ids, the list of wildcard listeners and the port spaces;
 *   - lock of an id (a spinlock) protects its state and its multicast
 *     list;
 *   - qp_mutex of an id protects id.qp.
 * An id is referenced by whoever may still touch it from a callback (an
 * address or route query, an IB CM id, a work item); rdma_destroy_id()
 * drops the creator's reference and waits for the others.
 */
#ifndef CMA_PRIV_H
#define CMA_PRIV_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

/* The states of an id; the values are what "rdma res show cm_id" reads. */
enum rdma_cm_state {
	RDMA_CM_IDLE,
	RDMA_CM_ADDR_QUERY,
	RDMA_CM_ADDR_RESOLVED,
	RDMA_CM_ROUTE_QUERY,
	RDMA_CM_ROUTE_RESOLVED,
	RDMA_CM_CONNECT,
	RDMA_CM_DISCONNECT,
	RDMA_CM_ADDR_BOUND,
	RDMA_CM_LISTEN,
	RDMA_CM_DEVICE_REMOVAL,
	RDMA_CM_DESTROYING
};

/**
 * struct cma_device - an IB device the CM knows
 * @list: in the CM's device list
 * @device: the device
 * @refcount: one for the device list, one per id bound to it
 * @comp: completed when the last reference goes
 * @id_list: the ids bound to it, by their device_item
 * @removing: the device is going: no id may bind to it any more
 */
struct cma_device {
	struct list_head list;
	struct ib_device *device;
	refcount_t refcount;
	struct completion comp;
	struct list_head id_list;
	bool removing;
};

/**
 * struct rdma_bind_list - the ids bound to one port of a port space
 * @ps: the port space
 * @owners: the ids, by their node
 * @port: the port, host order
 */
struct rdma_bind_list {
	enum rdma_ucm_port_space ps;
	struct hlist_head owners;
	unsigned short port;
};

/**
 * struct rdma_id_private - an RDMA CM id, private side
 * @id: the public side
 * @bind_list: the port it is bound to, or NULL
 * @node: in @bind_list's owners
 * @device_item: in its cma_device's id_list, while bound to one
 * @listen_any_item: in the list of wildcard listeners
 * @listen_list: a wildcard listener's internal listeners, one per device
 * @listen_item: an internal listener's place in its parent's @listen_list
 * @parent: an internal listener's wildcard listener
 * @cma_dev: the device it is bound to, or NULL
 * @mc_list: its multicast groups (struct cma_multicast)
 * @internal_id: an internal listener, no consumer of its own
 * @state: where it is (enum rdma_cm_state)
 * @lock: protects @state and @mc_list
 * @qp_mutex: protects id.qp
 * @comp: completed when the last reference goes
 * @refcount: references
 * @handler_mutex: serialises the event handler
 * @backlog: the listen backlog, for rdma_ucm
 * @timeout_ms: the route query's timeout
 * @query: the route query under way, or NULL
 * @query_id: its id, for ib_sa_cancel_query()
 * @cm_id: the IB CM id, or NULL
 * @seq_num: the starting PSN of its QP
 * @qkey: the Q_Key (UD, multicast)
 * @qp_num: the QP number the consumer gave (ids without @id.qp)
 * @srq: the consumer's QP has an SRQ
 * @tos: the type of service asked for (only recorded on InfiniBand)
 * @tos_set: @tos was set
 * @reuseaddr: the port may be shared (SO_REUSEADDR)
 * @afonly: an IPv6 wildcard does not take IPv4 (IPV6_V6ONLY)
 * @timeout: the local ACK timeout for the QP
 * @timeout_set: @timeout was set
 * @min_rnr_timer: the minimum RNR NAK timer for the QP
 * @min_rnr_timer_set: @min_rnr_timer was set
 * @res: its entry in the device's resource tracking
 * @ece: enhanced connection establishment options
 * @net: its network namespace, referenced
 */
struct rdma_id_private {
	struct rdma_cm_id	id;
	struct rdma_bind_list	*bind_list;
	struct hlist_node	node;
	struct list_head	device_item;
	struct list_head	listen_any_item;
	struct list_head	listen_list;
	struct list_head	listen_item;
	struct rdma_id_private	*parent;
	struct cma_device	*cma_dev;
	struct list_head	mc_list;
	bool			internal_id;
	enum rdma_cm_state	state;
	spinlock_t		lock;		/* state, mc_list */
	struct mutex		qp_mutex;	/* id.qp */
	struct completion	comp;
	refcount_t		refcount;
	struct mutex		handler_mutex;	/* event handler calls */
	int			backlog;
	int			timeout_ms;
	struct ib_sa_query	*query;
	int			query_id;
	struct ib_cm_id		*cm_id;
	u32			seq_num;
	u32			qkey;
	u32			qp_num;
	u8			srq;
	u8			tos;
	bool			tos_set;
	u8			reuseaddr;
	u8			afonly;
	u8			timeout;
	bool			timeout_set;
	u8			min_rnr_timer;
	bool			min_rnr_timer_set;
	struct rdma_restrack_entry res;
	struct rdma_ucm_ece	ece;
	struct net		*net;
};

/**
 * struct cma_multicast - a multicast group an id joined
 * @id_priv: the id
 * @sa_mc: the SA membership
 * @list: in the id's mc_list
 * @context: the consumer's
 * @addr: the group's address
 * @join_state: FullMember, NonMember, SendOnlyNonMember (a bit each)
 */
struct cma_multicast {
	struct rdma_id_private	*id_priv;
	struct ib_sa_multicast	*sa_mc;
	struct list_head	list;
	void			*context;
	struct sockaddr_storage	addr;
	u8			join_state;
};

static inline struct rdma_id_private *to_id_priv(struct rdma_cm_id *id)
{
	return container_of(id, struct rdma_id_private, id);
}

static inline struct sockaddr *cma_src_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.src_addr;
}

static inline struct sockaddr *cma_dst_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.dst_addr;
}

static inline sa_family_t cma_family(struct rdma_id_private *id_priv)
{
	return id_priv->id.route.addr.src_addr.ss_family;
}

/* cma.c */
extern struct ib_sa_client cma_sa_client;
extern struct workqueue_struct *cma_wq;
void cma_id_get(struct rdma_id_private *id_priv);
void cma_id_put(struct rdma_id_private *id_priv);
enum rdma_cm_state cma_state(struct rdma_id_private *id_priv);
bool cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state comp,
		   enum rdma_cm_state exch);
int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *event);
void cma_destroy_from_handler(struct rdma_id_private *id_priv);
struct rdma_id_private *cma_new_id(struct net *net,
				   rdma_cm_event_handler handler,
				   void *context, enum rdma_ucm_port_space ps,
				   enum ib_qp_type qp_type,
				   struct rdma_id_private *parent);
int cma_attach_dev(struct rdma_id_private *id_priv, struct cma_device *cma_dev);
bool cma_any_addr(const struct sockaddr *addr);
bool cma_loopback_addr(const struct sockaddr *addr);
__be16 cma_port(const struct sockaddr *addr);
int cma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b);
struct rdma_id_private *cma_find_listener(struct net *net,
					  enum rdma_ucm_port_space ps,
					  u16 port,
					  const struct sockaddr *dst,
					  struct ib_device *device, u32 port_num);

/* cma_ib.c */
int cma_ib_listen(struct rdma_id_private *id_priv);
int cma_set_qkey(struct rdma_id_private *id_priv, u32 qkey);

/* cma_mcast.c */
void cma_mcast_leave_all(struct rdma_id_private *id_priv);

#endif /* CMA_PRIV_H */
