/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * Framing of the RDMA verbs ioctl, RDMA_VERBS_IOCTL on
 * /dev/infiniband/uverbsN: one fixed header that names an object, a method
 * and the driver, followed by an array of typed attributes.  The object,
 * method and attribute ids live in <rdma/ib_user_ioctl_cmds.h>.
 *
 * Everything here is ABI and equal to Linux 6.1.  64-bit fields are
 * __aligned_u64 so that i386 and x86_64 callers share one layout.
 */
#ifndef RDMA_USER_IOCTL_CMDS_H
#define RDMA_USER_IOCTL_CMDS_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* ioctl type shared by the RDMA char devices (ioctl-number.rst: 0x1b) */
#define RDMA_IOCTL_MAGIC	0x1b

/* The one verbs ioctl; its argument is struct ib_uverbs_ioctl_hdr */
#define RDMA_VERBS_IOCTL \
	_IOWR(RDMA_IOCTL_MAGIC, 1, struct ib_uverbs_ioctl_hdr)

/* Bits of ib_uverbs_attr.flags */
enum {
	/* set by the caller: fail the call if the kernel ignores this attr */
	UVERBS_ATTR_F_MANDATORY = 1U << 0,
	/*
	 * set by the kernel once it has written an output attribute; for
	 * mandatory attributes the caller may assume it without checking
	 */
	UVERBS_ATTR_F_VALID_OUTPUT = 1U << 1,
};

/* One attribute of a method call: 16 bytes on every architecture */
struct ib_uverbs_attr {
	__u16 attr_id;		/* id from the method's attribute enum */
	__u16 len;		/* size of the data a pointer refers to */
	__u16 flags;		/* UVERBS_ATTR_F_* */
	union {
		struct {
			__u8 elem_id;	/* which member of an enum attribute */
			__u8 reserved;
		} enum_data;
		__u16 reserved;
	} attr_data;
	union {
		/*
		 * inline value (len <= 8), user pointer to the data, object
		 * handle, or pointer to an array of __u32 handles
		 */
		__aligned_u64 data;
		__s64 data_s64;		/* file descriptor attributes */
	};
};

/* Argument of RDMA_VERBS_IOCTL */
struct ib_uverbs_ioctl_hdr {
	__u16 length;		/* header plus attrs[], in bytes */
	__u16 object_id;
	__u16 method_id;
	__u16 num_attrs;
	__aligned_u64 reserved1;
	__u32 driver_id;	/* enum rdma_driver_id of the caller */
	__u32 reserved2;
	struct ib_uverbs_attr attrs[];
};

#endif /* RDMA_USER_IOCTL_CMDS_H */
