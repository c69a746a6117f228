#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: the kernel's SA client and multicast module (core/sa_query.c,
# core/multicast.c) against Debian's opensm, through the "sa" command of
# the ib_verbs_test client (tests/kmod/vt_sa.c).  Two HCAs behind the
# switch, opensm on vmlx0 port 1.
#
#  - Before any SM (SM LID 0) a query fails at once with -EAGAIN.
#  - PathRecord vmlx0 -> vmlx1 by GIDs, by LIDs and by GetTable: every
#    field equals what `saquery -p --src-to-dst` prints for the same ports;
#    the AH of ib_init_ah_attr_from_path() can be created.
#  - The SA's ClassPortInfo: send-only full member support as `saquery -c`
#    says.
#  - A ServiceRecord registered (Set), read back field by field, listed by
#    `saquery -S`, deleted, then not found (-EINVAL, NO_RECORDS).
#  - Cancelled queries call back exactly once, with -EINTR.
#  - Two kernel users join the IPoIB broadcast group on vmlx0: `saquery -m`
#    lists vmlx0's port once; after one user is freed still once; opensm
#    killed and restarted (ClientReregister): the other user is told
#    -ENETRESET and then 0 when rejoined, and the port is listed again;
#    freed, the port is no longer listed.  A user on vmlx1 is told
#    -ENETRESET when its link is pulled and 0 when opensm brought the
#    port back.
#  - With vmlx1's port dropping every packet, a query from it ends with
#    -ETIMEDOUT after its timeout; with opensm gone, the SM's port answers
#    the SA class with status 0x000C: -EINVAL.
#  - `rmmod vmlx` with 50 queries in flight and a join waiting for the SA:
#    every query calls back once (-EINTR), the membership is freed, and
#    `rdma res` is back to its baseline when vmlx is loaded again.
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../kmod/vt.sh"

ib=/sys/class/infiniband
run=$(mktemp -d)
cleanup() {
	opensm_stop
	rm -rf "$run"
}
trap cleanup EXIT

# lid DEV: DEV port 1's LID, decimal
lid() {
	echo $(($(cat "$ib/$1/ports/1/lid")))
}

start_opensm() {
	opensm_start -s 0
	ports_active 60 vmlx0 vmlx1
	tap_ok $? "opensm: both ports ACTIVE"
	opensm_up 30
	tap_like "opensm: SUBNET UP" "$(cat "$OPENSM_LOG")" "SUBNET UP"
}

# members GID: how many times saquery lists GID as a member of the
# broadcast group (the SM_Key of opensm's default makes the query trusted,
# so that every member is shown)
members() {
	timeout 60 saquery -m 0xc000 --smkey 1 2>&1 | grep -c "PortGid\.*$1 "
}

# wait_members GID N: up to 10 s for members GID to say N
wait_members() {
	for _ in $(seq 20); do
		[[ $(members "$1") -eq $2 ]] && return 0
		sleep 0.5
	done
	return 1
}

# gid DEV: DEV's port GID as saquery prints it
gid() {
	python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(sys.argv[1]))' \
		"$(cat "$ib/$1/ports/1/gids/0")"
}

vmlx_start --params "num_hcas=2" ib_umad ib_verbs_test
vt_run sa expect EAGAIN

start_opensm

# --- PathRecord ----------------------------------------------------------------------
vt_run sa path
cp "$VT_DIR/result" "$run/path.txt"
timeout 60 saquery -p --src-to-dst "$(lid vmlx0):$(lid vmlx1)" >"$run/saquery.txt" 2>&1
tap_checker "PathRecord: every field as saquery -p prints it" \
	python3 "$here/sa_path.py" "$run/path.txt" "$run/saquery.txt"

# --- ClassPortInfo, ServiceRecord, cancel ----------------------------------------------
vt_run sa cpi
ours=$(sed -n 's/^# sendonly_fullmem //p' "$VT_DIR/result")
cm2=$(timeout 60 saquery -c 2>&1 | sed -n 's/.*Capability mask 2\.*//p')
tap_is "ClassPortInfo: send-only full member support as saquery -c says" \
	"$ours" "$(( (cm2 >> 12) & 1 ))"

vt_run sa service set
vt_run sa service get
tap_like "saquery -S lists the service" "$(timeout 60 saquery -S 2>&1)" \
	"ServiceID\.*0x000000010000ce1a"$'\n'"[[:space:]]*ServiceGID\.*$(gid vmlx0)"$'\n'".*ServiceName\.*ib_verbs_test sa"
vt_run sa service delete
vt_run sa service absent
tap_is "saquery -S: the service is gone" \
	"$(timeout 60 saquery -S 2>&1 | grep -c 0x000000010000ce1a)" 0
vt_run sa cancel n=20

# --- multicast -------------------------------------------------------------------------
g0=$(gid vmlx0)
vt_run sa mcast join 0
tap_is "saquery -m: vmlx0 a member once" "$(members "$g0")" 1
vt_run sa mcast join 1
vt_run sa mcast joined
tap_is "saquery -m: two users, vmlx0 still a member once" "$(members "$g0")" 1
vt_run sa mcast free 0
tap_is "saquery -m: one user freed, vmlx0 still a member" "$(members "$g0")" 1

opensm_stop
tap_is "saquery -m with opensm gone: nothing" "$(members "$g0")" 0
start_opensm
vt_run sa mcast reset 1
wait_members "$g0" 1
tap_ok $? "saquery -m: vmlx0 a member again after the rejoin"
vt_run sa mcast free 1
wait_members "$g0" 0
tap_ok $? "saquery -m: the last user freed, vmlx0 no longer a member"
vt_run sa mcast joined no

# a pulled link: PORT_ERR, then PORT_ACTIVE once opensm swept on the trap
g1=$(gid vmlx1)
vt_run sa mcast join 2 a=vmlx1 b=vmlx0
tap_is "saquery -m: vmlx1 a member" "$(members "$g1")" 1
vt_knob vmlx1 link 0
vt_wait_state vmlx1 DOWN 10
tap_ok $? "link pulled: vmlx1 DOWN"
vt_knob vmlx1 link 1
ports_active 60 vmlx1
tap_ok $? "link back: vmlx1 ACTIVE again"
vt_run sa mcast reset 2 a=vmlx1 b=vmlx0
wait_members "$g1" 1
tap_ok $? "saquery -m: vmlx1 a member again"
vt_run sa mcast free 2 a=vmlx1 b=vmlx0
wait_members "$g1" 0
tap_ok $? "saquery -m: vmlx1 no longer a member"

# --- errors ----------------------------------------------------------------------------
vt_knob vmlx1 drop_ppm 1000000
vt_run sa expect ETIMEDOUT a=vmlx1 b=vmlx0 timeout_ms=1000
vt_knob vmlx1 drop_ppm 0
opensm_stop
vt_run sa expect EINVAL a=vmlx1 b=vmlx0

# --- device removal with queries in flight ----------------------------------------------
start_opensm
vt_knob vmlx1 drop_ppm 1000000
vt_run sa flood n=50 a=vmlx1 b=vmlx0 timeout_ms=60000
(echo "sa mcast join 2 a=vmlx1 b=vmlx0 wait_ms=60000" >"$VT_DIR/run") \
	2>/dev/null &
joiner=$!
sleep 1
opensm_stop
tap_check "rmmod vmlx with queries in flight and a join waiting" \
	timeout 60 rmmod vmlx
wait "$joiner"
tap_check "modprobe vmlx num_hcas=2" modprobe vmlx num_hcas=2
vt_run sa flood check
# (the devices have new indexes)
tap_is "rdma res: back to the start" \
	"$(rdma res show 2>&1 | sed 's/^[0-9]*: //')" \
	"$(sed 's/^[0-9]*: //' <<<"$VMLX_RES_BASELINE")"
tap_check "rmmod ib_verbs_test" timeout 60 modprobe -r ib_verbs_test
tap_check "rmmod vmlx ib_umad ib_core" timeout 60 rmmod vmlx ib_umad ib_core

tap_done
