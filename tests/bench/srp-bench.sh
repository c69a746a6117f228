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

repo=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-10}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$repo/tests/vm/vm-run.sh" --bench --smp 2 --mem 2048 \
	--timeout $((400 + 12 * secs)) \
	"$repo/tests/bench/srp-bench-scenario.sh" "$secs" | tee "$out" |
	sed 's/^/  /' >&2
rc=${PIPESTATUS[0]}
lines=$(sed -n 's/^# result: //p' "$out")
if [[ $rc -ne 0 || $(wc -l <<<"$lines") -ne 3 ]]; then
	echo "srp-bench: the benchmark run failed (status $rc)" >&2
	exit 1
fi
echo "$lines"
