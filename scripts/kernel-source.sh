#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the path of an unpacked linux-source-6.1 tree, unpacking Debian's
# tarball into the cache directory (outside the repo) on first use.  The
# tree is shared by the build checks (checkpatch, kernel-doc) and KUnit.
set -eu
cache=${RDMA_CACHE:-$HOME/.cache/rdma-stack}
tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
if [ -z "$tarball" ]; then
	echo "kernel-source.sh: /usr/src/linux-source-6.1.tar.xz missing (make deps)" >&2
	exit 1
fi
tree=$cache/linux-source-6.1
stamp=$cache/linux-source-6.1.unpacked
# Re-unpack when Debian updates the tarball.
if [ ! -f "$stamp" ] || [ "$tarball" -nt "$stamp" ]; then
	mkdir -p "$cache"
	rm -rf "$tree"
	tar -C "$cache" -xf "$tarball"
	touch "$stamp"
fi
echo "$tree"
