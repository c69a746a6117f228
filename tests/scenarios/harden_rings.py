#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# A process that keeps rewriting the producer index of its mapped send or
# receive ring, and ringing the doorbell, while its QP is in the error
# state, for the vmlx-hardening scenario: the flush of the ring must stay
# bounded, so that the QP can still be destroyed (its work item gives the
# QP's lock up between passes) while the process goes on.  Raw uverbs
# commands (uverbs_cmd.py) and the soft-RoCE ring layout.  Prints "ok
# <what>" / "not ok <what>" (checker.py).
#
#   harden_rings.py DEV sq|rq
#   harden_rings.py DEV memcg CGROUP   the rings of user objects are charged
#                                     to the memory cgroup CGROUP (v2) the
#                                     process runs in, and its limit holds
#   harden_rings.py DEV rdmacg CGROUP IBDEV   contexts and objects are
#                                     charged to the rdma cgroup, whose
#                                     rdma.max bounds them
import errno
import mmap
import os
import struct
import sys
import threading
import time

import uverbs_cmd as uc
from checker import (Buf, errno_name, exit_status, expect, report, uverbs_hdr,
                     uverbs_write)

PRODUCER, CONSUMER = 128, 256     # struct rxe_queue_buf
QPS_ERR = 6
RUN_SECS = 2.0
DESTROY_SECS = 15.0


def create_qp(fd, pd, cq, max_wr):
    """An RC QP with max_wr send and receive WQEs; (handle, rq_mi, sq_mi)."""
    resp = Buf(64)
    e = uverbs_write(fd, uverbs_hdr(uc.CREATE_QP, 16, 16) +
                     struct.pack("<QQIIIIIIIIIBBBB", resp.addr, 1, pd, cq, cq,
                                 0, max_wr, max_wr, 1, 1, 0, 0, 2, 0, 0))
    if e:
        raise OSError(e, "CREATE_QP")
    raw = resp.raw()
    handle = struct.unpack_from("<I", raw, 0)[0]
    rq_mi = struct.unpack_from("<QI", raw, 32)
    sq_mi = struct.unpack_from("<QI", raw, 48)
    return handle, rq_mi, sq_mi


POST_RECV = 29
BIG_CQE = 32768			# a ring of 65536 slots of 64 bytes: 4 MiB
MIB = 1 << 20


def modify_init(fd, handle):
    """MODIFY_QP RESET -> INIT: port 1, P_Key index 0, no remote access."""
    cmd = bytearray(uverbs_hdr(uc.MODIFY_QP, 30, 0) + bytes(112))
    body = 8
    struct.pack_into("<II", cmd, body + 64, handle, 1 | 8 | 16 | 32)
    cmd[body + 96] = 1			# qp_state INIT
    cmd[body + 104] = 1			# port_num
    return uverbs_write(fd, bytes(cmd))


def post_recv(fd, handle):
    return uverbs_write(fd, uverbs_hdr(POST_RECV, 8, 1) +
                        struct.pack("<QIIII", Buf(4).addr, handle, 0, 0, 32))


def create_cq_mapped(fd, cqe):
    """A CQ of @cqe entries; (errno, handle, its ring mapped)."""
    resp = Buf(24)
    e = uverbs_write(fd, uverbs_hdr(uc.CREATE_CQ, 10, 6) +
                     struct.pack("<QQIIiI", resp.addr, 1, cqe, 0, -1, 0))
    if e:
        return e, None, None
    handle = struct.unpack_from("<I", resp.raw(), 0)[0]
    off, size = struct.unpack_from("<QI", resp.raw(), 8)
    ring = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ, offset=off)
    return 0, handle, ring


def main(dev, which):
    fd = os.open(dev, os.O_RDWR)
    e, async_fd, _ = uc.get_context(fd)
    e, pd = uc.alloc_pd(fd)
    # room for every flush completion of several passes: none is lost
    e, cq, cq_ring = create_cq_mapped(fd, BIG_CQE)
    expect("CREATE_CQ of %d entries" % BIG_CQE, e, 0)
    qp, rq_mi, sq_mi = create_qp(fd, pd, cq, 4000)
    off, size = sq_mi if which == "sq" else rq_mi
    ring = mmap.mmap(fd, size, mmap.MAP_SHARED,
                     mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
    mask = struct.unpack_from("<I", ring, 4)[0]
    report(mask >= 4095, "%s ring of %d slots mapped" % (which, mask + 1))
    expect("MODIFY_QP RESET -> INIT", modify_init(fd, qp), 0)
    e = uc.modify_qp(fd, qp, mask=1, state=QPS_ERR)
    expect("MODIFY_QP INIT -> ERR", e, 0)

    def ring_doorbell():
        return uc.post_send(fd, qp) if which == "sq" else post_recv(fd, qp)

    # A child keeps the ring full whatever the kernel has consumed, on a
    # CPU of its own that the kernel's work item cannot take from it (a
    # real-time task), so that the flush runs beside the rewriting.
    cpus = sorted(os.sched_getaffinity(0))
    child = os.fork()
    if child == 0:
        os.sched_setaffinity(0, {cpus[-1]})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        while True:
            cons = struct.unpack_from("<I", ring, CONSUMER)[0]
            struct.pack_into("<I", ring, PRODUCER, (cons - 1) & mask)
    while struct.unpack_from("<I", ring, PRODUCER)[0] != mask:
        time.sleep(0.01)

    # one doorbell: one pass, at most what the ring held then
    expect("%s doorbell in ERR" % which, ring_doorbell(), 0)
    time.sleep(1.0)
    flushed = struct.unpack_from("<I", cq_ring, PRODUCER)[0]
    report(flushed <= mask,
           "one doorbell flushes at most one ring (%d WQEs)" % flushed,
           "%d completions for a ring of %d slots" % (flushed, mask + 1))

    # a doorbell every millisecond: the QP can still be destroyed
    stop = threading.Event()
    rings = [0, 0]

    def doorbell():
        while not stop.is_set():
            rings[0 if ring_doorbell() == 0 else 1] += 1
            time.sleep(0.001)

    t = threading.Thread(target=doorbell)
    t.start()
    time.sleep(RUN_SECS)
    stop.set()
    t.join()
    report(rings[0] > 0 and not rings[1],
           "%s doorbell in ERR rang %d times" % (which, rings[0]),
           "%d doorbells failed" % rings[1])

    result = {}

    def destroy():
        result["errno"] = uc.destroy_qp(fd, qp)
        result["when"] = time.monotonic()

    start = time.monotonic()
    d = threading.Thread(target=destroy)
    d.start()
    d.join(DESTROY_SECS)
    rewriting = "when" in result and os.waitpid(child, os.WNOHANG) == (0, 0)
    os.kill(child, 9)
    os.waitpid(child, 0)
    d.join()
    took = result["when"] - start
    report(rewriting and result["errno"] == 0,
           "DESTROY_QP returns while the process still rewrites the %s "
           "producer index" % which,
           "errno %s after %.1f s (the rewriting stopped at %.1f s)" %
           (errno_name(result["errno"]), took, DESTROY_SECS))
    ring.close()
    cq_ring.close()
    e, _ = uc.destroy_cq(fd, cq)
    expect("DESTROY_CQ", e, 0)
    os.close(fd)
    os.close(async_fd)


def cg_read(cg, name):
    with open(os.path.join(cg, name)) as f:
        return f.read()


def cg_events(cg, key):
    for line in cg_read(cg, "memory.events").splitlines():
        k, v = line.split()
        if k == key:
            return int(v)
    return 0


def memcg(dev, cg):
    """Rings charged to the creator's memory cgroup, and its limit."""
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    fd = os.open(dev, os.O_RDWR)
    e, async_fd, _ = uc.get_context(fd)
    e, pd = uc.alloc_pd(fd)
    cur = lambda: int(cg_read(cg, "memory.current"))
    before = cur()
    e, cq = uc.create_cq(fd, cqe=BIG_CQE)
    expect("CREATE_CQ of %d entries" % BIG_CQE, e, 0)
    grew = cur() - before
    report(grew >= 4 * MIB, "the CQ's 4 MiB ring is charged to the cgroup",
           "memory.current grew by %d bytes" % grew)
    e, small = uc.create_cq(fd, cqe=16)
    before = cur()
    qp, _, _ = create_qp(fd, pd, small, 4000)
    grew = cur() - before
    # a send ring and its private shadow of 4096 slots of 256 bytes each,
    # and a receive ring of 4096 slots of 64 bytes
    report(grew >= 2 * MIB + MIB // 4,
           "the QP's rings and shadow are charged to the cgroup",
           "memory.current grew by %d bytes" % grew)
    before = cur()
    expect("DESTROY_QP", uc.destroy_qp(fd, qp), 0)
    expect("DESTROY_CQ", uc.destroy_cq(fd, cq)[0], 0)
    fell = before - cur()
    report(fell >= 6 * MIB, "destroying them uncharges it",
           "memory.current fell by %d bytes" % fell)

    # a child with less room than a big CQ needs: the limit holds, and the
    # creation fails with ENOMEM instead of calling the OOM killer
    kills = cg_events(cg, "oom_kill")
    with open(os.path.join(cg, "memory.max"), "w") as f:
        f.write(str(cur() + MIB))
    pid = os.fork()
    if pid == 0:
        cfd = os.open(dev, os.O_RDWR)
        uc.get_context(cfd)
        e, _ = uc.create_cq(cfd, cqe=BIG_CQE)
        os._exit(e if e else 100)
    _, status = os.waitpid(pid, 0)
    with open(os.path.join(cg, "memory.max"), "w") as f:
        f.write("max")
    enomem = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 12
    report(enomem and cg_events(cg, "oom_kill") == kills,
           "memory.max 1 MiB above use: a 4 MiB CQ is refused with "
           "ENOMEM, nobody OOM-killed",
           "status %#x, oom_kill %d -> %d" %
           (status, kills, cg_events(cg, "oom_kill")))
    expect("DEALLOC_PD", uc.dealloc_pd(fd, pd), 0)
    os.close(fd)
    os.close(async_fd)


def rdma_current(cg, ibdev):
    """(hca_handle, hca_object) of @ibdev in the cgroup's rdma.current."""
    for line in cg_read(cg, "rdma.current").splitlines():
        words = line.split()
        if words and words[0] == ibdev:
            kv = dict(w.split("=") for w in words[1:])
            return int(kv["hca_handle"]), int(kv["hca_object"])
    return 0, 0


def rdmacg(dev, cg, ibdev):
    """rdma.max: one context and three objects on @ibdev."""
    try:
        with open(os.path.join(cg, "rdma.max"), "w") as f:
            f.write("%s hca_handle=1 hca_object=3" % ibdev)
    except OSError as e:
        # ENODEV: the controller does not know the device
        report(False, "rdma.max takes a limit for %s" % ibdev, str(e))
        return
    report(True, "rdma.max takes a limit for %s" % ibdev)
    # a process outside the cgroup has no such limit
    other = os.open(dev, os.O_RDWR)
    uc.get_context(other)
    pds = [uc.alloc_pd(other) for _ in range(5)]
    report(all(e == 0 for e, _ in pds),
           "outside the cgroup: five PDs", "%r" % pds)
    os.close(other)

    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    fd = os.open(dev, os.O_RDWR)
    e, async_fd, _ = uc.get_context(fd)
    expect("in the cgroup: GET_CONTEXT", e, 0)
    fd2 = os.open(dev, os.O_RDWR)
    expect("a second context: EAGAIN (hca_handle=1)",
           uc.get_context(fd2)[0], errno.EAGAIN)
    os.close(fd2)
    pds = [uc.alloc_pd(fd) for _ in range(3)]
    report(all(e == 0 for e, _ in pds), "three PDs", "%r" % pds)
    expect("a fourth object: EAGAIN (hca_object=3)",
           uc.create_cq(fd)[0], errno.EAGAIN)
    cur = rdma_current(cg, ibdev)
    report(cur == (1, 3), "rdma.current: hca_handle=1 hca_object=3",
           "%r" % (cur,))
    expect("DEALLOC_PD", uc.dealloc_pd(fd, pds[0][1]), 0)
    e, cq = uc.create_cq(fd)
    expect("after one is freed, a CQ", e, 0)
    os.close(fd)
    os.close(async_fd)
    cur = rdma_current(cg, ibdev)
    report(cur == (0, 0), "after close: rdma.current back to 0",
           "%r" % (cur,))
    with open(os.path.join(cg, "rdma.max"), "w") as f:
        f.write("%s hca_handle=max hca_object=max" % ibdev)


if __name__ == "__main__":
    if sys.argv[2] == "memcg":
        memcg(sys.argv[1], sys.argv[3])
    elif sys.argv[2] == "rdmacg":
        rdmacg(sys.argv[1], sys.argv[3], sys.argv[4])
    else:
        main(sys.argv[1], sys.argv[2])
    sys.exit(exit_status())
