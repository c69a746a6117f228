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
. "$(dirname "$0")/bench.sh"

secs=$(bench_secs 10 "$@") || exit 2
bench_guest rdma-cm-bench "$secs" --smp 2 --timeout $((480 + 2 * secs))
