// SPDX-License-Identifier: GPL-2.0
/*
 * poll.c - waiting on the listener of a "both" server waits on its SDP
 * shadow too: the wrappers of poll, ppoll (and their _FORTIFY_SOURCE
 * forms), select, pselect and epoll_ctl.
 *
 * poll and select work on a private copy of the application's set, with
 * the shadow of every listener asked for input added; a shadow's input is
 * folded back onto its listener and the result recounted, so that the
 * application sees only its own descriptors.  epoll_ctl adds (modifies,
 * deletes) the shadow along with its listener, with the same events and
 * the same epoll_data: the application's accept() then takes whichever
 * connection is there (socket.c).
 *
 * With no shadow in the process every call goes straight to the C library.
 *
 * Thread safety: the copies are the calling thread's; a listener found is
 * held with a reference (sdp_fd_get()) until the call returns, so that a
 * close() in another thread cannot close its shadow under the wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libsdp.h"

#define SDP_WAIT_SHADOWS	64		/* shadows one call watches, at most */
#define SDP_FDS_WATCH_MAX	(1024 * 1024)	/* larger sets pass through */

struct pair {
	int idx;		/* the listener: index in fds, or its number */
	int shadow;
	struct sdp_sock *sock;
};

/* Input asked on fd: if it is a listener with a shadow, note the pair. */
static void find_shadow(int fd, int idx, struct pair *pairs, int *n)
{
	struct sdp_sock *s;
	int shadow;

	if (*n == SDP_WAIT_SHADOWS)
		return;
	s = sdp_fd_get(fd);
	if (!s)
		return;
	shadow = sdp_sock_shadow(s);
	if (shadow < 0) {
		sdp_sock_put(s);
		return;
	}
	pairs[*n].idx = idx;
	pairs[*n].shadow = shadow;
	pairs[*n].sock = s;
	(*n)++;
}

static void put_pairs(struct pair *pairs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sdp_sock_put(pairs[i].sock);
}

/* --- poll, ppoll ------------------------------------------------------- */

struct poll_args {
	bool ppoll;
	int timeout;
	const struct timespec *ts;
	const sigset_t *mask;
};

static int real_poll(struct pollfd *fds, nfds_t nfds,
		     const struct poll_args *a)
{
	return a->ppoll ? sdp_real_ppoll(fds, nfds, a->ts, a->mask) :
			  sdp_real_poll(fds, nfds, a->timeout);
}

static int poll_pairs(struct pollfd *fds, nfds_t nfds, struct pair *pairs,
		      int n, const struct poll_args *a)
{
	struct pollfd *all = malloc((nfds + (nfds_t)n) * sizeof(*all));
	int i, ret, err;
	nfds_t j;

	if (!all)
		return real_poll(fds, nfds, a);
	memcpy(all, fds, nfds * sizeof(*all));
	for (i = 0; i < n; i++) {
		all[nfds + i].fd = pairs[i].shadow;
		all[nfds + i].events = POLLIN;
		all[nfds + i].revents = 0;
	}
	ret = real_poll(all, nfds + (nfds_t)n, a);
	err = errno;
	if (ret >= 0) {
		for (j = 0; j < nfds; j++)
			fds[j].revents = all[j].revents;
		for (i = 0; i < n; i++)
			if (all[nfds + i].revents & POLLIN)
				fds[pairs[i].idx].revents |=
					fds[pairs[i].idx].events &
					(POLLIN | POLLRDNORM);
		for (ret = 0, j = 0; j < nfds; j++)
			ret += fds[j].revents != 0;
	}
	free(all);
	errno = err;
	return ret;
}

static int sdp_poll(struct pollfd *fds, nfds_t nfds, const struct poll_args *a)
{
	struct pair pairs[SDP_WAIT_SHADOWS];
	int n = 0, ret;
	nfds_t i;

	if (!sdp_fd_any_shadow() || !fds || nfds > SDP_FDS_WATCH_MAX)
		return real_poll(fds, nfds, a);
	for (i = 0; i < nfds; i++)
		if (fds[i].fd >= 0 && (fds[i].events & (POLLIN | POLLRDNORM)))
			find_shadow(fds[i].fd, (int)i, pairs, &n);
	if (!n)
		return real_poll(fds, nfds, a);
	ret = poll_pairs(fds, nfds, pairs, n, a);
	put_pairs(pairs, n);
	return ret;
}

SDP_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct poll_args a = { .timeout = timeout };

	return sdp_poll(fds, nfds, &a);
}

SDP_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds,
		     const struct timespec *ts, const sigset_t *mask)
{
	struct poll_args a = { .ppoll = true, .ts = ts, .mask = mask };

	return sdp_poll(fds, nfds, &a);
}

/* What poll() and ppoll() become in programs built with _FORTIFY_SOURCE. */
SDP_EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout,
			  size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		__chk_fail();
	return poll(fds, nfds, timeout);
}

SDP_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds,
			   const struct timespec *ts, const sigset_t *mask,
			   size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		__chk_fail();
	return ppoll(fds, nfds, ts, mask);
}

/* --- select, pselect --------------------------------------------------- */

struct select_args {
	bool pselect;
	struct timeval *tv;
	const struct timespec *ts;
	const sigset_t *mask;
};

static int real_select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		       const struct select_args *a)
{
	return a->pselect ? sdp_real_pselect(nfds, r, w, e, a->ts, a->mask) :
			    sdp_real_select(nfds, r, w, e, a->tv);
}

/*
 * The bytes of a set the kernel reads and writes for nfds: whole longs,
 * which is all a caller with a set smaller than an fd_set has to have.
 */
static size_t set_bytes(int nfds)
{
	size_t bits = 8 * sizeof(long);

	return ((size_t)nfds + bits - 1) / bits * sizeof(long);
}

static void set_in(fd_set *copy, const fd_set *set, size_t bytes)
{
	memset(copy, 0, sizeof(*copy));
	if (set)
		memcpy(copy, set, bytes);
}

static int select_pairs(int nfds, fd_set *r, fd_set *w, fd_set *e,
			struct pair *pairs, int n, const struct select_args *a)
{
	size_t bytes = set_bytes(nfds);
	fd_set rr, ww, ee;
	int i, fd, max = nfds, ret, err;

	set_in(&rr, r, bytes);
	set_in(&ww, w, bytes);
	set_in(&ee, e, bytes);
	for (i = 0; i < n; i++) {
		FD_SET(pairs[i].shadow, &rr);
		if (pairs[i].shadow >= max)
			max = pairs[i].shadow + 1;
	}
	ret = real_select(max, &rr, w ? &ww : NULL, e ? &ee : NULL, a);
	err = errno;
	if (ret >= 0) {
		for (i = 0; i < n; i++) {
			if (!FD_ISSET(pairs[i].shadow, &rr))
				continue;
			FD_CLR(pairs[i].shadow, &rr);
			FD_SET(pairs[i].idx, &rr);
		}
		memcpy(r, &rr, bytes);
		if (w)
			memcpy(w, &ww, bytes);
		if (e)
			memcpy(e, &ee, bytes);
		for (ret = 0, fd = 0; fd < nfds; fd++)
			ret += FD_ISSET(fd, &rr) + FD_ISSET(fd, &ww) +
			       FD_ISSET(fd, &ee);
	}
	errno = err;
	return ret;
}

static int sdp_select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		      const struct select_args *a)
{
	struct pair pairs[SDP_WAIT_SHADOWS];
	int fd, n = 0, i, ret;

	if (!sdp_fd_any_shadow() || !r || nfds <= 0 || nfds > FD_SETSIZE)
		return real_select(nfds, r, w, e, a);
	for (fd = 0; fd < nfds; fd++)
		if (FD_ISSET(fd, r))
			find_shadow(fd, fd, pairs, &n);
	/* A shadow beyond what an fd_set holds cannot be waited on here. */
	for (i = 0; i < n; i++) {
		if (pairs[i].shadow < FD_SETSIZE)
			continue;
		sdp_sock_put(pairs[i].sock);
		pairs[i--] = pairs[--n];
	}
	if (!n)
		return real_select(nfds, r, w, e, a);
	ret = select_pairs(nfds, r, w, e, pairs, n, a);
	put_pairs(pairs, n);
	return ret;
}

SDP_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		      struct timeval *tv)
{
	struct select_args a = { .tv = tv };

	return sdp_select(nfds, r, w, e, &a);
}

SDP_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		       const struct timespec *ts, const sigset_t *mask)
{
	struct select_args a = { .pselect = true, .ts = ts, .mask = mask };

	return sdp_select(nfds, r, w, e, &a);
}

/* --- epoll_ctl --------------------------------------------------------- */

SDP_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	int ret = sdp_real_epoll_ctl(epfd, op, fd, ev);
	int err = errno, shadow, r = 0;
	struct sdp_sock *s;

	if (ret || !sdp_fd_any_shadow())
		return ret;
	s = sdp_fd_get(fd);
	shadow = s ? sdp_sock_shadow(s) : -1;
	if (shadow >= 0) {
		r = sdp_real_epoll_ctl(epfd, op, shadow, ev);
		if (r && op == EPOLL_CTL_ADD && errno == EEXIST)
			r = sdp_real_epoll_ctl(epfd, EPOLL_CTL_MOD, shadow, ev);
		else if (r && op == EPOLL_CTL_MOD && errno == ENOENT)
			r = sdp_real_epoll_ctl(epfd, EPOLL_CTL_ADD, shadow, ev);
	}
	if (r)
		sdp_log(SDP_LOG_WARN, "epoll %d: fd %d: SDP shadow %d not followed: %s",
			epfd, fd, shadow, strerror(errno));
	if (s)
		sdp_sock_put(s);
	errno = err;
	return ret;
}
