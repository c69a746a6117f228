#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the kernel release we build for: $KVER if set, else the newest
# Debian 6.1 kernel whose headers are installed (not the running kernel).
if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi
ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null |
	sed 's|^/usr/src/linux-headers-||' | sort -V | tail -n 1
