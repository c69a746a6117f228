#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Raw RDMA_VERBS_IOCTL calls against /dev/infiniband/uverbsN, for the
# uverbs-ioctl scenario: libibverbs's probe, the errno of every kind of
# malformed header or attribute, and the results of the methods we have
# (INVOKE_WRITE, GET_CONTEXT, QUERY_PORT, QUERY_GID_ENTRY, QUERY_GID_TABLE,
# ASYNC_EVENT/ALLOC, the creates of CQ, QP and SRQ with rxe's driver data
# and their rings, the destroys of PD, MR, AH, CQ, QP, SRQ).  Prints one
# line per check, "ok <what>" or "not ok <what>" (checker.py), which the
# scenario turns into TAP.
#
#   uverbs_ioctl.py abi DEV IBDEV         fixed checks
#   uverbs_ioctl.py random DEV N [SEED]   N calls mutated from valid ones;
#                                         each must return with an errno of
#                                         ALLOWED; then a fresh open,
#                                         GET_CONTEXT and ALLOC_PD must work
import ctypes
import errno
import mmap
import os
import random
import re
import struct
import subprocess
import sys

from checker import (RDMA_VERBS_IOCTL, UVERBS_EXTENDED, Buf, errno_name,
                     exit_status, expect, report, sysfs, uverbs_hdr,
                     uverbs_write)

DRIVER_RXE = 14
MANDATORY, VALID_OUTPUT = 1, 2
UHW_IN, UHW_OUT = 0x1000, 0x1001

# objects and methods
DEVICE, PD, CQ, QP, SRQ, AH, MR, ASYNC_EVENT = 0, 1, 3, 4, 5, 6, 7, 16
INVOKE_WRITE, QUERY_PORT, GET_CONTEXT, QUERY_CONTEXT = 0, 2, 3, 4
QUERY_GID_TABLE, QUERY_GID_ENTRY = 5, 6
# INVOKE_WRITE attributes
CORE_IN, CORE_OUT, WRITE_CMD = 0, 1, 2
# write() commands
W_GET_CONTEXT, W_QUERY_DEVICE, W_QUERY_PORT, W_ALLOC_PD = 0, 1, 2, 3
W_CREATE_AH, W_REG_MR, W_CREATE_CQ, W_CREATE_QP = 5, 9, 18, 24
W_CREATE_SRQ = 32
W_CREATE_COMP_CHANNEL, W_DESTROY_CQ, W_QUERY_QP, W_DESTROY_QP = 17, 20, 25, 27
W_DESTROY_SRQ = 35
# CQ/QP/SRQ methods
CREATE, DESTROY = 0, 1
# CQ/CREATE attributes
CQ_HANDLE, CQ_CQE, CQ_USER_HANDLE, CQ_COMP_CHANNEL, CQ_COMP_VECTOR = 0, 1, 2, 3, 4
CQ_FLAGS, CQ_RESP_CQE, CQ_EVENT_FD = 5, 6, 7
# QP/CREATE attributes
QP_HANDLE, QP_XRCD, QP_PD, QP_SRQ, QP_SEND_CQ, QP_RECV_CQ = 0, 1, 2, 3, 4, 5
QP_IND_TABLE, QP_USER_HANDLE, QP_CAP, QP_TYPE, QP_FLAGS = 6, 7, 8, 9, 10
QP_SOURCE_QPN, QP_EVENT_FD, QP_RESP_CAP, QP_RESP_QP_NUM = 11, 12, 13, 14
# SRQ/CREATE attributes
SRQ_HANDLE, SRQ_PD, SRQ_XRCD, SRQ_CQ, SRQ_USER_HANDLE = 0, 1, 2, 3, 4
SRQ_MAX_WR, SRQ_MAX_SGE, SRQ_LIMIT, SRQ_MAX_NUM_TAGS, SRQ_TYPE = 5, 6, 7, 8, 9
SRQ_EVENT_FD, SRQ_RESP_MAX_WR, SRQ_RESP_MAX_SGE, SRQ_RESP_SRQ_NUM = \
    10, 11, 12, 13
QPT_RC, QPT_UC, QPT_UD, QPT_RAW, QPT_XRC_INI, QPT_XRC_TGT = 2, 3, 4, 8, 9, 10
QP_SQ_SIG_ALL, QP_BLOCK_MCAST_LOOPBACK, QP_SCATTER_FCS = 1 << 12, 2, 1 << 8

# Every errno a call may end with in the random mode.
ALLOWED = {0, errno.EINVAL, errno.EPROTONOSUPPORT, errno.EOPNOTSUPP,
           errno.ENOSPC, errno.EFAULT, errno.ENOENT, errno.EBUSY,
           errno.ENODATA, errno.ENOMEM, errno.EMFILE, errno.EBADF}

libc = ctypes.CDLL(None, use_errno=True)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
libc.ioctl.restype = ctypes.c_int

def attr(attr_id, data=0, length=0, flags=MANDATORY, attr_data=0):
    return struct.pack("<HHHHQ", attr_id, length, flags, attr_data,
                       data & (2**64 - 1))


def inline(attr_id, value, length=8, flags=MANDATORY):
    """A PTR_IN/CONST attribute with the value inline."""
    return attr(attr_id, value, length, flags)


def ptr(attr_id, buf, length=None, flags=MANDATORY):
    return attr(attr_id, buf.addr, buf.size if length is None else length,
                flags)


class Call:
    """One ioctl: header and attributes in one user buffer."""

    def __init__(self, obj, method, attrs, driver_id=DRIVER_RXE,
                 length=None, num=None, res1=0, res2=0):
        body = b"".join(attrs)
        n = len(attrs) if num is None else num
        length = 24 + len(body) if length is None else length
        data = struct.pack("<HHHHQII", length & 0xffff, obj, method,
                           n & 0xffff, res1, driver_id, res2) + body
        self.buf = ctypes.create_string_buffer(data, len(data))

    def run(self, fd, addr=None):
        ret = libc.ioctl(fd, RDMA_VERBS_IOCTL,
                         ctypes.addressof(self.buf) if addr is None else addr)
        return ctypes.get_errno() if ret else 0

    def attr_out(self, i):
        """(flags, data) of attribute i after the call."""
        return struct.unpack_from("<4xH2xQ", self.buf.raw, 24 + 16 * i)

    def out_flags(self, attr_id):
        """The flags of the (first) attribute with id attr_id after the
        call."""
        n = struct.unpack_from("<H", self.buf.raw, 6)[0]
        for i in range(n):
            if struct.unpack_from("<H", self.buf.raw, 24 + 16 * i)[0] == \
                    attr_id:
                return self.attr_out(i)[0]
        return 0


def call(fd, obj, method, attrs, **kw):
    c = Call(obj, method, attrs, **kw)
    return c.run(fd), c


def probe(fd, **kw):
    return call(fd, DEVICE, INVOKE_WRITE, [inline(WRITE_CMD, W_QUERY_DEVICE)],
                **kw)[0]


def invoke_write(fd, cmd, core_in, out_len, uhw_out=0, uhw_in=None):
    """INVOKE_WRITE: errno, response bytes, call, driver response."""
    attrs = [inline(WRITE_CMD, cmd)]
    keep = []
    if core_in is not None:
        if len(core_in) <= 8:
            attrs.append(inline(CORE_IN,
                                int.from_bytes(core_in, "little"),
                                len(core_in)))
        else:
            b = Buf(len(core_in))
            b.mem.raw = core_in
            keep.append(b)
            attrs.append(ptr(CORE_IN, b))
    out = Buf(max(out_len, 1), 0xff)
    if out_len:
        attrs.append(ptr(CORE_OUT, out, out_len))
    drv = Buf(max(uhw_out, 1))
    if uhw_out:
        attrs.append(ptr(UHW_OUT, drv, uhw_out, 0))
    if uhw_in is not None:
        attrs.append(inline(UHW_IN, uhw_in, 8, 0))
    e, c = call(fd, DEVICE, INVOKE_WRITE, attrs)
    return e, out.raw()[:out_len], c, drv.raw()[:uhw_out]


def get_context(fd):
    nvec, core = Buf(4), Buf(8)
    e, c = call(fd, DEVICE, GET_CONTEXT,
                [ptr(0, nvec, flags=0), ptr(1, core, flags=0)])
    return (e, struct.unpack("<I", nvec.raw())[0],
            struct.unpack("<Q", core.raw())[0], c)


def async_alloc(fd):
    e, c = call(fd, ASYNC_EVENT, 0, [attr(0)])
    return e, c.attr_out(0)[1]


def alloc_pd(fd):
    e, out, _, _ = invoke_write(fd, W_ALLOC_PD, bytes(8), 4)
    return e, struct.unpack("<I", out)[0]


def destroy(fd, obj, method, handle, resp_len=None):
    attrs = [attr(0, handle)]
    resp = None
    if resp_len is not None:
        resp = Buf(resp_len, 0xff)
        attrs.append(ptr(1, resp))
    e, c = call(fd, obj, method, attrs)
    return e, resp.raw() if resp else b"", c


def query_port(fd, port, resp_len=48, fill=0xff):
    resp = Buf(resp_len, fill)
    e, c = call(fd, DEVICE, QUERY_PORT, [inline(0, port), ptr(1, resp)])
    return e, resp.raw(), c


def gid_entry(fd, port, index, flags=0, resp_len=32, flags_len=4):
    resp = Buf(resp_len, 0xff)
    attrs = [inline(0, port), inline(1, index),
             inline(2, flags, flags_len), ptr(3, resp)]
    e, c = call(fd, DEVICE, QUERY_GID_ENTRY, attrs)
    return e, resp.raw(), c


def gid_table(fd, entry_size, count, buf_len=None):
    length = entry_size * count if buf_len is None else buf_len
    entries, num = Buf(max(length, 1), 0xff), Buf(8)
    attrs = [inline(0, entry_size), ptr(2, entries, length), ptr(3, num)]
    e, c = call(fd, DEVICE, QUERY_GID_TABLE, attrs)
    return e, entries.raw()[:length], struct.unpack("<Q", num.raw())[0], c


def sysfs_gid(ibdev, port, index):
    text = sysfs("/sys/class/infiniband/%s/ports/%d/gids/%d" %
                 (ibdev, port, index))
    return bytes.fromhex(text.replace(":", ""))


def open_dev(dev):
    return os.open(dev, os.O_RDWR | os.O_CLOEXEC)


# ------------------------------------------------------------------------
# Fixed checks
# ------------------------------------------------------------------------

def framing(dev):
    fd = open_dev(dev)
    expect("probe (QUERY_DEVICE, no CORE_IN) without context", probe(fd),
           errno.ENOSPC)
    expect("header length 16 < 24", probe(fd, length=16), errno.EINVAL)
    expect("header length one attribute too long", probe(fd, length=56),
           errno.EINVAL)
    expect("header num_attrs 0 with one attribute", probe(fd, num=0),
           errno.EINVAL)
    big = Call(DEVICE, INVOKE_WRITE, [inline(WRITE_CMD, 1)] * 300)
    expect("header length > PAGE_SIZE", big.run(fd), errno.EINVAL)
    expect("reserved1 set", probe(fd, res1=1), errno.EPROTONOSUPPORT)
    expect("reserved2 set", probe(fd, res2=1), errno.EPROTONOSUPPORT)
    expect("driver_id 0", probe(fd, driver_id=0), errno.EINVAL)
    expect("driver_id mlx5 (4)", probe(fd, driver_id=4), errno.EINVAL)
    expect("unknown object 99", call(fd, 99, 0, [])[0],
           errno.EPROTONOSUPPORT)
    expect("unknown method DEVICE/99", call(fd, DEVICE, 99, [])[0],
           errno.EPROTONOSUPPORT)
    expect("unimplemented DEVICE/QUERY_CONTEXT",
           call(fd, DEVICE, QUERY_CONTEXT, [])[0], errno.EPROTONOSUPPORT)
    expect("unimplemented MW/DESTROY", call(fd, 8, 0, [attr(0, 0)])[0],
           errno.EPROTONOSUPPORT)
    r = libc.ioctl(fd, 0xC0181B02, ctypes.addressof(Buf(24).mem))
    expect("other ioctl command", ctypes.get_errno() if r else 0,
           errno.ENOTTY)
    c = Call(DEVICE, INVOKE_WRITE, [inline(WRITE_CMD, 1)])
    expect("header at a bad address", c.run(fd, 8), errno.EFAULT)

    # header at the end of a page, its attribute on an unmapped one
    m = mmap.mmap(-1, 2 * mmap.PAGESIZE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.mprotect(base + mmap.PAGESIZE, mmap.PAGESIZE, 0)
    hdr = c.buf.raw[:24]
    m[mmap.PAGESIZE - 24:mmap.PAGESIZE] = hdr
    expect("attributes on an inaccessible page",
           c.run(fd, base + mmap.PAGESIZE - 24), errno.EFAULT)
    libc.mprotect(base + mmap.PAGESIZE, mmap.PAGESIZE, 3)
    del c
    m.close()

    def w(attrs):
        return call(fd, DEVICE, INVOKE_WRITE, attrs)[0]

    expect("unknown attribute 7, mandatory",
           w([inline(WRITE_CMD, 1), inline(7, 0)]), errno.EPROTONOSUPPORT)
    expect("unknown attribute 7, optional: ignored",
           w([inline(WRITE_CMD, 1), inline(7, 0, flags=0)]), errno.ENOSPC)
    expect("unknown flag bits on a known attribute: ignored",
           w([inline(WRITE_CMD, 1, flags=0xfff1)]), errno.ENOSPC)
    expect("duplicate WRITE_CMD",
           w([inline(WRITE_CMD, 1), inline(WRITE_CMD, 1)]), errno.EINVAL)
    expect("missing mandatory WRITE_CMD", w([inline(CORE_IN, 0)]),
           errno.EINVAL)
    expect("WRITE_CMD of 4 bytes", w([inline(WRITE_CMD, 1, 4)]),
           errno.EINVAL)
    expect("WRITE_CMD with attr_data set",
           w([attr(WRITE_CMD, 1, 8, MANDATORY, 1)]), errno.EINVAL)
    expect("WRITE_CMD > U32_MAX", w([inline(WRITE_CMD, 1 << 32)]),
           errno.EINVAL)
    expect("WRITE_CMD with bits beyond EXTENDED",
           w([inline(WRITE_CMD, 0x40000001)]), errno.EINVAL)
    expect("WRITE_CMD unknown (99)", w([inline(WRITE_CMD, 99)]),
           errno.EOPNOTSUPP)
    expect("WRITE_CMD unknown extended (99)",
           w([inline(WRITE_CMD, UVERBS_EXTENDED | 99)]), errno.EOPNOTSUPP)
    expect("CORE_IN of 2 bytes (< 4)",
           w([inline(WRITE_CMD, 1), inline(CORE_IN, 0, 2)]), errno.EINVAL)
    e, _, _, _ = invoke_write(fd, W_QUERY_DEVICE, bytes(8), 176)
    expect("QUERY_DEVICE via INVOKE_WRITE without context", e, errno.EINVAL)
    e, _, _ = query_port(fd, 1)
    expect("QUERY_PORT without context", e, errno.EINVAL)
    expect("ASYNC_EVENT/ALLOC without context", async_alloc(fd)[0],
           errno.EINVAL)
    e, _, _ = gid_entry(fd, 1, 0)
    expect("QUERY_GID_ENTRY without context", e, errno.EINVAL)
    expect("PD/DESTROY without context", destroy(fd, PD, 0, 0)[0],
           errno.ENOENT)
    os.close(fd)


def context(dev):
    fd = open_dev(dev)
    e, nvec, core, c = get_context(fd)
    expect("GET_CONTEXT", e, 0)
    report(nvec >= 1, "GET_CONTEXT: num_comp_vectors >= 1", str(nvec))
    report(core == 1, "GET_CONTEXT: core_support = OPTIONAL_MR_ACCESS",
           str(core))
    report(all(c.attr_out(i)[0] & VALID_OUTPUT for i in (0, 1)),
           "GET_CONTEXT: outputs flagged VALID_OUTPUT")
    expect("second GET_CONTEXT", get_context(fd)[0], errno.EINVAL)
    e, _, _, _ = invoke_write(fd, W_GET_CONTEXT, bytes(8), 8)
    expect("GET_CONTEXT via INVOKE_WRITE after the method", e, errno.EINVAL)
    e, afd = async_alloc(fd)
    expect("ASYNC_EVENT/ALLOC", e, 0)
    link = os.readlink("/proc/self/fd/%d" % afd) if not e else ""
    report(link == "anon_inode:[infinibandevent]",
           "ASYNC_EVENT/ALLOC: the fd is an event file", link)
    try:
        os.set_blocking(afd, False)
        os.read(afd, 16)
        got = 0
    except OSError as ex:
        got = ex.errno
    expect("async fd: non-blocking read with no event", got, errno.EAGAIN)
    expect("second ASYNC_EVENT/ALLOC", async_alloc(fd)[0], errno.EINVAL)
    os.close(afd)
    return fd


def device(fd, ibdev):
    e, out, c, _ = invoke_write(fd, W_QUERY_DEVICE, bytes(8), 176)
    expect("INVOKE_WRITE QUERY_DEVICE", e, 0)
    guid = sysfs("/sys/class/infiniband/%s/node_guid" % ibdev)
    report(out[8:16] == bytes.fromhex(guid.replace(":", "")),
           "INVOKE_WRITE QUERY_DEVICE: node_guid as sysfs", out[8:16].hex())
    report(out[171] >= 1, "INVOKE_WRITE QUERY_DEVICE: phys_port_cnt >= 1")
    report(c.attr_out(2)[0] & VALID_OUTPUT,
           "INVOKE_WRITE: CORE_OUT flagged VALID_OUTPUT")
    e, out, _, _ = invoke_write(fd, W_QUERY_DEVICE, bytes(8), 100)
    expect("INVOKE_WRITE QUERY_DEVICE, CORE_OUT 100 < 176", e, errno.ENOSPC)
    e, out, _, _ = invoke_write(fd, W_QUERY_DEVICE, bytes(8), 184)
    report(e == 0 and out[176:] == bytes(8),
           "INVOKE_WRITE QUERY_DEVICE: longer CORE_OUT zero-filled",
           errno_name(e))
    e, out, _, _ = invoke_write(fd, W_QUERY_DEVICE, bytes(16), 176)
    expect("INVOKE_WRITE QUERY_DEVICE: zero CORE_IN beyond the request",
           e, 0)
    e, out, _, _ = invoke_write(fd, W_QUERY_DEVICE, bytes(8) + b"\1" +
                                bytes(7), 176)
    expect("INVOKE_WRITE QUERY_DEVICE: non-zero CORE_IN beyond", e,
           errno.EOPNOTSUPP)
    e, _, _, _ = invoke_write(fd, W_QUERY_DEVICE, bytes(8), 0)
    expect("INVOKE_WRITE QUERY_DEVICE without CORE_OUT", e, errno.ENOSPC)
    attrs = [inline(WRITE_CMD, W_QUERY_DEVICE), inline(CORE_IN, 0),
             attr(CORE_OUT, 16, 176)]
    expect("INVOKE_WRITE QUERY_DEVICE: CORE_OUT at a bad address",
           call(fd, DEVICE, INVOKE_WRITE, attrs)[0], errno.EFAULT)
    attrs = [inline(WRITE_CMD, W_QUERY_PORT), attr(CORE_IN, 16, 16),
             ptr(CORE_OUT, Buf(40))]
    expect("INVOKE_WRITE QUERY_PORT: CORE_IN at a bad address",
           call(fd, DEVICE, INVOKE_WRITE, attrs)[0], errno.EFAULT)
    e, out, _, _ = invoke_write(fd, UVERBS_EXTENDED | W_QUERY_DEVICE,
                                bytes(8), 304)
    expect("INVOKE_WRITE EX QUERY_DEVICE", e, 0)
    report(struct.unpack_from("<I", out, 180)[0] == 304,
           "INVOKE_WRITE EX QUERY_DEVICE: response_length 304")

    # QUERY_PORT, as sysfs says
    base = "/sys/class/infiniband/%s/ports/1/" % ibdev
    e, out, c = query_port(fd, 1)
    expect("QUERY_PORT port 1", e, 0)
    lid = struct.unpack_from("<H", out, 22)[0]
    report(lid == int(sysfs(base + "lid"), 16), "QUERY_PORT: lid as sysfs",
           str(lid))
    state = int(sysfs(base + "state").split(":")[0])
    report(out[26] == state, "QUERY_PORT: state as sysfs", str(out[26]))
    report(out[37] == 1, "QUERY_PORT: link_layer InfiniBand", str(out[37]))
    report(out[42:48] == bytes(6), "QUERY_PORT: reserved zero")
    report(c.attr_out(1)[0] & VALID_OUTPUT,
           "QUERY_PORT: RESP flagged VALID_OUTPUT")
    e, out2, _ = query_port(fd, 1, 64)
    report(e == 0 and out2[:48] == out and out2[48:] == bytes(16),
           "QUERY_PORT: longer RESP zero-filled", errno_name(e))
    e, out3, _, _ = invoke_write(fd, W_QUERY_PORT,
                                 bytes(8) + b"\1" + bytes(7), 40)
    report(e == 0 and out3 == out[:40],
           "INVOKE_WRITE QUERY_PORT agrees with the method", errno_name(e))
    for port in (0, 99, 256, 1 << 40):
        expect("QUERY_PORT port %d" % port, query_port(fd, port)[0],
               errno.EINVAL)
    expect("QUERY_PORT RESP of 40 bytes", query_port(fd, 1, 40)[0],
           errno.EINVAL)
    expect("QUERY_PORT without RESP",
           call(fd, DEVICE, QUERY_PORT, [inline(0, 1)])[0], errno.EINVAL)
    expect("QUERY_PORT port as 1 byte",
           call(fd, DEVICE, QUERY_PORT,
                [inline(0, 1, 1), ptr(1, Buf(48))])[0], errno.EINVAL)
    expect("QUERY_PORT RESP at a bad address",
           call(fd, DEVICE, QUERY_PORT,
                [inline(0, 1), attr(1, 16, 48)])[0], errno.EFAULT)

    # GIDs
    ports = len(os.listdir("/sys/class/infiniband/%s/ports" % ibdev))
    e, out, c = gid_entry(fd, 1, 0)
    expect("QUERY_GID_ENTRY 1/0", e, 0)
    report(out[:16] == sysfs_gid(ibdev, 1, 0),
           "QUERY_GID_ENTRY: gid as sysfs gids/0", out[:16].hex())
    report(struct.unpack_from("<IIII", out, 16) == (0, 1, 0, 0),
           "QUERY_GID_ENTRY: index 0, port 1, type IB, no netdev",
           str(struct.unpack_from("<IIII", out, 16)))
    report(c.attr_out(3)[0] & VALID_OUTPUT,
           "QUERY_GID_ENTRY: RESP_ENTRY flagged VALID_OUTPUT")
    tbl_len = struct.unpack_from("<I", query_port(fd, 1)[1], 16)[0]
    empty = [i for i in range(tbl_len)
             if sysfs_gid(ibdev, 1, i) == bytes(16)]
    if empty:
        expect("QUERY_GID_ENTRY of an empty entry (%d)" % empty[0],
               gid_entry(fd, 1, empty[0])[0], errno.ENODATA)
    expect("QUERY_GID_ENTRY index = table length",
           gid_entry(fd, 1, tbl_len)[0], errno.EINVAL)
    expect("QUERY_GID_ENTRY index 2^32 - 1",
           gid_entry(fd, 1, 2**32 - 1)[0], errno.EINVAL)
    expect("QUERY_GID_ENTRY index 2^32", gid_entry(fd, 1, 2**32)[0],
           errno.EINVAL)
    expect("QUERY_GID_ENTRY port 0", gid_entry(fd, 0, 0)[0], errno.EINVAL)
    expect("QUERY_GID_ENTRY flags 1", gid_entry(fd, 1, 0, 1)[0],
           errno.EINVAL)
    expect("QUERY_GID_ENTRY flags as 8 bytes",
           gid_entry(fd, 1, 0, 0, flags_len=8)[0], 0)
    expect("QUERY_GID_ENTRY flags as 2 bytes",
           gid_entry(fd, 1, 0, 0, flags_len=2)[0], errno.EINVAL)
    expect("QUERY_GID_ENTRY RESP of 28 bytes",
           gid_entry(fd, 1, 0, resp_len=28)[0], errno.EINVAL)
    e, out, _ = gid_entry(fd, 1, 0, resp_len=40)
    report(e == 0 and out[32:] == bytes(8),
           "QUERY_GID_ENTRY: longer RESP zero-filled", errno_name(e))
    expect("QUERY_GID_ENTRY without FLAGS",
           call(fd, DEVICE, QUERY_GID_ENTRY,
                [inline(0, 1), inline(1, 0), ptr(3, Buf(32))])[0],
           errno.EINVAL)

    want = []
    for p in range(1, ports + 1):
        n = struct.unpack_from("<I", query_port(fd, p)[1], 16)[0]
        for i in range(n):
            g = sysfs_gid(ibdev, p, i)
            if g != bytes(16):
                want.append((g, i, p))
    e, out, num, c = gid_table(fd, 32, len(want) + 3)
    expect("QUERY_GID_TABLE", e, 0)
    got = [(out[32 * k:32 * k + 16],) +
           struct.unpack_from("<II", out, 32 * k + 16) for k in range(num)]
    report(got == want, "QUERY_GID_TABLE: the non-empty entries of sysfs",
           "%d vs %d entries" % (len(got), len(want)))
    report(all(c.attr_out(i)[0] & VALID_OUTPUT for i in (1, 2)),
           "QUERY_GID_TABLE: outputs flagged VALID_OUTPUT")
    e, out, num, _ = gid_table(fd, 40, len(want))
    report(e == 0 and num == len(want) and
           all(out[40 * k + 32:40 * k + 40] == bytes(8) for k in range(num))
           and out[:16] == want[0][0],
           "QUERY_GID_TABLE entry_size 40: padded with zeroes", errno_name(e))
    e, out, num, _ = gid_table(fd, 16, len(want))
    report(e == 0 and num == len(want) and out[16:32] == want[1][0]
           if len(want) > 1 else e == 0,
           "QUERY_GID_TABLE entry_size 16: truncated entries", errno_name(e))
    if len(want) > 1:
        expect("QUERY_GID_TABLE: room for one entry too few",
               gid_table(fd, 32, len(want) - 1)[0], errno.EINVAL)
    expect("QUERY_GID_TABLE entry_size 0", gid_table(fd, 0, 1, 32)[0],
           errno.EINVAL)
    expect("QUERY_GID_TABLE buffer not a multiple of entry_size",
           gid_table(fd, 32, 1, 40)[0], errno.EINVAL)
    expect("QUERY_GID_TABLE buffer of 0 bytes", gid_table(fd, 32, 0)[0],
           errno.EINVAL)


def objects(fd):
    e, pd = alloc_pd(fd)
    expect("INVOKE_WRITE ALLOC_PD", e, 0)
    attrs = [inline(WRITE_CMD, W_ALLOC_PD), inline(CORE_IN, 0),
             attr(CORE_OUT, 16, 4)]
    expect("INVOKE_WRITE ALLOC_PD, CORE_OUT at a bad address",
           call(fd, DEVICE, INVOKE_WRITE, attrs)[0], errno.EFAULT)
    e, pd2 = alloc_pd(fd)
    report(e == 0 and pd2 == pd + 1,
           "the failed ALLOC_PD left no handle behind", "%d %d" % (pd, pd2))
    expect("PD/DESTROY", destroy(fd, PD, 0, pd2)[0], 0)
    expect("PD/DESTROY again", destroy(fd, PD, 0, pd2)[0], errno.ENOENT)
    expect("PD/DESTROY handle -1", destroy(fd, PD, 0, -1)[0], errno.EINVAL)
    expect("PD/DESTROY handle 2^32", destroy(fd, PD, 0, 2**32)[0],
           errno.ENOENT)
    expect("PD/DESTROY handle attribute with len 4",
           call(fd, PD, 0, [attr(0, pd, 4)])[0], errno.EINVAL)
    expect("PD/DESTROY without handle", call(fd, PD, 0, [])[0],
           errno.EINVAL)

    # MR with an optional access bit (relaxed ordering), then destroy
    mem = Buf(8192)
    e, out, _, _ = invoke_write(fd, W_REG_MR, struct.pack(
        "<QQQQII", 0, mem.addr, 8192, mem.addr, pd, 0x100001), 12)
    expect("INVOKE_WRITE REG_MR with IBV_ACCESS_RELAXED_ORDERING", e, 0)
    mr = struct.unpack_from("<I", out)[0]
    expect("PD/DESTROY of a PD in use", destroy(fd, PD, 0, pd)[0],
           errno.EBUSY)
    expect("MR/DESTROY of a PD handle", destroy(fd, MR, 1, pd)[0],
           errno.EINVAL)
    expect("MR/DESTROY", destroy(fd, MR, 1, mr)[0], 0)
    expect("MR/DESTROY again", destroy(fd, MR, 1, mr)[0], errno.ENOENT)

    # AH (rxe's response: ah_num)
    e, out, _, drv = invoke_write(fd, W_CREATE_AH, struct.pack(
        "<QQII", 0, 0x9abc, pd, 0) + bytes(24) +
        struct.pack("<HBBBBBB", 1, 0, 0, 0, 0, 1, 0), 4, uhw_out=8)
    expect("INVOKE_WRITE CREATE_AH", e, 0)
    report(struct.unpack_from("<I", drv)[0] != 0,
           "INVOKE_WRITE CREATE_AH: the driver's ah_num via UHW_OUT")
    expect("AH/DESTROY", destroy(fd, AH, 0, struct.unpack("<I", out)[0])[0],
           0)

    # CQ, QP, SRQ
    e, out, _, _ = invoke_write(fd, W_CREATE_CQ, struct.pack(
        "<QQIIiI", 0, 0x1234, 16, 0, -1, 0), 8, uhw_out=16)
    expect("INVOKE_WRITE CREATE_CQ", e, 0)
    cq = struct.unpack_from("<I", out)[0]
    e, out, _, _ = invoke_write(fd, W_CREATE_SRQ, struct.pack(
        "<QQIIII", 0, 0x5678, pd, 16, 1, 0), 16, uhw_out=24)
    expect("INVOKE_WRITE CREATE_SRQ", e, 0)
    srq = struct.unpack_from("<I", out)[0]
    e, out, _, _ = invoke_write(fd, W_CREATE_QP, struct.pack(
        "<QQIIIIIIIIIBBBB", 0, 0x9999, pd, cq, cq, srq, 16, 16, 1, 1, 0,
        0, 2, 1, 0), 32, uhw_out=32)
    expect("INVOKE_WRITE CREATE_QP on the SRQ", e, 0)
    qp = struct.unpack_from("<I", out)[0]
    expect("CQ/DESTROY of a CQ in use",
           destroy(fd, CQ, 1, cq, 8)[0], errno.EBUSY)
    expect("SRQ/DESTROY of an SRQ in use",
           destroy(fd, SRQ, 1, srq, 4)[0], errno.EBUSY)
    expect("QP/DESTROY with RESP of 8 bytes",
           destroy(fd, QP, 1, qp, 8)[0], errno.EINVAL)
    expect("QP/DESTROY without RESP", destroy(fd, QP, 1, qp)[0],
           errno.EINVAL)
    expect("QP/DESTROY of the CQ handle", destroy(fd, QP, 1, cq, 4)[0],
           errno.EINVAL)
    e, resp, c = destroy(fd, QP, 1, qp, 4)
    report(e == 0 and resp == bytes(4) and c.attr_out(1)[0] & VALID_OUTPUT,
           "QP/DESTROY: 0 events reported, VALID_OUTPUT", errno_name(e))
    e, resp, _ = destroy(fd, SRQ, 1, srq, 4)
    report(e == 0 and resp == bytes(4), "SRQ/DESTROY: 0 events reported",
           errno_name(e))
    expect("CQ/DESTROY with RESP of 4 bytes",
           destroy(fd, CQ, 1, cq, 4)[0], errno.EINVAL)
    attrs = [attr(0, cq), attr(1, 16, 8)]
    expect("CQ/DESTROY with RESP at a bad address (destroyed anyway)",
           call(fd, CQ, 1, attrs)[0], errno.EFAULT)
    expect("CQ/DESTROY after that", destroy(fd, CQ, 1, cq, 8)[0],
           errno.ENOENT)
    e, out, _, _ = invoke_write(fd, W_CREATE_CQ, struct.pack(
        "<QQIIiI", 0, 0x1234, 16, 0, -1, 0), 8, uhw_out=16)
    e, resp, _ = destroy(fd, CQ, 1, struct.unpack_from("<I", out)[0], 8)
    report(e == 0 and resp == bytes(8), "CQ/DESTROY: 0 and 0 events",
           errno_name(e))
    expect("PD/DESTROY of the last PD", destroy(fd, PD, 0, pd)[0], 0)


# ------------------------------------------------------------------------
# CQ, QP and SRQ CREATE
# ------------------------------------------------------------------------

def mminfo(drv, off=0):
    """rxe's struct mminfo: (offset, size)."""
    return struct.unpack_from("<QI", drv, off)


def cq_attrs(cqe=16, user_handle=0x1234, vector=0, channel=None,
             event_fd=None, flags=None, resp=None, drv=None):
    """The attributes of CQ/CREATE as libibverbs sends them."""
    a = [attr(CQ_HANDLE), inline(CQ_CQE, cqe, 4),
         inline(CQ_USER_HANDLE, user_handle), inline(CQ_COMP_VECTOR, vector, 4)]
    if channel is not None:
        a.append(attr(CQ_COMP_CHANNEL, channel))
    if event_fd is not None:
        a.append(attr(CQ_EVENT_FD, event_fd, flags=0))
    if flags is not None:
        a.append(inline(CQ_FLAGS, flags, 4))
    if resp is not None:
        a.append(ptr(CQ_RESP_CQE, resp))
    if drv is not None:
        a.append(ptr(UHW_OUT, drv, flags=0))
    return a


def create_cq(fd, without=(), extra=(), **kw):
    """CQ/CREATE: errno, handle, resp cqe, rxe driver response, call."""
    resp, drv = Buf(4, 0xff), Buf(16, 0xff)
    a = [x for x in cq_attrs(resp=resp, drv=drv, **kw)
         if struct.unpack_from("<H", x)[0] not in without] + list(extra)
    e, c = call(fd, CQ, CREATE, a)
    return (e, c.attr_out(0)[1], struct.unpack("<I", resp.raw())[0],
            drv.raw(), c)


def qp_attrs(pd, scq, rcq, srq=None, qp_type=QPT_RC,
             cap=(16, 16, 1, 1, 0), cap_bytes=None, user_handle=0x4321,
             flags=None, event_fd=None, rcap=None, qpn=None, drv=None,
             keep=None):
    capbuf = Buf(20)
    capbuf.mem.raw = struct.pack("<5I", *cap)
    if cap_bytes is not None:
        capbuf = Buf(len(cap_bytes))
        capbuf.mem.raw = cap_bytes
    if keep is not None:
        keep.append(capbuf)
    a = [attr(QP_HANDLE), inline(QP_TYPE, qp_type),
         inline(QP_USER_HANDLE, user_handle), ptr(QP_CAP, capbuf)]
    if pd is not None:
        a.append(attr(QP_PD, pd))
    if scq is not None:
        a.append(attr(QP_SEND_CQ, scq))
    if rcq is not None:
        a.append(attr(QP_RECV_CQ, rcq))
    if srq is not None:
        a.append(attr(QP_SRQ, srq))
    if flags is not None:
        a.append(inline(QP_FLAGS, flags, 4))
    if event_fd is not None:
        a.append(attr(QP_EVENT_FD, event_fd))
    if rcap is not None:
        a.append(ptr(QP_RESP_CAP, rcap))
    if qpn is not None:
        a.append(ptr(QP_RESP_QP_NUM, qpn))
    if drv is not None:
        a.append(ptr(UHW_OUT, drv, flags=0))
    return a


def create_qp(fd, pd, scq, rcq, without=(), extra=(), **kw):
    """QP/CREATE: errno, handle, qp_num, resp cap, driver response, call."""
    rcap, qpn, drv, keep = Buf(20, 0xff), Buf(4), Buf(32, 0xff), []
    a = [x for x in qp_attrs(pd, scq, rcq, rcap=rcap, qpn=qpn, drv=drv,
                             keep=keep, **kw)
         if struct.unpack_from("<H", x)[0] not in without] + list(extra)
    e, c = call(fd, QP, CREATE, a)
    return (e, c.attr_out(0)[1], struct.unpack("<I", qpn.raw())[0],
            struct.unpack("<5I", rcap.raw()), drv.raw(), c)


def srq_attrs(pd, max_wr=16, max_sge=1, limit=0, srq_type=0,
              user_handle=0x8765, event_fd=None, rwr=None, rsge=None,
              drv=None):
    a = [attr(SRQ_HANDLE), attr(SRQ_PD, pd), inline(SRQ_TYPE, srq_type),
         inline(SRQ_USER_HANDLE, user_handle), inline(SRQ_MAX_WR, max_wr, 4),
         inline(SRQ_MAX_SGE, max_sge, 4), inline(SRQ_LIMIT, limit, 4)]
    if event_fd is not None:
        a.append(attr(SRQ_EVENT_FD, event_fd))
    if rwr is not None:
        a.append(ptr(SRQ_RESP_MAX_WR, rwr))
    if rsge is not None:
        a.append(ptr(SRQ_RESP_MAX_SGE, rsge))
    if drv is not None:
        a.append(ptr(UHW_OUT, drv, flags=0))
    return a


def create_srq(fd, pd, without=(), extra=(), **kw):
    """SRQ/CREATE: errno, handle, max_wr, max_sge, driver response, call."""
    rwr, rsge, drv = Buf(4), Buf(4), Buf(24, 0xff)
    a = [x for x in srq_attrs(pd, rwr=rwr, rsge=rsge, drv=drv, **kw)
         if struct.unpack_from("<H", x)[0] not in without] + list(extra)
    e, c = call(fd, SRQ, CREATE, a)
    return (e, c.attr_out(0)[1], struct.unpack("<I", rwr.raw())[0],
            struct.unpack("<I", rsge.raw())[0], drv.raw(), c)


def ring(fd, what, mi, want_slots):
    """mmap an rxe ring and check its header; unmap it."""
    off, size = mi
    try:
        m = mmap.mmap(fd, size, mmap.MAP_SHARED,
                      mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
    except (OSError, ValueError) as ex:
        report(False, what + ": ring mmap-able", "%s at %#x size %d" %
               (ex, off, size))
        return
    log2, mask = struct.unpack_from("<II", m, 0)
    report(size >= 384 + ((mask + 1) << log2) and mask + 1 > want_slots and
           log2 >= 5, what + ": ring mapped, header sane",
           "size %d log2 %d mask %d" % (size, log2, mask))
    m.close()


def write_cmd(fd, cmd, body, out_len):
    """A write() command with its response; errno and response."""
    out = Buf(max(out_len, 1), 0xff)
    e = uverbs_write(fd, uverbs_hdr(cmd, (8 + 8 + len(body)) // 4,
                                    out_len // 4) +
                     struct.pack("<Q", out.addr) + body)
    return e, out.raw()[:out_len]


def res_qp(qpn):
    """The `rdma res show qp` line of QP number @qpn, or ""."""
    out = subprocess.run(["rdma", "res", "show", "qp"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if re.search(r"\blqpn %d\b" % qpn, line):
            return line
    return ""


def creates(dev, ibdev):
    fd = open_dev(dev)
    expect("CQ/CREATE without context", create_cq(fd)[0], errno.EINVAL)
    expect("GET_CONTEXT (creates)", get_context(fd)[0], 0)
    e, afd = async_alloc(fd)
    expect("ASYNC_EVENT/ALLOC (creates)", e, 0)
    e, pd = alloc_pd(fd)
    expect("ALLOC_PD (creates)", e, 0)
    e, chan = write_cmd(fd, W_CREATE_COMP_CHANNEL, b"", 4)
    expect("write() CREATE_COMP_CHANNEL", e, 0)
    chan = struct.unpack("<I", chan)[0]
    other = open_dev(dev)
    get_context(other)
    _, other_afd = async_alloc(other)
    _, other_chan = write_cmd(other, W_CREATE_COMP_CHANNEL, b"", 4)
    other_chan = struct.unpack("<I", other_chan)[0]

    # --- CQ --------------------------------------------------------------
    e, cq, cqe, drv, c = create_cq(fd, cqe=100, event_fd=afd)
    expect("CQ/CREATE cqe 100, async fd, no channel", e, 0)
    report(c.attr_out(0)[1] == cq and cq < 2**31,
           "CQ/CREATE: handle written back", str(cq))
    report(cqe >= 100 and c.out_flags(CQ_RESP_CQE) & VALID_OUTPUT,
           "CQ/CREATE: RESP_CQE >= 100, VALID_OUTPUT", str(cqe))
    report(c.out_flags(UHW_OUT) & VALID_OUTPUT,
           "CQ/CREATE: UHW_OUT flagged VALID_OUTPUT")
    ring(fd, "CQ/CREATE", mminfo(drv), 100)
    e, cq2, _, drv2, _ = create_cq(fd, cqe=1, channel=chan, vector=0)
    expect("CQ/CREATE with a completion channel", e, 0)
    ring(fd, "CQ/CREATE with channel", mminfo(drv2), 1)
    e, resp = write_cmd(fd, W_DESTROY_CQ, struct.pack("<II", cq2, 0), 8)
    report(e == 0 and resp == bytes(8),
           "write() DESTROY_CQ of an ioctl CQ: 0 and 0 events", errno_name(e))

    for missing, label in ((CQ_HANDLE, "HANDLE"), (CQ_CQE, "CQE"),
                           (CQ_USER_HANDLE, "USER_HANDLE"),
                           (CQ_COMP_VECTOR, "COMP_VECTOR"),
                           (CQ_RESP_CQE, "RESP_CQE")):
        expect("CQ/CREATE without " + label,
               create_cq(fd, without=(missing,))[0], errno.EINVAL)
    expect("CQ/CREATE cqe 0", create_cq(fd, cqe=0)[0], errno.EINVAL)
    expect("CQ/CREATE cqe 2^32-1", create_cq(fd, cqe=2**32 - 1)[0],
           errno.EINVAL)
    expect("CQ/CREATE cqe 2^24", create_cq(fd, cqe=1 << 24)[0], errno.EINVAL)
    expect("CQ/CREATE comp_vector 999", create_cq(fd, vector=999)[0],
           errno.EINVAL)
    a = cq_attrs(resp=Buf(4))
    a[1] = inline(CQ_CQE, 16, 8)
    expect("CQ/CREATE CQE of 8 bytes", call(fd, CQ, CREATE, a)[0],
           errno.EINVAL)
    a = cq_attrs(resp=Buf(8))
    expect("CQ/CREATE RESP_CQE of 8 bytes", call(fd, CQ, CREATE, a)[0],
           errno.EINVAL)
    a = cq_attrs(resp=Buf(4))
    a[0] = attr(CQ_HANDLE, 0, 4)
    expect("CQ/CREATE HANDLE with len 4", call(fd, CQ, CREATE, a)[0],
           errno.EINVAL)
    expect("CQ/CREATE unknown flag 4", create_cq(fd, flags=4)[0],
           errno.EINVAL)
    expect("CQ/CREATE flag TIMESTAMP_COMPLETION (not supported)",
           create_cq(fd, flags=1)[0], errno.EOPNOTSUPP)
    expect("CQ/CREATE flags 0", create_cq(fd, flags=0)[0], 0)
    expect("CQ/CREATE COMP_CHANNEL bogus fd 9999",
           create_cq(fd, channel=9999)[0], errno.EBADF)
    expect("CQ/CREATE COMP_CHANNEL = the async fd",
           create_cq(fd, channel=afd)[0], errno.EBADF)
    expect("CQ/CREATE COMP_CHANNEL of another uverbs file",
           create_cq(fd, channel=other_chan)[0], errno.EBADF)
    expect("CQ/CREATE COMP_CHANNEL -1", create_cq(fd, channel=-1)[0],
           errno.EBADF)
    expect("CQ/CREATE COMP_CHANNEL 2^32", create_cq(fd, channel=2**32)[0],
           errno.EINVAL)
    expect("CQ/CREATE EVENT_FD bogus fd 9999",
           create_cq(fd, event_fd=9999)[0], errno.EBADF)
    expect("CQ/CREATE EVENT_FD = a completion channel",
           create_cq(fd, event_fd=chan)[0], errno.EBADF)
    expect("CQ/CREATE EVENT_FD = the uverbs fd",
           create_cq(fd, event_fd=fd)[0], errno.EBADF)
    expect("CQ/CREATE EVENT_FD of another uverbs file",
           create_cq(fd, event_fd=other_afd)[0], errno.EBADF)
    e, late, _, _, _ = create_cq(fd, without=(CQ_RESP_CQE,),
                                 extra=[attr(CQ_RESP_CQE, 16, 4)])
    expect("CQ/CREATE RESP_CQE at a bad address", e, errno.EFAULT)
    expect("CQ/CREATE failing late leaves no CQ behind (its handle %d)" %
           late, destroy(fd, CQ, DESTROY, late, 8)[0], errno.ENOENT)
    expect("CQ/CREATE without UHW_OUT (rxe needs its response)",
           create_cq(fd, without=(UHW_OUT,))[0], errno.EINVAL)

    # --- SRQ -------------------------------------------------------------
    e, srq, max_wr, max_sge, drv, c = create_srq(fd, pd, max_wr=30,
                                                  max_sge=2, event_fd=afd)
    expect("SRQ/CREATE max_wr 30 max_sge 2", e, 0)
    report(c.attr_out(0)[1] == srq, "SRQ/CREATE: handle written back")
    report(max_wr >= 30 and max_sge >= 2,
           "SRQ/CREATE: RESP_MAX_WR >= 30, RESP_MAX_SGE >= 2",
           "%d %d" % (max_wr, max_sge))
    report(all(c.out_flags(i) & VALID_OUTPUT
               for i in (SRQ_RESP_MAX_WR, SRQ_RESP_MAX_SGE, UHW_OUT)),
           "SRQ/CREATE: outputs flagged VALID_OUTPUT")
    report(struct.unpack_from("<I", drv, 16)[0] != 0,
           "SRQ/CREATE: the driver's srq_num via UHW_OUT")
    ring(fd, "SRQ/CREATE", mminfo(drv), 30)
    expect("SRQ/CREATE without PD",
           create_srq(fd, pd, without=(SRQ_PD,))[0], errno.EINVAL)
    expect("SRQ/CREATE without MAX_WR",
           create_srq(fd, pd, without=(SRQ_MAX_WR,))[0], errno.EINVAL)
    expect("SRQ/CREATE without TYPE",
           create_srq(fd, pd, without=(SRQ_TYPE,))[0], errno.EINVAL)
    expect("SRQ/CREATE without RESP_MAX_SGE",
           create_srq(fd, pd, without=(SRQ_RESP_MAX_SGE,))[0], errno.EINVAL)
    expect("SRQ/CREATE bogus PD handle", create_srq(fd, 4242)[0],
           errno.ENOENT)
    expect("SRQ/CREATE PD handle = the SRQ", create_srq(fd, srq)[0],
           errno.EINVAL)
    expect("SRQ/CREATE max_wr 0", create_srq(fd, pd, max_wr=0)[0],
           errno.EINVAL)
    expect("SRQ/CREATE limit > max_wr",
           create_srq(fd, pd, max_wr=4, limit=5)[0], errno.EINVAL)
    expect("SRQ/CREATE type 7", create_srq(fd, pd, srq_type=7)[0],
           errno.EINVAL)
    expect("SRQ/CREATE XRC without CQ", create_srq(fd, pd, srq_type=1)[0],
           errno.ENOENT)
    expect("SRQ/CREATE tag matching (not supported)",
           create_srq(fd, pd, srq_type=2,
                      extra=[attr(SRQ_CQ, cq),
                             inline(SRQ_MAX_NUM_TAGS, 4, 4)])[0],
           errno.EOPNOTSUPP)
    expect("SRQ/CREATE EVENT_FD bogus", create_srq(fd, pd, event_fd=9999)[0],
           errno.EBADF)

    # --- QP --------------------------------------------------------------
    made = {}
    for label, qp_type, kw in (("RC", QPT_RC, {}),
                               ("RC on the SRQ", QPT_RC, {"srq": srq}),
                               ("UD", QPT_UD, {"event_fd": afd}),
                               ("UC", QPT_UC, {"flags": QP_SQ_SIG_ALL})):
        e, qp, qpn, rcap, drv, c = create_qp(fd, pd, cq, cq,
                                             qp_type=qp_type, **kw)
        expect("QP/CREATE " + label, e, 0)
        if e:
            continue
        made[label] = (qp, qpn)
        report(c.attr_out(0)[1] == qp, "QP/CREATE %s: handle written back"
               % label)
        report(qpn > 1, "QP/CREATE %s: qp_num > 1" % label, str(qpn))
        want_rq = 0 if "srq" in kw else 16
        report(rcap[0] >= 16 and rcap[1] >= want_rq and rcap[2] >= 1 and
               (rcap[3] >= 1 or "srq" in kw),
               "QP/CREATE %s: RESP_CAP at least as asked" % label, str(rcap))
        report(all(c.out_flags(i) & VALID_OUTPUT
                   for i in (QP_RESP_CAP, QP_RESP_QP_NUM, UHW_OUT)),
               "QP/CREATE %s: outputs flagged VALID_OUTPUT" % label)
        line = res_qp(qpn)
        tname = {QPT_RC: "RC", QPT_UC: "UC", QPT_UD: "UD"}[qp_type]
        report(re.search(r"\btype %s\b" % tname, line) is not None,
               "QP/CREATE %s: rdma res show qp lists it as %s" %
               (label, tname), line or "not listed")
        if "srq" not in kw:
            ring(fd, "QP/CREATE %s RQ" % label, mminfo(drv, 0), 16)
        ring(fd, "QP/CREATE %s SQ" % label, mminfo(drv, 16), 16)
    if "UC" in made:
        e, out = write_cmd(fd, W_QUERY_QP,
                           struct.pack("<II", made["UC"][0], 0), 128)
        report(e == 0 and out[122] == 1,
               "QP/CREATE with SQ_SIG_ALL: QUERY_QP says sq_sig_all",
               errno_name(e))

    def bad_qp(label, want, *args, **kw):
        e = create_qp(fd, *args, **kw)[0]
        expect("QP/CREATE " + label, e, want)

    bad_qp("without PD", errno.ENOENT, None, cq, cq)
    bad_qp("without SEND_CQ", errno.ENOENT, pd, None, cq)
    bad_qp("without RECV_CQ", errno.ENOENT, pd, cq, None)
    bad_qp("without CAP", errno.EINVAL, pd, cq, cq, without=(QP_CAP,))
    bad_qp("without TYPE", errno.EINVAL, pd, cq, cq, without=(QP_TYPE,))
    bad_qp("without USER_HANDLE", errno.EINVAL, pd, cq, cq,
           without=(QP_USER_HANDLE,))
    bad_qp("without RESP_CAP", errno.EINVAL, pd, cq, cq,
           without=(QP_RESP_CAP,))
    bad_qp("without RESP_QP_NUM", errno.EINVAL, pd, cq, cq,
           without=(QP_RESP_QP_NUM,))
    bad_qp("without HANDLE", errno.EINVAL, pd, cq, cq, without=(QP_HANDLE,))
    bad_qp("bogus PD handle", errno.ENOENT, 4242, cq, cq)
    bad_qp("PD handle = a CQ", errno.EINVAL, cq, cq, cq)
    bad_qp("SEND_CQ handle = the PD", errno.EINVAL, pd, pd, cq)
    bad_qp("RECV_CQ handle = the SRQ", errno.EINVAL, pd, cq, srq)
    bad_qp("SRQ handle = the CQ", errno.EINVAL, pd, cq, cq, srq=cq)
    bad_qp("bogus SRQ handle", errno.ENOENT, pd, cq, cq, srq=4242)
    bad_qp("PD handle -1", errno.EINVAL, -1, cq, cq)
    for t in (0, 1, 5, 7, 11, 0x42, 2**32 + QPT_RC):
        bad_qp("type %#x" % t, errno.EINVAL, pd, cq, cq, qp_type=t)
    bad_qp("type XRC_INI (not supported)", errno.EOPNOTSUPP, pd, cq, None,
           qp_type=QPT_XRC_INI)
    bad_qp("type XRC_TGT without XRCD", errno.ENOENT, None, None, None,
           qp_type=QPT_XRC_TGT)
    bad_qp("type XRC_TGT with a PD", errno.EINVAL, pd, None, None,
           qp_type=QPT_XRC_TGT)
    bad_qp("type RAW_PACKET (not supported)", errno.EOPNOTSUPP, pd, cq, cq,
           qp_type=QPT_RAW)
    bad_qp("an XRCD handle", errno.EINVAL, pd, cq, cq,
           extra=[attr(QP_XRCD, 0)])
    bad_qp("CAP of 16 bytes", errno.EINVAL, pd, cq, cq,
           cap_bytes=struct.pack("<4I", 16, 16, 1, 1))
    bad_qp("CAP of 24 bytes, non-zero beyond", errno.EOPNOTSUPP, pd, cq, cq,
           cap_bytes=struct.pack("<6I", 16, 16, 1, 1, 0, 1))
    e, qp24, _, _, _, _ = create_qp(fd, pd, cq, cq, cap_bytes=struct.pack(
        "<6I", 16, 16, 1, 1, 0, 0))
    expect("QP/CREATE CAP of 24 bytes, zero beyond", e, 0)
    if not e:
        expect("QP/DESTROY of that", destroy(fd, QP, DESTROY, qp24, 4)[0], 0)
    bad_qp("CAP at a bad address", errno.EFAULT, pd, cq, cq,
           without=(QP_CAP,), extra=[attr(QP_CAP, 16, 20)])
    bad_qp("max_send_wr 2^31", errno.EINVAL, pd, cq, cq,
           cap=(2**31, 16, 1, 1, 0))
    bad_qp("max_send_sge 1000", errno.EINVAL, pd, cq, cq,
           cap=(16, 16, 1000, 1, 0))
    bad_qp("unknown flag 1", errno.EINVAL, pd, cq, cq, flags=1)
    bad_qp("unknown flag 1 << 20", errno.EINVAL, pd, cq, cq, flags=1 << 20)
    bad_qp("BLOCK_MULTICAST_LOOPBACK on RC", errno.EINVAL, pd, cq, cq,
           flags=QP_BLOCK_MCAST_LOOPBACK)
    bad_qp("BLOCK_MULTICAST_LOOPBACK on UD (not supported)",
           errno.EOPNOTSUPP, pd, cq, cq, qp_type=QPT_UD,
           flags=QP_BLOCK_MCAST_LOOPBACK)
    bad_qp("SCATTER_FCS on UD", errno.EINVAL, pd, cq, cq, qp_type=QPT_UD,
           flags=QP_SCATTER_FCS)
    bad_qp("SOURCE_QPN (not supported)", errno.EOPNOTSUPP, pd, cq, cq,
           qp_type=QPT_UD, extra=[inline(QP_SOURCE_QPN, 5, 4)])
    bad_qp("EVENT_FD bogus", errno.EBADF, pd, cq, cq, event_fd=9999)
    bad_qp("EVENT_FD = a completion channel", errno.EBADF, pd, cq, cq,
           event_fd=chan)
    bad_qp("RESP_QP_NUM at a bad address", errno.EFAULT, pd, cq, cq,
           without=(QP_RESP_QP_NUM,), extra=[attr(QP_RESP_QP_NUM, 16, 4)])
    e, pd2 = alloc_pd(fd)
    expect("PD/DESTROY of a fresh PD", destroy(fd, PD, 0, pd2)[0], 0)
    bad_qp("freed PD handle", errno.ENOENT, pd2, cq, cq)
    e, out = write_cmd(fd, W_QUERY_QP, struct.pack("<II", pd2, 0), 128)
    expect("the failed creates left no QP behind (QUERY_QP of the next "
           "handle)", e, errno.EINVAL)

    # --- destroys, both ABIs ---------------------------------------------
    expect("CQ/DESTROY of a CQ the QPs use",
           destroy(fd, CQ, DESTROY, cq, 8)[0], errno.EBUSY)
    expect("SRQ/DESTROY of an SRQ a QP uses",
           destroy(fd, SRQ, DESTROY, srq, 4)[0], errno.EBUSY)
    for label, (qp, qpn) in made.items():
        if label in ("RC", "UD"):
            e, resp, _ = destroy(fd, QP, DESTROY, qp, 4)
            how = "QP/DESTROY"
        else:
            e, resp = write_cmd(fd, W_DESTROY_QP, struct.pack("<II", qp, 0),
                                4)
            how = "write() DESTROY_QP"
        report(e == 0 and resp == bytes(4), "%s of the %s QP" % (how, label),
               errno_name(e))
        report(res_qp(qpn) == "", "%s QP gone from rdma res" % label)
    e, resp = write_cmd(fd, W_DESTROY_SRQ, struct.pack("<II", srq, 0), 4)
    report(e == 0 and resp == bytes(4), "write() DESTROY_SRQ of the SRQ",
           errno_name(e))
    e, resp, _ = destroy(fd, CQ, DESTROY, cq, 8)
    report(e == 0 and resp == bytes(8), "CQ/DESTROY of the ioctl CQ",
           errno_name(e))

    # --- left behind at close --------------------------------------------
    e, cq, _, _, _ = create_cq(fd, channel=chan)
    e2, srq, _, _, _, _ = create_srq(fd, pd)
    e3, qp, qpn, _, _, _ = create_qp(fd, pd, cq, cq, srq=srq)
    report(e == 0 and e2 == 0 and e3 == 0 and res_qp(qpn) != "",
           "CQ, SRQ and QP created to be left at close")
    os.close(fd)
    report(res_qp(qpn) == "", "closing the file destroyed the QP")
    for x in (afd, chan, other_afd, other_chan, other):
        os.close(x)


def abi(dev, ibdev):
    framing(dev)
    fd = context(dev)
    device(fd, ibdev)
    objects(fd)
    os.close(fd)
    creates(dev, ibdev)
    return exit_status()


# ------------------------------------------------------------------------
# Random mode
# ------------------------------------------------------------------------

SCRATCH = Buf(1 << 17)
# Pointers the kernel may be given: our scratch buffer (bigger than any
# attribute length), NULL, an unmapped page, kernel and non-canonical
# addresses.  Never a random address in this process.
POINTERS = [SCRATCH.addr, SCRATCH.addr + 4096, 0, 4096,
            0xffff888000000000, 0x8000000000000000]


# The CAP of the QP/CREATE template.  A mutation may give its attribute
# another id (an output) and any 16-bit length: like SCRATCH, the buffer
# is bigger than any length, so that what the kernel writes there as
# asked never lands beyond it, in this process's own heap.
CAPBUF = Buf(1 << 17)
CAPBUF.mem.raw = struct.pack("<5I", 16, 16, 1, 1, 0)


def ours(value):
    """Whether @value, as a pointer, is one of those the kernel may get."""
    return (value in POINTERS or value == CAPBUF.addr or
            SCRATCH.addr <= value < SCRATCH.addr + SCRATCH.size)


def templates(rng, handles, objs):
    """Valid calls: (object, method, [attribute tuples])."""
    h = rng.choice(handles) if handles else 0
    pd, cq, srq = objs["pd"], objs["cq"], objs["srq"]
    s = SCRATCH.addr
    M = MANDATORY
    return [
        (CQ, CREATE, [(CQ_HANDLE, 0, M, 0, 0), (CQ_CQE, 4, M, 0, 16),
                      (CQ_USER_HANDLE, 8, M, 0, 0x1234),
                      (CQ_COMP_VECTOR, 4, M, 0, 0),
                      (CQ_RESP_CQE, 4, M, 0, s),
                      (UHW_OUT, 16, 0, 0, s + 64)]),
        (QP, CREATE, [(QP_HANDLE, 0, M, 0, 0), (QP_PD, 0, M, 0, pd),
                      (QP_SEND_CQ, 0, M, 0, cq), (QP_RECV_CQ, 0, M, 0, cq),
                      (QP_USER_HANDLE, 8, M, 0, 1),
                      (QP_CAP, 20, M, 0, CAPBUF.addr),
                      (QP_TYPE, 8, M, 0, rng.choice([QPT_RC, QPT_UD])),
                      (QP_RESP_CAP, 20, M, 0, s + 128),
                      (QP_RESP_QP_NUM, 4, M, 0, s + 256),
                      (UHW_OUT, 32, 0, 0, s + 512)] +
         ([(QP_SRQ, 0, M, 0, srq)] if rng.randrange(2) else [])),
        (SRQ, CREATE, [(SRQ_HANDLE, 0, M, 0, 0), (SRQ_PD, 0, M, 0, pd),
                       (SRQ_TYPE, 8, M, 0, 0), (SRQ_USER_HANDLE, 8, M, 0, 1),
                       (SRQ_MAX_WR, 4, M, 0, 16), (SRQ_MAX_SGE, 4, M, 0, 1),
                       (SRQ_LIMIT, 4, M, 0, 0),
                       (SRQ_RESP_MAX_WR, 4, M, 0, s),
                       (SRQ_RESP_MAX_SGE, 4, M, 0, s + 4),
                       (UHW_OUT, 24, 0, 0, s + 64)]),
        (DEVICE, INVOKE_WRITE, [(WRITE_CMD, 8, MANDATORY, 0, W_QUERY_DEVICE)]),
        (DEVICE, INVOKE_WRITE, [(WRITE_CMD, 8, MANDATORY, 0, W_QUERY_DEVICE),
                                (CORE_IN, 8, MANDATORY, 0, 0),
                                (CORE_OUT, 176, MANDATORY, 0, s)]),
        (DEVICE, INVOKE_WRITE, [(WRITE_CMD, 8, MANDATORY, 0, W_ALLOC_PD),
                                (CORE_IN, 8, MANDATORY, 0, 0),
                                (CORE_OUT, 4, MANDATORY, 0, s)]),
        (DEVICE, INVOKE_WRITE, [(WRITE_CMD, 8, MANDATORY, 0, 4),
                                (CORE_IN, 4, MANDATORY, 0, h)]),
        (DEVICE, QUERY_PORT, [(0, 8, MANDATORY, 0, 1),
                              (1, 48, MANDATORY, 0, s)]),
        (DEVICE, QUERY_GID_ENTRY, [(0, 8, MANDATORY, 0, 1),
                                   (1, 8, MANDATORY, 0, 0),
                                   (2, 4, MANDATORY, 0, 0),
                                   (3, 32, MANDATORY, 0, s)]),
        (DEVICE, QUERY_GID_TABLE, [(0, 8, MANDATORY, 0, 32),
                                   (1, 4, 0, 0, 0),
                                   (2, 32 * 8, MANDATORY, 0, s),
                                   (3, 8, MANDATORY, 0, s + 4096)]),
        (DEVICE, GET_CONTEXT, [(0, 4, 0, 0, s), (1, 8, 0, 0, s + 8)]),
        (ASYNC_EVENT, 0, [(0, 0, MANDATORY, 0, 0)]),
        (PD, 0, [(0, 0, MANDATORY, 0, h)]),
        (MR, 1, [(0, 0, MANDATORY, 0, h)]),
        (AH, 0, [(0, 0, MANDATORY, 0, h)]),
        (CQ, 1, [(0, 0, MANDATORY, 0, h), (1, 8, MANDATORY, 0, s)]),
        (QP, 1, [(0, 0, MANDATORY, 0, h), (1, 4, MANDATORY, 0, s)]),
        (SRQ, 1, [(0, 0, MANDATORY, 0, h), (1, 4, MANDATORY, 0, s)]),
    ]


def random_value(rng):
    return rng.choice([0, 1, 2, rng.randrange(64), rng.randrange(1 << 16),
                       rng.randrange(1 << 32), rng.randrange(1 << 64),
                       2**63, 2**64 - 1, 2**32 - 1, 2**32])


def mutate(rng, obj, method, attrs, hdr):
    for _ in range(rng.randrange(1, 4)):
        what = rng.randrange(12)
        if what == 0:
            obj = rng.choice([obj, rng.randrange(20), rng.randrange(1 << 16)])
        elif what == 1:
            method = rng.choice([method, rng.randrange(8),
                                 rng.randrange(1 << 16)])
        elif what == 2:
            hdr[rng.choice(["length", "num", "res1", "res2", "driver_id"])] = \
                random_value(rng) & 0xffff
        elif what == 3 and attrs:
            del attrs[rng.randrange(len(attrs))]
        elif what == 4 and attrs:
            attrs.append(rng.choice(attrs))
        elif what == 5:
            attrs.append((rng.choice([rng.randrange(16), UHW_IN, UHW_OUT,
                                      rng.randrange(1 << 16)]),
                          rng.choice([0, 4, 8, rng.randrange(64)]),
                          rng.randrange(4), 0, rng.choice(POINTERS)))
        elif attrs:
            i = rng.randrange(len(attrs))
            a = list(attrs[i])
            field = rng.randrange(5)
            if field == 0:
                a[0] = rng.choice([rng.randrange(16), UHW_IN, UHW_OUT])
            elif field == 1:
                a[1] = rng.choice([0, 1, 4, 8, 9, 16, 32, 48, 176, 4096,
                                   rng.randrange(1 << 16)])
                # beyond 8 bytes the data is a pointer: an inline value
                # made one could name this process's own heap (python3
                # is not PIE, its heap is in the low 4 GiB)
                if a[1] > 8 and not ours(a[4]):
                    a[4] = rng.choice(POINTERS)
            elif field == 2:
                a[2] = rng.randrange(1 << 16)
            elif field == 3:
                a[3] = rng.choice([0, 0, 1, 0x100, rng.randrange(1 << 16)])
            elif a[1] > 8:
                a[4] = rng.choice(POINTERS)
            else:
                a[4] = random_value(rng)
            attrs[i] = tuple(a)
        if rng.randrange(8) == 0:
            rng.shuffle(attrs)
    return obj, method, attrs


def close_new_fds(baseline):
    for name_ in os.listdir("/proc/self/fd"):
        n = int(name_)
        if n not in baseline:
            try:
                os.close(n)
            except OSError:
                pass


def random_mode(dev, n, seed):
    print("# seed %d, %d iterations" % (seed, n))
    sys.stdout.flush()
    rng = random.Random(seed)
    fds = [None, open_dev(dev)]

    def fresh():
        """A new file with a context, 4 PDs, a CQ and an SRQ (the objects
        of the last one are destroyed by its close)."""
        if fds[0] is not None:
            os.close(fds[0])
        fds[0] = open_dev(dev)
        e, _, _, _ = get_context(fds[0])
        if e:
            expect("random: GET_CONTEXT", e, 0)
        pds = [alloc_pd(fds[0])[1] for _ in range(4)]
        cq = create_cq(fds[0])[1]
        srq = create_srq(fds[0], pds[0])[1]
        return pds + [cq, srq], {"pd": pds[0], "cq": cq, "srq": srq}

    handles, objs = fresh()
    baseline = set(int(x) for x in os.listdir("/proc/self/fd"))
    counts = {}
    made = {CQ: 0, QP: 0, SRQ: 0}
    bad = 0
    for it in range(n):
        fd = fds[rng.randrange(2)]
        obj, method, attrs = rng.choice(templates(rng, handles, objs))
        hdr = {}
        obj, method, attrs = mutate(rng, obj, method, list(attrs), hdr)
        raw = [attr(a[0] & 0xffff, a[4], a[1] & 0xffff, a[2] & 0xffff,
                    a[3] & 0xffff) for a in attrs]
        kw = {}
        if "length" in hdr:
            kw["length"] = hdr["length"]
        if "num" in hdr:
            kw["num"] = hdr["num"]
        if "res1" in hdr:
            kw["res1"] = hdr["res1"]
        if "res2" in hdr:
            kw["res2"] = hdr["res2"]
        if "driver_id" in hdr:
            kw["driver_id"] = hdr["driver_id"]
        c = Call(obj, method, raw, **kw)
        # with a changed num_attrs or length the kernel may read up to a
        # page of attributes: keep that inside our buffer
        if "num" in hdr or "length" in hdr:
            c.buf = ctypes.create_string_buffer(c.buf.raw + bytes(4096),
                                                len(c.buf.raw) + 4096)
        e = c.run(fd)
        counts[e] = counts.get(e, 0) + 1
        if not e and method == CREATE and obj in (CQ, QP, SRQ):
            made[obj] += 1
        if e not in ALLOWED:
            bad += 1
            if bad <= 10:
                report(False, "random call %d" % it,
                       "%d/%d %s -> %s" % (obj, method, attrs, errno_name(e)))
        if it % 500 == 499:
            close_new_fds(baseline)
            handles, objs = fresh()
            baseline = set(int(x) for x in os.listdir("/proc/self/fd"))
    close_new_fds(baseline)
    report(bad == 0, "random: %d calls, every errno allowed" % n,
           "%d bad" % bad)
    print("# errnos: " + ", ".join("%s %d" % (errno_name(k), v)
                                   for k, v in sorted(counts.items())))
    report(all(made.values()), "random: CQs, QPs and SRQs were created",
           "%d, %d, %d" % (made[CQ], made[QP], made[SRQ]))
    for fd in fds:
        os.close(fd)

    fd = open_dev(dev)
    e, _, _, _ = get_context(fd)
    expect("random: afterwards a fresh GET_CONTEXT", e, 0)
    e, _ = alloc_pd(fd)
    expect("random: afterwards ALLOC_PD", e, 0)
    expect("random: afterwards the probe on a new file",
           probe(open_dev(dev)), errno.ENOSPC)
    os.close(fd)
    return exit_status()


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "abi":
        return abi(sys.argv[2], sys.argv[3])
    if len(sys.argv) >= 4 and sys.argv[1] == "random":
        seed = int(sys.argv[4]) if len(sys.argv) > 4 else 20261122
        return random_mode(sys.argv[2], int(sys.argv[3]), seed)
    print(__doc__ if __doc__ else "usage: see the top of the file")
    return 2


if __name__ == "__main__":
    sys.exit(main())
