// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The InfiniBand connection manager, ib_cm.ko: the module and its client,
 * and the communication identifiers (include/rdma/ib_cm.h).
 *
 * The "cm" client puts a CM agent (class 0x07, version 2, method Send) on
 * QP1 of every port with an IB CM (and a MAD layer), sets IB_PORT_CM_SUP
 * in the port's CapabilityMask while it is there, and adds the counter
 * files to the port's sysfs directory.  When a device goes away it clears the bit,
 * unregisters the agents (which ends our sends in flight), ends the
 * timewaits of the device and waits for the work queue; identifiers a
 * consumer still holds then only fail with -ENODEV.
 *
 * Identifiers get a local ID from a cyclic allocator in an xarray, XORed
 * with a random operand chosen at load time, so that IDs are unique while
 * in use, not reused soon, and not guessable from one another.  The local
 * ID of an identifier destroyed during its timewait stays reserved until
 * the timewait ends.  Listeners are a list (few exist) matched by device
 * and by service ID under a mask.  The remote tables (remote ID and CA
 * GUID; remote QP and CA GUID) hold the cm_timewait of every connection
 * from its REQ to the end of its timewait: they find duplicate REQs and
 * stale connections.
 *
 * Locking and lifetimes: see cm_priv.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "cm_priv.h"

MODULE_AUTHOR("ibstack");
MODULE_DESCRIPTION("InfiniBand connection manager");
MODULE_LICENSE("Dual BSD/GPL");

struct cm_globals cm;

static struct ib_client cm_client;

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

static void cm_dev_release(struct kref *kref)
{
	kfree(container_of(kref, struct cm_device, kref));
}

/**
 * cm_dev_put - drop a reference on a cm_device
 * @cm_dev: the device
 */
void cm_dev_put(struct cm_device *cm_dev)
{
	kref_put(&cm_dev->kref, cm_dev_release);
}

/* The cm_device of a registered device, referenced; NULL if none. */
static struct cm_device *cm_dev_find_get(struct ib_device *device)
{
	struct cm_device *cm_dev;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	list_for_each_entry(cm_dev, &cm.devices, list) {
		if (cm_dev->ib_device == device && !cm_dev->going_down) {
			kref_get(&cm_dev->kref);
			spin_unlock_irqrestore(&cm.lock, flags);
			return cm_dev;
		}
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	return NULL;
}

/*
 * Undo what cm_add_one() did to the ports: the capability bit, the files,
 * the agents.  Unregistering an agent ends our sends on it.
 */
static void cm_ports_teardown(struct cm_device *cm_dev)
{
	struct ib_port_modify modify = {
		.clr_port_cap_mask = IB_PORT_CM_SUP,
	};
	struct ib_mad_agent *agent;
	struct cm_port *port;
	u32 i;

	for (i = 0; i < cm_dev->num_ports; i++) {
		port = &cm_dev->port[i];
		if (!port->active)
			continue;
		if (port->cap_set)
			ib_modify_port(cm_dev->ib_device, port->port_num, 0,
				       &modify);
		port->cap_set = false;
		cm_sysfs_remove(port);
		spin_lock_irq(&port->lock);
		agent = port->mad_agent;
		port->mad_agent = NULL;
		spin_unlock_irq(&port->lock);
		if (agent)
			ib_unregister_mad_agent(agent);
	}
}

static int cm_port_open(struct cm_device *cm_dev, struct cm_port *port)
{
	struct ib_port_modify modify = {
		.set_port_cap_mask = IB_PORT_CM_SUP,
	};
	struct ib_mad_reg_req reg_req = {
		.mgmt_class = IB_MGMT_CLASS_CM,
		.mgmt_class_version = IB_CM_CLASS_VERSION,
	};
	struct ib_mad_agent *agent;
	int ret;

	set_bit(IB_MGMT_METHOD_SEND, reg_req.method_mask);
	agent = ib_register_mad_agent(cm_dev->ib_device, port->port_num,
				      IB_QPT_GSI, &reg_req, 0,
				      cm_send_handler, cm_recv_handler, port,
				      0);
	if (IS_ERR(agent))
		return PTR_ERR(agent);
	port->mad_agent = agent;
	port->hi_tid = agent->hi_tid;
	port->active = true;

	ret = cm_sysfs_add(port);
	if (ret)
		return ret;
	ret = ib_modify_port(cm_dev->ib_device, port->port_num, 0, &modify);
	if (ret)
		dev_dbg(&cm_dev->ib_device->dev,
			"CM: port %u: CapabilityMask.IsCM not set (%d)\n",
			port->port_num, ret);
	else
		port->cap_set = true;
	return 0;
}

static int cm_add_one(struct ib_device *ib_device)
{
	struct cm_device *cm_dev;
	struct cm_port *port;
	bool any = false;
	int ret;
	u32 p;

	cm_dev = kzalloc(struct_size(cm_dev, port, ib_device->phys_port_cnt),
			 GFP_KERNEL);
	if (!cm_dev)
		return -ENOMEM;
	kref_init(&cm_dev->kref);
	INIT_LIST_HEAD(&cm_dev->list);
	cm_dev->ib_device = ib_device;
	cm_dev->ca_guid = ib_device->node_guid;
	cm_dev->ack_delay = ib_device->attrs.local_ca_ack_delay;
	cm_dev->num_ports = ib_device->phys_port_cnt;

	for (p = 1; p <= cm_dev->num_ports; p++) {
		port = &cm_dev->port[p - 1];
		port->cm_dev = cm_dev;
		port->port_num = p;
		spin_lock_init(&port->lock);
		if (!rdma_is_port_valid(ib_device, p) ||
		    !(ib_port_immutable_read(ib_device, p)->core_cap_flags &
		      RDMA_CORE_CAP_IB_CM))
			continue;
		ret = cm_port_open(cm_dev, port);
		/* a port the MAD layer does not serve has no GSI for us */
		if (ret == -ENODEV || ret == -EPROTONOSUPPORT)
			continue;
		if (ret)
			goto err;
		any = true;
	}
	if (!any) {
		ret = -EOPNOTSUPP;
		goto err;
	}

	spin_lock_irq(&cm.lock);
	list_add_tail(&cm_dev->list, &cm.devices);
	spin_unlock_irq(&cm.lock);
	ib_set_client_data(ib_device, &cm_client, cm_dev);
	return 0;

err:
	cm_ports_teardown(cm_dev);
	cm_dev_put(cm_dev);
	return ret;
}

static void cm_remove_one(struct ib_device *ib_device, void *client_data)
{
	struct cm_device *cm_dev = client_data;

	spin_lock_irq(&cm.lock);
	cm_dev->going_down = true;
	list_del_init(&cm_dev->list);
	spin_unlock_irq(&cm.lock);

	/* our sends end (flushed), their errors are queued */
	cm_ports_teardown(cm_dev);
	cm_timewait_expire_device(cm_dev);
	flush_workqueue(cm.wq);
	cm_dev_put(cm_dev);
}

static struct ib_client cm_client = {
	.name = "cm",
	.add = cm_add_one,
	.remove = cm_remove_one,
};

/**
 * cm_sysfs_port - the CM of a port, for its counter files
 * @device: the device
 * @port_num: the port
 *
 * Return: the port, or NULL while the device is added.  Valid while the
 * files exist: the device's removal takes them away first.
 */
struct cm_port *cm_sysfs_port(struct ib_device *device, u32 port_num)
{
	struct cm_device *cm_dev = ib_get_client_data(device, &cm_client);

	if (!cm_dev || port_num < 1 || port_num > cm_dev->num_ports)
		return NULL;
	return &cm_dev->port[port_num - 1];
}

/* ------------------------------------------------------------------ */
/* Local IDs and references                                            */
/* ------------------------------------------------------------------ */

static __be32 cm_local_id(u32 index)
{
	return cpu_to_be32(index ^ cm.id_operand);
}

static u32 cm_local_index(__be32 local_id)
{
	return be32_to_cpu(local_id) ^ cm.id_operand;
}

/**
 * cm_id_get - take a reference on an identifier
 * @cm_id: the identifier; the caller already holds a reference
 */
void cm_id_get(struct cm_id_private *cm_id)
{
	refcount_inc(&cm_id->refcount);
}

/**
 * cm_id_put - drop a reference on an identifier
 * @cm_id: the identifier
 */
void cm_id_put(struct cm_id_private *cm_id)
{
	if (refcount_dec_and_test(&cm_id->refcount))
		complete(&cm_id->comp);
}

/**
 * cm_id_find - the identifier with a local ID, referenced
 * @local_id: the local ID, as on the wire
 * @remote_id: the remote ID it must have, if @check_remote
 * @check_remote: whether to check it
 *
 * Context: any.
 * Return: the identifier or NULL.
 */
struct cm_id_private *cm_id_find(__be32 local_id, __be32 remote_id,
				 bool check_remote)
{
	struct cm_id_private *cm_id;
	unsigned long flags;

	xa_lock_irqsave(&cm.local_ids, flags);
	cm_id = xa_load(&cm.local_ids, cm_local_index(local_id));
	if (cm_id && check_remote && cm_id->id.remote_id != remote_id)
		cm_id = NULL;
	if (cm_id && !refcount_inc_not_zero(&cm_id->refcount))
		cm_id = NULL;
	xa_unlock_irqrestore(&cm.local_ids, flags);
	return cm_id;
}

/**
 * cm_id_alloc - make an identifier
 * @cm_dev: its device; the caller's reference passes to the identifier
 * @handler: the consumer's callback
 * @context: the consumer's
 *
 * Context: process context.
 * Return: the identifier, with the consumer's reference, or an ERR_PTR();
 * on error the reference on @cm_dev is dropped.
 */
struct cm_id_private *cm_id_alloc(struct cm_device *cm_dev,
				  ib_cm_handler handler, void *context)
{
	struct cm_id_private *cm_id;
	u32 index;
	int ret;

	cm_id = kzalloc(sizeof(*cm_id), GFP_KERNEL);
	if (!cm_id) {
		ret = -ENOMEM;
		goto err;
	}
	cm_id->id.cm_handler = handler;
	cm_id->id.context = context;
	cm_id->id.device = cm_dev->ib_device;
	cm_id->id.state = IB_CM_IDLE;
	cm_id->id.lap_state = IB_CM_LAP_UNINIT;
	cm_id->id.remote_cm_qpn = 1;
	cm_id->cm_dev = cm_dev;
	spin_lock_init(&cm_id->lock);
	refcount_set(&cm_id->refcount, 1);
	init_completion(&cm_id->comp);
	INIT_LIST_HEAD(&cm_id->listen_entry);
	INIT_WORK(&cm_id->event_work, cm_id_event_work);

	ret = xa_alloc_cyclic_irq(&cm.local_ids, &index, cm_id, xa_limit_32b,
				  &cm.next_local_id, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	cm_id->id.local_id = cm_local_id(index);
	return cm_id;

err_free:
	kfree(cm_id);
err:
	cm_dev_put(cm_dev);
	return ERR_PTR(ret);
}

/**
 * cm_set_state - change an identifier's state
 * @cm_id: the identifier, locked
 * @state: the new state
 *
 * Work items made for the old state see the change and do nothing.
 */
void cm_set_state(struct cm_id_private *cm_id, enum ib_cm_state state)
{
	cm_id->id.state = state;
	cm_id->seq++;
}

/**
 * cm_form_tid - a new TID for a request leaving by a port
 * @port: the port
 *
 * Return: the agent's hi_tid in the upper half, a counter in the lower.
 */
__be64 cm_form_tid(struct cm_port *port)
{
	u32 lo = (u32)atomic_inc_return(&cm.tid);

	return cpu_to_be64((u64)port->hi_tid << 32 | lo);
}

/* ------------------------------------------------------------------ */
/* The remote tables                                                   */
/* ------------------------------------------------------------------ */

static u32 cm_remote_key(u32 id, __be64 guid)
{
	u64 g = be64_to_cpu(guid);

	return id ^ (u32)g ^ (u32)(g >> 32);
}

/**
 * cm_timewait_alloc - the remote identity of a new connection
 * @cm_id: its identifier
 * @gfp: allocation flags
 *
 * Return: the cm_timewait (in no table yet) or NULL.
 */
struct cm_timewait *cm_timewait_alloc(struct cm_id_private *cm_id, gfp_t gfp)
{
	struct cm_timewait *tw = kzalloc(sizeof(*tw), gfp);

	if (!tw)
		return NULL;
	INIT_LIST_HEAD(&tw->list);
	tw->local_id = cm_id->id.local_id;
	return tw;
}

/**
 * cm_remote_insert - put a connection's remote identity in the tables
 * @tw: the identity, with remote ID, CA GUID and QP filled in
 * @stale: set when the remote QP is another connection's (a stale
 *	connection), cleared when the remote ID is (a duplicate)
 *
 * Nothing is inserted if either is taken.
 *
 * Context: under cm.lock.
 * Return: NULL if inserted, else the identifier owning what was found,
 * referenced, or ERR_PTR(-ENOENT) if that identifier is gone (an orphan
 * in its timewait).
 */
struct cm_id_private *cm_remote_insert(struct cm_timewait *tw, bool *stale)
{
	u32 idkey = cm_remote_key(be32_to_cpu(tw->remote_id),
				  tw->remote_ca_guid);
	u32 qpkey = cm_remote_key(tw->remote_qpn, tw->remote_ca_guid);
	struct cm_timewait *cur;
	struct cm_id_private *owner;

	lockdep_assert_held(&cm.lock);
	hash_for_each_possible(cm.remote_ids, cur, remote_id_node, idkey) {
		if (cur->remote_id == tw->remote_id &&
		    cur->remote_ca_guid == tw->remote_ca_guid) {
			*stale = false;
			goto found;
		}
	}
	hash_for_each_possible(cm.remote_qpns, cur, remote_qpn_node, qpkey) {
		if (cur->remote_qpn == tw->remote_qpn &&
		    cur->remote_ca_guid == tw->remote_ca_guid) {
			*stale = true;
			goto found;
		}
	}
	hash_add(cm.remote_ids, &tw->remote_id_node, idkey);
	tw->id_hashed = true;
	hash_add(cm.remote_qpns, &tw->remote_qpn_node, qpkey);
	tw->qpn_hashed = true;
	return NULL;

found:
	if (cur->orphan)
		return ERR_PTR(-ENOENT);
	owner = cm_id_find(cur->local_id, 0, false);
	return owner ? owner : ERR_PTR(-ENOENT);
}

/**
 * cm_remote_id_find - the identifier connected to a remote ID and CA
 * @remote_id: the other side's Local Communication ID
 * @remote_ca_guid: the other side's CA GUID
 *
 * Context: any; takes cm.lock.
 * Return: the identifier, referenced, or NULL.
 */
struct cm_id_private *cm_remote_id_find(__be32 remote_id,
					__be64 remote_ca_guid)
{
	u32 key = cm_remote_key(be32_to_cpu(remote_id), remote_ca_guid);
	struct cm_id_private *cm_id = NULL;
	struct cm_timewait *cur;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	hash_for_each_possible(cm.remote_ids, cur, remote_id_node, key) {
		if (cur->remote_id == remote_id &&
		    cur->remote_ca_guid == remote_ca_guid) {
			if (!cur->orphan)
				cm_id = cm_id_find(cur->local_id, 0, false);
			break;
		}
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	return cm_id;
}

/**
 * cm_local_id_erase - free the local ID of an orphan timewait
 * @local_id: the local ID
 *
 * Context: under cm.lock.
 */
void cm_local_id_erase(__be32 local_id)
{
	lockdep_assert_held(&cm.lock);
	xa_lock(&cm.local_ids);
	__xa_erase(&cm.local_ids, cm_local_index(local_id));
	xa_unlock(&cm.local_ids);
}

/**
 * cm_remote_remove - take a connection's remote identity out of the tables
 * @tw: the identity
 *
 * Context: under cm.lock.
 */
void cm_remote_remove(struct cm_timewait *tw)
{
	lockdep_assert_held(&cm.lock);
	if (tw->id_hashed)
		hash_del(&tw->remote_id_node);
	if (tw->qpn_hashed)
		hash_del(&tw->remote_qpn_node);
	tw->id_hashed = false;
	tw->qpn_hashed = false;
}

/**
 * cm_reset_to_idle - end a connection attempt without a timewait
 * @cm_id: the identifier, locked
 *
 * Its remote identity leaves the tables and is freed.
 */
void cm_reset_to_idle(struct cm_id_private *cm_id)
{
	struct cm_timewait *tw = cm_id->tw;

	lockdep_assert_held(&cm_id->lock);
	cm_set_state(cm_id, IB_CM_IDLE);
	if (!tw)
		return;
	cm_id->tw = NULL;
	spin_lock(&cm.lock);
	cm_remote_remove(tw);
	spin_unlock(&cm.lock);
	cm_timewait_free(tw);
}

/* ------------------------------------------------------------------ */
/* Creation, listening, destruction                                    */
/* ------------------------------------------------------------------ */

/**
 * ib_create_cm_id - make a communication identifier
 * @device: the device all its communication goes through
 * @cm_handler: the consumer's callback for its events
 * @context: stored in the identifier's context for the consumer
 *
 * The identifier is idle: it can then listen, connect (ib_send_cm_req())
 * or resolve a service ID (ib_send_cm_sidr_req()).
 *
 * Context: process context.
 * Return: the identifier, or ERR_PTR(-ENODEV) if the device has no IB CM
 * (or is going away), or ERR_PTR(-ENOMEM).
 */
struct ib_cm_id *ib_create_cm_id(struct ib_device *device,
				 ib_cm_handler cm_handler, void *context)
{
	struct cm_id_private *cm_id;
	struct cm_device *cm_dev;

	if (!device || !cm_handler)
		return ERR_PTR(-EINVAL);
	cm_dev = cm_dev_find_get(device);
	if (!cm_dev)
		return ERR_PTR(-ENODEV);
	cm_id = cm_id_alloc(cm_dev, cm_handler, context);
	if (IS_ERR(cm_id))
		return ERR_CAST(cm_id);
	return &cm_id->id;
}
EXPORT_SYMBOL(ib_create_cm_id);

/* Whether two listeners would both match some service ID. */
static bool cm_listen_overlap(__be64 a, __be64 amask, __be64 b, __be64 bmask)
{
	return !((a ^ b) & amask & bmask);
}

/* Caller holds cm.lock. */
static int cm_listen_insert(struct cm_id_private *cm_id)
{
	struct cm_id_private *cur;

	list_for_each_entry(cur, &cm.listens, listen_entry)
		if (cur->cm_dev == cm_id->cm_dev &&
		    cm_listen_overlap(cur->id.service_id, cur->service_mask,
				      cm_id->id.service_id,
				      cm_id->service_mask))
			return -EBUSY;
	list_add_tail(&cm_id->listen_entry, &cm.listens);
	cm_id->listen_sharecount = 1;
	return 0;
}

/**
 * ib_cm_listen_mask - listen for requests to the services under a mask
 * @cm_id: an idle identifier
 * @service_id: the service ID, or IB_CM_ASSIGN_SERVICE_ID for one the CM
 *	picks (it is then in @cm_id->service_id)
 * @service_mask: the bits of a request's service ID that must equal those
 *	of @service_id; all ones for exactly one service
 *
 * REQs and SIDR_REQs arriving on the identifier's device for a matching
 * service make new identifiers, given to @cm_id's handler with
 * IB_CM_REQ_RECEIVED or IB_CM_SIDR_REQ_RECEIVED.  A service no listener
 * matches is rejected with IB_CM_REJ_INVALID_SERVICE_ID (SIDR: with
 * IB_SIDR_UNSUPPORTED).
 *
 * Context: any.
 * Return: 0, -EINVAL if @cm_id is not idle or @service_id is in the range
 * the CM assigns from, -EBUSY if another listener of the device overlaps.
 */
int ib_cm_listen_mask(struct ib_cm_id *cm_id, __be64 service_id,
		      __be64 service_mask)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	unsigned long flags;
	int ret;

	if (service_id != IB_CM_ASSIGN_SERVICE_ID &&
	    (service_id & IB_SERVICE_ID_AGN_MASK) == IB_CM_ASSIGN_SERVICE_ID)
		return -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state != IB_CM_IDLE) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	spin_lock(&cm.lock);
	if (service_id == IB_CM_ASSIGN_SERVICE_ID) {
		service_id = cpu_to_be64(cm.next_service_id++);
		service_mask = cpu_to_be64(~0ULL);
	}
	cm_id->service_id = service_id & service_mask;
	priv->service_mask = service_mask;
	ret = cm_listen_insert(priv);
	spin_unlock(&cm.lock);
	if (!ret)
		cm_set_state(priv, IB_CM_LISTEN);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_listen_mask);

/**
 * ib_cm_listen - listen for requests to one service
 * @cm_id: an idle identifier
 * @service_id: the service ID, or IB_CM_ASSIGN_SERVICE_ID
 *
 * ib_cm_listen_mask() with a mask of all ones.
 *
 * Context: any.
 * Return: see ib_cm_listen_mask().
 */
int ib_cm_listen(struct ib_cm_id *cm_id, __be64 service_id)
{
	return ib_cm_listen_mask(cm_id, service_id, cpu_to_be64(~0ULL));
}
EXPORT_SYMBOL(ib_cm_listen);

/**
 * ib_cm_insert_listen - share a listener
 * @device: the device
 * @cm_handler: the callback of the listener
 * @service_id: the service, exactly
 *
 * Returns the device's listener for @service_id if it has the same
 * callback, one more user counted (ib_destroy_cm_id() then drops one
 * user), or else a new listener.
 *
 * Context: process context.
 * Return: the listener, or an ERR_PTR(): -EINVAL if another callback
 * listens to an overlapping service, -ENODEV, -ENOMEM.
 */
struct ib_cm_id *ib_cm_insert_listen(struct ib_device *device,
				     ib_cm_handler cm_handler,
				     __be64 service_id)
{
	struct cm_id_private *cur;
	struct ib_cm_id *cm_id;
	int ret;

	spin_lock_irq(&cm.lock);
	list_for_each_entry(cur, &cm.listens, listen_entry) {
		if (cur->id.device == device &&
		    cur->id.cm_handler == cm_handler &&
		    cur->id.service_id == service_id &&
		    cur->service_mask == cpu_to_be64(~0ULL) &&
		    cur->listen_sharecount > 0) {
			cur->listen_sharecount++;
			spin_unlock_irq(&cm.lock);
			return &cur->id;
		}
	}
	spin_unlock_irq(&cm.lock);

	cm_id = ib_create_cm_id(device, cm_handler, NULL);
	if (IS_ERR(cm_id))
		return cm_id;
	ret = ib_cm_listen(cm_id, service_id);
	if (ret) {
		ib_destroy_cm_id(cm_id);
		return ERR_PTR(ret == -EBUSY ? -EINVAL : ret);
	}
	return cm_id;
}
EXPORT_SYMBOL(ib_cm_insert_listen);

/**
 * cm_listen_find - the listener for a service on a device, referenced
 * @cm_dev: the device a request arrived on
 * @service_id: the service it asks for
 *
 * Context: under cm.lock.
 * Return: the listener or NULL.
 */
struct cm_id_private *cm_listen_find(struct cm_device *cm_dev,
				     __be64 service_id)
{
	struct cm_id_private *cur;

	lockdep_assert_held(&cm.lock);
	list_for_each_entry(cur, &cm.listens, listen_entry)
		if (cur->cm_dev == cm_dev && cur->listen_sharecount > 0 &&
		    !((cur->id.service_id ^ service_id) & cur->service_mask) &&
		    refcount_inc_not_zero(&cur->refcount))
			return cur;
	return NULL;
}

/*
 * Take the identifier to IDLE or TIMEWAIT, telling the other side what
 * the state requires.  Caller holds its lock.  Returns false for a shared
 * listener that still has users.
 */
static bool cm_id_teardown(struct cm_id_private *cm_id)
{
	for (;;) {
		switch (cm_id->id.state) {
		case IB_CM_LISTEN:
			spin_lock(&cm.lock);
			if (--cm_id->listen_sharecount > 0) {
				spin_unlock(&cm.lock);
				return false;
			}
			list_del_init(&cm_id->listen_entry);
			spin_unlock(&cm.lock);
			cm_set_state(cm_id, IB_CM_IDLE);
			return true;
		case IB_CM_SIDR_REQ_SENT:
			cm_msg_cancel(cm_id);
			cm_reset_to_idle(cm_id);
			return true;
		case IB_CM_SIDR_REQ_RCVD: {
			struct ib_cm_sidr_rep_param param = {
				.status = IB_SIDR_REJECT,
			};

			if (cm_send_sidr_rep_locked(cm_id, &param))
				cm_reset_to_idle(cm_id);
			break;
		}
		case IB_CM_REQ_SENT:
		case IB_CM_MRA_REQ_RCVD:
			cm_msg_cancel(cm_id);
			if (cm_send_rej_locked(cm_id, IB_CM_REJ_TIMEOUT,
					       &cm_id->cm_dev->ca_guid,
					       sizeof(cm_id->cm_dev->ca_guid),
					       NULL, 0))
				cm_reset_to_idle(cm_id);
			break;
		case IB_CM_REQ_RCVD:
		case IB_CM_MRA_REQ_SENT:
		case IB_CM_REP_RCVD:
		case IB_CM_MRA_REP_SENT:
		case IB_CM_REP_SENT:
		case IB_CM_MRA_REP_RCVD:
			if (cm_send_rej_locked(cm_id, IB_CM_REJ_CONSUMER_DEFINED,
					       NULL, 0, NULL, 0))
				cm_reset_to_idle(cm_id);
			break;
		case IB_CM_ESTABLISHED:
			if (cm_send_dreq_locked(cm_id, NULL, 0))
				cm_enter_timewait(cm_id);
			break;
		case IB_CM_DREQ_SENT:
			cm_msg_cancel(cm_id);
			cm_enter_timewait(cm_id);
			break;
		case IB_CM_DREQ_RCVD:
			if (cm_send_drep_locked(cm_id, NULL, 0))
				cm_enter_timewait(cm_id);
			break;
		case IB_CM_TIMEWAIT:
		case IB_CM_IDLE:
			return true;
		}
	}
}

/**
 * cm_id_destroy - destroy an identifier
 * @cm_id: the identifier
 * @from_callback: the caller is the delivery of an event to it, whose
 *	reference is dropped here too
 *
 * Context: process context; not from a callback of @cm_id itself.
 */
void cm_id_destroy(struct cm_id_private *cm_id, bool from_callback)
{
	struct cm_timewait *tw;
	unsigned long flags;
	u32 index;

	spin_lock_irqsave(&cm_id->lock, flags);
	if (!cm_id_teardown(cm_id)) {
		spin_unlock_irqrestore(&cm_id->lock, flags);
		if (from_callback)
			cm_id_put(cm_id);
		return;
	}
	cm_id->destroying = true;
	cm_sidr_remove(cm_id);
	/* the local ID stays taken while the timewait goes on without us */
	tw = cm_id->id.state == IB_CM_TIMEWAIT ? cm_id->tw : NULL;
	index = cm_local_index(cm_id->id.local_id);
	spin_lock(&cm.lock);
	xa_lock(&cm.local_ids);
	if (tw && tw->waiting) {
		tw->orphan = true;
		__xa_store(&cm.local_ids, index, NULL, GFP_ATOMIC);
	} else {
		__xa_erase(&cm.local_ids, index);
	}
	xa_unlock(&cm.local_ids);
	spin_unlock(&cm.lock);
	cm_id->tw = NULL;
	spin_unlock_irqrestore(&cm_id->lock, flags);

	if (from_callback)
		cm_id_put(cm_id);
	cm_id_put(cm_id);
	wait_for_completion(&cm_id->comp);
	/* (it finds no reference to take any more if it runs) */
	if (current_work() == &cm_id->event_work)
		cancel_work(&cm_id->event_work);
	else
		cancel_work_sync(&cm_id->event_work);

	kfree(cm_id->last);
	cm_dev_put(cm_id->cm_dev);
	kfree(cm_id);
}

/**
 * ib_destroy_cm_id - destroy a communication identifier
 * @cm_id: the identifier
 *
 * Ends what it does as the IBA asks: a listener stops listening (a shared
 * one loses one user), a pending request is rejected (IB_CM_REJ_TIMEOUT
 * from the requester, IB_CM_REJ_CONSUMER_DEFINED from the responder), a
 * connection is disconnected with a DREQ and its timewait goes on without
 * the identifier.  Waits until no callback of it runs and nothing of it
 * is in flight.  Not to be called from the identifier's own callback
 * (return non-zero there instead).
 *
 * Context: process context; may sleep.
 */
void ib_destroy_cm_id(struct ib_cm_id *cm_id)
{
	cm_id_destroy(to_cm_id(cm_id), false);
}
EXPORT_SYMBOL(ib_destroy_cm_id);

/**
 * cm_port_get - the CM of a port, for the KUnit suites
 * @device: the device
 * @port_num: the port
 *
 * Return: the port, valid until the device is removed, or NULL.
 */
#if IS_ENABLED(CONFIG_KUNIT)
struct cm_port *cm_port_get(struct ib_device *device, u32 port_num)
{
	struct cm_device *cm_dev = cm_dev_find_get(device);
	struct cm_port *port = NULL;

	if (!cm_dev)
		return NULL;
	if (port_num >= 1 && port_num <= cm_dev->num_ports &&
	    cm_dev->port[port_num - 1].active)
		port = &cm_dev->port[port_num - 1];
	cm_dev_put(cm_dev);
	return port;
}
EXPORT_SYMBOL_IF_KUNIT(cm_port_get);
#endif

/* ------------------------------------------------------------------ */
/* Module                                                              */
/* ------------------------------------------------------------------ */

static int __init ib_cm_init(void)
{
	int ret;

	spin_lock_init(&cm.lock);
	INIT_LIST_HEAD(&cm.devices);
	INIT_LIST_HEAD(&cm.listens);
	INIT_LIST_HEAD(&cm.timewaits);
	hash_init(cm.remote_ids);
	hash_init(cm.remote_qpns);
	hash_init(cm.sidrs);
	xa_init_flags(&cm.local_ids, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	cm.id_operand = get_random_u32();
	cm.next_local_id = get_random_u32();
	cm.next_service_id = be64_to_cpu(IB_CM_ASSIGN_SERVICE_ID);
	atomic_set(&cm.tid, get_random_u32());
	/* the index that would make local ID 0 is never handed out */
	ret = xa_reserve_irq(&cm.local_ids, cm.id_operand, GFP_KERNEL);
	if (ret)
		return ret;

	cm_sysfs_init();
	cm.wq = alloc_ordered_workqueue("ib_cm", WQ_MEM_RECLAIM);
	if (!cm.wq) {
		ret = -ENOMEM;
		goto err_xa;
	}
	ret = ib_register_client(&cm_client);
	if (ret)
		goto err_wq;
	return 0;

err_wq:
	destroy_workqueue(cm.wq);
err_xa:
	xa_destroy(&cm.local_ids);
	return ret;
}

static void __exit ib_cm_cleanup(void)
{
	ib_unregister_client(&cm_client);
	destroy_workqueue(cm.wq);
	xa_release(&cm.local_ids, cm.id_operand);
	WARN_ON(!xa_empty(&cm.local_ids));
	xa_destroy(&cm.local_ids);
}

module_init(ib_cm_init);
module_exit(ib_cm_cleanup);
