#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark scenario for tests/bench/rc-write-bw.sh (not part of make
# test): vmlx0 -> vmlx1 RC RDMA WRITEs of 64 KiB, 16 in flight, for
# BENCH_SECS seconds (first argument, default 3), against memcpy() of
# 64 KiB buffers for as long, both measured inside the kernel by the
# ib_verbs_test client.  The result line also goes to $VM_OUTDIR/bench.
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../kmod/vt.sh"

secs=${1:-3}
tap_check "modprobe vmlx static_lids=1" modprobe vmlx static_lids=1
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
vt_run bench "secs=$secs"
grep -h 'in-kernel RC WRITE' "$VT_DIR/result" >"$VM_OUTDIR/bench" || true
tap_check "rmmod ib_verbs_test" rmmod ib_verbs_test
tap_check "rmmod vmlx" rmmod vmlx
tap_done
