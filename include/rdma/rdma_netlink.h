/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMA netlink (NETLINK_RDMA) inside the kernel: how a part of the stack
 * answers the requests of one netlink client index (RDMA_NL_NLDEV,
 * RDMA_NL_LS, ...; see <uapi/rdma/rdma_netlink.h>).
 *
 * A message type carries the client index in its upper six bits and the
 * operation in its lower ten (RDMA_NL_GET_CLIENT(), RDMA_NL_GET_OP()).  A
 * client registers a table indexed by operation; ib_core looks the
 * message up there, checks the permission and calls the entry's doit, or
 * with NLM_F_DUMP starts a dump with its dump callback.
 */
#ifndef RDMA_NETLINK_KERNEL_H
#define RDMA_NETLINK_KERNEL_H

#include <linux/module.h>
#include <linux/netlink.h>
#include <uapi/rdma/rdma_netlink.h>

struct net;

/* Flags of struct rdma_nl_cbs */
enum rdma_nl_flags {
	/* the operation changes state: the sender needs CAP_NET_ADMIN */
	RDMA_NL_ADMIN_PERM	= 1 << 0,
};

/**
 * struct rdma_nl_cbs - how one operation of a client is answered
 * @doit: called for a request without NLM_F_DUMP, in the sender's
 *	context.  Replies with rdma_nl_unicast(); returns 0, or a negative
 *	errno that the sender gets as NLMSG_ERROR.  NULL: such requests get
 *	-EOPNOTSUPP.
 * @dump: the netlink_dump_control dump callback for NLM_F_DUMP requests;
 *	NULL: such requests get -EOPNOTSUPP.
 * @flags: RDMA_NL_* flags
 */
struct rdma_nl_cbs {
	int (*doit)(struct sk_buff *skb, struct nlmsghdr *nlh,
		    struct netlink_ext_ack *extack);
	int (*dump)(struct sk_buff *skb, struct netlink_callback *cb);
	u8 flags;
};

int __rdma_nl_register(unsigned int index, const struct rdma_nl_cbs *cbs,
		       unsigned int num_ops, struct module *owner);

/**
 * rdma_nl_register - answer the requests of a netlink client index
 * @index: the client index, below RDMA_NL_NUM_CLIENTS
 * @cbs: an array of struct rdma_nl_cbs indexed by operation; it must stay
 *	valid until rdma_nl_unregister()
 * @num_ops: the number of entries of @cbs, ARRAY_SIZE() of it
 *
 * The calling module owns the callbacks: a dump in progress holds a
 * reference on it.
 *
 * Return: 0, -EINVAL for a bad index, or -EBUSY if it is taken.
 */
#define rdma_nl_register(index, cbs, num_ops) \
	__rdma_nl_register((index), (cbs), (num_ops), THIS_MODULE)

void rdma_nl_unregister(unsigned int index);
int rdma_nl_unicast(struct net *net, struct sk_buff *skb, u32 portid);
bool rdma_nl_get_privileged_qkey(void);

#endif /* RDMA_NETLINK_KERNEL_H */
