// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx module: creates the software HCAs and registers them with the core.
 *
 * The HCAs exist as RDMA devices with their identity (node type and GUIDs,
 * node description, firmware version) and ports that report their
 * attributes; verbs objects, the transport and the fabric are not there
 * yet.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vmlx.h"

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

/* The HCAs this module created, in creation order; module load/unload only. */
static LIST_HEAD(vmlx_devs);

static struct vmlx_dev *vmlx_create(unsigned int num)
{
	struct vmlx_dev *vdev;
	unsigned int p;
	u64 guid;
	int ret;

	vdev = ib_alloc_device(struct vmlx_dev, ibdev);
	if (!vdev)
		return ERR_PTR(-ENOMEM);

	vdev->num = num;
	spin_lock_init(&vdev->attr_lock);
	guid = VMLX_GUID_PREFIX | (u64)host_id << 16 | num << 4;
	vdev->ibdev.ops = &vmlx_dev_ops;
	vdev->ibdev.node_type = RDMA_NODE_IB_CA;
	vdev->ibdev.node_guid = cpu_to_be64(guid);
	vdev->ibdev.attrs.sys_image_guid = cpu_to_be64(guid);
	vdev->ibdev.phys_port_cnt = num_ports;
	vdev->ibdev.num_comp_vectors = 1;
	for (p = 0; p < num_ports; p++) {
		vdev->ports[p].guid = cpu_to_be64(guid + p + 1);
		vdev->ports[p].state = IB_PORT_INIT;
	}
	strscpy(vdev->ibdev.node_desc, "vmlx software HCA",
		sizeof(vdev->ibdev.node_desc));

	ret = ib_register_device(&vdev->ibdev, "vmlx%d", NULL);
	if (ret) {
		ib_dealloc_device(&vdev->ibdev);
		return ERR_PTR(ret);
	}
	return vdev;
}

static void vmlx_destroy(struct vmlx_dev *vdev)
{
	ib_unregister_device(&vdev->ibdev);
	ib_dealloc_device(&vdev->ibdev);
}

static void vmlx_destroy_all(void)
{
	struct vmlx_dev *vdev, *next;

	list_for_each_entry_safe_reverse(vdev, next, &vmlx_devs, list) {
		list_del(&vdev->list);
		vmlx_destroy(vdev);
	}
}

static int __init vmlx_init(void)
{
	struct vmlx_dev *vdev;
	unsigned int i;

	if (num_hcas < 1 || num_hcas > VMLX_MAX_HCAS) {
		pr_err("vmlx: num_hcas=%u is outside 1..%d\n", num_hcas,
		       VMLX_MAX_HCAS);
		return -EINVAL;
	}
	if (num_ports < 1 || num_ports > VMLX_MAX_PORTS) {
		pr_err("vmlx: num_ports=%u is outside 1..%d\n", num_ports,
		       VMLX_MAX_PORTS);
		return -EINVAL;
	}

	for (i = 0; i < num_hcas; i++) {
		vdev = vmlx_create(i);
		if (IS_ERR(vdev)) {
			vmlx_destroy_all();
			return PTR_ERR(vdev);
		}
		list_add_tail(&vdev->list, &vmlx_devs);
	}
	pr_info("vmlx: %u software HCAs with %u port(s) each\n", num_hcas,
		num_ports);
	return 0;
}

static void __exit vmlx_exit(void)
{
	vmlx_destroy_all();
}

module_init(vmlx_init);
module_exit(vmlx_exit);
