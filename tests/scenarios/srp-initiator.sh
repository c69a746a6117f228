#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the SRP initiator ib_srp without a target, on two HCAs
# of two ports each that Debian's opensm brings up.
#
#  - modprobe ib_srp makes /sys/class/infiniband_srp/srp-<dev>-<port>
#    for every port of every vmlx HCA, with add_target (write-only),
#    ibdev and port; the module parameters of upstream ib_srp are there
#    and the timeouts refuse what the SRP transport class refuses.
#  - add_target refuses, with EINVAL and a line in dmesg, every malformed
#    option string: no options, a mandatory key missing, unknown keys,
#    keys without a value, a key twice, numbers that do not parse, are
#    too large or out of range, GIDs of the wrong length, dest= without a
#    port, src= without dest=.
#  - A well-formed login to a GID nobody has fails (the SA has no path)
#    quickly, one to vmlx1's port with a service ID nobody listens on is
#    rejected by its CM (ECONNREFUSED), one through the RDMA CM to an
#    address nobody has fails: no SCSI host, no remote port stays behind,
#    and rdma res is what it was with ib_srp loaded and idle.
#  - Several failing logins at once on the same port: all fail, nothing
#    is left.
#  - rmmod ib_srp: the class devices go, rdma res is back to its count
#    before ib_srp; then ib_srp again and rmmod vmlx (device removal):
#    the class devices go with the HCAs; rmmod ib_srp; dmesg clean (the
#    harness checks).
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/srp.sh"

ib=/sys/class/infiniband
srp=/sys/class/infiniband_srp
trap opensm_stop EXIT

# nothing_left: no SCSI host of ib_srp, no SRP remote port
nothing_left() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[[ -e $h/proc_name ]] || continue
		[[ $(cat "$h/proc_name") == ib_srp ]] && return 1
	done
	[[ -z $(ls /sys/class/srp_remote_ports 2>/dev/null) ]]
}

vmlx_start --params "num_hcas=2 num_ports=2 static_lids=1" ib_umad
opensm_start
ports_active 60 vmlx0 vmlx1
tap_ok $? "opensm: the ports are ACTIVE"
sleep 2

tap_check "modprobe ib_srp" modprobe ib_srp
srp_res=$(rdma res show 2>&1)

# --- class devices and parameters ---------------------------------------------------
n=0
for d in "$ib"/vmlx*; do
	dev=${d##*/}
	for p in "$d"/ports/*; do
		port=${p##*/}
		c=$srp/srp-$dev-$port
		n=$((n + 1))
		if [[ -d $c ]]; then
			tap_is "srp-$dev-$port: ibdev, port" \
				"$(cat "$c/ibdev") $(cat "$c/port")" "$dev $port"
			tap_is "srp-$dev-$port: add_target is write-only" \
				"$(stat -c %a "$c/add_target")" 200
		else
			tap_fail "srp-$dev-$port exists"
		fi
	done
done
tap_is "one class device per port" "$(ls $srp | wc -l)" $n

params=/sys/module/ib_srp/parameters
missing=
for p in cmd_sg_entries indirect_sg_entries allow_ext_sg register_always \
	 never_register reconnect_delay fast_io_fail_tmo dev_loss_tmo \
	 ch_count use_imm_data max_imm_data topspin_workarounds \
	 srp_sg_tablesize; do
	[[ -e $params/$p ]] || missing+=" $p"
done
tap_is "module parameters of upstream ib_srp" "$missing" ""
tap_is "defaults: cmd_sg_entries, reconnect_delay, fast_io_fail_tmo, dev_loss_tmo" \
	"$(cat $params/cmd_sg_entries) $(cat $params/reconnect_delay) $(cat $params/fast_io_fail_tmo) $(cat $params/dev_loss_tmo)" \
	"12 10 15 600"
tap_check_fails "reconnect_delay=abc refused" \
	sh -c "echo abc >$params/reconnect_delay"
tap_check "fast_io_fail_tmo=off accepted" \
	sh -c "echo off >$params/fast_io_fail_tmo"
tap_is "fast_io_fail_tmo reads off" "$(cat $params/fast_io_fail_tmo)" off
tap_check_fails "fast_io_fail_tmo above dev_loss_tmo refused" \
	sh -c "echo 700 >$params/fast_io_fail_tmo"
echo 15 >$params/fast_io_fail_tmo

# --- malformed option strings ------------------------------------------------------
at=$srp/srp-vmlx0-1/add_target
gid1=$(tr -d : <"$ib/vmlx1/ports/1/gids/0")
guid1=$(port_guid vmlx1)
good="id_ext=$guid1,ioc_guid=$guid1,dgid=$gid1,pkey=ffff,service_id=$guid1"

bad=(
	$'\n'
	"id_ext=$guid1,ioc_guid=$guid1,dgid=$gid1,service_id=$guid1"
	"id_ext=$guid1,ioc_guid=$guid1,pkey=ffff,service_id=$guid1"
	"$good,foo=1"
	"$good,max_sect"
	"$good,id_ext=$guid1"
	"$good,pkey=ffff"
	"id_ext=xyz,ioc_guid=$guid1,dgid=$gid1,pkey=ffff,service_id=$guid1"
	"id_ext=1${guid1},ioc_guid=$guid1,dgid=$gid1,pkey=ffff,service_id=$guid1"
	"id_ext=$guid1,ioc_guid=$guid1,dgid=${gid1:1},pkey=ffff,service_id=$guid1"
	"id_ext=$guid1,ioc_guid=$guid1,dgid=${gid1}0,pkey=ffff,service_id=$guid1"
	"id_ext=$guid1,ioc_guid=$guid1,dgid=${gid1:0:31}g,pkey=ffff,service_id=$guid1"
	"id_ext=$guid1,ioc_guid=$guid1,dgid=$gid1,pkey=10000,service_id=$guid1"
	"id_ext=$guid1,ioc_guid=$guid1,dgid=$gid1,pkey=-1,service_id=$guid1"
	"$good,queue_size=0"
	"$good,queue_size=99999999999999999999"
	"$good,queue_size=1000000"
	"$good,max_sect=4294967296"
	"$good,max_sect=-1"
	"$good,max_cmd_per_lun=0"
	"$good,target_can_queue=100000"
	"$good,cmd_sg_entries=256"
	"$good,cmd_sg_entries=0"
	"$good,sg_tablesize=100000"
	"$good,allow_ext_sg=2"
	"$good,tl_retry_count=1"
	"$good,tl_retry_count=8"
	"$good,comp_vector=-1"
	"$good,ch_count=0"
	"$good,ch_count=1000"
	"$good,io_class=1234"
	"$good,initiator_ext=0x"
	"$good,max_it_iu_size=10"
	"$good,max_it_iu_size=100"
	"$good,src=10.0.0.1"
	"id_ext=$guid1,ioc_guid=$guid1,dest=10.0.0.1"
	"id_ext=$guid1,ioc_guid=$guid1,dest=10.0.0.1:"
	"id_ext=$guid1,ioc_guid=$guid1,dest=10.0.0.1:99999"
	"id_ext=$guid1,ioc_guid=$guid1,dest=nohost:5555"
	"id_ext=$guid1,ioc_guid=$guid1,dest=[fe80::1]:5555,src=10.0.0.1"
	"$(printf 'max_sect=1,%.0s' $(seq 300))$good"
)
dmesg -C
for s in "${bad[@]}"; do
	tap_is "refused with EINVAL: ${s:0:100}" "$(srp_add_target "$at" "$s")" EINVAL
done
log=$(dmesg)
tap_like "dmesg names the unknown key" "$log" "unknown parameter 'foo'"
tap_like "dmesg names a key given twice" "$log" "parameter 'id_ext' given twice"
tap_like "dmesg names a missing key" "$log" "missing parameter 'pkey'"
tap_like "dmesg names a value out of range" "$log" "queue_size=0 out of range"
tap_is "nothing left after the refusals" "$(nothing_left && echo yes)" yes

# --- well-formed logins nobody answers ---------------------------------------------
t0=$SECONDS
r=$(srp_add_target "$at" "id_ext=1,ioc_guid=1,dgid=fe800000000000000000deadbeef0001,pkey=ffff,service_id=1")
tap_like "login to a GID nobody has fails (got $r)" "$r" "^E"
tap_ok $((SECONDS - t0 > 30)) "... within 30 s ($((SECONDS - t0)) s)"
tap_is "... nothing left" "$(nothing_left && echo yes)" yes

t0=$SECONDS
r=$(srp_add_target "$at" "$good")
tap_is "login to vmlx1 where nobody listens: rejected" "$r" ECONNREFUSED
tap_ok $((SECONDS - t0 > 30)) "... within 30 s ($((SECONDS - t0)) s)"
tap_like "... dmesg says why" "$(dmesg)" "REJ reason: invalid service ID"
tap_is "... nothing left" "$(nothing_left && echo yes)" yes

t0=$SECONDS
r=$(srp_add_target "$at" "id_ext=$guid1,ioc_guid=$guid1,dest=10.99.0.1:5555")
tap_like "RDMA CM login to an address nobody has fails (got $r)" "$r" "^E"
tap_ok $((SECONDS - t0 > 30)) "... within 30 s ($((SECONDS - t0)) s)"
tap_is "... nothing left" "$(nothing_left && echo yes)" yes

pids=()
out=$(mktemp -d)
for i in 1 2 3 4 5; do
	srp_add_target "$at" "$good,initiator_ext=$i" >"$out/$i" &
	pids+=($!)
done
wait "${pids[@]}"
tap_is "five logins at once, all rejected" \
	"$(cat "$out"/* | sort | uniq -c | xargs)" "5 ECONNREFUSED"
rm -rf "$out"
tap_is "... nothing left" "$(nothing_left && echo yes)" yes
tap_is "rdma res: as with ib_srp idle" "$(rdma res show 2>&1)" "$srp_res"

# --- unloading -------------------------------------------------------------------------
tap_check "rmmod ib_srp" rmmod ib_srp
tap_is "class devices gone" "$(ls $srp 2>/dev/null | wc -l)" 0
tap_is "rdma res: back to before ib_srp" "$(rdma res show 2>&1)" \
	"$VMLX_RES_BASELINE"

tap_check "modprobe ib_srp again" modprobe ib_srp
tap_is "class devices again" "$(ls $srp | wc -l)" $n
r=$(srp_add_target "$at" "$good")
tap_is "login rejected again" "$r" ECONNREFUSED
opensm_stop
tap_check "rmmod vmlx with ib_srp loaded" rmmod vmlx
tap_is "class devices gone with the HCAs" "$(ls $srp | wc -l)" 0
tap_check "rmmod ib_srp" rmmod ib_srp
tap_is "rdma res: nothing" "$(rdma res show 2>&1)" ""

tap_done
