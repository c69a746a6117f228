// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ports: their immutable data, the cache of their state, LID, P_Key and
 * GID tables, the queries that read them, and the dispatch of device and
 * port events, which refreshes the cache before handlers see the event.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "core_priv.h"

/*
 * Events are delivered from one ordered work queue, so that handlers run
 * in process context and see events in the order they happened.
 */
static struct workqueue_struct *ib_event_wq;

struct ib_event_work {
	struct work_struct	work;
	struct ib_event		event;
};

static struct ib_port_data *ib_port(struct ib_device *device, u32 port)
{
	return &device->port_data[port];
}

/* Re-read one port's state and tables from the driver into the cache. */
static int ib_cache_update(struct ib_device *device, u32 port)
{
	struct ib_port_data *pd = ib_port(device, port);
	int npkeys = pd->immutable.pkey_tbl_len;
	int ngids = pd->immutable.gid_tbl_len;
	union ib_gid *gids = NULL, *old_gids;
	u16 *pkeys = NULL, *old_pkeys;
	struct ib_port_attr attr;
	int i, ret;

	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;

	if (npkeys) {
		pkeys = kcalloc(npkeys, sizeof(*pkeys), GFP_KERNEL);
		if (!pkeys)
			return -ENOMEM;
		for (i = 0; i < npkeys; i++) {
			ret = ib_query_pkey(device, port, i, &pkeys[i]);
			if (ret)
				goto err;
		}
	}
	if (ngids) {
		ret = -ENOMEM;
		gids = kcalloc(ngids, sizeof(*gids), GFP_KERNEL);
		if (!gids)
			goto err;
		ret = -EOPNOTSUPP;
		if (!device->ops->query_gid)
			goto err;
		for (i = 0; i < ngids; i++) {
			ret = device->ops->query_gid(device, port, i, &gids[i]);
			if (ret)
				goto err;
		}
	}

	write_lock_irq(&pd->cache_lock);
	old_pkeys = pd->pkeys;
	old_gids = pd->gids;
	pd->pkeys = pkeys;
	pd->gids = gids;
	pd->state = attr.state;
	pd->lid = attr.lid;
	pd->lmc = attr.lmc;
	pd->subnet_prefix = attr.subnet_prefix;
	write_unlock_irq(&pd->cache_lock);

	kfree(old_pkeys);
	kfree(old_gids);
	return 0;

err:
	kfree(gids);
	kfree(pkeys);
	return ret;
}

/*
 * Set up the port data of a device being registered: the immutable data
 * from the driver, and a first fill of the cache.
 */
int ib_cache_setup_one(struct ib_device *device)
{
	u32 port;
	int ret;

	device->port_data = kcalloc(rdma_end_port(device) + 1,
				    sizeof(*device->port_data), GFP_KERNEL);
	if (!device->port_data)
		return -ENOMEM;

	for (port = rdma_start_port(device); port <= rdma_end_port(device);
	     port++) {
		struct ib_port_data *pd = ib_port(device, port);

		rwlock_init(&pd->cache_lock);
		spin_lock_init(&pd->netdev_lock);
		INIT_LIST_HEAD(&pd->qp_pkeys);
		if (device->ops->get_port_immutable) {
			ret = device->ops->get_port_immutable(device, port,
							      &pd->immutable);
			if (ret)
				goto err;
		}
		ret = ib_cache_update(device, port);
		if (ret)
			goto err;
	}
	return 0;

err:
	ib_cache_release_one(device);
	return ret;
}

void ib_cache_release_one(struct ib_device *device)
{
	u32 port;

	if (!device->port_data)
		return;
	for (port = rdma_start_port(device); port <= rdma_end_port(device);
	     port++) {
		kfree(ib_port(device, port)->pkeys);
		kfree(ib_port(device, port)->gids);
	}
	kfree(device->port_data);
	device->port_data = NULL;
}

static bool ib_is_cache_event(enum ib_event_type type)
{
	switch (type) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_SM_CHANGE:
		return true;
	default:
		return false;
	}
}

static void ib_event_work_fn(struct work_struct *work)
{
	struct ib_event_work *ew = container_of(work, struct ib_event_work,
						work);
	struct ib_device *device = ew->event.device;
	struct ib_event_handler *handler;
	int ret;

	if (ib_is_cache_event(ew->event.event) &&
	    rdma_is_port_valid(device, ew->event.element.port_num)) {
		ret = ib_cache_update(device, ew->event.element.port_num);
		if (ret)
			dev_warn_ratelimited(&device->dev,
					     "port %u cache update failed: %d\n",
					     ew->event.element.port_num, ret);
		/* P_Keys or the subnet prefix changed: the LSM decides anew */
		if (ew->event.event == IB_EVENT_PKEY_CHANGE ||
		    ew->event.event == IB_EVENT_GID_CHANGE)
			ib_security_cache_change(device,
						 ew->event.element.port_num);
	}

	down_read(&device->event_handler_rwsem);
	list_for_each_entry(handler, &device->event_handler_list, list)
		handler->handler(handler, &ew->event);
	up_read(&device->event_handler_rwsem);

	ib_device_put(device);
	kfree(ew);
}

/**
 * ib_dispatch_event - report a device or port event
 * @event: the event; copied, so it may live on the caller's stack
 *
 * Called by drivers, in any context.  The port cache is refreshed and then
 * every registered event handler is called, from a work queue.  Events for
 * a device that is being unregistered are dropped.
 */
void ib_dispatch_event(const struct ib_event *event)
{
	struct ib_event_work *ew;

	if (!ib_device_try_get(event->device))
		return;

	/* On failure the allocator has already said why the event is lost. */
	ew = kmalloc(sizeof(*ew), GFP_ATOMIC);
	if (!ew) {
		ib_device_put(event->device);
		return;
	}
	INIT_WORK(&ew->work, ib_event_work_fn);
	ew->event = *event;
	queue_work(ib_event_wq, &ew->work);
}
EXPORT_SYMBOL(ib_dispatch_event);

/**
 * ib_register_event_handler - receive a device's events
 * @handler: set up with INIT_IB_EVENT_HANDLER()
 */
void ib_register_event_handler(struct ib_event_handler *handler)
{
	struct ib_device *device = handler->device;

	down_write(&device->event_handler_rwsem);
	list_add_tail(&handler->list, &device->event_handler_list);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_register_event_handler);

/**
 * ib_unregister_event_handler - stop receiving a device's events
 * @handler: a registered handler
 *
 * On return the handler is not running and will not be called again.
 */
void ib_unregister_event_handler(struct ib_event_handler *handler)
{
	struct ib_device *device = handler->device;

	down_write(&device->event_handler_rwsem);
	list_del(&handler->list);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_unregister_event_handler);

int ib_events_init(void)
{
	ib_event_wq = alloc_ordered_workqueue("ib-events", WQ_MEM_RECLAIM);
	return ib_event_wq ? 0 : -ENOMEM;
}

void ib_events_cleanup(void)
{
	destroy_workqueue(ib_event_wq);
}

/**
 * ib_port_immutable_read - what never changes about a port
 * @device: the device
 * @port: a valid port number
 *
 * Return: the port's immutable data.
 */
const struct ib_port_immutable *
ib_port_immutable_read(struct ib_device *device, u32 port)
{
	WARN_ON(!rdma_is_port_valid(device, port));
	return &ib_port(device, port)->immutable;
}
EXPORT_SYMBOL(ib_port_immutable_read);

/**
 * rdma_port_get_link_layer - the link layer of a port
 * @device: the device
 * @port_num: the port
 *
 * Return: the driver's answer, InfiniBand if it has none.
 */
enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device,
					      u32 port_num)
{
	if (device->ops->get_link_layer)
		return device->ops->get_link_layer(device, port_num);
	return IB_LINK_LAYER_INFINIBAND;
}
EXPORT_SYMBOL(rdma_port_get_link_layer);

/**
 * ib_query_port - the attributes of a port, from the driver
 * @device: the device
 * @port_num: the port
 * @attr: filled in
 *
 * Return: 0, -EINVAL for a port the device does not have, or the driver's
 * error.
 */
int ib_query_port(struct ib_device *device, u32 port_num,
		  struct ib_port_attr *attr)
{
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	if (!device->ops->query_port)
		return -EOPNOTSUPP;
	memset(attr, 0, sizeof(*attr));
	return device->ops->query_port(device, port_num, attr);
}
EXPORT_SYMBOL(ib_query_port);

/**
 * ib_modify_port - change a port's capability bits or state
 * @device: the device
 * @port_num: the port
 * @mask: enum ib_port_modify_flags
 * @modify: the changes
 *
 * Return: 0 or a negative errno.
 */
int ib_modify_port(struct ib_device *device, u32 port_num, int mask,
		   struct ib_port_modify *modify)
{
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	if (!device->ops->modify_port)
		return -EOPNOTSUPP;
	return device->ops->modify_port(device, port_num, mask, modify);
}
EXPORT_SYMBOL(ib_modify_port);

/**
 * ib_query_pkey - a P_Key table entry, from the driver
 * @device: the device
 * @port_num: the port
 * @index: the entry
 * @pkey: filled in
 *
 * Return: 0, -EINVAL for a bad port or index, or the driver's error.
 */
int ib_query_pkey(struct ib_device *device, u32 port_num, u16 index,
		  u16 *pkey)
{
	if (!rdma_is_port_valid(device, port_num) ||
	    index >= ib_port(device, port_num)->immutable.pkey_tbl_len)
		return -EINVAL;
	if (!device->ops->query_pkey)
		return -EOPNOTSUPP;
	return device->ops->query_pkey(device, port_num, index, pkey);
}
EXPORT_SYMBOL(ib_query_pkey);

/**
 * ib_find_pkey - the index of a P_Key in the cached table
 * @device: the device
 * @port_num: the port
 * @pkey: the P_Key; its membership bit (0x8000) is ignored when matching,
 *	but a full member entry is preferred to a limited one
 * @index: set to the index found
 *
 * Return: 0, or -ENOENT if the P_Key is not in the table.
 */
int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey,
		 u16 *index)
{
	struct ib_port_data *pd;
	unsigned long flags;
	int i, found = -1;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	pd = ib_port(device, port_num);

	read_lock_irqsave(&pd->cache_lock, flags);
	for (i = 0; pd->pkeys && i < pd->immutable.pkey_tbl_len; i++) {
		if ((pd->pkeys[i] & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (pd->pkeys[i] & 0x8000) {
			found = i;
			break;
		}
		if (found < 0)
			found = i;
	}
	read_unlock_irqrestore(&pd->cache_lock, flags);

	if (found < 0)
		return -ENOENT;
	*index = found;
	return 0;
}
EXPORT_SYMBOL(ib_find_pkey);

/**
 * rdma_query_gid - a cached GID table entry
 * @device: the device
 * @port_num: the port
 * @index: the entry
 * @gid: filled in
 *
 * Return: 0 or -EINVAL for a bad port or index.
 */
int rdma_query_gid(struct ib_device *device, u32 port_num, int index,
		   union ib_gid *gid)
{
	struct ib_port_data *pd;
	unsigned long flags;
	int ret = -EINVAL;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	pd = ib_port(device, port_num);

	read_lock_irqsave(&pd->cache_lock, flags);
	if (pd->gids && index >= 0 && index < pd->immutable.gid_tbl_len) {
		*gid = pd->gids[index];
		ret = 0;
	}
	read_unlock_irqrestore(&pd->cache_lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_query_gid);

/**
 * ib_find_gid - the port and index of a GID
 * @device: the device
 * @gid: the GID to look for
 * @port_num: set to the port it is on
 * @index: set to its index there
 *
 * Return: 0, or -ENOENT if no port has it.
 */
int ib_find_gid(struct ib_device *device, const union ib_gid *gid,
		u32 *port_num, u16 *index)
{
	struct ib_port_data *pd;
	unsigned long flags;
	u32 port;
	int i;

	for (port = rdma_start_port(device); port <= rdma_end_port(device);
	     port++) {
		pd = ib_port(device, port);
		read_lock_irqsave(&pd->cache_lock, flags);
		for (i = 0; pd->gids && i < pd->immutable.gid_tbl_len; i++) {
			if (!memcmp(&pd->gids[i], gid, sizeof(*gid))) {
				read_unlock_irqrestore(&pd->cache_lock, flags);
				*port_num = port;
				*index = i;
				return 0;
			}
		}
		read_unlock_irqrestore(&pd->cache_lock, flags);
	}
	return -ENOENT;
}
EXPORT_SYMBOL(ib_find_gid);

/* The scalar fields of a port's cache, read together under its lock. */
struct ib_cached_port {
	enum ib_port_state	state;
	u8			lmc;
	u64			subnet_prefix;
};

static int ib_cache_read_port(struct ib_device *device, u32 port_num,
			      struct ib_cached_port *c)
{
	struct ib_port_data *pd;
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	pd = ib_port(device, port_num);
	read_lock_irqsave(&pd->cache_lock, flags);
	c->state = pd->state;
	c->lmc = pd->lmc;
	c->subnet_prefix = pd->subnet_prefix;
	read_unlock_irqrestore(&pd->cache_lock, flags);
	return 0;
}

/**
 * ib_get_cached_lmc - a port's cached LMC
 * @device: the device
 * @port_num: the port
 * @lmc: filled in
 *
 * Return: 0 or -EINVAL for a bad port.
 */
int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc)
{
	struct ib_cached_port c;
	int ret = ib_cache_read_port(device, port_num, &c);

	if (!ret)
		*lmc = c.lmc;
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_lmc);

/**
 * ib_get_cached_pkey - a P_Key of a port's cached table
 * @device: the device
 * @port_num: the port
 * @index: the table index
 * @pkey: filled in
 *
 * Context: any.
 * Return: 0, or -EINVAL for a bad port or index.
 */
int ib_get_cached_pkey(struct ib_device *device, u32 port_num, u16 index,
		       u16 *pkey)
{
	struct ib_port_data *pd;
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	pd = ib_port(device, port_num);
	if (index >= pd->immutable.pkey_tbl_len)
		return -EINVAL;
	read_lock_irqsave(&pd->cache_lock, flags);
	*pkey = pd->pkeys[index];
	read_unlock_irqrestore(&pd->cache_lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_get_cached_pkey);

/**
 * ib_get_cached_subnet_prefix - a port's cached subnet prefix
 * @device: the device
 * @port_num: the port
 * @prefix: filled in, host order
 *
 * Context: any.
 * Return: 0 or -EINVAL for a bad port.
 */
int ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				u64 *prefix)
{
	struct ib_cached_port c;
	int ret = ib_cache_read_port(device, port_num, &c);

	if (!ret)
		*prefix = c.subnet_prefix;
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_subnet_prefix);

/**
 * ib_get_cached_port_state - a port's cached state
 * @device: the device
 * @port_num: the port
 * @state: filled in
 *
 * Return: 0 or -EINVAL for a bad port.
 */
int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *state)
{
	struct ib_cached_port c;
	int ret = ib_cache_read_port(device, port_num, &c);

	if (!ret)
		*state = c.state;
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_port_state);
