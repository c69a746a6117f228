// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: the module, its parameters, its ib_client and the
 * infiniband_srp class.
 *
 * For every InfiniBand port of every RDMA device the client's add makes
 * a class device /sys/class/infiniband_srp/srp-<ibdev>-<port> with the
 * attributes add_target (write-only: log in to a target, see
 * srp_host.c), ibdev and port.  The device gets one protection domain
 * and decides how memory is registered: with fast-registration MRs when
 * the device has them and never_register is not set, else through the
 * PD's global rkey.
 *
 * Locking: the client's add and remove run under the core's registration
 * lock.  remove first deletes the class devices, which waits for add_target
 * writes in progress (sysfs drains its active writers), then queues the
 * removal of every target of the device and flushes srp_remove_wq, so
 * nothing of the device is used when the PD is freed.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "srp.h"

#include <scsi/scsi_transport_srp.h>

MODULE_AUTHOR("The ibstack developers");
MODULE_DESCRIPTION("InfiniBand SCSI RDMA Protocol initiator");
MODULE_LICENSE("Dual BSD/GPL");

unsigned int srp_cmd_sg_entries;
module_param_named(cmd_sg_entries, srp_cmd_sg_entries, uint, 0444);
MODULE_PARM_DESC(cmd_sg_entries,
		 "Default number of gather/scatter entries in the SRP command (default is 12, max 255)");

static unsigned int srp_sg_tablesize;
module_param(srp_sg_tablesize, uint, 0444);
MODULE_PARM_DESC(srp_sg_tablesize, "Deprecated name for cmd_sg_entries");

unsigned int srp_indirect_sg_entries;
module_param_named(indirect_sg_entries, srp_indirect_sg_entries, uint, 0444);
MODULE_PARM_DESC(indirect_sg_entries,
		 "Default max number of gather/scatter entries (default is 12, max is "
		 __stringify(SG_MAX_SEGMENTS) ")");

bool srp_allow_ext_sg;
module_param_named(allow_ext_sg, srp_allow_ext_sg, bool, 0444);
MODULE_PARM_DESC(allow_ext_sg,
		 "Default behavior when there are more than cmd_sg_entries S/G entries after mapping; fails the request when false (default false)");

int srp_topspin_workarounds = 1;
module_param_named(topspin_workarounds, srp_topspin_workarounds, int, 0444);
MODULE_PARM_DESC(topspin_workarounds,
		 "Enable workarounds for Topspin/Cisco SRP target bugs if != 0");

bool srp_register_always = true;
module_param_named(register_always, srp_register_always, bool, 0444);
MODULE_PARM_DESC(register_always,
		 "Use memory registration even for contiguous memory regions");

bool srp_never_register;
module_param_named(never_register, srp_never_register, bool, 0444);
MODULE_PARM_DESC(never_register, "Never register memory");

int srp_reconnect_delay = 10;
int srp_fast_io_fail_tmo = 15;
int srp_dev_loss_tmo = 600;

static int srp_tmo_get(char *buffer, const struct kernel_param *kp)
{
	int tmo = *(int *)kp->arg;

	if (tmo < 0)
		return sysfs_emit(buffer, "off\n");
	return sysfs_emit(buffer, "%d\n", tmo);
}

/* A new timeout, checked together with the other two. */
static int srp_tmo_set(const char *val, const struct kernel_param *kp)
{
	int rd = srp_reconnect_delay, ff = srp_fast_io_fail_tmo;
	int dl = srp_dev_loss_tmo;
	int tmo, ret;

	ret = srp_parse_tmo(&tmo, val);
	if (ret)
		return ret;
	if (kp->arg == &srp_reconnect_delay)
		rd = tmo;
	else if (kp->arg == &srp_fast_io_fail_tmo)
		ff = tmo;
	else
		dl = tmo;
	ret = srp_tmo_valid(rd, ff, dl);
	if (ret)
		return ret;
	*(int *)kp->arg = tmo;
	return 0;
}

static const struct kernel_param_ops srp_tmo_ops = {
	.get = srp_tmo_get,
	.set = srp_tmo_set,
};

module_param_cb(reconnect_delay, &srp_tmo_ops, &srp_reconnect_delay, 0644);
MODULE_PARM_DESC(reconnect_delay, "Time between successive reconnect attempts");
module_param_cb(fast_io_fail_tmo, &srp_tmo_ops, &srp_fast_io_fail_tmo, 0644);
MODULE_PARM_DESC(fast_io_fail_tmo,
		 "Number of seconds between the observation of a transport layer error and failing all I/O. \"off\" means that this functionality is disabled.");
module_param_cb(dev_loss_tmo, &srp_tmo_ops, &srp_dev_loss_tmo, 0644);
MODULE_PARM_DESC(dev_loss_tmo,
		 "Maximum number of seconds that the SRP transport should insulate transport layer errors. After this time has been exceeded the SCSI host is removed. Should be between 1 and "
		 __stringify(SCSI_DEVICE_BLOCK_MAX_TIMEOUT)
		 " if fast_io_fail_tmo has not been set. \"off\" means that this functionality is disabled.");

bool srp_use_imm_data = true;
module_param_named(use_imm_data, srp_use_imm_data, bool, 0644);
MODULE_PARM_DESC(use_imm_data,
		 "Whether or not to request permission to use immediate data during SRP login.");

unsigned int srp_max_imm_data = 8 * 1024;
module_param_named(max_imm_data, srp_max_imm_data, uint, 0644);
MODULE_PARM_DESC(max_imm_data, "Maximum immediate data size.");

unsigned int srp_ch_count;
module_param_named(ch_count, srp_ch_count, uint, 0444);
MODULE_PARM_DESC(ch_count,
		 "Number of RDMA channels to use for communication with an SRP target. The default is the smaller of the number of online CPUs and the number of completion vectors of the HCA.");

struct ib_sa_client srp_sa_client;
struct workqueue_struct *srp_remove_wq;

static struct ib_client srp_client;

static struct srp_host *to_srp_host(struct device *dev)
{
	return container_of(dev, struct srp_host, dev);
}

static ssize_t add_target_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	int ret;

	ret = srp_add_target(to_srp_host(dev), buf);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(add_target);

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct srp_host *host = to_srp_host(dev);

	return sysfs_emit(buf, "%s\n", dev_name(&host->srp_dev->dev->dev));
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", to_srp_host(dev)->port);
}
static DEVICE_ATTR_RO(port);

static struct attribute *srp_class_attrs[] = {
	&dev_attr_add_target.attr,
	&dev_attr_ibdev.attr,
	&dev_attr_port.attr,
	NULL
};
ATTRIBUTE_GROUPS(srp_class);

static void srp_release_dev(struct device *dev)
{
	kfree(to_srp_host(dev));
}

static struct class srp_class = {
	.name		= "infiniband_srp",
	.dev_groups	= srp_class_groups,
	.dev_release	= srp_release_dev,
};

static struct srp_host *srp_add_port(struct srp_device *srp_dev, u32 port)
{
	struct srp_host *host;

	host = kzalloc(sizeof(*host), GFP_KERNEL);
	if (!host)
		return NULL;

	INIT_LIST_HEAD(&host->target_list);
	spin_lock_init(&host->target_lock);
	mutex_init(&host->add_target_mutex);
	host->srp_dev = srp_dev;
	host->port = port;

	device_initialize(&host->dev);
	host->dev.class = &srp_class;
	host->dev.parent = srp_dev->dev->dev.parent;
	if (dev_set_name(&host->dev, "srp-%s-%u",
			 dev_name(&srp_dev->dev->dev), port))
		goto put;
	if (device_add(&host->dev))
		goto put;
	return host;

put:
	put_device(&host->dev);
	return NULL;
}

/* How memory is registered on @srp_dev, from the device's limits. */
static void srp_setup_registration(struct srp_device *srp_dev)
{
	struct ib_device_attr *attr = &srp_dev->dev->attrs;
	int mr_page_shift;

	mr_page_shift = max(12, ffs(attr->page_size_cap) - 1);
	srp_dev->mr_page_size = 1 << mr_page_shift;
	srp_dev->mr_page_mask = ~((u64)srp_dev->mr_page_size - 1);
	srp_dev->max_pages_per_mr = min_t(u64, SRP_MAX_PAGES_PER_MR,
					  attr->max_mr_size >> mr_page_shift);
	if (attr->max_fast_reg_page_list_len)
		srp_dev->max_pages_per_mr =
			min_t(int, srp_dev->max_pages_per_mr,
			      attr->max_fast_reg_page_list_len);
	srp_dev->mr_max_size = (u64)srp_dev->mr_page_size *
			       srp_dev->max_pages_per_mr;
	srp_dev->use_fast_reg = !srp_never_register &&
		(attr->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
		srp_dev->max_pages_per_mr > 0;
}

static bool srp_port_is_ib(struct ib_device *device, u32 port)
{
	return rdma_port_get_link_layer(device, port) ==
	       IB_LINK_LAYER_INFINIBAND;
}

static int srp_add_one(struct ib_device *device)
{
	struct srp_device *srp_dev;
	struct srp_host *host;
	unsigned int flags = 0;
	u32 p;

	srp_dev = kzalloc(sizeof(*srp_dev), GFP_KERNEL);
	if (!srp_dev)
		return -ENOMEM;
	srp_dev->dev = device;
	INIT_LIST_HEAD(&srp_dev->dev_list);
	srp_setup_registration(srp_dev);

	if (!srp_dev->use_fast_reg || !srp_register_always)
		flags |= IB_PD_UNSAFE_GLOBAL_RKEY;
	srp_dev->pd = ib_alloc_pd(device, flags);
	if (IS_ERR(srp_dev->pd)) {
		int ret = PTR_ERR(srp_dev->pd);

		kfree(srp_dev);
		return ret;
	}
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		srp_dev->global_rkey = srp_dev->pd->unsafe_global_rkey;

	for (p = rdma_start_port(device); p <= rdma_end_port(device); p++) {
		if (!srp_port_is_ib(device, p))
			continue;
		host = srp_add_port(srp_dev, p);
		if (host)
			list_add_tail(&host->list, &srp_dev->dev_list);
	}

	dev_dbg(&device->dev, "srp: fast registration %s, %d pages of %d bytes per MR\n",
		srp_dev->use_fast_reg ? "on" : "off",
		srp_dev->max_pages_per_mr, srp_dev->mr_page_size);
	ib_set_client_data(device, &srp_client, srp_dev);
	return 0;
}

static void srp_remove_one(struct ib_device *device, void *client_data)
{
	struct srp_device *srp_dev = client_data;
	struct srp_target_port *target;
	struct srp_host *host, *tmp_host;

	list_for_each_entry_safe(host, tmp_host, &srp_dev->dev_list, list) {
		/* no add_target runs or starts after this */
		device_del(&host->dev);

		spin_lock_irq(&host->target_lock);
		list_for_each_entry(target, &host->target_list, list) {
			if (target->state == SRP_TARGET_REMOVED)
				continue;
			target->state = SRP_TARGET_REMOVED;
			queue_work(srp_remove_wq, &target->remove_work);
		}
		spin_unlock_irq(&host->target_lock);

		/* the remove works of this host's targets */
		flush_workqueue(srp_remove_wq);
		WARN_ON(!list_empty(&host->target_list));

		list_del(&host->list);
		put_device(&host->dev);
	}

	ib_dealloc_pd(srp_dev->pd);
	kfree(srp_dev);
}

static struct ib_client srp_client = {
	.name	= "srp",
	.add	= srp_add_one,
	.remove	= srp_remove_one,
};

static int __init srp_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct srp_login_req) != 64);
	BUILD_BUG_ON(sizeof(struct srp_login_rsp) != 52);
	BUILD_BUG_ON(sizeof(struct srp_rsp) != 36);
	BUILD_BUG_ON(sizeof(struct srp_cmd) != 48);

	if (srp_sg_tablesize) {
		pr_warn("srp_sg_tablesize is deprecated, please use cmd_sg_entries\n");
		if (!srp_cmd_sg_entries)
			srp_cmd_sg_entries = srp_sg_tablesize;
	}
	if (!srp_cmd_sg_entries)
		srp_cmd_sg_entries = SRP_DEF_SG_TABLESIZE;
	if (srp_cmd_sg_entries > SRP_MAX_CMD_SG_ENTRIES) {
		pr_warn("Clamping cmd_sg_entries to 255\n");
		srp_cmd_sg_entries = SRP_MAX_CMD_SG_ENTRIES;
	}
	if (!srp_indirect_sg_entries) {
		srp_indirect_sg_entries = srp_cmd_sg_entries;
	} else if (srp_indirect_sg_entries < srp_cmd_sg_entries) {
		pr_warn("Bumping up indirect_sg_entries to match cmd_sg_entries (%u)\n",
			srp_cmd_sg_entries);
		srp_indirect_sg_entries = srp_cmd_sg_entries;
	}
	if (srp_indirect_sg_entries > SG_MAX_SEGMENTS) {
		pr_warn("Clamping indirect_sg_entries to %u\n",
			SG_MAX_SEGMENTS);
		srp_indirect_sg_entries = SG_MAX_SEGMENTS;
	}
	if (srp_ch_count > SRP_MAX_CH_COUNT) {
		pr_warn("Clamping ch_count to %u\n", SRP_MAX_CH_COUNT);
		srp_ch_count = SRP_MAX_CH_COUNT;
	}

	srp_remove_wq = alloc_workqueue("srp_remove", WQ_MEM_RECLAIM, 0);
	if (!srp_remove_wq)
		return -ENOMEM;

	srp_transport_template = srp_attach_transport(&srp_transport_functions);
	if (!srp_transport_template) {
		ret = -ENOMEM;
		goto destroy_wq;
	}

	ret = class_register(&srp_class);
	if (ret) {
		pr_err("couldn't register class infiniband_srp\n");
		goto release_tr;
	}

	ib_sa_register_client(&srp_sa_client);

	ret = ib_register_client(&srp_client);
	if (ret) {
		pr_err("couldn't register IB client\n");
		goto unreg_sa;
	}
	return 0;

unreg_sa:
	ib_sa_unregister_client(&srp_sa_client);
	class_unregister(&srp_class);
release_tr:
	srp_release_transport(srp_transport_template);
destroy_wq:
	destroy_workqueue(srp_remove_wq);
	return ret;
}

static void __exit srp_cleanup(void)
{
	ib_unregister_client(&srp_client);
	ib_sa_unregister_client(&srp_sa_client);
	class_unregister(&srp_class);
	srp_release_transport(srp_transport_template);
	destroy_workqueue(srp_remove_wq);
}

module_init(srp_init);
module_exit(srp_cleanup);
