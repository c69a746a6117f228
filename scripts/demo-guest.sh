#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM: each command is shown with a prompt, then its
# output, as on a user's terminal.
set -u

show() {
	echo "# $*"
	eval "$@" 2>&1 | sed 's/^/  /'
	echo
}

echo "=== ibstack demo: what a user of this kernel sees ==="
echo
show uname -r
# No subnet manager yet: static_lids=1 makes the module assign LIDs 1, 2
# and bring the ports ACTIVE.
show modprobe vmlx num_hcas=2 static_lids=1
show modprobe ib_uverbs
show "lsmod | grep -E '^(Module|ib_core|ib_uverbs|vmlx)'"
show modinfo -F filename ib_core ib_uverbs vmlx
show ls -l /sys/class/infiniband/ /dev/infiniband/
for dev in /sys/class/infiniband/*; do
	show "grep -H . $dev/{node_type,node_guid,fw_ver,node_desc} $dev/ports/1/{state,lid,rate}"
done
show rdma dev
show rdma link
show ibv_devices
show ibv_devinfo -d vmlx0
# kernel bypass: librxe drives vmlx through ib_uverbs
show "(ibv_rc_pingpong -d vmlx1 -n 200 -s 4096 & sleep 1; ibv_rc_pingpong -d vmlx0 -n 200 -s 4096 127.0.0.1; wait)"
show "(ibv_rc_pingpong -d vmlx1 -n 100000000 >/dev/null 2>&1 & sleep 1; ibv_rc_pingpong -d vmlx0 -n 100000000 127.0.0.1 >/dev/null 2>&1 & sleep 3; rdma res; rdma res show qp; kill %1 %2; wait)"
show rdma res
show "dmesg | grep -iE 'vmlx|ib_core|infiniband' | tail -n 5"
show rmmod ib_uverbs vmlx ib_core
show ls /sys/class/infiniband/
echo "=== end of demo ==="
