// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - libsdp's log lines: their minimum level and their destination
 * (stderr, syslog or a file), as the "log" statement sets them.
 *
 * A line is formatted on the stack and written with one write() (or one
 * syslog() call), so lines of several threads never mix.  A log file is
 * opened and closed for each line: the library keeps no descriptor of its
 * own that the application could close or reuse.  errno is preserved, so
 * that a wrapper may log between failing and returning.
 *
 * Thread safety: the settings are written only while the configuration is
 * read (under pthread_once(), see sdp_init()) or by the single-threaded
 * unit tests, and only read afterwards; no lock is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "libsdp.h"

#define SDP_LOG_LINE_MAX	512

static int log_level = SDP_LOG_ERR;
static enum sdp_log_dest log_dest = SDP_LOG_STDERR;
static char log_path[SDP_PATH_MAX];
static char log_prog[64];
static bool log_file_failed;

void sdp_log_set_level(int level)
{
	if (level >= SDP_LOG_DEBUG && level <= SDP_LOG_ERR)
		log_level = level;
}

int sdp_log_get_level(void)
{
	return log_level;
}

enum sdp_log_dest sdp_log_get_dest(void)
{
	return log_dest;
}

void sdp_log_set_prog(const char *prog)
{
	snprintf(log_prog, sizeof(log_prog), "%s", prog ? prog : "");
}

void sdp_log_reset(void)
{
	log_level = SDP_LOG_ERR;
	log_dest = SDP_LOG_STDERR;
	log_path[0] = '\0';
	log_file_failed = false;
}

/*
 * A file name without a slash goes to /var/log for root and to
 * /tmp/NAME.UID for anyone else (OFED's rule, simplified); an absolute
 * path is taken as it is.  Anything else is refused.
 */
int sdp_log_set_dest(enum sdp_log_dest dest, const char *path)
{
	char buf[SDP_PATH_MAX];
	int n;

	if (dest != SDP_LOG_FILE) {
		log_dest = dest;
		return 0;
	}
	if (!path || !path[0])
		return -1;
	if (path[0] == '/')
		n = snprintf(buf, sizeof(buf), "%s", path);
	else if (strchr(path, '/'))
		return -1;
	else if (geteuid() == 0)
		n = snprintf(buf, sizeof(buf), "/var/log/%s", path);
	else
		n = snprintf(buf, sizeof(buf), "/tmp/%s.%u", path,
			     (unsigned int)geteuid());
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -1;
	memcpy(log_path, buf, (size_t)n + 1);
	log_dest = SDP_LOG_FILE;
	log_file_failed = false;
	return 0;
}

static void log_stderr(const char *line, size_t len)
{
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}

/*
 * Never follow a symbolic link, and write only to a regular file of our
 * own: a log file in /tmp must not be a way to make a program write
 * elsewhere.  A file that cannot be used is reported once, on stderr.
 */
static void log_file(const char *line, size_t len)
{
	struct stat st;
	int fd;

	fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		  O_CLOEXEC | O_NOCTTY, 0600);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
			st.st_uid != geteuid())) {
		sdp_real_close(fd);
		fd = -1;
		errno = EPERM;
	}
	if (fd < 0) {
		if (!log_file_failed) {
			char msg[SDP_PATH_MAX + 64];
			int n;

			log_file_failed = true;
			n = snprintf(msg, sizeof(msg),
				     "libsdp: cannot log to %s: %s\n",
				     log_path, strerror(errno));
			if (n > 0)
				log_stderr(msg, strnlen(msg, sizeof(msg)));
		}
		log_stderr(line, len);
		return;
	}
	if (write(fd, line, len) < 0)
		log_file_failed = true;
	sdp_real_close(fd);
}

static int syslog_prio(int level)
{
	if (level >= SDP_LOG_ERR)
		return LOG_ERR;
	if (level >= SDP_LOG_WARN)
		return LOG_WARNING;
	if (level >= SDP_LOG_INFO)
		return LOG_INFO;
	return LOG_DEBUG;
}

void sdp_log(int level, const char *fmt, ...)
{
	char line[SDP_LOG_LINE_MAX];
	int saved = errno;
	va_list ap;
	size_t len;
	int n;

	if (level < log_level)
		return;
	n = snprintf(line, sizeof(line), "libsdp[%d] %s: ", (int)getpid(),
		     log_prog);
	if (n < 0)
		n = 0;
	len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	va_start(ap, fmt);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	len = strnlen(line, sizeof(line) - 2);
	line[len++] = '\n';
	line[len] = '\0';

	switch (log_dest) {
	case SDP_LOG_SYSLOG:
		syslog(LOG_USER | syslog_prio(level), "%s", line);
		break;
	case SDP_LOG_FILE:
		log_file(line, len);
		break;
	default:
		log_stderr(line, len);
		break;
	}
	errno = saved;
}
