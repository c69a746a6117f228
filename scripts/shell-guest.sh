#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make shell: the set-up that runs inside the guest before its interactive
# shell.  Two HCAs on the emulated switch, the stack loaded, Debian's
# opensm bringing the fabric up (it keeps running in the background), and,
# once ib_ipoib exists, ib0 and ib1 addressed in two network namespaces.
# Prints what was done and how to go on.
set -u
ib=/sys/class/infiniband
. "$(dirname "$0")/ipoib-netns.sh"

step() {
	echo "# $*"
	"$@" 2>&1 | sed 's/^/  /'
	return "${PIPESTATUS[0]}"
}

step modprobe vmlx num_hcas=2 || exit 1
step modprobe ib_umad || exit 1
step modprobe ib_uverbs || exit 1
# the upper layers that are built (ours are in updates/; Debian's own
# in-tree modules of the same names do not fit our ib_core)
for m in ib_cm rdma_ucm ib_ipoib; do
	if [[ $(modinfo -F filename "$m" 2>/dev/null) == */updates/* ]]; then
		step modprobe "$m"
	fi
done

pg=0x$(cut -d: -f5-8 <$ib/vmlx0/ports/1/gids/0 | tr -d :)
echo "# opensm -g $pg -f /tmp/opensm.log &   (kept running)"
setsid opensm -g "$pg" -f /tmp/opensm.log </dev/null >/tmp/opensm.out 2>&1 &
up=0
for _ in $(seq 60); do
	up=$(grep -l ACTIVE $ib/*/ports/1/state | wc -l)
	[[ $up -eq 2 ]] && break
	sleep 1
done
echo "  $up of 2 ports ACTIVE"

if [[ -d /sys/class/net/ib0 && -d /sys/class/net/ib1 ]]; then
	ipoib_netns_up step
	ipoib="ib0 is $IPOIB_NS0_ADDR in netns ns0, ib1 is $IPOIB_NS1_ADDR in netns ns1:
  ip netns exec ns0 ping -c 3 $IPOIB_NS1_ADDR"
else
	ipoib="no IPoIB devices (ib_ipoib is not built yet)"
fi

cat <<MSG

=== a guest with the stack loaded and the fabric up ===
  vmlx0 and vmlx1 on one switch, opensm running (log in /tmp/opensm.log):
  ibstat, ibnetdiscover, saquery, rdma res, ibv_devinfo, ib_write_bw ...
  $ipoib
  The repository is $PWD (read-only); exit the shell to power off.
MSG
