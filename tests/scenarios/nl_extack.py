#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# nl_extack.py - the extended ACK messages of ib_core's nldev client: raw
# NETLINK_RDMA requests that nldev refuses, on a socket with
# NETLINK_EXT_ACK (and NETLINK_CAP_ACK, as iproute2 sets them), each of
# which must come back with its errno, the message saying why and, where
# one attribute is at fault, the offset of that attribute.  Prints one
# line per check, "ok DESC" or "not ok DESC", and exits 1 if any failed.
#
# Used by core-diagnostics.sh; needs root and a device (vmlx0).
import errno
import socket
import struct
import sys

NETLINK_RDMA = 20
SOL_NETLINK = 270
NETLINK_CAP_ACK, NETLINK_EXT_ACK = 10, 11
NLMSG_ERROR, NLMSG_DONE = 2, 3
F_REQUEST, F_MULTI, F_ACK, F_DUMP = 0x1, 0x2, 0x4, 0x300
F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS = 1, 2
NLDEV = 5
GET, PORT_GET, SYS_SET, RES_GET, RES_QP_GET = 1, 5, 7, 9, 10
GET_CHARDEV = 15
DEV_INDEX, PORT_INDEX = 1, 3
CHARDEV_TYPE = 69
PRIVILEGED_QKEY_MODE = 96
HDR = 16

failed = 0
seq = 2000


def check(ok, desc, detail=""):
    global failed
    print(("ok " if ok else "not ok ") + desc)
    if not ok:
        failed += 1
        if detail:
            print("# " + detail)
    sys.stdout.flush()


def attr(kind, payload):
    data = struct.pack("=HH", 4 + len(payload), kind) + payload
    return data + b"\0" * (-len(data) % 4)


def u32(kind, value):
    return attr(kind, struct.pack("=I", value))


def string(kind, text):
    return attr(kind, text.encode() + b"\0")


def msg(op, flags, payload=b""):
    global seq
    seq += 1
    return struct.pack("=IHHII", HDR + len(payload), (NLDEV << 10) + op,
                       flags, seq, 0) + payload


def tlvs(data):
    out = {}
    off = 0
    while off + 4 <= len(data):
        ln, kind = struct.unpack_from("=HH", data, off)
        if ln < 4:
            break
        out[kind] = data[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def exchange(data):
    """Send DATA; return (type, flags, payload) of every reply until the
    NLMSG_ERROR or NLMSG_DONE that ends it."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
    s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    s.bind((0, 0))
    s.settimeout(5)
    s.send(data)
    out = []
    try:
        while True:
            buf = s.recv(65536)
            off = 0
            while off + HDR <= len(buf):
                ln, ty, fl, _, _ = struct.unpack_from("=IHHII", buf, off)
                if ln < HDR:
                    break
                out.append((ty, fl, buf[off + HDR:off + ln]))
                off += (ln + 3) & ~3
                if ty in (NLMSG_ERROR, NLMSG_DONE):
                    return out
    except socket.timeout:
        return out
    finally:
        s.close()


def answer(data):
    """(errno, message, bad attribute offset) of the reply ending a
    request; None for what is missing."""
    replies = exchange(data)
    if not replies or replies[-1][0] not in (NLMSG_ERROR, NLMSG_DONE):
        return None, None, None
    ty, fl, payload = replies[-1]
    err = struct.unpack_from("=i", payload)[0]
    if not fl & F_ACK_TLVS:
        return err, None, None
    # NLMSG_ERROR: the error, then the request's header (CAP_ACK); a
    # dump's NLMSG_DONE: the error only
    extra = tlvs(payload[4 + (HDR if ty == NLMSG_ERROR else 0):])
    text = extra.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()
    offs = extra.get(NLMSGERR_ATTR_OFFS)
    return err, text or None, struct.unpack("=I", offs)[0] if offs else None


def expect(desc, data, want_errno, want_msg, want_offs=None):
    err, text, offs = answer(data)
    ok = err == -want_errno and text is not None and want_msg in text
    if want_offs is not None:
        ok = ok and offs == want_offs
    print("# %s: errno %s, %r, offset %s" % (desc, err, text, offs))
    check(ok, "%s: %s, \"%s\"%s" %
          (desc, errno.errorcode[want_errno], want_msg,
           "" if want_offs is None else " at offset %d" % want_offs),
          "got errno %s, message %r, offset %s" % (err, text, offs))


# the first device's index, from a GET dump
first = None
for ty, fl, payload in exchange(msg(GET, F_REQUEST | F_DUMP)):
    if ty == (NLDEV << 10) + GET:
        first = struct.unpack_from("=I", tlvs(payload)[DEV_INDEX])[0]
        break
if first is None:
    check(False, "a GET dump names a device")
    sys.exit(1)

expect("GET without DEV_INDEX", msg(GET, F_REQUEST), errno.EINVAL,
       "ib_core: no DEV_INDEX: the command needs a device")
expect("GET of DEV_INDEX 0xffffffff",
       msg(GET, F_REQUEST, u32(DEV_INDEX, 0xffffffff)), errno.EINVAL,
       "ib_core: no device has this DEV_INDEX", HDR)
expect("RES_GET of DEV_INDEX 0xfffffffe",
       msg(RES_GET, F_REQUEST, u32(DEV_INDEX, 0xfffffffe)), errno.EINVAL,
       "no device has this DEV_INDEX", HDR)
expect("PORT_GET without PORT_INDEX",
       msg(PORT_GET, F_REQUEST, u32(DEV_INDEX, first)), errno.EINVAL,
       "no PORT_INDEX: the command needs a port")
expect("PORT_GET of port 99",
       msg(PORT_GET, F_REQUEST, u32(DEV_INDEX, first) + u32(PORT_INDEX, 99)),
       errno.EINVAL, "the device has no port of this PORT_INDEX", HDR + 8)
expect("GET_CHARDEV without CHARDEV_TYPE",
       msg(GET_CHARDEV, F_REQUEST, u32(DEV_INDEX, first)), errno.EINVAL,
       "no CHARDEV_TYPE")
expect("GET_CHARDEV of an unknown type",
       msg(GET_CHARDEV, F_REQUEST,
           u32(DEV_INDEX, first) + string(CHARDEV_TYPE, "nosuch")),
       errno.ENOENT, "no client offers a character device", HDR + 8)
expect("GET_CHARDEV with PORT_INDEX but no DEV_INDEX",
       msg(GET_CHARDEV, F_REQUEST,
           u32(PORT_INDEX, 1) + string(CHARDEV_TYPE, "uverbs")),
       errno.EINVAL, "PORT_INDEX without DEV_INDEX", HDR)
expect("SYS_SET without anything to set", msg(SYS_SET, F_REQUEST),
       errno.EINVAL, "nothing to set")
expect("SYS_SET of PRIVILEGED_QKEY_MODE 2",
       msg(SYS_SET, F_REQUEST, attr(PRIVILEGED_QKEY_MODE, b"\2")),
       errno.EINVAL, "PRIVILEGED_QKEY_MODE is 0 or 1", HDR)
# the parser's own words, or ours where it has none
expect("GET with a 2-byte DEV_INDEX",
       msg(GET, F_REQUEST, attr(DEV_INDEX, b"\1\0")), errno.EINVAL, "")
expect("RES_QP_GET dump without DEV_INDEX (in its NLMSG_DONE)",
       msg(RES_QP_GET, F_REQUEST | F_DUMP), errno.EINVAL,
       "ib_core: no DEV_INDEX: the command needs a device")

sys.exit(1 if failed else 0)
