// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SDP's side of the RDMA CM: the ids (port space RDMA_PS_SDP), their
 * events, the resources of a connection (PD, CQ, RC QP, receive buffers
 * and send slots), Hello in the REQ and HelloAck in the REP, and the
 * passive side's connections on their way to accept().
 *
 * The event handler runs under the id's handler mutex, never takes the
 * socket lock, and ignores every event once sdp_sock.destroying is set
 * (by the teardown, under the same mutex).  It never destroys an id of a
 * socket: errors and disconnections queue sdp_destroy_work().  The only
 * id it lets the CM destroy (by returning non-zero) is that of a request
 * it refuses before any socket owns it.  A listener's queues are under
 * the listener's sdp_sock.lock.
 */
#include <linux/in.h>
#include <linux/in6.h>

#include "sdp.h"

/**
 * sdp_create_id() - the RDMA CM id of a socket
 * @sdp: the socket, locked, without an id
 *
 * Return: the id, which references the socket, or an ERR_PTR().
 */
struct rdma_cm_id *sdp_create_id(struct sdp_sock *sdp)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(sock_net(&sdp->sk), sdp_cm_handler, sdp,
			    RDMA_PS_SDP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	sock_hold(&sdp->sk);
	sdp->id = id;
	return id;
}

static void sdp_bufs_free(struct ib_device *dev, struct sdp_buf *bufs,
			  u32 n, u32 size, enum dma_data_direction dir,
			  bool keep_queued)
{
	u32 i;

	if (!bufs)
		return;
	for (i = 0; i < n; i++) {
		if (bufs[i].mapped)
			ib_dma_unmap_single(dev, bufs[i].dma, size, dir);
		bufs[i].mapped = false;
		if (keep_queued && !list_empty(&bufs[i].list))
			continue;
		kfree(bufs[i].data);
		bufs[i].data = NULL;
	}
}

static struct sdp_buf *sdp_bufs_alloc(struct sdp_sock *sdp,
				      struct ib_device *dev, u32 n, u32 size,
				      enum dma_data_direction dir)
{
	struct sdp_buf *bufs;
	u32 i;

	bufs = kcalloc(n, sizeof(*bufs), GFP_KERNEL);
	if (!bufs)
		return NULL;
	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&bufs[i].list);
		bufs[i].sdp = sdp;
		bufs[i].data = kmalloc(size, GFP_KERNEL);
		if (!bufs[i].data)
			goto err;
		bufs[i].dma = ib_dma_map_single(dev, bufs[i].data, size, dir);
		if (ib_dma_mapping_error(dev, bufs[i].dma))
			goto err;
		bufs[i].mapped = true;
	}
	return bufs;
err:
	sdp_bufs_free(dev, bufs, n, size, dir, false);
	kfree(bufs);
	return NULL;
}

/*
 * The receive buffers and send slots, all of sdp->rx_size bytes: buf_size,
 * or half of it (and so on, down to SDP_MIN_BUF_SIZE) if memory is too
 * fragmented for buffers that large (64 KiB is an order-4 allocation).
 * The size is what the Hello or HelloAck then advertises.
 */
static int sdp_conn_bufs_alloc(struct sdp_sock *sdp, struct ib_device *dev)
{
	u32 size;

	for (size = sdp_buf_size; size >= SDP_MIN_BUF_SIZE; size /= 2) {
		sdp->rx = sdp_bufs_alloc(sdp, dev, sdp_rx_bufs, size,
					 DMA_FROM_DEVICE);
		if (!sdp->rx)
			continue;
		sdp->tx = sdp_bufs_alloc(sdp, dev, SDP_TX_SLOTS, size,
					 DMA_TO_DEVICE);
		if (sdp->tx) {
			sdp->rx_size = size;
			sdp->rx_count = sdp_rx_bufs;
			return 0;
		}
		sdp_bufs_free(dev, sdp->rx, sdp_rx_bufs, size,
			      DMA_FROM_DEVICE, false);
		kfree(sdp->rx);
		sdp->rx = NULL;
	}
	return -ENOMEM;
}

/**
 * sdp_conn_alloc() - the resources of a connection on @id's device
 * @sdp: the socket
 * @id: its id, with a route (active) or a request (passive)
 *
 * A PD, one CQ for sends and receives (polled in a work queue), an RC QP
 * made by the RDMA CM, the receive buffers and the send slots.  Undone
 * by sdp_conn_free().
 *
 * Return: 0 or a negative errno.
 */
int sdp_conn_alloc(struct sdp_sock *sdp, struct rdma_cm_id *id)
{
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr attr = {};
	u32 sge, send_wr;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int ret;

	/*
	 * The slots, a spare, zero copy's REG_MR, LOCAL_INV and the RDMA
	 * READs of SDP_ZC_PAGES + 1 pages (an unaligned buffer), and a
	 * keepalive probe.
	 */
	sge = clamp_t(u32, min(dev->attrs.max_send_sge, dev->attrs.max_sge_rd),
		      1, SDP_ZC_PAGES + 1);
	send_wr = SDP_TX_SLOTS + 1 + 2 + DIV_ROUND_UP(SDP_ZC_PAGES + 1, sge) +
		  1;
	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	/* the signalled sends, the drain's two, flushes of the rest */
	cq = ib_alloc_cq(dev, sdp, sdp_rx_bufs + 1 + send_wr + 2, 0,
			 IB_POLL_WORKQUEUE);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err_pd;
	}
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.qp_type = IB_QPT_RC;
	/* our sends ask for completions; the READs' middles do not */
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = sdp_rx_bufs + 1;
	attr.cap.max_send_sge = sge;
	attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(id, pd, &attr);
	if (ret)
		goto err_cq;

	spin_lock_bh(&sdp->lock);
	sdp->pd = pd;
	sdp->cq = cq;
	sdp->qp = id->qp;
	sdp->qp_dead = false;
	spin_unlock_bh(&sdp->lock);

	ret = sdp_conn_bufs_alloc(sdp, dev);
	if (ret)
		goto err_qp;
	sdp->tx_free = SDP_TX_SLOTS;
	sdp->tx_size = sdp->rx_size;
	sdp->tx_seq = 1;
	ret = sdp_zc_conn_alloc(sdp);
	if (ret)
		goto err_qp;
	ret = sdp_post_recvs(sdp);
	if (ret)
		goto err_qp;
	return 0;

err_qp:
	/* the buffers, QP, CQ and PD as the teardown frees them */
	sdp_conn_free(sdp);
	return ret;
err_cq:
	ib_free_cq(cq);
err_pd:
	ib_dealloc_pd(pd);
	return ret;
}

/**
 * sdp_conn_free() - undo sdp_conn_alloc()
 * @sdp: the socket; its QP drained, nothing posted any more
 *
 * Receive buffers holding unread data stay (unmapped) until the reader
 * takes them or the socket goes.
 */
void sdp_conn_free(struct sdp_sock *sdp)
{
	struct ib_device *dev = sdp->pd ? sdp->pd->device : NULL;

	spin_lock_bh(&sdp->lock);
	sdp->qp_dead = true;
	spin_unlock_bh(&sdp->lock);
	if (sdp->qp) {
		rdma_destroy_qp(sdp->id);
		sdp->qp = NULL;
	}
	/* nothing can read an advert's pages now */
	sdp_zc_conn_free(sdp);
	if (sdp->cq) {
		ib_free_cq(sdp->cq);
		sdp->cq = NULL;
	}
	if (dev) {
		sdp_bufs_free(dev, sdp->rx, sdp->rx_count, sdp->rx_size,
			      DMA_FROM_DEVICE, true);
		sdp_bufs_free(dev, sdp->tx, SDP_TX_SLOTS, sdp->rx_size,
			      DMA_TO_DEVICE, false);
	}
	kfree(sdp->tx);
	sdp->tx = NULL;
	sdp->tx_free = 0;
	/* sdp->rx stays for the queued buffers: the destructor frees it */
	if (sdp->pd) {
		ib_dealloc_pd(sdp->pd);
		sdp->pd = NULL;
	}
}

/* The Bufs of our Hello or HelloAck, and our receive size. */
static void sdp_fill_bsdh(struct sdp_sock *sdp, struct sdp_bsdh *h, u8 mid,
			  u32 len)
{
	h->mid = mid;
	h->bufs = cpu_to_be16(sdp->rx_posted);
	h->len = cpu_to_be32(len);
	h->mseq = 0;
	h->mseq_ack = 0;
	sdp->adv_bufs = sdp->rx_posted;
	sdp->adv_seq = 0;
}

static void sdp_conn_param(struct rdma_conn_param *p, const void *data,
			   u8 len)
{
	memset(p, 0, sizeof(*p));
	p->private_data = data;
	p->private_data_len = len;
	p->responder_resources = 4;
	p->initiator_depth = 4;
	p->retry_count = 5;
	p->rnr_retry_count = 7;
}

/* Active side: the route is there; make the QP and send the Hello. */
static int sdp_connect_route(struct sdp_sock *sdp, struct rdma_cm_id *id)
{
	struct rdma_conn_param param;
	struct sdp_hh hh = {};
	int ret;

	ret = sdp_conn_alloc(sdp, id);
	if (ret)
		return ret;
	sdp_fill_bsdh(sdp, &hh.bsdh, SDP_MID_HELLO, sizeof(hh));
	hh.version = SDP_VERSION;
	hh.max_adverts = sdp_zcopy_thresh ? 1 : 0;
	hh.des_rem_rcv_sz = cpu_to_be32(sdp->rx_size);
	hh.local_rcv_sz = cpu_to_be32(sdp->rx_size);
	sdp_conn_param(&param, &hh, sizeof(hh));
	return rdma_connect_locked(id, &param);
}

/*
 * The peer's receive size (what we send at most, within our slots), its
 * credits, and whether it takes SrcAvails.
 */
static int sdp_set_tx_size(struct sdp_sock *sdp, u32 peer_size, u16 bufs,
			   u8 adverts)
{
	if (peer_size < SDP_MIN_BUF_SIZE || !bufs)
		return -EPROTO;
	spin_lock_bh(&sdp->lock);
	sdp->tx_size = min_t(u32, peer_size, sdp->rx_size);
	sdp->tx_credits = bufs;
	sdp->zc_peer = adverts > 0;
	spin_unlock_bh(&sdp->lock);
	return 0;
}

/* An error ends a connect or a connection. */
static void sdp_fail(struct sdp_sock *sdp, int err)
{
	spin_lock_bh(&sdp->lock);
	sdp_reset_locked(sdp, err);
	spin_unlock_bh(&sdp->lock);
}

/* Active side: the REP's HelloAck, then the connection is up. */
static void sdp_established_active(struct sdp_sock *sdp,
				   const struct rdma_cm_event *ev)
{
	const struct sdp_hah *hah = ev->param.conn.private_data;
	struct sock *sk = &sdp->sk;

	if (!hah || ev->param.conn.private_data_len < 24 ||
	    hah->bsdh.mid != SDP_MID_HELLO_ACK ||
	    hah->version >> 4 != SDP_VERSION >> 4 ||
	    sdp_set_tx_size(sdp, be32_to_cpu(hah->act_rcv_sz),
			    be16_to_cpu(hah->bsdh.bufs),
			    hah->ext_max_adverts)) {
		sdp_fail(sdp, ECONNREFUSED);
		return;
	}
	sdp_stat_add(sdp, SDP_STAT_ACTIVE_OPENS, 1);
	spin_lock_bh(&sdp->lock);
	sdp->connected = true;
	if (sk->sk_state == TCP_SYN_SENT)
		sk->sk_state = TCP_ESTABLISHED;
	sdp->last_rx = jiffies;
	sdp_keepalive_arm_locked(sdp);
	sdp_tx_flush_locked(sdp);
	spin_unlock_bh(&sdp->lock);
	sk->sk_state_change(sk);
	sk->sk_write_space(sk);
}

/* Passive side: the RTU came; the connection goes to the accept queue. */
static void sdp_established_passive(struct sdp_sock *sdp)
{
	struct sdp_sock *parent = READ_ONCE(sdp->parent);
	struct sock *sk = &sdp->sk;
	bool queued = false;

	sdp_stat_add(sdp, SDP_STAT_PASSIVE_OPENS, 1);
	spin_lock_bh(&sdp->lock);
	sdp->connected = true;
	if (sk->sk_state == TCP_SYN_RECV)
		sk->sk_state = TCP_ESTABLISHED;
	sdp->last_rx = jiffies;
	sdp_keepalive_arm_locked(sdp);
	sdp_tx_flush_locked(sdp);
	spin_unlock_bh(&sdp->lock);
	if (!parent)
		return;
	spin_lock_bh(&parent->lock);
	if (!list_empty(&sdp->accept_list)) {
		list_move_tail(&sdp->accept_list, &parent->accept_queue);
		queued = true;
	}
	spin_unlock_bh(&parent->lock);
	if (queued)
		parent->sk.sk_data_ready(&parent->sk);
}

/**
 * sdp_child_unlink() - take a passive connection off its listener
 * @sdp: the connection, with a parent
 *
 * If it was still queued, the queue's reference (the one accept() would
 * have taken over) is dropped here.  The parent's reference too.
 */
void sdp_child_unlink(struct sdp_sock *sdp)
{
	struct sdp_sock *parent = xchg(&sdp->parent, NULL);
	bool queued = false;

	if (!parent)
		return;
	spin_lock_bh(&parent->lock);
	if (!list_empty(&sdp->accept_list)) {
		list_del_init(&sdp->accept_list);
		parent->backlog_len--;
		queued = true;
	}
	spin_unlock_bh(&parent->lock);
	sock_put(&parent->sk);
	if (queued) {
		sock_set_flag(&sdp->sk, SOCK_DEAD);
		sock_put(&sdp->sk);
	}
}

/* A Hello we can answer: its header, version and sizes. */
static const struct sdp_hh *sdp_check_hello(const struct rdma_cm_event *ev)
{
	const struct sdp_hh *hh = ev->param.conn.private_data;

	if (!hh || ev->param.conn.private_data_len < sizeof(*hh))
		return NULL;
	if (hh->bsdh.mid != SDP_MID_HELLO ||
	    hh->version >> 4 != SDP_VERSION >> 4 || !hh->bsdh.bufs ||
	    be32_to_cpu(hh->local_rcv_sz) < SDP_MIN_BUF_SIZE)
		return NULL;
	return hh;
}

/*
 * A connection request to listener @lsdp on a new @id: a new socket,
 * its resources, and the REP with our HelloAck.  Non-zero refuses it
 * (the CM rejects and destroys @id).
 */
static int sdp_connect_request(struct sdp_sock *lsdp, struct rdma_cm_id *id,
			       const struct rdma_cm_event *ev)
{
	struct sock *lsk = &lsdp->sk;
	struct rdma_conn_param param;
	const struct sdp_hh *hh;
	struct sdp_hah *hah;
	struct sdp_sock *sdp;
	struct sock *sk;
	int ret;

	hh = sdp_check_hello(ev);
	if (!hh)
		return -EPROTO;
	spin_lock_bh(&lsdp->lock);
	if (lsk->sk_state != TCP_LISTEN || lsdp->destroying ||
	    lsdp->backlog_len > READ_ONCE(lsk->sk_max_ack_backlog)) {
		spin_unlock_bh(&lsdp->lock);
		return -ECONNREFUSED;
	}
	lsdp->backlog_len++;
	spin_unlock_bh(&lsdp->lock);

	ret = -ENOMEM;
	hah = kzalloc(sizeof(*hah), GFP_KERNEL);
	if (!hah)
		goto err_backlog;
	sk = sdp_sk_alloc(sock_net(lsk), NULL, 0);
	if (!sk)
		goto err_hah;
	sdp = sdp_sk(sk);
	sdp->family = lsdp->family;
	sk->sk_state = TCP_SYN_RECV;
	sk->sk_rcvbuf = lsk->sk_rcvbuf;
	sk->sk_sndbuf = lsk->sk_sndbuf;
	sdp->nodelay = lsdp->nodelay;
	/* as TCP's: SO_KEEPALIVE and its times are inherited */
	sock_valbool_flag(sk, SOCK_KEEPOPEN, sock_flag(lsk, SOCK_KEEPOPEN));
	sdp->ka_idle = READ_ONCE(lsdp->ka_idle);
	sdp->ka_intvl = READ_ONCE(lsdp->ka_intvl);
	sdp->ka_cnt = READ_ONCE(lsdp->ka_cnt);

	sdp->id = id;		/* for sdp_conn_free(), not referenced yet */
	ret = sdp_conn_alloc(sdp, id);
	if (ret)
		goto err_sk;
	ret = sdp_set_tx_size(sdp, be32_to_cpu(hh->local_rcv_sz),
			      be16_to_cpu(hh->bsdh.bufs), hh->max_adverts);
	if (ret)
		goto err_conn;
	sdp_fill_bsdh(sdp, &hah->bsdh, SDP_MID_HELLO_ACK, sizeof(*hah));
	hah->version = SDP_VERSION;
	hah->ext_max_adverts = sdp_zcopy_thresh ? 1 : 0;
	hah->act_rcv_sz = cpu_to_be32(sdp->rx_size);

	/* from here on the id is the socket's, and the queue's */
	id->context = sdp;
	sock_hold(sk);
	sock_hold(lsk);
	sdp->parent = lsdp;
	spin_lock_bh(&lsdp->lock);
	list_add_tail(&sdp->accept_list, &lsdp->syn_queue);
	spin_unlock_bh(&lsdp->lock);

	sdp_conn_param(&param, hah, sizeof(*hah));
	ret = rdma_accept(id, &param);
	kfree(hah);
	if (ret)
		sdp_fail(sdp, ECONNABORTED);
	return 0;

err_conn:
	sdp_conn_free(sdp);
	kfree(sdp->rx);
	sdp->rx = NULL;
err_sk:
	sdp->id = NULL;
	sk->sk_state = TCP_CLOSE;
	sock_set_flag(sk, SOCK_DEAD);
	sock_put(sk);
err_hah:
	kfree(hah);
err_backlog:
	spin_lock_bh(&lsdp->lock);
	lsdp->backlog_len--;
	spin_unlock_bh(&lsdp->lock);
	return ret;
}

static int sdp_event_errno(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_UNREACHABLE:
		return -ETIMEDOUT;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return ev->status == -ETIMEDOUT ? -ETIMEDOUT : -EHOSTUNREACH;
	default:
		return -ECONNRESET;
	}
}

/**
 * sdp_cm_handler() - the events of every SDP id
 * @id: the id; its context is its socket (a listener's, for a request)
 * @ev: the event
 *
 * Return: non-zero only to refuse a connection request.
 */
int sdp_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct sdp_sock *sdp = id->context;
	int ret;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return sdp_connect_request(sdp, id, ev);
	if (READ_ONCE(sdp->destroying) || sdp->id != id)
		return 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, SDP_RESOLVE_MS);
		if (ret)
			sdp_fail(sdp, EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = sdp_connect_route(sdp, id);
		if (ret)
			sdp_fail(sdp, ret == -ENOMEM ? ENOMEM : EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (sdp->parent || sdp->sk.sk_state == TCP_SYN_RECV)
			sdp_established_passive(sdp);
		else
			sdp_established_active(sdp, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		sdp_fail(sdp, -sdp_event_errno(ev));
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* EOF or reset is decided once the QP is drained */
		spin_lock_bh(&sdp->lock);
		sdp_queue_destroy(sdp);
		spin_unlock_bh(&sdp->lock);
		break;
	default:
		break;
	}
	return 0;
}
