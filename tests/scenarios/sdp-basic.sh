#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: ib_sdp under Debian's unmodified programs, both ends
# preloaded with libsdp.so in simple mode (every TCP socket an SDP one),
# between the network namespaces "a" (ib0 on vmlx0) and "b" (ib1 on
# vmlx1), on a fabric opensm brings up.
#
#  - nc.traditional moving a 1 MiB and a 64 MiB random file each way
#    (buffered copy) and socat moving 64 MiB in 1 MiB writes and reads
#    (zero copy: the RDMA READ counters of both ends grow by what went)
#    and 1 MiB over IPv6: the same sha256; socat moving a 1 GiB stream,
#    hashed at both ends, all of it over SDP and most by RDMA READ;
#    sendfile() of 64 MiB into an SDP socket, spliced out of the other;
#  - iperf3 -P 4 -t 5: a non-zero rate, while /proc/net/sdp in b lists
#    the connections with their bytes (not TCP: ss lists no TCP
#    connection to the port);
#  - a client to a port nobody listens on: "Connection refused" within
#    5 s;
#  - the reader killed mid-transfer: the writer ends within 10 s; the
#    writer killed: the reader ends within 10 s; by buffered and by zero
#    copy;
#  - sdp-sock errno: TCP's socket semantics (errnos, poll, epoll, options,
#    shutdown, reset, MSG_PEEK/WAITALL/DONTWAIT, FIONREAD), checked for
#    TCP and for SDP, SDP's abortive closes sending AbortConn; sdp-sock
#    fuzz: 5000 random socket calls on SDP sockets, its seed printed;
#  - SO_KEEPALIVE with TCP_KEEPIDLE 1: probes answered while b is idle;
#    b's port made to drop everything: a's recv() fails with ETIMEDOUT;
#  - rmmod ib_sdp refused while a listener is open, done after; no
#    cm_id left and rdma res as before the SDP traffic.
#
# vm-run-options: --smp 2 --timeout 900
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/vmlx.sh"
. "$here/../vm/ipoib.sh"
. "$here/../vm/sdp.sh"

lib=$SDP_LIB
run=$(mktemp -d)
cleanup() {
	opensm_stop
	ipoib_ns_cleanup
	rm -rf "$run"
}
trap cleanup EXIT

A=10.20.0.1
B=10.20.0.2
A6=fd20::1
B6=fd20::2

vmlx_start --params "num_hcas=2" ib_umad
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe ib_sdp" modprobe ib_sdp
tap_ok "$([[ -f $lib ]]; echo $?)" "libsdp.so built ($lib)"
ab_fabric $A $B $A6 $B6
na ping -c 2 -W 5 $B >/dev/null 2>&1
res_before=$(rdma res show 2>&1)

head -c 1M /dev/urandom >"$run/1M"
head -c 64M /dev/urandom >"$run/64M"

# --- nc.traditional both ways --------------------------------------------
port=5000
for f in 1M 64M; do
	want=$(sha256sum <"$run/$f" | cut -d' ' -f1)
	# a to b
	port=$((port + 1))
	sb timeout 120 nc.traditional -n -l -p $port </dev/null \
		>"$run/$f.ab" 2>"$run/$f.ab.err" &
	spid=$!
	sdp_listening $port
	sa timeout 120 nc.traditional -n -q 0 $B $port <"$run/$f" \
		2>"$run/$f.ab.cerr"
	tap_ok $? "nc $f a -> b: client exit 0"
	wait $spid
	tap_ok $? "nc $f a -> b: server exit 0"
	tap_is "nc $f a -> b: sha256" \
		"$(sha256sum <"$run/$f.ab" | cut -d' ' -f1)" "$want"
	# b to a
	port=$((port + 1))
	sb timeout 120 nc.traditional -n -q 0 -l -p $port <"$run/$f" \
		>/dev/null 2>"$run/$f.ba.err" &
	spid=$!
	sdp_listening $port
	sa timeout 120 nc.traditional -n $B $port </dev/null \
		>"$run/$f.ba" 2>"$run/$f.ba.cerr"
	tap_ok $? "nc $f b -> a: client exit 0"
	wait $spid
	tap_ok $? "nc $f b -> a: server exit 0"
	tap_is "nc $f b -> a: sha256" \
		"$(sha256sum <"$run/$f.ba" | cut -d' ' -f1)" "$want"
	[[ $TAP_FAILED -eq 0 ]] ||
		tap_diag "$(cat "$run"/$f.*err 2>&1 | tail -n 20)"
done

# IPv6 (nc.traditional has none: socat)
port=$((port + 1))
sb timeout 60 socat -u TCP6-LISTEN:$port,reuseaddr OPEN:"$run/v6",creat,trunc &
spid=$!
sdp_listening $port
sa timeout 60 socat -u OPEN:"$run/1M" TCP6:[$B6]:$port
tap_ok $? "socat 1M a -> b over IPv6: client exit 0"
wait $spid
tap_is "socat 1M over IPv6: sha256" "$(sha256sum <"$run/v6" | cut -d' ' -f1)" \
	"$(sha256sum <"$run/1M" | cut -d' ' -f1)"

# --- socat, 1 MiB writes and reads: zero copy --------------------------------
# (nc's 8 KiB writes above stay under zcopy_thresh: buffered copy)
port=$((port + 1))
tx0=$(sdpstat a TxZcopyBytes) rx0=$(sdpstat b RxZcopyBytes)
sb timeout 120 socat -b 1048576 -u TCP-LISTEN:$port,reuseaddr \
	OPEN:"$run/socat",creat,trunc &
spid=$!
sdp_listening $port
sa timeout 120 socat -b 1048576 -u OPEN:"$run/64M" TCP:$B:$port
tap_ok $? "socat 64M a -> b: client exit 0"
wait $spid
tap_ok $? "socat 64M a -> b: server exit 0"
tap_is "socat 64M: sha256" "$(sha256sum <"$run/socat" | cut -d' ' -f1)" \
	"$(sha256sum <"$run/64M" | cut -d' ' -f1)"
tx=$(($(sdpstat a TxZcopyBytes) - tx0)) rx=$(($(sdpstat b RxZcopyBytes) - rx0))
tap_ok "$((tx < 48 * 1048576))" \
	"socat 64M: at least 48 MiB read by RDMA from a (TxZcopyBytes +$tx)"
tap_is "socat 64M: b read by RDMA what a offered (RxZcopyBytes)" "$rx" "$tx"

# --- sendfile() and splice() ----------------------------------------------------
# python3's socket.sendfile() is os.sendfile() from the file to the SDP
# socket; the reader splices from its SDP socket into a pipe
port=$((port + 1))
b0=$(sdpbytes b rx)
sb timeout 120 python3 -c '
import os, socket, sys
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("", int(sys.argv[1])))
l.listen(1)
c, _ = l.accept()
r, w = os.pipe()
with open(sys.argv[2], "wb") as f:
    while True:
        n = os.splice(c.fileno(), w, 1 << 16)
        if not n:
            break
        while n:
            d = os.read(r, n)
            f.write(d)
            n -= len(d)
' $port "$run/spliced" &
spid=$!
sdp_listening $port
sa timeout 120 python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
with open(sys.argv[3], "rb") as f:
    print(s.sendfile(f))
' $B $port "$run/64M" >"$run/sent" 2>&1
tap_is "sendfile() of 64M: the bytes sent" "$(cat "$run/sent")" 67108864
wait $spid
tap_ok $? "splice() from the SDP socket: exit 0"
tap_is "sendfile() to splice(): sha256" \
	"$(sha256sum <"$run/spliced" | cut -d' ' -f1)" \
	"$(sha256sum <"$run/64M" | cut -d' ' -f1)"
tap_ok "$(( $(sdpbytes b rx) - b0 < 67108864 ))" \
	"and it went over SDP (b received +$(( $(sdpbytes b rx) - b0 )) bytes)"

# --- socat, 1 GiB --------------------------------------------------------------
# The guest has no room for a 1 GiB file, so the gigabyte is a stream: a
# random block of 1048573 bytes (not a divisor of the 1 MiB writes, so
# chunks swapped or repeated change the sum) over and over, hashed as it
# is written (into a pipe of 1 MiB, so that socat reads, and sends, 1 MiB
# at a time) and as it is read.
gib=1073741824
head -c 1048573 /dev/urandom >"$run/blk"
gen() {
	python3 -c '
import fcntl, hashlib, sys
blk = open(sys.argv[1], "rb").read()
data = memoryview(blk * 3)
out = sys.stdout.buffer
try:
    fcntl.fcntl(out.fileno(), 1031, 1 << 20)    # F_SETPIPE_SZ
except OSError:
    pass
h, pos, left = hashlib.sha256(), 0, int(sys.argv[2])
while left:
    n = min(1 << 20, left)
    h.update(data[pos:pos + n])
    out.write(data[pos:pos + n])
    pos, left = (pos + n) % len(blk), left - n
out.flush()
open(sys.argv[3], "w").write(h.hexdigest() + "\n")
' "$run/blk" $gib "$run/gib.a"
}
port=$((port + 1))
tx0=$(sdpstat a TxZcopyBytes) bc0=$(sdpbytes a tx)
sb timeout 400 socat -b 1048576 -u TCP-LISTEN:$port,reuseaddr STDOUT |
	sha256sum >"$run/gib.b" &
spid=$!
sdp_listening $port
start=$(date +%s)
gen | sa timeout 400 socat -b 1048576 -u STDIN TCP:$B:$port
tap_ok $? "socat 1 GiB a -> b: client exit 0"
wait $spid
took=$(($(date +%s) - start))
tap_is "socat 1 GiB ($took s): sha256 of what b read and a wrote" \
	"$(cut -d' ' -f1 <"$run/gib.b")" "$(cut -d' ' -f1 <"$run/gib.a")"
suma=$(cut -d' ' -f1 <"$run/gib.a")
tap_ok "$([[ $suma =~ ^[0-9a-f]{64}$ && $suma != "$(sha256sum </dev/null | cut -d' ' -f1)" ]]; echo $?)" \
	"socat 1 GiB: a hashed a non-empty stream"
tx=$(($(sdpstat a TxZcopyBytes) - tx0)) bc=$(($(sdpbytes a tx) - bc0))
tap_is "socat 1 GiB: a sent all of it over SDP (Tx bytes +$bc)" "$bc" "$gib"
tap_ok "$((tx < gib * 3 / 4))" \
	"socat 1 GiB: at least 3/4 of it by RDMA READ (TxZcopyBytes +$tx)"

# --- iperf3 ------------------------------------------------------------------
sb timeout 120 iperf3 -s -1 -p 5201 >"$run/iperf3s" 2>&1 &
spid=$!
sdp_listening 5201
sa timeout 120 iperf3 -c $B -p 5201 -P 4 -t 5 -f m >"$run/iperf3c" 2>&1 &
cpid=$!
proc='' tcp=''
for _ in $(seq 60); do
	sleep 0.5
	cur=$(nb cat /proc/net/sdp 2>&1)
	if [[ $cur =~ :5201\ [^\ ]+\ ESTABLISHED\ [0-9]+\ [0-9]+\ [0-9]+\ 0\ ([0-9]{6,}\ [0-9]+|[0-9]+\ [0-9]{6,}) ]]; then
		proc=$cur
		tcp=$(nb ss -Htn "sport = :5201" 2>&1)
		break
	fi
done
wait $cpid
tap_ok $? "iperf3 -c -P 4 -t 5: exit 0"
wait $spid
tap_diag "$proc" "$(grep -E 'SUM|error' "$run/iperf3c")"
rate=$(awk '/SUM.*receiver/ { print $(NF - 2) }' "$run/iperf3c")
tap_like "iperf3 -P 4: a non-zero rate ($rate Mbit/s)" "${rate:-0}" \
	'^([1-9][0-9]*|0\.[0-9]*[1-9][0-9]*|[1-9][0-9]*\.[0-9]+)$'
tap_like "/proc/net/sdp in b: iperf3's connections with their bytes" \
	"$proc" ":5201 [^ ]+ ESTABLISHED [0-9]+ [0-9]+ [0-9]+ 0 ([0-9]{6,} [0-9]+|[0-9]+ [0-9]{6,})"
tap_is "no TCP connection to port 5201 in b" "$tcp" ""

# --- refused -----------------------------------------------------------------
start=$(date +%s)
out=$(sa timeout 30 nc.traditional -n $B 7777 </dev/null 2>&1)
took=$(($(date +%s) - start))
tap_like "nobody on port 7777: Connection refused" "$out" "refused"
tap_ok "$((took > 5))" "refused within 5 s (took $took s)"

# --- a peer killed mid-transfer ----------------------------------------------
# nc's small writes go by buffered copy, socat's 1 MiB ones by zero copy
# (the writer waiting for RdmaRdCompl, the reader in an RDMA READ)
for how in "reader nc" "writer nc" "reader socat" "writer socat"; do
	read -r victim prog <<<"$how"
	port=$((port + 1))
	# started by ip netns exec itself, so that $! is timeout(1), which
	# leads a process group of its own with nc: kill -9 kills both
	if [[ $prog == nc ]]; then
		srv=(nc.traditional -n -l -p $port)
		cli=(nc.traditional -n $B $port)
	else
		srv=(socat -b 1048576 -u TCP-LISTEN:$port,reuseaddr STDOUT)
		cli=(socat -b 1048576 -u STDIN TCP:$B:$port)
	fi
	ip netns exec b env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 timeout 60 \
		"${srv[@]}" </dev/null >/dev/null &
	spid=$!
	sdp_listening $port
	ip netns exec a env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 timeout 60 \
		"${cli[@]}" </dev/zero >/dev/null 2>&1 &
	cpid=$!
	sleep 3
	if [[ $victim == reader ]]; then
		kill -9 -- -$spid
		other=$cpid
	else
		kill -9 -- -$cpid
		other=$spid
	fi
	start=$(date +%s)
	wait $other
	rc=$?
	took=$(($(date +%s) - start))
	wait $spid $cpid
	tap_ok "$((took > 10 || rc == 124))" \
		"$prog: the $victim killed: the other end ends within 10 s (took $took s, status $rc)"
done

# --- socket semantics as TCP's, and a socket-call fuzzer ----------------------
# sdp-sock (tests/user/sdp_sock.c) in b alone, connecting to b's own
# address: the same cases for TCP over IPoIB and for SDP, then random
# calls on SDP sockets (the seed printed first; "tests/vm/vm-run.sh
# tests/scenarios/sdp-basic.sh SEED" repeats them)
sock=$(cd "$here/../user" && pwd)/sdp-sock
for f in tcp sdp; do
	as0=$(sdpstat b AbortsSent) ar0=$(sdpstat b AbortsReceived)
	out=$(nb timeout 300 "$sock" errno -f $f -a $B 2>&1)
	tap_ok $? "sdp-sock errno -f $f: the cases of TCP's semantics ($(tail -n 1 <<<"$out"))"
	grep -E '^not ok|timed out|^# (signal|linger)' <<<"$out" | while IFS= read -r l; do
		tap_diag "$l"
	done
done
# its "reset" case closes with SO_LINGER {1, 0}, and others with data
# unread: SDP's RST is an AbortConn, which the other end receives
as=$(($(sdpstat b AbortsSent) - as0)) ar=$(($(sdpstat b AbortsReceived) - ar0))
tap_ok "$((as < 1))" "abortive closes sent AbortConn (AbortsSent +$as)"
tap_is "and each was received (AbortsReceived +$ar)" "$ar" "$as"
seed=${1:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
tap_diag "sdp-sock fuzz: seed $seed"
out=$(nb timeout 300 "$sock" fuzz -f sdp -a $B -n 5000 -s "$seed" 2>&1)
tap_ok $? "sdp-sock fuzz -f sdp -n 5000 -s $seed: exit 0"
tap_diag "$(tail -n 1 <<<"$out")"

# --- SO_KEEPALIVE --------------------------------------------------------------
# a's client turns keepalive on (idle and interval 1 s) and waits in recv()
# for data b never sends: probes go out and are answered; then b's port
# drops every packet, a silent peer, and recv() must fail with ETIMEDOUT.
dbg=/sys/kernel/debug/vmlx
port=$((port + 1))
sb timeout 300 nc.traditional -n -l -p $port </dev/null >/dev/null &
spid=$!
sdp_listening $port
p0=$(sdpstat a KeepaliveProbes) k0=$(sdpstat a KeepaliveTimeouts)
sa timeout 200 python3 -c '
import errno, socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
print("connected", flush=True)
t = time.time()
try:
    print("recv returned", s.recv(1))
except OSError as e:
    print("recv:", errno.errorcode.get(e.errno, e.errno),
          "after %d s" % (time.time() - t))
' $B $port >"$run/ka" 2>&1 &
cpid=$!
for _ in $(seq 100); do grep -q connected "$run/ka" && break; sleep 0.1; done
sleep 6
p1=$(sdpstat a KeepaliveProbes)
tap_ok "$((p1 - p0 < 3))" \
	"SO_KEEPALIVE, TCP_KEEPIDLE 1: probes sent while idle (+$((p1 - p0)) in 6 s)"
tap_like "the peer answers them: still ESTABLISHED" \
	"$(na cat /proc/net/sdp)" ":$port ESTABLISHED "
tap_check "b falls silent (vmlx1's port drops every packet)" \
	sh -c "echo 1000000 >$dbg/vmlx1/port1/drop_ppm"
wait $cpid
tap_like "a silent peer: recv() fails with ETIMEDOUT" "$(cat "$run/ka")" \
	"recv: ETIMEDOUT"
echo 0 >$dbg/vmlx1/port1/drop_ppm
tap_is "KeepaliveTimeouts in a: +1" "$(($(sdpstat a KeepaliveTimeouts) - k0))" 1
kill -- -$spid 2>/dev/null
wait $spid
for _ in $(seq 60); do
	na ping -c 1 -W 1 $B >/dev/null 2>&1 && break
done

# --- rmmod ---------------------------------------------------------------------
port=$((port + 1))
ip netns exec b env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 timeout 60 \
	nc.traditional -n -l -p $port </dev/null >/dev/null &
spid=$!
sdp_listening $port
tap_check_fails "rmmod ib_sdp refused while a socket is open" rmmod ib_sdp
kill -- -$spid		# timeout(1) and nc, its process group
wait $spid
for _ in $(seq 50); do
	lsmod | grep -q '^ib_sdp ' || break
	rmmod ib_sdp 2>/dev/null && break
	sleep 0.2
done
tap_ok "$(lsmod | grep -q '^ib_sdp '; [[ $? -ne 0 ]]; echo $?)" \
	"rmmod ib_sdp once the sockets are closed"
wait_cm_ids 0 10
tap_is "no cm_id left" "$(cm_ids)" 0
res_after=$(rdma res show 2>&1)
tap_is "rdma res as before the SDP traffic" "$res_after" "$res_before"
dmesg | grep -iE "ib_sdp|sdp:|BUG|WARNING|leak" | tail -n 20 |
	while IFS= read -r l; do tap_diag "$l"; done
tap_ok "$(dmesg | grep -qE 'BUG|WARNING:|Oops'; [[ $? -ne 0 ]]; echo $?)" \
	"no BUG, WARNING or Oops in the kernel log"
tap_done
