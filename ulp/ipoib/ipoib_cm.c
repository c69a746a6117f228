// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connected mode (draft-ietf-ipoib-connected-mode): IPoIB frames over RC
 * connections that the IB CM makes, messages up to IPOIB_CM_BUF_SIZE
 * bytes, so that the MTU can be 65520.
 *
 * While an interface is in connected mode its hardware address carries
 * the flags byte IPOIB_HWADDR_RC, and it listens on the service ID
 * IPOIB_CM_IETF_ID | its UD QPN.  Every connection carries frames one
 * way:
 *   - active (struct ipoib_cm_tx): made on the first unicast frame to a
 *     neighbour whose address has the RC flag, one per neighbour; the
 *     frames sent meanwhile wait on it (IPOIB_MAX_PATH_QUEUE at most).
 *     A peer that rejects the REQ, or does not answer, is sent datagrams
 *     from then on (the neighbour remembers it until it is collected);
 *   - passive (struct ipoib_cm_rx): one per peer that connects to us, at
 *     most IPOIB_CM_MAX_RX, its QP on the interface's SRQ.  One that
 *     receives nothing for IPOIB_CM_RX_IDLE_SEC is ended (ipoib_cm_gc()).
 * The REQ and REP carry struct ipoib_cm_data: the sender's UD QPN and
 * the largest message it receives.  Both come from the fabric and are
 * checked: a REQ that is not RC, names another partition or port, or
 * whose private data is out of bounds is rejected with a reason, as is a
 * REQ beyond IPOIB_CM_MAX_RX; a REP whose private data is out of bounds
 * or names another QP than the one we asked for is rejected and the peer
 * sent datagrams.  Frames received on a connection are checked as
 * datagrams are (EtherType, ARP), the ARP sender against the peer's UD
 * QPN.  A frame longer than a connection (or a datagram) carries is
 * answered with ICMP "fragmentation needed" / "packet too big".
 *
 * The connections use the interface's PD and CQs; their requests carry
 * IPOIB_OP_CM in wr_id, and the NAPI instances of ipoib_ib.c hand their
 * completions here.  The sends of every active connection together are
 * bounded by priv->tx_size (cm.tx_outstanding): the queue stops when they
 * reach it and wakes when both they and the UD ring are half empty.
 *
 * Lifetimes: nothing is freed where it is found dead.  A connection that
 * ends (CM event, send error, neighbour collected or flushed, mode
 * switched, interface down) is detached and moved to a dead list under
 * priv->lock; the reap task then destroys its CM identifier (which sends
 * the DREQ, DREP or REJ the state asks for), moves its QP to ERR, waits
 * for its sends, and destroys the QP with both NAPI instances stopped
 * and the CQs swept, so that no completion names a QP that is gone.
 *
 * Locking:
 *   - priv->lock: the lists of struct ipoib_cm_dev, every connection's
 *     state, tx->neigh and neigh->cm (RCU readers on the send path:
 *     reaping waits for a grace period first);
 *   - cm.mutex: starting active connections, reaping, opening and
 *     stopping connected mode are serialised by it.  CM callbacks never
 *     take it (ib_destroy_cm_id() is called under it and waits for them);
 *   - the TX lock: an active connection's send ring's producer; its
 *     consumer is the send NAPI.  The SRQ's ring is only touched by the
 *     receive NAPI, or under cm.mutex with the NAPI instances stopped.
 */
#include <linux/icmpv6.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/dst.h>
#include <net/icmp.h>
#include <net/ip.h>

#include "ipoib.h"

/* the CM response timeout of our REQs (4.096 us * 2^20, about 4 s) */
#define IPOIB_CM_RESPONSE_TIMEOUT	20
#define IPOIB_CM_MAX_CM_RETRIES		15
/* retries of the RC transport: 7 is the most; RNR 7 retries for ever */
#define IPOIB_CM_RETRY_COUNT		7
#define IPOIB_CM_RNR_RETRY_COUNT	7

/* ------------------------------------------------------------------ */
/* Wire facts                                                          */
/* ------------------------------------------------------------------ */

/**
 * ipoib_cm_service_id - the service ID a port listens on
 * @qpn: its UD QPN
 *
 * Return: IPOIB_CM_IETF_ID | @qpn, big endian.
 */
VISIBLE_IF_KUNIT __be64 ipoib_cm_service_id(u32 qpn)
{
	return cpu_to_be64(IPOIB_CM_IETF_ID | (qpn & IPOIB_QPN_MASK));
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_service_id);

/**
 * ipoib_cm_build_data - the private data of our REQ or REP
 * @data: to fill
 * @qpn: our UD QPN
 * @mtu: the largest message we receive, encapsulation header included
 */
VISIBLE_IF_KUNIT void ipoib_cm_build_data(struct ipoib_cm_data *data,
					  u32 qpn, u32 mtu)
{
	data->qpn = cpu_to_be32(qpn);
	data->mtu = cpu_to_be32(mtu);
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_build_data);

/**
 * ipoib_cm_parse_data - check the private data of a peer's REQ or REP
 * @buf: the private data (at least sizeof(struct ipoib_cm_data) bytes:
 *	the CM hands the whole field, 92 bytes of a REQ, 196 of a REP)
 * @qpn: the peer's UD QPN, 2 to 0xffffff
 * @mtu: the largest message the peer receives, clamped to
 *	IPOIB_CM_BUF_SIZE
 *
 * Return: 0, or -EINVAL for a QPN no UD QP can have or a message size
 * smaller than IPOIB_CM_MIN_MSG.
 */
VISIBLE_IF_KUNIT int ipoib_cm_parse_data(const void *buf, u32 *qpn, u32 *mtu)
{
	struct ipoib_cm_data data;
	u32 q, m;

	if (!buf)
		return -EINVAL;
	memcpy(&data, buf, sizeof(data));
	q = be32_to_cpu(data.qpn);
	m = be32_to_cpu(data.mtu);
	if (q <= 1 || q > IPOIB_QPN_MASK || m < IPOIB_CM_MIN_MSG)
		return -EINVAL;
	*qpn = q;
	*mtu = min_t(u32, m, IPOIB_CM_BUF_SIZE);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_parse_data);

/**
 * ipoib_cm_supported - whether the HCA can carry connected mode
 * @priv: the interface
 *
 * Return: true if it has SRQs with a gather entry per page of a message.
 */
bool ipoib_cm_supported(struct ipoib_dev_priv *priv)
{
	const struct ib_device_attr *attrs = &priv->ca->attrs;

	return attrs->max_srq && attrs->max_srq_wr >= 2 &&
	       attrs->max_srq_sge >= IPOIB_CM_RX_SGE;
}

/**
 * ipoib_cm_skb_too_long - refuse a frame longer than its way carries
 * @priv: the interface
 * @skb: the frame, starting with the encapsulation header; consumed
 * @mtu: the largest IP packet the way carries
 *
 * The sender learns the MTU (ICMP fragmentation needed, ICMPv6 packet
 * too big), as with Linux's IPoIB.
 *
 * Context: the TX path.
 */
void ipoib_cm_skb_too_long(struct ipoib_dev_priv *priv, struct sk_buff *skb,
			   unsigned int mtu)
{
	dev_core_stats_tx_dropped_inc(priv->dev);
	if (skb_dst(skb))
		skb_dst_update_pmtu_no_confirm(skb, mtu);
	if (skb->protocol == htons(ETH_P_IP)) {
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
			      htonl(mtu));
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		icmpv6_ndo_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
	}
	dev_kfree_skb_any(skb);
}

/* ------------------------------------------------------------------ */
/* Dying connections                                                   */
/* ------------------------------------------------------------------ */

/*
 * An active connection ends: off its neighbour (which is sent datagrams
 * from now on if @refused), onto tx_dead.  Its waiting frames go to
 * @requeue, or are dropped by the reaper.  priv->lock held.
 */
static void __ipoib_cm_tx_kill(struct ipoib_dev_priv *priv,
			       struct ipoib_cm_tx *tx, bool refused,
			       struct sk_buff_head *requeue)
{
	if (tx->state == IPOIB_CM_TX_DEAD)
		return;
	if (tx->state == IPOIB_CM_TX_UP)
		atomic_long_dec(&priv->counters.cm_tx_conns);
	if (tx->state == IPOIB_CM_TX_NEW)
		list_del_init(&tx->start);
	/* pairs with the acquire in ipoib_cm_xmit() */
	smp_store_release(&tx->state, IPOIB_CM_TX_DEAD);
	if (tx->neigh) {
		RCU_INIT_POINTER(tx->neigh->cm, NULL);
		if (refused)
			tx->neigh->cm_failed = true;
		tx->neigh = NULL;
	}
	if (requeue)
		skb_queue_splice_tail_init(&tx->queue, requeue);
	list_move_tail(&tx->list, &priv->cm.tx_dead);
	queue_work(priv->wq, &priv->cm.reap_task);
}

/* The frames that waited for a connection, sent again (as datagrams). */
static void ipoib_cm_requeue(struct sk_buff_head *queue)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(queue)))
		dev_queue_xmit(skb);
}

/* An active connection failed or ended; see __ipoib_cm_tx_kill(). */
static void ipoib_cm_tx_fail(struct ipoib_dev_priv *priv,
			     struct ipoib_cm_tx *tx, bool refused)
{
	struct sk_buff_head requeue;
	unsigned long flags;

	__skb_queue_head_init(&requeue);
	spin_lock_irqsave(&priv->lock, flags);
	__ipoib_cm_tx_kill(priv, tx, refused, refused ? &requeue : NULL);
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_cm_requeue(&requeue);
}

/* A passive connection ends.  priv->lock held. */
static void __ipoib_cm_rx_kill(struct ipoib_dev_priv *priv,
			       struct ipoib_cm_rx *rx)
{
	if (rx->dead)
		return;
	rx->dead = true;
	list_move_tail(&rx->list, &priv->cm.rx_dead);
	queue_work(priv->wq, &priv->cm.reap_task);
}

static void ipoib_cm_rx_kill(struct ipoib_dev_priv *priv,
			     struct ipoib_cm_rx *rx)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	__ipoib_cm_rx_kill(priv, rx);
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * ipoib_cm_neigh_unlink - a neighbour goes: its connection with it
 * @priv: the interface
 * @neigh: the neighbour, being unlinked
 *
 * Context: priv->lock held.
 */
void ipoib_cm_neigh_unlink(struct ipoib_dev_priv *priv,
			   struct ipoib_neigh *neigh)
{
	struct ipoib_cm_tx *tx;

	tx = rcu_dereference_protected(neigh->cm, lockdep_is_held(&priv->lock));
	if (tx)
		__ipoib_cm_tx_kill(priv, tx, false, NULL);
}

/**
 * ipoib_cm_gc - end the passive connections that went idle
 * @priv: the interface
 *
 * Context: the GC task.
 */
void ipoib_cm_gc(struct ipoib_dev_priv *priv)
{
	unsigned long idle = IPOIB_CM_RX_IDLE_SEC * HZ;
	struct ipoib_cm_rx *rx, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry_safe(rx, tmp, &priv->cm.rx_list, list) {
		if (time_after(jiffies, READ_ONCE(rx->alive) + idle)) {
			ipoib_count(priv, cm_rx_stale);
			__ipoib_cm_rx_kill(priv, rx);
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/* Every send of @tx completed or flushed, or the time is up. */
static bool ipoib_cm_tx_idle(struct ipoib_cm_tx *tx)
{
	return tx->tx_head == READ_ONCE(tx->tx_tail);
}

/* What is left of a connection whose QP is in ERR and swept. */
static void ipoib_cm_tx_free(struct ipoib_dev_priv *priv,
			     struct ipoib_cm_tx *tx)
{
	while (tx->ring && tx->tx_tail != tx->tx_head) {
		struct ipoib_tx_buf *buf =
			&tx->ring[tx->tx_tail & (priv->tx_size - 1)];

		if (buf->skb) {
			ipoib_tx_unmap(priv, buf);
			dev_kfree_skb_any(buf->skb);
			buf->skb = NULL;
			atomic_dec(&priv->cm.tx_outstanding);
		}
		tx->tx_tail++;
	}
	if (tx->qp)
		ib_destroy_qp(tx->qp);
	skb_queue_purge(&tx->queue);
	kvfree(tx->ring);
	kfree(tx);
}

static int ipoib_cm_qp_to_err(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return qp ? ib_modify_qp(qp, &attr, IB_QP_STATE) : 0;
}

/*
 * Destroy the dead connections.  cm.mutex held; the NAPI instances run
 * (they are stopped here for a moment) if the interface is initialised.
 */
static void ipoib_cm_reap(struct ipoib_dev_priv *priv)
{
	unsigned long end = jiffies + msecs_to_jiffies(IPOIB_DRAIN_TIMEOUT_MS);
	bool napi_on = test_bit(IPOIB_FLAG_INITIALIZED, &priv->flags);
	struct ipoib_cm_rx *rx, *rtmp;
	struct ipoib_cm_tx *tx, *ttmp;
	unsigned long flags;
	LIST_HEAD(rx_dead);
	LIST_HEAD(tx_dead);
	bool busy;

	lockdep_assert_held(&priv->cm.mutex);
	spin_lock_irqsave(&priv->lock, flags);
	list_splice_init(&priv->cm.rx_dead, &rx_dead);
	list_splice_init(&priv->cm.tx_dead, &tx_dead);
	spin_unlock_irqrestore(&priv->lock, flags);
	if (list_empty(&rx_dead) && list_empty(&tx_dead))
		return;

	/* senders that found a connection under RCU are done with it */
	synchronize_rcu();
	/* no callback runs after this; the CM ends the connection */
	list_for_each_entry(rx, &rx_dead, list) {
		ib_destroy_cm_id(rx->id);
		/* one still in RESET never took a WQE */
		if (ipoib_cm_qp_to_err(rx->qp))
			WRITE_ONCE(rx->drained, true);
	}
	list_for_each_entry(tx, &tx_dead, list) {
		if (tx->id)
			ib_destroy_cm_id(tx->id);
		ipoib_cm_qp_to_err(tx->qp);
	}

	/*
	 * The flushed sends come back through the send NAPI; a passive QP
	 * may still hold an SRQ WQE until its Last WQE Reached event.
	 */
	for (;;) {
		busy = false;
		list_for_each_entry(rx, &rx_dead, list)
			busy |= !READ_ONCE(rx->drained);
		list_for_each_entry(tx, &tx_dead, list)
			busy |= napi_on && !ipoib_cm_tx_idle(tx);
		if (!busy)
			break;
		if (time_after(jiffies, end)) {
			netdev_warn(priv->dev, "connections not drained after %u ms\n",
				    IPOIB_DRAIN_TIMEOUT_MS);
			break;
		}
		usleep_range(1000, 2000);
	}

	if (napi_on) {
		napi_disable(&priv->recv_napi);
		napi_disable(&priv->send_napi);
		ipoib_sweep_cqs(priv);
	}
	list_for_each_entry_safe(rx, rtmp, &rx_dead, list) {
		ib_destroy_qp(rx->qp);
		spin_lock_irqsave(&priv->lock, flags);
		priv->cm.n_rx--;
		spin_unlock_irqrestore(&priv->lock, flags);
		atomic_long_dec(&priv->counters.cm_rx_conns);
		kfree(rx);
	}
	list_for_each_entry_safe(tx, ttmp, &tx_dead, list)
		ipoib_cm_tx_free(priv, tx);
	if (napi_on) {
		napi_enable(&priv->recv_napi);
		napi_enable(&priv->send_napi);
		/* a CQ event that came meanwhile found them stopped */
		napi_schedule(&priv->recv_napi);
		napi_schedule(&priv->send_napi);
		netif_tx_lock_bh(priv->dev);
		if (netif_queue_stopped(priv->dev) && ipoib_tx_may_wake(priv))
			netif_wake_queue(priv->dev);
		netif_tx_unlock_bh(priv->dev);
	}
}

static void ipoib_cm_reap_task(struct work_struct *work)
{
	struct ipoib_dev_priv *priv =
		container_of(work, struct ipoib_dev_priv, cm.reap_task);

	mutex_lock(&priv->cm.mutex);
	ipoib_cm_reap(priv);
	mutex_unlock(&priv->cm.mutex);
}

static void ipoib_cm_qp_event(struct ib_event *event, void *context)
{
	if (event->event != IB_EVENT_COMM_EST)
		pr_debug("connected mode QP event %s\n",
			 ib_event_msg(event->event));
}

/* The same for a passive connection, whose QP is on the SRQ. */
static void ipoib_cm_rx_qp_event(struct ib_event *event, void *context)
{
	struct ipoib_cm_rx *rx = context;

	if (event->event == IB_EVENT_QP_LAST_WQE_REACHED)
		WRITE_ONCE(rx->drained, true);
	else
		ipoib_cm_qp_event(event, context);
}

/* ------------------------------------------------------------------ */
/* Receive: the SRQ                                                    */
/* ------------------------------------------------------------------ */

static void ipoib_cm_unmap_rx(struct ipoib_dev_priv *priv,
			      struct ipoib_cm_rx_buf *buf, unsigned int pages)
{
	unsigned int i;

	ib_dma_unmap_single(priv->ca, buf->mapping[0], IPOIB_CM_HEAD_SIZE,
			    DMA_FROM_DEVICE);
	for (i = 0; i < pages; i++)
		ib_dma_unmap_page(priv->ca, buf->mapping[i + 1], PAGE_SIZE,
				  DMA_FROM_DEVICE);
}

/* A new head (and pages @first to IPOIB_CM_RX_PAGES - 1) for @buf. */
static int ipoib_cm_alloc_rx(struct ipoib_dev_priv *priv,
			     struct ipoib_cm_rx_buf *buf, unsigned int first,
			     gfp_t gfp)
{
	struct sk_buff *skb;
	unsigned int i;
	u64 addr;

	skb = __netdev_alloc_skb(priv->dev, IPOIB_CM_HEAD_SIZE, gfp);
	if (!skb)
		return -ENOMEM;
	addr = ib_dma_map_single(priv->ca, skb->data, IPOIB_CM_HEAD_SIZE,
				 DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(priv->ca, addr))
		goto err_skb;
	buf->skb = skb;
	buf->mapping[0] = addr;

	for (i = first; i < IPOIB_CM_RX_PAGES; i++) {
		struct page *page = alloc_page(gfp);

		if (!page)
			goto err_pages;
		addr = ib_dma_map_page(priv->ca, page, 0, PAGE_SIZE,
				       DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(priv->ca, addr)) {
			__free_page(page);
			goto err_pages;
		}
		buf->pages[i] = page;
		buf->mapping[i + 1] = addr;
	}
	return 0;

err_pages:
	while (i-- > first) {
		ib_dma_unmap_page(priv->ca, buf->mapping[i + 1], PAGE_SIZE,
				  DMA_FROM_DEVICE);
		__free_page(buf->pages[i]);
		buf->pages[i] = NULL;
	}
	ib_dma_unmap_single(priv->ca, buf->mapping[0], IPOIB_CM_HEAD_SIZE,
			    DMA_FROM_DEVICE);
	buf->skb = NULL;
err_skb:
	dev_kfree_skb_any(skb);
	return -ENOMEM;
}

static void ipoib_cm_free_rx(struct ipoib_dev_priv *priv,
			     struct ipoib_cm_rx_buf *buf)
{
	unsigned int i;

	if (!buf->skb)
		return;
	ipoib_cm_unmap_rx(priv, buf, IPOIB_CM_RX_PAGES);
	dev_kfree_skb_any(buf->skb);
	buf->skb = NULL;
	for (i = 0; i < IPOIB_CM_RX_PAGES; i++) {
		if (buf->pages[i])
			__free_page(buf->pages[i]);
		buf->pages[i] = NULL;
	}
}

static int ipoib_cm_post_rx(struct ipoib_dev_priv *priv, unsigned int id)
{
	struct ipoib_cm_rx_buf *buf = &priv->cm.rx_ring[id];
	struct ib_sge sge[IPOIB_CM_RX_SGE];
	struct ib_recv_wr wr = {
		.wr_id	 = id | IPOIB_OP_CM,
		.sg_list = sge,
		.num_sge = IPOIB_CM_RX_SGE,
	};
	unsigned int i;
	int ret;

	sge[0] = (struct ib_sge) {
		.addr	= buf->mapping[0],
		.length	= IPOIB_CM_HEAD_SIZE,
		.lkey	= priv->pd->local_dma_lkey,
	};
	for (i = 1; i < IPOIB_CM_RX_SGE; i++)
		sge[i] = (struct ib_sge) {
			.addr	= buf->mapping[i],
			.length	= PAGE_SIZE,
			.lkey	= priv->pd->local_dma_lkey,
		};
	ib_dma_sync_single_for_device(priv->ca, buf->mapping[0],
				      IPOIB_CM_HEAD_SIZE, DMA_FROM_DEVICE);
	ret = ib_post_srq_recv(priv->cm.srq, &wr, NULL);
	if (ret)
		ipoib_cm_free_rx(priv, buf);
	return ret;
}

/*
 * The frame in slot @id, @len bytes, as an skb of its own: a copy of a
 * short one, else the head and the pages it filled, replaced on the ring.
 * NULL without memory (the slot keeps its buffer).
 */
static struct sk_buff *ipoib_cm_rx_take(struct ipoib_dev_priv *priv,
					unsigned int id, u32 len)
{
	struct ipoib_cm_rx_buf *buf = &priv->cm.rx_ring[id];
	struct ipoib_cm_rx_buf fresh = {};
	unsigned int pages, i;
	struct sk_buff *skb;

	if (len <= IPOIB_RX_COPYBREAK) {
		skb = napi_alloc_skb(&priv->recv_napi, len);
		if (skb)
			skb_put_data(skb, buf->skb->data, len);
		return skb;
	}

	pages = len > IPOIB_CM_HEAD_SIZE ?
		DIV_ROUND_UP(len - IPOIB_CM_HEAD_SIZE, PAGE_SIZE) : 0;
	/* new pages for those the frame filled, the others stay */
	if (ipoib_cm_alloc_rx(priv, &fresh, IPOIB_CM_RX_PAGES - pages,
			      GFP_ATOMIC))
		return NULL;
	ipoib_cm_unmap_rx(priv, buf, pages);

	skb = buf->skb;
	skb_put(skb, min_t(u32, len, IPOIB_CM_HEAD_SIZE));
	for (i = 0; i < pages; i++) {
		u32 off = IPOIB_CM_HEAD_SIZE + i * PAGE_SIZE;
		unsigned int size = min_t(u32, len - off, PAGE_SIZE);

		skb_add_rx_frag(skb, i, buf->pages[i], 0, size, PAGE_SIZE);
		/* the fresh pages sit at the end of their array: move them */
		buf->pages[i] = fresh.pages[IPOIB_CM_RX_PAGES - pages + i];
		buf->mapping[i + 1] =
			fresh.mapping[IPOIB_CM_RX_PAGES - pages + i + 1];
	}
	buf->skb = fresh.skb;
	buf->mapping[0] = fresh.mapping[0];
	return skb;
}

/* The verdict on a frame received on a connection from @rx. */
static enum ipoib_rx_verdict ipoib_cm_rx_check(const u8 *head, u32 len,
					       const struct ipoib_cm_rx *rx)
{
	const struct ipoib_header *hdr = (const struct ipoib_header *)head;

	if (len < IPOIB_ENCAP_LEN)
		return IPOIB_RX_SHORT;
	switch (ntohs(hdr->proto)) {
	case ETH_P_IP:
	case ETH_P_IPV6:
	case ETH_P_RARP:
		return IPOIB_RX_OK;
	case ETH_P_ARP:
		len = min_t(u32, len, IPOIB_CM_HEAD_SIZE) - IPOIB_ENCAP_LEN;
		return ipoib_rx_check_arp(head + IPOIB_ENCAP_LEN, len, NULL,
					  rx->remote_qpn);
	default:
		return IPOIB_RX_BAD_PROTO;
	}
}

/**
 * ipoib_cm_rx_completion - a receive completion of the SRQ
 * @priv: the interface
 * @wc: the completion, IPOIB_OP_CM in its wr_id
 *
 * Context: the receive NAPI (or a sweep with it stopped).
 */
void ipoib_cm_rx_completion(struct ipoib_dev_priv *priv, struct ib_wc *wc)
{
	unsigned int id = wc->wr_id & ~IPOIB_OP_CM;
	struct net_device *dev = priv->dev;
	enum ipoib_rx_verdict verdict;
	struct ipoib_cm_rx_buf *buf;
	struct ipoib_cm_rx *rx;
	struct sk_buff *skb;
	__be16 proto;
	u32 len;

	if (WARN_ON_ONCE(id >= priv->cm.rx_size || !priv->cm.rx_ring ||
			 !priv->cm.rx_ring[id].skb))
		return;
	buf = &priv->cm.rx_ring[id];

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			ipoib_count(priv, rx_wc_error);
			dev->stats.rx_errors++;
			netdev_dbg(dev, "connected mode receive: %s\n",
				   ib_wc_status_msg(wc->status));
		}
		goto repost;
	}

	/* the QP outlives its completions (see ipoib_cm_reap()) */
	rx = wc->qp->qp_context;
	if (time_after(jiffies, READ_ONCE(rx->alive)))
		WRITE_ONCE(rx->alive, jiffies);

	len = min_t(u32, wc->byte_len,
		    IPOIB_CM_HEAD_SIZE + IPOIB_CM_RX_PAGES * PAGE_SIZE);
	ib_dma_sync_single_for_cpu(priv->ca, buf->mapping[0],
				   IPOIB_CM_HEAD_SIZE, DMA_FROM_DEVICE);
	verdict = ipoib_cm_rx_check(buf->skb->data, len, rx);
	if (verdict != IPOIB_RX_OK) {
		ipoib_count(priv, cm_rx_drop);
		ipoib_rx_drop(priv, verdict);
		goto repost;
	}

	skb = ipoib_cm_rx_take(priv, id, len);
	if (!skb) {
		ipoib_count(priv, rx_no_buffer);
		ipoib_count(priv, cm_rx_drop);
		dev_core_stats_rx_dropped_inc(dev);
		goto repost;
	}

	proto = ((struct ipoib_header *)skb->data)->proto;
	memset(skb_push(skb, IPOIB_PSEUDO_LEN), 0, IPOIB_PSEUDO_LEN);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPOIB_HARD_LEN);
	skb->protocol = proto;
	skb->pkt_type = PACKET_HOST;
	skb->dev = dev;
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += skb->len;
	napi_gro_receive(&priv->recv_napi, skb);

repost:
	if (ipoib_cm_post_rx(priv, id))
		netdev_warn_once(dev, "a connected mode buffer could not be posted\n");
}

/* ------------------------------------------------------------------ */
/* Passive connections                                                 */
/* ------------------------------------------------------------------ */

static struct ib_qp *ipoib_cm_create_qp(struct ipoib_dev_priv *priv,
					void *context, unsigned int send_wr,
					void (*handler)(struct ib_event *,
							void *))
{
	struct ib_qp_init_attr attr = {
		.event_handler	= handler,
		.qp_context	= context,
		.send_cq	= priv->send_cq,
		.recv_cq	= priv->recv_cq,
		.srq		= priv->cm.srq,
		.cap.max_send_wr  = send_wr,
		.cap.max_send_sge = priv->max_send_sge,
		.sq_sig_type	= IB_SIGNAL_ALL_WR,
		.qp_type	= IB_QPT_RC,
	};

	return ib_create_qp(priv->pd, &attr);
}

/* The QP through the states @states, with what the CM says of each. */
static int ipoib_cm_modify_qp(struct ib_cm_id *id, struct ib_qp *qp,
			      const enum ib_qp_state *states, int n,
			      const u32 *rq_psn)
{
	struct ib_qp_attr attr;
	int mask, ret, i;

	for (i = 0; i < n; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = states[i];
		ret = ib_cm_init_qp_attr(id, &attr, &mask);
		/*
		 * A passive side in RTR before its REP is out receives from
		 * the PSN that REP will name, which the CM cannot know yet
		 */
		if (!ret && rq_psn && states[i] == IB_QPS_RTR)
			attr.rq_psn = *rq_psn;
		if (!ret)
			ret = ib_modify_qp(qp, &attr, mask);
		if (ret)
			return ret;
	}
	return 0;
}

/* Refuse a REQ; the CM destroys the identifier when we return non-zero. */
static int ipoib_cm_req_refuse(struct ipoib_dev_priv *priv,
			       struct ib_cm_id *id,
			       enum ib_cm_rej_reason reason, const char *why)
{
	ipoib_count(priv, cm_rx_refused);
	netdev_dbg(priv->dev, "connection refused: %s\n", why);
	ib_send_cm_rej(id, reason, NULL, 0, NULL, 0);
	return -EINVAL;
}

static int ipoib_cm_req_handler(struct ib_cm_id *id,
				const struct ib_cm_event *event)
{
	static const enum ib_qp_state states[] = { IB_QPS_INIT, IB_QPS_RTR };
	static const enum ib_qp_state rts[] = { IB_QPS_RTS };
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	struct ipoib_dev_priv *priv = id->context;
	struct ib_cm_rep_param rep = {};
	struct ipoib_cm_data data;
	struct ipoib_cm_rx *rx;
	unsigned long flags;
	u32 qpn, mtu;
	int ret;

	if (req->qp_type != IB_QPT_RC)
		return ipoib_cm_req_refuse(priv, id,
					   IB_CM_REJ_INVALID_TRANSPORT_TYPE,
					   "not RC");
	if (req->port != priv->port || !req->primary_path ||
	    (be16_to_cpu(req->primary_path->pkey) & 0x7fff) !=
	    (priv->pkey & 0x7fff))
		return ipoib_cm_req_refuse(priv, id,
					   IB_CM_REJ_INVALID_SERVICE_ID,
					   "another port or partition");
	if (ipoib_cm_parse_data(event->private_data, &qpn, &mtu))
		return ipoib_cm_req_refuse(priv, id,
					   IB_CM_REJ_CONSUMER_DEFINED,
					   "bad private data");

	rx = kzalloc(sizeof(*rx), GFP_KERNEL);
	if (!rx)
		return ipoib_cm_req_refuse(priv, id, IB_CM_REJ_NO_RESOURCES,
					   "no memory");
	rx->priv = priv;
	rx->remote_qpn = qpn;
	rx->alive = jiffies;
	INIT_LIST_HEAD(&rx->list);

	/* a place among the passive connections, while there is one */
	spin_lock_irqsave(&priv->lock, flags);
	if (!priv->cm.running || priv->cm.n_rx >= IPOIB_CM_MAX_RX) {
		spin_unlock_irqrestore(&priv->lock, flags);
		kfree(rx);
		return ipoib_cm_req_refuse(priv, id, IB_CM_REJ_NO_RESOURCES,
					   "no room");
	}
	priv->cm.n_rx++;
	spin_unlock_irqrestore(&priv->lock, flags);

	rx->qp = ipoib_cm_create_qp(priv, rx, 1, ipoib_cm_rx_qp_event);
	if (IS_ERR(rx->qp)) {
		ret = PTR_ERR(rx->qp);
		goto err_place;
	}

	spin_lock_irqsave(&priv->lock, flags);
	if (!priv->cm.running) {
		spin_unlock_irqrestore(&priv->lock, flags);
		ret = -ENODEV;
		goto err_qp;
	}
	/* from here on the reaper ends it, whatever happens */
	rx->id = id;
	id->context = rx;
	list_add_tail(&rx->list, &priv->cm.rx_list);
	atomic_long_inc(&priv->counters.cm_rx_conns);
	spin_unlock_irqrestore(&priv->lock, flags);

	rep.starting_psn = get_random_u32() & 0xffffff;
	ret = ipoib_cm_modify_qp(id, rx->qp, states, ARRAY_SIZE(states),
				 &rep.starting_psn);
	if (ret) {
		netdev_warn(priv->dev, "passive QP: %d\n", ret);
		goto err_kill;
	}
	ipoib_cm_build_data(&data, priv->qp->qp_num, IPOIB_CM_BUF_SIZE);
	rep.qp_num = rx->qp->qp_num;
	rep.private_data = &data;
	rep.private_data_len = sizeof(data);
	rep.rnr_retry_count = IPOIB_CM_RNR_RETRY_COUNT;
	rep.srq = 1;
	ret = ib_send_cm_rep(id, &rep);
	if (ret) {
		netdev_warn(priv->dev, "REP: %d\n", ret);
		goto err_kill;
	}
	/* RTR receives; RTS (known once the REP is out) is for good form */
	ret = ipoib_cm_modify_qp(id, rx->qp, rts, ARRAY_SIZE(rts), NULL);
	if (ret)
		netdev_dbg(priv->dev, "passive QP to RTS: %d\n", ret);
	ipoib_count(priv, cm_rx_accepted);
	netdev_dbg(priv->dev, "connection from QPN 0x%06x accepted\n", qpn);
	return 0;

err_kill:
	ipoib_count(priv, cm_rx_refused);
	ipoib_cm_rx_kill(priv, rx);
	return 0;

err_qp:
	ib_destroy_qp(rx->qp);
err_place:
	spin_lock_irqsave(&priv->lock, flags);
	priv->cm.n_rx--;
	spin_unlock_irqrestore(&priv->lock, flags);
	kfree(rx);
	return ipoib_cm_req_refuse(priv, id, IB_CM_REJ_NO_RESOURCES,
				   "no QP");
}

/* The listener's callback (REQs), and that of every passive connection. */
static int ipoib_cm_rx_handler(struct ib_cm_id *id,
			       const struct ib_cm_event *event)
{
	struct ipoib_cm_rx *rx;

	if (event->event == IB_CM_REQ_RECEIVED)
		return ipoib_cm_req_handler(id, event);

	rx = id->context;
	switch (event->event) {
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		fallthrough;
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
	case IB_CM_TIMEWAIT_EXIT:
		ipoib_cm_rx_kill(rx->priv, rx);
		break;
	default:
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Active connections                                                  */
/* ------------------------------------------------------------------ */

/**
 * ipoib_cm_tx_completion - a send completion of an active connection
 * @priv: the interface
 * @wc: the completion, IPOIB_OP_CM in its wr_id
 *
 * Context: the send NAPI (or a sweep with it stopped).
 */
void ipoib_cm_tx_completion(struct ipoib_dev_priv *priv, struct ib_wc *wc)
{
	unsigned int id = wc->wr_id & ~IPOIB_OP_CM;
	struct net_device *dev = priv->dev;
	struct ipoib_tx_buf *buf;
	struct ipoib_cm_tx *tx;

	/* the QP outlives its completions (see ipoib_cm_reap()) */
	tx = wc->qp->qp_context;
	if (WARN_ON_ONCE(id >= priv->tx_size || !tx->ring[id].skb))
		return;
	buf = &tx->ring[id];
	ipoib_tx_unmap(priv, buf);
	if (likely(wc->status == IB_WC_SUCCESS)) {
		dev->stats.tx_packets++;
		dev->stats.tx_bytes += buf->skb->len;
	} else if (wc->status != IB_WC_WR_FLUSH_ERR) {
		ipoib_count(priv, tx_wc_error);
		dev->stats.tx_errors++;
		netdev_dbg(dev, "connected mode send: %s\n",
			   ib_wc_status_msg(wc->status));
		/* the connection is broken: the next frame makes another */
		ipoib_cm_tx_fail(priv, tx, false);
	}
	dev_kfree_skb_any(buf->skb);
	buf->skb = NULL;
	WRITE_ONCE(tx->tx_tail, tx->tx_tail + 1);
	atomic_dec(&priv->cm.tx_outstanding);
	/* pairs with the barrier in ipoib_cm_send() */
	smp_mb__after_atomic();
	if (unlikely(netif_queue_stopped(dev)) && ipoib_tx_may_wake(priv))
		netif_wake_queue(dev);
}

static void ipoib_cm_tx_drop(struct ipoib_dev_priv *priv, struct sk_buff *skb)
{
	ipoib_count(priv, cm_tx_drop);
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
}

/* Put a frame (encapsulation header first) on an established connection. */
static void ipoib_cm_send(struct ipoib_dev_priv *priv, struct ipoib_cm_tx *tx,
			  struct sk_buff *skb)
{
	struct net_device *dev = priv->dev;
	struct ib_sge sge[MAX_SKB_FRAGS + 1];
	struct ipoib_tx_buf *buf;
	unsigned int head, slot;
	struct ib_send_wr wr;
	int ret;

	if (unlikely(skb->len > tx->mtu)) {
		ipoib_count(priv, cm_tx_drop);
		ipoib_cm_skb_too_long(priv, skb, tx->mtu - IPOIB_ENCAP_LEN);
		return;
	}
	if (skb_shinfo(skb)->nr_frags + 1 > priv->max_send_sge &&
	    skb_linearize(skb)) {
		ipoib_cm_tx_drop(priv, skb);
		return;
	}
	head = tx->tx_head;
	if (unlikely(atomic_read(&priv->cm.tx_outstanding) >= priv->tx_size ||
		     head - READ_ONCE(tx->tx_tail) >= priv->tx_size)) {
		netif_stop_queue(dev);
		ipoib_cm_tx_drop(priv, skb);
		return;
	}

	slot = head & (priv->tx_size - 1);
	buf = &tx->ring[slot];
	skb_orphan(skb);
	skb_dst_drop(skb);
	buf->skb = skb;
	buf->ah = NULL;
	if (ipoib_tx_map(priv, buf, sge)) {
		buf->skb = NULL;
		ipoib_cm_tx_drop(priv, skb);
		return;
	}
	wr = (struct ib_send_wr) {
		.wr_id		= slot | IPOIB_OP_CM,
		.sg_list	= sge,
		.num_sge	= buf->nr_maps,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};

	tx->tx_head = head + 1;
	if (atomic_inc_return(&priv->cm.tx_outstanding) >= priv->tx_size) {
		ipoib_count(priv, tx_ring_full);
		netif_stop_queue(dev);
		/* pairs with the barrier in ipoib_cm_tx_completion() */
		smp_mb__after_atomic();
		if (atomic_read(&priv->cm.tx_outstanding) < priv->tx_size)
			netif_wake_queue(dev);
	}

	ret = ib_post_send(tx->qp, &wr, NULL);
	if (unlikely(ret)) {
		tx->tx_head = head;
		atomic_dec(&priv->cm.tx_outstanding);
		ipoib_tx_unmap(priv, buf);
		buf->skb = NULL;
		ipoib_cm_tx_drop(priv, skb);
		if (netif_queue_stopped(dev))
			netif_wake_queue(dev);
		netdev_dbg(dev, "connected mode ib_post_send: %d\n", ret);
	}
}

/**
 * ipoib_cm_xmit - send a unicast frame over connected mode if it can go
 * @priv: the interface
 * @neigh: the destination's neighbour, with an AH (its path is known)
 * @skb: the frame, starting with the pseudo header
 *
 * Return: true if the frame was taken (sent, held for the connection
 * being made, or dropped); false if it is for datagrams: the interface
 * or the peer is not in connected mode, or the peer refused.
 *
 * Context: the TX lock and rcu_read_lock() held.
 */
bool ipoib_cm_xmit(struct ipoib_dev_priv *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb)
{
	struct ipoib_cm_tx *tx;
	unsigned long flags;

	if (!(neigh->daddr[0] & IPOIB_HWADDR_RC) || !ipoib_cm_admin(priv))
		return false;
	tx = rcu_dereference(neigh->cm);
	/* pairs with the release in ipoib_cm_rep_handler(): mtu is set */
	if (tx && smp_load_acquire(&tx->state) == IPOIB_CM_TX_UP)
		goto send;
	if (!tx && READ_ONCE(neigh->cm_failed))
		return false;

	spin_lock_irqsave(&priv->lock, flags);
	tx = rcu_dereference_protected(neigh->cm, lockdep_is_held(&priv->lock));
	if (tx) {
		if (tx->state == IPOIB_CM_TX_UP) {
			spin_unlock_irqrestore(&priv->lock, flags);
			goto send;
		}
		if (skb_queue_len(&tx->queue) >= IPOIB_MAX_PATH_QUEUE) {
			spin_unlock_irqrestore(&priv->lock, flags);
			ipoib_count(priv, tx_path_queue_full);
			ipoib_cm_tx_drop(priv, skb);
			return true;
		}
		__skb_queue_tail(&tx->queue, skb);
		spin_unlock_irqrestore(&priv->lock, flags);
		return true;
	}
	/* a neighbour already unlinked gets nothing new */
	if (neigh->cm_failed || !priv->cm.running ||
	    hlist_unhashed(&neigh->hnode))
		goto datagram;
	tx = kzalloc(sizeof(*tx), GFP_ATOMIC);
	if (!tx)
		goto datagram;
	tx->priv = priv;
	tx->neigh = neigh;
	memcpy(tx->daddr, neigh->daddr, INFINIBAND_ALEN);
	tx->state = IPOIB_CM_TX_NEW;
	skb_queue_head_init(&tx->queue);
	list_add_tail(&tx->list, &priv->cm.tx_list);
	list_add_tail(&tx->start, &priv->cm.start_list);
	__skb_queue_tail(&tx->queue, skb);
	rcu_assign_pointer(neigh->cm, tx);
	spin_unlock_irqrestore(&priv->lock, flags);
	queue_work(priv->wq, &priv->cm.start_task);
	return true;

datagram:
	spin_unlock_irqrestore(&priv->lock, flags);
	return false;

send:
	skb_pull(skb, IPOIB_PSEUDO_LEN);
	ipoib_cm_send(priv, tx, skb);
	return true;
}

static int ipoib_cm_rep_handler(struct ipoib_dev_priv *priv,
				struct ipoib_cm_tx *tx, struct ib_cm_id *id,
				const struct ib_cm_event *event)
{
	static const enum ib_qp_state states[] = { IB_QPS_RTR, IB_QPS_RTS };
	struct sk_buff_head held;
	unsigned long flags;
	u32 qpn, mtu;
	int ret;

	if (ipoib_cm_parse_data(event->private_data, &qpn, &mtu) ||
	    qpn != ipoib_addr_qpn(tx->daddr)) {
		netdev_dbg(priv->dev, "REP with bad private data refused\n");
		return -EINVAL;
	}
	ret = ipoib_cm_modify_qp(id, tx->qp, states, ARRAY_SIZE(states),
				 NULL);
	if (ret) {
		netdev_warn(priv->dev, "active QP: %d\n", ret);
		return ret;
	}
	ret = ib_send_cm_rtu(id, NULL, 0);
	if (ret) {
		netdev_warn(priv->dev, "RTU: %d\n", ret);
		return ret;
	}

	__skb_queue_head_init(&held);
	spin_lock_irqsave(&priv->lock, flags);
	if (tx->state != IPOIB_CM_TX_REQ) {
		/* ended meanwhile: the reaper disconnects */
		spin_unlock_irqrestore(&priv->lock, flags);
		return 0;
	}
	tx->mtu = mtu;
	/* pairs with the acquire in ipoib_cm_xmit() */
	smp_store_release(&tx->state, IPOIB_CM_TX_UP);
	skb_queue_splice_init(&tx->queue, &held);
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_count(priv, cm_tx_established);
	atomic_long_inc(&priv->counters.cm_tx_conns);
	netdev_dbg(priv->dev, "connected to QPN 0x%06x, messages of %u\n",
		   qpn, mtu);
	ipoib_cm_requeue(&held);
	return 0;
}

static int ipoib_cm_tx_handler(struct ib_cm_id *id,
			       const struct ib_cm_event *event)
{
	struct ipoib_cm_tx *tx = id->context;
	struct ipoib_dev_priv *priv = tx->priv;

	switch (event->event) {
	case IB_CM_REP_RECEIVED:
		if (ipoib_cm_rep_handler(priv, tx, id, event)) {
			ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				       NULL, 0);
			ipoib_count(priv, cm_tx_rejected);
			ipoib_cm_tx_fail(priv, tx, true);
		}
		break;
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REQ_ERROR:
		netdev_dbg(priv->dev, "connection to QPN 0x%06x refused: datagrams\n",
			   ipoib_addr_qpn(tx->daddr));
		ipoib_count(priv, cm_tx_rejected);
		ipoib_cm_tx_fail(priv, tx, true);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		fallthrough;
	case IB_CM_DREQ_ERROR:
	case IB_CM_TIMEWAIT_EXIT:
		ipoib_cm_tx_fail(priv, tx, false);
		break;
	default:
		break;
	}
	return 0;
}

/* Make the QP and send the REQ.  cm.mutex held. */
static int ipoib_cm_tx_start(struct ipoib_dev_priv *priv,
			     struct ipoib_cm_tx *tx, struct sa_path_rec *rec)
{
	struct ib_cm_req_param req = {};
	struct ipoib_cm_data data;
	struct ib_qp_attr attr = {
		.qp_state	= IB_QPS_INIT,
		.pkey_index	= priv->pkey_index,
		.port_num	= priv->port,
	};
	struct ib_cm_id *id;
	int ret;

	tx->ring = kvcalloc(priv->tx_size, sizeof(*tx->ring), GFP_KERNEL);
	if (!tx->ring)
		return -ENOMEM;
	tx->qp = ipoib_cm_create_qp(priv, tx, priv->tx_size,
				    ipoib_cm_qp_event);
	if (IS_ERR(tx->qp)) {
		ret = PTR_ERR(tx->qp);
		tx->qp = NULL;
		return ret;
	}
	ret = ib_modify_qp(tx->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	id = ib_create_cm_id(priv->ca, ipoib_cm_tx_handler, tx);
	if (IS_ERR(id))
		return PTR_ERR(id);
	tx->id = id;

	ipoib_cm_build_data(&data, priv->qp->qp_num, IPOIB_CM_BUF_SIZE);
	req.primary_path = rec;
	req.service_id = ipoib_cm_service_id(ipoib_addr_qpn(tx->daddr));
	req.qp_num = tx->qp->qp_num;
	req.qp_type = IB_QPT_RC;
	req.starting_psn = get_random_u32() & 0xffffff;
	req.private_data = &data;
	req.private_data_len = sizeof(data);
	req.remote_cm_response_timeout = IPOIB_CM_RESPONSE_TIMEOUT;
	req.local_cm_response_timeout = IPOIB_CM_RESPONSE_TIMEOUT;
	req.retry_count = IPOIB_CM_RETRY_COUNT;
	req.rnr_retry_count = IPOIB_CM_RNR_RETRY_COUNT;
	req.max_cm_retries = IPOIB_CM_MAX_CM_RETRIES;
	req.srq = 1;
	return ib_send_cm_req(id, &req);
}

static void ipoib_cm_start_task(struct work_struct *work)
{
	struct ipoib_dev_priv *priv =
		container_of(work, struct ipoib_dev_priv, cm.start_task);
	struct ipoib_cm_tx *tx;
	struct sa_path_rec rec;
	unsigned long flags;
	bool have_path;
	int ret;

	mutex_lock(&priv->cm.mutex);
	for (;;) {
		spin_lock_irqsave(&priv->lock, flags);
		tx = list_first_entry_or_null(&priv->cm.start_list,
					      struct ipoib_cm_tx, start);
		if (!tx) {
			spin_unlock_irqrestore(&priv->lock, flags);
			break;
		}
		list_del_init(&tx->start);
		tx->state = IPOIB_CM_TX_REQ;
		/* a tx on the start list has its neighbour */
		have_path = tx->neigh && tx->neigh->path->ah;
		if (have_path)
			rec = tx->neigh->path->rec;
		spin_unlock_irqrestore(&priv->lock, flags);

		ret = have_path ? ipoib_cm_tx_start(priv, tx, &rec) : -ENOENT;
		if (ret) {
			netdev_dbg(priv->dev, "no connection to QPN 0x%06x: %d\n",
				   ipoib_addr_qpn(tx->daddr), ret);
			ipoib_count(priv, cm_tx_rejected);
			ipoib_cm_tx_fail(priv, tx, true);
		}
	}
	mutex_unlock(&priv->cm.mutex);
}

/* ------------------------------------------------------------------ */
/* Open and stop                                                       */
/* ------------------------------------------------------------------ */

/**
 * ipoib_cm_init - connected mode's part of a new interface
 * @priv: the interface
 */
void ipoib_cm_init(struct ipoib_dev_priv *priv)
{
	struct ipoib_cm_dev *cm = &priv->cm;

	mutex_init(&cm->mutex);
	INIT_LIST_HEAD(&cm->rx_list);
	INIT_LIST_HEAD(&cm->rx_dead);
	INIT_LIST_HEAD(&cm->tx_list);
	INIT_LIST_HEAD(&cm->tx_dead);
	INIT_LIST_HEAD(&cm->start_list);
	atomic_set(&cm->tx_outstanding, 0);
	INIT_WORK(&cm->start_task, ipoib_cm_start_task);
	INIT_WORK(&cm->reap_task, ipoib_cm_reap_task);
}

static void ipoib_cm_free_ring(struct ipoib_dev_priv *priv)
{
	unsigned int i;

	for (i = 0; i < priv->cm.rx_size; i++)
		ipoib_cm_free_rx(priv, &priv->cm.rx_ring[i]);
	kfree(priv->cm.rx_ring);
	priv->cm.rx_ring = NULL;
}

static void ipoib_cm_srq_event(struct ib_event *event, void *context)
{
	struct ipoib_dev_priv *priv = context;

	netdev_warn_once(priv->dev, "SRQ event %s\n",
			 ib_event_msg(event->event));
}

/**
 * ipoib_cm_dev_open - the SRQ, its buffers and the listener
 * @priv: the interface, its UD QP in RTS, in connected mode
 *
 * Context: process context, priv->state_mutex held.
 * Return: 0 or a negative errno (nothing is left).
 */
int ipoib_cm_dev_open(struct ipoib_dev_priv *priv)
{
	struct ib_srq_init_attr srq_attr = {
		.event_handler	= ipoib_cm_srq_event,
		.srq_context	= priv,
		.srq_type	= IB_SRQT_BASIC,
		.attr.max_sge	= IPOIB_CM_RX_SGE,
	};
	struct ipoib_cm_dev *cm = &priv->cm;
	struct ib_cm_id *id;
	unsigned long flags;
	unsigned int i;
	int ret = 0;

	mutex_lock(&cm->mutex);
	if (cm->running)
		goto out;
	cm->rx_size = min_t(u32, IPOIB_CM_RX_RING,
			    priv->ca->attrs.max_srq_wr - 1);
	srq_attr.attr.max_wr = cm->rx_size;
	cm->srq = ib_create_srq(priv->pd, &srq_attr);
	if (IS_ERR(cm->srq)) {
		ret = PTR_ERR(cm->srq);
		cm->srq = NULL;
		goto out;
	}
	cm->rx_ring = kcalloc(cm->rx_size, sizeof(*cm->rx_ring), GFP_KERNEL);
	if (!cm->rx_ring) {
		ret = -ENOMEM;
		goto err_srq;
	}
	for (i = 0; i < cm->rx_size; i++) {
		ret = ipoib_cm_alloc_rx(priv, &cm->rx_ring[i], 0, GFP_KERNEL);
		if (!ret)
			ret = ipoib_cm_post_rx(priv, i);
		if (ret)
			goto err_ring;
	}

	id = ib_create_cm_id(priv->ca, ipoib_cm_rx_handler, priv);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err_ring;
	}
	spin_lock_irqsave(&priv->lock, flags);
	cm->listen_id = id;
	cm->running = true;
	spin_unlock_irqrestore(&priv->lock, flags);
	ret = ib_cm_listen(id, ipoib_cm_service_id(priv->qp->qp_num));
	if (ret)
		goto err_id;
	netdev_dbg(priv->dev, "connected mode: listening on 0x%016llx\n",
		   be64_to_cpu(ipoib_cm_service_id(priv->qp->qp_num)));
	goto out;

err_id:
	spin_lock_irqsave(&priv->lock, flags);
	cm->listen_id = NULL;
	cm->running = false;
	spin_unlock_irqrestore(&priv->lock, flags);
	ib_destroy_cm_id(id);
err_ring:
	/* the SRQ goes first: no buffer of it is in use any more */
	ib_destroy_srq(cm->srq);
	cm->srq = NULL;
	ipoib_cm_free_ring(priv);
	goto out;
err_srq:
	ib_destroy_srq(cm->srq);
	cm->srq = NULL;
out:
	mutex_unlock(&cm->mutex);
	return ret;
}

/**
 * ipoib_cm_dev_stop - end every connection, stop listening, free the SRQ
 * @priv: the interface, its NAPI instances running
 *
 * Context: process context, priv->state_mutex held.
 */
void ipoib_cm_dev_stop(struct ipoib_dev_priv *priv)
{
	unsigned long end = jiffies + msecs_to_jiffies(IPOIB_DRAIN_TIMEOUT_MS);
	struct ipoib_cm_dev *cm = &priv->cm;
	struct ipoib_cm_rx *rx, *rtmp;
	struct ipoib_cm_tx *tx, *ttmp;
	struct ib_cm_id *listen_id;
	unsigned long flags;
	unsigned int n_rx;

	mutex_lock(&cm->mutex);
	if (!cm->running)
		goto out;
	spin_lock_irqsave(&priv->lock, flags);
	cm->running = false;
	listen_id = cm->listen_id;
	cm->listen_id = NULL;
	list_for_each_entry_safe(rx, rtmp, &cm->rx_list, list)
		__ipoib_cm_rx_kill(priv, rx);
	list_for_each_entry_safe(tx, ttmp, &cm->tx_list, list)
		__ipoib_cm_tx_kill(priv, tx, false, NULL);
	spin_unlock_irqrestore(&priv->lock, flags);

	ib_destroy_cm_id(listen_id);
	ipoib_cm_reap(priv);

	/* a REQ being taken when we stopped gives its place back */
	for (;;) {
		spin_lock_irqsave(&priv->lock, flags);
		n_rx = cm->n_rx;
		spin_unlock_irqrestore(&priv->lock, flags);
		if (!n_rx || time_after(jiffies, end))
			break;
		usleep_range(1000, 2000);
		ipoib_cm_reap(priv);
	}
	if (n_rx)
		netdev_warn(priv->dev, "%u passive connections left\n", n_rx);

	/*
	 * Every QP on the SRQ is gone, and the reaper took what each
	 * completed up to its Last WQE Reached event: nothing names the
	 * ring any more.
	 */
	ib_destroy_srq(cm->srq);
	cm->srq = NULL;
	ipoib_cm_free_ring(priv);
	netdev_dbg(priv->dev, "connected mode stopped\n");
out:
	mutex_unlock(&cm->mutex);
}
