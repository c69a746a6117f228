// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Port events and what they do to the interfaces on the port: bringing
 * an interface's transport and multicast up and down, the three levels of
 * flush, and the link task that makes the address, MTU and carrier follow.
 *
 * The HCA's event handler (one per HCA, ipoib_device) queues a flush on
 * every interface of the event's port, parents and children alike:
 *   - CLIENT_REREGISTER, SM_CHANGE, GID_CHANGE: light.  The SM may have
 *     forgotten the memberships, and paths may have changed: every group
 *     is left and joined again, every path asked for again (the old AH
 *     serves meanwhile), and the address follows a new GID.
 *   - PORT_ERR, PORT_ACTIVE, LID_CHANGE: normal.  Paths and groups are
 *     forgotten and the carrier goes off; if the port is ACTIVE the
 *     interface joins again and the carrier comes back on after the
 *     broadcast group.
 *   - PKEY_CHANGE: heavy.  As normal, and the P_Key is looked up again: a
 *     parent takes the one at index 0, and a P_Key that moved or left the
 *     table takes the QP down (up again when it is back).
 * No event reloads anything; the interface keeps its name, address and
 * configuration.
 *
 * Locking: a flush holds priv->state_mutex, as ndo_open and ndo_stop do.
 * The link task needs RTNL, which ndo_stop and ndo_uninit hold while they
 * wait for it: it only tries RTNL, and comes back later when it is taken.
 * idev->lock keeps the list of interfaces stable while the handler queues
 * flushes, so none is queued on an interface past its ndo_uninit.
 */
#include <linux/rtnetlink.h>

#include "ipoib.h"

/**
 * ipoib_pkey_lookup - find the interface's P_Key in the port's table
 * @priv: the interface
 *
 * Return: true if it is there (priv->pkey_index is set).
 */
bool ipoib_pkey_lookup(struct ipoib_dev_priv *priv)
{
	u16 index;

	if (ib_find_pkey(priv->ca, priv->port, priv->pkey, &index)) {
		clear_bit(IPOIB_FLAG_PKEY_ASSIGNED, &priv->flags);
		return false;
	}
	priv->pkey_index = index;
	set_bit(IPOIB_FLAG_PKEY_ASSIGNED, &priv->flags);
	return true;
}

/**
 * ipoib_up - the transport to RTS, then paths and multicast
 * @priv: the interface, ADMIN_UP
 *
 * Without its P_Key in the port's table the interface waits for a
 * PKEY_CHANGE event, carrier off.
 *
 * Context: process context, priv->state_mutex held.
 * Return: 0 or a negative errno.
 */
int ipoib_up(struct ipoib_dev_priv *priv)
{
	int ret;

	if (!ipoib_pkey_lookup(priv)) {
		netdev_info(priv->dev,
			    "P_Key 0x%04x is not in port %u's table: waiting for it\n",
			    priv->pkey, priv->port);
		return 0;
	}
	ret = ipoib_ib_open(priv);
	if (ret)
		return ret;
	set_bit(IPOIB_FLAG_OPER_UP, &priv->flags);
	ipoib_mcast_start(priv);
	queue_delayed_work(priv->wq, &priv->gc_task,
			   IPOIB_GC_INTERVAL_SEC * HZ);
	return 0;
}

/**
 * ipoib_down - carrier off, groups left, paths and neighbours forgotten
 * @priv: the interface
 *
 * The transport stays as it is (ipoib_ib_stop() takes it down).
 *
 * Context: process context, priv->state_mutex held.
 */
void ipoib_down(struct ipoib_dev_priv *priv)
{
	ipoib_mcast_stop(priv);
	clear_bit(IPOIB_FLAG_OPER_UP, &priv->flags);
	cancel_delayed_work_sync(&priv->gc_task);
	ipoib_mcast_flush(priv);
	ipoib_flush_paths(priv);
}

/* A parent's P_Key is the one at index 0 of its port's table. */
static void ipoib_parent_pkey_update(struct ipoib_dev_priv *priv)
{
	u16 pkey;

	if (priv->parent || ib_query_pkey(priv->ca, priv->port, 0, &pkey) ||
	    !(pkey & 0x7fff))
		return;
	pkey |= 0x8000;
	if (pkey == priv->pkey)
		return;
	netdev_info(priv->dev, "P_Key 0x%04x at index 0 now, was 0x%04x\n",
		    pkey, priv->pkey);
	priv->pkey = pkey;
	ipoib_build_bcast_addr(priv->dev->broadcast, pkey);
}

static void ipoib_flush(struct ipoib_dev_priv *priv,
			enum ipoib_flush_level level)
{
	u16 old_pkey = priv->pkey, old_index = priv->pkey_index;
	bool had_pkey;

	mutex_lock(&priv->state_mutex);
	if (test_bit(IPOIB_FLAG_DYING, &priv->flags) ||
	    !test_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags))
		goto out;

	switch (level) {
	case IPOIB_FLUSH_LIGHT:
		if (!test_bit(IPOIB_FLAG_OPER_UP, &priv->flags))
			break;
		ipoib_mark_paths_invalid(priv);
		ipoib_mcast_stop(priv);
		ipoib_mcast_flush(priv);
		ipoib_mcast_start(priv);
		queue_delayed_work(priv->wq, &priv->link_task, 0);
		break;
	case IPOIB_FLUSH_NORMAL:
		ipoib_down(priv);
		if (ipoib_up(priv))
			netdev_warn(priv->dev, "could not come up again\n");
		break;
	case IPOIB_FLUSH_HEAVY:
		had_pkey = test_bit(IPOIB_FLAG_PKEY_ASSIGNED, &priv->flags);
		ipoib_parent_pkey_update(priv);
		ipoib_down(priv);
		if (!ipoib_pkey_lookup(priv) || !had_pkey ||
		    priv->pkey != old_pkey || priv->pkey_index != old_index)
			ipoib_ib_stop(priv);
		if (ipoib_up(priv))
			netdev_warn(priv->dev, "could not come up again\n");
		netif_tx_lock_bh(priv->dev);
		netif_wake_queue(priv->dev);
		netif_tx_unlock_bh(priv->dev);
		break;
	}
out:
	mutex_unlock(&priv->state_mutex);
}

/**
 * ipoib_flush_task - a flush queued by the event handler
 * @work: the work of a struct ipoib_flush_work
 *
 * Context: the interface's work queue.
 */
void ipoib_flush_task(struct work_struct *work)
{
	struct ipoib_flush_work *flush =
		container_of(work, struct ipoib_flush_work, work);

	ipoib_flush(flush->priv, flush->level);
}

/**
 * ipoib_event - the HCA's event handler
 * @handler: idev->event_handler
 * @event: the event
 *
 * Context: process context (the core's event work queue).
 */
void ipoib_event(struct ib_event_handler *handler, struct ib_event *event)
{
	struct ipoib_device *idev =
		container_of(handler, struct ipoib_device, event_handler);
	enum ipoib_flush_level level;
	struct ipoib_dev_priv *priv;

	switch (event->event) {
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_GID_CHANGE:
		level = IPOIB_FLUSH_LIGHT;
		break;
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
		level = IPOIB_FLUSH_NORMAL;
		break;
	case IB_EVENT_PKEY_CHANGE:
		level = IPOIB_FLUSH_HEAVY;
		break;
	default:
		return;
	}

	mutex_lock(&idev->lock);
	list_for_each_entry(priv, &idev->privs, dev_entry)
		if (priv->port == event->element.port_num)
			queue_work(priv->wq, &priv->flush[level].work);
	mutex_unlock(&idev->lock);
}

/**
 * ipoib_link_task - the address, MTU and carrier the port allows now
 * @work: priv->link_task
 *
 * The address follows the port's GID 0; the MTU is the smaller of the
 * administrator's and the broadcast group's; the carrier comes on once
 * the broadcast group is ready (it goes off without this task).
 *
 * Context: the interface's work queue; takes RTNL if it can.
 */
void ipoib_link_task(struct work_struct *work)
{
	struct ipoib_dev_priv *priv =
		container_of(work, struct ipoib_dev_priv, link_task.work);
	struct net_device *dev = priv->dev;
	u8 addr[INFINIBAND_ALEN];
	unsigned long flags;
	unsigned int mtu;

	if (test_bit(IPOIB_FLAG_DYING, &priv->flags))
		return;
	if (!rtnl_trylock()) {
		queue_delayed_work(priv->wq, &priv->link_task, HZ / 20);
		return;
	}

	spin_lock_irqsave(&priv->lock, flags);
	ipoib_build_hw_addr(addr, dev->dev_addr[0], priv->qp->qp_num,
			    &priv->local_gid);
	spin_unlock_irqrestore(&priv->lock, flags);
	if (memcmp(addr, dev->dev_addr, INFINIBAND_ALEN)) {
		dev_addr_set(dev, addr);
		call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
	}

	mtu = ipoib_max_mtu(priv);
	if (dev->mtu != mtu) {
		set_bit(IPOIB_FLAG_GROUP_MTU, &priv->flags);
		if (dev_set_mtu(dev, mtu))
			netdev_warn(dev, "MTU %u refused\n", mtu);
		clear_bit(IPOIB_FLAG_GROUP_MTU, &priv->flags);
	}

	spin_lock_irqsave(&priv->lock, flags);
	if (test_bit(IPOIB_FLAG_MCAST_UP, &priv->flags) && priv->broadcast &&
	    test_bit(IPOIB_MCAST_READY, &priv->broadcast->flags))
		netif_carrier_on(dev);
	spin_unlock_irqrestore(&priv->lock, flags);
	rtnl_unlock();
}
