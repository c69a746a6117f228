// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test: the resources every test needs (device sides, buffers,
 * CQs and QPs), connecting QPs, posting, polling with a time limit, and
 * data patterns.
 *
 * Problems are noted with vt_why(); the test reports them in its check.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "vt.h"

/* --------------------------------------------------------------------- */
/* Sides and buffers                                                     */
/* --------------------------------------------------------------------- */

/**
 * vt_side_init - get ready to use port 1 of a device
 * @run: the command
 * @s: the side, zeroed by the caller
 * @vdev: the device
 * @need_active: fail unless the port is ACTIVE
 *
 * Return: 0 or a negative errno (with vt_why() called).
 */
int vt_side_init(struct vt_run *run, struct vt_side *s, struct vt_dev *vdev,
		 bool need_active)
{
	struct ib_port_attr pattr = {};
	int ret;

	s->vdev = vdev;
	s->dev = vdev->ibdev;
	s->port = 1;
	ret = ib_query_port(s->dev, s->port, &pattr);
	if (ret) {
		vt_why(run, "ib_query_port(%s): %d", ib_device_name(s->dev),
		       ret);
		return ret;
	}
	s->lid = pattr.lid;
	if (need_active && pattr.state != IB_PORT_ACTIVE) {
		vt_why(run, "%s port 1 is not ACTIVE (state %d, LID %u)",
		       ib_device_name(s->dev), pattr.state, pattr.lid);
		return -ENETDOWN;
	}
	ret = rdma_query_gid(s->dev, s->port, 0, &s->gid);
	if (ret) {
		vt_why(run, "rdma_query_gid(%s): %d", ib_device_name(s->dev),
		       ret);
		return ret;
	}
	s->pd = ib_alloc_pd(s->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(s->pd)) {
		ret = PTR_ERR(s->pd);
		s->pd = NULL;
		vt_why(run, "ib_alloc_pd(%s): %d", ib_device_name(s->dev),
		       ret);
		return ret;
	}
	return 0;
}

/**
 * vt_side_fini - release what vt_side_init() took
 * @s: the side (may be partly set up)
 */
void vt_side_fini(struct vt_side *s)
{
	if (s->pd)
		ib_dealloc_pd(s->pd);
	s->pd = NULL;
}

/**
 * vt_buf_alloc - allocate a zeroed buffer and map it for a device
 * @run: the command
 * @b: the buffer
 * @dev: the device
 * @size: bytes
 *
 * Large buffers may come from vmalloc; that is only allowed for devices
 * whose DMA addresses are kernel virtual addresses (software devices).
 *
 * Return: 0 or a negative errno (with vt_why() called).
 */
int vt_buf_alloc(struct vt_run *run, struct vt_buf *b, struct ib_device *dev,
		 size_t size)
{
	b->va = kvzalloc(size, GFP_KERNEL);
	if (!b->va) {
		vt_why(run, "no memory for a %zu-byte buffer", size);
		return -ENOMEM;
	}
	if (is_vmalloc_addr(b->va) && !ib_uses_virt_dma(dev)) {
		kvfree(b->va);
		b->va = NULL;
		vt_why(run, "%s needs physically contiguous buffers",
		       ib_device_name(dev));
		return -EOPNOTSUPP;
	}
	b->size = size;
	b->dev = dev;
	b->dma = ib_dma_map_single(dev, b->va, size, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, b->dma)) {
		kvfree(b->va);
		b->va = NULL;
		vt_why(run, "ib_dma_map_single failed");
		return -ENOMEM;
	}
	return 0;
}

/**
 * vt_buf_free - unmap and free a buffer from vt_buf_alloc()
 * @b: the buffer (nothing happens if it was never allocated)
 */
void vt_buf_free(struct vt_buf *b)
{
	if (!b->va)
		return;
	ib_dma_unmap_single(b->dev, b->dma, b->size, DMA_BIDIRECTIONAL);
	kvfree(b->va);
	b->va = NULL;
}

/* --------------------------------------------------------------------- */
/* CQs and QPs                                                           */
/* --------------------------------------------------------------------- */

static void vt_cq_comp(struct ib_cq *cq, void *context)
{
	struct vt_cq *vcq = context;

	atomic_inc(&vcq->events);
	wake_up(READ_ONCE(vcq->waitp));
}

static void vt_qp_event(struct ib_event *event, void *context)
{
	struct vt_qp *q = context;

	if (event->event < 32)
		atomic_or(BIT(event->event), &q->events);
}

static int vt_cq_create(struct vt_run *run, struct vt_cq *vcq,
			struct ib_device *dev, u32 cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };

	init_waitqueue_head(&vcq->wait);
	vcq->waitp = &vcq->wait;
	atomic_set(&vcq->events, 0);
	vcq->cq = ib_create_cq(dev, vt_cq_comp, NULL, vcq, &attr);
	if (IS_ERR(vcq->cq)) {
		int ret = PTR_ERR(vcq->cq);

		vcq->cq = NULL;
		vt_why(run, "ib_create_cq(%u): %d", cqe, ret);
		return ret;
	}
	return 0;
}

static void vt_cq_destroy(struct vt_cq *vcq)
{
	if (vcq->cq)
		ib_destroy_cq(vcq->cq);
	vcq->cq = NULL;
}

/**
 * vt_qp_create - create a QP with a send CQ and a receive CQ of its own
 * @run: the command
 * @q: the QP, zeroed by the caller
 * @s: the side it lives on
 * @type: IB_QPT_RC, IB_QPT_UC or IB_QPT_UD
 * @srq: an SRQ, or NULL
 * @max_send: send queue depth
 * @max_recv: receive queue depth (with an SRQ: the receive CQ's size)
 *
 * Every send request is signalled.
 *
 * Return: 0 or a negative errno (with vt_why() called).
 */
int vt_qp_create(struct vt_run *run, struct vt_qp *q, struct vt_side *s,
		 enum ib_qp_type type, struct ib_srq *srq, u32 max_send,
		 u32 max_recv)
{
	struct ib_qp_init_attr init = {};
	int ret;

	q->side = s;
	atomic_set(&q->events, 0);
	ret = vt_cq_create(run, &q->scq, s->dev, max_send + 1);
	if (ret)
		return ret;
	ret = vt_cq_create(run, &q->rcq, s->dev, max_recv + 1);
	if (ret)
		goto err_scq;

	init.event_handler = vt_qp_event;
	init.qp_context = q;
	init.send_cq = q->scq.cq;
	init.recv_cq = q->rcq.cq;
	init.srq = srq;
	init.cap.max_send_wr = max_send;
	init.cap.max_recv_wr = srq ? 0 : max_recv;
	init.cap.max_send_sge = 2;
	init.cap.max_recv_sge = srq ? 0 : 2;
	init.sq_sig_type = IB_SIGNAL_ALL_WR;
	init.qp_type = type;
	q->qp = ib_create_qp(s->pd, &init);
	if (IS_ERR(q->qp)) {
		ret = PTR_ERR(q->qp);
		q->qp = NULL;
		vt_why(run, "ib_create_qp(type %d) on %s: %d", type,
		       ib_device_name(s->dev), ret);
		goto err_rcq;
	}
	return 0;

err_rcq:
	vt_cq_destroy(&q->rcq);
err_scq:
	vt_cq_destroy(&q->scq);
	return ret;
}

/**
 * vt_qp_destroy - destroy a QP and its CQs
 * @q: the QP (may be partly set up, or already destroyed)
 */
void vt_qp_destroy(struct vt_qp *q)
{
	if (q->qp)
		ib_destroy_qp(q->qp);
	q->qp = NULL;
	vt_cq_destroy(&q->rcq);
	vt_cq_destroy(&q->scq);
}

/**
 * vt_conn_default - the connection parameters of most tests
 * @run: the command (its mtu= and ack_timeout= options count)
 * @c: filled in
 */
void vt_conn_default(struct vt_run *run, struct vt_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu = IB_MTU_4096;
	if (run->mtu)
		c->mtu = ilog2(run->mtu) - 7;
	/* 4.096 us * 2^14 = 67 ms: generous for an emulated guest */
	c->timeout = run->ack_timeout ? run->ack_timeout : 14;
	c->retry_cnt = 7;
	c->rnr_retry = 7;
	c->min_rnr_timer = 12;	/* 0.64 ms */
	c->qkey = VT_QKEY;
	/* random, as every PSN a kernel consumer chooses should be */
	c->psn = get_random_u32() & 0xffffff;
}

static int vt_modify(struct vt_run *run, struct vt_qp *q,
		     struct ib_qp_attr *attr, int mask, const char *to)
{
	int ret = ib_modify_qp(q->qp, attr, mask);

	if (ret)
		vt_why(run, "ib_modify_qp(QP %u, to %s, mask %#x): %d",
		       q->qp->qp_num, to, mask, ret);
	return ret;
}

/**
 * vt_qp_connect - take a QP from RESET to RTS
 * @run: the command
 * @q: the QP
 * @dlid: the remote port's LID (RC, UC)
 * @dqpn: the remote QP number (RC, UC)
 * @c: connection parameters
 *
 * Return: 0 or a negative errno (with vt_why() called).
 */
int vt_qp_connect(struct vt_run *run, struct vt_qp *q, u16 dlid, u32 dqpn,
		  const struct vt_conn *c)
{
	enum ib_qp_type type = q->qp->qp_type;
	struct ib_qp_attr attr = {};
	int mask, ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = q->side->port;
	mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (type == IB_QPT_UD) {
		attr.qkey = c->qkey;
		mask |= IB_QP_QKEY;
	} else {
		attr.qp_access_flags = type == IB_QPT_RC ? VT_ACCESS :
			IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
		mask |= IB_QP_ACCESS_FLAGS;
	}
	ret = vt_modify(run, q, &attr, mask, "INIT");
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (type != IB_QPT_UD) {
		attr.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
		attr.ah_attr.dlid = dlid;
		attr.ah_attr.port_num = q->side->port;
		attr.path_mtu = c->mtu;
		attr.dest_qp_num = dqpn;
		attr.rq_psn = c->psn;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN;
	}
	if (type == IB_QPT_RC) {
		attr.max_dest_rd_atomic = 8;
		attr.min_rnr_timer = c->min_rnr_timer;
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	ret = vt_modify(run, q, &attr, mask, "RTR");
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = c->psn;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (type == IB_QPT_RC) {
		attr.timeout = c->timeout;
		attr.retry_cnt = c->retry_cnt;
		attr.rnr_retry = c->rnr_retry;
		attr.max_rd_atomic = 8;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	return vt_modify(run, q, &attr, mask, "RTS");
}

/**
 * vt_qp_modify_state - move a QP to another state, with no attributes
 * @q: the QP
 * @state: the new state (IB_QPS_ERR or IB_QPS_RESET)
 *
 * Return: 0 or a negative errno.
 */
int vt_qp_modify_state(struct vt_qp *q, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(q->qp, &attr, IB_QP_STATE);
}

/**
 * vt_qp_state - the state the driver reports for a QP
 * @q: the QP
 *
 * Return: an enum ib_qp_state value or a negative errno.
 */
int vt_qp_state(struct vt_qp *q)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int ret;

	ret = ib_query_qp(q->qp, &attr, IB_QP_STATE, &init);
	return ret ? ret : attr.qp_state;
}

/**
 * vt_wait_qp_state - wait until a QP reaches a state
 * @run: the command
 * @q: the QP
 * @state: the state
 * @ms: how long to wait at most
 *
 * Return: true if it got there.
 */
bool vt_wait_qp_state(struct vt_run *run, struct vt_qp *q,
		      enum ib_qp_state state, unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		if (vt_qp_state(q) == state)
			return true;
		if (time_after(jiffies, deadline) || vt_aborted(run))
			return false;
		usleep_range(5000, 10000);
	}
}

/**
 * vt_wait_event - wait until an event type shows up in a mask
 * @run: the command
 * @mask: the bitmask the event handler sets
 * @type: the enum ib_event_type
 * @ms: how long to wait at most
 *
 * Return: true if it did.
 */
bool vt_wait_event(struct vt_run *run, atomic_t *mask, int type,
		   unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		if (atomic_read(mask) & BIT(type))
			return true;
		if (time_after(jiffies, deadline) || vt_aborted(run))
			return false;
		usleep_range(5000, 10000);
	}
}

/**
 * vt_pair_create - two connected QPs, one on each side
 * @run: the command
 * @a: the first QP, zeroed by the caller
 * @sa: its side
 * @b: the second QP, zeroed by the caller
 * @sb: its side
 * @type: transport
 * @c: connection parameters
 * @depth: send and receive queue depth of each
 *
 * Return: 0 or a negative errno (with vt_why() called); on error nothing
 * is left.
 */
int vt_pair_create(struct vt_run *run, struct vt_qp *a, struct vt_side *sa,
		   struct vt_qp *b, struct vt_side *sb, enum ib_qp_type type,
		   const struct vt_conn *c, u32 depth)
{
	int ret;

	ret = vt_qp_create(run, a, sa, type, NULL, depth, depth);
	if (ret)
		return ret;
	ret = vt_qp_create(run, b, sb, type, NULL, depth, depth);
	if (ret)
		goto err_a;
	ret = vt_qp_connect(run, a, sb->lid, b->qp->qp_num, c);
	if (ret)
		goto err_b;
	ret = vt_qp_connect(run, b, sa->lid, a->qp->qp_num, c);
	if (ret)
		goto err_b;
	return 0;

err_b:
	vt_qp_destroy(b);
err_a:
	vt_qp_destroy(a);
	return ret;
}

/**
 * vt_pair_destroy - destroy both QPs of a pair
 * @a: the first
 * @b: the second
 */
void vt_pair_destroy(struct vt_qp *a, struct vt_qp *b)
{
	vt_qp_destroy(a);
	vt_qp_destroy(b);
}

/* --------------------------------------------------------------------- */
/* Polling                                                               */
/* --------------------------------------------------------------------- */

/**
 * vt_poll - take one completion, waiting for it at most @ms
 * @run: the command
 * @cq: the CQ
 * @wc: where to put it
 * @ms: the time limit
 *
 * Waits on the CQ's completion handler, and re-polls every few
 * milliseconds in case the handler is not called.
 *
 * Return: 1 with a completion, 0 on timeout, -EINTR if the command must
 * stop, or ib_poll_cq()'s error.
 */
int vt_poll(struct vt_run *run, struct vt_cq *cq, struct ib_wc *wc,
	    unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		int seen, n;

		n = ib_poll_cq(cq->cq, 1, wc);
		if (n)
			return n;
		if (vt_aborted(run))
			return -EINTR;
		if (time_after(jiffies, deadline))
			return 0;
		seen = atomic_read(&cq->events);
		if (ib_req_notify_cq(cq->cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0) {
			cond_resched();
			continue;
		}
		wait_event_timeout(*cq->waitp, atomic_read(&cq->events) != seen,
				   msecs_to_jiffies(5));
	}
}

/**
 * vt_poll_quiet - take a completion if there is one, without waiting
 * @cq: the CQ
 * @wc: where to put it
 *
 * Return: 1, 0 or a negative errno.
 */
int vt_poll_quiet(struct vt_cq *cq, struct ib_wc *wc)
{
	return ib_poll_cq(cq->cq, 1, wc);
}

/**
 * vt_expect - take the next completion and check its wr_id and status
 * @run: the command
 * @cq: the CQ
 * @wr_id: the expected wr_id
 * @status: the expected status
 * @wc: the completion, for further checks
 * @what: what the completion is for, for vt_why()
 *
 * Return: 0 if it matches; -ETIMEDOUT, -EINTR or -EIO otherwise (with
 * vt_why() called).
 */
int vt_expect(struct vt_run *run, struct vt_cq *cq, u64 wr_id,
	      enum ib_wc_status status, struct ib_wc *wc, const char *what)
{
	int n = vt_poll(run, cq, wc, run->wait_ms);

	if (n == 0) {
		vt_why(run, "%s: no completion within %u ms", what,
		       run->wait_ms);
		return -ETIMEDOUT;
	}
	if (n < 0) {
		vt_why(run, "%s: polling stopped (%d)", what, n);
		return n == -EINTR ? n : -EIO;
	}
	if (wc->wr_id != wr_id) {
		vt_why(run, "%s: completion of wr_id %#llx, expected %#llx (status %s)",
		       what, wc->wr_id, wr_id, ib_wc_status_msg(wc->status));
		return -EIO;
	}
	if (wc->status != status) {
		vt_why(run, "%s: status %s (vendor_err %u), expected %s", what,
		       ib_wc_status_msg(wc->status), wc->vendor_err,
		       ib_wc_status_msg(status));
		return -EIO;
	}
	return 0;
}

/* --------------------------------------------------------------------- */
/* Posting                                                               */
/* --------------------------------------------------------------------- */

/**
 * vt_post_recv - post one receive request with at most one SGE
 * @q: the QP
 * @wr_id: its wr_id
 * @addr: buffer address
 * @len: buffer length; 0 posts a request without SGE
 * @lkey: the buffer's lkey
 *
 * Return: ib_post_recv()'s result.
 */
int vt_post_recv(struct vt_qp *q, u64 wr_id, u64 addr, u32 len, u32 lkey)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
	};

	return ib_post_recv(q->qp, &wr, NULL);
}

/**
 * vt_post_send - post one signalled SEND, RDMA WRITE or RDMA READ
 * @q: the QP
 * @wr_id: its wr_id
 * @op: the opcode
 * @addr: local buffer address
 * @len: length; 0 posts a request without SGE
 * @lkey: the local buffer's lkey
 * @imm: immediate data (host order) for the _WITH_IMM opcodes
 * @raddr: remote address (RDMA)
 * @rkey: remote key (RDMA)
 *
 * Return: ib_post_send()'s result.
 */
int vt_post_send(struct vt_qp *q, u64 wr_id, enum ib_wr_opcode op,
		 u64 addr, u32 len, u32 lkey, u32 imm, u64 raddr, u32 rkey)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.sg_list = &sge,
			.num_sge = len ? 1 : 0,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	if (op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(imm);
	return ib_post_send(q->qp, &wr.wr, NULL);
}

/* --------------------------------------------------------------------- */
/* Patterns and names                                                    */
/* --------------------------------------------------------------------- */

/**
 * vt_fill - fill a buffer with the pattern of a seed
 * @p: the buffer
 * @len: bytes
 * @seed: the seed; different seeds give different patterns
 */
void vt_fill(u8 *p, size_t len, u32 seed)
{
	u32 x = seed * 2654435761u + 0x9e3779b9u;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = x >> 16;
	}
}

/**
 * vt_verify - check a buffer against the pattern of a seed
 * @p: the buffer
 * @len: bytes
 * @seed: the seed
 *
 * Return: -1 if it matches, else the offset of the first wrong byte.
 */
long vt_verify(const u8 *p, size_t len, u32 seed)
{
	u32 x = seed * 2654435761u + 0x9e3779b9u;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		if (p[i] != (u8)(x >> 16))
			return i;
	}
	return -1;
}

/**
 * vt_verify_byte - check that a buffer holds one byte value only
 * @p: the buffer
 * @len: bytes
 * @val: the value
 *
 * Return: -1 if it does, else the offset of the first other byte.
 */
long vt_verify_byte(const u8 *p, size_t len, u8 val)
{
	const u8 *bad = memchr_inv(p, val, len);

	return bad ? bad - p : -1;
}

/**
 * vt_wc_opcode_str - name of a completion opcode
 * @op: the opcode
 *
 * Return: a constant string.
 */
const char *vt_wc_opcode_str(enum ib_wc_opcode op)
{
	switch (op) {
	case IB_WC_SEND:		return "SEND";
	case IB_WC_RDMA_WRITE:		return "RDMA_WRITE";
	case IB_WC_RDMA_READ:		return "RDMA_READ";
	case IB_WC_COMP_SWAP:		return "COMP_SWAP";
	case IB_WC_FETCH_ADD:		return "FETCH_ADD";
	case IB_WC_LOCAL_INV:		return "LOCAL_INV";
	case IB_WC_REG_MR:		return "REG_MR";
	case IB_WC_RECV:		return "RECV";
	case IB_WC_RECV_RDMA_WITH_IMM:	return "RECV_RDMA_WITH_IMM";
	default:			return "?";
	}
}

/**
 * vt_state_str - name of a QP state, or of an error from vt_qp_state()
 * @state: the state or a negative errno
 *
 * Return: a constant string.
 */
const char *vt_state_str(int state)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	if (state < 0)
		return "query failed";
	if (state >= ARRAY_SIZE(names))
		return "?";
	return names[state];
}

/* --------------------------------------------------------------------- */
/* Fast-registration MRs                                                 */
/* --------------------------------------------------------------------- */

/**
 * vt_frmr_alloc - a fast-registration MR over pages allocated one by one
 * @run: the command
 * @f: the MR, zeroed by the caller
 * @s: the side whose PD it belongs to
 * @npages: how many pages (not contiguous in memory; contiguous in the
 *	MR's address space)
 *
 * The pages are zeroed, DMA-mapped with ib_dma_map_sg() and mapped into
 * the MR with ib_map_mr_sg(); the MR still needs an IB_WR_REG_MR.
 *
 * Return: 0 or a negative errno (with vt_why() called).
 */
int vt_frmr_alloc(struct vt_run *run, struct vt_frmr *f, struct vt_side *s,
		  int npages)
{
	int i, n, ret = -ENOMEM;

	f->dev = s->dev;
	f->pages = kcalloc(npages, sizeof(*f->pages), GFP_KERNEL);
	f->sg = kcalloc(npages, sizeof(*f->sg), GFP_KERNEL);
	if (!f->pages || !f->sg) {
		vt_why(run, "no memory for a %d-page MR", npages);
		goto err_free;
	}
	sg_init_table(f->sg, npages);
	for (i = 0; i < npages; i++) {
		f->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!f->pages[i]) {
			vt_why(run, "no memory for a %d-page MR", npages);
			goto err_pages;
		}
		sg_set_page(&f->sg[i], f->pages[i], PAGE_SIZE, 0);
	}
	f->npages = npages;
	f->nents = ib_dma_map_sg(f->dev, f->sg, npages, DMA_BIDIRECTIONAL);
	if (!f->nents) {
		vt_why(run, "ib_dma_map_sg(%d pages) failed", npages);
		goto err_pages;
	}
	f->mr = ib_alloc_mr(s->pd, IB_MR_TYPE_MEM_REG, npages);
	if (IS_ERR(f->mr)) {
		ret = PTR_ERR(f->mr);
		f->mr = NULL;
		vt_why(run, "ib_alloc_mr(MEM_REG, %d): %d", npages, ret);
		goto err_unmap;
	}
	n = ib_map_mr_sg(f->mr, f->sg, f->nents, NULL, PAGE_SIZE);
	if (n != f->nents) {
		vt_why(run, "ib_map_mr_sg mapped %d of %d entries", n,
		       f->nents);
		ret = n < 0 ? n : -EINVAL;
		goto err_mr;
	}
	if (f->mr->length != (u64)npages * PAGE_SIZE) {
		vt_why(run, "ib_map_mr_sg: MR length %llu, expected %lu",
		       f->mr->length, npages * PAGE_SIZE);
		ret = -EINVAL;
		goto err_mr;
	}
	return 0;

err_mr:
	ib_dereg_mr(f->mr);
	f->mr = NULL;
err_unmap:
	ib_dma_unmap_sg(f->dev, f->sg, f->npages, DMA_BIDIRECTIONAL);
err_pages:
	for (i = 0; i < npages; i++)
		if (f->pages[i])
			__free_page(f->pages[i]);
err_free:
	kfree(f->sg);
	kfree(f->pages);
	f->sg = NULL;
	f->pages = NULL;
	return ret;
}

/**
 * vt_frmr_free - release an MR from vt_frmr_alloc()
 * @f: the MR (nothing happens if it was never allocated)
 */
void vt_frmr_free(struct vt_frmr *f)
{
	int i;

	if (!f->mr)
		return;
	ib_dereg_mr(f->mr);
	f->mr = NULL;
	ib_dma_unmap_sg(f->dev, f->sg, f->npages, DMA_BIDIRECTIONAL);
	for (i = 0; i < f->npages; i++)
		__free_page(f->pages[i]);
	kfree(f->sg);
	kfree(f->pages);
}

/**
 * vt_frmr_byte - the byte at an offset of an MR, through its pages
 * @f: the MR
 * @off: the offset from the MR's iova
 *
 * Return: a pointer to it.
 */
u8 *vt_frmr_byte(struct vt_frmr *f, size_t off)
{
	return (u8 *)page_address(f->pages[off / PAGE_SIZE]) +
		off % PAGE_SIZE;
}

/**
 * vt_frmr_reg - register an MR with a new key through a QP
 * @run: the command
 * @q: a QP of the MR's PD, in RTS
 * @f: the MR
 * @access: IB_ACCESS_* rights
 * @wr_id: wr_id of the request
 *
 * The key's low byte is changed first (ib_inc_rkey()), as ULPs do.
 *
 * Return: 0 or a negative errno (with vt_why() called).
 */
int vt_frmr_reg(struct vt_run *run, struct vt_qp *q, struct vt_frmr *f,
		int access, u64 wr_id)
{
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = f->mr,
		.access = access,
	};
	struct ib_wc wc;
	int ret;

	ib_update_fast_reg_key(f->mr, ib_inc_rkey(f->mr->rkey) & 0xff);
	wr.key = f->mr->rkey;
	ret = ib_post_send(q->qp, &wr.wr, NULL);
	if (ret) {
		vt_why(run, "post IB_WR_REG_MR: %d", ret);
		return ret;
	}
	ret = vt_expect(run, &q->scq, wr_id, IB_WC_SUCCESS, &wc, "REG_MR");
	if (!ret && wc.opcode != IB_WC_REG_MR) {
		vt_why(run, "REG_MR completion has opcode %s",
		       vt_wc_opcode_str(wc.opcode));
		ret = -EIO;
	}
	return ret;
}

/**
 * vt_frmr_inv - invalidate an MR's key through a QP (IB_WR_LOCAL_INV)
 * @run: the command
 * @q: a QP of the MR's PD, in RTS
 * @f: the MR
 * @wr_id: wr_id of the request
 *
 * Return: 0 or a negative errno (with vt_why() called).
 */
int vt_frmr_inv(struct vt_run *run, struct vt_qp *q, struct vt_frmr *f,
		u64 wr_id)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = f->mr->rkey,
	};
	struct ib_wc wc;
	int ret;

	ret = ib_post_send(q->qp, &wr, NULL);
	if (ret) {
		vt_why(run, "post IB_WR_LOCAL_INV: %d", ret);
		return ret;
	}
	ret = vt_expect(run, &q->scq, wr_id, IB_WC_SUCCESS, &wc, "LOCAL_INV");
	if (!ret && wc.opcode != IB_WC_LOCAL_INV) {
		vt_why(run, "LOCAL_INV completion has opcode %s",
		       vt_wc_opcode_str(wc.opcode));
		ret = -EIO;
	}
	return ret;
}

/**
 * vt_post_ud - post one signalled UD SEND or SEND_WITH_IMM
 * @q: the QP
 * @wr_id: its wr_id
 * @op: IB_WR_SEND or IB_WR_SEND_WITH_IMM
 * @addr: local buffer address
 * @len: length
 * @lkey: its lkey
 * @imm: immediate data (host order)
 * @ah: the destination
 * @rqpn: the destination QP (0xffffff for multicast)
 *
 * Return: ib_post_send()'s result.
 */
int vt_post_ud(struct vt_qp *q, u64 wr_id, enum ib_wr_opcode op, u64 addr,
	       u32 len, u32 lkey, u32 imm, struct ib_ah *ah, u32 rqpn)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.sg_list = &sge,
			.num_sge = len ? 1 : 0,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.ah = ah,
		.remote_qpn = rqpn,
		.remote_qkey = VT_QKEY,
	};

	if (op == IB_WR_SEND_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(imm);
	return ib_post_send(q->qp, &wr.wr, NULL);
}

/**
 * vt_create_ah - an address handle to a port
 * @run: the command
 * @s: the local side
 * @dlid: destination LID
 * @dgid: destination GID, or NULL for no GRH
 *
 * Return: the AH, or NULL (with vt_why() called).
 */
struct ib_ah *vt_create_ah(struct vt_run *run, struct vt_side *s, u16 dlid,
			   const union ib_gid *dgid)
{
	struct rdma_ah_attr attr = {
		.type = RDMA_AH_ATTR_TYPE_IB,
		.port_num = s->port,
		.dlid = dlid,
	};
	struct ib_ah *ah;

	if (dgid) {
		attr.ah_flags = IB_AH_GRH;
		attr.grh.dgid = *dgid;
		attr.grh.sgid_index = 0;
		attr.grh.hop_limit = 1;
	}
	ah = rdma_create_ah(s->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		vt_why(run, "rdma_create_ah(dlid %#x%s): %ld", dlid,
		       dgid ? ", GRH" : "", PTR_ERR(ah));
		return NULL;
	}
	return ah;
}
