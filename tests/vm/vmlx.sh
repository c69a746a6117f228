# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# vmlx.sh - the start the VM scenarios on vmlx HCAs share.  Source it
# after tests/vm/tap.sh:
#
#   . "$REPO/tests/vm/tap.sh"
#   . "$REPO/tests/vm/vmlx.sh"
#   vmlx_start ib_uverbs                 # two HCAs with static LIDs
#   vmlx_start --params "num_hcas=3 static_lids=1" ib_uverbs ib_umad
#
# vmlx_start [--params "PARAM..."] [MODULE...] loads vmlx with PARAMs
# (default "static_lids=1": vmlx0 and vmlx1 behind the switch, their ports
# ACTIVE with LIDs 1 and 2), then each MODULE, one test point each
# ("modprobe vmlx static_lids=1", "modprobe ib_uverbs"...).  Then it bails
# out if what a module's users need is missing: libibverbs must list
# vmlx0 (ib_uverbs), /sys/class/infiniband_mad must exist (ib_umad), and
# so must the debugfs directories of ib_verbs_test and vmlx
# (ib_verbs_test).  Last, VMLX_RES_BASELINE is what `rdma res show` says
# then, also printed as a comment: the counts a scenario must return to.
#
# For a fabric run by Debian's opensm instead of static LIDs:
#
#   vmlx_start --params "num_hcas=2" ib_umad
#   opensm_start -s 0                    # OPENSM_PID, OPENSM_LOG
#   ports_active 60 vmlx0 vmlx1 || ...
#   opensm_stop
#
# port_guid DEV prints the GUID of DEV's port 1 as 0123456789abcdef.
# ports_active SECS [DEV...] returns 0 once port 1 of every DEV (of every
# HCA without DEVs) is ACTIVE, 1 after SECS seconds.  opensm_start
# [--on DEV] [--partitions TEXT] [OPENSM-ARG...] starts opensm on port 1
# of DEV (vmlx0), with TEXT as its partitions.conf and its log flushed line by line into
# OPENSM_LOG, emptied at each start.  opensm_up SECS returns 0 once that
# log says SUBNET UP.  opensm_stop kills it and waits for it, if it runs.

VMLX_RES_BASELINE=

vmlx_start() {
	local params="static_lids=1" module
	if [[ ${1:-} == --params ]]; then
		params=$2
		shift 2
	fi
	# shellcheck disable=SC2086 # PARAMs are words for modprobe
	tap_check "modprobe vmlx $params" modprobe vmlx $params
	for module in "$@"; do
		tap_check "modprobe $module" modprobe "$module"
	done
	for module in "$@"; do
		case $module in
		ib_uverbs)
			ibv_devices 2>/dev/null | grep -q vmlx0 ||
				tap_bail "libibverbs does not see vmlx0"
			;;
		ib_umad)
			[[ -d /sys/class/infiniband_mad ]] ||
				tap_bail "no /sys/class/infiniband_mad"
			;;
		ib_verbs_test)
			[[ -d /sys/kernel/debug/ib_verbs_test &&
			   -d /sys/kernel/debug/vmlx ]] ||
				tap_bail "no debugfs files of ib_verbs_test or vmlx"
			;;
		esac
	done
	VMLX_RES_BASELINE=$(rdma res show 2>&1)
	tap_diag "rdma res at the start:" "$VMLX_RES_BASELINE"
}

port_guid() {
	cut -d: -f5-8 <"/sys/class/infiniband/$1/ports/1/gids/0" | tr -d :
}

ports_active() {
	local secs=$1 d n
	local -a devs

	shift
	devs=("$@")
	if [[ ${#devs[@]} -eq 0 ]]; then
		for d in /sys/class/infiniband/vmlx*; do
			devs+=("${d##*/}")
		done
	fi
	for _ in $(seq "$secs"); do
		n=0
		for d in "${devs[@]}"; do
			[[ $(cat "/sys/class/infiniband/$d/ports/1/state") == \
			   "4: ACTIVE" ]] && n=$((n + 1))
		done
		[[ $n -eq ${#devs[@]} ]] && return 0
		sleep 1
	done
	return 1
}

# switch_lid: the LID of the emulated switch (the first hop of vmlx0)
switch_lid() {
	smpquery -D portinfo 0,1 0 2>/dev/null | sed -n 's/^Lid:\.*//p'
}

# switch_port HCA: the switch port HCA's port 1 is cabled to
switch_port() {
	smpquery -C "$1" -D nodeinfo 0,1 2>/dev/null | sed -n 's/^LocalPort:\.*//p'
}

# mft_has SWLID MLID PORT: 0 if the switch of LID SWLID forwards the
# multicast LID MLID (decimal or 0x...) out of its port PORT (ibroute
# -M: an "x" under the port's number)
mft_has() {
	ibroute -M "$1" 2>/dev/null | python3 -c '
import sys
mlid, port = int(sys.argv[1], 0), sys.argv[2]
col = None
for line in sys.stdin:
    if "Ports:" in line:
        head = line.split("Ports:")
        at = len(head[0]) + len("Ports:")
        for tok in head[1].split():
            at = line.index(tok, at)
            if tok == port:
                col = at
            at += len(tok)
    elif col is not None and line.startswith("0x"):
        if int(line.split()[0], 16) == mlid:
            sys.exit(0 if line[col:col + 1] == "x" else 1)
sys.exit(1)' "$2" "$3"
}

OPENSM_PID=
OPENSM_LOG=
opensm_dir=

opensm_start() {
	if [[ -z $opensm_dir ]]; then
		opensm_dir=$(mktemp -d)
		OPENSM_LOG=$opensm_dir/opensm.log
		echo "force_log_flush TRUE" >"$opensm_dir/opensm.conf"
	fi
	local dev=vmlx0

	if [[ ${1:-} == --on ]]; then
		dev=$2
		shift 2
	fi
	if [[ ${1:-} == --partitions ]]; then
		echo "$2" >"$opensm_dir/partitions.conf"
		echo "partition_config_file $opensm_dir/partitions.conf" \
			>>"$opensm_dir/opensm.conf"
		shift 2
	fi
	: >"$OPENSM_LOG"
	opensm -F "$opensm_dir/opensm.conf" -g "0x$(port_guid "$dev")" \
		-f "$OPENSM_LOG" "$@" >>"$opensm_dir/opensm.out" 2>&1 &
	OPENSM_PID=$!
}

opensm_up() {
	for _ in $(seq "$1"); do
		grep -q "SUBNET UP" "$OPENSM_LOG" && return 0
		sleep 1
	done
	return 1
}

opensm_stop() {
	[[ -n $OPENSM_PID ]] || return 0
	kill "$OPENSM_PID" 2>/dev/null
	wait "$OPENSM_PID" 2>/dev/null
	OPENSM_PID=
}
