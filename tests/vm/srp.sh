# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# srp.sh - what the SRP scenarios and the SRP benchmark share.  Source it
# after tests/vm/tap.sh:
#
#   srp_add_target FILE STRING  STRING written to the add_target FILE in
#                               one write() (120 s at most); prints OK or
#                               the errno's name.  With SRP_NETNS set,
#                               from that network namespace (RDMA CM
#                               logins resolve their addresses there).
#   srp_dbus_start DIR          a private D-Bus, its socket in DIR, for
#                               targetcli, which asks the system bus for
#                               tcmu-runner's handlers and stops without
#                               one; exports DBUS_SYSTEM_BUS_ADDRESS
#   srp_dbus_stop               stop it (from the scenario's EXIT trap)
#   srp_service_guid            ib_srpt's srpt_service_guid, 16 hex digits
#   srp_target_line GID         the line ibsrpdm prints for ib_srpt on
#                               the port whose GID is GID (32 hex digits)

SRP_NETNS=
srp_dbus_pid=

srp_add_target() {
	${SRP_NETNS:+ip netns exec "$SRP_NETNS"} timeout 120 \
		python3 - "$1" "$2" <<'EOF'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, sys.argv[2].encode())
    print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
finally:
    os.close(fd)
EOF
}

srp_dbus_start() {
	mkdir -p "$1"
	dbus-daemon --config-file=/usr/share/dbus-1/session.conf \
		--address="unix:path=$1/bus" --fork --print-pid \
		>"$1/pid" 2>"$1/err" || return 1
	srp_dbus_pid=$(cat "$1/pid")
	export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$1/bus"
}

srp_dbus_stop() {
	[[ -z $srp_dbus_pid ]] || kill "$srp_dbus_pid" 2>/dev/null
	srp_dbus_pid=
}

srp_service_guid() {
	printf '%016x' "$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)"
}

srp_target_line() {
	local sg

	sg=$(srp_service_guid)
	echo "id_ext=$sg,ioc_guid=$sg,dgid=$1,pkey=ffff,service_id=$sg"
}
