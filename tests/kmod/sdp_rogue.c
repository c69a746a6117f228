// SPDX-License-Identifier: GPL-2.0
/*
 * sdp_rogue: a rogue SDP peer.  It connects to ib_sdp (a listening
 * AF_INET_SDP socket, normally a server preloaded with libsdp.so) in the
 * RDMA CM's SDP port space, as ib_sdp's own active side does, and then
 * breaks the protocol, one way per case: a Hello the victim must refuse,
 * or messages it must answer by resetting the connection.  Each case
 * checks the victim's answer and tears its connection down whatever
 * happened.  The victim's kernel log is the scenario's to check
 * (tests/scenarios/sdp-rogue.sh).
 *
 * /sys/kernel/debug/sdp_rogue/run: writing "CASE... addr=IPV4 port=N"
 * runs the cases in the order given, in the writer's context and in the
 * writer's network namespace (the one of the IPoIB interface that
 * reaches IPV4), and returns when they are done: -EINVAL for a case or
 * an option we do not know, or without addr= and port=.  Reading it (or
 * "result") gives the last command's result: an "ok ..." or "not ok ..."
 * line per check and "# ..." comments, as ib_verbs_test's.  Every wait
 * is bounded and interruptible, and so is a command (ROGUE_TOTAL_MS).
 *
 * Cases ("all": every one, in this order):
 *   good                valid data, then DisConn both ways: a graceful
 *                       close (the control: our framing is right)
 *   hello-version       a Hello of version 0x11: rejected
 *   hello-nobufs        a Hello with Bufs 0: rejected
 *   hello-small         a Hello with LocalRcvSz 16: rejected
 *   hello-short         20 bytes of Hello: the RDMA CM refuses to send
 *                       it; the same padded with zeros (what a REQ
 *                       carries): rejected
 *   len-big             a Data message whose BSDH len exceeds the bytes
 *                       sent: reset
 *   len-small           BSDH len 8, below the header's 16: reset
 *   runt                an 8-byte message, a truncated BSDH: reset
 *   mid-unknown         MID 0x42: reset
 *   sinkavail           a SinkAvail advert (MID 0xFD, not implemented):
 *                       reset
 *   srcavail-zero       a SrcAvail (MID 0xFE) of 0 bytes: reset
 *   srcavail-short      a SrcAvail with 8 bytes of its 16-byte header:
 *                       reset
 *   srcavail-badkey     a SrcAvail of 64 KiB under an R_Key nobody has:
 *                       the victim's RDMA READ fails, reset
 *   rdmardcompl-stray   an RdmaRdCompl (MID 0x06) with no advert out:
 *                       reset
 *   mseq-bad            an MSeq 5 beyond the next one: reset
 *   ack-future          an MSeqAck of a message never sent: reset
 *   credits-huge        Bufs 0xffff, then valid data: reset or not, the
 *                       connection ends cleanly
 *   data-after-disconn  DisConn, then Data: reset
 *   disconn-payload     a DisConn with a payload: reset
 *   oversize            a SEND larger than any SDP receive buffer: the
 *                       connection ends
 *   flood               ROGUE_FLOOD_MSGS Data messages regardless of the
 *                       victim's credits: no hang, it ends cleanly
 * A reset is the end of the connection without the victim's DisConn
 * before it (that would be a graceful close): its DREQ, or its REJ when
 * it resets before its side saw our RTU, or our QP failing or moved to
 * the error state.
 *
 * What it owns: the result of the last command (rogue_last) and, during
 * a command, one connection at a time (struct rogue_conn): its RDMA CM
 * id, PD, CQ, QP and buffers, all gone before the next case starts.
 * Unloading waits for a command in progress (rogue_lock), refuses new
 * ones (rogue_gone) and removes the files, which waits for their users.
 *
 * Locking: rogue_lock serialises the commands and protects rogue_last,
 * rogue_last_len and rogue_gone.  A connection's spinlock protects what
 * its RDMA CM event handler and its completion handlers (ib_comp_wq)
 * note for the command's thread, and every post of a work request; the
 * thread waits on the connection's wait queue, which they wake.  The
 * event handler destroys nothing: a device removal is noted, the thread
 * gives the case up and destroys the id, which the RDMA CM waits for.
 */
#include <linux/debugfs.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../ulp/sdp/sdp.h"

#define ROGUE_CMD_MAX		256
#define ROGUE_OUT_SIZE		(64 * 1024)
#define ROGUE_MAX_CASES		64
/* our receive buffers: more than ib_sdp ever sends in one message */
#define ROGUE_RX_BUFS		16
#define ROGUE_RX_SIZE		65536
/* send slots, each a message of at most ROGUE_SLOT_SIZE bytes */
#define ROGUE_TX_SLOTS		128
#define ROGUE_SLOT_SIZE		256
#define ROGUE_PAYLOAD_MAX	(ROGUE_SLOT_SIZE - sizeof(struct sdp_bsdh))
/* the oversize message: twice SDP's largest receive buffer */
#define ROGUE_BIG_SIZE		(2 * SDP_MAX_BUF_SIZE)
#define ROGUE_CQE		(ROGUE_RX_BUFS + ROGUE_TX_SLOTS + 4)
#define ROGUE_FLOOD_MSGS	2000
#define ROGUE_LOG		16
#define ROGUE_MID_UNKNOWN	0x42
#define ROGUE_MID_SINKAVAIL	0xfd
#define ROGUE_MID_SRCAVAIL	0xfe
#define ROGUE_MID_RDMA_RD_COMPL	0x06
/* how long each step may take, in milliseconds */
#define ROGUE_RESOLVE_MS	2000
#define ROGUE_STEP_MS		5000
#define ROGUE_CONNECT_MS	15000
#define ROGUE_RESET_MS		10000
#define ROGUE_SETTLE_MS		2000
#define ROGUE_FLOOD_MS		60000
#define ROGUE_TOTAL_MS		(300 * 1000)

/**
 * struct rogue_run - one command
 * @out: its result text
 * @len: bytes used in @out
 * @size: room in @out
 * @passed: "ok" lines written
 * @failed: "not ok" lines written
 * @why: the first problem of the check in progress, "" if none
 * @cases: the cases to run, indexes in rogue_cases[]
 * @ncases: how many
 * @dst: the victim's address and port
 * @net: the writer's network namespace, referenced
 * @deadline: when the command stops starting cases (jiffies)
 */
struct rogue_run {
	char *out;
	size_t len;
	size_t size;
	unsigned int passed;
	unsigned int failed;
	char why[200];
	u8 cases[ROGUE_MAX_CASES];
	unsigned int ncases;
	struct sockaddr_in dst;
	struct net *net;
	unsigned long deadline;
};

struct rogue_conn;

/**
 * struct rogue_rx - a receive buffer
 * @cqe: its completion
 * @conn: its connection
 * @data: the memory, ROGUE_RX_SIZE bytes
 * @dma: its mapping, while @mapped
 * @mapped: mapped for the device
 */
struct rogue_rx {
	struct ib_cqe cqe;
	struct rogue_conn *conn;
	void *data;
	u64 dma;
	bool mapped;
};

/**
 * struct rogue_slot - a send slot: ROGUE_SLOT_SIZE bytes of the send area
 * @cqe: the completion of its message
 * @conn: its connection
 * @busy: a message of it is posted
 */
struct rogue_slot {
	struct ib_cqe cqe;
	struct rogue_conn *conn;
	bool busy;
};

/**
 * enum rogue_kind - what a case expects of the victim
 * @ROGUE_REFUSED: the Hello is refused (REJECTED or UNREACHABLE)
 * @ROGUE_RESET: the connection is established, the case's messages
 *	reset it
 * @ROGUE_EITHER: established; reset by the messages or not, the
 *	connection ends cleanly (a reset, or our DisConn answered)
 * @ROGUE_CLEAN: established; valid messages, then a graceful close
 */
enum rogue_kind {
	ROGUE_REFUSED,
	ROGUE_RESET,
	ROGUE_EITHER,
	ROGUE_CLEAN,
};

/**
 * struct rogue_case - a case
 * @name: its word in a command
 * @what: the description of its check
 * @kind: what it expects
 * @hello: spoils the Hello (ROGUE_REFUSED)
 * @hello_len: bytes of the Hello sent, 0 for all (ROGUE_REFUSED)
 * @send: sends the case's messages (the other kinds)
 * @big: needs the oversize buffer
 */
struct rogue_case {
	const char *name;
	const char *what;
	enum rogue_kind kind;
	void (*hello)(struct sdp_hh *hh);
	u8 hello_len;
	int (*send)(struct rogue_conn *c);
	bool big;
};

/**
 * struct rogue_conn - one connection of a case
 * @run: the command
 * @rc: the case
 * @id: the RDMA CM id, or NULL
 * @dev: its device, once resolved
 * @pd: the PD, or NULL
 * @cq: the CQ of sends and receives (ib_comp_wq), or NULL
 * @qp_made: rdma_create_qp() made @id's QP
 * @posted: receives were posted
 * @stopped: the QP was disconnected and drained
 * @tx: the send area, ROGUE_TX_SLOTS * ROGUE_SLOT_SIZE bytes
 * @tx_dma: its mapping, while @tx_mapped
 * @tx_mapped: @tx is mapped
 * @big: the oversize message, ROGUE_BIG_SIZE bytes, or NULL
 * @big_dma: its mapping, while @big_mapped
 * @big_mapped: @big is mapped
 * @wait: woken by every event and completion
 * @lock: protects everything below, and every post
 * @events: the RDMA CM events seen, BIT(RDMA_CM_EVENT_*)
 * @log: the first ROGUE_LOG of them, in order
 * @nlog: how many of them are in @log
 * @last_event: the last of them
 * @last_status: its status
 * @reject: the status of REJECTED (the IB CM's reason)
 * @removed: the device is going away (DEVICE_REMOVAL)
 * @qp_dead: nothing may be posted any more
 * @hah: the HelloAck, the private data of ESTABLISHED
 * @hah_len: its length
 * @rx_posted: receives posted
 * @rx_seq: the victim's last MSeq
 * @rx_msgs: the victim's messages received
 * @rx_disconn: its DisConn messages among them
 * @rx_bytes: its Data payload bytes
 * @rx_odd: its messages out of sequence or malformed
 * @flushed: work requests flushed before rogue_stop(): the CM moved the
 *	QP to the error state
 * @rx_err: our receives completed in error, but flushes
 * @rx_status: the first such status
 * @tx_seq: the MSeq of our next message
 * @tx_posted: our messages posted
 * @tx_busy: slots busy
 * @tx_ok: our messages completed successfully
 * @tx_err: our messages completed in error, but flushes
 * @tx_status: the first such status
 * @rx: the receive buffers
 * @slot: the send slots
 */
struct rogue_conn {
	struct rogue_run *run;
	const struct rogue_case *rc;
	struct rdma_cm_id *id;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool qp_made;
	bool posted;
	bool stopped;
	u8 *tx;
	u64 tx_dma;
	bool tx_mapped;
	u8 *big;
	u64 big_dma;
	bool big_mapped;
	wait_queue_head_t wait;

	spinlock_t lock;	/* the notes below, and posting */
	unsigned long events;
	u8 log[ROGUE_LOG];
	u8 nlog;
	enum rdma_cm_event_type last_event;
	int last_status;
	int reject;
	bool removed;
	bool qp_dead;
	u8 hah[SDP_HAH_SIZE];
	u8 hah_len;
	u32 rx_posted;
	u32 rx_seq;
	u32 rx_msgs;
	u32 rx_disconn;
	u32 rx_bytes;
	u32 rx_odd;
	u32 flushed;
	u32 rx_err;
	enum ib_wc_status rx_status;
	u32 tx_seq;
	u32 tx_posted;
	u32 tx_busy;
	u32 tx_ok;
	u32 tx_err;
	enum ib_wc_status tx_status;
	struct rogue_rx rx[ROGUE_RX_BUFS];
	struct rogue_slot slot[ROGUE_TX_SLOTS];
};

/**
 * struct rogue_msg - a message to send
 * @mid: its MID
 * @payload: bytes after the BSDH, at most ROGUE_PAYLOAD_MAX
 * @len: the BSDH's len, 0 for the true one
 * @wire: bytes sent, 0 for the header and the payload
 * @bufs_set: @bufs replaces the number of our posted receives
 * @bufs: the BSDH's bufs then
 * @mseq_skip: added to the right MSeq
 * @ack_ahead: added to the right MSeqAck
 * @data: the payload, NULL for a pattern
 * @big: the oversize message instead (ROGUE_BIG_SIZE bytes)
 */
struct rogue_msg {
	u8 mid;
	u32 payload;
	u32 len;
	u32 wire;
	bool bufs_set;
	u16 bufs;
	u32 mseq_skip;
	u32 ack_ahead;
	const void *data;
	bool big;
};

/*
 * Serialises the commands; protects rogue_last, rogue_last_len and
 * rogue_gone.
 */
static DEFINE_MUTEX(rogue_lock);
static char *rogue_last;
static size_t rogue_last_len;
static bool rogue_gone;
static struct dentry *rogue_dir;

/* --------------------------------------------------------------------- */
/* Output                                                                */
/* --------------------------------------------------------------------- */

static __printf(3, 0) void rogue_vout(struct rogue_run *run,
				      const char *prefix, const char *fmt,
				      va_list ap)
{
	size_t room = run->size - run->len;
	int n;

	if (room <= 1)
		return;
	n = scnprintf(run->out + run->len, room, "%s", prefix);
	run->len += n;
	room -= n;
	n = vscnprintf(run->out + run->len, room, fmt, ap);
	run->len += n;
	room -= n;
	if (room > 1) {
		run->out[run->len++] = '\n';
		run->out[run->len] = '\0';
	}
}

/* A "# ..." line, or any other line of the result. */
static __printf(2, 3) void rogue_out(struct rogue_run *run, const char *fmt,
				     ...)
{
	va_list ap;

	va_start(ap, fmt);
	rogue_vout(run, "", fmt, ap);
	va_end(ap);
}

/* An "ok" or "not ok" line. */
static __printf(3, 4) void rogue_check(struct rogue_run *run, bool ok,
				       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rogue_vout(run, ok ? "ok " : "not ok ", fmt, ap);
	va_end(ap);
	if (ok)
		run->passed++;
	else
		run->failed++;
}

/* Why the check in progress fails: the first reason is kept. */
static __printf(2, 3) void rogue_why(struct rogue_run *run, const char *fmt,
				     ...)
{
	va_list ap;

	if (run->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(run->why, sizeof(run->why), fmt, ap);
	va_end(ap);
	if (!run->why[0])
		strscpy(run->why, "?", sizeof(run->why));
}

/* Report the check in progress: ok unless rogue_why() was called. */
static void rogue_result(struct rogue_run *run, const char *name,
			 const char *what)
{
	bool ok = !run->why[0];

	rogue_check(run, ok, "%s: %s", name, what);
	if (!ok)
		rogue_out(run, "# %s", run->why);
	run->why[0] = '\0';
}

/* What a connection saw, as a comment. */
static void rogue_report(struct rogue_conn *c)
{
	char events[200];
	size_t n = 0;
	unsigned int i;

	events[0] = '\0';
	spin_lock_bh(&c->lock);
	for (i = 0; i < c->nlog; i++)
		n += scnprintf(events + n, sizeof(events) - n, "%s%s",
			       i ? ", " : "", rdma_event_msg(c->log[i]));
	rogue_out(c->run,
		  "# %s: events [%s]; victim: %u messages (%u DisConn, %u data bytes, %u odd); ours: %u posted, %u ok, %u failed%s%s, receive errors %u%s%s, %u flushed before our teardown",
		  c->rc->name, events, c->rx_msgs, c->rx_disconn, c->rx_bytes,
		  c->rx_odd, c->tx_posted, c->tx_ok, c->tx_err,
		  c->tx_err ? " " : "",
		  c->tx_err ? ib_wc_status_msg(c->tx_status) : "",
		  c->rx_err, c->rx_err ? " " : "",
		  c->rx_err ? ib_wc_status_msg(c->rx_status) : "",
		  c->flushed);
	spin_unlock_bh(&c->lock);
}

/* --------------------------------------------------------------------- */
/* Events, completions and waits                                         */
/* --------------------------------------------------------------------- */

static int rogue_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rogue_conn *c = id->context;
	const struct rdma_conn_param *p = &ev->param.conn;

	spin_lock_bh(&c->lock);
	if ((unsigned int)ev->event < BITS_PER_LONG)
		c->events |= BIT(ev->event);
	if (c->nlog < ROGUE_LOG)
		c->log[c->nlog++] = ev->event;
	c->last_event = ev->event;
	c->last_status = ev->status;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		if (p->private_data) {
			c->hah_len = min_t(u8, p->private_data_len,
					   sizeof(c->hah));
			memcpy(c->hah, p->private_data, c->hah_len);
		}
		break;
	case RDMA_CM_EVENT_REJECTED:
		c->reject = ev->status;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		c->removed = true;
		break;
	default:
		break;
	}
	spin_unlock_bh(&c->lock);
	wake_up(&c->wait);
	return 0;
}

static int rogue_post_recv_locked(struct rogue_conn *c, struct rogue_rx *rx);

static void rogue_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rogue_rx *rx = container_of(wc->wr_cqe, struct rogue_rx, cqe);
	struct rogue_conn *c = rx->conn;
	const struct sdp_bsdh *h = rx->data;

	spin_lock_bh(&c->lock);
	c->rx_posted--;
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		if (!c->qp_dead)
			c->flushed++;
		goto out;
	}
	if (wc->status != IB_WC_SUCCESS) {
		if (!c->rx_err++)
			c->rx_status = wc->status;
		goto out;
	}
	ib_dma_sync_single_for_cpu(c->dev, rx->dma, ROGUE_RX_SIZE,
				   DMA_FROM_DEVICE);
	c->rx_msgs++;
	if (wc->byte_len < sizeof(*h) || be32_to_cpu(h->len) != wc->byte_len) {
		c->rx_odd++;
	} else {
		if (be32_to_cpu(h->mseq) != c->rx_seq + 1)
			c->rx_odd++;
		c->rx_seq = be32_to_cpu(h->mseq);
		if (h->mid == SDP_MID_DISCONN)
			c->rx_disconn++;
		else if (h->mid == SDP_MID_DATA)
			c->rx_bytes += wc->byte_len - sizeof(*h);
		else
			c->rx_odd++;
	}
	/* fails only once the QP is in error: then nothing comes any more */
	rogue_post_recv_locked(c, rx);
out:
	spin_unlock_bh(&c->lock);
	wake_up(&c->wait);
}

/* Post @rx; called with c->lock held. */
static int rogue_post_recv_locked(struct rogue_conn *c, struct rogue_rx *rx)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int ret;

	if (c->qp_dead)
		return -ENOTCONN;
	sge.addr = rx->dma;
	sge.length = ROGUE_RX_SIZE;
	sge.lkey = c->pd->local_dma_lkey;
	rx->cqe.done = rogue_rx_done;
	wr.wr_cqe = &rx->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ib_dma_sync_single_for_device(c->dev, rx->dma, ROGUE_RX_SIZE,
				      DMA_FROM_DEVICE);
	ret = ib_post_recv(c->id->qp, &wr, NULL);
	if (!ret)
		c->rx_posted++;
	return ret;
}

static void rogue_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rogue_slot *s = container_of(wc->wr_cqe, struct rogue_slot,
					    cqe);
	struct rogue_conn *c = s->conn;

	spin_lock_bh(&c->lock);
	s->busy = false;
	c->tx_busy--;
	if (wc->status == IB_WC_SUCCESS)
		c->tx_ok++;
	else if (wc->status == IB_WC_WR_FLUSH_ERR && !c->qp_dead)
		c->flushed++;
	else if (wc->status != IB_WC_WR_FLUSH_ERR && !c->tx_err++)
		c->tx_status = wc->status;
	spin_unlock_bh(&c->lock);
	wake_up(&c->wait);
}

/* The conditions a thread waits for; called with c->lock held. */
typedef bool (*rogue_cond_t)(const struct rogue_conn *c);

static bool rogue_addr_done(const struct rogue_conn *c)
{
	return c->events & (BIT(RDMA_CM_EVENT_ADDR_RESOLVED) |
			    BIT(RDMA_CM_EVENT_ADDR_ERROR));
}

static bool rogue_route_done(const struct rogue_conn *c)
{
	return c->events & (BIT(RDMA_CM_EVENT_ROUTE_RESOLVED) |
			    BIT(RDMA_CM_EVENT_ROUTE_ERROR));
}

static bool rogue_connect_done(const struct rogue_conn *c)
{
	return c->events & (BIT(RDMA_CM_EVENT_ESTABLISHED) |
			    BIT(RDMA_CM_EVENT_REJECTED) |
			    BIT(RDMA_CM_EVENT_UNREACHABLE) |
			    BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
			    BIT(RDMA_CM_EVENT_DISCONNECTED));
}

/*
 * The connection is gone: the victim disconnected (DREQ), or rejected
 * it (a REJ, when the victim ends it before the RTU reached it), or
 * our QP failed or was moved to the error state.
 */
static bool rogue_ended(const struct rogue_conn *c)
{
	return (c->events & (BIT(RDMA_CM_EVENT_DISCONNECTED) |
			     BIT(RDMA_CM_EVENT_REJECTED) |
			     BIT(RDMA_CM_EVENT_UNREACHABLE) |
			     BIT(RDMA_CM_EVENT_CONNECT_ERROR))) ||
	       c->tx_err || c->rx_err || c->flushed;
}

/* The connection ended, or the victim sent its DisConn. */
static bool rogue_over(const struct rogue_conn *c)
{
	return rogue_ended(c) || c->rx_disconn;
}

static bool rogue_slot_free(const struct rogue_conn *c)
{
	return c->tx_busy < ROGUE_TX_SLOTS || rogue_ended(c);
}

static bool rogue_sent(const struct rogue_conn *c)
{
	return !c->tx_busy || rogue_ended(c);
}

static bool rogue_test(struct rogue_conn *c, rogue_cond_t cond)
{
	bool ret;

	spin_lock_bh(&c->lock);
	ret = c->removed || cond(c);
	spin_unlock_bh(&c->lock);
	return ret;
}

/*
 * Wait up to @ms for @cond.  Return: 0, -ETIMEDOUT, -EINTR on a signal,
 * -ENODEV once the device is going away.
 */
static int rogue_wait(struct rogue_conn *c, rogue_cond_t cond,
		      unsigned int ms)
{
	long left;

	left = wait_event_interruptible_timeout(c->wait, rogue_test(c, cond),
						msecs_to_jiffies(ms));
	if (left < 0)
		return -EINTR;
	if (READ_ONCE(c->removed))
		return -ENODEV;
	return left ? 0 : -ETIMEDOUT;
}

/* Note why a wait of @what failed. */
static void rogue_why_wait(struct rogue_conn *c, const char *what, int ret,
			   unsigned int ms)
{
	switch (ret) {
	case -ETIMEDOUT:
		rogue_why(c->run, "%s: nothing within %u ms", what, ms);
		break;
	case -EINTR:
		rogue_why(c->run, "%s: interrupted by a signal", what);
		break;
	case -ENODEV:
		rogue_why(c->run, "%s: the device is going away", what);
		break;
	default:
		rogue_why(c->run, "%s: error %d", what, ret);
		break;
	}
}

/* --------------------------------------------------------------------- */
/* A connection's resources                                              */
/* --------------------------------------------------------------------- */

static struct rogue_conn *rogue_conn_new(struct rogue_run *run,
					 const struct rogue_case *rc)
{
	struct rogue_conn *c;
	unsigned int i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->run = run;
	c->rc = rc;
	spin_lock_init(&c->lock);
	init_waitqueue_head(&c->wait);
	c->tx_seq = 1;
	for (i = 0; i < ROGUE_RX_BUFS; i++)
		c->rx[i].conn = c;
	for (i = 0; i < ROGUE_TX_SLOTS; i++)
		c->slot[i].conn = c;
	return c;
}

/* Undo rogue_bufs_map(), also half done. */
static void rogue_bufs_unmap(struct rogue_conn *c)
{
	unsigned int i;

	if (c->big_mapped)
		ib_dma_unmap_single(c->dev, c->big_dma, ROGUE_BIG_SIZE,
				    DMA_TO_DEVICE);
	c->big_mapped = false;
	kfree(c->big);
	c->big = NULL;
	if (c->tx_mapped)
		ib_dma_unmap_single(c->dev, c->tx_dma,
				    ROGUE_TX_SLOTS * ROGUE_SLOT_SIZE,
				    DMA_TO_DEVICE);
	c->tx_mapped = false;
	kfree(c->tx);
	c->tx = NULL;
	for (i = 0; i < ROGUE_RX_BUFS; i++) {
		if (c->rx[i].mapped)
			ib_dma_unmap_single(c->dev, c->rx[i].dma,
					    ROGUE_RX_SIZE, DMA_FROM_DEVICE);
		c->rx[i].mapped = false;
		kfree(c->rx[i].data);
		c->rx[i].data = NULL;
	}
}

/* Allocate and map a buffer of @size; its address in *@dma. */
static void *rogue_buf_map(struct rogue_conn *c, size_t size,
			   enum dma_data_direction dir, u64 *dma)
{
	void *p;

	p = kzalloc(size, GFP_KERNEL);
	if (!p)
		return NULL;
	*dma = ib_dma_map_single(c->dev, p, size, dir);
	if (ib_dma_mapping_error(c->dev, *dma)) {
		kfree(p);
		return NULL;
	}
	return p;
}

/* The receive buffers, the send area and, for its case, the big one. */
static int rogue_bufs_map(struct rogue_conn *c)
{
	unsigned int i;

	for (i = 0; i < ROGUE_RX_BUFS; i++) {
		c->rx[i].data = rogue_buf_map(c, ROGUE_RX_SIZE,
					      DMA_FROM_DEVICE, &c->rx[i].dma);
		if (!c->rx[i].data)
			goto err;
		c->rx[i].mapped = true;
	}
	c->tx = rogue_buf_map(c, ROGUE_TX_SLOTS * ROGUE_SLOT_SIZE,
			      DMA_TO_DEVICE, &c->tx_dma);
	if (!c->tx)
		goto err;
	c->tx_mapped = true;
	if (c->rc->big) {
		c->big = kmalloc(ROGUE_BIG_SIZE, GFP_KERNEL);
		if (!c->big)
			goto err;
		for (i = 0; i < ROGUE_BIG_SIZE; i++)
			c->big[i] = i * 7;
		c->big_dma = ib_dma_map_single(c->dev, c->big, ROGUE_BIG_SIZE,
					       DMA_TO_DEVICE);
		if (ib_dma_mapping_error(c->dev, c->big_dma))
			goto err;
		c->big_mapped = true;
	}
	return 0;

err:
	rogue_bufs_unmap(c);
	return -ENOMEM;
}

static int rogue_post_recvs(struct rogue_conn *c)
{
	unsigned int i;
	int ret = 0;

	spin_lock_bh(&c->lock);
	for (i = 0; i < ROGUE_RX_BUFS && !ret; i++)
		ret = rogue_post_recv_locked(c, &c->rx[i]);
	spin_unlock_bh(&c->lock);
	return ret;
}

/*
 * Disconnect (if we can) and drain the QP: every completion has been
 * handled on return, nothing is posted any more.
 */
static void rogue_stop(struct rogue_conn *c)
{
	if (c->stopped || !c->qp_made)
		return;
	c->stopped = true;
	rdma_disconnect(c->id);
	spin_lock_bh(&c->lock);
	c->qp_dead = true;
	spin_unlock_bh(&c->lock);
	ib_drain_qp(c->id->qp);
}

/*
 * The PD, CQ, QP and buffers of a connection whose route is resolved,
 * the receives posted.  Undone by rogue_teardown(), or here on error.
 */
static int rogue_setup(struct rogue_conn *c)
{
	struct ib_qp_init_attr attr = {};
	int ret;

	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		rogue_why(c->run, "ib_alloc_pd: %d", ret);
		return ret;
	}
	c->cq = ib_alloc_cq(c->dev, c, ROGUE_CQE, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		rogue_why(c->run, "ib_alloc_cq: %d", ret);
		goto err_pd;
	}
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	/* one more of each for ib_drain_qp() */
	attr.cap.max_send_wr = ROGUE_TX_SLOTS + 1;
	attr.cap.max_recv_wr = ROGUE_RX_BUFS + 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(c->id, c->pd, &attr);
	if (ret) {
		rogue_why(c->run, "rdma_create_qp: %d", ret);
		goto err_cq;
	}
	c->qp_made = true;
	ret = rogue_bufs_map(c);
	if (ret) {
		rogue_why(c->run, "buffers: %d", ret);
		goto err_qp;
	}
	c->posted = true;
	ret = rogue_post_recvs(c);
	if (ret) {
		rogue_why(c->run, "ib_post_recv: %d", ret);
		goto err_recvs;
	}
	return 0;

err_recvs:
	rogue_stop(c);
	c->posted = false;
	rogue_bufs_unmap(c);
err_qp:
	rdma_destroy_qp(c->id);
	c->qp_made = false;
err_cq:
	ib_free_cq(c->cq);
	c->cq = NULL;
err_pd:
	ib_dealloc_pd(c->pd);
	c->pd = NULL;
	return ret;
}

/*
 * Everything of @c, in the reverse order of rogue_open().  After a
 * DEVICE_REMOVAL too: the RDMA CM waits for the id to go.
 */
static void rogue_teardown(struct rogue_conn *c)
{
	if (READ_ONCE(c->removed)) {
		rogue_why(c->run, "the device is going away (DEVICE_REMOVAL)");
		rogue_out(c->run, "# %s: device removal: the case let go of its connection",
			  c->rc->name);
	}
	if (c->posted) {
		rogue_stop(c);
		rogue_bufs_unmap(c);
		c->posted = false;
	}
	if (c->qp_made) {
		rdma_destroy_qp(c->id);
		c->qp_made = false;
	}
	if (c->cq) {
		ib_free_cq(c->cq);
		c->cq = NULL;
	}
	if (c->pd) {
		ib_dealloc_pd(c->pd);
		c->pd = NULL;
	}
	if (c->id) {
		rdma_destroy_id(c->id);
		c->id = NULL;
	}
}

/*
 * An id in the writer's namespace, the victim's address and route
 * resolved, the resources made (rogue_setup()).  Undone by
 * rogue_teardown(), or here on error.
 */
static int rogue_open(struct rogue_conn *c)
{
	struct rogue_run *run = c->run;
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(run->net, rogue_cm_handler, c, RDMA_PS_SDP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		rogue_why(run, "rdma_create_id: %ld", PTR_ERR(id));
		return PTR_ERR(id);
	}
	c->id = id;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&run->dst,
				ROGUE_RESOLVE_MS);
	if (ret) {
		rogue_why(run, "rdma_resolve_addr: %d", ret);
		goto err_id;
	}
	ret = rogue_wait(c, rogue_addr_done, ROGUE_STEP_MS);
	if (ret) {
		rogue_why_wait(c, "address resolution", ret, ROGUE_STEP_MS);
		goto err_id;
	}
	if (!(READ_ONCE(c->events) & BIT(RDMA_CM_EVENT_ADDR_RESOLVED))) {
		rogue_why(run, "address resolution of %pI4: %d",
			  &run->dst.sin_addr, READ_ONCE(c->last_status));
		ret = -EHOSTUNREACH;
		goto err_id;
	}
	ret = rdma_resolve_route(id, ROGUE_RESOLVE_MS);
	if (ret) {
		rogue_why(run, "rdma_resolve_route: %d", ret);
		goto err_id;
	}
	ret = rogue_wait(c, rogue_route_done, ROGUE_STEP_MS);
	if (ret) {
		rogue_why_wait(c, "route resolution", ret, ROGUE_STEP_MS);
		goto err_id;
	}
	if (!(READ_ONCE(c->events) & BIT(RDMA_CM_EVENT_ROUTE_RESOLVED))) {
		rogue_why(run, "route resolution: %d",
			  READ_ONCE(c->last_status));
		ret = -EHOSTUNREACH;
		goto err_id;
	}
	c->dev = id->device;
	ret = rogue_setup(c);
	if (ret)
		goto err_id;
	return 0;

err_id:
	rdma_destroy_id(id);
	c->id = NULL;
	return ret;
}

/* --------------------------------------------------------------------- */
/* Connecting and sending                                                */
/* --------------------------------------------------------------------- */

/* A valid Hello: our receives and their size (the CM adds addresses). */
static void rogue_hello(struct rogue_conn *c, struct sdp_hh *hh)
{
	memset(hh, 0, sizeof(*hh));
	hh->bsdh.mid = SDP_MID_HELLO;
	spin_lock_bh(&c->lock);
	hh->bsdh.bufs = cpu_to_be16(c->rx_posted);
	spin_unlock_bh(&c->lock);
	hh->bsdh.len = cpu_to_be32(sizeof(*hh));
	hh->version = SDP_VERSION;
	hh->ip_version = 4 << 4;
	hh->des_rem_rcv_sz = cpu_to_be32(ROGUE_RX_SIZE);
	hh->local_rcv_sz = cpu_to_be32(ROGUE_RX_SIZE);
}

/* Send the REQ with @len bytes of @hello; the parameters are ib_sdp's. */
static int rogue_connect(struct rogue_conn *c, const void *hello, u8 len)
{
	struct rdma_conn_param param = {
		.private_data = hello,
		.private_data_len = len,
		.responder_resources = 4,
		.initiator_depth = 4,
		.retry_count = 5,
		.rnr_retry_count = 7,
	};

	return rdma_connect(c->id, &param);
}

/*
 * Wait for the answer to our REQ.  Return: the event that answered it
 * (ESTABLISHED even if DISCONNECTED came since), or an errno.
 */
static int rogue_connect_wait(struct rogue_conn *c)
{
	static const enum rdma_cm_event_type answers[] = {
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_REJECTED,
		RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_CONNECT_ERROR,
	};
	unsigned long events;
	unsigned int i;
	int ret;

	ret = rogue_wait(c, rogue_connect_done, ROGUE_CONNECT_MS);
	if (ret) {
		rogue_why_wait(c, "the answer to our REQ", ret,
			       ROGUE_CONNECT_MS);
		return ret;
	}
	spin_lock_bh(&c->lock);
	events = c->events;
	spin_unlock_bh(&c->lock);
	for (i = 0; i < ARRAY_SIZE(answers); i++)
		if (events & BIT(answers[i]))
			return answers[i];
	return RDMA_CM_EVENT_DISCONNECTED;
}

/* An established connection's HelloAck: what ib_sdp's active side checks. */
static bool rogue_hah_ok(struct rogue_conn *c)
{
	const struct sdp_hah *hah = (const struct sdp_hah *)c->hah;
	u32 size = be32_to_cpu(hah->act_rcv_sz);

	if (c->hah_len < 24) {
		rogue_why(c->run, "HelloAck of %u bytes", c->hah_len);
		return false;
	}
	if (hah->bsdh.mid != SDP_MID_HELLO_ACK ||
	    hah->version >> 4 != SDP_VERSION >> 4 || !hah->bsdh.bufs ||
	    size < SDP_MIN_BUF_SIZE || size > SDP_MAX_BUF_SIZE) {
		rogue_why(c->run,
			  "bad HelloAck: mid 0x%02x version 0x%02x bufs %u act_rcv_sz %u",
			  hah->bsdh.mid, hah->version,
			  be16_to_cpu(hah->bsdh.bufs), size);
		return false;
	}
	return true;
}

static void rogue_pattern(u8 *p, u32 n, u32 seed)
{
	u32 i;

	for (i = 0; i < n; i++)
		p[i] = seed * 31 + i;
}

static struct rogue_slot *rogue_slot_get_locked(struct rogue_conn *c)
{
	unsigned int i;

	for (i = 0; i < ROGUE_TX_SLOTS; i++) {
		if (!c->slot[i].busy) {
			c->slot[i].busy = true;
			c->tx_busy++;
			return &c->slot[i];
		}
	}
	return NULL;
}

/*
 * Post @m once a slot is free (ROGUE_RESET_MS at most).  Return: 0,
 * -ECONNRESET if the connection ended before, or another errno.
 */
static int rogue_send(struct rogue_conn *c, const struct rogue_msg *m)
{
	u32 bytes = sizeof(struct sdp_bsdh) + m->payload;
	struct ib_send_wr wr = {};
	struct rogue_slot *s;
	struct sdp_bsdh *h;
	struct ib_sge sge;
	int ret;

	if (m->payload > ROGUE_PAYLOAD_MAX)
		return -EINVAL;
	ret = rogue_wait(c, rogue_slot_free, ROGUE_RESET_MS);
	if (ret)
		return ret;
	spin_lock_bh(&c->lock);
	if (c->qp_dead || rogue_ended(c)) {
		ret = -ECONNRESET;
		goto out;
	}
	s = rogue_slot_get_locked(c);
	if (!s) {
		ret = -EBUSY;
		goto out;
	}
	if (m->big) {
		h = (struct sdp_bsdh *)c->big;
		sge.addr = c->big_dma;
		bytes = ROGUE_BIG_SIZE;
	} else {
		h = (struct sdp_bsdh *)(c->tx + (s - c->slot) * ROGUE_SLOT_SIZE);
		sge.addr = c->tx_dma + (s - c->slot) * ROGUE_SLOT_SIZE;
		if (m->data)
			memcpy(h + 1, m->data, m->payload);
		else
			rogue_pattern((u8 *)(h + 1), m->payload, c->tx_seq);
	}
	h->mid = m->mid;
	h->flags = 0;
	h->bufs = cpu_to_be16(m->bufs_set ? m->bufs :
			      min_t(u32, c->rx_posted, U16_MAX));
	h->len = cpu_to_be32(m->len ? m->len : bytes);
	h->mseq = cpu_to_be32(c->tx_seq + m->mseq_skip);
	h->mseq_ack = cpu_to_be32(c->rx_seq + m->ack_ahead);
	sge.length = m->wire ? m->wire : bytes;
	sge.lkey = c->pd->local_dma_lkey;
	ib_dma_sync_single_for_device(c->dev, sge.addr, sge.length,
				      DMA_TO_DEVICE);
	s->cqe.done = rogue_tx_done;
	wr.wr_cqe = &s->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(c->id->qp, &wr, NULL);
	if (ret) {
		s->busy = false;
		c->tx_busy--;
		goto out;
	}
	c->tx_seq++;
	c->tx_posted++;
out:
	spin_unlock_bh(&c->lock);
	return ret;
}

/* Send the messages of @n entries of @m, one after another. */
static int rogue_send_all(struct rogue_conn *c, const struct rogue_msg *m,
			  unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = rogue_send(c, &m[i]);
		if (ret) {
			rogue_why(c->run, "sending message %u of %u: %d",
				  i + 1, n, ret);
			return ret;
		}
	}
	return 0;
}

/* --------------------------------------------------------------------- */
/* The messages of the cases                                             */
/* --------------------------------------------------------------------- */

static int rogue_send_good(struct rogue_conn *c)
{
	const struct rogue_msg m[] = {
		{ .mid = SDP_MID_DATA, .payload = ROGUE_PAYLOAD_MAX },
		{ .mid = SDP_MID_DATA, .payload = 1 },
		{ .mid = SDP_MID_DATA, .payload = 0 },	/* a credit update */
		{ .mid = SDP_MID_DATA, .payload = 100 },
	};

	return rogue_send_all(c, m, ARRAY_SIZE(m));
}

static int rogue_send_len_big(struct rogue_conn *c)
{
	const struct rogue_msg m = {
		.mid = SDP_MID_DATA, .payload = 64,
		.len = sizeof(struct sdp_bsdh) + 64 + 100,
	};

	return rogue_send_all(c, &m, 1);
}

static int rogue_send_len_small(struct rogue_conn *c)
{
	const struct rogue_msg m = {
		.mid = SDP_MID_DATA, .payload = 64, .len = 8,
	};

	return rogue_send_all(c, &m, 1);
}

static int rogue_send_runt(struct rogue_conn *c)
{
	const struct rogue_msg m = {
		.mid = SDP_MID_DATA, .payload = 64, .wire = 8,
	};

	return rogue_send_all(c, &m, 1);
}

static int rogue_send_mid_unknown(struct rogue_conn *c)
{
	const struct rogue_msg m = {
		.mid = ROGUE_MID_UNKNOWN, .payload = 32,
	};

	return rogue_send_all(c, &m, 1);
}

/* What follows the BSDH of a SrcAvail or a SinkAvail (its first 16). */
struct rogue_adv {
	__be32 len;
	__be32 rkey;
	__be64 vaddr;
};

/* An advert of @mid for @len bytes, @payload bytes of its header sent. */
static int rogue_send_adv(struct rogue_conn *c, u8 mid, u32 len,
			  u32 payload)
{
	const struct rogue_adv adv = {
		.len = cpu_to_be32(len),
		.rkey = cpu_to_be32(0x1234),
		.vaddr = cpu_to_be64(0xffff888012340000ULL),
	};
	const struct rogue_msg m = {
		.mid = mid, .payload = payload, .data = &adv,
	};

	return rogue_send_all(c, &m, 1);
}

static int rogue_send_sinkavail(struct rogue_conn *c)
{
	return rogue_send_adv(c, ROGUE_MID_SINKAVAIL, 65536,
			      sizeof(struct rogue_adv));
}

static int rogue_send_srcavail_zero(struct rogue_conn *c)
{
	return rogue_send_adv(c, ROGUE_MID_SRCAVAIL, 0,
			      sizeof(struct rogue_adv));
}

static int rogue_send_srcavail_short(struct rogue_conn *c)
{
	return rogue_send_adv(c, ROGUE_MID_SRCAVAIL, 65536, 8);
}

/* Nothing of ours is registered: the R_Key names no memory at all. */
static int rogue_send_srcavail_badkey(struct rogue_conn *c)
{
	return rogue_send_adv(c, ROGUE_MID_SRCAVAIL, 65536,
			      sizeof(struct rogue_adv));
}

static int rogue_send_rdmardcompl_stray(struct rogue_conn *c)
{
	const __be32 size = cpu_to_be32(4096);
	const struct rogue_msg m = {
		.mid = ROGUE_MID_RDMA_RD_COMPL, .payload = sizeof(size),
		.data = &size,
	};

	return rogue_send_all(c, &m, 1);
}

static int rogue_send_mseq_bad(struct rogue_conn *c)
{
	const struct rogue_msg m = {
		.mid = SDP_MID_DATA, .payload = 64, .mseq_skip = 5,
	};

	return rogue_send_all(c, &m, 1);
}

static int rogue_send_ack_future(struct rogue_conn *c)
{
	const struct rogue_msg m = {
		.mid = SDP_MID_DATA, .payload = 64, .ack_ahead = 100,
	};

	return rogue_send_all(c, &m, 1);
}

/* A reset after the first message is an answer too. */
static int rogue_send_credits_huge(struct rogue_conn *c)
{
	const struct rogue_msg huge = {
		.mid = SDP_MID_DATA, .payload = 64, .bufs_set = true,
		.bufs = 0xffff,
	};
	const struct rogue_msg data = { .mid = SDP_MID_DATA, .payload = 200 };
	int ret;

	ret = rogue_send_all(c, &huge, 1);
	if (ret)
		return ret;
	ret = rogue_send(c, &data);
	if (ret && ret != -ECONNRESET)
		rogue_why(c->run, "sending the valid data: %d", ret);
	return ret == -ECONNRESET ? 0 : ret;
}

static int rogue_send_data_after_disconn(struct rogue_conn *c)
{
	const struct rogue_msg m[] = {
		{ .mid = SDP_MID_DISCONN },
		{ .mid = SDP_MID_DATA, .payload = 64 },
	};

	return rogue_send_all(c, m, ARRAY_SIZE(m));
}

static int rogue_send_disconn_payload(struct rogue_conn *c)
{
	const struct rogue_msg m = {
		.mid = SDP_MID_DISCONN, .payload = 32,
	};

	return rogue_send_all(c, &m, 1);
}

static int rogue_send_oversize(struct rogue_conn *c)
{
	const struct sdp_hah *hah = (const struct sdp_hah *)c->hah;
	const struct rogue_msg m = { .mid = SDP_MID_DATA, .big = true };

	if (be32_to_cpu(hah->act_rcv_sz) >= ROGUE_BIG_SIZE) {
		rogue_why(c->run, "the victim's buffers (%u bytes) take %u",
			  be32_to_cpu(hah->act_rcv_sz), ROGUE_BIG_SIZE);
		return -EINVAL;
	}
	return rogue_send_all(c, &m, 1);
}

/* As fast as slots free up; a reset ends it early, which is fine. */
static int rogue_send_flood(struct rogue_conn *c)
{
	const struct rogue_msg m = { .mid = SDP_MID_DATA, .payload = 64 };
	unsigned long end = jiffies + msecs_to_jiffies(ROGUE_FLOOD_MS);
	unsigned int i;
	int ret;

	for (i = 0; i < ROGUE_FLOOD_MSGS; i++) {
		if (time_after(jiffies, end)) {
			rogue_why(c->run, "only %u of %u messages sent in %u ms (%u completed)",
				  i, ROGUE_FLOOD_MSGS, ROGUE_FLOOD_MS,
				  READ_ONCE(c->tx_ok));
			return -ETIMEDOUT;
		}
		ret = rogue_send(c, &m);
		if (ret == -ECONNRESET) {
			rogue_out(c->run, "# %s: the connection ended after %u messages",
				  c->rc->name, i);
			return 0;
		}
		if (ret) {
			rogue_why(c->run,
				  "stalled after %u of %u messages (%u completed): %d",
				  i, ROGUE_FLOOD_MSGS, READ_ONCE(c->tx_ok),
				  ret);
			return ret;
		}
	}
	ret = rogue_wait(c, rogue_sent, ROGUE_RESET_MS);
	if (ret)
		rogue_why_wait(c, "the flood's completions", ret,
			       ROGUE_RESET_MS);
	return ret;
}

/* Spoiled Hellos. */
static void rogue_hello_version(struct sdp_hh *hh)
{
	hh->version = 0x11;
}

static void rogue_hello_nobufs(struct sdp_hh *hh)
{
	hh->bsdh.bufs = 0;
}

static void rogue_hello_small(struct sdp_hh *hh)
{
	hh->local_rcv_sz = cpu_to_be32(16);
}

/* Its first 20 bytes; the rest as the wire carries it, zeros. */
static void rogue_hello_short(struct sdp_hh *hh)
{
	memset((u8 *)hh + 20, 0, sizeof(*hh) - 20);
}

static const struct rogue_case rogue_cases[] = {
	{ "good",
	  "valid data, then DisConn both ways and the victim's disconnection",
	  ROGUE_CLEAN, .send = rogue_send_good },
	{ "hello-version", "a Hello of version 0x11 is rejected",
	  ROGUE_REFUSED, rogue_hello_version },
	{ "hello-nobufs", "a Hello with Bufs 0 is rejected",
	  ROGUE_REFUSED, rogue_hello_nobufs },
	{ "hello-small", "a Hello with LocalRcvSz 16 is rejected",
	  ROGUE_REFUSED, rogue_hello_small },
	{ "hello-short",
	  "a Hello of 20 bytes padded with zeros (as a REQ carries it) is rejected",
	  ROGUE_REFUSED, rogue_hello_short, 20 },
	{ "len-big",
	  "a Data message whose BSDH len exceeds the bytes sent: reset",
	  ROGUE_RESET, .send = rogue_send_len_big },
	{ "len-small", "BSDH len 8, below the header's 16: reset",
	  ROGUE_RESET, .send = rogue_send_len_small },
	{ "runt", "an 8-byte message, a truncated BSDH: reset",
	  ROGUE_RESET, .send = rogue_send_runt },
	{ "mid-unknown", "MID 0x42: reset",
	  ROGUE_RESET, .send = rogue_send_mid_unknown },
	{ "sinkavail", "a SinkAvail advert (MID 0xFD, not implemented): reset",
	  ROGUE_RESET, .send = rogue_send_sinkavail },
	{ "srcavail-zero", "a SrcAvail of 0 bytes: reset",
	  ROGUE_RESET, .send = rogue_send_srcavail_zero },
	{ "srcavail-short", "a SrcAvail with 8 bytes of its header: reset",
	  ROGUE_RESET, .send = rogue_send_srcavail_short },
	{ "srcavail-badkey",
	  "a SrcAvail under an R_Key nobody has: the victim's RDMA READ fails, reset",
	  ROGUE_RESET, .send = rogue_send_srcavail_badkey },
	{ "rdmardcompl-stray", "an RdmaRdCompl with no advert out: reset",
	  ROGUE_RESET, .send = rogue_send_rdmardcompl_stray },
	{ "mseq-bad", "an MSeq 5 beyond the next one: reset",
	  ROGUE_RESET, .send = rogue_send_mseq_bad },
	{ "ack-future", "an MSeqAck of a message never sent: reset",
	  ROGUE_RESET, .send = rogue_send_ack_future },
	{ "credits-huge",
	  "Bufs 0xffff, then valid data: the connection ends cleanly",
	  ROGUE_EITHER, .send = rogue_send_credits_huge },
	{ "data-after-disconn", "Data after DisConn: reset",
	  ROGUE_RESET, .send = rogue_send_data_after_disconn },
	{ "disconn-payload", "a DisConn with a payload: reset",
	  ROGUE_RESET, .send = rogue_send_disconn_payload },
	{ "oversize",
	  "a 128 KiB SEND, beyond any SDP receive buffer: the connection ends",
	  ROGUE_RESET, .send = rogue_send_oversize, .big = true },
	{ "flood",
	  "2000 Data messages regardless of credits: no hang, the connection ends cleanly",
	  ROGUE_EITHER, .send = rogue_send_flood },
};

/* --------------------------------------------------------------------- */
/* The cases                                                             */
/* --------------------------------------------------------------------- */

/*
 * A Hello the victim must refuse, @len bytes of it sent.  Return: the
 * error of rdma_connect() (nothing was sent), else 0, the check's
 * reason noted if the victim did not refuse it.
 */
static int rogue_try_hello(struct rogue_run *run,
			   const struct rogue_case *rc, u8 len)
{
	struct rogue_conn *c;
	struct sdp_hh hh;
	int ret;

	c = rogue_conn_new(run, rc);
	if (!c) {
		rogue_why(run, "no memory");
		return 0;
	}
	ret = rogue_open(c);
	if (ret)
		goto out;
	rogue_hello(c, &hh);
	rc->hello(&hh);
	ret = rogue_connect(c, &hh, len);
	if (ret) {
		/* a short Hello may be refused here; else it is a failure */
		if (len == sizeof(hh) || ret != -EINVAL)
			rogue_why(run, "rdma_connect: %d", ret);
		goto out;
	}
	ret = rogue_connect_wait(c);
	if (ret == RDMA_CM_EVENT_REJECTED) {
		rogue_out(run, "# %s: rejected, reason %d (%s)", rc->name,
			  c->reject, rdma_reject_msg(c->id, c->reject));
	} else if (ret == RDMA_CM_EVENT_UNREACHABLE) {
		rogue_out(run, "# %s: unreachable (%d)", rc->name,
			  c->last_status);
	} else if (ret >= 0) {
		rogue_why(run, "the victim answered %s (%d)",
			  rdma_event_msg(ret), c->last_status);
	}
	ret = 0;
out:
	rogue_teardown(c);
	kfree(c);
	return ret;
}

static void rogue_case_refused(struct rogue_run *run,
			       const struct rogue_case *rc)
{
	char what[96];

	if (rc->hello_len) {
		if (rogue_try_hello(run, rc, rc->hello_len) == -EINVAL)
			rogue_out(run,
				  "# %s: rdma_connect() refuses a Hello of %u bytes (-EINVAL); a REQ carries it padded with zeros: sending that",
				  rc->name, rc->hello_len);
		snprintf(what, sizeof(what),
			 "a Hello of %u bytes is refused by our RDMA CM or rejected",
			 rc->hello_len);
		rogue_result(run, rc->name, what);
	}
	rogue_try_hello(run, rc, sizeof(struct sdp_hh));
	rogue_result(run, rc->name, rc->what);
}

/* Our DisConn; then the victim's disconnection (or a reset). */
static int rogue_close(struct rogue_conn *c)
{
	const struct rogue_msg m = { .mid = SDP_MID_DISCONN };
	int ret;

	ret = rogue_send(c, &m);
	if (ret == -ECONNRESET)
		return 0;
	if (ret) {
		rogue_why(c->run, "sending our DisConn: %d", ret);
		return ret;
	}
	ret = rogue_wait(c, rogue_ended, ROGUE_RESET_MS);
	if (ret)
		rogue_why_wait(c, "the end after our DisConn", ret,
			       ROGUE_RESET_MS);
	return ret;
}

/* The messages of an established connection, and what follows. */
static void rogue_messages(struct rogue_conn *c)
{
	struct rogue_run *run = c->run;
	const char *name = c->rc->name;
	unsigned long start;
	bool ended;
	int ret;

	start = jiffies;
	ret = c->rc->send(c);
	if (ret == -ECONNRESET)
		rogue_why(run, "the connection ended before the case's messages were sent");
	if (ret)
		return;

	switch (c->rc->kind) {
	case ROGUE_RESET:
		ret = rogue_wait(c, rogue_over, ROGUE_RESET_MS);
		if (ret) {
			rogue_why_wait(c, "a reset", ret, ROGUE_RESET_MS);
			break;
		}
		/* every receive completion handled: a DisConn would show */
		rogue_stop(c);
		if (READ_ONCE(c->rx_disconn))
			rogue_why(run,
				  "the victim closed gracefully (its DisConn) instead of resetting");
		else
			rogue_out(run, "# %s: reset after %u ms", name,
				  jiffies_to_msecs(jiffies - start));
		break;
	case ROGUE_EITHER:
		ret = rogue_wait(c, rogue_ended, ROGUE_SETTLE_MS);
		if (ret && ret != -ETIMEDOUT) {
			rogue_why_wait(c, "the victim's answer", ret,
				       ROGUE_SETTLE_MS);
			break;
		}
		ended = !ret;
		if (!ended && rogue_close(c))
			break;
		rogue_stop(c);
		rogue_out(run, "# %s: %s", name,
			  ended ? "the victim reset the connection" :
			  READ_ONCE(c->rx_disconn) ?
			  "the connection survived; our DisConn was answered by the victim's" :
			  "the connection survived; our DisConn ended it without the victim's");
		break;
	case ROGUE_CLEAN:
		ret = rogue_wait(c, rogue_sent, ROGUE_SETTLE_MS);
		if (ret) {
			rogue_why_wait(c, "our messages' completions", ret,
				       ROGUE_SETTLE_MS);
			break;
		}
		if (rogue_test(c, rogue_over)) {
			rogue_why(run, "the victim ended a valid connection");
			break;
		}
		if (rogue_close(c))
			break;
		rogue_stop(c);
		if (READ_ONCE(c->tx_err) || READ_ONCE(c->rx_err))
			rogue_why(run, "error completions: a reset");
		else if (READ_ONCE(c->rx_disconn) != 1)
			rogue_why(run, "%u DisConn messages from the victim, not 1",
				  READ_ONCE(c->rx_disconn));
		else if (READ_ONCE(c->rx_odd))
			rogue_why(run, "%u odd messages from the victim",
				  READ_ONCE(c->rx_odd));
		break;
	default:
		break;
	}
}

static void rogue_case_established(struct rogue_run *run,
				   const struct rogue_case *rc)
{
	const struct sdp_hah *hah;
	struct rogue_conn *c;
	struct sdp_hh hh;
	int ret;

	c = rogue_conn_new(run, rc);
	if (!c) {
		rogue_check(run, false, "%s: %s (no memory)", rc->name,
			    rc->what);
		return;
	}
	ret = rogue_open(c);
	if (ret)
		goto out;
	rogue_hello(c, &hh);
	ret = rogue_connect(c, &hh, sizeof(hh));
	if (ret) {
		rogue_why(run, "rdma_connect: %d", ret);
		goto out;
	}
	ret = rogue_connect_wait(c);
	if (ret < 0)
		goto out;
	if (ret != RDMA_CM_EVENT_ESTABLISHED) {
		rogue_why(run, "not established: %s (%d)", rdma_event_msg(ret),
			  READ_ONCE(c->last_status));
		goto out;
	}
	if (!rogue_hah_ok(c))
		goto out;
	hah = (const struct sdp_hah *)c->hah;
	if (rc->kind == ROGUE_CLEAN)
		rogue_out(run, "# %s: HelloAck: version 0x%02x, %u credits, buffers of %u bytes",
			  rc->name, hah->version, be16_to_cpu(hah->bsdh.bufs),
			  be32_to_cpu(hah->act_rcv_sz));
	rogue_messages(c);
out:
	rogue_teardown(c);
	rogue_result(run, rc->name, rc->what);
	rogue_report(c);
	kfree(c);
}

static void rogue_run_cases(struct rogue_run *run)
{
	const struct rogue_case *rc;
	unsigned int i;

	run->deadline = jiffies + msecs_to_jiffies(ROGUE_TOTAL_MS);
	rogue_out(run, "# sdp_rogue: %u case(s) against %pI4 port %u",
		  run->ncases, &run->dst.sin_addr, ntohs(run->dst.sin_port));
	for (i = 0; i < run->ncases; i++) {
		rc = &rogue_cases[run->cases[i]];
		if (signal_pending(current)) {
			rogue_check(run, false, "%s: not run (interrupted)",
				    rc->name);
			continue;
		}
		if (time_after(jiffies, run->deadline)) {
			rogue_check(run, false, "%s: not run (the command took %u s)",
				    rc->name, ROGUE_TOTAL_MS / 1000);
			continue;
		}
		if (rc->kind == ROGUE_REFUSED)
			rogue_case_refused(run, rc);
		else
			rogue_case_established(run, rc);
	}
	rogue_out(run, "# sdp_rogue: %u ok, %u not ok", run->passed,
		  run->failed);
}

/* --------------------------------------------------------------------- */
/* Commands                                                              */
/* --------------------------------------------------------------------- */

static int rogue_add_case(struct rogue_run *run, const char *word)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rogue_cases); i++) {
		if (strcmp(word, "all") && strcmp(word, rogue_cases[i].name))
			continue;
		if (run->ncases == ROGUE_MAX_CASES)
			return -EINVAL;
		run->cases[run->ncases++] = i;
		if (strcmp(word, "all"))
			return 0;
	}
	return strcmp(word, "all") ? -EINVAL : 0;
}

/* Split @cmd in place: the cases, addr= and port=. */
static int rogue_parse(struct rogue_run *run, char *cmd)
{
	bool have_addr = false;
	char *word, *val;
	u16 port = 0;

	while ((word = strsep(&cmd, " \t\n"))) {
		if (!*word)
			continue;
		val = strchr(word, '=');
		if (val)
			*val++ = '\0';
		if (!val) {
			if (rogue_add_case(run, word))
				return -EINVAL;
		} else if (!strcmp(word, "addr")) {
			if (!in4_pton(val, -1, (u8 *)&run->dst.sin_addr.s_addr,
				      -1, NULL))
				return -EINVAL;
			have_addr = true;
		} else if (!strcmp(word, "port")) {
			if (kstrtou16(val, 0, &port) || !port)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (!run->ncases || !have_addr || !port)
		return -EINVAL;
	run->dst.sin_family = AF_INET;
	run->dst.sin_port = htons(port);
	return 0;
}

static ssize_t rogue_run_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct rogue_run *run;
	char *cmd;
	int ret;

	if (count >= ROGUE_CMD_MAX)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run) {
		ret = -ENOMEM;
		goto out_cmd;
	}
	ret = rogue_parse(run, strim(cmd));
	if (ret)
		goto out_run;
	run->size = ROGUE_OUT_SIZE;
	run->out = kvzalloc(run->size, GFP_KERNEL);
	if (!run->out) {
		ret = -ENOMEM;
		goto out_run;
	}
	ret = mutex_lock_interruptible(&rogue_lock);
	if (ret)
		goto out_out;
	if (rogue_gone) {
		ret = -ENODEV;
		goto out_unlock;
	}
	run->net = get_net(current->nsproxy->net_ns);
	rogue_run_cases(run);
	put_net(run->net);
	kvfree(rogue_last);
	rogue_last = run->out;
	rogue_last_len = run->len;
	run->out = NULL;
	ret = count;
out_unlock:
	mutex_unlock(&rogue_lock);
out_out:
	kvfree(run->out);
out_run:
	kfree(run);
out_cmd:
	kfree(cmd);
	return ret;
}

static ssize_t rogue_run_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	ssize_t ret;

	ret = mutex_lock_interruptible(&rogue_lock);
	if (ret)
		return ret;
	ret = simple_read_from_buffer(ubuf, count, ppos, rogue_last,
				      rogue_last ? rogue_last_len : 0);
	mutex_unlock(&rogue_lock);
	return ret;
}

static const struct file_operations rogue_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rogue_run_read,
	.write = rogue_run_write,
	.llseek = default_llseek,
};

static const struct file_operations rogue_result_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rogue_run_read,
	.llseek = default_llseek,
};

static int __init rogue_init(void)
{
	rogue_dir = debugfs_create_dir("sdp_rogue", NULL);
	debugfs_create_file("run", 0600, rogue_dir, NULL, &rogue_run_fops);
	debugfs_create_file("result", 0400, rogue_dir, NULL,
			    &rogue_result_fops);
	return 0;
}

static void __exit rogue_exit(void)
{
	/* a command in progress ends first; none starts after */
	mutex_lock(&rogue_lock);
	rogue_gone = true;
	mutex_unlock(&rogue_lock);
	/* waits for the readers and writers inside the files */
	debugfs_remove_recursive(rogue_dir);
	kvfree(rogue_last);
}

module_init(rogue_init);
module_exit(rogue_exit);

MODULE_DESCRIPTION("Rogue SDP peer: malformed SDP messages against ib_sdp");
MODULE_LICENSE("GPL");
