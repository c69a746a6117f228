// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "ops": every operation of each transport between the two
 * devices, with the data checked byte for byte on the other side, the
 * bytes after it checked untouched, and the completions (opcode, byte_len,
 * immediate data, source QP and LID, GRH flag) checked.
 *
 *   rc      SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM and
 *           RDMA_READ of 1 byte to 1 MiB, at path MTUs 256, 1024, 4096
 *   atomic  FETCH_AND_ADD, CMP_AND_SWP hit and miss (RC)
 *   uc      SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM
 *   ud      SEND and SEND_WITH_IMM up to the MTU, with and without GRH
 *   mcast   UD multicast to two attached QPs, then after a detach
 *   srq     RC SENDs from two connections landing in one SRQ
 *   frmr    fast registration, RDMA through its rkey, LOCAL_INV
 */
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vt.h"

static const u32 vt_sizes[] = {
	1, 2, 3, 255, 256, 257, 4095, 4096, 4097, 65536, 65537, SZ_1M,
};

static const u32 vt_ud_sizes[] = {
	1, 2, 3, 255, 256, 257, 1024, 2048, 4095, 4096,
};

/* Room after the largest message, for offsets and the canary. */
#define VT_OPS_SLACK	SZ_8K
#define VT_OPS_BUF	(SZ_1M + VT_OPS_SLACK)
/* Bytes after each message that must stay untouched. */
#define VT_TAIL		64

/**
 * struct vt_ops - state of an "ops" command
 * @run: the command
 * @sa: the requester side
 * @sb: the responder side
 * @ba: a buffer on @sa
 * @bb: a buffer on @sb
 * @wr: the last wr_id handed out
 * @seed: the last pattern seed handed out
 */
struct vt_ops {
	struct vt_run	*run;
	struct vt_side	sa;
	struct vt_side	sb;
	struct vt_buf	ba;
	struct vt_buf	bb;
	u64		wr;
	u32		seed;
};

static const char *vt_wr_name(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_SEND:		return "SEND";
	case IB_WR_SEND_WITH_IMM:	return "SEND_WITH_IMM";
	case IB_WR_RDMA_WRITE:		return "RDMA_WRITE";
	case IB_WR_RDMA_WRITE_WITH_IMM:	return "RDMA_WRITE_WITH_IMM";
	case IB_WR_RDMA_READ:		return "RDMA_READ";
	default:			return "?";
	}
}

/* Check the bytes a message landed in, and the VT_TAIL bytes after them. */
static int vt_check_data(struct vt_run *run, const u8 *p, u32 len, u32 seed,
			 const char *what)
{
	long bad = vt_verify(p, len, seed);

	if (bad >= 0) {
		vt_why(run, "%s: byte %ld of %u is wrong", what, bad, len);
		return -EIO;
	}
	bad = vt_verify_byte(p + len, VT_TAIL, VT_CANARY);
	if (bad >= 0) {
		vt_why(run, "%s: byte %ld after the %u-byte message was written",
		       what, bad, len);
		return -EIO;
	}
	return 0;
}

static int vt_check_recv(struct vt_run *run, struct ib_wc *wc,
			 struct vt_qp *q, enum ib_wc_opcode op, u32 byte_len,
			 bool imm, u32 imm_val, const char *what)
{
	if (wc->opcode != op) {
		vt_why(run, "%s: receive opcode %s, expected %s", what,
		       vt_wc_opcode_str(wc->opcode), vt_wc_opcode_str(op));
		return -EIO;
	}
	if (wc->byte_len != byte_len) {
		vt_why(run, "%s: byte_len %u, expected %u", what,
		       wc->byte_len, byte_len);
		return -EIO;
	}
	if (wc->qp != q->qp) {
		vt_why(run, "%s: completion names QP %u, expected %u", what,
		       wc->qp ? wc->qp->qp_num : 0, q->qp->qp_num);
		return -EIO;
	}
	if (!!(wc->wc_flags & IB_WC_WITH_IMM) != imm) {
		vt_why(run, "%s: IB_WC_WITH_IMM %s", what,
		       imm ? "missing" : "set without immediate data");
		return -EIO;
	}
	if (imm && be32_to_cpu(wc->ex.imm_data) != imm_val) {
		vt_why(run, "%s: immediate data %#x, expected %#x", what,
		       be32_to_cpu(wc->ex.imm_data), imm_val);
		return -EIO;
	}
	return 0;
}

/*
 * One RC or UC message of @len bytes from @qa to @qb with opcode @op,
 * checked on both ends.  A UC RDMA WRITE is followed by an empty SEND,
 * whose arrival says the WRITE has landed.
 */
static int vt_msg(struct vt_ops *o, struct vt_qp *qa, struct vt_qp *qb,
		  enum ib_wr_opcode op, u32 len)
{
	bool uc = qa->qp->qp_type == IB_QPT_UC;
	bool is_read = op == IB_WR_RDMA_READ;
	bool imm = op == IB_WR_SEND_WITH_IMM ||
		   op == IB_WR_RDMA_WRITE_WITH_IMM;
	bool is_send = op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM;
	bool recv = is_send || op == IB_WR_RDMA_WRITE_WITH_IMM;
	struct vt_run *run = o->run;
	u32 seed = ++o->seed, imm_val = 0x1e000000 | seed;
	u32 offa = seed % 8, offb = (seed / 8) % 8;
	u32 lkey = o->sa.pd->local_dma_lkey;
	u32 rkey = o->sb.pd->unsafe_global_rkey;
	struct vt_buf *src = is_read ? &o->bb : &o->ba;
	struct vt_buf *dst = is_read ? &o->ba : &o->bb;
	u32 soff = is_read ? offb : offa, doff = is_read ? offa : offb;
	enum ib_wc_opcode sop;
	u64 rid = 0, sid;
	struct ib_wc wc;
	int ret;

	vt_fill(src->va + soff, len, seed);
	memset(dst->va + doff, VT_CANARY, len + VT_TAIL);

	if (recv) {
		rid = ++o->wr;
		/* RDMA WRITE with immediate consumes a WQE, places no data */
		ret = vt_post_recv(qb, rid, o->bb.dma + offb,
				   is_send ? len + VT_TAIL : 0,
				   o->sb.pd->local_dma_lkey);
		if (ret) {
			vt_why(run, "ib_post_recv: %d", ret);
			return ret;
		}
	}
	sid = ++o->wr;
	ret = vt_post_send(qa, sid, op, o->ba.dma + offa, len, lkey, imm_val,
			   o->bb.dma + offb, rkey);
	if (ret) {
		vt_why(run, "ib_post_send(%s, %u bytes): %d", vt_wr_name(op),
		       len, ret);
		return ret;
	}
	ret = vt_expect(run, &qa->scq, sid, IB_WC_SUCCESS, &wc,
			"send completion");
	if (ret)
		return ret;
	sop = is_send ? IB_WC_SEND : is_read ? IB_WC_RDMA_READ :
		IB_WC_RDMA_WRITE;
	if (wc.opcode != sop) {
		vt_why(run, "send completion opcode %s, expected %s",
		       vt_wc_opcode_str(wc.opcode), vt_wc_opcode_str(sop));
		return -EIO;
	}
	if (wc.qp != qa->qp) {
		vt_why(run, "send completion names the wrong QP");
		return -EIO;
	}
	if (is_read && wc.byte_len != len) {
		vt_why(run, "RDMA_READ completion byte_len %u, expected %u",
		       wc.byte_len, len);
		return -EIO;
	}

	if (recv) {
		ret = vt_expect(run, &qb->rcq, rid, IB_WC_SUCCESS, &wc,
				"receive completion");
		if (ret)
			return ret;
		ret = vt_check_recv(run, &wc, qb, is_send ? IB_WC_RECV :
				    IB_WC_RECV_RDMA_WITH_IMM, len, imm,
				    imm_val, "receive");
		if (ret)
			return ret;
	} else if (uc && !is_read) {
		/* the empty SEND behind the WRITE */
		rid = ++o->wr;
		sid = ++o->wr;
		ret = vt_post_recv(qb, rid, 0, 0, 0);
		if (!ret)
			ret = vt_post_send(qa, sid, IB_WR_SEND, 0, 0, 0, 0,
					   0, 0);
		if (ret) {
			vt_why(run, "posting the empty SEND: %d", ret);
			return ret;
		}
		ret = vt_expect(run, &qa->scq, sid, IB_WC_SUCCESS, &wc,
				"empty SEND");
		if (!ret)
			ret = vt_expect(run, &qb->rcq, rid, IB_WC_SUCCESS,
					&wc, "empty SEND's receive");
		if (ret)
			return ret;
		ret = vt_check_recv(run, &wc, qb, IB_WC_RECV, 0, false, 0,
				    "empty SEND's receive");
		if (ret)
			return ret;
	}
	if (!recv && vt_poll_quiet(&qb->rcq, &wc)) {
		vt_why(run, "%s produced a receive completion (status %s)",
		       vt_wr_name(op), ib_wc_status_msg(wc.status));
		return -EIO;
	}
	return vt_check_data(run, dst->va + doff, len, seed,
			     is_read ? "local buffer" : "remote buffer");
}

/* Every size of vt_sizes with one opcode, on a fresh pair of QPs. */
static void vt_ops_opcode(struct vt_ops *o, enum ib_qp_type type,
			  enum ib_mtu mtu, enum ib_wr_opcode op)
{
	const char *tname = type == IB_QPT_RC ? "rc" : "uc";
	struct vt_run *run = o->run;
	struct vt_qp qa = {}, qb = {};
	struct vt_conn c;
	unsigned int i;

	vt_conn_default(run, &c);
	c.mtu = mtu;
	if (!vt_pair_create(run, &qa, &o->sa, &qb, &o->sb, type, &c, 8)) {
		for (i = 0; i < ARRAY_SIZE(vt_sizes); i++) {
			if (vt_msg(o, &qa, &qb, op, vt_sizes[i])) {
				vt_why(run, "(at %u bytes)", vt_sizes[i]);
				break;
			}
		}
		vt_pair_destroy(&qa, &qb);
	}
	vt_result(run, "%s mtu %d %s: %zu messages of 1..%u bytes, %s verified",
		  tname, ib_mtu_enum_to_int(mtu), vt_wr_name(op),
		  ARRAY_SIZE(vt_sizes), SZ_1M,
		  op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM ?
		  "data, byte_len, opcodes and immediate data" :
		  op == IB_WR_RDMA_READ ? "data, byte_len and opcode" :
		  "data, byte_len and opcodes");
}

static void vt_ops_rc_uc(struct vt_ops *o, enum ib_qp_type type)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_SEND, IB_WR_SEND_WITH_IMM, IB_WR_RDMA_WRITE,
		IB_WR_RDMA_WRITE_WITH_IMM, IB_WR_RDMA_READ,
	};
	/*
	 * UC has no flow control: a 1 MiB message at MTU 256 is 4096
	 * packets in one burst, as many as a QP's receive backlog holds.
	 */
	static const enum ib_mtu rc_mtus[] = {
		IB_MTU_256, IB_MTU_1024, IB_MTU_4096,
	};
	static const enum ib_mtu uc_mtus[] = { IB_MTU_1024, IB_MTU_4096 };
	const enum ib_mtu *mtus = type == IB_QPT_RC ? rc_mtus : uc_mtus;
	int nmtus = type == IB_QPT_RC ? ARRAY_SIZE(rc_mtus) :
		ARRAY_SIZE(uc_mtus);
	int nops = type == IB_QPT_RC ? ARRAY_SIZE(ops) : ARRAY_SIZE(ops) - 1;
	enum ib_mtu one = o->run->mtu ? ilog2(o->run->mtu) - 7 : 0;
	int m, i;

	for (m = 0; m < nmtus; m++) {
		if (one && mtus[m] != one)
			continue;
		for (i = 0; i < nops && !vt_aborted(o->run); i++)
			vt_ops_opcode(o, type, mtus[m], ops[i]);
	}
	if (one && type == IB_QPT_UC && one != IB_MTU_1024 &&
	    one != IB_MTU_4096)
		vt_ops_opcode(o, type, one, IB_WR_SEND);
}

/* --------------------------------------------------------------------- */
/* Atomics                                                               */
/* --------------------------------------------------------------------- */

static int vt_atomic(struct vt_ops *o, struct vt_qp *qa,
		     enum ib_wr_opcode op, u64 raddr, u32 rkey, u64 cmp_add,
		     u64 swap, u64 *orig)
{
	struct vt_run *run = o->run;
	u64 *local = (u64 *)(o->ba.va + 64);
	struct ib_sge sge = {
		.addr = o->ba.dma + 64,
		.length = sizeof(u64),
		.lkey = o->sa.pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = ++o->wr,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.compare_add = cmp_add,
		.swap = swap,
		.rkey = rkey,
	};
	enum ib_wc_opcode wop = op == IB_WR_ATOMIC_FETCH_AND_ADD ?
		IB_WC_FETCH_ADD : IB_WC_COMP_SWAP;
	struct ib_wc wc;
	int ret;

	*local = 0xdeadbeefdeadbeefULL;
	ret = ib_post_send(qa->qp, &wr.wr, NULL);
	if (ret) {
		vt_why(run, "ib_post_send(atomic): %d", ret);
		return ret;
	}
	ret = vt_expect(run, &qa->scq, wr.wr.wr_id, IB_WC_SUCCESS, &wc,
			"atomic");
	if (ret)
		return ret;
	if (wc.opcode != wop) {
		vt_why(run, "atomic completion opcode %s, expected %s",
		       vt_wc_opcode_str(wc.opcode), vt_wc_opcode_str(wop));
		return -EIO;
	}
	if (wc.byte_len != sizeof(u64)) {
		vt_why(run, "atomic completion byte_len %u, expected 8",
		       wc.byte_len);
		return -EIO;
	}
	*orig = *local;
	return 0;
}

static void vt_ops_atomic(struct vt_ops *o)
{
	const u64 v0 = 0x1122334455667788ULL, add = 0x0101010101010101ULL;
	const u64 swap = 0xa5a5a5a55a5a5a5aULL;
	struct vt_run *run = o->run;
	struct vt_qp qa = {}, qb = {};
	struct vt_frmr f = {};
	struct vt_conn c;
	u64 *mem, orig, raddr;

	vt_conn_default(run, &c);
	c.mtu = IB_MTU_1024;
	/* the global rkey has no atomic right: a fast-reg MR with it */
	if (vt_pair_create(run, &qa, &o->sa, &qb, &o->sb, IB_QPT_RC, &c, 8) ||
	    vt_frmr_alloc(run, &f, &o->sb, 1) ||
	    vt_frmr_reg(run, &qb, &f, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_REMOTE_READ,
			++o->wr)) {
		vt_result(run, "rc atomics: setup");
		goto out;
	}
	mem = (u64 *)vt_frmr_byte(&f, 128);
	raddr = f.mr->iova + 128;

	*mem = v0;
	if (!vt_atomic(o, &qa, IB_WR_ATOMIC_FETCH_AND_ADD, raddr, f.mr->rkey,
		       add, 0, &orig)) {
		if (orig != v0)
			vt_why(run, "returned %#llx, expected %#llx", orig, v0);
		else if (*mem != v0 + add)
			vt_why(run, "memory %#llx, expected %#llx", *mem,
			       v0 + add);
	}
	vt_result(run, "rc ATOMIC_FETCH_AND_ADD: original value returned, memory added to");

	if (!vt_atomic(o, &qa, IB_WR_ATOMIC_CMP_AND_SWP, raddr, f.mr->rkey,
		       v0 + add, swap, &orig)) {
		if (orig != v0 + add)
			vt_why(run, "returned %#llx, expected %#llx", orig,
			       v0 + add);
		else if (*mem != swap)
			vt_why(run, "memory %#llx, expected %#llx", *mem, swap);
	}
	vt_result(run, "rc ATOMIC_CMP_AND_SWP hit: original value returned, memory swapped");

	if (!vt_atomic(o, &qa, IB_WR_ATOMIC_CMP_AND_SWP, raddr, f.mr->rkey,
		       swap ^ 1, v0, &orig)) {
		if (orig != swap)
			vt_why(run, "returned %#llx, expected %#llx", orig,
			       swap);
		else if (*mem != swap)
			vt_why(run, "memory %#llx changed, expected %#llx",
			       *mem, swap);
	}
	vt_result(run, "rc ATOMIC_CMP_AND_SWP miss: original value returned, memory unchanged");
out:
	vt_pair_destroy(&qa, &qb);
	vt_frmr_free(&f);
}

/* --------------------------------------------------------------------- */
/* UD                                                                    */
/* --------------------------------------------------------------------- */

/* The UD receive of @len bytes from @qa into @qb's buffer at @off, checked. */
static int vt_ud_recv(struct vt_ops *o, struct vt_qp *qa, struct vt_qp *qb,
		      u64 rid, u32 off, u32 len, u32 seed, bool imm, bool grh,
		      const union ib_gid *dgid, const char *what)
{
	struct vt_run *run = o->run;
	u8 *buf = o->bb.va + off;
	struct ib_wc wc;
	int ret;

	ret = vt_expect(run, &qb->rcq, rid, IB_WC_SUCCESS, &wc, what);
	if (ret)
		return ret;
	ret = vt_check_recv(run, &wc, qb, IB_WC_RECV, len + VT_GRH_BYTES,
			    imm, 0x1e000000 | seed, what);
	if (ret)
		return ret;
	if (wc.src_qp != qa->qp->qp_num || wc.slid != o->sa.lid) {
		vt_why(run, "%s: from QP %u LID %u, expected QP %u LID %u",
		       what, wc.src_qp, wc.slid, qa->qp->qp_num, o->sa.lid);
		return -EIO;
	}
	if (!!(wc.wc_flags & IB_WC_GRH) != grh) {
		vt_why(run, "%s: IB_WC_GRH %s", what,
		       grh ? "missing" : "set without GRH");
		return -EIO;
	}
	if (grh && memcmp(buf + 8, &o->sa.gid, 16)) {
		vt_why(run, "%s: GRH SGID is not the sender's GID", what);
		return -EIO;
	}
	if (grh && memcmp(buf + 24, dgid, 16)) {
		vt_why(run, "%s: GRH DGID is not the destination GID", what);
		return -EIO;
	}
	return vt_check_data(run, buf + VT_GRH_BYTES, len, seed, what);
}

static void vt_ops_ud(struct vt_ops *o)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_SEND, IB_WR_SEND_WITH_IMM,
	};
	struct vt_run *run = o->run;
	struct ib_port_attr pattr = {};
	struct vt_qp qa = {}, qb = {};
	int mtu, g, i, n, ret;
	struct ib_ah *ah;
	struct vt_conn c;
	struct ib_wc wc;

	vt_conn_default(run, &c);
	ret = ib_query_port(o->sa.dev, o->sa.port, &pattr);
	mtu = ret ? 256 : ib_mtu_enum_to_int(pattr.active_mtu);
	if (vt_pair_create(run, &qa, &o->sa, &qb, &o->sb, IB_QPT_UD, &c, 8)) {
		vt_result(run, "ud: setup");
		return;
	}
	for (g = 0; g < 2; g++) {
		ah = vt_create_ah(run, &o->sa, o->sb.lid, g ? &o->sb.gid : NULL);
		for (i = 0; ah && i < ARRAY_SIZE(ops); i++) {
			for (n = 0; n < ARRAY_SIZE(vt_ud_sizes); n++) {
				u32 len = vt_ud_sizes[n], seed = ++o->seed;
				u32 off = seed % 8;
				u64 rid = ++o->wr, sid = ++o->wr;

				if (len > mtu)
					break;
				vt_fill(o->ba.va, len, seed);
				memset(o->bb.va + off, VT_CANARY,
				       VT_GRH_BYTES + len + VT_TAIL);
				ret = vt_post_recv(&qb, rid, o->bb.dma + off,
						   VT_GRH_BYTES + len + VT_TAIL,
						   o->sb.pd->local_dma_lkey);
				if (!ret)
					ret = vt_post_ud(&qa, sid, ops[i],
							 o->ba.dma, len,
							 o->sa.pd->local_dma_lkey,
							 0x1e000000 | seed, ah,
							 qb.qp->qp_num);
				if (ret) {
					vt_why(run, "posting: %d", ret);
					break;
				}
				if (vt_expect(run, &qa.scq, sid, IB_WC_SUCCESS,
					      &wc, "send completion") ||
				    vt_ud_recv(o, &qa, &qb, rid, off, len, seed,
					       ops[i] == IB_WR_SEND_WITH_IMM,
					       g, &o->sb.gid, "receive")) {
					vt_why(run, "(at %u bytes)", len);
					break;
				}
			}
			vt_result(run, "ud %s%s: 1..%d B: data, byte_len, %s%s%s",
				  vt_wr_name(ops[i]), g ? " with GRH" : "",
				  mtu, "src_qp, slid, GRH flag",
				  g ? ", GRH SGID/DGID" : "",
				  ops[i] == IB_WR_SEND_WITH_IMM ?
				  ", immediate data" : "");
		}
		if (ah)
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		else
			vt_result(run, "ud: address handle");
	}
	vt_pair_destroy(&qa, &qb);
}

/* --------------------------------------------------------------------- */
/* UD multicast                                                          */
/* --------------------------------------------------------------------- */

#define VT_MLID		0xc001

static const union ib_gid vt_mgid = {
	.raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
		 0, 0, 0, 0, 0, 0, 0xc0, 0x01 },
};

static void vt_ops_mcast(struct vt_ops *o)
{
	static const u32 sizes[] = { 1, 256, 2048 };
	struct vt_qp qa = {}, qb[2] = {};
	struct vt_run *run = o->run;
	union ib_gid mgid = vt_mgid;
	bool attached[2] = {};
	struct ib_ah *ah = NULL;
	struct vt_conn c;
	struct ib_wc wc;
	int i, k, ret;

	vt_conn_default(run, &c);
	if (vt_qp_create(run, &qa, &o->sa, IB_QPT_UD, NULL, 8, 8) ||
	    vt_qp_connect(run, &qa, 0, 0, &c))
		goto out;
	for (k = 0; k < 2; k++) {
		if (vt_qp_create(run, &qb[k], &o->sb, IB_QPT_UD, NULL, 8, 8) ||
		    vt_qp_connect(run, &qb[k], 0, 0, &c))
			goto out;
		ret = ib_attach_mcast(qb[k].qp, &mgid, VT_MLID);
		if (ret) {
			vt_why(run, "ib_attach_mcast(QP %u, MLID %#x): %d",
			       qb[k].qp->qp_num, VT_MLID, ret);
			goto out;
		}
		attached[k] = true;
	}
	ah = vt_create_ah(run, &o->sa, VT_MLID, &vt_mgid);
	if (!ah)
		goto out;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 len = sizes[i], seed = ++o->seed;
		u64 rid[2], sid = ++o->wr;

		vt_fill(o->ba.va, len, seed);
		for (k = 0; k < 2; k++) {
			rid[k] = ++o->wr;
			memset(o->bb.va + k * SZ_8K, VT_CANARY,
			       VT_GRH_BYTES + len + VT_TAIL);
			ret = vt_post_recv(&qb[k], rid[k],
					   o->bb.dma + k * SZ_8K,
					   VT_GRH_BYTES + len + VT_TAIL,
					   o->sb.pd->local_dma_lkey);
			if (ret) {
				vt_why(run, "ib_post_recv: %d", ret);
				goto out;
			}
		}
		ret = vt_post_ud(&qa, sid, IB_WR_SEND, o->ba.dma, len,
				 o->sa.pd->local_dma_lkey, 0, ah, 0xffffff);
		if (ret) {
			vt_why(run, "ib_post_send: %d", ret);
			goto out;
		}
		if (vt_expect(run, &qa.scq, sid, IB_WC_SUCCESS, &wc,
			      "send completion"))
			goto out;
		for (k = 0; k < 2; k++)
			if (vt_ud_recv(o, &qa, &qb[k], rid[k], k * SZ_8K, len,
				       seed, false, true, &vt_mgid,
				       k ? "second member" : "first member"))
				goto out;
	}
	vt_result(run, "ud multicast: MLID %#x + MGID: %s (%zu messages)",
		  VT_MLID, "both attached QPs receive, data and GRH checked",
		  ARRAY_SIZE(sizes));

	/* after detaching the second, only the first gets the message */
	ret = ib_detach_mcast(qb[1].qp, &mgid, VT_MLID);
	if (ret) {
		vt_why(run, "ib_detach_mcast: %d", ret);
		goto out;
	}
	attached[1] = false;
	{
		u32 len = 64, seed = ++o->seed;
		u64 rid0 = ++o->wr, rid1 = ++o->wr, sid = ++o->wr;

		vt_fill(o->ba.va, len, seed);
		memset(o->bb.va, VT_CANARY, VT_GRH_BYTES + len + VT_TAIL);
		ret = vt_post_recv(&qb[0], rid0, o->bb.dma,
				   VT_GRH_BYTES + len + VT_TAIL,
				   o->sb.pd->local_dma_lkey);
		if (!ret)
			ret = vt_post_recv(&qb[1], rid1, o->bb.dma + SZ_8K,
					   VT_GRH_BYTES + len + VT_TAIL,
					   o->sb.pd->local_dma_lkey);
		if (!ret)
			ret = vt_post_ud(&qa, sid, IB_WR_SEND, o->ba.dma, len,
					 o->sa.pd->local_dma_lkey, 0, ah,
					 0xffffff);
		if (ret) {
			vt_why(run, "posting: %d", ret);
			goto out;
		}
		if (vt_expect(run, &qa.scq, sid, IB_WC_SUCCESS, &wc,
			      "send completion") ||
		    vt_ud_recv(o, &qa, &qb[0], rid0, 0, len, seed, false,
			       true, &vt_mgid, "remaining member"))
			goto out;
		ret = vt_poll(run, &qb[1].rcq, &wc, 300);
		if (ret > 0)
			vt_why(run, "the detached QP still received (status %s)",
			       ib_wc_status_msg(wc.status));
	}
out:
	vt_result(run, "ud multicast: after ib_detach_mcast only the QP still attached receives");
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	for (k = 0; k < 2; k++) {
		if (attached[k])
			ib_detach_mcast(qb[k].qp, &mgid, VT_MLID);
		vt_qp_destroy(&qb[k]);
	}
	vt_qp_destroy(&qa);
}

/* --------------------------------------------------------------------- */
/* SRQ                                                                   */
/* --------------------------------------------------------------------- */

#define VT_SRQ_WR	32
#define VT_SRQ_MSGS	12	/* per connection */
#define VT_SRQ_LIMIT	10
#define VT_SRQ_SLOT	SZ_4K

static void vt_srq_event(struct ib_event *event, void *context)
{
	atomic_t *events = context;

	if (event->event < 32)
		atomic_or(BIT(event->event), events);
}

static void vt_ops_srq(struct vt_ops *o)
{
	struct vt_qp qa[2] = {}, qb[2] = {};
	struct ib_srq_init_attr init = {};
	struct vt_run *run = o->run;
	struct ib_srq_attr sattr = {};
	struct ib_srq *srq;
	atomic_t events = ATOMIC_INIT(0);
	u32 next[2] = {}, got = 0;
	struct vt_conn c;
	struct ib_wc wc;
	int i, p, ret;

	init.event_handler = vt_srq_event;
	init.srq_context = &events;
	init.attr.max_wr = VT_SRQ_WR * 2;
	init.attr.max_sge = 1;
	init.srq_type = IB_SRQT_BASIC;
	srq = ib_create_srq(o->sb.pd, &init);
	if (IS_ERR(srq)) {
		vt_why(run, "ib_create_srq: %ld", PTR_ERR(srq));
		vt_result(run, "srq: setup");
		return;
	}
	vt_conn_default(run, &c);
	c.mtu = IB_MTU_1024;
	for (p = 0; p < 2; p++) {
		if (vt_qp_create(run, &qa[p], &o->sa, IB_QPT_RC, NULL,
				 VT_SRQ_MSGS, 1) ||
		    vt_qp_create(run, &qb[p], &o->sb, IB_QPT_RC, srq, 4,
				 VT_SRQ_WR) ||
		    vt_qp_connect(run, &qa[p], o->sb.lid, qb[p].qp->qp_num, &c) ||
		    vt_qp_connect(run, &qb[p], o->sa.lid, qa[p].qp->qp_num, &c))
			goto out;
	}
	for (i = 0; i < VT_SRQ_WR; i++) {
		struct ib_sge sge = {
			.addr = o->bb.dma + i * VT_SRQ_SLOT,
			.length = VT_SRQ_SLOT,
			.lkey = o->sb.pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
		};

		ret = ib_post_srq_recv(srq, &wr, NULL);
		if (ret) {
			vt_why(run, "ib_post_srq_recv: %d", ret);
			goto out;
		}
	}
	sattr.srq_limit = VT_SRQ_LIMIT;
	ret = ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT);
	if (ret) {
		vt_why(run, "ib_modify_srq(IB_SRQ_LIMIT): %d", ret);
		goto out;
	}

	/* both connections send at once, from their own slots */
	for (i = 0; i < VT_SRQ_MSGS; i++) {
		for (p = 0; p < 2; p++) {
			u32 slot = p * VT_SRQ_MSGS + i;
			u32 len = 100 + (i * 377 + p * 1000) % 3900;

			vt_fill(o->ba.va + slot * VT_SRQ_SLOT, len,
				p << 16 | i);
			ret = vt_post_send(&qa[p], slot, IB_WR_SEND,
					   o->ba.dma + slot * VT_SRQ_SLOT, len,
					   o->sa.pd->local_dma_lkey, 0, 0, 0);
			if (ret) {
				vt_why(run, "ib_post_send: %d", ret);
				goto out;
			}
		}
	}
	for (i = 0; i < VT_SRQ_MSGS; i++)
		for (p = 0; p < 2; p++)
			if (vt_expect(run, &qa[p].scq, p * VT_SRQ_MSGS + i,
				      IB_WC_SUCCESS, &wc, "send completion"))
				goto out;
	while (got < 2 * VT_SRQ_MSGS) {
		for (p = 0; p < 2; p++) {
			u32 len = 100 + (next[p] * 377 + p * 1000) % 3900;
			u8 *buf;

			if (next[p] == VT_SRQ_MSGS)
				continue;
			ret = vt_poll(run, &qb[p].rcq, &wc, 50);
			if (ret < 0)
				goto out;
			if (!ret)
				continue;
			if (wc.status != IB_WC_SUCCESS) {
				vt_why(run, "receive status %s",
				       ib_wc_status_msg(wc.status));
				goto out;
			}
			if (wc.wr_id >= VT_SRQ_WR) {
				vt_why(run, "receive of unknown wr_id %llu",
				       wc.wr_id);
				goto out;
			}
			buf = o->bb.va + wc.wr_id * VT_SRQ_SLOT;
			if (vt_check_recv(run, &wc, &qb[p], IB_WC_RECV, len,
					  false, 0, "receive"))
				goto out;
			if (vt_verify(buf, len, p << 16 | next[p]) >= 0) {
				vt_why(run, "connection %d message %u: wrong data (out of order?)",
				       p, next[p]);
				goto out;
			}
			next[p]++;
			got++;
		}
		if (vt_aborted(run))
			goto out;
	}
	vt_result(run, "srq: %d SENDs on 2 RC QPs sharing an SRQ: %s",
		  2 * VT_SRQ_MSGS, "right QP, in order, data verified");
	if (!vt_wait_event(run, &events, IB_EVENT_SRQ_LIMIT_REACHED, 2000))
		vt_why(run, "no IB_EVENT_SRQ_LIMIT_REACHED after %d of %d WQEs were used",
		       got, VT_SRQ_WR);
out:
	vt_result(run, "srq: limit %d armed, IB_EVENT_SRQ_LIMIT_REACHED once fewer WQEs were left",
		  VT_SRQ_LIMIT);
	for (p = 0; p < 2; p++) {
		vt_qp_destroy(&qb[p]);
		vt_qp_destroy(&qa[p]);
	}
	ret = ib_destroy_srq(srq);
	vt_check(run, !ret, "srq: ib_destroy_srq after its QPs: %d", ret);
}

/* --------------------------------------------------------------------- */
/* Fast registration                                                     */
/* --------------------------------------------------------------------- */

#define VT_FR_PAGES	16
#define VT_FR_LEN	(VT_FR_PAGES * PAGE_SIZE)

/* Copy an MR's bytes out to a flat buffer. */
static void vt_frmr_read(struct vt_frmr *f, u8 *to, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += PAGE_SIZE)
		memcpy(to + i, vt_frmr_byte(f, i),
		       min_t(size_t, PAGE_SIZE, len - i));
}

static void vt_frmr_write(struct vt_frmr *f, const u8 *from, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += PAGE_SIZE)
		memcpy(vt_frmr_byte(f, i), from + i,
		       min_t(size_t, PAGE_SIZE, len - i));
}

/* An RDMA request from @qa into the MR, expecting @status. */
static int vt_frmr_rdma(struct vt_ops *o, struct vt_qp *qa,
			enum ib_wr_opcode op, u64 loff, u64 raddr, u32 rkey,
			u32 len, enum ib_wc_status status)
{
	u64 sid = ++o->wr;
	struct ib_wc wc;
	int ret;

	ret = vt_post_send(qa, sid, op, o->ba.dma + loff, len,
			   o->sa.pd->local_dma_lkey, 0, raddr, rkey);
	if (ret) {
		vt_why(o->run, "ib_post_send(%s): %d", vt_wr_name(op), ret);
		return ret;
	}
	return vt_expect(o->run, &qa->scq, sid, status, &wc, vt_wr_name(op));
}

static void vt_ops_frmr(struct vt_ops *o)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			   IB_ACCESS_REMOTE_READ;
	struct vt_qp qa = {}, qb = {};
	struct vt_run *run = o->run;
	u8 *scratch = o->ba.va + SZ_512K;
	struct vt_frmr f = {};
	u32 seed, old_key;
	struct vt_conn c;
	long bad;

	vt_conn_default(run, &c);
	c.mtu = IB_MTU_1024;
	if (vt_pair_create(run, &qa, &o->sa, &qb, &o->sb, IB_QPT_RC, &c, 8))
		goto report_reg;
	if (vt_frmr_alloc(run, &f, &o->sb, VT_FR_PAGES) ||
	    vt_frmr_reg(run, &qb, &f, access, ++o->wr))
		goto report_reg;
	vt_result(run, "frmr: ib_alloc_mr, ib_map_mr_sg over %d pages, REG_MR done",
		  VT_FR_PAGES);

	seed = ++o->seed;
	vt_fill(o->ba.va, VT_FR_LEN, seed);
	if (!vt_frmr_rdma(o, &qa, IB_WR_RDMA_WRITE, 0, f.mr->iova, f.mr->rkey,
			  VT_FR_LEN, IB_WC_SUCCESS)) {
		vt_frmr_read(&f, scratch, VT_FR_LEN);
		bad = vt_verify(scratch, VT_FR_LEN, seed);
		if (bad >= 0)
			vt_why(run, "byte %ld of the MR is wrong", bad);
	}
	vt_result(run, "frmr: RDMA_WRITE of %lu B through the rkey, every page right",
		  VT_FR_LEN);

	seed = ++o->seed;
	vt_fill(scratch, VT_FR_LEN, seed);
	vt_frmr_write(&f, scratch, VT_FR_LEN);
	memset(o->ba.va, VT_CANARY, 5000 + VT_TAIL);
	if (!vt_frmr_rdma(o, &qa, IB_WR_RDMA_READ, 0, f.mr->iova + 3000,
			  f.mr->rkey, 5000, IB_WC_SUCCESS)) {
		if (memcmp(o->ba.va, scratch + 3000, 5000))
			vt_why(run, "data read back differs");
		else if (vt_verify_byte(o->ba.va + 5000, VT_TAIL,
					VT_CANARY) >= 0)
			vt_why(run, "bytes after the READ were written");
	}
	vt_result(run, "frmr: RDMA_READ of 5000 bytes across pages through the fast-reg rkey");

	if (vt_frmr_inv(run, &qb, &f, ++o->wr))
		goto report_inv;
	memset(scratch, VT_CANARY, VT_FR_LEN);
	vt_frmr_write(&f, scratch, VT_FR_LEN);
	vt_fill(o->ba.va, 4096, ++o->seed);
	if (!vt_frmr_rdma(o, &qa, IB_WR_RDMA_WRITE, 0, f.mr->iova, f.mr->rkey,
			  4096, IB_WC_REM_ACCESS_ERR)) {
		vt_frmr_read(&f, scratch, VT_FR_LEN);
		if (vt_verify_byte(scratch, VT_FR_LEN, VT_CANARY) >= 0)
			vt_why(run, "the refused WRITE changed the memory");
	}
report_inv:
	vt_result(run, "frmr: after LOCAL_INV the rkey is refused: %s",
		  "REM_ACCESS_ERR, memory untouched");

	/* the pair is in error now: a new one, and a new key */
	vt_pair_destroy(&qa, &qb);
	old_key = f.mr->rkey;
	if (vt_pair_create(run, &qa, &o->sa, &qb, &o->sb, IB_QPT_RC, &c, 8) ||
	    vt_frmr_reg(run, &qb, &f, access, ++o->wr))
		goto report_rereg;
	if (f.mr->rkey == old_key) {
		vt_why(run, "the key did not change");
		goto report_rereg;
	}
	seed = ++o->seed;
	vt_fill(o->ba.va, 4096, seed);
	if (vt_frmr_rdma(o, &qa, IB_WR_RDMA_WRITE, 0, f.mr->iova + 100,
			 f.mr->rkey, 4096, IB_WC_SUCCESS))
		goto report_rereg;
	vt_frmr_read(&f, scratch, VT_FR_LEN);
	if (vt_verify(scratch + 100, 4096, seed) >= 0) {
		vt_why(run, "data written with the new key is wrong");
		goto report_rereg;
	}
	vt_frmr_rdma(o, &qa, IB_WR_RDMA_WRITE, 0, f.mr->iova, old_key, 16,
		     IB_WC_REM_ACCESS_ERR);
report_rereg:
	vt_result(run, "frmr: re-registered with key %#x: new key works, old key %#x refused",
		  f.mr ? f.mr->rkey : 0, old_key);
	goto out;

report_reg:
	vt_result(run, "frmr: ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR");
out:
	vt_pair_destroy(&qa, &qb);
	vt_frmr_free(&f);
}

/* --------------------------------------------------------------------- */
/* The command                                                           */
/* --------------------------------------------------------------------- */

static const char * const vt_ops_groups[] = {
	"rc", "atomic", "uc", "ud", "mcast", "srq", "frmr",
};

/**
 * vt_cmd_ops - "ops [GROUP]...": every operation, verified
 * @run: the command
 *
 * Return: 0, or -EINVAL for an unknown group.
 */
int vt_cmd_ops(struct vt_run *run)
{
	struct vt_ops *o;

	if (!vt_args_known(run, vt_ops_groups, ARRAY_SIZE(vt_ops_groups)))
		return -EINVAL;
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	o->run = run;
	if (vt_side_init(run, &o->sa, run->va, true) ||
	    vt_side_init(run, &o->sb, run->vb, true) ||
	    vt_buf_alloc(run, &o->ba, o->sa.dev, VT_OPS_BUF) ||
	    vt_buf_alloc(run, &o->bb, o->sb.dev, VT_OPS_BUF)) {
		vt_result(run, "ops: setup");
		goto out;
	}
	vt_out(run, "# %s LID %u, %s LID %u", ib_device_name(o->sa.dev),
	       o->sa.lid, ib_device_name(o->sb.dev), o->sb.lid);

	if (vt_has_arg(run, "rc"))
		vt_ops_rc_uc(o, IB_QPT_RC);
	if (vt_has_arg(run, "atomic") && !vt_aborted(run))
		vt_ops_atomic(o);
	if (vt_has_arg(run, "uc") && !vt_aborted(run))
		vt_ops_rc_uc(o, IB_QPT_UC);
	if (vt_has_arg(run, "ud") && !vt_aborted(run))
		vt_ops_ud(o);
	if (vt_has_arg(run, "mcast") && !vt_aborted(run))
		vt_ops_mcast(o);
	if (vt_has_arg(run, "srq") && !vt_aborted(run))
		vt_ops_srq(o);
	if (vt_has_arg(run, "frmr") && !vt_aborted(run))
		vt_ops_frmr(o);
out:
	vt_buf_free(&o->bb);
	vt_buf_free(&o->ba);
	vt_side_fini(&o->sb);
	vt_side_fini(&o->sa);
	kfree(o);
	return 0;
}
