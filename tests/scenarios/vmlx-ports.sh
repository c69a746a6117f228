#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: without a subnet manager (and without static_lids) the vmlx
# ports stay INIT with LID 0, like hardware: nothing but QP0 flows, so an
# RC QP cannot reach the other HCA and its send ends in RETRY_EXC_ERR,
# with the packets counted as discarded by the port that would not send
# them.
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../kmod/vt.sh"

tap_check "modprobe vmlx" modprobe vmlx
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
[[ -d $VT_DIR && -d $VT_VMLX ]] || tap_bail "no debugfs files"
tap_is "vmlx0 port 1 INIT, LID 0" "$(vt_port_state vmlx0)" "INIT 0"
tap_is "vmlx1 port 1 INIT, LID 0" "$(vt_port_state vmlx1)" "INIT 0"
disc0=$(vt_counter vmlx0 xmit_discards)
vt_run unreachable
tap_ok $(( $(vt_counter vmlx0 xmit_discards) > disc0 ? 0 : 1 )) \
	"vmlx0 discarded the packets it may not send ($disc0 -> $(vt_counter vmlx0 xmit_discards))"
tap_is "vmlx1 received nothing" "$(vt_counter vmlx1 rcv_packets)" 0
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_core" rmmod ib_core
tap_done
