// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The receiving half of SDP's buffered copy: the receive buffers, the
 * checks of every message the peer sends (its BSDH is hostile input), the
 * receive queue, recvmsg() and the receive completions.
 *
 * A completed receive buffer holding data goes to the tail of
 * sdp_sock.rx_queue under sdp_sock.lock.  recvmsg() runs under the socket
 * lock, so there is one reader: it copies from the buffer at the head
 * without the spinlock (the completion handler only ever adds at the
 * tail, and the teardown frees queued buffers only in the socket's
 * destructor), then takes the spinlock to advance, unqueue and repost.
 */
#include <linux/sched/signal.h>
#include <linux/uio.h>

#include "sdp.h"

/* Post @buf for receiving; called with sdp->lock held. */
static int sdp_post_recv_locked(struct sdp_sock *sdp, struct sdp_buf *buf)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int ret;

	if (sdp->qp_dead || !buf->mapped)
		return -ENOTCONN;
	sge.addr = buf->dma;
	sge.length = sdp->rx_size;
	sge.lkey = sdp->pd->local_dma_lkey;
	buf->cqe.done = sdp_rx_done;
	wr.wr_cqe = &buf->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ib_dma_sync_single_for_device(sdp->pd->device, buf->dma, sdp->rx_size,
				      DMA_FROM_DEVICE);
	ret = ib_post_recv(sdp->qp, &wr, NULL);
	if (ret)
		return ret;
	buf->busy = true;
	sdp->rx_posted++;
	return 0;
}

/**
 * sdp_post_recvs() - post every receive buffer of a new connection
 * @sdp: the socket, its buffers allocated and mapped
 *
 * Return: 0 or the error of the post.
 */
int sdp_post_recvs(struct sdp_sock *sdp)
{
	int ret = 0;
	u32 i;

	spin_lock_bh(&sdp->lock);
	for (i = 0; i < sdp->rx_count && !ret; i++)
		ret = sdp_post_recv_locked(sdp, &sdp->rx[i]);
	spin_unlock_bh(&sdp->lock);
	return ret;
}

/**
 * sdp_rx_consumed_locked() - a receive buffer is read or not needed
 * @sdp: the socket, its lock held
 * @buf: the buffer, no longer queued
 *
 * Posted again while the connection lives; then perhaps a credit update.
 */
void sdp_rx_consumed_locked(struct sdp_sock *sdp, struct sdp_buf *buf)
{
	buf->busy = false;
	if (sdp_post_recv_locked(sdp, buf) && !sdp->qp_dead)
		sdp_reset_locked(sdp, ECONNRESET);
	sdp_tx_flush_locked(sdp);
}

/*
 * One message from the peer, checked against its completion's length and
 * our sequence; anything malformed resets the connection.
 */
static void sdp_rx_msg_locked(struct sdp_sock *sdp, struct sdp_buf *buf,
			      u32 byte_len)
{
	struct sock *sk = &sdp->sk;
	struct sdp_bsdh *h = buf->data;
	u32 payload;

	if (byte_len < sizeof(*h) || be32_to_cpu(h->len) != byte_len ||
	    be32_to_cpu(h->mseq) != sdp->rx_seq + 1) {
		net_dbg_ratelimited("sdp: malformed message (len %u)\n",
				    byte_len);
		goto reset;
	}
	sdp->rx_seq++;
	sdp_credits_locked(sdp, h);
	payload = byte_len - sizeof(*h);

	switch (h->mid) {
	case SDP_MID_DATA:
		if (!payload)
			break;
		if (sdp->peer_fin)
			goto reset;		/* data after DisConn */
		if (sock_flag(sk, SOCK_DEAD)) {
			/* as TCP answers data to a closed socket with RST */
			sdp_reset_locked(sdp, ECONNRESET);
			break;
		}
		if (sk->sk_shutdown & RCV_SHUTDOWN)
			break;			/* shut down for reading: dropped */
		buf->off = sizeof(*h);
		buf->len = byte_len;
		list_add_tail(&buf->list, &sdp->rx_queue);
		sdp->rx_bytes += payload;
		sdp->bytes_rcvd += payload;
		sdp_stat_add(sdp, SDP_STAT_RX_BCOPY, payload);
		return;
	case SDP_MID_DISCONN:
		if (payload || sdp->peer_fin)
			goto reset;
		sdp->peer_fin = true;
		sk->sk_shutdown |= RCV_SHUTDOWN;
		if (sk->sk_state == TCP_ESTABLISHED)
			sk->sk_state = TCP_CLOSE_WAIT;
		if (sdp->fin_done)
			sdp_queue_destroy(sdp);
		break;
	case SDP_MID_ABORT:
		if (payload)
			goto reset;
		sdp_stat_add(sdp, SDP_STAT_ABORTS_RCVD, 1);
		sdp_reset_locked(sdp, ECONNRESET);
		break;
	default:
		/* zero copy; the other modes are not implemented */
		if (!sdp_zc_rx_msg_locked(sdp, h->mid, h + 1, payload)) {
			net_dbg_ratelimited("sdp: message id 0x%02x refused\n",
					    h->mid);
			goto reset;
		}
		break;
	}
	sdp_rx_consumed_locked(sdp, buf);
	return;
reset:
	buf->busy = false;
	sdp_reset_locked(sdp, ECONNRESET);
}

/**
 * sdp_rx_done() - a receive completed
 * @cq: the socket's CQ
 * @wc: its completion
 */
void sdp_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sdp_buf *buf = container_of(wc->wr_cqe, struct sdp_buf, cqe);
	struct sdp_sock *sdp = buf->sdp;
	struct sock *sk = &sdp->sk;

	spin_lock_bh(&sdp->lock);
	sdp->rx_posted--;
	if (wc->status != IB_WC_SUCCESS) {
		buf->busy = false;
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			sdp_reset_locked(sdp, ECONNRESET);
		spin_unlock_bh(&sdp->lock);
		return;
	}
	ib_dma_sync_single_for_cpu(sdp->pd->device, buf->dma, sdp->rx_size,
				   DMA_FROM_DEVICE);
	sdp->last_rx = jiffies;
	sdp_rx_msg_locked(sdp, buf, wc->byte_len);
	spin_unlock_bh(&sdp->lock);
	sk->sk_data_ready(sk);
	sk->sk_write_space(sk);
}

/* An error or end of stream to give a reader that found no data. */
static int sdp_recv_error(struct sock *sk)
{
	if (sk->sk_err)
		return sock_error(sk);
	if (sk->sk_shutdown & RCV_SHUTDOWN)
		return 1;		/* end of stream */
	if (sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_LISTEN)
		return sdp_sk(sk)->connected ? 1 : -ENOTCONN;
	return 0;
}

/*
 * Whether sdp_recv_error() has something to give, without taking the
 * error: a wait's condition must leave it for the reader.
 */
static bool sdp_recv_stopped(const struct sock *sk)
{
	return READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_LISTEN;
}

/**
 * sdp_recvmsg() - proto_ops.recvmsg
 * @sock: the socket
 * @msg: where to
 * @len: at most this
 * @flags: MSG_PEEK, MSG_WAITALL, MSG_DONTWAIT, MSG_TRUNC (discard)
 *
 * Data the peer offers by SrcAvail (always the last in the stream) is
 * read by RDMA straight into the user's pages (sdp_zcopy.c); a peek, a
 * discard or a reader without user memory declines it instead, and it
 * comes again by buffered copy.
 *
 * Return: the bytes read, 0 at the end of the stream, or a negative errno.
 */
int sdp_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		int flags)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	bool peek = flags & MSG_PEEK;
	size_t copied = 0, peek_off = 0;
	bool zc;
	int target, err = 0;
	long timeo;

	if (flags & ~(MSG_PEEK | MSG_WAITALL | MSG_DONTWAIT | MSG_TRUNC |
		      MSG_NOSIGNAL | MSG_CMSG_COMPAT | MSG_ERRQUEUE))
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return -EAGAIN;
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		err = -ENOTCONN;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	while (copied < len) {
		struct sdp_buf *buf = NULL, *pos;
		size_t skip = peek_off, avail, n;

		spin_lock_bh(&sdp->lock);
		list_for_each_entry(pos, &sdp->rx_queue, list) {
			avail = pos->len - pos->off;
			if (skip < avail) {
				buf = pos;
				break;
			}
			skip -= avail;
		}
		zc = !buf && sdp->zc_rx.active;
		if (zc && (peek || (flags & MSG_TRUNC) ||
			   !user_backed_iter(&msg->msg_iter))) {
			sdp_zc_decline_locked(sdp);
			zc = false;
		}
		spin_unlock_bh(&sdp->lock);

		if (zc) {
			ssize_t n = sdp_zc_recv(sdp, msg, len - copied);

			if (n < 0) {
				err = n;
				break;
			}
			copied += n;
			continue;
		}
		if (buf) {
			avail = buf->len - buf->off - skip;
			n = min(avail, len - copied);
			if (!(flags & MSG_TRUNC) &&
			    copy_to_iter(buf->data + buf->off + skip, n,
					 &msg->msg_iter) != n) {
				err = -EFAULT;
				break;
			}
			copied += n;
			if (peek) {
				peek_off += n;
				continue;
			}
			spin_lock_bh(&sdp->lock);
			buf->off += n;
			sdp->rx_bytes -= n;
			if (buf->off == buf->len) {
				list_del(&buf->list);
				sdp_rx_consumed_locked(sdp, buf);
			}
			spin_unlock_bh(&sdp->lock);
			continue;
		}

		if (copied >= target)
			break;
		err = sdp_recv_error(sk);
		if (err) {
			if (err > 0)
				err = 0;
			break;
		}
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, &timeo, READ_ONCE(sdp->rx_bytes) > peek_off ||
			      sdp_recv_stopped(sk), &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
	}
out:
	release_sock(sk);
	if (copied)
		return copied;
	return err;
}
