// SPDX-License-Identifier: GPL-2.0
/*
 * sdp_sock - socket semantics of AF_INET_SDP (ib_sdp), with TCP's as the
 * reference.
 *
 * "-f tcp" makes AF_INET/AF_INET6 sockets (the reference), "-f sdp" makes
 * AF_INET_SDP (27) sockets; the addresses given to bind and connect are
 * always sockaddr_in/sockaddr_in6 of ADDR's family (IPv4 or IPv6 literal,
 * "fe80::1%ifname" for a link-local one).
 *
 *   sdp-sock errno -f tcp|sdp -a ADDR [-p PORT]
 *
 *	20 fixed cases, each a short sequence of socket calls against a
 *	listener of this process on ADDR (a local address; ports PORT to
 *	PORT+15, PORT 6100 by default), checked against what Linux TCP does.
 *	Output: "ok N - CASE: EXPECTED" or "not ok N - CASE: expected X, got
 *	Y" for each case, "# " notes, then "N passed, N failed".  Exit status
 *	0 iff no case failed.  A single wait lasts at most 10 s and a case at
 *	most 15 s.
 *
 *   sdp-sock fuzz -f tcp|sdp -a ADDR [-p PORT] [-s SEED] [-n COUNT] [-v]
 *
 *	COUNT (5000 by default) random socket calls, drawn by a xorshift64
 *	generator seeded by SEED (else by the clock), on up to 16 sockets:
 *	socket, bind, listen, connect, accept4, send/recv/sendmsg/recvmsg
 *	(lengths up to 200000, random flags, iovecs, bad pointers),
 *	setsockopt/getsockopt with random level, name, length and contents,
 *	shutdown, ioctl, poll, getsockname/getpeername, dup, close, fcntl,
 *	and a "serve" step that accepts, reads and echoes so that connections
 *	get made and carry data.  Listeners and connections use ADDR ports
 *	PORT..PORT+7.  Prints "seed S" first, each call with -v, and at the
 *	end "ops N, ok N, errors N (distinct errnos: ...)".  Results are only
 *	counted, never checked; exit status 0.  Nothing blocks: every socket
 *	is made non-blocking before a call that could wait, every send and
 *	receive has MSG_DONTWAIT, polls have a zero timeout and SO_LINGER is
 *	never given a time.  Garbage addresses keep to ADDR, the wildcard,
 *	loopback, broadcast and multicast, so no packet leaves the host.
 *	Under valgrind (seen in LD_PRELOAD) bad pointers, socket filter
 *	programs included, only point into a mapping that faults (beyond the
 *	end of a memfd) and negative option lengths become 0, so that
 *	valgrind's own checks of system call arguments stay quiet.
 *
 * Exit status 2: bad arguments, or no stream sockets of the family (for
 * sdp: ib_sdp not loaded).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/sockios.h>
#include <linux/types.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef __u32 u32;
typedef __u64 u64;

#ifndef AF_INET_SDP
#define AF_INET_SDP	27
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define WAIT_MS		10000	/* the longest single wait */
#define CASE_SECS	15	/* the longest a case may take */
#define LARGE_LEN	(1024 * 1024)	/* one send(): SDP's zero copy */
#define LARGE_PEEK	1000
#define SIG_LEN		(16 * 1024 * 1024)	/* more than TCP's buffers hold */
#define BIG_LEN		100000	/* MSG_WAITALL transfer */

union sa {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_storage ss;
};

static int sock_family;			/* socket()'s domain */
static const char *family_name;
static const char *addr_arg;		/* ADDR as given */
static union sa base;			/* ADDR, port 0 */
static socklen_t base_len;
static unsigned int base_port = 6100;

/* --- errno names ------------------------------------------------------- */

#define E(x)	{ x, #x }
static const struct {
	int nr;
	const char *name;
} errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(EBADF), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY),
	E(EEXIST), E(ENODEV), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ENOSPC), E(EPIPE), E(ERANGE), E(ENODATA), E(ETIME),
	E(ENOLINK), E(EPROTO), E(EBADMSG), E(EOVERFLOW), E(EBADFD),
	E(ENOTSOCK), E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE),
	E(ENOPROTOOPT), E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP),
	E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL),
	E(ENETDOWN), E(ENETUNREACH), E(ENETRESET), E(ECONNABORTED),
	E(ECONNRESET), E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ESHUTDOWN),
	E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH),
	E(EALREADY), E(EINPROGRESS), E(ENOKEY), E(EKEYREJECTED), E(EDOM),
	E(ENOTBLK), E(EXDEV), E(ETXTBSY), E(EFBIG), E(ESPIPE), E(EROFS),
	E(EMLINK), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOTEMPTY),
	E(ELOOP), E(ENOMSG), E(EIDRM), E(ENOSTR), E(ENOSR), E(EILSEQ),
	E(EUSERS), E(ESTALE), E(EREMOTEIO), E(EDQUOT), E(ECANCELED),
	E(EKEYEXPIRED), E(EKEYREVOKED), E(EOWNERDEAD), E(ENOTRECOVERABLE),
	E(ERFKILL), E(EHWPOISON),
};

#undef E

static const char *errname(int nr)
{
	static char buf[4][16];
	static unsigned int next;
	char *b;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errnames); i++)
		if (errnames[i].nr == nr)
			return errnames[i].name;
	b = buf[next++ % ARRAY_SIZE(buf)];
	snprintf(b, sizeof(buf[0]), "errno %d", nr);
	return b;
}

/* --- addresses --------------------------------------------------------- */

static socklen_t mkaddr(union sa *a, unsigned int port)
{
	*a = base;
	if (a->sa.sa_family == AF_INET)
		a->in.sin_port = htons(port);
	else
		a->in6.sin6_port = htons(port);
	return base_len;
}

static unsigned int sa_port(const union sa *a)
{
	if (a->sa.sa_family == AF_INET)
		return ntohs(a->in.sin_port);
	if (a->sa.sa_family == AF_INET6)
		return ntohs(a->in6.sin6_port);
	return 0;
}

/* Same family, address and port. */
static bool sa_same(const union sa *a, const union sa *b)
{
	if (a->sa.sa_family != b->sa.sa_family || sa_port(a) != sa_port(b))
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->in.sin_addr.s_addr == b->in.sin_addr.s_addr;
	if (a->sa.sa_family == AF_INET6)
		return !memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr,
			       sizeof(a->in6.sin6_addr));
	return false;
}

static bool sa_is_any(const union sa *a)
{
	if (a->sa.sa_family == AF_INET)
		return a->in.sin_addr.s_addr == htonl(INADDR_ANY);
	if (a->sa.sa_family == AF_INET6)
		return !memcmp(&a->in6.sin6_addr, &in6addr_any,
			       sizeof(in6addr_any));
	return false;
}

static const char *sa_str(const union sa *a)
{
	static char buf[4][INET6_ADDRSTRLEN + 32];
	static unsigned int next;
	char *b = buf[next++ % ARRAY_SIZE(buf)];
	char host[INET6_ADDRSTRLEN];

	if (a->sa.sa_family == AF_INET) {
		inet_ntop(AF_INET, &a->in.sin_addr, host, sizeof(host));
		snprintf(b, sizeof(buf[0]), "%s:%u", host, sa_port(a));
	} else if (a->sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &a->in6.sin6_addr, host, sizeof(host));
		snprintf(b, sizeof(buf[0]), "[%s]:%u", host, sa_port(a));
	} else {
		snprintf(b, sizeof(buf[0]), "family %u", a->sa.sa_family);
	}
	return b;
}

static int parse_addr(const char *s)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	char *scope;

	memset(&base, 0, sizeof(base));
	if (inet_pton(AF_INET, s, &base.in.sin_addr) == 1) {
		base.in.sin_family = AF_INET;
		base_len = sizeof(base.in);
		return 0;
	}
	if (strlen(s) >= sizeof(host))
		return -1;
	strcpy(host, s);
	scope = strchr(host, '%');
	if (scope)
		*scope++ = '\0';
	if (inet_pton(AF_INET6, host, &base.in6.sin6_addr) != 1)
		return -1;
	base.in6.sin6_family = AF_INET6;
	base_len = sizeof(base.in6);
	if (scope) {
		char *end;
		unsigned long id = strtoul(scope, &end, 10);

		if (*end || !*scope)
			id = if_nametoindex(scope);
		if (!id)
			return -1;
		base.in6.sin6_scope_id = id;
	}
	return 0;
}

/* --- errno mode: expectations ------------------------------------------ */

static char exp_buf[256], got_buf[256];
static atomic_int alarm_fired, pipe_fired;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_fired = 1;
}

static void on_pipe(int sig)
{
	(void)sig;
	pipe_fired = 1;
}

static int __printf(2, 3)
failf(const char *exp, const char *fmt, ...)
{
	va_list ap;

	snprintf(exp_buf, sizeof(exp_buf), "%s", exp);
	va_start(ap, fmt);
	vsnprintf(got_buf, sizeof(got_buf), fmt, ap);
	va_end(ap);
	return -1;
}

/* What a call that returned ret, errno e, gave. */
static void got_result(const char *call, long ret, int e)
{
	if (ret != -1)
		snprintf(got_buf, sizeof(got_buf), "%s returned %ld", call,
			 ret);
	else if (e == EINTR && alarm_fired)
		snprintf(got_buf, sizeof(got_buf),
			 "%s: no result within %d s", call, CASE_SECS);
	else
		snprintf(got_buf, sizeof(got_buf), "%s: %s", call,
			 errname(e));
}

/* The call must have failed with errno err. */
static int want_err(const char *call, long ret, int err)
{
	int e = errno;

	if (ret == -1 && e == err)
		return 0;
	snprintf(exp_buf, sizeof(exp_buf), "%s: %s", call, errname(err));
	got_result(call, ret, e);
	return -1;
}

/* The call must have succeeded. */
static int want_ok(const char *call, long ret)
{
	int e = errno;

	if (ret >= 0)
		return 0;
	snprintf(exp_buf, sizeof(exp_buf), "%s succeeds", call);
	got_result(call, ret, e);
	return -1;
}

/* The call must have returned val. */
static int want_val(const char *call, long ret, long val)
{
	int e = errno;

	if (ret == val)
		return 0;
	snprintf(exp_buf, sizeof(exp_buf), "%s = %ld", call, val);
	got_result(call, ret, e);
	return -1;
}

/* --- errno mode: resources of a case ----------------------------------- */

static int case_fds[32];
static unsigned int nr_case_fds;
static pid_t case_child;

static int track(int fd)
{
	if (fd >= 0 && nr_case_fds < ARRAY_SIZE(case_fds))
		case_fds[nr_case_fds++] = fd;
	return fd;
}

/* Close a tracked fd now. */
static void drop(int fd)
{
	unsigned int i;

	for (i = 0; i < nr_case_fds; i++) {
		if (case_fds[i] == fd) {
			case_fds[i] = case_fds[--nr_case_fds];
			break;
		}
	}
	close(fd);
}

static void case_cleanup(void)
{
	while (nr_case_fds)
		close(case_fds[--nr_case_fds]);
	if (case_child > 0) {
		kill(case_child, SIGKILL);
		waitpid(case_child, NULL, 0);
	}
	case_child = 0;
}

/* --- errno mode: helpers ----------------------------------------------- */

static int new_sock(void)
{
	int fd = socket(sock_family, SOCK_STREAM, 0);

	if (want_ok("socket", fd))
		return -1;
	return track(fd);
}

static int set_int(int fd, int level, int name, int val, const char *call)
{
	return want_ok(call, setsockopt(fd, level, name, &val, sizeof(val)));
}

/* setsockopt() of an int, its result as it is, for want_err() */
static int set_raw(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (want_ok("fcntl(F_GETFL)", fl))
		return -1;
	return want_ok("fcntl(F_SETFL, O_NONBLOCK)",
		       fcntl(fd, F_SETFL, fl | O_NONBLOCK));
}

/*
 * poll() fd for events, at most ms; return revents, or -1 (the failure
 * recorded) on error or when nothing came.
 */
static int wait_ev(int fd, short events, int ms, const char *what)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n = poll(&p, 1, ms);

	if (n < 0) {
		want_ok("poll", n);
		return -1;
	}
	if (!n) {
		snprintf(exp_buf, sizeof(exp_buf), "%s", what);
		snprintf(got_buf, sizeof(got_buf), "no event within %d ms",
			 ms);
		return -1;
	}
	return p.revents;
}

/* poll events as names: "POLLIN|POLLOUT". */
static const char *ev_str(int ev)
{
	static const struct {
		int bit;
		const char *name;
	} bits[] = {
		{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" },
		{ POLLOUT, "POLLOUT" }, { POLLERR, "POLLERR" },
		{ POLLHUP, "POLLHUP" }, { POLLNVAL, "POLLNVAL" },
		{ POLLRDHUP, "POLLRDHUP" },
	};
	static char buf[128];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		if (!(ev & bits[i].bit))
			continue;
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "|" : "",
			      bits[i].name);
		ev &= ~bits[i].bit;
	}
	if (ev || !n)
		snprintf(buf + n, sizeof(buf) - n, "%s%#x", n ? "|" : "", ev);
	return buf;
}

static int sock_error(int fd, const char *call, int want)
{
	socklen_t len = sizeof(int);
	int err = -1;

	if (want_ok(call, getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)))
		return -1;
	if (err == want)
		return 0;
	snprintf(exp_buf, sizeof(exp_buf), "%s: %s", call,
		 want ? errname(want) : "0");
	snprintf(got_buf, sizeof(got_buf), "%s: %s", call,
		 err ? errname(err) : "0");
	return -1;
}

static int listener(unsigned int port, int backlog)
{
	union sa a;
	socklen_t len = mkaddr(&a, port);
	int fd = new_sock();

	if (fd < 0 ||
	    set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR") ||
	    want_ok("bind", bind(fd, &a.sa, len)) ||
	    want_ok("listen", listen(fd, backlog)))
		return -1;
	return fd;
}

/* A connection to the listener l on port: *c the client, *s the server. */
static int connect_to(int l, unsigned int port, int *c, int *s)
{
	union sa a;
	socklen_t len = mkaddr(&a, port);

	*c = new_sock();
	if (*c < 0 || want_ok("connect", connect(*c, &a.sa, len)) ||
	    wait_ev(l, POLLIN, WAIT_MS, "listener readable") < 0)
		return -1;
	*s = track(accept(l, NULL, NULL));
	return want_ok("accept", *s);
}

static int pair(unsigned int port, int *l, int *c, int *s)
{
	*l = listener(port, 8);
	if (*l < 0)
		return -1;
	return connect_to(*l, port, c, s);
}

/* FIONREAD of fd once it has at least want bytes (at most WAIT_MS). */
static int inq_wait(int fd, int want)
{
	int n = -1, waited;

	for (waited = 0; waited <= WAIT_MS; waited += 10) {
		if (ioctl(fd, FIONREAD, &n) < 0)
			return want_ok("ioctl(FIONREAD)", -1);
		if (n >= want)
			break;
		poll(NULL, 0, 10);
	}
	return n;
}

/* Exactly len bytes from fd into buf, each wait at most WAIT_MS. */
static int recv_exact(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n;

		if (wait_ev(fd, POLLIN, WAIT_MS, "data to read") < 0)
			return -1;
		n = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (n == 0)
			return failf("data", "EOF after %zu of %zu bytes",
				     got, len);
		if (n < 0 && errno != EAGAIN)
			return want_ok("recv", n);
		if (n > 0)
			got += n;
	}
	return 0;
}

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + i / 251);
}

/* The len bytes at buf must be pattern(0 .. len - 1). */
static int check_pattern(const unsigned char *buf, size_t len,
			 const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != pattern(i))
			return failf(what, "byte %zu differs", i);
	return 0;
}

/* A child process running send_fn(fd), the case's to reap. */
static pid_t start_sender(void (*send_fn)(int fd), int fd)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (want_ok("fork", pid))
		return -1;
	if (!pid)
		send_fn(fd);
	case_child = pid;
	return pid;
}

/* The sender of start_sender() must have exited 0. */
static int reap_sender(pid_t pid, const char *what)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return want_ok("waitpid", -1);
	case_child = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return failf(what, "status %#x", st);
	return 0;
}

/* --- errno mode: the cases --------------------------------------------- */

static int case_refused(void)
{
	union sa a;
	socklen_t len = mkaddr(&a, base_port + 0);
	int fd = new_sock();

	if (fd < 0)
		return -1;
	return want_err("connect", connect(fd, &a.sa, len), ECONNREFUSED);
}

static int case_nb_refused(void)
{
	union sa a;
	socklen_t len = mkaddr(&a, base_port + 1);
	int fd = new_sock(), ret;

	if (fd < 0 || nonblock(fd))
		return -1;
	ret = connect(fd, &a.sa, len);
	if (ret == -1 && errno == ECONNREFUSED)
		return 0;
	if (want_err("connect", ret, EINPROGRESS)) {
		snprintf(exp_buf, sizeof(exp_buf),
			 "connect: EINPROGRESS or ECONNREFUSED");
		return -1;
	}
	if (wait_ev(fd, POLLOUT, WAIT_MS, "POLLOUT") < 0)
		return -1;
	return sock_error(fd, "SO_ERROR", ECONNREFUSED);
}

static int case_nb_connect(void)
{
	union sa a, cpeer, cname, speer, sname;
	socklen_t len = mkaddr(&a, base_port + 2), l1, l2, l3, l4;
	int l, c, s, ret;

	l = listener(base_port + 2, 8);
	if (l < 0)
		return -1;
	c = new_sock();
	if (c < 0 || nonblock(c))
		return -1;
	ret = connect(c, &a.sa, len);
	if (ret && errno != EINPROGRESS) {
		want_err("connect", ret, EINPROGRESS);
		snprintf(exp_buf, sizeof(exp_buf), "connect: 0 or EINPROGRESS");
		return -1;
	}
	if (wait_ev(c, POLLOUT, WAIT_MS, "POLLOUT") < 0 ||
	    sock_error(c, "SO_ERROR", 0) ||
	    wait_ev(l, POLLIN, WAIT_MS, "listener readable") < 0)
		return -1;
	s = track(accept(l, NULL, NULL));
	if (want_ok("accept", s))
		return -1;
	l1 = sizeof(union sa);
	l2 = l1;
	l3 = l1;
	l4 = l1;
	if (want_ok("getpeername(client)", getpeername(c, &cpeer.sa, &l1)) ||
	    want_ok("getsockname(client)", getsockname(c, &cname.sa, &l2)) ||
	    want_ok("getpeername(server)", getpeername(s, &speer.sa, &l3)) ||
	    want_ok("getsockname(server)", getsockname(s, &sname.sa, &l4)))
		return -1;
	if (!sa_same(&cpeer, &a))
		return failf("client's peer is the listener's address",
			     "client's peer %s, listener %s", sa_str(&cpeer),
			     sa_str(&a));
	if (!sa_same(&cpeer, &sname))
		return failf("client's peer == server's name",
			     "client's peer %s, server's name %s",
			     sa_str(&cpeer), sa_str(&sname));
	if (!sa_same(&cname, &speer))
		return failf("client's name == server's peer",
			     "client's name %s, server's peer %s",
			     sa_str(&cname), sa_str(&speer));
	return 0;
}

static int case_unconnected_io(void)
{
	char buf[16];
	int fd = new_sock();

	if (fd < 0)
		return -1;
	if (want_err("recv", recv(fd, buf, sizeof(buf), 0), ENOTCONN))
		return -1;
	return want_err("send(MSG_NOSIGNAL)",
			send(fd, "x", 1, MSG_NOSIGNAL), EPIPE);
}

static int case_getpeername(void)
{
	union sa a;
	socklen_t len = sizeof(a);
	int fd = new_sock(), l;

	if (fd < 0)
		return -1;
	if (want_err("getpeername(new socket)",
		     getpeername(fd, &a.sa, &len), ENOTCONN))
		return -1;
	l = listener(base_port + 4, 8);
	if (l < 0)
		return -1;
	len = sizeof(a);
	return want_err("getpeername(listener)", getpeername(l, &a.sa, &len),
			ENOTCONN);
}

static int case_bind_twice(void)
{
	union sa a, b, name;
	socklen_t alen = mkaddr(&a, 0), blen = mkaddr(&b, base_port + 5);
	socklen_t nlen = sizeof(name);
	int s1, s2;

	s1 = new_sock();
	if (s1 < 0 || want_ok("bind ADDR:0", bind(s1, &a.sa, alen)) ||
	    want_err("second bind", bind(s1, &b.sa, blen), EINVAL) ||
	    want_ok("listen", listen(s1, 8)) ||
	    want_ok("getsockname", getsockname(s1, &name.sa, &nlen)))
		return -1;
	if (!sa_port(&name))
		return failf("a port after bind to port 0", "port 0");
	s2 = new_sock();
	if (s2 < 0)
		return -1;
	return want_err("bind to the listener's address",
			bind(s2, &name.sa, nlen), EADDRINUSE);
}

static int case_accept_idle(void)
{
	union sa a;
	socklen_t len = mkaddr(&a, 0);
	int fd = new_sock();

	if (fd < 0 || want_err("accept(new socket)", accept(fd, NULL, NULL),
			       EINVAL))
		return -1;
	fd = new_sock();
	if (fd < 0 || want_ok("bind ADDR:0", bind(fd, &a.sa, len)))
		return -1;
	return want_err("accept(bound socket)", accept(fd, NULL, NULL),
			EINVAL);
}

static int case_listen_connected(void)
{
	int l, c, s;

	if (pair(base_port + 7, &l, &c, &s))
		return -1;
	if (want_err("listen(client)", listen(c, 8), EINVAL))
		return -1;
	return want_err("listen(accepted)", listen(s, 8), EINVAL);
}

static int case_connect_connected(void)
{
	union sa a;
	socklen_t len = mkaddr(&a, base_port + 8);
	int l, c, s;

	if (pair(base_port + 8, &l, &c, &s))
		return -1;
	return want_err("second connect", connect(c, &a.sa, len), EISCONN);
}

static unsigned char big_tx[BIG_LEN], big_rx[BIG_LEN];

/* The child of case_data: BIG_LEN bytes to fd in uneven chunks. */
static void __noreturn send_big(int fd)
{
	static const size_t chunks[] = { 1, 999, 7000, 24000, 3, 17 };
	size_t off = 0, i = 0;

	signal(SIGALRM, SIG_DFL);
	alarm(CASE_SECS);
	while (off < BIG_LEN) {
		size_t len = chunks[i++ % ARRAY_SIZE(chunks)];
		ssize_t n;

		if (len > BIG_LEN - off)
			len = BIG_LEN - off;
		n = send(fd, big_tx + off, len, MSG_NOSIGNAL);
		if (n <= 0)
			_exit(1);
		off += n;
		if (i % 3 == 0)
			usleep(10000);
	}
	_exit(0);
}

static int case_data(void)
{
	static const char msg[] = "hello world";
	char buf[64];
	int l, c, s, n;
	ssize_t got;
	size_t i;
	pid_t pid;

	if (pair(base_port + 9, &l, &c, &s) ||
	    want_val("send", send(c, msg, 11, MSG_NOSIGNAL), 11) ||
	    wait_ev(s, POLLIN, WAIT_MS, "POLLIN") < 0)
		return -1;
	n = inq_wait(s, 11);
	if (want_val("FIONREAD", n, 11))
		return -1;
	memset(buf, 0, sizeof(buf));
	if (want_val("recv(MSG_PEEK)", recv(s, buf, sizeof(buf), MSG_PEEK),
		     11))
		return -1;
	if (memcmp(buf, msg, 11))
		return failf("MSG_PEEK gives \"hello world\"", "\"%.11s\"",
			     buf);
	if (want_ok("ioctl(FIONREAD)", ioctl(s, FIONREAD, &n)) ||
	    want_val("FIONREAD after MSG_PEEK", n, 11))
		return -1;
	memset(buf, 0, sizeof(buf));
	if (want_val("recv", recv(s, buf, sizeof(buf), 0), 11))
		return -1;
	if (memcmp(buf, msg, 11))
		return failf("recv gives \"hello world\"", "\"%.11s\"", buf);
	if (want_err("recv(MSG_DONTWAIT)",
		     recv(s, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN))
		return -1;

	for (i = 0; i < BIG_LEN; i++)
		big_tx[i] = pattern(i);
	memset(big_rx, 0, sizeof(big_rx));
	pid = start_sender(send_big, c);
	if (pid < 0)
		return -1;
	got = recv(s, big_rx, BIG_LEN, MSG_WAITALL);
	if (want_val("recv(MSG_WAITALL)", got, BIG_LEN) ||
	    check_pattern(big_rx, BIG_LEN, "the bytes sent"))
		return -1;
	return reap_sender(pid, "the sender exits 0");
}

static unsigned char large_tx[SIG_LEN], large_rx[SIG_LEN + 64];

/* The child of case_large: LARGE_LEN bytes to fd in one send(). */
static void __noreturn send_large(int fd)
{
	size_t off = 0;

	signal(SIGALRM, SIG_DFL);
	alarm(CASE_SECS);
	while (off < LARGE_LEN) {
		ssize_t n = send(fd, large_tx + off, LARGE_LEN - off,
				 MSG_NOSIGNAL);

		if (n <= 0)
			_exit(1);
		off += n;
	}
	_exit(0);
}

/*
 * A send large enough for SDP's zero copy, peeked at first: the reader
 * declines the advert, and the bytes come all the same.
 */
static int case_large(void)
{
	int l, c, s, n;
	ssize_t got;
	size_t i;
	pid_t pid;

	if (pair(base_port + 16, &l, &c, &s))
		return -1;
	for (i = 0; i < LARGE_LEN; i++)
		large_tx[i] = pattern(i);
	memset(large_rx, 0, LARGE_LEN);
	pid = start_sender(send_large, c);
	if (pid < 0)
		return -1;
	n = inq_wait(s, LARGE_PEEK);
	if (n < LARGE_PEEK)
		return failf("FIONREAD of at least 1000", "%d", n);
	if (want_val("recv(MSG_PEEK)",
		     recv(s, large_rx, LARGE_PEEK, MSG_PEEK), LARGE_PEEK) ||
	    check_pattern(large_rx, LARGE_PEEK, "MSG_PEEK: the bytes sent"))
		return -1;
	got = recv(s, large_rx, LARGE_LEN, MSG_WAITALL);
	if (want_val("recv(MSG_WAITALL)", got, LARGE_LEN) ||
	    check_pattern(large_rx, LARGE_LEN, "the bytes sent"))
		return -1;
	return reap_sender(pid, "the sender exits 0");
}

/*
 * The child of case_signal: a send of SIG_LEN bytes nobody reads yet,
 * interrupted by SIGALRM after 1 s, then "END <bytes it sent>\n" and
 * SHUT_WR.  Exit 0, or 2 if the send failed otherwise than EINTR.
 */
static void __noreturn send_signalled(int fd)
{
	char mark[32];
	ssize_t n;
	size_t sent, off = 0;
	int len;

	alarm(1);
	n = send(fd, large_tx, SIG_LEN, MSG_NOSIGNAL);
	alarm(0);
	if (n < 0 && errno != EINTR)
		_exit(2);
	sent = n > 0 ? n : 0;
	signal(SIGALRM, SIG_DFL);
	alarm(CASE_SECS);
	len = snprintf(mark, sizeof(mark), "END %zu\n", sent);
	while (off < (size_t)len) {
		n = send(fd, mark + off, len - off, MSG_NOSIGNAL);
		if (n <= 0)
			_exit(1);
		off += n;
	}
	shutdown(fd, SHUT_WR);
	_exit(0);
}

/*
 * A blocking send interrupted by a signal returns what went (or EINTR if
 * nothing did), and exactly that reaches the reader: for SDP, a zero-copy
 * advert cancelled before the sink read any of it.
 */
static int case_signal(void)
{
	size_t got = 0, i, end, sent;
	int l, c, s;
	char *mark;
	pid_t pid;

	if (pair(base_port + 17, &l, &c, &s))
		return -1;
	for (i = 0; i < SIG_LEN; i++)
		large_tx[i] = pattern(i);
	pid = start_sender(send_signalled, c);
	if (pid < 0)
		return -1;
	drop(c);
	sleep(2);
	for (;;) {
		ssize_t n;

		if (got == sizeof(large_rx))
			return failf("the stream ends", "more than %zu bytes",
				     got);
		if (wait_ev(s, POLLIN, WAIT_MS, "data to read") < 0)
			return -1;
		n = recv(s, large_rx + got, sizeof(large_rx) - got,
			 MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN)
			return want_ok("recv", n);
		if (n > 0)
			got += n;
	}
	if (reap_sender(pid, "the sender exits 0 (send: a count or EINTR)"))
		return -1;
	/* the stream: pattern(0 .. sent - 1), then "END sent\n" */
	for (end = got; end > 0 && large_rx[end - 1] != 'E'; end--)
		;
	if (end < 1 || got - end > 24 || large_rx[got - 1] != '\n')
		return failf("the stream ends with END <n>", "%zu bytes", got);
	large_rx[got - 1] = '\0';
	mark = (char *)large_rx + end - 1;
	if (sscanf(mark, "END %zu", &sent) != 1 || sent != end - 1)
		return failf("as many bytes before END as send() returned",
			     "%zu before \"%s\"", end - 1, mark);
	if (check_pattern(large_rx, sent, "the bytes sent"))
		return -1;
	printf("# signal: the interrupted send() sent %zu of %d bytes\n",
	       sent, SIG_LEN);
	return 0;
}

static int case_shutdown_wr(void)
{
	char buf[16];
	int l, c, s;

	if (pair(base_port + 10, &l, &c, &s) ||
	    want_val("send", send(c, "abc", 3, MSG_NOSIGNAL), 3) ||
	    want_ok("shutdown(SHUT_WR)", shutdown(c, SHUT_WR)) ||
	    recv_exact(s, buf, 3))
		return -1;
	if (memcmp(buf, "abc", 3))
		return failf("\"abc\"", "\"%.3s\"", buf);
	if (wait_ev(s, POLLIN, WAIT_MS, "POLLIN at EOF") < 0 ||
	    want_val("recv at EOF", recv(s, buf, sizeof(buf), 0), 0) ||
	    want_err("send(MSG_NOSIGNAL) after SHUT_WR",
		     send(c, "x", 1, MSG_NOSIGNAL), EPIPE))
		return -1;
	pipe_fired = 0;
	if (want_err("send after SHUT_WR", send(c, "x", 1, 0), EPIPE))
		return -1;
	if (!pipe_fired)
		return failf("SIGPIPE on send after SHUT_WR", "no SIGPIPE");
	/* the other direction stays open */
	if (want_val("send to the half-closed side",
		     send(s, "z", 1, MSG_NOSIGNAL), 1) ||
	    recv_exact(c, buf, 1))
		return -1;
	return 0;
}

static int case_reset(void)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char buf[16];
	int l, c, s;

	if (pair(base_port + 11, &l, &c, &s) ||
	    want_ok("SO_LINGER {1, 0}",
		    setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))))
		return -1;
	drop(c);
	if (wait_ev(s, POLLIN, WAIT_MS, "POLLIN after the reset") < 0 ||
	    want_err("recv after the peer's SO_LINGER {1, 0} close",
		     recv(s, buf, sizeof(buf), 0), ECONNRESET) ||
	    want_err("send(MSG_NOSIGNAL) after the reset",
		     send(s, "x", 1, MSG_NOSIGNAL), EPIPE))
		return -1;

	/* the server closes with unread data: a reset as well */
	if (connect_to(l, base_port + 11, &c, &s) ||
	    want_val("send", send(c, "unread", 6, MSG_NOSIGNAL), 6) ||
	    want_val("FIONREAD", inq_wait(s, 6), 6))
		return -1;
	drop(s);
	if (wait_ev(c, POLLIN, WAIT_MS, "POLLIN after the reset") < 0)
		return -1;
	return want_err("recv after the peer closed with unread data",
			recv(c, buf, sizeof(buf), 0), ECONNRESET);
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * SO_LINGER {1, 1} and a peer that reads nothing, its buffers full:
 * close() returns within its second (TCP's waits for a FIN it cannot
 * send yet; SDP's DisConn goes at once with the credit kept for control
 * messages, all data being in the peer's buffers already); once the
 * peer reads, it gets all that was sent and then EOF.
 */
static int case_linger(void)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 1 };
	static char chunk[65536];
	size_t sent = 0, got = 0;
	struct timespec t0;
	int l, c, s;
	long ms;

	if (pair(base_port + 18, &l, &c, &s) || nonblock(c))
		return -1;
	memset(chunk, 'L', sizeof(chunk));
	for (;;) {
		ssize_t n = send(c, chunk, sizeof(chunk), MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			return want_ok("send until EAGAIN", n);
		sent += n;
		if (sent > 256u << 20)
			return failf("EAGAIN before 256 MiB", "%zu sent", sent);
	}
	if (want_ok("SO_LINGER {1, 1}",
		    setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	drop(c);
	ms = elapsed_ms(&t0);
	if (ms > 1500)
		return failf("close() lingers at most 1 s", "%ld ms", ms);
	printf("# linger: close() took %ld ms\n", ms);
	for (;;) {
		ssize_t n;

		if (wait_ev(s, POLLIN, WAIT_MS, "data or EOF") < 0)
			return -1;
		n = recv(s, chunk, sizeof(chunk), MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN)
			return want_ok("recv to EOF", n);
		if (n > 0)
			got += n;
	}
	if (got != sent)
		return failf("all that was sent, then EOF", "%zu of %zu bytes",
			     got, sent);
	return 0;
}

static int case_poll(void)
{
	char buf[4];
	int l, c, s, ev;

	if (pair(base_port + 12, &l, &c, &s))
		return -1;
	ev = wait_ev(s, POLLIN | POLLOUT | POLLRDHUP, WAIT_MS, "POLLOUT");
	if (ev < 0)
		return -1;
	if (ev != POLLOUT)
		return failf("idle: POLLOUT only", "%s", ev_str(ev));
	if (want_val("send", send(c, "x", 1, MSG_NOSIGNAL), 1))
		return -1;
	ev = wait_ev(s, POLLIN | POLLRDHUP, WAIT_MS, "POLLIN");
	if (ev < 0)
		return -1;
	if (ev != POLLIN)
		return failf("after data: POLLIN", "%s", ev_str(ev));
	if (recv_exact(s, buf, 1) ||
	    want_ok("shutdown(SHUT_WR)", shutdown(c, SHUT_WR)))
		return -1;
	ev = wait_ev(s, POLLIN | POLLRDHUP, WAIT_MS, "POLLIN|POLLRDHUP");
	if (ev < 0)
		return -1;
	if (ev != (POLLIN | POLLRDHUP))
		return failf("after the peer's SHUT_WR: POLLIN|POLLRDHUP",
			     "%s", ev_str(ev));
	return 0;
}

static int epoll_count(int ep, int ms, const char *what, int want)
{
	struct epoll_event evs[4];
	int n = epoll_wait(ep, evs, ARRAY_SIZE(evs), ms);

	if (want_val(what, n, want))
		return -1;
	if (n > 0 && !(evs[0].events & EPOLLIN))
		return failf(what, "events %#x", evs[0].events);
	return 0;
}

static int case_epoll(void)
{
	struct epoll_event ev = { 0 };
	char buf[4];
	int l, c, s, et, lt;

	if (pair(base_port + 13, &l, &c, &s))
		return -1;
	et = track(epoll_create1(EPOLL_CLOEXEC));
	lt = track(epoll_create1(EPOLL_CLOEXEC));
	if (want_ok("epoll_create1", et) || want_ok("epoll_create1", lt))
		return -1;
	ev.events = EPOLLIN | EPOLLET;
	ev.data.fd = s;
	if (want_ok("epoll_ctl(EPOLLIN|EPOLLET)",
		    epoll_ctl(et, EPOLL_CTL_ADD, s, &ev)) ||
	    epoll_count(et, 0, "ET events before data", 0) ||
	    want_val("send", send(c, "a", 1, MSG_NOSIGNAL), 1) ||
	    epoll_count(et, WAIT_MS, "ET events after data", 1) ||
	    epoll_count(et, 200, "ET events without new data", 0) ||
	    want_val("send", send(c, "b", 1, MSG_NOSIGNAL), 1) ||
	    epoll_count(et, WAIT_MS, "ET events after more data", 1))
		return -1;
	ev.events = EPOLLIN;
	if (want_ok("epoll_ctl(EPOLLIN)",
		    epoll_ctl(lt, EPOLL_CTL_ADD, s, &ev)) ||
	    epoll_count(lt, WAIT_MS, "LT events with data unread", 1) ||
	    epoll_count(lt, WAIT_MS, "LT events again, data unread", 1) ||
	    recv_exact(s, buf, 2) ||
	    epoll_count(lt, 200, "LT events after reading all", 0))
		return -1;
	return 0;
}

static int get_int(int fd, int level, int name, const char *call, int *val)
{
	socklen_t len = sizeof(*val);

	*val = -1;
	if (want_ok(call, getsockopt(fd, level, name, val, &len)))
		return -1;
	return want_val(call, len, sizeof(*val));
}

/* Set name to val; what getsockopt then gives must be want (or more). */
static int opt_round(int fd, int level, int name, const char *opt, int val,
		     int want, bool at_least)
{
	char call[64];
	int got;

	snprintf(call, sizeof(call), "setsockopt(%s, %d)", opt, val);
	if (set_int(fd, level, name, val, call))
		return -1;
	snprintf(call, sizeof(call), "getsockopt(%s)", opt);
	if (get_int(fd, level, name, call, &got))
		return -1;
	if (at_least ? got >= want : got == want)
		return 0;
	snprintf(exp_buf, sizeof(exp_buf), "%s %s %d", call,
		 at_least ? ">=" : "=", want);
	snprintf(got_buf, sizeof(got_buf), "%s = %d", call, got);
	return -1;
}

static int case_sockopts(void)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 5 };
	struct tcp_info ti;
	socklen_t len;
	char buf[64];
	int l, c, s, one = 1;

	if (pair(base_port + 14, &l, &c, &s) ||
	    opt_round(c, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY", 1, 1,
		      false) ||
	    opt_round(c, SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE", 1, 1,
		      false) ||
	    opt_round(c, IPPROTO_TCP, TCP_KEEPIDLE, "TCP_KEEPIDLE", 30, 30,
		      false) ||
	    opt_round(c, IPPROTO_TCP, TCP_KEEPINTVL, "TCP_KEEPINTVL", 7, 7,
		      false) ||
	    opt_round(c, IPPROTO_TCP, TCP_KEEPCNT, "TCP_KEEPCNT", 3, 3,
		      false) ||
	    opt_round(c, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR", 1, 1,
		      false) ||
	    opt_round(c, SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF", 65536, 65536,
		      true) ||
	    opt_round(c, SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF", 65536, 65536,
		      true))
		return -1;
	if (want_ok("setsockopt(SO_LINGER, {1, 5})",
		    setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))))
		return -1;
	memset(&lg, 0xff, sizeof(lg));
	len = sizeof(lg);
	if (want_ok("getsockopt(SO_LINGER)",
		    getsockopt(c, SOL_SOCKET, SO_LINGER, &lg, &len)))
		return -1;
	if (len != sizeof(lg) || lg.l_onoff != 1 || lg.l_linger != 5)
		return failf("SO_LINGER {1, 5}", "{%d, %d}, length %u",
			     lg.l_onoff, lg.l_linger, len);
	lg.l_onoff = 0;
	lg.l_linger = 0;
	if (want_ok("setsockopt(SO_LINGER, {0, 0})",
		    setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))) ||
	    sock_error(c, "SO_ERROR", 0))
		return -1;
	memset(&ti, 0xff, sizeof(ti));
	len = sizeof(ti);
	if (want_ok("getsockopt(TCP_INFO)",
		    getsockopt(c, IPPROTO_TCP, TCP_INFO, &ti, &len)))
		return -1;
	if (len != sizeof(ti) || ti.tcpi_state != TCP_ESTABLISHED ||
	    !ti.tcpi_snd_mss || ti.tcpi_snd_mss > 1 << 20)
		return failf("TCP_INFO: length, ESTABLISHED and an MSS",
			     "length %u, state %u, snd_mss %u", len,
			     ti.tcpi_state, ti.tcpi_snd_mss);
	if (want_err("setsockopt(TCP_KEEPIDLE, 0)",
		     set_raw(c, IPPROTO_TCP, TCP_KEEPIDLE, 0), EINVAL) ||
	    want_err("setsockopt(TCP_KEEPINTVL, 32768)",
		     set_raw(c, IPPROTO_TCP, TCP_KEEPINTVL, 32768), EINVAL) ||
	    want_err("setsockopt(TCP_KEEPCNT, 128)",
		     set_raw(c, IPPROTO_TCP, TCP_KEEPCNT, 128), EINVAL))
		return -1;
	len = sizeof(buf);
	if (want_err("getsockopt(IPPROTO_TCP, 9999)",
		     getsockopt(c, IPPROTO_TCP, 9999, buf, &len), ENOPROTOOPT))
		return -1;
	return want_err("setsockopt(TCP_NODELAY) of length 1",
			setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, 1),
			EINVAL);
}

static int case_backlog(void)
{
	union sa a;
	socklen_t len = mkaddr(&a, base_port + 15);
	struct timespec t0, t;
	int l, i, ret, cl[3], acc[3], nacc = 0;
	char buf[4];

	l = listener(base_port + 15, 1);
	if (l < 0 || nonblock(l))
		return -1;
	for (i = 0; i < 3; i++) {
		cl[i] = new_sock();
		if (cl[i] < 0 || nonblock(cl[i]))
			return -1;
		ret = connect(cl[i], &a.sa, len);
		if (ret && errno != EINPROGRESS) {
			want_err("connect", ret, EINPROGRESS);
			snprintf(exp_buf, sizeof(exp_buf),
				 "connect: 0 or EINPROGRESS");
			return -1;
		}
	}
	/* what gets through within 3 s (a dropped SYN comes again at 1 s) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (nacc < 3) {
		struct pollfd p = { .fd = l, .events = POLLIN };
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = 3000 - ((t.tv_sec - t0.tv_sec) * 1000 +
			     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0)
			break;
		ret = poll(&p, 1, ms);
		if (ret < 0)
			return want_ok("poll", ret);
		if (!ret)
			break;
		ret = track(accept(l, NULL, NULL));
		if (ret < 0 && errno == EAGAIN)
			continue;
		if (want_ok("accept", ret))
			return -1;
		acc[nacc++] = ret;
	}
	printf("# backlog: %d of 3 connections accepted\n", nacc);
	if (!nacc)
		return failf("at least 1 connection accepted", "none in 3 s");
	for (i = 0; i < 3; i++)
		drop(cl[i]);
	for (i = 0; i < nacc; i++)
		if (wait_ev(acc[i], POLLIN, WAIT_MS, "POLLIN at EOF") < 0 ||
		    want_val("recv after the client's close",
			     recv(acc[i], buf, sizeof(buf), 0), 0))
			return -1;
	return 0;
}

static int case_getsockname(void)
{
	union sa a, name;
	socklen_t alen = mkaddr(&a, 0), len = sizeof(name);
	int fd;

	fd = new_sock();
	if (fd < 0 || want_ok("bind ADDR:0", bind(fd, &a.sa, alen)) ||
	    want_ok("listen", listen(fd, 8)) ||
	    want_ok("getsockname(listener)", getsockname(fd, &name.sa, &len)))
		return -1;
	if (name.sa.sa_family != a.sa.sa_family || !sa_port(&name))
		return failf("listener: ADDR and a port",
			     "%s", sa_str(&name));
	mkaddr(&a, sa_port(&name));
	if (!sa_same(&a, &name))
		return failf("listener: ADDR and a port", "%s",
			     sa_str(&name));

	fd = new_sock();
	memset(&name, 0xa5, sizeof(name));
	len = sizeof(name);
	if (fd < 0 ||
	    want_ok("getsockname(unbound)", getsockname(fd, &name.sa, &len)))
		return -1;
	/*
	 * An AF_INET6 socket answers AF_INET6; an AF_INET_SDP socket takes
	 * its IP family at its first bind or connect, so may say either.
	 */
	if (name.sa.sa_family != base.sa.sa_family &&
	    !(sock_family == AF_INET_SDP && name.sa.sa_family == AF_INET))
		return failf("unbound: the socket's family",
			     "family %u", name.sa.sa_family);
	if (len < (name.sa.sa_family == AF_INET6 ? sizeof(name.in6) :
		   sizeof(name.in)))
		return failf("unbound: a whole address", "length %u", len);
	if (!sa_is_any(&name) || sa_port(&name))
		return failf("unbound: address 0, port 0", "%s",
			     sa_str(&name));
	return 0;
}

static const struct {
	const char *name;
	const char *what;
	int (*fn)(void);
} cases[] = {
	{ "connect-refused",
	  "blocking connect to a closed port: ECONNREFUSED",
	  case_refused },
	{ "nonblock-refused",
	  "EINPROGRESS, POLLOUT, SO_ERROR ECONNREFUSED",
	  case_nb_refused },
	{ "nonblock-connect",
	  "EINPROGRESS, POLLOUT, SO_ERROR 0, accept, peer and local names agree",
	  case_nb_connect },
	{ "unconnected-io",
	  "recv ENOTCONN, send(MSG_NOSIGNAL) EPIPE",
	  case_unconnected_io },
	{ "getpeername-unconnected",
	  "ENOTCONN on a new and on a listening socket",
	  case_getpeername },
	{ "bind-twice",
	  "second bind EINVAL, bind to a listener's address EADDRINUSE",
	  case_bind_twice },
	{ "accept-not-listening",
	  "EINVAL on a new and on a bound socket",
	  case_accept_idle },
	{ "listen-connected",
	  "EINVAL on both ends of a connection",
	  case_listen_connected },
	{ "connect-connected",
	  "EISCONN",
	  case_connect_connected },
	{ "data",
	  "FIONREAD and MSG_PEEK 11, recv 11, MSG_DONTWAIT EAGAIN, MSG_WAITALL 100000",
	  case_data },
	{ "shutdown-wr",
	  "peer reads the data then EOF, send EPIPE (and SIGPIPE without MSG_NOSIGNAL), other direction open",
	  case_shutdown_wr },
	{ "reset",
	  "close after SO_LINGER {1, 0}: recv ECONNRESET, send EPIPE; close with unread data: recv ECONNRESET",
	  case_reset },
	{ "poll",
	  "idle POLLOUT only, data POLLIN, peer's SHUT_WR POLLIN|POLLRDHUP",
	  case_poll },
	{ "epoll",
	  "EPOLLET one event per arrival, level-triggered repeats until read",
	  case_epoll },
	{ "sockopts",
	  "TCP_NODELAY/SO_KEEPALIVE/SO_REUSEADDR 1, TCP_KEEPIDLE/INTVL/CNT read back and EINVAL out of range, TCP_INFO ESTABLISHED with an MSS, SO_RCVBUF/SO_SNDBUF >= 65536, SO_LINGER {1, 5}, SO_ERROR 0, unknown option ENOPROTOOPT, short optlen EINVAL",
	  case_sockopts },
	{ "backlog",
	  "listen(1) and 3 connects: some accepted, each reads EOF after its client's close",
	  case_backlog },
	{ "getsockname",
	  "port-0 listener has ADDR and a port; unbound socket: its family, address 0, port 0",
	  case_getsockname },
	{ "large",
	  "1 MiB in one send(), 1000 bytes peeked first, then MSG_WAITALL: the bytes sent",
	  case_large },
	{ "signal",
	  "a send() nobody reads, interrupted: a count or EINTR, and exactly that arrives",
	  case_signal },
	{ "linger",
	  "SO_LINGER {1, 1}, the peer's buffers full: close() within 1 s; then all data and EOF",
	  case_linger },
};

static int run_errno(void)
{
	struct sigaction sa = { 0 };
	unsigned int i, passed = 0, failed = 0;

	sa.sa_handler = on_alarm;	/* no SA_RESTART: waits end EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_pipe;
	sigaction(SIGPIPE, &sa, NULL);

	printf("# sdp-sock errno: family %s, address %s, ports %u-%u\n",
	       family_name, addr_arg, base_port, base_port + 18);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;

		exp_buf[0] = '\0';
		got_buf[0] = '\0';
		alarm_fired = 0;
		alarm(CASE_SECS);
		ret = cases[i].fn();
		alarm(0);
		case_cleanup();
		if (!ret) {
			passed++;
			printf("ok %u - %s: %s\n", i + 1, cases[i].name,
			       cases[i].what);
		} else {
			failed++;
			printf("not ok %u - %s: expected %s, got %s\n", i + 1,
			       cases[i].name, exp_buf, got_buf);
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* --- fuzz mode ---------------------------------------------------------- */

#define NR_SLOTS	16
#define MAX_LEN		200000
#define BAD_LEN		(256 * 1024)	/* > MAX_LEN */
#define MAX_ERRNO	4096

static int slots[NR_SLOTS];
static unsigned char *tx_buf, *rx_buf, *bad_map;
static bool valgrind, verbose;
static u64 rng;
static int op_errno;
static char desc[512];
static unsigned long nr_ok, nr_err, errs[MAX_ERRNO];

static u64 rnd64(void)
{
	u64 x = rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng = x;
}

static unsigned int rn(unsigned int n)
{
	return rnd64() % n;
}

static void rnd_fill(void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)rnd64();
}

static void __printf(1, 2) say(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
}

/* The result of an op's own call, errno kept for the tally. */
static long res(long ret)
{
	op_errno = ret < 0 ? errno : 0;
	return ret;
}

static void make_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* A live fd of the table, now and then -1. */
static int pick_fd(void)
{
	int live[NR_SLOTS], i, n = 0;

	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i] >= 0)
			live[n++] = slots[i];
	if (!n || !rn(32))
		return -1;
	return live[rn(n)];
}

/* Into the table, closing a random slot's fd when it is full. */
static void put_fd(int fd)
{
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < NR_SLOTS; i++) {
		if (slots[i] < 0) {
			slots[i] = fd;
			return;
		}
	}
	i = rn(NR_SLOTS);
	close(slots[i]);
	slots[i] = fd;
}

static size_t rnd_len(void)
{
	switch (rn(4)) {
	case 0:
		return rn(16);
	case 1:
		return rn(2048);
	case 2:
		return rn(70000);
	default:
		return rn(MAX_LEN + 1);
	}
}

/* A pointer the kernel must refuse, never one this program touches. */
static void *bad_ptr(void *good, const char **name)
{
	unsigned int r = rn(4);

	if (valgrind || r == 2) {
		*name = "faulting";
		return bad_map ? bad_map : good;
	}
	*name = r == 0 ? "NULL" : r == 1 ? "(void *)1" : "kernel";
	return r == 0 ? NULL : r == 1 ? (void *)1 : (void *)-4096L;
}

/* Mostly good, now and then bad. */
static void *rnd_ptr(void *good, const char **name)
{
	*name = "buf";
	if (rn(10))
		return good;
	return bad_ptr(good, name);
}

static int rnd_flags(void)
{
	static const int pool[] = {
		MSG_PEEK, MSG_WAITALL, MSG_TRUNC, MSG_NOSIGNAL, MSG_OOB,
		MSG_MORE,
	};
	int flags = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pool); i++)
		if (!rn(4))
			flags |= pool[i];
	if (!rn(8))
		flags |= (int)rnd64();
	return flags | MSG_DONTWAIT;
}

static unsigned int rnd_port(void)
{
	static const unsigned int odd[] = { 0, 1, 65535 };

	if (rn(4))
		return base_port + rn(8);
	return odd[rn(ARRAY_SIZE(odd))];
}

/*
 * A garbage address in buf (128 bytes): random bytes, family and length;
 * for the IP families the address is one that stays on this host.
 */
static socklen_t garbage_addr(unsigned char *buf)
{
	static const int fams[] = {
		AF_INET, AF_INET6, AF_UNSPEC, AF_UNIX, AF_INET_SDP,
	};
	union sa a;
	int fam;

	rnd_fill(buf, 128);
	fam = rn(6) ? fams[rn(ARRAY_SIZE(fams))] : (int)(uint16_t)rnd64();
	memcpy(&a, buf, sizeof(a));
	a.sa.sa_family = fam;
	if (fam == AF_INET || fam == AF_INET_SDP) {
		static const u32 v4[] = {
			INADDR_ANY, INADDR_LOOPBACK, INADDR_BROADCAST,
			0xe0000001,	/* 224.0.0.1 */
		};
		unsigned int r = rn(ARRAY_SIZE(v4) + 1);

		a.in.sin_port = htons(rnd_port());
		if (r < ARRAY_SIZE(v4))
			a.in.sin_addr.s_addr = htonl(v4[r]);
		else if (base.sa.sa_family == AF_INET)
			a.in.sin_addr = base.in.sin_addr;
		else
			a.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (fam == AF_INET6) {
		unsigned int r = rn(6);

		a.in6.sin6_port = htons(rnd_port());
		memset(&a.in6.sin6_addr, 0, sizeof(a.in6.sin6_addr));
		if (r == 0 && base.sa.sa_family == AF_INET6) {
			a.in6.sin6_addr = base.in6.sin6_addr;
		} else if (r <= 1) {
			a.in6.sin6_addr.s6_addr[10] = 0xff;
			a.in6.sin6_addr.s6_addr[11] = 0xff;
			memcpy(&a.in6.sin6_addr.s6_addr[12],
			       base.sa.sa_family == AF_INET ?
			       (void *)&base.in.sin_addr :
			       (void *)"\x7f\0\0\1", 4);
		} else if (r == 2) {
			a.in6.sin6_addr = in6addr_loopback;
		} else if (r == 3) {
			a.in6.sin6_addr.s6_addr[0] = 0xff;
			a.in6.sin6_addr.s6_addr[1] = 0x02;
			a.in6.sin6_addr.s6_addr[15] = 1;
		}			/* else :: */
		if (rn(2))
			a.in6.sin6_scope_id = rn(2) ? rn(4) :
						      (u32)rnd64();
	}
	memcpy(buf, &a, sizeof(a));
	return rn(129);
}

/* An address for bind/connect/sendmsg into buf (128 bytes). */
static socklen_t rnd_addr(unsigned char *buf, const char **kind)
{
	union sa a;
	socklen_t len;
	unsigned int r = rn(10);

	memset(buf, 0, 128);
	if (r < 5) {
		*kind = "ADDR:PORT+n";
		len = mkaddr(&a, base_port + rn(8));
	} else if (r == 5) {
		*kind = "ADDR:0";
		len = mkaddr(&a, 0);
	} else if (r == 6) {
		*kind = "any:PORT+n";
		len = mkaddr(&a, base_port + rn(8));
		if (a.sa.sa_family == AF_INET)
			a.in.sin_addr.s_addr = htonl(INADDR_ANY);
		else
			a.in6.sin6_addr = in6addr_any;
	} else if (r == 7) {
		*kind = "AF_UNSPEC";
		memset(&a, 0, sizeof(a));
		len = rn(2) ? sizeof(a.in) : sizeof(sa_family_t);
	} else {
		*kind = "garbage";
		return garbage_addr(buf);
	}
	memcpy(buf, &a, sizeof(a));
	return len;
}

static long op_socket(void)
{
	static const int type_flags[] = { 0, SOCK_NONBLOCK, SOCK_CLOEXEC };
	int type = SOCK_STREAM | type_flags[rn(ARRAY_SIZE(type_flags))];
	int proto = 0, fd;

	/* no random protocols for TCP: they would load modules */
	if (!rn(8))
		proto = sock_family == AF_INET_SDP && rn(2) ? (int)rn(256) :
							      IPPROTO_TCP;
	say("socket(%s, %#x, %d)", family_name, type, proto);
	fd = res(socket(sock_family, type, proto));
	if (fd >= 0) {
		make_nonblock(fd);
		put_fd(fd);
	}
	return fd;
}

/* A socket listening on ADDR:PORT+n, SO_REUSEADDR for TIME_WAITs. */
static long op_listener(void)
{
	unsigned int port = base_port + rn(8);
	union sa a;
	socklen_t len = mkaddr(&a, port);
	int fd, one = 1;
	long ret;

	say("listener on %s", sa_str(&a));
	fd = res(socket(sock_family, SOCK_STREAM | SOCK_NONBLOCK, 0));
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ret = res(bind(fd, &a.sa, len));
	if (!ret)
		ret = res(listen(fd, 16));
	put_fd(fd);
	return ret;
}

/* A new socket connecting to ADDR:PORT+n. */
static long op_connector(void)
{
	union sa a;
	socklen_t len = mkaddr(&a, base_port + rn(8));
	long ret;
	int fd;

	say("connector to %s", sa_str(&a));
	fd = res(socket(sock_family, SOCK_STREAM | SOCK_NONBLOCK, 0));
	if (fd < 0)
		return fd;
	ret = res(connect(fd, &a.sa, len));
	put_fd(fd);
	return ret;
}

static long op_bind(void)
{
	unsigned char buf[128];
	const char *kind;
	int fd = pick_fd();
	socklen_t len = rnd_addr(buf, &kind);

	say("bind(%d, %s, %u)", fd, kind, len);
	return res(bind(fd, (struct sockaddr *)buf, len));
}

static long op_listen(void)
{
	static const int backlogs[] = { -1, 0, 1, 5, 128, INT_MAX, INT_MIN };
	int fd = pick_fd();
	int backlog = rn(2) ? backlogs[rn(ARRAY_SIZE(backlogs))] :
			      (int)rnd64();

	say("listen(%d, %d)", fd, backlog);
	return res(listen(fd, backlog));
}

static long op_connect(void)
{
	unsigned char buf[128];
	const char *kind;
	int fd = pick_fd();
	socklen_t len = rnd_addr(buf, &kind);

	if (fd >= 0)
		make_nonblock(fd);
	say("connect(%d, %s, %u)", fd, kind, len);
	return res(connect(fd, (struct sockaddr *)buf, len));
}

static long op_accept(void)
{
	unsigned char buf[128];
	socklen_t len = rn(129);
	int fd = pick_fd(), nfd;
	int flags = SOCK_NONBLOCK | (rn(2) ? SOCK_CLOEXEC : 0);
	bool addr = rn(2);

	if (fd >= 0)
		make_nonblock(fd);
	say("accept4(%d, %s, %u, %#x)", fd, addr ? "buf" : "NULL", len,
	    flags);
	nfd = res(accept4(fd, addr ? (struct sockaddr *)buf : NULL,
			  addr ? &len : NULL, flags));
	put_fd(nfd);
	return nfd;
}

static long op_send(void)
{
	int fd = pick_fd(), flags = rnd_flags();
	size_t len = rnd_len();
	const char *pn;
	void *p = rnd_ptr(tx_buf, &pn);

	say("send(%d, %s, %zu, %#x)", fd, pn, len, flags);
	return res(send(fd, p, len, flags));
}

static long op_recv(void)
{
	int fd = pick_fd(), flags = rnd_flags();
	size_t len = rnd_len();
	const char *pn;
	void *p = rnd_ptr(rx_buf, &pn);

	say("recv(%d, %s, %zu, %#x)", fd, pn, len, flags);
	return res(recv(fd, p, len, flags));
}

/* Up to 8 iovecs over buf covering len bytes, perhaps one bad. */
static int rnd_iov(struct iovec *iov, unsigned char *buf, size_t len,
		   const char **bad)
{
	int n = rn(9), i;
	size_t off = 0;

	*bad = "";
	for (i = 0; i < n; i++) {
		size_t part = i == n - 1 ? len - off : rn(len - off + 1);

		iov[i].iov_base = buf + off;
		iov[i].iov_len = part;
		off += part;
	}
	if (n && !rn(6)) {
		const char *pn;

		i = rn(n);
		iov[i].iov_base = bad_ptr(iov[i].iov_base, &pn);
		if (!iov[i].iov_len)
			iov[i].iov_len = 1 + rn(64);
		*bad = pn;
	}
	return n;
}

static long op_sendmsg(void)
{
	unsigned char name[128], ctl[64];
	struct iovec iov[8];
	struct msghdr m = { 0 };
	int fd = pick_fd(), flags = rnd_flags();
	const char *bad, *kind = "none";

	m.msg_iov = iov;
	m.msg_iovlen = rnd_iov(iov, tx_buf, rnd_len(), &bad);
	if (!rn(4)) {
		m.msg_name = name;
		m.msg_namelen = rnd_addr(name, &kind);
	}
	if (!rn(6)) {
		struct cmsghdr *cm = (struct cmsghdr *)ctl;
		static const int levels[] = {
			SOL_SOCKET, IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP,
		};

		rnd_fill(ctl, sizeof(ctl));
		m.msg_control = ctl;
		m.msg_controllen = rn(sizeof(ctl) + 1);
		if (rn(2)) {
			/* a well-formed one of random type */
			m.msg_controllen = CMSG_SPACE(sizeof(int));
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			cm->cmsg_level = levels[rn(ARRAY_SIZE(levels))];
			cm->cmsg_type = rn(80);
		}
	}
	say("sendmsg(%d, iovs %zu%s%s, name %s, control %zu, %#x)", fd,
	    (size_t)m.msg_iovlen, *bad ? " with " : "", bad, kind,
	    (size_t)m.msg_controllen, flags);
	return res(sendmsg(fd, &m, flags));
}

static long op_recvmsg(void)
{
	unsigned char name[128], ctl[128];
	struct iovec iov[8];
	struct msghdr m = { 0 };
	int fd = pick_fd(), flags = rnd_flags();
	const char *bad;

	m.msg_iov = iov;
	m.msg_iovlen = rnd_iov(iov, rx_buf, rnd_len(), &bad);
	if (rn(2)) {
		m.msg_name = name;
		m.msg_namelen = rn(129);
	}
	if (rn(2)) {
		m.msg_control = ctl;
		m.msg_controllen = rn(sizeof(ctl) + 1);
	}
	say("recvmsg(%d, iovs %zu%s%s, namelen %u, control %zu, %#x)", fd,
	    (size_t)m.msg_iovlen, *bad ? " with " : "", bad, m.msg_namelen,
	    (size_t)m.msg_controllen, flags);
	return res(recvmsg(fd, &m, flags));
}

static int rnd_level(void)
{
	static const int levels[] = {
		SOL_SOCKET, IPPROTO_TCP, IPPROTO_IP, IPPROTO_IPV6,
	};

	if (rn(5))
		return levels[rn(ARRAY_SIZE(levels))];
	return (int)rnd64();
}

/* Option contents: random bytes, or a small int and zeros. */
static void rnd_optval(unsigned char *buf, size_t size)
{
	int v;

	if (rn(2)) {
		rnd_fill(buf, size);
		return;
	}
	memset(buf, 0, size);
	v = rn(4) ? (int)rn(3) : (int)rnd64();
	memcpy(buf, &v, sizeof(v));
}

static int rnd_optlen(void)
{
	int len = (int)rn(66) - 1;	/* -1..64 */

	/* valgrind takes a negative length for a huge buffer */
	return valgrind && len < 0 ? 0 : len;
}

static long op_setsockopt(void)
{
	unsigned char buf[256];
	int fd = pick_fd(), level = rnd_level(), name = rn(81);
	int len = rnd_optlen();

	rnd_optval(buf, sizeof(buf));
	if (level == SOL_SOCKET && name == SO_LINGER) {
		/* a linger time would make close() wait */
		struct linger lg;

		memcpy(&lg, buf, sizeof(lg));
		lg.l_linger = 0;
		memcpy(buf, &lg, sizeof(lg));
	}
	if (valgrind && level == SOL_SOCKET &&
	    (name == SO_ATTACH_FILTER || name == SO_ATTACH_REUSEPORT_CBPF)) {
		/* valgrind reads the program: make it one that faults */
		struct sock_fprog fp;

		memcpy(&fp, buf, sizeof(fp));
		fp.len = bad_map ? fp.len % (BAD_LEN / sizeof(*fp.filter)) : 0;
		fp.filter = (struct sock_filter *)bad_map;
		memcpy(buf, &fp, sizeof(fp));
	}
	say("setsockopt(%d, %d, %d, len %d)", fd, level, name, len);
	return res(setsockopt(fd, level, name, buf, (socklen_t)len));
}

static long op_getsockopt(void)
{
	unsigned char buf[256];
	int fd = pick_fd(), level = rnd_level(), name = rn(81);
	int len = rnd_optlen();
	socklen_t slen = (socklen_t)len;

	rnd_optval(buf, sizeof(buf));
	say("getsockopt(%d, %d, %d, len %d)", fd, level, name, len);
	return res(getsockopt(fd, level, name, buf, &slen));
}

static long op_shutdown(void)
{
	static const int hows[] = { SHUT_RD, SHUT_WR, SHUT_RDWR, 3, -1 };
	int fd = pick_fd();
	int how = rn(4) ? hows[rn(ARRAY_SIZE(hows))] : (int)rnd64();

	if (fd >= 0)
		make_nonblock(fd);
	say("shutdown(%d, %d)", fd, how);
	return res(shutdown(fd, how));
}

static long op_ioctl(void)
{
	static const unsigned long cmds[] = {
		FIONREAD, SIOCOUTQ, SIOCATMARK, FIONBIO, SIOCOUTQNSD,
	};
	unsigned char buf[64];
	int fd = pick_fd();
	unsigned long cmd;
	unsigned int r = rn(ARRAY_SIZE(cmds) + 2);
	int v = rn(2);

	if (r < ARRAY_SIZE(cmds)) {
		cmd = cmds[r];
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &v, sizeof(v));
	} else {
		/* small numbers: nothing a socket or the VFS acts on */
		cmd = rn(256);
		rnd_fill(buf, sizeof(buf));
	}
	say("ioctl(%d, %#lx)", fd, cmd);
	return res(ioctl(fd, cmd, buf));
}

static short rnd_events(void)
{
	static const short evs[] = {
		POLLIN, POLLOUT, POLLPRI, POLLRDHUP, POLLERR, POLLHUP,
	};
	short e = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(evs); i++)
		if (rn(2))
			e |= evs[i];
	if (!rn(8))
		e = (short)rnd64();
	return e;
}

static long op_poll(void)
{
	struct pollfd p[NR_SLOTS];
	int i;

	for (i = 0; i < NR_SLOTS; i++) {
		p[i].fd = slots[i];
		p[i].events = rnd_events();
		p[i].revents = 0;
	}
	say("poll(%d fds, 0)", NR_SLOTS);
	return res(poll(p, NR_SLOTS, 0));
}

static long op_getname(void)
{
	unsigned char buf[128];
	int fd = pick_fd(), peer = rn(2);
	socklen_t len;

	switch (rn(4)) {
	case 0:
		len = 0;
		break;
	case 1:
		len = sizeof(buf);
		break;
	case 2:
		len = sizeof(struct sockaddr_in);
		break;
	default:
		len = rn(sizeof(buf) + 1);
	}
	memset(buf, 0, sizeof(buf));
	say("%s(%d, buf, %u)", peer ? "getpeername" : "getsockname", fd,
	    len);
	if (peer)
		return res(getpeername(fd, (struct sockaddr *)buf, &len));
	return res(getsockname(fd, (struct sockaddr *)buf, &len));
}

static long op_dup(void)
{
	int fd = pick_fd(), nfd;

	say("dup(%d)", fd);
	nfd = res(dup(fd));
	put_fd(nfd);
	return nfd;
}

static long op_close(void)
{
	int live[NR_SLOTS], i, n = 0, fd;

	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i] >= 0)
			live[n++] = i;
	if (!n || !rn(32)) {
		say("close(-1)");
		return res(close(-1));
	}
	i = live[rn(n)];
	fd = slots[i];
	slots[i] = -1;
	make_nonblock(fd);
	say("close(%d)", fd);
	return res(close(fd));
}

static long op_fcntl(void)
{
	int fd = pick_fd(), fl;

	say("fcntl(%d, F_SETFL, flags ^ O_NONBLOCK)", fd);
	fl = res(fcntl(fd, F_GETFL));
	if (fl < 0)
		return fl;
	return res(fcntl(fd, F_SETFL, fl ^ O_NONBLOCK));
}

/*
 * The server side: accept what waits on the listeners, read what came
 * and now and then echo it or send something of our own.
 */
static long op_serve(void)
{
	struct pollfd p[NR_SLOTS];
	int i, n;
	long done = 0;

	for (i = 0; i < NR_SLOTS; i++) {
		p[i].fd = slots[i];
		p[i].events = POLLIN | POLLOUT;
		p[i].revents = 0;
	}
	say("serve");
	n = res(poll(p, NR_SLOTS, 0));
	if (n <= 0)
		return n;
	for (i = 0; i < NR_SLOTS; i++) {
		int fd = p[i].fd, nfd;
		ssize_t got = 0;

		if (fd < 0 || slots[i] != fd)
			continue;
		if (p[i].revents & POLLIN) {
			make_nonblock(fd);
			nfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK);
			if (nfd >= 0) {
				put_fd(nfd);
				done++;
				continue;
			}
			got = recv(fd, rx_buf, 65536, MSG_DONTWAIT);
			if (got > 0)
				done++;
		}
		if ((got > 0 && rn(2)) ||
		    ((p[i].revents & POLLOUT) && !rn(4))) {
			size_t len = got > 0 ? (size_t)got : rnd_len();

			if (send(fd, got > 0 ? rx_buf : tx_buf, len,
				 MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
				done++;
		}
	}
	return done;
}

static const struct {
	const char *name;
	unsigned int weight;
	long (*fn)(void);
} fuzz_ops[] = {
	{ "socket", 5, op_socket },
	{ "listener", 4, op_listener },
	{ "connector", 6, op_connector },
	{ "bind", 5, op_bind },
	{ "listen", 4, op_listen },
	{ "connect", 5, op_connect },
	{ "accept", 5, op_accept },
	{ "send", 9, op_send },
	{ "recv", 9, op_recv },
	{ "sendmsg", 6, op_sendmsg },
	{ "recvmsg", 6, op_recvmsg },
	{ "setsockopt", 8, op_setsockopt },
	{ "getsockopt", 8, op_getsockopt },
	{ "shutdown", 2, op_shutdown },
	{ "ioctl", 4, op_ioctl },
	{ "poll", 3, op_poll },
	{ "getname", 4, op_getname },
	{ "dup", 2, op_dup },
	{ "close", 5, op_close },
	{ "fcntl", 2, op_fcntl },
	{ "serve", 8, op_serve },
};

static int run_fuzz(u64 seed, unsigned long count)
{
	unsigned int total = 0, i;
	unsigned long op;
	int memfd, e;

	printf("seed %llu\n", (unsigned long long)seed);
	fflush(stdout);
	rng = seed ^ 0x9e3779b97f4a7c15ULL;
	if (!rng)
		rng = 1;
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < NR_SLOTS; i++)
		slots[i] = -1;
	for (i = 0; i < ARRAY_SIZE(fuzz_ops); i++)
		total += fuzz_ops[i].weight;

	tx_buf = malloc(MAX_LEN);
	rx_buf = malloc(MAX_LEN);
	if (!tx_buf || !rx_buf) {
		fprintf(stderr, "sdp-sock: out of memory\n");
		free(tx_buf);
		free(rx_buf);
		return 2;
	}
	for (i = 0; i < MAX_LEN; i++)
		tx_buf[i] = pattern(i);
	memset(rx_buf, 0, MAX_LEN);
	/* an empty memfd's mapping: every access to it faults */
	memfd = memfd_create("sdp-sock-fault", MFD_CLOEXEC);
	if (memfd >= 0) {
		bad_map = mmap(NULL, BAD_LEN, PROT_READ | PROT_WRITE,
			       MAP_SHARED, memfd, 0);
		if (bad_map == MAP_FAILED)
			bad_map = NULL;
		close(memfd);
	}
	valgrind = getenv("LD_PRELOAD") &&
		   strstr(getenv("LD_PRELOAD"), "vgpreload");

	for (op = 0; op < count; op++) {
		unsigned int w = rn(total);
		long ret;

		for (i = 0; w >= fuzz_ops[i].weight; i++)
			w -= fuzz_ops[i].weight;
		desc[0] = '\0';
		op_errno = 0;
		ret = fuzz_ops[i].fn();
		if (ret < 0) {
			nr_err++;
			errs[op_errno > 0 && op_errno < MAX_ERRNO ?
			     op_errno : 0]++;
		} else {
			nr_ok++;
		}
		if (verbose) {
			if (ret < 0)
				printf("%lu %s = %ld %s\n", op, desc, ret,
				       errname(op_errno));
			else
				printf("%lu %s = %ld\n", op, desc, ret);
		}
	}

	for (i = 0; i < NR_SLOTS; i++) {
		if (slots[i] >= 0) {
			make_nonblock(slots[i]);
			close(slots[i]);
			slots[i] = -1;
		}
	}
	if (bad_map)
		munmap(bad_map, BAD_LEN);
	free(tx_buf);
	free(rx_buf);

	printf("ops %lu, ok %lu, errors %lu (distinct errnos:", count, nr_ok,
	       nr_err);
	for (e = 0, i = 0; e < MAX_ERRNO; e++) {
		if (!errs[e])
			continue;
		printf("%s %s %lu", i++ ? "," : "", e ? errname(e) : "?",
		       errs[e]);
	}
	printf("%s)\n", i ? "" : " none");
	return 0;
}

/* --- main -------------------------------------------------------------- */

static void __noreturn print_usage(void)
{
	fprintf(stderr,
		"usage: sdp-sock errno -f tcp|sdp -a ADDR [-p PORT]\n"
		"       sdp-sock fuzz -f tcp|sdp -a ADDR [-p PORT] [-s SEED] [-n COUNT] [-v]\n"
		"  -f tcp: AF_INET/AF_INET6 sockets, -f sdp: AF_INET_SDP (27)\n"
		"  ADDR: a local IPv4 or IPv6 address; PORT: first port, default 6100\n");
	exit(2);
}

static bool parse_ul(const char *s, unsigned long long max,
		     unsigned long long *val)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return false;
	*val = strtoull(s, &end, 0);
	return !errno && !*end && *val <= max;
}

int main(int argc, char **argv)
{
	const char *mode, *fam = NULL, *addr = NULL;
	unsigned long long v, seed = 0, count = 5000;
	bool fuzz, have_seed = false;
	int opt, fd;

	if (argc < 2)
		print_usage();
	mode = argv[1];
	fuzz = !strcmp(mode, "fuzz");
	if (!fuzz && strcmp(mode, "errno"))
		print_usage();
	argc--;
	argv++;
	argv[0] = (char *)"sdp-sock";	/* for getopt's messages */
	while ((opt = getopt(argc, argv, fuzz ? "f:a:p:s:n:v" : "f:a:p:"))
	       != -1) {
		switch (opt) {
		case 'f':
			fam = optarg;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			if (!parse_ul(optarg, 65535 - 16, &v) || !v)
				print_usage();
			base_port = v;
			break;
		case 's':
			if (!parse_ul(optarg, ULLONG_MAX, &seed))
				print_usage();
			have_seed = true;
			break;
		case 'n':
			if (!parse_ul(optarg, ULONG_MAX, &count))
				print_usage();
			break;
		case 'v':
			verbose = true;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc || !fam || !addr)
		print_usage();
	addr_arg = addr;
	if (parse_addr(addr)) {
		fprintf(stderr, "sdp-sock: bad address '%s'\n", addr);
		print_usage();
	}
	if (!strcmp(fam, "tcp")) {
		sock_family = base.sa.sa_family;
		family_name = sock_family == AF_INET ? "AF_INET" : "AF_INET6";
	} else if (!strcmp(fam, "sdp")) {
		sock_family = AF_INET_SDP;
		family_name = "AF_INET_SDP";
	} else {
		print_usage();
	}

	fd = socket(sock_family, SOCK_STREAM, 0);
	if (fd < 0) {
		int e = errno;

		fprintf(stderr, "sdp-sock: socket(%s, SOCK_STREAM, 0): %s%s\n",
			family_name, strerror(e),
			sock_family == AF_INET_SDP && e == EAFNOSUPPORT ?
			" (no AF_INET_SDP: is ib_sdp loaded?)" : "");
		return 2;
	}
	close(fd);

	if (!fuzz)
		return run_errno();
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_sec * 1000000007ULL ^
		       ts.tv_nsec ^ ((unsigned long long)getpid() << 20);
	}
	return run_fuzz(seed, count);
}
