#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: QP1 redirection (IBA 13.5.3.3) in the MAD layer.  With vmlx
# static_lids=1 (vmlx0 LID 1, vmlx1 LID 2), ib_umad and ib_verbs_test:
# Debian's perfquery reads vmlx1's PMA over QP1; the "mad redirect"
# command moves the PMA class (0x04) of vmlx1 port 1 onto a UD QP of its
# own, which "rdma res" shows; a raw umad PMA Get to LID 2 QP1
# (mad_redirect.py) is answered with status 0x0002 and a ClassPortInfo
# naming the new QP and its Q_Key, and the same Get sent to that QP gets
# real PortCounters from it; the kernel client checks the same from a UD
# QP and that a MAD of another class, an SMP and a MAD with a wrong Q_Key
# sent to the redirect QP get no answer (and are counted as dropped);
# unmodified perfquery (libibmad follows the redirect) prints counters
# that agree with the vmlx debugfs counters; a second redirect is EBUSY,
# classes 0x00, 0x01, 0x81, 0x50 are EINVAL, a port without MADs ENODEV;
# "off" destroys the QP ("rdma res" back to its baseline) and QP1 answers
# the PMA itself again; rmmod vmlx while a class is redirected is clean,
# and so is every module's unload.  The harness fails the run on any
# kernel warning in dmesg.
#
# vm-run-options: --smp 2
set -u
. "$(dirname "$0")/../vm/tap.sh"
. "$(dirname "$0")/../vm/vmlx.sh"
. "$(dirname "$0")/../kmod/vt.sh"

here=$(dirname "$0")
ib=/sys/class/infiniband

# run_py ARGS...: mad_redirect.py ARGS, its checks as TAP
run_py() {
	tap_checker "mad_redirect.py $1 exits 0" \
		timeout 60 python3 "$here/mad_redirect.py" "$@"
}

# field TEXT NAME: the value of a "Name:.....value" line of perfquery
field() {
	sed -n "s/^$2:\.*//p" <<<"$1" | head -n1
}

# qps LINK: the number of QPs "rdma res" shows on LINK
qps() {
	rdma res show qp link "$1" 2>/dev/null | grep -c "lqpn"
}

vmlx_start ib_umad ib_verbs_test
tap_is "vmlx0 port 1 ACTIVE, LID 1" "$(vt_port_state vmlx0)" "ACTIVE 1"
tap_is "vmlx1 port 1 ACTIVE, LID 2" "$(vt_port_state vmlx1)" "ACTIVE 2"

# --- before: perfquery over QP1 ------------------------------------------------
out=$(timeout 20 perfquery 2 1 2>&1)
tap_like "perfquery 2 1 before the redirect" "$out" "PortXmitPkts:\.*[0-9]+"
run_py plain 2
base=$(qps vmlx1/1)
tap_is "rdma res: QP0 and QP1 on vmlx1/1" "$base" 2

# --- redirect the PMA of vmlx1 port 1 -----------------------------------------------
vt_run mad redirect vmlx1 1 0x04 on
qpn=$(sed -n 's/^# redirect qpn \(0x[0-9a-f]*\) .*/\1/p' "$VT_DIR/result")
tap_like "the redirect QP has a number" "$qpn" "^0x[0-9a-f]+$"
qpn=${qpn:-0}
tap_is "rdma res: one more QP on vmlx1/1" "$(qps vmlx1/1)" $((base + 1))
res=$(rdma res show qp link vmlx1/1 2>&1)
tap_diag "$res"
tap_like "rdma res: the redirect QP, UD, RTS" "$res" \
	"lqpn $((qpn)) .*type UD state RTS"
tap_is "rdma res: vmlx0/1 unchanged" "$(qps vmlx0/1)" 2

# --- bad input to the API --------------------------------------------------------
vt_run mad redirect vmlx1 1 0x04 on EBUSY
for c in 0x00 0x01 0x81 0x50; do
	vt_run mad redirect vmlx1 1 $c on EINVAL
done
vt_run mad redirect vmlx1 2 0x04 on ENODEV
vt_run mad redirect vmlx1 1 0x06 off ENOENT
tap_is "rdma res: still one redirect QP" "$(qps vmlx1/1)" $((base + 1))

# --- the redirect on the wire ------------------------------------------------------
run_py redirected 2 "$qpn"
vt_run mad redirect vmlx1 1 0x04 check

# --- perfquery follows the redirect ---------------------------------------------------
tx0=$(vt_counter vmlx1 xmit_packets)
out=$(timeout 20 perfquery -d 2 1 2>&1)
tx1=$(vt_counter vmlx1 xmit_packets)
tap_diag "$out"
tap_like "perfquery 2 1 while redirected: libibmad followed the redirect" \
	"$out" "redirected to lid 2, qp $qpn, qkey 0x80010000"
pkts=$(field "$out" PortXmitPkts)
tap_like "  ... and printed PortXmitPkts" "$pkts" "^[0-9]+$"
pkts=${pkts:-0}
tap_ok $((tx0 <= pkts && pkts <= tx1 ? 0 : 1)) \
	"  ... PortXmitPkts $pkts within the debugfs counter's $tx0..$tx1"
out=$(timeout 20 perfquery 2 1 2>&1)
tap_like "perfquery 2 1 (quiet) prints counters" "$out" "PortRcvPkts:\.*[0-9]+"
out=$(timeout 20 perfquery 1 1 2>&1)
tap_like "perfquery 1 1 (vmlx0, not redirected)" "$out" \
	"PortXmitPkts:\.*[0-9]+"

# --- off --------------------------------------------------------------------------
vt_run mad redirect vmlx1 1 0x04 off
tap_is "rdma res: back to the baseline on vmlx1/1" "$(qps vmlx1/1)" "$base"
vt_run mad redirect vmlx1 1 0x04 off ENOENT
run_py plain 2
out=$(timeout 20 perfquery -d 2 1 2>&1)
tap_like "perfquery 2 1 after off: counters" "$out" "PortXmitPkts:\.*[0-9]+"
tap_ok $([[ $out != *redirected* ]]; echo $?) "  ... without a redirect"

# --- redirect and off again, then rmmod while redirected -------------------------------
vt_run mad redirect vmlx1 1 0x04 on
vt_run mad redirect vmlx1 1 0x04 off
vt_run mad redirect vmlx1 1 0x04 on
vt_run mad redirect vmlx0 1 0x04 on
qpn=$(sed -n 's/^# redirect qpn \(0x[0-9a-f]*\) .*/\1/p' "$VT_DIR/result")
run_py redirected 1 "${qpn:-0}"
tap_check "rmmod ib_verbs_test (the redirects stay)" modprobe -r ib_verbs_test
tap_is "rdma res: vmlx1/1 still redirected" "$(qps vmlx1/1)" $((base + 1))
tap_check "rmmod vmlx with two classes redirected" timeout 60 rmmod vmlx
tap_is "devices gone" "$(find $ib -mindepth 1 -maxdepth 1 | wc -l)" 0
tap_check "modprobe vmlx static_lids=1 again" modprobe vmlx static_lids=1
tap_is "rdma res: the new vmlx1/1 has QP0 and QP1 only" "$(qps vmlx1/1)" 2
run_py plain 2
tap_check "rmmod ib_umad" rmmod ib_umad
tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_core" rmmod ib_core
tap_done
