// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_uverbs: the module, the "uverbs" client of the RDMA core and the
 * character devices /dev/infiniband/uverbsN through which userspace
 * (libibverbs and its providers) drives RDMA devices.
 *
 * For every device whose driver supports user contexts the client creates
 * uverbsN (major 231, minor 192 + N for the first 32, a dynamic region
 * after that) in the class "infiniband_verbs", whose files are the ones
 * libibverbs reads when it discovers devices through sysfs:
 * /sys/class/infiniband_verbs/abi_version (the command ABI, 6) and per
 * device ibdev, abi_version (the driver's ABI) and dev.
 *
 * Commands come by write() (cmd.c) and by the verbs ioctl
 * RDMA_VERBS_IOCTL (ioctl.c), which libibverbs prefers once its probe
 * succeeds; it then tunnels most write() commands through the ioctl's
 * INVOKE_WRITE method, and uses write() itself only for librxe's doorbell.
 *
 * Device removal: see uverbs.h.  The client's remove callback
 * disassociates every open file from the device (its objects and context
 * are destroyed as if it were closed) and returns without waiting for the
 * files to be closed; they fail with -EIO from then on.
 *
 * Locking: every system call on a file is a read section of its device's
 * disassociate_srcu; the device's lists_mutex guards its list of open
 * files; the device numbers come from an IDA with its own lock.  What
 * those protect is described in uverbs.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "uverbs.h"

MODULE_AUTHOR("The ibstack developers");
MODULE_DESCRIPTION("InfiniBand userspace verbs access");
MODULE_LICENSE("Dual BSD/GPL");

static dev_t uverbs_fixed_base = MKDEV(IB_UVERBS_MAJOR, IB_UVERBS_BASE_MINOR);
static dev_t uverbs_dynamic_base;

/* Device numbers N of uverbsN in use; has its own lock. */
static DEFINE_IDA(uverbs_ida);

static struct ib_client uverbs_client;

static ssize_t abi_version_show(struct class *class,
				struct class_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_VERBS_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *uverbs_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uverbs_class);

static char *uverbs_devnode(struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static struct class uverbs_class = {
	.name = "infiniband_verbs",
	.owner = THIS_MODULE,
	.devnode = uverbs_devnode,
	.class_groups = uverbs_class_groups,
};

static ssize_t ibdev_show(struct device *device,
			  struct device_attribute *attr, char *buf)
{
	struct ib_uverbs_device *udev =
		container_of(device, struct ib_uverbs_device, dev);
	struct ib_device *ib_dev;
	ssize_t ret = -ENODEV;
	int srcu_key;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	ib_dev = srcu_dereference(udev->ib_dev, &udev->disassociate_srcu);
	if (ib_dev)
		ret = sysfs_emit(buf, "%s\n", ib_device_name(ib_dev));
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t abi_version_dev_show(struct device *device,
				    struct device_attribute *attr, char *buf)
{
	struct ib_uverbs_device *udev =
		container_of(device, struct ib_uverbs_device, dev);

	return sysfs_emit(buf, "%u\n", udev->abi_ver);
}

static struct device_attribute dev_attr_abi_version =
	__ATTR(abi_version, 0444, abi_version_dev_show, NULL);

static struct attribute *uverbs_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uverbs_dev);

/* ------------------------------------------------------------------ */
/* File operations                                                     */
/* ------------------------------------------------------------------ */

/**
 * ib_uverbs_release_file - free an open file's state
 * @ref: the file's reference count
 *
 * The last reference goes with the close of the file or of its async
 * event file, whichever comes last.
 */
void ib_uverbs_release_file(struct kref *ref)
{
	struct ib_uverbs_file *ufile =
		container_of(ref, struct ib_uverbs_file, ref);

	WARN_ON(!xa_empty(&ufile->objects));
	xa_destroy(&ufile->objects);
	/* no mapping is left: they hold the file */
	module_put(ufile->driver_module);
	mutex_destroy(&ufile->ctx_mutex);
	put_device(&ufile->device->dev);
	kfree(ufile);
}

static int ib_uverbs_open(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_device *udev =
		container_of(inode->i_cdev, struct ib_uverbs_device, cdev);
	struct ib_uverbs_file *ufile;
	int srcu_key;
	int ret;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	if (!srcu_dereference(udev->ib_dev, &udev->disassociate_srcu)) {
		ret = -EIO;
		goto out_unlock;
	}

	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL);
	if (!ufile) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	kref_init(&ufile->ref);
	get_device(&udev->dev);
	ufile->device = udev;
	mutex_init(&ufile->ctx_mutex);
	uverbs_ufile_init(ufile);

	/* Inside the read section: removal will find the file listed. */
	mutex_lock(&udev->lists_mutex);
	list_add_tail(&ufile->list, &udev->file_list);
	mutex_unlock(&udev->lists_mutex);

	filp->private_data = ufile;
	ret = stream_open(inode, filp);
out_unlock:
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}

static int ib_uverbs_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_device *udev = ufile->device;

	/*
	 * Still listed, so a concurrent removal waits for this teardown (it
	 * needs ctx_mutex) before the device can go.
	 */
	uverbs_destroy_ufile(ufile, UVERBS_REMOVE_CLOSE);

	mutex_lock(&udev->lists_mutex);
	list_del(&ufile->list);
	mutex_unlock(&udev->lists_mutex);

	kref_put(&ufile->ref, ib_uverbs_release_file);
	return 0;
}

/* The opener's credentials must be the writer's (as upstream). */
static bool ib_uverbs_safe_access(struct file *filp)
{
	return filp->f_cred == current_cred();
}

static ssize_t ib_uverbs_write(struct file *filp, const char __user *buf,
			       size_t count, loff_t *pos)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_device *udev = ufile->device;
	struct ib_device *ib_dev;
	int srcu_key;
	ssize_t ret;

	if (!ib_uverbs_safe_access(filp)) {
		pr_err_once("process %d (%s) writes to a uverbs file opened with other credentials\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	ib_dev = srcu_dereference(udev->ib_dev, &udev->disassociate_srcu);
	if (ib_dev)
		ret = ib_uverbs_write_cmd(ufile, ib_dev, buf, count);
	else
		ret = -EIO;
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}

/*
 * Map what the driver offered in an earlier response (queue rings); the
 * offset names it.  The driver keeps the memory alive while it is mapped,
 * so a mapping may outlive its object, the context and the device.
 *
 * Such a mapping runs the driver's vm_ops until it is unmapped, and it
 * holds the file; so the first mmap() pins the driver's module until the
 * file is freed.  Unlike upstream, which zaps the mappings of a
 * disassociated file, the driver's module cannot be unloaded meanwhile
 * (rmmod fails with EBUSY); device removal by other means still works.
 */
static int ib_uverbs_pin_driver(struct ib_uverbs_file *ufile,
				struct ib_device *ib_dev)
{
	struct module *owner = ib_dev->ops->owner;

	if (READ_ONCE(ufile->driver_module))
		return 0;
	if (!try_module_get(owner))
		return -EIO;
	/* a concurrent mmap() may have pinned it first */
	if (cmpxchg(&ufile->driver_module, NULL, owner))
		module_put(owner);
	return 0;
}

static int ib_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_device *udev = ufile->device;
	struct ib_ucontext *uctx;
	struct ib_device *ib_dev;
	int srcu_key;
	int ret;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	ib_dev = srcu_dereference(udev->ib_dev, &udev->disassociate_srcu);
	if (!ib_dev) {
		ret = -EIO;
		goto out_unlock;
	}
	uctx = uverbs_get_ucontext(ufile);
	if (!uctx) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (!ib_dev->ops->mmap) {
		ret = -EOPNOTSUPP;
		goto out_unlock;
	}
	ret = ib_uverbs_pin_driver(ufile, ib_dev);
	if (ret)
		goto out_unlock;
	/*
	 * The context cannot go while we are in the read section: teardown
	 * by removal waits for it, and close cannot run during a call on
	 * the file.
	 */
	ret = ib_dev->ops->mmap(uctx, vma);
out_unlock:
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}

static const struct file_operations uverbs_fops = {
	.owner = THIS_MODULE,
	.open = ib_uverbs_open,
	.release = ib_uverbs_close,
	.write = ib_uverbs_write,
	.mmap = ib_uverbs_mmap,
	.unlocked_ioctl = ib_uverbs_ioctl,
	.compat_ioctl = ib_uverbs_ioctl,
	.llseek = no_llseek,
};

/* ------------------------------------------------------------------ */
/* The client                                                          */
/* ------------------------------------------------------------------ */

static void ib_uverbs_device_release(struct device *device)
{
	struct ib_uverbs_device *udev =
		container_of(device, struct ib_uverbs_device, dev);

	cleanup_srcu_struct(&udev->disassociate_srcu);
	mutex_destroy(&udev->lists_mutex);
	kfree(udev);
}

static int ib_uverbs_add_one(struct ib_device *ib_dev)
{
	struct ib_uverbs_device *udev;
	dev_t base;
	int devnum;
	int ret;

	if (!ib_dev->ops->alloc_ucontext)
		return -EOPNOTSUPP;

	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;
	ret = init_srcu_struct(&udev->disassociate_srcu);
	if (ret) {
		kfree(udev);
		return ret;
	}
	mutex_init(&udev->lists_mutex);
	INIT_LIST_HEAD(&udev->file_list);
	rcu_assign_pointer(udev->ib_dev, ib_dev);
	udev->abi_ver = ib_dev->ops->uverbs_abi_ver;

	device_initialize(&udev->dev);
	udev->dev.class = &uverbs_class;
	udev->dev.parent = ib_dev->dev.parent;
	udev->dev.groups = uverbs_dev_groups;
	udev->dev.release = ib_uverbs_device_release;

	devnum = ida_alloc_max(&uverbs_ida, IB_UVERBS_MAX_DEVICES - 1,
			       GFP_KERNEL);
	if (devnum < 0) {
		ret = -ENOMEM;
		goto err_put;
	}
	udev->devnum = devnum;
	if (devnum < IB_UVERBS_NUM_FIXED_MINOR)
		base = uverbs_fixed_base + devnum;
	else
		base = uverbs_dynamic_base + devnum - IB_UVERBS_NUM_FIXED_MINOR;
	udev->dev.devt = base;
	ret = dev_set_name(&udev->dev, "uverbs%d", devnum);
	if (ret)
		goto err_ida;

	cdev_init(&udev->cdev, &uverbs_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&udev->cdev, &udev->dev);
	if (ret)
		goto err_ida;

	ib_set_client_data(ib_dev, &uverbs_client, udev);
	return 0;

err_ida:
	ida_free(&uverbs_ida, devnum);
err_put:
	put_device(&udev->dev);
	return ret;
}

static void ib_uverbs_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct ib_uverbs_device *udev = client_data;
	struct ib_uverbs_file *ufile;

	if (!udev)
		return;

	cdev_device_del(&udev->cdev, &udev->dev);
	ida_free(&uverbs_ida, udev->devnum);

	/* No system call finds the device after this... */
	rcu_assign_pointer(udev->ib_dev, NULL);
	/* ...and none still uses it after this. */
	synchronize_srcu(&udev->disassociate_srcu);

	mutex_lock(&udev->lists_mutex);
	list_for_each_entry(ufile, &udev->file_list, list)
		uverbs_destroy_ufile(ufile, UVERBS_REMOVE_DRIVER_REMOVE);
	mutex_unlock(&udev->lists_mutex);

	put_device(&udev->dev);
}

static int ib_uverbs_get_nl_info(struct ib_device *ib_dev, void *client_data,
				 struct ib_client_nl_info *res)
{
	struct ib_uverbs_device *udev = client_data;

	if (!ib_dev || !udev)
		return -EOPNOTSUPP;
	res->abi = udev->abi_ver;
	res->cdev = &udev->dev;
	return 0;
}

static struct ib_client uverbs_client = {
	.name = "uverbs",
	.add = ib_uverbs_add_one,
	.remove = ib_uverbs_remove_one,
	.get_nl_info = ib_uverbs_get_nl_info,
};

static int __init ib_uverbs_init(void)
{
	int ret;

	ret = register_chrdev_region(uverbs_fixed_base,
				     IB_UVERBS_NUM_FIXED_MINOR, "infiniband_verbs");
	if (ret) {
		pr_err("cannot register device numbers\n");
		return ret;
	}
	ret = alloc_chrdev_region(&uverbs_dynamic_base, 0,
				  IB_UVERBS_NUM_DYNAMIC_MINOR,
				  "infiniband_verbs");
	if (ret) {
		pr_err("cannot allocate dynamic device numbers\n");
		goto err_fixed;
	}
	ret = class_register(&uverbs_class);
	if (ret)
		goto err_dynamic;
	ret = ib_register_client(&uverbs_client);
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&uverbs_class);
err_dynamic:
	unregister_chrdev_region(uverbs_dynamic_base,
				 IB_UVERBS_NUM_DYNAMIC_MINOR);
err_fixed:
	unregister_chrdev_region(uverbs_fixed_base, IB_UVERBS_NUM_FIXED_MINOR);
	return ret;
}

static void __exit ib_uverbs_exit(void)
{
	ib_unregister_client(&uverbs_client);
	class_unregister(&uverbs_class);
	unregister_chrdev_region(uverbs_dynamic_base,
				 IB_UVERBS_NUM_DYNAMIC_MINOR);
	unregister_chrdev_region(uverbs_fixed_base, IB_UVERBS_NUM_FIXED_MINOR);
	ida_destroy(&uverbs_ida);
}

module_init(ib_uverbs_init);
module_exit(ib_uverbs_exit);
