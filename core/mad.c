// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MAD layer: QP0 and QP1 of every IB port, the agents registered on
 * them, and the paths of management datagrams in and out.
 *
 * Ports.  An internal client ("mad") opens every port that has
 * RDMA_CORE_CAP_IB_MAD when a device registers: one PD, one CQ polled in a
 * work queue, QP0 (if the port has RDMA_CORE_CAP_IB_SMI) and QP1, taken to
 * RTS and filled with receive buffers.  The client is registered before
 * any other, so it is removed after all of them, when every agent of
 * another client is gone.
 *
 * Sends.  ib_post_send_mad() puts a send on its agent's send_list and on
 * the QP (or the QP's overflow list while the send queue is full).  When
 * the send completes, a send that expects a response moves to the
 * wait_list with a deadline; the agent's timed work resends it (same TID)
 * while retries are left and then finishes it with IB_WC_RESP_TIMEOUT_ERR.
 * A response finishes it with IB_WC_SUCCESS after the agent's recv_handler
 * saw the response.  Directed-route SMPs go through the rules of smi.c
 * first; those that stay in this node (hop count 0) are handed to the
 * device's process_mad and to the local agents from a work item instead
 * of the wire.
 *
 * Receives.  Every MAD from the wire is checked (size, base version, class
 * against QP, directed-route rules), offered to the device's process_mad,
 * then given to an agent: responses to the agent whose hi_tid is in the
 * TID, which must have a matching send; requests to the agent registered
 * for their class, version and method.  An unclaimed Get or Set is
 * answered with status 0x000C; anything else unclaimed is dropped.
 *
 * RMPP.  For agents with ib_mad_kernel_rmpp_agent(), mad_rmpp.c splits
 * sends created with rmpp_active into DATA segments sent one at a time
 * within the receiver's window (the send completes when the last one is
 * acknowledged, or, for a request, when its response arrives afterwards),
 * and reassembles received segments into one ib_mad_recv_wc before the
 * agent or the response matching sees them.
 *
 * Redirection.  ib_mad_redirect_class() moves one GSI class of a port off
 * QP1 (IBA 13.5.3.3) onto a UD QP of its own (own CQ, Q_Key
 * IB_MAD_REDIRECT_QKEY), which shares the receive and send paths of QP0
 * and QP1.  QP1 then answers the class's requests itself with status
 * 0x0002 and a ClassPortInfo naming that QP; on the redirect QP the
 * class's MADs go through process_mad and the agents as on QP1, and other
 * classes are dropped.
 *
 * Lifetimes.  An agent is referenced by its registration, by every send it
 * tracks and by every callback in progress; ib_unregister_mad_agent()
 * flushes its sends and waits for all of these.
 *
 * Locking (the locks are described with their structures in mad_priv.h):
 * a port's reg_lock guards its method tables, its redirect table and the
 * counts of receives in progress, its redirect_mutex serialises the
 * making and ending of redirects; an agent's lock its sends' lists and
 * states; a QP's send_lock and recv_lock its posted sends and receive
 * buffers; the xarray of agents by hi_tid has its own lock.  No callback
 * of an agent runs under any of them.
 *
 * Diagnostics.  The caller of a refused agent registration or send only
 * gets an errno; which rule refused it is said by a rate-limited dynamic
 * debug message ("module ib_core +p").  The tracepoints of mad_trace.h
 * (system ib_mad, upstream's events) show agents made and unregistered,
 * sends posted and completed, MADs received, the agents' callbacks and
 * directed-route SMPs in and out.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "core_priv.h"
#include "mad_priv.h"
#include "smi.h"

#define CREATE_TRACE_POINTS
#include "mad_trace.h"

static_assert(sizeof(struct ib_mad_hdr) == 24);
static_assert(sizeof(struct ib_mad) == 256);
static_assert(sizeof(struct ib_rmpp_mad) == 256);
static_assert(sizeof(struct ib_sa_mad) == 256);
static_assert(sizeof(struct ib_vendor_mad) == 256);
static_assert(sizeof(struct ib_smp) == 256);
static_assert(sizeof(struct ib_port_info) == 64);
static_assert(sizeof(struct ib_node_info) == 40);
static_assert(sizeof(struct ib_class_port_info) == 72);
static_assert(sizeof(struct ib_grh) == 40);
static_assert(sizeof(struct ib_mad_notice_attr) == 64);
static_assert(offsetof(struct ib_smp, initial_path) == 128);

#define IB_MAD_RECV_BYTES	(sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE)

/* hi_tid -> agent, for routing responses; the xarray's lock guards it */
static DEFINE_XARRAY_ALLOC1(ib_mad_agents);
static u32 ib_mad_next_tid;

static struct workqueue_struct *ib_mad_wq;

/**
 * struct ib_mad_device - the MAD ports of a device
 * @num_ports: entries in @port (phys_port_cnt)
 * @port: by port number - 1; a port without MAD support has no device
 */
struct ib_mad_device {
	u32			num_ports;
	struct ib_mad_port	port[];
};

static struct ib_client mad_client;

/**
 * ib_mad_port_get - the MAD layer of a port
 * @device: the device
 * @port_num: the port
 *
 * Return: the port, or NULL if @device has no MAD QPs on @port_num.
 */
struct ib_mad_port *ib_mad_port_get(struct ib_device *device, u32 port_num)
{
	struct ib_mad_device *mdev = ib_get_client_data(device, &mad_client);

	if (!mdev || port_num < 1 || port_num > mdev->num_ports)
		return NULL;
	if (!mdev->port[port_num - 1].device)
		return NULL;
	return &mdev->port[port_num - 1];
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/**
 * ib_response_mad - whether a MAD is a response
 * @hdr: the MAD's header
 *
 * Return: nonzero for responses (R bit, TrapRepress, BM responses).
 */
int ib_response_mad(const struct ib_mad_hdr *hdr)
{
	return (hdr->method & IB_MGMT_METHOD_RESP) ||
	       hdr->method == IB_MGMT_METHOD_TRAP_REPRESS ||
	       (hdr->mgmt_class == IB_MGMT_CLASS_BM &&
		(hdr->attr_mod & IB_BM_ATTR_MOD_RESP));
}
EXPORT_SYMBOL(ib_response_mad);

static bool ib_mad_is_vendor2(u8 mgmt_class)
{
	return mgmt_class >= IB_MGMT_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= IB_MGMT_CLASS_VENDOR_RANGE2_END;
}

/**
 * ib_is_mad_class_rmpp - whether a class may use RMPP
 * @mgmt_class: the class
 *
 * Return: nonzero for SA, DM, DevAdm, BIS and vendor range 2.
 */
int ib_is_mad_class_rmpp(u8 mgmt_class)
{
	return mgmt_class == IB_MGMT_CLASS_SUBN_ADM ||
	       mgmt_class == IB_MGMT_CLASS_DEVICE_MGMT ||
	       mgmt_class == IB_MGMT_CLASS_DEVICE_ADM ||
	       mgmt_class == IB_MGMT_CLASS_BIS ||
	       ib_mad_is_vendor2(mgmt_class);
}
EXPORT_SYMBOL(ib_is_mad_class_rmpp);

/**
 * ib_get_mad_data_offset - where the data of a class's MADs begins
 * @mgmt_class: the class
 *
 * Return: the header size in bytes.
 */
int ib_get_mad_data_offset(u8 mgmt_class)
{
	if (mgmt_class == IB_MGMT_CLASS_SUBN_ADM)
		return IB_MGMT_SA_HDR;
	if (mgmt_class == IB_MGMT_CLASS_DEVICE_MGMT ||
	    mgmt_class == IB_MGMT_CLASS_DEVICE_ADM ||
	    mgmt_class == IB_MGMT_CLASS_BIS)
		return IB_MGMT_DEVICE_HDR;
	if (ib_mad_is_vendor2(mgmt_class))
		return IB_MGMT_VENDOR_HDR;
	return IB_MGMT_MAD_HDR;
}
EXPORT_SYMBOL(ib_get_mad_data_offset);

/**
 * ib_mad_kernel_rmpp_agent - whether the core does RMPP for an agent
 * @agent: the agent
 *
 * Return: nonzero if the agent speaks RMPP and did not ask to do it itself.
 */
int ib_mad_kernel_rmpp_agent(const struct ib_mad_agent *agent)
{
	return agent->rmpp_version && !(agent->flags & IB_MAD_USER_RMPP);
}
EXPORT_SYMBOL(ib_mad_kernel_rmpp_agent);

static void ib_mad_agent_put(struct ib_mad_agent_private *priv)
{
	if (refcount_dec_and_test(&priv->refcount))
		complete(&priv->comp);
}

/* ------------------------------------------------------------------ */
/* Agent registration                                                  */
/* ------------------------------------------------------------------ */

static struct ib_mad_method_table *
ib_mad_find_table(struct ib_mad_port *port, u8 mgmt_class, u8 version,
		  const u8 *oui)
{
	struct ib_mad_method_table *t;

	list_for_each_entry(t, &port->class_list, list) {
		if (t->mgmt_class != mgmt_class || t->class_version != version)
			continue;
		if (ib_mad_is_vendor2(mgmt_class) && memcmp(t->oui, oui, 3))
			continue;
		return t;
	}
	return NULL;
}

/*
 * Why the MAD layer refuses an agent or a send, for dynamic debug (the
 * caller gets an errno and nothing else): rate-limited, since userspace
 * (ib_umad) can provoke them at will.
 */
#define ib_mad_dbg_refused(device, port_num, what, fmt, ...)		\
	dev_dbg_ratelimited(&(device)->dev, "MAD: port %u: %s refused: " fmt, \
			    port_num, what, ##__VA_ARGS__)

/* The rules of ib_register_mad_agent()'s arguments; -EINVAL if broken. */
static int ib_mad_check_reg(struct ib_device *device, u32 port_num,
			    enum ib_qp_type qp_type,
			    const struct ib_mad_reg_req *req, u8 rmpp_version,
			    ib_mad_send_handler send_handler,
			    ib_mad_recv_handler recv_handler, u32 flags)
{
	static const u8 zero_oui[3];
	bool smp, qp0;

	if (qp_type != IB_QPT_SMI && qp_type != IB_QPT_GSI) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "QP type %d is neither QP0 (SMI) nor QP1 (GSI)\n",
				   qp_type);
		return -EINVAL;
	}
	if (rmpp_version && rmpp_version != IB_MGMT_RMPP_VERSION) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "RMPP version %u, only %u exists\n",
				   rmpp_version, IB_MGMT_RMPP_VERSION);
		return -EINVAL;
	}
	if (flags & ~IB_MAD_USER_RMPP) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "unknown registration flags 0x%x\n",
				   flags & ~IB_MAD_USER_RMPP);
		return -EINVAL;
	}
	if (!req) {
		/* a send-only agent */
		if (!send_handler) {
			ib_mad_dbg_refused(device, port_num, "agent",
					   "a send-only agent without a send handler\n");
			return -EINVAL;
		}
		if (flags & IB_MAD_USER_RMPP) {
			ib_mad_dbg_refused(device, port_num, "agent",
					   "user RMPP for a send-only agent\n");
			return -EINVAL;
		}
		return 0;
	}
	if (req->mgmt_class_version >= IB_MAD_MAX_CLASS_VERSION) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "class 0x%02x version %u, above %u\n",
				   req->mgmt_class, req->mgmt_class_version,
				   IB_MAD_MAX_CLASS_VERSION - 1);
		return -EINVAL;
	}
	if (!recv_handler) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "class 0x%02x requests without a receive handler\n",
				   req->mgmt_class);
		return -EINVAL;
	}
	/* class 0 is reserved; above the table only DR SMPs */
	if (req->mgmt_class == 0 ||
	    (req->mgmt_class >= IB_MAD_MAX_CLASS &&
	     req->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "class 0x%02x is reserved\n",
				   req->mgmt_class);
		return -EINVAL;
	}
	if (ib_mad_is_vendor2(req->mgmt_class) &&
	    !memcmp(req->oui, zero_oui, sizeof(zero_oui))) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "vendor class 0x%02x without an OUI\n",
				   req->mgmt_class);
		return -EINVAL;
	}
	if (rmpp_version && !ib_is_mad_class_rmpp(req->mgmt_class)) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "RMPP for class 0x%02x, which has none\n",
				   req->mgmt_class);
		return -EINVAL;
	}
	smp = req->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	      req->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	qp0 = qp_type == IB_QPT_SMI;
	if (smp != qp0) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "class 0x%02x on QP%d: SMPs go on QP0, other classes on QP1\n",
				   req->mgmt_class, qp0 ? 0 : 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * Claim the methods of @priv's request; -EINVAL if one is taken, with
 * that method in @taken.
 */
static int ib_mad_add_reg(struct ib_mad_port *port,
			  struct ib_mad_agent_private *priv,
			  struct ib_mad_method_table *spare,
			  unsigned int *taken)
{
	struct ib_mad_reg_req *req = priv->reg_req;
	struct ib_mad_method_table *t;
	unsigned int m;

	t = ib_mad_find_table(port, req->mgmt_class, req->mgmt_class_version,
			      req->oui);
	if (t) {
		for_each_set_bit(m, req->method_mask, IB_MGMT_MAX_METHODS) {
			if (t->agent[m]) {
				*taken = m;
				return -EINVAL;
			}
		}
	} else {
		t = spare;
		t->mgmt_class = req->mgmt_class;
		t->class_version = req->mgmt_class_version;
		if (ib_mad_is_vendor2(req->mgmt_class))
			memcpy(t->oui, req->oui, sizeof(t->oui));
		list_add_tail(&t->list, &port->class_list);
	}
	for_each_set_bit(m, req->method_mask, IB_MGMT_MAX_METHODS) {
		t->agent[m] = priv;
		t->count++;
	}
	return 0;
}

/* Release the methods of @priv; returns a table to free, or NULL. */
static struct ib_mad_method_table *
ib_mad_remove_reg(struct ib_mad_port *port, struct ib_mad_agent_private *priv)
{
	struct ib_mad_reg_req *req = priv->reg_req;
	struct ib_mad_method_table *t;
	unsigned int m;

	t = ib_mad_find_table(port, req->mgmt_class, req->mgmt_class_version,
			      req->oui);
	if (!t)
		return NULL;
	for (m = 0; m < IB_MGMT_MAX_METHODS; m++) {
		if (t->agent[m] == priv) {
			t->agent[m] = NULL;
			t->count--;
		}
	}
	if (t->count)
		return NULL;
	list_del(&t->list);
	return t;
}

static void ib_mad_timed_work(struct work_struct *work);

/*
 * An agent on any QP of a port: QP0 and QP1 (ib_register_mad_agent()) or
 * a redirect QP (its send-only reply agent).
 */
static struct ib_mad_agent *
ib_mad_agent_create(struct ib_mad_qp_info *qp_info,
		    struct ib_mad_reg_req *mad_reg_req, u8 rmpp_version,
		    ib_mad_send_handler send_handler,
		    ib_mad_recv_handler recv_handler, void *context,
		    u32 registration_flags)
{
	struct ib_mad_port *port = qp_info->port;
	struct ib_device *device = port->device;
	u32 port_num = port->port_num;
	struct ib_mad_method_table *spare = NULL;
	struct ib_mad_agent_private *priv;
	unsigned int taken;
	u32 hi_tid;
	int ret;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	if (mad_reg_req) {
		priv->reg_req = kmemdup(mad_reg_req, sizeof(*mad_reg_req),
					GFP_KERNEL);
		spare = kzalloc(sizeof(*spare), GFP_KERNEL);
		if (!priv->reg_req || !spare) {
			ret = -ENOMEM;
			goto err_free;
		}
		INIT_LIST_HEAD(&spare->list);
	}
	priv->qp_info = qp_info;
	priv->agent.device = device;
	priv->agent.qp = qp_info->qp;
	priv->agent.port_num = port_num;
	priv->agent.recv_handler = recv_handler;
	priv->agent.send_handler = send_handler;
	priv->agent.context = context;
	priv->agent.flags = registration_flags;
	priv->agent.rmpp_version = rmpp_version;
	priv->agent.smp_allowed = true;
	ret = ib_mad_agent_security_setup(&priv->agent,
					  qp_info->qp->qp_type == IB_QPT_SMI ?
					  IB_QPT_SMI : IB_QPT_GSI);
	if (ret) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "the security module says %d\n", ret);
		goto err_free;
	}
	spin_lock_init(&priv->lock);
	INIT_LIST_HEAD(&priv->send_list);
	INIT_LIST_HEAD(&priv->wait_list);
	INIT_DELAYED_WORK(&priv->timed_work, ib_mad_timed_work);
	refcount_set(&priv->refcount, 1);
	init_completion(&priv->comp);
	ib_mad_rmpp_agent_init(priv);

	/* reserve the hi_tid; responses find the agent once it is stored */
	ret = xa_alloc_cyclic(&ib_mad_agents, &hi_tid, NULL,
			      XA_LIMIT(1, (1 << 24) - 1), &ib_mad_next_tid,
			      GFP_KERNEL);
	if (ret < 0)
		goto err_security;
	priv->agent.hi_tid = hi_tid;

	if (mad_reg_req) {
		spin_lock_irq(&port->reg_lock);
		ret = ib_mad_add_reg(port, priv, spare, &taken);
		if (!ret && !list_empty(&spare->list))
			spare = NULL;	/* now on the class list */
		spin_unlock_irq(&port->reg_lock);
		if (ret) {
			ib_mad_dbg_refused(device, port_num, "agent",
					   "method 0x%02x of class 0x%02x version %u is another agent's\n",
					   taken, mad_reg_req->mgmt_class,
					   mad_reg_req->mgmt_class_version);
			goto err_xa;
		}
	}
	xa_store(&ib_mad_agents, hi_tid, priv, GFP_KERNEL);
	kfree(spare);
	trace_ib_mad_create_agent(priv);
	return &priv->agent;

err_xa:
	xa_erase(&ib_mad_agents, hi_tid);
err_security:
	ib_mad_agent_security_cleanup(&priv->agent);
err_free:
	kfree(spare);
	kfree(priv->reg_req);
	kfree(priv);
	return ERR_PTR(ret);
}

/**
 * ib_register_mad_agent - register a user of a port's QP0 or QP1
 * @device: the device
 * @port_num: the port
 * @qp_type: IB_QPT_SMI (QP0) or IB_QPT_GSI (QP1)
 * @mad_reg_req: the unsolicited requests the agent wants (class, version,
 *	method mask, OUI for vendor range 2), or NULL for an agent that only
 *	sends (and receives responses)
 * @rmpp_version: RMPP version the agent speaks, 0 for none
 * @send_handler: called when a send finishes
 * @recv_handler: called for received MADs; required with @mad_reg_req
 * @context: for the handlers
 * @registration_flags: IB_MAD_USER_RMPP or 0
 *
 * Two agents of a port may not claim the same method of the same class
 * and version (and OUI).  The handlers run in process context, never two
 * at a time for the same MAD but possibly concurrently for different ones.
 *
 * Context: process context.
 * Return: the agent, or ERR_PTR(-EINVAL) for bad arguments or a method
 * already claimed, -ENODEV if the port has no MAD layer, -EPROTONOSUPPORT
 * if it has no such QP, -ENOMEM.
 */
struct ib_mad_agent *ib_register_mad_agent(struct ib_device *device,
					   u32 port_num,
					   enum ib_qp_type qp_type,
					   struct ib_mad_reg_req *mad_reg_req,
					   u8 rmpp_version,
					   ib_mad_send_handler send_handler,
					   ib_mad_recv_handler recv_handler,
					   void *context,
					   u32 registration_flags)
{
	struct ib_mad_qp_info *qp_info;
	struct ib_mad_port *port;
	int ret;

	ret = ib_mad_check_reg(device, port_num, qp_type, mad_reg_req,
			       rmpp_version, send_handler, recv_handler,
			       registration_flags);
	if (ret)
		return ERR_PTR(ret);
	port = ib_mad_port_get(device, port_num);
	if (!port) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "the port has no MAD layer\n");
		return ERR_PTR(-ENODEV);
	}
	qp_info = &port->qp_info[qp_type == IB_QPT_SMI ? IB_MAD_QP0 :
				 IB_MAD_QP1];
	if (!qp_info->qp) {
		ib_mad_dbg_refused(device, port_num, "agent",
				   "the port has no QP%d\n",
				   qp_type == IB_QPT_SMI ? 0 : 1);
		return ERR_PTR(-EPROTONOSUPPORT);
	}
	return ib_mad_agent_create(qp_info, mad_reg_req, rmpp_version,
				   send_handler, recv_handler, context,
				   registration_flags);
}
EXPORT_SYMBOL(ib_register_mad_agent);

/* ------------------------------------------------------------------ */
/* Finishing sends                                                     */
/* ------------------------------------------------------------------ */

static void ib_mad_unmap_send(struct ib_mad_send_wr_private *wr)
{
	struct ib_device *device = wr->mad_agent_priv->agent.device;

	if (!wr->mapped)
		return;
	ib_dma_unmap_single(device, wr->mapping, IB_MGMT_MAD_SIZE,
			    DMA_TO_DEVICE);
	wr->mapped = false;
}

/* Report the end of a send that is off all lists; drops its reference. */
void ib_mad_finish_send(struct ib_mad_send_wr_private *wr)
{
	struct ib_mad_agent_private *priv = wr->mad_agent_priv;
	struct ib_mad_send_wc wc = {
		.send_buf = &wr->send_buf,
		.status = wr->status,
	};

	wr->tracked = false;
	trace_ib_mad_send_done_agent(priv);
	priv->agent.send_handler(&priv->agent, &wc);
	ib_mad_agent_put(priv);
}

/* Insert by deadline and make sure the timer fires for the first. */
void ib_mad_wait_insert(struct ib_mad_agent_private *priv,
			struct ib_mad_send_wr_private *wr)
{
	struct ib_mad_send_wr_private *pos;
	struct list_head *before = &priv->wait_list;
	unsigned long delay;

	list_for_each_entry(pos, &priv->wait_list, agent_list) {
		if (time_before(wr->deadline, pos->deadline)) {
			before = &pos->agent_list;
			break;
		}
	}
	list_move_tail(&wr->agent_list, before);
	if (priv->dead)
		return;
	if (priv->wait_list.next == &wr->agent_list) {
		delay = time_after(wr->deadline, jiffies) ?
			wr->deadline - jiffies : 0;
		mod_delayed_work(ib_mad_wq, &priv->timed_work, delay);
	}
}

/*
 * A posted send completed (on the wire or locally).  Starts the response
 * timer, or finishes the send.
 */
static void ib_mad_complete_send(struct ib_mad_send_wr_private *wr,
				 enum ib_wc_status status)
{
	struct ib_mad_agent_private *priv = wr->mad_agent_priv;
	unsigned long flags;
	bool finish = false;

	spin_lock_irqsave(&priv->lock, flags);
	wr->posted = false;
	if (status != IB_WC_SUCCESS && wr->status == IB_WC_SUCCESS)
		wr->status = status;
	if (wr->status != IB_WC_SUCCESS) {
		wr->awaiting = false;
		wr->rmpp_pending = false;
	}
	if (wr->rmpp_pending) {
		if (ib_mad_rmpp_next_seg(wr)) {
			/* the next segment of the window is in wr->mad */
			wr->posted = true;
			spin_unlock_irqrestore(&priv->lock, flags);
			ib_mad_repost(wr);
			return;
		}
		/* the window is out: wait for the receiver's ACK */
		wr->deadline = jiffies + ib_mad_rmpp_ack_timeout(wr);
		ib_mad_wait_insert(priv, wr);
	} else if (wr->awaiting) {
		wr->deadline = jiffies +
			       msecs_to_jiffies(wr->send_buf.timeout_ms);
		ib_mad_wait_insert(priv, wr);
	} else if (!wr->in_recv) {
		list_del(&wr->agent_list);
		finish = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (finish)
		ib_mad_finish_send(wr);
}

/* ------------------------------------------------------------------ */
/* Posting                                                             */
/* ------------------------------------------------------------------ */

/* Put one send on its QP, or on the overflow list if the QP is full. */
static int ib_mad_post_wire(struct ib_mad_send_wr_private *wr)
{
	struct ib_mad_qp_info *qp_info = wr->mad_agent_priv->qp_info;
	struct ib_device *device = qp_info->port->device;
	unsigned long flags;
	int ret = 0;

	wr->mapping = ib_dma_map_single(device, wr->mad, IB_MGMT_MAD_SIZE,
					DMA_TO_DEVICE);
	if (ib_dma_mapping_error(device, wr->mapping))
		return -ENOMEM;
	wr->mapped = true;
	wr->sge.addr = wr->mapping;
	wr->sge.length = IB_MGMT_MAD_SIZE;
	wr->sge.lkey = qp_info->port->pd->local_dma_lkey;

	spin_lock_irqsave(&qp_info->send_lock, flags);
	if (qp_info->send_count < IB_MAD_QP_SEND_SIZE) {
		trace_ib_mad_ib_send_mad(wr);
		ret = ib_post_send(qp_info->qp, &wr->send_wr.wr, NULL);
		if (!ret)
			qp_info->send_count++;
	} else {
		list_add_tail(&wr->qp_list, &qp_info->overflow_list);
	}
	spin_unlock_irqrestore(&qp_info->send_lock, flags);
	if (ret) {
		trace_ib_mad_error_handler(wr);
		ib_mad_unmap_send(wr);
	}
	return ret;
}

static void ib_mad_local_work(struct work_struct *work);
static void ib_mad_send_done(struct ib_cq *cq, struct ib_wc *wc);

/*
 * Put a tracked send that is marked posted on the wire again (a resend, or
 * the next RMPP segment); a failure completes it with an error.
 */
void ib_mad_repost(struct ib_mad_send_wr_private *wr)
{
	if (wr->local) {
		queue_work(ib_mad_wq, &wr->local_work);
		return;
	}
	if (ib_mad_post_wire(wr))
		ib_mad_complete_send(wr, IB_WC_LOC_QP_OP_ERR);
}

/**
 * ib_create_send_mad - allocate a MAD to send
 * @mad_agent: the agent that will post it
 * @remote_qpn: destination QP (0 or 1, or the QP of a UD peer)
 * @pkey_index: P_Key index to send with (QP1)
 * @rmpp_active: send @data_len bytes as an RMPP message (kernel-RMPP
 *	agents only)
 * @hdr_len: bytes of class header (at least the 36 of the RMPP header with
 *	@rmpp_active)
 * @data_len: bytes of data; without RMPP @hdr_len + @data_len at most 256
 * @gfp_mask: allocation flags
 * @base_version: IB_MGMT_BASE_VERSION
 *
 * The MAD is zeroed.  The caller fills it in, sets ->ah (an AH on the
 * agent's ->qp->pd), ->timeout_ms and ->retries, and posts it.
 *
 * With @rmpp_active, ->mad is the header only (@hdr_len bytes, repeated in
 * every segment; its RMPP header comes set to an active DATA message) and
 * the data goes into the ->seg_count segments of ->seg_size bytes that
 * ib_get_rmpp_segment() returns; the last one is padded with zeros.  If
 * the caller clears the ACTIVE flag, or sets an RMPP type other than DATA,
 * only the header and the first segment are sent, as one MAD.
 *
 * Return: the send buffer or an ERR_PTR(): -EINVAL for bad sizes, base
 * version, or RMPP on an agent without it; -ENOMEM.
 */
struct ib_mad_send_buf *ib_create_send_mad(struct ib_mad_agent *mad_agent,
					   u32 remote_qpn, u16 pkey_index,
					   int rmpp_active,
					   int hdr_len, int data_len,
					   gfp_t gfp_mask,
					   u8 base_version)
{
	struct ib_mad_agent_private *priv =
		container_of(mad_agent, struct ib_mad_agent_private, agent);
	struct ib_device *device = mad_agent->device;
	u32 port_num = mad_agent->port_num;
	struct ib_mad_send_wr_private *wr;
	int ret;

	if (base_version != IB_MGMT_BASE_VERSION) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "base version %u\n", base_version);
		return ERR_PTR(-EINVAL);
	}
	if (hdr_len < 0 || data_len < 0 || hdr_len > IB_MGMT_MAD_SIZE) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "%d bytes of header, %d of data\n",
				   hdr_len, data_len);
		return ERR_PTR(-EINVAL);
	}
	if (rmpp_active) {
		if (!ib_mad_kernel_rmpp_agent(mad_agent)) {
			ib_mad_dbg_refused(device, port_num, "send",
					   "RMPP by an agent without kernel RMPP\n");
			return ERR_PTR(-EINVAL);
		}
		/* every segment needs room for data after the header */
		if (hdr_len < IB_MGMT_RMPP_HDR || hdr_len >= IB_MGMT_MAD_SIZE) {
			ib_mad_dbg_refused(device, port_num, "send",
					   "RMPP with %d bytes of header\n",
					   hdr_len);
			return ERR_PTR(-EINVAL);
		}
	} else if (data_len > IB_MGMT_MAD_SIZE - hdr_len) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "%d bytes of header and %d of data exceed a MAD\n",
				   hdr_len, data_len);
		return ERR_PTR(-EINVAL);
	}

	wr = kzalloc(sizeof(*wr), gfp_mask);
	if (!wr)
		return ERR_PTR(-ENOMEM);
	wr->mad_agent_priv = priv;
	INIT_LIST_HEAD(&wr->agent_list);
	INIT_LIST_HEAD(&wr->qp_list);
	INIT_WORK(&wr->local_work, ib_mad_local_work);
	wr->send_buf.mad = wr->mad;
	wr->send_buf.mad_agent = mad_agent;
	wr->send_buf.hdr_len = hdr_len;
	wr->send_buf.data_len = data_len;
	wr->send_buf.seg_count = 1;
	wr->send_buf.seg_size = IB_MGMT_MAD_SIZE - hdr_len;
	wr->send_buf.seg_rmpp_size = IB_MGMT_RMPP_DATA;
	if (rmpp_active) {
		ret = ib_mad_rmpp_send_alloc(wr, hdr_len, data_len, gfp_mask);
		if (ret) {
			kfree(wr);
			return ERR_PTR(ret);
		}
	}

	wr->cqe.done = ib_mad_send_done;
	wr->send_wr.wr.wr_cqe = &wr->cqe;
	wr->send_wr.wr.sg_list = &wr->sge;
	wr->send_wr.wr.num_sge = 1;
	wr->send_wr.wr.opcode = IB_WR_SEND;
	wr->send_wr.wr.send_flags = IB_SEND_SIGNALED;
	wr->send_wr.remote_qpn = remote_qpn;
	wr->send_wr.remote_qkey = IB_QP_SET_QKEY;
	wr->send_wr.pkey_index = pkey_index;
	wr->send_wr.port_num = mad_agent->port_num;
	return &wr->send_buf;
}
EXPORT_SYMBOL(ib_create_send_mad);

/**
 * ib_get_rmpp_segment - the data of one segment of a send
 * @send_buf: the send
 * @seg_num: the segment, from 1
 *
 * Without RMPP a send has one segment, the data after the header in
 * ->mad.  With RMPP, segments 1 to ->seg_count hold ->seg_size bytes each.
 *
 * Return: the data of the segment, or NULL if there is no such segment.
 */
void *ib_get_rmpp_segment(struct ib_mad_send_buf *send_buf, int seg_num)
{
	struct ib_mad_send_wr_private *wr =
		container_of(send_buf, struct ib_mad_send_wr_private, send_buf);

	if (wr->rmpp_data)
		return ib_mad_rmpp_segment(wr, seg_num);
	if (seg_num != 1)
		return NULL;
	return (u8 *)send_buf->mad + send_buf->hdr_len;
}
EXPORT_SYMBOL(ib_get_rmpp_segment);

/**
 * ib_free_send_mad - free a send buffer
 * @send_buf: a buffer from ib_create_send_mad() that is not posted (never,
 *	or its send handler was called); the AH is the caller's
 */
void ib_free_send_mad(struct ib_mad_send_buf *send_buf)
{
	struct ib_mad_send_wr_private *wr;

	wr = container_of(send_buf, struct ib_mad_send_wr_private, send_buf);
	if (WARN_ON(wr->tracked))
		return;
	kvfree(wr->rmpp_data);
	kfree(wr);
}
EXPORT_SYMBOL(ib_free_send_mad);

static int ib_mad_post_one(struct ib_mad_send_wr_private *wr)
{
	struct ib_mad_agent_private *priv = wr->mad_agent_priv;
	struct ib_mad_hdr *hdr = (struct ib_mad_hdr *)wr->mad;
	struct ib_smp *smp = (struct ib_smp *)wr->mad;
	struct ib_mad_send_buf *buf = &wr->send_buf;
	struct ib_device *device = priv->agent.device;
	u32 port_num = priv->agent.port_num;
	struct rdma_ah_attr ah_attr;
	bool local = false;
	unsigned long flags;
	int ret;

	if (wr->tracked) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "TID 0x%llx is posted already\n",
				   be64_to_cpu(hdr->tid));
		return -EINVAL;
	}
	if (!buf->ah || !priv->agent.send_handler) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "TID 0x%llx without %s\n",
				   be64_to_cpu(hdr->tid),
				   buf->ah ? "a send handler" :
					     "an address handle");
		return -EINVAL;
	}
	if (buf->timeout_ms < 0 || buf->retries < 0) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "TID 0x%llx with timeout %d ms, %d retries\n",
				   be64_to_cpu(hdr->tid), buf->timeout_ms,
				   buf->retries);
		return -EINVAL;
	}
	if (buf->timeout_ms && !priv->agent.recv_handler) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "TID 0x%llx waits for a response the agent cannot receive\n",
				   be64_to_cpu(hdr->tid));
		return -EINVAL;
	}
	ret = ib_mad_enforce_security(&priv->agent, wr->send_wr.pkey_index);
	if (ret) {
		ib_mad_dbg_refused(device, port_num, "send",
				   "TID 0x%llx with P_Key index %u: the security module says %d\n",
				   be64_to_cpu(hdr->tid),
				   wr->send_wr.pkey_index, ret);
		return ret;
	}
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		if (priv->qp_info->qp->qp_num != 0) {
			ib_mad_dbg_refused(device, port_num, "send",
					   "directed-route SMP on QP%u\n",
					   priv->qp_info->qp->qp_num);
			return -EINVAL;
		}
		trace_ib_mad_handle_out_ib_smi(smp);
		if (smi_ca_outgoing(smp, port_num) == IB_SMI_DISCARD) {
			ib_mad_dbg_refused(device, port_num, "send",
					   "directed-route SMP the rules of IBA 14.2.2.2 discard (hop %u of %u)\n",
					   smp->hop_ptr, smp->hop_cnt);
			return -EINVAL;
		}
		local = smi_is_local_request(smp) ||
			smi_is_local_response(smp);
	}

	wr->tid = hdr->tid;
	wr->status = IB_WC_SUCCESS;
	/* from here on ->retries counts the resends made, as upstream's */
	wr->retries_left = buf->retries;
	buf->retries = 0;
	wr->awaiting = buf->timeout_ms && !ib_response_mad(hdr);
	wr->in_recv = false;
	wr->local = local;
	wr->check_lid = false;
	wr->rmpp_pending = false;
	if (wr->rmpp_data)
		ib_mad_rmpp_send_start(wr);
	if (!local && hdr->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
	    !rdma_query_ah(buf->ah, &ah_attr) &&
	    !(ah_attr.ah_flags & IB_AH_GRH) && ah_attr.dlid &&
	    ah_attr.dlid < 0xc000) {
		wr->dlid = ah_attr.dlid;
		wr->check_lid = true;
	}
	wr->send_wr.ah = buf->ah;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->dead) {
		spin_unlock_irqrestore(&priv->lock, flags);
		buf->retries = wr->retries_left;
		ib_mad_dbg_refused(device, port_num, "send",
				   "TID 0x%llx: the agent is unregistering\n",
				   be64_to_cpu(hdr->tid));
		return -ESHUTDOWN;
	}
	refcount_inc(&priv->refcount);
	wr->tracked = true;
	wr->posted = true;
	list_add_tail(&wr->agent_list, &priv->send_list);
	spin_unlock_irqrestore(&priv->lock, flags);

	if (local) {
		queue_work(ib_mad_wq, &wr->local_work);
		return 0;
	}
	ret = ib_mad_post_wire(wr);
	if (ret) {
		spin_lock_irqsave(&priv->lock, flags);
		list_del_init(&wr->agent_list);
		wr->tracked = false;
		wr->posted = false;
		spin_unlock_irqrestore(&priv->lock, flags);
		buf->retries = wr->retries_left;
		ib_mad_agent_put(priv);
	}
	return ret;
}

/**
 * ib_post_send_mad - send MADs
 * @send_buf: the first of a chain (->next) of buffers from
 *	ib_create_send_mad(), with ->ah set
 * @bad_send_buf: set to the first buffer not posted on error (may be NULL)
 *
 * Each send ends with one call of the agent's send handler.  The TID is
 * used as it is: its upper 32 bits must be the agent's hi_tid for the
 * response to find its way back.  A directed-route SMP goes through the
 * send rules of IBA 14.2.2.2 here; with hop count 0 it never reaches the
 * wire and is handled by this node's SMA (process_mad) or agents.
 *
 * Context: any; does not sleep.
 * Return: 0, -EINVAL for a malformed send (no AH, a timeout without a
 * receive handler, a directed-route SMP the rules discard, reposting a
 * posted buffer), -ESHUTDOWN while the agent unregisters, or the
 * driver's error.
 */
int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf)
{
	struct ib_mad_send_buf *next;
	struct ib_mad_send_wr_private *wr;
	int ret;

	for (; send_buf; send_buf = next) {
		/* once posted, the send may complete and be freed at once */
		next = send_buf->next;
		wr = container_of(send_buf, struct ib_mad_send_wr_private,
				  send_buf);
		ret = ib_mad_post_one(wr);
		if (ret) {
			if (bad_send_buf)
				*bad_send_buf = send_buf;
			return ret;
		}
	}
	return 0;
}
EXPORT_SYMBOL(ib_post_send_mad);

/* A send completion from the CQ. */
static void ib_mad_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_mad_send_wr_private *wr =
		container_of(wc->wr_cqe, struct ib_mad_send_wr_private, cqe);
	struct ib_mad_qp_info *qp_info = wr->mad_agent_priv->qp_info;
	struct ib_mad_send_wr_private *next = NULL;
	unsigned long flags;
	int ret = 0;

	trace_ib_mad_send_done_handler(wr, wc);
	ib_mad_unmap_send(wr);

	spin_lock_irqsave(&qp_info->send_lock, flags);
	qp_info->send_count--;
	if (!list_empty(&qp_info->overflow_list)) {
		next = list_first_entry(&qp_info->overflow_list,
					struct ib_mad_send_wr_private, qp_list);
		list_del_init(&next->qp_list);
		trace_ib_mad_send_done_resend(next);
		ret = ib_post_send(qp_info->qp, &next->send_wr.wr, NULL);
		if (!ret)
			qp_info->send_count++;
	}
	spin_unlock_irqrestore(&qp_info->send_lock, flags);

	ib_mad_complete_send(wr, wc->status);
	if (next && ret) {
		trace_ib_mad_error_handler(next);
		ib_mad_unmap_send(next);
		ib_mad_complete_send(next, IB_WC_LOC_QP_OP_ERR);
	}
}

/* ------------------------------------------------------------------ */
/* Timeouts, retries, cancel                                           */
/* ------------------------------------------------------------------ */

static void ib_mad_timed_work(struct work_struct *work)
{
	struct ib_mad_agent_private *priv =
		container_of(work, struct ib_mad_agent_private,
			     timed_work.work);
	struct ib_mad_send_wr_private *wr;
	unsigned long flags;
	bool timed;

	spin_lock_irqsave(&priv->lock, flags);
	while (!list_empty(&priv->wait_list)) {
		wr = list_first_entry(&priv->wait_list,
				      struct ib_mad_send_wr_private,
				      agent_list);
		/* a response, or an RMPP ACK, is expected */
		timed = wr->status == IB_WC_SUCCESS &&
			(wr->awaiting || wr->rmpp_pending);
		if (timed && time_before(jiffies, wr->deadline)) {
			if (!priv->dead)
				mod_delayed_work(ib_mad_wq, &priv->timed_work,
						 wr->deadline - jiffies);
			break;
		}
		if (timed && wr->retries_left > 0 && !priv->dead &&
		    !ib_mad_rmpp_all_acked(wr)) {
			/* resend, same TID; RMPP from the last ACK on */
			wr->retries_left--;
			wr->send_buf.retries++;
			if (wr->rmpp_pending)
				ib_mad_rmpp_rewind(wr);
			wr->posted = true;
			list_move_tail(&wr->agent_list, &priv->send_list);
			spin_unlock_irqrestore(&priv->lock, flags);
			ib_mad_repost(wr);
			spin_lock_irqsave(&priv->lock, flags);
			continue;
		}
		if (wr->status == IB_WC_SUCCESS)
			wr->status = timed ? IB_WC_RESP_TIMEOUT_ERR :
				     IB_WC_SUCCESS;
		wr->awaiting = false;
		wr->rmpp_pending = false;
		list_del(&wr->agent_list);
		spin_unlock_irqrestore(&priv->lock, flags);
		ib_mad_finish_send(wr);
		spin_lock_irqsave(&priv->lock, flags);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/* Caller holds priv->lock. */
static struct ib_mad_send_wr_private *
ib_mad_find_tracked(struct ib_mad_agent_private *priv,
		    struct ib_mad_send_buf *send_buf)
{
	struct ib_mad_send_wr_private *wr;

	list_for_each_entry(wr, &priv->wait_list, agent_list)
		if (&wr->send_buf == send_buf)
			return wr;
	list_for_each_entry(wr, &priv->send_list, agent_list)
		if (&wr->send_buf == send_buf)
			return wr;
	return NULL;
}

/**
 * ib_modify_mad - change the response timeout of a posted MAD, or cancel it
 * @send_buf: the send
 * @timeout_ms: the new timeout, counted from now if the send already
 *	completed; 0 cancels: the send ends with IB_WC_WR_FLUSH_ERR
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL if the send is not posted or already ending.
 */
int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms)
{
	struct ib_mad_agent_private *priv;
	struct ib_mad_send_wr_private *wr;
	unsigned long flags;

	if (!send_buf)
		return -EINVAL;
	priv = container_of(send_buf->mad_agent, struct ib_mad_agent_private,
			    agent);
	spin_lock_irqsave(&priv->lock, flags);
	wr = ib_mad_find_tracked(priv, send_buf);
	if (!wr || wr->status != IB_WC_SUCCESS || wr->in_recv) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	if (!timeout_ms) {
		wr->status = IB_WC_WR_FLUSH_ERR;
		wr->awaiting = false;
		wr->rmpp_pending = false;
		if (!wr->posted) {
			/* waiting for a response: end it from the work */
			wr->deadline = jiffies;
			ib_mad_wait_insert(priv, wr);
			if (!priv->dead)
				mod_delayed_work(ib_mad_wq, &priv->timed_work,
						 0);
		}
	} else {
		send_buf->timeout_ms = timeout_ms;
		if (!wr->posted && wr->awaiting && !wr->rmpp_pending) {
			wr->deadline = jiffies + msecs_to_jiffies(timeout_ms);
			ib_mad_wait_insert(priv, wr);
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_modify_mad);

/**
 * ib_unregister_mad_agent - unregister an agent
 * @mad_agent: the agent
 *
 * Stops deliveries to the agent, ends its sends with IB_WC_WR_FLUSH_ERR
 * (those still on the wire when their send completes), waits until no
 * handler of the agent runs any more and every send was reported, and
 * frees the RMPP messages it was receiving.
 *
 * Context: process context; may sleep.  Not from one of its own handlers.
 */
void ib_unregister_mad_agent(struct ib_mad_agent *mad_agent)
{
	struct ib_mad_agent_private *priv =
		container_of(mad_agent, struct ib_mad_agent_private, agent);
	struct ib_mad_port *port = priv->qp_info->port;
	struct ib_mad_method_table *table = NULL;
	struct ib_mad_send_wr_private *wr, *tmp;
	LIST_HEAD(flushed);

	trace_ib_mad_unregister_agent(priv);
	xa_erase(&ib_mad_agents, mad_agent->hi_tid);
	if (priv->reg_req) {
		spin_lock_irq(&port->reg_lock);
		table = ib_mad_remove_reg(port, priv);
		spin_unlock_irq(&port->reg_lock);
		kfree(table);
	}

	spin_lock_irq(&priv->lock);
	priv->dead = true;
	list_for_each_entry(wr, &priv->send_list, agent_list) {
		if (wr->status == IB_WC_SUCCESS)
			wr->status = IB_WC_WR_FLUSH_ERR;
		wr->awaiting = false;
		wr->rmpp_pending = false;
	}
	list_for_each_entry_safe(wr, tmp, &priv->wait_list, agent_list) {
		if (wr->status == IB_WC_SUCCESS)
			wr->status = IB_WC_WR_FLUSH_ERR;
		wr->awaiting = false;
		wr->rmpp_pending = false;
		list_move_tail(&wr->agent_list, &flushed);
	}
	spin_unlock_irq(&priv->lock);

	cancel_delayed_work_sync(&priv->timed_work);
	list_for_each_entry_safe(wr, tmp, &flushed, agent_list) {
		list_del(&wr->agent_list);
		ib_mad_finish_send(wr);
	}

	ib_mad_agent_put(priv);
	wait_for_completion(&priv->comp);
	/* no receive runs any more: drop the reassemblies */
	ib_mad_rmpp_agent_cleanup(priv);
	ib_mad_agent_security_cleanup(&priv->agent);
	kfree(priv->reg_req);
	kfree(priv);
}
EXPORT_SYMBOL(ib_unregister_mad_agent);

/* ------------------------------------------------------------------ */
/* Receive dispatch                                                    */
/* ------------------------------------------------------------------ */

/**
 * ib_free_recv_mad - release a received MAD
 * @mad_recv_wc: what the agent's receive handler got (all the segments
 *	of an RMPP message)
 */
void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc)
{
	struct ib_mad_recv_buf *buf, *tmp;
	struct ib_mad_private *mp;

	if (!mad_recv_wc)
		return;
	/* the other segments of a reassembled RMPP message */
	if (mad_recv_wc->rmpp_list.next) {
		list_for_each_entry_safe(buf, tmp, &mad_recv_wc->rmpp_list,
					 list) {
			if (buf == &mad_recv_wc->recv_buf)
				continue;
			list_del(&buf->list);
			kfree(container_of(buf, struct ib_mad_private,
					   recv_wc.recv_buf));
		}
	}
	mp = container_of(mad_recv_wc, struct ib_mad_private, recv_wc);
	kfree(mp);
}
EXPORT_SYMBOL(ib_free_recv_mad);

static struct ib_mad_private *ib_mad_alloc_priv(gfp_t gfp)
{
	struct ib_mad_private *mp = kzalloc(sizeof(*mp), gfp);

	if (mp)
		INIT_LIST_HEAD(&mp->list);
	return mp;
}

/* A single MAD as the agent sees it: one segment on its rmpp_list. */
void ib_mad_prepare_recv_wc(struct ib_mad_private *mp)
{
	mp->recv_wc.wc = &mp->wc;
	mp->recv_wc.recv_buf.grh = &mp->buf.grh;
	mp->recv_wc.recv_buf.mad = (struct ib_mad *)mp->buf.mad;
	INIT_LIST_HEAD(&mp->recv_wc.recv_buf.list);
	INIT_LIST_HEAD(&mp->recv_wc.rmpp_list);
	list_add(&mp->recv_wc.recv_buf.list, &mp->recv_wc.rmpp_list);
	mp->recv_wc.mad_len = IB_MGMT_MAD_SIZE;
	mp->recv_wc.mad_seg_size = IB_MGMT_MAD_SIZE;
}

/* The agent registered for a request, with a reference, or NULL. */
static struct ib_mad_agent_private *
ib_mad_find_request_agent(struct ib_mad_port *port,
			  const struct ib_mad_hdr *hdr)
{
	const struct ib_vendor_mad *vmad = (const struct ib_vendor_mad *)hdr;
	struct ib_mad_agent_private *priv = NULL;
	struct ib_mad_method_table *t;
	unsigned long flags;

	if (hdr->method & IB_MGMT_METHOD_RESP ||
	    hdr->class_version >= IB_MAD_MAX_CLASS_VERSION)
		return NULL;
	spin_lock_irqsave(&port->reg_lock, flags);
	t = ib_mad_find_table(port, hdr->mgmt_class, hdr->class_version,
			      vmad->oui);
	if (t) {
		priv = t->agent[hdr->method];
		if (priv)
			refcount_inc(&priv->refcount);
	}
	spin_unlock_irqrestore(&port->reg_lock, flags);
	return priv;
}

/*
 * Kernel RMPP takes the MADs of its agents first: returns the MAD (or the
 * reassembled message) to deliver, with its recv_wc prepared, or NULL.
 */
static struct ib_mad_private *ib_mad_recv_rmpp(struct ib_mad_agent_private *priv,
					       struct ib_mad_private *mp)
{
	if (ib_mad_kernel_rmpp_agent(&priv->agent))
		mp = ib_mad_rmpp_recv(priv, mp);
	if (mp && !mp->recv_wc.wc)
		ib_mad_prepare_recv_wc(mp);
	return mp;
}

static void ib_mad_deliver_request(struct ib_mad_agent_private *priv,
				   struct ib_mad_private *mp)
{
	/* the agent's P_Key (QP1) or subnet management (QP0) rights */
	if (ib_mad_enforce_security(&priv->agent, mp->wc.pkey_index)) {
		kfree(mp);
		ib_mad_agent_put(priv);
		return;
	}
	mp = ib_mad_recv_rmpp(priv, mp);
	if (mp) {
		trace_ib_mad_recv_done_agent(priv);
		priv->agent.recv_handler(&priv->agent, NULL, &mp->recv_wc);
	}
	ib_mad_agent_put(priv);
}

/* Whether a MAD is an active RMPP segment (or ACK, STOP, ABORT). */
static bool ib_mad_rmpp_active(const struct ib_mad_private *mp)
{
	const struct ib_rmpp_mad *rmpp = (const struct ib_rmpp_mad *)mp->buf.mad;

	return ib_is_mad_class_rmpp(rmpp->mad_hdr.mgmt_class) &&
	       (rmpp->rmpp_hdr.rmpp_rtime_flags & IB_MGMT_RMPP_FLAG_ACTIVE);
}

/* The send a response answers; caller holds priv->lock. */
struct ib_mad_send_wr_private *
ib_mad_match_send(struct ib_mad_agent_private *priv,
		  const struct ib_mad_private *mp)
{
	const struct ib_mad_hdr *hdr = (const struct ib_mad_hdr *)mp->buf.mad;
	struct ib_mad_send_wr_private *wr;
	struct list_head *lists[] = { &priv->wait_list, &priv->send_list };
	const struct ib_mad_hdr *req;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry(wr, lists[i], agent_list) {
			req = (const struct ib_mad_hdr *)wr->mad;
			if (wr->tid != hdr->tid || !wr->awaiting ||
			    wr->status != IB_WC_SUCCESS || wr->in_recv ||
			    req->mgmt_class != hdr->mgmt_class)
				continue;
			if (wr->check_lid && wr->dlid != mp->wc.slid)
				continue;
			return wr;
		}
	}
	return NULL;
}

/* A response: to the agent that sent the request, or dropped. */
static void ib_mad_deliver_response(struct ib_mad_qp_info *qp_info,
				    struct ib_mad_private *mp)
{
	const struct ib_mad_hdr *hdr = (const struct ib_mad_hdr *)mp->buf.mad;
	u32 hi_tid = be64_to_cpu(hdr->tid) >> 32;
	struct ib_mad_agent_private *priv;
	struct ib_mad_send_wr_private *wr;
	unsigned long flags;
	bool finish = false;

	xa_lock_irqsave(&ib_mad_agents, flags);
	priv = xa_load(&ib_mad_agents, hi_tid);
	if (priv && (priv->qp_info != qp_info ||
		     !refcount_inc_not_zero(&priv->refcount)))
		priv = NULL;
	xa_unlock_irqrestore(&ib_mad_agents, flags);
	if (!priv) {
		kfree(mp);
		return;
	}
	if (ib_mad_enforce_security(&priv->agent, mp->wc.pkey_index)) {
		kfree(mp);
		ib_mad_agent_put(priv);
		return;
	}
	if (!priv->agent.recv_handler)
		goto drop;
	mp = ib_mad_recv_rmpp(priv, mp);
	if (!mp) {
		ib_mad_agent_put(priv);
		return;
	}

	spin_lock_irqsave(&priv->lock, flags);
	wr = ib_mad_match_send(priv, mp);
	if (!wr && !priv->dead && !ib_mad_kernel_rmpp_agent(&priv->agent) &&
	    ib_mad_rmpp_active(mp)) {
		/* user RMPP: the agent sees every segment, ACK, ... */
		spin_unlock_irqrestore(&priv->lock, flags);
		trace_ib_mad_recv_done_agent(priv);
		priv->agent.recv_handler(&priv->agent, NULL, &mp->recv_wc);
		ib_mad_agent_put(priv);
		return;
	}
	if (!wr || priv->dead) {
		spin_unlock_irqrestore(&priv->lock, flags);
		goto drop;
	}
	wr->awaiting = false;
	wr->rmpp_pending = false;
	wr->in_recv = true;
	/* off the wait list: neither the timer nor a cancel touch it now */
	list_move_tail(&wr->agent_list, &priv->send_list);
	spin_unlock_irqrestore(&priv->lock, flags);

	trace_ib_mad_recv_done_agent(priv);
	priv->agent.recv_handler(&priv->agent, &wr->send_buf, &mp->recv_wc);

	spin_lock_irqsave(&priv->lock, flags);
	wr->in_recv = false;
	if (!wr->posted) {
		list_del(&wr->agent_list);
		finish = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (finish)
		ib_mad_finish_send(wr);
	ib_mad_agent_put(priv);
	return;

drop:
	ib_mad_agent_put(priv);
	ib_free_recv_mad(&mp->recv_wc);
}

/*
 * Answer an unclaimed Get or Set with "unsupported method/attribute".
 * Returns the reply in @out, or false if the MAD gets no answer.
 */
static bool ib_mad_unclaimed_reply(const struct ib_mad *in,
				   struct ib_mad *out)
{
	if (in->mad_hdr.method != IB_MGMT_METHOD_GET &&
	    in->mad_hdr.method != IB_MGMT_METHOD_SET)
		return false;
	memcpy(out, in, sizeof(*out));
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status =
		cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	if (in->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		out->mad_hdr.status |= IB_SMP_DIRECTION;
	return true;
}

/* Whether a MAD may arrive on this QP at all (IBA 13.5.3). */
static bool ib_mad_valid(const struct ib_mad_qp_info *qp_info,
			 const struct ib_mad_hdr *hdr)
{
	bool smp = hdr->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
		   hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;

	if (hdr->base_version != IB_MGMT_BASE_VERSION)
		return false;
	if (smp == !!qp_info->qp->qp_num)
		return false;
	/* CM uses Send for everything but ClassPortInfo */
	if (hdr->mgmt_class == IB_MGMT_CLASS_CM &&
	    hdr->attr_id != IB_MGMT_CLASSPORTINFO_ATTR_ID &&
	    hdr->method != IB_MGMT_METHOD_SEND)
		return false;
	return true;
}

/* Everything after process_mad: agents, or the core's own answer. */
static void ib_mad_dispatch(struct ib_mad_qp_info *qp_info,
			    struct ib_mad_private *mp, int pm_ret)
{
	const struct ib_mad_hdr *hdr = (const struct ib_mad_hdr *)mp->buf.mad;
	struct ib_mad_agent_private *priv;
	struct ib_mad *reply;

	if (ib_response_mad(hdr)) {
		/* the agents that send the class's requests live on QP1 */
		ib_mad_deliver_response(qp_info->redirect ?
					&qp_info->port->qp_info[IB_MAD_QP1] :
					qp_info, mp);
		return;
	}
	priv = ib_mad_find_request_agent(qp_info->port, hdr);
	if (priv) {
		ib_mad_deliver_request(priv, mp);
		return;
	}
	if (pm_ret & IB_MAD_RESULT_SUCCESS) {
		reply = kmalloc(sizeof(*reply), GFP_KERNEL);
		if (reply && ib_mad_unclaimed_reply((struct ib_mad *)mp->buf.mad,
						    reply))
			ib_mad_send_reply(qp_info, &mp->wc,
					  mp->wc.wc_flags & IB_WC_GRH ?
					  &mp->buf.grh : NULL, reply);
		kfree(reply);
	}
	kfree(mp);
}

/* Offer a MAD to the device's SMA/PMA; returns IB_MAD_RESULT_* bits. */
static int ib_mad_process(struct ib_mad_port *port, const struct ib_wc *wc,
			  const struct ib_grh *grh, const struct ib_mad *in,
			  struct ib_mad *out)
{
	struct ib_device *device = port->device;
	size_t out_size = sizeof(*out);
	u16 pkey_index = 0;
	int ret;

	if (!device->ops->process_mad)
		return IB_MAD_RESULT_SUCCESS;
	ret = device->ops->process_mad(device, 0, port->port_num, wc, grh, in,
				       out, &out_size, &pkey_index);
	if ((ret & IB_MAD_RESULT_REPLY) && out_size < IB_MGMT_MAD_HDR)
		ret &= ~IB_MAD_RESULT_REPLY;
	return ret;
}

/*
 * QP1 redirection: a request of a redirected class on QP1 is answered
 * with status 0x0002 and the redirect's ClassPortInfo.  Returns whether
 * the MAD was taken care of.
 */
static bool ib_mad_redirect_recv(struct ib_mad_qp_info *qp_info,
				 struct ib_mad_private *mp)
{
	struct ib_mad_port *port = qp_info->port;
	struct ib_mad_hdr *hdr = (struct ib_mad_hdr *)mp->buf.mad;
	struct ib_class_port_info cpi;
	struct ib_mad_redirect *r;
	struct ib_port_attr attr;
	struct ib_mad *reply;
	unsigned long flags;

	if (qp_info != &port->qp_info[IB_MAD_QP1] ||
	    hdr->mgmt_class >= IB_MAD_MAX_CLASS)
		return false;
	spin_lock_irqsave(&port->reg_lock, flags);
	r = port->redirect[hdr->mgmt_class];
	if (r)
		cpi = r->cpi;
	spin_unlock_irqrestore(&port->reg_lock, flags);
	if (!r)
		return false;

	reply = kmalloc(sizeof(*reply), GFP_KERNEL);
	if (!reply)
		return true;
	/* the port's LID as it is now: the SM may have changed it */
	if (!ib_query_port(port->device, port->port_num, &attr))
		cpi.redirect_lid = cpu_to_be16(attr.lid);
	if (ib_mad_build_redirect((struct ib_mad *)hdr, &cpi, reply)) {
		ib_mad_send_reply(qp_info, &mp->wc,
				  mp->wc.wc_flags & IB_WC_GRH ?
				  &mp->buf.grh : NULL, reply);
		/* r may be gone by now; only count through the table */
		spin_lock_irqsave(&port->reg_lock, flags);
		r = port->redirect[hdr->mgmt_class];
		if (r)
			atomic_inc(&r->redirected);
		spin_unlock_irqrestore(&port->reg_lock, flags);
		kfree(reply);
		return true;
	}
	kfree(reply);
	/* Send and Trap have no response to carry a redirect */
	return false;
}

/* A MAD from the wire: checks, directed-route rules, SMA, dispatch. */
static void ib_mad_handle_recv(struct ib_mad_qp_info *qp_info,
			       struct ib_mad_private *mp)
{
	struct ib_mad_port *port = qp_info->port;
	struct ib_mad_hdr *hdr = (struct ib_mad_hdr *)mp->buf.mad;
	struct ib_mad_redirect *r = qp_info->redirect;
	const struct ib_grh *grh;
	struct ib_mad *out;
	int ret;

	if (r) {
		/* a redirect QP serves its class and nothing else */
		if (mp->wc.byte_len < IB_MAD_RECV_BYTES ||
		    hdr->mgmt_class != r->mgmt_class) {
			atomic_inc(&r->dropped);
			goto drop;
		}
		atomic_inc(&r->received);
	}
	if (mp->wc.byte_len < IB_MAD_RECV_BYTES || !ib_mad_valid(qp_info, hdr))
		goto drop;
	if (ib_mad_redirect_recv(qp_info, mp))
		goto drop;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		trace_ib_mad_handle_ib_smi((struct ib_smp *)hdr);
		if (smi_ca_incoming((struct ib_smp *)hdr, port->port_num,
				    port->device->phys_port_cnt) ==
		    IB_SMI_DISCARD)
			goto drop;
	}

	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		goto drop;
	grh = mp->wc.wc_flags & IB_WC_GRH ? &mp->buf.grh : NULL;
	ret = ib_mad_process(port, &mp->wc, grh, (struct ib_mad *)hdr, out);
	if ((ret & IB_MAD_RESULT_SUCCESS) && (ret & IB_MAD_RESULT_CONSUMED)) {
		kfree(out);
		goto drop;
	}
	if ((ret & IB_MAD_RESULT_SUCCESS) && (ret & IB_MAD_RESULT_REPLY)) {
		ib_mad_send_reply(qp_info, &mp->wc, grh, out);
		kfree(out);
		goto drop;
	}
	kfree(out);
	ib_mad_dispatch(qp_info, mp, ret);
	return;

drop:
	kfree(mp);
}

/* ------------------------------------------------------------------ */
/* Directed-route SMPs that stay in this node                          */
/* ------------------------------------------------------------------ */

static void ib_mad_local_wc(struct ib_mad_send_wr_private *wr,
			    struct ib_mad_private *mp)
{
	const struct ib_smp *smp = (const struct ib_smp *)mp->buf.mad;
	struct ib_mad_agent_private *priv = wr->mad_agent_priv;

	mp->qp_info = priv->qp_info;
	mp->wc.status = IB_WC_SUCCESS;
	mp->wc.opcode = IB_WC_RECV;
	mp->wc.byte_len = IB_MAD_RECV_BYTES;
	mp->wc.qp = priv->qp_info->qp;
	mp->wc.src_qp = 0;
	mp->wc.slid = be16_to_cpu(smp->dr_slid);
	mp->wc.pkey_index = wr->send_wr.pkey_index;
	mp->wc.port_num = priv->agent.port_num;
}

/*
 * A directed-route SMP that stays in this node: a local agent's reply back
 * at its requester, or a request for the device's SMA (process_mad) or a
 * local agent (an SM).  The send completes (GENERAL_ERR if the SMA could
 * not be asked) before the MAD, or the SMA's reply, is delivered.
 */
static void ib_mad_local_work(struct work_struct *work)
{
	struct ib_mad_send_wr_private *wr =
		container_of(work, struct ib_mad_send_wr_private, local_work);
	struct ib_mad_agent_private *priv = wr->mad_agent_priv;
	struct ib_mad_qp_info *qp_info = priv->qp_info;
	enum ib_wc_status status = IB_WC_GENERAL_ERR;
	struct ib_mad_private *in, *reply = NULL;
	/* who gets @in as a request, or NULL */
	struct ib_mad_agent_private *target = NULL;
	/* what is delivered as a response, or NULL */
	struct ib_mad_private *response = NULL;
	struct ib_smp *smp;
	int ret;

	in = ib_mad_alloc_priv(GFP_KERNEL);
	if (!in)
		goto out;
	memcpy(in->buf.mad, wr->mad, IB_MGMT_MAD_SIZE);
	ib_mad_local_wc(wr, in);
	smp = (struct ib_smp *)in->buf.mad;

	if (smi_is_local_response(smp)) {
		/* a reply of a local agent, back at the requester */
		status = IB_WC_SUCCESS;
		response = in;
		in = NULL;
		goto out;
	}

	reply = ib_mad_alloc_priv(GFP_KERNEL);
	if (!reply)
		goto out;
	ret = ib_mad_process(qp_info->port, &in->wc, NULL,
			     (struct ib_mad *)in->buf.mad,
			     (struct ib_mad *)reply->buf.mad);
	if (!(ret & IB_MAD_RESULT_SUCCESS))
		goto out;
	status = IB_WC_SUCCESS;
	if (ret & IB_MAD_RESULT_CONSUMED)
		goto out;
	if (!(ret & IB_MAD_RESULT_REPLY)) {
		/* the SMA declined: a local agent (SM) may want it */
		target = ib_mad_find_request_agent(qp_info->port,
						   (struct ib_mad_hdr *)smp);
		if (target)
			goto out;
		if (!ib_mad_unclaimed_reply((struct ib_mad *)in->buf.mad,
					    (struct ib_mad *)reply->buf.mad))
			goto out;
	}
	/* the reply turns around in this node: hop pointer back to 0 */
	smp = (struct ib_smp *)reply->buf.mad;
	smp->status |= IB_SMP_DIRECTION;
	ib_mad_local_wc(wr, reply);
	if (smi_ca_outgoing(smp, qp_info->port->port_num) != IB_SMI_DISCARD &&
	    smi_is_local_response(smp)) {
		response = reply;
		reply = NULL;
	}

out:
	/* the send may be freed from here on */
	ib_mad_complete_send(wr, status);
	kfree(reply);
	if (target)
		ib_mad_deliver_request(target, in);
	else
		kfree(in);
	if (response)
		ib_mad_deliver_response(qp_info, response);
}

/* ------------------------------------------------------------------ */
/* Receive buffers                                                     */
/* ------------------------------------------------------------------ */

static void ib_mad_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/* Post one receive buffer; caller holds qp_info->recv_lock. */
static int ib_mad_post_recv_locked(struct ib_mad_qp_info *qp_info,
				   struct ib_mad_private *mp)
{
	struct ib_device *device = qp_info->port->device;
	struct ib_recv_wr rwr = {};
	struct ib_sge sge;
	int ret;

	mp->qp_info = qp_info;
	mp->cqe.done = ib_mad_recv_done;
	mp->mapping = ib_dma_map_single(device, &mp->buf, IB_MAD_RECV_BYTES,
					DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(device, mp->mapping))
		return -ENOMEM;
	sge.addr = mp->mapping;
	sge.length = IB_MAD_RECV_BYTES;
	sge.lkey = qp_info->port->pd->local_dma_lkey;
	rwr.wr_cqe = &mp->cqe;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	list_add_tail(&mp->list, &qp_info->recv_list);
	ret = ib_post_recv(qp_info->qp, &rwr, NULL);
	if (ret) {
		list_del_init(&mp->list);
		ib_dma_unmap_single(device, mp->mapping, IB_MAD_RECV_BYTES,
				    DMA_FROM_DEVICE);
	}
	return ret;
}

static void ib_mad_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_mad_private *mp =
		container_of(wc->wr_cqe, struct ib_mad_private, cqe);
	struct ib_mad_qp_info *qp_info = mp->qp_info;
	struct ib_mad_port *port = qp_info->port;
	struct ib_mad_private *fresh;
	unsigned long flags;

	spin_lock_irqsave(&qp_info->recv_lock, flags);
	list_del_init(&mp->list);
	ib_dma_unmap_single(port->device, mp->mapping, IB_MAD_RECV_BYTES,
			    DMA_FROM_DEVICE);
	spin_unlock_irqrestore(&qp_info->recv_lock, flags);

	spin_lock_irqsave(&port->reg_lock, flags);
	if (port->stopping || qp_info->stopping ||
	    wc->status != IB_WC_SUCCESS) {
		spin_unlock_irqrestore(&port->reg_lock, flags);
		kfree(mp);
		return;
	}
	port->busy++;
	qp_info->busy++;
	spin_unlock_irqrestore(&port->reg_lock, flags);
	trace_ib_mad_recv_done_handler(qp_info, wc,
				       (const struct ib_mad_hdr *)mp->buf.mad);

	/* replace the buffer before looking at the MAD */
	fresh = ib_mad_alloc_priv(GFP_KERNEL);
	if (fresh) {
		spin_lock_irqsave(&qp_info->recv_lock, flags);
		if (ib_mad_post_recv_locked(qp_info, fresh)) {
			kfree(fresh);
			fresh = NULL;
		}
		spin_unlock_irqrestore(&qp_info->recv_lock, flags);
	}
	if (!fresh)
		dev_warn_ratelimited(&port->device->dev,
				     "MAD: port %u QP%u lost a receive buffer\n",
				     port->port_num, qp_info->qp->qp_num);

	/* the completion is only valid now: keep a copy with the MAD */
	mp->wc = *wc;
	mp->wc.wr_cqe = NULL;
	ib_mad_handle_recv(qp_info, mp);

	spin_lock_irqsave(&port->reg_lock, flags);
	port->busy--;
	qp_info->busy--;
	if ((!port->busy && port->stopping) ||
	    (!qp_info->busy && qp_info->stopping))
		wake_up_all(&port->idle);
	spin_unlock_irqrestore(&port->reg_lock, flags);
}

/* ------------------------------------------------------------------ */
/* Ports                                                               */
/* ------------------------------------------------------------------ */

static void ib_mad_qp_free_recvs(struct ib_mad_qp_info *qi);

/*
 * Create one of the port's MAD QPs (QP0, QP1, or a redirect QP: UD with
 * @qkey) on qi->cq, take it to RTS and fill it with receive buffers.
 */
static void ib_mad_qp_info_init(struct ib_mad_port *port,
				struct ib_mad_qp_info *qi)
{
	qi->port = port;
	spin_lock_init(&qi->recv_lock);
	INIT_LIST_HEAD(&qi->recv_list);
	spin_lock_init(&qi->send_lock);
	INIT_LIST_HEAD(&qi->overflow_list);
}

static int ib_mad_qp_open(struct ib_mad_port *port, struct ib_mad_qp_info *qi,
			  enum ib_qp_type type, u32 qkey)
{
	struct ib_qp_init_attr init = {
		.send_cq = qi->cq,
		.recv_cq = qi->cq,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = type,
		.port_num = port->port_num,
		.cap = {
			.max_send_wr = IB_MAD_QP_SEND_SIZE,
			.max_recv_wr = IB_MAD_QP_RECV_SIZE,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_qp_attr attr = {};
	struct ib_mad_private *mp;
	unsigned long flags;
	int ret, i;

	qi->qp = ib_create_qp(port->pd, &init);
	if (IS_ERR(qi->qp)) {
		ret = PTR_ERR(qi->qp);
		qi->qp = NULL;
		return ret;
	}
	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.qkey = qkey;
	attr.port_num = port->port_num;
	ret = ib_modify_qp(qi->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_QKEY |
			   (type == IB_QPT_UD ? IB_QP_PORT : 0));
	if (ret)
		goto err_destroy;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qi->qp, &attr, IB_QP_STATE);
	if (ret)
		goto err_destroy;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	ret = ib_modify_qp(qi->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	if (ret)
		goto err_destroy;

	for (i = 0; i < IB_MAD_QP_RECV_SIZE; i++) {
		mp = ib_mad_alloc_priv(GFP_KERNEL);
		if (!mp) {
			ret = -ENOMEM;
			goto err_destroy;
		}
		spin_lock_irqsave(&qi->recv_lock, flags);
		ret = ib_mad_post_recv_locked(qi, mp);
		spin_unlock_irqrestore(&qi->recv_lock, flags);
		if (ret) {
			kfree(mp);
			goto err_destroy;
		}
	}
	return 0;

err_destroy:
	/* never out of RESET..RTS: no completion comes for the buffers */
	ib_destroy_qp(qi->qp);
	qi->qp = NULL;
	ib_mad_qp_free_recvs(qi);
	return ret;
}

static void ib_mad_qp_free_recvs(struct ib_mad_qp_info *qi)
{
	struct ib_device *device = qi->port->device;
	struct ib_mad_private *mp, *tmp;

	list_for_each_entry_safe(mp, tmp, &qi->recv_list, list) {
		list_del(&mp->list);
		ib_dma_unmap_single(device, mp->mapping, IB_MAD_RECV_BYTES,
				    DMA_FROM_DEVICE);
		kfree(mp);
	}
}

/* ------------------------------------------------------------------ */
/* QP1 redirection (IBA 13.5.3.3)                                      */
/* ------------------------------------------------------------------ */

/**
 * ib_mad_redirect_cpi_offset - where a class's MADs carry ClassPortInfo
 * @mgmt_class: the class
 *
 * The data offset of the class: byte 64 for the classes whose header has
 * a 40-byte class part (PMA, BM, CC) besides those of
 * ib_get_mad_data_offset().
 *
 * Return: the offset in bytes.
 */
int ib_mad_redirect_cpi_offset(u8 mgmt_class)
{
	if (mgmt_class == IB_MGMT_CLASS_PERF_MGMT ||
	    mgmt_class == IB_MGMT_CLASS_BM ||
	    mgmt_class == IB_MGMT_CLASS_CONG_MGMT)
		return IB_MGMT_DEVICE_HDR;
	return ib_get_mad_data_offset(mgmt_class);
}
EXPORT_SYMBOL_GPL(ib_mad_redirect_cpi_offset);

/**
 * ib_mad_build_redirect - the answer to a request of a redirected class
 * @in: the request
 * @cpi: the ClassPortInfo that names the redirect QP
 * @out: the answer: the request's header with the response method
 *	(GetResp for Get and Set), status 0x0002 and @cpi as the data
 *
 * Return: true, or false for a MAD that gets no such answer: a response,
 * or a Send or Trap (methods without a response that could carry it).
 */
bool ib_mad_build_redirect(const struct ib_mad *in,
			   const struct ib_class_port_info *cpi,
			   struct ib_mad *out)
{
	u8 method = in->mad_hdr.method;

	if (ib_response_mad(&in->mad_hdr) || method == IB_MGMT_METHOD_SEND ||
	    method == IB_MGMT_METHOD_TRAP)
		return false;
	memset(out, 0, sizeof(*out));
	out->mad_hdr = in->mad_hdr;
	out->mad_hdr.method = method == IB_MGMT_METHOD_SET ?
			      IB_MGMT_METHOD_GET_RESP :
			      method | IB_MGMT_METHOD_RESP;
	out->mad_hdr.status = cpu_to_be16(IB_MGMT_MAD_STATUS_REDIRECT_REQD);
	memcpy((u8 *)out + ib_mad_redirect_cpi_offset(in->mad_hdr.mgmt_class),
	       cpi, sizeof(*cpi));
	return true;
}
EXPORT_SYMBOL_GPL(ib_mad_build_redirect);

/* The end of a reply sent from a redirect QP. */
static void ib_mad_redirect_reply_sent(struct ib_mad_agent *agent,
				       struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/*
 * The class's own ClassPortInfo, as the device's process_mad answers a
 * Get of it (versions, capabilities, response time, trap fields), with
 * the redirect fields naming @r's QP.  RedirectLID is filled in per
 * answer.
 */
static void ib_mad_redirect_make_cpi(struct ib_mad_port *port,
				     struct ib_mad_redirect *r)
{
	struct ib_class_port_info *cpi = &r->cpi;
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp = port->qp_info[IB_MAD_QP1].qp,
		.src_qp = 1,
		.port_num = port->port_num,
	};
	int off = ib_mad_redirect_cpi_offset(r->mgmt_class);
	struct ib_mad *in;
	int ret;

	memset(cpi, 0, sizeof(*cpi));
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	in = kzalloc(2 * sizeof(*in), GFP_KERNEL);
	if (in) {
		in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
		in->mad_hdr.mgmt_class = r->mgmt_class;
		in->mad_hdr.class_version =
			r->mgmt_class == IB_MGMT_CLASS_SUBN_ADM ? 2 : 1;
		in->mad_hdr.method = IB_MGMT_METHOD_GET;
		in->mad_hdr.attr_id = IB_MGMT_CLASSPORTINFO_ATTR_ID;
		ret = ib_mad_process(port, &wc, NULL, in, in + 1);
		if ((ret & IB_MAD_RESULT_SUCCESS) &&
		    (ret & IB_MAD_RESULT_REPLY) && !in[1].mad_hdr.status &&
		    in[1].mad_hdr.method == IB_MGMT_METHOD_GET_RESP)
			memcpy(cpi, (u8 *)(in + 1) + off, sizeof(*cpi));
		kfree(in);
	}
	memset(cpi->redirect_gid, 0, sizeof(cpi->redirect_gid));
	cpi->redirect_tcslfl = 0;	/* SL 0 */
	cpi->redirect_lid = 0;
	cpi->redirect_pkey = cpu_to_be16(IB_DEFAULT_PKEY_FULL);
	cpi->redirect_qp = cpu_to_be32(r->qp_info.qp->qp_num & 0xffffff);
	cpi->redirect_qkey = cpu_to_be32(IB_MAD_REDIRECT_QKEY);
}

/*
 * Stop and free a redirect: QP1 answers the class itself again, the
 * redirect QP's receives end, its replies on the wire complete, then the
 * QP, CQ and buffers go.  Caller holds port->redirect_mutex.
 */
static void ib_mad_redirect_destroy(struct ib_mad_redirect *r)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_mad_qp_info *qi = &r->qp_info;
	struct ib_mad_port *port = qi->port;

	lockdep_assert_held(&port->redirect_mutex);
	spin_lock_irq(&port->reg_lock);
	if (port->redirect[r->mgmt_class] == r)
		port->redirect[r->mgmt_class] = NULL;
	qi->stopping = true;
	spin_unlock_irq(&port->reg_lock);
	wait_event(port->idle, !READ_ONCE(qi->busy));

	if (qi->reply_agent)
		ib_unregister_mad_agent(qi->reply_agent);
	if (qi->qp) {
		ib_modify_qp(qi->qp, &attr, IB_QP_STATE);
		ib_destroy_qp(qi->qp);
	}
	ib_free_cq(qi->cq);
	ib_mad_qp_free_recvs(qi);
	kfree(r);
}

static bool ib_mad_redirect_class_ok(u8 mgmt_class)
{
	return mgmt_class && mgmt_class < IB_MAD_MAX_CLASS &&
	       mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED;
}

/* The port of a redirect call, or NULL; with its redirect_mutex held. */
static struct ib_mad_port *ib_mad_redirect_lock(struct ib_device *device,
						u32 port_num)
{
	struct ib_mad_port *port = ib_mad_port_get(device, port_num);

	if (!port || !port->qp_info[IB_MAD_QP1].qp)
		return NULL;
	mutex_lock(&port->redirect_mutex);
	if (port->redirect_closed) {
		mutex_unlock(&port->redirect_mutex);
		return NULL;
	}
	return port;
}

/**
 * ib_mad_redirect_class - move a GSI class of a port off QP1
 * @device: the device
 * @port_num: the port
 * @mgmt_class: a GSI management class (not 0x01 or 0x81)
 *
 * Creates a UD QP for the class (with its own CQ and receive buffers, and
 * Q_Key IB_MAD_REDIRECT_QKEY) and redirects the class there (IBA
 * 13.5.3.3): from now on every request of @mgmt_class that arrives on
 * QP1 of the port, except Send and Trap, is answered by the MAD layer with
 * the response method, status 0x0002 (redirect) and a ClassPortInfo whose
 * RedirectLID is the port's LID, RedirectQP the new QP, RedirectQ_Key
 * IB_MAD_REDIRECT_QKEY, RedirectP_Key 0xFFFF and RedirectSL 0; its other
 * fields are those of the class's own ClassPortInfo if the device's
 * process_mad answers one, else zero.
 *
 * MADs of @mgmt_class arriving on the new QP are handled as on QP1: the
 * device's process_mad first (its replies and the "unsupported" answers
 * are sent from the new QP to the requester's LID and QP, with the Q_Key
 * of the QP, which is the requester's), then the agents registered on QP1
 * for the class (their answers leave from QP1).  MADs of other classes
 * arriving on it are dropped and counted (ib_mad_query_redirect()).
 *
 * The redirect lasts until ib_mad_unredirect_class() or the removal of
 * the device.  The caller must be a client of @device whose remove
 * callback has not returned.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for a class that cannot be redirected; -ENODEV for
 * a port without a MAD layer (or no QP1); -EBUSY if the class is already
 * redirected; -ENOMEM or the driver's error creating the QP.
 */
int ib_mad_redirect_class(struct ib_device *device, u32 port_num,
			  u8 mgmt_class)
{
	struct ib_mad_agent *agent;
	struct ib_mad_redirect *r;
	struct ib_mad_port *port;
	int ret;

	if (!ib_mad_redirect_class_ok(mgmt_class))
		return -EINVAL;
	port = ib_mad_redirect_lock(device, port_num);
	if (!port)
		return -ENODEV;
	if (port->redirect[mgmt_class]) {
		ret = -EBUSY;
		goto out;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		ret = -ENOMEM;
		goto out;
	}
	r->mgmt_class = mgmt_class;
	ib_mad_qp_info_init(port, &r->qp_info);
	r->qp_info.redirect = r;
	r->qp_info.cq = ib_alloc_cq(device, r,
				    IB_MAD_QP_SEND_SIZE + IB_MAD_QP_RECV_SIZE,
				    0, IB_POLL_UNBOUND_WORKQUEUE);
	if (IS_ERR(r->qp_info.cq)) {
		ret = PTR_ERR(r->qp_info.cq);
		goto err_free;
	}
	ret = ib_mad_qp_open(port, &r->qp_info, IB_QPT_UD,
			     IB_MAD_REDIRECT_QKEY);
	if (ret)
		goto err_destroy;
	agent = ib_mad_agent_create(&r->qp_info, NULL, 0,
				    ib_mad_redirect_reply_sent, NULL, NULL, 0);
	if (IS_ERR(agent)) {
		ret = PTR_ERR(agent);
		goto err_destroy;
	}
	r->qp_info.reply_agent = agent;
	ib_mad_redirect_make_cpi(port, r);

	spin_lock_irq(&port->reg_lock);
	port->redirect[mgmt_class] = r;
	spin_unlock_irq(&port->reg_lock);
	ret = 0;
	goto out;

err_free:
	kfree(r);
	goto out;
err_destroy:
	/* frees r */
	ib_mad_redirect_destroy(r);
out:
	mutex_unlock(&port->redirect_mutex);
	return ret;
}
EXPORT_SYMBOL(ib_mad_redirect_class);

/**
 * ib_mad_unredirect_class - end the redirect of a class
 * @device: the device
 * @port_num: the port
 * @mgmt_class: the class given to ib_mad_redirect_class()
 *
 * QP1 handles the class again.  Waits until the redirect QP's MADs being
 * processed are done and its replies have left, then destroys it.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for a class that cannot be redirected; -ENODEV for
 * a port without a MAD layer; -ENOENT if the class is not redirected.
 */
int ib_mad_unredirect_class(struct ib_device *device, u32 port_num,
			    u8 mgmt_class)
{
	struct ib_mad_port *port;
	int ret = -ENOENT;

	if (!ib_mad_redirect_class_ok(mgmt_class))
		return -EINVAL;
	port = ib_mad_redirect_lock(device, port_num);
	if (!port)
		return -ENODEV;
	if (port->redirect[mgmt_class]) {
		ib_mad_redirect_destroy(port->redirect[mgmt_class]);
		ret = 0;
	}
	mutex_unlock(&port->redirect_mutex);
	return ret;
}
EXPORT_SYMBOL(ib_mad_unredirect_class);

/**
 * ib_mad_query_redirect - the state of a redirected class
 * @device: the device
 * @port_num: the port
 * @mgmt_class: the class
 * @attr: filled in: the redirect QP, its Q_Key and counters
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for a class that cannot be redirected; -ENODEV for
 * a port without a MAD layer; -ENOENT if the class is not redirected.
 */
int ib_mad_query_redirect(struct ib_device *device, u32 port_num,
			  u8 mgmt_class, struct ib_mad_redirect_attr *attr)
{
	struct ib_mad_redirect *r;
	struct ib_mad_port *port;
	int ret = -ENOENT;

	if (!ib_mad_redirect_class_ok(mgmt_class))
		return -EINVAL;
	port = ib_mad_redirect_lock(device, port_num);
	if (!port)
		return -ENODEV;
	r = port->redirect[mgmt_class];
	if (r) {
		attr->qp_num = r->qp_info.qp->qp_num;
		attr->qkey = IB_MAD_REDIRECT_QKEY;
		attr->redirected = atomic_read(&r->redirected);
		attr->received = atomic_read(&r->received);
		attr->dropped = atomic_read(&r->dropped);
		ret = 0;
	}
	mutex_unlock(&port->redirect_mutex);
	return ret;
}
EXPORT_SYMBOL(ib_mad_query_redirect);

static void ib_mad_port_close(struct ib_mad_port *port)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int i;

	/* the redirect QPs first: their MADs may go to QP1's agents */
	mutex_lock(&port->redirect_mutex);
	port->redirect_closed = true;
	for (i = 0; i < IB_MAD_MAX_CLASS; i++)
		if (port->redirect[i])
			ib_mad_redirect_destroy(port->redirect[i]);
	mutex_unlock(&port->redirect_mutex);

	/* no more receive processing, and wait for what is in progress */
	spin_lock_irq(&port->reg_lock);
	port->stopping = true;
	spin_unlock_irq(&port->reg_lock);
	wait_event(port->idle, !READ_ONCE(port->busy));

	ib_mad_reply_agents_destroy(port);

	for (i = 0; i < IB_MAD_QPS; i++) {
		if (!port->qp_info[i].qp)
			continue;
		ib_modify_qp(port->qp_info[i].qp, &attr, IB_QP_STATE);
		ib_destroy_qp(port->qp_info[i].qp);
		port->qp_info[i].qp = NULL;
	}
	ib_free_cq(port->cq);
	for (i = 0; i < IB_MAD_QPS; i++) {
		WARN_ON(!list_empty(&port->qp_info[i].overflow_list));
		ib_mad_qp_free_recvs(&port->qp_info[i]);
	}
	WARN_ON(!list_empty(&port->class_list));
	ib_dealloc_pd(port->pd);
	port->device = NULL;
}

static int ib_mad_port_open(struct ib_device *device, struct ib_mad_port *port,
			    u32 port_num)
{
	const struct ib_port_immutable *imm =
		ib_port_immutable_read(device, port_num);
	int ret, i;

	port->port_num = port_num;
	spin_lock_init(&port->reg_lock);
	INIT_LIST_HEAD(&port->class_list);
	init_waitqueue_head(&port->idle);
	mutex_init(&port->redirect_mutex);
	for (i = 0; i < IB_MAD_QPS; i++)
		ib_mad_qp_info_init(port, &port->qp_info[i]);

	port->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(port->pd))
		return PTR_ERR(port->pd);
	port->cq = ib_alloc_cq(device, port,
			       2 * (IB_MAD_QP_SEND_SIZE + IB_MAD_QP_RECV_SIZE),
			       0, IB_POLL_UNBOUND_WORKQUEUE);
	if (IS_ERR(port->cq)) {
		ret = PTR_ERR(port->cq);
		goto err_pd;
	}
	for (i = 0; i < IB_MAD_QPS; i++)
		port->qp_info[i].cq = port->cq;
	port->device = device;
	if (imm->core_cap_flags & RDMA_CORE_CAP_IB_SMI) {
		ret = ib_mad_qp_open(port, &port->qp_info[IB_MAD_QP0],
				     IB_QPT_SMI, 0);
		if (ret)
			goto err_close;
	}
	ret = ib_mad_qp_open(port, &port->qp_info[IB_MAD_QP1], IB_QPT_GSI,
			     IB_QP1_QKEY);
	if (ret)
		goto err_close;
	return 0;

err_close:
	/* reply agents do not exist yet: nothing else can run on the QPs */
	ib_mad_port_close(port);
	return ret;
err_pd:
	ib_dealloc_pd(port->pd);
	return ret;
}

static bool ib_mad_device_usable(struct ib_device *device)
{
	const struct ib_device_ops *ops = device->ops;
	u32 p;

	if (!ops->create_qp || !ops->modify_qp || !ops->destroy_qp ||
	    !ops->post_send || !ops->post_recv || !ops->poll_cq ||
	    !ops->create_cq || !ops->alloc_pd || !ops->create_ah)
		return false;
	for (p = rdma_start_port(device); p <= rdma_end_port(device); p++)
		if (ib_port_immutable_read(device, p)->core_cap_flags &
		    RDMA_CORE_CAP_IB_MAD)
			return true;
	return false;
}

static int ib_mad_add_device(struct ib_device *device)
{
	struct ib_mad_device *mdev;
	u32 p, opened = 0;
	int ret;

	if (!ib_mad_device_usable(device))
		return -EOPNOTSUPP;
	mdev = kzalloc(struct_size(mdev, port, device->phys_port_cnt),
		       GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mdev->num_ports = device->phys_port_cnt;
	/* set first: the reply agents look the ports up */
	ib_set_client_data(device, &mad_client, mdev);

	for (p = rdma_start_port(device); p <= rdma_end_port(device); p++) {
		struct ib_mad_port *port = &mdev->port[p - 1];

		if (!(ib_port_immutable_read(device, p)->core_cap_flags &
		      RDMA_CORE_CAP_IB_MAD))
			continue;
		ret = ib_mad_port_open(device, port, p);
		if (!ret) {
			ret = ib_mad_reply_agents_create(port);
			if (ret)
				ib_mad_port_close(port);
		}
		if (ret) {
			dev_warn(&device->dev,
				 "MAD: port %u has no MAD QPs: %d\n", p, ret);
			continue;
		}
		opened++;
	}
	if (!opened) {
		ib_set_client_data(device, &mad_client, NULL);
		kfree(mdev);
		return -EOPNOTSUPP;
	}
	return 0;
}

static void ib_mad_remove_device(struct ib_device *device, void *client_data)
{
	struct ib_mad_device *mdev = client_data;
	u32 p;

	if (!mdev)
		return;
	for (p = 0; p < mdev->num_ports; p++)
		if (mdev->port[p].device)
			ib_mad_port_close(&mdev->port[p]);
	kfree(mdev);
}

static struct ib_client mad_client = {
	.name = "mad",
	.add = ib_mad_add_device,
	.remove = ib_mad_remove_device,
};

int ib_mad_init(void)
{
	int ret;

	ib_mad_wq = alloc_workqueue("ib_mad", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!ib_mad_wq)
		return -ENOMEM;
	ret = ib_register_client(&mad_client);
	if (ret)
		destroy_workqueue(ib_mad_wq);
	return ret;
}

void ib_mad_cleanup(void)
{
	ib_unregister_client(&mad_client);
	destroy_workqueue(ib_mad_wq);
	WARN_ON(!xa_empty(&ib_mad_agents));
}
