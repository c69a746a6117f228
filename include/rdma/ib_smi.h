/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Subnet management packets (SMPs, IBA 14.2): the layout shared by
 * LID-routed (class 0x01) and directed-route (class 0x81) SMPs, the
 * attribute IDs and the layouts of the attributes the SMA answers.
 *
 * Names and values follow Linux 6.1.
 */
#ifndef IB_SMI_H
#define IB_SMI_H

#include <rdma/ib_mad.h>

#define IB_SMP_DATA_SIZE			64
#define IB_SMP_MAX_PATH_HOPS			64

#ifndef IB_LID_PERMISSIVE
/* the permissive LID, big endian as it appears in SMPs */
#define IB_LID_PERMISSIVE			cpu_to_be16(0xFFFF)
#endif

/**
 * struct ib_smp - a subnet management packet, 256 bytes
 * @base_version: 1
 * @mgmt_class: 0x01 (LID routed) or 0x81 (directed route)
 * @class_version: 1
 * @method: method
 * @status: status; bit 15 is the direction bit D of DR SMPs
 * @hop_ptr: DR: index into the paths of the current hop
 * @hop_cnt: DR: number of hops of the directed part, at most 63
 * @tid: transaction ID
 * @attr_id: attribute, IB_SMP_ATTR_*
 * @resv: reserved
 * @attr_mod: attribute modifier
 * @mkey: M_Key
 * @dr_slid: DR: LID of the requester's end of the LID-routed part, or
 *	permissive
 * @dr_dlid: DR: LID of the destination's end of the LID-routed part, or
 *	permissive
 * @reserved: reserved
 * @data: the attribute
 * @initial_path: DR: egress port of each hop of the request
 * @return_path: DR: ingress port of each hop, recorded on the way
 */
struct ib_smp {
	u8	base_version;
	u8	mgmt_class;
	u8	class_version;
	u8	method;
	__be16	status;
	u8	hop_ptr;
	u8	hop_cnt;
	__be64	tid;
	__be16	attr_id;
	__be16	resv;
	__be32	attr_mod;
	__be64	mkey;
	__be16	dr_slid;
	__be16	dr_dlid;
	u8	reserved[28];
	u8	data[IB_SMP_DATA_SIZE];
	u8	initial_path[IB_SMP_MAX_PATH_HOPS];
	u8	return_path[IB_SMP_MAX_PATH_HOPS];
} __packed;

#define IB_SMP_DIRECTION			cpu_to_be16(0x8000)

/* Subnet management attributes */
#define IB_SMP_ATTR_NOTICE			cpu_to_be16(0x0002)
#define IB_SMP_ATTR_NODE_DESC			cpu_to_be16(0x0010)
#define IB_SMP_ATTR_NODE_INFO			cpu_to_be16(0x0011)
#define IB_SMP_ATTR_SWITCH_INFO			cpu_to_be16(0x0012)
#define IB_SMP_ATTR_GUID_INFO			cpu_to_be16(0x0014)
#define IB_SMP_ATTR_PORT_INFO			cpu_to_be16(0x0015)
#define IB_SMP_ATTR_PKEY_TABLE			cpu_to_be16(0x0016)
#define IB_SMP_ATTR_SL_TO_VL_TABLE		cpu_to_be16(0x0017)
#define IB_SMP_ATTR_VL_ARB_TABLE		cpu_to_be16(0x0018)
#define IB_SMP_ATTR_LINEAR_FORWARD_TABLE	cpu_to_be16(0x0019)
#define IB_SMP_ATTR_RANDOM_FORWARD_TABLE	cpu_to_be16(0x001A)
#define IB_SMP_ATTR_MCAST_FORWARD_TABLE		cpu_to_be16(0x001B)
#define IB_SMP_ATTR_SM_INFO			cpu_to_be16(0x0020)
#define IB_SMP_ATTR_VENDOR_DIAG			cpu_to_be16(0x0030)
#define IB_SMP_ATTR_LED_INFO			cpu_to_be16(0x0031)
#define IB_SMP_ATTR_VENDOR_MASK			cpu_to_be16(0xFF00)

/**
 * struct ib_port_info - the PortInfo attribute, 64 bytes
 * @mkey: M_Key
 * @gid_prefix: GID prefix
 * @lid: base LID
 * @sm_lid: master SM LID
 * @cap_mask: capability mask, enum ib_port_capability_mask_bits
 * @diag_code: diagnostic code
 * @mkey_lease_period: M_Key lease period
 * @local_port_num: port that received the SMP
 * @link_width_enabled: LinkWidthEnabled
 * @link_width_supported: LinkWidthSupported
 * @link_width_active: LinkWidthActive
 * @linkspeed_portstate: LinkSpeedSupported[7:4], PortState[3:0]
 * @portphysstate_linkdown: PortPhysicalState[7:4], LinkDownDefaultState[3:0]
 * @mkeyprot_resv_lmc: M_KeyProtectBits[7:6], reserved[5:3], LMC[2:0]
 * @linkspeedactive_enabled: LinkSpeedActive[7:4], LinkSpeedEnabled[3:0]
 * @neighbormtu_mastersmsl: NeighborMTU[7:4], MasterSMSL[3:0]
 * @vlcap_inittype: VLCap[7:4], InitType[3:0]
 * @vl_high_limit: VLHighLimit
 * @vl_arb_high_cap: VLArbitrationHighCap
 * @vl_arb_low_cap: VLArbitrationLowCap
 * @inittypereply_mtucap: InitTypeReply[7:4], MTUCap[3:0]
 * @vlstallcnt_hoqlife: VLStallCount[7:5], HOQLife[4:0]
 * @operationalvl_pei_peo_fpi_fpo: OperationalVLs[7:4], PartitionEnforcement
 *	Inbound/Outbound[3:2], FilterRawInbound/Outbound[1:0]
 * @mkey_violations: M_KeyViolations
 * @pkey_violations: P_KeyViolations
 * @qkey_violations: Q_KeyViolations
 * @guid_cap: GUIDCap
 * @clientrereg_resv_subnetto: ClientReregister[7], reserved[6:5],
 *	SubnetTimeOut[4:0]
 * @resv_resptimevalue: reserved[7:5], RespTimeValue[4:0]
 * @localphyerrors_overrunerrors: LocalPhyErrors[7:4], OverrunErrors[3:0]
 * @max_credit_hint: MaxCreditHint
 * @resv: reserved
 * @link_roundtrip_latency: LinkRoundTripLatency
 */
struct ib_port_info {
	__be64 mkey;
	__be64 gid_prefix;
	__be16 lid;
	__be16 sm_lid;
	__be32 cap_mask;
	__be16 diag_code;
	__be16 mkey_lease_period;
	u8 local_port_num;
	u8 link_width_enabled;
	u8 link_width_supported;
	u8 link_width_active;
	u8 linkspeed_portstate;
	u8 portphysstate_linkdown;
	u8 mkeyprot_resv_lmc;
	u8 linkspeedactive_enabled;
	u8 neighbormtu_mastersmsl;
	u8 vlcap_inittype;
	u8 vl_high_limit;
	u8 vl_arb_high_cap;
	u8 vl_arb_low_cap;
	u8 inittypereply_mtucap;
	u8 vlstallcnt_hoqlife;
	u8 operationalvl_pei_peo_fpi_fpo;
	__be16 mkey_violations;
	__be16 pkey_violations;
	__be16 qkey_violations;
	u8 guid_cap;
	u8 clientrereg_resv_subnetto;
	u8 resv_resptimevalue;
	u8 localphyerrors_overrunerrors;
	__be16 max_credit_hint;
	u8 resv;
	u8 link_roundtrip_latency[3];
};

/**
 * struct ib_node_info - the NodeInfo attribute, 40 bytes
 * @base_version: 1
 * @class_version: 1
 * @node_type: 1 CA, 2 switch, 3 router
 * @num_ports: number of physical ports
 * @sys_guid: system image GUID
 * @node_guid: node GUID
 * @port_guid: GUID of the port that received the SMP
 * @partition_cap: P_Key table size
 * @device_id: device ID
 * @revision: device revision
 * @local_port_num: number of the port that received the SMP
 * @vendor_id: vendor OUI
 */
struct ib_node_info {
	u8 base_version;
	u8 class_version;
	u8 node_type;
	u8 num_ports;
	__be64 sys_guid;
	__be64 node_guid;
	__be64 port_guid;
	__be16 partition_cap;
	__be16 device_id;
	__be32 revision;
	u8 local_port_num;
	u8 vendor_id[3];
} __packed;

/**
 * struct ib_vl_weight_elem - one entry of a VLArbitrationTable
 * @vl: VL, low 4 bits
 * @weight: weight
 */
struct ib_vl_weight_elem {
	u8	vl;
	u8	weight;
};

/**
 * ib_get_smp_direction - the direction bit of a directed-route SMP
 * @smp: the SMP
 *
 * Return: 1 for a response travelling back along the return path, 0 for a
 * request.
 */
static inline u8 ib_get_smp_direction(struct ib_smp *smp)
{
	return (smp->status & IB_SMP_DIRECTION) == IB_SMP_DIRECTION;
}

/* Trap numbers (Notice:TrapNumber) */
#define IB_NOTICE_TRAP_LLI_THRESH	cpu_to_be16(129)
#define IB_NOTICE_TRAP_EBO_THRESH	cpu_to_be16(130)
#define IB_NOTICE_TRAP_FLOW_UPDATE	cpu_to_be16(131)
#define IB_NOTICE_TRAP_CAP_MASK_CHG	cpu_to_be16(144)
#define IB_NOTICE_TRAP_SYS_GUID_CHG	cpu_to_be16(145)
#define IB_NOTICE_TRAP_BAD_MKEY		cpu_to_be16(256)
#define IB_NOTICE_TRAP_BAD_PKEY		cpu_to_be16(257)
#define IB_NOTICE_TRAP_BAD_QKEY		cpu_to_be16(258)

/* Trap 144 change_flags */
#define IB_NOTICE_TRAP_LSE_CHG		0x04	/* LinkSpeedEnabled changed */
#define IB_NOTICE_TRAP_LWE_CHG		0x02	/* LinkWidthEnabled changed */
#define IB_NOTICE_TRAP_NODE_DESC_CHG	0x01

/* Trap 256 dr_trunc_hop */
#define IB_NOTICE_TRAP_DR_NOTICE	0x80
#define IB_NOTICE_TRAP_DR_TRUNC		0x40

/**
 * ib_init_query_mad - prepare a LID-routed SubnGet()
 * @mad: the SMP to fill in
 */
static inline void ib_init_query_mad(struct ib_smp *mad)
{
	mad->base_version = IB_MGMT_BASE_VERSION;
	mad->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	mad->class_version = 1;
	mad->method = IB_MGMT_METHOD_GET;
}

#endif /* IB_SMI_H */
