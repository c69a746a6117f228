#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the MAD layer of ib_core.  Every IB port gets QP0 and QP1
# when vmlx registers; the ib_verbs_test client's "mad" command registers
# agents on vmlx0 and vmlx1 (LIDs 1 and 2, static_lids=1) and checks
# registration rules, a Get answered with GetResp and matched by TID,
# timeouts with retries (counted by the receiver and on vmlx0's transmit
# counter), the core's "unsupported" answer for an unclaimed class,
# dropping of responses with unknown TIDs, cancel, the flush of sends
# outstanding at unregistration, and malformed MADs from the wire (sent by
# a UD QP to QP1: dropped or answered 0x000C, never delivered), and a
# directed-route SubnGet(NodeInfo) answered by vmlx0's own SMA (hop 0)
# and by the switch (hop 1).  Ends with rmmod of
# everything, also with MAD traffic in flight; the harness fails the run
# on any kernel warning in dmesg.
#
# vm-run-options: --smp 2
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../vm/vmlx.sh"
. "$(dirname "$0")/../kmod/vt.sh"

ib=/sys/class/infiniband

vmlx_start ib_verbs_test
tap_is "ib_verbs_test got both devices" "$(vt_devices)" "vmlx0 vmlx1"
tap_is "vmlx0 port 1 ACTIVE, LID 1" "$(vt_port_state vmlx0)" "ACTIVE 1"
tap_is "vmlx1 port 1 ACTIVE, LID 2" "$(vt_port_state vmlx1)" "ACTIVE 2"

# --- the MAD QPs exist on every port ----------------------------------------
tap_like "vmlx0: QP0 and QP1 of the MAD layer (2 QPs, 1 CQ, 1 PD)" \
	"$(vt_objects vmlx0)" "^qp 2 mr 0 cq 1 pd 1 "
tap_like "vmlx1: QP0 and QP1 of the MAD layer (2 QPs, 1 CQ, 1 PD)" \
	"$(vt_objects vmlx1)" "^qp 2 mr 0 cq 1 pd 1 "
if command -v rdma >/dev/null; then
	qps=$(rdma res show qp link vmlx0/1)
	tap_diag "rdma res show qp link vmlx0/1:" "$qps"
	tap_like "rdma res: QP0 (SMI) of vmlx0 port 1" "$qps" \
		"lqpn 0 .*type SMI"
	tap_like "rdma res: QP1 (GSI) of vmlx0 port 1" "$qps" \
		"lqpn 1 .*type GSI"
fi

# --- the cases -----------------------------------------------------------------
tx0=$(vt_counter vmlx0 xmit_packets)
vt_run mad reg getresp unsupported bogus
tx1=$(vt_counter vmlx0 xmit_packets)
vt_run mad timeout
tx2=$(vt_counter vmlx0 xmit_packets)
tap_ok $(( tx2 - tx1 >= 3 ? 0 : 1 )) \
	"timeout: vmlx0 sent the request 3 times (xmit_packets $tx1 -> $tx2)"
tap_ok $(( tx1 - tx0 >= 3 ? 0 : 1 )) \
	"getresp/unsupported/bogus: vmlx0 transmitted ($tx0 -> $tx1)"
vt_run mad cancel flush
vt_run mad fuzz
vt_run mad smp
tap_is "no MAD packet damaged" \
	"$(vt_counter vmlx0 rcv_errors) $(vt_counter vmlx1 rcv_errors)" "0 0"

# --- the whole command again, twice, to catch leaks and stale state ------------
vt_run mad
vt_run mad getresp timeout

tap_like "vmlx0: only the MAD layer's objects left" "$(vt_objects vmlx0)" \
	"^qp 2 mr 0 cq 1 pd 1 srq 0 ah 0$"
tap_like "vmlx1: only the MAD layer's objects left" "$(vt_objects vmlx1)" \
	"^qp 2 mr 0 cq 1 pd 1 srq 0 ah 0$"

# --- rmmod with MAD traffic in flight --------------------------------------------
# A waits 30 s for answers that never come while vmlx goes away: the
# client's remove callback waits for the command, which unregisters its
# agents (flushing the sends); then the MAD layer closes the ports.
( echo "mad flush" >"$VT_DIR/run" ) 2>/dev/null &
runner=$!
sleep 0.3
tap_check "rmmod vmlx with MAD sends outstanding returns" timeout 60 rmmod vmlx
wait $runner
tap_is "devices gone" "$(find $ib -mindepth 1 -maxdepth 1 | wc -l)" 0
tap_check "modprobe vmlx static_lids=1 again" modprobe vmlx static_lids=1
tap_is "ib_verbs_test got the new devices" "$(vt_devices)" "vmlx0 vmlx1"
vt_run mad getresp
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_core" rmmod ib_core
tap_done
