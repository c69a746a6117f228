# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# user.sh - helpers for VM scenarios that run userspace programs (Debian's
# libibverbs examples, perftest, our Python and C checkers).  Source it
# after tests/vm/tap.sh:
#
#   . "$REPO/tests/vm/tap.sh"
#   . "$REPO/tests/vm/user.sh"
#   host=$(loopback_host)                  # "localhost", else "127.0.0.1"
#   wait_listen 18515                      # something listens on TCP 18515
#   run_pair "ibv_rc_pingpong" 18515 "$dir" SERVER_CMD... -- CLIENT_CMD...
#
#   perftest_clock_failed FILE FIELD       perftest's output in FILE shows
#                                          it could not measure the CPU clock
#
# run_pair starts the server command in the background (output in
# DIR/server), waits until something listens on PORT, runs the client
# command (output in DIR/client), then reports "DESC: server exits 0" and
# "DESC: client exits 0", with the last lines of a failed side's output
# as comments, the client's first.  The checkers' output is tap.sh's
# business (tap_checker).

# Where a client reaches a server in the same guest: without an
# /etc/hosts "localhost" may not resolve.
loopback_host() {
	if getent hosts localhost >/dev/null 2>&1; then
		echo localhost
	else
		echo 127.0.0.1
	fi
}

# wait_listen PORT: wait until something listens on TCP PORT (at most 10 s);
# 1 if nothing does.
wait_listen() {
	local hex
	hex=$(printf '%04X' "$1")
	for _ in $(seq 100); do
		grep -q ":$hex 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 \
			2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# run_pair DESC PORT DIR SERVER_CMD... -- CLIENT_CMD...: a server and its
# client, both must exit 0.
run_pair() {
	local desc=$1 port=$2 dir=$3 spid src crc
	local -a server=()
	shift 3
	while [[ $# -gt 0 && $1 != -- ]]; do
		server+=("$1")
		shift
	done
	shift
	"${server[@]}" >"$dir/server" 2>&1 &
	spid=$!
	wait_listen "$port"
	"$@" >"$dir/client" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	# The side that failed first usually says why: when both fail the
	# client's words come first, and the tail of each (a CI log keeps
	# only part of a long report).
	[[ $crc -eq 0 ]] || tap_diag "client status $crc" \
		"$(tail -n 25 "$dir/client" | sed 's/^/client: /')"
	tap_ok "$src" "$desc: server exits 0"
	[[ $src -eq 0 ]] || tap_diag "server status $src" \
		"$(tail -n 25 "$dir/server" | sed 's/^/server: /')"
	tap_ok "$crc" "$desc: client exits 0"
}

# perftest turns cycles into time with a CPU frequency it measures itself.
# Under TCG the measurement can fail: perftest says "Correlation
# coefficient r^2 < 0.9" and then either exits non-zero without a report
# or reports every figure as inf (a frequency of 0).  That is perftest's
# clock, not the stack; the scenarios repeat such a run once.
perftest_clock_failed() {	# perftest_clock_failed FILE FIELD
	local value

	grep -q "Correlation coefficient r^2" "$1" && return 0
	value=$(grep -E '^ +[0-9]+ +[0-9]+ ' "$1" | tail -1 |
		awk -v f="$2" '{ print $f }')
	[[ $value == inf || $value == -nan || $value == nan ]]
}
