#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-init.sh - stage 2 of the VM harness: runs as PID 1 inside the guest.
#
# Stage 1 (the initramfs /init, see mkinitramfs.sh) has made the host's root,
# read-only over 9p with a tmpfs overlay on top, our root and exec'd this
# script with the host's bash.  Here we:
#   1. mount /dev/pts /dev/shm /run and debugfs (/proc /sys /dev come from
#      stage 1),
#   2. mount the per-run directory of the host (9p tag "vmrun", read-write)
#      on /run/vm and read our settings from /run/vm/g$INDEX/env.sh,
#   3. lay the modules staged by vm-run.sh (updates/ + modules.* made by a
#      host-side depmod) over the guest's /lib/modules/$KVER,
#   4. bring up lo and the virtio-net links to the other guests,
#   5. run the scenario with bash, output appended to /run/vm/g$INDEX/output,
#      and with vm-run.sh --shell then hand the console to an interactive
#      shell,
#   6. save dmesg, the taint mask and the exit status next to it, power off.
#
# This script never runs the host's init system.  Any error ends in a power
# off (see the EXIT trap); vm-run.sh then reports the guest as failed because
# the "done" marker is missing, and shows the console log.

set -euo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Under TCG every exec of a dynamically linked program costs 0.1-0.3 s, a
# static one ~0.02 s: the plumbing below uses bash builtins and the host's
# busybox-static (the same binary as in the initramfs) wherever it can.
BB=/bin/busybox

log() {
	local up
	read -r up _ </proc/uptime
	echo "rdmavm: [$up] $*" >/dev/console
	echo "rdmavm: $*" >/dev/kmsg 2>/dev/null || true
}

# shellcheck disable=SC2317 # called from the EXIT trap
power_off() {
	sync || true
	# busybox's poweroff -f calls reboot(2) directly, without an init system.
	$BB poweroff -f || true
	echo o >/proc/sysrq-trigger || true
	sleep 30
}

# shellcheck disable=SC2317 # the EXIT trap
on_exit() {
	local rc=$?
	if [[ $rc -ne 0 ]]; then
		log "guest-init failed (status $rc, line ${BASH_LINENO[0]})"
	fi
	power_off
}
trap on_exit EXIT

is_mounted() { # is_mounted DIR
	local dev dir rest
	while read -r dev dir rest; do
		[[ $dir != "$1" ]] || return 0
	done </proc/mounts
	return 1
}

mnt() { # mnt TYPE SOURCE DIR [OPTIONS]: mount unless already mounted
	! is_mounted "$3" || return 0
	[[ -d $3 ]] || $BB mkdir -p "$3"
	$BB mount -t "$1" ${4:+-o "$4"} "$2" "$3"
}

# --- 1. basic file systems -------------------------------------------------
# /tmp is not a separate tmpfs: the overlay already makes it writable (in
# RAM) while the host's /tmp stays visible below it, read-only, so that
# scenarios kept in the host's /tmp run too.
mnt proc proc /proc
mnt sysfs sysfs /sys
mnt devtmpfs devtmpfs /dev
mnt devpts devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs tmpfs /dev/shm mode=1777
mnt tmpfs tmpfs /run mode=0755
mnt debugfs debugfs /sys/kernel/debug || true
# What udev or systemd would normally create (bash's <(...) needs /dev/fd).
for link in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 \
	stderr:/proc/self/fd/2 core:/proc/kcore; do
	[[ -e /dev/${link%%:*} ]] || $BB ln -s "${link#*:}" "/dev/${link%%:*}"
done
exec </dev/null >/dev/console 2>&1

# --- 2. per-run directory and settings --------------------------------------
index=
for arg in $(</proc/cmdline); do
	case $arg in
	rdmavm.index=*) index=${arg#rdmavm.index=} ;;
	esac
done
[[ -n $index ]] || { log "no rdmavm.index= on the kernel command line"; exit 1; }

# cache=none: the host (and the other guests) must see every write at once.
mnt 9p vmrun /run/vm trans=virtio,version=9p2000.L,msize=262144,cache=none
OUT=/run/vm/g$index
# shellcheck source=/dev/null
source "$OUT/env.sh"
echo "vm$index" >/proc/sys/kernel/hostname
log "vm$index of $VM_COUNT up, kernel $(</proc/sys/kernel/osrelease)"

# --- 3. our modules -----------------------------------------------------------
moddir=/lib/modules/$KVER
if [[ -n ${VM_STAGE:-} ]]; then
	# VM_STAGE is the stage's path on the host, seen here through the host
	# root: our modules in updates/ (which modprobe prefers over Debian's
	# kernel/) and the modules.* indexes that depmod computed on the host
	# over Debian's kernel/ + updates/.  Lay it over the guest's module
	# directory as a read-only overlay: one mount, nothing copied (every 9p
	# round trip costs milliseconds under TCG).
	$BB mount -t overlay -o "lowerdir=$VM_STAGE:$moddir" overlay "$moddir"
else
	[[ -d $moddir/updates ]] || $BB mkdir -p "$moddir/updates"
fi
log "modules installed${VM_STAGE:+ from $VM_STAGE}"

# --- 4. network ----------------------------------------------------------------
$BB ip link set lo up
VM_LINKS=""
if [[ ${#VM_LINK_SPECS[@]} -gt 0 ]]; then
	modprobe virtio_net
	for spec in "${VM_LINK_SPECS[@]}"; do
		# PEER MAC LOCAL_ADDR/PREFIX PEER_ADDR
		read -r peer mac addr peer_addr <<<"$spec"
		ifname=
		for dev in /sys/class/net/*; do
			if [[ $(<"$dev/address") == "$mac" ]]; then
				ifname=${dev##*/}
			fi
		done
		[[ -n $ifname ]] || { log "no NIC with MAC $mac (link to vm$peer)"; exit 1; }
		$BB ip addr add "$addr" dev "$ifname"
		$BB ip link set "$ifname" up
		VM_LINKS+="${VM_LINKS:+ }$peer:$ifname:${addr%/*}:$peer_addr"
	done
	# The kernel reports a link up only after linkwatch ran (up to 1 s):
	# let scenarios start with every link up.
	for entry in $VM_LINKS; do
		IFS=: read -r _ ifname _ <<<"$entry"
		for ((try = 0; try < 50; try++)); do
			[[ $(<"/sys/class/net/$ifname/operstate") != up ]] || break
			$BB sleep 0.1
		done
	done
	log "links up: $VM_LINKS"
fi

# --- 5. the scenario -------------------------------------------------------------
# Leave time before the host's deadline to collect the results.
read -r uptime _ </proc/uptime
budget=$((VM_TIMEOUT - ${uptime%.*} - 15))
((budget >= 5)) || budget=5
log "running $VM_SCENARIO ${VM_ARGS[*]} (budget ${budget}s)"
# (vm-run.sh boots the guests again if QEMU crashes before this point)
: >"$OUT/started"
set +e
(
	# A clean environment: only what a scenario is documented to get.
	while read -r var; do
		[[ $var == PATH ]] || unset "$var" 2>/dev/null || true
	done <<<"$(compgen -e)"
	export HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb \
		LANG=C.UTF-8 KVER REPO VM_INDEX VM_COUNT VM_LINKS \
		VM_RUNDIR=/run/vm VM_OUTDIR="$OUT"
	cd "$REPO"
	exec timeout -k 10 "$budget" bash "$VM_SCENARIO" "${VM_ARGS[@]}"
) </dev/null >>"$OUT/output" 2>&1
rc=$?
set -e
log "scenario exit status $rc"
if [[ $rc -eq 124 || $rc -eq 137 ]]; then
	echo "# vm-run: scenario killed after ${budget}s" >>"$OUT/output"
	echo "$budget" >"$OUT/killed"
	# Show where things are stuck: blocked tasks' stacks go to dmesg.
	echo w >/proc/sysrq-trigger || true
fi

# --- 5b. the interactive shell (vm-run.sh --shell) -----------------------------
# The set-up's output went to the output file: show it, then a login shell
# on the console with job control, as long as the user wants.  The shell
# runs in the set-up's working directory, the repository.
if [[ ${VM_SHELL:-0} == 1 ]]; then
	cat "$OUT/output" >/dev/ttyS0 || true
	log "shell on ttyS0; exit it to power the guest off"
	set +e
	# (no bracketed paste: it litters a serial console with escapes)
	printf '%s\n' "PS1='rdmavm:\\w# '" \
		"bind 'set enable-bracketed-paste off'" >/root/.vmshellrc
	(
		cd "$REPO"
		export HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
			TERM=$VM_TERM LANG=C.UTF-8 KVER REPO
		exec setsid -c bash --rcfile /root/.vmshellrc -i
	) </dev/ttyS0 >/dev/ttyS0 2>&1
	set -e
fi

# --- 6. results ------------------------------------------------------------------
dmesg >"$OUT/dmesg"
echo "$(</proc/sys/kernel/tainted)" >"$OUT/tainted"
echo "$(</proc/modules)" >"$OUT/modules"
echo "$rc" >"$OUT/rc"
echo "done" >"$OUT/done"
log "results saved"
exit 0
