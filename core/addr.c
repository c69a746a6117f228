// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * IP address resolution for the RDMA CM (include/rdma/ib_addr.h).
 *
 * rdma_translate_ip() finds the interface that holds a local address and
 * copies its hardware address.  rdma_resolve_ip() finds for a destination
 * the route, the source address if none was given, the interface the
 * route leaves by, and the hardware address of the neighbour it goes to:
 * on IPoIB the remote port's QPN and GID, which ARP or IPv6 neighbour
 * discovery learn.  A destination that is one of our own addresses (the
 * route goes by the loopback device) is reached through the interface
 * that holds it, with that interface's hardware address on both ends.
 *
 * A resolution is a request whose work runs on addr_wq.  The work looks
 * the route and the neighbour up; while the neighbour is incomplete it
 * kicks the neighbour machinery (neigh_event_send()) and tries again at
 * the next neighbour update (a netevent) or after ADDR_RETRY_MS, until
 * the request's timeout.  The callback runs in the work, exactly once,
 * unless rdma_addr_cancel() came first.
 *
 * Locking: addr_lock protects addr_list, the requests not finished yet;
 * it is taken with bottom halves disabled, as the netevent notifier may
 * run in softirq context.  A request's callback runs while the request is
 * still listed, so that rdma_addr_cancel(), which unlists it and then
 * waits for its work, returns only once the callback is over or can no
 * longer run; whoever unlists a request frees it.
 */
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <net/route.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>

#include "core_priv.h"

/* How long a request waits for a neighbour update before looking again. */
#define ADDR_RETRY_MS	100

/**
 * struct addr_req - a resolution under way
 * @list: in addr_list while not finished
 * @src_addr: the source address, filled in from the route if it was
 *	unspecified
 * @dst_addr: the destination
 * @addr: the caller's link-level addresses, filled in
 * @callback: told the result
 * @context: passed to @callback
 * @deadline: jiffies after which a missing neighbour is -ETIMEDOUT
 * @work: the lookups and the callback, on addr_wq
 */
struct addr_req {
	struct list_head list;
	struct sockaddr_storage src_addr;
	struct sockaddr_storage dst_addr;
	struct rdma_dev_addr *addr;
	void (*callback)(int status, struct sockaddr *src_addr,
			 struct rdma_dev_addr *addr, void *context);
	void *context;
	unsigned long deadline;
	struct delayed_work work;
};

static DEFINE_SPINLOCK(addr_lock);	/* protects addr_list */
static LIST_HEAD(addr_list);
static struct workqueue_struct *addr_wq;

/**
 * rdma_addr_size() - the size of a socket address of a known family
 * @addr: the address
 *
 * Return: sizeof the sockaddr of @addr's family (AF_INET, AF_INET6,
 * AF_IB), or 0 for another family.
 */
int rdma_addr_size(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}
EXPORT_SYMBOL(rdma_addr_size);

/**
 * rdma_addr_size_in6() - rdma_addr_size() of an address in a sockaddr_in6
 * @addr: the address
 *
 * Return: its size, or 0 if its family is unknown or does not fit.
 */
int rdma_addr_size_in6(struct sockaddr_in6 *addr)
{
	int size = rdma_addr_size((struct sockaddr *)addr);

	return size <= sizeof(*addr) ? size : 0;
}
EXPORT_SYMBOL(rdma_addr_size_in6);

/**
 * rdma_addr_size_kss() - rdma_addr_size() of an address in a
 *	sockaddr_storage
 * @addr: the address
 *
 * Return: its size, or 0 if its family is unknown or does not fit.
 */
int rdma_addr_size_kss(struct __kernel_sockaddr_storage *addr)
{
	int size = rdma_addr_size((struct sockaddr *)addr);

	return size <= sizeof(*addr) ? size : 0;
}
EXPORT_SYMBOL(rdma_addr_size_kss);

/**
 * rdma_copy_src_l2_addr() - take the local interface's link-level addresses
 * @dev_addr: filled in: type, hardware and broadcast addresses, ifindex
 * @dev: the interface
 */
void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev)
{
	unsigned int len = min_t(unsigned int, dev->addr_len, MAX_ADDR_LEN);

	dev_addr->dev_type = dev->type;
	memset(dev_addr->src_dev_addr, 0, MAX_ADDR_LEN);
	memcpy(dev_addr->src_dev_addr, dev->dev_addr, len);
	memset(dev_addr->broadcast, 0, MAX_ADDR_LEN);
	memcpy(dev_addr->broadcast, dev->broadcast, len);
	dev_addr->bound_dev_if = dev->ifindex;
}
EXPORT_SYMBOL(rdma_copy_src_l2_addr);

/* The interface of @net holding @addr, referenced; NULL if none does. */
static struct net_device *addr_find_dev(struct net *net,
					const struct sockaddr *addr)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	struct net_device *dev, *found = NULL;

	switch (addr->sa_family) {
	case AF_INET:
		return ip_dev_find(net, sin->sin_addr.s_addr);
	case AF_INET6:
		if (!IS_ENABLED(CONFIG_IPV6))
			return NULL;
		rcu_read_lock();
		for_each_netdev_rcu(net, dev) {
			if (ipv6_chk_addr(net, &sin6->sin6_addr, dev, 1)) {
				found = dev;
				dev_hold(found);
				break;
			}
		}
		rcu_read_unlock();
		return found;
	default:
		return NULL;
	}
}

/**
 * rdma_translate_ip() - the link-level addresses of a local IP address
 * @addr: an AF_INET or AF_INET6 address
 * @dev_addr: its @net names the namespace; filled in from the interface
 *	that holds @addr, or from the one @bound_dev_if names if it is set
 *
 * Return: 0, -ENODEV if @bound_dev_if names no interface, -EADDRNOTAVAIL
 * if no interface holds @addr.
 */
int rdma_translate_ip(const struct sockaddr *addr,
		      struct rdma_dev_addr *dev_addr)
{
	struct net_device *dev;

	if (dev_addr->bound_dev_if)
		dev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	else
		dev = addr_find_dev(dev_addr->net, addr);
	if (!dev)
		return dev_addr->bound_dev_if ? -ENODEV : -EADDRNOTAVAIL;
	rdma_copy_src_l2_addr(dev_addr, dev);
	dev_put(dev);
	return 0;
}
EXPORT_SYMBOL(rdma_translate_ip);

/* The IPv4 route to @dst; @src is set to its source if it had none. */
static int addr4_route(struct sockaddr_in *src, const struct sockaddr_in *dst,
		       const struct rdma_dev_addr *addr,
		       struct dst_entry **route)
{
	struct flowi4 fl4 = {
		.daddr = dst->sin_addr.s_addr,
		.saddr = src->sin_addr.s_addr,
		.flowi4_oif = addr->bound_dev_if,
	};
	struct rtable *rt;

	rt = ip_route_output_key(addr->net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	src->sin_family = AF_INET;
	src->sin_addr.s_addr = fl4.saddr;
	*route = &rt->dst;
	return 0;
}

/* The IPv6 route to @dst; @src is set to its source if it had none. */
static int addr6_route(struct sockaddr_in6 *src,
		       const struct sockaddr_in6 *dst,
		       const struct rdma_dev_addr *addr,
		       struct dst_entry **route)
{
	struct flowi6 fl6 = {
		.daddr = dst->sin6_addr,
		.saddr = src->sin6_addr,
		.flowi6_oif = addr->bound_dev_if,
	};
	struct dst_entry *d;

	if (!IS_ENABLED(CONFIG_IPV6))
		return -EAFNOSUPPORT;
	/* a link-local destination names its link */
	if (!fl6.flowi6_oif &&
	    ipv6_addr_type(&dst->sin6_addr) & IPV6_ADDR_LINKLOCAL)
		fl6.flowi6_oif = dst->sin6_scope_id;
	d = ipv6_stub->ipv6_dst_lookup_flow(addr->net, NULL, &fl6, NULL);
	if (IS_ERR(d))
		return PTR_ERR(d);
	if (ipv6_addr_any(&src->sin6_addr)) {
		src->sin6_family = AF_INET6;
		src->sin6_addr = fl6.saddr;
	}
	*route = d;
	return 0;
}

/*
 * The hardware address of the neighbour @route reaches @dst through, or
 * -ENODATA if it is not known yet: then the neighbour is asked for.
 */
static int addr_neighbour(const struct dst_entry *route,
			  const struct sockaddr *dst,
			  struct rdma_dev_addr *addr)
{
	const void *daddr;
	struct neighbour *n;
	int ret = 0;

	if (dst->sa_family == AF_INET)
		daddr = &((const struct sockaddr_in *)dst)->sin_addr;
	else
		daddr = &((const struct sockaddr_in6 *)dst)->sin6_addr;
	n = dst_neigh_lookup(route, daddr);
	if (!n)
		return -ENODATA;
	if (READ_ONCE(n->nud_state) & NUD_VALID) {
		memset(addr->dst_dev_addr, 0, MAX_ADDR_LEN);
		neigh_ha_snapshot(addr->dst_dev_addr, n, route->dev);
	} else {
		neigh_event_send(n, NULL);
		ret = -ENODATA;
	}
	neigh_release(n);
	return ret;
}

/* One try: 0, -ENODATA (the neighbour is being asked for) or an error. */
static int addr_resolve(struct sockaddr *src, const struct sockaddr *dst,
			struct rdma_dev_addr *addr)
{
	struct dst_entry *route;
	struct net_device *ndev;
	int ret;

	if (dst->sa_family == AF_INET)
		ret = addr4_route((struct sockaddr_in *)src,
				  (const struct sockaddr_in *)dst, addr, &route);
	else
		ret = addr6_route((struct sockaddr_in6 *)src,
				  (const struct sockaddr_in6 *)dst, addr,
				  &route);
	if (ret)
		return ret;

	ndev = route->dev;
	if (ndev->flags & IFF_LOOPBACK) {
		/* one of our own addresses: its interface on both ends */
		ret = rdma_translate_ip(dst, addr);
		if (!ret)
			memcpy(addr->dst_dev_addr, addr->src_dev_addr,
			       MAX_ADDR_LEN);
	} else {
		rdma_copy_src_l2_addr(addr, ndev);
		ret = addr_neighbour(route, dst, addr);
	}
	dst_release(route);
	return ret;
}

static void addr_work(struct work_struct *work)
{
	struct addr_req *req = container_of(to_delayed_work(work),
					    struct addr_req, work);
	unsigned long wait;
	int status;

	status = addr_resolve((struct sockaddr *)&req->src_addr,
			      (struct sockaddr *)&req->dst_addr, req->addr);
	if (status == -ENODATA) {
		if (time_before(jiffies, req->deadline)) {
			wait = min_t(unsigned long, req->deadline - jiffies,
				     msecs_to_jiffies(ADDR_RETRY_MS));
			spin_lock_bh(&addr_lock);
			if (!list_empty(&req->list))
				mod_delayed_work(addr_wq, &req->work, wait);
			spin_unlock_bh(&addr_lock);
			return;
		}
		status = -ETIMEDOUT;
	}

	req->callback(status, (struct sockaddr *)&req->src_addr, req->addr,
		      req->context);

	spin_lock_bh(&addr_lock);
	if (list_empty(&req->list)) {
		/* rdma_addr_cancel() took it and frees it */
		spin_unlock_bh(&addr_lock);
		return;
	}
	list_del_init(&req->list);
	spin_unlock_bh(&addr_lock);
	kfree(req);
}

/**
 * rdma_resolve_ip() - resolve a destination IP address, asynchronously
 * @src_addr: the source address; NULL or unspecified (family AF_UNSPEC,
 *	or the wildcard address) to take the route's
 * @dst_addr: the destination, AF_INET or AF_INET6
 * @addr: its @net names the namespace, @bound_dev_if (if not 0) the
 *	interface to leave by; the link-level addresses of both ends are
 *	filled in before @callback is called
 * @timeout_ms: how long to wait for the neighbour
 * @callback: called once from a work item, with 0, -ETIMEDOUT, or the
 *	route's error (-ENETUNREACH, -EHOSTUNREACH, ...), the source address
 *	used and @context.  It must not call rdma_addr_cancel() for @addr.
 * @resolve_by_gid_attr: must be false: a RoCE way that has no meaning on
 *	InfiniBand
 * @context: for @callback
 *
 * Return: 0 if the request was queued; -EINVAL for a bad address or
 * family mismatch, -EOPNOTSUPP for @resolve_by_gid_attr, -ENOMEM.
 */
int rdma_resolve_ip(struct sockaddr *src_addr, const struct sockaddr *dst_addr,
		    struct rdma_dev_addr *addr, unsigned long timeout_ms,
		    void (*callback)(int status, struct sockaddr *src_addr,
				     struct rdma_dev_addr *addr, void *context),
		    bool resolve_by_gid_attr, void *context)
{
	struct addr_req *req;
	int size;

	if (resolve_by_gid_attr)
		return -EOPNOTSUPP;
	if (!addr->net || (dst_addr->sa_family != AF_INET &&
			   dst_addr->sa_family != AF_INET6))
		return -EINVAL;
	if (src_addr && src_addr->sa_family != AF_UNSPEC &&
	    src_addr->sa_family != dst_addr->sa_family)
		return -EINVAL;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	size = rdma_addr_size(dst_addr);
	memcpy(&req->dst_addr, dst_addr, size);
	if (src_addr && src_addr->sa_family != AF_UNSPEC)
		memcpy(&req->src_addr, src_addr, size);
	else
		req->src_addr.ss_family = dst_addr->sa_family;
	req->addr = addr;
	req->callback = callback;
	req->context = context;
	req->deadline = jiffies + msecs_to_jiffies(timeout_ms);
	INIT_DELAYED_WORK(&req->work, addr_work);

	spin_lock_bh(&addr_lock);
	list_add_tail(&req->list, &addr_list);
	mod_delayed_work(addr_wq, &req->work, 0);
	spin_unlock_bh(&addr_lock);
	return 0;
}
EXPORT_SYMBOL(rdma_resolve_ip);

/**
 * rdma_addr_cancel() - cancel a resolution
 * @addr: the @addr its rdma_resolve_ip() was given
 *
 * When this returns, the callback has run to its end or will never run.
 * Nothing happens if no resolution for @addr is under way.
 *
 * Context: process context; not from the request's own callback.
 */
void rdma_addr_cancel(struct rdma_dev_addr *addr)
{
	struct addr_req *req, *found = NULL;

	spin_lock_bh(&addr_lock);
	list_for_each_entry(req, &addr_list, list) {
		if (req->addr == addr) {
			list_del_init(&req->list);
			found = req;
			break;
		}
	}
	spin_unlock_bh(&addr_lock);
	if (!found)
		return;
	cancel_delayed_work_sync(&found->work);
	kfree(found);
}
EXPORT_SYMBOL(rdma_addr_cancel);

/* A neighbour became known: every waiting request looks again now. */
static int addr_netevent(struct notifier_block *nb, unsigned long event,
			 void *ctx)
{
	struct neighbour *n = ctx;
	struct addr_req *req;

	if (event != NETEVENT_NEIGH_UPDATE ||
	    !(READ_ONCE(n->nud_state) & NUD_VALID))
		return NOTIFY_DONE;
	spin_lock_bh(&addr_lock);
	list_for_each_entry(req, &addr_list, list)
		mod_delayed_work(addr_wq, &req->work, 0);
	spin_unlock_bh(&addr_lock);
	return NOTIFY_DONE;
}

static struct notifier_block addr_nb = {
	.notifier_call = addr_netevent,
};

int addr_init(void)
{
	int ret;

	addr_wq = alloc_ordered_workqueue("ib_addr", WQ_MEM_RECLAIM);
	if (!addr_wq)
		return -ENOMEM;
	ret = register_netevent_notifier(&addr_nb);
	if (ret) {
		destroy_workqueue(addr_wq);
		return ret;
	}
	return 0;
}

void addr_cleanup(void)
{
	unregister_netevent_notifier(&addr_nb);
	/* no user is left (they are modules that depend on this one) */
	WARN_ON(!list_empty(&addr_list));
	destroy_workqueue(addr_wq);
}
