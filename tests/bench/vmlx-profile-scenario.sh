#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Profiling scenario for tests/bench/vmlx-profile.sh (not part of make
# test or make bench): vmlx0 -> vmlx1 (static LIDs), each workload run
# once with /sys/kernel/debug/vmlx/profile on (Documentation/vmlx.rst,
# debugfs), then the profile printed: the in-kernel RC WRITE benchmark
# of ib_verbs_test, and Debian's ib_write_bw, ib_read_bw, ib_send_bw
# (64 KiB, SECONDS each) and ib_write_lat (8 B) through librxe.  What
# the figures say is in Documentation/performance.rst.
#
# Usage (in the guest): vmlx-profile-scenario.sh [SECONDS]
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../vm/user.sh"
. "$(dirname "$0")/../kmod/vt.sh"

secs=${1:-3}
prof=/sys/kernel/debug/vmlx/profile
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT

# show TITLE: the profile, after a workload, as comments
show() {
	echo 0 >"$prof"
	tap_diag "profile of $1:" "$(cat "$prof")"
}

tap_diag "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
tap_check "modprobe vmlx static_lids=1" modprobe vmlx static_lids=1
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
echo 1 >"$prof"
vt_run bench "secs=$secs"
tap_diag "$(cat "$VT_DIR/result")"
show "ib_verbs_test bench secs=$secs"
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test

tap_check "modprobe ib_uverbs" modprobe ib_uverbs
for t in "ib_write_bw -s 65536 -D $secs" "ib_read_bw -s 65536 -D $secs" \
	 "ib_send_bw -s 65536 -D $secs" "ib_write_lat -s 8 -n 1000"; do
	echo 1 >"$prof"
	# shellcheck disable=SC2086
	timeout 120 $t -d vmlx1 -p 18610 >"$run/srv" 2>&1 &
	spid=$!
	wait_listen 18610
	# shellcheck disable=SC2086
	timeout 120 $t -d vmlx0 -p 18610 127.0.0.1 >"$run/cli" 2>&1
	crc=$?
	wait "$spid"
	tap_ok "$crc" "$t: client exit 0"
	if ((crc == 0)); then
		tap_diag "$(grep -E '^ +[0-9]+ +[0-9]+ ' "$run/cli" | tail -1)"
	else
		tap_diag "$(tail -n 5 "$run/cli")" "$(tail -n 5 "$run/srv")"
	fi
	show "$t"
done
tap_check "rmmod ib_uverbs vmlx" rmmod ib_uverbs vmlx
tap_done
