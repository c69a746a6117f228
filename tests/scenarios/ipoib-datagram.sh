#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: IPoIB in datagram mode between two HCAs on a fabric that
# Debian's unmodified opensm brings up.  ib0 (vmlx0) and ib1 (vmlx1) are
# moved into the network namespaces "a" and "b", 10.13.0.1 and 10.13.0.2;
# a third HCA, vmlx2, stays outside partition 0x8001.
#
#  - ib_ipoib makes one interface per port: ARPHRD_INFINIBAND (type 32),
#    ip -d link shows link/infiniband, the address (flags 00, the UD QP's
#    number, the port's GID) and the broadcast address of the default
#    partition, ipoib pkey 0xffff mode datagram; the sysfs files pkey,
#    mode, umcast and their refusals; ethtool -i, -S, -g, -k.
#  - No carrier before opensm runs (the ports are INIT); carrier once
#    the broadcast group is joined, and the MTU that group allows, 2044.
#  - ping (100 packets, and -s 60000 in fragments), ping -6 to a global
#    address and to the link-local address, arping, ip neigh with the
#    20-byte address, iperf3 TCP both ways (-P 4) and UDP, a file through
#    socat with the same sha256.
#  - tshark -i ib0 (Linux cooked mode, as for Linux's IPoIB) decodes ARP,
#    IPv4 and IPv6 from an InfiniBand interface without a malformed
#    packet; what the interface's packet sockets see, link layer and all,
#    decodes as "IP over Infiniband" (ipoib_capture.py, LINKTYPE_IPOIB).
#  - IP multicast: a sender in a joins 239.1.1.1's group to send only, the
#    switch's MFT (ibroute -M) gets ib1's port, a receiver in b gets the
#    five datagrams sent then, and saquery -m shows ib1's port in the
#    group while the socket is open, not after.
#  - Children in partition 0x8001 (opensm's partitions.conf): one by
#    create_child, one by ip link add, the refusals of both ways, umcast
#    through ip link set; the children ping each other; vmlx2, left out
#    of the partition, gets no carrier on its child and reaches neither;
#    delete_child and ip link del remove them, and not a parent.
#  - Malformed frames from the fabric (ipoib_inject.py, a UD QP of its own
#    on vmlx1): each dropped and counted by cause in ethtool -S and in
#    rx_dropped; ping still works.
#  - Port events: a pulled link takes the carrier away and gives it back
#    with the port; opensm killed and another started under ping (client
#    reregister: groups joined again, paths asked for again) costs a few
#    answers at most.
#  - rmmod ib_ipoib under iperf3: the interfaces go, rdma res is back to
#    what it was before ib_ipoib; ib_ipoib again, and rmmod vmlx under
#    iperf3 (the HCAs go): nothing left; dmesg clean (the harness checks).
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
BCAST=00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff

# mc_member MGID GID: 0 if saquery -m shows GID as a member of MGID
# (either in any IPv6 notation); opensm shows members' GIDs only to a
# query with its SM_Key (1 unless configured)
mc_member() {
	saquery --smkey 1 -m 2>/dev/null | python3 -c '
import ipaddress, re, sys
mgid, gid = (ipaddress.ip_address(a) for a in sys.argv[1:3])
group = None
for line in sys.stdin:
    m = re.match(r"\s*(MGID|PortGid)\.+(\S+)", line)
    if not m:
        continue
    try:
        v = ipaddress.ip_address(m.group(2))
    except ValueError:
        continue
    if m.group(1) == "MGID":
        group = v
    elif group == mgid and v == gid:
        sys.exit(0)
sys.exit(1)' "$1" "$2"
}

# mc_forwarded MGID PORT: 0 if the switch (LID $swlid) forwards MGID's
# MLID, as saquery -m gives it, out of its port PORT (ibroute -M: an "x"
# under the port's number)
mc_forwarded() {
	local mlid
	mlid=$(saquery --smkey 1 -m 2>/dev/null | python3 -c '
import ipaddress, re, sys
mgid = ipaddress.ip_address(sys.argv[1])
group = None
for line in sys.stdin:
    m = re.match(r"\s*(MGID|Mlid)\.+(\S+)", line)
    if not m:
        continue
    if m.group(1) == "MGID":
        group = ipaddress.ip_address(m.group(2))
    elif group == mgid:
        print(int(m.group(2), 16))
        break' "$1")
	[[ -n $mlid ]] || return 1
	mft_has "$swlid" "$mlid" "$2"
}

vmlx_start --params "num_hcas=3" ib_umad ib_uverbs
baseline=$VMLX_RES_BASELINE
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
# the joins and leaves in dmesg, for the diagnostics of a failure
echo "module ib_ipoib +p" >/sys/kernel/debug/dynamic_debug/control
tap_is "ib_ipoib is ours" "$(modinfo -n ib_ipoib)" \
	"/lib/modules/$(uname -r)/updates/ulp/ipoib/ib_ipoib.ko"

# --- the interfaces, before any SM ---------------------------------------------------
for i in 0 1; do
	d=/sys/class/net/ib$i
	tap_ok "$([[ -d $d ]]; echo $?)" "ib$i exists"
	tap_is "ib$i: type 32 (ARPHRD_INFINIBAND)" "$(cat $d/type)" 32
	tap_is "ib$i: 20-byte address" "$(cat $d/addr_len)" 20
	tap_is "ib$i: broadcast address" "$(cat $d/broadcast)" "$BCAST"
	addr=$(cat $d/address)
	tap_like "ib$i: address is flags 00, a QPN, vmlx$i's GID" "$addr" \
		"^00:[0-9a-f]{2}:[0-9a-f]{2}:[0-9a-f]{2}:$(gid_hex vmlx$i)$"
	tap_is "ib$i: pkey" "$(cat $d/pkey)" 0xffff
	tap_is "ib$i: mode" "$(cat $d/mode)" datagram
	tap_is "ib$i: umcast" "$(cat $d/umcast)" 0
	tap_is "ib$i: dev_port" "$(cat $d/dev_port)" 0
done

out=$(ethtool -i ib0 2>&1)
tap_like "ethtool -i ib0: driver ib_ipoib" "$out" "driver: ib_ipoib"
tap_like "ethtool -i ib0: the HCA as bus" "$out" "bus-info: vmlx0"
out=$(ethtool -g ib0 2>&1)
tap_like "ethtool -g ib0: 256 receive buffers, 128 sends" "$out" \
	"Current hardware settings:"$'\n'"RX:[[:space:]]+256"$'\n'".*TX:[[:space:]]+128"
tap_check "ethtool -k ib0" ethtool -k ib0
tap_like "ethtool -S ib0: the drop counters" "$(ethtool -S ib0 2>&1)" \
	"rx_short: 0"$'\n'".*rx_bad_proto: 0"

# sysfs refusals (and one accepted write each)
d=/sys/class/net/ib0
tap_check "umcast: 1 taken" sh -c "echo 1 >$d/umcast"
tap_is "umcast: reads 1" "$(cat $d/umcast)" 1
tap_check "umcast: 0 taken" sh -c "echo 0 >$d/umcast"
tap_check_fails "umcast: 2 refused" sh -c "echo 2 >$d/umcast"
tap_check_fails "umcast: garbage refused" sh -c "echo yes >$d/umcast"
tap_check "mode: datagram taken" sh -c "echo datagram >$d/mode"
tap_check_fails "mode: garbage refused" sh -c "echo fast >$d/mode"
# connected mode itself is ipoib-connected.sh's: here only there and back
tap_check "mode: connected taken, then datagram again" \
	sh -c "echo connected >$d/mode && echo datagram >$d/mode"
tap_is "mode: datagram again" "$(cat $d/mode)" datagram
tap_check_fails "pkey is read-only" sh -c "echo 0x8001 >$d/pkey"
for bad in 0 0x8000 0x10000 -1 garbage; do
	tap_check_fails "create_child $bad refused" \
		sh -c "echo $bad >$d/create_child"
done
tap_check_fails "delete_child of no child refused" \
	sh -c "echo 0x8001 >$d/delete_child"

# --- namespaces, addresses, no carrier yet --------------------------------------------
ip netns add a
ip netns add b
tap_check "ib0 into netns a" ip link set ib0 netns a
tap_check "ib1 into netns b" ip link set ib1 netns b
na ip link set lo up
nb ip link set lo up
tap_check "ib0 up, $A/24" sh -c \
	"ip -n a link set ib0 up && ip -n a addr add $A/24 dev ib0"
tap_check "ib1 up, $B/24" sh -c \
	"ip -n b link set ib1 up && ip -n b addr add $B/24 dev ib1"
sleep 2
out=$(ip -n a -d link show ib0 2>&1)
tap_like "ip -d link: link/infiniband, the address, the broadcast" "$out" \
	"link/infiniband $(na cat /sys/class/net/ib0/address) brd $BCAST"
tap_like "ip -d link: ipoib pkey 0xffff mode datagram" "$out" \
	"ipoib pkey  ?0xffff mode  ?datagram umcast  ?0"
tap_like "ib0: NO-CARRIER before opensm" "$out" "NO-CARRIER"
tap_is "ib0: carrier 0 before opensm" "$(carrier a ib0)" 0
tap_is "ib1: carrier 0 before opensm" "$(carrier b ib1)" 0
tap_check_fails "no ping without a subnet manager" \
	na ping -c 1 -W 2 "$B"

# --- opensm: carrier, MTU -----------------------------------------------------------------
# the default partition, and 0x8001 for the children
# (vmlx2 is left out of it: the port outside the partition)
opensm_start --partitions "Default=0x7fff, ipoib, defmember=full : ALL=full ;
P1=0x8001, ipoib : 0x$(port_guid vmlx0)=full, 0x$(port_guid vmlx1)=full ;"
wait_carrier a ib0 120
tap_ok $? "ib0: carrier once opensm joined it to the broadcast group"
wait_carrier b ib1 60
tap_ok $? "ib1: carrier"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(tail -n 30 "$OPENSM_LOG")" \
	"$(dmesg | grep -i ipoib | tail -n 20)"
tap_is "ib0: MTU 2044 (the broadcast group's 2048 less 4)" \
	"$(na cat /sys/class/net/ib0/mtu)" 2044
tap_is "ib1: MTU 2044" "$(nb cat /sys/class/net/ib1/mtu)" 2044
qpn=$(na cut -d: -f2-4 /sys/class/net/ib0/address | tr -d :)
out=$(rdma res show qp 2>&1)
tap_like "rdma res: ib0's QPN $((16#$qpn)) is a UD QP on vmlx0 port 1" \
	"$out" "link vmlx0/1 lqpn $((16#$qpn)) [^"$'\n'"]*type UD"
out=$(saquery -g 2>&1)
tap_like "saquery -g: the broadcast group, Q_Key 0x0b1b" "$out" \
	"MGID.*ff12:401b:ffff::ffff:ffff"

# --- IPv4, ARP, IPv6 ----------------------------------------------------------------------
out=$(na ping -c 100 -i 0.05 -W 5 "$B" 2>&1)
tap_like "ping -c 100: no loss" "$out" "100 packets transmitted, 100 received"
out=$(nb ping -c 5 -W 5 "$A" 2>&1)
tap_like "ping back from b" "$out" "5 packets transmitted, 5 received"
out=$(na ping -c 5 -s 60000 -W 10 "$B" 2>&1)
tap_like "ping -s 60000: fragments" "$out" \
	"5 packets transmitted, 5 received"
out=$(na ip neigh show "$B" dev ib0 2>&1)
tap_like "ip neigh: ib1's 20-byte address" "$out" \
	"lladdr $(nb cat /sys/class/net/ib1/address) "
out=$(na arping -c 3 -w 10 -I ib0 "$B" 2>&1)
tap_like "arping: 3 responses" "$out" "Received 3 response"
for _ in $(seq 20); do
	ll=$(ip -n b -6 -o addr show dev ib1 scope link -tentative |
		awk '{print $4}' | cut -d/ -f1)
	[[ -n $ll ]] && break
	sleep 1
done
tap_like "ib1: an IPv6 link-local address from its GUID" "$ll" "^fe80::"
out=$(na ping -6 -c 5 -W 5 "$ll%ib0" 2>&1)
tap_like "ping -6 link-local" "$out" "5 packets transmitted, 5 received"
na ip addr add fd13::1/64 dev ib0 nodad
nb ip addr add fd13::2/64 dev ib1 nodad
out=$(na ping -6 -c 5 -W 5 fd13::2 2>&1)
tap_like "ping -6 fd13::2 (global)" "$out" "5 packets transmitted, 5 received"

# --- TCP and UDP ----------------------------------------------------------------------------
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

# --- tshark ---------------------------------------------------------------------------------
# Debian's libpcap captures ARPHRD_INFINIBAND in Linux cooked mode (as it
# does Linux's own IPoIB); ipoib_capture.py keeps the link layer and
# writes LINKTYPE_IPOIB, which tshark decodes as IP over Infiniband.
na ip neigh flush dev ib0
# job control: tshark and its dumpcap must not inherit an ignored SIGINT
set -m
ip netns exec a tshark -q -i ib0 -w "$run/cap.pcapng" >"$run/tshark.out" 2>&1 &
tpid=$!
set +m
# tshark takes a while to start under emulation
for _ in $(seq 120); do
	grep -q "Capture started" "$run/tshark.out" && break
	sleep 1
done
ip netns exec a python3 "$here/ipoib_capture.py" ib0 15 "$run/ipoib.pcap" \
	>"$run/capture.out" 2>&1 &
cpid=$!
# python starts slowly under emulation: wait until its socket is bound
for _ in $(seq 60); do
	grep -q "^# capturing" "$run/capture.out" && break
	sleep 1
done
na arping -c 2 -w 5 -I ib0 "$B" >/dev/null 2>&1
na ping -c 2 -W 5 "$B" >/dev/null 2>&1
na ping -6 -c 2 -W 5 "$ll%ib0" >/dev/null 2>&1
sleep 1
kill -INT $tpid
for _ in $(seq 60); do
	kill -0 $tpid 2>/dev/null || break
	sleep 1
done
kill -KILL $tpid 2>/dev/null
wait $tpid
wait $cpid
tap_diag "tshark:" "$(cat "$run/tshark.out")" "$(cat "$run/capture.out")"

# tshark_count FILE FILTER: frames of FILE that FILTER matches (a
# message instead of a number if tshark refuses the filter)
tshark_count() {
	local out
	out=$(tshark -r "$1" -Y "$2" 2>&1 >/dev/null) || {
		echo "tshark: $out"
		return
	}
	tshark -r "$1" -Y "$2" 2>/dev/null | grep -c .
}
protos=$(tshark -r "$run/cap.pcapng" -T fields -e frame.protocols \
	2>/dev/null | sort -u)
tap_diag "tshark -i ib0, protocols seen:" "$protos"
tap_like "tshark -i ib0: ARP" "$protos" "sll:ethertype:arp"
tap_like "tshark -i ib0: IPv4" "$protos" "sll:ethertype:ip:icmp"
tap_like "tshark -i ib0: IPv6" "$protos" "sll:ethertype:ipv6:icmpv6"
total=$(tshark_count "$run/cap.pcapng" frame)
tap_is "tshark -i ib0: every frame from an InfiniBand interface (32)" \
	"$(tshark_count "$run/cap.pcapng" 'sll.hatype == 32')" "$total"
tap_ok "$([[ $(tshark_count "$run/cap.pcapng" \
	'arp.hw.type == 32 && arp.hw.size == 20') -ge 2 ]]; echo $?)" \
	"tshark -i ib0: ARP of hardware type 32, 20-byte addresses"
tap_is "tshark -i ib0: no malformed packet" "$(tshark_count \
	"$run/cap.pcapng" '_ws.malformed || _ws.expert.severity >= error')" 0

protos=$(tshark -r "$run/ipoib.pcap" -T fields -e frame.protocols \
	2>/dev/null | sort -u)
tap_diag "LINKTYPE_IPOIB capture, protocols seen:" "$protos"
tap_like "IP over Infiniband: ARP" "$protos" "ipoib:arp"
tap_like "IP over Infiniband: IPv4" "$protos" "ipoib:ip:icmp"
tap_like "IP over Infiniband: IPv6" "$protos" "ipoib:ipv6:icmpv6"
tap_is "IP over Infiniband: the reserved field is zero" \
	"$(tshark_count "$run/ipoib.pcap" 'ipoib.reserved != 0')" 0
qpn1=0x$(nb cut -d: -f2-4 /sys/class/net/ib1/address | tr -d :)
tap_is "IP over Infiniband: echo requests to ib1's QPN $qpn1" \
	"$(tshark_count "$run/ipoib.pcap" \
		"ipoib.daddr.qpn == $qpn1 && icmp.type == 8")" 2
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(tshark -r "$run/ipoib.pcap" -T fields \
	-e ipoib.daddr.qpn -e ipoib.type -e ip.dst -e icmp.type 2>&1)"
tap_is "IP over Infiniband: no malformed packet" "$(tshark_count \
	"$run/ipoib.pcap" '_ws.malformed || _ws.expert.severity >= error')" 0

# --- IP multicast ---------------------------------------------------------------------------
MC=239.1.1.1
MGID=ff12:401b:ffff::f01:101
gid1=$(cat "$ib/vmlx1/ports/1/gids/0")
na ip route add 224.0.0.0/4 dev ib0
ip netns exec b socat -u "UDP4-RECV:5400,ip-add-membership=$MC:ib1" \
	"OPEN:$run/mc.out,creat,trunc" &
mpid=$!
# the join: IGMP, the device's multicast list, the SA
for _ in $(seq 30); do
	mc_member "$MGID" "$gid1" && break
	sleep 1
done
mc_member "$MGID" "$gid1"
tap_ok $? "saquery -m: ib1's port is a member of $MGID"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(saquery --smkey 1 -m 2>&1 | tail -n 40)"
# The sender's first datagram starts its send-only join and waits for
# it.  opensm answers the join before it routes the group (a group of
# one member has no tree; the second makes one), so that datagram may
# reach the switch before its MFT has the receiver's port: on any IB
# fabric, IP multicast to a new group may lose its first datagrams.
# The five counted ones are sent once the switch forwards the group.
swlid=$(switch_lid)
rport=$(switch_port vmlx1)
echo "first" | na socat -u - "UDP4-SENDTO:$MC:5400"
for _ in $(seq 30); do
	mc_forwarded "$MGID" "$rport" && break
	sleep 1
done
mc_forwarded "$MGID" "$rport"
tap_ok $? "the switch forwards $MGID to ib1's port $rport once a sender joined"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(ibroute -M "$swlid" 2>&1)"
for i in 1 2 3 4 5; do
	echo "datagram $i" | na socat -u - "UDP4-SENDTO:$MC:5400"
	sleep 0.2
done
sleep 2
kill $mpid 2>/dev/null
wait $mpid 2>/dev/null
tap_is "the receiver got the 5 datagrams sent to $MC" \
	"$(grep -c '^datagram [1-5]$' "$run/mc.out")" 5
tap_diag "the first datagram, sent while the group was made: $(grep -c '^first$' "$run/mc.out") of 1 arrived"
for _ in $(seq 30); do
	mc_member "$MGID" "$gid1" || break
	sleep 1
done
! mc_member "$MGID" "$gid1"
tap_ok $? "saquery -m: ib1's port left $MGID when the socket closed"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(nb ip maddr show dev ib1)" \
	"$(dmesg | grep -E 'ib1: (join|leav)' | tail -n 20)" \
	"$(grep -iE 'mcmember|1B[0-9A-F]{2}' "$OPENSM_LOG" | tail -n 20)"

# --- P_Key children -------------------------------------------------------------------------
C=10.14.0
tap_check "create_child 0x8001 on ib0" \
	na sh -c "echo 0x8001 >/sys/class/net/ib0/create_child"
tap_check_fails "create_child 0x8001 again: refused" \
	na sh -c "echo 0x8001 >/sys/class/net/ib0/create_child"
out=$(na bash -c "echo 0x0001 >/sys/class/net/ib0/create_child" 2>&1)
tap_like "create_child 0x0001 (the same partition): refused" "$out" \
	"Name not unique"
tap_is "ib0.8001 lives in ib0's namespace, P_Key 0x8001" \
	"$(na cat /sys/class/net/ib0.8001/pkey)" 0x8001
tap_check_fails "no child of a child" \
	na sh -c "echo 0x8002 >/sys/class/net/ib0.8001/create_child"
tap_check "ip link add ib1.8001 type ipoib pkey 0x8001" \
	ip -n b link add link ib1 name ib1.8001 type ipoib pkey 0x8001
tap_check_fails "ip link add: no child of a child" \
	ip -n b link add link ib1.8001 name ib1.x type ipoib pkey 0x8002
tap_check_fails "ip link add: P_Key 0x8000 refused" \
	ip -n b link add link ib1 name ib1.x type ipoib pkey 0x8000
tap_check "ip link set ib1 type ipoib umcast 1" \
	ip -n b link set ib1 type ipoib umcast 1
tap_is "umcast reads 1" "$(nb cat /sys/class/net/ib1/umcast)" 1
ip -n b link set ib1 type ipoib umcast 0
out=$(ip -n b -d link show ib1.8001 2>&1)
tap_like "ip -d link: ib1.8001@ib1, ipoib pkey 0x8001" "$out" \
	"ib1.8001@ib1: .*ipoib pkey  ?0x8001 mode  ?datagram"
tap_like "ib1.8001: the partition's broadcast address" "$out" \
	"brd 00:ff:ff:ff:ff:12:40:1b:80:01:00:00:00:00:00:00:ff:ff:ff:ff"
na ip link set ib0.8001 up && na ip addr add $C.1/24 dev ib0.8001 &&
	nb ip link set ib1.8001 up && nb ip addr add $C.2/24 dev ib1.8001
wait_carrier a ib0.8001 60 && wait_carrier b ib1.8001 60
tap_ok $? "ib0.8001 and ib1.8001: carrier (partition 0x8001 joined)"
out=$(na ping -c 5 -W 5 $C.2 2>&1)
tap_like "ping across partition 0x8001" "$out" \
	"5 packets transmitted, 5 received"
# vmlx2 is not in partition 0x8001: its child never gets a carrier
# and cannot reach the partition's members
tap_check "ip link add ib2.8001 on vmlx2, outside the partition" \
	ip link add link ib2 name ib2.8001 type ipoib pkey 0x8001
ip link set ib2.8001 up && ip addr add $C.3/24 dev ib2.8001
sleep 5
tap_is "ib2.8001: no carrier (0x8001 is not in vmlx2's P_Key table)" \
	"$(cat /sys/class/net/ib2.8001/carrier)" 0
tap_check_fails "ib2.8001 cannot reach ib1.8001" ping -c 3 -W 2 $C.2
out=$(na ping -c 3 -W 2 $C.3 2>&1)
tap_like "ib0.8001 cannot reach ib2.8001" "$out" " 0 received"
tap_check "ip link del ib2.8001" ip link del ib2.8001
tap_check "delete_child 0x8001" \
	na sh -c "echo 0x8001 >/sys/class/net/ib0/delete_child"
tap_check_fails "ib0.8001 is gone" na ip link show ib0.8001
tap_check "ip link del ib1.8001" ip -n b link del ib1.8001
tap_check "ip link del ib1 leaves the parent" ip -n b link del ib1
tap_check "ib1 is still there" ip -n b link show ib1

# --- malformed frames from the fabric -------------------------------------------------------
qkey=$(saquery -g 2>/dev/null | grep -A4 'ff12:401b:ffff::ffff:ffff' |
	sed -n 's/.*Qkey\.*//p' | head -n1)
[[ -n $qkey ]] || qkey=0x0b1b
lid0=$(cat "$ib/vmlx0/ports/1/lid")
qpn0=0x$(na cut -d: -f2-4 /sys/class/net/ib0/address | tr -d :)
declare -A before
for c in rx_short rx_bad_proto rx_bad_arp rx_dropped; do
	before[$c]=$(ethtool_stat a ib0 $c)
done
tap_checker --prefix "inject: " "ipoib_inject.py: 5 frames sent" \
	python3 "$here/ipoib_inject.py" vmlx1 "$lid0" "$qpn0" "$qkey"
sleep 1
tap_is "rx_short: 2 more (half a header, a cut ARP)" \
	"$(($(ethtool_stat a ib0 rx_short) - before[rx_short]))" 2
tap_is "rx_bad_proto: 1 more (EtherType 0x1234)" \
	"$(($(ethtool_stat a ib0 rx_bad_proto) - before[rx_bad_proto]))" 1
tap_is "rx_bad_arp: 2 more (Ethernet ARP, another QPN)" \
	"$(($(ethtool_stat a ib0 rx_bad_arp) - before[rx_bad_arp]))" 2
tap_is "rx_dropped: 5 more" \
	"$(($(ethtool_stat a ib0 rx_dropped) - before[rx_dropped]))" 5
out=$(na ping -c 3 -W 5 "$B" 2>&1)
tap_like "ping after the malformed frames" "$out" \
	"3 packets transmitted, 3 received"

# --- port events ------------------------------------------------------------------------------
dbg=/sys/kernel/debug/vmlx
echo 0 >"$dbg/vmlx1/port1/link"
for _ in $(seq 30); do
	[[ $(carrier b ib1) == 0 ]] && break
	sleep 1
done
tap_is "link pulled: ib1 loses its carrier" "$(carrier b ib1)" 0
tap_check_fails "link pulled: no ping" na ping -c 2 -W 2 "$B"
echo 1 >"$dbg/vmlx1/port1/link"
wait_carrier b ib1 120
tap_ok $? "link back: ib1 has its carrier again (PORT_ACTIVE, rejoin)"
out=$(na ping -c 3 -W 5 "$B" 2>&1)
tap_like "link back: ping" "$out" "3 packets transmitted, 3 received"

# opensm goes away and a new one takes over (client reregister)
ip netns exec a ping -c 150 -i 0.2 -W 2 "$B" >"$run/ping.sm" 2>&1 &
ppid=$!
sleep 5
opensm_stop
sleep 3
opensm_start
wait $ppid
got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$run/ping.sm")
tap_ok "$([[ ${got:-0} -ge 135 ]]; echo $?)" \
	"opensm restarted under ping: ${got:-0} of 150 answered"
tap_diag "$(tail -n 2 "$run/ping.sm")"
grep -q "SUBNET UP" "$OPENSM_LOG" ||
	tap_diag "the new opensm's log:" "$(tail -n 20 "$OPENSM_LOG")"
out=$(na ping -c 3 -W 5 "$B" 2>&1)
tap_like "after the new opensm: ping" "$out" "3 packets transmitted, 3 received"
out=$(na ping -6 -c 3 -W 5 "$ll%ib0" 2>&1)
tap_like "after the new opensm: ping -6" "$out" \
	"3 packets transmitted, 3 received"

# --- rmmod under load -----------------------------------------------------------------------
ip netns exec a iperf3 -c "$B" -p 5201 -t 60 >"$run/iperf3.load" 2>&1 &
lpid=$!
sleep 5
tap_check "rmmod ib_ipoib under iperf3" rmmod ib_ipoib
# the client's connection is gone with the interface
kill $lpid 2>/dev/null
wait $lpid
tap_ok "$([[ ! -e /sys/class/net/ib0 ]] && ! na ip link show ib0 \
	>/dev/null 2>&1; echo $?)" "ib0 is gone"
tap_is "rdma res: back to before ib_ipoib" "$(rdma res show 2>&1)" \
	"$baseline"

# and the HCAs going away under load (the client's remove)
tap_check "modprobe ib_ipoib again" modprobe ib_ipoib
ip link set ib0 netns a && ip link set ib1 netns b &&
	ip -n a link set ib0 up && ip -n a addr add $A/24 dev ib0 &&
	ip -n b link set ib1 up && ip -n b addr add $B/24 dev ib1
tap_ok $? "ib0 and ib1 back in their namespaces"
wait_carrier a ib0 120 && wait_carrier b ib1 60
tap_ok $? "ib0 and ib1: carrier"
ip netns exec a iperf3 -c "$B" -p 5201 -t 60 >"$run/iperf3.load2" 2>&1 &
lpid=$!
sleep 5
opensm_stop
tap_check "rmmod vmlx under iperf3" rmmod vmlx
kill $lpid 2>/dev/null
wait $lpid
tap_ok "$(! na ip link show ib0 >/dev/null 2>&1 &&
	! nb ip link show ib1 >/dev/null 2>&1; echo $?)" \
	"ib0 and ib1 went with their HCAs"
tap_is "rdma res: nothing" "$(rdma res show 2>&1)" ""
tap_check "rmmod ib_ipoib ib_uverbs ib_umad" rmmod ib_ipoib ib_uverbs ib_umad
tap_done
