// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ethtool: ethtool -i (driver, firmware of the HCA, the HCA as bus), -S
 * (the interface's traffic and every drop counted by cause), -g (the
 * ring sizes, set by the module parameters), -k (the features, answered
 * by the core from the net device) and the link: up with the carrier,
 * speed from the port's width and lane speed.
 *
 * Locking: none; the counters are read as they are.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include "ipoib.h"

/* One line of ethtool -S: a name and where its value is. */
struct ipoib_stat {
	char	name[ETH_GSTRING_LEN];
	size_t	offset;
};

#define IPOIB_NETDEV_STAT(m) \
	{ #m, offsetof(struct rtnl_link_stats64, m) }
#define IPOIB_DROP_STAT(m) \
	{ #m, offsetof(struct ipoib_counters, m) }

static const struct ipoib_stat ipoib_netdev_stats[] = {
	IPOIB_NETDEV_STAT(rx_packets),
	IPOIB_NETDEV_STAT(tx_packets),
	IPOIB_NETDEV_STAT(rx_bytes),
	IPOIB_NETDEV_STAT(tx_bytes),
	IPOIB_NETDEV_STAT(rx_errors),
	IPOIB_NETDEV_STAT(tx_errors),
	IPOIB_NETDEV_STAT(rx_dropped),
	IPOIB_NETDEV_STAT(tx_dropped),
};

static const struct ipoib_stat ipoib_drop_stats[] = {
	IPOIB_DROP_STAT(rx_short),
	IPOIB_DROP_STAT(rx_bad_proto),
	IPOIB_DROP_STAT(rx_bad_source),
	IPOIB_DROP_STAT(rx_bad_arp),
	IPOIB_DROP_STAT(rx_own_mcast),
	IPOIB_DROP_STAT(rx_no_buffer),
	IPOIB_DROP_STAT(rx_wc_error),
	IPOIB_DROP_STAT(tx_no_path),
	IPOIB_DROP_STAT(tx_path_queue_full),
	IPOIB_DROP_STAT(tx_mcast_queue_full),
	IPOIB_DROP_STAT(tx_mcast_no_group),
	IPOIB_DROP_STAT(tx_too_big),
	IPOIB_DROP_STAT(tx_bad_frame),
	IPOIB_DROP_STAT(tx_post_error),
	IPOIB_DROP_STAT(tx_wc_error),
	IPOIB_DROP_STAT(tx_ring_full),
	IPOIB_DROP_STAT(cm_tx_conns),
	IPOIB_DROP_STAT(cm_rx_conns),
	IPOIB_DROP_STAT(cm_tx_established),
	IPOIB_DROP_STAT(cm_rx_accepted),
	IPOIB_DROP_STAT(cm_tx_rejected),
	IPOIB_DROP_STAT(cm_rx_refused),
	IPOIB_DROP_STAT(cm_rx_stale),
	IPOIB_DROP_STAT(cm_rx_drop),
	IPOIB_DROP_STAT(cm_tx_drop),
};

#define IPOIB_NUM_STATS \
	(ARRAY_SIZE(ipoib_netdev_stats) + ARRAY_SIZE(ipoib_drop_stats))

static void ipoib_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	struct device *parent = priv->ca->dev.parent;

	strscpy(info->driver, IPOIB_DRV_NAME, sizeof(info->driver));
	ib_get_device_fw_str(priv->ca, info->fw_version);
	strscpy(info->bus_info,
		parent ? dev_name(parent) : ib_device_name(priv->ca),
		sizeof(info->bus_info));
}

static int ipoib_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? IPOIB_NUM_STATS : -EOPNOTSUPP;
}

static void ipoib_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ARRAY_SIZE(ipoib_netdev_stats); i++)
		ethtool_sprintf(&data, "%s", ipoib_netdev_stats[i].name);
	for (i = 0; i < ARRAY_SIZE(ipoib_drop_stats); i++)
		ethtool_sprintf(&data, "%s", ipoib_drop_stats[i].name);
}

static void ipoib_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	struct rtnl_link_stats64 s;
	unsigned int i;

	dev_get_stats(dev, &s);
	for (i = 0; i < ARRAY_SIZE(ipoib_netdev_stats); i++)
		*data++ = *(u64 *)((u8 *)&s + ipoib_netdev_stats[i].offset);
	for (i = 0; i < ARRAY_SIZE(ipoib_drop_stats); i++)
		*data++ = atomic_long_read((atomic_long_t *)
					   ((u8 *)&priv->counters +
					    ipoib_drop_stats[i].offset));
}

static void ipoib_get_ringparam(struct net_device *dev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	ring->rx_max_pending = IPOIB_MAX_QUEUE_SIZE;
	ring->tx_max_pending = IPOIB_MAX_QUEUE_SIZE;
	ring->rx_pending = priv->rx_size;
	ring->tx_pending = priv->tx_size;
}

/* Mb/s of one lane at an IB lane speed, and the lanes of a width. */
static u32 ipoib_lane_speed(u16 speed)
{
	switch (speed) {
	case IB_SPEED_SDR:
		return 2500;
	case IB_SPEED_DDR:
		return 5000;
	case IB_SPEED_QDR:
	case IB_SPEED_FDR10:
		return 10000;
	case IB_SPEED_FDR:
		return 14000;
	case IB_SPEED_EDR:
		return 25000;
	case IB_SPEED_HDR:
		return 50000;
	case IB_SPEED_NDR:
		return 100000;
	default:
		return 0;
	}
}

static u32 ipoib_lanes(u8 width)
{
	switch (width) {
	case IB_WIDTH_1X:
		return 1;
	case IB_WIDTH_2X:
		return 2;
	case IB_WIDTH_4X:
		return 4;
	case IB_WIDTH_8X:
		return 8;
	case IB_WIDTH_12X:
		return 12;
	default:
		return 0;
	}
}

static int ipoib_get_link_ksettings(struct net_device *dev,
				    struct ethtool_link_ksettings *cmd)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	struct ib_port_attr attr;
	u32 speed;
	int ret;

	ret = ib_query_port(priv->ca, priv->port, &attr);
	if (ret)
		return ret;
	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	speed = ipoib_lane_speed(attr.active_speed) *
		ipoib_lanes(attr.active_width);
	cmd->base.speed = speed && netif_carrier_ok(dev) ? speed :
			  SPEED_UNKNOWN;
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_OTHER;
	cmd->base.phy_address = 0xff;
	cmd->base.autoneg = AUTONEG_ENABLE;
	return 0;
}

const struct ethtool_ops ipoib_ethtool_ops = {
	.get_drvinfo		= ipoib_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= ipoib_get_link_ksettings,
	.get_sset_count		= ipoib_get_sset_count,
	.get_strings		= ipoib_get_strings,
	.get_ethtool_stats	= ipoib_get_ethtool_stats,
	.get_ringparam		= ipoib_get_ringparam,
};
