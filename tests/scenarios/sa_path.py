#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A checker of sa-client.sh: the PathRecord ib_verbs_test's "sa path" got
through the kernel's SA client ("# pr NAME VALUE" lines, the fields of
struct sa_path_rec) against the one saquery -p printed (its PathRecord
dump, fields packed as on the wire).  One "ok"/"not ok" line per field.

Usage: sa_path.py VT_RESULT SAQUERY_OUTPUT
"""
import ipaddress, sys

ours = {}
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) == 4 and w[:2] == ["#", "pr"]:
        ours[w[2]] = w[3]
theirs = {}
for line in open(sys.argv[2]):
    if "...." in line:
        k, v = line.strip().split(".", 1)
        theirs[k] = v.lstrip(".")
if not ours or not theirs:
    print("not ok the two records\n# ours %r\n# saquery %r" % (ours, theirs))
    sys.exit(1)
num = lambda k: int(ours[k], 0)
want = {
    "service_id": num("service_id"),
    "dgid": ipaddress.IPv6Address(ours["dgid"]),
    "sgid": ipaddress.IPv6Address(ours["sgid"]),
    "dlid": num("dlid"),
    "slid": num("slid"),
    "hop_flow_raw": num("raw_traffic") << 31 | num("flow_label") << 8 |
                    num("hop_limit"),
    "tclass": num("traffic_class"),
    "num_path_revers": num("reversible") << 7 | num("numb_path"),
    "pkey": num("pkey"),
    "qos_class": num("qos_class"),
    "sl": num("sl"),
    "mtu": num("mtu_selector") << 6 | num("mtu"),
    "rate": num("rate_selector") << 6 | num("rate"),
    "pkt_life": num("packet_life_time_selector") << 6 |
                num("packet_life_time"),
    "preference": num("preference"),
}
bad = 0
for k, v in want.items():
    t = theirs.get(k)
    try:
        got = ipaddress.IPv6Address(t) if k.endswith("gid") else int(t, 0)
    except (TypeError, ValueError):
        got = t
    ok = got == v
    bad += not ok
    print("%s PathRecord %s: %s" % ("ok" if ok else "not ok", k, t))
    if not ok:
        print("# ours: %s" % v)
sys.exit(1 if bad else 0)
