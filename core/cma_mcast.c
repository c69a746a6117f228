// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA CM multicast: a UD id joins the InfiniBand multicast group that an
 * IP multicast address maps to, through the SA client's multicast module
 * (one SA membership per port and group however many join), and is told
 * MULTICAST_JOIN with what it needs to send to the group (address handle
 * attributes, QPN 0xffffff, the Q_Key), or MULTICAST_ERROR.
 *
 * The MGID of an IP address is IPoIB's mapping of it with the interface's
 * broadcast address (the P_Key and scope), except that the UDP port space
 * marks its groups with the RDMA CM signature byte, so that they are not
 * IPoIB's; an IPv6 address that is an SA-assigned MGID is the MGID
 * itself, and the wildcard asks the SA for a new MGID.
 *
 * Locking: an id's lock protects its list of groups; the join callback
 * takes the id's handler_mutex to deliver the event.  rdma_join_multicast()
 * and rdma_leave_multicast() are not called with the handler mutex held.
 */
#include <linux/slab.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib.h>

#include "cma_priv.h"

/* The first word of an SA-assigned MGID, scope bits aside. */
#define CMA_SA_MGID_PREFIX	0xFF10A01B
#define CMA_SA_MGID_MASK	0xFFF0FFFF

static void cma_set_mgid(struct rdma_id_private *id_priv,
			 const struct sockaddr *addr, union ib_gid *mgid)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	unsigned char mc_map[MAX_ADDR_LEN];

	if (cma_any_addr(addr)) {
		memset(mgid, 0, sizeof(*mgid));
		return;
	}
	switch (addr->sa_family) {
	case AF_IB:
		memcpy(mgid->raw,
		       ((const struct sockaddr_ib *)addr)->sib_addr.sib_raw,
		       sizeof(mgid->raw));
		return;
	case AF_INET6:
		if ((be32_to_cpu(sin6->sin6_addr.s6_addr32[0]) &
		     CMA_SA_MGID_MASK) == CMA_SA_MGID_PREFIX) {
			memcpy(mgid->raw, &sin6->sin6_addr, sizeof(mgid->raw));
			return;
		}
		ipv6_ib_mc_map(&sin6->sin6_addr, dev_addr->broadcast, mc_map);
		break;
	default:
		ip_ib_mc_map(sin->sin_addr.s_addr, dev_addr->broadcast, mc_map);
		break;
	}
	if (id_priv->id.ps == RDMA_PS_UDP)
		mc_map[7] = 0x01;
	memcpy(mgid->raw, mc_map + 4, sizeof(mgid->raw));
}

static int cma_mc_handler(int status, struct ib_sa_multicast *multicast)
{
	struct cma_multicast *mc = multicast->context;
	struct rdma_id_private *id_priv = mc->id_priv;
	struct rdma_cm_event event = {};
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (state == RDMA_CM_DEVICE_REMOVAL || state == RDMA_CM_DESTROYING)
		goto out;

	if (!status)
		status = cma_set_qkey(id_priv,
				      be32_to_cpu(multicast->rec.qkey));
	if (!status)
		status = ib_init_ah_from_mcmember(id_priv->id.device,
						  id_priv->id.port_num,
						  &multicast->rec,
						  &event.param.ud.ah_attr);
	if (!status) {
		event.event = RDMA_CM_EVENT_MULTICAST_JOIN;
		event.param.ud.qp_num = 0xffffff;
		event.param.ud.qkey = be32_to_cpu(multicast->rec.qkey);
	} else {
		event.event = RDMA_CM_EVENT_MULTICAST_ERROR;
	}
	event.status = status;
	event.param.ud.private_data = mc->context;
	/* a membership cannot destroy its id from here: the answer is moot */
	cma_deliver(id_priv, &event);
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

static int cma_join_ib(struct rdma_id_private *id_priv,
		       struct cma_multicast *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask mask;
	union ib_gid bcast;
	int ret;

	/* the broadcast group's record: the template of a new group */
	ib_addr_get_mgid(dev_addr, &bcast);
	ret = ib_sa_get_mcmember_rec(id_priv->id.device, id_priv->id.port_num,
				     &bcast, &rec);
	if (ret)
		return ret;
	ret = cma_set_qkey(id_priv, 0);
	if (ret)
		return ret;
	cma_set_mgid(id_priv, (struct sockaddr *)&mc->addr, &rec.mgid);
	rec.qkey = cpu_to_be32(id_priv->qkey);
	rdma_addr_get_sgid(dev_addr, &rec.port_gid);
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec.join_state = mc->join_state;

	mask = IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE |
	       IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_SL |
	       IB_SA_MCMEMBER_REC_FLOW_LABEL |
	       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;
	if (id_priv->id.ps == RDMA_PS_IPOIB)
		mask |= IB_SA_MCMEMBER_REC_RATE |
			IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU |
			IB_SA_MCMEMBER_REC_HOP_LIMIT;

	mc->sa_mc = ib_sa_join_multicast(&cma_sa_client, id_priv->id.device,
					 id_priv->id.port_num, &rec, mask,
					 GFP_KERNEL, cma_mc_handler, mc);
	return PTR_ERR_OR_ZERO(mc->sa_mc);
}

/**
 * rdma_join_multicast() - join a multicast group, asynchronously
 * @id: a UD id bound to a device (ADDR_BOUND or ADDR_RESOLVED), without
 *	a kernel QP
 * @addr: the group's address: IPv4, IPv6, AF_IB (an MGID), or the
 *	wildcard for a new group the SA names
 * @join_state: BIT(FULLMEMBER_JOIN), BIT(SENDONLY_FULLMEMBER_JOIN), ...
 * @context: the consumer's, given back as the events' private_data
 *
 * MULTICAST_JOIN or MULTICAST_ERROR follows; MULTICAST_ERROR may come
 * again later (-ENETRESET) if the SA loses the membership.
 *
 * Return: 0; -EINVAL for an id in another state, not UD, or with a
 * kernel QP, or for an address of another size; -ENOMEM; the SA's error.
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	enum rdma_cm_state state = cma_state(id_priv);
	struct cma_multicast *mc;
	unsigned long flags;
	int ret;

	if (!id->device || id->qp || id->qp_type != IB_QPT_UD ||
	    (state != RDMA_CM_ADDR_BOUND && state != RDMA_CM_ADDR_RESOLVED))
		return -EINVAL;
	if (!rdma_addr_size(addr))
		return -EINVAL;
	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	memcpy(&mc->addr, addr, rdma_addr_size(addr));
	mc->context = context;
	mc->id_priv = id_priv;
	mc->join_state = join_state;

	/* listed first: the callback may come before the join returns */
	spin_lock_irqsave(&id_priv->lock, flags);
	list_add(&mc->list, &id_priv->mc_list);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	ret = cma_join_ib(id_priv, mc);
	if (ret) {
		spin_lock_irqsave(&id_priv->lock, flags);
		list_del(&mc->list);
		spin_unlock_irqrestore(&id_priv->lock, flags);
		kfree(mc);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_join_multicast);

static void cma_mc_free(struct cma_multicast *mc)
{
	if (!IS_ERR_OR_NULL(mc->sa_mc))
		ib_sa_free_multicast(mc->sa_mc);
	kfree(mc);
}

/**
 * rdma_leave_multicast() - leave a group rdma_join_multicast() joined
 * @id: the id
 * @addr: the address it joined
 *
 * When this returns the group's events have stopped.  Nothing happens
 * for an address the id did not join.
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct cma_multicast *mc, *found = NULL;
	unsigned long flags;
	int size = rdma_addr_size(addr);

	spin_lock_irqsave(&id_priv->lock, flags);
	list_for_each_entry(mc, &id_priv->mc_list, list) {
		if (size && !memcmp(&mc->addr, addr, size)) {
			list_del(&mc->list);
			found = mc;
			break;
		}
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	if (found)
		cma_mc_free(found);
}
EXPORT_SYMBOL(rdma_leave_multicast);

/**
 * cma_mcast_leave_all() - leave every group of an id being destroyed
 * @id_priv: the id
 */
void cma_mcast_leave_all(struct rdma_id_private *id_priv)
{
	struct cma_multicast *mc;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&id_priv->lock, flags);
	list_splice_init(&id_priv->mc_list, &list);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	while (!list_empty(&list)) {
		mc = list_first_entry(&list, struct cma_multicast, list);
		list_del(&mc->list);
		cma_mc_free(mc);
	}
}
