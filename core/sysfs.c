// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The infiniband device class: /sys/class/infiniband/<device>/ and the
 * device-wide attribute files in it.  Formats are user ABI.
 */
#include <linux/device.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "core_priv.h"

static struct class ib_class = {
	.name = "infiniband",
};

static const char *ib_node_type_name(unsigned int node_type)
{
	switch (node_type) {
	case RDMA_NODE_IB_CA:
		return "CA";
	case RDMA_NODE_IB_SWITCH:
		return "switch";
	case RDMA_NODE_IB_ROUTER:
		return "router";
	case RDMA_NODE_RNIC:
		return "RNIC";
	case RDMA_NODE_USNIC:
		return "usNIC";
	case RDMA_NODE_USNIC_UDP:
		return "usNIC UDP";
	case RDMA_NODE_UNSPECIFIED:
		return "unspecified";
	}
	return "<unknown>";
}

/* A GUID in the colon-separated form of four 16-bit groups. */
static ssize_t ib_emit_guid(char *buf, __be64 guid)
{
	u64 v = be64_to_cpu(guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(v >> 48), (u16)(v >> 32), (u16)(v >> 16),
			  (u16)v);
}

static ssize_t node_type_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct ib_device *device = rdma_device_to_ibdev(dev);

	return sysfs_emit(buf, "%u: %s\n", device->node_type,
			  ib_node_type_name(device->node_type));
}
static DEVICE_ATTR_RO(node_type);

static ssize_t node_guid_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return ib_emit_guid(buf, rdma_device_to_ibdev(dev)->node_guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t sys_image_guid_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return ib_emit_guid(buf,
			    rdma_device_to_ibdev(dev)->attrs.sys_image_guid);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t fw_ver_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	char version[IB_FW_VERSION_NAME_MAX];

	ib_get_device_fw_str(rdma_device_to_ibdev(dev), version);
	return sysfs_emit(buf, "%s\n", version);
}
static DEVICE_ATTR_RO(fw_ver);

static ssize_t node_desc_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct ib_device *device = rdma_device_to_ibdev(dev);

	return sysfs_emit(buf, "%.*s\n", IB_DEVICE_NODE_DESC_MAX,
			  device->node_desc);
}

/*
 * Writing sets the node description (what rdma-ndd does at boot).  One
 * trailing newline, as echo adds, is not part of the description; longer
 * text than the 64 bytes a NodeDescription holds is refused.
 */
static ssize_t node_desc_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct ib_device_modify modify = {};
	size_t len = count;
	int ret;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len > sizeof(modify.node_desc))
		return -EINVAL;

	memcpy(modify.node_desc, buf, len);
	ret = ib_modify_device(rdma_device_to_ibdev(dev),
			       IB_DEVICE_MODIFY_NODE_DESC, &modify);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(node_desc);

static struct attribute *ib_dev_attrs[] = {
	&dev_attr_node_type.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_sys_image_guid.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_node_desc.attr,
	NULL,
};

const struct attribute_group ib_dev_attr_group = {
	.attrs = ib_dev_attrs,
};

/*
 * Prepare a new device's sysfs presence: class and attribute groups.  The
 * driver's own group goes into groups[1] at registration.
 */
void ib_device_sysfs_setup(struct ib_device *device)
{
	device->dev.class = &ib_class;
	device->groups[0] = &ib_dev_attr_group;
	device->dev.groups = device->groups;
}

int ib_sysfs_init(void)
{
	return class_register(&ib_class);
}

void ib_sysfs_cleanup(void)
{
	class_unregister(&ib_class);
}
