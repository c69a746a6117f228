#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: ib_umad.  With vmlx (static_lids=1: LIDs 1 and 2, ACTIVE)
# and ib_umad loaded: the class infiniband_mad with abi_version 5, umadN
# and issmN with their device numbers and sysfs files, Debian's unmodified
# infiniband-diags over our umad (ibstat, smpquery by directed route to
# vmlx0 itself and to the switch, ibaddr, perfquery to the local PMA,
# sminfo failing cleanly without an SM, ibnetdiscover finding the switch
# and both HCAs), the IsSM bit while issm0 is open, malformed writes and
# bad ioctls with their errnos (umad_check.py), kernel RMPP both ways
# between two files (every byte of messages from 0 to 60000 bytes, ENOSPC
# re-reads, malformed segments and ACKs injected by a user-RMPP agent,
# opensm answering saquery), and rmmod vmlx with files open and agents
# registered; last, one opensm sweep (-o) without static LIDs brings both
# ports ACTIVE.  The harness fails the run on any kernel warning in dmesg.
#
# vm-run-options: --smp 2
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../vm/vmlx.sh"

here=$(dirname "$0")
ib=/sys/class/infiniband
mad=/sys/class/infiniband_mad

# run_py MODE: umad_check.py MODE, its checks as TAP
run_py() {
	tap_checker "umad_check.py $1 exits 0" python3 "$here/umad_check.py" "$1"
}

# guid SYSFS_GUID: 0x0123456789abcdef from 0123:4567:89ab:cdef
guid() {
	echo "0x${1//:/}"
}

vmlx_start ib_umad

tap_is "abi_version" "$(cat $mad/abi_version)" 5
for n in 0 1; do
	tap_is "umad$n: dev" "$(cat $mad/umad$n/dev 2>&1)" "231:$n"
	tap_is "issm$n: dev" "$(cat $mad/issm$n/dev 2>&1)" "231:$((64 + n))"
	for d in umad$n issm$n; do
		tap_is "$d: ibdev and port" \
			"$(cat $mad/$d/ibdev $mad/$d/port 2>&1 | tr '\n' ' ')" \
			"vmlx$n 1 "
		tap_like "/dev/infiniband/$d" \
			"$(stat -c '%t:%T %F' /dev/infiniband/$d 2>&1)" \
			"^e7:[0-9a-f]+ character special file$"
	done
done

# --- infiniband-diags --------------------------------------------------------------
out=$(ibstat vmlx0 2>&1)
tap_like "ibstat vmlx0" "$out" "State: Active"
out=$(timeout 20 smpquery -D nodeinfo 0 2>&1)
tap_like "smpquery -D nodeinfo 0 (our own SMA)" "$out" \
	"NodeType:\.*Channel Adapter"
g0=$(guid "$(cat $ib/vmlx0/node_guid)")
g1=$(guid "$(cat $ib/vmlx1/node_guid)")
tap_like "  ... with our node GUID" "$out" "[^t]Guid:\.*$g0"
out=$(timeout 20 smpquery -D portinfo 0 2>&1)
tap_like "smpquery -D portinfo 0" "$out" "LinkState:\.*Active"
tap_like "  ... LID 1" "$out" "Lid:\.+1"$'\n'
out=$(timeout 20 smpquery -D nodeinfo 0,1 2>&1)
tap_like "smpquery -D nodeinfo 0,1 (the switch)" "$out" "NodeType:\.*Switch"
out=$(timeout 20 ibaddr 2>&1)
tap_like "ibaddr" "$out" "LID start 0x1 end 0x1"
out=$(timeout 20 perfquery 2>&1)
tap_like "perfquery (local PMA by LID 1)" "$out" "PortXmitData:"
t0=$SECONDS
timeout 30 sminfo >/tmp/sminfo.out 2>&1
rc=$?
tap_ok $(( rc != 0 && rc != 124 ? 0 : 1 )) \
	"sminfo fails cleanly without an SM (rc $rc, $((SECONDS - t0)) s)"
out=$(timeout 60 ibnetdiscover 2>&1)
nl=$'\n'
tap_like "ibnetdiscover: the switch" "$out" "${nl}Switch[[:space:]]"
tap_like "ibnetdiscover: vmlx0" "$out" "${nl}Ca[[:space:]]+1 \"H-${g0#0x}\""
tap_like "ibnetdiscover: vmlx1" "$out" "${nl}Ca[[:space:]]+1 \"H-${g1#0x}\""
tap_is "ibnetdiscover: 2 CAs" "$(grep -c '^Ca' <<<"$out")" 2
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out"

# --- issm, the ABI, removal --------------------------------------------------------
run_py issm
run_py abi
run_py rmpp
run_py remove
tap_check "rmmod ib_umad" rmmod ib_umad
tap_ok $([[ ! -d $mad ]]; echo $?) "class infiniband_mad gone"

# --- opensm: one sweep without static LIDs ------------------------------------------
if command -v opensm >/dev/null; then
	tap_check "modprobe vmlx (no static LIDs)" modprobe vmlx
	tap_check "modprobe ib_umad" modprobe ib_umad
	pg=$(guid "$(cut -d: -f5-8 <<<"$(cat $ib/vmlx0/ports/1/gids/0)")")
	tap_check "opensm -g $pg -o (one sweep, then exit)" \
		timeout 60 opensm -g "$pg" -o -f /tmp/opensm.log
	for d in vmlx0 vmlx1; do
		tap_is "$d: ACTIVE after the sweep" \
			"$(cat $ib/$d/ports/1/state)" "4: ACTIVE"
	done
	tap_like "vmlx0: the SM gave it a LID" \
		"$(cat $ib/vmlx0/ports/1/lid)" "^0x[1-9a-f]"
	tap_check "rmmod ib_umad vmlx" rmmod ib_umad vmlx
else
	tap_skip "opensm" "not installed"
fi
tap_check "rmmod ib_core" rmmod ib_core

tap_done
