#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: ib_srp against a rogue SRP target (srp_rogue_target.py,
# pyverbs over the RDMA CM) on vmlx1 (ib1, 10.41.0.2, this namespace);
# the initiator logs in from namespace a, where ib0 (vmlx0) is, with
# add_target's RDMA CM form dest=10.41.0.2:5555.
#
#  - Login responses no initiator may accept: max_ti_iu_len 16 and 1 GiB,
#    max_it_iu_len 64, no credits: the write fails with EPROTO and dmesg
#    says which limit; a REP whose private data is no SRP_LOGIN_RSP and an
#    SRP_LOGIN_REJ fail with ECONNRESET, the rejection's reason in dmesg.
#    Nothing stays behind.
#  - A login the rogue accepts and then answers every command with an
#    unknown opcode, a short SRP_RSP, responses for tags no
#    command has (also of another queue, above 32 bits, a stale task
#    management tag), short SRP_CRED_REQ and SRP_AER_REQ, a CRED_REQ
#    granting 2^31 - 1 credits, then a CHECK CONDITION whose response and
#    sense data lengths run far past the IU and whose residual is beyond
#    the buffer, and that response once more: the LUN scan ends (no
#    disk), the malformed IUs are counted as dropped in dmesg
#    (rate-limited), and the host goes: logged out, or removed by
#    ib_srp itself when error handling ends in a reconnect the rogue
#    refuses.
#  - rmmod ib_srp: rdma res back to before; dmesg clean (the harness).
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"
. "$here/../vm/srp.sh"

run=$(mktemp -d)
rogue_pid=
cleanup() {
	opensm_stop
	[[ -z $rogue_pid ]] || kill "$rogue_pid" 2>/dev/null
	ip netns pids a 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del a 2>/dev/null
	rm -rf "$run"
}
trap cleanup EXIT

A=10.41.0.1
B=10.41.0.2
PORT=5555
srp=/sys/class/infiniband_srp
SRP_NETNS=a

# add_target STRING: the write, from namespace a; OK or the errno's name
add_target() {
	srp_add_target "$srp/srp-vmlx0-1/add_target" "$1"
}

srp_host() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[[ $(cat "$h/proc_name" 2>/dev/null) == ib_srp ]] &&
			echo "${h##*host}" && return 0
	done
	return 1
}

vmlx_start --params "num_hcas=2 static_lids=1" ib_umad ib_uverbs
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe rdma_ucm" modprobe rdma_ucm
ip netns add a
ip link set ib0 netns a && ip -n a link set lo up &&
	ip -n a link set ib0 up && ip -n a addr add $A/24 dev ib0 &&
	ip link set ib1 up && ip addr add $B/24 dev ib1
tap_ok $? "ib0 in a ($A), ib1 here ($B)"
opensm_start
wait_carrier a ib0 120
tap_ok $? "ib0: carrier"
ip netns exec a ping -c 2 -W 5 $B >/dev/null 2>&1
tap_ok $? "ping $B from a"

res_before=$(rdma res show 2>&1)
tap_check "modprobe ib_srp" modprobe ib_srp

modes="ti_small ti_huge it_small no_credits bad_opcode reject garbage"
# shellcheck disable=SC2086 # the modes are words
python3 "$here/srp_rogue_target.py" $B $PORT $modes >"$run/rogue" 2>&1 &
rogue_pid=$!
for _ in $(seq 30); do
	grep -q listening "$run/rogue" && break
	sleep 1
done
tap_like "the rogue target listens" "$(cat "$run/rogue")" "listening"

line="id_ext=1,ioc_guid=1,dest=$B:$PORT"
dmesg -C
tap_is "max_ti_iu_len 16: EPROTO" "$(add_target "$line")" EPROTO
tap_is "max_ti_iu_len 1 GiB: EPROTO" "$(add_target "$line")" EPROTO
tap_is "max_it_iu_len 64: EPROTO" "$(add_target "$line")" EPROTO
tap_is "no credits: EPROTO" "$(add_target "$line")" EPROTO
tap_is "no SRP_LOGIN_RSP in the REP: ECONNRESET" "$(add_target "$line")" \
	ECONNRESET
tap_is "SRP_LOGIN_REJ: ECONNRESET" "$(add_target "$line")" ECONNRESET
log=$(dmesg)
tap_like "dmesg: max_ti_iu_len 16 refused" "$log" "max_ti_iu_len 16 refused"
tap_like "dmesg: max_ti_iu_len 1073741824 refused" "$log" \
	"max_ti_iu_len 1073741824 refused"
tap_like "dmesg: max_it_iu_len 64 refused" "$log" "max_it_iu_len 64 < "
tap_like "dmesg: req_lim_delta 0 refused" "$log" "req_lim_delta 0 refused"
tap_like "dmesg: the rejection's reason" "$log" \
	"REJECTED, reason 0x00010001 \(insufficient resources\)"
tap_is "no SCSI host after the refusals" "$(srp_host)" ""
tap_is "no QP, CQ or MR of ib_srp left" \
	"$({ rdma res show qp; rdma res show cq; rdma res show mr; } 2>&1 | grep -c ib_srp)" 0

dmesg -C
tap_is "login to the rogue answering with garbage" "$(add_target "$line")" OK
log=$(dmesg)
h=$(sed -n 's/.*scsi host\([0-9]*\): new target.*/\1/p' <<<"$log" | head -n 1)
tap_like "a SCSI host logged in (host$h)" "$h" '^[0-9]+$'
tap_diag "dmesg:" "$(head -n 40 <<<"$log")"
tap_like "dmesg: malformed IUs dropped" "$log" "dropped IU from target"
tap_like "dmesg: responses without a command dropped" "$log" "Null scmnd"
tap_like "dmesg: the stale task management response" "$log" \
	"tsk mgmt response too late"
tap_like "dmesg: sense beyond the IU" "$log" "sense beyond the IU"
tap_is "no disk from the scan" \
	"$(ls -d /sys/class/scsi_host/host$h/device/target$h:0:0/$h:0:0:* 2>/dev/null | wc -l)" 0
# The rogue answers the error handler's REQUEST SENSE with garbage as
# well, so error handling may end in a host reset whose login the rogue,
# out of modes, refuses: ib_srp then removes the host itself, as
# upstream does after a failed scan.  If it is still there, log out.
rp=/sys/class/srp_remote_ports/port-$h:1
if [[ -e $rp ]]; then
	tap_like "host$h: req_lim" "$(cat /sys/class/scsi_host/host$h/req_lim 2>&1)" \
		"^[0-9]+$"
	echo 1 >$rp/delete 2>/dev/null
	tap_diag "logged out"
else
	tap_like "ib_srp removed the host after the failed scan" "$(dmesg)" \
		"SCSI scan failed - removing SCSI host"
fi
for _ in $(seq 60); do
	[[ -e /sys/class/scsi_host/host$h ]] || break
	sleep 1
done
tap_ok "$([[ ! -e /sys/class/scsi_host/host$h ]]; echo $?)" "host$h gone"
# the rogue waits for more commands: it never sees the initiator go
kill "$rogue_pid"
wait "$rogue_pid"
rogue_pid=
tap_diag "rogue:" "$(cat "$run/rogue")"
tap_is "rogue: ok for every mode" "$(grep -c '^ok ' "$run/rogue")" 7

tap_check "rmmod ib_srp" rmmod ib_srp
tap_is "rdma res: back to before ib_srp" "$(rdma res show 2>&1)" \
	"$res_before"

tap_done
