#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark scenario for tests/bench/sdp-bench.sh (not part of make test),
# one guest: TCP programs over SDP (ib_sdp under libsdp.so) against TCP
# over IPoIB connected mode and TCP over a veth pair, in the same run.
#  - the fabric: vmlx0 and vmlx1, Debian's opensm; ib0 in netns a
#    (10.32.0.1), ib1 in netns b (10.32.0.2), connected mode at MTU 65520;
#    a veth pair between netns c (10.33.0.1) and d (10.33.0.2);
#  - throughput: iperf3, one stream a -> b for SECS seconds after 3 s of
#    warm-up, over SDP (both ends preloaded in simple mode), then TCP
#    over IPoIB, then TCP over veth c -> d;
#  - latency: rstream -T s (rstream's plain socket calls, which libsdp.so
#    turns into SDP ones when preloaded) -S 64 -C 1 -I $LAT_ITERS, a
#    ping-pong of 64 bytes; its usec/xfer is half a round trip;
#  - the bytes SDP moved by buffered copy and by zero copy, from
#    /proc/net/sdpstats in a.
# Each workload runs once, shorter, before it is measured: under TCG the
# first pass over a path also translates its code.  Prints the figures as
# "result: ..." lines (three).
#
# Arguments: [SECS] (iperf3's time, default 10)
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/bench.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"
. "$here/../vm/sdp.sh"

secs=${1:-10}
LAT_ITERS=2000
A=10.32.0.1
B=10.32.0.2
C=10.33.0.1
D=10.33.0.2

run=$(mktemp -d)
cleanup() {
	ip netns pids c 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids d 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del c 2>/dev/null
	ip netns del d 2>/dev/null
	ab_cleanup
}
trap cleanup EXIT

# inns NS sdp|tcp CMD...: CMD in NS, preloaded for SDP or not
inns() {
	local ns=$1 how=$2

	shift 2
	if [[ $how == sdp ]]; then
		ip netns exec "$ns" env LD_PRELOAD="$SDP_LIB" SIMPLE_LIBSDP=1 "$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# listening NS sdp|tcp PORT: 0 once something listens on PORT in NS
listening() {
	if [[ $2 == sdp ]]; then
		sdp_listening "$3" "$1"
	else
		ns_listen "$1" "$3"
	fi
}

port=5300
# mbps FROM TO ADDR sdp|tcp SECS: Mbit/s iperf3 moved FROM -> TO, one
# stream, SECS seconds after 3 of warm-up; empty on failure
mbps() {
	local spid

	port=$((port + 1))
	inns "$2" "$4" iperf3 -s -1 -p $port >"$run/srv" 2>&1 &
	spid=$!
	listening "$2" "$4" $port
	inns "$1" "$4" timeout $(($5 + 60)) \
		iperf3 -c "$3" -p $port -t "$5" -O 3 -J >"$run/cli.json" 2>&1
	wait "$spid"
	iperf3_mbps "$run/cli.json"
}

# usec FROM TO ADDR sdp|tcp ITERS: rstream -T s's usec/xfer of a 64-byte
# ping-pong FROM -> TO; empty on failure
usec() {
	local spid

	port=$((port + 1))
	inns "$2" "$4" timeout 300 rstream -T s -T b -b "$3" -p $port \
		-S 64 -C 1 -I "$5" >"$run/rs.s" 2>&1 &
	spid=$!
	listening "$2" "$4" $port
	inns "$1" "$4" timeout 240 rstream -T s -T b -s "$3" -p $port \
		-S 64 -C 1 -I "$5" >"$run/rs.c" 2>&1
	wait "$spid"
	awk '/^custom / { v = $8 } END { if (v != "") print v }' "$run/rs.c"
}

# --- the fabric (connected mode), the veth pair --------------------------------------
vmlx_start --params "num_hcas=2" ib_umad
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe ib_sdp" modprobe ib_sdp
ab_fabric $A $B
for nsdev in a/ib0 b/ib1; do
	ns=${nsdev%/*} dev=${nsdev#*/}
	ip netns exec "$ns" sh -c "echo connected >/sys/class/net/$dev/mode" &&
		ip -n "$ns" link set "$dev" mtu 65520
	tap_ok $? "$dev: connected mode, MTU 65520"
done
sleep 2
mtu=$(na cat /sys/class/net/ib0/mtu)
out=$(na ping -c 3 -W 5 $B 2>&1)
tap_like "ping over IPoIB connected" "$out" "3 received"
ip netns add c
ip netns add d
tap_check "veth pair v0 (c) - v1 (d)" \
	ip link add v0 netns c type veth peer name v1 netns d
ip -n c addr add $C/24 dev v0
ip -n d addr add $D/24 dev v1
ip -n c link set v0 up
ip -n d link set v1 up
ip -n c link set lo up
ip -n d link set lo up
out=$(ip netns exec c ping -c 3 -W 5 $D 2>&1)
tap_like "ping over veth" "$out" "3 received"

# --- throughput ---------------------------------------------------------------------------
mbps a b $B sdp 2 >/dev/null
mbps a b $B tcp 2 >/dev/null
tx0=$(sdpbytes a tx)
sdp_bw=$(mbps a b $B sdp "$secs")
tx=$(($(sdpbytes a tx) - tx0))
tap_ok "$([[ -n $sdp_bw ]]; echo $?)" "iperf3 over SDP: ${sdp_bw:-?} Mbit/s"
tap_ok "$((tx < 1048576))" "iperf3 over SDP: the bytes went over SDP ($tx B)"
ib_bw=$(mbps a b $B tcp "$secs")
tap_ok "$([[ -n $ib_bw ]]; echo $?)" "iperf3 over TCP/IPoIB connected: ${ib_bw:-?} Mbit/s"
veth_bw=$(mbps c d $D tcp "$secs")
tap_ok "$([[ -n $veth_bw ]]; echo $?)" "iperf3 over TCP/veth: ${veth_bw:-?} Mbit/s"

# --- latency --------------------------------------------------------------------------------
usec a b $B sdp 100 >/dev/null
usec a b $B tcp 100 >/dev/null
sdp_lat=$(usec a b $B sdp $LAT_ITERS)
tap_ok "$([[ -n $sdp_lat ]]; echo $?)" "64 B ping-pong over SDP: ${sdp_lat:-?} us/xfer"
ib_lat=$(usec a b $B tcp $LAT_ITERS)
tap_ok "$([[ -n $ib_lat ]]; echo $?)" "64 B ping-pong over TCP/IPoIB connected: ${ib_lat:-?} us/xfer"
veth_lat=$(usec c d $D tcp $LAT_ITERS)
tap_ok "$([[ -n $veth_lat ]]; echo $?)" "64 B ping-pong over TCP/veth: ${veth_lat:-?} us/xfer"

tap_diag "result: iperf3 over SDP: ${sdp_bw:-?} Mbit/s; TCP/IPoIB connected (MTU $mtu): ${ib_bw:-?} Mbit/s; TCP/veth: ${veth_bw:-?} Mbit/s; ratio SDP/IPoIB = $(ratio "${sdp_bw:-0}" "${ib_bw:-0}"), SDP/veth = $(ratio "${sdp_bw:-0}" "${veth_bw:-0}")"
tap_diag "result: 64B ping-pong (rstream -T s) over SDP: ${sdp_lat:-?} us/xfer; TCP/IPoIB connected: ${ib_lat:-?} us/xfer; TCP/veth: ${veth_lat:-?} us/xfer; ratio SDP/IPoIB = $(ratio "${sdp_lat:-0}" "${ib_lat:-0}") (lower is better)"
tap_diag "result: SDP bytes sent in a: $(sdpstat a TxBcopyBytes) by buffered copy, $(sdpstat a TxZcopyBytes) by zero copy"
tap_done
