#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Raw write() commands against /dev/infiniband/uverbsN, for the
# uverbs-devinfo scenario: the values of GET_CONTEXT, QUERY_DEVICE,
# EX QUERY_DEVICE, QUERY_PORT and ALLOC_PD, and the errno of every kind of
# bad input, also for the Stage B commands (MRs, completion channels, CQs,
# QPs, AHs, SRQs, doorbells, mmap).  Prints one line per check, "ok <what>"
# or "not ok <what>" (checker.py), which the scenario turns into TAP.  The
# command helpers below serve the other uverbs checkers too.
#
#   uverbs_cmd.py abi DEV IBDEV LID   values and bad input
#   uverbs_cmd.py cycles DEV N        N open/GET_CONTEXT/ALLOC_PD/close cycles
#   uverbs_cmd.py hold DEV READY GO   open, make objects, touch READY, wait for
#                                     GO, then expect EIO everywhere
import errno
import fcntl
import mmap
import os
import struct
import sys
import time

from checker import (RDMA_VERBS_IOCTL, UVERBS_EXTENDED, Buf, errno_name,
                     exit_status, expect, report, sysfs, uverbs_ex_hdr,
                     uverbs_hdr, uverbs_write)

GET_CONTEXT, QUERY_DEVICE, QUERY_PORT, ALLOC_PD, DEALLOC_PD = 0, 1, 2, 3, 4
ALLOC_MW = 14
CREATE_AH, DESTROY_AH, REG_MR, DEREG_MR = 5, 8, 9, 13
CREATE_COMP_CHANNEL, CREATE_CQ, DESTROY_CQ, REQ_NOTIFY_CQ = 17, 18, 20, 23
CREATE_QP, QUERY_QP, MODIFY_QP, DESTROY_QP, POST_SEND = 24, 25, 26, 27, 28
CREATE_SRQ, MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ = 32, 33, 34, 35
ACCESS_LOCAL_WRITE, ACCESS_REMOTE_WRITE, ACCESS_ON_DEMAND = 1, 2, 0x40


def get_context(fd, resp=None):
    resp = resp or Buf(8)
    e = uverbs_write(fd, uverbs_hdr(GET_CONTEXT, 4, 2) +
                     struct.pack("<Q", resp.addr))
    if e:
        return e, None, None
    async_fd, vectors = struct.unpack("<II", resp.raw()[:8])
    return 0, async_fd, vectors


def alloc_pd(fd, resp_addr=None):
    resp = Buf(4, 0xff)
    addr = resp.addr if resp_addr is None else resp_addr
    e = uverbs_write(fd, uverbs_hdr(ALLOC_PD, 4, 1) + struct.pack("<Q", addr))
    return e, struct.unpack("<I", resp.raw())[0]


def dealloc_pd(fd, handle):
    return uverbs_write(fd, uverbs_hdr(DEALLOC_PD, 3, 0) +
                        struct.pack("<I", handle))


def query_port(fd, port, resp=None):
    resp = resp or Buf(40)
    e = uverbs_write(fd, uverbs_hdr(QUERY_PORT, 6, 10) +
                     struct.pack("<QB7x", resp.addr, port))
    return e, resp.raw()


def query_device(fd, out_words=44, resp=None):
    resp = resp or Buf(out_words * 4)
    e = uverbs_write(fd, uverbs_hdr(QUERY_DEVICE, 4, out_words) +
                     struct.pack("<Q", resp.addr))
    return e, resp.raw()


def ex_query_device(fd, out_words=38, resp_addr=None, prov_in=0,
                    reserved=0, comp_mask=0, cmd_reserved=0):
    resp = Buf(max(out_words * 8, 8))
    addr = resp.addr if resp_addr is None else resp_addr
    data = (uverbs_hdr(QUERY_DEVICE | UVERBS_EXTENDED, 1, out_words) +
            uverbs_ex_hdr(addr, prov_in, 0, reserved) +
            struct.pack("<II", comp_mask, cmd_reserved) + bytes(8 * prov_in))
    return uverbs_write(fd, data), resp.raw()


def create_comp_channel(fd, resp_addr=None):
    resp = Buf(4, 0xff)
    addr = resp.addr if resp_addr is None else resp_addr
    e = uverbs_write(fd, uverbs_hdr(CREATE_COMP_CHANNEL, 4, 1) +
                     struct.pack("<Q", addr))
    return e, struct.unpack("<I", resp.raw())[0]


def create_cq(fd, cqe=16, vector=0, channel=-1, user_handle=0x1234):
    """CREATE_CQ with room for the rxe driver response (16 bytes)."""
    resp = Buf(24)
    e = uverbs_write(fd, uverbs_hdr(CREATE_CQ, 10, 6) +
                     struct.pack("<QQIIiI", resp.addr, user_handle, cqe,
                                 vector, channel, 0))
    return e, struct.unpack_from("<I", resp.raw())[0]


def destroy_cq(fd, handle):
    resp = Buf(8, 0xff)
    e = uverbs_write(fd, uverbs_hdr(DESTROY_CQ, 6, 2) +
                     struct.pack("<QII", resp.addr, handle, 0))
    return e, struct.unpack("<II", resp.raw())


def req_notify_cq(fd, handle, solicited=0):
    return uverbs_write(fd, uverbs_hdr(REQ_NOTIFY_CQ, 4, 0) +
                        struct.pack("<II", handle, solicited))


def reg_mr(fd, pd, start, length, hca_va=None, access=ACCESS_LOCAL_WRITE):
    resp = Buf(12)
    hca_va = start if hca_va is None else hca_va
    e = uverbs_write(fd, uverbs_hdr(REG_MR, 12, 3) +
                     struct.pack("<QQQQII", resp.addr, start, length, hca_va,
                                 pd, access))
    return e, struct.unpack("<III", resp.raw())


def create_qp(fd, pd, scq, rcq, srq=0, is_srq=0, qp_type=2):
    resp = Buf(64)
    e = uverbs_write(fd, uverbs_hdr(CREATE_QP, 16, 16) +
                     struct.pack("<QQIIIIIIIIIBBBB", resp.addr, 0x5678, pd,
                                 scq, rcq, srq, 8, 8, 1, 1, 0, 0, qp_type,
                                 is_srq, 0))
    return e, struct.unpack_from("<II", resp.raw())


def modify_qp(fd, handle, mask=1, state=1):
    return uverbs_write(fd, uverbs_hdr(MODIFY_QP, 30, 0) + bytes(64) +
                        struct.pack("<II", handle, mask) + bytes(24) +
                        struct.pack("<B", state) + bytes(15))


def query_qp(fd, handle):
    return uverbs_write(fd, uverbs_hdr(QUERY_QP, 6, 32) +
                        struct.pack("<QII", Buf(128).addr, handle, 0))


def destroy_qp(fd, handle):
    return uverbs_write(fd, uverbs_hdr(DESTROY_QP, 6, 1) +
                        struct.pack("<QII", Buf(4).addr, handle, 0))


def post_send(fd, handle, wr_count=0, sge_count=0, wqe_size=128, extra=b""):
    return uverbs_write(fd, uverbs_hdr(POST_SEND, 8 + len(extra) // 4, 1) +
                        struct.pack("<QIIII", Buf(4).addr, handle, wr_count,
                                    sge_count, wqe_size) + extra)


def create_ah(fd, pd, port=1, dlid=1):
    resp = Buf(12)
    e = uverbs_write(fd, uverbs_hdr(CREATE_AH, 16, 3) +
                     struct.pack("<QQII", resp.addr, 0x9abc, pd, 0) +
                     bytes(24) +
                     struct.pack("<HBBBBBB", dlid, 0, 0, 0, 0, port, 0))
    return e, struct.unpack("<III", resp.raw())


def create_srq(fd, pd, max_wr=16, max_sge=1):
    resp = Buf(40)
    e = uverbs_write(fd, uverbs_hdr(CREATE_SRQ, 10, 10) +
                     struct.pack("<QQIIII", resp.addr, 0xdef0, pd, max_wr,
                                 max_sge, 0))
    return e, struct.unpack_from("<I", resp.raw())[0]


def ex_create_cq(fd, cqe=16, comp_mask=0, flags=0, reserved=0):
    """EX CREATE_CQ with room for the rxe driver response (16 bytes)."""
    resp = Buf(32)
    e = uverbs_write(fd, uverbs_hdr(CREATE_CQ | UVERBS_EXTENDED, 4, 2) +
                     uverbs_ex_hdr(resp.addr, 0, 2) +
                     struct.pack("<QIIiIII", 0x4321, cqe, 0, -1, comp_mask,
                                 flags, reserved))
    return e, struct.unpack_from("<IIII", resp.raw())


def ex_modify_qp(fd, handle, mask):
    return uverbs_write(fd, uverbs_hdr(MODIFY_QP | UVERBS_EXTENDED, 15, 0) +
                        uverbs_ex_hdr(0) + bytes(64) +
                        struct.pack("<II", handle, mask) + bytes(48))


def handle_cmd(fd, cmd, in_words, out_words, handle, resp_size=0):
    """A command whose request is (response,) handle, reserved."""
    if out_words or resp_size:
        data = struct.pack("<QII", Buf(max(resp_size, 8)).addr, handle, 0)
    else:
        data = struct.pack("<I", handle)
    data += bytes(in_words * 4 - 8 - len(data))
    return uverbs_write(fd, uverbs_hdr(cmd, in_words, out_words) + data)


def objects(fd, async_fd, pd):
    """Stage B commands: bad input first, then what the driver supports."""
    bogus = 12345
    e, freed_pd = alloc_pd(fd)
    expect("ALLOC_PD (to be freed)", e, 0)
    expect("DEALLOC_PD (to have a freed handle)", dealloc_pd(fd, freed_pd), 0)
    buf = Buf(8192)
    page = (buf.addr + 4095) & ~4095

    # --- completion channels -------------------------------------------
    e, chan = create_comp_channel(fd)
    expect("CREATE_COMP_CHANNEL", e, 0)
    if not e:
        flags = fcntl.fcntl(chan, fcntl.F_GETFD)
        report(flags & fcntl.FD_CLOEXEC, "channel fd is close-on-exec",
               "flags %#x" % flags)
        fl = fcntl.fcntl(chan, fcntl.F_GETFL)
        fcntl.fcntl(chan, fcntl.F_SETFL, fl | os.O_NONBLOCK)
        try:
            os.read(chan, 8)
            report(False, "empty channel, non-blocking read", "read data")
        except OSError as e:
            expect("empty channel, non-blocking read", e.errno, errno.EAGAIN)
        try:
            os.read(chan, 4)
            report(False, "channel read below one event", "read data")
        except OSError as e:
            expect("channel read below one event", e.errno, errno.EINVAL)
    expect("CREATE_COMP_CHANNEL into NULL", create_comp_channel(fd, 0)[0],
           errno.EFAULT)

    # --- MRs: checks before the driver ----------------------------------
    expect("REG_MR on a bogus PD handle",
           reg_mr(fd, bogus, page, 4096)[0], errno.EINVAL)
    expect("REG_MR on a freed PD handle",
           reg_mr(fd, freed_pd, page, 4096)[0], errno.EINVAL)
    expect("REG_MR with a huge length",
           reg_mr(fd, pd, page, 1 << 62)[0], errno.EINVAL)
    expect("REG_MR with a wrapping range",
           reg_mr(fd, pd, page, (1 << 64) - 4096)[0], errno.EINVAL)
    expect("REG_MR with length 0", reg_mr(fd, pd, page, 0)[0], errno.EINVAL)
    expect("REG_MR remote write without local write",
           reg_mr(fd, pd, page, 4096, access=ACCESS_REMOTE_WRITE)[0],
           errno.EINVAL)
    expect("REG_MR unknown access bit",
           reg_mr(fd, pd, page, 4096, access=0x80000000)[0], errno.EINVAL)
    expect("REG_MR on-demand paging",
           reg_mr(fd, pd, page, 4096,
                  access=ACCESS_LOCAL_WRITE | ACCESS_ON_DEMAND)[0],
           errno.EINVAL)
    expect("REG_MR start and hca_va at different page offsets",
           reg_mr(fd, pd, page, 4096, hca_va=page + 8)[0], errno.EINVAL)
    expect("DEREG_MR of a bogus handle", handle_cmd(fd, DEREG_MR, 3, 0, bogus),
           errno.ENOENT)

    # --- CQs: checks before the driver ----------------------------------
    expect("CREATE_CQ on a bogus channel fd",
           create_cq(fd, channel=1000)[0], errno.EINVAL)
    expect("CREATE_CQ on an fd that is no channel (the async fd)",
           create_cq(fd, channel=async_fd)[0], errno.EINVAL)
    expect("CREATE_CQ with 0 entries", create_cq(fd, cqe=0)[0], errno.EINVAL)
    expect("CREATE_CQ with 2^31 entries", create_cq(fd, cqe=1 << 31)[0],
           errno.EINVAL)
    expect("CREATE_CQ on completion vector 999",
           create_cq(fd, vector=999)[0], errno.EINVAL)
    expect("DESTROY_CQ of a bogus handle", destroy_cq(fd, bogus)[0],
           errno.ENOENT)
    expect("REQ_NOTIFY_CQ of a bogus handle", req_notify_cq(fd, bogus),
           errno.EINVAL)

    # --- QPs, AHs, SRQs: checks before the driver -----------------------
    expect("CREATE_QP on a bogus PD", create_qp(fd, bogus, 0, 0)[0],
           errno.EINVAL)
    expect("CREATE_QP on bogus CQs", create_qp(fd, pd, bogus, bogus)[0],
           errno.EINVAL)
    expect("CREATE_QP with a PD handle as CQ", create_qp(fd, pd, pd, pd)[0],
           errno.EINVAL)
    expect("MODIFY_QP of a bogus handle", modify_qp(fd, bogus),
           errno.EINVAL)
    expect("MODIFY_QP to state 7", modify_qp(fd, bogus, state=7),
           errno.EINVAL)
    expect("MODIFY_QP with mask bits beyond DEST_QPN",
           modify_qp(fd, bogus, mask=1 << 25), errno.EOPNOTSUPP)
    expect("QUERY_QP of a bogus handle", query_qp(fd, bogus), errno.EINVAL)
    expect("DESTROY_QP of a bogus handle", destroy_qp(fd, bogus),
           errno.ENOENT)
    expect("POST_SEND on a bogus QP", post_send(fd, bogus), errno.EINVAL)
    expect("POST_SEND carrying a work request",
           post_send(fd, 0, wr_count=1, extra=bytes(128)), errno.EINVAL)
    expect("POST_SEND with a tiny wqe_size", post_send(fd, 0, wqe_size=4),
           errno.EINVAL)
    expect("CREATE_AH on port 0", create_ah(fd, pd, port=0)[0], errno.EINVAL)
    expect("CREATE_AH on port 2", create_ah(fd, pd, port=2)[0], errno.EINVAL)
    expect("CREATE_AH on a bogus PD", create_ah(fd, bogus)[0], errno.EINVAL)
    expect("DESTROY_AH of a bogus handle",
           handle_cmd(fd, DESTROY_AH, 3, 0, bogus), errno.ENOENT)
    expect("CREATE_SRQ on a bogus PD", create_srq(fd, bogus)[0],
           errno.EINVAL)
    expect("MODIFY_SRQ of a bogus handle",
           uverbs_write(fd, uverbs_hdr(MODIFY_SRQ, 6, 0) +
                        struct.pack("<IIII", bogus, 2, 0, 1)), errno.EINVAL)
    expect("QUERY_SRQ of a bogus handle",
           handle_cmd(fd, QUERY_SRQ, 6, 4, bogus, 16), errno.EINVAL)
    expect("DESTROY_SRQ of a bogus handle",
           handle_cmd(fd, DESTROY_SRQ, 6, 1, bogus, 4), errno.ENOENT)

    expect("EX CREATE_CQ with a comp_mask", ex_create_cq(fd, comp_mask=1)[0],
           errno.EINVAL)
    expect("EX CREATE_CQ with reserved bits",
           ex_create_cq(fd, reserved=1)[0], errno.EINVAL)
    expect("EX CREATE_CQ with flags", ex_create_cq(fd, flags=1)[0],
           errno.EOPNOTSUPP)
    expect("EX MODIFY_QP with mask bits beyond RATE_LIMIT",
           ex_modify_qp(fd, bogus, 1 << 26), errno.EOPNOTSUPP)
    expect("EX MODIFY_QP of a bogus handle", ex_modify_qp(fd, bogus, 1),
           errno.EINVAL)

    # --- with the driver's support for user objects ---------------------
    e, cq = create_cq(fd, channel=chan if chan < 0x80000000 else -1)
    if e:
        print("# CREATE_CQ: %s; the driver does not take user CQs yet, "
              "skipping the checks on live objects" % errno_name(e))
        return
    e, r = ex_create_cq(fd)
    expect("EX CREATE_CQ", e, 0)
    if not e:
        report(r[3] == 16, "EX CREATE_CQ response_length 16", str(r[3]))
        expect("DESTROY_CQ of the EX CQ", destroy_cq(fd, r[0])[0], 0)
    expect("REQ_NOTIFY_CQ", req_notify_cq(fd, cq), 0)
    expect("DEALLOC_PD of a CQ handle (wrong type)", dealloc_pd(fd, cq),
           errno.EINVAL)
    expect("REG_MR with a CQ handle as PD",
           reg_mr(fd, cq, page, 4096)[0], errno.EINVAL)
    e, qp = create_qp(fd, pd, cq, cq)
    expect("CREATE_QP (RC)", e, 0)
    if not e:
        expect("DESTROY_CQ of a CQ a QP uses", destroy_cq(fd, cq)[0],
               errno.EBUSY)
        expect("DEALLOC_PD of a PD a QP uses", dealloc_pd(fd, pd),
               errno.EBUSY)
        expect("QUERY_QP", query_qp(fd, qp[0]), 0)
        expect("MODIFY_QP RESET->RTS refused",
               modify_qp(fd, qp[0], state=3), errno.EINVAL)
        expect("MODIFY_QP RESET->INIT without its attributes refused",
               modify_qp(fd, qp[0], state=1), errno.EINVAL)
        expect("DESTROY_QP", destroy_qp(fd, qp[0]), 0)
        expect("DESTROY_QP of a freed handle", destroy_qp(fd, qp[0]),
               errno.ENOENT)
    e, (cq_events, async_events) = destroy_cq(fd, cq)
    expect("DESTROY_CQ", e, 0)
    report(cq_events == 0 and async_events == 0,
           "DESTROY_CQ reports no events delivered",
           "%d %d" % (cq_events, async_events))
    expect("DESTROY_CQ of a freed handle", destroy_cq(fd, cq)[0],
           errno.ENOENT)
    expect("REQ_NOTIFY_CQ of a freed handle", req_notify_cq(fd, cq),
           errno.EINVAL)

    e, mr = reg_mr(fd, pd, page, 4096)
    expect("REG_MR of 4 KiB", e, 0)
    if not e:
        expect("DEALLOC_PD of a PD an MR uses", dealloc_pd(fd, pd),
               errno.EBUSY)
        expect("DEREG_MR", handle_cmd(fd, DEREG_MR, 3, 0, mr[0]), 0)
        expect("DEREG_MR of a freed handle",
               handle_cmd(fd, DEREG_MR, 3, 0, mr[0]), errno.ENOENT)
    expect("REG_MR of unmapped memory", reg_mr(fd, pd, 0x10000, 4096)[0],
           errno.EFAULT)
    e, ah = create_ah(fd, pd)
    expect("CREATE_AH", e, 0)
    if not e:
        report(ah[1] != 0, "CREATE_AH ah_num is not 0", str(ah[1]))
        expect("DESTROY_AH", handle_cmd(fd, DESTROY_AH, 3, 0, ah[0]), 0)
        expect("DESTROY_AH of a freed handle",
               handle_cmd(fd, DESTROY_AH, 3, 0, ah[0]), errno.ENOENT)
    e, srq = create_srq(fd, pd)
    expect("CREATE_SRQ", e, 0)
    if not e:
        expect("QUERY_SRQ", handle_cmd(fd, QUERY_SRQ, 6, 4, srq, 16), 0)
        expect("DESTROY_SRQ", handle_cmd(fd, DESTROY_SRQ, 6, 1, srq, 4), 0)
        expect("DESTROY_SRQ of a freed handle",
               handle_cmd(fd, DESTROY_SRQ, 6, 1, srq, 4), errno.ENOENT)
    if chan < 0x80000000:
        os.close(chan)


def abi(dev, ibdev, lid):
    fd = os.open(dev, os.O_RDWR)

    # --- framing, before any context --------------------------------
    expect("truncated header", uverbs_write(fd, b"\0\0\0\0"), errno.EINVAL)
    expect("in_words disagrees with the write's length",
           uverbs_write(fd, uverbs_hdr(GET_CONTEXT, 3, 2) + bytes(8)),
           errno.EINVAL)
    expect("in_words consistent but below the core request",
           uverbs_write(fd, uverbs_hdr(QUERY_PORT, 4, 10) + bytes(8)),
           errno.ENOSPC)
    expect("unknown command number 200",
           uverbs_write(fd, uverbs_hdr(200, 2, 0)), errno.EOPNOTSUPP)
    expect("known but unimplemented command (ALLOC_MW)",
           uverbs_write(fd, uverbs_hdr(ALLOC_MW, 6, 2) + bytes(16)),
           errno.EOPNOTSUPP)
    expect("unknown extended command",
           uverbs_write(fd, uverbs_hdr(50 | UVERBS_EXTENDED, 0, 0) +
                        uverbs_ex_hdr(0)), errno.EOPNOTSUPP)
    expect("command flag bits other than EXTENDED",
           uverbs_write(fd, uverbs_hdr(QUERY_DEVICE | 0x40000000, 4, 44) +
                        bytes(8)),
           errno.EINVAL)
    expect("QUERY_DEVICE before GET_CONTEXT", query_device(fd)[0],
           errno.EINVAL)
    expect("ALLOC_PD before GET_CONTEXT", alloc_pd(fd)[0], errno.EINVAL)
    expect("DEALLOC_PD before GET_CONTEXT", dealloc_pd(fd, 0), errno.ENOENT)
    expect("CREATE_COMP_CHANNEL before GET_CONTEXT",
           create_comp_channel(fd)[0], errno.EINVAL)
    expect("CREATE_CQ before GET_CONTEXT", create_cq(fd)[0], errno.EINVAL)
    # the ioctl ABI itself is uverbs_ioctl.py's business
    try:
        fcntl.ioctl(fd, RDMA_VERBS_IOCTL, bytearray(24))
        report(False, "RDMA_VERBS_IOCTL with length 0", "ioctl succeeded")
    except OSError as e:
        expect("RDMA_VERBS_IOCTL with length 0", e.errno, errno.EINVAL)
    try:
        fcntl.ioctl(fd, RDMA_VERBS_IOCTL + 1, bytearray(24))
        report(False, "another ioctl command is ENOTTY", "ioctl succeeded")
    except OSError as e:
        expect("another ioctl command is ENOTTY", e.errno, errno.ENOTTY)

    # --- GET_CONTEXT ---------------------------------------------------
    expect("GET_CONTEXT with a NULL response pointer",
           get_context(fd, resp=type("N", (), {"addr": 0})())[0],
           errno.EFAULT)
    e = uverbs_write(fd, uverbs_hdr(GET_CONTEXT, 4, 2) +
                     struct.pack("<Q", 0x10))
    expect("GET_CONTEXT with an unmapped response pointer", e, errno.EFAULT)
    e = uverbs_write(fd, uverbs_hdr(GET_CONTEXT, 4, 2) +
                     struct.pack("<Q", 0xffff888000000000))
    expect("GET_CONTEXT with a kernel response pointer", e, errno.EFAULT)
    expect("GET_CONTEXT with out_words too small",
           uverbs_write(fd, uverbs_hdr(GET_CONTEXT, 4, 1) +
                        struct.pack("<Q", Buf(8).addr)),
           errno.ENOSPC)
    e, async_fd, vectors = get_context(fd)
    expect("GET_CONTEXT after the failed ones", e, 0)
    if e:
        return
    report(vectors >= 1, "num_comp_vectors >= 1", "got %d" % vectors)
    try:
        st = os.fstat(async_fd)
        report(True, "async_fd %d is an open file" % async_fd)
    except OSError as e:
        report(False, "async_fd is an open file", str(e))
    flags = fcntl.fcntl(async_fd, fcntl.F_GETFD)
    report(flags & fcntl.FD_CLOEXEC, "async_fd is close-on-exec",
           "flags %#x" % flags)
    fl = fcntl.fcntl(async_fd, fcntl.F_GETFL)
    fcntl.fcntl(async_fd, fcntl.F_SETFL, fl | os.O_NONBLOCK)
    try:
        os.read(async_fd, 16)
        report(False, "empty async fd, non-blocking read", "read data")
    except OSError as e:
        expect("empty async fd, non-blocking read", e.errno, errno.EAGAIN)
    try:
        os.read(async_fd, 8)
        report(False, "async fd read below one event", "read data")
    except OSError as e:
        expect("async fd read below one event", e.errno, errno.EINVAL)
    expect("GET_CONTEXT twice", get_context(fd)[0], errno.EINVAL)

    # --- QUERY_DEVICE ------------------------------------------------------
    guid = bytes.fromhex(sysfs("/sys/class/infiniband/%s/node_guid" % ibdev)
                         .replace(":", ""))
    e, r = query_device(fd)
    expect("QUERY_DEVICE", e, 0)
    fw = struct.unpack_from("<Q", r, 0)[0]
    fw_s = "%d.%d.%d" % (fw >> 32, (fw >> 16) & 0xffff, fw & 0xffff)
    report(fw_s == sysfs("/sys/class/infiniband/%s/fw_ver" % ibdev),
           "QUERY_DEVICE fw_ver as in sysfs", fw_s)
    report(r[8:16] == guid, "QUERY_DEVICE node_guid big endian, as in sysfs",
           r[8:16].hex())
    report(r[171] == 1, "QUERY_DEVICE phys_port_cnt 1", str(r[171]))
    max_sge = struct.unpack_from("<I", r, 64)[0]
    report(max_sge > 0, "QUERY_DEVICE max_sge", str(max_sge))
    e, r = query_device(fd, resp=Buf(240, 0xff), out_words=60)
    expect("QUERY_DEVICE into a longer buffer", e, 0)
    report(r[176:240] == bytes(64), "... whose tail is zero-filled",
           r[176:240].hex())
    expect("QUERY_DEVICE out_words too small", query_device(fd, 43)[0],
           errno.ENOSPC)
    rr = Buf(176)
    expect("QUERY_DEVICE with zero bytes beyond the request",
           uverbs_write(fd, uverbs_hdr(QUERY_DEVICE, 6, 44) +
                        struct.pack("<Q", rr.addr) + bytes(8)), 0)
    expect("QUERY_DEVICE with non-zero bytes beyond the request",
           uverbs_write(fd, uverbs_hdr(QUERY_DEVICE, 6, 44) +
                        struct.pack("<Q", rr.addr) + b"\1" + bytes(7)),
           errno.EOPNOTSUPP)
    expect("QUERY_DEVICE into NULL",
           uverbs_write(fd, uverbs_hdr(QUERY_DEVICE, 4, 44) +
                        struct.pack("<Q", 0)),
           errno.EFAULT)

    # --- EX QUERY_DEVICE ----------------------------------------------
    e, r = ex_query_device(fd)
    expect("EX QUERY_DEVICE", e, 0)
    rl = struct.unpack_from("<I", r, 180)[0]
    report(rl == 304, "EX QUERY_DEVICE response_length 304", str(rl))
    report(r[8:16] == guid, "EX QUERY_DEVICE node_guid", r[8:16].hex())
    e, r = ex_query_device(fd, out_words=23)
    expect("EX QUERY_DEVICE with the minimum response (184)", e, 0)
    rl = struct.unpack_from("<I", r, 180)[0]
    report(rl == 184, "... response_length 184", str(rl))
    expect("EX QUERY_DEVICE response below 184 bytes",
           ex_query_device(fd, out_words=22)[0], errno.ENOSPC)
    expect("EX QUERY_DEVICE non-zero comp_mask",
           ex_query_device(fd, comp_mask=1)[0], errno.EINVAL)
    expect("EX QUERY_DEVICE non-zero reserved",
           ex_query_device(fd, cmd_reserved=1)[0], errno.EINVAL)
    expect("EX header reserved non-zero",
           ex_query_device(fd, reserved=1)[0], errno.EINVAL)
    expect("EX QUERY_DEVICE out_words without a response pointer",
           ex_query_device(fd, resp_addr=0)[0], errno.EINVAL)
    expect("EX QUERY_DEVICE driver data the driver refuses",
           ex_query_device(fd, prov_in=1)[0], errno.EINVAL)
    expect("EX header lengths disagree with the write",
           uverbs_write(fd, uverbs_hdr(QUERY_DEVICE | UVERBS_EXTENDED, 2, 38) +
                        uverbs_ex_hdr(Buf(304).addr) + bytes(8)),
           errno.EINVAL)
    expect("EX truncated extended header",
           uverbs_write(fd, uverbs_hdr(QUERY_DEVICE | UVERBS_EXTENDED, 1, 38) +
                        bytes(8)),
           errno.EINVAL)
    expect("EX QUERY_DEVICE unmapped response",
           ex_query_device(fd, resp_addr=0x10)[0], errno.EFAULT)

    # --- QUERY_PORT ------------------------------------------------------
    e, r = query_port(fd, 1)
    expect("QUERY_PORT 1", e, 0)
    (cap, msg, bad, qkey, gidlen, pkeylen, plid, smlid, state, maxmtu,
     actmtu, lmc, vls, smsl, subto, itr, width, speed, phys, ll,
     flags) = struct.unpack("<IIIIIHHHBBBBBBBBBBBBB", r[:39])
    report(state == 4, "QUERY_PORT state ACTIVE", str(state))
    report(plid == lid, "QUERY_PORT lid %d" % lid, str(plid))
    report(ll == 1, "QUERY_PORT link_layer InfiniBand", str(ll))
    report(actmtu == 5 and maxmtu == 5, "QUERY_PORT MTUs 4096",
           "%d %d" % (maxmtu, actmtu))
    report(gidlen > 0 and pkeylen > 0, "QUERY_PORT table lengths",
           "%d %d" % (gidlen, pkeylen))
    report(phys == 5, "QUERY_PORT phys_state LinkUp", str(phys))
    report(width != 0 and speed != 0, "QUERY_PORT width and speed",
           "%d %d" % (width, speed))
    report(not (cap & (1 << 26)), "QUERY_PORT no IP-based GIDs bit",
           "%#x" % cap)
    for port in (0, 2, 255):
        expect("QUERY_PORT %d" % port, query_port(fd, port)[0],
               errno.EINVAL)
    expect("QUERY_PORT into NULL",
           uverbs_write(fd, uverbs_hdr(QUERY_PORT, 6, 10) +
                        struct.pack("<QB7x", 0, 1)),
           errno.EFAULT)

    # --- PDs ----------------------------------------------------------------
    e, h0 = alloc_pd(fd)
    expect("ALLOC_PD", e, 0)
    report(h0 == 0, "first PD handle is 0", str(h0))
    e, h1 = alloc_pd(fd)
    expect("second ALLOC_PD", e, 0)
    report(h1 == 1, "second PD handle is 1", str(h1))
    expect("ALLOC_PD into NULL", alloc_pd(fd, 0)[0], errno.EFAULT)
    expect("ALLOC_PD into an unmapped address", alloc_pd(fd, 0x10)[0],
           errno.EFAULT)
    expect("ALLOC_PD with out_words 0",
           uverbs_write(fd, uverbs_hdr(ALLOC_PD, 4, 0) +
                        struct.pack("<Q", Buf(4).addr)),
           errno.ENOSPC)
    e, h2 = alloc_pd(fd)
    report(e == 0 and h2 == 2, "failed ALLOC_PDs left no handle behind",
           "%s handle %d" % (errno_name(e), h2))
    expect("DEALLOC_PD of a bogus handle", dealloc_pd(fd, 12345),
           errno.ENOENT)
    expect("DEALLOC_PD of handle 0xffffffff", dealloc_pd(fd, 0xffffffff),
           errno.ENOENT)
    expect("DEALLOC_PD", dealloc_pd(fd, h1), 0)
    expect("DEALLOC_PD of a freed handle", dealloc_pd(fd, h1), errno.ENOENT)
    e, h3 = alloc_pd(fd)
    report(e == 0 and h3 == h1, "the lowest free handle is reused",
           "%s handle %d" % (errno_name(e), h3))
    expect("DEALLOC_PD with a truncated request",
           uverbs_write(fd, uverbs_hdr(DEALLOC_PD, 2, 0)), errno.ENOSPC)

    objects(fd, async_fd, h0)

    # --- mmap ------------------------------------------------------------
    try:
        mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        report(False, "mmap without a driver queue fails", "succeeded")
    except OSError as e:
        report(True, "mmap without a driver queue fails (%s)" %
               errno.errorcode.get(e.errno, e.errno))
    try:
        mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                  offset=0x7fff0000)
        report(False, "mmap of a bogus offset fails", "succeeded")
    except OSError as e:
        report(True, "mmap of a bogus offset fails (%s)" %
               errno.errorcode.get(e.errno, e.errno))

    # PDs h0, h2, h3 are left for close to free
    os.close(fd)
    try:
        os.read(async_fd, 16)
        report(False, "async fd after close of its uverbs file", "read data")
    except OSError as e:
        expect("async fd after close of its uverbs file", e.errno, errno.EIO)
    os.close(async_fd)


def slab_bytes():
    total = 0
    filp = 0
    with open("/proc/slabinfo") as f:
        for line in f.readlines()[2:]:
            fields = line.split()
            total += int(fields[1]) * int(fields[3])
            if fields[0] == "filp":
                filp = int(fields[1])
    return total, filp


def cycle(dev, with_dealloc):
    fd = os.open(dev, os.O_RDWR)
    e, async_fd, _ = get_context(fd)
    if e:
        os.close(fd)
        return e
    e, h = alloc_pd(fd)
    if not e and with_dealloc:
        e = dealloc_pd(fd, h)
    os.close(fd)
    os.close(async_fd)
    return e


def cycles(dev, n):
    for i in range(50):
        cycle(dev, i & 1)
    before, filp_before = slab_bytes()
    errs = [e for e in (cycle(dev, i & 1) for i in range(n)) if e]
    after, filp_after = slab_bytes()
    report(not errs, "%d open/GET_CONTEXT/ALLOC_PD/close cycles" % n,
           "%d failed, first %s" %
           (len(errs), errno_name(errs[0]) if errs else ""))
    print("# slab bytes %d -> %d, filp objects %d -> %d" %
          (before, after, filp_before, filp_after))
    report(after - before < 256 * 1024,
           "slab usage stable over the cycles (%+d bytes)" % (after - before),
           "grew by %d bytes" % (after - before))
    report(filp_after - filp_before < n // 4,
           "no file objects leaked (%+d)" % (filp_after - filp_before),
           "filp grew by %d" % (filp_after - filp_before))


def hold(dev, ready, go):
    fd = os.open(dev, os.O_RDWR)
    e, async_fd, _ = get_context(fd)
    expect("holder: GET_CONTEXT", e, 0)
    e, h = alloc_pd(fd)
    expect("holder: ALLOC_PD", e, 0)
    # objects the removal must destroy; no ring is mapped (that would pin
    # the driver)
    e, chan = create_comp_channel(fd)
    expect("holder: CREATE_COMP_CHANNEL", e, 0)
    e, cq = create_cq(fd, channel=chan)
    expect("holder: CREATE_CQ", e, 0)
    expect("holder: REQ_NOTIFY_CQ", req_notify_cq(fd, cq), 0)
    expect("holder: CREATE_QP", create_qp(fd, h, cq, cq)[0], 0)
    buf = Buf(8192)
    expect("holder: REG_MR",
           reg_mr(fd, h, (buf.addr + 4095) & ~4095, 4096)[0], 0)
    expect("holder: CREATE_AH", create_ah(fd, h)[0], 0)
    expect("holder: CREATE_SRQ", create_srq(fd, h)[0], 0)
    open(ready, "w").close()
    deadline = time.time() + 120
    while not os.path.exists(go) and time.time() < deadline:
        time.sleep(0.1)
    expect("holder, device gone: QUERY_PORT", query_port(fd, 1)[0],
           errno.EIO)
    expect("holder, device gone: QUERY_DEVICE", query_device(fd)[0],
           errno.EIO)
    expect("holder, device gone: ALLOC_PD", alloc_pd(fd)[0], errno.EIO)
    expect("holder, device gone: DEALLOC_PD", dealloc_pd(fd, h), errno.EIO)
    expect("holder, device gone: GET_CONTEXT", get_context(fd)[0], errno.EIO)
    expect("holder, device gone: DESTROY_CQ", destroy_cq(fd, cq)[0],
           errno.EIO)
    try:
        os.read(chan, 8)
        report(False, "holder, device gone: channel read", "read data")
    except OSError as e:
        expect("holder, device gone: channel read", e.errno, errno.EIO)
    os.close(chan)
    try:
        os.read(async_fd, 16)
        report(False, "holder, device gone: async fd read", "read data")
    except OSError as e:
        expect("holder, device gone: async fd read", e.errno, errno.EIO)
    os.close(fd)
    os.close(async_fd)
    report(True, "holder closed its files")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "abi":
        abi(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif mode == "cycles":
        cycles(sys.argv[2], int(sys.argv[3]))
    elif mode == "hold":
        hold(sys.argv[2], sys.argv[3], sys.argv[4])
    sys.exit(exit_status())
