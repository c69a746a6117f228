// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "cm": the IB connection manager (ib_cm) between vmlx0
 * (the requester, side A) and vmlx1 (the responder, side B), port 1 each,
 * with the LIDs the subnet manager gave them.
 *
 * The CM's callbacks only note their events (struct vtc_log); the
 * command's thread waits for them and does what a consumer does in
 * answer, so that every step can be checked.  Cases:
 *   connect     RC QPs connected by REQ/REP/RTU with private data each
 *               way, ib_cm_init_qp_attr() for INIT/RTR/RTS, SENDs both
 *               ways checked byte by byte, DREQ/DREP with private data,
 *               TIMEWAIT_EXIT on both sides after the timewait
 *   noservice   a REQ for a service nobody listens to: REJ, reason 8
 *   reject      the listener's consumer rejects with private data:
 *               REJ_RECEIVED, reason 28, the data
 *   autoreject  the listener's callback returns non-zero: the CM
 *               destroys the new identifier and rejects (reason 28)
 *   mra         the responder sends an MRA and answers after more than
 *               the requester's REQ timeout; the requester sends an MRA
 *               for the REP: no error, the connection is made
 *   sidr        SIDR_REQ answered with a UD QP and Q_Key, a datagram
 *               sent to it arrives; a service nobody listens to is
 *               answered "unsupported"
 *   dup         the REQ is resent (short timeout) while the responder
 *               takes its time: one REQ_RECEIVED, one connection
 *   timeout     a REQ to a LID nobody has: REQ_ERROR with
 *               IB_WC_RESP_TIMEOUT_ERR after 1 + max_cm_retries sends
 *   srp         an SRP login to ib_srpt on vmlx1 (which must be set up
 *               for it, see srp-target.sh), a command, a logout
 *
 * "cm hold" leaves identifiers of vmlx0/vmlx1 in many states (a
 * listener on VTC_SID_HOLD that notes everything and answers nothing, an
 * established connection, a REQ to nowhere, a connection in TIMEWAIT);
 * "cm check N" reports how many REQs that listener got (N expected);
 * "cm release" destroys them all.  A device's removal and the module's
 * unloading destroy what is held too.
 *
 * Locking: a log's spinlock guards its events (the callbacks add, the
 * command reads); what is held is guarded by vt_run_lock, which every
 * command and the device removal take.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <asm/unaligned.h>
#include <rdma/ib_cm.h>

#include "vt.h"

#define VTC_SID			0x1000000000001a2bULL
#define VTC_SID_NONE		0x1000000000001a2cULL
#define VTC_SID_AUTOREJECT	0x1000000000001a2dULL
#define VTC_SID_UD		0x1000000000001a2eULL
#define VTC_SID_HOLD		0x1000000000c0ffeeULL
#define VTC_EVENTS		64
#define VTC_PD			32
/* the packet life time of our paths: 4.096 us * 2^12 = 16 ms */
#define VTC_PLT			12
#define VTC_MSG_BYTES		4096

/**
 * struct vtc_ev - one event a callback noted
 * @type: the event
 * @id: the identifier it came for
 * @seen: the command took it
 * @status: send_status (errors), REJ reason, SIDR status
 * @qpn: remote QPN (REQ, REP), QPN (SIDR_REP)
 * @qkey: Q_Key (SIDR_REP)
 * @psn: starting PSN (REQ, REP)
 * @service_timeout: MRA
 * @sid: the identifier's service ID then
 * @at: when, in jiffies
 * @pd: the first bytes of the private data
 */
struct vtc_ev {
	enum ib_cm_event_type	type;
	struct ib_cm_id		*id;
	bool			seen;
	int			status;
	u32			qpn;
	u32			qkey;
	u32			psn;
	u8			service_timeout;
	__be64			sid;
	unsigned long		at;
	u8			pd[VTC_PD];
};

/**
 * struct vtc_log - the events of one command, or of what is held
 * @lock: protects @ev and @n
 * @wait: woken on each event
 * @ev: the events, in order
 * @n: how many
 * @autoreject: the callback returns non-zero for REQs to this service
 */
struct vtc_log {
	spinlock_t		lock;	/* protects ev and n */
	wait_queue_head_t	wait;
	struct vtc_ev		ev[VTC_EVENTS];
	int			n;
	__be64			autoreject;
};

static int vtc_handler(struct ib_cm_id *id, const struct ib_cm_event *event)
{
	struct vtc_log *log = id->context;
	unsigned long flags;
	struct vtc_ev *e;
	int ret = 0;

	spin_lock_irqsave(&log->lock, flags);
	if (log->n < VTC_EVENTS) {
		e = &log->ev[log->n++];
		memset(e, 0, sizeof(*e));
		e->type = event->event;
		e->id = id;
		e->sid = id->service_id;
		e->at = jiffies;
		if (event->private_data)
			memcpy(e->pd, event->private_data, VTC_PD);
		switch (event->event) {
		case IB_CM_REQ_RECEIVED:
			e->qpn = event->param.req_rcvd.remote_qpn;
			e->psn = event->param.req_rcvd.starting_psn;
			if (log->autoreject && id->service_id == log->autoreject)
				ret = -ECONNREFUSED;
			break;
		case IB_CM_REP_RECEIVED:
			e->qpn = event->param.rep_rcvd.remote_qpn;
			e->psn = event->param.rep_rcvd.starting_psn;
			break;
		case IB_CM_REJ_RECEIVED:
			e->status = event->param.rej_rcvd.reason;
			break;
		case IB_CM_MRA_RECEIVED:
			e->service_timeout =
				event->param.mra_rcvd.service_timeout;
			break;
		case IB_CM_SIDR_REP_RECEIVED:
			e->status = event->param.sidr_rep_rcvd.status;
			e->qpn = event->param.sidr_rep_rcvd.qpn;
			e->qkey = event->param.sidr_rep_rcvd.qkey;
			break;
		case IB_CM_REQ_ERROR:
		case IB_CM_REP_ERROR:
		case IB_CM_DREQ_ERROR:
		case IB_CM_SIDR_REQ_ERROR:
			e->status = event->param.send_status;
			break;
		default:
			break;
		}
	}
	spin_unlock_irqrestore(&log->lock, flags);
	wake_up(&log->wait);
	return ret;
}

static void vtc_log_init(struct vtc_log *log)
{
	spin_lock_init(&log->lock);
	init_waitqueue_head(&log->wait);
	log->n = 0;
	log->autoreject = 0;
}

/* The first unseen event of @type (for @id, if given), or NULL. */
static struct vtc_ev *vtc_find(struct vtc_log *log, enum ib_cm_event_type type,
			       struct ib_cm_id *id)
{
	struct vtc_ev *found = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&log->lock, flags);
	for (i = 0; i < log->n; i++) {
		struct vtc_ev *e = &log->ev[i];

		if (!e->seen && e->type == type && (!id || e->id == id)) {
			e->seen = true;
			found = e;
			break;
		}
	}
	spin_unlock_irqrestore(&log->lock, flags);
	return found;
}

/* Wait up to @ms for an event; vt_why() if it does not come. */
static struct vtc_ev *vtc_wait(struct vt_run *run, struct vtc_log *log,
			       enum ib_cm_event_type type, struct ib_cm_id *id,
			       unsigned int ms)
{
	struct vtc_ev *e = NULL;

	wait_event_timeout(log->wait,
			   (e = vtc_find(log, type, id)) || vt_aborted(run),
			   msecs_to_jiffies(ms));
	if (!e)
		vt_why(run, "no CM event %d within %u ms", type, ms);
	return e;
}

/* How many events of @type arrived (for service @sid if not 0). */
static int vtc_count_sid(struct vtc_log *log, enum ib_cm_event_type type,
			 u64 sid)
{
	unsigned long flags;
	int i, n = 0;

	spin_lock_irqsave(&log->lock, flags);
	for (i = 0; i < log->n; i++)
		n += log->ev[i].type == type &&
		     (!sid || log->ev[i].sid == cpu_to_be64(sid));
	spin_unlock_irqrestore(&log->lock, flags);
	return n;
}

static int vtc_count(struct vtc_log *log, enum ib_cm_event_type type)
{
	return vtc_count_sid(log, type, 0);
}

/* Destroy the identifiers the CM made for requests (events' ids). */
static void vtc_destroy_new(struct vtc_log *log)
{
	int i;

	for (i = 0; i < log->n; i++) {
		struct vtc_ev *e = &log->ev[i];
		int j;

		if (e->type != IB_CM_REQ_RECEIVED &&
		    e->type != IB_CM_SIDR_REQ_RECEIVED)
			continue;
		/* an autorejected one is the CM's own to destroy */
		if (log->autoreject && e->sid == log->autoreject)
			continue;
		for (j = 0; j < i; j++)
			if (log->ev[j].id == e->id &&
			    (log->ev[j].type == IB_CM_REQ_RECEIVED ||
			     log->ev[j].type == IB_CM_SIDR_REQ_RECEIVED))
				break;
		if (j == i)
			ib_destroy_cm_id(e->id);
	}
}

/**
 * struct vtc_side - one side of a CM test
 * @s: the device side
 * @q: its RC (or UD) QP
 * @buf: its data buffer
 * @id: its identifier (the listener on the responder)
 * @conn: the responder's connection identifier, from the REQ (destroyed
 *	with the other identifiers of REQ_RECEIVED events)
 */
struct vtc_side {
	struct vt_side		s;
	struct vt_qp		q;
	struct vt_buf		buf;
	struct ib_cm_id		*id;
	struct ib_cm_id		*conn;
};

static void vtc_path_plt(struct sa_path_rec *p, struct vt_side *from,
			 struct vt_side *to, u16 dlid, u8 plt)
{
	memset(p, 0, sizeof(*p));
	p->rec_type = SA_PATH_REC_TYPE_IB;
	p->slid = cpu_to_be16(from->lid);
	p->dlid = cpu_to_be16(dlid);
	p->sgid = from->gid;
	p->dgid = to->gid;
	p->pkey = cpu_to_be16(0xffff);
	p->mtu = IB_MTU_1024;
	p->rate = 3;
	p->packet_life_time = plt;
	p->reversible = 1;
	p->numb_path = 1;
}

static void vtc_path(struct sa_path_rec *p, struct vt_side *from,
		     struct vt_side *to, u16 dlid)
{
	vtc_path_plt(p, from, to, dlid, VTC_PLT);
}

static int vtc_side_init(struct vt_run *run, struct vtc_side *v,
			 struct vt_dev *vdev, struct vtc_log *log,
			 enum ib_qp_type type)
{
	int ret;

	ret = vt_side_init(run, &v->s, vdev, true);
	if (ret)
		return ret;
	ret = vt_qp_create(run, &v->q, &v->s, type, NULL, 16, 16);
	if (ret)
		return ret;
	ret = vt_buf_alloc(run, &v->buf, v->s.dev, VTC_MSG_BYTES);
	if (ret)
		return ret;
	v->id = ib_create_cm_id(v->s.dev, vtc_handler, log);
	if (IS_ERR(v->id)) {
		ret = PTR_ERR(v->id);
		v->id = NULL;
		vt_why(run, "ib_create_cm_id(%s): %d",
		       ib_device_name(v->s.dev), ret);
		return ret;
	}
	return 0;
}

static void vtc_side_fini(struct vtc_side *v)
{
	if (v->id)
		ib_destroy_cm_id(v->id);
	v->conn = NULL;
	v->id = NULL;
	vt_buf_free(&v->buf);
	vt_qp_destroy(&v->q);
	vt_side_fini(&v->s);
}

/*
 * Move a QP to @state with what the CM says.  A passive side in RTR before
 * its REP is out receives from the PSN its REP will name (as upstream's
 * IB CM, ours does not know it yet): @rq_psn, or 0 to take the CM's.
 */
static int vtc_modify_psn(struct vt_run *run, struct vtc_side *v,
			  struct ib_cm_id *id, enum ib_qp_state state,
			  u32 rq_psn)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(id, &attr, &mask);
	if (ret) {
		vt_why(run, "ib_cm_init_qp_attr(state %d) in CM state %d: %d",
		       state, id->state, ret);
		return ret;
	}
	if (rq_psn && state == IB_QPS_RTR)
		attr.rq_psn = rq_psn;
	ret = ib_modify_qp(v->q.qp, &attr, mask);
	if (ret)
		vt_why(run, "ib_modify_qp(state %d, mask %#x): %d", state, mask,
		       ret);
	return ret;
}

static int vtc_modify(struct vt_run *run, struct vtc_side *v,
		      struct ib_cm_id *id, enum ib_qp_state state)
{
	return vtc_modify_psn(run, v, id, state, 0);
}

static void vtc_req_param(struct ib_cm_req_param *req, struct sa_path_rec *p,
			  struct vtc_side *a, u64 sid, const char *pd)
{
	memset(req, 0, sizeof(*req));
	req->primary_path = p;
	req->service_id = cpu_to_be64(sid);
	req->qp_num = a->q.qp->qp_num;
	req->qp_type = IB_QPT_RC;
	req->starting_psn = 0x123456;
	req->private_data = pd;
	req->private_data_len = pd ? strlen(pd) + 1 : 0;
	req->responder_resources = 4;
	req->initiator_depth = 4;
	req->remote_cm_response_timeout = 16;
	req->local_cm_response_timeout = 16;
	req->flow_control = 1;
	req->retry_count = 7;
	req->rnr_retry_count = 7;
	req->max_cm_retries = 3;
}

/* One SEND of VTC_MSG_BYTES from @from to @to, checked. */
static bool vtc_send(struct vt_run *run, struct vtc_side *from,
		     struct vtc_side *to, u32 seed)
{
	struct ib_wc wc;

	memset(to->buf.va, 0, VTC_MSG_BYTES);
	vt_fill(from->buf.va, VTC_MSG_BYTES, seed);
	if (vt_post_recv(&to->q, 2, to->buf.dma, VTC_MSG_BYTES,
			 to->s.pd->local_dma_lkey) ||
	    vt_post_send(&from->q, 1, IB_WR_SEND, from->buf.dma,
			 VTC_MSG_BYTES, from->s.pd->local_dma_lkey, 0, 0, 0)) {
		vt_why(run, "posting the SEND failed");
		return false;
	}
	if (vt_expect(run, &from->q.scq, 1, IB_WC_SUCCESS, &wc, "SEND") ||
	    vt_expect(run, &to->q.rcq, 2, IB_WC_SUCCESS, &wc, "RECV"))
		return false;
	if (wc.byte_len != VTC_MSG_BYTES ||
	    vt_verify(to->buf.va, VTC_MSG_BYTES, seed) >= 0) {
		vt_why(run, "the data arrived changed (%u bytes)", wc.byte_len);
		return false;
	}
	return true;
}

static bool vtc_pd_is(struct vt_run *run, struct vtc_ev *e, const char *want,
		      const char *what)
{
	if (e && strncmp(e->pd, want, VTC_PD)) {
		vt_why(run, "%s private data '%.*s', sent '%s'", what, VTC_PD,
		       e->pd, want);
		return false;
	}
	return e;
}

/*
 * Connect A to B's listener on @sid over a path of packet life time
 * @plt: both QPs at RTS, both identifiers ESTABLISHED.
 */
static bool vtc_connect(struct vt_run *run, struct vtc_log *log,
			struct vtc_side *a, struct vtc_side *b, u64 sid,
			u8 plt)
{
	struct ib_cm_req_param req;
	struct ib_cm_rep_param rep = {};
	struct sa_path_rec path;
	struct vtc_ev *e;
	int ret;

	vtc_path_plt(&path, &a->s, &b->s, b->s.lid, plt);
	vtc_req_param(&req, &path, a, sid, "vt req private data");
	ret = ib_send_cm_req(a->id, &req);
	if (ret) {
		vt_why(run, "ib_send_cm_req: %d", ret);
		return false;
	}
	if (a->id->state != IB_CM_REQ_SENT)
		vt_why(run, "requester in state %d after its REQ",
		       a->id->state);
	if (vtc_modify(run, a, a->id, IB_QPS_INIT))
		return false;

	e = vtc_wait(run, log, IB_CM_REQ_RECEIVED, NULL, run->wait_ms);
	if (!vtc_pd_is(run, e, "vt req private data", "REQ"))
		return false;
	b->conn = e->id;
	if (e->qpn != a->q.qp->qp_num || e->psn != 0x123456)
		vt_why(run, "REQ_RECEIVED: QPN %#x PSN %#x, sent %#x %#x",
		       e->qpn, e->psn, a->q.qp->qp_num, 0x123456);
	if (b->conn->state != IB_CM_REQ_RCVD)
		vt_why(run, "responder in state %d after the REQ",
		       b->conn->state);
	if (vtc_modify(run, b, b->conn, IB_QPS_INIT) ||
	    vtc_modify_psn(run, b, b->conn, IB_QPS_RTR, 0x654321))
		return false;
	rep.qp_num = b->q.qp->qp_num;
	rep.starting_psn = 0x654321;
	rep.private_data = "vt rep private data";
	rep.private_data_len = strlen(rep.private_data) + 1;
	rep.responder_resources = 4;
	rep.initiator_depth = 4;
	rep.flow_control = 1;
	rep.rnr_retry_count = 7;
	ret = ib_send_cm_rep(b->conn, &rep);
	if (ret) {
		vt_why(run, "ib_send_cm_rep: %d", ret);
		return false;
	}
	if (vtc_modify(run, b, b->conn, IB_QPS_RTS))
		return false;

	e = vtc_wait(run, log, IB_CM_REP_RECEIVED, a->id, run->wait_ms);
	if (!vtc_pd_is(run, e, "vt rep private data", "REP"))
		return false;
	if (e->qpn != b->q.qp->qp_num || e->psn != 0x654321)
		vt_why(run, "REP_RECEIVED: QPN %#x PSN %#x, sent %#x %#x",
		       e->qpn, e->psn, b->q.qp->qp_num, 0x654321);
	if (vtc_modify(run, a, a->id, IB_QPS_RTR) ||
	    vtc_modify(run, a, a->id, IB_QPS_RTS))
		return false;
	ret = ib_send_cm_rtu(a->id, "vt rtu private data", 20);
	if (ret) {
		vt_why(run, "ib_send_cm_rtu: %d", ret);
		return false;
	}
	e = vtc_wait(run, log, IB_CM_RTU_RECEIVED, b->conn, run->wait_ms);
	if (!vtc_pd_is(run, e, "vt rtu private data", "RTU"))
		return false;
	if (a->id->state != IB_CM_ESTABLISHED ||
	    b->conn->state != IB_CM_ESTABLISHED) {
		vt_why(run, "states %d and %d after the RTU", a->id->state,
		       b->conn->state);
		return false;
	}
	return true;
}

static void vtc_case_connect(struct vt_run *run, struct vtc_log *log,
			     struct vtc_side *a, struct vtc_side *b)
{
	unsigned long start;
	struct vtc_ev *e;

	if (ib_cm_listen(b->id, cpu_to_be64(VTC_SID)))
		vt_why(run, "ib_cm_listen");
	if (!run->why[0] && vtc_connect(run, log, a, b, VTC_SID, VTC_PLT))
		vt_result(run, "cm connect: REQ/REP/RTU, private data both ways, QPs by the CM");
	else
		vt_result(run, "cm connect: REQ/REP/RTU");
	if (!vtc_send(run, a, b, 11) || !vtc_send(run, b, a, 12))
		vt_why(run, "(over the connection)");
	vt_result(run, "cm connect: SEND of %u bytes each way, checked",
		  VTC_MSG_BYTES);

	if (ib_send_cm_dreq(a->id, "vt dreq private data", 21))
		vt_why(run, "ib_send_cm_dreq");
	e = vtc_wait(run, log, IB_CM_DREQ_RECEIVED, b->conn, run->wait_ms);
	vtc_pd_is(run, e, "vt dreq private data", "DREQ");
	if (e && ib_send_cm_drep(b->conn, "vt drep private data", 21))
		vt_why(run, "ib_send_cm_drep");
	start = jiffies;
	e = vtc_wait(run, log, IB_CM_DREP_RECEIVED, a->id, run->wait_ms);
	vtc_pd_is(run, e, "vt drep private data", "DREP");
	if (e && (a->id->state != IB_CM_TIMEWAIT ||
		  b->conn->state != IB_CM_TIMEWAIT))
		vt_why(run, "states %d and %d after the DREP", a->id->state,
		       b->conn->state);
	vt_result(run, "cm connect: DREQ/DREP with private data, both in TIMEWAIT");

	vtc_wait(run, log, IB_CM_TIMEWAIT_EXIT, b->conn, run->wait_ms);
	e = vtc_wait(run, log, IB_CM_TIMEWAIT_EXIT, a->id, run->wait_ms);
	if (e && a->id->state != IB_CM_IDLE)
		vt_why(run, "state %d after TIMEWAIT_EXIT", a->id->state);
	/* twice the packet life time, 33 ms; the exit is delivered by then */
	if (e && time_before(e->at, start + msecs_to_jiffies(30)))
		vt_why(run, "TIMEWAIT_EXIT after %u ms, the timewait is 33 ms",
		       jiffies_to_msecs(e->at - start));
	vt_result(run, "cm connect: TIMEWAIT_EXIT on both sides after it, IDLE");
}

/* A REQ that is to be rejected: REJ_RECEIVED with @reason and @pd. */
static void vtc_expect_rej(struct vt_run *run, struct vtc_log *log,
			   struct vtc_side *a, struct vtc_side *b, u64 sid,
			   int reason, const char *pd)
{
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct vtc_ev *e;
	int ret;

	vtc_path(&path, &a->s, &b->s, b->s.lid);
	vtc_req_param(&req, &path, a, sid, NULL);
	ret = ib_send_cm_req(a->id, &req);
	if (ret) {
		vt_why(run, "ib_send_cm_req: %d", ret);
		return;
	}
	if (pd) {
		e = vtc_wait(run, log, IB_CM_REQ_RECEIVED, NULL, run->wait_ms);
		if (!e)
			return;
		b->conn = e->id;
		ret = ib_send_cm_rej(e->id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				     pd, strlen(pd) + 1);
		if (ret)
			vt_why(run, "ib_send_cm_rej: %d", ret);
	}
	e = vtc_wait(run, log, IB_CM_REJ_RECEIVED, a->id, run->wait_ms);
	if (!e)
		return;
	if (e->status != reason)
		vt_why(run, "REJ reason %d (%s), expected %d", e->status,
		       ibcm_reject_msg(e->status), reason);
	if (pd)
		vtc_pd_is(run, e, pd, "REJ");
	if (a->id->state != IB_CM_IDLE)
		vt_why(run, "requester in state %d after the REJ",
		       a->id->state);
}

static void vtc_case_noservice(struct vt_run *run, struct vtc_log *log,
			       struct vtc_side *a, struct vtc_side *b)
{
	vtc_expect_rej(run, log, a, b, VTC_SID_NONE,
		       IB_CM_REJ_INVALID_SERVICE_ID, NULL);
	if (vtc_count(log, IB_CM_REQ_RECEIVED))
		vt_why(run, "a listener got the REQ");
	vt_result(run, "cm noservice: REQ to no listener: REJ reason 8 (service ID)");
}

static void vtc_case_reject(struct vt_run *run, struct vtc_log *log,
			    struct vtc_side *a, struct vtc_side *b)
{
	if (ib_cm_listen(b->id, cpu_to_be64(VTC_SID)))
		vt_why(run, "ib_cm_listen");
	else
		vtc_expect_rej(run, log, a, b, VTC_SID,
			       IB_CM_REJ_CONSUMER_DEFINED,
			       "vt rej private data");
	vt_result(run, "cm reject: rejected with private data: REJ reason 28, the data");
}

static void vtc_case_autoreject(struct vt_run *run, struct vtc_log *log,
				struct vtc_side *a, struct vtc_side *b)
{
	log->autoreject = cpu_to_be64(VTC_SID_AUTOREJECT);
	if (ib_cm_listen(b->id, cpu_to_be64(VTC_SID_AUTOREJECT)))
		vt_why(run, "ib_cm_listen");
	else
		vtc_expect_rej(run, log, a, b, VTC_SID_AUTOREJECT,
			       IB_CM_REJ_CONSUMER_DEFINED, NULL);
	if (vtc_count(log, IB_CM_REQ_RECEIVED) != 1)
		vt_why(run, "%d REQ_RECEIVED", vtc_count(log,
							 IB_CM_REQ_RECEIVED));
	vt_result(run, "cm autoreject: a callback returning non-zero: REJ reason 28");
}

static void vtc_case_mra(struct vt_run *run, struct vtc_log *log,
			 struct vtc_side *a, struct vtc_side *b)
{
	struct ib_cm_rep_param rep = {};
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct vtc_ev *e;
	int ret;

	if (ib_cm_listen(b->id, cpu_to_be64(VTC_SID))) {
		vt_why(run, "ib_cm_listen");
		goto out;
	}
	vtc_path(&path, &a->s, &b->s, b->s.lid);
	vtc_req_param(&req, &path, a, VTC_SID, NULL);
	/* a REQ timeout of 2 x 16 + 4 ms, 2 retries: gone after 120 ms */
	req.remote_cm_response_timeout = 10;
	req.max_cm_retries = 2;
	ret = ib_send_cm_req(a->id, &req);
	if (ret) {
		vt_why(run, "ib_send_cm_req: %d", ret);
		goto out;
	}
	e = vtc_wait(run, log, IB_CM_REQ_RECEIVED, NULL, run->wait_ms);
	if (!e)
		goto out;
	b->conn = e->id;
	/* 4.096 us * 2^20 = 4.3 s of service time */
	ret = ib_send_cm_mra(b->conn, 20, "vt mra private data", 20);
	if (ret) {
		vt_why(run, "ib_send_cm_mra: %d", ret);
		goto out;
	}
	e = vtc_wait(run, log, IB_CM_MRA_RECEIVED, a->id, run->wait_ms);
	vtc_pd_is(run, e, "vt mra private data", "MRA");
	if (e && (e->service_timeout != 20 ||
		  a->id->state != IB_CM_MRA_REQ_RCVD ||
		  b->conn->state != IB_CM_MRA_REQ_SENT))
		vt_why(run, "MRA: service timeout %u, states %d and %d",
		       e->service_timeout, a->id->state, b->conn->state);
	/* well past the REQ's own timeout and retries */
	msleep(500);
	if (vtc_count(log, IB_CM_REQ_ERROR))
		vt_why(run, "REQ_ERROR although the MRA asked for more time");
	rep.qp_num = b->q.qp->qp_num;
	rep.starting_psn = 1;
	rep.rnr_retry_count = 7;
	ret = ib_send_cm_rep(b->conn, &rep);
	if (ret) {
		vt_why(run, "ib_send_cm_rep after the MRA: %d", ret);
		goto out;
	}
	if (!vtc_wait(run, log, IB_CM_REP_RECEIVED, a->id, run->wait_ms))
		goto out;
	/* the requester needs time too: an MRA for the REP */
	ret = ib_send_cm_mra(a->id, 20, NULL, 0);
	if (ret)
		vt_why(run, "ib_send_cm_mra for the REP: %d", ret);
	if (!vtc_wait(run, log, IB_CM_MRA_RECEIVED, b->conn, run->wait_ms))
		goto out;
	if (b->conn->state != IB_CM_MRA_REP_RCVD)
		vt_why(run, "responder in state %d after the MRA",
		       b->conn->state);
	msleep(200);
	ret = ib_send_cm_rtu(a->id, NULL, 0);
	if (ret)
		vt_why(run, "ib_send_cm_rtu: %d", ret);
	vtc_wait(run, log, IB_CM_RTU_RECEIVED, b->conn, run->wait_ms);
	if (vtc_count(log, IB_CM_REQ_ERROR) || vtc_count(log, IB_CM_REP_ERROR))
		vt_why(run, "a request timed out despite the MRAs");
out:
	vt_result(run, "cm mra: MRAs for the REQ and the REP extend the waits");
}

static void vtc_case_sidr(struct vt_run *run, struct vtc_log *log,
			  struct vtc_side *a, struct vtc_side *b)
{
	struct ib_cm_sidr_rep_param rep = {};
	struct ib_cm_sidr_req_param req = {};
	struct sa_path_rec path;
	struct vt_conn c;
	struct ib_ah *ah;
	struct vtc_ev *e;
	struct ib_wc wc;
	int ret;

	vt_conn_default(run, &c);
	if (vt_qp_connect(run, &a->q, 0, 0, &c) ||
	    vt_qp_connect(run, &b->q, 0, 0, &c))
		goto out;
	if (ib_cm_listen(b->id, cpu_to_be64(VTC_SID_UD))) {
		vt_why(run, "ib_cm_listen");
		goto out;
	}
	vtc_path(&path, &a->s, &b->s, b->s.lid);
	req.path = &path;
	req.service_id = cpu_to_be64(VTC_SID_UD);
	req.timeout_ms = 100;
	req.max_cm_retries = 3;
	req.private_data = "vt sidr private data";
	req.private_data_len = 21;
	ret = ib_send_cm_sidr_req(a->id, &req);
	if (ret) {
		vt_why(run, "ib_send_cm_sidr_req: %d", ret);
		goto out;
	}
	e = vtc_wait(run, log, IB_CM_SIDR_REQ_RECEIVED, NULL, run->wait_ms);
	if (!vtc_pd_is(run, e, "vt sidr private data", "SIDR_REQ"))
		goto out;
	rep.qp_num = b->q.qp->qp_num;
	rep.qkey = VT_QKEY;
	rep.status = IB_SIDR_SUCCESS;
	ret = ib_send_cm_sidr_rep(e->id, &rep);
	if (ret) {
		vt_why(run, "ib_send_cm_sidr_rep: %d", ret);
		goto out;
	}
	e = vtc_wait(run, log, IB_CM_SIDR_REP_RECEIVED, a->id, run->wait_ms);
	if (!e)
		goto out;
	if (e->status != IB_SIDR_SUCCESS || e->qpn != b->q.qp->qp_num ||
	    e->qkey != VT_QKEY) {
		vt_why(run, "SIDR_REP: status %d QPN %#x Q_Key %#x", e->status,
		       e->qpn, e->qkey);
		goto out;
	}
	ah = vt_create_ah(run, &a->s, b->s.lid, NULL);
	if (!ah)
		goto out;
	vt_fill(a->buf.va, 256, 21);
	if (vt_post_recv(&b->q, 2, b->buf.dma, 256 + VT_GRH_BYTES,
			 b->s.pd->local_dma_lkey) ||
	    vt_post_ud(&a->q, 1, IB_WR_SEND, a->buf.dma, 256,
		       a->s.pd->local_dma_lkey, 0, ah, e->qpn))
		vt_why(run, "posting the datagram");
	else if (!vt_expect(run, &a->q.scq, 1, IB_WC_SUCCESS, &wc, "UD SEND") &&
		 !vt_expect(run, &b->q.rcq, 2, IB_WC_SUCCESS, &wc, "UD RECV") &&
		 vt_verify(b->buf.va + VT_GRH_BYTES, 256, 21) >= 0)
		vt_why(run, "the datagram arrived changed");
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out:
	vt_result(run, "cm sidr: SIDR_REP gives the UD QP and Q_Key, a datagram arrives");

	req.service_id = cpu_to_be64(VTC_SID_NONE);
	ret = ib_send_cm_sidr_req(a->id, &req);
	if (ret)
		vt_why(run, "second ib_send_cm_sidr_req: %d", ret);
	e = vtc_wait(run, log, IB_CM_SIDR_REP_RECEIVED, a->id, run->wait_ms);
	if (e && e->status != IB_SIDR_UNSUPPORTED)
		vt_why(run, "SIDR_REP status %d, expected 1 (unsupported)",
		       e->status);
	vt_result(run, "cm sidr: no listener: answered 'unsupported'");
}

static void vtc_case_dup(struct vt_run *run, struct vtc_log *log,
			 struct vtc_side *a, struct vtc_side *b)
{
	struct ib_cm_rep_param rep = {};
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct vtc_ev *e;
	int ret;

	if (ib_cm_listen(b->id, cpu_to_be64(VTC_SID))) {
		vt_why(run, "ib_cm_listen");
		goto out;
	}
	vtc_path(&path, &a->s, &b->s, b->s.lid);
	vtc_req_param(&req, &path, a, VTC_SID, NULL);
	/* resent every 2 x 16 + 4 ms, 15 times: the responder waits 150 */
	req.remote_cm_response_timeout = 10;
	req.max_cm_retries = 15;
	ret = ib_send_cm_req(a->id, &req);
	if (ret) {
		vt_why(run, "ib_send_cm_req: %d", ret);
		goto out;
	}
	e = vtc_wait(run, log, IB_CM_REQ_RECEIVED, NULL, run->wait_ms);
	if (!e)
		goto out;
	b->conn = e->id;
	msleep(150);
	rep.qp_num = b->q.qp->qp_num;
	rep.starting_psn = 1;
	ret = ib_send_cm_rep(b->conn, &rep);
	if (ret) {
		vt_why(run, "ib_send_cm_rep: %d", ret);
		goto out;
	}
	if (!vtc_wait(run, log, IB_CM_REP_RECEIVED, a->id, run->wait_ms))
		goto out;
	ret = ib_send_cm_rtu(a->id, NULL, 0);
	if (ret)
		vt_why(run, "ib_send_cm_rtu: %d", ret);
	vtc_wait(run, log, IB_CM_RTU_RECEIVED, b->conn, run->wait_ms);
	/* anything a late duplicate would bring */
	msleep(100);
	if (vtc_count(log, IB_CM_REQ_RECEIVED) != 1 ||
	    vtc_count(log, IB_CM_REP_RECEIVED) != 1)
		vt_why(run, "%d REQ_RECEIVED and %d REP_RECEIVED, not 1 and 1",
		       vtc_count(log, IB_CM_REQ_RECEIVED),
		       vtc_count(log, IB_CM_REP_RECEIVED));
	if (a->id->state != IB_CM_ESTABLISHED ||
	    b->conn->state != IB_CM_ESTABLISHED)
		vt_why(run, "states %d and %d", a->id->state, b->conn->state);
out:
	vt_result(run, "cm dup: a REQ resent while the responder waits: one connection");
}

static void vtc_case_timeout(struct vt_run *run, struct vtc_log *log,
			     struct vtc_side *a, struct vtc_side *b)
{
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	unsigned long start;
	struct vtc_ev *e;
	unsigned int ms;
	int ret;

	/* a LID the subnet manager gave nobody: the switch drops the REQ */
	vtc_path(&path, &a->s, &b->s, 0x2fff);
	vtc_req_param(&req, &path, a, VTC_SID, NULL);
	/* 2 x 16 + 4 ms a try, 1 + 3 tries: 144 ms */
	req.remote_cm_response_timeout = 10;
	req.max_cm_retries = 3;
	start = jiffies;
	ret = ib_send_cm_req(a->id, &req);
	if (ret) {
		vt_why(run, "ib_send_cm_req: %d", ret);
		goto out;
	}
	e = vtc_wait(run, log, IB_CM_REQ_ERROR, a->id, run->wait_ms);
	if (!e)
		goto out;
	ms = jiffies_to_msecs(e->at - start);
	vt_out(run, "# REQ_ERROR after %u ms", ms);
	if (e->status != IB_WC_RESP_TIMEOUT_ERR)
		vt_why(run, "send status %d (%s), expected RESP_TIMEOUT_ERR",
		       e->status, ib_wc_status_msg(e->status));
	if (ms < 144)
		vt_why(run, "REQ_ERROR after %u ms, before 4 tries of 36 ms",
		       ms);
	if (a->id->state != IB_CM_IDLE)
		vt_why(run, "state %d after REQ_ERROR", a->id->state);
out:
	vt_result(run, "cm timeout: no answer: REQ_ERROR (response timeout) after 4 tries");
}

/*
 * An SRP login to ib_srpt over the IB CM, as ib_srp logs in: vmlx0 sends
 * an SRP_LOGIN_REQ in a REQ to vmlx1 on the service ID (ib_srpt's
 * default, vmlx0's node GUID), initiator port ID 0 and vmlx0's port
 * GUID (the scenario gives it an ACL); the REP brings the SRP_LOGIN_RSP,
 * a TEST UNIT READY on LUN 0 is answered by an SRP_RSP, a DREQ by a DREP.
 */
static void vtc_case_srp(struct vt_run *run, struct vtc_log *log,
			 struct vtc_side *a, struct vtc_side *b)
{
	u64 sguid = be64_to_cpu(a->s.dev->node_guid);
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	u8 login[64] = {};
	struct vtc_ev *e;
	struct ib_wc wc;
	u8 *iu, *rsp;
	int ret;

	put_unaligned_be64(0x5ee0, login + 8);		/* tag */
	put_unaligned_be32(1024, login + 16);		/* req_it_iu_len */
	put_unaligned_be16(0x6, login + 24);		/* direct, indirect */
	memcpy(login + 40, &a->s.gid.global.interface_id, 8);
	put_unaligned_be64(sguid, login + 48);		/* target port ID */
	put_unaligned_be64(sguid, login + 56);
	vtc_path(&path, &a->s, &b->s, b->s.lid);
	vtc_req_param(&req, &path, a, sguid, NULL);
	req.private_data = login;
	req.private_data_len = sizeof(login);
	ret = ib_send_cm_req(a->id, &req);
	if (ret) {
		vt_why(run, "ib_send_cm_req: %d", ret);
		goto login;
	}
	if (vtc_modify(run, a, a->id, IB_QPS_INIT))
		goto login;
	e = vtc_wait(run, log, IB_CM_REP_RECEIVED, a->id, run->wait_ms);
	if (!e)
		goto login;
	if (e->pd[0] != 0xc0 || get_unaligned_be64(e->pd + 8) != 0x5ee0 ||
	    !get_unaligned_be32(e->pd + 4) ||
	    get_unaligned_be32(e->pd + 20) != 1024 ||
	    (get_unaligned_be16(e->pd + 24) & 0x6) != 0x6)
		vt_why(run, "SRP_LOGIN_RSP %*ph", 28, e->pd);
	vt_out(run, "# SRP_LOGIN_RSP: %u credits, max_it_iu_len %u",
	       get_unaligned_be32(e->pd + 4), get_unaligned_be32(e->pd + 16));
login:
	vt_result(run, "cm srp: SRP_LOGIN_REQ in the REQ, SRP_LOGIN_RSP in the REP");
	if (!e)
		return;

	if (vtc_modify(run, a, a->id, IB_QPS_RTR) ||
	    vtc_modify(run, a, a->id, IB_QPS_RTS))
		goto cmd;
	if (ib_send_cm_rtu(a->id, NULL, 0)) {
		vt_why(run, "ib_send_cm_rtu");
		goto cmd;
	}
	iu = a->buf.va;
	rsp = a->buf.va + 1024;
	memset(a->buf.va, 0, 2048);
	iu[0] = 0x02;					/* SRP_CMD */
	put_unaligned_be64(0x77, iu + 8);		/* tag; LUN 0, TUR */
	if (vt_post_recv(&a->q, 2, a->buf.dma + 1024, 1024,
			 a->s.pd->local_dma_lkey) ||
	    vt_post_send(&a->q, 1, IB_WR_SEND, a->buf.dma, 48,
			 a->s.pd->local_dma_lkey, 0, 0, 0)) {
		vt_why(run, "posting the SRP_CMD failed");
		goto cmd;
	}
	if (vt_expect(run, &a->q.scq, 1, IB_WC_SUCCESS, &wc, "SRP_CMD") ||
	    vt_expect(run, &a->q.rcq, 2, IB_WC_SUCCESS, &wc, "SRP_RSP"))
		goto cmd;
	if (wc.byte_len < 36 || rsp[0] != 0xc1 ||
	    get_unaligned_be64(rsp + 8) != 0x77 || !get_unaligned_be32(rsp + 4))
		vt_why(run, "SRP_RSP %*ph", 36, rsp);
	vt_out(run, "# SRP_RSP: status %#x, %u credits", rsp[19],
	       get_unaligned_be32(rsp + 4));
cmd:
	vt_result(run, "cm srp: TEST UNIT READY answered by an SRP_RSP");

	if (ib_send_cm_dreq(a->id, NULL, 0))
		vt_why(run, "ib_send_cm_dreq");
	else
		vtc_wait(run, log, IB_CM_DREP_RECEIVED, a->id, run->wait_ms);
	vt_result(run, "cm srp: DREQ answered by a DREP");
}

static const char * const vtc_cases[] = {
	"connect", "noservice", "reject", "autoreject", "mra", "sidr",
	"dup", "timeout", "srp",
};

typedef void (*vtc_case_fn)(struct vt_run *run, struct vtc_log *log,
			    struct vtc_side *a, struct vtc_side *b);

static const vtc_case_fn vtc_case_fns[] = {
	vtc_case_connect, vtc_case_noservice, vtc_case_reject,
	vtc_case_autoreject, vtc_case_mra, vtc_case_sidr, vtc_case_dup,
	vtc_case_timeout, vtc_case_srp,
};

/* One case on fresh sides, QPs, identifiers and log. */
static void vtc_run_case(struct vt_run *run, int i)
{
	enum ib_qp_type type = !strcmp(vtc_cases[i], "sidr") ? IB_QPT_UD :
							       IB_QPT_RC;
	struct vtc_side *a, *b;
	struct vtc_log *log;

	log = kzalloc(sizeof(*log), GFP_KERNEL);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!log || !a || !b) {
		vt_why(run, "no memory");
		vt_result(run, "cm %s: set up", vtc_cases[i]);
		goto out;
	}
	vtc_log_init(log);
	if (vtc_side_init(run, a, run->va, log, type) ||
	    vtc_side_init(run, b, run->vb, log, type)) {
		vt_result(run, "cm %s: set up", vtc_cases[i]);
		goto fini;
	}
	vtc_case_fns[i](run, log, a, b);
fini:
	vtc_side_fini(a);
	vtc_side_fini(b);
	vtc_destroy_new(log);
out:
	kfree(a);
	kfree(b);
	kfree(log);
}

/* ---------------------------------------------------------------------- */
/* Identifiers held across commands                                        */
/* ---------------------------------------------------------------------- */

/**
 * struct vtc_hold - what "cm hold" leaves behind
 * @log: the events of its identifiers
 * @b: a listener on vmlx1 for VTC_SID_HOLD that answers nothing
 * @a: a connection established with @b3 (vmlx1, listening on VTC_SID)
 * @b3: see @a
 * @a2: a REQ to a LID nobody has, resent after hours (REQ_SENT)
 * @a3: a REQ to @b's service, never answered (REQ_SENT, and REQ_RCVD on
 *	vmlx1)
 * @a4: a connection with @b4 over a path of long packet life time, ended:
 *	both in TIMEWAIT for 8 s
 * @b4: see @a4 (listening on VTC_SID_UD)
 */
struct vtc_hold {
	struct vtc_log		log;
	struct vtc_side		a, b, a2, a3, b3, a4, b4;
};

/* protected by vt_run_lock, which commands and device removal take */
static struct vtc_hold *vtc_held;

static void vtc_release(void)
{
	struct vtc_hold *h = vtc_held;

	if (!h)
		return;
	vtc_held = NULL;
	vtc_side_fini(&h->a);
	vtc_side_fini(&h->b);
	vtc_side_fini(&h->a2);
	vtc_side_fini(&h->a3);
	vtc_side_fini(&h->b3);
	vtc_side_fini(&h->a4);
	vtc_side_fini(&h->b4);
	vtc_destroy_new(&h->log);
	kfree(h);
}

static void vtc_hold(struct vt_run *run)
{
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct vtc_hold *h;

	vtc_release();
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		vt_why(run, "no memory");
		goto out;
	}
	vtc_held = h;
	vtc_log_init(&h->log);
	if (vtc_side_init(run, &h->a, run->va, &h->log, IB_QPT_RC) ||
	    vtc_side_init(run, &h->b, run->vb, &h->log, IB_QPT_RC) ||
	    vtc_side_init(run, &h->a2, run->va, &h->log, IB_QPT_RC) ||
	    vtc_side_init(run, &h->a3, run->va, &h->log, IB_QPT_RC) ||
	    vtc_side_init(run, &h->b3, run->vb, &h->log, IB_QPT_RC) ||
	    vtc_side_init(run, &h->a4, run->va, &h->log, IB_QPT_RC) ||
	    vtc_side_init(run, &h->b4, run->vb, &h->log, IB_QPT_RC))
		goto out;
	if (ib_cm_listen(h->b.id, cpu_to_be64(VTC_SID_HOLD)) ||
	    ib_cm_listen(h->b3.id, cpu_to_be64(VTC_SID)) ||
	    ib_cm_listen(h->b4.id, cpu_to_be64(VTC_SID_UD))) {
		vt_why(run, "ib_cm_listen");
		goto out;
	}
	/* established */
	if (!vtc_connect(run, &h->log, &h->a, &h->b3, VTC_SID, VTC_PLT))
		goto out;
	/* in TIMEWAIT: 4.096 us * 2^21 = 8.6 s */
	if (!vtc_connect(run, &h->log, &h->a4, &h->b4, VTC_SID_UD, 20) ||
	    ib_send_cm_dreq(h->a4.id, NULL, 0) ||
	    !vtc_wait(run, &h->log, IB_CM_DREQ_RECEIVED, h->b4.conn,
		      run->wait_ms) ||
	    ib_send_cm_drep(h->b4.conn, NULL, 0) ||
	    !vtc_wait(run, &h->log, IB_CM_DREP_RECEIVED, h->a4.id,
		      run->wait_ms)) {
		vt_why(run, "disconnecting into TIMEWAIT");
		goto out;
	}
	/* a REQ that waits for hours (4.096 us * 2^31 a try) */
	vtc_path(&path, &h->a2.s, &h->b.s, 0x2fff);
	vtc_req_param(&req, &path, &h->a2, VTC_SID_HOLD, NULL);
	req.remote_cm_response_timeout = 31;
	req.max_cm_retries = 15;
	if (ib_send_cm_req(h->a2.id, &req)) {
		vt_why(run, "ib_send_cm_req to nowhere");
		goto out;
	}
	/* a REQ the held listener notes and never answers: REQ_RCVD */
	vtc_path(&path, &h->a3.s, &h->b.s, h->b.s.lid);
	vtc_req_param(&req, &path, &h->a3, VTC_SID_HOLD, NULL);
	req.remote_cm_response_timeout = 31;
	req.max_cm_retries = 15;
	if (ib_send_cm_req(h->a3.id, &req))
		vt_why(run, "ib_send_cm_req to the held listener");
	else
		vtc_wait(run, &h->log, IB_CM_REQ_RECEIVED, NULL,
			 run->wait_ms);
out:
	vt_result(run, "cm hold: LISTEN, ESTABLISHED, REQ_SENT, REQ_RCVD, TIMEWAIT held");
}

static void vtc_check(struct vt_run *run)
{
	unsigned int want;
	int n;

	if (run->argc < 2 || kstrtouint(run->argv[1], 0, &want)) {
		vt_why(run, "cm check N: N missing");
	} else if (!vtc_held) {
		vt_why(run, "nothing held");
	} else {
		/* the REQ "cm hold" sent itself is one of them */
		n = vtc_count_sid(&vtc_held->log, IB_CM_REQ_RECEIVED,
				  VTC_SID_HOLD) - 1;
		if (n != want)
			vt_why(run, "the held listener got %d REQs, %u expected",
			       n, want);
	}
	vt_result(run, "cm check: REQs the held listener got");
}

/**
 * vt_cm_remove_dev - a device goes away: release what is held on it
 * @vdev: the device
 *
 * Context: under vt_run_lock.
 */
void vt_cm_remove_dev(struct vt_dev *vdev)
{
	struct vtc_hold *h = vtc_held;

	if (h && (h->a.s.vdev == vdev || h->b.s.vdev == vdev))
		vtc_release();
}

/**
 * vt_cm_exit - the module goes away: release what is held
 *
 * Context: under vt_run_lock, or after the last command.
 */
void vt_cm_exit(void)
{
	vtc_release();
}

/**
 * vt_cmd_cm - the "cm" command
 * @run: the command
 *
 * Return: 0, or -EINVAL for unknown arguments.
 */
int vt_cmd_cm(struct vt_run *run)
{
	unsigned int i;

	if (run->argc && !strcmp(run->argv[0], "hold")) {
		vtc_hold(run);
		return 0;
	}
	if (run->argc && !strcmp(run->argv[0], "check")) {
		vtc_check(run);
		return 0;
	}
	if (run->argc && !strcmp(run->argv[0], "release")) {
		vtc_release();
		return 0;
	}
	if (!vt_args_known(run, vtc_cases, ARRAY_SIZE(vtc_cases)))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(vtc_cases) && !vt_aborted(run); i++)
		if (vt_has_arg(run, vtc_cases[i]))
			vtc_run_case(run, i);
	return 0;
}
