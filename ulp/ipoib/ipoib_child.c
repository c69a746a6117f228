// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * P_Key child interfaces: a second (third...) IPoIB interface on the
 * port of a parent, in another partition, with its own QP, paths and
 * groups.  Two ways make one:
 *   - create_child in the parent's sysfs directory (a "legacy" child):
 *     named <parent>.<pkey as written, 4 hex digits>, one per P_Key;
 *     delete_child removes it by P_Key;
 *   - ip link add link <parent> name <name> type ipoib pkey <pkey>
 *     (ipoib_netlink.c): any name, several per P_Key; ip link del
 *     removes it.
 * The P_Key's full membership bit is always set.  A child has no
 * children: its parent must be a parent.  Children go with their parent
 * when the HCA goes (ipoib_main.c).
 *
 * Locking: RTNL protects every parent's list of children.  The sysfs
 * files only try to take it (and have the write restarted), because
 * unregistering a net device removes its sysfs files under RTNL and waits
 * for their writers.
 */
#include <linux/rtnetlink.h>

#include "ipoib.h"

/* Whether @pkey can name a partition: 0 and 0x8000 (no key) cannot. */
static bool ipoib_pkey_valid(u16 pkey)
{
	return pkey & 0x7fff;
}

/**
 * ipoib_add_child - register a child interface of a parent
 * @pdev: the parent
 * @dev: the child, allocated (by ipoib_alloc_netdev() or by rtnetlink)
 *	and set up for the parent's port with ipoib_init_netdev()
 * @pkey: its P_Key
 * @type: IPOIB_LEGACY_CHILD or IPOIB_RTNL_CHILD
 *
 * Context: RTNL held.  On failure the caller frees @dev.
 * Return: 0; -EOPNOTSUPP if @pdev is not an IPoIB parent; -EINVAL for a
 * P_Key of 0 or 0x8000; -ENOTUNIQ for a second legacy child of a P_Key;
 * or the error of register_netdevice().
 */
int ipoib_add_child(struct net_device *pdev, struct net_device *dev,
		    u16 pkey, enum ipoib_child_type type)
{
	struct ipoib_dev_priv *ppriv = ipoib_priv(pdev);
	struct ipoib_dev_priv *priv = ipoib_priv(dev);
	struct ipoib_dev_priv *child;

	ASSERT_RTNL();
	if (!ipoib_is_ipoib_dev(pdev) || ppriv->parent)
		return -EOPNOTSUPP;
	if (!ipoib_pkey_valid(pkey))
		return -EINVAL;
	if (type == IPOIB_LEGACY_CHILD)
		list_for_each_entry(child, &ppriv->children, child_entry)
			if (child->child_type == IPOIB_LEGACY_CHILD &&
			    child->pkey == (pkey | 0x8000))
				return -ENOTUNIQ;

	priv->parent = pdev;
	priv->child_type = type;
	return ipoib_register_netdev(dev, ppriv->idev, pkey);
}

/**
 * ipoib_add_legacy_child - what a write to create_child does
 * @pdev: the parent
 * @pkey: the P_Key written
 *
 * Context: process context (a sysfs write).
 * Return: 0 or a negative errno; see ipoib_add_child().  -EINVAL if the
 * name would be too long.
 */
int ipoib_add_legacy_child(struct net_device *pdev, u16 pkey)
{
	struct ipoib_dev_priv *ppriv = ipoib_priv(pdev);
	struct net_device *dev;
	char name[IFNAMSIZ];
	int ret;

	if (!rtnl_trylock())
		return restart_syscall();
	if (ppriv->parent) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (snprintf(name, sizeof(name), "%s.%04x", pdev->name, pkey) >=
	    sizeof(name)) {
		ret = -EINVAL;
		goto out;
	}
	dev = ipoib_alloc_netdev(ppriv->ca, ppriv->port, name,
				 NET_NAME_USER);
	if (!dev) {
		ret = -ENOMEM;
		goto out;
	}
	/* a child lives where its parent lives */
	dev_net_set(dev, dev_net(pdev));
	ret = ipoib_add_child(pdev, dev, pkey, IPOIB_LEGACY_CHILD);
	if (ret)
		free_netdev(dev);
out:
	rtnl_unlock();
	return ret;
}

/**
 * ipoib_del_legacy_child - what a write to delete_child does
 * @pdev: the parent
 * @pkey: the P_Key written
 *
 * Context: process context (a sysfs write).
 * Return: 0, or -ENODEV if the parent has no legacy child of @pkey.
 */
int ipoib_del_legacy_child(struct net_device *pdev, u16 pkey)
{
	struct ipoib_dev_priv *ppriv = ipoib_priv(pdev);
	struct ipoib_dev_priv *child;
	int ret = -ENODEV;

	if (!rtnl_trylock())
		return restart_syscall();
	list_for_each_entry(child, &ppriv->children, child_entry) {
		if (child->child_type == IPOIB_LEGACY_CHILD &&
		    child->pkey == (pkey | 0x8000)) {
			unregister_netdevice(child->dev);
			ret = 0;
			break;
		}
	}
	rtnl_unlock();
	return ret;
}

/**
 * ipoib_unlink_child - take a child off its parent's list
 * @priv: the child
 *
 * Context: RTNL held (ndo_uninit).
 */
void ipoib_unlink_child(struct ipoib_dev_priv *priv)
{
	ASSERT_RTNL();
	list_del_init(&priv->child_entry);
}
