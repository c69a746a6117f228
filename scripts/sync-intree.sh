#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Place the project in-tree in the unpacked linux-source-6.1 (see
# kernel-source.sh): the tree as drivers/infiniband, include/rdma and
# include/uapi/rdma replacing upstream's.  Prints the kernel tree's path.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
src=$("$repo/scripts/kernel-source.sh")

# Several checkouts may take turns here.  Files are compared by content
# and a changed one gets the current time, not its own: its object built
# from another checkout's newer copy must be rebuilt, whatever the dates.
copy_in() {
	rsync -rlpD --checksum "$@"
}

# Build products of the out-of-tree build must not reach the kernel tree,
# where kbuild would find them through VPATH.
copy_in --delete --exclude=.git --exclude=/include/ \
      --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
      --exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
      --exclude=Module.symvers --exclude=modules.order \
      --exclude=__pycache__/ "$repo/" "$src/drivers/infiniband/"
copy_in --delete "$repo/include/rdma/" "$src/include/rdma/"
# Vendor ABIs we do not implement (hfi/) stay upstream's; restore them if
# an older version of this script deleted them.
copy_in --delete --exclude=/hfi/ "$repo/include/uapi/rdma/" \
      "$src/include/uapi/rdma/"
if [ ! -d "$src/include/uapi/rdma/hfi" ]; then
	tar -C "$(dirname "$src")" -xf /usr/src/linux-source-6.1.tar.xz \
	    linux-source-6.1/include/uapi/rdma/hfi
fi
echo "$src"
