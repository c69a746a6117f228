#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""umad/issm checks for tests/scenarios/umad.sh, printed as TAP lines.

Usage: umad_check.py abi|issm|rmpp|remove
  abi     malformed writes, bad ioctls, sends and receives on umad0
          (vmlx0 port 1, LID 1 with static_lids=1)
  issm    IsSM bit of vmlx0 port 1 while issm0 is open, one opener
  rmpp    kernel RMPP between a client on umad0 and an SA-class server on
          umad1 (LID 2): GetTable answered with 0 to 60000 bytes, checked
          byte for byte with the -ENOSPC re-read; a multi-segment request;
          hand-made bad segments and ACKs from a user-RMPP agent; closing
          the server mid-transfer; rmmod vmlx mid-transfer (vmlx is
          loaded again with static_lids=1 afterwards)
  remove  rmmod vmlx with umad0 open, an agent registered and a request
          in flight; then the file fails with EIO/POLLERR
Prints "ok DESC" / "not ok DESC" (checker.py), which the scenario turns
into TAP.
"""
import ctypes
import errno
import fcntl
import os
import select
import shutil
import struct
import subprocess
import sys
import time

from checker import (QP1_QKEY, UMAD_ENABLE_PKEY, UMAD_UNREGISTER_AGENT,
                     exit_status, report, sysfs, umad_enable_pkey, umad_hdr,
                     umad_register, wait_readable)

REGISTER_AGENT2 = 0xC0281B04
UMAD0 = "/dev/infiniband/umad0"
UMAD1 = "/dev/infiniband/umad1"
ISSM0 = "/dev/infiniband/issm0"
CAP = "/sys/class/infiniband/vmlx0/ports/1/cap_mask"


def expect_errno(desc, want, fn, *args, **kw):
    try:
        r = fn(*args, **kw)
    except OSError as e:
        report(e.errno == want, desc,
               "got %s" % errno.errorcode.get(e.errno, e.errno))
        return None
    report(False, desc, "succeeded (%r)" % (r,))
    return r


def smp(tid, attr=0x11, method=0x01, hop_cnt=0, base=1, cls=0x81):
    m = struct.pack(">BBBBHBBQHHI", base, cls, 1, method, 0, 0, hop_cnt,
                    tid, attr, 0, 0)
    m += bytes(8) + struct.pack(">HH", 0xffff, 0xffff) + bytes(28)
    m += bytes(64) + bytes(64) + bytes(64)
    assert len(m) == 256
    return m


def reg2(fd, qpn, cls, ver=1, flags=0, methods=(), oui=0, rmpp=0):
    mask = 0
    for m in methods:
        mask |= 1 << m
    req = struct.pack("<IIBBHI16sIB3x", 0, qpn, cls, ver, 0, flags,
                      mask.to_bytes(16, "little"), oui, rmpp)
    buf = bytearray(req)
    try:
        fcntl.ioctl(fd, REGISTER_AGENT2, buf, True)
    finally:
        reg2.last = bytes(buf)
    return struct.unpack_from("<I", buf)[0]


def wait_read(fd, size, secs=5.0):
    p = select.poll()
    p.register(fd, select.POLLIN)
    end = time.time() + secs
    while time.time() < end:
        if p.poll(100):
            return os.read(fd, size)
    return None


def test_abi():
    fd = os.open(UMAD0, os.O_RDWR | os.O_NONBLOCK)
    expect_errno("read without data: EAGAIN", errno.EAGAIN, os.read, fd, 512)
    expect_errno("read shorter than the header: EINVAL", errno.EINVAL,
                 os.read, fd, 20)
    expect_errno("write shorter than header + 36: EINVAL", errno.EINVAL,
                 os.write, fd, umad_hdr(0, v2=False) + bytes(10))
    expect_errno("write with agent id 40: EINVAL", errno.EINVAL, os.write,
                 fd, umad_hdr(40, v2=False) + smp(1))
    expect_errno("write with unregistered agent id 3: EIO", errno.EIO,
                 os.write, fd, umad_hdr(3, v2=False) + smp(1))
    expect_errno("UNREGISTER_AGENT of a free id: EINVAL", errno.EINVAL,
                 fcntl.ioctl, fd, UMAD_UNREGISTER_AGENT,
                 struct.pack("<I", 5))
    expect_errno("UNREGISTER_AGENT id 1000: EINVAL", errno.EINVAL,
                 fcntl.ioctl, fd, UMAD_UNREGISTER_AGENT,
                 struct.pack("<I", 1000))
    expect_errno("REGISTER_AGENT qpn 2: EINVAL", errno.EINVAL, umad_register,
                 fd, 2, 0x81)
    expect_errno("REGISTER_AGENT class 0x81 on QP1: EINVAL", errno.EINVAL,
                 umad_register, fd, 1, 0x81)
    expect_errno("REGISTER_AGENT class 0x04 on QP0: EINVAL", errno.EINVAL,
                 umad_register, fd, 0, 0x04)
    expect_errno("REGISTER_AGENT class 0x60: EINVAL", errno.EINVAL,
                 umad_register, fd, 1, 0x60)
    expect_errno("REGISTER_AGENT rmpp 1 on a non-RMPP class: EINVAL",
                 errno.EINVAL, umad_register, fd, 1, 0x04, rmpp=1)
    expect_errno("REGISTER_AGENT vendor class without OUI: EINVAL",
                 errno.EINVAL, umad_register, fd, 1, 0x30, methods=(1,))
    expect_errno("REGISTER_AGENT2 unknown flag: EINVAL", errno.EINVAL, reg2,
                 fd, 1, 0x04, flags=0x80)
    report(struct.unpack_from("<I", reg2.last, 12)[0] == 1,
           "REGISTER_AGENT2 wrote the supported flags back")
    expect_errno("REGISTER_AGENT2 OUI above 24 bits: EINVAL", errno.EINVAL,
                 reg2, fd, 1, 0x30, oui=0x1000000)
    expect_errno("unknown ioctl: ENOTTY", errno.ENOTTY, fcntl.ioctl, fd,
                 0xC0081B09, bytes(8))
    try:
        umad_enable_pkey(fd)
        report(True, "ENABLE_PKEY on a fresh file")
    except OSError as e:
        report(False, "ENABLE_PKEY on a fresh file", str(e))
    a = umad_register(fd, 0, 0x81, methods=())
    report(a == 0, "REGISTER_AGENT class 0x81 on QP0: id 0", "id %d" % a)
    expect_errno("ENABLE_PKEY after a registration: EINVAL", errno.EINVAL,
                 fcntl.ioctl, fd, UMAD_ENABLE_PKEY)
    pma = umad_register(fd, 1, 0x04, methods=())
    report(pma == 1, "REGISTER_AGENT class 0x04 on QP1: id 1", "id %d" % pma)
    sa = umad_register(fd, 1, 0x03, class_version=2, rmpp=1)
    report(sa == 2, "REGISTER_AGENT SA class with rmpp_version 1: id 2",
           "id %d" % sa)
    trap = umad_register(fd, 0, 0x01, methods=(0x05,))
    fd2 = os.open(UMAD0, os.O_RDWR | os.O_NONBLOCK)
    expect_errno("second file claiming the same method: EINVAL",
                 errno.EINVAL, umad_register, fd2, 0, 0x01, 1, (0x05,))
    ids = [umad_register(fd2, 1, 0x00) for _ in range(32)]
    report(ids == list(range(32)), "32 agents on one file get ids 0..31")
    expect_errno("the 33rd agent: ENOMEM", errno.ENOMEM, umad_register, fd2,
                 1, 0x00)
    fcntl.ioctl(fd2, UMAD_UNREGISTER_AGENT, struct.pack("<I", 7))
    report(umad_register(fd2, 1, 0x00) == 7, "an unregistered id is reused")
    os.close(fd2)
    fcntl.ioctl(fd, UMAD_UNREGISTER_AGENT, struct.pack("<I", trap))

    expect_errno("DR SMP with hop count 64: EINVAL", errno.EINVAL, os.write,
                 fd, umad_hdr(a, timeout=100) + smp(0x10, hop_cnt=64))
    expect_errno("MAD with base version 2: EINVAL", errno.EINVAL, os.write,
                 fd, umad_hdr(a, timeout=100) + smp(0x11, base=2))
    expect_errno("MAD longer than 256 bytes: EINVAL", errno.EINVAL,
                 os.write, fd, umad_hdr(a) + smp(0x12) + bytes(100))
    expect_errno("timeout 0xffffffff ms: EINVAL", errno.EINVAL, os.write, fd,
                 umad_hdr(a, timeout=0xffffffff) + smp(0x13))
    expect_errno("retries 0xffffffff: EINVAL", errno.EINVAL, os.write, fd,
                 umad_hdr(a, timeout=100, retries=0xffffffff) + smp(0x14))

    # DR SubnGet(NodeInfo) to ourselves, answered by vmlx0's SMA
    n = os.write(fd, umad_hdr(a, timeout=1000) + smp(0x1234))
    report(n == 64 + 256, "write of a DR SubnGet(NodeInfo) returns its length")
    r = wait_read(fd, 64 + 256)
    ok = r is not None and len(r) == 64 + 256
    report(ok, "the GetResp is read: 64 + 256 bytes",
           "got %r" % (None if r is None else len(r)))
    if ok:
        hid, status = struct.unpack_from("<II", r)
        length = struct.unpack_from("<I", r, 16)[0]
        method = r[64 + 3]
        tid = struct.unpack_from(">Q", r, 64 + 8)[0]
        report(hid == a and status == 0 and length == 320,
               "response header: agent id, status 0, length 320",
               "%d %d %d" % (hid, status, length))
        report(method == 0x81 and tid & 0xffffffff == 0x1234 and
               tid >> 32 != 0,
               "GetResp with our TID and the agent's hi_tid",
               "method %#x tid %#x" % (method, tid))
        report(r[64 + 64 + 2] == 1, "NodeInfo says NodeType CA")

    # a short read keeps the MAD queued
    os.write(fd, umad_hdr(a, timeout=1000) + smp(0x1235))
    p = select.poll()
    p.register(fd, select.POLLIN)
    p.poll(5000)
    expect_errno("read of 64 + 100 bytes for a 256-byte MAD: EINVAL",
                 errno.EINVAL, os.read, fd, 64 + 100)
    r = wait_read(fd, 1024)
    report(r is not None and len(r) == 320, "the MAD is still there")

    # duplicates and the timeout echo (LID-routed SMP to nowhere)
    m = smp(0x777, cls=0x01)
    os.write(fd, umad_hdr(a, timeout=200, retries=1, lid=0x55) + m)
    expect_errno("second request with the same TID: EINVAL", errno.EINVAL,
                 os.write, fd, umad_hdr(a, timeout=200, lid=0x55) + m)
    t0 = time.time()
    r = wait_read(fd, 1024, 10)
    took = time.time() - t0
    ok = r is not None and len(r) == 64 + 24
    report(ok, "unanswered request: a 64 + 24 byte notification",
           "got %r" % (None if r is None else len(r)))
    if ok:
        status = struct.unpack_from("<I", r, 4)[0]
        tid = struct.unpack_from(">Q", r, 64 + 8)[0]
        report(status == errno.ETIMEDOUT and tid & 0xffffffff == 0x777 and
               tid >> 32 != 0,
               "status ETIMEDOUT, the request's TID with hi_tid",
               "status %d tid %#x" % (status, tid))
        report(0.3 <= took < 5, "after timeout x (1 + retries)",
               "%.2f s" % took)

    # PMA ClassPortInfo by LID on QP1 (answered by vmlx0's PMA)
    g = struct.pack(">BBBBHHQHHI", 1, 4, 1, 1, 0, 0, 0x4321, 1, 0, 0)
    os.write(fd, umad_hdr(pma, timeout=1000, qpn=1, qkey=0x80010000, lid=1) +
             g + bytes(232))
    r = wait_read(fd, 1024)
    ok = r is not None and len(r) == 320
    report(ok, "PMA ClassPortInfo over QP1 answered")
    if ok:
        report(r[64 + 3] == 0x81 and struct.unpack_from(">I", r, 20)[0] == 1,
               "GetResp from QP1", "method %#x" % r[64 + 3])
    # a multi-segment kernel-RMPP send is accepted (nobody ACKs it here:
    # it is still in flight when the file is closed; see "rmpp" for more)
    m = umad_hdr(sa, qpn=1, qkey=0x80010000, lid=1) + \
        struct.pack(">BBBBHHQHHI", 1, 3, 2, 0x81, 0, 0, 0x15, 0x11, 0, 0) + \
        bytes([1, 1, 1, 0]) + bytes(8) + bytes(20 + 600)
    try:
        n = os.write(fd, m)
        report(n == len(m), "multi-segment kernel-RMPP write returns its "
               "length", "%d" % n)
    except OSError as e:
        report(False, "multi-segment kernel-RMPP write returns its length",
               str(e))
    t0 = time.time()
    os.close(fd)
    report(time.time() - t0 < 5, "close with an RMPP send in flight is prompt")

    # legacy 56-byte header without ENABLE_PKEY
    fd = os.open(UMAD0, os.O_RDWR | os.O_NONBLOCK)
    a = umad_register(fd, 0, 0x81)
    os.write(fd, umad_hdr(a, timeout=1000, v2=False) + smp(0x99))
    r = wait_read(fd, 1024)
    ok = r is not None and len(r) == 56 + 256
    report(ok, "legacy header: the response is 56 + 256 bytes",
           "got %r" % (None if r is None else len(r)))
    if ok:
        report(struct.unpack_from("<I", r, 16)[0] == 312 and
               r[56 + 3] == 0x81, "legacy header: length 312, GetResp")
    # close with a request in flight
    os.write(fd, umad_hdr(a, timeout=60000, lid=0x56, v2=False) +
             smp(0x98, cls=0x01))
    t0 = time.time()
    os.close(fd)
    report(time.time() - t0 < 5, "close with a request in flight is prompt")


def cap():
    with open(CAP) as f:
        return int(f.read(), 0)


def test_issm():
    before = cap()
    report(not before & 2, "IsSM clear before issm0 is opened",
           "%#x" % before)
    fd = os.open(ISSM0, os.O_RDWR)
    report(cap() == before | 2, "IsSM set while issm0 is open",
           "%#x" % cap())
    expect_errno("second open of issm0 with O_NONBLOCK: EAGAIN",
                 errno.EAGAIN, os.open, ISSM0, os.O_RDWR | os.O_NONBLOCK)
    pid = os.fork()
    if pid == 0:
        os.close(fd)
        os.open(ISSM0, os.O_RDWR)
        os._exit(0 if cap() & 2 else 1)
    time.sleep(0.5)
    w, _ = os.waitpid(pid, os.WNOHANG)
    report(w == 0, "a blocking second open waits")
    os.close(fd)
    _, st = os.waitpid(pid, 0)
    report(os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0,
           "it gets issm0 when the first closes")
    report(cap() == before, "IsSM clear after close", "%#x" % cap())


def test_remove():
    fd = os.open(UMAD0, os.O_RDWR | os.O_NONBLOCK)
    umad_enable_pkey(fd)
    a = umad_register(fd, 0, 0x81)
    umad_register(fd, 1, 0x04, methods=(1,))
    os.write(fd, umad_hdr(a, timeout=60000, lid=0x57) + smp(0x42, cls=0x01))
    sm = os.open(ISSM0, os.O_RDWR)
    t0 = time.time()
    rc = subprocess.run(["rmmod", "vmlx"]).returncode
    report(rc == 0 and time.time() - t0 < 20,
           "rmmod vmlx with umad0/issm0 open and agents registered",
           "rc %d" % rc)
    p = select.poll()
    p.register(fd, select.POLLIN)
    ev = p.poll(1000)
    report(ev and ev[0][1] & select.POLLERR, "poll reports POLLERR",
           "%r" % ev)
    expect_errno("read after removal: EIO", errno.EIO, os.read, fd, 1024)
    expect_errno("write after removal: EIO", errno.EIO, os.write, fd,
                 umad_hdr(a) + smp(1))
    expect_errno("REGISTER_AGENT after removal: EPIPE", errno.EPIPE,
                 umad_register, fd, 0, 0x81)
    os.close(fd)
    os.close(sm)
    report(not os.path.exists(UMAD0), "umad0 is gone")


# --- kernel RMPP ------------------------------------------------------------

SA = 0x03
GET_TABLE, GET_TABLE_RESP = 0x12, 0x92
GET_MULTI, GET_MULTI_RESP = 0x14, 0x94
R_DATA, R_ACK, R_STOP, R_ABORT = 1, 2, 3, 4
F_ACTIVE, F_FIRST, F_LAST = 1, 2, 4
libc = ctypes.CDLL(None, use_errno=True)


def sa_mad(method, tid, data=b"", ver=0, rtype=0, flags=0, rstatus=0,
           seg=0, paylen=0, attr=0x11, pad=True):
    """An SA MAD: 24-byte header, RMPP header, 20 bytes of SA header."""
    m = struct.pack(">BBBBHHQHHI", 1, SA, 2, method, 0, 0, tid, attr, 0, 0)
    m += struct.pack(">BBBBII", ver, rtype, flags, rstatus, seg, paylen)
    m += struct.pack(">QHHQ", 0, 8, 0, 0)
    m += data
    if pad and len(m) < 256:
        m += bytes(256 - len(m))
    return m


def rmpp_fields(mad):
    """(method, tid, version, type, flags, status, seg, paylen)."""
    method = mad[3]
    tid = struct.unpack_from(">Q", mad, 8)[0]
    ver, rtype, flags, rstatus, seg, paylen = struct.unpack_from(">BBBBII",
                                                                 mad, 24)
    return method, tid, ver, rtype, flags & 7, rstatus, seg, paylen


def pattern(n, salt):
    return bytes((i * 7 + salt) & 0xff for i in range(n))


def raw_read(fd, size):
    """read(2) keeping what it copied even when it fails: (ret, bytes)."""
    buf = ctypes.create_string_buffer(size)
    r = libc.read(fd, buf, size)
    if r < 0:
        return -ctypes.get_errno(), buf.raw
    return r, buf.raw[:r]


def drain(fd, secs=0.3):
    """Every packet queued on fd within secs of quiet."""
    out = []
    while wait_readable(fd, secs):
        r, b = raw_read(fd, 64 + 256)
        if r < 0:
            break
        out.append(b)
    return out


def open_umad(path):
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    umad_enable_pkey(fd)
    return fd


def sa_write(fd, agent, lid, mad, timeout=0, retries=0):
    return os.write(fd, umad_hdr(agent, timeout=timeout, retries=retries,
                                 qpn=1, qkey=QP1_QKEY, lid=lid) + mad)


def read_message(fd, want_len, desc, secs=10.0):
    """Read one reassembled message of want_len MAD bytes (header + class
    header + data), first into a 64 + 256 byte buffer (ENOSPC when longer),
    then into a big one.  Returns the MAD bytes or None."""
    if not wait_readable(fd, secs):
        report(False, desc + ": arrives", "nothing within %.0f s" % secs)
        return None
    r, b = raw_read(fd, 64 + 256)
    if want_len > 256:
        length = struct.unpack_from("<I", b, 16)[0]
        report(r == -errno.ENOSPC and length == 64 + want_len,
               desc + ": a 320-byte read gets ENOSPC and the full length",
               "ret %d length %d" % (r, length))
        first = b[64:64 + 256]
        r, b = raw_read(fd, 64 + want_len + 100)
        ok = r == 64 + want_len and b[64:64 + 256] == first
        report(ok, desc + ": the re-read gets %d bytes" % (64 + want_len),
               "ret %d" % r)
    else:
        report(r == 64 + want_len, desc + ": read returns %d bytes" %
               (64 + want_len), "ret %d" % r)
    if r < 64:
        return None
    length = struct.unpack_from("<I", b, 16)[0]
    report(length == 64 + want_len, desc + ": length field %d" %
           (64 + want_len), "%d" % length)
    return b[64:r]


def rmpp_transfer(cfd, cid, sfd, sid, size, tid):
    """Client GetTable, server GetTableResp with size bytes of data."""
    desc = "GetTableResp of %d bytes" % size
    sa_write(cfd, cid, 2, sa_mad(GET_TABLE, tid), timeout=5000, retries=1)
    if not wait_readable(sfd, 5):
        report(False, desc + ": the server gets the GetTable")
        return False
    r, req = raw_read(sfd, 64 + 256)
    if r != 64 + 256 or req[64 + 3] != GET_TABLE:
        report(False, desc + ": the server gets the GetTable", "ret %d" % r)
        return False
    rtid = struct.unpack_from(">Q", req, 64 + 8)[0]
    slid = struct.unpack_from(">H", req, 28)[0]
    sqp = struct.unpack_from(">I", req, 20)[0]
    data = pattern(size, size)
    resp = sa_mad(GET_TABLE_RESP, rtid, data, ver=1, rtype=R_DATA,
                  flags=F_ACTIVE, pad=False)
    n = os.write(sfd, umad_hdr(sid, retries=3, qpn=sqp, qkey=QP1_QKEY,
                               lid=slid) + resp)
    ok = n == 64 + 56 + size
    mad = read_message(cfd, 56 + size, desc)
    if mad is None:
        return False
    f = rmpp_fields(mad)
    ok = (mad[3] == GET_TABLE_RESP and f[1] == rtid and
          f[1] & 0xffffffff == tid and f[2] == 1 and f[3] == R_DATA and
          f[4] & F_ACTIVE and f[4] & F_FIRST)
    report(ok, desc + ": GetTableResp with our TID, active RMPP DATA",
           "%r" % (f,))
    ok = mad[56:] == data
    report(ok, desc + ": every data byte", "first bad at %s" %
           next((i for i in range(min(len(mad) - 56, size))
                 if mad[56 + i] != data[i]), len(mad) - 56))
    return ok


def test_rmpp():
    sfd = open_umad(UMAD1)
    sid = umad_register(sfd, 1, SA, class_version=2,
                        methods=(GET_TABLE, GET_MULTI), rmpp=1)
    cfd = open_umad(UMAD0)
    cid = umad_register(cfd, 1, SA, class_version=2, rmpp=1)
    report(True, "server on umad1 (GetTable, GetMulti), client on umad0")

    # a message that never ends, for the reassembly timeout (checked later)
    vfd = open_umad(UMAD0)
    umad_register(vfd, 1, SA, class_version=2, methods=(GET_MULTI,), rmpp=1)
    tfd = open_umad(UMAD1)
    tid2 = reg2(tfd, 1, SA, ver=2, flags=1, rmpp=1)
    sa_write(tfd, tid2, 1, sa_mad(GET_MULTI, 0x77, pattern(200, 0), ver=1,
                                  rtype=R_DATA, flags=F_ACTIVE | F_FIRST,
                                  seg=1, paylen=0))
    t_unfinished = time.time()
    expect_reply(tfd, "an unfinished message at umad0: ACK of segment 1",
                 R_ACK, 0, 1)

    tid = 0x100
    for size in (0, 1, 200, 201, 4000, 60000):
        rmpp_transfer(cfd, cid, sfd, sid, size, tid)
        tid += 1
    report(not drain(cfd) and not drain(sfd),
           "nothing else queued on either file")

    # a multi-segment request, answered with a multi-segment response
    data = pattern(1000, 3)
    sa_write(cfd, cid, 2, sa_mad(GET_MULTI, tid, data, ver=1, rtype=R_DATA,
                                 flags=F_ACTIVE, pad=False),
             timeout=5000, retries=1)
    mad = read_message(sfd, 56 + 1000, "GetMulti of 1000 bytes at the server")
    if mad is not None:
        report(mad[3] == GET_MULTI and mad[56:] == data and
               struct.unpack_from(">Q", mad, 8)[0] & 0xffffffff == tid,
               "GetMulti: method, TID and every data byte")
        rtid = struct.unpack_from(">Q", mad, 8)[0]
        back = pattern(3000, 9)
        sa_write(sfd, sid, 1, sa_mad(GET_MULTI_RESP, rtid, back, ver=1,
                                     rtype=R_DATA, flags=F_ACTIVE, pad=False),
                 retries=2)
        mad = read_message(cfd, 56 + 3000, "GetMultiResp of 3000 bytes")
        report(mad is not None and mad[3] == GET_MULTI_RESP and
               mad[56:] == back, "GetMultiResp: every data byte")
    tid += 1

    rmpp_bad_input(cfd, cid, sfd, sid)
    report(rmpp_transfer(cfd, cid, sfd, sid, 4000, 0x900),
           "after the bad input a normal transfer still works")

    # the server closes in the middle of sending 60000 bytes
    sa_write(cfd, cid, 2, sa_mad(GET_TABLE, 0x901), timeout=1500)
    wait_readable(sfd, 5)
    r, req = raw_read(sfd, 64 + 256)
    rtid = struct.unpack_from(">Q", req, 64 + 8)[0]
    os.write(sfd, umad_hdr(sid, qpn=1, qkey=QP1_QKEY, lid=1, retries=3) +
             sa_mad(GET_TABLE_RESP, rtid, pattern(60000, 1), ver=1,
                    rtype=R_DATA, flags=F_ACTIVE, pad=False))
    t0 = time.time()
    os.close(sfd)
    report(time.time() - t0 < 5, "closing the server mid-transfer is prompt",
           "%.2f s" % (time.time() - t0))
    got = None
    if wait_readable(cfd, 10):
        r, b = raw_read(cfd, 64 + 60100)
        got = (r, struct.unpack_from("<I", b, 4)[0] if r >= 64 else -1)
    report(got is not None and (got[0] == 64 + 56 + 60000 or
                                (got[0] == 64 + 24 and
                                 got[1] == errno.ETIMEDOUT)),
           "the client gets the whole message or a timeout", "%r" % (got,))

    # a new server works
    sfd = open_umad(UMAD1)
    sid = umad_register(sfd, 1, SA, class_version=2, methods=(GET_TABLE,),
                        rmpp=1)
    report(rmpp_transfer(cfd, cid, sfd, sid, 20000, 0x902),
           "a new server on umad1 works")

    # the unfinished message is aborted 40 s after its last segment
    left = t_unfinished + 46 - time.time()
    f = expect_reply(tfd, "the unfinished message: ABORT T2L after 40 s",
                     R_ABORT, 118, secs=max(left, 1))
    report(f is not None and time.time() - t_unfinished > 39,
           "  ... not before", "%.1f s" % (time.time() - t_unfinished))
    os.close(vfd)
    os.close(tfd)

    # rmmod vmlx while 60000 bytes are on their way
    sa_write(cfd, cid, 2, sa_mad(GET_TABLE, 0x903), timeout=5000)
    wait_readable(sfd, 5)
    r, req = raw_read(sfd, 64 + 256)
    rtid = struct.unpack_from(">Q", req, 64 + 8)[0]
    os.write(sfd, umad_hdr(sid, qpn=1, qkey=QP1_QKEY, lid=1, retries=3) +
             sa_mad(GET_TABLE_RESP, rtid, pattern(60000, 1), ver=1,
                    rtype=R_DATA, flags=F_ACTIVE, pad=False))
    t0 = time.time()
    rc = subprocess.run(["rmmod", "vmlx"]).returncode
    report(rc == 0 and time.time() - t0 < 20,
           "rmmod vmlx in the middle of an RMPP transfer", "rc %d" % rc)
    os.close(sfd)
    os.close(cfd)
    rc = subprocess.run(["modprobe", "vmlx", "static_lids=1"]).returncode
    for _ in range(100):
        if os.path.exists(UMAD1):
            break
        time.sleep(0.1)
    report(rc == 0 and os.path.exists(UMAD1),
           "modprobe vmlx static_lids=1 again: umad0 and umad1 are back")
    time.sleep(1)
    sfd = open_umad(UMAD1)
    sid = umad_register(sfd, 1, SA, class_version=2, methods=(GET_TABLE,),
                        rmpp=1)
    cfd = open_umad(UMAD0)
    cid = umad_register(cfd, 1, SA, class_version=2, rmpp=1)
    report(rmpp_transfer(cfd, cid, sfd, sid, 4000, 0x904),
           "RMPP works after the reload")
    os.close(sfd)
    os.close(cfd)
    rmpp_opensm()


def ib_sysfs(path):
    """A file of /sys/class/infiniband."""
    return sysfs("/sys/class/infiniband/" + path)


def rmpp_opensm():
    """opensm's SA (kernel RMPP sender) answering saquery (kernel RMPP
    receiver, -ENOSPC re-reads in libibumad); then vmlx is loaded again
    with static_lids=1 for the checks after this one."""
    if not shutil.which("opensm") or not shutil.which("saquery"):
        report(True, "opensm/saquery # SKIP not installed")
        return
    gids = ib_sysfs("vmlx0/ports/1/gids/0").split(":")
    pg = "0x" + "".join(gids[4:8])
    guids = ["0x" + ib_sysfs("vmlx%d/node_guid" % n).replace(":", "")
             for n in (0, 1)]
    sm = subprocess.Popen(["opensm", "-g", pg, "-f", "/tmp/opensm-rmpp.log"],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    out, rc, t0 = "", -1, time.time()
    while time.time() - t0 < 90:
        try:
            r = subprocess.run(["saquery", "-C", "vmlx1", "NR"],
                               capture_output=True, text=True, timeout=30)
            out, rc = r.stdout + r.stderr, r.returncode
        except subprocess.TimeoutExpired:
            out, rc = "timeout", -1
        if rc == 0 and all(g in out for g in guids):
            break
        time.sleep(2)
    report(rc == 0 and all(g in out for g in guids),
           "saquery -C vmlx1 NR: NodeRecords of both HCAs from opensm's SA",
           "rc %d after %.0f s: %s" % (rc, time.time() - t0, out[-300:]))
    report(out.count("NodeRecord dump") == 3 or out.count("NodeGuid") >= 3
           or out.count("node_guid") >= 3,
           "  ... three NodeRecords (switch and two HCAs)",
           out.replace("\n", " | ")[:600])
    for args in (["-C", "vmlx0", "NR"], ["-C", "vmlx1", "PR"],
                 ["-C", "vmlx1", "PIR"]):
        try:
            r = subprocess.run(["saquery"] + args, capture_output=True,
                               text=True, timeout=30)
            ok = r.returncode == 0 and len(r.stdout) > 100
            detail = "rc %d: %s" % (r.returncode, (r.stdout + r.stderr)[-200:])
        except subprocess.TimeoutExpired:
            ok, detail = False, "timeout"
        report(ok, "saquery %s" % " ".join(args), detail)
    sm.terminate()
    try:
        sm.wait(30)
    except subprocess.TimeoutExpired:
        sm.kill()
        sm.wait()
    report(True, "opensm stopped")
    rc = subprocess.run(["rmmod", "vmlx"]).returncode
    rc |= subprocess.run(["modprobe", "vmlx", "static_lids=1"]).returncode
    for _ in range(100):
        if os.path.exists(UMAD1):
            break
        time.sleep(0.1)
    report(rc == 0 and os.path.exists(UMAD1),
           "vmlx loaded again with static_lids=1")


def expect_reply(fd, desc, rtype, rstatus=0, seg=None, secs=2.0):
    """The next packet on fd is an RMPP rtype with rstatus (and seg)."""
    if not wait_readable(fd, secs):
        report(False, desc, "no reply")
        return None
    r, b = raw_read(fd, 64 + 256)
    f = rmpp_fields(b[64:]) if r == 64 + 256 else None
    ok = (f is not None and f[2] == 1 and f[3] == rtype and
          f[5] == rstatus and (seg is None or f[6] == seg))
    report(ok, desc, "%r" % (f,))
    return f


def expect_silence(fd, desc):
    got = drain(fd, 0.5)
    report(not got, desc, "%d packets, first %r" %
           (len(got), rmpp_fields(got[0][64:]) if got else None))


def rmpp_bad_input(cfd, cid, sfd, sid):
    """A user-RMPP agent on umad0 hand-makes segments for the server."""
    ifd = open_umad(UMAD0)
    iid = reg2(ifd, 1, SA, ver=2, flags=1, rmpp=1)
    report(True, "user-RMPP agent (REGISTER_AGENT2 flag 1) on umad0")

    def inject(tid, data=b"", **kw):
        sa_write(ifd, iid, 2, sa_mad(GET_MULTI, tid, data, **kw))

    act = F_ACTIVE
    inject(0x200, ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=1,
           paylen=100)
    expect_reply(ifd, "FIRST with PayloadLength 100 (< 1 segment): "
                 "ABORT BAD_LEN", R_ABORT, 119)
    inject(0x201, ver=1, rtype=R_DATA, flags=act | F_FIRST | F_LAST, seg=1,
           paylen=500)
    expect_reply(ifd, "FIRST|LAST with PayloadLength 500: ABORT BAD_LEN",
                 R_ABORT, 119)
    inject(0x202, ver=1, rtype=R_DATA, flags=act | F_FIRST | F_LAST, seg=1,
           paylen=5)
    expect_reply(ifd, "LAST with PayloadLength 5 (< class header): "
                 "ABORT BAD_LEN", R_ABORT, 119)
    inject(0x203, ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=0,
           paylen=660)
    expect_reply(ifd, "FIRST with SegmentNumber 0: ABORT BAD_SEG", R_ABORT,
                 120)
    inject(0x204, ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=3,
           paylen=660)
    expect_reply(ifd, "FIRST with SegmentNumber 3: ABORT BAD_SEG", R_ABORT,
                 120)
    inject(0x205, ver=2, rtype=R_DATA, flags=act | F_FIRST, seg=1,
           paylen=660)
    expect_reply(ifd, "RMPP version 2: ABORT UNV", R_ABORT, 125)
    inject(0x206, ver=1, rtype=9, flags=act, seg=1)
    expect_reply(ifd, "RMPP type 9: ABORT BADT", R_ABORT, 121)
    inject(0x207, ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=1,
           paylen=0xffffff00)
    expect_reply(ifd, "FIRST announcing 4 GB: STOP (resources)", R_STOP, 1)
    inject(0x208, ver=1, rtype=R_DATA, flags=act, seg=5, paylen=0)
    expect_silence(ifd, "segment 5 without segment 1: dropped")
    sa_write(ifd, iid, 2, sa_mad(GET_MULTI, 0x209, ver=1, rtype=R_ACK,
                                 flags=act, seg=1, paylen=10))
    expect_silence(ifd, "ACK for an unknown TID: dropped")
    sa_write(ifd, iid, 2, sa_mad(GET_MULTI, 0x20a, ver=1, rtype=R_ABORT,
                                 flags=act, rstatus=127))
    expect_silence(ifd, "ABORT for an unknown TID: dropped")

    # a good message out of order, with repeats
    data = pattern(600, 5)
    segs = [data[0:200], data[200:400], data[400:600]]
    inject(0x210, segs[0], ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=1,
           paylen=660)
    expect_reply(ifd, "3 segments: ACK of segment 1", R_ACK, 0, 1)
    inject(0x210, segs[2], ver=1, rtype=R_DATA, flags=act | F_LAST, seg=3,
           paylen=220)
    inject(0x210, segs[0], ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=1,
           paylen=660)
    expect_reply(ifd, "segment 1 again: the ACK again", R_ACK, 0, 1)
    inject(0x210, segs[1], ver=1, rtype=R_DATA, flags=act, seg=2)
    expect_reply(ifd, "segment 2 after 3: ACK of segment 3", R_ACK, 0, 3)
    mad = read_message(sfd, 56 + 600, "the out-of-order message at the "
                       "server")
    report(mad is not None and mad[56:] == data,
           "out-of-order message: every data byte")
    inject(0x210, segs[2], ver=1, rtype=R_DATA, flags=act | F_LAST, seg=3,
           paylen=220)
    expect_reply(ifd, "last segment again: the last ACK again", R_ACK, 0, 3)
    expect_silence(sfd, "... and no second message")

    # a bogus segment 4 after LAST at 3, all before segment 2
    inject(0x212, segs[0], ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=1,
           paylen=0)
    expect_reply(ifd, "length unknown: ACK of segment 1", R_ACK, 0, 1)
    inject(0x212, segs[2], ver=1, rtype=R_DATA, flags=act | F_LAST, seg=3,
           paylen=220)
    inject(0x212, bytes(200), ver=1, rtype=R_DATA, flags=act, seg=4)
    inject(0x212, segs[1], ver=1, rtype=R_DATA, flags=act, seg=2)
    expect_reply(ifd, "segments 3 (LAST), 4, 2: ACK of segment 3", R_ACK, 0,
                 3)
    mad = read_message(sfd, 56 + 600, "the message ending at LAST")
    report(mad is not None and mad[56:] == data,
           "segments after LAST are not part of the message")

    # the last segment disagrees with the first's PayloadLength
    inject(0x211, segs[0], ver=1, rtype=R_DATA, flags=act | F_FIRST, seg=1,
           paylen=660)
    expect_reply(ifd, "2 of 3 announced segments: ACK of segment 1", R_ACK,
                 0, 1)
    inject(0x211, segs[1], ver=1, rtype=R_DATA, flags=act | F_LAST, seg=2,
           paylen=220)
    expect_reply(ifd, "LAST at segment 2 of 3: ABORT BAD_LEN", R_ABORT, 119)
    expect_silence(sfd, "... and nothing delivered")

    # hundreds of unfinished messages
    for i in range(300):
        inject(0x1000 + i, bytes(200), ver=1, rtype=R_DATA,
               flags=act | F_FIRST, seg=1, paylen=0)
    got = []
    while wait_readable(ifd, 1.0):
        r, b = raw_read(ifd, 64 + 256)
        if r < 0:
            break
        got.append(rmpp_fields(b[64:]))
    acks = sum(1 for f in got if f[3] == R_ACK)
    stops = sum(1 for f in got if f[3] == R_STOP and f[5] == 1)
    report(acks == 300 and stops == 300 - 16,
           "300 unfinished messages: 300 ACKs, the 284 oldest ended by STOP",
           "%d ACKs %d STOPs of %d" % (acks, stops, len(got)))
    expect_silence(sfd, "... and nothing delivered")

    # the kernel as sender, talking to a bad receiver
    def server_answers(tid, size, retries=0):
        sa_write(ifd, iid, 2, sa_mad(GET_TABLE, tid))
        if not wait_readable(sfd, 5):
            return None
        r, req = raw_read(sfd, 64 + 256)
        rtid = struct.unpack_from(">Q", req, 64 + 8)[0]
        sa_write(sfd, sid, 1, sa_mad(GET_TABLE_RESP, rtid, pattern(size, 2),
                                     ver=1, rtype=R_DATA, flags=F_ACTIVE,
                                     pad=False), retries=retries)
        if not wait_readable(ifd, 5):
            return None
        r, b = raw_read(ifd, 64 + 256)
        return rtid, rmpp_fields(b[64:])

    def ack(tid, seg, newwin, rstatus=0):
        sa_write(ifd, iid, 2, sa_mad(GET_TABLE, tid, ver=1, rtype=R_ACK,
                                     flags=F_ACTIVE, rstatus=rstatus,
                                     seg=seg, paylen=newwin))

    got = server_answers(0x300, 4000)
    report(got is not None and got[1][3] == R_DATA and got[1][6] == 1 and
           got[1][7] == 20 * 220 - 0,
           "kernel sender: segment 1 of 20, PayloadLength 4400",
           "%r" % (got,))
    if got:
        ack(got[0], 5, 10)
        expect_reply(ifd, "ACK of segment 5 when 1 was sent: ABORT S2B",
                     R_ABORT, 123)
        ack(got[0], 1, 3)
        expect_silence(ifd, "... and the send is over")
    got = server_answers(0x301, 4000)
    if got:
        ack(got[0], 1, 0)
        expect_reply(ifd, "ACK with NewWindowLast < SegmentNumber: "
                     "ABORT W2S", R_ABORT, 122)
    got = server_answers(0x302, 4000)
    if got:
        sa_write(ifd, iid, 2, sa_mad(GET_TABLE, got[0], ver=1, rtype=R_STOP,
                                     flags=F_ACTIVE, rstatus=1))
        ack(got[0], 1, 3)
        expect_silence(ifd, "STOP from the receiver ends the send")
    got = server_answers(0x303, 1000, retries=2)
    report(got is not None and got[1][6] == 1 and got[1][7] == 5 * 220,
           "kernel sender: segment 1 of 5, PayloadLength 1100", "%r" % (got,))
    if got:
        ack(got[0], 1, 3)
        segs = [rmpp_fields(b[64:]) for b in drain(ifd, 0.5)]
        report([f[6] for f in segs] == [2, 3],
               "ACK 1 window 3: segments 2 and 3", "%r" % (segs,))
        t0 = time.time()
        r = wait_readable(ifd, 5)
        took = time.time() - t0
        segs = [rmpp_fields(b[64:]) for b in drain(ifd, 0.5)] if r else []
        report([f[6] for f in segs] == [2, 3] and 1.3 < took < 4,
               "no ACK: segments 2 and 3 again after 2 s", "%r after %.2f s" %
               (segs, took))
        ack(got[0], 3, 5)
        segs = [rmpp_fields(b[64:]) for b in drain(ifd, 0.5)]
        report([(f[6], f[4]) for f in segs] ==
               [(4, F_ACTIVE), (5, F_ACTIVE | F_LAST)] and
               segs[-1][7] == 220 - 0,
               "ACK 3 window 5: segments 4 and 5 (LAST, PayloadLength 220)",
               "%r" % (segs,))
        ack(got[0], 5, 5)
        expect_silence(ifd, "the last ACK ends the send")

    os.close(ifd)
    report(True, "the user-RMPP agent is closed")


{"abi": test_abi, "issm": test_issm, "rmpp": test_rmpp,
 "remove": test_remove}[sys.argv[1]]()
sys.exit(exit_status())
