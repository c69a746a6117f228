# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - what the benchmark scenarios (tests/bench/*-scenario.sh) share.
#
#   ratio A B       A/B with three decimals, "?" if B is not positive
#   iperf3_mbps F   the Mbit/s the receiver got, from iperf3 -J's output
#                   in file F; nothing if it has none

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "?" }'
}

iperf3_mbps() {
	python3 -c '
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    print("%.0f" % (r["end"]["sum_received"]["bits_per_second"] / 1e6))
except (KeyError, ValueError, OSError):
    pass' "$1"
}

# bench_guest NAME SECS VM-RUN-OPTION...: boot a guest with the options
# and run tests/bench/NAME-scenario.sh SECS in it, its TAP output on
# stderr; print its "result:" lines, of which there must be
# $BENCH_LINES (3 if unset).  Fails, saying so, if the run
# failed or a figure is missing ("?").  Other QEMU guests on the host
# during the run make the figures worse: that is said too.
bench_guest() {
	local name=$1 secs=$2 repo out rc lines others=0

	shift 2
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	pgrep -f '^qemu-system' >/dev/null && others=1
	out=$(mktemp)
	"$repo/tests/vm/vm-run.sh" --bench "$@" \
		"$repo/tests/bench/$name-scenario.sh" "$secs" | tee "$out" |
		sed 's/^/  /' >&2
	rc=${PIPESTATUS[0]}
	if pgrep -f '^qemu-system' >/dev/null || ((others)); then
		echo "$name: other QEMU guests ran on this host during the" \
			"run: the figures are worse than on an idle host" >&2
	fi
	lines=$(sed -n 's/^# result: //p' "$out")
	rm -f "$out"
	if [[ $rc -ne 0 || $(wc -l <<<"$lines") -ne ${BENCH_LINES:-3} ||
	      $lines == *\?* ]]; then
		echo "$name: the benchmark run failed (status $rc)" >&2
		return 1
	fi
	echo "$lines"
}

# bench_secs DEFAULT [SECS]: SECS if it is a positive number, DEFAULT if
# it is not given; exits with a usage message otherwise
bench_secs() {
	local secs=${2:-$1}

	[[ $secs =~ ^[1-9][0-9]*$ ]] ||
		{ echo "usage: $0 [SECONDS]" >&2; exit 2; }
	echo "$secs"
}
