#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: ib_sdp against a rogue SDP peer, the kernel module
# sdp_rogue (tests/kmod/sdp_rogue.c), between the network namespaces "a"
# (ib0 on vmlx0: the rogue) and "b" (ib1 on vmlx1: the victim, socat
# preloaded with libsdp.so in simple mode, accepting connections and
# reading each to EOF into /dev/null), on a fabric opensm brings up.
# Proven:
#
#  - valid Data and DisConn from the rogue end in a graceful close (the
#    control: what the rogue frames is right, so the resets below answer
#    what each case breaks);
#  - Hellos of version 0x11, with Bufs 0, with LocalRcvSz 16, or of 20
#    bytes: refused, no connection;
#  - a BSDH len above or below the bytes sent, a runt of 8 bytes, MID
#    0x42, a SinkAvail advert, a SrcAvail of 0 bytes or with a short
#    header or under an R_Key nobody has (the victim's RDMA READ fails),
#    an RdmaRdCompl with no advert out, an MSeq out of sequence, an
#    MSeqAck of a message never sent, Data after DisConn, a DisConn with
#    a payload:
#    each resets the connection (its end without the victim's DisConn);
#    a 128 KiB SEND, beyond any SDP receive buffer, ends it;
#  - Bufs 0xffff, and 2000 messages regardless of the victim's credits:
#    no hang, the connection ends cleanly;
#  - every victim connection freed (/proc/net/sdp lists the listener
#    alone);
#  - the victim still serves: a preloaded socat sends it 1 MiB, and 1
#    MiB to a second listener arrives with the same sha256;
#  - rmmod sdp_rogue; the victim killed, no cm_id left, rmmod ib_sdp,
#    rdma res as before;
#  - both again, and vmlx removed while the rogue floods: its case gets
#    DEVICE_REMOVAL and lets go, rmmod vmlx completes, the command
#    returns, nothing is left in rdma res, both modules unload;
#  - no BUG, WARNING, Oops or KASAN report in the kernel log.
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"
. "$here/../vm/sdp.sh"

lib=$SDP_LIB
run=$(mktemp -d)
cleanup() {
	opensm_stop
	ipoib_ns_cleanup
	rm -rf "$run"
}
trap cleanup EXIT

A=10.20.0.1
B=10.20.0.2
PORT=7000
ROGUE=/sys/kernel/debug/sdp_rogue

# sdp_others: the lines of /proc/net/sdp in b but its header and listeners
sdp_others() {
	nb awk 'NR > 1 && $3 != "LISTEN"' /proc/net/sdp
}

# rogue_write CMD: write CMD to sdp_rogue's run file from namespace a.
# nsenter joins a's network namespace alone: debugfs stays mounted
# (ip netns exec would remount /sys without it).
rogue_write() {
	nsenter --net=/run/netns/a sh -c 'echo "$1" >'"$ROGUE/run" sh "$1"
}

# rogue_run CMD: run sdp_rogue's CMD; its check lines become TAP points
rogue_run() {
	local cmd="$*" rc=0 err start=$SECONDS
	tap_diag "sdp_rogue: $cmd"
	err=$(rogue_write "$cmd" 2>&1) || rc=$?
	tap_results <"$ROGUE/result"
	if [[ $rc -ne 0 ]]; then
		tap_fail "sdp_rogue accepts '$cmd'" "write failed: $err"
	fi
	tap_diag "($cmd: $((SECONDS - start)) s)"
}

vmlx_start --params "num_hcas=2" ib_umad
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe ib_sdp" modprobe ib_sdp
tap_check "modprobe sdp_rogue" modprobe sdp_rogue
[[ -d $ROGUE ]] || tap_bail "no $ROGUE"
tap_ok "$([[ -f $lib ]]; echo $?)" "libsdp.so built ($lib)"
ab_fabric $A $B
na ping -c 2 -W 5 $B >/dev/null 2>&1
res_before=$(rdma res show 2>&1)

# the victim: every connection accepted (fork), read to EOF or error;
# started by ip netns exec itself, so that $! is timeout(1), which leads
# a process group of its own with socat and its children
ip netns exec b env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 timeout 550 \
	socat -u TCP-LISTEN:$PORT,fork,reuseaddr OPEN:/dev/null \
	2>"$run/victim.err" &
vpid=$!
sdp_listening $PORT
tap_ok $? "the victim listens on SDP port $PORT in b"

# --- commands refused ----------------------------------------------------------
tap_check_fails "sdp_rogue: an unknown case is refused" \
	rogue_write "no-such-case addr=$B port=$PORT"
tap_check_fails "sdp_rogue: a command without addr= is refused" \
	rogue_write "good port=$PORT"

# --- the cases -----------------------------------------------------------------
resets_before=$(sdpstat b Resets)
fails_before=$(sdpstat b AttemptFails)
rogue_run "all addr=$B port=$PORT"
tap_diag "/proc/net/sdpstats in b:" "$(nb cat /proc/net/sdpstats 2>&1)"
for _ in $(seq 75); do
	[[ -z $(sdp_others) ]] && break
	sleep 0.2
done
left=$(sdp_others)
tap_is "every victim connection freed (/proc/net/sdp in b: the listener alone)" \
	"$left" ""
# Not a check: Resets counts the connections reset once established in
# ib_sdp's eyes, AttemptFails those reset before: a message that arrives
# before the RTU was handled (the rogue sends at once) resets one still
# SYN_RECV there.
tap_diag "/proc/net/sdpstats in b: $(($(sdpstat b Resets) - resets_before)) resets of established connections, $(($(sdpstat b AttemptFails) - fails_before)) of connections being set up"

# --- the victim still serves --------------------------------------------------
head -c 1M /dev/urandom >"$run/1M"
sa timeout 60 socat -u OPEN:"$run/1M" TCP:$B:$PORT 2>"$run/c1.err"
tap_ok $? "a good client sends 1 MiB to the victim: exit 0"
port2=$((PORT + 1))
ip netns exec b env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 timeout 60 \
	socat -u TCP-LISTEN:$port2,reuseaddr OPEN:"$run/got",creat,trunc &
spid=$!
sdp_listening $port2
sa timeout 60 socat -u OPEN:"$run/1M" TCP:$B:$port2 2>"$run/c2.err"
tap_ok $? "a good client sends 1 MiB to a second listener: exit 0"
wait $spid
tap_ok $? "the second listener: exit 0"
tap_is "1 MiB a -> b after the rogue: sha256" \
	"$(sha256sum <"$run/got" | cut -d' ' -f1)" \
	"$(sha256sum <"$run/1M" | cut -d' ' -f1)"
[[ $TAP_FAILED -eq 0 ]] ||
	tap_diag "$(cat "$run"/*.err 2>&1 | tail -n 20)"

# --- unloading -------------------------------------------------------------------
tap_check "rmmod sdp_rogue" rmmod sdp_rogue
kill -- -$vpid 2>/dev/null	# timeout(1), socat and its children
wait $vpid
rmmod_sdp() {
	for _ in $(seq 50); do
		lsmod | grep -q '^ib_sdp ' || break
		rmmod ib_sdp 2>/dev/null && break
		sleep 0.2
	done
	! lsmod | grep -q '^ib_sdp '
}
rmmod_sdp
tap_ok $? "rmmod ib_sdp once the victim is gone"
wait_cm_ids 0 10
tap_is "no cm_id left" "$(cm_ids)" 0
res_after=$(rdma res show 2>&1)
tap_is "rdma res as before the rogue" "$res_after" "$res_before"

# --- the device removed under the rogue --------------------------------------
# vmlx removed while a flood runs: the rogue's case gets DEVICE_REMOVAL,
# lets go of its connection, and the RDMA CM's removal completes.  The
# rogue runs in b this time, against the victim at b's own address: its
# id is then on vmlx1 ahead of the victim's connection, so that the RDMA
# CM tells it of the removal before the victim can end the connection.
tap_check "modprobe ib_sdp again" modprobe ib_sdp
tap_check "modprobe sdp_rogue again" modprobe sdp_rogue
ip netns exec b env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 timeout 300 \
	socat -u TCP-LISTEN:$PORT,fork,reuseaddr OPEN:/dev/null \
	2>>"$run/victim.err" &
vpid=$!
sdp_listening $PORT
timeout 300 nsenter --net=/run/netns/b sh -c 'echo "$1" >'"$ROGUE/run" sh \
	"flood flood flood flood addr=$B port=$PORT" 2>"$run/rogue.err" &
rpid=$!
up=1
for _ in $(seq 300); do
	nb grep -q " ESTABLISHED " /proc/net/sdp && { up=0; break; }
	sleep 0.1
done
tap_ok $up "a rogue flood connection is up"
opensm_stop
tap_check "rmmod vmlx while the rogue floods" timeout 60 rmmod vmlx
wait $rpid
tap_ok $? "the rogue's command returns after the removal"
result=$(cat "$ROGUE/result" 2>&1)
tap_diag "the rogue's result (its cases fail once the device is gone):" \
	"$result"
tap_like "the rogue's case let go of its connection on DEVICE_REMOVAL" \
	"$result" "flood: device removal: the case let go"
tap_is "rdma res: nothing" "$(rdma res show 2>&1)" ""
tap_check "rmmod sdp_rogue after the removal" rmmod sdp_rogue
kill -- -$vpid 2>/dev/null
wait $vpid
rmmod_sdp
tap_ok $? "rmmod ib_sdp after the removal"
dmesg | grep -iE "ib_sdp|sdp:|sdp_rogue|BUG|WARNING|KASAN|leak" | tail -n 20 |
	while IFS= read -r l; do tap_diag "$l"; done
tap_ok "$(dmesg | grep -qE 'BUG|WARNING:|Oops|KASAN'; [[ $? -ne 0 ]]; echo $?)" \
	"no BUG, WARNING, Oops or KASAN report in the kernel log"
tap_done
