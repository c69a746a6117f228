#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""QP1 redirection of the PMA class seen through umad, for
tests/scenarios/mad-redirect.sh; prints "ok DESC" / "not ok DESC"
(checker.py), which the scenario turns into TAP.

Usage: mad_redirect.py redirected LID QPN
         a PMA Get(PortCounters) from umad0 (vmlx0 port 1) to LID's QP1 is
         answered from QP1 with GetResp, status 0x0002 and a ClassPortInfo
         at byte 64 naming LID, QPN, Q_Key 0x80010000, P_Key 0xFFFF, SL 0;
         the same Get sent to QPN (with that Q_Key) gets PortCounters,
         status 0, from QPN; so does a Get(ClassPortInfo), whose versions,
         CapabilityMask and RespTimeValue the redirect's also has
       mad_redirect.py plain LID
         the Get to LID's QP1 is answered from QP1 with status 0
"""
import os
import select
import struct
import sys
import time

from checker import (QP1_QKEY, exit_status, report, umad_enable_pkey,
                     umad_hdr, umad_register)

UMAD0 = "/dev/infiniband/umad0"
PMA = 0x04
PORT_COUNTERS = 0x0012
CLASS_PORT_INFO = 0x0001


def pma_get(tid, attr, port=1):
    m = struct.pack(">BBBBHHQHHI", 1, PMA, 1, 0x01, 0, 0, tid, attr, 0, 0)
    m += bytes(40)
    data = bytearray(192)
    data[1] = port  # PortSelect
    m += bytes(data)
    assert len(m) == 256
    return m


def ask(fd, agent, lid, qpn, tid, attr=PORT_COUNTERS):
    """Send one Get, return (umad header fields, MAD) or None."""
    os.write(fd, umad_hdr(agent, timeout=1000, retries=2, qpn=qpn,
                          qkey=QP1_QKEY, lid=lid) + pma_get(tid, attr))
    p = select.poll()
    p.register(fd, select.POLLIN)
    end = time.time() + 10
    while time.time() < end:
        if not p.poll(100):
            continue
        r = os.read(fd, 64 + 256)
        status = struct.unpack_from("<I", r, 4)[0]
        src_qp, _, slid = struct.unpack_from(">IIH", r, 20)
        mad = r[64:]
        if status or len(mad) < 256:
            return {"status": status}, mad
        if struct.unpack_from(">Q", mad, 8)[0] & 0xffffffff != tid:
            continue
        return {"status": 0, "qpn": src_qp, "lid": slid}, mad
    return None, None


def mad_fields(mad):
    method = mad[3]
    status, _, tid, attr, _, amod = struct.unpack_from(">HHQHHI", mad, 4)
    return method, status, tid & 0xffffffff, attr, amod


def cpi_fields(mad):
    """RedirectLID, RedirectP_Key, RedirectQP, RedirectQ_Key, SL"""
    c = mad[64:64 + 72]
    tcslfl = struct.unpack_from(">I", c, 24)[0]
    lid, pkey, qp, qkey = struct.unpack_from(">HHII", c, 28)
    return lid, pkey, qp & 0xffffff, qkey, (tcslfl >> 20) & 0xf


def main():
    mode = sys.argv[1]
    lid = int(sys.argv[2], 0)
    fd = os.open(UMAD0, os.O_RDWR)
    umad_enable_pkey(fd)
    agent = umad_register(fd, 1, PMA)
    tid = 0x5000 + os.getpid() % 0x1000

    h, mad = ask(fd, agent, lid, 1, tid)
    if mode == "plain":
        ok = h is not None and h["status"] == 0
        f = mad_fields(mad) if ok else None
        report(ok and h["qpn"] == 1 and f[0] == 0x81 and f[1] == 0 and
               f[3] == PORT_COUNTERS,
               "Get(PortCounters) to LID %d QP1: GetResp status 0 from QP1"
               % lid, "%r %r" % (h, f))
        return
    want_qpn = int(sys.argv[3], 0)
    ok = h is not None and h["status"] == 0
    f = mad_fields(mad) if ok else None
    report(ok and h["qpn"] == 1 and h["lid"] == lid and f[0] == 0x81 and
           f[1] == 0x0002 and f[2] == tid and f[3] == PORT_COUNTERS,
           "Get(PortCounters) to LID %d QP1: GetResp from QP1, same TID and "
           "attribute, status 0x0002" % lid, "%r %r" % (h, f))
    c = cpi_fields(mad) if ok else None
    redirect_head = mad[64:72] if ok else None
    report(ok and c == (lid, 0xffff, want_qpn, QP1_QKEY, 0),
           "  ... ClassPortInfo at byte 64: RedirectLID %d, P_Key 0xffff, "
           "QP 0x%x, Q_Key 0x%x, SL 0" % (lid, want_qpn, QP1_QKEY),
           "%r" % (c,))

    h, mad = ask(fd, agent, lid, want_qpn, tid + 1)
    ok = h is not None and h["status"] == 0
    f = mad_fields(mad) if ok else None
    report(ok and h["qpn"] == want_qpn and f[0] == 0x81 and f[1] == 0 and
           f[2] == tid + 1 and f[3] == PORT_COUNTERS and mad[64 + 1] == 1,
           "the same Get to QP 0x%x: PortCounters (port 1), status 0, "
           "from QP 0x%x" % (want_qpn, want_qpn), "%r %r" % (h, f))
    xmit = struct.unpack_from(">I", mad, 64 + 32)[0] if ok else None
    print("# PortXmitPkts %r" % (xmit,))

    h, mad = ask(fd, agent, lid, want_qpn, tid + 2, CLASS_PORT_INFO)
    ok = h is not None and h["status"] == 0
    f = mad_fields(mad) if ok else None
    report(ok and h["qpn"] == want_qpn and f[1] == 0 and
           f[3] == CLASS_PORT_INFO and mad[64] == 1,
           "Get(ClassPortInfo) to QP 0x%x: the PMA's own, status 0" %
           want_qpn, "%r %r" % (h, f))
    report(ok and redirect_head == mad[64:72],
           "  ... the redirect's ClassPortInfo has its versions, "
           "CapabilityMask and RespTimeValue",
           "%r %r" % (redirect_head, mad[64:72] if ok else None))


main()
sys.exit(exit_status())
