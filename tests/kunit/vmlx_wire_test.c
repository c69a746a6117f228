// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the vmlx wire format (hw/mlx/vmlx_hdr.h, vmlx_opcode.c,
 * vmlx_crc.c): header layouts against bytes laid out by hand from the IBA
 * field tables, the opcode table, packet parsing, the ICRC and VCRC, and
 * PSN arithmetic.
 *
 * Where the known CRC values come from (there is no IB hardware here):
 *
 *  - vmlx_hw_frame*: packets captured on real InfiniBand links, copied byte
 *    for byte from infiniband.pcap, the Wireshark project's sample capture
 *    (Endace ERF, 2008).  Their ICRCs and VCRCs were computed by real HCAs
 *    and switches.
 *
 *  - vmlx_pkt_*: packets built in userspace with vmlx_hdr.h and dissected
 *    by tshark 4.0.17, which decoded every field as intended.  tshark does
 *    not verify either CRC (it prints whatever is there), so their CRCs
 *    come from a second, independent implementation written in Python:
 *    zlib's CRC-32 over a copy masked byte by byte for the ICRC, and a
 *    bit-serial CRC-16 (not reflected, on bit-reversed bytes) for the
 *    VCRC.  That implementation reproduces the ICRC and the VCRC of all 43
 *    packets of infiniband.pcap, local and global, VL 0 and VL 15.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/bitrev.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "vmlx_hdr.h"

/*
 * Frame 1 of infiniband.pcap: a directed route SubnGet(SMInfo) on QP0,
 * VL 15, permissive LIDs.
 */
static const u8 vmlx_hw_frame1[] = {
	/* LRH */
	0xf0, 0x02, 0xff, 0xff, 0x00, 0x48, 0xff, 0xff,
	/* BTH */
	0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xe9,
	/* DETH */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* payload and pad */
	0x01, 0x81, 0x01, 0x01, 0x00, 0x00, 0x01, 0x02, 0x00, 0x01, 0x50, 0x9c,
	0x00, 0x01, 0x25, 0xc8, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	/* ICRC */
	0x10, 0x65, 0xef, 0x88,
	/* VCRC */
	0x00, 0x37,
};

/*
 * Frame 5 of infiniband.pcap: an IPoIB ARP request to a multicast group,
 * UD SEND ONLY with a GRH (HopLmt 0: masked to ones, 0xff != 0).
 */
static const u8 vmlx_hw_frame5[] = {
	/* LRH */
	0x00, 0x03, 0xc0, 0x00, 0x00, 0x21, 0x00, 0x04,
	/* GRH */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x54, 0x1b, 0x00, 0xfe, 0x80, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6, 0x36,
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff,
	/* BTH */
	0x64, 0x40, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x20, 0xaf,
	/* DETH */
	0x00, 0x00, 0x0b, 0x1b, 0x00, 0x00, 0x04, 0x05,
	/* payload and pad */
	0x08, 0x06, 0x00, 0x00, 0x00, 0x20, 0x08, 0x00, 0x14, 0x04, 0x00, 0x01,
	0x80, 0x00, 0x04, 0x05, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6, 0x36, 0x0a, 0x00, 0x01, 0x22,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x3a,
	/* ICRC */
	0xbd, 0x6b, 0xd6, 0xa8,
	/* VCRC */
	0x88, 0x83,
};

/* Frame 11 of infiniband.pcap: an RC ACKNOWLEDGE, MSN 1. */
static const u8 vmlx_hw_frame11[] = {
	/* LRH */
	0x00, 0x02, 0x00, 0x04, 0x00, 0x07, 0x00, 0x01,
	/* BTH */
	0x11, 0x40, 0xff, 0xff, 0x00, 0x87, 0x04, 0x08, 0x00, 0xd4, 0x0a, 0x55,
	/* AETH */
	0x1f, 0x00, 0x00, 0x01,
	/* ICRC */
	0xa8, 0x03, 0x55, 0x50,
	/* VCRC */
	0x30, 0x81,
};

/* RC SEND ONLY, 4-byte payload, VL 0 SL 0 DLID 2 SLID 1. */
static const u8 vmlx_pkt_rc_send_only[] = {
	/* LRH */
	0x00, 0x02, 0x00, 0x02, 0x00, 0x07, 0x00, 0x01,
	/* BTH */
	0x04, 0x40, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12, 0x80, 0x00, 0x00, 0x00,
	/* payload and pad */
	0xde, 0xad, 0xbe, 0xef,
	/* ICRC */
	0x27, 0x67, 0xb3, 0x2b,
	/* VCRC */
	0x15, 0x90,
};

/* RC RDMA WRITE FIRST with its RETH, 16-byte payload, VL 1 SL 1. */
static const u8 vmlx_pkt_rc_write_first[] = {
	/* LRH */
	0x10, 0x12, 0x00, 0x03, 0x00, 0x0e, 0x00, 0x04,
	/* BTH */
	0x06, 0x00, 0x80, 0x01, 0x00, 0x12, 0x34, 0x56, 0x00, 0xab, 0xcd, 0xef,
	/* RETH */
	0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x50, 0x00,
	0x12, 0x34, 0xab, 0xcd, 0x00, 0x00, 0x20, 0x00,
	/* payload and pad */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	/* ICRC */
	0x1c, 0xf3, 0x8e, 0xea,
	/* VCRC */
	0x52, 0x7f,
};

/* UD SEND ONLY with GRH and DETH, 5-byte payload and 3 bytes of pad. */
static const u8 vmlx_pkt_ud_send_only_grh[] = {
	/* LRH */
	0x00, 0x03, 0x00, 0x05, 0x00, 0x14, 0x00, 0x06,
	/* GRH */
	0x61, 0x23, 0x45, 0x67, 0x00, 0x20, 0x1b, 0x40, 0xfe, 0x80, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x76, 0x6d, 0x6c, 0x00, 0x00, 0x00, 0x01,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x76, 0x6d, 0x6c,
	0x00, 0x00, 0x00, 0x11,
	/* BTH */
	0x64, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x07,
	/* DETH */
	0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x33,
	/* payload and pad */
	0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00,
	/* ICRC */
	0x12, 0x9a, 0x33, 0xb0,
	/* VCRC */
	0x7f, 0x11,
};

/* RC ACKNOWLEDGE: ACK with an invalid credit count, MSN 1, PSN 0xffffff. */
static const u8 vmlx_pkt_rc_ack[] = {
	/* LRH */
	0x00, 0x02, 0x00, 0x01, 0x00, 0x07, 0x00, 0x02,
	/* BTH */
	0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x00, 0xff, 0xff, 0xff,
	/* AETH */
	0x1f, 0x00, 0x00, 0x01,
	/* ICRC */
	0xc3, 0xb2, 0x37, 0xa1,
	/* VCRC */
	0xb9, 0x06,
};

/* RC CmpSwap with its AtomicETH, SL 2. */
static const u8 vmlx_pkt_rc_cmp_swap[] = {
	/* LRH */
	0x00, 0x22, 0x00, 0x02, 0x00, 0x0d, 0x00, 0x01,
	/* BTH */
	0x13, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12, 0x80, 0x00, 0x00, 0x01,
	/* AtomicETH */
	0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x50, 0x08, 0x12, 0x34, 0xab, 0xcd,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x01, 0x02, 0x03, 0x04,
	0x05, 0x06, 0x07, 0x08,
	/* ICRC */
	0x94, 0xba, 0x34, 0x64,
	/* VCRC */
	0x70, 0x0b,
};

struct vmlx_vector {
	const char	*name;
	const u8	*pkt;
	unsigned int	len;		/* VCRC included */
	u32		icrc;
	u16		vcrc;
	u8		opcode;
	u16		bth;
	u16		payload;
	u16		payload_len;
};

#define VMLX_VECTOR(_pkt, _icrc, _vcrc, _op, _bth, _payload, _plen) {	\
	.name = #_pkt, .pkt = _pkt, .len = sizeof(_pkt),		\
	.icrc = _icrc, .vcrc = _vcrc, .opcode = _op, .bth = _bth,	\
	.payload = _payload, .payload_len = _plen,			\
}

static const struct vmlx_vector vmlx_vectors[] = {
	VMLX_VECTOR(vmlx_hw_frame1, 0x88ef6510, 0x3700,
		    VMLX_OPC_UD_SEND_ONLY, 8, 28, 256),
	VMLX_VECTOR(vmlx_hw_frame5, 0xa8d66bbd, 0x8388,
		    VMLX_OPC_UD_SEND_ONLY, 48, 68, 60),
	VMLX_VECTOR(vmlx_hw_frame11, 0x505503a8, 0x8130,
		    VMLX_OPC_RC_ACKNOWLEDGE, 8, 24, 0),
	VMLX_VECTOR(vmlx_pkt_rc_send_only, 0x2bb36727, 0x9015,
		    VMLX_OPC_RC_SEND_ONLY, 8, 20, 4),
	VMLX_VECTOR(vmlx_pkt_rc_write_first, 0xea8ef31c, 0x7f52,
		    VMLX_OPC_RC_RDMA_WRITE_FIRST, 8, 36, 16),
	VMLX_VECTOR(vmlx_pkt_ud_send_only_grh, 0xb0339a12, 0x117f,
		    VMLX_OPC_UD_SEND_ONLY, 48, 68, 5),
	VMLX_VECTOR(vmlx_pkt_rc_ack, 0xa137b2c3, 0x06b9,
		    VMLX_OPC_RC_ACKNOWLEDGE, 8, 24, 0),
	VMLX_VECTOR(vmlx_pkt_rc_cmp_swap, 0x6434ba94, 0x0b70,
		    VMLX_OPC_RC_COMPARE_SWAP, 8, 48, 0),
};

/* Expect @n bytes at @got to be those at @want. */
#define VMLX_EXPECT_BYTES(test, got, want, n, fmt, ...)			\
	do {								\
		const void *__got = (got);				\
		size_t __n = (n);					\
									\
		KUNIT_EXPECT_EQ_MSG(test, memcmp(__got, want, __n), 0,	\
				    fmt " (got %*ph)", ##__VA_ARGS__,	\
				    (int)min_t(size_t, __n, 64), __got);	\
	} while (0)

/* A copy in a buffer of exactly @len bytes, so that KASAN sees overruns. */
static u8 *vmlx_copy(struct kunit *test, const void *pkt, unsigned int len)
{
	u8 *buf = kunit_kmalloc(test, len ?: 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, pkt, len);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Headers                                                             */
/* ------------------------------------------------------------------ */

static void vmlx_wire_lrh_test(struct kunit *test)
{
	/*
	 * IBA 7.7: byte 0 VL|LVer, byte 1 SL|Rsv2|LNH, DLID, Rsv5|PktLen,
	 * SLID.  VL 0, LVer 0, SL 0, LNH 2 (IBA local), DLID 0x0002,
	 * PktLen 7 words, SLID 0x0001.
	 */
	static const u8 local[VMLX_LRH_BYTES] = {
		0x00, 0x02, 0x00, 0x02, 0x00, 0x07, 0x00, 0x01,
	};
	/* VL 15, LVer 0, SL 14, LNH 3, DLID 0xc001, PktLen 2047, SLID 0xfffe */
	static const u8 global[VMLX_LRH_BYTES] = {
		0xf0, 0xe3, 0xc0, 0x01, 0x07, 0xff, 0xff, 0xfe,
	};
	struct vmlx_lrh lrh;

	memcpy(&lrh, local, sizeof(lrh));
	KUNIT_EXPECT_EQ(test, vmlx_lrh_vl(&lrh), 0);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_lver(&lrh), 0);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_sl(&lrh), 0);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_lnh(&lrh), VMLX_LNH_IBA_LOCAL);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_dlid(&lrh), 0x0002);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_pktlen(&lrh), 7);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_slid(&lrh), 0x0001);

	memset(&lrh, 0, sizeof(lrh));
	vmlx_lrh_set_vl(&lrh, 0);
	vmlx_lrh_set_lver(&lrh, 0);
	vmlx_lrh_set_sl(&lrh, 0);
	vmlx_lrh_set_lnh(&lrh, VMLX_LNH_IBA_LOCAL);
	vmlx_lrh_set_dlid(&lrh, 0x0002);
	vmlx_lrh_set_pktlen(&lrh, 7);
	vmlx_lrh_set_slid(&lrh, 0x0001);
	VMLX_EXPECT_BYTES(test, &lrh, local, sizeof(lrh), "");

	memcpy(&lrh, global, sizeof(lrh));
	KUNIT_EXPECT_EQ(test, vmlx_lrh_vl(&lrh), 15);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_lver(&lrh), 0);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_sl(&lrh), 14);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_lnh(&lrh), VMLX_LNH_IBA_GLOBAL);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_dlid(&lrh), 0xc001);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_pktlen(&lrh), VMLX_PKTLEN_MAX);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_slid(&lrh), 0xfffe);

	/* Setters change their own bits only, in any order. */
	memset(&lrh, 0, sizeof(lrh));
	vmlx_lrh_set_slid(&lrh, 0xfffe);
	vmlx_lrh_set_lnh(&lrh, VMLX_LNH_IBA_GLOBAL);
	vmlx_lrh_set_pktlen(&lrh, VMLX_PKTLEN_MAX);
	vmlx_lrh_set_sl(&lrh, 14);
	vmlx_lrh_set_dlid(&lrh, 0xc001);
	vmlx_lrh_set_vl(&lrh, 15);
	VMLX_EXPECT_BYTES(test, &lrh, global, sizeof(lrh), "");

	/* LVer beside VL, and the reserved bits beside SL and PktLen */
	vmlx_lrh_set_lver(&lrh, 0xa);
	KUNIT_EXPECT_EQ(test, lrh.vl_lver, 0xfa);
	vmlx_lrh_set_vl(&lrh, 1);
	KUNIT_EXPECT_EQ(test, lrh.vl_lver, 0x1a);
	lrh.sl_lnh |= 0x0c;
	lrh.pktlen = cpu_to_be16(0xf800 | 5);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_lnh(&lrh), VMLX_LNH_IBA_GLOBAL);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_sl(&lrh), 14);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_pktlen(&lrh), 5);
	vmlx_lrh_set_pktlen(&lrh, 0xffff);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(lrh.pktlen), VMLX_PKTLEN_MAX);
}

static void vmlx_wire_grh_test(struct kunit *test)
{
	/*
	 * IBA 8.3: IPVer 6 | TClass 0x12 | FlowLabel 0x34567, PayLen 32,
	 * NxtHdr 0x1b, HopLmt 0x40, SGID, DGID.
	 */
	static const u8 bytes[VMLX_GRH_BYTES] = {
		0x61, 0x23, 0x45, 0x67, 0x00, 0x20, 0x1b, 0x40,
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x06, 0x76, 0x6d, 0x6c, 0x00, 0x00, 0x00, 0x01,
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x06, 0x76, 0x6d, 0x6c, 0x00, 0x00, 0x00, 0x11,
	};
	struct vmlx_grh grh;

	memcpy(&grh, bytes, sizeof(grh));
	KUNIT_EXPECT_EQ(test, vmlx_grh_ipver(&grh), VMLX_GRH_IPVER);
	KUNIT_EXPECT_EQ(test, vmlx_grh_tclass(&grh), 0x12);
	KUNIT_EXPECT_EQ(test, vmlx_grh_flow_label(&grh), 0x34567);
	KUNIT_EXPECT_EQ(test, vmlx_grh_paylen(&grh), 32);
	KUNIT_EXPECT_EQ(test, grh.nxthdr, VMLX_GRH_NXTHDR_IBA);
	KUNIT_EXPECT_EQ(test, grh.hoplmt, 0x40);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(grh.sgid),
			0xfe80000000000000ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(grh.sgid + 8),
			0x06766d6c00000001ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(grh.dgid + 8),
			0x06766d6c00000011ULL);

	memset(&grh, 0, sizeof(grh));
	vmlx_grh_set_flow_label(&grh, 0xfff34567);	/* 20 bits kept */
	vmlx_grh_set_paylen(&grh, 32);
	vmlx_grh_set_tclass(&grh, 0x12);
	vmlx_grh_set_ipver(&grh, VMLX_GRH_IPVER);
	grh.nxthdr = VMLX_GRH_NXTHDR_IBA;
	grh.hoplmt = 0x40;
	memcpy(grh.sgid, bytes + 8, 16);
	memcpy(grh.dgid, bytes + 24, 16);
	VMLX_EXPECT_BYTES(test, &grh, bytes, sizeof(grh), "");

	vmlx_grh_set_tclass(&grh, 0xff);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(grh.ver_tclass_flow), 0x6ff34567);
	vmlx_grh_set_flow_label(&grh, 0);
	vmlx_grh_set_ipver(&grh, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(grh.ver_tclass_flow), 0x0ff00000);
}

static void vmlx_wire_bth_test(struct kunit *test)
{
	/*
	 * IBA 9.2: OpCode 0x64 (UD SEND ONLY), SE 1 | M 0 | PadCnt 3 |
	 * TVer 0, P_Key 0xffff, Resv8a 0 | DestQP 0x000022, AckReq 0 |
	 * Resv7 0 | PSN 0x000007.
	 */
	static const u8 ud[VMLX_BTH_BYTES] = {
		0x64, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x22,
		0x00, 0x00, 0x00, 0x07,
	};
	/*
	 * OpCode 0x06 (RC RDMA WRITE FIRST), SE 0 | M 1 | PadCnt 2 | TVer 0,
	 * P_Key 0x8001, DestQP 0xabcdef, AckReq 1 | PSN 0xfedcba.
	 */
	static const u8 rc[VMLX_BTH_BYTES] = {
		0x06, 0x60, 0x80, 0x01, 0x00, 0xab, 0xcd, 0xef,
		0x80, 0xfe, 0xdc, 0xba,
	};
	struct vmlx_bth bth;

	memcpy(&bth, ud, sizeof(bth));
	KUNIT_EXPECT_EQ(test, vmlx_bth_opcode(&bth), VMLX_OPC_UD_SEND_ONLY);
	KUNIT_EXPECT_TRUE(test, vmlx_bth_se(&bth));
	KUNIT_EXPECT_FALSE(test, vmlx_bth_mig(&bth));
	KUNIT_EXPECT_EQ(test, vmlx_bth_padcnt(&bth), 3);
	KUNIT_EXPECT_EQ(test, vmlx_bth_tver(&bth), 0);
	KUNIT_EXPECT_EQ(test, vmlx_bth_pkey(&bth), 0xffff);
	KUNIT_EXPECT_EQ(test, vmlx_bth_qpn(&bth), 0x000022);
	KUNIT_EXPECT_FALSE(test, vmlx_bth_ackreq(&bth));
	KUNIT_EXPECT_EQ(test, vmlx_bth_psn(&bth), 0x000007);

	memcpy(&bth, rc, sizeof(bth));
	KUNIT_EXPECT_EQ(test, vmlx_bth_opcode(&bth),
			VMLX_OPC_RC_RDMA_WRITE_FIRST);
	KUNIT_EXPECT_FALSE(test, vmlx_bth_se(&bth));
	KUNIT_EXPECT_TRUE(test, vmlx_bth_mig(&bth));
	KUNIT_EXPECT_EQ(test, vmlx_bth_padcnt(&bth), 2);
	KUNIT_EXPECT_EQ(test, vmlx_bth_pkey(&bth), 0x8001);
	KUNIT_EXPECT_EQ(test, vmlx_bth_qpn(&bth), 0xabcdef);
	KUNIT_EXPECT_TRUE(test, vmlx_bth_ackreq(&bth));
	KUNIT_EXPECT_EQ(test, vmlx_bth_psn(&bth), 0xfedcba);

	memset(&bth, 0, sizeof(bth));
	vmlx_bth_set_psn(&bth, 0x7fedcba);		/* 24 bits kept */
	vmlx_bth_set_ackreq(&bth, true);
	vmlx_bth_set_qpn(&bth, 0x12abcdef);		/* 24 bits kept */
	vmlx_bth_set_pkey(&bth, 0x8001);
	vmlx_bth_set_tver(&bth, VMLX_BTH_TVER);
	vmlx_bth_set_padcnt(&bth, 2);
	vmlx_bth_set_mig(&bth, true);
	vmlx_bth_set_se(&bth, false);
	vmlx_bth_set_opcode(&bth, VMLX_OPC_RC_RDMA_WRITE_FIRST);
	VMLX_EXPECT_BYTES(test, &bth, rc, sizeof(bth), "");

	memset(&bth, 0, sizeof(bth));
	vmlx_bth_set_opcode(&bth, VMLX_OPC_UD_SEND_ONLY);
	vmlx_bth_set_se(&bth, true);
	vmlx_bth_set_padcnt(&bth, 3);
	vmlx_bth_set_pkey(&bth, 0xffff);
	vmlx_bth_set_qpn(&bth, 0x000022);
	vmlx_bth_set_psn(&bth, 0x000007);
	VMLX_EXPECT_BYTES(test, &bth, ud, sizeof(bth), "");

	/* Each setter leaves its neighbours alone. */
	memcpy(&bth, rc, sizeof(bth));
	vmlx_bth_set_se(&bth, true);
	KUNIT_EXPECT_EQ(test, bth.flags, 0xe0);
	vmlx_bth_set_tver(&bth, 0xf);
	vmlx_bth_set_padcnt(&bth, 0);
	KUNIT_EXPECT_EQ(test, bth.flags, 0xcf);
	vmlx_bth_set_mig(&bth, false);
	KUNIT_EXPECT_EQ(test, bth.flags, 0x8f);
	vmlx_bth_set_ackreq(&bth, false);
	KUNIT_EXPECT_EQ(test, vmlx_bth_psn(&bth), 0xfedcba);
	vmlx_bth_set_psn(&bth, 1);
	KUNIT_EXPECT_FALSE(test, vmlx_bth_ackreq(&bth));
	vmlx_bth_set_ackreq(&bth, true);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(bth.apsn), 0x80000001);
	/* Resv8a set on the wire does not leak into DestQP */
	bth.qpn |= cpu_to_be32(0xff000000);
	KUNIT_EXPECT_EQ(test, vmlx_bth_qpn(&bth), 0xabcdef);
}

static void vmlx_wire_eth_test(struct kunit *test)
{
	/* IBA 9.3.3: Q_Key 0x80010000, Rsv8 | SrcQP 0x000001 */
	static const u8 deth_bytes[VMLX_DETH_BYTES] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	/* IBA 9.3.4: VA 0x0001020304050607, R_Key 0x89abcdef, DMALen 4096 */
	static const u8 reth_bytes[VMLX_RETH_BYTES] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
		0x89, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x10, 0x00,
	};
	/*
	 * IBA 9.3.5: VA 0x00007f0012345008, R_Key 0x1234abcd,
	 * SwapData 0x1122334455667788, CompareData 0x0102030405060708
	 */
	static const u8 atmeth_bytes[VMLX_ATMETH_BYTES] = {
		0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x50, 0x08,
		0x12, 0x34, 0xab, 0xcd,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	/* IBA 9.3.6: Syndrome 0x61 (NAK, invalid request), MSN 0x123456 */
	static const u8 aeth_bytes[VMLX_AETH_BYTES] = {
		0x61, 0x12, 0x34, 0x56,
	};
	/* IBA 9.3.7: OrigRemoteData 0xfedcba9876543210 */
	static const u8 atmack_bytes[VMLX_ATMACKETH_BYTES] = {
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
	};
	/* IBA 9.3.8 and 9.3.9: ImmDt, IETH R_Key */
	static const u8 word_bytes[4] = { 0xca, 0xfe, 0xf0, 0x0d };
	struct vmlx_atmacketh atmack;
	struct vmlx_atmeth atmeth;
	struct vmlx_immdt immdt;
	struct vmlx_deth deth;
	struct vmlx_reth reth;
	struct vmlx_aeth aeth;
	struct vmlx_ieth ieth;

	memcpy(&deth, deth_bytes, sizeof(deth));
	KUNIT_EXPECT_EQ(test, vmlx_deth_qkey(&deth), 0x80010000);
	KUNIT_EXPECT_EQ(test, vmlx_deth_sqpn(&deth), 1);
	memset(&deth, 0xff, sizeof(deth));
	vmlx_deth_set_qkey(&deth, 0x80010000);
	vmlx_deth_set_sqpn(&deth, 0xff000001);
	VMLX_EXPECT_BYTES(test, &deth, deth_bytes, sizeof(deth), "");

	memcpy(&reth, reth_bytes, sizeof(reth));
	KUNIT_EXPECT_EQ(test, vmlx_reth_va(&reth), 0x0001020304050607ULL);
	KUNIT_EXPECT_EQ(test, vmlx_reth_rkey(&reth), 0x89abcdef);
	KUNIT_EXPECT_EQ(test, vmlx_reth_len(&reth), 4096);
	memset(&reth, 0, sizeof(reth));
	vmlx_reth_set_len(&reth, 4096);
	vmlx_reth_set_rkey(&reth, 0x89abcdef);
	vmlx_reth_set_va(&reth, 0x0001020304050607ULL);
	VMLX_EXPECT_BYTES(test, &reth, reth_bytes, sizeof(reth), "");

	memcpy(&atmeth, atmeth_bytes, sizeof(atmeth));
	KUNIT_EXPECT_EQ(test, vmlx_atmeth_va(&atmeth), 0x00007f0012345008ULL);
	KUNIT_EXPECT_EQ(test, vmlx_atmeth_rkey(&atmeth), 0x1234abcd);
	KUNIT_EXPECT_EQ(test, vmlx_atmeth_swap_add(&atmeth),
			0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, vmlx_atmeth_compare(&atmeth),
			0x0102030405060708ULL);
	memset(&atmeth, 0, sizeof(atmeth));
	vmlx_atmeth_set_compare(&atmeth, 0x0102030405060708ULL);
	vmlx_atmeth_set_swap_add(&atmeth, 0x1122334455667788ULL);
	vmlx_atmeth_set_rkey(&atmeth, 0x1234abcd);
	vmlx_atmeth_set_va(&atmeth, 0x00007f0012345008ULL);
	VMLX_EXPECT_BYTES(test, &atmeth, atmeth_bytes, sizeof(atmeth), "");

	memcpy(&aeth, aeth_bytes, sizeof(aeth));
	KUNIT_EXPECT_EQ(test, vmlx_aeth_syndrome(&aeth),
			VMLX_AETH_NAK | VMLX_AETH_NAK_INVALID_REQ);
	KUNIT_EXPECT_EQ(test, vmlx_aeth_syndrome(&aeth) & VMLX_AETH_TYPE_MASK,
			VMLX_AETH_NAK);
	KUNIT_EXPECT_EQ(test, vmlx_aeth_msn(&aeth), 0x123456);
	memset(&aeth, 0, sizeof(aeth));
	vmlx_aeth_set_msn(&aeth, 0xff123456);		/* 24 bits kept */
	vmlx_aeth_set_syndrome(&aeth, 0x61);
	VMLX_EXPECT_BYTES(test, &aeth, aeth_bytes, sizeof(aeth), "");
	vmlx_aeth_set_syndrome(&aeth, VMLX_AETH_ACK | 0x1f);
	vmlx_aeth_set_msn(&aeth, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(aeth.smsn), 0x1f000000);

	memcpy(&atmack, atmack_bytes, sizeof(atmack));
	KUNIT_EXPECT_EQ(test, vmlx_atmacketh_orig(&atmack),
			0xfedcba9876543210ULL);
	memset(&atmack, 0, sizeof(atmack));
	vmlx_atmacketh_set_orig(&atmack, 0xfedcba9876543210ULL);
	VMLX_EXPECT_BYTES(test, &atmack, atmack_bytes, sizeof(atmack), "");

	memcpy(&immdt, word_bytes, sizeof(immdt));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(immdt.imm), 0xcafef00d);
	memcpy(&ieth, word_bytes, sizeof(ieth));
	KUNIT_EXPECT_EQ(test, vmlx_ieth_rkey(&ieth), 0xcafef00d);
	memset(&ieth, 0, sizeof(ieth));
	vmlx_ieth_set_rkey(&ieth, 0xcafef00d);
	VMLX_EXPECT_BYTES(test, &ieth, word_bytes, sizeof(ieth), "");

	/* Offsets inside the packed structures, as IBA lays them out */
	KUNIT_EXPECT_EQ(test, offsetof(struct vmlx_grh, sgid), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmlx_grh, dgid), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmlx_bth, apsn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmlx_atmeth, swap_add), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmlx_atmeth, compare), 20);
}

/* ------------------------------------------------------------------ */
/* Opcodes                                                             */
/* ------------------------------------------------------------------ */

static const u8 vmlx_eth_bytes[VMLX_ETH_NUM] = {
	[VMLX_ETH_DETH]		= VMLX_DETH_BYTES,
	[VMLX_ETH_RETH]		= VMLX_RETH_BYTES,
	[VMLX_ETH_ATMETH]	= VMLX_ATMETH_BYTES,
	[VMLX_ETH_AETH]		= VMLX_AETH_BYTES,
	[VMLX_ETH_ATMACKETH]	= VMLX_ATMACKETH_BYTES,
	[VMLX_ETH_IMMDT]	= VMLX_IMMDT_BYTES,
	[VMLX_ETH_IETH]		= VMLX_IETH_BYTES,
};

/* The opcodes IBA 9.2.1 table 38 defines for RC, UC and UD. */
static bool vmlx_opcode_expected(unsigned int op)
{
	switch (op & VMLX_OPC_SERVICE_MASK) {
	case VMLX_OPC_RC:
		return op <= 0x14 || op == 0x16 || op == 0x17;
	case VMLX_OPC_UC:
		return op <= 0x2b;
	case VMLX_OPC_UD:
		return op == 0x64 || op == 0x65;
	default:
		return false;
	}
}

static void vmlx_wire_opcode_table_test(struct kunit *test)
{
	const u32 ops = VMLX_OPF_SEND | VMLX_OPF_WRITE | VMLX_OPF_READ |
			VMLX_OPF_ATOMIC | VMLX_OPF_ACK;
	const u32 place = VMLX_OPF_FIRST | VMLX_OPF_MIDDLE | VMLX_OPF_LAST;
	const struct vmlx_opcode_info *info;
	unsigned int op, eth, len, known = 0;
	u32 p;

	for (op = 0; op < 256; op++) {
		info = vmlx_opcode_info(op);
		KUNIT_EXPECT_EQ_MSG(test, !!info, vmlx_opcode_expected(op),
				    "opcode 0x%02x", op);
		if (!info)
			continue;
		known++;
		KUNIT_EXPECT_NOT_NULL(test, info->name);

		/* the headers, in IBA order, one after the other */
		len = VMLX_BTH_BYTES;
		for (eth = 0; eth < VMLX_ETH_NUM; eth++) {
			if (!(info->flags & BIT(eth))) {
				KUNIT_EXPECT_EQ_MSG(test, info->eth_off[eth], 0,
						    "%s eth %u", info->name,
						    eth);
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, info->eth_off[eth], len,
					    "%s eth %u", info->name, eth);
			len += vmlx_eth_bytes[eth];
		}
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, len, "%s", info->name);

		/* one sender, one operation, one place in the message */
		KUNIT_EXPECT_EQ_MSG(test,
				    hweight32(info->flags &
					      (VMLX_OPF_REQ | VMLX_OPF_RESP)),
				    1, "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, hweight32(info->flags & ops), 1,
				    "%s", info->name);
		p = info->flags & place;
		KUNIT_EXPECT_TRUE_MSG(test, p == VMLX_OPF_FIRST ||
				      p == VMLX_OPF_MIDDLE ||
				      p == VMLX_OPF_LAST || p == VMLX_OPF_ONLY,
				      "%s", info->name);

		/* what the operations imply (IBA 9.3) */
		if (info->flags & (VMLX_OPF_SEND | VMLX_OPF_WRITE))
			KUNIT_EXPECT_TRUE_MSG(test,
					      info->flags & VMLX_OPF_PAYLOAD &&
					      info->flags & VMLX_OPF_REQ,
					      "%s", info->name);
		if (info->flags & (VMLX_OPF_ATOMIC | VMLX_OPF_ACK))
			KUNIT_EXPECT_FALSE_MSG(test,
					       info->flags & VMLX_OPF_PAYLOAD,
					       "%s", info->name);
		if (info->flags & VMLX_OPF_RETH)
			KUNIT_EXPECT_TRUE_MSG(test,
					      info->flags & VMLX_OPF_FIRST,
					      "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & VMLX_OPF_DETH),
				    (op & VMLX_OPC_SERVICE_MASK) == VMLX_OPC_UD,
				    "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & VMLX_OPF_RESP),
				    !!(info->flags & (VMLX_OPF_AETH |
						      VMLX_OPF_ACK)) ||
				    op == VMLX_OPC_RC_RDMA_READ_RESPONSE_MIDDLE,
				    "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & VMLX_OPF_ATMACKETH),
				    op == VMLX_OPC_RC_ATOMIC_ACKNOWLEDGE,
				    "%s", info->name);
	}
	KUNIT_EXPECT_EQ(test, known, 23 + 12 + 2);
}

static void vmlx_wire_opcode_spot_test(struct kunit *test)
{
	const struct vmlx_opcode_info *info;

	/* IBA 9.3: RETH then ImmDt */
	info = vmlx_opcode_info(VMLX_OPC_RC_RDMA_WRITE_ONLY_IMM);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->hdr_len, 32);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_RETH], 12);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_IMMDT], 28);
	KUNIT_EXPECT_EQ(test, info->flags & VMLX_OPF_ONLY, VMLX_OPF_ONLY);
	KUNIT_EXPECT_TRUE(test, info->flags & VMLX_OPF_PAYLOAD);

	/* AETH then AtomicAckETH */
	info = vmlx_opcode_info(VMLX_OPC_RC_ATOMIC_ACKNOWLEDGE);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->hdr_len, 24);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_AETH], 12);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_ATMACKETH], 16);
	KUNIT_EXPECT_TRUE(test, info->flags & VMLX_OPF_RESP);

	/* DETH then ImmDt */
	info = vmlx_opcode_info(VMLX_OPC_UD_SEND_ONLY_IMM);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->hdr_len, 24);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_DETH], 12);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_IMMDT], 20);

	/* a READ request has a RETH and no payload; the responses have */
	info = vmlx_opcode_info(VMLX_OPC_RC_RDMA_READ_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->hdr_len, 28);
	KUNIT_EXPECT_FALSE(test, info->flags & VMLX_OPF_PAYLOAD);
	KUNIT_EXPECT_TRUE(test, info->flags & VMLX_OPF_REQ);
	info = vmlx_opcode_info(VMLX_OPC_RC_RDMA_READ_RESPONSE_MIDDLE);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->hdr_len, 12);
	KUNIT_EXPECT_EQ(test, info->flags & (VMLX_OPF_PAYLOAD |
					     VMLX_OPF_MIDDLE | VMLX_OPF_READ |
					     VMLX_OPF_RESP),
			VMLX_OPF_PAYLOAD | VMLX_OPF_MIDDLE | VMLX_OPF_READ |
			VMLX_OPF_RESP);
	info = vmlx_opcode_info(VMLX_OPC_RC_RDMA_READ_RESPONSE_LAST);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_AETH], 12);
	KUNIT_EXPECT_EQ(test, info->flags & VMLX_OPF_ONLY, VMLX_OPF_LAST);

	/* atomics: AtomicETH, 28 bytes, no payload */
	info = vmlx_opcode_info(VMLX_OPC_RC_FETCH_ADD);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->hdr_len, 40);
	KUNIT_EXPECT_EQ(test, info->flags & (VMLX_OPF_ATMETH |
					     VMLX_OPF_ATOMIC | VMLX_OPF_REQ),
			VMLX_OPF_ATMETH | VMLX_OPF_ATOMIC | VMLX_OPF_REQ);

	/* SEND with Invalidate: IETH */
	info = vmlx_opcode_info(VMLX_OPC_RC_SEND_LAST_INV);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->eth_off[VMLX_ETH_IETH], 12);
	KUNIT_EXPECT_EQ(test, info->flags & VMLX_OPF_ONLY, VMLX_OPF_LAST);

	/* UC has the SEND and WRITE opcodes of RC, nothing else */
	info = vmlx_opcode_info(VMLX_OPC_UC_RDMA_WRITE_FIRST);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, info->hdr_len, 28);
	KUNIT_EXPECT_STREQ(test, info->name, "UC RDMA WRITE FIRST");
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0x2c));	/* UC READ */
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0x31));	/* UC ACK */

	/* reserved, RD, CNP, XRC, and the top of the byte */
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0x15));
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0x18));
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0x40));
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0x60));
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0x81));
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0xa0));
	KUNIT_EXPECT_NULL(test, vmlx_opcode_info(0xff));
}

/* ------------------------------------------------------------------ */
/* CRCs                                                                */
/* ------------------------------------------------------------------ */

static void vmlx_wire_known_vectors_test(struct kunit *test)
{
	const struct vmlx_vector *v;
	unsigned int i;
	u8 *buf;

	for (i = 0; i < ARRAY_SIZE(vmlx_vectors); i++) {
		v = &vmlx_vectors[i];
		KUNIT_EXPECT_EQ_MSG(test, vmlx_icrc(v->pkt, v->len - 6),
				    v->icrc, "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, vmlx_vcrc(v->pkt, v->len - 2),
				    v->vcrc, "%s", v->name);
		/* the values are the ones on the wire, LSB first */
		KUNIT_EXPECT_EQ_MSG(test, get_unaligned_le32(v->pkt + v->len - 6),
				    v->icrc, "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, get_unaligned_le16(v->pkt + v->len - 2),
				    v->vcrc, "%s", v->name);
		KUNIT_EXPECT_TRUE_MSG(test, vmlx_pkt_check(v->pkt, v->len),
				      "%s", v->name);

		/* finalize rebuilds both CRCs, byte for byte */
		buf = vmlx_copy(test, v->pkt, v->len);
		memset(buf + v->len - 6, 0, 6);
		KUNIT_EXPECT_FALSE_MSG(test, vmlx_pkt_check(buf, v->len),
				       "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, vmlx_pkt_finalize(buf, v->len - 6),
				    (int)v->len, "%s", v->name);
		VMLX_EXPECT_BYTES(test, buf, v->pkt, v->len, "%s", v->name);
	}
}

static void vmlx_wire_bit_flip_test(struct kunit *test)
{
	const struct vmlx_vector *v;
	unsigned int i, bit;
	u8 *buf;

	for (i = 0; i < ARRAY_SIZE(vmlx_vectors); i++) {
		v = &vmlx_vectors[i];
		buf = vmlx_copy(test, v->pkt, v->len);
		for (bit = 0; bit < v->len * 8; bit++) {
			buf[bit / 8] ^= BIT(bit % 8);
			KUNIT_EXPECT_FALSE_MSG(test,
					       vmlx_pkt_check(buf, v->len),
					       "%s bit %u", v->name, bit);
			buf[bit / 8] ^= BIT(bit % 8);
		}
		KUNIT_EXPECT_TRUE(test, vmlx_pkt_check(buf, v->len));
	}
}

/*
 * Whether a bit of an IBA packet is one of the variant fields the ICRC
 * leaves out (IBA 7.8.1).  LRH:LNH itself decides which those are, so it
 * is never variant.
 */
static bool vmlx_variant_bit(const u8 *pkt, unsigned int byte,
			     unsigned int bit)
{
	if ((pkt[1] & 3) == VMLX_LNH_IBA_GLOBAL) {
		if (byte < 8)				/* LRH */
			return !(byte == 1 && bit < 2);
		if (byte == 8)				/* TClass[7:4] */
			return bit < 4;
		if (byte >= 9 && byte <= 11)		/* TClass, FlowLabel */
			return true;
		return byte == 15 || byte == 48 + 4;	/* HopLmt, Resv8a */
	}
	if (byte == 0)					/* VL */
		return bit >= 4;
	return byte == 8 + 4;				/* Resv8a */
}

static void vmlx_wire_variant_fields_test(struct kunit *test)
{
	const struct vmlx_vector *v;
	unsigned int i, bit, n;
	bool variant;
	u8 *buf;

	for (i = 0; i < ARRAY_SIZE(vmlx_vectors); i++) {
		v = &vmlx_vectors[i];
		n = v->len - 6;
		buf = vmlx_copy(test, v->pkt, n);
		for (bit = 0; bit < n * 8; bit++) {
			variant = vmlx_variant_bit(v->pkt, bit / 8, bit % 8);
			buf[bit / 8] ^= BIT(bit % 8);
			KUNIT_EXPECT_EQ_MSG(test, vmlx_icrc(buf, n) == v->icrc,
					    variant, "%s bit %u", v->name, bit);
			KUNIT_EXPECT_NE_MSG(test, vmlx_vcrc(buf, n),
					    vmlx_vcrc(v->pkt, n), "%s bit %u",
					    v->name, bit);
			buf[bit / 8] ^= BIT(bit % 8);
		}
	}

	/* Whole fields at once: the LRH of a global packet, TClass, ... */
	buf = vmlx_copy(test, vmlx_pkt_ud_send_only_grh,
			sizeof(vmlx_pkt_ud_send_only_grh));
	n = sizeof(vmlx_pkt_ud_send_only_grh) - 6;
	vmlx_lrh_set_vl((struct vmlx_lrh *)buf, 15);
	vmlx_lrh_set_sl((struct vmlx_lrh *)buf, 9);
	vmlx_lrh_set_dlid((struct vmlx_lrh *)buf, 0x1234);
	vmlx_lrh_set_slid((struct vmlx_lrh *)buf, 0x4321);
	vmlx_grh_set_tclass((struct vmlx_grh *)(buf + 8), 0xa5);
	vmlx_grh_set_flow_label((struct vmlx_grh *)(buf + 8), 0xfffff);
	((struct vmlx_grh *)(buf + 8))->hoplmt = 0;
	((struct vmlx_bth *)(buf + 48))->qpn |= cpu_to_be32(0x5a000000);
	KUNIT_EXPECT_EQ(test, vmlx_icrc(buf, n), 0xb0339a12);

	/* ... and every VL of a local packet */
	buf = vmlx_copy(test, vmlx_hw_frame11, sizeof(vmlx_hw_frame11));
	for (i = 0; i < 16; i++) {
		vmlx_lrh_set_vl((struct vmlx_lrh *)buf, i);
		KUNIT_EXPECT_EQ(test, vmlx_icrc(buf, 24), 0x505503a8);
		KUNIT_EXPECT_EQ(test, vmlx_pkt_check(buf, 30), i == 0);
		/* what a switch does when it moves a packet to another VL */
		put_unaligned_le16(vmlx_vcrc(buf, 28), buf + 28);
		KUNIT_EXPECT_TRUE(test, vmlx_pkt_check(buf, 30));
		put_unaligned_le16(0x8130, buf + 28);
	}
}

/* A second VCRC: bit by bit, not reflected, on bit-reversed bytes. */
static u16 vmlx_ref_vcrc(const u8 *p, unsigned int len)
{
	u16 crc = 0xffff;
	unsigned int i, k;

	for (i = 0; i < len; i++) {
		u8 b = bitrev8(p[i]);

		for (k = 0; k < 8; k++) {
			bool fb = (crc >> 15) ^ ((b >> (7 - k)) & 1);

			crc <<= 1;
			if (fb)
				crc ^= 0x100b;
		}
	}
	return bitrev16(~crc);
}

/* A second CRC-32, the same way, over a copy masked byte by byte. */
static u32 vmlx_ref_icrc(const u8 *pkt, unsigned int len, u8 *tmp)
{
	unsigned int i, k, bth = 8;
	u32 crc = ~0U;

	memcpy(tmp, pkt, len);
	if ((tmp[1] & 3) == VMLX_LNH_IBA_GLOBAL) {
		memset(tmp, 0xff, 8);
		tmp[8] |= 0x0f;
		memset(tmp + 9, 0xff, 3);
		tmp[15] = 0xff;
		bth = 48;
	} else {
		tmp[0] |= 0xf0;
	}
	tmp[bth + 4] = 0xff;

	for (i = 0; i < len; i++) {
		u8 b = bitrev8(tmp[i]);

		for (k = 0; k < 8; k++) {
			bool fb = (crc >> 31) ^ ((b >> (7 - k)) & 1);

			crc <<= 1;
			if (fb)
				crc ^= 0x04c11db7;
		}
	}
	return bitrev32(~crc);
}

static void vmlx_wire_reference_test(struct kunit *test)
{
	unsigned int len, i;
	u32 seed = 1;
	u8 *pkt, *tmp;

	pkt = kunit_kmalloc(test, 300, GFP_KERNEL);
	tmp = kunit_kmalloc(test, 300, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pkt);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tmp);
	for (len = 0; len <= 300; len++) {
		for (i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			pkt[i] = seed >> 16;
		}
		KUNIT_EXPECT_EQ_MSG(test, vmlx_vcrc(pkt, len),
				    vmlx_ref_vcrc(pkt, len), "len %u", len);
		if (len < 60)
			continue;
		/* the same bytes as a local and as a global packet */
		pkt[1] = (pkt[1] & ~3) | VMLX_LNH_IBA_LOCAL;
		KUNIT_EXPECT_EQ_MSG(test, vmlx_icrc(pkt, len),
				    vmlx_ref_icrc(pkt, len, tmp), "len %u", len);
		pkt[1] |= VMLX_LNH_IBA_GLOBAL;
		KUNIT_EXPECT_EQ_MSG(test, vmlx_icrc(pkt, len),
				    vmlx_ref_icrc(pkt, len, tmp), "len %u", len);
	}
}

static void vmlx_wire_finalize_test(struct kunit *test)
{
	/* an RC ACK without its CRCs, room for them after it */
	u8 *buf = vmlx_copy(test, vmlx_pkt_rc_ack, sizeof(vmlx_pkt_rc_ack));
	struct vmlx_lrh *lrh = (struct vmlx_lrh *)buf;

	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 24), 30);
	KUNIT_EXPECT_TRUE(test, vmlx_pkt_check(buf, 30));

	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 22), -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 20), -EINVAL);
	/* PktLen must count what is there and the ICRC */
	vmlx_lrh_set_pktlen(lrh, 6);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 24), -EINVAL);
	KUNIT_EXPECT_FALSE(test, vmlx_pkt_check(buf, 30));
	vmlx_lrh_set_pktlen(lrh, 7);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 24), 30);
	VMLX_EXPECT_BYTES(test, buf, vmlx_pkt_rc_ack, 30, "");

	/* a global packet needs room for its GRH */
	vmlx_lrh_set_lnh(lrh, VMLX_LNH_IBA_GLOBAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 24), -EINVAL);
	KUNIT_EXPECT_FALSE(test, vmlx_pkt_check(buf, 30));

	/* a raw packet has no ICRC: PktLen counts up to the VCRC */
	vmlx_lrh_set_lnh(lrh, VMLX_LNH_RAW);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 24), -EINVAL);
	vmlx_lrh_set_pktlen(lrh, 6);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 28), -EINVAL);
	vmlx_lrh_set_pktlen(lrh, 7);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 28), 30);
	VMLX_EXPECT_BYTES(test, buf + 24, vmlx_pkt_rc_ack + 24, 4, "");
	KUNIT_EXPECT_EQ(test, get_unaligned_le16(buf + 28),
			vmlx_vcrc(buf, 28));
	KUNIT_EXPECT_TRUE(test, vmlx_pkt_check(buf, 30));
	buf[25] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, vmlx_pkt_check(buf, 30));
	vmlx_lrh_set_pktlen(lrh, 6);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_finalize(buf, 24), 26);
	KUNIT_EXPECT_TRUE(test, vmlx_pkt_check(buf, 26));

	/* lengths that do not match PktLen */
	KUNIT_EXPECT_FALSE(test, vmlx_pkt_check(vmlx_pkt_rc_ack, 0));
	KUNIT_EXPECT_FALSE(test, vmlx_pkt_check(vmlx_pkt_rc_ack, 9));
	KUNIT_EXPECT_FALSE(test, vmlx_pkt_check(vmlx_pkt_rc_ack, 29));
	KUNIT_EXPECT_FALSE(test, vmlx_pkt_check(vmlx_pkt_rc_send_only, 26));
}

/*
 * A sealed packet: the lengths checked as by finalize, the CRCs zero
 * until vmlx_pkt_fill_crcs() computes the ones finalize would have.
 */
static void vmlx_wire_seal_test(struct kunit *test)
{
	const struct vmlx_vector *v;
	unsigned int i;
	u8 *buf;

	for (i = 0; i < ARRAY_SIZE(vmlx_vectors); i++) {
		v = &vmlx_vectors[i];
		buf = vmlx_copy(test, v->pkt, v->len);
		memset(buf + v->len - 6, 0xa5, 6);
		KUNIT_EXPECT_EQ_MSG(test, vmlx_pkt_seal(buf, v->len - 6),
				    (int)v->len, "%s", v->name);
		KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(buf + v->len - 6, 0, 6),
				      "%s: CRC bytes not zeroed", v->name);
		KUNIT_EXPECT_TRUE_MSG(test, vmlx_pkt_check_len(buf, v->len),
				      "%s", v->name);
		KUNIT_EXPECT_FALSE_MSG(test, vmlx_pkt_check(buf, v->len),
				       "%s", v->name);
		vmlx_pkt_fill_crcs(buf, v->len);
		VMLX_EXPECT_BYTES(test, buf, v->pkt, v->len, "%s", v->name);
		KUNIT_EXPECT_FALSE_MSG(test, vmlx_pkt_check_len(buf, v->len - 1),
				       "%s", v->name);
		KUNIT_EXPECT_FALSE_MSG(test, vmlx_pkt_check_len(buf, v->len + 4),
				       "%s", v->name);
	}

	/* the same refusals as finalize; a raw packet seals only a VCRC */
	buf = vmlx_copy(test, vmlx_pkt_rc_ack, sizeof(vmlx_pkt_rc_ack));
	KUNIT_EXPECT_EQ(test, vmlx_pkt_seal(buf, 22), -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_seal(buf, 20), -EINVAL);
	vmlx_lrh_set_lnh((struct vmlx_lrh *)buf, VMLX_LNH_RAW);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_seal(buf, 24), -EINVAL);
	vmlx_lrh_set_pktlen((struct vmlx_lrh *)buf, 6);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_seal(buf, 24), 26);
	vmlx_pkt_fill_crcs(buf, 26);
	KUNIT_EXPECT_TRUE(test, vmlx_pkt_check(buf, 26));
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

static void vmlx_wire_parse_test(struct kunit *test)
{
	struct vmlx_pkt_layout lay;
	const struct vmlx_vector *v;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vmlx_vectors); i++) {
		v = &vmlx_vectors[i];
		memset(&lay, 0, sizeof(lay));
		KUNIT_ASSERT_EQ_MSG(test, vmlx_pkt_parse(v->pkt, v->len, &lay),
				    0, "%s", v->name);
		KUNIT_EXPECT_PTR_EQ_MSG(test, lay.op,
					vmlx_opcode_info(v->opcode), "%s",
					v->name);
		KUNIT_EXPECT_EQ_MSG(test, lay.bth, v->bth, "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, lay.global, v->bth == 48, "%s",
				    v->name);
		KUNIT_EXPECT_EQ_MSG(test, lay.payload, v->payload, "%s",
				    v->name);
		KUNIT_EXPECT_EQ_MSG(test, lay.payload_len, v->payload_len,
				    "%s", v->name);
	}
}

static int vmlx_parse_modified(struct kunit *test, const u8 *pkt,
			       unsigned int len, unsigned int byte, u8 val)
{
	struct vmlx_pkt_layout lay;
	u8 *buf = vmlx_copy(test, pkt, len);

	buf[byte] = val;
	return vmlx_pkt_parse(buf, len, &lay);
}

static void vmlx_wire_parse_malformed_test(struct kunit *test)
{
	const u8 *send = vmlx_pkt_rc_send_only, *ud = vmlx_pkt_ud_send_only_grh;
	const unsigned int send_len = sizeof(vmlx_pkt_rc_send_only);
	const unsigned int ud_len = sizeof(vmlx_pkt_ud_send_only_grh);
	struct vmlx_pkt_layout lay;

	/* lengths: what arrived against PktLen */
	KUNIT_EXPECT_EQ(test, vmlx_pkt_parse(send, 0, &lay), -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_parse(send, send_len - 1, &lay),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_parse(send, send_len - 4, &lay),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 5, 8),
			-EINVAL);
	/* PktLen 5 with 22 bytes: too short for LRH, BTH and ICRC */
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, 22, 5, 5),
			-EINVAL);
	/* raw packets, transport version 1 */
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 1, 0),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 1, 1),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 9,
						  0x41), -EPROTONOSUPPORT);
	/* unknown opcodes: reserved, RD */
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 8,
						  0x15), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 8,
						  0x44), -EOPNOTSUPP);
	/* headers that do not fit, a payload where there is none */
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 8,
						  VMLX_OPC_RC_RDMA_WRITE_FIRST),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			vmlx_parse_modified(test, vmlx_pkt_rc_write_first,
					    sizeof(vmlx_pkt_rc_write_first), 8,
					    VMLX_OPC_RC_ACKNOWLEDGE), -EINVAL);
	/* more pad than payload */
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, vmlx_pkt_rc_ack,
						  sizeof(vmlx_pkt_rc_ack), 9,
						  0x10), -EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, send, send_len, 9,
						  0x70), 0);
	/* GRH: IPVer, NxtHdr, PayLen, PktLen too short for it */
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, ud, ud_len, 8, 0x41),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, ud, ud_len, 14, 0x1c),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, ud, ud_len, 13, 0x1c),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, ud, 42, 5, 10),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_parse_modified(test, ud, 50, 5, 12),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vmlx_pkt_parse(ud, ud_len, &lay), 0);
}

/*
 * Every prefix of every vector, in a buffer of exactly its size and with
 * PktLen rewritten to agree where it can, through every function that
 * reads a packet: none may read past the end (KASAN watches).
 */
static void vmlx_wire_truncated_test(struct kunit *test)
{
	struct vmlx_pkt_layout lay;
	const struct vmlx_vector *v;
	unsigned int i, len;
	u8 *buf;

	for (i = 0; i < ARRAY_SIZE(vmlx_vectors); i++) {
		v = &vmlx_vectors[i];
		for (len = 0; len < v->len; len++) {
			buf = vmlx_copy(test, v->pkt, len);
			if (len >= 8)
				vmlx_lrh_set_pktlen((struct vmlx_lrh *)buf,
						    (len - 2) / 4);
			vmlx_pkt_parse(buf, len, &lay);
			KUNIT_EXPECT_FALSE_MSG(test, vmlx_pkt_check(buf, len),
					       "%s len %u", v->name, len);
			vmlx_icrc(buf, len);
			vmlx_vcrc(buf, len);
			kunit_kfree(test, buf);
		}
	}
}

/* ------------------------------------------------------------------ */
/* PSNs                                                                */
/* ------------------------------------------------------------------ */

static void vmlx_wire_psn_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0, 1), 1);
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0xffffff, 1), 0);
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(0xfffffe, 5), 3);
	KUNIT_EXPECT_EQ(test, vmlx_psn_add(5, 0xffffff), 4);	/* i.e. -1 */

	KUNIT_EXPECT_EQ(test, vmlx_psn_compare(0, 0), 0);
	KUNIT_EXPECT_EQ(test, vmlx_psn_compare(0xabcdef, 0xabcdef), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(1, 0), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0, 1), 0);
	/* at the wrap: 0 follows 0xffffff */
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0, 0xffffff), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0xffffff, 0), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(2, 0xfffffe), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0xfffff0, 0x000010), 0);
	/* up to half the circle away */
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x7fffff, 0), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0, 0x7fffff), 0);
	KUNIT_EXPECT_LT(test, vmlx_psn_compare(0x800000, 0), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x800001, 0x000002), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0x000000, 0x800001), 0);
	/* only 24 bits count */
	KUNIT_EXPECT_EQ(test, vmlx_psn_compare(0x1000000, 0), 0);
	KUNIT_EXPECT_GT(test, vmlx_psn_compare(0xff000001, 0), 0);
}

static struct kunit_case vmlx_wire_cases[] = {
	KUNIT_CASE(vmlx_wire_lrh_test),
	KUNIT_CASE(vmlx_wire_grh_test),
	KUNIT_CASE(vmlx_wire_bth_test),
	KUNIT_CASE(vmlx_wire_eth_test),
	KUNIT_CASE(vmlx_wire_opcode_table_test),
	KUNIT_CASE(vmlx_wire_opcode_spot_test),
	KUNIT_CASE(vmlx_wire_known_vectors_test),
	KUNIT_CASE(vmlx_wire_bit_flip_test),
	KUNIT_CASE(vmlx_wire_variant_fields_test),
	KUNIT_CASE(vmlx_wire_reference_test),
	KUNIT_CASE(vmlx_wire_finalize_test),
	KUNIT_CASE(vmlx_wire_seal_test),
	KUNIT_CASE(vmlx_wire_parse_test),
	KUNIT_CASE(vmlx_wire_parse_malformed_test),
	KUNIT_CASE(vmlx_wire_truncated_test),
	KUNIT_CASE(vmlx_wire_psn_test),
	{}
};

static struct kunit_suite vmlx_wire_suite = {
	.name = "vmlx_wire",
	.test_cases = vmlx_wire_cases,
};

kunit_test_suite(vmlx_wire_suite);

MODULE_DESCRIPTION("KUnit tests of the vmlx InfiniBand wire format");
MODULE_LICENSE("Dual BSD/GPL");
/* what the driver exports for the suites alone (VISIBLE_IF_KUNIT) */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
