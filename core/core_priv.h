/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Declarations shared between the files of ib_core and nothing else.
 */
#ifndef IB_CORE_PRIV_H
#define IB_CORE_PRIV_H

#include <rdma/ib_verbs.h>

/* sysfs.c */
extern const struct attribute_group ib_dev_attr_group;
int ib_sysfs_init(void);
void ib_sysfs_cleanup(void);
void ib_device_sysfs_setup(struct ib_device *device);

#endif /* IB_CORE_PRIV_H */
