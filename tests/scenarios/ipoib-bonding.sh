#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: Linux's bonding driver (Debian's bonding.ko) over IPoIB, in
# active-backup mode, the one mode it allows for InfiniBand slaves.
# Three HCAs on a fabric Debian's opensm brings up from vmlx2's port:
# bond0 over ib0 (vmlx0) and ib1 (vmlx1) in network namespace a,
# 10.13.1.1; ib2 (vmlx2) in namespace b, 10.13.1.2.
#
#  - Enslaving: bond0 takes the slaves' type (InfiniBand), address length
#    and broadcast address, and the first slave's address; fail_over_mac
#    becomes "active" (IPoIB addresses cannot be set); /proc/net/bonding
#    lists both slaves, their MII status up, ib0 active.
#  - A mode other than active-backup is refused for IPoIB slaves.
#  - ping through bond0; then, under a running ping -i 0.2, the active
#    slave's link is pulled (vmlx debugfs knob): the other slave becomes
#    active, bond0 takes its address, and at least 85% of the pings are
#    answered.  The link comes back, the pulled slave is up again as a
#    backup; the same once more the other way.
#  - The RDMA CM over the bond: an rping server listening on bond0's
#    address is told RDMA_CM_EVENT_ADDR_CHANGE at the first failover (an
#    rping server on ib2, not bonded, is not); a fresh rping across bond0
#    afterwards moves verified data through the new active slave's HCA.
#  - bond0 deleted, bonding, rdma_ucm and ib_ipoib removed: rdma res back
#    to the start; dmesg clean (the harness checks).
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"

ib=/sys/class/infiniband
dbg=/sys/kernel/debug/vmlx
ab_run_dir

A=10.13.1.1
B=10.13.1.2

# bonding FIELD: a line's value from /proc/net/bonding/bond0 in ns a
bonding() {
	na sed -n "s/^$1: //p" /proc/net/bonding/bond0 | head -n 1
}

# slave_status DEV: DEV's "MII Status" in /proc/net/bonding/bond0
slave_status() {
	na awk -v dev="$1" '
		/^Slave Interface:/ { cur = $3 }
		/^MII Status:/ && cur == dev { print $3 }' \
		/proc/net/bonding/bond0
}

# hca_of DEV: the HCA under ns a's DEV, from the sysfs topology
hca_of() {
	na ls "/sys/class/net/$1/device/infiniband"
}

vmlx_start --params "num_hcas=3" ib_umad
baseline=$VMLX_RES_BASELINE
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe bonding max_bonds=0" modprobe bonding max_bonds=0
tap_check "modprobe rdma_ucm" modprobe rdma_ucm
tap_like "bonding is Debian's" "$(modinfo -n bonding)" "/kernel/drivers/net/"

ip netns add a
ip netns add b
for i in 0 1; do
	tap_check "ib$i into netns a" ip link set ib$i netns a
done
tap_check "ib2 into netns b" ip link set ib2 netns b
na ip link set lo up
nb ip link set lo up

# --- opensm from vmlx2, the peer's HCA, so that a's links can be pulled --------------
opensm_start --on vmlx2

# --- bond0 ---------------------------------------------------------------------------------
tap_check "ip link add bond0 type bond mode active-backup miimon 100" \
	na ip link add bond0 type bond mode active-backup miimon 100
for i in 0 1; do
	tap_check "ib$i enslaved to bond0" na ip link set ib$i master bond0
done
tap_check "bond0 up, $A/24" sh -c \
	"ip -n a link set bond0 up && ip -n a addr add $A/24 dev bond0"
tap_check "ib2 up, $B/24" sh -c \
	"ip -n b link set ib2 up && ip -n b addr add $B/24 dev ib2"

wait_carrier a ib0 120
tap_ok $? "ib0: carrier once opensm brought the fabric up"
wait_carrier a ib1 60
tap_ok $? "ib1: carrier"
wait_carrier b ib2 60
tap_ok $? "ib2: carrier"
wait_carrier a bond0 10
tap_ok $? "bond0: carrier"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(tail -n 30 "$OPENSM_LOG")" \
	"$(dmesg | grep -i 'ipoib\|bond' | tail -n 20)"

tap_is "bond0: type 32, like its slaves" "$(na cat /sys/class/net/bond0/type)" 32
tap_is "bond0: 20-byte addresses" \
	"$(na cat /sys/class/net/bond0/addr_len)" 20
tap_is "bond0: the slaves' broadcast address" \
	"$(na cat /sys/class/net/bond0/broadcast)" \
	"$(na cat /sys/class/net/ib0/broadcast)"
tap_is "bond0: the first slave's address" \
	"$(na cat /sys/class/net/bond0/address)" \
	"$(na cat /sys/class/net/ib0/address)"
out=$(na ip -d link show bond0 2>&1)
tap_like "ip -d link: link/infiniband, active-backup" "$out" \
	"link/infiniband .*bond mode active-backup"
tap_is "bonding mode" "$(bonding "Bonding Mode")" \
	"fault-tolerance (active-backup) (fail_over_mac active)"
tap_is "both slaves listed" \
	"$(na sed -n 's/^Slave Interface: //p' /proc/net/bonding/bond0 | xargs)" \
	"ib0 ib1"
tap_is "ib0 MII status up" "$(slave_status ib0)" up
tap_is "ib1 MII status up" "$(slave_status ib1)" up
tap_is "ib0 is the active slave" "$(bonding "Currently Active Slave")" ib0
tap_diag "$(na cat /proc/net/bonding/bond0)"

# only active-backup for InfiniBand slaves
na ip link add bond1 type bond mode balance-rr 2>/dev/null
out=$(na ip link set ib0 nomaster 2>&1 && na ip link set ib0 master bond1 2>&1)
tap_like "balance-rr refuses an IPoIB slave" "$out" \
	"Only active-backup mode is supported for infiniband slaves|Operation not supported"
na ip link del bond1 2>/dev/null
# back into bond0 if it had left
if [[ $(slave_status ib0) != up ]]; then
	na ip link set ib0 master bond0
	for _ in $(seq 30); do
		[[ $(slave_status ib0) == up ]] && break
		sleep 1
	done
fi
tap_is "ib0 a slave of bond0 again" "$(slave_status ib0)" up

out=$(na ping -c 5 -W 5 "$B" 2>&1)
tap_like "ping through bond0" "$out" "5 packets transmitted, 5 received"
tap_diag "$out"

# failover_under_ping: pull the active slave's link under a ping of 100
# packets, check the other takes over and the ping hardly notices, put
# the link back
failover_under_ping() {
	local act other hca got
	act=$(bonding "Currently Active Slave")
	[[ $act == ib0 ]] && other=ib1 || other=ib0
	hca=$(hca_of "$act")
	tap_like "$act is on an HCA ($hca)" "$hca" "^vmlx[01]$"
	ip netns exec a ping -c 100 -i 0.2 -W 2 "$B" >"$run/ping" 2>&1 &
	local ppid=$!
	sleep 5
	echo 0 >"$dbg/$hca/port1/link"
	for _ in $(seq 50); do
		[[ $(bonding "Currently Active Slave") == "$other" ]] && break
		sleep 0.2
	done
	tap_is "$hca's link pulled: $other is the active slave" \
		"$(bonding "Currently Active Slave")" "$other"
	tap_is "$act: MII status down" "$(slave_status "$act")" down
	tap_is "bond0 took $other's address" \
		"$(na cat /sys/class/net/bond0/address)" \
		"$(na cat /sys/class/net/$other/address)"
	tap_is "bond0 kept its carrier" "$(carrier a bond0)" 1
	wait $ppid
	got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$run/ping")
	tap_ok "$([[ ${got:-0} -ge 85 ]]; echo $?)" \
		"ping -i 0.2 across the failover: ${got:-0} of 100 answered"
	tap_diag "$(tail -n 2 "$run/ping")"
	echo 1 >"$dbg/$hca/port1/link"
	wait_carrier a "$act" 120
	tap_ok $? "$hca's link back: $act has its carrier again"
	for _ in $(seq 30); do
		[[ $(slave_status "$act") == up ]] && break
		sleep 0.5
	done
	tap_is "$act: MII status up again" "$(slave_status "$act")" up
	tap_is "$other stays active" "$(bonding "Currently Active Slave")" \
		"$other"
	out=$(na ping -c 3 -W 5 "$B" 2>&1)
	tap_like "ping after the link came back" "$out" \
		"3 packets transmitted, 3 received"
}
# rping servers (debug output, line-buffered) on bond0's address in a and
# on ib2's in b, waiting for a client through the first failover
rping_listen() {	# rping_listen NS ADDR OUT
	ip netns exec "$1" stdbuf -oL timeout 120 rping -s -d -a "$2" -C 10 \
		>"$3" 2>&1 &
}
rping_listen a "$A" "$run/rping-bond"
rpa=$!
rping_listen b "$B" "$run/rping-ib2"
rpb=$!
wait_cm_ids 2
tap_is "two rping servers listening (bond0, ib2)" "$(cm_ids)" 2
failover_under_ping
for _ in $(seq 20); do
	grep -q ADDR_CHANGE "$run/rping-bond" && break
	sleep 0.5
done
tap_like "failover: the rping server on bond0 got ADDR_CHANGE" \
	"$(cat "$run/rping-bond")" \
	"unhandled event: RDMA_CM_EVENT_ADDR_CHANGE, ignoring"
tap_ok "$(! grep -q ADDR_CHANGE "$run/rping-ib2"; echo $?)" \
	"the rping server on ib2 did not"
kill "$rpa" "$rpb" 2>/dev/null
wait "$rpa" "$rpb" 2>/dev/null
wait_cm_ids 0
tap_is "the rping servers' ids are gone" "$(cm_ids)" 0
# a new server on bond0 binds to the device of its new active slave
act=$(bonding "Currently Active Slave")
na timeout 60 rping -s -a "$A" -V -C 100 -S 4096 >"$run/rping-s2" 2>&1 &
rpa=$!
wait_cm_ids 1
tap_like "a new rping server on bond0 listens on $act's HCA" \
	"$(rdma res show cm_id 2>&1)" \
	"link $(hca_of "$act")/1 .*state LISTEN .*comm rping src-addr $A:"
out=$(nb timeout 60 rping -c -a "$A" -V -C 100 -S 4096 2>&1)
tap_is "rping -c -V -C 100 across bond0 after the failover: exit 0" "$?" 0
wait "$rpa"
tap_is "its server: exit 0" "$?" 0
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out" "$(cat "$run/rping-s2")"
failover_under_ping

# --- teardown ---------------------------------------------------------------------------------
opensm_stop
tap_check "bond0 deleted" na ip link del bond0
tap_is "ib0 released, type still 32" "$(na cat /sys/class/net/ib0/type)" 32
tap_check "rmmod bonding" rmmod bonding
tap_check "rmmod rdma_ucm rdma_cm" rmmod rdma_ucm rdma_cm
ip netns del a
ip netns del b
tap_check "rmmod ib_ipoib" rmmod ib_ipoib
tap_is "rdma res back to the start" "$(rdma res show 2>&1)" "$baseline"
tap_check "rmmod ib_umad vmlx" rmmod ib_umad vmlx
tap_done
