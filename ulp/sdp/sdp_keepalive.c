// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SO_KEEPALIVE: finding out that an idle connection's peer is gone.
 *
 * SDP has no keepalive message of its own.  The probe is what OFED's SDP
 * sent: an RDMA WRITE of no bytes, which the peer's HCA acknowledges
 * without its SDP ever seeing it (no receive buffer, no credit, no R_Key
 * checked).  The RC transport retries it like any request; when its
 * retries run out the probe completes in error and the connection is
 * reset with ETIMEDOUT, as TCP's is after its unanswered probes.  So
 * TCP_KEEPCNT is kept for getsockopt() but the transport's retry count
 * decides how many tries a probe gets.
 *
 * As TCP, the first probe goes out after TCP_KEEPIDLE seconds without
 * hearing from the peer, and the next ones TCP_KEEPINTVL apart while it
 * stays silent; an answered probe counts as hearing from it.  The
 * defaults are the namespace's TCP ones (net.ipv4.tcp_keepalive_*).
 *
 * Locking: sdp_sock.lock covers ka_posted, last_rx and the post; the
 * settings are changed under the socket lock and read racily (a stale
 * value only moves one probe).  The work runs in sdp_wq and is cancelled
 * by the teardown after qp_dead is set, so it never re-arms after it.
 */
#include <net/tcp.h>

#include "sdp.h"

static unsigned long sdp_ka_idle(const struct sdp_sock *sdp)
{
	const struct net *net = sock_net(&sdp->sk);
	u16 idle = READ_ONCE(sdp->ka_idle);

	return idle ? idle * HZ : READ_ONCE(net->ipv4.sysctl_tcp_keepalive_time);
}

static unsigned long sdp_ka_intvl(const struct sdp_sock *sdp)
{
	const struct net *net = sock_net(&sdp->sk);
	u16 intvl = READ_ONCE(sdp->ka_intvl);

	return intvl ? intvl * HZ :
		       READ_ONCE(net->ipv4.sysctl_tcp_keepalive_intvl);
}

/* Whether the connection is up, so that probes may go on it. */
static bool sdp_ka_conn_up_locked(const struct sdp_sock *sdp)
{
	const struct sock *sk = &sdp->sk;

	return sdp->connected && !sdp->qp_dead && sk->sk_state != TCP_CLOSE &&
	       sk->sk_state != TCP_LISTEN;
}

static bool sdp_ka_wanted_locked(const struct sdp_sock *sdp)
{
	return sock_flag(&sdp->sk, SOCK_KEEPOPEN) && sdp_ka_conn_up_locked(sdp);
}

static void sdp_keepalive_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sdp_sock *sdp = container_of(wc->wr_cqe, struct sdp_sock,
					    ka_cqe);

	spin_lock_bh(&sdp->lock);
	sdp->ka_posted = false;
	if (wc->status == IB_WC_SUCCESS) {
		sdp->last_rx = jiffies;
	} else if (wc->status != IB_WC_WR_FLUSH_ERR) {
		sdp_stat_add(sdp, SDP_STAT_KA_TIMEOUTS, 1);
		sdp_reset_locked(sdp, ETIMEDOUT);
	}
	spin_unlock_bh(&sdp->lock);
}

/* Send a probe; an error posting it is a reset, as any other post's. */
static void sdp_keepalive_post_locked(struct sdp_sock *sdp)
{
	struct ib_rdma_wr wr = {};
	int ret;

	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &sdp->ka_cqe;
	ret = ib_post_send(sdp->qp, &wr.wr, NULL);
	if (ret) {
		sdp_reset_locked(sdp, ECONNRESET);
		return;
	}
	sdp->ka_posted = true;
	sdp_stat_add(sdp, SDP_STAT_KA_PROBES, 1);
}

static void sdp_keepalive_work(struct work_struct *work)
{
	struct sdp_sock *sdp = container_of(to_delayed_work(work),
					    struct sdp_sock, ka_work);
	unsigned long idle, limit, next;

	spin_lock_bh(&sdp->lock);
	if (!sdp_ka_wanted_locked(sdp))
		goto out;
	idle = jiffies - sdp->last_rx;
	limit = sdp_ka_idle(sdp);
	if (idle < limit) {
		next = limit - idle;
	} else {
		if (!sdp->ka_posted)
			sdp_keepalive_post_locked(sdp);
		next = sdp_ka_intvl(sdp);
	}
	if (sdp_ka_wanted_locked(sdp))
		mod_delayed_work(sdp_wq, &sdp->ka_work, next);
out:
	spin_unlock_bh(&sdp->lock);
}

/**
 * sdp_keepalive_init() - set up a new socket's keepalive state
 * @sdp: the socket
 */
void sdp_keepalive_init(struct sdp_sock *sdp)
{
	INIT_DELAYED_WORK(&sdp->ka_work, sdp_keepalive_work);
	sdp->ka_cqe.done = sdp_keepalive_done;
}

/**
 * sdp_keepalive_arm_locked() - look at the idle time again now
 * @sdp: the socket, its lock held
 *
 * Called when the connection is established (after @sdp->last_rx is set)
 * and when the times change; the work works out when the next probe is
 * due.  Does nothing unless probes are wanted.
 */
void sdp_keepalive_arm_locked(struct sdp_sock *sdp)
{
	if (sdp_ka_wanted_locked(sdp))
		mod_delayed_work(sdp_wq, &sdp->ka_work, 0);
}

/**
 * sdp_keepalive_set() - struct proto.keepalive, SO_KEEPALIVE changed
 * @sk: the socket, locked
 * @on: the new value
 *
 * The core sets SOCK_KEEPOPEN only after this returns, so the work is
 * queued a whole idle time ahead (as TCP's timer) and looks at the flag
 * when it runs.
 */
void sdp_keepalive_set(struct sock *sk, int on)
{
	struct sdp_sock *sdp = sdp_sk(sk);

	spin_lock_bh(&sdp->lock);
	if (on && sdp_ka_conn_up_locked(sdp))
		mod_delayed_work(sdp_wq, &sdp->ka_work, sdp_ka_idle(sdp));
	spin_unlock_bh(&sdp->lock);
}

/**
 * sdp_keepalive_stop() - no more probes; the teardown, after qp_dead
 * @sdp: the socket
 */
void sdp_keepalive_stop(struct sdp_sock *sdp)
{
	cancel_delayed_work_sync(&sdp->ka_work);
}

/**
 * sdp_keepalive_setsockopt() - TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT
 * @sdp: the socket, locked
 * @optname: the option
 * @val: its value, in TCP's range
 *
 * Return: 0, -EINVAL out of range, -ENOPROTOOPT for another option.
 */
int sdp_keepalive_setsockopt(struct sdp_sock *sdp, int optname, int val)
{
	switch (optname) {
	case TCP_KEEPIDLE:
		if (val < 1 || val > MAX_TCP_KEEPIDLE)
			return -EINVAL;
		WRITE_ONCE(sdp->ka_idle, val);
		/* the time already idle counts, as TCP's */
		spin_lock_bh(&sdp->lock);
		sdp_keepalive_arm_locked(sdp);
		spin_unlock_bh(&sdp->lock);
		return 0;
	case TCP_KEEPINTVL:
		if (val < 1 || val > MAX_TCP_KEEPINTVL)
			return -EINVAL;
		WRITE_ONCE(sdp->ka_intvl, val);
		return 0;
	case TCP_KEEPCNT:
		if (val < 1 || val > MAX_TCP_KEEPCNT)
			return -EINVAL;
		sdp->ka_cnt = val;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

/**
 * sdp_keepalive_getsockopt() - the value of TCP_KEEPIDLE, _INTVL or _CNT
 * @sdp: the socket
 * @optname: one of the three
 *
 * Return: the value, in seconds for the times.
 */
int sdp_keepalive_getsockopt(const struct sdp_sock *sdp, int optname)
{
	const struct net *net = sock_net(&sdp->sk);

	switch (optname) {
	case TCP_KEEPIDLE:
		return sdp_ka_idle(sdp) / HZ;
	case TCP_KEEPINTVL:
		return sdp_ka_intvl(sdp) / HZ;
	default:
		return sdp->ka_cnt ?:
		       READ_ONCE(net->ipv4.sysctl_tcp_keepalive_probes);
	}
}
