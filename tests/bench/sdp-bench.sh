#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SDP against TCP (part of make bench): boot a VM (tests/vm/vm-run.sh, 2
# CPUs) and run tests/bench/sdp-bench-scenario.sh, which prints
#
#   iperf3 over SDP: X Mbit/s; TCP/IPoIB connected (MTU M): Y Mbit/s;
#       TCP/veth: Z Mbit/s; ratio SDP/IPoIB = X/Y, SDP/veth = X/Z
#   64B ping-pong (rstream -T s) over SDP: X us/xfer; TCP/IPoIB
#       connected: Y; TCP/veth: Z; ratio SDP/IPoIB = X/Y
#   SDP bytes sent: B by buffered copy, 0 by zero copy
#
# Usage: tests/bench/sdp-bench.sh [SECONDS]    (iperf3 time, default 10)
set -uo pipefail
. "$(dirname "$0")/bench.sh"

secs=$(bench_secs 10 "$@") || exit 2
bench_guest sdp-bench "$secs" --smp 2 --timeout $((480 + 6 * secs))
