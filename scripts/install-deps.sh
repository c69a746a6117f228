#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages the build, the tests and the demo need,
# if any is missing.  Quiet when everything is there.
set -eu

pkgs="
	make gcc bc flex bison libelf-dev kmod cpio xz-utils rsync python3
	linux-headers-amd64 linux-image-amd64 linux-source-6.1 sparse
	qemu-system-x86 busybox-static
	python3-pyelftools libibverbs-dev
	rdma-core ibverbs-utils ibverbs-providers perftest rdmacm-utils
	opensm infiniband-diags srptools targetcli-fb fio iperf3
	dbus-daemon sg3-utils lsscsi multipath-tools udev e2fsprogs
	python3-pyverbs iproute2 iputils-ping
	iputils-arping ethtool socat netcat-openbsd netcat-traditional tshark
	valgrind curl openssh-client openssh-server redis-server redis-tools
"

missing=
for p in $pkgs; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086 # word splitting of the list is wanted
$sudo apt-get install -y -q --no-install-recommends $missing
