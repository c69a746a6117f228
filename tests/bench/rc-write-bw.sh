#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot a VM (tests/vm/vm-run.sh), load vmlx with static LIDs
# and the ib_verbs_test client, and measure in the kernel the bandwidth of
# RC RDMA WRITEs of 64 KiB from vmlx0 to vmlx1 (16 in flight) against
# memcpy() of 64 KiB buffers in the same guest for the same time.  Prints
#
#   in-kernel RC WRITE 64KiB: X MB/s; memcpy 64KiB: Y MB/s; ratio X/Y
#
# Usage: tests/bench/rc-write-bw.sh [SECONDS]    (default 3)
# The guest runs under QEMU/TCG unless VM_QEMU_ARGS enables KVM, so the
# absolute figures say little; the ratio is what to compare.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-3}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$repo/tests/vm/vm-run.sh" --timeout $((120 + 3 * secs)) \
	"$repo/tests/bench/rc-write-bw-scenario.sh" "$secs" | tee "$out" |
	sed 's/^/  /' >&2
rc=${PIPESTATUS[0]}
line=$(grep -o 'in-kernel RC WRITE 64KiB: .*' "$out" | head -n 1)
if [[ $rc -ne 0 || -z $line ]]; then
	echo "rc-write-bw: the benchmark run failed (status $rc)" >&2
	exit 1
fi
# "...: X MB/s; memcpy 64KiB: Y MB/s; ratio R" -> the ratio written as X/Y
echo "$line" | sed -E 's/ratio ([0-9.]+)$/ratio X\/Y = \1/'
