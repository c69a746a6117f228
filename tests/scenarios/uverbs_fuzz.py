#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Randomised bad input for /dev/infiniband/uverbsN, for the uverbs-devinfo
# scenario: a fixed number of write() commands and mmap() calls built from
# valid requests by random mutation (fields replaced by boundary values,
# handles of other types or of freed objects, truncated or extended
# buffers, wrong word counts, bad response pointers) or made up from
# nothing, and random work requests written into mapped send rings
# followed by the doorbell.  Every call must come back, with success or
# with an errno of the documented set; the run is split into epochs, each
# closing its file with whatever objects the random commands left, and a
# fresh context must work at the end.  The kernel's health is the
# harness's business (dmesg, taint).
#
#   uverbs_fuzz.py DEV ITERATIONS [SEED]
#
# Prints "ok <what>" / "not ok <what>" (checker.py).
import ctypes
import errno
import mmap
import os
import random
import struct
import sys
import time

from checker import (UVERBS_EXTENDED, errno_name, exit_status, report,
                     uverbs_ex_hdr, uverbs_hdr, uverbs_write)
from uverbs_cmd import (ALLOC_PD, CREATE_AH, CREATE_COMP_CHANNEL, CREATE_CQ,
                        CREATE_QP, CREATE_SRQ, DEALLOC_PD, DEREG_MR,
                        DESTROY_AH, DESTROY_CQ, DESTROY_QP, DESTROY_SRQ,
                        GET_CONTEXT, MODIFY_QP, MODIFY_SRQ, POST_SEND,
                        QUERY_DEVICE, QUERY_PORT, QUERY_QP, QUERY_SRQ,
                        REG_MR, REQ_NOTIFY_CQ, alloc_pd, dealloc_pd,
                        get_context)

POST_RECV, POST_SRQ_RECV, RESIZE_CQ, ATTACH_MCAST = 29, 36, 19, 30

# What a bad command may answer.  Anything else (EIO without a device
# removal, ENOTTY, a short count) is a failure.
ALLOWED = {0, errno.EINVAL, errno.ENOSPC, errno.EOPNOTSUPP, errno.EFAULT,
           errno.ENOENT, errno.EBUSY, errno.ENOMEM, errno.EPERM,
           errno.EACCES, errno.ENOSYS, errno.E2BIG, errno.EAGAIN,
           errno.EMFILE, errno.EBADF, errno.ERANGE, errno.EOVERFLOW}

EPOCH = 400			# commands per open file
REGION = 4 << 20		# response/request scratch memory
INTERESTING = [0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
               0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff]

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def scratch_region():
    """REGION bytes of memory followed by an inaccessible guard page, so
    that no response, however long, can reach Python's own memory."""
    prot_rw, map_private_anon = 3, 0x22
    base = libc.mmap(None, REGION + 4096, prot_rw, map_private_anon, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    if libc.mprotect(base + REGION, 4096, 0):
        raise OSError(ctypes.get_errno(), "mprotect")
    return base


class Fuzzer:
    def __init__(self, dev, seed):
        self.dev = dev
        self.rng = random.Random(seed)
        self.base = scratch_region()
        self.errnos = {}
        self.bad = []
        self.maps = []
        self.calls = 0

    # --- pointers, values and handles ---------------------------------
    def resp_ptr(self):
        """Mostly a good response pointer, sometimes a bad one.  A good
        one leaves at least 2 MiB of scratch memory behind it."""
        r = self.rng.random()
        if r < 0.85:
            return self.base + self.rng.randrange(0, 1 << 20, 8)
        return self.rng.choice([0, 8, 0x1000, self.base + REGION - 4,
                                self.base + REGION, 0xffff888000000000,
                                0xffffffffffffffff, 0x7ffffffff000])

    def handle(self):
        r = self.rng.random()
        if r < 0.8:
            return self.rng.randrange(0, 24)
        return self.rng.choice(INTERESTING)

    def value(self):
        r = self.rng.random()
        if r < 0.6:
            return self.rng.choice(INTERESTING)
        if r < 0.8:
            return self.handle()
        return self.rng.getrandbits(32)

    def user_addr(self):
        """An address in the scratch region (pinnable) or a bad one."""
        if self.rng.random() < 0.7:
            return self.base + 4096 * self.rng.randrange(0, 256)
        return self.rng.choice([0, 0x1000, 0xffff888000000000,
                                (1 << 64) - 4096, self.base + REGION])

    # --- valid-looking requests -----------------------------------------
    def template(self):
        """(command, core request incl. response pointer, out_words,
        extended?) of a plausible command."""
        h, v, rp, rng = self.handle, self.value, self.resp_ptr, self.rng
        choices = [
            (GET_CONTEXT, struct.pack("<Q", rp()), 2),
            (QUERY_DEVICE, struct.pack("<Q", rp()), 44),
            (QUERY_PORT, struct.pack("<QB7x", rp(), rng.randrange(4)), 10),
            (ALLOC_PD, struct.pack("<Q", rp()), 1),
            (DEALLOC_PD, struct.pack("<I", h()), 0),
            (CREATE_AH, struct.pack("<QQII", rp(), 1, h(), 0) + bytes(24) +
             struct.pack("<HBBBBBB", v() & 0xffff, rng.randrange(16), 0,
                         rng.randrange(2), 0, rng.randrange(4), 0), 3),
            (DESTROY_AH, struct.pack("<I", h()), 0),
            (REG_MR, struct.pack("<QQQQII", rp(), self.user_addr(),
                                 rng.choice([1, 4096, 65536, 1 << 20,
                                             1 << 40, v()]),
                                 self.user_addr(), h(),
                                 rng.choice([0, 1, 3, 7, 0xf, 0x100001,
                                             v()])), 3),
            (DEREG_MR, struct.pack("<I", h()), 0),
            (CREATE_COMP_CHANNEL, struct.pack("<Q", rp()), 1),
            (CREATE_CQ, struct.pack("<QQIIII", rp(), 7,
                                    rng.choice([1, 16, 4096, v()]),
                                    rng.choice([0, 1, v()]),
                                    rng.choice([0xffffffff, 3, h()]), 0), 6),
            (RESIZE_CQ, struct.pack("<QII", rp(), h(), v()), 6),
            (DESTROY_CQ, struct.pack("<QII", rp(), h(), 0), 2),
            (REQ_NOTIFY_CQ, struct.pack("<II", h(), rng.randrange(3)), 0),
            (CREATE_QP, struct.pack("<QQIIIIIIIIIBBBB", rp(), 9, h(), h(),
                                    h(), h(), v() & 0xff, v() & 0xff,
                                    rng.randrange(4), rng.randrange(4),
                                    rng.choice([0, 64, v()]), 0,
                                    rng.choice([2, 3, 4, v() & 0xff]),
                                    rng.randrange(2), 0), 16),
            (QUERY_QP, struct.pack("<QII", rp(), h(), v()), 32),
            (MODIFY_QP, bytes(64) + struct.pack("<II", h(), v()) +
             bytes(self.rng.getrandbits(8) for _ in range(24)) +
             struct.pack("<B", rng.randrange(8)) + bytes(15), 0),
            (DESTROY_QP, struct.pack("<QII", rp(), h(), 0), 1),
            (POST_SEND, struct.pack("<QIIII", rp(), h(),
                                    rng.choice([0, 0, 1, v()]),
                                    rng.choice([0, 1, v()]),
                                    rng.choice([128, 0, v()])), 1),
            (POST_RECV, struct.pack("<QIIII", rp(), h(), rng.randrange(3),
                                    rng.randrange(3), v()), 1),
            (POST_SRQ_RECV, struct.pack("<QIIII", rp(), h(),
                                        rng.randrange(3), rng.randrange(3),
                                        v()), 1),
            (ATTACH_MCAST, bytes(16) + struct.pack("<IHH", h(), v() & 0xffff,
                                                   0), 0),
            (CREATE_SRQ, struct.pack("<QQIIII", rp(), 5, h(),
                                     rng.choice([1, 16, v()]),
                                     rng.choice([1, v()]), v()), 10),
            (MODIFY_SRQ, struct.pack("<IIII", h(), rng.randrange(4), v(),
                                     v()), 0),
            (QUERY_SRQ, struct.pack("<QII", rp(), h(), 0), 5),
            (DESTROY_SRQ, struct.pack("<QII", rp(), h(), 0), 2),
        ]
        cmd, body, out = rng.choice(choices)
        return cmd, body, out

    def ex_template(self):
        """(command, ex header fields, core request, out_words) of an
        extended command."""
        h, v, rng = self.handle, self.value, self.rng
        choices = [
            (QUERY_DEVICE, struct.pack("<II", v(), v() & 1), 38),
            (CREATE_CQ, struct.pack("<QIIiIII", 1, rng.choice([16, v()]),
                                    0, -1, rng.choice([0, 1, v()]),
                                    rng.choice([0, 1, v()]), 0), 4),
            (CREATE_QP, struct.pack("<QIIIIIIIIIBBBBIII", 2, h(), h(), h(),
                                    h(), 4, 4, 1, 1, 0, 0, 2, 0, 0,
                                    rng.choice([0, 1, v()]),
                                    rng.choice([0, v()]), 0), 5),
            (MODIFY_QP, bytes(64) + struct.pack("<II", h(), v()) +
             bytes(48), 1),
        ]
        return rng.choice(choices)

    # --- mutations ---------------------------------------------------------
    def mutate(self, body, keep=0):
        """Random changes to a request; its first @keep bytes (the
        response pointer) stay: a pointer moved by a few bytes could
        let the kernel write into this process's own memory."""
        body = bytearray(body)
        for _ in range(self.rng.randrange(0, 4)):
            r = self.rng.random()
            if len(body) <= keep:
                body += bytes(self.rng.getrandbits(8)
                              for _ in range(self.rng.randrange(1, 64)))
            elif r < 0.5 and len(body) >= keep + 4:
                off = self.rng.randrange(keep, len(body) - 3) & ~3
                body[off:off + 4] = struct.pack("<I", self.value())
            elif r < 0.7:
                off = self.rng.randrange(keep, len(body))
                body[off] = self.rng.getrandbits(8)
            elif r < 0.85:
                body = body[:self.rng.randrange(keep, len(body) + 1)]
            else:
                body += bytes(self.rng.getrandbits(8)
                              for _ in range(self.rng.randrange(1, 64)))
        return bytes(body)

    def words(self, good):
        """A word count: mostly right, sometimes near, sometimes wild."""
        r = self.rng.random()
        if r < 0.7:
            return good
        if r < 0.9:
            return max(0, min(0xffff, good + self.rng.randrange(-4, 5)))
        return self.rng.getrandbits(16)

    def legacy(self):
        if self.rng.random() < 0.1:
            cmd = self.rng.randrange(0, 64)
            body = bytes(self.rng.getrandbits(8)
                         for _ in range(self.rng.randrange(0, 128)))
            out = self.rng.randrange(0, 64)
        else:
            cmd, body, out = self.template()
            # legacy requests with a response start with its pointer
            body = self.mutate(body, 8 if out else 0)
        if self.rng.random() < 0.03:
            cmd |= self.rng.choice([1 << 16, 1 << 24, 0x40000000])
        if self.rng.random() < 0.9:
            body += bytes(-len(body) % 4)
        in_words = (8 + len(body)) // 4
        if self.rng.random() < 0.2:
            in_words = self.words(in_words)
        return uverbs_hdr(cmd, in_words & 0xffff,
                          self.words(out) & 0xffff) + body

    def extended(self):
        cmd, core, out = self.ex_template()
        core = self.mutate(core)
        pad = (-len(core)) % 8
        core += bytes(pad)
        prov_in = self.rng.choice([0, 0, 0, 1, 2])
        prov_out = self.rng.choice([0, 0, 2, 3])
        resp = self.resp_ptr() if self.rng.random() < 0.95 else 0
        reserved = 0 if self.rng.random() < 0.9 else self.rng.getrandbits(32)
        return (uverbs_hdr(cmd | UVERBS_EXTENDED,
                           self.words(len(core) // 8), self.words(out)) +
                uverbs_ex_hdr(resp, prov_in, prov_out, reserved) + core +
                bytes(8 * prov_in))

    # --- system calls ----------------------------------------------------------
    def record(self, what, e):
        self.calls += 1
        self.errnos[e] = self.errnos.get(e, 0) + 1
        if e not in ALLOWED and len(self.bad) < 10:
            self.bad.append("%s -> %s" % (what, errno_name(e)))

    def write(self, fd, data):
        self.record("write %s" % data[:16].hex(), uverbs_write(fd, data))

    def mmap_one(self, fd, offsets):
        size = self.rng.choice([4096, 8192, 65536, 1 << 20])
        if offsets and self.rng.random() < 0.6:
            off = self.rng.choice(offsets)
        else:
            off = self.rng.choice([0, 4096, 0x7fff0000, 1 << 40]) & ~4095
        try:
            m = mmap.mmap(fd, size, mmap.MAP_SHARED,
                          mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
            e = 0
        except (OSError, ValueError) as ex:
            m = None
            e = getattr(ex, "errno", None) or errno.EINVAL
        self.record("mmap off %#x size %#x" % (off, size), e)
        if m:
            # random producer index and random WQEs: the kernel reads
            # them, and must not trust them
            for _ in range(8):
                pos = self.rng.randrange(0, size - 8) & ~7
                m[pos:pos + 8] = struct.pack("<Q", self.rng.getrandbits(64))
            self.maps.append(m)

    # --- one epoch: a file, some objects, random commands ----------------
    def setup(self, fd):
        """A few valid objects for the random handles to hit; returns the
        mmap offsets their create responses announced."""
        offsets = []
        resp = self.base + (3 << 20)
        cmds = [
            (ALLOC_PD, struct.pack("<Q", resp), 1),
            (ALLOC_PD, struct.pack("<Q", resp), 1),
            (CREATE_COMP_CHANNEL, struct.pack("<Q", resp), 1),
            (CREATE_CQ, struct.pack("<QQIIiI", resp, 1, 64, 0, -1, 0), 6),
            (CREATE_CQ, struct.pack("<QQIIiI", resp, 2, 64, 0, -1, 0), 6),
        ]
        for qp_type in (2, 3, 4):
            cmds.append((CREATE_QP,
                         struct.pack("<QQIIIIIIIIIBBBB", resp, 3, 1, 3, 4, 0,
                                     16, 16, 2, 2, 0, 0, qp_type, 0, 0), 16))
        cmds.append((CREATE_SRQ, struct.pack("<QQIIII", resp, 4, 1, 16, 1, 0),
                     10))
        for cmd, body, out in cmds:
            ctypes.memset(resp, 0, 256)
            try:
                os.write(fd, uverbs_hdr(cmd, (8 + len(body)) // 4, out) + body)
            except OSError:
                continue
            raw = ctypes.string_at(resp, 256)
            if cmd == CREATE_CQ:
                offsets.append(struct.unpack_from("<Q", raw, 8)[0])
            elif cmd == CREATE_QP:
                offsets += [struct.unpack_from("<Q", raw, 32)[0],
                            struct.unpack_from("<Q", raw, 48)[0]]
            elif cmd == CREATE_SRQ:
                offsets.append(struct.unpack_from("<Q", raw, 16)[0])
        return [o for o in offsets if o and not o & 4095]

    def epoch(self, n):
        fd = os.open(self.dev, os.O_RDWR)
        e, async_fd, _ = get_context(fd)
        if e:
            os.close(fd)
            self.bad.append("GET_CONTEXT at the start of an epoch: %s" %
                            errno_name(e))
            return
        offsets = self.setup(fd)
        fds = set(os.listdir("/proc/self/fd"))
        for _ in range(n):
            r = self.rng.random()
            if r < 0.8:
                self.write(fd, self.legacy())
            elif r < 0.95:
                self.write(fd, self.extended())
            else:
                self.mmap_one(fd, offsets)
        for m in self.maps:
            m.close()
        self.maps = []
        # channels and async fds the random commands created
        for f in set(os.listdir("/proc/self/fd")) - fds:
            try:
                os.close(int(f))
            except OSError:
                pass
        os.close(fd)
        os.close(async_fd)


def main():
    dev, iterations = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261121
    print("# seed %d, %d iterations on %s" % (seed, iterations, dev))
    fz = Fuzzer(dev, seed)
    start = time.time()
    left = iterations
    while left > 0:
        fz.epoch(min(EPOCH, left))
        left -= EPOCH
    summary = ", ".join("%s %d" % (errno_name(e), c)
                        for e, c in sorted(fz.errnos.items(),
                                           key=lambda x: -x[1]))
    print("# %d calls in %.0f s: %s" % (fz.calls, time.time() - start,
                                       summary))
    report(not fz.bad, "%d random commands and mmaps: each returned an "
           "expected errno or succeeded" % fz.calls, "; ".join(fz.bad))
    report(fz.errnos.get(0, 0) > 0 and len(fz.errnos) > 3,
           "the random commands reached the handlers (successes and "
           "several errnos)", summary)
    fd = os.open(dev, os.O_RDWR)
    e, async_fd, _ = get_context(fd)
    e2, pd = alloc_pd(fd) if not e else (e, 0)
    report(not e and not e2 and not dealloc_pd(fd, pd),
           "after the fuzzing, a fresh context and PD work",
           "%s / %s" % (errno_name(e), errno_name(e2)))
    os.close(fd)
    if not e:
        os.close(async_fd)


if __name__ == "__main__":
    main()
    sys.exit(exit_status())
