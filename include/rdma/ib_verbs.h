/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel-internal verbs API: RDMA devices, their operations table and the
 * clients (upper-layer protocols, user access modules) that attach to them.
 *
 * A hardware driver allocates a struct ib_device with ib_alloc_device(),
 * fills in its ops table and calls ib_register_device().  Clients call
 * ib_register_client() and are told of every device that comes and goes
 * through their add and remove callbacks.  Drivers and clients only meet
 * through this header.
 */
#ifndef IB_VERBS_H
#define IB_VERBS_H

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/xarray.h>

#define IB_DEVICE_NAME_MAX	64
#define IB_DEVICE_NODE_DESC_MAX	64
#define IB_FW_VERSION_NAME_MAX	32

/*
 * Node types, as reported in sysfs node_type and RDMA netlink.  The values
 * are user ABI.
 */
enum rdma_node_type {
	RDMA_NODE_IB_CA = 1,
	RDMA_NODE_IB_SWITCH,
	RDMA_NODE_IB_ROUTER,
	RDMA_NODE_RNIC,
	RDMA_NODE_USNIC,
	RDMA_NODE_USNIC_UDP,
	RDMA_NODE_UNSPECIFIED,
};

/* Bits of the @mask argument of ib_modify_device(). */
enum ib_device_modify_flags {
	IB_DEVICE_MODIFY_SYS_IMAGE_GUID	= 1 << 0,
	IB_DEVICE_MODIFY_NODE_DESC	= 1 << 1,
};

/**
 * struct ib_device_modify - new values for ib_modify_device()
 * @sys_image_guid: system image GUID, big endian
 * @node_desc: node description, not necessarily NUL terminated
 */
struct ib_device_modify {
	__be64	sys_image_guid;
	char	node_desc[IB_DEVICE_NODE_DESC_MAX];
};

/**
 * struct ib_device_attr - device-wide attributes filled in by the driver
 * @sys_image_guid: GUID shared by all devices of one system image, big endian
 */
struct ib_device_attr {
	__be64	sys_image_guid;
};

struct ib_device;

/**
 * struct ib_device_ops - operations a driver provides to the core
 * @owner: module implementing the operations
 * @get_dev_fw_str: write the firmware version, at most
 *	IB_FW_VERSION_NAME_MAX bytes including the NUL, into @str
 * @modify_device: change the attributes selected by @mask
 *	(enum ib_device_modify_flags); only called with a mask of bits the
 *	core knows
 * @get_vector_affinity: the CPUs that completion vector @comp_vector
 *	(0 <= @comp_vector < num_comp_vectors) interrupts, or NULL
 * @device_group: optional driver-specific sysfs attributes, shown in the
 *	device's directory next to the core's
 *
 * Every member is optional; the core answers -EOPNOTSUPP (or a neutral
 * value) for what a driver leaves out.
 */
struct ib_device_ops {
	struct module *owner;

	void (*get_dev_fw_str)(struct ib_device *device, char *str);
	int (*modify_device)(struct ib_device *device, int mask,
			     struct ib_device_modify *modify);
	const struct cpumask *(*get_vector_affinity)(struct ib_device *device,
						     int comp_vector);

	const struct attribute_group *device_group;
};

/* Registration state of an ib_device; see ib_register_device(). */
enum ib_device_reg_state {
	IB_DEV_NEW,		/* allocated, never registered */
	IB_DEV_LIVE,		/* registered, visible to clients */
	IB_DEV_GONE,		/* unregistered; can only be freed now */
};

/**
 * struct ib_device - an RDMA device
 * @dev: the device model object; its reference count controls the lifetime
 *	of the memory (see ib_dealloc_device())
 * @ops: the driver's operations, never NULL
 * @attrs: device attributes, set by the driver before registration
 * @node_guid: node GUID, big endian, set by the driver
 * @node_desc: node description (not NUL terminated when 64 bytes long)
 * @node_type: enum rdma_node_type, set by the driver
 * @phys_port_cnt: number of physical ports, set by the driver
 * @num_comp_vectors: number of completion vectors (event sources for CQs),
 *	set by the driver
 * @index: device index, unique while the device is registered; user ABI
 *	through RDMA netlink
 * @reg_state: registration state, changed under the core's registration
 *	lock
 * @refcount: registration references, see ib_device_try_get(); zero while
 *	not registered
 * @unreg_completion: completed when @refcount drops to zero
 * @client_data: client id -> per-client context, for clients whose add
 *	callback accepted this device
 * @groups: sysfs attribute groups of @dev
 */
struct ib_device {
	struct device			dev;
	const struct ib_device_ops	*ops;
	struct ib_device_attr		attrs;

	__be64				node_guid;
	char				node_desc[IB_DEVICE_NODE_DESC_MAX];
	u8				node_type;
	u32				phys_port_cnt;
	int				num_comp_vectors;

	u32				index;
	enum ib_device_reg_state	reg_state;
	refcount_t			refcount;
	struct completion		unreg_completion;
	struct xarray			client_data;
	const struct attribute_group	*groups[3];
};

/**
 * struct ib_client - an upper-layer user of RDMA devices
 * @name: name of the client, for messages
 * @add: called once for every device registered while the client is
 *	registered.  Returns 0 to attach to the device, -EOPNOTSUPP to ignore
 *	it (remove is then not called for it), or another negative errno to
 *	fail the registration that triggered the call.
 * @remove: called once for every device @add accepted, when either the
 *	device or the client goes away.  @client_data is the value set with
 *	ib_set_client_data() (NULL if none).
 * @list: entry in the core's client list (core private)
 * @client_id: index of the client's context in each device (core private)
 *
 * The core serialises all add and remove calls; a callback must not
 * register or unregister devices or clients itself.
 */
struct ib_client {
	const char *name;
	int (*add)(struct ib_device *device);
	void (*remove)(struct ib_device *device, void *client_data);

	struct list_head list;
	u32 client_id;
};

struct ib_device *_ib_alloc_device(size_t size);

/**
 * ib_alloc_device - allocate a driver structure embedding a struct ib_device
 * @type: the driver's structure type, e.g. ``struct vmlx_dev``
 * @member: name of its struct ib_device member, which must come first
 *
 * Return: pointer to the zeroed driver structure, or NULL.
 */
#define ib_alloc_device(type, member)					\
	((type *)_ib_alloc_device(sizeof(type) +			\
				  BUILD_BUG_ON_ZERO(offsetof(type, member))))

void ib_dealloc_device(struct ib_device *device);

int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device);
void ib_unregister_device(struct ib_device *device);

int ib_register_client(struct ib_client *client);
void ib_unregister_client(struct ib_client *client);

void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data);
void *ib_get_client_data(struct ib_device *device, struct ib_client *client);

/**
 * ib_device_try_get - take a registration reference on a device
 * @device: the device
 *
 * Succeeds only while @device is registered.  ib_unregister_device() waits
 * until every reference taken here has been dropped with ib_device_put(),
 * so holders must drop it promptly, at the latest from their client's
 * remove callback.
 *
 * Return: true if the reference was taken.
 */
static inline bool ib_device_try_get(struct ib_device *device)
{
	return refcount_inc_not_zero(&device->refcount);
}

void ib_device_put(struct ib_device *device);
struct ib_device *ib_device_get_by_name(const char *name);
struct ib_device *ib_device_get_by_index(u32 index);

int ib_modify_device(struct ib_device *device, int mask,
		     struct ib_device_modify *modify);
void ib_get_device_fw_str(struct ib_device *device, char *str);

/**
 * ib_get_vector_affinity - CPUs served by a completion vector
 * @device: the device
 * @comp_vector: the completion vector
 *
 * Storage protocols use this to place their queues next to the
 * interrupts of the vectors they use.
 *
 * Return: the CPU mask, or NULL if unknown or @comp_vector is out of range.
 */
static inline const struct cpumask *
ib_get_vector_affinity(struct ib_device *device, int comp_vector)
{
	if (comp_vector < 0 || comp_vector >= device->num_comp_vectors ||
	    !device->ops->get_vector_affinity)
		return NULL;
	return device->ops->get_vector_affinity(device, comp_vector);
}

/**
 * rdma_device_to_ibdev - the ib_device behind a struct device
 * @device: the @dev member of a struct ib_device
 *
 * Return: the containing ib_device.
 */
static inline struct ib_device *rdma_device_to_ibdev(struct device *device)
{
	return container_of(device, struct ib_device, dev);
}

/**
 * ib_device_name - name of an ib_device, for messages
 * @device: the device
 *
 * Return: the device name, as registered.
 */
static inline const char *ib_device_name(const struct ib_device *device)
{
	return dev_name(&device->dev);
}

#endif /* IB_VERBS_H */
