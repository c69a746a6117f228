#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: ib_core and vmlx loaded with modprobe inside Debian's 6.1
# kernel; the devices in /sys/class/infiniband with upstream's formats;
# module parameters validated; everything unloads again.  The harness
# fails the run on any kernel warning in dmesg.
set -u
. "$(dirname "$0")/../vm/tap.sh"

ib=/sys/class/infiniband

tap_plan 25

tap_check "modprobe vmlx" modprobe vmlx
tap_is "ib_core is ours, from updates/" \
	"$(modinfo -n ib_core | grep -c "/updates/")" 1
tap_is "vmlx pulled in ib_core" \
	"$(lsmod | awk '$1 == "ib_core" { print $4 }')" vmlx
tap_is "default: two HCAs vmlx0 vmlx1" "$(ls $ib | xargs)" "vmlx0 vmlx1"
tap_is "node_type" "$(cat $ib/vmlx0/node_type)" "1: CA"
tap_is "node_guid of vmlx0" "$(cat $ib/vmlx0/node_guid)" "0676:6d6c:0000:0000"
tap_is "node_guid of vmlx1" "$(cat $ib/vmlx1/node_guid)" "0676:6d6c:0000:0010"
tap_is "sys_image_guid" "$(cat $ib/vmlx1/sys_image_guid)" "0676:6d6c:0000:0010"
tap_is "fw_ver" "$(cat $ib/vmlx0/fw_ver)" "0.1.0"
tap_is "node_desc" "$(cat $ib/vmlx0/node_desc)" "vmlx software HCA"
tap_is "driver attributes hw_rev, hca_type, board_id" \
	"$(cat $ib/vmlx0/hw_rev $ib/vmlx0/hca_type $ib/vmlx0/board_id | xargs)" \
	"0 vmlx VMLX0000000001"
tap_is "under its parent on the vmlx bus" \
	"$(readlink -f $ib/vmlx0)" /sys/devices/vmlx0/infiniband/vmlx0

echo "node a" >$ib/vmlx0/node_desc
tap_is "node_desc written, newline dropped" "$(cat $ib/vmlx0/node_desc)" "node a"
desc64=$(printf 'd%.0s' $(seq 64))
printf '%s' "$desc64" >$ib/vmlx0/node_desc
tap_is "64-byte node_desc kept whole" "$(cat $ib/vmlx0/node_desc)" "$desc64"
tap_check_fails "65-byte node_desc refused" \
	sh -c "printf '%s' '${desc64}x' >$ib/vmlx0/node_desc"
tap_is "refused write left node_desc alone" \
	"$(cat $ib/vmlx0/node_desc)" "$desc64"
tap_check_fails "node_type is read-only" sh -c "echo 2 >$ib/vmlx0/node_type"

tap_check "rmmod vmlx" rmmod vmlx
tap_is "devices gone" "$(ls $ib | wc -l)" 0

modprobe vmlx num_hcas=3 host_id=5
tap_is "num_hcas=3: names from 0 again" "$(ls $ib | xargs)" "vmlx0 vmlx1 vmlx2"
tap_is "host_id in the GUID" "$(cat $ib/vmlx2/node_guid)" "0676:6d6c:0005:0020"
rmmod vmlx

tap_check_fails "num_hcas=0 refused" modprobe vmlx num_hcas=0
tap_check_fails "num_ports=3 refused" modprobe vmlx num_ports=3
tap_is "no device left by refused loads" "$(ls $ib | wc -l)" 0

tap_check "rmmod ib_core" rmmod ib_core
tap_done
