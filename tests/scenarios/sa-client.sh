#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the kernel's SA client and multicast module (core/sa_query.c,
# core/multicast.c) against Debian's opensm, through the "sa" command of
# the ib_verbs_test client (tests/kmod/vt_sa.c).
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../kmod/vt.sh"

ib=/sys/class/infiniband
run=$(mktemp -d)
smpid=
cleanup() {
	[[ -z $smpid ]] || kill "$smpid" 2>/dev/null
	rm -rf "$run"
}
trap cleanup EXIT

# lid DEV: DEV port 1's LID, decimal
lid() {
	echo $(($(cat "$ib/$1/ports/1/lid")))
}

# port_guid DEV: the port GUID of DEV port 1, 0123456789abcdef
port_guid() {
	cut -d: -f5-8 <"$ib/$1/ports/1/gids/0" | tr -d :
}

# wait_active SECONDS DEV...: 0 once every DEV's port 1 is ACTIVE
wait_active() {
	local secs=$1 d n
	shift
	for _ in $(seq "$secs"); do
		n=0
		for d in "$@"; do
			[[ $(cat "$ib/$d/ports/1/state") == "4: ACTIVE" ]] &&
				n=$((n + 1))
		done
		[[ $n -eq $# ]] && return 0
		sleep 1
	done
	return 1
}

start_opensm() {
	opensm -F "$run/opensm.conf" -g "0x$(port_guid vmlx0)" -s 0 \
		-f "$run/opensm.log" >"$run/opensm.out" 2>&1 &
	smpid=$!
}

vmlx_start --params "num_hcas=2" ib_umad ib_verbs_test

echo "force_log_flush TRUE" >"$run/opensm.conf"
start_opensm
wait_active 60 vmlx0 vmlx1
tap_ok $? "opensm: both ports ACTIVE"
for _ in $(seq 30); do
	grep -q "SUBNET UP" "$run/opensm.log" && break
	sleep 1
done
tap_like "opensm: SUBNET UP" "$(cat "$run/opensm.log")" "SUBNET UP"

# --- PathRecord ----------------------------------------------------------------------
vt_run sa path
out=$(timeout 60 saquery -p --src-to-dst "$(lid vmlx0):$(lid vmlx1)" 2>&1)
tap_diag "$out"
cat /sys/kernel/debug/ib_verbs_test/result

tap_done
