#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the sysfs topology of the software HCAs and their IPoIB
# interfaces, what tools that map RDMA devices to net devices rely on.
#
#  - vmlx puts a device vmlx<N> per HCA on its own bus "vmlx", bound to
#    the driver "vmlx" (no bind/unbind files), and makes it the parent of
#    the ib_device: /sys/class/infiniband/vmlx<N>/device.
#  - ib_ipoib's interfaces sit under that parent:
#    /sys/class/infiniband/vmlx<N>/device/net/ib<M> and
#    /sys/class/net/ib<M>/device/infiniband/vmlx<N>; dev_port and dev_id
#    are the port number less one; an ibdev2netdev-style loop maps every
#    port to its interface; udevadm info -a shows the bus parent.
#  - rdma link shows "netdev ib<M>" for the port (ib_device_set_netdev),
#    only in the namespace the interface lives in, and not once ib_ipoib
#    is gone; a P_Key child does not take the parent's place.
#  - Two ports on one HCA: ib0 and ib1 under the same parent, dev_port 0
#    and 1.
#  - rmmod vmlx, also with a file of the bus device held open, leaves no
#    bus, device or driver behind.  No opensm: none of this needs one.
#
# vm-run-options: --smp 2
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"

ib=/sys/class/infiniband
bus=/sys/bus/vmlx
cleanup() {
	ip netns del a 2>/dev/null
}
trap cleanup EXIT

# ibdev2netdev: "DEV port P ==> NETDEV" for every net device under an RDMA
# device's parent, the way the script of that name finds them
ibdev2netdev() {
	local d n port
	for d in "$ib"/*; do
		for n in "$d"/device/net/*; do
			[[ -e $n ]] || continue
			port=$(($(cat "$n/dev_port") + 1))
			echo "${d##*/} port $port ==> ${n##*/}"
		done
	done | sort
}

# link_netdev DEV/PORT [NS]: the "netdev" rdma link shows for the port
link_netdev() {
	local cmd=(rdma link show "$1")
	[[ -z ${2:-} ]] || cmd=(ip netns exec "$2" "${cmd[@]}")
	"${cmd[@]}" | sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}

vmlx_start --params "num_hcas=2"

# --- the bus ---------------------------------------------------------------------------------
tap_is "bus vmlx: one device per HCA" "$(ls $bus/devices 2>&1 | xargs)" \
	"vmlx0 vmlx1"
tap_is "driver vmlx bound to both" \
	"$(cd $bus/drivers/vmlx 2>/dev/null && ls -d vmlx[0-9]* | xargs)" \
	"vmlx0 vmlx1"
tap_is "no bind/unbind files: the binding lasts as long as the HCA" \
	"$(ls $bus/drivers/vmlx | grep -c '^\(un\)\?bind$')" 0
for i in 0 1; do
	tap_is "vmlx$i: its parent is the bus device" \
		"$(readlink -f $ib/vmlx$i/device)" /sys/devices/vmlx$i
	tap_is "vmlx$i: the parent's subsystem is bus vmlx" \
		"$(readlink -f $ib/vmlx$i/device/subsystem)" /sys/bus/vmlx
	tap_is "vmlx$i: the parent's driver is vmlx" \
		"$(basename "$(readlink -f $ib/vmlx$i/device/driver)")" vmlx
	tap_is "vmlx$i: the parent names it in infiniband/" \
		"$(ls /sys/devices/vmlx$i/infiniband 2>&1)" vmlx$i
done
tap_like "the bus device's uevent" "$(cat $bus/devices/vmlx0/uevent)" \
	"DRIVER=vmlx"
tap_is "no net device yet" "$(ibdev2netdev)" ""
tap_is "rdma link: no netdev before ib_ipoib" "$(link_netdev vmlx0/1)" ""

# --- IPoIB under it --------------------------------------------------------------------------
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
for i in 0 1; do
	tap_ok "$([[ -d $ib/vmlx$i/device/net/ib$i ]]; echo $?)" \
		"vmlx$i/device/net/ib$i exists"
	tap_is "ib$i/device/infiniband is vmlx$i" \
		"$(ls /sys/class/net/ib$i/device/infiniband 2>&1)" vmlx$i
	tap_is "ib$i: dev_port 0" "$(cat /sys/class/net/ib$i/dev_port)" 0
	tap_is "ib$i: dev_id 0x0" "$(cat /sys/class/net/ib$i/dev_id)" 0x0
	tap_is "rdma link vmlx$i/1: netdev ib$i" "$(link_netdev vmlx$i/1)" \
		ib$i
done
tap_is "ibdev2netdev: every port to its interface" "$(ibdev2netdev)" \
	"vmlx0 port 1 ==> ib0"$'\n'"vmlx1 port 1 ==> ib1"
out=$(rdma -j link show vmlx0/1)
tap_is "rdma -j link: netdev_index is ib0's ifindex" \
	"$(python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["netdev_index"])' \
	   <<<"$out" 2>&1)" "$(cat /sys/class/net/ib0/ifindex)"
out=$(udevadm info -a -p /sys/class/net/ib0 2>&1)
tap_like "udevadm info -a: ib0's parent on bus vmlx, driver vmlx" "$out" \
	"KERNELS==\"vmlx0\""$'\n'"[[:space:]]*SUBSYSTEMS==\"vmlx\""$'\n'"[[:space:]]*DRIVERS==\"vmlx\""
out=$(udevadm info -q property -p /sys/class/net/ib0 2>&1)
tap_like "udevadm info: ib0's device path is under vmlx0" "$out" \
	"DEVPATH=/devices/vmlx0/net/ib0"

# a child sits under the same parent and does not replace ib0
tap_check "create_child 0x8001" sh -c \
	"echo 0x8001 >/sys/class/net/ib0/create_child"
tap_ok "$([[ -d $ib/vmlx0/device/net/ib0.8001 ]]; echo $?)" \
	"vmlx0/device/net/ib0.8001 exists"
tap_is "rdma link vmlx0/1: still netdev ib0" "$(link_netdev vmlx0/1)" ib0
tap_check "delete_child 0x8001" sh -c \
	"echo 0x8001 >/sys/class/net/ib0/delete_child"

# the netdev is shown only where it lives
ip netns add a
tap_check "ib0 into netns a" ip link set ib0 netns a
tap_is "rdma link in the init namespace: no netdev for vmlx0/1" \
	"$(link_netdev vmlx0/1)" ""
tap_is "rdma link in netns a: netdev ib0" "$(link_netdev vmlx0/1 a)" ib0
tap_is "netns a's sysfs: vmlx0/device/net/ib0" \
	"$(ip netns exec a ls $ib/vmlx0/device/net 2>&1)" ib0
tap_is "the init namespace's sysfs: not there (net is per namespace)" \
	"$(ls $ib/vmlx0/device/net 2>/dev/null)" ""
ip netns del a
for _ in $(seq 50); do
	[[ -e /sys/class/net/ib0 ]] && break
	sleep 0.1
done
tap_is "netns a deleted: ib0 is back, rdma link names it" \
	"$(link_netdev vmlx0/1)" ib0

tap_check "rmmod ib_ipoib" rmmod ib_ipoib
tap_is "rdma link: no netdev after ib_ipoib" "$(link_netdev vmlx0/1)" ""
tap_is "no net device left under the HCAs" "$(ibdev2netdev)" ""

# --- two ports on one HCA ----------------------------------------------------------------
tap_check "rmmod vmlx" rmmod vmlx
tap_is "no vmlx bus after rmmod" "$(ls -d $bus /sys/devices/vmlx[0-9]* 2>/dev/null)" ""
tap_check "modprobe vmlx num_hcas=1 num_ports=2" \
	modprobe vmlx num_hcas=1 num_ports=2
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_is "ib0: dev_port 0" "$(cat /sys/class/net/ib0/dev_port)" 0
tap_is "ib1: dev_port 1" "$(cat /sys/class/net/ib1/dev_port)" 1
tap_is "ib1: dev_id 0x1" "$(cat /sys/class/net/ib1/dev_id)" 0x1
tap_is "ibdev2netdev: both ports of vmlx0" "$(ibdev2netdev)" \
	"vmlx0 port 1 ==> ib0"$'\n'"vmlx0 port 2 ==> ib1"
tap_is "rdma link vmlx0/2: netdev ib1" "$(link_netdev vmlx0/2)" ib1

# --- removal -------------------------------------------------------------------------------
# the HCA goes with ib_ipoib loaded and a file of its bus device open
exec 3<"$bus/devices/vmlx0/uevent"
timeout 60 rmmod vmlx
tap_ok $? "rmmod vmlx with ib_ipoib loaded and the bus device's uevent open"
exec 3<&-
tap_is "no bus, device or driver left" \
	"$(ls -d $bus /sys/devices/vmlx[0-9]* /sys/class/net/ib* 2>/dev/null)" ""
tap_check "rmmod ib_ipoib" rmmod ib_ipoib
tap_check "modprobe vmlx again: the bus comes back" modprobe vmlx
tap_is "bus vmlx again" "$(ls $bus/devices 2>&1 | xargs)" "vmlx0 vmlx1"
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_cm ib_core" rmmod ib_cm ib_core
tap_done
