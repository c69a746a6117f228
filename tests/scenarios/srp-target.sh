#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the SRP target ib_srpt, configured by Debian's targetcli,
# found by Debian's ibsrpdm and srp_daemon, and logged in to by a small
# SRP initiator over the RDMA CM (srp_initiator.py, pyverbs).  Two HCAs
# behind the switch, opensm bringing the fabric up; the target is vmlx1
# (ib1, in the initial namespace), the initiator vmlx0 (ib0, namespace a).
#
#  - modprobe ib_srpt rdma_cm_port=5555: module parameters with upstream's
#    names and defaults, IsDeviceManagement in the ports' CapabilityMask.
#  - targetcli (with a private D-Bus for it) creates a ramdisk (rd_mcp)
#    and a fileio backstore, a target on vmlx1's port GID with both as
#    LUNs and an ACL for the initiator; configfs shows upstream's names
#    (tpgt_1, enable, attrib/srp_*, discovery_auth/rdma_cm_port, the ACL
#    by port ID); the GUID form of a port name works too; bad names and
#    values written to the attributes are refused.
#  - ibsrpdm -c and srp_daemon -o -c print the target line exactly.
#  - Logins: SRP_LOGIN_RSP values; WRITE(10)/READ(10) with direct and
#    indirect descriptors, 4 KiB and 64 KiB, on both LUNs, read back byte
#    for byte; INQUIRY, READ CAPACITY, sense data; ABORT TASK, LUN RESET,
#    an unknown function; malformed IUs dropped (credits returned) or
#    answered CHECK CONDITION; relogin and multichannel flags; logout; a
#    data address outside the initiator's buffer ends the channel.
#  - An IB CM login (ib_verbs_test "cm srp"): SRP_LOGIN_RSP in the REP,
#    a command, DREQ/DREP.
#  - Logins refused with the right SRP_LOGIN_REJ reason: initiator not in
#    the ACL, another target port ID, IU lengths out of range; and any
#    login while the TPG is disabled.
#  - targetcli clearconfig, rmdir target/srpt (LIO holds ib_srpt until
#    then), rmmod ib_srpt: the RDMA resources are back to what they were.
#    Then again with use_srq=1, the target made by configfs alone: the
#    I/O tests over the HCA's shared receive queue; then ib_srp logs in
#    over the IB CM and rmmod vmlx ends its session under I/O; the
#    configfs tree stays until removed, nothing is left.
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"
. "$here/../vm/srp.sh"
. "$here/../kmod/vt.sh"

run=$(mktemp -d)
cleanup() {
	opensm_stop
	srp_dbus_stop
	ip netns pids a 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del a 2>/dev/null
	rm -rf "$run"
}
trap cleanup EXIT

A=10.40.0.1
B=10.40.0.2
PORT=5555
CFS=/sys/kernel/config/target/srpt
INIT="/usr/bin/python3 $here/srp_initiator.py"

tcli() { timeout 60 targetcli "$@"; }

vmlx_start --params "num_hcas=2" ib_umad ib_uverbs
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe rdma_ucm" modprobe rdma_ucm

# ib0 (vmlx0, the initiator) in namespace a, ib1 (vmlx1, the target) here
ip netns add a
ip link set ib0 netns a && ip -n a link set lo up &&
	ip -n a link set ib0 up && ip -n a addr add $A/24 dev ib0 &&
	ip link set ib1 up && ip addr add $B/24 dev ib1
tap_ok $? "ib0 in a ($A), ib1 here ($B), up"
opensm_start
wait_carrier a ib0 120 && for _ in $(seq 60); do
	[[ $(cat /sys/class/net/ib1/carrier 2>/dev/null) == 1 ]] && break
	sleep 1
done
[[ $(cat /sys/class/net/ib1/carrier 2>/dev/null) == 1 ]]
tap_ok $? "ib0 and ib1: carrier (opensm brought the fabric up)"
ip netns exec a ping -c 2 -W 5 $B >/dev/null 2>&1
tap_ok $? "ping $B from a over IPoIB"

# --- the module ---------------------------------------------------------------
node0=$(tr -d : </sys/class/infiniband/vmlx0/node_guid)
gid1=$(tr -d : </sys/class/infiniband/vmlx1/ports/1/gids/0)
guid0=$(port_guid vmlx0)
cap_before=$(cat /sys/class/infiniband/vmlx1/ports/1/cap_mask)
res_before_srpt=$(rdma res show 2>&1)
tap_check "modprobe ib_srpt rdma_cm_port=$PORT" \
	modprobe ib_srpt rdma_cm_port=$PORT
P=/sys/module/ib_srpt/parameters
tap_is "srpt_service_guid: vmlx0's node GUID" "$(cat $P/srpt_service_guid)" \
	"0x$node0"
tap_is "srp_max_req_size: 8276" "$(cat $P/srp_max_req_size)" 8276
tap_is "srpt_srq_size: 4095" "$(cat $P/srpt_srq_size)" 4095
tap_is "rdma_cm_port: $PORT" "$(cat $P/rdma_cm_port)" $PORT
SG=$node0
MAXREQ=$(cat $P/srp_max_req_size)
cap=$(cat /sys/class/infiniband/vmlx1/ports/1/cap_mask)
tap_ok "$( (((cap & 0x80000) && !(cap_before & 0x80000))); echo $?)" \
	"vmlx1 port 1 CapabilityMask: IsDeviceManagement set ($cap_before -> $cap)"
tap_check "rmmod ib_srpt (nothing configured)" rmmod ib_srpt
for bad in srp_max_req_size=10 srp_max_req_size=70000 srpt_srq_size=1 \
	   srpt_sq_size=8 srp_max_rsp_size=20 use_srq=2 rdma_cm_port=99999; do
	tap_check_fails "modprobe ib_srpt $bad: refused" modprobe ib_srpt $bad
done
tap_check "modprobe ib_srpt rdma_cm_port=$PORT dyndbg=+p" \
	modprobe ib_srpt rdma_cm_port=$PORT dyndbg=+p
tap_is "rdma_cm_port: $PORT" "$(cat $P/rdma_cm_port 2>&1)" $PORT

# --- targetcli --------------------------------------------------------------------
# targetcli asks the system bus for tcmu-runner's handlers: give it one
srp_dbus_start "$run/dbus"
tap_ok "$([[ -S $run/dbus/bus ]]; echo $?)" "a private D-Bus for targetcli"

IPID=000000000000000a$guid0
BADID=00000000000000bb$guid0
truncate -s 16M "$run/fileio.img"
T=/srpt/ib.$gid1
KID=0000000000000000$guid0
# one targetcli session (a start of targetcli takes half a minute here)
tap_diag "t=${SECONDS}s: targetcli"
out=$(timeout 180 targetcli 2>&1 <<EOF
set global auto_save_on_exit=false
/backstores/ramdisk create name=rd0 size=16M
/backstores/fileio create name=fio0 file_or_dev=$run/fileio.img size=16M
/srpt create ib.$gid1
$T/luns create /backstores/ramdisk/rd0
$T/luns create /backstores/fileio/fio0
$T/acls create ib.$IPID
$T/acls create ib.$KID
ls /
exit
EOF
)
rc=$?
tap_diag "$out"
tap_is "targetcli: a ramdisk, a fileio backstore, the target, 2 LUNs, 2 ACLs: exit 0" \
	"$rc" 0
tap_ok "$(! grep -v "preferences file" <<<"$out" |
	grep -qiE "error|could not|no such|unknown|invalid"; echo $?)" \
	"targetcli: no command refused"
for msg in "Created ramdisk rd0 with size 16M" "Created fileio fio0 with size 16777216" \
	   "Created target ib.$gid1" "Created LUN 0" "Created LUN 1" \
	   "Created Node ACL for ib.$IPID" "Created Node ACL for ib.$KID"; do
	tap_ok "$(grep -qF "$msg" <<<"$out"; echo $?)" "targetcli: $msg"
done
tap_like "targetcli ls: the srpt target with its 2 ACLs and 2 LUNs" "$out" \
	"ib\.$gid1 [. ]*\[no-gen-acls\].*acls [. ]*\[ACLs: 2\].*luns [. ]*\[LUNs: 2\]"
C=/sys/kernel/config/target
tap_ok "$(ls -d $C/core/rd_mcp_*/rd0 $C/core/fileio_*/fio0 >/dev/null 2>&1; echo $?)" \
	"configfs: core/rd_mcp_N/rd0 and core/fileio_N/fio0"

W=$CFS/0x$gid1
tap_ok "$([[ -d $W/tpgt_1 ]]; echo $?)" "configfs: srpt/0x<port GID>/tpgt_1"
tap_is "configfs: tpgt_1/enable" "$(cat $W/tpgt_1/enable 2>&1)" 1
tap_is "configfs: attrib srp_max_rdma_size srp_max_rsp_size srp_sq_size use_srq" \
	"$(cat $W/tpgt_1/attrib/{srp_max_rdma_size,srp_max_rsp_size,srp_sq_size,use_srq} 2>&1 | tr '\n' ' ')" \
	"65536 256 4096 0 "
tap_is "configfs: discovery_auth/rdma_cm_port" \
	"$(cat $CFS/discovery_auth/rdma_cm_port 2>&1)" $PORT
tap_ok "$([[ -d $W/tpgt_1/acls/0x$IPID/lun_0 && -d $W/tpgt_1/acls/0x$IPID/lun_1 ]]; echo $?)" \
	"configfs: acls/0x<initiator port ID> with lun_0 and lun_1"
tap_ok "$(find $W/tpgt_1/lun/lun_0 $W/tpgt_1/lun/lun_1 -maxdepth 1 -type l |
	wc -l | grep -qx 2; echo $?)" "configfs: lun/lun_0 and lun_1 linked to their backstores"
tap_is "configfs: srpt/version (empty, as upstream's)" \
	"$(cat $CFS/version 2>&1)" ""

g=$(printf '%s' "$guid0" | sed 's/..../&:/g; s/:$//')
tap_check "configfs: mkdir srpt/$g (vmlx0 port GUID form)" mkdir "$CFS/$g"
tap_check "configfs: rmdir srpt/$g" rmdir "$CFS/$g"
tap_check_fails "configfs: mkdir srpt/0x1234 (no such port): refused" mkdir "$CFS/0x1234"
tap_check_fails "configfs: mkdir a second srpt/0x<GID>: refused" \
	mkdir "$CFS/0X$gid1"
for bad in "srp_max_rsp_size 10" "srp_max_rsp_size 4096" "srp_sq_size 3" \
	   "srp_sq_size abc" "srp_max_rdma_size 0" "use_srq 1" "use_srq 7"; do
	set -- $bad
	tap_check_fails "configfs: attrib/$1 <- '$2': refused" \
		sh -c "echo $2 >$W/tpgt_1/attrib/$1"
done
tap_check_fails "configfs: rdma_cm_port <- 70000: refused" \
	sh -c "echo 70000 >$CFS/discovery_auth/rdma_cm_port"
tap_check_fails "configfs: ACL named 'xyz': refused" \
	mkdir "$W/tpgt_1/acls/xyz"
tap_is "configfs: attributes unchanged" \
	"$(cat $W/tpgt_1/attrib/{srp_max_rdma_size,srp_max_rsp_size,srp_sq_size,use_srq} $CFS/discovery_auth/rdma_cm_port 2>&1 | tr '\n' ' ')" \
	"65536 256 4096 0 $PORT "

# --- discovery ---------------------------------------------------------------------
line="id_ext=$SG,ioc_guid=$SG,dgid=$gid1,pkey=ffff,service_id=$SG"
tap_diag "expected: $line"
for _ in $(seq 20); do
	out=$(timeout 10 ibsrpdm -c 2>&1)
	grep -qx "$line" <<<"$out" && break
	sleep 1
done
tap_diag "ibsrpdm -c:" "$out"
tap_ok "$(grep -qx "$line" <<<"$out"; echo $?)" "ibsrpdm -c prints the target line"
umad=$(basename "$(ls -d /sys/class/infiniband_mad/umad* | while read -r d; do
	[[ $(cat "$d/ibdev") == vmlx0 && $(cat "$d/port") == 1 ]] && echo "$d"; done)")
out=$(timeout 60 srp_daemon -o -c -d "/dev/infiniband/$umad" 2>&1)
tap_diag "srp_daemon -o -c -d /dev/infiniband/$umad:" "$out"
tap_ok "$(grep -qx "$line" <<<"$out"; echo $?)" \
	"srp_daemon -o -c -d /dev/infiniband/$umad prints the target line"

# --- logins and I/O ----------------------------------------------------------------------
tap_checker "initiator (RDMA CM to $B:$PORT): login, I/O, TMRs, bad IUs" \
	ip netns exec a timeout 180 $INIT io $B $PORT "$SG" "$IPID" "$MAXREQ"
tap_checker "initiator not in the ACL and bad login requests: refused" \
	ip netns exec a timeout 60 $INIT reject $B $PORT "$SG" "$BADID" "$MAXREQ"
# the IB CM: ib_verbs_test logs in from vmlx0 as ib_srp would
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
vt_run cm srp
tap_check "rmmod ib_verbs_test" rmmod ib_verbs_test

tap_check "configfs: tpgt_1/enable <- 0" sh -c "echo 0 >$W/tpgt_1/enable"
tap_checker --prefix "TPG disabled: " "login to the disabled TPG: refused" \
	ip netns exec a timeout 60 $INIT refused $B $PORT "$SG" "$IPID" \
	"$MAXREQ" 0x10001
tap_check "configfs: tpgt_1/enable <- 1" sh -c "echo 1 >$W/tpgt_1/enable"
dmesg | grep -i "ib_srpt" | tail -n 20 | sed 's/^/# /'

# --- clearconfig, rmmod ----------------------------------------------------------------------
for _ in $(seq 50); do
	[[ -z $(rdma res show cm_id 2>/dev/null | grep -v "state LISTEN") ]] && break
	sleep 0.2
done
ids=$(rdma res show cm_id 2>&1)
tap_diag "$ids"
tap_ok "$([[ -n $ids && -z $(grep -v "state LISTEN" <<<"$ids") ]]; echo $?)" \
	"rdma res show cm_id: only ib_srpt's listeners left"
tap_diag "t=${SECONDS}s: clearconfig"
tap_check "targetcli clearconfig" tcli clearconfig confirm=True
tap_ok "$([[ ! -e $W && -z $(ls -d $C/core/rd_mcp_*/rd0 $C/core/fileio_*/fio0 2>/dev/null) ]]; echo $?)" \
	"configfs: no srpt WWN, no backstore left"
tap_check_fails "rmmod ib_srpt while LIO holds it (target/srpt exists)" rmmod ib_srpt
tap_check "rmdir $CFS: LIO lets go of ib_srpt" rmdir $CFS
tap_check "rmmod ib_srpt" rmmod ib_srpt
cap=$(cat /sys/class/infiniband/vmlx1/ports/1/cap_mask)
tap_ok "$( (((cap & 0x80000) == 0)); echo $?)" \
	"IsDeviceManagement cleared ($cap)"
tap_is "rdma res: back to what it was before ib_srpt" \
	"$(rdma res show 2>&1)" "$res_before_srpt"

# --- a shared receive queue, then the HCA goes away under a session ---------------
# The same target again, by configfs alone (what targetcli writes there).
cfs_setup() {
	mkdir -p $C/core/rd_mcp_9/rd1 $C/core/fileio_9/fio1 $W/tpgt_1 &&
	echo rd_pages=4096 >$C/core/rd_mcp_9/rd1/control &&
	echo 1 >$C/core/rd_mcp_9/rd1/enable &&
	echo "fd_dev_name=$run/fileio.img,fd_dev_size=16777216" \
		>$C/core/fileio_9/fio1/control &&
	echo 1 >$C/core/fileio_9/fio1/enable &&
	mkdir $W/tpgt_1/lun/lun_0 $W/tpgt_1/lun/lun_1 &&
	ln -s $C/core/rd_mcp_9/rd1 $W/tpgt_1/lun/lun_0/rd1 &&
	ln -s $C/core/fileio_9/fio1 $W/tpgt_1/lun/lun_1/fio1 &&
	mkdir -p $W/tpgt_1/acls/0x$IPID/lun_0 $W/tpgt_1/acls/0x$IPID/lun_1 &&
	ln -s $W/tpgt_1/lun/lun_0 $W/tpgt_1/acls/0x$IPID/lun_0/m0 &&
	ln -s $W/tpgt_1/lun/lun_1 $W/tpgt_1/acls/0x$IPID/lun_1/m1 &&
	echo 1 >$W/tpgt_1/enable
}
cfs_teardown() {
	local a=$W/tpgt_1/acls/0x$IPID

	rm -f $a/lun_0/m0 $a/lun_1/m1 $W/tpgt_1/lun/lun_0/rd1 \
		$W/tpgt_1/lun/lun_1/fio1
	rmdir $a/lun_0 $a/lun_1 $a $W/tpgt_1/lun/lun_0 $W/tpgt_1/lun/lun_1 \
		$W/tpgt_1 $W $CFS $C/core/rd_mcp_9/rd1 $C/core/rd_mcp_9 \
		$C/core/fileio_9/fio1 $C/core/fileio_9
}
tap_diag "t=${SECONDS}s: use_srq=1"
tap_check "modprobe ib_srpt use_srq=1 srpt_srq_size=64 rdma_cm_port=$PORT" \
	modprobe ib_srpt use_srq=1 srpt_srq_size=64 rdma_cm_port=$PORT
tap_check "configfs: rd1, fio1, the target, LUNs, ACL by mkdir, ln, echo" cfs_setup
tap_is "configfs: attrib/use_srq 1" "$(cat $W/tpgt_1/attrib/use_srq 2>&1)" 1
tap_check_fails "configfs: attrib/use_srq <- 0 (chosen at load): refused" \
	sh -c "echo 0 >$W/tpgt_1/attrib/use_srq"
tap_is "rdma res: one SRQ per HCA" \
	"$(rdma res show 2>&1 | grep -o 'srq [0-9]*' | xargs)" "srq 1 srq 1"
tap_checker --prefix "SRQ: " "initiator with use_srq=1: login, I/O, TMRs, bad IUs" \
	ip netns exec a timeout 180 $INIT io $B $PORT "$SG" "$IPID" "$MAXREQ"
tap_diag "t=${SECONDS}s: ib_srp"
# The HCA goes under a session of the kernel's initiator: a process's
# session (srp_initiator.py) would keep vmlx loaded, as its mapped rings
# pin the driver (uverbs/README.rst).
tap_check "modprobe ib_srp sd_mod" modprobe -a ib_srp sd_mod
tap_check "ib_srp (initiator_ext 0xa) logs in over the IB CM" \
	sh -c "echo id_ext=$SG,ioc_guid=$SG,dgid=$gid1,pkey=ffff,service_id=$SG,initiator_ext=000000000000000a \
		>/sys/class/infiniband_srp/srp-vmlx0-1/add_target"
sds=$(ls -d /sys/class/scsi_host/host*/device/target*/*/block/sd* 2>/dev/null)
tap_is "two disks, one per LUN" "$(wc -w <<<"$sds")" 2
sd=/dev/$(basename "$(head -n 1 <<<"$sds")")
head -c 1M /dev/urandom >"$run/1m"
dd if="$run/1m" of="$sd" bs=64k oflag=direct status=none
tap_is "1 MiB written to $sd and read back over the shared receive queue" \
	"$(dd if="$sd" bs=64k count=16 iflag=direct status=none | sha256sum)" \
	"$(sha256sum <"$run/1m" | sed 's/-$/-/')"
dd if="$sd" of=/dev/null bs=64k iflag=direct count=100000 status=none &
dd_pid=$!
opensm_stop
tap_check "rmmod vmlx under the session and I/O" timeout 120 rmmod vmlx
wait $dd_pid
tap_is "ib_srp's SCSI host went with the HCA" \
	"$(grep -l ib_srp /sys/class/scsi_host/host*/proc_name 2>/dev/null)" ""
tap_check "rmmod ib_srp" rmmod ib_srp
tap_ok "$([[ -d $W/tpgt_1 ]]; echo $?)" \
	"configfs: the target stays without its HCA"
tap_check "configfs: the target and backstores removed (HCA gone)" cfs_teardown
tap_check "rmmod ib_srpt" rmmod ib_srpt
tap_is "rdma res: nothing" "$(rdma res show 2>&1)" ""
tap_diag "t=${SECONDS}s: done"
tap_done
