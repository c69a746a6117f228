#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest-boot.sh - VM harness self-check: the guest runs Debian's 6.1
# kernel on the host's root (read-only 9p + tmpfs overlay), our module
# directory is in place, and the host's RDMA tools are there.
#
#   tests/vm/vm-run.sh tests/vm/selftest-boot.sh

set -euo pipefail
# shellcheck source=tests/vm/tap.sh
. "$REPO/tests/vm/tap.sh"

tap_plan 10

tap_is "guest runs the kernel vm-run.sh chose" "$(uname -r)" "$KVER"
tap_like "that kernel is Debian's 6.1" "$(</proc/version)" '^Linux version 6\.1\..*Debian'
tap_is "PID 1 is the harness's guest-init, not systemd" \
	"$(tr '\0' ' ' </proc/1/cmdline)" "/bin/bash $REPO/tests/vm/guest-init.sh "

root_fs=$(awk '$2 == "/" { fs = $3 } END { print fs }' /proc/mounts)
tap_is "root is the tmpfs overlay over the host root" "$root_fs" overlay
tap_check "root is writable" touch /etc/vm-run-selftest
tap_is "cwd is the repo" "$PWD" "$REPO"
tap_check "/lib/modules/$KVER/updates exists" test -d "/lib/modules/$KVER/updates"

if [[ -n $(find "/lib/modules/$KVER/updates/" -name ib_core.ko -print -quit) ]]; then
	tap_like "modprobe resolves ib_core to ours in updates/" \
		"$(modinfo -n ib_core)" "^/lib/modules/$KVER/updates/"
else
	tap_skip "modprobe resolves ib_core to ours in updates/" "no ib_core.ko was built"
fi

tap_check "host's ibv_devinfo is visible" test -x /usr/bin/ibv_devinfo
tap_check "host's opensm is visible" test -x /usr/sbin/opensm

tap_done
