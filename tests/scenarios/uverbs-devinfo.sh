#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: ib_uverbs (Stage A of the user ABI).  The character
# devices and their sysfs class as libibverbs finds them; Debian's
# unmodified ibv_devices and ibv_devinfo (-v) against the vmlx HCAs; raw
# write() commands with good and bad input (uverbs_cmd.py); 1000
# open/GET_CONTEXT/ALLOC_PD/close cycles leaking nothing; 20000 random
# commands and mmaps (uverbs_fuzz.py, fixed seed); removal of the
# driver while a process holds the device open.  The harness fails the
# run on any kernel warning, e.g. the core's report of objects left behind
# at the rmmod.
#
# Arguments: [SEED [ITERATIONS]] of the random commands (default 20261121,
# 20000).
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"

ib=/sys/class/infiniband
uv=/sys/class/infiniband_verbs
py=/usr/bin/python3
cmdpy=$here/uverbs_cmd.py

devnum() {	# devnum FILE: MAJOR:MINOR of a device node, in decimal
	printf '%d:%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"
}

guid_of() {	# guid_of IBDEV: the node GUID as ibv_devices prints it
	tr -d ':\n' <"$ib/$1/node_guid"
}

vmlx_start ib_uverbs
tap_is "ib_uverbs is ours, from updates/" \
	"$(modinfo -n ib_uverbs | grep -c "/updates/")" 1

# --- the character devices and their class -----------------------------
tap_is "uverbs0 is 231:192" "$(devnum /dev/infiniband/uverbs0)" 231:192
tap_is "uverbs1 is 231:193" "$(devnum /dev/infiniband/uverbs1)" 231:193
tap_is "uverbs0 is a character device, mode 0666" \
	"$(stat -c %F:%a /dev/infiniband/uverbs0)" "character special file:666"
tap_is "class abi_version" "$(cat $uv/abi_version)" 6
tap_is "uverbs0 ibdev" "$(cat $uv/uverbs0/ibdev)" vmlx0
tap_is "uverbs1 ibdev" "$(cat $uv/uverbs1/ibdev)" vmlx1
tap_is "uverbs0 abi_version (the driver's)" "$(cat $uv/uverbs0/abi_version)" 2
tap_is "uverbs0 dev" "$(cat $uv/uverbs0/dev)" 231:192

# --- libibverbs ---------------------------------------------------------
# librxe binds to the vmlx devices because RDMA netlink reports their
# driver id (GET_CHARDEV); sysfs-only discovery would not find them.
out=$(ibv_devices)
tap_like "ibv_devices: vmlx0 $(guid_of vmlx0)" "$out" \
	"vmlx0[[:space:]]+$(guid_of vmlx0)"
tap_like "ibv_devices: vmlx1 $(guid_of vmlx1)" "$out" \
	"vmlx1[[:space:]]+$(guid_of vmlx1)"

for i in 0 1; do
	out=$(ibv_devinfo -d vmlx$i 2>&1)
	tap_ok $? "ibv_devinfo -d vmlx$i"
	g=$(sed 's/^\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1:\2:\3:/' \
		<<<"$(guid_of vmlx$i)")
	for want in "transport:[[:space:]]+InfiniBand \(0\)" \
		    "fw_ver:[[:space:]]+0\.1\.0" \
		    "node_guid:[[:space:]]+$g" \
		    "sys_image_guid:[[:space:]]+$g" \
		    "vendor_id:[[:space:]]+0x6766d[[:space:]]" \
		    "phys_port_cnt:[[:space:]]+1" \
		    "state:[[:space:]]+PORT_ACTIVE \(4\)" \
		    "port_lid:[[:space:]]+$((i + 1))[[:space:]]" \
		    "link_layer:[[:space:]]+InfiniBand" \
		    "active_mtu:[[:space:]]+4096 \(5\)"; do
		tap_like "ibv_devinfo vmlx$i: $want" "$out" "$want"
	done
done
tap_check "ibv_devinfo -v" ibv_devinfo -v

# --- raw commands -------------------------------------------------------
tap_checker "raw commands on uverbs0" \
	"$py" "$cmdpy" abi /dev/infiniband/uverbs0 vmlx0 1
tap_checker "raw commands on uverbs1" \
	"$py" "$cmdpy" abi /dev/infiniband/uverbs1 vmlx1 2
tap_checker "open/close cycles" \
	"$py" "$cmdpy" cycles /dev/infiniband/uverbs0 1000
tap_checker "randomised commands" "$py" "$here/uverbs_fuzz.py" \
	/dev/infiniband/uverbs0 "${2:-20000}" "${1:-20261121}"
tap_is "rdma res after the raw commands: as before" "$(rdma res show 2>&1)" \
	"$VMLX_RES_BASELINE"
tap_is "rdma res: no user object left" \
	"$(for res in pd cq qp mr; do rdma res show "$res" 2>&1; done |
	   grep -v 'comm \[')" ""

# --- removal with the device held open ----------------------------------
run=$(mktemp -d)
"$py" "$cmdpy" hold /dev/infiniband/uverbs0 "$run/ready" "$run/go" \
	>"$run/out" 2>&1 &
holder=$!
for _ in $(seq 100); do
	[[ -e $run/ready ]] && break
	sleep 0.1
done
tap_ok "$([[ -e $run/ready ]]; echo $?)" "holder has a context, a PD, a CQ, a QP, an MR, an AH, an SRQ"
tap_check "rmmod vmlx with uverbs0 held open" timeout 60 rmmod vmlx
tap_is "uverbs devices gone" "$(ls $uv | grep -c uverbs)" 0
tap_ok "$([[ ! -e /dev/infiniband/uverbs0 ]]; echo $?)" \
	"/dev/infiniband/uverbs0 gone"
touch "$run/go"
wait "$holder"
rc=$?
tap_results <"$run/out"
tap_ok "$rc" "holder got errors and exited cleanly"
rm -rf "$run"

tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod ib_core" rmmod ib_core
tap_done
