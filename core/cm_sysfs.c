// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CM's counters in sysfs, where Linux 6.1 has them: in each port's
 * directory /sys/class/infiniband/<dev>/ports/<port>/, one directory per
 * group and one file per message type:
 *
 *   cm_tx_msgs/       messages sent, resends included
 *   cm_tx_retries/    resends (of REQ, REP, DREQ, SIDR_REQ)
 *   cm_rx_msgs/       messages received
 *   cm_rx_duplicates/ messages received again (answered as the IBA says)
 *   cm_rx_dropped/    (ours) messages that named no identifier, came in
 *                     the wrong state or with fields no connection can
 *                     have, and ("other") those of other attributes
 *
 * each holding req, mra, rej, rep, rtu, dreq, drep, sidr_req, sidr_rep,
 * lap and apr, a decimal count.  The files are read only and need no
 * lock: the counters are atomic.  They exist from the port's opening to
 * the device's removal, which removes them before the counters go.  The
 * attributes are made once, at module load, from the two tables below.
 */
#include "cm_priv.h"

static const char * const cm_group_names[CM_COUNTER_GROUPS] = {
	[CM_XMIT]		= "cm_tx_msgs",
	[CM_XMIT_RETRIES]	= "cm_tx_retries",
	[CM_RECV]		= "cm_rx_msgs",
	[CM_RECV_DUPLICATES]	= "cm_rx_duplicates",
	[CM_RECV_DROPPED]	= "cm_rx_dropped",
};

static const char * const cm_counter_names[CM_COUNTERS] = {
	[CM_REQ_COUNTER]	= "req",
	[CM_MRA_COUNTER]	= "mra",
	[CM_REJ_COUNTER]	= "rej",
	[CM_REP_COUNTER]	= "rep",
	[CM_RTU_COUNTER]	= "rtu",
	[CM_DREQ_COUNTER]	= "dreq",
	[CM_DREP_COUNTER]	= "drep",
	[CM_SIDR_REQ_COUNTER]	= "sidr_req",
	[CM_SIDR_REP_COUNTER]	= "sidr_rep",
	[CM_LAP_COUNTER]	= "lap",
	[CM_APR_COUNTER]	= "apr",
	[CM_OTHER_COUNTER]	= "other",
};

/**
 * struct cm_counter_attr - one counter file
 * @attr: the file
 * @group: its &enum cm_counter_group
 * @index: its &enum cm_counter_index
 */
struct cm_counter_attr {
	struct kobj_attribute	attr;
	u8			group;
	u8			index;
};

static struct cm_counter_attr cm_counter_attrs[CM_COUNTER_GROUPS][CM_COUNTERS];
static struct attribute *cm_counter_lists[CM_COUNTER_GROUPS][CM_COUNTERS + 1];
static struct attribute_group cm_counter_group[CM_COUNTER_GROUPS];
static const struct attribute_group *cm_counter_groups[CM_COUNTER_GROUPS + 1];

static ssize_t cm_counter_show(struct kobject *kobj,
			       struct kobj_attribute *kattr, char *buf)
{
	struct cm_counter_attr *ca =
		container_of(kattr, struct cm_counter_attr, attr);
	struct ib_device *device;
	struct cm_port *port;
	u32 port_num;

	device = ib_port_sysfs_port(kobj, &port_num);
	port = cm_sysfs_port(device, port_num);
	if (!port)
		return -ENODEV;
	return sysfs_emit(buf, "%ld\n",
			  atomic_long_read(&port->counters[ca->group]
							  [ca->index]));
}

/**
 * cm_sysfs_init - make the counter attributes, at module load
 */
void cm_sysfs_init(void)
{
	struct cm_counter_attr *ca;
	unsigned int g, i, n;

	for (g = 0; g < CM_COUNTER_GROUPS; g++) {
		n = 0;
		for (i = 0; i < CM_COUNTERS; i++) {
			/* "other" only where it is counted */
			if (i == CM_OTHER_COUNTER && g != CM_RECV_DROPPED)
				continue;
			ca = &cm_counter_attrs[g][i];
			sysfs_attr_init(&ca->attr.attr);
			ca->attr.attr.name = cm_counter_names[i];
			ca->attr.attr.mode = 0444;
			ca->attr.show = cm_counter_show;
			ca->group = g;
			ca->index = i;
			cm_counter_lists[g][n++] = &ca->attr.attr;
		}
		cm_counter_group[g].name = cm_group_names[g];
		cm_counter_group[g].attrs = cm_counter_lists[g];
		cm_counter_groups[g] = &cm_counter_group[g];
	}
}

/**
 * cm_sysfs_add - create a port's counter files
 * @port: the port
 *
 * Return: 0 or the errno of sysfs.
 */
int cm_sysfs_add(struct cm_port *port)
{
	int ret;

	ret = ib_port_register_client_groups(port->cm_dev->ib_device,
					     port->port_num,
					     cm_counter_groups);
	if (!ret)
		port->sysfs = true;
	return ret;
}

/**
 * cm_sysfs_remove - remove a port's counter files
 * @port: the port
 *
 * On return no read of them runs.
 */
void cm_sysfs_remove(struct cm_port *port)
{
	if (!port->sysfs)
		return;
	ib_port_unregister_client_groups(port->cm_dev->ib_device,
					 port->port_num, cm_counter_groups);
	port->sysfs = false;
}
