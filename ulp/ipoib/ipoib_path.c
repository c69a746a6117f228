// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unicast destinations: neighbours, paths and the SA's PathRecords.
 *
 * A neighbour (struct ipoib_neigh) is a destination hardware address as
 * ARP or ND found it: QPN and port GID.  Every neighbour hangs off the
 * path (struct ipoib_path) to its GID, which holds the PathRecord the SA
 * answered and the address handle made from it.  The send path looks the
 * neighbour up under RCU and sends with the AH it caches; only a miss
 * takes priv->lock, finds or makes the path and the neighbour, and either
 * sends or holds the frame (at most IPOIB_MAX_PATH_QUEUE per path) until
 * the path is resolved.
 *
 * Resolution runs on the interface's work queue (the path task): it
 * starts PathRecord queries (ib_sa_path_rec_get(), DGID, SGID, P_Key,
 * traffic class, one path) and turns answers into AHs, gives them to the
 * path's neighbours and sends what was held through dev_queue_xmit().
 * An answer the path cannot use (an error, no record, a record for
 * another GID or a LID no port has) drops what was held and counts it.
 *
 * A light flush marks every path stale: it is asked for again while the
 * old AH stays in use, so traffic goes on while the SA restarts.  Going
 * down (ipoib_flush_paths()) cancels the queries, waits for their
 * callbacks and frees everything.  The GC task frees neighbours idle for
 * IPOIB_NEIGH_IDLE_SEC, and paths left without neighbours.
 *
 * Lifetimes: a path has a reference for the tree and one for a query in
 * flight (the SA's callback drops it); a neighbour is freed after an RCU
 * grace period, which is when its AH reference goes.  AHs replaced under
 * a neighbour are also released after a grace period.
 *
 * Locking: priv->lock protects the tree, the list, every path's fields
 * (but @ref) and the neighbour hash's writers; the SA's callback only
 * takes it to record the answer.
 */
#include <linux/jhash.h>
#include <linux/slab.h>

#include "ipoib.h"

void ipoib_path_init(struct ipoib_dev_priv *priv)
{
	priv->path_tree = RB_ROOT;
	INIT_LIST_HEAD(&priv->path_list);
	hash_init(priv->neigh_hash);
	INIT_WORK(&priv->path_task, ipoib_path_task);
	INIT_DELAYED_WORK(&priv->gc_task, ipoib_gc_task);
}

static u32 ipoib_neigh_key(const u8 *daddr)
{
	return jhash(daddr, INFINIBAND_ALEN, 0);
}

/* Under rcu_read_lock() or priv->lock. */
static struct ipoib_neigh *ipoib_neigh_find(struct ipoib_dev_priv *priv,
					    const u8 *daddr)
{
	struct ipoib_neigh *neigh;

	hash_for_each_possible_rcu(priv->neigh_hash, neigh, hnode,
				   ipoib_neigh_key(daddr))
		if (!memcmp(neigh->daddr, daddr, INFINIBAND_ALEN))
			return neigh;
	return NULL;
}

static void ipoib_neigh_free_rcu(struct rcu_head *rcu)
{
	struct ipoib_neigh *neigh = container_of(rcu, struct ipoib_neigh, rcu);

	ipoib_put_ah(rcu_dereference_protected(neigh->ah, 1));
	kfree(neigh);
}

/* Out of the hash and off its path; freed after a grace period. */
static void ipoib_neigh_unlink(struct ipoib_neigh *neigh)
{
	/* its connection ends with it */
	ipoib_cm_neigh_unlink(neigh->path->priv, neigh);
	hash_del_rcu(&neigh->hnode);
	list_del(&neigh->path_entry);
	call_rcu(&neigh->rcu, ipoib_neigh_free_rcu);
}

static void ipoib_path_release(struct kref *ref)
{
	struct ipoib_path *path = container_of(ref, struct ipoib_path, ref);

	/* the AH and the held frames went when the path left the tree */
	kfree(path);
}

static struct ipoib_path *ipoib_path_find(struct ipoib_dev_priv *priv,
					  const union ib_gid *gid)
{
	struct rb_node *n = priv->path_tree.rb_node;

	while (n) {
		struct ipoib_path *path = rb_entry(n, struct ipoib_path, node);
		int cmp = memcmp(gid->raw, path->dgid.raw, sizeof(gid->raw));

		if (!cmp)
			return path;
		n = cmp < 0 ? n->rb_left : n->rb_right;
	}
	return NULL;
}

static struct ipoib_path *ipoib_path_add(struct ipoib_dev_priv *priv,
					 const union ib_gid *gid)
{
	struct rb_node **p = &priv->path_tree.rb_node, *parent = NULL;
	struct ipoib_path *path;

	path = kzalloc(sizeof(*path), GFP_ATOMIC);
	if (!path)
		return NULL;
	path->priv = priv;
	path->dgid = *gid;
	skb_queue_head_init(&path->queue);
	INIT_LIST_HEAD(&path->neighs);
	init_completion(&path->done);
	complete(&path->done);
	kref_init(&path->ref);

	while (*p) {
		struct ipoib_path *t = rb_entry(*p, struct ipoib_path, node);

		parent = *p;
		if (memcmp(gid->raw, t->dgid.raw, sizeof(gid->raw)) < 0)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&path->node, parent, p);
	rb_insert_color(&path->node, &priv->path_tree);
	list_add_tail(&path->list, &priv->path_list);
	return path;
}

static void ipoib_tx_dropped(struct ipoib_dev_priv *priv, struct sk_buff *skb)
{
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
}

/* The send path's miss: find or make the path and neighbour. */
static void ipoib_path_send(struct ipoib_dev_priv *priv, struct sk_buff *skb,
			    const u8 *daddr)
{
	struct ipoib_ah *ah = NULL;
	struct ipoib_neigh *neigh;
	struct ipoib_path *path;
	union ib_gid gid;
	bool query = false;
	unsigned long flags;

	memcpy(gid.raw, daddr + 4, sizeof(gid.raw));
	spin_lock_irqsave(&priv->lock, flags);
	if (!test_bit(IPOIB_FLAG_OPER_UP, &priv->flags))
		goto drop;
	path = ipoib_path_find(priv, &gid);
	if (!path) {
		path = ipoib_path_add(priv, &gid);
		if (!path)
			goto drop;
	}

	neigh = ipoib_neigh_find(priv, daddr);
	if (!neigh) {
		neigh = kzalloc(sizeof(*neigh), GFP_ATOMIC);
		if (neigh) {
			memcpy(neigh->daddr, daddr, INFINIBAND_ALEN);
			neigh->path = path;
			neigh->alive = jiffies;
			list_add_tail(&neigh->path_entry, &path->neighs);
			hash_add_rcu(priv->neigh_hash, &neigh->hnode,
				     ipoib_neigh_key(daddr));
		}
	}

	if (path->ah) {
		ah = path->ah;
		ipoib_get_ah(ah);
		if (neigh && !rcu_access_pointer(neigh->ah)) {
			ipoib_get_ah(ah);
			rcu_assign_pointer(neigh->ah, ah);
		}
		if (!path->valid && !path->querying && !path->want_query) {
			path->want_query = true;
			query = true;
		}
		spin_unlock_irqrestore(&priv->lock, flags);

		skb_pull(skb, IPOIB_PSEUDO_LEN);
		ipoib_send(priv, skb, ah, ipoib_addr_qpn(daddr));
		ipoib_put_ah(ah);
		goto out;
	}

	if (skb_queue_len(&path->queue) >= IPOIB_MAX_PATH_QUEUE) {
		ipoib_count(priv, tx_path_queue_full);
		goto drop;
	}
	__skb_queue_tail(&path->queue, skb);
	if (!path->querying && !path->want_query) {
		path->want_query = true;
		query = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
out:
	if (query)
		queue_work(priv->wq, &priv->path_task);
	return;

drop:
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_tx_dropped(priv, skb);
}

/**
 * ipoib_unicast_send - send a frame to a unicast hardware address
 * @priv: the interface
 * @skb: the frame, starting with the pseudo header
 * @daddr: the destination (from the pseudo header)
 *
 * Context: the net device's TX lock held (ndo_start_xmit).
 */
void ipoib_unicast_send(struct ipoib_dev_priv *priv, struct sk_buff *skb,
			const u8 *daddr)
{
	struct ipoib_neigh *neigh;
	struct ipoib_ah *ah;

	rcu_read_lock();
	neigh = ipoib_neigh_find(priv, daddr);
	ah = neigh ? rcu_dereference(neigh->ah) : NULL;
	if (ah) {
		/* one write a jiffy, not one a frame */
		if (time_after(jiffies, READ_ONCE(neigh->alive)))
			WRITE_ONCE(neigh->alive, jiffies);
		/* connected mode takes it if the peer offers it */
		if (ipoib_cm_xmit(priv, neigh, skb)) {
			rcu_read_unlock();
			return;
		}
		/* the neighbour's reference lasts for this RCU section */
		ipoib_get_ah(ah);
		rcu_read_unlock();
		skb_pull(skb, IPOIB_PSEUDO_LEN);
		ipoib_send(priv, skb, ah, ipoib_addr_qpn(daddr));
		ipoib_put_ah(ah);
		return;
	}
	rcu_read_unlock();
	ipoib_path_send(priv, skb, daddr);
}

static void ipoib_path_rec_done(int status, struct sa_path_rec *resp,
				int num_prs, void *context)
{
	struct ipoib_path *path = context;
	struct ipoib_dev_priv *priv = path->priv;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	path->querying = false;
	path->query = NULL;
	if (!status && (!resp || num_prs < 1))
		status = -ENODATA;
	if (!status)
		path->rec = *resp;
	path->status = status;
	path->result_ready = true;
	spin_unlock_irqrestore(&priv->lock, flags);

	queue_work(priv->wq, &priv->path_task);
	complete(&path->done);
	kref_put(&path->ref, ipoib_path_release);
}

/* Start the query the path task found wanted; the query holds a ref. */
static void ipoib_path_query(struct ipoib_dev_priv *priv,
			     struct ipoib_path *path)
{
	struct sa_path_rec rec = {
		.dgid		= path->dgid,
		.sgid		= priv->local_gid,
		.numb_path	= 1,
		.pkey		= cpu_to_be16(priv->pkey),
		.rec_type	= SA_PATH_REC_TYPE_IB,
	};
	struct ib_sa_query *query;
	unsigned long flags;
	int id;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->broadcast)
		rec.traffic_class = priv->broadcast->mcmember.traffic_class;
	spin_unlock_irqrestore(&priv->lock, flags);

	id = ib_sa_path_rec_get(&ipoib_sa_client, priv->ca, priv->port, &rec,
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_NUMB_PATH |
				IB_SA_PATH_REC_TRAFFIC_CLASS |
				IB_SA_PATH_REC_PKEY,
				IPOIB_PATH_TIMEOUT_MS, GFP_KERNEL,
				ipoib_path_rec_done, path, &query);
	if (id < 0) {
		/* no callback comes: answer ourselves */
		ipoib_path_rec_done(id, NULL, 0, path);
		return;
	}
	spin_lock_irqsave(&priv->lock, flags);
	if (path->querying) {
		path->query = query;
		path->query_id = id;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/* Whether a PathRecord answers for @path and can be used. */
static bool ipoib_path_rec_ok(const struct ipoib_path *path,
			      const struct sa_path_rec *rec)
{
	u16 dlid = be16_to_cpu(rec->dlid);

	return !memcmp(rec->dgid.raw, path->dgid.raw, sizeof(rec->dgid.raw)) &&
	       dlid && dlid < 0xc000;
}

/* The SA answered: make the AH, give it out, send what waited. */
static void ipoib_path_resolved(struct ipoib_dev_priv *priv,
				struct ipoib_path *path)
{
	struct ipoib_ah *ah = NULL, *old_path_ah = NULL;
	struct sk_buff_head held;
	struct rdma_ah_attr attr;
	struct ipoib_neigh *neigh;
	struct ipoib_ah **old;
	struct sa_path_rec rec;
	unsigned int n_old = 0;
	struct sk_buff *skb;
	unsigned long flags;
	int status;

	__skb_queue_head_init(&held);
	spin_lock_irqsave(&priv->lock, flags);
	status = path->status;
	rec = path->rec;
	spin_unlock_irqrestore(&priv->lock, flags);

	if (!status && !ipoib_path_rec_ok(path, &rec))
		status = -EPROTO;
	if (!status)
		status = ib_init_ah_attr_from_path(priv->ca, priv->port, &rec,
						   &attr);
	if (!status) {
		ah = ipoib_create_ah(priv, &attr);
		if (IS_ERR(ah)) {
			status = PTR_ERR(ah);
			ah = NULL;
		}
	}
	if (status)
		netdev_dbg(priv->dev, "no path to %pI6: %d\n", path->dgid.raw,
			   status);

	spin_lock_irqsave(&priv->lock, flags);
	if (RB_EMPTY_NODE(&path->node)) {
		/* flushed meanwhile: the flush dropped what was held */
		spin_unlock_irqrestore(&priv->lock, flags);
		ipoib_put_ah(ah);
		return;
	}
	skb_queue_splice_init(&path->queue, &held);
	if (!ah) {
		spin_unlock_irqrestore(&priv->lock, flags);
		while ((skb = __skb_dequeue(&held))) {
			ipoib_count(priv, tx_no_path);
			ipoib_tx_dropped(priv, skb);
		}
		return;
	}

	old_path_ah = path->ah;
	path->ah = ah;
	path->valid = true;
	list_for_each_entry(neigh, &path->neighs, path_entry)
		n_old++;
	old = kcalloc(n_old, sizeof(*old), GFP_ATOMIC);
	n_old = 0;
	list_for_each_entry(neigh, &path->neighs, path_entry) {
		struct ipoib_ah *prev;

		prev = rcu_dereference_protected(neigh->ah,
						 lockdep_is_held(&priv->lock));
		if (prev == ah)
			continue;
		if (prev && !old) {
			/* no room to remember it: the neighbour keeps it */
			continue;
		}
		ipoib_get_ah(ah);
		rcu_assign_pointer(neigh->ah, ah);
		if (prev)
			old[n_old++] = prev;
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	/* senders may still hold the replaced AHs from their RCU lookup */
	if (n_old)
		synchronize_rcu();
	while (n_old)
		ipoib_put_ah(old[--n_old]);
	kfree(old);
	ipoib_put_ah(old_path_ah);

	while ((skb = __skb_dequeue(&held)))
		dev_queue_xmit(skb);
}

/**
 * ipoib_path_task - start wanted PathRecord queries and use the answers
 * @work: priv->path_task
 *
 * Context: the interface's work queue.
 */
void ipoib_path_task(struct work_struct *work)
{
	struct ipoib_dev_priv *priv =
		container_of(work, struct ipoib_dev_priv, path_task);
	struct ipoib_path *path;
	unsigned long flags;

restart:
	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(path, &priv->path_list, list) {
		if (path->result_ready) {
			path->result_ready = false;
			kref_get(&path->ref);
			spin_unlock_irqrestore(&priv->lock, flags);
			ipoib_path_resolved(priv, path);
			kref_put(&path->ref, ipoib_path_release);
			goto restart;
		}
		if (path->want_query && !path->querying &&
		    test_bit(IPOIB_FLAG_OPER_UP, &priv->flags)) {
			path->want_query = false;
			path->querying = true;
			reinit_completion(&path->done);
			kref_get(&path->ref);
			spin_unlock_irqrestore(&priv->lock, flags);
			ipoib_path_query(priv, path);
			goto restart;
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * ipoib_mark_paths_invalid - make every path ask the SA again
 * @priv: the interface
 *
 * The old AHs stay in use until the answers come (light flush).
 *
 * Context: process context.
 */
void ipoib_mark_paths_invalid(struct ipoib_dev_priv *priv)
{
	struct ipoib_path *path;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(path, &priv->path_list, list) {
		path->valid = false;
		if (!path->querying)
			path->want_query = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	queue_work(priv->wq, &priv->path_task);
}

/*
 * A path out of the tree (priv->lock was held when it was taken out):
 * its query cancelled and waited for, what it held dropped, its AH and
 * tree reference released.
 */
static void ipoib_path_end(struct ipoib_dev_priv *priv,
			   struct ipoib_path *path)
{
	struct ib_sa_query *query;
	struct sk_buff *skb;
	unsigned long flags;
	struct ipoib_ah *ah;
	int id;

	spin_lock_irqsave(&priv->lock, flags);
	query = path->querying ? path->query : NULL;
	id = path->query_id;
	spin_unlock_irqrestore(&priv->lock, flags);
	/* the SA client ignores a query that has already ended */
	if (query)
		ib_sa_cancel_query(id, query);
	wait_for_completion(&path->done);

	spin_lock_irqsave(&priv->lock, flags);
	ah = path->ah;
	path->ah = NULL;
	spin_unlock_irqrestore(&priv->lock, flags);
	while ((skb = skb_dequeue(&path->queue)))
		ipoib_tx_dropped(priv, skb);
	ipoib_put_ah(ah);
	kref_put(&path->ref, ipoib_path_release);
}

/**
 * ipoib_flush_paths - forget every neighbour and path
 * @priv: the interface, no longer OPER_UP
 *
 * Context: process context; waits for the SA's callbacks.
 */
void ipoib_flush_paths(struct ipoib_dev_priv *priv)
{
	struct ipoib_neigh *neigh;
	struct ipoib_path *path, *tmp;
	struct hlist_node *n;
	unsigned long flags;
	LIST_HEAD(paths);
	int bkt;

	spin_lock_irqsave(&priv->lock, flags);
	hash_for_each_safe(priv->neigh_hash, bkt, n, neigh, hnode)
		ipoib_neigh_unlink(neigh);
	list_for_each_entry_safe(path, tmp, &priv->path_list, list) {
		rb_erase(&path->node, &priv->path_tree);
		RB_CLEAR_NODE(&path->node);
		list_move_tail(&path->list, &paths);
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(path, tmp, &paths, list) {
		list_del(&path->list);
		ipoib_path_end(priv, path);
	}
}

/**
 * ipoib_gc_task - free idle neighbours, paths and send-only groups
 * @work: priv->gc_task
 *
 * Context: the interface's work queue; runs every IPOIB_GC_INTERVAL_SEC
 * while the interface is up.
 */
void ipoib_gc_task(struct work_struct *work)
{
	struct ipoib_dev_priv *priv =
		container_of(work, struct ipoib_dev_priv, gc_task.work);
	unsigned long idle = IPOIB_NEIGH_IDLE_SEC * HZ;
	struct ipoib_path *path, *tmp;
	struct ipoib_neigh *neigh;
	struct hlist_node *n;
	unsigned long flags;
	LIST_HEAD(paths);
	int bkt;

	spin_lock_irqsave(&priv->lock, flags);
	hash_for_each_safe(priv->neigh_hash, bkt, n, neigh, hnode)
		if (time_after(jiffies, READ_ONCE(neigh->alive) + idle))
			ipoib_neigh_unlink(neigh);
	list_for_each_entry_safe(path, tmp, &priv->path_list, list) {
		if (!list_empty(&path->neighs) || path->querying ||
		    path->want_query || path->result_ready ||
		    !skb_queue_empty(&path->queue))
			continue;
		rb_erase(&path->node, &priv->path_tree);
		RB_CLEAR_NODE(&path->node);
		list_move_tail(&path->list, &paths);
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(path, tmp, &paths, list) {
		list_del(&path->list);
		ipoib_path_end(priv, path);
	}
	ipoib_mcast_gc(priv);
	ipoib_cm_gc(priv);

	if (test_bit(IPOIB_FLAG_OPER_UP, &priv->flags) &&
	    !test_bit(IPOIB_FLAG_DYING, &priv->flags))
		queue_delayed_work(priv->wq, &priv->gc_task,
				   IPOIB_GC_INTERVAL_SEC * HZ);
}
