// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rtnetlink: the link type "ipoib" of iproute2 (ip link add link ib0 name
 * ib0.8001 type ipoib pkey 0x8001 [mode datagram|connected] [umcast 0|1])
 * and the attributes ip -d link shows for every IPoIB interface,
 * IFLA_IPOIB_PKEY, IFLA_IPOIB_MODE and IFLA_IPOIB_UMCAST (u16 each, as
 * <linux/if_link.h> has them).  Parents carry these link ops too, so that
 * ip -d link describes them, but ip link del leaves them alone; a
 * network namespace that goes away gives its IPoIB interfaces back to the
 * initial one.
 *
 * Locking: every operation runs under RTNL.
 */
#include <linux/if_link.h>
#include <net/rtnetlink.h>

#include "ipoib.h"

static const struct nla_policy ipoib_policy[IFLA_IPOIB_MAX + 1] = {
	[IFLA_IPOIB_PKEY]	= { .type = NLA_U16 },
	[IFLA_IPOIB_MODE]	= NLA_POLICY_MAX(NLA_U16, IPOIB_MODE_CONNECTED),
	[IFLA_IPOIB_UMCAST]	= NLA_POLICY_MAX(NLA_U16, 1),
};

static int ipoib_changelink(struct net_device *dev, struct nlattr *tb[],
			    struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
	int ret;

	if (!data)
		return 0;
	if (data[IFLA_IPOIB_PKEY]) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_PKEY],
				    "the P_Key of an IPoIB interface cannot change");
		return -EOPNOTSUPP;
	}
	if (data[IFLA_IPOIB_MODE]) {
		ret = ipoib_set_mode(dev, nla_get_u16(data[IFLA_IPOIB_MODE]));
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_MODE],
					    "the mode could not be set");
			return ret;
		}
	}
	if (data[IFLA_IPOIB_UMCAST])
		ipoib_set_umcast(dev, nla_get_u16(data[IFLA_IPOIB_UMCAST]));
	return 0;
}

static int ipoib_newlink(struct net *src_net, struct net_device *dev,
			 struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	struct ipoib_dev_priv *ppriv;
	struct net_device *pdev;
	u16 pkey;
	int ret;

	if (!tb[IFLA_LINK]) {
		NL_SET_ERR_MSG(extack, "an IPoIB child needs a parent (link)");
		return -EINVAL;
	}
	pdev = __dev_get_by_index(src_net, nla_get_u32(tb[IFLA_LINK]));
	if (!pdev) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK], "no such link");
		return -ENODEV;
	}
	if (!ipoib_is_ipoib_dev(pdev)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
				    "the link is not an IPoIB interface");
		return -EINVAL;
	}
	ppriv = ipoib_priv(pdev);
	if (ppriv->parent) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
				    "an IPoIB child cannot have children");
		return -EOPNOTSUPP;
	}
	if (data && data[IFLA_IPOIB_MODE] &&
	    nla_get_u16(data[IFLA_IPOIB_MODE]) == IPOIB_MODE_CONNECTED &&
	    !ipoib_cm_supported(ppriv)) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_MODE],
				    "the HCA cannot carry connected mode");
		return -EOPNOTSUPP;
	}
	pkey = ppriv->pkey;
	if (data && data[IFLA_IPOIB_PKEY])
		pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]);
	if (!(pkey & 0x7fff)) {
		NL_SET_ERR_MSG(extack, "P_Key 0 and 0x8000 name no partition");
		return -EINVAL;
	}

	ret = ipoib_init_netdev(dev, ppriv->ca, ppriv->port);
	if (ret)
		return ret;
	ret = ipoib_add_child(pdev, dev, pkey, IPOIB_RTNL_CHILD);
	if (ret)
		return ret;
	if (data && data[IFLA_IPOIB_UMCAST])
		ipoib_set_umcast(dev, nla_get_u16(data[IFLA_IPOIB_UMCAST]));
	/* the child is down: the switch cannot fail but for the HCA */
	if (data && data[IFLA_IPOIB_MODE] &&
	    ipoib_set_mode(dev, nla_get_u16(data[IFLA_IPOIB_MODE])))
		netdev_warn(dev, "stays in datagram mode\n");
	return 0;
}

static void ipoib_dellink(struct net_device *dev, struct list_head *head)
{
	/* a parent goes with its port, not by ip link del */
	if (ipoib_priv(dev)->parent)
		unregister_netdevice_queue(dev, head);
}

static size_t ipoib_get_size(const struct net_device *dev)
{
	return 3 * nla_total_size(sizeof(u16));
}

static int ipoib_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct ipoib_dev_priv *priv = ipoib_priv(dev);

	if (nla_put_u16(skb, IFLA_IPOIB_PKEY, priv->pkey) ||
	    nla_put_u16(skb, IFLA_IPOIB_MODE,
			ipoib_cm_admin(priv) ? IPOIB_MODE_CONNECTED :
			IPOIB_MODE_DATAGRAM) ||
	    nla_put_u16(skb, IFLA_IPOIB_UMCAST,
			test_bit(IPOIB_FLAG_UMCAST, &priv->flags)))
		return -EMSGSIZE;
	return 0;
}

struct rtnl_link_ops ipoib_link_ops __read_mostly = {
	.kind		= "ipoib",
	.netns_refund	= true,
	.maxtype	= IFLA_IPOIB_MAX,
	.policy		= ipoib_policy,
	.priv_size	= sizeof(struct ipoib_dev_priv),
	.setup		= ipoib_setup,
	.newlink	= ipoib_newlink,
	.dellink	= ipoib_dellink,
	.changelink	= ipoib_changelink,
	.get_size	= ipoib_get_size,
	.fill_info	= ipoib_fill_info,
};

int ipoib_netlink_init(void)
{
	return rtnl_link_register(&ipoib_link_ops);
}

void ipoib_netlink_exit(void)
{
	rtnl_link_unregister(&ipoib_link_ops);
}

MODULE_ALIAS_RTNL_LINK("ipoib");
