// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of ib_core device and client registration: the order of
 * callbacks, their exactly-once guarantee under any order of events and
 * under concurrency, name allocation, error unwinding and device lifetime.
 *
 * Test clients log every callback; the tests compare the log with what
 * the rules promise.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#define KUT_NCLIENTS	3
#define KUT_MAX_DEVS	128
#define KUT_MAX_EVENTS	1024
#define KUT_WAIT	(5 * HZ)

enum kut_op { KUT_ADD, KUT_REMOVE };

struct kut_event {
	enum kut_op op;
	int client;
	struct ib_device *device;
};

struct kut_client {
	struct ib_client ib;
	bool registered;
	/* add() returns @fail_err for @fail_dev (-EOPNOTSUPP: declines it) */
	struct ib_device *fail_dev;
	int fail_err;
	/* if set, add() signals @add_entered, then waits for @add_release */
	struct completion *add_entered;
	struct completion *add_release;
};

struct kut_drv_dev {
	struct ib_device ibdev;
};

struct kut_state {
	spinlock_t lock;	/* protects events and nevents */
	struct kut_event events[KUT_MAX_EVENTS];
	int nevents;
	int bad_data;		/* remove() got the wrong client data */
	struct kut_client clients[KUT_NCLIENTS];
	struct kut_drv_dev *devs[KUT_MAX_DEVS];	/* NULL: freed by the test */
	int ndevs;
};

/* Callbacks get no context argument, so they find the state here. */
static struct kut_state *kut;

static void kut_log(enum kut_op op, int client, struct ib_device *device)
{
	spin_lock(&kut->lock);
	if (!WARN_ON(kut->nevents == KUT_MAX_EVENTS))
		kut->events[kut->nevents++] = (struct kut_event) {
			.op = op, .client = client, .device = device,
		};
	spin_unlock(&kut->lock);
}

/* Devices registered by others (a built-in driver) are none of our business. */
static bool kut_ours(struct ib_device *device)
{
	int i;

	for (i = 0; i < kut->ndevs; i++)
		if (kut->devs[i] && &kut->devs[i]->ibdev == device)
			return true;
	return false;
}

static int kut_add(int id, struct ib_device *device)
{
	struct kut_client *c = &kut->clients[id];

	if (!kut_ours(device))
		return -EOPNOTSUPP;
	kut_log(KUT_ADD, id, device);
	if (c->add_entered)
		complete(c->add_entered);
	if (c->add_release)
		wait_for_completion(c->add_release);
	if (device == c->fail_dev)
		return c->fail_err;
	ib_set_client_data(device, &c->ib, device);
	return 0;
}

static void kut_remove(int id, struct ib_device *device, void *data)
{
	kut_log(KUT_REMOVE, id, device);
	if (data != device ||
	    ib_get_client_data(device, &kut->clients[id].ib) != data)
		kut->bad_data++;
}

static int kut_add0(struct ib_device *d)
{
	return kut_add(0, d);
}

static int kut_add1(struct ib_device *d)
{
	return kut_add(1, d);
}

static int kut_add2(struct ib_device *d)
{
	return kut_add(2, d);
}

static void kut_remove0(struct ib_device *d, void *p)
{
	kut_remove(0, d, p);
}

static void kut_remove1(struct ib_device *d, void *p)
{
	kut_remove(1, d, p);
}

static void kut_remove2(struct ib_device *d, void *p)
{
	kut_remove(2, d, p);
}

static int kut_init(struct kunit *test)
{
	static int (* const adds[KUT_NCLIENTS])(struct ib_device *) = {
		kut_add0, kut_add1, kut_add2,
	};
	static void (* const removes[KUT_NCLIENTS])(struct ib_device *,
						    void *) = {
		kut_remove0, kut_remove1, kut_remove2,
	};
	int i;

	kut = kunit_kzalloc(test, sizeof(*kut), GFP_KERNEL);
	if (!kut)
		return -ENOMEM;
	spin_lock_init(&kut->lock);
	for (i = 0; i < KUT_NCLIENTS; i++) {
		kut->clients[i].ib.name = "kunit";
		kut->clients[i].ib.add = adds[i];
		kut->clients[i].ib.remove = removes[i];
	}
	return 0;
}

static void kut_exit(struct kunit *test)
{
	int i;

	for (i = 0; i < KUT_NCLIENTS; i++)
		if (kut->clients[i].registered)
			ib_unregister_client(&kut->clients[i].ib);
	for (i = kut->ndevs - 1; i >= 0; i--) {
		if (!kut->devs[i])
			continue;
		ib_unregister_device(&kut->devs[i]->ibdev);
		ib_dealloc_device(&kut->devs[i]->ibdev);
	}
	kut = NULL;
}

static struct ib_device *kut_new_device(struct kunit *test)
{
	struct kut_drv_dev *d;

	KUNIT_ASSERT_LT(test, kut->ndevs, KUT_MAX_DEVS);
	d = ib_alloc_device(struct kut_drv_dev, ibdev);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->ibdev.node_type = RDMA_NODE_IB_CA;
	kut->devs[kut->ndevs++] = d;
	return &d->ibdev;
}

/* Allocate and register a device named from "kut%d". */
static struct ib_device *kut_add_device(struct kunit *test)
{
	struct ib_device *device = kut_new_device(test);

	KUNIT_ASSERT_EQ(test, ib_register_device(device, "kut%d", NULL), 0);
	return device;
}

static int kut_register_client(int id)
{
	int ret = ib_register_client(&kut->clients[id].ib);

	kut->clients[id].registered = !ret;
	return ret;
}

static void kut_unregister_client(int id)
{
	ib_unregister_client(&kut->clients[id].ib);
	kut->clients[id].registered = false;
}

static void kut_expect_event(struct kunit *test, int i, enum kut_op op,
			     int client, struct ib_device *device)
{
	KUNIT_ASSERT_LT(test, i, kut->nevents);
	KUNIT_EXPECT_EQ_MSG(test, kut->events[i].op, op, "event %d", i);
	KUNIT_EXPECT_EQ_MSG(test, kut->events[i].client, client, "event %d", i);
	KUNIT_EXPECT_PTR_EQ_MSG(test, kut->events[i].device, device,
				"event %d", i);
}

/*
 * Whether @client is attached to @device according to the log; fails the
 * test unless the pair's events alternate add, remove, add, ...
 */
static bool kut_attached(struct kunit *test, int client,
			 struct ib_device *device)
{
	bool attached = false;
	int i;

	for (i = 0; i < kut->nevents; i++) {
		if (kut->events[i].client != client ||
		    kut->events[i].device != device)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, kut->events[i].op,
				    attached ? KUT_REMOVE : KUT_ADD,
				    "event %d repeats a callback", i);
		attached = kut->events[i].op == KUT_ADD;
	}
	return attached;
}

/* Clients first, then devices: adds in client order, removes reversed. */
static void ib_reg_clients_then_devices(struct kunit *test)
{
	struct ib_device *d0, *d1;

	KUNIT_ASSERT_EQ(test, kut_register_client(0), 0);
	KUNIT_ASSERT_EQ(test, kut_register_client(1), 0);
	d0 = kut_add_device(test);
	d1 = kut_add_device(test);
	KUNIT_EXPECT_EQ(test, kut->nevents, 4);
	kut_expect_event(test, 0, KUT_ADD, 0, d0);
	kut_expect_event(test, 1, KUT_ADD, 1, d0);
	kut_expect_event(test, 2, KUT_ADD, 0, d1);
	kut_expect_event(test, 3, KUT_ADD, 1, d1);

	ib_unregister_device(d0);
	kut_expect_event(test, 4, KUT_REMOVE, 1, d0);
	kut_expect_event(test, 5, KUT_REMOVE, 0, d0);
	kut_unregister_client(0);
	kut_expect_event(test, 6, KUT_REMOVE, 0, d1);
	ib_unregister_device(d1);
	kut_expect_event(test, 7, KUT_REMOVE, 1, d1);
	/* A second unregistration is a no-op. */
	ib_unregister_device(d1);
	KUNIT_EXPECT_EQ(test, kut->nevents, 8);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

/* Devices first, then a client: adds in device order. */
static void ib_reg_devices_then_client(struct kunit *test)
{
	struct ib_device *d0, *d1;

	d0 = kut_add_device(test);
	d1 = kut_add_device(test);
	KUNIT_EXPECT_EQ(test, kut->nevents, 0);
	KUNIT_ASSERT_EQ(test, kut_register_client(0), 0);
	kut_expect_event(test, 0, KUT_ADD, 0, d0);
	kut_expect_event(test, 1, KUT_ADD, 0, d1);
	kut_unregister_client(0);
	kut_expect_event(test, 2, KUT_REMOVE, 0, d0);
	kut_expect_event(test, 3, KUT_REMOVE, 0, d1);
	ib_unregister_device(d0);
	ib_unregister_device(d1);
	KUNIT_EXPECT_EQ(test, kut->nevents, 4);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

static u32 kut_rand(u32 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/*
 * Random interleavings of 3 clients and 3 device slots coming and going:
 * after every step each pair is attached exactly when both are registered,
 * and no pair ever sees two adds or two removes in a row.
 */
static void ib_reg_random_orders(struct kunit *test)
{
	struct ib_device *slot[3] = {};
	u32 seed = 0x1b2c3d4e;
	int step, r, c, j;

	for (step = 0; step < 120; step++) {
		r = kut_rand(&seed) % 6;
		if (r < 3) {
			if (kut->clients[r].registered)
				kut_unregister_client(r);
			else
				KUNIT_ASSERT_EQ(test, kut_register_client(r), 0);
		} else {
			j = r - 3;
			if (slot[j] && slot[j]->reg_state == IB_DEV_LIVE)
				ib_unregister_device(slot[j]);
			else
				slot[j] = kut_add_device(test);
		}

		for (c = 0; c < KUT_NCLIENTS; c++)
			for (j = 0; j < 3; j++) {
				bool want;

				if (!slot[j])
					continue;
				want = kut->clients[c].registered &&
				       slot[j]->reg_state == IB_DEV_LIVE;
				KUNIT_ASSERT_EQ_MSG(test,
						    kut_attached(test, c, slot[j]),
						    want, "step %d client %d slot %d",
						    step, c, j);
			}
	}
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

/* Registration calls run in threads for the concurrency tests. */
enum kut_call { KUT_REG_CLIENT, KUT_UNREG_CLIENT, KUT_REG_DEV, KUT_UNREG_DEV };

struct kut_thread {
	enum kut_call call;
	int client;
	struct ib_device *device;
	int ret;
	struct completion done;
};

static int kut_thread_fn(void *arg)
{
	struct kut_thread *t = arg;

	switch (t->call) {
	case KUT_REG_CLIENT:
		t->ret = kut_register_client(t->client);
		break;
	case KUT_UNREG_CLIENT:
		kut_unregister_client(t->client);
		break;
	case KUT_REG_DEV:
		t->ret = ib_register_device(t->device, "kut%d", NULL);
		break;
	case KUT_UNREG_DEV:
		ib_unregister_device(t->device);
		break;
	}
	complete(&t->done);
	return 0;
}

static void kut_start(struct kunit *test, struct kut_thread *t,
		      enum kut_call call, int client, struct ib_device *device)
{
	struct task_struct *task;

	t->call = call;
	t->client = client;
	t->device = device;
	init_completion(&t->done);
	task = kthread_run(kut_thread_fn, t, "kut-reg");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
}

/*
 * While a client's add is running for a device, the other side of the
 * pair goes away: the removal waits for add to finish and then calls
 * remove exactly once.  @dev_first: the device exists and the client
 * registration is the one blocked in add; otherwise the reverse.
 */
static void kut_unregister_during_add(struct kunit *test, bool dev_first)
{
	struct kut_client *c = &kut->clients[0];
	struct completion entered, release;
	struct kut_thread adder, remover;
	struct ib_device *d;
	unsigned long left;

	init_completion(&entered);
	init_completion(&release);
	c->add_entered = &entered;
	c->add_release = &release;

	if (dev_first) {
		d = kut_add_device(test);
		kut_start(test, &adder, KUT_REG_CLIENT, 0, NULL);
	} else {
		KUNIT_ASSERT_EQ(test, kut_register_client(0), 0);
		d = kut_new_device(test);
		kut_start(test, &adder, KUT_REG_DEV, 0, d);
	}
	left = wait_for_completion_timeout(&entered, KUT_WAIT);
	KUNIT_EXPECT_NE(test, left, 0);

	kut_start(test, &remover, dev_first ? KUT_UNREG_DEV : KUT_UNREG_CLIENT,
		  0, d);
	left = wait_for_completion_timeout(&remover.done, HZ / 5);
	KUNIT_EXPECT_EQ_MSG(test, left, 0, "removal did not wait for add");
	KUNIT_EXPECT_EQ(test, kut->nevents, 1);

	complete(&release);
	wait_for_completion(&adder.done);
	wait_for_completion(&remover.done);
	c->add_entered = NULL;
	c->add_release = NULL;

	KUNIT_EXPECT_EQ(test, adder.ret, 0);
	KUNIT_EXPECT_EQ(test, kut->nevents, 2);
	kut_expect_event(test, 0, KUT_ADD, 0, d);
	kut_expect_event(test, 1, KUT_REMOVE, 0, d);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);

	/* Whatever is left unregisters without another callback. */
	ib_unregister_device(d);
	if (kut->clients[0].registered)
		kut_unregister_client(0);
	KUNIT_EXPECT_EQ(test, kut->nevents, 2);
}

static void ib_unreg_device_during_add(struct kunit *test)
{
	kut_unregister_during_add(test, true);
}

static void ib_unreg_client_during_add(struct kunit *test)
{
	kut_unregister_during_add(test, false);
}

static void kut_expect_name(struct kunit *test, struct ib_device *device,
			    const char *name)
{
	KUNIT_EXPECT_STREQ(test, ib_device_name(device), name);
}

/* Templates take the lowest free number; freed names are reused. */
static void ib_name_allocation(struct kunit *test)
{
	struct ib_device *d[3], *again, *next, *found;
	u32 old_index;
	int i;

	for (i = 0; i < 3; i++)
		d[i] = kut_add_device(test);
	kut_expect_name(test, d[0], "kut0");
	kut_expect_name(test, d[1], "kut1");
	kut_expect_name(test, d[2], "kut2");

	old_index = d[1]->index;
	ib_unregister_device(d[1]);
	KUNIT_EXPECT_NULL(test, ib_device_get_by_name("kut1"));
	again = kut_add_device(test);
	kut_expect_name(test, again, "kut1");
	/* Indexes are user ABI (netlink) and are not handed out again soon. */
	KUNIT_EXPECT_NE(test, again->index, old_index);
	next = kut_add_device(test);
	kut_expect_name(test, next, "kut3");

	found = ib_device_get_by_name("kut1");
	KUNIT_EXPECT_PTR_EQ(test, found, again);
	if (found)
		ib_device_put(found);
	found = ib_device_get_by_index(again->index);
	KUNIT_EXPECT_PTR_EQ(test, found, again);
	if (found)
		ib_device_put(found);

	next = kut_new_device(test);
	KUNIT_EXPECT_EQ(test, ib_register_device(next, "k%dx", NULL), 0);
	kut_expect_name(test, next, "k0x");
}

static void ib_name_literal_and_invalid(struct kunit *test)
{
	static const char * const bad[] = {
		"", "kut%s", "kut%d%d", "%", "kut%", "a/b%d", "a b", ".", "..",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	struct ib_device *fixed, *dup;
	int i;

	fixed = kut_new_device(test);
	KUNIT_EXPECT_EQ(test, ib_register_device(fixed, "kutfix", NULL), 0);
	kut_expect_name(test, fixed, "kutfix");

	dup = kut_new_device(test);
	KUNIT_EXPECT_EQ(test, ib_register_device(dup, "kutfix", NULL), -EEXIST);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, ib_register_device(dup, bad[i], NULL),
				    -EINVAL, "name \"%s\"", bad[i]);
	/* A refused name leaves the device as new as it was. */
	KUNIT_EXPECT_EQ(test, dup->reg_state, IB_DEV_NEW);
	KUNIT_EXPECT_NULL(test, dup->port_data);
	KUNIT_EXPECT_EQ(test, ib_register_device(dup, "kut%d", NULL), 0);
	kut_expect_name(test, dup, "kut0");
	/* And a registered device cannot be registered again. */
	KUNIT_EXPECT_EQ(test, ib_register_device(dup, "kut%d", NULL), -EINVAL);
}

/*
 * A client's add fails during device registration: the registration
 * fails, clients added before are removed again, later clients are never
 * called, and the name is free again.
 */
static void ib_add_fails_device_registration(struct kunit *test)
{
	struct ib_device *d, *d2;

	KUNIT_ASSERT_EQ(test, kut_register_client(0), 0);
	KUNIT_ASSERT_EQ(test, kut_register_client(1), 0);
	KUNIT_ASSERT_EQ(test, kut_register_client(2), 0);
	d = kut_new_device(test);
	kut->clients[1].fail_dev = d;
	kut->clients[1].fail_err = -ENOMEM;

	KUNIT_EXPECT_EQ(test, ib_register_device(d, "kutx", NULL), -ENOMEM);
	KUNIT_EXPECT_EQ(test, kut->nevents, 3);
	kut_expect_event(test, 0, KUT_ADD, 0, d);
	kut_expect_event(test, 1, KUT_ADD, 1, d);
	kut_expect_event(test, 2, KUT_REMOVE, 0, d);
	KUNIT_EXPECT_EQ(test, d->reg_state, IB_DEV_GONE);
	/* every step of the registration was undone, the port cache too */
	KUNIT_EXPECT_NULL(test, d->port_data);
	KUNIT_EXPECT_NULL(test, ib_device_get_by_name("kutx"));
	KUNIT_EXPECT_FALSE(test, ib_device_try_get(d));

	d2 = kut_new_device(test);
	KUNIT_EXPECT_EQ(test, ib_register_device(d2, "kutx", NULL), 0);
	KUNIT_EXPECT_EQ(test, kut->nevents, 6);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

/*
 * A client's add fails during client registration: the client is removed
 * from the devices it was added to and is not registered.
 */
static void ib_add_fails_client_registration(struct kunit *test)
{
	struct ib_device *d0, *d1, *d3;

	d0 = kut_add_device(test);
	d1 = kut_add_device(test);
	kut_add_device(test);
	kut->clients[1].fail_dev = d1;
	kut->clients[1].fail_err = -EIO;

	KUNIT_EXPECT_EQ(test, kut_register_client(1), -EIO);
	KUNIT_EXPECT_EQ(test, kut->nevents, 3);
	kut_expect_event(test, 0, KUT_ADD, 1, d0);
	kut_expect_event(test, 1, KUT_ADD, 1, d1);
	kut_expect_event(test, 2, KUT_REMOVE, 1, d0);

	d3 = kut_add_device(test);
	KUNIT_EXPECT_EQ(test, kut->nevents, 3);

	/* Registering again works once add stops failing. */
	kut->clients[1].fail_dev = NULL;
	KUNIT_EXPECT_EQ(test, kut_register_client(1), 0);
	KUNIT_EXPECT_EQ(test, kut->nevents, 7);
	KUNIT_EXPECT_TRUE(test, kut_attached(test, 1, d3));
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

/* -EOPNOTSUPP from add declines a device: no error, no remove. */
static void ib_add_declines(struct kunit *test)
{
	struct ib_device *d0, *d1;

	d0 = kut_add_device(test);
	kut->clients[0].fail_dev = d0;
	kut->clients[0].fail_err = -EOPNOTSUPP;
	KUNIT_EXPECT_EQ(test, kut_register_client(0), 0);
	KUNIT_EXPECT_NULL(test, ib_get_client_data(d0, &kut->clients[0].ib));
	d1 = kut_add_device(test);
	KUNIT_EXPECT_PTR_EQ(test, ib_get_client_data(d1, &kut->clients[0].ib),
			    (void *)d1);

	ib_unregister_device(d0);
	KUNIT_EXPECT_EQ(test, kut->nevents, 2);
	kut_unregister_client(0);
	KUNIT_EXPECT_EQ(test, kut->nevents, 3);
	kut_expect_event(test, 2, KUT_REMOVE, 0, d1);
	KUNIT_EXPECT_NULL(test, ib_get_client_data(d1, &kut->clients[0].ib));
}

/*
 * Registration references: only a registered device hands them out, and
 * unregistration waits for the last one.
 */
static void ib_registration_refcount(struct kunit *test)
{
	struct ib_device *d, *by_name, *by_index;
	struct kut_thread remover;
	unsigned long left;

	d = kut_new_device(test);
	KUNIT_EXPECT_FALSE(test, ib_device_try_get(d));
	KUNIT_ASSERT_EQ(test, ib_register_device(d, "kut%d", NULL), 0);

	by_name = ib_device_get_by_name("kut0");
	by_index = ib_device_get_by_index(d->index);
	KUNIT_ASSERT_PTR_EQ(test, by_name, d);
	KUNIT_ASSERT_PTR_EQ(test, by_index, d);
	ib_device_put(by_name);

	kut_start(test, &remover, KUT_UNREG_DEV, 0, d);
	left = wait_for_completion_timeout(&remover.done, HZ / 5);
	KUNIT_EXPECT_EQ_MSG(test, left, 0, "unregistration did not wait");
	/* Lookups stop at once, though. */
	KUNIT_EXPECT_NULL(test, ib_device_get_by_name("kut0"));
	KUNIT_EXPECT_NULL(test, ib_device_get_by_index(d->index));

	ib_device_put(by_index);
	left = wait_for_completion_timeout(&remover.done, KUT_WAIT);
	KUNIT_EXPECT_NE(test, left, 0);
	if (!left)
		wait_for_completion(&remover.done);
	KUNIT_EXPECT_EQ(test, d->reg_state, IB_DEV_GONE);
	KUNIT_EXPECT_FALSE(test, ib_device_try_get(d));
}

/*
 * The memory of a device outlives unregistration and the driver's
 * ib_dealloc_device() while a client still holds a device reference.
 */
static void ib_device_lifetime(struct kunit *test)
{
	struct ib_device *d;

	d = kut_add_device(test);
	get_device(&d->dev);

	ib_unregister_device(d);
	ib_dealloc_device(d);
	kut->devs[kut->ndevs - 1] = NULL;

	KUNIT_EXPECT_EQ(test, kref_read(&d->dev.kobj.kref), 1);
	KUNIT_EXPECT_STREQ(test, ib_device_name(d), "kut0");
	KUNIT_EXPECT_EQ(test, d->node_type, RDMA_NODE_IB_CA);
	KUNIT_EXPECT_EQ(test, d->reg_state, IB_DEV_GONE);
	/* The name is free although the memory lives on. */
	kut_expect_name(test, kut_add_device(test), "kut0");
	put_device(&d->dev);
}

static struct kunit_case ib_device_test_cases[] = {
	KUNIT_CASE(ib_reg_clients_then_devices),
	KUNIT_CASE(ib_reg_devices_then_client),
	KUNIT_CASE(ib_reg_random_orders),
	KUNIT_CASE(ib_unreg_device_during_add),
	KUNIT_CASE(ib_unreg_client_during_add),
	KUNIT_CASE(ib_name_allocation),
	KUNIT_CASE(ib_name_literal_and_invalid),
	KUNIT_CASE(ib_add_fails_device_registration),
	KUNIT_CASE(ib_add_fails_client_registration),
	KUNIT_CASE(ib_add_declines),
	KUNIT_CASE(ib_registration_refcount),
	KUNIT_CASE(ib_device_lifetime),
	{}
};

static struct kunit_suite ib_device_test_suite = {
	.name = "ib_core_device",
	.init = kut_init,
	.exit = kut_exit,
	.test_cases = ib_device_test_cases,
};

kunit_test_suite(ib_device_test_suite);

MODULE_DESCRIPTION("KUnit tests of InfiniBand core device registration");
MODULE_LICENSE("Dual BSD/GPL");
