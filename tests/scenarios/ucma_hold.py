#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm ids held open while their devices go, for the rdma-ucm
# scenario.  In namespace "a" (ADDR_A on ib0, vmlx0): an id bound to
# ADDR_A, a listener on ADDR_A:7480 and the server's end of a connection
# to it from namespace "b" (ADDR_B, vmlx1), ESTABLISHED; a wildcard
# listener (0.0.0.0:7481), bound to no device.  Then READY is created and
# the scenario removes ib_ipoib and vmlx, creating GO once `rmmod vmlx`
# returned: it must not wait for this process.  Then every id of a
# device has DEVICE_REMOVAL as its last event, once, answers ENXIO to
# commands and DESTROY_ID with the number of its events read; the
# wildcard listener got no event and still answers; new ids still work.
#
#   ucma_hold.py ADDR_A ADDR_B READY GO
#
# Prints "ok <what>" / "not ok <what>" (checker.py).
import errno
import os
import struct
import sys
import time

from checker import errno_name, exit_status, expect, report
import ucma
from ucma import (CONNECT_REQUEST, CONNECT_RESPONSE, DEVICE_REMOVAL,
                  ESTABLISHED, QUERY_ADDR, Events, create_id, destroy_id,
                  netns, query, sin)

A, B, READY, GO = sys.argv[1:5]


def made(what, e):
    expect(what, e, 0)
    if e:
        sys.exit(1)


def main():
    fa = ucma.open_dev(nonblock=True)
    fb = ucma.open_dev(nonblock=True)
    ea, eb = Events(fa), Events(fb)
    with netns("a"):
        _, bound = create_id(fa, 0x77)
        _, lis = create_id(fa, 0x78)
        _, wild = create_id(fa, 0x79)
    with netns("b"):
        _, cli = create_id(fb, 0x7a)
    made("an id bound to %s" % A, ucma.bind_ip(fa, bound, sin(A)))
    made("a listener on %s:7480" % A, ucma.bind_ip(fa, lis, sin(A, 7480)) or
         ucma.listen(fa, lis, 4))
    made("a listener on 0.0.0.0:7481",
         ucma.bind_ip(fa, wild, sin("0.0.0.0", 7481)) or
         ucma.listen(fa, wild, 4))
    e = ucma.resolve_ip(fb, cli, sin(A, 7480))
    ev = eb.wait(cli)
    e = e or (ev is None or ev.event != ucma.ADDR_RESOLVED)
    e = e or ucma.resolve_route(fb, cli)
    ev = eb.wait(cli)
    e = e or (ev is None or ev.event != ucma.ROUTE_RESOLVED)
    e = e or ucma.connect(fb, cli, ucma.conn_param(0x300))
    ev = ea.wait(event=CONNECT_REQUEST)
    srv = ev.id if ev else None
    e = e or srv is None or ucma.accept(fa, srv, 0x7b,
                                        ucma.conn_param(0x301))
    ev = eb.wait(cli, CONNECT_RESPONSE)
    e = e or ev is None or ucma.accept(fb, cli)
    ev = ea.wait(srv, ESTABLISHED)
    made("a connection from %s, ESTABLISHED" % B, int(e or ev is None))
    read = {bound: 0, lis: 1, srv: 1, cli: 3, wild: 0}

    open(READY, "w").close()
    deadline = time.monotonic() + 100
    while not os.path.exists(GO) and time.monotonic() < deadline:
        time.sleep(0.1)

    got = {}
    for fd, evs in ((fa, ea), (fb, eb)):
        for ev in evs.drain():
            got.setdefault(ev.id, []).append(ev)
    for id_, what in ((bound, "the bound id"), (lis, "the listener"),
                      (srv, "the server's end"), (cli, "the client")):
        evs = got.get(id_, [])
        read[id_] += len(evs)
        names = [e.name for e in evs]
        report(evs and evs[-1].event == DEVICE_REMOVAL and
               names.count("DEVICE_REMOVAL") == 1,
               "%s: DEVICE_REMOVAL, once, its last event" % what, names)
        fd = fb if id_ == cli else fa
        e, _ = query(fd, id_)
        expect("%s: QUERY after the removal: ENXIO" % what, e, errno.ENXIO)
    expect("the client: RESOLVE_ROUTE after the removal: ENXIO",
           ucma.resolve_route(fb, cli), errno.ENXIO)
    expect("the server's end: DISCONNECT after the removal: ENXIO",
           ucma.disconnect(fa, srv), errno.ENXIO)
    report(wild not in got, "the wildcard listener: no event",
           [e.name for e in got.get(wild, [])])
    e, raw = query(fa, wild, QUERY_ADDR)
    report(e == 0 and struct.unpack_from("<Q", raw)[0] == 0,
           "the wildcard listener: QUERY answers, no device",
           errno_name(e))
    for id_, fd, what in ((bound, fa, "the bound id"),
                          (lis, fa, "the listener"),
                          (srv, fa, "the server's end"),
                          (cli, fb, "the client"),
                          (wild, fa, "the wildcard listener")):
        e, rep = destroy_id(fd, id_)
        report(e == 0 and rep == read[id_],
               "%s: DESTROY_ID, events_reported %d" % (what, read[id_]),
               (errno_name(e), rep))
    with netns("a"):
        e, id_ = create_id(fa, 1)
    expect("a new id", e, 0)
    expect("BIND_IP %s (ib0 is gone): EADDRNOTAVAIL" % A,
           ucma.bind_ip(fa, id_, sin(A)), errno.EADDRNOTAVAIL)
    expect("LISTEN on the wildcard", ucma.listen(fa, id_, 1), 0)
    os.close(fa)
    os.close(fb)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
