#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""umad/issm checks for tests/scenarios/umad.sh, printed as TAP lines.

Usage: umad_check.py abi|issm|remove
  abi     malformed writes, bad ioctls, sends and receives on umad0
          (vmlx0 port 1, LID 1 with static_lids=1)
  issm    IsSM bit of vmlx0 port 1 while issm0 is open, one opener
  remove  rmmod vmlx with umad0 open, an agent registered and a request
          in flight; then the file fails with EIO/POLLERR
The caller numbers the lines: every line is "ok"/"not ok" DESC.
"""
import errno
import fcntl
import os
import select
import struct
import subprocess
import sys
import time

REGISTER_AGENT = 0xC01C1B01
UNREGISTER_AGENT = 0x40041B02
ENABLE_PKEY = 0x00001B03
REGISTER_AGENT2 = 0xC0281B04
UMAD0 = "/dev/infiniband/umad0"
ISSM0 = "/dev/infiniband/issm0"
CAP = "/sys/class/infiniband/vmlx0/ports/1/cap_mask"
failed = 0


def report(ok, desc, detail=""):
    global failed
    if not ok:
        failed += 1
    print("%s %s%s" % ("ok" if ok else "not ok", desc,
                       "" if ok or not detail else "  # " + detail))
    sys.stdout.flush()


def expect_errno(desc, want, fn, *args, **kw):
    try:
        r = fn(*args, **kw)
    except OSError as e:
        report(e.errno == want, desc,
               "got %s" % errno.errorcode.get(e.errno, e.errno))
        return None
    report(False, desc, "succeeded (%r)" % (r,))
    return r


def hdr(agent, length=0, timeout=0, retries=0, qpn=0, qkey=0, lid=0xffff,
        v2=True, pkey=0):
    h = struct.pack("<5I", agent, 0, timeout, retries, length)
    h += struct.pack(">IIH", qpn, qkey, lid)
    h += struct.pack("6B", 0, 0, 0, 0, 0, 0) + bytes(16) + struct.pack(">I", 0)
    if v2:
        h += struct.pack("<H6x", pkey)
    return h


def smp(tid, attr=0x11, method=0x01, hop_cnt=0, base=1, cls=0x81):
    m = struct.pack(">BBBBHBBQHHI", base, cls, 1, method, 0, 0, hop_cnt,
                    tid, attr, 0, 0)
    m += bytes(8) + struct.pack(">HH", 0xffff, 0xffff) + bytes(28)
    m += bytes(64) + bytes(64) + bytes(64)
    assert len(m) == 256
    return m


def reg(fd, qpn, cls, ver=1, methods=(), rmpp=0, oui=b"\0\0\0"):
    mask = 0
    for m in methods:
        mask |= 1 << m
    req = struct.pack("<I16sBBB3sBx", 0, mask.to_bytes(16, "little"), qpn,
                      cls, ver, oui, rmpp)
    out = fcntl.ioctl(fd, REGISTER_AGENT, req)
    return struct.unpack_from("<I", out)[0]


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
                 os.write, fd, hdr(0, v2=False) + bytes(10))
    expect_errno("write with agent id 40: EINVAL", errno.EINVAL, os.write,
                 fd, hdr(40, v2=False) + smp(1))
    expect_errno("write with unregistered agent id 3: EIO", errno.EIO,
                 os.write, fd, hdr(3, v2=False) + smp(1))
    expect_errno("UNREGISTER_AGENT of a free id: EINVAL", errno.EINVAL,
                 fcntl.ioctl, fd, UNREGISTER_AGENT, struct.pack("<I", 5))
    expect_errno("UNREGISTER_AGENT id 1000: EINVAL", errno.EINVAL,
                 fcntl.ioctl, fd, UNREGISTER_AGENT, struct.pack("<I", 1000))
    expect_errno("REGISTER_AGENT qpn 2: EINVAL", errno.EINVAL, reg, fd, 2,
                 0x81)
    expect_errno("REGISTER_AGENT class 0x81 on QP1: EINVAL", errno.EINVAL,
                 reg, fd, 1, 0x81)
    expect_errno("REGISTER_AGENT class 0x04 on QP0: EINVAL", errno.EINVAL,
                 reg, fd, 0, 0x04)
    expect_errno("REGISTER_AGENT class 0x60: EINVAL", errno.EINVAL, reg, fd,
                 1, 0x60)
    expect_errno("REGISTER_AGENT rmpp 1 on a non-RMPP class: EINVAL",
                 errno.EINVAL, reg, fd, 1, 0x04, rmpp=1)
    expect_errno("REGISTER_AGENT vendor class without OUI: EINVAL",
                 errno.EINVAL, reg, fd, 1, 0x30, methods=(1,))
    expect_errno("REGISTER_AGENT2 unknown flag: EINVAL", errno.EINVAL, reg2,
                 fd, 1, 0x04, flags=0x80)
    report(struct.unpack_from("<I", reg2.last, 12)[0] == 1,
           "REGISTER_AGENT2 wrote the supported flags back")
    expect_errno("REGISTER_AGENT2 OUI above 24 bits: EINVAL", errno.EINVAL,
                 reg2, fd, 1, 0x30, oui=0x1000000)
    expect_errno("unknown ioctl: ENOTTY", errno.ENOTTY, fcntl.ioctl, fd,
                 0xC0081B09, bytes(8))
    try:
        fcntl.ioctl(fd, ENABLE_PKEY)
        report(True, "ENABLE_PKEY on a fresh file")
    except OSError as e:
        report(False, "ENABLE_PKEY on a fresh file", str(e))
    a = reg(fd, 0, 0x81, methods=())
    report(a == 0, "REGISTER_AGENT class 0x81 on QP0: id 0", "id %d" % a)
    expect_errno("ENABLE_PKEY after a registration: EINVAL", errno.EINVAL,
                 fcntl.ioctl, fd, ENABLE_PKEY)
    pma = reg(fd, 1, 0x04, methods=())
    report(pma == 1, "REGISTER_AGENT class 0x04 on QP1: id 1", "id %d" % pma)
    sa = reg(fd, 1, 0x03, ver=2, rmpp=1)
    report(sa == 2, "REGISTER_AGENT SA class with rmpp_version 1: id 2",
           "id %d" % sa)
    trap = reg(fd, 0, 0x01, methods=(0x05,))
    fd2 = os.open(UMAD0, os.O_RDWR | os.O_NONBLOCK)
    expect_errno("second file claiming the same method: EINVAL",
                 errno.EINVAL, reg, fd2, 0, 0x01, 1, (0x05,))
    ids = [reg(fd2, 1, 0x00) for _ in range(32)]
    report(ids == list(range(32)), "32 agents on one file get ids 0..31")
    expect_errno("the 33rd agent: ENOMEM", errno.ENOMEM, reg, fd2, 1, 0x00)
    fcntl.ioctl(fd2, UNREGISTER_AGENT, struct.pack("<I", 7))
    report(reg(fd2, 1, 0x00) == 7, "an unregistered id is reused")
    os.close(fd2)
    fcntl.ioctl(fd, UNREGISTER_AGENT, struct.pack("<I", trap))

    expect_errno("DR SMP with hop count 64: EINVAL", errno.EINVAL, os.write,
                 fd, hdr(a, timeout=100) + smp(0x10, hop_cnt=64))
    expect_errno("MAD with base version 2: EINVAL", errno.EINVAL, os.write,
                 fd, hdr(a, timeout=100) + smp(0x11, base=2))
    expect_errno("MAD longer than 256 bytes: EINVAL", errno.EINVAL,
                 os.write, fd, hdr(a) + smp(0x12) + bytes(100))
    expect_errno("timeout 0xffffffff ms: EINVAL", errno.EINVAL, os.write, fd,
                 hdr(a, timeout=0xffffffff) + smp(0x13))
    expect_errno("retries 0xffffffff: EINVAL", errno.EINVAL, os.write, fd,
                 hdr(a, timeout=100, retries=0xffffffff) + smp(0x14))
    expect_errno("multi-segment kernel-RMPP send: EMSGSIZE", errno.EMSGSIZE,
                 os.write, fd, hdr(sa, qpn=1, qkey=0x80010000, lid=1) +
                 struct.pack(">BBBBHHQHHI", 1, 3, 2, 0x81, 0, 0, 0x15, 0x11,
                             0, 0) + bytes([1, 1, 1, 0]) + bytes(8) +
                 bytes(20 + 600))

    # DR SubnGet(NodeInfo) to ourselves, answered by vmlx0's SMA
    n = os.write(fd, hdr(a, timeout=1000) + smp(0x1234))
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
    os.write(fd, hdr(a, timeout=1000) + smp(0x1235))
    p = select.poll()
    p.register(fd, select.POLLIN)
    p.poll(5000)
    expect_errno("read of 64 + 100 bytes for a 256-byte MAD: EINVAL",
                 errno.EINVAL, os.read, fd, 64 + 100)
    r = wait_read(fd, 1024)
    report(r is not None and len(r) == 320, "the MAD is still there")

    # duplicates and the timeout echo (LID-routed SMP to nowhere)
    m = smp(0x777, cls=0x01)
    os.write(fd, hdr(a, timeout=200, retries=1, lid=0x55) + m)
    expect_errno("second request with the same TID: EINVAL", errno.EINVAL,
                 os.write, fd, hdr(a, timeout=200, lid=0x55) + m)
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
    os.write(fd, hdr(pma, timeout=1000, qpn=1, qkey=0x80010000, lid=1) + g +
             bytes(232))
    r = wait_read(fd, 1024)
    ok = r is not None and len(r) == 320
    report(ok, "PMA ClassPortInfo over QP1 answered")
    if ok:
        report(r[64 + 3] == 0x81 and struct.unpack_from(">I", r, 20)[0] == 1,
               "GetResp from QP1", "method %#x" % r[64 + 3])
    os.close(fd)

    # legacy 56-byte header without ENABLE_PKEY
    fd = os.open(UMAD0, os.O_RDWR | os.O_NONBLOCK)
    a = reg(fd, 0, 0x81)
    os.write(fd, hdr(a, timeout=1000, v2=False) + smp(0x99))
    r = wait_read(fd, 1024)
    ok = r is not None and len(r) == 56 + 256
    report(ok, "legacy header: the response is 56 + 256 bytes",
           "got %r" % (None if r is None else len(r)))
    if ok:
        report(struct.unpack_from("<I", r, 16)[0] == 312 and
               r[56 + 3] == 0x81, "legacy header: length 312, GetResp")
    # close with a request in flight
    os.write(fd, hdr(a, timeout=60000, lid=0x56, v2=False) +
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
    fcntl.ioctl(fd, ENABLE_PKEY)
    a = reg(fd, 0, 0x81)
    reg(fd, 1, 0x04, methods=(1,))
    os.write(fd, hdr(a, timeout=60000, lid=0x57) + smp(0x42, cls=0x01))
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
                 hdr(a) + smp(1))
    expect_errno("REGISTER_AGENT after removal: EPIPE", errno.EPIPE, reg, fd,
                 0, 0x81)
    os.close(fd)
    os.close(sm)
    report(not os.path.exists(UMAD0), "umad0 is gone")


{"abi": test_abi, "issm": test_issm, "remove": test_remove}[sys.argv[1]]()
sys.exit(1 if failed else 0)
