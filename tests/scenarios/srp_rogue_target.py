#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# A rogue SRP target over the RDMA CM (pyverbs, Debian's librdmacm), for
# tests/scenarios/srp-hostile.sh: it answers ib_srp's logins with login
# responses whose limits no initiator may accept, rejects one, and then
# accepts one and answers every SRP_CMD with malformed IUs before a
# response whose lengths lie, and that response once more.  One
# connection per MODE, in the order given:
#
#   srp_rogue_target.py ADDR PORT MODE...
#
#   ti_small    SRP_LOGIN_RSP with max_ti_iu_len 16
#   ti_huge     ... with max_ti_iu_len 1 GiB
#   it_small    ... with max_it_iu_len 64
#   no_credits  ... with req_lim_delta 0
#   bad_opcode  a REP whose private data is not an SRP_LOGIN_RSP
#   reject      an SRP_LOGIN_REJ (insufficient resources)
#   garbage     a good login, then the malformed IUs for every command,
#               until the initiator goes away (its DREQ is not seen: kill
#               the rogue when done)
#
# Prints "# " lines about what it did and "ok MODE" after each mode (for
# garbage: after its answers to the first command).

import struct
import sys

import pyverbs.cm_enums as ce
from pyverbs.cmid import AddrInfo, CMID, ConnParam
from pyverbs.qp import QPCap, QPInitAttr
import pyverbs.enums as e

SRP_CMD, SRP_LOGIN_RSP, SRP_RSP = 0x02, 0xC0, 0xC1
SRP_LOGIN_REJ, SRP_CRED_REQ, SRP_AER_REQ = 0xC2, 0x81, 0x82
BUF = 4096
NRECV = 32


def say(msg):
    print("# " + msg)
    sys.stdout.flush()


def login_rsp(req_lim=16, max_it=8276, max_ti=1024, opcode=SRP_LOGIN_RSP):
    return struct.pack(">B3xIQIIHB25x", opcode, req_lim, 0, max_it, max_ti,
                       0x6, 0)


def srp_rsp(tag, delta=1, flags=0, status=0, dores=0, dires=0, slen=0,
            rlen=0, data=b""):
    return (struct.pack(">BB2xI", SRP_RSP, 0, delta) + tag +
            struct.pack(">2xBBIIII", flags, status, dores, dires, slen,
                        rlen) + data)


class Conn:
    def __init__(self, cid):
        self.cid = cid
        self.rmrs = [cid.reg_msgs(BUF) for _ in range(NRECV)]
        self.smr = cid.reg_msgs(BUF)
        self.next = 0
        for mr in self.rmrs:
            cid.post_recv(mr, BUF)

    def recv(self):
        wc = self.cid.get_recv_comp()
        mr = self.rmrs[self.next]
        self.next = (self.next + 1) % NRECV
        if wc.status != e.IBV_WC_SUCCESS:
            raise RuntimeError("receive status %d" % wc.status)
        data = mr.read(wc.byte_len, 0) if wc.byte_len else b""
        self.cid.post_recv(mr, BUF)
        return data

    def send(self, iu):
        if iu:
            self.smr.write(iu, len(iu), 0)
        self.cid.post_send(self.smr, e.IBV_SEND_SIGNALED, len(iu))
        wc = self.cid.get_send_comp()
        if wc.status != e.IBV_WC_SUCCESS:
            raise RuntimeError("send status %d" % wc.status)


def garbage(conn):
    """Malformed IUs for every command, then a lying response, twice.

    No empty IU: pyverbs' post_send() takes a length of 0 for the whole
    MR, which would be a SEND longer than the initiator's receive buffers.
    """
    cmds = 0
    while True:
        try:
            iu = conn.recv()
        except Exception as ex:  # the initiator went away
            say("garbage: %d commands, then %s" % (cmds, ex))
            return
        if not iu or iu[0] != SRP_CMD or len(iu) < 48:
            continue
        cmds += 1
        tag = iu[8:16]
        good = srp_rsp(tag)
        for bad in (
                b"\x77",                                # unknown opcode
                good[:20],                              # short SRP_RSP
                srp_rsp(struct.pack("<Q", 0xdeadbeef)),  # no such tag
                srp_rsp(struct.pack("<Q", (5 << 16) | 1)),  # other queue
                srp_rsp(struct.pack("<Q", 1 << 31 | 77)),   # stale TMF
                srp_rsp(b"\xff" * 8),                   # tag > 32 bits
                struct.pack(">BB2xI", SRP_CRED_REQ, 0, 1),  # short
                struct.pack(">BB2xI", SRP_CRED_REQ, 0, 0x7fffffff) + tag,
                struct.pack(">BB2xI", SRP_AER_REQ, 0, 0),   # short
        ):
            conn.send(bad)
        # CHECK CONDITION, ILLEGAL REQUEST / LOGICAL UNIT NOT SUPPORTED,
        # with response and sense lengths far beyond the IU and a residual
        # beyond the buffer
        sense = bytes([0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x25, 0,
                       0, 0, 0, 0])
        conn.send(srp_rsp(tag, flags=0x01 | 0x02 | 0x20, status=2,
                          dires=0xffffffff, slen=0xffffffff, rlen=0xfffffff0,
                          data=sense))
        conn.send(srp_rsp(tag, flags=0x02, status=2, slen=len(sense),
                          data=sense))
        if cmds == 1:
            print("ok garbage")
            sys.stdout.flush()


def main():
    addr, port, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
    ai = AddrInfo(src=addr, src_service=port, port_space=ce.RDMA_PS_TCP,
                  flags=ce.RAI_PASSIVE)
    cap = QPCap(max_send_wr=64, max_recv_wr=NRECV + 4, max_send_sge=1,
                max_recv_sge=1)
    lid = CMID(creator=ai, qp_init_attr=QPInitAttr(qp_type=e.IBV_QPT_RC,
                                                     cap=cap, sq_sig_all=1))
    lid.listen()
    say("listening on %s:%s" % (addr, port))
    for mode in modes:
        cid = lid.get_request()
        say("%s: a login request" % mode)
        if mode == "reject":
            rej = struct.pack(">B3xIQ8xH6x", SRP_LOGIN_REJ, 0x00010001, 0,
                              0x6)
            cid.reject(rej)
            print("ok " + mode)
            continue
        rsp = {
            "ti_small": login_rsp(max_ti=16),
            "ti_huge": login_rsp(max_ti=1 << 30),
            "it_small": login_rsp(max_it=64),
            "no_credits": login_rsp(req_lim=0),
            "bad_opcode": login_rsp(opcode=SRP_RSP),
            "garbage": login_rsp(),
        }[mode]
        conn = Conn(cid)
        cp = ConnParam(resources=4, depth=4, flow_control=1, retry=7,
                       rnr_retry=7, data_len=len(rsp))
        cp.set_private_data(rsp)
        cid.accept(cp)
        if mode == "garbage":
            garbage(conn)
            continue
        print("ok " + mode)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
