#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM scenario: ib_uverbs Stage B.  Debian's unmodified libibverbs
# pingpong examples between vmlx1 (server) and vmlx0 (client) in one
# guest, exchanging LIDs over TCP loopback: rc (also with completion
# events, -e, and 64 KiB messages), ud, uc and srq.  Then the resource
# counts of `rdma res` while a run is in flight, and after the processes
# are killed with SIGKILL mid-run: the close of their files must free
# everything.  While rings are mapped the driver module is pinned.  The harness fails the run on any kernel warning.
#
# vm-run-options: --smp 2
set -u
here=$(dirname "$0")
. "$here/../vm/tap.sh"
. "$here/../vm/user.sh"
. "$here/../vm/vmlx.sh"

run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
port=18515

# LIDs travel over TCP; without an /etc/hosts "localhost" may not resolve.
host=$(loopback_host)

# pingpong DESC PROG ARGS...: PROG ARGS as server on vmlx1 and as client
# on vmlx0; both must exit 0 and print the bandwidth line.
pingpong() {
	local desc=$1 prog=$2
	shift 2
	port=$((port + 1))
	run_pair "$desc" "$port" "$run" \
		timeout 60 "$prog" -d vmlx1 -i 1 -p "$port" "$@" -- \
		timeout 60 "$prog" -d vmlx0 -i 1 -p "$port" "$@" "$host"
	tap_like "$desc: bandwidth line" "$(cat "$run/client")" \
		"bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec"
}

vmlx_start ib_uverbs

pingpong "ibv_rc_pingpong" ibv_rc_pingpong -n 100
pingpong "ibv_rc_pingpong -e" ibv_rc_pingpong -n 100 -e
pingpong "ibv_rc_pingpong -s 65536" ibv_rc_pingpong -n 100 -s 65536
pingpong "ibv_ud_pingpong -s 2048" ibv_ud_pingpong -n 100 -s 2048
pingpong "ibv_ud_pingpong -s 2048 -e" ibv_ud_pingpong -n 100 -s 2048 -e
pingpong "ibv_uc_pingpong" ibv_uc_pingpong -n 100
pingpong "ibv_uc_pingpong -e" ibv_uc_pingpong -n 100 -e
pingpong "ibv_srq_pingpong" ibv_srq_pingpong -n 100
pingpong "ibv_srq_pingpong -e" ibv_srq_pingpong -n 100 -e
tap_is "rdma res after the runs: as before" "$(rdma res show 2>&1)" \
	"$VMLX_RES_BASELINE"

# --- a long run, inspected, then killed ---------------------------------
port=$((port + 1))
ibv_rc_pingpong -d vmlx1 -i 1 -p "$port" -n 100000000 \
	>"$run/server" 2>&1 &
spid=$!
wait_listen "$port"
ibv_rc_pingpong -d vmlx0 -i 1 -p "$port" -n 100000000 "$host" \
	>"$run/client" 2>&1 &
cpid=$!
sleep 2
during=$(rdma res show 2>&1)
tap_diag "rdma res during: $during"
for dev in vmlx0 vmlx1; do
	tap_like "rdma res during a run: $dev has a context, a PD, an MR" \
		"$during" "$dev: pd [1-9][0-9]* .*mr [1-9][0-9]* ctx 1( |$)"
done
tap_ok "$(kill -0 "$cpid" && kill -0 "$spid"; echo $?)" \
	"both pingpongs still running after 2 s"
tap_check_fails "rmmod vmlx refused while rings are mapped" rmmod vmlx
kill -KILL "$cpid" "$spid" 2>/dev/null
wait "$cpid" "$spid" 2>/dev/null
tap_is "rdma res after SIGKILL mid-run: as before" "$(rdma res show 2>&1)" \
	"$VMLX_RES_BASELINE"

tap_check "rmmod vmlx" rmmod vmlx
tap_check "rmmod ib_uverbs" rmmod ib_uverbs
tap_check "rmmod ib_core" rmmod ib_core
tap_done
