// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of what IPoIB puts on the wire and takes from it, against
 * RFC 4391 and Linux's IPoIB byte for byte:
 *   - the 20-byte hardware address (flags, QPN, GID) and the broadcast
 *     address of a partition (ff12:401b:<P_Key>::ffff:ffff, the full
 *     membership bit set), and the IPv4 and IPv6 multicast addresses the
 *     kernel derives from that broadcast address (ip_ib_mc_map(),
 *     ipv6_ib_mc_map()), which must carry our P_Key;
 *   - header_ops->create: the pseudo header (the destination) and the
 *     4-byte encapsulation header (EtherType, reserved zero);
 *   - the MTU a UD IB MTU leaves (2044 for 2048, 4092 for 4096);
 *   - ipoib_rx_check(), the verdict on every received frame: short ones,
 *     EtherTypes IPoIB does not carry, sources no port can be, our own
 *     multicast, and ARP packets that are not IPoIB's or lie about who
 *     sent them, each dropped with its own reason; good frames pass;
 *   - connected mode: the service ID (IPOIB_CM_IETF_ID | QPN), the 8
 *     bytes of private data of the REQ and REP (UD QPN, largest message)
 *     and the bounds a peer's private data is held to, the MTU and mode
 *     values of the ABI.
 */
#include <kunit/test.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <net/if_inet6.h>
#include <net/ip.h>

#include "ipoib.h"

/* Bytes as they must be, shown both ways when they are not. */
static void ipt_expect_bytes(struct kunit *test, const void *got,
			     const void *want, size_t len)
{
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(got, want, len),
			      "got %*ph, want %*ph", (int)len, got, (int)len,
			      want);
}

static const union ib_gid ipt_gid = {
	.raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x01 },
};

static void ipoib_test_hw_addr(struct kunit *test)
{
	static const u8 want[INFINIBAND_ALEN] = {
		0x80, 0x00, 0x00, 0x48,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x01,
	};
	u8 addr[INFINIBAND_ALEN + 1];

	memset(addr, 0xa5, sizeof(addr));
	ipoib_build_hw_addr(addr, IPOIB_HWADDR_RC, 0x48, &ipt_gid);
	ipt_expect_bytes(test, addr, want, INFINIBAND_ALEN);
	KUNIT_EXPECT_EQ(test, addr[INFINIBAND_ALEN], 0xa5);

	/* the QPN is 24 bits, big endian; the flags byte is its own */
	ipoib_build_hw_addr(addr, 0, 0xabcdef, &ipt_gid);
	KUNIT_EXPECT_EQ(test, addr[0], 0);
	KUNIT_EXPECT_EQ(test, addr[1], 0xab);
	KUNIT_EXPECT_EQ(test, addr[2], 0xcd);
	KUNIT_EXPECT_EQ(test, addr[3], 0xef);
	KUNIT_EXPECT_EQ(test, ipoib_addr_qpn(addr), 0xabcdef);
	KUNIT_EXPECT_FALSE(test, ipoib_is_mcast_addr(addr));
}

static void ipoib_test_bcast_addr(struct kunit *test)
{
	static const u8 dflt[INFINIBAND_ALEN] = {
		0x00, 0xff, 0xff, 0xff,
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	};
	u8 addr[INFINIBAND_ALEN];

	ipoib_build_bcast_addr(addr, 0xffff);
	ipt_expect_bytes(test, addr, dflt, INFINIBAND_ALEN);
	KUNIT_EXPECT_TRUE(test, ipoib_is_mcast_addr(addr));
	KUNIT_EXPECT_EQ(test, ipoib_addr_qpn(addr), IPOIB_MCAST_QPN);

	/* a limited member's P_Key still names the full member group */
	ipoib_build_bcast_addr(addr, 0x0001);
	KUNIT_EXPECT_EQ(test, addr[8], 0x80);
	KUNIT_EXPECT_EQ(test, addr[9], 0x01);
	ipoib_build_bcast_addr(addr, 0x8001);
	KUNIT_EXPECT_EQ(test, addr[8], 0x80);
	KUNIT_EXPECT_EQ(test, addr[9], 0x01);
	ipt_expect_bytes(test, addr + 10, dflt + 10, INFINIBAND_ALEN - 10);
}

/* The multicast addresses the kernel makes from our broadcast address. */
static void ipoib_test_mc_map(struct kunit *test)
{
	static const u8 ip4[INFINIBAND_ALEN] = {
		0x00, 0xff, 0xff, 0xff,
		0xff, 0x12, 0x40, 0x1b, 0x80, 0x01, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	static const u8 ip6[INFINIBAND_ALEN] = {
		0x00, 0xff, 0xff, 0xff,
		0xff, 0x12, 0x60, 0x1b, 0x80, 0x01, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01, 0xff, 0x12, 0x34, 0x56,
	};
	struct in6_addr snm = {
		.s6_addr = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
			     0, 0, 0, 0x01, 0xff, 0x12, 0x34, 0x56 },
	};
	u8 bcast[INFINIBAND_ALEN], addr[INFINIBAND_ALEN];

	ipoib_build_bcast_addr(bcast, 0x8001);
	/* 224.0.0.1: the low 28 bits of the group, P_Key 0x8001 */
	ip_ib_mc_map(htonl(0xe0000001), bcast, addr);
	ipt_expect_bytes(test, addr, ip4, INFINIBAND_ALEN);
	/* a solicited-node group: the low 80 bits of the group */
	ipv6_ib_mc_map(&snm, bcast, addr);
	ipt_expect_bytes(test, addr, ip6, INFINIBAND_ALEN);
}

static void ipoib_test_headers(struct kunit *test)
{
	static const u8 payload[] = { 0x45, 0x00, 0x00, 0x54 };
	u8 daddr[INFINIBAND_ALEN];
	struct sk_buff *skb;

	skb = alloc_skb(128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	skb_put_data(skb, payload, sizeof(payload));
	ipoib_build_hw_addr(daddr, 0, 0x123456, &ipt_gid);

	KUNIT_EXPECT_EQ(test, ipoib_push_headers(skb, ETH_P_IP, NULL),
			-IPOIB_HARD_LEN);
	KUNIT_EXPECT_EQ(test, skb->len, sizeof(payload));

	KUNIT_EXPECT_EQ(test, ipoib_push_headers(skb, ETH_P_IP, daddr),
			IPOIB_HARD_LEN);
	KUNIT_EXPECT_EQ(test, IPOIB_HARD_LEN, 24);
	KUNIT_ASSERT_EQ(test, skb->len, IPOIB_HARD_LEN + sizeof(payload));
	ipt_expect_bytes(test, skb->data, daddr, INFINIBAND_ALEN);
	/* EtherType 0x0800, then the reserved 16 bits, zero */
	KUNIT_EXPECT_EQ(test, skb->data[20], 0x08);
	KUNIT_EXPECT_EQ(test, skb->data[21], 0x00);
	KUNIT_EXPECT_EQ(test, skb->data[22], 0x00);
	KUNIT_EXPECT_EQ(test, skb->data[23], 0x00);
	ipt_expect_bytes(test, skb->data + 24, payload, sizeof(payload));
	kfree_skb(skb);
}

static void ipoib_test_mtu(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, IPOIB_UD_MTU(ib_mtu_enum_to_int(IB_MTU_2048)),
			2044);
	KUNIT_EXPECT_EQ(test, IPOIB_UD_MTU(ib_mtu_enum_to_int(IB_MTU_4096)),
			4092);
	KUNIT_EXPECT_EQ(test, IPOIB_UD_BUF_SIZE(4096), 4136);
	KUNIT_EXPECT_EQ(test, IPOIB_CM_MTU, 65520);
}

/* A receive buffer: the GRH's 40 bytes, the header, an ARP packet. */
struct ipt_frame {
	struct ib_grh		grh;
	struct ipoib_header	hdr;
	struct arphdr		arp;
	u8			sha[INFINIBAND_ALEN];
	u8			sip[4];
	u8			tha[INFINIBAND_ALEN];
	u8			tip[4];
} __packed;

#define IPT_SRC_QPN	0x000123
#define IPT_SRC_LID	7
#define IPT_OWN_QPN	0x000456
#define IPT_OWN_LID	3

static void ipt_frame_init(struct ipt_frame *f, struct ipoib_rx_info *info,
			   u16 proto)
{
	memset(f, 0, sizeof(*f));
	f->grh.sgid = ipt_gid;
	f->hdr.proto = htons(proto);
	f->arp.ar_hrd = htons(ARPHRD_INFINIBAND);
	f->arp.ar_pro = htons(ETH_P_IP);
	f->arp.ar_hln = INFINIBAND_ALEN;
	f->arp.ar_pln = 4;
	f->arp.ar_op = htons(ARPOP_REQUEST);
	ipoib_build_hw_addr(f->sha, 0, IPT_SRC_QPN, &ipt_gid);

	*info = (struct ipoib_rx_info) {
		.byte_len	= sizeof(*f),
		.src_qp		= IPT_SRC_QPN,
		.slid		= IPT_SRC_LID,
		.grh		= true,
		.local_lid	= IPT_OWN_LID,
		.local_qpn	= IPT_OWN_QPN,
	};
}

static void ipoib_test_rx_length(struct kunit *test)
{
	struct ipoib_rx_info info;
	struct ipt_frame f;

	ipt_frame_init(&f, &info, ETH_P_IP);
	info.byte_len = IPOIB_GRH_BYTES + IPOIB_ENCAP_LEN;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
	info.byte_len--;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_SHORT);
	info.byte_len = 0;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_SHORT);
	info.byte_len = IPOIB_GRH_BYTES;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_SHORT);
}

static void ipoib_test_rx_proto(struct kunit *test)
{
	static const u16 good[] = { ETH_P_IP, ETH_P_IPV6, ETH_P_ARP,
				    ETH_P_RARP };
	static const u16 bad[] = { 0, 0x0001, ETH_P_8021Q, ETH_P_IPX,
				   0x1234, 0xffff };
	struct ipoib_rx_info info;
	struct ipt_frame f;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ipt_frame_init(&f, &info, good[i]);
		KUNIT_EXPECT_EQ_MSG(test, ipoib_rx_check(&f, &info),
				    IPOIB_RX_OK, "EtherType 0x%04x", good[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ipt_frame_init(&f, &info, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, ipoib_rx_check(&f, &info),
				    IPOIB_RX_BAD_PROTO, "EtherType 0x%04x",
				    bad[i]);
	}
	/* the reserved field is ignored on receive (RFC 4391 6) */
	ipt_frame_init(&f, &info, ETH_P_IP);
	f.hdr.reserved = htons(0xbeef);
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
}

static void ipoib_test_rx_source(struct kunit *test)
{
	static const u32 bad_qpn[] = { 0, 1, 0x1000000, 0xffffffff };
	static const u32 bad_lid[] = { 0, 0xc000, 0xfffe, 0xffff };
	struct ipoib_rx_info info;
	struct ipt_frame f;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_qpn); i++) {
		ipt_frame_init(&f, &info, ETH_P_IP);
		info.src_qp = bad_qpn[i];
		KUNIT_EXPECT_EQ_MSG(test, ipoib_rx_check(&f, &info),
				    IPOIB_RX_BAD_SOURCE, "QPN 0x%x",
				    bad_qpn[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad_lid); i++) {
		ipt_frame_init(&f, &info, ETH_P_IP);
		info.slid = bad_lid[i];
		KUNIT_EXPECT_EQ_MSG(test, ipoib_rx_check(&f, &info),
				    IPOIB_RX_BAD_SOURCE, "SLID 0x%x",
				    bad_lid[i]);
	}
	/* a multicast GID is nobody's source; without a GRH it is not read */
	ipt_frame_init(&f, &info, ETH_P_IP);
	f.grh.sgid.raw[0] = 0xff;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_BAD_SOURCE);
	info.grh = false;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
	/* the highest QPN and LID are fine */
	ipt_frame_init(&f, &info, ETH_P_IP);
	info.src_qp = 0xffffff;
	info.slid = 0xbfff;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
}

static void ipoib_test_rx_own(struct kunit *test)
{
	struct ipoib_rx_info info;
	struct ipt_frame f;

	ipt_frame_init(&f, &info, ETH_P_IP);
	info.slid = IPT_OWN_LID;
	info.src_qp = IPT_OWN_QPN;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OWN);
	/* another QP of our port (a child) is someone else */
	info.src_qp = IPT_OWN_QPN + 1;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
	/* as is our QPN on another port */
	info.src_qp = IPT_OWN_QPN;
	info.slid = IPT_OWN_LID + 1;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
}

static void ipoib_test_rx_arp(struct kunit *test)
{
	struct ipoib_rx_info info;
	struct ipt_frame f;

	ipt_frame_init(&f, &info, ETH_P_ARP);
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
	/* the unicast reply comes without a GRH: only the QPN is checked */
	info.grh = false;
	f.grh.sgid.raw[15] ^= 1;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);

	ipt_frame_init(&f, &info, ETH_P_ARP);
	info.byte_len--;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_SHORT);
	info.byte_len = IPOIB_GRH_BYTES + IPOIB_ENCAP_LEN +
			sizeof(struct arphdr);
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_SHORT);

	ipt_frame_init(&f, &info, ETH_P_ARP);
	f.arp.ar_hrd = htons(ARPHRD_ETHER);
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_BAD_ARP);
	ipt_frame_init(&f, &info, ETH_P_ARP);
	f.arp.ar_pro = htons(ETH_P_IPV6);
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_BAD_ARP);
	ipt_frame_init(&f, &info, ETH_P_ARP);
	f.arp.ar_hln = ETH_ALEN;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_BAD_ARP);
	ipt_frame_init(&f, &info, ETH_P_ARP);
	f.arp.ar_pln = 16;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_BAD_ARP);

	/* a sender address naming another QP than the one that sent it */
	ipt_frame_init(&f, &info, ETH_P_ARP);
	info.src_qp = IPT_SRC_QPN + 1;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_BAD_ARP);
	/* or another port than the GRH's source */
	ipt_frame_init(&f, &info, ETH_P_ARP);
	f.sha[19] ^= 1;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_BAD_ARP);
	/* the flags byte is not the sender's QPN */
	ipt_frame_init(&f, &info, ETH_P_ARP);
	f.sha[0] = IPOIB_HWADDR_RC;
	KUNIT_EXPECT_EQ(test, ipoib_rx_check(&f, &info), IPOIB_RX_OK);
}

static void ipoib_test_cm_service_id(struct kunit *test)
{
	static const u8 want[8] = { 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x48 };
	__be64 id = ipoib_cm_service_id(0x48);

	ipt_expect_bytes(test, &id, want, sizeof(want));
	/* only the 24 bits of a QPN go into it */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ipoib_cm_service_id(0xff000048)),
			0x1000048ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ipoib_cm_service_id(0xffffff)),
			0x1ffffffULL);
}

static void ipoib_test_cm_data(struct kunit *test)
{
	static const u8 want[8] = { 0x00, 0x12, 0x34, 0x56,
				    0x00, 0x00, 0xff, 0xf4 };
	struct ipoib_cm_data data;
	u8 raw[8];
	u32 qpn, mtu;

	KUNIT_EXPECT_EQ(test, sizeof(data), 8);
	ipoib_cm_build_data(&data, 0x123456, IPOIB_CM_BUF_SIZE);
	ipt_expect_bytes(test, &data, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), 0);
	KUNIT_EXPECT_EQ(test, qpn, 0x123456);
	KUNIT_EXPECT_EQ(test, mtu, 65524);

	/* a peer that receives more is sent no more than we can */
	ipoib_cm_build_data(&data, 2, 0x100000);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), 0);
	KUNIT_EXPECT_EQ(test, mtu, IPOIB_CM_BUF_SIZE);
	/* the smallest message: the smallest MTU and the header */
	ipoib_cm_build_data(&data, 2, IPOIB_CM_MIN_MSG);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), 0);
	KUNIT_EXPECT_EQ(test, mtu, 72);
	ipoib_cm_build_data(&data, 2, IPOIB_CM_MIN_MSG - 1);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), -EINVAL);
	ipoib_cm_build_data(&data, 2, 0);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), -EINVAL);

	/* QPs 0 and 1 are not UD QPs of IPoIB; a QPN has 24 bits */
	ipoib_cm_build_data(&data, 0, IPOIB_CM_BUF_SIZE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), -EINVAL);
	ipoib_cm_build_data(&data, 1, IPOIB_CM_BUF_SIZE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), -EINVAL);
	memset(raw, 0, sizeof(raw));
	raw[0] = 0x01;
	raw[7] = 0xff;
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(raw, &qpn, &mtu), -EINVAL);
	ipoib_cm_build_data(&data, 0xffffff, IPOIB_CM_BUF_SIZE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(&data, &qpn, &mtu), 0);
	KUNIT_EXPECT_EQ(test, qpn, 0xffffff);
	KUNIT_EXPECT_EQ(test, ipoib_cm_parse_data(NULL, &qpn, &mtu), -EINVAL);
}

static void ipoib_test_cm_abi(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, IPOIB_CM_MTU, 65520);
	KUNIT_EXPECT_EQ(test, IPOIB_CM_BUF_SIZE, 65524);
	KUNIT_EXPECT_EQ(test, IPOIB_HWADDR_RC, 0x80);
	KUNIT_EXPECT_EQ(test, IPOIB_CM_IETF_ID, 0x1000000ULL);
	KUNIT_EXPECT_EQ(test, IPOIB_MODE_DATAGRAM, 0);
	KUNIT_EXPECT_EQ(test, IPOIB_MODE_CONNECTED, 1);
	/* a receive buffer holds the largest message */
	KUNIT_EXPECT_GE(test, IPOIB_CM_HEAD_SIZE +
			IPOIB_CM_RX_PAGES * PAGE_SIZE, IPOIB_CM_BUF_SIZE);
	/* the wr_id bit is above every ring's index */
	KUNIT_EXPECT_GT(test, IPOIB_OP_CM, (u64)IPOIB_MAX_QUEUE_SIZE);
}

static struct kunit_case ipoib_test_cases[] = {
	KUNIT_CASE(ipoib_test_hw_addr),
	KUNIT_CASE(ipoib_test_bcast_addr),
	KUNIT_CASE(ipoib_test_mc_map),
	KUNIT_CASE(ipoib_test_headers),
	KUNIT_CASE(ipoib_test_mtu),
	KUNIT_CASE(ipoib_test_rx_length),
	KUNIT_CASE(ipoib_test_rx_proto),
	KUNIT_CASE(ipoib_test_rx_source),
	KUNIT_CASE(ipoib_test_rx_own),
	KUNIT_CASE(ipoib_test_rx_arp),
	KUNIT_CASE(ipoib_test_cm_service_id),
	KUNIT_CASE(ipoib_test_cm_data),
	KUNIT_CASE(ipoib_test_cm_abi),
	{}
};

static struct kunit_suite ipoib_test_suite = {
	.name = "ipoib_wire",
	.test_cases = ipoib_test_cases,
};

kunit_test_suite(ipoib_test_suite);

MODULE_DESCRIPTION("KUnit tests of IPoIB's addresses, headers and frame checks");
MODULE_LICENSE("Dual BSD/GPL");
/* what ib_ipoib exports for the suites alone (EXPORT_SYMBOL_IF_KUNIT) */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
