// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CM and the consumer's QP: the attributes of each state transition
 * of a connected QP (ib_cm_init_qp_attr()), what the consumer tells the
 * CM of its QP (ib_cm_notify()), and the addresses both the QP and the
 * CM's own messages use, made from paths (ib_init_ah_attr_from_path() of
 * the SA client) and from received MADs.
 *
 * Locking: the identifier's lock, around reads of the connection.
 */
#include "cm_priv.h"

/**
 * cm_av_from_path - the way to the other side of a path
 * @cm_dev: the device
 * @path: the path; its SGID names our port
 * @av: filled in
 *
 * Return: 0, -EINVAL if the SGID is not on a port of the device with an
 * IB CM, -ENOENT if the path's P_Key is not in that port's table.
 */
int cm_av_from_path(struct cm_device *cm_dev, struct sa_path_rec *path,
		    struct cm_av *av)
{
	u16 gid_index;
	u32 port_num;
	int ret;

	if (ib_find_gid(cm_dev->ib_device, &path->sgid, &port_num,
			&gid_index) ||
	    port_num < 1 || port_num > cm_dev->num_ports ||
	    !cm_dev->port[port_num - 1].active)
		return -EINVAL;
	ret = ib_find_pkey(cm_dev->ib_device, port_num,
			   be16_to_cpu(path->pkey), &av->pkey_index);
	if (ret)
		return ret;
	ret = ib_init_ah_attr_from_path(cm_dev->ib_device, port_num, path,
					&av->ah_attr);
	if (ret)
		return ret;
	av->port = &cm_dev->port[port_num - 1];
	return 0;
}

/**
 * cm_av_from_wc - the way back to the sender of a received MAD
 * @port: the port it arrived on
 * @wc: its work completion
 * @grh: its GRH, or NULL
 * @av: filled in: its port, LID (and GID), the P_Key it came with
 *
 * Return: 0 or the errno of ib_init_ah_attr_from_wc().
 */
int cm_av_from_wc(struct cm_port *port, const struct ib_wc *wc,
		  const struct ib_grh *grh, struct cm_av *av)
{
	int ret;

	ret = ib_init_ah_attr_from_wc(port->cm_dev->ib_device, port->port_num,
				      wc, grh, &av->ah_attr);
	if (ret)
		return ret;
	av->pkey_index = wc->pkey_index;
	av->port = port;
	return 0;
}

/*
 * The connection states in which the attributes of each QP state are
 * known: RTR and RTS once the other side's parameters are (a REQ
 * received, so that the responder's QP can be ready before its REP goes
 * out, as upstream allows; or a REP), INIT as soon as a request exists.
 */
#define CM_QP_RTS_STATES (BIT(IB_CM_REP_RCVD) | BIT(IB_CM_MRA_REP_SENT) | \
			  BIT(IB_CM_REP_SENT) | BIT(IB_CM_MRA_REP_RCVD) | \
			  BIT(IB_CM_ESTABLISHED) | BIT(IB_CM_REQ_RCVD) | \
			  BIT(IB_CM_MRA_REQ_SENT))
#define CM_QP_RTR_STATES CM_QP_RTS_STATES
#define CM_QP_INIT_STATES (CM_QP_RTR_STATES | BIT(IB_CM_REQ_SENT) | \
			   BIT(IB_CM_MRA_REQ_RCVD))

static void cm_init_qp_init_attr(struct cm_id_private *cm_id,
				 struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX |
			IB_QP_PORT;
	qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	if (cm_id->qp_type == IB_QPT_RC && cm_id->responder_resources)
		qp_attr->qp_access_flags |= IB_ACCESS_REMOTE_READ |
					    IB_ACCESS_REMOTE_ATOMIC;
	qp_attr->pkey_index = cm_id->pkey_index;
	qp_attr->port_num = cm_id->av.port->port_num;
}

static int cm_init_qp_rtr_attr(struct cm_id_private *cm_id,
			       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	int ret;

	ret = ib_init_ah_attr_from_path(cm_id->cm_dev->ib_device,
					cm_id->av.port->port_num, &cm_id->path,
					&qp_attr->ah_attr);
	if (ret)
		return ret;
	*qp_attr_mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			IB_QP_DEST_QPN | IB_QP_RQ_PSN;
	qp_attr->path_mtu = cm_id->path_mtu;
	qp_attr->dest_qp_num = cm_id->remote_qpn;
	qp_attr->rq_psn = cm_id->rq_psn;
	if (cm_id->qp_type == IB_QPT_RC) {
		*qp_attr_mask |= IB_QP_MAX_DEST_RD_ATOMIC |
				 IB_QP_MIN_RNR_TIMER;
		qp_attr->max_dest_rd_atomic = cm_id->responder_resources;
		qp_attr->min_rnr_timer = 0;
	}
	return 0;
}

static void cm_init_qp_rts_attr(struct cm_id_private *cm_id,
				struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	*qp_attr_mask = IB_QP_STATE | IB_QP_SQ_PSN;
	qp_attr->sq_psn = cm_id->sq_psn;
	if (cm_id->qp_type == IB_QPT_RC) {
		*qp_attr_mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				 IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
		qp_attr->timeout = cm_id->local_ack_timeout;
		qp_attr->retry_cnt = cm_id->retry_count;
		qp_attr->rnr_retry = cm_id->rnr_retry_count;
		qp_attr->max_rd_atomic = cm_id->initiator_depth;
	}
}

/**
 * ib_cm_init_qp_attr - the attributes of a QP's next state
 * @cm_id: the connection's identifier
 * @qp_attr: @qp_attr->qp_state is the state wanted (IB_QPS_INIT,
 *	IB_QPS_RTR or IB_QPS_RTS); the attributes for it are filled in
 * @qp_attr_mask: set to the attributes filled in, IB_QP_STATE included,
 *	ready for ib_modify_qp()
 *
 * INIT: port, P_Key index, remote access (RDMA read and atomics only if
 * the other side may issue them).  RTR: the path to the other side, path
 * MTU, its QP and first PSN, and for RC the reads and atomics we accept.
 * RTS: our first PSN, and for RC the ACK timeout, retry and RNR retry
 * counts, and the reads and atomics we issue.  The consumer may change
 * what it is given before modifying its QP.
 *
 * Context: any.
 * Return: 0, or -EINVAL for another state or an identifier whose
 * connection is not far enough for it.
 */
int ib_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	unsigned long states, flags;
	int ret = 0;

	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
		states = CM_QP_INIT_STATES;
		break;
	case IB_QPS_RTR:
		states = CM_QP_RTR_STATES;
		break;
	case IB_QPS_RTS:
		states = CM_QP_RTS_STATES;
		break;
	default:
		return -EINVAL;
	}

	spin_lock_irqsave(&priv->lock, flags);
	if (!(states & BIT(cm_id->state)))
		ret = -EINVAL;
	else if (qp_attr->qp_state == IB_QPS_INIT)
		cm_init_qp_init_attr(priv, qp_attr, qp_attr_mask);
	else if (qp_attr->qp_state == IB_QPS_RTR)
		ret = cm_init_qp_rtr_attr(priv, qp_attr, qp_attr_mask);
	else
		cm_init_qp_rts_attr(priv, qp_attr, qp_attr_mask);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_init_qp_attr);

/**
 * ib_cm_notify - tell the CM of an event of the connection's QP
 * @cm_id: the connection's identifier
 * @event: IB_EVENT_COMM_EST: the responder's QP received before the RTU
 *	came; the connection is established (IB_CM_USER_ESTABLISHED follows,
 *	and the RTU when it comes changes nothing).  IB_EVENT_PATH_MIG: the
 *	QP moved to its alternate path; nothing to do without LAP.
 *
 * Context: any, also the QP's event handler.
 * Return: 0, -EISCONN if already established, -EINVAL for another state
 * or event.
 */
int ib_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&priv->lock, flags);
	switch (event) {
	case IB_EVENT_COMM_EST:
		switch (cm_id->state) {
		case IB_CM_REP_SENT:
		case IB_CM_MRA_REP_RCVD:
			cm_msg_cancel(priv);
			cm_set_state(priv, IB_CM_ESTABLISHED);
			cm_queue_established(priv);
			break;
		case IB_CM_ESTABLISHED:
			ret = -EISCONN;
			break;
		default:
			ret = -EINVAL;
			break;
		}
		break;
	case IB_EVENT_PATH_MIG:
		if (cm_id->state != IB_CM_ESTABLISHED)
			ret = -EINVAL;
		break;
	default:
		ret = -EINVAL;
		break;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_notify);
