#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: Debian's unmodified servers and clients over ib_sdp under
# libsdp.so, between the network namespaces "a" (ib0 on vmlx0) and "b"
# (ib1 on vmlx1), on a fabric opensm brings up.  /proc/net/sdpstats of
# each namespace (counters that outlive the sockets) shows the bytes
# went over SDP, not over a silent TCP fallback.
#
#  - iperf3 -R -P 4: b sends to a, four streams;
#  - a python3 http.server preloaded with the rule "use both server":
#    a plain curl (TCP) and a preloaded curl (SDP) fetch the same 16 MiB
#    file, sha256 checked, and only the second moves SDP bytes;
#  - sshd preloaded (fork, re-exec, privilege separation, non-blocking
#    I/O): scp copies a 16 MiB file there and back, ssh runs sha256sum;
#  - redis-server (epoll) and redis-benchmark, redis-cli moving a 1 MiB
#    value;
#  - the end: no cm_id left, rdma res as before, a clean kernel log.
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
pids=()
cleanup() {
	local p

	for p in "${pids[@]}"; do
		kill -9 -- -"$p" "$p" 2>/dev/null
	done
	opensm_stop
	ipoib_ns_cleanup
	rm -rf "$run"
}
trap cleanup EXIT

A=10.20.0.1
B=10.20.0.2

# start NS CMD...: CMD in namespace NS in the background, timeout(1)
# leading a process group of its own (killed whole by cleanup)
start() {
	local ns=$1

	shift
	ip netns exec "$ns" setsid "$@" &
	pids+=($!)
}

sha() { sha256sum <"$1" | cut -d' ' -f1; }

# fabric_diag: what the fabric and the sockets look like, after a failure
fabric_diag() {
	tap_diag "$(grep -H . /sys/kernel/debug/vmlx/vmlx[01]/port1/counters 2>&1 |
		    grep -vE ':[a-z_]+ 0$')" \
		 "$(ip -s -n a link show ib0 2>&1)" "$(ip -s -n b link show ib1 2>&1)" \
		 "$(na ip neigh 2>&1)" "$(rdma res show qp 2>&1)" \
		 "a: $(na cat /proc/net/sdp 2>&1)" "b: $(nb cat /proc/net/sdp 2>&1)" \
		 "$(dmesg | tail -n 20)"
}

# ping_ok WHEN: a test point, ping from a to b over IPoIB still answered
ping_ok() {
	local out

	out=$(na ping -c 2 -W 5 $B 2>&1)
	tap_like "ping a -> b over IPoIB $1" "$out" " 0% packet loss"
	[[ $out == *" 0% packet loss"* ]] || fabric_diag
}

vmlx_start --params "num_hcas=2" ib_umad
tap_check "modprobe ib_ipoib" modprobe ib_ipoib
tap_check "modprobe ib_sdp" modprobe ib_sdp
ab_fabric $A $B
na ping -c 2 -W 5 $B >/dev/null 2>&1
res_before=$(rdma res show 2>&1)
tap_is "/proc/net/sdpstats in b: all twelve counters, zero" \
	"$(nb cat /proc/net/sdpstats 2>&1 | awk '{ print $1 "=" $2 }' | xargs)" \
	"ActiveOpens=0 PassiveOpens=0 AttemptFails=0 Resets=0 TxBcopyBytes=0 RxBcopyBytes=0 TxZcopyBytes=0 RxZcopyBytes=0 KeepaliveProbes=0 KeepaliveTimeouts=0 AbortsSent=0 AbortsReceived=0"

mkdir "$run/www"
head -c 16M /dev/urandom >"$run/www/16M"
want=$(sha "$run/www/16M")

# --- iperf3 -R -P 4: the server in b sends ---------------------------------
tx0=$(sdpbytes b tx) rx0=$(sdpbytes a rx)
sb timeout 120 iperf3 -s -1 -p 5201 >"$run/iperf3s" 2>&1 &
spid=$!
sdp_listening 5201
sa timeout 120 iperf3 -c $B -p 5201 -R -P 4 -t 5 -f m >"$run/iperf3c" 2>&1
tap_ok $? "iperf3 -c -R -P 4 -t 5: exit 0"
wait $spid
tap_ok $? "iperf3 -s: exit 0"
line=$(grep -E 'SUM.*receiver' "$run/iperf3c")
tap_diag "$line"
# the receiver's bytes, from "[SUM] 0.00-5.00 sec 41.2 MBytes ..."
got=$(awk '{
	for (i = 1; i < NF; i++) {
		u = $(i + 1)
		if (u !~ /Bytes$/)
			continue
		m = 1
		if (u ~ /^K/) m = 2^10
		if (u ~ /^M/) m = 2^20
		if (u ~ /^G/) m = 2^30
		printf "%d\n", $i * m
		exit
	} }' <<<"$line")
got=${got:-0}
tx=$(($(sdpbytes b tx) - tx0)) rx=$(($(sdpbytes a rx) - rx0))
tap_diag "iperf3 received ${got:-?} B; SDP: b sent $tx B, a received $rx B"
tap_ok "$((got < 1048576))" "iperf3 -R: more than 1 MiB received"
# iperf3 rounds to three digits: 1 % of slack
tap_ok "$((got == 0 || tx * 100 < got * 99 || rx * 100 < got * 99))" \
	"iperf3 -R: b's SDP sent and a's SDP received the bytes iperf3 counted"

ping_ok "after iperf3"

# --- a "both" server: TCP and SDP clients ------------------------------------
cat >"$run/both.conf" <<EOF
log min-level 7 destination stderr
use both server * *:*
EOF
start b env LD_PRELOAD="$lib" LIBSDP_CONFIG_FILE="$run/both.conf" \
	timeout 300 /usr/bin/python3 -m http.server --bind $B \
	--directory "$run/www" 8000 >"$run/http.log" 2>&1
sdp_listening 8000
tcp=$(nb ss -Htln "sport = :8000" 2>&1)
tap_like "the both server listens on TCP as well as on SDP" "$tcp" "LISTEN"

tx0=$(sdpbytes b tx)
na timeout 120 curl -sS -o "$run/curl.tcp" "http://$B:8000/16M"
tap_ok $? "plain curl (TCP) from the both server: exit 0"
tap_is "plain curl: sha256" "$(sha "$run/curl.tcp")" "$want"
tx=$(($(sdpbytes b tx) - tx0))
tap_ok "$((tx >= 16777216))" "plain curl: not over SDP (b's SDP sent $tx B)"

tx0=$(sdpbytes b tx)
sa timeout 120 curl -sS -o "$run/curl.sdp" "http://$B:8000/16M"
tap_ok $? "preloaded curl (SDP) from the both server: exit 0"
tap_is "preloaded curl: sha256" "$(sha "$run/curl.sdp")" "$want"
tx=$(($(sdpbytes b tx) - tx0))
tap_ok "$((tx < 16777216))" "preloaded curl: over SDP (b's SDP sent $tx B)"
tap_like "libsdp's log: the both listener and its shadow SDP socket" \
	"$(cat "$run/http.log")" "both: tcp, and sdp on shadow fd"
[[ $TAP_FAILED -eq 0 ]] || { tap_diag "$(tail -n 20 "$run/http.log")"; fabric_diag; }
ping_ok "after curl"

# --- ssh and scp -------------------------------------------------------------------
mkdir -p /run/sshd && chmod 755 /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$run/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$run/userkey"
cp "$run/userkey.pub" "$run/authorized_keys"
cat >"$run/sshd_config" <<EOF
Port 2222
ListenAddress $B
HostKey $run/hostkey
AuthorizedKeysFile $run/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile $run/sshd.pid
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
start b env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 \
	timeout 300 /usr/sbin/sshd -D -e -f "$run/sshd_config" >"$run/sshd.log" 2>&1
sdp_listening 2222
tap_ok $? "sshd (preloaded) listens on SDP port 2222"
ssh_opts=(-i "$run/userkey" -o BatchMode=yes -o StrictHostKeyChecking=no
	  -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR)
tx0=$(sdpbytes a tx)
sa timeout 120 scp "${ssh_opts[@]}" -P 2222 "$run/www/16M" "root@$B:$run/16M.scp" \
	>"$run/scp.out" 2>&1
tap_ok $? "scp a -> b over SDP: exit 0"
tap_is "scp a -> b: sha256" "$(sha "$run/16M.scp" 2>/dev/null)" "$want"
tx=$(($(sdpbytes a tx) - tx0))
tap_ok "$((tx < 16777216))" "scp: over SDP (a's SDP sent $tx B)"
out=$(sa timeout 60 ssh "${ssh_opts[@]}" -p 2222 "root@$B" \
	sha256sum "$run/16M.scp" 2>&1)
tap_like "ssh b sha256sum: the command ran there and answered" "$out" \
	"$want  $run/16M.scp"
sa timeout 120 scp "${ssh_opts[@]}" -P 2222 "root@$B:$run/16M.scp" "$run/16M.back" \
	>>"$run/scp.out" 2>&1
tap_ok $? "scp b -> a over SDP: exit 0"
tap_is "scp b -> a: sha256" "$(sha "$run/16M.back" 2>/dev/null)" "$want"
[[ $TAP_FAILED -eq 0 ]] || {
	tap_diag "$(tail -n 20 "$run/scp.out")" "$(tail -n 20 "$run/sshd.log")"
	fabric_diag
}

# --- redis ---------------------------------------------------------------------------
start b env LD_PRELOAD="$lib" SIMPLE_LIBSDP=1 \
	timeout 300 redis-server --port 6390 --bind $B --save '' \
	--appendonly no --protected-mode no --daemonize no \
	>"$run/redis.log" 2>&1
sdp_listening 6390
tap_ok $? "redis-server (preloaded) listens on SDP port 6390"
rx0=$(sdpbytes b rx)
sa timeout 120 redis-benchmark -h $B -p 6390 -n 2000 -c 8 -t set,get -q \
	>"$run/bench.out" 2>&1
tap_ok $? "redis-benchmark -n 2000 -c 8 -t set,get: exit 0"
tr '\r' '\n' <"$run/bench.out" | grep -E '^(SET|GET):' | tail -n 2 |
	while IFS= read -r l; do tap_diag "$l"; done
tap_like "redis-benchmark: SET and GET rates" \
	"$(tr '\r' '\n' <"$run/bench.out" | grep -E '^(SET|GET):.*requests per second' |
	   cut -d: -f1 | sort -u | xargs)" "^GET SET$"
head -c 1M /dev/urandom | base64 -w0 >"$run/value"
sa timeout 60 redis-cli -h $B -p 6390 -x set big <"$run/value" >"$run/set.out" 2>&1
tap_like "redis-cli -x set of a 1.3 MiB value: OK" "$(cat "$run/set.out")" "^OK"
sa timeout 60 redis-cli -h $B -p 6390 --raw get big 2>/dev/null |
	head -c "$(sdpstat -c %s "$run/value" 2>/dev/null || wc -c <"$run/value")" \
	>"$run/value.back"
tap_is "redis-cli get: the same value back" "$(sha "$run/value.back")" \
	"$(sha "$run/value")"
rx=$(($(sdpbytes b rx) - rx0))
tap_ok "$((rx < 1048576))" "redis: over SDP (b's SDP received $rx B)"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(tail -n 20 "$run/redis.log")"

# --- the end -----------------------------------------------------------------------------
for p in "${pids[@]}"; do
	kill -- -"$p" 2>/dev/null
done
wait "${pids[@]}" 2>/dev/null
pids=()
tap_diag "b: $(nb cat /proc/net/sdpstats | xargs)"
wait_cm_ids 0 10
tap_is "no cm_id left" "$(cm_ids)" 0
# the last teardowns run in ib_sdp's work queue: rmmod may take a moment
for _ in $(seq 50); do
	rmmod ib_sdp 2>/dev/null && break
	sleep 0.2
done
tap_ok "$(lsmod | grep -q '^ib_sdp '; [[ $? -ne 0 ]]; echo $?)" "rmmod ib_sdp"
tap_is "rdma res as before the SDP traffic" "$(rdma res show 2>&1)" "$res_before"
tap_ok "$(dmesg | grep -qE 'BUG|WARNING:|Oops'; [[ $? -ne 0 ]]; echo $?)" \
	"no BUG, WARNING or Oops in the kernel log"
tap_done
