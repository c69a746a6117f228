// SPDX-License-Identifier: GPL-2.0
/*
 * real.c - the C library's own versions of the functions libsdp wraps.
 *
 * Each is looked up with dlsym(RTLD_NEXT, name) the first time it is
 * needed, not in a constructor: a wrapper may run before our constructor
 * does (another library's constructor opening a socket), and must then
 * still reach the real function.  A function that cannot be found makes
 * its caller fail with ENOSYS; no NULL pointer is ever called.  The library
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

static int nosys(void)
{
	errno = ENOSYS;
	return -1;
}

/* resolve() of the slot and name of a function: its void pointer. */
#define REAL(name)	resolve(&slot_##name, #name)

static void *slot_socket;
int sdp_real_socket(int domain, int type, int protocol)
{
	int (*fn)(int, int, int) = REAL(socket);

	return fn ? fn(domain, type, protocol) : nosys();
}

static void *slot_bind;
int sdp_real_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	int (*fn)(int, const struct sockaddr *, socklen_t) = REAL(bind);

	return fn ? fn(fd, sa, len) : nosys();
}

static void *slot_listen;
int sdp_real_listen(int fd, int backlog)
{
	int (*fn)(int, int) = REAL(listen);

	return fn ? fn(fd, backlog) : nosys();
}

static void *slot_connect;
int sdp_real_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int (*fn)(int, const struct sockaddr *, socklen_t) = REAL(connect);

	return fn ? fn(fd, sa, len) : nosys();
}

static void *slot_accept;
int sdp_real_accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	int (*fn)(int, struct sockaddr *, socklen_t *) = REAL(accept);

	return fn ? fn(fd, sa, len) : nosys();
}

static void *slot_accept4;
int sdp_real_accept4(int fd, struct sockaddr *sa, socklen_t *len,
		     int flags)
{
	int (*fn)(int, struct sockaddr *, socklen_t *, int) = REAL(accept4);

	return fn ? fn(fd, sa, len, flags) : nosys();
}

static void *slot_close;
int sdp_real_close(int fd)
{
	int (*fn)(int) = REAL(close);

	return fn ? fn(fd) : nosys();
}

static void *slot_dup;
int sdp_real_dup(int fd)
{
	int (*fn)(int) = REAL(dup);

	return fn ? fn(fd) : nosys();
}

static void *slot_dup2;
int sdp_real_dup2(int fd, int fd2)
{
	int (*fn)(int, int) = REAL(dup2);

	return fn ? fn(fd, fd2) : nosys();
}

static void *slot_dup3;
int sdp_real_dup3(int fd, int fd2, int flags)
{
	int (*fn)(int, int, int) = REAL(dup3);

	return fn ? fn(fd, fd2, flags) : nosys();
}

/* The argument of any command fits in an unsigned long (int or pointer). */
static void *slot_fcntl;
int sdp_real_fcntl(int fd, int cmd, unsigned long arg)
{
	int (*fn)(int, int, ...) = REAL(fcntl);

	return fn ? fn(fd, cmd, arg) : nosys();
}

static void *slot_fcntl64;
int sdp_real_fcntl64(int fd, int cmd, unsigned long arg)
{
	int (*fn)(int, int, ...) = REAL(fcntl64);

	return fn ? fn(fd, cmd, arg) : nosys();
}

static void *slot_setsockopt;
int sdp_real_setsockopt(int fd, int level, int name, const void *val,
			socklen_t len)
{
	int (*fn)(int, int, int, const void *, socklen_t) = REAL(setsockopt);

	return fn ? fn(fd, level, name, val, len) : nosys();
}

static void *slot_getsockopt;
int sdp_real_getsockopt(int fd, int level, int name, void *val,
			socklen_t *len)
{
	int (*fn)(int, int, int, void *, socklen_t *) = REAL(getsockopt);

	return fn ? fn(fd, level, name, val, len) : nosys();
}

static void *slot_poll;
int sdp_real_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	int (*fn)(struct pollfd *, nfds_t, int) = REAL(poll);

	return fn ? fn(fds, nfds, timeout) : nosys();
}

static void *slot_ppoll;
int sdp_real_ppoll(struct pollfd *fds, nfds_t nfds,
		   const struct timespec *ts, const sigset_t *mask)
{
	int (*fn)(struct pollfd *, nfds_t, const struct timespec *,
		  const sigset_t *) = REAL(ppoll);

	return fn ? fn(fds, nfds, ts, mask) : nosys();
}

static void *slot_select;
int sdp_real_select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		    struct timeval *tv)
{
	int (*fn)(int, fd_set *, fd_set *, fd_set *, struct timeval *) =
		REAL(select);

	return fn ? fn(nfds, r, w, e, tv) : nosys();
}

static void *slot_pselect;
int sdp_real_pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		     const struct timespec *ts, const sigset_t *mask)
{
	int (*fn)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
		  const sigset_t *) = REAL(pselect);

	return fn ? fn(nfds, r, w, e, ts, mask) : nosys();
}

static void *slot_epoll_ctl;
int sdp_real_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	int (*fn)(int, int, int, struct epoll_event *) = REAL(epoll_ctl);

	return fn ? fn(epfd, op, fd, ev) : nosys();
}
