#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test: every test platform in turn, fastest first.  Each stage prints
# TAP; this script shows it, counts the top-level test points of all stages
# and ends with the line "N passed, N failed".  A stage that fails without
# reporting a failing test point counts as one failure of its own.
#
# Usage: tests/run-all.sh [STAGE...]   (stages: abi build libsdp kunit vm shell)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

passed=0
failed=0

count_stage() {	# count_stage NAME OUTPUT-FILE STATUS: add up a finished stage
	local name=$1 out=$2 rc=$3 ok nok

	ok=$(grep -c '^ok ' "$out")
	nok=$(grep -c '^not ok ' "$out")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		echo "not ok - stage $name exited with status $rc"
		nok=1
	fi
	passed=$((passed + ok))
	failed=$((failed + nok))
	echo "### $name: $ok passed, $nok failed"
}

run_stage() {	# run_stage NAME COMMAND...
	local name=$1 out rc
	shift
	echo "### $name: $*"
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	count_stage "$name" "$out" "$rc"
	rm -f "$out"
}

# The scenarios boot guests of their own and share nothing, so they run
# $RDMA_TEST_JOBS at a time (2: the machine's two cores).  Each one's
# output is shown whole, in the order of the scenarios, once it is done.
scenarios=(tests/scenarios/*.sh)
vm_dir=
vm_next=0

show_scenarios() {	# print and count the finished scenarios, in order
	local name

	while [ "$vm_next" -lt "${#scenarios[@]}" ] &&
	      [ -e "$vm_dir/$vm_next.rc" ]; do
		name="vm $(basename "${scenarios[$vm_next]}" .sh)"
		echo "### $name: tests/vm/vm-run.sh ${scenarios[$vm_next]}"
		cat "$vm_dir/$vm_next.out"
		count_stage "$name" "$vm_dir/$vm_next.out" \
			"$(cat "$vm_dir/$vm_next.rc")"
		vm_next=$((vm_next + 1))
	done
}

run_scenarios() {
	local jobs=${RDMA_TEST_JOBS:-2} i running=0
	local -a opts

	vm_dir=$(mktemp -d)
	for i in "${!scenarios[@]}"; do
		while [ "$running" -ge "$jobs" ]; do
			wait -n
			running=$((running - 1))
			show_scenarios
		done
		# A scenario may ask for harness options (e.g. --smp 2) in
		# a line "# vm-run-options: ..." of its header.
		read -ra opts < <(sed -n 's/^# vm-run-options: *//p' \
			"${scenarios[$i]}")
		(
			tests/vm/vm-run.sh "${opts[@]}" "${scenarios[$i]}" \
				>"$vm_dir/$i.out" 2>&1 </dev/null
			echo $? >"$vm_dir/$i.rc.tmp"
			mv "$vm_dir/$i.rc.tmp" "$vm_dir/$i.rc"
		) &
		running=$((running + 1))
	done
	wait
	show_scenarios
	rm -rf "$vm_dir"
}

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(abi build libsdp kunit vm shell)

for stage in "${stages[@]}"; do
	case $stage in
	abi)	run_stage abi python3 tests/abi/check-uapi.py ;;
	build)	run_stage build tests/build-checks.sh ;;
	libsdp)	run_stage libsdp tests/libsdp/run.sh ;;
	kunit)	run_stage kunit tests/kunit/run-kunit.sh ;;
	vm)	run_scenarios ;;
	shell)	run_stage shell tests/vm/selftest-shell.sh ;;
	*)	echo "run-all.sh: unknown stage '$stage'" >&2; exit 2 ;;
	esac
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
