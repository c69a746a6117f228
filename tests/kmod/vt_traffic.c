// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "traffic" and "bench".
 *
 * traffic start: a kernel thread keeps RC RDMA WRITEs and SENDs (with
 * sequence numbers the receiver checks) flowing from the first device to
 * the second, like a storage ULP would, with CQs from ib_alloc_cq()
 * (IB_POLL_DIRECT) and completions through ib_cqe callbacks.  It runs
 * until "traffic stop", or until one of its devices is removed: the
 * client's remove callback stops it, drains both QPs (moving them to ERR,
 * waiting for every request to flush, then ib_drain_qp()) and destroys
 * everything, so that "rmmod vmlx" under load ends cleanly.
 *
 * bench: RC RDMA WRITEs of 64 KiB with 16 in flight for a fixed time, and
 * memcpy() of 64 KiB buffers for the same time, in MB/s; then the median
 * time from posting one 8-byte RC RDMA WRITE to taking its completion.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "vt.h"

#define VT_TR_WINDOW	8		/* WRITE+SEND pairs in flight */
#define VT_TR_RQ	32		/* receives kept posted */
#define VT_TR_WRITE	SZ_16K
#define VT_TR_SEND	64
#define VT_TR_DRAIN_MS	10000

/**
 * struct vt_traffic - the background traffic
 * @va: the sending device
 * @vb: the receiving device
 * @sa: sender side (PD)
 * @sb: receiver side (PD, with the global rkey the WRITEs use)
 * @ba: sender buffer
 * @bb: receiver buffer: the WRITE target, then a slot per receive
 * @cqa: sender CQ
 * @cqb: receiver CQ
 * @qa: sender QP
 * @qb: receiver QP
 * @write_cqe: completion entry of the WRITEs
 * @send_cqe: completion entry of the SENDs
 * @recv_cqe: completion entry of the receives
 * @task: the thread
 * @started: when it started
 * @writes: WRITEs completed
 * @sends: SENDs completed
 * @recvs: receives completed, in order
 * @flushed: requests completed with WR_FLUSH_ERR during the drain
 * @errors: other errors: bad status, wrong sequence number
 * @first_error: what the first error was
 * @posted_send: send requests posted and not completed
 * @posted_recv: receive requests posted and not completed
 * @next_seq: the sequence number of the next SEND
 * @stopping: the QPs are being drained: nothing is reposted
 */
struct vt_traffic {
	struct vt_dev		*va;
	struct vt_dev		*vb;
	struct vt_side		sa;
	struct vt_side		sb;
	struct vt_buf		ba;
	struct vt_buf		bb;
	struct ib_cq		*cqa;
	struct ib_cq		*cqb;
	struct vt_qp		qa;
	struct vt_qp		qb;
	struct ib_cqe		write_cqe;
	struct ib_cqe		send_cqe;
	struct ib_cqe		recv_cqe;
	struct task_struct	*task;
	ktime_t			started;
	atomic64_t		writes;
	atomic64_t		sends;
	atomic64_t		recvs;
	atomic64_t		flushed;
	atomic_t		errors;
	char			first_error[96];
	int			posted_send;
	int			posted_recv;
	u64			next_seq;
	bool			stopping;
};

/* protects vt_traffic_cur and vt_traffic_summary */
static DEFINE_MUTEX(vt_traffic_lock);
static struct vt_traffic *vt_traffic_cur;
static char vt_traffic_summary[256];

static void vt_tr_error(struct vt_traffic *t, const char *what,
			enum ib_wc_status status)
{
	if (atomic_inc_return(&t->errors) == 1)
		snprintf(t->first_error, sizeof(t->first_error), "%s: %s",
			 what, ib_wc_status_msg(status));
}

static u32 vt_tr_recv_slot(u64 n)
{
	return VT_TR_WRITE + (n % VT_TR_RQ) * VT_TR_SEND;
}

static int vt_tr_post_recv(struct vt_traffic *t, u64 n)
{
	struct ib_sge sge = {
		.addr = t->bb.dma + vt_tr_recv_slot(n),
		.length = VT_TR_SEND,
		.lkey = t->sb.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &t->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret = ib_post_recv(t->qb.qp, &wr, NULL);

	if (!ret)
		t->posted_recv++;
	return ret;
}

static void vt_tr_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vt_traffic *t = cq->cq_context;

	t->posted_send--;
	if (wc->status == IB_WC_WR_FLUSH_ERR && t->stopping) {
		atomic64_inc(&t->flushed);
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		vt_tr_error(t, "send", wc->status);
		return;
	}
	if (wc->wr_cqe == &t->write_cqe)
		atomic64_inc(&t->writes);
	else
		atomic64_inc(&t->sends);
}

static void vt_tr_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vt_traffic *t = cq->cq_context;
	u64 n = atomic64_read(&t->recvs), seq;

	t->posted_recv--;
	if (wc->status == IB_WC_WR_FLUSH_ERR && t->stopping) {
		atomic64_inc(&t->flushed);
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		vt_tr_error(t, "receive", wc->status);
		return;
	}
	memcpy(&seq, t->bb.va + vt_tr_recv_slot(n), sizeof(seq));
	if (seq != n || wc->byte_len != VT_TR_SEND) {
		vt_tr_error(t, "receive out of sequence", wc->status);
		return;
	}
	atomic64_inc(&t->recvs);
	if (!t->stopping && vt_tr_post_recv(t, n + VT_TR_RQ))
		vt_tr_error(t, "repost receive", IB_WC_GENERAL_ERR);
}

/* A WRITE and a SEND behind it; false if posting failed. */
static bool vt_tr_post_pair(struct vt_traffic *t)
{
	u32 slot = t->next_seq % VT_TR_WINDOW;
	struct ib_sge wsge = {
		.addr = t->ba.dma,
		.length = VT_TR_WRITE,
		.lkey = t->sa.pd->local_dma_lkey,
	};
	struct ib_sge ssge = {
		.addr = t->ba.dma + VT_TR_WRITE + slot * VT_TR_SEND,
		.length = VT_TR_SEND,
		.lkey = t->sa.pd->local_dma_lkey,
	};
	struct ib_rdma_wr write = {
		.wr = {
			.wr_cqe = &t->write_cqe,
			.sg_list = &wsge,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = t->bb.dma,
		.rkey = t->sb.pd->unsafe_global_rkey,
	};
	struct ib_send_wr send = {
		.wr_cqe = &t->send_cqe,
		.sg_list = &ssge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	memcpy(t->ba.va + VT_TR_WRITE + slot * VT_TR_SEND, &t->next_seq,
	       sizeof(t->next_seq));
	write.wr.next = &send;
	if (ib_post_send(t->qa.qp, &write.wr, NULL))
		return false;
	t->posted_send += 2;
	t->next_seq++;
	return true;
}

static int vt_tr_thread(void *arg)
{
	struct vt_traffic *t = arg;

	while (!kthread_should_stop()) {
		int done;

		/*
		 * Room for a whole pair: then the SEND VT_TR_WINDOW pairs
		 * back, whose buffer slot the new one reuses, has completed.
		 */
		while (!atomic_read(&t->errors) &&
		       t->posted_send + 2 <= 2 * VT_TR_WINDOW)
			if (!vt_tr_post_pair(t)) {
				vt_tr_error(t, "ib_post_send",
					    IB_WC_GENERAL_ERR);
				break;
			}
		done = ib_process_cq_direct(t->cqa, 64);
		done += ib_process_cq_direct(t->cqb, 64);
		if (done)
			cond_resched();
		else
			usleep_range(200, 400);
	}
	return 0;
}

/* Tear down whatever exists; the thread is not running. */
static void vt_tr_destroy(struct vt_traffic *t)
{
	if (t->qa.qp)
		ib_destroy_qp(t->qa.qp);
	if (t->qb.qp)
		ib_destroy_qp(t->qb.qp);
	if (t->cqa)
		ib_free_cq(t->cqa);
	if (t->cqb)
		ib_free_cq(t->cqb);
	vt_buf_free(&t->bb);
	vt_buf_free(&t->ba);
	vt_side_fini(&t->sb);
	vt_side_fini(&t->sa);
	kfree(t);
}

/*
 * Stop the thread, drain and destroy.  Writes what happened into
 * vt_traffic_summary.  Caller holds vt_traffic_lock.
 */
static bool vt_tr_stop(struct vt_traffic *t, const char *why)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(VT_TR_DRAIN_MS);
	bool drained;
	s64 ms;

	kthread_stop(t->task);
	ms = ktime_ms_delta(ktime_get(), t->started);
	t->stopping = true;
	vt_qp_modify_state(&t->qa, IB_QPS_ERR);
	vt_qp_modify_state(&t->qb, IB_QPS_ERR);
	while ((t->posted_send || t->posted_recv) &&
	       time_before(jiffies, deadline)) {
		if (!ib_process_cq_direct(t->cqa, -1) &&
		    !ib_process_cq_direct(t->cqb, -1))
			usleep_range(500, 1000);
	}
	drained = !t->posted_send && !t->posted_recv;
	/* every request flushed: the core's drain must now return at once */
	if (drained) {
		ib_drain_qp(t->qa.qp);
		ib_drain_qp(t->qb.qp);
	}
	snprintf(vt_traffic_summary, sizeof(vt_traffic_summary),
		 "%s after %lld ms: %lld WRITEs, %lld SENDs, %lld receives in order, %lld flushed, %d errors%s%s; %s",
		 why, ms, atomic64_read(&t->writes), atomic64_read(&t->sends),
		 atomic64_read(&t->recvs), atomic64_read(&t->flushed),
		 atomic_read(&t->errors), atomic_read(&t->errors) ? ": " : "",
		 t->first_error,
		 drained ? "drained with ib_drain_qp, destroyed" :
		 "NOT drained (requests never flushed), destroyed anyway");
	vt_tr_destroy(t);
	return drained;
}

/**
 * vt_traffic_remove_dev - a device goes away: stop traffic that uses it
 * @vdev: the device
 */
void vt_traffic_remove_dev(struct vt_dev *vdev)
{
	struct vt_traffic *t;

	mutex_lock(&vt_traffic_lock);
	t = vt_traffic_cur;
	if (t && (t->va == vdev || t->vb == vdev)) {
		char why[64];

		vt_traffic_cur = NULL;
		snprintf(why, sizeof(why), "stopped by the remove callback of %s",
			 ib_device_name(vdev->ibdev));
		vt_tr_stop(t, why);
		pr_info("ib_verbs_test: traffic %s\n", vt_traffic_summary);
	}
	mutex_unlock(&vt_traffic_lock);
}

/**
 * vt_traffic_exit - stop the traffic at module unload
 */
void vt_traffic_exit(void)
{
	mutex_lock(&vt_traffic_lock);
	if (vt_traffic_cur)
		vt_tr_stop(vt_traffic_cur, "stopped at module unload");
	vt_traffic_cur = NULL;
	mutex_unlock(&vt_traffic_lock);
}

static void vt_tr_start(struct vt_run *run)
{
	struct vt_traffic *t;
	struct vt_conn c;
	int i;

	if (!run->va) {
		vt_check(run, false, "traffic start: needs two devices");
		return;
	}
	mutex_lock(&vt_traffic_lock);
	if (vt_traffic_cur) {
		vt_check(run, false, "traffic start: already running");
		goto out_unlock;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		vt_check(run, false, "traffic start: no memory");
		goto out_unlock;
	}
	t->va = run->va;
	t->vb = run->vb;
	t->write_cqe.done = vt_tr_send_done;
	t->send_cqe.done = vt_tr_send_done;
	t->recv_cqe.done = vt_tr_recv_done;
	vt_conn_default(run, &c);
	if (vt_side_init(run, &t->sa, t->va, true) ||
	    vt_side_init(run, &t->sb, t->vb, true) ||
	    vt_buf_alloc(run, &t->ba, t->sa.dev,
			 VT_TR_WRITE + VT_TR_WINDOW * VT_TR_SEND) ||
	    vt_buf_alloc(run, &t->bb, t->sb.dev,
			 VT_TR_WRITE + VT_TR_RQ * VT_TR_SEND))
		goto err;
	t->cqa = ib_alloc_cq(t->sa.dev, t, 2 * VT_TR_WINDOW + 1, 0,
			     IB_POLL_DIRECT);
	if (IS_ERR(t->cqa)) {
		vt_why(run, "ib_alloc_cq: %ld", PTR_ERR(t->cqa));
		t->cqa = NULL;
		goto err;
	}
	t->cqb = ib_alloc_cq(t->sb.dev, t, VT_TR_RQ + 1, 0, IB_POLL_DIRECT);
	if (IS_ERR(t->cqb)) {
		vt_why(run, "ib_alloc_cq: %ld", PTR_ERR(t->cqb));
		t->cqb = NULL;
		goto err;
	}
	for (i = 0; i < 2; i++) {
		struct vt_qp *q = i ? &t->qb : &t->qa;
		struct ib_cq *cq = i ? t->cqb : t->cqa;
		struct ib_qp_init_attr init = {
			.send_cq = cq,
			.recv_cq = cq,
			/* one more of each for ib_drain_qp()'s marker */
			.cap = {
				.max_send_wr = 2 * VT_TR_WINDOW + 1,
				.max_recv_wr = VT_TR_RQ + 1,
				.max_send_sge = 1,
				.max_recv_sge = 1,
			},
			.sq_sig_type = IB_SIGNAL_ALL_WR,
			.qp_type = IB_QPT_RC,
		};

		q->side = i ? &t->sb : &t->sa;
		q->qp = ib_create_qp(q->side->pd, &init);
		if (IS_ERR(q->qp)) {
			vt_why(run, "ib_create_qp: %ld", PTR_ERR(q->qp));
			q->qp = NULL;
			goto err;
		}
	}
	if (vt_qp_connect(run, &t->qa, t->sb.lid, t->qb.qp->qp_num, &c) ||
	    vt_qp_connect(run, &t->qb, t->sa.lid, t->qa.qp->qp_num, &c))
		goto err;
	for (i = 0; i < VT_TR_RQ; i++) {
		if (vt_tr_post_recv(t, i)) {
			vt_why(run, "ib_post_recv failed");
			goto err;
		}
	}
	vt_fill(t->ba.va, VT_TR_WRITE, 7);

	/* removal of a device from here on finds and stops the traffic */
	if (READ_ONCE(t->va->removing) || READ_ONCE(t->vb->removing)) {
		vt_why(run, "a device is going away");
		goto err;
	}
	t->started = ktime_get();
	t->task = kthread_run(vt_tr_thread, t, "ib_verbs_test");
	if (IS_ERR(t->task)) {
		vt_why(run, "kthread_run: %ld", PTR_ERR(t->task));
		goto err;
	}
	vt_traffic_cur = t;
	vt_traffic_summary[0] = '\0';
	vt_result(run, "traffic start: RC WRITE %u B + SEND %u B, %u in flight, %s -> %s",
		  VT_TR_WRITE, VT_TR_SEND, VT_TR_WINDOW,
		  ib_device_name(t->sa.dev), ib_device_name(t->sb.dev));
	goto out_unlock;

err:
	vt_result(run, "traffic start");
	vt_tr_destroy(t);
out_unlock:
	mutex_unlock(&vt_traffic_lock);
}

/**
 * vt_cmd_traffic - "traffic start|stop|status"
 * @run: the command
 *
 * Return: 0, or -EINVAL for anything else.
 */
int vt_cmd_traffic(struct vt_run *run)
{
	struct vt_traffic *t;

	if (run->argc != 1)
		return -EINVAL;
	if (!strcmp(run->argv[0], "start")) {
		vt_tr_start(run);
		return 0;
	}
	if (strcmp(run->argv[0], "stop") && strcmp(run->argv[0], "status"))
		return -EINVAL;

	mutex_lock(&vt_traffic_lock);
	t = vt_traffic_cur;
	if (!t) {
		vt_out(run, "# traffic: not running%s%s",
		       vt_traffic_summary[0] ? "; last run " : "",
		       vt_traffic_summary);
		if (!strcmp(run->argv[0], "status"))
			vt_check(run, false, "traffic status: not running");
		else
			vt_check(run, !!vt_traffic_summary[0],
				 "traffic stop: already stopped%s",
				 vt_traffic_summary[0] ? "" : " (never started)");
	} else if (!strcmp(run->argv[0], "status")) {
		vt_out(run, "# traffic: %lld WRITEs, %lld SENDs, %lld receives after %lld ms",
		       atomic64_read(&t->writes), atomic64_read(&t->sends),
		       atomic64_read(&t->recvs),
		       ktime_ms_delta(ktime_get(), t->started));
		if (atomic_read(&t->errors))
			vt_why(run, "%d errors, first %s",
			       atomic_read(&t->errors), t->first_error);
		vt_result(run, "traffic status: running, no errors");
	} else {
		bool drained, clean;

		vt_traffic_cur = NULL;
		clean = !atomic_read(&t->errors) &&
			atomic64_read(&t->recvs) > 0;
		drained = vt_tr_stop(t, "stopped by command");
		vt_out(run, "# traffic %s", vt_traffic_summary);
		vt_check(run, clean, "traffic stop: %s",
			 "data moved, SENDs received in order, no errors");
		vt_check(run, drained, "traffic stop: %s",
			 "all flushed, ib_drain_qp returned, all destroyed");
	}
	mutex_unlock(&vt_traffic_lock);
	return 0;
}

/* --------------------------------------------------------------------- */
/* Benchmark                                                             */
/* --------------------------------------------------------------------- */

#define VT_BENCH_MSG	SZ_64K
#define VT_BENCH_WINDOW	16
#define VT_BENCH_LAT_N	1000		/* 8-byte WRITEs timed */

static int vt_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median time, in ns, from posting one 8-byte RC WRITE to taking its
 * completion (the responder's ACK) off the CQ, waiting for it as a kernel
 * consumer does: on the CQ's completion event.  Returns 0 if a WRITE
 * failed.
 */
static u64 vt_bench_write_latency(struct vt_run *run, struct vt_qp *qa,
				  struct vt_buf *ba, struct vt_side *sa,
				  struct vt_buf *bb, struct vt_side *sb)
{
	u64 *ns, median = 0;
	struct ib_wc wc;
	ktime_t t0;
	int i;

	ns = kcalloc(VT_BENCH_LAT_N, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return 0;
	for (i = 0; i < VT_BENCH_LAT_N; i++) {
		t0 = ktime_get();
		if (vt_post_send(qa, i, IB_WR_RDMA_WRITE, ba->dma, 8,
				 sa->pd->local_dma_lkey, 0, bb->dma,
				 sb->pd->unsafe_global_rkey)) {
			vt_why(run, "ib_post_send failed");
			goto out;
		}
		if (vt_poll(run, &qa->scq, &wc, run->wait_ms) != 1 ||
		    wc.status != IB_WC_SUCCESS) {
			vt_why(run, "8-byte WRITE %d did not complete", i);
			goto out;
		}
		ns[i] = ktime_to_ns(ktime_sub(ktime_get(), t0));
	}
	sort(ns, VT_BENCH_LAT_N, sizeof(*ns), vt_cmp_u64, NULL);
	median = ns[VT_BENCH_LAT_N / 2];
out:
	kfree(ns);
	return median;
}

/**
 * vt_cmd_bench - "bench [secs=N]": RC WRITE bandwidth against memcpy,
 *	and the latency of an 8-byte RC WRITE
 * @run: the command
 *
 * Return: 0, or -EINVAL for extra words.
 */
int vt_cmd_bench(struct vt_run *run)
{
	unsigned int secs = run->secs ? run->secs : 3;
	struct vt_side sa = {}, sb = {};
	struct vt_buf ba = {}, bb = {};
	struct vt_qp qa = {}, qb = {};
	u64 posted = 0, done = 0, copies = 0;
	u64 wr_mbps = 0, cpy_mbps = 0, lat_ns;
	ktime_t start, end, last = 0;
	struct ib_wc wcs[VT_BENCH_WINDOW];
	struct vt_conn c;
	s64 us;
	int i, n;

	if (run->argc)
		return -EINVAL;
	vt_conn_default(run, &c);
	if (vt_side_init(run, &sa, run->va, true) ||
	    vt_side_init(run, &sb, run->vb, true) ||
	    vt_buf_alloc(run, &ba, sa.dev, VT_BENCH_MSG) ||
	    vt_buf_alloc(run, &bb, sb.dev, VT_BENCH_MSG * VT_BENCH_WINDOW) ||
	    vt_pair_create(run, &qa, &sa, &qb, &sb, IB_QPT_RC, &c,
			   VT_BENCH_WINDOW)) {
		vt_result(run, "bench: setup");
		goto out;
	}
	vt_fill(ba.va, VT_BENCH_MSG, 99);

	start = ktime_get();
	end = ktime_add_ms(start, secs * 1000);
	while (done < posted || ktime_before(ktime_get(), end)) {
		while (posted - done < VT_BENCH_WINDOW &&
		       ktime_before(ktime_get(), end)) {
			u32 slot = posted % VT_BENCH_WINDOW;

			if (vt_post_send(&qa, posted, IB_WR_RDMA_WRITE, ba.dma,
					 VT_BENCH_MSG, sa.pd->local_dma_lkey,
					 0, bb.dma + slot * VT_BENCH_MSG,
					 sb.pd->unsafe_global_rkey)) {
				vt_why(run, "ib_post_send failed");
				goto report;
			}
			posted++;
		}
		n = ib_poll_cq(qa.scq.cq, VT_BENCH_WINDOW, wcs);
		if (n == 0) {
			n = vt_poll(run, &qa.scq, wcs, run->wait_ms);
			if (n <= 0) {
				vt_why(run, "no completion within %u ms",
				       run->wait_ms);
				goto report;
			}
		}
		for (i = 0; i < n; i++) {
			if (wcs[i].status != IB_WC_SUCCESS) {
				vt_why(run, "WRITE completed with %s",
				       ib_wc_status_msg(wcs[i].status));
				goto report;
			}
		}
		done += n;
		last = ktime_get();
	}
	us = ktime_us_delta(last, start);
	if (us > 0)
		wr_mbps = div64_u64(done * VT_BENCH_MSG, us);
	if (!done || vt_verify(bb.va + ((done - 1) % VT_BENCH_WINDOW) *
			       VT_BENCH_MSG, VT_BENCH_MSG, 99) >= 0)
		vt_why(run, "the data written is wrong");

	start = ktime_get();
	end = ktime_add_ms(start, secs * 1000);
	do {
		memcpy(bb.va + (copies % VT_BENCH_WINDOW) * VT_BENCH_MSG,
		       ba.va, VT_BENCH_MSG);
		copies++;
		if (copies % 16 == 0)
			cond_resched();
	} while (ktime_before(ktime_get(), end));
	us = ktime_us_delta(ktime_get(), start);
	if (us > 0)
		cpy_mbps = div64_u64(copies * VT_BENCH_MSG, us);

	vt_out(run, "# bench rc_write_64k: %llu MB/s (%llu WRITEs of 64 KiB, window %d, %u s)",
	       wr_mbps, done, VT_BENCH_WINDOW, secs);
	vt_out(run, "# bench memcpy_64k: %llu MB/s (%llu copies)", cpy_mbps,
	       copies);
	if (!wr_mbps || !cpy_mbps)
		vt_why(run, "no bandwidth measured");

	lat_ns = vt_bench_write_latency(run, &qa, &ba, &sa, &bb, &sb);
	vt_out(run,
	       "# bench rc_write_8b: in-kernel RC WRITE 8B post-to-completion: %llu.%02llu us (median of %d)",
	       lat_ns / 1000, lat_ns % 1000 / 10, VT_BENCH_LAT_N);
report:
	vt_result(run, "bench: in-kernel RC WRITE 64KiB: %llu MB/s; %s: %llu MB/s; %s %llu.%03llu",
		  wr_mbps, "memcpy 64KiB", cpy_mbps, "ratio",
		  cpy_mbps ? div64_u64(wr_mbps, cpy_mbps) : 0,
		  cpy_mbps ? div64_u64(wr_mbps * 1000, cpy_mbps) % 1000 : 0);
out:
	vt_pair_destroy(&qa, &qb);
	vt_buf_free(&bb);
	vt_buf_free(&ba);
	vt_side_fini(&sb);
	vt_side_fini(&sa);
	return 0;
}
