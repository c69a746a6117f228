#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest-two-guests.sh - VM harness self-check of the links between guests:
# every guest pings every peer over the link to it.
#
#   tests/vm/vm-run.sh --guests 2 tests/vm/selftest-two-guests.sh

set -euo pipefail
# shellcheck source=tests/vm/tap.sh
. "$REPO/tests/vm/tap.sh"

peers=$(vm_peers)
tap_plan $((2 + 2 * $(wc -w <<<"$peers")))

tap_like "at least two guests" "$VM_COUNT" '^([2-9]|[1-9][0-9]+)$'
tap_diag "vm$VM_INDEX links: $VM_LINKS"

# Start pinging only when every guest's links are up ...
if vm_barrier links-up 120; then
	tap_pass "all guests came up"
else
	tap_fail "all guests came up"
fi
for peer in $peers; do
	ifname=$(vm_link_iface "$peer")
	tap_like "link to vm$peer is up" "$(<"/sys/class/net/$ifname/operstate")" '^(up|unknown)$'
	tap_check "ping vm$peer ($(vm_peer_addr "$peer")) over $ifname" \
		ping -c 3 -i 0.2 -w 20 -I "$ifname" "$(vm_peer_addr "$peer")"
done
# ... and stay up until every guest is done pinging us.
vm_barrier pings-done 120 || true

tap_done
