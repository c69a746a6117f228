#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The libsdp stage (tests/run-all.sh libsdp): libsdp.so and its tests on
# the host, no kernel module needed.  Builds the library (make -C
# ulp/sdp/libsdp) and the test programs (tests/libsdp/Makefile, into a
# temporary directory), then runs:
#
#  - config-test, the unit tests of the parser and the rule matcher;
#  - sdp-tcp, a plain TCP client and server, under LD_PRELOAD=libsdp.so.
#    This host has no AF_INET_SDP (socket(27, ...) fails with
#    EAFNOSUPPORT), so "both" must fall back to TCP and "sdp" must fail;
#  - the same under libsdp-test.so, where LIBSDP_TEST_FAMILY=2 makes the
#    "SDP" sockets TCP ones: the SDP paths themselves (replacement at the
#    same descriptor, shadow listeners and the accept/poll/select/epoll
#    on them) carry real connections;
#  - sdp-mt, threads creating, connecting, accepting, duplicating and
#    closing sockets and forking, under valgrind.
#
# Prints TAP, the plan last; exits non-zero if anything failed.
# About 10 seconds.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
tmp=$(mktemp -d)
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0
failed=0
lib=$repo/ulp/sdp/libsdp/libsdp.so
tlib=$tmp/libsdp-test.so
tcp=$tmp/sdp-tcp
log=$tmp/sdp.log

pass() {	# pass DESC
	n=$((n + 1))
	echo "ok $n - $1"
}

fail() {	# fail DESC [DETAIL-FILE...]
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do
		[ -s "$f" ] && sed "s|^|# $(basename "$f"): |" "$f" | head -40
	done
	return 0
}

check() {	# check DESC COMMAND...: the command's status, output if failed
	local desc=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		pass "$desc"
	else
		fail "$desc" "$tmp/out"
	fi
}

echo "TAP version 13"

# --- builds --------------------------------------------------------------

check "make -C ulp/sdp/libsdp" make -C ulp/sdp/libsdp
check "build the test programs" make -C tests/libsdp O="$tmp"
if [ ! -x "$tmp/config-test" ] || [ ! -x "$tcp" ] || [ ! -e "$lib" ]; then
	echo "Bail out! nothing to test"
	exit 1
fi

# --- unit tests -----------------------------------------------------------

"$tmp/config-test" "$tmp" >"$tmp/unit" 2>&1
unit_rc=$?
while IFS= read -r line; do
	case $line in
	"ok "*)		pass "config: ${line#ok * - }" ;;
	"not ok "*)	fail "config: ${line#not ok * - }" ;;
	"1.."*)		;;
	*)		echo "# $line" ;;
	esac
done <"$tmp/unit"
[ $unit_rc -eq 0 ] && pass "config-test exits 0" ||
	fail "config-test exits 0 (status $unit_rc)"

# --- helpers for the preload tests ---------------------------------------

conf() {	# conf LINE...: the configuration, logging everything to $log
	{
		echo "log destination file $log min-level 1"
		printf '%s\n' "$@"
	} >"$tmp/conf"
	: >"$log"
}

preload() {	# preload LIB COMMAND...
	local l=$1
	shift
	env LD_PRELOAD="$l" LIBSDP_CONFIG_FILE="$tmp/conf" "$@"
}

start_server() {	# start_server LIB|- ARGS...: sets port and spid
	local l=$1 i
	shift
	: >"$tmp/server.out"
	if [ "$l" = - ]; then
		"$tcp" server "$@" >"$tmp/server.out" 2>&1 &
	else
		preload "$l" "$tcp" server "$@" >"$tmp/server.out" 2>&1 &
	fi
	spid=$!
	port=
	for i in $(seq 100); do
		port=$(sed -n 's/^port //p' "$tmp/server.out")
		[ -n "$port" ] && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}

stop_server() {	# stop_server: its status (killed if it still runs)
	local rc
	[ -n "$spid" ] || return 1
	kill "$spid" 2>/dev/null
	wait "$spid"
	rc=$?
	spid=
	return $rc
}

wait_server() {	# wait_server: its status
	local rc
	wait "$spid"
	rc=$?
	spid=
	return $rc
}

logged() {	# logged TEXT: the library logged a line containing TEXT
	grep -qF -- "$1" "$log"
}

# client_test DESC LIB EXPECT LOGTEXT [CLIENT-ARGS...]: a plain server, the
# client under LIB; EXPECT is the client's output ("echo ok", or
# "connect: ERRNO"), LOGTEXT a text the log must have.
client_test() {
	local desc=$1 l=$2 expect=$3 text=$4 out six=
	shift 4
	[[ " $* " = *" -6 "* ]] && six=-6
	if ! start_server - -n 1 $six; then
		fail "$desc: server did not start" "$tmp/server.out"
		stop_server
		return
	fi
	out=$(preload "$l" "$tcp" client "$@" "$port" "hello $n" 2>&1)
	if [ "$out" != "$expect" ]; then
		stop_server
		echo "$out" >"$tmp/client.out"
		fail "$desc: client says '$expect'" "$tmp/client.out" "$log"
		return
	fi
	# A client that did not connect leaves the server waiting.
	if [ "$expect" != "echo ok" ]; then
		stop_server
	elif ! wait_server; then
		fail "$desc: server failed" "$tmp/server.out"
		return
	fi
	if ! logged "${text//PORT/$port}"; then
		fail "$desc: log says '$text'" "$log"
	else
		pass "$desc"
	fi
}

# server_test DESC LIB COUNT LOGTEXT [SERVER-ARGS...]: the server under
# LIB serves COUNT plain clients; the log must have LOGTEXT.
server_test() {
	local desc=$1 l=$2 count=$3 text=$4 i bad=0 six=
	shift 4
	[[ " $* " = *" -6 "* ]] && six=-6
	if ! start_server "$l" -n "$count" "$@"; then
		fail "$desc: server did not start" "$tmp/server.out" "$log"
		stop_server
		return
	fi
	: >"$tmp/client.out"
	for i in $(seq "$count"); do
		"$tcp" client $six "$port" "client $i" >>"$tmp/client.out" \
			2>&1 || bad=1
	done
	[ $bad = 1 ] && stop_server
	if [ $bad = 1 ] || ! wait_server; then
		fail "$desc: $count clients served" "$tmp/server.out" \
			"$tmp/client.out" "$log"
	elif ! logged "${text//PORT/$port}"; then
		fail "$desc: log says '$text'" "$log"
	else
		pass "$desc"
	fi
}

have_ipv6() {
	grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 \
		2>/dev/null
}

skip() {	# skip DESC REASON
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# --- the real library: no AF_INET_SDP on this host -------------------------

nosdp="Address family not supported by protocol"

conf "use both client * *:*"
client_test "both client: falls back to TCP" "$lib" "echo ok" \
	"connect to 127.0.0.1:PORT: both: SDP failed ($nosdp), fallback to tcp"
client_test "both client, SOCK_NONBLOCK: falls back to TCP" "$lib" \
	"echo ok" "fallback to tcp" -b
client_test "both client, SOCK_CLOEXEC: falls back, FD_CLOEXEC kept" "$lib" \
	"echo ok" "fallback to tcp" -c
if have_ipv6; then
	client_test "both client, IPv6: falls back to TCP" "$lib" "echo ok" \
		"connect to [::1]:PORT: both: SDP failed" -6
else
	skip "both client, IPv6: falls back to TCP" "no ::1 on this host"
fi

conf "use sdp client * *:*"
client_test "sdp client: connect fails with EAFNOSUPPORT" "$lib" \
	"connect: EAFNOSUPPORT" \
	"connect to 127.0.0.1:PORT: sdp, but no SDP socket: $nosdp"
client_test "sdp client, SOCK_NONBLOCK: EAFNOSUPPORT" "$lib" \
	"connect: EAFNOSUPPORT" "sdp, but no SDP socket" -b

conf "use sdp client * 127.0.0.1:1-1023" "use tcp client * 10.0.0.0/8:*"
client_test "no rule matches: both, falls back" "$lib" "echo ok" \
	"fallback to tcp"
conf "use sdp client other* *:*" "use tcp client sdp-t?p *:*" \
	"use sdp client * *:*"
client_test "program glob: sdp-t?p matches sdp-tcp, first match wins" \
	"$lib" "echo ok" "rule of line 3 (use tcp) matches"

conf "use tcp client * *:*" "use tcp server * *:*"
if start_server "$lib" -n 1 &&
   preload "$lib" "$tcp" client "$port" "tcp only" >"$tmp/client.out" 2>&1 &&
   wait_server && logged "connect to 127.0.0.1:$port: tcp" &&
   logged "listen on 127.0.0.1:$port: tcp" &&
   ! grep -q 'SDP\|: sdp\|both' "$log"; then
	pass "use tcp: client and server untouched, logged as tcp"
else
	stop_server
	fail "use tcp: client and server untouched, logged as tcp" \
		"$tmp/server.out" "$tmp/client.out" "$log"
fi

conf "use both server * *:*"
for mode in block nonblock poll ppoll select pselect epoll; do
	server_test "both server, $mode: SDP listen fails, TCP clients served" \
		"$lib" 3 "listen on 127.0.0.1:PORT: both: SDP listen failed ($nosdp), tcp only" \
		-m "$mode"
done
server_test "both server, SOCK_CLOEXEC listener" "$lib" 2 \
	"SDP listen failed" -c -m poll
if have_ipv6; then
	server_test "both server, IPv6" "$lib" 2 \
		"listen on [::1]:PORT: both: SDP listen failed" -6 -m epoll
else
	skip "both server, IPv6" "no ::1 on this host"
fi

conf "use sdp server * *:*"
if start_server "$lib" -n 1; then
	stop_server
	fail "sdp server: listen fails with EAFNOSUPPORT" "$tmp/server.out"
elif wait_server; grep -q '^listen: EAFNOSUPPORT' "$tmp/server.out" &&
     logged "sdp, but no SDP socket"; then
	pass "sdp server: listen fails with EAFNOSUPPORT"
else
	fail "sdp server: listen fails with EAFNOSUPPORT" "$tmp/server.out" \
		"$log"
fi

conf "# no use line: simple mode"
out=$(preload "$lib" "$tcp" client 1 x 2>&1)
[ "$out" = "socket: EAFNOSUPPORT" ] && logged "simple mode, but SDP is unavailable" &&
	pass "config without use lines: simple mode, socket() is SDP" ||
	fail "config without use lines: simple mode, socket() is SDP" "$log"
for var in SIMPLE_LIBSDP ALWAYS_USE_SDP; do
	conf "use tcp client * *:*"
	out=$(env "$var=" LD_PRELOAD="$lib" LIBSDP_CONFIG_FILE="$tmp/conf" \
	      "$tcp" client 1 x 2>"$tmp/stderr")
	[ "$out" = "socket: EAFNOSUPPORT" ] &&
		grep -q "simple mode, but SDP is unavailable" "$tmp/stderr" &&
		pass "$var set: no config, socket() is SDP" ||
		fail "$var set: no config, socket() is SDP"
done

# Hostile configurations: the program still works (both, fallback).
hostile() {	# hostile DESC LIBSDP_CONFIG_FILE-VALUE STDERR-TEXT
	local out
	if ! start_server - -n 1; then
		fail "$1: server did not start" "$tmp/server.out"
		stop_server
		return
	fi
	out=$(env LD_PRELOAD="$lib" LIBSDP_CONFIG_FILE="$2" \
	      "$tcp" client "$port" "hostile" 2>"$tmp/stderr")
	if wait_server && [ "$out" = "echo ok" ] &&
	   grep -qF -- "$3" "$tmp/stderr"; then
		pass "$1"
	else
		echo "$out" >"$tmp/client.out"
		fail "$1" "$tmp/client.out" "$tmp/stderr"
	fi
}
hostile "missing config file: logged, both" /nonexistent/libsdp.conf \
	"cannot read /nonexistent/libsdp.conf"
hostile "config file /dev/zero: refused, both" /dev/zero \
	"cannot read /dev/zero"
hostile "config file a directory: refused, both" "$tmp" "cannot read"
hostile "LIBSDP_CONFIG_FILE of 5000 bytes: logged, both" \
	"$(printf 'x%.0s' $(seq 5000))" "LIBSDP_CONFIG_FILE too long"
head -c 65536 /dev/urandom >"$tmp/garbage.conf"
hostile "64 KiB of random bytes as config: errors logged, both" \
	"$tmp/garbage.conf" "garbage.conf:"
printf 'use sdp client * *:99999\nlog min-level 99\n%s\n' \
	"$(printf 'use sdp client * %.0s' $(seq 200))" >"$tmp/bad.conf"
hostile "bad numbers and an overlong line: file:line logged, both" \
	"$tmp/bad.conf" "bad.conf:3: line longer than 1024 bytes"

# --- libsdp-test.so: the SDP paths, with TCP standing in for SDP ----------

export LIBSDP_TEST_FAMILY=2

conf "use sdp client * *:*"
client_test "sdp client (stand-in): replaced at the same fd, data moves" \
	"$tlib" "echo ok" "connect to 127.0.0.1:PORT: sdp"
client_test "sdp client (stand-in), SOCK_NONBLOCK: O_NONBLOCK kept" \
	"$tlib" "echo ok" ": sdp" -b
client_test "sdp client (stand-in), SOCK_CLOEXEC: FD_CLOEXEC kept" \
	"$tlib" "echo ok" ": sdp" -c

conf "use both client * *:*"
client_test "both client (stand-in): SDP connects first" "$tlib" "echo ok" \
	"connect to 127.0.0.1:PORT: both: sdp"
client_test "both client (stand-in), SOCK_NONBLOCK|SOCK_CLOEXEC" "$tlib" \
	"echo ok" "both: sdp" -b -c

conf "use sdp server * *:*"
server_test "sdp server (stand-in): listener replaced, clients served" \
	"$tlib" 3 "listen on 127.0.0.1:PORT: sdp" -m poll -c

# SO_REUSEPORT lets the stand-in shadow share the TCP listener's port;
# the kernel spreads the connections over both.
conf "use both server * *:*"
for mode in block nonblock poll ppoll select pselect epoll; do
	server_test "both server (stand-in), $mode: shadow accepts too" \
		"$tlib" 24 "from SDP shadow" -r -m "$mode"
done
server_test "both server (stand-in): the shadow follows a dup() of the listener" \
	"$tlib" 24 "from SDP shadow" -r -D -m epoll
server_test "both server (stand-in): the shadow's number looks free, moves on dup2()" \
	"$tlib" 24 "SDP shadow moved from" -r -X -m poll
if start_server "$tlib" -n 1 -r -m block; then
	stop_server
	if grep -q 'sdp on shadow fd' "$log" && grep -q 'closing SDP shadow' "$log"; then
		pass "both server (stand-in): the shadow is closed with its listener"
	else
		fail "both server (stand-in): the shadow is closed with its listener" "$log"
	fi
else
	stop_server
	fail "both server (stand-in): the shadow is closed with its listener" \
		"$tmp/server.out"
fi

# --- threads ------------------------------------------------------------

conf "use both server * *:*" "use both client * *:*"
sed -i 's/min-level 1/min-level 9/' "$tmp/conf"
unset LIBSDP_TEST_FAMILY
check "sdp-mt: 4 threads x 50 rounds under libsdp.so (fallbacks)" \
	preload "$lib" timeout 120 "$tmp/sdp-mt" 4 50
export LIBSDP_TEST_FAMILY=2
# valgrind comes with scripts/install-deps.sh; without it this fails
check "sdp-mt under valgrind: 4 threads x 20 rounds, stand-in shadows" \
	preload "$tlib" timeout 300 valgrind -q --error-exitcode=9 \
	--child-silent-after-fork=yes --leak-check=full \
	--errors-for-leak-kinds=definite "$tmp/sdp-mt" 4 20

echo "1..$n"
echo "# libsdp: $((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
