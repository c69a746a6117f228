// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The write() command ABI of /dev/infiniband/uverbsN.
 *
 * A write is one command: struct ib_uverbs_cmd_hdr, for extended commands
 * (IB_USER_VERBS_CMD_FLAG_EXTENDED) followed by struct
 * ib_uverbs_ex_cmd_hdr, then the core request, then the driver's request
 * data.  The sizes in the headers must agree with the write's length and
 * cover at least the core structures we know; responses go to the user
 * pointer in the request (extended: in the header), core response first,
 * the driver's after it.  The checks and errnos are upstream's, because
 * libibverbs relies on them: an inconsistent length is -EINVAL, a request
 * or response buffer smaller than the core structure -ENOSPC, an unknown
 * command -EOPNOTSUPP, flag bits other than EXTENDED -EINVAL.  A request
 * longer than ours must be zero beyond what we know (-EOPNOTSUPP
 * otherwise); a response buffer longer than ours is zero-filled.  Success
 * returns the whole length of the write.
 *
 * Beside the commands on the context, the device and PDs are their
 * methods of the verbs ioctl (see ioctl.h): the DEVICE object's
 * GET_CONTEXT, QUERY_PORT, QUERY_GID_ENTRY and QUERY_GID_TABLE, the
 * ASYNC_EVENT object's ALLOC, PD/DESTROY, and DEVICE/INVOKE_WRITE,
 * which runs a command of this file's table framed by the ioctl's
 * attributes instead of headers.
 *
 * Locking: a file's context and async event file are made under its
 * ctx_mutex (GET_CONTEXT, ASYNC_EVENT/ALLOC); every other command only
 * holds the objects it uses (handles.c's use counts) while it runs.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ioctl.h"

/**
 * struct uverbs_write_method - how a command is framed and executed
 * @handler: executes the command
 * @req_size: size of the core request, the minimum accepted
 * @resp_size: minimum size of the core response buffer
 * @has_udata: bytes after the core request/response are the driver's
 * @has_resp: the core request starts with the u64 response pointer
 *	(legacy commands)
 */
struct uverbs_write_method {
	int (*handler)(struct uverbs_cmd_ctx *ctx);
	u16 req_size;
	u16 resp_size;
	bool has_udata;
	bool has_resp;
};

/**
 * uverbs_request - read the core request of a command
 * @ctx: the command
 * @req: where to put it
 * @req_len: its size as we know it
 *
 * Shorter than @req_len: zero-extended; longer: the bytes we do not know
 * must be zero.
 *
 * Return: 0, -EFAULT, or -EOPNOTSUPP for non-zero unknown bytes.
 */
int uverbs_request(struct uverbs_cmd_ctx *ctx, void *req, size_t req_len)
{
	const u8 __user *extra;
	size_t left;
	u8 buf[32];
	size_t n;

	if (copy_from_user(req, ctx->inbuf, min(ctx->inlen, req_len)))
		return -EFAULT;
	if (ctx->inlen <= req_len) {
		memset(req + ctx->inlen, 0, req_len - ctx->inlen);
		return 0;
	}

	extra = ctx->inbuf + req_len;
	for (left = ctx->inlen - req_len; left; left -= n, extra += n) {
		n = min(left, sizeof(buf));
		if (copy_from_user(buf, extra, n))
			return -EFAULT;
		if (memchr_inv(buf, 0, n))
			return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * uverbs_response - write the core response of a command
 * @ctx: the command
 * @resp: the response
 * @resp_len: its size
 *
 * The rest of the user's core response buffer is zeroed.
 *
 * Return: 0 or -EFAULT.
 */
int uverbs_response(struct uverbs_cmd_ctx *ctx, const void *resp,
		    size_t resp_len)
{
	if (copy_to_user(ctx->outbuf, resp, min(ctx->outlen, resp_len)))
		return -EFAULT;
	if (ctx->outlen > resp_len &&
	    clear_user(ctx->outbuf + resp_len, ctx->outlen - resp_len))
		return -EFAULT;
	ctx->responded = true;
	return 0;
}

static struct ib_ucontext *uverbs_cmd_ucontext(struct uverbs_cmd_ctx *ctx)
{
	return uverbs_get_ucontext(ctx->ufile);
}

/* ------------------------------------------------------------------ */
/* Context and device                                                  */
/* ------------------------------------------------------------------ */

/**
 * uverbs_ucontext_alloc - create the user context of a file
 * @ufile: the file, with its ctx_mutex held
 * @ib_dev: its device
 * @udata: the driver's data of the command
 *
 * Shared by the GET_CONTEXT write command and method.  The context is
 * not visible to other commands until uverbs_ucontext_publish().
 *
 * Return: the context, or ERR_PTR(-EINVAL) if the file has (had) one, or
 * the driver's error.
 */
static struct ib_ucontext *uverbs_ucontext_alloc(struct ib_uverbs_file *ufile,
						 struct ib_device *ib_dev,
						 struct ib_udata *udata)
{
	struct ib_ucontext *uctx;

	lockdep_assert_held(&ufile->ctx_mutex);
	/* one context per file */
	if (ufile->ucontext || ufile->destroyed)
		return ERR_PTR(-EINVAL);
	uctx = ib_alloc_ucontext(ib_dev, udata);
	if (!IS_ERR(uctx))
		uctx->ufile = ufile;
	return uctx;
}

/**
 * uverbs_ucontext_publish - let commands use a new context
 * @ufile: the file, with its ctx_mutex held
 * @uctx: from uverbs_ucontext_alloc()
 */
static void uverbs_ucontext_publish(struct ib_uverbs_file *ufile,
				    struct ib_ucontext *uctx)
{
	lockdep_assert_held(&ufile->ctx_mutex);
	/* pairs with the acquire in uverbs_get_ucontext() */
	smp_store_release(&ufile->ucontext, uctx);
}

static int uverbs_cmd_get_context(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_get_context_resp resp = {};
	struct ib_uverbs_file *ufile = ctx->ufile;
	struct ib_uverbs_get_context cmd;
	struct uverbs_async_fd afd;
	struct ib_ucontext *uctx;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	mutex_lock(&ufile->ctx_mutex);
	uctx = uverbs_ucontext_alloc(ufile, ctx->ib_dev, &ctx->driver_udata);
	if (IS_ERR(uctx)) {
		ret = PTR_ERR(uctx);
		goto out_unlock;
	}
	ret = ib_uverbs_async_fd_create(ctx->ib_dev, &afd);
	if (ret)
		goto err_uctx;

	resp.async_fd = afd.fd;
	resp.num_comp_vectors = ctx->ib_dev->num_comp_vectors;
	ret = uverbs_response(ctx, &resp, sizeof(resp));
	if (ret)
		goto err_async;

	ib_uverbs_async_fd_install(ufile, &afd);
	uverbs_ucontext_publish(ufile, uctx);
	mutex_unlock(&ufile->ctx_mutex);
	return 0;

err_async:
	ib_uverbs_async_fd_abort(&afd);
err_uctx:
	ib_dealloc_ucontext(uctx);
out_unlock:
	mutex_unlock(&ufile->ctx_mutex);
	return ret;
}

/* The context without its async event file (ASYNC_EVENT/ALLOC makes it). */
static int uverbs_ioctl_get_context(struct uverbs_ioctl_call *call)
{
	u64 core_support = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
	u32 num_comp = call->ib_dev->num_comp_vectors;
	struct ib_uverbs_file *ufile = call->ufile;
	struct ib_ucontext *uctx;
	int ret;

	ret = ioa_copy_to(call, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
			  &num_comp, sizeof(num_comp), false);
	if (ret && ret != -ENOENT)
		return ret;
	ret = ioa_copy_to(call, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
			  &core_support, sizeof(core_support), false);
	if (ret && ret != -ENOENT)
		return ret;

	mutex_lock(&ufile->ctx_mutex);
	uctx = uverbs_ucontext_alloc(ufile, call->ib_dev, &call->driver_udata);
	if (IS_ERR(uctx)) {
		ret = PTR_ERR(uctx);
		goto out_unlock;
	}
	uverbs_ucontext_publish(ufile, uctx);
	ret = 0;
out_unlock:
	mutex_unlock(&ufile->ctx_mutex);
	return ret;
}

static const struct uverbs_ioa_spec uverbs_get_context_specs[] = {
	IOA_TYPE_OUT(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, u32,
		     IOA_OPTIONAL),
	IOA_TYPE_OUT(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, u64, IOA_OPTIONAL),
	IOA_UHW_IN,
	IOA_UHW_OUT,
};

/*
 * The async event file of the context.  Upstream lets a context have
 * several; here the one file is the context's (as the GET_CONTEXT write
 * command makes it): a second ALLOC fails with -EINVAL.
 */
static int uverbs_ioctl_async_event_alloc(struct uverbs_ioctl_call *call)
{
	struct ib_uverbs_file *ufile = call->ufile;
	struct uverbs_async_fd afd;
	int ret;

	mutex_lock(&ufile->ctx_mutex);
	if (!ufile->ucontext || ufile->async_file) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = ib_uverbs_async_fd_create(call->ib_dev, &afd);
	if (ret)
		goto out_unlock;
	ret = ioa_put_data(call, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE,
			   afd.fd);
	if (ret) {
		ib_uverbs_async_fd_abort(&afd);
		goto out_unlock;
	}
	ib_uverbs_async_fd_install(ufile, &afd);
out_unlock:
	mutex_unlock(&ufile->ctx_mutex);
	return ret;
}

static const struct uverbs_ioa_spec uverbs_async_event_alloc_specs[] = {
	IOA_OBJ(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, IOA_MANDATORY),
};

static void uverbs_fill_query_dev(struct ib_device *ib_dev,
				  const struct ib_device_attr *attr,
				  struct ib_uverbs_query_device_resp *resp)
{
	resp->fw_ver = attr->fw_ver;
	resp->node_guid = ib_dev->node_guid;
	resp->sys_image_guid = attr->sys_image_guid;
	resp->max_mr_size = attr->max_mr_size;
	resp->page_size_cap = attr->page_size_cap;
	resp->vendor_id = attr->vendor_id;
	resp->vendor_part_id = attr->vendor_part_id;
	resp->hw_ver = attr->hw_ver;
	resp->max_qp = attr->max_qp;
	resp->max_qp_wr = attr->max_qp_wr;
	resp->device_cap_flags = lower_32_bits(attr->device_cap_flags);
	resp->max_sge = min(attr->max_send_sge, attr->max_recv_sge);
	resp->max_sge_rd = attr->max_sge_rd;
	resp->max_cq = attr->max_cq;
	resp->max_cqe = attr->max_cqe;
	resp->max_mr = attr->max_mr;
	resp->max_pd = attr->max_pd;
	resp->max_qp_rd_atom = attr->max_qp_rd_atom;
	resp->max_ee_rd_atom = attr->max_ee_rd_atom;
	resp->max_res_rd_atom = attr->max_res_rd_atom;
	resp->max_qp_init_rd_atom = attr->max_qp_init_rd_atom;
	resp->max_ee_init_rd_atom = attr->max_ee_init_rd_atom;
	resp->atomic_cap = attr->atomic_cap;
	resp->max_ee = attr->max_ee;
	resp->max_rdd = attr->max_rdd;
	resp->max_mw = attr->max_mw;
	resp->max_raw_ipv6_qp = attr->max_raw_ipv6_qp;
	resp->max_raw_ethy_qp = attr->max_raw_ethy_qp;
	resp->max_mcast_grp = attr->max_mcast_grp;
	resp->max_mcast_qp_attach = attr->max_mcast_qp_attach;
	resp->max_total_mcast_qp_attach = attr->max_total_mcast_qp_attach;
	resp->max_ah = attr->max_ah;
	resp->max_srq = attr->max_srq;
	resp->max_srq_wr = attr->max_srq_wr;
	resp->max_srq_sge = attr->max_srq_sge;
	resp->max_pkeys = attr->max_pkeys;
	resp->local_ca_ack_delay = attr->local_ca_ack_delay;
	resp->phys_port_cnt = min_t(u32, rdma_end_port(ib_dev), U8_MAX);
}

static int uverbs_cmd_query_device(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_query_device_resp resp = {};
	struct ib_uverbs_query_device cmd;
	int ret;

	if (!uverbs_cmd_ucontext(ctx))
		return -EINVAL;
	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uverbs_fill_query_dev(ctx->ib_dev, &ctx->ib_dev->attrs, &resp);
	return uverbs_response(ctx, &resp, sizeof(resp));
}

static int uverbs_cmd_ex_query_device(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ib_device *ib_dev = ctx->ib_dev;
	struct ib_uverbs_ex_query_device cmd;
	struct ib_device_attr attr = {};
	int ret;

	if (!uverbs_cmd_ucontext(ctx))
		return -EINVAL;
	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;

	/* the driver sees (and may refuse) the command's driver data */
	if (ib_dev->ops->query_device) {
		ret = ib_dev->ops->query_device(ib_dev, &attr,
						&ctx->driver_udata);
		if (ret)
			return ret;
	} else {
		attr = ib_dev->attrs;
	}

	uverbs_fill_query_dev(ib_dev, &attr, &resp.base);
	/* no ODP, timestamps, RSS, TSO, tag matching, DM: those stay 0 */
	resp.device_cap_flags_ex = attr.device_cap_flags;
	resp.response_length = min(ctx->outlen, sizeof(resp));
	return uverbs_response(ctx, &resp, sizeof(resp));
}

/**
 * uverbs_query_port_resp - query a port for QUERY_PORT (command and method)
 * @ib_dev: the device
 * @port_num: the port, from the user
 * @resp: filled in (the caller zeroed it)
 * @attr: filled with the port's attributes, for the method's extension
 *
 * Return: 0, or -EINVAL for a port the device does not have.
 */
static int uverbs_query_port_resp(struct ib_device *ib_dev, u32 port_num,
				  struct ib_uverbs_query_port_resp *resp,
				  struct ib_port_attr *attr)
{
	u32 cap_flags;
	int ret;

	ret = ib_query_port(ib_dev, port_num, attr);
	if (ret)
		return ret;

	/* bit 26 of the IBA mask is reused to say "IP-based GIDs" */
	cap_flags = attr->port_cap_flags & ~(u32)IB_UVERBS_PCF_IP_BASED_GIDS;
	if (attr->ip_gids)
		cap_flags |= IB_UVERBS_PCF_IP_BASED_GIDS;
	resp->port_cap_flags = cap_flags;
	resp->max_msg_sz = attr->max_msg_sz;
	resp->bad_pkey_cntr = attr->bad_pkey_cntr;
	resp->qkey_viol_cntr = attr->qkey_viol_cntr;
	resp->gid_tbl_len = attr->gid_tbl_len;
	resp->pkey_tbl_len = attr->pkey_tbl_len;
	resp->lid = (u16)attr->lid;
	resp->sm_lid = (u16)attr->sm_lid;
	resp->state = attr->state;
	resp->max_mtu = attr->max_mtu;
	resp->active_mtu = attr->active_mtu;
	resp->lmc = attr->lmc;
	resp->max_vl_num = attr->max_vl_num;
	resp->sm_sl = attr->sm_sl;
	resp->subnet_timeout = attr->subnet_timeout;
	resp->init_type_reply = attr->init_type_reply;
	resp->active_width = attr->active_width;
	resp->active_speed = min_t(u16, attr->active_speed, IB_SPEED_NDR);
	resp->phys_state = attr->phys_state;
	resp->link_layer = rdma_port_get_link_layer(ib_dev, port_num);
	if (ib_port_immutable_read(ib_dev, port_num)->core_cap_flags &
	    RDMA_CORE_CAP_IB_GRH_REQUIRED)
		resp->flags |= IB_UVERBS_QPF_GRH_REQUIRED;
	return 0;
}

static int uverbs_cmd_query_port(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_query_port_resp resp = {};
	struct ib_uverbs_query_port cmd;
	struct ib_port_attr attr;
	int ret;

	if (!uverbs_cmd_ucontext(ctx))
		return -EINVAL;
	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	/* -EINVAL for a port the device does not have */
	ret = uverbs_query_port_resp(ctx->ib_dev, cmd.port_num, &resp, &attr);
	if (ret)
		return ret;
	return uverbs_response(ctx, &resp, sizeof(resp));
}

static int uverbs_ioctl_query_port(struct uverbs_ioctl_call *call)
{
	struct ib_uverbs_query_port_resp_ex resp = {};
	struct ib_port_attr attr = {};
	u64 port_num;
	int ret;

	if (!ioa_ucontext(call))
		return -EINVAL;
	ret = ioa_get_const(call, UVERBS_ATTR_QUERY_PORT_PORT_NUM, U8_MAX,
			    &port_num);
	if (ret)
		return ret;
	ret = uverbs_query_port_resp(call->ib_dev, port_num,
				     &resp.legacy_resp, &attr);
	if (ret)
		return ret;
	resp.port_cap_flags2 = attr.port_cap_flags2;
	return ioa_copy_to(call, UVERBS_ATTR_QUERY_PORT_RESP, &resp,
			   sizeof(resp), true);
}

static const struct uverbs_ioa_spec uverbs_query_port_specs[] = {
	IOA_CONST_IN(UVERBS_ATTR_QUERY_PORT_PORT_NUM, IOA_MANDATORY),
	IOA_STRUCT_OUT(UVERBS_ATTR_QUERY_PORT_RESP,
		       struct ib_uverbs_query_port_resp_ex, reserved,
		       IOA_MANDATORY),
};

/*
 * A GID table entry: -EINVAL beyond the table, -ENODATA for an empty
 * (all-zero) entry.  Every GID here is an InfiniBand one without a net
 * device.
 */
static int uverbs_gid_entry(struct ib_device *ib_dev, u32 port_num,
			    u32 index, struct ib_uverbs_gid_entry *entry)
{
	union ib_gid gid;

	if (index > INT_MAX || rdma_query_gid(ib_dev, port_num, index, &gid))
		return -EINVAL;
	if (!memchr_inv(gid.raw, 0, sizeof(gid.raw)))
		return -ENODATA;
	memset(entry, 0, sizeof(*entry));
	memcpy(entry->gid, gid.raw, sizeof(entry->gid));
	entry->gid_index = index;
	entry->port_num = port_num;
	entry->gid_type = IB_UVERBS_GID_TYPE_IB;
	return 0;
}

static int uverbs_ioctl_query_gid_entry(struct uverbs_ioctl_call *call)
{
	struct ib_uverbs_gid_entry entry;
	u64 port_num, index, flags;
	int ret;

	ret = ioa_get_flags(call, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0, &flags);
	if (ret)
		return ret;
	ret = ioa_get_const(call, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, U32_MAX,
			    &port_num);
	if (ret)
		return ret;
	ret = ioa_get_const(call, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX,
			    U32_MAX, &index);
	if (ret)
		return ret;
	if (!ioa_ucontext(call))
		return -EINVAL;
	if (!rdma_is_port_valid(call->ib_dev, port_num))
		return -EINVAL;

	ret = uverbs_gid_entry(call->ib_dev, port_num, index, &entry);
	if (ret)
		return ret;
	return ioa_copy_to(call, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, &entry,
			   sizeof(entry), true);
}

static const struct uverbs_ioa_spec uverbs_query_gid_entry_specs[] = {
	IOA_CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, IOA_MANDATORY),
	IOA_CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, IOA_MANDATORY),
	IOA_FLAGS_IN(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, IOA_MANDATORY),
	IOA_STRUCT_OUT(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
		       struct ib_uverbs_gid_entry, netdev_ifindex,
		       IOA_MANDATORY),
};

/*
 * Collect the non-empty GID entries of all ports into @entries (room for
 * @max).  Return: their number, or -EINVAL if there are more than @max.
 */
static ssize_t uverbs_gid_table(struct ib_device *ib_dev,
				struct ib_uverbs_gid_entry *entries,
				size_t max)
{
	struct ib_uverbs_gid_entry entry;
	size_t num = 0;
	u32 port_num;
	int len, i;

	for (port_num = rdma_start_port(ib_dev);
	     port_num <= rdma_end_port(ib_dev); port_num++) {
		len = ib_port_immutable_read(ib_dev, port_num)->gid_tbl_len;
		for (i = 0; i < len; i++) {
			if (uverbs_gid_entry(ib_dev, port_num, i, &entry))
				continue;
			if (num == max)
				return -EINVAL;
			entries[num++] = entry;
		}
	}
	return num;
}

static int uverbs_ioctl_query_gid_table(struct uverbs_ioctl_call *call)
{
	const struct ib_uverbs_attr *attr;
	struct ib_uverbs_gid_entry *entries;
	u64 entry_size, flags, num_entries;
	size_t max_entries, copy_len, i;
	u8 __user *to;
	u32 port_num;
	ssize_t num;
	int idx;
	int ret;

	ret = ioa_get_flags(call, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0, &flags);
	if (ret)
		return ret;
	ret = ioa_get_const(call, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
			    U64_MAX, &entry_size);
	if (ret)
		return ret;
	if (!entry_size)
		return -EINVAL;
	idx = ioa_index(call, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES);
	attr = &call->uattrs[idx];
	if (attr->len % entry_size)
		return -EINVAL;
	max_entries = attr->len / entry_size;
	if (!max_entries)
		return -EINVAL;
	if (!ioa_ucontext(call))
		return -EINVAL;

	/* no more than the tables hold can be reported */
	num = 0;
	for (port_num = rdma_start_port(call->ib_dev);
	     port_num <= rdma_end_port(call->ib_dev); port_num++)
		num += ib_port_immutable_read(call->ib_dev,
					      port_num)->gid_tbl_len;
	entries = kvcalloc(max_t(size_t, min_t(size_t, max_entries, num), 1),
			   sizeof(*entries), GFP_KERNEL);
	if (!entries)
		return -ENOMEM;

	num = uverbs_gid_table(call->ib_dev, entries, max_entries);
	if (num < 0) {
		ret = num;
		goto out_free;
	}

	to = u64_to_user_ptr(attr->data);
	copy_len = min_t(size_t, entry_size, sizeof(*entries));
	for (i = 0; i < num; i++, to += entry_size) {
		if (copy_to_user(to, &entries[i], copy_len) ||
		    (entry_size > copy_len &&
		     clear_user(to + copy_len, entry_size - copy_len))) {
			ret = -EFAULT;
			goto out_free;
		}
	}
	ret = ioa_set_output(call, idx);
	if (ret)
		goto out_free;
	num_entries = num;
	ret = ioa_copy_to(call, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
			  &num_entries, sizeof(num_entries), false);
out_free:
	kvfree(entries);
	return ret;
}

static const struct uverbs_ioa_spec uverbs_query_gid_table_specs[] = {
	IOA_CONST_IN(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, IOA_MANDATORY),
	IOA_FLAGS_IN(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, IOA_OPTIONAL),
	IOA_PTR_OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, 0, U16_MAX,
		    IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, u64,
		     IOA_MANDATORY),
};

/* ------------------------------------------------------------------ */
/* Protection domains                                                  */
/* ------------------------------------------------------------------ */

static int uverbs_cmd_alloc_pd(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_udata no_udata = {};
	struct ib_uverbs_alloc_pd cmd;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = uobj_alloc_begin(&uverbs_type_pd, ctx->ufile);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = ib_alloc_pd_user(uobj->context, uobj, &ctx->driver_udata);
	if (IS_ERR(pd)) {
		ret = PTR_ERR(pd);
		goto err_abort;
	}
	uobj->object = pd;

	resp.pd_handle = uobj->id;
	ret = uverbs_response(ctx, &resp, sizeof(resp));
	if (ret)
		goto err_pd;
	uobj_alloc_commit(uobj);
	return 0;

err_pd:
	WARN_ON(ib_dealloc_pd_user(pd, &no_udata));
err_abort:
	uobj_alloc_abort(uobj);
	return ret;
}

static int uverbs_cmd_dealloc_pd(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_dealloc_pd cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uobj_destroy(&uverbs_type_pd, ctx->ufile, cmd.pd_handle,
			    &ctx->driver_udata);
}

static int uverbs_ioctl_pd_destroy(struct uverbs_ioctl_call *call)
{
	return ioa_destroy(call, &uverbs_type_pd);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

#define UVERBS_CMD(_handler, _req, _resp, _udata)			\
	{								\
		.handler = _handler,					\
		.req_size = sizeof(struct _req),			\
		.resp_size = sizeof(struct _resp),			\
		.has_udata = _udata,					\
		.has_resp = true,					\
	}

/* A command without a response (and without the response pointer). */
#define UVERBS_CMD_NORESP(_handler, _req, _udata)			\
	{								\
		.handler = _handler,					\
		.req_size = sizeof(struct _req),			\
		.has_udata = _udata,					\
	}

static const struct uverbs_write_method uverbs_write_methods[] = {
	[IB_USER_VERBS_CMD_GET_CONTEXT] =
		UVERBS_CMD(uverbs_cmd_get_context, ib_uverbs_get_context,
			   ib_uverbs_get_context_resp, true),
	[IB_USER_VERBS_CMD_QUERY_DEVICE] =
		UVERBS_CMD(uverbs_cmd_query_device, ib_uverbs_query_device,
			   ib_uverbs_query_device_resp, false),
	[IB_USER_VERBS_CMD_QUERY_PORT] =
		UVERBS_CMD(uverbs_cmd_query_port, ib_uverbs_query_port,
			   ib_uverbs_query_port_resp, false),
	[IB_USER_VERBS_CMD_ALLOC_PD] =
		UVERBS_CMD(uverbs_cmd_alloc_pd, ib_uverbs_alloc_pd,
			   ib_uverbs_alloc_pd_resp, true),
	[IB_USER_VERBS_CMD_DEALLOC_PD] =
		UVERBS_CMD_NORESP(uverbs_cmd_dealloc_pd, ib_uverbs_dealloc_pd,
				  false),
	[IB_USER_VERBS_CMD_CREATE_AH] =
		UVERBS_CMD(uverbs_cmd_create_ah, ib_uverbs_create_ah,
			   ib_uverbs_create_ah_resp, true),
	[IB_USER_VERBS_CMD_DESTROY_AH] =
		UVERBS_CMD_NORESP(uverbs_cmd_destroy_ah, ib_uverbs_destroy_ah,
				  false),
	[IB_USER_VERBS_CMD_REG_MR] =
		UVERBS_CMD(uverbs_cmd_reg_mr, ib_uverbs_reg_mr,
			   ib_uverbs_reg_mr_resp, true),
	[IB_USER_VERBS_CMD_DEREG_MR] =
		UVERBS_CMD_NORESP(uverbs_cmd_dereg_mr, ib_uverbs_dereg_mr,
				  false),
	[IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] =
		UVERBS_CMD(uverbs_cmd_create_comp_channel,
			   ib_uverbs_create_comp_channel,
			   ib_uverbs_create_comp_channel_resp, false),
	[IB_USER_VERBS_CMD_CREATE_CQ] =
		UVERBS_CMD(uverbs_cmd_create_cq, ib_uverbs_create_cq,
			   ib_uverbs_create_cq_resp, true),
	[IB_USER_VERBS_CMD_DESTROY_CQ] =
		UVERBS_CMD(uverbs_cmd_destroy_cq, ib_uverbs_destroy_cq,
			   ib_uverbs_destroy_cq_resp, false),
	[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] =
		UVERBS_CMD_NORESP(uverbs_cmd_req_notify_cq,
				  ib_uverbs_req_notify_cq, false),
	[IB_USER_VERBS_CMD_CREATE_QP] =
		UVERBS_CMD(uverbs_cmd_create_qp, ib_uverbs_create_qp,
			   ib_uverbs_create_qp_resp, true),
	[IB_USER_VERBS_CMD_QUERY_QP] =
		UVERBS_CMD(uverbs_cmd_query_qp, ib_uverbs_query_qp,
			   ib_uverbs_query_qp_resp, false),
	[IB_USER_VERBS_CMD_MODIFY_QP] =
		UVERBS_CMD_NORESP(uverbs_cmd_modify_qp, ib_uverbs_modify_qp,
				  false),
	[IB_USER_VERBS_CMD_DESTROY_QP] =
		UVERBS_CMD(uverbs_cmd_destroy_qp, ib_uverbs_destroy_qp,
			   ib_uverbs_destroy_qp_resp, false),
	[IB_USER_VERBS_CMD_POST_SEND] =
		UVERBS_CMD(uverbs_cmd_post_send, ib_uverbs_post_send,
			   ib_uverbs_post_send_resp, false),
	[IB_USER_VERBS_CMD_POST_RECV] =
		UVERBS_CMD(uverbs_cmd_post_recv, ib_uverbs_post_recv,
			   ib_uverbs_post_recv_resp, false),
	[IB_USER_VERBS_CMD_ATTACH_MCAST] =
		UVERBS_CMD_NORESP(uverbs_cmd_attach_mcast,
				  ib_uverbs_attach_mcast, false),
	[IB_USER_VERBS_CMD_DETACH_MCAST] =
		UVERBS_CMD_NORESP(uverbs_cmd_detach_mcast,
				  ib_uverbs_detach_mcast, false),
	[IB_USER_VERBS_CMD_POST_SRQ_RECV] =
		UVERBS_CMD(uverbs_cmd_post_srq_recv, ib_uverbs_post_srq_recv,
			   ib_uverbs_post_srq_recv_resp, false),
	[IB_USER_VERBS_CMD_CREATE_SRQ] =
		UVERBS_CMD(uverbs_cmd_create_srq, ib_uverbs_create_srq,
			   ib_uverbs_create_srq_resp, true),
	[IB_USER_VERBS_CMD_MODIFY_SRQ] =
		UVERBS_CMD_NORESP(uverbs_cmd_modify_srq, ib_uverbs_modify_srq,
				  true),
	[IB_USER_VERBS_CMD_QUERY_SRQ] =
		UVERBS_CMD(uverbs_cmd_query_srq, ib_uverbs_query_srq,
			   ib_uverbs_query_srq_resp, false),
	[IB_USER_VERBS_CMD_DESTROY_SRQ] =
		UVERBS_CMD(uverbs_cmd_destroy_srq, ib_uverbs_destroy_srq,
			   ib_uverbs_destroy_srq_resp, false),
};

/*
 * Extended commands: minimum sizes as upstream's, up to the last member
 * an old userspace sends; the response minimum covers response_length.
 */
#define UVERBS_EX_CMD(_handler, _req, _req_last, _resp, _resp_last)	\
	{								\
		.handler = _handler,					\
		.req_size = offsetofend(struct _req, _req_last),	\
		.resp_size = offsetofend(struct _resp, _resp_last),	\
		.has_udata = true,					\
	}

static const struct uverbs_write_method uverbs_write_ex_methods[] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] =
		UVERBS_EX_CMD(uverbs_cmd_ex_query_device,
			      ib_uverbs_ex_query_device, reserved,
			      ib_uverbs_ex_query_device_resp,
			      response_length),
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] =
		UVERBS_EX_CMD(uverbs_cmd_ex_create_cq, ib_uverbs_ex_create_cq,
			      reserved, ib_uverbs_ex_create_cq_resp,
			      response_length),
	[IB_USER_VERBS_EX_CMD_CREATE_QP] =
		UVERBS_EX_CMD(uverbs_cmd_ex_create_qp, ib_uverbs_ex_create_qp,
			      comp_mask, ib_uverbs_ex_create_qp_resp,
			      response_length),
	[IB_USER_VERBS_EX_CMD_MODIFY_QP] =
		UVERBS_EX_CMD(uverbs_cmd_ex_modify_qp, ib_uverbs_ex_modify_qp,
			      base, ib_uverbs_ex_modify_qp_resp,
			      response_length),
};

/*
 * The method of a command number, for write() and INVOKE_WRITE alike:
 * ERR_PTR(-EINVAL) for bits other than the command and EXTENDED,
 * ERR_PTR(-EOPNOTSUPP) for a command we do not have.
 */
static const struct uverbs_write_method *uverbs_find_method(u32 command)
{
	u32 index = command & IB_USER_VERBS_CMD_COMMAND_MASK;
	const struct uverbs_write_method *method;

	if (command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			IB_USER_VERBS_CMD_COMMAND_MASK))
		return ERR_PTR(-EINVAL);
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		if (index >= ARRAY_SIZE(uverbs_write_ex_methods))
			return ERR_PTR(-EOPNOTSUPP);
		method = &uverbs_write_ex_methods[index];
	} else {
		if (index >= ARRAY_SIZE(uverbs_write_methods))
			return ERR_PTR(-EOPNOTSUPP);
		method = &uverbs_write_methods[index];
	}
	return method->handler ? method : ERR_PTR(-EOPNOTSUPP);
}

/* Frame a legacy command: sizes in 4-byte words, header included. */
static int uverbs_frame_legacy(struct uverbs_cmd_ctx *ctx,
			       const struct uverbs_write_method *method,
			       const struct ib_uverbs_cmd_hdr *hdr,
			       const char __user *buf, size_t count)
{
	size_t in_len, out_len;
	u64 response = 0;

	if ((size_t)hdr->in_words * 4 != count)
		return -EINVAL;
	if (count < sizeof(*hdr) + method->req_size)
		return -ENOSPC;
	if ((size_t)hdr->out_words * 4 < method->resp_size)
		return -ENOSPC;

	buf += sizeof(*hdr);
	in_len = count - sizeof(*hdr);
	out_len = (size_t)hdr->out_words * 4;
	if (method->has_resp &&
	    copy_from_user(&response, buf, sizeof(response)))
		return -EFAULT;
	if (!method->has_resp)
		out_len = 0;

	ctx->inbuf = buf;
	ctx->inlen = in_len;
	ctx->outbuf = u64_to_user_ptr(response);
	ctx->outlen = out_len;
	if (method->has_udata) {
		ctx->inlen = method->req_size;
		ctx->driver_udata.inlen = in_len - method->req_size;
		if (ctx->driver_udata.inlen)
			ctx->driver_udata.inbuf = buf + method->req_size;
		ctx->outlen = min_t(size_t, out_len, method->resp_size);
		ctx->driver_udata.outlen = out_len - ctx->outlen;
		if (ctx->driver_udata.outlen)
			ctx->driver_udata.outbuf =
				u64_to_user_ptr(response + method->resp_size);
	}
	return 0;
}

/* Frame an extended command: sizes in 8-byte words, headers excluded. */
static int uverbs_frame_ex(struct uverbs_cmd_ctx *ctx,
			   const struct uverbs_write_method *method,
			   const struct ib_uverbs_cmd_hdr *hdr,
			   const char __user *buf, size_t count)
{
	size_t in_len = (size_t)hdr->in_words * 8;
	size_t out_len = (size_t)hdr->out_words * 8;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
	size_t drv_in, drv_out;

	if (count < sizeof(*hdr) + sizeof(ex_hdr))
		return -EINVAL;
	if (copy_from_user(&ex_hdr, buf + sizeof(*hdr), sizeof(ex_hdr)))
		return -EFAULT;
	count -= sizeof(*hdr) + sizeof(ex_hdr);
	drv_in = (size_t)ex_hdr.provider_in_words * 8;
	drv_out = (size_t)ex_hdr.provider_out_words * 8;

	if (in_len + drv_in != count)
		return -EINVAL;
	if (in_len < method->req_size)
		return -ENOSPC;
	if (ex_hdr.cmd_hdr_reserved)
		return -EINVAL;
	if (ex_hdr.response) {
		if (!out_len && !drv_out)
			return -EINVAL;
		if (out_len < method->resp_size)
			return -ENOSPC;
		if (!access_ok(u64_to_user_ptr(ex_hdr.response),
			       out_len + drv_out))
			return -EFAULT;
	} else if (out_len || drv_out) {
		return -EINVAL;
	}

	buf += sizeof(*hdr) + sizeof(ex_hdr);
	ctx->inbuf = buf;
	ctx->inlen = in_len;
	ctx->outbuf = u64_to_user_ptr(ex_hdr.response);
	ctx->outlen = out_len;
	ctx->driver_udata.inlen = drv_in;
	if (drv_in)
		ctx->driver_udata.inbuf = buf + in_len;
	ctx->driver_udata.outlen = drv_out;
	if (drv_out)
		ctx->driver_udata.outbuf =
			u64_to_user_ptr(ex_hdr.response + out_len);
	return 0;
}

/**
 * uverbs_write_invoke - run a write() command framed by the ioctl
 *	DEVICE/INVOKE_WRITE method
 * @ctx: the command: core request and response buffers from the CORE_IN
 *	and CORE_OUT attributes, driver data from UHW_IN and UHW_OUT
 * @command: the write() command number, with
 *	IB_USER_VERBS_CMD_FLAG_EXTENDED for extended ones
 *
 * The legacy request still starts with its response pointer, which is
 * ignored: the response goes to CORE_OUT.
 *
 * Return: 0 or a negative errno: -EINVAL for bad command bits, -EOPNOTSUPP
 * for an unknown command, -ENOSPC if a buffer is shorter than the core
 * structure (libibverbs's probe for the ioctl relies on this one).
 */
static int uverbs_write_invoke(struct uverbs_cmd_ctx *ctx, u32 command)
{
	const struct uverbs_write_method *method;

	method = uverbs_find_method(command);
	if (IS_ERR(method))
		return PTR_ERR(method);
	if (ctx->inlen < method->req_size || ctx->outlen < method->resp_size)
		return -ENOSPC;
	return method->handler(ctx);
}

/* A write() command framed by attributes instead of headers. */
static int uverbs_ioctl_invoke_write(struct uverbs_ioctl_call *call)
{
	struct uverbs_cmd_ctx ctx = {
		.ufile = call->ufile,
		.ib_dev = call->ib_dev,
		.driver_udata = call->driver_udata,
	};
	struct ib_udata core;
	u64 command;
	int idx;
	int ret;

	ret = ioa_get_const(call, UVERBS_ATTR_WRITE_CMD, U32_MAX, &command);
	if (ret)
		return ret;
	ioa_fill_udata(call, &core, UVERBS_ATTR_CORE_IN, UVERBS_ATTR_CORE_OUT);
	ctx.inbuf = core.inbuf;
	ctx.inlen = core.inlen;
	ctx.outbuf = core.outbuf;
	ctx.outlen = core.outlen;

	ret = uverbs_write_invoke(&ctx, command);
	idx = ioa_index(call, UVERBS_ATTR_CORE_OUT);
	if (!ret && ctx.responded && idx >= 0)
		ret = ioa_set_output(call, idx);
	return ret;
}

static const struct uverbs_ioa_spec uverbs_invoke_write_specs[] = {
	IOA_CONST_IN(UVERBS_ATTR_WRITE_CMD, IOA_MANDATORY),
	IOA_PTR_IN(UVERBS_ATTR_CORE_IN, sizeof(u32), U16_MAX, IOA_OPTIONAL),
	IOA_PTR_OUT(UVERBS_ATTR_CORE_OUT, 0, U16_MAX, IOA_OPTIONAL),
	IOA_UHW_IN,
	IOA_UHW_OUT,
};

/**
 * ib_uverbs_write_cmd - execute one write() on a uverbs file
 * @ufile: the file
 * @ib_dev: its device, valid until return (the caller is in an SRCU
 *	read section of the device)
 * @buf: the user's buffer
 * @count: its length
 *
 * Return: @count on success, else a negative errno.
 */
ssize_t ib_uverbs_write_cmd(struct ib_uverbs_file *ufile,
			    struct ib_device *ib_dev,
			    const char __user *buf, size_t count)
{
	const struct uverbs_write_method *method;
	struct uverbs_cmd_ctx ctx = {
		.ufile = ufile,
		.ib_dev = ib_dev,
	};
	struct ib_uverbs_cmd_hdr hdr;
	int ret;

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	method = uverbs_find_method(hdr.command);
	if (IS_ERR(method))
		return PTR_ERR(method);

	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		ret = uverbs_frame_ex(&ctx, method, &hdr, buf, count);
	else
		ret = uverbs_frame_legacy(&ctx, method, &hdr, buf, count);
	if (ret)
		return ret;

	ret = method->handler(&ctx);
	return ret ? ret : count;
}

/* ------------------------------------------------------------------ */
/* The ioctl's objects                                                 */
/* ------------------------------------------------------------------ */

static const struct uverbs_ioctl_method uverbs_device_methods[] = {
	{
		.method_id = UVERBS_METHOD_INVOKE_WRITE,
		.has_udata = true,
		.handler = uverbs_ioctl_invoke_write,
		.specs = uverbs_invoke_write_specs,
		.num_specs = ARRAY_SIZE(uverbs_invoke_write_specs),
	},
	{
		.method_id = UVERBS_METHOD_GET_CONTEXT,
		.has_udata = true,
		.handler = uverbs_ioctl_get_context,
		.specs = uverbs_get_context_specs,
		.num_specs = ARRAY_SIZE(uverbs_get_context_specs),
	},
	{
		.method_id = UVERBS_METHOD_QUERY_PORT,
		.handler = uverbs_ioctl_query_port,
		.specs = uverbs_query_port_specs,
		.num_specs = ARRAY_SIZE(uverbs_query_port_specs),
	},
	{
		.method_id = UVERBS_METHOD_QUERY_GID_ENTRY,
		.handler = uverbs_ioctl_query_gid_entry,
		.specs = uverbs_query_gid_entry_specs,
		.num_specs = ARRAY_SIZE(uverbs_query_gid_entry_specs),
	},
	{
		.method_id = UVERBS_METHOD_QUERY_GID_TABLE,
		.handler = uverbs_ioctl_query_gid_table,
		.specs = uverbs_query_gid_table_specs,
		.num_specs = ARRAY_SIZE(uverbs_query_gid_table_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_device = {
	.object_id = UVERBS_OBJECT_DEVICE,
	.methods = uverbs_device_methods,
	.num_methods = ARRAY_SIZE(uverbs_device_methods),
};

static const struct uverbs_ioctl_method uverbs_async_event_methods[] = {
	{
		.method_id = UVERBS_METHOD_ASYNC_EVENT_ALLOC,
		.handler = uverbs_ioctl_async_event_alloc,
		.specs = uverbs_async_event_alloc_specs,
		.num_specs = ARRAY_SIZE(uverbs_async_event_alloc_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_async_event = {
	.object_id = UVERBS_OBJECT_ASYNC_EVENT,
	.methods = uverbs_async_event_methods,
	.num_methods = ARRAY_SIZE(uverbs_async_event_methods),
};

static const struct uverbs_ioctl_method uverbs_pd_methods[] = {
	{
		.method_id = UVERBS_METHOD_PD_DESTROY,
		.handler = uverbs_ioctl_pd_destroy,
		.specs = uverbs_ioa_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_ioa_destroy_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_pd = {
	.object_id = UVERBS_OBJECT_PD,
	.methods = uverbs_pd_methods,
	.num_methods = ARRAY_SIZE(uverbs_pd_methods),
};
