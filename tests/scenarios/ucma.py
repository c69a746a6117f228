# SPDX-License-Identifier: GPL-2.0
"""The rdma_ucm command ABI (/dev/infiniband/rdma_cm), for the checkers of
the rdma-ucm scenario (ucma_abi.py, ucma_fuzz.py, ucma_conn.py,
ucma_hold.py).  Layouts are those of include/uapi/rdma/rdma_user_cm.h;
Documentation/rdma_ucm.rst says what each command answers.

Every command is one write() of the 8-byte header (cmd, in, out) and the
command's structure.  The helpers return the errno of the write (0 for
success, as checker.py's expect() wants) and what the kernel wrote to the
response buffer.  Results are printed with checker.py's report() and
expect().

Also: sockaddr packing (sin(), sin6(), sib()), an event reader that keeps
what it is not asked for (Events), entering a network namespace (netns())
and the counts of ``rdma res``.
"""
import collections
import contextlib
import ctypes
import errno
import os
import select
import socket
import struct
import subprocess

from checker import Buf

DEV = "/dev/infiniband/rdma_cm"

(CREATE_ID, DESTROY_ID, BIND_IP, RESOLVE_IP, RESOLVE_ROUTE, QUERY_ROUTE,
 CONNECT, LISTEN, ACCEPT, REJECT, DISCONNECT, INIT_QP_ATTR, GET_EVENT,
 GET_OPTION, SET_OPTION, NOTIFY, JOIN_IP_MCAST, LEAVE_MCAST, MIGRATE_ID,
 QUERY, BIND, RESOLVE_ADDR, JOIN_MCAST) = range(23)
NCMDS = 23
CMD_NAMES = ["CREATE_ID", "DESTROY_ID", "BIND_IP", "RESOLVE_IP",
             "RESOLVE_ROUTE", "QUERY_ROUTE", "CONNECT", "LISTEN", "ACCEPT",
             "REJECT", "DISCONNECT", "INIT_QP_ATTR", "GET_EVENT",
             "GET_OPTION", "SET_OPTION", "NOTIFY", "JOIN_IP_MCAST",
             "LEAVE_MCAST", "MIGRATE_ID", "QUERY", "BIND", "RESOLVE_ADDR",
             "JOIN_MCAST"]

PS_IPOIB, PS_TCP, PS_UDP, PS_IB = 0x0002, 0x0106, 0x0111, 0x013f
QPT_RC, QPT_UC, QPT_UD = 2, 3, 4
QUERY_ADDR, QUERY_PATH, QUERY_GID = 0, 1, 2
OPTION_ID, OPTION_IB = 0, 1
OPT_TOS, OPT_REUSEADDR, OPT_AFONLY, OPT_ACK_TIMEOUT = 0, 1, 2, 3
OPT_IB_PATH = 1
AF_IB = 27
# struct ib_path_rec_data flags
PATH_GMP, PATH_PRIMARY, PATH_BIDIRECTIONAL = 0x1, 0x2, 0x28

(ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST,
 CONNECT_RESPONSE, CONNECT_ERROR, UNREACHABLE, REJECTED, ESTABLISHED,
 DISCONNECTED, DEVICE_REMOVAL, MULTICAST_JOIN, MULTICAST_ERROR,
 ADDR_CHANGE, TIMEWAIT_EXIT) = range(16)
EVENT_NAMES = ["ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED",
               "ROUTE_ERROR", "CONNECT_REQUEST", "CONNECT_RESPONSE",
               "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
               "DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN",
               "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"]

# Sizes of the structures and of the responses; the *_MIN are the
# smallest "out" a command accepts (ENOSPC below).
CMD_SIZE = {CREATE_ID: 24, DESTROY_ID: 16, BIND_IP: 40, RESOLVE_IP: 64,
            RESOLVE_ROUTE: 8, QUERY_ROUTE: 16, CONNECT: 288, LISTEN: 8,
            ACCEPT: 296, REJECT: 264, DISCONNECT: 4, INIT_QP_ATTR: 16,
            GET_EVENT: 8, GET_OPTION: 24, SET_OPTION: 24, NOTIFY: 8,
            JOIN_IP_MCAST: 48, LEAVE_MCAST: 16, MIGRATE_ID: 16, QUERY: 16,
            BIND: 136, RESOLVE_ADDR: 272, JOIN_MCAST: 152}
ID_RESP = 4			# create_id, destroy_id, migrate, join, leave
QUERY_ROUTE_RESP, QUERY_ROUTE_MIN = 208, 200
QUERY_ADDR_RESP, QUERY_ADDR_MIN = 280, 272
QUERY_PATH_MIN, PATH_REC_DATA = 8, 72
QP_ATTR_RESP = 144
EVENT_RESP, EVENT_MIN = 336, 324
CONN_PARAM_END = 280		# CONNECT: conn_param, id, reserved (no ece)
ACCEPT_END = 288		# ACCEPT: uid, conn_param, id, reserved

_libc = ctypes.CDLL(None, use_errno=True)
_libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
_libc.write.restype = ctypes.c_ssize_t
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]

PAGE = 4096


def open_dev(nonblock=False):
    return os.open(DEV, os.O_RDWR | (os.O_NONBLOCK if nonblock else 0))


def hdr(cmd, in_len, out):
    return struct.pack("<IHH", cmd, in_len, out)


def write(fd, data):
    """write() @data: 0 if the kernel took all of it, else its errno (a
    short count, which the ABI never gives, is its negative value)."""
    try:
        n = os.write(fd, data)
    except OSError as e:
        return e.errno
    return 0 if n == len(data) else -n


def raw_write(fd, addr, length):
    """write() of @length bytes at the address @addr: 0 if it answered
    @length, -count for another count, or the errno."""
    n = _libc.write(fd, addr, length)
    if n < 0:
        return ctypes.get_errno()
    return 0 if n == length else -n


def cmd(fd, c, body, out=0, in_len=None):
    """Command @c with @body; "in" is len(body) unless @in_len says."""
    return write(fd, hdr(c, len(body) if in_len is None else in_len, out) +
                 body)


def guarded(size, prot=3):
    """@size bytes (a multiple of the page) of anonymous memory with
    protection @prot, followed by an inaccessible page: the address."""
    base = _libc.mmap(None, size + PAGE, 3, 0x22, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    if _libc.mprotect(base + size, PAGE, 0) or \
            (prot != 3 and _libc.mprotect(base, size, prot)):
        raise OSError(ctypes.get_errno(), "mprotect")
    return base


# --- addresses -----------------------------------------------------------

def sin(addr, port=0, family=socket.AF_INET):
    """struct sockaddr_in (16 bytes)"""
    return (struct.pack("<H", family) + struct.pack(">H", port) +
            socket.inet_aton(addr) + bytes(8))


def sin6(addr="::", port=0, scope=0, family=socket.AF_INET6):
    """struct sockaddr_in6 (28 bytes)"""
    return (struct.pack("<H", family) + struct.pack(">HI", port, 0) +
            socket.inet_pton(socket.AF_INET6, addr) +
            struct.pack("<I", scope))


def sib(gid=bytes(16), sid=0, mask=0, pkey=0xffff):
    """struct sockaddr_ib (48 bytes); @gid the 16 raw bytes"""
    return (struct.pack("<H", AF_IB) + struct.pack(">HI", pkey, 0) + gid +
            struct.pack(">QQ", sid, mask) + bytes(8))


RDMA_IB_IP_PS_TCP = 0x0000000001060000
RDMA_IB_IP_PS_MASK = 0xffffffffffff0000


def in6(sa):
    """@sa in a struct sockaddr_in6 field (28 bytes: cut or padded)"""
    return sa[:28].ljust(28, b"\0")


def kss(sa):
    """@sa in a struct __kernel_sockaddr_storage field (128 bytes)"""
    return sa[:128].ljust(128, b"\0")


def port_gid(dev, port=1):
    """The raw GID 0 of @dev's @port, from sysfs."""
    with open("/sys/class/infiniband/%s/ports/%d/gids/0" % (dev, port)) as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def port_lid(dev, port=1):
    with open("/sys/class/infiniband/%s/ports/%d/lid" % (dev, port)) as f:
        return int(f.read(), 16)


def node_guid(dev):
    """The node GUID of @dev as QUERY answers it (big-endian bytes read
    as a little-endian number)."""
    with open("/sys/class/infiniband/%s/node_guid" % dev) as f:
        raw = bytes.fromhex(f.read().strip().replace(":", ""))
    return struct.unpack("<Q", raw)[0]


# --- commands --------------------------------------------------------------

def create_id(fd, uid, ps=PS_TCP, qp_type=0):
    """(errno, id)"""
    r = Buf(ID_RESP, 0xff)
    e = cmd(fd, CREATE_ID, struct.pack("<QQHB5x", uid, r.addr, ps, qp_type),
            ID_RESP)
    return e, struct.unpack("<I", r.raw())[0]


def destroy_id(fd, id_, out=ID_RESP):
    """(errno, events_reported)"""
    r = Buf(ID_RESP, 0xff)
    e = cmd(fd, DESTROY_ID, struct.pack("<QII", r.addr, id_, 0), out)
    return e, struct.unpack("<I", r.raw())[0]


def bind_ip(fd, id_, sa):
    return cmd(fd, BIND_IP, struct.pack("<Q", 0) + in6(sa) +
               struct.pack("<I", id_))


def bind(fd, id_, sa, size=None, reserved=0):
    return cmd(fd, BIND, struct.pack("<IHH", id_,
                                     len(sa) if size is None else size,
                                     reserved) + kss(sa))


def resolve_ip(fd, id_, dst, src=b"", timeout_ms=2000):
    return cmd(fd, RESOLVE_IP, in6(src) + in6(dst) +
               struct.pack("<II", id_, timeout_ms))


def resolve_addr(fd, id_, dst, src=b"", timeout_ms=2000, src_size=None,
                 dst_size=None, reserved=0):
    return cmd(fd, RESOLVE_ADDR, struct.pack(
        "<IIHHI", id_, timeout_ms, len(src) if src_size is None else src_size,
        len(dst) if dst_size is None else dst_size, reserved) +
        kss(src) + kss(dst))


def resolve_route(fd, id_, timeout_ms=2000):
    return cmd(fd, RESOLVE_ROUTE, struct.pack("<II", id_, timeout_ms))


def query(fd, id_, option=QUERY_ADDR, out=QUERY_ADDR_RESP, size=None):
    """(errno, the bytes of the response buffer: @size, default @out, at
    least 1, filled with 0xaa before)"""
    r = Buf(max(size or out, 1), 0xaa)
    e = cmd(fd, QUERY, struct.pack("<QII", r.addr, id_, option), out)
    return e, r.raw()


def query_route(fd, id_, out=QUERY_ROUTE_RESP, size=None):
    r = Buf(max(size or out, 1), 0xaa)
    e = cmd(fd, QUERY_ROUTE, struct.pack("<QII", r.addr, id_, 0), out)
    return e, r.raw()


def conn_param(qp_num=0, private_data=b"", qkey=0, srq=0, resources=1,
               depth=1, flow_control=1, retry=7, rnr_retry=7, valid=1,
               private_data_len=None):
    """struct rdma_ucm_conn_param (272 bytes)"""
    return struct.pack("<II256sBBBBBBBB", qp_num, qkey, private_data,
                       len(private_data) if private_data_len is None
                       else private_data_len, srq, resources, depth,
                       flow_control, retry, rnr_retry, valid)


def connect(fd, id_, param, ece=True):
    body = param + struct.pack("<II", id_, 0)
    if ece:
        body += struct.pack("<II", 0, 0)
    return cmd(fd, CONNECT, body)


def listen(fd, id_, backlog):
    return cmd(fd, LISTEN, struct.pack("<II", id_, backlog))


def accept(fd, id_, uid=0, param=None):
    """ACCEPT: with @param the passive side's answer, without the active
    side's RTU."""
    if param is None:
        param = conn_param(valid=0)
    return cmd(fd, ACCEPT, struct.pack("<Q", uid) + param +
               struct.pack("<IIII", id_, 0, 0, 0))


def reject(fd, id_, reason=0, private_data=b""):
    return cmd(fd, REJECT, struct.pack("<IBB2x256s", id_, len(private_data),
                                       reason, private_data))


def disconnect(fd, id_):
    return cmd(fd, DISCONNECT, struct.pack("<I", id_))


def init_qp_attr(fd, id_, state, out=QP_ATTR_RESP):
    """(errno, struct ib_uverbs_qp_attr's bytes)"""
    r = Buf(max(out, 1), 0)
    e = cmd(fd, INIT_QP_ATTR, struct.pack("<QII", r.addr, id_, state), out)
    return e, r.raw()


def set_option(fd, id_, level, name, value=None, addr=None, length=None):
    """SET_OPTION with the bytes @value, or with @addr and @length"""
    keep = None
    if value is not None:
        keep = Buf(max(len(value), 1))
        ctypes.memmove(keep.addr, value, len(value))
        addr = keep.addr
        if length is None:
            length = len(value)
    e = cmd(fd, SET_OPTION, struct.pack("<QIIII", addr or 0, id_, level,
                                        name, length or 0))
    del keep
    return e


def notify(fd, id_, event):
    return cmd(fd, NOTIFY, struct.pack("<II", id_, event))


def join_ip(fd, id_, uid, sa):
    """(errno, the group's number)"""
    r = Buf(ID_RESP, 0xff)
    e = cmd(fd, JOIN_IP_MCAST, struct.pack("<QQ", r.addr, uid) + in6(sa) +
            struct.pack("<I", id_), ID_RESP)
    return e, struct.unpack("<I", r.raw())[0]


def join(fd, id_, uid, sa, flags=0, size=None):
    r = Buf(ID_RESP, 0xff)
    e = cmd(fd, JOIN_MCAST, struct.pack(
        "<QQIHH", r.addr, uid, id_, len(sa) if size is None else size,
        flags) + kss(sa), ID_RESP)
    return e, struct.unpack("<I", r.raw())[0]


def leave(fd, mc_id, out=ID_RESP):
    """(errno, events_reported)"""
    r = Buf(ID_RESP, 0xff)
    e = cmd(fd, LEAVE_MCAST, struct.pack("<QII", r.addr, mc_id, 0), out)
    return e, struct.unpack("<I", r.raw())[0]


def migrate(fd, id_, from_fd, out=ID_RESP):
    """MIGRATE_ID of @id_ from the file @from_fd to @fd: (errno,
    events_reported)"""
    r = Buf(ID_RESP, 0xff)
    e = cmd(fd, MIGRATE_ID, struct.pack("<QII", r.addr, id_, from_fd), out)
    return e, struct.unpack("<I", r.raw())[0]


# --- events ----------------------------------------------------------------

class Event(collections.namedtuple("Event", "uid id event status raw")):
    """A struct rdma_ucm_event_resp; conn is its conn_param part."""

    @property
    def name(self):
        return EVENT_NAMES[self.event] if self.event < 16 else str(self.event)

    @property
    def qp_num(self):
        return struct.unpack_from("<I", self.raw, 20)[0]

    @property
    def private_data(self):
        return self.raw[28:28 + self.raw[284]]

    def __str__(self):
        return "%s id %d uid %#x status %d" % (self.name, self.id, self.uid,
                                              self.status)


def get_event(fd, secs=None, response=None, out=EVENT_RESP):
    """GET_EVENT, after waiting up to @secs for the file to be readable
    (None: no wait).  (errno, Event or None)"""
    if secs is not None:
        p = select.poll()
        p.register(fd, select.POLLIN)
        if not p.poll(int(secs * 1000)):
            return errno.ETIMEDOUT, None
    r = Buf(EVENT_RESP, 0)
    e = cmd(fd, GET_EVENT, struct.pack(
        "<Q", r.addr if response is None else response), out)
    if e:
        return e, None
    raw = r.raw()
    return 0, Event(*struct.unpack_from("<QIIi", raw), raw=raw)


class Events:
    """The events of one file.  wait() returns the first event that
    matches, reading more as needed and keeping the others for later."""

    def __init__(self, fd):
        self.fd = fd
        self.kept = []

    def _next(self, secs):
        return get_event(self.fd, secs)[1]

    def wait(self, id_=None, event=None, secs=10.0):
        """The first event of @id_ (any id if None), of type @event (any
        if None), within @secs; None if none came."""
        def match(ev):
            return ((id_ is None or ev.id == id_) and
                    (event is None or ev.event == event))
        for ev in self.kept:
            if match(ev):
                self.kept.remove(ev)
                return ev
        deadline = _now() + secs
        while True:
            ev = self._next(max(0.0, deadline - _now()))
            if ev is None:
                return None
            if match(ev):
                return ev
            self.kept.append(ev)

    def drain(self, secs=0.0):
        """Read everything there is (waiting @secs for more): the events
        not taken yet, and forget them."""
        while True:
            ev = self._next(secs)
            if ev is None:
                break
            self.kept.append(ev)
        out, self.kept = self.kept, []
        return out


def _now():
    return os.times().elapsed


# --- the environment -------------------------------------------------------

_home_ns = None


@contextlib.contextmanager
def netns(name):
    """Run the block in the network namespace @name (ip netns), or in the
    one the process started in for None.  Ids take the namespace in
    which CREATE_ID is written."""
    global _home_ns
    if _home_ns is None:
        _home_ns = os.open("/proc/self/ns/net", os.O_RDONLY)
    if name is None:
        fd = os.dup(_home_ns)
    else:
        fd = os.open("/var/run/netns/" + name, os.O_RDONLY)
    cur = os.open("/proc/self/ns/net", os.O_RDONLY)
    # (without CAP_SYS_ADMIN only the namespace the process is in)
    same = os.fstat(fd).st_ino == os.fstat(cur).st_ino
    try:
        if not same and _libc.setns(fd, 0x40000000):
            raise OSError(ctypes.get_errno(), "setns " + str(name))
        yield
    finally:
        if not same:
            _libc.setns(cur, 0x40000000)
        os.close(cur)
        os.close(fd)


def res_counts(kind="cm_id"):
    """{device: count of @kind} as `rdma res show` says, in the namespace
    the process started in."""
    with netns(None):
        out = subprocess.run(["rdma", "res", "show"], capture_output=True,
                             text=True).stdout
    counts = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) > 1 and kind in words:
            counts[words[1].rstrip(":")] = int(words[words.index(kind) + 1])
    return counts


def cm_ids():
    """`rdma res show cm_id` in the namespace the process started in"""
    with netns(None):
        return subprocess.run(["rdma", "res", "show", "cm_id"],
                              capture_output=True, text=True).stdout
