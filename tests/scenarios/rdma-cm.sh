#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the RDMA CM (rdma_cm.ko) and its user access module
# (rdma_ucm.ko) under librdmacm's own programs, unmodified, between the
# network namespaces "a" (ib0 on vmlx0) and "b" (ib1 on vmlx1), on a
# fabric opensm brings up.  Connections are made by IP address: IPoIB's
# neighbours give the GIDs, the SA the paths, the IB CM the connections.
#
#  - /dev/infiniband/rdma_cm: mode 0666, ABI version 4.
#  - rping over IPv4 (65535-byte messages, its largest) and IPv6 (4 KiB),
#    500 iterations, payload verified (-V) by both ends; rdma res show
#    cm_id lists the listener and both ends of the connection, in
#    CONNECT, with their addresses and owner.
#  - ucmatose with 10 connections; udaddy (UD, through SIDR);
#    rdma_server/rdma_client; each over IPv4 and IPv6.
#  - rping killed with SIGKILL mid-transfer, the client, then the
#    server: the other end gets its disconnect and ends; no cm_id left.
#  - A client to a port nobody listens on is REJECTED (reason 8, invalid
#    service ID) at once, not left hanging.
#  - rmmod ib_ipoib under a running rping: the module goes, the
#    connection does not need it (its path and QPs are the HCAs'): the
#    transfer finishes with its data verified; a new client to the
#    address that went with ib1 finds no route.
#  - Afterwards no cm_id is left; rmmod rdma_ucm and rdma_cm.
#
# Still missing (see Documentation/rdma_cm.rst): AF_IB destinations,
# alternate paths (rdma-cm-apps and rdma-ucm have the rest).
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"

ab_run_dir

A=10.20.0.1
B=10.20.0.2
A6=fd20::1
B6=fd20::2

# listeners: the number of RDMA CM ids in LISTEN
listeners() {
	rdma res show cm_id 2>/dev/null | grep -c "state LISTEN"
}

# serve NAME CMD...: CMD in b in the background, its output in $run/NAME;
# returns once it listens (a loaded host may take seconds to start it)
serve() {
	local name=$1 before

	shift
	before=$(listeners)
	ip netns exec b timeout 150 "$@" >"$run/$name" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		(($(listeners) > before)) && break
		sleep 0.2
	done
}

vmlx_start --params "num_hcas=2" ib_umad ib_uverbs
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe rdma_ucm" modprobe rdma_ucm
tap_like "rdma_ucm needs rdma_cm" "$(modinfo -F depends rdma_ucm)" "rdma_cm"
tap_is "/dev/infiniband/rdma_cm: mode 0666" \
	"$(stat -c %a /dev/infiniband/rdma_cm 2>&1)" 666
tap_is "rdma_cm: ABI version 4" \
	"$(cat /sys/class/misc/rdma_cm/abi_version 2>&1)" 4

ab_fabric $A $B $A6 $B6
na ping -c 2 -W 5 $B >/dev/null 2>&1

# --- rping ------------------------------------------------------------------
for v in 4 6; do
	if [[ $v == 4 ]]; then
		dst=$B size=65535
	else
		dst=$B6 size=4096
	fi
	serve rping$v rping -s -a $dst -V -C 500 -S $size
	(na timeout 150 rping -c -a $dst -V -C 500 -S $size \
		>"$run/rpingc$v" 2>&1; echo $? >"$run/rpingc$v.rc") &
	cpid=$!
	if [[ $v == 4 ]]; then
		sleep 3
		ids=$(rdma res show cm_id 2>&1)
		tap_diag "$ids"
		tap_like "rdma res show cm_id: the listener" "$ids" \
			"link vmlx1/1 .*state LISTEN ps TCP .*comm rping src-addr $B:7174"
		tap_like "rdma res show cm_id: the client, connected" "$ids" \
			"link vmlx0/1 .*qp-type RC state CONNECT ps TCP .*comm rping src-addr $A:[0-9]+ dst-addr $B:7174"
		tap_like "rdma res show cm_id: the server's end" "$ids" \
			"link vmlx1/1 .*qp-type RC state CONNECT ps TCP .*comm rping src-addr $B:7174 dst-addr $A:[0-9]+"
	fi
	wait $cpid
	tap_is "rping -c IPv$v, $size B x 500, -V: exit 0" \
		"$(cat "$run/rpingc$v.rc")" 0
	# rping exits 0 also when a wait in its loop was cut short
	tap_ok "$(! grep -qiE 'wait for|fail|error|mismatch' "$run/rpingc$v"; echo $?)" \
		"rping -c IPv$v: every iteration completed"
	wait $spid
	tap_ok $? "rping -s IPv$v, -V: exit 0"
	[[ $TAP_FAILED -eq 0 ]] ||
		tap_diag "$(tail -n 5 "$run/rpingc$v")" "$(tail -n 5 "$run/rping$v")"
done

# --- ucmatose, udaddy, rdma_server/rdma_client -----------------------------------
for v in 4 6; do
	if [[ $v == 4 ]]; then dst=$B; else dst=$B6; fi
	serve ucmatose$v ucmatose -b $dst -c 10
	out=$(na timeout 60 ucmatose -s $dst -c 10 2>&1)
	tap_ok $? "ucmatose -c 10 IPv$v: client exit 0"
	tap_like "ucmatose IPv$v: client test complete" "$out" "test complete"
	wait $spid
	tap_ok $? "ucmatose -c 10 IPv$v: server exit 0"
	[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out" "$(cat "$run/ucmatose$v")"

	serve udaddy$v udaddy -b $dst
	out=$(na timeout 60 udaddy -s $dst 2>&1)
	tap_ok $? "udaddy IPv$v: client exit 0"
	tap_like "udaddy IPv$v: data transfers complete" "$out" \
		"data transfers complete"
	wait $spid
	tap_ok $? "udaddy IPv$v: server exit 0"

	serve rdma_server$v rdma_server -s $dst
	out=$(na timeout 60 rdma_client -s $dst 2>&1)
	tap_ok $? "rdma_client IPv$v: exit 0"
	tap_like "rdma_client IPv$v: end 0" "$out" "rdma_client: end 0"
	wait $spid
	tap_ok $? "rdma_server IPv$v: exit 0"
done

# --- SIGKILL of one end mid-transfer ------------------------------------------------
# wait_gone PID SECS: 0 once PID has exited
wait_gone() {
	for _ in $(seq $(($2 * 5))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	return 1
}
for victim in client server; do
	serve rping_kill rping -s -a $B -V -S 4096 -C 1000000
	ip netns exec a timeout 150 rping -c -a $B -V -S 4096 -C 1000000 \
		>"$run/rping_killc" 2>&1 &
	cpid=$!
	wait_cm_ids 3 30
	tap_ok $? "rping running ($victim to be killed): 3 cm_ids"
	# timeout(1) leads its own process group: kill rping, not just it
	if [[ $victim == client ]]; then
		kill -9 -- -$cpid
		wait_gone $spid 30
		tap_ok $? "client killed: the server got its disconnect and ended"
	else
		kill -9 -- -$spid
		wait_gone $cpid 30
		tap_ok $? "server killed: the client got its disconnect and ended"
	fi
	kill -9 -- -$spid -$cpid 2>/dev/null
	wait $spid $cpid 2>/dev/null
	wait_cm_ids 0 30
	tap_ok $? "after the $victim's SIGKILL: no cm_id left"
done

# --- nobody listens ---------------------------------------------------------------
start=$SECONDS
out=$(na timeout 30 rping -c -a $B -p 7999 -C 1 2>&1)
tap_like "rping to a port nobody listens on: REJECTED, reason 8" "$out" \
	"RDMA_CM_EVENT_REJECTED, error 8"
tap_ok "$( ((SECONDS - start < 10)); echo $?)" "... within 10 s"

# --- rmmod ib_ipoib under a connection --------------------------------------------
# (about 10 ms an iteration here, several times that on a loaded host)
serve rping_rm rping -s -a $B -V -C 1000 -S 4096
(na timeout 150 rping -c -a $B -V -C 1000 -S 4096 \
	>"$run/rping_rmc" 2>&1; echo $? >"$run/rping_rmc.rc") &
cpid=$!
wait_cm_ids 3
tap_is "rping 4 KiB x 1000: connected (3 cm_ids)" "$(cm_ids)" 3
tap_check "rmmod ib_ipoib under it" timeout 60 rmmod ib_ipoib
tap_ok "$([[ ! -d /sys/module/ib_ipoib ]] && ! na ip link show ib0 &&
	! nb ip link show ib1; echo $?)" "ib_ipoib, ib0 and ib1 are gone"
tap_ok "$(kill -0 "$cpid" 2>/dev/null; echo $?)" \
	"... while the rping client still ran"
wait $cpid
tap_is "rping -c across the rmmod: exit 0" "$(cat "$run/rping_rmc.rc")" 0
tap_ok "$(! grep -qiE 'wait for|fail|error|mismatch' "$run/rping_rmc"; echo $?)" \
	"rping -c across the rmmod: every iteration completed, data verified"
wait $spid
tap_ok $? "rping -s across the rmmod: exit 0"
[[ $TAP_FAILED -eq 0 ]] ||
	tap_diag "$(tail -n 5 "$run/rping_rmc")" "$(tail -n 5 "$run/rping_rm")"
out=$(na timeout 30 rping -c -a $B -C 1 2>&1)
tap_like "rping to the address that went with ib1: no route" "$out" \
	"RDMA_CM_EVENT_ADDR_ERROR|rdma_resolve_addr: (Network is unreachable|No route to host)"
tap_diag "$out"

# --- nothing left -------------------------------------------------------------------
tap_is "no cm_id left" "$(cm_ids)" 0
tap_check "rmmod rdma_ucm" rmmod rdma_ucm
tap_check "rmmod rdma_cm" rmmod rdma_cm
tap_done
