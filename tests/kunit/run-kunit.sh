#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test platform 2, KUnit under UML.  Places the project in-tree in the
# unpacked linux-source-6.1 (our tree as drivers/infiniband, our
# include/rdma and include/uapi/rdma replacing upstream's) and runs
# tools/testing/kunit/kunit.py with the project's .kunitconfig.  The tree
# and the build directory live in the cache directory, outside the repo,
# so that reruns are incremental.  Prints TAP, one line per test case.
#
# Usage: tests/kunit/run-kunit.sh [extra kunit.py run arguments]
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RDMA_CACHE:-$HOME/.cache/rdma-stack}
mkdir -p "$cache"
# One user of the shared in-tree copy and build directory at a time.
exec 9>"$cache/intree.lock"
flock 9
src=$("$repo/scripts/sync-intree.sh")
build=$cache/kunit-build

json=$(mktemp)
log=$(mktemp)
trap 'rm -f "$json" "$log"' EXIT

cd "$src"
rm -f "$build/test.log"
rc=0
python3 tools/testing/kunit/kunit.py run --arch=um --jobs="$(nproc)" \
	--build_dir="$build" --kunitconfig=drivers/infiniband \
	--timeout=600 --json="$json" "$@" >"$log" 2>&1 || rc=$?

# One TAP line per test case, from kunit.py's parsed results.
# The kernel's own log is checked too: a lockdep splat or a warning does
# not fail a KUnit case by itself.
python3 - "$json" "$rc" "$log" "$build/test.log" <<'PY'
import json, re, sys

path, rc, log, klog = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
try:
    with open(path) as f:
        root = json.load(f)
except (OSError, ValueError):
    root = {}

# kunit.py's JSON: a root group whose sub_groups are the suites.
cases = []
def walk(node, prefix):
    for sub in node.get("sub_groups") or []:
        walk(sub, prefix + sub["name"] + ".")
    for case in node.get("test_cases") or []:
        cases.append((prefix + case["name"], case["status"]))
walk(root, "")

bad = re.compile(r"WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|"
                 r"possible circular locking|possible recursive locking|"
                 r"inconsistent lock state|lock held when returning|"
                 r"suspicious RCU usage|refcount_t:|list_(add|del) corruption|"
                 r"ODEBUG:|INFO: task .* blocked")
try:
    with open(klog, errors="replace") as f:
        findings = [l.rstrip() for l in f if bad.search(l)]
except OSError:
    findings = ["no kernel log at " + klog]

print("TAP version 13")
if not cases:
    print("1..1")
    print("not ok 1 - kunit.py ran no test (exit status %d)" % rc)
    with open(log) as f:
        for line in f.read().splitlines()[-40:]:
            print("# " + line)
    sys.exit(1)

print("1..%d" % (len(cases) + 1))
failed = 0
for i, (name, status) in enumerate(cases, 1):
    if status in ("PASS", "SKIP"):
        print("ok %d - %s%s" % (i, name, " # SKIP" if status == "SKIP" else ""))
    else:
        failed += 1
        print("not ok %d - %s (%s)" % (i, name, status))
if findings:
    failed += 1
    print("not ok %d - kernel log of the KUnit run is clean" % (len(cases) + 1))
    for line in findings[:40]:
        print("# " + line)
else:
    print("ok %d - kernel log of the KUnit run is clean" % (len(cases) + 1))
if failed:
    with open(log) as f:
        for line in f.read().splitlines()[-60:]:
            print("# " + line)
elif rc:
    print("# kunit.py exited with status %d" % rc)
    with open(log) as f:
        for line in f.read().splitlines()[-40:]:
            print("# " + line)
sys.exit(1 if failed or rc else 0)
PY
