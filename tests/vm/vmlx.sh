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
