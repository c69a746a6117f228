# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# ipoib.sh - what the IPoIB scenarios share.  They move IPoIB interfaces
# into the network namespaces "a" and "b", so that traffic between them
# crosses the fabric instead of the local routing table.  Source it after
# tests/vm/tap.sh and tests/vm/vmlx.sh:
#
#   na CMD... / nb CMD...       CMD in namespace a / b (a background job
#                               should use ip netns exec itself, so that
#                               $! is the command's own pid)
#   ipoib_ns_cleanup            kill what runs in a and b, delete them
#   ab_run_dir                  $run, a scratch directory; at exit opensm
#                               stops, a, b and $run go
#   gid_hex DEV                 DEV port 1's GID as the 16 colon-separated
#                               bytes that end its IPoIB address
#   carrier NS DEV              DEV's carrier in NS (0 or 1)
#   wait_carrier NS DEV SECS    0 once DEV in NS has its carrier
#   ethtool_stat NS DEV NAME    the ethtool -S counter NAME of DEV in NS
#   ns_listen NS PORT           0 once something listens on TCP PORT in
#                               NS (10 s at most)

na() { ip netns exec a "$@"; }
nb() { ip netns exec b "$@"; }

# ab_run_dir: a scratch directory in $run; when the scenario exits,
# opensm stops, the namespaces go and so does the directory
ab_run_dir() {
	run=$(mktemp -d)
	trap ab_cleanup EXIT
}

ab_cleanup() {
	opensm_stop
	ipoib_ns_cleanup
	rm -rf "$run"
}

ipoib_ns_cleanup() {
	local ns

	for ns in a b; do
		ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
}

gid_hex() {
	tr -d ':' <"/sys/class/infiniband/$1/ports/1/gids/0" |
		sed 's/../&:/g; s/:$//'
}

carrier() {
	ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null
}

wait_carrier() {
	for _ in $(seq "$3"); do
		[[ $(carrier "$1" "$2") == 1 ]] && return 0
		sleep 1
	done
	return 1
}

ethtool_stat() {
	ip netns exec "$1" ethtool -S "$2" | sed -n "s/^ *$3: *//p"
}

ns_listen() {
	for _ in $(seq 100); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . &&
			return 0
		sleep 0.1
	done
	return 1
}

# ab_fabric A B [A6 B6]: ib0 in namespace a with address A/24 (and A6/64),
# ib1 in b with B (and B6), both up; opensm on the fabric and the carrier
# on both, each a test point; bails out without a fabric
ab_fabric() {
	local a=$1 b=$2 a6=${3:-} b6=${4:-} rc

	ip netns add a
	ip netns add b
	ip link set ib0 netns a && ip link set ib1 netns b &&
		na ip link set lo up && nb ip link set lo up &&
		ip -n a link set ib0 up && ip -n a addr add "$a/24" dev ib0 &&
		ip -n b link set ib1 up && ip -n b addr add "$b/24" dev ib1 &&
		{ [[ -z $a6 ]] ||
		  { ip -n a addr add "$a6/64" dev ib0 nodad &&
		    ip -n b addr add "$b6/64" dev ib1 nodad; }; }
	tap_ok $? "ib0 in a ($a${a6:+, $a6}), ib1 in b ($b${b6:+, $b6}), up"
	opensm_start
	wait_carrier a ib0 120 && wait_carrier b ib1 60
	rc=$?
	tap_ok $rc "ib0 and ib1: carrier"
	[[ $rc -eq 0 ]] || tap_bail "no fabric: $(tail -n 20 "$OPENSM_LOG")"
}

# cm_ids: the number of RDMA CM ids rdma res counts on all HCAs
cm_ids() {
	rdma res show 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "cm_id") n += $(i + 1) }
		     END { print n + 0 }'
}

# wait_cm_ids N [SECS]: until cm_ids is N, SECS (10) at most; its status says if it is
wait_cm_ids() {
	for _ in $(seq $((${2:-10} * 5))); do
		[[ $(cm_ids) -eq $1 ]] && return 0
		sleep 0.2
	done
	return 1
}
