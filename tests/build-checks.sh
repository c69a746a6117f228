#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test platform 1, the build checks (make check): every module built out of
# tree with W=1, sparse over every source (C=2), checkpatch --strict over
# every C file, header and Kconfig, and kernel-doc over everything.  Any
# finding fails.  Prints TAP.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
kver=$(scripts/kver.sh)
kdir=${KDIR:-/lib/modules/$kver/build}
cache=${RDMA_CACHE:-$HOME/.cache/rdma-stack}
mkdir -p "$cache"
# One user of the shared in-tree copy at a time (see run-kunit.sh).
exec 9>"$cache/intree.lock"
flock 9
src=$(scripts/sync-intree.sh) || exit 1
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# The KUnit suites are not modules of the Debian kernel (it has no KUnit),
# so they are compiled as objects only, to put them under W=1 and sparse.
kunit_objs=$(find tests/kunit -name '*.c' | sed 's/\.c$/.o/')
kmake=(make -C "$kdir" M="$repo" CONFIG_INFINIBAND=m CONFIG_INFINIBAND_VMLX=m
       CONFIG_INFINIBAND_USER_ACCESS=m CONFIG_INFINIBAND_USER_MAD=m
       CONFIG_INFINIBAND_VERBS_TEST=m CONFIG_INFINIBAND_IPOIB=m
       CONFIG_INFINIBAND_SRPT=m
       CONFIG_INFINIBAND_SRP=m CONFIG_INFINIBAND_SDP=m
       CONFIG_INFINIBAND_SDP_ROGUE_TEST=m
       CONFIG_DEBUG_INFO_BTF_MODULES=)
build() {	# build MAKE-ARGS...: the modules, then the KUnit objects
	"${kmake[@]}" "$@" modules &&
	"${kmake[@]}" CONFIG_INFINIBAND_KUNIT_TEST=m \
		CONFIG_INFINIBAND_VMLX_KUNIT_TEST=m \
		CONFIG_INFINIBAND_IPOIB_KUNIT_TEST=m \
		CONFIG_INFINIBAND_SRP_KUNIT_TEST=m "$@" $kunit_objs
}

failed=0
n=0
report() {	# report DESCRIPTION FINDINGS-FILE
	n=$((n + 1))
	if [ -s "$2" ]; then
		echo "not ok $n - $1"
		sed 's/^/# /' "$2"
		failed=$((failed + 1))
	else
		echo "ok $n - $1"
	fi
}

echo "TAP version 13"
echo "1..4"

# A changed W= makes kbuild recompile everything, so no clean is needed.
build W=1 >"$log/w1" 2>&1
rc=$?
grep -E 'warning:|error:|Error [0-9]' "$log/w1" >"$log/w1.find"
[ $rc -eq 0 ] || [ -s "$log/w1.find" ] || tail -n 20 "$log/w1" >"$log/w1.find"
report "W=1 build of all modules and KUnit objects" "$log/w1.find"

# C=2 runs sparse on every source whether or not it is recompiled.
build C=2 CHECK=sparse >"$log/sparse" 2>&1
rc=$?
grep -E 'warning:|error:' "$log/sparse" >"$log/sparse.find"
[ $rc -eq 0 ] || [ -s "$log/sparse.find" ] || tail -n 20 "$log/sparse" >"$log/sparse.find"
report "sparse (C=2)" "$log/sparse.find"

# checkpatch and kernel-doc run on the in-tree copy, so that they see the
# paths a maintainer would see (drivers/infiniband/..., include/rdma/...).
intree() {	# intree PATTERN...: our tracked files, as in-tree paths
	git ls-files --cached --others --exclude-standard "$@" |
		sed -e '/^include\//!s|^|drivers/infiniband/|' | sort
}
mapfile -t csrc < <(intree '*.c' '*.h')
mapfile -t kconfig < <(intree 'Kconfig' '*/Kconfig')
(cd "$src" && scripts/checkpatch.pl --strict --terse --no-summary \
	--show-types -f "${csrc[@]}" "${kconfig[@]}") >"$log/cp" 2>&1
report "checkpatch.pl --strict on ${#csrc[@]} C files and ${#kconfig[@]} Kconfig files" "$log/cp"

(cd "$src" && scripts/kernel-doc -v -none "${csrc[@]}") 2>&1 |
	grep -E '(warning|error):' >"$log/kdoc"
report "kernel-doc on ${#csrc[@]} files" "$log/kdoc"

# Leave normal objects behind for the next make.
"${kmake[@]}" modules >/dev/null 2>&1

echo "# build checks: $((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
