#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the payload of user RC traffic, byte for byte.
# tests/user/rdma-verify (built by `make -C tests/user`) connects an RC QP
# of vmlx0 to one of vmlx1 in one process, through Debian's libibverbs and
# librxe, and checks RDMA WRITE and READ of many sizes at unaligned
# offsets with the canary bytes around every target, SEND and WRITE with
# immediate (byte_len, imm_data, opcode, wr_id), FETCH_AND_ADD and
# CMP_AND_SWP, 64 WRs in flight, and that a bad rkey, an MR without
# remote write and accesses beyond an MR complete with REM_ACCESS_ERR and
# change nothing; at path MTU 256 (multi-packet messages) and 4096.
# Afterwards `rdma res` must show no user QP, CQ, MR or PD left.
#
# vm-run-options: --smp 2
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"

prog=$(cd "$here/../user" && pwd)/rdma-verify

# User objects that `rdma res show TYPE` lists (kernel ones have no pid).
user_res() {
	rdma res show "$1" 2>&1 | grep -c ' pid '
}

vmlx_start ib_uverbs

slab_before=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
if [[ ! -x $prog ]]; then
	tap_fail "rdma-verify is built" \
		"$prog is missing: run 'make -C tests/user' on the host"
else
	for mtu in 256 4096; do
		tap_checker "rdma-verify -m $mtu exits 0" \
			timeout 120 "$prog" -m "$mtu" -s 1
	done
fi

for type in qp cq mr pd; do
	tap_is "rdma res show $type: no user object left" "$(user_res "$type")" 0
done
slab_after=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
tap_diag "Slab: ${slab_before} kB before, ${slab_after} kB after"
tap_ok "$((slab_after > 2 * slab_before + 4096))" \
	"Slab did not grow drastically"

tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod vmlx" rmmod vmlx
tap_done
