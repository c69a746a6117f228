// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the directed-route SMP rules of core/smi.c against the
 * rules written down in the management contract (mgmt.md section 2.2,
 * from IBA 14.2.2.2): the send rules at the originating CA (hop count 0
 * stays local, hop count > 0 leaves by InitialPath[1]), the receive rules
 * at a CA (end of the directed part, never forwarding), the switch's
 * forwarding in both directions, the response path back to hop pointer 0,
 * and the discarding of hop counts above 63 and of pointers the rules do
 * not allow.  Every SMP sits in a buffer with guard bytes on both sides
 * so that a write outside the 256 bytes is caught.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <rdma/ib_smi.h>

#include "smi.h"

#define GUARD	0xa5

/* An SMP with guard bytes around it. */
struct smp_box {
	u8		before[64];
	struct ib_smp	smp;
	u8		after[64];
};

static struct ib_smp *dr_smp_init(struct smp_box *b, bool response,
				  u8 hop_cnt, u8 hop_ptr)
{
	memset(b, GUARD, sizeof(*b));
	memset(&b->smp, 0, sizeof(b->smp));
	b->smp.base_version = 1;
	b->smp.mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	b->smp.class_version = 1;
	b->smp.method = response ? IB_MGMT_METHOD_GET_RESP :
			IB_MGMT_METHOD_GET;
	if (response)
		b->smp.status = IB_SMP_DIRECTION;
	b->smp.hop_cnt = hop_cnt;
	b->smp.hop_ptr = hop_ptr;
	b->smp.dr_slid = IB_LID_PERMISSIVE;
	b->smp.dr_dlid = IB_LID_PERMISSIVE;
	return &b->smp;
}

static void smp_guards_ok(struct kunit *test, struct smp_box *b)
{
	unsigned int i;

	for (i = 0; i < sizeof(b->before); i++) {
		KUNIT_EXPECT_EQ(test, b->before[i], GUARD);
		KUNIT_EXPECT_EQ(test, b->after[i], GUARD);
	}
}

/* Outgoing request, hop count 0: pointer to 1, processed locally. */
static void smi_out_hop0_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, false, 0, 0);

	KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 1), IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 1);
	KUNIT_EXPECT_TRUE(test, smi_is_local_request(smp));
	KUNIT_EXPECT_FALSE(test, smi_is_local_response(smp));
	smp_guards_ok(test, &b);
}

/* Outgoing request, hop count > 0: pointer 0 -> 1, InitialPath[1] = port. */
static void smi_out_hops_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp;
	u8 cnt;

	for (cnt = 1; cnt < IB_SMP_MAX_PATH_HOPS; cnt++) {
		smp = dr_smp_init(&b, false, cnt, 0);
		smp->initial_path[1] = 2;
		KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 2), IB_SMI_HANDLE);
		KUNIT_EXPECT_EQ(test, smp->hop_ptr, 1);
		KUNIT_EXPECT_FALSE(test, smi_is_local_request(smp));

		/* another port than InitialPath[1]: discarded */
		smp = dr_smp_init(&b, false, cnt, 0);
		smp->initial_path[1] = 2;
		KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 1), IB_SMI_DISCARD);
		smp_guards_ok(test, &b);
	}
}

/* A CA may not send on a request whose pointer is inside the path. */
static void smi_out_ca_middle_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, false, 3, 1);

	smp->initial_path[2] = 1;
	KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 1), IB_SMI_DISCARD);
	/* a switch may */
	smp = dr_smp_init(&b, false, 3, 1);
	smp->initial_path[2] = 1;
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_send(smp, true, 1),
			IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 2);
	smp_guards_ok(test, &b);
}

/*
 * Receiving CA, hop_ptr == hop_cnt: ReturnPath[hop_ptr] = port, pointer to
 * hop_cnt + 1, local.
 */
static void smi_ca_recv_end_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp;
	u8 cnt;

	for (cnt = 1; cnt < IB_SMP_MAX_PATH_HOPS; cnt++) {
		smp = dr_smp_init(&b, false, cnt, cnt);
		KUNIT_EXPECT_EQ(test, smi_ca_incoming(smp, 2, 2),
				IB_SMI_HANDLE);
		KUNIT_EXPECT_EQ(test, smp->return_path[cnt], 2);
		KUNIT_EXPECT_EQ(test, smp->hop_ptr, cnt + 1);
		KUNIT_EXPECT_TRUE(test, smi_is_local_request(smp));
		smp_guards_ok(test, &b);
	}
}

/* A CA never forwards: pointer inside the path is discarded. */
static void smi_ca_recv_middle_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, false, 3, 1);

	smp->initial_path[2] = 1;
	KUNIT_EXPECT_EQ(test, smi_ca_incoming(smp, 1, 2), IB_SMI_DISCARD);
	smp = dr_smp_init(&b, false, 3, 2);
	KUNIT_EXPECT_EQ(test, smi_ca_incoming(smp, 1, 2), IB_SMI_DISCARD);
	smp_guards_ok(test, &b);
}

/* The sender should have moved the pointer (C14-9:1). */
static void smi_ca_recv_ptr0_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, false, 2, 0);

	KUNIT_EXPECT_EQ(test, smi_ca_incoming(smp, 1, 2), IB_SMI_DISCARD);
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_recv(smp, true, 1, 8),
			IB_SMI_DISCARD);
	smp_guards_ok(test, &b);
}

/* The directed part ends at a CA with a LID-routed part after it. */
static void smi_ca_recv_drdlid_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, false, 1, 1);

	smp->dr_dlid = cpu_to_be16(5);
	KUNIT_EXPECT_EQ(test, smi_ca_incoming(smp, 1, 2), IB_SMI_DISCARD);
	smp_guards_ok(test, &b);
}

/* hop_cnt above 63 is discarded by every rule, whatever the pointer. */
static void smi_hop_cnt_64_test(struct kunit *test)
{
	static const u8 cnts[] = { 64, 65, 127, 128, 255 };
	struct smp_box b;
	struct ib_smp *smp;
	unsigned int i, ptr, dir;

	for (i = 0; i < ARRAY_SIZE(cnts); i++) {
		for (dir = 0; dir < 2; dir++) {
			for (ptr = 0; ptr < 256; ptr += 17) {
				smp = dr_smp_init(&b, dir, cnts[i], ptr);
				memset(smp->initial_path, 1, 64);
				memset(smp->return_path, 1, 64);
				KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 1),
						IB_SMI_DISCARD);
				smp = dr_smp_init(&b, dir, cnts[i], ptr);
				KUNIT_EXPECT_EQ(test,
						smi_ca_incoming(smp, 1, 2),
						IB_SMI_DISCARD);
				smp = dr_smp_init(&b, dir, cnts[i], ptr);
				KUNIT_EXPECT_EQ(test,
						smi_handle_dr_smp_send(smp, true,
								       1),
						IB_SMI_DISCARD);
				smp = dr_smp_init(&b, dir, cnts[i], ptr);
				KUNIT_EXPECT_EQ(test,
						smi_handle_dr_smp_recv(smp, true,
								       1, 36),
						IB_SMI_DISCARD);
				KUNIT_EXPECT_FALSE(test,
						   smi_is_local_request(smp));
				KUNIT_EXPECT_FALSE(test,
						   smi_is_local_response(smp));
				KUNIT_EXPECT_EQ(test, smi_get_fwd_port(smp), -1);
				smp_guards_ok(test, &b);
			}
		}
	}
}

/* Every hop_cnt/hop_ptr pair, both directions, both node kinds: no
 * write outside the SMP, and a pointer beyond hop_cnt + 1 is discarded.
 */
static void smi_all_pointers_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp;
	unsigned int cnt, ptr, dir, sw;
	enum smi_action act;

	for (cnt = 0; cnt < 256; cnt++) {
		for (ptr = 0; ptr < 256; ptr++) {
			for (dir = 0; dir < 2; dir++) {
				for (sw = 0; sw < 2; sw++) {
					smp = dr_smp_init(&b, dir, cnt, ptr);
					act = smi_handle_dr_smp_recv(smp, sw, 1,
								     255);
					if (ptr > cnt + 1 || cnt > 63)
						KUNIT_EXPECT_EQ(test, act,
								IB_SMI_DISCARD);
					smp = dr_smp_init(&b, dir, cnt, ptr);
					act = smi_handle_dr_smp_send(smp, sw,
								     0);
					if (ptr > cnt + 1 || cnt > 63)
						KUNIT_EXPECT_EQ(test, act,
								IB_SMI_DISCARD);
					smi_get_fwd_port(smp);
				}
			}
		}
		smp_guards_ok(test, &b);
	}
}

/* Response at the responding CA: pointer hop_cnt + 1 -> hop_cnt, egress
 * ReturnPath[hop_cnt] (the ingress port of the request).
 */
static void smi_resp_responder_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, true, 2, 3);

	smp->return_path[2] = 1;
	KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 1), IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 2);
	KUNIT_EXPECT_FALSE(test, smi_is_local_response(smp));

	smp = dr_smp_init(&b, true, 2, 3);
	smp->return_path[2] = 2;
	KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 1), IB_SMI_DISCARD);
	smp_guards_ok(test, &b);
}

/* Response back at the requester: pointer 1 -> 0, to the local SM. */
static void smi_resp_requester_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, true, 2, 1);

	KUNIT_EXPECT_EQ(test, smi_ca_incoming(smp, 1, 2), IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 0);
	KUNIT_EXPECT_TRUE(test, smi_is_local_response(smp));

	/* a response still in the middle of its way back */
	smp = dr_smp_init(&b, true, 3, 2);
	KUNIT_EXPECT_EQ(test, smi_ca_incoming(smp, 1, 2), IB_SMI_DISCARD);

	/* hop count 0: the local reply turns around 1 -> 0 at the sender */
	smp = dr_smp_init(&b, true, 0, 1);
	KUNIT_EXPECT_EQ(test, smi_ca_outgoing(smp, 1), IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 0);
	KUNIT_EXPECT_TRUE(test, smi_is_local_response(smp));
	smp_guards_ok(test, &b);
}

/* A switch in the middle of a request and of its response. */
static void smi_switch_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, false, 2, 1);

	smp->initial_path[1] = 1;
	smp->initial_path[2] = 5;
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_recv(smp, true, 3, 8),
			IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->return_path[1], 3);
	KUNIT_EXPECT_EQ(test, smi_check_forward_dr_smp(smp), IB_SMI_FORWARD);
	KUNIT_EXPECT_EQ(test, smi_get_fwd_port(smp), 5);
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_send(smp, true, 5),
			IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 2);

	/* egress beyond the switch's ports */
	smp = dr_smp_init(&b, false, 2, 1);
	smp->initial_path[2] = 9;
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_recv(smp, true, 3, 8),
			IB_SMI_DISCARD);

	/* the response passes back: pointer 2 -> 1, egress ReturnPath[1] */
	smp = dr_smp_init(&b, true, 2, 2);
	smp->return_path[1] = 3;
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_recv(smp, true, 5, 8),
			IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smi_check_forward_dr_smp(smp), IB_SMI_FORWARD);
	KUNIT_EXPECT_EQ(test, smi_get_fwd_port(smp), 3);
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_send(smp, true, 3),
			IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 1);

	/* the switch as target: hop_ptr == hop_cnt -> hop_cnt + 1 */
	smp = dr_smp_init(&b, false, 1, 1);
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_recv(smp, true, 4, 8),
			IB_SMI_HANDLE);
	KUNIT_EXPECT_EQ(test, smp->return_path[1], 4);
	KUNIT_EXPECT_EQ(test, smi_check_forward_dr_smp(smp), IB_SMI_SEND);
	KUNIT_EXPECT_EQ(test, smi_handle_dr_smp_send(smp, true, 4),
			IB_SMI_HANDLE);
	KUNIT_EXPECT_TRUE(test, smi_is_local_request(smp));
	smp_guards_ok(test, &b);
}

/* A whole walk CA(port 1) -> switch (in 3, out 5) -> CA(port 2) -> back. */
static void smi_walk_test(struct kunit *test)
{
	struct smp_box b;
	struct ib_smp *smp = dr_smp_init(&b, false, 2, 0);

	smp->initial_path[1] = 1;
	smp->initial_path[2] = 5;
	KUNIT_ASSERT_EQ(test, smi_ca_outgoing(smp, 1), IB_SMI_HANDLE);
	KUNIT_ASSERT_FALSE(test, smi_is_local_request(smp));
	/* switch */
	KUNIT_ASSERT_EQ(test, smi_handle_dr_smp_recv(smp, true, 3, 8),
			IB_SMI_HANDLE);
	KUNIT_ASSERT_EQ(test, smi_check_forward_dr_smp(smp), IB_SMI_FORWARD);
	KUNIT_ASSERT_EQ(test, smi_handle_dr_smp_send(smp, true,
						     smi_get_fwd_port(smp)),
			IB_SMI_HANDLE);
	/* target CA */
	KUNIT_ASSERT_EQ(test, smi_ca_incoming(smp, 2, 2), IB_SMI_HANDLE);
	KUNIT_ASSERT_EQ(test, smp->hop_ptr, 3);
	KUNIT_EXPECT_EQ(test, smp->return_path[1], 3);
	KUNIT_EXPECT_EQ(test, smp->return_path[2], 2);
	/* its SMA answers */
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status |= IB_SMP_DIRECTION;
	KUNIT_ASSERT_EQ(test, smi_ca_outgoing(smp, 2), IB_SMI_HANDLE);
	KUNIT_ASSERT_EQ(test, smp->hop_ptr, 2);
	/* switch */
	KUNIT_ASSERT_EQ(test, smi_handle_dr_smp_recv(smp, true, 5, 8),
			IB_SMI_HANDLE);
	KUNIT_ASSERT_EQ(test, smi_check_forward_dr_smp(smp), IB_SMI_FORWARD);
	KUNIT_ASSERT_EQ(test, smi_get_fwd_port(smp), 3);
	KUNIT_ASSERT_EQ(test, smi_handle_dr_smp_send(smp, true, 3),
			IB_SMI_HANDLE);
	/* requester */
	KUNIT_ASSERT_EQ(test, smi_ca_incoming(smp, 1, 2), IB_SMI_HANDLE);
	KUNIT_EXPECT_TRUE(test, smi_is_local_response(smp));
	smp_guards_ok(test, &b);
}

static struct kunit_case mad_smi_test_cases[] = {
	KUNIT_CASE(smi_out_hop0_test),
	KUNIT_CASE(smi_out_hops_test),
	KUNIT_CASE(smi_out_ca_middle_test),
	KUNIT_CASE(smi_ca_recv_end_test),
	KUNIT_CASE(smi_ca_recv_middle_test),
	KUNIT_CASE(smi_ca_recv_ptr0_test),
	KUNIT_CASE(smi_ca_recv_drdlid_test),
	KUNIT_CASE(smi_hop_cnt_64_test),
	KUNIT_CASE(smi_all_pointers_test),
	KUNIT_CASE(smi_resp_responder_test),
	KUNIT_CASE(smi_resp_requester_test),
	KUNIT_CASE(smi_switch_test),
	KUNIT_CASE(smi_walk_test),
	{}
};

static struct kunit_suite mad_smi_test_suite = {
	.name = "ib_core_mad_smi",
	.test_cases = mad_smi_test_cases,
};

kunit_test_suite(mad_smi_test_suite);
