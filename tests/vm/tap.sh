# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# tap.sh - TAP version 13 helpers for VM scenarios (and any other bash test).
#
# Source it, then:
#
#   . "$REPO/tests/vm/tap.sh"
#   tap_plan 4                                   # optional: else tap_done prints it
#   tap_check "ib_core loads" modprobe ib_core   # ok iff the command succeeds
#   tap_check_fails "bad parameter refused" modprobe vmlx num_hcas=0
#   tap_is "one device" "$(ls /sys/class/infiniband | wc -l)" 1
#   tap_like "kernel 6.1" "$(uname -r)" '^6\.1\.'
#   some_command; tap_ok $? "some_command works"   # ok iff status is 0
#   tap_done                                     # exits 1 if anything failed
#
# Other helpers: tap_pass DESC, tap_fail DESC [DETAIL...], tap_skip DESC
# REASON, tap_diag MSG..., tap_bail REASON.  Failure details are printed as
# "# " comment lines after the "not ok" line.
#
# Checkers (the Python ones of tests/scenarios, tests/user/rdma-verify, the
# ib_verbs_test kernel client) print "ok DESC" and "not ok DESC" lines,
# "# ..." comments after them; these helpers number them:
#   tap_results [PREFIX] <OUTPUT     each line as a test point (PREFIX put
#                                    before its DESC) or a comment
#   tap_checker [--prefix PREFIX] DESC CMD...   CMD's output through
#                                    tap_results as it comes, then DESC: ok
#                                    iff CMD exited 0
#
# In a guest of tests/vm/vm-run.sh there are also:
#   vm_barrier NAME [TIMEOUT]  wait until every guest has reached barrier NAME
#   vm_link_iface PEER         our interface on the link to guest PEER
#   vm_link_addr PEER          our IPv4 address on that link
#   vm_peer_addr PEER          guest PEER's IPv4 address on that link
#   vm_peers                   the indexes of the guests we have a link to
#
# Set TAP_VERBOSE=1 to see tap_check's command output on success too.

TAP_COUNT=0
TAP_FAILED=0
TAP_PLANNED=
TAP_HEADER=

_tap_header() {
	if [[ -z $TAP_HEADER ]]; then
		echo "TAP version 13"
		TAP_HEADER=1
	fi
}

# _tap_line ok|"not ok" DESC [DIRECTIVE]
_tap_line() {
	_tap_header
	TAP_COUNT=$((TAP_COUNT + 1))
	# A '#' in the description would start a directive: escape it.
	echo "$1 $TAP_COUNT - ${2//#/\\#}${3:+ # $3}"
}

tap_diag() { # tap_diag MSG...: comment lines, one (or more) per MSG
	_tap_header
	printf '%s\n' "$@" | sed 's/^/# /'
}

tap_plan() { # tap_plan N
	_tap_header
	TAP_PLANNED=$1
	echo "1..$1"
}

tap_pass() { # tap_pass DESC
	_tap_line ok "$1"
}

tap_fail() { # tap_fail DESC [DETAIL...]
	_tap_line "not ok" "$1"
	TAP_FAILED=$((TAP_FAILED + 1))
	shift
	[[ $# -eq 0 ]] || tap_diag "$@"
	return 0
}

tap_ok() { # tap_ok STATUS DESC: ok iff STATUS (an exit status) is 0
	if [[ $1 == 0 ]]; then
		tap_pass "$2"
	else
		tap_fail "$2" "status $1"
	fi
}

tap_skip() { # tap_skip DESC REASON
	_tap_line ok "$1" "SKIP ${2:-}"
}

tap_check() { # tap_check DESC CMD [ARGS...]: run CMD, ok iff it succeeds
	local desc=$1 out rc=0
	shift
	out=$(mktemp)
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	if [[ $rc -eq 0 ]]; then
		tap_pass "$desc"
		if [[ -n ${TAP_VERBOSE:-} && -s $out ]]; then
			sed 's/^/#   /' "$out"
		fi
	else
		tap_fail "$desc" "command: $*" "exit status: $rc"
		if [[ -s $out ]]; then
			tap_diag "output (last 50 lines):"
			tail -n 50 "$out" | sed 's/^/#   /'
		fi
	fi
	rm -f "$out"
	return 0
}

tap_check_fails() { # tap_check_fails DESC CMD [ARGS...]: ok iff CMD fails
	local desc=$1 out rc=0
	shift
	out=$(mktemp)
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	if [[ $rc -ne 0 ]]; then
		tap_pass "$desc"
		if [[ -n ${TAP_VERBOSE:-} && -s $out ]]; then
			sed 's/^/#   /' "$out"
		fi
	else
		tap_fail "$desc" "command: $*" "succeeded, but should have failed"
		if [[ -s $out ]]; then
			tap_diag "output (last 50 lines):"
			tail -n 50 "$out" | sed 's/^/#   /'
		fi
	fi
	rm -f "$out"
	return 0
}

tap_is() { # tap_is DESC ACTUAL EXPECTED
	if [[ $2 == "$3" ]]; then
		tap_pass "$1"
	else
		tap_fail "$1" "got:      '$2'" "expected: '$3'"
	fi
}

tap_like() { # tap_like DESC ACTUAL REGEX (bash =~, extended)
	if [[ $2 =~ $3 ]]; then
		tap_pass "$1"
	else
		tap_fail "$1" "got:          '$2'" "expected like: '$3'"
	fi
}

tap_results() { # tap_results [PREFIX] < OUTPUT: a checker's lines as TAP
	local prefix=${1:-} line
	while IFS= read -r line; do
		case $line in
		"ok "*) tap_pass "$prefix${line#ok }" ;;
		"not ok "*) tap_fail "$prefix${line#not ok }" ;;
		"") ;;
		"# "*) tap_diag "${line#\# }" ;;
		*) tap_diag "$line" ;;
		esac
	done
}

tap_checker() { # tap_checker [--prefix PREFIX] DESC CMD...: run a checker
	local prefix='' desc rc=0
	if [[ $1 == --prefix ]]; then
		prefix=$2
		shift 2
	fi
	desc=$1
	shift
	# a process substitution, not a pipe: the counters stay in this shell
	tap_results "$prefix" < <("$@" 2>&1 </dev/null)
	wait $! || rc=$?
	tap_ok "$rc" "$desc"
}

tap_bail() { # tap_bail REASON: stop the whole test run
	_tap_header
	echo "Bail out! $*"
	exit 1
}

tap_done() { # tap_done: close the plan; exit 0 only if everything passed
	_tap_header
	if [[ -z $TAP_PLANNED ]]; then
		echo "1..$TAP_COUNT"
	elif [[ $TAP_PLANNED -ne $TAP_COUNT ]]; then
		echo "# planned $TAP_PLANNED tests but ran $TAP_COUNT"
		exit 1
	fi
	if [[ $TAP_FAILED -ne 0 ]]; then
		echo "# failed $TAP_FAILED of $TAP_COUNT"
		exit 1
	fi
	exit 0
}

# --- VM helpers (see tests/vm/README.rst) ------------------------------------

vm_barrier() { # vm_barrier NAME [TIMEOUT]: 0 once all VM_COUNT guests got here
	local dir=${VM_RUNDIR:?not in a vm-run.sh guest}/barrier/$1 timeout=${2:-60}
	local deadline=$((SECONDS + timeout)) arrived
	mkdir -p "$dir"
	: >"$dir/$VM_INDEX"
	while :; do
		# The run directory is shared by all guests with cache=none:
		# every listing asks the host.
		arrived=("$dir"/*)
		[[ ${#arrived[@]} -lt $VM_COUNT ]] || return 0
		if ((SECONDS >= deadline)); then
			tap_diag "vm_barrier $1: ${#arrived[@]} of $VM_COUNT guests after ${timeout}s"
			return 1
		fi
		sleep 0.2
	done
}

_vm_link() { # _vm_link PEER FIELD: FIELD (1-3) of PEER's entry in VM_LINKS
	local entry peer ifname laddr paddr
	for entry in ${VM_LINKS:-}; do
		IFS=: read -r peer ifname laddr paddr <<<"$entry"
		if [[ $peer == "$1" ]]; then
			case $2 in
			1) echo "$ifname" ;;
			2) echo "$laddr" ;;
			3) echo "$paddr" ;;
			esac
			return 0
		fi
	done
	return 1
}
vm_link_iface() { _vm_link "$1" 1; }
vm_link_addr() { _vm_link "$1" 2; }
vm_peer_addr() { _vm_link "$1" 3; }
vm_peers() {
	local entry
	for entry in ${VM_LINKS:-}; do
		echo "${entry%%:*}"
	done
}
