// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Commands on completion channels and CQs.
 *
 * A completion channel is a file (see event.c), not a handle; CREATE_CQ
 * names it by descriptor and the CQ keeps a reference to it.  The CQ's
 * completion handler queues one event on the channel each time the
 * driver fires it after REQ_NOTIFY_CQ; its event handler queues async
 * events.  DESTROY_CQ reports how many of each were read, having taken
 * back those that were not.
 *
 * The CQ object of the verbs ioctl is here too: CQ/CREATE beside
 * CREATE_CQ (both make the CQ with uverbs_cq_create()), CQ/DESTROY beside
 * DESTROY_CQ.
 *
 * Locking: no lock of its own.  A command holds the objects it uses
 * (handles.c's use counts) while it runs; the events are queued under the
 * locks of the event files (event.c).
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ioctl.h"

static void uverbs_cq_comp_handler(struct ib_cq *cq, void *cq_context)
{
	ib_uverbs_comp_event(cq_context);
}

static void uverbs_cq_event_handler(struct ib_event *event, void *context)
{
	struct ib_ucq_object *ucq = context;

	ib_uverbs_object_event(&ucq->uevent, event->event);
}

static int uverbs_free_cq(struct ib_uobject *uobj,
			  enum uverbs_remove_reason why,
			  struct ib_udata *udata)
{
	struct ib_ucq_object *ucq =
		container_of(uobj, struct ib_ucq_object, uevent.uobject);
	int ret;

	/* -EBUSY while a QP or SRQ uses it */
	ret = ib_destroy_cq_user(uobj->object, udata);
	if (ret)
		return ret;
	/* no handler runs any more: the counters become final */
	ib_uverbs_cq_forget_events(ucq);
	ib_uverbs_object_forget_events(&ucq->uevent);
	if (ucq->comp_file) {
		ib_uverbs_comp_file_put(ucq->comp_file);
		ucq->comp_file = NULL;
	}
	return 0;
}

const struct uverbs_obj_type uverbs_type_cq = {
	.name = "CQ",
	.obj_size = sizeof(struct ib_ucq_object),
	.destroy = uverbs_free_cq,
};

/**
 * uverbs_cmd_create_comp_channel - CREATE_COMP_CHANNEL: a new channel
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_create_comp_channel(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_create_comp_channel cmd;
	struct ib_uverbs_comp_file *comp_file;
	struct file *filp;
	int ret;
	int fd;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!uverbs_get_ucontext(ctx->ufile))
		return -EINVAL;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	comp_file = ib_uverbs_alloc_comp_file(ctx->ufile, &filp);
	if (IS_ERR(comp_file)) {
		ret = PTR_ERR(comp_file);
		goto err_fd;
	}

	resp.fd = fd;
	ret = uverbs_response(ctx, &resp, sizeof(resp));
	if (ret)
		goto err_file;
	fd_install(fd, filp);
	return 0;

err_file:
	/* the release takes it off the file's list and frees it */
	fput(filp);
err_fd:
	put_unused_fd(fd);
	return ret;
}

/**
 * struct uverbs_cq_params - a CQ to create (CREATE_CQ, EX_CREATE_CQ,
 *	CQ/CREATE)
 * @user_handle: the user's cookie, echoed in events
 * @cqe: the entries wanted
 * @comp_vector: the completion vector
 * @flags: IB_UVERBS_CQ_FLAGS_*
 * @comp_file: its completion channel, or NULL
 */
struct uverbs_cq_params {
	u64				user_handle;
	u32				cqe;
	u32				comp_vector;
	u32				flags;
	struct ib_uverbs_comp_file	*comp_file;
};

/**
 * uverbs_cq_create - create a CQ for a user, not yet visible
 * @ufile: the file
 * @params: what the CQ is made of; a completion channel there stays the
 *	caller's, the CQ takes a reference of its own
 * @udata: the driver's data of the command or method
 *
 * Shared by CREATE_CQ, EX_CREATE_CQ and the CQ/CREATE method.  The CQ's
 * async events go to the file's async event file, its completion events
 * to @params->comp_file.  The caller writes its response, then either
 * makes the CQ visible with uobj_alloc_commit() or takes it back with
 * uobj_alloc_destroy().
 *
 * Return: the new object, with @object the struct ib_cq, or an ERR_PTR():
 * -EINVAL for a size of 0 or above the device's maximum or a completion
 * vector it does not have, -EOPNOTSUPP for flags.
 */
static struct ib_uobject *uverbs_cq_create(struct ib_uverbs_file *ufile,
					   const struct uverbs_cq_params *params,
					   struct ib_udata *udata)
{
	struct ib_cq_init_attr attr = {};
	struct ib_ucq_object *ucq;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int ret;

	uobj = uobj_alloc_begin(&uverbs_type_cq, ufile);
	if (IS_ERR(uobj))
		return uobj;
	ucq = container_of(uobj, struct ib_ucq_object, uevent.uobject);
	uobj->user_handle = params->user_handle;
	INIT_LIST_HEAD(&ucq->uevent.event_list);
	INIT_LIST_HEAD(&ucq->comp_list);
	if (params->comp_file) {
		ib_uverbs_comp_file_hold(params->comp_file);
		ucq->comp_file = params->comp_file;
	}

	attr.cqe = params->cqe;
	attr.comp_vector = params->comp_vector;
	attr.flags = params->flags;
	cq = ib_create_cq_user(uobj->context, uobj, &attr,
			       uverbs_cq_comp_handler, uverbs_cq_event_handler,
			       ucq, udata);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err_channel;
	}
	uobj->object = cq;
	return uobj;

err_channel:
	if (ucq->comp_file)
		ib_uverbs_comp_file_put(ucq->comp_file);
	uobj_alloc_abort(uobj);
	return ERR_PTR(ret);
}

/*
 * The write() front end of CREATE_CQ and EX_CREATE_CQ.  @resp is the
 * extended response, whose head is the legacy one; @resp_len says how
 * much of it to write.
 */
static int uverbs_create_cq(struct uverbs_cmd_ctx *ctx,
			    const struct ib_uverbs_ex_create_cq *cmd,
			    struct ib_uverbs_ex_create_cq_resp *resp,
			    size_t resp_len)
{
	struct uverbs_cq_params params = {
		.user_handle = cmd->user_handle,
		.cqe = cmd->cqe,
		.comp_vector = cmd->comp_vector,
		.flags = cmd->flags,
	};
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int ret;

	if (cmd->comp_channel >= 0) {
		params.comp_file = ib_uverbs_comp_file_get(ctx->ufile,
							   cmd->comp_channel);
		if (IS_ERR(params.comp_file))
			return PTR_ERR(params.comp_file);
	}

	uobj = uverbs_cq_create(ctx->ufile, &params, &ctx->driver_udata);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_channel;
	}
	cq = uobj->object;

	resp->base.cq_handle = uobj->id;
	resp->base.cqe = cq->cqe;
	resp->response_length = min(ctx->outlen, resp_len);
	ret = uverbs_response(ctx, resp, resp_len);
	if (ret)
		uobj_alloc_destroy(uobj);
	else
		uobj_alloc_commit(uobj);
out_channel:
	if (params.comp_file)
		ib_uverbs_comp_file_put(params.comp_file);
	return ret;
}

/**
 * uverbs_cmd_create_cq - CREATE_CQ
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_create_cq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq ex = {};
	struct ib_uverbs_create_cq cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ex.user_handle = cmd.user_handle;
	ex.cqe = cmd.cqe;
	ex.comp_vector = cmd.comp_vector;
	ex.comp_channel = cmd.comp_channel;
	return uverbs_create_cq(ctx, &ex, &resp, sizeof(resp.base));
}

/**
 * uverbs_cmd_ex_create_cq - EX_CREATE_CQ
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for a comp_mask or reserved
 * bits, -EOPNOTSUPP for flags (no timestamps, no overrun ignoring).
 */
int uverbs_cmd_ex_create_cq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;
	return uverbs_create_cq(ctx, &cmd, &resp, sizeof(resp));
}

/*
 * The completion channel of CQ/CREATE, referenced: NULL without the
 * attribute, ERR_PTR(-EBADF) if the descriptor is not a channel of this
 * file (as upstream's descriptor lookup; write() says -EINVAL).
 */
static struct ib_uverbs_comp_file *
ioa_get_comp_file(const struct uverbs_ioctl_call *call, u16 id)
{
	struct ib_uverbs_comp_file *comp_file;
	int ret;
	int fd;

	ret = ioa_get_fd(call, id, &fd);
	if (ret == -ENOENT)
		return NULL;
	if (ret)
		return ERR_PTR(ret);
	comp_file = ib_uverbs_comp_file_get(call->ufile, fd);
	return IS_ERR(comp_file) ? ERR_PTR(-EBADF) : comp_file;
}

static int uverbs_ioctl_cq_create(struct uverbs_ioctl_call *call)
{
	struct uverbs_cq_params params = {};
	struct ib_uobject *uobj;
	u32 cqe;
	u64 flags;
	int ret;

	ret = ioa_check_event_fd(call, UVERBS_ATTR_CREATE_CQ_EVENT_FD);
	if (ret)
		return ret;
	ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
			     &params.comp_vector, sizeof(params.comp_vector));
	if (!ret)
		ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_CQ_CQE,
				     &params.cqe, sizeof(params.cqe));
	if (!ret)
		ret = ioa_get_inline(call, UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
				     &params.user_handle,
				     sizeof(params.user_handle));
	if (ret)
		return ret;
	/* known flags pass, the core refuses those it cannot do */
	ret = ioa_get_flags(call, UVERBS_ATTR_CREATE_CQ_FLAGS,
			    IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION |
			    IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN, &flags);
	if (ret)
		return ret;
	params.flags = flags;

	params.comp_file = ioa_get_comp_file(call,
					     UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL);
	if (IS_ERR(params.comp_file))
		return PTR_ERR(params.comp_file);

	uobj = uverbs_cq_create(call->ufile, &params, &call->driver_udata);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_channel;
	}
	ret = ioa_new_uobj(call, UVERBS_ATTR_CREATE_CQ_HANDLE, uobj);
	if (ret)
		goto out_channel;
	cqe = ((struct ib_cq *)uobj->object)->cqe;
	ret = ioa_copy_to(call, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &cqe,
			  sizeof(cqe), false);
out_channel:
	if (params.comp_file)
		ib_uverbs_comp_file_put(params.comp_file);
	return ret;
}

static const struct uverbs_ioa_spec uverbs_cq_create_specs[] = {
	IOA_OBJ(UVERBS_ATTR_CREATE_CQ_HANDLE, IOA_MANDATORY),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_CQ_CQE, u32, IOA_MANDATORY),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, u64, IOA_MANDATORY),
	IOA_OBJ(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, IOA_OPTIONAL),
	IOA_TYPE_IN(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, u32, IOA_MANDATORY),
	IOA_FLAGS_IN(UVERBS_ATTR_CREATE_CQ_FLAGS, IOA_OPTIONAL),
	IOA_TYPE_OUT(UVERBS_ATTR_CREATE_CQ_RESP_CQE, u32, IOA_MANDATORY),
	IOA_OBJ(UVERBS_ATTR_CREATE_CQ_EVENT_FD, IOA_OPTIONAL),
	IOA_UHW_IN,
	IOA_UHW_OUT,
};

/**
 * uverbs_destroy_cq_obj - destroy a CQ and count the events it delivered
 * @ufile: the file
 * @handle: the CQ's handle
 * @udata: the command's driver data
 * @resp: on success, the completion and async events read
 *
 * Shared by the DESTROY_CQ command and method.
 *
 * Return: 0 or a negative errno; -EBUSY while a QP or SRQ uses the CQ.
 */
static int uverbs_destroy_cq_obj(struct ib_uverbs_file *ufile, u32 handle,
				 struct ib_udata *udata,
				 struct ib_uverbs_destroy_cq_resp *resp)
{
	struct ib_ucq_object *ucq;
	struct ib_uobject *uobj;
	int ret;

	uobj = uobj_get_destroy(&uverbs_type_cq, ufile, handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = uobj_destroy_locked(uobj, udata);
	if (!ret) {
		ucq = container_of(uobj, struct ib_ucq_object, uevent.uobject);
		resp->comp_events_reported = ucq->comp_events_reported;
		resp->async_events_reported = ucq->uevent.events_reported;
	}
	uobj_put_destroy(uobj);
	return ret;
}

/**
 * uverbs_cmd_destroy_cq - DESTROY_CQ, with the events delivered
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EBUSY while a QP or SRQ uses the CQ.
 */
int uverbs_cmd_destroy_cq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ib_uverbs_destroy_cq cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uverbs_destroy_cq_obj(ctx->ufile, cmd.cq_handle,
				    &ctx->driver_udata, &resp);
	if (ret)
		return ret;
	return uverbs_response(ctx, &resp, sizeof(resp));
}

static int uverbs_ioctl_cq_destroy(struct uverbs_ioctl_call *call)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	u32 handle;
	int ret;

	ret = ioa_get_handle(call, UVERBS_ATTR_DESTROY_CQ_HANDLE, &handle);
	if (ret)
		return ret;
	ret = uverbs_destroy_cq_obj(call->ufile, handle, &call->driver_udata,
				    &resp);
	if (ret)
		return ret;
	return ioa_copy_to(call, UVERBS_ATTR_DESTROY_CQ_RESP, &resp,
			   sizeof(resp), false);
}

static const struct uverbs_ioa_spec uverbs_cq_destroy_specs[] = {
	IOA_OBJ(UVERBS_ATTR_DESTROY_CQ_HANDLE, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_DESTROY_CQ_RESP,
		     struct ib_uverbs_destroy_cq_resp, IOA_MANDATORY),
};

/**
 * uverbs_cmd_req_notify_cq - REQ_NOTIFY_CQ: arm the completion event
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_req_notify_cq(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_req_notify_cq cmd;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = uobj_get_read(&uverbs_type_cq, ctx->ufile, cmd.cq_handle);
	if (IS_ERR(uobj))
		return -EINVAL;
	cq = uobj->object;
	if (cq->device->ops->req_notify_cq) {
		ret = cq->device->ops->req_notify_cq(cq, cmd.solicited_only ?
						     IB_CQ_SOLICITED :
						     IB_CQ_NEXT_COMP);
		/* without REPORT_MISSED_EVENTS, a positive value is no error */
		ret = min(ret, 0);
	} else {
		ret = -EOPNOTSUPP;
	}
	uobj_put_read(uobj);
	return ret;
}

static const struct uverbs_ioctl_method uverbs_cq_methods[] = {
	{
		.method_id = UVERBS_METHOD_CQ_CREATE,
		.has_udata = true,
		.handler = uverbs_ioctl_cq_create,
		.specs = uverbs_cq_create_specs,
		.num_specs = ARRAY_SIZE(uverbs_cq_create_specs),
	},
	{
		.method_id = UVERBS_METHOD_CQ_DESTROY,
		.handler = uverbs_ioctl_cq_destroy,
		.specs = uverbs_cq_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_cq_destroy_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_cq = {
	.object_id = UVERBS_OBJECT_CQ,
	.methods = uverbs_cq_methods,
	.num_methods = ARRAY_SIZE(uverbs_cq_methods),
};
