#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: vmlx's subnet management agents without a subnet manager.
# Without static_lids the ports wait in INIT with LID 0 (sysfs and "rdma
# link" agree); directed-route SubnGet(NodeInfo) through the MAD layer
# reaches this node's SMA (hop count 0) and the emulated switch's SMA (hop
# count 1), which counts what it answered; pulling a link with the knob
# takes both ends DOWN (the switch port too) and bringing it back gives
# INIT, not ACTIVE: a subnet manager must activate the ports again.
# With static_lids=1 the module still plays subnet manager: ACTIVE ports
# with LIDs, the switch's ports ACTIVE, and ACTIVE again after a link
# bounce.  The largest fabric (16 HCAs of 2 ports on a 32-port switch)
# comes up.  The harness fails the run on any kernel warning in dmesg.
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../kmod/vt.sh"

ib=/sys/class/infiniband
fabric=$VT_VMLX/fabric

# sw_port N: "link <up|down> state <n>" of switch port N (debugfs fabric)
sw_port() {
	awk -v n="$1" '$1 == "port" && $2 == n {
		for (i = 3; i < NF; i++)
			if ($i == "link")
				print $i, $(i + 1), $(i + 2), $(i + 3)
	}' "$fabric"
}

# sw_smps: SMPs the switch's SMA answered
sw_smps() {
	awk '$1 == "switch" && $2 == "smps" { print $3 }' "$fabric"
}

# rdma_link DEV: "state S physical_state P" of DEV/1 from rdma link
rdma_link() {
	rdma link show "$1/1" | awk '{
		for (i = 1; i < NF; i++)
			if ($i == "state" || $i == "physical_state")
				printf "%s %s ", $i, $(i + 1)
	}' | sed 's/ $//'
}

tap_check "modprobe vmlx" modprobe vmlx
[[ -r $fabric ]] || tap_bail "no vmlx debugfs"

# --- no SM: INIT, LID 0, everywhere ------------------------------------------------
for d in vmlx0 vmlx1; do
	p=$ib/$d/ports/1
	tap_is "$d: INIT, LinkUp, LID 0, SM LID 0 in sysfs" \
		"$(cat $p/state) $(cat $p/phys_state) $(cat $p/lid) $(cat $p/sm_lid)" \
		"2: INIT 5: LinkUp 0x0 0x0"
	tap_is "$d: cap_mask" "$(cat $p/cap_mask)" 0x02404840
	if command -v rdma >/dev/null; then
		tap_is "$d: rdma link" "$(rdma_link $d)" \
			"state INIT physical_state LINK_UP"
	fi
done
tap_is "switch: no LID yet" \
	"$(awk '$1 == "switch" && $2 == "lid" { print $3 }' $fabric)" 0
tap_is "switch port 1: link up, INIT" "$(sw_port 1)" "link up state 2"
tap_is "switch port 2: link up, INIT" "$(sw_port 2)" "link up state 2"

# --- DR SMPs through the MAD layer -------------------------------------------------
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
smps0=$(sw_smps)
vt_run mad smp
smps1=$(sw_smps)
tap_ok $(( smps1 > smps0 ? 0 : 1 )) \
	"the switch's SMA answered the hop-1 SubnGet ($smps0 -> $smps1)"
tap_is "no SMP discarded by the switch" \
	"$(awk '$1 == "switch" && $2 == "smps" { print $5 }' $fabric)" 0
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test

# --- the link knob -----------------------------------------------------------------
echo 0 >$VT_VMLX/vmlx1/port1/link
p1=$ib/vmlx1/ports/1
tap_is "vmlx1 link pulled: DOWN, Disabled" \
	"$(cat $p1/state) $(cat $p1/phys_state)" "1: DOWN 3: Disabled"
tap_is "its switch port: link down, DOWN" "$(sw_port 2)" "link down state 1"
tap_is "vmlx0 unaffected" "$(cat $ib/vmlx0/ports/1/state)" "2: INIT"
if command -v rdma >/dev/null; then
	tap_is "rdma link of vmlx1: DOWN" "$(rdma_link vmlx1)" \
		"state DOWN physical_state DISABLED"
fi
echo 1 >$VT_VMLX/vmlx1/port1/link
tap_is "link back: INIT, LinkUp (an SM must activate it)" \
	"$(cat $p1/state) $(cat $p1/phys_state)" "2: INIT 5: LinkUp"
tap_is "its switch port: link up, INIT" "$(sw_port 2)" "link up state 2"
tap_check "rmmod vmlx" rmmod vmlx

# --- static_lids: the module plays SM ------------------------------------------------
tap_check "modprobe vmlx static_lids=1" modprobe vmlx static_lids=1
for i in 0 1; do
	p=$ib/vmlx$i/ports/1
	tap_is "vmlx$i: ACTIVE with LID $((i + 1))" \
		"$(cat $p/state) $(cat $p/lid)" "4: ACTIVE 0x$((i + 1))"
	tap_is "switch port $((i + 1)): ACTIVE" "$(sw_port $((i + 1)))" \
		"link up state 4"
done
echo 0 >$VT_VMLX/vmlx0/port1/link
tap_is "static_lids, link pulled: DOWN" \
	"$(cat $ib/vmlx0/ports/1/state)" "1: DOWN"
echo 1 >$VT_VMLX/vmlx0/port1/link
tap_is "static_lids, link back: ACTIVE again, LID kept" \
	"$(cat $ib/vmlx0/ports/1/state) $(cat $ib/vmlx0/ports/1/lid)" \
	"4: ACTIVE 0x1"
tap_is "and its switch port" "$(sw_port 1)" "link up state 4"
tap_check "rmmod vmlx" rmmod vmlx

# --- the largest fabric: 16 HCAs of 2 ports, 32 switch ports ---------------------
tap_check_fails "num_hcas=17 refused" modprobe vmlx num_hcas=17
tap_check "modprobe vmlx num_hcas=16 num_ports=2" \
	modprobe vmlx num_hcas=16 num_ports=2
tap_is "switch with 32 ports" \
	"$(awk '$1 == "switch" && $2 == "lid" { print $5 }' $fabric)" 32
tap_is "switch port 32: vmlx15/2, link up, INIT" \
	"$(awk '$1 == "port" && $2 == 32 { print $3, $4, $5, $7 }' $fabric)" \
	"vmlx15/2 link up 2"
tap_is "vmlx15 port 2: INIT" "$(cat $ib/vmlx15/ports/2/state)" "2: INIT"
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_core" rmmod ib_core
tap_done
