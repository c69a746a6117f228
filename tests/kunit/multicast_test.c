// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the multicast module (core/multicast.c) with a fake SA
 * put in place of the MCMemberRecord query (ib_mcast_set_query_fn()), on
 * the fake device of sa_fake.c: one Set per port, group and join state
 * however many users join, the cached record for later users, callbacks
 * only from the work item, a Delete of a join state when its last user
 * goes, join errors told to every waiting user, and the rejoin after a
 * port event with -ENETRESET first (a non-zero return freeing that
 * membership).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <rdma/ib_sa.h>

#include "sa.h"
#include "sa_fake.h"

#define MCT_LOG		16

/**
 * struct mct_query - a query the fake SA got
 * @list: in mct_queries
 * @method: Set or Delete
 * @rec: the record sent
 * @comp_mask: its components
 * @callback: to finish it
 * @context: for @callback
 */
struct mct_query {
	struct list_head	list;
	u8			method;
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask		comp_mask;
	void (*callback)(int status, struct ib_sa_mcmember_rec *resp,
			 void *context);
	void			*context;
};

/* protects mct_queries and mct_nqueries */
static DEFINE_SPINLOCK(mct_lock);
static LIST_HEAD(mct_queries);
static unsigned int mct_nqueries;
static DECLARE_WAIT_QUEUE_HEAD(mct_wait);

static int mct_query(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, u8 method, struct ib_sa_mcmember_rec *rec,
		     ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		     gfp_t gfp_mask,
		     void (*callback)(int status,
				      struct ib_sa_mcmember_rec *resp,
				      void *context),
		     void *context, struct ib_sa_query **query)
{
	struct mct_query *q = kzalloc(sizeof(*q), gfp_mask);
	unsigned long flags;

	if (!q)
		return -ENOMEM;
	q->method = method;
	q->rec = *rec;
	q->comp_mask = comp_mask;
	q->callback = callback;
	q->context = context;
	*query = NULL;
	spin_lock_irqsave(&mct_lock, flags);
	list_add_tail(&q->list, &mct_queries);
	mct_nqueries++;
	spin_unlock_irqrestore(&mct_lock, flags);
	wake_up_all(&mct_wait);
	return 1000 + mct_nqueries;
}

static struct mct_query *mct_pop(void)
{
	struct mct_query *q = NULL;
	unsigned long flags;

	spin_lock_irqsave(&mct_lock, flags);
	if (!list_empty(&mct_queries)) {
		q = list_first_entry(&mct_queries, struct mct_query, list);
		list_del(&q->list);
	}
	spin_unlock_irqrestore(&mct_lock, flags);
	return q;
}

/* The next query, waiting up to 2 s; NULL if none. */
static struct mct_query *mct_next(void)
{
	struct mct_query *q = NULL;

	wait_event_timeout(mct_wait, (q = mct_pop()), 2 * HZ);
	return q;
}

/* Answer a query as the SA would, and free it. */
static void mct_answer(struct mct_query *q, int status, u16 mlid)
{
	struct ib_sa_mcmember_rec rec = q->rec;

	rec.mlid = cpu_to_be16(mlid);
	rec.qkey = cpu_to_be32(0x0b1b);
	q->callback(status, status ? NULL : &rec, q->context);
	kfree(q);
	ib_mcast_flush();
}

/**
 * struct mct_user - a kernel user of the module
 * @mc: its membership
 * @log: the statuses its callback saw
 * @n: how many
 * @mlid: the MLID of the record at the last call
 * @free_on_reset: return non-zero on -ENETRESET
 */
struct mct_user {
	struct ib_sa_multicast	*mc;
	int			log[MCT_LOG];
	int			n;
	u16			mlid;
	bool			free_on_reset;
};

static int mct_cb(int status, struct ib_sa_multicast *multicast)
{
	struct mct_user *u = multicast->context;

	if (u->n < MCT_LOG)
		u->log[u->n] = status;
	u->n++;
	u->mlid = be16_to_cpu(multicast->rec.mlid);
	return status == -ENETRESET && u->free_on_reset;
}

struct mct_ctx {
	struct ksa_dev		*kd;
	struct ib_sa_client	client;
};

static int mct_init(struct kunit *test)
{
	struct mct_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ib_mcast_set_query_fn(mct_query);
	ctx->kd = ksa_register();
	if (!ctx->kd) {
		ib_mcast_set_query_fn(NULL);
		return -ENODEV;
	}
	ib_sa_register_client(&ctx->client);
	test->priv = ctx;
	return 0;
}

static void mct_exit(struct kunit *test)
{
	struct mct_ctx *ctx = test->priv;
	struct mct_query *q;

	/* answer whatever is left, so that the groups can go */
	ib_mcast_flush();
	while ((q = mct_pop()))
		mct_answer(q, -EINTR, 0);
	ksa_unregister(ctx->kd);
	ib_mcast_set_query_fn(NULL);
	ib_sa_unregister_client(&ctx->client);
	spin_lock_irq(&mct_lock);
	mct_nqueries = 0;
	spin_unlock_irq(&mct_lock);
}

static const u8 mct_mgid[16] = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff,
};

#define MCT_MASK (IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID | \
		  IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE)

static struct mct_user *mct_join(struct kunit *test, u8 join_state)
{
	struct mct_ctx *ctx = test->priv;
	struct ib_sa_mcmember_rec rec = {};
	struct mct_user *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	memcpy(rec.mgid.raw, mct_mgid, 16);
	rdma_query_gid(&ctx->kd->ibdev, 1, 0, &rec.port_gid);
	rec.pkey = cpu_to_be16(0xffff);
	rec.join_state = join_state;
	u->mc = ib_sa_join_multicast(&ctx->client, &ctx->kd->ibdev, 1, &rec,
				     MCT_MASK, GFP_KERNEL, mct_cb, u);
	KUNIT_ASSERT_FALSE(test, IS_ERR(u->mc));
	/* never a callback from inside the join */
	KUNIT_EXPECT_EQ(test, u->n, 0);
	return u;
}

static void mct_free(struct mct_user *u)
{
	ib_sa_free_multicast(u->mc);
	u->mc = NULL;
	ib_mcast_flush();
}

/* Two users of one join state: one Set, one Delete. */
static void mct_shared(struct kunit *test)
{
	struct mct_ctx *ctx = test->priv;
	struct ib_sa_mcmember_rec got;
	union ib_gid mgid;
	struct mct_user *a, *b;
	struct mct_query *q;

	memcpy(mgid.raw, mct_mgid, 16);
	a = mct_join(test, BIT(FULLMEMBER_JOIN));
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_MGMT_METHOD_SET);
	KUNIT_EXPECT_EQ(test, q->rec.join_state, BIT(FULLMEMBER_JOIN));
	KUNIT_EXPECT_TRUE(test, q->comp_mask == MCT_MASK);
	KUNIT_EXPECT_EQ(test, memcmp(q->rec.mgid.raw, mct_mgid, 16), 0);
	KUNIT_EXPECT_EQ(test, ib_sa_get_mcmember_rec(&ctx->kd->ibdev, 1, &mgid,
						     &got), -EADDRNOTAVAIL);
	mct_answer(q, 0, 0xc001);
	KUNIT_EXPECT_EQ(test, a->n, 1);
	KUNIT_EXPECT_EQ(test, a->log[0], 0);
	KUNIT_EXPECT_EQ(test, a->mlid, 0xc001);
	KUNIT_EXPECT_EQ(test, a->mc->rec.join_state, BIT(FULLMEMBER_JOIN));

	b = mct_join(test, BIT(FULLMEMBER_JOIN));
	ib_mcast_flush();
	KUNIT_EXPECT_EQ(test, b->n, 1);
	KUNIT_EXPECT_EQ(test, b->log[0], 0);
	KUNIT_EXPECT_EQ(test, b->mlid, 0xc001);
	KUNIT_EXPECT_NULL(test, mct_pop());
	KUNIT_EXPECT_EQ(test, ib_sa_get_mcmember_rec(&ctx->kd->ibdev, 1, &mgid,
						     &got), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(got.mlid), 0xc001);

	mct_free(a);
	KUNIT_EXPECT_NULL(test, mct_pop());
	mct_free(b);
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_SA_METHOD_DELETE);
	KUNIT_EXPECT_EQ(test, q->rec.join_state, BIT(FULLMEMBER_JOIN));
	KUNIT_EXPECT_TRUE(test, q->comp_mask ==
			  (IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
			   IB_SA_MCMEMBER_REC_JOIN_STATE));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(q->rec.mlid), 0xc001);
	mct_answer(q, 0, 0xc001);
	KUNIT_EXPECT_EQ(test, ib_sa_get_mcmember_rec(&ctx->kd->ibdev, 1, &mgid,
						     &got), -EADDRNOTAVAIL);
	KUNIT_EXPECT_NULL(test, mct_pop());
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 1);
}

/* Two join states of one group: a Set and a Delete for each. */
static void mct_states(struct kunit *test)
{
	struct mct_user *full, *sendonly;
	struct mct_query *q;

	full = mct_join(test, BIT(FULLMEMBER_JOIN));
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	mct_answer(q, 0, 0xc002);
	sendonly = mct_join(test, BIT(SENDONLY_NONMEMBER_JOIN));
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_MGMT_METHOD_SET);
	KUNIT_EXPECT_EQ(test, q->rec.join_state, BIT(SENDONLY_NONMEMBER_JOIN));
	mct_answer(q, 0, 0xc002);
	KUNIT_EXPECT_EQ(test, sendonly->n, 1);
	KUNIT_EXPECT_EQ(test, sendonly->log[0], 0);

	mct_free(sendonly);
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_SA_METHOD_DELETE);
	KUNIT_EXPECT_EQ(test, q->rec.join_state, BIT(SENDONLY_NONMEMBER_JOIN));
	mct_answer(q, 0, 0);
	mct_free(full);
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_SA_METHOD_DELETE);
	KUNIT_EXPECT_EQ(test, q->rec.join_state, BIT(FULLMEMBER_JOIN));
	mct_answer(q, 0, 0);
	KUNIT_EXPECT_EQ(test, full->n, 1);
}

/* A failed join reaches every user waiting for it; later ones try anew. */
static void mct_join_error(struct kunit *test)
{
	struct mct_user *a, *b, *c;
	struct mct_query *q;

	a = mct_join(test, BIT(FULLMEMBER_JOIN));
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	b = mct_join(test, BIT(FULLMEMBER_JOIN));
	ib_mcast_flush();
	KUNIT_EXPECT_NULL(test, mct_pop());	/* one Set for both */
	mct_answer(q, -ETIMEDOUT, 0);
	KUNIT_EXPECT_EQ(test, a->n, 1);
	KUNIT_EXPECT_EQ(test, a->log[0], -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, b->n, 1);
	KUNIT_EXPECT_EQ(test, b->log[0], -ETIMEDOUT);

	c = mct_join(test, BIT(FULLMEMBER_JOIN));
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_MGMT_METHOD_SET);
	mct_answer(q, 0, 0xc003);
	KUNIT_EXPECT_EQ(test, c->log[0], 0);
	/* the dead memberships are freed without a word to the SA */
	mct_free(a);
	mct_free(b);
	KUNIT_EXPECT_NULL(test, mct_pop());
	KUNIT_EXPECT_EQ(test, a->n, 1);
	mct_free(c);
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_SA_METHOD_DELETE);
	mct_answer(q, 0, 0);
}

/* Freed while its Set is in flight: the group leaves once joined. */
static void mct_free_while_joining(struct kunit *test)
{
	struct mct_user *a;
	struct mct_query *q;

	a = mct_join(test, BIT(FULLMEMBER_JOIN));
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	mct_free(a);
	KUNIT_EXPECT_NULL(test, mct_pop());
	mct_answer(q, 0, 0xc004);
	KUNIT_EXPECT_EQ(test, a->n, 0);
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_SA_METHOD_DELETE);
	mct_answer(q, 0, 0);
}

static void mct_event(struct mct_ctx *ctx, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &ctx->kd->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/* A port event: -ENETRESET, one Set again, 0 again; non-zero frees. */
static void mct_rejoin(struct kunit *test)
{
	struct mct_ctx *ctx = test->priv;
	static const enum ib_event_type events[] = {
		IB_EVENT_CLIENT_REREGISTER, IB_EVENT_SM_CHANGE,
		IB_EVENT_LID_CHANGE, IB_EVENT_PORT_ACTIVE,
	};
	struct mct_user *a, *b, *c;
	struct mct_query *q;
	unsigned int i;

	a = mct_join(test, BIT(FULLMEMBER_JOIN));
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	mct_answer(q, 0, 0xc005);
	b = mct_join(test, BIT(FULLMEMBER_JOIN));
	c = mct_join(test, BIT(FULLMEMBER_JOIN));
	c->free_on_reset = true;
	ib_mcast_flush();
	KUNIT_ASSERT_EQ(test, b->n, 1);
	KUNIT_ASSERT_EQ(test, c->n, 1);

	for (i = 0; i < ARRAY_SIZE(events); i++) {
		mct_event(ctx, events[i]);
		q = mct_next();
		KUNIT_ASSERT_NOT_NULL_MSG(test, q, "event %d", events[i]);
		KUNIT_EXPECT_EQ(test, q->method, IB_MGMT_METHOD_SET);
		KUNIT_EXPECT_EQ(test, q->rec.join_state, BIT(FULLMEMBER_JOIN));
		KUNIT_EXPECT_EQ(test, a->n, 2 + 2 * i);
		KUNIT_EXPECT_EQ(test, a->log[1 + 2 * i], -ENETRESET);
		mct_answer(q, 0, 0xc006 + i);
		/* one Set for all */
		KUNIT_EXPECT_NULL(test, mct_pop());
		KUNIT_EXPECT_EQ(test, a->n, 3 + 2 * i);
		KUNIT_EXPECT_EQ(test, a->log[2 + 2 * i], 0);
		KUNIT_EXPECT_EQ(test, a->mlid, 0xc006 + i);
		KUNIT_EXPECT_EQ(test, b->log[2 + 2 * i], 0);
	}
	/* c said non-zero to the first -ENETRESET: gone, never told again */
	KUNIT_EXPECT_EQ(test, c->n, 2);
	KUNIT_EXPECT_EQ(test, c->log[1], -ENETRESET);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 3);

	/* an event that loses no membership changes nothing */
	mct_event(ctx, IB_EVENT_GID_CHANGE);
	msleep(50);
	ib_mcast_flush();
	KUNIT_EXPECT_NULL(test, mct_pop());
	KUNIT_EXPECT_EQ(test, a->n, 1 + 2 * (int)ARRAY_SIZE(events));
	mct_free(a);
	mct_free(b);
	q = mct_next();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, q->method, IB_SA_METHOD_DELETE);
	mct_answer(q, 0, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 1);
}

static void mct_bad_args(struct kunit *test)
{
	struct mct_ctx *ctx = test->priv;
	struct ib_sa_mcmember_rec rec = {};
	struct ib_sa_multicast *mc;
	static const u8 states[] = { 0, 3, 0x10, 0xff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(states); i++) {
		rec.join_state = states[i];
		mc = ib_sa_join_multicast(&ctx->client, &ctx->kd->ibdev, 1,
					  &rec, MCT_MASK, GFP_KERNEL, mct_cb,
					  NULL);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(mc), -EINVAL,
				    "join state 0x%x", states[i]);
	}
	rec.join_state = BIT(FULLMEMBER_JOIN);
	mc = ib_sa_join_multicast(&ctx->client, &ctx->kd->ibdev, 1, &rec,
				  MCT_MASK, GFP_KERNEL, NULL, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mc), -EINVAL);
	mc = ib_sa_join_multicast(&ctx->client, &ctx->kd->ibdev, 2, &rec,
				  MCT_MASK, GFP_KERNEL, mct_cb, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mc), -ENODEV);
	mc = ib_sa_join_multicast(&ctx->client, &ctx->kd->ibdev, 0, &rec,
				  MCT_MASK, GFP_KERNEL, mct_cb, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mc), -ENODEV);
	ib_mcast_flush();
	KUNIT_EXPECT_NULL(test, mct_pop());
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->client.users), 1);
}

static struct kunit_case mct_cases[] = {
	KUNIT_CASE(mct_shared),
	KUNIT_CASE(mct_states),
	KUNIT_CASE(mct_join_error),
	KUNIT_CASE(mct_free_while_joining),
	KUNIT_CASE(mct_rejoin),
	KUNIT_CASE(mct_bad_args),
	{}
};

static struct kunit_suite mct_suite = {
	.name = "ib_core_multicast",
	.init = mct_init,
	.exit = mct_exit,
	.test_cases = mct_cases,
};

kunit_test_suite(mct_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
