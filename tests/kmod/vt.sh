# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# vt.sh - helpers for scenarios that drive the ib_verbs_test kernel client
# (tests/kmod) and the vmlx debugfs knobs.  Source tap.sh first.
#
#   vt_run COMMAND...      run one ib_verbs_test command; every "ok ..." and
#                          "not ok ..." line it reports becomes a TAP test
#                          point, its "# ..." lines TAP comments
#                          (tap_results)
#   vt_counter DEV NAME    a counter of DEV's port 1 (vmlx debugfs)
#   vt_knob DEV KNOB VAL   write a fault knob of DEV's port 1
#   vt_objects DEV         DEV's objects file on one line ("qp 0 mr 0 ...")
#   vt_devices             the devices ib_verbs_test holds, on one line
#   vt_port_state DEV      "STATE LID" of DEV's port 1
#   vt_wait_state DEV STATE [SECONDS]   wait for DEV's port 1 to get there

VT_DIR=/sys/kernel/debug/ib_verbs_test
VT_VMLX=/sys/kernel/debug/vmlx

vt_run() {
	local cmd="$*" rc=0 err start=$SECONDS
	tap_diag "ib_verbs_test: $cmd"
	err=$( { echo "$cmd" >"$VT_DIR/run"; } 2>&1) || rc=$?
	tap_results <"$VT_DIR/result"
	if [[ $rc -ne 0 ]]; then
		tap_fail "ib_verbs_test accepts '$cmd'" "write failed: $err"
	fi
	tap_diag "($cmd: $((SECONDS - start)) s)"
}

vt_counter() {
	local name value
	while read -r name value; do
		if [[ $name == "$2" ]]; then
			echo "$value"
			return
		fi
	done <"$VT_VMLX/$1/port1/counters"
	echo "?"
}

vt_knob() {
	echo "$3" >"$VT_VMLX/$1/port1/$2"
}

vt_objects() {
	local name value out=
	while read -r name value; do
		out+="$name $value "
	done <"$VT_VMLX/$1/objects"
	echo "${out% }"
}

vt_devices() {
	local dev out=
	while read -r dev; do
		out+="$dev "
	done <"$VT_DIR/devices"
	echo "${out% }"
}

vt_port_state() {
	local name value state='?' lid='?'
	while read -r name value; do
		case $name in
		state) state=$value ;;
		lid) lid=$value ;;
		esac
	done <"$VT_VMLX/$1/port1/state"
	echo "$state $lid"
}

vt_wait_state() {
	local deadline=$((SECONDS + ${3:-10})) now
	while :; do
		now=$(vt_port_state "$1")
		[[ ${now% *} != "$2" ]] || return 0
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}
