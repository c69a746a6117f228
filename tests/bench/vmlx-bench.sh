#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot a VM (tests/vm/vm-run.sh) with vmlx and static LIDs and
# measure vmlx0 -> vmlx1 (tests/bench/vmlx-bench-scenario.sh):
#
#   in-kernel RC WRITE 64KiB: X MB/s; memcpy 64KiB: Y MB/s; ratio X/Y = R
#   ib_write_bw 64KiB (user, librxe): U MB/s; in-kernel RC WRITE 64KiB:
#       X MB/s; ratio user/kernel = U/X
#   ib_write_lat 8B (user, librxe): T us typical; in-kernel RC WRITE 8B
#       post-to-completion: K us; ratio user/kernel = T/K
#
# Usage: tests/bench/vmlx-bench.sh [SECONDS]    (default 3)
# The guest runs under QEMU/TCG unless VM_QEMU_ARGS enables KVM, so the
# absolute figures say little; the ratios are what to compare.
set -uo pipefail
. "$(dirname "$0")/bench.sh"

secs=$(bench_secs 3 "$@") || exit 2
bench_guest vmlx-bench "$secs" --smp 2 --timeout $((180 + 3 * secs))
