// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CM's messages: out through the MAD layer and back as completions,
 * in from the CM agents through the work queue to the handler of their
 * attribute, and the delivery of events to consumers.  Also the counters
 * of each port (cm_sysfs.c shows them).
 *
 * Out.  A message (struct cm_msg) holds its MAD and destination and, for
 * an identifier's message, a reference on it.  cm_transport posts it: by
 * default through the port's agent with its own AH, under the port's
 * lock, so that no post races with the agent's unregistration; the
 * KUnit suite puts its own transport in.  A request that waits for an
 * answer (REQ, REP, DREQ, SIDR_REQ) becomes its identifier's msg and is
 * resent by the MAD layer (same TID) until the answer cancels it or the
 * retries run out.  Every message ends in cm_msg_done(): it counts what
 * went out (cm_tx_msgs counts resends too, cm_tx_retries only them) and,
 * if it was still the identifier's msg, its answer never came: the
 * identifier's event work reports the error in the state it had then.
 *
 * In.  The receive handler checks the method and queues the MAD; in
 * cm.wq it is counted in cm_rx_msgs by attribute and handed to the
 * handler of the attribute.  Handlers count what they drop in
 * cm_rx_dropped and the duplicates in cm_rx_duplicates.  MADs of other
 * attributes are dropped and counted in cm_rx_dropped/other.
 *
 * Events.  Every consumer callback runs from cm.wq, through
 * cm_deliver(), which drops the caller's reference on the identifier or
 * destroys the identifier if the callback asks to.
 *
 * Locking: the transport is called under the identifier's lock for its
 * messages; it takes the port's lock.  See cm_priv.h.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>

#include "cm_priv.h"

/* ------------------------------------------------------------------ */
/* Counters                                                            */
/* ------------------------------------------------------------------ */

/**
 * cm_count - count one message
 * @port: the port
 * @group: which counter group
 * @counter: which message (&enum cm_counter_index)
 */
void cm_count(struct cm_port *port, enum cm_counter_group group, u8 counter)
{
	atomic_long_inc(&port->counters[group][counter]);
}

static u8 cm_attr_counter(__be16 attr_id)
{
	u16 attr = be16_to_cpu(attr_id);

	if (attr < 0x10 || attr > 0x1a)
		return CM_OTHER_COUNTER;
	return attr - 0x10;
}

/* ------------------------------------------------------------------ */
/* The MAD layer as transport                                          */
/* ------------------------------------------------------------------ */

static int cm_mad_post(struct cm_msg *msg)
{
	struct cm_port *port = msg->port;
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *agent;
	unsigned long flags;
	struct ib_ah *ah;
	int ret;

	spin_lock_irqsave(&port->lock, flags);
	agent = port->mad_agent;
	if (!agent) {
		ret = -ENODEV;
		goto out;
	}
	ah = rdma_create_ah(agent->qp->pd, &msg->ah_attr, 0);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto out;
	}
	buf = ib_create_send_mad(agent, msg->remote_qpn, msg->pkey_index, 0,
				 IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA, GFP_ATOMIC,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto err_ah;
	}
	memcpy(buf->mad, &msg->mad, sizeof(msg->mad));
	buf->ah = ah;
	buf->timeout_ms = msg->timeout_ms;
	buf->retries = msg->retries;
	buf->context[0] = msg;
	msg->send_buf = buf;
	ret = ib_post_send_mad(buf, NULL);
	if (ret)
		goto err_buf;
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;

err_buf:
	msg->send_buf = NULL;
	ib_free_send_mad(buf);
err_ah:
	rdma_destroy_ah(ah, 0);
out:
	spin_unlock_irqrestore(&port->lock, flags);
	return ret;
}

static void cm_mad_cancel(struct cm_msg *msg)
{
	if (msg->send_buf)
		ib_cancel_mad(msg->send_buf);
}

static int cm_mad_modify(struct cm_msg *msg, u32 timeout_ms)
{
	if (!msg->send_buf)
		return -EINVAL;
	return ib_modify_mad(msg->send_buf, timeout_ms);
}

const struct cm_transport cm_mad_transport = {
	.post = cm_mad_post,
	.cancel = cm_mad_cancel,
	.modify = cm_mad_modify,
};

const struct cm_transport *cm_transport = &cm_mad_transport;

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/**
 * cm_format_hdr - the MAD header of a CM message
 * @mad: the MAD
 * @attr_id: the message's attribute ID
 * @tid: the TID
 */
void cm_format_hdr(struct ib_mad *mad, __be16 attr_id, __be64 tid)
{
	struct ib_mad_hdr *hdr = &mad->mad_hdr;

	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_CM;
	hdr->class_version = IB_CM_CLASS_VERSION;
	hdr->method = IB_MGMT_METHOD_SEND;
	hdr->attr_id = attr_id;
	hdr->tid = tid;
}

/**
 * cm_msg_alloc - a new, zeroed message
 * @port: the port it leaves by
 * @cm_id: its identifier (referenced by the message), or NULL
 * @counter: what it is (&enum cm_counter_index)
 *
 * Context: any.
 * Return: the message or NULL.
 */
struct cm_msg *cm_msg_alloc(struct cm_port *port,
			    struct cm_id_private *cm_id, u8 counter)
{
	struct cm_msg *msg = kzalloc(sizeof(*msg), GFP_ATOMIC);

	if (!msg)
		return NULL;
	msg->port = port;
	msg->remote_qpn = 1;
	msg->counter = counter;
	INIT_LIST_HEAD(&msg->test_entry);
	if (cm_id) {
		cm_id_get(cm_id);
		msg->cm_id = cm_id;
	}
	return msg;
}

/**
 * cm_msg_alloc_av - a new message of an identifier, to the other side's CM
 * @cm_id: the identifier, with its av set
 * @counter: what it is
 *
 * Return: the message or NULL.
 */
struct cm_msg *cm_msg_alloc_av(struct cm_id_private *cm_id, u8 counter)
{
	struct cm_msg *msg = cm_msg_alloc(cm_id->av.port, cm_id, counter);

	if (!msg)
		return NULL;
	msg->ah_attr = cm_id->av.ah_attr;
	msg->pkey_index = cm_id->av.pkey_index;
	return msg;
}

/**
 * cm_msg_alloc_reply - a new message answering a received MAD
 * @work: what was received
 * @counter: what the answer is
 *
 * The answer goes back to the sender's port and QP, with the P_Key it
 * came with, and belongs to no identifier.
 *
 * Return: the message or NULL.
 */
struct cm_msg *cm_msg_alloc_reply(struct cm_work *work, u8 counter)
{
	struct cm_msg *msg;
	struct cm_av av;

	if (cm_av_from_wc(work->port, &work->wc,
			  work->wc.wc_flags & IB_WC_GRH ? &work->grh : NULL,
			  &av))
		return NULL;
	msg = cm_msg_alloc(work->port, NULL, counter);
	if (!msg)
		return NULL;
	msg->ah_attr = av.ah_attr;
	msg->pkey_index = av.pkey_index;
	msg->remote_qpn = work->wc.src_qp;
	return msg;
}

/**
 * cm_msg_free - free a message that is not posted (or whose send ended)
 * @msg: the message
 */
void cm_msg_free(struct cm_msg *msg)
{
	if (msg->cm_id)
		cm_id_put(msg->cm_id);
	kfree(msg);
}

/**
 * cm_msg_post - send a message that expects no answer
 * @msg: the message; on success it belongs to the transport
 *
 * Return: 0 or the transport's errno (the caller still owns @msg).
 */
int cm_msg_post(struct cm_msg *msg)
{
	return cm_transport->post(msg);
}

/**
 * cm_msg_post_req - send an identifier's request and wait for its answer
 * @cm_id: the identifier, locked, without a msg
 * @msg: the request
 * @timeout_ms: how long to wait for the answer each time
 * @retries: how many times to resend
 *
 * Return: 0 (@msg is then @cm_id's msg) or the transport's errno.
 */
int cm_msg_post_req(struct cm_id_private *cm_id, struct cm_msg *msg,
		    int timeout_ms, int retries)
{
	int ret;

	lockdep_assert_held(&cm_id->lock);
	msg->timeout_ms = max(timeout_ms, 1);
	msg->retries = retries;
	ret = cm_transport->post(msg);
	if (!ret)
		cm_id->msg = msg;
	return ret;
}

/**
 * cm_msg_cancel - stop waiting for the answer to an identifier's request
 * @cm_id: the identifier, locked
 *
 * Its send ends soon, and ends quietly.
 */
void cm_msg_cancel(struct cm_id_private *cm_id)
{
	lockdep_assert_held(&cm_id->lock);
	if (!cm_id->msg)
		return;
	cm_transport->cancel(cm_id->msg);
	cm_id->msg = NULL;
}

/**
 * cm_msg_done - a message's send ended
 * @msg: the message
 * @status: how; for a request, anything but its cancellation means its
 *	answer never came
 *
 * Counts it, reports a request that is still its identifier's msg to the
 * identifier's event work, and frees it.
 *
 * Context: process context.
 */
VISIBLE_IF_KUNIT void cm_msg_done(struct cm_msg *msg, enum ib_wc_status status)
{
	struct ib_mad_send_buf *buf = msg->send_buf;
	struct cm_id_private *cm_id = msg->cm_id;
	unsigned long flags;
	int retries = buf ? buf->retries : msg->retries;

	if (status != IB_WC_RESP_TIMEOUT_ERR && !buf)
		retries = 0;
	atomic_long_add(1 + retries,
			&msg->port->counters[CM_XMIT][msg->counter]);
	if (retries)
		atomic_long_add(retries,
				&msg->port->counters[CM_XMIT_RETRIES][msg->counter]);

	if (cm_id) {
		spin_lock_irqsave(&cm_id->lock, flags);
		if (cm_id->msg == msg) {
			cm_id->msg = NULL;
			if (!cm_id->destroying) {
				cm_id->err_pending = true;
				cm_id->err_seq = cm_id->seq;
				cm_id->err_status = status == IB_WC_SUCCESS ?
						    IB_WC_GENERAL_ERR : status;
				cm_id->err_counter = msg->counter;
				queue_work(cm.wq, &cm_id->event_work);
			}
		}
		msg->send_buf = NULL;
		spin_unlock_irqrestore(&cm_id->lock, flags);
	}
	if (buf) {
		rdma_destroy_ah(buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(buf);
	}
	cm_msg_free(msg);
}
EXPORT_SYMBOL_IF_KUNIT(cm_msg_done);

/**
 * cm_send_handler - the CM agent's send handler
 * @agent: the agent
 * @send_wc: how a message's send ended
 *
 * Context: the MAD layer's, process context.
 */
void cm_send_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_wc *send_wc)
{
	struct cm_msg *msg = send_wc->send_buf->context[0];

	cm_msg_done(msg, send_wc->status);
}

/**
 * cm_remember - keep a copy of an answer we sent, for duplicates
 * @cm_id: the identifier, locked
 * @mad: the answer (REP, MRA, RTU, DREP)
 * @pending: it is an MRA held back until a duplicate comes
 *
 * Return: 0 or -ENOMEM (duplicates then go unanswered).
 */
int cm_remember(struct cm_id_private *cm_id, const struct ib_mad *mad,
		bool pending)
{
	lockdep_assert_held(&cm_id->lock);
	if (!cm_id->last) {
		cm_id->last = kmalloc(sizeof(*cm_id->last), GFP_ATOMIC);
		if (!cm_id->last)
			return -ENOMEM;
	}
	memcpy(cm_id->last, mad, sizeof(*mad));
	cm_id->last_pending = pending;
	return 0;
}

/**
 * cm_resend_last - answer a duplicate with the answer we sent before
 * @cm_id: the identifier, locked
 *
 * Sent once, without waiting for anything.
 */
void cm_resend_last(struct cm_id_private *cm_id)
{
	struct cm_msg *msg;

	lockdep_assert_held(&cm_id->lock);
	if (!cm_id->last || !cm_id->av.port)
		return;
	msg = cm_msg_alloc_av(cm_id,
			      cm_attr_counter(cm_id->last->mad_hdr.attr_id));
	if (!msg)
		return;
	memcpy(&msg->mad, cm_id->last, sizeof(msg->mad));
	if (cm_msg_post(msg))
		cm_msg_free(msg);
	else
		cm_id->last_pending = false;
}

/**
 * cm_issue_rej - reject a received message without an identifier
 * @work: the message
 * @reason: the Reason
 * @rejected: MessageRejected
 * @ari: additional rejection information, or NULL
 * @ari_len: its length, at most IB_CM_REJ_ARI_LENGTH
 *
 * The REJ names the sender's ID as Remote Communication ID and our ID as
 * the one the message named (0 for a REQ).
 */
void cm_issue_rej(struct cm_work *work, enum ib_cm_rej_reason reason,
		  enum cm_msg_response rejected, const void *ari, u8 ari_len)
{
	const struct cm_rep_msg *in = (const struct cm_rep_msg *)work->mad;
	struct cm_rej_msg *rej;
	struct cm_msg *msg;

	msg = cm_msg_alloc_reply(work, CM_REJ_COUNTER);
	if (!msg)
		return;
	rej = (struct cm_rej_msg *)&msg->mad;
	cm_format_hdr(&msg->mad, CM_REJ_ATTR_ID, in->hdr.tid);
	rej->remote_comm_id = in->local_comm_id;
	if (in->hdr.attr_id != CM_REQ_ATTR_ID)
		rej->local_comm_id = in->remote_comm_id;
	cm_set(rej, CM_REJ_MESSAGE_REJECTED, rejected);
	rej->reason = cpu_to_be16(reason);
	if (ari && ari_len) {
		ari_len = min_t(u8, ari_len, IB_CM_REJ_ARI_LENGTH);
		cm_set(rej, CM_REJ_REJECTED_INFO_LENGTH, ari_len);
		memcpy(rej->ari, ari, ari_len);
	}
	if (cm_msg_post(msg))
		cm_msg_free(msg);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/**
 * cm_deliver - call the consumer's handler of an identifier
 * @cm_id: the identifier; the caller's reference is consumed
 * @event: the event
 *
 * Context: cm.wq, no lock held.
 */
void cm_deliver(struct cm_id_private *cm_id, struct ib_cm_event *event)
{
	if (cm_id->id.cm_handler(&cm_id->id, event))
		cm_id_destroy(cm_id, true);
	else
		cm_id_put(cm_id);
}

/**
 * cm_conclude - finish the handling of a received message
 * @work: the message; for CM_VERDICT_DELIVER its event is filled in
 * @cm_id: the identifier it was for (its reference is consumed), or NULL
 * @verdict: deliver the event, or count the message as dropped or as a
 *	duplicate
 *
 * Context: cm.wq, no lock held.
 */
void cm_conclude(struct cm_work *work, struct cm_id_private *cm_id,
		 enum cm_verdict verdict)
{
	if (verdict == CM_VERDICT_DELIVER && cm_id) {
		cm_deliver(cm_id, &work->event);
		return;
	}
	cm_count(work->port, verdict == CM_VERDICT_DUP ? CM_RECV_DUPLICATES :
							  CM_RECV_DROPPED,
		 work->counter);
	if (cm_id)
		cm_id_put(cm_id);
}

/**
 * cm_queue_established - have IB_CM_USER_ESTABLISHED delivered
 * @cm_id: the identifier, locked, just established by ib_cm_notify()
 */
void cm_queue_established(struct cm_id_private *cm_id)
{
	lockdep_assert_held(&cm_id->lock);
	if (cm_id->destroying)
		return;
	cm_id->est_pending = true;
	cm_id->est_seq = cm_id->seq;
	queue_work(cm.wq, &cm_id->event_work);
}

/**
 * cm_id_event_work - deliver an identifier's pending events
 * @w: its event_work
 *
 * An event whose state has changed since it was noted is dropped.
 */
void cm_id_event_work(struct work_struct *w)
{
	struct cm_id_private *cm_id =
		container_of(w, struct cm_id_private, event_work);
	struct ib_cm_event event = {};
	unsigned long flags;

	bool deliver = false;

	if (!refcount_inc_not_zero(&cm_id->refcount))
		return;
	spin_lock_irqsave(&cm_id->lock, flags);
	/* one event a run: come back for the other */
	if (cm_id->err_pending && cm_id->est_pending && !cm_id->destroying)
		queue_work(cm.wq, &cm_id->event_work);
	if (cm_id->err_pending) {
		cm_id->err_pending = false;
		if (cm_id->err_seq == cm_id->seq) {
			deliver = cm_send_error_locked(cm_id, &event);
			event.param.send_status = cm_id->err_status;
		}
	} else if (cm_id->est_pending) {
		cm_id->est_pending = false;
		if (cm_id->est_seq == cm_id->seq &&
		    cm_id->id.state == IB_CM_ESTABLISHED) {
			event.event = IB_CM_USER_ESTABLISHED;
			deliver = true;
		}
	}
	spin_unlock_irqrestore(&cm_id->lock, flags);
	if (deliver)
		cm_deliver(cm_id, &event);
	else
		cm_id_put(cm_id);
}

/* ------------------------------------------------------------------ */
/* Receiving                                                           */
/* ------------------------------------------------------------------ */

static void cm_work_free(struct cm_work *work)
{
	if (work->recv_wc)
		ib_free_recv_mad(work->recv_wc);
	else
		kfree(work->mad);
	cm_dev_put(work->port->cm_dev);
	kfree(work);
}

static void cm_recv_work(struct work_struct *w)
{
	struct cm_work *work = container_of(w, struct cm_work, work);

	cm_count(work->port, CM_RECV, work->counter);
	switch (work->counter) {
	case CM_REQ_COUNTER:
		cm_req_handler(work);
		break;
	case CM_MRA_COUNTER:
		cm_mra_handler(work);
		break;
	case CM_REJ_COUNTER:
		cm_rej_handler(work);
		break;
	case CM_REP_COUNTER:
		cm_rep_handler(work);
		break;
	case CM_RTU_COUNTER:
		cm_rtu_handler(work);
		break;
	case CM_DREQ_COUNTER:
		cm_dreq_handler(work);
		break;
	case CM_DREP_COUNTER:
		cm_drep_handler(work);
		break;
	case CM_SIDR_REQ_COUNTER:
		cm_sidr_req_handler(work);
		break;
	case CM_SIDR_REP_COUNTER:
		cm_sidr_rep_handler(work);
		break;
	case CM_LAP_COUNTER:
		cm_lap_handler(work);
		break;
	case CM_APR_COUNTER:
		cm_apr_handler(work);
		break;
	}
	cm_work_free(work);
}

/* Queue a received MAD for cm.wq; false if it is dropped. */
static bool cm_queue_recv(struct cm_port *port, struct cm_work *work)
{
	const struct ib_mad_hdr *hdr = &work->mad->mad_hdr;

	work->port = port;
	work->counter = cm_attr_counter(hdr->attr_id);
	if (hdr->method != IB_MGMT_METHOD_SEND ||
	    hdr->class_version != IB_CM_CLASS_VERSION ||
	    work->counter == CM_OTHER_COUNTER) {
		cm_count(port, CM_RECV_DROPPED, work->counter);
		return false;
	}
	kref_get(&port->cm_dev->kref);
	INIT_WORK(&work->work, cm_recv_work);
	queue_work(cm.wq, &work->work);
	return true;
}

/**
 * cm_recv_handler - the CM agent's receive handler
 * @agent: the agent
 * @send_buf: the request a response answers: never ours to take
 * @recv_wc: the MAD
 *
 * Context: the MAD layer's.
 */
void cm_recv_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *recv_wc)
{
	struct cm_port *port = agent->context;
	struct cm_work *work;

	work = kzalloc(sizeof(*work), GFP_ATOMIC);
	if (!work) {
		cm_count(port, CM_RECV_DROPPED, CM_OTHER_COUNTER);
		ib_free_recv_mad(recv_wc);
		return;
	}
	work->recv_wc = recv_wc;
	work->mad = recv_wc->recv_buf.mad;
	work->wc = *recv_wc->wc;
	if ((work->wc.wc_flags & IB_WC_GRH) && recv_wc->recv_buf.grh)
		work->grh = *recv_wc->recv_buf.grh;
	else
		work->wc.wc_flags &= ~IB_WC_GRH;
	if (send_buf || recv_wc->mad_len != IB_MGMT_MAD_SIZE ||
	    !cm_queue_recv(port, work)) {
		if (send_buf || recv_wc->mad_len != IB_MGMT_MAD_SIZE)
			cm_count(port, CM_RECV_DROPPED, CM_OTHER_COUNTER);
		ib_free_recv_mad(recv_wc);
		kfree(work);
	}
}

/* ------------------------------------------------------------------ */
/* For the KUnit suites                                                */
/* ------------------------------------------------------------------ */

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * cm_recv_inject - handle a MAD as if the port's agent received it
 * @port: the port
 * @mad: the MAD (copied)
 * @wc: its work completion (copied; no GRH)
 */
void cm_recv_inject(struct cm_port *port, const struct ib_mad *mad,
		    const struct ib_wc *wc)
{
	struct cm_work *work = kzalloc(sizeof(*work), GFP_KERNEL);

	if (!work)
		return;
	work->mad = kmemdup(mad, sizeof(*mad), GFP_KERNEL);
	if (!work->mad) {
		kfree(work);
		return;
	}
	work->wc = *wc;
	work->wc.wc_flags &= ~IB_WC_GRH;
	if (!cm_queue_recv(port, work)) {
		kfree(work->mad);
		kfree(work);
	}
}
EXPORT_SYMBOL_IF_KUNIT(cm_recv_inject);

/**
 * cm_flush - wait until cm.wq has done everything queued so far
 */
void cm_flush(void)
{
	flush_workqueue(cm.wq);
}
EXPORT_SYMBOL_IF_KUNIT(cm_flush);

/**
 * cm_set_transport - replace how messages leave
 * @transport: the transport, NULL for the MAD layer
 */
void cm_set_transport(const struct cm_transport *transport)
{
	WRITE_ONCE(cm_transport, transport ? transport : &cm_mad_transport);
}
EXPORT_SYMBOL_IF_KUNIT(cm_set_transport);
#endif
