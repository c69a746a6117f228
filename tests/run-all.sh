#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test: every test platform in turn, fastest first.  Each stage prints
# TAP; this script shows it, counts the top-level test points of all stages
# and ends with the line "N passed, N failed".  A stage that fails without
# reporting a failing test point counts as one failure of its own.
#
# Usage: tests/run-all.sh [STAGE...]   (stages: abi build kunit vm)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

passed=0
failed=0

run_stage() {	# run_stage NAME COMMAND...
	local name=$1 out rc ok nok
	shift
	echo "### $name: $*"
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	ok=$(grep -c '^ok ' "$out")
	nok=$(grep -c '^not ok ' "$out")
	rm -f "$out"
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		echo "not ok - stage $name exited with status $rc"
		nok=1
	fi
	passed=$((passed + ok))
	failed=$((failed + nok))
	echo "### $name: $ok passed, $nok failed"
}

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(abi build kunit vm shell)

for stage in "${stages[@]}"; do
	case $stage in
	abi)	run_stage abi python3 tests/abi/check-uapi.py ;;
	build)	run_stage build tests/build-checks.sh ;;
	kunit)	run_stage kunit tests/kunit/run-kunit.sh ;;
	vm)
		# A scenario may ask for harness options (e.g. --smp 2) in
		# a line "# vm-run-options: ..." of its header.
		for scenario in tests/scenarios/*.sh; do
			read -ra opts < <(sed -n \
				's/^# vm-run-options: *//p' "$scenario")
			run_stage "vm $(basename "$scenario" .sh)" \
				tests/vm/vm-run.sh "${opts[@]}" "$scenario"
		done
		;;
	shell)	run_stage shell tests/vm/selftest-shell.sh ;;
	*)	echo "run-all.sh: unknown stage '$stage'" >&2; exit 2 ;;
	esac
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
