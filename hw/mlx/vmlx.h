/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx: a software InfiniBand HCA.  The driver's structures and limits:
 * the HCA, its ports, the verbs objects, QPs and the state of their
 * transport, and the prototypes of the files that work on them.
 *
 * Who does what (one file per responsibility):
 *   vmlx.h          this header
 *   vmlx_queue.h    rings: struct vmlx_queue, its inlines, receive queues
 *   vmlx_pkt.h      packets: struct vmlx_pkt in skb->cb and its accessors
 *   vmlx_sma.h      management: the SMAs and PMAs of the HCA ports and of
 *                   the switch, PortInfo, traps
 *   vmlx_fabric.h   the cable ends and the switch, for vmlx_fabric.c,
 *                   vmlx_switch*.c and vmlx_trap.c
 *   vmlx_hdr.h      the wire format: headers, opcodes, PSNs, CRCs
 *   vmlx_main.c     module parameters, creation and teardown of the HCAs
 *   vmlx_verbs.c    the ops table, device and port queries
 *   vmlx_opcode.c   the opcode table, parsing a packet's headers
 *   vmlx_crc.c      ICRC and VCRC
 *   vmlx_fabric.c   links and cabling, fault knobs, port state and
 *                   counters, putting packets on a link
 *   vmlx_switch.c   the emulated switch: reset state, forwarding by the
 *                   LFT and MFT
 *   vmlx_switch_sma.c the emulated switch's SMA and its directed-route
 *                   rules
 *   vmlx_switch_pma.c the emulated switch's PMA and the GSI (QP1) under it
 *   vmlx_port_info.c PortInfo, the port state machine, the M_Key check
 *                   and the rest the HCA's and the switch's SMAs share
 *   vmlx_sma.c      the HCA's SMA (process_mad for subnet management)
 *   vmlx_pma.c      the HCA's PMA (process_mad for performance management)
 *                   and the PMA encoding the switch's PMA shares
 *   vmlx_trap.c     traps, and the packets of the MADs the fabric sends
 *   vmlx_recv.c     a packet arriving at a port: checks, QP lookup,
 *                   multicast fan-out
 *   vmlx_mcast.c    multicast groups (attach/detach)
 *   vmlx_debugfs.c  fault knobs and counters under debugfs
 *   vmlx_prof.c     the data path's time, stage by stage (debugfs profile)
 *   vmlx_queue.c    rings in the soft-RoCE layout, receive queues
 *   vmlx_pkt.c      building and sending packets
 *   vmlx_ucontext.c user contexts
 *   vmlx_mmap.c     rings offered to user processes, the mmap op
 *   vmlx_pd.c       PDs and address handles
 *   vmlx_mr.c       MRs, the key table, copying to and from memory
 *   vmlx_cq.c       CQs
 *   vmlx_srq.c      SRQs
 *   vmlx_qp.c       QPs: creation, state changes, posting, the per-QP work
 *   vmlx_req.c      requester: work requests to packets
 *   vmlx_comp.c     completer: ACKs, read responses, retries, completions
 *   vmlx_resp.c     responder: requests from the wire, ACK/NAK generation
 *
 * Concurrency: everything the transport does for one QP runs under
 * vmlx_qp.lock, in that QP's work item (vmlx_qp_work()), at its doorbell,
 * or in the thread of a QP that just sent to it (vmlx_qp_hand_off()), so
 * the requester, the completer and the responder of a QP never race;
 * different QPs run in parallel.  Packets reach a QP through its rx_queue; posters reach it
 * through its rings and vmlx_qp_kick().
 */
#ifndef VMLX_H
#define VMLX_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/jump_label.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched/clock.h>
#include <linux/completion.h>
#include <linux/dev_printk.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "vmlx_hdr.h"
#include "vmlx_queue.h"

#define VMLX_MAX_HCAS	16
#define VMLX_MAX_PORTS	2

/*
 * Identity.  No silicon is claimed.  The vendor id is the OUI of the
 * node GUIDs (VMLX_GUID_PREFIX below): 06:76:6d, locally administered,
 * so no IEEE-assigned vendor's; query_device, NodeInfo:VendorID of the
 * HCAs and of the switch all report it.  The part id spells "vm"; the
 * firmware version is this driver's.
 */
#define VMLX_VENDOR_ID			0x06766d
#define VMLX_VENDOR_PART_ID		0x766d
#define VMLX_FW_VERSION_NUM		((0ULL << 32) | (1 << 16) | 0)
/* sysfs hw_rev, hca_type and board_id */
#define VMLX_HW_REV			0
#define VMLX_HCA_TYPE			"vmlx"
#define VMLX_BOARD_ID			"VMLX0000000001"

/* Limits reported by query_device. */
#define VMLX_MAX_QP			4096
#define VMLX_MAX_QP_WR			4096
#define VMLX_MAX_SGE			32
#define VMLX_MAX_CQ			4096
#define VMLX_MAX_CQE			32768
#define VMLX_MAX_MR			8192
#define VMLX_MAX_PD			4096
#define VMLX_MAX_AH			8192
#define VMLX_MAX_SRQ			1024
#define VMLX_MAX_RD_ATOMIC		16
#define VMLX_MAX_MCAST_GRP		256
#define VMLX_MAX_MCAST_QP_ATTACH	64
#define VMLX_MAX_FAST_REG_PAGES		512
#define VMLX_MAX_INLINE			256
#define VMLX_MAX_MR_SIZE		BIT_ULL(40)
#define VMLX_MAX_MSG_SIZE		BIT(31)

/* QP numbers handed out to ordinary QPs; 0 and 1 are the special QPs. */
#define VMLX_QPN_MIN			16
#define VMLX_QPN_MAX			(VMLX_QPN_MASK - 1)

/* Port tables. */
#define VMLX_PKEY_TBL_LEN		16
#define VMLX_GID_TBL_LEN		4
#define VMLX_DEFAULT_SUBNET_PREFIX	0xfe80000000000000ULL
#define VMLX_DEFAULT_PKEY		0xffff
#define VMLX_SL2VL_BYTES		8
#define VMLX_VLARB_BLOCKS		4
#define VMLX_VLARB_BYTES		64

/*
 * PortInfo of every vmlx port, HCA or switch (IBA 14.2.5.6): 4X EDR (the
 * EDR is an extended speed, so LinkSpeedActive says QDR), MTU 4096, VL0
 * only.  CapabilityMask: SL to VL mapping, system image GUID, extended
 * speeds, client reregistration, and CM, which stays set because nothing
 * in this stack registers a CM through modify_port yet.
 */
#define VMLX_PI_WIDTH_SUPPORTED		0x03	/* 1X, 4X */
#define VMLX_PI_WIDTH_ACTIVE		0x02	/* 4X */
#define VMLX_PI_SPEED_SUPPORTED		0x07	/* SDR, DDR, QDR */
#define VMLX_PI_SPEED_ACTIVE		0x04	/* QDR */
#define VMLX_PI_SPEED_EXT_SUPPORTED	0x03	/* FDR, EDR */
#define VMLX_PI_SPEED_EXT_ACTIVE	0x02	/* EDR */
#define VMLX_PI_MTU_CAP			IB_MTU_4096
#define VMLX_PI_VL_CAP			1
#define VMLX_PI_VL_ARB_CAP		8
#define VMLX_PI_RESP_TIME		0x10
#define VMLX_PI_SUBNET_TIMEOUT		18
/* IB_PORT_CM_SUP is ib_cm's to set, while it is loaded */
#define VMLX_PORT_CAP_BASE		(IB_PORT_SL_MAP_SUP |		\
					 IB_PORT_SYS_IMAGE_GUID_SUP |	\
					 IB_PORT_EXTENDED_SPEEDS_SUP |	\
					 IB_PORT_CAP_MASK_NOTICE_SUP |	\
					 IB_PORT_CLIENT_REG_SUP)

/* Unicast and multicast LID ranges, IBA 4.1.3 and 7.11.1. */
#define VMLX_LID_UCAST_MAX		0xbfff
#define VMLX_LID_MCAST_MIN		0xc000
#define VMLX_LID_MCAST_MAX		0xfffe
#define VMLX_LID_PERMISSIVE		0xffff

/* Packets a QP may have waiting in its rx_queue before more are dropped. */
#define VMLX_QP_RX_QUEUE_MAX		4096
/* Request packets a requester may have sent but not yet seen acknowledged. */
#define VMLX_MAX_INFLIGHT_PSN		512
/* The requester asks for an ACK at least every this many packets. */
#define VMLX_ACKREQ_INTERVAL		32
/*
 * The least payload an RC packet takes by reference (vmlx_sge_attach());
 * below it, a copy costs less than the page references.
 */
#define VMLX_ATTACH_MIN			512

/*
 * Node GUIDs are EUI-64 values under a locally administered prefix
 * ("vml" with the U/L bit set), so they never collide with a vendor's.
 * The first byte is 0x06, not 0x02: a target uses its GUID as a service
 * ID (SRP's IOC GUID, ib_srpt's default srpt_service_guid), and service
 * IDs whose first byte is 0x02 belong to the IB CM, which assigns them
 * itself and refuses a listen on one.
 * Bits 16..31 hold the host id, bits 4..15 the HCA number; a port GUID is
 * the node GUID plus the port number.
 */
#define VMLX_GUID_PREFIX	0x06766d6c00000000ULL
static_assert(VMLX_GUID_PREFIX >> 40 == VMLX_VENDOR_ID);
/* the HCA number the emulated switch's GUID is built from */
#define VMLX_SWITCH_GUID_NUM	0xfffULL

struct vmlx_dev;
struct vmlx_qp;
struct vmlx_fport;

/* ------------------------------------------------------------------ */
/* Ports and the fabric                                                */
/* ------------------------------------------------------------------ */

/**
 * struct vmlx_port_counters - what a port counts, for the PMA and debugfs
 * @xmit_packets: packets sent on the link
 * @xmit_bytes: bytes of those packets, LRH through VCRC
 * @rcv_packets: packets received from the link, good or bad
 * @rcv_bytes: bytes of those packets
 * @xmit_discards: packets dropped on the way out: link down, port not
 *	active for the packet, injected drop
 * @rcv_errors: packets received malformed or with a bad CRC
 * @rcv_discards: good packets nobody took: no such QP, wrong LID, P_Key
 *	or Q_Key mismatch, QP receive queue overflow, a source that is not
 *	the connected QP's peer
 * @rcv_bad_source: packets of @rcv_discards that reached an RC or UC QP
 *	from another SLID or SGID than its path's
 * @injected_drops: packets the drop knob discarded (also in @xmit_discards)
 * @injected_corruptions: packets the corrupt knob damaged
 * @xmit_mcast_packets: packets of @xmit_packets with a multicast DLID
 * @rcv_mcast_packets: packets of @rcv_packets with a multicast DLID
 * @link_downed: times the physical link left LinkUp
 * @traps: traps the port sent to the subnet manager
 * @relay_errors: switch ports only: packets that came in and could not be
 *	forwarded
 * @rx_queue_full: packets of @rcv_discards dropped because their QP's
 *	receive queue was full
 * @timeouts: local ACK timeouts that sent a requester of the port back
 * @seq_naks_rcvd: PSN sequence error NAKs its requesters received
 * @rnr_naks_rcvd: RNR NAKs its requesters received
 * @retry_exceeded: send WQEs failed with RETRY_EXC_ERR or
 *	RNR_RETRY_EXC_ERR
 * @dup_requests: duplicate requests its responders answered again
 * @seq_naks_sent: PSN sequence error NAKs its responders sent
 */
struct vmlx_port_counters {
	atomic64_t	xmit_packets;
	atomic64_t	xmit_bytes;
	atomic64_t	rcv_packets;
	atomic64_t	rcv_bytes;
	atomic64_t	xmit_discards;
	atomic64_t	rcv_errors;
	atomic64_t	rcv_discards;
	atomic64_t	rcv_bad_source;
	atomic64_t	injected_drops;
	atomic64_t	injected_corruptions;
	atomic64_t	xmit_mcast_packets;
	atomic64_t	rcv_mcast_packets;
	atomic64_t	link_downed;
	atomic64_t	traps;
	atomic64_t	relay_errors;
	atomic64_t	rx_queue_full;
	atomic64_t	timeouts;
	atomic64_t	seq_naks_rcvd;
	atomic64_t	rnr_naks_rcvd;
	atomic64_t	retry_exceeded;
	atomic64_t	dup_requests;
	atomic64_t	seq_naks_sent;
};

/**
 * struct vmlx_link - what a subnet manager sets through PortInfo about a
 *	link, on an HCA port or a switch port (IBA 14.2.5.6)
 * @width_enabled: LinkWidthEnabled
 * @speed_enabled: LinkSpeedEnabled
 * @speed_ext_enabled: LinkSpeedExtEnabled
 * @down_default: LinkDownDefaultState
 * @neighbor_mtu: NeighborMTU, an enum ib_mtu value
 * @op_vls: OperationalVLs
 * @vl_high_limit: VLHighLimit
 * @vlstall_hoq: VLStallCount[7:5] and HOQLife[4:0], as on the wire
 * @enforce: PartitionEnforcement and FilterRaw bits, [3:0] of byte 43
 * @err_thresholds: LocalPhyErrors[7:4] and OverrunErrors[3:0]
 * @mkey_violations: M_KeyViolations
 * @pkey_violations: P_KeyViolations
 * @qkey_violations: Q_KeyViolations
 */
struct vmlx_link {
	u8	width_enabled;
	u8	speed_enabled;
	u8	speed_ext_enabled;
	u8	down_default;
	u8	neighbor_mtu;
	u8	op_vls;
	u8	vl_high_limit;
	u8	vlstall_hoq;
	u8	enforce;
	u8	err_thresholds;
	u16	mkey_violations;
	u16	pkey_violations;
	u16	qkey_violations;
};

/* PMA counters of a port that a PMA Set can clear (vmlx_pma.c). */
enum vmlx_pma_counter {
	VMLX_PMA_XMIT_DATA,
	VMLX_PMA_RCV_DATA,
	VMLX_PMA_XMIT_PKTS,
	VMLX_PMA_RCV_PKTS,
	VMLX_PMA_XMIT_MCAST,
	VMLX_PMA_RCV_MCAST,
	VMLX_PMA_XMIT_UCAST,
	VMLX_PMA_RCV_UCAST,
	VMLX_PMA_RCV_ERRORS,
	VMLX_PMA_XMIT_DISCARDS,
	VMLX_PMA_LINK_DOWNED,
	VMLX_PMA_RELAY_ERRORS,
	VMLX_PMA_NUM
};

/**
 * struct vmlx_port - one port of an HCA
 * @vdev: its HCA
 * @port_num: its number, from 1
 * @guid: port GUID, big endian
 * @lock: see below
 * @state: logical port state (INIT until a subnet manager activates it)
 * @phys_state: physical port state (LINK_UP while cabled and enabled)
 * @lid: base LID, 0 until assigned
 * @lmc: LID mask control
 * @sm_lid: LID of the subnet manager, 0 if none
 * @sm_sl: SL to reach the subnet manager
 * @pkeys: the P_Key table
 * @cap_mask: PortInfo:CapabilityMask, %VMLX_PORT_CAP_BASE changed by
 *	modify_port
 * @mkey: M_Key, 0 while unprotected
 * @gid_prefix: GidPrefix, host order
 * @mkey_lease: M_KeyLeasePeriod (stored; the lease timer is not run)
 * @mkey_protect: M_KeyProtectBits
 * @subnet_timeout: SubnetTimeOut
 * @mcast_trap_supp: MulticastPKeyTrapSuppressionEnabled
 * @trap_tid: TID of the last trap the port sent
 * @link: link settings from PortInfo
 * @guids: GUIDInfo; entry 0 is @guid, the others alias GUIDs or 0
 * @sl2vl: SLtoVLMappingTable, as on the wire
 * @vlarb: VLArbitrationTable blocks 1..4, as on the wire
 * @pma_base: counter values a PMA Set cleared to, by enum vmlx_pma_counter
 * @fport: the port's end of the fabric (vmlx_fabric.c), NULL if uncabled
 * @drop_ppm: fault knob, packets per million dropped on transmit
 * @corrupt_ppm: fault knob, packets per million corrupted on transmit
 * @cnt: counters
 * @qp0: the SMI QP of this port, or NULL; under the lock of vdev->qps
 * @qp1: the GSI QP of this port, or NULL; likewise
 * @mcast: multicast groups joined on this port, by MLID (vmlx_mcast.c)
 * @debugfs: the port's debugfs directory
 */
struct vmlx_port {
	struct vmlx_dev		*vdev;
	u32			port_num;
	__be64			guid;
	/*
	 * protects the subnet management state: state through pma_base
	 * below.  state, phys_state, lid, lmc and pkeys are also written
	 * with WRITE_ONCE() under it so that the data path may read them
	 * without it.
	 */
	spinlock_t		lock;
	enum ib_port_state	state;
	enum ib_port_phys_state	phys_state;
	u16			lid;
	u8			lmc;
	u16			sm_lid;
	u8			sm_sl;
	u16			pkeys[VMLX_PKEY_TBL_LEN];
	u32			cap_mask;
	u64			mkey;
	u64			gid_prefix;
	u16			mkey_lease;
	u8			mkey_protect;
	u8			subnet_timeout;
	u8			mcast_trap_supp;
	u32			trap_tid;
	struct vmlx_link	link;
	__be64			guids[VMLX_GID_TBL_LEN];
	u8			sl2vl[VMLX_SL2VL_BYTES];
	u8			vlarb[VMLX_VLARB_BLOCKS][VMLX_VLARB_BYTES];
	u64			pma_base[VMLX_PMA_NUM];
	struct vmlx_fport	*fport;
	u32			drop_ppm;
	u32			corrupt_ppm;
	struct vmlx_port_counters cnt;
	struct vmlx_qp		*qp0;
	struct vmlx_qp		*qp1;
	struct xarray		mcast;
	struct dentry		*debugfs;
};

/* vmlx_fabric.c */
int vmlx_fabric_init(unsigned int num_hcas, unsigned int num_ports,
		     bool back_to_back, u64 switch_guid);
void vmlx_fabric_cable(struct vmlx_port *port);
void vmlx_fabric_uncable(struct vmlx_port *port);
void vmlx_fabric_exit(void);
void vmlx_fabric_static_lids(void);
int vmlx_port_xmit(struct vmlx_port *port, struct sk_buff *skb);
int vmlx_port_set_link(struct vmlx_port *port, bool up);
void vmlx_port_event(struct vmlx_port *port, enum ib_event_type type);
void vmlx_port_link_request(struct vmlx_port *port, u8 phys_req,
			    bool retrain);
struct seq_file;
void vmlx_fabric_show(struct seq_file *m);

/* vmlx_mcast.c */
int vmlx_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int vmlx_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void vmlx_mcast_detach_qp(struct vmlx_qp *qp);
void vmlx_mcast_deliver(struct vmlx_port *port, struct sk_buff *skb);
void vmlx_mcast_port_init(struct vmlx_port *port);
void vmlx_mcast_port_cleanup(struct vmlx_port *port);

/* vmlx_bus.c */
int vmlx_bus_init(void);
void vmlx_bus_exit(void);
struct device *vmlx_bus_add_hca(unsigned int num);
void vmlx_bus_remove_hca(struct device *dev);

struct dentry;

/* vmlx_prof.c: the stages of the data path it times */
enum vmlx_prof_stage {
	VMLX_PROF_KICK,
	VMLX_PROF_WAKEUP,
	VMLX_PROF_WORK,
	VMLX_PROF_QUEUED,
	VMLX_PROF_REQ_PKT,
	VMLX_PROF_XMIT,
	VMLX_PROF_RESP_PKT,
	VMLX_PROF_COMP_PKT,
	VMLX_PROF_CQ_HANDLER,
	VMLX_PROF_HANDOFF,
	VMLX_PROF_NR
};

DECLARE_STATIC_KEY_FALSE(vmlx_prof_on);
void vmlx_prof_add(enum vmlx_prof_stage stage, u64 ns);
void vmlx_prof_debugfs_init(struct dentry *dir);

/* The start of a stage: local_clock(), or 0 while the profile is off. */
static inline u64 vmlx_prof_now(void)
{
	return static_branch_unlikely(&vmlx_prof_on) ? local_clock() : 0;
}

/* End a stage started at @start (0: the profile was off, not counted). */
static inline void vmlx_prof_end(enum vmlx_prof_stage stage, u64 start)
{
	u64 now;

	if (!static_branch_unlikely(&vmlx_prof_on) || !start)
		return;
	now = local_clock();
	/* another CPU's local_clock() may be a little behind */
	vmlx_prof_add(stage, now > start ? now - start : 0);
}

/* vmlx_debugfs.c */
void vmlx_debugfs_init(void);
void vmlx_debugfs_add_dev(struct vmlx_dev *vdev);
void vmlx_debugfs_remove_dev(struct vmlx_dev *vdev);
void vmlx_debugfs_exit(void);

/* ------------------------------------------------------------------ */
/* The HCA                                                             */
/* ------------------------------------------------------------------ */

/**
 * struct vmlx_dev - one software HCA
 * @ibdev: the core's device, first so that ib_alloc_device() works
 * @list: entry in the driver's list of HCAs
 * @num: HCA number, used for its GUIDs and its bus device's name
 * @bus_dev: its device on the vmlx bus, the ib_device's parent
 * @ports: its ports, ibdev.phys_port_cnt of them
 * @attr_lock: see below
 * @qps: ordinary QPs by QP number; looked up under its lock, which
 *	also protects the ports' qp0 and qp1
 * @mrs: MRs by key index (key >> 8); looked up under RCU
 * @ahs: address handles by ah_num; looked up under RCU
 * @mmaps: rings of user objects offered for mmap, by offset in pages
 *	(vmlx_mmap.c); looked up under its lock
 * @srqs: user SRQs by SRQ number, only to hand out the numbers
 * @next_qpn: where the cyclic QP number allocation goes on from
 * @next_mr: where the cyclic MR index allocation goes on from
 * @next_ah: where the cyclic ah_num allocation goes on from
 * @next_mmap: where the cyclic mmap offset allocation goes on from
 * @num_qps: QPs in existence, against VMLX_MAX_QP
 * @num_pds: PDs in existence, against VMLX_MAX_PD (also for the others)
 * @num_cqs: CQs in existence
 * @num_srqs: SRQs in existence
 * @debugfs: the HCA's debugfs directory
 */
struct vmlx_dev {
	struct ib_device	ibdev;
	struct list_head	list;
	unsigned int		num;
	struct device		*bus_dev;
	struct vmlx_port	ports[VMLX_MAX_PORTS];
	/* protects ibdev.node_desc and ibdev.attrs.sys_image_guid */
	spinlock_t		attr_lock;
	struct xarray		qps;
	struct xarray		mrs;
	struct xarray		ahs;
	struct xarray		mmaps;
	struct xarray		srqs;
	u32			next_qpn;
	u32			next_mr;
	u32			next_ah;
	u32			next_mmap;
	atomic_t		num_qps;
	atomic_t		num_pds;
	atomic_t		num_cqs;
	atomic_t		num_srqs;
	struct dentry		*debugfs;
};

static inline struct vmlx_dev *to_vmlx(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vmlx_dev, ibdev);
}

static inline struct vmlx_port *vmlx_port(struct vmlx_dev *vdev, u32 num)
{
	return &vdev->ports[num - 1];
}

extern const struct ib_device_ops vmlx_dev_ops;
extern struct workqueue_struct *vmlx_wq;

/**
 * vmlx_dbg_refusal() - say why the HCA refuses a verb
 * @ibdev: the HCA
 * @fmt: the verb, the rule and the value it refused, with a newline
 * @...: the arguments of @fmt
 *
 * One line of dynamic debug ("module vmlx +p" in dynamic_debug/control),
 * rate-limited per call site, beside the -EINVAL or -EOPNOTSUPP.
 */
#define vmlx_dbg_refusal(ibdev, fmt, ...) \
	dev_dbg_ratelimited(&(ibdev)->dev, fmt, ##__VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Rings offered to user processes (vmlx_mmap.c)                       */
/* ------------------------------------------------------------------ */

/**
 * struct vmlx_mmap - a ring buffer a user process may map
 * @ref: one for the object owning the ring, one per VMA mapping it
 * @vdev: the HCA whose vmlx_dev.mmaps lists it
 * @id: its key there; the mmap offset is @id pages
 * @buf: the buffer (vmlx_queue_init()), freed with the entry
 * @size: the size to map, a multiple of the page size
 * @mm: the address space of the creating process (mmgrab()ed); only it
 *	may map the entry
 * @mapped: it has been mapped; under the lock of vmlx_dev.mmaps
 */
struct vmlx_mmap {
	struct kref		ref;
	struct vmlx_dev		*vdev;
	u32			id;
	void			*buf;
	size_t			size;
	struct mm_struct	*mm;
	bool			mapped;
};

struct vmlx_mmap *vmlx_mmap_add(struct vmlx_dev *vdev, void *buf,
				size_t size, struct mminfo *mi);
void vmlx_mmap_remove(struct vmlx_mmap *m);
int vmlx_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);

/* ------------------------------------------------------------------ */
/* Contexts, PDs, AHs, MRs (vmlx_ucontext.c, vmlx_pd.c, vmlx_mr.c)     */
/* ------------------------------------------------------------------ */

/*
 * What the rings and other memory of an object are allocated with: the
 * memory of a user object (@udata) is charged to the creating process's
 * memory cgroup, so that its limits bound what a process can make the
 * kernel hold, and at the limit (or short of memory) the creation fails
 * with -ENOMEM rather than waking an OOM killer.
 */
static inline gfp_t vmlx_gfp(const struct ib_udata *udata)
{
	return udata ? GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL : GFP_KERNEL;
}

/**
 * struct vmlx_ucontext - a user process's context on the HCA
 * @ibuc: the core's part
 *
 * Nothing of its own: the rings a process may map are listed per HCA
 * (vmlx_mmap.c) and go away with their objects.
 */
struct vmlx_ucontext {
	struct ib_ucontext	ibuc;
};

/**
 * struct vmlx_pd - a protection domain
 * @ibpd: the core's PD
 * @user: it belongs to a user process: only user MRs live in it, kernel
 *	ones (the DMA MR, fast-registration MRs) never
 */
struct vmlx_pd {
	struct ib_pd		ibpd;
	bool			user;
};

static inline struct vmlx_pd *to_vpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct vmlx_pd, ibpd);
}

/**
 * struct vmlx_av - where packets go: the resolved address of an AH or of
 * an RC/UC QP's primary path
 * @port_num: the local port
 * @dlid: destination LID
 * @src_path_bits: added to the port's LID to make the SLID
 * @sl: service level
 * @global: whether packets carry a GRH
 * @grh: the GRH fields, when @global
 */
struct vmlx_av {
	u32			port_num;
	u16			dlid;
	u8			src_path_bits;
	u8			sl;
	bool			global;
	struct ib_global_route	grh;
};

void vmlx_av_from_attr(struct vmlx_av *av, const struct rdma_ah_attr *attr);

/**
 * struct vmlx_ah_entry - what vmlx_dev.ahs holds for an AH
 * @rcu: frees the entry after a grace period: the core frees the AH
 *	itself as soon as destroy_ah returns, possibly in atomic context,
 *	while vmlx_ah_lookup() may still be reading the entry under RCU
 * @pd: the AH's PD, only compared, never dereferenced
 * @av: a copy of the AH's address
 */
struct vmlx_ah_entry {
	struct rcu_head		rcu;
	struct ib_pd		*pd;
	struct vmlx_av		av;
};

/**
 * struct vmlx_ah - an address handle
 * @ibah: the core's AH
 * @av: its address
 * @ah_num: its number, never 0, by which UD work requests name it
 * @entry: its entry in vmlx_dev.ahs
 */
struct vmlx_ah {
	struct ib_ah		ibah;
	struct vmlx_av		av;
	u32			ah_num;
	struct vmlx_ah_entry	*entry;
};

static inline struct vmlx_ah *to_vah(struct ib_ah *ibah)
{
	return container_of(ibah, struct vmlx_ah, ibah);
}

int vmlx_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void vmlx_dealloc_ucontext(struct ib_ucontext *ibuc);
int vmlx_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int vmlx_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int vmlx_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int vmlx_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int vmlx_destroy_ah(struct ib_ah *ibah, u32 flags);
bool vmlx_ah_lookup(struct vmlx_dev *vdev, u32 ah_num, struct ib_pd *pd,
		    struct vmlx_av *av);

enum vmlx_mr_kind {
	VMLX_MR_DMA,		/* all of kernel memory, iova = kernel VA */
	VMLX_MR_FAST_REG,	/* pages mapped by ib_map_mr_sg, REG_MR WRs */
	VMLX_MR_USER,		/* pinned user pages, iova = user's choice */
};

enum vmlx_mr_state {
	VMLX_MR_INVALID,	/* not usable (fast-reg MR before REG_MR) */
	VMLX_MR_VALID,
};

/**
 * struct vmlx_mr - a memory region
 * @ibmr: the core's MR; lkey, rkey, iova, length live there
 * @kind: see &enum vmlx_mr_kind
 * @lock: see below
 * @state: see &enum vmlx_mr_state
 * @access: IB_ACCESS_* flags in force
 * @key: the key in force (lkey == rkey); the ULP may already have
 *	changed ibmr.lkey and ibmr.rkey for its next registration
 * @iova: first address of the region in force
 * @length: its length
 * @page_shift: log2 of the page size of the registration in force
 * @page_off: offset of the first byte in @pages[0]
 * @index: its slot in vmlx_dev.mrs, the key without the variant byte
 * @pages: for a fast-reg MR, the kernel virtual address of each page
 * @umem: for a user MR, the pinned pages
 * @max_pages: room in @pages
 * @npages: pages mapped by the last ib_map_mr_sg()
 * @map_page_off: offset of the first byte in @pages[0] for that mapping
 * @users: one for the MR itself plus one per packet using it; dereg
 *	waits for the packets
 * @released: completed when @users drops to zero
 * @rcu: frees the MR after a grace period, for lockless key lookups
 *
 * The ULP owns ibmr: ib_map_mr_sg() and ib_update_fast_reg_key() change it
 * whenever they like.  The registration in force is what vmlx_mr_fast_reg()
 * copied from it (@key, @access, @iova, @length, @page_shift, @page_off).
 */
struct vmlx_mr {
	struct ib_mr		ibmr;
	enum vmlx_mr_kind	kind;
	/* protects state, access, key, iova, length, page_shift, page_off */
	spinlock_t		lock;
	enum vmlx_mr_state	state;
	int			access;
	u32			key;
	u64			iova;
	u64			length;
	u32			page_shift;
	u32			page_off;
	u32			index;
	u64			*pages;
	struct ib_umem		*umem;
	u32			max_pages;
	u32			npages;
	u32			map_page_off;
	refcount_t		users;
	struct completion	released;
	struct rcu_head		rcu;
};

static inline struct vmlx_mr *to_vmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct vmlx_mr, ibmr);
}

struct ib_mr *vmlx_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *vmlx_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg);
int vmlx_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
struct ib_mr *vmlx_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access,
			       struct ib_udata *udata);
int vmlx_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* Which key of an MR a lookup matches. */
enum vmlx_key_type {
	VMLX_LKEY,
	VMLX_RKEY,
};

struct vmlx_mr *vmlx_mr_get(struct vmlx_dev *vdev, struct ib_pd *pd, u32 key,
			    enum vmlx_key_type type, u64 iova, u64 len,
			    int access, int *err);
void vmlx_mr_put(struct vmlx_mr *mr);

enum vmlx_copy_dir {
	VMLX_TO_MR,		/* buffer -> memory region */
	VMLX_FROM_MR,		/* memory region -> buffer */
};

void vmlx_mr_copy(struct vmlx_mr *mr, u64 iova, void *buf, u32 len,
		  enum vmlx_copy_dir dir);
void *vmlx_mr_atomic_addr(struct vmlx_mr *mr, u64 iova);
int vmlx_sge_copy(struct vmlx_dev *vdev, struct ib_pd *pd,
		  const struct rxe_sge *sge, u32 num_sge, u32 offset,
		  void *buf, u32 len, enum vmlx_copy_dir dir);
int vmlx_sge_copy_payload(struct vmlx_dev *vdev, struct ib_pd *pd,
			  const struct rxe_sge *sge, u32 num_sge, u32 offset,
			  struct sk_buff *skb);
void vmlx_mr_copy_payload(struct vmlx_mr *mr, u64 iova,
			  struct sk_buff *skb);
int vmlx_sge_attach(struct vmlx_dev *vdev, struct ib_pd *pd,
		    const struct rxe_sge *sge, u32 num_sge, u32 offset,
		    struct sk_buff *skb, u32 len);
int vmlx_mr_attach(struct vmlx_mr *mr, u64 iova, struct sk_buff *skb,
		   u32 len);
int vmlx_mr_fast_reg(struct vmlx_dev *vdev, struct ib_pd *pd,
		     struct ib_mr *ibmr, u32 key, int access);
int vmlx_mr_invalidate(struct vmlx_dev *vdev, struct ib_pd *pd, u32 key);

/* ------------------------------------------------------------------ */
/* CQs and SRQs (vmlx_cq.c, vmlx_srq.c)                                */
/* ------------------------------------------------------------------ */

/**
 * struct vmlx_cq - a completion queue
 * @ibcq: the core's CQ
 * @q: the ring; a kernel CQ holds struct ib_wc in its slots, a user CQ
 *	struct ib_uverbs_wc
 * @lock: see below
 * @notify: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP while armed, else 0
 * @overflow: a completion was lost because the ring was full
 */
struct vmlx_cq {
	struct ib_cq		ibcq;
	struct vmlx_queue	q;
	/* protects the ring (both ends for a kernel CQ) and notify */
	spinlock_t		lock;
	u8			notify;
	bool			overflow;
};

static inline struct vmlx_cq *to_vcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct vmlx_cq, ibcq);
}

int vmlx_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata);
int vmlx_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int vmlx_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vmlx_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int vmlx_cq_post(struct vmlx_cq *cq, const struct ib_wc *wc, bool solicited);

/**
 * struct vmlx_srq - a shared receive queue
 * @ibsrq: the core's SRQ
 * @rq: its receive queue
 * @limit: the armed limit, 0 when not armed
 * @srq_num: a user SRQ's number in vmlx_dev.srqs, 0 for a kernel SRQ
 */
struct vmlx_srq {
	struct ib_srq		ibsrq;
	struct vmlx_rq		rq;
	u32			limit;
	u32			srq_num;
};

static inline struct vmlx_srq *to_vsrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct vmlx_srq, ibsrq);
}

int vmlx_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		    struct ib_udata *udata);
int vmlx_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int vmlx_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int vmlx_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int vmlx_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
bool vmlx_srq_pop(struct vmlx_srq *srq, struct rxe_recv_wqe *wqe);

/* ------------------------------------------------------------------ */
/* QPs (vmlx_qp.c) and the transport                                   */
/* ------------------------------------------------------------------ */

/* State of a send WQE in the kernel's private copy of the send queue. */
enum vmlx_wqe_state {
	VMLX_WQE_POSTED,	/* not started */
	VMLX_WQE_PENDING,	/* started: some packets sent */
	VMLX_WQE_SENT,		/* every packet sent, waiting for the answer */
	VMLX_WQE_DONE,		/* finished; status says how */
};

/**
 * struct vmlx_sq - a send queue
 * @q: the ring of struct rxe_send_wqe
 * @lock: see below
 * @shadow: the kernel's private copies of the WQEs it has fetched, one
 *	slot of the same size per ring slot; the transport works on these,
 *	never on the ring that a user process can rewrite under it
 * @max_wr: capacity
 * @max_sge: gather entries per WQE
 * @max_inline: inline bytes per WQE
 */
struct vmlx_sq {
	struct vmlx_queue	q;
	/* protects q.peer_index, for kernel posters */
	spinlock_t		lock;
	void			*shadow;
	u32			max_wr;
	u32			max_sge;
	u32			max_inline;
};

/*
 * The address of a UD send WQE, resolved from its AH when the WQE is
 * fetched (a process may destroy the AH as soon as it has posted), kept
 * in the room of ud.av of the private shadow copy.
 */
static inline struct vmlx_av *vmlx_wqe_av(struct rxe_send_wqe *wqe)
{
	BUILD_BUG_ON(sizeof(struct vmlx_av) > sizeof(wqe->wr.wr.ud.av));
	BUILD_BUG_ON(offsetof(struct rxe_send_wqe, wr.wr.ud.av) %
		     __alignof__(struct vmlx_av));
	return (struct vmlx_av *)&wqe->wr.wr.ud.av;
}

static inline struct rxe_send_wqe *vmlx_sq_wqe(const struct vmlx_sq *sq,
					       u32 index)
{
	return sq->shadow + ((size_t)(index & sq->q.mask) <<
			     sq->q.log2_elem_size);
}

/**
 * struct vmlx_req - requester state
 * @psn: the next PSN to send
 * @sent_psn: the PSN after the highest one ever sent: a rewind moves @psn
 *	back, not this; answers are expected up to it
 * @next: SQ index of the WQE being sent, or of the next to start
 * @fetched: SQ index up to which WQEs have been copied to the shadow
 * @rd_atomic: READ and atomic requests outstanding
 * @flush_left: in ERR, send WQEs the flush pass under way has yet to
 *	complete (vmlx_flush_pass())
 * @sqd_notified: the SQ drained event of the current SQD was sent
 */
struct vmlx_req {
	u32			psn;
	u32			sent_psn;
	u32			next;
	u32			fetched;
	u32			rd_atomic;
	u32			flush_left;
	bool			sqd_notified;
};

/**
 * struct vmlx_comp - completer state
 * @psn: the oldest PSN not yet acknowledged (or read response expected)
 * @retry_left: transport retries left (retry_cnt) before RETRY_EXC_ERR
 * @rnr_left: RNR retries left (7 means without limit)
 * @timer: the retransmission timer (the QP's local ACK timeout)
 * @rnr_timer: the RNR back-off timer
 * @timed_out: set by @timer, handled in the QP work
 * @rnr_wait: waiting for @rnr_timer; the requester sends nothing new
 * @rnr_done: set by @rnr_timer, handled in the QP work
 * @rewind_psn: the PSN the requester was last sent back to, so that a run
 *	of out-of-order read responses rewinds it only once
 * @rewind_valid: @rewind_psn holds a value
 * @probing: a local ACK timeout sent the requester back: it sends only
 *	the oldest unacknowledged packet, asking for an ACK, until an answer
 *	in the window comes
 */
struct vmlx_comp {
	u32			psn;
	u8			retry_left;
	u8			rnr_left;
	struct timer_list	timer;
	struct timer_list	rnr_timer;
	bool			timed_out;
	bool			rnr_wait;
	bool			rnr_done;
	u32			rewind_psn;
	bool			rewind_valid;
	bool			probing;
};

/**
 * struct vmlx_resp_res - a READ or atomic request the responder answered,
 * kept to answer it again if it comes back as a duplicate
 * @opcode: the request's opcode, 0 if the slot is free
 * @first_psn: the request's PSN
 * @last_psn: the PSN of its last response
 * @va: the requested address
 * @rkey: the requested R_Key
 * @length: the requested length (READ)
 * @orig: the value the atomic found (atomic)
 */
struct vmlx_resp_res {
	u8			opcode;
	u32			first_psn;
	u32			last_psn;
	u64			va;
	u32			rkey;
	u32			length;
	u64			orig;
};

/**
 * struct vmlx_resp_read - the RDMA READ responses being sent
 * @active: a stream is under way
 * @psn: PSN of the next response
 * @first_psn: PSN of the stream's first response (FIRST or ONLY)
 * @last_psn: PSN of its last response (LAST or ONLY)
 * @va: address of the next response's data
 * @rkey: the R_Key of the request
 * @left: bytes still to send
 */
struct vmlx_resp_read {
	bool			active;
	u32			psn;
	u32			first_psn;
	u32			last_psn;
	u64			va;
	u32			rkey;
	u32			left;
};

/**
 * struct vmlx_resp - responder state
 * @psn: the expected PSN (ePSN)
 * @msn: the message sequence number, of the last message completed
 * @nak_sent: a PSN sequence error NAK was sent for the current gap
 * @in_msg: opcode family of the message in progress: 0, %VMLX_OPF_SEND
 *	or %VMLX_OPF_WRITE
 * @wqe_valid: @wqe holds a receive WQE taken from the RQ or SRQ
 * @wqe: the receive WQE the current or next SEND lands in (a snapshot;
 *	room for the RQ's or SRQ's max_sge)
 * @offset: bytes of the current message received so far
 * @va: RDMA WRITE in progress: the next address to write
 * @rkey: RDMA WRITE in progress: its R_Key
 * @resid: RDMA WRITE in progress: bytes still to come
 * @res: remembered READ and atomic requests, max_dest_rd_atomic of them
 * @res_num: slots in @res
 * @res_next: the slot the next one goes in
 * @read: the READ responses being sent, a slice per run of the work item
 * @waiting: requests that came in behind @read, to execute after it;
 *	only touched in the work item, so its own lock is not used
 * @flush_left: in ERR, receive WQEs the flush pass under way has yet to
 *	complete (vmlx_flush_pass())
 * @last_wqe: in ERR, with an SRQ: the Last WQE Reached event was reported
 */
struct vmlx_resp {
	u32			psn;
	u32			msn;
	bool			nak_sent;
	u32			in_msg;
	bool			wqe_valid;
	struct rxe_recv_wqe	*wqe;
	u32			offset;
	u64			va;
	u32			rkey;
	u32			resid;
	struct vmlx_resp_res	*res;
	u32			res_num;
	u32			res_next;
	struct vmlx_resp_read	read;
	struct sk_buff_head	waiting;
	u32			flush_left;
	bool			last_wqe;
};

/**
 * struct vmlx_qp - a queue pair
 * @ibqp: the core's QP
 * @vdev: its HCA
 * @lock: see below
 * @state: the QP's state, as the transport sees it
 * @attr: attributes in force: path_mtu, qkey, dest_qp_num, access flags,
 *	pkey_index, port_num, timeout, retry_cnt, rnr_retry,
 *	min_rnr_timer, max_rd_atomic, max_dest_rd_atomic, sq_psn, rq_psn
 * @av: the primary path (RC, UC)
 * @mtu: path MTU in bytes
 * @sig_all: every send WR completes, signalled or not
 * @sq: send queue
 * @rq: receive queue, unused with an SRQ
 * @srq: the SRQ, or NULL
 * @scq: send CQ
 * @rcq: receive CQ
 * @rx_queue: packets for the QP, not yet processed
 * @work: the QP's work item, which runs the transport
 * @prof_kicked: when @work was last queued, while the profile is on
 *	(vmlx_prof.c); 0 once a run has taken it
 * @handoff: a QP the current run of @work sent packets to, referenced,
 *	that it runs itself at its end (vmlx_qp_hand_off()); only the
 *	thread running @work touches it
 * @req: requester state
 * @comp: completer state
 * @resp: responder state
 * @refs: lookups in flight (packet delivery) plus one for the QP itself
 * @released: completed when @refs drops to zero
 * @dying: destroy_qp has begun; nothing new is started
 * @mcast_list: multicast groups attached (vmlx_mcast.c)
 */
struct vmlx_qp {
	struct ib_qp		ibqp;
	struct vmlx_dev		*vdev;
	/* serialises the transport of the QP with its state changes */
	struct mutex		lock;
	enum ib_qp_state	state;
	struct ib_qp_attr	attr;
	struct vmlx_av		av;
	u32			mtu;
	bool			sig_all;
	struct vmlx_sq		sq;
	struct vmlx_rq		rq;
	struct vmlx_srq		*srq;
	struct vmlx_cq		*scq;
	struct vmlx_cq		*rcq;
	struct sk_buff_head	rx_queue;
	struct work_struct	work;
	u64			prof_kicked;
	struct vmlx_qp		*handoff;
	struct vmlx_req		req;
	struct vmlx_comp	comp;
	struct vmlx_resp	resp;
	refcount_t		refs;
	struct completion	released;
	bool			dying;
	struct list_head	mcast_list;
};

/* The counters of the port of @qp, for its transport events. */
static inline struct vmlx_port_counters *vmlx_qp_cnt(struct vmlx_qp *qp)
{
	return &vmlx_port(qp->vdev, qp->attr.port_num)->cnt;
}

static inline struct vmlx_qp *to_vqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct vmlx_qp, ibqp);
}

static inline bool vmlx_qp_is_ud(const struct vmlx_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD ||
	       qp->ibqp.qp_type == IB_QPT_GSI ||
	       qp->ibqp.qp_type == IB_QPT_SMI;
}

int vmlx_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		   struct ib_udata *udata);
int vmlx_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int vmlx_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init);
int vmlx_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int vmlx_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int vmlx_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);

struct vmlx_qp *vmlx_qp_get(struct vmlx_port *port, u32 qpn);
void vmlx_qp_put(struct vmlx_qp *qp);
void vmlx_qp_rx(struct vmlx_qp *qp, struct sk_buff *skb);
void vmlx_qp_kick(struct vmlx_qp *qp);
void vmlx_qp_error(struct vmlx_qp *qp);
void vmlx_qp_event(struct vmlx_qp *qp, enum ib_event_type type);
bool vmlx_sq_fetch(struct vmlx_qp *qp);
bool vmlx_qp_from_peer(struct vmlx_qp *qp, struct sk_buff *skb);
u16 vmlx_qp_pkey(struct vmlx_qp *qp);

/* Static without KUnit, for the suites (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(VMLX_KUNIT_SUITE)
enum ib_wc_status vmlx_user_wqe_check(enum ib_qp_type type,
				      const struct vmlx_sq *sq,
				      struct rxe_send_wqe *wqe);
#endif

/* vmlx_req.c: returns true if it did anything */
bool vmlx_req_run(struct vmlx_qp *qp);
void vmlx_req_send_posted(struct vmlx_qp *qp);
void vmlx_req_rewind(struct vmlx_qp *qp, u32 psn);
void vmlx_req_catch_up(struct vmlx_qp *qp);

/* vmlx_comp.c */
void vmlx_comp_rcv(struct vmlx_qp *qp, struct sk_buff *skb);
bool vmlx_comp_run(struct vmlx_qp *qp);
void vmlx_comp_arm_timer(struct vmlx_qp *qp);
void vmlx_comp_init(struct vmlx_qp *qp);
void vmlx_comp_stop(struct vmlx_qp *qp);

/* vmlx_resp.c */
int vmlx_resp_init(struct vmlx_qp *qp, gfp_t gfp);
void vmlx_resp_reset(struct vmlx_qp *qp);
void vmlx_resp_cleanup(struct vmlx_qp *qp);
void vmlx_resp_rcv(struct vmlx_qp *qp, struct sk_buff *skb);
bool vmlx_resp_run(struct vmlx_qp *qp, unsigned int *budget);
void vmlx_resp_flush_held(struct vmlx_qp *qp);
void vmlx_resp_srq_drained(struct vmlx_qp *qp);
bool vmlx_resp_flush_next(struct vmlx_qp *qp);

#endif /* VMLX_H */
