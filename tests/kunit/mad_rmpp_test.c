// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the arithmetic and the decisions of kernel RMPP
 * (core/mad_rmpp.c, IBA 13.6, mgmt.md section 3.2): how many segments a
 * send has and how much padding, the PayloadLength of each segment, the
 * mad_len of a reassembled message (the sender's figures fed to the
 * receiver must give back the sender's length), the checks of a received
 * DATA header, the checks of a complete message against its first
 * segment, what a sender does with an ACK and what a receiver does with a
 * segment.
 */
#include <kunit/test.h>
#include <rdma/ib_mad.h>

#include "mad_priv.h"

/* seg_count and pad for the SA (56-byte header, 200 bytes a segment) */
static void rmpp_seg_count_sa(struct kunit *test)
{
	static const struct {
		int data_len, count, pad;
	} cases[] = {
		{ 0, 1, 200 }, { 1, 1, 199 }, { 199, 1, 1 }, { 200, 1, 0 },
		{ 201, 2, 199 }, { 400, 2, 0 }, { 1000, 5, 0 },
		{ 4000, 20, 0 }, { 60000, 300, 0 }, { 60001, 301, 199 },
	};
	unsigned int i;
	int pad;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pad = -1;
		KUNIT_EXPECT_EQ_MSG(test,
				    ib_rmpp_seg_count(IB_MGMT_SA_HDR,
						      cases[i].data_len, &pad),
				    cases[i].count, "data_len %d",
				    cases[i].data_len);
		KUNIT_EXPECT_EQ_MSG(test, pad, cases[i].pad, "data_len %d",
				    cases[i].data_len);
	}
}

/* other classes' headers, and the sizes that make no sense */
static void rmpp_seg_count_other(struct kunit *test)
{
	int pad;

	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_DEVICE_HDR, 192, &pad),
			1);
	KUNIT_EXPECT_EQ(test, pad, 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_DEVICE_HDR, 193, &pad),
			2);
	KUNIT_EXPECT_EQ(test, pad, 191);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_VENDOR_HDR, 432, &pad),
			2);
	KUNIT_EXPECT_EQ(test, pad, 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_RMPP_HDR, 220, &pad),
			1);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_MAD_HDR, 10, &pad),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_MAD_SIZE, 10, &pad),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_SA_HDR, -1, &pad),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_count(IB_MGMT_SA_HDR, INT_MAX, &pad),
			-EINVAL);
}

/* PayloadLength: whole payload first, remainder last, 0 in between */
static void rmpp_send_paylen(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(1, 5, 0), 1100U);
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(2, 5, 0), 0U);
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(4, 5, 0), 0U);
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(5, 5, 0), 220U);
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(1, 2, 199), 241U);
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(2, 2, 199), 21U);
	/* one segment: FIRST and LAST, the last one's rule */
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(1, 1, 199), 21U);
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(1, 1, 200), 20U);
	KUNIT_EXPECT_EQ(test, ib_rmpp_send_paylen(1, 1, 0), 220U);
}

/* what the sender sends, the receiver measures back, for every size */
static void rmpp_round_trip(struct kunit *test)
{
	static const int hdrs[] = {
		IB_MGMT_SA_HDR, IB_MGMT_DEVICE_HDR, IB_MGMT_VENDOR_HDR,
	};
	struct ib_rmpp_hdr first = {}, last = {};
	unsigned int h;
	int len, count, pad;
	u32 fp, lp;

	for (h = 0; h < ARRAY_SIZE(hdrs); h++) {
		for (len = 0; len <= 3000; len++) {
			count = ib_rmpp_seg_count(hdrs[h], len, &pad);
			fp = ib_rmpp_send_paylen(1, count, pad);
			lp = ib_rmpp_send_paylen(count, count, pad);
			KUNIT_ASSERT_EQ(test, ib_rmpp_recv_len(hdrs[h], count,
							       lp),
					hdrs[h] + len);
			/* the receiver accepts both ends */
			first.rmpp_rtime_flags = IB_MGMT_RMPP_FLAG_ACTIVE |
						 IB_MGMT_RMPP_FLAG_FIRST;
			if (count == 1)
				first.rmpp_rtime_flags |= IB_MGMT_RMPP_FLAG_LAST;
			first.seg_num = cpu_to_be32(1);
			first.paylen_newwin = cpu_to_be32(fp);
			KUNIT_ASSERT_EQ(test,
					ib_rmpp_check_data(&first, hdrs[h]), 0);
			last.rmpp_rtime_flags = IB_MGMT_RMPP_FLAG_ACTIVE |
						IB_MGMT_RMPP_FLAG_LAST;
			last.seg_num = cpu_to_be32(count);
			last.paylen_newwin = cpu_to_be32(lp);
			if (count > 1)
				KUNIT_ASSERT_EQ(test,
						ib_rmpp_check_data(&last,
								   hdrs[h]), 0);
			KUNIT_ASSERT_EQ(test,
					ib_rmpp_check_last(hdrs[h],
							   count > 1 ? fp : 0,
							   count, lp), 0);
		}
	}
}

static struct ib_rmpp_hdr data_hdr(u8 flags, u32 seg, u32 paylen)
{
	struct ib_rmpp_hdr h = {
		.rmpp_version = IB_MGMT_RMPP_VERSION,
		.rmpp_type = IB_MGMT_RMPP_TYPE_DATA,
		.rmpp_rtime_flags = IB_MGMT_RMPP_FLAG_ACTIVE | flags,
		.seg_num = cpu_to_be32(seg),
		.paylen_newwin = cpu_to_be32(paylen),
	};

	return h;
}

/* the checks of a received DATA header */
static void rmpp_check_data(struct kunit *test)
{
	const u8 F = IB_MGMT_RMPP_FLAG_FIRST, L = IB_MGMT_RMPP_FLAG_LAST;
	struct ib_rmpp_hdr h;

	h = data_hdr(F, 1, 0);		/* length unknown */
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR), 0);
	h = data_hdr(F, 1, 660);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR), 0);
	h = data_hdr(0, 2, 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR), 0);
	h = data_hdr(0, 0x7fffffff, 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR), 0);

	/* segment numbers */
	h = data_hdr(F, 0, 660);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_SEG);
	h = data_hdr(0, 0, 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_SEG);
	h = data_hdr(F, 2, 660);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_SEG);
	h = data_hdr(0, 1, 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_SEG);

	/* PayloadLength of a first segment */
	h = data_hdr(F, 1, 100);	/* less than two segments */
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	h = data_hdr(F, 1, 220);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	h = data_hdr(F, 1, 221);	/* a last segment of 1 < 20 bytes */
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	h = data_hdr(F, 1, 240);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR), 0);

	/* PayloadLength of a last segment: 20 (SA header share) to 220 */
	h = data_hdr(L, 3, 19);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	h = data_hdr(L, 3, 20);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR), 0);
	h = data_hdr(L, 3, 221);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	h = data_hdr(F | L, 1, 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	h = data_hdr(F | L, 1, 0xffffffff);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	h = data_hdr(L, 2, 27);		/* a DM last segment needs 28 */
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_DEVICE_HDR),
			IB_MGMT_RMPP_STATUS_BAD_LEN);

	/* a status on DATA */
	h = data_hdr(F, 1, 660);
	h.rmpp_status = IB_MGMT_RMPP_STATUS_UNSPEC;
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_data(&h, IB_MGMT_SA_HDR),
			IB_MGMT_RMPP_STATUS_BAD_STATUS);
}

/* a complete message against what its first segment announced */
static void rmpp_check_last(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_last(IB_MGMT_SA_HDR, 660, 3, 220),
			0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_last(IB_MGMT_SA_HDR, 0, 7, 50), 0);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_last(IB_MGMT_SA_HDR, 660, 2, 220),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_last(IB_MGMT_SA_HDR, 660, 4, 220),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_last(IB_MGMT_SA_HDR, 650, 3, 220),
			IB_MGMT_RMPP_STATUS_BAD_LEN);
	KUNIT_EXPECT_EQ(test, ib_rmpp_check_last(IB_MGMT_SA_HDR, 650, 3, 210),
			0);
	/* mad_len: SA header + segments * 200 - pad */
	KUNIT_EXPECT_EQ(test, ib_rmpp_recv_len(IB_MGMT_SA_HDR, 3, 220), 656);
	KUNIT_EXPECT_EQ(test, ib_rmpp_recv_len(IB_MGMT_SA_HDR, 1, 20), 56);
	KUNIT_EXPECT_EQ(test, ib_rmpp_recv_len(IB_MGMT_SA_HDR, 300, 220),
			60056);
}

/* the sender's view of an ACK */
static void rmpp_ack_verdict(struct kunit *test)
{
	/* first segment sent, window 1, 20 segments */
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(1, 33, 1, 0, 1, 20),
			IB_RMPP_ACK_MORE);
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(1, 1, 1, 0, 1, 20),
			IB_RMPP_ACK_MORE);
	/* the same ACK twice */
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(1, 33, 1, 1, 20, 20),
			IB_RMPP_ACK_OLD);
	/* an older one after a newer */
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(5, 37, 10, 9, 20, 20),
			IB_RMPP_ACK_OLD);
	/* only the window grows */
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(3, 10, 5, 3, 5, 20),
			IB_RMPP_ACK_MORE);
	/* the window shrinks: ignored */
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(3, 4, 5, 3, 5, 20),
			IB_RMPP_ACK_OLD);
	/* everything */
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(20, 52, 20, 1, 20, 20),
			IB_RMPP_ACK_ALL);
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(1, 33, 1, 0, 1, 1),
			IB_RMPP_ACK_ALL);
	/* nonsense */
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(5, 4, 10, 1, 10, 20),
			IB_RMPP_ACK_W2S);
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(5, 10, 1, 0, 1, 20),
			IB_RMPP_ACK_S2B);
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(21, 30, 20, 0, 20, 20),
			IB_RMPP_ACK_S2B);
	KUNIT_EXPECT_EQ(test, ib_rmpp_ack_verdict(0xffffffff, 0xffffffff, 20,
						  0, 20, 20),
			IB_RMPP_ACK_S2B);
}

/* the receiver's view of a later segment, and its window */
static void rmpp_seg_verdict(struct kunit *test)
{
	/* in order 1, ACKed 1, window to 33 */
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(2, 1, 1, 33, false),
			IB_RMPP_SEG_STORE);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(33, 1, 1, 33, false),
			IB_RMPP_SEG_STORE);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(34, 1, 1, 33, false),
			IB_RMPP_SEG_DROP);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(0xffffffff, 1, 1, 33, false),
			IB_RMPP_SEG_DROP);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(1, 1, 1, 33, false),
			IB_RMPP_SEG_REACK);
	/* received in order up to 7, not ACKed yet */
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(5, 7, 1, 33, false),
			IB_RMPP_SEG_DUP);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(8, 7, 1, 33, false),
			IB_RMPP_SEG_STORE);
	/* complete: anything is answered with the last ACK */
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(3, 3, 3, 33, true),
			IB_RMPP_SEG_REACK);
	KUNIT_EXPECT_EQ(test, ib_rmpp_seg_verdict(9, 3, 3, 33, true),
			IB_RMPP_SEG_REACK);
	/* the window is an eighth of the receive queue */
	KUNIT_EXPECT_EQ(test, IB_RMPP_WINDOW, 32);
}

static struct kunit_case mad_rmpp_test_cases[] = {
	KUNIT_CASE(rmpp_seg_count_sa),
	KUNIT_CASE(rmpp_seg_count_other),
	KUNIT_CASE(rmpp_send_paylen),
	KUNIT_CASE(rmpp_round_trip),
	KUNIT_CASE(rmpp_check_data),
	KUNIT_CASE(rmpp_check_last),
	KUNIT_CASE(rmpp_ack_verdict),
	KUNIT_CASE(rmpp_seg_verdict),
	{}
};

static struct kunit_suite mad_rmpp_test_suite = {
	.name = "ib_core_mad_rmpp",
	.test_cases = mad_rmpp_test_cases,
};

kunit_test_suite(mad_rmpp_test_suite);
