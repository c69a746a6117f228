#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where vmlx's data path spends its time: boot a benchmark guest
# (tests/vm/vm-run.sh --bench, 2 CPUs) and run
# tests/bench/vmlx-profile-scenario.sh, which prints the vmlx profile
# (/sys/kernel/debug/vmlx/profile) of each workload.  Not part of make
# bench: a run with the profile on is slower, and its figures are for
# reading, not for comparing.
#
# Usage: tests/bench/vmlx-profile.sh [SECONDS]   (per workload, default 3)
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-3}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

exec "$repo/tests/vm/vm-run.sh" --bench --smp 2 --timeout $((300 + 20 * secs)) \
	"$repo/tests/bench/vmlx-profile-scenario.sh" "$secs"
