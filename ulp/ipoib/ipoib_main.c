// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_ipoib: the module, its ib_client and the net devices it makes.
 *
 * For every port of every InfiniBand device the client's add callback
 * makes one net device named ib%d (ARPHRD_INFINIBAND, in the order the
 * HCAs and their ports come), whose parent in sysfs is the HCA's parent
 * device and whose dev_port is the port number less one.  Its 20-byte
 * hardware address is a flags byte, the UD QP's number and the port's
 * GID 0; its broadcast address is QPN 0xffffff and the MGID
 * ff12:401b:<P_Key>::ffff:ffff.  Frames carry a 4-byte encapsulation
 * header (EtherType, reserved); header_ops->create puts the destination's
 * hardware address in front of it, where ndo_start_xmit finds it (the
 * "pseudo header", never sent).
 *
 * The transport is ipoib_ib.c's, paths and neighbours ipoib_path.c's,
 * multicast ipoib_multicast.c's, port events and flushes ipoib_event.c's,
 * children ipoib_child.c's.  Here: the net device operations, MTU rules,
 * registration and the removal of everything on an HCA that goes away,
 * and which interface a connection request the RDMA CM got is for
 * (get_net_dev_by_params: P_Key, port GID and IP address).
 *
 * Locking: see ipoib.h.  The ib_client callbacks add and remove run under
 * the core's registration lock; they take RTNL to register and unregister
 * the net devices, never the other way round.  get_net_dev_by_params runs
 * without that lock (the core keeps remove from starting meanwhile) and
 * looks at the interfaces under idev->lock only, never RTNL.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>

#include "ipoib.h"

MODULE_AUTHOR("The ibstack developers");
MODULE_DESCRIPTION("IP over InfiniBand (datagram and connected modes)");
MODULE_LICENSE("Dual BSD/GPL");

/* The SA client every query and join of the module goes through. */
struct ib_sa_client ipoib_sa_client;

static struct ib_client ipoib_client;

unsigned int ipoib_recvq_size = IPOIB_RX_RING_DEFAULT;
unsigned int ipoib_sendq_size = IPOIB_TX_RING_DEFAULT;

/*
 * A ring size: IPOIB_MIN_QUEUE_SIZE to IPOIB_MAX_QUEUE_SIZE, rounded up to
 * a power of two; anything else is refused and the module does not load.
 */
static int ipoib_queue_size_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n < IPOIB_MIN_QUEUE_SIZE || n > IPOIB_MAX_QUEUE_SIZE)
		return -EINVAL;
	*(unsigned int *)kp->arg = roundup_pow_of_two(n);
	return 0;
}

static const struct kernel_param_ops ipoib_queue_size_ops = {
	.set = ipoib_queue_size_set,
	.get = param_get_uint,
};

module_param_cb(recv_queue_size, &ipoib_queue_size_ops, &ipoib_recvq_size,
		0444);
MODULE_PARM_DESC(recv_queue_size,
		 "Receive buffers per interface, 2 to 8192 (default 256)");
module_param_cb(send_queue_size, &ipoib_queue_size_ops, &ipoib_sendq_size,
		0444);
MODULE_PARM_DESC(send_queue_size,
		 "Sends in flight per interface, 2 to 8192 (default 128)");

/**
 * ipoib_build_hw_addr - the 20-byte hardware address of an interface
 * @addr: INFINIBAND_ALEN bytes to fill
 * @flags: the flags byte (IPOIB_HWADDR_RC when connected mode is offered)
 * @qpn: the UD QP's number, 24 bits
 * @gid: the port's GID
 *
 * RFC 4391 section 9.1.1: flags, QPN (big endian, 3 bytes), GID.
 */
void ipoib_build_hw_addr(u8 *addr, u8 flags, u32 qpn,
			 const union ib_gid *gid)
{
	addr[0] = flags;
	addr[1] = (qpn >> 16) & 0xff;
	addr[2] = (qpn >> 8) & 0xff;
	addr[3] = qpn & 0xff;
	memcpy(addr + 4, gid->raw, sizeof(gid->raw));
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_build_hw_addr);

/**
 * ipoib_build_bcast_addr - the broadcast hardware address of a partition
 * @addr: INFINIBAND_ALEN bytes to fill
 * @pkey: the P_Key; the full membership bit is set in the address
 *
 * The multicast QPN and the all-IPoIB-nodes group of IPv4 with link-local
 * scope: ff12:401b:<pkey>:0000:0000:0000:ffff:ffff (RFC 4391 section 4).
 */
void ipoib_build_bcast_addr(u8 *addr, u16 pkey)
{
	static const u8 bcast[INFINIBAND_ALEN] = {
		0x00, 0xff, 0xff, 0xff,
		0xff, 0x12, 0x40, 0x1b, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	};

	memcpy(addr, bcast, INFINIBAND_ALEN);
	pkey |= 0x8000;
	addr[8] = pkey >> 8;
	addr[9] = pkey & 0xff;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_build_bcast_addr);

/**
 * ipoib_push_headers - put the encapsulation and pseudo headers on a frame
 * @skb: the frame, its payload at skb->data
 * @type: the EtherType, host order
 * @daddr: the destination's hardware address, INFINIBAND_ALEN bytes
 *
 * Context: any; the skb must have IPOIB_HARD_LEN bytes of headroom.
 * Return: IPOIB_HARD_LEN, or -IPOIB_HARD_LEN without a destination (as
 * header_ops->create says an incomplete header).
 */
VISIBLE_IF_KUNIT int ipoib_push_headers(struct sk_buff *skb, u16 type,
					const void *daddr)
{
	struct ipoib_pseudo_header *phdr;
	struct ipoib_header *hdr;

	if (!daddr)
		return -IPOIB_HARD_LEN;
	hdr = skb_push(skb, sizeof(*hdr));
	hdr->proto = htons(type);
	hdr->reserved = 0;
	phdr = skb_push(skb, sizeof(*phdr));
	memcpy(phdr->hwaddr, daddr, INFINIBAND_ALEN);
	return IPOIB_HARD_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_push_headers);

static int ipoib_hard_header(struct sk_buff *skb, struct net_device *dev,
			     unsigned short type, const void *daddr,
			     const void *saddr, unsigned int len)
{
	return ipoib_push_headers(skb, type, daddr);
}

static const struct header_ops ipoib_header_ops = {
	.create	= ipoib_hard_header,
};

/*
 * ndo_start_xmit: the pseudo header names the destination.  Multicast
 * goes to ipoib_multicast.c with our P_Key in the MGID, unicast to
 * ipoib_path.c; both either send now or hold the frame (pseudo header
 * and all) until they can, then put it through dev_queue_xmit() again.
 */
static netdev_tx_t ipoib_start_xmit(struct sk_buff *skb,
				    struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	struct ipoib_pseudo_header *phdr;
	u8 daddr[INFINIBAND_ALEN];

	if (unlikely(!pskb_may_pull(skb, IPOIB_HARD_LEN))) {
		ipoib_count(priv, tx_bad_frame);
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}

	phdr = (struct ipoib_pseudo_header *)skb->data;
	if (ipoib_is_mcast_addr(phdr->hwaddr)) {
		phdr->hwaddr[8] = priv->pkey >> 8;
		phdr->hwaddr[9] = priv->pkey & 0xff;
		memcpy(daddr, phdr->hwaddr, sizeof(daddr));
		ipoib_mcast_send(priv, skb, daddr);
	} else {
		memcpy(daddr, phdr->hwaddr, sizeof(daddr));
		ipoib_unicast_send(priv, skb, daddr);
	}
	return NETDEV_TX_OK;
}

static int ipoib_open(struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	int ret;

	mutex_lock(&priv->state_mutex);
	set_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
	ret = ipoib_up(priv);
	if (ret)
		clear_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
	mutex_unlock(&priv->state_mutex);
	if (ret)
		return ret;
	netif_start_queue(dev);
	return 0;
}

static int ipoib_stop(struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	netif_stop_queue(dev);
	mutex_lock(&priv->state_mutex);
	clear_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
	ipoib_down(priv);
	ipoib_ib_stop(priv);
	mutex_unlock(&priv->state_mutex);
	return 0;
}

/**
 * ipoib_max_mtu - the MTU the interface has now
 * @priv: the interface
 *
 * In connected mode the administrator's (up to IPOIB_CM_MTU); in datagram
 * mode the smaller of that and what the broadcast group allows.
 *
 * Return: the MTU.
 */
unsigned int ipoib_max_mtu(struct ipoib_dev_priv *priv)
{
	if (ipoib_cm_admin(priv))
		return priv->admin_mtu;
	return min(READ_ONCE(priv->mcast_mtu), priv->admin_mtu);
}

/*
 * The MTU: in datagram mode at most what a UD datagram of the port's
 * largest IB MTU holds, and what the interface gets is the smaller of
 * that wish and what the broadcast group allows (the link task applies
 * it after a join); in connected mode up to IPOIB_CM_MTU.
 */
static int ipoib_change_mtu(struct net_device *dev, int new_mtu)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	unsigned int max = ipoib_cm_admin(priv) ? IPOIB_CM_MTU :
			   IPOIB_UD_MTU(priv->max_ib_mtu);

	if (new_mtu > max)
		return -EINVAL;
	/* the link task's change is the group's, not the administrator's */
	if (!test_bit(IPOIB_FLAG_GROUP_MTU, &priv->flags))
		priv->admin_mtu = new_mtu;
	dev->mtu = ipoib_cm_admin(priv) ? new_mtu :
		   min_t(unsigned int, priv->mcast_mtu, new_mtu);
	return 0;
}

static void ipoib_set_rx_mode(struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	if (!test_bit(IPOIB_FLAG_DYING, &priv->flags))
		queue_work(priv->wq, &priv->restart_task);
}

static void ipoib_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	netdev_warn(dev, "send queue stalled: %u sends outstanding\n",
		    READ_ONCE(priv->tx_head) - READ_ONCE(priv->tx_tail));
}

static int ipoib_get_iflink(const struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	return priv->parent ? priv->parent->ifindex : dev->ifindex;
}

/*
 * ndo_init: the transport (PD, CQs, UD QP, rings), the hardware and
 * broadcast addresses, and the device's place in its HCA's and parent's
 * lists.  Called under RTNL by register_netdevice().
 */
static int ipoib_dev_init(struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	u8 addr[INFINIBAND_ALEN];
	int ret;

	priv->wq = alloc_ordered_workqueue("ipoib_%s", WQ_MEM_RECLAIM,
					   dev->name);
	if (!priv->wq)
		return -ENOMEM;

	ret = ipoib_transport_init(priv);
	if (ret)
		goto err_wq;

	ret = rdma_query_gid(priv->ca, priv->port, 0, &priv->local_gid);
	if (ret)
		goto err_transport;
	ipoib_build_hw_addr(addr, 0, priv->qp->qp_num, &priv->local_gid);
	dev_addr_set(dev, addr);
	ipoib_build_bcast_addr(dev->broadcast, priv->pkey);
	/* the carrier comes with the broadcast group */
	netif_carrier_off(dev);

	mutex_lock(&priv->idev->lock);
	list_add_tail(&priv->dev_entry, &priv->idev->privs);
	mutex_unlock(&priv->idev->lock);
	if (priv->parent)
		list_add_tail(&priv->child_entry,
			      &ipoib_priv(priv->parent)->children);
	return 0;

err_transport:
	ipoib_transport_cleanup(priv);
err_wq:
	destroy_workqueue(priv->wq);
	priv->wq = NULL;
	return ret;
}

/*
 * ndo_uninit: the device is closed (ndo_stop ran if it was open); stop
 * every task, end what may be left, and free the transport.
 */
static void ipoib_dev_uninit(struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	int i;

	set_bit(IPOIB_FLAG_DYING, &priv->flags);
	if (!priv->parent)
		ib_device_set_netdev(priv->ca, NULL, priv->port);
	mutex_lock(&priv->idev->lock);
	list_del_init(&priv->dev_entry);
	mutex_unlock(&priv->idev->lock);
	if (priv->parent)
		ipoib_unlink_child(priv);

	for (i = 0; i <= IPOIB_FLUSH_HEAVY; i++)
		cancel_work_sync(&priv->flush[i].work);
	cancel_work_sync(&priv->restart_task);
	cancel_delayed_work_sync(&priv->mcast_task);
	cancel_delayed_work_sync(&priv->link_task);
	cancel_delayed_work_sync(&priv->gc_task);

	mutex_lock(&priv->state_mutex);
	ipoib_down(priv);
	ipoib_ib_stop(priv);
	mutex_unlock(&priv->state_mutex);

	cancel_work_sync(&priv->path_task);
	cancel_work_sync(&priv->cm.start_task);
	flush_workqueue(priv->wq);
	ipoib_transport_cleanup(priv);
	cancel_work_sync(&priv->reap_task);
	destroy_workqueue(priv->wq);
	priv->wq = NULL;
}

static const struct net_device_ops ipoib_netdev_ops = {
	.ndo_init		= ipoib_dev_init,
	.ndo_uninit		= ipoib_dev_uninit,
	.ndo_open		= ipoib_open,
	.ndo_stop		= ipoib_stop,
	.ndo_start_xmit		= ipoib_start_xmit,
	.ndo_change_mtu		= ipoib_change_mtu,
	.ndo_set_rx_mode	= ipoib_set_rx_mode,
	.ndo_tx_timeout		= ipoib_tx_timeout,
	.ndo_get_iflink		= ipoib_get_iflink,
};

/**
 * ipoib_is_ipoib_dev - whether a net device is one of ours
 * @dev: the net device
 *
 * Return: true for IPoIB interfaces, parents and children.
 */
bool ipoib_is_ipoib_dev(const struct net_device *dev)
{
	return dev->netdev_ops == &ipoib_netdev_ops;
}

/* The flags byte of the hardware address says whether RC is offered. */
static void ipoib_set_addr_flags(struct net_device *dev, u8 flags)
{
	if (dev->dev_addr[0] == flags)
		return;
	dev_addr_mod(dev, 0, &flags, 1);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
}

/*
 * Paths and neighbours forgotten after a switch: the next frame to each
 * peer finds its way in the new mode.
 */
static void ipoib_mode_flush(struct ipoib_dev_priv *priv)
{
	if (test_bit(IPOIB_FLAG_OPER_UP, &priv->flags))
		ipoib_flush_paths(priv);
}

/**
 * ipoib_set_mode - switch between datagram and connected mode
 * @dev: the interface
 * @mode: IPOIB_MODE_DATAGRAM or IPOIB_MODE_CONNECTED
 *
 * Connected mode sets the RC flag of the hardware address, listens for
 * connections and raises the MTU to IPOIB_CM_MTU; datagram mode lowers
 * the MTU to what datagrams carry first, then ends every connection and
 * clears the flag.  Either flushes the paths.  Connections in flight are
 * ended (DREQ); TCP connections above live on.
 *
 * Context: RTNL held.
 * Return: 0; -EOPNOTSUPP for connected mode on an HCA without what it
 * needs; -EINVAL for another value; or why connected mode did not open.
 */
int ipoib_set_mode(struct net_device *dev, u16 mode)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	unsigned int mtu;
	int ret = 0;

	ASSERT_RTNL();
	switch (mode) {
	case IPOIB_MODE_CONNECTED:
		if (ipoib_cm_admin(priv))
			return 0;
		if (!ipoib_cm_supported(priv))
			return -EOPNOTSUPP;
		mutex_lock(&priv->state_mutex);
		set_bit(IPOIB_FLAG_ADMIN_CM, &priv->flags);
		if (test_bit(IPOIB_FLAG_INITIALIZED, &priv->flags))
			ret = ipoib_cm_dev_open(priv);
		if (ret)
			clear_bit(IPOIB_FLAG_ADMIN_CM, &priv->flags);
		else
			ipoib_mode_flush(priv);
		mutex_unlock(&priv->state_mutex);
		if (ret)
			return ret;
		ipoib_set_addr_flags(dev, IPOIB_HWADDR_RC);
		if (dev_set_mtu(dev, IPOIB_CM_MTU))
			netdev_warn(dev, "MTU %u refused\n", IPOIB_CM_MTU);
		netdev_info(dev, "connected mode, MTU %u\n", dev->mtu);
		return 0;
	case IPOIB_MODE_DATAGRAM:
		if (!ipoib_cm_admin(priv))
			return 0;
		/* smaller frames first, while connections still carry them */
		mtu = min3(dev->mtu, READ_ONCE(priv->mcast_mtu),
			   IPOIB_UD_MTU(priv->max_ib_mtu));
		if (dev_set_mtu(dev, mtu))
			netdev_warn(dev, "MTU %u refused\n", mtu);
		mutex_lock(&priv->state_mutex);
		clear_bit(IPOIB_FLAG_ADMIN_CM, &priv->flags);
		ipoib_cm_dev_stop(priv);
		ipoib_mode_flush(priv);
		mutex_unlock(&priv->state_mutex);
		ipoib_set_addr_flags(dev, 0);
		netdev_info(dev, "datagram mode, MTU %u\n", dev->mtu);
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * ipoib_set_umcast - whether groups userspace joined are left to it
 * @dev: the interface
 * @on: leave them alone
 */
void ipoib_set_umcast(struct net_device *dev, bool on)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	if (on)
		set_bit(IPOIB_FLAG_UMCAST, &priv->flags);
	else
		clear_bit(IPOIB_FLAG_UMCAST, &priv->flags);
}

/* The net device's fixed attributes; rtnl_link_ops->setup as well. */
void ipoib_setup(struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	int i;

	dev->netdev_ops = &ipoib_netdev_ops;
	dev->header_ops = &ipoib_header_ops;
	dev->ethtool_ops = &ipoib_ethtool_ops;
	dev->rtnl_link_ops = &ipoib_link_ops;
	dev->sysfs_groups[0] = &ipoib_attr_group;
	dev->type = ARPHRD_INFINIBAND;
	dev->addr_len = INFINIBAND_ALEN;
	dev->hard_header_len = IPOIB_HARD_LEN;
	dev->flags = IFF_BROADCAST | IFF_MULTICAST;
	dev->features = NETIF_F_VLAN_CHALLENGED | NETIF_F_HIGHDMA;
	dev->min_mtu = IPOIB_MIN_MTU;
	dev->max_mtu = IPOIB_CM_MTU;
	dev->watchdog_timeo = 10 * HZ;
	/* a queue of its own: the send ring stops it when full */
	dev->tx_queue_len = ipoib_sendq_size * 2;
	dev->needs_free_netdev = true;

	priv->dev = dev;
	mutex_init(&priv->state_mutex);
	spin_lock_init(&priv->lock);
	spin_lock_init(&priv->ah_lock);
	INIT_LIST_HEAD(&priv->dead_ahs);
	INIT_LIST_HEAD(&priv->children);
	INIT_LIST_HEAD(&priv->child_entry);
	INIT_LIST_HEAD(&priv->dev_entry);
	INIT_LIST_HEAD(&priv->parent_entry);
	ipoib_path_init(priv);
	ipoib_mcast_init(priv);
	ipoib_cm_init(priv);
	INIT_WORK(&priv->reap_task, ipoib_reap_task);
	INIT_DELAYED_WORK(&priv->link_task, ipoib_link_task);
	for (i = 0; i <= IPOIB_FLUSH_HEAVY; i++) {
		INIT_WORK(&priv->flush[i].work, ipoib_flush_task);
		priv->flush[i].priv = priv;
		priv->flush[i].level = i;
	}
}

/**
 * ipoib_init_netdev - make an allocated IPoIB net device one of a port's
 * @dev: allocated with ipoib_setup(), not registered
 * @ca: the HCA
 * @port: the port
 *
 * Return: 0, or the error of ib_query_port().
 */
int ipoib_init_netdev(struct net_device *dev, struct ib_device *ca, u32 port)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ca, port, &attr);
	if (ret)
		return ret;
	priv->ca = ca;
	priv->port = port;
	priv->max_ib_mtu = ib_mtu_enum_to_int(attr.max_mtu);
	priv->admin_mtu = IPOIB_UD_MTU(priv->max_ib_mtu);
	priv->mcast_mtu = priv->admin_mtu;
	dev->mtu = priv->admin_mtu;
	dev->dev_port = port - 1;
	dev->dev_id = port - 1;
	SET_NETDEV_DEV(dev, ca->dev.parent);
	return 0;
}

/**
 * ipoib_alloc_netdev - a new IPoIB net device on a port, not registered
 * @ca: the HCA
 * @port: the port
 * @name: its name or a %d template
 * @name_assign_type: NET_NAME_*
 *
 * Return: the net device, or NULL.
 */
struct net_device *ipoib_alloc_netdev(struct ib_device *ca, u32 port,
				      const char *name,
				      unsigned char name_assign_type)
{
	struct net_device *dev;

	dev = alloc_netdev(sizeof(struct ipoib_dev_priv), name,
			   name_assign_type, ipoib_setup);
	if (!dev)
		return NULL;
	if (ipoib_init_netdev(dev, ca, port)) {
		free_netdev(dev);
		return NULL;
	}
	return dev;
}

/**
 * ipoib_register_netdev - register an IPoIB net device
 * @dev: from ipoib_alloc_netdev(), with priv->parent set for a child
 * @idev: the HCA's part
 * @pkey: its P_Key (the full membership bit is added)
 *
 * Context: RTNL held.  On failure the caller frees @dev.
 * Return: 0 or a negative errno.
 */
int ipoib_register_netdev(struct net_device *dev, struct ipoib_device *idev,
			  u16 pkey)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	priv->idev = idev;
	priv->pkey = pkey | 0x8000;
	return register_netdevice(dev);
}

/* The parent net device of one port. */
static int ipoib_add_port(struct ipoib_device *idev, u32 port)
{
	struct net_device *dev;
	u16 pkey;
	int ret;

	if (ib_query_pkey(idev->ca, port, 0, &pkey) || !(pkey & 0x7fff))
		pkey = 0xffff;
	dev = ipoib_alloc_netdev(idev->ca, port, "ib%d", NET_NAME_ENUM);
	if (!dev)
		return -ENOMEM;

	rtnl_lock();
	ret = ipoib_register_netdev(dev, idev, pkey);
	if (!ret) {
		ipoib_priv(dev)->child_type = IPOIB_PARENT;
		list_add_tail(&ipoib_priv(dev)->parent_entry, &idev->parents);
		/* the port's interface, for "rdma link" */
		ib_device_set_netdev(idev->ca, dev, port);
	}
	rtnl_unlock();
	if (ret) {
		free_netdev(dev);
		return ret;
	}
	return 0;
}

static bool ipoib_port_is_ib(struct ib_device *ca, u32 port)
{
	const struct ib_port_immutable *imm = ib_port_immutable_read(ca, port);

	return imm && (imm->core_cap_flags & RDMA_CORE_CAP_PROT_IB);
}

/* Everything on an HCA: its parents and their children. */
static void ipoib_remove_all(struct ipoib_device *idev)
{
	struct ipoib_dev_priv *priv, *tmp, *child, *ctmp;
	LIST_HEAD(kill);

	rtnl_lock();
	list_for_each_entry_safe(priv, tmp, &idev->parents, parent_entry) {
		list_for_each_entry_safe(child, ctmp, &priv->children,
					 child_entry)
			unregister_netdevice_queue(child->dev, &kill);
		list_del_init(&priv->parent_entry);
		unregister_netdevice_queue(priv->dev, &kill);
	}
	unregister_netdevice_many(&kill);
	rtnl_unlock();
}

static int ipoib_add_one(struct ib_device *ca)
{
	struct ipoib_device *idev;
	u32 port;
	int ret;

	idev = kzalloc(sizeof(*idev), GFP_KERNEL);
	if (!idev)
		return -ENOMEM;
	idev->ca = ca;
	mutex_init(&idev->lock);
	INIT_LIST_HEAD(&idev->privs);
	INIT_LIST_HEAD(&idev->parents);
	ib_init_event_handler(&idev->event_handler, ca, ipoib_event);
	ib_register_event_handler(&idev->event_handler);

	for (port = rdma_start_port(ca); port <= rdma_end_port(ca); port++) {
		if (!ipoib_port_is_ib(ca, port))
			continue;
		ret = ipoib_add_port(idev, port);
		if (ret)
			dev_warn(&ca->dev, "no IPoIB interface on port %u: %d\n",
				 port, ret);
	}
	if (list_empty(&idev->parents)) {
		ib_unregister_event_handler(&idev->event_handler);
		kfree(idev);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ca, &ipoib_client, idev);
	return 0;
}

static void ipoib_remove_one(struct ib_device *ca, void *client_data)
{
	struct ipoib_device *idev = client_data;

	ib_unregister_event_handler(&idev->event_handler);
	ipoib_remove_all(idev);
	WARN_ON(!list_empty(&idev->privs));
	kfree(idev);
}

/*
 * Whether @addr (AF_INET or AF_INET6) is an address of @dev, in the
 * network namespace @dev is in.  IPv6 addresses still tentative (DAD) do
 * not count.
 */
static bool ipoib_dev_has_addr(struct net_device *dev,
			       const struct sockaddr *addr)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	bool found = false;

	switch (addr->sa_family) {
	case AF_INET:
		rcu_read_lock();
		in_dev = __in_dev_get_rcu(dev);
		if (in_dev) {
			in_dev_for_each_ifa_rcu(ifa, in_dev) {
				if (ifa->ifa_local == sin->sin_addr.s_addr) {
					found = true;
					break;
				}
			}
		}
		rcu_read_unlock();
		return found;
	case AF_INET6:
		return IS_ENABLED(CONFIG_IPV6) &&
		       ipv6_chk_addr(dev_net(dev), &sin6->sin6_addr, dev, 1);
	default:
		return false;
	}
}

struct ipoib_upper_match {
	const struct sockaddr *addr;
	struct net_device *found;
};

static int ipoib_upper_has_addr(struct net_device *upper,
				struct netdev_nested_priv *nested)
{
	struct ipoib_upper_match *match = nested->data;

	if (!ipoib_dev_has_addr(upper, match->addr))
		return 0;
	match->found = upper;
	return 1;
}

/*
 * The interface a request to @addr on @dev is for, referenced: @dev if it
 * holds @addr, else an upper device of it (the bond @dev is a slave of)
 * that does; NULL if none.  Without @addr: the master @dev is enslaved
 * to, if any, else @dev.
 */
static struct net_device *ipoib_addr_dev_get(struct net_device *dev,
					     const struct sockaddr *addr)
{
	struct ipoib_upper_match match = { .addr = addr };
	struct netdev_nested_priv nested = { .data = &match };
	struct net_device *master;

	rcu_read_lock();
	if (!addr) {
		master = netdev_master_upper_dev_get_rcu(dev);
		match.found = master ? master : dev;
	} else if (ipoib_dev_has_addr(dev, addr)) {
		match.found = dev;
	} else {
		netdev_walk_all_upper_dev_rcu(dev, ipoib_upper_has_addr,
					      &nested);
	}
	if (match.found)
		dev_hold(match.found);
	rcu_read_unlock();
	return match.found;
}

/*
 * Whether @priv is a registered interface, not going away, of @port in the
 * partition @pkey (full membership bit set) whose port GID is @gid (any if
 * NULL).  Caller holds idev->lock.
 */
static bool ipoib_dev_matches(struct ipoib_dev_priv *priv, u32 port, u16 pkey,
			      const union ib_gid *gid)
{
	unsigned long flags;
	bool same_gid;

	/* a parent's P_Key follows the port's (ipoib_event.c) */
	if (priv->port != port || READ_ONCE(priv->pkey) != pkey ||
	    priv->dev->reg_state != NETREG_REGISTERED ||
	    test_bit(IPOIB_FLAG_DYING, &priv->flags))
		return false;
	if (!gid)
		return true;
	spin_lock_irqsave(&priv->lock, flags);
	same_gid = !memcmp(gid->raw, priv->local_gid.raw, sizeof(gid->raw));
	spin_unlock_irqrestore(&priv->lock, flags);
	return same_gid;
}

/*
 * ib_client get_net_dev_by_params: the interface of the HCA's @port that a
 * connection request for @pkey and the port GID @gid is addressed to.  The
 * candidates are the parent and the P_Key children with that P_Key and
 * GID; with an @addr only those that hold it, or whose upper device (an
 * active-backup bond they are enslaved to) does, so that one without it
 * is not taken even when it is the only candidate; the answer is then
 * the interface that holds @addr.  Without @addr a bond slave answers
 * with its bond, as upstream's IPoIB does.  Several interfaces left
 * (children of one P_Key without @addr, or an address given to two of
 * them) is a configuration the answer cannot be sure of: the first made
 * is taken, and said so.  An interface is only found between the end of
 * its registration and the start of its unregistration: ndo_uninit takes
 * it off idev->privs under idev->lock, and unregistration waits for the
 * reference taken here.
 */
static struct net_device *
ipoib_get_net_dev_by_params(struct ib_device *ca, u32 port, u16 pkey,
			    const union ib_gid *gid,
			    const struct sockaddr *addr, void *client_data)
{
	struct ipoib_device *idev = client_data;
	struct net_device *found = NULL, *dev;
	struct ipoib_dev_priv *priv;
	unsigned int matches = 0;

	if (!idev)
		return NULL;
	pkey |= 0x8000;

	mutex_lock(&idev->lock);
	list_for_each_entry(priv, &idev->privs, dev_entry) {
		if (!ipoib_dev_matches(priv, port, pkey, gid))
			continue;
		dev = ipoib_addr_dev_get(priv->dev, addr);
		if (!dev)
			continue;
		if (!found)
			found = dev;
		else
			dev_put(dev);
		matches++;
	}
	mutex_unlock(&idev->lock);

	if (matches > 1)
		dev_warn_ratelimited(&ca->dev,
				     "%u IPoIB interfaces of port %u match P_Key 0x%04x%s; taking %s\n",
				     matches, port, pkey,
				     addr ? " and the address" : "",
				     found->name);
	return found;
}

static struct ib_client ipoib_client = {
	.name			= "ipoib",
	.add			= ipoib_add_one,
	.remove			= ipoib_remove_one,
	.get_net_dev_by_params	= ipoib_get_net_dev_by_params,
};

static int __init ipoib_init(void)
{
	int ret;

	ib_sa_register_client(&ipoib_sa_client);
	ret = ipoib_netlink_init();
	if (ret)
		goto err_sa;
	ret = ib_register_client(&ipoib_client);
	if (ret)
		goto err_netlink;
	return 0;

err_netlink:
	ipoib_netlink_exit();
err_sa:
	ib_sa_unregister_client(&ipoib_sa_client);
	return ret;
}

static void __exit ipoib_exit(void)
{
	ib_unregister_client(&ipoib_client);
	ipoib_netlink_exit();
	ib_sa_unregister_client(&ipoib_sa_client);
}

module_init(ipoib_init);
module_exit(ipoib_exit);
