#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM: each command is shown with a prompt, then its
# output, as on a user's terminal.
set -u
. "$(dirname "$0")/ipoib-netns.sh"
sdplib=$(cd "$(dirname "$0")/../ulp/sdp/libsdp" && pwd)/libsdp.so

# show CMD...: CMD and its output; its exit status
show() {
	local status

	echo "# $*"
	eval "$@" 2>&1 | sed 's/^/  /'
	status=${PIPESTATUS[0]}
	echo
	return "$status"
}

echo "=== ibstack demo: what a user of this kernel sees ==="
echo
show uname -r
# Four HCAs cabled to the emulated switch.  Like real hardware the ports
# come up in INIT with no LID: a subnet manager must bring them up.
show modprobe vmlx num_hcas=4
show modprobe ib_umad
show modprobe ib_uverbs
# IP over InfiniBand: an interface per port, ib0 ... ib3
show modprobe ib_ipoib
show "lsmod | grep -E '^(Module|ib_core|ib_umad|ib_uverbs|ib_ipoib|vmlx)'"
show ls -l /sys/class/infiniband/ /sys/class/infiniband_mad/ /dev/infiniband/
show ibstat vmlx0
# Debian's unmodified opensm on vmlx0 port 1, through /dev/infiniband/umad0
pg=0x$(cut -d: -f5-8 </sys/class/infiniband/vmlx0/ports/1/gids/0 | tr -d :)
echo "# opensm -g $pg -f /tmp/opensm.log &"
opensm -g "$pg" -f /tmp/opensm.log >/tmp/opensm.out 2>&1 &
smpid=$!
for _ in $(seq 60); do
	[ "$(grep -l ACTIVE /sys/class/infiniband/*/ports/1/state | wc -l)" -eq 4 ] &&
		break
	sleep 1
done
sed 's/^/  /' /tmp/opensm.out
echo
show ibstat
show ibstatus vmlx3
show ibnetdiscover
show iblinkinfo
show sminfo
lid2=$(($(cat /sys/class/infiniband/vmlx2/ports/1/lid)))
lid3=$(($(cat /sys/class/infiniband/vmlx3/ports/1/lid)))
show smpquery nodeinfo "$lid2"
show saquery NR
show rdma dev
show rdma link
show ibv_devices
show ibv_devinfo -d vmlx0
# kernel bypass with the LIDs opensm assigned: librxe drives vmlx through
# ib_uverbs
show "(ibv_rc_pingpong -d vmlx1 -n 200 -s 4096 & sleep 1; ibv_rc_pingpong -d vmlx3 -n 200 -s 4096 127.0.0.1; wait)"
show perfquery "$lid3" 1
show "(ibv_rc_pingpong -d vmlx1 -n 100000000 >/dev/null 2>&1 & sleep 1; ibv_rc_pingpong -d vmlx0 -n 100000000 127.0.0.1 >/dev/null 2>&1 & sleep 3; rdma res; rdma res show qp; kill %1 %2; wait)"
show rdma res
# IPoIB between vmlx0 and vmlx1: ib0 and ib1 in two network namespaces,
# so that the packets cross the fabric
demo_status=0
if ipoib_netns_up show && ipoib_netns_wait 60; then
	show ip -n ns0 -d link show ib0
	show ip -n ns0 addr show ib0
	show ip netns exec ns0 ping -c 5 "$IPOIB_NS1_ADDR" || demo_status=1
	show ip -n ns0 neigh show dev ib0
	show ip netns exec ns0 rdma link show vmlx0/1
	show ip netns exec ns1 ls /sys/class/infiniband/vmlx1/device/net/
	# the RDMA CM: rping connects by IP address (IPoIB's neighbour gives
	# the GID, the SA the path, the IB CM the connection), data verified
	show modprobe rdma_ucm
	show "(ip netns exec ns1 rping -s -a $IPOIB_NS1_ADDR -V -C 10 -S 64 & sleep 2; ip netns exec ns0 rping -c -a $IPOIB_NS1_ADDR -v -V -C 10 -S 64; rc=\$?; wait; exit \$rc)" ||
		demo_status=1
	show "(ip netns exec ns1 rping -s -a $IPOIB_NS1_ADDR -C 1000000 >/dev/null 2>&1 & sleep 2; ip netns exec ns0 rping -c -a $IPOIB_NS1_ADDR -C 1000000 >/dev/null 2>&1 & sleep 3; rdma res show cm_id; kill %1 %2; wait)"
	# SDP: socat, an unmodified TCP program, under libsdp.so moves a
	# file over RDMA; /proc/net/sdpstats counts its bytes
	show modprobe ib_sdp
	pre="env LD_PRELOAD=$sdplib SIMPLE_LIBSDP=1"
	show "head -c 8M /dev/urandom > /tmp/sdp.in; sha256sum < /tmp/sdp.in"
	show "(ip netns exec ns1 $pre socat -u TCP-LISTEN:5000 OPEN:/tmp/sdp.out,creat,trunc & sleep 2; ip netns exec ns0 $pre socat -u OPEN:/tmp/sdp.in TCP:$IPOIB_NS1_ADDR:5000; rc=\$?; wait; sha256sum < /tmp/sdp.out; exit \$rc)" ||
		demo_status=1
	cmp -s /tmp/sdp.in /tmp/sdp.out || demo_status=1
	show ip netns exec ns1 cat /proc/net/sdpstats
	show rmmod ib_sdp
else
	echo "IPoIB: ib0 and ib1 did not come up"
	demo_status=1
fi
ipoib_netns_down

# SRP: Debian's targetcli exports a ramdisk through ib_srpt on vmlx3;
# ibsrpdm finds it from vmlx2, whose ib_srp logs in; the disk gets a
# file system.  (No udev in this VM: sd_mod is loaded by hand.)  A
# private D-Bus, as targetcli asks the system bus for tcmu-runner.
mkdir -p /tmp/dbus /tmp/srpdisk
dbus-daemon --config-file=/usr/share/dbus-1/session.conf \
	--address=unix:path=/tmp/dbus/bus --fork --print-pid >/tmp/dbus/pid
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/dbus/bus
show modprobe -a ib_srpt ib_srp sd_mod
gid3=$(tr -d : </sys/class/infiniband/vmlx3/ports/1/gids/0)
guid2=$(cut -d: -f5-8 </sys/class/infiniband/vmlx2/ports/1/gids/0 | tr -d :)
show targetcli /backstores/ramdisk create name=rd0 size=32M
show targetcli /srpt create ib.$gid3
show targetcli /srpt/ib.$gid3/luns create /backstores/ramdisk/rd0
show targetcli /srpt/ib.$gid3/acls create ib.0000000000000000$guid2
umad2=$(grep -l vmlx2 /sys/class/infiniband_mad/umad*/ibdev | head -n 1 | xargs dirname | xargs basename)
show ibsrpdm -c -d /dev/infiniband/$umad2
line=$(ibsrpdm -c -d /dev/infiniband/$umad2 | grep "dgid=$gid3")
show "echo $line > /sys/class/infiniband_srp/srp-vmlx2-1/add_target" ||
	demo_status=1
show lsscsi
sd=$(lsscsi | awk '/LIO-ORG/ { print $NF; exit }')
if [ -b "$sd" ]; then
	show mkfs.ext4 -q "$sd"
	show mount "$sd" /tmp/srpdisk
	show "head -c 8M /dev/urandom > /tmp/srpdisk/file; sha256sum /tmp/srpdisk/file; df -h /tmp/srpdisk"
	show umount /tmp/srpdisk
	show "echo 1 > /sys/class/srp_remote_ports/\$(ls /sys/class/srp_remote_ports)/delete"
else
	echo "SRP: no disk appeared"
	demo_status=1
fi
sleep 1
show targetcli clearconfig confirm=True
rmdir /sys/kernel/config/target/srpt 2>/dev/null
kill "$(cat /tmp/dbus/pid)"

kill "$smpid"
wait "$smpid" 2>/dev/null
show "dmesg | grep -iE 'vmlx|ib_core|infiniband' | tail -n 5"
show rmmod ib_srp ib_srpt rdma_ucm rdma_cm ib_ipoib ib_cm ib_uverbs ib_umad vmlx ib_core
show ls /sys/class/infiniband/
echo "=== end of demo ==="
exit "$demo_status"
