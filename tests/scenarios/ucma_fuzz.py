#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Malformed commands for /dev/infiniband/rdma_cm, for the rdma-ucm
# scenario.  First a fixed list of hostile cases, each with the one errno
# Documentation/rdma_ucm.rst gives for it: short writes and headers in
# bad memory, bad command numbers, "in" beyond the write and huge writes,
# "out" too small and too large (the kernel must write no more than the
# response), unknown and foreign ids, bad address sizes and families,
# bad response pointers (NULL, unmapped, read-only, kernel, straddling
# an unmapped page), bad option levels, names, lengths and values, and
# the system calls the device does not have; and the sequences of
# commands that random ones found to hang or crash the RDMA CM (those
# that may hang in a child process).  Then random commands built
# from valid ones (fields from pools of good and bad values, byte flips,
# random "in", "out" and write lengths), each of which must answer
# success or an errno of its command's documented set and write nothing
# beyond what the response may hold; the files are closed with whatever
# the random commands left every EPOCH commands.  An oops is the
# harness's business (dmesg).
#
#   ucma_fuzz.py ITERATIONS LOCAL_IP PEER_IP
#
# LOCAL_IP is an IPoIB address of the network namespace the checker runs
# in, PEER_IP one of another HCA's, for binding, resolving and connecting.
# The random run's seed is UCMA_FUZZ_SEED from the environment (default:
# a random one); it is printed in the result line of the random run, and
# running again with UCMA_FUZZ_SEED set to it repeats the same commands;
# with UCMA_FUZZ_TRACE set too, each is printed (in hex) before it is
# written.  Prints "ok <what>" / "not ok <what>" (checker.py).
import collections
import ctypes
import errno
import fcntl
import mmap
import os
import random
import struct
import sys
import time

from checker import errno_name, exit_status, expect, report
import ucma
from ucma import (ACCEPT, BIND, BIND_IP, CONNECT, CREATE_ID, DESTROY_ID,
                  DISCONNECT, GET_EVENT, GET_OPTION, INIT_QP_ATTR,
                  JOIN_IP_MCAST, JOIN_MCAST, LEAVE_MCAST, LISTEN, MIGRATE_ID,
                  NOTIFY, QUERY, QUERY_ROUTE, REJECT, RESOLVE_ADDR,
                  RESOLVE_IP, RESOLVE_ROUTE, SET_OPTION, PS_IB, PS_TCP,
                  PS_UDP, PS_IPOIB, AF_IB, PAGE, hdr, raw_write, sib, sin,
                  sin6)

EPOCH = 250
KERNEL_ADDR = 0xffffffff81000000
NONCANONICAL = 0x8000000000000000
KMALLOC_MAX_SIZE = 1 << 22


class Memory:
    """The memory the commands point at: a writable scratch area (r,
    SCRATCH bytes followed by an inaccessible page, end) for responses
    (its first page), option values (from its ninth page) and commands
    (at its end), and a read-only page (ro)."""

    SCRATCH = 32 * PAGE

    def __init__(self):
        self.r = ucma.guarded(self.SCRATCH)
        self.end = self.r + self.SCRATCH	# the inaccessible page
        self.ro = ucma.guarded(PAGE, prot=1)

    def put(self, data, at_end=False):
        """Copy @data into the scratch area (at its start, or ending
        where the inaccessible page begins): its address."""
        addr = self.end - len(data) if at_end else self.r
        ctypes.memmove(addr, data, len(data))
        return addr

    def fill(self, length, byte=0x5a):
        ctypes.memset(self.r, byte, length)

    def get(self, length, offset=0):
        return ctypes.string_at(self.r + offset, length)


# --- the fixed list ----------------------------------------------------------

def fixed(mem, local):
    fd = ucma.open_dev(nonblock=True)
    other = ucma.open_dev(nonblock=True)
    resp = mem.r + 8 * PAGE		# a response buffer apart from commands
    # a bound id (AF_IB, vmlx0's GID): commands that need a device
    _, bound = ucma.create_id(fd, 4)
    e = ucma.bind(fd, bound, sib(ucma.port_gid("vmlx0"),
                                 ucma.RDMA_IB_IP_PS_TCP,
                                 ucma.RDMA_IB_IP_PS_MASK))
    expect("an id bound by AF_IB to vmlx0, for what follows", e, 0)
    _, mine = ucma.create_id(fd, 1)
    _, theirs = ucma.create_id(other, 2)

    def w(c, body, out=0, in_len=None, length=None, at_end=False):
        """The command, written from the scratch area"""
        data = hdr(c, len(body) if in_len is None else in_len, out) + body
        addr = mem.put(data, at_end)
        return raw_write(fd, addr, len(data) if length is None else length)

    # -- the write itself
    for n in (0, 1, 4, 7):
        expect("write of %d bytes: EINVAL" % n, w(0, b"", length=n),
               errno.EINVAL)
    expect("header at address 0: EFAULT", raw_write(fd, 0, 8), errno.EFAULT)
    expect("header in an inaccessible page: EFAULT",
           raw_write(fd, mem.end, 32), errno.EFAULT)
    expect("header in a kernel address: EFAULT",
           raw_write(fd, KERNEL_ADDR, 32), errno.EFAULT)
    data = hdr(CREATE_ID, 24, 4) + struct.pack("<QQHB5x", 1, resp, PS_TCP, 0)
    addr = mem.put(data[:6], at_end=True)
    expect("header running into an inaccessible page: EFAULT",
           raw_write(fd, addr, 32), errno.EFAULT)
    addr = mem.put(data[:20], at_end=True)
    expect("command running into an inaccessible page: EFAULT",
           raw_write(fd, addr, 32), errno.EFAULT)
    for c in (23, 24, 0xff, 0x7fffffff, 0x80000000, 0xffffffff):
        expect("cmd %#x: EINVAL" % c, w(c, bytes(24)), errno.EINVAL)
    expect("cmd 13 (GET_OPTION), in 0: ENOSYS", w(GET_OPTION, b""),
           errno.ENOSYS)
    expect("cmd 13 (GET_OPTION), in 24: ENOSYS", w(GET_OPTION, bytes(24)),
           errno.ENOSYS)
    body = struct.pack("<QQHB5x", 1, resp, PS_TCP, 0)
    expect("in one beyond the write: EINVAL",
           w(CREATE_ID, body, 4, in_len=25), errno.EINVAL)
    expect("in 65535 with 24 bytes: EINVAL",
           w(CREATE_ID, body, 4, in_len=0xffff), errno.EINVAL)
    expect("in 65535, all written (the command cut to its size)",
           w(CREATE_ID, body + bytes(0xffff - 24), 4), 0)
    # a write much longer than the memory behind it: only the header and
    # "in" bytes are read, and the whole length is answered
    addr = mem.put(hdr(CREATE_ID, 24, 4) + body)
    expect("write of 1 MiB from 128 KiB of memory: only 8 + in bytes read",
           raw_write(fd, addr, 1 << 20), 0)
    expect("in 0 (a CREATE_ID of zeros: port space 0): EINVAL",
           w(CREATE_ID, body, 4, in_len=0, length=32), errno.EINVAL)

    # -- out too small, too large
    small = [(CREATE_ID, body, 3),
             (DESTROY_ID, struct.pack("<QII", resp, mine, 0), 3),
             (MIGRATE_ID, struct.pack("<QII", resp, mine, fd), 3),
             (LEAVE_MCAST, struct.pack("<QII", resp, 1, 0), 3),
             (JOIN_IP_MCAST, struct.pack("<QQ", resp, 1) +
              ucma.in6(sin("239.1.1.1")) + struct.pack("<I", bound), 3),
             (JOIN_MCAST, struct.pack("<QQIHH", resp, 1, bound, 16, 0) +
              ucma.kss(sin("239.1.1.1")), 3),
             (INIT_QP_ATTR, struct.pack("<QII", resp, bound, 1), 143),
             (GET_EVENT, struct.pack("<Q", resp), 323),
             (QUERY_ROUTE, struct.pack("<QII", resp, mine, 0), 199),
             (QUERY, struct.pack("<QII", resp, mine, 0), 271),
             (QUERY, struct.pack("<QII", resp, mine, 2), 271),
             (QUERY, struct.pack("<QII", resp, mine, 1), 7)]
    for c, b, out in small:
        expect("%s with out %d: ENOSPC" % (ucma.CMD_NAMES[c], out),
               w(c, b, out), errno.ENOSPC)
    for c, b, size in ((CREATE_ID, body, 4),
                       (QUERY, struct.pack("<QII", resp, mine, 0), 280),
                       (QUERY, struct.pack("<QII", resp, mine, 2), 280),
                       (QUERY, struct.pack("<QII", resp, mine, 1), 8),
                       (QUERY_ROUTE, struct.pack("<QII", resp, mine, 0), 208),
                       (INIT_QP_ATTR, struct.pack("<QII", resp, bound, 1),
                        144)):
        ctypes.memset(resp, 0x5a, 1024)
        e = w(c, b, 0xffff)
        tail = ctypes.string_at(resp + size, 1024 - size)
        report(e == 0 and tail == b"\x5a" * len(tail),
               "%s with out 65535: %d bytes written, no more" %
               (ucma.CMD_NAMES[c], size), (errno_name(e), tail[:16]))

    # -- ids
    for id_, what, want in ((0xffffffff, "id 0xffffffff", errno.ENOENT),
                            (0x7fffffff, "an unused id", errno.ENOENT),
                            (None, "a destroyed id", errno.ENOENT),
                            (theirs, "another file's id", errno.EINVAL)):
        if id_ is None:
            # its number is free until the next CREATE_ID takes it
            _, id_ = ucma.create_id(fd, 3)
            ucma.destroy_id(fd, id_)
        for c, b in id_commands(id_, resp, fd):
            expect("%s of %s: %s" % (ucma.CMD_NAMES[c], what,
                                     errno_name(want)),
                   w(c, b, RESP_MAX.get(c, 0)), want)
    dn = os.open("/dev/null", os.O_RDWR)
    for f, what, want in ((0xffffffff, "fd -1", errno.ENOENT),
                          (dn, "/dev/null", errno.EINVAL),
                          (65535, "fd 65535", errno.ENOENT)):
        expect("MIGRATE_ID from %s: %s" % (what, errno_name(want)),
               w(MIGRATE_ID, struct.pack("<QII", resp, mine, f), 4), want)
    os.close(dn)

    # -- addresses
    for fam in (0, 1, AF_IB, 0xffff):
        expect("BIND_IP family %d: EINVAL" % fam,
               w(BIND_IP, struct.pack("<Q", 0) + ucma.in6(
                   sin("0.0.0.0", 7002, family=fam)) +
                 struct.pack("<I", mine)), errno.EINVAL)
    expect("BIND_IP fe80::2 without a scope: EINVAL",
           w(BIND_IP, struct.pack("<Q", 0) + ucma.in6(sin6("fe80::2", 7002)) +
             struct.pack("<I", mine)), errno.EINVAL)
    for sa, size, what in ((sin("0.0.0.0"), 0, "AF_INET, size 0"),
                           (sin("0.0.0.0"), 15, "AF_INET, size 15"),
                           (sin("0.0.0.0"), 28, "AF_INET, size 28"),
                           (sin6(), 16, "AF_INET6, size 16"),
                           (sin6(), 129, "AF_INET6, size 129"),
                           (sib(), 0xffff, "AF_IB, size 65535"),
                           (bytes(16), 16, "family 0, size 16"),
                           (bytes(16), 0, "family 0, size 0")):
        expect("BIND %s: EINVAL" % what,
               w(BIND, struct.pack("<IHH", mine, size, 0) + ucma.kss(sa)),
               errno.EINVAL)
    expect("BIND with reserved 0xffff: EINVAL",
           w(BIND, struct.pack("<IHH", mine, 16, 0xffff) +
             ucma.kss(sin("0.0.0.0"))), errno.EINVAL)
    dst = sin("10.99.99.99", 7003)
    for src, d, what in ((b"", bytes(16), "no destination (family 0)"),
                         (sin("0.0.0.0", family=1), dst, "source AF_UNIX"),
                         (b"", sib(), "destination AF_IB"),
                         (b"", sin("1.2.3.4", family=0xffff),
                          "destination family 0xffff")):
        expect("RESOLVE_IP, %s: EINVAL" % what,
               w(RESOLVE_IP, ucma.in6(src) + ucma.in6(d) +
                 struct.pack("<II", mine, 100)), errno.EINVAL)
    for ss, ds, res, what in ((0, 0, 0, "dst_size 0"),
                              (0, 28, 0, "dst_size 28 for AF_INET"),
                              (28, 16, 0, "src_size 28 for AF_INET"),
                              (0, 16, 1, "reserved 1")):
        expect("RESOLVE_ADDR, %s: EINVAL" % what,
               w(RESOLVE_ADDR, struct.pack("<IIHHI", mine, 100, ss, ds, res) +
                 ucma.kss(sin("10.98.0.1")) + ucma.kss(dst)), errno.EINVAL)
    for size, flags, sa, what in ((0, 0, bytes(16), "family 0"),
                                  (16, 0, sin6("ff02::1"),
                                   "AF_INET6, size 16"),
                                  (16, 2, sin("239.1.1.1"), "join_flags 2"),
                                  (16, 0xffff, sin("239.1.1.1"),
                                   "join_flags 65535")):
        expect("JOIN_MCAST, %s: EINVAL" % what,
               w(JOIN_MCAST, struct.pack("<QQIHH", resp, 1, bound, size,
                                         flags) + ucma.kss(sa), 4),
               errno.EINVAL)
    expect("JOIN_IP_MCAST, family 1: EINVAL",
           w(JOIN_IP_MCAST, struct.pack("<QQ", resp, 1) +
             ucma.in6(sin("239.1.1.1", family=1)) +
             struct.pack("<I", bound), 4), errno.EINVAL)

    # -- response pointers
    for ptr, what in ((0, "NULL"), (mem.end, "an inaccessible page"),
                      (mem.ro, "a read-only page"),
                      (KERNEL_ADDR, "a kernel address"),
                      (NONCANONICAL, "a non-canonical address"),
                      (mem.end - 2, "2 bytes before an inaccessible page")):
        for c, b, out in ((CREATE_ID, struct.pack("<QQHB5x", 1, ptr, PS_TCP,
                                                  0), 4),
                          (QUERY, struct.pack("<QII", ptr, mine, 0), 280),
                          (QUERY, struct.pack("<QII", ptr, mine, 1), 80),
                          (QUERY, struct.pack("<QII", ptr, mine, 2), 280),
                          (QUERY_ROUTE, struct.pack("<QII", ptr, mine, 0),
                           208),
                          (INIT_QP_ATTR, struct.pack("<QII", ptr, bound, 1),
                           144)):
            expect("%s, response to %s: EFAULT" % (ucma.CMD_NAMES[c], what),
                   w(c, b, out), errno.EFAULT)
        # the id goes, and so does the answer
        _, victim = ucma.create_id(fd, 5)
        expect("DESTROY_ID, response to %s: EFAULT" % what,
               w(DESTROY_ID, struct.pack("<QII", ptr, victim, 0), 4),
               errno.EFAULT)
        e, _ = ucma.query(fd, victim)
        expect("... and the id is destroyed", e, errno.ENOENT)
        _, mover = ucma.create_id(other, 6)
        expect("MIGRATE_ID, response to %s: EFAULT" % what,
               w(MIGRATE_ID, struct.pack("<QII", ptr, mover, other), 4),
               errno.EFAULT)
        e, _ = ucma.query(fd, mover)
        expect("... and the id has moved", e, 0)

    # -- options
    so = ucma.set_option
    for level, name, what in ((0, 4, "ID, name 4"),
                              (0, 0xffffffff, "ID, name 0xffffffff"),
                              (1, 0, "IB, name 0"), (1, 2, "IB, name 2"),
                              (2, 0, "level 2"),
                              (0xffffffff, 0, "level 0xffffffff")):
        expect("SET_OPTION %s: ENOSYS" % what, so(fd, mine, level, name,
                                                  bytes(4)), errno.ENOSYS)
    for name, n, what in ((0, 0, "TOS, 0 bytes"), (0, 4, "TOS, 4 bytes"),
                          (1, 2, "REUSEADDR, 2 bytes"),
                          (2, 0, "AFONLY, 0 bytes"),
                          (3, 8, "ACK_TIMEOUT, 8 bytes")):
        expect("SET_OPTION %s: EINVAL" % what,
               so(fd, mine, 0, name, bytes(n)), errno.EINVAL)
    for addr, n, what in ((0, 4, "from NULL"),
                          (mem.end, 4, "from an inaccessible page"),
                          (mem.end - 2, 4,
                           "running into an inaccessible page"),
                          (KERNEL_ADDR, 4, "from a kernel address"),
                          (mem.r, 1 << 20, "of 1 MiB from 128 KiB")):
        expect("SET_OPTION TOS %s: EFAULT" % what,
               so(fd, mine, 0, 0, addr=addr, length=n), errno.EFAULT)
    for n in (KMALLOC_MAX_SIZE + 1, 0xffffffff):
        expect("SET_OPTION, optlen %#x: EINVAL" % n,
               so(fd, mine, 0, 0, addr=mem.r, length=n), errno.EINVAL)
    path = bytearray(72 * 3)
    expect("SET_OPTION IB_PATH, 3 records, none primary: EINVAL",
           so(fd, bound, 1, 1, bytes(path)), errno.EINVAL)
    expect("SET_OPTION IB_PATH, 0 bytes: EINVAL",
           so(fd, bound, 1, 1, b""), errno.EINVAL)
    path[72:76] = struct.pack("<I", 0x2b)
    expect("SET_OPTION IB_PATH, 145 bytes: EINVAL",
           so(fd, bound, 1, 1, bytes(path[:145])), errno.EINVAL)
    expect("SET_OPTION IB_PATH, a primary path, not resolving: EINVAL",
           so(fd, bound, 1, 1, bytes(path)), errno.EINVAL)

    # -- what the device does not do
    for what, call, want in (
            ("read()", lambda: os.read(fd, 64), errno.EINVAL),
            ("pwrite()", lambda: os.pwrite(fd, bytes(32), 0), errno.ESPIPE),
            ("lseek()", lambda: os.lseek(fd, 0, 0), errno.ESPIPE),
            ("ioctl()", lambda: fcntl.ioctl(fd, 0xc0181b01, bytes(24)),
             errno.ENOTTY),
            ("mmap()", lambda: mmap.mmap(fd, PAGE), errno.ENODEV)):
        try:
            call()
            e = 0
        except OSError as x:
            e = x.errno
        expect("%s: %s" % (what, errno_name(want)), e, want)

    # -- DESTROY_ID while RESOLVE_IP waits for a neighbour that never
    # answers: in a child, whose hang (uninterruptible) would not stop
    # this checker
    silent = local.rsplit(".", 1)[0] + ".250"

    def resolve_destroy():
        f = ucma.open_dev()
        _, id_ = ucma.create_id(f, 10)
        e = ucma.resolve_ip(f, id_, sin(silent, 7092), timeout_ms=5000)
        e = e or ucma.destroy_id(f, id_)[0]
        os._exit(1 if e else 0)
    report(returns_within(10, resolve_destroy) == 0,
           "DESTROY_ID while RESOLVE_IP to %s waits for its neighbour: "
           "done at once" % silent)

    # -- LISTEN after an ADDR_ERROR: 127.0.0.1 is lo's, which has no RDMA
    # port; the id listens on the wildcard it was bound to, and goes
    def loopback_listen_destroy():
        f = ucma.open_dev()
        _, id_ = ucma.create_id(f, 11)
        if ucma.resolve_ip(f, id_, sin("127.0.0.1", 7093), timeout_ms=1000):
            os._exit(2)
        e, ev = ucma.get_event(f, 10)
        if not ev or ev.event != ucma.ADDR_ERROR or \
                ev.status != -errno.ENODEV:
            os._exit(3)
        e, raw = ucma.query(f, id_)
        if e or raw[20:24] != bytes(4):
            os._exit(4)
        if ucma.listen(f, id_, 1):
            os._exit(5)
        os._exit(6 if ucma.destroy_id(f, id_)[0] else 0)
    r = returns_within(10, loopback_listen_destroy)
    report(r == 0, "RESOLVE_IP 127.0.0.1: ADDR_ERROR ENODEV; the id keeps "
           "its wildcard address, LISTENs, and DESTROY_ID is done at once",
           {2: "RESOLVE_IP failed", 3: "no ADDR_ERROR with -ENODEV",
            4: "QUERY: not the wildcard address any more",
            5: "LISTEN failed", 6: "DESTROY_ID failed",
            None: "no answer within 10 s"}.get(r, r))

    # -- an id after a BIND_IP that found its port taken (undone)
    _, first = ucma.create_id(fd, 7)
    _, again = ucma.create_id(fd, 8)
    expect("BIND_IP %s:7090" % local,
           ucma.bind_ip(fd, first, sin(local, 7090)), 0)
    expect("BIND_IP of another id there: EADDRINUSE",
           ucma.bind_ip(fd, again, sin(local, 7090)), errno.EADDRINUSE)
    expect("... then BIND_IP %s:7091" % local,
           ucma.bind_ip(fd, again, sin(local, 7091)), 0)
    listed = [ln for ln in ucma.cm_ids().splitlines()
              if "pid %d " % os.getpid() in ln]
    report(len(listed) == 2 and "%s:7091" % local in "".join(listed),
           "rdma res show cm_id: both, with this process's pid",
           "\n".join(listed))
    _, third = ucma.create_id(fd, 9)
    expect("BIND_IP of a third id to %s:7090: EADDRINUSE" % local,
           ucma.bind_ip(fd, third, sin(local, 7090)), errno.EADDRINUSE)
    expect("... then LISTEN (on the wildcard, every device)",
           ucma.listen(fd, third, 1), 0)
    os.close(fd)
    os.close(other)


def returns_within(secs, fn):
    """The exit status of @fn run in a child process, or None if it did
    not end within @secs: a child stuck in the kernel stays behind,
    without this checker's output.  (A child has credentials of its own:
    it opens its own files.)"""
    pid = os.fork()
    if pid == 0:
        null = os.open("/dev/null", os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            fn()
        finally:
            os._exit(1)
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    return None


def id_commands(id_, resp, fd):
    """A well-formed command naming @id_ for every command that takes an
    id (MIGRATE_ID from the file @fd)."""
    p = ucma.conn_param(1)
    return [(DESTROY_ID, struct.pack("<QII", resp, id_, 0)),
            (BIND_IP, struct.pack("<Q", 0) + ucma.in6(sin("0.0.0.0")) +
             struct.pack("<I", id_)),
            (BIND, struct.pack("<IHH", id_, 16, 0) +
             ucma.kss(sin("0.0.0.0"))),
            (RESOLVE_IP, ucma.in6(b"") + ucma.in6(sin("10.99.99.99", 1)) +
             struct.pack("<II", id_, 100)),
            (RESOLVE_ADDR, struct.pack("<IIHHI", id_, 100, 0, 16, 0) +
             ucma.kss(b"") + ucma.kss(sin("10.99.99.99", 1))),
            (RESOLVE_ROUTE, struct.pack("<II", id_, 100)),
            (QUERY_ROUTE, struct.pack("<QII", resp, id_, 0)),
            (CONNECT, p + struct.pack("<IIII", id_, 0, 0, 0)),
            (LISTEN, struct.pack("<II", id_, 1)),
            (ACCEPT, struct.pack("<Q", 1) + p +
             struct.pack("<IIII", id_, 0, 0, 0)),
            (REJECT, struct.pack("<IBB2x256s", id_, 0, 0, b"")),
            (DISCONNECT, struct.pack("<I", id_)),
            (INIT_QP_ATTR, struct.pack("<QII", resp, id_, 1)),
            (SET_OPTION, struct.pack("<QIIII", resp, id_, 0, 0, 1)),
            (NOTIFY, struct.pack("<II", id_, 0)),
            (JOIN_IP_MCAST, struct.pack("<QQ", resp, 1) +
             ucma.in6(sin("239.1.1.1")) + struct.pack("<I", id_)),
            (JOIN_MCAST, struct.pack("<QQIHH", resp, 1, id_, 16, 0) +
             ucma.kss(sin("239.1.1.1"))),
            (MIGRATE_ID, struct.pack("<QII", resp, id_, fd)),
            (QUERY, struct.pack("<QII", resp, id_, 0))]


# --- the random run ----------------------------------------------------------

# What each command may answer besides success.  Errnos of the framing and
# the lookups go to every command; the rest are the RDMA CM's own.
COMMON = {errno.EINVAL, errno.EFAULT, errno.ENOENT, errno.ENOSPC}
ADDR = {errno.EAFNOSUPPORT, errno.EADDRNOTAVAIL, errno.EADDRINUSE,
        errno.ENODEV, errno.EPROTONOSUPPORT, errno.EACCES}
ALLOWED = collections.defaultdict(lambda: {errno.EINVAL}, {
    GET_OPTION: {errno.ENOSYS, errno.EINVAL},
    GET_EVENT: COMMON | {errno.EAGAIN},
    QUERY: COMMON | {errno.ENOSYS},
    SET_OPTION: COMMON | {errno.ENOSYS, errno.ENOMEM},
    BIND_IP: COMMON | ADDR,
    BIND: COMMON | ADDR,
    RESOLVE_IP: COMMON | ADDR | {errno.ENETUNREACH},
    RESOLVE_ADDR: COMMON | ADDR | {errno.ENETUNREACH},
    LISTEN: COMMON | ADDR,
    # a UD id of the IPoIB port space takes the Q_Key of the broadcast
    # group, which the SA client may not know (upstream too)
    INIT_QP_ATTR: COMMON | {errno.EADDRNOTAVAIL},
    JOIN_IP_MCAST: COMMON | {errno.EADDRINUSE, errno.EADDRNOTAVAIL,
                             errno.ENODEV},
    JOIN_MCAST: COMMON | {errno.EADDRINUSE, errno.EADDRNOTAVAIL,
                          errno.ENODEV},
})
for c in (CREATE_ID, DESTROY_ID, RESOLVE_ROUTE, QUERY_ROUTE, CONNECT, ACCEPT,
          REJECT, DISCONNECT, NOTIFY, LEAVE_MCAST, MIGRATE_ID):
    ALLOWED[c] = COMMON
# Where the response pointer is in a command's structure.
PTR_AT = {CREATE_ID: 8, DESTROY_ID: 0, QUERY_ROUTE: 0, QUERY: 0,
          INIT_QP_ATTR: 0, MIGRATE_ID: 0, LEAVE_MCAST: 0, GET_EVENT: 0,
          JOIN_IP_MCAST: 0, JOIN_MCAST: 0}
# The most a response may hold.
RESP_MAX = {CREATE_ID: 4, DESTROY_ID: 4, MIGRATE_ID: 4, JOIN_IP_MCAST: 4,
            JOIN_MCAST: 4, LEAVE_MCAST: 4, QUERY_ROUTE: 208, QUERY: 280,
            INIT_QP_ATTR: 144, GET_EVENT: 336}
INTERESTING = [0, 1, 2, 7, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
               0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff]


class Fuzzer:
    def __init__(self, mem, seed, local, peer):
        self.mem = mem
        self.rng = random.Random(seed)
        self.local = local
        self.peer = peer
        self.errnos = collections.Counter()
        self.bad = []
        self.calls = 0
        self.fd = self.other = None
        self.trace = bool(os.environ.get("UCMA_FUZZ_TRACE"))

    def u32(self):
        r = self.rng.random()
        if r < 0.5:
            return self.rng.choice(INTERESTING)
        return self.rng.getrandbits(32)

    def pick_id(self):
        r = self.rng.random()
        if r < 0.7 and self.ids:
            return self.rng.choice(self.ids)
        if r < 0.8:
            return self.theirs
        if r < 0.85:
            return self.gone
        return self.u32()

    def ptr(self):
        """A response (or option value) pointer: mostly the scratch
        area, whose canary tells whether more was written than allowed"""
        r = self.rng.random()
        if r < 0.8:
            return self.mem.r
        return self.rng.choice([0, self.mem.end, self.mem.ro, KERNEL_ADDR,
                                NONCANONICAL, self.mem.end - 2])

    def port(self):
        return self.rng.choice([0, 0, 7100, 7101, 7102, 7103, 100,
                                self.rng.getrandbits(16)])

    def sockaddr(self):
        r = self.rng.random()
        if r < 0.3:
            return sin(self.rng.choice(
                [self.local, self.peer, "0.0.0.0", "127.0.0.1",
                 "10.99.99.99", "239.1.2.3", "255.255.255.255"]),
                self.port())
        if r < 0.5:
            return sin6(self.rng.choice(["::", "::1", "fe80::1", "ff02::1",
                                         "fd99::9"]), self.port(),
                        scope=self.rng.choice([0, 0, 1, 2, 3, 0xffffffff]))
        if r < 0.7:
            return sib(self.rng.choice([bytes(16), self.gid,
                                        self.rng.randbytes(16)]),
                       self.rng.choice([ucma.RDMA_IB_IP_PS_TCP,
                                        0x0000000001110000,
                                        0x00000000013f0000,
                                        self.rng.getrandbits(64)]) |
                       self.port(),
                       self.rng.choice([0, ucma.RDMA_IB_IP_PS_MASK,
                                        (1 << 64) - 1]),
                       self.rng.choice([0xffff, 0, 0x8001]))
        fam = self.rng.choice([0, 1, 10, 27, 0xffff, self.rng.getrandbits(16)])
        return struct.pack("<H", fam) + \
            self.rng.randbytes(self.rng.choice([14, 26, 46, 126]))

    def size_of(self, sa):
        if self.rng.random() < 0.8:
            fam = struct.unpack_from("<H", sa)[0]
            return {2: 16, 10: 28, 27: 48}.get(fam, len(sa))
        return self.rng.choice([0, 1, 15, 16, 28, 48, 128, 129, 0xffff])

    def param(self):
        pd = self.rng.randbytes(self.rng.choice([0, 5, 56, 148, 196, 255]))
        return struct.pack("<II256sBBBBBBBB", self.u32(), self.u32(), pd,
                           len(pd) if self.rng.random() < 0.8 else
                           self.rng.getrandbits(8),
                           *[self.rng.getrandbits(8) for _ in range(7)]) \
            if self.rng.random() < 0.5 else \
            ucma.conn_param(self.u32() & 0xffffff, pd,
                            valid=self.rng.choice([0, 1, 1, 1]))

    def body(self, c):
        """A structure for command @c, made of good and bad values"""
        i, p, rng = self.pick_id, self.ptr, self.rng
        if c == CREATE_ID:
            return struct.pack("<QQHB5x", rng.getrandbits(64), p(),
                               rng.choice([PS_TCP, PS_UDP, PS_IB, PS_IPOIB,
                                           PS_TCP, self.u32() & 0xffff]),
                               rng.choice([0, 2, 3, 4, rng.getrandbits(8)]))
        if c in (DESTROY_ID, QUERY_ROUTE):
            return struct.pack("<QII", p(), i(), rng.choice([0, self.u32()]))
        if c == MIGRATE_ID:
            return struct.pack("<QII", p(), i(), rng.choice(
                [self.fd, self.other, self.other, 0, 0xffffffff,
                 self.u32()]))
        if c == BIND_IP:
            return struct.pack("<Q", rng.getrandbits(64)) + \
                ucma.in6(self.sockaddr()) + struct.pack("<I", i())
        if c == BIND:
            sa = self.sockaddr()
            return struct.pack("<IHH", i(), self.size_of(sa),
                               rng.choice([0, 0, 0, 1])) + ucma.kss(sa)
        if c == RESOLVE_IP:
            src = self.sockaddr() if rng.random() < 0.3 else b""
            return ucma.in6(src) + ucma.in6(self.sockaddr()) + \
                struct.pack("<II", i(), self.timeout())
        if c == RESOLVE_ADDR:
            src = self.sockaddr() if rng.random() < 0.3 else b""
            dst = self.sockaddr()
            return struct.pack("<IIHHI", i(), self.timeout(),
                               self.size_of(src) if src else 0,
                               self.size_of(dst), rng.choice([0, 0, 0, 1])) + \
                ucma.kss(src) + ucma.kss(dst)
        if c == RESOLVE_ROUTE:
            return struct.pack("<II", i(), self.timeout())
        if c == CONNECT:
            return self.param() + struct.pack("<IIII", i(), self.u32(),
                                              self.u32(), self.u32())
        if c == LISTEN:
            return struct.pack("<II", i(), self.u32())
        if c == ACCEPT:
            return struct.pack("<Q", rng.getrandbits(64)) + self.param() + \
                struct.pack("<IIII", i(), self.u32(), self.u32(), self.u32())
        if c == REJECT:
            return struct.pack("<IBB2x256s", i(), rng.getrandbits(8),
                               rng.choice([0, 28, 35, rng.getrandbits(8)]),
                               self.rng.randbytes(rng.choice([0, 16, 148])))
        if c == DISCONNECT:
            return struct.pack("<I", i())
        if c == INIT_QP_ATTR:
            return struct.pack("<QII", p(), i(), rng.choice(
                [0, 1, 2, 3, 4, 5, 6, 7, self.u32()]))
        if c == GET_EVENT:
            return struct.pack("<Q", p())
        if c == SET_OPTION:
            level = rng.choice([0, 0, 1, 2, self.u32()])
            name = rng.choice([0, 1, 2, 3, 4, self.u32()])
            length = rng.choice([0, 1, 2, 4, 8, 72, 144, 145, 4096,
                                 KMALLOC_MAX_SIZE + 1, self.u32()])
            val = self.rng.randbytes(min(length, 4096))
            if level == 1 and rng.random() < 0.5:
                val = bytearray(val)
                for k in range(0, len(val) - 71, 72):
                    val[k:k + 4] = struct.pack("<I", 0x2b)
                val = bytes(val)
            ctypes.memmove(self.mem.r + 8 * PAGE, val, len(val))
            ptr = rng.choice([self.mem.r + 8 * PAGE] * 4 + [p()])
            return struct.pack("<QIIII", ptr, i(), level, name, length)
        if c == NOTIFY:
            return struct.pack("<II", i(), self.u32())
        if c == JOIN_IP_MCAST:
            return struct.pack("<QQ", p(), rng.getrandbits(64)) + \
                ucma.in6(self.mcast()) + struct.pack("<I", i())
        if c == JOIN_MCAST:
            sa = self.mcast()
            return struct.pack("<QQIHH", p(), rng.getrandbits(64), i(),
                               self.size_of(sa), rng.choice(
                                   [0, 1, 2, self.u32() & 0xffff])) + \
                ucma.kss(sa)
        if c == LEAVE_MCAST:
            return struct.pack("<QII", p(), rng.choice(
                self.groups + [self.u32()]), 0)
        if c == QUERY:
            return struct.pack("<QII", p(), i(), rng.choice(
                [0, 1, 2, 0, 1, 2, 3, self.u32()]))
        return self.rng.randbytes(self.rng.choice([0, 8, 24, 64, 300]))

    def mcast(self):
        if self.rng.random() < 0.5:
            return sin(self.rng.choice(["239.1.2.3", "224.0.0.1",
                                        "10.99.99.99"]))
        return self.sockaddr()

    def timeout(self):
        return self.rng.choice([0, 1, 100, 2000, 0xffffffff])

    def epoch_start(self):
        """Two files; ids in several states for the random commands: one
        bound to vmlx0 by AF_IB, a listener on LOCAL_IP:7100, a UD id
        resolving PEER_IP, an idle UD one, and one with a route to the
        listener (so that a random CONNECT can reach it)."""
        self.fd = ucma.open_dev(nonblock=True)
        self.other = ucma.open_dev(nonblock=True)
        _, self.theirs = ucma.create_id(self.other, 1)
        # a number just freed (until a CREATE_ID takes it again)
        _, self.gone = ucma.create_id(self.fd, 1)
        ucma.destroy_id(self.fd, self.gone)
        self.ids = []
        self.groups = []
        for ps in (PS_TCP, PS_TCP, PS_UDP, PS_IB, PS_TCP):
            e, id_ = ucma.create_id(self.fd, 0x100 + len(self.ids), ps=ps,
                                    qp_type=4)
            if not e:
                self.ids.append(id_)
        bound, lis, ud, _, routed = self.ids
        ucma.bind(self.fd, bound, sib(self.gid, ucma.RDMA_IB_IP_PS_TCP,
                                      ucma.RDMA_IB_IP_PS_MASK))
        ucma.bind_ip(self.fd, lis, sin(self.local, 7100))
        ucma.listen(self.fd, lis, 8)
        ucma.resolve_ip(self.fd, ud, sin(self.peer, 7100))
        evs = ucma.Events(self.fd)
        if not ucma.resolve_ip(self.fd, routed, sin(self.local, 7100)) and \
                evs.wait(routed, ucma.ADDR_RESOLVED, 5):
            ucma.resolve_route(self.fd, routed)
            evs.wait(routed, ucma.ROUTE_RESOLVED, 5)

    def epoch_end(self):
        os.close(self.fd)
        os.close(self.other)

    def one(self, n):
        rng = self.rng
        if rng.random() < 0.93:
            c = rng.randrange(ucma.NCMDS)
        else:
            c = rng.choice([23, 24, 0xff, 0x80000000, 0xffffffff,
                            rng.getrandbits(32)])
        body = self.body(c) if c < ucma.NCMDS else rng.randbytes(24)
        # a response pointer is one of ptr()'s, never a random address:
        # the kernel may write wherever a pointer says
        at = PTR_AT.get(c)
        if rng.random() < 0.15 and body:
            body = bytearray(body)
            for _ in range(rng.choice([1, 2, 8])):
                k = rng.randrange(len(body))
                if at is None or not at <= k < at + 8:
                    body[k] = rng.getrandbits(8)
            body = bytes(body)
        if rng.random() < 0.75:
            in_len = len(body)
        else:
            in_len = rng.choice([0, 1, max(0, len(body) - 1), len(body) + 1,
                                 rng.randrange(400), 0xffff])
            if at is not None and at < in_len < at + 8:
                in_len = at
        if rng.random() < 0.8:
            body = body.ljust(in_len, b"\0")
        full = RESP_MAX.get(c, 0)
        out = full if rng.random() < 0.7 else rng.choice(
            [0, 1, 3, max(0, full - 1), full + 1, 324, 0xffff,
             rng.getrandbits(16)])
        data = hdr(c, in_len, out) + body
        length = len(data)
        if rng.random() < 0.05:
            length = rng.choice([0, 4, 8, max(0, length - 1)])
        # The command ends where the inaccessible page begins, so that
        # nothing beyond it can be read unnoticed.  The first page of the
        # scratch area, where responses go, holds a canary: only the
        # response may change it.
        ptr = None
        if at is not None and in_len >= at + 8 and len(body) >= at + 8:
            ptr = struct.unpack_from("<Q", body, at)[0]
        resp_len = min(out, full) if ptr == self.mem.r else 0
        self.mem.fill(PAGE)
        addr = self.mem.put(data, at_end=True)
        if self.trace:
            print("# %d: %s length %d" % (n, data.hex(), length), flush=True)
        e = raw_write(self.fd, addr, length)
        if self.trace:
            print("#   %s" % errno_name(e), flush=True)
        self.calls += 1
        self.errnos[e] += 1
        what = "#%d %s in %d out %d length %d" % (
            n, ucma.CMD_NAMES[c] if c < ucma.NCMDS else "cmd %#x" % c,
            in_len, out, length)
        if e and e not in ALLOWED[c]:
            self.bad.append("%s: %s" % (what, errno_name(e)))
        tail = self.mem.get(PAGE - resp_len, resp_len)
        if tail != b"\x5a" * len(tail):
            first = next(k for k, b in enumerate(tail) if b != 0x5a)
            self.bad.append("%s: wrote beyond %d bytes (byte %d)" %
                            (what, resp_len, resp_len + first))
        if e == 0 and resp_len == 4 and c == CREATE_ID:
            self.ids.append(struct.unpack("<I", self.mem.get(4))[0])
        if e == 0 and resp_len == 4 and c in (JOIN_IP_MCAST, JOIN_MCAST):
            self.groups.append(struct.unpack("<I", self.mem.get(4))[0])

    def run(self, iterations):
        self.gid = ucma.port_gid("vmlx0")
        n = 0
        while n < iterations:
            self.epoch_start()
            for _ in range(min(EPOCH, iterations - n)):
                self.one(n)
                n += 1
            self.epoch_end()


def main():
    iterations, local, peer = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    seed = os.environ.get("UCMA_FUZZ_SEED")
    seed = int(seed) if seed else random.SystemRandom().getrandbits(32)
    mem = Memory()

    start = time.monotonic()
    fixed(mem, local)
    print("# fixed list: %.1f s" % (time.monotonic() - start))

    start = time.monotonic()
    fz = Fuzzer(mem, seed, local, peer)
    fz.run(iterations)
    summary = ", ".join("%s %d" % (errno_name(e), n)
                        for e, n in fz.errnos.most_common())
    print("# %d random commands in %.1f s: %s" %
          (fz.calls, time.monotonic() - start, summary))
    report(not fz.bad, "%d random commands, seed %d (UCMA_FUZZ_SEED=%d "
           "replays them): each answered with an errno of its command and "
           "wrote no more than its response" % (fz.calls, seed, seed),
           "\n".join(fz.bad[:20] + (["... %d more" % (len(fz.bad) - 20)]
                                     if len(fz.bad) > 20 else [])))
    report(fz.errnos[0] > iterations // 20 and len(fz.errnos) >= 5,
           "the random commands reached the handlers (successes and at "
           "least 5 errnos)", summary)
    fd = ucma.open_dev()
    e, id_ = ucma.create_id(fd, 1)
    e2, rep = ucma.destroy_id(fd, id_) if not e else (e, 0)
    report(e == 0 and e2 == 0, "afterwards a new file works", (e, e2))
    os.close(fd)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
