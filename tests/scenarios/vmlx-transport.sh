#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: kernel consumers move data over the emulated InfiniBand
# fabric.  vmlx0 and vmlx1 (LIDs 1 and 2, static_lids=1) behind the
# emulated switch; the ib_verbs_test client (tests/kmod) checks every
# operation of RC, UC and UD byte for byte, multicast, SRQ and fast
# registration, each error status, delivery under injected loss and
# corruption (with the vmlx counters showing the faults), a 10,000-round
# create/destroy loop that leaves no object behind, and "rmmod vmlx"
# while traffic runs.  One TAP test point per check; the harness fails the
# run on any kernel warning in dmesg.  Two guest CPUs, so that QPs really
# run in parallel and the per-QP serialisation is put to the test.
#
# vm-run-options: --smp 2
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../vm/vmlx.sh"
. "$(dirname "$0")/../kmod/vt.sh"

ib=/sys/class/infiniband

vmlx_start ib_verbs_test
tap_is "ib_verbs_test got both devices" "$(vt_devices)" \
	"vmlx0 vmlx1"
tap_is "vmlx0 port 1 ACTIVE, LID 1" "$(vt_port_state vmlx0)" "ACTIVE 1"
tap_is "vmlx1 port 1 ACTIVE, LID 2" "$(vt_port_state vmlx1)" "ACTIVE 2"
# What every device has before any test: the MAD layer's QP0 and QP1 of
# its port, with their CQ and PD.
mad="qp 2 mr 0 cq 1 pd 1 srq 0 ah 0"
tap_is "vmlx0 objects: only the MAD layer's" "$(vt_objects vmlx0)" "$mad"
tap_is "vmlx1 objects: only the MAD layer's" "$(vt_objects vmlx1)" "$mad"
tap_check_fails "an unknown command is refused (EINVAL)" \
	sh -c "echo 'no such command' > $VT_DIR/run"

# --- every operation --------------------------------------------------------
pkts0=$(vt_counter vmlx0 xmit_packets)
vt_run ops rc
vt_run ops atomic uc ud mcast srq frmr
tap_ok $(( $(vt_counter vmlx0 xmit_packets) > pkts0 ? 0 : 1 )) \
	"vmlx0 xmit_packets counted the traffic ($pkts0 -> $(vt_counter vmlx0 xmit_packets))"
tap_is "no packet dropped or damaged without faults" \
	"$(vt_counter vmlx0 rcv_errors) $(vt_counter vmlx1 rcv_errors) $(vt_counter vmlx0 injected_drops)" \
	"0 0 0"

# --- each error status ------------------------------------------------------
vt_run errors

# --- injected packet loss ---------------------------------------------------
drops0=$(vt_counter vmlx0 injected_drops)
drops1=$(vt_counter vmlx1 injected_drops)
disc0=$(vt_counter vmlx0 xmit_discards)
vt_knob vmlx0 drop_ppm 100000
vt_knob vmlx1 drop_ppm 100000
tap_is "drop_ppm set to 10% on both ports" \
	"$(<"$VT_VMLX/vmlx0/port1/drop_ppm") $(<"$VT_VMLX/vmlx1/port1/drop_ppm")" \
	"100000 100000"
vt_run loss rc n=1000
vt_run loss uc ud n=1000 lossy
vt_knob vmlx0 drop_ppm 0
vt_knob vmlx1 drop_ppm 0
drops0b=$(vt_counter vmlx0 injected_drops)
drops1b=$(vt_counter vmlx1 injected_drops)
tap_ok $(( drops0b > drops0 && drops1b > drops1 ? 0 : 1 )) \
	"injected_drops counted on both ports (vmlx0 $drops0 -> $drops0b, vmlx1 $drops1 -> $drops1b)"
tap_ok $(( $(vt_counter vmlx0 xmit_discards) - disc0 >= drops0b - drops0 ? 0 : 1 )) \
	"xmit_discards of vmlx0 include the injected drops"
tap_check_fails "drop_ppm above 1000000 refused" \
	sh -c "echo 1000001 > $VT_VMLX/vmlx0/port1/drop_ppm"

# --- injected corruption ----------------------------------------------------
corr0=$(vt_counter vmlx0 injected_corruptions)
rerr1=$(vt_counter vmlx1 rcv_errors)
vt_knob vmlx0 corrupt_ppm 100000
vt_knob vmlx1 corrupt_ppm 100000
vt_run loss rc n=600
# A short ACK timeout makes retransmissions race the NAKs of the same gap,
# so that ACKs arrive for PSNs the requester was just sent back to.
vt_run loss rc n=600 ack_timeout=8
vt_run loss uc ud n=600 lossy
vt_knob vmlx0 corrupt_ppm 0
vt_knob vmlx1 corrupt_ppm 0
corr0b=$(vt_counter vmlx0 injected_corruptions)
rerr1b=$(vt_counter vmlx1 rcv_errors)
tap_ok $(( corr0b > corr0 ? 0 : 1 )) \
	"injected_corruptions counted on vmlx0 ($corr0 -> $corr0b)"
tap_ok $(( rerr1b > rerr1 ? 0 : 1 )) \
	"vmlx1 rcv_errors counted the damaged packets its CRC checks caught ($rerr1 -> $rerr1b)"
vt_run loss uc ud n=200
tap_diag "faults off again: no loss expected"

# --- a link pulled ----------------------------------------------------------
disc0=$(vt_counter vmlx0 xmit_discards)
vt_knob vmlx1 link 0
tap_is "vmlx1 port 1 DOWN after link=0" "$(vt_port_state vmlx1)" "DOWN 2"
vt_run unreachable
vt_knob vmlx1 link 1
vt_wait_state vmlx1 ACTIVE 10
tap_is "vmlx1 port 1 ACTIVE again after link=1" "$(vt_port_state vmlx1)" \
	"ACTIVE 2"
vt_run errors flush

# --- create/destroy balance -------------------------------------------------
tap_is "vmlx0 objects: no test object left" "$(vt_objects vmlx0)" "$mad"
tap_is "vmlx1 objects: no test object left" "$(vt_objects vmlx1)" "$mad"
vt_run loop n=10000
tap_is "vmlx0 objects: no test object left after the loop" "$(vt_objects vmlx0)" "$mad"
tap_is "vmlx1 objects: no test object left after the loop" "$(vt_objects vmlx1)" "$mad"

# --- background traffic, stopped by command, then by rmmod vmlx -------------
vt_run traffic start
sleep 1
vt_run traffic stop
vt_run traffic start
sleep 2
vt_run traffic status
tap_check "rmmod vmlx while the traffic runs returns" timeout 60 rmmod vmlx
tap_is "devices gone" "$(find $ib -mindepth 1 -maxdepth 1 | wc -l)" 0
tap_is "ib_verbs_test let go of both devices" "$(<"$VT_DIR/devices")" ""
tap_like "the remove callback stopped, drained and destroyed the traffic" \
	"$(dmesg | grep 'ib_verbs_test: traffic stopped by the remove callback')" \
	"drained with ib_drain_qp, destroyed"
tap_like "the traffic had no error" \
	"$(dmesg | grep 'ib_verbs_test: traffic stopped by the remove callback')" \
	" 0 errors; "
dmesg | grep 'ib_verbs_test: traffic stopped by the remove callback' | sed 's/^/# /'

# --- the client follows devices that come back --------------------------------
tap_check "modprobe vmlx static_lids=1 again" modprobe vmlx static_lids=1
tap_is "ib_verbs_test got the new devices" "$(vt_devices)" \
	"vmlx0 vmlx1"
vt_run ops rc mtu=4096

# --- unloading the client under traffic ---------------------------------------
vt_run traffic start
sleep 1
tap_check "rmmod ib_verbs_test while its traffic runs" timeout 60 \
	modprobe -r ib_verbs_test
tap_is "its remove callbacks stopped the traffic cleanly" \
	"$(dmesg | grep -c 'ib_verbs_test: traffic stopped by the remove callback .* 0 errors; drained with ib_drain_qp, destroyed')" 2
tap_is "vmlx0 objects: no object of the client left" "$(vt_objects vmlx0)" "$mad"
tap_is "vmlx1 objects: no object of the client left" "$(vt_objects vmlx1)" "$mad"
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_core" rmmod ib_core
tap_done
