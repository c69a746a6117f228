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
src=$("$repo/scripts/sync-intree.sh")
build=$cache/kunit-build

json=$(mktemp)
log=$(mktemp)
trap 'rm -f "$json" "$log"' EXIT

cd "$src"
rc=0
python3 tools/testing/kunit/kunit.py run --arch=um --jobs="$(nproc)" \
	--build_dir="$build" --kunitconfig=drivers/infiniband \
	--timeout=600 --json="$json" "$@" >"$log" 2>&1 || rc=$?

# One TAP line per test case, from kunit.py's parsed results.
python3 - "$json" "$rc" "$log" <<'PY'
import json, sys

path, rc, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    with open(path) as f:
        tests = json.load(f).get("tests", [])
except (OSError, ValueError):
    tests = []

cases = []
def walk(node, prefix):
    subs = node.get("sub_groups") or []
    if subs:
        for sub in subs:
            walk(sub, prefix + node["name"] + ".")
    for case in node.get("test_cases", []):
        cases.append((prefix + node["name"] + "." + case["name"],
                      case["status"], case.get("log", "")))
for t in tests:
    walk(t, "")

print("TAP version 13")
if not cases:
    print("1..1")
    print("not ok 1 - kunit.py ran no test (exit status %d)" % rc)
    with open(log) as f:
        for line in f.read().splitlines()[-40:]:
            print("# " + line)
    sys.exit(1)

print("1..%d" % len(cases))
failed = 0
for i, (name, status, text) in enumerate(cases, 1):
    if status in ("PASS", "SKIP"):
        print("ok %d - %s%s" % (i, name, " # SKIP" if status == "SKIP" else ""))
    else:
        failed += 1
        print("not ok %d - %s (%s)" % (i, name, status))
        for line in str(text).splitlines():
            print("# " + line)
if rc and not failed:
    print("# kunit.py exited with status %d" % rc)
    with open(log) as f:
        for line in f.read().splitlines()[-40:]:
            print("# " + line)
sys.exit(1 if failed or rc else 0)
PY
