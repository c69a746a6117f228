// SPDX-License-Identifier: GPL-2.0
/*
 * socket.c - libsdp's initialisation and the wrappers of the socket calls:
 * socket, bind, listen, connect, accept, accept4, close, dup, dup2, dup3,
 * fcntl (F_DUPFD, F_DUPFD_CLOEXEC), setsockopt and getsockopt.
 *
 * socket() creates the TCP socket the application asked for and watches
 * it (fdtab.c).  The first connect() (client) or listen() (server) decides
 * by the rules what it becomes: left alone (tcp), replaced by an SDP socket
 * at the same descriptor number (sdp), or, for "both", an SDP attempt with
 * a fallback to TCP (client) or a TCP listener with an SDP shadow listener
 * that accept() also takes connections from (server).  An SDP socket
 * stands in for the TCP one through dup3(): the application's descriptor
 * number never changes.  In simple mode socket() creates SDP sockets.
 *
 * Initialisation (sdp_init()) runs once, under pthread_once(), from the
 * constructor or from the first wrapper that needs the configuration,
 * whichever comes first.  A wrapper called by the initialisation itself
 * (in_init, per thread) goes straight to the C library.
 *
 * Thread safety: the configuration is only read after sdp_init(); the
 * descriptor table has its own lock (fdtab.c); everything else here lives
 * on the stack of the calling thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libsdp.h"

#ifndef SDP_CONFIG_PATH
#define SDP_CONFIG_PATH		"/etc/libsdp.conf"
#endif

#define SDP_BOTH_WAIT_MS	3000	/* an SDP connect of "both", at most */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static __thread bool in_init;
static char prog[256];

/* --- initialisation ---------------------------------------------------- */

static void load_config(void)
{
	const char *path = secure_getenv("LIBSDP_CONFIG_FILE");

	if (getenv("SIMPLE_LIBSDP") || getenv("ALWAYS_USE_SDP")) {
		sdp_conf.simple = true;
		sdp_log(SDP_LOG_DEBUG, "SIMPLE_LIBSDP or ALWAYS_USE_SDP: all SDP");
		return;
	}
	if (!path || !*path)
		path = SDP_CONFIG_PATH;
	if (strnlen(path, SDP_PATH_MAX) >= SDP_PATH_MAX) {
		sdp_log(SDP_LOG_ERR, "LIBSDP_CONFIG_FILE too long; no rules, using both");
		return;
	}
	sdp_config_load(&sdp_conf, path);
}

static void do_init(void)
{
	const char *name = program_invocation_short_name;

	in_init = true;
	snprintf(prog, sizeof(prog), "%s", name ? name : "");
	sdp_log_set_prog(prog);
	load_config();
	if (pthread_atfork(sdp_fd_atfork_prepare, sdp_fd_atfork_parent,
			   sdp_fd_atfork_child))
		sdp_log(SDP_LOG_ERR, "pthread_atfork failed: fork() is unsafe");
	in_init = false;
}

/* False while this thread initialises: then the caller must pass through. */
bool sdp_init(void)
{
	if (in_init)
		return false;
	pthread_once(&init_once, do_init);
	return true;
}

const char *sdp_prog(void)
{
	return prog;
}

__attribute__((constructor)) static void libsdp_constructor(void)
{
	sdp_init();
}

#ifdef SDP_TEST_HOOKS
int sdp_family(void)
{
	const char *f = getenv("LIBSDP_TEST_FAMILY");

	return f ? atoi(f) : AF_INET_SDP;
}
#endif

/* --- helpers ----------------------------------------------------------- */

static bool inet_stream(int domain, int type, int protocol)
{
	return (domain == AF_INET || domain == AF_INET6) &&
	       (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
	       (protocol == 0 || protocol == IPPROTO_TCP);
}

static bool inet_addr_ok(const struct sockaddr *sa, socklen_t len)
{
	return sa && ((sa->sa_family == AF_INET &&
		       len >= sizeof(struct sockaddr_in)) ||
		      (sa->sa_family == AF_INET6 &&
		       len >= sizeof(struct sockaddr_in6)));
}

static bool nonblocking(int fd)
{
	int fl = sdp_real_fcntl(fd, F_GETFL, 0);

	return fl >= 0 && (fl & O_NONBLOCK);
}

static void set_nonblocking(int fd, bool on)
{
	int fl = sdp_real_fcntl(fd, F_GETFL, 0);

	if (fl >= 0)
		sdp_real_fcntl(fd, F_SETFL, on ? (fl | O_NONBLOCK) :
			       (fl & ~O_NONBLOCK));
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * A new SDP socket to stand in for the application's fd: close-on-exec,
 * non-blocking if asked, with the options set on fd replayed (those SDP
 * refuses are skipped) and bound to fd's local address if fd is bound.
 * Returns it, or -1 with errno set.
 */
static int sdp_twin(int fd, struct sdp_sock *s, bool nonblock, bool bind_it)
{
	struct sdp_opt opts[SDP_OPTS_MAX];
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned int i, n;
	bool bound;
	int sfd, err;

	sfd = sdp_real_socket(sdp_family(), SOCK_STREAM | SOCK_CLOEXEC |
			      (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (sfd < 0)
		return -1;
	n = sdp_sock_snapshot(s, opts, &bound);
	for (i = 0; i < n; i++)
		if (sdp_real_setsockopt(sfd, opts[i].level, opts[i].name,
					opts[i].val, opts[i].len))
			sdp_log(SDP_LOG_DEBUG, "fd %d: SDP refuses option %d/%d: %s",
				fd, opts[i].level, opts[i].name,
				strerror(errno));
	if ((bind_it || bound) &&
	    (getsockname(fd, (struct sockaddr *)&ss, &len) ||
	     sdp_real_bind(sfd, (struct sockaddr *)&ss, len))) {
		err = errno;
		sdp_real_close(sfd);
		errno = err;
		return -1;
	}
	return sfd;
}

/* Puts sfd at fd's number, keeping fd's close-on-exec flag; closes sfd. */
static int sdp_replace(int fd, int sfd)
{
	int fdfl = sdp_real_fcntl(fd, F_GETFD, 0);
	int ret = -1, err;

	if (fdfl >= 0)
		ret = sdp_real_dup3(sfd, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0);
	err = errno;
	sdp_real_close(sfd);
	errno = err;
	return ret < 0 ? -1 : 0;
}

/* --- socket, bind, options --------------------------------------------- */

SDP_EXPORT int socket(int domain, int type, int protocol)
{
	int fd;

	if (!inet_stream(domain, type, protocol) || !sdp_init())
		return sdp_real_socket(domain, type, protocol);
	if (sdp_conf.simple) {
		fd = sdp_real_socket(sdp_family(), type, 0);
		if (fd < 0)
			sdp_log(SDP_LOG_ERR, "simple mode, but SDP is unavailable: %s",
				strerror(errno));
		else
			sdp_log(SDP_LOG_INFO, "fd %d: sdp (simple mode)", fd);
		return fd;
	}
	fd = sdp_real_socket(domain, type, protocol);
	if (fd < 0)
		return fd;
	if (sdp_fd_track(fd, domain))
		sdp_log(SDP_LOG_ERR, "fd %d: cannot watch it; it stays TCP", fd);
	else
		sdp_log(SDP_LOG_DEBUG, "fd %d: TCP, watched", fd);
	return fd;
}

SDP_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	int ret = sdp_real_bind(fd, sa, len);

	if (ret == 0)
		sdp_fd_set_bound(fd);
	return ret;
}

SDP_EXPORT int setsockopt(int fd, int level, int name, const void *val,
			  socklen_t len)
{
	int ret = sdp_real_setsockopt(fd, level, name, val, len);

	if (ret == 0)
		sdp_fd_record_opt(fd, level, name, val, len);
	return ret;
}

/* An SDP socket says AF_INET or AF_INET6 for SO_DOMAIN, like TCP. */
SDP_EXPORT int getsockopt(int fd, int level, int name, void *val,
			  socklen_t *len)
{
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	int ret = sdp_real_getsockopt(fd, level, name, val, len);

	if (ret == 0 && level == SOL_SOCKET && name == SO_DOMAIN && val &&
	    len && *len >= sizeof(int) && *(int *)val == AF_INET_SDP) {
		ss.ss_family = AF_UNSPEC;
		getsockname(fd, (struct sockaddr *)&ss, &sslen);
		*(int *)val = ss.ss_family == AF_INET6 ? AF_INET6 : AF_INET;
	}
	return ret;
}

/* --- connect ----------------------------------------------------------- */

static int connect_sdp(int fd, struct sdp_sock *s, const struct sockaddr *sa,
		       socklen_t len, const char *where)
{
	int sfd = sdp_twin(fd, s, nonblocking(fd), false);

	if (sfd < 0 || sdp_replace(fd, sfd)) {
		sdp_log(SDP_LOG_ERR, "fd %d: connect to %s: sdp, but no SDP socket: %s",
			fd, where, strerror(errno));
		return -1;
	}
	sdp_log(SDP_LOG_INFO, "fd %d: connect to %s: sdp", fd, where);
	return sdp_real_connect(fd, sa, len);
}

/* Connects sfd (non-blocking) within ms; 0 or -errno of the failure. */
static int connect_wait(int sfd, const struct sockaddr *sa, socklen_t len,
			int ms)
{
	struct pollfd pfd = { .fd = sfd, .events = POLLOUT };
	long end = now_ms() + ms, left;
	socklen_t elen = sizeof(int);
	int err = 0, n;

	if (sdp_real_connect(sfd, sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	do {
		left = end - now_ms();
		n = left > 0 ? sdp_real_poll(&pfd, 1, (int)left) : 0;
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	if (sdp_real_getsockopt(sfd, SOL_SOCKET, SO_ERROR, &err, &elen))
		return -errno;
	return -err;
}

/*
 * "both": SDP first, waiting at most SDP_BOTH_WAIT_MS whatever the
 * socket's mode; then TCP, as the application asked (a non-blocking
 * socket gets its EINPROGRESS from the TCP connect).
 */
static int connect_both(int fd, struct sdp_sock *s, const struct sockaddr *sa,
			socklen_t len, const char *where)
{
	bool nonblock = nonblocking(fd);
	int sfd, err;

	sfd = sdp_twin(fd, s, true, false);
	if (sfd < 0) {
		err = -errno;
		goto fallback;
	}
	err = connect_wait(sfd, sa, len, SDP_BOTH_WAIT_MS);
	if (err) {
		sdp_real_close(sfd);
		goto fallback;
	}
	if (!nonblock)
		set_nonblocking(sfd, false);
	if (sdp_replace(fd, sfd)) {
		err = -errno;
		goto fallback;
	}
	sdp_log(SDP_LOG_INFO, "fd %d: connect to %s: both: sdp", fd, where);
	return 0;

fallback:
	sdp_log(SDP_LOG_WARN, "fd %d: connect to %s: both: SDP failed (%s), fallback to tcp",
		fd, where, strerror(-err));
	return sdp_real_connect(fd, sa, len);
}

SDP_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct sdp_sock *s;
	char where[80];
	int ret;

	if (!inet_addr_ok(sa, len) || !sdp_init())
		return sdp_real_connect(fd, sa, len);
	s = sdp_fd_get(fd);
	if (!s)
		return sdp_real_connect(fd, sa, len);
	/* Decided once: later calls go to whatever the socket is now. */
	sdp_fd_untrack(fd);
	sdp_addr_str(sa, len, where, sizeof(where));
	switch (sdp_config_decide(&sdp_conf, SDP_ROLE_CLIENT, prog, sa, len)) {
	case SDP_USE_TCP:
		sdp_log(SDP_LOG_INFO, "fd %d: %s to %s: tcp", fd, __func__,
			where);
		ret = sdp_real_connect(fd, sa, len);
		break;
	case SDP_USE_SDP:
		ret = connect_sdp(fd, s, sa, len, where);
		break;
	default:
		ret = connect_both(fd, s, sa, len, where);
		break;
	}
	sdp_sock_put(s);
	return ret;
}

/* --- listen ------------------------------------------------------------ */

/*
 * Where fd listens: its bound address, after binding it to the wildcard
 * address and an ephemeral port (what listen() would do) if unbound.
 */
static int local_addr(int fd, struct sdp_sock *s, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sdp_opt opts[SDP_OPTS_MAX];
	bool bound;

	sdp_sock_snapshot(s, opts, &bound);
	if (!bound) {
		memset(ss, 0, sizeof(*ss));
		ss->ss_family = (sa_family_t)s->domain;
		*len = s->domain == AF_INET6 ? sizeof(struct sockaddr_in6) :
					       sizeof(struct sockaddr_in);
		if (sdp_real_bind(fd, (struct sockaddr *)ss, *len))
			return -1;
		sdp_fd_set_bound(fd);
	}
	*len = sizeof(*ss);
	return getsockname(fd, (struct sockaddr *)ss, len);
}

static int listen_sdp(int fd, struct sdp_sock *s, int backlog,
		      const char *where)
{
	int sfd;

	sdp_fd_untrack(fd);
	sfd = sdp_twin(fd, s, nonblocking(fd), true);
	if (sfd < 0 || sdp_replace(fd, sfd)) {
		sdp_log(SDP_LOG_ERR, "fd %d: listen on %s: sdp, but no SDP socket: %s",
			fd, where, strerror(errno));
		return -1;
	}
	sdp_log(SDP_LOG_INFO, "fd %d: listen on %s: sdp", fd, where);
	return sdp_real_listen(fd, backlog);
}

/* "both": fd listens on TCP, a shadow SDP socket on the same address. */
static int listen_both(int fd, struct sdp_sock *s, int backlog,
		       const char *where)
{
	int shadow, err;

	if (sdp_real_listen(fd, backlog))
		return -1;
	shadow = sdp_twin(fd, s, true, true);
	if (shadow >= 0 && sdp_real_listen(shadow, backlog)) {
		err = errno;
		sdp_real_close(shadow);
		errno = err;
		shadow = -1;
	}
	if (shadow < 0) {
		sdp_log(SDP_LOG_WARN, "fd %d: listen on %s: both: SDP listen failed (%s), tcp only",
			fd, where, strerror(errno));
		sdp_fd_untrack(fd);
		return 0;
	}
	if (!sdp_sock_set_shadow(s, shadow)) {
		sdp_real_close(shadow);
		return 0;
	}
	sdp_log(SDP_LOG_INFO, "fd %d: listen on %s: both: tcp, and sdp on shadow fd %d",
		fd, where, shadow);
	return 0;
}

SDP_EXPORT int listen(int fd, int backlog)
{
	struct sockaddr_storage ss;
	struct sdp_sock *s;
	socklen_t len;
	char where[80];
	int ret, shadow;

	s = sdp_init() ? sdp_fd_get(fd) : NULL;
	if (!s)
		return sdp_real_listen(fd, backlog);
	shadow = sdp_sock_shadow(s);
	if (shadow >= 0) {
		/* Listening already: a new backlog, for both. */
		ret = sdp_real_listen(fd, backlog);
		if (ret == 0)
			sdp_real_listen(shadow, backlog);
	} else if (local_addr(fd, s, &ss, &len)) {
		ret = -1;
	} else {
		sdp_addr_str((struct sockaddr *)&ss, len, where, sizeof(where));
		switch (sdp_config_decide(&sdp_conf, SDP_ROLE_SERVER, prog,
					  (struct sockaddr *)&ss, len)) {
		case SDP_USE_TCP:
			sdp_log(SDP_LOG_INFO, "fd %d: %s on %s: tcp", fd,
				__func__, where);
			sdp_fd_untrack(fd);
			ret = sdp_real_listen(fd, backlog);
			break;
		case SDP_USE_SDP:
			ret = listen_sdp(fd, s, backlog, where);
			break;
		default:
			ret = listen_both(fd, s, backlog, where);
			break;
		}
	}
	sdp_sock_put(s);
	return ret;
}

/* --- accept ------------------------------------------------------------ */

/* SO_RCVTIMEO of a blocking listener bounds accept(): -1 is none. */
static int rcvtimeo_ms(int fd)
{
	struct timeval tv = { 0 };
	socklen_t len = sizeof(tv);

	if (sdp_real_getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) ||
	    (tv.tv_sec == 0 && tv.tv_usec == 0))
		return -1;
	if (tv.tv_sec > 1000000)
		return 1000000000;
	return (int)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
}

static int do_accept(int fd, struct sockaddr *sa, socklen_t *len, int flags,
		     bool four)
{
	return four ? sdp_real_accept4(fd, sa, len, flags) :
		      sdp_real_accept(fd, sa, len);
}

static bool again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK;
}

static int accept_shadow(int fd, int shadow, struct sockaddr *sa,
			 socklen_t *len, int flags)
{
	int ret = sdp_real_accept4(shadow, sa, len, flags);

	if (ret >= 0)
		sdp_log(SDP_LOG_DEBUG, "fd %d: accepted fd %d from SDP shadow %d",
			fd, ret, shadow);
	return ret;
}

/* Non-blocking: one try at each, in turns; EAGAIN if neither has one. */
static int accept_try(int fd, int shadow, bool sdp_first, struct sockaddr *sa,
		      socklen_t *len, int flags, bool four)
{
	int ret;

	if (sdp_first) {
		ret = accept_shadow(fd, shadow, sa, len, flags);
		if (ret >= 0 || !again())
			return ret;
	}
	ret = do_accept(fd, sa, len, flags, four);
	if (ret >= 0 || !again() || sdp_first)
		return ret;
	return accept_shadow(fd, shadow, sa, len, flags);
}

/*
 * Blocking: wait for either; the shadow is non-blocking, so a connection
 * another process took from it first only means waiting again.
 */
static int accept_wait(int fd, int shadow, bool sdp_first, struct sockaddr *sa,
		       socklen_t *len, int flags, bool four)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
			       { .fd = shadow, .events = POLLIN } };
	int timeout = rcvtimeo_ms(fd), wait = timeout, n, ret;
	long end = now_ms() + timeout;

	for (;;) {
		if (timeout >= 0)
			wait = end > now_ms() ? (int)(end - now_ms()) : 0;
		n = sdp_real_poll(p, p[1].fd >= 0 ? 2 : 1, wait);
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EAGAIN;
			return -1;
		}
		if ((p[1].revents & POLLIN) && (sdp_first || !p[0].revents)) {
			ret = accept_shadow(fd, shadow, sa, len, flags);
			if (ret >= 0 || !again())
				return ret;
		} else if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			sdp_log(SDP_LOG_WARN, "fd %d: SDP shadow %d broken, waiting on tcp only",
				fd, shadow);
			p[1].fd = -1;
		}
		/* Anything on fd, even an error, is for accept() to say. */
		if (p[0].revents)
			return do_accept(fd, sa, len, flags, four);
	}
}

static int sdp_accept(int fd, struct sockaddr *sa, socklen_t *len,
		      int flags, bool four)
{
	struct sdp_sock *s = sdp_fd_any_shadow() ? sdp_fd_get(fd) : NULL;
	int shadow = s ? sdp_sock_shadow(s) : -1;
	bool sdp_first;
	int ret;

	if (shadow < 0) {
		if (s)
			sdp_sock_put(s);
		return do_accept(fd, sa, len, flags, four);
	}
	sdp_first = sdp_sock_turn(s) & 1;
	if (nonblocking(fd))
		ret = accept_try(fd, shadow, sdp_first, sa, len, flags, four);
	else
		ret = accept_wait(fd, shadow, sdp_first, sa, len, flags, four);
	sdp_sock_put(s);
	return ret;
}

SDP_EXPORT int accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	return sdp_accept(fd, sa, len, 0, false);
}

SDP_EXPORT int accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	return sdp_accept(fd, sa, len, flags, true);
}

/* --- close and the copies of descriptors ------------------------------- */

/* Our shadows do not exist as far as the application knows. */
static int ebadf(void)
{
	errno = EBADF;
	return -1;
}

SDP_EXPORT int close(int fd)
{
	if (sdp_fd_is_shadow(fd))
		return ebadf();
	sdp_fd_untrack(fd);
	return sdp_real_close(fd);
}

SDP_EXPORT int dup(int fd)
{
	int ret;

	if (sdp_fd_is_shadow(fd))
		return ebadf();
	ret = sdp_real_dup(fd);
	if (ret >= 0)
		sdp_fd_dup(fd, ret);
	return ret;
}

static int sdp_dup3(int fd, int fd2, int flags, bool three)
{
	int ret;

	if (sdp_fd_is_shadow(fd))
		return ebadf();
	if (fd != fd2)
		sdp_fd_shadow_move(fd2);
	ret = three ? sdp_real_dup3(fd, fd2, flags) : sdp_real_dup2(fd, fd2);
	if (ret >= 0 && fd != fd2) {
		sdp_fd_untrack(fd2);
		sdp_fd_dup(fd, fd2);
	}
	return ret;
}

SDP_EXPORT int dup2(int fd, int fd2)
{
	return sdp_dup3(fd, fd2, 0, false);
}

SDP_EXPORT int dup3(int fd, int fd2, int flags)
{
	return sdp_dup3(fd, fd2, flags, true);
}

static int sdp_fcntl(int fd, int cmd, unsigned long arg, bool is64)
{
	int ret;

	if (sdp_fd_is_shadow(fd))
		return ebadf();
	ret = is64 ? sdp_real_fcntl64(fd, cmd, arg) :
		     sdp_real_fcntl(fd, cmd, arg);
	if (ret >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		sdp_fd_dup(fd, ret);
	return ret;
}

/*
 * The third argument is an int, a pointer or absent: read as an unsigned
 * long it is passed on unchanged (what the C library's fcntl does too).
 */
SDP_EXPORT int fcntl(int fd, int cmd, ...)
{
	unsigned long arg;
	va_list ap;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return sdp_fcntl(fd, cmd, arg, false);
}

SDP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	unsigned long arg;
	va_list ap;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return sdp_fcntl(fd, cmd, arg, true);
}
