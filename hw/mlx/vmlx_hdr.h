/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vmlx: the InfiniBand wire format.
 *
 * Packets on a vmlx link are real IB link layer packets (IBA Vol 1,
 * chapters 7 to 9):
 *
 *	LRH [GRH] BTH [extension headers] [payload] [pad] ICRC VCRC
 *
 * Every multi-byte field is big endian on the wire.  The structures below
 * have the wire layout, with __be16/__be32/__be64 members so that sparse
 * catches a missing conversion; fields narrower than a byte or sharing a
 * word with another field are read and written only through the inline
 * helpers.  Headers sit at offsets that are multiples of 4 (not of 8), so
 * every structure is packed.
 */
#ifndef VMLX_HDR_H
#define VMLX_HDR_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define VMLX_LRH_BYTES		8
#define VMLX_GRH_BYTES		40
#define VMLX_BTH_BYTES		12
#define VMLX_DETH_BYTES		8
#define VMLX_RETH_BYTES		16
#define VMLX_ATMETH_BYTES	28
#define VMLX_AETH_BYTES		4
#define VMLX_ATMACKETH_BYTES	8
#define VMLX_IMMDT_BYTES	4
#define VMLX_IETH_BYTES		4
#define VMLX_ICRC_BYTES		4
#define VMLX_VCRC_BYTES		2

/* Both CRCs, the room a packet needs after its last payload byte. */
#define VMLX_CRC_BYTES		(VMLX_ICRC_BYTES + VMLX_VCRC_BYTES)

/* PSNs, QPNs and MSNs are 24-bit fields. */
#define VMLX_PSN_MASK		GENMASK(23, 0)
#define VMLX_QPN_MASK		GENMASK(23, 0)
#define VMLX_MSN_MASK		GENMASK(23, 0)

/* ------------------------------------------------------------------ */
/* Local Route Header, IBA 7.7                                         */
/* ------------------------------------------------------------------ */

/* LRH:LNH, IBA 7.7.5: what follows the LRH. */
#define VMLX_LNH_RAW		0	/* raw packet, no IBA transport */
#define VMLX_LNH_IPV6		1	/* raw IPv6 packet */
#define VMLX_LNH_IBA_LOCAL	2	/* BTH follows */
#define VMLX_LNH_IBA_GLOBAL	3	/* GRH, then BTH, follow */

/* LRH:PktLen is 11 bits of 4-byte words, LRH through ICRC (IBA 7.7.8). */
#define VMLX_PKTLEN_MAX		0x7ff

/**
 * struct vmlx_lrh - Local Route Header (IBA 7.7, 8 bytes)
 * @vl_lver: VL (bits 7-4, IBA 7.7.1), LVer (bits 3-0, IBA 7.7.2)
 * @sl_lnh: SL (bits 7-4, IBA 7.7.3), reserved (bits 3-2), LNH (bits 1-0)
 * @dlid: DLID, destination LID (IBA 7.7.6)
 * @pktlen: reserved (bits 15-11), PktLen (bits 10-0, IBA 7.7.8): the
 *	length of the packet from the first byte of the LRH to the last
 *	byte before the VCRC, in 4-byte words
 * @slid: SLID, source LID (IBA 7.7.7)
 */
struct vmlx_lrh {
	u8	vl_lver;
	u8	sl_lnh;
	__be16	dlid;
	__be16	pktlen;
	__be16	slid;
} __packed;

static inline u8 vmlx_lrh_vl(const struct vmlx_lrh *lrh)
{
	return lrh->vl_lver >> 4;
}

static inline void vmlx_lrh_set_vl(struct vmlx_lrh *lrh, u8 vl)
{
	lrh->vl_lver = (lrh->vl_lver & 0x0f) | (vl << 4);
}

static inline u8 vmlx_lrh_lver(const struct vmlx_lrh *lrh)
{
	return lrh->vl_lver & 0x0f;
}

static inline void vmlx_lrh_set_lver(struct vmlx_lrh *lrh, u8 lver)
{
	lrh->vl_lver = (lrh->vl_lver & 0xf0) | (lver & 0x0f);
}

static inline u8 vmlx_lrh_sl(const struct vmlx_lrh *lrh)
{
	return lrh->sl_lnh >> 4;
}

static inline void vmlx_lrh_set_sl(struct vmlx_lrh *lrh, u8 sl)
{
	lrh->sl_lnh = (lrh->sl_lnh & 0x0f) | (sl << 4);
}

static inline u8 vmlx_lrh_lnh(const struct vmlx_lrh *lrh)
{
	return lrh->sl_lnh & 0x03;
}

static inline void vmlx_lrh_set_lnh(struct vmlx_lrh *lrh, u8 lnh)
{
	lrh->sl_lnh = (lrh->sl_lnh & 0xfc) | (lnh & 0x03);
}

static inline u16 vmlx_lrh_dlid(const struct vmlx_lrh *lrh)
{
	return be16_to_cpu(lrh->dlid);
}

static inline void vmlx_lrh_set_dlid(struct vmlx_lrh *lrh, u16 dlid)
{
	lrh->dlid = cpu_to_be16(dlid);
}

/* PktLen in 4-byte words; the 5 reserved bits are sent as zero. */
static inline u16 vmlx_lrh_pktlen(const struct vmlx_lrh *lrh)
{
	return be16_to_cpu(lrh->pktlen) & VMLX_PKTLEN_MAX;
}

static inline void vmlx_lrh_set_pktlen(struct vmlx_lrh *lrh, u16 words)
{
	lrh->pktlen = cpu_to_be16(words & VMLX_PKTLEN_MAX);
}

static inline u16 vmlx_lrh_slid(const struct vmlx_lrh *lrh)
{
	return be16_to_cpu(lrh->slid);
}

static inline void vmlx_lrh_set_slid(struct vmlx_lrh *lrh, u16 slid)
{
	lrh->slid = cpu_to_be16(slid);
}

/* ------------------------------------------------------------------ */
/* Global Route Header, IBA 8.3                                        */
/* ------------------------------------------------------------------ */

#define VMLX_GRH_IPVER		6	/* GRH:IPVer, IBA 8.3.1 */
#define VMLX_GRH_NXTHDR_IBA	0x1b	/* GRH:NxtHdr of IBA transport, 8.3.1 */

/**
 * struct vmlx_grh - Global Route Header (IBA 8.3, 40 bytes)
 * @ver_tclass_flow: IPVer (bits 31-28), TClass (bits 27-20),
 *	FlowLabel (bits 19-0)
 * @paylen: PayLen: bytes from the first byte after the GRH up to and
 *	including the last byte of the ICRC
 * @nxthdr: NxtHdr, %VMLX_GRH_NXTHDR_IBA for IBA transport
 * @hoplmt: HopLmt
 * @sgid: SGID, as in &union ib_gid.raw
 * @dgid: DGID, likewise
 *
 * The layout is that of an IPv6 header.
 */
struct vmlx_grh {
	__be32	ver_tclass_flow;
	__be16	paylen;
	u8	nxthdr;
	u8	hoplmt;
	u8	sgid[16];
	u8	dgid[16];
} __packed;

static inline u8 vmlx_grh_ipver(const struct vmlx_grh *grh)
{
	return be32_to_cpu(grh->ver_tclass_flow) >> 28;
}

static inline void vmlx_grh_set_ipver(struct vmlx_grh *grh, u8 ipver)
{
	u32 w = be32_to_cpu(grh->ver_tclass_flow) & ~GENMASK(31, 28);

	grh->ver_tclass_flow = cpu_to_be32(w | (u32)(ipver & 0x0f) << 28);
}

static inline u8 vmlx_grh_tclass(const struct vmlx_grh *grh)
{
	return (be32_to_cpu(grh->ver_tclass_flow) >> 20) & 0xff;
}

static inline void vmlx_grh_set_tclass(struct vmlx_grh *grh, u8 tclass)
{
	u32 w = be32_to_cpu(grh->ver_tclass_flow) & ~GENMASK(27, 20);

	grh->ver_tclass_flow = cpu_to_be32(w | (u32)tclass << 20);
}

static inline u32 vmlx_grh_flow_label(const struct vmlx_grh *grh)
{
	return be32_to_cpu(grh->ver_tclass_flow) & GENMASK(19, 0);
}

static inline void vmlx_grh_set_flow_label(struct vmlx_grh *grh, u32 flow)
{
	u32 w = be32_to_cpu(grh->ver_tclass_flow) & ~GENMASK(19, 0);

	grh->ver_tclass_flow = cpu_to_be32(w | (flow & GENMASK(19, 0)));
}

static inline u16 vmlx_grh_paylen(const struct vmlx_grh *grh)
{
	return be16_to_cpu(grh->paylen);
}

static inline void vmlx_grh_set_paylen(struct vmlx_grh *grh, u16 paylen)
{
	grh->paylen = cpu_to_be16(paylen);
}

/* NxtHdr, HopLmt, SGID and DGID are bytes: use the members directly. */

/* ------------------------------------------------------------------ */
/* Base Transport Header, IBA 9.2                                      */
/* ------------------------------------------------------------------ */

#define VMLX_BTH_TVER		0	/* BTH:TVer, IBA 9.2.4 */

/**
 * struct vmlx_bth - Base Transport Header (IBA 9.2, 12 bytes)
 * @opcode: OpCode (IBA 9.2.1): transport service (bits 7-5) and
 *	operation (bits 4-0); see &struct vmlx_opcode_info
 * @flags: SE (bit 7, 9.2.2), M (bit 6, MigReq, 9.2.3), PadCnt (bits 5-4,
 *	9.2.3), TVer (bits 3-0, 9.2.4)
 * @pkey: P_Key (IBA 9.2.5)
 * @qpn: Resv8a (bits 31-24, a variant field), DestQP (bits 23-0, 9.2.6)
 * @apsn: AckReq (bit 31, 9.2.7), reserved (bits 30-24), PSN (bits 23-0,
 *	9.2.8)
 */
struct vmlx_bth {
	u8	opcode;
	u8	flags;
	__be16	pkey;
	__be32	qpn;
	__be32	apsn;
} __packed;

#define VMLX_BTH_SE		BIT(7)
#define VMLX_BTH_MIG		BIT(6)
#define VMLX_BTH_ACKREQ		BIT(31)

static inline u8 vmlx_bth_opcode(const struct vmlx_bth *bth)
{
	return bth->opcode;
}

static inline void vmlx_bth_set_opcode(struct vmlx_bth *bth, u8 opcode)
{
	bth->opcode = opcode;
}

static inline bool vmlx_bth_se(const struct vmlx_bth *bth)
{
	return bth->flags & VMLX_BTH_SE;
}

static inline void vmlx_bth_set_se(struct vmlx_bth *bth, bool se)
{
	bth->flags = (bth->flags & ~VMLX_BTH_SE) | (se ? VMLX_BTH_SE : 0);
}

static inline bool vmlx_bth_mig(const struct vmlx_bth *bth)
{
	return bth->flags & VMLX_BTH_MIG;
}

static inline void vmlx_bth_set_mig(struct vmlx_bth *bth, bool mig)
{
	bth->flags = (bth->flags & ~VMLX_BTH_MIG) | (mig ? VMLX_BTH_MIG : 0);
}

/* PadCnt: 0-3 bytes of pad after the payload, to a 4-byte boundary. */
static inline u8 vmlx_bth_padcnt(const struct vmlx_bth *bth)
{
	return (bth->flags >> 4) & 0x03;
}

static inline void vmlx_bth_set_padcnt(struct vmlx_bth *bth, u8 padcnt)
{
	bth->flags = (bth->flags & 0xcf) | ((padcnt & 0x03) << 4);
}

static inline u8 vmlx_bth_tver(const struct vmlx_bth *bth)
{
	return bth->flags & 0x0f;
}

static inline void vmlx_bth_set_tver(struct vmlx_bth *bth, u8 tver)
{
	bth->flags = (bth->flags & 0xf0) | (tver & 0x0f);
}

static inline u16 vmlx_bth_pkey(const struct vmlx_bth *bth)
{
	return be16_to_cpu(bth->pkey);
}

static inline void vmlx_bth_set_pkey(struct vmlx_bth *bth, u16 pkey)
{
	bth->pkey = cpu_to_be16(pkey);
}

/* Resv8a is sent as zero; only the ICRC computation looks at it. */
static inline u32 vmlx_bth_qpn(const struct vmlx_bth *bth)
{
	return be32_to_cpu(bth->qpn) & VMLX_QPN_MASK;
}

static inline void vmlx_bth_set_qpn(struct vmlx_bth *bth, u32 qpn)
{
	bth->qpn = cpu_to_be32(qpn & VMLX_QPN_MASK);
}

static inline bool vmlx_bth_ackreq(const struct vmlx_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VMLX_BTH_ACKREQ;
}

static inline void vmlx_bth_set_ackreq(struct vmlx_bth *bth, bool ackreq)
{
	u32 w = be32_to_cpu(bth->apsn) & ~VMLX_BTH_ACKREQ;

	bth->apsn = cpu_to_be32(w | (ackreq ? VMLX_BTH_ACKREQ : 0));
}

static inline u32 vmlx_bth_psn(const struct vmlx_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VMLX_PSN_MASK;
}

/* Also clears the 7 reserved bits. */
static inline void vmlx_bth_set_psn(struct vmlx_bth *bth, u32 psn)
{
	u32 w = be32_to_cpu(bth->apsn) & VMLX_BTH_ACKREQ;

	bth->apsn = cpu_to_be32(w | (psn & VMLX_PSN_MASK));
}

/* ------------------------------------------------------------------ */
/* Extended transport headers, IBA 9.3                                 */
/* ------------------------------------------------------------------ */

/**
 * struct vmlx_deth - Datagram Extended Transport Header (IBA 9.3.3, 8 bytes)
 * @qkey: Q_Key
 * @sqpn: reserved (bits 31-24), SrcQP (bits 23-0)
 */
struct vmlx_deth {
	__be32	qkey;
	__be32	sqpn;
} __packed;

static inline u32 vmlx_deth_qkey(const struct vmlx_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

static inline void vmlx_deth_set_qkey(struct vmlx_deth *deth, u32 qkey)
{
	deth->qkey = cpu_to_be32(qkey);
}

static inline u32 vmlx_deth_sqpn(const struct vmlx_deth *deth)
{
	return be32_to_cpu(deth->sqpn) & VMLX_QPN_MASK;
}

static inline void vmlx_deth_set_sqpn(struct vmlx_deth *deth, u32 sqpn)
{
	deth->sqpn = cpu_to_be32(sqpn & VMLX_QPN_MASK);
}

/**
 * struct vmlx_reth - RDMA Extended Transport Header (IBA 9.3.4, 16 bytes)
 * @va: VA, the remote virtual address
 * @rkey: R_Key
 * @len: DMALen, the length of the whole RDMA operation in bytes
 */
struct vmlx_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;
} __packed;

static inline u64 vmlx_reth_va(const struct vmlx_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline void vmlx_reth_set_va(struct vmlx_reth *reth, u64 va)
{
	reth->va = cpu_to_be64(va);
}

static inline u32 vmlx_reth_rkey(const struct vmlx_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline void vmlx_reth_set_rkey(struct vmlx_reth *reth, u32 rkey)
{
	reth->rkey = cpu_to_be32(rkey);
}

static inline u32 vmlx_reth_len(const struct vmlx_reth *reth)
{
	return be32_to_cpu(reth->len);
}

static inline void vmlx_reth_set_len(struct vmlx_reth *reth, u32 len)
{
	reth->len = cpu_to_be32(len);
}

/**
 * struct vmlx_atmeth - Atomic Extended Transport Header (IBA 9.3.5, 28 bytes)
 * @va: VA, the remote virtual address (8-byte aligned)
 * @rkey: R_Key
 * @swap_add: SwapData, or the addend of a FetchAdd
 * @compare: CompareData of a CmpSwap
 */
struct vmlx_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	compare;
} __packed;

static inline u64 vmlx_atmeth_va(const struct vmlx_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->va);
}

static inline void vmlx_atmeth_set_va(struct vmlx_atmeth *atmeth, u64 va)
{
	atmeth->va = cpu_to_be64(va);
}

static inline u32 vmlx_atmeth_rkey(const struct vmlx_atmeth *atmeth)
{
	return be32_to_cpu(atmeth->rkey);
}

static inline void vmlx_atmeth_set_rkey(struct vmlx_atmeth *atmeth, u32 rkey)
{
	atmeth->rkey = cpu_to_be32(rkey);
}

static inline u64 vmlx_atmeth_swap_add(const struct vmlx_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->swap_add);
}

static inline void vmlx_atmeth_set_swap_add(struct vmlx_atmeth *atmeth,
					    u64 swap_add)
{
	atmeth->swap_add = cpu_to_be64(swap_add);
}

static inline u64 vmlx_atmeth_compare(const struct vmlx_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->compare);
}

static inline void vmlx_atmeth_set_compare(struct vmlx_atmeth *atmeth,
					   u64 compare)
{
	atmeth->compare = cpu_to_be64(compare);
}

/*
 * AETH:Syndrome (IBA 9.7.5.1, table 44): bit 7 reserved, bits 6-5 the
 * type, bits 4-0 the credit count of an ACK, the timer code of an RNR NAK
 * or the NAK code of a NAK.
 */
#define VMLX_AETH_TYPE_MASK	0x60
#define VMLX_AETH_ACK		0x00
#define VMLX_AETH_RNR_NAK	0x20
#define VMLX_AETH_NAK		0x60
#define VMLX_AETH_VALUE_MASK	0x1f

#define VMLX_AETH_CREDIT_INVALID	0x1f	/* ACK: no credit count */

#define VMLX_AETH_NAK_PSN_SEQ		0	/* PSN sequence error */
#define VMLX_AETH_NAK_INVALID_REQ	1	/* invalid request */
#define VMLX_AETH_NAK_REM_ACCESS	2	/* remote access error */
#define VMLX_AETH_NAK_REM_OP		3	/* remote operational error */
#define VMLX_AETH_NAK_INVALID_RD	4	/* invalid RD request */

/**
 * struct vmlx_aeth - ACK Extended Transport Header (IBA 9.3.6, 4 bytes)
 * @smsn: Syndrome (bits 31-24), MSN (bits 23-0)
 */
struct vmlx_aeth {
	__be32	smsn;
} __packed;

static inline u8 vmlx_aeth_syndrome(const struct vmlx_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> 24;
}

static inline void vmlx_aeth_set_syndrome(struct vmlx_aeth *aeth, u8 syn)
{
	u32 w = be32_to_cpu(aeth->smsn) & VMLX_MSN_MASK;

	aeth->smsn = cpu_to_be32(w | (u32)syn << 24);
}

static inline u32 vmlx_aeth_msn(const struct vmlx_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) & VMLX_MSN_MASK;
}

static inline void vmlx_aeth_set_msn(struct vmlx_aeth *aeth, u32 msn)
{
	u32 w = be32_to_cpu(aeth->smsn) & ~VMLX_MSN_MASK;

	aeth->smsn = cpu_to_be32(w | (msn & VMLX_MSN_MASK));
}

/**
 * struct vmlx_atmacketh - Atomic ACK Extended Transport Header
 *	(IBA 9.3.7, 8 bytes)
 * @orig: OrigRemoteData, the remote value before the atomic operation
 */
struct vmlx_atmacketh {
	__be64	orig;
} __packed;

static inline u64 vmlx_atmacketh_orig(const struct vmlx_atmacketh *ack)
{
	return be64_to_cpu(ack->orig);
}

static inline void vmlx_atmacketh_set_orig(struct vmlx_atmacketh *ack,
					   u64 orig)
{
	ack->orig = cpu_to_be64(orig);
}

/**
 * struct vmlx_immdt - Immediate Data Extended Transport Header
 *	(IBA 9.3.8, 4 bytes)
 * @imm: ImmDt, opaque to the transport: it stays big endian, as the
 *	verbs API hands it over (&ib_send_wr.ex.imm_data is __be32 too)
 */
struct vmlx_immdt {
	__be32	imm;
} __packed;

/**
 * struct vmlx_ieth - Invalidate Extended Transport Header
 *	(IBA 9.3.9, 4 bytes)
 * @rkey: R_Key to invalidate
 */
struct vmlx_ieth {
	__be32	rkey;
} __packed;

static inline u32 vmlx_ieth_rkey(const struct vmlx_ieth *ieth)
{
	return be32_to_cpu(ieth->rkey);
}

static inline void vmlx_ieth_set_rkey(struct vmlx_ieth *ieth, u32 rkey)
{
	ieth->rkey = cpu_to_be32(rkey);
}

static_assert(sizeof(struct vmlx_lrh) == VMLX_LRH_BYTES);
static_assert(sizeof(struct vmlx_grh) == VMLX_GRH_BYTES);
static_assert(sizeof(struct vmlx_bth) == VMLX_BTH_BYTES);
static_assert(sizeof(struct vmlx_deth) == VMLX_DETH_BYTES);
static_assert(sizeof(struct vmlx_reth) == VMLX_RETH_BYTES);
static_assert(sizeof(struct vmlx_atmeth) == VMLX_ATMETH_BYTES);
static_assert(sizeof(struct vmlx_aeth) == VMLX_AETH_BYTES);
static_assert(sizeof(struct vmlx_atmacketh) == VMLX_ATMACKETH_BYTES);
static_assert(sizeof(struct vmlx_immdt) == VMLX_IMMDT_BYTES);
static_assert(sizeof(struct vmlx_ieth) == VMLX_IETH_BYTES);

/* ------------------------------------------------------------------ */
/* PSN arithmetic (IBA 9.7.1: PSNs count modulo 2^24)                  */
/* ------------------------------------------------------------------ */

static inline u32 vmlx_psn_add(u32 psn, u32 n)
{
	return (psn + n) & VMLX_PSN_MASK;
}

/* How many PSNs @b is before @a, modulo 2^24. */
static inline u32 vmlx_psn_sub(u32 a, u32 b)
{
	return (a - b) & VMLX_PSN_MASK;
}

/*
 * vmlx_psn_compare() - order two PSNs on the 24-bit circle: negative if
 * @a comes before @b, zero if they are equal, positive if @a comes after
 * @b, for PSNs less than 2^23 apart (a PSN exactly 2^23 after another
 * counts as before it).  Only the low 24 bits of each are looked at.
 */
static inline int vmlx_psn_compare(u32 a, u32 b)
{
	return (s32)((a - b) << 8);
}

/* ------------------------------------------------------------------ */
/* Opcodes, IBA 9.2.1 table 38 (vmlx_opcode.c)                         */
/* ------------------------------------------------------------------ */

#define VMLX_OPC_SERVICE_MASK	0xe0	/* OpCode[7:5], transport service */
#define VMLX_OPC_RC		0x00
#define VMLX_OPC_UC		0x20
#define VMLX_OPC_RD		0x40
#define VMLX_OPC_UD		0x60

enum vmlx_opcode {
	VMLX_OPC_RC_SEND_FIRST				= 0x00,
	VMLX_OPC_RC_SEND_MIDDLE				= 0x01,
	VMLX_OPC_RC_SEND_LAST				= 0x02,
	VMLX_OPC_RC_SEND_LAST_IMM			= 0x03,
	VMLX_OPC_RC_SEND_ONLY				= 0x04,
	VMLX_OPC_RC_SEND_ONLY_IMM			= 0x05,
	VMLX_OPC_RC_RDMA_WRITE_FIRST			= 0x06,
	VMLX_OPC_RC_RDMA_WRITE_MIDDLE			= 0x07,
	VMLX_OPC_RC_RDMA_WRITE_LAST			= 0x08,
	VMLX_OPC_RC_RDMA_WRITE_LAST_IMM			= 0x09,
	VMLX_OPC_RC_RDMA_WRITE_ONLY			= 0x0a,
	VMLX_OPC_RC_RDMA_WRITE_ONLY_IMM			= 0x0b,
	VMLX_OPC_RC_RDMA_READ_REQUEST			= 0x0c,
	VMLX_OPC_RC_RDMA_READ_RESPONSE_FIRST		= 0x0d,
	VMLX_OPC_RC_RDMA_READ_RESPONSE_MIDDLE		= 0x0e,
	VMLX_OPC_RC_RDMA_READ_RESPONSE_LAST		= 0x0f,
	VMLX_OPC_RC_RDMA_READ_RESPONSE_ONLY		= 0x10,
	VMLX_OPC_RC_ACKNOWLEDGE				= 0x11,
	VMLX_OPC_RC_ATOMIC_ACKNOWLEDGE			= 0x12,
	VMLX_OPC_RC_COMPARE_SWAP			= 0x13,
	VMLX_OPC_RC_FETCH_ADD				= 0x14,
	/* 0x15 is reserved for RC */
	VMLX_OPC_RC_SEND_LAST_INV			= 0x16,
	VMLX_OPC_RC_SEND_ONLY_INV			= 0x17,

	VMLX_OPC_UC_SEND_FIRST				= 0x20,
	VMLX_OPC_UC_SEND_MIDDLE				= 0x21,
	VMLX_OPC_UC_SEND_LAST				= 0x22,
	VMLX_OPC_UC_SEND_LAST_IMM			= 0x23,
	VMLX_OPC_UC_SEND_ONLY				= 0x24,
	VMLX_OPC_UC_SEND_ONLY_IMM			= 0x25,
	VMLX_OPC_UC_RDMA_WRITE_FIRST			= 0x26,
	VMLX_OPC_UC_RDMA_WRITE_MIDDLE			= 0x27,
	VMLX_OPC_UC_RDMA_WRITE_LAST			= 0x28,
	VMLX_OPC_UC_RDMA_WRITE_LAST_IMM			= 0x29,
	VMLX_OPC_UC_RDMA_WRITE_ONLY			= 0x2a,
	VMLX_OPC_UC_RDMA_WRITE_ONLY_IMM			= 0x2b,

	VMLX_OPC_UD_SEND_ONLY				= 0x64,
	VMLX_OPC_UD_SEND_ONLY_IMM			= 0x65,
};

/* The extension headers an opcode can carry, in the order they appear. */
enum vmlx_eth {
	VMLX_ETH_DETH,
	VMLX_ETH_RETH,
	VMLX_ETH_ATMETH,
	VMLX_ETH_AETH,
	VMLX_ETH_ATMACKETH,
	VMLX_ETH_IMMDT,
	VMLX_ETH_IETH,
	VMLX_ETH_NUM
};

/* &vmlx_opcode_info.flags: the headers present ... */
#define VMLX_OPF_DETH		BIT(VMLX_ETH_DETH)
#define VMLX_OPF_RETH		BIT(VMLX_ETH_RETH)
#define VMLX_OPF_ATMETH		BIT(VMLX_ETH_ATMETH)
#define VMLX_OPF_AETH		BIT(VMLX_ETH_AETH)
#define VMLX_OPF_ATMACKETH	BIT(VMLX_ETH_ATMACKETH)
#define VMLX_OPF_IMMDT		BIT(VMLX_ETH_IMMDT)
#define VMLX_OPF_IETH		BIT(VMLX_ETH_IETH)
#define VMLX_OPF_ETH_MASK	GENMASK(VMLX_ETH_NUM - 1, 0)
/* ... whether a payload follows them (it may be empty) ... */
#define VMLX_OPF_PAYLOAD	BIT(8)
/* ... the packet's place in its message (an only packet is both) ... */
#define VMLX_OPF_FIRST		BIT(9)
#define VMLX_OPF_MIDDLE		BIT(10)
#define VMLX_OPF_LAST		BIT(11)
#define VMLX_OPF_ONLY		(VMLX_OPF_FIRST | VMLX_OPF_LAST)
/* ... whether a requester or a responder sends it ... */
#define VMLX_OPF_REQ		BIT(12)
#define VMLX_OPF_RESP		BIT(13)
/* ... and the operation it belongs to. */
#define VMLX_OPF_SEND		BIT(16)
#define VMLX_OPF_WRITE		BIT(17)
#define VMLX_OPF_READ		BIT(18)
#define VMLX_OPF_ATOMIC		BIT(19)
#define VMLX_OPF_ACK		BIT(20)

/**
 * struct vmlx_opcode_info - what a BTH:OpCode says about its packet
 * @name: the IBA name, e.g. "RC SEND ONLY"
 * @flags: %VMLX_OPF_* bits
 * @hdr_len: bytes from the first byte of the BTH to the end of the last
 *	extension header, where the payload starts
 * @eth_off: for each &enum vmlx_eth present (see @flags), its offset from
 *	the first byte of the BTH; 0 for headers not present
 */
struct vmlx_opcode_info {
	const char	*name;
	u32		flags;
	u8		hdr_len;
	u8		eth_off[VMLX_ETH_NUM];
};

const struct vmlx_opcode_info *vmlx_opcode_info(u8 opcode);

/**
 * struct vmlx_pkt_layout - where things are in a received packet
 * @op: the opcode's description
 * @bth: offset of the BTH from the first byte of the LRH
 * @payload: offset of the payload
 * @payload_len: payload length in bytes, pad excluded
 * @global: whether the packet has a GRH
 */
struct vmlx_pkt_layout {
	const struct vmlx_opcode_info	*op;
	u16				bth;
	u16				payload;
	u16				payload_len;
	bool				global;
};

int vmlx_pkt_parse(const void *pkt, unsigned int len,
		   struct vmlx_pkt_layout *layout);

/* ------------------------------------------------------------------ */
/* CRCs, IBA 7.8 (vmlx_crc.c)                                          */
/* ------------------------------------------------------------------ */

int vmlx_pkt_finalize(void *pkt, unsigned int len);
int vmlx_pkt_seal(void *pkt, unsigned int len);
void vmlx_pkt_fill_crcs(void *pkt, unsigned int len);
bool vmlx_pkt_check_len(const void *pkt, unsigned int len);
bool vmlx_pkt_check(const void *pkt, unsigned int len);

/* Static without KUnit, for the suites (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(VMLX_KUNIT_SUITE)
u32 vmlx_icrc(const void *pkt, unsigned int len);
u16 vmlx_vcrc(const void *pkt, unsigned int len);
#endif

#endif /* VMLX_HDR_H */
