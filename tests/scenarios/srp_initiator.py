#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# A small SRP initiator over the RDMA CM (pyverbs, Debian's librdmacm and
# librxe), for tests/scenarios/srp-target.sh.  It logs in to ib_srpt with
# an SRP_LOGIN_REQ in the connect request's private data, moves data with
# SRP_CMD WRITE(10)/READ(10) against its own registered buffers (direct
# and indirect descriptors) and compares every byte, sends task
# management requests and malformed IUs.  Prints "ok DESC" / "not ok DESC"
# lines (and "# " comments) for tap_checker; exit 1 if any failed.
#
#   srp_initiator.py io DST PORT SERVICE_GUID I_PORT_ID MAX_REQ
#   srp_initiator.py reject DST PORT SERVICE_GUID I_PORT_ID MAX_REQ
#   srp_initiator.py hold DST PORT SERVICE_GUID I_PORT_ID MAX_REQ
#   srp_initiator.py refused DST PORT SERVICE_GUID I_PORT_ID MAX_REQ REASON
#
# SERVICE_GUID: 16 hex digits; I_PORT_ID: 32 hex digits.  "io" runs the
# I/O tests on LUN 0 (and LUN 1); "reject" expects its login refused
# (initiator not in the ACL) and also tries a wrong target port ID and a
# too large IU; "refused" expects a login refused with REASON; "hold" logs in, prints "# logged in", and waits for the
# target to go away (DISCONNECTED or DEVICE_REMOVAL).

import os
import struct
import sys
import time

import pyverbs.cm_enums as ce
from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID, ConnParam
from pyverbs.cq import CQ
from pyverbs.qp import QPCap, QPInitAttr
import pyverbs.enums as e

failed = 0
channels = []

SRP_LOGIN_REQ, SRP_TSK_MGMT, SRP_CMD, SRP_I_LOGOUT = 0x00, 0x01, 0x02, 0x03
SRP_LOGIN_RSP, SRP_RSP, SRP_LOGIN_REJ = 0xC0, 0xC1, 0xC2
DIRECT, INDIRECT = 1, 2
RECV_SIZE = 1024


def check(cond, desc, *diag):
    global failed
    if cond:
        print("ok " + desc)
    else:
        failed += 1
        print("not ok " + desc)
        for d in diag:
            print("# " + str(d))
    sys.stdout.flush()
    return cond


def diag(msg):
    print("# " + msg)
    sys.stdout.flush()


class Channel:
    """One RDMA CM connection carrying an SRP channel."""

    def __init__(self, dst, port):
        channels.append(self)
        self.ch = CMEventChannel()
        self.id = CMID(creator=self.ch, port_space=ce.RDMA_PS_TCP)
        ai = AddrInfo(dst=dst, dst_service=str(port),
                      port_space=ce.RDMA_PS_TCP)
        self.id.resolve_addr(ai, 5000)
        self.expect(ce.RDMA_CM_EVENT_ADDR_RESOLVED)
        self.id.resolve_route(5000)
        self.expect(ce.RDMA_CM_EVENT_ROUTE_RESOLVED)
        self.cq = CQ(self.id.context, 256, None, None, 0)
        cap = QPCap(max_send_wr=64, max_recv_wr=64, max_send_sge=1,
                    max_recv_sge=1)
        self.id.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                     rcq=self.cq, cap=cap, sq_sig_all=1))
        self.mrs = []
        self.send_mr = self.reg(self.id.reg_msgs, RECV_SIZE)
        self.recv_mr = self.reg(self.id.reg_msgs, RECV_SIZE)
        self.tag = 0x1000
        self.pending_recv = False
        self.rsp = None

    def reg(self, how, size):
        mr = how(size)
        self.mrs.append(mr)
        return mr

    def close(self):
        """MRs, then QP and id, then CQ and event channel."""
        for obj in self.mrs + [self.id, self.cq, self.ch]:
            try:
                obj.close()
            except Exception:  # pylint: disable=broad-except
                pass

    def event(self):
        ev = CMEvent(self.ch)
        t, data = ev.event_type, ev.private_data
        ev.ack_cm_event()
        return t, data

    def expect(self, want):
        t, _ = self.event()
        if t != want:
            raise RuntimeError("CM event %d, not %d" % (t, want))

    def login(self, sguid, i_port_id, it_iu_len, flags=0, t_port_id=None):
        """Returns (event type, private data)."""
        if t_port_id is None:
            t_port_id = sguid + sguid
        # struct srp_login_req_rdma: the order the RDMA CM carries it in
        req = struct.pack(">QHBBI16s16sH6x", 0x5ee0, 0x6, flags,
                          SRP_LOGIN_REQ, it_iu_len, i_port_id, t_port_id, 0)
        cp = ConnParam(resources=4, depth=4, flow_control=1, retry=7,
                       rnr_retry=7, data_len=len(req))
        cp.set_private_data(req)
        self.post_recv()
        self.id.connect(cp)
        return self.event()

    def disconnect(self):
        """Our side of a disconnection; the target may have started it."""
        try:
            self.id.disconnect()
        except Exception:  # pylint: disable=broad-except
            pass

    def post_recv(self):
        if not self.pending_recv:
            self.id.post_recv(self.recv_mr, RECV_SIZE)
            self.pending_recv = True

    def poll(self, secs):
        """Completions until a receive or SECS seconds; the IU or None."""
        end = time.time() + secs
        while time.time() < end:
            n, wcs = self.cq.poll(num_entries=1)
            if not n:
                time.sleep(0.002)
                continue
            wc = wcs[0]
            if wc.status != e.IBV_WC_SUCCESS:
                raise RuntimeError("completion status %d opcode %d" %
                                   (wc.status, wc.opcode))
            if wc.opcode & e.IBV_WC_RECV:
                self.pending_recv = False
                data = self.recv_mr.read(wc.byte_len, 0)
                self.post_recv()
                return data
        return None

    def send(self, iu):
        self.send_mr.write(iu, len(iu), 0)
        self.post_recv()
        self.id.post_send(self.send_mr, e.IBV_SEND_SIGNALED, len(iu))

    def next_tag(self):
        self.tag += 1
        return self.tag

    def cmd(self, cdb, lun=0, out=None, inn=None, tag=None, extra=b""):
        """SRP_CMD; OUT/IN: lists of (mr, offset, length)."""
        tag = self.next_tag() if tag is None else tag
        fmt, descs, ocnt, icnt = 0, b"", 0, 0
        for dirdescs, shift in ((out, 4), (inn, 0)):
            if not dirdescs:
                continue
            d = b"".join(struct.pack(">QII", mr.buf + off, mr.rkey, ln)
                         for mr, off, ln in dirdescs)
            total = sum(ln for _, _, ln in dirdescs)
            if len(dirdescs) == 1:
                fmt |= DIRECT << shift
                descs = d
            else:
                fmt |= INDIRECT << shift
                # table descriptor: the list as it is in this IU
                descs = struct.pack(">QIII", 0, 0, len(d), total) + d
            if shift:
                ocnt = len(dirdescs)
            else:
                icnt = len(dirdescs)
        iu = struct.pack(">BB3xBBBQ4x8sxBxB16s", SRP_CMD, 0, fmt, ocnt, icnt,
                         tag, lun_bytes(lun), 0, 0, cdb.ljust(16, b"\0"))
        self.send(iu + descs + extra)
        return tag

    def response(self, secs=20):
        iu = self.poll(secs)
        if iu is None:
            return None
        return parse_rsp(iu)


def lun_bytes(lun):
    return struct.pack(">BB6x", 0, lun)


def parse_rsp(iu):
    if len(iu) < 36:
        return {"opcode": iu[0] if iu else None, "len": len(iu)}
    (op, sol, delta, tag, flags, status, dores, dires, slen,
     rlen) = struct.unpack(">BB2xIQ2xBBIIII", iu[:36])
    r = {"opcode": op, "delta": delta, "tag": tag, "flags": flags,
         "status": status, "dores": dores, "dires": dires, "len": len(iu)}
    data = iu[36:]
    r["resp"] = data[:rlen]
    r["sense"] = data[rlen:rlen + slen]
    return r


def sense_key(r):
    s = r.get("sense", b"")
    if len(s) >= 14 and (s[0] & 0x7f) in (0x70, 0x71):
        return s[2] & 0xf, s[12], s[13]
    return None


def rw10(op, lba, blocks):
    return struct.pack(">BBIBHB", op, 0, lba, 0, blocks, 0)


def cmd_ok(c, desc, cdb, lun=0, out=None, inn=None):
    tag = c.cmd(cdb, lun, out, inn)
    r = c.response()
    ok = (r is not None and r["opcode"] == SRP_RSP and r["tag"] == tag and
          r["status"] == 0 and r["delta"] >= 1)
    check(ok, desc, r)
    return r


def unit_ready(c, lun):
    """TEST UNIT READY until GOOD (a unit attention may come first)."""
    for _ in range(4):
        tag = c.cmd(b"\0" * 6, lun)
        r = c.response()
        if r and r["tag"] == tag and r["status"] == 0:
            return True
    return False


def io_tests(c, lun, size, name, mrs):
    wmr, rmr = mrs
    blocks = size // 512
    data = os.urandom(size)
    wmr.write(data, size, 0)
    cmd_ok(c, "%s: WRITE(10) %d B, direct descriptor: GOOD" % (name, size),
           rw10(0x2A, 0, blocks), lun, out=[(wmr, 0, size)])
    rmr.write(b"\0" * size, size, 0)
    cmd_ok(c, "%s: READ(10) %d B, direct descriptor: GOOD" % (name, size),
           rw10(0x28, 0, blocks), lun, inn=[(rmr, 0, size)])
    check(rmr.read(size, 0) == data,
          "%s: the data read back is the data written, byte for byte" % name)

    # indirect: data-out from three pieces of the buffer, in another order
    data2 = os.urandom(size)
    a, b = size // 4, size // 2
    wmr.write(data2, size, 0)
    pieces = [(wmr, 0, a), (wmr, a, b - a), (wmr, b, size - b)]
    cmd_ok(c, "%s: WRITE(10), indirect descriptors (3): GOOD" % name,
           rw10(0x2A, blocks, blocks), lun, out=pieces)
    rmr.write(b"\0" * size, size, 0)
    cmd_ok(c, "%s: READ(10), indirect descriptors (2): GOOD" % name,
           rw10(0x28, blocks, blocks), lun,
           inn=[(rmr, 0, 1536), (rmr, 1536, size - 1536)])
    check(rmr.read(size, 0) == data2,
          "%s: indirect: data read back byte for byte" % name)
    # the first write is still there
    rmr.write(b"\0" * size, size, 0)
    cmd_ok(c, "%s: READ(10) of the first write again: GOOD" % name,
           rw10(0x28, 0, blocks), lun, inn=[(rmr, 0, size)])
    check(rmr.read(size, 0) == data,
          "%s: first write unchanged by the second" % name)


def run_io(a):
    dst, port, sguid, ipid, max_req = a
    c = Channel(dst, port)
    t, pd = c.login(sguid, ipid, 1024)
    if not check(t == ce.RDMA_CM_EVENT_ESTABLISHED,
                 "login: connection established", "event %d" % t):
        return
    op, delta, tag, max_it, max_ti, fmt, flags = struct.unpack(
        ">B3xIQIIHB", pd[:27])
    check(op == SRP_LOGIN_RSP and tag == 0x5ee0,
          "login: SRP_LOGIN_RSP with the request's tag", op, tag)
    check(max_it == max_req, "login: max_it_iu_len %d = srp_max_req_size" %
          max_it)
    check(max_ti == 1024, "login: max_ti_iu_len = the it_iu_len asked for")
    check(fmt & 0x6 == 0x6, "login: direct and indirect descriptors")
    check(delta >= 16, "login: req_lim_delta %d credits" % delta)
    check(flags & 3 == 0, "login: single channel, none before (flags 0)")

    check(unit_ready(c, 0), "TEST UNIT READY LUN 0: GOOD")
    inq = c.reg(c.id.reg_write, 4096)
    r = cmd_ok(c, "INQUIRY LUN 0: GOOD", b"\x12\0\0\0\x60\0", 0,
               inn=[(inq, 0, 96)])
    idata = inq.read(96, 0)
    check(idata[8:16].startswith(b"LIO-ORG"), "INQUIRY: vendor LIO-ORG",
          idata[8:32])
    r = cmd_ok(c, "READ CAPACITY(10) LUN 0: GOOD",
               b"\x25" + b"\0" * 9, 0, inn=[(inq, 0, 8)])
    last, bs = struct.unpack(">II", inq.read(8, 0))
    check(bs == 512 and (last + 1) * bs == 16 << 20,
          "READ CAPACITY: 16 MiB of 512-byte blocks", last, bs)

    size = 64 << 10
    mrs = (c.reg(c.id.reg_read, size), c.reg(c.id.reg_write, size))
    io_tests(c, 0, 4096, "ramdisk LUN 0", mrs)
    io_tests(c, 0, size, "ramdisk LUN 0", mrs)
    check(unit_ready(c, 1), "TEST UNIT READY LUN 1 (fileio): GOOD")
    io_tests(c, 1, size, "fileio LUN 1", mrs)

    # a READ of one block into an 8 KiB buffer: the residual is reported,
    # and what lies beyond the block is zeroes or what the initiator had
    # there, never the target's stale memory
    rmr = mrs[1]
    rmr.write(b"\xa5" * 8192, 8192, 0)
    tag = c.cmd(rw10(0x28, 0, 1), 0, inn=[(rmr, 0, 8192)])
    r = c.response()
    check(r is not None and r["tag"] == tag and r["status"] == 0 and
          r["flags"] & 0x20 and r["dires"] == 8192 - 512,
          "READ(10) of 512 B into 8 KiB: GOOD, DIUNDER, residual 7680", r)
    tail = rmr.read(8192 - 512, 512)
    check(tail in (b"\0" * len(tail), b"\xa5" * len(tail)),
          "... the 7680 bytes after the block: zeroes or the buffer's own",
          sorted(set(tail))[:8])

    # sense data: a READ beyond the end
    tag = c.cmd(rw10(0x28, 0x7FFFFFF0, 1), 0, inn=[(mrs[1], 0, 512)])
    r = c.response()
    check(r is not None and r["tag"] == tag and r["status"] == 2 and
          r["flags"] & 2 and sense_key(r) == (5, 0x21, 0),
          "READ beyond the end: CHECK CONDITION, sense ILLEGAL REQUEST, "
          "LBA out of range (21h/00h)", r)
    # a LUN nobody mapped
    tag = c.cmd(b"\0" * 6, 7)
    r = c.response()
    check(r is not None and r["tag"] == tag and r["status"] == 2 and
          sense_key(r) is not None and sense_key(r)[0] == 5,
          "TEST UNIT READY to LUN 7 (not mapped): CHECK CONDITION", r)

    # task management
    for fn, want, desc in ((0x01, (0x05,), "ABORT TASK of an unknown tag"),
                           (0x08, (0x00,), "LUN RESET"),
                           (0x77, (0x04,), "unknown function 0x77")):
        tag = c.next_tag()
        iu = struct.pack(">BB6xQ4x8s2xBxQ8x", SRP_TSK_MGMT, 0, tag,
                         lun_bytes(0), fn, 0xdead)
        c.send(iu)
        r = c.response()
        code = r["resp"][3] if r and len(r.get("resp", b"")) == 4 else None
        check(r is not None and r["tag"] == tag and r["flags"] & 1 and
              code in want,
              "SRP_TSK_MGMT %s: SRP_RSP, response code %s" % (desc, want),
              r)
    check(unit_ready(c, 0), "after the LUN RESET: TEST UNIT READY GOOD")

    # malformed IUs
    c.send(b"\x7e" + b"\0" * 15)
    check(c.response(2) is None, "IU with an unknown opcode: dropped")
    c.send(struct.pack(">B7xQ4x", SRP_CMD, 0x99))
    check(c.response(2) is None, "SRP_CMD of 20 bytes: dropped")
    tag = c.next_tag()
    c.send(struct.pack(">B", SRP_TSK_MGMT) + b"\0" * 20)
    check(c.response(2) is None, "SRP_TSK_MGMT of 21 bytes: dropped")
    tag = c.cmd(b"\0" * 6, 0)
    r = c.response()
    check(r is not None and r["tag"] == tag and r["delta"] == 4,
          "the next SRP_RSP returns their 3 credits (req_lim_delta 4)", r)

    bad = [
        ("direct descriptor beyond the IU",
         struct.pack(">BB3xBBBQ4x8sxBxB16s", SRP_CMD, 0, DIRECT, 0, 1,
                     c.next_tag(), lun_bytes(0), 0, 0,
                     rw10(0x28, 0, 1).ljust(16, b"\0")) + b"\0" * 8),
        ("indirect table of 100 descriptors, 1 in the IU",
         struct.pack(">BB3xBBBQ4x8sxBxB16s", SRP_CMD, 0, INDIRECT, 0, 1,
                     c.next_tag(), lun_bytes(0), 0, 0,
                     rw10(0x28, 0, 1).ljust(16, b"\0")) +
         struct.pack(">QIII", 0, 0, 1600, 512) +
         struct.pack(">QII", mrs[1].buf, mrs[1].rkey, 512)),
        ("descriptor of 4 GiB - 1",
         struct.pack(">BB3xBBBQ4x8sxBxB16s", SRP_CMD, 0, DIRECT, 0, 1,
                     c.next_tag(), lun_bytes(0), 0, 0,
                     rw10(0x28, 0, 1).ljust(16, b"\0")) +
         struct.pack(">QII", mrs[1].buf, mrs[1].rkey, 0xffffffff)),
        ("immediate data format (not offered)",
         struct.pack(">BB3xBBBQ4x8sxBxB16s", SRP_CMD, 0, 3 << 4, 1, 0,
                     c.next_tag(), lun_bytes(0), 0, 0,
                     rw10(0x2A, 0, 1).ljust(16, b"\0")) + b"\0" * 16),
        ("data-out and data-in at once",
         struct.pack(">BB3xBBBQ4x8sxBxB16s", SRP_CMD, 0, 0x11, 1, 1,
                     c.next_tag(), lun_bytes(0), 0, 0,
                     rw10(0x28, 0, 1).ljust(16, b"\0")) +
         struct.pack(">QII", mrs[1].buf, mrs[1].rkey, 512) * 2),
        ("additional CDB length beyond the IU",
         struct.pack(">BB3xBBBQ4x8sxBxB16s", SRP_CMD, 0, 0, 0, 0,
                     c.next_tag(), lun_bytes(0), 0, 0xfc,
                     rw10(0x28, 0, 1).ljust(16, b"\0"))),
    ]
    for desc, iu in bad:
        tag = struct.unpack(">Q", iu[8:16])[0]
        c.send(iu)
        r = c.response()
        check(r is not None and r["tag"] == tag and r["status"] == 2 and
              sense_key(r) is not None and sense_key(r)[0] == 5,
              "SRP_CMD with %s: CHECK CONDITION, ILLEGAL REQUEST" % desc, r)
    # the channel still works, and the data is still there
    io_tests(c, 0, 4096, "after the bad IUs, LUN 0", mrs)

    # a second login with the same port IDs closes the first channel
    c2 = Channel(dst, port)
    t, pd = c2.login(sguid, ipid, 1024)
    check(t == ce.RDMA_CM_EVENT_ESTABLISHED and pd[26] & 3 == 1,
          "second single-channel login: accepted, flags 1 (channel before "
          "terminated)", t, pd[:28].hex())
    t, _ = c.event()
    check(t == ce.RDMA_CM_EVENT_DISCONNECTED,
          "... and the first channel is disconnected by the target", t)
    c.disconnect()
    check(unit_ready(c2, 0), "second channel: TEST UNIT READY GOOD")
    io_tests(c2, 1, 4096, "second channel, LUN 1",
             (c2.reg(c2.id.reg_read, 4096), c2.reg(c2.id.reg_write, 4096)))
    c3 = Channel(dst, port)
    t, pd = c3.login(sguid, ipid, 1024, flags=1)
    check(t == ce.RDMA_CM_EVENT_ESTABLISHED and pd[26] & 3 == 2,
          "multichannel login: accepted, flags 2 (channels maintained)",
          t, pd[:28].hex())
    check(unit_ready(c3, 0) and unit_ready(c2, 0),
          "both channels answer TEST UNIT READY")

    # SRP_I_LOGOUT ends the third channel
    c3.send(struct.pack(">B7xQ", SRP_I_LOGOUT, c3.next_tag()))
    t, _ = c3.event()
    check(t == ce.RDMA_CM_EVENT_DISCONNECTED,
          "SRP_I_LOGOUT: the target disconnects", t)
    c3.disconnect()

    # an address outside the initiator's buffer: the RDMA WRITE is
    # refused by the initiator's HCA, the target gives the channel up
    tag = c2.cmd(rw10(0x28, 0, 8), 0,
                 inn=[(mrs[1], (64 << 10) + 4096, 4096)])
    t, _ = c2.event()
    check(t == ce.RDMA_CM_EVENT_DISCONNECTED,
          "READ(10) into an address beyond the initiator's MR: the target "
          "disconnects", t)
    c2.disconnect()


def run_reject(a):
    dst, port, sguid, ipid, max_req = a
    for desc, kw, want in (
            ("initiator not in the ACL", {}, 0x00010006),
            ("wrong target port ID",
             {"t_port_id": b"\x12" * 16}, 0x00010003),
            ("it_iu_len %d > srp_max_req_size" % (max_req + 4),
             {"it_iu_len": max_req + 4}, 0x00010002),
            ("it_iu_len 32", {"it_iu_len": 32}, 0x00010002)):
        c = Channel(dst, port)
        it_iu_len = kw.pop("it_iu_len", 1024)
        t, pd = c.login(sguid, ipid, it_iu_len, **kw)
        rej = struct.unpack(">B3xIQ", pd[:16]) if pd and len(pd) >= 16 \
            else None
        check(t == ce.RDMA_CM_EVENT_REJECTED and rej is not None and
              rej[0] == SRP_LOGIN_REJ and rej[1] == want and
              rej[2] == 0x5ee0,
              "login, %s: REJECTED with SRP_LOGIN_REJ reason %#x" %
              (desc, want), t, rej)


def run_refused(a, reason):
    dst, port, sguid, ipid, max_req = a
    c = Channel(dst, port)
    t, pd = c.login(sguid, ipid, 1024)
    rej = struct.unpack(">B3xIQ", pd[:16]) if pd and len(pd) >= 16 else None
    check(t == ce.RDMA_CM_EVENT_REJECTED and rej is not None and
          rej[0] == SRP_LOGIN_REJ and rej[1] == reason,
          "login: REJECTED with SRP_LOGIN_REJ reason %#x" % reason, t, rej)


def run_hold(a):
    dst, port, sguid, ipid, max_req = a
    c = Channel(dst, port)
    t, _ = c.login(sguid, ipid, 1024)
    check(t == ce.RDMA_CM_EVENT_ESTABLISHED, "hold: logged in", t)
    check(unit_ready(c, 0), "hold: TEST UNIT READY GOOD")
    diag("logged in")
    t, _ = c.event()
    check(t in (ce.RDMA_CM_EVENT_DISCONNECTED,
                ce.RDMA_CM_EVENT_DEVICE_REMOVAL),
          "hold: the connection ends when the target's HCA goes", t)


def main():
    mode = sys.argv[1]
    dst, port = sys.argv[2], int(sys.argv[3])
    sguid = bytes.fromhex(sys.argv[4])
    ipid = bytes.fromhex(sys.argv[5])
    max_req = int(sys.argv[6])
    args = (dst, port, sguid, ipid, max_req)
    try:
        if mode == "refused":
            run_refused(args, int(sys.argv[7], 0))
        else:
            {"io": run_io, "reject": run_reject, "hold": run_hold}[mode](args)
    except Exception as ex:  # pylint: disable=broad-except
        check(False, "%s: no exception" % mode, repr(ex))
    for c in reversed(channels):
        c.close()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
