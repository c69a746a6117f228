#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: an SRP disk when things go wrong, in the manner of
# blktests' srp group.  Three HCAs behind the switch and opensm; the
# target (ib_srpt, a ramdisk LUN made by targetcli) on vmlx1, the
# initiator ib_srp logging in from vmlx0 and vmlx2.
#
#  - Link pulled (vmlx's debugfs knob) for less than fast_io_fail_tmo
#    under fio --verify on the SRP disk: the I/O resumes when it is
#    back, fio finishes without an error.
#  - Link pulled for longer than dev_loss_tmo (set low through
#    srp_remote_ports) under fio: fast_io_fail_tmo fails the I/O, then
#    the SCSI host and its remote port go away cleanly; fio ends.
#  - dm-multipath (Debian's multipathd, with udevd) over two logins, one
#    from each initiator HCA: one map of two paths.  fio --verify on the
#    map while each path in turn is logged out and in again, twice (as
#    blktests srp/002 does): the map loses and regains the path, fio
#    finishes without a verify error.  sg_reset of the device and of the
#    host (a LUN RESET and a reconnect) during fio (srp/014): fio finishes
#    without an error.
#  - Afterwards the maps are flushed, both logins logged out, the target
#    cleared, ib_srp and ib_srpt unloaded: rdma res is back to its start.
#
# vm-run-options: --smp 2 --mem 2048 --timeout 900
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/srp.sh"

run=$(mktemp -d)
cleanup() {
	pkill fio
	pkill multipathd
	udevadm control --exit 2>/dev/null
	opensm_stop
	srp_dbus_stop
	rm -rf "$run"
}
trap cleanup EXIT

ib=/sys/class/infiniband
dbg=/sys/kernel/debug/vmlx

# host_of DEV: the ib_srp SCSI host (hostN) logged in from DEV
host_of() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[[ -e $h/local_ib_device && $(cat "$h/local_ib_device") == "$1" ]] &&
			echo "${h##*/}" && return 0
	done
	return 1
}

# disk_of DEV: the /dev/sdX of the LUN behind DEV's login
disk_of() {
	local h d
	h=$(host_of "$1") || return 1
	for d in /sys/block/sd*; do
		[[ $(readlink -f "$d/device") == */$h/* ]] &&
			echo "/dev/${d##*/}" && return 0
	done
	return 1
}

# rport_of DEV: the srp_remote_ports directory of DEV's login
rport_of() {
	local h
	h=$(host_of "$1") || return 1
	echo "/sys/class/srp_remote_ports/port-${h#host}:1"
}

# wait_for SECS CMD...: 0 as soon as CMD succeeds, 1 after SECS seconds
wait_for() {
	local secs=$1

	shift
	for _ in $(seq $((secs * 4))); do
		"$@" && return 0
		sleep 0.25
	done
	return 1
}

no_host() { ! host_of "$1" >/dev/null; }

# login DEV: log in from DEV, 0 once its disk is there
login() {
	[[ $(srp_add_target "/sys/class/infiniband_srp/srp-$1-1/add_target" \
		"$line") == OK ]] &&
		wait_for 30 disk_of "$1" >/dev/null
}

# logout DEV: log DEV's login out, 0 once its host is gone
logout() {
	local r

	r=$(rport_of "$1") || return 1
	echo 1 >"$r/delete" && wait_for 60 no_host "$1"
}

# fio_verify NAME DEV [OPTION...]: fio writing 4 jobs of 4 MiB each with
# random reads and writes of 4 KiB to 1 MiB on DEV, then reading it all
# back and checking it (crc32c); output in $run/NAME
fio_verify() {
	local name=$1 dev=$2

	shift 2
	timeout 600 fio --name="$name" --filename="$dev" --direct=1 \
		--ioengine=libaio --iodepth=8 --numjobs=4 --size=4M \
		--offset_increment=4M --rw=randrw --bsrange=4k-1m \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--group_reporting "$@" >"$run/$name" 2>&1
}

# fio_clean NAME STATUS DESC: the fio run NAME exited 0 with no error
fio_clean() {
	tap_is "$3: fio exit 0" "$2" 0
	tap_ok "$(! grep -v "verify=" "$run/$1" |
		grep -qiE "verify|bad magic|error|crc32c"; echo $?)" \
		"$3: no I/O or verify error"
	[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(tail -n 30 "$run/$1")"
	grep -E "READ:|WRITE:" "$run/$1" | sed 's/^ */# /'
}

vmlx_start --params "num_hcas=3" ib_umad ib_uverbs
opensm_start
ports_active 60 vmlx0 vmlx1 vmlx2
tap_ok $? "opensm: vmlx0, vmlx1 and vmlx2 ACTIVE"
tap_check "modprobe ib_srpt ib_srp" modprobe -a ib_srpt ib_srp
tap_check "modprobe sd_mod sg dm_multipath (udev's job)" \
	modprobe -a sd_mod sg dm_multipath

srp_dbus_start "$run/dbus"

gid1=$(tr -d : <$ib/vmlx1/ports/1/gids/0)
T=/srpt/ib.$gid1
tap_diag "t=${SECONDS}s: targetcli"
out=$(timeout 180 targetcli 2>&1 <<EOF
set global auto_save_on_exit=false
/backstores/ramdisk create name=rd0 size=64M
/srpt create ib.$gid1
$T/luns create /backstores/ramdisk/rd0
$T/acls create ib.0000000000000000$(port_guid vmlx0)
$T/acls create ib.0000000000000000$(port_guid vmlx2)
exit
EOF
)
tap_ok $? "targetcli: rd0 on vmlx1, ACLs for vmlx0 and vmlx2"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out"
line=$(srp_target_line "$gid1")

# --- the link pulled for a moment --------------------------------------------------------
tap_diag "t=${SECONDS}s: short link pull"
login vmlx0
tap_ok $? "logged in from vmlx0: $(disk_of vmlx0)"
sd=$(disk_of vmlx0)
R=$(rport_of vmlx0)
tap_is "${R##*/}: reconnect_delay fast_io_fail_tmo dev_loss_tmo" \
	"$(cat "$R"/{reconnect_delay,fast_io_fail_tmo,dev_loss_tmo} | xargs)" \
	"10 15 600"
tap_check "reconnect_delay <- 2" sh -c "echo 2 >$R/reconnect_delay"
fio_verify short "$sd" &
fio_pid=$!
sleep 4
tap_check "pull vmlx0's link under fio" sh -c "echo 0 >$dbg/vmlx0/port1/link"
sleep 5
tap_check "plug it back after 5 s (< fast_io_fail_tmo 15 s)" \
	sh -c "echo 1 >$dbg/vmlx0/port1/link"
ports_active 60 vmlx0
tap_ok $? "vmlx0 ACTIVE again (opensm)"
wait $fio_pid
fio_clean short $? "link pulled for 5 s"
tap_is "the same SCSI host and disk" "$(disk_of vmlx0)" "$sd"
dmesg | grep -E "scsi host|srp" | tail -n 8 | sed 's/^/# /'

# --- the link pulled for longer than dev_loss_tmo ---------------------------------------------
tap_diag "t=${SECONDS}s: long link pull"
tap_check "fast_io_fail_tmo <- 3, dev_loss_tmo <- 10" \
	sh -c "echo 3 >$R/fast_io_fail_tmo && echo 10 >$R/dev_loss_tmo"
timeout 300 fio --name=lost --filename="$sd" --direct=1 --ioengine=libaio \
	--iodepth=8 --rw=randrw --bs=64k --time_based --runtime=200 \
	>"$run/lost" 2>&1 &
fio_pid=$!
sleep 4
tap_check "pull vmlx0's link under fio" sh -c "echo 0 >$dbg/vmlx0/port1/link"
t0=$SECONDS
wait_for 120 no_host vmlx0
tap_ok $? "the SCSI host went ($((SECONDS - t0)) s after the pull)"
tap_ok "$([[ ! -e $R && ! -b $sd ]]; echo $?)" "... with its remote port and disk"
wait_for 30 eval '! kill -0 $fio_pid 2>/dev/null'
tap_ok $? "fio ended (with errors) instead of hanging"
wait $fio_pid
tap_check "plug the link back" sh -c "echo 1 >$dbg/vmlx0/port1/link"
ports_active 60 vmlx0
tap_ok $? "vmlx0 ACTIVE again"
dmesg | grep -E "scsi host|srp|rport" | tail -n 8 | sed 's/^/# /'

# --- dm-multipath over two logins -------------------------------------------------------------
tap_diag "t=${SECONDS}s: multipath"
cat >/etc/multipath.conf <<EOF
defaults {
	user_friendly_names no
	find_multipaths no
}
blacklist {
	devnode "^(vd|sr|loop|ram|nbd|zram)"
}
devices {
	device {
		vendor "LIO-ORG"
		product ".*"
		path_grouping_policy multibus
		no_path_retry queue
	}
}
EOF
tap_check "udevd" /lib/systemd/systemd-udevd --daemon
tap_check "multipathd" multipathd
login vmlx0
tap_ok $? "logged in from vmlx0: $(disk_of vmlx0)"
login vmlx2
tap_ok $? "logged in from vmlx2: $(disk_of vmlx2)"

# paths: the number of active paths of the one multipath map
paths() {
	multipathd show paths format "%d %t %T" 2>/dev/null |
		awk '$2 == "active" && $3 == "ready"' | wc -l
}
paths_are() { [[ $(paths) == "$1" ]]; }
wait_for 60 paths_are 2
tap_ok $? "multipathd: one map, two active paths"
map=$(multipathd show maps format "%n" 2>/dev/null | tail -n +2 | head -n 1)
mp=/dev/mapper/$map
tap_ok "$([[ -n $map && -b $mp ]]; echo $?)" "the map: $mp"
tap_diag "$(multipath -ll 2>&1)"

# fio runs one after the other until the rounds are over (fio does not
# stop at a signal while it verifies); each must finish without an error
(
	n=0
	while [[ ! -e $run/stop ]]; do
		n=$((n + 1))
		fio_verify loop "$mp" || { echo "fio run $n failed" >"$run/loop.failed"; break; }
		echo $n >"$run/loop.runs"
	done
) &
fio_pid=$!
for i in 1 2; do
	tap_diag "t=${SECONDS}s: round $i"
	for dev in vmlx0 vmlx2; do
		logout $dev
		tap_ok $? "round $i: $dev logged out under fio"
		wait_for 30 paths_are 1
		tap_ok $? "round $i: the map has one path"
		login $dev
		tap_ok $? "round $i: $dev logged in again"
		wait_for 60 paths_are 2
		tap_ok $? "round $i: the map has two paths again"
	done
done
tap_ok "$(kill -0 $fio_pid && [[ ! -e $run/loop.failed ]]; echo $?)" \
	"fio still runs after the rounds"
touch "$run/stop"
wait $fio_pid
tap_ok "$([[ ! -e $run/loop.failed ]]; echo $?)" \
	"fio --verify, $(cat "$run/loop.runs" 2>/dev/null) runs across 4 logouts and logins: each exit 0"
tap_ok "$(! grep -v "verify=" "$run/loop" |
	grep -qiE "verify:|bad magic|crc32c|io_u error|error="; echo $?)" \
	"... no I/O or verify error"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(cat "$run/loop.failed" 2>/dev/null)" "$(tail -n 30 "$run/loop")"

tap_diag "t=${SECONDS}s: sg_reset"
aborts=$(dmesg | grep -c "SRP abort called")
fio_verify reset "$mp" --loops=3 &
fio_pid=$!
sleep 4
sd=$(disk_of vmlx0)
tap_check "sg_reset --device $sd under fio" sg_reset --device "$sd"
sleep 2
sd=$(disk_of vmlx2)
tap_check "sg_reset --host $sd under fio" sg_reset --host "$sd"
wait $fio_pid
fio_clean reset $? "sg_reset during I/O"
tap_ok "$(paths_are 2; echo $?)" "two active paths after the resets"
tap_is "no command timed out (the LUN RESET completed the LUN's commands)" \
	"$(dmesg | grep -c "SRP abort called")" "$aborts"
dmesg | grep -E "SRP|srp" | tail -n 8 | sed 's/^/# /'

# --- taking it apart --------------------------------------------------------------------------
tap_diag "t=${SECONDS}s: teardown"
tap_check "multipath -F" multipath -F
mpd=$(pidof multipathd)
kill $mpd
wait_for 30 eval '! kill -0 $mpd 2>/dev/null'
tap_ok $? "multipathd stopped"
logout vmlx0
tap_ok $? "vmlx0 logged out"
logout vmlx2
tap_ok $? "vmlx2 logged out"
tap_check "rmmod ib_srp" rmmod ib_srp
tap_check "targetcli clearconfig" timeout 180 targetcli clearconfig confirm=True
tap_check "rmdir target/srpt" rmdir /sys/kernel/config/target/srpt
tap_check "rmmod ib_srpt" rmmod ib_srpt
tap_is "rdma res: back to its start" "$(rdma res show 2>&1)" \
	"$VMLX_RES_BASELINE"
tap_diag "t=${SECONDS}s: done"
tap_done
