// SPDX-License-Identifier: GPL-2.0
/*
 * sdp_tcp - a small TCP echo server and client for the libsdp preload
 * tests (tests/libsdp/run.sh): plain socket calls, nothing SDP-aware.
 *
 *   sdp-tcp server [-m MODE] [-n COUNT] [-6] [-c] [-r] [-D]
 *       Listens on 127.0.0.1 (::1 with -6), an ephemeral port, prints
 *       "port N" and echoes one line on each of COUNT connections (1).
 *       MODE says how it waits for them: block (accept), nonblock
 *       (accept4 retried on EAGAIN), poll, ppoll, select, pselect, epoll.
 *       -c: SOCK_CLOEXEC listener; -r: SO_REUSEPORT before bind; -D: the
 *       listener is replaced by a dup() of itself after listen(); -X:
 *       every free-looking number just above the listener is closed (must
 *       say EBADF) and then taken by dup2() and closed again, as daemons
 *       do with the numbers they want (a shadow there must move away).
 *   sdp-tcp client [-b] [-c] [-6] PORT MESSAGE
 *       Connects (-b: SOCK_NONBLOCK, waiting with poll), sends MESSAGE,
 *       checks the echo.  "connect: ERRNO-NAME" and status 3 if the
 *       connect fails.
 *
 * Both check that the descriptor flags they asked for (FD_CLOEXEC,
 * O_NONBLOCK) are still there after connect() and listen().  Status 0
 * on success; a 20 s alarm ends a run that hangs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

static bool v6, cloexec;

static void die(const char *what)
{
	printf("%s: %s\n", what, strerrorname_np(errno));
	fflush(stdout);
	exit(1);
}

static socklen_t loopback(struct sockaddr_storage *ss, unsigned int port)
{
	struct sockaddr_in6 *s6 = (void *)ss;
	struct sockaddr_in *s4 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		s6->sin6_port = htons((uint16_t)port);
		return sizeof(*s6);
	}
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s4->sin_port = htons((uint16_t)port);
	return sizeof(*s4);
}

static void check_flags(int fd, bool want_cloexec, bool want_nonblock,
			const char *when)
{
	int fdfl = fcntl(fd, F_GETFD), fl = fcntl(fd, F_GETFL);

	if (fdfl < 0 || fl < 0 || !!(fdfl & FD_CLOEXEC) != want_cloexec ||
	    !!(fl & O_NONBLOCK) != want_nonblock) {
		printf("flags after %s: FD_CLOEXEC %d, O_NONBLOCK %d\n", when,
		       !!(fdfl & FD_CLOEXEC), !!(fl & O_NONBLOCK));
		exit(1);
	}
}

/* --- server ------------------------------------------------------------ */

static void echo(int fd)
{
	char buf[256];
	ssize_t n, len = 0;

	do {
		n = read(fd, buf + len, sizeof(buf) - (size_t)len);
		if (n <= 0)
			die("read");
		len += n;
	} while (buf[len - 1] != '\n' && len < (ssize_t)sizeof(buf));
	if (write(fd, buf, (size_t)len) != len)
		die("write");
	close(fd);
}

/* Takes what connections there are; how many it served. */
static int drain(int lfd, bool four)
{
	int fd, n = 0;

	for (;;) {
		fd = four ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) :
			    accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return n;
			die("accept");
		}
		check_flags(fd, four, false, "accept");
		echo(fd);
		n++;
	}
}

static void wait_in(int lfd, const char *mode, int epfd)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	struct epoll_event ev;
	fd_set r;
	int n;

	FD_ZERO(&r);
	FD_SET(lfd, &r);
	if (!strcmp(mode, "poll"))
		n = poll(&p, 1, 10000);
	else if (!strcmp(mode, "ppoll"))
		n = ppoll(&p, 1, NULL, NULL);
	else if (!strcmp(mode, "select"))
		n = select(lfd + 1, &r, NULL, NULL, NULL);
	else if (!strcmp(mode, "pselect"))
		n = pselect(lfd + 1, &r, NULL, NULL, NULL, NULL);
	else if (!strcmp(mode, "epoll"))
		n = epoll_wait(epfd, &ev, 1, 10000);
	else
		n = usleep(10000) ? -1 : 1;
	if (n < 0)
		die(mode);
	if (n != 1) {
		printf("%s: %d ready\n", mode, n);
		exit(1);
	}
	if (!strcmp(mode, "epoll") && ev.data.u64 != 0x5d9) {
		printf("epoll: data %llx\n", (unsigned long long)ev.data.u64);
		exit(1);
	}
	if ((!strcmp(mode, "poll") || !strcmp(mode, "ppoll")) &&
	    p.revents != POLLIN) {
		printf("%s: revents %x\n", mode, p.revents);
		exit(1);
	}
}

/* Numbers that look free must behave free, shadows or not. */
static void grab_free(int lfd)
{
	int fd;

	for (fd = lfd + 1; fd < lfd + 4; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		if (errno != EBADF || close(fd) == 0 || errno != EBADF)
			die("close of a free number");
		if (dup2(STDERR_FILENO, fd) != fd || close(fd))
			die("dup2 onto a free number");
	}
}

static int server(int argc, char **argv)
{
	const char *mode = "block";
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x5d9 };
	struct sockaddr_storage ss;
	bool reuse = false, redup = false, grab = false, nb;
	int opt, lfd, epfd = -1, count = 1, one = 1, done = 0;
	socklen_t len;

	while ((opt = getopt(argc, argv, "m:n:6crDX")) != -1) {
		switch (opt) {
		case 'm':
			mode = optarg;
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case '6':
			v6 = true;
			break;
		case 'c':
			cloexec = true;
			break;
		case 'r':
			reuse = true;
			break;
		case 'D':
			redup = true;
			break;
		case 'X':
			grab = true;
			break;
		default:
			return 2;
		}
	}
	nb = strcmp(mode, "block") != 0;
	lfd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM |
		     (cloexec ? SOCK_CLOEXEC : 0) | (nb ? SOCK_NONBLOCK : 0), 0);
	if (lfd < 0)
		die("socket");
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (reuse && setsockopt(lfd, SOL_SOCKET, SO_REUSEPORT, &one,
				 sizeof(one))))
		die("setsockopt");
	len = loopback(&ss, 0);
	if (bind(lfd, (struct sockaddr *)&ss, len))
		die("bind");
	if (listen(lfd, 64))
		die("listen");
	check_flags(lfd, cloexec, nb, "listen");
	if (redup) {
		int fd = dup(lfd);

		if (fd < 0 || close(lfd))
			die("dup");
		lfd = fd;
	}
	if (grab)
		grab_free(lfd);
	len = sizeof(ss);
	if (getsockname(lfd, (struct sockaddr *)&ss, &len))
		die("getsockname");
	if (!strcmp(mode, "epoll")) {
		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev))
			die("epoll_ctl");
	}
	printf("port %u\n", ntohs(((struct sockaddr_in *)&ss)->sin_port));
	fflush(stdout);
	while (done < count) {
		if (!nb) {
			echo(accept(lfd, NULL, NULL));
			done++;
			continue;
		}
		wait_in(lfd, mode, epfd);
		done += drain(lfd, true);
	}
	close(lfd);
	printf("served %d\n", done);
	return 0;
}

/* --- client ------------------------------------------------------------ */

static int finish_connect(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0;

	if (errno != EINPROGRESS)
		return -1;
	if (poll(&p, 1, 10000) != 1)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return -1;
	errno = err;
	return err ? -1 : 0;
}

static int client(int argc, char **argv)
{
	struct pollfd p = { .events = POLLIN };
	struct sockaddr_storage ss;
	bool nb = false;
	char buf[256];
	ssize_t n, len = 0;
	int opt, fd, before;
	socklen_t alen;

	while ((opt = getopt(argc, argv, "bc6")) != -1) {
		switch (opt) {
		case 'b':
			nb = true;
			break;
		case 'c':
			cloexec = true;
			break;
		case '6':
			v6 = true;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 2)
		return 2;
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM |
		    (cloexec ? SOCK_CLOEXEC : 0) | (nb ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		die("socket");
	before = fd;
	alen = loopback(&ss, (unsigned int)atoi(argv[optind]));
	if (connect(fd, (struct sockaddr *)&ss, alen) &&
	    (!nb || finish_connect(fd))) {
		printf("connect: %s\n", strerrorname_np(errno));
		return 3;
	}
	if (fd != before)
		return 1;
	check_flags(fd, cloexec, nb, "connect");
	snprintf(buf, sizeof(buf), "%s\n", argv[optind + 1]);
	if (write(fd, buf, strlen(buf)) != (ssize_t)strlen(buf))
		die("write");
	p.fd = fd;
	do {
		if (nb && poll(&p, 1, 10000) != 1)
			die("poll");
		n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len);
		if (n <= 0)
			die("read");
		len += n;
	} while (buf[len - 1] != '\n' && len < (ssize_t)sizeof(buf) - 1);
	buf[len - 1] = '\0';
	if (strcmp(buf, argv[optind + 1])) {
		printf("echo: '%s'\n", buf);
		return 1;
	}
	printf("echo ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	alarm(20);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "server"))
		return server(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "client"))
		return client(argc - 1, argv + 1);
	fprintf(stderr, "usage: sdp-tcp server|client ...\n");
	return 2;
}
