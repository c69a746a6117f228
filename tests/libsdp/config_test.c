// SPDX-License-Identifier: GPL-2.0
/*
 * config_test - unit tests of libsdp's configuration parser and rule
 * matcher (ulp/sdp/libsdp/config.c, linked in with log.c and real.c).
 *
 *   config-test TMPDIR
 *
 * Good rules and log statements, every malformed line we could think of
 * (each must be refused with a log line naming file:line and leave no
 * rule), files (overlong lines, NUL bytes, no "use" line, unreadable,
 * too large), first-match, IPv4 and IPv6 prefixes, port ranges, globs.
 * Prints TAP on stdout; the log goes to TMPDIR/log.  Single-threaded.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libsdp.h"

static int nr_tests, nr_failed;
static char log_file[SDP_PATH_MAX];
static const char *tmpdir;

static void ok(int cond, const char *fmt, ...) SDP_PRINTF(2, 3);
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++nr_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		nr_failed++;
}

/* --- the log, captured in a file --------------------------------------- */

static void log_capture(void)
{
	FILE *f = fopen(log_file, "w");

	if (f)
		fclose(f);
	sdp_log_reset();
	sdp_log_set_dest(SDP_LOG_FILE, log_file);
	sdp_log_set_level(SDP_LOG_DEBUG);
}

static char *log_text(void)
{
	static char buf[65536];
	FILE *f = fopen(log_file, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int log_has(const char *what)
{
	return !!strstr(log_text(), what);
}

/* --- one line at a time ------------------------------------------------ */

static struct sdp_config conf;

/* Parses LINE alone into a fresh conf; returns the parser's result. */
static int parse1(const char *line)
{
	char buf[4096];

	sdp_config_free(&conf);
	log_capture();
	snprintf(buf, sizeof(buf), "%s", line);
	return sdp_config_parse_line(&conf, buf, "t.conf", 7);
}

static void good_rule(const char *line, enum sdp_use use, enum sdp_role role,
		      const char *prog, int family, const char *addr,
		      unsigned int prefix, unsigned int lo, unsigned int hi)
{
	unsigned char a[16] = { 0 };
	int ret = parse1(line);
	const struct sdp_rule *r = &conf.rules[0];

	if (family)
		inet_pton(family, addr, a);
	ok(ret == 0 && conf.nr_rules == 1 && conf.rules && r->use == use &&
	   r->role == role && !strcmp(r->prog, prog) &&
	   r->family == family && !memcmp(r->addr, a, sizeof(a)) &&
	   (!family || r->prefix == prefix) && r->port_lo == lo &&
	   r->port_hi == hi && r->line == 7 && conf.nr_use_lines == 1,
	   "good rule: %s", line);
}

static void bad_line(const char *line, const char *why)
{
	int ret = parse1(line);
	char shown[48];

	snprintf(shown, sizeof(shown), "%s", line);
	ok(ret == -1 && conf.nr_rules == 0 && log_has("t.conf:7: ") &&
	   log_has("line ignored") && (!why || log_has(why)),
	   "refused (%s): %s%s", why ? why : "logged", shown,
	   strlen(line) >= sizeof(shown) ? "..." : "");
}

static void test_good_rules(void)
{
	good_rule("use sdp server * *:*", SDP_USE_SDP, SDP_ROLE_SERVER, "*",
		  0, NULL, 0, 0, 65535);
	good_rule("use tcp listen ttcp* 10.1.2.3/8:5001", SDP_USE_TCP,
		  SDP_ROLE_SERVER, "ttcp*", AF_INET, "10.0.0.0", 8, 5001,
		  5001);
	good_rule("use both connect db2? 192.168.1.0/24:1000-2000",
		  SDP_USE_BOTH, SDP_ROLE_CLIENT, "db2?", AF_INET,
		  "192.168.1.0", 24, 1000, 2000);
	good_rule("use sdp client * 10.0.0.1:0-65535", SDP_USE_SDP,
		  SDP_ROLE_CLIENT, "*", AF_INET, "10.0.0.1", 32, 0, 65535);
	good_rule("use sdp client * 10.255.255.255/9:80", SDP_USE_SDP,
		  SDP_ROLE_CLIENT, "*", AF_INET, "10.128.0.0", 9, 80, 80);
	good_rule("use sdp client * 0.0.0.0/0:*", SDP_USE_SDP,
		  SDP_ROLE_CLIENT, "*", AF_INET, "0.0.0.0", 0, 0, 65535);
	good_rule("use sdp client * [fe80::1:2]/64:22", SDP_USE_SDP,
		  SDP_ROLE_CLIENT, "*", AF_INET6, "fe80::", 64, 22, 22);
	good_rule("use sdp client * [::1]:80", SDP_USE_SDP, SDP_ROLE_CLIENT,
		  "*", AF_INET6, "::1", 128, 80, 80);
	good_rule("use sdp client * 1234:5678::0/64:*", SDP_USE_SDP,
		  SDP_ROLE_CLIENT, "*", AF_INET6, "1234:5678::", 64, 0,
		  65535);
	good_rule("use sdp client * [2001:db8::ff]/121:7", SDP_USE_SDP,
		  SDP_ROLE_CLIENT, "*", AF_INET6, "2001:db8::80", 121, 7, 7);
	good_rule("use tcp server * [::]/0:1-2", SDP_USE_TCP,
		  SDP_ROLE_SERVER, "*", AF_INET6, "::", 0, 1, 2);
	good_rule("  use\tsdp   client *  *:80   # a comment", SDP_USE_SDP,
		  SDP_ROLE_CLIENT, "*", 0, NULL, 0, 80, 80);
	good_rule("use both client [a-z]*x *:00080", SDP_USE_BOTH,
		  SDP_ROLE_CLIENT, "[a-z]*x", 0, NULL, 0, 80, 80);
	good_rule("use sdp server * *:65535\r", SDP_USE_SDP,
		  SDP_ROLE_SERVER, "*", 0, NULL, 0, 65535, 65535);

	ok(parse1("") == 0 && parse1("   \t ") == 0 &&
	   parse1("# use sdp server * *:*") == 0 && conf.nr_use_lines == 0 &&
	   !log_has("ignored"), "empty lines and comments");
}

static void test_bad_rules(void)
{
	char buf[2048];

	bad_line("use", "too few words");
	bad_line("use sdp server *", "too few words");
	bad_line("use sdp server * *:* more", "too many words");
	bad_line("use sdp server * *:* a b c d e f", "too many words");
	bad_line("use SDP server * *:*", "expected sdp, tcp or both");
	bad_line("use rdma server * *:*", "expected sdp, tcp or both");
	bad_line("use sdp serve * *:*", "expected server, listen");
	bad_line("use sdp * * *:*", "expected server, listen");
	bad_line("use sdp server * *", "missing ':PORT'");
	bad_line("use sdp server * 10.0.0.1", "missing ':PORT'");
	bad_line("use sdp server * :80", "missing address");
	bad_line("use sdp server * 10.0.0.1:", "port must be");
	bad_line("use sdp server * 10.0.0.1:65536", "port must be");
	bad_line("use sdp server * 10.0.0.1:99999999999999999999999",
		 "port must be");
	bad_line("use sdp server * 10.0.0.1:2000-1000", "reversed port range");
	bad_line("use sdp server * 10.0.0.1:-5", "port must be");
	bad_line("use sdp server * 10.0.0.1:5-", "port must be");
	bad_line("use sdp server * 10.0.0.1:+5", "port must be");
	bad_line("use sdp server * 10.0.0.1:0x50", "port must be");
	bad_line("use sdp server * 10.0.0.1:80-90-100", "port must be");
	bad_line("use sdp server * 10.0.0.1:abc", "port must be");
	bad_line("use sdp server * 10.0.0.1:*-80", "port must be");
	bad_line("use sdp server * 10.0.0.1/33:80", "IPv4 prefix must be");
	bad_line("use sdp server * 10.0.0.1/4294967328:80",
		 "IPv4 prefix must be");
	bad_line("use sdp server * 10.0.0.1/-1:80", "IPv4 prefix must be");
	bad_line("use sdp server * 10.0.0.1/:80", "IPv4 prefix must be");
	bad_line("use sdp server * 10.0.0.1/8/8:80", "IPv4 prefix must be");
	bad_line("use sdp server * [::1]/129:80", "IPv6 prefix must be");
	bad_line("use sdp server * fe80::/200:80", "IPv6 prefix must be");
	bad_line("use sdp server * */8:80", "'*' takes no prefix");
	bad_line("use sdp server * 300.1.1.1:80", "bad address");
	bad_line("use sdp server * 10.0.0:80", "bad address");
	bad_line("use sdp server * 10.0.0.1.2:80", "bad address");
	bad_line("use sdp server * localhost:80", "bad address");
	bad_line("use sdp server * fe80::1", "bad address");
	bad_line("use sdp server * ::g:80", "bad address");
	bad_line("use sdp server * [::1:80", "missing ']'");
	bad_line("use sdp server * [::1]80", "expected ':PORT' after ']'");
	bad_line("use sdp server * [::1]", "expected ':PORT' after ']'");
	bad_line("use sdp server * [10.0.0.1]:80", "bad address");
	bad_line("use sdp server * [*]:80", "bad address");
	bad_line("use sdp server * []:80", "missing address");
	bad_line("use sdp server * [::1]:80:90", "port must be");
	bad_line("use sdp server * [::1]/64/1:80", "IPv6 prefix must be");
	bad_line("use sdp server * 10.0.0.1:\x01\x1b[2J", "port must be");
	bad_line("bogus", "unknown statement");
	bad_line("USE sdp server * *:*", "unknown statement");
	bad_line("\x7f\xff\xfe", "unknown statement");
	bad_line("a b c d e f g h i j k l", "too many words");

	memset(buf, 'x', sizeof(buf));
	memcpy(buf, "use sdp server ", 15);
	strcpy(buf + 15 + SDP_GLOB_MAX, " *:*");
	bad_line(buf, "program pattern too long");

	ok(parse1("bogus \x1b]0;owned\x07") == -1 && !strchr(log_text(), 0x1b) &&
	   !strchr(log_text(), 0x07), "control bytes are not logged");
	ok(parse1("use sdp server * *:99999") == -1 && conf.nr_use_lines == 1,
	   "a bad use line still counts as a use line");
}

static void test_log_lines(void)
{
	ok(parse1("log min-level 7") == 0 && sdp_log_get_level() == 7,
	   "log min-level 7");
	ok(parse1("log min-level 1 destination stderr") == 0 &&
	   sdp_log_get_level() == 1 && sdp_log_get_dest() == SDP_LOG_STDERR,
	   "log min-level 1 destination stderr");
	ok(parse1("log destination syslog min-level 9") == 0 &&
	   sdp_log_get_level() == 9 && sdp_log_get_dest() == SDP_LOG_SYSLOG,
	   "log destination syslog min-level 9");
	ok(parse1("log destination file /tmp/x.log") == 0 &&
	   sdp_log_get_dest() == SDP_LOG_FILE, "log destination file /tmp/x.log");
	ok(parse1("log destination file libsdp.log min-level 4") == 0 &&
	   sdp_log_get_dest() == SDP_LOG_FILE && sdp_log_get_level() == 4,
	   "log destination file libsdp.log min-level 4 (a plain name)");

	bad_line("log", "needs 'destination' or 'min-level'");
	bad_line("log min-level", "missing value after");
	bad_line("log min-level 0", "min-level must be 1 to 9");
	bad_line("log min-level 10", "min-level must be 1 to 9");
	bad_line("log min-level -1", "min-level must be 1 to 9");
	bad_line("log min-level 7x", "min-level must be 1 to 9");
	bad_line("log min-level 99999999999999999999", "min-level must be");
	bad_line("log destination", "missing value after");
	bad_line("log destination printer", "unknown log destination");
	bad_line("log destination file", "missing path after");
	bad_line("log destination file ../etc/passwd", "unusable log file");
	bad_line("log destination file a/b", "unusable log file");
	bad_line("log verbosity 3", "unknown log setting");
	bad_line("log min-level 3 min-level", "missing value after");

	/* A refused line changes nothing, even its valid part. */
	parse1("log min-level 3 destination printer");
	ok(sdp_log_get_level() == SDP_LOG_DEBUG,
	   "a refused log line leaves the level alone");
}

/* --- files ------------------------------------------------------------- */

static const char *write_file(const char *name, const char *text, size_t len)
{
	static char path[SDP_PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
	return path;
}

static int load(const char *name, const char *text, size_t len)
{
	const char *path = write_file(name, text, len);

	sdp_config_free(&conf);
	log_capture();
	return sdp_config_load(&conf, path);
}

#define LOAD(name, text)	load(name, text, sizeof(text) - 1)

static void test_files(void)
{
	static char big[SDP_LINE_MAX * 3];
	char *huge;
	size_t n;
	int i;

	n = (size_t)snprintf(big, sizeof(big), "use sdp server * *:1 # ");
	memset(big + n, 'x', 2000);
	n += 2000;
	n += (size_t)snprintf(big + n, sizeof(big) - n,
			      "\nuse tcp client * *:2\n");
	ok(load("long.conf", big, n) == 0 && conf.nr_rules == 1 &&
	   conf.rules[0].use == SDP_USE_TCP && conf.rules[0].line == 2 &&
	   log_has("long.conf:1: line longer than 1024 bytes") &&
	   !conf.simple, "overlong line refused, the next one kept");

	n = (size_t)snprintf(big, sizeof(big), "use sdp server * *:1");
	memset(big + n, ' ', SDP_LINE_MAX - n);
	ok(load("exact.conf", big, SDP_LINE_MAX) == 0 && conf.nr_rules == 1,
	   "a line of exactly 1024 bytes is read");

	ok(LOAD("nul.conf", "use sdp server * *:1\0junk\nuse tcp server * *:2\n") == 0 &&
	   conf.nr_rules == 1 && conf.rules[0].line == 2 &&
	   log_has("nul.conf:1: NUL byte"), "line with a NUL byte refused");

	ok(LOAD("simple.conf", "# nothing\nlog min-level 9\n\n") == 0 &&
	   conf.simple && conf.nr_rules == 0, "no use line: simple mode");
	ok(LOAD("empty.conf", "") == 0 && conf.simple, "empty file: simple mode");
	ok(LOAD("allbad.conf", "use sdp server * *:70000\nuse x\n") == 0 &&
	   !conf.simple && conf.nr_rules == 0 && conf.nr_errors == 2 &&
	   log_has("allbad.conf:1:") && log_has("allbad.conf:2:"),
	   "only bad use lines: no rule, not simple (both for all)");
	ok(LOAD("nonl.conf", "use tcp client * *:9") == 0 &&
	   conf.nr_rules == 1, "last line without a newline");
	ok(LOAD("crlf.conf", "use tcp client * *:9\r\nuse sdp client * *:8\r\n") == 0 &&
	   conf.nr_rules == 2 && conf.nr_errors == 0, "CRLF line ends");
	ok(LOAD("mixed.conf", "use tcp client * *:1\nfoo\nuse both server a *:2\n"
		"use sdp client * 1.2.3.4/40:*\nlog min-level 7\n") == 0 &&
	   conf.nr_rules == 2 && conf.rules[1].line == 3 &&
	   log_has("mixed.conf:2: unknown statement 'foo'") &&
	   log_has("mixed.conf:4: IPv4 prefix") && sdp_log_get_level() == 7,
	   "good lines kept around bad ones, log line applied");

	sdp_config_free(&conf);
	log_capture();
	ok(sdp_config_load(&conf, "/nonexistent/libsdp.conf") == -1 &&
	   !conf.simple && conf.nr_rules == 0 &&
	   log_has("cannot read /nonexistent/libsdp.conf"),
	   "missing file: logged, no rule, not simple");
	sdp_config_free(&conf);
	log_capture();
	ok(sdp_config_load(&conf, tmpdir) == -1 && !conf.simple &&
	   log_has("cannot read"), "a directory is refused");
	sdp_config_free(&conf);
	log_capture();
	ok(sdp_config_load(&conf, "/dev/zero") == -1 && log_has("cannot read"),
	   "a device is refused (never read forever)");

	n = 0;
	for (i = 0; i < 30; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "junk%d\n", i);
	ok(load("many.conf", big, n) == 0 && conf.nr_errors == 30 &&
	   log_has("many.conf:20:") && !log_has("many.conf:21:") &&
	   log_has("further errors not shown"), "errors past 20 not shown");
	ok(!conf.simple && conf.nr_rules == 0,
	   "errors and no use line: not simple mode (both for all)");

	huge = malloc((1 << 20) + 100);
	if (huge) {
		memset(huge, '\n', (1 << 20) + 100);
		memcpy(huge + (1 << 20) + 10, "use sdp client * *:*\n", 21);
		ok(load("huge.conf", huge, (1 << 20) + 100) == 0 &&
		   conf.nr_rules == 0 && log_has("file too large"),
		   "reading stops after 1 MiB");
		free(huge);
	}

	huge = malloc((size_t)(SDP_RULES_MAX + 5) * 32);
	if (huge) {
		for (n = 0, i = 0; i < SDP_RULES_MAX + 5; i++)
			n += (size_t)sprintf(huge + n, "use tcp client * *:%d\n",
					     i % 60000);
		ok(load("rules.conf", huge, n) == 0 &&
		   conf.nr_rules == SDP_RULES_MAX && conf.nr_errors == 5 &&
		   log_has("too many rules"), "at most %d rules", SDP_RULES_MAX);
		free(huge);
	}
}

/* --- matching ---------------------------------------------------------- */

static struct sockaddr_storage ss;

static socklen_t addr(const char *a, unsigned int port)
{
	struct sockaddr_in6 *s6 = (void *)&ss;
	struct sockaddr_in *s4 = (void *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		return sizeof(*s4);
	}
	inet_pton(AF_INET6, a, &s6->sin6_addr);
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons((uint16_t)port);
	return sizeof(*s6);
}

static void decide(enum sdp_role role, const char *prog, const char *a,
		   unsigned int port, enum sdp_use want)
{
	socklen_t len = addr(a, port);
	enum sdp_use got = sdp_config_decide(&conf, role, prog,
					     (struct sockaddr *)&ss, len);

	ok(got == want, "%s %s %s port %u: %s (got %s)",
	   role == SDP_ROLE_CLIENT ? "client" : "server", prog, a, port,
	   sdp_use_name(want), sdp_use_name(got));
}

static void test_match(void)
{
	struct sockaddr_in short_sa = { .sin_family = AF_INET };
	const struct sdp_rule *r;

	LOAD("match.conf",
	     "use tcp client * 10.0.0.0/8:22\n"
	     "use sdp client * 10.0.0.0/8:*\n"
	     "use sdp client * 11.0.0.0/9:1000-2000\n"
	     "use tcp client ttcp* *:*\n"
	     "use sdp client t?cp *:*\n"
	     "use sdp client * [2001:db8::]/32:*\n"
	     "use tcp client * ::/0:5\n"
	     "use sdp server * 12.0.0.0/8:*\n"
	     "use tcp server * [::]/0:*\n"
	     "use both client * *:7\n"
	     "use tcp client * *:*\n");
	ok(conf.nr_rules == 11 && conf.nr_errors == 0, "match.conf: 11 rules");
	decide(SDP_ROLE_CLIENT, "app", "10.1.1.1", 22, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "app", "10.1.1.1", 80, SDP_USE_SDP);
	decide(SDP_ROLE_CLIENT, "app", "9.255.255.255", 80, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "app", "11.127.255.255", 1000, SDP_USE_SDP);
	decide(SDP_ROLE_CLIENT, "app", "11.127.0.1", 2000, SDP_USE_SDP);
	decide(SDP_ROLE_CLIENT, "app", "11.127.0.1", 999, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "app", "11.127.0.1", 2001, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "app", "11.128.0.1", 1500, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "ttcp", "1.2.3.4", 7, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "ttcpx", "1.2.3.4", 7, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "tXcp", "1.2.3.4", 7, SDP_USE_SDP);
	decide(SDP_ROLE_CLIENT, "tcp", "1.2.3.4", 7, SDP_USE_BOTH);
	decide(SDP_ROLE_CLIENT, "app", "2001:db8:ffff::1", 80, SDP_USE_SDP);
	decide(SDP_ROLE_CLIENT, "app", "2001:db9::1", 5, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "app", "::ffff:10.2.3.4", 80, SDP_USE_SDP);
	decide(SDP_ROLE_CLIENT, "app", "::ffff:10.2.3.4", 22, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "app", "::10.2.3.4", 80, SDP_USE_TCP);
	decide(SDP_ROLE_SERVER, "app", "12.0.0.1", 80, SDP_USE_SDP);
	decide(SDP_ROLE_SERVER, "app", "10.0.0.1", 22, SDP_USE_BOTH);
	decide(SDP_ROLE_SERVER, "app", "::", 80, SDP_USE_TCP);
	decide(SDP_ROLE_SERVER, "app", "0.0.0.0", 80, SDP_USE_BOTH);

	r = sdp_config_match(&conf, SDP_ROLE_CLIENT, "app",
			     (struct sockaddr *)&short_sa, 8);
	ok(!r, "a truncated sockaddr matches no rule");
	ok(sdp_config_decide(&conf, SDP_ROLE_CLIENT, "app",
			     (struct sockaddr *)&short_sa, 8) == SDP_USE_BOTH,
	   "... and is decided both");

	LOAD("glob.conf", "use sdp client [ab]x? *:*\nuse tcp client * *:*\n");
	decide(SDP_ROLE_CLIENT, "axe", "1.2.3.4", 1, SDP_USE_SDP);
	decide(SDP_ROLE_CLIENT, "bx", "1.2.3.4", 1, SDP_USE_TCP);
	decide(SDP_ROLE_CLIENT, "", "1.2.3.4", 1, SDP_USE_TCP);

	LOAD("none.conf", "log min-level 1\n");
	decide(SDP_ROLE_CLIENT, "app", "10.1.1.1", 22, SDP_USE_SDP);
	decide(SDP_ROLE_SERVER, "app", "::1", 22, SDP_USE_SDP);

	LOAD("nomatch.conf", "use tcp client * 1.1.1.1:1\n");
	decide(SDP_ROLE_CLIENT, "app", "1.1.1.2", 1, SDP_USE_BOTH);
	ok(log_has("no rule matches"), "no match is logged (level 3)");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: config-test TMPDIR\n");
		return 2;
	}
	tmpdir = argv[1];
	snprintf(log_file, sizeof(log_file), "%s/log", tmpdir);
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_good_rules();
	test_bad_rules();
	test_log_lines();
	test_files();
	test_match();
	sdp_config_free(&conf);
	printf("1..%d\n", nr_tests);
	return nr_failed != 0;
}
