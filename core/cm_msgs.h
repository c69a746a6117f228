/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The wire formats of the connection manager's MADs (class 0x07, class
 * version 2, method Send; IBA 12.6 and mgmt.md 5.4): one packed structure
 * per message, the 24-byte MAD header followed by the 232 bytes of the
 * message, and the bit fields inside its words.
 *
 * Members are named after the byte offset of their word in the message
 * (offNN, counted from the end of the MAD header, as the IBA tables
 * count), so that each can be checked against the spec at a glance;
 * fields a word holds whole have their spec names.  A bit field is named
 * by a macro giving its word and its bits (a struct cm_field), and is
 * read and written with cm_get() and cm_set():
 *
 *	cm_set(req, CM_REQ_LOCAL_QPN, qpn);
 *	timeout = cm_get(req, CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT);
 *
 * Every layout is pinned by static_assert()s below and, byte by byte, by
 * the KUnit suite tests/kunit/cm_msgs_test.c.  Nothing here locks.
 */
#ifndef CM_MSGS_H
#define CM_MSGS_H

#include <linux/bits.h>
#include <asm/unaligned.h>
#include <rdma/ib_mad.h>

#define IB_CM_CLASS_VERSION	2

/* MessageMRAed and MessageRejected: which message is meant */
enum cm_msg_response {
	CM_MSG_RESPONSE_REQ = 0,
	CM_MSG_RESPONSE_REP = 1,
	CM_MSG_RESPONSE_OTHER = 2,
};

/* Transport Service Type of a REQ */
enum cm_transport_type {
	CM_TRANSPORT_RC = 0,
	CM_TRANSPORT_UC = 1,
	CM_TRANSPORT_RD = 2,
	CM_TRANSPORT_EXTENDED = 3,
};

/*
 * A path in a REQ (IBA 12.6.5, 44 bytes at offset 52 and 96), from the
 * requester's side: "local" is the requester.
 */
struct cm_req_path {
	__be32		off0;
	union ib_gid	local_gid;
	union ib_gid	remote_gid;
	__be32		off36;
	__be32		off40;
} __packed;

#define CM_PATH_LOCAL_LID		CM_FIELD32(cm_req_path, off0, 31, 16)
#define CM_PATH_REMOTE_LID		CM_FIELD32(cm_req_path, off0, 15, 0)
#define CM_PATH_FLOW_LABEL		CM_FIELD32(cm_req_path, off36, 31, 12)
#define CM_PATH_PACKET_RATE		CM_FIELD32(cm_req_path, off36, 5, 0)
#define CM_PATH_TRAFFIC_CLASS		CM_FIELD32(cm_req_path, off40, 31, 24)
#define CM_PATH_HOP_LIMIT		CM_FIELD32(cm_req_path, off40, 23, 16)
#define CM_PATH_SL			CM_FIELD32(cm_req_path, off40, 15, 12)
#define CM_PATH_SUBNET_LOCAL		CM_FIELD32(cm_req_path, off40, 11, 11)
#define CM_PATH_LOCAL_ACK_TIMEOUT	CM_FIELD32(cm_req_path, off40, 7, 3)
/* in the alternate path only */
#define CM_PATH_SAP_SUPPORTED		CM_FIELD32(cm_req_path, off40, 2, 2)

/* REQ, attribute 0x0010 (IBA 12.6.5) */
struct cm_req_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			off4;
	__be64			service_id;
	__be64			local_ca_guid;
	__be32			rsvd24;
	__be32			local_qkey;
	__be32			off32;
	__be32			off36;
	__be32			off40;
	__be32			off44;
	__be32			off48;
	struct cm_req_path	primary;
	struct cm_req_path	alternate;
	u8			private_data[IB_CM_REQ_PRIVATE_DATA_SIZE];
} __packed;

#define CM_REQ_VENDOR_ID		CM_FIELD32(cm_req_msg, off4, 23, 0)
#define CM_REQ_LOCAL_QPN		CM_FIELD32(cm_req_msg, off32, 31, 8)
#define CM_REQ_RESPONDER_RESOURCES	CM_FIELD32(cm_req_msg, off32, 7, 0)
#define CM_REQ_LOCAL_EECN		CM_FIELD32(cm_req_msg, off36, 31, 8)
#define CM_REQ_INITIATOR_DEPTH		CM_FIELD32(cm_req_msg, off36, 7, 0)
#define CM_REQ_REMOTE_EECN		CM_FIELD32(cm_req_msg, off40, 31, 8)
#define CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT \
	CM_FIELD32(cm_req_msg, off40, 7, 3)
#define CM_REQ_TRANSPORT_SERVICE_TYPE	CM_FIELD32(cm_req_msg, off40, 2, 1)
#define CM_REQ_END_TO_END_FLOW_CONTROL	CM_FIELD32(cm_req_msg, off40, 0, 0)
#define CM_REQ_STARTING_PSN		CM_FIELD32(cm_req_msg, off44, 31, 8)
#define CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT \
	CM_FIELD32(cm_req_msg, off44, 7, 3)
#define CM_REQ_RETRY_COUNT		CM_FIELD32(cm_req_msg, off44, 2, 0)
#define CM_REQ_PARTITION_KEY		CM_FIELD32(cm_req_msg, off48, 31, 16)
#define CM_REQ_PATH_MTU			CM_FIELD32(cm_req_msg, off48, 15, 12)
#define CM_REQ_RDC_EXISTS		CM_FIELD32(cm_req_msg, off48, 11, 11)
#define CM_REQ_RNR_RETRY_COUNT		CM_FIELD32(cm_req_msg, off48, 10, 8)
#define CM_REQ_MAX_CM_RETRIES		CM_FIELD32(cm_req_msg, off48, 7, 4)
#define CM_REQ_SRQ			CM_FIELD32(cm_req_msg, off48, 3, 3)
#define CM_REQ_EXTENDED_TRANSPORT_TYPE	CM_FIELD32(cm_req_msg, off48, 2, 0)

/* MRA, attribute 0x0011 (IBA 12.6.6) */
struct cm_mra_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	u8			off8;
	u8			off9;
	u8			private_data[IB_CM_MRA_PRIVATE_DATA_SIZE];
} __packed;

#define CM_MRA_MESSAGE_MRAED		CM_FIELD8(cm_mra_msg, off8, 7, 6)
#define CM_MRA_SERVICE_TIMEOUT		CM_FIELD8(cm_mra_msg, off9, 7, 3)

/* REJ, attribute 0x0012 (IBA 12.6.7) */
struct cm_rej_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	u8			off8;
	u8			off9;
	__be16			reason;
	u8			ari[IB_CM_REJ_ARI_LENGTH];
	u8			private_data[IB_CM_REJ_PRIVATE_DATA_SIZE];
} __packed;

#define CM_REJ_MESSAGE_REJECTED		CM_FIELD8(cm_rej_msg, off8, 7, 6)
#define CM_REJ_REJECTED_INFO_LENGTH	CM_FIELD8(cm_rej_msg, off9, 7, 1)

/* REP, attribute 0x0013 (IBA 12.6.8) */
struct cm_rep_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	__be32			local_qkey;
	__be32			off12;
	__be32			off16;
	__be32			off20;
	u8			responder_resources;
	u8			initiator_depth;
	u8			off26;
	u8			off27;
	__be64			local_ca_guid;
	u8			private_data[IB_CM_REP_PRIVATE_DATA_SIZE];
} __packed;

#define CM_REP_LOCAL_QPN		CM_FIELD32(cm_rep_msg, off12, 31, 8)
#define CM_REP_VENDOR_ID_H		CM_FIELD32(cm_rep_msg, off12, 7, 0)
#define CM_REP_LOCAL_EECN		CM_FIELD32(cm_rep_msg, off16, 31, 8)
#define CM_REP_VENDOR_ID_M		CM_FIELD32(cm_rep_msg, off16, 7, 0)
#define CM_REP_STARTING_PSN		CM_FIELD32(cm_rep_msg, off20, 31, 8)
#define CM_REP_VENDOR_ID_L		CM_FIELD32(cm_rep_msg, off20, 7, 0)
#define CM_REP_TARGET_ACK_DELAY		CM_FIELD8(cm_rep_msg, off26, 7, 3)
#define CM_REP_FAILOVER_ACCEPTED	CM_FIELD8(cm_rep_msg, off26, 2, 1)
#define CM_REP_END_TO_END_FLOW_CONTROL	CM_FIELD8(cm_rep_msg, off26, 0, 0)
#define CM_REP_RNR_RETRY_COUNT		CM_FIELD8(cm_rep_msg, off27, 7, 5)
#define CM_REP_SRQ			CM_FIELD8(cm_rep_msg, off27, 4, 4)

/* RTU, attribute 0x0014 (IBA 12.6.9) */
struct cm_rtu_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	u8			private_data[IB_CM_RTU_PRIVATE_DATA_SIZE];
} __packed;

/* DREQ, attribute 0x0015 (IBA 12.6.10) */
struct cm_dreq_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	__be32			off8;
	u8			private_data[IB_CM_DREQ_PRIVATE_DATA_SIZE];
} __packed;

#define CM_DREQ_REMOTE_QPN_EECN		CM_FIELD32(cm_dreq_msg, off8, 31, 8)

/* DREP, attribute 0x0016 (IBA 12.6.11) */
struct cm_drep_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	u8			private_data[IB_CM_DREP_PRIVATE_DATA_SIZE];
} __packed;

/* SIDR_REQ, attribute 0x0017 (IBA 12.11.1) */
struct cm_sidr_req_msg {
	struct ib_mad_hdr	hdr;
	__be32			request_id;
	__be16			pkey;
	__be16			rsvd6;
	__be64			service_id;
	u8			private_data[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
} __packed;

/* SIDR_REP, attribute 0x0018 (IBA 12.11.2) */
struct cm_sidr_rep_msg {
	struct ib_mad_hdr	hdr;
	__be32			request_id;
	u8			status;
	u8			info_length;
	__be16			vendor_id_h;
	__be32			off8;
	__be64			service_id;
	__be32			qkey;
	u8			info[IB_CM_SIDR_REP_INFO_LENGTH];
	u8			private_data[IB_CM_SIDR_REP_PRIVATE_DATA_SIZE];
} __packed;

#define CM_SIDR_REP_QPN			CM_FIELD32(cm_sidr_rep_msg, off8, 31, 8)
#define CM_SIDR_REP_VENDOR_ID_L		CM_FIELD32(cm_sidr_rep_msg, off8, 7, 0)

/*
 * The alternate path of a LAP (IBA 12.8.1, 44 bytes at offset 20): not
 * the REQ's layout, the traffic class and the rate change places.
 */
struct cm_lap_path {
	__be32		off0;
	union ib_gid	local_gid;
	union ib_gid	remote_gid;
	__be32		off36;
	__be32		off40;
} __packed;

#define CM_LAP_PATH_LOCAL_LID		CM_FIELD32(cm_lap_path, off0, 31, 16)
#define CM_LAP_PATH_REMOTE_LID		CM_FIELD32(cm_lap_path, off0, 15, 0)
#define CM_LAP_PATH_FLOW_LABEL		CM_FIELD32(cm_lap_path, off36, 31, 12)
#define CM_LAP_PATH_TRAFFIC_CLASS	CM_FIELD32(cm_lap_path, off36, 7, 0)
#define CM_LAP_PATH_HOP_LIMIT		CM_FIELD32(cm_lap_path, off40, 31, 24)
#define CM_LAP_PATH_PACKET_RATE		CM_FIELD32(cm_lap_path, off40, 21, 16)
#define CM_LAP_PATH_SL			CM_FIELD32(cm_lap_path, off40, 15, 12)
#define CM_LAP_PATH_SUBNET_LOCAL	CM_FIELD32(cm_lap_path, off40, 11, 11)
#define CM_LAP_PATH_LOCAL_ACK_TIMEOUT	CM_FIELD32(cm_lap_path, off40, 7, 3)

/* LAP, attribute 0x0019 (IBA 12.8.1) */
struct cm_lap_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	__be32			rsvd8;
	__be32			off12;
	__be32			rsvd16;
	struct cm_lap_path	alternate;
	u8			private_data[IB_CM_LAP_PRIVATE_DATA_SIZE];
} __packed;

#define CM_LAP_REMOTE_QPN_EECN		CM_FIELD32(cm_lap_msg, off12, 31, 8)
#define CM_LAP_REMOTE_CM_RESPONSE_TIMEOUT \
	CM_FIELD32(cm_lap_msg, off12, 7, 3)

/* APR, attribute 0x001A (IBA 12.8.2) */
struct cm_apr_msg {
	struct ib_mad_hdr	hdr;
	__be32			local_comm_id;
	__be32			remote_comm_id;
	u8			info_length;
	u8			ap_status;
	__be16			rsvd10;
	u8			info[IB_CM_APR_INFO_LENGTH];
	u8			private_data[IB_CM_APR_PRIVATE_DATA_SIZE];
} __packed;

#define CM_MSG_OFFSET(type, member) \
	(offsetof(struct type, member) - sizeof(struct ib_mad_hdr))

static_assert(sizeof(struct cm_req_path) == 44);
static_assert(sizeof(struct cm_lap_path) == 44);
static_assert(sizeof(struct cm_req_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_req_msg, off48) == 48);
static_assert(CM_MSG_OFFSET(cm_req_msg, primary) == 52);
static_assert(CM_MSG_OFFSET(cm_req_msg, alternate) == 96);
static_assert(CM_MSG_OFFSET(cm_req_msg, private_data) == 140);
static_assert(sizeof(struct cm_mra_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_mra_msg, private_data) == 10);
static_assert(sizeof(struct cm_rej_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_rej_msg, ari) == 12);
static_assert(CM_MSG_OFFSET(cm_rej_msg, private_data) == 84);
static_assert(sizeof(struct cm_rep_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_rep_msg, local_ca_guid) == 28);
static_assert(CM_MSG_OFFSET(cm_rep_msg, private_data) == 36);
static_assert(sizeof(struct cm_rtu_msg) == IB_MGMT_MAD_SIZE);
static_assert(sizeof(struct cm_dreq_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_dreq_msg, private_data) == 12);
static_assert(sizeof(struct cm_drep_msg) == IB_MGMT_MAD_SIZE);
static_assert(sizeof(struct cm_sidr_req_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_sidr_req_msg, private_data) == 16);
static_assert(sizeof(struct cm_sidr_rep_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_sidr_rep_msg, service_id) == 12);
static_assert(CM_MSG_OFFSET(cm_sidr_rep_msg, info) == 24);
static_assert(CM_MSG_OFFSET(cm_sidr_rep_msg, private_data) == 96);
static_assert(sizeof(struct cm_lap_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_lap_msg, alternate) == 20);
static_assert(CM_MSG_OFFSET(cm_lap_msg, private_data) == 64);
static_assert(sizeof(struct cm_apr_msg) == IB_MGMT_MAD_SIZE);
static_assert(CM_MSG_OFFSET(cm_apr_msg, private_data) == 84);

/**
 * struct cm_field - where a bit field of a message lies
 * @offset: the byte offset of its word in the structure
 * @size: the width of the word in bytes (1, 2 or 4), big endian
 * @mask: the field's bits in the word, in host order
 */
struct cm_field {
	u16	offset;
	u8	size;
	u32	mask;
};

/*
 * The field of bits @hi..@lo of @word, a __be32 (or u8) member of struct
 * @type.  (The width is not taken from the member so that the member is
 * named once; the KUnit suite finds a wrong one.)
 */
#define CM_FIELD32(type, word, hi, lo)					\
	((const struct cm_field){					\
		.offset = offsetof(struct type, word),			\
		.size = 4,						\
		.mask = GENMASK(hi, lo),				\
	})
#define CM_FIELD8(type, word, hi, lo)					\
	((const struct cm_field){					\
		.offset = offsetof(struct type, word),			\
		.size = 1,						\
		.mask = GENMASK(hi, lo),				\
	})

static __always_inline u32 cm_word_get(const void *p, u8 size)
{
	if (size == 4)
		return get_unaligned_be32(p);
	if (size == 2)
		return get_unaligned_be16(p);
	return *(const u8 *)p;
}

static __always_inline void cm_word_put(void *p, u8 size, u32 val)
{
	if (size == 4)
		put_unaligned_be32(val, p);
	else if (size == 2)
		put_unaligned_be16(val, p);
	else
		*(u8 *)p = val;
}

/**
 * cm_get - read a bit field of a message
 * @msg: the message structure (or a struct cm_req_path...)
 * @field: the field, e.g. CM_REQ_LOCAL_QPN
 *
 * Return: the field's value, right-aligned.
 */
static __always_inline u32 cm_get(const void *msg, struct cm_field field)
{
	u32 word = cm_word_get(msg + field.offset, field.size);

	return (word & field.mask) >> __builtin_ctz(field.mask);
}

/**
 * cm_set - write a bit field of a message
 * @msg: the message structure
 * @field: the field
 * @val: the value; bits beyond the field's width are dropped
 */
static __always_inline void cm_set(void *msg, struct cm_field field, u32 val)
{
	void *p = msg + field.offset;
	u32 word = cm_word_get(p, field.size);

	word &= ~field.mask;
	word |= (val << __builtin_ctz(field.mask)) & field.mask;
	cm_word_put(p, field.size, word);
}

#endif /* CM_MSGS_H */
