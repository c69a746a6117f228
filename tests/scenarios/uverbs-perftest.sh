#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: Debian's unmodified perftest between vmlx1 (server) and
# vmlx0 (client) in one guest, through librxe and ib_uverbs: the RC
# bandwidth and latency tests all complete and report a result line with
# a non-zero figure.  perftest checks no payload; the data itself is
# checked by the uverbs-integrity scenario.  The transport's handoff and
# bursts are seen at work in vmlx's profile and counters, and switched
# off by their parameters.  Then an ib_write_bw run is
# killed with SIGKILL in the middle of its traffic: every object of both
# processes must go, the kernel stay clean, and perftest work again.
#
# vm-run-options: --smp 2
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../vm/user.sh"
. "$(dirname "$0")/../vm/vmlx.sh"

run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
crc=0
src=0

# perftest PROG FIELD: PROG as server on vmlx1 and client on vmlx0; both
# must exit 0 and the client's result line must have a non-zero FIELD
# (the column holding the average bandwidth or the typical latency).
#
# perftest's clock measurement can fail under TCG (perftest_clock_failed
# in tests/vm/user.sh), the more often the busier the host: such a run,
# and only such, is repeated, twice at most.
perftest() {
	local prog=$1 try

	for try in 1 2; do
		perftest_once "$@" && return
		tap_diag "$prog: perftest could not measure the CPU clock; once more"
	done
	perftest_once "$@" || perftest_report "$@"
}

# perftest_once PROG FIELD: run the pair; status 1 (nothing reported
# yet) if the client only failed its clock measurement, else report
perftest_once() {
	local prog=$1
	# a server that never listened is reported by perftest_run
	perftest_run "$@" || return 0
	perftest_clock_failed "$run/$prog.cli" "$2" "$run/$prog.srv" && return 1
	perftest_report "$@"
}

# perftest_run PROG: the pair; exit statuses in crc and src
perftest_run() {
	local prog=$1 spid
	timeout 120 "$prog" -d vmlx1 -n 200 -p 18600 >"$run/$prog.srv" 2>&1 &
	spid=$!
	if ! wait_listen 18600; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		tap_fail "$prog: the server never listened" \
			"$(tail -5 "$run/$prog.srv")"
		return 1
	fi
	timeout 120 "$prog" -d vmlx0 -n 200 -p 18600 127.0.0.1 \
		>"$run/$prog.cli" 2>&1
	crc=$?
	wait "$spid"
	src=$?
}

# perftest_report PROG FIELD: the test point of the last run
perftest_report() {
	local prog=$1 field=$2 line value

	line=$(grep -E '^ +[0-9]+ +[0-9]+ ' "$run/$prog.cli" | tail -1)
	value=$(echo "$line" | awk -v f="$field" '{ print $f }')
	tap_diag "$prog: $line"
	if [[ $crc -ne 0 || $src -ne 0 ]]; then
		tap_fail "$prog: client exit $crc, server exit $src" \
			"client: $(cat "$run/$prog.cli")" "server: $(cat "$run/$prog.srv")"
	elif ! awk -v v="$value" 'BEGIN { exit !(v + 0 > 0) }'; then
		tap_fail "$prog: no result (line '$line')"
	else
		tap_pass "$prog vmlx0 -> vmlx1: completed, result $value"
	fi
}

vmlx_start ib_uverbs

# bandwidth tests: column 4 is BW average [MB/sec]
for prog in ib_write_bw ib_read_bw ib_send_bw; do
	perftest "$prog" 4
done
# 8-byte atomics under TCG can average below 0.01 MB/s, printed as 0.00:
# column 5, the message rate [Mpps], has the digits
perftest ib_atomic_bw 5
# latency tests: column 5 is t_typical [usec]
for prog in ib_write_lat ib_read_lat ib_send_lat; do
	perftest "$prog" 5
done

# --- the transport runs in the posting threads ----------------------------
# A doorbell runs its QP's transport, and the QP its packets go to, in
# the caller (vmlx_qp_hand_off()): an 8-byte ib_send_lat of 200
# iterations then wakes a work item for few of its 400 messages.  With
# vmlx's handoff parameter off every message wakes one.
prof=/sys/kernel/debug/vmlx/profile
stage() {	# stage count in the profile
	awk -v s="$1" '$1 == s { print $2 }' "$prof"
}
lat_kicks() {	# run ib_send_lat with the profile on; "kicks handoffs"
	echo 1 >"$prof"
	perftest_run ib_send_lat 5 || true
	echo 0 >"$prof"
	echo "$(stage kick) $(stage handoff)"
}
read -r kicks handoffs < <(lat_kicks)
tap_diag "ib_send_lat, handoff on: $kicks work items woken, $handoffs QP runs handed off"
tap_ok "$( ((kicks < 100 && handoffs >= 400)); echo $?)" \
	"ib_send_lat: the doorbells ran the transport (< 100 wake-ups for 400 messages)"
echo 0 >/sys/module/vmlx/parameters/handoff
read -r kicks handoffs < <(lat_kicks)
echo 1 >/sys/module/vmlx/parameters/handoff
tap_diag "ib_send_lat, handoff off: $kicks work items woken, $handoffs QP runs handed off"
tap_ok "$( ((kicks >= 400 && handoffs == 0)); echo $?)" \
	"ib_send_lat with handoff=0: a wake-up per message, nothing handed off"

# --- bursts ----------------------------------------------------------------
# The MIDDLE packets of a message go through the fabric as one skb
# (hw/mlx/vmlx_burst.c), counted as the packets they stand for: a 64 KiB
# WRITE at MTU 4096 is 16 packets on vmlx0's counters, built as 3 (FIRST,
# the burst, LAST).  With vmlx's burst parameter at 0 each is built alone.
vmlx0_counter() {	# a counter of vmlx0 port 1
	awk -v c="$1" '$1 == c { print $2 }' \
		/sys/kernel/debug/vmlx/vmlx0/port1/counters
}
burst_run() {	# ib_write_bw with the profile on; "packets sent, packets built"
	local x
	x=$(vmlx0_counter xmit_packets)
	echo 1 >"$prof"
	perftest_run ib_write_bw 4 || true
	echo 0 >"$prof"
	echo "$(($(vmlx0_counter xmit_packets) - x)) $(stage req_packet)"
}
read -r sent built < <(burst_run)
tap_ok "$( ((sent >= 3200 && built > 0 && built * 4 < sent)); echo $?)" \
	"ib_write_bw -s 65536 -n 200: $sent packets on the wire, built as $built"
echo 0 >/sys/module/vmlx/parameters/burst
read -r sent built < <(burst_run)
echo 16 >/sys/module/vmlx/parameters/burst
tap_ok "$( ((sent >= 3200 && built >= sent)); echo $?)" \
	"the same with burst=0: $sent packets on the wire, built as $built"
tap_check_fails "burst above 16 is refused" \
	sh -c 'echo 17 >/sys/module/vmlx/parameters/burst'
tap_is "burst still 16" "$(cat /sys/module/vmlx/parameters/burst)" "16"

tap_is "rdma res: no user QP left" \
	"$(rdma res show qp 2>/dev/null | grep -v 'comm \[' | grep -c 'lqpn')" "0"

# --- SIGKILL in the middle of the traffic --------------------------------
xmit() {	# bytes vmlx0 port 1 has sent
	awk '$1 == "xmit_bytes" { print $2 }' \
		/sys/kernel/debug/vmlx/vmlx0/port1/counters
}

# (no timeout(1) wrapper here: the SIGKILL must hit perftest itself; -D
# bounds the run)
before=$(rdma res show 2>&1)
ib_write_bw -d vmlx1 -D 60 -s 65536 -p 18601 >"$run/kill.srv" 2>&1 &
spid=$!
wait_listen 18601
ib_write_bw -d vmlx0 -D 60 -s 65536 -p 18601 127.0.0.1 \
	>"$run/kill.cli" 2>&1 &
cpid=$!
sleep 4
x0=$(xmit)
sleep 2
x1=$(xmit)
tap_diag "vmlx0 port 1 sent $((x1 - x0)) bytes in 2 s"
tap_ok "$( ((x1 - x0 > 1048576)); echo $?)" \
	"ib_write_bw is moving data (> 1 MiB in 2 s) when it is killed"
qps=$(rdma res show qp 2>&1)
tap_diag "$qps"
states="$(grep -c 'vmlx0/1 .* state RTS .*comm ib_write_bw' <<<"$qps") $(grep -c 'vmlx1/1 .* state RT[RS] .*comm ib_write_bw' <<<"$qps")"
tap_is "rdma res shows the QPs of both processes, the client's in RTS" \
	"$states" "1 1"
[[ $states == "1 1" ]] ||
	tap_diag "client: $(cat "$run/kill.cli")
server: $(cat "$run/kill.srv")
vmlx0 port 1: $(cat /sys/kernel/debug/vmlx/vmlx0/port1/counters)
vmlx1 port 1: $(cat /sys/kernel/debug/vmlx/vmlx1/port1/counters)"
kill -KILL "$cpid" "$spid" 2>/dev/null
wait "$cpid" "$spid" 2>/dev/null
tap_is "rdma res after SIGKILL mid-traffic: as before" \
	"$(rdma res show 2>&1)" "$before"
for res in qp cq mr pd; do
	tap_is "rdma res show $res: no user object left" \
		"$(rdma res show "$res" 2>&1 | grep -v 'comm \[')" ""
done
sleep 1
x0=$(xmit)
sleep 1
tap_is "the link is quiet after the kill" "$(( $(xmit) - x0 ))" 0
perftest ib_write_bw 4
tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod vmlx" rmmod vmlx
tap_done
