# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - what the benchmark scenarios (tests/bench/*-scenario.sh) share.
#
#   ratio A B       A/B with three decimals, "?" if B is not positive

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "?" }'
}
