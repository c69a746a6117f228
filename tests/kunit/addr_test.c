// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the IP address resolution of core/addr.c, in the test
 * kernel's initial namespace, where the only interface is the loopback
 * device (brought up here, which gives it 127.0.0.1 and ::1):
 *
 *   - the sizes of the address families;
 *   - rdma_translate_ip(): a local address gives its interface's
 *     link-level addresses, an address nobody holds -EADDRNOTAVAIL, an
 *     ifindex nobody has -ENODEV;
 *   - rdma_resolve_ip(): a destination that is our own gets the
 *     callback with 0, the source from the route and the interface's
 *     address on both ends; one without a route gets the route's error;
 *     bad arguments are refused without a callback;
 *   - rdma_addr_cancel(): once it returns, the callback has run or never
 *     will.
 *
 * A neighbour that is asked for and comes (or never does) needs a link
 * with another end: the VM scenarios of the RDMA CM cover that, over
 * IPoIB.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>

#define ADDR_TEST_TIMEOUT_MS	2000

struct addr_test_result {
	struct completion done;
	atomic_t calls;
	int status;
	struct sockaddr_storage src;
};

static void addr_test_cb(int status, struct sockaddr *src,
			 struct rdma_dev_addr *addr, void *context)
{
	struct addr_test_result *res = context;

	res->status = status;
	memcpy(&res->src, src, rdma_addr_size(src) ?: sizeof(*src));
	atomic_inc(&res->calls);
	complete(&res->done);
}

static int addr_test_init(struct kunit *test)
{
	struct net_device *lo = init_net.loopback_dev;
	int ret = 0;

	rtnl_lock();
	if (!(lo->flags & IFF_UP))
		ret = dev_open(lo, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	return 0;
}

static void addr_test_sin(struct sockaddr_in *sin, __be32 ip)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ip;
}

static void addr_test_sizes(struct kunit *test)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in6 sin6 = {};

	ss.ss_family = AF_INET;
	KUNIT_EXPECT_EQ(test, rdma_addr_size((struct sockaddr *)&ss),
			(int)sizeof(struct sockaddr_in));
	ss.ss_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, rdma_addr_size((struct sockaddr *)&ss),
			(int)sizeof(struct sockaddr_in6));
	ss.ss_family = AF_IB;
	KUNIT_EXPECT_EQ(test, rdma_addr_size((struct sockaddr *)&ss), 48);
	KUNIT_EXPECT_EQ(test,
			rdma_addr_size_kss((struct __kernel_sockaddr_storage *)&ss),
			48);
	ss.ss_family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, rdma_addr_size((struct sockaddr *)&ss), 0);
	/* an AF_IB address does not fit in a sockaddr_in6 */
	sin6.sin6_family = AF_IB;
	KUNIT_EXPECT_EQ(test, rdma_addr_size_in6(&sin6), 0);
	sin6.sin6_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, rdma_addr_size_in6(&sin6),
			(int)sizeof(struct sockaddr_in6));
}

static void addr_test_translate(struct kunit *test)
{
	struct net_device *lo = init_net.loopback_dev;
	struct rdma_dev_addr dev_addr = { .net = &init_net };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin;

	addr_test_sin(&sin, htonl(INADDR_LOOPBACK));
	KUNIT_ASSERT_EQ(test, rdma_translate_ip((struct sockaddr *)&sin,
						&dev_addr), 0);
	KUNIT_EXPECT_EQ(test, dev_addr.dev_type, (unsigned short)ARPHRD_LOOPBACK);
	KUNIT_EXPECT_EQ(test, dev_addr.bound_dev_if, lo->ifindex);

	sin6.sin6_addr = in6addr_loopback;
	memset(&dev_addr, 0, sizeof(dev_addr));
	dev_addr.net = &init_net;
	KUNIT_EXPECT_EQ(test, rdma_translate_ip((struct sockaddr *)&sin6,
						&dev_addr), 0);
	KUNIT_EXPECT_EQ(test, dev_addr.bound_dev_if, lo->ifindex);

	/* TEST-NET-1: nobody here holds it */
	addr_test_sin(&sin, htonl(0xc0000201));
	memset(&dev_addr, 0, sizeof(dev_addr));
	dev_addr.net = &init_net;
	KUNIT_EXPECT_EQ(test, rdma_translate_ip((struct sockaddr *)&sin,
						&dev_addr), -EADDRNOTAVAIL);

	dev_addr.bound_dev_if = 0x7fffffff;
	KUNIT_EXPECT_EQ(test, rdma_translate_ip((struct sockaddr *)&sin,
						&dev_addr), -ENODEV);
}

/* Resolve @dst from no source; the result in @res once the callback ran. */
static int addr_test_resolve(struct kunit *test, struct sockaddr *dst,
			     struct rdma_dev_addr *dev_addr,
			     struct addr_test_result *res)
{
	unsigned long left;
	int ret;

	init_completion(&res->done);
	atomic_set(&res->calls, 0);
	memset(dev_addr, 0, sizeof(*dev_addr));
	dev_addr->net = &init_net;
	ret = rdma_resolve_ip(NULL, dst, dev_addr, ADDR_TEST_TIMEOUT_MS,
			      addr_test_cb, false, res);
	if (ret)
		return ret;
	left = wait_for_completion_timeout(&res->done,
					   msecs_to_jiffies(2 *
							    ADDR_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_NE(test, left, 0UL);
	return 0;
}

static void addr_test_resolve_own(struct kunit *test)
{
	struct net_device *lo = init_net.loopback_dev;
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct addr_test_result res;
	struct rdma_dev_addr dev_addr;
	struct sockaddr_in sin, *src = (struct sockaddr_in *)&res.src;

	addr_test_sin(&sin, htonl(INADDR_LOOPBACK));
	KUNIT_ASSERT_EQ(test, addr_test_resolve(test, (struct sockaddr *)&sin,
						&dev_addr, &res), 0);
	KUNIT_EXPECT_EQ(test, res.status, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&res.calls), 1);
	KUNIT_EXPECT_EQ(test, src->sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(src->sin_addr.s_addr),
			(u32)INADDR_LOOPBACK);
	KUNIT_EXPECT_EQ(test, dev_addr.bound_dev_if, lo->ifindex);
	KUNIT_EXPECT_EQ(test, memcmp(dev_addr.src_dev_addr,
				     dev_addr.dst_dev_addr, MAX_ADDR_LEN), 0);

	sin6.sin6_addr = in6addr_loopback;
	KUNIT_ASSERT_EQ(test, addr_test_resolve(test, (struct sockaddr *)&sin6,
						&dev_addr, &res), 0);
	KUNIT_EXPECT_EQ(test, res.status, 0);
	KUNIT_EXPECT_EQ(test, res.src.ss_family, (sa_family_t)AF_INET6);
	KUNIT_EXPECT_EQ(test, dev_addr.bound_dev_if, lo->ifindex);
}

static void addr_test_resolve_errors(struct kunit *test)
{
	struct addr_test_result res;
	struct rdma_dev_addr dev_addr;
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin;

	/* no route but the loopback's in this kernel */
	addr_test_sin(&sin, htonl(0xc0000201));
	KUNIT_ASSERT_EQ(test, addr_test_resolve(test, (struct sockaddr *)&sin,
						&dev_addr, &res), 0);
	KUNIT_EXPECT_EQ(test, res.status, -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, atomic_read(&res.calls), 1);

	/* refused at once, no callback */
	atomic_set(&res.calls, 0);
	KUNIT_EXPECT_EQ(test, rdma_resolve_ip((struct sockaddr *)&sin6,
					      (struct sockaddr *)&sin,
					      &dev_addr, 100, addr_test_cb,
					      false, &res), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_resolve_ip(NULL, (struct sockaddr *)&sin,
					      &dev_addr, 100, addr_test_cb,
					      true, &res), -EOPNOTSUPP);
	dev_addr.net = NULL;
	KUNIT_EXPECT_EQ(test, rdma_resolve_ip(NULL, (struct sockaddr *)&sin,
					      &dev_addr, 100, addr_test_cb,
					      false, &res), -EINVAL);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&res.calls), 0);
}

static void addr_test_cancel(struct kunit *test)
{
	struct addr_test_result res;
	struct rdma_dev_addr dev_addr = { .net = &init_net };
	struct sockaddr_in sin;
	int calls, i;

	addr_test_sin(&sin, htonl(INADDR_LOOPBACK));
	for (i = 0; i < 20; i++) {
		init_completion(&res.done);
		atomic_set(&res.calls, 0);
		KUNIT_ASSERT_EQ(test, rdma_resolve_ip(NULL,
						      (struct sockaddr *)&sin,
						      &dev_addr, 100,
						      addr_test_cb, false,
						      &res), 0);
		if (i & 1)
			udelay(20 * i);
		rdma_addr_cancel(&dev_addr);
		calls = atomic_read(&res.calls);
		KUNIT_EXPECT_LE(test, calls, 1);
		msleep(20);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&res.calls), calls,
				    "round %d", i);
	}
	/* nothing to cancel: nothing happens */
	rdma_addr_cancel(&dev_addr);
}

static struct kunit_case addr_cases[] = {
	KUNIT_CASE(addr_test_sizes),
	KUNIT_CASE(addr_test_translate),
	KUNIT_CASE(addr_test_resolve_own),
	KUNIT_CASE(addr_test_resolve_errors),
	KUNIT_CASE(addr_test_cancel),
	{}
};

static struct kunit_suite addr_suite = {
	.name = "ib_addr",
	.init = addr_test_init,
	.test_cases = addr_cases,
};

kunit_test_suite(addr_suite);
