#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hand-made CM MADs for tests/scenarios/ib-cm.sh, printed as TAP lines.

Usage: cm_garbage.py SERVICE_ID

From a send-only agent on vmlx0 port 1's umad file, sends CM MADs (class
0x07, version 2, method Send) to vmlx1 port 1's QP1, where ib_cm runs and
ib_verbs_test ("cm hold") listens on SERVICE_ID without answering.  Each
malformed or unmatched MAD must be counted by vmlx1's CM (its
ports/1/cm_rx_dropped/<type>, or cm_rx_duplicates/req) and answered only
as the IBA says (a REJ, a DREP, a SIDR_REP, or nothing), and no connection
may come of it; the scenario asks the listener afterwards ("cm check 1")
that it saw exactly the one well-formed REQ sent twice at the end.  Then
random MADs of every CM attribute, whose totals are checked.
Prints "ok DESC" / "not ok DESC" (checker.py).
"""
import os
import random
import struct
import sys
import time

from checker import (QP1_QKEY, exit_status, report, sysfs, umad_enable_pkey,
                     umad_hdr, umad_register)

IB = "/sys/class/infiniband"
REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP, LAP, APR = \
    range(0x10, 0x1b)
NAMES = {REQ: "req", MRA: "mra", REJ: "rej", REP: "rep", RTU: "rtu",
         DREQ: "dreq", DREP: "drep", SIDR_REQ: "sidr_req",
         SIDR_REP: "sidr_rep", LAP: "lap", APR: "apr"}


def umad_of(dev, port):
    for name in sorted(os.listdir("/sys/class/infiniband_mad")):
        if not name.startswith("umad"):
            continue
        d = "/sys/class/infiniband_mad/" + name
        if sysfs(d + "/ibdev") == dev and sysfs(d + "/port") == str(port):
            return "/dev/infiniband/" + name
    raise SystemExit("no umad file for %s port %d" % (dev, port))


def counter(group, name, dev="vmlx1"):
    return int(sysfs("%s/%s/ports/1/%s/%s" % (IB, dev, group, name)))


def snapshot(dev="vmlx1"):
    snap = {}
    for g in ("cm_rx_msgs", "cm_rx_dropped", "cm_rx_duplicates",
              "cm_tx_msgs"):
        for n in list(NAMES.values()) + (["other"] if g == "cm_rx_dropped"
                                         else []):
            snap[(g, n)] = counter(g, n, dev)
    return snap


def mad(attr, data, tid, version=2, method=0x03, attr_mod=0):
    """A CM MAD: the 24-byte header, then 232 bytes of @data."""
    data = bytes(data)[:232]
    hdr = struct.pack(">BBBBHHQHHI", 1, 0x07, version, method, 0, 0, tid,
                      attr, 0, attr_mod)
    return hdr + data + bytes(232 - len(data))


def req(sid, comm_id=0x11223344, qpn=0x000123, tst=0, mtu=3, llid=None,
        rlid=None, pkey=0xffff, guid=0x0123456789abcdef):
    """A REQ's 232 bytes (offsets of IBA 12.6.5, mgmt.md 5.4)."""
    d = bytearray(232)
    struct.pack_into(">I", d, 0, comm_id)
    struct.pack_into(">Q", d, 8, sid)
    struct.pack_into(">Q", d, 16, guid)
    struct.pack_into(">I", d, 32, qpn << 8 | 4)        # QPN, resp. res.
    struct.pack_into(">I", d, 36, 4)                   # initiator depth
    # remote CM response timeout 20, transport type, flow control
    struct.pack_into(">I", d, 40, 20 << 3 | tst << 1 | 1)
    struct.pack_into(">I", d, 44, 0x000001 << 8 | 20 << 3 | 7)
    # P_Key, MTU, RNR retry 7, max CM retries 15
    struct.pack_into(">HBB", d, 48, pkey, mtu << 4 | 7, 15 << 4)
    struct.pack_into(">HH", d, 52, llid, rlid)
    d[95] = 13 << 3                                    # local ACK timeout
    return d


def ids(local=0x55aa55aa, remote=0xdeadbeef):
    return struct.pack(">II", local, remote)


class Sender:
    def __init__(self):
        self.fd = os.open(umad_of("vmlx0", 1), os.O_RDWR)
        umad_enable_pkey(self.fd)
        # a send-only agent: it claims nothing, answers go to ib_cm
        self.agent = umad_register(self.fd, 1, 0)
        self.dlid = int(sysfs(IB + "/vmlx1/ports/1/lid"), 16)
        self.slid = int(sysfs(IB + "/vmlx0/ports/1/lid"), 16)
        self.tid = 0x1000

    def send(self, attr, data, **kw):
        self.tid += 1
        m = mad(attr, data, self.tid, **kw)
        os.write(self.fd, umad_hdr(self.agent, qpn=1, qkey=QP1_QKEY,
                                   lid=self.dlid) + m)


def settle(cond, secs=5.0):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def one(s, desc, attr, data, group, name, answer=None, **kw):
    """Send one MAD; vmlx1's @group/@name must grow by one, and its
    cm_tx_msgs/@answer too (or nothing else be sent)."""
    before = snapshot()
    s.send(attr, data, **kw)
    want = dict(before)
    if group:
        want[(group, name)] += 1
    if attr in NAMES and kw.get("version", 2) == 2 and \
            kw.get("method", 3) == 3:
        want[("cm_rx_msgs", NAMES[attr])] += 1
    if answer:
        want[("cm_tx_msgs", answer)] += 1
    ok = settle(lambda: snapshot() == want)
    after = snapshot()
    diff = ["%s/%s %d->%d (want %d)" % (k[0], k[1], before[k], after[k],
                                        want[k])
            for k in sorted(want) if after[k] != want[k]]
    report(ok, desc, "; ".join(diff))


def main():
    sid = int(sys.argv[1], 0)
    s = Sender()
    lid0, lid1 = s.slid, s.dlid

    def good(**kw):
        args = dict(llid=lid0, rlid=lid1)
        args.update(kw)
        return req(sid, **args)

    # REQs that no connection can come of: rejected (or dropped) and counted
    one(s, "REQ with transport type RD: REJ (invalid transport), counted",
        REQ, good(tst=2), "cm_rx_dropped", "req", "rej")
    one(s, "REQ with transport type 3 (XRC): REJ, counted",
        REQ, good(tst=3), "cm_rx_dropped", "req", "rej")
    one(s, "REQ with path MTU 0: REJ (invalid MTU), counted",
        REQ, good(mtu=0), "cm_rx_dropped", "req", "rej")
    one(s, "REQ with path MTU 7: REJ, counted",
        REQ, good(mtu=7), "cm_rx_dropped", "req", "rej")
    one(s, "REQ with the requester's LID 0: REJ (invalid LID), counted",
        REQ, good(llid=0), "cm_rx_dropped", "req", "rej")
    one(s, "REQ with a multicast LID for ours: REJ, counted",
        REQ, good(rlid=0xc001), "cm_rx_dropped", "req", "rej")
    one(s, "REQ from QP 0: dropped unanswered, counted",
        REQ, good(qpn=0), "cm_rx_dropped", "req")
    one(s, "REQ from QP 1: dropped unanswered, counted",
        REQ, good(qpn=1), "cm_rx_dropped", "req")
    one(s, "REQ with a P_Key vmlx1 does not have: REJ, counted",
        REQ, good(pkey=0x1234), "cm_rx_dropped", "req", "rej")
    one(s, "REQ for a service nobody listens to: REJ (invalid service ID)",
        REQ, req(sid + 1, llid=lid0, rlid=lid1), "cm_rx_dropped", "req",
        "rej")

    # messages naming identifiers that do not exist
    for attr in (MRA, REJ, REP, RTU, DREP, LAP, APR, SIDR_REP):
        one(s, "%s naming no identifier: dropped, counted" %
            NAMES[attr].upper(), attr, ids(), "cm_rx_dropped", NAMES[attr])
    one(s, "DREQ naming no identifier: counted, answered with a DREP",
        DREQ, ids() + struct.pack(">I", 0x123 << 8), "cm_rx_dropped",
        "dreq", "drep")
    sreq = struct.pack(">IHHQ", 0x77, 0xffff, 0, sid + 1)
    one(s, "SIDR_REQ for a service nobody listens to: SIDR_REP, counted",
        SIDR_REQ, sreq, "cm_rx_dropped", "sidr_req", "sidr_rep")
    one(s, "attribute 0x0030: dropped, counted as other",
        0x30, ids(), "cm_rx_dropped", "other")
    one(s, "attribute 0x0001 (ClassPortInfo) as a Send: dropped, counted",
        0x01, ids(), "cm_rx_dropped", "other")
    one(s, "class version 1: not for the CM (nothing counted)",
        REQ, good(), None, None, version=1)
    one(s, "method Get of a REQ: not for the CM (nothing counted)",
        REQ, good(), None, None, method=0x01)

    # a well-formed REQ, twice: one connection (REQ_RCVD), one duplicate
    one(s, "a well-formed REQ to the listener: taken",
        REQ, good(comm_id=0x0badcafe), None, None)
    one(s, "the same REQ again: a duplicate, counted",
        REQ, good(comm_id=0x0badcafe), "cm_rx_duplicates", "req")
    one(s, "a REQ from the same QP with a new ID: stale, REJ, counted",
        REQ, good(comm_id=0x0badcaff), "cm_rx_dropped", "req", "rej")

    # random MADs of every CM attribute: all counted, nothing taken
    rnd = random.Random(1312)
    before = snapshot()
    sent = {n: 0 for n in NAMES.values()}
    for _ in range(300):
        attr = rnd.choice(list(NAMES))
        data = bytes(rnd.getrandbits(8) for _ in range(232))
        sent[NAMES[attr]] += 1
        s.send(attr, data)
    ok = settle(lambda: all(
        counter("cm_rx_msgs", n) - before[("cm_rx_msgs", n)] == sent[n]
        for n in sent), 10)
    report(ok, "300 random CM MADs: every one received and counted",
           " ".join("%s %d/%d" % (n, counter("cm_rx_msgs", n) -
                                  before[("cm_rx_msgs", n)], sent[n])
                    for n in sent))
    handled = {n: counter("cm_rx_dropped", n) -
               before[("cm_rx_dropped", n)] +
               counter("cm_rx_duplicates", n) -
               before[("cm_rx_duplicates", n)] for n in sent}
    report(handled == sent,
           "300 random CM MADs: every one dropped (or a duplicate)",
           " ".join("%s %d/%d" % (n, handled[n], sent[n]) for n in sent))
    os.close(s.fd)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
