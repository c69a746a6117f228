/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx management: what the subnet and performance management agents of
 * the HCA ports and of the emulated switch, and the traps, offer the rest
 * of the driver and each other.  The HCA's SMA is vmlx_sma.c, its PMA
 * vmlx_pma.c; the switch's are vmlx_switch_sma.c and vmlx_switch_pma.c;
 * what both SMAs share about PortInfo is vmlx_port_info.c; traps and the
 * packets of the MADs the fabric sends are vmlx_trap.c.
 *
 * Locking: an HCA port's management state is under its port->lock, the
 * switch's under the switch's lock (see struct vmlx_port and struct
 * vmlx_switch); each function says what it takes or expects.  The agents
 * run in atomic context (process_mad, or the sender of a packet to the
 * switch) and never sleep: what needs the fabric's mutex, taking a link
 * down or up, is left to the fabric's work item.
 */
#ifndef VMLX_SMA_H
#define VMLX_SMA_H

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "vmlx.h"

struct sk_buff;
struct vmlx_fport;
struct vmlx_switch;

/**
 * struct vmlx_pi - PortInfo in host order, between the wire and a port
 * @mkey: M_Key
 * @gid_prefix: GidPrefix
 * @lid: LID
 * @sm_lid: MasterSMLID
 * @cap_mask: CapabilityMask
 * @mkey_lease: M_KeyLeasePeriod
 * @local_port: LocalPortNum
 * @state: PortState (0 means no change in a Set)
 * @phys_state: PortPhysicalState (0 means no change in a Set)
 * @mkey_protect: M_KeyProtectBits
 * @lmc: LMC
 * @sm_sl: MasterSMSL
 * @client_rereg: ClientReregister
 * @mcast_trap_supp: MulticastPKeyTrapSuppressionEnabled
 * @subnet_timeout: SubnetTimeOut
 * @guid_cap: GUIDCap
 * @link: the link fields
 *
 * The fields that are the same for every vmlx port (supported and active
 * widths and speeds, VLCap, MTUCap...) are not here: vmlx_pi_encode()
 * fills them in.
 */
struct vmlx_pi {
	u64		mkey;
	u64		gid_prefix;
	u16		lid;
	u16		sm_lid;
	u32		cap_mask;
	u16		mkey_lease;
	u8		local_port;
	u8		state;
	u8		phys_state;
	u8		mkey_protect;
	u8		lmc;
	u8		sm_sl;
	bool		client_rereg;
	u8		mcast_trap_supp;
	u8		subnet_timeout;
	u8		guid_cap;
	struct vmlx_link link;
};

/**
 * struct vmlx_pma_set - the counters of one port, as a PMA sees them
 * @cnt: what the data path counts
 * @base: values a PMA Set cleared to, by enum vmlx_pma_counter
 * @lock: the lock that protects @base
 *
 * An HCA port's set is its cnt, pma_base and lock; a switch port's its
 * vmlx_fport.cnt and pma_base under the switch's lock.
 */
struct vmlx_pma_set {
	struct vmlx_port_counters	*cnt;
	u64				*base;
	/* protects *base: port->lock or the switch's lock */
	spinlock_t			*lock;
};

/**
 * struct vmlx_mad_addr - the addressing of a MAD packet the fabric sends
 * @slid: source LID; 0 becomes the permissive LID
 * @dlid: destination LID (the permissive LID for directed route)
 * @vl: the VL: %VMLX_VL_SMI for SMPs, 0 for GMPs
 * @pkey: BTH P_Key
 * @dest_qpn: BTH DestQP: 0 for SMPs, the requester's QP for a response
 * @src_qpn: DETH SrcQP: 0 for SMPs, 1 for GMPs
 * @qkey: DETH Q_Key: 0 for SMPs, %IB_QP1_QKEY for GMPs
 */
struct vmlx_mad_addr {
	u16	slid;
	u16	dlid;
	u8	vl;
	u16	pkey;
	u32	dest_qpn;
	u32	src_qpn;
	u32	qkey;
};

/* vmlx_sma.c */
int vmlx_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in, struct ib_mad *out,
		     size_t *out_mad_size, u16 *out_mad_pkey_index);
int vmlx_modify_port(struct ib_device *ibdev, u32 port_num, int mask,
		     struct ib_port_modify *props);
void vmlx_port_sma_init(struct vmlx_port *port);
int vmlx_port_set_lid(struct vmlx_port *port, u16 lid, u8 lmc, u16 sm_lid);
int vmlx_port_set_state(struct vmlx_port *port, u8 state);

/* vmlx_port_info.c */
void vmlx_link_init(struct vmlx_link *link);
int vmlx_port_state_next(enum ib_port_state cur, u8 req,
			 enum ib_port_state *next);
int vmlx_link_set(const struct vmlx_pi *req, struct vmlx_link *link);
void vmlx_pi_decode(const u8 *data, struct vmlx_pi *pi);
int vmlx_smp_reply(struct ib_smp *smp, u16 status);
int vmlx_pi_reply(struct ib_smp *smp, struct vmlx_pi *pi, bool hide_mkey,
		  u16 status);
u16 vmlx_smp_get_only_status(const struct ib_smp *smp);
void vmlx_node_info_fill(struct ib_node_info *ni, u8 node_type, u8 num_ports,
			 u16 partition_cap, u16 device_id, u8 local_port);
bool vmlx_smp_mkey_ok(u64 mkey, u8 mkey_protect, const struct ib_smp *smp,
		      bool *hide);
bool vmlx_pi_lids_ok(const struct vmlx_pi *req, u16 lid, u16 sm_lid);
int vmlx_pi_port_set(const struct vmlx_pi *req, enum ib_port_state cur,
		     enum ib_port_state *next, struct vmlx_link *link);

/* vmlx_pma.c */
int vmlx_pma(struct vmlx_dev *vdev, u32 port_num, const struct ib_mad *in,
	     struct ib_mad *out);
int vmlx_pma_answer(const struct ib_mad *in, struct ib_mad *out,
		    bool (*find)(void *ctx, u8 sel, struct vmlx_pma_set *set),
		    void *ctx);

/* vmlx_switch_sma.c */
void vmlx_switch_smi(struct vmlx_fport *in, struct sk_buff *skb);
void vmlx_switch_trap_link(struct vmlx_switch *sw);

/* vmlx_switch_pma.c */
int vmlx_switch_pma(struct vmlx_switch *sw, const struct ib_mad *in,
		    struct ib_mad *out);
void vmlx_switch_gsi(struct vmlx_fport *in, struct sk_buff *skb);

/* vmlx_trap.c */
struct ib_mad_notice_attr *vmlx_trap_init(struct ib_smp *smp, u64 tid,
					  u8 type, __be16 producer, u16 trap_num,
					  u16 issuer_lid);
void vmlx_port_trap_local_changes(struct vmlx_port *port);
struct sk_buff *vmlx_mad_skb(const void *mad, const struct vmlx_mad_addr *a);

/* Static without KUnit, for the suites (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(VMLX_KUNIT_SUITE)
/* vmlx_port_info.c */
void vmlx_pi_encode(const struct vmlx_pi *pi, u8 *data);

/* vmlx_switch_sma.c: directed-route rules at a switch (IBA 14.2.2) */
int vmlx_dr_switch_recv(struct ib_smp *smp, u8 in, u8 num_ports);
int vmlx_dr_switch_reply(struct ib_smp *smp, u8 num_ports);
int vmlx_switch_sma(struct vmlx_switch *sw, u8 in, struct ib_smp *smp);
#endif

#endif /* VMLX_SMA_H */
