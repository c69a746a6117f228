#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot a VM (tests/vm/vm-run.sh, 2 CPUs) and measure vmlx
# against memcpy() and against Linux's soft-RoCE (Debian's rdma_rxe) in
# the same guest (tests/bench/vmlx-bench-scenario.sh): the in-kernel RC
# WRITE, perftest's bandwidth, message rate and latency, the scaling over
# QPs and processes, ibv_rc_pingpong.  One "result:" line per figure,
# with its ratios and their targets (tests/bench/README.rst).
#
# Usage: tests/bench/vmlx-bench.sh [SECONDS]    (default 3)
# The guest runs under QEMU/TCG unless VM_QEMU_ARGS enables KVM, so the
# absolute figures say little; the ratios are what to compare.
set -uo pipefail
. "$(dirname "$0")/bench.sh"

secs=$(bench_secs 3 "$@") || exit 2
BENCH_LINES=14 bench_guest vmlx-bench "$secs" --smp 2 --mem 2048 \
	--timeout $((600 + 20 * secs))
