// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx: the BTH opcodes vmlx speaks, as data (IBA Vol 1, 9.2.1 table 38
 * for the opcodes, 9.3 for the extension headers each one carries and
 * their order), and the parsing of a received packet's headers.
 *
 * RD opcodes, the RC RESYNC slot (0x15), CNP and XRC are not supported:
 * vmlx_opcode_info() reports them as unknown.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "vmlx_hdr.h"

/* Indexed by the whole 8-bit OpCode; entries without a name are unknown. */
static const struct vmlx_opcode_info vmlx_opcodes[256] = {
	[VMLX_OPC_RC_SEND_FIRST] = {
		.name		= "RC SEND FIRST",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_FIRST,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_SEND_MIDDLE] = {
		.name		= "RC SEND MIDDLE",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_MIDDLE,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_SEND_LAST] = {
		.name		= "RC SEND LAST",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_SEND_LAST_IMM] = {
		.name		= "RC SEND LAST with Immediate",
		.flags		= VMLX_OPF_IMMDT | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_SEND | VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_SEND_ONLY] = {
		.name		= "RC SEND ONLY",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_SEND_ONLY_IMM] = {
		.name		= "RC SEND ONLY with Immediate",
		.flags		= VMLX_OPF_IMMDT | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_SEND | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_WRITE_FIRST] = {
		.name		= "RC RDMA WRITE FIRST",
		.flags		= VMLX_OPF_RETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_WRITE |
				  VMLX_OPF_FIRST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_RETH_BYTES,
		.eth_off[VMLX_ETH_RETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_WRITE_MIDDLE] = {
		.name		= "RC RDMA WRITE MIDDLE",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_WRITE | VMLX_OPF_MIDDLE,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_WRITE_LAST] = {
		.name		= "RC RDMA WRITE LAST",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_WRITE | VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_WRITE_LAST_IMM] = {
		.name		= "RC RDMA WRITE LAST with Immediate",
		.flags		= VMLX_OPF_IMMDT | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_WRITE |
				  VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_WRITE_ONLY] = {
		.name		= "RC RDMA WRITE ONLY",
		.flags		= VMLX_OPF_RETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_WRITE |
				  VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_RETH_BYTES,
		.eth_off[VMLX_ETH_RETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_WRITE_ONLY_IMM] = {
		.name		= "RC RDMA WRITE ONLY with Immediate",
		.flags		= VMLX_OPF_RETH | VMLX_OPF_IMMDT |
				  VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_WRITE | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_RETH_BYTES +
				  VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_RETH] = VMLX_BTH_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES + VMLX_RETH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_READ_REQUEST] = {
		.name		= "RC RDMA READ Request",
		.flags		= VMLX_OPF_RETH | VMLX_OPF_REQ |
				  VMLX_OPF_READ | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_RETH_BYTES,
		.eth_off[VMLX_ETH_RETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_READ_RESPONSE_FIRST] = {
		.name		= "RC RDMA READ response First",
		.flags		= VMLX_OPF_AETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_RESP | VMLX_OPF_READ |
				  VMLX_OPF_FIRST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_AETH_BYTES,
		.eth_off[VMLX_ETH_AETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_READ_RESPONSE_MIDDLE] = {
		.name		= "RC RDMA READ response Middle",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_RESP |
				  VMLX_OPF_READ | VMLX_OPF_MIDDLE,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_READ_RESPONSE_LAST] = {
		.name		= "RC RDMA READ response Last",
		.flags		= VMLX_OPF_AETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_RESP | VMLX_OPF_READ |
				  VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_AETH_BYTES,
		.eth_off[VMLX_ETH_AETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_RDMA_READ_RESPONSE_ONLY] = {
		.name		= "RC RDMA READ response Only",
		.flags		= VMLX_OPF_AETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_RESP | VMLX_OPF_READ |
				  VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_AETH_BYTES,
		.eth_off[VMLX_ETH_AETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_ACKNOWLEDGE] = {
		.name		= "RC Acknowledge",
		.flags		= VMLX_OPF_AETH | VMLX_OPF_RESP |
				  VMLX_OPF_ACK | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_AETH_BYTES,
		.eth_off[VMLX_ETH_AETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_ATOMIC_ACKNOWLEDGE] = {
		.name		= "RC ATOMIC Acknowledge",
		.flags		= VMLX_OPF_AETH | VMLX_OPF_ATMACKETH |
				  VMLX_OPF_RESP | VMLX_OPF_ATOMIC |
				  VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_AETH_BYTES +
				  VMLX_ATMACKETH_BYTES,
		.eth_off[VMLX_ETH_AETH] = VMLX_BTH_BYTES,
		.eth_off[VMLX_ETH_ATMACKETH] = VMLX_BTH_BYTES + VMLX_AETH_BYTES,
	},
	[VMLX_OPC_RC_COMPARE_SWAP] = {
		.name		= "RC CmpSwap",
		.flags		= VMLX_OPF_ATMETH | VMLX_OPF_REQ |
				  VMLX_OPF_ATOMIC | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_ATMETH_BYTES,
		.eth_off[VMLX_ETH_ATMETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_FETCH_ADD] = {
		.name		= "RC FetchAdd",
		.flags		= VMLX_OPF_ATMETH | VMLX_OPF_REQ |
				  VMLX_OPF_ATOMIC | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_ATMETH_BYTES,
		.eth_off[VMLX_ETH_ATMETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_SEND_LAST_INV] = {
		.name		= "RC SEND LAST with Invalidate",
		.flags		= VMLX_OPF_IETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_SEND | VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IETH_BYTES,
		.eth_off[VMLX_ETH_IETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_RC_SEND_ONLY_INV] = {
		.name		= "RC SEND ONLY with Invalidate",
		.flags		= VMLX_OPF_IETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_SEND | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IETH_BYTES,
		.eth_off[VMLX_ETH_IETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_SEND_FIRST] = {
		.name		= "UC SEND FIRST",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_FIRST,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_SEND_MIDDLE] = {
		.name		= "UC SEND MIDDLE",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_MIDDLE,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_SEND_LAST] = {
		.name		= "UC SEND LAST",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_SEND_LAST_IMM] = {
		.name		= "UC SEND LAST with Immediate",
		.flags		= VMLX_OPF_IMMDT | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_SEND | VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_SEND_ONLY] = {
		.name		= "UC SEND ONLY",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_SEND_ONLY_IMM] = {
		.name		= "UC SEND ONLY with Immediate",
		.flags		= VMLX_OPF_IMMDT | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_SEND | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_RDMA_WRITE_FIRST] = {
		.name		= "UC RDMA WRITE FIRST",
		.flags		= VMLX_OPF_RETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_WRITE |
				  VMLX_OPF_FIRST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_RETH_BYTES,
		.eth_off[VMLX_ETH_RETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_RDMA_WRITE_MIDDLE] = {
		.name		= "UC RDMA WRITE MIDDLE",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_WRITE | VMLX_OPF_MIDDLE,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_RDMA_WRITE_LAST] = {
		.name		= "UC RDMA WRITE LAST",
		.flags		= VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_WRITE | VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_RDMA_WRITE_LAST_IMM] = {
		.name		= "UC RDMA WRITE LAST with Immediate",
		.flags		= VMLX_OPF_IMMDT | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_WRITE |
				  VMLX_OPF_LAST,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_RDMA_WRITE_ONLY] = {
		.name		= "UC RDMA WRITE ONLY",
		.flags		= VMLX_OPF_RETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_WRITE |
				  VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_RETH_BYTES,
		.eth_off[VMLX_ETH_RETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UC_RDMA_WRITE_ONLY_IMM] = {
		.name		= "UC RDMA WRITE ONLY with Immediate",
		.flags		= VMLX_OPF_RETH | VMLX_OPF_IMMDT |
				  VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_WRITE | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_RETH_BYTES +
				  VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_RETH] = VMLX_BTH_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES + VMLX_RETH_BYTES,
	},
	[VMLX_OPC_UD_SEND_ONLY] = {
		.name		= "UD SEND ONLY",
		.flags		= VMLX_OPF_DETH | VMLX_OPF_PAYLOAD |
				  VMLX_OPF_REQ | VMLX_OPF_SEND | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_DETH_BYTES,
		.eth_off[VMLX_ETH_DETH] = VMLX_BTH_BYTES,
	},
	[VMLX_OPC_UD_SEND_ONLY_IMM] = {
		.name		= "UD SEND ONLY with Immediate",
		.flags		= VMLX_OPF_DETH | VMLX_OPF_IMMDT |
				  VMLX_OPF_PAYLOAD | VMLX_OPF_REQ |
				  VMLX_OPF_SEND | VMLX_OPF_ONLY,
		.hdr_len	= VMLX_BTH_BYTES + VMLX_DETH_BYTES +
				  VMLX_IMMDT_BYTES,
		.eth_off[VMLX_ETH_DETH] = VMLX_BTH_BYTES,
		.eth_off[VMLX_ETH_IMMDT] = VMLX_BTH_BYTES + VMLX_DETH_BYTES,
	},
};

/**
 * vmlx_opcode_info() - look up a BTH:OpCode
 * @opcode: the opcode, as received
 *
 * Return: the opcode's description, or %NULL if vmlx does not know the
 * opcode (reserved, or of a service it does not implement).
 */
const struct vmlx_opcode_info *vmlx_opcode_info(u8 opcode)
{
	const struct vmlx_opcode_info *info = &vmlx_opcodes[opcode];

	return info->name ? info : NULL;
}

/**
 * vmlx_pkt_parse() - find the headers and the payload of a received packet
 * @pkt: the packet, from the first byte of the LRH
 * @len: the bytes received, VCRC included
 * @layout: filled in on success
 *
 * Checks that the packet is an IBA transport packet whose lengths agree
 * with each other: LRH:PktLen with @len, GRH:PayLen with LRH:PktLen, the
 * opcode's headers and BTH:PadCnt with the room there is.  It checks no
 * CRC (see vmlx_pkt_check()) and nothing that depends on the receiver's
 * state (LIDs, P_Key, QP, PSN).
 *
 * Return: 0; -EINVAL if the packet is malformed (too short, lengths that
 * disagree, a payload where the opcode has none); -EPROTONOSUPPORT for a
 * raw packet, a GRH that does not announce an IBA transport header or a
 * transport version other than 0; -EOPNOTSUPP for an unknown opcode.
 */
int vmlx_pkt_parse(const void *pkt, unsigned int len,
		   struct vmlx_pkt_layout *layout)
{
	const struct vmlx_lrh *lrh = pkt;
	const struct vmlx_opcode_info *op;
	const struct vmlx_grh *grh;
	const struct vmlx_bth *bth;
	unsigned int end, bth_off, payload, padcnt;

	if (len < VMLX_LRH_BYTES + VMLX_VCRC_BYTES)
		return -EINVAL;
	/* end: the first byte of the VCRC */
	end = vmlx_lrh_pktlen(lrh) * 4;
	if (end + VMLX_VCRC_BYTES != len)
		return -EINVAL;

	switch (vmlx_lrh_lnh(lrh)) {
	case VMLX_LNH_IBA_LOCAL:
		bth_off = VMLX_LRH_BYTES;
		break;
	case VMLX_LNH_IBA_GLOBAL:
		bth_off = VMLX_LRH_BYTES + VMLX_GRH_BYTES;
		if (end < bth_off)
			return -EINVAL;
		grh = pkt + VMLX_LRH_BYTES;
		if (vmlx_grh_ipver(grh) != VMLX_GRH_IPVER ||
		    grh->nxthdr != VMLX_GRH_NXTHDR_IBA)
			return -EPROTONOSUPPORT;
		if (vmlx_grh_paylen(grh) != end - bth_off)
			return -EINVAL;
		break;
	default:
		return -EPROTONOSUPPORT;
	}

	if (end < bth_off + VMLX_BTH_BYTES + VMLX_ICRC_BYTES)
		return -EINVAL;
	bth = pkt + bth_off;
	if (vmlx_bth_tver(bth) != VMLX_BTH_TVER)
		return -EPROTONOSUPPORT;
	op = vmlx_opcode_info(vmlx_bth_opcode(bth));
	if (!op)
		return -EOPNOTSUPP;

	payload = bth_off + op->hdr_len;
	if (payload + VMLX_ICRC_BYTES > end)
		return -EINVAL;
	/* payload + pad, in bytes */
	end -= payload + VMLX_ICRC_BYTES;
	padcnt = vmlx_bth_padcnt(bth);
	if (padcnt > end || (end && !(op->flags & VMLX_OPF_PAYLOAD)))
		return -EINVAL;

	layout->op = op;
	layout->bth = bth_off;
	layout->payload = payload;
	layout->payload_len = end - padcnt;
	layout->global = bth_off != VMLX_LRH_BYTES;
	return 0;
}
