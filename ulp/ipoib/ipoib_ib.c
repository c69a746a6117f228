// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The datagram transport of an IPoIB interface: its PD, its two CQs, its
 * UD QP, the receive ring polled by one NAPI instance and the send ring
 * whose completions another one polls, and the address handles sends use.
 *
 * Receive.  Every buffer has room for the GRH (IPOIB_GRH_BYTES, always
 * counted in byte_len) and the largest IB payload of the port.  A frame
 * is checked before it goes up (ipoib_rx_check()): too short, an
 * EtherType IPoIB does not carry, a source no port can be, an ARP packet
 * that is not IPoIB's or lies about its sender: each is dropped, counted
 * by cause (ethtool -S) and in rx_dropped, and the buffer is posted again.
 * Our own multicast frames come back from the fabric and are dropped too.
 * Short frames are copied so that their buffer stays on the ring.
 *
 * Send.  ndo_start_xmit's callers hand ipoib_send() a frame that starts
 * with the encapsulation header and an AH; the send ring holds the frame
 * and a reference on the AH until the completion.  The queue stops when
 * the ring is full and wakes when it is half empty.
 *
 * Address handles are shared (paths, neighbours, groups and the sends in
 * flight hold references, struct ipoib_ah).  The last reference may go
 * in softirq context: the AH then waits on priv->dead_ahs until the reap
 * task destroys it.
 *
 * Locking: the send ring's producer runs under the net device's TX lock,
 * its consumer in the send NAPI; tx_head and tx_tail are read across with
 * READ_ONCE() and the stop/wake handshake has a full barrier on both
 * sides.  The receive ring is only touched by the receive NAPI, or by
 * ipoib_ib_open() and ipoib_ib_stop() (under priv->state_mutex) while the
 * NAPI instances are disabled.  priv->ah_lock protects priv->dead_ahs.
 */
#include <linux/delay.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/slab.h>
#include <net/dst.h>

#include "ipoib.h"

static_assert(sizeof(struct ib_grh) == IPOIB_GRH_BYTES);

/* ------------------------------------------------------------------ */
/* Address handles                                                     */
/* ------------------------------------------------------------------ */

/**
 * ipoib_create_ah - a shared address handle
 * @priv: the interface
 * @attr: the address
 *
 * Context: process context; may sleep.
 * Return: the AH with one reference, or an ERR_PTR().
 */
struct ipoib_ah *ipoib_create_ah(struct ipoib_dev_priv *priv,
				 struct rdma_ah_attr *attr)
{
	struct ipoib_ah *ah;

	ah = kzalloc(sizeof(*ah), GFP_KERNEL);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->ah = rdma_create_ah(priv->pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah->ah)) {
		int ret = PTR_ERR(ah->ah);

		kfree(ah);
		return ERR_PTR(ret);
	}
	ah->priv = priv;
	kref_init(&ah->ref);
	INIT_LIST_HEAD(&ah->dead);
	return ah;
}

static void ipoib_ah_release(struct kref *ref)
{
	struct ipoib_ah *ah = container_of(ref, struct ipoib_ah, ref);
	struct ipoib_dev_priv *priv = ah->priv;
	unsigned long flags;

	spin_lock_irqsave(&priv->ah_lock, flags);
	list_add_tail(&ah->dead, &priv->dead_ahs);
	spin_unlock_irqrestore(&priv->ah_lock, flags);
	queue_work(priv->wq, &priv->reap_task);
}

/**
 * ipoib_put_ah - drop a reference on an address handle
 * @ah: the AH, or NULL
 *
 * Context: any.
 */
void ipoib_put_ah(struct ipoib_ah *ah)
{
	if (ah)
		kref_put(&ah->ref, ipoib_ah_release);
}

/**
 * ipoib_reap_ahs - destroy the AHs nobody holds any more
 * @priv: the interface
 *
 * Context: process context.
 */
void ipoib_reap_ahs(struct ipoib_dev_priv *priv)
{
	struct ipoib_ah *ah, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);

	spin_lock_irqsave(&priv->ah_lock, flags);
	list_splice_init(&priv->dead_ahs, &dead);
	spin_unlock_irqrestore(&priv->ah_lock, flags);

	list_for_each_entry_safe(ah, tmp, &dead, dead) {
		rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(ah);
	}
}

void ipoib_reap_task(struct work_struct *work)
{
	ipoib_reap_ahs(container_of(work, struct ipoib_dev_priv, reap_task));
}

/* ------------------------------------------------------------------ */
/* Receive                                                             */
/* ------------------------------------------------------------------ */

/* An ARP packet of IPoIB: the header, then two 20-byte and 4-byte pairs. */
#define IPOIB_ARP_LEN	(sizeof(struct arphdr) + 2 * (INFINIBAND_ALEN + 4))

/**
 * ipoib_rx_check_arp - the verdict on a received ARP packet
 * @arp: the packet, after the encapsulation header
 * @len: its length
 * @grh: the GRH it came with, or NULL
 * @src_qp: the UD QPN of its sender
 *
 * Return: IPOIB_RX_OK, IPOIB_RX_SHORT or IPOIB_RX_BAD_ARP.
 */
enum ipoib_rx_verdict ipoib_rx_check_arp(const u8 *arp, u32 len,
					 const struct ib_grh *grh, u32 src_qp)
{
	const struct arphdr *ah = (const struct arphdr *)arp;
	const u8 *sha = arp + sizeof(*ah);

	if (len < IPOIB_ARP_LEN)
		return IPOIB_RX_SHORT;
	if (ah->ar_hrd != htons(ARPHRD_INFINIBAND) ||
	    ah->ar_pro != htons(ETH_P_IP) ||
	    ah->ar_hln != INFINIBAND_ALEN || ah->ar_pln != 4)
		return IPOIB_RX_BAD_ARP;
	/* the sender's address must be the port and QP that sent it */
	if (ipoib_addr_qpn(sha) != src_qp)
		return IPOIB_RX_BAD_ARP;
	if (grh && memcmp(sha + 4, grh->sgid.raw, sizeof(grh->sgid.raw)))
		return IPOIB_RX_BAD_ARP;
	return IPOIB_RX_OK;
}

/**
 * ipoib_rx_check - decide what becomes of a received frame
 * @buf: the receive buffer: the GRH's room, then the frame
 * @info: what the completion says
 *
 * Context: any; reads @info->byte_len bytes of @buf at most.
 * Return: IPOIB_RX_OK to pass the frame up, or why it is dropped.
 */
VISIBLE_IF_KUNIT enum ipoib_rx_verdict
ipoib_rx_check(const void *buf, const struct ipoib_rx_info *info)
{
	const struct ib_grh *grh = info->grh ? buf : NULL;
	const struct ipoib_header *hdr = buf + IPOIB_GRH_BYTES;
	u32 len;

	if (info->byte_len < IPOIB_GRH_BYTES + IPOIB_ENCAP_LEN)
		return IPOIB_RX_SHORT;
	if (info->local_lid && info->slid == info->local_lid &&
	    info->src_qp == info->local_qpn)
		return IPOIB_RX_OWN;
	/* QP0 and QP1 do not send IPoIB; LID 0 and multicast LIDs send nothing */
	if (info->src_qp <= 1 || info->src_qp > IPOIB_QPN_MASK ||
	    !info->slid || info->slid >= 0xc000)
		return IPOIB_RX_BAD_SOURCE;
	if (grh && grh->sgid.raw[0] == 0xff)
		return IPOIB_RX_BAD_SOURCE;

	len = info->byte_len - IPOIB_GRH_BYTES - IPOIB_ENCAP_LEN;
	switch (ntohs(hdr->proto)) {
	case ETH_P_IP:
	case ETH_P_IPV6:
	case ETH_P_RARP:
		return IPOIB_RX_OK;
	case ETH_P_ARP:
		return ipoib_rx_check_arp((const u8 *)(hdr + 1), len, grh,
					  info->src_qp);
	default:
		return IPOIB_RX_BAD_PROTO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_rx_check);

static unsigned int ipoib_rx_buf_size(struct ipoib_dev_priv *priv)
{
	return IPOIB_UD_BUF_SIZE(priv->max_ib_mtu);
}

/* A new buffer for slot @id, mapped. */
static int ipoib_alloc_rx_buf(struct ipoib_dev_priv *priv, unsigned int id,
			      gfp_t gfp)
{
	unsigned int size = ipoib_rx_buf_size(priv);
	struct sk_buff *skb;
	u64 addr;

	skb = __netdev_alloc_skb(priv->dev, size, gfp);
	if (!skb)
		return -ENOMEM;
	addr = ib_dma_map_single(priv->ca, skb->data, size, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(priv->ca, addr)) {
		dev_kfree_skb_any(skb);
		return -EIO;
	}
	priv->rx_ring[id].skb = skb;
	priv->rx_ring[id].mapping = addr;
	return 0;
}

static void ipoib_free_rx_buf(struct ipoib_dev_priv *priv, unsigned int id)
{
	struct ipoib_rx_buf *buf = &priv->rx_ring[id];

	if (!buf->skb)
		return;
	ib_dma_unmap_single(priv->ca, buf->mapping, ipoib_rx_buf_size(priv),
			    DMA_FROM_DEVICE);
	dev_kfree_skb_any(buf->skb);
	buf->skb = NULL;
	buf->posted = false;
}

static int ipoib_post_rx(struct ipoib_dev_priv *priv, unsigned int id)
{
	struct ib_sge sge = {
		.addr	= priv->rx_ring[id].mapping,
		.length	= ipoib_rx_buf_size(priv),
		.lkey	= priv->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id	 = id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	ib_dma_sync_single_for_device(priv->ca, sge.addr, sge.length,
				      DMA_FROM_DEVICE);
	/* before the post: the completion may be polled before it returns */
	priv->rx_ring[id].posted = true;
	ret = ib_post_recv(priv->qp, &wr, NULL);
	if (ret) {
		priv->rx_ring[id].posted = false;
		ipoib_free_rx_buf(priv, id);
	}
	return ret;
}

/**
 * ipoib_rx_drop - count a received frame that is dropped
 * @priv: the interface
 * @verdict: why
 */
void ipoib_rx_drop(struct ipoib_dev_priv *priv, enum ipoib_rx_verdict verdict)
{
	switch (verdict) {
	case IPOIB_RX_SHORT:
		ipoib_count(priv, rx_short);
		break;
	case IPOIB_RX_BAD_PROTO:
		ipoib_count(priv, rx_bad_proto);
		break;
	case IPOIB_RX_BAD_SOURCE:
		ipoib_count(priv, rx_bad_source);
		break;
	case IPOIB_RX_BAD_ARP:
		ipoib_count(priv, rx_bad_arp);
		break;
	case IPOIB_RX_OWN:
		ipoib_count(priv, rx_own_mcast);
		return;
	case IPOIB_RX_OK:
		return;
	}
	dev_core_stats_rx_dropped_inc(priv->dev);
}

/*
 * The frame that came into slot @id, @len bytes with the GRH's room, as an
 * skb of its own: a copy for short frames, else the buffer itself with a
 * new one on the ring.  NULL if no memory (the old buffer stays).
 */
static struct sk_buff *ipoib_rx_take(struct ipoib_dev_priv *priv,
				     unsigned int id, u32 len)
{
	struct ipoib_rx_buf *buf = &priv->rx_ring[id];
	struct sk_buff *skb = buf->skb;
	u64 mapping = buf->mapping;

	if (len <= IPOIB_GRH_BYTES + IPOIB_RX_COPYBREAK) {
		struct sk_buff *copy = napi_alloc_skb(&priv->recv_napi, len);

		if (copy)
			skb_put_data(copy, skb->data, len);
		return copy;
	}
	if (ipoib_alloc_rx_buf(priv, id, GFP_ATOMIC)) {
		buf->skb = skb;
		buf->mapping = mapping;
		return NULL;
	}
	ib_dma_unmap_single(priv->ca, mapping, ipoib_rx_buf_size(priv),
			    DMA_FROM_DEVICE);
	skb_put(skb, len);
	return skb;
}

static void ipoib_rx_completion(struct ipoib_dev_priv *priv, struct ib_wc *wc)
{
	struct net_device *dev = priv->dev;
	unsigned int id = wc->wr_id;
	struct ipoib_rx_info info;
	enum ipoib_rx_verdict verdict;
	struct sk_buff *skb;
	__be16 proto;
	u8 pkt_type;

	/*
	 * A second completion of one posted buffer would pass the same skb
	 * up twice, or one that is on the receive queue again.
	 */
	if (WARN_ON_ONCE(id >= priv->rx_size || !priv->rx_ring[id].skb ||
			 !priv->rx_ring[id].posted))
		return;
	priv->rx_ring[id].posted = false;

	if (unlikely(wc->status != IB_WC_SUCCESS ||
		     test_bit(IPOIB_FLAG_DRAINING, &priv->flags))) {
		if (wc->status != IB_WC_SUCCESS &&
		    wc->status != IB_WC_WR_FLUSH_ERR) {
			ipoib_count(priv, rx_wc_error);
			dev->stats.rx_errors++;
			netdev_dbg(dev, "receive completion %s\n",
				   ib_wc_status_msg(wc->status));
		}
		ipoib_free_rx_buf(priv, id);
		return;
	}

	skb = priv->rx_ring[id].skb;
	ib_dma_sync_single_for_cpu(priv->ca, priv->rx_ring[id].mapping,
				   ipoib_rx_buf_size(priv), DMA_FROM_DEVICE);
	info = (struct ipoib_rx_info) {
		.byte_len	= min(wc->byte_len, ipoib_rx_buf_size(priv)),
		.src_qp		= wc->src_qp,
		.slid		= wc->slid,
		.grh		= wc->wc_flags & IB_WC_GRH,
		.local_lid	= READ_ONCE(priv->local_lid),
		.local_qpn	= priv->qp->qp_num,
	};
	verdict = ipoib_rx_check(skb->data, &info);
	if (verdict != IPOIB_RX_OK) {
		ipoib_rx_drop(priv, verdict);
		goto repost;
	}

	pkt_type = PACKET_HOST;
	if (info.grh) {
		const struct ib_grh *grh = (const struct ib_grh *)skb->data;

		if (grh->dgid.raw[0] == 0xff)
			pkt_type = memcmp(grh->dgid.raw, dev->broadcast + 4,
					  sizeof(grh->dgid.raw)) ?
				   PACKET_MULTICAST : PACKET_BROADCAST;
	}

	skb = ipoib_rx_take(priv, id, info.byte_len);
	if (!skb) {
		ipoib_count(priv, rx_no_buffer);
		dev_core_stats_rx_dropped_inc(dev);
		goto repost;
	}

	/* the GRH's room off; the pseudo header (zeros) and the encap. one */
	skb_pull(skb, IPOIB_GRH_BYTES);
	proto = ((struct ipoib_header *)skb->data)->proto;
	memset(skb_push(skb, IPOIB_PSEUDO_LEN), 0, IPOIB_PSEUDO_LEN);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPOIB_HARD_LEN);
	skb->protocol = proto;
	skb->pkt_type = pkt_type;
	skb->dev = dev;
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += skb->len;
	napi_gro_receive(&priv->recv_napi, skb);

repost:
	if (ipoib_post_rx(priv, id))
		netdev_warn_once(dev, "a receive buffer could not be posted\n");
}

/* A receive completion of the UD QP, or of the SRQ of connected mode. */
static void ipoib_rx_dispatch(struct ipoib_dev_priv *priv, struct ib_wc *wc)
{
	if (wc->wr_id & IPOIB_OP_CM)
		ipoib_cm_rx_completion(priv, wc);
	else
		ipoib_rx_completion(priv, wc);
}

static int ipoib_rx_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_dev_priv *priv =
		container_of(napi, struct ipoib_dev_priv, recv_napi);
	struct ib_wc wc[IPOIB_NUM_WC];
	int done = 0;

	while (done < budget) {
		int max = min(budget - done, IPOIB_NUM_WC);
		int n, i;

		n = ib_poll_cq(priv->recv_cq, max, wc);
		for (i = 0; i < n; i++)
			ipoib_rx_dispatch(priv, &wc[i]);
		if (n <= 0)
			break;
		done += n;
		if (n < max)
			break;
	}
	if (done < budget && napi_complete_done(napi, done) &&
	    ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return done;
}

static void ipoib_rx_cq_event(struct ib_cq *cq, void *context)
{
	struct ipoib_dev_priv *priv = context;

	napi_schedule(&priv->recv_napi);
}

/* ------------------------------------------------------------------ */
/* Send                                                                */
/* ------------------------------------------------------------------ */

/**
 * ipoib_tx_unmap - unmap a sent frame
 * @priv: the interface
 * @buf: the send ring's slot
 */
void ipoib_tx_unmap(struct ipoib_dev_priv *priv, struct ipoib_tx_buf *buf)
{
	struct sk_buff *skb = buf->skb;
	unsigned int i;

	if (buf->nr_maps)
		ib_dma_unmap_single(priv->ca, buf->mapping[0],
				    skb_headlen(skb), DMA_TO_DEVICE);
	for (i = 1; i < buf->nr_maps; i++)
		ib_dma_unmap_page(priv->ca, buf->mapping[i],
				  skb_frag_size(&skb_shinfo(skb)->frags[i - 1]),
				  DMA_TO_DEVICE);
	buf->nr_maps = 0;
}

/**
 * ipoib_tx_map - map a frame to send, a gather entry per part
 * @priv: the interface
 * @buf: the send ring's slot, its skb set
 * @sge: room for MAX_SKB_FRAGS + 1 entries
 *
 * Return: 0, or -EIO (nothing stays mapped).
 */
int ipoib_tx_map(struct ipoib_dev_priv *priv, struct ipoib_tx_buf *buf,
		 struct ib_sge *sge)
{
	struct sk_buff *skb = buf->skb;
	u32 lkey = priv->pd->local_dma_lkey;
	unsigned int i;
	u64 addr;

	buf->nr_maps = 0;
	addr = ib_dma_map_single(priv->ca, skb->data, skb_headlen(skb),
				 DMA_TO_DEVICE);
	if (ib_dma_mapping_error(priv->ca, addr))
		return -EIO;
	buf->mapping[buf->nr_maps++] = addr;
	sge[0] = (struct ib_sge) {
		.addr = addr, .length = skb_headlen(skb), .lkey = lkey,
	};
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];

		addr = ib_dma_map_page(priv->ca, skb_frag_page(frag),
				       skb_frag_off(frag), skb_frag_size(frag),
				       DMA_TO_DEVICE);
		if (ib_dma_mapping_error(priv->ca, addr)) {
			ipoib_tx_unmap(priv, buf);
			return -EIO;
		}
		buf->mapping[buf->nr_maps++] = addr;
		sge[i + 1] = (struct ib_sge) {
			.addr = addr, .length = skb_frag_size(frag),
			.lkey = lkey,
		};
	}
	return 0;
}

static void ipoib_tx_drop(struct ipoib_dev_priv *priv, struct sk_buff *skb)
{
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
}

/**
 * ipoib_send - put a frame on the wire
 * @priv: the interface
 * @skb: the frame, starting with the encapsulation header
 * @ah: the address handle (the caller keeps its own reference)
 * @qpn: the destination QPN (IPOIB_MCAST_QPN for a group)
 *
 * The frame is consumed: sent, or dropped and counted.
 *
 * Context: the net device's TX lock held (ndo_start_xmit).
 */
void ipoib_send(struct ipoib_dev_priv *priv, struct sk_buff *skb,
		struct ipoib_ah *ah, u32 qpn)
{
	struct net_device *dev = priv->dev;
	struct ib_sge sge[MAX_SKB_FRAGS + 1];
	struct ipoib_tx_buf *buf;
	struct ib_ud_wr wr;
	unsigned int head;
	int ret;

	if (unlikely(skb->len > READ_ONCE(priv->mcast_mtu) + IPOIB_ENCAP_LEN)) {
		ipoib_count(priv, tx_too_big);
		/* connected mode's MTU: tell the sender what datagrams take */
		if (ipoib_cm_admin(priv))
			ipoib_cm_skb_too_long(priv, skb,
					      READ_ONCE(priv->mcast_mtu));
		else
			ipoib_tx_drop(priv, skb);
		return;
	}
	if (unlikely(!test_bit(IPOIB_FLAG_INITIALIZED, &priv->flags))) {
		ipoib_tx_drop(priv, skb);
		return;
	}
	if (skb_shinfo(skb)->nr_frags + 1 > priv->max_send_sge) {
		if (skb_linearize(skb)) {
			ipoib_tx_drop(priv, skb);
			return;
		}
	}

	head = priv->tx_head;
	if (unlikely(head - READ_ONCE(priv->tx_tail) >= priv->tx_size)) {
		/* the queue should have been stopped: it is now */
		netif_stop_queue(dev);
		ipoib_tx_drop(priv, skb);
		return;
	}
	buf = &priv->tx_ring[head & (priv->tx_size - 1)];
	skb_orphan(skb);
	skb_dst_drop(skb);
	buf->skb = skb;
	if (ipoib_tx_map(priv, buf, sge)) {
		buf->skb = NULL;
		ipoib_count(priv, tx_post_error);
		ipoib_tx_drop(priv, skb);
		return;
	}
	ipoib_get_ah(ah);
	buf->ah = ah;

	wr = (struct ib_ud_wr) {
		.wr = {
			.wr_id		= head & (priv->tx_size - 1),
			.sg_list	= sge,
			.num_sge	= buf->nr_maps,
			.opcode		= IB_WR_SEND,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.ah		= ah->ah,
		.remote_qpn	= qpn,
		.remote_qkey	= READ_ONCE(priv->qkey),
	};

	/* the ring's slot is taken before the completion can come */
	WRITE_ONCE(priv->tx_head, head + 1);
	if (head + 1 - READ_ONCE(priv->tx_tail) >= priv->tx_size) {
		ipoib_count(priv, tx_ring_full);
		netif_stop_queue(dev);
		/* pairs with the barrier in ipoib_tx_completion() */
		smp_mb();
		if (head + 1 - READ_ONCE(priv->tx_tail) < priv->tx_size)
			netif_wake_queue(dev);
	}

	ret = ib_post_send(priv->qp, &wr.wr, NULL);
	if (unlikely(ret)) {
		/* no completion comes for it: the slot is free again */
		WRITE_ONCE(priv->tx_head, head);
		ipoib_count(priv, tx_post_error);
		ipoib_tx_unmap(priv, buf);
		buf->skb = NULL;
		buf->ah = NULL;
		ipoib_put_ah(ah);
		ipoib_tx_drop(priv, skb);
		if (netif_queue_stopped(dev))
			netif_wake_queue(dev);
		netdev_dbg(dev, "ib_post_send: %d\n", ret);
	}
}

static void ipoib_tx_completion(struct ipoib_dev_priv *priv, struct ib_wc *wc)
{
	struct net_device *dev = priv->dev;
	unsigned int id = wc->wr_id;
	struct ipoib_tx_buf *buf;
	unsigned int tail;

	if (WARN_ON_ONCE(id >= priv->tx_size || !priv->tx_ring[id].skb))
		return;
	buf = &priv->tx_ring[id];
	ipoib_tx_unmap(priv, buf);
	if (likely(wc->status == IB_WC_SUCCESS)) {
		dev->stats.tx_packets++;
		dev->stats.tx_bytes += buf->skb->len;
	} else if (wc->status != IB_WC_WR_FLUSH_ERR) {
		ipoib_count(priv, tx_wc_error);
		dev->stats.tx_errors++;
		netdev_dbg(dev, "send completion %s\n",
			   ib_wc_status_msg(wc->status));
	}
	dev_kfree_skb_any(buf->skb);
	buf->skb = NULL;
	ipoib_put_ah(buf->ah);
	buf->ah = NULL;

	tail = priv->tx_tail + 1;
	WRITE_ONCE(priv->tx_tail, tail);
	/* pairs with the barrier in ipoib_send() */
	smp_mb();
	if (unlikely(netif_queue_stopped(dev)) && ipoib_tx_may_wake(priv))
		netif_wake_queue(dev);
}

/**
 * ipoib_tx_may_wake - whether the stopped send queue may wake
 * @priv: the interface
 *
 * Both the UD send ring and the sends of connected mode must be half
 * empty: either stops the queue when it is full.
 *
 * Context: the send NAPI, or the TX lock held.
 * Return: true if there is room.
 */
bool ipoib_tx_may_wake(struct ipoib_dev_priv *priv)
{
	return READ_ONCE(priv->tx_head) - READ_ONCE(priv->tx_tail) <=
	       priv->tx_size / 2 &&
	       atomic_read(&priv->cm.tx_outstanding) <= priv->tx_size / 2 &&
	       test_bit(IPOIB_FLAG_INITIALIZED, &priv->flags);
}

/* A send completion of the UD QP, or of a connection. */
static void ipoib_tx_dispatch(struct ipoib_dev_priv *priv, struct ib_wc *wc)
{
	if (wc->wr_id & IPOIB_OP_CM)
		ipoib_cm_tx_completion(priv, wc);
	else
		ipoib_tx_completion(priv, wc);
}

static int ipoib_poll_tx_cq(struct ipoib_dev_priv *priv, int budget)
{
	struct ib_wc wc[IPOIB_NUM_WC];
	int done = 0;

	while (done < budget) {
		int max = min(budget - done, IPOIB_NUM_WC);
		int n, i;

		n = ib_poll_cq(priv->send_cq, max, wc);
		for (i = 0; i < n; i++)
			ipoib_tx_dispatch(priv, &wc[i]);
		if (n <= 0)
			break;
		done += n;
		if (n < max)
			break;
	}
	return done;
}

static int ipoib_tx_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_dev_priv *priv =
		container_of(napi, struct ipoib_dev_priv, send_napi);
	int done = ipoib_poll_tx_cq(priv, budget);

	if (done < budget && napi_complete_done(napi, done) &&
	    ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return done;
}

static void ipoib_tx_cq_event(struct ib_cq *cq, void *context)
{
	struct ipoib_dev_priv *priv = context;

	napi_schedule(&priv->send_napi);
}

/* ------------------------------------------------------------------ */
/* The QP and its life                                                 */
/* ------------------------------------------------------------------ */

static void ipoib_qp_event(struct ib_event *event, void *context)
{
	struct ipoib_dev_priv *priv = context;

	netdev_warn_once(priv->dev, "QP event %s\n", ib_event_msg(event->event));
}

static void ipoib_cq_event(struct ib_event *event, void *context)
{
	struct ipoib_dev_priv *priv = context;

	netdev_warn_once(priv->dev, "CQ event %s\n", ib_event_msg(event->event));
}

/**
 * ipoib_transport_init - the PD, CQs, UD QP and rings of an interface
 * @priv: the interface, with ca and port set
 *
 * The QP stays in RESET until ipoib_ib_open().
 *
 * Context: process context (ndo_init).
 * Return: 0 or a negative errno; nothing is left on failure.
 */
int ipoib_transport_init(struct ipoib_dev_priv *priv)
{
	struct ib_device_attr *attrs = &priv->ca->attrs;
	struct ib_qp_init_attr qp_attr = {};
	struct ib_cq_init_attr cq_attr = {};
	unsigned int max_wr;
	int ret;

	max_wr = rounddown_pow_of_two(min_t(u32, attrs->max_qp_wr,
					    attrs->max_cqe));
	priv->rx_size = min(ipoib_recvq_size, max_wr);
	priv->tx_size = min(ipoib_sendq_size, max_wr);

	priv->rx_ring = kcalloc(priv->rx_size, sizeof(*priv->rx_ring),
				GFP_KERNEL);
	priv->tx_ring = kcalloc(priv->tx_size, sizeof(*priv->tx_ring),
				GFP_KERNEL);
	if (!priv->rx_ring || !priv->tx_ring) {
		ret = -ENOMEM;
		goto err_rings;
	}

	priv->pd = ib_alloc_pd(priv->ca, 0);
	if (IS_ERR(priv->pd)) {
		ret = PTR_ERR(priv->pd);
		goto err_rings;
	}

	/* the UD ring and the SRQ of connected mode */
	cq_attr.cqe = priv->rx_size + IPOIB_CM_RX_RING;
	priv->recv_cq = ib_create_cq(priv->ca, ipoib_rx_cq_event,
				     ipoib_cq_event, priv, &cq_attr);
	if (IS_ERR(priv->recv_cq)) {
		ret = PTR_ERR(priv->recv_cq);
		goto err_pd;
	}
	/* the UD ring and the sends of connected mode (tx_outstanding) */
	cq_attr.cqe = 2 * priv->tx_size;
	priv->send_cq = ib_create_cq(priv->ca, ipoib_tx_cq_event,
				     ipoib_cq_event, priv, &cq_attr);
	if (IS_ERR(priv->send_cq)) {
		ret = PTR_ERR(priv->send_cq);
		goto err_recv_cq;
	}

	qp_attr.event_handler = ipoib_qp_event;
	qp_attr.qp_context = priv;
	qp_attr.send_cq = priv->send_cq;
	qp_attr.recv_cq = priv->recv_cq;
	qp_attr.cap.max_send_wr = priv->tx_size;
	qp_attr.cap.max_recv_wr = priv->rx_size;
	qp_attr.cap.max_send_sge = min_t(u32, attrs->max_send_sge,
					 MAX_SKB_FRAGS + 1);
	qp_attr.cap.max_recv_sge = 1;
	qp_attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	qp_attr.qp_type = IB_QPT_UD;
	priv->qp = ib_create_qp(priv->pd, &qp_attr);
	if (IS_ERR(priv->qp)) {
		ret = PTR_ERR(priv->qp);
		goto err_send_cq;
	}
	priv->max_send_sge = qp_attr.cap.max_send_sge;
	/* the stack may hand over paged skbs: each frag is a gather entry */
	if (priv->max_send_sge > 1)
		priv->dev->features |= NETIF_F_SG;

	netif_napi_add(priv->dev, &priv->recv_napi, ipoib_rx_poll);
	netif_napi_add_tx(priv->dev, &priv->send_napi, ipoib_tx_poll);
	return 0;

err_send_cq:
	ib_destroy_cq(priv->send_cq);
err_recv_cq:
	ib_destroy_cq(priv->recv_cq);
err_pd:
	ib_dealloc_pd(priv->pd);
err_rings:
	kfree(priv->tx_ring);
	kfree(priv->rx_ring);
	priv->tx_ring = NULL;
	priv->rx_ring = NULL;
	return ret;
}

/**
 * ipoib_transport_cleanup - undo ipoib_transport_init()
 * @priv: the interface, stopped, with no path, neighbour or group left
 *
 * Context: process context (ndo_uninit).
 */
void ipoib_transport_cleanup(struct ipoib_dev_priv *priv)
{
	netif_napi_del(&priv->recv_napi);
	netif_napi_del(&priv->send_napi);
	/* neighbours drop their AH references after a grace period */
	rcu_barrier();
	/* a reap task still destroying AHs must be done before the PD */
	flush_work(&priv->reap_task);
	ipoib_reap_ahs(priv);
	ib_destroy_qp(priv->qp);
	ib_destroy_cq(priv->send_cq);
	ib_destroy_cq(priv->recv_cq);
	ib_dealloc_pd(priv->pd);
	kfree(priv->tx_ring);
	kfree(priv->rx_ring);
	priv->tx_ring = NULL;
	priv->rx_ring = NULL;
}

/**
 * ipoib_set_qkey - the Q_Key the broadcast group gave, for the QP and sends
 * @priv: the interface
 * @qkey: the Q_Key
 *
 * Context: process context; the QP is in RTS.
 * Return: 0 or the error of ib_modify_qp().
 */
int ipoib_set_qkey(struct ipoib_dev_priv *priv, u32 qkey)
{
	struct ib_qp_attr attr = { .qkey = qkey };
	int ret;

	ret = ib_modify_qp(priv->qp, &attr, IB_QP_QKEY);
	if (!ret)
		WRITE_ONCE(priv->qkey, qkey);
	return ret;
}

static int ipoib_qp_to_rts(struct ipoib_dev_priv *priv)
{
	struct ib_qp_attr attr = {
		.qp_state	= IB_QPS_INIT,
		.qkey		= IPOIB_INIT_QKEY,
		.port_num	= priv->port,
		.pkey_index	= priv->pkey_index,
	};
	int ret;

	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_QKEY |
			   IB_QP_PORT | IB_QP_PKEY_INDEX);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static void ipoib_qp_to_state(struct ipoib_dev_priv *priv,
			      enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int ret;

	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
	if (ret)
		netdev_warn(priv->dev, "QP to state %d: %d\n", state, ret);
}

/**
 * ipoib_sweep_cqs - take every completion there is from both CQs
 * @priv: the interface, its NAPI instances disabled
 *
 * Context: process context.
 */
void ipoib_sweep_cqs(struct ipoib_dev_priv *priv)
{
	struct ib_wc wc[IPOIB_NUM_WC];
	int n, i;

	local_bh_disable();
	do {
		n = ib_poll_cq(priv->recv_cq, IPOIB_NUM_WC, wc);
		for (i = 0; i < n; i++)
			ipoib_rx_dispatch(priv, &wc[i]);
	} while (n > 0);
	ipoib_poll_tx_cq(priv, INT_MAX);
	local_bh_enable();
}

/* Every outstanding request flushed (after the QP went to ERR), or 5 s. */
static void ipoib_drain(struct ipoib_dev_priv *priv)
{
	unsigned long end = jiffies + msecs_to_jiffies(IPOIB_DRAIN_TIMEOUT_MS);
	unsigned int i, left;

	for (;;) {
		ipoib_sweep_cqs(priv);

		left = priv->tx_head - priv->tx_tail;
		for (i = 0; i < priv->rx_size; i++)
			left += !!priv->rx_ring[i].skb;
		if (!left)
			return;
		if (time_after(jiffies, end))
			break;
		usleep_range(1000, 2000);
	}

	netdev_warn(priv->dev, "%u requests not flushed after %u ms\n", left,
		    IPOIB_DRAIN_TIMEOUT_MS);
	for (i = 0; i < priv->rx_size; i++)
		ipoib_free_rx_buf(priv, i);
	while (priv->tx_tail != priv->tx_head) {
		struct ipoib_tx_buf *buf =
			&priv->tx_ring[priv->tx_tail & (priv->tx_size - 1)];

		if (buf->skb) {
			ipoib_tx_unmap(priv, buf);
			dev_kfree_skb_any(buf->skb);
			buf->skb = NULL;
			ipoib_put_ah(buf->ah);
			buf->ah = NULL;
		}
		priv->tx_tail++;
	}
}

/**
 * ipoib_ib_open - take the QP to RTS and fill the receive ring
 * @priv: the interface; its P_Key index is known
 *
 * Context: process context, priv->state_mutex held.
 * Return: 0 or a negative errno (the QP is back in RESET).
 */
int ipoib_ib_open(struct ipoib_dev_priv *priv)
{
	unsigned int i;
	int ret;

	if (test_bit(IPOIB_FLAG_INITIALIZED, &priv->flags))
		return 0;

	priv->qkey = IPOIB_INIT_QKEY;
	ret = ipoib_qp_to_rts(priv);
	if (ret) {
		netdev_warn(priv->dev, "QP to RTS: %d\n", ret);
		goto err_reset;
	}

	priv->tx_head = 0;
	priv->tx_tail = 0;
	napi_enable(&priv->recv_napi);
	napi_enable(&priv->send_napi);
	ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP);
	ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP);
	set_bit(IPOIB_FLAG_INITIALIZED, &priv->flags);

	for (i = 0; i < priv->rx_size; i++) {
		ret = ipoib_alloc_rx_buf(priv, i, GFP_KERNEL);
		if (!ret)
			ret = ipoib_post_rx(priv, i);
		if (ret) {
			netdev_warn(priv->dev, "receive buffer %u: %d\n", i,
				    ret);
			ipoib_ib_stop(priv);
			return ret;
		}
	}
	/* anything that came before the CQs were armed */
	napi_schedule(&priv->recv_napi);

	if (ipoib_cm_admin(priv)) {
		ret = ipoib_cm_dev_open(priv);
		if (ret) {
			netdev_warn(priv->dev, "connected mode: %d\n", ret);
			ipoib_ib_stop(priv);
			return ret;
		}
	}
	return 0;

err_reset:
	ipoib_qp_to_state(priv, IB_QPS_RESET);
	return ret;
}

/**
 * ipoib_ib_stop - flush the QP, wait for its requests and empty the rings
 * @priv: the interface
 *
 * Context: process context, priv->state_mutex held.
 */
void ipoib_ib_stop(struct ipoib_dev_priv *priv)
{
	if (!test_bit(IPOIB_FLAG_INITIALIZED, &priv->flags))
		return;
	/* the connections go first, while the NAPI instances run */
	ipoib_cm_dev_stop(priv);
	if (!test_and_clear_bit(IPOIB_FLAG_INITIALIZED, &priv->flags))
		return;

	set_bit(IPOIB_FLAG_DRAINING, &priv->flags);
	ipoib_qp_to_state(priv, IB_QPS_ERR);
	napi_disable(&priv->recv_napi);
	napi_disable(&priv->send_napi);
	ipoib_drain(priv);
	ipoib_qp_to_state(priv, IB_QPS_RESET);
	clear_bit(IPOIB_FLAG_DRAINING, &priv->flags);
}
