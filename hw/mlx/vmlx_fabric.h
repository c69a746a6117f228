/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx fabric internals shared by vmlx_fabric.c (cables, link states),
 * vmlx_switch.c (the switch's forwarding), vmlx_switch_sma.c (the
 * switch's SMA), vmlx_switch_pma.c (the switch's PMA) and vmlx_trap.c
 * (the MAD packets the fabric sends): the cable ends and the emulated
 * switch.
 */
#ifndef VMLX_FABRIC_H
#define VMLX_FABRIC_H

#include "vmlx.h"
#include "vmlx_pkt.h"

/* Switch ports besides port 0; an MFT entry is a u64 mask of ports. */
#define VMLX_SW_MAX_PORTS	(VMLX_MAX_HCAS * VMLX_MAX_PORTS)
#define VMLX_LFT_SIZE		(VMLX_LID_UCAST_MAX + 1)
#define VMLX_MFT_SIZE		(VMLX_LID_MCAST_MAX - VMLX_LID_MCAST_MIN + 1)
#define VMLX_LFT_UNROUTED	0xff

/* What the switch SMA offers (SwitchInfo, NodeInfo) */
#define VMLX_SW_LFT_CAP		VMLX_LFT_SIZE
#define VMLX_SW_LFT_BLOCK	64
#define VMLX_SW_MFT_CAP		0x200
#define VMLX_SW_MFT_BLOCK	32
#define VMLX_SW_PKEY_TBL_LEN	8
#define VMLX_SW_DEVICE_ID	0x766e

/* Subnet management packets travel on VL15, and only they do. */
#define VMLX_VL_SMI		15

static_assert(VMLX_SW_MAX_PORTS < 64);

/* vmlx_fport.pending: link operations the fabric work is to carry out */
enum {
	VMLX_FP_DISABLE,	/* switch this end off (PortPhysicalState 3) */
	VMLX_FP_ENABLE,		/* switch it on again (PortPhysicalState 2) */
	VMLX_FP_RETRAIN,	/* take the link down and up (PortState 1) */
};

struct vmlx_switch;

/**
 * struct vmlx_fport - one end of a cable, on an HCA port or a switch port
 * @peer: the other end of the cable, NULL if there is none; set by
 *	vmlx_fabric_init() and constant until vmlx_fabric_exit()
 * @port: HCA end: the HCA port plugged in, NULL while none is; written
 *	under vmlx_fabric_mutex, read under RCU.  Always NULL on a switch.
 * @sw: switch end: its switch; NULL for an HCA end
 * @num: switch end: its port number, 0 for the management port
 * @enabled: the link knob of this end (under vmlx_fabric_mutex)
 * @pending: VMLX_FP_* bits, link operations a subnet manager asked for
 * @state: switch end: logical PortState; under the switch's lock, read
 *	by the data path with READ_ONCE()
 * @phys: switch end: PortPhysicalState; likewise
 * @link: switch end: link settings from PortInfo; under the switch's lock
 * @cnt: switch end: what the switch counts for this port: packets and
 *	bytes in and out (LRH to VCRC, every VL), multicast packets,
 *	link_downed, relay_errors (packets that came in here and could not
 *	be forwarded: DLID not routed, routed to port 0, empty multicast
 *	entry, port not ACTIVE for data) and xmit_discards (packets that
 *	were to leave here but found the link down or the port not ACTIVE)
 * @pma_base: switch end: values a PMA Set of the switch cleared @cnt to,
 *	by enum vmlx_pma_counter; under the switch's lock
 */
struct vmlx_fport {
	struct vmlx_fport		*peer;
	struct vmlx_port __rcu		*port;
	struct vmlx_switch		*sw;
	u8				num;
	bool				enabled;
	unsigned long			pending;
	u8				state;
	u8				phys;
	struct vmlx_link		link;
	struct vmlx_port_counters	cnt;
	u64				pma_base[VMLX_PMA_NUM];
};

/**
 * struct vmlx_switch - the emulated switch
 * @lock: see below
 * @guid: node GUID, also the GUID of port 0, host order
 * @num_ports: external ports, numbered 1..@num_ports
 * @lid: LID of management port 0, 0 while unassigned
 * @lmc: its LMC
 * @sm_lid: MasterSMLID of port 0
 * @sm_sl: MasterSMSL of port 0
 * @subnet_timeout: SubnetTimeOut of port 0
 * @mcast_trap_supp: MulticastPKeyTrapSuppressionEnabled of port 0
 * @mkey: M_Key of the switch
 * @mkey_lease: M_KeyLeasePeriod (stored only)
 * @mkey_protect: M_KeyProtectBits
 * @gid_prefix: GidPrefix of port 0
 * @pkeys: P_Key table of port 0
 * @lft_top: SwitchInfo:LinearFDBTop; LIDs above it are not forwarded
 * @mft_top: SwitchInfo:MulticastFDBTop (stored only)
 * @default_port: SwitchInfo:DefaultPort
 * @default_mcast_primary: SwitchInfo:DefaultMulticastPrimaryPort
 * @default_mcast_not_primary: SwitchInfo:DefaultMulticastNotPrimaryPort
 * @life_time: SwitchInfo:LifeTimeValue
 * @psc: SwitchInfo:PortStateChange, set when a link goes up or down,
 *	cleared by a SubnSet writing 1
 * @trap_tid: TID of the last trap the switch sent
 * @lft: linear forwarding table: egress port per unicast LID, or
 *	%VMLX_LFT_UNROUTED
 * @mft: multicast forwarding table: mask of egress ports (bit n for port
 *	n) per MLID, at index MLID - %VMLX_LID_MCAST_MIN
 * @smps: SMPs the switch's SMA answered
 * @smp_discards: SMPs for the switch dropped: malformed, directed-route
 *	rules broken, M_Key mismatch, no way back
 * @traps: traps the switch sent
 * @gmps: PMA MADs (GMPs to QP1) the switch answered
 * @gmp_discards: packets for the switch's QP1 dropped: malformed, not UD
 *	SEND ONLY, P_Key or Q_Key mismatch, not a request, no way back
 * @ports: port 0 and the external ports
 */
struct vmlx_switch {
	/*
	 * protects the SMA state, @lid through @trap_tid, and the ports'
	 * pma_base, and serialises the writers of @lft, @mft and the ports'
	 * state, phys and link;
	 * forwarding reads lid, lmc, lft_top, lft, mft and the port states
	 * with READ_ONCE()
	 */
	spinlock_t		lock;
	u64			guid;
	unsigned int		num_ports;
	u16			lid;
	u8			lmc;
	u16			sm_lid;
	u8			sm_sl;
	u8			subnet_timeout;
	u8			mcast_trap_supp;
	u64			mkey;
	u16			mkey_lease;
	u8			mkey_protect;
	u64			gid_prefix;
	u16			pkeys[VMLX_SW_PKEY_TBL_LEN];
	u16			lft_top;
	u16			mft_top;
	u8			default_port;
	u8			default_mcast_primary;
	u8			default_mcast_not_primary;
	u8			life_time;
	bool			psc;
	u32			trap_tid;
	u8			lft[VMLX_LFT_SIZE];
	u64			mft[VMLX_MFT_SIZE];
	atomic64_t		smps;
	atomic64_t		smp_discards;
	atomic64_t		traps;
	atomic64_t		gmps;
	atomic64_t		gmp_discards;
	struct vmlx_fport	ports[VMLX_SW_MAX_PORTS + 1];
};

/* The packet in @skb, LRH first, is for a multicast LID. */
static inline bool vmlx_skb_mcast(const struct sk_buff *skb)
{
	u16 dlid = vmlx_lrh_dlid((const struct vmlx_lrh *)skb->data);

	return dlid >= VMLX_LID_MCAST_MIN && dlid <= VMLX_LID_MCAST_MAX;
}

/* vmlx_fabric.c */
void vmlx_count_packet(struct vmlx_port_counters *cnt, bool rcv,
		       u32 packets, u32 len, bool mcast);
bool vmlx_fport_deliver(struct vmlx_fport *end, struct sk_buff *skb);
void vmlx_fport_request(struct vmlx_fport *end, unsigned int op);

/* Count what an skb carries: a packet, or a burst's (vmlx_burst.c). */
static inline void vmlx_count_skb(struct vmlx_port_counters *cnt, bool rcv,
				  struct sk_buff *skb)
{
	vmlx_count_packet(cnt, rcv, vmlx_pkt_count(skb),
			  vmlx_pkt_wire_len(skb), vmlx_skb_mcast(skb));
}

/* vmlx_switch.c */
void vmlx_switch_init(struct vmlx_switch *sw, unsigned int num_ports,
		      u64 guid);
bool vmlx_switch_own_lid(struct vmlx_switch *sw, u16 dlid);
void vmlx_switch_forward(struct vmlx_fport *in, struct sk_buff *skb);
void vmlx_switch_send(struct vmlx_fport *out, struct sk_buff *skb);
void vmlx_switch_unicast(struct vmlx_fport *in, u16 dlid,
			 struct sk_buff *skb);
u8 vmlx_switch_lft(struct vmlx_switch *sw, u16 dlid);

/* For the KUnit suites alone (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(VMLX_KUNIT_SUITE)
/* vmlx_fabric.c */
struct vmlx_switch *vmlx_fabric_switch(void);
void vmlx_fabric_flush(void);
#endif

#endif /* VMLX_FABRIC_H */
