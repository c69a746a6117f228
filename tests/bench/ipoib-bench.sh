#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPoIB against veth (part of make bench): boot a VM (tests/vm/vm-run.sh,
# 2 CPUs) and run tests/bench/ipoib-bench-scenario.sh, which prints
#
#   iperf3 TCP over IPoIB datagram (MTU M): X Mbit/s; veth: Y Mbit/s; ratio = R
#   ping RTT over IPoIB datagram: X ms; veth: Y ms; ratio = R
#   iperf3 TCP over IPoIB connected (...) ..., or "connected: not available"
#
# Usage: tests/bench/ipoib-bench.sh [SECONDS]    (iperf3 time, default 10)
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-10}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$repo/tests/vm/vm-run.sh" --bench --smp 2 --timeout $((300 + 6 * secs)) \
	"$repo/tests/bench/ipoib-bench-scenario.sh" "$secs" | tee "$out" |
	sed 's/^/  /' >&2
rc=${PIPESTATUS[0]}
lines=$(sed -n 's/^# result: //p' "$out")
if [[ $rc -ne 0 || $(wc -l <<<"$lines") -ne 3 ]]; then
	echo "ipoib-bench: the benchmark run failed (status $rc)" >&2
	exit 1
fi
echo "$lines"
