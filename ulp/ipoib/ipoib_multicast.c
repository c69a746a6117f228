// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast: the broadcast group, the IP multicast groups the stack joins
 * (IGMP and MLD put them in the device's multicast list) and the groups
 * the interface only sends to.
 *
 * Every group is a struct ipoib_mcast keyed by MGID, joined through the
 * kernel's multicast module (ib_sa_join_multicast()) on the interface's
 * behalf.  The broadcast group comes first: it is joined as a full member
 * with only MGID, port GID, P_Key and join state given (the SM made it),
 * and its record sets the Q_Key of the QP and every send, the MTU of the
 * interface and the values every other join asks for (RFC 4391 section
 * 4.1: same P_Key, Q_Key, SL, MTU, rate, traffic class, flow label, hop
 * limit).  Groups of the multicast list are joined as full members and
 * the QP attached to them; a frame for a group the interface is not in
 * makes a send-only group (a send-only full member where the SA knows the
 * join state, else a full member that is not attached), and up to
 * IPOIB_MAX_MCAST_QUEUE frames wait for it.
 *
 * The join task (priv->mcast_task, on the interface's ordered work queue)
 * does all the work that may sleep: it starts joins, and once a join's
 * callback has recorded the SA's answer it attaches the QP, makes the AH
 * and sends what waited.  A failed join is tried again after a back-off
 * that doubles up to IPOIB_MAX_BACKOFF_SEC; a send-only group that fails
 * drops what waited and waits for the next frame.  The carrier comes on
 * through the link task once the broadcast group is ready.
 *
 * The restart task follows the device's multicast list (ndo_set_rx_mode):
 * new groups are made, groups that left the list are left, and a send-only
 * group that the list now names becomes a full one.  With umcast set,
 * groups userspace already joined through the multicast module are left
 * to it.  Send-only groups nobody sent to for IPOIB_NEIGH_IDLE_SEC are
 * left by the GC task.
 *
 * Locking: priv->lock protects the tree, the list and every group's
 * fields.  A join's callback only records the answer under it.  mcast->done
 * and the BUSY bit order the callback against the end of the group:
 * whoever ends a group first waits for @done, so the callback has run
 * before ib_sa_free_multicast(), which itself waits for later callbacks.
 */
#include <linux/slab.h>

#include "ipoib.h"

void ipoib_mcast_init(struct ipoib_dev_priv *priv)
{
	priv->mcast_tree = RB_ROOT;
	INIT_LIST_HEAD(&priv->mcast_list);
	INIT_DELAYED_WORK(&priv->mcast_task, ipoib_mcast_join_task);
	INIT_WORK(&priv->restart_task, ipoib_mcast_restart_task);
}

static struct ipoib_mcast *ipoib_mcast_alloc(struct ipoib_dev_priv *priv,
					     const union ib_gid *mgid,
					     gfp_t gfp)
{
	struct ipoib_mcast *mcast;

	mcast = kzalloc(sizeof(*mcast), gfp);
	if (!mcast)
		return NULL;
	mcast->priv = priv;
	mcast->mgid = *mgid;
	mcast->backoff = 1;
	mcast->alive = jiffies;
	RB_CLEAR_NODE(&mcast->node);
	INIT_LIST_HEAD(&mcast->list);
	init_completion(&mcast->done);
	complete(&mcast->done);
	skb_queue_head_init(&mcast->pkt_queue);
	return mcast;
}

static struct ipoib_mcast *ipoib_mcast_find(struct ipoib_dev_priv *priv,
					    const union ib_gid *mgid)
{
	struct rb_node *n = priv->mcast_tree.rb_node;

	while (n) {
		struct ipoib_mcast *mcast = rb_entry(n, struct ipoib_mcast,
						     node);
		int cmp = memcmp(mgid->raw, mcast->mgid.raw, sizeof(mgid->raw));

		if (!cmp)
			return mcast;
		n = cmp < 0 ? n->rb_left : n->rb_right;
	}
	return NULL;
}

static void ipoib_mcast_insert(struct ipoib_dev_priv *priv,
			       struct ipoib_mcast *mcast)
{
	struct rb_node **p = &priv->mcast_tree.rb_node, *parent = NULL;

	while (*p) {
		struct ipoib_mcast *t = rb_entry(*p, struct ipoib_mcast, node);

		parent = *p;
		if (memcmp(mcast->mgid.raw, t->mgid.raw,
			   sizeof(mcast->mgid.raw)) < 0)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&mcast->node, parent, p);
	rb_insert_color(&mcast->node, &priv->mcast_tree);
	list_add_tail(&mcast->list, &priv->mcast_list);
	if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags))
		priv->n_sendonly++;
}

/* Out of the tree and the list, onto @list; priv->lock held. */
static void ipoib_mcast_unlink(struct ipoib_dev_priv *priv,
			       struct ipoib_mcast *mcast,
			       struct list_head *list)
{
	rb_erase(&mcast->node, &priv->mcast_tree);
	RB_CLEAR_NODE(&mcast->node);
	list_move_tail(&mcast->list, list);
	if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags))
		priv->n_sendonly--;
	if (priv->broadcast == mcast)
		priv->broadcast = NULL;
}

static void ipoib_mcast_drop_queue(struct ipoib_dev_priv *priv,
				   struct sk_buff_head *queue)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(queue))) {
		ipoib_count(priv, tx_mcast_no_group);
		dev_core_stats_tx_dropped_inc(priv->dev);
		dev_kfree_skb_any(skb);
	}
}

/*
 * Leave a group: no join callback is due any more, the membership is
 * freed, the QP detached, the AH released.  The group stays as it is
 * otherwise (in the tree or not).
 */
static void ipoib_mcast_leave(struct ipoib_dev_priv *priv,
			      struct ipoib_mcast *mcast)
{
	struct ib_sa_multicast *mc;
	unsigned long flags;
	struct ipoib_ah *ah;
	bool attached;
	u16 mlid;

	wait_for_completion(&mcast->done);

	spin_lock_irqsave(&priv->lock, flags);
	mc = mcast->mc;
	mcast->mc = NULL;
	clear_bit(IPOIB_MCAST_JOINED, &mcast->flags);
	clear_bit(IPOIB_MCAST_READY, &mcast->flags);
	attached = test_and_clear_bit(IPOIB_MCAST_ATTACHED, &mcast->flags);
	mlid = be16_to_cpu(mcast->mcmember.mlid);
	ah = mcast->ah;
	mcast->ah = NULL;
	spin_unlock_irqrestore(&priv->lock, flags);

	if (mc) {
		netdev_dbg(priv->dev, "leaving %pI6\n", mcast->mgid.raw);
		ib_sa_free_multicast(mc);
	}
	if (attached && ib_detach_mcast(priv->qp, &mcast->mgid, mlid))
		netdev_dbg(priv->dev, "detach from %pI6 failed\n",
			   mcast->mgid.raw);
	ipoib_put_ah(ah);
}

/* Leave and free a group that is no longer in the tree. */
static void ipoib_mcast_free(struct ipoib_dev_priv *priv,
			     struct ipoib_mcast *mcast)
{
	struct sk_buff_head queue;
	unsigned long flags;

	ipoib_mcast_leave(priv, mcast);
	__skb_queue_head_init(&queue);
	spin_lock_irqsave(&priv->lock, flags);
	skb_queue_splice_init(&mcast->pkt_queue, &queue);
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_mcast_drop_queue(priv, &queue);
	kfree(mcast);
}

static void ipoib_mcast_free_list(struct ipoib_dev_priv *priv,
				  struct list_head *list)
{
	struct ipoib_mcast *mcast, *tmp;

	list_for_each_entry_safe(mcast, tmp, list, list) {
		list_del(&mcast->list);
		ipoib_mcast_free(priv, mcast);
	}
}

/* Whether an answer of the SA describes the group we asked for. */
static bool ipoib_mcmember_ok(const struct ipoib_mcast *mcast,
			      const struct ib_sa_mcmember_rec *rec)
{
	u16 mlid = be16_to_cpu(rec->mlid);

	return !memcmp(rec->mgid.raw, mcast->mgid.raw, sizeof(rec->mgid.raw)) &&
	       mlid >= 0xc000 && mlid < 0xffff &&
	       ib_mtu_enum_to_int(rec->mtu) > 0;
}

static int ipoib_mcast_join_done(int status, struct ib_sa_multicast *multicast)
{
	struct ipoib_mcast *mcast = multicast->context;
	struct ipoib_dev_priv *priv = mcast->priv;
	unsigned long delay = 0, flags;
	bool was_busy;

	/*
	 * The membership was lost with a port event, whose flush leaves and
	 * joins again; the multicast module's own rejoin is not waited for.
	 */
	if (status == -ENETRESET)
		return 0;

	if (!status && !ipoib_mcmember_ok(mcast, &multicast->rec)) {
		net_warn_ratelimited("%s: the SA's record for %pI6 does not fit it\n",
				     priv->dev->name, mcast->mgid.raw);
		status = -EPROTO;
	}

	spin_lock_irqsave(&priv->lock, flags);
	was_busy = test_and_clear_bit(IPOIB_MCAST_BUSY, &mcast->flags);
	if (!status && test_bit(IPOIB_MCAST_READY, &mcast->flags) &&
	    (multicast->rec.mlid != mcast->mcmember.mlid ||
	     multicast->rec.qkey != mcast->mcmember.qkey) &&
	    !test_bit(IPOIB_FLAG_DYING, &priv->flags)) {
		/* a group in use moved: the AH and attach are stale */
		queue_work(priv->wq, &priv->flush[IPOIB_FLUSH_LIGHT].work);
	}
	if (!status) {
		mcast->mcmember = multicast->rec;
		mcast->mc = multicast;
		mcast->backoff = 1;
		set_bit(IPOIB_MCAST_JOINED, &mcast->flags);
	} else {
		mcast->mc = NULL;
		delay = mcast->backoff * HZ;
		mcast->delay_until = jiffies + delay;
		mcast->backoff = min_t(unsigned int, mcast->backoff * 2,
				       IPOIB_MAX_BACKOFF_SEC);
		if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags))
			ipoib_mcast_drop_queue(priv, &mcast->pkt_queue);
		netdev_dbg(priv->dev, "join %pI6: %d\n", mcast->mgid.raw,
			   status);
	}
	/* a success is used now; a failure waits without delaying others */
	if (!test_bit(IPOIB_FLAG_DYING, &priv->flags)) {
		if (!status)
			mod_delayed_work(priv->wq, &priv->mcast_task, 0);
		else
			queue_delayed_work(priv->wq, &priv->mcast_task, delay);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (was_busy)
		complete(&mcast->done);
	return status;
}

/* Ask the SA for a membership; the group is BUSY and @done reset. */
static void ipoib_mcast_join(struct ipoib_dev_priv *priv,
			     struct ipoib_mcast *mcast,
			     const struct ib_sa_mcmember_rec *bcast)
{
	struct ib_sa_mcmember_rec rec = {
		.mgid		= mcast->mgid,
		.port_gid	= priv->local_gid,
		.pkey		= cpu_to_be16(priv->pkey),
		.join_state	= BIT(FULLMEMBER_JOIN),
	};
	ib_sa_comp_mask comp_mask = IB_SA_MCMEMBER_REC_MGID |
				    IB_SA_MCMEMBER_REC_PORT_GID |
				    IB_SA_MCMEMBER_REC_PKEY |
				    IB_SA_MCMEMBER_REC_JOIN_STATE;
	struct ib_sa_multicast *mc;
	unsigned long flags;

	if (bcast) {
		comp_mask |= IB_SA_MCMEMBER_REC_QKEY |
			     IB_SA_MCMEMBER_REC_MTU_SELECTOR |
			     IB_SA_MCMEMBER_REC_MTU |
			     IB_SA_MCMEMBER_REC_TRAFFIC_CLASS |
			     IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			     IB_SA_MCMEMBER_REC_RATE |
			     IB_SA_MCMEMBER_REC_SL |
			     IB_SA_MCMEMBER_REC_FLOW_LABEL |
			     IB_SA_MCMEMBER_REC_HOP_LIMIT;
		rec.qkey = bcast->qkey;
		rec.mtu_selector = IB_SA_EQ;
		rec.mtu = bcast->mtu;
		rec.traffic_class = bcast->traffic_class;
		rec.rate_selector = IB_SA_EQ;
		rec.rate = bcast->rate;
		rec.sl = bcast->sl;
		rec.flow_label = bcast->flow_label;
		rec.hop_limit = bcast->hop_limit;
		if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags) &&
		    priv->sendonly_full)
			rec.join_state = BIT(SENDONLY_FULLMEMBER_JOIN);
	}

	netdev_dbg(priv->dev, "joining %pI6, join state 0x%x\n",
		   mcast->mgid.raw, rec.join_state);
	mc = ib_sa_join_multicast(&ipoib_sa_client, priv->ca, priv->port,
				  &rec, comp_mask, GFP_KERNEL,
				  ipoib_mcast_join_done, mcast);
	if (!IS_ERR(mc))
		return;

	/* no callback comes: fail the join the way the callback would */
	spin_lock_irqsave(&priv->lock, flags);
	clear_bit(IPOIB_MCAST_BUSY, &mcast->flags);
	mcast->delay_until = jiffies + mcast->backoff * HZ;
	mcast->backoff = min_t(unsigned int, mcast->backoff * 2,
			       IPOIB_MAX_BACKOFF_SEC);
	if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags))
		ipoib_mcast_drop_queue(priv, &mcast->pkt_queue);
	spin_unlock_irqrestore(&priv->lock, flags);
	complete(&mcast->done);
	netdev_dbg(priv->dev, "ib_sa_join_multicast %pI6: %ld\n",
		   mcast->mgid.raw, PTR_ERR(mc));
}

/*
 * The SA said yes: for the broadcast group the Q_Key, MTU and SA
 * features; then the attach (unless send-only) and the AH; then what
 * waited is sent.  On failure the group is left, to be joined again.
 */
static int ipoib_mcast_make_ready(struct ipoib_dev_priv *priv,
				  struct ipoib_mcast *mcast)
{
	struct ib_sa_mcmember_rec rec;
	struct sk_buff_head queue;
	struct rdma_ah_attr attr;
	struct ipoib_ah *ah;
	unsigned long flags;
	struct sk_buff *skb;
	bool bcast, sendonly;
	int ret;

	spin_lock_irqsave(&priv->lock, flags);
	rec = mcast->mcmember;
	bcast = mcast == priv->broadcast;
	sendonly = test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags);
	spin_unlock_irqrestore(&priv->lock, flags);

	if (bcast) {
		unsigned int mtu = ib_mtu_enum_to_int(rec.mtu);

		ret = ipoib_set_qkey(priv, be32_to_cpu(rec.qkey));
		if (ret)
			return ret;
		WRITE_ONCE(priv->mcast_mtu,
			   IPOIB_UD_MTU(min(mtu, priv->max_ib_mtu)));
		priv->sendonly_full =
			ib_sa_sendonly_fullmem_support(&ipoib_sa_client,
						       priv->ca, priv->port);
	}

	if (!sendonly) {
		ret = ib_attach_mcast(priv->qp, &rec.mgid,
				      be16_to_cpu(rec.mlid));
		if (ret)
			return ret;
		set_bit(IPOIB_MCAST_ATTACHED, &mcast->flags);
	}

	ret = ib_init_ah_from_mcmember(priv->ca, priv->port, &rec, &attr);
	if (ret)
		return ret;
	ah = ipoib_create_ah(priv, &attr);
	if (IS_ERR(ah))
		return PTR_ERR(ah);

	__skb_queue_head_init(&queue);
	spin_lock_irqsave(&priv->lock, flags);
	mcast->ah = ah;
	set_bit(IPOIB_MCAST_READY, &mcast->flags);
	skb_queue_splice_init(&mcast->pkt_queue, &queue);
	spin_unlock_irqrestore(&priv->lock, flags);

	netdev_dbg(priv->dev, "joined %pI6, MLID 0x%04x%s\n", rec.mgid.raw,
		   be16_to_cpu(rec.mlid), sendonly ? ", to send only" : "");
	if (bcast)
		queue_delayed_work(priv->wq, &priv->link_task, 0);
	while ((skb = __skb_dequeue(&queue)))
		dev_queue_xmit(skb);
	return 0;
}

/* Whether the join task should ask for @mcast now; priv->lock held. */
static bool ipoib_mcast_wants_join(struct ipoib_mcast *mcast)
{
	if (test_bit(IPOIB_MCAST_BUSY, &mcast->flags) ||
	    test_bit(IPOIB_MCAST_JOINED, &mcast->flags))
		return false;
	/* a send-only group waits for something to send */
	return !test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags) ||
	       !skb_queue_empty(&mcast->pkt_queue);
}

enum ipoib_mcast_action {
	IPOIB_MCAST_NOTHING,
	IPOIB_MCAST_DO_READY,
	IPOIB_MCAST_DO_JOIN,
};

/*
 * What the join task does with @mcast now; priv->lock held.  A join about
 * to start is marked BUSY here; @next learns when a group waiting for its
 * back-off wants to be tried again.
 */
static enum ipoib_mcast_action ipoib_mcast_next_action(struct ipoib_mcast *mcast,
						       unsigned long *next)
{
	if (test_bit(IPOIB_MCAST_JOINED, &mcast->flags))
		return test_bit(IPOIB_MCAST_READY, &mcast->flags) ?
		       IPOIB_MCAST_NOTHING : IPOIB_MCAST_DO_READY;
	if (!ipoib_mcast_wants_join(mcast))
		return IPOIB_MCAST_NOTHING;
	if (time_before(jiffies, mcast->delay_until)) {
		if (!*next || time_before(mcast->delay_until, *next))
			*next = mcast->delay_until;
		return IPOIB_MCAST_NOTHING;
	}
	set_bit(IPOIB_MCAST_BUSY, &mcast->flags);
	reinit_completion(&mcast->done);
	return IPOIB_MCAST_DO_JOIN;
}

/* make_ready failed: leave, and try again after the back-off. */
static void ipoib_mcast_retry_later(struct ipoib_dev_priv *priv,
				    struct ipoib_mcast *mcast, int err)
{
	unsigned long flags;

	netdev_warn(priv->dev, "group %pI6: %d\n", mcast->mgid.raw, err);
	ipoib_mcast_leave(priv, mcast);
	spin_lock_irqsave(&priv->lock, flags);
	mcast->delay_until = jiffies + mcast->backoff * HZ;
	mcast->backoff = min_t(unsigned int, mcast->backoff * 2,
			       IPOIB_MAX_BACKOFF_SEC);
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * ipoib_mcast_join_task - join what needs joining, use what was joined
 * @work: priv->mcast_task
 *
 * The broadcast group first; the others once it is ready.  One action per
 * pass over the groups, until a pass finds nothing to do.  Only this task
 * and the paths that stop it take groups out, so a group stays while the
 * task works on it without priv->lock.
 *
 * Context: the interface's work queue.
 */
void ipoib_mcast_join_task(struct work_struct *work)
{
	struct ipoib_dev_priv *priv =
		container_of(work, struct ipoib_dev_priv, mcast_task.work);
	enum ipoib_mcast_action action;
	struct ib_sa_mcmember_rec bcast_rec;
	struct ipoib_mcast *spare, *mcast, *bcast;
	struct ib_port_attr attr;
	unsigned long flags, next;
	union ib_gid gid;
	int ret;

	if (!test_bit(IPOIB_FLAG_MCAST_UP, &priv->flags) ||
	    test_bit(IPOIB_FLAG_DYING, &priv->flags))
		return;
	if (ib_query_port(priv->ca, priv->port, &attr) ||
	    attr.state != IB_PORT_ACTIVE)
		return;	/* PORT_ACTIVE brings us back */
	WRITE_ONCE(priv->local_lid, attr.lid);
	if (!rdma_query_gid(priv->ca, priv->port, 0, &gid)) {
		spin_lock_irqsave(&priv->lock, flags);
		priv->local_gid = gid;
		spin_unlock_irqrestore(&priv->lock, flags);
	}

	memcpy(gid.raw, priv->dev->broadcast + 4, sizeof(gid.raw));
	spare = ipoib_mcast_alloc(priv, &gid, GFP_KERNEL);

	for (;;) {
		next = 0;
		spin_lock_irqsave(&priv->lock, flags);
		if (!test_bit(IPOIB_FLAG_MCAST_UP, &priv->flags))
			break;
		if (!priv->broadcast) {
			if (!spare) {
				queue_delayed_work(priv->wq, &priv->mcast_task,
						   HZ);
				break;
			}
			priv->broadcast = spare;
			ipoib_mcast_insert(priv, spare);
			spare = NULL;
		}
		bcast = priv->broadcast;
		mcast = bcast;
		action = ipoib_mcast_next_action(bcast, &next);
		if (action == IPOIB_MCAST_NOTHING &&
		    test_bit(IPOIB_MCAST_READY, &bcast->flags)) {
			list_for_each_entry(mcast, &priv->mcast_list, list) {
				if (mcast == bcast)
					continue;
				action = ipoib_mcast_next_action(mcast, &next);
				if (action != IPOIB_MCAST_NOTHING)
					break;
			}
		}
		if (action == IPOIB_MCAST_NOTHING) {
			if (next)
				mod_delayed_work(priv->wq, &priv->mcast_task,
						 max_t(long, next - jiffies, 1));
			break;
		}
		bcast_rec = bcast->mcmember;
		spin_unlock_irqrestore(&priv->lock, flags);

		if (action == IPOIB_MCAST_DO_READY) {
			ret = ipoib_mcast_make_ready(priv, mcast);
			if (ret)
				ipoib_mcast_retry_later(priv, mcast, ret);
		} else {
			ipoib_mcast_join(priv, mcast,
					 mcast == bcast ? NULL : &bcast_rec);
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	kfree(spare);
}

/**
 * ipoib_mcast_send - send a frame to a multicast group
 * @priv: the interface
 * @skb: the frame, starting with the pseudo header
 * @daddr: the destination (QPN 0xffffff and the MGID)
 *
 * Context: the net device's TX lock held (ndo_start_xmit).
 */
void ipoib_mcast_send(struct ipoib_dev_priv *priv, struct sk_buff *skb,
		      const u8 *daddr)
{
	struct ipoib_mcast *mcast;
	struct ipoib_ah *ah = NULL;
	bool kick = false;
	unsigned long flags;
	union ib_gid mgid;

	memcpy(mgid.raw, daddr + 4, sizeof(mgid.raw));
	spin_lock_irqsave(&priv->lock, flags);
	if (!test_bit(IPOIB_FLAG_MCAST_UP, &priv->flags) || !priv->broadcast)
		goto drop;

	mcast = ipoib_mcast_find(priv, &mgid);
	if (!mcast) {
		if (priv->n_sendonly >= IPOIB_MAX_SENDONLY)
			goto drop;
		mcast = ipoib_mcast_alloc(priv, &mgid, GFP_ATOMIC);
		if (!mcast)
			goto drop;
		set_bit(IPOIB_MCAST_SENDONLY, &mcast->flags);
		ipoib_mcast_insert(priv, mcast);
	}
	mcast->alive = jiffies;

	if (test_bit(IPOIB_MCAST_READY, &mcast->flags)) {
		ah = mcast->ah;
		ipoib_get_ah(ah);
		spin_unlock_irqrestore(&priv->lock, flags);
		skb_pull(skb, IPOIB_PSEUDO_LEN);
		ipoib_send(priv, skb, ah, IPOIB_MCAST_QPN);
		ipoib_put_ah(ah);
		return;
	}

	if (skb_queue_len(&mcast->pkt_queue) >= IPOIB_MAX_MCAST_QUEUE) {
		spin_unlock_irqrestore(&priv->lock, flags);
		ipoib_count(priv, tx_mcast_queue_full);
		dev_core_stats_tx_dropped_inc(priv->dev);
		dev_kfree_skb_any(skb);
		return;
	}
	__skb_queue_tail(&mcast->pkt_queue, skb);
	kick = ipoib_mcast_wants_join(mcast) &&
	       !time_before(jiffies, mcast->delay_until);
	spin_unlock_irqrestore(&priv->lock, flags);
	if (kick)
		mod_delayed_work(priv->wq, &priv->mcast_task, 0);
	return;

drop:
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_count(priv, tx_mcast_no_group);
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
}

/* The MGIDs of the device's multicast list; kfree() the array. */
static union ib_gid *ipoib_mc_list(struct ipoib_dev_priv *priv,
				   unsigned int *count)
{
	struct net_device *dev = priv->dev;
	struct netdev_hw_addr *ha;
	union ib_gid *mgids;
	unsigned int n = 0;

	netif_addr_lock_bh(dev);
	mgids = kcalloc(max(netdev_mc_count(dev), 1), sizeof(*mgids),
			GFP_ATOMIC);
	if (mgids) {
		netdev_for_each_mc_addr(ha, dev) {
			if (!ipoib_is_mcast_addr(ha->addr))
				continue;
			memcpy(mgids[n].raw, ha->addr + 4, sizeof(mgids[n].raw));
			/* our partition, whatever the address says */
			mgids[n].raw[4] = priv->pkey >> 8;
			mgids[n].raw[5] = priv->pkey & 0xff;
			n++;
		}
	}
	netif_addr_unlock_bh(dev);
	*count = n;
	return mgids;
}

/**
 * ipoib_mcast_restart_task - follow the device's multicast list
 * @work: priv->restart_task
 *
 * Context: the interface's work queue.
 */
void ipoib_mcast_restart_task(struct work_struct *work)
{
	struct ipoib_dev_priv *priv =
		container_of(work, struct ipoib_dev_priv, restart_task);
	bool umcast = test_bit(IPOIB_FLAG_UMCAST, &priv->flags);
	struct ipoib_mcast *mcast, *tmp, **fresh;
	struct ib_sa_mcmember_rec rec;
	unsigned int i, n;
	unsigned long flags;
	union ib_gid *mgids;
	LIST_HEAD(gone);

	if (!test_bit(IPOIB_FLAG_MCAST_UP, &priv->flags) ||
	    test_bit(IPOIB_FLAG_DYING, &priv->flags))
		return;

	mgids = ipoib_mc_list(priv, &n);
	fresh = kcalloc(max(n, 1U), sizeof(*fresh), GFP_KERNEL);
	if (!mgids || !fresh) {
		kfree(mgids);
		kfree(fresh);
		queue_work(priv->wq, &priv->restart_task);
		return;
	}
	/* new groups are made before priv->lock is taken */
	for (i = 0; i < n; i++) {
		if (umcast && !ib_sa_get_mcmember_rec(priv->ca, priv->port,
						      &mgids[i], &rec))
			continue;	/* userspace's */
		fresh[i] = ipoib_mcast_alloc(priv, &mgids[i], GFP_KERNEL);
	}

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(mcast, &priv->mcast_list, list)
		clear_bit(IPOIB_MCAST_FOUND, &mcast->flags);
	for (i = 0; i < n; i++) {
		mcast = ipoib_mcast_find(priv, &mgids[i]);
		if (mcast && !test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags)) {
			set_bit(IPOIB_MCAST_FOUND, &mcast->flags);
			continue;
		}
		if (!fresh[i])
			continue;
		if (mcast) {
			/* a send-only group becomes a full one */
			skb_queue_splice_init(&mcast->pkt_queue,
					      &fresh[i]->pkt_queue);
			ipoib_mcast_unlink(priv, mcast, &gone);
		}
		set_bit(IPOIB_MCAST_FOUND, &fresh[i]->flags);
		ipoib_mcast_insert(priv, fresh[i]);
		fresh[i] = NULL;
	}
	list_for_each_entry_safe(mcast, tmp, &priv->mcast_list, list)
		if (mcast != priv->broadcast &&
		    !test_bit(IPOIB_MCAST_FOUND, &mcast->flags) &&
		    !test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags))
			ipoib_mcast_unlink(priv, mcast, &gone);
	spin_unlock_irqrestore(&priv->lock, flags);

	for (i = 0; i < n; i++)
		kfree(fresh[i]);
	kfree(fresh);
	kfree(mgids);
	ipoib_mcast_free_list(priv, &gone);
	mod_delayed_work(priv->wq, &priv->mcast_task, 0);
}

/**
 * ipoib_mcast_start - join the broadcast group and the multicast list
 * @priv: the interface, its transport up
 */
void ipoib_mcast_start(struct ipoib_dev_priv *priv)
{
	set_bit(IPOIB_FLAG_MCAST_UP, &priv->flags);
	queue_work(priv->wq, &priv->restart_task);
	mod_delayed_work(priv->wq, &priv->mcast_task, 0);
}

/**
 * ipoib_mcast_stop - stop joining: the tasks, the carrier, new groups
 * @priv: the interface
 *
 * Context: process context.
 */
void ipoib_mcast_stop(struct ipoib_dev_priv *priv)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	clear_bit(IPOIB_FLAG_MCAST_UP, &priv->flags);
	netif_carrier_off(priv->dev);
	spin_unlock_irqrestore(&priv->lock, flags);
	cancel_delayed_work_sync(&priv->mcast_task);
	cancel_work_sync(&priv->restart_task);
}

/**
 * ipoib_mcast_flush - leave and forget every group
 * @priv: the interface, after ipoib_mcast_stop()
 *
 * Context: process context; waits for the multicast module.
 */
void ipoib_mcast_flush(struct ipoib_dev_priv *priv)
{
	struct ipoib_mcast *mcast, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry_safe(mcast, tmp, &priv->mcast_list, list)
		ipoib_mcast_unlink(priv, mcast, &gone);
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_mcast_free_list(priv, &gone);
}

/**
 * ipoib_mcast_gc - leave the send-only groups nobody sends to any more
 * @priv: the interface
 *
 * Context: the interface's work queue.
 */
void ipoib_mcast_gc(struct ipoib_dev_priv *priv)
{
	unsigned long idle = IPOIB_NEIGH_IDLE_SEC * HZ;
	struct ipoib_mcast *mcast, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry_safe(mcast, tmp, &priv->mcast_list, list)
		if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags) &&
		    !test_bit(IPOIB_MCAST_BUSY, &mcast->flags) &&
		    time_after(jiffies, mcast->alive + idle))
			ipoib_mcast_unlink(priv, mcast, &gone);
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_mcast_free_list(priv, &gone);
}
