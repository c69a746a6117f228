#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: /dev/infiniband/rdma_cm (rdma_ucm.ko) itself, its command
# ABI and who may use it, between the network namespaces "a" (ib0 on
# vmlx0) and "b" (ib1 on vmlx1) on a fabric opensm brings up.  rdma-cm.sh
# runs librdmacm's programs; this one writes the commands itself.
#
#  - The device: ours, a character device of root's, mode 0666 with
#    Debian's udev rules (udevadm test), ABI 4; net.rdma_ucm.max_backlog
#    and who may change it.
#  - ucma_abi.py, as root and as nobody (setpriv): every command's
#    answers and errnos without a fabric, MIGRATE_ID, events, binding,
#    ports below 1024 for root only, ids bound to vmlx0 counted by rdma
#    res until close(); a file another process opened answers EACCES.
#  - ucma_conn.py: connections by the raw ABI (QUERY, INIT_QP_ATTR,
#    ACCEPT, the RTU, DISCONNECT, events_reported, SET_OPTION IB_PATH),
#    the listen backlog and max_backlog, MIGRATE_ID of a listener with an
#    unread request, unread requests of a destroyed listener and of a
#    closed file REJECTED.
#  - ucma_fuzz.py as nobody: a fixed list of malformed commands, each with
#    its errno, then random ones (the seed is in the TAP line); no oops
#    (vm-run.sh's dmesg check).
#  - librdmacm: ucmatose -m (MIGRATE_ID); RLIMIT_MEMLOCK for nobody:
#    rping's 64 KiB buffers cannot be registered (ENOMEM), while rping
#    with small buffers connects.
#  - kill -9 of rping with a connection up: no cm_id left, the modules
#    free.
#  - No cm_id left; ucma_hold.py holds ids (a connection, listeners, a
#    bound id) while ib_ipoib and vmlx are removed: rmmod does not wait
#    for the process, which sees DEVICE_REMOVAL and ENXIO; then rmmod
#    rdma_ucm and rdma_cm.
#
# Arguments: [SEED] of ucma_fuzz.py's random commands (default: a random
# one, printed in its TAP line; UCMA_FUZZ_SEED too, when the environment
# reaches the scenario).
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"

seed=${1:-${UCMA_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}}
ab_run_dir

A=10.21.0.1
B=10.21.0.2
unpriv=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
node=/dev/infiniband/rdma_cm

# wait_for SECS CMD...: 0 once CMD succeeds (every 0.1 s), 1 after SECS
wait_for() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.1
	done
}

# cm_listening ADDR:PORT: rdma res shows a listener there
cm_listening() {
	rdma res show cm_id 2>/dev/null |
		grep -Eq "state LISTEN .*src-addr $1( |\$)"
}

# --- the device -------------------------------------------------------------
vmlx_start --params "num_hcas=2" ib_umad ib_uverbs
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe rdma_ucm" modprobe rdma_ucm
tap_is "rdma_ucm is ours" "$(modinfo -n rdma_ucm)" \
	"/lib/modules/$(uname -r)/updates/uverbs/rdma_ucm.ko"
tap_is "$node: a character device of major 10, root's, mode 0666" \
	"$(stat -c '%F %t %U:%G %a' $node 2>&1)" \
	"character special file a root:root 666"
tap_like "udev with Debian's rules keeps mode 0666 (udevadm test)" \
	"$(udevadm test --action=add /sys/class/misc/rdma_cm 2>&1)" \
	"permissions of $node, uid=0, gid=0, mode=0666"
tap_is "rdma_cm: ABI version 4" \
	"$(cat /sys/class/misc/rdma_cm/abi_version 2>&1)" 4
tap_is "net.rdma_ucm.max_backlog: 1024" \
	"$(sysctl -n net.rdma_ucm.max_backlog 2>&1)" 1024
tap_like "nobody may not change it" \
	"$("${unpriv[@]}" sysctl -w net.rdma_ucm.max_backlog=5 2>&1)" \
	"[Pp]ermission denied"
tap_like "root may not make it negative" \
	"$(sysctl -w net.rdma_ucm.max_backlog=-1 2>&1)" "Invalid argument"
tap_is "... still 1024" "$(sysctl -n net.rdma_ucm.max_backlog 2>&1)" 1024

# --- the ABI, as root and as nobody -----------------------------------------
# fd 7: a file of this shell's, which no other process may write to
exec 7<>$node
tap_checker --prefix "root: " "ucma_abi.py as root: exit 0" \
	timeout 60 python3 "$here/ucma_abi.py" --foreign-fd 7
tap_checker --prefix "nobody: " "ucma_abi.py as nobody: exit 0" \
	timeout 60 "${unpriv[@]}" python3 "$here/ucma_abi.py" --foreign-fd 7
exec 7>&-

# --- the fabric -------------------------------------------------------------
ab_fabric $A $B
na ping -c 1 -W 5 $B >/dev/null 2>&1

# --- connections by the ABI -------------------------------------------------
tap_checker "ucma_conn.py: exit 0" \
	timeout 120 python3 "$here/ucma_conn.py" $A $B

# --- librdmacm: MIGRATE_ID, RLIMIT_MEMLOCK ----------------------------------
failed=$TAP_FAILED
ip netns exec a timeout 60 ucmatose -m -c 2 -C 5 -b $A >"$run/mig-s" 2>&1 &
spid=$!
wait_for 10 cm_listening $A:7471
out=$(nb timeout 60 ucmatose -m -c 2 -C 5 -s $A 2>&1)
tap_ok $? "ucmatose -m (rdma_migrate_id), client: exit 0"
tap_like "... migrated its ids to a new event channel" "$out" \
	"migrating to new event channel"
wait $spid
tap_ok $? "ucmatose -m, server: exit 0"
[[ $TAP_FAILED -eq $failed ]] || tap_diag "$out" "$(cat "$run/mig-s")"

# RLIMIT_MEMLOCK of 64 KiB for nobody: rping's four 65535-byte buffers
# (beyond it) cannot be registered; with 64-byte ones it connects
failed=$TAP_FAILED
limit=(prlimit --memlock=65536:65536)
out=$(nb timeout 30 "${limit[@]}" "${unpriv[@]}" \
	rping -c -a $A -C 1 -S 65535 2>&1)
rc=$?
tap_ok "$((rc == 0))" \
	"rping -S 65535 as nobody, memlock 64 KiB: fails (status $rc)"
tap_like "... registering its buffer: ENOMEM" "$out" \
	"rdma_buf reg_mr failed.*setup_buffers failed: 12"
ip netns exec a timeout 60 rping -s -a $A -C 20 -V -S 64 >"$run/lim-s" 2>&1 &
spid=$!
wait_for 10 cm_listening $A:7174
out=$(nb timeout 60 "${limit[@]}" "${unpriv[@]}" \
	rping -c -a $A -C 20 -V -S 64 2>&1)
tap_ok $? "rping -S 64 as nobody, memlock 64 KiB: connects, 20 pings"
wait $spid
tap_ok $? "... its server: exit 0"
[[ $TAP_FAILED -eq $failed ]] || tap_diag "$out" "$(cat "$run/lim-s")"
tap_is "no cm_id left" "$(cm_ids)" 0

# --- kill -9 with a connection up -------------------------------------------
res=$(rdma res show 2>&1)
ip netns exec a rping -s -a $A -C 100000000 >/dev/null 2>&1 &
spid=$!
wait_for 10 cm_listening $A:7174
ip netns exec b rping -c -a $A -C 100000000 >/dev/null 2>&1 &
cpid=$!
connected() {
	[[ $(rdma res show cm_id 2>/dev/null | grep -c "state CONNECT") -eq 2 ]]
}
wait_for 10 connected
tap_ok $? "rping: both ends connected (rdma res show cm_id)"
tap_is "rdma_ucm used by the two files" "$(cat /sys/module/rdma_ucm/refcnt)" 2
kill -9 $spid $cpid
wait $spid $cpid 2>/dev/null
none_left() { [[ $(cm_ids) -eq 0 ]]; }
wait_for 10 none_left
tap_ok $? "after kill -9: no cm_id left"
tap_is "... rdma_ucm unused" "$(cat /sys/module/rdma_ucm/refcnt)" 0
tap_is "... vmlx unused" "$(cat /sys/module/vmlx/refcnt)" 0
tap_is "... rdma res as before rping" "$(rdma res show 2>&1)" "$res"

# --- malformed commands, as nobody -----------------------------------------
tap_diag "ucma_fuzz.py's random commands: seed $seed (rdma-ucm.sh $seed," \
	"or UCMA_FUZZ_SEED=$seed for ucma_fuzz.py, repeats them)"
tap_checker --prefix "nobody: " "ucma_fuzz.py as nobody: exit 0" \
	timeout 120 env UCMA_FUZZ_SEED="$seed" ip netns exec b "${unpriv[@]}" \
	python3 "$here/ucma_fuzz.py" 5000 $B $A
tap_is "no cm_id left" "$(cm_ids)" 0

# --- device removal with ids open; nothing left -----------------------------
rm -f "$run/ready" "$run/go"
timeout 120 python3 "$here/ucma_hold.py" $A $B "$run/ready" "$run/go" \
	>"$run/hold" 2>&1 &
hpid=$!
wait_for 30 test -e "$run/ready"
tap_ok $? "ucma_hold.py: ids held"
opensm_stop
tap_check "rmmod ib_ipoib" timeout 60 rmmod ib_ipoib
tap_check "rmmod vmlx with ids open, a connection up" timeout 60 rmmod vmlx
touch "$run/go"
wait $hpid
hrc=$?
tap_results "removal: " <"$run/hold"
tap_ok $hrc "ucma_hold.py: exit 0"
tap_check "rmmod rdma_ucm" rmmod rdma_ucm
tap_check "rmmod rdma_cm" rmmod rdma_cm
tap_done
