/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Management datagrams (MADs): wire layouts (IBA chapter 13.4) and the
 * interface of the MAD layer of ib_core, through which kernel users send
 * and receive MADs on the special QPs 0 and 1 of a port.
 *
 * Names, values and signatures follow Linux 6.1 so that users written
 * against the upstream interface build unchanged.
 */
#ifndef IB_MAD_H
#define IB_MAD_H

#include <linux/bitops.h>
#include <linux/list.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/ib_user_mad.h>

/* Base versions */
#define IB_MGMT_BASE_VERSION			1
#define OPA_MGMT_BASE_VERSION			0x80
#define OPA_SM_CLASS_VERSION			0x80

/* Management classes */
#define IB_MGMT_CLASS_SUBN_LID_ROUTED		0x01
#define IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE	0x81
#define IB_MGMT_CLASS_SUBN_ADM			0x03
#define IB_MGMT_CLASS_PERF_MGMT			0x04
#define IB_MGMT_CLASS_BM			0x05
#define IB_MGMT_CLASS_DEVICE_MGMT		0x06
#define IB_MGMT_CLASS_CM			0x07
#define IB_MGMT_CLASS_SNMP			0x08
#define IB_MGMT_CLASS_DEVICE_ADM		0x10
#define IB_MGMT_CLASS_BOOT_MGMT			0x11
#define IB_MGMT_CLASS_BIS			0x12
#define IB_MGMT_CLASS_CONG_MGMT			0x21
#define IB_MGMT_CLASS_VENDOR_RANGE2_START	0x30
#define IB_MGMT_CLASS_VENDOR_RANGE2_END		0x4F

#define IB_OPENIB_OUI				(0x001405)

/* Management methods */
#define IB_MGMT_METHOD_GET			0x01
#define IB_MGMT_METHOD_SET			0x02
#define IB_MGMT_METHOD_GET_RESP			0x81
#define IB_MGMT_METHOD_SEND			0x03
#define IB_MGMT_METHOD_TRAP			0x05
#define IB_MGMT_METHOD_REPORT			0x06
#define IB_MGMT_METHOD_REPORT_RESP		0x86
#define IB_MGMT_METHOD_TRAP_REPRESS		0x07

/* the R bit of the method: set in every response */
#define IB_MGMT_METHOD_RESP			0x80
#define IB_BM_ATTR_MOD_RESP			cpu_to_be32(1)

#define IB_MGMT_MAX_METHODS			128

/* MAD status (host order; the field is big endian on the wire) */
#define IB_MGMT_MAD_STATUS_SUCCESS			0x0000
#define IB_MGMT_MAD_STATUS_BUSY				0x0001
#define IB_MGMT_MAD_STATUS_REDIRECT_REQD		0x0002
#define IB_MGMT_MAD_STATUS_BAD_VERSION			0x0004
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD		0x0008
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB	0x000c
#define IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE		0x001c

/* RMPP (IBA 13.6) */
#define IB_MGMT_RMPP_VERSION			1

#define IB_MGMT_RMPP_TYPE_DATA			1
#define IB_MGMT_RMPP_TYPE_ACK			2
#define IB_MGMT_RMPP_TYPE_STOP			3
#define IB_MGMT_RMPP_TYPE_ABORT			4

#define IB_MGMT_RMPP_FLAG_ACTIVE		1
#define IB_MGMT_RMPP_FLAG_FIRST			BIT(1)
#define IB_MGMT_RMPP_FLAG_LAST			BIT(2)

#define IB_MGMT_RMPP_NO_RESPTIME		0x1F

#define	IB_MGMT_RMPP_STATUS_SUCCESS		0
#define	IB_MGMT_RMPP_STATUS_RESX		1
#define	IB_MGMT_RMPP_STATUS_ABORT_MIN		118
#define	IB_MGMT_RMPP_STATUS_T2L			118
#define	IB_MGMT_RMPP_STATUS_BAD_LEN		119
#define	IB_MGMT_RMPP_STATUS_BAD_SEG		120
#define	IB_MGMT_RMPP_STATUS_BADT		121
#define	IB_MGMT_RMPP_STATUS_W2S			122
#define	IB_MGMT_RMPP_STATUS_S2B			123
#define	IB_MGMT_RMPP_STATUS_BAD_STATUS		124
#define	IB_MGMT_RMPP_STATUS_UNV			125
#define	IB_MGMT_RMPP_STATUS_TMR			126
#define	IB_MGMT_RMPP_STATUS_UNSPEC		127
#define	IB_MGMT_RMPP_STATUS_ABORT_MAX		127

/* The special QPs and the well-known Q_Key of QP1 */
#define IB_QP0		0
#define IB_QP1		cpu_to_be32(1)
#define IB_QP1_QKEY	0x80010000
#define IB_QP_SET_QKEY	0x80000000

#define IB_DEFAULT_PKEY_PARTIAL 0x7FFF
#define IB_DEFAULT_PKEY_FULL	0xFFFF

/* Notice (trap) generic types and producer types */
#define IB_NOTICE_TYPE_FATAL	0x80
#define IB_NOTICE_TYPE_URGENT	0x81
#define IB_NOTICE_TYPE_SECURITY	0x82
#define IB_NOTICE_TYPE_SM	0x83
#define IB_NOTICE_TYPE_INFO	0x84

#define IB_NOTICE_PROD_CA		cpu_to_be16(1)
#define IB_NOTICE_PROD_SWITCH		cpu_to_be16(2)
#define IB_NOTICE_PROD_ROUTER		cpu_to_be16(3)
#define IB_NOTICE_PROD_CLASS_MGR	cpu_to_be16(4)

/* Header and data sizes of the MAD flavours, in bytes */
enum {
	IB_MGMT_MAD_HDR = 24,
	IB_MGMT_MAD_DATA = 232,
	IB_MGMT_RMPP_HDR = 36,
	IB_MGMT_RMPP_DATA = 220,
	IB_MGMT_VENDOR_HDR = 40,
	IB_MGMT_VENDOR_DATA = 216,
	IB_MGMT_SA_HDR = 56,
	IB_MGMT_SA_DATA = 200,
	IB_MGMT_DEVICE_HDR = 64,
	IB_MGMT_DEVICE_DATA = 192,
	IB_MGMT_MAD_SIZE = IB_MGMT_MAD_HDR + IB_MGMT_MAD_DATA,
	OPA_MGMT_MAD_DATA = 2024,
	OPA_MGMT_RMPP_DATA = 2012,
	OPA_MGMT_MAD_SIZE = IB_MGMT_MAD_HDR + OPA_MGMT_MAD_DATA,
};

/* process_mad() flags */
enum {
	IB_MAD_IGNORE_MKEY	= 1,
	IB_MAD_IGNORE_BKEY	= 2,
	IB_MAD_IGNORE_ALL	= IB_MAD_IGNORE_MKEY | IB_MAD_IGNORE_BKEY,
};

/* process_mad() results: FAILURE or SUCCESS, ORed with REPLY or CONSUMED */
enum {
	IB_MAD_RESULT_FAILURE  = 0,
	IB_MAD_RESULT_SUCCESS  = 1 << 0,
	IB_MAD_RESULT_REPLY    = 1 << 1,
	IB_MAD_RESULT_CONSUMED = 1 << 2,
	IB_MAD_RESULT_CONSUMED_REPLY_SUCCESS = IB_MAD_RESULT_SUCCESS |
					       IB_MAD_RESULT_REPLY |
					       IB_MAD_RESULT_CONSUMED,
};

/**
 * struct ib_grh - the global route header (IBA 8.3), 40 bytes, as it lands
 *	in the first bytes of a UD receive buffer
 * @version_tclass_flow: IPVer[31:28], TClass[27:20], FlowLabel[19:0]
 * @paylen: payload length
 * @next_hdr: next header (0x1B for an IBA transport header)
 * @hop_limit: hop limit
 * @sgid: source GID
 * @dgid: destination GID
 */
struct ib_grh {
	__be32		version_tclass_flow;
	__be16		paylen;
	u8		next_hdr;
	u8		hop_limit;
	union ib_gid	sgid;
	union ib_gid	dgid;
};

/**
 * struct ib_mad_hdr - the common MAD header, 24 bytes
 * @base_version: 1 for IB
 * @mgmt_class: management class
 * @class_version: version of the class
 * @method: method; bit 7 marks a response
 * @status: status, IB_MGMT_MAD_STATUS_* plus class-specific bits
 * @class_specific: class specific (hop pointer and count in DR SMPs)
 * @tid: transaction ID; the upper 32 bits identify the sending agent
 * @attr_id: attribute
 * @resv: reserved
 * @attr_mod: attribute modifier
 */
struct ib_mad_hdr {
	u8	base_version;
	u8	mgmt_class;
	u8	class_version;
	u8	method;
	__be16	status;
	__be16	class_specific;
	__be64	tid;
	__be16	attr_id;
	__be16	resv;
	__be32	attr_mod;
};

/**
 * struct ib_rmpp_hdr - the RMPP header, bytes 24..35 of RMPP classes
 * @rmpp_version: 1, or 0 if the MAD does not use RMPP
 * @rmpp_type: IB_MGMT_RMPP_TYPE_*
 * @rmpp_rtime_flags: RRespTime[7:3], flags IB_MGMT_RMPP_FLAG_*[2:0]
 * @rmpp_status: IB_MGMT_RMPP_STATUS_*
 * @seg_num: segment number, from 1
 * @paylen_newwin: payload length (DATA) or new window last (ACK)
 */
struct ib_rmpp_hdr {
	u8	rmpp_version;
	u8	rmpp_type;
	u8	rmpp_rtime_flags;
	u8	rmpp_status;
	__be32	seg_num;
	__be32	paylen_newwin;
};

typedef u64 __bitwise ib_sa_comp_mask;

#define IB_SA_COMP_MASK(n) ((__force ib_sa_comp_mask)cpu_to_be64(1ull << (n)))

/**
 * struct ib_sa_hdr - the SA specific header, bytes 36..55 of an SA MAD
 * @sm_key: SM_Key
 * @attr_offset: record size in units of 8 bytes (GetTable responses)
 * @reserved: reserved
 * @comp_mask: which record fields are significant
 *
 * Packed because @comp_mask lies at offset 12, which would otherwise be
 * aligned to 16.
 */
struct ib_sa_hdr {
	__be64			sm_key;
	__be16			attr_offset;
	__be16			reserved;
	ib_sa_comp_mask		comp_mask;
} __packed;

/**
 * struct ib_mad - a MAD, 256 bytes
 * @mad_hdr: common header
 * @data: class-specific part
 */
struct ib_mad {
	struct ib_mad_hdr	mad_hdr;
	u8			data[IB_MGMT_MAD_DATA];
};

/**
 * struct opa_mad - an OPA MAD (declared for source compatibility only)
 * @mad_hdr: common header
 * @data: class-specific part
 */
struct opa_mad {
	struct ib_mad_hdr	mad_hdr;
	u8			data[OPA_MGMT_MAD_DATA];
};

/**
 * struct ib_rmpp_mad - a MAD of a class that may use RMPP
 * @mad_hdr: common header
 * @rmpp_hdr: RMPP header
 * @data: class-specific part
 */
struct ib_rmpp_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	u8			data[IB_MGMT_RMPP_DATA];
};

/**
 * struct ib_sa_mad - a subnet administration MAD
 * @mad_hdr: common header
 * @rmpp_hdr: RMPP header
 * @sa_hdr: SA header
 * @data: the record(s)
 */
struct ib_sa_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	struct ib_sa_hdr	sa_hdr;
	u8			data[IB_MGMT_SA_DATA];
} __packed;

/**
 * struct ib_vendor_mad - a MAD of vendor range 2 (classes 0x30..0x4F)
 * @mad_hdr: common header
 * @rmpp_hdr: RMPP header
 * @reserved: reserved
 * @oui: the vendor's OUI, which selects the receiving agent
 * @data: vendor-specific part
 */
struct ib_vendor_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	u8			reserved;
	u8			oui[3];
	u8			data[IB_MGMT_VENDOR_DATA];
};

#define IB_MGMT_CLASSPORTINFO_ATTR_ID	cpu_to_be16(0x0001)

#define IB_CLASS_PORT_INFO_RESP_TIME_MASK	0x1F
#define IB_CLASS_PORT_INFO_RESP_TIME_FIELD_SIZE 5

/**
 * struct ib_class_port_info - the ClassPortInfo attribute, 72 bytes
 * @base_version: base version the class manager supports
 * @class_version: class version it supports
 * @capability_mask: class capabilities
 * @cap_mask2_resp_time: CapabilityMask2[31:5], RespTimeValue[4:0]
 * @redirect_gid: where to redirect requests
 * @redirect_tcslfl: TClass[31:24], SL[23:20], FlowLabel[19:0]
 * @redirect_lid: redirect LID
 * @redirect_pkey: redirect P_Key
 * @redirect_qp: redirect QP, low 24 bits
 * @redirect_qkey: redirect Q_Key
 * @trap_gid: where to send traps
 * @trap_tcslfl: TClass[31:24], SL[23:20], FlowLabel[19:0]
 * @trap_lid: trap LID
 * @trap_pkey: trap P_Key
 * @trap_hlqp: HopLimit[31:24], QP[23:0]
 * @trap_qkey: trap Q_Key
 */
struct ib_class_port_info {
	u8			base_version;
	u8			class_version;
	__be16			capability_mask;
	__be32			cap_mask2_resp_time;
	u8			redirect_gid[16];
	__be32			redirect_tcslfl;
	__be16			redirect_lid;
	__be16			redirect_pkey;
	__be32			redirect_qp;
	__be32			redirect_qkey;
	u8			trap_gid[16];
	__be32			trap_tcslfl;
	__be16			trap_lid;
	__be16			trap_pkey;
	__be32			trap_hlqp;
	__be32			trap_qkey;
};

/* PortInfo:CapabilityMask bits: enum ib_port_capability_mask_bits, ib_verbs.h */

/* PortInfo:CapabilityMask2 bits */
enum ib_port_capability_mask2_bits {
	IB_PORT_SET_NODE_DESC_SUP		= 1 << 0,
	IB_PORT_EX_PORT_INFO_EX_SUP		= 1 << 1,
	IB_PORT_VIRT_SUP			= 1 << 2,
	IB_PORT_SWITCH_PORT_STATE_TABLE_SUP	= 1 << 3,
	IB_PORT_LINK_WIDTH_2X_SUP		= 1 << 4,
	IB_PORT_LINK_SPEED_HDR_SUP		= 1 << 5,
	IB_PORT_LINK_SPEED_NDR_SUP		= 1 << 10,
};

static inline u8 ib_get_cpi_resp_time(struct ib_class_port_info *cpi)
{
	return be32_to_cpu(cpi->cap_mask2_resp_time) &
	       IB_CLASS_PORT_INFO_RESP_TIME_MASK;
}

static inline void ib_set_cpi_resp_time(struct ib_class_port_info *cpi,
					u8 rtime)
{
	u32 v = be32_to_cpu(cpi->cap_mask2_resp_time);

	v &= ~IB_CLASS_PORT_INFO_RESP_TIME_MASK;
	v |= rtime & IB_CLASS_PORT_INFO_RESP_TIME_MASK;
	cpi->cap_mask2_resp_time = cpu_to_be32(v);
}

static inline u32 ib_get_cpi_capmask2(struct ib_class_port_info *cpi)
{
	return be32_to_cpu(cpi->cap_mask2_resp_time) >>
	       IB_CLASS_PORT_INFO_RESP_TIME_FIELD_SIZE;
}

static inline void ib_set_cpi_capmask2(struct ib_class_port_info *cpi,
				       u32 capmask2)
{
	u32 v = be32_to_cpu(cpi->cap_mask2_resp_time);

	v &= IB_CLASS_PORT_INFO_RESP_TIME_MASK;
	v |= capmask2 << IB_CLASS_PORT_INFO_RESP_TIME_FIELD_SIZE;
	cpi->cap_mask2_resp_time = cpu_to_be32(v);
}

/**
 * struct ib_mad_notice_attr - the Notice attribute (traps), 64 bytes
 * @generic_type: IsGeneric[7], Type[6:0] (IB_NOTICE_TYPE_*)
 * @prod_type_msb: producer type / vendor ID, bits 23:16
 * @prod_type_lsb: producer type / vendor ID, bits 15:0
 * @trap_num: trap number / device ID
 * @issuer_lid: LID of the issuer
 * @toggle_count: NoticeToggle[15], NoticeCount[14:0]
 * @details: trap-specific data
 */
struct ib_mad_notice_attr {
	u8 generic_type;
	u8 prod_type_msb;
	__be16 prod_type_lsb;
	__be16 trap_num;
	__be16 issuer_lid;
	__be16 toggle_count;
	union {
		struct {
			u8	details[54];
		} raw_data;
		struct {
			__be16	reserved;
			__be16	lid;
			u8	port_num;
		} __packed ntc_129_131;
		struct {
			__be16	reserved;
			__be16	lid;
			u8	reserved2;
			u8	local_changes;
			__be32	new_cap_mask;
			u8	reserved3;
			u8	change_flags;
		} __packed ntc_144;
		struct {
			__be16	reserved;
			__be16	lid;
			__be16	reserved2;
			__be64	new_sys_guid;
		} __packed ntc_145;
		struct {
			__be16	reserved;
			__be16	lid;
			__be16	dr_slid;
			u8	method;
			u8	reserved2;
			__be16	attr_id;
			__be32	attr_mod;
			__be64	mkey;
			u8	reserved3;
			u8	dr_trunc_hop;
			u8	dr_rtn_path[30];
		} __packed ntc_256;
		struct {
			__be16		reserved;
			__be16		lid1;
			__be16		lid2;
			__be32		key;
			__be32		sl_qp1;
			__be32		qp2;
			union ib_gid	gid1;
			union ib_gid	gid2;
		} __packed ntc_257_258;
	} details;
};

struct ib_mad_agent;

/**
 * struct ib_mad_send_buf - a MAD to send, from ib_create_send_mad()
 * @next: next buffer of a chain passed to ib_post_send_mad()
 * @mad: the MAD: header followed by data, @hdr_len + @data_len bytes
 *	(rounded up to a whole MAD); for an RMPP send only the header, the
 *	data is in the segments (ib_get_rmpp_segment())
 * @mad_agent: the agent that created it
 * @ah: destination, set by the caller before posting
 * @context: for the caller
 * @hdr_len: header bytes (copied into every RMPP segment)
 * @data_len: data bytes
 * @seg_count: number of RMPP segments (1 without RMPP)
 * @seg_size: data bytes per segment (256 - @hdr_len)
 * @seg_rmpp_size: RMPP payload bytes per segment, counted from byte 36
 *	(220)
 * @timeout_ms: how long to wait for a response after the send completed;
 *	0 when no response is expected
 * @retries: how many times to resend after a timeout; once the buffer is
 *	posted, the number of resends made so far (what the send handler
 *	finds there: 0 for a send that needed none)
 */
struct ib_mad_send_buf {
	struct ib_mad_send_buf	*next;
	void			*mad;
	struct ib_mad_agent	*mad_agent;
	struct ib_ah		*ah;
	void			*context[2];
	int			hdr_len;
	int			data_len;
	int			seg_count;
	int			seg_size;
	int			seg_rmpp_size;
	int			timeout_ms;
	int			retries;
};

int ib_response_mad(const struct ib_mad_hdr *hdr);

static inline u8 ib_get_rmpp_resptime(struct ib_rmpp_hdr *rmpp_hdr)
{
	return rmpp_hdr->rmpp_rtime_flags >> 3;
}

static inline u8 ib_get_rmpp_flags(struct ib_rmpp_hdr *rmpp_hdr)
{
	return rmpp_hdr->rmpp_rtime_flags & 0x7;
}

static inline void ib_set_rmpp_resptime(struct ib_rmpp_hdr *rmpp_hdr, u8 rtime)
{
	rmpp_hdr->rmpp_rtime_flags = ib_get_rmpp_flags(rmpp_hdr) | (rtime << 3);
}

static inline void ib_set_rmpp_flags(struct ib_rmpp_hdr *rmpp_hdr, u8 flags)
{
	rmpp_hdr->rmpp_rtime_flags = (rmpp_hdr->rmpp_rtime_flags & 0xF8) |
				     (flags & 0x7);
}

struct ib_mad_send_wc;
struct ib_mad_recv_wc;

/**
 * typedef ib_mad_send_handler - called when a send is finished
 * @mad_agent: the agent that posted it
 * @mad_send_wc: how it ended: IB_WC_SUCCESS (sent, and the response came
 *	if one was awaited), IB_WC_RESP_TIMEOUT_ERR, IB_WC_WR_FLUSH_ERR
 *	(cancelled or agent unregistered) or a transport error
 *
 * The send buffer belongs to the caller again; it is usually freed here.
 */
typedef void (*ib_mad_send_handler)(struct ib_mad_agent *mad_agent,
				    struct ib_mad_send_wc *mad_send_wc);

/**
 * typedef ib_mad_recv_handler - called for a received MAD
 * @mad_agent: the receiving agent
 * @send_buf: for a response, the request it answers; NULL otherwise
 * @mad_recv_wc: the MAD; must be released with ib_free_recv_mad()
 */
typedef void (*ib_mad_recv_handler)(struct ib_mad_agent *mad_agent,
				    struct ib_mad_send_buf *send_buf,
				    struct ib_mad_recv_wc *mad_recv_wc);

enum {
	IB_MAD_USER_RMPP = IB_USER_MAD_USER_RMPP,
};

/**
 * struct ib_mad_agent - a registered user of a port's QP0 or QP1
 * @device: the device
 * @qp: the special QP the agent uses
 * @recv_handler: receives MADs (NULL for a send-only agent)
 * @send_handler: reports the end of sends
 * @context: for the user
 * @hi_tid: upper 32 bits of the TIDs of the agent's requests, by which
 *	responses are routed back to it
 * @flags: registration flags (IB_MAD_USER_RMPP)
 * @security: the LSM's blob for the agent (core/security.c; NULL without
 *	CONFIG_SECURITY_INFINIBAND)
 * @mad_agent_sec_list: entry in the LSM's list of QP0 agents
 * @port_num: the port
 * @rmpp_version: RMPP version the agent speaks, 0 for none
 * @smp_allowed: a QP0 agent may manage the subnet through the port, as
 *	the LSM last said (always true without CONFIG_SECURITY_INFINIBAND)
 */
struct ib_mad_agent {
	struct ib_device	*device;
	struct ib_qp		*qp;
	ib_mad_recv_handler	recv_handler;
	ib_mad_send_handler	send_handler;
	void			*context;
	u32			hi_tid;
	u32			flags;
	void			*security;
	struct list_head	mad_agent_sec_list;
	u8			port_num;
	u8			rmpp_version;
	bool			smp_allowed;
};

/**
 * struct ib_mad_send_wc - how a send ended
 * @send_buf: the send
 * @status: the status, see &typedef ib_mad_send_handler
 * @vendor_err: driver detail of a transport error
 */
struct ib_mad_send_wc {
	struct ib_mad_send_buf	*send_buf;
	enum ib_wc_status	status;
	u32			vendor_err;
};

/**
 * struct ib_mad_recv_buf - one received MAD (segment)
 * @list: entry in the list of segments of an RMPP message
 * @grh: the GRH, valid if the work completion says so
 * @mad: the MAD
 * @opa_mad: (unused) OPA view of @mad
 */
struct ib_mad_recv_buf {
	struct list_head	list;
	struct ib_grh		*grh;
	union {
		struct ib_mad	*mad;
		struct opa_mad	*opa_mad;
	};
};

/**
 * struct ib_mad_recv_wc - a received MAD
 * @wc: the work completion of (the first segment of) the MAD
 * @recv_buf: the first segment
 * @rmpp_list: the segments (struct ib_mad_recv_buf) of a reassembled RMPP
 *	message in order, @recv_buf first; only @recv_buf for a single MAD
 * @mad_len: total length of the MAD (256), or of the RMPP message: one
 *	class header and the data of all segments
 * @mad_seg_size: size of a segment buffer (256)
 */
struct ib_mad_recv_wc {
	struct ib_wc		*wc;
	struct ib_mad_recv_buf	recv_buf;
	struct list_head	rmpp_list;
	int			mad_len;
	size_t			mad_seg_size;
};

/**
 * struct ib_mad_reg_req - which unsolicited MADs an agent wants
 * @mgmt_class: management class
 * @mgmt_class_version: class version
 * @oui: OUI, for vendor classes 0x30..0x4F
 * @method_mask: methods (requests) the agent handles
 */
struct ib_mad_reg_req {
	u8	mgmt_class;
	u8	mgmt_class_version;
	u8	oui[3];
	DECLARE_BITMAP(method_mask, IB_MGMT_MAX_METHODS);
};

struct ib_mad_agent *ib_register_mad_agent(struct ib_device *device,
					   u32 port_num,
					   enum ib_qp_type qp_type,
					   struct ib_mad_reg_req *mad_reg_req,
					   u8 rmpp_version,
					   ib_mad_send_handler send_handler,
					   ib_mad_recv_handler recv_handler,
					   void *context,
					   u32 registration_flags);
void ib_unregister_mad_agent(struct ib_mad_agent *mad_agent);
int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf);
void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc);
int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms);

/**
 * ib_cancel_mad - cancel a posted MAD
 * @send_buf: the send
 *
 * The send handler is then called with IB_WC_WR_FLUSH_ERR, unless the send
 * had already finished.
 */
static inline void ib_cancel_mad(struct ib_mad_send_buf *send_buf)
{
	ib_modify_mad(send_buf, 0);
}

struct ib_mad_send_buf *ib_create_send_mad(struct ib_mad_agent *mad_agent,
					   u32 remote_qpn, u16 pkey_index,
					   int rmpp_active,
					   int hdr_len, int data_len,
					   gfp_t gfp_mask,
					   u8 base_version);
int ib_is_mad_class_rmpp(u8 mgmt_class);
int ib_get_mad_data_offset(u8 mgmt_class);
void *ib_get_rmpp_segment(struct ib_mad_send_buf *send_buf, int seg_num);
void ib_free_send_mad(struct ib_mad_send_buf *send_buf);
int ib_mad_kernel_rmpp_agent(const struct ib_mad_agent *agent);

/*
 * QP1 redirection (IBA 13.5.3.3): the Q_Key of a redirect QP.  It is the
 * GSI Q_Key: a requester follows a redirect from its own QP1 (libibmad
 * through umad does), and QP1 can only send with its own Q_Key.
 */
#define IB_MAD_REDIRECT_QKEY	IB_QP1_QKEY

/**
 * struct ib_mad_redirect_attr - the state of a redirected class
 * @qp_num: the redirect QP
 * @qkey: its Q_Key
 * @redirected: requests on QP1 answered with status 0x0002
 * @received: MADs of the class received on the redirect QP
 * @dropped: MADs of other classes (or malformed ones) it dropped
 */
struct ib_mad_redirect_attr {
	u32	qp_num;
	u32	qkey;
	u32	redirected;
	u32	received;
	u32	dropped;
};

int ib_mad_redirect_class(struct ib_device *device, u32 port_num,
			  u8 mgmt_class);
int ib_mad_unredirect_class(struct ib_device *device, u32 port_num,
			    u8 mgmt_class);
int ib_mad_query_redirect(struct ib_device *device, u32 port_num,
			  u8 mgmt_class, struct ib_mad_redirect_attr *attr);

#endif /* IB_MAD_H */
