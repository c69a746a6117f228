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
struct ib_mad_agent;

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
 * @qp_pkeys: the P_Key indexes QPs use on the port, for the LSM
 *	(security.c; its lock protects the list)
 * @netdev_lock: protects @netdev
 * @netdev: the port's net device, referenced (netdev.c)
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
	struct list_head	qp_pkeys;
	/* protects netdev */
	spinlock_t		netdev_lock;
	struct net_device	*netdev;
};

/* Allocate an ib_* object with room for the driver's part of it. */
#define rdma_zalloc_obj(device, ib_type, gfp)				\
	kzalloc(max_t(size_t, (device)->ops->size_##ib_type,		\
		      sizeof(struct ib_type)), gfp)

/* security.c */
#ifdef CONFIG_SECURITY_INFINIBAND
/**
 * struct ib_qp_pkey - a port and P_Key index a QP uses
 * @entry: in the port's ib_port_data.qp_pkeys while @valid, under the
 *	lock of security.c
 * @sec: the QP's security state
 * @port: the port
 * @pkey_index: the P_Key index
 * @valid: the path is set (an alternate path may not be)
 */
struct ib_qp_pkey {
	struct list_head	entry;
	struct ib_qp_security	*sec;
	u32			port;
	u16			pkey_index;
	bool			valid;
};

/**
 * struct ib_qp_security - the LSM's view of a QP
 * @qp: the QP
 * @lsm: the LSM's blob for it
 * @main: the primary path's port and P_Key index in force
 * @alt: the alternate path's
 * @error_entry: in the enforcement's list of QPs to move to ERR
 * @error_pending: enforcements about to move the QP to ERR
 * @destroying: the QP is being destroyed; enforcement leaves it alone
 * @error_done: completed when @error_pending drops to 0 while @destroying
 */
struct ib_qp_security {
	struct ib_qp		*qp;
	void			*lsm;
	struct ib_qp_pkey	main;
	struct ib_qp_pkey	alt;
	struct list_head	error_entry;
	unsigned int		error_pending;
	bool			destroying;
	struct completion	error_done;
};

int ib_qp_security_create(struct ib_qp *qp);
void ib_qp_security_destroy_begin(struct ib_qp *qp);
void ib_qp_security_destroy_abort(struct ib_qp *qp);
void ib_qp_security_destroy_end(struct ib_qp *qp);
int ib_qp_security_modify(struct ib_qp *qp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata);
void ib_security_qp_to_error(struct ib_qp *qp);
void ib_security_cache_change(struct ib_device *device, u32 port);
int ib_security_init(void);
void ib_security_cleanup(void);
int ib_mad_agent_security_setup(struct ib_mad_agent *agent,
				enum ib_qp_type qp_type);
void ib_mad_agent_security_cleanup(struct ib_mad_agent *agent);
int ib_mad_enforce_security(struct ib_mad_agent *agent, u16 pkey_index);
#else
static inline int ib_qp_security_create(struct ib_qp *qp)
{
	return 0;
}

static inline void ib_qp_security_destroy_begin(struct ib_qp *qp)
{
}

static inline void ib_qp_security_destroy_abort(struct ib_qp *qp)
{
}

static inline void ib_qp_security_destroy_end(struct ib_qp *qp)
{
}

static inline int ib_qp_security_modify(struct ib_qp *qp,
					struct ib_qp_attr *attr, int mask,
					struct ib_udata *udata)
{
	return qp->device->ops->modify_qp(qp, attr, mask, udata);
}

static inline void ib_security_cache_change(struct ib_device *device,
					    u32 port)
{
}

static inline int ib_security_init(void)
{
	return 0;
}

static inline void ib_security_cleanup(void)
{
}

static inline int ib_mad_agent_security_setup(struct ib_mad_agent *agent,
					      enum ib_qp_type qp_type)
{
	return 0;
}

static inline void ib_mad_agent_security_cleanup(struct ib_mad_agent *agent)
{
}

static inline int ib_mad_enforce_security(struct ib_mad_agent *agent,
					  u16 pkey_index)
{
	return 0;
}
#endif

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

/* netdev.c */
struct net_device *ib_device_get_netdev(struct ib_device *device, u32 port);
void ib_device_release_netdevs(struct ib_device *device);

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

/* addr.c */
int addr_init(void);
void addr_cleanup(void);

/* restrack.c */
int rdma_restrack_init(struct ib_device *device);
void rdma_restrack_report(struct ib_device *device);
void rdma_restrack_free(struct ib_device *device);

/* rw.c: the force_mr module parameter, set by the KUnit suites */
#if IS_ENABLED(CONFIG_KUNIT) || defined(IB_CORE_KUNIT_SUITE)
bool rdma_rw_set_force_mr(bool force);
#endif

#endif /* IB_CORE_PRIV_H */
