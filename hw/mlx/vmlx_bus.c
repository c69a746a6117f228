// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The vmlx bus: what stands in for the PCI function of a real HCA.  Each
 * software HCA gets a device vmlx<N> on the bus "vmlx", bound to the
 * driver "vmlx", and that device is the parent of the HCA's ib_device in
 * sysfs.  So /sys/class/infiniband/vmlx<N>/device exists, the net devices
 * of upper layers that sit under it (IPoIB's) appear in its net/
 * directory, and udev finds SUBSYSTEMS=="vmlx" and DRIVERS=="vmlx" among
 * their parents, as it finds "pci" and "mlx5_core" on real hardware.
 *
 * The driver has nothing to do when it binds: vmlx_main.c creates the HCA
 * before its bus device and tears it down after.  Binding and unbinding
 * through sysfs is switched off, so the binding lasts as long as the
 * device.
 *
 * Locking: the driver core's.  vmlx_bus_devs counts the devices whose
 * memory (freed by their release, which is this module's code) is still
 * there; the module's exit waits on vmlx_bus_wait until it is zero.
 */
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "vmlx.h"

/* the bus devices not released yet; woken at zero */
static atomic_t vmlx_bus_devs = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(vmlx_bus_wait);

/* Every device on the bus is an HCA of this driver. */
static int vmlx_bus_match(struct device *dev, struct device_driver *drv)
{
	return 1;
}

static struct bus_type vmlx_bus_type = {
	.name	= "vmlx",
	.match	= vmlx_bus_match,
};

static int vmlx_bus_probe(struct device *dev)
{
	return 0;
}

static struct device_driver vmlx_bus_driver = {
	.name			= "vmlx",
	.bus			= &vmlx_bus_type,
	.owner			= THIS_MODULE,
	.probe			= vmlx_bus_probe,
	.suppress_bind_attrs	= true,
};

static void vmlx_bus_release(struct device *dev)
{
	kfree(dev);
	if (atomic_dec_and_test(&vmlx_bus_devs))
		wake_up(&vmlx_bus_wait);
}

/**
 * vmlx_bus_add_hca - the bus device of a new HCA
 * @num: the HCA's number; the device is named vmlx<num>
 *
 * Return: the device, registered and bound to the driver, or an ERR_PTR.
 */
struct device *vmlx_bus_add_hca(unsigned int num)
{
	struct device *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&vmlx_bus_devs);
	device_initialize(dev);
	dev->bus = &vmlx_bus_type;
	dev->release = vmlx_bus_release;
	ret = dev_set_name(dev, "vmlx%u", num);
	if (ret)
		goto err_put;
	ret = device_add(dev);
	if (ret)
		goto err_put;
	return dev;

err_put:
	/* the release frees the name and the memory */
	put_device(dev);
	return ERR_PTR(ret);
}

/**
 * vmlx_bus_remove_hca - take an HCA's bus device away
 * @dev: from vmlx_bus_add_hca(), no longer the parent of a registered
 *	ib_device
 */
void vmlx_bus_remove_hca(struct device *dev)
{
	device_unregister(dev);
}

/**
 * vmlx_bus_init - register the bus and its driver
 *
 * Return: 0 or a negative errno.
 */
int vmlx_bus_init(void)
{
	int ret;

	ret = bus_register(&vmlx_bus_type);
	if (ret)
		return ret;
	ret = driver_register(&vmlx_bus_driver);
	if (ret)
		goto err_bus;
	return 0;

err_bus:
	bus_unregister(&vmlx_bus_type);
	return ret;
}

/**
 * vmlx_bus_exit - unregister the driver and the bus
 *
 * Every device was removed with vmlx_bus_remove_hca(); waits until the
 * last of them is released, since its release is this module's code.
 */
void vmlx_bus_exit(void)
{
	driver_unregister(&vmlx_bus_driver);
	wait_event(vmlx_bus_wait, !atomic_read(&vmlx_bus_devs));
	bus_unregister(&vmlx_bus_type);
}
