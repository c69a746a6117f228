#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SRP against tcm_loop (part of make bench): boot a VM (tests/vm/vm-run.sh,
# 2 CPUs, 2 GiB) and run tests/bench/srp-bench-scenario.sh, which prints
#
#   fio 4KiB randread QD32 over SRP: X IOPS; tcm_loop: Y IOPS; ratio = R
#   fio 1MiB read QD8 over SRP: X MB/s; tcm_loop: Y MB/s; ratio = R
#   fio 1MiB write QD8 over SRP: X MB/s; tcm_loop: Y MB/s; ratio = R
#
# Usage: tests/bench/srp-bench.sh [SECONDS]    (per fio run, default 10)
set -uo pipefail
. "$(dirname "$0")/bench.sh"

secs=$(bench_secs 10 "$@") || exit 2
bench_guest srp-bench "$secs" --smp 2 --mem 2048 --timeout $((400 + 12 * secs))
