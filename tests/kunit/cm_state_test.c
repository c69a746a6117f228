// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the connection manager's state machine (core/cm*.c), on
 * a fake one-port IB device, with the CM's transport replaced: what the
 * CM sends is kept (struct kcm_wire) instead of reaching a MAD layer, and
 * the test hands those MADs, or MADs it builds, to the CM's receive path
 * (cm_recv_inject()) as if the port had received them.  Both sides of a
 * connection are identifiers on the same port.  A request waits until the
 * test cancels it (kcm_timeout()) or the CM cancels it; other messages
 * end as soon as they are sent.  Consumer events are noted by the
 * callback and checked after cm_flush().
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <rdma/ib_cm.h>

#include "cm_priv.h"

#define KCM_LID		3
#define KCM_GUID	0x06766d0000001234ULL
#define KCM_SID		0x1000000000000123ULL
#define KCM_WIRE	48
#define KCM_EVENTS	32

/* The fake driver; one device at a time. */
struct kcm_dev {
	struct ib_device	ibdev;
	u32			cap_mask;
};

static struct kcm_dev *to_kcm(struct ib_device *ibdev)
{
	return container_of(ibdev, struct kcm_dev, ibdev);
}

static int kcm_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	attr->max_cqe = 4096;
	attr->max_qp_wr = 4096;
	attr->local_ca_ack_delay = 15;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static int kcm_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	attr->state = IB_PORT_ACTIVE;
	attr->lid = KCM_LID;
	attr->pkey_tbl_len = 2;
	attr->gid_tbl_len = 1;
	attr->port_cap_flags = to_kcm(ibdev)->cap_mask;
	return 0;
}

static int kcm_modify_port(struct ib_device *ibdev, u32 port, int mask,
			   struct ib_port_modify *props)
{
	struct kcm_dev *kd = to_kcm(ibdev);

	kd->cap_mask |= props->set_port_cap_mask;
	kd->cap_mask &= ~props->clr_port_cap_mask;
	return 0;
}

static int kcm_port_immutable(struct ib_device *ibdev, u32 port,
			      struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = 2;
	immutable->gid_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	return 0;
}

static int kcm_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	*pkey = index ? 0x8001 : 0xffff;
	return 0;
}

static int kcm_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = cpu_to_be64(KCM_GUID);
	return 0;
}

static int kcm_ok_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int kcm_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	cq->cqe = attr->cqe;
	return 0;
}

static int kcm_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int kcm_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int kcm_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int kcm_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata)
{
	if (init->qp_type != IB_QPT_SMI && init->qp_type != IB_QPT_GSI)
		return -EOPNOTSUPP;
	qp->qp_num = init->qp_type == IB_QPT_SMI ? 0 : 1;
	return 0;
}

static int kcm_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			 struct ib_udata *udata)
{
	return 0;
}

static int kcm_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int kcm_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad)
{
	return 0;
}

static int kcm_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	return 0;
}

static int kcm_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			 struct ib_udata *udata)
{
	return 0;
}

static int kcm_destroy_ah(struct ib_ah *ah, u32 flags)
{
	return 0;
}

static const struct ib_device_ops kcm_ops = {
	.query_device = kcm_query_device,
	.query_port = kcm_query_port,
	.modify_port = kcm_modify_port,
	.get_port_immutable = kcm_port_immutable,
	.query_pkey = kcm_query_pkey,
	.query_gid = kcm_query_gid,
	.alloc_pd = kcm_ok_pd,
	.dealloc_pd = kcm_ok_pd,
	.create_cq = kcm_create_cq,
	.destroy_cq = kcm_destroy_cq,
	.poll_cq = kcm_poll_cq,
	.req_notify_cq = kcm_req_notify_cq,
	.create_qp = kcm_create_qp,
	.modify_qp = kcm_modify_qp,
	.destroy_qp = kcm_destroy_qp,
	.post_send = kcm_post_send,
	.post_recv = kcm_post_recv,
	.create_ah = kcm_create_ah,
	.destroy_ah = kcm_destroy_ah,
};

/* ------------------------------------------------------------------ */
/* The transport: the wire as a list                                   */
/* ------------------------------------------------------------------ */

/**
 * struct kcm_wire - what the CM sent
 * @lock: protects everything below
 * @mads: copies of the MADs, in order
 * @taken: the test has taken that one
 * @n: how many
 * @pending: requests waiting for their answer (struct cm_msg.test_entry)
 * @ended: messages to end from @reap (sent, or cancelled)
 * @status: how each of @ended ends, by position
 * @reap: ends them outside the CM's locks
 * @last_modify: the timeout of the last ib_modify_mad() equivalent
 * @post_ret: what posting returns (0, or an error to inject)
 */
struct kcm_wire {
	spinlock_t		lock;	/* protects the members below */
	struct ib_mad		mads[KCM_WIRE];
	bool			taken[KCM_WIRE];
	int			n;
	struct list_head	pending;
	struct list_head	ended;
	struct work_struct	reap;
	u32			last_modify;
	int			post_ret;
};

static struct kcm_wire kcm;

static void kcm_reap(struct work_struct *w)
{
	struct cm_msg *msg;

	for (;;) {
		spin_lock_irq(&kcm.lock);
		msg = list_first_entry_or_null(&kcm.ended, struct cm_msg,
					       test_entry);
		if (msg)
			list_del_init(&msg->test_entry);
		spin_unlock_irq(&kcm.lock);
		if (!msg)
			return;
		/* a request ends cancelled, another message sent */
		cm_msg_done(msg, msg->timeout_ms ? IB_WC_WR_FLUSH_ERR :
						   IB_WC_SUCCESS);
	}
}

static int kcm_post(struct cm_msg *msg)
{
	unsigned long flags;

	spin_lock_irqsave(&kcm.lock, flags);
	if (kcm.post_ret) {
		spin_unlock_irqrestore(&kcm.lock, flags);
		return kcm.post_ret;
	}
	if (kcm.n < KCM_WIRE)
		kcm.mads[kcm.n++] = msg->mad;
	if (msg->timeout_ms) {
		list_add_tail(&msg->test_entry, &kcm.pending);
	} else {
		list_add_tail(&msg->test_entry, &kcm.ended);
		schedule_work(&kcm.reap);
	}
	spin_unlock_irqrestore(&kcm.lock, flags);
	return 0;
}

static void kcm_cancel(struct cm_msg *msg)
{
	unsigned long flags;

	spin_lock_irqsave(&kcm.lock, flags);
	list_move_tail(&msg->test_entry, &kcm.ended);
	schedule_work(&kcm.reap);
	spin_unlock_irqrestore(&kcm.lock, flags);
}

static int kcm_modify(struct cm_msg *msg, u32 timeout_ms)
{
	kcm.last_modify = timeout_ms;
	return 0;
}

static const struct cm_transport kcm_transport = {
	.post = kcm_post,
	.cancel = kcm_cancel,
	.modify = kcm_modify,
};

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/**
 * struct kcm_ev - one event of a consumer callback
 * @type: the event
 * @id: the identifier
 * @status: REJ reason, send status, SIDR status
 * @value: remote QPN (REQ, REP), QPN (SIDR_REP), service timeout (MRA)
 * @gone: a new identifier (REQ, SIDR_REQ) the test or the CM destroyed
 * @pd: the first bytes of its private data
 */
struct kcm_ev {
	enum ib_cm_event_type	type;
	struct ib_cm_id		*id;
	bool			gone;
	int			status;
	u32			value;
	u8			pd[8];
};

/**
 * struct kcm_ctx - a test's device, port and events
 * @kd: the fake device
 * @port: the CM's port on it
 * @lock: protects @ev and @n
 * @ev: the events
 * @n: how many
 * @refuse: the callback returns non-zero for REQs
 */
struct kcm_ctx {
	struct kcm_dev		*kd;
	struct cm_port		*port;
	spinlock_t		lock;	/* protects ev and n */
	struct kcm_ev		ev[KCM_EVENTS];
	int			n;
	bool			refuse;
};

static int kcm_handler(struct ib_cm_id *id, const struct ib_cm_event *event)
{
	struct kcm_ctx *ctx = id->context;
	struct kcm_ev *e;

	spin_lock_irq(&ctx->lock);
	if (ctx->n < KCM_EVENTS) {
		e = &ctx->ev[ctx->n++];
		e->type = event->event;
		e->id = id;
		if (event->private_data)
			memcpy(e->pd, event->private_data, sizeof(e->pd));
		switch (event->event) {
		case IB_CM_REQ_RECEIVED:
			e->value = event->param.req_rcvd.remote_qpn;
			break;
		case IB_CM_REP_RECEIVED:
			e->value = event->param.rep_rcvd.remote_qpn;
			break;
		case IB_CM_REJ_RECEIVED:
			e->status = event->param.rej_rcvd.reason;
			break;
		case IB_CM_MRA_RECEIVED:
			e->value = event->param.mra_rcvd.service_timeout;
			break;
		case IB_CM_SIDR_REP_RECEIVED:
			e->status = event->param.sidr_rep_rcvd.status;
			e->value = event->param.sidr_rep_rcvd.qpn;
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
	if (ctx->refuse && event->event == IB_CM_REQ_RECEIVED) {
		e->gone = true;
		spin_unlock_irq(&ctx->lock);
		return 1;
	}
	spin_unlock_irq(&ctx->lock);
	return 0;
}

/* Destroy an identifier the CM made for a request. */
static void kcm_drop(struct kcm_ctx *ctx, struct ib_cm_id *id)
{
	int i;

	spin_lock_irq(&ctx->lock);
	for (i = 0; i < ctx->n; i++)
		if (ctx->ev[i].id == id)
			ctx->ev[i].gone = true;
	spin_unlock_irq(&ctx->lock);
	ib_destroy_cm_id(id);
}

/* Destroy the identifiers the CM made for requests and still exist. */
static void kcm_drop_new(struct kcm_ctx *ctx)
{
	struct ib_cm_id *id;
	int i;

	for (i = 0; i < ctx->n; i++) {
		if (ctx->ev[i].gone ||
		    (ctx->ev[i].type != IB_CM_REQ_RECEIVED &&
		     ctx->ev[i].type != IB_CM_SIDR_REQ_RECEIVED))
			continue;
		id = ctx->ev[i].id;
		kcm_drop(ctx, id);
	}
}

/* The number of events of @type (for @id, if not NULL). */
static int kcm_count(struct kcm_ctx *ctx, enum ib_cm_event_type type,
		     struct ib_cm_id *id)
{
	int i, n = 0;

	spin_lock_irq(&ctx->lock);
	for (i = 0; i < ctx->n; i++)
		n += ctx->ev[i].type == type && (!id || ctx->ev[i].id == id);
	spin_unlock_irq(&ctx->lock);
	return n;
}

/* The last event of @type, or NULL. */
static struct kcm_ev *kcm_last(struct kcm_ctx *ctx,
			       enum ib_cm_event_type type)
{
	struct kcm_ev *e = NULL;
	int i;

	spin_lock_irq(&ctx->lock);
	for (i = 0; i < ctx->n; i++)
		if (ctx->ev[i].type == type)
			e = &ctx->ev[i];
	spin_unlock_irq(&ctx->lock);
	return e;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static int kcm_init(struct kunit *test)
{
	struct kcm_ctx *ctx;
	struct kcm_dev *kd;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	spin_lock_init(&ctx->lock);
	spin_lock_init(&kcm.lock);
	INIT_LIST_HEAD(&kcm.pending);
	INIT_LIST_HEAD(&kcm.ended);
	INIT_WORK(&kcm.reap, kcm_reap);
	kcm.n = 0;
	kcm.post_ret = 0;
	memset(kcm.taken, 0, sizeof(kcm.taken));
	cm_set_transport(&kcm_transport);

	kd = ib_alloc_device(struct kcm_dev, ibdev);
	if (!kd)
		return -ENOMEM;
	kd->ibdev.ops = &kcm_ops;
	kd->ibdev.node_type = RDMA_NODE_IB_CA;
	kd->ibdev.phys_port_cnt = 1;
	kd->ibdev.node_guid = cpu_to_be64(KCM_GUID);
	if (ib_register_device(&kd->ibdev, "kcm%d", NULL)) {
		ib_dealloc_device(&kd->ibdev);
		return -ENODEV;
	}
	ctx->kd = kd;
	ctx->port = cm_port_get(&kd->ibdev, 1);
	test->priv = ctx;
	if (!ctx->port)
		return -ENODEV;
	return 0;
}

static void kcm_exit(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct cm_msg *msg, *tmp;

	if (!ctx || !ctx->kd)
		return;
	kcm_drop_new(ctx);
	/* what still waits for an answer ends as the MAD layer's would */
	spin_lock_irq(&kcm.lock);
	list_for_each_entry_safe(msg, tmp, &kcm.pending, test_entry)
		list_move_tail(&msg->test_entry, &kcm.ended);
	spin_unlock_irq(&kcm.lock);
	kcm_reap(NULL);
	flush_work(&kcm.reap);
	cm_flush();
	ib_unregister_device(&ctx->kd->ibdev);
	ib_dealloc_device(&ctx->kd->ibdev);
	cm_set_transport(NULL);
}

static struct ib_cm_id *kcm_id(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *id;

	id = ib_create_cm_id(&ctx->kd->ibdev, kcm_handler, ctx);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	return id;
}

/* Everything queued done: events delivered, sends ended. */
static void kcm_settle(void)
{
	cm_flush();
	flush_work(&kcm.reap);
	cm_flush();
}

/* The first MAD of @attr sent and not yet taken, or NULL. */
static struct ib_mad *kcm_take(__be16 attr)
{
	struct ib_mad *mad = NULL;
	int i;

	spin_lock_irq(&kcm.lock);
	for (i = 0; i < kcm.n; i++) {
		if (!kcm.taken[i] && kcm.mads[i].mad_hdr.attr_id == attr) {
			kcm.taken[i] = true;
			mad = &kcm.mads[i];
			break;
		}
	}
	spin_unlock_irq(&kcm.lock);
	return mad;
}

/* How many MADs of @attr were sent and not taken. */
static int kcm_sent(__be16 attr)
{
	int i, n = 0;

	spin_lock_irq(&kcm.lock);
	for (i = 0; i < kcm.n; i++)
		n += !kcm.taken[i] && kcm.mads[i].mad_hdr.attr_id == attr;
	spin_unlock_irq(&kcm.lock);
	return n;
}

/* Hand @mad to the CM as received from ourselves, and wait. */
static void kcm_deliver(struct kcm_ctx *ctx, const struct ib_mad *mad)
{
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.slid = KCM_LID,
		.src_qp = 1,
		.port_num = 1,
	};

	cm_recv_inject(ctx->port, mad, &wc);
	kcm_settle();
}

/* Take the next MAD of @attr off the wire and deliver it. */
static void kcm_pass(struct kunit *test, __be16 attr)
{
	struct ib_mad *mad = kcm_take(attr);

	KUNIT_ASSERT_NOT_NULL_MSG(test, mad, "no attribute 0x%x sent",
				  be16_to_cpu(attr));
	kcm_deliver(test->priv, mad);
}

/* End the first waiting request of @attr as the MAD layer's timeout. */
static void kcm_timeout(struct kunit *test, __be16 attr)
{
	struct cm_msg *msg, *found = NULL;

	spin_lock_irq(&kcm.lock);
	list_for_each_entry(msg, &kcm.pending, test_entry) {
		if (msg->mad.mad_hdr.attr_id == attr) {
			found = msg;
			list_del_init(&msg->test_entry);
			break;
		}
	}
	spin_unlock_irq(&kcm.lock);
	KUNIT_ASSERT_NOT_NULL(test, found);
	cm_msg_done(found, IB_WC_RESP_TIMEOUT_ERR);
	kcm_settle();
}

static int kcm_pending(__be16 attr)
{
	struct cm_msg *msg;
	int n = 0;

	flush_work(&kcm.reap);
	spin_lock_irq(&kcm.lock);
	list_for_each_entry(msg, &kcm.pending, test_entry)
		n += msg->mad.mad_hdr.attr_id == attr;
	spin_unlock_irq(&kcm.lock);
	return n;
}

static long kcm_counter(struct kcm_ctx *ctx, enum cm_counter_group group,
			enum cm_counter_index index)
{
	return atomic_long_read(&ctx->port->counters[group][index]);
}

static void kcm_path(struct sa_path_rec *p)
{
	memset(p, 0, sizeof(*p));
	p->rec_type = SA_PATH_REC_TYPE_IB;
	p->slid = cpu_to_be16(KCM_LID);
	p->dlid = cpu_to_be16(KCM_LID);
	p->sgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	p->sgid.global.interface_id = cpu_to_be64(KCM_GUID);
	p->dgid = p->sgid;
	p->pkey = cpu_to_be16(0xffff);
	p->mtu = IB_MTU_2048;
	p->rate = 3;
	p->sl = 2;
	p->packet_life_time = 0;
	p->reversible = 1;
}

static void kcm_req(struct ib_cm_req_param *req, struct sa_path_rec *p,
		    u32 qpn)
{
	memset(req, 0, sizeof(*req));
	req->primary_path = p;
	req->service_id = cpu_to_be64(KCM_SID);
	req->qp_num = qpn;
	req->qp_type = IB_QPT_RC;
	req->starting_psn = 0x1000;
	req->private_data = "request";
	req->private_data_len = 8;
	req->responder_resources = 2;
	req->initiator_depth = 3;
	req->remote_cm_response_timeout = 10;
	req->local_cm_response_timeout = 10;
	req->retry_count = 6;
	req->rnr_retry_count = 5;
	req->max_cm_retries = 4;
}

static void kcm_rep(struct ib_cm_rep_param *rep, u32 qpn)
{
	memset(rep, 0, sizeof(*rep));
	rep->qp_num = qpn;
	rep->starting_psn = 0x2000;
	rep->private_data = "reply";
	rep->private_data_len = 6;
	rep->responder_resources = 3;
	rep->initiator_depth = 2;
	rep->rnr_retry_count = 4;
}

/*
 * Listen on @listen, send a REQ from @active and deliver it: returns the
 * responder's new identifier (REQ_RCVD).
 */
static struct ib_cm_id *kcm_request(struct kunit *test,
				    struct ib_cm_id *listen,
				    struct ib_cm_id *active, u32 qpn)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct kcm_ev *e;

	if (listen->state != IB_CM_LISTEN)
		KUNIT_ASSERT_EQ(test, ib_cm_listen(listen,
						   cpu_to_be64(KCM_SID)), 0);
	kcm_path(&path);
	kcm_req(&req, &path, qpn);
	KUNIT_ASSERT_EQ(test, ib_send_cm_req(active, &req), 0);
	KUNIT_EXPECT_EQ(test, active->state, IB_CM_REQ_SENT);
	kcm_pass(test, CM_REQ_ATTR_ID);
	e = kcm_last(ctx, IB_CM_REQ_RECEIVED);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->value, qpn);
	KUNIT_EXPECT_STREQ(test, (char *)e->pd, "request");
	KUNIT_EXPECT_EQ(test, e->id->state, IB_CM_REQ_RCVD);
	return e->id;
}

/* Carry on from kcm_request() to ESTABLISHED on both sides. */
static void kcm_establish(struct kunit *test, struct ib_cm_id *active,
			  struct ib_cm_id *passive, u32 qpn)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_rep_param rep;

	kcm_rep(&rep, qpn);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rep(passive, &rep), 0);
	KUNIT_EXPECT_EQ(test, passive->state, IB_CM_REP_SENT);
	kcm_pass(test, CM_REP_ATTR_ID);
	KUNIT_EXPECT_EQ(test, active->state, IB_CM_REP_RCVD);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REP_RECEIVED, active), 1);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rtu(active, "ready", 6), 0);
	KUNIT_EXPECT_EQ(test, active->state, IB_CM_ESTABLISHED);
	kcm_pass(test, CM_RTU_ATTR_ID);
	KUNIT_EXPECT_EQ(test, passive->state, IB_CM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_RTU_RECEIVED, passive), 1);
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

/* IsCM set on the port while the CM has it; local IDs unique, not 0. */
static void cm_port_and_ids(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *ids[64];
	int i, j;

	KUNIT_EXPECT_TRUE(test, ctx->kd->cap_mask & IB_PORT_CM_SUP);
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		ids[i] = kcm_id(test);
		KUNIT_EXPECT_NE(test, be32_to_cpu(ids[i]->local_id), 0U);
		KUNIT_EXPECT_EQ(test, ids[i]->state, IB_CM_IDLE);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, be32_to_cpu(ids[i]->local_id),
					be32_to_cpu(ids[j]->local_id));
	}
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		ib_destroy_cm_id(ids[i]);
}

/* The REQ on the wire says what the request asked for. */
static void cm_req_wire(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *a = kcm_id(test);
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct cm_req_msg *w;

	kcm_path(&path);
	kcm_req(&req, &path, 0x77);
	KUNIT_ASSERT_EQ(test, ib_send_cm_req(a, &req), 0);
	w = (struct cm_req_msg *)kcm_take(CM_REQ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, w->hdr.mgmt_class, IB_MGMT_CLASS_CM);
	KUNIT_EXPECT_EQ(test, w->hdr.class_version, 2);
	KUNIT_EXPECT_EQ(test, w->hdr.method, IB_MGMT_METHOD_SEND);
	KUNIT_EXPECT_EQ(test, (u32)(be64_to_cpu(w->hdr.tid) >> 32),
			ctx->port->hi_tid);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(w->local_comm_id),
			be32_to_cpu(a->local_id));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(w->service_id), KCM_SID);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(w->local_ca_guid), KCM_GUID);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_LOCAL_QPN), 0x77U);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_RESPONDER_RESOURCES), 2U);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_INITIATOR_DEPTH), 3U);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_STARTING_PSN), 0x1000U);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_RETRY_COUNT), 6U);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_RNR_RETRY_COUNT), 5U);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_MAX_CM_RETRIES), 4U);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_PATH_MTU), (u32)IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_PARTITION_KEY), 0xffffU);
	KUNIT_EXPECT_EQ(test, cm_get(w, CM_REQ_TRANSPORT_SERVICE_TYPE), 0U);
	KUNIT_EXPECT_EQ(test, cm_get(&w->primary, CM_PATH_SL), 2U);
	KUNIT_EXPECT_EQ(test, cm_get(&w->primary, CM_PATH_SUBNET_LOCAL), 1U);
	/* 2 x life time (2^1) + ACK delay (2^15): 2^15 */
	KUNIT_EXPECT_EQ(test, cm_get(&w->primary, CM_PATH_LOCAL_ACK_TIMEOUT),
			15U);
	KUNIT_EXPECT_STREQ(test, (char *)w->private_data, "request");
	KUNIT_EXPECT_FALSE(test, cm_req_path_present(&w->alternate));
	ib_destroy_cm_id(a);
	/* destroyed while waiting: a REJ, reason timeout, ARI our GUID */
	kcm_settle();
	w = (struct cm_req_msg *)kcm_take(CM_REJ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(((struct cm_rej_msg *)w)->reason),
			IB_CM_REJ_TIMEOUT);
}

/* REQ, REP, RTU, QP attributes, DREQ, DREP, timewait, counters. */
static void cm_connect_disconnect(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct ib_qp_attr attr;
	int mask;

	p = kcm_request(test, l, a, 0x11);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->remote_id),
			be32_to_cpu(a->local_id));

	/* responder, INIT and RTR from the REQ */
	attr.qp_state = IB_QPS_INIT;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(p, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			IB_QP_PKEY_INDEX | IB_QP_PORT);
	KUNIT_EXPECT_EQ(test, attr.port_num, 1U);
	KUNIT_EXPECT_EQ(test, attr.pkey_index, 0);
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(p, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x11U);
	/* what we receive from, only our REP will say */
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 0U);
	KUNIT_EXPECT_EQ(test, attr.path_mtu, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, attr.ah_attr.dlid, (u32)KCM_LID);
	KUNIT_EXPECT_EQ(test, attr.ah_attr.sl, 2);
	/* the requester issues 3: we accept 3 */
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 3);
	/*
	 * As upstream's IB CM reads it: a REQ's StartingPSN is the first PSN
	 * its sender receives, so it is the one we send from
	 */
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(p, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 0x1000U);

	kcm_establish(test, a, p, 0x22);

	/* our REP's StartingPSN is what we receive from */
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(p, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 0x2000U);

	/* requester, RTR and RTS from the REP */
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(a, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x22U);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 0x1000U);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 2);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(a, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 0x2000U);
	KUNIT_EXPECT_EQ(test, attr.retry_cnt, 6);
	/* what the REP asked of the requester's QP */
	KUNIT_EXPECT_EQ(test, attr.rnr_retry, 4);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 3);
	KUNIT_EXPECT_EQ(test, attr.timeout, 15);

	/* the REQ and the REP were answered: nothing waits any more */
	KUNIT_EXPECT_EQ(test, kcm_pending(CM_REQ_ATTR_ID), 0);
	KUNIT_EXPECT_EQ(test, kcm_pending(CM_REP_ATTR_ID), 0);

	KUNIT_ASSERT_EQ(test, ib_send_cm_dreq(a, "bye", 4), 0);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_DREQ_SENT);
	kcm_pass(test, CM_DREQ_ATTR_ID);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_DREQ_RCVD);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_DREQ_RECEIVED, p), 1);
	KUNIT_ASSERT_EQ(test, ib_send_cm_drep(p, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_TIMEWAIT);
	kcm_pass(test, CM_DREP_ATTR_ID);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_TIMEWAIT);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_DREP_RECEIVED, a), 1);

	/*
	 * twice the life time: 4.096 us * 2^1 on the requester's path, and
	 * 2^15 (128 ms) on the responder's, whose life time is what the
	 * REQ's LocalACKTimeout (15, our ACK delay) leaves
	 */
	msleep(300);
	kcm_settle();
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_TIMEWAIT_EXIT, a), 1);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_TIMEWAIT_EXIT, p), 1);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_IDLE);

	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV, CM_REQ_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV, CM_REP_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV, CM_RTU_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV, CM_DREQ_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV, CM_DREP_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_XMIT, CM_REQ_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_XMIT, CM_RTU_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DROPPED,
					  CM_REQ_COUNTER), 0);

	/* an IDLE identifier can connect again */
	p = kcm_request(test, l, a, 0x33);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_REQ_RCVD);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
	kcm_settle();
	/* the requester's destruction rejected it */
	KUNIT_EXPECT_EQ(test, kcm_sent(CM_REJ_ATTR_ID), 1);
}

/* Duplicate REQs: dropped, or answered with what was sent already. */
static void cm_dup_req(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct ib_cm_rep_param rep;
	struct ib_mad *req, *rep1, *rep2;

	p = kcm_request(test, l, a, 0x11);
	/* the same REQ again while the consumer thinks: counted, nothing */
	req = &kcm.mads[0];
	kcm_deliver(ctx, req);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REQ_RECEIVED, NULL), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DUPLICATES,
					  CM_REQ_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm.n, 1);

	/* in MRA_REQ_SENT: the MRA again */
	KUNIT_ASSERT_EQ(test, ib_send_cm_mra(p, 12, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_MRA_REQ_SENT);
	KUNIT_EXPECT_EQ(test, kcm_sent(CM_MRA_ATTR_ID), 1);
	kcm_deliver(ctx, req);
	KUNIT_EXPECT_EQ(test, kcm_sent(CM_MRA_ATTR_ID), 2);

	/* in REP_SENT: the REP again, the same bytes */
	kcm_rep(&rep, 0x22);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rep(p, &rep), 0);
	rep1 = kcm_take(CM_REP_ATTR_ID);
	kcm_deliver(ctx, req);
	rep2 = kcm_take(CM_REP_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, rep1);
	KUNIT_ASSERT_NOT_NULL(test, rep2);
	KUNIT_EXPECT_TRUE(test, !memcmp(rep1, rep2, sizeof(*rep1)));
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REQ_RECEIVED, NULL), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DUPLICATES,
					  CM_REQ_COUNTER), 3);

	/* the REP twice at the requester: one event, the RTU again */
	kcm_deliver(ctx, rep1);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rtu(a, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, kcm_sent(CM_RTU_ATTR_ID), 1);
	kcm_deliver(ctx, rep2);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REP_RECEIVED, a), 1);
	KUNIT_EXPECT_EQ(test, kcm_sent(CM_RTU_ATTR_ID), 2);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DUPLICATES,
					  CM_REP_COUNTER), 1);
	kcm_pass(test, CM_RTU_ATTR_ID);
	kcm_pass(test, CM_RTU_ATTR_ID);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_RTU_RECEIVED, p), 1);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_ESTABLISHED);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* A REQ from a QP a connection still has: stale, and the old one ends. */
static void cm_stale(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct cm_req_msg stale;
	struct cm_rej_msg *rej;

	p = kcm_request(test, l, a, 0x11);
	kcm_establish(test, a, p, 0x22);
	/* the same REQ from the same QP and CA, another ID */
	memcpy(&stale, &kcm.mads[0], sizeof(stale));
	stale.local_comm_id = cpu_to_be32(be32_to_cpu(stale.local_comm_id) ^
					  0x5a5a);
	kcm_deliver(ctx, (struct ib_mad *)&stale);
	rej = (struct cm_rej_msg *)kcm_take(CM_REJ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, rej);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rej->reason), IB_CM_REJ_STALE_CONN);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rej->remote_comm_id),
			be32_to_cpu(stale.local_comm_id));
	KUNIT_EXPECT_EQ(test, cm_get(rej, CM_REJ_MESSAGE_REJECTED),
			(u32)CM_MSG_RESPONSE_REQ);
	/* the old connection is asked to end */
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_DREQ_SENT);
	KUNIT_EXPECT_EQ(test, kcm_sent(CM_DREQ_ATTR_ID), 1);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REQ_RECEIVED, NULL), 1);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* A REQ never answered: resent, then REQ_ERROR and a REJ (timeout). */
static void cm_req_timeout(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *a = kcm_id(test);
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct cm_rej_msg *rej;
	struct kcm_ev *e;

	kcm_path(&path);
	kcm_req(&req, &path, 0x11);
	KUNIT_ASSERT_EQ(test, ib_send_cm_req(a, &req), 0);
	kcm_timeout(test, CM_REQ_ATTR_ID);
	e = kcm_last(ctx, IB_CM_REQ_ERROR);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->status, IB_WC_RESP_TIMEOUT_ERR);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);
	rej = (struct cm_rej_msg *)kcm_take(CM_REJ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, rej);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rej->reason), IB_CM_REJ_TIMEOUT);
	KUNIT_EXPECT_EQ(test, cm_get(rej, CM_REJ_REJECTED_INFO_LENGTH), 8U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(rej->ari), KCM_GUID);
	/* one REQ and its max_cm_retries resends counted */
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_XMIT, CM_REQ_COUNTER), 5);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_XMIT_RETRIES,
					  CM_REQ_COUNTER), 4);
	ib_destroy_cm_id(a);
}

/* A REP never answered: REP_ERROR; a DREQ never answered: DREQ_ERROR. */
static void cm_rep_dreq_timeout(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct ib_cm_id *a2 = kcm_id(test);
	struct ib_cm_rep_param rep;
	struct cm_rej_msg *rej;

	p = kcm_request(test, l, a, 0x11);
	kcm_rep(&rep, 0x22);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rep(p, &rep), 0);
	KUNIT_ASSERT_NOT_NULL(test, kcm_take(CM_REP_ATTR_ID));
	kcm_timeout(test, CM_REP_ATTR_ID);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REP_ERROR, p), 1);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_IDLE);
	rej = (struct cm_rej_msg *)kcm_take(CM_REJ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, rej);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rej->reason), IB_CM_REJ_TIMEOUT);
	/* the requester hears of it */
	kcm_deliver(ctx, (struct ib_mad *)rej);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);
	KUNIT_EXPECT_EQ(test, kcm_last(ctx, IB_CM_REJ_RECEIVED)->status,
			IB_CM_REJ_TIMEOUT);

	p = kcm_request(test, l, a2, 0x33);
	kcm_establish(test, a2, p, 0x44);
	KUNIT_ASSERT_EQ(test, ib_send_cm_dreq(a2, NULL, 0), 0);
	KUNIT_ASSERT_NOT_NULL(test, kcm_take(CM_DREQ_ATTR_ID));
	kcm_timeout(test, CM_DREQ_ATTR_ID);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_DREQ_ERROR, a2), 1);
	KUNIT_EXPECT_EQ(test, a2->state, IB_CM_TIMEWAIT);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(a2);
	ib_destroy_cm_id(l);
}

/* An MRA extends the wait; the consumer hears of it. */
static void cm_mra(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct kcm_ev *e;

	p = kcm_request(test, l, a, 0x11);
	KUNIT_ASSERT_EQ(test, ib_send_cm_mra(p, 14, "wait", 5), 0);
	kcm_pass(test, CM_MRA_ATTR_ID);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_MRA_REQ_RCVD);
	e = kcm_last(ctx, IB_CM_MRA_RECEIVED);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->value, 14U);
	KUNIT_EXPECT_STREQ(test, (char *)e->pd, "wait");
	/* 4.096 us * 2^14 (64 ms) + twice the life time (1 + 1 ms) */
	KUNIT_EXPECT_EQ(test, kcm.last_modify, 66U);
	/* an MRA in the wrong state, or for no REQ, is dropped */
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(a, 14, NULL, 0), -EINVAL);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* REJ from the responder: the requester is IDLE (TIMEWAIT if stale). */
static void cm_rej(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct kcm_ev *e;

	p = kcm_request(test, l, a, 0x11);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rej(p, IB_CM_REJ_CONSUMER_DEFINED,
					     NULL, 0, "no", 3), 0);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_IDLE);
	kcm_pass(test, CM_REJ_ATTR_ID);
	e = kcm_last(ctx, IB_CM_REJ_RECEIVED);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->status, IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_STREQ(test, (char *)e->pd, "no");
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);
	/* the REQ stopped waiting */
	KUNIT_EXPECT_EQ(test, kcm_pending(CM_REQ_ATTR_ID), 0);
	/* the same REJ again: nobody to tell */
	kcm_deliver(ctx, &kcm.mads[kcm.n - 1]);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REJ_RECEIVED, NULL), 1);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DROPPED,
					  CM_REJ_COUNTER), 1);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* A callback's non-zero return destroys its new identifier, with a REJ. */
static void cm_refused(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test);
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct cm_rej_msg *rej;

	ctx->refuse = true;
	KUNIT_ASSERT_EQ(test, ib_cm_listen(l, cpu_to_be64(KCM_SID)), 0);
	kcm_path(&path);
	kcm_req(&req, &path, 0x11);
	KUNIT_ASSERT_EQ(test, ib_send_cm_req(a, &req), 0);
	kcm_pass(test, CM_REQ_ATTR_ID);
	rej = (struct cm_rej_msg *)kcm_take(CM_REJ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, rej);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rej->reason),
			IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rej->remote_comm_id),
			be32_to_cpu(a->local_id));
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* REQs with fields no connection can have, or for no service. */
static void cm_bad_req(struct kunit *test)
{
	static const struct {
		const char *what;
		struct cm_field field;
		bool path;
		u32 value;
		int reason;	/* 0: dropped without an answer */
	} cases[] = {
		{ "transport RD", CM_REQ_TRANSPORT_SERVICE_TYPE, false, 2,
		  IB_CM_REJ_INVALID_TRANSPORT_TYPE },
		{ "transport 3", CM_REQ_TRANSPORT_SERVICE_TYPE, false, 3,
		  IB_CM_REJ_INVALID_TRANSPORT_TYPE },
		{ "MTU 0", CM_REQ_PATH_MTU, false, 0, IB_CM_REJ_INVALID_MTU },
		{ "MTU 6", CM_REQ_PATH_MTU, false, 6, IB_CM_REJ_INVALID_MTU },
		{ "local LID 0", CM_PATH_LOCAL_LID, true, 0,
		  IB_CM_REJ_INVALID_LID },
		{ "remote LID permissive", CM_PATH_REMOTE_LID, true, 0xffff,
		  IB_CM_REJ_INVALID_LID },
		{ "P_Key not in the table", CM_REQ_PARTITION_KEY, false,
		  0x1234, IB_CM_REJ_INVALID_GID },
		{ "QP 1", CM_REQ_LOCAL_QPN, false, 1, 0 },
		{ "QP 0", CM_REQ_LOCAL_QPN, false, 0, 0 },
	};
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test);
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct cm_req_msg good, bad;
	struct cm_rej_msg *rej;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, ib_cm_listen(l, cpu_to_be64(KCM_SID)), 0);
	kcm_path(&path);
	kcm_req(&req, &path, 0x11);
	KUNIT_ASSERT_EQ(test, ib_send_cm_req(a, &req), 0);
	memcpy(&good, kcm_take(CM_REQ_ATTR_ID), sizeof(good));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bad = good;
		if (cases[i].path)
			cm_set(&bad.primary, cases[i].field, cases[i].value);
		else
			cm_set(&bad, cases[i].field, cases[i].value);
		kcm_deliver(ctx, (struct ib_mad *)&bad);
		rej = (struct cm_rej_msg *)kcm_take(CM_REJ_ATTR_ID);
		if (!cases[i].reason) {
			KUNIT_EXPECT_NULL_MSG(test, rej, "%s", cases[i].what);
			continue;
		}
		KUNIT_ASSERT_NOT_NULL_MSG(test, rej, "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, be16_to_cpu(rej->reason),
				    cases[i].reason, "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(rej->remote_comm_id),
				    be32_to_cpu(good.local_comm_id), "%s",
				    cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(rej->local_comm_id), 0U,
				    "%s", cases[i].what);
	}
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REQ_RECEIVED, NULL), 0);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DROPPED,
					  CM_REQ_COUNTER),
			(long)ARRAY_SIZE(cases));

	/* a service nobody listens to: reason 8 */
	bad = good;
	bad.service_id = cpu_to_be64(KCM_SID + 1);
	kcm_deliver(ctx, (struct ib_mad *)&bad);
	rej = (struct cm_rej_msg *)kcm_take(CM_REJ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, rej);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rej->reason),
			IB_CM_REJ_INVALID_SERVICE_ID);
	/* the good one still makes a connection */
	kcm_deliver(ctx, (struct ib_mad *)&good);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REQ_RECEIVED, NULL), 1);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* Messages for identifiers that do not exist, or of other attributes. */
static void cm_unmatched(struct kunit *test)
{
	static const __be16 attrs[] = {
		CM_MRA_ATTR_ID, CM_REJ_ATTR_ID, CM_REP_ATTR_ID,
		CM_RTU_ATTR_ID, CM_DREP_ATTR_ID, CM_LAP_ATTR_ID,
		CM_APR_ATTR_ID, CM_SIDR_REP_ATTR_ID,
	};
	struct kcm_ctx *ctx = test->priv;
	struct cm_dreq_msg m = {};
	struct cm_drep_msg *drep;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		memset(&m, 0, sizeof(m));
		cm_format_hdr((struct ib_mad *)&m, attrs[i], cpu_to_be64(7));
		m.local_comm_id = cpu_to_be32(0x1111);
		m.remote_comm_id = cpu_to_be32(0x2222);
		kcm_deliver(ctx, (struct ib_mad *)&m);
		KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DROPPED,
						  be16_to_cpu(attrs[i]) - 0x10),
				1);
	}
	KUNIT_EXPECT_EQ(test, kcm.n, 0);
	/* a DREQ for a gone connection is answered, the IDs turned */
	cm_format_hdr((struct ib_mad *)&m, CM_DREQ_ATTR_ID, cpu_to_be64(8));
	kcm_deliver(ctx, (struct ib_mad *)&m);
	drep = (struct cm_drep_msg *)kcm_take(CM_DREP_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, drep);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(drep->local_comm_id), 0x2222U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(drep->remote_comm_id), 0x1111U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(drep->hdr.tid), 8ULL);
	/* another attribute */
	cm_format_hdr((struct ib_mad *)&m, cpu_to_be16(0x30), 0);
	kcm_deliver(ctx, (struct ib_mad *)&m);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DROPPED,
					  CM_OTHER_COUNTER), 1);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_REQ_RECEIVED, NULL), 0);
}

/* The QP's first receive before the RTU: established by ib_cm_notify(). */
static void cm_notify(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct ib_cm_rep_param rep;

	p = kcm_request(test, l, a, 0x11);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(p, IB_EVENT_COMM_EST), -EINVAL);
	kcm_rep(&rep, 0x22);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rep(p, &rep), 0);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(p, IB_EVENT_COMM_EST), 0);
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_ESTABLISHED);
	kcm_settle();
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_USER_ESTABLISHED, p), 1);
	KUNIT_EXPECT_EQ(test, kcm_pending(CM_REP_ATTR_ID), 0);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(p, IB_EVENT_COMM_EST), -EISCONN);
	/* the RTU coming later changes nothing */
	kcm_pass(test, CM_REP_ATTR_ID);
	KUNIT_ASSERT_EQ(test, ib_send_cm_rtu(a, NULL, 0), 0);
	kcm_pass(test, CM_RTU_ATTR_ID);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_RTU_RECEIVED, p), 0);
	KUNIT_EXPECT_EQ(test, kcm_counter(ctx, CM_RECV_DUPLICATES,
					  CM_RTU_COUNTER), 1);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* LAP is answered "unsupported"; the connection stays. */
static void cm_lap(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct cm_lap_msg lap = {};
	struct cm_apr_msg *apr;

	p = kcm_request(test, l, a, 0x11);
	kcm_establish(test, a, p, 0x22);
	cm_format_hdr((struct ib_mad *)&lap, CM_LAP_ATTR_ID, cpu_to_be64(9));
	lap.local_comm_id = a->local_id;
	lap.remote_comm_id = p->local_id;
	kcm_deliver(ctx, (struct ib_mad *)&lap);
	apr = (struct cm_apr_msg *)kcm_take(CM_APR_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, apr);
	KUNIT_EXPECT_EQ(test, apr->ap_status, IB_CM_APR_UNSUPPORTED);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(apr->remote_comm_id),
			be32_to_cpu(a->local_id));
	KUNIT_EXPECT_EQ(test, p->state, IB_CM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_LAP_RECEIVED, NULL), 0);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* SIDR: the answer's QP and Q_Key; no listener: unsupported; timeout. */
static void cm_sidr(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test);
	struct ib_cm_sidr_rep_param rep = {};
	struct ib_cm_sidr_req_param req = {};
	struct sa_path_rec path;
	struct kcm_ev *e;

	KUNIT_ASSERT_EQ(test, ib_cm_listen(l, cpu_to_be64(KCM_SID)), 0);
	kcm_path(&path);
	req.path = &path;
	req.service_id = cpu_to_be64(KCM_SID);
	req.timeout_ms = 100;
	req.max_cm_retries = 2;
	KUNIT_ASSERT_EQ(test, ib_send_cm_sidr_req(a, &req), 0);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_SIDR_REQ_SENT);
	kcm_pass(test, CM_SIDR_REQ_ATTR_ID);
	e = kcm_last(ctx, IB_CM_SIDR_REQ_RECEIVED);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->id->state, IB_CM_SIDR_REQ_RCVD);
	/* the same SIDR_REQ again while it is answered: a duplicate */
	kcm_deliver(ctx, &kcm.mads[0]);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_SIDR_REQ_RECEIVED, NULL), 1);
	rep.qp_num = 0x99;
	rep.qkey = 0x11111111;
	KUNIT_ASSERT_EQ(test, ib_send_cm_sidr_rep(e->id, &rep), 0);
	KUNIT_EXPECT_EQ(test, e->id->state, IB_CM_IDLE);
	kcm_pass(test, CM_SIDR_REP_ATTR_ID);
	e = kcm_last(ctx, IB_CM_SIDR_REP_RECEIVED);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->status, IB_SIDR_SUCCESS);
	KUNIT_EXPECT_EQ(test, e->value, 0x99U);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);

	req.service_id = cpu_to_be64(KCM_SID + 1);
	KUNIT_ASSERT_EQ(test, ib_send_cm_sidr_req(a, &req), 0);
	kcm_pass(test, CM_SIDR_REQ_ATTR_ID);
	kcm_pass(test, CM_SIDR_REP_ATTR_ID);
	KUNIT_EXPECT_EQ(test, kcm_last(ctx, IB_CM_SIDR_REP_RECEIVED)->status,
			IB_SIDR_UNSUPPORTED);

	KUNIT_ASSERT_EQ(test, ib_send_cm_sidr_req(a, &req), 0);
	kcm_timeout(test, CM_SIDR_REQ_ATTR_ID);
	KUNIT_EXPECT_EQ(test, kcm_count(ctx, IB_CM_SIDR_REQ_ERROR, a), 1);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

/* Listening: conflicts, masks, assigned IDs, shared listeners. */
static void cm_listen(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *a = kcm_id(test), *b = kcm_id(test);
	struct ib_cm_id *c = kcm_id(test), *s1, *s2;

	KUNIT_EXPECT_EQ(test, ib_cm_listen(a, cpu_to_be64(KCM_SID)), 0);
	KUNIT_EXPECT_EQ(test, ib_cm_listen(a, cpu_to_be64(KCM_SID + 2)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_cm_listen(b, cpu_to_be64(KCM_SID)), -EBUSY);
	/* a mask that covers KCM_SID */
	KUNIT_EXPECT_EQ(test, ib_cm_listen_mask(b, cpu_to_be64(KCM_SID & ~0xff),
						cpu_to_be64(~0xffULL)),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, ib_cm_listen_mask(b,
						cpu_to_be64(0x2000000000000000ULL),
						cpu_to_be64(~0xffULL)), 0);
	/* the CM's own range is the CM's */
	KUNIT_EXPECT_EQ(test, ib_cm_listen(c,
					   cpu_to_be64(0x0200000000000005ULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_cm_listen(c, IB_CM_ASSIGN_SERVICE_ID), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(c->service_id) >> 56, 0x02ULL);

	s1 = ib_cm_insert_listen(&ctx->kd->ibdev, kcm_handler,
				 cpu_to_be64(0x3000000000000001ULL));
	KUNIT_ASSERT_FALSE(test, IS_ERR(s1));
	s2 = ib_cm_insert_listen(&ctx->kd->ibdev, kcm_handler,
				 cpu_to_be64(0x3000000000000001ULL));
	KUNIT_EXPECT_PTR_EQ(test, s1, s2);
	ib_destroy_cm_id(s2);
	KUNIT_EXPECT_EQ(test, s1->state, IB_CM_LISTEN);
	ib_destroy_cm_id(s1);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(b);
	ib_destroy_cm_id(c);
}

/* Calls in the wrong state or with bad parameters get their errno. */
static void cm_api_errors(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *a = kcm_id(test);
	struct ib_cm_rep_param rep;
	struct ib_cm_req_param req;
	struct sa_path_rec path;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	u8 big[IB_CM_REQ_PRIVATE_DATA_SIZE + 1] = {};
	int mask;

	kcm_rep(&rep, 1);
	KUNIT_EXPECT_EQ(test, ib_send_cm_rep(a, &rep), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_rtu(a, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_dreq(a, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_drep(a, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_rej(a, 28, NULL, 0, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_cm_init_qp_attr(a, &attr, &mask), -EINVAL);
	kcm_path(&path);
	kcm_req(&req, &path, 0x11);
	req.qp_type = IB_QPT_UD;
	KUNIT_EXPECT_EQ(test, ib_send_cm_req(a, &req), -EINVAL);
	kcm_req(&req, &path, 0x11);
	req.private_data = big;
	req.private_data_len = sizeof(big);
	KUNIT_EXPECT_EQ(test, ib_send_cm_req(a, &req), -EINVAL);
	kcm_req(&req, &path, 0x11);
	path.pkey = cpu_to_be16(0x7777);
	KUNIT_EXPECT_EQ(test, ib_send_cm_req(a, &req), -ENOENT);
	kcm_path(&path);
	path.sgid.raw[15] ^= 1;
	KUNIT_EXPECT_EQ(test, ib_send_cm_req(a, &req), -EINVAL);
	/* a send that fails leaves the identifier idle */
	kcm_path(&path);
	kcm.post_ret = -ENOMEM;
	KUNIT_EXPECT_EQ(test, ib_send_cm_req(a, &req), -ENOMEM);
	kcm.post_ret = 0;
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);
	KUNIT_EXPECT_EQ(test, ib_send_cm_req(a, &req), 0);
	KUNIT_EXPECT_EQ(test, ib_send_cm_req(a, &req), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, ib_create_cm_id(&ctx->kd->ibdev, NULL, NULL),
			    ERR_PTR(-EINVAL));
	ib_destroy_cm_id(a);
}

/* Destroying in each state tells the other side what the IBA asks. */
static void cm_destroy_states(struct kunit *test)
{
	struct kcm_ctx *ctx = test->priv;
	struct ib_cm_id *l = kcm_id(test), *a = kcm_id(test), *p;
	struct cm_rej_msg *rej;

	/* the responder before answering: REJ, consumer defined */
	p = kcm_request(test, l, a, 0x11);
	kcm_drop(ctx, p);
	kcm_settle();
	rej = (struct cm_rej_msg *)kcm_take(CM_REJ_ATTR_ID);
	KUNIT_ASSERT_NOT_NULL(test, rej);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rej->reason),
			IB_CM_REJ_CONSUMER_DEFINED);
	kcm_deliver(ctx, (struct ib_mad *)rej);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);

	/* established: a DREQ; the timewait goes on without the identifier */
	p = kcm_request(test, l, a, 0x12);
	kcm_establish(test, a, p, 0x22);
	kcm_drop(ctx, p);
	kcm_settle();
	KUNIT_EXPECT_EQ(test, kcm_sent(CM_DREQ_ATTR_ID), 1);
	kcm_pass(test, CM_DREQ_ATTR_ID);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_DREQ_RCVD);
	KUNIT_ASSERT_EQ(test, ib_send_cm_drep(a, NULL, 0), 0);
	kcm_pass(test, CM_DREP_ATTR_ID);
	msleep(300);
	kcm_settle();
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_IDLE);
	ib_destroy_cm_id(a);
	ib_destroy_cm_id(l);
}

static struct kunit_case cm_state_cases[] = {
	KUNIT_CASE(cm_port_and_ids),
	KUNIT_CASE(cm_req_wire),
	KUNIT_CASE(cm_connect_disconnect),
	KUNIT_CASE(cm_dup_req),
	KUNIT_CASE(cm_stale),
	KUNIT_CASE(cm_req_timeout),
	KUNIT_CASE(cm_rep_dreq_timeout),
	KUNIT_CASE(cm_mra),
	KUNIT_CASE(cm_rej),
	KUNIT_CASE(cm_refused),
	KUNIT_CASE(cm_bad_req),
	KUNIT_CASE(cm_unmatched),
	KUNIT_CASE(cm_notify),
	KUNIT_CASE(cm_lap),
	KUNIT_CASE(cm_sidr),
	KUNIT_CASE(cm_listen),
	KUNIT_CASE(cm_api_errors),
	KUNIT_CASE(cm_destroy_states),
	{}
};

static struct kunit_suite cm_state_suite = {
	.name = "ib_cm_state",
	.init = kcm_init,
	.exit = kcm_exit,
	.test_cases = cm_state_cases,
};

kunit_test_suite(cm_state_suite);

/* what ib_cm exports for the suites alone (VISIBLE_IF_KUNIT) */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
