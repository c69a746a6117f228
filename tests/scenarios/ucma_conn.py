#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Connections through the rdma_ucm command ABI alone, for the rdma-ucm
# scenario: one process plays both ends, its listeners in the network
# namespace "a" (ib0 on vmlx0, ADDR_A) and its clients in "b" (ib1 on
# vmlx1, ADDR_B); the connection parameters carry made-up QP numbers,
# which the IB CM only passes on.
#
#  1. A connection step by step: ADDR_RESOLVED, ROUTE_RESOLVED, QUERY
#     PATH and QUERY_ROUTE; the CONNECT_REQUEST with the listener's uid,
#     the client's QP number and private data, its new id in no file
#     until GET_EVENT reports it; QUERY and INIT_QP_ATTR of the new id;
#     ACCEPT with a uid that its events carry from then on;
#     CONNECT_RESPONSE with the server's private data, the RTU,
#     ESTABLISHED; a GET_EVENT to a bad pointer leaves the event first;
#     rdma res; DISCONNECT both ways; DESTROY_ID's events_reported; a
#     route given by SET_OPTION IB_PATH instead of RESOLVE_ROUTE.
#  2. A listener with backlog 2: the third request is REJECTED (reason
#     28) at once; MIGRATE_ID of the listener with an unread request to
#     another file, which then gets the request and the events of its
#     new id; REJECT with private data.
#  3. net.rdma_ucm.max_backlog caps a larger backlog; a listener
#     destroyed with unread requests: the requesters are REJECTED.
#  4. close() of a file with an unread request: REJECTED too.
#
#   ucma_conn.py ADDR_A ADDR_B
#
# Prints "ok <what>" / "not ok <what>" (checker.py).
import errno
import os
import re
import struct
import sys

from checker import (errno_name, exit_status, expect, report,
                     wait_readable)
import ucma
from ucma import (ADDR_RESOLVED, CONNECT_REQUEST, CONNECT_RESPONSE,
                  DISCONNECTED, ESTABLISHED, REJECTED, ROUTE_RESOLVED,
                  QUERY_ADDR, QUERY_PATH, Events, create_id, destroy_id,
                  netns, query, sin)

A, B = sys.argv[1], sys.argv[2]
SYSCTL = "/proc/sys/net/rdma_ucm/max_backlog"
# IB_QP_* attribute mask bits
QP_STATE, QP_ACCESS_FLAGS, QP_PKEY_INDEX, QP_PORT = 0x1, 0x8, 0x10, 0x20
QP_AV, QP_PATH_MTU, QP_RQ_PSN, QP_DEST_QPN = 0x80, 0x100, 0x1000, 0x100000
seen = set()		# every id number this process had


class Side:
    """A file and its events"""

    def __init__(self, ns):
        self.ns = ns
        self.fd = ucma.open_dev(nonblock=True)
        self.ev = Events(self.fd)

    def create(self, uid):
        with netns(self.ns):
            e, id_ = create_id(self.fd, uid)
        if e:
            raise OSError(e, "CREATE_ID")
        seen.add(id_)
        return id_

    def close(self):
        os.close(self.fd)


def listener(side, uid, port, backlog):
    id_ = side.create(uid)
    e = ucma.bind_ip(side.fd, id_, sin(A, port)) or \
        ucma.listen(side.fd, id_, backlog)
    expect("listener on %s:%d, backlog %d" % (A, port, backlog), e, 0)
    return id_


def connect(cl, uid, port, qpn, data, what=None):
    """A client id connecting to A:port: ADDR_RESOLVED, ROUTE_RESOLVED
    and CONNECT, one check for all unless @what names each step."""
    id_ = cl.create(uid)
    steps = []

    def step(name, ok, detail=""):
        steps.append((name, ok, detail))
        return ok

    e = ucma.resolve_ip(cl.fd, id_, sin(A, port))
    if step("RESOLVE_IP", e == 0, errno_name(e) if e else ""):
        ev = cl.ev.wait(id_)
        step("ADDR_RESOLVED, its uid", ev is not None and
             ev.event == ADDR_RESOLVED and ev.uid == uid and
             ev.status == 0, ev)
    if all(s[1] for s in steps):
        e = ucma.resolve_route(cl.fd, id_)
        if step("RESOLVE_ROUTE", e == 0, errno_name(e) if e else ""):
            ev = cl.ev.wait(id_)
            step("ROUTE_RESOLVED", ev is not None and
                 ev.event == ROUTE_RESOLVED and ev.status == 0, ev)
    if all(s[1] for s in steps):
        e = ucma.connect(cl.fd, id_, ucma.conn_param(qpn, data))
        step("CONNECT", e == 0, errno_name(e) if e else "")
    if what:
        for name, ok, detail in steps:
            report(ok, "%s: %s" % (what, name), detail)
    else:
        bad = [s for s in steps if not s[1]]
        report(not bad, "client %#x to port %d: resolved, routed, CONNECT"
               % (uid, port), bad)
    return id_


def wait_event(side, id_, event, what, uid=None, status=0, secs=10):
    ev = side.ev.wait(id_)
    ok = ev is not None and ev.event == event and ev.status == status and \
        (uid is None or ev.uid == uid)
    report(ok, what, ev or "nothing in %d s" % secs)
    return ev


def destroyed(side, id_, what, want):
    e, rep = destroy_id(side.fd, id_)
    report(e == 0 and rep == want, "DESTROY_ID %s: events_reported %d" %
           (what, want), (errno_name(e), rep))


def res_line(pattern):
    return re.search(pattern, ucma.cm_ids()) is not None


def rejected_one(cl, ids, what):
    """Exactly one of @ids is REJECTED (reason 28) within 10 s: the
    request a full backlog refused.  Returns it."""
    ev = cl.ev.wait(event=REJECTED)
    ok = ev is not None and ev.id in ids and ev.status == 28
    report(ok, what, ev or "no REJECTED in 10 s")
    return ev.id if ok else None


def part1(sa, cl):
    L = listener(sa, 0x1000, 7471, 2)
    e, raw = query(sa.fd, L, QUERY_ADDR)
    guid, port = struct.unpack_from("<QB", raw)
    report(e == 0 and guid == ucma.node_guid("vmlx0") and port == 1 and
           raw[16:24] == sin(A, 7471)[:8],
           "QUERY ADDR of the listener: vmlx0, port 1, %s:7471" % A,
           (errno_name(e), hex(guid), port, raw[16:24]))
    report(res_line(r"link vmlx0/1 .*state LISTEN ps TCP .*comm python3 "
                    r"src-addr %s:7471" % A),
           "rdma res show cm_id: the listener", ucma.cm_ids())

    C = connect(cl, 0x5001, 7471, 0x100, b"hello", what="client")
    e, raw = query(cl.fd, C, QUERY_PATH, out=8 + 72 * 2)
    n, flags = struct.unpack_from("<I4xI", raw)
    report(e == 0 and n == 1 and flags == 0x2b,
           "QUERY PATH: one path, GMP | PRIMARY | BIDIRECTIONAL",
           (errno_name(e), n, hex(flags)))
    path = raw[8:8 + 72]
    e, raw = ucma.query_route(cl.fd, C)
    dlid = struct.unpack_from(">H", raw, 8 + 32)[0]
    report(e == 0 and struct.unpack_from("<I", raw, 192)[0] == 1 and
           dlid == ucma.port_lid("vmlx0") and raw[196] == 1,
           "QUERY_ROUTE: one path, to vmlx0's LID, from port 1",
           (errno_name(e), dlid))

    # the new id of the request: in no file until GET_EVENT reports it
    report(wait_readable(sa.fd, 10), "the listener's file becomes readable")
    mine = {n for n in range(max(seen) + 16) if query(sa.fd, n)[0] == 0}
    einval = {n for n in range(max(seen) + 16)
              if query(sa.fd, n)[0] == errno.EINVAL} - seen
    ev = wait_event(sa, None, CONNECT_REQUEST,
                    "CONNECT_REQUEST with the listener's uid", uid=0x1000)
    if not ev:
        return
    N = ev.id
    seen.add(N)
    report(N not in mine and N in einval,
           "before GET_EVENT the new id answered EINVAL (no file's)",
           (N, sorted(einval)))
    report(N != L and N != C and ev.qp_num == 0x100,
           "CONNECT_REQUEST: a new id, the client's QP number",
           (N, hex(ev.qp_num)))
    report(ev.private_data[:5] == b"hello" and len(ev.private_data) == 56,
           "CONNECT_REQUEST: the client's private data (56 bytes)",
           ev.private_data[:16])
    expect("the new id belongs to the listener's file now",
           query(sa.fd, N)[0], 0)
    expect("... not to the client's", query(cl.fd, N)[0], errno.EINVAL)
    e, raw = query(sa.fd, N, QUERY_ADDR)
    report(e == 0 and struct.unpack_from("<QB", raw) ==
           (ucma.node_guid("vmlx0"), 1) and
           raw[16:24] == sin(A, 7471)[:8] and raw[144:146] == b"\2\0" and
           raw[148:152] == sin(B)[4:8],
           "QUERY ADDR of the new id: vmlx0 port 1, %s:7471 from %s" % (A, B),
           raw[:24].hex() + " " + raw[144:160].hex())
    e, raw = ucma.init_qp_attr(sa.fd, N, 1)
    mask, state = struct.unpack_from("<II", raw)
    report(e == 0 and state == 1 and mask == QP_STATE | QP_ACCESS_FLAGS |
           QP_PKEY_INDEX | QP_PORT and raw[133] == 1,
           "INIT_QP_ATTR INIT: state, access, P_Key index, port 1",
           (errno_name(e), hex(mask), state, raw[133]))
    e, raw = ucma.init_qp_attr(sa.fd, N, 2)
    mask, state = struct.unpack_from("<II", raw)
    mtu, dqpn = struct.unpack_from("<I", raw, 12)[0], \
        struct.unpack_from("<I", raw, 32)[0]
    dlid, glob, port = struct.unpack_from("<H", raw, 64)[0], raw[69], raw[70]
    want = QP_STATE | QP_AV | QP_PATH_MTU | QP_RQ_PSN | QP_DEST_QPN
    report(e == 0 and state == 2 and mask & want == want and
           dqpn == 0x100 and dlid == ucma.port_lid("vmlx1") and
           port == 1 and glob == 0 and 1 <= mtu <= 5,
           "INIT_QP_ATTR RTR: the client's QP number, vmlx1's LID, no GRH",
           (errno_name(e), hex(mask), state, hex(dqpn), dlid, port,
            glob, mtu))
    e, raw = query(sa.fd, N, QUERY_PATH, out=8 + 72)
    report(e == 0 and struct.unpack_from("<I", raw)[0] == 1,
           "QUERY PATH of the new id: one path", errno_name(e))

    e = ucma.accept(sa.fd, N, 0x2001, ucma.conn_param(0x200, b"welcome"))
    expect("ACCEPT with uid 0x2001", e, 0)
    ev = wait_event(cl, C, CONNECT_RESPONSE, "client: CONNECT_RESPONSE",
                    uid=0x5001)
    if ev:
        report(ev.qp_num == 0x200 and ev.private_data[:7] == b"welcome",
               "CONNECT_RESPONSE: the server's QP number and private data",
               (hex(ev.qp_num), ev.private_data[:16]))
    expect("client: ACCEPT without parameters (the RTU)",
           ucma.accept(cl.fd, C), 0)
    report(wait_readable(sa.fd, 10), "the server's file becomes readable")
    e, _ = ucma.get_event(sa.fd, response=0)
    expect("GET_EVENT to address 0: EFAULT", e, errno.EFAULT)
    wait_event(sa, N, ESTABLISHED,
               "... and the event is still there: ESTABLISHED, uid 0x2001",
               uid=0x2001)
    report(res_line(r"link vmlx0/1 .*qp-type RC state CONNECT ps TCP .*"
                    r"comm python3 src-addr %s:7471 dst-addr %s:" % (A, B)) and
           res_line(r"link vmlx1/1 .*qp-type RC state CONNECT ps TCP .*"
                    r"comm python3 src-addr %s:[0-9]+ dst-addr %s:7471" %
                    (B, A)),
           "rdma res show cm_id: both ends in CONNECT", ucma.cm_ids())

    expect("client: DISCONNECT", ucma.disconnect(cl.fd, C), 0)
    wait_event(sa, N, DISCONNECTED, "server: DISCONNECTED", uid=0x2001)
    expect("server: DISCONNECT (the DREP)", ucma.disconnect(sa.fd, N), 0)
    wait_event(cl, C, DISCONNECTED, "client: DISCONNECTED", uid=0x5001)
    destroyed(sa, N, "of the server's end", 2)
    destroyed(cl, C, "of the client", 4)
    destroyed(sa, L, "of the listener", 1)

    # a route from SET_OPTION IB_PATH (what librdmacm does with ibacm)
    C2 = cl.create(0x5009)
    e = ucma.resolve_ip(cl.fd, C2, sin(A, 7471))
    ev = cl.ev.wait(C2)
    report(e == 0 and ev is not None and ev.event == ADDR_RESOLVED,
           "another client: ADDR_RESOLVED", (errno_name(e), ev))
    e = ucma.set_option(cl.fd, C2, ucma.OPTION_IB, ucma.OPT_IB_PATH,
                        bytes(72) + path)
    expect("SET_OPTION IB_PATH, the path QUERY PATH gave (second record)",
           e, 0)
    wait_event(cl, C2, ROUTE_RESOLVED, "... ROUTE_RESOLVED", uid=0x5009)
    e, raw = ucma.query_route(cl.fd, C2)
    report(e == 0 and struct.unpack_from("<I", raw, 192)[0] == 1 and
           struct.unpack_from(">H", raw, 40)[0] == ucma.port_lid("vmlx0"),
           "... QUERY_ROUTE: that path", errno_name(e))
    destroyed(cl, C2, "of that client", 2)


def part2(sa, sa2, cl):
    L = listener(sa, 0x1002, 7472, 2)
    ids = {}
    for i in range(3):
        c = connect(cl, 0x5010 + i, 7472, 0x110 + i, b"req%d" % i)
        ids[0x110 + i] = c
    refused = rejected_one(cl, set(ids.values()),
                           "backlog 2: the third request REJECTED at once, "
                           "reason 28")
    ev = wait_event(sa, None, CONNECT_REQUEST, "server: a CONNECT_REQUEST",
                    uid=0x1002)
    if not ev or not refused:
        return
    N1, C1 = ev.id, ids.get(ev.qp_num)
    e, rep = ucma.migrate(sa2.fd, L, sa.fd)
    report(e == 0 and rep == 1,
           "MIGRATE_ID of the listener to another file: events_reported 1",
           (errno_name(e), rep))
    e, _ = ucma.get_event(sa.fd)
    expect("the old file: nothing left (the unread request moved)", e,
           errno.EAGAIN)
    ev = wait_event(sa2, None, CONNECT_REQUEST,
                    "the new file: the moved CONNECT_REQUEST", uid=0x1002)
    if not ev:
        return
    N2, C2 = ev.id, ids.get(ev.qp_num)
    report(C2 is not None and C2 != C1 and C2 != refused,
           "... of the other queued client", (C1, C2, refused))
    expect("its new id belongs to the new file", query(sa2.fd, N2)[0], 0)
    expect("... not to the old one", query(sa.fd, N2)[0], errno.EINVAL)
    e, _ = ucma.get_event(sa2.fd)
    expect("no third request was queued", e, errno.EAGAIN)

    expect("REJECT the first with private data",
           ucma.reject(sa.fd, N1, 0, b"no!"), 0)
    ev = wait_event(cl, C1, REJECTED, "its client: REJECTED, reason 28",
                    status=28)
    if ev:
        report(ev.private_data[:3] == b"no!",
               "... with the private data of the REJECT",
               ev.private_data[:16])
    expect("ACCEPT the second on the new file",
           ucma.accept(sa2.fd, N2, 0x2002, ucma.conn_param(0x210)), 0)
    wait_event(cl, C2, CONNECT_RESPONSE, "its client: CONNECT_RESPONSE")
    expect("... RTU", ucma.accept(cl.fd, C2), 0)
    wait_event(sa2, N2, ESTABLISHED,
               "ESTABLISHED comes to the new file, uid 0x2002", uid=0x2002)
    destroyed(sa, N1, "of the rejected request's id", 0)
    destroyed(sa2, L, "of the listener (a request read on each file)", 2)
    destroyed(sa2, N2, "of the connected id, without DISCONNECT", 1)
    wait_event(cl, C2, DISCONNECTED, "its client: DISCONNECTED")
    for c in ids.values():
        destroy_id(cl.fd, c)


def part3(sa, cl):
    with netns(None), open(SYSCTL, "w") as f:
        f.write("2")
    try:
        L = listener(sa, 0x1003, 7473, 100)
        ids = {connect(cl, 0x5020 + i, 7473, 0x120 + i, b"")
               for i in range(3)}
        refused = rejected_one(cl, ids, "max_backlog 2 caps backlog 100: "
                               "the third request REJECTED")
    finally:
        with netns(None), open(SYSCTL, "w") as f:
            f.write("1024")
    report(wait_readable(sa.fd, 10), "two requests unread")
    destroyed(sa, L, "of the listener with two unread requests", 0)
    e, _ = ucma.get_event(sa.fd)
    expect("its unread requests are gone", e, errno.EAGAIN)
    for c in ids - {refused}:
        wait_event(cl, c, REJECTED, "their client %d: REJECTED, reason 28" % c,
                   status=28)
    for c in ids:
        destroy_id(cl.fd, c)


def part4(sa2, cl):
    listener(sa2, 0x1004, 7474, 1)
    ids = {connect(cl, 0x5030 + i, 7474, 0x130 + i, b"") for i in range(2)}
    refused = rejected_one(cl, ids, "backlog 1: the second request REJECTED")
    report(wait_readable(sa2.fd, 10), "one request unread")
    sa2.close()
    for c in ids - {refused}:
        wait_event(cl, c, REJECTED,
                   "close() of the listener's file: its client REJECTED",
                   status=28)
    for c in ids:
        destroy_id(cl.fd, c)


def main():
    sa, sa2, cl = Side("a"), Side("a"), Side("b")
    part1(sa, cl)
    part2(sa, sa2, cl)
    part3(sa, cl)
    part4(sa2, cl)
    sa.close()
    cl.close()
    counts = ucma.res_counts()
    report(set(counts.values()) == {0}, "afterwards rdma res: no cm_id",
           counts)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
