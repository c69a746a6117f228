# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# sdp.sh - helpers for the scenarios that run programs over ib_sdp between
# the namespaces a and b of ipoib.sh.  Source tap.sh and ipoib.sh first.
#
#   SDP_LIB                  the path of libsdp.so (make libsdp)
#   sa CMD... / sb CMD...    CMD in a / b, every TCP socket of it an SDP
#                            one (libsdp.so preloaded in simple mode)
#   sdp_listening PORT [NS]  0 once /proc/net/sdp in NS (default b) lists
#                            a listener on PORT (15 s at most)
#   sdpstat NS NAME          the counter NAME of /proc/net/sdpstats in NS
#   sdpbytes NS tx|rx        data bytes NS sent or received over SDP, by
#                            buffered and by zero copy

SDP_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../ulp/sdp/libsdp" &&
	pwd)/libsdp.so

sa() { na env LD_PRELOAD="$SDP_LIB" SIMPLE_LIBSDP=1 "$@"; }
sb() { nb env LD_PRELOAD="$SDP_LIB" SIMPLE_LIBSDP=1 "$@"; }

sdp_listening() {
	for _ in $(seq 150); do
		ip netns exec "${2:-b}" grep -qE ":$1 .* LISTEN " /proc/net/sdp &&
			return 0
		sleep 0.1
	done
	return 1
}

sdpstat() {
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' \
		/proc/net/sdpstats
}

sdpbytes() {
	local dir=Tx
	[[ $2 == rx ]] && dir=Rx
	echo $(($(sdpstat "$1" ${dir}BcopyBytes) + $(sdpstat "$1" ${dir}ZcopyBytes)))
}
