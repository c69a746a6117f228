# SPDX-License-Identifier: GPL-2.0
"""What the Python checkers of the VM scenarios share.

Every checker prints one line per check, "ok <what>" or "not ok <what>",
a failed one followed by "# <detail>" lines, and may print other "# ..."
lines (figures, notes); tests/vm/tap.sh's tap_results and tap_checker
turn that into numbered TAP test points.  The ib_verbs_test kernel client
(tests/kmod) and tests/user/rdma-verify print the same.  A checker ends
with sys.exit(exit_status()).

Results: report(), expect(), errno_name(), exit_status().
Files: sysfs(), vmlx_counter() (the vmlx debugfs counters).
/dev/infiniband/uverbsN: Buf (memory the kernel writes responses to),
uverbs_hdr(), uverbs_ex_hdr() and uverbs_write() (the write() framing),
UVERBS_EXTENDED, RDMA_VERBS_IOCTL.
/dev/infiniband/umadN: umad_hdr(), umad_register(), umad_enable_pkey(),
wait_readable().
"""
import ctypes
import errno
import fcntl
import os
import select
import struct
import sys

failed = 0


def report(ok, what, detail=""):
    """One check: "ok WHAT", or "not ok WHAT" and DETAIL as comments."""
    global failed
    if ok:
        print("ok " + what)
    else:
        failed += 1
        print("not ok " + what)
        for line in str(detail).splitlines():
            print("# " + line)
    sys.stdout.flush()


def errno_name(e):
    """EINVAL for errno.EINVAL; "success" for 0; a negative number is the
    count of a short write()."""
    if e == 0:
        return "success"
    if e < 0:
        return "short count %d" % -e
    return errno.errorcode.get(e, str(e))


def expect(what, got, want):
    """One check that the errno @got (0: success) is @want."""
    report(got == want, what,
           "got %s, expected %s" % (errno_name(got), errno_name(want)))


def exit_status():
    """The checker's exit status: 1 if a check failed, else 0."""
    return 1 if failed else 0


def sysfs(path):
    with open(path) as f:
        return f.read().strip()


VMLX_DEBUGFS = "/sys/kernel/debug/vmlx"


def vmlx_counter(dev, name, port=1):
    """A counter of vmlx @dev's @port, 0 if the driver has none of that
    name."""
    with open("%s/%s/port%d/counters" % (VMLX_DEBUGFS, dev, port)) as f:
        for line in f:
            key, value = line.split()
            if key == name:
                return int(value)
    return 0


# --- uverbs ------------------------------------------------------------------

UVERBS_EXTENDED = 0x80000000
RDMA_VERBS_IOCTL = 0xC0181B01


class Buf:
    """A user buffer the kernel writes responses to."""

    def __init__(self, size, fill=0):
        self.size = size
        self.mem = ctypes.create_string_buffer(bytes([fill]) * size, size)

    @property
    def addr(self):
        return ctypes.addressof(self.mem)

    def raw(self):
        return self.mem.raw


def uverbs_hdr(cmd, in_words, out_words):
    """struct ib_uverbs_cmd_hdr"""
    return struct.pack("<IHH", cmd, in_words, out_words)


def uverbs_ex_hdr(resp, prov_in=0, prov_out=0, reserved=0):
    """struct ib_uverbs_ex_cmd_hdr, after the header of an extended
    command"""
    return struct.pack("<QHHI", resp, prov_in, prov_out, reserved)


def uverbs_write(fd, data):
    """Return the errno of the write, or 0; a short count is a failure
    (its negative count)."""
    try:
        n = os.write(fd, data)
    except OSError as e:
        return e.errno
    if n != len(data):
        return -n
    return 0


# --- umad ------------------------------------------------------------------

UMAD_REGISTER_AGENT = 0xC01C1B01
UMAD_UNREGISTER_AGENT = 0x40041B02
UMAD_ENABLE_PKEY = 0x00001B03
QP1_QKEY = 0x80010000


def umad_hdr(agent, length=0, timeout=0, retries=0, qpn=0, qkey=0,
             lid=0xffff, v2=True, pkey=0):
    """struct ib_user_mad_hdr: 64 bytes, or the 56 of the old layout
    (without pkey_index: a file without ENABLE_PKEY) if not @v2."""
    h = struct.pack("<5I", agent, 0, timeout, retries, length)
    h += struct.pack(">IIH", qpn, qkey, lid)
    h += bytes(6) + bytes(16) + struct.pack(">I", 0)
    if v2:
        h += struct.pack("<H6x", pkey)
    return h


def umad_register(fd, qpn, mgmt_class, class_version=1, methods=(),
                  rmpp=0, oui=b"\0\0\0"):
    """IB_USER_MAD_REGISTER_AGENT; returns the agent's id."""
    mask = 0
    for m in methods:
        mask |= 1 << m
    req = struct.pack("<I16sBBB3sBx", 0, mask.to_bytes(16, "little"), qpn,
                      mgmt_class, class_version, oui, rmpp)
    out = fcntl.ioctl(fd, UMAD_REGISTER_AGENT, req)
    return struct.unpack_from("<I", out)[0]


def umad_enable_pkey(fd):
    """IB_USER_MAD_ENABLE_PKEY: the file uses the 64-byte header."""
    fcntl.ioctl(fd, UMAD_ENABLE_PKEY)


def wait_readable(fd, secs=5.0):
    """Whether @fd has something to read within @secs."""
    p = select.poll()
    p.register(fd, select.POLLIN)
    return bool(p.poll(int(secs * 1000)))
