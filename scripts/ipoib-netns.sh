# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# ipoib-netns.sh - the IPoIB set-up the guests of "make shell" and "make
# demo" share: ib0 and ib1 (two HCAs) each in a network namespace of its
# own, so that traffic between them goes over the fabric and not through
# the local routing table.  Source it, then:
#
#   ipoib_netns_up RUN       ib0 in netns ns0 as 10.0.0.1/24, ib1 in ns1
#                            as 10.0.0.2/24, both up; each command is run
#                            as "RUN CMD ARGS..." (RUN: the caller's way
#                            of showing a command); 1 if one fails
#   ipoib_netns_wait SECS    0 once both have carrier (the broadcast group
#                            joined), 1 after SECS seconds
#   ipoib_netns_down         the namespaces deleted (the interfaces go back
#                            to the initial namespace)

IPOIB_NS0_ADDR=10.0.0.1
IPOIB_NS1_ADDR=10.0.0.2

ipoib_netns_up() {
	local run=$1 i addr
	for i in 0 1; do
		[[ $i -eq 0 ]] && addr=$IPOIB_NS0_ADDR || addr=$IPOIB_NS1_ADDR
		"$run" ip netns add ns$i &&
		"$run" ip link set ib$i netns ns$i &&
		"$run" ip -n ns$i addr add "$addr/24" dev ib$i &&
		"$run" ip -n ns$i link set ib$i up &&
		"$run" ip -n ns$i link set lo up || return 1
	done
}

# _ipoib_carrier I: ibI's carrier in nsI (0 or 1)
_ipoib_carrier() {
	ip netns exec "ns$1" cat "/sys/class/net/ib$1/carrier" 2>/dev/null
}

ipoib_netns_wait() {
	for _ in $(seq "$1"); do
		[[ $(_ipoib_carrier 0) == 1 && $(_ipoib_carrier 1) == 1 ]] &&
			return 0
		sleep 1
	done
	return 1
}

ipoib_netns_down() {
	ip netns del ns0 2>/dev/null
	ip netns del ns1 2>/dev/null
	return 0
}
