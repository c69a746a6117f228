// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the wire formats of the connection manager's MADs
 * (core/cm_msgs.h, IBA 12.6, 12.8 and 12.11, mgmt.md 5.4): every bit
 * field of every message is checked against where the IBA tables put it,
 * written here independently as (byte offset after the MAD header,
 * first bit counting from the byte's most significant bit, width):
 * cm_set() of all ones into a zeroed MAD must set exactly those bits,
 * cm_set() of 0 into a MAD of all ones must clear exactly them, and
 * cm_get() must read a value put there bit by bit.  Whole fields are
 * checked by their offsets; a REQ built byte by byte is parsed into its
 * path; the REJ reasons and the other values of the ABI are upstream's.
 */
#include <kunit/test.h>
#include <rdma/ib_cm.h>

#include "cm_priv.h"

#define HDR	((int)sizeof(struct ib_mad_hdr))

/**
 * struct cm_field_case - one bit field and where the IBA puts it
 * @what: its name in the IBA table
 * @field: our accessor for it
 * @base: where the structure @field belongs to starts in the MAD (the
 *	MAD itself: 0; a path: its offset)
 * @byte: the IBA's byte offset, counted from the end of the MAD header
 * @bit: the first bit, 0 being the byte's most significant
 * @width: the number of bits
 */
struct cm_field_case {
	const char		*what;
	struct cm_field		field;
	int			base;
	int			byte;
	int			bit;
	int			width;
};

#define REQ_PRI	(HDR + 52)
#define REQ_ALT	(HDR + 96)
#define LAP_ALT	(HDR + 20)

static const struct cm_field_case cm_field_cases[] = {
	/* REQ (IBA table 99) */
	{ "REQ VendorID", CM_REQ_VENDOR_ID, 0, 5, 0, 24 },
	{ "REQ LocalQPN", CM_REQ_LOCAL_QPN, 0, 32, 0, 24 },
	{ "REQ ResponderResources", CM_REQ_RESPONDER_RESOURCES, 0, 35, 0, 8 },
	{ "REQ LocalEECN", CM_REQ_LOCAL_EECN, 0, 36, 0, 24 },
	{ "REQ InitiatorDepth", CM_REQ_INITIATOR_DEPTH, 0, 39, 0, 8 },
	{ "REQ RemoteEECN", CM_REQ_REMOTE_EECN, 0, 40, 0, 24 },
	{ "REQ RemoteCMResponseTimeout", CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT,
	  0, 43, 0, 5 },
	{ "REQ TransportServiceType", CM_REQ_TRANSPORT_SERVICE_TYPE,
	  0, 43, 5, 2 },
	{ "REQ EndToEndFlowControl", CM_REQ_END_TO_END_FLOW_CONTROL,
	  0, 43, 7, 1 },
	{ "REQ StartingPSN", CM_REQ_STARTING_PSN, 0, 44, 0, 24 },
	{ "REQ LocalCMResponseTimeout", CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT,
	  0, 47, 0, 5 },
	{ "REQ RetryCount", CM_REQ_RETRY_COUNT, 0, 47, 5, 3 },
	{ "REQ P_Key", CM_REQ_PARTITION_KEY, 0, 48, 0, 16 },
	{ "REQ PathPacketPayloadMTU", CM_REQ_PATH_MTU, 0, 50, 0, 4 },
	{ "REQ RDCExists", CM_REQ_RDC_EXISTS, 0, 50, 4, 1 },
	{ "REQ RNRRetryCount", CM_REQ_RNR_RETRY_COUNT, 0, 50, 5, 3 },
	{ "REQ MaxCMRetries", CM_REQ_MAX_CM_RETRIES, 0, 51, 0, 4 },
	{ "REQ SRQ", CM_REQ_SRQ, 0, 51, 4, 1 },
	{ "REQ ExtendedTransportType", CM_REQ_EXTENDED_TRANSPORT_TYPE,
	  0, 51, 5, 3 },
	{ "REQ PrimaryLocalPortLID", CM_PATH_LOCAL_LID, REQ_PRI, 52, 0, 16 },
	{ "REQ PrimaryRemotePortLID", CM_PATH_REMOTE_LID, REQ_PRI, 54, 0, 16 },
	{ "REQ PrimaryFlowLabel", CM_PATH_FLOW_LABEL, REQ_PRI, 88, 0, 20 },
	{ "REQ PrimaryPacketRate", CM_PATH_PACKET_RATE, REQ_PRI, 91, 2, 6 },
	{ "REQ PrimaryTrafficClass", CM_PATH_TRAFFIC_CLASS, REQ_PRI, 92, 0, 8 },
	{ "REQ PrimaryHopLimit", CM_PATH_HOP_LIMIT, REQ_PRI, 93, 0, 8 },
	{ "REQ PrimarySL", CM_PATH_SL, REQ_PRI, 94, 0, 4 },
	{ "REQ PrimarySubnetLocal", CM_PATH_SUBNET_LOCAL, REQ_PRI, 94, 4, 1 },
	{ "REQ PrimaryLocalACKTimeout", CM_PATH_LOCAL_ACK_TIMEOUT,
	  REQ_PRI, 95, 0, 5 },
	{ "REQ AlternateLocalPortLID", CM_PATH_LOCAL_LID, REQ_ALT, 96, 0, 16 },
	{ "REQ AlternateRemotePortLID", CM_PATH_REMOTE_LID, REQ_ALT,
	  98, 0, 16 },
	{ "REQ AlternateFlowLabel", CM_PATH_FLOW_LABEL, REQ_ALT, 132, 0, 20 },
	{ "REQ AlternatePacketRate", CM_PATH_PACKET_RATE, REQ_ALT, 135, 2, 6 },
	{ "REQ AlternateTrafficClass", CM_PATH_TRAFFIC_CLASS, REQ_ALT,
	  136, 0, 8 },
	{ "REQ AlternateHopLimit", CM_PATH_HOP_LIMIT, REQ_ALT, 137, 0, 8 },
	{ "REQ AlternateSL", CM_PATH_SL, REQ_ALT, 138, 0, 4 },
	{ "REQ AlternateSubnetLocal", CM_PATH_SUBNET_LOCAL, REQ_ALT,
	  138, 4, 1 },
	{ "REQ AlternateLocalACKTimeout", CM_PATH_LOCAL_ACK_TIMEOUT, REQ_ALT,
	  139, 0, 5 },
	{ "REQ SAP Supported", CM_PATH_SAP_SUPPORTED, REQ_ALT, 139, 5, 1 },
	/* MRA (table 101) */
	{ "MRA MessageMRAed", CM_MRA_MESSAGE_MRAED, 0, 8, 0, 2 },
	{ "MRA ServiceTimeout", CM_MRA_SERVICE_TIMEOUT, 0, 9, 0, 5 },
	/* REJ (table 103) */
	{ "REJ MessageRejected", CM_REJ_MESSAGE_REJECTED, 0, 8, 0, 2 },
	{ "REJ RejectedInfoLength", CM_REJ_REJECTED_INFO_LENGTH, 0, 9, 0, 7 },
	/* REP (table 105) */
	{ "REP LocalQPN", CM_REP_LOCAL_QPN, 0, 12, 0, 24 },
	{ "REP VendorID[23:16]", CM_REP_VENDOR_ID_H, 0, 15, 0, 8 },
	{ "REP LocalEECN", CM_REP_LOCAL_EECN, 0, 16, 0, 24 },
	{ "REP VendorID[15:8]", CM_REP_VENDOR_ID_M, 0, 19, 0, 8 },
	{ "REP StartingPSN", CM_REP_STARTING_PSN, 0, 20, 0, 24 },
	{ "REP VendorID[7:0]", CM_REP_VENDOR_ID_L, 0, 23, 0, 8 },
	{ "REP TargetACKDelay", CM_REP_TARGET_ACK_DELAY, 0, 26, 0, 5 },
	{ "REP FailoverAccepted", CM_REP_FAILOVER_ACCEPTED, 0, 26, 5, 2 },
	{ "REP EndToEndFlowControl", CM_REP_END_TO_END_FLOW_CONTROL,
	  0, 26, 7, 1 },
	{ "REP RNRRetryCount", CM_REP_RNR_RETRY_COUNT, 0, 27, 0, 3 },
	{ "REP SRQ", CM_REP_SRQ, 0, 27, 3, 1 },
	/* DREQ (table 107) */
	{ "DREQ RemoteQPN/EECN", CM_DREQ_REMOTE_QPN_EECN, 0, 8, 0, 24 },
	/* LAP (table 109) */
	{ "LAP RemoteQPN/EECN", CM_LAP_REMOTE_QPN_EECN, 0, 12, 0, 24 },
	{ "LAP RemoteCMResponseTimeout", CM_LAP_REMOTE_CM_RESPONSE_TIMEOUT,
	  0, 15, 0, 5 },
	{ "LAP AlternateLocalPortLID", CM_LAP_PATH_LOCAL_LID, LAP_ALT,
	  20, 0, 16 },
	{ "LAP AlternateRemotePortLID", CM_LAP_PATH_REMOTE_LID, LAP_ALT,
	  22, 0, 16 },
	{ "LAP AlternateFlowLabel", CM_LAP_PATH_FLOW_LABEL, LAP_ALT,
	  56, 0, 20 },
	{ "LAP AlternateTrafficClass", CM_LAP_PATH_TRAFFIC_CLASS, LAP_ALT,
	  59, 0, 8 },
	{ "LAP AlternateHopLimit", CM_LAP_PATH_HOP_LIMIT, LAP_ALT, 60, 0, 8 },
	{ "LAP AlternatePacketRate", CM_LAP_PATH_PACKET_RATE, LAP_ALT,
	  61, 2, 6 },
	{ "LAP AlternateSL", CM_LAP_PATH_SL, LAP_ALT, 62, 0, 4 },
	{ "LAP AlternateSubnetLocal", CM_LAP_PATH_SUBNET_LOCAL, LAP_ALT,
	  62, 4, 1 },
	{ "LAP AlternateLocalACKTimeout", CM_LAP_PATH_LOCAL_ACK_TIMEOUT,
	  LAP_ALT, 63, 0, 5 },
	/* SIDR_REP (table 121) */
	{ "SIDR_REP QPN", CM_SIDR_REP_QPN, 0, 8, 0, 24 },
	{ "SIDR_REP VendorID[7:0]", CM_SIDR_REP_VENDOR_ID_L, 0, 11, 0, 8 },
};

/* Put @width bits of @val where the IBA says, most significant first. */
static void cm_put_bits(u8 *mad, int byte, int bit, int width, u32 val)
{
	int i, b, pos;

	for (i = 0; i < width; i++) {
		b = bit + i;
		pos = HDR + byte + b / 8;
		if ((val >> (width - 1 - i)) & 1)
			mad[pos] |= BIT(7 - b % 8);
		else
			mad[pos] &= ~BIT(7 - b % 8);
	}
}

/* The first byte where @a and @b differ, or -1. */
static int cm_diff(const u8 *a, const u8 *b, int len)
{
	int i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

static void cm_msgs_field_bits(struct kunit *test)
{
	u8 *got = kunit_kzalloc(test, IB_MGMT_MAD_SIZE, GFP_KERNEL);
	u8 *want = kunit_kzalloc(test, IB_MGMT_MAD_SIZE, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < ARRAY_SIZE(cm_field_cases); i++) {
		const struct cm_field_case *c = &cm_field_cases[i];
		u32 ones = c->width == 32 ? ~0U : BIT(c->width) - 1;

		/* all ones into zeros: exactly the field's bits */
		memset(got, 0, IB_MGMT_MAD_SIZE);
		memset(want, 0, IB_MGMT_MAD_SIZE);
		cm_set(got + c->base, c->field, ~0U);
		cm_put_bits(want, c->byte, c->bit, c->width, ones);
		KUNIT_EXPECT_EQ_MSG(test, cm_diff(got, want, IB_MGMT_MAD_SIZE),
				    -1, "%s: set", c->what);

		/* zero into ones: exactly the field's bits cleared */
		memset(got, 0xff, IB_MGMT_MAD_SIZE);
		memset(want, 0xff, IB_MGMT_MAD_SIZE);
		cm_set(got + c->base, c->field, 0);
		cm_put_bits(want, c->byte, c->bit, c->width, 0);
		KUNIT_EXPECT_EQ_MSG(test, cm_diff(got, want, IB_MGMT_MAD_SIZE),
				    -1, "%s: clear", c->what);

		/* a value put bit by bit, among ones, reads back */
		memset(want, 0xff, IB_MGMT_MAD_SIZE);
		cm_put_bits(want, c->byte, c->bit, c->width,
			    0x5a3c96a5 & ones);
		KUNIT_EXPECT_EQ_MSG(test, cm_get(want + c->base, c->field),
				    0x5a3c96a5 & ones, "%s: get", c->what);
		KUNIT_EXPECT_EQ_MSG(test, c->field.offset + c->base,
				    HDR + (c->byte & ~(int)(c->field.size - 1)),
				    "%s: word", c->what);
	}
}

/**
 * struct cm_member_case - a whole field and where the IBA puts it
 * @what: its name
 * @offset: our member's offset in the MAD
 * @size: our member's size
 * @byte: the IBA's byte offset after the MAD header
 * @len: the IBA's length in bytes
 */
struct cm_member_case {
	const char	*what;
	size_t		offset;
	size_t		size;
	int		byte;
	int		len;
};

static const struct cm_member_case cm_member_cases[] = {
	{ "REQ LocalCommID",
	  offsetof(struct cm_req_msg, local_comm_id),
	  sizeof_field(struct cm_req_msg, local_comm_id), 0, 4 },
	{ "REQ ServiceID",
	  offsetof(struct cm_req_msg, service_id),
	  sizeof_field(struct cm_req_msg, service_id), 8, 8 },
	{ "REQ LocalCAGUID",
	  offsetof(struct cm_req_msg, local_ca_guid),
	  sizeof_field(struct cm_req_msg, local_ca_guid), 16, 8 },
	{ "REQ LocalQ_Key",
	  offsetof(struct cm_req_msg, local_qkey),
	  sizeof_field(struct cm_req_msg, local_qkey), 28, 4 },
	{ "REQ PrimaryLocalPortGID",
	  offsetof(struct cm_req_msg, primary.local_gid),
	  sizeof_field(struct cm_req_msg, primary.local_gid), 56, 16 },
	{ "REQ PrimaryRemotePortGID",
	  offsetof(struct cm_req_msg, primary.remote_gid),
	  sizeof_field(struct cm_req_msg, primary.remote_gid), 72, 16 },
	{ "REQ AlternateLocalPortGID",
	  offsetof(struct cm_req_msg, alternate.local_gid),
	  sizeof_field(struct cm_req_msg, alternate.local_gid), 100, 16 },
	{ "REQ AlternateRemotePortGID",
	  offsetof(struct cm_req_msg, alternate.remote_gid),
	  sizeof_field(struct cm_req_msg, alternate.remote_gid), 116, 16 },
	{ "REQ PrivateData",
	  offsetof(struct cm_req_msg, private_data),
	  sizeof_field(struct cm_req_msg, private_data), 140, 92 },
	{ "MRA LocalCommID",
	  offsetof(struct cm_mra_msg, local_comm_id),
	  sizeof_field(struct cm_mra_msg, local_comm_id), 0, 4 },
	{ "MRA RemoteCommID",
	  offsetof(struct cm_mra_msg, remote_comm_id),
	  sizeof_field(struct cm_mra_msg, remote_comm_id), 4, 4 },
	{ "MRA PrivateData",
	  offsetof(struct cm_mra_msg, private_data),
	  sizeof_field(struct cm_mra_msg, private_data), 10, 222 },
	{ "REJ LocalCommID",
	  offsetof(struct cm_rej_msg, local_comm_id),
	  sizeof_field(struct cm_rej_msg, local_comm_id), 0, 4 },
	{ "REJ RemoteCommID",
	  offsetof(struct cm_rej_msg, remote_comm_id),
	  sizeof_field(struct cm_rej_msg, remote_comm_id), 4, 4 },
	{ "REJ Reason",
	  offsetof(struct cm_rej_msg, reason),
	  sizeof_field(struct cm_rej_msg, reason), 10, 2 },
	{ "REJ ARI",
	  offsetof(struct cm_rej_msg, ari),
	  sizeof_field(struct cm_rej_msg, ari), 12, 72 },
	{ "REJ PrivateData",
	  offsetof(struct cm_rej_msg, private_data),
	  sizeof_field(struct cm_rej_msg, private_data), 84, 148 },
	{ "REP LocalCommID",
	  offsetof(struct cm_rep_msg, local_comm_id),
	  sizeof_field(struct cm_rep_msg, local_comm_id), 0, 4 },
	{ "REP RemoteCommID",
	  offsetof(struct cm_rep_msg, remote_comm_id),
	  sizeof_field(struct cm_rep_msg, remote_comm_id), 4, 4 },
	{ "REP LocalQ_Key",
	  offsetof(struct cm_rep_msg, local_qkey),
	  sizeof_field(struct cm_rep_msg, local_qkey), 8, 4 },
	{ "REP ResponderResources",
	  offsetof(struct cm_rep_msg, responder_resources),
	  sizeof_field(struct cm_rep_msg, responder_resources), 24, 1 },
	{ "REP InitiatorDepth",
	  offsetof(struct cm_rep_msg, initiator_depth),
	  sizeof_field(struct cm_rep_msg, initiator_depth), 25, 1 },
	{ "REP LocalCAGUID",
	  offsetof(struct cm_rep_msg, local_ca_guid),
	  sizeof_field(struct cm_rep_msg, local_ca_guid), 28, 8 },
	{ "REP PrivateData",
	  offsetof(struct cm_rep_msg, private_data),
	  sizeof_field(struct cm_rep_msg, private_data), 36, 196 },
	{ "RTU LocalCommID",
	  offsetof(struct cm_rtu_msg, local_comm_id),
	  sizeof_field(struct cm_rtu_msg, local_comm_id), 0, 4 },
	{ "RTU RemoteCommID",
	  offsetof(struct cm_rtu_msg, remote_comm_id),
	  sizeof_field(struct cm_rtu_msg, remote_comm_id), 4, 4 },
	{ "RTU PrivateData",
	  offsetof(struct cm_rtu_msg, private_data),
	  sizeof_field(struct cm_rtu_msg, private_data), 8, 224 },
	{ "DREQ LocalCommID",
	  offsetof(struct cm_dreq_msg, local_comm_id),
	  sizeof_field(struct cm_dreq_msg, local_comm_id), 0, 4 },
	{ "DREQ RemoteCommID",
	  offsetof(struct cm_dreq_msg, remote_comm_id),
	  sizeof_field(struct cm_dreq_msg, remote_comm_id), 4, 4 },
	{ "DREQ PrivateData",
	  offsetof(struct cm_dreq_msg, private_data),
	  sizeof_field(struct cm_dreq_msg, private_data), 12, 220 },
	{ "DREP LocalCommID",
	  offsetof(struct cm_drep_msg, local_comm_id),
	  sizeof_field(struct cm_drep_msg, local_comm_id), 0, 4 },
	{ "DREP RemoteCommID",
	  offsetof(struct cm_drep_msg, remote_comm_id),
	  sizeof_field(struct cm_drep_msg, remote_comm_id), 4, 4 },
	{ "DREP PrivateData",
	  offsetof(struct cm_drep_msg, private_data),
	  sizeof_field(struct cm_drep_msg, private_data), 8, 224 },
	{ "SIDR_REQ RequestID",
	  offsetof(struct cm_sidr_req_msg, request_id),
	  sizeof_field(struct cm_sidr_req_msg, request_id), 0, 4 },
	{ "SIDR_REQ P_Key",
	  offsetof(struct cm_sidr_req_msg, pkey),
	  sizeof_field(struct cm_sidr_req_msg, pkey), 4, 2 },
	{ "SIDR_REQ ServiceID",
	  offsetof(struct cm_sidr_req_msg, service_id),
	  sizeof_field(struct cm_sidr_req_msg, service_id), 8, 8 },
	{ "SIDR_REQ PrivateData",
	  offsetof(struct cm_sidr_req_msg, private_data),
	  sizeof_field(struct cm_sidr_req_msg, private_data), 16, 216 },
	{ "SIDR_REP RequestID",
	  offsetof(struct cm_sidr_rep_msg, request_id),
	  sizeof_field(struct cm_sidr_rep_msg, request_id), 0, 4 },
	{ "SIDR_REP Status",
	  offsetof(struct cm_sidr_rep_msg, status),
	  sizeof_field(struct cm_sidr_rep_msg, status), 4, 1 },
	{ "SIDR_REP AdditionalInfoLength",
	  offsetof(struct cm_sidr_rep_msg, info_length),
	  sizeof_field(struct cm_sidr_rep_msg, info_length), 5, 1 },
	{ "SIDR_REP VendorID[23:8]",
	  offsetof(struct cm_sidr_rep_msg, vendor_id_h),
	  sizeof_field(struct cm_sidr_rep_msg, vendor_id_h), 6, 2 },
	{ "SIDR_REP ServiceID",
	  offsetof(struct cm_sidr_rep_msg, service_id),
	  sizeof_field(struct cm_sidr_rep_msg, service_id), 12, 8 },
	{ "SIDR_REP Q_Key",
	  offsetof(struct cm_sidr_rep_msg, qkey),
	  sizeof_field(struct cm_sidr_rep_msg, qkey), 20, 4 },
	{ "SIDR_REP ClassPortInfo",
	  offsetof(struct cm_sidr_rep_msg, info),
	  sizeof_field(struct cm_sidr_rep_msg, info), 24, 72 },
	{ "SIDR_REP PrivateData",
	  offsetof(struct cm_sidr_rep_msg, private_data),
	  sizeof_field(struct cm_sidr_rep_msg, private_data), 96, 136 },
	{ "LAP LocalCommID",
	  offsetof(struct cm_lap_msg, local_comm_id),
	  sizeof_field(struct cm_lap_msg, local_comm_id), 0, 4 },
	{ "LAP RemoteCommID",
	  offsetof(struct cm_lap_msg, remote_comm_id),
	  sizeof_field(struct cm_lap_msg, remote_comm_id), 4, 4 },
	{ "LAP AlternateLocalPortGID",
	  offsetof(struct cm_lap_msg, alternate.local_gid),
	  sizeof_field(struct cm_lap_msg, alternate.local_gid), 24, 16 },
	{ "LAP AlternateRemotePortGID",
	  offsetof(struct cm_lap_msg, alternate.remote_gid),
	  sizeof_field(struct cm_lap_msg, alternate.remote_gid), 40, 16 },
	{ "LAP PrivateData",
	  offsetof(struct cm_lap_msg, private_data),
	  sizeof_field(struct cm_lap_msg, private_data), 64, 168 },
	{ "APR LocalCommID",
	  offsetof(struct cm_apr_msg, local_comm_id),
	  sizeof_field(struct cm_apr_msg, local_comm_id), 0, 4 },
	{ "APR RemoteCommID",
	  offsetof(struct cm_apr_msg, remote_comm_id),
	  sizeof_field(struct cm_apr_msg, remote_comm_id), 4, 4 },
	{ "APR AdditionalInfoLength",
	  offsetof(struct cm_apr_msg, info_length),
	  sizeof_field(struct cm_apr_msg, info_length), 8, 1 },
	{ "APR APStatus",
	  offsetof(struct cm_apr_msg, ap_status),
	  sizeof_field(struct cm_apr_msg, ap_status), 9, 1 },
	{ "APR AdditionalInfo",
	  offsetof(struct cm_apr_msg, info),
	  sizeof_field(struct cm_apr_msg, info), 12, 72 },
	{ "APR PrivateData",
	  offsetof(struct cm_apr_msg, private_data),
	  sizeof_field(struct cm_apr_msg, private_data), 84, 148 },
};

static void cm_msgs_members(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cm_member_cases); i++) {
		const struct cm_member_case *c = &cm_member_cases[i];

		KUNIT_EXPECT_EQ_MSG(test, c->offset, (size_t)(HDR + c->byte),
				    "%s: offset", c->what);
		KUNIT_EXPECT_EQ_MSG(test, c->size, (size_t)c->len,
				    "%s: length", c->what);
	}
}

/* The sizes of private data and of the other variable parts: upstream's. */
static void cm_msgs_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, IB_CM_REQ_PRIVATE_DATA_SIZE, 92);
	KUNIT_EXPECT_EQ(test, IB_CM_MRA_PRIVATE_DATA_SIZE, 222);
	KUNIT_EXPECT_EQ(test, IB_CM_REJ_PRIVATE_DATA_SIZE, 148);
	KUNIT_EXPECT_EQ(test, IB_CM_REP_PRIVATE_DATA_SIZE, 196);
	KUNIT_EXPECT_EQ(test, IB_CM_RTU_PRIVATE_DATA_SIZE, 224);
	KUNIT_EXPECT_EQ(test, IB_CM_DREQ_PRIVATE_DATA_SIZE, 220);
	KUNIT_EXPECT_EQ(test, IB_CM_DREP_PRIVATE_DATA_SIZE, 224);
	KUNIT_EXPECT_EQ(test, IB_CM_REJ_ARI_LENGTH, 72);
	KUNIT_EXPECT_EQ(test, IB_CM_LAP_PRIVATE_DATA_SIZE, 168);
	KUNIT_EXPECT_EQ(test, IB_CM_APR_PRIVATE_DATA_SIZE, 148);
	KUNIT_EXPECT_EQ(test, IB_CM_APR_INFO_LENGTH, 72);
	KUNIT_EXPECT_EQ(test, IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE, 216);
	KUNIT_EXPECT_EQ(test, IB_CM_SIDR_REP_PRIVATE_DATA_SIZE, 136);
	KUNIT_EXPECT_EQ(test, IB_CM_SIDR_REP_INFO_LENGTH, 72);
	KUNIT_EXPECT_EQ(test, sizeof(struct cm_req_msg), 256UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct cm_sidr_rep_msg), 256UL);
}

/* Attribute IDs, REJ reasons, statuses and states: upstream's values. */
static void cm_msgs_abi_values(struct kunit *test)
{
	static const struct {
		int got, want;
	} v[] = {
		{ be16_to_cpu(CM_REQ_ATTR_ID), 0x10 },
		{ be16_to_cpu(CM_MRA_ATTR_ID), 0x11 },
		{ be16_to_cpu(CM_REJ_ATTR_ID), 0x12 },
		{ be16_to_cpu(CM_REP_ATTR_ID), 0x13 },
		{ be16_to_cpu(CM_RTU_ATTR_ID), 0x14 },
		{ be16_to_cpu(CM_DREQ_ATTR_ID), 0x15 },
		{ be16_to_cpu(CM_DREP_ATTR_ID), 0x16 },
		{ be16_to_cpu(CM_SIDR_REQ_ATTR_ID), 0x17 },
		{ be16_to_cpu(CM_SIDR_REP_ATTR_ID), 0x18 },
		{ be16_to_cpu(CM_LAP_ATTR_ID), 0x19 },
		{ be16_to_cpu(CM_APR_ATTR_ID), 0x1a },
		{ IB_MGMT_CLASS_CM, 0x07 },
		{ IB_CM_CLASS_VERSION, 2 },
		{ IB_CM_REJ_NO_QP, 1 },
		{ IB_CM_REJ_TIMEOUT, 4 },
		{ IB_CM_REJ_INVALID_SERVICE_ID, 8 },
		{ IB_CM_REJ_INVALID_TRANSPORT_TYPE, 9 },
		{ IB_CM_REJ_STALE_CONN, 10 },
		{ IB_CM_REJ_INVALID_GID, 12 },
		{ IB_CM_REJ_INVALID_LID, 13 },
		{ IB_CM_REJ_PORT_CM_REDIRECT, 24 },
		{ IB_CM_REJ_PORT_REDIRECT, 25 },
		{ IB_CM_REJ_INVALID_MTU, 26 },
		{ IB_CM_REJ_CONSUMER_DEFINED, 28 },
		{ IB_CM_REJ_INVALID_RNR_RETRY, 29 },
		{ IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID, 30 },
		{ IB_CM_REJ_INVALID_CLASS_VERSION, 31 },
		{ IB_CM_REJ_INVALID_FLOW_LABEL, 32 },
		{ IB_CM_REJ_INVALID_ALT_FLOW_LABEL, 33 },
		{ IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED, 35 },
		{ IB_CM_APR_UNSUPPORTED, 2 },
		{ IB_CM_APR_INVALID_SL, 13 },
		{ IB_SIDR_UNSUPPORTED, 1 },
		{ IB_SIDR_UNSUPPORTED_VERSION, 5 },
		{ IB_CM_SIDR_REQ_RCVD, 15 },
		{ IB_CM_TIMEWAIT, 13 },
		{ IB_CM_SIDR_REP_RECEIVED, 17 },
		{ IB_CM_TIMEWAIT_EXIT, 9 },
		{ CM_MSG_RESPONSE_OTHER, 2 },
		{ IB_CM_MRA_FLAG_DELAY, 0x80 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i].got, v[i].want, "value %u", i);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(IB_CM_ASSIGN_SERVICE_ID),
			0x0200000000000000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(IB_SDP_SERVICE_ID_MASK),
			0xFFFFFFFFFFFF0000ULL);
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(IB_CM_REJ_INVALID_SERVICE_ID),
			   "invalid service ID");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(34), "unrecognized reason");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(-1), "unrecognized reason");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(1000), "unrecognized reason");
}

/*
 * A REQ path put together byte by byte as the IBA draws it, read into a
 * struct sa_path_rec from the responder's side, and written back from
 * the requester's side: the same bytes.
 */
static void cm_msgs_req_path(struct kunit *test)
{
	static const u8 wire[44] = {
		0x00, 0x05, 0x00, 0x09,			/* LIDs 5 and 9 */
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,		/* local GID */
		0x02, 0x76, 0x6d, 0xff, 0xfe, 0, 0, 0x05,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,		/* remote GID */
		0x02, 0x76, 0x6d, 0xff, 0xfe, 0, 0, 0x09,
		0x12, 0x34, 0x50, 0x07,			/* flow, rate 7 */
		0x20, 0x01, 0x38, 0x70,			/* TC, HL, SL 3 */
	};
	struct cm_req_path back = {};
	struct sa_path_rec p;

	cm_path_from_req((const struct cm_req_path *)wire,
			 cpu_to_be16(0xffff), IB_MTU_2048, cpu_to_be64(42),
			 &p);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p.dlid), 5);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p.slid), 9);
	KUNIT_EXPECT_EQ(test, p.dgid.raw[15], 5);
	KUNIT_EXPECT_EQ(test, p.sgid.raw[15], 9);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p.flow_label), 0x12345U);
	KUNIT_EXPECT_EQ(test, p.rate, 7);
	KUNIT_EXPECT_EQ(test, p.traffic_class, 0x20);
	KUNIT_EXPECT_EQ(test, p.hop_limit, 1);
	KUNIT_EXPECT_EQ(test, p.sl, 3);
	/* LocalACKTimeout 14 (0x70 >> 3): life time 13 */
	KUNIT_EXPECT_EQ(test, p.packet_life_time, 13);
	KUNIT_EXPECT_EQ(test, p.mtu, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p.pkey), 0xffff);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p.service_id), 42ULL);

	/* and back, as the other side: local and remote swap */
	swap(p.dlid, p.slid);
	swap(p.dgid, p.sgid);
	cm_path_to_req(&p, &back, 14, false);
	/* SubnetLocal (hop limit 1): the bit the wire above has set */
	KUNIT_EXPECT_EQ(test, cm_diff((u8 *)&back, wire, sizeof(wire)), -1);
	KUNIT_EXPECT_TRUE(test, cm_req_path_present(&back));
	memset(&back, 0, sizeof(back));
	KUNIT_EXPECT_FALSE(test, cm_req_path_present(&back));
}

/* A REQ's transport service type, and the REQ's fields read whole. */
static void cm_msgs_req(struct kunit *test)
{
	u8 *mad = kunit_kzalloc(test, IB_MGMT_MAD_SIZE, GFP_KERNEL);
	struct cm_req_msg *req = (struct cm_req_msg *)mad;

	KUNIT_ASSERT_NOT_NULL(test, mad);
	mad[HDR + 3] = 0x44;			/* LocalCommID */
	mad[HDR + 15] = 0x77;			/* ServiceID */
	mad[HDR + 16] = 0x02;			/* LocalCAGUID */
	mad[HDR + 33] = 0x01;			/* LocalQPN 0x000100 */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(req->local_comm_id), 0x44U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(req->service_id), 0x77ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(req->local_ca_guid),
			0x0200000000000000ULL);
	KUNIT_EXPECT_EQ(test, cm_get(req, CM_REQ_LOCAL_QPN), 0x100U);

	KUNIT_EXPECT_EQ(test, cm_req_qp_type(req), IB_QPT_RC);
	mad[HDR + 43] = 1 << 1;
	KUNIT_EXPECT_EQ(test, cm_req_qp_type(req), IB_QPT_UC);
	mad[HDR + 43] = 2 << 1;
	KUNIT_EXPECT_EQ(test, cm_req_qp_type(req), IB_QPT_MAX);
	mad[HDR + 43] = 3 << 1;
	KUNIT_EXPECT_EQ(test, cm_req_qp_type(req), IB_QPT_MAX);
}

/* ACK timeouts: 2 x life time + ACK delay, in powers of two. */
static void cm_msgs_ack_timeout(struct kunit *test)
{
	/* 2^1 + 2^0 rounds up to 2^2 */
	KUNIT_EXPECT_EQ(test, cm_ack_timeout(0, 0), 2);
	KUNIT_EXPECT_EQ(test, cm_ack_timeout(15, 18), 19);
	KUNIT_EXPECT_EQ(test, cm_ack_timeout(19, 18), 20);
	KUNIT_EXPECT_EQ(test, cm_ack_timeout(18, 18), 20);
	KUNIT_EXPECT_EQ(test, cm_ack_timeout(25, 10), 25);
	KUNIT_EXPECT_EQ(test, cm_ack_timeout(31, 31), 31);
	KUNIT_EXPECT_EQ(test, cm_convert_to_ms(0), 1U);
	KUNIT_EXPECT_EQ(test, cm_convert_to_ms(8), 1U);
	KUNIT_EXPECT_EQ(test, cm_convert_to_ms(12), 16U);
	KUNIT_EXPECT_EQ(test, cm_convert_to_ms(18), 1024U);
	KUNIT_EXPECT_EQ(test, cm_convert_to_ms(31), 1U << 23);
}

static struct kunit_case cm_msgs_cases[] = {
	KUNIT_CASE(cm_msgs_field_bits),
	KUNIT_CASE(cm_msgs_members),
	KUNIT_CASE(cm_msgs_sizes),
	KUNIT_CASE(cm_msgs_abi_values),
	KUNIT_CASE(cm_msgs_req_path),
	KUNIT_CASE(cm_msgs_req),
	KUNIT_CASE(cm_msgs_ack_timeout),
	{}
};

static struct kunit_suite cm_msgs_suite = {
	.name = "ib_cm_msgs",
	.test_cases = cm_msgs_cases,
};

kunit_test_suite(cm_msgs_suite);
MODULE_LICENSE("Dual BSD/GPL");
