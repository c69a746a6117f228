/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * User MAD access, /dev/infiniband/umadN (the ib_umad module, libibumad).
 *
 * read() and write() move one struct ib_user_mad at a time: a header that
 * describes the peer and the send parameters, then the MAD itself.  Agents
 * are registered with the IB_USER_MAD_* ioctls of <rdma/rdma_user_ioctl.h>.
 *
 * Everything here is ABI and equal to Linux 6.1; layouts are the same for
 * 32-bit and 64-bit callers.
 */
#ifndef IB_USER_MAD_H
#define IB_USER_MAD_H

#include <linux/types.h>
#include <rdma/rdma_user_ioctl.h>

/* Reported in /sys/class/infiniband_mad/abi_version */
#define IB_USER_MAD_ABI_VERSION	5

/*
 * Header used until IB_USER_MAD_ENABLE_PKEY is issued on the file: the same
 * as struct ib_user_mad_hdr minus the P_Key index.
 */
struct ib_user_mad_hdr_old {
	__u32	id;		/* agent id from registration */
	__u32	status;		/* rx: 0, or ETIMEDOUT for an unanswered send */
	__u32	timeout_ms;	/* tx: time to wait for a response */
	__u32	retries;	/* tx: resends before ETIMEDOUT */
	__u32	length;
	__be32	qpn;		/* remote QP */
	__be32	qkey;		/* tx: remote Q_Key */
	__be16	lid;		/* remote LID */
	__u8	sl;
	__u8	path_bits;	/* local LID path bits */
	__u8	grh_present;	/* the GRH fields below are valid */
	__u8	gid_index;	/* tx: local GID table index */
	__u8	hop_limit;
	__u8	traffic_class;
	__u8	gid[16];	/* remote GID */
	__be32	flow_label;
};

/*
 * Header of every MAD once IB_USER_MAD_ENABLE_PKEY has been issued (it must
 * come before any other use of the file).  Fields as above, plus the index
 * of the P_Key the MAD was received with or is to be sent with.
 */
struct ib_user_mad_hdr {
	__u32	id;
	__u32	status;
	__u32	timeout_ms;
	__u32	retries;
	__u32	length;
	__be32	qpn;
	__be32	qkey;
	__be16	lid;
	__u8	sl;
	__u8	path_bits;
	__u8	grh_present;
	__u8	gid_index;
	__u8	hop_limit;
	__u8	traffic_class;
	__u8	gid[16];
	__be32	flow_label;
	__u16	pkey_index;
	__u8	reserved[6];
};

/* What read() returns and write() takes: header, then the MAD (and RMPP) */
struct ib_user_mad {
	struct ib_user_mad_hdr hdr;
	__aligned_u64	data[];
};

/*
 * The method mask is a 128-bit bitmap of longs, but it must keep the 4-byte
 * alignment it had when it was declared as __u32 words, so that 32-bit and
 * 64-bit callers agree on the layout of struct ib_user_mad_reg_req.
 */
typedef unsigned long __attribute__((aligned(sizeof(__u32)))) packed_ulong;
#define IB_USER_MAD_LONGS_PER_METHOD_MASK (128 / (8 * sizeof(long)))

/* Argument of IB_USER_MAD_REGISTER_AGENT */
struct ib_user_mad_reg_req {
	__u32	id;		/* out: agent id */
	packed_ulong method_mask[IB_USER_MAD_LONGS_PER_METHOD_MASK];
	__u8	qpn;		/* 0 (SMI) or 1 (GSI) */
	__u8	mgmt_class;	/* 0: send only, receive no unsolicited MADs */
	__u8	mgmt_class_version;
	__u8	oui[3];		/* vendor classes 0x30..0x4f only */
	__u8	rmpp_version;	/* non-zero: the kernel does RMPP */
};

/* Flags of ib_user_mad_reg_req2 */
enum {
	IB_USER_MAD_USER_RMPP = (1 << 0),	/* RMPP is left to the caller */
};

/* The flags this kernel accepts */
#define IB_USER_MAD_REG_FLAGS_CAP (IB_USER_MAD_USER_RMPP)

/* Argument of IB_USER_MAD_REGISTER_AGENT2 */
struct ib_user_mad_reg_req2 {
	__u32	id;		/* out: agent id */
	__u32	qpn;		/* 0 (SMI) or 1 (GSI) */
	__u8	mgmt_class;
	__u8	mgmt_class_version;
	__u16	res;
	__u32	flags;		/* subset of IB_USER_MAD_REG_FLAGS_CAP */
	__aligned_u64 method_mask[2];
	__u32	oui;		/* vendor classes 0x30..0x4f only */
	__u8	rmpp_version;
	__u8	reserved[3];
};

#endif /* IB_USER_MAD_H */
