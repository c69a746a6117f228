#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark scenario for tests/bench/vmlx-bench.sh (not part of make
# test), one guest, vmlx0 -> vmlx1:
#  1. in the kernel (the ib_verbs_test client): RC RDMA WRITEs of 64 KiB,
#     16 in flight, for SECS seconds, against memcpy() of 64 KiB buffers
#     for as long; then the median post-to-completion time of an 8-byte
#     RC WRITE;
#  2. from userspace, through ib_uverbs and librxe (kernel bypass):
#     Debian's ib_write_bw -s 65536 for SECS seconds and ib_write_lat -s 8.
# Prints the figures side by side as "result: ..." lines.
#
# Arguments: [SECS] (default 3)
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/bench.sh"
. "$(dirname "$0")/../vm/user.sh"
. "$(dirname "$0")/../kmod/vt.sh"

secs=${1:-3}
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT

# perftest PROG FIELD ARGS...: PROG server on vmlx1, client on vmlx0;
# sets $result to column FIELD of the client's last result line
perftest() {
	local prog=$1 field=$2 spid crc src
	shift 2
	result=
	timeout 120 "$prog" -d vmlx1 -p 18610 "$@" >"$run/srv" 2>&1 &
	spid=$!
	wait_listen 18610
	timeout 120 "$prog" -d vmlx0 -p 18610 "$@" 127.0.0.1 >"$run/cli" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	if [[ $crc -ne 0 || $src -ne 0 ]]; then
		tap_diag "$prog $*: client exit $crc, server exit $src" \
			"$(tail -5 "$run/cli")" "$(tail -5 "$run/srv")"
		return
	fi
	result=$(grep -E '^ +[0-9]+ +[0-9]+ ' "$run/cli" | tail -1 |
		awk -v f="$field" '{ print $f }')
}

tap_check "modprobe vmlx static_lids=1" modprobe vmlx static_lids=1
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
vt_run bench "secs=$secs"
kline=$(grep -ho 'in-kernel RC WRITE 64KiB: .*' "$VT_DIR/result")
kbw=$(sed -nE 's/^in-kernel RC WRITE 64KiB: ([0-9]+) MB.*/\1/p' <<<"$kline")
klat=$(sed -nE 's/.*RC WRITE 8B post-to-completion: ([0-9.]+) us.*/\1/p' \
	"$VT_DIR/result")
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test

tap_check "modprobe ib_uverbs" modprobe ib_uverbs
perftest ib_write_bw 4 -s 65536 -D "$secs"
ubw=$result
tap_ok "$([[ -n $ubw ]]; echo $?)" "ib_write_bw 64 KiB: $ubw MB/s"
perftest ib_write_lat 5 -s 8 -n 1000
ulat=$result
tap_ok "$([[ -n $ulat ]]; echo $?)" "ib_write_lat 8 B: $ulat us typical"
tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod vmlx" rmmod vmlx

tap_diag "result: $(sed 's|; ratio |; ratio X/Y = |' <<<"$kline")"
tap_diag "result: ib_write_bw 64KiB (user, librxe): ${ubw:-?} MB/s; in-kernel RC WRITE 64KiB: ${kbw:-?} MB/s; ratio user/kernel = $(ratio "${ubw:-0}" "${kbw:-0}")"
tap_diag "result: ib_write_lat 8B (user, librxe): ${ulat:-?} us typical; in-kernel RC WRITE 8B post-to-completion: ${klat:-?} us; ratio user/kernel = $(ratio "${ulat:-0}" "${klat:-0}")"
tap_done
