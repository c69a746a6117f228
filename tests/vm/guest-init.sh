#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-init.sh - stage 2 of the VM harness: runs as PID 1 inside the guest.
#
# Stage 1 (the initramfs /init, see mkinitramfs.sh) has made the host's root,
# read-only over 9p with a tmpfs overlay on top, our root and exec'd this
# script with the host's bash.  Here we:
#   1. mount /proc /sys /dev /dev/pts /dev/shm /run /tmp (+ debugfs, configfs),
#   2. mount the per-run directory of the host (9p tag "vmrun", read-write)
#      on /run/vm and read our settings from /run/vm/g$INDEX/env.sh,
#   3. install the modules staged by vm-run.sh (updates/ + modules.* made by a
#      host-side depmod) into the overlay's /lib/modules/$KVER,
#   4. bring up lo and the virtio-net links to the other guests,
#   5. run the scenario with bash, output appended to /run/vm/g$INDEX/output,
#   6. save dmesg, the taint mask and the exit status next to it, and power off.
#
# This script never runs the host's init system.  Any error ends in a power
# off (see the EXIT trap); vm-run.sh then reports the guest as failed because
# the "done" marker is missing, and shows the console log.

set -euo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

log() {
	echo "rdmavm: $*" >/dev/console
	echo "rdmavm: $*" >/dev/kmsg 2>/dev/null || true
}

power_off() {
	sync || true
	# busybox-static is installed on the host (so visible here); its poweroff
	# -f calls reboot(2) directly without talking to an init system.
	/bin/busybox poweroff -f || true
	echo o >/proc/sysrq-trigger || true
	sleep 30
}

on_exit() {
	local rc=$?
	if [[ $rc -ne 0 ]]; then
		log "guest-init failed (status $rc, line ${BASH_LINENO[0]})"
	fi
	power_off
}
trap on_exit EXIT

mnt() { # mnt TYPE SOURCE DIR [OPTIONS]: mount unless already mounted
	mkdir -p "$3"
	mountpoint -q "$3" || mount -t "$1" ${4:+-o "$4"} "$2" "$3"
}

# --- 1. basic file systems -------------------------------------------------
mnt proc proc /proc
mnt sysfs sysfs /sys
mnt devtmpfs devtmpfs /dev
mnt devpts devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs tmpfs /dev/shm mode=1777
mnt tmpfs tmpfs /run mode=0755
mnt tmpfs tmpfs /tmp mode=1777
mnt debugfs debugfs /sys/kernel/debug || true
mnt configfs configfs /sys/kernel/config || true
exec </dev/null >/dev/console 2>&1

# --- 2. per-run directory and settings --------------------------------------
index=
for arg in $(</proc/cmdline); do
	case $arg in
	rdmavm.index=*) index=${arg#rdmavm.index=} ;;
	esac
done
[[ -n $index ]] || { log "no rdmavm.index= on the kernel command line"; exit 1; }

mnt 9p vmrun /run/vm trans=virtio,version=9p2000.L,msize=262144,cache=none
OUT=/run/vm/g$index
# shellcheck source=/dev/null
source "$OUT/env.sh"
hostname "vm$index"

# --- 3. our modules -----------------------------------------------------------
moddir=/lib/modules/$KVER
if [[ -n ${VM_STAGE:-} ]]; then
	# Ours go to updates/, which modprobe prefers over Debian's kernel/; the
	# modules.* indexes were computed on the host over kernel/ + updates/.
	cp -a "/run/vm/$VM_STAGE/updates" "$moddir/"
	find "/run/vm/$VM_STAGE" -maxdepth 1 -type f -name 'modules.*' \
		-exec cp {} "$moddir/" \;
fi
mkdir -p "$moddir/updates"

# --- 4. network ----------------------------------------------------------------
ip link set lo up
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
		ip addr add "$addr" dev "$ifname"
		ip link set "$ifname" up
		VM_LINKS+="${VM_LINKS:+ }$peer:$ifname:${addr%/*}:$peer_addr"
	done
fi

# --- 5. the scenario -------------------------------------------------------------
# Leave time before the host's deadline to collect the results.
read -r uptime _ </proc/uptime
budget=$((VM_TIMEOUT - ${uptime%.*} - 15))
((budget >= 5)) || budget=5
log "running $VM_SCENARIO ${VM_ARGS[*]} (budget ${budget}s)"
set +e
(
	cd "$REPO" &&
	exec env -i \
		PATH="$PATH" HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
		TERM=dumb LANG=C.UTF-8 \
		KVER="$KVER" REPO="$REPO" VM_INDEX="$VM_INDEX" VM_COUNT="$VM_COUNT" \
		VM_LINKS="$VM_LINKS" VM_RUNDIR=/run/vm VM_OUTDIR="$OUT" \
		timeout -k 10 "$budget" bash "$VM_SCENARIO" "${VM_ARGS[@]}"
) </dev/null >>"$OUT/output" 2>&1
rc=$?
set -e
log "scenario exit status $rc"
if [[ $rc -eq 124 || $rc -eq 137 ]]; then
	echo "# vm-run: scenario killed after ${budget}s" >>"$OUT/output"
	# Show where things are stuck: blocked tasks' stacks go to dmesg.
	echo w >/proc/sysrq-trigger || true
	sleep 1
fi

# --- 6. results ------------------------------------------------------------------
dmesg >"$OUT/dmesg"
cat /proc/sys/kernel/tainted >"$OUT/tainted"
lsmod >"$OUT/lsmod" || true
echo "$rc" >"$OUT/rc"
echo done >"$OUT/done"
exit 0
