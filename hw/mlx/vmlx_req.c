// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx requester: turns the send queue's work requests into packets.
 *
 * Each send WQE gets a contiguous range of PSNs when it starts: one per
 * packet of a SEND or RDMA WRITE, one per expected response packet of an
 * RDMA READ, one for an atomic.  A packet is fully determined by its WQE
 * and its PSN (offset = (PSN - first PSN) * MTU), so retransmitting from
 * any PSN is just pointing the requester back there (vmlx_req_rewind()).
 *
 * Runs only in the QP's work item, with qp->lock held.
 */
#include <linux/skbuff.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* Packets sent per call, so that one QP does not hog its worker. */
#define VMLX_REQ_BUDGET		32

/* The MTU of a UD port: the port's active MTU. */
#define VMLX_UD_MTU		4096

enum vmlx_req_start {
	VMLX_REQ_GO,		/* started: send its packets */
	VMLX_REQ_WAIT,		/* cannot start yet */
	VMLX_REQ_FINISHED,	/* finished without packets */
};

static bool vmlx_wqe_is_rd_atomic(const struct rxe_send_wqe *wqe)
{
	return wqe->wr.opcode == IB_WR_RDMA_READ ||
	       wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wqe->wr.opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

static u32 vmlx_req_mtu(struct vmlx_qp *qp)
{
	return vmlx_qp_is_ud(qp) ? VMLX_UD_MTU : qp->mtu;
}

static void vmlx_wqe_finish(struct rxe_send_wqe *wqe, enum ib_wc_status st)
{
	wqe->status = st;
	wqe->state = VMLX_WQE_DONE;
}

/* REG_MR and LOCAL_INV: done by the HCA itself, no packet. */
static void vmlx_req_local(struct vmlx_qp *qp, struct rxe_send_wqe *wqe)
{
	struct ib_pd *pd = qp->ibqp.pd;
	int ret;

	if (wqe->wr.opcode == IB_WR_REG_MR) {
		ret = vmlx_mr_fast_reg(qp->vdev, pd, wqe->wr.wr.reg.mr,
				       wqe->wr.wr.reg.key,
				       wqe->wr.wr.reg.access);
		vmlx_wqe_finish(wqe, ret ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS);
	} else {
		ret = vmlx_mr_invalidate(qp->vdev, pd,
					 wqe->wr.ex.invalidate_rkey);
		vmlx_wqe_finish(wqe, ret ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
	}
}

static enum vmlx_req_start vmlx_req_start(struct vmlx_qp *qp,
					  struct rxe_send_wqe *wqe)
{
	u32 mtu = vmlx_req_mtu(qp);
	u32 npkts;

	if (qp->state == IB_QPS_SQD)
		return VMLX_REQ_WAIT;
	if (wqe->wr.send_flags & IB_SEND_FENCE && qp->req.rd_atomic)
		return VMLX_REQ_WAIT;
	if (wqe->wr.opcode == IB_WR_REG_MR ||
	    wqe->wr.opcode == IB_WR_LOCAL_INV) {
		vmlx_req_local(qp, wqe);
		return VMLX_REQ_FINISHED;
	}
	if (vmlx_wqe_is_rd_atomic(wqe)) {
		if (qp->req.rd_atomic >= max_t(u32, qp->attr.max_rd_atomic, 1))
			return VMLX_REQ_WAIT;
		wqe->has_rd_atomic = 1;
		qp->req.rd_atomic++;
	}
	if (vmlx_qp_is_ud(qp) && wqe->dma.length > mtu) {
		vmlx_wqe_finish(wqe, IB_WC_LOC_LEN_ERR);
		return VMLX_REQ_FINISHED;
	}

	if (wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->wr.opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
		npkts = 1;
	else
		npkts = max_t(u32, DIV_ROUND_UP(wqe->dma.length, mtu), 1);
	wqe->first_psn = qp->req.psn;
	wqe->last_psn = vmlx_psn_add(qp->req.psn, npkts - 1);
	wqe->state = VMLX_WQE_PENDING;
	return VMLX_REQ_GO;
}

/* The opcode of a SEND or WRITE packet, by its place in the message. */
static u8 vmlx_req_opcode(struct vmlx_qp *qp, const struct rxe_send_wqe *wqe,
			  bool first, bool last)
{
	u32 wr = wqe->wr.opcode;
	bool imm = wr == IB_WR_SEND_WITH_IMM ||
		   wr == IB_WR_RDMA_WRITE_WITH_IMM;
	u8 svc = qp->ibqp.qp_type == IB_QPT_UC ? VMLX_OPC_UC : VMLX_OPC_RC;

	if (vmlx_qp_is_ud(qp))
		return imm ? VMLX_OPC_UD_SEND_ONLY_IMM : VMLX_OPC_UD_SEND_ONLY;

	if (wr == IB_WR_RDMA_WRITE || wr == IB_WR_RDMA_WRITE_WITH_IMM) {
		if (first && last)
			return svc | (imm ? VMLX_OPC_RC_RDMA_WRITE_ONLY_IMM :
					    VMLX_OPC_RC_RDMA_WRITE_ONLY);
		if (first)
			return svc | VMLX_OPC_RC_RDMA_WRITE_FIRST;
		if (last)
			return svc | (imm ? VMLX_OPC_RC_RDMA_WRITE_LAST_IMM :
					    VMLX_OPC_RC_RDMA_WRITE_LAST);
		return svc | VMLX_OPC_RC_RDMA_WRITE_MIDDLE;
	}

	if (first && last) {
		if (wr == IB_WR_SEND_WITH_INV)
			return VMLX_OPC_RC_SEND_ONLY_INV;
		return svc | (imm ? VMLX_OPC_RC_SEND_ONLY_IMM :
				    VMLX_OPC_RC_SEND_ONLY);
	}
	if (first)
		return svc | VMLX_OPC_RC_SEND_FIRST;
	if (last) {
		if (wr == IB_WR_SEND_WITH_INV)
			return VMLX_OPC_RC_SEND_LAST_INV;
		return svc | (imm ? VMLX_OPC_RC_SEND_LAST_IMM :
				    VMLX_OPC_RC_SEND_LAST);
	}
	return svc | VMLX_OPC_RC_SEND_MIDDLE;
}

/* Where a WQE's packets go: the QP's path, or the AH of a UD WQE. */
static int vmlx_req_dest(struct vmlx_qp *qp, struct rxe_send_wqe *wqe,
			 struct vmlx_av *av, u32 *dqpn)
{
	if (!vmlx_qp_is_ud(qp)) {
		*av = qp->av;
		*dqpn = qp->attr.dest_qp_num;
		return 0;
	}
	/* resolved when the WQE was fetched */
	*av = *vmlx_wqe_av(wqe);
	/* a UD QP sends through its own port, whatever the AH says */
	av->port_num = qp->attr.port_num;
	*dqpn = wqe->wr.wr.ud.remote_qpn & VMLX_QPN_MASK;
	return 0;
}

static void vmlx_req_fill_ud(struct vmlx_qp *qp, struct sk_buff *skb,
			     const struct rxe_send_wqe *wqe)
{
	struct vmlx_deth *deth = vmlx_pkt_eth(skb, VMLX_ETH_DETH);
	u32 qkey = wqe->wr.wr.ud.remote_qkey;
	struct vmlx_port *port;

	/* a Q_Key with the high bit set means: use the QP's own (10.2.5) */
	if (qkey & BIT(31))
		qkey = qp->attr.qkey;
	vmlx_deth_set_qkey(deth, qkey);
	vmlx_deth_set_sqpn(deth, qp->ibqp.qp_num);
	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		port = vmlx_port(qp->vdev, qp->attr.port_num);
		vmlx_bth_set_pkey(vmlx_pkt_bth(skb),
				  port->pkeys[wqe->wr.wr.ud.pkey_index %
					      VMLX_PKEY_TBL_LEN]);
	}
}

/*
 * A packet of @paylen bytes of payload at @offset of @wqe's gather list,
 * attached if it can be (an RC request not sent inline, big enough for
 * page references to beat a copy, see vmlx_sge_attach()), else copied.
 */
static struct sk_buff *vmlx_req_payload(struct vmlx_qp *qp,
					struct rxe_send_wqe *wqe,
					const struct vmlx_av *av, u32 dqpn,
					u8 opcode, u32 offset, u32 paylen,
					int *err)
{
	struct sk_buff *skb;
	int ret;

	if (qp->ibqp.qp_type == IB_QPT_RC && paylen >= VMLX_ATTACH_MIN &&
	    !(wqe->wr.send_flags & IB_SEND_INLINE)) {
		skb = vmlx_pkt_alloc_hdrs(qp, av, dqpn, opcode, qp->req.psn,
					  paylen);
		if (!skb)
			goto nomem;
		ret = vmlx_pkt_attach_payload(qp, skb, wqe->dma.sge,
					      wqe->dma.num_sge, offset);
		if (!ret)
			return skb;
		kfree_skb(skb);
		if (ret != -EAGAIN) {
			*err = ret;
			return NULL;
		}
	}

	skb = vmlx_pkt_alloc(qp, av, dqpn, opcode, qp->req.psn, paylen);
	if (!skb)
		goto nomem;
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		memcpy(vmlx_pkt_payload(skb), wqe->dma.inline_data + offset,
		       paylen);
		return skb;
	}
	ret = vmlx_sge_copy(qp->vdev, qp->ibqp.pd, wqe->dma.sge,
			    wqe->dma.num_sge, offset, vmlx_pkt_payload(skb),
			    paylen, VMLX_FROM_MR);
	if (!ret)
		return skb;
	kfree_skb(skb);
	*err = ret;
	return NULL;

nomem:
	*err = -ENOMEM;
	return NULL;
}

/*
 * How many packets from qp->req.psn on, the one at @index of @wqe first,
 * may go as one burst (vmlx_burst.c): MIDDLE packets of an RC message
 * not sent inline, up to the one before its LAST, the next that asks for
 * an ACK, the end of the window, the run's @budget and what the
 * fragments of one skb hold.
 */
static u32 vmlx_req_burst_len(struct vmlx_qp *qp,
			      const struct rxe_send_wqe *wqe, u32 index,
			      unsigned int budget)
{
	u32 n = READ_ONCE(vmlx_burst_max);
	u32 window;

	if (n < 2 || qp->ibqp.qp_type != IB_QPT_RC || qp->comp.probing ||
	    !index || qp->mtu < VMLX_ATTACH_MIN ||
	    (wqe->wr.send_flags & IB_SEND_INLINE))
		return 1;
	/* the MIDDLE packets left: all but the LAST */
	n = min(n, (wqe->last_psn - qp->req.psn) & VMLX_PSN_MASK);
	n = min(n, VMLX_ACKREQ_INTERVAL - index % VMLX_ACKREQ_INTERVAL);
	window = (qp->comp.psn + VMLX_MAX_INFLIGHT_PSN - qp->req.psn) &
		 VMLX_PSN_MASK;
	n = min3(n, window, budget);
	/* a page more than the payload, if it starts within one */
	n = min_t(u32, n, (MAX_SKB_FRAGS - 2) * PAGE_SIZE / qp->mtu);
	return max(n, 1U);
}

/*
 * A burst of @n MIDDLE packets at qp->req.psn, or NULL if the payload
 * cannot be attached: the packets then go one by one, and the first says
 * why, if anything is wrong.
 */
static struct sk_buff *vmlx_req_burst(struct vmlx_qp *qp,
				      struct rxe_send_wqe *wqe,
				      const struct vmlx_av *av, u32 dqpn,
				      u8 opcode, u32 offset, u32 n)
{
	struct sk_buff *skb;

	skb = vmlx_pkt_alloc_hdrs(qp, av, dqpn, opcode, qp->req.psn, qp->mtu);
	if (!skb)
		return NULL;
	vmlx_pkt(skb)->burst = n - 1;
	if (vmlx_pkt_attach_payload(qp, skb, wqe->dma.sge, wqe->dma.num_sge,
				    offset)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * The packet of a SEND or an RDMA WRITE at qp->req.psn, or a burst of the
 * packets from there on, each of which counts against @budget but the
 * first.
 */
static int vmlx_req_data_packet(struct vmlx_qp *qp, struct rxe_send_wqe *wqe,
				const struct vmlx_av *av, u32 dqpn,
				unsigned int *budget)
{
	u32 mtu = vmlx_req_mtu(qp);
	u32 index = (qp->req.psn - wqe->first_psn) & VMLX_PSN_MASK;
	u32 offset = index * mtu;
	u32 paylen = min(mtu, wqe->dma.length - offset);
	bool first = index == 0;
	bool last = qp->req.psn == wqe->last_psn;
	struct vmlx_reth *reth;
	struct vmlx_immdt *immdt;
	struct sk_buff *skb = NULL;
	u32 n;
	u8 opcode;
	int ret;

	opcode = vmlx_req_opcode(qp, wqe, first, last);
	n = vmlx_req_burst_len(qp, wqe, index, *budget);
	if (n > 1)
		skb = vmlx_req_burst(qp, wqe, av, dqpn, opcode, offset, n);
	if (!skb) {
		n = 1;
		skb = vmlx_req_payload(qp, wqe, av, dqpn, opcode, offset,
				       paylen, &ret);
		if (!skb)
			return ret;
	}

	/* of a burst, its last packet's */
	index += n - 1;
	if (qp->ibqp.qp_type == IB_QPT_RC &&
	    (last || qp->comp.probing ||
	     index % VMLX_ACKREQ_INTERVAL == VMLX_ACKREQ_INTERVAL - 1))
		vmlx_bth_set_ackreq(vmlx_pkt_bth(skb), true);
	if (last && wqe->wr.send_flags & IB_SEND_SOLICITED)
		vmlx_bth_set_se(vmlx_pkt_bth(skb), true);
	if (vmlx_pkt(skb)->op->flags & VMLX_OPF_RETH) {
		reth = vmlx_pkt_eth(skb, VMLX_ETH_RETH);
		vmlx_reth_set_va(reth, wqe->wr.wr.rdma.remote_addr);
		vmlx_reth_set_rkey(reth, wqe->wr.wr.rdma.rkey);
		vmlx_reth_set_len(reth, wqe->dma.length);
	}
	if (vmlx_pkt(skb)->op->flags & VMLX_OPF_IMMDT) {
		immdt = vmlx_pkt_eth(skb, VMLX_ETH_IMMDT);
		immdt->imm = wqe->wr.ex.imm_data;
	}
	if (vmlx_pkt(skb)->op->flags & VMLX_OPF_IETH)
		vmlx_ieth_set_rkey(vmlx_pkt_eth(skb, VMLX_ETH_IETH),
				   wqe->wr.ex.invalidate_rkey);
	if (vmlx_pkt(skb)->op->flags & VMLX_OPF_DETH)
		vmlx_req_fill_ud(qp, skb, wqe);

	vmlx_pkt_send(qp, skb);
	qp->req.psn = vmlx_psn_add(qp->req.psn, n);
	*budget -= n - 1;
	return 0;
}

/* An RDMA READ request for the rest of the read, from qp->req.psn on. */
static int vmlx_req_read_packet(struct vmlx_qp *qp, struct rxe_send_wqe *wqe,
				const struct vmlx_av *av, u32 dqpn)
{
	u32 index = (qp->req.psn - wqe->first_psn) & VMLX_PSN_MASK;
	u32 offset = index * qp->mtu;
	struct vmlx_reth *reth;
	struct sk_buff *skb;

	skb = vmlx_pkt_alloc(qp, av, dqpn, VMLX_OPC_RC_RDMA_READ_REQUEST,
			     qp->req.psn, 0);
	if (!skb)
		return -ENOMEM;
	reth = vmlx_pkt_eth(skb, VMLX_ETH_RETH);
	vmlx_reth_set_va(reth, wqe->wr.wr.rdma.remote_addr + offset);
	vmlx_reth_set_rkey(reth, wqe->wr.wr.rdma.rkey);
	vmlx_reth_set_len(reth, wqe->dma.length - offset);
	vmlx_pkt_send(qp, skb);
	qp->req.psn = vmlx_psn_add(wqe->last_psn, 1);
	return 0;
}

static int vmlx_req_atomic_packet(struct vmlx_qp *qp, struct rxe_send_wqe *wqe,
				  const struct vmlx_av *av, u32 dqpn)
{
	bool cas = wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP;
	struct vmlx_atmeth *atmeth;
	struct sk_buff *skb;

	skb = vmlx_pkt_alloc(qp, av, dqpn,
			     cas ? VMLX_OPC_RC_COMPARE_SWAP :
				   VMLX_OPC_RC_FETCH_ADD,
			     qp->req.psn, 0);
	if (!skb)
		return -ENOMEM;
	atmeth = vmlx_pkt_eth(skb, VMLX_ETH_ATMETH);
	vmlx_atmeth_set_va(atmeth, wqe->wr.wr.atomic.remote_addr);
	vmlx_atmeth_set_rkey(atmeth, wqe->wr.wr.atomic.rkey);
	if (cas) {
		vmlx_atmeth_set_swap_add(atmeth, wqe->wr.wr.atomic.swap);
		vmlx_atmeth_set_compare(atmeth, wqe->wr.wr.atomic.compare_add);
	} else {
		vmlx_atmeth_set_swap_add(atmeth, wqe->wr.wr.atomic.compare_add);
	}
	vmlx_pkt_send(qp, skb);
	qp->req.psn = vmlx_psn_add(qp->req.psn, 1);
	return 0;
}

/*
 * Send the packet of @wqe at qp->req.psn, or a burst from there; @budget
 * is decreased by the packets beyond the first.
 */
static int vmlx_req_packet(struct vmlx_qp *qp, struct rxe_send_wqe *wqe,
			   unsigned int *budget)
{
	struct vmlx_av av;
	u32 dqpn;
	int ret;

	/* the completer never lets req.psn leave the WQE at req.next */
	if (WARN_ON_ONCE(vmlx_psn_compare(qp->req.psn, wqe->first_psn) < 0 ||
			 vmlx_psn_compare(qp->req.psn, wqe->last_psn) > 0))
		return -EIO;
	ret = vmlx_req_dest(qp, wqe, &av, &dqpn);
	if (ret)
		return ret;
	switch (wqe->wr.opcode) {
	case IB_WR_RDMA_READ:
		return vmlx_req_read_packet(qp, wqe, &av, dqpn);
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return vmlx_req_atomic_packet(qp, wqe, &av, dqpn);
	default:
		return vmlx_req_data_packet(qp, wqe, &av, dqpn, budget);
	}
}

static enum ib_wc_status vmlx_req_errno_status(int err)
{
	switch (err) {
	case -EMSGSIZE:
		return IB_WC_LOC_LEN_ERR;
	case -EINVAL:
	case -EACCES:
	case -ERANGE:
		return IB_WC_LOC_PROT_ERR;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}

/* After the packet at the end of a WQE went out. */
static void vmlx_req_wqe_sent(struct vmlx_qp *qp, struct rxe_send_wqe *wqe)
{
	if (qp->ibqp.qp_type == IB_QPT_RC)
		wqe->state = VMLX_WQE_SENT;
	else
		vmlx_wqe_finish(wqe, IB_WC_SUCCESS);
	qp->req.next = (qp->req.next + 1) & qp->sq.q.mask;
}

/**
 * vmlx_req_run() - send what the send queue and the window allow
 * @qp: the QP
 *
 * Return: true if anything was sent or finished.
 */
bool vmlx_req_run(struct vmlx_qp *qp)
{
	unsigned int budget = VMLX_REQ_BUDGET;
	struct rxe_send_wqe *wqe;
	bool progress = false;
	u32 limit;
	u64 start;
	int ret;

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return false;
	if (qp->comp.rnr_wait)
		return false;

	while (budget) {
		if (qp->req.next == qp->req.fetched && !vmlx_sq_fetch(qp))
			break;
		wqe = vmlx_sq_wqe(&qp->sq, qp->req.next);
		if (wqe->state == VMLX_WQE_DONE || wqe->state == VMLX_WQE_SENT) {
			qp->req.next = (qp->req.next + 1) & qp->sq.q.mask;
			continue;
		}
		if (wqe->state == VMLX_WQE_POSTED) {
			switch (vmlx_req_start(qp, wqe)) {
			case VMLX_REQ_WAIT:
				return progress;
			case VMLX_REQ_FINISHED:
				qp->req.next = (qp->req.next + 1) &
					       qp->sq.q.mask;
				progress = true;
				continue;
			case VMLX_REQ_GO:
				break;
			}
		}
		if (qp->ibqp.qp_type == IB_QPT_RC) {
			limit = vmlx_psn_add(qp->comp.psn,
					     VMLX_MAX_INFLIGHT_PSN);
			if (vmlx_psn_compare(qp->req.psn, limit) >= 0)
				break;
			/* after a timeout: the oldest packet only */
			if (qp->comp.probing && qp->req.psn != qp->comp.psn)
				break;
		}

		start = vmlx_prof_now();
		ret = vmlx_req_packet(qp, wqe, &budget);
		vmlx_prof_end(VMLX_PROF_REQ_PKT, start);
		if (ret == -ENOMEM)
			break;
		progress = true;
		budget--;
		if (ret) {
			/* a local error: the WQE fails, and with it the QP */
			vmlx_wqe_finish(wqe, vmlx_req_errno_status(ret));
			qp->req.next = (qp->req.next + 1) & qp->sq.q.mask;
			vmlx_qp_error(qp);
			break;
		}
		if (qp->ibqp.qp_type == IB_QPT_RC) {
			if (vmlx_psn_compare(qp->req.psn,
					     qp->req.sent_psn) > 0)
				qp->req.sent_psn = qp->req.psn;
			vmlx_comp_arm_timer(qp);
		}
		if (vmlx_psn_compare(qp->req.psn, wqe->last_psn) > 0)
			vmlx_req_wqe_sent(qp, wqe);
	}
	/* out of budget with more to send: come back */
	if (!budget)
		vmlx_qp_kick(qp);
	return progress;
}

/**
 * vmlx_req_send_posted() - send a UD QP's posted datagrams before it goes
 * @qp: the QP, about to be destroyed; qp->lock held
 *
 * As from an HCA that has fetched them already: a process may post its
 * last sends and destroy the QP at once, before the work item has run
 * (librdmacm's mckey does).  At most one send queue's worth, whatever a
 * thread of the process still writes into a user ring meanwhile.
 */
void vmlx_req_send_posted(struct vmlx_qp *qp)
{
	unsigned int rounds = qp->sq.q.mask / VMLX_REQ_BUDGET + 1;

	lockdep_assert_held(&qp->lock);
	if (!vmlx_qp_is_ud(qp) ||
	    (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD))
		return;
	while (rounds-- && vmlx_req_run(qp))
		;
}

/**
 * vmlx_req_rewind() - retransmit from a PSN
 * @qp: the QP
 * @psn: the first PSN to send again
 *
 * Points the requester back at the WQE that @psn belongs to; the WQEs
 * after it that were sent are sent again.  Nothing happens if no WQE in
 * flight has @psn.
 */
void vmlx_req_rewind(struct vmlx_qp *qp, u32 psn)
{
	u32 mask = qp->sq.q.mask;
	u32 end = (qp->req.next + 1) & mask;
	struct rxe_send_wqe *wqe;
	u32 i, found;
	bool hit = false;

	if (qp->req.next == qp->req.fetched)
		end = qp->req.next;
	for (i = qp->sq.q.index; i != end; i = (i + 1) & mask) {
		wqe = vmlx_sq_wqe(&qp->sq, i);
		if (wqe->state != VMLX_WQE_SENT &&
		    wqe->state != VMLX_WQE_PENDING)
			continue;
		if (vmlx_psn_compare(psn, wqe->first_psn) >= 0 &&
		    vmlx_psn_compare(psn, wqe->last_psn) <= 0) {
			found = i;
			hit = true;
			break;
		}
	}
	if (!hit)
		return;
	for (i = found; i != end; i = (i + 1) & mask) {
		wqe = vmlx_sq_wqe(&qp->sq, i);
		if (wqe->state == VMLX_WQE_SENT)
			wqe->state = VMLX_WQE_PENDING;
	}
	qp->req.next = found;
	qp->req.psn = psn;
}

/**
 * vmlx_req_catch_up() - go on from what the responder acknowledged
 * @qp: the QP
 *
 * After a rewind, the answers to the packets sent before it still
 * arrive, and may acknowledge PSNs the requester has not sent again yet:
 * comp.psn passes req.psn.  The requester then goes on from comp.psn,
 * past the WQEs those answers finished, instead of sending them twice.
 * A READ acknowledged in part is asked again for the rest only.
 */
void vmlx_req_catch_up(struct vmlx_qp *qp)
{
	u32 mask = qp->sq.q.mask;
	struct rxe_send_wqe *wqe;

	if (vmlx_psn_compare(qp->comp.psn, qp->req.psn) <= 0)
		return;
	while (qp->req.next != qp->req.fetched) {
		wqe = vmlx_sq_wqe(&qp->sq, qp->req.next);
		/* not started: it gets its PSNs from comp.psn on */
		if (wqe->state == VMLX_WQE_POSTED)
			break;
		if (wqe->state == VMLX_WQE_PENDING &&
		    vmlx_psn_compare(wqe->last_psn, qp->comp.psn) >= 0)
			break;
		qp->req.next = (qp->req.next + 1) & mask;
	}
	qp->req.psn = qp->comp.psn;
}
