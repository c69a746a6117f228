// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA CM (rdma_cm.ko): ids, their states and events, the devices they
 * bind to, the port spaces, and the steps before a connection: binding,
 * address resolution (core/addr.c, IPoIB's neighbours) and route
 * resolution (an SA PathRecord).  The IB CM side (connections, SIDR,
 * listening on a device, QP attributes) is cma_ib.c; multicast is
 * cma_mcast.c.
 *
 * An id lives in one network namespace.  Its port is taken in one of the
 * port spaces of that namespace (TCP, UDP, IPoIB, IB), as a socket's is:
 * an explicit port must not clash with another id's address unless both
 * set reuseaddr and neither listens; port 0 picks a free one from the
 * namespace's local port range.  An id bound to a specific address is
 * bound to the device and port of the IPoIB interface that holds it; a
 * wildcard listener has an internal listener on every device, made when
 * it listens and when a device comes.
 *
 * An active-backup bond of IPoIB interfaces that fails over tells the
 * ids bound to it RDMA_CM_EVENT_ADDR_CHANGE, as upstream does.
 *
 * Events reach the consumer through its handler with the id's
 * handler_mutex held.  Those the CM makes itself (an address that needs
 * no lookup) go through a work item on cma_wq.  A non-zero return from
 * the handler destroys the id.
 *
 * Locking: see cma_priv.h.  cma_lock is taken before an id's lock; an
 * id's handler_mutex before cma_lock.
 */
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <rdma/ib.h>

#include "cma_priv.h"

MODULE_AUTHOR("The rdma-stack developers");
MODULE_DESCRIPTION("RDMA connection manager");
MODULE_LICENSE("Dual BSD/GPL");

static struct ib_client cma_client;

static DEFINE_MUTEX(cma_lock);	/* see cma_priv.h */
static LIST_HEAD(cma_devices);	/* struct cma_device, by list */
static LIST_HEAD(listen_any_list);	/* wildcard listeners */

struct ib_sa_client cma_sa_client;
struct workqueue_struct *cma_wq;

/* The port spaces of a network namespace: port -> struct rdma_bind_list. */
struct cma_pernet {
	struct xarray tcp_ps;
	struct xarray udp_ps;
	struct xarray ipoib_ps;
	struct xarray ib_ps;
	struct xarray sdp_ps;
};

static unsigned int cma_pernet_id;

static const char * const cma_events[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED]	= "address resolved",
	[RDMA_CM_EVENT_ADDR_ERROR]	= "address error",
	[RDMA_CM_EVENT_ROUTE_RESOLVED]	= "route resolved",
	[RDMA_CM_EVENT_ROUTE_ERROR]	= "route error",
	[RDMA_CM_EVENT_CONNECT_REQUEST]	= "connect request",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "connect response",
	[RDMA_CM_EVENT_CONNECT_ERROR]	= "connect error",
	[RDMA_CM_EVENT_UNREACHABLE]	= "unreachable",
	[RDMA_CM_EVENT_REJECTED]	= "rejected",
	[RDMA_CM_EVENT_ESTABLISHED]	= "established",
	[RDMA_CM_EVENT_DISCONNECTED]	= "disconnected",
	[RDMA_CM_EVENT_DEVICE_REMOVAL]	= "device removal",
	[RDMA_CM_EVENT_MULTICAST_JOIN]	= "multicast join",
	[RDMA_CM_EVENT_MULTICAST_ERROR]	= "multicast error",
	[RDMA_CM_EVENT_ADDR_CHANGE]	= "address change",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT]	= "timewait exit",
};

/**
 * rdma_event_msg() - an event's name, for messages
 * @event: the event
 *
 * Return: a constant string; "unrecognized event" for an unknown value.
 */
const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event)
{
	if ((unsigned int)event < ARRAY_SIZE(cma_events) && cma_events[event])
		return cma_events[event];
	return "unrecognized event";
}
EXPORT_SYMBOL(rdma_event_msg);

/* ------------------------------------------------------------------ */
/* Ids: references, states, events                                    */
/* ------------------------------------------------------------------ */

void cma_id_get(struct rdma_id_private *id_priv)
{
	refcount_inc(&id_priv->refcount);
}

void cma_id_put(struct rdma_id_private *id_priv)
{
	if (refcount_dec_and_test(&id_priv->refcount))
		complete(&id_priv->comp);
}

enum rdma_cm_state cma_state(struct rdma_id_private *id_priv)
{
	unsigned long flags;
	enum rdma_cm_state state;

	spin_lock_irqsave(&id_priv->lock, flags);
	state = id_priv->state;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return state;
}

/* Move from @comp to @exch; false (and no move) if not in @comp. */
bool cma_comp_exch(struct rdma_id_private *id_priv, enum rdma_cm_state comp,
		   enum rdma_cm_state exch)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&id_priv->lock, flags);
	ret = id_priv->state == comp;
	if (ret)
		id_priv->state = exch;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}

/**
 * cma_deliver() - tell the consumer of an id about an event
 * @id_priv: the id; its handler_mutex held
 * @event: the event
 *
 * Return: the handler's answer: non-zero means the id is to be destroyed
 * (cma_destroy_from_handler()).
 */
int cma_deliver(struct rdma_id_private *id_priv, struct rdma_cm_event *event)
{
	lockdep_assert_held(&id_priv->handler_mutex);
	return id_priv->id.event_handler(&id_priv->id, event);
}

static void cma_destroy_locked(struct rdma_id_private *id_priv);

/**
 * cma_destroy_from_handler() - destroy an id whose handler asked for it
 * @id_priv: the id; its handler_mutex held, and released here
 */
void cma_destroy_from_handler(struct rdma_id_private *id_priv)
{
	cma_destroy_locked(id_priv);
}

/*
 * An event the CM makes itself, delivered from cma_wq: if the id is still
 * in @old_state (and moved to @new_state), or, with @any_state, in any
 * state but DESTROYING and DEVICE_REMOVAL (and left there).
 */
struct cma_work {
	struct work_struct work;
	struct rdma_id_private *id;
	enum rdma_cm_state old_state;
	enum rdma_cm_state new_state;
	bool any_state;
	struct rdma_cm_event event;
};

static void cma_work_handler(struct work_struct *_work)
{
	struct cma_work *work = container_of(_work, struct cma_work, work);
	struct rdma_id_private *id_priv = work->id;
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	if (work->any_state) {
		state = cma_state(id_priv);
		if (state == RDMA_CM_DESTROYING ||
		    state == RDMA_CM_DEVICE_REMOVAL) {
			mutex_unlock(&id_priv->handler_mutex);
			goto out;
		}
	} else if (!cma_comp_exch(id_priv, work->old_state, work->new_state) ||
		   cma_state(id_priv) == RDMA_CM_DESTROYING) {
		mutex_unlock(&id_priv->handler_mutex);
		goto out;
	}
	if (cma_deliver(id_priv, &work->event))
		cma_destroy_from_handler(id_priv);
	else
		mutex_unlock(&id_priv->handler_mutex);
out:
	cma_id_put(id_priv);
	kfree(work);
}

/* Queue @event for @id_priv, delivered if it is still in @old_state. */
static int cma_queue_event(struct rdma_id_private *id_priv,
			   enum rdma_cm_state old_state,
			   enum rdma_cm_state new_state,
			   enum rdma_cm_event_type event, int status)
{
	struct cma_work *work;

	work = kzalloc(sizeof(*work), GFP_KERNEL);
	if (!work)
		return -ENOMEM;
	INIT_WORK(&work->work, cma_work_handler);
	work->id = id_priv;
	work->old_state = old_state;
	work->new_state = new_state;
	work->event.event = event;
	work->event.status = status;
	cma_id_get(id_priv);
	queue_work(cma_wq, &work->work);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Addresses                                                           */
/* ------------------------------------------------------------------ */

bool cma_any_addr(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_zeronet(((const struct sockaddr_in *)addr)->
				       sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_any(&((const struct sockaddr_in6 *)addr)->
				     sin6_addr);
	case AF_IB:
		return ib_addr_any(&((const struct sockaddr_ib *)addr)->
				   sib_addr);
	default:
		return false;
	}
}

bool cma_loopback_addr(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_loopback(((const struct sockaddr_in *)addr)->
					sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_loopback(&((const struct sockaddr_in6 *)addr)->
					  sin6_addr);
	case AF_IB:
		return ib_addr_loopback(&((const struct sockaddr_ib *)addr)->
					sib_addr);
	default:
		return false;
	}
}

/* The port of an address, network order (AF_IB: its service ID's). */
__be16 cma_port(const struct sockaddr *addr)
{
	const struct sockaddr_ib *sib;

	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	case AF_IB:
		sib = (const struct sockaddr_ib *)addr;
		return htons((u16)(be64_to_cpu(sib->sib_sid) &
				   be64_to_cpu(sib->sib_sid_mask)));
	default:
		return 0;
	}
}

static void cma_set_port(struct sockaddr *addr, u16 port)
{
	struct sockaddr_ib *sib;
	u64 sid, mask;

	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_port = htons(port);
		break;
	case AF_INET6:
		((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
		break;
	case AF_IB:
		sib = (struct sockaddr_ib *)addr;
		sid = be64_to_cpu(sib->sib_sid);
		mask = be64_to_cpu(sib->sib_sid_mask);
		sib->sib_sid = cpu_to_be64((sid & mask) | (u64)port);
		sib->sib_sid_mask = cpu_to_be64(~0ULL);
		break;
	}
}

/* 0 if the two addresses (not their ports) are the same. */
int cma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return 1;
	switch (a->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr !=
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	case AF_INET6:
		return !ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->
					sin6_addr,
					&((const struct sockaddr_in6 *)b)->
					sin6_addr);
	case AF_IB:
		return memcmp(&((const struct sockaddr_ib *)a)->sib_addr,
			      &((const struct sockaddr_ib *)b)->sib_addr,
			      sizeof(struct ib_addr));
	default:
		return 1;
	}
}

/**
 * rdma_get_service_id() - the IB service ID of an address of an id
 * @id: the id, for its port space
 * @addr: the address
 *
 * Return: the AF_IB address's own service ID, or the port space in bits
 * 16..31 and the port in bits 0..15 (IBTA Annex A11).
 */
__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (addr->sa_family == AF_IB)
		return ((struct sockaddr_ib *)addr)->sib_sid;
	return cpu_to_be64(((u64)id->ps << 16) + be16_to_cpu(cma_port(addr)));
}
EXPORT_SYMBOL(rdma_get_service_id);

/**
 * rdma_read_gids() - the GIDs of both ends of an id
 * @cm_id: the id
 * @sgid: the local GID, or NULL
 * @dgid: the remote GID, or NULL
 */
void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_dev_addr *dev_addr = &cm_id->route.addr.dev_addr;

	if (sgid)
		rdma_addr_get_sgid(dev_addr, sgid);
	if (dgid)
		rdma_addr_get_dgid(dev_addr, dgid);
}
EXPORT_SYMBOL(rdma_read_gids);

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

static void cma_dev_put(struct cma_device *cma_dev)
{
	if (refcount_dec_and_test(&cma_dev->refcount))
		complete(&cma_dev->comp);
}

/* Bind an id to a device, cma_lock held. */
static void cma_attach_to_dev(struct rdma_id_private *id_priv,
			      struct cma_device *cma_dev)
{
	lockdep_assert_held(&cma_lock);
	refcount_inc(&cma_dev->refcount);
	id_priv->cma_dev = cma_dev;
	id_priv->id.device = cma_dev->device;
	list_add_tail(&id_priv->device_item, &cma_dev->id_list);
	rdma_restrack_add(cma_dev->device, &id_priv->res);
}

/**
 * cma_attach_dev() - bind an id to a device, unless it is going
 * @id_priv: the id, not bound yet
 * @cma_dev: the device
 *
 * Return: 0, or -ENODEV if the device is being removed.
 */
int cma_attach_dev(struct rdma_id_private *id_priv, struct cma_device *cma_dev)
{
	int ret = -ENODEV;

	mutex_lock(&cma_lock);
	if (!cma_dev->removing) {
		cma_attach_to_dev(id_priv, cma_dev);
		ret = 0;
	}
	mutex_unlock(&cma_lock);
	return ret;
}

static void cma_release_dev(struct rdma_id_private *id_priv)
{
	mutex_lock(&cma_lock);
	if (id_priv->cma_dev) {
		list_del_init(&id_priv->device_item);
		/* its owner stays: the id may be bound again */
		rdma_restrack_untrack(id_priv->cma_dev->device, &id_priv->res);
		cma_dev_put(id_priv->cma_dev);
		id_priv->cma_dev = NULL;
	}
	mutex_unlock(&cma_lock);
}

/*
 * Bind an id to the device and port whose GID and P_Key its source
 * hardware address (an IPoIB address) carries.
 */
static int cma_acquire_dev_by_src_ip(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	u16 pkey = ib_addr_get_pkey(dev_addr);
	struct cma_device *cma_dev;
	union ib_gid gid;
	u16 index;
	u32 port;
	int ret = -ENODEV;

	if (dev_addr->dev_type != ARPHRD_INFINIBAND)
		return -ENODEV;
	rdma_addr_get_sgid(dev_addr, &gid);
	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (ib_find_gid(cma_dev->device, &gid, &port, &index))
			continue;
		if (ib_find_pkey(cma_dev->device, port, pkey, &index))
			continue;
		id_priv->id.port_num = port;
		cma_attach_to_dev(id_priv, cma_dev);
		ret = 0;
		break;
	}
	mutex_unlock(&cma_lock);
	return ret;
}

/*
 * A loopback id (wildcard destination) with no device yet: the first
 * ACTIVE port of any device, its GID 0 and P_Key 0.
 */
static int cma_bind_loopback(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_device *cma_dev;
	struct ib_port_attr attr;
	union ib_gid gid;
	u16 pkey;
	u32 p;
	int ret = -ENODEV;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		for (p = rdma_start_port(cma_dev->device);
		     p <= rdma_end_port(cma_dev->device); p++) {
			if (ib_query_port(cma_dev->device, p, &attr) ||
			    attr.state != IB_PORT_ACTIVE)
				continue;
			if (rdma_query_gid(cma_dev->device, p, 0, &gid) ||
			    ib_get_cached_pkey(cma_dev->device, p, 0, &pkey))
				continue;
			dev_addr->dev_type = ARPHRD_INFINIBAND;
			rdma_addr_set_sgid(dev_addr, &gid);
			ib_addr_set_pkey(dev_addr, pkey);
			id_priv->id.port_num = p;
			cma_attach_to_dev(id_priv, cma_dev);
			ret = 0;
			goto out;
		}
	}
out:
	mutex_unlock(&cma_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Creation and destruction                                            */
/* ------------------------------------------------------------------ */

/**
 * cma_new_id() - allocate an id
 * @net: its namespace, referenced by the id
 * @handler: its event handler
 * @context: the consumer's
 * @ps: its port space
 * @qp_type: its QP type
 * @parent: for an internal listener or an id made for a request, the
 *	listener (its owner is inherited); NULL for a consumer's own
 *
 * Return: the id, in RDMA_CM_IDLE, or an ERR_PTR().
 */
struct rdma_id_private *cma_new_id(struct net *net,
				   rdma_cm_event_handler handler,
				   void *context, enum rdma_ucm_port_space ps,
				   enum ib_qp_type qp_type,
				   struct rdma_id_private *parent)
{
	struct rdma_id_private *id_priv;

	id_priv = kzalloc(sizeof(*id_priv), GFP_KERNEL);
	if (!id_priv)
		return ERR_PTR(-ENOMEM);
	id_priv->state = RDMA_CM_IDLE;
	id_priv->id.context = context;
	id_priv->id.event_handler = handler;
	id_priv->id.ps = ps;
	id_priv->id.qp_type = qp_type;
	id_priv->timeout_ms = 2000;
	spin_lock_init(&id_priv->lock);
	mutex_init(&id_priv->qp_mutex);
	init_completion(&id_priv->comp);
	refcount_set(&id_priv->refcount, 1);
	mutex_init(&id_priv->handler_mutex);
	INIT_LIST_HEAD(&id_priv->device_item);
	INIT_LIST_HEAD(&id_priv->listen_any_item);
	INIT_LIST_HEAD(&id_priv->listen_list);
	INIT_LIST_HEAD(&id_priv->listen_item);
	INIT_LIST_HEAD(&id_priv->mc_list);
	id_priv->seq_num = get_random_u32() & 0xffffff;
	id_priv->net = get_net(net);
	id_priv->id.route.addr.dev_addr.net = id_priv->net;
	rdma_restrack_new(&id_priv->res, RDMA_RESTRACK_CM_ID);
	if (parent)
		rdma_restrack_parent_name(&id_priv->res, &parent->res);
	return id_priv;
}

static struct rdma_cm_id *cma_create_id(struct net *net,
					rdma_cm_event_handler event_handler,
					void *context,
					enum rdma_ucm_port_space ps,
					enum ib_qp_type qp_type,
					const char *caller)
{
	struct rdma_id_private *id_priv;

	if (qp_type != IB_QPT_RC && qp_type != IB_QPT_UC &&
	    qp_type != IB_QPT_UD)
		return ERR_PTR(-EINVAL);
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_UDP && ps != RDMA_PS_IPOIB &&
	    ps != RDMA_PS_IB && ps != RDMA_PS_SDP)
		return ERR_PTR(-EINVAL);
	if (ps == RDMA_PS_SDP && qp_type != IB_QPT_RC)
		return ERR_PTR(-EINVAL);
	id_priv = cma_new_id(net, event_handler, context, ps, qp_type, NULL);
	if (IS_ERR(id_priv))
		return ERR_CAST(id_priv);
	rdma_restrack_set_name(&id_priv->res, caller);
	return &id_priv->id;
}

/**
 * __rdma_create_kernel_id() - create an id for a kernel consumer
 * @net: the network namespace of its addresses
 * @event_handler: its events
 * @context: the consumer's
 * @ps: the port space
 * @qp_type: IB_QPT_RC, IB_QPT_UC or IB_QPT_UD
 * @caller: the consumer's name, for "rdma res" (rdma_create_id() gives
 *	KBUILD_MODNAME)
 *
 * Return: the id, or an ERR_PTR(): -EINVAL for an unknown port space or
 * QP type, -ENOMEM.
 */
struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller)
{
	return cma_create_id(net, event_handler, context, ps, qp_type,
			     caller ?: "kernel");
}
EXPORT_SYMBOL(__rdma_create_kernel_id);

/**
 * rdma_create_user_id() - create an id for the calling process
 * @event_handler: its events
 * @context: rdma_ucm's
 * @ps: the port space
 * @qp_type: IB_QPT_RC, IB_QPT_UC or IB_QPT_UD
 *
 * The id lives in the caller's network namespace and "rdma res" names
 * the caller as its owner.
 *
 * Return: the id, or an ERR_PTR() as __rdma_create_kernel_id().
 */
struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	/* SDP's port space is the kernel's, as upstream never exposed it */
	if (ps == RDMA_PS_SDP)
		return ERR_PTR(-EINVAL);
	return cma_create_id(current->nsproxy->net_ns, event_handler, context,
			     ps, qp_type, NULL);
}
EXPORT_SYMBOL(rdma_create_user_id);

static struct xarray *cma_ps_xa(struct net *net, enum rdma_ucm_port_space ps)
{
	struct cma_pernet *pernet = net_generic(net, cma_pernet_id);

	if (ps == RDMA_PS_SDP)
		return &pernet->sdp_ps;
	switch (ps) {
	case RDMA_PS_TCP:
		return &pernet->tcp_ps;
	case RDMA_PS_UDP:
		return &pernet->udp_ps;
	case RDMA_PS_IPOIB:
		return &pernet->ipoib_ps;
	case RDMA_PS_IB:
		return &pernet->ib_ps;
	default:
		return NULL;
	}
}

static void cma_release_port(struct rdma_id_private *id_priv)
{
	struct rdma_bind_list *bind_list = id_priv->bind_list;

	if (!bind_list)
		return;
	mutex_lock(&cma_lock);
	hlist_del(&id_priv->node);
	if (hlist_empty(&bind_list->owners)) {
		xa_erase(cma_ps_xa(id_priv->net, bind_list->ps),
			 bind_list->port);
		kfree(bind_list);
	}
	id_priv->bind_list = NULL;
	mutex_unlock(&cma_lock);
}

static void cma_cancel_listens(struct rdma_id_private *id_priv)
{
	struct rdma_id_private *child;

	mutex_lock(&cma_lock);
	list_del_init(&id_priv->listen_any_item);
	while (!list_empty(&id_priv->listen_list)) {
		child = list_first_entry(&id_priv->listen_list,
					 struct rdma_id_private, listen_item);
		list_del_init(&child->listen_item);
		mutex_unlock(&cma_lock);
		rdma_destroy_id(&child->id);
		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);
}

/* Stop what @state has under way: a query, the listens. */
static void cma_cancel_operation(struct rdma_id_private *id_priv,
				 enum rdma_cm_state state)
{
	switch (state) {
	case RDMA_CM_ADDR_QUERY:
		rdma_addr_cancel(&id_priv->id.route.addr.dev_addr);
		break;
	case RDMA_CM_ROUTE_QUERY:
		if (id_priv->query)
			ib_sa_cancel_query(id_priv->query_id, id_priv->query);
		break;
	case RDMA_CM_LISTEN:
		if (cma_any_addr(cma_src_addr(id_priv)) && !id_priv->cma_dev)
			cma_cancel_listens(id_priv);
		break;
	default:
		break;
	}
}

/* Called with handler_mutex held, which is released. */
static void cma_destroy_locked(struct rdma_id_private *id_priv)
{
	enum rdma_cm_state state;
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	state = id_priv->state;
	id_priv->state = RDMA_CM_DESTROYING;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	/* every delivery checks the state with handler_mutex held */
	mutex_unlock(&id_priv->handler_mutex);

	cma_cancel_operation(id_priv, state);
	cma_mcast_leave_all(id_priv);
	if (id_priv->cm_id) {
		ib_destroy_cm_id(id_priv->cm_id);
		id_priv->cm_id = NULL;
	}
	cma_release_dev(id_priv);
	cma_release_port(id_priv);

	cma_id_put(id_priv);
	wait_for_completion(&id_priv->comp);

	if (id_priv->internal_id)
		cma_id_put(id_priv->parent);
	kfree(id_priv->id.route.path_rec);
	put_net(id_priv->net);
	if (id_priv->res.task)
		put_task_struct(id_priv->res.task);
	kfree(id_priv);
}

/**
 * rdma_destroy_id() - destroy an id
 * @id: the id
 *
 * Cancels what is under way, leaves its groups, disconnects (the IB CM
 * sends a DREQ or a REJ as the connection's state asks) and unbinds it.
 * When this returns its handler is not running and will not be called
 * again.  Not to be called from the id's own handler (return non-zero
 * there instead).
 */
void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	mutex_lock(&id_priv->handler_mutex);
	cma_destroy_locked(id_priv);
}
EXPORT_SYMBOL(rdma_destroy_id);

/* ------------------------------------------------------------------ */
/* Ports                                                               */
/* ------------------------------------------------------------------ */

/* Whether the addresses of two ids of one port leave each other alone. */
static bool cma_addrs_disjoint(struct rdma_id_private *a,
			       struct rdma_id_private *b)
{
	struct sockaddr *aa = cma_src_addr(a), *ba = cma_src_addr(b);

	if (aa->sa_family != ba->sa_family) {
		/* an IPv6 wildcard takes IPv4 too, unless it is afonly */
		if (aa->sa_family == AF_INET6 && cma_any_addr(aa))
			return a->afonly;
		if (ba->sa_family == AF_INET6 && cma_any_addr(ba))
			return b->afonly;
		return true;
	}
	if (cma_any_addr(aa) || cma_any_addr(ba))
		return false;
	return cma_addr_cmp(aa, ba) != 0;
}

/* Whether @id_priv may join @bind_list; cma_lock held. */
static int cma_check_port(struct rdma_bind_list *bind_list,
			  struct rdma_id_private *id_priv, bool reuseaddr)
{
	struct rdma_id_private *cur;

	lockdep_assert_held(&cma_lock);
	hlist_for_each_entry(cur, &bind_list->owners, node) {
		if (cur == id_priv)
			continue;
		if (reuseaddr && cur->reuseaddr &&
		    cur->state != RDMA_CM_LISTEN)
			continue;
		if (!cma_addrs_disjoint(id_priv, cur))
			return -EADDRINUSE;
	}
	return 0;
}

static int cma_bind_port(struct xarray *xa, struct rdma_id_private *id_priv,
			 enum rdma_ucm_port_space ps, u16 port)
{
	struct rdma_bind_list *bind_list;
	int ret;

	bind_list = xa_load(xa, port);
	if (bind_list) {
		ret = cma_check_port(bind_list, id_priv, id_priv->reuseaddr);
		if (ret)
			return ret;
	} else {
		bind_list = kzalloc(sizeof(*bind_list), GFP_KERNEL);
		if (!bind_list)
			return -ENOMEM;
		bind_list->ps = ps;
		bind_list->port = port;
		INIT_HLIST_HEAD(&bind_list->owners);
		ret = xa_insert(xa, port, bind_list, GFP_KERNEL);
		if (ret) {
			kfree(bind_list);
			return ret;
		}
	}
	id_priv->bind_list = bind_list;
	hlist_add_head(&id_priv->node, &bind_list->owners);
	cma_set_port(cma_src_addr(id_priv), port);
	return 0;
}

/* A free port of the namespace's local range, from a random start. */
static int cma_bind_any_port(struct xarray *xa,
			     struct rdma_id_private *id_priv,
			     enum rdma_ucm_port_space ps)
{
	int low, high, remaining;
	unsigned int rover;

	inet_get_local_port_range(id_priv->net, &low, &high);
	remaining = high - low + 1;
	rover = get_random_u32_below(remaining) + low;
	while (remaining--) {
		if (!inet_is_local_reserved_port(id_priv->net, rover) &&
		    !xa_load(xa, rover))
			return cma_bind_port(xa, id_priv, ps, rover);
		if (++rover > high)
			rover = low;
	}
	return -EADDRNOTAVAIL;
}

/* The port space of an AF_IB bind: the one its service ID names. */
static enum rdma_ucm_port_space cma_ib_ps(struct rdma_id_private *id_priv)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)cma_src_addr(id_priv);
	u64 mask = be64_to_cpu(sib->sib_sid_mask) & RDMA_IB_IP_PS_MASK;
	u64 sid = be64_to_cpu(sib->sib_sid) & mask;

	if (id_priv->id.ps == RDMA_PS_IB || id_priv->id.ps == RDMA_PS_TCP) {
		if (sid == (RDMA_IB_IP_PS_IB & mask))
			return RDMA_PS_IB;
		if (sid == (RDMA_IB_IP_PS_TCP & mask))
			return RDMA_PS_TCP;
	}
	if ((id_priv->id.ps == RDMA_PS_IB || id_priv->id.ps == RDMA_PS_UDP) &&
	    sid == (RDMA_IB_IP_PS_UDP & mask))
		return RDMA_PS_UDP;
	return 0;
}

static int cma_get_port(struct rdma_id_private *id_priv)
{
	enum rdma_ucm_port_space ps = id_priv->id.ps;
	struct xarray *xa;
	u16 port;
	int ret;

	if (cma_family(id_priv) == AF_IB) {
		ps = cma_ib_ps(id_priv);
		if (!ps)
			return -EPROTONOSUPPORT;
	}
	xa = cma_ps_xa(id_priv->net, ps);
	if (!xa)
		return -EPROTONOSUPPORT;
	port = ntohs(cma_port(cma_src_addr(id_priv)));
	/* as bind(2): the ports below 1024 are the administrator's */
	if (port && port < PROT_SOCK && !capable(CAP_NET_BIND_SERVICE))
		return -EACCES;
	mutex_lock(&cma_lock);
	if (port)
		ret = cma_bind_port(xa, id_priv, ps, port);
	else
		ret = cma_bind_any_port(xa, id_priv, ps);
	mutex_unlock(&cma_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Binding                                                             */
/* ------------------------------------------------------------------ */

/* A link-local IPv6 address names its link: the id is bound to it. */
static int cma_check_linklocal(struct rdma_dev_addr *dev_addr,
			       const struct sockaddr *addr)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;

	if (addr->sa_family != AF_INET6 ||
	    !(ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		return 0;
	if (!sin6->sin6_scope_id)
		return -EINVAL;
	dev_addr->bound_dev_if = sin6->sin6_scope_id;
	return 0;
}

/* The device and port of a specific source address. */
static int cma_bind_dev(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct sockaddr *addr = cma_src_addr(id_priv);
	struct sockaddr_ib *sib;
	struct cma_device *cma_dev;
	union ib_gid gid;
	u16 index;
	u32 port;
	int ret;

	if (addr->sa_family != AF_IB) {
		ret = rdma_translate_ip(addr, dev_addr);
		if (ret)
			return ret;
		return cma_acquire_dev_by_src_ip(id_priv);
	}

	/* AF_IB: the GID names the port */
	sib = (struct sockaddr_ib *)addr;
	memcpy(gid.raw, sib->sib_addr.sib_raw, sizeof(gid.raw));
	mutex_lock(&cma_lock);
	ret = -ENODEV;
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (ib_find_gid(cma_dev->device, &gid, &port, &index))
			continue;
		dev_addr->dev_type = ARPHRD_INFINIBAND;
		rdma_addr_set_sgid(dev_addr, &gid);
		ib_addr_set_pkey(dev_addr, ntohs(sib->sib_pkey));
		id_priv->id.port_num = port;
		cma_attach_to_dev(id_priv, cma_dev);
		ret = 0;
		break;
	}
	mutex_unlock(&cma_lock);
	return ret;
}

/**
 * rdma_bind_addr() - bind an id to a source address and port
 * @id: an id in RDMA_CM_IDLE
 * @addr: AF_INET, AF_INET6 or AF_IB; a wildcard address, and port 0 (any
 *	free port), are allowed
 *
 * A specific address binds the id to the device and port of the IPoIB
 * interface that holds it (AF_IB: of the port with that GID).
 *
 * Return: 0; -EAFNOSUPPORT for another family, -EINVAL if the id is not
 * idle or a link-local IPv6 address has no scope, -EADDRNOTAVAIL if no
 * interface holds the address, -ENODEV if no RDMA port is behind it,
 * -EADDRINUSE if the port is taken, -EACCES for a port below 1024
 * without CAP_NET_BIND_SERVICE, -EPROTONOSUPPORT for an AF_IB service ID
 * outside the id's port space.
 */
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;
	int ret;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6 &&
	    addr->sa_family != AF_IB)
		return -EAFNOSUPPORT;
	if (!cma_comp_exch(id_priv, RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND))
		return -EINVAL;

	ret = cma_check_linklocal(dev_addr, addr);
	if (ret)
		goto err_state;
	memcpy(cma_src_addr(id_priv), addr, rdma_addr_size(addr));
	if (!cma_any_addr(addr)) {
		ret = cma_bind_dev(id_priv);
		if (ret)
			goto err_state;
	}
	if (addr->sa_family == AF_INET6 && !id_priv->afonly)
		id_priv->afonly = READ_ONCE(id_priv->net->ipv6.sysctl.bindv6only);
	ret = cma_get_port(id_priv);
	if (ret)
		goto err_dev;
	return 0;

err_dev:
	cma_release_dev(id_priv);
err_state:
	memset(cma_src_addr(id_priv), 0, sizeof(struct sockaddr_storage));
	dev_addr->bound_dev_if = 0;
	cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_IDLE);
	return ret;
}
EXPORT_SYMBOL(rdma_bind_addr);

/*
 * Bind an idle id before resolving: to @src_addr if given, else to the
 * wildcard of @dst_addr's family (with the scope of a link-local one).
 */
static int cma_bind_for_resolve(struct rdma_cm_id *id,
				struct sockaddr *src_addr,
				const struct sockaddr *dst_addr)
{
	struct sockaddr_storage zero = { .ss_family = dst_addr->sa_family };

	if (src_addr && src_addr->sa_family)
		return rdma_bind_addr(id, src_addr);
	if (dst_addr->sa_family == AF_INET6)
		((struct sockaddr_in6 *)&zero)->sin6_scope_id =
			((const struct sockaddr_in6 *)dst_addr)->sin6_scope_id;
	return rdma_bind_addr(id, (struct sockaddr *)&zero);
}

/* ------------------------------------------------------------------ */
/* Address resolution                                                  */
/* ------------------------------------------------------------------ */

static void cma_addr_handler(int status, struct sockaddr *src_addr,
			     struct rdma_dev_addr *dev_addr, void *context)
{
	struct rdma_id_private *id_priv = context;
	struct rdma_cm_event event = {};
	struct sockaddr_storage old;

	mutex_lock(&id_priv->handler_mutex);
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY,
			   RDMA_CM_ADDR_RESOLVED))
		goto out;

	if (!status) {
		memcpy(&old, cma_src_addr(id_priv), sizeof(old));
		/* the route's source, with the id's port */
		cma_set_port(src_addr, ntohs(cma_port(cma_src_addr(id_priv))));
		memcpy(cma_src_addr(id_priv), src_addr,
		       rdma_addr_size(src_addr));
		if (!id_priv->cma_dev)
			status = cma_acquire_dev_by_src_ip(id_priv);
		/* no device for it: the id keeps the source it had */
		if (status)
			memcpy(cma_src_addr(id_priv), &old, sizeof(old));
	}
	if (status) {
		if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
				   RDMA_CM_ADDR_BOUND))
			goto out;
		event.event = RDMA_CM_EVENT_ADDR_ERROR;
		event.status = status;
	} else {
		event.event = RDMA_CM_EVENT_ADDR_RESOLVED;
	}
	if (cma_deliver(id_priv, &event)) {
		cma_destroy_from_handler(id_priv);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
}

/* A wildcard destination: ourselves, on the id's device or any. */
static int cma_resolve_loopback(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	union ib_gid gid;
	int ret;

	if (!id_priv->cma_dev) {
		ret = cma_bind_loopback(id_priv);
		if (ret)
			return ret;
	}
	rdma_addr_get_sgid(dev_addr, &gid);
	rdma_addr_set_dgid(dev_addr, &gid);
	return cma_queue_event(id_priv, RDMA_CM_ADDR_QUERY,
			       RDMA_CM_ADDR_RESOLVED,
			       RDMA_CM_EVENT_ADDR_RESOLVED, 0);
}

/**
 * rdma_resolve_addr() - find the destination's port, asynchronously
 * @id: the id, idle or bound
 * @src_addr: the source address if the id is idle; NULL or AF_UNSPEC
 *	for the route's
 * @dst_addr: the destination, AF_INET or AF_INET6
 * @timeout_ms: how long to wait for the neighbour
 *
 * ADDR_RESOLVED follows, with the id bound to the device and port of
 * the route's IPoIB interface and the destination's GID known; or
 * ADDR_ERROR with the error (-ETIMEDOUT, -ENETUNREACH, -ENODEV for an
 * interface with no RDMA port behind it, ...).  A wildcard destination
 * is the local port itself.
 *
 * Return: 0 if the resolution started; -EAFNOSUPPORT for another family
 * (AF_IB destinations are not resolved here), -EINVAL if the id is in
 * another state or of another family, or what binding returns.
 */
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr,
		      unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	if (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (cma_state(id_priv) == RDMA_CM_IDLE) {
		ret = cma_bind_for_resolve(id, src_addr, dst_addr);
		if (ret)
			return ret;
	}
	if (cma_family(id_priv) != dst_addr->sa_family)
		return -EINVAL;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY))
		return -EINVAL;

	memcpy(cma_dst_addr(id_priv), dst_addr, rdma_addr_size(dst_addr));
	if (cma_any_addr(dst_addr)) {
		ret = cma_resolve_loopback(id_priv);
	} else {
		/*
		 * No reference for the request: destroying the id cancels
		 * it, and waits for a callback under way (rdma_addr_cancel())
		 */
		ret = rdma_resolve_ip(cma_src_addr(id_priv), dst_addr,
				      &id->route.addr.dev_addr, timeout_ms,
				      cma_addr_handler, false, id_priv);
	}
	if (ret) {
		memset(cma_dst_addr(id_priv), 0,
		       sizeof(struct sockaddr_storage));
		cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_addr);

/* ------------------------------------------------------------------ */
/* Route resolution                                                    */
/* ------------------------------------------------------------------ */

static void cma_query_handler(int status, struct sa_path_rec *path_rec,
			      int num_prs, void *context)
{
	struct rdma_id_private *id_priv = context;
	struct rdma_route *route = &id_priv->id.route;
	struct rdma_cm_event event = {};

	mutex_lock(&id_priv->handler_mutex);
	id_priv->query = NULL;
	if (!status && (!path_rec || num_prs < 1))
		status = -EHOSTUNREACH;
	if (!status) {
		route->path_rec[0] = *path_rec;
		route->num_pri_alt_paths = 1;
		if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
				   RDMA_CM_ROUTE_RESOLVED))
			goto out;
		event.event = RDMA_CM_EVENT_ROUTE_RESOLVED;
	} else {
		if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
				   RDMA_CM_ADDR_RESOLVED))
			goto out;
		event.event = RDMA_CM_EVENT_ROUTE_ERROR;
		event.status = status;
	}
	if (cma_deliver(id_priv, &event)) {
		cma_id_put(id_priv);
		cma_destroy_from_handler(id_priv);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

static int cma_query_ib_route(struct rdma_id_private *id_priv,
			      unsigned long timeout_ms)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct sa_path_rec path = {};
	struct sockaddr_in6 *sin6;
	ib_sa_comp_mask mask;
	int ret;

	rdma_addr_get_sgid(dev_addr, &path.sgid);
	rdma_addr_get_dgid(dev_addr, &path.dgid);
	path.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	path.numb_path = 1;
	path.reversible = 1;
	path.service_id = rdma_get_service_id(&id_priv->id,
					      cma_dst_addr(id_priv));
	path.rec_type = SA_PATH_REC_TYPE_IB;
	mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
	       IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
	       IB_SA_PATH_REC_REVERSIBLE | IB_SA_PATH_REC_SERVICE_ID;
	switch (cma_family(id_priv)) {
	case AF_INET:
		path.qos_class = cpu_to_be16((u16)id_priv->tos);
		mask |= IB_SA_PATH_REC_QOS_CLASS;
		break;
	case AF_INET6:
		sin6 = (struct sockaddr_in6 *)cma_src_addr(id_priv);
		path.traffic_class = (u8)(be32_to_cpu(sin6->sin6_flowinfo) >>
					  20);
		mask |= IB_SA_PATH_REC_TRAFFIC_CLASS;
		break;
	}

	ret = ib_sa_path_rec_get(&cma_sa_client, id_priv->id.device,
				 id_priv->id.port_num, &path, mask, timeout_ms,
				 GFP_KERNEL, cma_query_handler, id_priv,
				 &id_priv->query);
	if (ret < 0)
		return ret;
	id_priv->query_id = ret;
	return 0;
}

/**
 * rdma_resolve_route() - find the path to the destination, asynchronously
 * @id: an id in RDMA_CM_ADDR_RESOLVED
 * @timeout_ms: how long the SA may take
 *
 * ROUTE_RESOLVED follows, with id->route.path_rec set from the SA's
 * PathRecord, or ROUTE_ERROR with the error.
 *
 * Return: 0 if the query started; -EINVAL for a zero timeout or another
 * state, -ENOMEM, or the SA client's error.
 */
int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct rdma_route *route = &id->route;
	int ret;

	if (!timeout_ms)
		return -EINVAL;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
			   RDMA_CM_ROUTE_QUERY))
		return -EINVAL;
	if (!route->path_rec) {
		route->path_rec = kzalloc(sizeof(*route->path_rec),
					  GFP_KERNEL);
		if (!route->path_rec) {
			ret = -ENOMEM;
			goto err;
		}
	}
	cma_id_get(id_priv);
	ret = cma_query_ib_route(id_priv, timeout_ms);
	if (ret) {
		cma_id_put(id_priv);
		goto err;
	}
	return 0;

err:
	cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY, RDMA_CM_ADDR_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_route);

/**
 * rdma_set_ib_path() - give an id its path instead of resolving it
 * @id: an id in RDMA_CM_ADDR_RESOLVED
 * @path_rec: the path (rdma_ucm: a path the process found itself)
 *
 * The id moves to RDMA_CM_ROUTE_RESOLVED; no event is sent (rdma_ucm
 * reports ROUTE_RESOLVED itself).
 *
 * Return: 0, -EINVAL in another state, -ENOMEM.
 */
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct rdma_route *route = &id->route;

	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
			   RDMA_CM_ROUTE_RESOLVED))
		return -EINVAL;
	if (!route->path_rec) {
		route->path_rec = kzalloc(sizeof(*route->path_rec),
					  GFP_KERNEL);
		if (!route->path_rec) {
			cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED,
				      RDMA_CM_ADDR_RESOLVED);
			return -ENOMEM;
		}
	}
	route->path_rec[0] = *path_rec;
	route->path_rec[0].rec_type = SA_PATH_REC_TYPE_IB;
	route->num_pri_alt_paths = 1;
	return 0;
}
EXPORT_SYMBOL(rdma_set_ib_path);

/* ------------------------------------------------------------------ */
/* Listening                                                           */
/* ------------------------------------------------------------------ */

/* An internal listener of wildcard listener @id_priv on @cma_dev. */
static int cma_listen_on_dev(struct rdma_id_private *id_priv,
			     struct cma_device *cma_dev)
{
	struct rdma_id_private *child;
	int ret;

	lockdep_assert_held(&cma_lock);
	child = cma_new_id(id_priv->net, id_priv->id.event_handler,
			   id_priv->id.context, id_priv->id.ps,
			   id_priv->id.qp_type, id_priv);
	if (IS_ERR(child))
		return PTR_ERR(child);
	child->internal_id = true;
	child->parent = id_priv;
	cma_id_get(id_priv);
	child->state = RDMA_CM_LISTEN;
	child->afonly = id_priv->afonly;
	memcpy(cma_src_addr(child), cma_src_addr(id_priv),
	       rdma_addr_size(cma_src_addr(id_priv)));
	child->id.port_num = rdma_start_port(cma_dev->device);
	cma_attach_to_dev(child, cma_dev);
	list_add_tail(&child->listen_item, &id_priv->listen_list);

	ret = cma_ib_listen(child);
	if (ret) {
		list_del_init(&child->listen_item);
		mutex_unlock(&cma_lock);
		rdma_destroy_id(&child->id);
		mutex_lock(&cma_lock);
	}
	return ret;
}

static int cma_listen_on_all(struct rdma_id_private *id_priv)
{
	struct cma_device *cma_dev;
	int ret = 0;

	mutex_lock(&cma_lock);
	list_add_tail(&id_priv->listen_any_item, &listen_any_list);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		ret = cma_listen_on_dev(id_priv, cma_dev);
		if (ret)
			break;
	}
	mutex_unlock(&cma_lock);
	if (ret)
		cma_cancel_listens(id_priv);
	return ret;
}

/**
 * rdma_listen() - listen for connection requests (or SIDR requests)
 * @id: a bound id (an idle one is bound to the IPv4 wildcard first)
 * @backlog: for rdma_ucm's count of requests not yet accepted
 *
 * A wildcard id listens on every device, present and future; one bound
 * to an address on the device and port behind it.  Two ids cannot
 * listen on the same address and port, reuseaddr or not.
 *
 * Return: 0; -EINVAL in another state, -EADDRINUSE, or what binding or
 * the IB CM return.
 */
int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	if (cma_state(id_priv) == RDMA_CM_IDLE) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		ret = rdma_bind_addr(id, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN))
		return -EINVAL;

	if (id_priv->reuseaddr) {
		mutex_lock(&cma_lock);
		ret = cma_check_port(id_priv->bind_list, id_priv, false);
		mutex_unlock(&cma_lock);
		if (ret)
			goto err;
	}
	id_priv->backlog = backlog;
	if (id_priv->cma_dev)
		ret = cma_ib_listen(id_priv);
	else
		ret = cma_listen_on_all(id_priv);
	if (ret)
		goto err;
	return 0;

err:
	id_priv->backlog = 0;
	cma_comp_exch(id_priv, RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_listen);

/* Whether listener @l takes a request for @dst. */
static bool cma_listener_takes(struct rdma_id_private *l,
			       const struct sockaddr *dst)
{
	struct sockaddr *src = cma_src_addr(l);

	if (l->state != RDMA_CM_LISTEN)
		return false;
	if (src->sa_family == AF_IB)
		return true;
	if (cma_any_addr(src)) {
		if (src->sa_family == dst->sa_family)
			return true;
		return src->sa_family == AF_INET6 && !l->afonly;
	}
	return !cma_addr_cmp(src, dst);
}

/**
 * cma_find_listener() - the listener a request is for, referenced
 * @net: the namespace of the interface the request came to
 * @ps: the port space its service ID names
 * @port: the port it names
 * @dst: the address it is for
 * @device: the device it came in by
 * @port_num: the port it came in by
 *
 * Return: the listener bound to @device (an internal one for a wildcard
 * listener), or NULL.
 */
struct rdma_id_private *cma_find_listener(struct net *net,
					  enum rdma_ucm_port_space ps,
					  u16 port,
					  const struct sockaddr *dst,
					  struct ib_device *device, u32 port_num)
{
	struct rdma_id_private *l, *child, *found = NULL;
	struct rdma_bind_list *bind_list;
	struct xarray *xa;

	xa = cma_ps_xa(net, ps);
	if (!xa)
		return NULL;
	mutex_lock(&cma_lock);
	bind_list = xa_load(xa, port);
	if (!bind_list)
		goto out;
	hlist_for_each_entry(l, &bind_list->owners, node) {
		if (!cma_listener_takes(l, dst))
			continue;
		if (l->cma_dev) {
			if (l->id.device == device &&
			    l->id.port_num == port_num) {
				found = l;
				break;
			}
			continue;
		}
		list_for_each_entry(child, &l->listen_list, listen_item) {
			if (child->id.device == device) {
				found = child;
				break;
			}
		}
		if (found)
			break;
	}
	if (found)
		cma_id_get(found);
out:
	mutex_unlock(&cma_lock);
	return found;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

/**
 * rdma_set_service_type() - the type of service of an id's traffic
 * @id: the id
 * @tos: IP type of service; on InfiniBand, the QoS class asked of the SA
 */
void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	id_priv->tos = (u8)tos;
	id_priv->tos_set = true;
}
EXPORT_SYMBOL(rdma_set_service_type);

/**
 * rdma_set_reuseaddr() - share the port, as SO_REUSEADDR
 * @id: an id not bound yet (or bound, to clear it)
 * @reuse: 0 or not
 *
 * Return: 0, or -EINVAL once the id is bound and @reuse is set.
 */
int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&id_priv->lock, flags);
	if ((reuse && id_priv->state != RDMA_CM_LISTEN) ||
	    id_priv->state == RDMA_CM_IDLE)
		id_priv->reuseaddr = !!reuse;
	else
		ret = -EINVAL;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_reuseaddr);

/**
 * rdma_set_afonly() - whether an IPv6 wildcard leaves IPv4 alone
 * @id: an idle id
 * @afonly: 0 or not (IPV6_V6ONLY)
 *
 * Return: 0, or -EINVAL if the id is not idle.
 */
int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&id_priv->lock, flags);
	if (id_priv->state == RDMA_CM_IDLE || id_priv->state ==
	    RDMA_CM_ADDR_BOUND)
		id_priv->afonly = !!afonly;
	else
		ret = -EINVAL;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_afonly);

/**
 * rdma_set_ack_timeout() - the local ACK timeout of the id's RC QP
 * @id: an RC id
 * @timeout: 4.096 us * 2^@timeout, 0..31
 *
 * Return: 0, or -EINVAL for another QP type.
 */
int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (id->qp_type != IB_QPT_RC)
		return -EINVAL;
	id_priv->timeout = min_t(u8, timeout, 31);
	id_priv->timeout_set = true;
	return 0;
}
EXPORT_SYMBOL(rdma_set_ack_timeout);

/**
 * rdma_set_min_rnr_timer() - the minimum RNR NAK timer of the id's RC QP
 * @id: an RC id
 * @min_rnr_timer: the IBA code, 0..31
 *
 * Return: 0, or -EINVAL for another QP type.
 */
int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (id->qp_type != IB_QPT_RC)
		return -EINVAL;
	id_priv->min_rnr_timer = min_t(u8, min_rnr_timer, 31);
	id_priv->min_rnr_timer_set = true;
	return 0;
}
EXPORT_SYMBOL(rdma_set_min_rnr_timer);

/**
 * rdma_lock_handler() - hold off an id's events
 * @id: the id
 *
 * For a consumer that must change what its handler sees (rdma_ucm's
 * MIGRATE_ID).  Not from the id's own handler.
 */
void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&to_id_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_lock_handler);

/**
 * rdma_unlock_handler() - let an id's events come again
 * @id: the id
 */
void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&to_id_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_unlock_handler);

/**
 * rdma_res_to_id() - the id of a resource tracking entry
 * @res: an entry of type RDMA_RESTRACK_CM_ID
 *
 * Return: the id.
 */
struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res)
{
	return &container_of(res, struct rdma_id_private, res)->id;
}
EXPORT_SYMBOL(rdma_res_to_id);

/* ------------------------------------------------------------------ */
/* The client: devices coming and going                                */
/* ------------------------------------------------------------------ */

static int cma_add_one(struct ib_device *device)
{
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;

	cma_dev = kzalloc(sizeof(*cma_dev), GFP_KERNEL);
	if (!cma_dev)
		return -ENOMEM;
	cma_dev->device = device;
	refcount_set(&cma_dev->refcount, 1);
	init_completion(&cma_dev->comp);
	INIT_LIST_HEAD(&cma_dev->id_list);
	ib_set_client_data(device, &cma_client, cma_dev);

	mutex_lock(&cma_lock);
	list_add_tail(&cma_dev->list, &cma_devices);
	list_for_each_entry(id_priv, &listen_any_list, listen_any_item) {
		if (cma_listen_on_dev(id_priv, cma_dev))
			dev_warn(&device->dev,
				 "rdma_cm: a wildcard listener does not listen here\n");
	}
	mutex_unlock(&cma_lock);
	return 0;
}

/* Tell the consumer of @id_priv its device is going; cma_lock not held. */
static void cma_tell_removal(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	enum rdma_cm_state state;
	unsigned long flags;

	mutex_lock(&id_priv->handler_mutex);
	spin_lock_irqsave(&id_priv->lock, flags);
	state = id_priv->state;
	if (state == RDMA_CM_DESTROYING || state == RDMA_CM_DEVICE_REMOVAL) {
		spin_unlock_irqrestore(&id_priv->lock, flags);
		mutex_unlock(&id_priv->handler_mutex);
		return;
	}
	id_priv->state = RDMA_CM_DEVICE_REMOVAL;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	if (state == RDMA_CM_ADDR_QUERY) {
		/*
		 * The resolution's callback takes handler_mutex: wait for it
		 * without.  The id stays (cma_remove_one() holds it), but
		 * its consumer may destroy it meanwhile.
		 */
		mutex_unlock(&id_priv->handler_mutex);
		rdma_addr_cancel(&id_priv->id.route.addr.dev_addr);
		mutex_lock(&id_priv->handler_mutex);
		if (cma_state(id_priv) != RDMA_CM_DEVICE_REMOVAL) {
			mutex_unlock(&id_priv->handler_mutex);
			return;
		}
	} else {
		cma_cancel_operation(id_priv, state);
	}
	if (cma_deliver(id_priv, &event))
		cma_destroy_from_handler(id_priv);
	else
		mutex_unlock(&id_priv->handler_mutex);
}

static void cma_remove_one(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;
	struct rdma_id_private *id_priv;

	mutex_lock(&cma_lock);
	list_del(&cma_dev->list);
	cma_dev->removing = true;
	while (!list_empty(&cma_dev->id_list)) {
		id_priv = list_first_entry(&cma_dev->id_list,
					   struct rdma_id_private,
					   device_item);
		list_del_init(&id_priv->device_item);
		if (id_priv->internal_id)
			list_del_init(&id_priv->listen_item);
		cma_id_get(id_priv);
		mutex_unlock(&cma_lock);

		if (id_priv->internal_id) {
			cma_id_put(id_priv);
			rdma_destroy_id(&id_priv->id);
		} else {
			cma_tell_removal(id_priv);
			cma_id_put(id_priv);
		}
		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);

	/* every id bound here lets go of the device as it is destroyed */
	cma_dev_put(cma_dev);
	wait_for_completion(&cma_dev->comp);
	kfree(cma_dev);
}

static struct ib_client cma_client = {
	.name = "cma",
	.add = cma_add_one,
	.remove = cma_remove_one,
};

/* ------------------------------------------------------------------ */
/* Interfaces: a bond's active slave changing                          */
/* ------------------------------------------------------------------ */

/*
 * When an active-backup bond of IPoIB interfaces fails over, the bond
 * takes the new active slave's hardware address, which may be on another
 * port or device than the one its ids are bound to.  Every id bound to
 * the bond whose source hardware address is no longer the bond's is told
 * RDMA_CM_EVENT_ADDR_CHANGE (its state unchanged): its consumer is to
 * resolve and connect again.
 */
static void cma_addr_change(struct net_device *ndev,
			    struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct cma_work *work;

	if (dev_addr->bound_dev_if != ndev->ifindex ||
	    !net_eq(dev_addr->net, dev_net(ndev)) ||
	    !memcmp(dev_addr->src_dev_addr, ndev->dev_addr, ndev->addr_len))
		return;
	work = kzalloc(sizeof(*work), GFP_KERNEL);
	if (!work) {
		dev_warn(&id_priv->id.device->dev,
			 "rdma_cm: no memory to tell an id %s changed address\n",
			 ndev->name);
		return;
	}
	INIT_WORK(&work->work, cma_work_handler);
	work->id = id_priv;
	work->any_state = true;
	work->event.event = RDMA_CM_EVENT_ADDR_CHANGE;
	cma_id_get(id_priv);
	queue_work(cma_wq, &work->work);
}

static int cma_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;

	if (event != NETDEV_BONDING_FAILOVER || !netif_is_bond_master(ndev))
		return NOTIFY_DONE;
	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list)
		list_for_each_entry(id_priv, &cma_dev->id_list, device_item)
			cma_addr_change(ndev, id_priv);
	mutex_unlock(&cma_lock);
	return NOTIFY_DONE;
}

static struct notifier_block cma_nb = {
	.notifier_call = cma_netdev_event,
};

/* ------------------------------------------------------------------ */
/* Namespaces and the module                                           */
/* ------------------------------------------------------------------ */

static int __net_init cma_init_net(struct net *net)
{
	struct cma_pernet *pernet = net_generic(net, cma_pernet_id);

	xa_init(&pernet->tcp_ps);
	xa_init(&pernet->udp_ps);
	xa_init(&pernet->ipoib_ps);
	xa_init(&pernet->ib_ps);
	xa_init(&pernet->sdp_ps);
	return 0;
}

static void __net_exit cma_exit_net(struct net *net)
{
	struct cma_pernet *pernet = net_generic(net, cma_pernet_id);

	/* every id references its namespace: none can be left */
	WARN_ON(!xa_empty(&pernet->tcp_ps));
	WARN_ON(!xa_empty(&pernet->udp_ps));
	WARN_ON(!xa_empty(&pernet->ipoib_ps));
	WARN_ON(!xa_empty(&pernet->ib_ps));
	WARN_ON(!xa_empty(&pernet->sdp_ps));
}

static struct pernet_operations cma_pernet_ops = {
	.init = cma_init_net,
	.exit = cma_exit_net,
	.id = &cma_pernet_id,
	.size = sizeof(struct cma_pernet),
};

static int __init cma_init(void)
{
	int ret;

	cma_wq = alloc_ordered_workqueue("rdma_cm", WQ_MEM_RECLAIM);
	if (!cma_wq)
		return -ENOMEM;
	ret = register_pernet_subsys(&cma_pernet_ops);
	if (ret)
		goto err_wq;
	ib_sa_register_client(&cma_sa_client);
	ret = ib_register_client(&cma_client);
	if (ret)
		goto err_sa;
	ret = register_netdevice_notifier(&cma_nb);
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&cma_client);
err_sa:
	ib_sa_unregister_client(&cma_sa_client);
	unregister_pernet_subsys(&cma_pernet_ops);
err_wq:
	destroy_workqueue(cma_wq);
	return ret;
}

static void __exit cma_cleanup(void)
{
	unregister_netdevice_notifier(&cma_nb);
	ib_unregister_client(&cma_client);
	ib_sa_unregister_client(&cma_sa_client);
	unregister_pernet_subsys(&cma_pernet_ops);
	destroy_workqueue(cma_wq);
}

module_init(cma_init);
module_exit(cma_cleanup);
