// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of srp_parse_options(), the parser of ib_srp's add_target
 * strings (ulp/srp/srp_opts.c), against the option names and formats of
 * upstream ib_srp and srp_daemon:
 *   - the line srp_daemon and ibsrpdm -c print, with every value where it
 *     belongs (GUIDs and the service ID big endian, the DGID byte for
 *     byte, the P_Key);
 *   - every optional key, commas and newlines as separators, empty
 *     fields, a trailing newline, keys not given leaving their defaults;
 *   - the RDMA CM form dest=ip:port (IPv4, IPv6 in brackets) with src=;
 *   - refusals, each -EINVAL: unknown keys, keys without a value, keys
 *     given twice, values that do not parse, are too long or out of
 *     range, mandatory keys missing, src= without or unlike dest=.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/net_namespace.h>

#include "srp.h"

#define SOT_IB_LINE \
	"id_ext=06766d0000000101,ioc_guid=06766d0000000101,dgid=fe8000000000000006766d0000000101,pkey=ffff,service_id=06766d0000000101"

/* srp_parse_options() in the initial network namespace */
static int sot_parse(struct srp_target_port *t, const char *s)
{
	return srp_parse_options(&init_net, s, t);
}

static struct srp_target_port *sot_target(struct kunit *test)
{
	struct srp_target_port *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	return t;
}

static void srp_opts_test_ib_line(struct kunit *test)
{
	static const u8 dgid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x06, 0x76, 0x6d, 0x00, 0x00, 0x00, 0x01, 0x01,
	};
	struct srp_target_port *t = sot_target(test);

	KUNIT_ASSERT_EQ(test, srp_parse_options(&init_net, SOT_IB_LINE "\n", t),
			0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(t->id_ext), 0x06766d0000000101ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(t->ioc_guid), 0x06766d0000000101ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(t->service_id),
			0x06766d0000000101ULL);
	KUNIT_EXPECT_EQ(test, t->pkey, 0xffff);
	KUNIT_EXPECT_EQ(test, memcmp(t->orig_dgid.raw, dgid, sizeof(dgid)), 0);
	KUNIT_EXPECT_FALSE(test, t->using_rdma_cm);
}

static void srp_opts_test_optional(struct kunit *test)
{
	struct srp_target_port *t = sot_target(test);
	int ret;

	ret = sot_parse(t, SOT_IB_LINE
			",max_sect=2048,max_cmd_per_lun=32,target_can_queue=16,io_class=ff00,initiator_ext=0x1122334455667788,cmd_sg_entries=255,allow_ext_sg=1,sg_tablesize=2048,comp_vector=3,tl_retry_count=2,queue_size=128,max_it_iu_size=8260,ch_count=4");
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, t->max_sectors, 2048);
	KUNIT_EXPECT_EQ(test, t->cmd_per_lun, 32);
	KUNIT_EXPECT_EQ(test, t->target_can_queue, 16);
	KUNIT_EXPECT_EQ(test, t->io_class, SRP_REV10_IB_IO_CLASS);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(t->initiator_ext),
			0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, t->cmd_sg_cnt, 255);
	KUNIT_EXPECT_TRUE(test, t->allow_ext_sg);
	KUNIT_EXPECT_EQ(test, t->sg_tablesize, 2048);
	KUNIT_EXPECT_EQ(test, t->comp_vector, 3);
	KUNIT_EXPECT_EQ(test, t->tl_retry_count, 2);
	KUNIT_EXPECT_EQ(test, t->can_queue, 128);
	KUNIT_EXPECT_EQ(test, t->max_it_iu_size, 8260);
	KUNIT_EXPECT_EQ(test, t->ch_count, 4);
}

/* Newlines separate like commas; empty fields are skipped. */
static void srp_opts_test_separators(struct kunit *test)
{
	struct srp_target_port *t = sot_target(test);
	int ret;

	ret = sot_parse(t,
			"id_ext=1\nioc_guid=2,,dgid=fe800000000000000000000000000003\npkey=8001,\nservice_id=4\n\n");
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(t->id_ext), 1ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(t->ioc_guid), 2ULL);
	KUNIT_EXPECT_EQ(test, t->orig_dgid.raw[15], 3);
	KUNIT_EXPECT_EQ(test, t->pkey, 0x8001);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(t->service_id), 4ULL);
}

/* Keys not given leave what the caller set as default. */
static void srp_opts_test_defaults_kept(struct kunit *test)
{
	struct srp_target_port *t = sot_target(test);

	t->tl_retry_count = 7;
	t->can_queue = 62;
	t->io_class = SRP_REV16A_IB_IO_CLASS;
	KUNIT_ASSERT_EQ(test, srp_parse_options(&init_net, SOT_IB_LINE, t), 0);
	KUNIT_EXPECT_EQ(test, t->tl_retry_count, 7);
	KUNIT_EXPECT_EQ(test, t->can_queue, 62);
	KUNIT_EXPECT_EQ(test, t->io_class, SRP_REV16A_IB_IO_CLASS);
	KUNIT_EXPECT_EQ(test, t->ch_count, 0);
}

static void srp_opts_test_rdma_cm(struct kunit *test)
{
	struct srp_target_port *t = sot_target(test);
	struct sockaddr_in *sin = (struct sockaddr_in *)&t->rdma_dst;
	struct sockaddr_in *src = (struct sockaddr_in *)&t->rdma_src;
	struct sockaddr_in6 *sin6;

	KUNIT_ASSERT_EQ(test, sot_parse(t, "id_ext=1,ioc_guid=2,dest=10.1.2.3:5555,src=10.1.2.4"),
			0);
	KUNIT_EXPECT_TRUE(test, t->using_rdma_cm);
	KUNIT_EXPECT_TRUE(test, t->has_src);
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 5555);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0x0a010203U);
	KUNIT_EXPECT_EQ(test, ntohl(src->sin_addr.s_addr), 0x0a010204U);

	t = sot_target(test);
	sin6 = (struct sockaddr_in6 *)&t->rdma_dst;
	KUNIT_ASSERT_EQ(test, sot_parse(t, "id_ext=1,ioc_guid=2,dest=[fd00::1]:5556"), 0);
	KUNIT_EXPECT_EQ(test, sin6->sin6_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, ntohs(sin6->sin6_port), 5556);
	KUNIT_EXPECT_EQ(test, sin6->sin6_addr.s6_addr[0], 0xfd);
	KUNIT_EXPECT_EQ(test, sin6->sin6_addr.s6_addr[15], 1);
	KUNIT_EXPECT_FALSE(test, t->has_src);
}

static const char * const srp_opts_bad[] = {
	"",
	"\n",
	",,,",
	/* a mandatory key missing */
	"id_ext=1,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=ffff",
	"ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=ffff,service_id=4",
	"id_ext=1,ioc_guid=2,dgid=fe800000000000000000000000000003,service_id=4",
	"id_ext=1,dest=10.0.0.1:1",
	/* unknown, no value, twice */
	SOT_IB_LINE ",foo=1",
	SOT_IB_LINE ",ID_EXT=1",
	SOT_IB_LINE ",max_sect",
	SOT_IB_LINE ",=5",
	SOT_IB_LINE ",pkey=ffff",
	SOT_IB_LINE ",max_sect=1,max_sect=1",
	/* hex values */
	"id_ext=xyz,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=ffff,service_id=4",
	"id_ext=,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=ffff,service_id=4",
	"id_ext=0x,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=ffff,service_id=4",
	"id_ext=10000000000000000,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=ffff,service_id=4",
	"id_ext=-1,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=ffff,service_id=4",
	"id_ext=1,ioc_guid=2,dgid=fe80000000000000000000000000003,pkey=ffff,service_id=4",
	"id_ext=1,ioc_guid=2,dgid=fe8000000000000000000000000000033,pkey=ffff,service_id=4",
	"id_ext=1,ioc_guid=2,dgid=fe80000000000000000000000000000g,pkey=ffff,service_id=4",
	"id_ext=1,ioc_guid=2,dgid=fe80::3,pkey=ffff,service_id=4",
	"id_ext=1,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=10000,service_id=4",
	"id_ext=1,ioc_guid=2,dgid=fe800000000000000000000000000003,pkey=0,service_id=4",
	/* numbers */
	SOT_IB_LINE ",max_sect=0",
	SOT_IB_LINE ",max_sect=4294967296",
	SOT_IB_LINE ",max_sect=99999999999999999999999",
	SOT_IB_LINE ",max_sect=12abc",
	SOT_IB_LINE ",max_sect=-1",
	SOT_IB_LINE ",queue_size=0",
	SOT_IB_LINE ",queue_size=4097",
	SOT_IB_LINE ",max_cmd_per_lun=0",
	SOT_IB_LINE ",target_can_queue=5000",
	SOT_IB_LINE ",cmd_sg_entries=0",
	SOT_IB_LINE ",cmd_sg_entries=256",
	SOT_IB_LINE ",sg_tablesize=0",
	SOT_IB_LINE ",allow_ext_sg=2",
	SOT_IB_LINE ",tl_retry_count=1",
	SOT_IB_LINE ",tl_retry_count=8",
	SOT_IB_LINE ",comp_vector=-1",
	SOT_IB_LINE ",ch_count=0",
	SOT_IB_LINE ",ch_count=65",
	SOT_IB_LINE ",io_class=0",
	SOT_IB_LINE ",io_class=1234",
	SOT_IB_LINE ",max_it_iu_size=47",
	SOT_IB_LINE ",max_it_iu_size=1000000",
	/* addresses */
	SOT_IB_LINE ",src=10.0.0.1",
	"id_ext=1,ioc_guid=2,dest=10.0.0.1",
	"id_ext=1,ioc_guid=2,dest=10.0.0.1:",
	"id_ext=1,ioc_guid=2,dest=:5555",
	"id_ext=1,ioc_guid=2,dest=10.0.0.1:65536",
	"id_ext=1,ioc_guid=2,dest=10.0.0.256:1",
	"id_ext=1,ioc_guid=2,dest=host.example:1",
	"id_ext=1,ioc_guid=2,dest=[]:1",
	"id_ext=1,ioc_guid=2,dest=10.0.0.1:1,src=fd00::1",
	"id_ext=1,ioc_guid=2,dest=10.0.0.1:1,src=10.0.0.1:1",
};

static void srp_opts_bad_desc(const char * const *s, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", *s);
}

KUNIT_ARRAY_PARAM(srp_opts_bad, srp_opts_bad, srp_opts_bad_desc);

static void srp_opts_test_refused(struct kunit *test)
{
	const char * const *s = test->param_value;
	struct srp_target_port *t = sot_target(test);

	KUNIT_EXPECT_EQ(test, srp_parse_options(&init_net, *s, t), -EINVAL);
}

/* A string longer than a page (sysfs passes at most one) is fine too. */
static void srp_opts_test_long(struct kunit *test)
{
	struct srp_target_port *t = sot_target(test);
	size_t len = 2 * PAGE_SIZE;
	char *s = kunit_kzalloc(test, len + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	memset(s, ',', len);
	memcpy(s + len - strlen(SOT_IB_LINE), SOT_IB_LINE, strlen(SOT_IB_LINE));
	KUNIT_EXPECT_EQ(test, srp_parse_options(&init_net, s, t), 0);
	KUNIT_EXPECT_EQ(test, t->pkey, 0xffff);
}

static struct kunit_case srp_opts_test_cases[] = {
	KUNIT_CASE(srp_opts_test_ib_line),
	KUNIT_CASE(srp_opts_test_optional),
	KUNIT_CASE(srp_opts_test_separators),
	KUNIT_CASE(srp_opts_test_defaults_kept),
	KUNIT_CASE(srp_opts_test_rdma_cm),
	KUNIT_CASE_PARAM(srp_opts_test_refused, srp_opts_bad_gen_params),
	KUNIT_CASE(srp_opts_test_long),
	{}
};

static struct kunit_suite srp_opts_test_suite = {
	.name = "srp_opts",
	.test_cases = srp_opts_test_cases,
};

kunit_test_suite(srp_opts_test_suite);

MODULE_DESCRIPTION("KUnit tests of ib_srp's add_target options");
MODULE_LICENSE("Dual BSD/GPL");
