/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The AF_IB address family of the RDMA CM: an address that names an
 * InfiniBand port by GID and a service by service ID, as librdmacm passes
 * it in struct sockaddr_storage (rdma_ucm's BIND, RESOLVE_ADDR, QUERY).
 * The layout is librdmacm's: 48 bytes.
 */
#ifndef _RDMA_IB_H
#define _RDMA_IB_H

#include <asm/byteorder.h>
#include <linux/build_bug.h>
#include <linux/socket.h>
#include <linux/types.h>

/**
 * struct ib_addr - a GID, as the words of any size it is used in
 * @ib_u: the 16 bytes
 */
struct ib_addr {
	union {
		__u8	uib_addr8[16];
		__be16	uib_addr16[8];
		__be32	uib_addr32[4];
		__be64	uib_addr64[2];
	} ib_u;
#define sib_addr8		ib_u.uib_addr8
#define sib_addr16		ib_u.uib_addr16
#define sib_addr32		ib_u.uib_addr32
#define sib_addr64		ib_u.uib_addr64
#define sib_raw			ib_u.uib_addr8
#define sib_subnet_prefix	ib_u.uib_addr64[0]
#define sib_interface_id	ib_u.uib_addr64[1]
};

/**
 * struct sockaddr_ib - an AF_IB socket address
 * @sib_family: AF_IB
 * @sib_pkey: the P_Key
 * @sib_flowinfo: flow label and traffic class
 * @sib_addr: the GID
 * @sib_sid: the service ID
 * @sib_sid_mask: which bits of @sib_sid are significant
 * @sib_scope_id: scope, as sin6_scope_id
 */
struct sockaddr_ib {
	unsigned short int	sib_family;
	__be16			sib_pkey;
	__be32			sib_flowinfo;
	struct ib_addr		sib_addr;
	__be64			sib_sid;
	__be64			sib_sid_mask;
	__u64			sib_scope_id;
};

static_assert(sizeof(struct sockaddr_ib) == 48);

static inline bool ib_addr_any(const struct ib_addr *a)
{
	return !(a->sib_addr64[0] | a->sib_addr64[1]);
}

static inline bool ib_addr_loopback(const struct ib_addr *a)
{
	return !(a->sib_addr32[0] | a->sib_addr32[1] | a->sib_addr32[2] |
		 (a->sib_addr32[3] ^ cpu_to_be32(1)));
}

#endif /* _RDMA_IB_H */
