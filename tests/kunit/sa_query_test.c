// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the SA client (core/sa_query.c):
 *
 *  - the wire form of PathRecord, MCMemberRecord and ServiceRecord: every
 *    field at the byte offset and bit position of shared/abi/mgmt.md
 *    section 3.3 (IBA 15.2.5), against byte arrays written by hand, each
 *    field cut to its width, and back;
 *  - the checks of an answer against its request: class, version,
 *    method, attribute, TID, SA status, lengths, AttributeOffset, and
 *    records that straddle RMPP segments;
 *  - queries on a fake device (sa_fake.c) whose SA the test plays: the
 *    request on the wire, the answer handed back, timeouts with their
 *    resends, cancels, exactly one callback, the client's reference,
 *    device removal with a query in flight, and the address handle of a
 *    path.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <rdma/ib_sa.h>

#include "sa.h"
#include "sa_fake.h"

/* ------------------------------------------------------------------ */
/* Records on the wire                                                 */
/* ------------------------------------------------------------------ */

static void expect_bytes(struct kunit *test, const u8 *got, const u8 *want,
			 size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "%s: byte %zu", what,
				    i);
}

/* A PathRecord with every field set, and its 64 bytes by hand. */
static void sa_path_full(struct sa_path_rec *rec, u8 *w)
{
	int i;

	memset(rec, 0, sizeof(*rec));
	rec->service_id = cpu_to_be64(0x0102030405060708ULL);
	for (i = 0; i < 16; i++) {
		rec->dgid.raw[i] = 0x10 + i;
		rec->sgid.raw[i] = 0x20 + i;
	}
	rec->dlid = cpu_to_be16(0x3132);
	rec->slid = cpu_to_be16(0x3334);
	rec->raw_traffic = 1;
	rec->flow_label = cpu_to_be32(0xabcde);
	rec->hop_limit = 0x45;
	rec->traffic_class = 0x46;
	rec->reversible = 1;
	rec->numb_path = 0x47;
	rec->pkey = cpu_to_be16(0x4849);
	rec->qos_class = cpu_to_be16(0xabc);
	rec->sl = 0xd;
	rec->mtu_selector = 2;
	rec->mtu = 0x15;
	rec->rate_selector = 1;
	rec->rate = 0x2a;
	rec->packet_life_time_selector = 3;
	rec->packet_life_time = 0x3f;
	rec->preference = 0x58;

	memset(w, 0, 64);
	for (i = 0; i < 8; i++)
		w[i] = i + 1;				/* ServiceID @0 */
	for (i = 0; i < 16; i++) {
		w[8 + i] = 0x10 + i;			/* DGID @8 */
		w[24 + i] = 0x20 + i;			/* SGID @24 */
	}
	w[40] = 0x31; w[41] = 0x32;			/* DLID @40 */
	w[42] = 0x33; w[43] = 0x34;			/* SLID @42 */
	/* RawTraffic b31, reserved 30:28, FlowLabel 27:8, HopLimit 7:0 */
	w[44] = 0x80 | 0x0a; w[45] = 0xbc; w[46] = 0xde; w[47] = 0x45;
	w[48] = 0x46;					/* TClass @48 */
	w[49] = 0x80 | 0x47;				/* Reversible|NumbPath */
	w[50] = 0x48; w[51] = 0x49;			/* P_Key @50 */
	w[52] = 0xab; w[53] = 0xcd;			/* QoSClass 15:4, SL 3:0 */
	w[54] = 0x80 | 0x15;				/* MTUSelector|MTU */
	w[55] = 0x40 | 0x2a;				/* RateSelector|Rate */
	w[56] = 0xc0 | 0x3f;				/* PLTSelector|PLT */
	w[57] = 0x58;					/* Preference @57 */
}

static void sa_pack_path_offsets(struct kunit *test)
{
	struct sa_path_rec rec, back;
	u8 want[64], got[64];

	sa_path_full(&rec, want);
	memset(got, 0xee, sizeof(got));
	ib_sa_pack_path(&rec, got);
	expect_bytes(test, got, want, 64, "PathRecord");

	ib_sa_unpack_path(want, &back);
	KUNIT_EXPECT_EQ(test, back.rec_type, SA_PATH_REC_TYPE_IB);
	KUNIT_EXPECT_EQ(test, back.flags, 0U);
	KUNIT_EXPECT_EQ(test, memcmp(&back, &rec, sizeof(rec)), 0);
}

/* One field at a time: exactly its bits on the wire, nothing else. */
static void sa_pack_path_fields(struct kunit *test)
{
	static const struct {
		const char *name;
		int off;	/* first byte */
		u8 bytes[4];	/* what the field at its widest gives */
		int n;
	} cases[] = {
		{ "raw_traffic", 44, { 0x80 }, 1 },
		{ "flow_label", 44, { 0x0f, 0xff, 0xff }, 3 },
		{ "hop_limit", 47, { 0xff }, 1 },
		{ "reversible", 49, { 0x80 }, 1 },
		{ "numb_path", 49, { 0x7f }, 1 },
		{ "qos_class", 52, { 0xff, 0xf0 }, 2 },
		{ "sl", 53, { 0x0f }, 1 },
		{ "mtu_selector", 54, { 0xc0 }, 1 },
		{ "mtu", 54, { 0x3f }, 1 },
		{ "rate_selector", 55, { 0xc0 }, 1 },
		{ "rate", 55, { 0x3f }, 1 },
		{ "packet_life_time_selector", 56, { 0xc0 }, 1 },
		{ "packet_life_time", 56, { 0x3f }, 1 },
	};
	struct sa_path_rec rec;
	u8 got[64], want[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&rec, 0, sizeof(rec));
		/* all ones: what does not fit the field must not leak */
		switch (i) {
		case 0:
			rec.raw_traffic = 0xff;
			break;
		case 1:
			rec.flow_label = cpu_to_be32(0xffffffff);
			break;
		case 2:
			rec.hop_limit = 0xff;
			break;
		case 3:
			rec.reversible = 0xff;
			break;
		case 4:
			rec.numb_path = 0xff;
			break;
		case 5:
			rec.qos_class = cpu_to_be16(0xffff);
			break;
		case 6:
			rec.sl = 0xff;
			break;
		case 7:
			rec.mtu_selector = 0xff;
			break;
		case 8:
			rec.mtu = 0xff;
			break;
		case 9:
			rec.rate_selector = 0xff;
			break;
		case 10:
			rec.rate = 0xff;
			break;
		case 11:
			rec.packet_life_time_selector = 0xff;
			break;
		case 12:
			rec.packet_life_time = 0xff;
			break;
		}
		memset(want, 0, sizeof(want));
		memcpy(want + cases[i].off, cases[i].bytes, cases[i].n);
		ib_sa_pack_path(&rec, got);
		expect_bytes(test, got, want, 64, cases[i].name);
	}
}

/* Reserved bits on the wire are ignored; each field read at its place. */
static void sa_unpack_path_fields(struct kunit *test)
{
	struct sa_path_rec rec;
	u8 w[64];

	memset(w, 0, sizeof(w));
	w[44] = 0x70;		/* reserved 30:28 only */
	w[58] = 0xff;		/* reserved tail */
	w[63] = 0xff;
	ib_sa_unpack_path(w, &rec);
	KUNIT_EXPECT_EQ(test, rec.raw_traffic, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rec.flow_label), 0U);
	KUNIT_EXPECT_EQ(test, rec.preference, 0);

	memset(w, 0, sizeof(w));
	w[44] = 0x8f; w[45] = 0xff; w[46] = 0xff;
	w[52] = 0x12; w[53] = 0x34;
	ib_sa_unpack_path(w, &rec);
	KUNIT_EXPECT_EQ(test, rec.raw_traffic, 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rec.flow_label), 0xfffffU);
	KUNIT_EXPECT_EQ(test, rec.hop_limit, 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rec.qos_class), 0x123);
	KUNIT_EXPECT_EQ(test, rec.sl, 4);
}

static void sa_pack_mcmember_offsets(struct kunit *test)
{
	struct ib_sa_mcmember_rec rec = {}, back;
	u8 want[IB_SA_MCMEMBER_REC_SIZE], got[IB_SA_MCMEMBER_REC_SIZE];
	int i;

	for (i = 0; i < 16; i++) {
		rec.mgid.raw[i] = 0xa0 + i;
		rec.port_gid.raw[i] = 0xb0 + i;
	}
	rec.qkey = cpu_to_be32(0x01020304);
	rec.mlid = cpu_to_be16(0xc005);
	rec.mtu_selector = 2;
	rec.mtu = 4;
	rec.traffic_class = 0x66;
	rec.pkey = cpu_to_be16(0x7fff);
	rec.rate_selector = 1;
	rec.rate = 3;
	rec.packet_life_time_selector = 3;
	rec.packet_life_time = 0x12;
	rec.sl = 0xe;
	rec.flow_label = cpu_to_be32(0x54321);
	rec.hop_limit = 0x77;
	rec.scope = 0x5;
	rec.join_state = 0x9;
	rec.proxy_join = 1;

	memset(want, 0, sizeof(want));
	for (i = 0; i < 16; i++) {
		want[i] = 0xa0 + i;		/* MGID @0 */
		want[16 + i] = 0xb0 + i;	/* PortGID @16 */
	}
	want[32] = 1; want[33] = 2; want[34] = 3; want[35] = 4;	/* Q_Key */
	want[36] = 0xc0; want[37] = 0x05;	/* MLID @36 */
	want[38] = 0x80 | 4;			/* MTUSelector|MTU */
	want[39] = 0x66;			/* TClass */
	want[40] = 0x7f; want[41] = 0xff;	/* P_Key @40 */
	want[42] = 0x40 | 3;			/* RateSelector|Rate */
	want[43] = 0xc0 | 0x12;			/* PLTSelector|PLT */
	/* SL 31:28, FlowLabel 27:8, HopLimit 7:0 */
	want[44] = 0xe5; want[45] = 0x43; want[46] = 0x21; want[47] = 0x77;
	want[48] = 0x59;			/* Scope 7:4, JoinState 3:0 */
	want[49] = 0x80;			/* ProxyJoin b7 */

	memset(got, 0xee, sizeof(got));
	ib_sa_pack_mcmember(&rec, got);
	expect_bytes(test, got, want, sizeof(want), "MCMemberRecord");
	ib_sa_unpack_mcmember(want, &back);
	KUNIT_EXPECT_EQ(test, memcmp(&back, &rec, sizeof(rec)), 0);

	/* widths: the JoinState nibble and the SL do not spill */
	memset(&rec, 0, sizeof(rec));
	rec.join_state = 0xff;
	rec.sl = 0xff;
	rec.scope = 0xff;
	rec.proxy_join = 0xff;
	ib_sa_pack_mcmember(&rec, got);
	memset(want, 0, sizeof(want));
	want[44] = 0xf0;
	want[48] = 0xff;
	want[49] = 0x80;
	expect_bytes(test, got, want, sizeof(want), "MCMemberRecord widths");
}

static void sa_pack_service_offsets(struct kunit *test)
{
	struct ib_sa_service_rec *rec, *back;
	u8 *want, *got;
	int i;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	back = kunit_kzalloc(test, sizeof(*back), GFP_KERNEL);
	want = kunit_kzalloc(test, IB_SA_SERVICE_REC_SIZE, GFP_KERNEL);
	got = kunit_kzalloc(test, IB_SA_SERVICE_REC_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rec && back && want && got);

	rec->id = 0x1112131415161718ULL;
	for (i = 0; i < 16; i++) {
		rec->gid.raw[i] = 0x20 + i;
		rec->key[i] = 0x30 + i;
		rec->data8[i] = 0x40 + i;
	}
	rec->pkey = cpu_to_be16(0x8001);
	rec->lease = 0x51525354;
	for (i = 0; i < 64; i++)
		rec->name[i] = 'A' + i % 26;
	for (i = 0; i < 8; i++)
		rec->data16[i] = 0x6000 + i;
	for (i = 0; i < 4; i++)
		rec->data32[i] = 0x70000000 + i;
	for (i = 0; i < 2; i++)
		rec->data64[i] = 0x8000000000000000ULL + i;

	for (i = 0; i < 8; i++)
		want[i] = 0x11 + i;			/* ServiceID @0 */
	for (i = 0; i < 16; i++) {
		want[8 + i] = 0x20 + i;			/* ServiceGID @8 */
		want[32 + i] = 0x30 + i;		/* ServiceKey @32 */
		want[112 + i] = 0x40 + i;		/* Data8 @112 */
	}
	want[24] = 0x80; want[25] = 0x01;		/* P_Key @24 */
	want[28] = 0x51; want[29] = 0x52; want[30] = 0x53; want[31] = 0x54;
	for (i = 0; i < 64; i++)
		want[48 + i] = 'A' + i % 26;		/* ServiceName @48 */
	for (i = 0; i < 8; i++) {			/* Data16 @128 */
		want[128 + 2 * i] = 0x60;
		want[129 + 2 * i] = i;
	}
	for (i = 0; i < 4; i++) {			/* Data32 @144 */
		want[144 + 4 * i] = 0x70;
		want[147 + 4 * i] = i;
	}
	for (i = 0; i < 2; i++) {			/* Data64 @160 */
		want[160 + 8 * i] = 0x80;
		want[167 + 8 * i] = i;
	}

	memset(got, 0xee, IB_SA_SERVICE_REC_SIZE);
	ib_sa_pack_service(rec, got);
	expect_bytes(test, got, want, IB_SA_SERVICE_REC_SIZE, "ServiceRecord");
	ib_sa_unpack_service(want, back);
	KUNIT_EXPECT_EQ(test, memcmp(back, rec, sizeof(*rec)), 0);
}

/* ------------------------------------------------------------------ */
/* Checks of answers                                                   */
/* ------------------------------------------------------------------ */

/* A received answer of up to 4 segments, as the MAD layer hands it over. */
struct fake_recv {
	struct ib_mad_recv_wc	wc;
	struct ib_wc		ibwc;
	struct ib_mad_recv_buf	seg[4];
	struct ib_sa_mad	mad[4];
};

static struct fake_recv *fake_recv(struct kunit *test,
				   const struct ib_sa_mad *req, int nsegs,
				   int data_len)
{
	struct fake_recv *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->ibwc.status = IB_WC_SUCCESS;
	r->wc.wc = &r->ibwc;
	r->wc.mad_seg_size = IB_MGMT_MAD_SIZE;
	r->wc.mad_len = IB_MGMT_SA_HDR + data_len;
	INIT_LIST_HEAD(&r->wc.rmpp_list);
	for (i = 0; i < nsegs; i++) {
		ksa_resp_init(&r->mad[i], req, 0);
		r->seg[i].mad = (struct ib_mad *)&r->mad[i];
		if (i == 0)
			r->wc.recv_buf = r->seg[0];
		list_add_tail(i ? &r->seg[i].list : &r->wc.recv_buf.list,
			      &r->wc.rmpp_list);
	}
	return r;
}

static void fake_req(struct ib_sa_mad *req, u8 method, u16 attr)
{
	memset(req, 0, sizeof(*req));
	req->mad_hdr.base_version = 1;
	req->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
	req->mad_hdr.class_version = 2;
	req->mad_hdr.method = method;
	req->mad_hdr.attr_id = cpu_to_be16(attr);
	req->mad_hdr.tid = cpu_to_be64(0x1234567800000042ULL);
}

static void sa_check_resp_good(struct kunit *test)
{
	struct ib_sa_mad req;
	struct ib_sa_resp resp;
	struct fake_recv *r;

	fake_req(&req, IB_MGMT_METHOD_GET, IB_SA_ATTR_PATH_REC);
	r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
	KUNIT_EXPECT_EQ(test, r->mad[0].mad_hdr.method, 0x81);
	KUNIT_ASSERT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), 0);
	KUNIT_EXPECT_EQ(test, resp.num_recs, 1);

	/* a Set is answered by GetResp, a Delete by DeleteResp */
	fake_req(&req, IB_MGMT_METHOD_SET, IB_SA_ATTR_MC_MEMBER_REC);
	r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
	KUNIT_EXPECT_EQ(test, r->mad[0].mad_hdr.method, 0x81);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 52, &resp), 0);
	fake_req(&req, IB_SA_METHOD_DELETE, IB_SA_ATTR_MC_MEMBER_REC);
	r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
	KUNIT_EXPECT_EQ(test, r->mad[0].mad_hdr.method, 0x95);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 52, &resp), 0);
}

/* Every header field that must match, broken one at a time: -EIO. */
static void sa_check_resp_header(struct kunit *test)
{
	struct ib_sa_mad req;
	struct ib_sa_resp resp;
	struct fake_recv *r;
	int i;

	fake_req(&req, IB_MGMT_METHOD_GET, IB_SA_ATTR_PATH_REC);
	for (i = 0; i < 7; i++) {
		r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
		switch (i) {
		case 0:
			r->mad[0].mad_hdr.base_version = 2;
			break;
		case 1:
			r->mad[0].mad_hdr.mgmt_class = 0x04;
			break;
		case 2:
			r->mad[0].mad_hdr.class_version = 1;
			break;
		case 3:
			r->mad[0].mad_hdr.method = 0x92;
			break;
		case 4:
			r->mad[0].mad_hdr.attr_id = cpu_to_be16(0x38);
			break;
		case 5:
			r->mad[0].mad_hdr.tid ^= cpu_to_be64(1);
			break;
		case 6:
			r->ibwc.status = IB_WC_GENERAL_ERR;
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test,
				    ib_sa_check_resp(&req, &r->wc, 64, &resp),
				    -EIO, "case %d", i);
	}
	/* the SA's status, any bit of it, is -EINVAL (as Linux) */
	for (i = 0; i < 16; i++) {
		r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
		r->mad[0].mad_hdr.status = cpu_to_be16(BIT(i));
		KUNIT_EXPECT_EQ_MSG(test,
				    ib_sa_check_resp(&req, &r->wc, 64, &resp),
				    -EINVAL, "status bit %d", i);
	}
}

/* Lengths: never a read past what the segments hold. */
static void sa_check_resp_lengths(struct kunit *test)
{
	struct ib_sa_mad req;
	struct ib_sa_resp resp;
	struct fake_recv *r;

	fake_req(&req, IB_MGMT_METHOD_GET, IB_SA_ATTR_PATH_REC);
	r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
	r->wc.mad_len = IB_MGMT_SA_HDR - 1;
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);
	/* a record longer than the data */
	r = fake_recv(test, &req, 1, 63);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);
	/* data claimed beyond the segments */
	r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA + 1);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);
	r = fake_recv(test, &req, 2, 3 * IB_MGMT_SA_DATA);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);
	/* segments of another size */
	r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
	r->wc.mad_seg_size = 2048;
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);
	/* a 176-byte ServiceRecord fits one MAD */
	fake_req(&req, IB_MGMT_METHOD_GET, IB_SA_ATTR_SERVICE_REC);
	r = fake_recv(test, &req, 1, IB_MGMT_SA_DATA);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 176, &resp), 0);
}

static void sa_check_resp_table(struct kunit *test)
{
	struct ib_sa_mad req;
	struct ib_sa_resp resp;
	struct fake_recv *r;
	u8 rec[64];
	int i;

	fake_req(&req, IB_SA_METHOD_GET_TABLE, IB_SA_ATTR_PATH_REC);
	/* no records */
	r = fake_recv(test, &req, 1, 0);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp),
			-ENOENT);
	/* AttributeOffset 0, or a stride shorter than a record */
	r = fake_recv(test, &req, 1, 128);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);
	r->mad[0].sa_hdr.attr_offset = cpu_to_be16(7);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);
	/* fewer bytes than one record */
	r = fake_recv(test, &req, 1, 60);
	r->mad[0].sa_hdr.attr_offset = cpu_to_be16(8);
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), -EIO);

	/* 4 records over 2 segments: the fourth straddles them */
	r = fake_recv(test, &req, 2, 256);
	r->mad[0].sa_hdr.attr_offset = cpu_to_be16(8);
	for (i = 0; i < 256; i++) {
		u8 v = i / 64 * 0x40 + i % 64;

		if (i < IB_MGMT_SA_DATA)
			r->mad[0].data[i] = v;
		else
			r->mad[1].data[i - IB_MGMT_SA_DATA] = v;
	}
	/* the copy in recv_buf is what the checks read first */
	r->wc.recv_buf.mad = (struct ib_mad *)&r->mad[0];
	KUNIT_ASSERT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), 0);
	KUNIT_EXPECT_EQ(test, resp.num_recs, 4);
	KUNIT_EXPECT_EQ(test, resp.stride, (size_t)64);
	for (i = 0; i < 4; i++) {
		ib_sa_resp_record(&resp, i, rec, sizeof(rec));
		KUNIT_EXPECT_EQ_MSG(test, rec[0], i * 0x40, "record %d", i);
		KUNIT_EXPECT_EQ_MSG(test, rec[63], i * 0x40 + 63, "record %d",
				    i);
	}
	/* a last record that is not padded to the stride still counts */
	r->mad[0].sa_hdr.attr_offset = cpu_to_be16(9);
	r->wc.recv_buf.mad = (struct ib_mad *)&r->mad[0];
	r->wc.mad_len = IB_MGMT_SA_HDR + 72 * 3 + 64;
	KUNIT_EXPECT_EQ(test, ib_sa_check_resp(&req, &r->wc, 64, &resp), 0);
	KUNIT_EXPECT_EQ(test, resp.num_recs, 4);
}

/* ------------------------------------------------------------------ */
/* Queries on the fake device                                          */
/* ------------------------------------------------------------------ */

struct sa_seen {
	struct completion	done;
	atomic_t		calls;
	int			status;
	int			num;
	struct sa_path_rec	recs[4];
	struct ib_sa_service_rec service;
	struct ib_sa_mcmember_rec mc;
};

static void sa_path_cb(int status, struct sa_path_rec *resp, int num,
		       void *context)
{
	struct sa_seen *seen = context;
	int i;

	seen->status = status;
	seen->num = num;
	for (i = 0; resp && i < num && i < ARRAY_SIZE(seen->recs); i++)
		seen->recs[i] = resp[i];
	atomic_inc(&seen->calls);
	complete(&seen->done);
}

static void sa_service_cb(int status, struct ib_sa_service_rec *resp,
			  void *context)
{
	struct sa_seen *seen = context;

	seen->status = status;
	if (resp)
		seen->service = *resp;
	atomic_inc(&seen->calls);
	complete(&seen->done);
}

static void sa_mc_cb(int status, struct ib_sa_mcmember_rec *resp,
		     void *context)
{
	struct sa_seen *seen = context;

	seen->status = status;
	if (resp)
		seen->mc = *resp;
	atomic_inc(&seen->calls);
	complete(&seen->done);
}

struct sa_ctx {
	struct ksa_dev		*kd;
	struct ib_sa_client	client;
};

static int sa_dev_init(struct kunit *test)
{
	struct sa_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->kd = ksa_register();
	if (!ctx->kd)
		return -ENODEV;
	ib_sa_register_client(&ctx->client);
	test->priv = ctx;
	/* a failure here fails the case with -EAGAIN; exit still cleans up */
	if (!ksa_wait_sm(ctx->kd))
		kunit_err(test, "the SA client never knew the SM");
	return 0;
}

static void sa_dev_exit(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;

	if (!ctx)
		return;
	if (ctx->kd)
		ksa_unregister(ctx->kd);
	/* every query called back: the client is free at once */
	ib_sa_unregister_client(&ctx->client);
	KUNIT_EXPECT_EQ(test, ib_sa_query_count(), 0U);
}

static int sa_start_path(struct kunit *test, struct sa_seen *seen,
			 int numb_path, unsigned long timeout_ms,
			 struct ib_sa_query **query)
{
	struct sa_ctx *ctx = test->priv;
	struct sa_path_rec rec = {};
	ib_sa_comp_mask mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
			       IB_SA_PATH_REC_NUMB_PATH;

	init_completion(&seen->done);
	atomic_set(&seen->calls, 0);
	rdma_query_gid(&ctx->kd->ibdev, 1, 0, &rec.sgid);
	rec.dgid.raw[0] = 0xfe;
	rec.dgid.raw[1] = 0x80;
	rec.dgid.raw[15] = 9;
	rec.numb_path = numb_path;
	return ib_sa_path_rec_get(&ctx->client, &ctx->kd->ibdev, 1, &rec,
				  mask, timeout_ms, GFP_KERNEL, sa_path_cb,
				  seen, query);
}

/* on the heap: a query that outlives a failed test calls back into it */
static struct sa_seen *sa_seen_new(struct kunit *test)
{
	struct sa_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, seen);
	init_completion(&seen->done);
	return seen;
}

static bool sa_wait(struct sa_seen *seen)
{
	return wait_for_completion_timeout(&seen->done, 5 * HZ);
}

/* A Get on the wire, answered: the record handed over, once. */
static void sa_query_path_get(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_mad *resp;
	struct ib_sa_query *query;
	struct sa_path_rec path;
	struct sa_seen *seen = sa_seen_new(test);
	struct ksa_req *req;
	u8 wire[64];
	int id;

	id = sa_start_path(test, seen, 1, 2000, &query);
	KUNIT_ASSERT_GE(test, id, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 2);
	req = ksa_next_req(ctx->kd, 2000);
	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_EXPECT_EQ(test, req->mad.mad_hdr.method, IB_MGMT_METHOD_GET);
	KUNIT_EXPECT_EQ(test, req->mad.mad_hdr.class_version, 2);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(req->mad.mad_hdr.attr_id),
			IB_SA_ATTR_PATH_REC);
	KUNIT_EXPECT_TRUE(test, req->mad.sa_hdr.comp_mask ==
			  (IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
			   IB_SA_PATH_REC_NUMB_PATH));
	KUNIT_EXPECT_EQ(test, req->mad.data[49], 1);	/* NumbPath */
	KUNIT_EXPECT_EQ(test, req->mad.data[8 + 15], 9);	/* DGID @8 */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(req->mad.mad_hdr.tid) >> 32 != 0,
			true);

	resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, resp);
	ksa_resp_init(resp, &req->mad, 0);
	sa_path_full(&path, wire);
	memcpy(resp->data, wire, sizeof(wire));
	KUNIT_ASSERT_EQ(test, ksa_deliver(ctx->kd, resp), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, 0);
	KUNIT_EXPECT_EQ(test, seen->num, 1);
	KUNIT_EXPECT_EQ(test, memcmp(&seen->recs[0], &path, sizeof(path)), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&seen->calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 1);
	KUNIT_EXPECT_EQ(test, ib_sa_query_count(), 0U);
	/* cancelling an ended query does nothing */
	ib_sa_cancel_query(id, query);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&seen->calls), 1);
	kfree(req);
}

/* GetTable: RMPP answer of 4 records over 2 segments, 3 wanted. */
static void sa_query_path_table(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_query *query;
	struct sa_path_rec path;
	struct sa_seen *seen = sa_seen_new(test);
	struct ksa_req *req;
	u8 *data;
	int i;

	KUNIT_ASSERT_GE(test, sa_start_path(test, seen, 3, 2000, &query), 0);
	req = ksa_next_req(ctx->kd, 2000);
	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_EXPECT_EQ(test, req->mad.mad_hdr.method, IB_SA_METHOD_GET_TABLE);
	data = kunit_kzalloc(test, 4 * 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	for (i = 0; i < 4; i++) {
		sa_path_full(&path, data + i * 64);
		data[i * 64 + 41] = 0x10 + i;	/* DLID low byte */
	}
	KUNIT_ASSERT_EQ(test, ksa_deliver_table(ctx->kd, &req->mad, data,
						4 * 64, 8), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, 0);
	KUNIT_EXPECT_EQ(test, seen->num, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, be16_to_cpu(seen->recs[i].dlid),
				0x3100 + 0x10 + i);
	kfree(req);

	/* an empty table */
	KUNIT_ASSERT_GE(test, sa_start_path(test, seen, 3, 2000, &query), 0);
	req = ksa_next_req(ctx->kd, 2000);
	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_EQ(test, ksa_deliver_table(ctx->kd, &req->mad, NULL, 0,
						8), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, -ENOENT);
	KUNIT_EXPECT_EQ(test, seen->num, 0);
	kfree(req);
}

/* Bad answers: the SA's status, a wrong attribute. */
static void sa_query_bad_answers(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_query *query;
	struct ib_sa_mad *resp;
	struct sa_seen *seen = sa_seen_new(test);
	struct ksa_req *req;

	resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, resp);

	KUNIT_ASSERT_GE(test, sa_start_path(test, seen, 1, 2000, &query), 0);
	req = ksa_next_req(ctx->kd, 2000);
	KUNIT_ASSERT_NOT_NULL(test, req);
	ksa_resp_init(resp, &req->mad, 0x0300);	/* ERR_NO_RECORDS */
	KUNIT_ASSERT_EQ(test, ksa_deliver(ctx->kd, resp), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, -EINVAL);
	KUNIT_EXPECT_EQ(test, seen->num, 0);
	kfree(req);

	KUNIT_ASSERT_GE(test, sa_start_path(test, seen, 1, 2000, &query), 0);
	req = ksa_next_req(ctx->kd, 2000);
	KUNIT_ASSERT_NOT_NULL(test, req);
	ksa_resp_init(resp, &req->mad, 0);
	resp->mad_hdr.attr_id = cpu_to_be16(IB_SA_ATTR_NODE_REC);
	KUNIT_ASSERT_EQ(test, ksa_deliver(ctx->kd, resp), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, -EIO);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&seen->calls), 1);
	kfree(req);
}

/* No answer: resent with the same TID, then -ETIMEDOUT. */
static void sa_query_timeout(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_query *query;
	struct sa_seen *seen = sa_seen_new(test);
	struct ksa_req *req;
	unsigned long start = jiffies;
	unsigned int sends = 0;
	__be64 tid = 0;

	KUNIT_ASSERT_GE(test, sa_start_path(test, seen, 1, 200, &query), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - start), 180U);
	while ((req = ksa_next_req(ctx->kd, 0))) {
		if (!sends)
			tid = req->mad.mad_hdr.tid;
		KUNIT_EXPECT_TRUE(test, req->mad.mad_hdr.tid == tid);
		sends++;
		kfree(req);
	}
	/* 200 ms over ten sends of 20 ms */
	KUNIT_EXPECT_EQ(test, sends, 10U);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 1);
}

/* Cancel: one callback, -EINTR; stale ids and NULL are harmless. */
static void sa_query_cancel(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_query *query;
	struct sa_seen *seen = sa_seen_new(test);
	int id, i;

	for (i = 0; i < 20; i++) {
		id = sa_start_path(test, seen, 1, 5000, &query);
		KUNIT_ASSERT_GE(test, id, 0);
		ib_sa_cancel_query(id, query);
		KUNIT_ASSERT_TRUE(test, sa_wait(seen));
		KUNIT_EXPECT_EQ(test, seen->status, -EINTR);
		ib_sa_cancel_query(id, query);
		msleep(20);
		KUNIT_EXPECT_EQ(test, atomic_read(&seen->calls), 1);
	}
	ksa_flush_reqs(ctx->kd);
	ib_sa_cancel_query(-1, NULL);
	ib_sa_cancel_query(123456, NULL);
	KUNIT_EXPECT_EQ(test, ib_sa_query_count(), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 1);

	/* ids are not reused at once; a wrong handle cancels nothing */
	id = sa_start_path(test, seen, 1, 5000, &query);
	KUNIT_ASSERT_GE(test, id, 0);
	ib_sa_cancel_query(id, NULL);
	ib_sa_cancel_query(id + 1, query);
	KUNIT_EXPECT_EQ(test, ib_sa_query_count(), 1U);
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&seen->done,
							     HZ / 20));
	ib_sa_cancel_query(id, query);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	i = sa_start_path(test, seen, 1, 5000, &query);
	KUNIT_EXPECT_NE(test, id, i);
	ib_sa_cancel_query(i, query);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	ksa_flush_reqs(ctx->kd);
}

static void sa_query_bad_args(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_service_rec srec = {};
	struct ib_sa_query *query;
	struct sa_path_rec rec = {};
	struct sa_seen *seen = sa_seen_new(test);

	KUNIT_EXPECT_EQ(test, ib_sa_path_rec_get(&ctx->client, &ctx->kd->ibdev,
						 1, NULL, 0, 100, GFP_KERNEL,
						 sa_path_cb, seen, &query),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_sa_path_rec_get(&ctx->client, &ctx->kd->ibdev,
						 1, &rec, 0, 100, GFP_KERNEL,
						 NULL, seen, &query),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_sa_path_rec_get(&ctx->client, &ctx->kd->ibdev,
						 2, &rec, 0, 100, GFP_KERNEL,
						 sa_path_cb, seen, &query),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, ib_sa_path_rec_get(&ctx->client, &ctx->kd->ibdev,
						 0, &rec, 0, 100, GFP_KERNEL,
						 sa_path_cb, seen, &query),
			-ENODEV);
	KUNIT_EXPECT_EQ(test,
			ib_sa_service_rec_query(&ctx->client, &ctx->kd->ibdev,
						1, IB_MGMT_METHOD_GET_RESP,
						&srec, 0, 100, GFP_KERNEL,
						sa_service_cb, seen, &query),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_sa_query_count(), 0U);
	KUNIT_EXPECT_EQ(test, ksa_count_reqs(ctx->kd), 0U);
}

/* The device goes away with a query in flight: -EINTR, nothing left. */
static void sa_query_device_removal(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_query *query;
	struct sa_seen *seen = sa_seen_new(test);

	KUNIT_ASSERT_GE(test, sa_start_path(test, seen, 1, 60000, &query), 0);
	ksa_unregister(ctx->kd);
	ctx->kd = NULL;
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, -EINTR);
	KUNIT_EXPECT_EQ(test, ib_sa_query_count(), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 1);
}

/* ServiceRecord Set and MCMemberRecord Delete: request and answer. */
static void sa_query_service_mcmember(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct ib_sa_service_rec *srec;
	struct ib_sa_mcmember_rec mrec = {};
	struct ib_sa_query *query;
	struct ib_sa_mad *resp;
	struct sa_seen *seen = sa_seen_new(test);
	struct ksa_req *req;

	srec = kunit_kzalloc(test, sizeof(*srec), GFP_KERNEL);
	resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, srec && resp);
	srec->id = 0xabcdef;
	strscpy(srec->name, "kunit", sizeof(srec->name));
	init_completion(&seen->done);
	atomic_set(&seen->calls, 0);
	KUNIT_ASSERT_GE(test,
			ib_sa_service_rec_query(&ctx->client, &ctx->kd->ibdev,
						1, IB_MGMT_METHOD_SET, srec,
						IB_SA_SERVICE_REC_SERVICE_ID,
						2000, GFP_KERNEL,
						sa_service_cb, seen, &query),
			0);
	req = ksa_next_req(ctx->kd, 2000);
	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_EXPECT_EQ(test, req->mad.mad_hdr.method, IB_MGMT_METHOD_SET);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(req->mad.mad_hdr.attr_id),
			IB_SA_ATTR_SERVICE_REC);
	KUNIT_EXPECT_EQ(test, req->mad.data[7], 0xef);
	KUNIT_EXPECT_EQ(test, req->mad.data[48], 'k');
	ksa_resp_init(resp, &req->mad, 0);
	memcpy(resp->data, req->mad.data, IB_SA_SERVICE_REC_SIZE);
	KUNIT_ASSERT_EQ(test, ksa_deliver(ctx->kd, resp), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, 0);
	KUNIT_EXPECT_EQ(test, seen->service.id, 0xabcdefULL);
	KUNIT_EXPECT_STREQ(test, (char *)seen->service.name, "kunit");
	kfree(req);

	mrec.mgid.raw[0] = 0xff;
	mrec.join_state = BIT(FULLMEMBER_JOIN);
	init_completion(&seen->done);
	KUNIT_ASSERT_GE(test,
			ib_sa_mcmember_rec_query(&ctx->client, &ctx->kd->ibdev,
						 1, IB_SA_METHOD_DELETE, &mrec,
						 IB_SA_MCMEMBER_REC_MGID |
						 IB_SA_MCMEMBER_REC_JOIN_STATE,
						 2000, GFP_KERNEL, sa_mc_cb,
						 seen, &query),
			0);
	req = ksa_next_req(ctx->kd, 2000);
	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_EXPECT_EQ(test, req->mad.mad_hdr.method, IB_SA_METHOD_DELETE);
	KUNIT_EXPECT_EQ(test, req->mad.data[48], 1);	/* JoinState */
	ksa_resp_init(resp, &req->mad, 0);
	memcpy(resp->data, req->mad.data, IB_SA_MCMEMBER_REC_SIZE);
	KUNIT_ASSERT_EQ(test, ksa_deliver(ctx->kd, resp), 0);
	KUNIT_ASSERT_TRUE(test, sa_wait(seen));
	KUNIT_EXPECT_EQ(test, seen->status, 0);
	KUNIT_EXPECT_EQ(test, seen->mc.join_state, BIT(FULLMEMBER_JOIN));
	kfree(req);
}

/* The SM's address: P_Key index of 0xffff; CPI; AH from a path. */
static void sa_ah_from_path(struct kunit *test)
{
	struct sa_ctx *ctx = test->priv;
	struct rdma_ah_attr attr;
	struct sa_path_rec rec = {};

	KUNIT_EXPECT_TRUE(test, ib_sa_sendonly_fullmem_support(&ctx->client,
							       &ctx->kd->ibdev,
							       1));
	KUNIT_EXPECT_FALSE(test, ib_sa_sendonly_fullmem_support(&ctx->client,
								&ctx->kd->ibdev,
								2));
	rec.dlid = cpu_to_be16(0x17);
	rec.slid = cpu_to_be16(0x2 | 0x1);	/* path bits 1 */
	rec.sl = 5;
	rec.rate = 6;
	rec.hop_limit = 1;
	KUNIT_ASSERT_EQ(test, ib_init_ah_attr_from_path(&ctx->kd->ibdev, 1,
							&rec, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.dlid, 0x17U);
	KUNIT_EXPECT_EQ(test, attr.sl, 5);
	KUNIT_EXPECT_EQ(test, attr.static_rate, 6);
	KUNIT_EXPECT_EQ(test, attr.port_num, 1U);
	/* LMC 0: no path bits */
	KUNIT_EXPECT_EQ(test, attr.src_path_bits, 0);
	KUNIT_EXPECT_EQ(test, attr.ah_flags & IB_AH_GRH, 0);
	KUNIT_EXPECT_EQ(test, attr.type, RDMA_AH_ATTR_TYPE_IB);

	/* a hop limit above 1: a GRH from the path's SGID (index 1 here) */
	rec.hop_limit = 2;
	rec.traffic_class = 7;
	rec.flow_label = cpu_to_be32(0x12345);
	rdma_query_gid(&ctx->kd->ibdev, 1, 1, &rec.sgid);
	rec.dgid.raw[0] = 0xfe;
	KUNIT_ASSERT_EQ(test, ib_init_ah_attr_from_path(&ctx->kd->ibdev, 1,
							&rec, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.ah_flags & IB_AH_GRH, IB_AH_GRH);
	KUNIT_EXPECT_EQ(test, attr.grh.sgid_index, 1);
	KUNIT_EXPECT_EQ(test, attr.grh.hop_limit, 2);
	KUNIT_EXPECT_EQ(test, attr.grh.traffic_class, 7);
	KUNIT_EXPECT_EQ(test, attr.grh.flow_label, 0x12345U);
	KUNIT_EXPECT_EQ(test, memcmp(&attr.grh.dgid, &rec.dgid, 16), 0);
	/* an SGID the port does not have */
	rec.sgid.raw[3] = 0x99;
	KUNIT_EXPECT_EQ(test, ib_init_ah_attr_from_path(&ctx->kd->ibdev, 1,
							&rec, &attr), -ENOENT);
	KUNIT_EXPECT_EQ(test, ib_init_ah_attr_from_path(&ctx->kd->ibdev, 3,
							&rec, &attr), -EINVAL);
}

static struct kunit_case sa_wire_cases[] = {
	KUNIT_CASE(sa_pack_path_offsets),
	KUNIT_CASE(sa_pack_path_fields),
	KUNIT_CASE(sa_unpack_path_fields),
	KUNIT_CASE(sa_pack_mcmember_offsets),
	KUNIT_CASE(sa_pack_service_offsets),
	KUNIT_CASE(sa_check_resp_good),
	KUNIT_CASE(sa_check_resp_header),
	KUNIT_CASE(sa_check_resp_lengths),
	KUNIT_CASE(sa_check_resp_table),
	{}
};

static struct kunit_suite sa_wire_suite = {
	.name = "ib_core_sa_wire",
	.test_cases = sa_wire_cases,
};

static struct kunit_case sa_query_cases[] = {
	KUNIT_CASE(sa_query_path_get),
	KUNIT_CASE(sa_query_path_table),
	KUNIT_CASE(sa_query_bad_answers),
	KUNIT_CASE(sa_query_timeout),
	KUNIT_CASE(sa_query_cancel),
	KUNIT_CASE(sa_query_bad_args),
	KUNIT_CASE(sa_query_device_removal),
	KUNIT_CASE(sa_query_service_mcmember),
	KUNIT_CASE(sa_ah_from_path),
	{}
};

static struct kunit_suite sa_query_suite = {
	.name = "ib_core_sa_query",
	.init = sa_dev_init,
	.exit = sa_dev_exit,
	.test_cases = sa_query_cases,
};

kunit_test_suites(&sa_wire_suite, &sa_query_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
