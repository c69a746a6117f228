#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the IB connection manager, ib_cm, between vmlx0 and vmlx1
# on a fabric Debian's opensm brings up (as opensm-fabric.sh does).
#
#  - CapabilityMask.IsCM (bit 16 of ports/1/cap_mask) is clear before
#    ib_cm is loaded, set while it is, clear again after rmmod; the
#    counter directories ports/1/cm_{tx_msgs,tx_retries,rx_msgs,
#    rx_duplicates,rx_dropped} come and go with it.
#  - ib_verbs_test's "cm" command (tests/kmod/vt_cm.c): an RC connection
#    by REQ/REP/RTU with private data each way, data over it, DREQ/DREP
#    and TIMEWAIT_EXIT; a REQ to an unlistened service gets REJ reason 8;
#    a listener rejecting with private data (28), or by returning
#    non-zero; MRAs; SIDR; a REQ resent while the responder waits makes
#    one connection; a REQ nobody answers ends in REQ_ERROR after
#    1 + max_cm_retries sends.  The counters of each step are checked:
#    what was sent on one side was received on the other, the resends
#    are cm_tx_retries on the sender and cm_rx_duplicates on the receiver.
#  - cm_garbage.py sends malformed and unmatched CM MADs from a umad file:
#    each is counted (cm_rx_dropped, cm_rx_duplicates) and answered only
#    as the IBA says, and the listener held by "cm hold" saw only the one
#    well-formed REQ among them ("cm check 1").
#  - Teardown with identifiers in every state ("cm hold": listening,
#    established, REQ_SENT, REQ_RCVD, TIMEWAIT): rmmod ib_verbs_test and
#    ib_cm at once; then again with rmmod vmlx (device removal) first.
#    rdma res is back at its count, dmesg clean (the harness).
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../kmod/vt.sh"

ib=/sys/class/infiniband
trap opensm_stop EXIT

# cnt DEV GROUP TYPE: a CM counter of DEV port 1
cnt() {
	cat "$ib/$1/ports/1/$2/$3" 2>/dev/null || echo "?"
}

# isc DEV: 1 if IsCM is set in DEV port 1's CapabilityMask, else 0
isc() {
	echo $((($(cat "$ib/$1/ports/1/cap_mask") >> 16) & 1))
}

# snap: every CM counter of both ports, "DEV/GROUP/TYPE=N" on one line
snap() {
	local d g t
	for d in vmlx0 vmlx1; do
		for g in cm_tx_msgs cm_tx_retries cm_rx_msgs cm_rx_duplicates \
			 cm_rx_dropped; do
			for t in req mra rej rep rtu dreq drep sidr_req sidr_rep \
				 lap apr; do
				printf '%s/%s/%s=%s ' $d $g $t "$(cnt $d $g $t)"
			done
		done
	done
}

# delta BEFORE DEV GROUP TYPE: how much that counter grew since snap
delta() {
	local was
	was=$(tr ' ' '\n' <<<"$1" | sed -n "s|^$2/$3/$4=||p")
	echo $(($(cnt "$2" "$3" "$4") - was))
}

tap_check "modprobe vmlx" modprobe vmlx
tap_check "modprobe ib_umad" modprobe ib_umad
before=$(rdma res show 2>&1)
opensm_start -s 0
ports_active 60 vmlx0 vmlx1
tap_ok $? "opensm: vmlx0 and vmlx1 ACTIVE"

# --- the capability bit and the files ---------------------------------------------
tap_is "IsCM clear without ib_cm" "$(isc vmlx0) $(isc vmlx1)" "0 0"
tap_is "no counter directories without ib_cm" \
	"$(ls -d $ib/vmlx0/ports/1/cm_* 2>/dev/null | wc -l)" 0
tap_check "modprobe ib_cm" modprobe ib_cm
tap_is "IsCM set with ib_cm (cap_mask bit 16)" "$(isc vmlx0) $(isc vmlx1)" \
	"1 1"
tap_is "counter directories" \
	"$(cd $ib/vmlx0/ports/1 && echo cm_*)" \
	"cm_rx_dropped cm_rx_duplicates cm_rx_msgs cm_tx_msgs cm_tx_retries"
tap_is "counter files" "$(ls $ib/vmlx0/ports/1/cm_rx_msgs | xargs)" \
	"apr drep dreq lap mra rej rep req rtu sidr_rep sidr_req"
tap_is "cm_rx_dropped counts other attributes too" \
	"$(LC_ALL=C ls $ib/vmlx0/ports/1/cm_rx_dropped | xargs)" \
	"apr drep dreq lap mra other rej rep req rtu sidr_rep sidr_req"
tap_is "counters start at 0" "$(cnt vmlx1 cm_rx_msgs req)" 0
tap_check_fails "counters are read only" \
	sh -c "echo 1 >$ib/vmlx0/ports/1/cm_rx_msgs/req"
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
[[ -d $VT_DIR ]] || tap_bail "no ib_verbs_test debugfs"

# --- connections ----------------------------------------------------------------------
s=$(snap)
vt_run cm connect
for m in req rtu dreq; do
	tap_is "connect: a $m from vmlx0, received once by vmlx1" \
		"$(($(delta "$s" vmlx1 cm_rx_msgs $m) - $(delta "$s" vmlx1 cm_rx_duplicates $m)))" 1
done
for m in rep drep; do
	tap_is "connect: one $m sent by vmlx1, received by vmlx0" \
		"$(($(delta "$s" vmlx0 cm_rx_msgs $m) - $(delta "$s" vmlx0 cm_rx_duplicates $m)))" 1
done
tap_is "connect: nothing dropped" \
	"$(delta "$s" vmlx1 cm_rx_dropped req)$(delta "$s" vmlx0 cm_rx_dropped rep)" 00

s=$(snap)
vt_run cm noservice
tap_is "noservice: vmlx1 counts the REQ dropped and sends a REJ" \
	"$(delta "$s" vmlx1 cm_rx_dropped req) $(delta "$s" vmlx1 cm_tx_msgs rej)" \
	"1 1"
tap_is "noservice: vmlx0 receives the REJ" \
	"$(delta "$s" vmlx0 cm_rx_msgs rej)" 1

vt_run cm reject autoreject mra sidr

s=$(snap)
vt_run cm dup
tap_like "dup: vmlx0 resent its REQ (cm_tx_retries/req)" \
	"$(delta "$s" vmlx0 cm_tx_retries req)" "^[1-9][0-9]*$"
tap_like "dup: vmlx1 counted duplicates (cm_rx_duplicates/req)" \
	"$(delta "$s" vmlx1 cm_rx_duplicates req)" "^[1-9][0-9]*$"
tap_is "dup: every REQ vmlx1 got beyond the first is a duplicate" \
	"$(($(delta "$s" vmlx1 cm_rx_msgs req) - $(delta "$s" vmlx1 cm_rx_duplicates req)))" 1

s=$(snap)
vt_run cm timeout
tap_is "timeout: 1 + 3 REQs sent (cm_tx_msgs/req)" \
	"$(delta "$s" vmlx0 cm_tx_msgs req)" 4
tap_is "timeout: 3 of them resends (cm_tx_retries/req)" \
	"$(delta "$s" vmlx0 cm_tx_retries req)" 3
tap_is "timeout: then a REJ (timeout) for whoever got them" \
	"$(delta "$s" vmlx0 cm_tx_msgs rej)" 1

# --- garbage from user space ------------------------------------------------------------
vt_run cm hold
tap_checker "cm_garbage.py: malformed and unmatched CM MADs" \
	python3 "$here/cm_garbage.py" 0x1000000000c0ffee
vt_run cm check 1

# --- teardown with identifiers in every state --------------------------------------------
vt_run cm hold
tap_check "rmmod ib_verbs_test with identifiers held" rmmod ib_verbs_test
tap_check "rmmod ib_cm right after (timewaits pending)" rmmod ib_cm
tap_is "IsCM clear after rmmod ib_cm" "$(isc vmlx0) $(isc vmlx1)" "0 0"
tap_is "counter directories gone" \
	"$(ls -d $ib/vmlx0/ports/1/cm_* 2>/dev/null | wc -l)" 0
tap_is "rdma res back at its count" "$(rdma res show 2>&1)" "$before"

tap_check "modprobe ib_verbs_test (and ib_cm)" modprobe ib_verbs_test
tap_is "IsCM set again" "$(isc vmlx0) $(isc vmlx1)" "1 1"
vt_run cm hold
opensm_stop
tap_check "rmmod vmlx with identifiers held (device removal)" rmmod vmlx
tap_is "ib_verbs_test let go of both devices" "$(vt_devices)" ""
tap_check "rmmod ib_verbs_test ib_cm" rmmod ib_verbs_test ib_cm
tap_check "rmmod ib_umad ib_core" rmmod ib_umad ib_core
tap_done
