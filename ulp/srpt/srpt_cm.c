// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: logins and the life of a channel.
 *
 * An SRP_LOGIN_REQ comes in the private data of an IB CM REQ sent to the
 * service ID, or of an RDMA CM connect request to rdma_cm_port.  It is
 * checked (IU length, target port ID, descriptor formats), the port must
 * be enabled, and LIO must know the initiator (an ACL named by its port
 * ID in the GID form's TPGs, or by its address in the GUID form's);
 * otherwise an SRP_LOGIN_REJ with the reason goes back in a REJ.  An
 * accepted login gets a CQ, an RC QP (in RTS before the REP: the first
 * IU may come before the RTU), its receive buffers, a LIO session, and
 * an SRP_LOGIN_RSP in the REP with the receive queue as initial credits.
 * A single-channel login closes the initiator's other channels.
 *
 * A whole login runs under the port's mutex, which also guards ch_list,
 * the WWN slots and the removal flag, so a device going away sees every
 * channel that will exist.  Teardown: a DREQ (sent or received), a
 * logout, a REJ, a timeout, LIO closing the session or the device going
 * away puts the channel in CH_DRAINING once and queues the release work,
 * which drains the QP, waits for LIO's commands, removes the session,
 * destroys the CM identifier (under ch->cm_mutex, which senders of DREQs
 * from outside the CM's handlers hold) and frees everything.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <target/target_core_fabric.h>

#include "srpt.h"

/**
 * srpt_set_ch_state() - move a channel forward in its life
 * @ch: the channel
 * @new: the state wanted
 *
 * Return: true if the channel was in an earlier state.
 */
bool srpt_set_ch_state(struct srpt_rdma_ch *ch, enum srpt_ch_state new)
{
	bool changed = false;

	spin_lock_bh(&ch->lock);
	if (ch->state < new) {
		ch->state = new;
		changed = true;
	}
	spin_unlock_bh(&ch->lock);
	return changed;
}

/**
 * srpt_close_ch() - start tearing a channel down
 * @ch: the channel
 *
 * Queues the release work once; later calls do nothing.
 */
void srpt_close_ch(struct srpt_rdma_ch *ch)
{
	if (srpt_set_ch_state(ch, CH_DRAINING))
		queue_work(system_long_wq, &ch->release_work);
}

/**
 * srpt_disconnect_ch() - send a DREQ (or RDMA CM disconnect) and close
 * @ch: the channel
 *
 * Not for the channel's own CM handlers, which hold what ch->cm_mutex
 * waits for.
 */
void srpt_disconnect_ch(struct srpt_rdma_ch *ch)
{
	mutex_lock(&ch->cm_mutex);
	if (srpt_set_ch_state(ch, CH_DISCONNECTING)) {
		if (ch->using_rdma_cm && ch->rdma_cm_id)
			rdma_disconnect(ch->rdma_cm_id);
		else if (ch->ib_cm_id)
			ib_send_cm_dreq(ch->ib_cm_id, NULL, 0);
	}
	mutex_unlock(&ch->cm_mutex);
	srpt_close_ch(ch);
}

static void srpt_release_work(struct work_struct *work)
{
	struct srpt_rdma_ch *ch = container_of(work, struct srpt_rdma_ch,
					       release_work);
	struct srpt_port *sport = ch->sport;

	ib_drain_qp(ch->qp);
	srpt_release_wait_list(ch);
	if (ch->sess) {
		target_stop_session(ch->sess);
		target_wait_for_sess_cmds(ch->sess);
		target_remove_session(ch->sess);
		ch->sess = NULL;
	}

	mutex_lock(&ch->cm_mutex);
	if (ch->using_rdma_cm) {
		rdma_destroy_qp(ch->rdma_cm_id);
		rdma_destroy_id(ch->rdma_cm_id);
		ch->rdma_cm_id = NULL;
	} else {
		/* The QP first: its events use the CM identifier. */
		ib_destroy_qp(ch->qp);
		ib_destroy_cm_id(ch->ib_cm_id);
		ch->ib_cm_id = NULL;
	}
	mutex_unlock(&ch->cm_mutex);
	ch->qp = NULL;
	ib_free_cq(ch->cq);
	srpt_free_ch_ioctxs(ch);
	srpt_set_ch_state(ch, CH_DISCONNECTED);

	if (atomic_read(&ch->dropped))
		pr_info("%s: %d IUs dropped\n", ch->sess_name,
			atomic_read(&ch->dropped));
	mutex_lock(&sport->mutex);
	list_del(&ch->list);
	mutex_unlock(&sport->mutex);
	wake_up(&sport->ch_wq);
	srpt_sdev_put(sport->sdev);
	kfree(ch);
}

static bool srpt_ch_list_empty(struct srpt_port *sport)
{
	bool empty;

	mutex_lock(&sport->mutex);
	empty = list_empty(&sport->ch_list);
	mutex_unlock(&sport->mutex);
	return empty;
}

/**
 * srpt_close_all_ch() - disconnect every channel of a port and wait
 * @sport: the port; its mutex is not held
 */
void srpt_close_all_ch(struct srpt_port *sport)
{
	struct srpt_rdma_ch *ch;

	mutex_lock(&sport->mutex);
	list_for_each_entry(ch, &sport->ch_list, list)
		srpt_disconnect_ch(ch);
	mutex_unlock(&sport->mutex);
	wait_event(sport->ch_wq, srpt_ch_list_empty(sport));
}

/**
 * srpt_set_enabled() - accept logins on a port, or stop and disconnect
 * @sport: the port; its mutex is held
 * @enabled: the new state
 */
void srpt_set_enabled(struct srpt_port *sport, bool enabled)
{
	struct srpt_rdma_ch *ch;

	lockdep_assert_held(&sport->mutex);
	sport->enabled = enabled;
	if (enabled)
		return;
	list_for_each_entry(ch, &sport->ch_list, list)
		srpt_disconnect_ch(ch);
}

/**
 * srpt_close_session() - LIO's close_session: disconnect the channel
 * @se_sess: its session
 */
void srpt_close_session(struct se_session *se_sess)
{
	srpt_disconnect_ch(se_sess->fabric_sess_ptr);
}

static void srpt_qp_event(struct ib_event *event, void *context)
{
	struct srpt_rdma_ch *ch = context;

	if (event->event != IB_EVENT_COMM_EST)
		return;
	if (ch->using_rdma_cm)
		rdma_notify(ch->rdma_cm_id, event->event);
	else
		ib_cm_notify(ch->ib_cm_id, event->event);
}

static int srpt_create_ch_ib(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	const struct ib_device_attr *attrs = &sdev->device->attrs;
	struct ib_qp_init_attr init = {};
	u32 sq_size = ch->sq_size;
	int ret;

	/* Room for ib_drain_qp()'s two markers too. */
	ch->cq = ib_alloc_cq(sdev->device, ch, ch->rq_size + sq_size + 2, 0,
			     IB_POLL_WORKQUEUE);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		return ret;
	}

	init.event_handler = srpt_qp_event;
	init.qp_context = ch;
	init.send_cq = ch->cq;
	init.recv_cq = ch->cq;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	init.port_num = ch->sport->port;
	if (ch->srq) {
		init.srq = ch->srq;
	} else {
		init.cap.max_recv_wr = ch->rq_size + 1;
		init.cap.max_recv_sge = 1;
	}
	init.cap.max_send_sge = min_t(u32, attrs->max_send_sge, 16);
	for (;;) {
		init.cap.max_send_wr = min_t(u32, sq_size / 2,
					     attrs->max_qp_wr);
		init.cap.max_rdma_ctxs = sq_size / 2;
		if (ch->using_rdma_cm) {
			ret = rdma_create_qp(ch->rdma_cm_id, sdev->pd, &init);
			ch->qp = ret ? ERR_PTR(ret) : ch->rdma_cm_id->qp;
		} else {
			ch->qp = ib_create_qp(sdev->pd, &init);
		}
		if (!IS_ERR(ch->qp))
			break;
		ret = PTR_ERR(ch->qp);
		if (ret != -ENOMEM || sq_size / 2 < SRPT_MIN_SQ_SIZE)
			goto err_cq;
		sq_size /= 2;
	}
	/* One entry stays free for the drain's marker. */
	ch->sq_size = init.cap.max_send_wr - 1;
	atomic_set(&ch->sq_wr_avail, ch->sq_size);
	return 0;

err_cq:
	ch->qp = NULL;
	ib_free_cq(ch->cq);
	ch->cq = NULL;
	return ret;
}

static int srpt_ib_cm_qp_to(struct srpt_rdma_ch *ch, enum ib_qp_state state,
			    u32 *psn)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(ch->ib_cm_id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_INIT)
		attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
	else if (state == IB_QPS_RTR)
		*psn = attr.rq_psn;
	else
		attr.max_rd_atomic = SRPT_RDMA_READ_DEPTH;
	return ib_modify_qp(ch->qp, &attr, mask);
}

/* An initiator port ID as an ACL name: "0x" and 32 hex digits. */
static void srpt_format_port_id(char *buf, size_t len, const u8 id[16])
{
	snprintf(buf, len, "0x%016llx%016llx",
		 get_unaligned_be64(id), get_unaligned_be64(id + 8));
}

static struct se_session *srpt_try_tpgs(struct srpt_port_id *port_id,
					struct srpt_rdma_ch *ch,
					const char *name)
{
	struct se_session *sess = ERR_PTR(-EACCES);
	struct srpt_tpg *stpg;

	if (!port_id)
		return sess;
	mutex_lock(&port_id->mutex);
	list_for_each_entry(stpg, &port_id->tpg_list, entry) {
		sess = target_setup_session(&stpg->tpg, ch->rq_size, 1,
					    TARGET_PROT_NORMAL, name, ch, NULL);
		if (!IS_ERR(sess))
			break;
	}
	mutex_unlock(&port_id->mutex);
	return sess;
}

/* The LIO session of a login: LIO checks the ACLs. */
static int srpt_setup_session(struct srpt_rdma_ch *ch)
{
	struct srpt_port *sport = ch->sport;
	char id[40];

	srpt_format_port_id(id, sizeof(id), ch->i_port_id);
	ch->sess = srpt_try_tpgs(sport->gid_id, ch, id);
	if (IS_ERR(ch->sess))
		ch->sess = srpt_try_tpgs(sport->gid_id, ch, id + 2);
	if (IS_ERR(ch->sess))
		ch->sess = srpt_try_tpgs(sport->guid_id, ch, ch->sess_name);
	if (IS_ERR(ch->sess))
		ch->sess = srpt_try_tpgs(sport->guid_id, ch, id);
	if (!IS_ERR(ch->sess))
		return 0;
	pr_info("%s-%u: login of %s (%s) refused by LIO: %ld\n",
		dev_name(&sport->sdev->device->dev), sport->port, id,
		ch->sess_name, PTR_ERR(ch->sess));
	return PTR_ERR(ch->sess);
}

/*
 * The login itself, for both CMs.  Returns 0 with the channel on the
 * port's list and its QP ready, or the reason to put in the SRP_LOGIN_REJ
 * (the channel is then freed).
 */
static u32 srpt_login(struct srpt_port *sport, struct srpt_rdma_ch *ch,
		      const struct srp_login_req *req,
		      struct srp_login_rsp *rsp, u32 *psn)
{
	struct srpt_device *sdev = sport->sdev;
	u32 it_iu_len = be32_to_cpu(req->req_it_iu_len);
	u16 fmt = be16_to_cpu(req->req_buf_fmt);
	struct srpt_rdma_ch *other;
	u32 reason, i;
	int ret;

	lockdep_assert_held(&sport->mutex);
	if (it_iu_len > srp_max_req_size || it_iu_len < 64) {
		pr_info("login: it_iu_len %u not in [64, %u]\n", it_iu_len,
			srp_max_req_size);
		return SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
	}
	if (get_unaligned_be64(req->target_port_id) != srpt_service_guid ||
	    get_unaligned_be64(req->target_port_id + 8) != srpt_service_guid) {
		pr_info("login: target port ID is not ours\n");
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	}
	if (!(fmt & (SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT)))
		return SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT;
	if (!sport->enabled || sport->removed) {
		pr_info("%s-%u: login refused: target not enabled\n",
			dev_name(&sdev->device->dev), sport->port);
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	}

	memcpy(ch->i_port_id, req->initiator_port_id, 16);
	memcpy(ch->t_port_id, req->target_port_id, 16);
	ch->max_ti_iu_len = it_iu_len;
	ch->rq_size = min_t(u32, SRPT_MAX_RQ_SIZE, sdev->device->attrs.max_qp_wr);
	ch->sq_size = sport->port_attrib.srp_sq_size;
	ch->max_rsp_size = sport->port_attrib.srp_max_rsp_size;

	reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	if (srpt_alloc_ch_ioctxs(ch, srp_max_req_size))
		goto err_ioctx;
	if (srpt_create_ch_ib(ch))
		goto err_ioctx;
	if (!ch->using_rdma_cm && srpt_ib_cm_qp_to(ch, IB_QPS_INIT, psn))
		goto err_ib;
	for (i = 0; !ch->srq && i < ch->rq_size; i++)
		if (srpt_post_recv(ch, ch->ioctx_recv_ring[i]))
			goto err_ib;
	ret = srpt_setup_session(ch);
	if (ret) {
		reason = ret == -ENOMEM ? SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES :
					  SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
		ch->sess = NULL;
		goto err_ib;
	}
	if (!ch->using_rdma_cm &&
	    (srpt_ib_cm_qp_to(ch, IB_QPS_RTR, psn) ||
	     srpt_ib_cm_qp_to(ch, IB_QPS_RTS, psn)))
		goto err_sess;

	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRP_LOGIN_RSP;
	rsp->tag = req->tag;
	rsp->req_lim_delta = cpu_to_be32(ch->rq_size);
	rsp->max_it_iu_len = cpu_to_be32(srp_max_req_size);
	rsp->max_ti_iu_len = req->req_it_iu_len;
	rsp->buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				   SRP_BUF_FORMAT_INDIRECT);
	if ((req->req_flags & 3) == SRP_MULTICHAN_SINGLE) {
		list_for_each_entry(other, &sport->ch_list, list) {
			if (memcmp(other->i_port_id, ch->i_port_id, 16) ||
			    memcmp(other->t_port_id, ch->t_port_id, 16))
				continue;
			pr_info("%s: relogin closes the channel before\n",
				ch->sess_name);
			srpt_disconnect_ch(other);
			rsp->rsp_flags = SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
		}
	} else {
		rsp->rsp_flags = SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;
	}
	list_add_tail(&ch->list, &sport->ch_list);
	return 0;

err_sess:
	target_remove_session(ch->sess);
	ch->sess = NULL;
err_ib:
	if (ch->using_rdma_cm)
		rdma_destroy_qp(ch->rdma_cm_id);
	else
		ib_destroy_qp(ch->qp);
	ch->qp = NULL;
	ib_free_cq(ch->cq);
	ch->cq = NULL;
err_ioctx:
	srpt_free_ch_ioctxs(ch);
	return reason;
}

static struct srpt_rdma_ch *srpt_alloc_ch(struct srpt_port *sport)
{
	struct srpt_rdma_ch *ch = kzalloc(sizeof(*ch), GFP_KERNEL);

	if (!ch)
		return NULL;
	ch->sport = sport;
	ch->srq = sport->sdev->srq;
	spin_lock_init(&ch->lock);
	mutex_init(&ch->cm_mutex);
	INIT_LIST_HEAD(&ch->cmd_wait_list);
	INIT_LIST_HEAD(&ch->list);
	INIT_WORK(&ch->release_work, srpt_release_work);
	ch->state = CH_CONNECTING;
	return ch;
}

static void srpt_fill_rej(struct srp_login_rej *rej, u64 tag, u32 reason)
{
	memset(rej, 0, sizeof(*rej));
	rej->opcode = SRP_LOGIN_REJ;
	rej->tag = tag;
	rej->reason = cpu_to_be32(reason);
	rej->buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				   SRP_BUF_FORMAT_INDIRECT);
}

static int srpt_ib_cm_req_recv(struct ib_cm_id *cm_id,
			       const struct ib_cm_req_event_param *param,
			       const struct srp_login_req *req)
{
	struct ib_cm_rep_param rep = {};
	struct srpt_device *sdev;
	struct srpt_port *sport;
	struct srp_login_rsp rsp;
	struct srp_login_rej rej;
	struct srpt_rdma_ch *ch = NULL;
	const union ib_gid *gid;
	u32 reason, psn = 0;

	reason = SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	sdev = srpt_get_sdev(cm_id->device);
	if (!sdev)
		goto reject;
	if (req->opcode != SRP_LOGIN_REQ || param->port < 1 ||
	    param->port > sdev->port_cnt || param->qp_type != IB_QPT_RC)
		goto reject_put;
	sport = &sdev->port[param->port - 1];

	reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	ch = srpt_alloc_ch(sport);
	if (!ch)
		goto reject_put;
	ch->ib_cm_id = cm_id;
	gid = &param->primary_path->sgid;
	if (!memcmp(gid, &sport->gid, sizeof(*gid)))
		gid = &param->primary_path->dgid;
	snprintf(ch->sess_name, sizeof(ch->sess_name), "%pI6", gid);

	mutex_lock(&sport->mutex);
	reason = srpt_login(sport, ch, req, &rsp, &psn);
	if (reason) {
		mutex_unlock(&sport->mutex);
		kfree(ch);
		goto reject_put;
	}
	cm_id->context = ch;
	rep.qp_num = ch->qp->qp_num;
	rep.starting_psn = psn;
	rep.private_data = &rsp;
	rep.private_data_len = sizeof(rsp);
	rep.responder_resources = SRPT_RDMA_READ_DEPTH;
	rep.initiator_depth = SRPT_RDMA_READ_DEPTH;
	rep.rnr_retry_count = 7;
	rep.flow_control = 1;
	rep.srq = 1;
	if (ib_send_cm_rep(cm_id, &rep)) {
		pr_info("%s: sending the REP failed\n", ch->sess_name);
		srpt_close_ch(ch);
	}
	mutex_unlock(&sport->mutex);
	pr_info("%s-%u: login of %s accepted\n", dev_name(&sdev->device->dev),
		sport->port, ch->sess_name);
	/* The channel keeps the device reference until its release. */
	return 0;

reject_put:
	if (sdev)
		srpt_sdev_put(sdev);
reject:
	srpt_fill_rej(&rej, req->tag, reason);
	ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, &rej,
		       sizeof(rej));
	/* Non-zero: the CM destroys the new identifier. */
	return -ECONNREFUSED;
}

/**
 * srpt_ib_cm_handler() - events of the IB CM listener and its connections
 * @cm_id: the identifier
 * @ev: the event
 *
 * Return: non-zero to have the CM destroy a refused request's identifier.
 */
int srpt_ib_cm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct srpt_rdma_ch *ch = cm_id->context;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		if (!ev->private_data)
			return -EINVAL;
		return srpt_ib_cm_req_recv(cm_id, &ev->param.req_rcvd,
					   ev->private_data);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		srpt_set_ch_state(ch, CH_LIVE);
		break;
	case IB_CM_DREQ_RECEIVED:
		srpt_set_ch_state(ch, CH_DISCONNECTING);
		ib_send_cm_drep(cm_id, NULL, 0);
		srpt_close_ch(ch);
		break;
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
	case IB_CM_DREP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
		srpt_close_ch(ch);
		break;
	default:
		break;
	}
	return 0;
}

static int srpt_rdma_cm_req_recv(struct rdma_cm_id *cm_id,
				 const struct rdma_cm_event *event)
{
	const struct srp_login_req_rdma *rreq = event->param.conn.private_data;
	struct rdma_conn_param conn = {};
	struct srp_login_req req = {};
	struct srpt_device *sdev;
	struct srpt_port *sport;
	struct srp_login_rsp rsp;
	struct srp_login_rej rej;
	struct srpt_rdma_ch *ch;
	u32 reason, psn;
	u64 tag = 0;

	reason = SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	sdev = srpt_get_sdev(cm_id->device);
	if (!sdev)
		goto reject;
	if (!rreq || event->param.conn.private_data_len < sizeof(*rreq) ||
	    rreq->opcode != SRP_LOGIN_REQ || cm_id->port_num < 1 ||
	    cm_id->port_num > sdev->port_cnt)
		goto reject_put;
	tag = rreq->tag;
	req.opcode = rreq->opcode;
	req.tag = rreq->tag;
	req.req_it_iu_len = rreq->req_it_iu_len;
	req.req_buf_fmt = rreq->req_buf_fmt;
	req.req_flags = rreq->req_flags;
	memcpy(req.initiator_port_id, rreq->initiator_port_id, 16);
	memcpy(req.target_port_id, rreq->target_port_id, 16);
	sport = &sdev->port[cm_id->port_num - 1];

	reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	ch = srpt_alloc_ch(sport);
	if (!ch)
		goto reject_put;
	ch->using_rdma_cm = true;
	ch->rdma_cm_id = cm_id;
	snprintf(ch->sess_name, sizeof(ch->sess_name), "%pISc",
		 &cm_id->route.addr.dst_addr);

	mutex_lock(&sport->mutex);
	reason = srpt_login(sport, ch, &req, &rsp, &psn);
	if (reason) {
		mutex_unlock(&sport->mutex);
		kfree(ch);
		goto reject_put;
	}
	cm_id->context = ch;
	conn.private_data = &rsp;
	conn.private_data_len = sizeof(rsp);
	conn.responder_resources = SRPT_RDMA_READ_DEPTH;
	conn.initiator_depth = SRPT_RDMA_READ_DEPTH;
	conn.rnr_retry_count = 7;
	conn.flow_control = 1;
	if (rdma_accept(cm_id, &conn)) {
		pr_info("%s: accepting the connection failed\n",
			ch->sess_name);
		srpt_close_ch(ch);
	}
	mutex_unlock(&sport->mutex);
	pr_info("%s-%u: login of %s accepted\n", dev_name(&sdev->device->dev),
		sport->port, ch->sess_name);
	return 0;

reject_put:
	if (sdev)
		srpt_sdev_put(sdev);
reject:
	srpt_fill_rej(&rej, tag, reason);
	rdma_reject(cm_id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	return -ECONNREFUSED;
}

/**
 * srpt_rdma_cm_handler() - events of the RDMA CM listener and connections
 * @cm_id: the identifier
 * @event: the event
 *
 * Return: non-zero to have the RDMA CM destroy a refused request's
 * identifier.
 */
int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
			 struct rdma_cm_event *event)
{
	struct srpt_rdma_ch *ch = cm_id->context;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srpt_rdma_cm_req_recv(cm_id, event);
	if (!ch)
		return 0;	/* the listener */

	switch (event->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		srpt_set_ch_state(ch, CH_LIVE);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		srpt_close_ch(ch);
		break;
	default:
		break;
	}
	return 0;
}
