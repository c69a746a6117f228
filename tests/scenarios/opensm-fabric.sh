#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: Debian's unmodified opensm brings up a fabric of four vmlx
# HCAs behind the emulated switch, and infiniband-diags see what the
# module was told to build.  opensm runs on vmlx0 port 1 without periodic
# sweeps (-s 0), so after its first sweep only traps make it sweep again.
#
#  - Every port ACTIVE with its own LID, the SM's LID everywhere; ibstat
#    and ibstatus agree.
#  - ibnetdiscover: one switch with a link line per HCA, in cabling order,
#    and each HCA's link back to it, GUIDs as in sysfs; iblinkinfo shows
#    the links ACTIVE; smpquery nodeinfo|portinfo|pkeys|sl2vl for every
#    node by LID and for every switch port; sminfo names vmlx0's port as
#    master.
#  - perfquery: a UD pingpong of N messages of S bytes moves PortXmitPkts
#    by N and PortXmitData by N x (S + 32) / 4 on the sender, the same on
#    the receiver's Rcv counters, once perfquery's own answer (measured
#    by two queries back to back) is taken off.
#  - The switch's PMA (port 0, by its LID): perfquery answers for every
#    switch port and refuses a port it does not have; a second UD
#    pingpong moves switch port 2 (vmlx1's) and 3 (vmlx2's) by N packets
#    and N x (S + 32) / 4 words each way, the switch's Xmit on a port
#    being what the HCA there received and its Rcv what the HCA sent;
#    perfquery -x and -a, ibqueryerrors without PMA query failures, the
#    counters in debugfs; perfquery -R zeroes a switch port.
#  - saquery (opensm's SA over our GSI and RMPP): every node record and
#    the path records between the HCAs.
#  - Verbs with the LIDs opensm assigned: ibv_rc_pingpong, ib_write_bw.
#  - A link pulled with the knob under RC traffic: both pingpongs fail
#    with "transport retry counter exceeded", both cable ends go DOWN, the
#    switch's trap makes opensm sweep; restored, the port is ACTIVE again
#    (only a trap can have made opensm sweep) and traffic runs.
#
# The harness fails the run on any kernel warning in dmesg.
#
# vm-run-options: --smp 2 --timeout 600
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/user.sh"
. "$here/../vm/vmlx.sh"

ib=/sys/class/infiniband
dbg=/sys/kernel/debug/vmlx
nhca=4
run=$(mktemp -d)
cleanup() {
	opensm_stop
	rm -rf "$run"
}
trap cleanup EXIT
host=$(loopback_host)
port=18600

# hexguid SYSFS_GUID: 0123456789abcdef from 0123:4567:89ab:cdef
hexguid() {
	echo "${1//:/}"
}

# short GUID: 6766d6c00000001 from 06766d6c00000001, as ibnetdiscover
# and sminfo print port GUIDs
short() {
	printf '%x' "$((16#$1))"
}

# lid DEV: DEV port 1's LID, decimal
lid() {
	echo $(($(cat "$ib/$1/ports/1/lid")))
}

# field TEXT NAME: the value of a "Name:.....value" line of smpquery or
# perfquery output
field() {
	sed -n "s/^$2:\.*//p" <<<"$1" | head -n1
}

# counters DEV: "xmit_pkts xmit_data rcv_pkts rcv_data" of DEV port 1 by
# perfquery, through the PMA of that port
counters() {
	local out
	out=$(timeout 20 perfquery "$(lid "$1")" 1 2>&1)
	echo "$(field "$out" PortXmitPkts) $(field "$out" PortXmitData)" \
		"$(field "$out" PortRcvPkts) $(field "$out" PortRcvData)"
}

devs=
for i in $(seq 0 $((nhca - 1))); do
	devs="$devs vmlx$i"
done

tap_check "modprobe vmlx num_hcas=$nhca" modprobe vmlx num_hcas=$nhca
tap_check "modprobe ib_umad" modprobe ib_umad
tap_check "modprobe ib_uverbs" modprobe ib_uverbs
before=$(rdma res show 2>&1)
for d in $devs; do
	tap_is "$d: INIT before any SM" "$(cat $ib/$d/ports/1/state)" "2: INIT"
done

# --- opensm sweeps the fabric -------------------------------------------------------
pg=$(port_guid vmlx0)
opensm_start -s 0
ports_active 60
tap_ok $? "opensm -g 0x$pg: all $nhca ports ACTIVE"
opensm_up 30
tap_like "opensm: SUBNET UP" "$(cat "$OPENSM_LOG")" "SUBNET UP"
smlid=$(lid vmlx0)
declare -A seen=()
for d in $devs; do
	l=$(lid "$d")
	tap_ok $([[ $l -gt 0 && -z ${seen[$l]:-} ]]; echo $?) \
		"$d: LID $l, its own"
	seen[$l]=$d
	tap_is "$d: SM LID is vmlx0's" \
		"$(($(cat $ib/$d/ports/1/sm_lid)))" "$smlid"
	out=$(ibstat "$d" 2>&1)
	tap_like "ibstat $d: CA type vmlx, hardware version 0" "$out" \
		"CA type: vmlx"$'\n'".*Hardware version: 0"$'\n'
	tap_like "ibstat $d: Active, LID $l" "$out" \
		"State: Active.*Base lid: $l"$'\n'".*SM lid: $smlid"$'\n'
done
out=$(ibstatus 2>&1)
tap_is "ibstatus: $nhca ports ACTIVE" "$(grep -c 'state:.*4: ACTIVE' <<<"$out")" \
	"$nhca"

# --- the topology -------------------------------------------------------------------
out=$(timeout 20 smpquery -D nodeinfo 0,1 2>&1)
swguid=$(field "$out" Guid)
swguid=${swguid#0x}
tap_is "the switch's VendorId: the OUI of vmlx GUIDs" \
	"$(field "$out" VendorId)" 0x06766d
tap_like "the switch's node GUID" "$swguid" "^[0-9a-f]{16}$"
swlid=$(timeout 20 smpquery -D portinfo 0,1 0 2>&1 | sed -n 's/^Lid:\.*//p')
tap_like "the switch's LID" "$swlid" "^[1-9][0-9]*$"
seen[$swlid]=switch
tap_ok $([[ ${#seen[@]} -eq $((nhca + 1)) ]]; echo $?) \
	"$((nhca + 1)) distinct LIDs"

disc=$(timeout 60 ibnetdiscover 2>&1)
tap_is "ibnetdiscover: one switch" "$(grep -c '^Switch' <<<"$disc")" 1
tap_like "ibnetdiscover: the switch, $nhca ports, LID $swlid" "$disc" \
	"Switch[[:space:]]+$nhca \"S-$swguid\"[^"$'\n'"]*lid $swlid "
tap_is "ibnetdiscover: $nhca CAs" "$(grep -c '^Ca' <<<"$disc")" "$nhca"
k=1
for d in $devs; do
	ng=$(hexguid "$(cat $ib/$d/node_guid)")
	pgd=$(port_guid "$d")
	tap_like "ibnetdiscover: switch port $k to $d" "$disc" \
		$'\n'"\[$k\][[:space:]]+\"H-$ng\"\[1\]\($(short "$pgd") ?\)"
	tap_like "ibnetdiscover: $d port 1 to switch port $k" "$disc" \
		$'\n'"\[1\]\($(short "$pgd") ?\)[[:space:]]+\"S-$swguid\"\[$k\]"
	k=$((k + 1))
done
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$disc"

out=$(timeout 60 iblinkinfo 2>&1)
tap_is "iblinkinfo: $nhca switch links Active/LinkUp" \
	"$(grep -Ec "^ *$swlid +[0-9]+\[  \] ==\\(.*Active/  LinkUp\\)==>" \
		<<<"$(sed -n '/^Switch/,/^CA/p' <<<"$out")")" "$nhca"

for d in $devs; do
	l=$(lid "$d")
	out=$(timeout 20 smpquery nodeinfo "$l" 2>&1)
	tap_like "smpquery nodeinfo $l ($d): a CA" "$out" \
		"NodeType:\.*Channel Adapter"
	tap_is "smpquery nodeinfo $l: node GUID" "$(field "$out" Guid)" \
		"0x$(hexguid "$(cat $ib/$d/node_guid)")"
	tap_is "smpquery nodeinfo $l: VendorId, as ibv_devinfo says" \
		"$(field "$out" VendorId)" \
		"$(printf '0x%06x' "$(ibv_devinfo -d "$d" |
			sed -n 's/^[[:space:]]*vendor_id:[[:space:]]*//p')")"
	out=$(timeout 20 smpquery portinfo "$l" 2>&1)
	tap_is "smpquery portinfo $l: LID" "$(field "$out" Lid)" "$l"
	tap_is "smpquery portinfo $l: Active" "$(field "$out" LinkState)" \
		"Active"
	out=$(timeout 20 smpquery pkeys "$l" 2>&1)
	tap_like "smpquery pkeys $l: the default P_Key" "$out" \
		"(^|"$'\n'") +0: 0xffff "
	out=$(timeout 20 smpquery sl2vl "$l" 2>&1)
	tap_like "smpquery sl2vl $l: a table" "$out" \
		"ports: in  0, out  0: (\| 0){16}\|"
done
out=$(timeout 20 smpquery nodeinfo "$swlid" 2>&1)
tap_like "smpquery nodeinfo $swlid: the switch, $nhca ports" "$out" \
	"NodeType:\.*Switch"$'\n'"NumPorts:\.*$nhca"$'\n'
for p in $(seq 0 $nhca); do
	out=$(timeout 20 smpquery portinfo "$swlid" "$p" 2>&1)
	want=Active
	tap_is "smpquery portinfo $swlid $p: $want" \
		"$(field "$out" LinkState)" "$want"
done
out=$(timeout 30 sminfo 2>&1)
tap_like "sminfo: vmlx0's port is the master" "$out" \
	"sm lid $smlid sm guid 0x$(short "$pg"), .*SMINFO_MASTER"

# --- Trap 144: an HCA port's CapabilityMask changes --------------------------------
# Opening issm2 sets IsSM on vmlx2 port 1; the port reports the change to
# the SM, and again when the file is closed and the bit cleared.
l2=$(lid vmlx2)
trap144="Received Generic Notice type:4 num:144 .* from LID:$l2 "
# traps144 N: wait (10 s at most) until opensm has logged N of them
traps144() {
	for _ in $(seq 20); do
		[[ $(grep -Ec "$trap144" "$OPENSM_LOG") -ge $1 ]] && break
		sleep 0.5
	done
	grep -Ec "$trap144" "$OPENSM_LOG"
}
t0=$(traps144 0)
exec 7<>/dev/infiniband/issm2
tap_is "issm2 open: IsSM in vmlx2's cap_mask" \
	$(($(cat $ib/vmlx2/ports/1/cap_mask) & 2)) 2
tap_is "opensm got Trap 144 from vmlx2 (LID $l2)" "$(traps144 $((t0 + 1)))" \
	$((t0 + 1))
exec 7>&-
tap_is "issm2 closed: IsSM cleared" \
	$(($(cat $ib/vmlx2/ports/1/cap_mask) & 2)) 0
tap_is "opensm got a second Trap 144" "$(traps144 $((t0 + 2)))" $((t0 + 2))
tap_is "vmlx2 counted 2 traps sent" \
	"$(awk '$1 == "traps" { print $2 }' $dbg/vmlx2/port1/counters)" 2

# --- the PMA counts what a UD pingpong sent ----------------------------------------
n=100 s=1024 words=$(((1024 + 32) / 4))
a0=$(counters vmlx1) b0=$(counters vmlx2)
a1=$(counters vmlx1) b1=$(counters vmlx2)
port=$((port + 1))
run_pair "ibv_ud_pingpong -n $n -s $s (vmlx2 to vmlx1)" "$port" "$run" \
	timeout 60 ibv_ud_pingpong -d vmlx1 -i 1 -p "$port" -n $n -s $s -- \
	timeout 60 ibv_ud_pingpong -d vmlx2 -i 1 -p "$port" -n $n -s $s "$host"
a2=$(counters vmlx1) b2=$(counters vmlx2)
# delta_ok BEFORE MID AFTER IDX WANT: AFTER - MID == WANT + (MID - BEFORE)
delta_ok() {
	local b m a
	b=$(cut -d' ' -f"$4" <<<"$1")
	m=$(cut -d' ' -f"$4" <<<"$2")
	a=$(cut -d' ' -f"$4" <<<"$3")
	echo "$((a - m)) $((m - b + $5))"
}
for c in "1 PortXmitPkts $n" "2 PortXmitData $((n * words))" \
	"3 PortRcvPkts $n" "4 PortRcvData $((n * words))"; do
	read -r idx name want <<<"$c"
	for side in "vmlx1 a" "vmlx2 b"; do
		read -r d v <<<"$side"
		eval "read -r got exp <<<\"\$(delta_ok \"\$${v}0\" \"\$${v}1\" \"\$${v}2\" $idx $want)\""
		tap_is "perfquery $d: $name grew by $want (+ perfquery's own)" \
			"$got" "$exp"
	done
done

# --- the switch's PMA ----------------------------------------------------------------
# The switch's PMA is queried from vmlx0 port 1, so that the queries enter
# and leave the switch by its port 1 and leave its ports 2 and 3 alone.
swpq="perfquery -C vmlx0 -P 1"
# swcounters K: "xmit_pkts xmit_data rcv_pkts rcv_data" of switch port K
swcounters() {
	local out
	out=$(timeout 20 $swpq "$swlid" "$1" 2>&1)
	echo "$(field "$out" PortXmitPkts) $(field "$out" PortXmitData)" \
		"$(field "$out" PortRcvPkts) $(field "$out" PortRcvData)"
}
for k in $(seq $nhca); do
	out=$(timeout 20 $swpq "$swlid" "$k" 2>&1)
	tap_like "perfquery $swlid $k: the switch's PMA answers for port $k" \
		"$out" "PortSelect:\.*$k"$'\n'"(.*"$'\n'")*PortXmitPkts:\.*[0-9]+"
done
tap_check_fails "perfquery $swlid $((nhca + 1)): no such switch port" \
	timeout 20 $swpq "$swlid" $((nhca + 1))
# the switch's ports 2 and 3 see none of the switch queries; the HCA
# queries (counters) are made outside the switch's window, and the HCAs'
# own answers are taken off as above
h1a=$(counters vmlx1) h2a=$(counters vmlx2)
h1b=$(counters vmlx1) h2b=$(counters vmlx2)
s2a=$(swcounters 2) s3a=$(swcounters 3)
s2b=$(swcounters 2) s3b=$(swcounters 3)
port=$((port + 1))
run_pair "ibv_ud_pingpong -n $n -s $s again (vmlx2 to vmlx1), for the switch" \
	"$port" "$run" \
	timeout 60 ibv_ud_pingpong -d vmlx1 -i 1 -p "$port" -n $n -s $s -- \
	timeout 60 ibv_ud_pingpong -d vmlx2 -i 1 -p "$port" -n $n -s $s "$host"
s2c=$(swcounters 2) s3c=$(swcounters 3)
h1c=$(counters vmlx1) h2c=$(counters vmlx2)
# hca_delta BEFORE MID AFTER IDX: what the pingpong moved, perfquery's own
# answers taken off
hca_delta() {
	read -r got exp <<<"$(delta_ok "$1" "$2" "$3" "$4" 0)"
	echo $((got - exp))
}
# switch counter IDX on a port -> the HCA counter there it mirrors
mirror=(- 3 4 1 2)
for c in "1 PortXmitPkts $n" "2 PortXmitData $((n * words))" \
	"3 PortRcvPkts $n" "4 PortRcvData $((n * words))"; do
	read -r idx name want <<<"$c"
	for side in "2 vmlx1 s2 h1" "3 vmlx2 s3 h2"; do
		read -r k d v h <<<"$side"
		eval "read -r got exp <<<\"\$(delta_ok \"\$${v}a\" \"\$${v}b\" \"\$${v}c\" $idx $want)\""
		tap_is "perfquery $swlid $k: $name grew by $want" "$got" "$exp"
		eval "hd=\$(hca_delta \"\$${h}a\" \"\$${h}b\" \"\$${h}c\" ${mirror[$idx]})"
		tap_is "switch port $k $name: what $d counted the other way" \
			"$((got - exp + want))" "$hd"
	done
done
out=$(timeout 20 $swpq -x "$swlid" 2 2>&1)
tap_like "perfquery -x $swlid 2: PortCountersExtended" "$out" \
	"PortUnicastXmitPkts:\.*[0-9]+"
tap_is "perfquery -x $swlid 2: PortXmitPkts as PortCounters has it" \
	"$(field "$out" PortXmitPkts)" "$(cut -d' ' -f1 <<<"$(swcounters 2)")"
out=$(timeout 60 $swpq -a "$swlid" 2>&1)
tap_like "perfquery -a $swlid: counters of all switch ports" "$out" \
	"PortXmitPkts:\.*[0-9]+"
out=$(timeout 120 ibqueryerrors 2>&1)
tap_like "ibqueryerrors: every node checked" "$out" "nodes checked"
tap_is "ibqueryerrors: no PMA query failed" \
	"$(grep -ci 'query failed\|failed to' <<<"$out")" 0
tap_like "debugfs fabric: switch port 2 counts packets" \
	"$(awk '$1 == "port" && $2 == 2' $dbg/fabric)" \
	"xmit_packets [1-9][0-9]* xmit_bytes [1-9][0-9]* rcv_packets [1-9]"
tap_check "perfquery -R $swlid 3" timeout 20 $swpq -R "$swlid" 3
tap_is "perfquery $swlid 3 after the reset: zero" "$(swcounters 3)" "0 0 0 0"
out=$(timeout 20 $swpq -x "$swlid" 3 2>&1)
tap_is "perfquery -x $swlid 3 after the reset: zero" \
	"$(field "$out" PortXmitData) $(field "$out" PortRcvPkts)" "0 0"
tap_like "perfquery $swlid 2: not reset" "$(swcounters 2)" "^[1-9]"

# --- the SA ---------------------------------------------------------------------------
out=$(timeout 60 saquery NR 2>&1)
tap_is "saquery NR: $((nhca + 1)) node records" \
	"$(grep -c '^NodeRecord dump:' <<<"$out")" "$((nhca + 1))"
for d in $devs; do
	tap_like "saquery NR: $d" "$out" \
		"lid\.*$(lid "$d")"$'\n'"([^N].*"$'\n'")*.*node_guid\.*0x$(hexguid "$(cat $ib/$d/node_guid)")"
done
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$out" "$(tail -20 "$OPENSM_LOG")"
la=$(lid vmlx1) lb=$(lid vmlx3)
out=$(timeout 60 saquery PR --src-to-dst "$la:$lb" 2>&1)
tap_like "saquery PR $la to $lb: one path" "$out" \
	"PathRecord dump:.*"$'\n'"([^P].*"$'\n'")*[[:space:]]*dlid\.*$lb"$'\n'"[[:space:]]*slid\.*$la"
out=$(timeout 60 saquery PR 2>&1)
tap_is "saquery PR: a path between every two LIDs" \
	"$(grep -c '^PathRecord dump:' <<<"$out")" "$(((nhca + 1) * (nhca + 1)))"

# --- verbs with opensm's LIDs ----------------------------------------------------------
port=$((port + 1))
run_pair "ibv_rc_pingpong vmlx3 to vmlx0" "$port" "$run" \
	timeout 60 ibv_rc_pingpong -d vmlx0 -i 1 -p "$port" -n 200 -- \
	timeout 60 ibv_rc_pingpong -d vmlx3 -i 1 -p "$port" -n 200 "$host"
port=$((port + 1))
run_perftest_pair "ib_write_bw vmlx2 to vmlx1" "$port" "$run" 4 \
	timeout 90 ib_write_bw -d vmlx1 -p "$port" -n 200 -- \
	timeout 90 ib_write_bw -d vmlx2 -p "$port" -n 200 "$host"
tap_like "ib_write_bw: a bandwidth line" "$(cat "$run/client")" \
	"(^|"$'\n'") 65536 +200 +[0-9.]+ +[0-9.]+"

# --- a link pulled under traffic, and back ---------------------------------------------
port=$((port + 1))
ibv_rc_pingpong -d vmlx2 -i 1 -p "$port" -n 100000000 >"$run/server" 2>&1 &
spid=$!
wait_listen "$port"
ibv_rc_pingpong -d vmlx3 -i 1 -p "$port" -n 100000000 "$host" \
	>"$run/client" 2>&1 &
cpid=$!
sleep 2
tap_ok "$(kill -0 "$cpid" && kill -0 "$spid"; echo $?)" \
	"RC pingpong vmlx3 <-> vmlx2 running"
sweeps0=$(grep -c "SUBNET UP" "$OPENSM_LOG")
trap128="Received Generic Notice type:1 num:128 \\(Link state change\\) Producer:2 \\(Switch\\) from LID:$swlid "
traps0=$(grep -Ec "$trap128" "$OPENSM_LOG")
ibv_asyncwatch -d vmlx3 >"$run/async" 2>&1 &
apid=$!
for _ in $(seq 100); do
	grep -q "async event FD" "$run/async" && break
	sleep 0.1
done
echo 0 >"$dbg/vmlx3/port1/link"
for _ in $(seq 300); do
	kill -0 "$cpid" 2>/dev/null && kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
sleep 3
kill -KILL "$cpid" "$spid" 2>/dev/null
wait "$cpid"
crc=$?
wait "$spid"
src=$?
# Whichever side had a message in flight fails: its QP runs out of
# retries.  A side waiting for the other's next message waits on, as on
# real hardware (no QP error from a link alone), and is killed.
retry="Failed status transport retry counter exceeded \\(12\\)"
n12=0
for side in "client $crc" "server $src"; do
	read -r who rc <<<"$side"
	tap_like "pulled link: the $who failed with status 12, or waited (rc $rc)" \
		"$rc:$(cat "$run/$who")" "^137:$|$retry"
	[[ $(cat "$run/$who") =~ $retry ]] && n12=$((n12 + 1))
done
tap_ok $((n12 == 0)) "pulled link: $n12 of the two failed with status 12"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "client: $(tail "$run/client")" \
	"server: $(tail "$run/server")" "$(cat $dbg/vmlx3/port1/state)"
tap_is "vmlx3: DOWN" "$(cat $ib/vmlx3/ports/1/state)" "1: DOWN"
out=$(timeout 20 smpquery portinfo "$swlid" $nhca 2>&1)
tap_is "switch port $nhca: Down" "$(field "$out" LinkState)" "Down"
for _ in $(seq 30); do
	[[ $(grep -c "SUBNET UP" "$OPENSM_LOG") -gt $sweeps0 ]] && break
	sleep 1
done
tap_is "opensm got Trap 128 from the switch (LID $swlid)" \
	"$(grep -Ec "$trap128" "$OPENSM_LOG")" $((traps0 + 1))
tap_ok $([[ $(grep -c "SUBNET UP" "$OPENSM_LOG") -gt $sweeps0 ]]; echo $?) \
	"opensm swept again after the trap"
sweeps1=$(grep -c "SUBNET UP" "$OPENSM_LOG")
echo 1 >"$dbg/vmlx3/port1/link"
ports_active 60
tap_ok $? "link back: vmlx3 ACTIVE again (opensm swept on the trap)"
sleep 1
kill "$apid"
wait "$apid" 2>/dev/null
tap_like "ibv_asyncwatch vmlx3: PORT_ERR, then PORT_ACTIVE" "$(cat "$run/async")" \
	"IBV_EVENT_PORT_ERR .*port 1.*IBV_EVENT_PORT_ACTIVE .*port 1"
tap_is "opensm got a second Trap 128" \
	"$(grep -Ec "$trap128" "$OPENSM_LOG")" $((traps0 + 2))
tap_ok $([[ $(grep -c "SUBNET UP" "$OPENSM_LOG") -gt $sweeps1 ]]; echo $?) \
	"opensm swept once more"
port=$((port + 1))
run_pair "ibv_rc_pingpong vmlx3 to vmlx2 after the link came back" "$port" \
	"$run" timeout 60 ibv_rc_pingpong -d vmlx2 -i 1 -p "$port" -n 200 -- \
	timeout 60 ibv_rc_pingpong -d vmlx3 -i 1 -p "$port" -n 200 "$host"

tap_diag "opensm's log of the last sweeps:" \
	"$(grep -iE "trap|notice|SUBNET UP" "$OPENSM_LOG" | tail -8)"

# --- teardown ------------------------------------------------------------------------------
opensm_stop
tap_is "rdma res: as after modprobe" "$(rdma res show 2>&1)" "$before"
tap_check "rmmod ib_uverbs ib_umad vmlx" rmmod ib_uverbs ib_umad vmlx
tap_check "rmmod ib_core" rmmod ib_core
tap_done
