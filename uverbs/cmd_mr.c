// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Commands on memory regions and address handles.
 *
 * REG_MR hands the user's range to the driver, which pins it with
 * ib_umem_get() (charged to RLIMIT_MEMLOCK).  CREATE_AH passes the
 * driver's response (rxe: the AH number UD work requests carry) through
 * the command's udata.
 *
 * The MR and AH objects of the verbs ioctl, whose only methods here are
 * MR/DESTROY and AH/DESTROY, are beside DEREG_MR and DESTROY_AH.
 *
 * Locking: no lock of its own.  A command holds the objects it uses
 * (handles.c's use counts) while it runs.
 */
#include <linux/slab.h>

#include "ioctl.h"

static int uverbs_free_mr(struct ib_uobject *uobj,
			  enum uverbs_remove_reason why,
			  struct ib_udata *udata)
{
	return ib_dereg_mr_user(uobj->object, udata);
}

const struct uverbs_obj_type uverbs_type_mr = {
	.name = "MR",
	.destroy = uverbs_free_mr,
};

static int uverbs_free_ah(struct ib_uobject *uobj,
			  enum uverbs_remove_reason why,
			  struct ib_udata *udata)
{
	return rdma_destroy_ah_user(uobj->object, RDMA_DESTROY_AH_SLEEPABLE,
				    udata);
}

const struct uverbs_obj_type uverbs_type_ah = {
	.name = "AH",
	.destroy = uverbs_free_ah,
};

/**
 * uverbs_cmd_reg_mr - REG_MR
 * @ctx: the command
 *
 * Return: 0 or a negative errno: -EINVAL for a bad PD handle, bad access
 * flags, an empty or too long range, start and hca_va at different page
 * offsets; -ENOMEM beyond RLIMIT_MEMLOCK; -EFAULT for unmapped memory.
 */
int uverbs_cmd_reg_mr(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_udata no_udata = {};
	struct ib_uverbs_reg_mr cmd;
	struct ib_mr *mr;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	uobj = uobj_alloc_begin(&uverbs_type_mr, ctx->ufile);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd_uobj = uobj_get_read(&uverbs_type_pd, ctx->ufile, cmd.pd_handle);
	if (IS_ERR(pd_uobj)) {
		ret = -EINVAL;
		goto err_abort;
	}
	mr = ib_reg_user_mr(pd_uobj->object, uobj, cmd.start, cmd.length,
			    cmd.hca_va, cmd.access_flags, &ctx->driver_udata);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto err_pd;
	}
	uobj->object = mr;

	resp.mr_handle = uobj->id;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = uverbs_response(ctx, &resp, sizeof(resp));
	if (ret)
		goto err_mr;
	uobj_put_read(pd_uobj);
	uobj_alloc_commit(uobj);
	return 0;

err_mr:
	WARN_ON(ib_dereg_mr_user(mr, &no_udata));
err_pd:
	uobj_put_read(pd_uobj);
err_abort:
	uobj_alloc_abort(uobj);
	return ret;
}

/**
 * uverbs_cmd_dereg_mr - DEREG_MR
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_dereg_mr(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_dereg_mr cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uobj_destroy(&uverbs_type_mr, ctx->ufile, cmd.mr_handle,
			    &ctx->driver_udata);
}

static int uverbs_ioctl_mr_destroy(struct uverbs_ioctl_call *call)
{
	return ioa_destroy(call, &uverbs_type_mr);
}

/**
 * uverbs_cmd_create_ah - CREATE_AH
 * @ctx: the command
 *
 * Return: 0 or a negative errno; -EINVAL for a bad PD handle or port.
 */
int uverbs_cmd_create_ah(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_create_ah_resp resp = {};
	struct ib_device *ib_dev = ctx->ib_dev;
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_uverbs_create_ah cmd;
	struct rdma_ah_attr attr = {};
	struct ib_udata no_udata = {};
	struct ib_ah *ah;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!rdma_is_port_valid(ib_dev, cmd.attr.port_num))
		return -EINVAL;

	uobj = uobj_alloc_begin(&uverbs_type_ah, ctx->ufile);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uobj->user_handle = cmd.user_handle;
	pd_uobj = uobj_get_read(&uverbs_type_pd, ctx->ufile, cmd.pd_handle);
	if (IS_ERR(pd_uobj)) {
		ret = -EINVAL;
		goto err_abort;
	}

	attr.type = rdma_port_get_link_layer(ib_dev, cmd.attr.port_num) ==
		    IB_LINK_LAYER_ETHERNET ? RDMA_AH_ATTR_TYPE_ROCE :
					     RDMA_AH_ATTR_TYPE_IB;
	attr.dlid = cmd.attr.dlid;
	attr.sl = cmd.attr.sl;
	attr.src_path_bits = cmd.attr.src_path_bits;
	attr.static_rate = cmd.attr.static_rate;
	attr.port_num = cmd.attr.port_num;
	if (cmd.attr.is_global) {
		attr.ah_flags = IB_AH_GRH;
		memcpy(attr.grh.dgid.raw, cmd.attr.grh.dgid,
		       sizeof(attr.grh.dgid));
		attr.grh.flow_label = cmd.attr.grh.flow_label;
		attr.grh.sgid_index = cmd.attr.grh.sgid_index;
		attr.grh.hop_limit = cmd.attr.grh.hop_limit;
		attr.grh.traffic_class = cmd.attr.grh.traffic_class;
	}

	ah = rdma_create_ah_user(pd_uobj->object, uobj, &attr,
				 &ctx->driver_udata);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_pd;
	}
	uobj->object = ah;

	resp.ah_handle = uobj->id;
	ret = uverbs_response(ctx, &resp, sizeof(resp));
	if (ret)
		goto err_ah;
	uobj_put_read(pd_uobj);
	uobj_alloc_commit(uobj);
	return 0;

err_ah:
	WARN_ON(rdma_destroy_ah_user(ah, RDMA_DESTROY_AH_SLEEPABLE,
				     &no_udata));
err_pd:
	uobj_put_read(pd_uobj);
err_abort:
	uobj_alloc_abort(uobj);
	return ret;
}

/**
 * uverbs_cmd_destroy_ah - DESTROY_AH
 * @ctx: the command
 *
 * Return: 0 or a negative errno.
 */
int uverbs_cmd_destroy_ah(struct uverbs_cmd_ctx *ctx)
{
	struct ib_uverbs_destroy_ah cmd;
	int ret;

	ret = uverbs_request(ctx, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uobj_destroy(&uverbs_type_ah, ctx->ufile, cmd.ah_handle,
			    &ctx->driver_udata);
}

static int uverbs_ioctl_ah_destroy(struct uverbs_ioctl_call *call)
{
	return ioa_destroy(call, &uverbs_type_ah);
}

/* ------------------------------------------------------------------ */
/* The ioctl's objects                                                 */
/* ------------------------------------------------------------------ */

static const struct uverbs_ioctl_method uverbs_mr_methods[] = {
	{
		.method_id = UVERBS_METHOD_MR_DESTROY,
		.handler = uverbs_ioctl_mr_destroy,
		.specs = uverbs_ioa_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_ioa_destroy_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_mr = {
	.object_id = UVERBS_OBJECT_MR,
	.methods = uverbs_mr_methods,
	.num_methods = ARRAY_SIZE(uverbs_mr_methods),
};

static const struct uverbs_ioctl_method uverbs_ah_methods[] = {
	{
		.method_id = UVERBS_METHOD_AH_DESTROY,
		.handler = uverbs_ioctl_ah_destroy,
		.specs = uverbs_ioa_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_ioa_destroy_specs),
	},
};

const struct uverbs_ioctl_object uverbs_ioctl_object_ah = {
	.object_id = UVERBS_OBJECT_AH,
	.methods = uverbs_ah_methods,
	.num_methods = ARRAY_SIZE(uverbs_ah_methods),
};
