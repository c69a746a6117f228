// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of what vmlx's RC and UC QPs do with packets that arrive
 * from the wire, against the HCAs vmlx0 and vmlx1 that the built-in driver
 * created at boot.  Every test connects a QP on vmlx0 to one on vmlx1
 * through the core's verbs, over LIDs 1 and 2 routed by the switch, so
 * that the genuine peer exists and its packets cross the fabric.  Packets
 * from anyone else are forged with vmlx_pkt_alloc() and handed to
 * vmlx_rcv(); where a step must be deterministic, the test holds the
 * responder's qp->lock, so that its work item cannot run, and calls
 * vmlx_resp_rcv() and vmlx_resp_run() itself.
 *
 *   - The source check, vmlx_qp_from_peer(): a request to an RC or a UC
 *     QP, or an ACK or NAK to an RC QP, from another SLID than the path's
 *     DLID, with a GRH where the path has none or without one where it
 *     has one, or with another SGID than the path's DGID, is dropped and
 *     counted in rcv_discards and rcv_bad_source; the same packet from the
 *     right source is taken, and the genuine exchange still works.
 *   - Answers after a rewind: an ACK of packets sent before the local
 *     ACK timeout sent the requester back is taken, and the requester
 *     goes on past what it acknowledges instead of sending it again;
 *     until an answer comes, a timed-out requester resends only its
 *     oldest packet, with AckReq.
 *   - RDMA READ responses in slices: a run of the responder sends exactly
 *     its budget of responses, requests behind the READ wait until its
 *     last response is out, a duplicate READ for the tail restarts the
 *     stream where it asks and a duplicate of another form is ignored,
 *     duplicates of a READ never cost more responses than the READ alone,
 *     and the resent READs of a requester that went back are answered in
 *     order, each in full.
 *   - Bursts (vmlx_burst.c): the MIDDLE packets of a SEND, and the
 *     MIDDLE responses of a READ, travel as one skb, are counted as the
 *     packets they stand for and land byte for byte; cut apart, they are
 *     those packets; as duplicates, they are answered packet by packet.
 *   - A QP on an SRQ moved to ERR gives back the WQE it held and reports
 *     Last WQE Reached before modify_qp returns, once per error.
 *
 * The bounded flush passes (vmlx_flush_pass()) matter for user rings, which
 * need a process to write them: the VM scenarios cover them.
 *
 * Every test destroys what it created and puts the ports and the switch
 * back as they were at boot.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include "vmlx_pkt.h"
#include "vmlx_test.h"

/* Both ends start their PSNs here: READ streams wrap past 0xffffff. */
#define VRX_PSN		0xfffff0
#define VRX_MTU		IB_MTU_1024
#define VRX_MTU_BYTES	1024
/* A LID nobody has: the switch routes LIDs 1 and 2 only. */
#define VRX_BAD_LID	0x35
/* The payload of the SENDs, and the room of a receive buffer. */
#define VRX_PAYLOAD	64
#define VRX_MSG_BYTES	256
/* What READs read: a DMA MR over a buffer of this size on vmlx0. */
#define VRX_BUF_BYTES	SZ_2M
/* The budget of a slice, and the responses of the READs. */
#define VRX_SLICE	16
#define VRX_READ_PKTS	48
#define VRX_BIG_PKTS	600
#define VRX_DUPS	3
/* SENDs in flight when the requester is sent back. */
#define VRX_REWIND_SENDS 4
/* Where a resent READ starts again, in responses from its first. */
#define VRX_RESTART	8
/* Polls of at most 2 s (5 s for a whole READ stream), every 20 ms. */
#define VRX_POLLS	100
#define VRX_STREAM_POLLS 250

static_assert(VRX_READ_PKTS * VRX_MTU_BYTES <= VRX_BUF_BYTES);
static_assert(VRX_BIG_PKTS * VRX_MTU_BYTES <= VRX_BUF_BYTES);
static_assert(VRX_RESTART > 0 && VRX_RESTART < VRX_SLICE);

/*
 * Side 0 is on vmlx0 (LID 1), side 1 on vmlx1 (LID 2).  The QPs are
 * made by each test; the rest by vrx_init().
 */
struct vrx_ctx {
	struct ib_device *ibdev[2];
	struct vmlx_port *port[2];
	struct vmlx_switch *sw;
	struct ib_pd *pd[2];
	struct ib_cq *scq[2];
	struct ib_cq *rcq[2];
	struct ib_qp *qp[2];
	struct ib_mr *mr;
	void *buf;
	u8 *msg[2];
};

/* ------------------------------------------------------------------ */
/* The ports and the switch                                            */
/* ------------------------------------------------------------------ */

/*
 * What vmlx_fabric_static_lids() does for the two ports: LIDs 1 and 2,
 * routed by the switch, every port on the way ACTIVE.  Done here by hand
 * because static LIDs also switch the fabric into a mode that lasts (a
 * link coming back up goes ACTIVE, not INIT), which nothing can undo for
 * the suites that run later.
 */
static void vrx_fabric_up(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_switch *sw = ctx->sw;
	unsigned long flags;
	unsigned int i;
	u8 num;

	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < 2; i++) {
		num = ctx->port[i]->fport->peer->num;
		WRITE_ONCE(sw->lft[i + 1], num);
		WRITE_ONCE(sw->ports[num].state, IB_PORT_ACTIVE);
	}
	WRITE_ONCE(sw->lft_top, 2);
	spin_unlock_irqrestore(&sw->lock, flags);

	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vmlx_port_set_lid(ctx->port[i], i + 1, 0,
							0), 0);
		KUNIT_ASSERT_EQ(test, vmlx_port_set_state(ctx->port[i],
							  IB_PORT_ARMED), 0);
		KUNIT_ASSERT_EQ(test, vmlx_port_set_state(ctx->port[i],
							  IB_PORT_ACTIVE), 0);
	}
}

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                                */
/* ------------------------------------------------------------------ */

static int vrx_init(struct kunit *test)
{
	static const char * const names[] = { "vmlx0", "vmlx1" };
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct vrx_ctx *ctx;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_mr *mr;
	unsigned int i;
	u8 *p;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	for (i = 0; i < 2; i++) {
		ctx->ibdev[i] = ib_device_get_by_name(names[i]);
		KUNIT_ASSERT_NOT_NULL_MSG(test, ctx->ibdev[i],
					  "%s is not registered", names[i]);
		ctx->port[i] = vmlx_port(to_vmlx(ctx->ibdev[i]), 1);
		KUNIT_ASSERT_EQ(test, READ_ONCE(ctx->port[i]->phys_state),
				IB_PORT_PHYS_STATE_LINK_UP);
	}
	ctx->sw = vmlx_fabric_switch();
	KUNIT_ASSERT_NOT_NULL(test, ctx->sw);
	for (i = 0; i < 2; i++)
		vmlx_test_port_reset(ctx->port[i]);
	vmlx_test_switch_reset(ctx->sw);
	vrx_fabric_up(test);

	ctx->buf = vmalloc(VRX_BUF_BYTES);
	KUNIT_ASSERT_NOT_NULL(test, ctx->buf);
	for (i = 0, p = ctx->buf; i < VRX_BUF_BYTES; i++)
		p[i] = i * 7 + (i >> 10);

	for (i = 0; i < 2; i++) {
		/* a receive buffer, then the bytes SENDs send */
		ctx->msg[i] = kunit_kzalloc(test, 2 * VRX_MSG_BYTES,
					    GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ctx->msg[i]);
		memset(ctx->msg[i] + VRX_MSG_BYTES, 0x40 + i, VRX_MSG_BYTES);

		pd = ib_alloc_pd(ctx->ibdev[i], 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
		ctx->pd[i] = pd;
		cq = ib_create_cq(ctx->ibdev[i], NULL, NULL, NULL, &cq_attr);
		KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
		ctx->scq[i] = cq;
		cq = ib_create_cq(ctx->ibdev[i], NULL, NULL, NULL, &cq_attr);
		KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
		ctx->rcq[i] = cq;
	}

	/* as the core makes a PD's own DMA MR, with remote read access */
	pd = ctx->pd[0];
	mr = pd->device->ops->get_dma_mr(pd, IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	mr->device = pd->device;
	mr->pd = pd;
	mr->type = IB_MR_TYPE_DMA;
	ctx->mr = mr;
	/* its addresses are kernel virtual addresses */
	KUNIT_ASSERT_EQ(test, mr->iova, 0ULL);
	return 0;
}

static void vrx_exit(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	unsigned int i;

	if (!ctx)
		return;
	for (i = 0; i < 2; i++)
		if (ctx->qp[i])
			KUNIT_EXPECT_EQ(test, ib_destroy_qp(ctx->qp[i]), 0);
	if (ctx->mr)
		KUNIT_EXPECT_EQ(test, ctx->mr->device->ops->dereg_mr(ctx->mr,
								     NULL), 0);
	for (i = 0; i < 2; i++) {
		if (ctx->scq[i])
			KUNIT_EXPECT_EQ(test, ib_destroy_cq(ctx->scq[i]), 0);
		if (ctx->rcq[i])
			KUNIT_EXPECT_EQ(test, ib_destroy_cq(ctx->rcq[i]), 0);
		if (ctx->pd[i])
			ib_dealloc_pd(ctx->pd[i]);
	}
	vfree(ctx->buf);
	for (i = 0; i < 2; i++)
		if (ctx->port[i])
			vmlx_test_port_reset(ctx->port[i]);
	if (ctx->sw)
		vmlx_test_switch_reset(ctx->sw);
	for (i = 0; i < 2; i++)
		if (ctx->ibdev[i])
			ib_device_put(ctx->ibdev[i]);
}

/* INIT, RTR, RTS towards QP @dqpn at @dlid (and @dgid, if not NULL). */
static int vrx_modify(struct ib_qp *qp, u32 dqpn, u16 dlid,
		      const union ib_gid *dgid)
{
	bool rc = qp->qp_type == IB_QPT_RC;
	struct ib_qp_attr attr = {};
	int mask;
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	if (rc)
		attr.qp_access_flags |= IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = VRX_MTU;
	attr.dest_qp_num = dqpn;
	attr.rq_psn = VRX_PSN;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.dlid = dlid;
	if (dgid) {
		attr.ah_attr.ah_flags = IB_AH_GRH;
		attr.ah_attr.grh.dgid = *dgid;
		attr.ah_attr.grh.sgid_index = 0;
		attr.ah_attr.grh.hop_limit = 1;
	}
	mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
	       IB_QP_RQ_PSN;
	if (rc) {
		attr.max_dest_rd_atomic = 4;
		attr.min_rnr_timer = 1;
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	ret = ib_modify_qp(qp, &attr, mask);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = VRX_PSN;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (rc) {
		/* no local ACK timeout: nothing is resent behind our back */
		attr.timeout = 0;
		attr.retry_cnt = 7;
		attr.rnr_retry = 1;
		attr.max_rd_atomic = 4;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	return ib_modify_qp(qp, &attr, mask);
}

/* What a QP of @type on side @i is made with, its own RQ included. */
static void vrx_qp_init(struct vrx_ctx *ctx, unsigned int i,
			enum ib_qp_type type, struct ib_qp_init_attr *init)
{
	memset(init, 0, sizeof(*init));
	init->send_cq = ctx->scq[i];
	init->recv_cq = ctx->rcq[i];
	init->qp_type = type;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	init->cap.max_send_wr = 16;
	init->cap.max_recv_wr = 16;
	init->cap.max_send_sge = 1;
	init->cap.max_recv_sge = 1;
	init->port_num = 1;
}

/*
 * A QP of @type on each side, connected to each other, with GRHs on the
 * path if @grh: each names the GID 0 of the other's port as its DGID.
 */
static void vrx_connect(struct kunit *test, enum ib_qp_type type, bool grh)
{
	struct vrx_ctx *ctx = test->priv;
	struct ib_qp_init_attr init;
	union ib_gid gid[2];
	struct ib_device *dev;
	struct ib_qp *qp;
	unsigned int i;
	int ret;

	for (i = 0; i < 2; i++) {
		vrx_qp_init(ctx, i, type, &init);
		qp = ib_create_qp(ctx->pd[i], &init);
		KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
		ctx->qp[i] = qp;

		dev = ctx->ibdev[i];
		KUNIT_ASSERT_EQ(test, dev->ops->query_gid(dev, 1, 0, &gid[i]),
				0);
		/* GID 0: the default subnet prefix and the port GUID */
		KUNIT_EXPECT_EQ(test, be64_to_cpu(gid[i].global.subnet_prefix),
				VMLX_DEFAULT_SUBNET_PREFIX);
		KUNIT_EXPECT_EQ(test, be64_to_cpu(gid[i].global.interface_id),
				be64_to_cpu(ctx->port[i]->guid));
	}
	for (i = 0; i < 2; i++) {
		/* the other side: QP number, LID, GID */
		ret = vrx_modify(ctx->qp[i], ctx->qp[!i]->qp_num, !i + 1,
				 grh ? &gid[!i] : NULL);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
}

static struct vmlx_qp *vrx_qp(struct vrx_ctx *ctx, unsigned int side)
{
	return to_vqp(ctx->qp[side]);
}

/* A receive WQE for a SEND of up to VRX_MSG_BYTES, on QP @side. */
static void vrx_post_recv(struct kunit *test, unsigned int side, u64 wr_id)
{
	struct vrx_ctx *ctx = test->priv;
	struct ib_sge sge = {
		.addr = (uintptr_t)ctx->msg[side],
		.length = VRX_MSG_BYTES,
		.lkey = ctx->pd[side]->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};

	KUNIT_EXPECT_EQ(test, ib_post_recv(ctx->qp[side], &wr, NULL), 0);
}

/* A signalled SEND of VRX_PAYLOAD bytes from QP @side. */
static void vrx_post_send(struct kunit *test, unsigned int side, u64 wr_id)
{
	struct vrx_ctx *ctx = test->priv;
	struct ib_sge sge = {
		.addr = (uintptr_t)(ctx->msg[side] + VRX_MSG_BYTES),
		.length = VRX_PAYLOAD,
		.lkey = ctx->pd[side]->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	KUNIT_EXPECT_EQ(test, ib_post_send(ctx->qp[side], &wr, NULL), 0);
}

/* ------------------------------------------------------------------ */
/* Forged packets                                                      */
/* ------------------------------------------------------------------ */

/*
 * What QP @from would send to QP number @dqpn by @av: LRH (SLID: @from's
 * port), a GRH if @av has one, a BTH with @opcode and @psn, zeroed
 * extension headers, @paylen bytes of payload.  Not finished yet: fields
 * may still be changed before vrx_finish().
 */
static struct sk_buff *vrx_forge(struct kunit *test, struct vmlx_qp *from,
				 const struct vmlx_av *av, u32 dqpn,
				 u8 opcode, u32 psn, u32 paylen)
{
	struct sk_buff *skb;

	skb = vmlx_pkt_alloc(from, av, dqpn, opcode, psn, paylen);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memset(vmlx_pkt_payload(skb), 0x5a, paylen);
	return skb;
}

static void vrx_set_slid(struct sk_buff *skb, u16 slid)
{
	vmlx_lrh_set_slid((struct vmlx_lrh *)skb->data, slid);
}

/* The ICRC and the VCRC, as a packet damaged on the wire has them. */
static void vrx_finish(struct kunit *test, struct sk_buff *skb)
{
	int len = vmlx_pkt_finalize(skb->data, skb->len);

	KUNIT_ASSERT_GT(test, len, 0);
	skb_put(skb, len - skb->len);
}

/*
 * vmlx_pkt(@skb) as vmlx_rcv() fills it in for a packet arriving at
 * @port, for handing the packet to the responder directly.
 */
static void vrx_arrived(struct kunit *test, struct sk_buff *skb,
			struct vmlx_port *port)
{
	KUNIT_ASSERT_EQ(test, vmlx_pkt_describe(port, skb), 0);
}

/* A finished packet arrives at @port, in vmlx_port_xmit()'s context. */
static void vrx_wire(struct vmlx_port *port, struct sk_buff *skb)
{
	rcu_read_lock();
	vmlx_rcv(port, skb);
	rcu_read_unlock();
}

/* An ACKNOWLEDGE from QP @from to @dqpn with @syndrome at @psn. */
static struct sk_buff *vrx_ack(struct kunit *test, struct vmlx_qp *from,
			       u32 dqpn, u8 syndrome, u32 psn, u16 slid)
{
	struct vmlx_aeth *aeth;
	struct sk_buff *skb;

	skb = vrx_forge(test, from, &from->av, dqpn, VMLX_OPC_RC_ACKNOWLEDGE,
			psn, 0);
	aeth = vmlx_pkt_eth(skb, VMLX_ETH_AETH);
	vmlx_aeth_set_syndrome(aeth, syndrome);
	vmlx_aeth_set_msn(aeth, 1);
	vrx_set_slid(skb, slid);
	vrx_finish(test, skb);
	return skb;
}

/*
 * An RDMA READ request from QP @from to @dqpn at @psn for @len bytes at
 * @va, finished.
 */
static struct sk_buff *vrx_read(struct kunit *test, struct vmlx_qp *from,
				u32 dqpn, u32 psn, u64 va, u32 rkey, u32 len)
{
	struct vmlx_reth *reth;
	struct sk_buff *skb;

	skb = vrx_forge(test, from, &from->av, dqpn,
			VMLX_OPC_RC_RDMA_READ_REQUEST, psn, 0);
	reth = vmlx_pkt_eth(skb, VMLX_ETH_RETH);
	vmlx_reth_set_va(reth, va);
	vmlx_reth_set_rkey(reth, rkey);
	vmlx_reth_set_len(reth, len);
	vrx_finish(test, skb);
	return skb;
}

/* ------------------------------------------------------------------ */
/* Waiting                                                             */
/* ------------------------------------------------------------------ */

/* Wait up to 2 s for a counter to reach @want. */
static bool vrx_wait_count(atomic64_t *cnt, s64 want)
{
	unsigned int i;

	for (i = 0; i < VRX_POLLS; i++) {
		if (atomic64_read(cnt) >= want)
			return true;
		msleep(20);
	}
	return atomic64_read(cnt) >= want;
}

/* Wait up to 2 s for a completion on @cq. */
static bool vrx_wait_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned int i;

	for (i = 0; i < VRX_POLLS; i++) {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		msleep(20);
	}
	return ib_poll_cq(cq, 1, wc) == 1;
}

/* Wait up to 2 s for @n packets in the receive queue of @qp. */
static bool vrx_wait_queued(struct vmlx_qp *qp, u32 n)
{
	unsigned int i;

	for (i = 0; i < VRX_POLLS; i++) {
		if (skb_queue_len(&qp->rx_queue) >= n)
			return true;
		msleep(20);
	}
	return skb_queue_len(&qp->rx_queue) >= n;
}

/* Expect a completion of @wr_id with @status on @cq within 2 s. */
static void vrx_expect_wc(struct kunit *test, struct ib_cq *cq, u64 wr_id,
			  enum ib_wc_status status)
{
	struct ib_wc wc;

	if (!vrx_wait_wc(cq, &wc)) {
		KUNIT_FAIL(test, "no completion of wr_id %llu", wr_id);
		return;
	}
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.status, status);
}

/* ------------------------------------------------------------------ */
/* The source check                                                    */
/* ------------------------------------------------------------------ */

struct vrx_counts {
	s64 bad_source;
	s64 discards;
};

static void vrx_counts(struct vmlx_port *port, struct vrx_counts *c)
{
	c->bad_source = atomic64_read(&port->cnt.rcv_bad_source);
	c->discards = atomic64_read(&port->cnt.rcv_discards);
}

/*
 * A forged packet, finished, arrives at @port: it must be counted as one
 * from a bad source, the @n-th since @c, and as a discard.
 */
static void vrx_expect_refused(struct kunit *test, struct vmlx_port *port,
			       struct sk_buff *skb, const struct vrx_counts *c,
			       s64 n)
{
	vrx_wire(port, skb);
	KUNIT_EXPECT_TRUE(test, vrx_wait_count(&port->cnt.rcv_bad_source,
					       c->bad_source + n));
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_bad_source),
			c->bad_source + n);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_discards),
			c->discards + n);
}

/*
 * A SEND ONLY of @opcode to the QP on vmlx0, at its expected PSN, as its
 * peer would send it: from another SLID, or with a GRH the path has not,
 * it is dropped and counted; from the peer's SLID it completes.
 */
static void vrx_send_source(struct kunit *test, u8 opcode)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	struct vmlx_qp *r, *p;
	struct sk_buff *skb;
	struct vrx_counts c;
	struct vmlx_av av;
	struct ib_wc wc;

	r = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	vrx_post_recv(test, 0, 1);
	vrx_counts(port, &c);

	skb = vrx_forge(test, p, &p->av, r->ibqp.qp_num, opcode, VRX_PSN,
			VRX_PAYLOAD);
	vrx_set_slid(skb, VRX_BAD_LID);
	vrx_finish(test, skb);
	vrx_expect_refused(test, port, skb, &c, 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	/* the peer's SLID, but with a GRH: the path has none */
	av = p->av;
	av.global = true;
	av.grh.sgid_index = 0;
	av.grh.hop_limit = 1;
	KUNIT_ASSERT_EQ(test, ctx->ibdev[0]->ops->query_gid(ctx->ibdev[0], 1,
							    0, &av.grh.dgid),
			0);
	skb = vrx_forge(test, p, &av, r->ibqp.qp_num, opcode, VRX_PSN,
			VRX_PAYLOAD);
	vrx_finish(test, skb);
	vrx_expect_refused(test, port, skb, &c, 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	/* the very same packet from the peer's SLID is taken */
	skb = vrx_forge(test, p, &p->av, r->ibqp.qp_num, opcode, VRX_PSN,
			VRX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, vmlx_lrh_slid((struct vmlx_lrh *)skb->data), 2);
	vrx_finish(test, skb);
	vrx_wire(port, skb);
	KUNIT_ASSERT_TRUE(test, vrx_wait_wc(ctx->rcq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, (u32)VRX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, wc.slid, 2U);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, ctx->qp[0]);
	KUNIT_EXPECT_EQ(test, ctx->msg[0][0], 0x5a);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_bad_source),
			c.bad_source + 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_discards),
			c.discards + 2);
}

/* (a) RC: requests only from the path's DLID, GRH as the path says. */
static void vmlx_rx_rc_source_test(struct kunit *test)
{
	vrx_connect(test, IB_QPT_RC, false);
	vrx_send_source(test, VMLX_OPC_RC_SEND_ONLY);
}

/* (b) UC: the same. */
static void vmlx_rx_uc_source_test(struct kunit *test)
{
	vrx_connect(test, IB_QPT_UC, false);
	vrx_send_source(test, VMLX_OPC_UC_SEND_ONLY);
}

/*
 * (c) RC acknowledgements.  The victim (vmlx0) sends a SEND to its peer
 * (vmlx1), whose work item is held off by its lock so that the SEND stays
 * outstanding; meanwhile an ACK that covers it, and later a NAK, arrive
 * from another SLID.  Neither may touch the victim; the genuine ACK
 * completes the SEND; the same NAK from the peer's SLID fails it.
 */
static void vmlx_rx_rc_ack_source_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	struct sk_buff *ack, *nak, *good_nak;
	struct vmlx_qp *v, *p;
	struct vrx_counts c;
	struct ib_wc wc;
	u32 vqpn;

	vrx_connect(test, IB_QPT_RC, false);
	v = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	vqpn = v->ibqp.qp_num;
	vrx_post_recv(test, 1, 101);
	vrx_post_recv(test, 1, 102);
	vrx_post_recv(test, 1, 103);

	/* built beforehand: nothing may fail with the peer's lock held */
	ack = vrx_ack(test, p, vqpn, VMLX_AETH_ACK | VMLX_AETH_CREDIT_INVALID,
		      VRX_PSN, VRX_BAD_LID);
	nak = vrx_ack(test, p, vqpn,
		      VMLX_AETH_NAK | VMLX_AETH_NAK_REM_ACCESS,
		      vmlx_psn_add(VRX_PSN, 1), VRX_BAD_LID);
	good_nak = vrx_ack(test, p, vqpn,
			   VMLX_AETH_NAK | VMLX_AETH_NAK_REM_ACCESS,
			   vmlx_psn_add(VRX_PSN, 2), 2);

	/* a forged ACK for the outstanding SEND */
	vrx_counts(port, &c);
	mutex_lock(&p->lock);
	vrx_post_send(test, 0, 1);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(p, 1));
	vrx_expect_refused(test, port, ack, &c, 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->scq[0], 1, &wc), 0);
	mutex_unlock(&p->lock);
	/* the genuine exchange */
	vrx_expect_wc(test, ctx->rcq[1], 101, IB_WC_SUCCESS);
	vrx_expect_wc(test, ctx->scq[0], 1, IB_WC_SUCCESS);

	/* a forged NAK (remote access error) for the next SEND */
	mutex_lock(&p->lock);
	vrx_post_send(test, 0, 2);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(p, 1));
	vrx_expect_refused(test, port, nak, &c, 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->scq[0], 1, &wc), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(v->state), IB_QPS_RTS);
	mutex_unlock(&p->lock);
	vrx_expect_wc(test, ctx->rcq[1], 102, IB_WC_SUCCESS);
	vrx_expect_wc(test, ctx->scq[0], 2, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, READ_ONCE(v->state), IB_QPS_RTS);

	/* the same NAK from the peer's LID is believed */
	mutex_lock(&p->lock);
	vrx_post_send(test, 0, 3);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(p, 1));
	vrx_wire(port, good_nak);
	vrx_expect_wc(test, ctx->scq[0], 3, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(v->state), IB_QPS_ERR);
	mutex_unlock(&p->lock);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_bad_source),
			c.bad_source + 2);
}

/*
 * (d) A path with GRHs: the SGID must be the path's DGID, and a packet
 * without a GRH is refused as well.
 */
static void vmlx_rx_grh_source_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	u32 psn = vmlx_psn_add(VRX_PSN, 1);
	struct vmlx_qp *r, *p;
	struct sk_buff *skb;
	struct vrx_counts c;
	struct vmlx_av av;
	struct ib_wc wc;
	u32 rqpn;
	u8 *sgid;

	vrx_connect(test, IB_QPT_RC, true);
	r = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	rqpn = r->ibqp.qp_num;
	KUNIT_ASSERT_TRUE(test, r->av.global);
	KUNIT_ASSERT_TRUE(test, p->av.global);
	vrx_post_recv(test, 0, 1);
	vrx_post_recv(test, 0, 2);

	/* the genuine exchange, with GRHs both ways */
	vrx_post_send(test, 1, 11);
	vrx_expect_wc(test, ctx->rcq[0], 1, IB_WC_SUCCESS);
	vrx_expect_wc(test, ctx->scq[1], 11, IB_WC_SUCCESS);
	vrx_counts(port, &c);

	/* the peer's SLID, another SGID */
	skb = vrx_forge(test, p, &p->av, rqpn, VMLX_OPC_RC_SEND_ONLY, psn,
			VRX_PAYLOAD);
	sgid = vmlx_pkt_grh(skb)->sgid;
	KUNIT_EXPECT_EQ(test, memcmp(sgid, r->av.grh.dgid.raw, 16), 0);
	sgid[15] ^= 0x80;
	vrx_finish(test, skb);
	vrx_expect_refused(test, port, skb, &c, 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	/* the peer's SLID, no GRH */
	av = p->av;
	av.global = false;
	skb = vrx_forge(test, p, &av, rqpn, VMLX_OPC_RC_SEND_ONLY, psn,
			VRX_PAYLOAD);
	vrx_finish(test, skb);
	vrx_expect_refused(test, port, skb, &c, 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	/* another SLID, the right SGID */
	skb = vrx_forge(test, p, &p->av, rqpn, VMLX_OPC_RC_SEND_ONLY, psn,
			VRX_PAYLOAD);
	vrx_set_slid(skb, VRX_BAD_LID);
	vrx_finish(test, skb);
	vrx_expect_refused(test, port, skb, &c, 3);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	/* the peer's SLID and SGID */
	skb = vrx_forge(test, p, &p->av, rqpn, VMLX_OPC_RC_SEND_ONLY, psn,
			VRX_PAYLOAD);
	vrx_finish(test, skb);
	vrx_wire(port, skb);
	vrx_expect_wc(test, ctx->rcq[0], 2, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_bad_source),
			c.bad_source + 3);
}

/*
 * (e) Sealed packets (vmlx_pkt_seal(), what vmlx_pkt_send() sends): taken
 * without CRCs when the sender says so, and only then; their lengths are
 * checked all the same.
 */
static void vmlx_rx_sealed_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	u32 psn = vmlx_psn_add(VRX_PSN, 1);
	struct vmlx_qp *r, *p;
	struct sk_buff *skb;
	struct ib_wc wc;
	s64 errors;
	int len;

	vrx_connect(test, IB_QPT_RC, false);
	r = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	vrx_post_recv(test, 0, 1);
	vrx_post_recv(test, 0, 2);
	vrx_post_send(test, 1, 11);
	vrx_expect_wc(test, ctx->rcq[0], 1, IB_WC_SUCCESS);
	vrx_expect_wc(test, ctx->scq[1], 11, IB_WC_SUCCESS);
	errors = atomic64_read(&port->cnt.rcv_errors);

	/* zero CRCs, not marked sealed: a damaged packet */
	skb = vrx_forge(test, p, &p->av, r->ibqp.qp_num,
			VMLX_OPC_RC_SEND_ONLY, psn, VRX_PAYLOAD);
	len = vmlx_pkt_seal(skb->data, skb->len);
	KUNIT_ASSERT_GT(test, len, 0);
	skb_put(skb, len - skb->len);
	vrx_wire(port, skb);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_errors), errors + 1);

	/* marked sealed, one byte short of LRH:PktLen */
	skb = vrx_forge(test, p, &p->av, r->ibqp.qp_num,
			VMLX_OPC_RC_SEND_ONLY, psn, VRX_PAYLOAD);
	len = vmlx_pkt_seal(skb->data, skb->len);
	skb_put(skb, len - skb->len - 1);
	vmlx_pkt(skb)->sealed = true;
	vrx_wire(port, skb);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_errors), errors + 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	/* marked sealed and whole: executed */
	skb = vrx_forge(test, p, &p->av, r->ibqp.qp_num,
			VMLX_OPC_RC_SEND_ONLY, psn, VRX_PAYLOAD);
	len = vmlx_pkt_seal(skb->data, skb->len);
	skb_put(skb, len - skb->len);
	vmlx_pkt(skb)->sealed = true;
	vrx_wire(port, skb);
	vrx_expect_wc(test, ctx->rcq[0], 2, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_errors), errors + 2);
}

/*
 * (f) Payloads by reference (vmlx_sge_attach()): a SEND from a compound
 * page goes out as page fragments; one from slab memory, from the tail
 * page of a multi-page allocation without __GFP_COMP (no reference count
 * of its own) or under VMLX_ATTACH_MIN is copied.  All land byte for
 * byte, and once everything is acknowledged no packet holds a page.
 */
#define VRX_ATT_BYTES	(PAGE_SIZE + 300)

/*
 * A SEND of @len bytes at @buf from vmlx1's QP into a fresh buffer on
 * vmlx0's; its first packet is caught in the responder's queue, where it
 * must hold its payload by reference if @attached, else in its head.
 */
static void vrx_send_buf(struct kunit *test, void *buf, u32 len, u64 wr_id,
			 bool attached)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_qp *r = vrx_qp(ctx, 0);
	struct sk_buff *skb;
	struct ib_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = ctx->pd[1]->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr rwr = { .wr_id = wr_id, .num_sge = 1 };
	struct ib_sge rsge;
	u8 *dst;

	dst = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	rsge.addr = (uintptr_t)dst;
	rsge.length = len;
	rsge.lkey = ctx->pd[0]->local_dma_lkey;
	rwr.sg_list = &rsge;
	KUNIT_ASSERT_EQ(test, ib_post_recv(ctx->qp[0], &rwr, NULL), 0);

	mutex_lock(&r->lock);
	KUNIT_EXPECT_EQ(test, ib_post_send(ctx->qp[1], &wr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(r, 1));
	/* the work item cannot take it while we hold the lock */
	skb = skb_peek(&r->rx_queue);
	if (skb)
		KUNIT_EXPECT_EQ_MSG(test, skb_is_nonlinear(skb), attached,
				    "wr_id %llu", wr_id);
	mutex_unlock(&r->lock);

	vrx_expect_wc(test, ctx->rcq[0], wr_id, IB_WC_SUCCESS);
	vrx_expect_wc(test, ctx->scq[1], wr_id, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, buf, len), 0);
}

static void vmlx_rx_attached_test(struct kunit *test)
{
	struct page *pages, *plain;
	u8 *src, *slab, *tail;
	unsigned int i;

	vrx_connect(test, IB_QPT_RC, false);
	pages = alloc_pages(GFP_KERNEL | __GFP_COMP, 2);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	plain = alloc_pages(GFP_KERNEL, 1);
	slab = kunit_kmalloc(test, VRX_ATT_BYTES, GFP_KERNEL);
	if (!plain || !slab) {
		if (plain)
			__free_pages(plain, 1);
		__free_pages(pages, 2);
		KUNIT_FAIL(test, "no memory");
		return;
	}
	src = page_address(pages);
	for (i = 0; i < 4 * PAGE_SIZE; i++)
		src[i] = i * 7 + (i >> 8);
	memcpy(slab, src + 100, VRX_ATT_BYTES);
	tail = page_address(plain) + PAGE_SIZE;
	memcpy(tail, src, PAGE_SIZE);

	/* straddling two pages, an unaligned start, a short last packet */
	vrx_send_buf(test, src + 100, VRX_ATT_BYTES, 1, true);
	vrx_send_buf(test, slab, VRX_ATT_BYTES, 2, false);
	vrx_send_buf(test, tail, PAGE_SIZE, 3, false);
	vrx_send_buf(test, src + PAGE_SIZE - 7, VMLX_ATTACH_MIN, 4, true);
	vrx_send_buf(test, src, VMLX_ATTACH_MIN - 4, 5, false);

	/* the responder let go of every fragment */
	for (i = 0; i < VRX_POLLS && page_count(pages) != 1; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, page_count(pages), 1);
	KUNIT_EXPECT_EQ(test, page_ref_count(nth_page(plain, 1)), 0);
	__free_pages(plain, 1);
	__free_pages(pages, 2);
}

/*
 * (g) Bursts (vmlx_burst.c): the MIDDLE packets of a SEND travel as one
 * skb between its FIRST and its LAST, are counted as the packets they
 * stand for, and the message lands byte for byte.  vmlx_burst_split()
 * gives back those packets, one per PSN; the burst again, as a duplicate,
 * is answered packet by packet and places nothing.
 */
#define VRX_BURST_PKTS	12
#define VRX_BURST_BYTES	(VRX_BURST_PKTS * VRX_MTU_BYTES - 100)

/* The packets of @burst, cut apart, are those it stands for. */
static void vrx_check_split(struct kunit *test, struct sk_buff *burst,
			    const u8 *src)
{
	struct sk_buff_head list;
	struct sk_buff *skb;
	u32 psn, first_len;
	u8 data[64];
	u32 i = 0;

	first_len = vmlx_pkt_first_len(burst);
	psn = vmlx_pkt(burst)->psn;
	__skb_queue_head_init(&list);
	KUNIT_ASSERT_EQ(test, vmlx_burst_split(burst, &list), 0);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&list), VRX_BURST_PKTS - 2);
	while ((skb = __skb_dequeue(&list))) {
		KUNIT_EXPECT_EQ(test, vmlx_pkt(skb)->burst, 0);
		KUNIT_EXPECT_EQ(test, skb->len, first_len);
		KUNIT_EXPECT_FALSE(test, skb_is_nonlinear(skb));
		KUNIT_EXPECT_EQ(test, vmlx_pkt(skb)->psn, vmlx_psn_add(psn, i));
		KUNIT_EXPECT_EQ(test, vmlx_bth_psn(vmlx_pkt_bth(skb)),
				vmlx_psn_add(psn, i));
		KUNIT_EXPECT_FALSE(test, vmlx_bth_ackreq(vmlx_pkt_bth(skb)));
		KUNIT_EXPECT_EQ(test, vmlx_pkt_describe(vmlx_pkt(skb)->port, skb),
				0);
		/* its payload: MTU i + 1 of the message, first and last bytes */
		memcpy(data, vmlx_pkt_payload(skb), 32);
		memcpy(data + 32, vmlx_pkt_payload(skb) + VRX_MTU_BYTES - 32, 32);
		KUNIT_EXPECT_EQ(test, memcmp(data, src + (i + 1) * VRX_MTU_BYTES,
					     32), 0);
		KUNIT_EXPECT_EQ(test, memcmp(data + 32,
					     src + (i + 2) * VRX_MTU_BYTES - 32,
					     32), 0);
		kfree_skb(skb);
		i++;
	}
}

/*
 * The buffers of a burst test: VRX_BURST_BYTES of a pattern made with
 * @mul in a compound allocation, whose pages a packet can hold (so that
 * the payload is attached), and as many zeroes.  Return: the pages, or
 * NULL if memory ran out.
 */
static struct page *vrx_burst_bufs(struct kunit *test, u32 mul, u8 **src,
				   u8 **dst)
{
	struct page *pages;
	unsigned int i;

	pages = alloc_pages(GFP_KERNEL | __GFP_COMP, 2);
	if (!pages)
		return NULL;
	*dst = kunit_kzalloc(test, VRX_BURST_BYTES, GFP_KERNEL);
	if (!*dst) {
		__free_pages(pages, 2);
		return NULL;
	}
	*src = page_address(pages);
	for (i = 0; i < VRX_BURST_BYTES; i++)
		(*src)[i] = i * mul + (i >> 10);
	return pages;
}

/* Free the pages of vrx_burst_bufs() once no packet holds them. */
static void vrx_burst_free(struct kunit *test, struct page *pages)
{
	unsigned int i;

	for (i = 0; i < VRX_POLLS && page_count(pages) != 1; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, page_count(pages), 1);
	__free_pages(pages, 2);
}

static void vmlx_rx_burst_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	struct sk_buff *burst, *split, *dup = NULL;
	struct ib_sge sge = { .length = VRX_BURST_BYTES };
	struct ib_sge rsge = { .length = VRX_BURST_BYTES };
	struct ib_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
	s64 packets, bytes, dups;
	struct vmlx_qp *r;
	struct page *pages;
	struct ib_wc wc;
	u8 *src, *dst;

	vrx_connect(test, IB_QPT_RC, false);
	r = vrx_qp(ctx, 0);
	pages = vrx_burst_bufs(test, 13, &src, &dst);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	sge.addr = (uintptr_t)src;
	sge.lkey = ctx->pd[1]->local_dma_lkey;
	rsge.addr = (uintptr_t)dst;
	rsge.lkey = ctx->pd[0]->local_dma_lkey;
	KUNIT_EXPECT_EQ(test, ib_post_recv(ctx->qp[0], &rwr, NULL), 0);
	packets = atomic64_read(&port->cnt.rcv_packets);
	bytes = atomic64_read(&port->cnt.rcv_bytes);

	/* FIRST, the burst of the MIDDLE packets, LAST */
	mutex_lock(&r->lock);
	KUNIT_EXPECT_EQ(test, ib_post_send(ctx->qp[1], &wr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(r, 3));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&r->rx_queue), 3);
	burst = skb_peek(&r->rx_queue);
	if (burst && skb_queue_len(&r->rx_queue) == 3) {
		burst = burst->next;
		KUNIT_EXPECT_EQ(test, vmlx_pkt(burst)->burst,
				VRX_BURST_PKTS - 3);
		KUNIT_EXPECT_EQ(test, vmlx_pkt(burst)->opcode,
				VMLX_OPC_RC_SEND_MIDDLE);
		KUNIT_EXPECT_EQ(test, vmlx_pkt(burst)->psn,
				vmlx_psn_add(VRX_PSN, 1));
		dup = skb_copy(burst, GFP_KERNEL);
		split = skb_copy(burst, GFP_KERNEL);
		KUNIT_EXPECT_NOT_NULL(test, dup);
		if (split)
			vrx_check_split(test, split, src);
		else
			KUNIT_FAIL(test, "no memory");
	}
	/* counted as the packets and bytes they stand for */
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_packets),
			packets + VRX_BURST_PKTS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_bytes),
			bytes + VRX_BURST_BYTES + VRX_BURST_PKTS *
			(VMLX_LRH_BYTES + VMLX_BTH_BYTES + VMLX_CRC_BYTES));
	mutex_unlock(&r->lock);

	vrx_expect_wc(test, ctx->rcq[0], 2, IB_WC_SUCCESS);
	vrx_expect_wc(test, ctx->scq[1], 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, VRX_BURST_BYTES), 0);

	/* the burst again: a duplicate of each of its packets */
	if (dup) {
		memset(dst, 0, VRX_BURST_BYTES);
		dups = atomic64_read(&vmlx_qp_cnt(r)->dup_requests);
		mutex_lock(&r->lock);
		vmlx_resp_rcv(r, dup);
		mutex_unlock(&r->lock);
		KUNIT_EXPECT_EQ(test,
				atomic64_read(&vmlx_qp_cnt(r)->dup_requests),
				dups + VRX_BURST_PKTS - 2);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(dst, 0, VRX_BURST_BYTES));
		KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(r->state), IB_QPS_RTS);
	}
	vrx_burst_free(test, pages);
}

/* ------------------------------------------------------------------ */
/* Answers after a rewind                                              */
/* ------------------------------------------------------------------ */

static s64 vrx_xmit(struct vmlx_port *port)
{
	return atomic64_read(&port->cnt.xmit_packets);
}

/*
 * VRX_REWIND_SENDS receives on side 1, then as many SENDs from side 0
 * caught in the receive queue of @p (side 1's QP), whose lock is held
 * on return so that it cannot answer.
 */
static void vrx_sends_held(struct kunit *test, struct vmlx_qp *p)
{
	unsigned int i;

	for (i = 0; i < VRX_REWIND_SENDS; i++)
		vrx_post_recv(test, 1, 100 + i);
	mutex_lock(&p->lock);
	for (i = 0; i < VRX_REWIND_SENDS; i++)
		vrx_post_send(test, 0, 1 + i);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(p, VRX_REWIND_SENDS));
}

/* Every SEND of vrx_sends_held() and its receive completed well. */
static void vrx_sends_done(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < VRX_REWIND_SENDS; i++) {
		vrx_expect_wc(test, ctx->scq[0], 1 + i, IB_WC_SUCCESS);
		vrx_expect_wc(test, ctx->rcq[1], 100 + i, IB_WC_SUCCESS);
	}
}

/*
 * The local ACK timeout sends the requester back while the peer has not
 * answered yet (its lock is held): its ACK of everything, when it comes,
 * is taken though it answers packets sent before the rewind; the
 * requester goes on from there, and nothing is sent a second time.
 */
static void vmlx_rx_ack_after_rewind_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	struct vmlx_qp *v, *p;
	struct sk_buff *ack;
	u32 end;
	s64 xmit;

	vrx_connect(test, IB_QPT_RC, false);
	v = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	end = vmlx_psn_add(VRX_PSN, VRX_REWIND_SENDS);
	/* built beforehand: nothing may fail with the locks held */
	ack = vrx_ack(test, p, v->ibqp.qp_num,
		      VMLX_AETH_ACK | VMLX_AETH_CREDIT_INVALID,
		      vmlx_psn_add(end, VMLX_PSN_MASK), 2);
	vrx_arrived(test, ack, port);
	vrx_sends_held(test, p);

	/* the peer cannot answer: the requester's timeout, by hand */
	mutex_lock_nested(&v->lock, SINGLE_DEPTH_NESTING);
	xmit = vrx_xmit(port);
	KUNIT_EXPECT_EQ(test, v->req.psn, end);
	WRITE_ONCE(v->comp.timed_out, true);
	KUNIT_EXPECT_TRUE(test, vmlx_comp_run(v));
	KUNIT_EXPECT_EQ(test, v->req.psn, (u32)VRX_PSN);
	KUNIT_EXPECT_EQ(test, v->req.sent_psn, end);
	KUNIT_EXPECT_EQ(test, v->comp.retry_left, v->attr.retry_cnt - 1);
	KUNIT_EXPECT_TRUE(test, v->comp.probing);

	/* the answer to the first transmission */
	vmlx_comp_rcv(v, ack);
	KUNIT_EXPECT_EQ(test, v->comp.psn, end);
	KUNIT_EXPECT_EQ(test, v->req.psn, end);
	KUNIT_EXPECT_EQ(test, v->comp.retry_left, v->attr.retry_cnt);
	KUNIT_EXPECT_FALSE(test, v->comp.probing);
	mutex_unlock(&v->lock);
	mutex_unlock(&p->lock);

	vrx_sends_done(test);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit);
	KUNIT_EXPECT_EQ(test, READ_ONCE(v->state), IB_QPS_RTS);
}

/*
 * A local ACK timeout while the peer is silent (its lock is held): the
 * requester sends its oldest unacknowledged packet again, asking for an
 * ACK, and nothing more until an answer comes; then the window is open
 * again, and nothing else was sent twice.
 */
static void vmlx_rx_timeout_probe_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	struct vmlx_qp *v, *p;
	struct sk_buff *skb;
	s64 xmit;

	vrx_connect(test, IB_QPT_RC, false);
	v = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	vrx_sends_held(test, p);

	mutex_lock_nested(&v->lock, SINGLE_DEPTH_NESTING);
	xmit = vrx_xmit(port);
	WRITE_ONCE(v->comp.timed_out, true);
	KUNIT_EXPECT_TRUE(test, vmlx_comp_run(v));
	KUNIT_EXPECT_TRUE(test, v->comp.probing);
	mutex_unlock(&v->lock);

	/* the requester's work item runs: one packet, the oldest */
	vmlx_qp_kick(v);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(p, VRX_REWIND_SENDS + 1));
	msleep(100);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&p->rx_queue),
			VRX_REWIND_SENDS + 1U);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit + 1);
	skb = skb_peek_tail(&p->rx_queue);
	if (skb) {
		KUNIT_EXPECT_EQ(test, vmlx_pkt(skb)->psn, (u32)VRX_PSN);
		KUNIT_EXPECT_TRUE(test, vmlx_bth_ackreq(vmlx_pkt_bth(skb)));
	}
	mutex_unlock(&p->lock);

	vrx_sends_done(test);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit + 1);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(v->comp.probing));
	KUNIT_EXPECT_EQ(test, READ_ONCE(v->state), IB_QPS_RTS);
}

/* ------------------------------------------------------------------ */
/* RDMA READ responses in slices                                       */
/* ------------------------------------------------------------------ */

/*
 * Run the READ stream of @qp (its lock held) to its end, a slice of
 * VRX_SLICE at a time, each but the last a whole one.
 *
 * Return: the packets its port sent meanwhile.
 */
static s64 vrx_run_stream(struct kunit *test, struct vmlx_qp *qp,
			  struct vmlx_port *port)
{
	s64 start = vrx_xmit(port);
	unsigned int budget, runs;

	for (runs = 0; runs <= VRX_BIG_PKTS; runs++) {
		budget = VRX_SLICE;
		if (!vmlx_resp_run(qp, &budget))
			break;
		if (qp->resp.read.active)
			KUNIT_EXPECT_EQ(test, budget, 0U);
	}
	KUNIT_EXPECT_FALSE(test, qp->resp.read.active);
	return vrx_xmit(port) - start;
}

/*
 * The responder, by hand with its lock held: a READ starts a stream and
 * sends nothing; a slice sends exactly its budget; a SEND behind the READ
 * waits; a duplicate READ for the tail restarts the stream there, while
 * duplicates that do not ask for a tail of the original are ignored; the
 * rest of the stream is what the restart asked for; then the SEND goes.
 */
static void vmlx_rx_read_slice_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	const u32 mtu = VRX_MTU_BYTES;
	const u32 len = VRX_READ_PKTS * mtu;
	const u32 k = VRX_RESTART;
	struct vmlx_port *port = ctx->port[0];
	struct sk_buff *read, *send, *tail, *bad[4];
	u32 rqpn, rkey, psn_end, psn_k;
	struct vmlx_qp *r, *p;
	unsigned int budget, i;
	s64 xmit, sent;
	struct ib_wc wc;
	u64 va;

	vrx_connect(test, IB_QPT_RC, false);
	r = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	KUNIT_ASSERT_EQ(test, r->mtu, mtu);
	rqpn = r->ibqp.qp_num;
	rkey = ctx->mr->rkey;
	va = (uintptr_t)ctx->buf;
	psn_end = vmlx_psn_add(VRX_PSN, VRX_READ_PKTS);
	psn_k = vmlx_psn_add(VRX_PSN, k);
	vrx_post_recv(test, 0, 7);

	/* every packet is built before the responder's lock is taken */
	read = vrx_read(test, p, rqpn, VRX_PSN, va, rkey, len);
	send = vrx_forge(test, p, &p->av, rqpn, VMLX_OPC_RC_SEND_ONLY,
			 psn_end, VRX_PAYLOAD);
	vmlx_bth_set_ackreq(vmlx_pkt_bth(send), true);
	vrx_finish(test, send);
	tail = vrx_read(test, p, rqpn, psn_k, va + k * mtu, rkey,
			len - k * mtu);
	/* the address of another PSN */
	bad[0] = vrx_read(test, p, rqpn, psn_k, va + (k + 1) * mtu, rkey,
			  len - k * mtu);
	/* the right address, the length of the whole */
	bad[1] = vrx_read(test, p, rqpn, psn_k, va + k * mtu, rkey, len);
	/* the right address, a length short of the end */
	bad[2] = vrx_read(test, p, rqpn, psn_k, va + k * mtu, rkey,
			  len - k * mtu - 4);
	/* another R_Key */
	bad[3] = vrx_read(test, p, rqpn, psn_k, va + k * mtu, rkey + 0x100,
			  len - k * mtu);
	vrx_arrived(test, read, port);
	vrx_arrived(test, send, port);
	vrx_arrived(test, tail, port);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		vrx_arrived(test, bad[i], port);

	mutex_lock(&r->lock);
	xmit = vrx_xmit(port);
	KUNIT_EXPECT_EQ(test, r->resp.psn, (u32)VRX_PSN);

	/* the READ: a stream, nothing sent yet, ePSN past its responses */
	vmlx_resp_rcv(r, read);
	KUNIT_EXPECT_TRUE(test, r->resp.read.active);
	KUNIT_EXPECT_EQ(test, r->resp.read.psn, (u32)VRX_PSN);
	KUNIT_EXPECT_EQ(test, r->resp.read.last_psn,
			vmlx_psn_add(psn_end, VMLX_PSN_MASK));
	KUNIT_EXPECT_EQ(test, r->resp.psn, psn_end);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit);

	/* one slice: exactly its budget */
	budget = VRX_SLICE;
	KUNIT_EXPECT_TRUE(test, vmlx_resp_run(r, &budget));
	KUNIT_EXPECT_EQ(test, budget, 0U);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit + VRX_SLICE);
	KUNIT_EXPECT_TRUE(test, r->resp.read.active);
	KUNIT_EXPECT_EQ(test, r->resp.read.psn,
			vmlx_psn_add(VRX_PSN, VRX_SLICE));

	/* a request at ePSN waits behind the stream, not executed */
	vmlx_resp_rcv(r, send);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&r->resp.waiting), 1U);
	KUNIT_EXPECT_EQ(test, r->resp.psn, psn_end);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit + VRX_SLICE);

	/* the requester asks again from response k on */
	vmlx_resp_rcv(r, tail);
	KUNIT_EXPECT_TRUE(test, r->resp.read.active);
	KUNIT_EXPECT_EQ(test, r->resp.read.psn, psn_k);
	KUNIT_EXPECT_EQ(test, r->resp.read.va, va + k * mtu);
	KUNIT_EXPECT_EQ(test, r->resp.read.left, len - k * mtu);
	KUNIT_EXPECT_EQ(test, r->resp.psn, psn_end);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit + VRX_SLICE);

	/* duplicates of any other form change nothing */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		vmlx_resp_rcv(r, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, r->resp.read.psn, psn_k,
				    "duplicate %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->resp.read.va, va + k * mtu,
				    "duplicate %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->resp.read.left, len - k * mtu,
				    "duplicate %u", i);
	}
	KUNIT_EXPECT_TRUE(test, r->resp.read.active);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit + VRX_SLICE);

	/*
	 * The rest: exactly the responses from the restart point on, then
	 * the SEND that waited is executed and ACKed
	 */
	sent = vrx_run_stream(test, r, port);
	KUNIT_EXPECT_EQ(test, sent, (s64)(VRX_READ_PKTS - k + 1));
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&r->resp.waiting));
	KUNIT_EXPECT_EQ(test, r->resp.psn, vmlx_psn_add(psn_end, 1));
	KUNIT_EXPECT_EQ(test, vrx_xmit(port),
			xmit + VRX_SLICE + VRX_READ_PKTS - k + 1);
	mutex_unlock(&r->lock);

	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
}

/*
 * Duplicates of a READ that arrive before its stream has run cost no
 * more responses than the READ alone: by hand, and through the QP's
 * receive queue and work item.
 */
static void vmlx_rx_read_dup_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	const u32 len = VRX_BIG_PKTS * VRX_MTU_BYTES;
	struct vmlx_port *port = ctx->port[0];
	struct sk_buff *read[VRX_DUPS + 1];
	struct sk_buff *wire[VRX_DUPS + 1];
	u32 rqpn, rkey, psn2;
	struct vmlx_qp *r, *p;
	unsigned int i;
	s64 xmit, sent;
	bool done;
	u64 va;

	vrx_connect(test, IB_QPT_RC, false);
	r = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	rqpn = r->ibqp.qp_num;
	rkey = ctx->mr->rkey;
	va = (uintptr_t)ctx->buf;
	psn2 = vmlx_psn_add(VRX_PSN, VRX_BIG_PKTS);
	for (i = 0; i <= VRX_DUPS; i++) {
		read[i] = vrx_read(test, p, rqpn, VRX_PSN, va, rkey, len);
		vrx_arrived(test, read[i], port);
		wire[i] = vrx_read(test, p, rqpn, psn2, va, rkey, len);
	}

	/* by hand: the READ, then its duplicates, then the stream */
	mutex_lock(&r->lock);
	xmit = vrx_xmit(port);
	for (i = 0; i <= VRX_DUPS; i++) {
		vmlx_resp_rcv(r, read[i]);
		KUNIT_EXPECT_TRUE(test, r->resp.read.active);
		KUNIT_EXPECT_EQ(test, r->resp.read.psn, (u32)VRX_PSN);
	}
	KUNIT_EXPECT_EQ(test, r->resp.psn, psn2);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port), xmit);
	sent = vrx_run_stream(test, r, port);
	KUNIT_EXPECT_EQ(test, sent, (s64)VRX_BIG_PKTS);
	mutex_unlock(&r->lock);

	/* the same through the wire: all queued before the work item runs */
	mutex_lock(&r->lock);
	xmit = vrx_xmit(port);
	for (i = 0; i <= VRX_DUPS; i++)
		vrx_wire(port, wire[i]);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&r->rx_queue), VRX_DUPS + 1U);
	mutex_unlock(&r->lock);

	done = false;
	for (i = 0; i < VRX_STREAM_POLLS && !done; i++) {
		msleep(20);
		mutex_lock(&r->lock);
		done = !r->resp.read.active && skb_queue_empty(&r->rx_queue);
		mutex_unlock(&r->lock);
	}
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, vrx_xmit(port) - xmit, (s64)VRX_BIG_PKTS);
	KUNIT_EXPECT_EQ(test, READ_ONCE(r->resp.psn),
			vmlx_psn_add(psn2, VRX_BIG_PKTS));
}

/*
 * A requester that went back resends its READs in order: the tail of the
 * first, then the second whole.  Arriving together, before any run, the
 * second waits for the first's tail instead of cutting it off: all the
 * responses of both come, the first's first.
 */
static void vmlx_rx_read_dup_order_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	const u32 mtu = VRX_MTU_BYTES;
	const u32 len = VRX_READ_PKTS * mtu;
	const u32 k = VRX_RESTART;
	struct vmlx_port *port = ctx->port[0];
	struct sk_buff *first, *second, *tail, *again;
	u32 rqpn, rkey, psn2, psn_end;
	struct vmlx_qp *r, *p;
	s64 xmit, sent;
	u64 va;

	vrx_connect(test, IB_QPT_RC, false);
	r = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);
	rqpn = r->ibqp.qp_num;
	rkey = ctx->mr->rkey;
	va = (uintptr_t)ctx->buf;
	psn2 = vmlx_psn_add(VRX_PSN, VRX_READ_PKTS);
	psn_end = vmlx_psn_add(psn2, VRX_READ_PKTS);

	first = vrx_read(test, p, rqpn, VRX_PSN, va, rkey, len);
	second = vrx_read(test, p, rqpn, psn2, va, rkey, len);
	tail = vrx_read(test, p, rqpn, vmlx_psn_add(VRX_PSN, k), va + k * mtu,
			rkey, len - k * mtu);
	again = vrx_read(test, p, rqpn, psn2, va, rkey, len);
	vrx_arrived(test, first, port);
	vrx_arrived(test, second, port);
	vrx_arrived(test, tail, port);
	vrx_arrived(test, again, port);

	mutex_lock(&r->lock);
	/* both READs executed and answered */
	vmlx_resp_rcv(r, first);
	vmlx_resp_rcv(r, second);
	sent = vrx_run_stream(test, r, port);
	KUNIT_EXPECT_EQ(test, sent, 2LL * VRX_READ_PKTS);
	KUNIT_EXPECT_EQ(test, r->resp.psn, psn_end);

	/* the requester went back to response k of the first */
	xmit = vrx_xmit(port);
	vmlx_resp_rcv(r, tail);
	KUNIT_EXPECT_TRUE(test, r->resp.read.active);
	KUNIT_EXPECT_EQ(test, r->resp.read.psn, vmlx_psn_add(VRX_PSN, k));
	vmlx_resp_rcv(r, again);
	/* the second waits: the first's tail is not replaced */
	KUNIT_EXPECT_EQ(test, r->resp.read.psn, vmlx_psn_add(VRX_PSN, k));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&r->resp.waiting), 1U);
	sent = vrx_run_stream(test, r, port);
	KUNIT_EXPECT_EQ(test, sent, (s64)(VRX_READ_PKTS - k + VRX_READ_PKTS));
	KUNIT_EXPECT_EQ(test, vrx_xmit(port) - xmit,
			(s64)(VRX_READ_PKTS - k + VRX_READ_PKTS));
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&r->resp.waiting));
	KUNIT_EXPECT_EQ(test, r->resp.psn, psn_end);
	mutex_unlock(&r->lock);
}

/* ------------------------------------------------------------------ */
/* READ responses attached                                             */
/* ------------------------------------------------------------------ */

/*
 * An RDMA READ of @len bytes at @src (side 0's DMA MR), executed by side
 * 0's responder by hand while side 1's lock keeps its responses in its
 * receive queue: each response of VMLX_ATTACH_MIN bytes or more is
 * attached exactly when @attached says so, and every response carries
 * the bytes of @src it stands for.  Attached, the MIDDLE responses
 * travel as one burst (vmlx_burst.c); copied, one by one.  The responses
 * are dropped afterwards.
 */
static void vrx_read_responses(struct kunit *test, const u8 *src, u32 len,
			       bool attached, u32 psn)
{
	struct vrx_ctx *ctx = test->priv;
	struct vmlx_port *port = ctx->port[0];
	u32 npkts = DIV_ROUND_UP(len, VRX_MTU_BYTES);
	struct vmlx_qp *r = vrx_qp(ctx, 0), *p = vrx_qp(ctx, 1);
	struct sk_buff *read, *skb;
	u32 off = 0, n = 0, i, nskb;
	u8 *got;

	got = kunit_kzalloc(test, VRX_MTU_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	read = vrx_read(test, p, r->ibqp.qp_num, psn, (uintptr_t)src,
			ctx->mr->rkey, len);
	vrx_arrived(test, read, port);

	mutex_lock(&p->lock);
	mutex_lock_nested(&r->lock, SINGLE_DEPTH_NESTING);
	vmlx_resp_rcv(r, read);
	KUNIT_EXPECT_EQ(test, vrx_run_stream(test, r, port), (s64)npkts);
	mutex_unlock(&r->lock);

	/* FIRST, the MIDDLE ones, LAST */
	nskb = attached && npkts > 2 ? 3 : npkts;
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(p, nskb));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&p->rx_queue), nskb);
	skb_queue_walk(&p->rx_queue, skb) {
		const struct vmlx_pkt *pkt = vmlx_pkt(skb);
		bool big = pkt->paylen >= VMLX_ATTACH_MIN;

		KUNIT_EXPECT_EQ_MSG(test, skb_is_nonlinear(skb),
				    attached && big, "response %u", n);
		KUNIT_EXPECT_EQ_MSG(test, pkt->paylen,
				    min_t(u32, len - off, VRX_MTU_BYTES),
				    "response %u", n);
		if (pkt->paylen > VRX_MTU_BYTES ||
		    off + vmlx_pkt_bytes(pkt) > len)
			break;
		for (i = 0; i <= pkt->burst; i++) {
			KUNIT_EXPECT_EQ(test,
					skb_copy_bits(skb, pkt->payload +
						      i * pkt->paylen, got,
						      pkt->paylen), 0);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(got, src + off,
							 pkt->paylen),
					    0, "response %u", n);
			off += pkt->paylen;
			n++;
		}
	}
	KUNIT_EXPECT_EQ(test, n, npkts);
	/* side 1 never posted this READ: its responses go */
	skb_queue_purge(&p->rx_queue);
	mutex_unlock(&p->lock);
}

/*
 * RDMA READ responses take their payload from the responder's pages by
 * reference when they can, as RC requests do, and are copied from slab
 * and vmalloc memory; the pages are let go with the packets.
 */
static void vmlx_rx_read_attached_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	const u32 len = 3 * VRX_MTU_BYTES + 5;
	struct page *pages;
	unsigned int i;
	u8 *src, *slab;

	vrx_connect(test, IB_QPT_RC, false);
	pages = alloc_pages(GFP_KERNEL | __GFP_COMP, 2);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	slab = kunit_kmalloc(test, len, GFP_KERNEL);
	if (!slab) {
		__free_pages(pages, 2);
		KUNIT_FAIL(test, "no memory");
		return;
	}
	src = page_address(pages);
	for (i = 0; i < 4 * PAGE_SIZE; i++)
		src[i] = i * 11 + (i >> 9);
	memcpy(slab, src + 100, len);

	/* unaligned, straddling pages, a last response too short to attach */
	vrx_read_responses(test, src + 100, len, true, VRX_PSN);
	vrx_read_responses(test, slab, len, false, vmlx_psn_add(VRX_PSN, 4));
	vrx_read_responses(test, ctx->buf + 3, len, false,
			   vmlx_psn_add(VRX_PSN, 8));

	KUNIT_EXPECT_EQ(test, page_count(pages), 1);
	__free_pages(pages, 2);
}

/*
 * A READ of VRX_BURST_PKTS responses: the MIDDLE ones come back as one
 * burst, which the completer places whole, and the data arrive byte for
 * byte; the burst again, stale now, changes nothing.
 */
static void vmlx_rx_read_burst_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct sk_buff *burst, *dup = NULL;
	struct ib_sge sge = { .length = VRX_BURST_BYTES };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 7,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	struct vmlx_qp *p;
	struct page *pages;
	struct ib_wc wc;
	u8 *src, *dst;

	vrx_connect(test, IB_QPT_RC, false);
	p = vrx_qp(ctx, 1);
	pages = vrx_burst_bufs(test, 5, &src, &dst);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	sge.addr = (uintptr_t)dst;
	sge.lkey = ctx->pd[1]->local_dma_lkey;
	wr.remote_addr = (uintptr_t)src;
	wr.rkey = ctx->mr->rkey;

	mutex_lock(&p->lock);
	KUNIT_EXPECT_EQ(test, ib_post_send(ctx->qp[1], &wr.wr, NULL), 0);
	/* the doorbell cannot run the QP while we hold its lock: by hand */
	vmlx_req_run(p);
	KUNIT_EXPECT_TRUE(test, vrx_wait_queued(p, 3));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&p->rx_queue), 3);
	burst = skb_peek(&p->rx_queue);
	if (burst && skb_queue_len(&p->rx_queue) == 3) {
		burst = burst->next;
		KUNIT_EXPECT_EQ(test, vmlx_pkt(burst)->burst,
				VRX_BURST_PKTS - 3);
		KUNIT_EXPECT_EQ(test, vmlx_pkt(burst)->opcode,
				VMLX_OPC_RC_RDMA_READ_RESPONSE_MIDDLE);
		dup = skb_copy(burst, GFP_KERNEL);
		KUNIT_EXPECT_NOT_NULL(test, dup);
	}
	mutex_unlock(&p->lock);

	vrx_expect_wc(test, ctx->scq[1], 7, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, VRX_BURST_BYTES), 0);
	if (dup) {
		memset(dst, 0, VRX_BURST_BYTES);
		mutex_lock(&p->lock);
		vmlx_comp_rcv(p, dup);
		mutex_unlock(&p->lock);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(dst, 0, VRX_BURST_BYTES));
		KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->scq[1], 1, &wc), 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(p->state), IB_QPS_RTS);
	}
	vrx_burst_free(test, pages);
}

/* ------------------------------------------------------------------ */
/* A QP on an SRQ going to the error state                             */
/* ------------------------------------------------------------------ */

static void vrx_srq_qp_event(struct ib_event *ev, void *context)
{
	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(context);
}

/*
 * vmlx0's QP takes its receive WQEs from an SRQ.  The first packet of a
 * SEND makes it hold one.  Moved to ERR, it completes that WQE as flushed
 * and reports Last WQE Reached once, both before modify_qp returns: the
 * consumer may destroy the QP at once without losing a WQE of the SRQ,
 * whose other WQE stays for its other QPs.  Reset and connected again,
 * the QP reports the event again on its next error.
 */
static void vmlx_rx_srq_last_wqe_test(struct kunit *test)
{
	struct vrx_ctx *ctx = test->priv;
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_qp_init_attr init;
	struct rxe_recv_wqe *wqe;
	struct vmlx_qp *r, *p;
	atomic_t last_wqe;
	struct sk_buff *skb;
	struct ib_srq *srq;
	struct ib_sge sge;
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ib_wc wc;
	bool held = false;
	unsigned int i;
	u8 *dst;
	int n;

	atomic_set(&last_wqe, 0);
	dst = kunit_kzalloc(test, 2 * VRX_MTU_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	wqe = kunit_kzalloc(test, vmlx_recv_wqe_size(1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wqe);
	srq = ib_create_srq(ctx->pd[0], &sinit);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	sge = (struct ib_sge) {
		.addr = (uintptr_t)dst,
		.length = 2 * VRX_MTU_BYTES,
		.lkey = ctx->pd[0]->local_dma_lkey,
	};
	for (i = 1; i <= 2; i++) {
		rwr.wr_id = i;
		KUNIT_EXPECT_EQ(test, ib_post_srq_recv(srq, &rwr, NULL), 0);
	}

	for (i = 0; i < 2; i++) {
		vrx_qp_init(ctx, i, IB_QPT_RC, &init);
		if (!i) {
			init.cap.max_recv_wr = 0;
			init.cap.max_recv_sge = 0;
			init.srq = srq;
			init.event_handler = vrx_srq_qp_event;
			init.qp_context = &last_wqe;
		}
		ctx->qp[i] = ib_create_qp(ctx->pd[i], &init);
		if (IS_ERR(ctx->qp[i])) {
			ctx->qp[i] = NULL;
			KUNIT_FAIL(test, "QP %u not created", i);
			goto out;
		}
	}
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, vrx_modify(ctx->qp[i],
						 ctx->qp[!i]->qp_num, !i + 1,
						 NULL), 0);
	r = vrx_qp(ctx, 0);
	p = vrx_qp(ctx, 1);

	/* the first packet of a two-packet SEND: a WQE is held for it */
	skb = vrx_forge(test, p, &p->av, r->ibqp.qp_num,
			VMLX_OPC_RC_SEND_FIRST, VRX_PSN, VRX_MTU_BYTES);
	vrx_finish(test, skb);
	vrx_wire(ctx->port[0], skb);
	for (i = 0; i < VRX_POLLS && !held; i++) {
		msleep(20);
		mutex_lock(&r->lock);
		held = r->resp.wqe_valid && r->resp.in_msg;
		mutex_unlock(&r->lock);
	}
	if (!held) {
		KUNIT_FAIL(test, "no WQE held for the SEND");
		goto out;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&last_wqe), 0);

	/* to ERR: the flush and the event are in when modify_qp returns */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(ctx->qp[0], &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&last_wqe), 1);
	n = ib_poll_cq(ctx->rcq[0], 1, &wc);
	KUNIT_EXPECT_EQ(test, n, 1);
	if (n == 1) {
		KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	}
	/* the work item's flush pass says nothing more, takes nothing */
	msleep(100);
	KUNIT_EXPECT_EQ(test, atomic_read(&last_wqe), 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	/* again from RESET: one more event, no completion (nothing held) */
	attr.qp_state = IB_QPS_RESET;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(ctx->qp[0], &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, vrx_modify(ctx->qp[0], ctx->qp[1]->qp_num, 2,
					 NULL), 0);
	attr.qp_state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(ctx->qp[0], &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&last_wqe), 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->rcq[0], 1, &wc), 0);

	KUNIT_EXPECT_EQ(test, ib_destroy_qp(ctx->qp[0]), 0);
	ctx->qp[0] = NULL;
	/* the SRQ kept its other WQE, and only that */
	KUNIT_EXPECT_TRUE(test, vmlx_srq_pop(to_vsrq(srq), wqe));
	KUNIT_EXPECT_EQ(test, wqe->wr_id, 2ULL);
	KUNIT_EXPECT_FALSE(test, vmlx_srq_pop(to_vsrq(srq), wqe));
out:
	if (ctx->qp[0]) {
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(ctx->qp[0]), 0);
		ctx->qp[0] = NULL;
	}
	KUNIT_EXPECT_EQ(test, ib_destroy_srq(srq), 0);
}

static struct kunit_case vmlx_rx_cases[] = {
	KUNIT_CASE(vmlx_rx_rc_source_test),
	KUNIT_CASE(vmlx_rx_uc_source_test),
	KUNIT_CASE(vmlx_rx_rc_ack_source_test),
	KUNIT_CASE(vmlx_rx_grh_source_test),
	KUNIT_CASE(vmlx_rx_sealed_test),
	KUNIT_CASE(vmlx_rx_attached_test),
	KUNIT_CASE(vmlx_rx_burst_test),
	KUNIT_CASE(vmlx_rx_ack_after_rewind_test),
	KUNIT_CASE(vmlx_rx_timeout_probe_test),
	KUNIT_CASE(vmlx_rx_read_slice_test),
	KUNIT_CASE(vmlx_rx_read_dup_test),
	KUNIT_CASE(vmlx_rx_read_dup_order_test),
	KUNIT_CASE(vmlx_rx_read_attached_test),
	KUNIT_CASE(vmlx_rx_read_burst_test),
	KUNIT_CASE(vmlx_rx_srq_last_wqe_test),
	{}
};

static struct kunit_suite vmlx_rx_suite = {
	.name = "vmlx_rx",
	.init = vrx_init,
	.exit = vrx_exit,
	.test_cases = vmlx_rx_cases,
};

kunit_test_suites(&vmlx_rx_suite);

/* what the driver exports for the suites alone (VISIBLE_IF_KUNIT) */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
