// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SDP's zero copy, source-advertised (IBTA Annex A4): a blocking send of
 * at least sdp_zcopy_thresh bytes from user memory pins the user's pages,
 * registers them with the connection's fast-registration MR for remote
 * reading and offers them in a SrcAvail {len, rkey, vaddr}; the sink
 * reads them by RDMA READ straight into its reader's pages and answers
 * with an RdmaRdCompl naming the bytes it took.  The sender then
 * invalidates the MR and lets the pages go.  One advert is out at a time
 * per connection, and it is the last data of the stream while it is: no
 * other data, and no DisConn, is sent until its RdmaRdCompl.
 *
 * Either side may end an advert early.  The sink declines the rest of one
 * (RdmaRdCompl with the bytes read so far) when its reader peeks,
 * discards or has no user memory to read into; the sender then sends the
 * rest by buffered copy.  A sender interrupted by a signal sends
 * SrcAvailCancel and waits, at most SDP_ZC_TIMEOUT, for the RdmaRdCompl
 * that answers it; a sink that gets SendSM-like silence past that is
 * reset.  A peer's SendSM stops our adverts on the connection.
 *
 * Locking: the advert's state is under sdp_sock.lock, like all the data
 * path; the pinned pages, their mapping and the MR belong to whoever holds
 * the socket lock: the sender (which lets the lock go only while it waits
 * for the RdmaRdCompl), or the teardown, which releases them in
 * sdp_zc_conn_free() once the QP is destroyed and nothing can read them
 * any more.  A sink keeps the socket lock through its RDMA READ, so the
 * QP and its pages stay until the READ completes.
 *
 * Every field of a peer's SrcAvail, RdmaRdCompl and SrcAvailCancel is
 * checked: an advert while one is open, of zero bytes, a completion of
 * more bytes than offered or without an advert reset the connection.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uio.h>
#include <rdma/rw.h>

#include "sdp.h"

/* ------------------------------------------------------------------ */
/* The connection's resources                                          */
/* ------------------------------------------------------------------ */

static void sdp_zc_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sdp_sock *sdp = container_of(wc->wr_cqe, struct sdp_sock,
					    zc_tx.reg_cqe);

	if (wc->status == IB_WC_SUCCESS || wc->status == IB_WC_WR_FLUSH_ERR)
		return;
	spin_lock_bh(&sdp->lock);
	sdp_reset_locked(sdp, ECONNRESET);
	spin_unlock_bh(&sdp->lock);
}

static void sdp_zc_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sdp_sock *sdp = container_of(wc->wr_cqe, struct sdp_sock,
					    zc_tx.inv_cqe);

	WRITE_ONCE(sdp->zc_tx.inv_status, wc->status);
	complete(&sdp->zc_tx.inv_done);
}

static void sdp_zc_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sdp_sock *sdp = container_of(wc->wr_cqe, struct sdp_sock,
					    zc_rx.cqe);

	WRITE_ONCE(sdp->zc_rx.status, wc->status);
	complete(&sdp->zc_rx.read_done);
}

/**
 * sdp_zc_conn_alloc() - what zero copy needs on a new connection
 * @sdp: the socket, its PD and QP made
 *
 * The MR of the adverts, if zero copy is on and the device registers
 * memory; without it the connection still reads its peer's adverts.
 *
 * Return: 0 (zero copy as a source is merely off without an MR).
 */
int sdp_zc_conn_alloc(struct sdp_sock *sdp)
{
	struct ib_device *dev = sdp->pd->device;
	struct ib_mr *mr;

	memset(&sdp->zc_tx, 0, sizeof(sdp->zc_tx));
	memset(&sdp->zc_rx, 0, sizeof(sdp->zc_rx));
	sdp->zc_tx.reg_cqe.done = sdp_zc_reg_done;
	sdp->zc_tx.inv_cqe.done = sdp_zc_inv_done;
	init_completion(&sdp->zc_tx.inv_done);
	init_completion(&sdp->zc_tx.answered);
	sdp->zc_rx.cqe.done = sdp_zc_read_done;
	init_completion(&sdp->zc_rx.read_done);
	if (!sdp_zcopy_thresh ||
	    !(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		return 0;
	mr = ib_alloc_mr(sdp->pd, IB_MR_TYPE_MEM_REG, SDP_ZC_PAGES + 1);
	if (!IS_ERR(mr))
		sdp->zc_tx.mr = mr;
	return 0;
}

/* The advert's pages: unmapped, unpinned, forgotten. */
static void sdp_zc_tx_unpin(struct sdp_sock *sdp)
{
	struct sdp_zc_tx *zt = &sdp->zc_tx;
	unsigned int i;

	if (zt->nents)
		ib_dma_unmap_sg(sdp->pd->device, zt->sgt.sgl,
				zt->sgt.orig_nents, DMA_TO_DEVICE);
	zt->nents = 0;
	if (zt->sgt.sgl)
		sg_free_table(&zt->sgt);
	zt->sgt.sgl = NULL;
	for (i = 0; i < zt->npages; i++)
		put_page(zt->pages[i]);
	kfree(zt->pages);
	zt->pages = NULL;
	zt->npages = 0;
}

/**
 * sdp_zc_conn_free() - undo sdp_zc_conn_alloc()
 * @sdp: the socket, its QP destroyed (nothing reads the pages any more),
 *	its PD still there; the socket lock held
 *
 * An advert still out has its pages let go here; its sender finds it
 * ended when it wakes.
 */
void sdp_zc_conn_free(struct sdp_sock *sdp)
{
	struct sdp_zc_rx *zr = &sdp->zc_rx;

	/* sdp_zc_conn_alloc() never ran */
	if (!sdp->pd || !sdp->zc_tx.reg_cqe.done)
		return;
	sdp_zc_tx_unpin(sdp);
	spin_lock_bh(&sdp->lock);
	sdp->zc_tx.done = true;
	if (zr->active)
		sdp->rx_bytes -= zr->len - zr->done;
	zr->active = false;
	spin_unlock_bh(&sdp->lock);
	complete_all(&sdp->zc_tx.answered);
	if (sdp->zc_tx.mr)
		ib_dereg_mr(sdp->zc_tx.mr);
	sdp->zc_tx.mr = NULL;
}

/* ------------------------------------------------------------------ */
/* The source                                                          */
/* ------------------------------------------------------------------ */

/**
 * sdp_zc_usable() - whether a send goes by SrcAvail
 * @sdp: the socket, locked
 * @msg: the send
 * @len: bytes left to send
 * @timeo: the send timeout left
 *
 * Return: true for a blocking send without a timeout, from user memory,
 * of at least sdp_zcopy_thresh bytes, to a peer that takes adverts.
 */
bool sdp_zc_usable(const struct sdp_sock *sdp, const struct msghdr *msg,
		   size_t len, long timeo)
{
	unsigned int thresh = READ_ONCE(sdp_zcopy_thresh);

	return thresh && len >= thresh && sdp->zc_tx.mr &&
	       READ_ONCE(sdp->zc_peer) && timeo == MAX_SCHEDULE_TIMEOUT &&
	       user_backed_iter(&msg->msg_iter);
}

/* Pin up to @len bytes of @iter and map them for the device. */
static ssize_t sdp_zc_tx_pin(struct sdp_sock *sdp, struct iov_iter *iter,
			     size_t len)
{
	struct ib_device *dev = sdp->pd->device;
	struct sdp_zc_tx *zt = &sdp->zc_tx;
	size_t off;
	ssize_t got;
	int ret;

	zt->pages = kmalloc_array(SDP_ZC_PAGES, sizeof(*zt->pages),
				  GFP_KERNEL);
	if (!zt->pages)
		return -ENOMEM;
	got = iov_iter_get_pages2(iter, zt->pages, len, SDP_ZC_PAGES, &off);
	if (got <= 0) {
		kfree(zt->pages);
		zt->pages = NULL;
		return got ?: -EFAULT;
	}
	zt->npages = DIV_ROUND_UP(off + got, PAGE_SIZE);
	ret = sg_alloc_table_from_pages(&zt->sgt, zt->pages, zt->npages, off,
					got, GFP_KERNEL);
	if (ret) {
		zt->sgt.sgl = NULL;
		goto err;
	}
	zt->nents = ib_dma_map_sg(dev, zt->sgt.sgl, zt->sgt.orig_nents,
				  DMA_TO_DEVICE);
	if (!zt->nents) {
		ret = -ENOMEM;
		goto err;
	}
	ret = ib_map_mr_sg(zt->mr, zt->sgt.sgl, zt->nents, NULL, PAGE_SIZE);
	if (ret != zt->nents) {
		ret = ret < 0 ? ret : -EINVAL;
		goto err;
	}
	return got;

err:
	sdp_zc_tx_unpin(sdp);
	iov_iter_revert(iter, got);
	return ret;
}

/* Register the MR and post the SrcAvail of @len bytes; sdp->lock held. */
static int sdp_zc_tx_advertise(struct sdp_sock *sdp, struct sdp_buf *slot,
			       u32 len)
{
	struct sdp_zc_tx *zt = &sdp->zc_tx;
	struct ib_reg_wr reg = {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.wr_cqe = &zt->reg_cqe,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = zt->mr,
		.key = zt->mr->rkey,
		.access = IB_ACCESS_REMOTE_READ,
	};
	struct sdp_srcah *ah = slot->data + sizeof(struct sdp_bsdh);
	int ret;

	if (sdp->qp_dead)
		return -EPIPE;
	ret = ib_post_send(sdp->qp, &reg.wr, NULL);
	if (ret)
		return ret;
	ah->len = cpu_to_be32(len);
	ah->rkey = cpu_to_be32(zt->mr->rkey);
	ah->vaddr = cpu_to_be64(zt->mr->iova);
	return sdp_post_locked(sdp, slot, SDP_MID_SRCAVAIL, sizeof(*ah));
}

/*
 * The advert is answered or the connection ended: make sure the peer can
 * no longer read the pages (invalidate the MR, or stop the QP), then let
 * them go.  Socket lock held.
 */
static void sdp_zc_tx_end(struct sdp_sock *sdp)
{
	struct sdp_zc_tx *zt = &sdp->zc_tx;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV,
		.wr_cqe = &zt->inv_cqe,
		.send_flags = IB_SEND_SIGNALED,
	};
	bool stop = true;
	int ret;

	if (!zt->pages)
		return;			/* the teardown let them go */
	reinit_completion(&zt->inv_done);
	inv.ex.invalidate_rkey = zt->mr->rkey;
	spin_lock_bh(&sdp->lock);
	if (!sdp->qp_dead) {
		ret = ib_post_send(sdp->qp, &inv, NULL);
		stop = ret != 0;
	}
	spin_unlock_bh(&sdp->lock);
	/* a flushed LOCAL_INV: the QP is in error already */
	if (!stop && (!wait_for_completion_timeout(&zt->inv_done,
						   SDP_ZC_TIMEOUT) ||
		      READ_ONCE(zt->inv_status) != IB_WC_SUCCESS))
		stop = true;
	if (stop) {
		/* an RC QP in error answers no READ: the pages are safe */
		ib_modify_qp(sdp->qp, &attr, IB_QP_STATE);
		spin_lock_bh(&sdp->lock);
		sdp_reset_locked(sdp, ECONNRESET);
		spin_unlock_bh(&sdp->lock);
	}
	sdp_zc_tx_unpin(sdp);
}

/* The sender's wait for the RdmaRdCompl; socket lock held, let go. */
static int sdp_zc_tx_wait(struct sdp_sock *sdp, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &sdp->sk;
	struct sdp_zc_tx *zt = &sdp->zc_tx;
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (!READ_ONCE(zt->done) && !READ_ONCE(sdp->qp_dead) &&
	       !signal_pending(current))
		sk_wait_event(sk, timeo, READ_ONCE(zt->done) ||
			      READ_ONCE(sdp->qp_dead), &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
	if (READ_ONCE(zt->done) || READ_ONCE(sdp->qp_dead))
		return 0;

	/* a signal: cancel, then wait (not for ever) for the answer */
	err = sock_intr_errno(*timeo);
	spin_lock_bh(&sdp->lock);
	if (!zt->done && !sdp_post_ctrl_locked(sdp, SDP_MID_SRCAVAIL_CANCEL,
					       NULL, 0))
		zt->cancel_pending = true;
	spin_unlock_bh(&sdp->lock);
	release_sock(sk);
	wait_for_completion_timeout(&zt->answered, SDP_ZC_TIMEOUT);
	lock_sock(sk);
	if (!READ_ONCE(zt->done) && !READ_ONCE(sdp->qp_dead)) {
		spin_lock_bh(&sdp->lock);
		sdp_reset_locked(sdp, ETIMEDOUT);
		spin_unlock_bh(&sdp->lock);
	}
	return err;
}

/**
 * sdp_zc_send() - send by SrcAvail
 * @sdp: the socket, locked, writable (a slot and a credit)
 * @msg: the send; its iterator advances by what the peer read
 * @len: bytes left to send (at least sdp_zcopy_thresh)
 * @timeo: the send timeout left
 * @declined: set if the peer took less than offered: the rest of this
 *	send goes by buffered copy
 *
 * Offers up to SDP_ZC_PAGES pages of @msg and waits until the peer has
 * read them.
 *
 * Return: the bytes the peer read (0 if it declined them all), or a
 * negative errno: the connection's error, -EPIPE, or that of a signal.
 */
ssize_t sdp_zc_send(struct sdp_sock *sdp, struct msghdr *msg, size_t len,
		    long *timeo, bool *declined)
{
	struct sdp_zc_tx *zt = &sdp->zc_tx;
	struct sock *sk = &sdp->sk;
	struct sdp_buf *slot;
	u32 read = 0;
	ssize_t got;
	int err;

	spin_lock_bh(&sdp->lock);
	if (!sdp_writable(sdp)) {
		spin_unlock_bh(&sdp->lock);
		return 0;		/* the caller waits again */
	}
	zt->busy = true;
	zt->done = false;
	reinit_completion(&zt->answered);
	zt->cancel_pending = false;
	zt->read = 0;
	sdp->tx_credits--;
	sdp->tx_reserved++;
	slot = sdp_slot_get_locked(sdp);
	spin_unlock_bh(&sdp->lock);

	got = sdp_zc_tx_pin(sdp, &msg->msg_iter,
			    min_t(size_t, len, U32_MAX & PAGE_MASK));
	spin_lock_bh(&sdp->lock);
	sdp->tx_reserved--;
	if (got > 0) {
		zt->len = got;
		ib_update_fast_reg_key(zt->mr, ib_inc_rkey(zt->mr->rkey));
		err = sdp_zc_tx_advertise(sdp, slot, got);
	} else {
		err = got;
	}
	if (err) {
		sdp_slot_put_locked(sdp, slot);
		sdp->tx_credits++;
		zt->done = true;
	}
	spin_unlock_bh(&sdp->lock);
	if (err) {
		if (got > 0) {
			/* the REG_MR may be out: stop the QP before unpinning */
			sdp_zc_tx_end(sdp);
			iov_iter_revert(&msg->msg_iter, got);
		}
		/* a bad address fails the send; the rest goes by copy */
		if (err != -EFAULT) {
			*declined = true;
			err = 0;
		}
		goto out;
	}

	err = sdp_zc_tx_wait(sdp, timeo);
	spin_lock_bh(&sdp->lock);
	read = zt->done ? zt->read : 0;
	spin_unlock_bh(&sdp->lock);
	sdp_zc_tx_end(sdp);
	iov_iter_revert(&msg->msg_iter, got - read);
	if (read) {
		sdp->zc_sent += read;
		sdp_stat_add(sdp, SDP_STAT_TX_ZCOPY, read);
		err = 0;
	}
	/* the rest by buffered copy, or the error from sdp_wait_writable() */
	if (read < got)
		*declined = true;
out:
	spin_lock_bh(&sdp->lock);
	zt->busy = false;
	zt->done = false;
	zt->cancel_pending = false;
	sdp_tx_flush_locked(sdp);
	spin_unlock_bh(&sdp->lock);
	sk->sk_write_space(sk);
	return err ? err : read;
}

/* ------------------------------------------------------------------ */
/* The sink                                                            */
/* ------------------------------------------------------------------ */

/* End the peer's advert with an RdmaRdCompl of what was read; lock held. */
static void sdp_zc_rx_finish_locked(struct sdp_sock *sdp)
{
	struct sdp_zc_rx *zr = &sdp->zc_rx;

	sdp->rx_bytes -= zr->len - zr->done;
	zr->active = false;
	zr->cancelled = false;
	zr->compl_pending = true;
	zr->compl_size = zr->done;
	sdp_tx_flush_locked(sdp);
}

/**
 * sdp_zc_decline_locked() - the reader will not take the advert
 * @sdp: the socket, its lock held, an advert open and no READ in flight
 *
 * The source sends what is left by buffered copy.
 */
void sdp_zc_decline_locked(struct sdp_sock *sdp)
{
	sdp_zc_rx_finish_locked(sdp);
}

/**
 * sdp_zc_flush_locked() - the zero-copy messages that wait for a credit
 * @sdp: the socket, its lock held
 */
void sdp_zc_flush_locked(struct sdp_sock *sdp)
{
	struct sdp_zc_rx *zr = &sdp->zc_rx;
	__be32 size;

	if (zr->compl_pending) {
		size = cpu_to_be32(zr->compl_size);
		if (sdp_post_ctrl_locked(sdp, SDP_MID_RDMA_RD_COMPL, &size,
					 sizeof(size)))
			zr->compl_pending = false;
	}
	if (sdp->zc_tx.cancel_pending && !sdp->zc_tx.done &&
	    sdp_post_ctrl_locked(sdp, SDP_MID_SRCAVAIL_CANCEL, NULL, 0))
		sdp->zc_tx.cancel_pending = false;
}

/* A SrcAvail from the peer; lock held.  False for a protocol error. */
static bool sdp_zc_rx_srcavail(struct sdp_sock *sdp,
			       const struct sdp_srcah *ah, u32 ext_len)
{
	struct sdp_zc_rx *zr = &sdp->zc_rx;
	struct sock *sk = &sdp->sk;
	u32 len;

	/* we offered no adverts, or it is not the one header it must be */
	if (!sdp_zcopy_thresh || ext_len != sizeof(*ah))
		return false;
	len = be32_to_cpu(ah->len);
	if (!len || zr->active || zr->compl_pending || sdp->peer_fin)
		return false;
	if (sock_flag(sk, SOCK_DEAD)) {
		sdp_reset_locked(sdp, ECONNRESET);
		return true;
	}
	zr->len = len;
	zr->done = 0;
	zr->rkey = be32_to_cpu(ah->rkey);
	zr->vaddr = be64_to_cpu(ah->vaddr);
	zr->cancelled = false;
	zr->active = true;
	if (sk->sk_shutdown & RCV_SHUTDOWN) {
		/* as buffered data after SHUT_RD: taken and dropped */
		zr->done = len;
		sdp_zc_rx_finish_locked(sdp);
		return true;
	}
	sdp->rx_bytes += len;
	return true;
}

/**
 * sdp_zc_rx_msg_locked() - a zero-copy message from the peer
 * @sdp: the socket, its lock held
 * @mid: the message ID
 * @ext: what follows the BSDH
 * @ext_len: its length
 *
 * Return: false if the message is unknown or breaks the protocol (the
 * caller resets the connection).
 */
bool sdp_zc_rx_msg_locked(struct sdp_sock *sdp, u8 mid, const void *ext,
			  u32 ext_len)
{
	struct sdp_zc_tx *zt = &sdp->zc_tx;
	struct sdp_zc_rx *zr = &sdp->zc_rx;
	__be32 size;

	switch (mid) {
	case SDP_MID_SRCAVAIL:
		return sdp_zc_rx_srcavail(sdp, ext, ext_len);
	case SDP_MID_RDMA_RD_COMPL:
		if (ext_len != sizeof(size) || !zt->busy || zt->done)
			return false;
		memcpy(&size, ext, sizeof(size));
		if (be32_to_cpu(size) > zt->len)
			return false;
		zt->read = be32_to_cpu(size);
		zt->done = true;
		complete(&zt->answered);
		return true;
	case SDP_MID_SRCAVAIL_CANCEL:
		if (ext_len)
			return false;
		/* one that crossed our RdmaRdCompl finds nothing open */
		if (zr->active) {
			if (zr->reading)
				zr->cancelled = true;
			else
				sdp_zc_rx_finish_locked(sdp);
		}
		return true;
	case SDP_MID_SEND_SM:
		if (ext_len)
			return false;
		WRITE_ONCE(sdp->zc_peer, false);
		return true;
	default:
		return false;
	}
}

/* Pin the reader's pages for up to @len bytes; the scatterlist of them. */
static ssize_t sdp_zc_rx_pin(struct iov_iter *iter, size_t len,
			     struct page **pages, unsigned int *npages,
			     struct sg_table *sgt)
{
	size_t off;
	ssize_t got;
	unsigned int i;
	int ret;

	got = iov_iter_get_pages2(iter, pages, len, SDP_ZC_PAGES, &off);
	if (got <= 0)
		return got ?: -EFAULT;
	*npages = DIV_ROUND_UP(off + got, PAGE_SIZE);
	ret = sg_alloc_table_from_pages(sgt, pages, *npages, off, got,
					GFP_KERNEL);
	if (ret) {
		for (i = 0; i < *npages; i++)
			put_page(pages[i]);
		iov_iter_revert(iter, got);
		return ret;
	}
	return got;
}

/*
 * Post the READ of @sgt (@got bytes) from where the advert stands and
 * wait for it; socket lock held throughout.  0 or a negative errno.
 */
static int sdp_zc_rx_read(struct sdp_sock *sdp, struct sg_table *sgt,
			  size_t got)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct sdp_zc_rx *zr = &sdp->zc_rx;
	struct rdma_rw_ctx ctx;
	u32 port = sdp->id->port_num;
	int ret;

	ret = rdma_rw_ctx_init(&ctx, sdp->qp, port, sgt->sgl, sgt->orig_nents,
			       0, zr->vaddr + zr->done, zr->rkey,
			       DMA_FROM_DEVICE);
	if (ret < 0)
		return ret;
	reinit_completion(&zr->read_done);
	spin_lock_bh(&sdp->lock);
	ret = sdp->qp_dead ? -ECONNRESET :
	      rdma_rw_ctx_post(&ctx, sdp->qp, port, &zr->cqe, NULL);
	spin_unlock_bh(&sdp->lock);
	if (!ret) {
		/* the READ lands in the pages: it must end before they go */
		if (!wait_for_completion_timeout(&zr->read_done,
						 SDP_ZC_TIMEOUT)) {
			ib_modify_qp(sdp->qp, &attr, IB_QP_STATE);
			wait_for_completion(&zr->read_done);
		}
		ret = READ_ONCE(zr->status) == IB_WC_SUCCESS ? 0 : -ECONNRESET;
	}
	rdma_rw_ctx_destroy(&ctx, sdp->qp, port, sgt->sgl, sgt->orig_nents,
			    DMA_FROM_DEVICE);
	return ret;
}

/**
 * sdp_zc_recv() - read the peer's advert into the reader's memory
 * @sdp: the socket, locked, an advert open
 * @msg: the reader's message, user memory; advances by what was read
 * @len: bytes the reader still wants
 *
 * One RDMA READ of up to SDP_ZC_PAGES pages of @msg.  An advert read
 * to its end, or cancelled meanwhile, is answered with RdmaRdCompl.
 *
 * Return: the bytes read, or a negative errno (the connection is reset).
 */
ssize_t sdp_zc_recv(struct sdp_sock *sdp, struct msghdr *msg, size_t len)
{
	struct sdp_zc_rx *zr = &sdp->zc_rx;
	struct page **pages;
	unsigned int npages = 0, i;
	struct sg_table sgt;
	ssize_t got;
	int ret;

	pages = kmalloc_array(SDP_ZC_PAGES, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	/* from here a SrcAvailCancel waits for us (zr->cancelled) */
	spin_lock_bh(&sdp->lock);
	len = min_t(size_t, len, zr->active ? zr->len - zr->done : 0);
	zr->reading = len > 0;
	spin_unlock_bh(&sdp->lock);
	if (!len) {
		kfree(pages);
		return 0;
	}
	got = sdp_zc_rx_pin(&msg->msg_iter, len, pages, &npages, &sgt);
	if (got < 0) {
		ret = got;
		got = 0;
		goto out;
	}
	ret = sdp_zc_rx_read(sdp, &sgt, got);
	for (i = 0; i < npages; i++) {
		if (!ret)
			set_page_dirty_lock(pages[i]);
		put_page(pages[i]);
	}
	sg_free_table(&sgt);
out:
	kfree(pages);
	spin_lock_bh(&sdp->lock);
	zr->reading = false;
	if (ret == -EFAULT || ret == -ENOMEM) {
		/* the reader's memory, not the connection: */
		if (zr->active && zr->cancelled)
			sdp_zc_rx_finish_locked(sdp);
	} else if (ret) {
		sdp_reset_locked(sdp, ECONNRESET);
	} else {
		zr->done += got;
		sdp->rx_bytes -= got;
		sdp->zc_rcvd += got;
		sdp_stat_add(sdp, SDP_STAT_RX_ZCOPY, got);
		if (zr->done == zr->len || zr->cancelled)
			sdp_zc_rx_finish_locked(sdp);
	}
	spin_unlock_bh(&sdp->lock);
	if (ret) {
		iov_iter_revert(&msg->msg_iter, got);
		return ret;
	}
	return got;
}
