// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_ucm: the RDMA connection manager (rdma_cm.ko) for processes,
 * through the misc device /dev/infiniband/rdma_cm (abi_version 4).
 * librdmacm opens it once per event channel; every command is one
 * write() of a struct rdma_ucm_cmd_hdr and the command's structure
 * (<rdma/rdma_user_cm.h>), answered through the user pointer the
 * command carries.  See Documentation/rdma_ucm.rst.
 *
 * Every kernel id a process creates (CREATE_ID, or a CONNECT_REQUEST on
 * one of its listeners) is a struct ucma_ctx whose number, the "id" of
 * the ABI, indexes the global ucma_ctx_xa; every multicast group joined
 * through an id is a struct ucma_mc numbered in ucma_mc_xa.  Commands
 * find them there, and only accept those of the file they are written
 * to (-ENOENT for a number that names nothing, -EINVAL for one of
 * another file).
 *
 * Events: the rdma_cm calls ucma_event_handler() with the id's handler
 * lock held; it turns the event into a struct ucma_event on the id's file,
 * which GET_EVENT (or poll()) waits for.  Events of an id without a uid
 * (the new id of a CONNECT_REQUEST until its ACCEPT) are dropped.
 *
 * Lifetime of a context: its table slot is reserved (a zero entry) when it
 * is allocated, holds the context while it is public, and is a zero entry
 * again from the moment one destroyer (DESTROY_ID, close(), the listener
 * of an unread CONNECT_REQUEST) claimed it with a compare-and-exchange.
 * @ref counts the users of its kernel id: the table's reference and one
 * per command in flight.  The kernel id is closed (rdma_destroy_id()) once,
 * after the table's reference is dropped and the last command is done:
 * either by the destroyer, or earlier, on DEVICE_REMOVAL, by a work item,
 * so that device removal waits for no process.  A context whose id is
 * closed stays until DESTROY_ID or close(); commands on it fail with
 * -ENXIO.  After the id is closed no handler runs for it any more, so the
 * destroyer then frees its events and groups and the context itself.
 *
 * The new id of a CONNECT_REQUEST belongs to no file until GET_EVENT
 * reports the request: its context is public (device removal can find
 * it) but has no file, so no command accepts it; the event owns it and
 * destroys it if the event is freed unread.
 *
 * Locking, outermost first: a context's @mutex serialises the commands on
 * its id; the rdma_cm's handler lock of the id (rdma_lock_handler(), held
 * around every call of the event handler) orders ACCEPT's uid and the
 * leaving of a group against the events; a context's @file_mutex keeps
 * its @file for whoever queues an event and for MIGRATE_ID; a file's @mut
 * protects its lists of contexts and events and the events_reported
 * counters; the xarrays' own spinlocks protect the slots, a context's
 * @file for lookups, and (ucma_mc_xa's) the lists of groups.  The event
 * handler never takes a context's @mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_marshall.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>
#include <uapi/rdma/rdma_user_cm.h>

MODULE_AUTHOR("The ibstack developers");
MODULE_DESCRIPTION("RDMA userspace connection manager access");
MODULE_LICENSE("Dual BSD/GPL");

/*
 * What the ABI answers for a command (GET_OPTION), a QUERY option or a
 * SET_OPTION level or name it does not have: -ENOSYS, as upstream.
 * checkpatch warns at every mention of that name in code (it means an
 * unknown system call elsewhere), so it is spelled once, here, by token
 * pasting.
 */
#define UCMA_ERRNO(suffix)	(E##suffix)
#define UCMA_UNKNOWN		(-UCMA_ERRNO(NOSYS))

/* The largest backlog of a listener; LISTEN with 0 or more gets this. */
static unsigned int ucma_max_backlog = 1024;

/**
 * struct ucma_file - an open /dev/infiniband/rdma_cm, an event channel
 * @mut: protects @ctx_list, @event_list and the events_reported counters
 *	of the contexts and groups whose events go to this file
 * @filp: the file
 * @ctx_list: its contexts (struct ucma_ctx.list)
 * @event_list: events not read yet, oldest first
 * @poll_wait: GET_EVENT and poll() wait here for events
 */
struct ucma_file {
	struct mutex		mut;	/* see @mut above */
	struct file		*filp;
	struct list_head	ctx_list;
	struct list_head	event_list;
	wait_queue_head_t	poll_wait;
};

/**
 * struct ucma_ctx - an RDMA CM id of a process
 * @id: its number, the index of its slot in ucma_ctx_xa
 * @file: the file it belongs to; NULL for the new id of a CONNECT_REQUEST
 *	not reported yet.  Changed under ucma_ctx_xa's lock (for lookups)
 *	and @file_mutex (for the event handler).
 * @cm_id: the kernel id; NULL once closed.  Only used by holders of @ref.
 * @uid: the user's value for the id's events; 0 (no events) for the new
 *	id of a CONNECT_REQUEST until it is accepted.  Set under the id's
 *	handler lock.
 * @ref: the table's reference, while @cm_id is open, and one per command
 *	using @cm_id
 * @done: completed when @ref drops to zero
 * @mutex: serialises the commands on the id
 * @file_mutex: held while an event is queued on @file and while
 *	MIGRATE_ID moves the id: keeps @file for both
 * @events_reported: its events read by GET_EVENT so far
 * @backlog: CONNECT_REQUESTs a listener may still queue unread
 * @list: entry in @file's ctx_list
 * @mc_list: the groups joined through the id (under ucma_mc_xa's lock)
 * @close_work: closes @cm_id after DEVICE_REMOVAL
 */
struct ucma_ctx {
	u32			id;
	struct ucma_file	*file;
	struct rdma_cm_id	*cm_id;
	u64			uid;
	refcount_t		ref;
	struct completion	done;
	struct mutex		mutex;	/* see @mutex above */
	struct mutex		file_mutex;	/* see @file_mutex above */
	u32			events_reported;
	atomic_t		backlog;
	struct list_head	list;
	struct list_head	mc_list;
	struct work_struct	close_work;
};

/**
 * struct ucma_mc - a multicast group joined through an id
 * @ctx: the id's context
 * @id: its number, the index of its slot in ucma_mc_xa
 * @uid: the user's value for its events
 * @events_reported: its events read by GET_EVENT so far
 * @list: entry in @ctx's mc_list
 * @addr: the group's address
 */
struct ucma_mc {
	struct ucma_ctx		*ctx;
	u32			id;
	u64			uid;
	u32			events_reported;
	struct list_head	list;
	struct sockaddr_storage	addr;
};

/**
 * struct ucma_event - an event waiting on a file for GET_EVENT
 * @ctx: the context it is counted for (the listener's for a
 *	CONNECT_REQUEST)
 * @new_ctx: for a CONNECT_REQUEST, the new id's context, which the event
 *	owns until it is read
 * @mc: for a multicast event, the group
 * @list: entry in the file's event_list
 * @resp: what GET_EVENT returns
 */
struct ucma_event {
	struct ucma_ctx			*ctx;
	struct ucma_ctx			*new_ctx;
	struct ucma_mc			*mc;
	struct list_head		list;
	struct rdma_ucm_event_resp	resp;
};

static DEFINE_XARRAY_ALLOC(ucma_ctx_xa);
static DEFINE_XARRAY_ALLOC(ucma_mc_xa);

static const struct file_operations ucma_fops;

/* ------------------------------------------------------------------ */
/* Contexts                                                            */
/* ------------------------------------------------------------------ */

/* The context numbered @id if it is @file's.  Under ucma_ctx_xa's lock. */
static struct ucma_ctx *ucma_find_ctx(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx = xa_load(&ucma_ctx_xa, id);

	if (!ctx)
		return ERR_PTR(-ENOENT);
	if (ctx->file != file)
		return ERR_PTR(-EINVAL);
	return ctx;
}

/* The context numbered @id of @file, with a reference to its kernel id. */
static struct ucma_ctx *ucma_get_ctx(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx;

	xa_lock(&ucma_ctx_xa);
	ctx = ucma_find_ctx(file, id);
	if (!IS_ERR(ctx) && !refcount_inc_not_zero(&ctx->ref))
		ctx = ERR_PTR(-ENXIO);	/* closed by device removal */
	xa_unlock(&ucma_ctx_xa);
	return ctx;
}

static void ucma_put_ctx(struct ucma_ctx *ctx)
{
	if (refcount_dec_and_test(&ctx->ref))
		complete(&ctx->done);
}

/* ucma_get_ctx(), for commands that need the id bound to a device. */
static struct ucma_ctx *ucma_get_ctx_dev(struct ucma_file *file, u32 id)
{
	struct ucma_ctx *ctx = ucma_get_ctx(file, id);

	if (!IS_ERR(ctx) && !ctx->cm_id->device) {
		ucma_put_ctx(ctx);
		ctx = ERR_PTR(-EINVAL);
	}
	return ctx;
}

/*
 * Claim a public context for destruction: only one caller succeeds, and
 * lookups fail from then on.
 */
static bool ucma_claim_ctx(struct ucma_ctx *ctx)
{
	return xa_cmpxchg(&ucma_ctx_xa, ctx->id, ctx, XA_ZERO_ENTRY,
			  GFP_KERNEL) == ctx;
}

/*
 * Close the kernel id: drop the table's reference, wait for the commands
 * using the id, destroy it (which waits for its event handler).  Runs once
 * per context with a kernel id, from the work item or from the destroyer.
 */
static void ucma_close_id(struct ucma_ctx *ctx)
{
	ucma_put_ctx(ctx);
	wait_for_completion(&ctx->done);
	rdma_destroy_id(ctx->cm_id);
	ctx->cm_id = NULL;
}

static void ucma_close_work(struct work_struct *work)
{
	ucma_close_id(container_of(work, struct ucma_ctx, close_work));
}

/*
 * A new context of @file (NULL: of no file yet) with a reserved number;
 * it has no kernel id, so no reference, until ucma_set_cm_id().
 */
static struct ucma_ctx *ucma_alloc_ctx(struct ucma_file *file)
{
	struct ucma_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	ctx->file = file;
	refcount_set(&ctx->ref, 0);
	init_completion(&ctx->done);
	mutex_init(&ctx->mutex);
	mutex_init(&ctx->file_mutex);
	INIT_LIST_HEAD(&ctx->list);
	INIT_LIST_HEAD(&ctx->mc_list);
	INIT_WORK(&ctx->close_work, ucma_close_work);
	if (xa_alloc(&ucma_ctx_xa, &ctx->id, NULL, xa_limit_32b, GFP_KERNEL)) {
		kfree(ctx);
		return NULL;
	}
	return ctx;
}

/* The context's kernel id, and the table's reference to it. */
static void ucma_set_cm_id(struct ucma_ctx *ctx, struct rdma_cm_id *cm_id)
{
	ctx->cm_id = cm_id;
	refcount_set(&ctx->ref, 1);
}

/* Forget the groups of a context whose kernel id is closed. */
static void ucma_free_mcs(struct ucma_ctx *ctx)
{
	struct ucma_mc *mc, *next;

	xa_lock(&ucma_mc_xa);
	list_for_each_entry_safe(mc, next, &ctx->mc_list, list) {
		list_del(&mc->list);
		__xa_erase(&ucma_mc_xa, mc->id);
		kfree(mc);
	}
	xa_unlock(&ucma_mc_xa);
}

static void ucma_destroy_new_ctx(struct ucma_ctx *ctx);

/**
 * ucma_destroy_ctx - close and free a context no lookup finds any more
 * @ctx: the context; its slot is reserved (never published) or claimed
 *
 * Closes the kernel id unless device removal did, frees the unread
 * events of the context (and the contexts of the unread CONNECT_REQUESTs
 * of a listener) and its groups, and releases the number.
 *
 * Return: the number of the context's events GET_EVENT reported.
 */
static u32 ucma_destroy_ctx(struct ucma_ctx *ctx)
{
	struct ucma_event *ev, *next;
	LIST_HEAD(unread);
	u32 reported = 0;

	/*
	 * The slot is no longer ctx, so the handler queues no new work.  If
	 * the work ran, it closed the id; else the reference is still there
	 * (or there never was a kernel id).
	 */
	cancel_work_sync(&ctx->close_work);
	if (refcount_read(&ctx->ref))
		ucma_close_id(ctx);

	/* No handler and no command runs for the id now. */
	if (ctx->file) {
		mutex_lock(&ctx->file->mut);
		list_for_each_entry_safe(ev, next, &ctx->file->event_list, list)
			if (ev->ctx == ctx)
				list_move_tail(&ev->list, &unread);
		list_del(&ctx->list);
		reported = ctx->events_reported;
		mutex_unlock(&ctx->file->mut);
	}
	list_for_each_entry_safe(ev, next, &unread, list) {
		if (ev->new_ctx)
			ucma_destroy_new_ctx(ev->new_ctx);
		kfree(ev);
	}

	ucma_free_mcs(ctx);
	xa_erase(&ucma_ctx_xa, ctx->id);
	mutex_destroy(&ctx->file_mutex);
	mutex_destroy(&ctx->mutex);
	kfree(ctx);
	return reported;
}

/* Destroy the context of an unread CONNECT_REQUEST, which only it knew. */
static void ucma_destroy_new_ctx(struct ucma_ctx *ctx)
{
	WARN_ON(!ucma_claim_ctx(ctx));
	ucma_destroy_ctx(ctx);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

static void ucma_conn_param_to_user(struct rdma_ucm_conn_param *dst,
				    const struct rdma_conn_param *src)
{
	if (src->private_data && src->private_data_len)
		memcpy(dst->private_data, src->private_data,
		       src->private_data_len);
	dst->private_data_len = src->private_data_len;
	dst->qp_num = src->qp_num;
	dst->srq = src->srq;
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
}

static void ucma_ud_param_to_user(struct rdma_ucm_ud_param *dst,
				  const struct rdma_ud_param *src,
				  bool with_data)
{
	if (with_data && src->private_data && src->private_data_len) {
		memcpy(dst->private_data, src->private_data,
		       src->private_data_len);
		dst->private_data_len = src->private_data_len;
	}
	ib_copy_ah_attr_to_user(&dst->ah_attr, &src->ah_attr);
	dst->qp_num = src->qp_num;
	dst->qkey = src->qkey;
}

static bool ucma_is_mc_event(enum rdma_cm_event_type type)
{
	return type == RDMA_CM_EVENT_MULTICAST_JOIN ||
	       type == RDMA_CM_EVENT_MULTICAST_ERROR;
}

/*
 * The record of @event of @cm_id for @ctx.  A multicast event names its
 * group: the rdma_cm passes the context given to rdma_join_multicast()
 * (the struct ucma_mc) in param.ud.private_data, which is therefore not
 * private data and not copied.
 */
static struct ucma_event *ucma_alloc_event(struct ucma_ctx *ctx,
					   struct rdma_cm_id *cm_id,
					   const struct rdma_cm_event *event)
{
	bool mc_event = ucma_is_mc_event(event->event);
	struct ucma_event *ev;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return NULL;
	ev->ctx = ctx;
	if (mc_event) {
		ev->mc = (struct ucma_mc *)event->param.ud.private_data;
		ev->resp.uid = ev->mc->uid;
		ev->resp.id = ev->mc->id;
	} else {
		ev->resp.uid = ctx->uid;
		ev->resp.id = ctx->id;
	}
	ev->resp.event = event->event;
	ev->resp.status = event->status;
	if (cm_id->qp_type == IB_QPT_UD)
		ucma_ud_param_to_user(&ev->resp.param.ud, &event->param.ud,
				      !mc_event);
	else if (!mc_event)
		ucma_conn_param_to_user(&ev->resp.param.conn,
					&event->param.conn);
	ev->resp.ece = event->ece;
	return ev;
}

/*
 * Queue @ev on the file of its context.  Called from the event handler:
 * the file cannot go away meanwhile, as destroying the context waits for
 * the handler.
 */
static void ucma_queue_event(struct ucma_event *ev)
{
	struct ucma_ctx *ctx = ev->ctx;
	struct ucma_file *file;

	mutex_lock(&ctx->file_mutex);
	file = ctx->file;
	mutex_lock(&file->mut);
	list_add_tail(&ev->list, &file->event_list);
	mutex_unlock(&file->mut);
	wake_up_interruptible(&file->poll_wait);
	mutex_unlock(&ctx->file_mutex);
}

/*
 * A CONNECT_REQUEST for a listener: @cm_id is the new id, whose context
 * is still the listener's.  Beyond the listener's backlog, or without
 * memory, the request is refused: the non-zero return makes the rdma_cm
 * destroy the new id.
 */
static int ucma_connect_request(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct ucma_ctx *listener = cm_id->context;
	struct ucma_event *ev;
	struct ucma_ctx *ctx;

	if (!atomic_add_unless(&listener->backlog, -1, 0))
		return -ENOMEM;

	ctx = ucma_alloc_ctx(NULL);
	if (!ctx)
		goto err_backlog;
	ev = ucma_alloc_event(listener, cm_id, event);
	if (!ev)
		goto err_ctx;
	ev->new_ctx = ctx;
	ev->resp.id = ctx->id;

	ucma_set_cm_id(ctx, cm_id);
	cm_id->context = ctx;
	/* public for device removal; the reserved slot needs no memory */
	xa_store(&ucma_ctx_xa, ctx->id, ctx, GFP_KERNEL);
	ucma_queue_event(ev);
	return 0;

err_ctx:
	/* never had a kernel id: nothing to close, the rdma_cm destroys it */
	ucma_destroy_ctx(ctx);
err_backlog:
	atomic_inc(&listener->backlog);
	return -ENOMEM;
}

/* The rdma_cm_event_handler of every id; with the id's handler lock. */
static int ucma_event_handler(struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *event)
{
	struct ucma_ctx *ctx = cm_id->context;
	struct ucma_event *ev;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ucma_connect_request(cm_id, event);

	if (ctx->uid) {
		ev = ucma_alloc_event(ctx, cm_id, event);
		if (ev)
			ucma_queue_event(ev);
	}

	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		/*
		 * The id must go for the device to go, and the process may
		 * take its time: close it now.  A claimed context is being
		 * closed by its destroyer already.
		 */
		xa_lock(&ucma_ctx_xa);
		if (xa_load(&ucma_ctx_xa, ctx->id) == ctx)
			queue_work(system_unbound_wq, &ctx->close_work);
		xa_unlock(&ucma_ctx_xa);
	}
	return 0;
}

/* Free the unread events of a group that was left. */
static u32 ucma_purge_mc_events(struct ucma_mc *mc)
{
	struct ucma_ctx *ctx = mc->ctx;
	struct ucma_event *ev, *next;
	u32 reported;

	/* waits for a handler still delivering an event of the group */
	rdma_lock_handler(ctx->cm_id);
	mutex_lock(&ctx->file_mutex);
	mutex_lock(&ctx->file->mut);
	list_for_each_entry_safe(ev, next, &ctx->file->event_list, list) {
		if (ev->mc != mc)
			continue;
		list_del(&ev->list);
		kfree(ev);
	}
	reported = mc->events_reported;
	mutex_unlock(&ctx->file->mut);
	mutex_unlock(&ctx->file_mutex);
	rdma_unlock_handler(ctx->cm_id);
	return reported;
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

/*
 * Copy a command's structure from the @in_len bytes the user wrote for
 * it: a longer command is cut, the missing tail of a shorter one reads as
 * zero.  Nothing beyond @in_len is read.
 */
static int ucma_copy_cmd(void *cmd, size_t size, const char __user *inbuf,
			 size_t in_len)
{
	size_t len = min(size, in_len);

	if (copy_from_user(cmd, inbuf, len))
		return -EFAULT;
	memset((u8 *)cmd + len, 0, size - len);
	return 0;
}

/* Write @len bytes of response to the user's pointer @response. */
static int ucma_respond(u64 response, const void *resp, size_t len)
{
	if (copy_to_user(u64_to_user_ptr(response), resp, len))
		return -EFAULT;
	return 0;
}

static int ucma_cmd_create_id(struct ucma_file *file,
			      const char __user *inbuf, size_t in_len,
			      size_t out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct rdma_ucm_create_id cmd;
	enum ib_qp_type qp_type;
	struct rdma_cm_id *cm_id;
	struct ucma_ctx *ctx;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;

	switch (cmd.ps) {
	case RDMA_PS_TCP:
		qp_type = IB_QPT_RC;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		qp_type = IB_QPT_UD;
		break;
	case RDMA_PS_IB:
		qp_type = cmd.qp_type;
		break;
	default:
		return -EINVAL;
	}

	ctx = ucma_alloc_ctx(file);
	if (!ctx)
		return -ENOMEM;
	ctx->uid = cmd.uid;
	cm_id = rdma_create_user_id(ucma_event_handler, ctx, cmd.ps, qp_type);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto err;
	}
	ucma_set_cm_id(ctx, cm_id);

	resp.id = ctx->id;
	ret = ucma_respond(cmd.response, &resp, sizeof(resp));
	if (ret)
		goto err;

	mutex_lock(&file->mut);
	list_add_tail(&ctx->list, &file->ctx_list);
	xa_store(&ucma_ctx_xa, ctx->id, ctx, GFP_KERNEL);
	mutex_unlock(&file->mut);
	return 0;

err:
	ucma_destroy_ctx(ctx);
	return ret;
}

static int ucma_cmd_destroy_id(struct ucma_file *file,
			       const char __user *inbuf, size_t in_len,
			       size_t out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct ucma_ctx *ctx;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;

	xa_lock(&ucma_ctx_xa);
	ctx = ucma_find_ctx(file, cmd.id);
	if (!IS_ERR(ctx) &&
	    __xa_cmpxchg(&ucma_ctx_xa, ctx->id, ctx, XA_ZERO_ENTRY,
			 GFP_KERNEL) != ctx)
		ctx = ERR_PTR(-ENOENT);
	xa_unlock(&ucma_ctx_xa);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	/* waits for the commands on the id and for its event handler */
	resp.events_reported = ucma_destroy_ctx(ctx);
	return ucma_respond(cmd.response, &resp, sizeof(resp));
}

static int ucma_cmd_bind_ip(struct ucma_file *file, const char __user *inbuf,
			    size_t in_len, size_t out_len)
{
	struct rdma_ucm_bind_ip cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	if (!rdma_addr_size_in6(&cmd.addr))
		return -EINVAL;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_bind_addr(ctx->cm_id, (struct sockaddr *)&cmd.addr);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_bind(struct ucma_file *file, const char __user *inbuf,
			 size_t in_len, size_t out_len)
{
	struct rdma_ucm_bind cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	if (cmd.reserved || !cmd.addr_size ||
	    cmd.addr_size != rdma_addr_size_kss(&cmd.addr))
		return -EINVAL;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_bind_addr(ctx->cm_id, (struct sockaddr *)&cmd.addr);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_resolve(struct ucma_file *file, u32 id,
			struct sockaddr *src, struct sockaddr *dst,
			u32 timeout_ms)
{
	struct ucma_ctx *ctx;
	int ret;

	ctx = ucma_get_ctx(file, id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_resolve_addr(ctx->cm_id, src, dst, timeout_ms);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_resolve_ip(struct ucma_file *file,
			       const char __user *inbuf, size_t in_len,
			       size_t out_len)
{
	struct rdma_ucm_resolve_ip cmd;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	/* no source address is family 0 */
	if ((cmd.src_addr.sin6_family && !rdma_addr_size_in6(&cmd.src_addr)) ||
	    !rdma_addr_size_in6(&cmd.dst_addr))
		return -EINVAL;
	return ucma_resolve(file, cmd.id, (struct sockaddr *)&cmd.src_addr,
			    (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

static int ucma_cmd_resolve_addr(struct ucma_file *file,
				 const char __user *inbuf, size_t in_len,
				 size_t out_len)
{
	struct rdma_ucm_resolve_addr cmd;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	if (cmd.reserved ||
	    (cmd.src_size && cmd.src_size != rdma_addr_size_kss(&cmd.src_addr)) ||
	    !cmd.dst_size || cmd.dst_size != rdma_addr_size_kss(&cmd.dst_addr))
		return -EINVAL;
	return ucma_resolve(file, cmd.id, (struct sockaddr *)&cmd.src_addr,
			    (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

static int ucma_cmd_resolve_route(struct ucma_file *file,
				  const char __user *inbuf, size_t in_len,
				  size_t out_len)
{
	struct rdma_ucm_resolve_route cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_resolve_route(ctx->cm_id, cmd.timeout_ms);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

/* The legacy address fields: only as much as a sockaddr_in6 holds. */
static void ucma_legacy_addr(struct sockaddr_in6 *dst,
			     const struct sockaddr_storage *src)
{
	memcpy(dst, src, src->ss_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
}

/* QUERY_ROUTE's paths, or without a path the GIDs and P_Key it would use */
static void ucma_route_to_user(struct rdma_ucm_query_route_resp *resp,
			       struct rdma_cm_id *cm_id)
{
	struct rdma_route *route = &cm_id->route;
	struct ib_user_path_rec *rec = &resp->ib_route[0];
	union ib_gid sgid = {}, dgid = {};
	int i;

	resp->num_paths = route->num_pri_alt_paths;
	if (route->num_pri_alt_paths == 1 || route->num_pri_alt_paths == 2) {
		for (i = 0; i < route->num_pri_alt_paths; i++)
			ib_copy_path_rec_to_user(&resp->ib_route[i],
						 &route->path_rec[i]);
		return;
	}
	if (route->num_pri_alt_paths)
		return;

	if (rdma_port_get_link_layer(cm_id->device, cm_id->port_num) ==
	    IB_LINK_LAYER_ETHERNET) {
		rdma_ip2gid((struct sockaddr *)&route->addr.src_addr, &sgid);
		rdma_ip2gid((struct sockaddr *)&route->addr.dst_addr, &dgid);
		rec->pkey = cpu_to_be16(0xffff);
	} else {
		rdma_addr_get_sgid(&route->addr.dev_addr, &sgid);
		rdma_addr_get_dgid(&route->addr.dev_addr, &dgid);
		rec->pkey = cpu_to_be16(ib_addr_get_pkey(&route->addr.dev_addr));
	}
	memcpy(rec->sgid, sgid.raw, sizeof(rec->sgid));
	memcpy(rec->dgid, dgid.raw, sizeof(rec->dgid));
}

static int ucma_cmd_query_route(struct ucma_file *file,
				const char __user *inbuf, size_t in_len,
				size_t out_len)
{
	struct rdma_ucm_query_route_resp resp = {};
	struct rdma_ucm_query cmd;
	struct rdma_cm_id *cm_id;
	struct ucma_ctx *ctx;
	int ret;

	/* older librdmacm has no ibdev_index */
	if (out_len < offsetof(struct rdma_ucm_query_route_resp, ibdev_index))
		return -ENOSPC;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	mutex_lock(&ctx->mutex);
	cm_id = ctx->cm_id;
	ucma_legacy_addr(&resp.src_addr, &cm_id->route.addr.src_addr);
	ucma_legacy_addr(&resp.dst_addr, &cm_id->route.addr.dst_addr);
	if (cm_id->device) {
		resp.node_guid = (__force u64)cm_id->device->node_guid;
		resp.ibdev_index = cm_id->device->index;
		resp.port_num = cm_id->port_num;
		ucma_route_to_user(&resp, cm_id);
	}
	mutex_unlock(&ctx->mutex);

	ret = ucma_respond(cmd.response, &resp, min(out_len, sizeof(resp)));
	ucma_put_ctx(ctx);
	return ret;
}

/* The device side of QUERY ADDR and GID, if the id is bound to one. */
static void ucma_device_to_user(struct rdma_ucm_query_addr_resp *resp,
				struct rdma_cm_id *cm_id)
{
	if (!cm_id->device)
		return;
	resp->node_guid = (__force u64)cm_id->device->node_guid;
	resp->ibdev_index = cm_id->device->index;
	resp->port_num = cm_id->port_num;
	resp->pkey = (__force u16)
		cpu_to_be16(ib_addr_get_pkey(&cm_id->route.addr.dev_addr));
}

static int ucma_query_addr(struct rdma_cm_id *cm_id, void __user *response,
			   size_t out_len)
{
	struct sockaddr *src = (struct sockaddr *)&cm_id->route.addr.src_addr;
	struct sockaddr *dst = (struct sockaddr *)&cm_id->route.addr.dst_addr;
	struct rdma_ucm_query_addr_resp resp = {};

	if (out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return -ENOSPC;
	resp.src_size = rdma_addr_size(src);
	memcpy(&resp.src_addr, src, resp.src_size);
	resp.dst_size = rdma_addr_size(dst);
	memcpy(&resp.dst_addr, dst, resp.dst_size);
	ucma_device_to_user(&resp, cm_id);
	if (copy_to_user(response, &resp, min(out_len, sizeof(resp))))
		return -EFAULT;
	return 0;
}

/* The id's paths in wire format, as many as fit in @out_len. */
static int ucma_query_path(struct rdma_cm_id *cm_id, void __user *response,
			   size_t out_len)
{
	struct rdma_ucm_query_path_resp *resp;
	size_t fit, n, i, len;
	int ret = 0;

	if (out_len < sizeof(*resp))
		return -ENOSPC;
	fit = (out_len - sizeof(*resp)) / sizeof(struct ib_path_rec_data);
	n = min_t(size_t, max(cm_id->route.num_pri_alt_paths, 0), fit);
	len = struct_size(resp, path_data, n);
	resp = kzalloc(len, GFP_KERNEL);
	if (!resp)
		return -ENOMEM;

	resp->num_paths = cm_id->route.num_pri_alt_paths;
	for (i = 0; i < n; i++) {
		resp->path_data[i].flags = IB_PATH_GMP | IB_PATH_PRIMARY |
					   IB_PATH_BIDIRECTIONAL;
		ib_sa_pack_path(&cm_id->route.path_rec[i],
				resp->path_data[i].path_rec);
	}
	if (copy_to_user(response, resp, len))
		ret = -EFAULT;
	kfree(resp);
	return ret;
}

/*
 * One end of the id as an AF_IB address: itself if it is one, else its
 * GID, the P_Key and the service ID of the IP address and port.
 */
static void ucma_addr_to_ib(struct sockaddr_ib *sib, struct rdma_cm_id *cm_id,
			    struct sockaddr_storage *addr, bool src,
			    __be16 pkey)
{
	union ib_gid gid;

	if (addr->ss_family == AF_IB) {
		memcpy(sib, addr, sizeof(*sib));
		return;
	}
	sib->sib_family = AF_IB;
	sib->sib_pkey = pkey;
	if (src)
		rdma_read_gids(cm_id, &gid, NULL);
	else
		rdma_read_gids(cm_id, NULL, &gid);
	memcpy(sib->sib_addr.sib_raw, gid.raw, sizeof(gid.raw));
	sib->sib_sid = rdma_get_service_id(cm_id, (struct sockaddr *)addr);
}

static int ucma_query_gid(struct rdma_cm_id *cm_id, void __user *response,
			  size_t out_len)
{
	struct rdma_ucm_query_addr_resp resp = {};
	__be16 pkey;

	if (out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return -ENOSPC;
	ucma_device_to_user(&resp, cm_id);
	pkey = (__force __be16)resp.pkey;
	resp.src_size = sizeof(struct sockaddr_ib);
	ucma_addr_to_ib((struct sockaddr_ib *)&resp.src_addr, cm_id,
			&cm_id->route.addr.src_addr, true, pkey);
	resp.dst_size = sizeof(struct sockaddr_ib);
	ucma_addr_to_ib((struct sockaddr_ib *)&resp.dst_addr, cm_id,
			&cm_id->route.addr.dst_addr, false, pkey);
	if (copy_to_user(response, &resp, min(out_len, sizeof(resp))))
		return -EFAULT;
	return 0;
}

static int ucma_cmd_query(struct ucma_file *file, const char __user *inbuf,
			  size_t in_len, size_t out_len)
{
	struct rdma_ucm_query cmd;
	void __user *response;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	response = u64_to_user_ptr(cmd.response);
	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	mutex_lock(&ctx->mutex);
	switch (cmd.option) {
	case RDMA_USER_CM_QUERY_ADDR:
		ret = ucma_query_addr(ctx->cm_id, response, out_len);
		break;
	case RDMA_USER_CM_QUERY_PATH:
		ret = ucma_query_path(ctx->cm_id, response, out_len);
		break;
	case RDMA_USER_CM_QUERY_GID:
		ret = ucma_query_gid(ctx->cm_id, response, out_len);
		break;
	default:
		ret = UCMA_UNKNOWN;
		break;
	}
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

/*
 * The user's connection parameters; the private data stays in @src.  The
 * QP number is 24 bits; the Q_Key counts only on AF_IB ids (UD).
 */
static void ucma_conn_param_from_user(struct rdma_conn_param *dst,
				      const struct rdma_ucm_conn_param *src,
				      struct rdma_cm_id *cm_id)
{
	memset(dst, 0, sizeof(*dst));
	dst->private_data = src->private_data;
	dst->private_data_len = src->private_data_len;
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
	dst->srq = src->srq;
	dst->qp_num = src->qp_num & 0xffffff;
	if (cm_id->route.addr.src_addr.ss_family == AF_IB)
		dst->qkey = src->qkey;
}

static int ucma_cmd_connect(struct ucma_file *file, const char __user *inbuf,
			    size_t in_len, size_t out_len)
{
	struct rdma_conn_param param;
	struct rdma_ucm_connect cmd;
	struct ucma_ctx *ctx;
	int ret;

	/* ece is newer: a command without it is fine */
	if (in_len < offsetofend(struct rdma_ucm_connect, reserved))
		return -EINVAL;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	if (!cmd.conn_param.valid)
		return -EINVAL;

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ucma_conn_param_from_user(&param, &cmd.conn_param, ctx->cm_id);
	mutex_lock(&ctx->mutex);
	ret = rdma_connect_ece(ctx->cm_id, &param, &cmd.ece);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_listen(struct ucma_file *file, const char __user *inbuf,
			   size_t in_len, size_t out_len)
{
	unsigned int max_backlog = READ_ONCE(ucma_max_backlog);
	struct rdma_ucm_listen cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	if (!cmd.backlog || cmd.backlog > max_backlog)
		cmd.backlog = max_backlog;
	atomic_set(&ctx->backlog, cmd.backlog);
	mutex_lock(&ctx->mutex);
	ret = rdma_listen(ctx->cm_id, cmd.backlog);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

/*
 * ACCEPT: on the passive side (conn_param.valid) the reply to a
 * CONNECT_REQUEST, which also gives the new id its uid; on the active
 * side, after CONNECT_RESPONSE, the RTU (no parameters).
 */
static int ucma_cmd_accept(struct ucma_file *file, const char __user *inbuf,
			   size_t in_len, size_t out_len)
{
	struct rdma_conn_param param;
	struct rdma_ucm_accept cmd;
	struct ucma_ctx *ctx;
	int ret;

	if (in_len < offsetofend(struct rdma_ucm_accept, reserved))
		return -EINVAL;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	mutex_lock(&ctx->mutex);
	rdma_lock_handler(ctx->cm_id);
	if (cmd.conn_param.valid) {
		ucma_conn_param_from_user(&param, &cmd.conn_param, ctx->cm_id);
		ret = rdma_accept_ece(ctx->cm_id, &param, &cmd.ece);
		/* with the handler lock: its events carry the uid from now */
		if (!ret)
			ctx->uid = cmd.uid;
	} else {
		ret = rdma_accept_ece(ctx->cm_id, NULL, &cmd.ece);
	}
	rdma_unlock_handler(ctx->cm_id);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_reject(struct ucma_file *file, const char __user *inbuf,
			   size_t in_len, size_t out_len)
{
	struct rdma_ucm_reject cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	/* a process may only reject as a consumer */
	if (!cmd.reason)
		cmd.reason = IB_CM_REJ_CONSUMER_DEFINED;
	if (cmd.reason != IB_CM_REJ_CONSUMER_DEFINED &&
	    cmd.reason != IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return -EINVAL;

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_reject(ctx->cm_id, cmd.private_data, cmd.private_data_len,
			  cmd.reason);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_disconnect(struct ucma_file *file,
			       const char __user *inbuf, size_t in_len,
			       size_t out_len)
{
	struct rdma_ucm_disconnect cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_disconnect(ctx->cm_id);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_init_qp_attr(struct ucma_file *file,
				 const char __user *inbuf, size_t in_len,
				 size_t out_len)
{
	struct rdma_ucm_init_qp_attr cmd;
	struct ib_uverbs_qp_attr resp;
	struct ib_qp_attr attr = {};
	struct ucma_ctx *ctx;
	int mask = 0;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	if (cmd.qp_state > IB_QPS_ERR)
		return -EINVAL;
	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	attr.qp_state = cmd.qp_state;
	mutex_lock(&ctx->mutex);
	ret = rdma_init_qp_attr(ctx->cm_id, &attr, &mask);
	mutex_unlock(&ctx->mutex);
	if (!ret) {
		resp.qp_attr_mask = mask;
		ib_copy_qp_attr_to_user(&resp, &attr);
		ret = ucma_respond(cmd.response, &resp, sizeof(resp));
	}
	ucma_put_ctx(ctx);
	return ret;
}

/* SET_OPTION level RDMA_OPTION_ID; with the context's mutex. */
static int ucma_set_option_id(struct ucma_ctx *ctx, u32 optname,
			      const void *optval, size_t optlen)
{
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(u8))
			return -EINVAL;
		rdma_set_service_type(ctx->cm_id, *(const u8 *)optval);
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if (optlen != sizeof(int))
			return -EINVAL;
		return rdma_set_reuseaddr(ctx->cm_id,
					  *(const int *)optval ? 1 : 0);
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			return -EINVAL;
		return rdma_set_afonly(ctx->cm_id, *(const int *)optval ? 1 : 0);
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(u8))
			return -EINVAL;
		return rdma_set_ack_timeout(ctx->cm_id, *(const u8 *)optval);
	default:
		return UCMA_UNKNOWN;
	}
}

/*
 * RDMA_OPTION_IB_PATH: a route the process resolved itself (through
 * ibacm), as an array of struct ib_path_rec_data of which the first
 * bidirectional primary GMP path counts.  The id then has its route as if
 * RESOLVE_ROUTE had found it, and gets a ROUTE_RESOLVED event.
 */
static int ucma_set_ib_path(struct ucma_ctx *ctx, const void *optval,
			    size_t optlen)
{
	const u32 wanted = IB_PATH_GMP | IB_PATH_PRIMARY |
			   IB_PATH_BIDIRECTIONAL;
	const struct ib_path_rec_data *data = optval;
	struct rdma_cm_event event = {};
	struct sa_path_rec rec;
	size_t i, n;
	int ret;

	if (optlen % sizeof(*data))
		return -EINVAL;
	n = optlen / sizeof(*data);
	for (i = 0; i < n; i++)
		if (data[i].flags == wanted)
			break;
	if (i == n)
		return -EINVAL;
	if (!ctx->cm_id->device)
		return -EINVAL;

	ib_sa_unpack_path((void *)data[i].path_rec, &rec);
	mutex_lock(&ctx->mutex);
	ret = rdma_set_ib_path(ctx->cm_id, &rec);
	mutex_unlock(&ctx->mutex);
	if (ret)
		return ret;

	event.event = RDMA_CM_EVENT_ROUTE_RESOLVED;
	rdma_lock_handler(ctx->cm_id);
	ret = ucma_event_handler(ctx->cm_id, &event);
	rdma_unlock_handler(ctx->cm_id);
	return ret;
}

static int ucma_cmd_set_option(struct ucma_file *file,
			       const char __user *inbuf, size_t in_len,
			       size_t out_len)
{
	struct rdma_ucm_set_option cmd;
	struct ucma_ctx *ctx;
	void *optval;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	if (cmd.optlen > KMALLOC_MAX_SIZE)
		return -EINVAL;
	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	optval = memdup_user(u64_to_user_ptr(cmd.optval), cmd.optlen);
	if (IS_ERR(optval)) {
		ret = PTR_ERR(optval);
		goto out;
	}
	switch (cmd.level) {
	case RDMA_OPTION_ID:
		mutex_lock(&ctx->mutex);
		ret = ucma_set_option_id(ctx, cmd.optname, optval, cmd.optlen);
		mutex_unlock(&ctx->mutex);
		break;
	case RDMA_OPTION_IB:
		if (cmd.optname == RDMA_OPTION_IB_PATH)
			ret = ucma_set_ib_path(ctx, optval, cmd.optlen);
		else
			ret = UCMA_UNKNOWN;
		break;
	default:
		ret = UCMA_UNKNOWN;
		break;
	}
	kfree(optval);
out:
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_notify(struct ucma_file *file, const char __user *inbuf,
			   size_t in_len, size_t out_len)
{
	struct rdma_ucm_notify cmd;
	struct ucma_ctx *ctx;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	if (ctx->cm_id->device)
		ret = rdma_notify(ctx->cm_id, (enum ib_event_type)cmd.event);
	else
		ret = -EINVAL;
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

/* JOIN_IP_MCAST and JOIN_MCAST, the former in the latter's form. */
static int ucma_join(struct ucma_file *file,
		     const struct rdma_ucm_join_mcast *cmd, size_t out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct ucma_ctx *ctx;
	struct ucma_mc *mc;
	u8 join_state;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (cmd->addr_size != rdma_addr_size((struct sockaddr *)&cmd->addr))
		return -EINVAL;
	switch (cmd->join_flags) {
	case RDMA_MC_JOIN_FLAG_FULLMEMBER:
		join_state = BIT(FULLMEMBER_JOIN);
		break;
	case RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER:
		join_state = BIT(SENDONLY_FULLMEMBER_JOIN);
		break;
	default:
		return -EINVAL;
	}

	ctx = ucma_get_ctx_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc) {
		ret = -ENOMEM;
		goto err_put;
	}
	mc->ctx = ctx;
	mc->uid = cmd->uid;
	memcpy(&mc->addr, &cmd->addr, cmd->addr_size);

	/* a reserved number: LEAVE_MCAST finds nothing until it works */
	xa_lock(&ucma_mc_xa);
	ret = __xa_alloc(&ucma_mc_xa, &mc->id, NULL, xa_limit_32b, GFP_KERNEL);
	if (!ret)
		list_add_tail(&mc->list, &ctx->mc_list);
	xa_unlock(&ucma_mc_xa);
	if (ret)
		goto err_free;

	mutex_lock(&ctx->mutex);
	ret = rdma_join_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr,
				  join_state, mc);
	if (!ret) {
		resp.id = mc->id;
		ret = ucma_respond(cmd->response, &resp, sizeof(resp));
		if (ret)
			rdma_leave_multicast(ctx->cm_id,
					     (struct sockaddr *)&mc->addr);
	}
	mutex_unlock(&ctx->mutex);
	if (ret)
		goto err_erase;

	xa_store(&ucma_mc_xa, mc->id, mc, GFP_KERNEL);
	ucma_put_ctx(ctx);
	return 0;

err_erase:
	/* the join's events, if it was made */
	ucma_purge_mc_events(mc);
	xa_lock(&ucma_mc_xa);
	list_del(&mc->list);
	__xa_erase(&ucma_mc_xa, mc->id);
	xa_unlock(&ucma_mc_xa);
err_free:
	kfree(mc);
err_put:
	ucma_put_ctx(ctx);
	return ret;
}

static int ucma_cmd_join_ip_mcast(struct ucma_file *file,
				  const char __user *inbuf, size_t in_len,
				  size_t out_len)
{
	struct rdma_ucm_join_mcast join = {};
	struct rdma_ucm_join_ip_mcast cmd;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	join.addr_size = rdma_addr_size_in6(&cmd.addr);
	if (!join.addr_size)
		return -EINVAL;
	join.response = cmd.response;
	join.uid = cmd.uid;
	join.id = cmd.id;
	join.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	memcpy(&join.addr, &cmd.addr, join.addr_size);
	return ucma_join(file, &join, out_len);
}

static int ucma_cmd_join_mcast(struct ucma_file *file,
			       const char __user *inbuf, size_t in_len,
			       size_t out_len)
{
	struct rdma_ucm_join_mcast cmd;
	int ret;

	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;
	if (!rdma_addr_size_kss(&cmd.addr))
		return -EINVAL;
	return ucma_join(file, &cmd, out_len);
}

static int ucma_cmd_leave_mcast(struct ucma_file *file,
				const char __user *inbuf, size_t in_len,
				size_t out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct ucma_ctx *ctx;
	struct ucma_mc *mc;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;

	xa_lock(&ucma_mc_xa);
	mc = xa_load(&ucma_mc_xa, cmd.id);
	if (!mc) {
		ret = -ENOENT;
	} else if (READ_ONCE(mc->ctx->file) != file) {
		ret = -EINVAL;
	} else if (!refcount_inc_not_zero(&mc->ctx->ref)) {
		ret = -ENXIO;
	} else {
		list_del(&mc->list);
		__xa_erase(&ucma_mc_xa, mc->id);
	}
	xa_unlock(&ucma_mc_xa);
	if (ret)
		return ret;

	ctx = mc->ctx;
	mutex_lock(&ctx->mutex);
	rdma_leave_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr);
	mutex_unlock(&ctx->mutex);
	resp.events_reported = ucma_purge_mc_events(mc);
	ucma_put_ctx(ctx);
	kfree(mc);
	return ucma_respond(cmd.response, &resp, sizeof(resp));
}

/*
 * MIGRATE_ID: move an id of the rdma_cm file open as cmd.fd to this file,
 * with its unread events.
 */
static int ucma_cmd_migrate_id(struct ucma_file *new_file,
			       const char __user *inbuf, size_t in_len,
			       size_t out_len)
{
	struct rdma_ucm_migrate_resp resp = {};
	struct rdma_ucm_migrate_id cmd;
	struct ucma_event *ev, *next;
	struct ucma_file *cur_file;
	struct ucma_ctx *ctx;
	LIST_HEAD(moved);
	struct fd f;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;

	/* holds the old file open while its id moves */
	f = fdget(cmd.fd);
	if (!f.file)
		return -ENOENT;
	if (f.file->f_op != &ucma_fops) {
		ret = -EINVAL;
		goto out_fd;
	}
	cur_file = f.file->private_data;
	ctx = ucma_get_ctx(cur_file, cmd.id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_fd;
	}

	/*
	 * No event of the id is queued while it moves.  (Its handler lock
	 * would not do: the CONNECT_REQUESTs of a wildcard listener come
	 * through the rdma_cm's internal ids, with their handler locks.)
	 */
	mutex_lock(&ctx->file_mutex);
	xa_lock(&ucma_ctx_xa);
	if (ucma_find_ctx(cur_file, cmd.id) != ctx) {
		/* claimed by a destroyer meanwhile */
		xa_unlock(&ucma_ctx_xa);
		ret = -ENOENT;
		goto out_unlock;
	}
	ctx->file = new_file;
	xa_unlock(&ucma_ctx_xa);

	mutex_lock(&cur_file->mut);
	list_del(&ctx->list);
	list_for_each_entry_safe(ev, next, &cur_file->event_list, list)
		if (ev->ctx == ctx)
			list_move_tail(&ev->list, &moved);
	resp.events_reported = ctx->events_reported;
	mutex_unlock(&cur_file->mut);

	mutex_lock(&new_file->mut);
	list_add_tail(&ctx->list, &new_file->ctx_list);
	list_splice_tail(&moved, &new_file->event_list);
	mutex_unlock(&new_file->mut);
	wake_up_interruptible(&new_file->poll_wait);

	ret = ucma_respond(cmd.response, &resp, sizeof(resp));
out_unlock:
	mutex_unlock(&ctx->file_mutex);
	ucma_put_ctx(ctx);
out_fd:
	fdput(f);
	return ret;
}

/*
 * GET_EVENT: the oldest event, waiting for one unless the file is
 * non-blocking.  Reading a CONNECT_REQUEST gives its new id to this file
 * and makes room in the listener's backlog.
 */
static int ucma_cmd_get_event(struct ucma_file *file,
			      const char __user *inbuf, size_t in_len,
			      size_t out_len)
{
	struct rdma_ucm_get_event cmd;
	struct ucma_event *ev;
	int ret;

	/* older 32-bit librdmacm asks for neither reserved nor ece */
	if (out_len < offsetof(struct rdma_ucm_event_resp, reserved))
		return -ENOSPC;
	ret = ucma_copy_cmd(&cmd, sizeof(cmd), inbuf, in_len);
	if (ret)
		return ret;

	mutex_lock(&file->mut);
	while (list_empty(&file->event_list)) {
		mutex_unlock(&file->mut);
		if (file->filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->poll_wait,
					     !list_empty(&file->event_list)))
			return -ERESTARTSYS;
		mutex_lock(&file->mut);
	}
	ev = list_first_entry(&file->event_list, struct ucma_event, list);
	ret = ucma_respond(cmd.response, &ev->resp,
			   min(out_len, sizeof(ev->resp)));
	if (ret) {
		/* it stays first for the next GET_EVENT */
		mutex_unlock(&file->mut);
		return ret;
	}
	list_del(&ev->list);
	ev->ctx->events_reported++;
	if (ev->mc)
		ev->mc->events_reported++;
	if (ev->new_ctx) {
		xa_lock(&ucma_ctx_xa);
		ev->new_ctx->file = file;
		xa_unlock(&ucma_ctx_xa);
		list_add_tail(&ev->new_ctx->list, &file->ctx_list);
		atomic_inc(&ev->ctx->backlog);
	}
	mutex_unlock(&file->mut);
	kfree(ev);
	return 0;
}

typedef int (*ucma_cmd_fn)(struct ucma_file *file, const char __user *inbuf,
			   size_t in_len, size_t out_len);

/* GET_OPTION has no handler (-ENOSYS), as upstream. */
static const ucma_cmd_fn ucma_cmds[] = {
	[RDMA_USER_CM_CMD_CREATE_ID]		= ucma_cmd_create_id,
	[RDMA_USER_CM_CMD_DESTROY_ID]		= ucma_cmd_destroy_id,
	[RDMA_USER_CM_CMD_BIND_IP]		= ucma_cmd_bind_ip,
	[RDMA_USER_CM_CMD_RESOLVE_IP]		= ucma_cmd_resolve_ip,
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE]	= ucma_cmd_resolve_route,
	[RDMA_USER_CM_CMD_QUERY_ROUTE]		= ucma_cmd_query_route,
	[RDMA_USER_CM_CMD_CONNECT]		= ucma_cmd_connect,
	[RDMA_USER_CM_CMD_LISTEN]		= ucma_cmd_listen,
	[RDMA_USER_CM_CMD_ACCEPT]		= ucma_cmd_accept,
	[RDMA_USER_CM_CMD_REJECT]		= ucma_cmd_reject,
	[RDMA_USER_CM_CMD_DISCONNECT]		= ucma_cmd_disconnect,
	[RDMA_USER_CM_CMD_INIT_QP_ATTR]		= ucma_cmd_init_qp_attr,
	[RDMA_USER_CM_CMD_GET_EVENT]		= ucma_cmd_get_event,
	[RDMA_USER_CM_CMD_SET_OPTION]		= ucma_cmd_set_option,
	[RDMA_USER_CM_CMD_NOTIFY]		= ucma_cmd_notify,
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST]	= ucma_cmd_join_ip_mcast,
	[RDMA_USER_CM_CMD_LEAVE_MCAST]		= ucma_cmd_leave_mcast,
	[RDMA_USER_CM_CMD_MIGRATE_ID]		= ucma_cmd_migrate_id,
	[RDMA_USER_CM_CMD_QUERY]		= ucma_cmd_query,
	[RDMA_USER_CM_CMD_BIND]			= ucma_cmd_bind,
	[RDMA_USER_CM_CMD_RESOLVE_ADDR]		= ucma_cmd_resolve_addr,
	[RDMA_USER_CM_CMD_JOIN_MCAST]		= ucma_cmd_join_mcast,
};

/* ------------------------------------------------------------------ */
/* File operations                                                     */
/* ------------------------------------------------------------------ */

static ssize_t ucma_write(struct file *filp, const char __user *buf,
			  size_t len, loff_t *pos)
{
	struct ucma_file *file = filp->private_data;
	struct rdma_ucm_cmd_hdr hdr;
	ucma_cmd_fn fn;
	int ret;

	/* the opener's credentials must be the writer's, as upstream */
	if (filp->f_cred != current_cred()) {
		pr_err_once("process %d (%s) writes to an rdma_cm file opened with other credentials\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	if (len < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.cmd >= ARRAY_SIZE(ucma_cmds))
		return -EINVAL;
	hdr.cmd = array_index_nospec(hdr.cmd, ARRAY_SIZE(ucma_cmds));
	if (sizeof(hdr) + hdr.in > len)
		return -EINVAL;
	fn = ucma_cmds[hdr.cmd];
	if (!fn)
		return UCMA_UNKNOWN;

	ret = fn(file, buf + sizeof(hdr), hdr.in, hdr.out);
	if (ret)
		return ret;
	return len;
}

static __poll_t ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ucma_file *file = filp->private_data;

	poll_wait(filp, &file->poll_wait, wait);
	return list_empty(&file->event_list) ? 0 : EPOLLIN | EPOLLRDNORM;
}

static int ucma_open(struct inode *inode, struct file *filp)
{
	struct ucma_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	mutex_init(&file->mut);
	INIT_LIST_HEAD(&file->ctx_list);
	INIT_LIST_HEAD(&file->event_list);
	init_waitqueue_head(&file->poll_wait);
	file->filp = filp;
	filp->private_data = file;
	return stream_open(inode, filp);
}

/*
 * Destroy every id of the file and free every event.  No command runs on
 * the file any more, and only commands (GET_EVENT, MIGRATE_ID) add to its
 * list of contexts; the events of the file all belong to those contexts.
 */
static int ucma_close(struct inode *inode, struct file *filp)
{
	struct ucma_file *file = filp->private_data;
	struct ucma_event *ev, *next;
	struct ucma_ctx *ctx;

	for (;;) {
		mutex_lock(&file->mut);
		ctx = list_first_entry_or_null(&file->ctx_list, struct ucma_ctx,
					       list);
		mutex_unlock(&file->mut);
		if (!ctx)
			break;
		WARN_ON(!ucma_claim_ctx(ctx));
		ucma_destroy_ctx(ctx);
	}

	list_for_each_entry_safe(ev, next, &file->event_list, list) {
		WARN_ON_ONCE(1);
		list_del(&ev->list);
		kfree(ev);
	}
	mutex_destroy(&file->mut);
	kfree(file);
	return 0;
}

static const struct file_operations ucma_fops = {
	.owner = THIS_MODULE,
	.open = ucma_open,
	.release = ucma_close,
	.write = ucma_write,
	.poll = ucma_poll,
	.llseek = no_llseek,
};

/* ------------------------------------------------------------------ */
/* The device, the sysctl, the client                                  */
/* ------------------------------------------------------------------ */

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *ucma_misc_attrs[] = {
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ucma_misc);

static struct miscdevice ucma_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rdma_cm",
	.nodename = "infiniband/rdma_cm",
	.mode = 0666,
	.fops = &ucma_fops,
	.groups = ucma_misc_groups,
};

/* /proc/sys/net/rdma_ucm/max_backlog */
static struct ctl_table ucma_sysctl[] = {
	{
		.procname = "max_backlog",
		.data = &ucma_max_backlog,
		.maxlen = sizeof(ucma_max_backlog),
		.mode = 0644,
		.proc_handler = proc_douintvec_minmax,
		.extra1 = SYSCTL_ZERO,
		.extra2 = SYSCTL_INT_MAX,
	},
	{ }
};

static struct ctl_table_header *ucma_sysctl_hdr;

/* RDMA_NLDEV_CMD_GET_CHARDEV "rdma_cm", without a device. */
static int ucma_get_global_nl_info(struct ib_client_nl_info *res)
{
	res->abi = RDMA_USER_CM_ABI_VERSION;
	res->cdev = ucma_misc.this_device;
	return 0;
}

static struct ib_client ucma_client = {
	.name = "rdma_cm",
	.get_global_nl_info = ucma_get_global_nl_info,
};

static int __init ucma_init(void)
{
	int ret;

	ret = misc_register(&ucma_misc);
	if (ret)
		return ret;
	ucma_sysctl_hdr = register_net_sysctl(&init_net, "net/rdma_ucm",
					      ucma_sysctl);
	/* without CONFIG_SYSCTL there is nothing to register */
	if (IS_ENABLED(CONFIG_SYSCTL) && !ucma_sysctl_hdr) {
		pr_err("cannot register net/rdma_ucm sysctls\n");
		ret = -ENOMEM;
		goto err_misc;
	}
	ret = ib_register_client(&ucma_client);
	if (ret)
		goto err_sysctl;
	return 0;

err_sysctl:
	unregister_net_sysctl_table(ucma_sysctl_hdr);
err_misc:
	misc_deregister(&ucma_misc);
	return ret;
}

static void __exit ucma_exit(void)
{
	ib_unregister_client(&ucma_client);
	unregister_net_sysctl_table(ucma_sysctl_hdr);
	misc_deregister(&ucma_misc);
	WARN_ON(!xa_empty(&ucma_ctx_xa));
	WARN_ON(!xa_empty(&ucma_mc_xa));
}

module_init(ucma_init);
module_exit(ucma_exit);
