#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the verbs ioctl (RDMA_VERBS_IOCTL) of ib_uverbs.  Raw
# ioctls with good and bad headers and attributes (uverbs_ioctl.py abi) on
# both HCAs, CQ/QP/SRQ CREATE included; randomised calls mutated from
# valid ones (uverbs_ioctl.py random, fixed seed); then Debian's unmodified
# libibverbs must take the ioctl path: ibv_devinfo -v under strace issues
# RDMA_VERBS_IOCTL calls that succeed and no write() GET_CONTEXT, and
# ibv_rc_pingpong and ibv_srq_pingpong run between vmlx1 and vmlx0 without
# any ioctl answered EPROTONOSUPPORT (so their CQs, QPs and SRQs are made
# by the create methods, not INVOKE_WRITE).  Nothing may be left in
# `rdma res` afterwards.
# The harness fails the run on any kernel warning.
#
# Arguments: [SEED [ITERATIONS]] of the random calls (default 20261122,
# 20000).
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/user.sh"
. "$here/../vm/vmlx.sh"

py=/usr/bin/python3
iopy=$here/uverbs_ioctl.py
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
port=18600

host=$(loopback_host)

run_py() {	# run_py DESC ARGS...: uverbs_ioctl.py ARGS, its checks as TAP
	local desc=$1
	shift
	tap_checker "$desc" timeout 600 "$py" "$iopy" "$@"
}

vmlx_start ib_uverbs

# --- raw ioctls ---------------------------------------------------------
run_py "raw ioctls on uverbs0" abi /dev/infiniband/uverbs0 vmlx0
run_py "raw ioctls on uverbs1" abi /dev/infiniband/uverbs1 vmlx1
run_py "randomised ioctls" random /dev/infiniband/uverbs0 \
	"${2:-20000}" "${1:-20261122}"

# --- libibverbs takes the ioctl path ------------------------------------
strace -f -o "$run/strace" -e trace=ioctl,write \
	ibv_devinfo -v -d vmlx0 >"$run/devinfo" 2>&1
tap_ok $? "ibv_devinfo -v -d vmlx0 under strace exits 0"
tap_like "ibv_devinfo -v: port 1 PORT_ACTIVE" "$(cat "$run/devinfo")" \
	"state:[[:space:]]+PORT_ACTIVE \\(4\\)"
tap_like "ibv_devinfo -v: GID[0] listed" "$(cat "$run/devinfo")" \
	"GID\\[ *0\\]:[[:space:]]+fe80:"
tap_like "ibv_devinfo -v: extended attributes (max_qp_rd_atom)" \
	"$(cat "$run/devinfo")" "max_qp_rd_atom:"
# strace may not know the name of the ioctl
vioctl='(RDMA_VERBS_IOCTL|_IOC\(_IOC_READ\|_IOC_WRITE, 0x1b, 0x1, 0x18\))'
ok_ioctls=$(grep -E -c "ioctl\([0-9]+, $vioctl, .*\) = 0$" "$run/strace")
tap_ok "$([[ $ok_ioctls -ge 3 ]]; echo $?)" \
	"ibv_devinfo: $ok_ioctls RDMA_VERBS_IOCTL calls returned 0 (>= 3)"
probe=$(grep -E -c "$vioctl.*= -1 ENOSPC" "$run/strace")
tap_is "ibv_devinfo: exactly one probe answered ENOSPC" "$probe" 1
# write(fd, "\0\0\0\0..." = GET_CONTEXT (command 0) through write()
writes=$(grep -E -c '^([0-9]+ +)?write\([0-9]+, "\\0\\0\\0\\0' \
	"$run/strace")
tap_is "ibv_devinfo: no write() GET_CONTEXT" "$writes" 0
if [[ $ok_ioctls -lt 3 || $writes -ne 0 ]]; then
	sed 's/^/# strace: /' "$run/strace" | head -40
fi

port=$((port + 1))
run_pair "ibv_rc_pingpong -n 100" "$port" "$run" \
	timeout 60 ibv_rc_pingpong -d vmlx1 -i 1 -p "$port" -n 100 -- \
	timeout 60 strace -f -o "$run/strace2" -e trace=ioctl,write \
	ibv_rc_pingpong -d vmlx0 -i 1 -p "$port" -n 100 "$host"
tap_like "ibv_rc_pingpong: bandwidth line" "$(cat "$run/client")" \
	"bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec"
destroys=$(grep -E -c "$vioctl.*= 0$" "$run/strace2")
tap_ok "$([[ $destroys -ge 8 ]]; echo $?)" \
	"ibv_rc_pingpong: $destroys successful RDMA_VERBS_IOCTL calls (>= 8)"
# libibverbs tries CQ/CREATE and QP/CREATE first and goes to INVOKE_WRITE
# only on EPROTONOSUPPORT
tap_is "ibv_rc_pingpong: no RDMA_VERBS_IOCTL answered EPROTONOSUPPORT" \
	"$(grep -E -c "$vioctl.*EPROTONOSUPPORT" "$run/strace2")" 0

# the same with an SRQ (SRQ/CREATE)
port=$((port + 1))
run_pair "ibv_srq_pingpong -q 4" "$port" "$run" \
	timeout 60 ibv_srq_pingpong -d vmlx1 -i 1 -p "$port" -n 50 -q 4 -- \
	timeout 60 strace -f -o "$run/strace3" -e trace=ioctl,write \
	ibv_srq_pingpong -d vmlx0 -i 1 -p "$port" -n 50 -q 4 "$host"
tap_is "ibv_srq_pingpong: no RDMA_VERBS_IOCTL answered EPROTONOSUPPORT" \
	"$(grep -E -c "$vioctl.*EPROTONOSUPPORT" "$run/strace3")" 0

# --- nothing left -------------------------------------------------------
# (the kernel's own objects, "comm [...]", do not count)
for res in qp cq mr pd; do
	tap_is "rdma res show $res: no user object left" \
		"$(rdma res show "$res" 2>&1 | grep -v 'comm \[')" ""
done

tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod vmlx" rmmod vmlx
tap_done
