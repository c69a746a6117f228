#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# The M_Key of one port of a two-port HCA against SMPs that arrive on the
# other port, for the vmlx-hardening scenario (vmlx num_ports=2): umad0 is
# vmlx0 port 1, umad1 vmlx0 port 2.  Directed-route SMPs of hop count 0
# go to the local SMA through the MAD layer, which checks the M_Key.
# Prints "ok <what>" / "not ok <what>" (checker.py).
import os
import select
import struct
import sys
import time

from checker import exit_status, report, umad_hdr, umad_register

GET, SET = 0x01, 0x02
PORT_INFO = 0x0015
MKEY = 0x0123456789abcdef
HDR = 56			# struct ib_user_mad header, old layout


class Umad:
    """A umad file with an agent for directed-route SMPs on QP0."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)
        self.agent = umad_register(self.fd, 0, 0x81)
        self.tid = 0x1000

    def smp(self, method, am, mkey=0, data=bytes(64)):
        """Send a hop-0 PortInfo SMP; the answer's 256 bytes, or None."""
        self.tid += 1
        mad = struct.pack(">BBBBHBBQHHI", 1, 0x81, 1, method, 0, 0, 0,
                          self.tid, PORT_INFO, 0, am)
        mad += struct.pack(">QHH", mkey, 0xffff, 0xffff) + bytes(28)
        mad += data + bytes(128)
        # the header without pkey_index (the file's default): a 1 s
        # timeout, no retry
        os.write(self.fd, umad_hdr(self.agent, timeout=1000, v2=False) + mad)
        p = select.poll()
        p.register(self.fd, select.POLLIN)
        end = time.time() + 3
        while time.time() < end:
            if not p.poll(100):
                continue
            buf = os.read(self.fd, HDR + 256)
            status = struct.unpack_from("<I", buf, 4)[0]
            if status:
                return None		# ETIMEDOUT: no answer
            # the MAD layer owns the TID's upper half
            tid = struct.unpack_from(">Q", buf, HDR + 8)[0]
            if tid & 0xffffffff == self.tid:
                return buf[HDR:]
        return None


def pi_data(reply):
    return reply[64:128]


def with_mkey(data, mkey, protect):
    """PortInfo to Set: @data with M_Key and M_KeyProtectBits changed and
    no state change requested."""
    d = bytearray(data)
    struct.pack_into(">Q", d, 0, mkey)
    d[32] &= 0xf0			# PortState 0: no change
    d[33] &= 0x0f			# PortPhysicalState 0: no change
    d[34] = (d[34] & 0x3f) | (protect << 6)
    return bytes(d)


def mkey_of(reply):
    return struct.unpack_from(">Q", reply, 64)[0]


def main():
    p1 = Umad("/dev/infiniband/umad0")
    p2 = Umad("/dev/infiniband/umad1")

    r = p2.smp(GET, 0)
    report(r is not None, "port 2 answers a PortInfo Get")
    if r is None:
        return
    r = p2.smp(SET, 0, data=with_mkey(pi_data(r), MKEY, 1))
    report(r is not None and mkey_of(r) == MKEY,
           "port 2 takes M_Key %#x with M_KeyProtectBits 1" % MKEY,
           "reply %r" % (r and hex(mkey_of(r))))

    r = p1.smp(GET, 2)
    report(r is not None and mkey_of(r) == 0,
           "Get of port 2 through port 1 without the key: M_Key hidden",
           "reply %s" % (r and "with M_Key %#x" % mkey_of(r)))

    base = p2.smp(GET, 0, mkey=MKEY)
    r = p1.smp(SET, 2, data=with_mkey(pi_data(base), 0, 0))
    report(r is None, "Set of port 2 through port 1 without the key: "
           "no answer", "answered, M_Key now %s" % (r and hex(mkey_of(r))))
    r = p2.smp(GET, 0, mkey=MKEY)
    report(r is not None and mkey_of(r) == MKEY and r[98] >> 6 == 1,
           "port 2 still has its M_Key and protection",
           "reply %r" % ((r and (hex(mkey_of(r)), r[98] >> 6)),))

    r = p1.smp(SET, 2, mkey=MKEY, data=with_mkey(pi_data(base), 0, 0))
    report(r is not None and mkey_of(r) == 0,
           "with the key, a Set through port 1 takes it off port 2")
    r = p1.smp(GET, 2)
    report(r is not None and mkey_of(r) == 0 and r[98] >> 6 == 0,
           "port 2 is unprotected again")


if __name__ == "__main__":
    main()
    sys.exit(exit_status())
