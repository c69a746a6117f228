// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx debugfs: fault knobs, counters and state, for tests and debugging.
 *
 *   /sys/kernel/debug/vmlx/fabric                  topology, switch counters
 *   /sys/kernel/debug/vmlx/profile                 the data path's time by
 *                                                  stage (vmlx_prof.c); write
 *                                                  1 to start, 0 to stop
 *   /sys/kernel/debug/vmlx/<dev>/objects           verbs objects in use
 *   /sys/kernel/debug/vmlx/<dev>/qps               transport state of each
 *                                                  RC and UC QP, a line each
 *   /sys/kernel/debug/vmlx/<dev>/port<N>/link      1: link up; write 0/1
 *                                                  to disable/enable it
 *   /sys/kernel/debug/vmlx/<dev>/port<N>/drop_ppm  packets per million
 *   /sys/kernel/debug/vmlx/<dev>/port<N>/corrupt_ppm    dropped/corrupted
 *   /sys/kernel/debug/vmlx/<dev>/port<N>/counters  "name value" lines
 *   /sys/kernel/debug/vmlx/<dev>/port<N>/state     "name value" lines
 *
 * Without debugfs every call here quietly does nothing and the module
 * works as before.  The files go away (and debugfs waits for readers and
 * writers in progress) before the device they look at is freed.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "vmlx.h"

#define VMLX_PPM_MAX	1000000

static struct dentry *vmlx_debugfs_root;

/* link: read 1 while the physical link is up, write 0 or 1 */

static ssize_t vmlx_link_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct vmlx_port *port = file->private_data;
	char s[2];

	s[0] = READ_ONCE(port->phys_state) == IB_PORT_PHYS_STATE_LINK_UP ?
	       '1' : '0';
	s[1] = '\n';
	return simple_read_from_buffer(buf, count, ppos, s, sizeof(s));
}

static ssize_t vmlx_link_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct vmlx_port *port = file->private_data;
	bool up;
	int ret;

	ret = kstrtobool_from_user(buf, count, &up);
	if (ret)
		return ret;
	ret = vmlx_port_set_link(port, up);
	return ret ? ret : count;
}

static const struct file_operations vmlx_link_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vmlx_link_read,
	.write = vmlx_link_write,
	.llseek = default_llseek,
};

/* drop_ppm, corrupt_ppm: the file's data is the knob, a u32 */

static ssize_t vmlx_ppm_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	u32 *knob = file->private_data;
	char s[16];
	int len;

	len = scnprintf(s, sizeof(s), "%u\n", READ_ONCE(*knob));
	return simple_read_from_buffer(buf, count, ppos, s, len);
}

static ssize_t vmlx_ppm_write(struct file *file, const char __user *buf,
			      size_t count, loff_t *ppos)
{
	u32 *knob = file->private_data;
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &val);
	if (ret)
		return ret;
	if (val > VMLX_PPM_MAX)
		return -EINVAL;
	WRITE_ONCE(*knob, val);
	return count;
}

static const struct file_operations vmlx_ppm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vmlx_ppm_read,
	.write = vmlx_ppm_write,
	.llseek = default_llseek,
};

/* counters */

#define VMLX_COUNTER(name) { #name, offsetof(struct vmlx_port_counters, name) }

static const struct {
	const char	*name;
	size_t		offset;
} vmlx_counters[] = {
	VMLX_COUNTER(xmit_packets),
	VMLX_COUNTER(xmit_bytes),
	VMLX_COUNTER(rcv_packets),
	VMLX_COUNTER(rcv_bytes),
	VMLX_COUNTER(xmit_discards),
	VMLX_COUNTER(rcv_errors),
	VMLX_COUNTER(rcv_discards),
	VMLX_COUNTER(rcv_bad_source),
	VMLX_COUNTER(injected_drops),
	VMLX_COUNTER(injected_corruptions),
	VMLX_COUNTER(xmit_mcast_packets),
	VMLX_COUNTER(rcv_mcast_packets),
	VMLX_COUNTER(link_downed),
	VMLX_COUNTER(traps),
	VMLX_COUNTER(rx_queue_full),
	VMLX_COUNTER(timeouts),
	VMLX_COUNTER(seq_naks_rcvd),
	VMLX_COUNTER(rnr_naks_rcvd),
	VMLX_COUNTER(retry_exceeded),
	VMLX_COUNTER(dup_requests),
	VMLX_COUNTER(seq_naks_sent),
};

static int vmlx_counters_show(struct seq_file *m, void *v)
{
	struct vmlx_port *port = m->private;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vmlx_counters); i++) {
		atomic64_t *c = (void *)&port->cnt + vmlx_counters[i].offset;

		seq_printf(m, "%s %lld\n", vmlx_counters[i].name,
			   atomic64_read(c));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vmlx_counters);

/* state */

static const char * const vmlx_state_names[] = {
	[IB_PORT_NOP] = "NOP",
	[IB_PORT_DOWN] = "DOWN",
	[IB_PORT_INIT] = "INIT",
	[IB_PORT_ARMED] = "ARMED",
	[IB_PORT_ACTIVE] = "ACTIVE",
	[IB_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
};

static const char * const vmlx_phys_state_names[] = {
	[IB_PORT_PHYS_STATE_SLEEP] = "SLEEP",
	[IB_PORT_PHYS_STATE_POLLING] = "POLLING",
	[IB_PORT_PHYS_STATE_DISABLED] = "DISABLED",
	[IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING] =
		"PORT_CONFIGURATION_TRAINING",
	[IB_PORT_PHYS_STATE_LINK_UP] = "LINK_UP",
	[IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY] = "LINK_ERROR_RECOVERY",
	[IB_PORT_PHYS_STATE_PHY_TEST] = "PHY_TEST",
};

static const char *vmlx_name(const char * const *names, unsigned int num,
			     unsigned int val)
{
	return val < num && names[val] ? names[val] : "?";
}

static int vmlx_state_show(struct seq_file *m, void *v)
{
	struct vmlx_port *port = m->private;
	u16 pkeys[VMLX_PKEY_TBL_LEN];
	enum ib_port_phys_state phys;
	enum ib_port_state state;
	u16 lid, sm_lid;
	unsigned long flags;
	u8 lmc, sm_sl;
	unsigned int i;

	spin_lock_irqsave(&port->lock, flags);
	state = port->state;
	phys = port->phys_state;
	lid = port->lid;
	lmc = port->lmc;
	sm_lid = port->sm_lid;
	sm_sl = port->sm_sl;
	memcpy(pkeys, port->pkeys, sizeof(pkeys));
	spin_unlock_irqrestore(&port->lock, flags);

	seq_printf(m, "state %s\nphys_state %s\n",
		   vmlx_name(vmlx_state_names, ARRAY_SIZE(vmlx_state_names),
			     state),
		   vmlx_name(vmlx_phys_state_names,
			     ARRAY_SIZE(vmlx_phys_state_names), phys));
	seq_printf(m, "lid %u\nlmc %u\nsm_lid %u\nsm_sl %u\n", lid, lmc,
		   sm_lid, sm_sl);
	for (i = 0; i < VMLX_PKEY_TBL_LEN; i++)
		if (pkeys[i])
			seq_printf(m, "pkey%u 0x%04x\n", i, pkeys[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vmlx_state);

/* objects: the core's resource tracking, plus the AHs it does not track */

static int vmlx_objects_show(struct seq_file *m, void *v)
{
	struct vmlx_dev *vdev = m->private;
	struct ib_device *ibdev = &vdev->ibdev;
	unsigned long index;
	unsigned int ahs = 0;
	void *entry;

	xa_for_each(&vdev->ahs, index, entry)
		ahs++;
	seq_printf(m, "qp %d\n", rdma_restrack_count(ibdev, RDMA_RESTRACK_QP));
	seq_printf(m, "mr %d\n", rdma_restrack_count(ibdev, RDMA_RESTRACK_MR));
	seq_printf(m, "cq %d\n", rdma_restrack_count(ibdev, RDMA_RESTRACK_CQ));
	seq_printf(m, "pd %d\n", rdma_restrack_count(ibdev, RDMA_RESTRACK_PD));
	seq_printf(m, "srq %d\n",
		   rdma_restrack_count(ibdev, RDMA_RESTRACK_SRQ));
	seq_printf(m, "ah %u\n", ahs);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vmlx_objects);

/*
 * qps: the transport state of each connected QP, one line each: enough to
 * see where a stalled connection waits.  Read under the QP's lock, one
 * QP at a time, with a reference so that it cannot go meanwhile.
 */
static void vmlx_qp_show_one(struct seq_file *m, struct vmlx_qp *qp)
{
	mutex_lock(&qp->lock);
	seq_printf(m, "qp %u state %d sq %u/%u/%u req psn %u sent %u rd_atomic %u comp psn %u retry %u timer %d probing %d rnr_wait %d resp psn %u read %d/%u waiting %u rx %u\n",
		   qp->ibqp.qp_num, qp->state, qp->sq.q.index,
		   qp->req.next, qp->req.fetched, qp->req.psn,
		   qp->req.sent_psn, qp->req.rd_atomic, qp->comp.psn,
		   qp->comp.retry_left, timer_pending(&qp->comp.timer),
		   qp->comp.probing, qp->comp.rnr_wait, qp->resp.psn,
		   qp->resp.read.active, qp->resp.read.psn,
		   skb_queue_len(&qp->resp.waiting),
		   skb_queue_len(&qp->rx_queue));
	mutex_unlock(&qp->lock);
}

static int vmlx_qps_show(struct seq_file *m, void *v)
{
	struct vmlx_dev *vdev = m->private;
	unsigned long index = 0;
	struct vmlx_qp *qp;
	bool found;

	for (;; index++) {
		xa_lock(&vdev->qps);
		qp = xa_find(&vdev->qps, &index, ULONG_MAX, XA_PRESENT);
		found = qp;
		if (qp && !refcount_inc_not_zero(&qp->refs))
			qp = NULL;	/* being destroyed */
		xa_unlock(&vdev->qps);
		if (!found)
			break;
		if (!qp)
			continue;
		if (qp->ibqp.qp_type == IB_QPT_RC ||
		    qp->ibqp.qp_type == IB_QPT_UC)
			vmlx_qp_show_one(m, qp);
		vmlx_qp_put(qp);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vmlx_qps);

/* fabric */

static int vmlx_fabric_dbg_show(struct seq_file *m, void *v)
{
	vmlx_fabric_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vmlx_fabric_dbg);

/**
 * vmlx_debugfs_init() - create /sys/kernel/debug/vmlx
 */
void vmlx_debugfs_init(void)
{
	vmlx_debugfs_root = debugfs_create_dir("vmlx", NULL);
	debugfs_create_file("fabric", 0444, vmlx_debugfs_root, NULL,
			    &vmlx_fabric_dbg_fops);
	vmlx_prof_debugfs_init(vmlx_debugfs_root);
}

/**
 * vmlx_debugfs_exit() - remove /sys/kernel/debug/vmlx and what is left in it
 */
void vmlx_debugfs_exit(void)
{
	debugfs_remove_recursive(vmlx_debugfs_root);
	vmlx_debugfs_root = NULL;
}

/**
 * vmlx_debugfs_add_dev() - create the directory of a registered HCA
 * @vdev: the HCA; its name is known
 */
void vmlx_debugfs_add_dev(struct vmlx_dev *vdev)
{
	struct vmlx_port *port;
	char name[16];
	u32 p;

	vdev->debugfs = debugfs_create_dir(dev_name(&vdev->ibdev.dev),
					   vmlx_debugfs_root);
	debugfs_create_file("objects", 0444, vdev->debugfs, vdev,
			    &vmlx_objects_fops);
	debugfs_create_file("qps", 0444, vdev->debugfs, vdev, &vmlx_qps_fops);
	for (p = 1; p <= vdev->ibdev.phys_port_cnt; p++) {
		port = vmlx_port(vdev, p);
		snprintf(name, sizeof(name), "port%u", p);
		port->debugfs = debugfs_create_dir(name, vdev->debugfs);
		debugfs_create_file("link", 0644, port->debugfs, port,
				    &vmlx_link_fops);
		debugfs_create_file("drop_ppm", 0644, port->debugfs,
				    &port->drop_ppm, &vmlx_ppm_fops);
		debugfs_create_file("corrupt_ppm", 0644, port->debugfs,
				    &port->corrupt_ppm, &vmlx_ppm_fops);
		debugfs_create_file("counters", 0444, port->debugfs, port,
				    &vmlx_counters_fops);
		debugfs_create_file("state", 0444, port->debugfs, port,
				    &vmlx_state_fops);
	}
}

/**
 * vmlx_debugfs_remove_dev() - remove the directory of an HCA
 * @vdev: the HCA
 *
 * On return no file of the HCA is being read or written.
 */
void vmlx_debugfs_remove_dev(struct vmlx_dev *vdev)
{
	u32 p;

	debugfs_remove_recursive(vdev->debugfs);
	vdev->debugfs = NULL;
	for (p = 1; p <= vdev->ibdev.phys_port_cnt; p++)
		vmlx_port(vdev, p)->debugfs = NULL;
}
