#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: what ib_core says about what it refuses and does, besides
# the errnos the other scenarios check.  vmlx0 and vmlx1 with static LIDs
# and the ib_verbs_test client:
#  - dynamic debug: with "module ib_core +p" the agent registrations that
#    the client's "mad reg" case provokes to fail leave a line in dmesg
#    naming the rule they broke (the harness fails a run on warnings; debug
#    lines are not warnings);
#  - extended ACKs: iproute2's rdma prints nldev's message for a request
#    it refuses ("rdma system set netns exclusive"; rdma checks names and
#    ports itself and cannot be made to send a malformed request), and
#    nl_extack.py finds the messages, errnos and offending attributes in
#    the raw replies to malformed ones;
#  - tracepoints: with the ib_mad events enabled, a Get answered by a
#    GetResp and directed-route SMPs leave the MAD layer's events in the
#    trace: agents, sends, send completions, receives, callbacks, SMPs.
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../kmod/vt.sh"

here=$(dirname "$0")
ddebug=/sys/kernel/debug/dynamic_debug/control
tracing=/sys/kernel/tracing

tap_check "modprobe vmlx static_lids=1" modprobe vmlx static_lids=1
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
if [[ ! -d $VT_DIR || ! -d $VT_VMLX ]]; then
	tap_bail "no debugfs files of ib_verbs_test or vmlx"
fi
vt_wait_state vmlx0 ACTIVE 10
vt_wait_state vmlx1 ACTIVE 10

# --- dynamic debug ----------------------------------------------------------
tap_like "dynamic debug knows the MAD layer's refusals" \
	"$(grep -c '\[ib_core\].*MAD: port %u: %s refused' $ddebug)" \
	'^[1-9]'
tap_check "dynamic debug on for ib_core" \
	sh -c "echo 'module ib_core +p' >$ddebug"
marker="core-diagnostics: mad reg $RANDOM"
echo "$marker" >/dev/kmsg
vt_run mad reg
log=$(dmesg | sed -n "/$marker/,\$p")
tap_diag "dmesg after 'mad reg':" "$(grep 'MAD: ' <<<"$log")"
tap_like "dmesg: the SMP class on QP1, and why" "$log" \
	"vmlx0: MAD: port 1: agent refused: class 0x01 on QP1: SMPs go on QP0, other classes on QP1"
tap_like "dmesg: the vendor class without an OUI" "$log" \
	"vmlx0: MAD: port 1: agent refused: vendor class 0x31 without an OUI"
tap_like "dmesg: the method another agent has" "$log" \
	"vmlx0: MAD: port 1: agent refused: method 0x01 of class 0x09 version 1 is another agent's"
tap_like "dmesg: the port without a MAD layer" "$log" \
	"vmlx0: MAD: port 9: agent refused: the port has no MAD layer"
tap_check "dynamic debug off for ib_core" \
	sh -c "echo 'module ib_core -p' >$ddebug"
echo "$marker: off" >/dev/kmsg
vt_run mad reg
tap_is "no such line with dynamic debug off" \
	"$(dmesg | sed -n "/$marker: off/,\$p" | grep -c 'agent refused')" 0

# --- extended ACKs ---------------------------------------------------------
out=$(rdma system set netns exclusive 2>&1)
rc=$?
tap_diag "rdma system set netns exclusive:" "$out"
tap_ok $((rc == 0)) "rdma system set netns exclusive fails"
tap_like "rdma prints ib_core's reason" "$out" \
	"Error: ib_core: only the shared network namespace mode \(1\) exists"
tap_like "rdma sys: still shared" "$(rdma sys)" "netns shared"
out=$(timeout 60 python3 "$here/nl_extack.py" 2>&1)
rc=$?
while IFS= read -r line; do
	case $line in
	"ok "*) tap_pass "netlink: ${line#ok }" ;;
	"not ok "*) tap_fail "netlink: ${line#not ok }" ;;
	"") ;;
	*) tap_diag "${line#\# }" ;;
	esac
done <<<"$out"
tap_ok $rc "nl_extack.py exits 0"

# --- tracepoints -----------------------------------------------------------
if [[ ! -d $tracing/events ]]; then
	mount -t tracefs tracefs $tracing
fi
tap_check "the ib_mad trace events exist" test -d $tracing/events/ib_mad
missing=
for e in ib_mad_create_agent ib_mad_unregister_agent ib_mad_ib_send_mad \
	 ib_mad_send_done_resend ib_mad_error_handler \
	 ib_mad_send_done_handler ib_mad_recv_done_handler \
	 ib_mad_recv_done_agent ib_mad_send_done_agent \
	 ib_mad_handle_ib_smi ib_mad_handle_out_ib_smi; do
	[[ -d $tracing/events/ib_mad/$e ]] || missing+=" $e"
done
tap_is "every event of upstream's ib_mad system but OPA's" "$missing" ""
: >$tracing/trace
tap_check "ib_mad events enabled" \
	sh -c "echo 1 >$tracing/events/ib_mad/enable"
vt_run mad getresp smp
echo 0 >$tracing/events/ib_mad/enable
trace=$(grep ' ib_mad_' $tracing/trace)
tap_diag "the trace has $(wc -l <<<"$trace") ib_mad events, among them:" \
	"$(grep -m 12 . <<<"$trace")"
tap_like "trace: agents registered" "$trace" "ib_mad_create_agent: [0-9]+:1 QP1 agent 0x[0-9a-f]+: class 0x09"
tap_like "trace: the Get of class 0x09 sent" "$trace" \
	"ib_mad_ib_send_mad: [0-9]+:1 QP1 agent 0x[0-9a-f]+: tid 0x[0-9a-f]{16} base_ver 0x1 class 0x09 class_ver 0x1 method 0x01 "
tap_like "trace: its send completion" "$trace" \
	"ib_mad_send_done_handler: [0-9]+:1 QP1 agent 0x[0-9a-f]+: send done, status 0: .* class 0x09 method 0x01"
tap_like "trace: the GetResp received" "$trace" \
	"ib_mad_recv_done_handler: [0-9]+:1 QP1: received [0-9]+ bytes: .* class 0x09 class_ver 0x1 method 0x81 .* <= slid 0x2 QP1"
tap_like "trace: the agents' receive handler" "$trace" \
	"ib_mad_recv_done_agent: [0-9]+:1 QP1 agent"
tap_like "trace: the agents' send handler" "$trace" \
	"ib_mad_send_done_agent: [0-9]+:1 QP1 agent"
tap_like "trace: agents unregistered" "$trace" \
	"ib_mad_unregister_agent: [0-9]+:1 QP1 agent"
tap_like "trace: a directed-route SMP sent" "$trace" \
	"ib_mad_handle_out_ib_smi: IB SMP: hop_ptr 0 hop_cnt 1 "
tap_like "trace: a directed-route SMP received" "$trace" \
	"ib_mad_handle_ib_smi: IB SMP: hop_ptr [0-9]+ hop_cnt 1 "
: >$tracing/trace
vt_run mad getresp
tap_is "no events once disabled" "$(grep -c ' ib_mad_' $tracing/trace)" 0

# --- unload ----------------------------------------------------------------
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_core" rmmod ib_core
tap_done
