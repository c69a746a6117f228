/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libsdp.h - what the files of libsdp.so share.
 *
 * libsdp.so is an LD_PRELOAD library that moves the TCP sockets of
 * unmodified programs onto SDP (AF_INET_SDP sockets of ib_sdp.ko) as its
 * configuration file says (Documentation/sdp.rst, "The preload library").
 *
 *   config.c  the configuration: parsing libsdp.conf and matching rules;
 *             built into the unit tests too, so it calls no wrapper
 *   log.c     log lines, their level and destination
 *   real.c    the C library's own functions, found lazily with dlsym()
 *   fdtab.c   the table of the sockets we watch, by descriptor number
 *   socket.c  initialisation and the wrappers of the socket calls
 *   poll.c    the wrappers of poll, ppoll, select, pselect and epoll_ctl
 *
 * Locking: the configuration is written once, under pthread_once() in
 * sdp_init(), and only read afterwards.  The descriptor table has a mutex
 * of its own (fdtab.c).  Logging takes no lock.
 */
#ifndef LIBSDP_H
#define LIBSDP_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>

#define AF_INET_SDP		27

#define SDP_EXPORT		__attribute__((visibility("default")))
/* The Makefiles define it as the format attribute (checkpatch's wish). */
#ifndef SDP_PRINTF
#define SDP_PRINTF(a, b)
#endif

/* --- log.c ------------------------------------------------------------- */

/* Levels of sdp.md section 4: a line is written if level >= min-level. */
enum {
	SDP_LOG_DEBUG = 1,	/* debug messages */
	SDP_LOG_CALL = 2,	/* calls and what they return */
	SDP_LOG_NOMATCH = 3,	/* no rule matched */
	SDP_LOG_MATCH = 4,	/* the rule that matched */
	SDP_LOG_INFO = 7,	/* every connect and listen decision */
	SDP_LOG_WARN = 8,	/* fallbacks to TCP */
	SDP_LOG_ERR = 9,	/* errors */
};

enum sdp_log_dest {
	SDP_LOG_STDERR,
	SDP_LOG_SYSLOG,
	SDP_LOG_FILE,
};

#define SDP_PATH_MAX		4096

void sdp_log(int level, const char *fmt, ...) SDP_PRINTF(2, 3);
void sdp_log_set_level(int level);
int sdp_log_get_level(void);
enum sdp_log_dest sdp_log_get_dest(void);
int sdp_log_set_dest(enum sdp_log_dest dest, const char *path);
void sdp_log_set_prog(const char *prog);
void sdp_log_reset(void);

/* --- config.c ---------------------------------------------------------- */

enum sdp_use {
	SDP_USE_SDP,
	SDP_USE_TCP,
	SDP_USE_BOTH,
};

enum sdp_role {
	SDP_ROLE_SERVER,
	SDP_ROLE_CLIENT,
};

#define SDP_GLOB_MAX		256	/* longest program glob, with its NUL */
#define SDP_LINE_MAX		1024	/* longest configuration line */
#define SDP_RULES_MAX		4096	/* rules kept from one file */

struct sdp_rule {
	enum sdp_use use;
	enum sdp_role role;
	char prog[SDP_GLOB_MAX];
	int family;			/* AF_INET, AF_INET6, or 0 for '*' */
	unsigned char addr[16];		/* network byte order, masked */
	unsigned int prefix;		/* bits of addr that must match */
	unsigned int port_lo, port_hi;	/* 0-65535 for '*' */
	int line;			/* where it was in the file */
};

struct sdp_config {
	struct sdp_rule *rules;
	unsigned int nr_rules;
	unsigned int cap_rules;		/* room in rules */
	unsigned int nr_use_lines;	/* valid or not */
	unsigned int nr_errors;
	bool simple;			/* everything on SDP */
};

extern struct sdp_config sdp_conf;

int sdp_config_parse_line(struct sdp_config *conf, char *line,
			  const char *file, int lineno);
int sdp_config_load(struct sdp_config *conf, const char *path);
void sdp_config_free(struct sdp_config *conf);
const struct sdp_rule *sdp_config_match(const struct sdp_config *conf,
					enum sdp_role role, const char *prog,
					const struct sockaddr *sa,
					socklen_t len);
enum sdp_use sdp_config_decide(const struct sdp_config *conf,
			       enum sdp_role role, const char *prog,
			       const struct sockaddr *sa, socklen_t len);
const char *sdp_use_name(enum sdp_use use);
const char *sdp_addr_str(const struct sockaddr *sa, socklen_t len,
			 char *buf, size_t size);

/* --- real.c ------------------------------------------------------------ */

/*
 * The functions we wrap, as the next object after us (the C library)
 * defines them.  Each fails with ELIBACC if it cannot be found.
 */
int sdp_real_socket(int domain, int type, int protocol);
int sdp_real_bind(int fd, const struct sockaddr *sa, socklen_t len);
int sdp_real_listen(int fd, int backlog);
int sdp_real_connect(int fd, const struct sockaddr *sa, socklen_t len);
int sdp_real_accept(int fd, struct sockaddr *sa, socklen_t *len);
int sdp_real_accept4(int fd, struct sockaddr *sa, socklen_t *len,
		     int flags);
int sdp_real_close(int fd);
int sdp_real_dup(int fd);
int sdp_real_dup2(int fd, int fd2);
int sdp_real_dup3(int fd, int fd2, int flags);
int sdp_real_fcntl(int fd, int cmd, unsigned long arg);
int sdp_real_fcntl64(int fd, int cmd, unsigned long arg);
int sdp_real_setsockopt(int fd, int level, int name, const void *val,
			socklen_t len);
int sdp_real_getsockopt(int fd, int level, int name, void *val,
			socklen_t *len);
int sdp_real_poll(struct pollfd *fds, nfds_t nfds, int timeout);
int sdp_real_ppoll(struct pollfd *fds, nfds_t nfds,
		   const struct timespec *ts, const sigset_t *mask);
int sdp_real_select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		    struct timeval *tv);
int sdp_real_pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		     const struct timespec *ts, const sigset_t *mask);
int sdp_real_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev);

/* The C library's, for the _FORTIFY_SOURCE forms of poll and ppoll. */
void __chk_fail(void);
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *ts,
		const sigset_t *mask, size_t fdslen);

/* --- fdtab.c ----------------------------------------------------------- */

#define SDP_OPTS_MAX		24	/* distinct options remembered */
#define SDP_OPTLEN_MAX		64	/* largest option value remembered */

struct sdp_opt {
	int level;
	int name;
	socklen_t len;
	unsigned char val[SDP_OPTLEN_MAX];
};

/*
 * A TCP socket of the application's that we watch: one socket, whatever
 * number of descriptors (dup) refer to it.  Created by socket(), dropped
 * once connect() or listen() has decided its fate, except for the
 * listener of a "both" server, which keeps its SDP shadow here.
 */
struct sdp_sock {
	int refs;		/* descriptors + callers holding it */
	int domain;		/* AF_INET or AF_INET6 */
	dev_t dev;		/* identity (fstat), to notice a descriptor */
	ino_t ino;		/* closed behind our back and reused */
	bool bound;
	unsigned int nr_opts;
	struct sdp_opt opts[SDP_OPTS_MAX];
	int shadow;		/* SDP listener of a "both" server, or -1 */
	unsigned int turn;	/* which of the two accept() tries first */
};

int sdp_fd_track(int fd, int domain);
struct sdp_sock *sdp_fd_get(int fd);
void sdp_sock_put(struct sdp_sock *s);
void sdp_fd_untrack(int fd);
bool sdp_fd_is_shadow(int fd);
int sdp_fd_shadow_move(int fd);
void sdp_fd_dup(int oldfd, int newfd);
void sdp_fd_set_bound(int fd);
void sdp_fd_record_opt(int fd, int level, int name, const void *val,
		       socklen_t len);
unsigned int sdp_sock_snapshot(struct sdp_sock *s, struct sdp_opt *out,
			       bool *bound);
bool sdp_sock_set_shadow(struct sdp_sock *s, int shadow);
int sdp_sock_shadow(struct sdp_sock *s);
unsigned int sdp_sock_turn(struct sdp_sock *s);
bool sdp_fd_any_shadow(void);
bool sdp_fd_any_tracked(void);
void sdp_fd_atfork_prepare(void);
void sdp_fd_atfork_parent(void);
void sdp_fd_atfork_child(void);

/* --- socket.c ---------------------------------------------------------- */

bool sdp_init(void);
const char *sdp_prog(void);

/*
 * The family of "SDP" sockets.  The tests build a second library with
 * SDP_TEST_HOOKS, where LIBSDP_TEST_FAMILY may name another family (2,
 * AF_INET): the SDP paths then run on a host without ib_sdp.ko.
 */
#ifdef SDP_TEST_HOOKS
int sdp_family(void);
#else
static inline int sdp_family(void)
{
	return AF_INET_SDP;
}
#endif

#endif /* LIBSDP_H */
