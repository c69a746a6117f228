// SPDX-License-Identifier: GPL-2.0
/*
 * real.c - the C library's own versions of the functions libsdp wraps.
 *
 * Each is looked up with dlsym(RTLD_NEXT, name) the first time it is
 * needed, not in a constructor: a wrapper may run before our constructor
 * does (another library's constructor opening a socket), and must then
 * still reach the real function.  A function that cannot be found makes
 * its caller fail with ELIBACC; no NULL pointer is ever called.  The library
 * itself calls these, never its own wrappers, for its private work.
 *
 * Thread safety: a pointer is published with an atomic store and read
 * with an atomic load.  Two threads may both look the same name up; they
 * find and store the same value.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "libsdp.h"

static void *resolve(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		if (fn)
			__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

/* Their types, as the C library declares them. */
typedef int socket_fn(int domain, int type, int protocol);
typedef int bind_fn(int fd, const struct sockaddr *sa, socklen_t len);
typedef int listen_fn(int fd, int backlog);
typedef int connect_fn(int fd, const struct sockaddr *sa, socklen_t len);
typedef int accept_fn(int fd, struct sockaddr *sa, socklen_t *len);
typedef int accept4_fn(int fd, struct sockaddr *sa, socklen_t *len,
		       int flags);
typedef int close_fn(int fd);
typedef int dup_fn(int fd);
typedef int dup2_fn(int fd, int fd2);
typedef int dup3_fn(int fd, int fd2, int flags);
typedef int fcntl_fn(int fd, int cmd, ...);
typedef int fcntl64_fn(int fd, int cmd, ...);
typedef int setsockopt_fn(int fd, int level, int name, const void *val,
			  socklen_t len);
typedef int getsockopt_fn(int fd, int level, int name, void *val,
			  socklen_t *len);
typedef int poll_fn(struct pollfd *fds, nfds_t nfds, int timeout);
typedef int ppoll_fn(struct pollfd *fds, nfds_t nfds,
		     const struct timespec *ts, const sigset_t *mask);
typedef int select_fn(int nfds, fd_set *r, fd_set *w, fd_set *e,
		      struct timeval *tv);
typedef int pselect_fn(int nfds, fd_set *r, fd_set *w, fd_set *e,
		       const struct timespec *ts, const sigset_t *mask);
typedef int epoll_ctl_fn(int epfd, int op, int fd, struct epoll_event *ev);

static int nolib(void)
{
	errno = ELIBACC;
	return -1;
}

/* resolve() of the slot and name of a function: its void pointer. */
#define REAL(name)	resolve(&slot_##name, #name)

static void *slot_socket;
int sdp_real_socket(int domain, int type, int protocol)
{
	socket_fn *fn = REAL(socket);

	return fn ? fn(domain, type, protocol) : nolib();
}

static void *slot_bind;
int sdp_real_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	bind_fn *fn = REAL(bind);

	return fn ? fn(fd, sa, len) : nolib();
}

static void *slot_listen;
int sdp_real_listen(int fd, int backlog)
{
	listen_fn *fn = REAL(listen);

	return fn ? fn(fd, backlog) : nolib();
}

static void *slot_connect;
int sdp_real_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	connect_fn *fn = REAL(connect);

	return fn ? fn(fd, sa, len) : nolib();
}

static void *slot_accept;
int sdp_real_accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	accept_fn *fn = REAL(accept);

	return fn ? fn(fd, sa, len) : nolib();
}

static void *slot_accept4;
int sdp_real_accept4(int fd, struct sockaddr *sa, socklen_t *len,
		     int flags)
{
	accept4_fn *fn = REAL(accept4);

	return fn ? fn(fd, sa, len, flags) : nolib();
}

static void *slot_close;
int sdp_real_close(int fd)
{
	close_fn *fn = REAL(close);

	return fn ? fn(fd) : nolib();
}

static void *slot_dup;
int sdp_real_dup(int fd)
{
	dup_fn *fn = REAL(dup);

	return fn ? fn(fd) : nolib();
}

static void *slot_dup2;
int sdp_real_dup2(int fd, int fd2)
{
	dup2_fn *fn = REAL(dup2);

	return fn ? fn(fd, fd2) : nolib();
}

static void *slot_dup3;
int sdp_real_dup3(int fd, int fd2, int flags)
{
	dup3_fn *fn = REAL(dup3);

	return fn ? fn(fd, fd2, flags) : nolib();
}

/* The argument of any command fits in an unsigned long (int or pointer). */
static void *slot_fcntl;
int sdp_real_fcntl(int fd, int cmd, unsigned long arg)
{
	fcntl_fn *fn = REAL(fcntl);

	return fn ? fn(fd, cmd, arg) : nolib();
}

static void *slot_fcntl64;
int sdp_real_fcntl64(int fd, int cmd, unsigned long arg)
{
	fcntl64_fn *fn = REAL(fcntl64);

	return fn ? fn(fd, cmd, arg) : nolib();
}

static void *slot_setsockopt;
int sdp_real_setsockopt(int fd, int level, int name, const void *val,
			socklen_t len)
{
	setsockopt_fn *fn = REAL(setsockopt);

	return fn ? fn(fd, level, name, val, len) : nolib();
}

static void *slot_getsockopt;
int sdp_real_getsockopt(int fd, int level, int name, void *val,
			socklen_t *len)
{
	getsockopt_fn *fn = REAL(getsockopt);

	return fn ? fn(fd, level, name, val, len) : nolib();
}

static void *slot_poll;
int sdp_real_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	poll_fn *fn = REAL(poll);

	return fn ? fn(fds, nfds, timeout) : nolib();
}

static void *slot_ppoll;
int sdp_real_ppoll(struct pollfd *fds, nfds_t nfds,
		   const struct timespec *ts, const sigset_t *mask)
{
	ppoll_fn *fn = REAL(ppoll);

	return fn ? fn(fds, nfds, ts, mask) : nolib();
}

static void *slot_select;
int sdp_real_select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		    struct timeval *tv)
{
	select_fn *fn = REAL(select);

	return fn ? fn(nfds, r, w, e, tv) : nolib();
}

static void *slot_pselect;
int sdp_real_pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		     const struct timespec *ts, const sigset_t *mask)
{
	pselect_fn *fn = REAL(pselect);

	return fn ? fn(nfds, r, w, e, ts, mask) : nolib();
}

static void *slot_epoll_ctl;
int sdp_real_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	epoll_ctl_fn *fn = REAL(epoll_ctl);

	return fn ? fn(epfd, op, fd, ev) : nolib();
}
