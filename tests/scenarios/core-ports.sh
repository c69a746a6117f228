#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the per-port directories /sys/class/infiniband/<dev>/ports/<p>
# with upstream's names and formats: port state, LIDs and rate; the GID,
# P_Key and GID attribute tables, one file per table index.  Values follow
# the port: INIT without a subnet manager, ACTIVE with static_lids, DOWN
# and Disabled when the link is pulled.  The files are read-only.  Finally
# "rmmod vmlx" while files are read in a loop and while one is held open:
# the harness fails the run on any kernel warning in dmesg.  Two guest CPUs,
# so that the readers really race with the removal.
#
# vm-run-options: --smp 2
set -u
. "$(dirname "$0")/../vm/tap.sh"

ib=/sys/class/infiniband
zero_gid=0000:0000:0000:0000:0000:0000:0000:0000

# port_gid DEV: the link-local GID of port 1 (port GUID = node GUID + 1)
port_gid() {
	local g
	g=$(printf '%016x' $((16#$(tr -d : <$ib/$1/node_guid) + 1)))
	echo "fe80:0000:0000:0000:${g:0:4}:${g:4:4}:${g:8:4}:${g:12:4}"
}

# tbl_len DEV FIELD DEFAULT: FIELD (gid_tbl_len, pkey_tbl_len) of port 1
# from ibv_devinfo -v if it can tell, else DEFAULT (the driver's constant)
tbl_len() {
	local n
	n=$(ibv_devinfo -v -d "$1" -i 1 2>/dev/null |
		awk -v f="$2:" '$1 == f { print $2; exit }')
	if [[ $n =~ ^[0-9]+$ ]]; then
		echo "$n"
	else
		echo "$3"
	fi
}

# read_err FILE: the error message of a failing read, "ok" if it worked
read_err() {
	local out
	if out=$(cat "$1" 2>&1); then
		echo ok
	else
		echo "${out##*: }"
	fi
}

tap_check "modprobe vmlx" modprobe vmlx
p0=$ib/vmlx0/ports/1
p1=$ib/vmlx1/ports/1
tap_is "one port directory" "$(ls $ib/vmlx0/ports | xargs)" 1
tap_is "port directory contents" "$(LC_ALL=C ls $p0 | xargs)" \
	"cap_mask gid_attrs gids lid lid_mask_count link_layer phys_state pkeys rate sm_lid sm_sl state"
tap_is "gid_attrs contents" "$(LC_ALL=C ls $p0/gid_attrs | xargs)" "ndevs types"

# No subnet manager: the link is up, the port waits in INIT without a LID.
tap_is "state without SM" "$(cat $p0/state)" "2: INIT"
tap_is "phys_state" "$(cat $p0/phys_state)" "5: LinkUp"
tap_is "lid" "$(cat $p0/lid)" 0x0
tap_is "sm_lid" "$(cat $p0/sm_lid)" 0x0
tap_is "sm_sl" "$(cat $p0/sm_sl)" 0
tap_is "lid_mask_count" "$(cat $p0/lid_mask_count)" 0
tap_is "cap_mask (SL map, system image GUID, ext. speeds, client rereg.; no CM without ib_cm)" \
	"$(cat $p0/cap_mask)" 0x02404840
tap_is "rate" "$(cat $p0/rate)" "100 Gb/sec (4X EDR)"
tap_is "link_layer" "$(cat $p0/link_layer)" InfiniBand

# With ib_uverbs, libibverbs can tell the table lengths, and it reads the
# GID table from gids/ and gid_attrs/ (or the GID ioctl).
tap_check "modprobe ib_uverbs" modprobe ib_uverbs
ngids=$(tbl_len vmlx0 gid_tbl_len 4)
npkeys=$(tbl_len vmlx0 pkey_tbl_len 16)
tap_diag "table lengths: $ngids GIDs, $npkeys P_Keys" \
	"ibv_devinfo: $(ibv_devinfo -v -d vmlx0 -i 1 2>&1 | grep tbl_len | xargs)"
devinfo=$(ibv_devinfo -v -d vmlx0 -i 1 2>&1)
tap_is "ibv_devinfo -v: GID[0] as in sysfs" \
	"$(awk '$1 == "GID[" && $2 == "0]:" { print $3 }' <<<"$devinfo")" \
	"$(port_gid vmlx0)"
tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_is "one gids file per GID index" \
	"$(ls $p0/gids | sort -n | xargs)" "$(seq 0 $((ngids - 1)) | xargs)"
tap_is "one pkeys file per P_Key index" \
	"$(ls $p0/pkeys | sort -n | xargs)" "$(seq 0 $((npkeys - 1)) | xargs)"
tap_is "one types file per GID index" \
	"$(ls $p0/gid_attrs/types | sort -n | xargs)" "$(seq 0 $((ngids - 1)) | xargs)"
tap_is "one ndevs file per GID index" \
	"$(ls $p0/gid_attrs/ndevs | sort -n | xargs)" "$(seq 0 $((ngids - 1)) | xargs)"

tap_is "vmlx0 gids/0: link-local, port GUID" "$(cat $p0/gids/0)" \
	"$(port_gid vmlx0)"
tap_is "vmlx1 gids/0" "$(cat $p1/gids/0)" \
	"fe80:0000:0000:0000:0676:6d6c:0000:0011"
empty=
for ((i = 1; i < ngids; i++)); do
	empty+="$(cat $p0/gids/$i) "
done
tap_is "gids/1.. all-zero" "$empty" "$(printf "$zero_gid %.0s" $(seq 1 $((ngids - 1))))"
tap_is "pkeys/0: default P_Key" "$(cat $p0/pkeys/0)" 0xffff
tap_is "pkeys/1: empty" "$(cat $p0/pkeys/1)" 0x0000
tap_is "last pkeys entry" "$(cat $p0/pkeys/$((npkeys - 1)))" 0x0000
tap_is "gid_attrs/types/0" "$(cat $p0/gid_attrs/types/0)" "IB/RoCE v1"
tap_is "gid_attrs/types of an unused GID: EINVAL" \
	"$(read_err $p0/gid_attrs/types/1)" "Invalid argument"
tap_is "gid_attrs/ndevs/0: no net device, EINVAL" \
	"$(read_err $p0/gid_attrs/ndevs/0)" "Invalid argument"

for f in state lid rate gids/0 pkeys/0 gid_attrs/types/0; do
	tap_check_fails "$f is read-only" sh -c "echo 1 >$p0/$f"
done
tap_is "state unchanged by the write" "$(cat $p0/state)" "2: INIT"

tap_check "rmmod vmlx" rmmod vmlx
tap_check "modprobe vmlx static_lids=1" modprobe vmlx static_lids=1
tap_is "vmlx0 ACTIVE" "$(cat $p0/state)" "4: ACTIVE"
tap_is "vmlx1 ACTIVE" "$(cat $p1/state)" "4: ACTIVE"
tap_is "vmlx0 lid" "$(cat $p0/lid)" 0x1
tap_is "vmlx1 lid" "$(cat $p1/lid)" 0x2
tap_is "lid_mask_count" "$(cat $p1/lid_mask_count)" 0

link=/sys/kernel/debug/vmlx/vmlx1/port1/link
tap_check "pull vmlx1's link" sh -c "echo 0 >$link"
tap_is "pulled: state" "$(cat $p1/state)" "1: DOWN"
tap_is "pulled: phys_state" "$(cat $p1/phys_state)" "3: Disabled"
tap_check "plug it back" sh -c "echo 1 >$link"
tap_is "back: state" "$(cat $p1/state)" "4: ACTIVE"
tap_is "back: phys_state" "$(cat $p1/phys_state)" "5: LinkUp"

# Readers racing with the removal, and files held open across it: one
# not read yet, one read before.
exec 3<$p0/state 4<$p0/lid
tap_is "read through a file held open" "$(cat <&4)" 0x1
files=$(echo $ib/vmlx*/ports/1/{state,phys_state,lid,rate,link_layer,cap_mask} \
	$ib/vmlx*/ports/1/{gids,pkeys,gid_attrs/types,gid_attrs/ndevs}/*)
readers=()
for r in 1 2; do
	(while :; do cat $files >/dev/null 2>&1; done) &
	readers+=($!)
done
sleep 1
tap_check "rmmod vmlx while ports files are read" rmmod vmlx
kill "${readers[@]}"
wait "${readers[@]}" 2>/dev/null
tap_is "devices and their ports gone" "$(ls $ib | wc -l)" 0
tap_check_fails "first read of a file held open across rmmod fails" \
	sh -c 'cat <&3'
tap_check_fails "next read of a file held open across rmmod fails" \
	sh -c 'cat <&4'
exec 3<&- 4<&-

tap_check "rmmod ib_core" rmmod ib_core
tap_is "no kernel warning" \
	"$(dmesg | grep -cE 'WARNING:|BUG:|Oops|general protection')" 0
tap_done
