// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Commands on QPs and SRQs.
 *
 * Their event handlers queue async events on the context's async event
 * file; DESTROY_QP and DESTROY_SRQ report how many were read.
 *
 * The post commands serve as doorbells only: ring-based providers (rxe)
 * write work requests into the mmapped queue and then call POST_SEND with
 * no work request, which makes the driver process the send queue.  Work
 * requests carried in the command itself are not supported (-EINVAL).
 *
 * The QP and SRQ objects of the verbs ioctl are here too: QP/CREATE and
 * SRQ/CREATE beside CREATE_QP and CREATE_SRQ (on the same creation
 * functions), QP/DESTROY and SRQ/DESTROY beside DESTROY_QP and
 * DESTROY_SRQ.
 *
 * Locking: no lock of its own.  A command holds the objects it uses
 * (handles.c's use counts) while it runs; the driver serialises its queues.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/rdma_netlink.h>

#include "ioctl.h"

static void uverbs_uevent_handler(struct ib_event *event, void *context)
{
	ib_uverbs_object_event(context, event->event);
}

/*
 * The end of a QP's or SRQ's destroy, whose result was @ret: once the
 * object is gone, its queued async events are forgotten.
 */
static int uverbs_uevent_destroyed(struct ib_uobject *uobj, int ret)
{
	struct ib_uevent_object *uevent =
		container_of(uobj, struct ib_uevent_object, uobject);

	if (!ret)
		ib_uverbs_object_forget_events(uevent);
	return ret;
}

static int uverbs_free_qp(struct ib_uobject *uobj,
			  enum uverbs_remove_reason why,
			  struct ib_udata *udata)
{
	return uverbs_uevent_destroyed(uobj,
				       ib_destroy_qp_user(uobj->object, udata));
}

const struct uverbs_obj_type uverbs_type_qp = {
	.name = "QP",
	.obj_size = sizeof(struct ib_uevent_object),
	.destroy = uverbs_free_qp,
};

static int uverbs_free_srq(struct ib_uobject *uobj,
			   enum uverbs_remove_reason why,
			   struct ib_udata *udata)
{
	/* -EBUSY while a QP uses it */
	return uverbs_uevent_destroyed(uobj,
				       ib_destroy_srq_user(uobj->object, udata));
}

const struct uverbs_obj_type uverbs_type_srq = {
	.name = "SRQ",
	.obj_size = sizeof(struct ib_uevent_object),
	.destroy = uverbs_free_srq,
};

/**
 * uverbs_destroy_uevent - destroy a QP or SRQ and count its async events
 * @ufile: the file
 * @type: &uverbs_type_qp or &uverbs_type_srq
 * @id: the object's handle
 * @udata: the command's driver data
 * @events_reported: on success, the async events of the object read
 *
 * Shared by the DESTROY_QP and DESTROY_SRQ commands and methods.
 *
 * Return: 0 or a negative errno.
 */
static int uverbs_destroy_uevent(struct ib_uverbs_file *ufile,
				 const struct uverbs_obj_type *type, u32 id,
				 struct ib_udata *udata, u32 *events_reported)
{
	struct ib_uevent_object *uevent;
	struct ib_uobject *uobj;
	int ret;

	uobj = uobj_get_destroy(type, ufile, id);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = uobj_destroy_locked(uobj, udata);
	if (!ret) {
		uevent = container_of(uobj, struct ib_uevent_object, uobject);
		*events_reported = uevent->events_reported;
	}
	uobj_put_destroy(uobj);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

/*
 * Start a new QP or SRQ object: its handle is reserved, its events list
 * empty; the caller creates the hardware object, then commits or aborts.
 */
static struct ib_uevent_object *
uverbs_uevent_alloc_begin(const struct uverbs_obj_type *type,
			  struct ib_uverbs_file *ufile, u64 user_handle)
{
	struct ib_uevent_object *uevent;
	struct ib_uobject *uobj;

	uobj = uobj_alloc_begin(type, ufile);
	if (IS_ERR(uobj))
		return ERR_CAST(uobj);
	uevent = container_of(uobj, struct ib_uevent_object, uobject);
	uobj->user_handle = user_handle;
	INIT_LIST_HEAD(&uevent->event_list);
	return uevent;
}

/**
 * struct uverbs_qp_params - a QP to create (CREATE_QP, EX_CREATE_QP,
 *	QP/CREATE)
 * @user_handle: the user's cookie, echoed in events
 * @pd: its protection domain
 * @send_cq: its send CQ
 * @recv_cq: its receive CQ
 * @srq: its SRQ, or NULL
 * @cap: the sizes wanted; updated to those allocated
 * @qp_type: enum ib_qp_type
 * @create_flags: IB_QP_CREATE_* for the driver
 * @sq_sig_all: every send work request completes with a CQE
 */
struct uverbs_qp_params {
	u64				user_handle;
	struct ib_pd			*pd;
	struct ib_cq			*send_cq;
	struct ib_cq			*recv_cq;
	struct ib_srq			*srq;
	struct ib_qp_cap		cap;
	enum ib_qp_type			qp_type;
	u32				create_flags;
	bool				sq_sig_all;
};

/**
 * uverbs_qp_create - create a QP for a user, not yet visible
 * @ufile: the file
 * @params: what the QP is made of; @params->cap is updated to what was
 *	allocated.  The PD, CQs and SRQ are the caller's, held for reading
 *	during the call.
 * @udata: the driver's data of the command or method
 *
 * Shared by CREATE_QP, EX_CREATE_QP and the QP/CREATE method.  The QP's
 * async events go to the file's async event file.  The caller writes its
 * response, then uobj_alloc_commit() or uobj_alloc_destroy().
 *
 * Return: the new object, with @object the struct ib_qp, or an ERR_PTR().
 */
static struct ib_uobject *uverbs_qp_create(struct ib_uverbs_file *ufile,
					   struct uverbs_qp_params *params,
					   struct ib_udata *udata)
{
	struct ib_qp_init_attr attr = {};
	struct ib_uevent_object *uevent;
	struct ib_uobject *uobj;
	struct ib_qp *qp;

	uevent = uverbs_uevent_alloc_begin(&uverbs_type_qp, ufile,
					   params->user_handle);
	if (IS_ERR(uevent))
		return ERR_CAST(uevent);
	uobj = &uevent->uobject;

	attr.event_handler = uverbs_uevent_handler;
	attr.qp_context = uevent;
	attr.send_cq = params->send_cq;
	attr.recv_cq = params->recv_cq;
	attr.srq = params->srq;
	attr.cap = params->cap;
	attr.sq_sig_type = params->sq_sig_all ? IB_SIGNAL_ALL_WR :
						IB_SIGNAL_REQ_WR;
	attr.qp_type = params->qp_type;
	attr.create_flags = params->create_flags;

	qp = ib_create_qp_user(params->pd, uobj, &attr, udata);
	if (IS_ERR(qp)) {
		uobj_alloc_abort(uobj);
		return ERR_CAST(qp);
	}
	uobj->object = qp;
	params->cap = attr.cap;
	return uobj;
}

/*
 * The write() front end of CREATE_QP and EX_CREATE_QP; @resp's head is
 * the legacy response.
 */
static int uverbs_create_qp(struct uverbs_cmd_ctx *ctx,
			    const struct ib_uverbs_ex_create_qp *cmd,
			    struct ib_uverbs_ex_create_qp_resp *resp,
			    size_t resp_len)
{
	struct ib_uobject *pd_uobj, *scq_uobj, *rcq_uobj, *srq_uobj = NULL;
	struct uverbs_qp_params params = {
		.user_handle = cmd->user_handle,
		.cap = {
			.max_send_wr = cmd->max_send_wr,
			.max_recv_wr = cmd->max_recv_wr,
			.max_send_sge = cmd->max_send_sge,
			.max_recv_sge = cmd->max_recv_sge,
			.max_inline_data = cmd->max_inline_data,
		},
		.qp_type = cmd->qp_type,
		.create_flags = cmd->create_flags,
		.sq_sig_all = cmd->sq_sig_all,
	};
	struct ib_uobject *uobj;
	struct ib_qp *qp;
	int ret;

	/* upstream answers -EINVAL for every bad handle here */
	ret = -EINVAL;
	pd_uobj = uobj_get_read(&uverbs_type_pd, ctx->ufile, cmd->pd_handle);
	if (IS_ERR(pd_uobj))
		return ret;
	rcq_uobj = uobj_get_read(&uverbs_type_cq, ctx->ufile,
				 cmd->recv_cq_handle);
	if (IS_ERR(rcq_uobj))
		goto out_pd;
	scq_uobj = uobj_get_read(&uverbs_type_cq, ctx->ufile,
				 cmd->send_cq_handle);
	if (IS_ERR(scq_uobj))
		goto out_rcq;
	if (cmd->is_srq) {
		srq_uobj = uobj_get_read(&uverbs_type_srq, ctx->ufile,
					 cmd->srq_handle);
		if (IS_ERR(srq_uobj)) {
			srq_uobj = NULL;
			goto out_scq;
		}
		params.srq = srq_uobj->object;
	}
	params.pd = pd_uobj->object;
	params.send_cq = scq_uobj->object;
	params.recv_cq = rcq_uobj->object;

	uobj = uverbs_qp_create(ctx->ufile, &params, &ctx->driver_udata);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_srq;
	}
	qp = uobj->object;

	resp->base.qp_handle = uobj->id;
	resp->base.qpn = qp->qp_num;
	resp->base.max_send_wr = params.cap.max_send_wr;
	resp->base.max_recv_wr = params.cap.max_recv_wr;
	resp->base.max_send_sge = params.cap.max_send_sge;
	resp->base.max_recv_sge = params.cap.max_recv_sge;
	resp->base.max_inline_data = params.cap.max_inline_data;
	resp->response_length = min(ctx->outlen, resp_len);
	ret = uverbs_response(ctx, resp, resp_len);
	if (ret)
		uobj_alloc_destroy(uobj);
	else
		uobj_alloc_commit(uobj);

out_srq:
	if (srq_uobj)
		uobj_put_read(srq_uobj);
out_scq:
	uobj_put_read(scq_uobj);
out_rcq:
	uobj_put_read(rcq_uobj);
out_pd:
	uobj_put_read(pd_uobj);
	return ret;
}

/**
 * uverbs_cmd_create_qp - CREATE_QP
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for bad handles.
 */
int uverbs_cmd_create_qp(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp ex = {};
	struct ib_uverbs_create_qp cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ex.user_handle = cmd.user_handle;
	ex.pd_handle = cmd.pd_handle;
	ex.send_cq_handle = cmd.send_cq_handle;
	ex.recv_cq_handle = cmd.recv_cq_handle;
	ex.srq_handle = cmd.srq_handle;
	ex.max_send_wr = cmd.max_send_wr;
	ex.max_recv_wr = cmd.max_recv_wr;
	ex.max_send_sge = cmd.max_send_sge;
	ex.max_recv_sge = cmd.max_recv_sge;
	ex.max_inline_data = cmd.max_inline_data;
	ex.sq_sig_all = cmd.sq_sig_all;
	ex.qp_type = cmd.qp_type;
	ex.is_srq = cmd.is_srq;
	return uverbs_create_qp(ctx, &ex, &resp, sizeof(resp.base));
}

/**
 * uverbs_cmd_ex_create_qp - EX_CREATE_QP
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for unknown comp_mask bits,
 * -EOPNOTSUPP for an indirection table (no WQs here) or create flags.
 */
int uverbs_cmd_ex_create_qp(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask & ~IB_UVERBS_CREATE_QP_SUP_COMP_MASK)
		return -EINVAL;
	if (cmd.comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE)
		return -EOPNOTSUPP;
	return uverbs_create_qp(ctx, &cmd, &resp, sizeof(resp));
}

#define UVERBS_QP_CREATE_FLAGS					\
	(IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |		\
	 IB_UVERBS_QP_CREATE_SCATTER_FCS |			\
	 IB_UVERBS_QP_CREATE_CVLAN_STRIPPING |			\
	 IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING |		\
	 IB_UVERBS_QP_CREATE_SQ_SIG_ALL)

/*
 * The creation flags a QP type may have, as upstream: besides SQ_SIG_ALL
 * only UD and raw packet QPs have any, the Ethernet ones only the latter.
 * The driver refuses what it cannot do.
 */
static int uverbs_qp_check_flags(u64 qp_type, u64 flags)
{
	flags &= ~(u64)IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	if (!flags || qp_type == IB_UVERBS_QPT_DRIVER)
		return 0;
	if (qp_type != IB_UVERBS_QPT_RAW_PACKET && qp_type != IB_UVERBS_QPT_UD)
		return -EINVAL;
	if (flags & (IB_UVERBS_QP_CREATE_SCATTER_FCS |
		     IB_UVERBS_QP_CREATE_CVLAN_STRIPPING) &&
	    qp_type != IB_UVERBS_QPT_RAW_PACKET)
		return -EINVAL;
	return 0;
}

/*
 * The PD and CQs of a new QP, by type as upstream.  There are no XRC
 * domains or indirection tables here, so a handle of either names
 * nothing (-ENOENT) and an XRC target QP cannot be made.
 */
static int uverbs_ioctl_qp_objects(struct uverbs_ioctl_call *call,
				   u64 qp_type,
				   struct uverbs_qp_params *params)
{
	switch (qp_type) {
	case IB_UVERBS_QPT_XRC_TGT:
		if (ioa_has(call, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE) ||
		    ioa_has(call, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE) ||
		    ioa_has(call, UVERBS_ATTR_CREATE_QP_PD_HANDLE) ||
		    ioa_has(call, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE))
			return -EINVAL;
		return -ENOENT;
	case IB_UVERBS_QPT_RAW_PACKET:
		if (!capable(CAP_NET_RAW))
			return -EPERM;
		fallthrough;
	case IB_UVERBS_QPT_RC:
	case IB_UVERBS_QPT_UC:
	case IB_UVERBS_QPT_UD:
	case IB_UVERBS_QPT_XRC_INI:
	case IB_UVERBS_QPT_DRIVER:
		if (ioa_has(call, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE) ||
		    (ioa_has(call, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE) &&
		     qp_type == IB_UVERBS_QPT_XRC_INI))
			return -EINVAL;
		params->pd = ioa_get_obj(call, UVERBS_ATTR_CREATE_QP_PD_HANDLE,
					 &uverbs_type_pd);
		if (IS_ERR(params->pd))
			return PTR_ERR(params->pd);
		if (ioa_has(call, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE))
			return -ENOENT;
		params->send_cq = ioa_get_obj(call,
					      UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE,
					      &uverbs_type_cq);
		if (IS_ERR(params->send_cq))
			return PTR_ERR(params->send_cq);
		if (qp_type == IB_UVERBS_QPT_XRC_INI)
			return 0;
		params->recv_cq = ioa_get_obj(call,
					      UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE,
					      &uverbs_type_cq);
		if (IS_ERR(params->recv_cq))
			return PTR_ERR(params->recv_cq);
		return 0;
	default:
		return -EINVAL;
	}
}

static int uverbs_ioctl_qp_create(struct uverbs_ioctl_call *call)
{
	struct uverbs_qp_params params = {};
	struct ib_uverbs_qp_cap cap;
	struct ib_uobject *uobj;
	u64 qp_type, flags;
	u32 source_qpn;
	int ret;

	ret = ioa_check_event_fd(call, UVERBS_ATTR_CREATE_QP_EVENT_FD);
	if (ret)
		return ret;
	ret = ioa_copy_from(call, UVERBS_ATTR_CREATE_QP_CAP, &cap, sizeof(cap));
	if (!ret)
		ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_QP_USER_HANDLE,
				     &params.user_handle,
				     sizeof(params.user_handle));
	if (!ret)
		ret = ioa_get_const(call, UVERBS_ATTR_CREATE_QP_TYPE, U64_MAX,
				    &qp_type);
	if (ret)
		return ret;

	ret = uverbs_ioctl_qp_objects(call, qp_type, &params);
	if (ret)
		return ret;
	ret = ioa_get_flags(call, UVERBS_ATTR_CREATE_QP_FLAGS,
			    UVERBS_QP_CREATE_FLAGS, &flags);
	if (ret)
		return ret;
	ret = uverbs_qp_check_flags(qp_type, flags);
	if (ret)
		return ret;
	/* IB_QP_CREATE_SOURCE_QPN: no driver here can do it */
	if (!ioa_get_inline(call, UVERBS_ATTR_CREATE_QP_SOURCE_QPN,
			    &source_qpn, sizeof(source_qpn)))
		return -EOPNOTSUPP;

	if (ioa_has(call, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE)) {
		params.srq = ioa_get_obj(call, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE,
					 &uverbs_type_srq);
		if (IS_ERR(params.srq))
			return PTR_ERR(params.srq);
		/* an XRC SRQ serves XRC targets only (none come here) */
		if (params.srq->srq_type == IB_SRQT_XRC)
			return -EINVAL;
	}

	/* a uverbs flag, not the driver's */
	params.sq_sig_all = flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	params.create_flags = flags & ~(u64)IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	/* the uverbs QP types have the values of enum ib_qp_type */
	params.qp_type = qp_type;
	params.cap.max_send_wr = cap.max_send_wr;
	params.cap.max_recv_wr = cap.max_recv_wr;
	params.cap.max_send_sge = cap.max_send_sge;
	params.cap.max_recv_sge = cap.max_recv_sge;
	params.cap.max_inline_data = cap.max_inline_data;

	uobj = uverbs_qp_create(call->ufile, &params, &call->driver_udata);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = ioa_new_uobj(call, UVERBS_ATTR_CREATE_QP_HANDLE, uobj);
	if (ret)
		return ret;

	cap.max_send_wr = params.cap.max_send_wr;
	cap.max_recv_wr = params.cap.max_recv_wr;
	cap.max_send_sge = params.cap.max_send_sge;
	cap.max_recv_sge = params.cap.max_recv_sge;
	cap.max_inline_data = params.cap.max_inline_data;
	ret = ioa_copy_to(call, UVERBS_ATTR_CREATE_QP_RESP_CAP, &cap,
			  sizeof(cap), true);
	if (ret)
		return ret;
	return ioa_copy_to(call, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
			   &((struct ib_qp *)uobj->object)->qp_num,
			   sizeof(u32), false);
}

static const struct uverbs_ioa_spec uverbs_qp_create_specs[] = {
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_HANDLE, IOA_MANDATORY),
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_PD_HANDLE, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE, IOA_OPTIONAL),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_QP_USER_HANDLE, u64, IOA_MANDATORY),
	IOA_STRUCT_IN(UVERBS_ATTR_CREATE_QP_CAP, struct ib_uverbs_qp_cap,
		      max_inline_data, IOA_MANDATORY),
	IOA_CONST_IN(UVERBS_ATTR_CREATE_QP_TYPE, IOA_MANDATORY),
	IOA_FLAGS_IN(UVERBS_ATTR_CREATE_QP_FLAGS, IOA_OPTIONAL),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_QP_SOURCE_QPN, u32, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_QP_EVENT_FD, IOA_OPTIONAL),
	IOA_STRUCT_OUT(UVERBS_ATTR_CREATE_QP_RESP_CAP, struct ib_uverbs_qp_cap,
		       max_inline_data, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, u32, IOA_MANDATORY),
	IOA_UHW_IN,
	IOA_UHW_OUT,
};

static void uverbs_dest_to_ah_attr(struct ib_device *ib_dev,
				   struct rdma_ah_attr *ah,
				   const struct ib_uverbs_qp_dest *dest)
{
	ah->type = RDMA_AH_ATTR_TYPE_IB;
	if (rdma_is_port_valid(ib_dev, dest->port_num) &&
	    rdma_port_get_link_layer(ib_dev, dest->port_num) ==
	    IB_LINK_LAYER_ETHERNET)
		ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	ah->dlid = dest->dlid;
	ah->sl = dest->sl;
	ah->src_path_bits = dest->src_path_bits;
	ah->static_rate = dest->static_rate;
	ah->port_num = dest->port_num;
	if (dest->is_global) {
		ah->ah_flags = IB_AH_GRH;
		memcpy(ah->grh.dgid.raw, dest->dgid, sizeof(ah->grh.dgid));
		ah->grh.flow_label = dest->flow_label;
		ah->grh.sgid_index = dest->sgid_index;
		ah->grh.hop_limit = dest->hop_limit;
		ah->grh.traffic_class = dest->traffic_class;
	}
}

static void uverbs_ah_attr_to_dest(struct ib_uverbs_qp_dest *dest,
				   const struct rdma_ah_attr *ah)
{
	dest->dlid = ah->dlid;
	dest->sl = ah->sl;
	dest->src_path_bits = ah->src_path_bits;
	dest->static_rate = ah->static_rate;
	dest->port_num = ah->port_num;
	dest->is_global = !!(ah->ah_flags & IB_AH_GRH);
	if (dest->is_global) {
		memcpy(dest->dgid, ah->grh.dgid.raw, sizeof(dest->dgid));
		dest->flow_label = ah->grh.flow_label;
		dest->sgid_index = ah->grh.sgid_index;
		dest->hop_limit = ah->grh.hop_limit;
		dest->traffic_class = ah->grh.traffic_class;
	}
}

/* MODIFY_QP and EX_MODIFY_QP; @valid_mask: the attr_mask bits allowed */
static int uverbs_modify_qp(struct uverbs_cmd_ctx *ctx,
			    const struct ib_uverbs_ex_modify_qp *cmd,
			    u32 valid_mask)
{
	const struct ib_uverbs_modify_qp *base = &cmd->base;
	struct ib_uobject *uobj;
	struct ib_qp_attr *attr;
	struct ib_qp *qp;
	int ret;

	if (base->attr_mask & ~valid_mask)
		return -EOPNOTSUPP;
	if ((base->attr_mask & IB_QP_STATE && base->qp_state > IB_QPS_ERR) ||
	    (base->attr_mask & IB_QP_CUR_STATE &&
	     base->cur_qp_state > IB_QPS_ERR))
		return -EINVAL;

	uobj = uobj_get_read(&uverbs_type_qp, ctx->ufile, base->qp_handle);
	if (IS_ERR(uobj))
		return -EINVAL;
	qp = uobj->object;

	/* controlled Q_Keys (bit 31) belong to privileged QPs, as the GSI's */
	if (base->attr_mask & IB_QP_QKEY && base->qkey & BIT(31) &&
	    !rdma_nl_get_privileged_qkey()) {
		ret = -EPERM;
		goto out_put;
	}

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr) {
		ret = -ENOMEM;
		goto out_put;
	}
	attr->qp_state = base->qp_state;
	attr->cur_qp_state = base->cur_qp_state;
	attr->path_mtu = base->path_mtu;
	attr->path_mig_state = base->path_mig_state;
	attr->qkey = base->qkey;
	attr->rq_psn = base->rq_psn;
	attr->sq_psn = base->sq_psn;
	attr->dest_qp_num = base->dest_qp_num;
	attr->qp_access_flags = base->qp_access_flags;
	attr->pkey_index = base->pkey_index;
	attr->alt_pkey_index = base->alt_pkey_index;
	attr->en_sqd_async_notify = base->en_sqd_async_notify;
	attr->max_rd_atomic = base->max_rd_atomic;
	attr->max_dest_rd_atomic = base->max_dest_rd_atomic;
	attr->min_rnr_timer = base->min_rnr_timer;
	attr->port_num = base->port_num;
	attr->timeout = base->timeout;
	attr->retry_cnt = base->retry_cnt;
	attr->rnr_retry = base->rnr_retry;
	attr->alt_port_num = base->alt_port_num;
	attr->alt_timeout = base->alt_timeout;
	attr->rate_limit = cmd->rate_limit;
	if (base->attr_mask & IB_QP_AV)
		uverbs_dest_to_ah_attr(qp->device, &attr->ah_attr, &base->dest);
	if (base->attr_mask & IB_QP_ALT_PATH)
		uverbs_dest_to_ah_attr(qp->device, &attr->alt_ah_attr,
				       &base->alt_dest);

	/* the core checks the transition, ports and value ranges */
	ret = ib_modify_qp_user(qp, attr, base->attr_mask,
				&ctx->driver_udata);
	kfree(attr);
out_put:
	uobj_put_read(uobj);
	return ret;
}

/**
 * uverbs_cmd_modify_qp - MODIFY_QP
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP for mask bits beyond
 * IB_QP_DEST_QPN, -EPERM for a controlled Q_Key (bit 31 set) without
 * CAP_NET_RAW while the privileged Q_Key mode is off.
 */
int uverbs_cmd_modify_qp(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_ex_modify_qp cmd = {};
	int ret;

	ret = uverbs_request(ctx, &cmd.base, sizeof(cmd.base));
	if (ret)
		return ret;
	return uverbs_modify_qp(ctx, &cmd, (IB_QP_DEST_QPN << 1) - 1);
}

/**
 * uverbs_cmd_ex_modify_qp - EX_MODIFY_QP
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP for mask bits beyond
 * IB_QP_RATE_LIMIT, -EPERM as for MODIFY_QP.
 */
int uverbs_cmd_ex_modify_qp(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ib_uverbs_ex_modify_qp cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.reserved)
		return -EINVAL;
	ret = uverbs_modify_qp(ctx, &cmd, (IB_QP_RATE_LIMIT << 1) - 1);
	if (ret)
		return ret;
	if (!ctx->outlen)
		return 0;
	resp.response_length = min(ctx->outlen, sizeof(resp));
	return uverbs_response(ctx, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_query_qp - QUERY_QP
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_query_qp(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_qp_init_attr *init_attr;
	struct ib_uverbs_query_qp cmd;
	struct ib_uobject *uobj;
	struct ib_qp_attr *attr;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	init_attr = kzalloc(sizeof(*init_attr), GFP_KERNEL);
	if (!attr || !init_attr) {
		ret = -ENOMEM;
		goto out_free;
	}
	uobj = uobj_get_read(&uverbs_type_qp, ctx->ufile, cmd.qp_handle);
	if (IS_ERR(uobj)) {
		ret = -EINVAL;
		goto out_free;
	}
	ret = ib_query_qp(uobj->object, attr, cmd.attr_mask, init_attr);
	uobj_put_read(uobj);
	if (ret)
		goto out_free;

	uverbs_ah_attr_to_dest(&resp.dest, &attr->ah_attr);
	uverbs_ah_attr_to_dest(&resp.alt_dest, &attr->alt_ah_attr);
	resp.max_send_wr = init_attr->cap.max_send_wr;
	resp.max_recv_wr = init_attr->cap.max_recv_wr;
	resp.max_send_sge = init_attr->cap.max_send_sge;
	resp.max_recv_sge = init_attr->cap.max_recv_sge;
	resp.max_inline_data = init_attr->cap.max_inline_data;
	resp.qkey = attr->qkey;
	resp.rq_psn = attr->rq_psn;
	resp.sq_psn = attr->sq_psn;
	resp.dest_qp_num = attr->dest_qp_num;
	resp.qp_access_flags = attr->qp_access_flags;
	resp.pkey_index = attr->pkey_index;
	resp.alt_pkey_index = attr->alt_pkey_index;
	resp.qp_state = attr->qp_state;
	resp.cur_qp_state = attr->cur_qp_state;
	resp.path_mtu = attr->path_mtu;
	resp.path_mig_state = attr->path_mig_state;
	resp.sq_draining = attr->sq_draining;
	resp.max_rd_atomic = attr->max_rd_atomic;
	resp.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	resp.min_rnr_timer = attr->min_rnr_timer;
	resp.port_num = attr->port_num;
	resp.timeout = attr->timeout;
	resp.retry_cnt = attr->retry_cnt;
	resp.rnr_retry = attr->rnr_retry;
	resp.alt_port_num = attr->alt_port_num;
	resp.alt_timeout = attr->alt_timeout;
	resp.sq_sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	ret = uverbs_response(ctx, &resp, sizeof(resp));
out_free:
	kfree(init_attr);
	kfree(attr);
	return ret;
}

/**
 * uverbs_cmd_destroy_qp - DESTROY_QP, with the async events delivered
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_destroy_qp(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct ib_uverbs_destroy_qp cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uverbs_destroy_uevent(ctx->ufile, &uverbs_type_qp, cmd.qp_handle,
				    &ctx->driver_udata, &resp.events_reported);
	if (ret)
		return ret;
	return uverbs_response(ctx, &resp, sizeof(resp));
}

/*
 * ATTACH_MCAST and DETACH_MCAST: the driver keeps the QP's attachments
 * (attaching twice is not an error, detaching what is not attached is
 * -EINVAL) and drops them when the QP is destroyed.
 */
static int uverbs_mcast(struct uverbs_cmd_ctx *ctx, bool attach)
{
	struct ib_uverbs_attach_mcast cmd;
	struct ib_uobject *uobj;
	union ib_gid gid;
	int ret;

	/* DETACH_MCAST's request has the same layout */
	BUILD_BUG_ON(sizeof(struct ib_uverbs_detach_mcast) != sizeof(cmd));
	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uobj = uobj_get_read(&uverbs_type_qp, ctx->ufile, cmd.qp_handle);
	if (IS_ERR(uobj))
		return -EINVAL;
	memcpy(gid.raw, cmd.gid, sizeof(gid.raw));
	if (attach)
		ret = ib_attach_mcast(uobj->object, &gid, cmd.mlid);
	else
		ret = ib_detach_mcast(uobj->object, &gid, cmd.mlid);
	uobj_put_read(uobj);
	return ret;
}

/**
 * uverbs_cmd_attach_mcast - ATTACH_MCAST: a UD QP joins a multicast group
 * @ctx: the command
 *
 * Return: 0 or a negative errno (-EINVAL for a QP that is not UD or a GID
 * or LID that is not multicast).
 */
int uverbs_cmd_attach_mcast(struct uverbs_cmd_ctx *ctx)
{
	return uverbs_mcast(ctx, true);
}

/**
 * uverbs_cmd_detach_mcast - DETACH_MCAST
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_detach_mcast(struct uverbs_cmd_ctx *ctx)
{
	return uverbs_mcast(ctx, false);
}

/* QP and SRQ: attribute 0 the handle, 1 the events reported. */
static int uverbs_ioctl_uevent_destroy(struct uverbs_ioctl_call *call,
				       const struct uverbs_obj_type *type)
{
	u32 events_reported = 0;
	u32 handle;
	int ret;

	ret = ioa_get_handle(call, 0, &handle);
	if (ret)
		return ret;
	ret = uverbs_destroy_uevent(call->ufile, type, handle,
				    &call->driver_udata, &events_reported);
	if (ret)
		return ret;
	return ioa_copy_to(call, 1, &events_reported, sizeof(events_reported),
			   false);
}

static int uverbs_ioctl_qp_destroy(struct uverbs_ioctl_call *call)
{
	return uverbs_ioctl_uevent_destroy(call, &uverbs_type_qp);
}

static const struct uverbs_ioa_spec uverbs_qp_destroy_specs[] = {
	IOA_OBJ(UVERBS_ATTR_DESTROY_QP_HANDLE, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_DESTROY_QP_RESP,
		     struct ib_uverbs_destroy_qp_resp, IOA_MANDATORY),
};

/* The queue a post command rings the doorbell of. */
enum uverbs_doorbell {
	UVERBS_DOORBELL_SEND,		/* POST_SEND: a QP's send queue */
	UVERBS_DOORBELL_RECV,		/* POST_RECV: a QP's receive queue */
	UVERBS_DOORBELL_SRQ_RECV,	/* POST_SRQ_RECV: an SRQ */
};

/*
 * The post commands: only the doorbell form, without work requests or
 * scatter entries, is accepted.  The three requests have the layout of
 * POST_SEND's (POST_SRQ_RECV's srq_handle in place of qp_handle), the
 * three responses that of POST_SEND's, a bad_wr of 0 here.  The driver
 * processes the queue's ring.
 */
static int uverbs_post_doorbell(struct uverbs_cmd_ctx *ctx,
				enum uverbs_doorbell doorbell)
{
	const struct ib_device_ops *ops = ctx->ib_dev->ops;
	struct ib_uverbs_post_send_resp resp = {};
	const struct ib_send_wr *bad_send_wr = NULL;
	const struct ib_recv_wr *bad_recv_wr = NULL;
	const struct uverbs_obj_type *type;
	struct ib_uverbs_post_send cmd;
	struct ib_uobject *uobj;
	size_t wqe_size;
	int ret;

	static_assert(sizeof(struct ib_uverbs_post_recv_resp) == sizeof(resp));
	static_assert(sizeof(struct ib_uverbs_post_srq_recv_resp) ==
		      sizeof(resp));

	wqe_size = doorbell == UVERBS_DOORBELL_SEND ?
		   sizeof(struct ib_uverbs_send_wr) :
		   sizeof(struct ib_uverbs_recv_wr);
	if (copy_from_user(&cmd, ctx->inbuf, sizeof(cmd)))
		return -EFAULT;
	if (cmd.wqe_size < wqe_size)
		return -EINVAL;
	/* work requests in the command: not implemented */
	if (cmd.wr_count || cmd.sge_count || ctx->inlen != sizeof(cmd))
		return -EINVAL;

	type = doorbell == UVERBS_DOORBELL_SRQ_RECV ? &uverbs_type_srq :
						      &uverbs_type_qp;
	uobj = uobj_get_read(type, ctx->ufile, cmd.qp_handle);
	if (IS_ERR(uobj))
		return -EINVAL;
	/* the object's device is the file's */
	ret = -EOPNOTSUPP;
	switch (doorbell) {
	case UVERBS_DOORBELL_SEND:
		if (ops->post_send)
			ret = ops->post_send(uobj->object, NULL, &bad_send_wr);
		break;
	case UVERBS_DOORBELL_RECV:
		if (ops->post_recv)
			ret = ops->post_recv(uobj->object, NULL, &bad_recv_wr);
		break;
	case UVERBS_DOORBELL_SRQ_RECV:
		if (ops->post_srq_recv)
			ret = ops->post_srq_recv(uobj->object, NULL,
						 &bad_recv_wr);
		break;
	}
	uobj_put_read(uobj);
	if (ret)
		return ret;
	return uverbs_response(ctx, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_post_send - POST_SEND: the send doorbell
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for a command carrying work
 * requests.
 */
int uverbs_cmd_post_send(struct uverbs_cmd_ctx *ctx)
{
	return uverbs_post_doorbell(ctx, UVERBS_DOORBELL_SEND);
}

/**
 * uverbs_cmd_post_recv - POST_RECV: the receive doorbell
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for a command carrying work
 * requests.
 */
int uverbs_cmd_post_recv(struct uverbs_cmd_ctx *ctx)
{
	return uverbs_post_doorbell(ctx, UVERBS_DOORBELL_RECV);
}

/**
 * uverbs_cmd_post_srq_recv - POST_SRQ_RECV: the SRQ doorbell
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for a command carrying work
 * requests.
 */
int uverbs_cmd_post_srq_recv(struct uverbs_cmd_ctx *ctx)
{
	return uverbs_post_doorbell(ctx, UVERBS_DOORBELL_SRQ_RECV);
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

/**
 * struct uverbs_srq_params - an SRQ to create (CREATE_SRQ, SRQ/CREATE)
 * @user_handle: the user's cookie, echoed in events
 * @pd: its protection domain
 * @srq_type: enum ib_srq_type
 * @attr: the sizes and limit wanted; updated to those allocated
 */
struct uverbs_srq_params {
	u64				user_handle;
	struct ib_pd			*pd;
	enum ib_srq_type		srq_type;
	struct ib_srq_attr		attr;
};

/**
 * uverbs_srq_create - create an SRQ for a user, not yet visible
 * @ufile: the file
 * @params: what the SRQ is made of; @params->attr is updated to what was
 *	allocated.  The PD is the caller's, held for reading during the call.
 * @udata: the driver's data of the command or method
 *
 * Shared by CREATE_SRQ and the SRQ/CREATE method.  The SRQ's async events
 * go to the file's async event file.  The caller writes its response,
 * then uobj_alloc_commit() or uobj_alloc_destroy().
 *
 * Return: the new object, with @object the struct ib_srq, or an
 * ERR_PTR(); -EOPNOTSUPP for other than basic SRQs.
 */
static struct ib_uobject *uverbs_srq_create(struct ib_uverbs_file *ufile,
					    struct uverbs_srq_params *params,
					    struct ib_udata *udata)
{
	struct ib_srq_init_attr attr = {};
	struct ib_uevent_object *uevent;
	struct ib_uobject *uobj;
	struct ib_srq *srq;

	uevent = uverbs_uevent_alloc_begin(&uverbs_type_srq, ufile,
					   params->user_handle);
	if (IS_ERR(uevent))
		return ERR_CAST(uevent);
	uobj = &uevent->uobject;

	attr.event_handler = uverbs_uevent_handler;
	attr.srq_context = uevent;
	attr.srq_type = params->srq_type;
	attr.attr = params->attr;
	srq = ib_create_srq_user(params->pd, uobj, &attr, udata);
	if (IS_ERR(srq)) {
		uobj_alloc_abort(uobj);
		return ERR_CAST(srq);
	}
	uobj->object = srq;
	params->attr = attr.attr;
	return uobj;
}

/**
 * uverbs_cmd_create_srq - CREATE_SRQ (basic SRQs)
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for a bad PD handle.
 */
int uverbs_cmd_create_srq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_create_srq_resp resp = {};
	struct uverbs_srq_params params = {};
	struct ib_uverbs_create_srq cmd;
	struct ib_uobject *uobj, *pd_uobj;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	pd_uobj = uobj_get_read(&uverbs_type_pd, ctx->ufile, cmd.pd_handle);
	if (IS_ERR(pd_uobj))
		return -EINVAL;
	params.user_handle = cmd.user_handle;
	params.pd = pd_uobj->object;
	params.srq_type = IB_SRQT_BASIC;
	params.attr.max_wr = cmd.max_wr;
	params.attr.max_sge = cmd.max_sge;
	params.attr.srq_limit = cmd.srq_limit;
	uobj = uverbs_srq_create(ctx->ufile, &params, &ctx->driver_udata);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_pd;
	}

	resp.srq_handle = uobj->id;
	resp.max_wr = params.attr.max_wr;
	resp.max_sge = params.attr.max_sge;
	ret = uverbs_response(ctx, &resp, sizeof(resp));
	if (ret)
		uobj_alloc_destroy(uobj);
	else
		uobj_alloc_commit(uobj);
out_pd:
	uobj_put_read(pd_uobj);
	return ret;
}

/*
 * The type-specific objects of a new SRQ, as upstream: XRC and
 * tag-matching SRQs have a CQ, XRC ones an XRC domain, of which there are
 * none here (-ENOENT), tag-matching ones a number of tags.
 */
static int uverbs_ioctl_srq_objects(struct uverbs_ioctl_call *call,
				    u64 srq_type)
{
	struct ib_cq *cq;
	u32 max_num_tags;

	switch (srq_type) {
	case IB_UVERBS_SRQT_BASIC:
		return 0;
	case IB_UVERBS_SRQT_XRC:
	case IB_UVERBS_SRQT_TM:
		cq = ioa_get_obj(call, UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE,
				 &uverbs_type_cq);
		if (IS_ERR(cq))
			return PTR_ERR(cq);
		if (srq_type == IB_UVERBS_SRQT_XRC)
			return -ENOENT;
		return ioa_get_inline(call, UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS,
				      &max_num_tags, sizeof(max_num_tags));
	default:
		return -EINVAL;
	}
}

static int uverbs_ioctl_srq_create(struct uverbs_ioctl_call *call)
{
	struct uverbs_srq_params params = {};
	struct ib_uobject *uobj;
	u64 srq_type;
	int ret;

	ret = ioa_check_event_fd(call, UVERBS_ATTR_CREATE_SRQ_EVENT_FD);
	if (ret)
		return ret;
	params.pd = ioa_get_obj(call, UVERBS_ATTR_CREATE_SRQ_PD_HANDLE,
				&uverbs_type_pd);
	if (IS_ERR(params.pd))
		return PTR_ERR(params.pd);
	ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_SRQ_MAX_SGE,
			     &params.attr.max_sge, sizeof(u32));
	if (!ret)
		ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_SRQ_MAX_WR,
				     &params.attr.max_wr, sizeof(u32));
	if (!ret)
		ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_SRQ_LIMIT,
				     &params.attr.srq_limit, sizeof(u32));
	if (!ret)
		ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_SRQ_USER_HANDLE,
				     &params.user_handle,
				     sizeof(params.user_handle));
	if (!ret)
		ret = ioa_get_const(call, UVERBS_ATTR_CREATE_SRQ_TYPE, U64_MAX,
				    &srq_type);
	if (ret)
		return ret;
	ret = uverbs_ioctl_srq_objects(call, srq_type);
	if (ret)
		return ret;
	/* the uverbs SRQ types have the values of enum ib_srq_type */
	params.srq_type = srq_type;

	/* the core refuses all but basic SRQs */
	uobj = uverbs_srq_create(call->ufile, &params, &call->driver_udata);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = ioa_new_uobj(call, UVERBS_ATTR_CREATE_SRQ_HANDLE, uobj);
	if (ret)
		return ret;
	ret = ioa_copy_to(call, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR,
			  &params.attr.max_wr, sizeof(u32), false);
	if (ret)
		return ret;
	/* RESP_SRQ_NUM is for XRC SRQs only */
	return ioa_copy_to(call, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE,
			   &params.attr.max_sge, sizeof(u32), false);
}

static const struct uverbs_ioa_spec uverbs_srq_create_specs[] = {
	IOA_OBJ(UVERBS_ATTR_CREATE_SRQ_HANDLE, IOA_MANDATORY),
	IOA_OBJ(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, IOA_MANDATORY),
	IOA_CONST_IN(UVERBS_ATTR_CREATE_SRQ_TYPE, IOA_MANDATORY),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, u64, IOA_MANDATORY),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_SRQ_MAX_WR, u32, IOA_MANDATORY),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_SRQ_MAX_SGE, u32, IOA_MANDATORY),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_SRQ_LIMIT, u32, IOA_MANDATORY),
	IOA_OBJ(UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, IOA_OPTIONAL),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, u32, IOA_OPTIONAL),
	IOA_OBJ(UVERBS_ATTR_CREATE_SRQ_EVENT_FD, IOA_OPTIONAL),
	IOA_TYPE_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, u32, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, u32, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, u32, IOA_OPTIONAL),
	IOA_UHW_IN,
	IOA_UHW_OUT,
};

/**
 * uverbs_cmd_modify_srq - MODIFY_SRQ: resize or arm the limit
 * @ctx: the command; the driver data says where a resized ring is
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_modify_srq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_modify_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uobj = uobj_get_read(&uverbs_type_srq, ctx->ufile, cmd.srq_handle);
	if (IS_ERR(uobj))
		return -EINVAL;
	attr.max_wr = cmd.max_wr;
	attr.srq_limit = cmd.srq_limit;
	ret = ib_modify_srq_user(uobj->object, &attr, cmd.attr_mask,
				 &ctx->driver_udata);
	uobj_put_read(uobj);
	return ret;
}

/**
 * uverbs_cmd_query_srq - QUERY_SRQ
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_query_srq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uobj = uobj_get_read(&uverbs_type_srq, ctx->ufile, cmd.srq_handle);
	if (IS_ERR(uobj))
		return -EINVAL;
	ret = ib_query_srq(uobj->object, &attr);
	uobj_put_read(uobj);
	if (ret)
		return ret;
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return uverbs_response(ctx, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_destroy_srq - DESTROY_SRQ, with the async events delivered
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EBUSY while a QP uses the SRQ.
 */
int uverbs_cmd_destroy_srq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ib_uverbs_destroy_srq cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uverbs_destroy_uevent(ctx->ufile, &uverbs_type_srq,
				    cmd.srq_handle, &ctx->driver_udata,
				    &resp.events_reported);
	if (ret)
		return ret;
	return uverbs_response(ctx, &resp, sizeof(resp));
}

static int uverbs_ioctl_srq_destroy(struct uverbs_ioctl_call *call)
{
	return uverbs_ioctl_uevent_destroy(call, &uverbs_type_srq);
}

static const struct uverbs_ioa_spec uverbs_srq_destroy_specs[] = {
	IOA_OBJ(UVERBS_ATTR_DESTROY_SRQ_HANDLE, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_DESTROY_SRQ_RESP,
		     struct ib_uverbs_destroy_srq_resp, IOA_MANDATORY),
};

/* ------------------------------------------------------------------ */
/* The ioctl's objects                                                 */
/* ------------------------------------------------------------------ */

static const struct uverbs_ioctl_method uverbs_qp_methods[] = {
	{
		.method_id = UVERBS_METHOD_QP_CREATE,
		.has_udata = true,
		.handler = uverbs_ioctl_qp_create,
		.specs = uverbs_qp_create_specs,
		.num_specs = ARRAY_SIZE(uverbs_qp_create_specs),
	},
	{
		.method_id = UVERBS_METHOD_QP_DESTROY,
		.handler = uverbs_ioctl_qp_destroy,
		.specs = uverbs_qp_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_qp_destroy_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_qp = {
	.object_id = UVERBS_OBJECT_QP,
	.methods = uverbs_qp_methods,
	.num_methods = ARRAY_SIZE(uverbs_qp_methods),
};

static const struct uverbs_ioctl_method uverbs_srq_methods[] = {
	{
		.method_id = UVERBS_METHOD_SRQ_CREATE,
		.has_udata = true,
		.handler = uverbs_ioctl_srq_create,
		.specs = uverbs_srq_create_specs,
		.num_specs = ARRAY_SIZE(uverbs_srq_create_specs),
	},
	{
		.method_id = UVERBS_METHOD_SRQ_DESTROY,
		.handler = uverbs_ioctl_srq_destroy,
		.specs = uverbs_srq_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_srq_destroy_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_srq = {
	.object_id = UVERBS_OBJECT_SRQ,
	.methods = uverbs_srq_methods,
	.num_methods = ARRAY_SIZE(uverbs_srq_methods),
};
