/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IP address resolution for RDMA (core/addr.c): which interface an IP
 * address belongs to, and the hardware address of the neighbour that
 * a destination is reached through.  On an InfiniBand port the
 * interface is an IPoIB device, whose 20-byte hardware address is the
 * flags and QPN (4 bytes) followed by the port GID; its broadcast
 * address carries the P_Key in bytes 8 and 9.
 */
#ifndef IB_ADDR_H
#define IB_ADDR_H

#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

/**
 * struct rdma_dev_addr - the link-level side of an IP address pair
 * @src_dev_addr: hardware address of the local interface
 * @dst_dev_addr: hardware address of the destination or of the neighbour
 *	it is reached through
 * @broadcast: the local interface's broadcast address (IPoIB: the
 *	broadcast group's MGID, with the P_Key in bytes 8 and 9)
 * @dev_type: ARPHRD_* type of the local interface
 * @bound_dev_if: ifindex of the local interface, 0 if not bound
 * @net: network namespace the addresses live in; not referenced here,
 *	the owner of this structure holds it
 */
struct rdma_dev_addr {
	unsigned char src_dev_addr[MAX_ADDR_LEN];
	unsigned char dst_dev_addr[MAX_ADDR_LEN];
	unsigned char broadcast[MAX_ADDR_LEN];
	unsigned short dev_type;
	int bound_dev_if;
	struct net *net;
};

int rdma_translate_ip(const struct sockaddr *addr,
		      struct rdma_dev_addr *dev_addr);
int rdma_resolve_ip(struct sockaddr *src_addr, const struct sockaddr *dst_addr,
		    struct rdma_dev_addr *addr, unsigned long timeout_ms,
		    void (*callback)(int status, struct sockaddr *src_addr,
				     struct rdma_dev_addr *addr, void *context),
		    bool resolve_by_gid_attr, void *context);
void rdma_addr_cancel(struct rdma_dev_addr *addr);
void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev);
int rdma_addr_size(const struct sockaddr *addr);
int rdma_addr_size_in6(struct sockaddr_in6 *addr);
int rdma_addr_size_kss(struct __kernel_sockaddr_storage *addr);

static inline u16 ib_addr_get_pkey(const struct rdma_dev_addr *dev_addr)
{
	return (u16)dev_addr->broadcast[8] << 8 | dev_addr->broadcast[9];
}

static inline void ib_addr_set_pkey(struct rdma_dev_addr *dev_addr, u16 pkey)
{
	dev_addr->broadcast[8] = pkey >> 8;
	dev_addr->broadcast[9] = pkey & 0xff;
}

/* The broadcast group's MGID, from an IPoIB broadcast address. */
static inline void ib_addr_get_mgid(const struct rdma_dev_addr *dev_addr,
				    union ib_gid *gid)
{
	memcpy(gid->raw, dev_addr->broadcast + 4, sizeof(gid->raw));
}

/* Where the GID starts in a hardware address of this type. */
static inline int rdma_addr_gid_offset(const struct rdma_dev_addr *dev_addr)
{
	return dev_addr->dev_type == ARPHRD_INFINIBAND ? 4 : 0;
}

static inline void rdma_addr_get_sgid(const struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(gid->raw, dev_addr->src_dev_addr +
	       rdma_addr_gid_offset(dev_addr), sizeof(gid->raw));
}

static inline void rdma_addr_set_sgid(struct rdma_dev_addr *dev_addr,
				      const union ib_gid *gid)
{
	memcpy(dev_addr->src_dev_addr + rdma_addr_gid_offset(dev_addr),
	       gid->raw, sizeof(gid->raw));
}

static inline void rdma_addr_get_dgid(const struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(gid->raw, dev_addr->dst_dev_addr +
	       rdma_addr_gid_offset(dev_addr), sizeof(gid->raw));
}

static inline void rdma_addr_set_dgid(struct rdma_dev_addr *dev_addr,
				      const union ib_gid *gid)
{
	memcpy(dev_addr->dst_dev_addr + rdma_addr_gid_offset(dev_addr),
	       gid->raw, sizeof(gid->raw));
}

/**
 * rdma_ip2gid() - an IP address as a GID
 * @addr: an AF_INET or AF_INET6 address
 * @gid: set to the IPv6 address, or to the IPv4-mapped IPv6 address
 *
 * Return: 0, or -EINVAL for another family.
 */
static inline int rdma_ip2gid(const struct sockaddr *addr, union ib_gid *gid)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;

	switch (addr->sa_family) {
	case AF_INET:
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr,
				       (struct in6_addr *)gid->raw);
		return 0;
	case AF_INET6:
		memcpy(gid->raw, &sin6->sin6_addr, sizeof(gid->raw));
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * rdma_gid2ip() - a GID made by rdma_ip2gid() as an IP address again
 * @out: set to an AF_INET address if @gid is IPv4-mapped, else AF_INET6
 * @gid: the GID
 */
static inline void rdma_gid2ip(struct sockaddr *out, const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)out;
	struct sockaddr_in *sin = (struct sockaddr_in *)out;

	if (ipv6_addr_v4mapped(a)) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = a->s6_addr32[3];
	} else {
		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *a;
	}
}

#endif /* IB_ADDR_H */
