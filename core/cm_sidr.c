// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Service ID resolution (IBA 12.11): a UD consumer asks the CM of a port
 * which QP and Q_Key serve a service ID.  The requester goes IDLE ->
 * SIDR_REQ_SENT -> IDLE (SIDR_REP received, or IB_CM_SIDR_REQ_ERROR); the
 * responder's listener gets a new identifier in SIDR_REQ_RCVD, which
 * answers with ib_send_cm_sidr_rep() and is IDLE again.  A SIDR_REQ for a
 * service nobody listens to is answered IB_SIDR_UNSUPPORTED; one that
 * comes again (same RequestID from the same LID) while the first is
 * being answered is a duplicate and dropped.
 *
 * Locking: the identifier's lock; cm.lock for the table of requests
 * being answered (cm.sidrs).
 */
#include "cm_priv.h"

static u32 cm_sidr_key(__be32 request_id, u32 lid)
{
	return be32_to_cpu(request_id) ^ lid;
}

/**
 * cm_sidr_remove - take an identifier out of the requests being answered
 * @cm_id: the identifier, locked
 */
void cm_sidr_remove(struct cm_id_private *cm_id)
{
	lockdep_assert_held(&cm_id->lock);
	if (!cm_id->sidr_hashed)
		return;
	spin_lock(&cm.lock);
	hash_del(&cm_id->sidr_node);
	spin_unlock(&cm.lock);
	cm_id->sidr_hashed = false;
}

/**
 * ib_send_cm_sidr_req - ask which QP serves a service
 * @cm_id: an idle identifier
 * @param: the path to the other side, the service, how long to wait
 *
 * The answer comes as IB_CM_SIDR_REP_RECEIVED, or IB_CM_SIDR_REQ_ERROR
 * after @param->max_cm_retries resends of @param->timeout_ms each.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a bad parameter or an identifier not idle,
 * -ENOENT for a P_Key not in the table, -ENODEV, -ENOMEM, or the errno
 * of the send.
 */
int ib_send_cm_sidr_req(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_req_param *param)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	struct cm_sidr_req_msg *sreq;
	unsigned long flags;
	struct cm_msg *msg;
	struct cm_av av;
	int ret;

	if (!param->path ||
	    param->private_data_len > IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	if (READ_ONCE(priv->cm_dev->going_down))
		return -ENODEV;
	ret = cm_av_from_path(priv->cm_dev, param->path, &av);
	if (ret)
		return ret;

	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state != IB_CM_IDLE || priv->destroying) {
		ret = -EINVAL;
		goto out;
	}
	priv->av = av;
	msg = cm_msg_alloc_av(priv, CM_SIDR_REQ_COUNTER);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	cm_id->service_id = param->service_id;
	priv->path = *param->path;
	priv->tid = cm_form_tid(av.port);
	sreq = (struct cm_sidr_req_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_SIDR_REQ_ATTR_ID, priv->tid);
	sreq->request_id = cm_id->local_id;
	sreq->pkey = param->path->pkey;
	sreq->service_id = param->service_id;
	if (param->private_data_len)
		memcpy(sreq->private_data, param->private_data,
		       param->private_data_len);
	ret = cm_msg_post_req(priv, msg, min_t(unsigned long,
					       param->timeout_ms, INT_MAX),
			      param->max_cm_retries);
	if (ret) {
		cm_msg_free(msg);
		goto out;
	}
	cm_set_state(priv, IB_CM_SIDR_REQ_SENT);
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_req);

/* Fill a SIDR_REP answering a SIDR_REQ with TID @tid and ID @request_id. */
static void cm_format_sidr_rep(struct cm_sidr_rep_msg *srep, __be64 tid,
			       __be32 request_id, __be64 service_id,
			       struct ib_cm_sidr_rep_param *param)
{
	cm_format_hdr((struct ib_mad *)srep, CM_SIDR_REP_ATTR_ID, tid);
	srep->request_id = request_id;
	srep->status = param->status;
	srep->service_id = service_id;
	if (param->status != IB_SIDR_SUCCESS)
		return;
	cm_set(srep, CM_SIDR_REP_QPN, param->qp_num);
	srep->vendor_id_h = cpu_to_be16(param->ece.vendor_id >> 8);
	cm_set(srep, CM_SIDR_REP_VENDOR_ID_L, param->ece.vendor_id);
	srep->qkey = cpu_to_be32(param->qkey);
	if (param->info_length) {
		srep->info_length = param->info_length;
		memcpy(srep->info, param->info, param->info_length);
	}
	if (param->private_data_len)
		memcpy(srep->private_data, param->private_data,
		       param->private_data_len);
}

/**
 * cm_send_sidr_rep_locked - answer the SIDR_REQ an identifier received
 * @cm_id: the identifier, locked
 * @param: the answer
 *
 * The identifier is IDLE afterwards, whether or not the answer could be
 * sent.
 *
 * Return: 0, -EINVAL in another state or for lengths too large (nothing
 * changes), or the errno of the send.
 */
int cm_send_sidr_rep_locked(struct cm_id_private *cm_id,
			    struct ib_cm_sidr_rep_param *param)
{
	struct cm_msg *msg;
	int ret = -ENOMEM;

	lockdep_assert_held(&cm_id->lock);
	if (cm_id->id.state != IB_CM_SIDR_REQ_RCVD ||
	    param->info_length > IB_CM_SIDR_REP_INFO_LENGTH ||
	    (param->info_length && !param->info) ||
	    param->private_data_len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	msg = cm_msg_alloc_av(cm_id, CM_SIDR_REP_COUNTER);
	if (msg) {
		cm_format_sidr_rep((struct cm_sidr_rep_msg *)&msg->mad,
				   cm_id->tid, cm_id->id.remote_id,
				   cm_id->id.service_id, param);
		ret = cm_msg_post(msg);
		if (ret)
			cm_msg_free(msg);
	}
	cm_sidr_remove(cm_id);
	cm_reset_to_idle(cm_id);
	return ret;
}

/**
 * ib_send_cm_sidr_rep - answer a service ID resolution request
 * @cm_id: an identifier that got IB_CM_SIDR_REQ_RECEIVED
 * @param: the answer: status, and for IB_SIDR_SUCCESS the QP and Q_Key
 *
 * Context: any.
 * Return: 0, -EINVAL for another state or lengths too large, or the
 * errno of the send (the identifier is IDLE all the same).
 */
int ib_send_cm_sidr_rep(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_rep_param *param)
{
	struct cm_id_private *priv = to_cm_id(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&priv->lock, flags);
	ret = cm_send_sidr_rep_locked(priv, param);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_rep);

/* Answer a SIDR_REQ nobody takes with @status. */
static void cm_issue_sidr_rep(struct cm_work *work,
			      enum ib_cm_sidr_status status)
{
	const struct cm_sidr_req_msg *sreq =
		(const struct cm_sidr_req_msg *)work->mad;
	struct ib_cm_sidr_rep_param param = { .status = status };
	struct cm_msg *msg;

	msg = cm_msg_alloc_reply(work, CM_SIDR_REP_COUNTER);
	if (!msg)
		return;
	cm_format_sidr_rep((struct cm_sidr_rep_msg *)&msg->mad,
			   sreq->hdr.tid, sreq->request_id, sreq->service_id,
			   &param);
	if (cm_msg_post(msg))
		cm_msg_free(msg);
}

/* Caller holds cm.lock. */
static bool cm_sidr_find(__be32 request_id, u32 lid)
{
	struct cm_id_private *cur;

	hash_for_each_possible(cm.sidrs, cur, sidr_node,
			       cm_sidr_key(request_id, lid))
		if (cur->id.remote_id == request_id && cur->sidr_lid == lid)
			return true;
	return false;
}

/**
 * cm_sidr_req_handler - a SIDR_REQ received
 * @work: the SIDR_REQ
 */
void cm_sidr_req_handler(struct cm_work *work)
{
	const struct cm_sidr_req_msg *sreq =
		(const struct cm_sidr_req_msg *)work->mad;
	struct ib_cm_sidr_req_event_param *param =
		&work->event.param.sidr_req_rcvd;
	struct cm_device *cm_dev = work->port->cm_dev;
	struct cm_id_private *cm_id, *listen;
	unsigned long flags;
	u16 bth_pkey = 0;
	bool dup;

	kref_get(&cm_dev->kref);
	cm_id = cm_id_alloc(cm_dev, NULL, NULL);
	if (IS_ERR(cm_id))
		goto drop;
	if (cm_av_from_wc(work->port, &work->wc,
			  work->wc.wc_flags & IB_WC_GRH ? &work->grh : NULL,
			  &cm_id->av)) {
		cm_id_destroy(cm_id, false);
		goto drop;
	}

	spin_lock_irqsave(&cm_id->lock, flags);
	cm_id->id.remote_id = sreq->request_id;
	cm_id->id.service_id = sreq->service_id;
	cm_id->sidr_lid = work->wc.slid;
	cm_id->tid = sreq->hdr.tid;
	spin_lock(&cm.lock);
	dup = cm_sidr_find(sreq->request_id, work->wc.slid);
	listen = dup ? NULL : cm_listen_find(cm_dev, sreq->service_id);
	if (listen) {
		hash_add(cm.sidrs, &cm_id->sidr_node,
			 cm_sidr_key(sreq->request_id, work->wc.slid));
		cm_id->sidr_hashed = true;
	}
	spin_unlock(&cm.lock);
	if (!listen) {
		spin_unlock_irqrestore(&cm_id->lock, flags);
		cm_id_destroy(cm_id, false);
		if (dup) {
			cm_count(work->port, CM_RECV_DUPLICATES, work->counter);
		} else {
			cm_count(work->port, CM_RECV_DROPPED, work->counter);
			cm_issue_sidr_rep(work, IB_SIDR_UNSUPPORTED);
		}
		return;
	}
	cm_id->id.cm_handler = listen->id.cm_handler;
	cm_id->id.context = listen->id.context;
	cm_set_state(cm_id, IB_CM_SIDR_REQ_RCVD);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	ib_get_cached_pkey(cm_dev->ib_device, work->port->port_num,
			   work->wc.pkey_index, &bth_pkey);
	work->event.event = IB_CM_SIDR_REQ_RECEIVED;
	param->listen_id = &listen->id;
	param->service_id = sreq->service_id;
	param->bth_pkey = bth_pkey;
	param->port = work->port->port_num;
	param->pkey = be16_to_cpu(sreq->pkey);
	work->event.private_data = (void *)sreq->private_data;
	cm_id_get(cm_id);
	cm_deliver(cm_id, &work->event);
	cm_id_put(listen);
	return;

drop:
	cm_count(work->port, CM_RECV_DROPPED, work->counter);
}

/**
 * cm_sidr_rep_handler - a SIDR_REP received: the answer to our SIDR_REQ
 * @work: the SIDR_REP
 */
void cm_sidr_rep_handler(struct cm_work *work)
{
	const struct cm_sidr_rep_msg *srep =
		(const struct cm_sidr_rep_msg *)work->mad;
	struct ib_cm_sidr_rep_event_param *param =
		&work->event.param.sidr_rep_rcvd;
	struct cm_id_private *cm_id;
	unsigned long flags;

	cm_id = cm_id_find(srep->request_id, 0, false);
	if (!cm_id) {
		cm_count(work->port, CM_RECV_DROPPED, work->counter);
		return;
	}
	spin_lock_irqsave(&cm_id->lock, flags);
	if (cm_id->id.state != IB_CM_SIDR_REQ_SENT ||
	    cm_id->av.port != work->port || srep->hdr.tid != cm_id->tid) {
		spin_unlock_irqrestore(&cm_id->lock, flags);
		cm_count(work->port, CM_RECV_DROPPED, work->counter);
		cm_id_put(cm_id);
		return;
	}
	cm_msg_cancel(cm_id);
	cm_reset_to_idle(cm_id);
	spin_unlock_irqrestore(&cm_id->lock, flags);

	work->event.event = IB_CM_SIDR_REP_RECEIVED;
	param->status = srep->status;
	param->qkey = be32_to_cpu(srep->qkey);
	param->qpn = cm_get(srep, CM_SIDR_REP_QPN);
	param->info = (void *)srep->info;
	param->info_len = min_t(u8, srep->info_length,
				IB_CM_SIDR_REP_INFO_LENGTH);
	work->event.private_data = (void *)srep->private_data;
	cm_deliver(cm_id, &work->event);
}
