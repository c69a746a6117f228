/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Performance management (class 0x04, IBA 16.1): the attributes a PMA
 * answers in process_mad and that ib_core's sysfs counters read.
 *
 * Names, values and layouts follow Linux 6.1.
 */
#ifndef IB_PMA_H
#define IB_PMA_H

#include <rdma/ib_mad.h>

/* ClassPortInfo:CapabilityMask bits of the PMA */
#define IB_PMA_CLASS_CAP_ALLPORTSELECT		cpu_to_be16(1 << 8)
#define IB_PMA_CLASS_CAP_EXT_WIDTH		cpu_to_be16(1 << 9)
#define IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF	cpu_to_be16(1 << 10)
#define IB_PMA_CLASS_CAP_XMIT_WAIT		cpu_to_be16(1 << 12)

/* Attributes */
#define IB_PMA_CLASS_PORT_INFO			cpu_to_be16(0x0001)
#define IB_PMA_PORT_SAMPLES_CONTROL		cpu_to_be16(0x0010)
#define IB_PMA_PORT_SAMPLES_RESULT		cpu_to_be16(0x0011)
#define IB_PMA_PORT_COUNTERS			cpu_to_be16(0x0012)
#define IB_PMA_PORT_COUNTERS_EXT		cpu_to_be16(0x001D)
#define IB_PMA_PORT_SAMPLES_RESULT_EXT		cpu_to_be16(0x001E)

/**
 * struct ib_pma_mad - a PMA MAD, 256 bytes
 * @mad_hdr: common MAD header
 * @reserved: reserved, bytes 24..63
 * @data: the attribute, from byte 64
 */
struct ib_pma_mad {
	struct ib_mad_hdr mad_hdr;
	u8 reserved[40];
	u8 data[192];
} __packed;

/**
 * struct ib_pma_portcounters - the PortCounters attribute
 * @reserved: reserved
 * @port_select: the port whose counters these are
 * @counter_select: Set: which counters to clear, IB_PMA_SEL_* bits
 * @symbol_error_counter: SymbolErrorCounter
 * @link_error_recovery_counter: LinkErrorRecoveryCounter
 * @link_downed_counter: LinkDownedCounter
 * @port_rcv_errors: PortRcvErrors
 * @port_rcv_remphys_errors: PortRcvRemotePhysicalErrors
 * @port_rcv_switch_relay_errors: PortRcvSwitchRelayErrors
 * @port_xmit_discards: PortXmitDiscards
 * @port_xmit_constraint_errors: PortXmitConstraintErrors
 * @port_rcv_constraint_errors: PortRcvConstraintErrors
 * @reserved1: CounterSelect2 (reserved here)
 * @link_overrun_errors: LocalLinkIntegrityErrors[7:4],
 *	ExcessiveBufferOverrunErrors[3:0]
 * @reserved2: QP1Dropped (reserved here)
 * @vl15_dropped: VL15Dropped
 * @port_xmit_data: PortXmitData, in 4-byte words
 * @port_rcv_data: PortRcvData, in 4-byte words
 * @port_xmit_packets: PortXmitPkts
 * @port_rcv_packets: PortRcvPkts
 * @port_xmit_wait: PortXmitWait
 *
 * The 32-bit counters stop at their maximum instead of wrapping.
 */
struct ib_pma_portcounters {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be16 symbol_error_counter;
	u8 link_error_recovery_counter;
	u8 link_downed_counter;
	__be16 port_rcv_errors;
	__be16 port_rcv_remphys_errors;
	__be16 port_rcv_switch_relay_errors;
	__be16 port_xmit_discards;
	u8 port_xmit_constraint_errors;
	u8 port_rcv_constraint_errors;
	u8 reserved1;
	u8 link_overrun_errors;
	__be16 reserved2;
	__be16 vl15_dropped;
	__be32 port_xmit_data;
	__be32 port_rcv_data;
	__be32 port_xmit_packets;
	__be32 port_rcv_packets;
	__be32 port_xmit_wait;
} __packed;

/* PortCounters:CounterSelect bits */
#define IB_PMA_SEL_SYMBOL_ERROR			cpu_to_be16(0x0001)
#define IB_PMA_SEL_LINK_ERROR_RECOVERY		cpu_to_be16(0x0002)
#define IB_PMA_SEL_LINK_DOWNED			cpu_to_be16(0x0004)
#define IB_PMA_SEL_PORT_RCV_ERRORS		cpu_to_be16(0x0008)
#define IB_PMA_SEL_PORT_RCV_REMPHYS_ERRORS	cpu_to_be16(0x0010)
#define IB_PMA_SEL_PORT_XMIT_DISCARDS		cpu_to_be16(0x0040)
#define IB_PMA_SEL_LOCAL_LINK_INTEGRITY_ERRORS	cpu_to_be16(0x0200)
#define IB_PMA_SEL_EXCESSIVE_BUFFER_OVERRUNS	cpu_to_be16(0x0400)
#define IB_PMA_SEL_PORT_VL15_DROPPED		cpu_to_be16(0x0800)
#define IB_PMA_SEL_PORT_XMIT_DATA		cpu_to_be16(0x1000)
#define IB_PMA_SEL_PORT_RCV_DATA		cpu_to_be16(0x2000)
#define IB_PMA_SEL_PORT_XMIT_PACKETS		cpu_to_be16(0x4000)
#define IB_PMA_SEL_PORT_RCV_PACKETS		cpu_to_be16(0x8000)

/**
 * struct ib_pma_portcounters_ext - the PortCountersExtended attribute
 * @reserved: reserved
 * @port_select: the port whose counters these are
 * @counter_select: Set: which counters to clear, IB_PMA_SELX_* bits
 * @reserved1: reserved
 * @port_xmit_data: PortXmitData, in 4-byte words
 * @port_rcv_data: PortRcvData, in 4-byte words
 * @port_xmit_packets: PortXmitPkts
 * @port_rcv_packets: PortRcvPkts
 * @port_unicast_xmit_packets: PortUnicastXmitPkts
 * @port_unicast_rcv_packets: PortUnicastRcvPkts
 * @port_multicast_xmit_packets: PortMulticastXmitPkts
 * @port_multicast_rcv_packets: PortMulticastRcvPkts
 */
struct ib_pma_portcounters_ext {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be32 reserved1;
	__be64 port_xmit_data;
	__be64 port_rcv_data;
	__be64 port_xmit_packets;
	__be64 port_rcv_packets;
	__be64 port_unicast_xmit_packets;
	__be64 port_unicast_rcv_packets;
	__be64 port_multicast_xmit_packets;
	__be64 port_multicast_rcv_packets;
} __packed;

/* PortCountersExtended:CounterSelect bits */
#define IB_PMA_SELX_PORT_XMIT_DATA		cpu_to_be16(0x0001)
#define IB_PMA_SELX_PORT_RCV_DATA		cpu_to_be16(0x0002)
#define IB_PMA_SELX_PORT_XMIT_PACKETS		cpu_to_be16(0x0004)
#define IB_PMA_SELX_PORT_RCV_PACKETS		cpu_to_be16(0x0008)
#define IB_PMA_SELX_PORT_UNI_XMIT_PACKETS	cpu_to_be16(0x0010)
#define IB_PMA_SELX_PORT_UNI_RCV_PACKETS	cpu_to_be16(0x0020)
#define IB_PMA_SELX_PORT_MULTI_XMIT_PACKETS	cpu_to_be16(0x0040)
#define IB_PMA_SELX_PORT_MULTI_RCV_PACKETS	cpu_to_be16(0x0080)

#endif /* IB_PMA_H */
