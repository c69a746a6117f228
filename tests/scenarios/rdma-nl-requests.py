#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# rdma-nl-requests.py - talk raw NETLINK_RDMA (20) to ib_core: well-formed
# requests (answers, sequence numbers, ACKs, dumps) and malformed ones
# (truncated headers, unknown clients and commands, attributes of the
# wrong type or length, absurd indexes, unknown character device types,
# random garbage).  Each malformed request must get NLMSG_ERROR (a dump
# NLMSG_DONE) with a negative errno, or be ignored when it cannot be
# parsed as a message at all; nothing may hang.  Prints one line per
# check, "ok DESC" or "not ok DESC" (checker.py), and exits 1 if any failed.
#
# Used by rdma-netlink.sh; needs root (one check drops to uid 65534).
import errno
import os
import random
import socket
import struct
import sys

from checker import exit_status, report

NETLINK_RDMA = 20
NLMSG_ERROR, NLMSG_DONE = 2, 3
F_REQUEST, F_MULTI, F_ACK, F_DUMP = 0x1, 0x2, 0x4, 0x300
NLDEV = 5
# commands
GET, PORT_GET, SYS_GET, SYS_SET, RES_GET, RES_QP_GET = 1, 5, 6, 7, 9, 10
GET_CHARDEV = 15
# attributes
DEV_INDEX, DEV_NAME, PORT_INDEX, NODE_GUID = 1, 2, 3, 6
NETNS_MODE, CHARDEV_TYPE, CHARDEV_NAME = 66, 69, 70
PRIVILEGED_QKEY_MODE = 96

seq = 1000


def nl_type(op, client=NLDEV):
    return (client << 10) + op


def attr(kind, payload):
    data = struct.pack("=HH", 4 + len(payload), kind) + payload
    return data + b"\0" * (-len(data) % 4)


def u32(kind, value):
    return attr(kind, struct.pack("=I", value))


def string(kind, text):
    return attr(kind, text.encode() + b"\0")


def msg(mtype, flags, payload=b"", length=None):
    global seq
    seq += 1
    if length is None:
        length = 16 + len(payload)
    return struct.pack("=IHHII", length, mtype, flags, seq, 0) + payload


def sock():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
    s.bind((0, 0))
    s.settimeout(2)
    return s


def exchange(data, s=None, want_end=True):
    """Send DATA; collect replies until NLMSG_ERROR/NLMSG_DONE (or a
    timeout).  Returns (messages, timed_out); each message is
    (type, flags, seq, pid, payload)."""
    own = s is None
    if own:
        s = sock()
    s.send(data)
    out = []
    timed_out = False
    try:
        while True:
            if not want_end:
                s.settimeout(0.5)
            buf = s.recv(65536)
            off = 0
            end = False
            while off + 16 <= len(buf):
                ln, ty, fl, sq, pid = struct.unpack_from("=IHHII", buf, off)
                if ln < 16:
                    break
                out.append((ty, fl, sq, pid, buf[off + 16:off + ln]))
                if ty in (NLMSG_ERROR, NLMSG_DONE):
                    end = True
                off += (ln + 3) & ~3
            if end and want_end:
                break
    except socket.timeout:
        timed_out = True
    finally:
        if own:
            s.close()
    return out, timed_out


def error_of(replies):
    """The errno of the last NLMSG_ERROR/NLMSG_DONE, or None."""
    for ty, _, _, _, payload in reversed(replies):
        if ty in (NLMSG_ERROR, NLMSG_DONE) and len(payload) >= 4:
            return struct.unpack_from("=i", payload)[0]
    return None


def attrs(payload):
    out = {}
    off = 0
    while off + 4 <= len(payload):
        ln, kind = struct.unpack_from("=HH", payload, off)
        if ln < 4:
            break
        out[kind & 0x3fff] = payload[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def expect_error(desc, data, want=None):
    replies, timed_out = exchange(data)
    err = error_of(replies)
    if timed_out or err is None:
        report(False, desc, "no NLMSG_ERROR/NLMSG_DONE (timed out)")
    elif want is not None:
        report(err == -want, desc + " (%s)" % errno.errorcode[want],
               "got errno %d" % err)
    else:
        report(err < 0, desc, "got %d" % err)


def expect_ignored(desc, data):
    replies, _ = exchange(data, want_end=False)
    err = error_of(replies)
    report(not replies or (err is not None and err < 0), desc,
           "got %r" % (replies,))


# --- well-formed ------------------------------------------------------------
replies, timed_out = exchange(msg(nl_type(GET), F_REQUEST | F_DUMP | F_ACK))
devs = [attrs(p) for ty, fl, _, _, p in replies
        if ty == nl_type(GET) and fl & F_MULTI]
report(not timed_out and replies and replies[-1][0] == NLMSG_DONE and
       error_of(replies) == 0 and len(devs) >= 1,
       "GET dump: %d device(s), then NLMSG_DONE" % len(devs))
report(all(DEV_INDEX in d and DEV_NAME in d and PORT_INDEX in d and
           NODE_GUID in d for d in devs),
       "every GET dump message has DEV_INDEX, DEV_NAME, PORT_INDEX, NODE_GUID")
first = struct.unpack("=I", devs[0][DEV_INDEX])[0] if devs else 0

s = sock()
req = msg(nl_type(GET), F_REQUEST | F_ACK, u32(DEV_INDEX, first))
replies, _ = exchange(req, s)
report(len(replies) == 2 and replies[0][0] == nl_type(GET) and
       replies[0][2] == seq and replies[0][3] == s.getsockname()[0] and
       replies[1][0] == NLMSG_ERROR and error_of(replies) == 0,
       "GET doit: one reply with our seq and port id, then the ACK")
s.close()

replies, _ = exchange(msg(nl_type(GET), F_REQUEST, u32(DEV_INDEX, first)),
                      want_end=False)
report(len(replies) == 1 and replies[0][0] == nl_type(GET),
       "GET doit without NLM_F_ACK: the reply only")

two = (msg(nl_type(GET), F_REQUEST | F_ACK, u32(DEV_INDEX, 0xffffffff)) +
       msg(nl_type(SYS_GET), F_REQUEST | F_ACK))
replies, _ = exchange(two, want_end=False)
kinds = [r[0] for r in replies]
report(kinds == [NLMSG_ERROR, nl_type(SYS_GET), NLMSG_ERROR],
       "two requests in one datagram: both answered", "got %r" % kinds)

# --- malformed ----------------------------------------------------------------
expect_ignored("8-byte datagram (shorter than a header) ignored",
               msg(nl_type(GET), F_REQUEST)[:8])
expect_ignored("nlmsg_len beyond the datagram ignored",
               msg(nl_type(GET), F_REQUEST, length=200))
expect_ignored("nlmsg_len below the header size ignored",
               msg(nl_type(GET), F_REQUEST, length=8))
expect_ignored("message without NLM_F_REQUEST ignored",
               msg(nl_type(GET), 0))
expect_error("unknown client index 63",
             msg(nl_type(1, client=63), F_REQUEST), errno.EOPNOTSUPP)
expect_error("client index 0 (nobody)",
             msg(nl_type(16, client=0), F_REQUEST), errno.EOPNOTSUPP)
expect_error("client RDMA_NL_LS, not registered",
             msg(nl_type(0, client=4), F_REQUEST | F_DUMP), errno.EOPNOTSUPP)
expect_error("unused nldev command 8", msg(nl_type(8), F_REQUEST),
             errno.EOPNOTSUPP)
expect_error("nldev command 1000", msg(nl_type(1000), F_REQUEST),
             errno.EOPNOTSUPP)
expect_error("STAT_GET (not implemented)",
             msg(nl_type(17), F_REQUEST | F_DUMP), errno.EOPNOTSUPP)
expect_error("RES_QP_GET has no doit",
             msg(nl_type(RES_QP_GET), F_REQUEST, u32(DEV_INDEX, first)),
             errno.EOPNOTSUPP)
expect_error("SYS_GET has no dump", msg(nl_type(SYS_GET), F_REQUEST | F_DUMP),
             errno.EOPNOTSUPP)
expect_error("GET doit without DEV_INDEX", msg(nl_type(GET), F_REQUEST),
             errno.EINVAL)
expect_error("GET with DEV_INDEX 0xffffffff",
             msg(nl_type(GET), F_REQUEST, u32(DEV_INDEX, 0xffffffff)),
             errno.EINVAL)
expect_error("GET with a 2-byte DEV_INDEX",
             msg(nl_type(GET), F_REQUEST, attr(DEV_INDEX, b"\1\0")),
             errno.EINVAL)
expect_error("GET with an empty DEV_INDEX",
             msg(nl_type(GET), F_REQUEST, attr(DEV_INDEX, b"")),
             errno.EINVAL)
expect_error("attribute length beyond the message",
             msg(nl_type(GET), F_REQUEST,
                 struct.pack("=HHI", 64, DEV_INDEX, first)), errno.EINVAL)
expect_error("attribute length below its header",
             msg(nl_type(GET), F_REQUEST,
                 struct.pack("=HHI", 2, DEV_INDEX, first)), errno.EINVAL)
expect_error("DEV_NAME without NUL, 300 bytes",
             msg(nl_type(GET), F_REQUEST,
                 u32(DEV_INDEX, first) + attr(DEV_NAME, b"x" * 300)),
             errno.EINVAL)
expect_error("PORT_GET port 0",
             msg(nl_type(PORT_GET), F_REQUEST,
                 u32(DEV_INDEX, first) + u32(PORT_INDEX, 0)), errno.EINVAL)
expect_error("PORT_GET port 99",
             msg(nl_type(PORT_GET), F_REQUEST,
                 u32(DEV_INDEX, first) + u32(PORT_INDEX, 99)), errno.EINVAL)
expect_error("PORT_GET without PORT_INDEX",
             msg(nl_type(PORT_GET), F_REQUEST, u32(DEV_INDEX, first)),
             errno.EINVAL)
expect_error("GET_CHARDEV for an unknown type",
             msg(nl_type(GET_CHARDEV), F_REQUEST,
                 u32(DEV_INDEX, first) + string(CHARDEV_TYPE, "nosuch")),
             errno.ENOENT)
expect_error("GET_CHARDEV without a type",
             msg(nl_type(GET_CHARDEV), F_REQUEST, u32(DEV_INDEX, first)),
             errno.EINVAL)
expect_error("GET_CHARDEV with a 100-byte type",
             msg(nl_type(GET_CHARDEV), F_REQUEST,
                 string(CHARDEV_TYPE, "u" * 100)), errno.EINVAL)
expect_error("GET_CHARDEV with a type without NUL",
             msg(nl_type(GET_CHARDEV), F_REQUEST,
                 attr(CHARDEV_TYPE, b"uverbs")), errno.EINVAL)
expect_error("GET_CHARDEV for a huge DEV_INDEX",
             msg(nl_type(GET_CHARDEV), F_REQUEST,
                 u32(DEV_INDEX, 0x7fffffff) + string(CHARDEV_TYPE, "uverbs")),
             errno.EINVAL)
expect_error("GET_CHARDEV with PORT_INDEX but no device",
             msg(nl_type(GET_CHARDEV), F_REQUEST,
                 u32(PORT_INDEX, 1) + string(CHARDEV_TYPE, "uverbs")),
             errno.EINVAL)
expect_error("RES_QP_GET dump without DEV_INDEX",
             msg(nl_type(RES_QP_GET), F_REQUEST | F_DUMP), errno.EINVAL)
expect_error("RES_QP_GET dump for a huge DEV_INDEX",
             msg(nl_type(RES_QP_GET), F_REQUEST | F_DUMP,
                 u32(DEV_INDEX, 0xfffffffe)), errno.EINVAL)
expect_error("RES_GET with a malformed attribute",
             msg(nl_type(RES_GET), F_REQUEST, attr(PORT_INDEX, b"\1")),
             errno.EINVAL)
expect_error("SYS_SET without NETNS_MODE (as root)",
             msg(nl_type(SYS_SET), F_REQUEST), errno.EINVAL)
expect_error("SYS_SET to exclusive netns mode: not supported",
             msg(nl_type(SYS_SET), F_REQUEST, attr(NETNS_MODE, b"\0")),
             errno.EOPNOTSUPP)
replies, _ = exchange(msg(nl_type(SYS_SET), F_REQUEST | F_ACK,
                          attr(NETNS_MODE, b"\1")))
report(error_of(replies) == 0, "SYS_SET to shared netns mode: ACK 0")


def qkey_mode():
    """PRIVILEGED_QKEY_MODE of a SYS_GET reply, or None."""
    rep, _ = exchange(msg(nl_type(SYS_GET), F_REQUEST | F_ACK))
    for ty, _, _, _, payload in rep:
        if ty == nl_type(SYS_GET):
            a = attrs(payload)
            if PRIVILEGED_QKEY_MODE in a:
                return a[PRIVILEGED_QKEY_MODE][0]
    return None


report(qkey_mode() == 0, "SYS_GET: privileged Q_Key mode 0 (enforced)",
       "got %r" % qkey_mode())
expect_error("SYS_SET privileged Q_Key mode 2",
             msg(nl_type(SYS_SET), F_REQUEST,
                 attr(PRIVILEGED_QKEY_MODE, b"\2")), errno.EINVAL)
for mode in (1, 0):
    replies, _ = exchange(msg(nl_type(SYS_SET), F_REQUEST | F_ACK,
                              attr(PRIVILEGED_QKEY_MODE, bytes([mode]))))
    report(error_of(replies) == 0 and qkey_mode() == mode,
           "SYS_SET privileged Q_Key mode %d: ACK 0, SYS_GET says %d" %
           (mode, mode),
           "errno %r, mode %r" % (error_of(replies), qkey_mode()))

# --- without CAP_NET_ADMIN ----------------------------------------------------
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    res = []
    rep, _ = exchange(msg(nl_type(SYS_SET), F_REQUEST,
                          attr(NETNS_MODE, b"\1")))
    res.append(error_of(rep))
    rep, _ = exchange(msg(nl_type(SYS_SET), F_REQUEST,
                          attr(PRIVILEGED_QKEY_MODE, b"\1")))
    res.append(error_of(rep))
    rep, _ = exchange(msg(nl_type(GET), F_REQUEST | F_DUMP))
    res.append(error_of(rep))
    os.write(w, repr(res).encode())
    os._exit(0)
os.close(w)
out = os.read(r, 100).decode()
os.waitpid(pid, 0)
report(out == "[%d, %d, 0]" % (-errno.EPERM, -errno.EPERM) and
       qkey_mode() == 0,
       "uid 65534: SYS_SET of either mode refused (EPERM), GET dump allowed",
       "got " + out)

# --- garbage -------------------------------------------------------------------
rng = random.Random(20)
bad = 0
for i in range(400):
    op = rng.choice([GET, PORT_GET, SYS_GET, RES_GET, RES_QP_GET, 12, 13, 14,
                     GET_CHARDEV, 22, 23, rng.randrange(0, 1024)])
    body = b""
    for _ in range(rng.randrange(0, 6)):
        kind = rng.randrange(0, 110)
        if rng.random() < 0.3:
            body += u32(kind, rng.choice([0, 1, 2, first, 0xffffffff]))
        else:
            body += attr(kind, bytes(rng.randrange(256)
                                     for _ in range(rng.randrange(0, 40))))
    if rng.random() < 0.2 and body:
        body = body[:rng.randrange(len(body))]
    # with NLM_F_ACK every request ends in NLMSG_ERROR or NLMSG_DONE
    flags = F_REQUEST | rng.choice([F_ACK, F_DUMP, F_DUMP | F_ACK])
    replies, timed_out = exchange(msg(nl_type(op), flags, body))
    if timed_out:
        bad += 1
        print("# no answer to op %d flags %#x body %s" %
              (op, flags, body.hex()))
report(bad == 0, "400 random requests all answered")

sys.exit(exit_status())
