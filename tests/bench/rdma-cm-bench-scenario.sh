#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark scenario for tests/bench/rdma-cm-bench.sh (not part of make
# test), one guest: what librdmacm's own programs get from our RDMA CM,
# against TCP over IPoIB connected mode, in the same run.
#  - the fabric: vmlx0 and vmlx1, Debian's opensm; ib0 in netns a
#    (10.30.0.1), ib1 in netns b (10.30.0.2), both in connected mode at
#    MTU 65520 (ab_fabric, tests/vm/ipoib.sh);
#  - rstream -S 65536 -C $BW_COUNT, blocking calls (-T b): over rsockets
#    (an RC QP the RDMA CM connected), then the same workload with -T s,
#    rstream's kernel TCP sockets (over IPoIB connected mode); then
#    iperf3 TCP from a to b for SECS seconds after 3 s of warm-up;
#  - rstream -S 64 -C 1 -I $LAT_ITERS: a ping-pong of 64 bytes, over
#    rsockets and over TCP; rstream's usec/xfer is half a round trip;
#  - cmtime -c $CONNS: that many connections set up at once, then torn
#    down; the rate is derived from cmtime's step totals; with it, the
#    REQs, REPs and DREQs the CM resent meanwhile and the MRAs it sent
#    (its counters in /sys/class/infiniband/vmlx?/ports/1/).
# Each rstream workload runs once, shorter, before it is measured: under
# TCG the first pass over a path also translates its code.  Prints the
# figures as "result: ..." lines (three).
#
# Arguments: [SECS] (iperf3's time, default 10)
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/bench.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"

secs=${1:-10}
BW_SIZE=65536
BW_COUNT=2000
LAT_SIZE=64
LAT_ITERS=3000
CONNS=100
A=10.30.0.1
B=10.30.0.2

ab_run_dir

# cm_listen PORT: 0 once an RDMA CM id listens on $B:PORT (10 s at most)
cm_listen() {
	for _ in $(seq 100); do
		rdma res show cm_id 2>/dev/null |
			grep -Eq "state LISTEN ps TCP .*src-addr $B:$1( |$)" && return 0
		sleep 0.1
	done
	return 1
}

# serve NAME PORT SERVER... -- CLIENT...: SERVER in b, CLIENT in a once
# the server listens on PORT (an RDMA CM id unless SERVER has -T s: a TCP
# socket); outputs in $run/NAME.s and $run/NAME.c, exit statuses in $src
# and $crc (124: timed out).  A server that serves for ever (cmtime) is
# stopped once the client is done.
serve() {
	local name=$1 port=$2 spid srv=() tcp=false

	shift 2
	while [[ $1 != -- ]]; do
		[[ $1 == s ]] && tcp=true
		srv+=("$1")
		shift
	done
	shift
	ip netns exec b timeout 300 "${srv[@]}" >"$run/$name.s" 2>&1 &
	spid=$!
	if $tcp; then
		ns_listen b "$port"
	else
		cm_listen "$port"
	fi || tap_diag "$name: no listener on port $port after 10 s"
	na timeout 240 "$@" >"$run/$name.c" 2>&1
	crc=$?
	[[ ${srv[0]} != cmtime ]] || kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	[[ ${srv[0]} != cmtime ]] || src=0
}

port=7470
# rstream_run NAME ARG...: rstream ARGs between b and a on a port of its
# own; sets $field to the client's result line ("custom ..."), empty if
# either end failed
rstream_run() {
	local name=$1

	shift
	port=$((port + 1))
	serve "$name" $port rstream -b $B -p $port "$@" -- \
		rstream -s $B -p $port "$@"
	line=
	if ((crc == 0 && src == 0)); then
		line=$(grep -E '^custom +' "$run/$name.c" | tail -n 1)
	fi
	if [[ -z $line ]]; then
		tap_diag "$name: client $crc: $(tail -n 5 "$run/$name.c")" \
			 "$name: server $src: $(tail -n 5 "$run/$name.s")"
	fi
}

# rstream_mbps VAR NAME ARG...: VAR set to the Mbit/s of an rstream -S
# $BW_SIZE -C $BW_COUNT run, from the bytes it moved (BW_COUNT transfers
# each way) and its time; empty if it failed
rstream_mbps() {
	local var=$1

	shift
	rstream_run "$@"
	printf -v "$var" %s ""
	[[ -n $line ]] || return 0
	tap_diag "$1: $line"
	printf -v "$var" %s "$(awk -v b=$((2 * BW_SIZE * BW_COUNT)) '{
		t = $6; sub(/s$/, "", t)
		if (t > 0) printf "%.0f", b * 8 / t / 1e6 }' <<<"$line")"
}

# rstream_usec VAR NAME ARG...: VAR set to rstream's usec/xfer of a
# ping-pong run; empty if it failed
rstream_usec() {
	local var=$1

	shift
	rstream_run "$@"
	printf -v "$var" %s ""
	[[ -n $line ]] || return 0
	tap_diag "$1: $line"
	printf -v "$var" %s "$(awk '{ print $8 }' <<<"$line")"
}

# tcp_mbps: Mbit/s iperf3 moved from a to b, one TCP stream for $secs
# seconds after 3 of warm-up; empty on failure
tcp_mbps() {
	local spid

	ip netns exec b iperf3 -s -1 -p 5201 >"$run/iperf3.s" 2>&1 &
	spid=$!
	ns_listen b 5201
	na timeout $((secs + 60)) \
		iperf3 -c $B -p 5201 -t "$secs" -O 3 -J >"$run/iperf3.json" 2>&1
	wait "$spid"
	iperf3_mbps "$run/iperf3.json"
}

# cmtime_step STEP: cmtime's "STEP : total-ms max-ms min-us us/conn" line,
# field F (2: total ms, 5: us per connection) of it
cmtime_step() {
	awk -F: -v s="$1" -v f="$2" '
		{ name = $1; sub(/ +$/, "", name) }
		name == s { split($2, v, " "); print v[f - 1] }' "$run/cmtime.c"
}

# cm_sent GROUP MSG: the CM's count of MSG in GROUP (cm_tx_msgs,
# cm_tx_retries...) on port 1 of both HCAs
cm_sent() {
	cat /sys/class/infiniband/vmlx[01]/ports/1/"$1/$2" 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}

# cm_snapshot: the REQs the CM sent, its resends of REQ, REP and DREQ,
# and its MRAs: what a slow cmtime run may have waited for
cm_snapshot() {
	echo "$(cm_sent cm_tx_msgs req)" \
		"$(($(cm_sent cm_tx_retries req) + $(cm_sent cm_tx_retries rep) +
		    $(cm_sent cm_tx_retries dreq)))" "$(cm_sent cm_tx_msgs mra)"
}

rate() {	# rate MS: $CONNS connections in MS milliseconds, per second
	awk -v n=$CONNS -v ms="$1" 'BEGIN { if (ms > 0) printf "%.0f", n * 1000 / ms; else print "?" }'
}

# --- the fabric, connected mode ----------------------------------------------------
vmlx_start --params "num_hcas=2" ib_umad ib_uverbs
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe rdma_ucm" modprobe rdma_ucm
ab_fabric $A $B
for nsdev in a/ib0 b/ib1; do
	ns=${nsdev%/*} dev=${nsdev#*/}
	ip netns exec "$ns" sh -c "echo connected >/sys/class/net/$dev/mode" &&
		ip -n "$ns" link set "$dev" mtu 65520
	tap_ok $? "$dev: connected mode, MTU 65520"
done
sleep 2
mtu=$(na cat /sys/class/net/ib0/mtu)
mode=$(na cat /sys/class/net/ib0/mode)/$(nb cat /sys/class/net/ib1/mode)
tap_is "ib0 and ib1 in connected mode" "$mode" connected/connected
out=$(na ping -c 3 -W 5 $B 2>&1)
tap_like "ping over IPoIB connected" "$out" "3 received"

# --- bandwidth ----------------------------------------------------------------------
rstream_run warm_rs -T b -S $BW_SIZE -C 100
rstream_run warm_tcp -T s -T b -S $BW_SIZE -C 100
rstream_mbps rs_bw bw_rs -T b -S $BW_SIZE -C $BW_COUNT
tap_ok "$([[ -n $rs_bw ]]; echo $?)" \
	"rstream 64 KiB x $BW_COUNT over rsockets: ${rs_bw:-?} Mbit/s"
rstream_mbps tcp_bw bw_tcp -T s -T b -S $BW_SIZE -C $BW_COUNT
tap_ok "$([[ -n $tcp_bw ]]; echo $?)" \
	"rstream 64 KiB x $BW_COUNT over TCP/IPoIB connected: ${tcp_bw:-?} Mbit/s"
ip_bw=$(tcp_mbps)
tap_ok "$([[ -n $ip_bw ]]; echo $?)" \
	"iperf3 over IPoIB connected: ${ip_bw:-?} Mbit/s"

# --- latency ------------------------------------------------------------------------
rstream_run warm_lat_rs -T b -S $LAT_SIZE -C 1 -I 100
rstream_run warm_lat_tcp -T s -T b -S $LAT_SIZE -C 1 -I 100
rstream_usec rs_lat lat_rs -T b -S $LAT_SIZE -C 1 -I $LAT_ITERS
tap_ok "$([[ -n $rs_lat ]]; echo $?)" \
	"rstream 64 B ping-pong over rsockets: ${rs_lat:-?} us/xfer"
rstream_usec tcp_lat lat_tcp -T s -T b -S $LAT_SIZE -C 1 -I $LAT_ITERS
tap_ok "$([[ -n $tcp_lat ]]; echo $?)" \
	"rstream 64 B ping-pong over TCP/IPoIB connected: ${tcp_lat:-?} us/xfer"

# --- connection set-up ----------------------------------------------------------
before=$(cm_snapshot)
port=$((port + 1))
serve cmtime $port cmtime -b $B -p $port -c $CONNS -- \
	cmtime -s $B -p $port -c $CONNS
tap_diag "$(cat "$run/cmtime.c")"
resent=$(awk -v b="$before" -v a="$(cm_snapshot)" 'BEGIN {
	split(b, x); split(a, y)
	printf "%d REQs sent, %d REQs, REPs and DREQs resent, %d MRAs",
		y[1] - x[1], y[2] - x[2], y[3] - x[3] }')
tap_is "cmtime -c $CONNS: client exit 0" "$crc" 0
errs=$(grep -E "error|fail" "$run/cmtime.c")
tap_is "cmtime: no connection failed" "$errs" ""
conn_ms=$(cmtime_step connect 2)
setup_ms=0
for s in "create id" "resolve addr" "resolve route" "create qp" connect; do
	setup_ms=$(awk -v a="$setup_ms" -v b="$(cmtime_step "$s" 2)" \
		'BEGIN { print a + b }')
done
down_ms=$(awk -v a="$(cmtime_step disconnect 2)" \
	-v b="$(cmtime_step destroy 2)" 'BEGIN { print a + b }')
tap_ok "$(awk -v ms="${conn_ms:-0}" 'BEGIN { exit !(ms > 0) }'; echo $?)" \
	"cmtime: connect step ${conn_ms:-?} ms for $CONNS connections"

# --- nothing left ---------------------------------------------------------------------
sleep 1
tap_is "no cm_id left" "$(cm_ids)" 0

tap_diag "result: rstream 64KiB over rsockets: ${rs_bw:-?} Mbit/s; same over TCP/IPoIB connected (MTU $mtu): ${tcp_bw:-?} Mbit/s; iperf3 TCP/IPoIB connected: ${ip_bw:-?} Mbit/s; ratio rsockets/TCP = $(ratio "${rs_bw:-0}" "${tcp_bw:-0}"), rsockets/iperf3 = $(ratio "${rs_bw:-0}" "${ip_bw:-0}")"
tap_diag "result: rstream 64B latency over rsockets: ${rs_lat:-?} us/xfer; over TCP/IPoIB connected: ${tcp_lat:-?} us/xfer; ratio = $(ratio "${rs_lat:-0}" "${tcp_lat:-0}")"
tap_diag "result: cmtime: $CONNS connections, $(rate "${conn_ms:-0}") connections/s (connect step: ${conn_ms:-?} ms, all in flight); $(rate "$setup_ms") connections/s from create id to established ($setup_ms ms); torn down at $(rate "$down_ms")/s; CM: $resent"
tap_done
