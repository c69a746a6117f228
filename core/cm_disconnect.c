// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ending a connection (IBA 12.9.7): DREQ and DREP, sent by the consumer's
 * calls and received from the other side's CM, and the path migration
 * messages, which this CM does not support: a LAP is answered with an
 * APR saying so, an APR (we never send a LAP) is dropped.
 *
 * ESTABLISHED -> DREQ_SENT -> (DREP received, or no answer) -> TIMEWAIT;
 * ESTABLISHED -> DREQ_RCVD -> (our DREP) -> TIMEWAIT.  A responder that
 * gets a DREQ before the RTU takes it as the end of the connection too.
 * A DREQ for a connection we no longer know (its timewait ended) is
 * still answered with a DREP, so that the other side ends its own.
 *
 * Locking: the identifier's lock, dropped before the callback.
 */
#include "cm_priv.h"

/**
 * cm_send_dreq_locked - ask the other side to end the connection
 * @cm_id: the identifier, locked
 * @private_data: private data, or NULL
 * @private_data_len: its length
 *
 * ESTABLISHED moves to DREQ_SENT, or straight to TIMEWAIT if the DREQ
 * cannot be sent.
 *
 * Return: 0, -EINVAL in another state (nothing changes), or the errno of
 * the send.
 */
int cm_send_dreq_locked(struct cm_id_private *cm_id,
			const void *private_data, u8 private_data_len)
{
	struct cm_dreq_msg *dreq;
	struct cm_msg *msg;
	int ret;

	lockdep_assert_held(&cm_id->lock);
	if (cm_id->id.state != IB_CM_ESTABLISHED)
		return -EINVAL;
	msg = cm_msg_alloc_av(cm_id, CM_DREQ_COUNTER);
	if (!msg) {
		ret = -ENOMEM;
		goto err;
	}
	cm_id->tid = cm_form_tid(cm_id->av.port);
	dreq = (struct cm_dreq_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_DREQ_ATTR_ID, cm_id->tid);
	dreq->local_comm_id = cm_id->id.local_id;
	dreq->remote_comm_id = cm_id->id.remote_id;
	cm_set(dreq, CM_DREQ_REMOTE_QPN_EECN, cm_id->remote_qpn);
	if (private_data_len)
		memcpy(dreq->private_data, private_data, private_data_len);
	ret = cm_msg_post_req(cm_id, msg, cm_id->timeout_ms,
			      cm_id->max_cm_retries);
	if (ret) {
		cm_msg_free(msg);
		goto err;
	}
	cm_set_state(cm_id, IB_CM_DREQ_SENT);
	return 0;

err:
	cm_enter_timewait(cm_id);
	return ret;
}

/**
 * ib_send_cm_dreq - end a connection
 * @cm_id: an established connection's identifier
 * @private_data: private data, or NULL
 * @private_data_len: its length, at most IB_CM_DREQ_PRIVATE_DATA_SIZE
 *
 * The DREQ is resent as the REQ or REP was; the answer comes as
 * IB_CM_DREP_RECEIVED, or IB_CM_DREQ_ERROR if none comes.  Either way
 * the identifier is then in TIMEWAIT, and IB_CM_TIMEWAIT_EXIT follows.
 *
 * Context: any.
 * Return: 0, -EINVAL for another state or a length too large, or the
 * errno of the send (the identifier is then in TIMEWAIT).
 */
int ib_send_cm_dreq(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	unsigned long flags;
	int ret;

	if (private_data_len > IB_CM_DREQ_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	ret = cm_send_dreq_locked(priv, private_data, private_data_len);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_dreq);

/**
 * cm_send_drep_locked - answer the other side's DREQ
 * @cm_id: the identifier, locked
 * @private_data: private data, or NULL
 * @private_data_len: its length
 *
 * DREQ_RCVD moves to TIMEWAIT whether or not the DREP could be sent.
 *
 * Return: 0, -EINVAL in another state (nothing changes), or the errno of
 * the send.
 */
int cm_send_drep_locked(struct cm_id_private *cm_id,
			const void *private_data, u8 private_data_len)
{
	struct cm_drep_msg *drep;
	struct cm_msg *msg;
	int ret = -ENOMEM;

	lockdep_assert_held(&cm_id->lock);
	if (cm_id->id.state != IB_CM_DREQ_RCVD)
		return -EINVAL;
	msg = cm_msg_alloc_av(cm_id, CM_DREP_COUNTER);
	if (msg) {
		drep = (struct cm_drep_msg *)&msg->mad;
		cm_format_hdr(&msg->mad, CM_DREP_ATTR_ID, cm_id->tid);
		drep->local_comm_id = cm_id->id.local_id;
		drep->remote_comm_id = cm_id->id.remote_id;
		if (private_data_len)
			memcpy(drep->private_data, private_data,
			       private_data_len);
		cm_remember(cm_id, &msg->mad, false);
		ret = cm_msg_post(msg);
		if (ret)
			cm_msg_free(msg);
	}
	cm_enter_timewait(cm_id);
	return ret;
}

/**
 * ib_send_cm_drep - answer a disconnection request
 * @cm_id: an identifier that got IB_CM_DREQ_RECEIVED
 * @private_data: private data, or NULL
 * @private_data_len: its length, at most IB_CM_DREP_PRIVATE_DATA_SIZE
 *
 * The identifier goes to TIMEWAIT, even if the DREP cannot be sent;
 * IB_CM_TIMEWAIT_EXIT follows.
 *
 * Context: any.
 * Return: 0, -EINVAL for another state or a length too large, or the
 * errno of the send.
 */
int ib_send_cm_drep(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	unsigned long flags;
	int ret;

	if (private_data_len > IB_CM_DREP_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	ret = cm_send_drep_locked(priv, private_data, private_data_len);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_drep);

/* A DREP for a DREQ without an identifier: the IDs turned round. */
static void cm_issue_drep(struct cm_work *work)
{
	const struct cm_dreq_msg *dreq = (const struct cm_dreq_msg *)work->mad;
	struct cm_drep_msg *drep;
	struct cm_msg *msg;

	msg = cm_msg_alloc_reply(work, CM_DREP_COUNTER);
	if (!msg)
		return;
	drep = (struct cm_drep_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_DREP_ATTR_ID, dreq->hdr.tid);
	drep->local_comm_id = dreq->remote_comm_id;
	drep->remote_comm_id = dreq->local_comm_id;
	if (cm_msg_post(msg))
		cm_msg_free(msg);
}

/*
 * The identifier a message of an established connection names: ours by
 * its RemoteCommID, the other side's by its LocalCommID, on its port.
 */
static struct cm_id_private *cm_conn_id(struct cm_work *work,
					__be32 local_comm_id,
					__be32 remote_comm_id)
{
	struct cm_id_private *cm_id;

	cm_id = cm_id_find(remote_comm_id, local_comm_id, true);
	if (cm_id && cm_id->av.port != work->port) {
		cm_id_put(cm_id);
		cm_id = NULL;
	}
	return cm_id;
}

/* What a DREQ does to its identifier (locked). */
static enum cm_verdict cm_dreq_locked(struct cm_work *work,
				      struct cm_id_private *cm_id)
{
	const struct cm_dreq_msg *dreq = (const struct cm_dreq_msg *)work->mad;

	if (cm_get(dreq, CM_DREQ_REMOTE_QPN_EECN) != cm_id->local_qpn)
		return CM_VERDICT_DROP;
	switch (cm_id->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
	case IB_CM_DREQ_SENT:
		cm_msg_cancel(cm_id);
		break;
	case IB_CM_ESTABLISHED:
		break;
	case IB_CM_TIMEWAIT:
		/* our DREP was lost */
		cm_issue_drep(work);
		return CM_VERDICT_DUP;
	case IB_CM_DREQ_RCVD:
		return CM_VERDICT_DUP;
	default:
		return CM_VERDICT_DROP;
	}
	cm_id->tid = dreq->hdr.tid;
	cm_set_state(cm_id, IB_CM_DREQ_RCVD);
	return CM_VERDICT_DELIVER;
}

/**
 * cm_dreq_handler - a DREQ received: the other side ends the connection
 * @work: the DREQ
 */
void cm_dreq_handler(struct cm_work *work)
{
	const struct cm_dreq_msg *dreq = (const struct cm_dreq_msg *)work->mad;
	struct cm_id_private *cm_id;
	enum cm_verdict verdict;
	unsigned long flags;

	cm_id = cm_conn_id(work, dreq->local_comm_id, dreq->remote_comm_id);
	if (!cm_id) {
		/* a connection gone: let the other side end its own */
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		cm_issue_drep(work);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	verdict = cm_dreq_locked(work, cm_id);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	work->event.event = IB_CM_DREQ_RECEIVED;
	work->event.private_data = (void *)dreq->private_data;
	cm_conclude(work, cm_id, verdict);
}

/* What a DREP does to its identifier (locked). */
static enum cm_verdict cm_drep_locked(struct cm_id_private *cm_id)
{
	switch (cm_id->id.state) {
	case IB_CM_DREQ_SENT:
	case IB_CM_DREQ_RCVD:
		cm_msg_cancel(cm_id);
		cm_enter_timewait(cm_id);
		return CM_VERDICT_DELIVER;
	case IB_CM_TIMEWAIT:
		return CM_VERDICT_DUP;
	default:
		return CM_VERDICT_DROP;
	}
}

/**
 * cm_drep_handler - a DREP received: the other side ended its part
 * @work: the DREP
 */
void cm_drep_handler(struct cm_work *work)
{
	const struct cm_drep_msg *drep = (const struct cm_drep_msg *)work->mad;
	struct cm_id_private *cm_id;
	enum cm_verdict verdict;
	unsigned long flags;

	cm_id = cm_conn_id(work, drep->local_comm_id, drep->remote_comm_id);
	if (!cm_id) {
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	verdict = cm_drep_locked(cm_id);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	work->event.event = IB_CM_DREP_RECEIVED;
	work->event.private_data = (void *)drep->private_data;
	cm_conclude(work, cm_id, verdict);
}

/**
 * cm_lap_handler - a LAP received: answered with "unsupported request"
 * @work: the LAP
 */
void cm_lap_handler(struct cm_work *work)
{
	const struct cm_lap_msg *lap = (const struct cm_lap_msg *)work->mad;
	struct cm_id_private *cm_id;
	struct cm_apr_msg *apr;
	bool answered = false;
	unsigned long flags;
	struct cm_msg *msg;

	cm_id = cm_conn_id(work, lap->local_comm_id, lap->remote_comm_id);
	if (!cm_id) {
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	if (cm_id->id.state == IB_CM_ESTABLISHED) {
		msg = cm_msg_alloc_av(cm_id, CM_APR_COUNTER);
		if (msg) {
			apr = (struct cm_apr_msg *)&msg->mad;
			cm_format_hdr(&msg->mad, CM_APR_ATTR_ID,
				      lap->hdr.tid);
			apr->local_comm_id = cm_id->id.local_id;
			apr->remote_comm_id = cm_id->id.remote_id;
			apr->ap_status = IB_CM_APR_UNSUPPORTED;
			if (cm_msg_post(msg))
				cm_msg_free(msg);
		}
		answered = true;
	}
	spin_unlock_irqrestore(&cm_id->lock, flags);
	if (answered)
		cm_id_put(cm_id);	/* nothing to tell the consumer */
	else
		cm_conclude(work, cm_id, CM_VERDICT_DROP);
}

/**
 * cm_apr_handler - an APR received: we never send a LAP, it is dropped
 * @work: the APR
 */
void cm_apr_handler(struct cm_work *work)
{
	cm_conclude(work, NULL, CM_VERDICT_DROP);
}
