#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark scenario for tests/bench/ipoib-bench.sh (not part of make
# test), one guest: IPoIB against a veth pair, in the same run.
#  - the fabric: vmlx0 and vmlx1, Debian's opensm; ib0 in netns ns0
#    (10.0.0.1), ib1 in ns1 (10.0.0.2), as make shell and make demo set
#    them up (scripts/ipoib-netns.sh);
#  - the reference: a veth pair, v0 in netns vA (10.0.1.1) and v1 in vB
#    (10.0.1.2);
#  - iperf3 TCP, one stream for SECS seconds after 3 seconds of warm-up
#    (-O 3: under TCG the first seconds of a path also translate its code),
#    from the first namespace to the second, and the average ping RTT of
#    100 pings 10 ms apart, over each; veth is measured before and after
#    IPoIB and its throughput is the mean of the two, so that a slow spell
#    of the host weighs on both sides;
#  - then connected mode, if "echo connected >/sys/class/net/ibN/mode" is
#    taken on both ends (MTU 65520): the same two figures; else
#    "connected: not available".
# Prints the figures as "result: ..." lines, IPoIB as ratios to veth.
#
# Arguments: [SECS] (default 10)
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/bench.sh"
. "$here/../../scripts/ipoib-netns.sh"

secs=${1:-10}
ib=/sys/class/infiniband
run=$(mktemp -d)
smpid=
cleanup() {
	[[ -z $smpid ]] || kill "$smpid" 2>/dev/null
	for ns in ns0 ns1 vA vB; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	ipoib_netns_down
	ip netns del vA 2>/dev/null
	ip netns del vB 2>/dev/null
	rm -rf "$run"
}
trap cleanup EXIT

# tcp_mbps FROM TO ADDR: Mbit/s iperf3 moved from netns FROM to netns TO
# (its server at ADDR), one TCP stream for $secs seconds; empty on failure
tcp_mbps() {
	local spid
	ip netns exec "$2" iperf3 -s -1 -p 5201 >"$run/srv" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		ip netns exec "$2" ss -Hltn "sport = :5201" | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$1" timeout $((secs + 60)) \
		iperf3 -c "$3" -p 5201 -t "$secs" -O 3 -J >"$run/cli.json" 2>&1
	wait "$spid"
	iperf3_mbps "$run/cli.json"
}

# rtt_ms FROM ADDR: average RTT in ms of 100 pings 10 ms apart
rtt_ms() {
	ip netns exec "$1" ping -q -c 100 -i 0.01 -W 2 "$2" 2>/dev/null |
		sed -n 's|^rtt [^=]*= [0-9.]*/\([0-9.]*\)/.*|\1|p'
}

# --- the fabric and the interfaces ------------------------------------------------------
tap_check "modprobe vmlx num_hcas=2" modprobe vmlx num_hcas=2
tap_check "modprobe ib_umad" modprobe ib_umad
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
pg=0x$(cut -d: -f5-8 <$ib/vmlx0/ports/1/gids/0 | tr -d :)
opensm -g "$pg" -f "$run/opensm.log" >"$run/opensm.out" 2>&1 &
smpid=$!
# tap_cmd CMD...: CMD as a test point named after itself
tap_cmd() { tap_check "$*" "$@"; }
ipoib_netns_up tap_cmd
ipoib_netns_wait 120
tap_ok $? "ib0 and ib1 have carrier"
out=$(ip netns exec ns0 ping -c 3 -W 5 "$IPOIB_NS1_ADDR" 2>&1)
tap_like "ping over IPoIB" "$out" "3 received"

ip netns add vA
ip netns add vB
tap_check "veth pair v0 (vA) - v1 (vB)" \
	ip link add v0 netns vA type veth peer name v1 netns vB
ip -n vA addr add 10.0.1.1/24 dev v0
ip -n vB addr add 10.0.1.2/24 dev v1
ip -n vA link set v0 up
ip -n vB link set v1 up
ip -n vA link set lo up
ip -n vB link set lo up
out=$(ip netns exec vA ping -c 3 -W 5 10.0.1.2 2>&1)
tap_like "ping over veth" "$out" "3 received"

# --- datagram mode ------------------------------------------------------------------------
mtu=$(ip netns exec ns0 cat /sys/class/net/ib0/mtu)
ud_bw=$(tcp_mbps ns0 ns1 "$IPOIB_NS1_ADDR")
tap_ok "$([[ -n $ud_bw ]]; echo $?)" "iperf3 over ib0, datagram: ${ud_bw:-?} Mbit/s"
ud_rtt=$(rtt_ms ns0 "$IPOIB_NS1_ADDR")
tap_ok "$([[ -n $ud_rtt ]]; echo $?)" "ping over ib0, datagram: ${ud_rtt:-?} ms"
veth_bw=$(tcp_mbps vA vB 10.0.1.2)
tap_ok "$([[ -n $veth_bw ]]; echo $?)" "iperf3 over veth: ${veth_bw:-?} Mbit/s"
veth_rtt=$(rtt_ms vA 10.0.1.2)
tap_ok "$([[ -n $veth_rtt ]]; echo $?)" "ping over veth: ${veth_rtt:-?} ms"

# --- connected mode, if there is one ---------------------------------------------------
cm=
if ip netns exec ns0 sh -c 'echo connected >/sys/class/net/ib0/mode' \
	2>/dev/null &&
   ip netns exec ns1 sh -c 'echo connected >/sys/class/net/ib1/mode' \
	2>/dev/null; then
	ip -n ns0 link set ib0 mtu 65520
	ip -n ns1 link set ib1 mtu 65520
	sleep 2
	cm_mtu=$(ip netns exec ns0 cat /sys/class/net/ib0/mtu)
	cm_bw=$(tcp_mbps ns0 ns1 "$IPOIB_NS1_ADDR")
	cm_rtt=$(rtt_ms ns0 "$IPOIB_NS1_ADDR")
	tap_ok "$([[ -n $cm_bw && -n $cm_rtt ]]; echo $?)" \
		"connected mode: ${cm_bw:-?} Mbit/s, ${cm_rtt:-?} ms"
	cm=measured
else
	cm="connected: not available"
fi
veth_bw2=$(tcp_mbps vA vB 10.0.1.2)
tap_ok "$([[ -n $veth_bw2 ]]; echo $?)" "iperf3 over veth again: ${veth_bw2:-?} Mbit/s"
veth_first=$veth_bw
if [[ -n $veth_bw && -n $veth_bw2 ]]; then
	veth_bw=$(( (veth_bw + veth_bw2) / 2 ))
else
	veth_bw=
fi
if [[ $cm == measured ]]; then
	cm="iperf3 TCP over IPoIB connected (MTU $cm_mtu): ${cm_bw:-?} Mbit/s; veth: ${veth_bw:-?} Mbit/s; ratio = $(ratio "${cm_bw:-0}" "${veth_bw:-0}"); ping RTT ${cm_rtt:-?} ms, ratio to veth = $(ratio "${cm_rtt:-0}" "${veth_rtt:-0}")"
fi

kill "$smpid"
wait "$smpid" 2>/dev/null
smpid=
ipoib_netns_down
ip netns del vA
ip netns del vB
sleep 1
tap_check "rmmod ib_ipoib ib_umad vmlx" rmmod ib_ipoib ib_umad vmlx

tap_diag "veth: ${veth_first:-?} Mbit/s before IPoIB, ${veth_bw2:-?} Mbit/s after"
tap_diag "result: iperf3 TCP over IPoIB datagram (MTU $mtu): ${ud_bw:-?} Mbit/s; veth: ${veth_bw:-?} Mbit/s; ratio = $(ratio "${ud_bw:-0}" "${veth_bw:-0}")"
tap_diag "result: ping RTT over IPoIB datagram: ${ud_rtt:-?} ms; veth: ${veth_rtt:-?} ms; ratio = $(ratio "${ud_rtt:-0}" "${veth_rtt:-0}")"
tap_diag "result: $cm"
tap_done
