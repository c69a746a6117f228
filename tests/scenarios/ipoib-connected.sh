#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: IPoIB in connected mode (RC connections through the IB CM)
# between two HCAs on a fabric that Debian's unmodified opensm brings up.
# ib0 (vmlx0) and ib1 (vmlx1) are moved into the network namespaces "a"
# and "b", 10.13.0.1 and 10.13.0.2.
#
#  - The mode: sysfs (mode reads connected, the address gets the RC flag
#    0x80, garbage refused) and ip link set ... type ipoib mode connected;
#    ip -d link shows mode connected; the MTU goes to 65520, 65520 is
#    taken, 65521 refused, and datagram mode clamps it back to 2044 and
#    refuses 65520.
#  - Connected: ping (100 packets, -s 60000 with DF: no fragment), ping -6
#    link local and global, arping, ip neigh with the peer's 20-byte
#    address and its 0x80 flag, iperf3 TCP both ways (-P 4) and UDP, 8 MiB
#    through socat with the same sha256; ethtool -S counts the
#    connections; rdma res shows the RC QPs.
#  - A child made by ip link add ... pkey 0x8001 mode connected on each
#    end pings its peer with 60000-byte packets.
#  - The mode switched datagram -> connected -> datagram on both ends
#    under iperf3 TCP: iperf3 ends well, no connection lost; in datagram
#    mode rdma res shows no RC QP.
#  - Fallback: a connected, b datagram: ping, TCP (socat, sha256) over
#    datagrams; a neighbour entry that claims RC for b: the REQ is
#    rejected (b does not listen), counted, and traffic still flows.
#  - rmmod ib_ipoib under iperf3 in connected mode, rmmod vmlx under
#    iperf3 in connected mode: nothing left in rdma res; dmesg clean (the
#    harness checks).
#
# vm-run-options: --smp 2 --timeout 900
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"

ib=/sys/class/infiniband
ab_run_dir

A=10.13.0.1
B=10.13.0.2
A6=fd13::1
B6=fd13::2

# rc_qps DEV: RC QPs of DEV in rdma res
rc_qps() {
	rdma res show qp link "$1/1" 2>/dev/null | grep -c "type RC"
}

# mode NS DEV MODE: switch DEV in NS through sysfs
mode() {
	ip netns exec "$1" sh -c "echo $3 >/sys/class/net/$2/mode"
}

vmlx_start --params "num_hcas=2" ib_umad ib_uverbs
baseline=$VMLX_RES_BASELINE
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_like "ib_ipoib needs ib_cm" "$(modinfo -F depends ib_ipoib)" "ib_cm"

# --- the mode, before any SM ---------------------------------------------------------
d=/sys/class/net/ib0
tap_is "ib0: datagram to begin with" "$(cat $d/mode)" datagram
tap_like "ib0: flags 00 in datagram mode" "$(cat $d/address)" "^00:"
tap_check "mode: connected taken" sh -c "echo connected >$d/mode"
tap_is "mode reads connected" "$(cat $d/mode)" connected
tap_like "ib0: the RC flag 0x80 in the address, the GID after it" \
	"$(cat $d/address)" "^80:[0-9a-f]{2}:[0-9a-f]{2}:[0-9a-f]{2}:$(gid_hex vmlx0)$"
tap_is "ib0: MTU 65520 in connected mode" "$(cat $d/mtu)" 65520
tap_check_fails "mode: garbage refused" sh -c "echo fast >$d/mode"
tap_is "mode still connected" "$(cat $d/mode)" connected
tap_check "mode: datagram taken" sh -c "echo datagram >$d/mode"
tap_like "ib0: flags 00 again" "$(cat $d/address)" "^00:"
tap_check_fails "datagram: MTU 65520 refused" ip link set ib0 mtu 65520
tap_check "ip link set ib0 type ipoib mode connected" \
	ip link set ib0 type ipoib mode connected
tap_like "ip -d link: mode connected" "$(ip -d link show ib0 2>&1)" \
	"ipoib pkey  ?0xffff mode  ?connected"
tap_check "ip link set ib0 type ipoib mode datagram" \
	ip link set ib0 type ipoib mode datagram
tap_like "ip -d link: mode datagram" "$(ip -d link show ib0 2>&1)" \
	"mode  ?datagram"

# --- namespaces, opensm ----------------------------------------------------------------
ip netns add a
ip netns add b
ip link set ib0 netns a && ip link set ib1 netns b &&
	na ip link set lo up && nb ip link set lo up &&
	ip -n a link set ib0 up && ip -n a addr add $A/24 dev ib0 &&
	ip -n a addr add $A6/64 dev ib0 nodad &&
	ip -n b link set ib1 up && ip -n b addr add $B/24 dev ib1 &&
	ip -n b addr add $B6/64 dev ib1 nodad
tap_ok $? "ib0 in a ($A), ib1 in b ($B), up"

opensm_start --partitions "Default=0x7fff, ipoib, defmember=full : ALL=full ;
P1=0x8001, ipoib : ALL=full ;"
wait_carrier a ib0 120 && wait_carrier b ib1 60
tap_ok $? "ib0 and ib1: carrier"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(tail -n 30 "$OPENSM_LOG")"
tap_is "datagram: MTU 2044" "$(na cat /sys/class/net/ib0/mtu)" 2044
na ping -c 3 -W 5 "$B" >/dev/null 2>&1
tap_is "datagram: no RC QP on vmlx0" "$(rc_qps vmlx0)" 0

# --- connected mode ---------------------------------------------------------------------
tap_check "a: echo connected >mode" mode a ib0 connected
tap_check "b: ip link set ib1 type ipoib mode connected" \
	ip -n b link set ib1 type ipoib mode connected
tap_is "ib1: mode connected (sysfs)" "$(nb cat /sys/class/net/ib1/mode)" \
	connected
tap_like "ip -d link ib1: mode connected" "$(ip -n b -d link show ib1)" \
	"mode  ?connected"
tap_is "ib0: MTU 65520" "$(na cat /sys/class/net/ib0/mtu)" 65520
tap_check "ip link set ib0 mtu 65520 taken" ip -n a link set ib0 mtu 65520
tap_check_fails "ip link set ib0 mtu 65521 refused" \
	ip -n a link set ib0 mtu 65521
tap_check "ip link set ib1 mtu 65520 taken" ip -n b link set ib1 mtu 65520
# the peers' new addresses (the RC flag) are learnt again
na ip neigh flush dev ib0
nb ip neigh flush dev ib1

out=$(na ping -c 100 -i 0.05 -W 5 "$B" 2>&1)
tap_like "ping -c 100: no loss" "$out" "100 packets transmitted, 100 received"
addr1=$(nb cat /sys/class/net/ib1/address)
tap_like "ip neigh: ib1's address, the RC flag 0x80 first" \
	"$(na ip neigh show "$B" dev ib0)" "lladdr 80:${addr1#80:} "
out=$(na ping -c 5 -s 60000 -M do -W 10 "$B" 2>&1)
tap_like "ping -s 60000 -M do: one packet each, no fragment" "$out" \
	"5 packets transmitted, 5 received"
tap_ok "$([[ $(ethtool_stat a ib0 cm_tx_established) -ge 1 ]]; echo $?)" \
	"ethtool -S ib0: cm_tx_established $(ethtool_stat a ib0 cm_tx_established)"
tap_ok "$([[ $(ethtool_stat b ib1 cm_rx_accepted) -ge 1 ]]; echo $?)" \
	"ethtool -S ib1: cm_rx_accepted $(ethtool_stat b ib1 cm_rx_accepted)"
tap_ok "$([[ $(ethtool_stat a ib0 cm_tx_conns) -ge 1 ]]; echo $?)" \
	"ethtool -S ib0: cm_tx_conns $(ethtool_stat a ib0 cm_tx_conns) now"
tap_ok "$([[ $(rc_qps vmlx0) -ge 2 && $(rc_qps vmlx1) -ge 2 ]]; echo $?)" \
	"rdma res: RC QPs, both ways, on vmlx0 ($(rc_qps vmlx0)) and vmlx1 ($(rc_qps vmlx1))"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(na ethtool -S ib0)" \
	"$(dmesg | grep -i ipoib | tail -n 20)"

out=$(na arping -c 3 -w 10 -I ib0 "$B" 2>&1)
tap_like "arping: 3 responses" "$out" "Received 3 response"
for _ in $(seq 20); do
	ll=$(ip -n b -6 -o addr show dev ib1 scope link -tentative |
		awk '{print $4}' | cut -d/ -f1)
	[[ -n $ll ]] && break
	sleep 1
done
out=$(na ping -6 -c 5 -W 5 "$ll%ib0" 2>&1)
tap_like "ping -6 link-local" "$out" "5 packets transmitted, 5 received"
out=$(na ping -6 -c 5 -s 30000 -W 5 "$B6" 2>&1)
tap_like "ping -6 $B6 (global), 30000 bytes" "$out" \
	"5 packets transmitted, 5 received"

nb iperf3 -s -D -p 5201 --logfile "$run/iperf3.log"
ns_listen b 5201
out=$(na iperf3 -c "$B" -p 5201 -t 5 -P 4 2>&1)
tap_like "iperf3 TCP a to b, -P 4" "$out" "SUM.*receiver"
tap_diag "$(grep 'SUM.*receiver' <<<"$out")"
out=$(na iperf3 -c "$B" -p 5201 -t 5 -P 4 -R 2>&1)
tap_like "iperf3 TCP b to a (-R)" "$out" "SUM.*receiver"
tap_diag "$(grep 'SUM.*receiver' <<<"$out")"
out=$(na iperf3 -c "$B" -p 5201 -t 5 -u -b 20M 2>&1)
tap_like "iperf3 UDP a to b" "$out" "receiver"
tap_diag "$(grep -A1 'Lost/Total' <<<"$out" | tail -n 2)"

head -c $((8 << 20)) /dev/urandom >"$run/in"
ip netns exec b socat -u TCP-LISTEN:5301,reuseaddr "OPEN:$run/out,creat,trunc" &
spid=$!
ns_listen b 5301
na socat -u "FILE:$run/in" "TCP:$B:5301"
tap_ok $? "socat: 8 MiB sent"
wait $spid
tap_is "socat: the same sha256 at the other end" \
	"$(sha256sum <"$run/out")" "$(sha256sum <"$run/in")"
tap_diag "$(na ethtool -S ib0 | grep -E 'cm_|tx_packets|rx_packets')"

# --- a child in connected mode ------------------------------------------------------------
C=10.14.0
tap_check "ip link add ib0.8001 type ipoib pkey 0x8001 mode connected" \
	ip -n a link add link ib0 name ib0.8001 type ipoib pkey 0x8001 \
	mode connected
tap_check "ip link add ib1.8001 ... mode connected" \
	ip -n b link add link ib1 name ib1.8001 type ipoib pkey 0x8001 \
	mode connected
tap_like "ip -d link ib0.8001: pkey 0x8001 mode connected" \
	"$(ip -n a -d link show ib0.8001)" "pkey  ?0x8001 mode  ?connected"
na ip link set ib0.8001 up && na ip addr add $C.1/24 dev ib0.8001 &&
	nb ip link set ib1.8001 up && nb ip addr add $C.2/24 dev ib1.8001
wait_carrier a ib0.8001 60 && wait_carrier b ib1.8001 60
tap_ok $? "ib0.8001 and ib1.8001: carrier"
tap_is "ib0.8001: MTU 65520" "$(na cat /sys/class/net/ib0.8001/mtu)" 65520
out=$(na ping -c 5 -s 60000 -M do -W 10 $C.2 2>&1)
tap_like "the children: ping -s 60000 -M do" "$out" \
	"5 packets transmitted, 5 received"
tap_ok "$([[ $(ethtool_stat a ib0.8001 cm_tx_established) -ge 1 ]]; echo $?)" \
	"ib0.8001 connected to its peer"
tap_check "ip link del ib0.8001" ip -n a link del ib0.8001
tap_check "ip link del ib1.8001" ip -n b link del ib1.8001

# --- the mode switched under TCP ------------------------------------------------------------
ip netns exec a iperf3 -c "$B" -p 5201 -t 16 >"$run/iperf3.switch" 2>&1 &
ipid=$!
sleep 3
mode a ib0 datagram && mode b ib1 datagram
tap_ok $? "under iperf3: both ends to datagram"
tap_is "datagram: MTU clamped to 2044" "$(na cat /sys/class/net/ib0/mtu)" 2044
tap_check_fails "datagram: MTU 65520 refused" ip -n a link set ib0 mtu 65520
sleep 4
mode a ib0 connected && mode b ib1 connected
tap_ok $? "under iperf3: both ends to connected"
na ip neigh flush dev ib0
nb ip neigh flush dev ib1
# the addresses with the RC flag are learnt again (TCP may be backing off)
for _ in $(seq 10); do
	[[ $(rc_qps vmlx0) -ge 2 ]] && break
	na ping -c 1 -W 1 "$B" >/dev/null 2>&1
done
tap_ok "$([[ $(rc_qps vmlx0) -ge 2 ]]; echo $?)" \
	"under iperf3, connected: RC QPs on vmlx0 ($(rc_qps vmlx0))"
mode a ib0 datagram && mode b ib1 datagram
tap_ok $? "under iperf3: both ends to datagram again"
wait $ipid
tap_ok $? "iperf3 across the switches: exit 0"
tap_like "iperf3 across the switches: the receiver's report" \
	"$(cat "$run/iperf3.switch")" "receiver"
tap_diag "$(grep -E 'sender|receiver|error' "$run/iperf3.switch")"
sleep 1
tap_is "datagram: no RC QP left on vmlx0" "$(rc_qps vmlx0)" 0
tap_is "datagram: no RC QP left on vmlx1" "$(rc_qps vmlx1)" 0
out=$(na ping -c 3 -W 5 "$B" 2>&1)
tap_like "datagram: ping" "$out" "3 packets transmitted, 3 received"

# --- fallback to datagrams ------------------------------------------------------------------
mode a ib0 connected
na ip neigh flush dev ib0
nb ip neigh flush dev ib1
out=$(na ping -c 5 -W 5 "$B" 2>&1)
tap_like "a connected, b datagram: ping" "$out" \
	"5 packets transmitted, 5 received"
tap_like "ip neigh: ib1's address without the RC flag" \
	"$(na ip neigh show "$B" dev ib0)" "lladdr 00:"
ip netns exec b socat -u TCP-LISTEN:5302,reuseaddr "OPEN:$run/out2,creat,trunc" &
spid=$!
ns_listen b 5302
na socat -u "FILE:$run/in" "TCP:$B:5302"
tap_ok $? "a connected, b datagram: socat 8 MiB sent"
wait $spid
tap_is "a connected, b datagram: the same sha256" \
	"$(sha256sum <"$run/out2")" "$(sha256sum <"$run/in")"
# b's address as if b offered RC: the REQ is rejected, datagrams go on
rej=$(ethtool_stat a ib0 cm_tx_rejected)
na ip neigh replace "$B" dev ib0 lladdr "80:${addr1#80:}" nud permanent
out=$(na ping -c 5 -W 5 "$B" 2>&1)
tap_like "a REQ to b rejected: ping goes on over datagrams" "$out" \
	"5 packets transmitted, [45] received"
tap_ok "$([[ $(ethtool_stat a ib0 cm_tx_rejected) -gt $rej ]]; echo $?)" \
	"ethtool -S ib0: cm_tx_rejected $rej -> $(ethtool_stat a ib0 cm_tx_rejected)"
na ip neigh del "$B" dev ib0
mode b ib1 connected
na ip neigh flush dev ib0
nb ip neigh flush dev ib1

# --- rmmod under load -----------------------------------------------------------------------
na ping -c 2 -W 5 "$B" >/dev/null 2>&1
ip netns exec a iperf3 -c "$B" -p 5201 -t 60 >"$run/iperf3.load" 2>&1 &
lpid=$!
sleep 5
tap_ok "$([[ $(rc_qps vmlx0) -ge 1 ]]; echo $?)" \
	"connected under iperf3: RC QPs ($(rc_qps vmlx0))"
tap_check "rmmod ib_ipoib under iperf3 (connected)" rmmod ib_ipoib
kill $lpid 2>/dev/null
wait $lpid
tap_is "rdma res: back to before ib_ipoib" "$(rdma res show 2>&1)" \
	"$baseline"

tap_check "modprobe ib_ipoib again" modprobe ib_ipoib
ip link set ib0 netns a && ip link set ib1 netns b &&
	ip -n a link set ib0 type ipoib mode connected &&
	ip -n b link set ib1 type ipoib mode connected &&
	ip -n a link set ib0 up && ip -n a addr add $A/24 dev ib0 &&
	ip -n b link set ib1 up && ip -n b addr add $B/24 dev ib1
tap_ok $? "ib0 and ib1 back, connected"
wait_carrier a ib0 120 && wait_carrier b ib1 60
tap_ok $? "ib0 and ib1: carrier"
ip netns exec a iperf3 -c "$B" -p 5201 -t 60 >"$run/iperf3.load2" 2>&1 &
lpid=$!
sleep 5
tap_ok "$([[ $(rc_qps vmlx0) -ge 1 ]]; echo $?)" \
	"connected under iperf3 again: RC QPs ($(rc_qps vmlx0))"
opensm_stop
tap_check "rmmod vmlx under iperf3 (connected)" rmmod vmlx
kill $lpid 2>/dev/null
wait $lpid
tap_is "rdma res: nothing" "$(rdma res show 2>&1)" ""
tap_check "rmmod ib_ipoib ib_uverbs ib_umad" rmmod ib_ipoib ib_uverbs ib_umad
tap_done
