// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "mad": the MAD layer of ib_core between vmlx0 and vmlx1.
 *
 * Agent A (vmlx0 port 1, QP1) sends requests of the made-up class 0x09 to
 * agent B (vmlx1 port 1, QP1), which answers Gets with GetResp, except for
 * attribute 0xDEAD, which it counts and ignores.  Cases (all without
 * arguments):
 *   reg         registration rules: conflicts and bad arguments
 *   getresp     a Get answered by B, matched to A's send by TID, payload
 *               intact, response seen before the send is reported done
 *   timeout     an ignored Get: resent with the same TID "retries" times,
 *               then IB_WC_RESP_TIMEOUT_ERR
 *   unsupported a Get of a class nobody registered: answered by vmlx1's
 *               core with status 0x000C
 *   bogus       responses with unknown TIDs are dropped
 *   cancel      ib_cancel_mad() of a send waiting for its response
 *   flush       unregistering A with a send outstanding flushes it
 *   fuzz        malformed and unclaimed MADs from a UD QP to vmlx0's QP1
 *   smp         directed-route SubnGet(NodeInfo) with hop count 0 (this
 *               node's SMA) and 1 (the switch), if vmlx has process_mad
 *
 * "mad redirect DEV PORT CLASS on|off|check [ERRNO]" redirects a GSI class
 * of a port off QP1 (ib_mad_redirect_class()), ends that, or checks it
 * from a UD QP of the other device (vtm_redirect_check()); with ERRNO the
 * call must fail with it.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "vt.h"

#define VTM_CLASS		0x09
#define VTM_CLASS_NOBODY	0x0a
#define VTM_ATTR		0x1234
#define VTM_ATTR_IGNORED	0xdead
#define VTM_MARK		0x5a5a5a5a

/**
 * struct vtm_agent - one agent of the test and what it saw
 * @agent: the agent
 * @lock: see below
 * @wait: woken on every event
 * @nrecv: MADs received
 * @nresp: responses received (with a send buffer)
 * @last: copy of the last MAD received
 * @last_send: send buffer of the last response
 * @ignored: requests for VTM_ATTR_IGNORED received
 * @ignored_tid: their TID, if all the same; 0 after a mismatch
 * @ndone: sends reported done
 * @done_status: status of the last
 * @done_buf: buffer of the last
 * @resp_before_done: the last send's response came before its end
 * @answered: replies sent by the responder
 */
struct vtm_agent {
	struct ib_mad_agent	*agent;
	/* protects everything below */
	spinlock_t		lock;
	wait_queue_head_t	wait;
	int			nrecv;
	int			nresp;
	struct ib_mad		last;
	struct ib_mad_send_buf	*last_send;
	int			ignored;
	__be64			ignored_tid;
	int			ndone;
	enum ib_wc_status	done_status;
	struct ib_mad_send_buf	*done_buf;
	bool			resp_before_done;
	int			answered;
};

static void vtm_reset(struct vtm_agent *va)
{
	spin_lock_irq(&va->lock);
	va->nrecv = 0;
	va->nresp = 0;
	va->last_send = NULL;
	va->ignored = 0;
	va->ignored_tid = 0;
	va->ndone = 0;
	va->done_buf = NULL;
	va->resp_before_done = false;
	va->answered = 0;
	spin_unlock_irq(&va->lock);
}

static void vtm_send_handler(struct ib_mad_agent *agent,
			     struct ib_mad_send_wc *wc)
{
	struct vtm_agent *va = agent->context;

	/* the responder's own replies free themselves */
	if (wc->send_buf->context[0] == va) {
		rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(wc->send_buf);
		return;
	}
	spin_lock_irq(&va->lock);
	va->ndone++;
	va->done_status = wc->status;
	va->done_buf = wc->send_buf;
	va->resp_before_done = va->last_send == wc->send_buf;
	spin_unlock_irq(&va->lock);
	wake_up_all(&va->wait);
}

/* Send @mad back where @wc came from. */
static int vtm_reply(struct vtm_agent *va, const struct ib_wc *wc,
		     const struct ib_mad *mad)
{
	struct ib_mad_agent *agent = va->agent;
	struct rdma_ah_attr attr = {
		.type = RDMA_AH_ATTR_TYPE_IB,
		.port_num = agent->port_num,
		.dlid = wc->slid,
		.sl = wc->sl,
	};
	struct ib_mad_send_buf *buf;
	struct ib_ah *ah;
	int ret;

	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	buf = ib_create_send_mad(agent, wc->src_qp, wc->pkey_index, 0,
				 IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return PTR_ERR(buf);
	}
	memcpy(buf->mad, mad, sizeof(*mad));
	buf->ah = ah;
	buf->context[0] = va;
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		ib_free_send_mad(buf);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	}
	return ret;
}

static void vtm_recv_handler(struct ib_mad_agent *agent,
			     struct ib_mad_send_buf *send_buf,
			    struct ib_mad_recv_wc *rwc)
{
	struct vtm_agent *va = agent->context;
	struct ib_mad *mad = rwc->recv_buf.mad;
	struct ib_mad reply;
	bool answer = false;

	spin_lock_irq(&va->lock);
	va->nrecv++;
	va->last = *mad;
	if (send_buf) {
		va->nresp++;
		va->last_send = send_buf;
	} else if (mad->mad_hdr.method == IB_MGMT_METHOD_GET) {
		if (mad->mad_hdr.attr_id == cpu_to_be16(VTM_ATTR_IGNORED)) {
			if (!va->ignored)
				va->ignored_tid = mad->mad_hdr.tid;
			else if (va->ignored_tid != mad->mad_hdr.tid)
				va->ignored_tid = 0;
			va->ignored++;
		} else {
			answer = true;
		}
	}
	spin_unlock_irq(&va->lock);

	if (answer) {
		reply = *mad;
		reply.mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
		reply.mad_hdr.attr_mod = cpu_to_be32(VTM_MARK);
		if (!vtm_reply(va, rwc->wc, &reply)) {
			spin_lock_irq(&va->lock);
			va->answered++;
			spin_unlock_irq(&va->lock);
		}
	}
	ib_free_recv_mad(rwc);
	wake_up_all(&va->wait);
}

static int vtm_register(struct vt_run *run, struct vtm_agent *va,
			struct ib_device *dev, enum ib_qp_type type,
		       struct ib_mad_reg_req *req)
{
	spin_lock_init(&va->lock);
	init_waitqueue_head(&va->wait);
	va->agent = ib_register_mad_agent(dev, 1, type, req, 0,
					  vtm_send_handler, vtm_recv_handler,
					  va, 0);
	if (IS_ERR(va->agent)) {
		vt_why(run, "ib_register_mad_agent(%s): %ld",
		       ib_device_name(dev), PTR_ERR(va->agent));
		va->agent = NULL;
		return -EIO;
	}
	return 0;
}

static void vtm_unregister(struct vtm_agent *va)
{
	if (va->agent)
		ib_unregister_mad_agent(va->agent);
	va->agent = NULL;
}

static void vtm_reg_req(struct ib_mad_reg_req *req, u8 mgmt_class,
			const u8 *methods, int n)
{
	int i;

	memset(req, 0, sizeof(*req));
	req->mgmt_class = mgmt_class;
	req->mgmt_class_version = 1;
	for (i = 0; i < n; i++)
		set_bit(methods[i], req->method_mask);
}

static u16 vtm_lid(struct ib_device *dev)
{
	struct ib_port_attr attr;

	if (ib_query_port(dev, 1, &attr))
		return 0;
	return attr.lid;
}

/* A Get from @from to @dlid; NULL (with vt_why()) on error. */
static struct ib_mad_send_buf *vtm_get(struct vt_run *run,
				       struct vtm_agent *from, u16 dlid,
				      u32 remote_qpn, u8 mgmt_class,
				      u16 attr_id, u32 tid_lo, int timeout_ms,
				      int retries)
{
	struct ib_mad_agent *agent = from->agent;
	struct rdma_ah_attr attr = {
		.type = RDMA_AH_ATTR_TYPE_IB,
		.port_num = agent->port_num,
		.dlid = dlid,
	};
	struct ib_mad_send_buf *buf;
	struct ib_mad *mad;
	struct ib_ah *ah;
	int i, ret;

	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		vt_why(run, "rdma_create_ah: %ld", PTR_ERR(ah));
		return NULL;
	}
	buf = ib_create_send_mad(agent, remote_qpn, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		vt_why(run, "ib_create_send_mad: %ld", PTR_ERR(buf));
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return NULL;
	}
	mad = buf->mad;
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = mgmt_class;
	mad->mad_hdr.class_version = 1;
	mad->mad_hdr.method = IB_MGMT_METHOD_GET;
	mad->mad_hdr.tid = cpu_to_be64((u64)agent->hi_tid << 32 | tid_lo);
	mad->mad_hdr.attr_id = cpu_to_be16(attr_id);
	for (i = 0; i < IB_MGMT_MAD_DATA; i++)
		mad->data[i] = (u8)(i * 7 + tid_lo);
	buf->ah = ah;
	buf->timeout_ms = timeout_ms;
	buf->retries = retries;
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		vt_why(run, "ib_post_send_mad: %d", ret);
		ib_free_send_mad(buf);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return NULL;
	}
	return buf;
}

static void vtm_free(struct ib_mad_send_buf *buf)
{
	struct ib_ah *ah = buf->ah;

	ib_free_send_mad(buf);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/* Wait until @buf was reported done; false after @ms. */
static bool vtm_wait_done(struct vtm_agent *va, struct ib_mad_send_buf *buf,
			  unsigned int ms)
{
	return wait_event_timeout(va->wait,
				  ({ bool d;
				     spin_lock_irq(&va->lock);
				     d = va->done_buf == buf;
				     spin_unlock_irq(&va->lock);
				     d; }),
				  msecs_to_jiffies(ms)) > 0;
}

/* Wait until @va received @n ignored requests; false after @ms. */
static bool vtm_wait_ignored(struct vtm_agent *va, int n, unsigned int ms)
{
	return wait_event_timeout(va->wait,
				  ({ bool d;
				     spin_lock_irq(&va->lock);
				     d = va->ignored >= n;
				     spin_unlock_irq(&va->lock);
				     d; }),
				  msecs_to_jiffies(ms)) > 0;
}

/* --------------------------------------------------------------------- */

static void vtm_case_reg(struct vt_run *run)
{
	struct ib_device *da = run->va->ibdev;
	struct ib_mad_reg_req req;
	struct ib_mad_agent *a, *b, *c;
	static const u8 get[] = { IB_MGMT_METHOD_GET };
	static const u8 set[] = { IB_MGMT_METHOD_SET };
	static const u8 getset[] = { IB_MGMT_METHOD_GET, IB_MGMT_METHOD_SET };

	vtm_reg_req(&req, VTM_CLASS, get, 1);
	a = ib_register_mad_agent(da, 1, IB_QPT_GSI, &req, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, !IS_ERR(a), "mad reg: class 0x09 Get on vmlx0 (%ld)",
		 IS_ERR(a) ? PTR_ERR(a) : 0);
	if (IS_ERR(a))
		return;
	vtm_reg_req(&req, VTM_CLASS, getset, 2);
	b = ib_register_mad_agent(da, 1, IB_QPT_GSI, &req, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, PTR_ERR(b) == -EINVAL,
		 "mad reg: a second agent for Get of the same class/version is refused (-EINVAL, got %ld)",
		 IS_ERR(b) ? PTR_ERR(b) : 0);
	if (!IS_ERR(b))
		ib_unregister_mad_agent(b);
	vtm_reg_req(&req, VTM_CLASS, set, 1);
	b = ib_register_mad_agent(da, 1, IB_QPT_GSI, &req, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, !IS_ERR(b), "mad reg: Set of the same class by another agent is fine (%ld)",
		 IS_ERR(b) ? PTR_ERR(b) : 0);
	vtm_reg_req(&req, VTM_CLASS, get, 1);
	req.mgmt_class_version = 2;
	c = ib_register_mad_agent(da, 1, IB_QPT_GSI, &req, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, !IS_ERR(c), "mad reg: Get of class version 2 is another table (%ld)",
		 IS_ERR(c) ? PTR_ERR(c) : 0);
	if (!IS_ERR(c))
		ib_unregister_mad_agent(c);
	if (!IS_ERR(b))
		ib_unregister_mad_agent(b);
	ib_unregister_mad_agent(a);
	vtm_reg_req(&req, VTM_CLASS, getset, 2);
	a = ib_register_mad_agent(da, 1, IB_QPT_GSI, &req, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, !IS_ERR(a), "mad reg: methods are free again after unregistration (%ld)",
		 IS_ERR(a) ? PTR_ERR(a) : 0);
	if (!IS_ERR(a))
		ib_unregister_mad_agent(a);

	vtm_reg_req(&req, IB_MGMT_CLASS_SUBN_LID_ROUTED, get, 1);
	a = ib_register_mad_agent(da, 1, IB_QPT_GSI, &req, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, PTR_ERR(a) == -EINVAL, "mad reg: SMP class on QP1 refused (%ld)",
		 IS_ERR(a) ? PTR_ERR(a) : 0);
	if (!IS_ERR(a))
		ib_unregister_mad_agent(a);
	vtm_reg_req(&req, 0x31, get, 1);
	a = ib_register_mad_agent(da, 1, IB_QPT_GSI, &req, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, PTR_ERR(a) == -EINVAL, "mad reg: vendor class without OUI refused (%ld)",
		 IS_ERR(a) ? PTR_ERR(a) : 0);
	if (!IS_ERR(a))
		ib_unregister_mad_agent(a);
	a = ib_register_mad_agent(da, 9, IB_QPT_GSI, NULL, 0, vtm_send_handler,
				  vtm_recv_handler, NULL, 0);
	vt_check(run, PTR_ERR(a) == -ENODEV, "mad reg: no such port: -ENODEV (%ld)",
		 IS_ERR(a) ? PTR_ERR(a) : 0);
	if (!IS_ERR(a))
		ib_unregister_mad_agent(a);
}

static void vtm_case_getresp(struct vt_run *run, struct vtm_agent *a,
			     struct vtm_agent *b, u16 lid_b)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad sent;
	bool ok;

	vtm_reset(a);
	vtm_reset(b);
	buf = vtm_get(run, a, lid_b, 1, VTM_CLASS, VTM_ATTR, 1, 2000, 0);
	if (!buf) {
		vt_result(run, "mad getresp: Get sent");
		return;
	}
	memcpy(&sent, buf->mad, sizeof(sent));
	ok = vtm_wait_done(a, buf, 5000);
	vt_check(run, ok, "mad getresp: send reported done");
	if (!ok) {
		ib_cancel_mad(buf);
		vtm_wait_done(a, buf, 5000);
	}
	spin_lock_irq(&a->lock);
	vt_check(run, a->done_status == IB_WC_SUCCESS,
		 "mad getresp: status success (%d)", a->done_status);
	vt_check(run, a->nresp == 1 && a->last_send == buf,
		 "mad getresp: one response, matched to the send (%d)",
		 a->nresp);
	vt_check(run, a->resp_before_done,
		 "mad getresp: response delivered before the send's end");
	vt_check(run, a->last.mad_hdr.tid == sent.mad_hdr.tid &&
		 a->last.mad_hdr.method == IB_MGMT_METHOD_GET_RESP &&
		 a->last.mad_hdr.attr_mod == cpu_to_be32(VTM_MARK),
		 "mad getresp: GetResp with the TID, answered by B's agent");
	vt_check(run, !memcmp(a->last.data, sent.data, sizeof(sent.data)),
		 "mad getresp: payload intact");
	spin_unlock_irq(&a->lock);
	vtm_free(buf);
}

static void vtm_case_timeout(struct vt_run *run, struct vtm_agent *a,
			     struct vtm_agent *b, u16 lid_b)
{
	struct ib_mad_send_buf *buf;
	unsigned long t0 = jiffies;
	unsigned int ms;
	bool ok;

	vtm_reset(a);
	vtm_reset(b);
	buf = vtm_get(run, a, lid_b, 1, VTM_CLASS, VTM_ATTR_IGNORED, 2, 200, 2);
	if (!buf) {
		vt_result(run, "mad timeout: Get sent");
		return;
	}
	ok = vtm_wait_done(a, buf, 10000);
	ms = jiffies_to_msecs(jiffies - t0);
	vt_check(run, ok, "mad timeout: send reported done");
	if (!ok) {
		ib_cancel_mad(buf);
		vtm_wait_done(a, buf, 5000);
	}
	spin_lock_irq(&a->lock);
	vt_check(run, a->done_status == IB_WC_RESP_TIMEOUT_ERR,
		 "mad timeout: IB_WC_RESP_TIMEOUT_ERR (%d)", a->done_status);
	vt_check(run, a->nrecv == 0, "mad timeout: no response delivered");
	spin_unlock_irq(&a->lock);
	vt_check(run, ms >= 3 * 200, "mad timeout: after 3 x 200 ms (%u ms)",
		 ms);
	spin_lock_irq(&b->lock);
	vt_check(run, b->ignored == 3 && b->ignored_tid,
		 "mad timeout: B received the request 3 times (1 + 2 retries) with one TID (%d)",
		 b->ignored);
	spin_unlock_irq(&b->lock);
	vt_out(run, "# mad timeout: %u ms", ms);
	vtm_free(buf);
}

static void vtm_case_unsupported(struct vt_run *run, struct vtm_agent *a,
				 u16 lid_b)
{
	struct ib_mad_send_buf *buf;
	bool ok;

	vtm_reset(a);
	buf = vtm_get(run, a, lid_b, 1, VTM_CLASS_NOBODY, VTM_ATTR, 3, 2000, 0);
	if (!buf) {
		vt_result(run, "mad unsupported: Get sent");
		return;
	}
	ok = vtm_wait_done(a, buf, 5000);
	vt_check(run, ok, "mad unsupported: send reported done");
	if (!ok) {
		ib_cancel_mad(buf);
		vtm_wait_done(a, buf, 5000);
	}
	spin_lock_irq(&a->lock);
	vt_check(run, a->done_status == IB_WC_SUCCESS && a->nresp == 1,
		 "mad unsupported: answered (status %d, %d responses)",
		 a->done_status, a->nresp);
	vt_check(run, a->last.mad_hdr.method == IB_MGMT_METHOD_GET_RESP &&
		 be16_to_cpu(a->last.mad_hdr.status) ==
		 IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB &&
		 a->last.mad_hdr.mgmt_class == VTM_CLASS_NOBODY,
		 "mad unsupported: GetResp status 0x000c by vmlx1's core (method %#x status %#x)",
		 a->last.mad_hdr.method, be16_to_cpu(a->last.mad_hdr.status));
	spin_unlock_irq(&a->lock);
	vtm_free(buf);
}

static void vtm_case_bogus(struct vt_run *run, struct vtm_agent *a,
			   struct vtm_agent *b, u16 lid_a, u16 lid_b)
{
	struct ib_mad_send_buf *buf;
	struct ib_wc wc = { .slid = lid_a, .src_qp = 1 };
	struct ib_mad resp = {};
	int ret, i;

	vtm_reset(a);
	vtm_reset(b);
	resp.mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	resp.mad_hdr.mgmt_class = VTM_CLASS;
	resp.mad_hdr.class_version = 1;
	resp.mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	for (i = 0; i < 3; i++) {
		/* A's hi_tid with an unknown low part; an unknown hi_tid;
		 * a Set response to A that never asked
		 */
		u64 tid = i == 1 ? 0xfffffe0000000001ULL :
			  (u64)a->agent->hi_tid << 32 | (0x7000 + i);

		resp.mad_hdr.tid = cpu_to_be64(tid);
		ret = vtm_reply(b, &wc, &resp);
		if (ret) {
			vt_why(run, "sending a bogus response: %d", ret);
			break;
		}
	}
	vt_result(run, "mad bogus: three responses with unknown TIDs sent");
	/* a real exchange after them: they were processed before it ends */
	buf = vtm_get(run, a, lid_b, 1, VTM_CLASS, VTM_ATTR, 4, 2000, 0);
	if (!buf) {
		vt_result(run, "mad bogus: Get sent");
		return;
	}
	if (!vtm_wait_done(a, buf, 5000)) {
		ib_cancel_mad(buf);
		vtm_wait_done(a, buf, 5000);
	}
	spin_lock_irq(&a->lock);
	vt_check(run, a->nrecv == 1 && a->nresp == 1 &&
		 a->done_status == IB_WC_SUCCESS,
		 "mad bogus: dropped; only the real response reached A (%d received)",
		 a->nrecv);
	spin_unlock_irq(&a->lock);
	vtm_free(buf);
}

static void vtm_case_cancel(struct vt_run *run, struct vtm_agent *a,
			    struct vtm_agent *b, u16 lid_b)
{
	struct ib_mad_send_buf *buf;
	bool ok;

	vtm_reset(a);
	vtm_reset(b);
	buf = vtm_get(run, a, lid_b, 1, VTM_CLASS, VTM_ATTR_IGNORED, 5, 10000, 3);
	if (!buf) {
		vt_result(run, "mad cancel: Get sent");
		return;
	}
	vt_check(run, vtm_wait_ignored(b, 1, 5000),
		 "mad cancel: B got the request");
	vt_check(run, ib_modify_mad(buf, 20000) == 0,
		 "mad cancel: ib_modify_mad() of a waiting send works");
	ib_cancel_mad(buf);
	ok = vtm_wait_done(a, buf, 2000);
	spin_lock_irq(&a->lock);
	vt_check(run, ok && a->done_status == IB_WC_WR_FLUSH_ERR,
		 "mad cancel: ended at once with IB_WC_WR_FLUSH_ERR (%d)",
		 a->done_status);
	spin_unlock_irq(&a->lock);
	vt_check(run, ib_modify_mad(buf, 0) == -EINVAL,
		 "mad cancel: a finished send cannot be cancelled again");
	vtm_free(buf);
}

static void vtm_case_flush(struct vt_run *run, struct vtm_agent *a,
			   struct vtm_agent *b, u16 lid_b)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad_send_buf *buf2;
	int ndone, st;

	vtm_reset(a);
	vtm_reset(b);
	buf = vtm_get(run, a, lid_b, 1, VTM_CLASS, VTM_ATTR_IGNORED, 6, 30000, 0);
	if (!buf) {
		vt_result(run, "mad flush: Get sent");
		return;
	}
	buf2 = vtm_get(run, a, lid_b, 1, VTM_CLASS, VTM_ATTR_IGNORED, 7, 30000, 0);
	vt_check(run, vtm_wait_ignored(b, buf2 ? 2 : 1, 5000),
		 "mad flush: B got the requests");
	vtm_unregister(a);
	spin_lock_irq(&a->lock);
	ndone = a->ndone;
	st = a->done_status;
	spin_unlock_irq(&a->lock);
	vt_check(run, ndone == (buf2 ? 2 : 1) && st == IB_WC_WR_FLUSH_ERR,
		 "mad flush: unregistration ended the outstanding sends with IB_WC_WR_FLUSH_ERR (%d done, status %d)",
		 ndone, st);
	vtm_free(buf);
	if (buf2)
		vtm_free(buf2);
}

#define VTM_FUZZ_SLOTS	64
#define VTM_FUZZ_SLOT	512
#define VTM_FUZZ_RANDOM	200

/* Send @len bytes of slot @i from the UD QP to QP1 at @ah. */
static int vtm_fuzz_send(struct vt_qp *q, struct vt_buf *b, int i, u32 len,
			 struct ib_ah *ah)
{
	struct ib_sge sge = {
		.addr = b->dma + i * VTM_FUZZ_SLOT,
		.length = len,
		.lkey = q->side->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = len ? 1 : 0,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.ah = ah,
		.remote_qpn = 1,
		.remote_qkey = IB_QP1_QKEY,
	};

	return ib_post_send(q->qp, &wr.wr, NULL);
}

/* What a row of vtm_fuzz_cases changes in the Get it starts from */
enum vtm_fuzz_field {
	VTM_FUZZ_END,		/* no more changes */
	VTM_FUZZ_LENGTH,	/* the bytes sent, of IB_MGMT_MAD_SIZE */
	VTM_FUZZ_TID,
	VTM_FUZZ_BASE_VERSION,	/* the rest: one byte of the MAD */
	VTM_FUZZ_MGMT_CLASS,
	VTM_FUZZ_CLASS_VERSION,
	VTM_FUZZ_METHOD,
	VTM_FUZZ_HOP_PTR,	/* of a directed-route SMP */
	VTM_FUZZ_HOP_CNT,
};

/* Where the one-byte fields are in a MAD */
static const u8 vtm_fuzz_offset[] = {
	[VTM_FUZZ_BASE_VERSION] = offsetof(struct ib_mad_hdr, base_version),
	[VTM_FUZZ_MGMT_CLASS] = offsetof(struct ib_mad_hdr, mgmt_class),
	[VTM_FUZZ_CLASS_VERSION] = offsetof(struct ib_mad_hdr, class_version),
	[VTM_FUZZ_METHOD] = offsetof(struct ib_mad_hdr, method),
	[VTM_FUZZ_HOP_PTR] = offsetof(struct ib_smp, hop_ptr),
	[VTM_FUZZ_HOP_CNT] = offsetof(struct ib_smp, hop_cnt),
};

/* What vmlx0's MAD layer does with the MAD of a row */
enum vtm_fuzz_outcome {
	VTM_FUZZ_DROPPED,	/* nothing: no answer, no agent sees it */
	VTM_FUZZ_UNSUPPORTED,	/* GetResp status 0x000c from QP1 */
};

/**
 * struct vtm_fuzz_change - one change to the MAD of a row
 * @field: what to change
 * @value: to what
 */
struct vtm_fuzz_change {
	enum vtm_fuzz_field	field;
	u64			value;
};

/**
 * struct vtm_fuzz_case - one malformed or unclaimed MAD for vmlx0's QP1
 * @what: what is wrong with it
 * @change: how it differs from a well-formed Get of VTM_CLASS, up to the
 *	first VTM_FUZZ_END
 * @outcome: what must come of it
 */
struct vtm_fuzz_case {
	const char		*what;
	struct vtm_fuzz_change	change[3];
	enum vtm_fuzz_outcome	outcome;
};

#define VTM_FUZZ_ANSWER_TID	0x00c0ffee00000001ULL

/*
 * The two rows answered are the unclaimed Set and Get; the Get is sent
 * last, after the random MADs too, so that its answer comes once vmlx0
 * has processed everything before it.
 */
static const struct vtm_fuzz_case vtm_fuzz_cases[] = {
	{ "no bytes", { { VTM_FUZZ_LENGTH, 0 } } },
	{ "the MAD header only", { { VTM_FUZZ_LENGTH, IB_MGMT_MAD_HDR } } },
	{ "one byte short", { { VTM_FUZZ_LENGTH, IB_MGMT_MAD_SIZE - 1 } } },
	{ "base version 2", { { VTM_FUZZ_BASE_VERSION, 2 } } },
	{ "a LID-routed SMP on QP1",
	  { { VTM_FUZZ_MGMT_CLASS, IB_MGMT_CLASS_SUBN_LID_ROUTED } } },
	{ "a directed-route SMP on QP1, hop count 200, hop pointer 99",
	  { { VTM_FUZZ_MGMT_CLASS, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE },
	    { VTM_FUZZ_HOP_CNT, 200 }, { VTM_FUZZ_HOP_PTR, 99 } } },
	{ "class 0x4f, method 0x7f",
	  { { VTM_FUZZ_MGMT_CLASS, 0x4f }, { VTM_FUZZ_METHOD, 0x7f } } },
	{ "method 0", { { VTM_FUZZ_METHOD, 0 } } },
	{ "a GetResp nobody asked for",
	  { { VTM_FUZZ_METHOD, IB_MGMT_METHOD_GET_RESP } } },
	{ "a TrapRepress", { { VTM_FUZZ_METHOD, IB_MGMT_METHOD_TRAP_REPRESS } } },
	{ "a GetResp with an unknown hi_tid",
	  { { VTM_FUZZ_METHOD, IB_MGMT_METHOD_GET_RESP },
	    { VTM_FUZZ_TID, 0xffffff0000000000ULL } } },
	{ "a CM Get (CM takes Sends only)",
	  { { VTM_FUZZ_MGMT_CLASS, IB_MGMT_CLASS_CM } } },
	{ "a Set of class version 200",
	  { { VTM_FUZZ_METHOD, IB_MGMT_METHOD_SET },
	    { VTM_FUZZ_CLASS_VERSION, 200 },
	    { VTM_FUZZ_TID, VTM_FUZZ_ANSWER_TID + 1 } },
	  VTM_FUZZ_UNSUPPORTED },
	{ "a ReportResp", { { VTM_FUZZ_METHOD, IB_MGMT_METHOD_REPORT_RESP } } },
	{ "a Trap", { { VTM_FUZZ_METHOD, IB_MGMT_METHOD_TRAP } } },
	{ "a Get of a class nobody claims",
	  { { VTM_FUZZ_MGMT_CLASS, VTM_CLASS_NOBODY },
	    { VTM_FUZZ_TID, VTM_FUZZ_ANSWER_TID } },
	  VTM_FUZZ_UNSUPPORTED },
};

/* The TID of row @i: its own, or one under A's @hi_tid. */
static u64 vtm_fuzz_tid(int i, u64 hi_tid)
{
	const struct vtm_fuzz_case *fc = &vtm_fuzz_cases[i];
	int k;

	for (k = 0; k < ARRAY_SIZE(fc->change); k++)
		if (fc->change[k].field == VTM_FUZZ_TID)
			return fc->change[k].value;
	return hi_tid | 0x100 | i;
}

/* Row @i's MAD in slot @i; returns the bytes to send. */
static u32 vtm_fuzz_build(struct vt_buf *b, int i, u64 hi_tid)
{
	const struct vtm_fuzz_case *fc = &vtm_fuzz_cases[i];
	struct ib_mad *mad = (struct ib_mad *)(b->va + i * VTM_FUZZ_SLOT);
	u32 len = IB_MGMT_MAD_SIZE;
	int k;

	memset(mad, 0, sizeof(*mad));
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = VTM_CLASS;
	mad->mad_hdr.class_version = 1;
	mad->mad_hdr.method = IB_MGMT_METHOD_GET;
	mad->mad_hdr.tid = cpu_to_be64(vtm_fuzz_tid(i, hi_tid));
	mad->mad_hdr.attr_id = cpu_to_be16(VTM_ATTR);
	for (k = 0; k < ARRAY_SIZE(fc->change) && fc->change[k].field; k++) {
		const struct vtm_fuzz_change *ch = &fc->change[k];

		if (ch->field == VTM_FUZZ_LENGTH)
			len = ch->value;
		else if (ch->field != VTM_FUZZ_TID)	/* vtm_fuzz_tid() */
			((u8 *)mad)[vtm_fuzz_offset[ch->field]] = ch->value;
	}
	return len;
}

/*
 * Random MAD @i (numbered after the rows) in its slot: random bytes, but
 * never a Get or Set (no answer), of random length one time in four.
 * Returns the bytes to send.
 */
static u32 vtm_fuzz_random(struct vt_buf *b, int i, u32 seed)
{
	struct ib_mad *mad = (struct ib_mad *)(b->va + (i % VTM_FUZZ_SLOTS) *
					       VTM_FUZZ_SLOT);

	vt_fill((u8 *)mad, IB_MGMT_MAD_SIZE, seed + i);
	if (!(mad->mad_hdr.method & 0x80))
		mad->mad_hdr.method |= 0x40;
	return (i & 3) ? IB_MGMT_MAD_SIZE : (seed * (i + 1)) % IB_MGMT_MAD_SIZE;
}

/*
 * Send @len bytes of MAD @i (in slot @i % VTM_FUZZ_SLOTS), count it in
 * @sent and reap the send completions into @reaped; false (with vt_why())
 * if it could not be sent.
 */
static bool vtm_fuzz_put(struct vt_run *run, struct vt_qp *q,
			 struct vt_buf *b, struct ib_ah *ah, int i, u32 len,
			 int *sent, int *reaped)
{
	struct ib_wc wc;
	int ret;

	ret = vtm_fuzz_send(q, b, i % VTM_FUZZ_SLOTS, len, ah);
	if (ret) {
		vt_why(run, "fuzz send %d (%s): %d", i,
		       i < ARRAY_SIZE(vtm_fuzz_cases) ?
		       vtm_fuzz_cases[i].what : "random", ret);
		return false;
	}
	(*sent)++;
	while (*reaped < *sent && vt_poll(run, &q->scq, &wc, 5000) == 1)
		(*reaped)++;
	return true;
}

/* Whether @mad, from @src_qp, is the answer row @i must get. */
static bool vtm_fuzz_answer(const struct ib_mad *mad, u32 src_qp, int i,
			    u64 hi_tid)
{
	return vtm_fuzz_cases[i].outcome == VTM_FUZZ_UNSUPPORTED &&
	       mad->mad_hdr.tid == cpu_to_be64(vtm_fuzz_tid(i, hi_tid)) &&
	       mad->mad_hdr.method == IB_MGMT_METHOD_GET_RESP &&
	       be16_to_cpu(mad->mad_hdr.status) ==
	       IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB &&
	       src_qp == 1;
}

/*
 * Malformed and unclaimed MADs from a UD QP of vmlx1 to QP1 of vmlx0 (the
 * Q_Key of QP1 lets a UD QP do that): the rows of vtm_fuzz_cases (wrong
 * sizes, base and class versions, SMP classes on QP1, unknown classes and
 * methods, responses with unknown TIDs), then VTM_FUZZ_RANDOM MADs of
 * random bytes, then the last row.  Nothing may reach A; only the rows
 * whose outcome is VTM_FUZZ_UNSUPPORTED are answered (to the UD QP);
 * vmlx0's MAD layer keeps working.
 */
static void vtm_case_fuzz(struct vt_run *run, struct vtm_agent *a,
			  struct vtm_agent *b, u16 lid_a, u16 lid_b)
{
	const int rows = ARRAY_SIZE(vtm_fuzz_cases);
	struct vt_side s = {};
	struct vt_qp q = {};
	struct vt_buf buf = {};
	struct vt_conn c;
	struct ib_ah *ah = NULL;
	struct ib_mad *mad;
	struct ib_wc wc;
	u64 hi = (u64)a->agent->hi_tid << 32;
	int i, n = 0, sent = 0, replies = 0, good = 0, answers = 0, ret;
	u32 seed = 12345;

	vtm_reset(a);
	if (vt_side_init(run, &s, run->vb, true) ||
	    vt_qp_create(run, &q, &s, IB_QPT_UD, NULL, VTM_FUZZ_SLOTS,
			 VTM_FUZZ_SLOTS) ||
	    vt_buf_alloc(run, &buf, s.dev, VTM_FUZZ_SLOTS * VTM_FUZZ_SLOT * 2)) {
		vt_result(run, "mad fuzz: a UD QP on vmlx1");
		goto out;
	}
	vt_conn_default(run, &c);
	c.qkey = IB_QP1_QKEY;
	if (vt_qp_connect(run, &q, 0, 0, &c)) {
		vt_result(run, "mad fuzz: UD QP ready");
		goto out;
	}
	ah = vt_create_ah(run, &s, lid_a, NULL);
	if (!ah) {
		vt_result(run, "mad fuzz: AH to vmlx0");
		goto out;
	}
	/* receive slots in the second half of the buffer */
	for (i = 0; i < VTM_FUZZ_SLOTS; i++) {
		ret = vt_post_recv(&q, 1000 + i, buf.dma +
				   (VTM_FUZZ_SLOTS + i) * VTM_FUZZ_SLOT,
				   VTM_FUZZ_SLOT, s.pd->local_dma_lkey);
		if (ret) {
			vt_why(run, "ib_post_recv: %d", ret);
			vt_result(run, "mad fuzz: receive buffers");
			goto out;
		}
	}

	for (i = 0; i < rows - 1 && !vt_aborted(run); i++)
		if (!vtm_fuzz_put(run, &q, &buf, ah, i,
				  vtm_fuzz_build(&buf, i, hi), &sent, &n))
			break;
	for (i = rows; i < rows + VTM_FUZZ_RANDOM && !run->why[0] &&
	     !vt_aborted(run); i++)
		if (!vtm_fuzz_put(run, &q, &buf, ah, i,
				  vtm_fuzz_random(&buf, i, seed), &sent, &n))
			break;
	if (!run->why[0])
		vtm_fuzz_put(run, &q, &buf, ah, rows - 1,
			     vtm_fuzz_build(&buf, rows - 1, hi), &sent, &n);
	vt_result(run, "mad fuzz: %d malformed or unclaimed MADs sent to vmlx0 QP1",
		  sent);

	/* the answers: each to a row that must get one, and no more */
	for (i = 0; i < rows; i++)
		if (vtm_fuzz_cases[i].outcome != VTM_FUZZ_DROPPED)
			answers++;
	while (replies < answers && vt_poll(run, &q.rcq, &wc, 1000) == 1) {
		int r = wc.wr_id - 1000;

		replies++;
		if (wc.status != IB_WC_SUCCESS || r < 0 || r >= VTM_FUZZ_SLOTS)
			continue;
		mad = (struct ib_mad *)(buf.va + (VTM_FUZZ_SLOTS + r) *
					VTM_FUZZ_SLOT + VT_GRH_BYTES);
		for (i = 0; i < rows; i++)
			if (vtm_fuzz_answer(mad, wc.src_qp, i, hi))
				good++;
	}
	vt_check(run, good == answers && replies == answers,
		 "mad fuzz: only the two unclaimed Get/Set answered, from QP1 to the UD QP, status 0x000c (%d replies, %d right)",
		 replies, good);
	spin_lock_irq(&a->lock);
	vt_check(run, a->nrecv == 0, "mad fuzz: nothing reached A (%d)",
		 a->nrecv);
	spin_unlock_irq(&a->lock);
	/* vmlx0's MAD layer still works */
	vtm_case_getresp(run, a, b, lid_b);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	vt_buf_free(&buf);
	vt_qp_destroy(&q);
	vt_side_fini(&s);
}

static void vtm_smp_get(struct vt_run *run, struct vtm_agent *s, int hops)
{
	struct ib_mad_agent *agent = s->agent;
	struct rdma_ah_attr attr = {
		.type = RDMA_AH_ATTR_TYPE_IB,
		.port_num = 1,
		.dlid = 0xffff,
	};
	struct ib_mad_send_buf *buf;
	struct ib_node_info *ni;
	struct ib_smp *smp;
	struct ib_ah *ah;
	int ret;

	vtm_reset(s);
	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		vt_why(run, "rdma_create_ah: %ld", PTR_ERR(ah));
		vt_result(run, "mad smp hop %d: SubnGet sent", hops);
		return;
	}
	buf = ib_create_send_mad(agent, 0, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		vt_why(run, "ib_create_send_mad: %ld", PTR_ERR(buf));
		vt_result(run, "mad smp hop %d: SubnGet sent", hops);
		return;
	}
	smp = buf->mad;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_GET;
	smp->tid = cpu_to_be64((u64)agent->hi_tid << 32 | (0x100 + hops));
	smp->attr_id = IB_SMP_ATTR_NODE_INFO;
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	smp->hop_cnt = hops;
	if (hops)
		smp->initial_path[1] = 1;
	buf->ah = ah;
	buf->timeout_ms = 1000;
	buf->retries = 1;
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		vt_why(run, "ib_post_send_mad: %d", ret);
		vt_result(run, "mad smp hop %d: SubnGet sent", hops);
		vtm_free(buf);
		return;
	}
	if (!vtm_wait_done(s, buf, 5000)) {
		ib_cancel_mad(buf);
		vtm_wait_done(s, buf, 5000);
	}
	spin_lock_irq(&s->lock);
	smp = (struct ib_smp *)&s->last;
	ni = (struct ib_node_info *)smp->data;
	vt_check(run, s->done_status == IB_WC_SUCCESS && s->nresp == 1,
		 "mad smp hop %d: answered (status %d, %d responses)", hops,
		 s->done_status, s->nresp);
	vt_check(run, smp->method == IB_MGMT_METHOD_GET_RESP &&
		 ib_get_smp_direction(smp) && smp->hop_ptr == 0 &&
		 smp->hop_cnt == hops &&
		 !(be16_to_cpu(smp->status) & 0x7fff),
		 "mad smp hop %d: GetResp, D set, hop_ptr back at 0, status 0 (hop_ptr %u status %#x)",
		 hops, smp->hop_ptr, be16_to_cpu(smp->status));
	if (hops == 0)
		vt_check(run, ni->node_type == RDMA_NODE_IB_CA &&
			 ni->node_guid == agent->device->node_guid,
			 "mad smp hop 0: NodeInfo of this CA (type %u)",
			 ni->node_type);
	else
		vt_check(run, ni->node_type == 2 && smp->return_path[1] == 1,
			 "mad smp hop 1: NodeInfo of the switch (type %u), return path recorded",
			 ni->node_type);
	spin_unlock_irq(&s->lock);
	vtm_free(buf);
}

static void vtm_case_smp(struct vt_run *run)
{
	struct ib_device *da = run->va->ibdev;
	struct vtm_agent s = {};

	if (!da->ops->process_mad) {
		vt_check(run, false, "mad smp: %s has no process_mad (no SMA)",
			 dev_name(&da->dev));
		return;
	}
	if (vtm_register(run, &s, da, IB_QPT_SMI, NULL)) {
		vt_result(run, "mad smp: agent on QP0");
		return;
	}
	vtm_smp_get(run, &s, 0);
	vtm_smp_get(run, &s, 1);
	vtm_unregister(&s);
}

/* ------------------------------------------------------------------ */
/* redirect: QP1 redirection of a GSI class (ib_mad_redirect_class())   */
/* ------------------------------------------------------------------ */

#define VTM_RD_SLOTS		8
#define VTM_RD_BAD_QKEY		0x12345678
#define VTM_PMA_PORT_COUNTERS	0x0012

static const char * const vtm_errnos[] = {
	[EINVAL] = "EINVAL", [EBUSY] = "EBUSY", [ENODEV] = "ENODEV",
	[ENOENT] = "ENOENT",
};

/* A made-up request of @mgmt_class in slot @i: PMA Get(PortCounters). */
static struct ib_mad *vtm_rd_mad(struct vt_buf *b, int i, u8 mgmt_class,
				 u64 tid, u8 port)
{
	struct ib_mad *mad = (struct ib_mad *)(b->va + i * VTM_FUZZ_SLOT);

	memset(mad, 0, sizeof(*mad));
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = mgmt_class;
	mad->mad_hdr.class_version = 1;
	mad->mad_hdr.method = IB_MGMT_METHOD_GET;
	mad->mad_hdr.tid = cpu_to_be64(tid);
	mad->mad_hdr.attr_id = cpu_to_be16(VTM_PMA_PORT_COUNTERS);
	/* PortCounters:PortSelect */
	((u8 *)mad)[IB_MGMT_DEVICE_HDR + 1] = port;
	return mad;
}

/*
 * Send slot @i from the UD QP to @dqpn at @ah with @qkey; wait for the
 * send completion and for an answer for up to @ms.  Returns the answer
 * (in its receive slot) or NULL; *src_qp is the answering QP.
 */
static struct ib_mad *vtm_rd_ask(struct vt_run *run, struct vt_qp *q,
				 struct vt_buf *b, int i, struct ib_ah *ah,
				u32 dqpn, u32 qkey, unsigned int ms,
				u32 *src_qp)
{
	struct ib_sge sge = {
		.addr = b->dma + i * VTM_FUZZ_SLOT,
		.length = IB_MGMT_MAD_SIZE,
		.lkey = q->side->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.ah = ah,
		.remote_qpn = dqpn,
		.remote_qkey = qkey,
	};
	int slot = VTM_RD_SLOTS + i;
	struct ib_wc wc;
	int ret;

	ret = vt_post_recv(q, slot, b->dma + slot * VTM_FUZZ_SLOT,
			   VTM_FUZZ_SLOT, q->side->pd->local_dma_lkey);
	if (!ret)
		ret = ib_post_send(q->qp, &wr.wr, NULL);
	if (ret) {
		vt_why(run, "post: %d", ret);
		return NULL;
	}
	if (vt_poll(run, &q->scq, &wc, 5000) != 1 ||
	    wc.status != IB_WC_SUCCESS) {
		vt_why(run, "no send completion");
		return NULL;
	}
	if (vt_poll(run, &q->rcq, &wc, ms) != 1)
		return NULL;
	if (wc.status != IB_WC_SUCCESS || wc.wr_id != slot) {
		vt_why(run, "receive completion %llu status %d", wc.wr_id,
		       wc.status);
		return NULL;
	}
	*src_qp = wc.src_qp;
	return (struct ib_mad *)(b->va + slot * VTM_FUZZ_SLOT + VT_GRH_BYTES);
}

/*
 * "redirect DEV PORT CLASS check": from a UD QP on the other device (its
 * Q_Key the GSI one, like a requester's QP1), a Get of CLASS to QP1 gets
 * status 0x0002 with a ClassPortInfo naming the redirect QP; the same Get
 * to the redirect QP gets a real answer from it; a Get of another class,
 * an SMP and the Get with a wrong Q_Key sent there get nothing, and the
 * MAD layer counts the first two as dropped.
 */
static void vtm_redirect_check(struct vt_run *run, struct vt_dev *target,
			       u32 port, u8 mgmt_class)
{
	struct vt_dev *from = target == run->va ? run->vb : run->va;
	struct ib_device *dev = target->ibdev;
	struct ib_mad_redirect_attr before, after;
	struct ib_class_port_info *cpi;
	struct vt_side s = {};
	struct vt_qp q = {};
	struct vt_buf buf = {};
	struct ib_ah *ah = NULL;
	struct vt_conn c;
	struct ib_mad *ans;
	u64 tid = 0x0abcdef000000001ULL;
	u16 lid = vtm_lid(dev);
	u32 src_qp = 0;
	int ret;

	ret = ib_mad_query_redirect(dev, port, mgmt_class, &before);
	if (ret) {
		vt_check(run, false,
			 "mad redirect check: class 0x%02x of %s port %u is redirected (%d)",
			 mgmt_class, ib_device_name(dev), port, ret);
		return;
	}
	if (vt_side_init(run, &s, from, true) ||
	    vt_qp_create(run, &q, &s, IB_QPT_UD, NULL, VTM_RD_SLOTS,
			 VTM_RD_SLOTS) ||
	    vt_buf_alloc(run, &buf, s.dev, 2 * VTM_RD_SLOTS * VTM_FUZZ_SLOT)) {
		vt_result(run, "mad redirect check: a UD QP on %s",
			  ib_device_name(s.dev));
		goto out;
	}
	vt_conn_default(run, &c);
	c.qkey = IB_QP1_QKEY;
	if (vt_qp_connect(run, &q, 0, 0, &c)) {
		vt_result(run, "mad redirect check: UD QP ready");
		goto out;
	}
	ah = vt_create_ah(run, &s, lid, NULL);
	if (!ah) {
		vt_result(run, "mad redirect check: AH to LID %u", lid);
		goto out;
	}

	/* QP1: the redirect */
	vtm_rd_mad(&buf, 0, mgmt_class, tid, port);
	ans = vtm_rd_ask(run, &q, &buf, 0, ah, 1, IB_QP1_QKEY, 3000, &src_qp);
	cpi = ans ? (struct ib_class_port_info *)((u8 *)ans +
		ib_get_mad_data_offset(mgmt_class) +
		(mgmt_class == IB_MGMT_CLASS_PERF_MGMT ? 40 : 0)) : NULL;
	if (!ans)
		vt_why(run, "no answer");
	else if (src_qp != 1 || ans->mad_hdr.tid != cpu_to_be64(tid) ||
		 ans->mad_hdr.method != IB_MGMT_METHOD_GET_RESP ||
		 be16_to_cpu(ans->mad_hdr.status) !=
		 IB_MGMT_MAD_STATUS_REDIRECT_REQD ||
		 ans->mad_hdr.attr_id != cpu_to_be16(VTM_PMA_PORT_COUNTERS))
		vt_why(run, "from QP%u: TID %llx method 0x%x status 0x%x attr 0x%x",
		       src_qp, be64_to_cpu(ans->mad_hdr.tid),
		       ans->mad_hdr.method, be16_to_cpu(ans->mad_hdr.status),
		       be16_to_cpu(ans->mad_hdr.attr_id));
	else if (be32_to_cpu(cpi->redirect_qp) != before.qp_num ||
		 be32_to_cpu(cpi->redirect_qkey) != before.qkey ||
		 be16_to_cpu(cpi->redirect_lid) != lid ||
		 be16_to_cpu(cpi->redirect_pkey) != 0xffff ||
		 cpi->redirect_tcslfl)
		vt_why(run, "ClassPortInfo: QP 0x%x Q_Key 0x%x LID %u P_Key 0x%x TC/SL/FL 0x%x",
		       be32_to_cpu(cpi->redirect_qp),
		       be32_to_cpu(cpi->redirect_qkey),
		       be16_to_cpu(cpi->redirect_lid),
		       be16_to_cpu(cpi->redirect_pkey),
		       be32_to_cpu(cpi->redirect_tcslfl));
	vt_result(run,
		  "mad redirect check: QP1 answers 0x0002, ClassPortInfo LID %u QP 0x%x Q_Key 0x%x",
		  lid, before.qp_num, before.qkey);

	/* the redirect QP: the real answer, from it */
	vtm_rd_mad(&buf, 1, mgmt_class, tid + 1, port);
	ans = vtm_rd_ask(run, &q, &buf, 1, ah, before.qp_num, before.qkey, 3000,
			 &src_qp);
	if (!ans)
		vt_why(run, "no answer");
	else if (src_qp != before.qp_num ||
		 ans->mad_hdr.tid != cpu_to_be64(tid + 1) ||
		 ans->mad_hdr.method != IB_MGMT_METHOD_GET_RESP ||
		 ans->mad_hdr.status)
		vt_why(run, "from QP 0x%x: TID %llx method 0x%x status 0x%x",
		       src_qp, be64_to_cpu(ans->mad_hdr.tid),
		       ans->mad_hdr.method, be16_to_cpu(ans->mad_hdr.status));
	vt_result(run, "mad redirect check: the same Get to QP 0x%x answered from it, status 0",
		  before.qp_num);

	/* bad input: another class, an SMP, a wrong Q_Key */
	vtm_rd_mad(&buf, 2, VTM_CLASS, tid + 2, port);
	if (vtm_rd_ask(run, &q, &buf, 2, ah, before.qp_num, before.qkey, 1000,
		       &src_qp))
		vt_why(run, "answered from QP 0x%x", src_qp);
	vt_result(run, "mad redirect check: a Get of class 0x%02x to the redirect QP: no answer",
		  VTM_CLASS);
	vtm_rd_mad(&buf, 3, IB_MGMT_CLASS_SUBN_LID_ROUTED, tid + 3, port);
	if (vtm_rd_ask(run, &q, &buf, 3, ah, before.qp_num, before.qkey, 1000,
		       &src_qp))
		vt_why(run, "answered from QP 0x%x", src_qp);
	vt_result(run, "mad redirect check: an SMP to the redirect QP: no answer");
	vtm_rd_mad(&buf, 4, mgmt_class, tid + 4, port);
	if (vtm_rd_ask(run, &q, &buf, 4, ah, before.qp_num, VTM_RD_BAD_QKEY,
		       1000, &src_qp))
		vt_why(run, "answered from QP 0x%x", src_qp);
	vt_result(run, "mad redirect check: the Get with Q_Key 0x%x to the redirect QP: no answer",
		  VTM_RD_BAD_QKEY);

	ret = ib_mad_query_redirect(dev, port, mgmt_class, &after);
	vt_check(run, !ret && after.redirected - before.redirected == 1 &&
		 after.received - before.received == 1 &&
		 after.dropped - before.dropped == 2,
		 "mad redirect check: counted 1 redirected, 1 received, 2 dropped (%d: %u %u %u)",
		 ret, after.redirected - before.redirected,
		 after.received - before.received,
		 after.dropped - before.dropped);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	vt_buf_free(&buf);
	vt_qp_destroy(&q);
	vt_side_fini(&s);
}

/*
 * "mad redirect DEV PORT CLASS on|off|check [ERRNO]": redirect CLASS of
 * DEV's port PORT off QP1, end it, or check it (vtm_redirect_check()).
 * With ERRNO (EINVAL, EBUSY, ENODEV, ENOENT) on and off must fail so.
 */
static int vtm_cmd_redirect(struct vt_run *run)
{
	struct ib_mad_redirect_attr attr;
	const char *want_name = run->argc > 5 ? run->argv[5] : NULL;
	struct vt_dev *target = NULL;
	unsigned int port, cls, i;
	int want = 0, ret;
	const char *what;

	if (run->argc < 5 || run->argc > 6 ||
	    kstrtouint(run->argv[2], 0, &port) ||
	    kstrtouint(run->argv[3], 0, &cls) || cls > 0xff)
		return -EINVAL;
	if (!strcmp(run->argv[1], ib_device_name(run->va->ibdev)))
		target = run->va;
	else if (!strcmp(run->argv[1], ib_device_name(run->vb->ibdev)))
		target = run->vb;
	if (!target)
		return -EINVAL;
	if (want_name) {
		for (i = 0; i < ARRAY_SIZE(vtm_errnos); i++)
			if (vtm_errnos[i] && !strcmp(vtm_errnos[i], want_name))
				want = -(int)i;
		if (!want)
			return -EINVAL;
	}
	what = run->argv[4];
	if (!strcmp(what, "check") && !want) {
		vtm_redirect_check(run, target, port, cls);
		return 0;
	}
	if (!strcmp(what, "on"))
		ret = ib_mad_redirect_class(target->ibdev, port, cls);
	else if (!strcmp(what, "off"))
		ret = ib_mad_unredirect_class(target->ibdev, port, cls);
	else
		return -EINVAL;
	if (want) {
		vt_check(run, ret == want, "mad redirect %s %u 0x%02x %s: %s (%d)",
			 ib_device_name(target->ibdev), port, cls, what,
			 want_name, ret);
		return 0;
	}
	if (ret || strcmp(what, "on")) {
		vt_check(run, !ret, "mad redirect %s %u 0x%02x %s (%d)",
			 ib_device_name(target->ibdev), port, cls, what, ret);
		return 0;
	}
	ret = ib_mad_query_redirect(target->ibdev, port, cls, &attr);
	vt_check(run, !ret && attr.qkey == IB_MAD_REDIRECT_QKEY,
		 "mad redirect %s %u 0x%02x on: QP 0x%x Q_Key 0x%x (%d)",
		 ib_device_name(target->ibdev), port, cls, attr.qp_num,
		 attr.qkey, ret);
	vt_out(run, "# redirect qpn 0x%x qkey 0x%x", attr.qp_num, attr.qkey);
	return 0;
}

static const char * const vtm_cases[] = {
	"reg", "getresp", "timeout", "unsupported", "bogus", "cancel",
	"flush", "smp", "fuzz",
};

/**
 * vt_cmd_mad - the "mad" command
 * @run: the command
 *
 * Return: 0, or -EINVAL for unknown arguments.
 */
int vt_cmd_mad(struct vt_run *run)
{
	static const u8 methods[] = { IB_MGMT_METHOD_GET };
	struct vtm_agent a = {}, b = {};
	struct ib_mad_reg_req req;
	u16 lid_a, lid_b;

	if (run->argc && !strcmp(run->argv[0], "redirect"))
		return vtm_cmd_redirect(run);
	if (!vt_args_known(run, vtm_cases, ARRAY_SIZE(vtm_cases)))
		return -EINVAL;
	if (vt_has_arg(run, "reg"))
		vtm_case_reg(run);

	lid_a = vtm_lid(run->va->ibdev);
	lid_b = vtm_lid(run->vb->ibdev);
	vtm_reg_req(&req, VTM_CLASS, methods, 1);
	if (vtm_register(run, &a, run->va->ibdev, IB_QPT_GSI, NULL) ||
	    vtm_register(run, &b, run->vb->ibdev, IB_QPT_GSI, &req)) {
		vt_result(run, "mad: agents on vmlx0 and vmlx1 QP1");
		goto out;
	}
	if (vt_has_arg(run, "getresp") && !vt_aborted(run))
		vtm_case_getresp(run, &a, &b, lid_b);
	if (vt_has_arg(run, "timeout") && !vt_aborted(run))
		vtm_case_timeout(run, &a, &b, lid_b);
	if (vt_has_arg(run, "unsupported") && !vt_aborted(run))
		vtm_case_unsupported(run, &a, lid_b);
	if (vt_has_arg(run, "bogus") && !vt_aborted(run))
		vtm_case_bogus(run, &a, &b, lid_a, lid_b);
	if (vt_has_arg(run, "cancel") && !vt_aborted(run))
		vtm_case_cancel(run, &a, &b, lid_b);
	if (vt_has_arg(run, "fuzz") && !vt_aborted(run))
		vtm_case_fuzz(run, &a, &b, lid_a, lid_b);
	if (vt_has_arg(run, "flush") && !vt_aborted(run))
		vtm_case_flush(run, &a, &b, lid_b);
	if (vt_has_arg(run, "smp") && !vt_aborted(run))
		vtm_case_smp(run);
out:
	vtm_unregister(&a);
	vtm_unregister(&b);
	return 0;
}
