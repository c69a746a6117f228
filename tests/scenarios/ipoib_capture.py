#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# What an IPoIB interface's packet sockets see, written as a pcap file of
# link type 242 (LINKTYPE_IPOIB), which Wireshark decodes with its "IP
# over Infiniband" dissector.  Debian's libpcap captures ARPHRD_INFINIBAND
# interfaces in Linux cooked mode, without the link layer, so tshark -i
# never shows the encapsulation header; this capture keeps it.
#
#   ipoib_capture.py IFACE SECONDS FILE
#
# A raw packet socket sees every frame from its 24-byte hard header on:
# the 20-byte pseudo header (the destination's hardware address on send,
# zeros on receive), then the 4-byte encapsulation header and the payload.
# A LINKTYPE_IPOIB record starts with 40 bytes that are either a GRH or,
# with its first two bytes zero, 20 bytes of zeros and the destination
# address: the pseudo header fits the second form.  Prints "# capturing
# on IFACE" once its socket is bound, and at the end the number of frames.
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
LINKTYPE_IPOIB = 242
PSEUDO = 20


def main():
    iface, secs, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(0.2)
    # the scenario sends nothing before this line
    print("# capturing on %s" % iface, flush=True)
    n = 0
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535,
                            LINKTYPE_IPOIB))
        end = time.monotonic() + secs
        while time.monotonic() < end:
            try:
                frame = s.recv(65536)
            except socket.timeout:
                continue
            if len(frame) < PSEUDO + 4:
                continue
            rec = bytes(20) + frame[:PSEUDO] + frame[PSEUDO:]
            now = time.time()
            f.write(struct.pack("<IIII", int(now), int(now % 1 * 1e6),
                                len(rec), len(rec)))
            f.write(rec)
            n += 1
    print("# %d frames captured on %s" % (n, iface))


main()
