#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark scenario for tests/bench/srp-bench.sh (not part of make test),
# one guest: a disk over SRP against the same disk through LIO's tcm_loop,
# in the same run.
#  - the fabric: vmlx0 and vmlx1 behind the switch, Debian's opensm;
#  - one ramdisk backstore (rd0, 256 MiB) made by targetcli and exported
#    twice: by ib_srpt on vmlx1's port, to which ib_srp logs in from
#    vmlx0, and by tcm_loop, LIO's local SCSI fabric (no transport at
#    all: the reference);
#  - fio on each disk (O_DIRECT, libaio), each for SECS seconds after 2
#    seconds of ramp: 4 KiB random reads at queue depth 32 (IOPS), 1 MiB
#    sequential reads and 1 MiB sequential writes at queue depth 8
#    (MB/s); tcm_loop is measured before and after SRP and its figure is
#    the mean of the two, so that a slow spell of the host weighs on both.
# Prints the figures as "result: ..." lines, SRP as ratios to tcm_loop.
#
# Arguments: [SECS] (default 10)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/tap.sh"
. "$here/bench.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/srp.sh"

secs=${1:-10}
run=$(mktemp -d)
cleanup() {
	opensm_stop
	srp_dbus_stop
	rm -rf "$run"
}
trap cleanup EXIT

mean() {	# mean A B
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (a + b) / 2 }'
}

# disk_of HOSTNAME-PROC: the /dev/sdX of the first LUN of the SCSI host
# whose driver is PROC (ib_srp, tcm_loopback)
disk_of() {
	local d h
	for d in /sys/block/sd*; do
		h=$(readlink -f "$d/device")
		h=${h%%/target*}
		h=${h##*/}
		[[ $(cat "/sys/class/scsi_host/$h/proc_name" 2>/dev/null) == "$1" ]] &&
			echo "/dev/${d##*/}" && return 0
	done
	return 1
}

# measure DEV RW BS DEPTH: fio's figure for one workload on DEV: IOPS for
# randread, else MB/s (1e6 bytes)
measure() {
	fio --name=bench --filename="$1" --direct=1 --ioengine=libaio \
		--rw="$2" --bs="$3" --iodepth="$4" --numjobs=1 \
		--time_based --runtime="$secs" --ramp_time=2 \
		--output-format=json >"$run/fio.json" 2>"$run/fio.err" ||
		return 1
	python3 - "$run/fio.json" "$2" <<'EOF'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
side = job["write" if sys.argv[2].endswith("write") else "read"]
if sys.argv[2] == "randread":
    print("%.0f" % side["iops"])
else:
    print("%.1f" % (side["bw_bytes"] / 1e6))
EOF
}

# all_three DEV: "IOPS READ-MB/s WRITE-MB/s" of DEV
all_three() {
	local iops rd wr
	iops=$(measure "$1" randread 4k 32) &&
	rd=$(measure "$1" read 1m 8) &&
	wr=$(measure "$1" write 1m 8) &&
	echo "$iops $rd $wr"
}

vmlx_start --params "num_hcas=2" ib_umad ib_uverbs
opensm_start
ports_active 60 vmlx0 vmlx1
tap_ok $? "opensm: vmlx0 and vmlx1 ACTIVE"
tap_check "modprobe ib_srpt ib_srp tcm_loop sd_mod" \
	modprobe -a ib_srpt ib_srp tcm_loop sd_mod

srp_dbus_start "$run/dbus"

gid1=$(tr -d : </sys/class/infiniband/vmlx1/ports/1/gids/0)
T=/srpt/ib.$gid1
out=$(timeout 180 targetcli 2>&1 <<EOF
set global auto_save_on_exit=false
/backstores/ramdisk create name=rd0 size=256M
/srpt create ib.$gid1
$T/luns create /backstores/ramdisk/rd0
$T/acls create ib.0000000000000000$(port_guid vmlx0)
/loopback create naa.5001405000000001
/loopback/naa.5001405000000001/luns create /backstores/ramdisk/rd0
exit
EOF
)
tap_ok $? "targetcli: rd0 exported by ib_srpt and by tcm_loop"
tap_diag "$out"
srp_target_line "$gid1" >/sys/class/infiniband_srp/srp-vmlx0-1/add_target
tap_ok $? "ib_srp logged in"
for _ in $(seq 50); do
	srp=$(disk_of ib_srp) && loop=$(disk_of tcm_loopback) && break
	sleep 0.2
done
tap_ok "$([[ -b ${srp:-} && -b ${loop:-} ]]; echo $?)" \
	"disks: SRP ${srp:-none}, tcm_loop ${loop:-none}"
# both disks write every block of the ramdisk once, so that reads do
# not read holes
dd if=/dev/zero of="$loop" bs=1M count=256 oflag=direct status=none

loop1=$(all_three "$loop")
tap_ok $? "tcm_loop: $loop1 (4k randread IOPS, 1M read MB/s, 1M write MB/s)"
srp_f=$(all_three "$srp")
tap_ok $? "SRP: $srp_f"
loop2=$(all_three "$loop")
tap_ok $? "tcm_loop again: $loop2"

read -r li1 lr1 lw1 <<<"$loop1"
read -r li2 lr2 lw2 <<<"$loop2"
read -r si sr sw <<<"$srp_f"
li=$(mean "${li1:-0}" "${li2:-0}")
lr=$(mean "${lr1:-0}" "${lr2:-0}")
lw=$(mean "${lw1:-0}" "${lw2:-0}")

tap_check "log out" sh -c "echo 1 >/sys/class/srp_remote_ports/$(ls /sys/class/srp_remote_ports)/delete"
tap_check "targetcli clearconfig" timeout 180 targetcli clearconfig confirm=True

tap_diag "tcm_loop: $loop1 before SRP, $loop2 after"
tap_diag "result: fio 4KiB randread QD32 over SRP: ${si:-?} IOPS; tcm_loop: $li IOPS; ratio = $(ratio "${si:-0}" "$li")"
tap_diag "result: fio 1MiB read QD8 over SRP: ${sr:-?} MB/s; tcm_loop: $lr MB/s; ratio = $(ratio "${sr:-0}" "$lr")"
tap_diag "result: fio 1MiB write QD8 over SRP: ${sw:-?} MB/s; tcm_loop: $lw MB/s; ratio = $(ratio "${sw:-0}" "$lw")"
tap_done
