#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: RDMA netlink (NETLINK_RDMA, the nldev client of ib_core)
# judged by iproute2's unmodified "rdma" tool.  vmlx0 and vmlx1 with
# static LIDs: "rdma dev" and "rdma link" agree with sysfs and the vmlx
# port state, "rdma -j" prints JSON, "rdma sys" and "rdma res" work; with
# the ib_verbs_test client's background RC traffic "rdma res show
# qp|cq|mr|pd" list its objects, and the counts go back when it stops.
# rdma-nl-requests.py then sends raw requests, well-formed and malformed,
# that must be answered with the right errno.  The harness fails the run
# on any kernel warning in dmesg.
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../vm/vmlx.sh"
. "$(dirname "$0")/../kmod/vt.sh"

ib=/sys/class/infiniband

# rdma ARGS..., without the blank that rdma ends its lines with
rdma_out() {
	rdma "$@" | sed 's/ *$//'
}

# "name N name N ..." of "rdma res" for one device
res_counts() {
	rdma_out res show "$1" | sed -E 's/^[0-9]+: [^:]+: //'
}

# the value after KEY in "KEY VALUE" lines of a vmlx port state file
port_field() {
	local name value
	while read -r name value; do
		if [[ $name == "$2" ]]; then
			echo "$value"
			return
		fi
	done <"$VT_VMLX/$1/port1/state"
}

vmlx_start
tap_is "ib_core is ours, from updates/" \
	"$(modinfo -n ib_core | grep -c "/updates/")" 1
tap_is "the loaded ib_core is ours, not Debian's" \
	"$(grep -cw '__rdma_nl_register' /proc/kallsyms)" 1
vt_wait_state vmlx0 ACTIVE 10
vt_wait_state vmlx1 ACTIVE 10

# --- devices ------------------------------------------------------------------
tap_is "rdma dev lists vmlx0 and vmlx1" \
	"$(rdma dev | awk '{ print $2 }' | xargs)" "vmlx0: vmlx1:"
for d in vmlx0 vmlx1; do
	tap_like "rdma dev show $d: type, fw and GUIDs as sysfs has them" \
		"$(rdma_out dev show $d)" \
		"^[0-9]+: $d: node_type ca fw $(<$ib/$d/fw_ver) node_guid $(<$ib/$d/node_guid) sys_image_guid $(<$ib/$d/sys_image_guid)\$"
done
json=$(rdma -j dev)
tap_is "rdma -j dev is JSON with the sysfs GUIDs" \
	"$(python3 -c '
import json, sys
for d in json.loads(sys.argv[1]):
    print(d["ifname"], d["node_guid"], d["sys_image_guid"])
' "$json" 2>&1 | xargs)" \
	"vmlx0 $(<$ib/vmlx0/node_guid) $(<$ib/vmlx0/sys_image_guid) vmlx1 $(<$ib/vmlx1/node_guid) $(<$ib/vmlx1/sys_image_guid)"
tap_like "rdma dev show -d: caps" "$(rdma dev show vmlx0 -d)" "caps: <"

# --- links ------------------------------------------------------------------------
tap_is "rdma link shows the two ports" \
	"$(rdma link | awk '{ print $2 }' | xargs)" "vmlx0/1 vmlx1/1"
for d in vmlx0 vmlx1; do
	lid=$(port_field $d lid)
	sm_lid=$(port_field $d sm_lid)
	lmc=$(port_field $d lmc)
	tap_like "rdma link show $d/1: ACTIVE, LID $lid, SM LID $sm_lid" \
		"$(rdma link show $d/1)" \
		"^link $d/1 subnet_prefix fe80:0000:0000:0000 lid $lid sm_lid $sm_lid lmc $lmc state ACTIVE physical_state LINK_UP"
	tap_is "$d: LID in sysfs matches" \
		"$(($(<$ib/$d/ports/1/lid))) $(($(<$ib/$d/ports/1/sm_lid)))" \
		"$lid $sm_lid"
done
tap_is "static LIDs 1 and 2" "$(port_field vmlx0 lid) $(port_field vmlx1 lid)" "1 2"
tap_like "rdma link show -d: caps" "$(rdma link show vmlx0/1 -d)" "caps: <"
tap_is "rdma -j link is JSON" \
	"$(rdma -j link | python3 -c '
import json, sys
print(" ".join("%s/%d:%s:%d" % (p["ifname"], p["port"], p["state"], p["lid"])
               for p in json.load(sys.stdin)))' 2>&1)" \
	"vmlx0/1:ACTIVE:1 vmlx1/1:ACTIVE:2"
tap_check_fails "rdma link show vmlx0/2: no such port" rdma link show vmlx0/2

# --- system and resources -----------------------------------------------------
tap_like "rdma sys: shared netns mode, copy-on-fork" "$(rdma sys)" \
	"netns shared.*copy-on-fork on"
tap_like "rdma res shows the counts of vmlx0" "$(rdma_out res show vmlx0)" \
	"^[0-9]+: vmlx0: pd [0-9]+ cq [0-9]+ qp [0-9]+ cm_id 0 mr [0-9]+ ctx 0 srq [0-9]+\$"
tap_is "rdma -j res is JSON" \
	"$(rdma -j res | python3 -c '
import json, sys
print(" ".join(d["ifname"] for d in json.load(sys.stdin)))' 2>&1)" \
	"vmlx0 vmlx1"

# --- with live objects ------------------------------------------------------------
tap_check "modprobe ib_verbs_test" modprobe ib_verbs_test
before0=$(res_counts vmlx0)
before1=$(res_counts vmlx1)
tap_diag "before the traffic: vmlx0 $before0; vmlx1 $before1"
vt_run traffic start
during0=$(res_counts vmlx0)
tap_diag "during the traffic: vmlx0 $during0"
tap_like "rdma res: the traffic's objects are counted" "$during0" \
	"pd [1-9][0-9]* cq [1-9][0-9]* qp [1-9][0-9]* cm_id 0 mr [0-9]+"
qps=$(rdma res show qp)
tap_diag "rdma res show qp:" "$qps"
tap_ok $(( $(grep -c 'type RC state RTS .*comm \[ib_verbs_test\]' <<<"$qps") >= 2 ? 0 : 1 )) \
	"rdma res show qp: RC QPs in RTS owned by ib_verbs_test"
tap_like "rdma res show qp dev vmlx0: an RC QP with its numbers" \
	"$(rdma res show qp link vmlx0/1)" \
	"link vmlx0/1 lqpn [0-9]+ rqpn [0-9]+ type RC state RTS rq-psn [0-9]+ sq-psn [0-9]+ path-mig-state MIGRATED pdn [0-9]+ comm \[ib_verbs_test\]"
for r in cq pd; do
	out=$(rdma res show $r)
	tap_ok $(( $(grep -c 'comm \[ib_verbs_test\]' <<<"$out") >= 1 ? 0 : 1 )) \
		"rdma res show $r: ib_verbs_test's objects"
	tap_diag "$out"
done
tap_is "rdma -j res show qp is JSON" \
	"$(rdma -j res show qp | python3 -c '
import json, sys
print(len([q for q in json.load(sys.stdin) if q["type"] == "RC"]) >= 2)' 2>&1)" \
	"True"
tap_check "rdma res show srq and ctx dump" \
	sh -c 'rdma res show srq && rdma res show ctx'
vt_run traffic stop
tap_is "vmlx0: the counts are back after traffic stop" \
	"$(res_counts vmlx0)" "$before0"
tap_is "vmlx1: the counts are back after traffic stop" \
	"$(res_counts vmlx1)" "$before1"

# The traffic has no MR: watch the create/destroy loop (PD, MR, CQ, QP
# per round) instead, dumping all the while, so that objects go away
# under the dumps' feet.
( echo "loop n=6000" >"$VT_DIR/run" ) 2>/dev/null &
loop_pid=$!
mrs=
dumps=0
while kill -0 $loop_pid 2>/dev/null; do
	out=$(rdma_out res show mr 2>&1)
	if [[ -z $mrs && $out == *"comm [ib_verbs_test]"* ]]; then
		mrs=$out
	fi
	rdma res show qp >/dev/null 2>&1
	rdma res show cq >/dev/null 2>&1
	rdma res show pd >/dev/null 2>&1
	dumps=$((dumps + 1))
done
wait $loop_pid
tap_ok $? "ib_verbs_test loop n=6000 while dumping ($dumps rounds of dumps)"
tap_like "the loop's results are ok" "$(grep -c '^not ok' "$VT_DIR/result") $(grep -c '^ok' "$VT_DIR/result")" "^0 [1-9]"
tap_diag "rdma res show mr:" "$mrs"
tap_like "rdma res show mr: an MR of ib_verbs_test, keys as root" "$mrs" \
	"rkey 0x[0-9a-f]+ lkey 0x[0-9a-f]+ .*mrlen [0-9]+ .*comm \[ib_verbs_test\]"
tap_is "vmlx0: the counts are back after the loop" \
	"$(res_counts vmlx0)" "$before0"

# --- raw requests -----------------------------------------------------------------
tap_checker --prefix "netlink: " "rdma-nl-requests.py exits 0" \
	python3 "$(dirname "$0")/rdma-nl-requests.py"

# --- libibverbs discovery -------------------------------------------------------
tap_check "modprobe ib_uverbs" modprobe ib_uverbs
devs=$(ibv_devices 2>&1)
tap_diag "$devs"
tap_like "ibv_devices lists vmlx0 with its node GUID" "$devs" \
	"vmlx0[[:space:]]+$(tr -d : <$ib/vmlx0/node_guid)"
tap_like "ibv_devices lists vmlx1 with its node GUID" "$devs" \
	"vmlx1[[:space:]]+$(tr -d : <$ib/vmlx1/node_guid)"

# --- unload ----------------------------------------------------------------------
tap_check "rmmod ib_verbs_test" modprobe -r ib_verbs_test
tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod vmlx" rmmod vmlx
tap_is "rdma dev: no device left" "$(rdma dev)" ""
tap_check "rmmod ib_core" rmmod ib_core
tap_is "a NETLINK_RDMA socket loads ib_core again (net-pf-16-proto-20)" \
	"$(rdma sys >/dev/null 2>&1; grep -c '^ib_core ' /proc/modules)" 1
tap_check "rmmod ib_core again" rmmod ib_core
tap_done
