// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of IPoIB's answer to ib_get_net_dev_by_params(): which
 * interface a connection request for a port, P_Key, port GID and IP
 * address is addressed to, as the RDMA CM asks when an IB CM REQ comes.
 *
 * The interfaces are real ones: the parent IPoIB made at boot on the
 * first port of a built-in HCA (vmlx's), and P_Key children and
 * addresses made over rtnetlink the way "ip link add ... type ipoib pkey"
 * and "ip addr add" make them (tests/kunit/nl_test.h).  The children go
 * again at the end of each test, and their addresses with them; the
 * parent is left as it was.  Without an IPoIB interface the tests are
 * skipped.
 */
#include <kunit/test.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>

#include "ipoib.h"
#include "nl_test.h"

#define IPL_NCHILDREN	3

/**
 * struct ipl_state - one test's interfaces
 * @nl: the rtnetlink socket
 * @parent: the parent interface, held
 * @ca: its HCA
 * @port: its port
 * @gid: its port GID, from its hardware address
 * @children: the children made, held; NULL once deleted
 */
struct ipl_state {
	struct nlt_sock		nl;
	struct net_device	*parent;
	struct ib_device	*ca;
	u32			port;
	union ib_gid		gid;
	struct net_device	*children[IPL_NCHILDREN];
};

/* The first IPoIB parent of the initial namespace, held; NULL if none. */
static struct net_device *ipl_find_parent(void)
{
	struct net_device *dev, *found = NULL;

	rtnl_lock();
	for_each_netdev(&init_net, dev) {
		if (!dev->rtnl_link_ops ||
		    strcmp(dev->rtnl_link_ops->kind, "ipoib") ||
		    ipoib_priv(dev)->parent)
			continue;
		found = dev;
		dev_hold(found);
		break;
	}
	rtnl_unlock();
	return found;
}

static int ipl_init(struct kunit *test)
{
	struct ipl_state *t;
	int ret;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	test->priv = t;
	t->parent = ipl_find_parent();
	if (!t->parent) {
		kunit_skip(test, "no IPoIB interface");
		return 0;
	}
	t->ca = ipoib_priv(t->parent)->ca;
	t->port = ipoib_priv(t->parent)->port;
	/* the port GID is bytes 4 to 19 of the hardware address */
	memcpy(t->gid.raw, t->parent->dev_addr + 4, sizeof(t->gid.raw));
	ret = nlt_open(&t->nl, NETLINK_ROUTE);
	if (ret) {
		dev_put(t->parent);
		t->parent = NULL;
	}
	return ret;
}

/* A request to rtnetlink: a header, a family header, attributes. */
static struct sk_buff *ipl_msg(struct kunit *test, int type, int flags,
			       const void *hdr, size_t hdrlen)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	skb = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	nlh = nlmsg_put(skb, 0, 1, type, hdrlen, NLM_F_REQUEST | flags);
	KUNIT_ASSERT_NOT_NULL(test, nlh);
	memcpy(nlmsg_data(nlh), hdr, hdrlen);
	return skb;
}

static int ipl_send(struct ipl_state *t, struct sk_buff *skb)
{
	nlmsg_end(skb, nlmsg_hdr(skb));
	return nlt_request(&t->nl, skb, NULL, 0);
}

/*
 * ip link add link <parent> name @name type ipoib pkey @pkey: child @i,
 * held in t->children[i].
 */
static struct net_device *ipl_add_child(struct kunit *test, int i,
					const char *name, u16 pkey)
{
	struct ipl_state *t = test->priv;
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlattr *info, *data;
	struct sk_buff *skb;
	int ret;

	skb = ipl_msg(test, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi,
		      sizeof(ifi));
	info = NULL;
	if (!nla_put_u32(skb, IFLA_LINK, t->parent->ifindex) &&
	    !nla_put_string(skb, IFLA_IFNAME, name))
		info = nla_nest_start(skb, IFLA_LINKINFO);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, nla_put_string(skb, IFLA_INFO_KIND, "ipoib"), 0);
	data = nla_nest_start(skb, IFLA_INFO_DATA);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_EQ(test, nla_put_u16(skb, IFLA_IPOIB_PKEY, pkey), 0);
	nla_nest_end(skb, data);
	nla_nest_end(skb, info);
	ret = ipl_send(t, skb);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "ip link add %s", name);

	t->children[i] = dev_get_by_name(&init_net, name);
	KUNIT_ASSERT_NOT_NULL(test, t->children[i]);
	return t->children[i];
}

/* ip link del: child @i goes. */
static void ipl_del_child(struct kunit *test, int i)
{
	struct ipl_state *t = test->priv;
	struct net_device *dev = t->children[i];
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_index = dev->ifindex,
	};
	int ret;

	t->children[i] = NULL;
	/* unregistration waits for our reference */
	dev_put(dev);
	ret = ipl_send(t, ipl_msg(test, RTM_DELLINK, 0, &ifi, sizeof(ifi)));
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "ip link del");
}

/* ip addr add @addr/@prefixlen dev @dev (IPv6 without DAD). */
static void ipl_add_addr(struct kunit *test, struct net_device *dev,
			 int family, const void *addr, int prefixlen)
{
	struct ipl_state *t = test->priv;
	struct ifaddrmsg ifa = {
		.ifa_family = family,
		.ifa_prefixlen = prefixlen,
		.ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0,
		.ifa_index = dev->ifindex,
	};
	int len = family == AF_INET ? 4 : 16;
	struct sk_buff *skb;

	skb = ipl_msg(test, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa,
		      sizeof(ifa));
	KUNIT_ASSERT_EQ(test, nla_put(skb, IFA_LOCAL, len, addr), 0);
	KUNIT_ASSERT_EQ(test, nla_put(skb, IFA_ADDRESS, len, addr), 0);
	KUNIT_ASSERT_EQ_MSG(test, ipl_send(t, skb), 0, "ip addr add dev %s",
			    dev->name);
}

static void ipl_exit(struct kunit *test)
{
	struct ipl_state *t = test->priv;
	int i;

	if (!t || !t->parent)
		return;
	for (i = 0; i < IPL_NCHILDREN; i++)
		if (t->children[i])
			ipl_del_child(test, i);
	nlt_close(&t->nl);
	dev_put(t->parent);
}

static struct sockaddr_in ipl_sin(u32 host_order)
{
	return (struct sockaddr_in) {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(host_order),
	};
}

/*
 * Look up with the parent's HCA and port; expect @want (NULL: nothing),
 * and drop the reference the answer comes with.
 */
static void ipl_expect(struct kunit *test, u16 pkey, const union ib_gid *gid,
		       const void *addr, struct net_device *want)
{
	struct ipl_state *t = test->priv;
	struct net_device *got;

	got = ib_get_net_dev_by_params(t->ca, t->port, pkey, gid, addr);
	KUNIT_EXPECT_PTR_EQ_MSG(test, got, want, "P_Key 0x%04x: got %s, want %s",
				pkey, got ? got->name : "none",
				want ? want->name : "none");
	if (got)
		dev_put(got);
}

/* 198.51.100.0/24 (TEST-NET-2) */
#define IPL_NET		0xc6336400

/*
 * The parent alone: found by its P_Key with or without the full
 * membership bit and its GID, held; not with another P_Key, GID or port,
 * nor with an IP address it does not have.
 */
static void ipoib_lookup_parent(struct kunit *test)
{
	struct ipl_state *t = test->priv;
	u16 pkey = ipoib_priv(t->parent)->pkey;
	struct sockaddr_in sin = ipl_sin(IPL_NET + 1);
	struct sockaddr sa = { .sa_family = AF_UNSPEC };
	union ib_gid other = t->gid;
	struct net_device *got;
	int refs;

	refs = netdev_refcnt_read(t->parent);
	got = ib_get_net_dev_by_params(t->ca, t->port, pkey & 0x7fff, &t->gid,
				       NULL);
	KUNIT_EXPECT_PTR_EQ(test, got, t->parent);
	KUNIT_EXPECT_EQ(test, netdev_refcnt_read(t->parent), refs + 1);
	if (got)
		dev_put(got);
	ipl_expect(test, pkey | 0x8000, &t->gid, NULL, t->parent);

	ipl_expect(test, 0x1234, &t->gid, NULL, NULL);
	other.raw[15] ^= 0xff;
	ipl_expect(test, pkey, &other, NULL, NULL);
	KUNIT_EXPECT_NULL(test, ib_get_net_dev_by_params(t->ca,
							 rdma_end_port(t->ca) + 1,
							 pkey, &t->gid, NULL));
	/* the only interface of the P_Key, but not the address's */
	ipl_expect(test, pkey, &t->gid, &sin, NULL);
	ipl_expect(test, pkey, &t->gid, &sa, NULL);
}

/*
 * P_Key children: each found by its P_Key; two of one P_Key told apart
 * by their IPv4 or IPv6 addresses (without one, the first made); an
 * address the only interface of a P_Key does not have finds nothing, nor
 * does another interface's address; a child that was deleted is not
 * found.
 */
static void ipoib_lookup_children(struct kunit *test)
{
	static const struct in6_addr b6 = {
		.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x12 },
	};
	struct ipl_state *t = test->priv;
	struct sockaddr_in a4 = ipl_sin(IPL_NET + 11);
	struct sockaddr_in b4 = ipl_sin(IPL_NET + 12);
	struct sockaddr_in c4 = ipl_sin(IPL_NET + 21);
	struct sockaddr_in none4 = ipl_sin(IPL_NET + 13);
	struct sockaddr_in6 b6sa = {
		.sin6_family = AF_INET6,
		.sin6_addr = b6,
	};
	struct net_device *a, *b, *c;
	union ib_gid other = t->gid;

	a = ipl_add_child(test, 0, "kipl_a", 0x8001);
	b = ipl_add_child(test, 1, "kipl_b", 0x8001);
	c = ipl_add_child(test, 2, "kipl_c", 0x0002);

	/* the full membership bit is set in the child's P_Key */
	ipl_expect(test, 0x8002, &t->gid, NULL, c);
	ipl_expect(test, 0x0002, &t->gid, NULL, c);
	ipl_expect(test, 0x8001, &t->gid, NULL, a);

	ipl_add_addr(test, a, AF_INET, &a4.sin_addr, 24);
	ipl_add_addr(test, b, AF_INET, &b4.sin_addr, 24);
	ipl_add_addr(test, c, AF_INET, &c4.sin_addr, 24);
	ipl_expect(test, 0x8001, &t->gid, &a4, a);
	ipl_expect(test, 0x8001, &t->gid, &b4, b);
	ipl_expect(test, 0x8001, &t->gid, &none4, NULL);
	ipl_expect(test, 0x8002, &t->gid, &c4, c);
	/* c is the only one of its P_Key, but a4 is a's */
	ipl_expect(test, 0x8002, &t->gid, &a4, NULL);
	other.raw[15] ^= 0xff;
	ipl_expect(test, 0x8001, &other, &b4, NULL);

	if (IS_ENABLED(CONFIG_IPV6)) {
		ipl_add_addr(test, b, AF_INET6, &b6, 64);
		ipl_expect(test, 0x8001, &t->gid, &b6sa, b);
		ipl_expect(test, 0x8002, &t->gid, &b6sa, NULL);
	}

	ipl_del_child(test, 1);
	ipl_expect(test, 0x8001, &t->gid, &b4, NULL);
	ipl_expect(test, 0x8001, &t->gid, NULL, a);
	ipl_del_child(test, 0);
	ipl_expect(test, 0x8001, &t->gid, NULL, NULL);
	ipl_expect(test, 0x8002, &t->gid, NULL, c);
}

static struct kunit_case ipoib_lookup_cases[] = {
	KUNIT_CASE(ipoib_lookup_parent),
	KUNIT_CASE(ipoib_lookup_children),
	{}
};

static struct kunit_suite ipoib_lookup_suite = {
	.name = "ipoib_lookup",
	.init = ipl_init,
	.exit = ipl_exit,
	.test_cases = ipoib_lookup_cases,
};

kunit_test_suite(ipoib_lookup_suite);
