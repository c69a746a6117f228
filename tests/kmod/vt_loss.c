// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "loss": what each transport guarantees when the fabric
 * drops or corrupts packets (the scenario sets the vmlx fault knobs
 * before running it).  Every message carries a sequence number, its
 * length and a CRC32 over the whole of it.
 *
 *   rc  every message delivered exactly once, in order, intact
 *   uc  messages may be lost; those delivered are intact and in order
 *   ud  messages may be lost; those delivered are intact, none twice
 *
 * With the "lossy" option UC and UD must have lost some messages (the
 * knobs were set); without it none may be lost.
 */
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "vt.h"

#define VT_LOSS_N	2000
#define VT_LOSS_MAX_N	4000
#define VT_LOSS_SLOT	(SZ_4K + 128)
#define VT_LOSS_MAGIC	0x6c6f7373
/* RC: messages in flight and receive WQEs kept posted */
#define VT_LOSS_WINDOW	16
#define VT_LOSS_RQ	128
/* UC/UD: messages sent between waits for the receiver */
#define VT_LOSS_BATCH	32
/* no progress for this long is a failure */
#define VT_LOSS_STALL_MS	30000

struct vt_lhdr {
	__le32	seq;
	__le32	len;
	__le32	crc;
	__le32	magic;
};

/**
 * struct vt_loss - state of one "loss" run
 * @run: the command
 * @type: the transport
 * @n: messages to send
 * @sa: sender side
 * @sb: receiver side
 * @ba: sender buffer (a slot per message in flight)
 * @bb: receiver buffer (a slot per receive WQE)
 * @qa: sender QP
 * @qb: receiver QP
 * @ah: UD address handle
 * @sent: messages posted
 * @scomp: send completions
 * @delivered: messages received intact, first time, in order
 * @dup: messages received again
 * @ooo: messages received after a later one
 * @corrupt: messages received damaged
 * @recv_err: receive completions with an error status
 * @expect: the next sequence number expected (RC), or the one after the
 *	last one received (UC, UD)
 */
struct vt_loss {
	struct vt_run	*run;
	enum ib_qp_type	type;
	u32		n;
	struct vt_side	sa;
	struct vt_side	sb;
	struct vt_buf	ba;
	struct vt_buf	bb;
	struct vt_qp	qa;
	struct vt_qp	qb;
	struct ib_ah	*ah;
	u32		sent;
	u32		scomp;
	u32		delivered;
	u32		dup;
	u32		ooo;
	u32		corrupt;
	u32		recv_err;
	u32		expect;
};

static u32 vt_loss_len(struct vt_loss *l, u32 seq)
{
	u32 span = l->type == IB_QPT_UD ? 1009 : 4081;

	return sizeof(struct vt_lhdr) + (seq * 7919u) % span;
}

static u32 vt_loss_crc(const struct vt_lhdr *h, const u8 *body, u32 blen)
{
	u32 crc = crc32_le(~0, (const u8 *)h, offsetof(struct vt_lhdr, crc));

	return ~crc32_le(crc, body, blen);
}

static void vt_loss_build(struct vt_loss *l, u32 seq, u8 *p)
{
	struct vt_lhdr *h = (struct vt_lhdr *)p;
	u32 len = vt_loss_len(l, seq);
	u8 *body = p + sizeof(*h);

	h->seq = cpu_to_le32(seq);
	h->len = cpu_to_le32(len);
	h->magic = cpu_to_le32(VT_LOSS_MAGIC);
	vt_fill(body, len - sizeof(*h), seq * 31 + l->type);
	h->crc = cpu_to_le32(vt_loss_crc(h, body, len - sizeof(*h)));
}

/* The sequence number of an intact message, or -1. */
static long vt_loss_parse(const u8 *p, u32 byte_len)
{
	const struct vt_lhdr *h = (const struct vt_lhdr *)p;
	u32 len = le32_to_cpu(h->len);

	if (byte_len < sizeof(*h) || len != byte_len ||
	    le32_to_cpu(h->magic) != VT_LOSS_MAGIC)
		return -1;
	if (le32_to_cpu(h->crc) != vt_loss_crc(h, p + sizeof(*h),
					       len - sizeof(*h)))
		return -1;
	return le32_to_cpu(h->seq);
}

static int vt_loss_post_send(struct vt_loss *l, u32 seq, u32 slot)
{
	u8 *p = l->ba.va + slot * VT_LOSS_SLOT;
	u64 addr = l->ba.dma + slot * VT_LOSS_SLOT;
	u32 lkey = l->sa.pd->local_dma_lkey;
	u32 len = vt_loss_len(l, seq);

	vt_loss_build(l, seq, p);
	if (l->type == IB_QPT_UD)
		return vt_post_ud(&l->qa, seq, IB_WR_SEND, addr, len, lkey, 0,
				  l->ah, l->qb.qp->qp_num);
	return vt_post_send(&l->qa, seq, IB_WR_SEND, addr, len, lkey, 0, 0, 0);
}

static int vt_loss_post_recv(struct vt_loss *l, u32 slot)
{
	return vt_post_recv(&l->qb, slot, l->bb.dma + slot * VT_LOSS_SLOT,
			    VT_LOSS_SLOT, l->sb.pd->local_dma_lkey);
}

/* Take the send completions there are; false on an error status. */
static bool vt_loss_send_done(struct vt_loss *l, int *progress)
{
	struct ib_wc wc;

	while (vt_poll_quiet(&l->qa.scq, &wc) > 0) {
		if (wc.status != IB_WC_SUCCESS || wc.wr_id != l->scomp) {
			vt_why(l->run, "send of message %llu: %s (expected message %u)",
			       wc.wr_id, ib_wc_status_msg(wc.status),
			       l->scomp);
			return false;
		}
		l->scomp++;
		(*progress)++;
	}
	return true;
}

/* Account for one receive completion; the slot is free again after. */
static void vt_loss_recv_one(struct vt_loss *l, struct ib_wc *wc)
{
	u32 hdr = l->type == IB_QPT_UD ? VT_GRH_BYTES : 0;
	long seq;

	if (wc->status != IB_WC_SUCCESS) {
		if (!l->recv_err++)
			vt_why(l->run, "receive completed with %s",
			       ib_wc_status_msg(wc->status));
		return;
	}
	if (wc->byte_len < hdr) {
		l->corrupt++;
		return;
	}
	seq = vt_loss_parse(l->bb.va + wc->wr_id * VT_LOSS_SLOT + hdr,
			    wc->byte_len - hdr);
	if (seq < 0 || seq >= l->n) {
		l->corrupt++;
	} else if (l->type == IB_QPT_RC) {
		if (seq == l->expect) {
			l->expect++;
			l->delivered++;
		} else if (seq < l->expect) {
			l->dup++;
		} else {
			l->ooo++;
		}
	} else if (seq >= l->expect) {
		l->expect = seq + 1;
		l->delivered++;
	} else {
		/* UC/UD: a number at or below one already seen */
		l->ooo++;
	}
}

static int vt_loss_recv_done(struct vt_loss *l, int *progress, bool repost)
{
	struct ib_wc wc;
	int ret;

	while (vt_poll_quiet(&l->qb.rcq, &wc) > 0) {
		vt_loss_recv_one(l, &wc);
		(*progress)++;
		if (repost && wc.status == IB_WC_SUCCESS) {
			ret = vt_loss_post_recv(l, wc.wr_id);
			if (ret) {
				vt_why(l->run, "ib_post_recv: %d", ret);
				return ret;
			}
		}
	}
	return 0;
}

/*
 * Sleep until one of the CQs has something, at most @ms.  The caller
 * takes what both CQs have before calling, so a missed event means new
 * completions; the CPU is still given up, for the HCA's work items.
 */
static void vt_loss_wait(struct vt_loss *l, unsigned int ms)
{
	int seen_s = atomic_read(&l->qa.scq.events);
	int seen_r = atomic_read(&l->qb.rcq.events);

	if (ib_req_notify_cq(l->qa.scq.cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0 ||
	    ib_req_notify_cq(l->qb.rcq.cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0) {
		cond_resched();
		return;
	}
	wait_event_timeout(l->qb.rcq.wait,
			   atomic_read(&l->qa.scq.events) != seen_s ||
			   atomic_read(&l->qb.rcq.events) != seen_r,
			   msecs_to_jiffies(ms));
}

static void vt_loss_rc(struct vt_loss *l)
{
	unsigned long last = jiffies;
	int late = 0;
	u32 i;

	for (i = 0; i < VT_LOSS_RQ; i++) {
		if (vt_loss_post_recv(l, i)) {
			vt_why(l->run, "ib_post_recv failed");
			return;
		}
	}
	while (l->scomp < l->n || l->delivered < l->n) {
		int progress = 0;

		while (l->sent < l->n && l->sent - l->scomp < VT_LOSS_WINDOW) {
			if (vt_loss_post_send(l, l->sent,
					      l->sent % VT_LOSS_WINDOW)) {
				vt_why(l->run, "ib_post_send failed");
				return;
			}
			l->sent++;
		}
		if (!vt_loss_send_done(l, &progress) ||
		    vt_loss_recv_done(l, &progress, true))
			return;
		if (l->recv_err || l->dup || l->ooo || l->corrupt)
			return;
		if (progress) {
			last = jiffies;
			continue;
		}
		if (vt_aborted(l->run))
			return;
		if (time_after(jiffies, last +
			       msecs_to_jiffies(VT_LOSS_STALL_MS))) {
			vt_why(l->run, "stalled: %u sent, %u completed, %u delivered",
			       l->sent, l->scomp, l->delivered);
			return;
		}
		vt_loss_wait(l, 5);
	}
	/* late duplicates would show up now */
	msleep(100);
	vt_loss_recv_done(l, &late, false);
}

/* Wait until the receiver has nothing more for @idle_ms, or has @want. */
static int vt_loss_settle(struct vt_loss *l, u32 want, unsigned int idle_ms)
{
	unsigned long last = jiffies;
	u32 seen;

	for (;;) {
		int progress = 0;

		if (vt_loss_recv_done(l, &progress, false))
			return -EIO;
		seen = l->delivered + l->dup + l->ooo + l->corrupt +
			l->recv_err;
		if (seen >= want)
			return 0;
		if (progress)
			last = jiffies;
		else if (time_after(jiffies, last + msecs_to_jiffies(idle_ms)))
			return 0;
		if (vt_aborted(l->run))
			return -EINTR;
		vt_loss_wait(l, 5);
	}
}

static void vt_loss_uc_ud(struct vt_loss *l)
{
	unsigned long last;
	u32 i;

	/* every message has its receive WQE waiting: losses are the fabric's */
	for (i = 0; i < l->n; i++) {
		if (vt_loss_post_recv(l, i)) {
			vt_why(l->run, "ib_post_recv failed");
			return;
		}
	}
	while (l->sent < l->n) {
		u32 end = min(l->n, l->sent + VT_LOSS_BATCH);

		for (; l->sent < end; l->sent++) {
			if (vt_loss_post_send(l, l->sent,
					      l->sent % VT_LOSS_BATCH)) {
				vt_why(l->run, "ib_post_send failed");
				return;
			}
		}
		last = jiffies;
		while (l->scomp < l->sent) {
			int progress = 0;

			if (!vt_loss_send_done(l, &progress) ||
			    vt_loss_recv_done(l, &progress, false))
				return;
			if (progress) {
				last = jiffies;
				continue;
			}
			if (vt_aborted(l->run))
				return;
			if (time_after(jiffies, last +
				       msecs_to_jiffies(VT_LOSS_STALL_MS))) {
				vt_why(l->run, "send completions stalled at %u of %u",
				       l->scomp, l->sent);
				return;
			}
			vt_loss_wait(l, 5);
		}
		/* pace the sender: let the receiver catch up */
		if (vt_loss_settle(l, l->sent, 20))
			return;
	}
	vt_loss_settle(l, l->n, 1000);
}

static void vt_loss_one(struct vt_run *run, enum ib_qp_type type)
{
	const char *tname = type == IB_QPT_RC ? "rc" :
		type == IB_QPT_UC ? "uc" : "ud";
	struct vt_loss *l;
	struct vt_conn c;
	ktime_t start;
	u32 rq, lost;
	s64 ms;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l) {
		vt_check(run, false, "loss %s: no memory", tname);
		return;
	}
	l->run = run;
	l->type = type;
	l->n = run->n ? min_t(unsigned int, run->n, VT_LOSS_MAX_N) : VT_LOSS_N;
	rq = type == IB_QPT_RC ? VT_LOSS_RQ : l->n;
	vt_conn_default(run, &c);
	c.mtu = run->mtu ? c.mtu : IB_MTU_1024;

	if (vt_side_init(run, &l->sa, run->va, true) ||
	    vt_side_init(run, &l->sb, run->vb, true) ||
	    vt_buf_alloc(run, &l->ba, l->sa.dev,
			 VT_LOSS_SLOT * max(VT_LOSS_WINDOW, VT_LOSS_BATCH)) ||
	    vt_buf_alloc(run, &l->bb, l->sb.dev, (size_t)VT_LOSS_SLOT * rq) ||
	    vt_qp_create(run, &l->qa, &l->sa, type, NULL, VT_LOSS_BATCH, 1) ||
	    vt_qp_create(run, &l->qb, &l->sb, type, NULL, 1, rq) ||
	    vt_qp_connect(run, &l->qa, l->sb.lid, l->qb.qp->qp_num, &c) ||
	    vt_qp_connect(run, &l->qb, l->sa.lid, l->qa.qp->qp_num, &c)) {
		vt_result(run, "loss %s: setup", tname);
		goto out;
	}
	/* both CQ handlers wake the receive CQ's queue: vt_loss_wait() */
	WRITE_ONCE(l->qa.scq.waitp, &l->qb.rcq.wait);
	if (type == IB_QPT_UD) {
		l->ah = vt_create_ah(run, &l->sa, l->sb.lid, NULL);
		if (!l->ah) {
			vt_result(run, "loss %s: setup", tname);
			goto out;
		}
	}

	start = ktime_get();
	if (type == IB_QPT_RC)
		vt_loss_rc(l);
	else
		vt_loss_uc_ud(l);
	ms = ktime_ms_delta(ktime_get(), start);
	lost = l->sent - min(l->sent, l->delivered + l->dup + l->ooo +
			     l->corrupt + l->recv_err);
	vt_out(run, "# loss %s: sent %u completed %u delivered %u lost %u in %lld ms",
	       tname, l->sent, l->scomp, l->delivered, lost, ms);
	vt_out(run, "# loss %s: duplicates %u out-of-order %u corrupted %u receive-errors %u",
	       tname, l->dup, l->ooo, l->corrupt, l->recv_err);
	if (run->why[0])
		vt_out(run, "# loss %s: sender QP %u %s, receiver QP %u %s", tname,
		       l->qa.qp->qp_num, vt_state_str(vt_qp_state(&l->qa)),
		       l->qb.qp->qp_num, vt_state_str(vt_qp_state(&l->qb)));

	if (type == IB_QPT_RC) {
		if (l->delivered != l->n || l->dup || l->ooo || l->corrupt)
			vt_why(run, "%u of %u delivered, %u dup, %u out of order, %u corrupted",
			       l->delivered, l->n, l->dup, l->ooo, l->corrupt);
		vt_result(run, "loss rc: %u messages of 16..4096 B: %s", l->n,
			  "each delivered exactly once, in order, intact");
		goto out;
	}

	if (l->sent != l->n || l->scomp != l->n)
		vt_why(run, "only %u of %u sent and %u completed", l->sent,
		       l->n, l->scomp);
	vt_result(run, "loss %s: all %u sends completed successfully", tname,
		  l->n);
	if (l->corrupt || l->recv_err)
		vt_why(run, "%u corrupted messages delivered, %u receive errors",
		       l->corrupt, l->recv_err);
	vt_result(run, "loss %s: no corrupted message delivered (%u delivered)",
		  tname, l->delivered);
	if (type == IB_QPT_UC) {
		if (l->ooo)
			vt_why(run, "%u messages out of order or twice",
			       l->ooo);
		vt_result(run, "loss uc: delivered messages in order, none twice");
	} else {
		if (l->ooo)
			vt_out(run, "# loss ud: %u messages out of order", l->ooo);
	}
	if (run->lossy && !lost)
		vt_why(run, "nothing was lost: are the fault knobs set?");
	if (!run->lossy && lost)
		vt_why(run, "%u lost without faults", lost);
	vt_result(run, "loss %s: %s (%u of %u lost)", tname,
		  run->lossy ? "some messages lost, as the faults make them" :
		  "no message lost without faults", lost, l->n);
out:
	if (l->ah)
		rdma_destroy_ah(l->ah, RDMA_DESTROY_AH_SLEEPABLE);
	vt_qp_destroy(&l->qb);
	vt_qp_destroy(&l->qa);
	vt_buf_free(&l->bb);
	vt_buf_free(&l->ba);
	vt_side_fini(&l->sb);
	vt_side_fini(&l->sa);
	kfree(l);
}

/**
 * vt_cmd_loss - "loss [rc|uc|ud]... [n=N] [lossy]"
 * @run: the command
 *
 * Return: 0, or -EINVAL for an unknown transport.
 */
int vt_cmd_loss(struct vt_run *run)
{
	static const char * const transports[] = { "rc", "uc", "ud" };

	if (!vt_args_known(run, transports, ARRAY_SIZE(transports)))
		return -EINVAL;
	if (vt_has_arg(run, "rc"))
		vt_loss_one(run, IB_QPT_RC);
	if (vt_has_arg(run, "uc") && !vt_aborted(run))
		vt_loss_one(run, IB_QPT_UC);
	if (vt_has_arg(run, "ud") && !vt_aborted(run))
		vt_loss_one(run, IB_QPT_UD);
	return 0;
}
