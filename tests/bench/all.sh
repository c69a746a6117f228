#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run every benchmark (tests/bench/README.rst), each in its
# own guest, one after the other; then print all their figures as one
# table, with the guests' shape.  Exits 1 if any benchmark failed (its
# figures are missing from the table, which says so).
#
# Usage: tests/bench/all.sh
set -uo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
table=$(mktemp)
trap 'rm -f "$table"' EXIT
status=0

for name in vmlx ipoib rdma-cm srp sdp; do
	echo "### $name-bench" >&2
	if out=$("$dir/$name-bench.sh"); then
		sed "s/^/$name | /" <<<"$out" >>"$table"
	else
		echo "$name | the benchmark failed: no figures" >>"$table"
		status=1
	fi
done

echo
echo "make bench: guests of 2 vCPUs under QEMU/TCG (vmlx's and SRP's with" \
	"2 GiB of memory, the others 1 GiB), on a host with $(nproc) CPUs," \
	"$(date -u +%F)"
echo "------------------------------------------------------------------------"
cat "$table"
exit $status
