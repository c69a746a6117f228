#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark scenario for tests/bench/vmlx-bench.sh (not part of make
# test), one guest, the figures of issue 17's table:
#  1. in the kernel (the ib_verbs_test client), vmlx0 -> vmlx1: RC RDMA
#     WRITEs of 64 KiB, 16 in flight, for SECS seconds, against memcpy()
#     of 64 KiB buffers for as long; the median post-to-completion time
#     of an 8-byte RC WRITE;
#  2. Debian's perftest through ib_uverbs and librxe, vmlx0 -> vmlx1:
#     ib_{write,send,read}_bw of 64 KiB, ib_{write,send}_bw of 8 bytes
#     (message rate), ib_{write,send,read}_lat of 8 bytes, ib_write_bw
#     with 8 QPs and two pairs of processes at once against one QP,
#     ib_send_lat of 4 KiB against ibv_rc_pingpong -s 4096;
#  3. the same perftest runs (but the scaling ones) on Linux's soft-RoCE:
#     ours unloaded, Debian's own ib_core, ib_uverbs and rdma_rxe loaded
#     from its kernel/ tree, one rxe device on a dummy netdev talking to
#     itself.
# Prints each figure as a "result:" line, the ratio against its target
# after it.  perftest runs a number of iterations (-n), not a duration:
# under TCG its duration mode (-D) fails now and then (no report, or the
# closing exchange between the two sides lost), more so with more than
# one QP or process.
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
kdir=/lib/modules/$(uname -r)/kernel

# perftest_once SRVDEV CLIDEV PORT PROG FIELD ARGS...: PROG server on
# SRVDEV, client on CLIDEV; writes column FIELD of the client's last
# result line to $run/val.PORT, nothing if a side failed or the figure
# is not a number
perftest_once() {
	local sdev=$1 cdev=$2 port=$3 prog=$4 field=$5 spid crc src
	shift 5
	: >"$run/val.$port"
	timeout 120 "$prog" -d "$sdev" -p "$port" "$@" >"$run/srv.$port" 2>&1 &
	spid=$!
	wait_listen "$port"
	timeout 120 "$prog" -d "$cdev" -p "$port" "$@" 127.0.0.1 \
		>"$run/cli.$port" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	if [[ $crc -ne 0 || $src -ne 0 ]]; then
		tap_diag "$prog -d $cdev $*: client exit $crc, server exit $src" \
			"$(tail -3 "$run/cli.$port")" "$(tail -3 "$run/srv.$port")"
		return
	fi
	grep -E '^ +[0-9]+ +[0-9]+ ' "$run/cli.$port" | tail -1 |
		awk -v f="$field" '$f ~ /^[0-9.]+$/ && $f > 0 { print $f }' \
		>"$run/val.$port"
}

# perftest NAME SRVDEV CLIDEV PROG FIELD ARGS...: perftest_once, once
# more if perftest could not measure (its clock, under TCG); the figure
# in fig[NAME], "?" if there is none
declare -A fig
perftest() {
	local name=$1 v
	shift
	perftest_once "$1" "$2" 18610 "${@:3}"
	v=$(cat "$run/val.18610")
	if [[ -z $v ]]; then
		perftest_once "$1" "$2" 18610 "${@:3}"
		v=$(cat "$run/val.18610")
	fi
	fig[$name]=${v:-?}
	tap_ok "$([[ -n $v ]]; echo $?)" "$name: ${fig[$name]}"
}

# two_pairs: two ib_write_bw pairs of 64 KiB at once; their sum
two_pairs() {
	local a b
	perftest_once vmlx1 vmlx0 18610 ib_write_bw 4 -s 65536 -n 4000 &
	perftest_once vmlx1 vmlx0 18612 ib_write_bw 4 -s 65536 -n 4000
	wait
	a=$(cat "$run/val.18610")
	b=$(cat "$run/val.18612")
	if [[ -n $a && -n $b ]]; then
		fig[pairs2]=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a + b }')
	else
		fig[pairs2]='?'
	fi
	tap_ok "$([[ ${fig[pairs2]} != '?' ]]; echo $?)" \
		"two ib_write_bw pairs: $a + $b MB/s"
}

# pingpong: ibv_rc_pingpong -s 4096 -n 1000, the client's usec/iter
pingpong() {
	local spid v
	timeout 120 ibv_rc_pingpong -d vmlx1 -p 18614 -s 4096 -n 1000 \
		>"$run/pp.srv" 2>&1 &
	spid=$!
	wait_listen 18614
	timeout 120 ibv_rc_pingpong -d vmlx0 -p 18614 -s 4096 -n 1000 \
		127.0.0.1 >"$run/pp.cli" 2>&1
	wait "$spid"
	v=$(sed -nE 's/.* = ([0-9.]+) usec\/iter.*/\1/p' "$run/pp.cli")
	fig[pingpong]=${v:-?}
	tap_ok "$([[ -n $v ]]; echo $?)" "ibv_rc_pingpong -s 4096: ${fig[pingpong]} us/iter"
}

# the same runs on device DEV (server and client), figures suffixed SFX
perftest_set() {
	local s=$1 c=$2 sfx=$3
	perftest "write_bw$sfx" "$s" "$c" ib_write_bw 4 -s 65536 -n 4000
	perftest "send_bw$sfx" "$s" "$c" ib_send_bw 4 -s 65536 -n 4000
	perftest "read_bw$sfx" "$s" "$c" ib_read_bw 4 -s 65536 -n 4000
	perftest "write_rate$sfx" "$s" "$c" ib_write_bw 5 -s 8 -n 20000
	perftest "send_rate$sfx" "$s" "$c" ib_send_bw 5 -s 8 -n 20000
	perftest "write_lat$sfx" "$s" "$c" ib_write_lat 5 -s 8 -n 1000
	perftest "send_lat$sfx" "$s" "$c" ib_send_lat 5 -s 8 -n 1000
	perftest "read_lat$sfx" "$s" "$c" ib_read_lat 5 -s 8 -n 1000
}

# 1. in the kernel
tap_check "modprobe vmlx static_lids=1" modprobe vmlx static_lids=1
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
vt_run bench "secs=$secs"
kbw=$(sed -nE 's/.*in-kernel RC WRITE 64KiB: ([0-9]+) MB.*/\1/p' "$VT_DIR/result")
mbw=$(sed -nE 's/.*memcpy 64KiB: ([0-9]+) MB.*/\1/p' "$VT_DIR/result")
klat=$(sed -nE 's/.*RC WRITE 8B post-to-completion: ([0-9.]+) us.*/\1/p' \
	"$VT_DIR/result")
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test

# 2. vmlx through librxe
tap_check "modprobe ib_uverbs" modprobe ib_uverbs
perftest_set vmlx1 vmlx0 ""
perftest write_bw_q8 vmlx1 vmlx0 ib_write_bw 4 -s 65536 -q 8 -n 500
two_pairs
perftest send_lat_4k vmlx1 vmlx0 ib_send_lat 5 -s 4096 -n 1000
pingpong
tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_core (ours)" modprobe -r ib_core

# 3. soft-RoCE, Debian's modules
tap_check "modprobe udp_tunnel ip6_udp_tunnel" modprobe -a udp_tunnel ip6_udp_tunnel
tap_check "insmod Debian's ib_core" insmod "$kdir/drivers/infiniband/core/ib_core.ko"
tap_check "insmod Debian's ib_uverbs" insmod "$kdir/drivers/infiniband/core/ib_uverbs.ko"
tap_check "insmod Debian's rdma_rxe" insmod "$kdir/drivers/infiniband/sw/rxe/rdma_rxe.ko"
tap_check "dummy0 up" sh -c 'ip link add dummy0 type dummy && ip link set dummy0 up'
tap_check "rdma link add rxe0 type rxe netdev dummy0" \
	rdma link add rxe0 type rxe netdev dummy0
perftest_set rxe0 rxe0 "_rxe"
tap_check "rdma link delete rxe0" rdma link delete rxe0
tap_check "rmmod rdma_rxe ib_uverbs ib_core (Debian's)" \
	rmmod rdma_rxe ib_uverbs ib_core

# result LABEL VALUE UNIT [RATIO-LABEL RATIO TARGET]...
result() {
	local line="$1: $2 $3"
	shift 3
	while (($# >= 3)); do
		line+="; $1 $2${3:+ (target $3)}"
		shift 3
	done
	tap_diag "result: $line"
}
r() { ratio "${1/\?/0}" "${2/\?/0}"; }

result "memcpy 64KiB (in-kernel)" "${mbw:-?}" MB/s
result "RC WRITE 64KiB in-kernel" "${kbw:-?}" MB/s \
	"/memcpy" "$(r "${kbw:-?}" "${mbw:-?}")" ">= 0.8"
for op in write send read; do
	result "ib_${op}_bw 64KiB vmlx" "${fig[${op}_bw]}" MB/s \
		"rxe" "${fig[${op}_bw_rxe]}" "" \
		"vmlx/memcpy" "$(r "${fig[${op}_bw]}" "${mbw:-?}")" ">= 0.8" \
		"vmlx/rxe" "$(r "${fig[${op}_bw]}" "${fig[${op}_bw_rxe]}")" ">= 3"
done
for op in write send read; do
	result "ib_${op}_lat 8B vmlx" "${fig[${op}_lat]}" "us typical" \
		"rxe" "${fig[${op}_lat_rxe]}" "" \
		"vmlx/rxe" "$(r "${fig[${op}_lat]}" "${fig[${op}_lat_rxe]}")" "<= 0.5"
done
for op in write send; do
	result "ib_${op}_bw 8B vmlx" "${fig[${op}_rate]}" Mpps \
		"rxe" "${fig[${op}_rate_rxe]}" "" \
		"vmlx/rxe" "$(r "${fig[${op}_rate]}" "${fig[${op}_rate_rxe]}")" ">= 2"
done
result "ib_write_bw -q 8 64KiB vmlx" "${fig[write_bw_q8]}" MB/s \
	"/-q 1" "$(r "${fig[write_bw_q8]}" "${fig[write_bw]}")" ">= 1.6"
result "two ib_write_bw pairs 64KiB vmlx" "${fig[pairs2]}" MB/s \
	"/one pair" "$(r "${fig[pairs2]}" "${fig[write_bw]}")" ">= 1.6"
result "ibv_rc_pingpong -s 4096 vmlx" "${fig[pingpong]}" us/iter \
	"/ib_send_lat 4KiB" "$(r "${fig[pingpong]}" "${fig[send_lat_4k]}")" "<= 2"
result "in-kernel RC WRITE 8B post-to-completion" "${klat:-?}" us
tap_done
