#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA CM under librdmacm's own programs (part of make bench): boot a
# VM (tests/vm/vm-run.sh, 2 CPUs) and run
# tests/bench/rdma-cm-bench-scenario.sh, which prints
#
#   rstream 64KiB over rsockets: X Mbit/s; same over TCP/IPoIB connected
#       (MTU M): Y Mbit/s; iperf3 TCP/IPoIB connected: Z Mbit/s; ratio
#       rsockets/TCP = X/Y, rsockets/iperf3 = X/Z
#   rstream 64B latency over rsockets: X us/xfer; over TCP/IPoIB
#       connected: Y us/xfer; ratio = X/Y
#   cmtime: N connections, C connections/s (...)
#
# Usage: tests/bench/rdma-cm-bench.sh [SECONDS]    (iperf3 time, default 10)
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-10}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

# other guests on the host's CPUs slow this one down, latency most
busy() { pgrep -f '^qemu-system' >/dev/null; }
others=0
if busy; then
	others=1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$repo/tests/vm/vm-run.sh" --bench --smp 2 --timeout $((480 + 2 * secs)) \
	"$repo/tests/bench/rdma-cm-bench-scenario.sh" "$secs" | tee "$out" |
	sed 's/^/  /' >&2
rc=${PIPESTATUS[0]}
if busy || ((others)); then
	echo "rdma-cm-bench: other QEMU guests ran on this host during the" \
		"run: the figures are worse than on an idle host" >&2
fi
lines=$(sed -n 's/^# result: //p' "$out")
if [[ $rc -ne 0 || $(wc -l <<<"$lines") -ne 3 ]]; then
	echo "rdma-cm-bench: the benchmark run failed (status $rc)" >&2
	exit 1
fi
echo "$lines"
