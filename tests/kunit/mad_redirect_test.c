// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the answer QP1 gives to a request of a redirected class
 * (ib_mad_build_redirect(), IBA 13.5.3.3): the response method, the
 * request's TID, attribute and modifier, status 0x0002, and the
 * ClassPortInfo at the class's data offset (byte 64 for the PMA, where
 * libibmad reads it); no answer to responses, Send and Trap.
 */
#include <kunit/test.h>
#include <asm/unaligned.h>
#include <rdma/ib_mad.h>

#include "mad_priv.h"

static void mrd_request(struct ib_mad *in, u8 mgmt_class, u8 method)
{
	memset(in, 0xa5, sizeof(*in));
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = mgmt_class;
	in->mad_hdr.class_version = 1;
	in->mad_hdr.method = method;
	in->mad_hdr.status = 0;
	in->mad_hdr.tid = cpu_to_be64(0x0000002a12345678ULL);
	in->mad_hdr.attr_id = cpu_to_be16(0x0012);
	in->mad_hdr.attr_mod = cpu_to_be32(0x01020304);
}

static void mrd_cpi(struct ib_class_port_info *cpi)
{
	memset(cpi, 0, sizeof(*cpi));
	cpi->base_version = 1;
	cpi->class_version = 1;
	cpi->capability_mask = cpu_to_be16(0x1200);
	cpi->redirect_lid = cpu_to_be16(2);
	cpi->redirect_pkey = cpu_to_be16(0xffff);
	cpi->redirect_qp = cpu_to_be32(0x10);
	cpi->redirect_qkey = cpu_to_be32(IB_MAD_REDIRECT_QKEY);
}

/* A PMA Get: GetResp, status 0x0002, ClassPortInfo at byte 64. */
static void mad_redirect_pma_get_test(struct kunit *test)
{
	struct ib_class_port_info cpi;
	struct ib_mad *in, *out;
	const u8 *o;
	int i;

	in = kunit_kzalloc(test, 2 * sizeof(*in), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	out = in + 1;
	mrd_request(in, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_GET);
	mrd_cpi(&cpi);
	KUNIT_ASSERT_TRUE(test, ib_mad_build_redirect(in, &cpi, out));
	KUNIT_EXPECT_EQ(test, out->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->mad_hdr.status),
			IB_MGMT_MAD_STATUS_REDIRECT_REQD);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(out->mad_hdr.tid),
			0x0000002a12345678ULL);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->mad_hdr.attr_id), 0x0012);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out->mad_hdr.attr_mod), 0x01020304);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.mgmt_class, IB_MGMT_CLASS_PERF_MGMT);
	KUNIT_EXPECT_EQ(test, ib_mad_redirect_cpi_offset(IB_MGMT_CLASS_PERF_MGMT),
			64);
	o = (const u8 *)out;
	KUNIT_EXPECT_EQ(test, memcmp(o + 64, &cpi, sizeof(cpi)), 0);
	/* IBA layout: RedirectLID at 28, P_Key 30, QP 32, Q_Key 36 */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(o + 64 + 28), 2);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(o + 64 + 30), 0xffff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(o + 64 + 32) & 0xffffff, 0x10);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(o + 64 + 36),
			IB_MAD_REDIRECT_QKEY);
	/* nothing of the request's data leaks into the answer */
	for (i = 24; i < 64; i++)
		KUNIT_EXPECT_EQ(test, o[i], 0);
	for (i = 64 + sizeof(cpi); i < IB_MGMT_MAD_SIZE; i++)
		KUNIT_EXPECT_EQ(test, o[i], 0);
}

/* Set is answered with GetResp, other requests with their response. */
static void mad_redirect_methods_test(struct kunit *test)
{
	static const struct {
		u8 method;
		u8 resp;	/* 0: no answer */
	} cases[] = {
		{ IB_MGMT_METHOD_GET, IB_MGMT_METHOD_GET_RESP },
		{ IB_MGMT_METHOD_SET, IB_MGMT_METHOD_GET_RESP },
		{ IB_MGMT_METHOD_REPORT, IB_MGMT_METHOD_REPORT_RESP },
		{ 0x12 /* GetTable */, 0x92 },
		{ IB_MGMT_METHOD_SEND, 0 },
		{ IB_MGMT_METHOD_TRAP, 0 },
		{ IB_MGMT_METHOD_GET_RESP, 0 },
		{ IB_MGMT_METHOD_REPORT_RESP, 0 },
		{ IB_MGMT_METHOD_TRAP_REPRESS, 0 },
	};
	struct ib_class_port_info cpi;
	struct ib_mad *in, *out;
	unsigned int i;
	bool ret;

	in = kunit_kzalloc(test, 2 * sizeof(*in), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	out = in + 1;
	mrd_cpi(&cpi);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		mrd_request(in, IB_MGMT_CLASS_DEVICE_MGMT, cases[i].method);
		ret = ib_mad_build_redirect(in, &cpi, out);
		KUNIT_EXPECT_EQ_MSG(test, ret, !!cases[i].resp, "method 0x%x",
				    cases[i].method);
		if (ret && cases[i].resp)
			KUNIT_EXPECT_EQ_MSG(test, out->mad_hdr.method,
					    cases[i].resp, "method 0x%x",
					    cases[i].method);
	}
}

/* Where each class carries the ClassPortInfo. */
static void mad_redirect_offset_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ib_mad_redirect_cpi_offset(IB_MGMT_CLASS_PERF_MGMT),
			64);
	KUNIT_EXPECT_EQ(test, ib_mad_redirect_cpi_offset(IB_MGMT_CLASS_BM), 64);
	KUNIT_EXPECT_EQ(test, ib_mad_redirect_cpi_offset(IB_MGMT_CLASS_CONG_MGMT),
			64);
	KUNIT_EXPECT_EQ(test,
			ib_mad_redirect_cpi_offset(IB_MGMT_CLASS_DEVICE_MGMT),
			64);
	KUNIT_EXPECT_EQ(test, ib_mad_redirect_cpi_offset(IB_MGMT_CLASS_SUBN_ADM),
			56);
	KUNIT_EXPECT_EQ(test, ib_mad_redirect_cpi_offset(IB_MGMT_CLASS_CM), 24);
	KUNIT_EXPECT_EQ(test, ib_mad_redirect_cpi_offset(0x30), 40);
}

static struct kunit_case mad_redirect_test_cases[] = {
	KUNIT_CASE(mad_redirect_pma_get_test),
	KUNIT_CASE(mad_redirect_methods_test),
	KUNIT_CASE(mad_redirect_offset_test),
	{}
};

static struct kunit_suite mad_redirect_test_suite = {
	.name = "ib_core_mad_redirect",
	.test_cases = mad_redirect_test_cases,
};

kunit_test_suite(mad_redirect_test_suite);
