// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Making a connection (IBA 12.9.5 to 12.9.7): REQ, MRA, REJ, REP and RTU,
 * sent by the consumer's calls and received from the other side's CM,
 * and the errors of requests that were never answered.
 *
 * The requester (active side) goes IDLE -> REQ_SENT -> [MRA_REQ_RCVD] ->
 * REP_RCVD -> [MRA_REP_SENT] -> ESTABLISHED (its RTU sent); the responder
 * (passive side) REQ_RCVD -> [MRA_REQ_SENT] -> REP_SENT -> [MRA_REP_RCVD]
 * -> ESTABLISHED (RTU received, or ib_cm_notify()).  A REJ ends either
 * side before ESTABLISHED: to IDLE, or to TIMEWAIT where the other side
 * may still hold the connection.
 *
 * A REQ is checked before anything is made for it: an unknown transport
 * (RD, XRC, reserved), a path MTU that is not one, a LID that cannot be
 * a port's, a P_Key we do not have, a GID not ours, a special QP as the
 * requester's QP, all get a REJ (or, for the last, nothing) and are
 * counted in cm_rx_dropped/req.  Then the remote tables tell a duplicate
 * (same remote ID and CA GUID: resend our REP or MRA, or REJ it as stale
 * in TIMEWAIT) from a stale connection (same remote QP and CA GUID: REJ
 * it, and disconnect the old connection), and the listeners the service.
 * Every other message must name one of our identifiers in the right
 * state, with the remote ID it knows, arriving on its port; otherwise it
 * is a duplicate (answered as IBA 12.9.8 says) or dropped.
 *
 * Locking: each handler and call works under the identifier's lock and
 * drops it before the consumer's callback (see cm_priv.h).
 */
#include "cm_priv.h"

/* the first multicast LID: unicast LIDs are 1 to 0xbfff (IBA 4.1.3) */
#define CM_MULTICAST_LID_BASE	0xc000

static bool cm_lid_valid(u32 lid)
{
	return lid && lid < CM_MULTICAST_LID_BASE;
}

/* The identifier of @work's message, if it belongs to its port. */
static struct cm_id_private *cm_work_id(struct cm_work *work,
					__be32 local_id)
{
	struct cm_id_private *cm_id = cm_id_find(local_id, 0, false);

	if (cm_id && cm_id->av.port != work->port) {
		cm_id_put(cm_id);
		cm_id = NULL;
	}
	return cm_id;
}

/* ------------------------------------------------------------------ */
/* REJ                                                                 */
/* ------------------------------------------------------------------ */

/* Send a REJ for an identifier, without changing its state. */
static int cm_post_rej(struct cm_id_private *cm_id,
		       enum cm_msg_response rejected,
		       enum ib_cm_rej_reason reason, const void *ari,
		       u8 ari_length, const void *private_data,
		       u8 private_data_len)
{
	struct cm_rej_msg *rej;
	struct cm_msg *msg;
	int ret;

	msg = cm_msg_alloc_av(cm_id, CM_REJ_COUNTER);
	if (!msg)
		return -ENOMEM;
	rej = (struct cm_rej_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_REJ_ATTR_ID, cm_id->tid);
	rej->local_comm_id = cm_id->id.local_id;
	rej->remote_comm_id = cm_id->id.remote_id;
	cm_set(rej, CM_REJ_MESSAGE_REJECTED, rejected);
	rej->reason = cpu_to_be16(reason);
	if (ari && ari_length) {
		cm_set(rej, CM_REJ_REJECTED_INFO_LENGTH, ari_length);
		memcpy(rej->ari, ari, ari_length);
	}
	if (private_data_len)
		memcpy(rej->private_data, private_data, private_data_len);
	ret = cm_msg_post(msg);
	if (ret)
		cm_msg_free(msg);
	return ret;
}

/**
 * cm_send_rej_locked - reject the connection an identifier is making
 * @cm_id: the identifier, locked
 * @reason: the Reason
 * @ari: additional rejection information, or NULL
 * @ari_length: its length
 * @private_data: private data, or NULL
 * @private_data_len: its length
 *
 * In a state a REJ may be sent from, the identifier moves on whether or
 * not the REJ could be sent: to TIMEWAIT once our REP is out (the
 * requester may have taken it), else to IDLE.
 *
 * Return: 0, -EINVAL for another state or lengths (nothing changes), or
 * the errno of the send.
 */
int cm_send_rej_locked(struct cm_id_private *cm_id,
		       enum ib_cm_rej_reason reason, const void *ari,
		       u8 ari_length, const void *private_data,
		       u8 private_data_len)
{
	enum cm_msg_response rejected;
	bool timewait = false;
	int ret;

	lockdep_assert_held(&cm_id->lock);
	if (ari_length > IB_CM_REJ_ARI_LENGTH ||
	    private_data_len > IB_CM_REJ_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	switch (cm_id->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		rejected = CM_MSG_RESPONSE_OTHER;
		break;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		rejected = CM_MSG_RESPONSE_REQ;
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		rejected = CM_MSG_RESPONSE_REP;
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		rejected = CM_MSG_RESPONSE_OTHER;
		timewait = true;
		break;
	default:
		return -EINVAL;
	}
	cm_msg_cancel(cm_id);
	ret = cm_post_rej(cm_id, rejected, reason, ari, ari_length,
			  private_data, private_data_len);
	if (timewait)
		cm_enter_timewait(cm_id);
	else
		cm_reset_to_idle(cm_id);
	return ret;
}

/**
 * ib_send_cm_rej - reject a connection
 * @cm_id: the identifier of the connection being made
 * @reason: the Reason the other side is told (IB_CM_REJ_CONSUMER_DEFINED
 *	for one of the consumer's own)
 * @ari: additional rejection information, or NULL
 * @ari_length: its length, at most IB_CM_REJ_ARI_LENGTH
 * @private_data: private data, or NULL
 * @private_data_len: its length, at most IB_CM_REJ_PRIVATE_DATA_SIZE
 *
 * The requester may reject until it sends its RTU, the responder until
 * the connection is established.
 *
 * Context: any.
 * Return: 0, -EINVAL for another state or a length too large, or the
 * errno of the send (the identifier has moved on all the same).
 */
int ib_send_cm_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
		   void *ari, u8 ari_length, const void *private_data,
		   u8 private_data_len)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&priv->lock, flags);
	ret = cm_send_rej_locked(priv, reason, ari, ari_length, private_data,
				 private_data_len);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rej);

/* A REJ names us by its RemoteCommID, or, before the requester knew our
 * ID (its REQ timed out), by its LocalCommID and its CA GUID in the ARI.
 */
static struct cm_id_private *cm_rej_find(struct cm_work *work)
{
	const struct cm_rej_msg *rej = (const struct cm_rej_msg *)work->mad;
	struct cm_id_private *cm_id;
	__be64 guid;

	if (rej->remote_comm_id)
		return cm_work_id(work, rej->remote_comm_id);
	if (be16_to_cpu(rej->reason) != IB_CM_REJ_TIMEOUT ||
	    cm_get(rej, CM_REJ_REJECTED_INFO_LENGTH) < sizeof(guid))
		return NULL;
	memcpy(&guid, rej->ari, sizeof(guid));
	cm_id = cm_remote_id_find(rej->local_comm_id, guid);
	if (cm_id && cm_id->av.port != work->port) {
		cm_id_put(cm_id);
		cm_id = NULL;
	}
	return cm_id;
}

/* What a REJ does to its identifier (locked). */
static enum cm_verdict cm_rej_locked(struct cm_id_private *cm_id,
				     const struct cm_rej_msg *rej)
{
	enum ib_cm_rej_reason reason = be16_to_cpu(rej->reason);

	/* past the REQ, only the other side itself can reject */
	if (cm_id->id.state != IB_CM_REQ_SENT &&
	    cm_id->id.state != IB_CM_MRA_REQ_RCVD &&
	    rej->local_comm_id != cm_id->id.remote_id)
		return CM_VERDICT_DROP;
	switch (cm_id->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		cm_msg_cancel(cm_id);
		if (reason == IB_CM_REJ_STALE_CONN)
			cm_enter_timewait(cm_id);
		else
			cm_reset_to_idle(cm_id);
		return CM_VERDICT_DELIVER;
	case IB_CM_DREQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_ESTABLISHED:
		cm_enter_timewait(cm_id);
		return CM_VERDICT_DELIVER;
	default:
		return CM_VERDICT_DROP;
	}
}

/**
 * cm_rej_handler - a REJ received
 * @work: the REJ
 */
void cm_rej_handler(struct cm_work *work)
{
	const struct cm_rej_msg *rej = (const struct cm_rej_msg *)work->mad;
	struct ib_cm_rej_event_param *param = &work->event.param.rej_rcvd;
	struct cm_id_private *cm_id;
	enum cm_verdict verdict;
	unsigned long flags;

	cm_id = cm_rej_find(work);
	if (!cm_id) {
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	verdict = cm_rej_locked(cm_id, rej);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	work->event.event = IB_CM_REJ_RECEIVED;
	param->reason = be16_to_cpu(rej->reason);
	param->ari = (void *)rej->ari;
	param->ari_length = min_t(u8, cm_get(rej, CM_REJ_REJECTED_INFO_LENGTH),
				  IB_CM_REJ_ARI_LENGTH);
	work->event.private_data = (void *)rej->private_data;
	cm_conclude(work, cm_id, verdict);
}

/* ------------------------------------------------------------------ */
/* REQ                                                                 */
/* ------------------------------------------------------------------ */

static int cm_req_param_check(struct cm_device *cm_dev,
			      struct ib_cm_req_param *param)
{
	struct sa_path_rec *path = param->primary_path;

	if (!path || param->primary_path_inbound ||
	    param->primary_path_outbound)
		return -EINVAL;
	if (param->qp_type != IB_QPT_RC && param->qp_type != IB_QPT_UC)
		return -EINVAL;
	if (param->private_data_len > IB_CM_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	if (path->mtu < IB_MTU_256 || path->mtu > IB_MTU_4096 ||
	    !cm_lid_valid(be16_to_cpu(path->dlid)))
		return -EINVAL;
	if (READ_ONCE(cm_dev->going_down))
		return -ENODEV;
	return 0;
}

static void cm_format_req(struct cm_req_msg *req, struct cm_id_private *cm_id,
			  struct ib_cm_req_param *param)
{
	struct sa_path_rec *pri = param->primary_path;
	struct sa_path_rec *alt = param->alternate_path;
	struct cm_device *cm_dev = cm_id->cm_dev;

	cm_format_hdr((struct ib_mad *)req, CM_REQ_ATTR_ID, cm_id->tid);
	req->hdr.attr_mod = cpu_to_be32(param->ece.attr_mod);
	req->local_comm_id = cm_id->id.local_id;
	cm_set(req, CM_REQ_VENDOR_ID, param->ece.vendor_id);
	req->service_id = param->service_id;
	req->local_ca_guid = cm_dev->ca_guid;
	cm_set(req, CM_REQ_LOCAL_QPN, param->qp_num);
	cm_set(req, CM_REQ_RESPONDER_RESOURCES, param->responder_resources);
	cm_set(req, CM_REQ_INITIATOR_DEPTH, param->initiator_depth);
	cm_set(req, CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT,
	       param->remote_cm_response_timeout);
	cm_set(req, CM_REQ_TRANSPORT_SERVICE_TYPE,
	       param->qp_type == IB_QPT_UC ? CM_TRANSPORT_UC :
					     CM_TRANSPORT_RC);
	cm_set(req, CM_REQ_END_TO_END_FLOW_CONTROL, !!param->flow_control);
	cm_set(req, CM_REQ_STARTING_PSN, param->starting_psn);
	cm_set(req, CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT,
	       param->local_cm_response_timeout);
	cm_set(req, CM_REQ_RETRY_COUNT, param->retry_count);
	cm_set(req, CM_REQ_PARTITION_KEY, be16_to_cpu(pri->pkey));
	cm_set(req, CM_REQ_PATH_MTU, pri->mtu);
	cm_set(req, CM_REQ_RNR_RETRY_COUNT, param->rnr_retry_count);
	cm_set(req, CM_REQ_MAX_CM_RETRIES, param->max_cm_retries);
	cm_set(req, CM_REQ_SRQ, !!param->srq);
	cm_path_to_req(pri, &req->primary, cm_id->local_ack_timeout, false);
	if (alt)
		cm_path_to_req(alt, &req->alternate,
			       cm_ack_timeout(cm_dev->ack_delay,
					      alt->packet_life_time), true);
	if (param->private_data_len)
		memcpy(req->private_data, param->private_data,
		       param->private_data_len);
}

/**
 * ib_send_cm_req - ask the other side of a path for a connection
 * @cm_id: an idle identifier
 * @param: the connection wanted; @param->primary_path's SGID says which
 *	of the device's ports is used, its P_Key must be in that port's
 *	table
 *
 * The REQ is resent up to @param->max_cm_retries times, each after
 * twice the path's packet life time plus @remote_cm_response_timeout;
 * the answer comes as IB_CM_REP_RECEIVED or IB_CM_REJ_RECEIVED, or
 * IB_CM_REQ_ERROR when none comes (the other side is then sent a REJ
 * with reason IB_CM_REJ_TIMEOUT).
 *
 * Context: process context.
 * Return: 0, -EINVAL for a bad parameter or an identifier not idle,
 * -ENOENT for a P_Key not in the table, -ENODEV, -ENOMEM, or the errno
 * of the send.
 */
int ib_send_cm_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *param)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	struct sa_path_rec *path = param->primary_path;
	struct cm_timewait *tw;
	unsigned long flags;
	struct cm_msg *msg;
	struct cm_av av;
	int ret;

	ret = cm_req_param_check(priv->cm_dev, param);
	if (ret)
		return ret;
	ret = cm_av_from_path(priv->cm_dev, path, &av);
	if (ret)
		return ret;
	tw = cm_timewait_alloc(priv, GFP_KERNEL);
	if (!tw)
		return -ENOMEM;

	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state != IB_CM_IDLE || priv->tw || priv->destroying) {
		ret = -EINVAL;
		goto err;
	}
	priv->av = av;
	msg = cm_msg_alloc_av(priv, CM_REQ_COUNTER);
	if (!msg) {
		ret = -ENOMEM;
		goto err;
	}
	cm_id->service_id = param->service_id;
	cm_id->remote_id = 0;
	priv->path = *path;
	priv->tid = cm_form_tid(av.port);
	priv->qp_type = param->qp_type;
	priv->local_qpn = param->qp_num & 0xffffff;
	/* a REQ's StartingPSN is the first PSN its sender will receive */
	priv->rq_psn = param->starting_psn & 0xffffff;
	priv->pkey_index = av.pkey_index;
	priv->path_mtu = path->mtu;
	priv->local_ack_timeout = cm_ack_timeout(priv->cm_dev->ack_delay,
						 path->packet_life_time);
	priv->responder_resources = param->responder_resources;
	priv->initiator_depth = param->initiator_depth;
	priv->retry_count = param->retry_count & 7;
	priv->max_cm_retries = param->max_cm_retries & 0xf;
	priv->srq = param->srq;
	priv->timeout_ms =
		2 * cm_convert_to_ms(path->packet_life_time) +
		cm_convert_to_ms(param->remote_cm_response_timeout & 0x1f);
	cm_format_req((struct cm_req_msg *)&msg->mad, priv, param);

	ret = cm_msg_post_req(priv, msg, priv->timeout_ms,
			      priv->max_cm_retries);
	if (ret) {
		cm_msg_free(msg);
		goto err;
	}
	priv->tw = tw;
	cm_set_state(priv, IB_CM_REQ_SENT);
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;

err:
	spin_unlock_irqrestore(&priv->lock, flags);
	cm_timewait_free(tw);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_req);

/* A REQ from an ID and CA we already connect with. */
static void cm_dup_req(struct cm_work *work, struct cm_id_private *cur)
{
	unsigned long flags;

	if (IS_ERR(cur)) {
		/* an orphan in its timewait */
		cm_conclude(work, NULL, CM_VERDICT_DUP);
		cm_issue_rej(work, IB_CM_REJ_STALE_CONN, CM_MSG_RESPONSE_REQ,
			     NULL, 0);
		return;
	}
	spin_lock_irqsave(&cur->lock, flags);
	switch (cur->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REQ_SENT:
		cm_resend_last(cur);
		break;
	case IB_CM_TIMEWAIT:
		cm_issue_rej(work, IB_CM_REJ_STALE_CONN, CM_MSG_RESPONSE_REQ,
			     NULL, 0);
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&cur->lock, flags);
	cm_conclude(work, cur, CM_VERDICT_DUP);
}

/* A REQ from a QP that another connection of ours still has. */
static void cm_stale_req(struct cm_work *work, struct cm_id_private *cur)
{
	unsigned long flags;

	cm_conclude(work, NULL, CM_VERDICT_DROP);
	cm_issue_rej(work, IB_CM_REJ_STALE_CONN, CM_MSG_RESPONSE_REQ, NULL, 0);
	if (IS_ERR(cur))
		return;
	spin_lock_irqsave(&cur->lock, flags);
	if (cur->id.state == IB_CM_ESTABLISHED)
		cm_send_dreq_locked(cur, NULL, 0);
	spin_unlock_irqrestore(&cur->lock, flags);
	cm_id_put(cur);
}

/*
 * Check a REQ and work out its paths from our side; returns 0, or the
 * reason to reject it with (-1: drop it).
 */
static int cm_req_check(struct cm_work *work, u16 *pkey_index)
{
	const struct cm_req_msg *req = (const struct cm_req_msg *)work->mad;
	struct cm_device *cm_dev = work->port->cm_dev;
	enum ib_mtu mtu = cm_get(req, CM_REQ_PATH_MTU);
	__be16 pkey = cpu_to_be16(cm_get(req, CM_REQ_PARTITION_KEY));
	struct rdma_ah_attr ah_attr;

	if (cm_req_qp_type(req) == IB_QPT_MAX)
		return IB_CM_REJ_INVALID_TRANSPORT_TYPE;
	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return IB_CM_REJ_INVALID_MTU;
	if (!cm_lid_valid(cm_get(&req->primary, CM_PATH_LOCAL_LID)) ||
	    !cm_lid_valid(cm_get(&req->primary, CM_PATH_REMOTE_LID)))
		return IB_CM_REJ_INVALID_LID;
	if (cm_get(req, CM_REQ_LOCAL_QPN) <= 1)
		return -1;
	if (ib_find_pkey(cm_dev->ib_device, work->port->port_num,
			 be16_to_cpu(pkey), pkey_index))
		return IB_CM_REJ_INVALID_GID;

	cm_path_from_req(&req->primary, pkey, mtu, req->service_id,
			 &work->path[0]);
	if (ib_init_ah_attr_from_path(cm_dev->ib_device, work->port->port_num,
				      &work->path[0], &ah_attr))
		return IB_CM_REJ_INVALID_GID;
	if (cm_req_path_present(&req->alternate))
		cm_path_from_req(&req->alternate, pkey, mtu, req->service_id,
				 &work->path[1]);
	return 0;
}

/* The event of a REQ. */
static void cm_format_req_event(struct cm_work *work,
				struct cm_id_private *listen)
{
	const struct cm_req_msg *req = (const struct cm_req_msg *)work->mad;
	struct ib_cm_req_event_param *param = &work->event.param.req_rcvd;
	u16 bth_pkey = 0;

	ib_get_cached_pkey(work->port->cm_dev->ib_device,
			   work->port->port_num, work->wc.pkey_index,
			   &bth_pkey);
	work->event.event = IB_CM_REQ_RECEIVED;
	param->listen_id = &listen->id;
	param->bth_pkey = bth_pkey;
	param->port = work->port->port_num;
	param->primary_path = &work->path[0];
	param->alternate_path = cm_req_path_present(&req->alternate) ?
				&work->path[1] : NULL;
	param->remote_ca_guid = req->local_ca_guid;
	param->remote_qkey = be32_to_cpu(req->local_qkey);
	param->remote_qpn = cm_get(req, CM_REQ_LOCAL_QPN);
	param->qp_type = cm_req_qp_type(req);
	param->starting_psn = cm_get(req, CM_REQ_STARTING_PSN);
	param->responder_resources = cm_get(req, CM_REQ_RESPONDER_RESOURCES);
	param->initiator_depth = cm_get(req, CM_REQ_INITIATOR_DEPTH);
	param->local_cm_response_timeout =
		cm_get(req, CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT);
	param->flow_control = cm_get(req, CM_REQ_END_TO_END_FLOW_CONTROL);
	param->remote_cm_response_timeout =
		cm_get(req, CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT);
	param->retry_count = cm_get(req, CM_REQ_RETRY_COUNT);
	param->rnr_retry_count = cm_get(req, CM_REQ_RNR_RETRY_COUNT);
	param->srq = cm_get(req, CM_REQ_SRQ);
	param->ece.vendor_id = cm_get(req, CM_REQ_VENDOR_ID);
	param->ece.attr_mod = be32_to_cpu(req->hdr.attr_mod);
	work->event.private_data = (void *)req->private_data;
}

/* The connection a REQ starts, on our new identifier. */
static void cm_req_fill(struct cm_work *work, struct cm_id_private *cm_id,
			struct cm_id_private *listen, u16 pkey_index)
{
	const struct cm_req_msg *req = (const struct cm_req_msg *)work->mad;
	struct sa_path_rec *path = &work->path[0];

	cm_id->id.cm_handler = listen->id.cm_handler;
	cm_id->id.context = listen->id.context;
	cm_id->id.service_id = req->service_id;
	cm_id->id.remote_id = req->local_comm_id;
	cm_id->tid = req->hdr.tid;
	cm_id->path = *path;
	cm_id->remote_ca_guid = req->local_ca_guid;
	cm_id->remote_qpn = cm_get(req, CM_REQ_LOCAL_QPN);
	/*
	 * The requester receives from the REQ's StartingPSN on, so we send
	 * from it; what we receive from, our REP says (ib_send_cm_rep()).
	 */
	cm_id->sq_psn = cm_get(req, CM_REQ_STARTING_PSN);
	cm_id->qp_type = cm_req_qp_type(req);
	cm_id->pkey_index = pkey_index;
	cm_id->path_mtu = path->mtu;
	cm_id->local_ack_timeout =
		cm_get(&req->primary, CM_PATH_LOCAL_ACK_TIMEOUT);
	cm_id->retry_count = cm_get(req, CM_REQ_RETRY_COUNT);
	cm_id->rnr_retry_count = cm_get(req, CM_REQ_RNR_RETRY_COUNT);
	/* what the requester issues, we accept, and the other way round */
	cm_id->responder_resources = cm_get(req, CM_REQ_INITIATOR_DEPTH);
	cm_id->initiator_depth = cm_get(req, CM_REQ_RESPONDER_RESOURCES);
	cm_id->max_cm_retries = cm_get(req, CM_REQ_MAX_CM_RETRIES);
	cm_id->timeout_ms =
		2 * cm_convert_to_ms(path->packet_life_time) +
		cm_convert_to_ms(cm_get(req, CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT));
	cm_set_state(cm_id, IB_CM_REQ_RCVD);
}

/**
 * cm_req_handler - a REQ received
 * @work: the REQ
 */
void cm_req_handler(struct cm_work *work)
{
	const struct cm_req_msg *req = (const struct cm_req_msg *)work->mad;
	struct cm_device *cm_dev = work->port->cm_dev;
	struct cm_id_private *cm_id, *cur, *listen;
	struct cm_timewait *tw;
	unsigned long flags;
	u16 pkey_index;
	bool stale;
	int reason;

	reason = cm_req_check(work, &pkey_index);
	if (reason) {
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		if (reason > 0)
			cm_issue_rej(work, reason, CM_MSG_RESPONSE_REQ, NULL, 0);
		return;
	}

	kref_get(&cm_dev->kref);
	cm_id = cm_id_alloc(cm_dev, NULL, NULL);
	if (IS_ERR(cm_id))
		goto no_resources;
	tw = cm_timewait_alloc(cm_id, GFP_KERNEL);
	if (!tw || cm_av_from_wc(work->port, &work->wc,
				 work->wc.wc_flags & IB_WC_GRH ?
				 &work->grh : NULL, &cm_id->av)) {
		kfree(tw);
		cm_id_destroy(cm_id, false);
		goto no_resources;
	}
	tw->remote_id = req->local_comm_id;
	tw->remote_ca_guid = req->local_ca_guid;
	tw->remote_qpn = cm_get(req, CM_REQ_LOCAL_QPN);

	spin_lock_irqsave(&cm_id->lock, flags);
	spin_lock(&cm.lock);
	cur = cm_remote_insert(tw, &stale);
	listen = cur ? NULL : cm_listen_find(cm_dev, req->service_id);
	if (!cur && !listen)
		cm_remote_remove(tw);
	spin_unlock(&cm.lock);
	if (cur || !listen) {
		spin_unlock_irqrestore(&cm_id->lock, flags);
		kfree(tw);
		cm_id_destroy(cm_id, false);
		if (cur && !stale) {
			cm_dup_req(work, cur);
		} else if (cur) {
			cm_stale_req(work, cur);
		} else {
			cm_conclude(work, NULL, CM_VERDICT_DROP);
			cm_issue_rej(work, IB_CM_REJ_INVALID_SERVICE_ID,
				     CM_MSG_RESPONSE_REQ, NULL, 0);
		}
		return;
	}
	cm_id->tw = tw;
	cm_req_fill(work, cm_id, listen, pkey_index);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	cm_format_req_event(work, listen);
	cm_id_get(cm_id);
	cm_deliver(cm_id, &work->event);
	cm_id_put(listen);
	return;

no_resources:
	cm_conclude(work, NULL, CM_VERDICT_DROP);
	cm_issue_rej(work, IB_CM_REJ_NO_RESOURCES, CM_MSG_RESPONSE_REQ,
		     NULL, 0);
}

/* ------------------------------------------------------------------ */
/* MRA                                                                 */
/* ------------------------------------------------------------------ */

/**
 * ib_send_cm_mra - tell the other side its message arrived, the answer
 *	will take a while
 * @cm_id: an identifier that received a REQ (responder) or a REP
 *	(requester) and has not answered it
 * @service_timeout: how long the answer may take (4.096 us * 2^value,
 *	5 bits); with IB_CM_MRA_FLAG_DELAY the MRA is only sent if the
 *	message comes again
 * @private_data: private data, or NULL
 * @private_data_len: its length, at most IB_CM_MRA_PRIVATE_DATA_SIZE
 *
 * Context: any.
 * Return: 0, -EINVAL for another state or a length too large, -ENOMEM,
 * or the errno of the send.
 */
int ib_send_cm_mra(struct ib_cm_id *cm_id, u8 service_timeout,
		   const void *private_data, u8 private_data_len)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	bool delay = service_timeout & IB_CM_MRA_FLAG_DELAY;
	enum ib_cm_state next;
	struct cm_mra_msg *mra;
	enum cm_msg_response mraed;
	unsigned long flags;
	struct cm_msg *msg;
	int ret = 0;

	if (private_data_len > IB_CM_MRA_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	switch (cm_id->state) {
	case IB_CM_REQ_RCVD:
		mraed = CM_MSG_RESPONSE_REQ;
		next = IB_CM_MRA_REQ_SENT;
		break;
	case IB_CM_REP_RCVD:
		mraed = CM_MSG_RESPONSE_REP;
		next = IB_CM_MRA_REP_SENT;
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	msg = cm_msg_alloc_av(priv, CM_MRA_COUNTER);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	mra = (struct cm_mra_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_MRA_ATTR_ID, priv->tid);
	mra->local_comm_id = cm_id->local_id;
	mra->remote_comm_id = cm_id->remote_id;
	cm_set(mra, CM_MRA_MESSAGE_MRAED, mraed);
	cm_set(mra, CM_MRA_SERVICE_TIMEOUT, service_timeout & 0x1f);
	if (private_data_len)
		memcpy(mra->private_data, private_data, private_data_len);
	cm_remember(priv, &msg->mad, delay);
	if (delay) {
		cm_msg_free(msg);
	} else {
		ret = cm_msg_post(msg);
		if (ret) {
			cm_msg_free(msg);
			goto out;
		}
	}
	cm_set_state(priv, next);
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_mra);

/* What an MRA does to its identifier (locked). */
static enum cm_verdict cm_mra_locked(struct cm_id_private *cm_id,
				     const struct cm_mra_msg *mra)
{
	u32 timeout = cm_convert_to_ms(cm_get(mra, CM_MRA_SERVICE_TIMEOUT)) +
		      2 * cm_convert_to_ms(cm_id->path.packet_life_time);
	enum ib_cm_state next;

	switch (cm_get(mra, CM_MRA_MESSAGE_MRAED)) {
	case CM_MSG_RESPONSE_REQ:
		if (cm_id->id.state == IB_CM_MRA_REQ_RCVD)
			return CM_VERDICT_DUP;
		if (cm_id->id.state != IB_CM_REQ_SENT)
			return CM_VERDICT_DROP;
		next = IB_CM_MRA_REQ_RCVD;
		break;
	case CM_MSG_RESPONSE_REP:
		if (mra->local_comm_id != cm_id->id.remote_id)
			return CM_VERDICT_DROP;
		if (cm_id->id.state == IB_CM_MRA_REP_RCVD)
			return CM_VERDICT_DUP;
		if (cm_id->id.state != IB_CM_REP_SENT)
			return CM_VERDICT_DROP;
		next = IB_CM_MRA_REP_RCVD;
		break;
	default:
		return CM_VERDICT_DROP;
	}
	if (!cm_id->msg || cm_transport->modify(cm_id->msg, timeout))
		return CM_VERDICT_DROP;
	cm_set_state(cm_id, next);
	return CM_VERDICT_DELIVER;
}

/**
 * cm_mra_handler - an MRA received: our request's answer will be late
 * @work: the MRA
 *
 * The request is waited for the MRA's service timeout plus the path's
 * round trip, from now.
 */
void cm_mra_handler(struct cm_work *work)
{
	const struct cm_mra_msg *mra = (const struct cm_mra_msg *)work->mad;
	struct cm_id_private *cm_id;
	enum cm_verdict verdict;
	unsigned long flags;

	cm_id = cm_work_id(work, mra->remote_comm_id);
	if (!cm_id) {
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	verdict = cm_mra_locked(cm_id, mra);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	work->event.event = IB_CM_MRA_RECEIVED;
	work->event.param.mra_rcvd.service_timeout =
		cm_get(mra, CM_MRA_SERVICE_TIMEOUT);
	work->event.private_data = (void *)mra->private_data;
	cm_conclude(work, cm_id, verdict);
}

/* ------------------------------------------------------------------ */
/* REP                                                                 */
/* ------------------------------------------------------------------ */

/**
 * ib_send_cm_rep - accept a connection request
 * @cm_id: the identifier the REQ made
 * @param: our side of the connection
 *
 * The REP is resent up to the requester's MaxCMRetries times, each after
 * twice the path's packet life time plus the requester's CM response
 * timeout; the answer comes as IB_CM_RTU_RECEIVED (or the QP's first
 * receive, see ib_cm_notify()) or IB_CM_REJ_RECEIVED, or IB_CM_REP_ERROR
 * when none comes.
 *
 * Context: any.
 * Return: 0, -EINVAL for another state or a length too large, -ENOMEM,
 * or the errno of the send.
 */
int ib_send_cm_rep(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	struct cm_rep_msg *rep;
	unsigned long flags;
	struct cm_msg *msg;
	int ret;

	if (param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state != IB_CM_REQ_RCVD &&
	    cm_id->state != IB_CM_MRA_REQ_SENT) {
		ret = -EINVAL;
		goto out;
	}
	msg = cm_msg_alloc_av(priv, CM_REP_COUNTER);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	rep = (struct cm_rep_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_REP_ATTR_ID, priv->tid);
	rep->hdr.attr_mod = cpu_to_be32(param->ece.attr_mod);
	rep->local_comm_id = cm_id->local_id;
	rep->remote_comm_id = cm_id->remote_id;
	cm_set(rep, CM_REP_LOCAL_QPN, param->qp_num);
	cm_set(rep, CM_REP_VENDOR_ID_H, param->ece.vendor_id >> 16);
	cm_set(rep, CM_REP_VENDOR_ID_M, param->ece.vendor_id >> 8);
	cm_set(rep, CM_REP_VENDOR_ID_L, param->ece.vendor_id);
	cm_set(rep, CM_REP_STARTING_PSN, param->starting_psn);
	rep->responder_resources = param->responder_resources;
	rep->initiator_depth = param->initiator_depth;
	cm_set(rep, CM_REP_TARGET_ACK_DELAY, priv->cm_dev->ack_delay);
	cm_set(rep, CM_REP_FAILOVER_ACCEPTED, param->failover_accepted);
	cm_set(rep, CM_REP_END_TO_END_FLOW_CONTROL, !!param->flow_control);
	cm_set(rep, CM_REP_RNR_RETRY_COUNT, param->rnr_retry_count);
	cm_set(rep, CM_REP_SRQ, !!param->srq);
	rep->local_ca_guid = priv->cm_dev->ca_guid;
	if (param->private_data_len)
		memcpy(rep->private_data, param->private_data,
		       param->private_data_len);

	ret = cm_msg_post_req(priv, msg, priv->timeout_ms,
			      priv->max_cm_retries);
	if (ret) {
		cm_msg_free(msg);
		goto out;
	}
	cm_remember(priv, &msg->mad, false);
	priv->local_qpn = param->qp_num & 0xffffff;
	/* as in the REQ, the PSN the REP names is the one its sender expects */
	priv->rq_psn = param->starting_psn & 0xffffff;
	priv->responder_resources = param->responder_resources;
	priv->initiator_depth = param->initiator_depth;
	priv->srq = param->srq;
	cm_set_state(priv, IB_CM_REP_SENT);
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rep);

/* A REP in a state past REQ_SENT (locked). */
static enum cm_verdict cm_dup_rep(struct cm_id_private *cm_id,
				  const struct cm_rep_msg *rep)
{
	if (rep->local_comm_id != cm_id->id.remote_id)
		return CM_VERDICT_DROP;
	switch (cm_id->id.state) {
	case IB_CM_ESTABLISHED:
	case IB_CM_MRA_REP_SENT:
		/* our RTU or MRA was lost */
		cm_resend_last(cm_id);
		return CM_VERDICT_DUP;
	case IB_CM_REP_RCVD:
		return CM_VERDICT_DUP;
	default:
		return CM_VERDICT_DROP;
	}
}

/* A REP from a QP another connection has, or an ID one has. */
static void cm_stale_rep(struct cm_work *work, struct cm_id_private *cur,
			 bool stale)
{
	unsigned long flags;

	cm_issue_rej(work, IB_CM_REJ_STALE_CONN, CM_MSG_RESPONSE_REP, NULL, 0);
	if (IS_ERR(cur))
		return;
	if (stale) {
		spin_lock_irqsave(&cur->lock, flags);
		if (cur->id.state == IB_CM_ESTABLISHED)
			cm_send_dreq_locked(cur, NULL, 0);
		spin_unlock_irqrestore(&cur->lock, flags);
	}
	cm_id_put(cur);
}

/*
 * What a REP does to its identifier (locked); *@cur is set to what owns
 * the remote ID or QP the REP names, if another connection does.
 */
static enum cm_verdict cm_rep_locked(struct cm_id_private *cm_id,
				     const struct cm_rep_msg *rep,
				     struct cm_id_private **cur, bool *stale)
{
	struct cm_timewait *tw = cm_id->tw;

	if (cm_id->id.state != IB_CM_REQ_SENT &&
	    cm_id->id.state != IB_CM_MRA_REQ_RCVD)
		return cm_dup_rep(cm_id, rep);
	if (!tw || cm_get(rep, CM_REP_LOCAL_QPN) <= 1)
		return CM_VERDICT_DROP;
	tw->remote_id = rep->local_comm_id;
	tw->remote_ca_guid = rep->local_ca_guid;
	tw->remote_qpn = cm_get(rep, CM_REP_LOCAL_QPN);
	spin_lock(&cm.lock);
	*cur = cm_remote_insert(tw, stale);
	spin_unlock(&cm.lock);
	if (*cur)
		return CM_VERDICT_DROP;

	cm_id->id.remote_id = rep->local_comm_id;
	cm_id->remote_ca_guid = rep->local_ca_guid;
	cm_id->remote_qpn = cm_get(rep, CM_REP_LOCAL_QPN);
	cm_id->sq_psn = cm_get(rep, CM_REP_STARTING_PSN);
	/* what the responder issues, we accept, and the other way round */
	cm_id->responder_resources = rep->initiator_depth;
	cm_id->initiator_depth = rep->responder_resources;
	cm_id->target_ack_delay = cm_get(rep, CM_REP_TARGET_ACK_DELAY);
	cm_id->local_ack_timeout =
		cm_ack_timeout(cm_id->target_ack_delay,
			       cm_id->path.packet_life_time);
	cm_id->rnr_retry_count = cm_get(rep, CM_REP_RNR_RETRY_COUNT);
	cm_msg_cancel(cm_id);
	cm_set_state(cm_id, IB_CM_REP_RCVD);
	return CM_VERDICT_DELIVER;
}

/**
 * cm_rep_handler - a REP received: the responder accepts our REQ
 * @work: the REP
 */
void cm_rep_handler(struct cm_work *work)
{
	const struct cm_rep_msg *rep = (const struct cm_rep_msg *)work->mad;
	struct ib_cm_rep_event_param *param = &work->event.param.rep_rcvd;
	struct cm_id_private *cm_id, *cur = NULL;
	enum cm_verdict verdict;
	unsigned long flags;
	bool stale = false;

	cm_id = cm_work_id(work, rep->remote_comm_id);
	if (!cm_id) {
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	verdict = cm_rep_locked(cm_id, rep, &cur, &stale);
	spin_unlock_irqrestore(&cm_id->lock, flags);
	if (cur)
		cm_stale_rep(work, cur, stale);

	work->event.event = IB_CM_REP_RECEIVED;
	param->remote_ca_guid = rep->local_ca_guid;
	param->remote_qkey = be32_to_cpu(rep->local_qkey);
	param->remote_qpn = cm_get(rep, CM_REP_LOCAL_QPN);
	param->starting_psn = cm_get(rep, CM_REP_STARTING_PSN);
	param->responder_resources = rep->responder_resources;
	param->initiator_depth = rep->initiator_depth;
	param->target_ack_delay = cm_get(rep, CM_REP_TARGET_ACK_DELAY);
	param->failover_accepted = cm_get(rep, CM_REP_FAILOVER_ACCEPTED);
	param->flow_control = cm_get(rep, CM_REP_END_TO_END_FLOW_CONTROL);
	param->rnr_retry_count = cm_get(rep, CM_REP_RNR_RETRY_COUNT);
	param->srq = cm_get(rep, CM_REP_SRQ);
	param->ece.vendor_id = cm_get(rep, CM_REP_VENDOR_ID_H) << 16 |
			       cm_get(rep, CM_REP_VENDOR_ID_M) << 8 |
			       cm_get(rep, CM_REP_VENDOR_ID_L);
	param->ece.attr_mod = be32_to_cpu(rep->hdr.attr_mod);
	work->event.private_data = (void *)rep->private_data;
	cm_conclude(work, cm_id, verdict);
}

/* ------------------------------------------------------------------ */
/* RTU                                                                 */
/* ------------------------------------------------------------------ */

/**
 * ib_send_cm_rtu - tell the responder the connection is ready to use
 * @cm_id: an identifier that received a REP
 * @private_data: private data, or NULL
 * @private_data_len: its length, at most IB_CM_RTU_PRIVATE_DATA_SIZE
 *
 * The connection is then established on our side.
 *
 * Context: any.
 * Return: 0, -EINVAL for another state or a length too large, -ENOMEM,
 * or the errno of the send.
 */
int ib_send_cm_rtu(struct ib_cm_id *cm_id, const void *private_data,
		   u8 private_data_len)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	struct cm_rtu_msg *rtu;
	unsigned long flags;
	struct cm_msg *msg;
	int ret;

	if (private_data_len > IB_CM_RTU_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state != IB_CM_REP_RCVD &&
	    cm_id->state != IB_CM_MRA_REP_SENT) {
		ret = -EINVAL;
		goto out;
	}
	msg = cm_msg_alloc_av(priv, CM_RTU_COUNTER);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	rtu = (struct cm_rtu_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_RTU_ATTR_ID, priv->tid);
	rtu->local_comm_id = cm_id->local_id;
	rtu->remote_comm_id = cm_id->remote_id;
	if (private_data_len)
		memcpy(rtu->private_data, private_data, private_data_len);
	ret = cm_msg_post(msg);
	if (ret) {
		cm_msg_free(msg);
		goto out;
	}
	cm_remember(priv, &msg->mad, false);
	cm_set_state(priv, IB_CM_ESTABLISHED);
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rtu);

/* What an RTU does to its identifier (locked). */
static enum cm_verdict cm_rtu_locked(struct cm_id_private *cm_id,
				     const struct cm_rtu_msg *rtu)
{
	if (rtu->local_comm_id != cm_id->id.remote_id)
		return CM_VERDICT_DROP;
	switch (cm_id->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_msg_cancel(cm_id);
		cm_set_state(cm_id, IB_CM_ESTABLISHED);
		return CM_VERDICT_DELIVER;
	case IB_CM_ESTABLISHED:
		return CM_VERDICT_DUP;
	default:
		return CM_VERDICT_DROP;
	}
}

/**
 * cm_rtu_handler - an RTU received: the connection is established
 * @work: the RTU
 */
void cm_rtu_handler(struct cm_work *work)
{
	const struct cm_rtu_msg *rtu = (const struct cm_rtu_msg *)work->mad;
	struct cm_id_private *cm_id;
	enum cm_verdict verdict;
	unsigned long flags;

	cm_id = cm_work_id(work, rtu->remote_comm_id);
	if (!cm_id) {
		cm_conclude(work, NULL, CM_VERDICT_DROP);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	verdict = cm_rtu_locked(cm_id, rtu);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	work->event.event = IB_CM_RTU_RECEIVED;
	work->event.private_data = (void *)rtu->private_data;
	cm_conclude(work, cm_id, verdict);
}

/* ------------------------------------------------------------------ */
/* Requests never answered                                             */
/* ------------------------------------------------------------------ */

/**
 * cm_send_error_locked - our request was never answered
 * @cm_id: its identifier, locked, in the state the request failed in
 * @event: set to the event to deliver
 *
 * A REQ or REP ends the connection attempt (the other side is sent a REJ
 * with reason IB_CM_REJ_TIMEOUT and our CA GUID), a DREQ goes to
 * TIMEWAIT, a SIDR_REQ back to IDLE; the consumer gets the *_ERROR event.
 *
 * Return: whether @event is to be delivered.
 */
bool cm_send_error_locked(struct cm_id_private *cm_id,
			  struct ib_cm_event *event)
{
	__be64 *guid = &cm_id->cm_dev->ca_guid;

	switch (cm_id->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		event->event = IB_CM_REQ_ERROR;
		cm_post_rej(cm_id, CM_MSG_RESPONSE_OTHER, IB_CM_REJ_TIMEOUT,
			    guid, sizeof(*guid), NULL, 0);
		cm_reset_to_idle(cm_id);
		return true;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		event->event = IB_CM_REP_ERROR;
		cm_post_rej(cm_id, CM_MSG_RESPONSE_OTHER, IB_CM_REJ_TIMEOUT,
			    guid, sizeof(*guid), NULL, 0);
		cm_reset_to_idle(cm_id);
		return true;
	case IB_CM_DREQ_SENT:
		event->event = IB_CM_DREQ_ERROR;
		cm_enter_timewait(cm_id);
		return true;
	case IB_CM_SIDR_REQ_SENT:
		event->event = IB_CM_SIDR_REQ_ERROR;
		cm_reset_to_idle(cm_id);
		return true;
	default:
		return false;
	}
}
