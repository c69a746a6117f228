#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: an SRP disk, end to end.  Debian's targetcli exports a
# ramdisk and a file through ib_srpt on vmlx1; Debian's ibsrpdm and
# srp_daemon find it from vmlx0; ib_srp logs in and the disks are used.
# Two HCAs behind the switch, opensm bringing the fabric up.
#
#  - targetcli: a ramdisk (rd0) and a fileio backstore (fio0), the target
#    on vmlx1's port GID with both as LUNs, an ACL for vmlx0's initiator
#    port ID.
#  - The line ibsrpdm -c prints, written to
#    /sys/class/infiniband_srp/srp-vmlx0-1/add_target, logs in: two SCSI
#    disks appear, lsscsi lists them as LIO-ORG rd0 and fio0; the SCSI
#    host has upstream ib_srp's attributes, the SRP remote port
#    srp_remote_ports/port-N:1 its timers.  The same line again: EEXIST.
#  - ext4 on the fileio disk: files written and their sha256 taken,
#    unmounted, logged out (srp_remote_ports/.../delete: the host goes),
#    logged in again, mounted: the same sha256.
#  - fio with --verify=crc32c, 4 jobs of random reads and writes of
#    4 KiB to 1 MiB on the ramdisk: no verify error.
#  - A login with an initiator port ID not in the ACL (initiator_ext)
#    is rejected (ECONNRESET, the reason in the log), nothing stays.
#  - srp_daemon -e -o (a rules file allowing vmlx1's port only) logs in
#    by itself, srp_daemon -o -c then has nothing left to print.
#  - rmmod vmlx while fio runs on both disks: no oops, no hang, the SCSI
#    host goes, ib_srp and ib_srpt unload, rdma res is empty.
#
# The guest has no udev: sd_mod and sg, which udev loads when the first
# disk appears, are loaded by hand.
#
# vm-run-options: --smp 2 --mem 2048 --timeout 900
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/srp.sh"

run=$(mktemp -d)
cleanup() {
	umount "$run/mnt" 2>/dev/null
	opensm_stop
	srp_dbus_stop
	rm -rf "$run"
}
trap cleanup EXIT

ib=/sys/class/infiniband
SRP=/sys/class/infiniband_srp/srp-vmlx0-1

# srp_hosts: the SCSI hosts of ib_srp, one per line (hostN)
srp_hosts() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[[ -e $h/proc_name && $(cat "$h/proc_name") == ib_srp ]] &&
			echo "${h##*/}"
	done
}

# disk_of MODEL: the /dev/sdX of the SRP LUN whose model is MODEL
disk_of() {
	local d
	for d in /sys/block/sd*; do
		[[ -e $d/device/model ]] || continue
		[[ $(cat "$d/device/model" | xargs) == "$1" ]] &&
			echo "/dev/${d##*/}" && return 0
	done
	return 1
}

# wait_gone SECS: 0 once ib_srp has no SCSI host and no remote port
wait_gone() {
	for _ in $(seq $(($1 * 5))); do
		[[ -z $(srp_hosts) && -z $(ls /sys/class/srp_remote_ports 2>/dev/null) ]] &&
			return 0
		sleep 0.2
	done
	return 1
}

vmlx_start --params "num_hcas=2" ib_umad ib_uverbs
opensm_start
ports_active 60 vmlx0 vmlx1
tap_ok $? "opensm: vmlx0 and vmlx1 ACTIVE"
tap_check "modprobe ib_srpt" modprobe ib_srpt
tap_check "modprobe ib_srp" modprobe ib_srp
tap_check "modprobe sd_mod sg (udev's job)" modprobe -a sd_mod sg

# --- the target ------------------------------------------------------------------
mkdir -p "$run/mnt"
srp_dbus_start "$run/dbus"

gid1=$(tr -d : <$ib/vmlx1/ports/1/gids/0)
guid0=$(port_guid vmlx0)
IPID=0000000000000000$guid0
T=/srpt/ib.$gid1
truncate -s 64M "$run/fileio.img"
tap_diag "t=${SECONDS}s: targetcli"
out=$(timeout 180 targetcli 2>&1 <<EOF
set global auto_save_on_exit=false
/backstores/ramdisk create name=rd0 size=64M
/backstores/fileio create name=fio0 file_or_dev=$run/fileio.img size=64M
/srpt create ib.$gid1
$T/luns create /backstores/ramdisk/rd0
$T/luns create /backstores/fileio/fio0
$T/acls create ib.$IPID
exit
EOF
)
tap_ok $? "targetcli: rd0, fio0, the target on vmlx1, 2 LUNs, the ACL of vmlx0"
tap_ok "$(! grep -v "preferences file" <<<"$out" |
	grep -qiE "error|could not|no such|unknown|invalid"; echo $?)" \
	"targetcli: no command refused"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out"

# --- discovery and login --------------------------------------------------------------
SG=$(srp_service_guid)
line=$(srp_target_line "$gid1")
for _ in $(seq 20); do
	out=$(timeout 10 ibsrpdm -c 2>&1)
	grep -qx "$line" <<<"$out" && break
	sleep 1
done
tap_diag "ibsrpdm -c:" "$out"
tap_ok "$(grep -qx "$line" <<<"$out"; echo $?)" "ibsrpdm -c: $line"

tap_diag "t=${SECONDS}s: login"
tap_is "the ibsrpdm line written to srp-vmlx0-1/add_target: logged in" \
	"$(srp_add_target "$SRP/add_target" "$line")" OK
rd=$(disk_of rd0)
fd=$(disk_of fio0)
tap_ok "$([[ -b $rd && -b $fd ]]; echo $?)" \
	"two disks appeared: rd0 ${rd:-none}, fio0 ${fd:-none}"
out=$(lsscsi 2>&1)
tap_diag "lsscsi:" "$out"
tap_like "lsscsi: LIO-ORG rd0 as $rd" "$out" "disk +LIO-ORG +rd0 +[^ ]+ +$rd"
tap_like "lsscsi: LIO-ORG fio0 as $fd" "$out" "disk +LIO-ORG +fio0 +[^ ]+ +$fd"
host=$(srp_hosts)
H=/sys/class/scsi_host/$host
tap_is "one SCSI host of ib_srp" "$(wc -w <<<"$host")" 1
tap_is "$host: id_ext ioc_guid service_id pkey" \
	"$(cat $H/{id_ext,ioc_guid,service_id,pkey} 2>&1 | xargs)" \
	"0x$SG 0x$SG 0x$SG 0xffff"
tap_is "$host: dgid sgid" "$(cat $H/{dgid,sgid} 2>&1 | xargs)" \
	"$(cat $ib/vmlx1/ports/1/gids/0) $(cat $ib/vmlx0/ports/1/gids/0)"
tap_is "$host: local_ib_device local_ib_port" \
	"$(cat $H/{local_ib_device,local_ib_port} 2>&1 | xargs)" "vmlx0 1"
tap_like "$host: req_lim" "$(cat $H/req_lim 2>&1)" "^[1-9][0-9]*$"
rport=$(ls /sys/class/srp_remote_ports 2>/dev/null)
R=/sys/class/srp_remote_ports/$rport
tap_like "srp_remote_ports: one port" "$rport" "^port-[0-9]+:1$"
tap_is "$rport: reconnect_delay fast_io_fail_tmo dev_loss_tmo" \
	"$(cat $R/{reconnect_delay,fast_io_fail_tmo,dev_loss_tmo} 2>&1 | xargs)" \
	"10 15 600"
tap_is "$rport: port_id, roles" \
	"$(cat $R/port_id $R/roles 2>&1 | xargs)" \
	"$(sed 's/../&:/g; s/:$//' <<<"$SG$SG") SRP Target"
tap_is "the same line again: EEXIST" "$(srp_add_target "$SRP/add_target" "$line")" EEXIST
tap_is "still one SCSI host" "$(srp_hosts | wc -l)" 1

# --- a file system across a logout and a login -------------------------------------------
tap_diag "t=${SECONDS}s: ext4"
tap_check "mkfs.ext4 $fd" mkfs.ext4 -q -F "$fd"
tap_check "mount $fd" mount "$fd" "$run/mnt"
for i in 1 2 3; do
	head -c $((i * 3 * 1024 * 1024 + i * 4097)) /dev/urandom >"$run/mnt/file$i"
done
mkdir "$run/mnt/dir" && cp "$run/mnt/file1" "$run/mnt/dir/copy"
sums=$(cd "$run/mnt" && sha256sum file1 file2 file3 dir/copy)
tap_diag "$sums"
tap_check "umount" umount "$run/mnt"
tap_check "log out: $rport/delete" sh -c "echo 1 >$R/delete"
wait_gone 60
tap_ok $? "the SCSI host and the remote port are gone"
tap_is "log in again" "$(srp_add_target "$SRP/add_target" "$line")" OK
fd=$(disk_of fio0)
tap_check "mount ${fd:-fio0} again" mount "$fd" "$run/mnt"
tap_is "the four files: the same sha256" \
	"$(cd "$run/mnt" && sha256sum file1 file2 file3 dir/copy)" "$sums"
tap_check "umount" umount "$run/mnt"

# --- fio with verification -------------------------------------------------------------------
rd=$(disk_of rd0)
tap_diag "t=${SECONDS}s: fio"
# each job writes its own 16 MiB, then reads all of it back and checks
out=$(timeout 400 fio --name=srp --filename="$rd" --direct=1 --ioengine=libaio \
	--iodepth=8 --numjobs=4 --size=16M --offset_increment=16M \
	--rw=randrw --bsrange=4k-1m --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --group_reporting 2>&1)
rc=$?
tap_is "fio randrw 4k-1m, 4 jobs, --verify=crc32c: exit 0" "$rc" 0
tap_ok "$(! grep -qiE "verify|bad magic|crc32c|error" <<<"$(grep -v 'verify=' <<<"$out")"; echo $?)" \
	"fio: no verify error"
tap_like "fio: both reads and writes done" "$out" "READ: bw=.*WRITE: bw="
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out"
grep -E "READ:|WRITE:" <<<"$out" | sed 's/^ */# /'

# --- an initiator not in the ACL ------------------------------------------------------------------
host=$(srp_hosts)
tap_is "initiator_ext=bb (not in the ACL): rejected" \
	"$(srp_add_target "$SRP/add_target" "$line,initiator_ext=00000000000000bb")" ECONNRESET
tap_like "the log names the reason: 0x00010006 (the ACL's)" \
	"$(dmesg | tail -n 20)" "REJECTED, reason 0x00010006"
tap_is "no SCSI host more" "$(srp_hosts | xargs)" "$host"

# --- srp_daemon logs in by itself ---------------------------------------------------------------
tap_check "log out" sh -c "echo 1 >/sys/class/srp_remote_ports/$(ls /sys/class/srp_remote_ports)/delete"
wait_gone 60
tap_ok $? "logged out"
umad=$(basename "$(ls -d /sys/class/infiniband_mad/umad* | while read -r d; do
	[[ $(cat "$d/ibdev") == vmlx0 && $(cat "$d/port") == 1 ]] && echo "$d"; done)")
printf 'a dgid=%s\nd\n' "$gid1" >"$run/rules"
out=$(timeout 120 srp_daemon -e -o -f "$run/rules" -d "/dev/infiniband/$umad" 2>&1)
tap_ok $? "srp_daemon -e -o -f RULES -d /dev/infiniband/$umad: exit 0"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out"
for _ in $(seq 50); do
	[[ -n $(disk_of rd0) && -n $(disk_of fio0) ]] && break
	sleep 0.2
done
tap_ok "$([[ $(srp_hosts | wc -l) == 1 && -n $(disk_of rd0) && -n $(disk_of fio0) ]]; echo $?)" \
	"srp_daemon logged in: one SCSI host, both disks"
out=$(timeout 60 srp_daemon -o -c -f "$run/rules" -d "/dev/infiniband/$umad" 2>&1)
tap_is "srp_daemon -o -c: nothing left to connect" "$out" ""

# --- the HCA goes away under I/O ----------------------------------------------------------------
rd=$(disk_of rd0)
fd=$(disk_of fio0)
pids=()
for d in "$rd" "$fd"; do
	timeout 300 fio --name=rm --filename="$d" --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randrw --bs=64k --time_based --runtime=120 \
		>"$run/fio-${d##*/}" 2>&1 &
	pids+=($!)
done
# sectors read and written by both disks so far
io_sectors() {
	cat "/sys/block/${rd##*/}/stat" "/sys/block/${fd##*/}/stat" |
		awk '{ n += $3 + $7 } END { print n }'
}
sleep 3
s0=$(io_sectors)
sleep 3
tap_ok "$(kill -0 "${pids[@]}" && (($(io_sectors) > s0)); echo $?)" \
	"fio runs on both disks"
opensm_stop
tap_diag "t=${SECONDS}s: rmmod vmlx"
tap_check "rmmod vmlx under I/O" timeout 180 rmmod vmlx
wait_gone 120
tap_ok $? "the SCSI host and the remote port went with the HCA"
wait "${pids[@]}"
tap_ok "$(! kill -0 "${pids[@]}" 2>/dev/null; echo $?)" "fio ended"
tap_check "rmmod ib_srp" rmmod ib_srp
tap_check "targetcli clearconfig" timeout 180 targetcli clearconfig confirm=True
tap_check "rmdir target/srpt" rmdir /sys/kernel/config/target/srpt
tap_check "rmmod ib_srpt" rmmod ib_srpt
tap_is "rdma res: nothing" "$(rdma res show 2>&1)" ""
tap_diag "t=${SECONDS}s: done"
tap_done
