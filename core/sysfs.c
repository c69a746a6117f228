// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The infiniband device class: /sys/class/infiniband/<device>/, the
 * device-wide attribute files in it and the per-port directories under
 * ports/.  Formats are user ABI.
 *
 * Locking: none of its own.  The port directories are made and removed
 * under the core's registration lock, and kernfs keeps every show() call
 * inside the life of its file (see "Lifetime" below).
 */
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/slab.h>
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

/* ------------------------------------------------------------------ */
/* Ports: /sys/class/infiniband/<device>/ports/<port>/                 */
/* ------------------------------------------------------------------ */

/*
 * Lifetime.  The port directories are created right after device_add() at
 * registration and removed right before device_del() at unregistration,
 * both under the core's registration lock, which also serialises the use
 * of @ports_kobj and of the @sysfs pointers of the port data.
 *
 * The show() functions below call the driver (ib_query_port(),
 * ib_query_pkey()) and read the port cache.  kernfs runs a show() only
 * while it holds an active reference on the file, and removing a
 * directory waits until those are gone and refuses new ones.  So once
 * ib_device_unregister_sysfs() has returned no show() runs any more, and
 * the driver may go away; a file still open fails its reads with -ENODEV.
 * Every port kobject holds a reference on the device's struct device, so
 * the ib_device and its port cache outlive the kobject, whenever its last
 * reference is dropped.
 */

struct ib_port_kobj;

/**
 * struct ib_port_table_attr - the file of one table index, e.g. gids/3
 * @kattr: the attribute; show() finds the rest of this structure from it
 * @port: the port directory the file belongs to
 * @index: the table index
 * @name: the file name, @index in decimal
 */
struct ib_port_table_attr {
	struct kobj_attribute	kattr;
	struct ib_port_kobj	*port;
	u32			index;
	char			name[12];
};

/**
 * struct ib_port_table - a directory of numbered files, e.g. gids/
 * @group: the attribute group that makes the directory
 * @attrs: NULL-terminated array of pointers into @entries, for @group
 * @entries: one file per table index
 */
struct ib_port_table {
	struct attribute_group		group;
	struct attribute		**attrs;
	struct ib_port_table_attr	*entries;
};

/**
 * struct ib_port_kobj - the directory of one port
 * @kobj: ports/<port>; holds a reference on @device->dev until released
 * @gid_attrs: ports/<port>/gid_attrs, a child of @kobj, or NULL
 * @device: the device
 * @port_num: the port number
 * @gids: gids/<index>, the GID table
 * @pkeys: pkeys/<index>, the P_Key table
 * @gid_types: gid_attrs/types/<index>, the type of each GID
 * @gid_ndevs: gid_attrs/ndevs/<index>, the net device of each GID
 */
struct ib_port_kobj {
	struct kobject		kobj;
	struct kobject		*gid_attrs;
	struct ib_device	*device;
	u32			port_num;
	struct ib_port_table	gids;
	struct ib_port_table	pkeys;
	struct ib_port_table	gid_types;
	struct ib_port_table	gid_ndevs;
};

static struct ib_port_kobj *to_ib_port_kobj(struct kobject *kobj)
{
	return container_of(kobj, struct ib_port_kobj, kobj);
}

static struct ib_port_table_attr *
to_ib_port_table_attr(struct kobj_attribute *kattr)
{
	return container_of(kattr, struct ib_port_table_attr, kattr);
}

/* The driver's current attributes of the port behind @kobj. */
static int ib_port_kobj_query(struct kobject *kobj, struct ib_port_attr *attr)
{
	struct ib_port_kobj *port = to_ib_port_kobj(kobj);

	return ib_query_port(port->device, port->port_num, attr);
}

static const char *ib_port_state_name(enum ib_port_state state)
{
	switch (state) {
	case IB_PORT_NOP:
		return "NOP";
	case IB_PORT_DOWN:
		return "DOWN";
	case IB_PORT_INIT:
		return "INIT";
	case IB_PORT_ARMED:
		return "ARMED";
	case IB_PORT_ACTIVE:
		return "ACTIVE";
	case IB_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	}
	return "UNKNOWN";
}

static const char *ib_port_phys_state_name(unsigned int phys_state)
{
	switch (phys_state) {
	case IB_PORT_PHYS_STATE_SLEEP:
		return "Sleep";
	case IB_PORT_PHYS_STATE_POLLING:
		return "Polling";
	case IB_PORT_PHYS_STATE_DISABLED:
		return "Disabled";
	case IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING:
		return "PortConfigurationTraining";
	case IB_PORT_PHYS_STATE_LINK_UP:
		return "LinkUp";
	case IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY:
		return "LinkErrorRecovery";
	case IB_PORT_PHYS_STATE_PHY_TEST:
		return "Phy Test";
	}
	return "<unknown>";
}

/**
 * struct ib_port_field_attr - a port file showing a field of the port's
 *	current attributes: state, phys_state, lid, lid_mask_count, sm_lid,
 *	sm_sl, cap_mask, rate
 * @kattr: the attribute; its show(), ib_port_field_show(), asks the
 *	driver for the attributes (ib_query_port()) and finds @emit from it
 * @emit: writes the file's text for @attr into @buf (sysfs_emit())
 */
struct ib_port_field_attr {
	struct kobj_attribute	kattr;
	ssize_t			(*emit)(char *buf,
					const struct ib_port_attr *attr);
};

static ssize_t ib_port_field_show(struct kobject *kobj,
				  struct kobj_attribute *kattr, char *buf)
{
	const struct ib_port_field_attr *field =
		container_of(kattr, struct ib_port_field_attr, kattr);
	struct ib_port_attr attr;
	int ret;

	ret = ib_port_kobj_query(kobj, &attr);
	if (ret)
		return ret;
	return field->emit(buf, &attr);
}

static ssize_t ib_port_emit_state(char *buf, const struct ib_port_attr *attr)
{
	return sysfs_emit(buf, "%u: %s\n", attr->state,
			  ib_port_state_name(attr->state));
}

static ssize_t ib_port_emit_phys_state(char *buf,
				       const struct ib_port_attr *attr)
{
	return sysfs_emit(buf, "%u: %s\n", attr->phys_state,
			  ib_port_phys_state_name(attr->phys_state));
}

static ssize_t ib_port_emit_lid(char *buf, const struct ib_port_attr *attr)
{
	return sysfs_emit(buf, "0x%x\n", attr->lid);
}

static ssize_t ib_port_emit_lid_mask_count(char *buf,
					   const struct ib_port_attr *attr)
{
	return sysfs_emit(buf, "%u\n", attr->lmc);
}

static ssize_t ib_port_emit_sm_lid(char *buf, const struct ib_port_attr *attr)
{
	return sysfs_emit(buf, "0x%x\n", attr->sm_lid);
}

static ssize_t ib_port_emit_sm_sl(char *buf, const struct ib_port_attr *attr)
{
	return sysfs_emit(buf, "%u\n", attr->sm_sl);
}

static ssize_t ib_port_emit_cap_mask(char *buf,
				     const struct ib_port_attr *attr)
{
	return sysfs_emit(buf, "0x%08x\n", attr->port_cap_flags);
}

/* Number of lanes of an active width, or 0 for a value IBA does not have. */
static unsigned int ib_port_width_lanes(u8 width)
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
	}
	return 0;
}

/*
 * "<Gb/s> Gb/sec (<lanes>X <speed>)": the data rate of one lane, in
 * tenths of Gb/s, times the lanes.  A speed unknown here counts as SDR.
 */
static ssize_t ib_port_emit_rate(char *buf, const struct ib_port_attr *attr)
{
	unsigned int lanes, tenths;
	const char *name;

	switch (attr->active_speed) {
	case IB_SPEED_DDR:
		name = "DDR";
		tenths = 50;
		break;
	case IB_SPEED_QDR:
		name = "QDR";
		tenths = 100;
		break;
	case IB_SPEED_FDR10:
		name = "FDR10";
		tenths = 100;
		break;
	case IB_SPEED_FDR:
		name = "FDR";
		tenths = 140;
		break;
	case IB_SPEED_EDR:
		name = "EDR";
		tenths = 250;
		break;
	case IB_SPEED_HDR:
		name = "HDR";
		tenths = 500;
		break;
	case IB_SPEED_NDR:
		name = "NDR";
		tenths = 1000;
		break;
	default:
		name = "SDR";
		tenths = 25;
		break;
	}

	lanes = ib_port_width_lanes(attr->active_width);
	if (!lanes)
		return -EINVAL;
	tenths *= lanes;
	return sysfs_emit(buf, "%u%s Gb/sec (%uX %s)\n", tenths / 10,
			  tenths % 10 ? ".5" : "", lanes, name);
}

/* The file ports/<port>/_name, read with ib_port_emit__name(). */
#define IB_PORT_FIELD_ATTR(_name)					\
	{								\
		.kattr = __ATTR(_name, 0444, ib_port_field_show, NULL),	\
		.emit = ib_port_emit_##_name,				\
	}

static struct ib_port_field_attr ib_port_attr_state =
	IB_PORT_FIELD_ATTR(state);
static struct ib_port_field_attr ib_port_attr_phys_state =
	IB_PORT_FIELD_ATTR(phys_state);
static struct ib_port_field_attr ib_port_attr_lid =
	IB_PORT_FIELD_ATTR(lid);
static struct ib_port_field_attr ib_port_attr_lid_mask_count =
	IB_PORT_FIELD_ATTR(lid_mask_count);
static struct ib_port_field_attr ib_port_attr_sm_lid =
	IB_PORT_FIELD_ATTR(sm_lid);
static struct ib_port_field_attr ib_port_attr_sm_sl =
	IB_PORT_FIELD_ATTR(sm_sl);
static struct ib_port_field_attr ib_port_attr_cap_mask =
	IB_PORT_FIELD_ATTR(cap_mask);
static struct ib_port_field_attr ib_port_attr_rate =
	IB_PORT_FIELD_ATTR(rate);

static ssize_t ib_port_link_layer_show(struct kobject *kobj,
				       struct kobj_attribute *kattr,
				       char *buf)
{
	struct ib_port_kobj *port = to_ib_port_kobj(kobj);
	const char *name;

	switch (rdma_port_get_link_layer(port->device, port->port_num)) {
	case IB_LINK_LAYER_INFINIBAND:
		name = "InfiniBand";
		break;
	case IB_LINK_LAYER_ETHERNET:
		name = "Ethernet";
		break;
	default:
		name = "Unknown";
		break;
	}
	return sysfs_emit(buf, "%s\n", name);
}

static struct kobj_attribute ib_port_attr_link_layer =
	__ATTR(link_layer, 0444, ib_port_link_layer_show, NULL);

static struct attribute *ib_port_attrs[] = {
	&ib_port_attr_state.kattr.attr,
	&ib_port_attr_phys_state.kattr.attr,
	&ib_port_attr_lid.kattr.attr,
	&ib_port_attr_lid_mask_count.kattr.attr,
	&ib_port_attr_sm_lid.kattr.attr,
	&ib_port_attr_sm_sl.kattr.attr,
	&ib_port_attr_cap_mask.kattr.attr,
	&ib_port_attr_rate.kattr.attr,
	&ib_port_attr_link_layer.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ib_port);

/*
 * gids/<index>: the cached entry, all zeroes if there is none.  Readers
 * expect every index below the table length to be readable.
 */
static ssize_t ib_port_gid_show(struct kobject *kobj,
				struct kobj_attribute *kattr, char *buf)
{
	struct ib_port_table_attr *ta = to_ib_port_table_attr(kattr);
	union ib_gid gid;

	if (rdma_query_gid(ta->port->device, ta->port->port_num, ta->index,
			   &gid))
		memset(&gid, 0, sizeof(gid));
	return sysfs_emit(buf, "%pI6\n", gid.raw);
}

/*
 * gid_attrs/types/<index>: every GID of ours is an InfiniBand one.  An
 * unused (all-zero) entry has no type: -EINVAL, which libibverbs takes
 * for "IB/RoCE v1" too.
 */
static ssize_t ib_port_gid_type_show(struct kobject *kobj,
				     struct kobj_attribute *kattr, char *buf)
{
	struct ib_port_table_attr *ta = to_ib_port_table_attr(kattr);
	union ib_gid gid;

	if (rdma_query_gid(ta->port->device, ta->port->port_num, ta->index,
			   &gid) ||
	    !memchr_inv(gid.raw, 0, sizeof(gid.raw)))
		return -EINVAL;
	return sysfs_emit(buf, "IB/RoCE v1\n");
}

/*
 * gid_attrs/ndevs/<index>: the net device a GID belongs to.  No GID of
 * ours has one (there is no RoCE), and the read fails with -EINVAL, as
 * readers expect for an entry without one.
 */
static ssize_t ib_port_gid_ndev_show(struct kobject *kobj,
				     struct kobj_attribute *kattr, char *buf)
{
	return -EINVAL;
}

/* pkeys/<index>: the driver's current entry. */
static ssize_t ib_port_pkey_show(struct kobject *kobj,
				 struct kobj_attribute *kattr, char *buf)
{
	struct ib_port_table_attr *ta = to_ib_port_table_attr(kattr);
	u16 pkey;
	int ret;

	ret = ib_query_pkey(ta->port->device, ta->port->port_num, ta->index,
			    &pkey);
	if (ret)
		return ret;
	return sysfs_emit(buf, "0x%04x\n", pkey);
}

/*
 * Fill in @table as the directory @name with @len files, 0 to @len - 1,
 * read with @show.  On failure what was allocated is left for
 * ib_port_table_free().
 */
static int ib_port_table_init(struct ib_port_table *table,
			      struct ib_port_kobj *port, const char *name,
			      int len,
			      ssize_t (*show)(struct kobject *kobj,
					      struct kobj_attribute *kattr,
					      char *buf))
{
	int i;

	if (len < 0)
		len = 0;
	table->attrs = kcalloc(len + 1, sizeof(*table->attrs), GFP_KERNEL);
	table->entries = kcalloc(len, sizeof(*table->entries), GFP_KERNEL);
	if (!table->attrs || !table->entries)
		return -ENOMEM;

	for (i = 0; i < len; i++) {
		struct ib_port_table_attr *ta = &table->entries[i];

		snprintf(ta->name, sizeof(ta->name), "%d", i);
		sysfs_attr_init(&ta->kattr.attr);
		ta->kattr.attr.name = ta->name;
		ta->kattr.attr.mode = 0444;
		ta->kattr.show = show;
		ta->port = port;
		ta->index = i;
		table->attrs[i] = &ta->kattr.attr;
	}
	table->group.name = name;
	table->group.attrs = table->attrs;
	return 0;
}

static void ib_port_table_free(struct ib_port_table *table)
{
	kfree(table->entries);
	kfree(table->attrs);
}

/* The last reference to a port directory is gone; it is out of sysfs. */
static void ib_port_kobj_release(struct kobject *kobj)
{
	struct ib_port_kobj *port = to_ib_port_kobj(kobj);

	ib_port_table_free(&port->gids);
	ib_port_table_free(&port->pkeys);
	ib_port_table_free(&port->gid_types);
	ib_port_table_free(&port->gid_ndevs);
	put_device(&port->device->dev);
	kfree(port);
}

static const struct kobj_type ib_port_ktype = {
	.release = ib_port_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = ib_port_groups,
};

/*
 * Take a port directory out of sysfs, waiting for show() calls in
 * progress, and drop the reference of its creator.
 */
static void ib_port_sysfs_del(struct ib_port_kobj *port)
{
	if (port->gid_attrs) {
		kobject_del(port->gid_attrs);
		kobject_put(port->gid_attrs);
	}
	kobject_del(&port->kobj);
	kobject_put(&port->kobj);
}

/* Create ports/<port_num> and everything in it. */
static int ib_port_sysfs_add(struct ib_device *device, u32 port_num)
{
	const struct ib_port_immutable *immutable =
		ib_port_immutable_read(device, port_num);
	struct ib_port_kobj *port;
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->device = device;
	port->port_num = port_num;
	get_device(&device->dev);
	/* from here on ib_port_kobj_release() frees what port holds */
	kobject_init(&port->kobj, &ib_port_ktype);

	ret = ib_port_table_init(&port->gids, port, "gids",
				 immutable->gid_tbl_len, ib_port_gid_show);
	if (ret)
		goto err_put;
	ret = ib_port_table_init(&port->pkeys, port, "pkeys",
				 immutable->pkey_tbl_len, ib_port_pkey_show);
	if (ret)
		goto err_put;
	ret = ib_port_table_init(&port->gid_types, port, "types",
				 immutable->gid_tbl_len,
				 ib_port_gid_type_show);
	if (ret)
		goto err_put;
	ret = ib_port_table_init(&port->gid_ndevs, port, "ndevs",
				 immutable->gid_tbl_len,
				 ib_port_gid_ndev_show);
	if (ret)
		goto err_put;

	ret = kobject_add(&port->kobj, device->ports_kobj, "%u", port_num);
	if (ret)
		goto err_put;
	ret = sysfs_create_group(&port->kobj, &port->gids.group);
	if (ret)
		goto err_del;
	ret = sysfs_create_group(&port->kobj, &port->pkeys.group);
	if (ret)
		goto err_del;

	port->gid_attrs = kobject_create_and_add("gid_attrs", &port->kobj);
	if (!port->gid_attrs) {
		ret = -ENOMEM;
		goto err_del;
	}
	ret = sysfs_create_group(port->gid_attrs, &port->gid_types.group);
	if (ret)
		goto err_del;
	ret = sysfs_create_group(port->gid_attrs, &port->gid_ndevs.group);
	if (ret)
		goto err_del;

	device->port_data[port_num].sysfs = port;
	return 0;

err_del:
	ib_port_sysfs_del(port);
	return ret;
err_put:
	kobject_put(&port->kobj);
	return ret;
}

/**
 * ib_device_register_sysfs - create the port directories of a device
 * @device: a device being registered, just added to the device model
 *
 * Context: process context, under the core's registration lock.
 * Return: 0 or a negative errno; on failure nothing is left behind.
 */
int ib_device_register_sysfs(struct ib_device *device)
{
	u32 port;
	int ret;

	device->ports_kobj = kobject_create_and_add("ports", &device->dev.kobj);
	if (!device->ports_kobj)
		return -ENOMEM;

	for (port = rdma_start_port(device); port <= rdma_end_port(device);
	     port++) {
		ret = ib_port_sysfs_add(device, port);
		if (ret)
			goto err;
	}
	return 0;

err:
	ib_device_unregister_sysfs(device);
	return ret;
}

/**
 * ib_device_unregister_sysfs - remove the port directories of a device
 * @device: a device whose ib_device_register_sysfs() succeeded, or failed
 *
 * On return no show() of a port file runs or will run.
 *
 * Context: process context, under the core's registration lock.
 */
void ib_device_unregister_sysfs(struct ib_device *device)
{
	struct ib_port_data *pd;
	u32 port;

	if (!device->ports_kobj)
		return;

	for (port = rdma_start_port(device); port <= rdma_end_port(device);
	     port++) {
		pd = &device->port_data[port];
		if (!pd->sysfs)
			continue;
		ib_port_sysfs_del(pd->sysfs);
		pd->sysfs = NULL;
	}
	kobject_del(device->ports_kobj);
	kobject_put(device->ports_kobj);
	device->ports_kobj = NULL;
}

/**
 * ib_port_register_client_groups - add a client's files to a port directory
 * @ibdev: the device
 * @port_num: the port
 * @groups: NULL-terminated groups of struct kobj_attribute files, created
 *	in /sys/class/infiniband/<dev>/ports/<port> (a named group is a
 *	subdirectory); their show() finds the port with ib_port_sysfs_port()
 *
 * For clients whose files live there for compatibility (the CM's
 * counters); a client removes them in its remove callback.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a port without a directory, or the errno of
 * sysfs.
 */
int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups)
{
	if (!rdma_is_port_valid(ibdev, port_num) ||
	    !ibdev->port_data[port_num].sysfs)
		return -EINVAL;
	return sysfs_create_groups(&ibdev->port_data[port_num].sysfs->kobj,
				   groups);
}
EXPORT_SYMBOL(ib_port_register_client_groups);

/**
 * ib_port_unregister_client_groups - remove what
 *	ib_port_register_client_groups() added
 * @ibdev: the device
 * @port_num: the port
 * @groups: the same groups
 *
 * On return no show() of those files runs or will run.
 *
 * Context: process context.
 */
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups)
{
	if (!rdma_is_port_valid(ibdev, port_num) ||
	    !ibdev->port_data[port_num].sysfs)
		return;
	sysfs_remove_groups(&ibdev->port_data[port_num].sysfs->kobj, groups);
}
EXPORT_SYMBOL(ib_port_unregister_client_groups);

/**
 * ib_port_sysfs_port - the device and port of a port directory
 * @kobj: the kobject a show() of a client's port file was given
 * @port_num: set to the port number
 *
 * Return: the device, valid while the file exists.
 */
struct ib_device *ib_port_sysfs_port(struct kobject *kobj, u32 *port_num)
{
	struct ib_port_kobj *port = to_ib_port_kobj(kobj);

	*port_num = port->port_num;
	return port->device;
}
EXPORT_SYMBOL(ib_port_sysfs_port);

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
