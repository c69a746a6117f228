// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx: the two CRCs of an InfiniBand link layer packet (IBA Vol 1, 7.8).
 *
 * Invariant CRC (ICRC, 7.8.1): 32 bits, the CRC-32 of Ethernet (polynomial
 * 0x04C11DB7, register seeded with all ones, bits taken least significant
 * first, remainder inverted), over the packet from the first byte of the
 * LRH to the last byte of the pad, with the fields a switch or router may
 * change replaced by ones:
 *
 *	local packet (LNH = IBA local):  LRH:VL (the 4 high bits of byte 0;
 *					 LVer beside it is covered)
 *					 BTH:Resv8a
 *	global packet (LNH = IBA global): the whole LRH (routers rewrite it)
 *					 GRH:TClass, GRH:FlowLabel, GRH:HopLmt
 *					 BTH:Resv8a
 *
 * Variant CRC (VCRC, 7.8.2): 16 bits, polynomial x^16 + x^12 + x^3 + x + 1
 * (0x100B), seeded with all ones, bits taken least significant first,
 * remainder inverted, over everything from the first byte of the LRH to
 * the last byte of the ICRC, variant fields included.
 *
 * Both go on the wire least significant byte first, as Ethernet's FCS.
 *
 * Between two ports of this kernel no bit flips unless the corrupt knob
 * flips it, so a QP's packets are sealed without their CRCs
 * (vmlx_pkt_seal()) and received without checking them; the knob computes
 * them before it damages a packet (vmlx_pkt_fill_crcs()), and then the
 * receiver checks them.  Packets built elsewhere (the SMA's traps, the
 * KUnit suites) are finalized with their CRCs and always checked.
 *
 * Which fields are masked, the bit order and the byte order were checked
 * against packets captured on real InfiniBand hardware (the sample capture
 * infiniband.pcap of the Wireshark project, taken with an Endace probe):
 * the CRCs of all its 43 packets, local and global, VL 0 and VL 15, are
 * reproduced by these rules and by no variant of them.
 */
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include <kunit/visibility.h>

#include "vmlx_hdr.h"

/*
 * vmlx_vcrc_table[i]: the VCRC register after shifting in byte i, least
 * significant bit first, from zero; the reflected polynomial is 0xD008.
 */
static const u16 vmlx_vcrc_table[256] = {
	0x0000, 0x1ba1, 0x3742, 0x2ce3, 0x6e84, 0x7525, 0x59c6, 0x4267,
	0xdd08, 0xc6a9, 0xea4a, 0xf1eb, 0xb38c, 0xa82d, 0x84ce, 0x9f6f,
	0x1a01, 0x01a0, 0x2d43, 0x36e2, 0x7485, 0x6f24, 0x43c7, 0x5866,
	0xc709, 0xdca8, 0xf04b, 0xebea, 0xa98d, 0xb22c, 0x9ecf, 0x856e,
	0x3402, 0x2fa3, 0x0340, 0x18e1, 0x5a86, 0x4127, 0x6dc4, 0x7665,
	0xe90a, 0xf2ab, 0xde48, 0xc5e9, 0x878e, 0x9c2f, 0xb0cc, 0xab6d,
	0x2e03, 0x35a2, 0x1941, 0x02e0, 0x4087, 0x5b26, 0x77c5, 0x6c64,
	0xf30b, 0xe8aa, 0xc449, 0xdfe8, 0x9d8f, 0x862e, 0xaacd, 0xb16c,
	0x6804, 0x73a5, 0x5f46, 0x44e7, 0x0680, 0x1d21, 0x31c2, 0x2a63,
	0xb50c, 0xaead, 0x824e, 0x99ef, 0xdb88, 0xc029, 0xecca, 0xf76b,
	0x7205, 0x69a4, 0x4547, 0x5ee6, 0x1c81, 0x0720, 0x2bc3, 0x3062,
	0xaf0d, 0xb4ac, 0x984f, 0x83ee, 0xc189, 0xda28, 0xf6cb, 0xed6a,
	0x5c06, 0x47a7, 0x6b44, 0x70e5, 0x3282, 0x2923, 0x05c0, 0x1e61,
	0x810e, 0x9aaf, 0xb64c, 0xaded, 0xef8a, 0xf42b, 0xd8c8, 0xc369,
	0x4607, 0x5da6, 0x7145, 0x6ae4, 0x2883, 0x3322, 0x1fc1, 0x0460,
	0x9b0f, 0x80ae, 0xac4d, 0xb7ec, 0xf58b, 0xee2a, 0xc2c9, 0xd968,
	0xd008, 0xcba9, 0xe74a, 0xfceb, 0xbe8c, 0xa52d, 0x89ce, 0x926f,
	0x0d00, 0x16a1, 0x3a42, 0x21e3, 0x6384, 0x7825, 0x54c6, 0x4f67,
	0xca09, 0xd1a8, 0xfd4b, 0xe6ea, 0xa48d, 0xbf2c, 0x93cf, 0x886e,
	0x1701, 0x0ca0, 0x2043, 0x3be2, 0x7985, 0x6224, 0x4ec7, 0x5566,
	0xe40a, 0xffab, 0xd348, 0xc8e9, 0x8a8e, 0x912f, 0xbdcc, 0xa66d,
	0x3902, 0x22a3, 0x0e40, 0x15e1, 0x5786, 0x4c27, 0x60c4, 0x7b65,
	0xfe0b, 0xe5aa, 0xc949, 0xd2e8, 0x908f, 0x8b2e, 0xa7cd, 0xbc6c,
	0x2303, 0x38a2, 0x1441, 0x0fe0, 0x4d87, 0x5626, 0x7ac5, 0x6164,
	0xb80c, 0xa3ad, 0x8f4e, 0x94ef, 0xd688, 0xcd29, 0xe1ca, 0xfa6b,
	0x6504, 0x7ea5, 0x5246, 0x49e7, 0x0b80, 0x1021, 0x3cc2, 0x2763,
	0xa20d, 0xb9ac, 0x954f, 0x8eee, 0xcc89, 0xd728, 0xfbcb, 0xe06a,
	0x7f05, 0x64a4, 0x4847, 0x53e6, 0x1181, 0x0a20, 0x26c3, 0x3d62,
	0x8c0e, 0x97af, 0xbb4c, 0xa0ed, 0xe28a, 0xf92b, 0xd5c8, 0xce69,
	0x5106, 0x4aa7, 0x6644, 0x7de5, 0x3f82, 0x2423, 0x08c0, 0x1361,
	0x960f, 0x8dae, 0xa14d, 0xbaec, 0xf88b, 0xe32a, 0xcfc9, 0xd468,
	0x4b07, 0x50a6, 0x7c45, 0x67e4, 0x2583, 0x3e22, 0x12c1, 0x0960,
};

/* The masked copy of the headers the variant fields live in. */
#define VMLX_ICRC_HDR_BYTES	(VMLX_LRH_BYTES + VMLX_GRH_BYTES + \
				 VMLX_BTH_BYTES)

/**
 * vmlx_icrc() - compute the Invariant CRC of a packet
 * @pkt: the packet, from the first byte of the LRH
 * @len: the number of bytes the ICRC covers: LRH through the pad
 *	(LRH:PktLen * 4 - 4)
 *
 * The packet must be an IBA transport packet (LRH:LNH IBA local or IBA
 * global); raw packets have no ICRC.  Any @len is safe: a packet too
 * short to hold its headers gets the CRC of what there is, masked where
 * the variant fields would be.
 *
 * Return: the ICRC, to be sent least significant byte first
 * (put_unaligned_le32()).
 */
VISIBLE_IF_KUNIT u32 vmlx_icrc(const void *pkt, unsigned int len)
{
	u8 hdr[VMLX_ICRC_HDR_BYTES] = {};
	struct vmlx_lrh *lrh = (struct vmlx_lrh *)hdr;
	struct vmlx_grh *grh;
	struct vmlx_bth *bth;
	unsigned int n;
	u32 crc;

	n = min_t(unsigned int, len, sizeof(hdr));
	memcpy(hdr, pkt, n);
	if (vmlx_lrh_lnh(lrh) == VMLX_LNH_IBA_GLOBAL) {
		grh = (struct vmlx_grh *)(hdr + VMLX_LRH_BYTES);
		bth = (struct vmlx_bth *)(grh + 1);
		memset(lrh, 0xff, sizeof(*lrh));
		/* TClass and FlowLabel; IPVer stays */
		grh->ver_tclass_flow |= cpu_to_be32(GENMASK(27, 0));
		grh->hoplmt = 0xff;
	} else {
		n = min_t(unsigned int, n, VMLX_LRH_BYTES + VMLX_BTH_BYTES);
		bth = (struct vmlx_bth *)(lrh + 1);
		vmlx_lrh_set_vl(lrh, 0xf);
	}
	/* Resv8a */
	bth->qpn |= cpu_to_be32(GENMASK(31, 24));

	crc = crc32_le(~0U, hdr, n);
	crc = crc32_le(crc, pkt + n, len - n);
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_icrc);

/**
 * vmlx_vcrc() - compute the Variant CRC of a packet
 * @pkt: the packet, from the first byte of the LRH
 * @len: the number of bytes the VCRC covers: LRH through the ICRC
 *	(LRH:PktLen * 4)
 *
 * Return: the VCRC, to be sent least significant byte first
 * (put_unaligned_le16()).
 */
VISIBLE_IF_KUNIT u16 vmlx_vcrc(const void *pkt, unsigned int len)
{
	const u8 *p = pkt;
	u16 crc = 0xffff;

	while (len--)
		crc = (crc >> 8) ^ vmlx_vcrc_table[(crc ^ *p++) & 0xff];
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_vcrc);

/* The least a packet can be, LRH through ICRC, without its payload. */
static unsigned int vmlx_pkt_min_len(u8 lnh)
{
	switch (lnh) {
	case VMLX_LNH_IBA_LOCAL:
		return VMLX_LRH_BYTES + VMLX_BTH_BYTES + VMLX_ICRC_BYTES;
	case VMLX_LNH_IBA_GLOBAL:
		return VMLX_LRH_BYTES + VMLX_GRH_BYTES + VMLX_BTH_BYTES +
		       VMLX_ICRC_BYTES;
	default:
		return VMLX_LRH_BYTES;
	}
}

/*
 * The bytes the VCRC of a packet of @len bytes (LRH through the pad)
 * covers, LRH through the ICRC if it has one, or -EINVAL if @len is not a
 * whole number of 4-byte words, is too short for the headers LRH:LNH
 * announces or disagrees with LRH:PktLen.
 */
static int vmlx_pkt_crc_end(const void *pkt, unsigned int len)
{
	const struct vmlx_lrh *lrh = pkt;
	unsigned int end;
	u8 lnh;

	if (len < VMLX_LRH_BYTES || len % 4 || len > VMLX_PKTLEN_MAX * 4)
		return -EINVAL;
	lnh = vmlx_lrh_lnh(lrh);
	end = len;
	if (lnh >= VMLX_LNH_IBA_LOCAL)
		end += VMLX_ICRC_BYTES;
	if (end < vmlx_pkt_min_len(lnh) || vmlx_lrh_pktlen(lrh) * 4 != end)
		return -EINVAL;
	return end;
}

/**
 * vmlx_pkt_finalize() - append the ICRC and the VCRC to a packet
 * @pkt: the packet, from the first byte of the LRH, with room for
 *	%VMLX_CRC_BYTES more bytes after the first @len
 * @len: the packet's length so far: LRH through the pad
 *
 * The headers must be complete, LRH:PktLen included: it must count @len
 * and the ICRC.  A raw packet (LRH:LNH raw or IPv6) has no ICRC, so it
 * gets only the VCRC and its PktLen counts @len alone.
 *
 * Return: the length of the finished packet, VCRC included, or -EINVAL
 * if @len is not a whole number of 4-byte words, is too short for the
 * headers LRH:LNH announces or disagrees with LRH:PktLen.
 */
int vmlx_pkt_finalize(void *pkt, unsigned int len)
{
	int end = vmlx_pkt_crc_end(pkt, len);

	if (end < 0)
		return end;
	if (end != len)
		put_unaligned_le32(vmlx_icrc(pkt, len), pkt + len);
	put_unaligned_le16(vmlx_vcrc(pkt, end), pkt + end);
	return end + VMLX_VCRC_BYTES;
}

/**
 * vmlx_pkt_seal() - close a packet without computing its CRCs
 * @pkt: as for vmlx_pkt_finalize()
 * @len: as for vmlx_pkt_finalize()
 *
 * Checks the packet as vmlx_pkt_finalize() does and makes room for its
 * CRCs, which are left zero: for a packet that nothing but this kernel's
 * own receive path will see, and that can only be damaged on the way by
 * the corrupt knob, which calls vmlx_pkt_fill_crcs() first.
 *
 * Return: as vmlx_pkt_finalize().
 */
int vmlx_pkt_seal(void *pkt, unsigned int len)
{
	int end = vmlx_pkt_crc_end(pkt, len);

	if (end < 0)
		return end;
	memset(pkt + len, 0, end + VMLX_VCRC_BYTES - len);
	return end + VMLX_VCRC_BYTES;
}

/**
 * vmlx_pkt_fill_crcs() - compute the CRCs of a sealed packet
 * @pkt: a packet from vmlx_pkt_seal(), from the first byte of the LRH
 * @len: its whole length, what vmlx_pkt_seal() returned
 */
void vmlx_pkt_fill_crcs(void *pkt, unsigned int len)
{
	unsigned int end = len - VMLX_VCRC_BYTES;

	if (vmlx_lrh_lnh(pkt) >= VMLX_LNH_IBA_LOCAL)
		put_unaligned_le32(vmlx_icrc(pkt, end - VMLX_ICRC_BYTES),
				   pkt + end - VMLX_ICRC_BYTES);
	put_unaligned_le16(vmlx_vcrc(pkt, end), pkt + end);
}

/**
 * vmlx_pkt_check_len() - check the length of a received packet
 * @pkt: the packet, from the first byte of the LRH
 * @len: the bytes received, VCRC included
 *
 * Return: true if LRH:PktLen agrees with @len and leaves room for the
 * headers LRH:LNH announces.
 */
bool vmlx_pkt_check_len(const void *pkt, unsigned int len)
{
	const struct vmlx_lrh *lrh = pkt;
	unsigned int end;

	if (len < VMLX_LRH_BYTES + VMLX_VCRC_BYTES)
		return false;
	end = vmlx_lrh_pktlen(lrh) * 4;
	return end + VMLX_VCRC_BYTES == len &&
	       end >= vmlx_pkt_min_len(vmlx_lrh_lnh(lrh));
}

/**
 * vmlx_pkt_check() - check the length and the CRCs of a received packet
 * @pkt: the packet, from the first byte of the LRH
 * @len: the bytes received, VCRC included
 *
 * Return: true if LRH:PktLen agrees with @len, the VCRC is right and, for
 * an IBA transport packet, so is the ICRC.
 */
bool vmlx_pkt_check(const void *pkt, unsigned int len)
{
	unsigned int end;

	if (!vmlx_pkt_check_len(pkt, len))
		return false;
	end = len - VMLX_VCRC_BYTES;
	if (vmlx_vcrc(pkt, end) != get_unaligned_le16(pkt + end))
		return false;
	if (vmlx_lrh_lnh(pkt) < VMLX_LNH_IBA_LOCAL)
		return true;
	end -= VMLX_ICRC_BYTES;
	return vmlx_icrc(pkt, end) == get_unaligned_le32(pkt + end);
}
