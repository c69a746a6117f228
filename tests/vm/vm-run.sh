#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run.sh - run a test scenario inside one or more QEMU/TCG guests booting
# Debian's own 6.1 kernel, with our modules installed in the guest's
# /lib/modules/$KVER/updates.  See tests/vm/README.rst.
#
# Usage: tests/vm/vm-run.sh [OPTIONS] SCENARIO [ARGS...]
#
#   --guests N            number of guests, all joined pairwise (default 1)
#   --timeout SEC         wall-clock limit per guest, boot included (300)
#   --mem MB              guest memory (1024)
#   --smp N               guest CPUs (default 1)
#   --modules DIR|none    where to find our *.ko (default: the repo root)
#   --guest-modules I=DIR|none
#                         other modules for guest I only (e.g. "none" to run
#                         Debian's in-tree RDMA stack there as a reference peer)
#   --console             also stream the guests' serial consoles to stderr
#   --bench               a guest for measurements: without slub_debug, whose
#                         poisoning and stack traces on every allocation and
#                         free would be measured instead of the code (tests
#                         keep it: it is how they catch memory misuse)
#   --shell               one guest: after SCENARIO (the set-up), an
#                         interactive root shell on this terminal; the guest
#                         powers off when it exits (no --timeout then)
#
# Environment: KVER (default: newest /boot/vmlinuz-6.1.*-amd64),
# RDMA_CACHE (default ~/.cache/rdma-stack), VM_KEEP_RUNS (runs kept, 5),
# VM_APPEND (more kernel parameters), VM_QEMU_ARGS (more QEMU options),
# VM_CPU (QEMU -cpu model, default max).
#
# Exit status: 0 if every guest passed; otherwise the first non-zero exit
# status of a scenario, or 1 (kernel problem, panic, timeout, failed test).

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

usage() {
	sed -n '/^# Usage:/,/^# Exit status/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
die() {
	echo "vm-run: $*" >&2
	exit 2
}

# --- options -------------------------------------------------------------------
guests=1 timeout=300 mem=1024 smp='' console=0 shell=0
slub_debug=slub_debug=FZPU
modules=$REPO
declare -A guest_modules=()
while [[ $# -gt 0 ]]; do
	opt=$1
	val=
	case $opt in
	--*=*) val=${opt#*=}; opt=${opt%%=*} ;;
	esac
	case $opt in
	--guests | --timeout | --mem | --smp | --modules | --guest-modules)
		if [[ -z $val ]]; then
			[[ $# -ge 2 ]] || die "$opt needs a value"
			val=$2
			shift
		fi
		;;
	esac
	case $opt in
	--guests) guests=$val ;;
	--timeout) timeout=$val ;;
	--mem) mem=$val ;;
	--smp) smp=$val ;;
	--modules) modules=$val ;;
	--guest-modules)
		[[ $val == *=* ]] || die "--guest-modules wants I=DIR"
		guest_modules[${val%%=*}]=${val#*=}
		;;
	--console) console=1 ;;
	--bench) slub_debug= ;;
	--shell) shell=1 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) die "unknown option $opt (see --help)" ;;
	*) break ;;
	esac
	shift
done
[[ $# -ge 1 ]] || usage
scenario=$1
shift
scenario_args=("$@")

for n in guests timeout mem; do
	[[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "--$n must be a positive integer"
done
((guests <= 8)) || die "at most 8 guests (2 host cores)"
((!shell || guests == 1)) || die "--shell wants one guest"
# Measured on the 2-core host (shared with builds): one guest is 0.3-0.6 s
# faster per run with 1 vCPU than with 2 (MTTCG); two 2-vCPU guests
# oversubscribe the host (15-17 s against 9 s for the two-guest self-check).
# Scenarios hunting races want --smp 2.
[[ -n $smp ]] || smp=1
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "--smp must be a positive integer"
for i in "${!guest_modules[@]}"; do
	if ! [[ $i =~ ^[0-9]+$ ]] || ((i >= guests)); then
		die "--guest-modules: no guest $i"
	fi
done

[[ -f $scenario ]] || die "scenario $scenario not found"
scenario=$(realpath "$scenario")

# Guest kernel: Debian's 6.1, whatever the host runs.
if [[ -z ${KVER:-} ]]; then
	KVER=$(find /boot -maxdepth 1 -name 'vmlinuz-6.1.*-amd64' -printf '%f\n' |
		sed 's/^vmlinuz-//' | sort -V | tail -n 1)
fi
[[ -n $KVER ]] || die "no /boot/vmlinuz-6.1.*-amd64 (apt-get install linux-image-amd64)"
kernel=/boot/vmlinuz-$KVER
[[ -r $kernel ]] || die "cannot read $kernel"
[[ -d /lib/modules/$KVER/kernel ]] || die "no /lib/modules/$KVER"
export KVER

CACHE=${RDMA_CACHE:-$HOME/.cache/rdma-stack}/vm
mkdir -p "$CACHE"

# pvh_kernel BZIMAGE: print the path of an uncompressed copy of the kernel
# that QEMU can start through its PVH entry point, or BZIMAGE itself if that
# is not possible.  Booting the vmlinux directly skips SeaBIOS and the
# in-guest decompression of the (xz-compressed) bzImage, which under TCG
# saves 3-6 s per boot.  The copy is cached next to the initramfs.
pvh_kernel() {
	local bz=$1 out=$CACHE/vmlinux-$KVER stamp tmp fmt magic off
	stamp=$(stat -L -c '%s %Y' "$bz")
	if [[ -s $out && $(cat "$out.stamp" 2>/dev/null) == "$stamp" ]]; then
		echo "$out"
		return
	fi
	if ! command -v readelf >/dev/null; then
		echo "$bz"
		return
	fi
	tmp=$(mktemp "$CACHE/vmlinux.tmp.XXXXXX")
	for fmt in xz zstd gzip; do
		case $fmt in
		xz) magic=$'\xfd7zXZ' ;;
		zstd) magic=$'\x28\xb5\x2f\xfd' ;;
		gzip) magic=$'\x1f\x8b\x08' ;;
		esac
		while read -r off; do
			case $fmt in
			xz) tail -c +"$((off + 1))" "$bz" | xz -dcq --single-stream ;;
			zstd) tail -c +"$((off + 1))" "$bz" | zstd -dcq ;;
			gzip) tail -c +"$((off + 1))" "$bz" | gzip -dcq ;;
			esac >"$tmp" 2>/dev/null || true
			# XEN_ELFNOTE_PHYS32_ENTRY (type 0x12) marks the PVH entry point.
			if readelf -n "$tmp" 2>/dev/null | grep -qE '^ +Xen +0x[0-9a-f]+[[:space:]].*\(0x00000012\)'; then
				mv "$tmp" "$out"
				echo "$stamp" >"$out.stamp"
				echo "$out"
				return
			fi
		done < <(LC_ALL=C grep -aboF "$magic" "$bz" | cut -d: -f1)
	done
	rm -f "$tmp"
	echo "$bz"
}

RUNS=$CACHE/runs
mkdir -p "$RUNS"

# QEMU splits option values at commas, and the kernel command line at spaces.
for p in "$HERE" "$REPO" "$RUNS" "$scenario"; do
	[[ $p != *[,[:space:]]* ]] || die "path '$p' must not contain commas or spaces"
done

# --- per-run directory ---------------------------------------------------------
# Runs are kept for post-mortems; only the newest VM_KEEP_RUNS survive, and
# never one whose vm-run.sh is still alive.
prune_runs() {
	local keep=${VM_KEEP_RUNS:-5} d pid
	find "$RUNS" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -r |
		tail -n +"$((keep + 1))" | while read -r d; do
		pid=$(cat "$RUNS/$d/pid" 2>/dev/null || true)
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			continue
		fi
		rm -rf "${RUNS:?}/$d"
	done
}
RUN=$(mktemp -d "$RUNS/$(date +%Y%m%d-%H%M%S).XXXXXX")
echo $$ >"$RUN/pid"
prune_runs

# Unix socket paths are limited to 108 bytes: keep them short, in /tmp.
SOCKDIR=$(mktemp -d /tmp/rdmavm.XXXXXX)

declare -a qemu_pids=() stream_pids=()
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	local p
	for p in "${qemu_pids[@]}" "${stream_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$SOCKDIR"
	rm -f "$RUN/pid"
}
trap cleanup EXIT
trap 'echo "vm-run: interrupted" >&2; exit 130' INT TERM HUP

# --- initramfs -----------------------------------------------------------------
kernel=$(pvh_kernel "$kernel")
initramfs=$(RDMA_CACHE=${RDMA_CACHE:-$HOME/.cache/rdma-stack} "$HERE/mkinitramfs.sh" "$KVER")

# --- our modules -----------------------------------------------------------------
# stage_modules DIR NAME: copy every *.ko under DIR (but DIR/.git) into
# $RUN/NAME/lib/modules/$KVER/updates/, keeping their subdirectories, and put
# there the modules.* indexes that depmod makes over Debian's kernel/ plus
# these updates/.  depmod runs natively here, never in the guest (under TCG it
# takes ~40 s), over a staging tree where kernel/ is a symlink to Debian's;
# its output is cached in $CACHE/depmod/, keyed by the modules' contents.
# Prints the stage's path, or nothing if DIR has no module.
stage_modules() {
	local dir=$1 name=$2 base mods f rel dups key cached tmp
	[[ $dir != none ]] || return 0
	[[ -d $dir ]] || die "module directory $dir not found"
	dir=$(realpath "$dir")
	mapfile -t mods < <(find "$dir" -path "$dir/.git" -prune -o -type f -name '*.ko' -print | sort)
	if [[ ${#mods[@]} -eq 0 ]]; then
		echo "# vm-run: no *.ko under $dir, guests get Debian's modules only" >&2
		return 0
	fi
	dups=$(printf '%s\n' "${mods[@]}" | sed 's|.*/||' | sort | uniq -d)
	[[ -z $dups ]] || die "modules found twice under $dir: $dups"

	base=$RUN/$name/lib/modules/$KVER
	mkdir -p "$base/updates"
	for f in "${mods[@]}"; do
		rel=${f#"$dir"/}
		[[ $rel != */* ]] || mkdir -p "$base/updates/${rel%/*}"
		cp "$f" "$base/updates/$rel"
	done

	key=$( {
		echo "$KVER"
		stat -c '%n %s %Y' "/lib/modules/$KVER/modules.dep"
		cd "$base" && find updates -type f -print0 | sort -z | xargs -0 sha256sum
	} | sha256sum | cut -c1-16)
	cached=$CACHE/depmod/$key
	if [[ -d $cached ]] && cp "$cached"/modules.* "$base/" 2>/dev/null; then
		touch "$cached"
	else
		ln -s "/lib/modules/$KVER/kernel" "$base/kernel"
		for f in modules.order modules.builtin modules.builtin.modinfo; do
			[[ ! -f /lib/modules/$KVER/$f ]] || cp "/lib/modules/$KVER/$f" "$base/"
		done
		depmod -b "$RUN/$name" "$KVER" 2>&1 | sed 's/^/# depmod: /' >&2
		# The guest lays this directory over its own /lib/modules/$KVER,
		# where the kernel/ symlink would point to itself.
		rm "$base/kernel"
		# Publish atomically; keep the 5 most recently used.
		mkdir -p "$CACHE/depmod"
		tmp=$(mktemp -d "$CACHE/depmod/tmp.XXXXXX")
		cp "$base"/modules.* "$tmp/"
		mv -T "$tmp" "$cached" 2>/dev/null || rm -rf "$tmp"
		find "$CACHE/depmod" -mindepth 1 -maxdepth 1 -type d ! -name 'tmp.*' -printf '%T@ %p\n' |
			sort -rn | tail -n +6 | cut -d' ' -f2- | xargs -r rm -rf
	fi
	echo "$base"
}

declare -A stage_of=() # module dir -> stage path
guest_stage=()
for ((i = 0; i < guests; i++)); do
	dir=${guest_modules[$i]:-$modules}
	if [[ -z ${stage_of[$dir]+set} ]]; then
		stage_of[$dir]=$(stage_modules "$dir" "stage${#stage_of[@]}")
	fi
	guest_stage[i]=${stage_of[$dir]}
done

# --- links between guests ------------------------------------------------------------
# Every pair of guests (I < J) gets its own point-to-point Ethernet link L
# (numbered from 1 in the order (0,1) (0,2) .. (1,2) ..): one virtio-net NIC
# in each guest, joined by a pair of unix datagram sockets.  Nothing leaves
# QEMU.  The NIC of guest K on link L has the MAC 52:54:00:LL:KK:PP (PP: the
# peer) and the IPv4 link-local address 169.254.L.(K+1)/24.
declare -a net_args link_specs
for ((i = 0; i < guests; i++)); do
	net_args[i]=""
	link_specs[i]=""
done
link=0
for ((i = 0; i < guests; i++)); do
	for ((j = i + 1; j < guests; j++)); do
		link=$((link + 1))
		for pair in "$i $j" "$j $i"; do
			read -r me peer <<<"$pair"
			mac=$(printf '52:54:00:%02x:%02x:%02x' "$link" "$me" "$peer")
			net_args[me]+=" -netdev dgram,id=link$link"
			net_args[me]+=",local.type=unix,local.path=$SOCKDIR/$link.$me"
			net_args[me]+=",remote.type=unix,remote.path=$SOCKDIR/$link.$peer"
			net_args[me]+=" -device virtio-net-pci,netdev=link$link,mac=$mac"
			link_specs[me]+=" $(printf '%q' "$peer $mac 169.254.$link.$((me + 1))/24 169.254.$link.$((peer + 1))")"
		done
	done
done

# --- guests ------------------------------------------------------------------------------
# Kernel command line: console on ttyS0; SLUB debugging (sanity checks, red
# zones, poisoning, user tracking); an oops becomes a panic and a panic
# reboots at once, which -no-reboot turns into QEMU exiting, so a crashed
# guest ends the run right away.  Warnings do not panic: they are collected
# from dmesg after the scenario.
cmdline="console=ttyS0,115200 $slub_debug oops=panic panic=-1 panic_on_warn=0"
cmdline+=" mitigations=off rdmavm.init=$HERE/guest-init.sh"

# stream FILE PID PREFIX: copy the lines of FILE to stdout, each preceded by
# PREFIX, as they arrive, until process PID has exited and the rest of FILE
# is copied.  (Polling the size is cruder than tail -F but leaves no doubt
# that the last lines are shown.)
stream() {
	local file=$1 pid=$2 prefix=$3 off=0 size chunk alive=1 LC_ALL=C
	while ((alive)); do
		kill -0 "$pid" 2>/dev/null || alive=0
		size=$(stat -c %s "$file" 2>/dev/null || echo 0)
		if ((size > off)); then
			chunk=$(tail -c +"$((off + 1))" "$file" | head -c "$((size - off))"; echo .)
			chunk=${chunk%.}
			if ((alive)); then
				# Only whole lines while the guest may still write.
				if [[ $chunk == *$'\n'* ]]; then
					chunk=${chunk%$'\n'*}$'\n'
				else
					chunk=
				fi
			fi
			off=$((off + ${#chunk}))
			if [[ -n $chunk ]]; then
				chunk=${chunk%$'\n'}
				printf '%s\n' "$prefix${chunk//$'\n'/$'\n'$prefix}" || true
			fi
		fi
		((!alive)) || sleep 0.2
	done
}
start_stream() { # start_stream FILE PID PREFIX: stream in the background
	stream "$@" &
	stream_pids+=($!)
}

# boot_guests: start every guest's QEMU and the streams that show its output.
boot_guests() {
	local i g prefix
	for ((i = 0; i < guests; i++)); do
		g=$RUN/g$i
		mkdir -p "$g"
		{
			printf 'VM_INDEX=%q\nVM_COUNT=%q\nKVER=%q\nREPO=%q\n' "$i" "$guests" "$KVER" "$REPO"
			printf 'VM_SCENARIO=%q\nVM_TIMEOUT=%q\nVM_STAGE=%q\n' "$scenario" "$timeout" "${guest_stage[i]}"
			printf 'VM_ARGS=('
			[[ ${#scenario_args[@]} -eq 0 ]] || printf ' %q' "${scenario_args[@]}"
			printf ' )\n'
			printf 'VM_LINK_SPECS=(%s )\n' "${link_specs[i]}"
			printf 'VM_SHELL=%q\nVM_TERM=%q\n' "$shell" "${TERM:-vt100}"
		} >"$g/env.sh"
		: >"$g/output"

		qemu=(qemu-system-x86_64
			-accel tcg -machine q35 -cpu "${VM_CPU:-max}" -smp "$smp" -m "$mem"
			-nodefaults -no-user-config -nographic -monitor none -no-reboot
			-kernel "$kernel" -initrd "$initramfs"
			-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
			-virtfs "local,path=$RUN,mount_tag=vmrun,security_model=none")
		# shellcheck disable=SC2206 # net_args holds several words on purpose
		qemu+=(${net_args[i]} ${VM_QEMU_ARGS:-})
		if ((shell)); then
			# The console is this terminal (Ctrl-C goes to the guest), and
			# is logged for the verdict; kernel messages below warnings
			# stay out of the way of the shell.  (<&0: a background job
			# would otherwise read /dev/null.)
			"${qemu[@]}" -append "$cmdline loglevel=4 ${VM_APPEND:-} rdmavm.index=$i" \
				-chardev "stdio,id=con,signal=off,logfile=$g/console.log" \
				-serial chardev:con <&0 2>"$g/qemu.log" &
		else
			timeout -k 5 "$timeout" "${qemu[@]}" \
				-append "$cmdline ${VM_APPEND:-} rdmavm.index=$i" \
				-serial "file:$g/console.log" \
				</dev/null >"$g/qemu.log" 2>&1 &
		fi
		qemu_pids[i]=$!

		prefix=""
		((guests == 1)) || prefix="[vm$i] "
		# (with --shell the set-up's output reaches the console itself)
		((shell)) || start_stream "$g/output" "${qemu_pids[i]}" "$prefix"
		if ((console)); then
			start_stream "$g/console.log" "${qemu_pids[i]}" "[vm$i console] " >&2
		fi
	done
}

# A QEMU that dies of a fault signal (SIGSEGV, SIGABRT, ...) is the
# emulator crashing, not the guest: QEMU 7.2's TCG has been seen to take a
# SIGSEGV while Debian's kernel was still enumerating PCI, a make test lost
# to a fault in no code of ours.  When that happens before the guest's
# scenario began (guest-init.sh writes "started" just before it), every
# guest is stopped and booted once more; vm-run says so on stderr and keeps
# the first attempt's logs as FILE.1.  A crash once a scenario runs is a
# failure like any other.
boot_crash() { # boot_crash I: guest I's QEMU crashed before its scenario
	case ${qemu_rc[$1]} in
	132 | 133 | 134 | 135 | 136 | 139) ;; # SIGILL SIGTRAP SIGABRT SIGBUS SIGFPE SIGSEGV
	*) return 1 ;;
	esac
	[[ ! -f $RUN/g$1/started ]]
}

# wait_guests: wait for every QEMU, guest I's exit status in qemu_rc[I].
# On the first attempt, returns 1 as soon as a guest crashed at boot
# (crashed set to it), after stopping the others.
wait_guests() {
	local i p pid rc left=("${qemu_pids[@]}") rest
	for ((i = 0; i < guests; i++)); do
		qemu_rc[i]=0
	done
	while ((${#left[@]} > 0)); do
		rc=0
		wait -n -p pid "${left[@]}" || rc=$?
		for ((i = 0; i < guests; i++)); do
			[[ ${qemu_pids[i]} != "$pid" ]] || break
		done
		qemu_rc[i]=$rc
		rest=()
		for p in "${left[@]}"; do
			[[ $p == "$pid" ]] || rest+=("$p")
		done
		left=("${rest[@]}")
		if ((attempt == 1)) && boot_crash "$i"; then
			crashed=$i
			for pid in "${left[@]}"; do
				kill "$pid" 2>/dev/null || true
				wait "$pid" || true
			done
			return 1
		fi
	done
}

echo "# vm-run: $guests guest(s), kernel $KVER, run dir $RUN" >&2
declare -a qemu_rc
attempt=1 crashed=
start=$SECONDS
boot_guests
while ! wait_guests; do
	for p in "${stream_pids[@]}"; do
		wait "$p" || true
	done
	echo "# vm-run: QEMU of vm$crashed died (status ${qemu_rc[crashed]}) before its scenario began; booting every guest again" >&2
	for ((i = 0; i < guests; i++)); do
		for f in console.log qemu.log output; do
			[[ ! -f $RUN/g$i/$f ]] || mv "$RUN/g$i/$f" "$RUN/g$i/$f.1"
		done
	done
	rm -f "$SOCKDIR"/*
	qemu_pids=() stream_pids=()
	attempt=2
	boot_guests
done
elapsed=$((SECONDS - start))
for p in "${stream_pids[@]}"; do
	wait "$p" || true
done
qemu_pids=() stream_pids=()

# --- verdict ------------------------------------------------------------------------------
# Kernel messages that fail a run.  Each one is a kernel bug report or a
# corruption/lockup detector firing; none of them shows up in a clean boot of
# Debian's 6.1 kernel under TCG (see README.rst, "dmesg baseline").
bad_patterns=(
	'WARNING:' 'BUG:' 'kernel BUG' 'Oops' 'general protection fault'
	'Call Trace' 'Kernel panic' 'Unable to handle kernel'
	# SLUB debug reports: "BUG kmalloc-64 (Not tainted): Redzone overwritten"
	'BUG [^ ]+ \((Not tainted|Tainted)' 'Redzone' 'Poison overwritten'
	'Object padding' 'Padding overwritten' 'Freepointer corrupt'
	'Objects remaining' 'Slab corruption' 'double free'
	'INFO: task .* blocked for more than' 'UBSAN' 'KASAN' 'kmemleak'
	'RCU stall' 'detected stall' 'self-detected stall'
	'list_(add|del) corruption' 'refcount_t:' '[Mm]emory leak'
)
bad_re=$(IFS='|'; echo "${bad_patterns[*]}")
# Taint bits that are expected: O (out-of-tree module) and E (unsigned module).
allowed_taint=$((4096 | 8192))
taint_letters=PFSRMBUDAWCIOELKXT

taint_flags() { # taint_flags MASK: the letters of the set bits
	local mask=$1 b s=""
	for ((b = 0; b < ${#taint_letters}; b++)); do
		(((mask >> b) & 1)) && s+=${taint_letters:b:1}
	done
	echo "${s:--}"
}
comment() { # comment PREFIX < lines: print as TAP comments
	tr -d '\r' | sed "s/^/# $1/"
}

passed=0 failed=0 skipped=0 status=0
for ((i = 0; i < guests; i++)); do
	g=$RUN/g$i
	name="vm$i"
	reasons=()
	details=()

	# The scenario's own test points (top-level TAP lines only): "ok ...
	# # SKIP" counts as skipped, "not ok ... # TODO" (expected to fail) as
	# passed.
	if [[ -s $g/output ]]; then
		read -r p f s < <(awk '
			/^ok([ \t]|$)/ { if (tolower($0) ~ /#[ \t]*skip/) s++; else p++ }
			/^not ok([ \t]|$)/ { if (tolower($0) ~ /#[ \t]*todo/) p++; else f++ }
			END { print p + 0, f + 0, s + 0 }' "$g/output")
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	fi

	if grep -q 'Kernel panic' "$g/console.log" 2>/dev/null; then
		reasons+=("kernel panic")
		details+=("$(grep -E "$bad_re" "$g/console.log" | head -n 40 | comment "")")
	fi
	if [[ ! -f $g/done ]]; then
		if ((qemu_rc[i] == 124 || qemu_rc[i] == 137)); then
			reasons+=("timed out after ${timeout}s")
		elif [[ ${#reasons[@]} -eq 0 ]]; then
			reasons+=("guest stopped before finishing (QEMU status ${qemu_rc[i]})")
		fi
		[[ ! -s $g/qemu.log ]] || details+=("$(comment "qemu: " <"$g/qemu.log")")
		details+=("$(tail -n 30 "$g/console.log" 2>/dev/null | comment "console: ")")
	else
		rc=$(<"$g/rc")
		if [[ -f $g/killed ]]; then
			reasons+=("scenario killed after $(<"$g/killed")s, the guest's share of --timeout $timeout")
			((status != 0)) || status=$rc
		elif [[ $rc -ne 0 ]]; then
			reasons+=("scenario exited with status $rc")
			((status != 0)) || status=$rc
		fi
		if grep -qE "$bad_re" "$g/dmesg"; then
			reasons+=("kernel reported problems in dmesg")
			details+=("$(grep -E -A 5 "$bad_re" "$g/dmesg" | head -n 80 | comment "")")
		fi
		taint=$(<"$g/tainted")
		if (((taint & ~allowed_taint) != 0)); then
			reasons+=("kernel tainted: $taint ($(taint_flags "$taint"))")
		fi
	fi

	if [[ ${#reasons[@]} -eq 0 ]]; then
		echo "ok - $name: scenario exit 0, dmesg clean, taint ${taint} ($(taint_flags "$taint"))"
		passed=$((passed + 1))
	else
		for r in "${reasons[@]}"; do
			echo "not ok - $name: $r"
			failed=$((failed + 1))
		done
		for d in "${details[@]}"; do
			[[ -z $d ]] || printf '%s\n' "$d"
		done
		echo "# $name: logs in $g"
	fi
done

if ((failed > 0 && status == 0)); then
	status=1
fi
echo "# vm-run: ${elapsed}s for $guests guest(s), run dir $RUN" >&2
if ((skipped > 0)); then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
exit "$status"
