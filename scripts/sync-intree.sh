#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Place the project in-tree in the unpacked linux-source-6.1 (see
# kernel-source.sh): the tree as drivers/infiniband, include/rdma and
# include/uapi/rdma replacing upstream's.  Prints the kernel tree's path.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
src=$("$repo/scripts/kernel-source.sh")

# Build products of the out-of-tree build must not reach the kernel tree,
# where kbuild would find them through VPATH.
rsync -a --delete --exclude=.git --exclude=/include/ \
      --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
      --exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
      --exclude=Module.symvers --exclude=modules.order \
      --exclude=__pycache__/ "$repo/" "$src/drivers/infiniband/"
rsync -a --delete "$repo/include/rdma/" "$src/include/rdma/"
rsync -a --delete "$repo/include/uapi/rdma/" "$src/include/uapi/rdma/"
echo "$src"
