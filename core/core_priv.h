/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Declarations shared between the files of ib_core and nothing else.
 */
#ifndef IB_CORE_PRIV_H
#define IB_CORE_PRIV_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

struct ib_port_kobj;

/**
 * struct ib_port_data - what the core keeps per port
 * @immutable: from the driver's get_port_immutable, at registration
 * @cache_lock: see below
 * @state: cached port state
 * @lid: cached base LID
 * @lmc: cached LMC
 * @subnet_prefix: cached subnet prefix, host order
 * @pkeys: cached P_Key table, @immutable.pkey_tbl_len entries
 * @gids: cached GID table, @immutable.gid_tbl_len entries
 * @sysfs: the port's directory /sys/class/infiniband/<dev>/ports/<port>,
 *	from registration to unregistration (sysfs.c)
 *
 * The cache is refreshed at registration and on every port event, before
 * the event handlers are called, so they see the new values.
 */
struct ib_port_data {
	struct ib_port_immutable immutable;
	/* protects the cached fields below; readers may be atomic */
	rwlock_t		cache_lock;
	enum ib_port_state	state;
	u32			lid;
	u8			lmc;
	u64			subnet_prefix;
	u16			*pkeys;
	union ib_gid		*gids;
	struct ib_port_kobj	*sysfs;
};

/* Allocate an ib_* object with room for the driver's part of it. */
#define rdma_zalloc_obj(device, ib_type, gfp)				\
	kzalloc(max_t(size_t, (device)->ops->size_##ib_type,		\
		      sizeof(struct ib_type)), gfp)

/* cgroup.c */
#ifdef CONFIG_CGROUP_RDMA
void ib_device_register_rdmacg(struct ib_device *device);
void ib_device_unregister_rdmacg(struct ib_device *device);
#else
static inline void ib_device_register_rdmacg(struct ib_device *device)
{
}

static inline void ib_device_unregister_rdmacg(struct ib_device *device)
{
}
#endif

/* device.c */
extern struct workqueue_struct *ib_comp_wq;
extern struct workqueue_struct *ib_comp_unbound_wq;

/* sysfs.c */
extern const struct attribute_group ib_dev_attr_group;
int ib_sysfs_init(void);
void ib_sysfs_cleanup(void);
void ib_device_sysfs_setup(struct ib_device *device);
int ib_device_register_sysfs(struct ib_device *device);
void ib_device_unregister_sysfs(struct ib_device *device);

/* cache.c */
int ib_cache_setup_one(struct ib_device *device);
void ib_cache_release_one(struct ib_device *device);
int ib_events_init(void);
void ib_events_cleanup(void);

/* device.c */
struct ib_device *ib_device_get_next(unsigned long *index);

/* netlink.c, nldev.c */
int rdma_nl_init(void);
void rdma_nl_exit(void);
int nldev_init(void);
void nldev_exit(void);

/* mad.c */
int ib_mad_init(void);
void ib_mad_cleanup(void);

/* restrack.c */
int rdma_restrack_init(struct ib_device *device);
void rdma_restrack_report(struct ib_device *device);
void rdma_restrack_free(struct ib_device *device);

#endif /* IB_CORE_PRIV_H */
