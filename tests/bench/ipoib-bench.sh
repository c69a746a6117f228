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
. "$(dirname "$0")/bench.sh"

secs=$(bench_secs 10 "$@") || exit 2
bench_guest ipoib-bench "$secs" --smp 2 --timeout $((300 + 6 * secs))
