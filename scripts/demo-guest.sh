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
show modprobe vmlx num_hcas=2
show "lsmod | grep -E '^(Module|ib_core|vmlx)'"
show modinfo -F filename ib_core vmlx
show ls -l /sys/class/infiniband/
for dev in /sys/class/infiniband/*; do
	show "grep -H . $dev/{node_type,node_guid,sys_image_guid,fw_ver,node_desc}"
done
show "dmesg | grep -iE 'vmlx|ib_core|infiniband' | tail -n 5"
show rmmod vmlx ib_core
show ls /sys/class/infiniband/
echo "=== end of demo ==="
