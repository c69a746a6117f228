// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_sdp: the module, its parameters, the AF_INET_SDP family and its
 * socket calls (proto_ops), the sockets' life (allocation, close, the
 * teardown work, the destructor) and the module's list of sockets.
 *
 * Locking as in sdp.h.  sdp_list_lock (a spinlock) protects the list of
 * every socket of the module, which /proc/net/sdp walks.  The teardown
 * (sdp_destroy_work) runs in sdp_wq, takes the id's handler mutex to stop
 * its events, then the socket lock to free what the connection had; the
 * socket calls never wait for it while holding the socket lock.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/termios.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp_states.h>

#include "sdp.h"

MODULE_AUTHOR("ibstack");
MODULE_DESCRIPTION("Sockets Direct Protocol (AF_INET_SDP sockets over RDMA)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_NETPROTO(PF_INET_SDP);

unsigned int sdp_rx_bufs = 32;
module_param_named(rx_bufs, sdp_rx_bufs, uint, 0444);
MODULE_PARM_DESC(rx_bufs, "receive buffers per connection, 4..256 (32)");

unsigned int sdp_buf_size = 65536;
module_param_named(buf_size, sdp_buf_size, uint, 0444);
MODULE_PARM_DESC(buf_size,
		 "bytes of each receive buffer and send slot, BSDH included, 4096..65536 (65536)");

unsigned int sdp_zcopy_thresh = 65536;
module_param_named(zcopy_thresh, sdp_zcopy_thresh, uint, 0444);
MODULE_PARM_DESC(zcopy_thresh,
		 "sends of at least this many bytes go by zero copy (SrcAvail and RDMA READ), 0 for never, else 4096..1048576 (65536)");

struct workqueue_struct *sdp_wq;

static LIST_HEAD(sdp_sockets);
static DEFINE_SPINLOCK(sdp_sockets_lock);	/* sdp_sockets */

/* For /proc/net/sdp. */
void sdp_list_lock(void)
	__acquires(&sdp_sockets_lock)
{
	spin_lock_bh(&sdp_sockets_lock);
}

void sdp_list_unlock(void)
	__releases(&sdp_sockets_lock)
{
	spin_unlock_bh(&sdp_sockets_lock);
}

struct list_head *sdp_list(void)
{
	return &sdp_sockets;
}

static struct proto sdp_proto = {
	.name = "SDP",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct sdp_sock),
	.keepalive = sdp_keepalive_set,
};

/**
 * sdp_queue_destroy() - have the connection torn down
 * @sdp: the socket, its lock held
 *
 * Once per id; the id's reference keeps the socket until the work ends.
 */
void sdp_queue_destroy(struct sdp_sock *sdp)
{
	if (!sdp->id || sdp->destroy_queued)
		return;
	sdp->destroy_queued = true;
	queue_work(sdp_wq, &sdp->destroy_work);
}

/**
 * sdp_reset_locked() - the connection is reset
 * @sdp: the socket, its lock held
 * @err: the errno its user gets (positive)
 *
 * No more data either way; the teardown is queued.
 */
void sdp_reset_locked(struct sdp_sock *sdp, int err)
{
	struct sock *sk = &sdp->sk;

	if (sk->sk_state == TCP_SYN_SENT || sk->sk_state == TCP_SYN_RECV)
		sdp_stat_add(sdp, SDP_STAT_ATTEMPT_FAILS, 1);
	else if (sdp->connected && sk->sk_state != TCP_CLOSE &&
		 sk->sk_state != TCP_LISTEN)
		sdp_stat_add(sdp, SDP_STAT_RESETS, 1);
	if (!sk->sk_err && !sock_flag(sk, SOCK_DEAD) &&
	    !(sdp->peer_fin && sdp->fin_done))
		sk->sk_err = err;
	sk->sk_shutdown = SHUTDOWN_MASK;
	if (sk->sk_state != TCP_LISTEN)
		sk->sk_state = TCP_CLOSE;
	sdp->fin_pending = false;
	sdp_queue_destroy(sdp);
	sk->sk_state_change(sk);
}

/* A closed listener's connections not accepted: reset and let go. */
static void sdp_listener_flush(struct sdp_sock *lsdp)
{
	struct sdp_sock *child;

	for (;;) {
		spin_lock_bh(&lsdp->lock);
		child = list_first_entry_or_null(&lsdp->accept_queue,
						 struct sdp_sock, accept_list);
		if (!child)
			child = list_first_entry_or_null(&lsdp->syn_queue,
							 struct sdp_sock,
							 accept_list);
		if (child) {
			list_del_init(&child->accept_list);
			lsdp->backlog_len--;
		}
		spin_unlock_bh(&lsdp->lock);
		if (!child)
			break;
		spin_lock_bh(&child->lock);
		sock_set_flag(&child->sk, SOCK_DEAD);
		sdp_reset_locked(child, ECONNRESET);
		spin_unlock_bh(&child->lock);
		sock_put(&child->sk);	/* the queue's reference */
	}
}

/**
 * sdp_destroy_work() - tear a connection (or a listener) down
 * @work: sdp_sock.destroy_work
 *
 * Stops the id's events, disconnects, drains the QP so that every
 * completion is accounted for, decides between end of stream and reset
 * (a connection that ends without the peer's DisConn was reset), frees
 * the QP, CQ, buffers and PD before the id, whose device may be going.
 */
void sdp_destroy_work(struct work_struct *work)
{
	struct sdp_sock *sdp = container_of(work, struct sdp_sock,
					    destroy_work);
	struct sock *sk = &sdp->sk;
	struct rdma_cm_id *id = sdp->id;

	rdma_lock_handler(id);
	WRITE_ONCE(sdp->destroying, true);
	rdma_unlock_handler(id);

	lock_sock(sk);
	/* an AbortConn goes out before the disconnect flushes it */
	if (READ_ONCE(sdp->abort_posted))
		wait_for_completion_timeout(&sdp->abort_done,
					    SDP_ABORT_TIMEOUT);
	if (sdp->qp) {
		rdma_disconnect(id);
		spin_lock_bh(&sdp->lock);
		sdp->qp_dead = true;
		spin_unlock_bh(&sdp->lock);
		ib_drain_qp(sdp->qp);
	}
	spin_lock_bh(&sdp->lock);
	if (sdp->connected && !sdp->peer_fin && !sk->sk_err &&
	    !sock_flag(sk, SOCK_DEAD))
		sk->sk_err = ECONNRESET;
	sk->sk_shutdown = SHUTDOWN_MASK;
	sk->sk_state = TCP_CLOSE;
	spin_unlock_bh(&sdp->lock);
	sdp_conn_free(sdp);
	memcpy(&sdp->local, &id->route.addr.src_addr, sizeof(sdp->local));
	memcpy(&sdp->remote, &id->route.addr.dst_addr, sizeof(sdp->remote));
	rdma_destroy_id(id);
	spin_lock_bh(&sdp->lock);
	sdp->id = NULL;
	sdp->destroy_queued = false;
	WRITE_ONCE(sdp->destroying, false);
	spin_unlock_bh(&sdp->lock);
	release_sock(sk);

	sdp_child_unlink(sdp);
	sdp_listener_flush(sdp);
	cancel_delayed_work_sync(&sdp->close_work);
	sdp_keepalive_stop(sdp);
	sk->sk_state_change(sk);
	sk->sk_write_space(sk);
	sock_put(sk);		/* the id's */
}

/* A graceful close that took too long becomes a reset. */
static void sdp_close_timeout(struct work_struct *work)
{
	struct sdp_sock *sdp = container_of(to_delayed_work(work),
					    struct sdp_sock, close_work);

	spin_lock_bh(&sdp->lock);
	sdp_reset_locked(sdp, ETIMEDOUT);
	spin_unlock_bh(&sdp->lock);
}

static void sdp_write_space(struct sock *sk)
{
	struct socket_wq *wq;

	if (!sdp_writable(sdp_sk(sk)) && !(sk->sk_shutdown & SEND_SHUTDOWN))
		return;
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_sync_poll(&wq->wait, EPOLLOUT |
						EPOLLWRNORM | EPOLLWRBAND);
	if (sk->sk_socket && !(sk->sk_shutdown & SEND_SHUTDOWN))
		sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

static void sdp_destruct(struct sock *sk)
{
	struct sdp_sock *sdp = sdp_sk(sk);
	u32 i;

	sdp_list_lock();
	list_del(&sdp->node);
	sdp_list_unlock();
	if (sdp->rx) {
		for (i = 0; i < sdp->rx_count; i++)
			kfree(sdp->rx[i].data);
		kfree(sdp->rx);
	}
}

/**
 * sdp_sk_alloc() - a new SDP socket
 * @net: its namespace
 * @sock: its struct socket, or NULL for a passive connection
 * @kern: made by the kernel
 *
 * Return: the socket, in TCP_CLOSE, or NULL.
 */
struct sock *sdp_sk_alloc(struct net *net, struct socket *sock, int kern)
{
	struct sdp_sock *sdp;
	struct sock *sk;

	sk = sk_alloc(net, PF_INET_SDP, GFP_KERNEL, &sdp_proto, kern);
	if (!sk)
		return NULL;
	sock_init_data(sock, sk);
	sk->sk_protocol = IPPROTO_TCP;
	sk->sk_state = TCP_CLOSE;
	sk->sk_destruct = sdp_destruct;
	sk->sk_write_space = sdp_write_space;
	sdp = sdp_sk(sk);
	spin_lock_init(&sdp->lock);
	INIT_LIST_HEAD(&sdp->rx_queue);
	INIT_LIST_HEAD(&sdp->accept_list);
	INIT_LIST_HEAD(&sdp->syn_queue);
	INIT_LIST_HEAD(&sdp->accept_queue);
	INIT_WORK(&sdp->destroy_work, sdp_destroy_work);
	INIT_DELAYED_WORK(&sdp->close_work, sdp_close_timeout);
	sdp_keepalive_init(sdp);
	init_completion(&sdp->abort_done);
	sdp->qp_dead = true;
	sdp->tx_seq = 1;
	sdp_list_lock();
	list_add_tail(&sdp->node, &sdp_sockets);
	sdp_list_unlock();
	return sk;
}

/* ------------------------------------------------------------------ */
/* Addresses                                                           */
/* ------------------------------------------------------------------ */

/*
 * A user's address into @ss: AF_INET, AF_INET6, or AF_INET_SDP taken as
 * AF_INET.  An IPv4-mapped IPv6 address becomes IPv4 (the CM's ids speak
 * IPv4 for it).  Return: its family, or a negative errno.
 */
static int sdp_user_addr(const struct sockaddr *uaddr, int len,
			 struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	if (len < (int)sizeof(sa_family_t))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	switch (uaddr->sa_family) {
	case AF_INET:
	case AF_INET_SDP:
		if (len < (int)sizeof(struct sockaddr_in))
			return -EINVAL;
		memcpy(sin, uaddr, sizeof(*sin));
		sin->sin_family = AF_INET;
		return AF_INET;
	case AF_INET6:
		if (len < SIN6_LEN_RFC2133)
			return -EINVAL;
		memcpy(sin6, uaddr, SIN6_LEN_RFC2133);
		if (ipv6_addr_v4mapped(&sin6->sin6_addr)) {
			__be32 a = sin6->sin6_addr.s6_addr32[3];
			__be16 port = sin6->sin6_port;

			memset(ss, 0, sizeof(*ss));
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = a;
			sin->sin_port = port;
		}
		return AF_INET6;
	default:
		return -EAFNOSUPPORT;
	}
}

/* @src as the socket's family says: IPv4 as v4-mapped for AF_INET6. */
static int sdp_out_addr(const struct sdp_sock *sdp,
			const struct sockaddr_storage *src,
			struct sockaddr *uaddr)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)src;
	struct sockaddr_in6 *out6 = (struct sockaddr_in6 *)uaddr;
	struct sockaddr_in *out = (struct sockaddr_in *)uaddr;

	if (src->ss_family == AF_INET6) {
		memcpy(out6, src, sizeof(*out6));
		return sizeof(*out6);
	}
	if (sdp->family == AF_INET6) {
		memset(out6, 0, sizeof(*out6));
		out6->sin6_family = AF_INET6;
		out6->sin6_port = src->ss_family == AF_INET ? sin->sin_port : 0;
		if (src->ss_family == AF_INET)
			ipv6_addr_set_v4mapped(sin->sin_addr.s_addr,
					       &out6->sin6_addr);
		return sizeof(*out6);
	}
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	if (src->ss_family == AF_INET) {
		out->sin_addr = sin->sin_addr;
		out->sin_port = sin->sin_port;
	}
	return sizeof(*out);
}

static int sdp_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	struct sockaddr_storage ss;
	int ret;

	lock_sock(sk);
	if (peer && !sdp->connected) {
		release_sock(sk);
		return -ENOTCONN;
	}
	if (sdp->id)
		memcpy(&ss, peer ? &sdp->id->route.addr.dst_addr :
		       &sdp->id->route.addr.src_addr, sizeof(ss));
	else
		memcpy(&ss, peer ? &sdp->remote : &sdp->local, sizeof(ss));
	ret = sdp_out_addr(sdp, &ss, uaddr);
	release_sock(sk);
	return ret;
}

/* The socket's id, made on first use. */
static int sdp_bind_errno(int ret)
{
	if (ret == -ENODEV || ret == -EINVAL)
		return -EADDRNOTAVAIL;
	return ret;
}

/*
 * The socket's id.  A connection's teardown takes the id with it: a bound
 * socket used again (connect() after a failed one, listen()) gets a new id
 * bound as the socket was, as TCP keeps a bound socket's address.
 */
static struct rdma_cm_id *sdp_get_id(struct sdp_sock *sdp)
{
	struct rdma_cm_id *id;
	int ret;

	if (sdp->id)
		return sdp->id;
	id = sdp_create_id(sdp);
	if (IS_ERR(id))
		return id;
	if (sdp->family == AF_INET6)
		rdma_set_afonly(id, sdp->v6only);
	if (!sdp->bound)
		return id;
	rdma_set_reuseaddr(id, sdp->sk.sk_reuse ? 1 : 0);
	ret = rdma_bind_addr(id, (struct sockaddr *)&sdp->bound_addr);
	if (ret) {
		sdp->id = NULL;
		rdma_destroy_id(id);
		sock_put(&sdp->sk);	/* the id's */
		return ERR_PTR(sdp_bind_errno(ret));
	}
	return id;
}

/* The CM's errors of binding, as bind(2) gives them. */
static int sdp_do_bind(struct sdp_sock *sdp, int family,
		       struct sockaddr_storage *ss)
{
	struct rdma_cm_id *id;
	int ret;

	if (sdp->bound || sdp->sk.sk_state != TCP_CLOSE)
		return -EINVAL;
	if (sdp->family && sdp->family != family)
		return -EAFNOSUPPORT;
	sdp->family = family;
	id = sdp_get_id(sdp);
	if (IS_ERR(id))
		return PTR_ERR(id);
	rdma_set_reuseaddr(id, sdp->sk.sk_reuse ? 1 : 0);
	if (family == AF_INET6 && ss->ss_family == AF_INET6)
		rdma_set_afonly(id, sdp->v6only);
	ret = rdma_bind_addr(id, (struct sockaddr *)ss);
	if (ret)
		return sdp_bind_errno(ret);
	memcpy(&sdp->bound_addr, &id->route.addr.src_addr,
	       sizeof(sdp->bound_addr));
	sdp->bound = true;
	return 0;
}

static int sdp_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct sdp_sock *sdp = sdp_sk(sock->sk);
	struct sockaddr_storage ss;
	int family, ret;

	family = sdp_user_addr(uaddr, len, &ss);
	if (family < 0)
		return family;
	lock_sock(&sdp->sk);
	ret = sdp_do_bind(sdp, family, &ss);
	release_sock(&sdp->sk);
	return ret;
}

/* A teardown of the last connection under way: wait for it, unlocked. */
static void sdp_wait_destroyed(struct sock *sk)
{
	struct sdp_sock *sdp = sdp_sk(sk);

	while (READ_ONCE(sdp->destroy_queued)) {
		release_sock(sk);
		flush_work(&sdp->destroy_work);
		lock_sock(sk);
	}
}

/* Fresh data path state for a new connection. */
static void sdp_conn_state_init(struct sdp_sock *sdp)
{
	spin_lock_bh(&sdp->lock);
	sdp->sk.sk_err = 0;
	sdp->sk.sk_shutdown = 0;
	sdp->rx_seq = 0;
	sdp->tx_seq = 1;
	sdp->tx_credits = 0;
	sdp->tx_reserved = 0;
	sdp->peer_fin = false;
	sdp->fin_pending = false;
	sdp->fin_posted = false;
	sdp->fin_done = false;
	spin_unlock_bh(&sdp->lock);
}

static int sdp_connect(struct socket *sock, struct sockaddr *uaddr, int len,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int family, ret;
	long timeo;

	family = sdp_user_addr(uaddr, len, &ss);
	if (family < 0)
		return family;
	lock_sock(sk);
	switch (sk->sk_state) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		ret = -EISCONN;
		goto out;
	case TCP_SYN_SENT:
		ret = flags & O_NONBLOCK ? -EALREADY : 0;
		if (ret)
			goto out;
		goto wait;
	case TCP_CLOSE:
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	if (sdp->connected) {
		ret = -EISCONN;
		goto out;
	}
	if (sdp->family && sdp->family != family) {
		ret = -EAFNOSUPPORT;
		goto out;
	}
	sdp_wait_destroyed(sk);
	if (sk->sk_state != TCP_CLOSE) {
		ret = -EALREADY;
		goto out;
	}
	sdp->family = family;
	sdp_conn_state_init(sdp);
	id = sdp_get_id(sdp);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto out;
	}
	memcpy(&sdp->remote, &ss, sizeof(ss));
	sk->sk_state = TCP_SYN_SENT;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss,
				SDP_RESOLVE_MS);
	if (ret) {
		sk->sk_state = TCP_CLOSE;
		if (ret == -EINVAL || ret == -ENODEV)
			ret = -ENETUNREACH;
		goto out;
	}
wait:
	timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	if (!timeo) {
		ret = -EINPROGRESS;
		goto out;
	}
	add_wait_queue(sk_sleep(sk), &wait);
	while (sk->sk_state == TCP_SYN_SENT) {
		if (signal_pending(current)) {
			ret = sock_intr_errno(timeo);
			break;
		}
		if (!timeo) {
			ret = -EINPROGRESS;
			break;
		}
		sk_wait_event(sk, &timeo, sk->sk_state != TCP_SYN_SENT,
			      &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	if (sk->sk_state == TCP_SYN_SENT)
		goto out;
	if (sk->sk_state == TCP_ESTABLISHED ||
	    sk->sk_state == TCP_CLOSE_WAIT) {
		sock->state = SS_CONNECTED;
		ret = 0;
	} else {
		ret = sock_error(sk) ?: -ECONNREFUSED;
	}
out:
	release_sock(sk);
	return ret;
}

static int sdp_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	struct sockaddr_storage ss = {};
	struct rdma_cm_id *id;
	int ret = 0;

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
		goto out;
	}
	ret = -EINVAL;
	if (sk->sk_state != TCP_CLOSE || sdp->connected || sock->state !=
	    SS_UNCONNECTED)
		goto out;
	sdp_wait_destroyed(sk);
	if (!sdp->bound) {
		/* as TCP: the wildcard of the socket's family, any port */
		ss.ss_family = sdp->family ?: AF_INET6;
		ret = sdp_do_bind(sdp, ss.ss_family, &ss);
		if (ret)
			goto out;
	}
	id = sdp_get_id(sdp);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto out;
	}
	ret = rdma_listen(id, backlog);
	if (ret)
		goto out;
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	sdp_conn_state_init(sdp);
	sk->sk_state = TCP_LISTEN;
out:
	release_sock(sk);
	return ret;
}

static int sdp_accept(struct socket *sock, struct socket *newsock, int flags,
		      bool kern)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sdp_sock *child = NULL, *parent;
	long timeo;
	int ret = 0;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		if (sk->sk_state != TCP_LISTEN) {
			ret = -EINVAL;
			break;
		}
		spin_lock_bh(&sdp->lock);
		child = list_first_entry_or_null(&sdp->accept_queue,
						 struct sdp_sock, accept_list);
		if (child) {
			list_del_init(&child->accept_list);
			sdp->backlog_len--;
		}
		spin_unlock_bh(&sdp->lock);
		if (child)
			break;
		if (!timeo) {
			ret = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			ret = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo, sk->sk_state != TCP_LISTEN ||
			      !list_empty(&sdp->accept_queue), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	if (!child)
		return ret;

	parent = xchg(&child->parent, NULL);
	if (parent)
		sock_put(&parent->sk);
	lock_sock(&child->sk);
	sock_graft(&child->sk, newsock);
	newsock->state = SS_CONNECTED;
	release_sock(&child->sk);
	return 0;
}

static __poll_t sdp_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	int state = READ_ONCE(sk->sk_state);
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (state == TCP_LISTEN)
		return list_empty(&sdp->accept_queue) ? 0 :
		       EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (sk->sk_shutdown == SHUTDOWN_MASK || state == TCP_CLOSE)
		mask |= EPOLLHUP;
	if (sk->sk_shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (READ_ONCE(sdp->rx_bytes))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (state == TCP_SYN_SENT || state == TCP_SYN_RECV)
		return mask;
	if (sk->sk_shutdown & SEND_SHUTDOWN) {
		mask |= EPOLLOUT | EPOLLWRNORM;
	} else if (state != TCP_CLOSE) {
		if (sdp_writable(sdp)) {
			mask |= EPOLLOUT | EPOLLWRNORM;
		} else {
			set_bit(SOCK_NOSPACE, &sock->flags);
			/* a credit arriving now sees the bit, or we see it */
			smp_mb__after_atomic();
			if (sdp_writable(sdp))
				mask |= EPOLLOUT | EPOLLWRNORM;
		}
	}
	return mask;
}

static int sdp_ioctl(struct socket *sock, unsigned int cmd,
		     unsigned long arg)
{
	struct sdp_sock *sdp = sdp_sk(sock->sk);
	int val;

	switch (cmd) {
	case SIOCINQ:
		if (sock->sk->sk_state == TCP_LISTEN)
			return -EINVAL;
		val = READ_ONCE(sdp->rx_bytes);
		break;
	case SIOCOUTQ:
		if (sock->sk->sk_state == TCP_LISTEN)
			return -EINVAL;
		val = READ_ONCE(sdp->tx_queued);
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return put_user(val, (int __user *)arg);
}

/* Our DisConn, after the data already sent; called with sdp->lock held. */
static void sdp_send_fin_locked(struct sdp_sock *sdp)
{
	sdp->sk.sk_shutdown |= SEND_SHUTDOWN;
	if (sdp->fin_posted || sdp->fin_pending || sdp->qp_dead)
		return;
	sdp->fin_pending = true;
	sdp_tx_flush_locked(sdp);
	if (sdp->sk.sk_state == TCP_ESTABLISHED)
		sdp->sk.sk_state = TCP_FIN_WAIT1;
	else if (sdp->sk.sk_state == TCP_CLOSE_WAIT)
		sdp->sk.sk_state = TCP_LAST_ACK;
}

static int sdp_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp = sdp_sk(sk);
	int ret = 0;

	how++;
	if (how < 1 || how > SHUTDOWN_MASK)
		return -EINVAL;
	lock_sock(sk);
	spin_lock_bh(&sdp->lock);
	if (sk->sk_state == TCP_LISTEN) {
		if (how & RCV_SHUTDOWN) {
			sk->sk_state = TCP_CLOSE;
			sdp_queue_destroy(sdp);
		}
	} else if (!sdp->connected) {
		ret = -ENOTCONN;
	} else {
		if (how & RCV_SHUTDOWN)
			sk->sk_shutdown |= RCV_SHUTDOWN;
		if (how & SEND_SHUTDOWN)
			sdp_send_fin_locked(sdp);
	}
	spin_unlock_bh(&sdp->lock);
	release_sock(sk);
	sk->sk_state_change(sk);
	return ret;
}

/*
 * SO_LINGER with a time: close() waits, at most that long and until a
 * signal, for our DisConn to complete (all data before it is in the
 * peer's buffers), as TCP's waits for its FIN to be acknowledged.
 * Called and returns with the socket locked.
 */
static void sdp_linger_wait(struct sdp_sock *sdp)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &sdp->sk;
	long timeo = sk->sk_lingertime;

	add_wait_queue(sk_sleep(sk), &wait);
	while (timeo && !signal_pending(current) &&
	       !sk_wait_event(sk, &timeo, READ_ONCE(sdp->fin_done) ||
			      READ_ONCE(sdp->qp_dead) || READ_ONCE(sk->sk_err),
			      &wait))
		;
	remove_wait_queue(sk_sleep(sk), &wait);
}

static int sdp_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct sdp_sock *sdp;
	bool abort, linger = false;

	if (!sk)
		return 0;
	sdp = sdp_sk(sk);
	lock_sock(sk);
	spin_lock_bh(&sdp->lock);
	abort = sdp->rx_bytes ||
		(sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime);
	if (sk->sk_state == TCP_LISTEN) {
		sk->sk_state = TCP_CLOSE;
		sdp_queue_destroy(sdp);
	} else if (sdp->connected && !sdp->qp_dead && !abort) {
		sdp_send_fin_locked(sdp);
		if (sdp->peer_fin && sdp->fin_done)
			sdp_queue_destroy(sdp);
		else if (!sdp->destroy_queued)
			queue_delayed_work(sdp_wq, &sdp->close_work,
					   SDP_CLOSE_TIMEOUT);
		linger = sock_flag(sk, SOCK_LINGER) && !sdp->fin_done;
	} else if (sdp->connected && !sdp->qp_dead) {
		/*
		 * unread data or SO_LINGER 0: a reset, as TCP's RST; the
		 * peer hears of it by AbortConn if a credit is left, else by
		 * the disconnect alone
		 */
		if (!sdp->fin_posted &&
		    sdp_post_ctrl_locked(sdp, SDP_MID_ABORT, NULL, 0)) {
			sdp->abort_posted = true;
			sdp_stat_add(sdp, SDP_STAT_ABORTS_SENT, 1);
		}
		sdp_reset_locked(sdp, ECONNRESET);
	} else {
		sdp_queue_destroy(sdp);
	}
	spin_unlock_bh(&sdp->lock);
	if (linger)
		sdp_linger_wait(sdp);
	sock_orphan(sk);
	release_sock(sk);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

static int sdp_setsockopt(struct socket *sock, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	struct sdp_sock *sdp = sdp_sk(sock->sk);
	int val, ret = 0;

	if (level != SOL_TCP && level != SOL_IPV6 && level != SOL_IP)
		return -ENOPROTOOPT;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	lock_sock(sock->sk);
	if (level == SOL_IP) {
		/* kept for getsockopt(); the fabric has no use for it */
		if (optname != IP_TOS)
			ret = -ENOPROTOOPT;
		else if (val < 0 || val > 0xff)
			ret = -EINVAL;
		else
			sdp->tos = val;
		goto out;
	}
	if (level == SOL_IPV6) {
		if (optname == IPV6_TCLASS) {
			/* as IP_TOS; -1 is the default, 0 */
			if (val < -1 || val > 0xff)
				ret = -EINVAL;
			else
				sdp->tclass = val < 0 ? 0 : val;
		} else if (optname != IPV6_V6ONLY) {
			ret = -ENOPROTOOPT;
		} else if (sdp->bound || sock->sk->sk_state != TCP_CLOSE) {
			ret = -EINVAL;
		} else {
			sdp->v6only = !!val;
		}
		goto out;
	}
	switch (optname) {
	case TCP_NODELAY:
		sdp->nodelay = !!val;
		break;
	case TCP_KEEPIDLE:
	case TCP_KEEPINTVL:
	case TCP_KEEPCNT:
		ret = sdp_keepalive_setsockopt(sdp, optname, val);
		break;
	case TCP_CORK:
	case TCP_QUICKACK:
	case TCP_MAXSEG:
		/* accepted, without effect (see Documentation/sdp.rst) */
		if (val < 0)
			ret = -EINVAL;
		break;
	default:
		ret = -ENOPROTOOPT;
	}
out:
	release_sock(sock->sk);
	return ret;
}

/*
 * The payload of a message of @size bytes, as TCP's MSS: at most what an
 * IPv4 datagram could carry (65495), since programs check (iperf3 calls
 * more "nonsense").
 */
static u32 sdp_mss(u32 size)
{
	return min_t(u32, size - sizeof(struct sdp_bsdh),
		     IP_MAX_MTU - sizeof(struct iphdr) - sizeof(struct tcphdr));
}

/*
 * TCP_INFO, for the programs that read it (iperf3, ss): the fields that
 * have a meaning here.  A segment is an SDP message; the window is the
 * credits (messages the peer can take now); nothing is ever
 * retransmitted above the transport, and no round trip is measured.
 */
static int sdp_get_info(struct sdp_sock *sdp, char __user *optval,
			int __user *optlen, int len)
{
	u32 mss = READ_ONCE(sdp->tx_size) ?: sdp_buf_size;
	struct sock *sk = &sdp->sk;
	struct tcp_info info = {};

	/* the socket lock for the zero copy counters, ours for the rest */
	lock_sock(sk);
	spin_lock_bh(&sdp->lock);
	info.tcpi_state = sk->sk_state;
	info.tcpi_snd_mss = sdp_mss(mss);
	info.tcpi_rcv_mss = sdp_mss(sdp->rx_size ?: sdp_buf_size);
	info.tcpi_advmss = info.tcpi_rcv_mss;
	info.tcpi_pmtu = mss;
	if (sdp->tx)
		info.tcpi_unacked = SDP_TX_SLOTS - sdp->tx_free;
	info.tcpi_snd_cwnd = max(sdp->tx_credits, 0);
	info.tcpi_bytes_sent = sdp->bytes_sent + sdp->zc_sent;
	info.tcpi_bytes_acked = info.tcpi_bytes_sent;
	info.tcpi_bytes_received = sdp->bytes_rcvd + sdp->zc_rcvd;
	info.tcpi_segs_out = sdp->tx_seq - 1;
	info.tcpi_segs_in = sdp->rx_seq;
	spin_unlock_bh(&sdp->lock);
	release_sock(sk);

	len = min_t(int, len, sizeof(info));
	if (put_user(len, optlen) || copy_to_user(optval, &info, len))
		return -EFAULT;
	return 0;
}

static int sdp_getsockopt(struct socket *sock, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	struct sdp_sock *sdp = sdp_sk(sock->sk);
	int len, val;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (level == SOL_TCP && optname == TCP_INFO)
		return sdp_get_info(sdp, optval, optlen, len);
	if (level == SOL_IPV6 && optname == IPV6_V6ONLY) {
		val = sdp->v6only;
	} else if (level == SOL_IPV6 && optname == IPV6_TCLASS) {
		val = sdp->tclass;
	} else if (level == SOL_IP && optname == IP_TOS) {
		val = sdp->tos;
	} else if (level != SOL_TCP) {
		return -ENOPROTOOPT;
	} else if (optname == TCP_NODELAY) {
		val = sdp->nodelay;
	} else if (optname == TCP_MAXSEG) {
		val = sdp_mss(READ_ONCE(sdp->tx_size) ?: sdp_buf_size);
	} else if (optname == TCP_KEEPIDLE || optname == TCP_KEEPINTVL ||
		   optname == TCP_KEEPCNT) {
		val = sdp_keepalive_getsockopt(sdp, optname);
	} else {
		return -ENOPROTOOPT;
	}
	len = min_t(int, len, sizeof(val));
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

static const struct proto_ops sdp_ops = {
	.family = PF_INET_SDP,
	.owner = THIS_MODULE,
	.release = sdp_release,
	.bind = sdp_bind,
	.connect = sdp_connect,
	.socketpair = sock_no_socketpair,
	.accept = sdp_accept,
	.getname = sdp_getname,
	.poll = sdp_poll,
	.ioctl = sdp_ioctl,
	.listen = sdp_listen,
	.shutdown = sdp_shutdown,
	.setsockopt = sdp_setsockopt,
	.getsockopt = sdp_getsockopt,
	.sendmsg = sdp_sendmsg,
	.recvmsg = sdp_recvmsg,
	.mmap = sock_no_mmap,
	.sendpage = sock_no_sendpage,
};

static int sdp_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct sock *sk;

	if (sock->type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	if (protocol && protocol != IPPROTO_TCP)
		return -EPROTONOSUPPORT;
	sock->ops = &sdp_ops;
	sock->state = SS_UNCONNECTED;
	sk = sdp_sk_alloc(net, sock, kern);
	if (!sk)
		return -ENOMEM;
	return 0;
}

static const struct net_proto_family sdp_family = {
	.family = PF_INET_SDP,
	.create = sdp_create,
	.owner = THIS_MODULE,
};

static int __init sdp_init(void)
{
	int ret;

	sdp_rx_bufs = clamp(sdp_rx_bufs, 4U, 256U);
	sdp_buf_size = clamp(sdp_buf_size, (unsigned int)SDP_MIN_BUF_SIZE,
			     (unsigned int)SDP_MAX_BUF_SIZE);
	if (sdp_zcopy_thresh)
		sdp_zcopy_thresh = clamp(sdp_zcopy_thresh, (unsigned int)PAGE_SIZE,
					 (unsigned int)SZ_1M);
	sdp_wq = alloc_workqueue("ib_sdp", WQ_MEM_RECLAIM, 0);
	if (!sdp_wq)
		return -ENOMEM;
	ret = proto_register(&sdp_proto, 1);
	if (ret)
		goto err_wq;
	ret = sdp_proc_init();
	if (ret)
		goto err_proto;
	ret = sock_register(&sdp_family);
	if (ret)
		goto err_proc;
	return 0;

err_proc:
	sdp_proc_exit();
err_proto:
	proto_unregister(&sdp_proto);
err_wq:
	destroy_workqueue(sdp_wq);
	return ret;
}

static void __exit sdp_exit(void)
{
	sock_unregister(PF_INET_SDP);
	sdp_proc_exit();
	/* every socket holds the module: none is left, nor its work */
	destroy_workqueue(sdp_wq);
	proto_unregister(&sdp_proto);
}

module_init(sdp_init);
module_exit(sdp_exit);
