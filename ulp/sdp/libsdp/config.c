// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - libsdp.conf: reading it, and deciding by its rules whether a
 * connect() or a listen() goes to SDP, TCP or both.
 *
 * The syntax is OFED's (Documentation/sdp.rst has it whole):
 *
 *   log [destination stderr|syslog|file PATH] [min-level 1-9]
 *   use sdp|tcp|both server|listen|client|connect PROG-GLOB ADDR:PORTS
 *
 * Every line is treated as hostile: a line that is too long, has a NUL
 * byte, an unknown word, a bad address, prefix or port is reported with
 * its file and line number and ignored; the rest of the file still counts.
 * Only regular files are read, and at most SDP_FILE_MAX bytes of them.
 *
 * Thread safety: none needed.  sdp_config_load() fills a struct sdp_config
 * once, before any wrapper uses it (sdp_init(), under pthread_once()), and
 * the matching functions only read it.  This file calls none of the
 * library's wrappers, so that the unit tests can link it alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsdp.h"

#define SDP_WORDS_MAX		8		/* words of a valid line + 1 */
#define SDP_FILE_MAX		(1024 * 1024)	/* bytes read from a file */
#define SDP_ERRORS_SHOWN	20		/* error lines per file */

struct sdp_config sdp_conf;

struct parse_ctx {
	struct sdp_config *conf;
	const char *file;
	int line;
};

/* A word of the file, fit to be printed: printable, at most 40 bytes. */
static const char *show(const char *word, char *buf, size_t size)
{
	size_t i;

	for (i = 0; word[i] && i + 1 < size; i++) {
		unsigned char c = (unsigned char)word[i];

		buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	buf[i] = '\0';
	if (word[i] && size > 4)
		memcpy(buf + size - 4, "...", 4);
	return buf;
}

static int parse_error(struct parse_ctx *ctx, const char *what,
		       const char *word)
{
	char buf[41];

	ctx->conf->nr_errors++;
	if (ctx->conf->nr_errors > SDP_ERRORS_SHOWN)
		return -1;
	if (word)
		sdp_log(SDP_LOG_ERR, "%s:%d: %s '%s'; line ignored",
			ctx->file, ctx->line, what,
			show(word, buf, sizeof(buf)));
	else
		sdp_log(SDP_LOG_ERR, "%s:%d: %s; line ignored",
			ctx->file, ctx->line, what);
	if (ctx->conf->nr_errors == SDP_ERRORS_SHOWN)
		sdp_log(SDP_LOG_ERR, "%s: further errors not shown",
			ctx->file);
	return -1;
}

/* A decimal number of digits only, at most max. */
static int parse_uint(const char *s, unsigned int max, unsigned int *out)
{
	unsigned long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

/* --- log --------------------------------------------------------------- */

static int parse_log(struct parse_ctx *ctx, char **w, int n)
{
	enum sdp_log_dest dest = SDP_LOG_STDERR;
	const char *path = NULL;
	bool set_dest = false;
	unsigned int level = 0;
	int i;

	if (n < 2)
		return parse_error(ctx, "'log' needs 'destination' or 'min-level'",
				   NULL);
	for (i = 1; i < n; i += 2) {
		if (i + 1 >= n)
			return parse_error(ctx, "missing value after", w[i]);
		if (!strcmp(w[i], "min-level")) {
			if (parse_uint(w[i + 1], 9, &level) || level < 1)
				return parse_error(ctx, "min-level must be 1 to 9, not",
						   w[i + 1]);
		} else if (!strcmp(w[i], "destination")) {
			set_dest = true;
			if (!strcmp(w[i + 1], "stderr")) {
				dest = SDP_LOG_STDERR;
			} else if (!strcmp(w[i + 1], "syslog")) {
				dest = SDP_LOG_SYSLOG;
			} else if (!strcmp(w[i + 1], "file")) {
				if (i + 2 >= n)
					return parse_error(ctx, "missing path after",
							   w[i + 1]);
				dest = SDP_LOG_FILE;
				path = w[++i + 1];
			} else {
				return parse_error(ctx, "unknown log destination",
						   w[i + 1]);
			}
		} else {
			return parse_error(ctx, "unknown log setting", w[i]);
		}
	}
	if (set_dest && sdp_log_set_dest(dest, path))
		return parse_error(ctx, "unusable log file (absolute path or plain file name)",
				   path);
	if (level)
		sdp_log_set_level((int)level);
	return 0;
}

/* --- use --------------------------------------------------------------- */

static int parse_prefix(struct parse_ctx *ctx, struct sdp_rule *r,
			const char *s)
{
	unsigned int max = r->family == AF_INET ? 32 : 128;
	unsigned int i, bits;

	if (!s) {
		r->prefix = max;
		return 0;
	}
	if (parse_uint(s, max, &r->prefix))
		return parse_error(ctx, r->family == AF_INET ?
				   "IPv4 prefix must be 0 to 32, not" :
				   "IPv6 prefix must be 0 to 128, not", s);
	/* Host bits beyond the prefix are ignored: 10.1.2.3/8 is 10/8. */
	for (i = 0; i < max / 8; i++) {
		bits = r->prefix > i * 8 ? r->prefix - i * 8 : 0;
		if (bits < 8)
			r->addr[i] &= (unsigned char)(0xff00 >> bits);
	}
	return 0;
}

static int parse_addr(struct parse_ctx *ctx, struct sdp_rule *r,
		      const char *s, const char *prefix, bool v6_only)
{
	if (!strcmp(s, "*") && !v6_only) {
		if (prefix)
			return parse_error(ctx, "'*' takes no prefix", prefix);
		r->family = 0;
		return 0;
	}
	if (!v6_only && inet_pton(AF_INET, s, r->addr) == 1)
		r->family = AF_INET;
	else if (inet_pton(AF_INET6, s, r->addr) == 1)
		r->family = AF_INET6;
	else
		return parse_error(ctx, "bad address", s);
	return parse_prefix(ctx, r, prefix);
}

static int parse_ports(struct parse_ctx *ctx, struct sdp_rule *r, char *s)
{
	char *dash;

	if (!strcmp(s, "*")) {
		r->port_lo = 0;
		r->port_hi = 65535;
		return 0;
	}
	dash = strchr(s, '-');
	if (dash)
		*dash++ = '\0';
	if (parse_uint(s, 65535, &r->port_lo))
		return parse_error(ctx, "port must be 0 to 65535, not", s);
	r->port_hi = r->port_lo;
	if (dash && parse_uint(dash, 65535, &r->port_hi))
		return parse_error(ctx, "port must be 0 to 65535, not", dash);
	if (r->port_hi < r->port_lo)
		return parse_error(ctx, "reversed port range ending with",
				   dash);
	return 0;
}

/*
 * ADDR:PORTS, where ADDR is '*', an IPv4 address, an IPv6 address, or an
 * IPv6 address in brackets, each but '*' with an optional /PREFIX:
 * 10.0.0.0/8:*  [fe80::]/10:5000-5010  fe80::/10:22  *:80
 * Without brackets an IPv6 address ends at the last colon.
 */
static int parse_addr_port(struct parse_ctx *ctx, struct sdp_rule *r,
			   char *s)
{
	char *colon, *slash, *addr = s;
	bool bracket = false;

	if (*s == '[') {
		char *end = strchr(s, ']');

		if (!end)
			return parse_error(ctx, "missing ']' in", s);
		*end = '\0';
		addr = s + 1;
		s = end + 1;
		bracket = true;
		if (*s != '/' && *s != ':')
			return parse_error(ctx, "expected ':PORT' after ']', not",
					   s);
	}
	/* In brackets the port follows the first colon, else the last. */
	colon = bracket ? strchr(s, ':') : strrchr(s, ':');
	if (!colon)
		return parse_error(ctx, "missing ':PORT' in", addr);
	*colon = '\0';
	slash = strchr(bracket ? s : addr, '/');
	if (slash)
		*slash++ = '\0';
	if (!*addr)
		return parse_error(ctx, "missing address before", colon + 1);
	if (parse_addr(ctx, r, addr, slash, bracket))
		return -1;
	return parse_ports(ctx, r, colon + 1);
}

static int add_rule(struct parse_ctx *ctx, const struct sdp_rule *r)
{
	struct sdp_config *conf = ctx->conf;
	struct sdp_rule *rules;
	unsigned int cap;

	if (conf->nr_rules >= SDP_RULES_MAX)
		return parse_error(ctx, "too many rules", NULL);
	if (conf->nr_rules == conf->cap_rules) {
		cap = conf->cap_rules ? conf->cap_rules * 2 : 16;
		rules = realloc(conf->rules, cap * sizeof(*rules));
		if (!rules)
			return parse_error(ctx, "out of memory", NULL);
		conf->rules = rules;
		conf->cap_rules = cap;
	}
	conf->rules[conf->nr_rules++] = *r;
	return 0;
}

static int parse_use(struct parse_ctx *ctx, char **w, int n)
{
	struct sdp_rule r;

	ctx->conf->nr_use_lines++;
	memset(&r, 0, sizeof(r));
	r.line = ctx->line;
	if (n != 5)
		return parse_error(ctx, n < 5 ?
				   "too few words: use KIND ROLE PROGRAM ADDR:PORT" :
				   "too many words: use KIND ROLE PROGRAM ADDR:PORT",
				   NULL);
	if (!strcmp(w[1], "sdp"))
		r.use = SDP_USE_SDP;
	else if (!strcmp(w[1], "tcp"))
		r.use = SDP_USE_TCP;
	else if (!strcmp(w[1], "both"))
		r.use = SDP_USE_BOTH;
	else
		return parse_error(ctx, "expected sdp, tcp or both, not", w[1]);
	if (!strcmp(w[2], "server") || !strcmp(w[2], "listen"))
		r.role = SDP_ROLE_SERVER;
	else if (!strcmp(w[2], "client") || !strcmp(w[2], "connect"))
		r.role = SDP_ROLE_CLIENT;
	else
		return parse_error(ctx, "expected server, listen, client or connect, not",
				   w[2]);
	if (strlen(w[3]) >= sizeof(r.prog))
		return parse_error(ctx, "program pattern too long", NULL);
	strcpy(r.prog, w[3]);
	if (parse_addr_port(ctx, &r, w[4]))
		return -1;
	return add_rule(ctx, &r);
}

/* --- lines and files --------------------------------------------------- */

static int split(char *line, char **w)
{
	int n = 0;

	for (;;) {
		line += strspn(line, " \t\r\v\f");
		if (!*line)
			return n;
		if (n == SDP_WORDS_MAX)
			return -1;
		w[n++] = line;
		line += strcspn(line, " \t\r\v\f");
		if (*line)
			*line++ = '\0';
	}
}

/*
 * One line, without its newline; modified in place.  Returns 0, or -1
 * after logging why the line is ignored.
 */
int sdp_config_parse_line(struct sdp_config *conf, char *line,
			  const char *file, int lineno)
{
	struct parse_ctx ctx = { conf, file, lineno };
	char *w[SDP_WORDS_MAX];
	char *hash = strchr(line, '#');
	int n;

	if (hash)
		*hash = '\0';
	n = split(line, w);
	if (n < 0)
		return parse_error(&ctx, "too many words", NULL);
	if (n == 0)
		return 0;
	if (!strcmp(w[0], "use"))
		return parse_use(&ctx, w, n);
	if (!strcmp(w[0], "log"))
		return parse_log(&ctx, w, n);
	return parse_error(&ctx, "unknown statement", w[0]);
}

/* Opens PATH for reading if it is a regular file: no FIFO blocks us. */
static FILE *open_config(const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		sdp_real_close(fd);
		errno = EINVAL;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		sdp_real_close(fd);
	return f;
}

static void read_lines(struct sdp_config *conf, FILE *f, const char *path)
{
	struct parse_ctx ctx = { conf, path, 0 };
	char line[SDP_LINE_MAX + 1];
	bool too_long = false, nul = false;
	size_t len = 0, total = 0;
	int c;

	do {
		c = getc_unlocked(f);
		if (c != EOF && ++total > SDP_FILE_MAX) {
			ctx.line++;
			parse_error(&ctx, "file too large, the rest is ignored",
				    NULL);
			return;
		}
		if (c != '\n' && c != EOF) {
			if (c == '\0')
				nul = true;
			else if (len < SDP_LINE_MAX)
				line[len++] = (char)c;
			else
				too_long = true;
			continue;
		}
		if (c == EOF && len == 0 && !too_long && !nul)
			break;
		line[len] = '\0';
		ctx.line++;
		if (too_long)
			parse_error(&ctx, "line longer than 1024 bytes", NULL);
		else if (nul)
			parse_error(&ctx, "NUL byte in line", NULL);
		else
			sdp_config_parse_line(conf, line, path, ctx.line);
		len = 0;
		too_long = false;
		nul = false;
	} while (c != EOF);
}

/*
 * Reads PATH into CONF (which starts zeroed).  A file without any "use"
 * line and without errors means simple mode: everything on SDP.  A file
 * with errors never does: its good rules, or none ("both" for all), are
 * the safe default.  Returns 0, or -1 if the
 * file cannot be read (logged; CONF then has no rule: "both" for all).
 */
int sdp_config_load(struct sdp_config *conf, const char *path)
{
	FILE *f = open_config(path);

	if (!f) {
		sdp_log(SDP_LOG_ERR, "cannot read %s: %s; no rules, using both",
			path, strerror(errno));
		return -1;
	}
	read_lines(conf, f, path);
	if (ferror(f))
		sdp_log(SDP_LOG_ERR, "error reading %s", path);
	fclose(f);
	/* Garbage is no request for simple mode: it gets the safe default. */
	conf->simple = conf->nr_use_lines == 0 && conf->nr_errors == 0;
	sdp_log(SDP_LOG_DEBUG, "%s: %u rules, %u errors%s", path,
		conf->nr_rules, conf->nr_errors,
		conf->simple ? ", no use line: simple mode (all SDP)" : "");
	return 0;
}

void sdp_config_free(struct sdp_config *conf)
{
	free(conf->rules);
	memset(conf, 0, sizeof(*conf));
}

/* --- matching ---------------------------------------------------------- */

static bool prefix_eq(const unsigned char *a, const unsigned char *b,
		      unsigned int bits)
{
	unsigned int bytes = bits / 8, rest = bits % 8;
	unsigned char mask = (unsigned char)(0xff00 >> rest);

	if (memcmp(a, b, bytes))
		return false;
	return !rest || !((a[bytes] ^ b[bytes]) & mask);
}

/* An IPv4 rule also matches an IPv4-mapped IPv6 address. */
static bool addr_match(const struct sdp_rule *r, const struct sockaddr *sa,
		       socklen_t len, unsigned int *port)
{
	static const unsigned char mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	const struct sockaddr_in6 *s6 = (const void *)sa;
	const struct sockaddr_in *s4 = (const void *)sa;
	const unsigned char *a;

	if (sa->sa_family == AF_INET && len >= sizeof(*s4)) {
		*port = ntohs(s4->sin_port);
		a = (const unsigned char *)&s4->sin_addr;
		return !r->family ||
		       (r->family == AF_INET && prefix_eq(a, r->addr, r->prefix));
	}
	if (sa->sa_family != AF_INET6 || len < sizeof(*s6))
		return false;
	*port = ntohs(s6->sin6_port);
	a = s6->sin6_addr.s6_addr;
	if (!r->family)
		return true;
	if (r->family == AF_INET6)
		return prefix_eq(a, r->addr, r->prefix);
	return !memcmp(a, mapped, sizeof(mapped)) &&
	       prefix_eq(a + 12, r->addr, r->prefix);
}

const char *sdp_use_name(enum sdp_use use)
{
	switch (use) {
	case SDP_USE_SDP:
		return "sdp";
	case SDP_USE_TCP:
		return "tcp";
	default:
		return "both";
	}
}

const char *sdp_addr_str(const struct sockaddr *sa, socklen_t len,
			 char *buf, size_t size)
{
	const struct sockaddr_in6 *s6 = (const void *)sa;
	const struct sockaddr_in *s4 = (const void *)sa;
	char a[INET6_ADDRSTRLEN];

	if (sa && sa->sa_family == AF_INET && len >= sizeof(*s4) &&
	    inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a)))
		snprintf(buf, size, "%s:%u", a, ntohs(s4->sin_port));
	else if (sa && sa->sa_family == AF_INET6 && len >= sizeof(*s6) &&
		 inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a)))
		snprintf(buf, size, "[%s]:%u", a, ntohs(s6->sin6_port));
	else
		snprintf(buf, size, "(address of family %d)",
			 sa ? sa->sa_family : -1);
	return buf;
}

/* The first rule matching ROLE, PROG and the address, or NULL. */
const struct sdp_rule *sdp_config_match(const struct sdp_config *conf,
					enum sdp_role role, const char *prog,
					const struct sockaddr *sa,
					socklen_t len)
{
	const struct sdp_rule *r;
	unsigned int i, port;

	for (i = 0; i < conf->nr_rules; i++) {
		r = &conf->rules[i];
		if (r->role != role || !addr_match(r, sa, len, &port) ||
		    port < r->port_lo || port > r->port_hi ||
		    fnmatch(r->prog, prog, 0))
			continue;
		sdp_log(SDP_LOG_MATCH, "rule of line %d (use %s) matches",
			r->line, sdp_use_name(r->use));
		return r;
	}
	sdp_log(SDP_LOG_NOMATCH, "no rule matches: both");
	return NULL;
}

/* What to do: simple mode is SDP, no matching rule is "both". */
enum sdp_use sdp_config_decide(const struct sdp_config *conf,
			       enum sdp_role role, const char *prog,
			       const struct sockaddr *sa, socklen_t len)
{
	const struct sdp_rule *r;

	if (conf->simple)
		return SDP_USE_SDP;
	r = sdp_config_match(conf, role, prog, sa, len);
	return r ? r->use : SDP_USE_BOTH;
}
