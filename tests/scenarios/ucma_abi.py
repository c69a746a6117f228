#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# The rdma_ucm command ABI without a fabric, for the rdma-ucm scenario:
# what each command answers for well-formed input and for each of the
# documented errors (Documentation/rdma_ucm.rst), ids of other files,
# MIGRATE_ID between files, events and signals, binding (AF_IB, ports,
# privileged ports), and ids bound to vmlx0 counted by `rdma res` until
# close().  The malformed commands are ucma_fuzz.py's.  Prints one line
# per check, "ok <what>" or "not ok <what>" (checker.py).
#
#   ucma_abi.py [--foreign-fd N]
#
# Run by root and by an unprivileged user: a port below 1024 needs
# CAP_NET_BIND_SERVICE.  N is a file of /dev/infiniband/rdma_cm the
# scenario's shell opened: writing to it with other credentials is
# EACCES.
import errno
import os
import select
import signal
import struct
import sys
import time

from checker import Buf, exit_status, expect, report
import ucma
from ucma import (CONNECT, CREATE_ID, OPTION_ID, OPTION_IB, PS_IB, PS_IPOIB,
                  PS_TCP, PS_UDP, QUERY_ADDR, QUERY_GID, QUERY_PATH, cmd,
                  create_id, destroy_id, query, sib, sin, sin6)

KMALLOC_MAX_SIZE = 1 << 22	# x86_64, SLUB: 2^(PAGE_SHIFT + MAX_ORDER - 1)


def creating():
    """CREATE_ID and its variants"""
    fd = ucma.open_dev()
    r = Buf(4)
    body = struct.pack("<QQHB5x", 1, r.addr, PS_TCP, 0)
    expect("CREATE_ID with out 0: ENOSPC", cmd(fd, CREATE_ID, body, 0),
           errno.ENOSPC)
    expect("CREATE_ID with out 3: ENOSPC", cmd(fd, CREATE_ID, body, 3),
           errno.ENOSPC)
    for ps in (0, 1, 0x999, 0xffff):
        e, _ = create_id(fd, 1, ps=ps)
        expect("CREATE_ID port space %#x: EINVAL" % ps, e, errno.EINVAL)
    expect("CREATE_ID with in 16 (no ps: read as 0): EINVAL",
           cmd(fd, CREATE_ID, body, 4, in_len=16), errno.EINVAL)
    ids = set()
    for ps, qpt, what in ((PS_TCP, 0, "TCP"), (PS_UDP, 0, "UDP"),
                          (PS_IPOIB, 0, "IPOIB"), (PS_IB, 2, "IB, RC"),
                          (PS_IB, 4, "IB, UD")):
        e, id_ = create_id(fd, 7, ps=ps, qp_type=qpt)
        expect("CREATE_ID port space %s" % what, e, 0)
        ids.add(id_)
    report(len(ids) == 5, "five ids, five numbers", sorted(ids))
    os.close(fd)


def unbound():
    """What an id answers before it is bound"""
    fd = ucma.open_dev()
    e, id_ = create_id(fd, 0x1234)
    e, raw = query(fd, id_, QUERY_ADDR)
    expect("QUERY ADDR, unbound", e, 0)
    guid, port, _, pkey, ssz, dsz = struct.unpack_from("<QBBHHH", raw)
    report(guid == 0 and port == 0 and ssz == 0 and dsz == 0,
           "QUERY ADDR, unbound: no device, no addresses",
           (hex(guid), port, ssz, dsz))
    e, raw = query(fd, id_, QUERY_ADDR, out=ucma.QUERY_ADDR_MIN - 1)
    expect("QUERY ADDR with out 271: ENOSPC", e, errno.ENOSPC)
    e, raw = query(fd, id_, QUERY_ADDR, out=1024)
    expect("QUERY ADDR with out 1024", e, 0)
    report(raw[ucma.QUERY_ADDR_RESP:] == b"\xaa" * (1024 - 280),
           "QUERY ADDR writes its 280 bytes, not the 1024 of out")
    e, raw = query(fd, id_, QUERY_ADDR, out=ucma.QUERY_ADDR_MIN, size=280)
    report(e == 0 and raw[:8] == bytes(8) and raw[272:] == b"\xaa" * 8,
           "QUERY ADDR with out 272 (older librdmacm): 272 bytes written",
           (e, raw[:8], raw[272:]))
    e, raw = query(fd, id_, QUERY_GID)
    fam, fam2 = struct.unpack_from("<H", raw, 16)[0], \
        struct.unpack_from("<H", raw, 144)[0]
    report(e == 0 and fam == ucma.AF_IB and fam2 == ucma.AF_IB and
           struct.unpack_from("<HH", raw, 12) == (48, 48),
           "QUERY GID, unbound: both ends AF_IB, 48 bytes", (e, fam, fam2))
    e, raw = query(fd, id_, QUERY_PATH, out=8 + 72 * 4)
    report(e == 0 and struct.unpack_from("<I", raw)[0] == 0 and
           raw[8:] == b"\xaa" * 72 * 4,
           "QUERY PATH, unbound: 0 paths, nothing written after them", e)
    e, raw = query(fd, id_, QUERY_PATH, out=7)
    expect("QUERY PATH with out 7: ENOSPC", e, errno.ENOSPC)
    for opt in (3, 9, 0xffffffff):
        e, raw = query(fd, id_, opt)
        expect("QUERY option %#x: ENOSYS" % opt, e, errno.ENOSYS)
    e, raw = ucma.query_route(fd, id_)
    report(e == 0 and struct.unpack_from("<Q", raw)[0] == 0 and
           struct.unpack_from("<I", raw, 192)[0] == 0,
           "QUERY_ROUTE, unbound: no device, no path", e)
    e, raw = ucma.query_route(fd, id_, out=ucma.QUERY_ROUTE_MIN - 1)
    expect("QUERY_ROUTE with out 199: ENOSPC", e, errno.ENOSPC)
    e, raw = ucma.query_route(fd, id_, out=ucma.QUERY_ROUTE_MIN, size=208)
    report(e == 0 and raw[:8] == bytes(8) and raw[200:] == b"\xaa" * 8,
           "QUERY_ROUTE with out 200 (no ibdev_index): 200 bytes written",
           (e, raw[:8], raw[200:]))

    # commands that need a device
    expect("RESOLVE_ROUTE, unbound: EINVAL", ucma.resolve_route(fd, id_),
           errno.EINVAL)
    e, _ = ucma.init_qp_attr(fd, id_, 1)
    expect("INIT_QP_ATTR, unbound: EINVAL", e, errno.EINVAL)
    e, _ = ucma.init_qp_attr(fd, id_, 1, out=143)
    expect("INIT_QP_ATTR with out 143: ENOSPC", e, errno.ENOSPC)
    expect("NOTIFY, unbound: EINVAL", ucma.notify(fd, id_, 9), errno.EINVAL)
    expect("DISCONNECT, unbound: EINVAL", ucma.disconnect(fd, id_),
           errno.EINVAL)
    expect("CONNECT, unbound: EINVAL",
           ucma.connect(fd, id_, ucma.conn_param(1)), errno.EINVAL)
    expect("ACCEPT, unbound: EINVAL",
           ucma.accept(fd, id_, 1, ucma.conn_param(1)), errno.EINVAL)
    expect("REJECT, unbound: EINVAL", ucma.reject(fd, id_), errno.EINVAL)
    e, _ = ucma.join_ip(fd, id_, 1, sin("239.1.1.1"))
    expect("JOIN_IP_MCAST, unbound: EINVAL", e, errno.EINVAL)

    # the framing of CONNECT and ACCEPT, told apart from the id's lookup:
    # an unknown id is ENOENT once the command is accepted
    nobody = 0x7ffffff0
    p = ucma.conn_param(1)
    expect("CONNECT of an unknown id: ENOENT",
           ucma.connect(fd, nobody, p), errno.ENOENT)
    expect("CONNECT without ece (in 280): accepted, ENOENT",
           ucma.connect(fd, nobody, p, ece=False), errno.ENOENT)
    expect("CONNECT with in 279: EINVAL",
           cmd(fd, CONNECT, p + struct.pack("<II", nobody, 0), in_len=279),
           errno.EINVAL)
    expect("CONNECT without conn_param.valid: EINVAL",
           ucma.connect(fd, nobody, ucma.conn_param(1, valid=0)),
           errno.EINVAL)
    body = struct.pack("<Q", 1) + p + struct.pack("<IIII", nobody, 0, 0, 0)
    expect("ACCEPT without ece (in 288): accepted, ENOENT",
           cmd(fd, ucma.ACCEPT, body, in_len=288), errno.ENOENT)
    expect("ACCEPT with in 287: EINVAL",
           cmd(fd, ucma.ACCEPT, body, in_len=287), errno.EINVAL)
    for reason, want in ((0, errno.ENOENT), (28, errno.ENOENT),
                         (35, errno.ENOENT), (5, errno.EINVAL),
                         (8, errno.EINVAL), (255, errno.EINVAL)):
        expect("REJECT reason %d: %s" % (reason, "allowed (ENOENT)"
                                         if want == errno.ENOENT
                                         else "EINVAL"),
               ucma.reject(fd, nobody, reason), want)
    for state, want in ((6, errno.ENOENT), (7, errno.EINVAL),
                        (0xffffffff, errno.EINVAL)):
        e, _ = ucma.init_qp_attr(fd, nobody, state)
        expect("INIT_QP_ATTR state %#x: %s" % (state, "allowed (ENOENT)"
                                              if want == errno.ENOENT
                                              else "EINVAL"), e, want)
    e, _ = ucma.join(fd, nobody, 1, sin("239.1.1.1"), flags=2)
    expect("JOIN_MCAST join_flags 2: EINVAL", e, errno.EINVAL)
    e, _ = ucma.join(fd, nobody, 1, sin("239.1.1.1"), size=28)
    expect("JOIN_MCAST addr_size 28 for AF_INET: EINVAL", e, errno.EINVAL)
    e, _ = ucma.join(fd, nobody, 1, sin("239.1.1.1"), flags=1)
    expect("JOIN_MCAST send-only full member: allowed (ENOENT)", e,
           errno.ENOENT)
    e, _ = ucma.leave(fd, nobody)
    expect("LEAVE_MCAST of an unknown group: ENOENT", e, errno.ENOENT)
    e, _ = ucma.leave(fd, nobody, out=3)
    expect("LEAVE_MCAST with out 3: ENOSPC", e, errno.ENOSPC)
    os.close(fd)


def options():
    fd = ucma.open_dev()
    e, id_ = create_id(fd, 1)
    so = ucma.set_option
    expect("SET_OPTION TOS, 1 byte", so(fd, id_, OPTION_ID, 0, b"\x10"), 0)
    for n in (0, 2, 4):
        expect("SET_OPTION TOS, %d bytes: EINVAL" % n,
               so(fd, id_, OPTION_ID, 0, bytes(n)), errno.EINVAL)
    one = struct.pack("<i", 1)
    for name, what in ((1, "REUSEADDR"), (2, "AFONLY")):
        expect("SET_OPTION %s, an int" % what,
               so(fd, id_, OPTION_ID, name, one), 0)
        expect("SET_OPTION %s, 1 byte: EINVAL" % what,
               so(fd, id_, OPTION_ID, name, b"\1"), errno.EINVAL)
        expect("SET_OPTION %s, 8 bytes: EINVAL" % what,
               so(fd, id_, OPTION_ID, name, one * 2), errno.EINVAL)
    expect("SET_OPTION ACK_TIMEOUT, 1 byte",
           so(fd, id_, OPTION_ID, 3, b"\x0e"), 0)
    expect("SET_OPTION ACK_TIMEOUT, 4 bytes: EINVAL",
           so(fd, id_, OPTION_ID, 3, one), errno.EINVAL)
    for level, name in ((0, 4), (0, 0xffffffff), (2, 0), (0xffffffff, 1),
                        (1, 0), (1, 2)):
        expect("SET_OPTION level %#x name %#x: ENOSYS" % (level, name),
               so(fd, id_, level, name, one), errno.ENOSYS)
    path = bytearray(72)
    expect("SET_OPTION IB_PATH, no primary path: EINVAL",
           so(fd, id_, OPTION_IB, 1, bytes(path)), errno.EINVAL)
    path[0:4] = struct.pack("<I", 0x2b)
    expect("SET_OPTION IB_PATH, 71 bytes: EINVAL",
           so(fd, id_, OPTION_IB, 1, bytes(path[:71])), errno.EINVAL)
    expect("SET_OPTION IB_PATH, a primary path, unbound: EINVAL",
           so(fd, id_, OPTION_IB, 1, bytes(path)), errno.EINVAL)
    expect("SET_OPTION IB_PATH from address 0: EFAULT",
           so(fd, id_, OPTION_IB, 1, addr=0, length=72), errno.EFAULT)
    expect("SET_OPTION, optlen KMALLOC_MAX_SIZE + 1: EINVAL",
           so(fd, id_, OPTION_ID, 0, addr=0, length=KMALLOC_MAX_SIZE + 1),
           errno.EINVAL)
    expect("SET_OPTION of another file's id: EINVAL",
           so(ucma.open_dev(), id_, OPTION_ID, 0, b"\0"), errno.EINVAL)
    os.close(fd)


class Alarm(Exception):
    pass


def events():
    fd = ucma.open_dev()
    nb = ucma.open_dev(nonblock=True)
    e, _ = ucma.get_event(nb)
    expect("GET_EVENT, O_NONBLOCK, nothing: EAGAIN", e, errno.EAGAIN)
    e, _ = ucma.get_event(nb, out=ucma.EVENT_MIN - 1)
    expect("GET_EVENT with out 323: ENOSPC", e, errno.ENOSPC)
    e, _ = ucma.get_event(nb, out=ucma.EVENT_MIN)
    expect("GET_EVENT with out 324 (older 32-bit librdmacm): EAGAIN", e,
           errno.EAGAIN)
    report(select.select([fd, nb], [], [], 0)[0] == [],
           "poll: nothing to read")

    def on_alarm(*_):
        raise Alarm()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    t = time.monotonic()
    try:
        e, _ = ucma.get_event(fd)
    except Alarm:
        e = errno.EINTR
    signal.signal(signal.SIGALRM, old)
    report(e == errno.EINTR and time.monotonic() - t > 0.25,
           "GET_EVENT waits for an event; a signal ends the wait",
           (e, time.monotonic() - t))
    os.close(fd)
    os.close(nb)


def binding():
    fd = ucma.open_dev()
    # librdmacm's probe of AF_IB: a wildcard GID, the TCP port space
    e, idib = create_id(fd, 1, ps=PS_IB, qp_type=2)
    sa = sib(sid=ucma.RDMA_IB_IP_PS_TCP, mask=ucma.RDMA_IB_IP_PS_MASK)
    expect("BIND AF_IB, any GID, TCP service IDs (librdmacm's probe)",
           ucma.bind(fd, idib, sa), 0)
    e, raw = query(fd, idib, QUERY_ADDR)
    sid = struct.unpack_from(">Q", raw, 16 + 24)[0]
    report(e == 0 and struct.unpack_from("<H", raw, 12)[0] == 48 and
           sid >> 16 == ucma.RDMA_IB_IP_PS_TCP >> 16 and sid & 0xffff,
           "QUERY ADDR: AF_IB, a TCP service ID with a port", hex(sid))
    expect("BIND of a bound id: EINVAL", ucma.bind(fd, idib, sa),
           errno.EINVAL)
    e, id2 = create_id(fd, 1, ps=PS_IB, qp_type=2)
    expect("BIND AF_IB with addr_size 47: EINVAL",
           ucma.bind(fd, id2, sa, size=47), errno.EINVAL)
    expect("BIND AF_IB with reserved 1: EINVAL",
           ucma.bind(fd, id2, sa, reserved=1), errno.EINVAL)
    expect("BIND AF_IB, a service ID of no port space: EPROTONOSUPPORT",
           ucma.bind(fd, id2, sib(sid=0x0000000009990000,
                                  mask=ucma.RDMA_IB_IP_PS_MASK)),
           errno.EPROTONOSUPPORT)
    e, id4 = create_id(fd, 1)
    expect("BIND_IP AF_IB (larger than a sockaddr_in6): EINVAL",
           ucma.bind_ip(fd, id4, sa), errno.EINVAL)
    expect("BIND_IP AF_UNIX: EINVAL",
           ucma.bind_ip(fd, id4, sin("0.0.0.0", family=1)), errno.EINVAL)
    expect("BIND_IP fe80::1 without a scope: EINVAL",
           ucma.bind_ip(fd, id4, sin6("fe80::1", 7000)), errno.EINVAL)
    expect("BIND_IP 10.99.99.99 (nobody's): EADDRNOTAVAIL",
           ucma.bind_ip(fd, id4, sin("10.99.99.99", 7000)),
           errno.EADDRNOTAVAIL)
    expect("BIND_IP 0.0.0.0:7001", ucma.bind_ip(fd, id4, sin("0.0.0.0", 7001)),
           0)
    e, id5 = create_id(fd, 1)
    expect("BIND_IP 0.0.0.0:7001 again: EADDRINUSE",
           ucma.bind_ip(fd, id5, sin("0.0.0.0", 7001)), errno.EADDRINUSE)
    expect("BIND_IP [::]:7001 (not AFONLY): EADDRINUSE",
           ucma.bind_ip(fd, id5, sin6("::", 7001)), errno.EADDRINUSE)
    expect("LISTEN on [::]:0 (any port)",
           ucma.bind_ip(fd, id5, sin6("::", 0)) or ucma.listen(fd, id5, 1), 0)
    e, raw = query(fd, id5, QUERY_ADDR)
    port = struct.unpack_from(">H", raw, 18)[0]
    lo, hi = map(int, open("/proc/sys/net/ipv4/ip_local_port_range").read()
                 .split())
    report(lo <= port <= hi, "QUERY ADDR: a port of ip_local_port_range",
           port)
    # a port below 1024 needs CAP_NET_BIND_SERVICE (upstream: EACCES)
    e, id6 = create_id(fd, 1)
    root = os.geteuid() == 0
    expect("BIND_IP 0.0.0.0:100 %s" % ("(root)" if root else
                                       "without CAP_NET_BIND_SERVICE: EACCES"),
           ucma.bind_ip(fd, id6, sin("0.0.0.0", 100)),
           0 if root else errno.EACCES)
    os.close(fd)


def lookups():
    fd = ucma.open_dev()
    fd2 = ucma.open_dev()
    e, id1 = create_id(fd, 0x11)
    e, id2 = create_id(fd2, 0x22)
    e, _ = query(fd, 0x7fffff00)
    expect("QUERY of an unknown id: ENOENT", e, errno.ENOENT)
    e, _ = query(fd, id2)
    expect("QUERY of another file's id: EINVAL", e, errno.EINVAL)
    e, _ = destroy_id(fd, id2)
    expect("DESTROY_ID of another file's id: EINVAL", e, errno.EINVAL)
    e, _ = query(fd2, id2)
    expect("... which is still there", e, 0)

    # MIGRATE_ID
    e, _ = ucma.migrate(fd2, id1, fd, out=0)
    expect("MIGRATE_ID with out 0: ENOSPC", e, errno.ENOSPC)
    e, _ = ucma.migrate(fd2, id1, 0)
    expect("MIGRATE_ID from a file that is not rdma_cm: EINVAL", e,
           errno.EINVAL)
    e, _ = ucma.migrate(fd2, id1, 999)
    expect("MIGRATE_ID from no file: ENOENT", e, errno.ENOENT)
    e, _ = ucma.migrate(fd2, id2, fd)
    expect("MIGRATE_ID of an id the old file does not have: EINVAL", e,
           errno.EINVAL)
    e, rep = ucma.migrate(fd2, id1, fd)
    report(e == 0 and rep == 0, "MIGRATE_ID: events_reported 0", (e, rep))
    e, _ = query(fd, id1)
    expect("after MIGRATE_ID the old file: EINVAL", e, errno.EINVAL)
    e, _ = query(fd2, id1)
    expect("after MIGRATE_ID the new file has it", e, 0)
    e, rep = ucma.migrate(fd2, id1, fd2)
    report(e == 0 and rep == 0, "MIGRATE_ID to the file it is on", (e, rep))

    # DESTROY_ID
    e, _ = destroy_id(fd2, id1, out=3)
    expect("DESTROY_ID with out 3: ENOSPC", e, errno.ENOSPC)
    e, _ = query(fd2, id1)
    expect("... and the id is still there", e, 0)
    e, rep = destroy_id(fd2, id1)
    report(e == 0 and rep == 0, "DESTROY_ID: events_reported 0", (e, rep))
    e, _ = destroy_id(fd2, id1)
    expect("DESTROY_ID again: ENOENT", e, errno.ENOENT)
    e, _ = query(fd2, id1)
    expect("QUERY of a destroyed id: ENOENT", e, errno.ENOENT)
    os.close(fd)
    os.close(fd2)


def bound_ids(n=64):
    """Ids bound to vmlx0 by AF_IB (its GID, no IP address needed) are
    counted by rdma res until close() destroys them."""
    base = ucma.res_counts().get("vmlx0", 0)
    fd = ucma.open_dev()
    gid = ucma.port_gid("vmlx0")
    errs = set()
    first = None
    for i in range(n):
        e, id_ = create_id(fd, i + 1, ps=PS_TCP)
        errs.add(e or ucma.bind(fd, id_, sib(gid, ucma.RDMA_IB_IP_PS_TCP,
                                             ucma.RDMA_IB_IP_PS_MASK)))
        first = first or id_
    report(errs == {0}, "%d ids bound by AF_IB to vmlx0's GID" % n, errs)
    e, raw = query(fd, first, QUERY_ADDR)
    guid, port = struct.unpack_from("<QB", raw)
    report(e == 0 and guid == ucma.node_guid("vmlx0") and port == 1 and
           raw[24:40] == gid,
           "QUERY ADDR: vmlx0's GUID, port 1, its GID",
           (e, hex(guid), port))
    counts = ucma.res_counts()
    report(counts.get("vmlx0") == base + n,
           "rdma res: %d more cm_ids on vmlx0" % n, counts)
    os.close(fd)
    counts = ucma.res_counts()
    report(counts.get("vmlx0") == base, "after close(): none of them left",
           counts)


def foreign(fd):
    """A file another process opened: EACCES, whatever the command."""
    r = Buf(4)
    expect("CREATE_ID on a file opened by another process: EACCES",
           cmd(fd, CREATE_ID, struct.pack("<QQHB5x", 1, r.addr, PS_TCP, 0),
               4), errno.EACCES)
    expect("... a bad command too: EACCES", cmd(fd, 99, b""), errno.EACCES)
    expect("... a 0-byte write too: EACCES", ucma.write(fd, b""),
           errno.EACCES)


def main():
    who = "root" if os.geteuid() == 0 else "uid %d" % os.geteuid()
    print("# ucma_abi.py as %s" % who)
    try:
        fd = ucma.open_dev()
        report(True, "open() O_RDWR")
        os.close(fd)
    except OSError as e:
        report(False, "open() O_RDWR", e)
        return 1
    creating()
    unbound()
    options()
    events()
    binding()
    lookups()
    bound_ids()
    if len(sys.argv) > 2 and sys.argv[1] == "--foreign-fd":
        foreign(int(sys.argv[2]))
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
