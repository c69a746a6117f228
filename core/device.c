// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device and client registration: where RDMA drivers and the users of
 * their devices meet.
 *
 * Every (client, device) pair sees exactly one add call once both are
 * registered, and exactly one remove call for an accepted add when either
 * goes away, whatever order the four events happen in.  This is achieved
 * by running every registration change, and so every callback, under one
 * mutex.  Lookups by name or index take a separate rwsem so that they never
 * wait for a slow client callback.
 *
 * The clients are also asked questions on behalf of others: which
 * character device they offer (nldev, under the mutex) and which net
 * device a connection request is for (the RDMA CM, from the IB CM's work
 * queue, which a client's remove callback may flush: so under a third
 * lock, which no callback of the registration path runs under).
 */
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "core_priv.h"
#include "sa.h"

MODULE_AUTHOR("The ibstack developers");
MODULE_DESCRIPTION("InfiniBand core: device and client registration");
MODULE_LICENSE("Dual BSD/GPL");

/*
 * ib_reg_mutex serialises all changes of registration state and thereby
 * all client add/remove callbacks.  It protects ib_clients, the reg_state
 * of every device, the set of entries in each device's client_data and
 * the IB_DEVICE_LIVE marks.  Lock order: ib_reg_mutex, then
 * ib_devices_rwsem.
 */
static DEFINE_MUTEX(ib_reg_mutex);
static LIST_HEAD(ib_clients);
static DEFINE_IDA(ib_client_ida);

/*
 * ib_clients_rwsem lets ib_get_net_dev_by_params() walk ib_clients and
 * call the clients attached to a device without ib_reg_mutex.  It is taken
 * for writing, always under ib_reg_mutex and never across a callback, to
 * add a client to ib_clients or take it off, and to set or clear the live
 * flag of a client's context on a device: live from the end of an accepted
 * add until just before remove.  So ib_clients changes only with both locks
 * held and may be walked under either.  Lock order: ib_reg_mutex, then
 * ib_clients_rwsem.
 */
static DECLARE_RWSEM(ib_clients_rwsem);

/*
 * ib_devices_rwsem protects ib_devices, ib_devices_next and the names of
 * the devices in ib_devices.  A device is in ib_devices from the moment it
 * gets its name until the end of its unregistration, so a name is never
 * handed out twice; it carries IB_DEVICE_LIVE while lookups may find it.
 */
static DECLARE_RWSEM(ib_devices_rwsem);
static DEFINE_XARRAY_FLAGS(ib_devices, XA_FLAGS_ALLOC);
static u32 ib_devices_next;
#define IB_DEVICE_LIVE XA_MARK_1

/* Where ib_alloc_cq() completions are handled (see cq.c). */
struct workqueue_struct *ib_comp_wq;
struct workqueue_struct *ib_comp_unbound_wq;

/*
 * What a device keeps for each client that accepted it.  @live: the add
 * callback has accepted the device and remove has not been called yet
 * (set and cleared under ib_clients_rwsem).  The context is freed after an
 * RCU grace period.
 */
struct ib_client_ctx {
	void *data;
	bool live;
	struct rcu_head rcu;
};

/* What a device does before its driver sets its ops: nothing. */
static const struct ib_device_ops ib_no_ops;

static void ib_device_release(struct device *dev)
{
	struct ib_device *device = rdma_device_to_ibdev(dev);

	WARN_ON(!xa_empty(&device->client_data));
	xa_destroy(&device->client_data);
	ib_cache_release_one(device);
	rdma_restrack_free(device);
	kfree(device);
}

/**
 * _ib_alloc_device - allocate an ib_device with room for driver data
 * @size: size of the driver structure; the ib_device must come first in it
 *
 * Drivers use the ib_alloc_device() wrapper.  The result is released with
 * ib_dealloc_device().
 *
 * Return: the zeroed device, or NULL.
 */
struct ib_device *_ib_alloc_device(size_t size)
{
	struct ib_device *device;

	if (WARN_ON(size < sizeof(*device)))
		return NULL;

	device = kzalloc(size, GFP_KERNEL);
	if (!device)
		return NULL;

	if (rdma_restrack_init(device)) {
		kfree(device);
		return NULL;
	}
	device->ops = &ib_no_ops;
	device->dev.release = ib_device_release;
	ib_device_sysfs_setup(device);
	device_initialize(&device->dev);
	xa_init(&device->client_data);
	init_completion(&device->unreg_completion);
	init_rwsem(&device->event_handler_rwsem);
	INIT_LIST_HEAD(&device->event_handler_list);
	device->reg_state = IB_DEV_NEW;
	return device;
}
EXPORT_SYMBOL(_ib_alloc_device);

/**
 * ib_dealloc_device - drop the driver's reference to a device
 * @device: a device from ib_alloc_device(), not registered any more
 *
 * The memory is freed once the last reference (see get_device()) is gone,
 * which may be later if a client still holds one.
 */
void ib_dealloc_device(struct ib_device *device)
{
	WARN_ON(READ_ONCE(device->reg_state) == IB_DEV_LIVE);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_dealloc_device);

/*
 * Check a requested device name.  Returns 1 for a template holding one
 * "%d", 0 for a literal name, or -EINVAL.  Names become sysfs directory
 * names, so '/', white space, "." and ".." are refused.
 */
static int ib_check_name(const char *name)
{
	size_t len = strnlen(name, IB_DEVICE_NAME_MAX);
	const char *pct, *p;

	if (!len || len == IB_DEVICE_NAME_MAX)
		return -EINVAL;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (p = name; *p; p++)
		if (*p == '/' || isspace(*p))
			return -EINVAL;

	pct = strchr(name, '%');
	if (!pct)
		return 0;
	if (pct[1] != 'd' || strchr(pct + 2, '%'))
		return -EINVAL;
	return 1;
}

/* Caller holds ib_devices_rwsem. */
static bool ib_name_taken(const char *name)
{
	struct ib_device *device;
	unsigned long index;

	xa_for_each(&ib_devices, index, device)
		if (!strcmp(name, dev_name(&device->dev)))
			return true;
	return false;
}

/*
 * Give @device its name, the lowest free one for a template, and its
 * index, and enter it in ib_devices (not yet visible to lookups).
 */
static int ib_assign_name(struct ib_device *device, const char *name)
{
	char buf[IB_DEVICE_NAME_MAX];
	const char *pct;
	int prefix_len;
	unsigned int i;
	int ret;

	ret = ib_check_name(name);
	if (ret < 0)
		return ret;

	down_write(&ib_devices_rwsem);
	if (!ret) {
		if (ib_name_taken(name)) {
			ret = -EEXIST;
			goto out;
		}
		strscpy(buf, name, sizeof(buf));
	} else {
		pct = strchr(name, '%');
		prefix_len = pct - name;
		/* With n devices named, one of 0..n is free. */
		for (i = 0; ; i++) {
			ret = snprintf(buf, sizeof(buf), "%.*s%u%s",
				       prefix_len, name, i, pct + 2);
			if (ret >= sizeof(buf)) {
				ret = -ENFILE;
				goto out;
			}
			if (!ib_name_taken(buf))
				break;
		}
	}

	ret = dev_set_name(&device->dev, "%s", buf);
	if (ret)
		goto out;
	ret = xa_alloc_cyclic(&ib_devices, &device->index, device,
			      xa_limit_31b, &ib_devices_next, GFP_KERNEL);
	ret = ret < 0 ? ret : 0;
out:
	up_write(&ib_devices_rwsem);
	return ret;
}

static void ib_release_name(struct ib_device *device)
{
	down_write(&ib_devices_rwsem);
	xa_erase(&ib_devices, device->index);
	up_write(&ib_devices_rwsem);
}

static void ib_set_live(struct ib_device *device, bool live)
{
	down_write(&ib_devices_rwsem);
	if (live)
		xa_set_mark(&ib_devices, device->index, IB_DEVICE_LIVE);
	else
		xa_clear_mark(&ib_devices, device->index, IB_DEVICE_LIVE);
	up_write(&ib_devices_rwsem);
}

/*
 * Offer @device to @client.  Returns 0 when the client accepted or
 * declined it, or the client's error.  Caller holds ib_reg_mutex.
 */
static int ib_add_client_to_device(struct ib_device *device,
				   struct ib_client *client)
{
	struct ib_client_ctx *ctx;
	int ret;

	lockdep_assert_held(&ib_reg_mutex);

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;

	/* Stored first so that add() may call ib_set_client_data(). */
	ret = xa_err(xa_store(&device->client_data, client->client_id, ctx,
			      GFP_KERNEL));
	if (ret)
		goto err_free;

	if (client->add) {
		ret = client->add(device);
		if (ret)
			goto err_erase;
	}
	down_write(&ib_clients_rwsem);
	ctx->live = true;
	up_write(&ib_clients_rwsem);
	return 0;

err_erase:
	xa_erase(&device->client_data, client->client_id);
err_free:
	kfree_rcu(ctx, rcu);
	return ret == -EOPNOTSUPP ? 0 : ret;
}

/* Undo an accepted add, if there was one.  Caller holds ib_reg_mutex. */
static void ib_remove_client_from_device(struct ib_device *device,
					 struct ib_client *client)
{
	struct ib_client_ctx *ctx;

	lockdep_assert_held(&ib_reg_mutex);

	ctx = xa_load(&device->client_data, client->client_id);
	if (!ctx)
		return;

	/* lookups in flight are done with the client's data once we have it */
	down_write(&ib_clients_rwsem);
	ctx->live = false;
	up_write(&ib_clients_rwsem);
	if (client->remove)
		client->remove(device, ctx->data);
	xa_erase(&device->client_data, client->client_id);
	kfree_rcu(ctx, rcu);
}

/*
 * Take a live device away from lookups and clients, and wait for the
 * last registration reference.  Caller holds ib_reg_mutex.
 */
static void ib_disable_device(struct ib_device *device)
{
	struct ib_client *client;

	ib_set_live(device, false);
	list_for_each_entry_reverse(client, &ib_clients, list)
		ib_remove_client_from_device(device, client);

	ib_device_release_netdevs(device);
	ib_device_put(device);
	wait_for_completion(&device->unreg_completion);
	rdma_restrack_report(device);
	WRITE_ONCE(device->reg_state, IB_DEV_GONE);
}

/**
 * ib_register_device - make a device visible to clients and userspace
 * @device: a device from ib_alloc_device(), filled in by the driver
 * @name: the device name, or a template with one "%d" that is replaced by
 *	the lowest number giving an unused name (e.g. "vmlx%d")
 * @dma_device: the device to map DMA for, which also becomes the parent
 *	in sysfs; NULL for a software device, whose driver may set
 *	@device->dev.parent itself (or leave it NULL for a virtual device)
 *
 * Reads the device attributes and port data from the driver, creates
 * /sys/class/infiniband/<name> and calls the add callback of every
 * registered client.  If a client's add fails, the device is taken down
 * again and the error returned.  A device is registered at most once; after
 * a failure from device_add() on it can only be deallocated, after an
 * earlier one (a refused name, say) it may be registered again.
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno.
 */
int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device)
{
	struct ib_client *client;
	int ret;

	mutex_lock(&ib_reg_mutex);
	if (device->reg_state != IB_DEV_NEW) {
		ret = -EINVAL;
		goto err_unlock;
	}

	device->dma_device = dma_device;
	if (device->ops->query_device) {
		ret = device->ops->query_device(device, &device->attrs, NULL);
		if (ret)
			goto err_unlock;
	}
	ret = ib_cache_setup_one(device);
	if (ret)
		goto err_unlock;

	ret = ib_assign_name(device, name);
	if (ret)
		goto err_release_cache;

	/* a driver may have named a parent of its own */
	if (dma_device)
		device->dev.parent = dma_device;
	device->groups[1] = device->ops->device_group;
	ret = device_add(&device->dev);
	if (ret)
		goto err_gone;
	ret = ib_device_register_sysfs(device);
	if (ret)
		goto err_del;
	ib_device_register_rdmacg(device);

	refcount_set(&device->refcount, 1);
	WRITE_ONCE(device->reg_state, IB_DEV_LIVE);
	ib_set_live(device, true);

	list_for_each_entry(client, &ib_clients, list) {
		ret = ib_add_client_to_device(device, client);
		if (ret)
			goto err_disable;
	}
	mutex_unlock(&ib_reg_mutex);
	return 0;

err_disable:
	ib_disable_device(device);
	ib_device_unregister_rdmacg(device);
	ib_device_unregister_sysfs(device);
err_del:
	device_del(&device->dev);
err_gone:
	/* device_add() was called: the device cannot be added again */
	WRITE_ONCE(device->reg_state, IB_DEV_GONE);
	ib_release_name(device);
err_release_cache:
	ib_cache_release_one(device);
err_unlock:
	mutex_unlock(&ib_reg_mutex);
	return ret;
}
EXPORT_SYMBOL(ib_register_device);

/**
 * ib_unregister_device - take a device away from clients and userspace
 * @device: a device passed to ib_register_device()
 *
 * Calls the remove callback of every client that accepted the device, in
 * the reverse order of client registration, then waits until every
 * reference from ib_device_try_get() has been dropped.  On return the
 * device name is free for reuse; the memory lives on until
 * ib_dealloc_device() and any other holders have dropped their references.
 * Calling it for a device that is not registered does nothing.
 *
 * Context: process context; may sleep.  Must not be called from a client
 * callback or while holding a registration reference.
 */
void ib_unregister_device(struct ib_device *device)
{
	mutex_lock(&ib_reg_mutex);
	if (device->reg_state == IB_DEV_LIVE) {
		ib_disable_device(device);
		ib_device_unregister_rdmacg(device);
		ib_device_unregister_sysfs(device);
		device_del(&device->dev);
		ib_release_name(device);
	}
	mutex_unlock(&ib_reg_mutex);
}
EXPORT_SYMBOL(ib_unregister_device);

/**
 * ib_register_client - register an upper-layer user of RDMA devices
 * @client: the client; @client->name, add and remove are set by the caller
 *
 * Calls @client->add for every registered device, in index order.  If an
 * add fails, the devices already added are removed again and the error is
 * returned.
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno.
 */
int ib_register_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;
	int ret;

	mutex_lock(&ib_reg_mutex);
	ret = ida_alloc(&ib_client_ida, GFP_KERNEL);
	if (ret < 0)
		goto out_unlock;
	client->client_id = ret;
	down_write(&ib_clients_rwsem);
	list_add_tail(&client->list, &ib_clients);
	up_write(&ib_clients_rwsem);

	xa_for_each_marked(&ib_devices, index, device, IB_DEVICE_LIVE) {
		ret = ib_add_client_to_device(device, client);
		if (ret)
			goto err_remove;
	}
	mutex_unlock(&ib_reg_mutex);
	return 0;

err_remove:
	xa_for_each_marked(&ib_devices, index, device, IB_DEVICE_LIVE)
		ib_remove_client_from_device(device, client);
	down_write(&ib_clients_rwsem);
	list_del(&client->list);
	up_write(&ib_clients_rwsem);
	ida_free(&ib_client_ida, client->client_id);
out_unlock:
	mutex_unlock(&ib_reg_mutex);
	return ret;
}
EXPORT_SYMBOL(ib_register_client);

/**
 * ib_unregister_client - unregister a client
 * @client: a client passed to ib_register_client()
 *
 * Calls @client->remove for every device its add accepted.  On return no
 * callback of @client runs any more.
 *
 * Context: process context; may sleep.
 */
void ib_unregister_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;

	mutex_lock(&ib_reg_mutex);
	xa_for_each_marked(&ib_devices, index, device, IB_DEVICE_LIVE)
		ib_remove_client_from_device(device, client);
	down_write(&ib_clients_rwsem);
	list_del(&client->list);
	up_write(&ib_clients_rwsem);
	ida_free(&ib_client_ida, client->client_id);
	mutex_unlock(&ib_reg_mutex);
}
EXPORT_SYMBOL(ib_unregister_client);

/**
 * ib_set_client_data - attach a client's context to a device
 * @device: the device
 * @client: the client, whose add callback accepted @device
 * @data: the context, passed back to @client->remove
 *
 * May be called from the add callback onwards.
 */
void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data)
{
	struct ib_client_ctx *ctx;

	rcu_read_lock();
	ctx = xa_load(&device->client_data, client->client_id);
	if (!WARN_ON(!ctx))
		WRITE_ONCE(ctx->data, data);
	rcu_read_unlock();
}
EXPORT_SYMBOL(ib_set_client_data);

/**
 * ib_get_client_data - a client's context on a device
 * @device: the device
 * @client: the client
 *
 * Return: what @client set with ib_set_client_data(), or NULL if nothing
 * or if @client is not attached to @device.
 */
void *ib_get_client_data(struct ib_device *device, struct ib_client *client)
{
	struct ib_client_ctx *ctx;
	void *data = NULL;

	rcu_read_lock();
	ctx = xa_load(&device->client_data, client->client_id);
	if (ctx)
		data = READ_ONCE(ctx->data);
	rcu_read_unlock();
	return data;
}
EXPORT_SYMBOL(ib_get_client_data);

/*
 * Ask @client for its character device: the one for @device through
 * get_nl_info, or with @device NULL the one not tied to a device through
 * get_global_nl_info.  Caller holds ib_reg_mutex, which keeps the client
 * registered (and attached to @device) during the call.
 */
static int ib_client_nl_info(struct ib_client *client,
			     struct ib_device *device,
			     struct ib_client_nl_info *res)
{
	struct ib_client_ctx *ctx;

	lockdep_assert_held(&ib_reg_mutex);

	if (!device) {
		if (!client->get_global_nl_info)
			return -EOPNOTSUPP;
		return client->get_global_nl_info(res);
	}

	ctx = xa_load(&device->client_data, client->client_id);
	if (!ctx)
		return -ENOENT;
	if (!client->get_nl_info)
		return -EOPNOTSUPP;
	return client->get_nl_info(device, ctx->data, res);
}

/**
 * ib_get_client_nl_info - the character device a client offers
 * @device: the device, or NULL for a client whose character device is
 *	not tied to one (rdma_cm's /dev/infiniband/rdma_cm)
 * @client_name: the client's name, e.g. "uverbs" or "rdma_cm"
 * @res: filled in by the client
 *
 * Asks the first registered client of that name: its get_nl_info callback
 * for @device, or its get_global_nl_info callback without one.  The
 * callback runs under the core's registration lock.  On success
 * @res->cdev is held with get_device(); the caller drops it with
 * put_device().
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOENT if no client of that name is registered (or attached
 * to @device); -EOPNOTSUPP if it offers no such character device; or the
 * client's error.
 */
int ib_get_client_nl_info(struct ib_device *device, const char *client_name,
			  struct ib_client_nl_info *res)
{
	struct ib_client *client;
	int ret = -ENOENT;

	memset(res, 0, sizeof(*res));
	mutex_lock(&ib_reg_mutex);
	list_for_each_entry(client, &ib_clients, list) {
		if (strcmp(client->name, client_name))
			continue;
		ret = ib_client_nl_info(client, device, res);
		if (!ret && !res->cdev)
			ret = -EOPNOTSUPP;
		if (!ret)
			get_device(res->cdev);
		break;
	}
	mutex_unlock(&ib_reg_mutex);
	return ret;
}
EXPORT_SYMBOL(ib_get_client_nl_info);

/**
 * ib_get_net_dev_by_params - the net device a connection request is for
 * @dev: the device the request arrived on; the caller keeps it alive
 * @port: the port it arrived on
 * @pkey: its P_Key
 * @gid: its destination GID, a GID of @port
 * @addr: the destination IP address it carries, or NULL if none
 *
 * Asks every client attached to @dev that has a get_net_dev_by_params
 * callback, in the order the clients registered, until one names a net
 * device (IPoIB does, for its interfaces).  The RDMA CM uses it to find
 * the interface, and so the network namespace, of an incoming REQ.
 *
 * The walk holds ib_clients_rwsem for reading, not ib_reg_mutex: the
 * caller may be a work item that a client's remove callback waits for
 * under ib_reg_mutex.  A client whose context is live is past its add and
 * stays before its remove until the walk is over.
 *
 * Context: process context; may sleep.  Not from a client's add or remove
 * callback.
 * Return: the net device, held with dev_hold() (the caller drops it with
 * dev_put()), or NULL if no client knows one or @port is not a port of
 * @dev.
 */
struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port,
					    u16 pkey, const union ib_gid *gid,
					    const struct sockaddr *addr)
{
	struct net_device *ndev = NULL;
	struct ib_client_ctx *ctx;
	struct ib_client *client;
	bool live;
	void *data;

	if (!rdma_is_port_valid(dev, port))
		return NULL;

	down_read(&ib_clients_rwsem);
	list_for_each_entry(client, &ib_clients, list) {
		if (!client->get_net_dev_by_params)
			continue;
		/* a context may be freed once it is not live any more */
		rcu_read_lock();
		ctx = xa_load(&dev->client_data, client->client_id);
		live = ctx && ctx->live;
		data = live ? READ_ONCE(ctx->data) : NULL;
		rcu_read_unlock();
		if (!live)
			continue;
		ndev = client->get_net_dev_by_params(dev, port, pkey, gid, addr,
						     data);
		if (ndev)
			break;
	}
	up_read(&ib_clients_rwsem);
	return ndev;
}
EXPORT_SYMBOL(ib_get_net_dev_by_params);

/**
 * ib_device_put - drop a reference from ib_device_try_get()
 * @device: the device
 */
void ib_device_put(struct ib_device *device)
{
	if (refcount_dec_and_test(&device->refcount))
		complete(&device->unreg_completion);
}
EXPORT_SYMBOL(ib_device_put);

/**
 * ib_device_get_by_index - find a registered device by index
 * @index: the device index
 *
 * Return: the device with a registration reference, to be dropped with
 * ib_device_put(), or NULL.
 */
struct ib_device *ib_device_get_by_index(u32 index)
{
	struct ib_device *device;

	down_read(&ib_devices_rwsem);
	device = xa_load(&ib_devices, index);
	if (device && (!xa_get_mark(&ib_devices, index, IB_DEVICE_LIVE) ||
		       !ib_device_try_get(device)))
		device = NULL;
	up_read(&ib_devices_rwsem);
	return device;
}
EXPORT_SYMBOL(ib_device_get_by_index);

/**
 * ib_device_get_by_name - find a registered device by name
 * @name: the device name
 *
 * Return: the device with a registration reference, to be dropped with
 * ib_device_put(), or NULL.
 */
struct ib_device *ib_device_get_by_name(const char *name)
{
	struct ib_device *device, *found = NULL;
	unsigned long index;

	down_read(&ib_devices_rwsem);
	xa_for_each_marked(&ib_devices, index, device, IB_DEVICE_LIVE) {
		if (!strcmp(name, dev_name(&device->dev))) {
			if (ib_device_try_get(device))
				found = device;
			break;
		}
	}
	up_read(&ib_devices_rwsem);
	return found;
}
EXPORT_SYMBOL(ib_device_get_by_name);

/*
 * The registered device with the lowest index >= *@index, with a
 * registration reference (drop it with ib_device_put()); *@index is set
 * to its index.  NULL when there is none.  For walks that must not hold
 * ib_devices_rwsem between devices, such as netlink dumps.
 */
struct ib_device *ib_device_get_next(unsigned long *index)
{
	struct ib_device *device;

	down_read(&ib_devices_rwsem);
	for (device = xa_find(&ib_devices, index, ULONG_MAX, IB_DEVICE_LIVE);
	     device;
	     device = xa_find_after(&ib_devices, index, ULONG_MAX,
				    IB_DEVICE_LIVE))
		if (ib_device_try_get(device))
			break;
	up_read(&ib_devices_rwsem);
	return device;
}

/**
 * ib_modify_device - change device attributes
 * @device: the device
 * @mask: what to change, a mask of enum ib_device_modify_flags
 * @modify: the new values
 *
 * Return: 0, -EOPNOTSUPP if the driver cannot change attributes, -EINVAL
 * for unknown bits in @mask, or the driver's error.
 */
int ib_modify_device(struct ib_device *device, int mask,
		     struct ib_device_modify *modify)
{
	if (!device->ops->modify_device)
		return -EOPNOTSUPP;
	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
		     IB_DEVICE_MODIFY_NODE_DESC))
		return -EINVAL;
	return device->ops->modify_device(device, mask, modify);
}
EXPORT_SYMBOL(ib_modify_device);

/**
 * ib_get_device_fw_str - the device's firmware version text
 * @device: the device
 * @str: buffer of IB_FW_VERSION_NAME_MAX bytes; empty if the driver has no
 *	firmware version
 */
void ib_get_device_fw_str(struct ib_device *device, char *str)
{
	str[0] = '\0';
	if (device->ops->get_dev_fw_str)
		device->ops->get_dev_fw_str(device, str);
	str[IB_FW_VERSION_NAME_MAX - 1] = '\0';
}
EXPORT_SYMBOL(ib_get_device_fw_str);

static int __init ib_core_init(void)
{
	int ret = -ENOMEM;

	ib_comp_wq = alloc_workqueue("ib-comp-wq",
				     WQ_HIGHPRI | WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	if (!ib_comp_wq)
		goto err;
	ib_comp_unbound_wq = alloc_workqueue("ib-comp-unb-wq",
					     WQ_UNBOUND | WQ_HIGHPRI |
					     WQ_MEM_RECLAIM | WQ_SYSFS,
					     WQ_UNBOUND_MAX_ACTIVE);
	if (!ib_comp_unbound_wq)
		goto err_comp;
	ret = ib_events_init();
	if (ret)
		goto err_comp_unbound;
	ret = ib_sysfs_init();
	if (ret)
		goto err_events;
	ret = rdma_nl_init();
	if (ret)
		goto err_sysfs;
	ret = nldev_init();
	if (ret)
		goto err_nl;
	ret = ib_mad_init();
	if (ret)
		goto err_nldev;
	ret = ib_sa_init();
	if (ret)
		goto err_mad;
	ret = addr_init();
	if (ret)
		goto err_sa;
	ret = ib_security_init();
	if (ret)
		goto err_addr;
	return 0;

err_addr:
	addr_cleanup();
err_sa:
	ib_sa_cleanup();
err_mad:
	ib_mad_cleanup();
err_nldev:
	nldev_exit();
err_nl:
	rdma_nl_exit();
err_sysfs:
	ib_sysfs_cleanup();
err_events:
	ib_events_cleanup();
err_comp_unbound:
	destroy_workqueue(ib_comp_unbound_wq);
err_comp:
	destroy_workqueue(ib_comp_wq);
err:
	return ret;
}

static void __exit ib_core_exit(void)
{
	ib_security_cleanup();
	addr_cleanup();
	ib_sa_cleanup();
	ib_mad_cleanup();
	WARN_ON(!xa_empty(&ib_devices));
	nldev_exit();
	rdma_nl_exit();
	ib_sysfs_cleanup();
	ib_events_cleanup();
	destroy_workqueue(ib_comp_unbound_wq);
	destroy_workqueue(ib_comp_wq);
	ida_destroy(&ib_client_ida);
}

module_init(ib_core_init);
module_exit(ib_core_exit);
