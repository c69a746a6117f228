// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of ib_core device and client registration: the order of
 * callbacks, their exactly-once guarantee under any order of events and
 * under concurrency, name allocation, error unwinding and device lifetime.
 * And the questions the core asks the clients for others: which net
 * device a connection request is for (ib_get_net_dev_by_params()), and
 * which character device a client offers, per device or not tied to one
 * (ib_get_client_nl_info(), and nldev's RDMA_NLDEV_CMD_GET_CHARDEV over a
 * NETLINK_RDMA socket).
 *
 * Test clients log every callback; the tests compare the log with what
 * the rules promise.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/kthread.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "nl_test.h"

#define KUT_NCLIENTS	3
#define KUT_NQCLIENTS	4
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

/*
 * A client that is asked questions: get_net_dev_by_params answers
 * @answer, and get_nl_info and get_global_nl_info the test's cdev.  Its
 * add sets the kut_qclient itself as client data, through which the
 * callbacks find it.
 */
struct kut_qclient {
	struct ib_client ib;
	bool registered;
	bool decline;		/* add() declines every device */
	struct net_device *answer;
	int asked;		/* get_net_dev_by_params calls */
	/* the arguments of the last call */
	struct ib_device *dev;
	u32 port;
	u16 pkey;
	const union ib_gid *gid;
	const struct sockaddr *addr;
	/* if set, the callback signals @entered, then waits for @release */
	struct completion *entered;
	struct completion *release;
	bool returned;		/* a blocked callback has returned */
	bool removed_early;	/* remove() ran before the callback returned */
	/* if set, remove() waits for a lookup on the work queue */
	bool lookup_in_remove;
};

struct kut_state {
	spinlock_t lock;	/* protects events and nevents */
	struct kut_event events[KUT_MAX_EVENTS];
	int nevents;
	int bad_data;		/* remove() got the wrong client data */
	struct kut_client clients[KUT_NCLIENTS];
	struct kut_drv_dev *devs[KUT_MAX_DEVS];	/* NULL: freed by the test */
	int ndevs;
	struct kut_qclient qclients[KUT_NQCLIENTS];
	/* a lookup that a client's remove callback waits for */
	struct work_struct lookup_work;
	struct ib_device *lookup_dev;
	struct net_device *lookup_result;
	struct completion lookup_done;
	bool lookup_in_time;
	/* the character device the question clients offer */
	struct device cdev;
	bool cdev_live;
	int global_err;		/* get_global_nl_info's error, if any */
	int global_asked;
	int nl_asked;
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

/* A lookup on the work queue, as the RDMA CM does one for the IB CM. */
static void kut_lookup_work(struct work_struct *work)
{
	kut->lookup_result = ib_get_net_dev_by_params(kut->lookup_dev, 1,
						      0xffff, NULL, NULL);
	complete(&kut->lookup_done);
}

static int kut_qadd(int id, struct ib_device *device)
{
	struct kut_qclient *qc = &kut->qclients[id];

	if (!kut_ours(device) || qc->decline)
		return -EOPNOTSUPP;
	ib_set_client_data(device, &qc->ib, qc);
	return 0;
}

static void kut_qremove(int id, struct ib_device *device, void *data)
{
	struct kut_qclient *qc = &kut->qclients[id];

	if (data != qc)
		kut->bad_data++;
	if (qc->entered && !qc->returned)
		qc->removed_early = true;
	if (qc->lookup_in_remove) {
		/* what ib_cm's remove does: wait for its work queue */
		kut->lookup_dev = device;
		reinit_completion(&kut->lookup_done);
		queue_work(system_unbound_wq, &kut->lookup_work);
		kut->lookup_in_time =
			wait_for_completion_timeout(&kut->lookup_done,
						    KUT_WAIT);
	}
}

static int kut_qadd0(struct ib_device *d)
{
	return kut_qadd(0, d);
}

static int kut_qadd1(struct ib_device *d)
{
	return kut_qadd(1, d);
}

static int kut_qadd2(struct ib_device *d)
{
	return kut_qadd(2, d);
}

static int kut_qadd3(struct ib_device *d)
{
	return kut_qadd(3, d);
}

static void kut_qremove0(struct ib_device *d, void *p)
{
	kut_qremove(0, d, p);
}

static void kut_qremove1(struct ib_device *d, void *p)
{
	kut_qremove(1, d, p);
}

static void kut_qremove2(struct ib_device *d, void *p)
{
	kut_qremove(2, d, p);
}

static void kut_qremove3(struct ib_device *d, void *p)
{
	kut_qremove(3, d, p);
}

/* The client data is the kut_qclient, if the core passes the right one. */
static struct kut_qclient *kut_qclient_of(void *client_data)
{
	int i;

	for (i = 0; i < KUT_NQCLIENTS; i++)
		if (client_data == &kut->qclients[i])
			return client_data;
	kut->bad_data++;
	return NULL;
}

static struct net_device *kut_net_dev(struct ib_device *dev, u32 port,
				      u16 pkey, const union ib_gid *gid,
				      const struct sockaddr *addr,
				      void *client_data)
{
	struct kut_qclient *qc = kut_qclient_of(client_data);

	if (!qc)
		return NULL;
	qc->asked++;
	qc->dev = dev;
	qc->port = port;
	qc->pkey = pkey;
	qc->gid = gid;
	qc->addr = addr;
	if (qc->entered) {
		complete(qc->entered);
		wait_for_completion(qc->release);
		/* give a remove that does not wait the time to run early */
		msleep(20);
		qc->returned = true;
	}
	return qc->answer;
}

static int kut_nl_info(struct ib_device *device, void *client_data,
		       struct ib_client_nl_info *res)
{
	if (!kut_qclient_of(client_data))
		return -EINVAL;
	kut->nl_asked++;
	res->cdev = &kut->cdev;
	res->abi = 3;
	return 0;
}

static int kut_global_nl_info(struct ib_client_nl_info *res)
{
	kut->global_asked++;
	if (kut->global_err)
		return kut->global_err;
	res->cdev = &kut->cdev;
	res->abi = 4;
	return 0;
}

/* A global answer that forgets the character device. */
static int kut_global_nl_info_empty(struct ib_client_nl_info *res)
{
	kut->global_asked++;
	res->abi = 4;
	return 0;
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
	static int (* const qadds[KUT_NQCLIENTS])(struct ib_device *) = {
		kut_qadd0, kut_qadd1, kut_qadd2, kut_qadd3,
	};
	static void (* const qremoves[KUT_NQCLIENTS])(struct ib_device *,
						      void *) = {
		kut_qremove0, kut_qremove1, kut_qremove2, kut_qremove3,
	};
	int i;

	kut = kunit_kzalloc(test, sizeof(*kut), GFP_KERNEL);
	if (!kut)
		return -ENOMEM;
	spin_lock_init(&kut->lock);
	INIT_WORK(&kut->lookup_work, kut_lookup_work);
	init_completion(&kut->lookup_done);
	for (i = 0; i < KUT_NCLIENTS; i++) {
		kut->clients[i].ib.name = "kunit";
		kut->clients[i].ib.add = adds[i];
		kut->clients[i].ib.remove = removes[i];
	}
	for (i = 0; i < KUT_NQCLIENTS; i++) {
		kut->qclients[i].ib.name = "kut_query";
		kut->qclients[i].ib.add = qadds[i];
		kut->qclients[i].ib.remove = qremoves[i];
		kut->qclients[i].ib.get_net_dev_by_params = kut_net_dev;
	}
	return 0;
}

static void kut_exit(struct kunit *test)
{
	int i;

	for (i = 0; i < KUT_NQCLIENTS; i++)
		if (kut->qclients[i].registered)
			ib_unregister_client(&kut->qclients[i].ib);
	flush_work(&kut->lookup_work);
	if (kut->cdev_live)
		put_device(&kut->cdev);
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

static int kut_query_port(struct ib_device *device, u32 port,
			  struct ib_port_attr *attr)
{
	attr->state = IB_PORT_DOWN;
	return 0;
}

/* What a device with one port needs: the port can be queried. */
static const struct ib_device_ops kut_port_ops = {
	.query_port = kut_query_port,
};

/* Allocate and register a device named from "kut%d". */
static struct ib_device *kut_add_device(struct kunit *test)
{
	struct ib_device *device = kut_new_device(test);

	KUNIT_ASSERT_EQ(test, ib_register_device(device, "kut%d", NULL), 0);
	return device;
}

/* The same with one port (of no link layer: no other client wants it). */
static struct ib_device *kut_add_port_device(struct kunit *test)
{
	struct ib_device *device = kut_new_device(test);

	device->ops = &kut_port_ops;
	device->phys_port_cnt = 1;
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

static int kut_register_qclient(int id)
{
	int ret = ib_register_client(&kut->qclients[id].ib);

	kut->qclients[id].registered = !ret;
	return ret;
}

static void kut_unregister_qclient(int id)
{
	ib_unregister_client(&kut->qclients[id].ib);
	kut->qclients[id].registered = false;
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
enum kut_call {
	KUT_REG_CLIENT, KUT_UNREG_CLIENT, KUT_REG_DEV, KUT_UNREG_DEV,
	KUT_UNREG_QCLIENT, KUT_LOOKUP,
};

struct kut_thread {
	enum kut_call call;
	int client;
	struct ib_device *device;
	int ret;
	struct net_device *ndev;	/* KUT_LOOKUP's answer */
	struct completion done;
};

static void kut_unregister_qclient(int id);

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
	case KUT_UNREG_QCLIENT:
		kut_unregister_qclient(t->client);
		break;
	case KUT_LOOKUP:
		t->ndev = ib_get_net_dev_by_params(t->device, 1, 0xffff, NULL,
						   NULL);
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

/* Fake net devices: the core passes them on without looking. */
static u8 kut_ndevs[KUT_NQCLIENTS];
#define KUT_NDEV(i)	((struct net_device *)&kut_ndevs[i])

static const union ib_gid kut_gid = {
	.raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
};

/*
 * ib_get_net_dev_by_params() asks the clients attached to the device, in
 * registration order, until one answers, with the arguments as given; a
 * client that declined the device is not asked, nor any client for a port
 * the device does not have, nor a client that went away.
 */
static void ib_net_dev_by_params_asks_clients(struct kunit *test)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(0xc0000201),
	};
	struct kut_qclient *q = kut->qclients;
	struct net_device *ndev;
	struct ib_device *d;
	int i;

	/* a client without the callback is passed over */
	KUNIT_ASSERT_EQ(test, kut_register_client(0), 0);
	q[1].decline = true;
	for (i = 1; i < KUT_NQCLIENTS; i++)
		q[i].answer = KUT_NDEV(i);
	for (i = 0; i < KUT_NQCLIENTS; i++)
		KUNIT_ASSERT_EQ(test, kut_register_qclient(i), 0);
	d = kut_add_port_device(test);

	ndev = ib_get_net_dev_by_params(d, 1, 0x8001, &kut_gid,
					(struct sockaddr *)&sin);
	KUNIT_EXPECT_PTR_EQ(test, ndev, KUT_NDEV(2));
	KUNIT_EXPECT_EQ(test, q[0].asked, 1);
	KUNIT_EXPECT_EQ(test, q[1].asked, 0);
	KUNIT_EXPECT_EQ(test, q[2].asked, 1);
	KUNIT_EXPECT_EQ(test, q[3].asked, 0);
	KUNIT_EXPECT_PTR_EQ(test, q[0].dev, d);
	KUNIT_EXPECT_EQ(test, q[0].port, 1);
	KUNIT_EXPECT_EQ(test, q[0].pkey, 0x8001);
	KUNIT_EXPECT_PTR_EQ(test, q[0].gid, &kut_gid);
	KUNIT_EXPECT_PTR_EQ(test, q[0].addr, (const struct sockaddr *)&sin);

	/* no such port: nobody is asked */
	KUNIT_EXPECT_NULL(test, ib_get_net_dev_by_params(d, 0, 0xffff,
							 &kut_gid, NULL));
	KUNIT_EXPECT_NULL(test, ib_get_net_dev_by_params(d, 2, 0xffff,
							 &kut_gid, NULL));
	KUNIT_EXPECT_EQ(test, q[0].asked, 1);

	/* a client that went away is not asked */
	kut_unregister_qclient(2);
	ndev = ib_get_net_dev_by_params(d, 1, 0xffff, &kut_gid, NULL);
	KUNIT_EXPECT_PTR_EQ(test, ndev, KUT_NDEV(3));
	KUNIT_EXPECT_EQ(test, q[0].asked, 2);
	KUNIT_EXPECT_EQ(test, q[2].asked, 1);
	KUNIT_EXPECT_EQ(test, q[3].asked, 1);
	KUNIT_EXPECT_NULL(test, q[3].addr);

	/* nor anyone on a device that went away */
	ib_unregister_device(d);
	KUNIT_EXPECT_NULL(test, ib_get_net_dev_by_params(d, 1, 0xffff,
							 &kut_gid, NULL));
	KUNIT_EXPECT_EQ(test, q[0].asked, 2);
	KUNIT_EXPECT_EQ(test, q[3].asked, 1);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

/*
 * A client's remove waits for a get_net_dev_by_params call in flight, so
 * that the client may free what the call uses in its remove.
 */
static void ib_net_dev_by_params_remove_waits(struct kunit *test)
{
	struct kut_qclient *q = kut->qclients;
	struct completion entered, release;
	struct kut_thread lookup, remover;
	unsigned long left;
	struct ib_device *d;

	init_completion(&entered);
	init_completion(&release);
	q[0].answer = KUT_NDEV(0);
	q[0].entered = &entered;
	q[0].release = &release;
	KUNIT_ASSERT_EQ(test, kut_register_qclient(0), 0);
	d = kut_add_port_device(test);

	kut_start(test, &lookup, KUT_LOOKUP, 0, d);
	left = wait_for_completion_timeout(&entered, KUT_WAIT);
	KUNIT_EXPECT_NE(test, left, 0);
	kut_start(test, &remover, KUT_UNREG_QCLIENT, 0, NULL);
	left = wait_for_completion_timeout(&remover.done, HZ / 5);
	KUNIT_EXPECT_EQ_MSG(test, left, 0, "remove did not wait for the call");

	complete(&release);
	wait_for_completion(&lookup.done);
	wait_for_completion(&remover.done);
	KUNIT_EXPECT_PTR_EQ(test, lookup.ndev, KUT_NDEV(0));
	KUNIT_EXPECT_TRUE(test, q[0].returned);
	KUNIT_EXPECT_FALSE(test, q[0].removed_early);
	q[0].entered = NULL;

	KUNIT_EXPECT_NULL(test, ib_get_net_dev_by_params(d, 1, 0xffff, NULL,
							 NULL));
	KUNIT_EXPECT_EQ(test, q[0].asked, 1);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

/*
 * A lookup does not wait for the registration lock: a client's remove
 * (which runs under it) may wait for work that looks up, as ib_cm's waits
 * for its work queue, where the RDMA CM looks up the net device of a REQ.
 * The client being removed is not asked; the others are.
 */
static void ib_net_dev_by_params_from_remove(struct kunit *test)
{
	struct kut_qclient *q = kut->qclients;
	struct ib_device *d;
	int i;

	q[1].lookup_in_remove = true;
	q[1].answer = KUT_NDEV(1);
	q[2].answer = KUT_NDEV(2);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kut_register_qclient(i), 0);
	d = kut_add_port_device(test);

	/* the client goes */
	kut_unregister_qclient(1);
	KUNIT_EXPECT_TRUE_MSG(test, kut->lookup_in_time,
			      "a lookup waited for the registration lock");
	flush_work(&kut->lookup_work);
	KUNIT_EXPECT_PTR_EQ(test, kut->lookup_result, KUT_NDEV(2));
	KUNIT_EXPECT_EQ(test, q[0].asked, 1);
	KUNIT_EXPECT_EQ(test, q[1].asked, 0);
	KUNIT_EXPECT_EQ(test, q[2].asked, 1);

	/*
	 * the device goes: the clients leave it last registered first, so
	 * the client back again goes while the other two are still there
	 */
	KUNIT_ASSERT_EQ(test, kut_register_qclient(1), 0);
	kut->lookup_in_time = false;
	kut->lookup_result = NULL;
	ib_unregister_device(d);
	KUNIT_EXPECT_TRUE_MSG(test, kut->lookup_in_time,
			      "a lookup waited for the registration lock");
	flush_work(&kut->lookup_work);
	KUNIT_EXPECT_PTR_EQ(test, kut->lookup_result, KUT_NDEV(2));
	KUNIT_EXPECT_EQ(test, q[0].asked, 2);
	KUNIT_EXPECT_EQ(test, q[1].asked, 0);
	KUNIT_EXPECT_EQ(test, q[2].asked, 2);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

static void kut_cdev_release(struct device *dev)
{
}

/*
 * The character device the question clients offer, and two of them:
 * "kut_global" offers it for every device (get_global_nl_info, ABI 4) and
 * for each device (get_nl_info, ABI 3); "kut_noglobal" only per device.
 */
static void kut_nl_setup(struct kunit *test)
{
	struct kut_qclient *q = kut->qclients;

	device_initialize(&kut->cdev);
	kut->cdev.release = kut_cdev_release;
	kut->cdev.devt = MKDEV(240, 7);
	KUNIT_ASSERT_EQ(test, dev_set_name(&kut->cdev, "kut_cm"), 0);
	kut->cdev_live = true;

	q[0].ib.name = "kut_global";
	q[0].ib.get_global_nl_info = kut_global_nl_info;
	q[0].ib.get_nl_info = kut_nl_info;
	q[1].ib.name = "kut_noglobal";
	q[1].ib.get_nl_info = kut_nl_info;
	KUNIT_ASSERT_EQ(test, kut_register_qclient(0), 0);
	KUNIT_ASSERT_EQ(test, kut_register_qclient(1), 0);
}

/*
 * ib_get_client_nl_info() without a device asks the client's
 * get_global_nl_info, with one its get_nl_info; the character device
 * comes back held.  No client of the name: -ENOENT; a client without a
 * global character device, or one that names none: -EOPNOTSUPP.
 */
static void ib_client_nl_info_global(struct kunit *test)
{
	struct ib_client_nl_info info;
	struct ib_device *d;

	kut_nl_setup(test);
	d = kut_add_device(test);

	KUNIT_EXPECT_EQ(test, ib_get_client_nl_info(NULL, "kut_global", &info),
			0);
	KUNIT_EXPECT_PTR_EQ(test, info.cdev, &kut->cdev);
	KUNIT_EXPECT_EQ(test, info.abi, 4);
	KUNIT_EXPECT_EQ(test, info.port, 0);
	KUNIT_EXPECT_EQ(test, kut->global_asked, 1);
	KUNIT_EXPECT_EQ(test, kut->nl_asked, 0);
	KUNIT_EXPECT_EQ(test, kref_read(&kut->cdev.kobj.kref), 2);
	if (info.cdev)
		put_device(info.cdev);

	KUNIT_EXPECT_EQ(test, ib_get_client_nl_info(d, "kut_global", &info), 0);
	KUNIT_EXPECT_EQ(test, info.abi, 3);
	KUNIT_EXPECT_EQ(test, kut->global_asked, 1);
	KUNIT_EXPECT_EQ(test, kut->nl_asked, 1);
	if (info.cdev)
		put_device(info.cdev);

	KUNIT_EXPECT_EQ(test, ib_get_client_nl_info(NULL, "kut_noglobal",
						    &info), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ib_get_client_nl_info(NULL, "kut_nosuch", &info),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kut->nl_asked, 1);

	kut->global_err = -ENODEV;
	KUNIT_EXPECT_EQ(test, ib_get_client_nl_info(NULL, "kut_global", &info),
			-ENODEV);
	kut->global_err = 0;
	kut->qclients[0].ib.get_global_nl_info = kut_global_nl_info_empty;
	KUNIT_EXPECT_EQ(test, ib_get_client_nl_info(NULL, "kut_global", &info),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kut->global_asked, 3);
	KUNIT_EXPECT_EQ(test, kref_read(&kut->cdev.kobj.kref), 1);
	KUNIT_EXPECT_EQ(test, kut->bad_data, 0);
}

/*
 * RDMA_NLDEV_CMD_GET_CHARDEV for @type, of the device of index @index
 * (none if negative), over @nl.  The reply goes to @reply.
 */
static int kut_get_chardev(struct kunit *test, struct nlt_sock *nl,
			   long index, const char *type, void *reply)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	skb = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	nlh = nlmsg_put(skb, 0, 1,
			RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					 RDMA_NLDEV_CMD_GET_CHARDEV),
			0, NLM_F_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, nlh);
	if (index >= 0)
		KUNIT_ASSERT_EQ(test, nla_put_u32(skb, RDMA_NLDEV_ATTR_DEV_INDEX,
						  index), 0);
	KUNIT_ASSERT_EQ(test, nla_put_string(skb, RDMA_NLDEV_ATTR_CHARDEV_TYPE,
					     type), 0);
	nlmsg_end(skb, nlh);
	return nlt_request(nl, skb, reply, NLT_BUF_SIZE);
}

static struct nlattr *kut_attr(const struct nlmsghdr *nlh, int type)
{
	return nla_find(nlmsg_attrdata(nlh, 0), nlmsg_attrlen(nlh, 0), type);
}

/*
 * What librdmacm asks to find /dev/infiniband/rdma_cm: GET_CHARDEV with a
 * CHARDEV_TYPE and no DEV_INDEX.  The answer is the client's global
 * character device: its dev_t, ABI and name, and no device or port.
 * With a DEV_INDEX the client's character device for that device.
 */
static void nldev_get_chardev_global(struct kunit *test)
{
	struct nlmsghdr *reply;
	struct nlt_sock nl;
	struct nlattr *a;
	struct ib_device *d;

	kut_nl_setup(test);
	d = kut_add_device(test);
	reply = kunit_kzalloc(test, NLT_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, reply);
	KUNIT_ASSERT_EQ(test, nlt_open(&nl, NETLINK_RDMA), 0);

	KUNIT_EXPECT_EQ(test, kut_get_chardev(test, &nl, -1, "kut_global",
					      reply), 0);
	KUNIT_EXPECT_EQ(test, reply->nlmsg_type,
			RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					 RDMA_NLDEV_CMD_GET_CHARDEV));
	a = kut_attr(reply, RDMA_NLDEV_ATTR_CHARDEV);
	KUNIT_EXPECT_NOT_NULL(test, a);
	if (a)
		KUNIT_EXPECT_EQ(test, nla_get_u64(a),
				huge_encode_dev(kut->cdev.devt));
	a = kut_attr(reply, RDMA_NLDEV_ATTR_CHARDEV_ABI);
	KUNIT_EXPECT_NOT_NULL(test, a);
	if (a)
		KUNIT_EXPECT_EQ(test, nla_get_u64(a), 4);
	a = kut_attr(reply, RDMA_NLDEV_ATTR_CHARDEV_NAME);
	KUNIT_EXPECT_NOT_NULL(test, a);
	if (a)
		KUNIT_EXPECT_STREQ(test, (char *)nla_data(a), "kut_cm");
	KUNIT_EXPECT_NULL(test, kut_attr(reply, RDMA_NLDEV_ATTR_DEV_INDEX));
	KUNIT_EXPECT_NULL(test, kut_attr(reply, RDMA_NLDEV_ATTR_PORT_INDEX));
	KUNIT_EXPECT_EQ(test, kut->global_asked, 1);

	KUNIT_EXPECT_EQ(test, kut_get_chardev(test, &nl, -1, "kut_nosuch",
					      reply), -ENOENT);
	KUNIT_EXPECT_EQ(test, kut_get_chardev(test, &nl, -1, "kut_noglobal",
					      reply), -EOPNOTSUPP);

	KUNIT_EXPECT_EQ(test, kut_get_chardev(test, &nl, d->index,
					      "kut_global", reply), 0);
	a = kut_attr(reply, RDMA_NLDEV_ATTR_CHARDEV_ABI);
	KUNIT_EXPECT_NOT_NULL(test, a);
	if (a)
		KUNIT_EXPECT_EQ(test, nla_get_u64(a), 3);
	KUNIT_EXPECT_EQ(test, kut->global_asked, 1);
	KUNIT_EXPECT_EQ(test, kut->nl_asked, 1);

	nlt_close(&nl);
	KUNIT_EXPECT_EQ(test, kref_read(&kut->cdev.kobj.kref), 1);
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
	KUNIT_CASE(ib_net_dev_by_params_asks_clients),
	KUNIT_CASE(ib_net_dev_by_params_remove_waits),
	KUNIT_CASE(ib_net_dev_by_params_from_remove),
	KUNIT_CASE(ib_client_nl_info_global),
	KUNIT_CASE(nldev_get_chardev_global),
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
