// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "errors" and "unreachable": each error completion status
 * produced on purpose, with the states both QPs must end in (IBA 10.8.3
 * and the responder error classes of 9.9.3), and the data checked
 * untouched where the request was refused.
 *
 *   rem_access_write  RDMA WRITE with a bad rkey: REM_ACCESS_ERR
 *   rem_access_read   RDMA READ with a bad rkey: REM_ACCESS_ERR
 *   loc_len           SEND larger than the receive buffer: the receiver
 *                     gets LOC_LEN_ERR, the sender REM_INV_REQ_ERR
 *   loc_prot          SEND with a bad lkey: LOC_PROT_ERR
 *   retry_exc         the remote QP destroyed: RETRY_EXC_ERR
 *   rnr_retry_exc     no receive posted, rnr_retry 1: RNR_RETRY_EXC_ERR
 *   flush             QP moved to ERR with work on both queues:
 *                     every request WR_FLUSH_ERR, also those posted after
 */
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "vt.h"

#define VT_ERR_BUF	SZ_64K

/**
 * struct vt_err - state of an "errors" command
 * @run: the command
 * @sa: the requester side
 * @sb: the responder side
 * @ba: a buffer on @sa
 * @bb: a buffer on @sb
 * @wr: the last wr_id handed out
 */
struct vt_err {
	struct vt_run	*run;
	struct vt_side	sa;
	struct vt_side	sb;
	struct vt_buf	ba;
	struct vt_buf	bb;
	u64		wr;
};

/* A key that names no MR: another index, the same variant byte. */
static u32 vt_bad_key(u32 key)
{
	return key ^ 0x00ffff00;
}

static void vt_want_state(struct vt_err *e, struct vt_qp *q,
			  enum ib_qp_state state, const char *who)
{
	int now;

	if (vt_wait_qp_state(e->run, q, state, 2000))
		return;
	now = vt_qp_state(q);
	vt_why(e->run, "%s QP is in %s, expected %s", who, vt_state_str(now),
	       vt_state_str(state));
}

static void vt_err_rem_access(struct vt_err *e, enum ib_wr_opcode op)
{
	const char *name = op == IB_WR_RDMA_WRITE ? "write" : "read";
	struct vt_run *run = e->run;
	struct vt_qp qa = {}, qb = {};
	struct ib_wc wc;
	struct vt_conn c;
	u64 sid;
	int ret;

	vt_conn_default(run, &c);
	if (vt_pair_create(run, &qa, &e->sa, &qb, &e->sb, IB_QPT_RC, &c, 8))
		goto report;
	memset(e->bb.va, VT_CANARY, 4096);
	memset(e->ba.va, VT_CANARY, 4096);
	if (op == IB_WR_RDMA_WRITE)
		vt_fill(e->ba.va, 1024, 1);
	sid = ++e->wr;
	ret = vt_post_send(&qa, sid, op, e->ba.dma, 1024,
			   e->sa.pd->local_dma_lkey, 0, e->bb.dma,
			   vt_bad_key(e->sb.pd->unsafe_global_rkey));
	if (ret) {
		vt_why(run, "ib_post_send: %d", ret);
		goto report;
	}
	if (vt_expect(run, &qa.scq, sid, IB_WC_REM_ACCESS_ERR, &wc,
		      "requester"))
		goto report;
	if (op == IB_WR_RDMA_WRITE &&
	    vt_verify_byte(e->bb.va, 4096, VT_CANARY) >= 0)
		vt_why(run, "the remote memory was written");
	if (op == IB_WR_RDMA_READ &&
	    vt_verify_byte(e->ba.va, 4096, VT_CANARY) >= 0)
		vt_why(run, "the local buffer was written");
	vt_want_state(e, &qa, IB_QPS_ERR, "requester");
report:
	vt_result(run, "errors rem_access_%s: bad rkey: REM_ACCESS_ERR, %s",
		  name, "memory untouched, requester QP in ERR");
	if (qb.qp) {
		vt_want_state(e, &qb, IB_QPS_ERR, "responder");
		vt_result(run, "errors rem_access_%s: responder QP moved to ERR",
			  name);
		if (!vt_wait_event(run, &qb.events, IB_EVENT_QP_ACCESS_ERR,
				   1000))
			vt_why(run, "no IB_EVENT_QP_ACCESS_ERR (events %#x)",
			       atomic_read(&qb.events));
		vt_result(run, "errors rem_access_%s: responder got IB_EVENT_QP_ACCESS_ERR",
			  name);
	}
	vt_pair_destroy(&qa, &qb);
}

static void vt_err_loc_len(struct vt_err *e)
{
	struct vt_run *run = e->run;
	struct vt_qp qa = {}, qb = {};
	struct ib_wc wc;
	struct vt_conn c;
	u64 rid, sid = 0;
	int ret;

	vt_conn_default(run, &c);
	if (vt_pair_create(run, &qa, &e->sa, &qb, &e->sb, IB_QPT_RC, &c, 8))
		goto report;
	memset(e->bb.va, VT_CANARY, 4096);
	vt_fill(e->ba.va, 100, 2);
	rid = ++e->wr;
	sid = ++e->wr;
	ret = vt_post_recv(&qb, rid, e->bb.dma, 16, e->sb.pd->local_dma_lkey);
	if (!ret)
		ret = vt_post_send(&qa, sid, IB_WR_SEND, e->ba.dma, 100,
				   e->sa.pd->local_dma_lkey, 0, 0, 0);
	if (ret) {
		vt_why(run, "posting: %d", ret);
		goto report;
	}
	if (vt_expect(run, &qb.rcq, rid, IB_WC_LOC_LEN_ERR, &wc, "receiver"))
		goto report;
	if (vt_verify_byte(e->bb.va + 16, 4096 - 16, VT_CANARY) >= 0)
		vt_why(run, "bytes past the 16-byte receive buffer were written");
	vt_want_state(e, &qb, IB_QPS_ERR, "receiver");
report:
	vt_result(run, "errors loc_len: 100 B SEND, 16 B receive buffer: %s",
		  "receiver LOC_LEN_ERR, nothing past the buffer, QP in ERR");
	if (qa.qp) {
		if (!vt_expect(run, &qa.scq, sid, IB_WC_REM_INV_REQ_ERR, &wc,
			       "sender"))
			vt_want_state(e, &qa, IB_QPS_ERR, "sender");
		vt_result(run, "errors loc_len: sender gets REM_INV_REQ_ERR, sender QP in ERR");
	}
	vt_pair_destroy(&qa, &qb);
}

static void vt_err_loc_prot(struct vt_err *e)
{
	struct vt_run *run = e->run;
	struct vt_qp qa = {}, qb = {};
	struct ib_wc wc;
	struct vt_conn c;
	u64 rid, sid;
	int ret;

	vt_conn_default(run, &c);
	if (vt_pair_create(run, &qa, &e->sa, &qb, &e->sb, IB_QPT_RC, &c, 8))
		goto report;
	memset(e->bb.va, VT_CANARY, 4096);
	rid = ++e->wr;
	sid = ++e->wr;
	ret = vt_post_recv(&qb, rid, e->bb.dma, 4096,
			   e->sb.pd->local_dma_lkey);
	if (!ret)
		ret = vt_post_send(&qa, sid, IB_WR_SEND, e->ba.dma, 100,
				   vt_bad_key(e->sa.pd->local_dma_lkey), 0, 0,
				   0);
	if (ret) {
		vt_why(run, "posting: %d", ret);
		goto report;
	}
	if (vt_expect(run, &qa.scq, sid, IB_WC_LOC_PROT_ERR, &wc, "sender"))
		goto report;
	vt_want_state(e, &qa, IB_QPS_ERR, "sender");
	ret = vt_poll(run, &qb.rcq, &wc, 200);
	if (ret > 0)
		vt_why(run, "the receiver got a completion (%s)",
		       ib_wc_status_msg(wc.status));
	else if (vt_verify_byte(e->bb.va, 4096, VT_CANARY) >= 0)
		vt_why(run, "the receive buffer was written");
	else if (vt_qp_state(&qb) != IB_QPS_RTS)
		vt_why(run, "the receiver QP left RTS (%s)",
		       vt_state_str(vt_qp_state(&qb)));
report:
	vt_result(run, "errors loc_prot: bad lkey: LOC_PROT_ERR, %s",
		  "sender QP in ERR, receiver untouched and still RTS");
	vt_pair_destroy(&qa, &qb);
}

static void vt_err_retry_exc(struct vt_err *e)
{
	struct vt_run *run = e->run;
	struct vt_qp qa = {}, qb = {};
	struct ib_wc wc;
	struct vt_conn c;
	ktime_t start;
	u64 sid;
	int ret;

	vt_conn_default(run, &c);
	c.timeout = 10;		/* 4 ms */
	c.retry_cnt = 2;
	if (vt_pair_create(run, &qa, &e->sa, &qb, &e->sb, IB_QPT_RC, &c, 8))
		goto report;
	vt_qp_destroy(&qb);
	sid = ++e->wr;
	start = ktime_get();
	ret = vt_post_send(&qa, sid, IB_WR_SEND, e->ba.dma, 64,
			   e->sa.pd->local_dma_lkey, 0, 0, 0);
	if (ret) {
		vt_why(run, "ib_post_send: %d", ret);
		goto report;
	}
	if (vt_expect(run, &qa.scq, sid, IB_WC_RETRY_EXC_ERR, &wc, "sender"))
		goto report;
	vt_out(run, "# errors retry_exc: RETRY_EXC_ERR after %lld ms (timeout 4 ms, retry_cnt 2)",
	       ktime_ms_delta(ktime_get(), start));
	vt_want_state(e, &qa, IB_QPS_ERR, "sender");
report:
	vt_result(run, "errors retry_exc: SEND to a destroyed QP: %s",
		  "RETRY_EXC_ERR (retry_cnt 2), sender QP in ERR");
	vt_pair_destroy(&qa, &qb);
}

static void vt_err_rnr(struct vt_err *e)
{
	struct vt_run *run = e->run;
	struct vt_qp qa = {}, qb = {};
	struct ib_wc wc;
	struct vt_conn c;
	u64 sid;
	int ret;

	vt_conn_default(run, &c);
	c.rnr_retry = 1;
	c.min_rnr_timer = 1;	/* 0.01 ms */
	if (vt_pair_create(run, &qa, &e->sa, &qb, &e->sb, IB_QPT_RC, &c, 8))
		goto report;
	sid = ++e->wr;
	ret = vt_post_send(&qa, sid, IB_WR_SEND, e->ba.dma, 64,
			   e->sa.pd->local_dma_lkey, 0, 0, 0);
	if (ret) {
		vt_why(run, "ib_post_send: %d", ret);
		goto report;
	}
	if (vt_expect(run, &qa.scq, sid, IB_WC_RNR_RETRY_EXC_ERR, &wc,
		      "sender"))
		goto report;
	vt_want_state(e, &qa, IB_QPS_ERR, "sender");
	ret = vt_qp_state(&qb);
	if (ret != IB_QPS_RTS)
		vt_why(run, "the receiver QP left RTS (%s)", vt_state_str(ret));
report:
	vt_result(run, "errors rnr_retry_exc: no receive posted: %s",
		  "RNR_RETRY_EXC_ERR (rnr_retry 1), sender in ERR, receiver RTS");
	vt_pair_destroy(&qa, &qb);
}

#define VT_FLUSH_N	8

/* Take @n completions of one queue, each WR_FLUSH_ERR, wr_ids in order. */
static int vt_flushed(struct vt_run *run, struct vt_cq *cq, u64 first, int n,
		      const char *what)
{
	struct ib_wc wc;
	int i;

	for (i = 0; i < n; i++)
		if (vt_expect(run, cq, first + i, IB_WC_WR_FLUSH_ERR, &wc,
			      what))
			return -EIO;
	if (vt_poll_quiet(cq, &wc) > 0) {
		vt_why(run, "%s: an extra completion (wr_id %llu, %s)", what,
		       wc.wr_id, ib_wc_status_msg(wc.status));
		return -EIO;
	}
	return 0;
}

static void vt_err_flush(struct vt_err *e)
{
	struct vt_run *run = e->run;
	struct vt_qp qa = {};
	struct vt_conn c;
	u64 first_r, first_s;
	int i, ret = 0;

	/* a path to a LID nobody has: the sends wait for ACKs for long */
	vt_conn_default(run, &c);
	c.timeout = 20;		/* 4.3 s */
	if (vt_qp_create(run, &qa, &e->sa, IB_QPT_RC, NULL, VT_FLUSH_N + 1,
			 VT_FLUSH_N + 1) ||
	    vt_qp_connect(run, &qa, 0x77, 0x99, &c))
		goto report;
	first_r = e->wr + 1;
	for (i = 0; i < VT_FLUSH_N && !ret; i++)
		ret = vt_post_recv(&qa, ++e->wr, e->ba.dma + i * 1024, 1024,
				   e->sa.pd->local_dma_lkey);
	first_s = e->wr + 1;
	for (i = 0; i < VT_FLUSH_N && !ret; i++)
		ret = vt_post_send(&qa, ++e->wr, IB_WR_SEND,
				   e->ba.dma + SZ_16K + i * 1024, 1024,
				   e->sa.pd->local_dma_lkey, 0, 0, 0);
	if (ret) {
		vt_why(run, "posting: %d", ret);
		goto report;
	}
	ret = vt_qp_modify_state(&qa, IB_QPS_ERR);
	if (ret) {
		vt_why(run, "ib_modify_qp(ERR): %d", ret);
		goto report;
	}
	if (vt_flushed(run, &qa.scq, first_s, VT_FLUSH_N, "send queue") ||
	    vt_flushed(run, &qa.rcq, first_r, VT_FLUSH_N, "receive queue"))
		goto report;
	vt_result(run, "errors flush: to ERR with %d sends, %d receives: %s",
		  VT_FLUSH_N, VT_FLUSH_N, "each WR_FLUSH_ERR once, in order");

	/* requests posted in ERR are flushed too (ib_drain_qp needs it) */
	first_r = ++e->wr;
	first_s = ++e->wr;
	ret = vt_post_recv(&qa, first_r, e->ba.dma, 1024,
			   e->sa.pd->local_dma_lkey);
	if (!ret)
		ret = vt_post_send(&qa, first_s, IB_WR_SEND, e->ba.dma, 1024,
				   e->sa.pd->local_dma_lkey, 0, 0, 0);
	if (ret)
		vt_why(run, "posting in ERR: %d", ret);
	else if (!vt_flushed(run, &qa.scq, first_s, 1, "send posted in ERR"))
		vt_flushed(run, &qa.rcq, first_r, 1, "receive posted in ERR");
report:
	vt_result(run, "errors flush: requests posted in ERR complete with WR_FLUSH_ERR");
	vt_qp_destroy(&qa);
}

static const char * const vt_err_cases[] = {
	"rem_access_write", "rem_access_read", "loc_len", "loc_prot",
	"retry_exc", "rnr_retry_exc", "flush",
};

static int vt_err_setup(struct vt_run *run, struct vt_err *e,
			bool need_active)
{
	e->run = run;
	if (vt_side_init(run, &e->sa, run->va, need_active) ||
	    vt_side_init(run, &e->sb, run->vb, need_active) ||
	    vt_buf_alloc(run, &e->ba, e->sa.dev, VT_ERR_BUF) ||
	    vt_buf_alloc(run, &e->bb, e->sb.dev, VT_ERR_BUF)) {
		vt_result(run, "errors: setup");
		return -EIO;
	}
	return 0;
}

static void vt_err_teardown(struct vt_err *e)
{
	vt_buf_free(&e->bb);
	vt_buf_free(&e->ba);
	vt_side_fini(&e->sb);
	vt_side_fini(&e->sa);
}

/**
 * vt_cmd_errors - "errors [CASE]...": each error status on purpose
 * @run: the command
 *
 * Return: 0, or -EINVAL for an unknown case.
 */
int vt_cmd_errors(struct vt_run *run)
{
	struct vt_err *e;

	if (!vt_args_known(run, vt_err_cases, ARRAY_SIZE(vt_err_cases)))
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	if (vt_err_setup(run, e, true))
		goto out;
	if (vt_has_arg(run, "rem_access_write"))
		vt_err_rem_access(e, IB_WR_RDMA_WRITE);
	if (vt_has_arg(run, "rem_access_read") && !vt_aborted(run))
		vt_err_rem_access(e, IB_WR_RDMA_READ);
	if (vt_has_arg(run, "loc_len") && !vt_aborted(run))
		vt_err_loc_len(e);
	if (vt_has_arg(run, "loc_prot") && !vt_aborted(run))
		vt_err_loc_prot(e);
	if (vt_has_arg(run, "retry_exc") && !vt_aborted(run))
		vt_err_retry_exc(e);
	if (vt_has_arg(run, "rnr_retry_exc") && !vt_aborted(run))
		vt_err_rnr(e);
	if (vt_has_arg(run, "flush") && !vt_aborted(run))
		vt_err_flush(e);
out:
	vt_err_teardown(e);
	kfree(e);
	return 0;
}

/**
 * vt_cmd_unreachable - "unreachable": RC to a peer the fabric cannot
 * reach (ports not ACTIVE, LID 0, or a link down) ends in RETRY_EXC_ERR
 * @run: the command
 *
 * Return: 0.
 */
int vt_cmd_unreachable(struct vt_run *run)
{
	struct vt_qp qa = {}, qb = {};
	struct ib_port_attr pa = {}, pb = {};
	struct ib_wc wc;
	struct vt_conn c;
	struct vt_err *e;
	u64 sid;
	int ret;

	if (run->argc)
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	if (vt_err_setup(run, e, false))
		goto out;
	ib_query_port(e->sa.dev, e->sa.port, &pa);
	ib_query_port(e->sb.dev, e->sb.port, &pb);
	vt_out(run, "# %s port 1: state %d LID %u; %s port 1: state %d LID %u",
	       ib_device_name(e->sa.dev), pa.state, pa.lid,
	       ib_device_name(e->sb.dev), pb.state, pb.lid);

	vt_conn_default(run, &c);
	c.timeout = 10;
	c.retry_cnt = 2;
	if (vt_pair_create(run, &qa, &e->sa, &qb, &e->sb, IB_QPT_RC, &c, 8))
		goto report;
	ret = vt_post_recv(&qb, ++e->wr, e->bb.dma, 1024,
			   e->sb.pd->local_dma_lkey);
	sid = ++e->wr;
	if (!ret)
		ret = vt_post_send(&qa, sid, IB_WR_SEND, e->ba.dma, 64,
				   e->sa.pd->local_dma_lkey, 0, 0, 0);
	if (ret) {
		vt_why(run, "posting: %d", ret);
		goto report;
	}
	if (!vt_expect(run, &qa.scq, sid, IB_WC_RETRY_EXC_ERR, &wc, "sender"))
		vt_want_state(e, &qa, IB_QPS_ERR, "sender");
	ret = vt_poll(run, &qb.rcq, &wc, 100);
	if (ret > 0)
		vt_why(run, "the peer received the message (%s)",
		       ib_wc_status_msg(wc.status));
report:
	vt_result(run, "unreachable: RC SEND %s (LID %u) -> %s (LID %u): %s",
		  ib_device_name(e->sa.dev), e->sa.lid,
		  ib_device_name(e->sb.dev), e->sb.lid,
		  "not delivered, RETRY_EXC_ERR");
	vt_pair_destroy(&qa, &qb);
out:
	vt_err_teardown(e);
	kfree(e);
	return 0;
}
