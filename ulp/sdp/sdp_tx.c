// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sending half of SDP's buffered copy: the send slots, the BSDH of
 * every message we send, credits (the peer's receive buffers we may still
 * fill), the control messages (DisConn, and credit updates, which are Data
 * messages without payload), sendmsg() and the send completions.
 *
 * A sender reserves a slot and a credit under sdp_sock.lock, copies the
 * user's data into the slot without the lock (the copy may fault), and
 * posts it under the lock again, which is when its MSeq is given: posts
 * and sequence numbers are in the same order.  Control messages are built
 * and posted in one go under the lock, from any context.  One credit and
 * one slot are always left to them, so that a DisConn or a credit update
 * cannot be starved by data.
 */
#include <linux/sched/signal.h>
#include <linux/uio.h>

#include "sdp.h"

/**
 * sdp_slot_get_locked() - take a free send slot
 * @sdp: the socket, its lock held
 *
 * Return: the slot, busy, or NULL if none is free.
 */
struct sdp_buf *sdp_slot_get_locked(struct sdp_sock *sdp)
{
	u32 i;

	if (!sdp->tx || !sdp->tx_free)
		return NULL;
	for (i = 0; i < SDP_TX_SLOTS; i++) {
		if (!sdp->tx[i].busy) {
			sdp->tx[i].busy = true;
			sdp->tx_free--;
			return &sdp->tx[i];
		}
	}
	return NULL;
}

/**
 * sdp_slot_put_locked() - give a send slot back
 * @sdp: the socket, its lock held
 * @slot: the slot
 */
void sdp_slot_put_locked(struct sdp_sock *sdp, struct sdp_buf *slot)
{
	slot->busy = false;
	sdp->tx_free++;
}

/**
 * sdp_writable() - may a sender have a slot and a credit now
 * @sdp: the socket
 *
 * Return: true if data can be sent without waiting.
 */
bool sdp_writable(const struct sdp_sock *sdp)
{
	return !sdp->qp_dead && sdp->tx && sdp->tx_free >= 2 &&
	       sdp->tx_credits >= 2 && !sdp->zc_tx.busy;
}

/**
 * sdp_post_locked() - send a slot
 * @sdp: the socket, its lock held
 * @slot: the slot, @payload bytes after room for the header
 * @mid: the message ID
 * @payload: bytes after the header
 *
 * The header is filled in here; the caller counted the credit.
 *
 * Return: 0 or the error of the post.
 */
int sdp_post_locked(struct sdp_sock *sdp, struct sdp_buf *slot, u8 mid,
		    u32 payload)
{
	struct sdp_bsdh *h = slot->data;
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	int ret;

	if (sdp->qp_dead)
		return -EPIPE;
	h->mid = mid;
	h->flags = 0;
	h->bufs = cpu_to_be16(min_t(u32, sdp->rx_posted, U16_MAX));
	h->len = cpu_to_be32(sizeof(*h) + payload);
	h->mseq = cpu_to_be32(sdp->tx_seq);
	h->mseq_ack = cpu_to_be32(sdp->rx_seq);
	slot->len = sizeof(*h) + payload;
	ib_dma_sync_single_for_device(sdp->pd->device, slot->dma, slot->len,
				      DMA_TO_DEVICE);
	sge.addr = slot->dma;
	sge.length = slot->len;
	sge.lkey = sdp->pd->local_dma_lkey;
	slot->cqe.done = sdp_tx_done;
	wr.wr_cqe = &slot->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(sdp->qp, &wr, NULL);
	if (ret)
		return ret;
	sdp->tx_seq++;
	sdp->adv_bufs = sdp->rx_posted;
	sdp->adv_seq = sdp->rx_seq;
	sdp->tx_queued += payload;
	return 0;
}

/**
 * sdp_post_ctrl_locked() - a control message now, if a slot and a credit
 *	allow
 * @sdp: the socket, its lock held
 * @mid: its message ID
 * @ext: the header that follows the BSDH, or NULL
 * @ext_len: its length
 *
 * Return: true if it was posted.
 */
bool sdp_post_ctrl_locked(struct sdp_sock *sdp, u8 mid, const void *ext,
			  u32 ext_len)
{
	struct sdp_buf *slot;

	if (sdp->qp_dead || sdp->tx_credits < 1)
		return false;
	slot = sdp_slot_get_locked(sdp);
	if (!slot)
		return false;
	if (ext_len)
		memcpy(slot->data + sizeof(struct sdp_bsdh), ext, ext_len);
	if (sdp_post_locked(sdp, slot, mid, ext_len)) {
		sdp_slot_put_locked(sdp, slot);
		sdp_reset_locked(sdp, ECONNRESET);
		return false;
	}
	sdp->tx_credits--;
	return true;
}

/*
 * Whether the peer needs to hear of our receive buffers: what it believes
 * we have posted (our last Bufs less the messages received since) is at
 * most half of them and below what we have.
 */
static bool sdp_need_update_locked(const struct sdp_sock *sdp)
{
	s64 view = (s64)sdp->adv_bufs - (u32)(sdp->rx_seq - sdp->adv_seq);

	return view < sdp->rx_posted && view <= sdp->rx_count / 2;
}

/**
 * sdp_tx_flush_locked() - send the control messages that are due
 * @sdp: the socket, its lock held
 *
 * The zero-copy messages that wait for a credit, a DisConn waiting for
 * one (after all data, an advert included), then a credit update if the
 * peer is running short of our receive buffers.
 */
void sdp_tx_flush_locked(struct sdp_sock *sdp)
{
	sdp_zc_flush_locked(sdp);
	if (sdp->fin_pending && !sdp->tx_reserved && !sdp->zc_tx.busy &&
	    sdp_post_ctrl_locked(sdp, SDP_MID_DISCONN, NULL, 0)) {
		sdp->fin_pending = false;
		sdp->fin_posted = true;
	}
	if (sdp->connected && !sdp->fin_posted &&
	    sdp_need_update_locked(sdp))
		sdp_post_ctrl_locked(sdp, SDP_MID_DATA, NULL, 0);
}

/**
 * sdp_credits_locked() - the credits a received BSDH gives
 * @sdp: the socket, its lock held
 * @h: the header
 *
 * Our credits are the peer's posted buffers (@h->bufs) less our messages
 * it had not received when it sent @h (MSeq beyond its MSeqAck), less
 * those reserved by a sender.  An MSeqAck of a message we never sent
 * resets the connection.
 */
void sdp_credits_locked(struct sdp_sock *sdp, const struct sdp_bsdh *h)
{
	u32 sent = sdp->tx_seq - 1;
	u32 in_flight = sent - be32_to_cpu(h->mseq_ack);
	int credits;

	if (in_flight > sent) {
		sdp_reset_locked(sdp, ECONNRESET);
		return;
	}
	credits = (int)be16_to_cpu(h->bufs) - (int)min_t(u32, in_flight,
							 U16_MAX + 1);
	credits -= sdp->tx_reserved;
	sdp->tx_credits = max(credits, 0);
}

/**
 * sdp_tx_done() - a send completed
 * @cq: the socket's CQ
 * @wc: its completion
 *
 * Frees the slot; our DisConn completing ends a close whose peer has
 * closed too, our AbortConn completing (or flushed) lets the teardown
 * disconnect.  An error other than a flush resets the connection.
 */
void sdp_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sdp_buf *slot = container_of(wc->wr_cqe, struct sdp_buf, cqe);
	struct sdp_sock *sdp = slot->sdp;
	struct sock *sk = &sdp->sk;
	const struct sdp_bsdh *h = slot->data;

	spin_lock_bh(&sdp->lock);
	sdp->tx_queued -= slot->len - sizeof(*h);
	if (h->mid == SDP_MID_ABORT)
		complete(&sdp->abort_done);
	sdp_slot_put_locked(sdp, slot);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			sdp_reset_locked(sdp, ECONNRESET);
		spin_unlock_bh(&sdp->lock);
		sk->sk_write_space(sk);
		return;
	}
	if (h->mid == SDP_MID_DISCONN) {
		sdp->fin_done = true;
		if (sdp->peer_fin)
			sdp_queue_destroy(sdp);
	}
	sdp_tx_flush_locked(sdp);
	spin_unlock_bh(&sdp->lock);
	sk->sk_write_space(sk);
}

/* An error to give a sender now, or 0. */
static int sdp_send_error(struct sock *sk)
{
	int err = sock_error(sk);

	if (err)
		return err;
	if (sk->sk_shutdown & SEND_SHUTDOWN)
		return -EPIPE;
	/* as TCP: EPIPE on a socket that is neither connected nor connecting */
	if (sk->sk_state != TCP_ESTABLISHED && sk->sk_state != TCP_CLOSE_WAIT)
		return sk->sk_state == TCP_SYN_SENT ? -EAGAIN : -EPIPE;
	return 0;
}

/*
 * Whether sdp_send_error() has an error to give (a connect in progress is
 * waited for), without taking it: a wait's condition must leave it for
 * the sender.
 */
static bool sdp_send_stopped(const struct sock *sk)
{
	return READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN) ||
	       (sk->sk_state != TCP_ESTABLISHED &&
		sk->sk_state != TCP_CLOSE_WAIT && sk->sk_state != TCP_SYN_SENT);
}

/**
 * sdp_wait_writable() - wait for a slot and a credit
 * @sk: the socket, locked (the lock is let go while waiting)
 * @timeo: the time left, updated
 *
 * Return: 0 when they are there, else a negative errno.
 */
int sdp_wait_writable(struct sock *sk, long *timeo)
{
	struct sdp_sock *sdp = sdp_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		err = sdp_send_error(sk);
		if (err == -EAGAIN && sk->sk_state == TCP_SYN_SENT)
			err = 0;	/* a non-blocking connect: wait for it */
		if (err)
			break;
		if (sk->sk_state != TCP_SYN_SENT && sdp_writable(sdp))
			break;
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		sk_wait_event(sk, timeo, sdp_send_stopped(sk) ||
			      (sk->sk_state != TCP_SYN_SENT &&
			       sdp_writable(sdp)), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/**
 * sdp_sendmsg() - proto_ops.sendmsg
 * @sock: the socket
 * @msg: the data and flags
 * @len: its length
 *
 * Each message carries up to the peer's buffer size less the header;
 * a blocking send of at least sdp_zcopy_thresh bytes from user memory
 * offers them by SrcAvail instead (sdp_zcopy.c), unless the peer
 * declines.  Blocks while there is no credit, unless non-blocking
 * (EAGAIN, or the bytes already sent).  After a reset or shutdown EPIPE,
 * with SIGPIPE unless MSG_NOSIGNAL.
 *
 * Return: the bytes sent, or a negative errno.
 */
int sdp_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	bool declined = false;
	size_t sent = 0;
	ssize_t zc;
	long timeo;
	int err = 0;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE |
			       MSG_EOR | MSG_CMSG_COMPAT | MSG_WAITALL))
		return -EOPNOTSUPP;
	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	while (sent < len) {
		struct sdp_buf *slot;
		size_t n;

		err = sdp_wait_writable(sk, &timeo);
		if (err)
			break;
		if (!declined && sdp_zc_usable(sdp, msg, len - sent, timeo)) {
			zc = sdp_zc_send(sdp, msg, len - sent, &timeo,
					 &declined);
			if (zc < 0) {
				err = zc;
				break;
			}
			sent += zc;
			continue;
		}
		spin_lock_bh(&sdp->lock);
		if (!sdp_writable(sdp)) {
			spin_unlock_bh(&sdp->lock);
			continue;
		}
		slot = sdp_slot_get_locked(sdp);
		sdp->tx_credits--;
		sdp->tx_reserved++;
		spin_unlock_bh(&sdp->lock);

		n = min_t(size_t, len - sent,
			  sdp->tx_size - sizeof(struct sdp_bsdh));
		if (copy_from_iter(slot->data + sizeof(struct sdp_bsdh), n,
				   &msg->msg_iter) != n)
			err = -EFAULT;

		spin_lock_bh(&sdp->lock);
		sdp->tx_reserved--;
		if (!err)
			err = sdp_post_locked(sdp, slot, SDP_MID_DATA, n);
		if (err) {
			sdp_slot_put_locked(sdp, slot);
			sdp->tx_credits++;
		} else {
			sdp->bytes_sent += n;
			sdp_stat_add(sdp, SDP_STAT_TX_BCOPY, n);
			sent += n;
		}
		if (sdp->fin_pending)
			sdp_tx_flush_locked(sdp);
		spin_unlock_bh(&sdp->lock);
		if (err)
			break;
	}
	release_sock(sk);
	if (sent)
		return sent;
	if (err == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
}
