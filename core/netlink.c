// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NETLINK_RDMA kernel socket and the dispatch of its requests to the
 * clients registered with rdma_nl_register().
 *
 * Every network namespace gets its own kernel socket (pernet operations),
 * so that "rdma" and libibverbs work in containers too.  The devices are
 * shared by all namespaces (RDMA_NLDEV_SYS_ATTR_NETNS_MODE 1): a request
 * sees every device, whatever namespace it comes from.
 *
 * Requests are taken apart by netlink_rcv_skb(), which also sends the ACK
 * for NLM_F_ACK and the NLMSG_ERROR for a request that failed.
 */
#include <linux/capability.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

/**
 * struct rdma_nl_client - what is registered for one client index
 * @sem: see below
 * @cbs: the operations table, NULL while nobody is registered
 * @num_ops: entries in @cbs
 * @owner: the module of the callbacks
 */
struct rdma_nl_client {
	/*
	 * Protects @cbs, @num_ops and @owner.  Held for reading while a
	 * request of this client is dispatched (a doit call, or the start of
	 * a dump), for writing by registration changes, so that no doit
	 * runs after rdma_nl_unregister() returns.  A dump continued later
	 * is kept safe by the module reference netlink takes on @owner.
	 */
	struct rw_semaphore		sem;
	const struct rdma_nl_cbs	*cbs;
	unsigned int			num_ops;
	struct module			*owner;
};

static struct rdma_nl_client rdma_nl_clients[RDMA_NL_NUM_CLIENTS];

/* Per network namespace: its NETLINK_RDMA kernel socket. */
struct rdma_nl_net {
	struct sock *sk;
};

static unsigned int rdma_nl_net_id;

/**
 * __rdma_nl_register - answer the requests of a netlink client index
 * @index: the client index, below RDMA_NL_NUM_CLIENTS
 * @cbs: the operations table, indexed by operation
 * @num_ops: number of entries in @cbs
 * @owner: the module the callbacks belong to
 *
 * Use the rdma_nl_register() wrapper.
 *
 * Return: 0, -EINVAL for a bad index or an empty table, or -EBUSY if the
 * index is taken.
 */
int __rdma_nl_register(unsigned int index, const struct rdma_nl_cbs *cbs,
		       unsigned int num_ops, struct module *owner)
{
	struct rdma_nl_client *client;
	int ret = 0;

	if (index >= RDMA_NL_NUM_CLIENTS || !cbs || !num_ops)
		return -EINVAL;
	client = &rdma_nl_clients[index];

	down_write(&client->sem);
	if (client->cbs) {
		ret = -EBUSY;
	} else {
		client->cbs = cbs;
		client->num_ops = num_ops;
		client->owner = owner;
	}
	up_write(&client->sem);
	return ret;
}
EXPORT_SYMBOL(__rdma_nl_register);

/**
 * rdma_nl_unregister - stop answering a netlink client index
 * @index: an index passed to rdma_nl_register()
 *
 * Waits for the doit calls in progress.  Requests arriving later get
 * -EOPNOTSUPP.
 */
void rdma_nl_unregister(unsigned int index)
{
	struct rdma_nl_client *client;

	if (WARN_ON(index >= RDMA_NL_NUM_CLIENTS))
		return;
	client = &rdma_nl_clients[index];

	down_write(&client->sem);
	client->cbs = NULL;
	client->num_ops = 0;
	client->owner = NULL;
	up_write(&client->sem);
}
EXPORT_SYMBOL(rdma_nl_unregister);

/**
 * rdma_nl_unicast - send a reply to a netlink socket
 * @net: the network namespace the request came from
 *	(sock_net(skb->sk) of the request)
 * @skb: the reply; consumed in every case
 * @portid: the requester, NETLINK_CB(skb).portid of the request
 *
 * Return: 0 or a negative errno.
 */
int rdma_nl_unicast(struct net *net, struct sk_buff *skb, u32 portid)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);

	return nlmsg_unicast(rnet->sk, skb, portid);
}
EXPORT_SYMBOL(rdma_nl_unicast);

/*
 * One request, from netlink_rcv_skb(): NLM_F_REQUEST is set and the type is
 * not a control message.  Returns what the sender gets in NLMSG_ERROR (no
 * ACK for -EINTR, which means a dump was started).
 */
static int rdma_nl_rcv_msg(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	unsigned int index = RDMA_NL_GET_CLIENT(nlh->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct rdma_nl_cbs *cbs;
	struct rdma_nl_client *client;
	int ret = -EOPNOTSUPP;

	if (index >= RDMA_NL_NUM_CLIENTS)
		return -EOPNOTSUPP;
	client = &rdma_nl_clients[index];

	down_read(&client->sem);
	if (!client->cbs || op >= client->num_ops)
		goto out;
	cbs = &client->cbs[op];

	if ((cbs->flags & RDMA_NL_ADMIN_PERM) &&
	    !netlink_capable(skb, CAP_NET_ADMIN)) {
		ret = -EPERM;
		goto out;
	}

	if (nlh->nlmsg_flags & NLM_F_DUMP) {
		struct netlink_dump_control control = {
			.dump = cbs->dump,
			.module = client->owner,
		};

		if (cbs->dump)
			ret = netlink_dump_start(skb->sk, skb, nlh, &control);
	} else if (cbs->doit) {
		ret = cbs->doit(skb, nlh, extack);
	}
out:
	up_read(&client->sem);
	return ret;
}

static void rdma_nl_rcv(struct sk_buff *skb)
{
	netlink_rcv_skb(skb, rdma_nl_rcv_msg);
}

static int __net_init rdma_nl_net_init(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);
	struct netlink_kernel_cfg cfg = {
		.input	= rdma_nl_rcv,
	};

	rnet->sk = netlink_kernel_create(net, NETLINK_RDMA, &cfg);
	return rnet->sk ? 0 : -ENOMEM;
}

static void __net_exit rdma_nl_net_exit(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);

	netlink_kernel_release(rnet->sk);
	rnet->sk = NULL;
}

static struct pernet_operations rdma_nl_net_ops = {
	.init	= rdma_nl_net_init,
	.exit	= rdma_nl_net_exit,
	.id	= &rdma_nl_net_id,
	.size	= sizeof(struct rdma_nl_net),
};

/*
 * At module init: from here on requests arrive; they get -EOPNOTSUPP
 * until their client registers.
 */
int rdma_nl_init(void)
{
	int i;

	for (i = 0; i < RDMA_NL_NUM_CLIENTS; i++)
		init_rwsem(&rdma_nl_clients[i].sem);
	return register_pernet_subsys(&rdma_nl_net_ops);
}

/* At module exit: no request arrives any more. */
void rdma_nl_exit(void)
{
	unregister_pernet_subsys(&rdma_nl_net_ops);
}

MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);
