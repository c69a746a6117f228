#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot Debian's 6.1 kernel in a QEMU VM with our modules
# installed, load the stack the way a user would, and show what they see.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
echo "Booting a VM (QEMU/TCG, Debian's $(scripts/kver.sh) kernel) ..."
exec "$repo/tests/vm/vm-run.sh" --smp 2 --timeout 600 "$repo/scripts/demo-guest.sh"
