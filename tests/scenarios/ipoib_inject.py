#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Malformed IPoIB frames from the fabric, for the ipoib-datagram scenario:
# a UD QP of its own on DEV (pyverbs, Debian's librxe) sends SENDs to an
# IPoIB interface's QP at LID with the broadcast group's Q_Key, each a
# frame IPoIB must drop and count.  Prints one line per frame sent
# ("ok <what>", checker.py); the scenario reads the counters.
#
#   ipoib_inject.py DEV LID QPN QKEY
#
# The frames, in order, and the counter each must move (ethtool -S):
#   short       2 bytes, half an encapsulation header     rx_short
#   ethertype   EtherType 0x1234                          rx_bad_proto
#   arp-short   ARP, 20 bytes of its 56                   rx_short
#   arp-ether   ARP with hardware type 1 (Ethernet)       rx_bad_arp
#   arp-qpn     ARP whose sender address names QPN 0x777777,
#               not the QP that sent it                    rx_bad_arp
import struct
import sys
import time

from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR
import pyverbs.enums as e

from checker import exit_status, report

ETH_P_ARP = 0x0806
ARPHRD_INFINIBAND = 32


def encap(proto, payload):
    """The 4-byte encapsulation header (EtherType, reserved) and payload."""
    return struct.pack(">HH", proto, 0) + payload


def arp(hrd, sender_qpn, gid):
    """An ARP request with IPoIB's 20-byte addresses."""
    sha = struct.pack(">I", sender_qpn & 0xffffff) + gid
    return struct.pack(">HHBBH", hrd, 0x0800, 20, 4, 1) + sha + \
        bytes([10, 13, 0, 99]) + bytes(20) + bytes([10, 13, 0, 1])


def main():
    dev, lid, qpn, qkey = sys.argv[1], int(sys.argv[2], 0), \
        int(sys.argv[3], 0), int(sys.argv[4], 0)
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    cap = QPCap(max_send_wr=8, max_recv_wr=1, max_send_sge=1,
                max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, cap=cap))
    a = QPAttr(qp_state=e.IBV_QPS_INIT)
    a.pkey_index = 0
    a.port_num = 1
    a.qkey = qkey
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_QKEY)
    qp.modify(QPAttr(qp_state=e.IBV_QPS_RTR), e.IBV_QP_STATE)
    a = QPAttr(qp_state=e.IBV_QPS_RTS)
    a.sq_psn = 0
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN)
    gid = bytes.fromhex(str(ctx.query_gid(1, 0).gid).replace(":", ""))
    ah = AH(pd, attr=AHAttr(dlid=lid, port_num=1))

    frames = [
        ("short", b"\x08\x00"),
        ("ethertype", encap(0x1234, bytes(40))),
        ("arp-short", encap(ETH_P_ARP, arp(ARPHRD_INFINIBAND, qp.qp_num,
                                           gid)[:20])),
        ("arp-ether", encap(ETH_P_ARP, arp(1, qp.qp_num, gid))),
        ("arp-qpn", encap(ETH_P_ARP, arp(ARPHRD_INFINIBAND, 0x777777,
                                         gid))),
    ]
    for i, (what, data) in enumerate(frames):
        mr.write(data, len(data))
        wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(mr.buf, len(data), mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(ah, qpn, qkey)
        qp.post_send(wr)
        status = None
        end = time.monotonic() + 5
        while status is None and time.monotonic() < end:
            n, wcs = cq.poll(1)
            if n:
                status = wcs[0].status
            else:
                time.sleep(0.01)
        report(status == e.IBV_WC_SUCCESS,
               "%s: %d bytes sent to QPN 0x%x at LID %d" %
               (what, len(data), qpn, lid),
               "completion status %s" % status)
        # one at a time, so that the receiver sees them in order
        time.sleep(0.1)
    sys.exit(exit_status())


main()
