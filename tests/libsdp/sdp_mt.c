// SPDX-License-Identifier: GPL-2.0
/*
 * sdp_mt - many threads using sockets at once under the libsdp preload
 * (tests/libsdp/run.sh runs it under valgrind when it is installed).
 *
 *   sdp-mt [THREADS [ROUNDS]]     (4 and 50)
 *
 * Each round of each thread: a listener (SOCK_CLOEXEC and SOCK_NONBLOCK
 * in turn, SO_REUSEPORT, bound to 127.0.0.1, an ephemeral port), a client
 * connecting to it (blocking or not), an accept4 after poll, select or
 * epoll, one byte each way, dup, dup3 and F_DUPFD_CLOEXEC copies, a socket
 * closed unused, and everything closed again; thread 0 also forks every
 * fifth round, the child closing its copies and running /bin/true.  Status 0 if
 * every call did what it should.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int rounds = 50;
static int failures;

#define CHECK(cond) check(cond, #cond, __LINE__)

static int check(int cond, const char *what, int line)
{
	if (!cond) {
		fprintf(stderr, "sdp-mt:%d: %s failed: %s\n", line, what,
			strerror(errno));
		__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
	}
	return cond;
}

static int listener(int round, struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
		    (round & 1 ? SOCK_CLOEXEC : 0), 0);
	if (!CHECK(fd >= 0))
		return -1;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!CHECK(!setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
			       sizeof(one))) ||
	    !CHECK(!bind(fd, (struct sockaddr *)sin, sizeof(*sin))) ||
	    !CHECK(!listen(fd, 8)) ||
	    !CHECK(!getsockname(fd, (struct sockaddr *)sin, &len))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits for the listener to be readable in one of three ways. */
static int wait_in(int lfd, int round)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = lfd };
	struct timeval tv = { 5, 0 };
	int ep, n;
	fd_set r;

	switch (round % 3) {
	case 0:
		return poll(&p, 1, 5000);
	case 1:
		if (lfd >= FD_SETSIZE)
			return poll(&p, 1, 5000);
		FD_ZERO(&r);
		FD_SET(lfd, &r);
		return select(lfd + 1, &r, NULL, NULL, &tv);
	default:
		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0)
			return -1;
		n = epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
		if (!n)
			n = epoll_wait(ep, &ev, 1, 5000);
		close(ep);
		return n;
	}
}

static int accept_one(int lfd, int round)
{
	int fd, tries;

	for (tries = 0; tries < 50; tries++) {
		if (wait_in(lfd, round) < 0)
			return -1;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return fd;
	}
	return -1;
}

static void forked(int lfd, int cfd)
{
	pid_t pid = fork();
	int status;

	if (!CHECK(pid >= 0))
		return;
	if (pid == 0) {
		close(lfd);
		close(cfd);
		close(socket(AF_INET, SOCK_STREAM, 0));
		/* Not _exit(): valgrind would check the leaks of a copy. */
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
}

static void one_round(int id, int round)
{
	struct pollfd p = { .events = POLLOUT };
	struct sockaddr_in sin;
	int lfd, cfd, afd, d1, d2, d3, spare;
	char c = 'x';

	lfd = listener(round, &sin);
	if (lfd < 0)
		return;
	spare = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cfd = socket(AF_INET, SOCK_STREAM | (round & 2 ? SOCK_NONBLOCK : 0), 0);
	if (!CHECK(cfd >= 0))
		goto out_l;
	if (connect(cfd, (struct sockaddr *)&sin, sizeof(sin))) {
		p.fd = cfd;
		CHECK(errno == EINPROGRESS && poll(&p, 1, 5000) == 1);
	}
	afd = accept_one(lfd, round);
	if (!CHECK(afd >= 0))
		goto out_c;
	d1 = dup(lfd);
	d2 = fcntl(lfd, F_DUPFD_CLOEXEC, 0);
	d3 = dup(afd);
	CHECK(d1 >= 0 && d2 >= 0 && d3 >= 0);
	CHECK(dup3(afd, d3, O_CLOEXEC) == d3);
	if (round & 2) {
		p.fd = cfd;
		CHECK(poll(&p, 1, 5000) == 1);
	}
	CHECK(write(cfd, &c, 1) == 1 && read(d3, &c, 1) == 1);
	CHECK(write(afd, &c, 1) == 1);
	p.fd = cfd;
	p.events = POLLIN;
	CHECK(poll(&p, 1, 5000) == 1 && read(cfd, &c, 1) == 1);
	if (id == 0 && round % 5 == 0)
		forked(lfd, cfd);
	close(d1);
	close(d2);
	close(d3);
	close(afd);
out_c:
	close(cfd);
out_l:
	close(spare);
	CHECK(!close(lfd));
}

static void *thread(void *arg)
{
	int id = (int)(long)arg, i;

	for (i = 0; i < rounds; i++)
		one_round(id, i);
	return NULL;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 4, i;
	pthread_t t[64];

	if (argc > 2)
		rounds = atoi(argv[2]);
	if (nr < 1 || nr > 64 || rounds < 1)
		return 2;
	for (i = 0; i < nr; i++)
		if (pthread_create(&t[i], NULL, thread, (void *)(long)i))
			return 1;
	for (i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	printf("%d threads, %d rounds: %d failures\n", nr, rounds, failures);
	return failures != 0;
}
