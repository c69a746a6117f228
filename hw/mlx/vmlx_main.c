// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx module: creates the software HCAs, cables them into the emulated
 * fabric and registers them with the core.
 *
 * Load: the work queue, the vmlx bus, the fabric, the debugfs root; every
 * HCA allocated with its bus device (its parent in sysfs) and its ports
 * set up and cabled; then every HCA registered, with its debugfs
 * directory; then, with static_lids, LIDs and ACTIVE ports.
 * Unload (and a failed load): every HCA unregistered, every port
 * uncabled, the fabric gone, debugfs gone, the HCAs freed and their bus
 * devices removed, the bus, the work queue last.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vmlx.h"
#include "vmlx_sma.h"

MODULE_AUTHOR("The ibstack developers");
MODULE_DESCRIPTION("Software InfiniBand HCA");
MODULE_LICENSE("Dual BSD/GPL");

static unsigned int num_hcas = 2;
module_param(num_hcas, uint, 0444);
MODULE_PARM_DESC(num_hcas, "Number of HCAs to create, 1-16 (default 2)");

static unsigned int num_ports = 1;
module_param(num_ports, uint, 0444);
MODULE_PARM_DESC(num_ports, "Ports per HCA, 1 or 2 (default 1)");

static ushort host_id;
module_param(host_id, ushort, 0444);
MODULE_PARM_DESC(host_id,
		 "Host number put into the GUIDs; give every host of a fabric its own (default 0)");

static bool static_lids;
module_param(static_lids, bool, 0444);
MODULE_PARM_DESC(static_lids,
		 "Lab option for fabrics without a subnet manager: give every port a LID and make it ACTIVE at load (default 0: ports stay INIT until an SM configures them)");

static bool back_to_back;
module_param(back_to_back, bool, 0444);
MODULE_PARM_DESC(back_to_back,
		 "Cable HCA 2k port p straight to HCA 2k+1 port p, without a switch (default 0: every port on one switch)");

/* Where the QPs' work items run (the transport). */
struct workqueue_struct *vmlx_wq;

/* The HCAs this module created, in creation order; module load/unload only. */
static LIST_HEAD(vmlx_devs);

static void vmlx_port_init(struct vmlx_dev *vdev, u32 port_num, u64 guid)
{
	struct vmlx_port *port = vmlx_port(vdev, port_num);

	port->vdev = vdev;
	port->port_num = port_num;
	port->guid = cpu_to_be64(guid + port_num);
	spin_lock_init(&port->lock);
	port->state = IB_PORT_INIT;
	port->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	port->pkeys[0] = VMLX_DEFAULT_PKEY;
	vmlx_port_sma_init(port);
	vmlx_mcast_port_init(port);
}

/* An HCA with its ports cabled, not registered yet. */
static struct vmlx_dev *vmlx_create(unsigned int num)
{
	struct vmlx_dev *vdev;
	unsigned int p;
	u64 guid;

	vdev = ib_alloc_device(struct vmlx_dev, ibdev);
	if (!vdev)
		return ERR_PTR(-ENOMEM);
	vdev->bus_dev = vmlx_bus_add_hca(num);
	if (IS_ERR(vdev->bus_dev)) {
		struct device *err = vdev->bus_dev;

		ib_dealloc_device(&vdev->ibdev);
		return ERR_CAST(err);
	}
	vdev->ibdev.dev.parent = vdev->bus_dev;

	vdev->num = num;
	spin_lock_init(&vdev->attr_lock);
	xa_init_flags(&vdev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&vdev->mrs, XA_FLAGS_ALLOC1);
	xa_init_flags(&vdev->ahs, XA_FLAGS_ALLOC1);
	xa_init_flags(&vdev->mmaps, XA_FLAGS_ALLOC1);
	xa_init_flags(&vdev->srqs, XA_FLAGS_ALLOC1);
	guid = VMLX_GUID_PREFIX | (u64)host_id << 16 | num << 4;
	vdev->ibdev.ops = &vmlx_dev_ops;
	vdev->ibdev.node_type = RDMA_NODE_IB_CA;
	vdev->ibdev.node_guid = cpu_to_be64(guid);
	vdev->ibdev.attrs.sys_image_guid = cpu_to_be64(guid);
	vdev->ibdev.phys_port_cnt = num_ports;
	vdev->ibdev.num_comp_vectors = 1;
	strscpy(vdev->ibdev.node_desc, "vmlx software HCA",
		sizeof(vdev->ibdev.node_desc));
	for (p = 1; p <= num_ports; p++)
		vmlx_port_init(vdev, p, guid);
	for (p = 1; p <= num_ports; p++)
		vmlx_fabric_cable(vmlx_port(vdev, p));
	return vdev;
}

/*
 * Undo everything, for whatever exists: unregister every HCA (a no-op for
 * one not registered), uncable every port, take the fabric and debugfs
 * down, free the HCAs.
 */
static void vmlx_teardown(void)
{
	struct vmlx_dev *vdev, *next;
	struct device *bus_dev;
	unsigned int p;

	list_for_each_entry_reverse(vdev, &vmlx_devs, list)
		ib_unregister_device(&vdev->ibdev);
	list_for_each_entry_reverse(vdev, &vmlx_devs, list)
		for (p = 1; p <= num_ports; p++)
			vmlx_fabric_uncable(vmlx_port(vdev, p));
	vmlx_fabric_exit();
	list_for_each_entry(vdev, &vmlx_devs, list)
		vmlx_debugfs_remove_dev(vdev);
	vmlx_debugfs_exit();
	list_for_each_entry_safe_reverse(vdev, next, &vmlx_devs, list) {
		list_del(&vdev->list);
		for (p = 1; p <= num_ports; p++)
			vmlx_mcast_port_cleanup(vmlx_port(vdev, p));
		WARN_ON(!xa_empty(&vdev->qps) || !xa_empty(&vdev->mrs) ||
			!xa_empty(&vdev->ahs));
		bus_dev = vdev->bus_dev;
		ib_dealloc_device(&vdev->ibdev);
		vmlx_bus_remove_hca(bus_dev);
	}
}

static int __init vmlx_init(void)
{
	struct vmlx_dev *vdev;
	unsigned int i;
	int ret;

	if (num_hcas < 1 || num_hcas > VMLX_MAX_HCAS) {
		pr_err("num_hcas=%u is outside 1..%d\n", num_hcas,
		       VMLX_MAX_HCAS);
		return -EINVAL;
	}
	if (num_ports < 1 || num_ports > VMLX_MAX_PORTS) {
		pr_err("num_ports=%u is outside 1..%d\n", num_ports,
		       VMLX_MAX_PORTS);
		return -EINVAL;
	}

	vmlx_wq = alloc_workqueue("vmlx", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!vmlx_wq)
		return -ENOMEM;
	ret = vmlx_bus_init();
	if (ret)
		goto err_wq;
	/* the switch is HCA number 0xfff of the host, as far as GUIDs go */
	ret = vmlx_fabric_init(num_hcas, num_ports, back_to_back,
			       VMLX_GUID_PREFIX | (u64)host_id << 16 |
			       VMLX_SWITCH_GUID_NUM << 4);
	if (ret)
		goto err_bus;
	vmlx_debugfs_init();

	for (i = 0; i < num_hcas; i++) {
		vdev = vmlx_create(i);
		if (IS_ERR(vdev)) {
			ret = PTR_ERR(vdev);
			goto err_devs;
		}
		list_add_tail(&vdev->list, &vmlx_devs);
	}
	list_for_each_entry(vdev, &vmlx_devs, list) {
		ret = ib_register_device(&vdev->ibdev, "vmlx%d", NULL);
		if (ret)
			goto err_devs;
		vmlx_debugfs_add_dev(vdev);
	}
	if (static_lids)
		vmlx_fabric_static_lids();

	pr_info("%u software HCAs with %u port(s) each, %s%s\n",
		num_hcas, num_ports,
		back_to_back ? "cabled back to back" : "on one switch",
		static_lids ? ", static LIDs" : "");
	return 0;

err_devs:
	/* takes down the fabric and debugfs too */
	vmlx_teardown();
err_bus:
	vmlx_bus_exit();
err_wq:
	destroy_workqueue(vmlx_wq);
	return ret;
}

static void __exit vmlx_exit(void)
{
	vmlx_teardown();
	vmlx_bus_exit();
	destroy_workqueue(vmlx_wq);
}

module_init(vmlx_init);
module_exit(vmlx_exit);
