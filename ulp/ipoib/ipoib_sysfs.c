// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The files of /sys/class/net/<ibN>/ that Linux's IPoIB has: pkey (the
 * P_Key, 0x%04x, full membership bit set), umcast (0 or 1), mode
 * (datagram or connected), create_child and delete_child (a P_Key, in C
 * notation: 0x8001 or 32769).  Writes need CAP_NET_ADMIN in the device's
 * network namespace; anything but the values above is refused with
 * -EINVAL.
 *
 * Locking: none of its own; children are made and removed, and the mode
 * switched, under RTNL, which the files only try to take (see
 * ipoib_child.c).
 */
#include <linux/capability.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "ipoib.h"

static bool ipoib_sysfs_may_write(struct net_device *ndev)
{
	return ns_capable(dev_net(ndev)->user_ns, CAP_NET_ADMIN);
}

static ssize_t pkey_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", ipoib_priv(to_net_dev(dev))->pkey);
}
static DEVICE_ATTR_RO(pkey);

static ssize_t umcast_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct ipoib_dev_priv *priv = ipoib_priv(to_net_dev(dev));

	return sysfs_emit(buf, "%d\n",
			  test_bit(IPOIB_FLAG_UMCAST, &priv->flags));
}

static ssize_t umcast_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct net_device *ndev = to_net_dev(dev);
	unsigned int on;
	int ret;

	if (!ipoib_sysfs_may_write(ndev))
		return -EPERM;
	ret = kstrtouint(buf, 0, &on);
	if (ret)
		return ret;
	if (on > 1)
		return -EINVAL;
	ipoib_set_umcast(ndev, on);
	return count;
}
static DEVICE_ATTR_RW(umcast);

static ssize_t mode_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct ipoib_dev_priv *priv = ipoib_priv(to_net_dev(dev));

	return sysfs_emit(buf, ipoib_cm_admin(priv) ? "connected\n" :
			  "datagram\n");
}

static ssize_t mode_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct net_device *ndev = to_net_dev(dev);
	int ret;

	u16 mode;

	if (!ipoib_sysfs_may_write(ndev))
		return -EPERM;
	if (sysfs_streq(buf, "datagram"))
		mode = IPOIB_MODE_DATAGRAM;
	else if (sysfs_streq(buf, "connected"))
		mode = IPOIB_MODE_CONNECTED;
	else
		return -EINVAL;
	/* unregistering removes this file under RTNL and waits for us */
	if (!rtnl_trylock())
		return restart_syscall();
	ret = ipoib_set_mode(ndev, mode);
	rtnl_unlock();
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(mode);

/* A P_Key written to create_child or delete_child: 1 to 0xffff. */
static int ipoib_parse_pkey(const char *buf, u16 *pkey)
{
	unsigned int val;
	int ret;

	ret = kstrtouint(buf, 0, &val);
	if (ret)
		return ret;
	if (!val || val > 0xffff || val == 0x8000)
		return -EINVAL;
	*pkey = val;
	return 0;
}

static ssize_t create_child_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct net_device *ndev = to_net_dev(dev);
	u16 pkey;
	int ret;

	if (!ipoib_sysfs_may_write(ndev))
		return -EPERM;
	ret = ipoib_parse_pkey(buf, &pkey);
	if (!ret)
		ret = ipoib_add_legacy_child(ndev, pkey);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(create_child);

static ssize_t delete_child_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct net_device *ndev = to_net_dev(dev);
	u16 pkey;
	int ret;

	if (!ipoib_sysfs_may_write(ndev))
		return -EPERM;
	ret = ipoib_parse_pkey(buf, &pkey);
	if (!ret)
		ret = ipoib_del_legacy_child(ndev, pkey);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(delete_child);

static struct attribute *ipoib_attrs[] = {
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_mode.attr,
	&dev_attr_create_child.attr,
	&dev_attr_delete_child.attr,
	NULL,
};

const struct attribute_group ipoib_attr_group = {
	.attrs = ipoib_attrs,
};
