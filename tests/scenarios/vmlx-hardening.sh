#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: what an unprivileged process or another port of the fabric
# must not be able to do to vmlx, each check a regression test of a defect
# once found (issue 11).  Three HCAs with static LIDs, user programs on
# libibverbs (pyverbs with Debian's librxe) and raw uverbs commands:
#
#  - the send doorbell of a QP in RESET, INIT or RTR fails (EINVAL), as in
#    Linux's drivers; what was posted goes out once the QP is in RTS;
#  - a QP on vmlx2 aiming UC and RC SENDs, with the right PSN, at a QP of
#    vmlx0 connected to vmlx1 gets nothing in: the packets are counted in
#    rcv_bad_source, and the genuine peer's SEND at that PSN lands;
#  - a Q_Key with bit 31 (the GSI's 0x80010000) needs CAP_NET_RAW or the
#    privileged Q_Key mode of RDMA netlink; a send WR naming it uses the
#    QP's own Q_Key instead, so a PMA Set sent to QP1 that way clears no
#    counters (with a privileged QP it does);
#  - a process that keeps rewriting the producer index of its mapped send
#    or receive ring while its QP flushes cannot keep the QP's work item
#    (and lock) to itself: the QP can be destroyed meanwhile;
#  - the rings of user objects are charged to the creator's memory cgroup,
#    and at its limit the creation fails with ENOMEM; contexts and objects
#    are charged to the rdma cgroup, whose rdma.max bounds them;
#  - (vmlx num_ports=2) an SMP arriving on an unprotected port can neither
#    read nor change the M_Key of the other, protected, port.
# The harness fails the run on any kernel warning, soft lockup included.
#
# vm-run-options: --smp 2
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/tap.sh"
. "$here/../vm/user.sh"
. "$here/../vm/vmlx.sh"
. "$here/../kmod/vt.sh"

run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
host=$(loopback_host)
py=/usr/bin/python3
# without CAP_NET_RAW, whatever else root has
unpriv=(setpriv --inh-caps=-net_raw --bounding-set=-net_raw)

vmlx_start --params "num_hcas=3 static_lids=1" ib_uverbs ib_umad

# --- the doorbell of a QP that may not send --------------------------------------
tap_checker "doorbell checks" timeout 60 $py "$here/harden_verbs.py" doorbell

# --- packets from a port that is not the connected peer ----------------------------
tap_checker "spoofed source checks" timeout 60 \
	$py "$here/harden_verbs.py" spoof

# --- controlled Q_Keys ----------------------------------------------------------------
tap_checker "without CAP_NET_RAW: Q_Key 0x80010000 refused" timeout 30 \
	"${unpriv[@]}" $py "$here/harden_verbs.py" qkey-modify EPERM
tap_checker "as root: Q_Key 0x80010000 taken" timeout 30 \
	$py "$here/harden_verbs.py" qkey-modify ok
tap_checker "privileged Q_Key mode 1" timeout 30 \
	$py "$here/harden_verbs.py" qkey-mode 1
tap_checker "mode 1, without CAP_NET_RAW: Q_Key 0x80010000 taken" \
	timeout 30 "${unpriv[@]}" $py "$here/harden_verbs.py" qkey-modify ok
tap_checker "privileged Q_Key mode 0" timeout 30 \
	$py "$here/harden_verbs.py" qkey-mode 0

# pma_xmit: PortXmitPkts of vmlx1 port 1 through its PMA
pma_xmit() {
	timeout 20 perfquery "$(cat /sys/class/infiniband/vmlx1/ports/1/lid)" 1 |
		sed -n 's/^PortXmitPkts:\.*//p'
}
lid1=$(($(cat /sys/class/infiniband/vmlx1/ports/1/lid)))
run_pair "traffic for the counters: ibv_rc_pingpong" 18600 "$run" \
	timeout 60 ibv_rc_pingpong -d vmlx1 -i 1 -p 18600 -n 200 -- \
	timeout 60 ibv_rc_pingpong -d vmlx0 -i 1 -p 18600 -n 200 "$host"
x0=$(pma_xmit)
tap_like "vmlx1 has sent packets: PortXmitPkts $x0" "$x0" "^[0-9]{3,}$"
tap_checker "unprivileged QP, WR with remote Q_Key 0x80010000: PMA Set" \
	timeout 30 "${unpriv[@]}" $py "$here/harden_verbs.py" qkey-pma \
	0x11112222 "$lid1"
x1=$(pma_xmit)
tap_ok "$([[ $x1 =~ ^[0-9]+$ && $x1 -ge $x0 ]]; echo $?)" \
	"the PMA Set did not reach QP1: PortXmitPkts $x0 -> $x1, not cleared"
tap_checker "privileged QP with Q_Key 0x80010000: PMA Set" timeout 30 \
	$py "$here/harden_verbs.py" qkey-pma 0x80010000 "$lid1"
x2=$(pma_xmit)
tap_ok "$([[ $x2 =~ ^[0-9]+$ && $x2 -lt $x1 && $x2 -lt 50 ]]; echo $?)" \
	"from a privileged QP it does: PortXmitPkts $x1 -> $x2, cleared"

# --- a process rewriting its ring while the QP flushes -----------------------------
for q in sq rq; do
	tap_checker "$q producer rewritten during the flush" timeout 90 \
		$py "$here/harden_rings.py" /dev/infiniband/uverbs0 "$q"
done

# --- rings charged to the memory cgroup, objects to the rdma cgroup --------------
cgroot=/sys/fs/cgroup
grep -q " $cgroot cgroup2 " /proc/mounts ||
	mount -t cgroup2 none "$cgroot"
echo "+memory +rdma" >"$cgroot/cgroup.subtree_control"
cg=$cgroot/vmlx-harden
mkdir -p "$cg"
tap_checker "memory cgroup checks" timeout 60 \
	$py "$here/harden_rings.py" /dev/infiniband/uverbs0 memcg "$cg"
rmdir "$cg"
mkdir -p "$cg"
tap_checker "rdma cgroup checks" timeout 60 \
	$py "$here/harden_rings.py" /dev/infiniband/uverbs0 rdmacg "$cg" vmlx0
rmdir "$cg"

tap_is "rdma res after the checks: as before" "$(rdma res show 2>&1)" \
	"$VMLX_RES_BASELINE"
tap_check "rmmod ib_umad ib_uverbs vmlx" rmmod ib_umad ib_uverbs vmlx

# --- the M_Key of the other port --------------------------------------------------
tap_check "modprobe vmlx num_ports=2 static_lids=1" \
	modprobe vmlx num_ports=2 static_lids=1
tap_check "modprobe ib_umad" modprobe ib_umad
tap_checker "cross-port M_Key checks" timeout 60 $py "$here/harden_smp.py"
tap_check "rmmod ib_umad vmlx" rmmod ib_umad vmlx

tap_done
