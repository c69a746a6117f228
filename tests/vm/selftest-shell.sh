#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest-shell.sh - make shell works: the guest boots with the stack
# loaded and the fabric up, hands its console to an interactive shell,
# runs what is typed there (ping across IPoIB among it), and powers off
# when the shell exits.
#
# The check types into the console as a user would, but only once the
# prompt is there: a serial line drops what arrives before a program
# reads it.  TAP on stdout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/tap.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# upto PATTERN SEC: read the console into $log until its text matches the
# extended regular expression PATTERN (which may end without a newline,
# as a prompt does); status 1 after SEC seconds or at its end
upto() {
	local deadline=$((SECONDS + $2)) c text=
	while ((SECONDS < deadline)); do
		IFS= read -r -N 1 -t 5 c <&"$con_out" || {
			kill -0 "$vm_pid" 2>/dev/null || return 1
			continue
		}
		printf '%s' "$c" >>"$log"
		text+=$c
		[[ $text =~ $1 ]] && return 0
		[[ $c == $'\n' ]] && text=
	done
	return 1
}

coproc VM { "$repo/tests/vm/vm-run.sh" --smp 2 --mem 2048 --timeout 600 \
	--shell "$repo/scripts/shell-guest.sh" 2>&1; }
vm_pid=$VM_PID
# bash forgets VM[] when the guest ends; keep the console's ends so that
# what it printed last can still be read and reported
exec {con_out}<&"${VM[0]}" {con_in}>&"${VM[1]}"
upto 'rdmavm:[^#]*# $' 300
tap_ok $? "make shell: the set-up ran and a root prompt came"
[[ $TAP_FAILED -eq 0 ]] || tap_diag "$(tail -n 30 "$log")"
tap_like "the set-up: 2 of 2 ports ACTIVE" "$(cat "$log")" "2 of 2 ports ACTIVE"

printf 'echo "active=$(ibstat vmlx1 | grep -c "State: Active") sum=$((40 + 2))"\n' >&"$con_in"
upto 'sum=42' 60
tap_ok $? "a command typed at the prompt runs in the guest"
tap_like "ibstat in the guest: vmlx1 Active" "$(cat "$log")" "active=1 sum=42"

tap_like "the set-up: ib0 and ib1 in two namespaces" "$(cat "$log")" \
	"ib0 is 10.0.0.1 in netns ns0, ib1 is 10.0.0.2 in netns ns1"
# (the echo of the typed line has "\1" where the answer has the count)
printf 'ip netns exec ns0 ping -c 3 -w 60 10.0.0.2 | sed -n "s/.* \\([0-9]*\\) received.*/pinged=\\1/p"\n' >&"$con_in"
upto 'pinged=[0-9]+' 90
tap_like "ping from ns0 over ib0 to ib1 in ns1" "$(cat "$log")" "pinged=3"

printf 'exit\n' >&"$con_in"
upto '[0-9]+ passed, [0-9]+ failed' 120
failed=$TAP_FAILED
tap_ok $? "exit powers the guest off and vm-run reports it"
((TAP_FAILED == failed)) || tap_diag "$(tail -n 20 "$log")"
tap_like "the guest was clean" "$(cat "$log")" "ok - vm0: scenario exit 0, dmesg clean"
wait "$vm_pid" 2>/dev/null
tap_done
