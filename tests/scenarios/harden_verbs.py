#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Hostile and unprivileged use of vmlx through libibverbs (pyverbs, with
# Debian's librxe provider), for the vmlx-hardening scenario.  Prints one
# line per check, "ok <what>" or "not ok <what>" (checker.py).
#
#   harden_verbs.py doorbell          the send doorbell of a QP that may not
#                                     send yet fails, in RESET, INIT, RTR
#   harden_verbs.py spoof             a QP on vmlx2 aims SENDs at a QP of
#                                     vmlx0 connected to vmlx1 (UC and RC),
#                                     with the victim's own PSN
#   harden_verbs.py qkey-modify EXPECT  MODIFY_QP with Q_Key 0x80010000:
#                                     EXPECT "ok" or "EPERM"
#   harden_verbs.py qkey-mode 0|1     RDMA netlink SYS_SET of the privileged
#                                     Q_Key mode
#   harden_verbs.py qkey-pma QKEY LID   a UD QP with Q_Key QKEY sends a PMA
#                                     Set(PortCounters) clearing every
#                                     counter to QP1 of LID, with the WR's
#                                     remote Q_Key 0x80010000
#
# The counters named in the checks are vmlx's, in debugfs.
import errno
import socket
import struct
import sys
import time

from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR
import pyverbs.enums as e

from checker import QP1_QKEY, exit_status, report, vmlx_counter


class End:
    """One HCA with a PD, a CQ, a buffer MR and one QP of @qpt."""

    def __init__(self, dev, qpt, qkey=None):
        self.dev = dev
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        self.mr = MR(self.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE |
                     e.IBV_ACCESS_REMOTE_WRITE)
        self.lid = self.ctx.query_port(1).lid
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                    max_recv_sge=1)
        self.qpt = qpt
        self.qp = QP(self.pd, QPInitAttr(qp_type=qpt, scq=self.cq,
                                         rcq=self.cq, cap=cap))
        self.qkey = qkey

    def init(self):
        a = QPAttr(qp_state=e.IBV_QPS_INIT)
        a.pkey_index = 0
        a.port_num = 1
        mask = e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT
        if self.qpt == e.IBV_QPT_UD:
            a.qkey = self.qkey
            mask |= e.IBV_QP_QKEY
        else:
            a.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE
            mask |= e.IBV_QP_ACCESS_FLAGS
        self.qp.modify(a, mask)

    def rtr(self, dlid=0, dqpn=0, rq_psn=0):
        a = QPAttr(qp_state=e.IBV_QPS_RTR)
        mask = e.IBV_QP_STATE
        if self.qpt != e.IBV_QPT_UD:
            a.path_mtu = e.IBV_MTU_1024
            a.dest_qp_num = dqpn
            a.rq_psn = rq_psn
            a.ah_attr = AHAttr(dlid=dlid, port_num=1)
            mask |= (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                     e.IBV_QP_RQ_PSN)
        if self.qpt == e.IBV_QPT_RC:
            a.max_dest_rd_atomic = 1
            a.min_rnr_timer = 12
            mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
        self.qp.modify(a, mask)

    def rts(self, sq_psn=0):
        a = QPAttr(qp_state=e.IBV_QPS_RTS)
        a.sq_psn = sq_psn
        mask = e.IBV_QP_STATE | e.IBV_QP_SQ_PSN
        if self.qpt == e.IBV_QPT_RC:
            a.timeout = 10
            a.retry_cnt = 2
            a.rnr_retry = 2
            a.max_rd_atomic = 1
            mask |= (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
                     e.IBV_QP_RNR_RETRY | e.IBV_QP_MAX_QP_RD_ATOMIC)
        self.qp.modify(a, mask)

    def connect(self, peer_lid, peer_qpn, rq_psn, sq_psn):
        self.init()
        self.rtr(peer_lid, peer_qpn, rq_psn)
        self.rts(sq_psn)

    def post_recv(self, wr_id=1):
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                                 sg=[SGE(self.mr.buf, 4096, self.mr.lkey)]))

    def send_wr(self, data, wr_id=2):
        self.mr.write(data, len(data))
        return SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                      sg=[SGE(self.mr.buf, len(data), self.mr.lkey)],
                      send_flags=e.IBV_SEND_SIGNALED)

    def poll(self, secs):
        """Completions seen within @secs."""
        out = []
        end = time.monotonic() + secs
        while time.monotonic() < end:
            n, wcs = self.cq.poll(8)
            out += wcs[:n]
            if n == 0:
                time.sleep(0.01)
        return out


def errno_of(fn, *args):
    try:
        fn(*args)
    except PyverbsRDMAError as err:
        return err.error_code
    return 0


def doorbell():
    """ibv_post_send on a QP in RESET, INIT and RTR must fail (EINVAL)."""
    a = End("vmlx0", e.IBV_QPT_RC)
    b = End("vmlx1", e.IBV_QPT_RC)
    b.connect(a.lid, a.qp.qp_num, 0x1234, 0x5678)
    for i in range(4):
        b.post_recv(wr_id=10 + i)
    wr = a.send_wr(b"doorbell")
    got = errno_of(a.qp.post_send, wr)
    report(got == errno.EINVAL, "ibv_post_send in RESET: EINVAL",
           "errno %d" % got)
    a.init()
    got = errno_of(a.qp.post_send, wr)
    report(got == errno.EINVAL, "ibv_post_send in INIT: EINVAL",
           "errno %d" % got)
    a.rtr(b.lid, b.qp.qp_num, 0x5678)
    got = errno_of(a.qp.post_send, wr)
    report(got == errno.EINVAL, "ibv_post_send in RTR: EINVAL",
           "errno %d" % got)
    a.rts(0x1234)
    got = errno_of(a.qp.post_send, wr)
    report(got == 0, "ibv_post_send in RTS: accepted", "errno %d" % got)
    # librxe leaves the WQEs of a refused doorbell in the ring: all four
    # go out with the first doorbell in RTS
    wcs = a.poll(2)
    report(len(wcs) == 4 and all(w.status == e.IBV_WC_SUCCESS for w in wcs),
           "the four sends complete once the QP is in RTS",
           "%r" % [(w.wr_id, w.status) for w in wcs])
    got = b.poll(1)
    report(len(got) == 4 and all(w.status == e.IBV_WC_SUCCESS for w in got)
           and b.mr.read(8, 0) == b"doorbell", "the peer received them",
           "%r" % [(w.wr_id, w.status) for w in got])


def spoof_one(qpt, name):
    """Victim v (vmlx0) connected to p (vmlx1); the attacker x on vmlx2
    aims at v's QPN and LID with v's own expected PSN."""
    v = End("vmlx0", qpt)
    p = End("vmlx1", qpt)
    x = End("vmlx2", qpt)
    psn_v, psn_p = 0x10203, 0x40506
    v.connect(p.lid, p.qp.qp_num, psn_p, psn_v)
    p.connect(v.lid, v.qp.qp_num, psn_v, psn_p)
    x.connect(v.lid, v.qp.qp_num, psn_v, psn_p)
    for i in range(2):
        v.post_recv(wr_id=100 + i)

    bad0 = vmlx_counter("vmlx0", "rcv_bad_source")
    x.qp.post_send(x.send_wr(b"forged!!"))
    got = v.poll(1.5 if qpt == e.IBV_QPT_RC else 0.5)
    report(not got, "%s: a SEND from vmlx2 with the victim's PSN is not "
           "received" % name, "victim completions %r, buffer %r" %
           ([(w.wr_id, w.status) for w in got], v.mr.read(8, 0)))
    bad = vmlx_counter("vmlx0", "rcv_bad_source") - bad0
    report(bad >= 1, "%s: vmlx0 counts it in rcv_bad_source" % name,
           "counted %d" % bad)
    if qpt == e.IBV_QPT_RC:
        # no ACK ever comes back: the attacker's retries run out
        xw = x.poll(3)
        report(xw and xw[0].status == e.IBV_WC_RETRY_EXC_ERR,
               "RC: the attacker's SEND ends in RETRY_EXC_ERR",
               "%r" % [(w.wr_id, w.status) for w in xw])

    p.qp.post_send(p.send_wr(b"genuine!"))
    got = v.poll(1)
    report(len(got) == 1 and got[0].status == e.IBV_WC_SUCCESS and
           got[0].wr_id == 100 and v.mr.read(8, 0) == b"genuine!",
           "%s: the peer's SEND at that PSN lands in the first receive WQE"
           % name, "completions %r, buffer %r" %
           ([(w.wr_id, w.status) for w in got], v.mr.read(8, 0)))
    pw = p.poll(1)
    report(pw and pw[0].status == e.IBV_WC_SUCCESS,
           "%s: the peer's SEND completes" % name,
           "%r" % [(w.wr_id, w.status) for w in pw])


def spoof():
    spoof_one(e.IBV_QPT_UC, "UC")
    spoof_one(e.IBV_QPT_RC, "RC")


def qkey_modify(expect):
    """MODIFY_QP to INIT with the GSI's Q_Key."""
    u = End("vmlx0", e.IBV_QPT_UD, qkey=QP1_QKEY)
    got = errno_of(u.init)
    want = 0 if expect == "ok" else errno.EPERM
    report(got == want, "MODIFY_QP with Q_Key 0x80010000: %s" % expect,
           "errno %d" % got)


def qkey_mode(mode):
    """RDMA_NLDEV_CMD_SYS_SET with RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)
    attr = struct.pack("=HHB3x", 5, 96, int(mode))
    msg = struct.pack("=IHHII", 16 + len(attr), (5 << 10) | 7, 0x5, 1, 0)
    s.send(msg + attr)
    reply = s.recv(4096)
    s.close()
    err = struct.unpack_from("=i", reply, 16)[0]
    report(err == 0, "privileged Q_Key mode %s set" % mode, "errno %d" % err)


def pma_set_clear(tid):
    """A PMA Set(PortCounters) of port 1 clearing every counter."""
    hdr = struct.pack(">BBBBHHQHHI", 1, 0x04, 1, 0x02, 0, 0, tid,
                      0x0012, 0, 0)
    # 40 reserved bytes, then PortCounters: PortSelect 1, CounterSelect
    # 0xffff
    data = struct.pack(">BBH", 0, 1, 0xffff)
    return hdr + bytes(40) + data + bytes(256 - 24 - 40 - len(data))


def qkey_pma(qkey, lid):
    u = End("vmlx0", e.IBV_QPT_UD, qkey=int(qkey, 0))
    u.init()
    u.rtr()
    u.rts()
    ah = AH(u.pd, attr=AHAttr(dlid=int(lid, 0), port_num=1))
    wr = u.send_wr(pma_set_clear(0x5eed))
    wr.set_wr_ud(ah, 1, QP1_QKEY)
    u.qp.post_send(wr)
    got = u.poll(1)
    report(got and got[0].status == e.IBV_WC_SUCCESS,
           "UD send with Q_Key 0x%x to QP1 of LID %s completes" %
           (int(qkey, 0), lid), "%r" % [(w.wr_id, w.status) for w in got])
    time.sleep(0.5)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "doorbell":
        doorbell()
    elif cmd == "spoof":
        spoof()
    elif cmd == "qkey-modify":
        qkey_modify(sys.argv[2])
    elif cmd == "qkey-mode":
        qkey_mode(sys.argv[2])
    elif cmd == "qkey-pma":
        qkey_pma(sys.argv[2], sys.argv[3])
    sys.exit(exit_status())
