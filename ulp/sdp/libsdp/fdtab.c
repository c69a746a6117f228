// SPDX-License-Identifier: GPL-2.0
/*
 * fdtab.c - the table of the descriptors libsdp watches.
 *
 * Slot N of the table says what descriptor N is to us: a TCP socket of
 * the application's whose fate is not decided yet, or the listener of a
 * "both" server (->sock, a struct sdp_sock shared by every descriptor that
 * dup() made of it), or the SDP shadow listener of such a server
 * (->shadow_of), a descriptor of ours the application does not know.
 * Everything else has an empty slot and is left alone.
 *
 * A struct sdp_sock is reference counted: one reference per slot, one per
 * caller between sdp_fd_get() and sdp_sock_put().  The last reference
 * closes its shadow.  Since the application may close a descriptor in ways
 * we do not see (fclose() of an fdopen()ed socket, close_range()), a slot
 * remembers the socket's identity (device and inode) and sdp_fd_get()
 * drops a slot whose descriptor is no longer that socket.
 *
 * Locking: tab_lock protects the table (tab, tab_len), every slot, every
 * field of every struct sdp_sock and the two counters.  The counters are
 * also read without it, atomically, by the fast paths that only ask
 * whether there is anything at all to look at.  No blocking call is made
 * under tab_lock; shadows that must be closed are closed after dropping
 * it.  fork() holds it across the fork (pthread_atfork(), see socket.c),
 * so that the child's copy of the table is consistent and unlocked.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsdp.h"

#define SDP_FDS_MAX		(1024 * 1024)	/* descriptors we can watch */

struct slot {
	struct sdp_sock *sock;		/* the application's socket */
	struct sdp_sock *shadow_of;	/* this is that socket's shadow */
};

static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *tab;
static int tab_len;
static int nr_tracked;		/* slots with a ->sock */
static int nr_shadows;		/* slots with a ->shadow_of */

static void lock(void)
{
	pthread_mutex_lock(&tab_lock);
}

static void unlock(void)
{
	pthread_mutex_unlock(&tab_lock);
}

static void count(int *counter, int delta)
{
	__atomic_add_fetch(counter, delta, __ATOMIC_RELAXED);
}

/* Makes slot fd exist; tab_lock held.  False if it cannot. */
static bool grow(int fd)
{
	struct slot *t;
	int len;

	if (fd < 0 || fd >= SDP_FDS_MAX)
		return false;
	if (fd < tab_len)
		return true;
	len = tab_len ? tab_len : 64;
	while (len <= fd)
		len *= 2;
	t = realloc(tab, (size_t)len * sizeof(*t));
	if (!t)
		return false;
	memset(t + tab_len, 0, (size_t)(len - tab_len) * sizeof(*t));
	tab = t;
	tab_len = len;
	return true;
}

static struct slot *slot(int fd)
{
	return fd >= 0 && fd < tab_len ? &tab[fd] : NULL;
}

/*
 * Drops a reference; tab_lock held.  Returns the shadow to close (after
 * unlocking) if that was the last one, else -1.
 */
static int unref(struct sdp_sock *s)
{
	int shadow = s->shadow;

	if (--s->refs > 0)
		return -1;
	if (shadow >= 0) {
		tab[shadow].shadow_of = NULL;
		count(&nr_shadows, -1);
	}
	free(s);
	return shadow;
}

/* Empties slot fd; tab_lock held.  Returns a shadow to close, or -1. */
static int clear(int fd)
{
	struct slot *sl = slot(fd);
	struct sdp_sock *s;

	if (!sl)
		return -1;
	/* Our shadow's number, closed behind our back and reused. */
	if (sl->shadow_of) {
		sl->shadow_of->shadow = -1;
		sl->shadow_of = NULL;
		count(&nr_shadows, -1);
	}
	s = sl->sock;
	if (!s)
		return -1;
	sl->sock = NULL;
	count(&nr_tracked, -1);
	return unref(s);
}

static void close_shadow(int shadow)
{
	if (shadow >= 0) {
		sdp_log(SDP_LOG_DEBUG, "closing SDP shadow %d", shadow);
		sdp_real_close(shadow);
	}
}

static bool identity(int fd, dev_t *dev, ino_t *ino)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/* Starts watching fd, a new TCP socket of family domain. */
int sdp_fd_track(int fd, int domain)
{
	struct sdp_sock *s = calloc(1, sizeof(*s));
	int shadow;

	if (!s || !identity(fd, &s->dev, &s->ino)) {
		free(s);
		return -1;
	}
	s->refs = 1;
	s->domain = domain;
	s->shadow = -1;
	lock();
	if (!grow(fd)) {
		unlock();
		free(s);
		return -1;
	}
	shadow = clear(fd);
	tab[fd].sock = s;
	count(&nr_tracked, 1);
	unlock();
	close_shadow(shadow);
	return 0;
}

/*
 * The socket watched at fd, with a reference the caller gives back with
 * sdp_sock_put(), or NULL.
 */
struct sdp_sock *sdp_fd_get(int fd)
{
	bool stale = false;
	struct sdp_sock *s;
	int shadow = -1;
	dev_t dev;
	ino_t ino;

	if (!sdp_fd_any_tracked())
		return NULL;
	lock();
	s = slot(fd) ? tab[fd].sock : NULL;
	if (s && (!identity(fd, &dev, &ino) || dev != s->dev ||
		  ino != s->ino)) {
		stale = true;
		shadow = clear(fd);
		s = NULL;
	}
	if (s)
		s->refs++;
	unlock();
	if (stale)
		sdp_log(SDP_LOG_DEBUG, "fd %d was closed behind our back", fd);
	close_shadow(shadow);
	return s;
}

void sdp_sock_put(struct sdp_sock *s)
{
	int shadow;

	lock();
	shadow = unref(s);
	unlock();
	close_shadow(shadow);
}

/* fd is being closed, or replaced by dup2(): forget it. */
void sdp_fd_untrack(int fd)
{
	int shadow;

	if (!sdp_fd_any_tracked())
		return;
	lock();
	shadow = clear(fd);
	unlock();
	close_shadow(shadow);
}

bool sdp_fd_is_shadow(int fd)
{
	bool ret;

	if (!sdp_fd_any_shadow())
		return false;
	lock();
	ret = slot(fd) && tab[fd].shadow_of;
	unlock();
	return ret;
}

/*
 * The application is about to dup2() onto fd, which is one of our
 * shadows: move the shadow to another number first.  Returns -1 if fd
 * is no shadow (nothing done), 0 if it was moved or, failing that, given
 * up (the server goes on with TCP alone).
 */
int sdp_fd_shadow_move(int fd)
{
	struct sdp_sock *s;
	int nfd;

	if (!sdp_fd_any_shadow())
		return -1;
	lock();
	s = slot(fd) ? tab[fd].shadow_of : NULL;
	if (!s) {
		unlock();
		return -1;
	}
	nfd = sdp_real_fcntl(fd, F_DUPFD_CLOEXEC, 0);
	tab[fd].shadow_of = NULL;
	if (nfd >= 0 && grow(nfd)) {
		tab[nfd].shadow_of = s;
		s->shadow = nfd;
	} else {
		s->shadow = -1;
		count(&nr_shadows, -1);
		if (nfd >= 0)
			sdp_real_close(nfd);
		nfd = -1;
	}
	unlock();
	sdp_real_close(fd);
	if (nfd < 0)
		sdp_log(SDP_LOG_ERR, "SDP shadow %d lost to dup2(); TCP only",
			fd);
	else
		sdp_log(SDP_LOG_DEBUG, "SDP shadow moved from %d to %d", fd,
			nfd);
	return 0;
}

/* newfd is now a copy of oldfd (dup, dup2, dup3, F_DUPFD). */
void sdp_fd_dup(int oldfd, int newfd)
{
	struct sdp_sock *s;
	int shadow = -1;

	if (!sdp_fd_any_tracked())
		return;
	lock();
	s = slot(oldfd) ? tab[oldfd].sock : NULL;
	if (s && newfd != oldfd && grow(newfd)) {
		shadow = clear(newfd);
		tab[newfd].sock = s;
		s->refs++;
		count(&nr_tracked, 1);
	}
	unlock();
	close_shadow(shadow);
}

void sdp_fd_set_bound(int fd)
{
	if (!sdp_fd_any_tracked())
		return;
	lock();
	if (slot(fd) && tab[fd].sock)
		tab[fd].sock->bound = true;
	unlock();
}

/* Remembers a setsockopt() to replay on an SDP socket that replaces fd. */
void sdp_fd_record_opt(int fd, int level, int name, const void *val,
		       socklen_t len)
{
	const char *why = NULL;
	struct sdp_sock *s;
	struct sdp_opt *o;
	unsigned int i;

	if (!sdp_fd_any_tracked())
		return;
	lock();
	s = slot(fd) ? tab[fd].sock : NULL;
	if (!s)
		goto out;
	if (len > SDP_OPTLEN_MAX || !val) {
		why = "too large";
		goto out;
	}
	for (i = 0; i < s->nr_opts; i++)
		if (s->opts[i].level == level && s->opts[i].name == name)
			break;
	if (i == SDP_OPTS_MAX) {
		why = "one too many";
		goto out;
	}
	o = &s->opts[i];
	o->level = level;
	o->name = name;
	o->len = len;
	memcpy(o->val, val, len);
	if (i == s->nr_opts)
		s->nr_opts++;
out:
	unlock();
	if (why)
		sdp_log(SDP_LOG_DEBUG, "fd %d: option %d/%d not kept for SDP: %s",
			fd, level, name, why);
}

/*
 * A copy of the options of s, in out[SDP_OPTS_MAX], and whether it is
 * bound; returns how many options.
 */
unsigned int sdp_sock_snapshot(struct sdp_sock *s, struct sdp_opt *out,
			       bool *bound)
{
	unsigned int n;

	lock();
	n = s->nr_opts;
	memcpy(out, s->opts, n * sizeof(*out));
	*bound = s->bound;
	unlock();
	return n;
}

/* Gives s its shadow.  False if it has one already or there is no room. */
bool sdp_sock_set_shadow(struct sdp_sock *s, int shadow)
{
	int stale = -1;
	bool ok;

	lock();
	ok = s->shadow < 0 && grow(shadow);
	if (ok) {
		stale = clear(shadow);
		tab[shadow].shadow_of = s;
		s->shadow = shadow;
		count(&nr_shadows, 1);
	}
	unlock();
	close_shadow(stale);
	return ok;
}

int sdp_sock_shadow(struct sdp_sock *s)
{
	int shadow;

	lock();
	shadow = s->shadow;
	unlock();
	return shadow;
}

unsigned int sdp_sock_turn(struct sdp_sock *s)
{
	unsigned int turn;

	lock();
	turn = s->turn++;
	unlock();
	return turn;
}

bool sdp_fd_any_shadow(void)
{
	return __atomic_load_n(&nr_shadows, __ATOMIC_RELAXED) > 0;
}

bool sdp_fd_any_tracked(void)
{
	return __atomic_load_n(&nr_tracked, __ATOMIC_RELAXED) > 0 ||
	       sdp_fd_any_shadow();
}

void sdp_fd_atfork_prepare(void)
{
	lock();
}

void sdp_fd_atfork_parent(void)
{
	unlock();
}

void sdp_fd_atfork_child(void)
{
	unlock();
}
