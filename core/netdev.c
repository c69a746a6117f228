// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The net device of each port: the one network interface a port is
 * known by (ib0 for IPoIB on an InfiniBand port, the Ethernet device of
 * a RoCE port).  Whoever makes that interface names it here with
 * ib_device_set_netdev(); nldev reports it with the port ("rdma link"
 * shows "netdev ib0"), as upstream's core does.
 *
 * Locking: each port's netdev_lock (struct ib_port_data) protects its
 * netdev pointer; the port holds a reference on the net device it names.
 * The owner of the net device clears the pointer before the net device
 * is unregistered (ndo_uninit is the place), and the core drops whatever
 * is left when the IB device itself is unregistered, after the clients'
 * remove callbacks.  The port data lives from registration until the IB
 * device is freed.
 */
#include <linux/netdevice.h>

#include "core_priv.h"

/**
 * ib_device_set_netdev - name the net device of a port
 * @device: a registered IB device
 * @ndev: the net device, registered; NULL to forget the current one
 * @port: the port
 *
 * The port holds a reference on @ndev until it is replaced, cleared with
 * NULL, or the IB device is unregistered.  The caller must clear it before
 * @ndev is unregistered, or the unregistration would wait for the
 * reference forever.
 *
 * Context: any context that may take a spinlock.
 * Return: 0, or -EINVAL if @port is not a port of @device, or if @ndev is
 * not NULL and @device is not registered.
 */
int ib_device_set_netdev(struct ib_device *device, struct net_device *ndev,
			 u32 port)
{
	struct ib_port_data *pd;
	struct net_device *old;
	unsigned long flags;

	if (!device->port_data || !rdma_is_port_valid(device, port))
		return -EINVAL;
	if (ndev && READ_ONCE(device->reg_state) != IB_DEV_LIVE)
		return -EINVAL;
	pd = &device->port_data[port];

	spin_lock_irqsave(&pd->netdev_lock, flags);
	old = pd->netdev;
	if (old == ndev) {
		spin_unlock_irqrestore(&pd->netdev_lock, flags);
		return 0;
	}
	if (ndev)
		dev_hold(ndev);
	pd->netdev = ndev;
	spin_unlock_irqrestore(&pd->netdev_lock, flags);

	if (old)
		dev_put(old);
	return 0;
}
EXPORT_SYMBOL(ib_device_set_netdev);

/**
 * ib_device_get_netdev - the net device of a port, referenced
 * @device: the IB device
 * @port: the port
 *
 * Return: the net device with a reference the caller drops with dev_put(),
 * or NULL if the port has none or it is being unregistered.
 */
struct net_device *ib_device_get_netdev(struct ib_device *device, u32 port)
{
	struct net_device *ndev;
	struct ib_port_data *pd;
	unsigned long flags;

	if (!device->port_data || !rdma_is_port_valid(device, port))
		return NULL;
	pd = &device->port_data[port];

	spin_lock_irqsave(&pd->netdev_lock, flags);
	ndev = pd->netdev;
	if (ndev)
		dev_hold(ndev);
	spin_unlock_irqrestore(&pd->netdev_lock, flags);

	if (ndev && READ_ONCE(ndev->reg_state) != NETREG_REGISTERED) {
		dev_put(ndev);
		return NULL;
	}
	return ndev;
}

/*
 * Drop the net devices the ports still name; at unregistration, once no
 * client is left to name one.
 */
void ib_device_release_netdevs(struct ib_device *device)
{
	u32 port;

	if (!device->port_data)
		return;
	for (port = rdma_start_port(device); port <= rdma_end_port(device);
	     port++)
		ib_device_set_netdev(device, NULL, port);
}
