// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl command ABI of /dev/infiniband/uverbsN: RDMA_VERBS_IOCTL.
 *
 * One ioctl calls one method of one object.  Its argument, struct
 * ib_uverbs_ioctl_hdr, names them and is followed by the call's
 * attributes, struct ib_uverbs_attr, each an id, a length, flags and
 * 8 bytes of data: an inline value (length <= 8), a user pointer, an
 * object handle or a file descriptor.
 *
 * Every method here declares the attributes it knows in a table (kind,
 * size limits, mandatory or not); the call is checked against it before
 * the method's handler runs, with upstream's errnos, which libibverbs
 * relies on to choose between this ABI and write():
 *
 *   header length inconsistent or above PAGE_SIZE	-EINVAL
 *   reserved header fields set				-EPROTONOSUPPORT
 *   driver_id not the device's				-EINVAL
 *   unknown object or method				-EPROTONOSUPPORT
 *   unknown attribute flagged mandatory		-EPROTONOSUPPORT
 *   (an unknown attribute not so flagged is ignored)
 *   the same attribute twice, a size out of bounds,
 *   attr_data set, a mandatory attribute missing	-EINVAL
 *   input beyond what we know not zero			-EOPNOTSUPP
 *
 * A handler never returns -EPROTONOSUPPORT: that would make libibverbs
 * take the method for absent and retry with write().  Output attributes
 * get UVERBS_ATTR_F_VALID_OUTPUT in the user's copy of their flags once
 * written.  Object handles are looked up by the handlers, with upstream's
 * errnos: -ENOENT for a missing attribute or an unknown handle, -EINVAL
 * for a negative one or one of another type, -EBUSY for an object being
 * destroyed, -EBADF for a descriptor of the wrong kind.  The objects a
 * handler uses stay held for reading until the call ends.
 *
 * The CQ, QP and SRQ CREATE methods make their objects with the creation
 * functions of cmd_cq.c and cmd_qp.c, which the write() commands use too;
 * the new object's handle is written into the data of its HANDLE
 * attribute, and the object becomes visible only once the whole call
 * (outputs, UHW_OUT's flag) has succeeded: otherwise it is destroyed and
 * the call leaves nothing behind, as upstream.
 *
 * The whole call runs in the device's disassociation SRCU read section,
 * as write() does, and fails with -EIO once the device is gone.
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "uverbs.h"

/* The kinds of attribute. */
enum uverbs_ioa_kind {
	UVERBS_IOA_PTR_IN,	/* input: inline if len <= 8, else a pointer */
	UVERBS_IOA_PTR_OUT,	/* output buffer: pointer, len bytes */
	UVERBS_IOA_OBJ,		/* handle or descriptor in data, len 0 */
};

/**
 * struct uverbs_ioa_spec - an attribute a method knows
 * @id: the attribute id
 * @kind: enum uverbs_ioa_kind
 * @mandatory: the call fails with -EINVAL without it
 * @zero_trailing: longer than @max_len is allowed; for input the bytes
 *	beyond @max_len must be zero
 * @min_len: the shortest length accepted
 * @max_len: the longest length accepted (see @zero_trailing)
 */
struct uverbs_ioa_spec {
	u16	id;
	u8	kind;
	bool	mandatory;
	bool	zero_trailing;
	u16	min_len;
	u16	max_len;
};

/* No method knows more attributes than this. */
#define UVERBS_IOA_MAX_SPECS	20

/* No method looks up more objects than this. */
#define UVERBS_IOA_MAX_HELD	4

struct uverbs_ioctl_call;

/**
 * struct uverbs_ioctl_method - a method of an object
 * @object_id: UVERBS_OBJECT_*
 * @method_id: the object's UVERBS_METHOD_*
 * @has_udata: the method takes UHW_IN/UHW_OUT as the driver's data
 * @handler: executes the call once its attributes passed the checks
 * @specs: the attributes the method knows
 * @num_specs: their number
 */
struct uverbs_ioctl_method {
	u16	object_id;
	u16	method_id;
	bool	has_udata;
	int	(*handler)(struct uverbs_ioctl_call *call);
	const struct uverbs_ioa_spec *specs;
	unsigned int num_specs;
};

/**
 * struct uverbs_ioctl_call - one ioctl being executed
 * @ufile: the file
 * @ib_dev: its device, valid for the call (SRCU)
 * @method: the method called
 * @user_attrs: the user's attribute array
 * @uattrs: our copy of it
 * @attr_idx: per entry of the method's specs, the index of the attribute
 *	in @uattrs, or -1 if the call does not have it
 * @driver_udata: the driver's data (UHW_IN/UHW_OUT) of the call
 * @held: the objects the handler looked up, held for reading until the
 *	call ends
 * @num_held: their number
 * @new_uobj: the object a create method made, not yet visible: made
 *	visible if the call succeeds, destroyed if it fails
 */
struct uverbs_ioctl_call {
	struct ib_uverbs_file		*ufile;
	struct ib_device		*ib_dev;
	const struct uverbs_ioctl_method *method;
	struct ib_uverbs_attr __user	*user_attrs;
	struct ib_uverbs_attr		*uattrs;
	s16				attr_idx[UVERBS_IOA_MAX_SPECS];
	struct ib_udata			driver_udata;
	struct ib_uobject		*held[UVERBS_IOA_MAX_HELD];
	unsigned int			num_held;
	struct ib_uobject		*new_uobj;
};

#define IOA_MANDATORY	true
#define IOA_OPTIONAL	false

#define IOA_PTR_IN(_id, _min, _max, _mand)				\
	{ .id = _id, .kind = UVERBS_IOA_PTR_IN, .mandatory = _mand,	\
	  .min_len = _min, .max_len = _max }
#define IOA_PTR_OUT(_id, _min, _max, _mand)				\
	{ .id = _id, .kind = UVERBS_IOA_PTR_OUT, .mandatory = _mand,	\
	  .min_len = _min, .max_len = _max }
/* a value of a given type, always inline (at most 8 bytes) */
#define IOA_TYPE_IN(_id, _type, _mand)					\
	IOA_PTR_IN(_id, sizeof(_type), sizeof(_type), _mand)
/* a structure of which at least the members up to _last are needed */
#define IOA_STRUCT_IN(_id, _type, _last, _mand)				\
	{ .id = _id, .kind = UVERBS_IOA_PTR_IN, .mandatory = _mand,	\
	  .zero_trailing = true,					\
	  .min_len = offsetofend(_type, _last), .max_len = sizeof(_type) }
/* a u64 value; libibverbs always sends 8 bytes */
#define IOA_CONST_IN(_id, _mand)					\
	IOA_PTR_IN(_id, sizeof(u64), sizeof(u64), _mand)
/* flags: 4 or 8 bytes */
#define IOA_FLAGS_IN(_id, _mand)					\
	IOA_PTR_IN(_id, sizeof(u32), sizeof(u64), _mand)
/* a structure or value that must be given whole */
#define IOA_TYPE_OUT(_id, _type, _mand)					\
	IOA_PTR_OUT(_id, sizeof(_type), sizeof(_type), _mand)
/* a structure of which at least the members up to _last are needed */
#define IOA_STRUCT_OUT(_id, _type, _last, _mand)			\
	{ .id = _id, .kind = UVERBS_IOA_PTR_OUT, .mandatory = _mand,	\
	  .zero_trailing = true,					\
	  .min_len = offsetofend(_type, _last), .max_len = sizeof(_type) }
#define IOA_OBJ(_id, _mand)						\
	{ .id = _id, .kind = UVERBS_IOA_OBJ, .mandatory = _mand }
/* the driver's data of methods with has_udata */
#define IOA_UHW_IN							\
	IOA_PTR_IN(UVERBS_ATTR_UHW_IN, 0, U16_MAX, IOA_OPTIONAL)
#define IOA_UHW_OUT							\
	IOA_PTR_OUT(UVERBS_ATTR_UHW_OUT, 0, U16_MAX, IOA_OPTIONAL)

/* ------------------------------------------------------------------ */
/* Attribute access for the handlers                                   */
/* ------------------------------------------------------------------ */

/* The index in the method's specs of attribute @id, or -1. */
static int ioa_spec_index(const struct uverbs_ioctl_method *method, u16 id)
{
	unsigned int i;

	for (i = 0; i < method->num_specs; i++)
		if (method->specs[i].id == id)
			return i;
	return -1;
}

/* The index in the call's attributes of attribute @id, or -1. */
static int ioa_index(const struct uverbs_ioctl_call *call, u16 id)
{
	int spec = ioa_spec_index(call->method, id);

	return spec < 0 ? -1 : call->attr_idx[spec];
}

static const struct ib_uverbs_attr *ioa_get(const struct uverbs_ioctl_call *call,
					    u16 id)
{
	int idx = ioa_index(call, id);

	return idx < 0 ? NULL : &call->uattrs[idx];
}

/* Tell the user that output attribute number @idx was written. */
static int ioa_set_output(struct uverbs_ioctl_call *call, int idx)
{
	u16 flags = call->uattrs[idx].flags | UVERBS_ATTR_F_VALID_OUTPUT;

	if (put_user(flags, &call->user_attrs[idx].flags))
		return -EFAULT;
	return 0;
}

/* A u64 value of at most @max; -ENOENT without the attribute. */
static int ioa_get_const(const struct uverbs_ioctl_call *call, u16 id,
			 u64 max, u64 *val)
{
	const struct ib_uverbs_attr *attr = ioa_get(call, id);

	if (!attr)
		return -ENOENT;
	if (attr->data > max)
		return -EINVAL;
	*val = attr->data;
	return 0;
}

/* Flags within @allowed, 4 or 8 bytes; none without the attribute. */
static int ioa_get_flags(const struct uverbs_ioctl_call *call, u16 id,
			 u64 allowed, u64 *flags)
{
	const struct ib_uverbs_attr *attr = ioa_get(call, id);

	*flags = 0;
	if (!attr)
		return 0;
	if (attr->len == sizeof(u64))
		*flags = attr->data;
	else if (attr->len == sizeof(u32))
		*flags = *(const u32 *)&attr->data;
	else
		return -EINVAL;
	if (*flags & ~allowed)
		return -EINVAL;
	return 0;
}

/* An object handle; handles are 31 bits, bigger ones name nothing. */
static int ioa_get_handle(const struct uverbs_ioctl_call *call, u16 id,
			  u32 *handle)
{
	const struct ib_uverbs_attr *attr = ioa_get(call, id);

	if (!attr)
		return -ENOENT;
	if (attr->data_s64 < 0)
		return -EINVAL;
	if (attr->data > U32_MAX)
		return -ENOENT;
	*handle = attr->data;
	return 0;
}

/*
 * Write @size bytes (at most the attribute's length) to an output
 * attribute; with @zero, clear the rest of a longer buffer.  -ENOENT
 * without the attribute.
 */
static int ioa_copy_to(struct uverbs_ioctl_call *call, u16 id,
		       const void *from, size_t size, bool zero)
{
	int idx = ioa_index(call, id);
	const struct ib_uverbs_attr *attr;
	void __user *to;

	if (idx < 0)
		return -ENOENT;
	attr = &call->uattrs[idx];
	to = u64_to_user_ptr(attr->data);
	if (copy_to_user(to, from, min_t(size_t, attr->len, size)))
		return -EFAULT;
	if (zero && attr->len > size && clear_user(to + size, attr->len - size))
		return -EFAULT;
	return ioa_set_output(call, idx);
}

/* Write a new object's handle or descriptor into the user's attribute. */
static int ioa_put_data(struct uverbs_ioctl_call *call, u16 id, s64 value)
{
	int idx = ioa_index(call, id);

	if (idx < 0)
		return -ENOENT;
	if (put_user(value, &call->user_attrs[idx].data_s64))
		return -EFAULT;
	return 0;
}

/*
 * An ib_udata from an input and an output attribute, both optional.
 * Inline input is read from the user's attribute itself.
 */
static void ioa_fill_udata(const struct uverbs_ioctl_call *call,
			   struct ib_udata *udata, u16 in_id, u16 out_id)
{
	int in = ioa_index(call, in_id);
	int out = ioa_index(call, out_id);

	memset(udata, 0, sizeof(*udata));
	if (in >= 0) {
		udata->inlen = call->uattrs[in].len;
		if (udata->inlen <= sizeof(call->uattrs[in].data))
			udata->inbuf = &call->user_attrs[in].data;
		else
			udata->inbuf = u64_to_user_ptr(call->uattrs[in].data);
	}
	if (out >= 0) {
		udata->outlen = call->uattrs[out].len;
		udata->outbuf = u64_to_user_ptr(call->uattrs[out].data);
	}
}

/* Whether the call has attribute @id. */
static bool ioa_has(const struct uverbs_ioctl_call *call, u16 id)
{
	return ioa_index(call, id) >= 0;
}

/*
 * The value of an inline input attribute whose spec fixes its length to
 * @size (IOA_TYPE_IN, at most 8); -ENOENT without the attribute.
 */
static int ioa_get_inline(const struct uverbs_ioctl_call *call, u16 id,
			  void *to, size_t size)
{
	const struct ib_uverbs_attr *attr = ioa_get(call, id);

	if (!attr)
		return -ENOENT;
	if (WARN_ON_ONCE(attr->len != size || size > sizeof(attr->data)))
		return -EINVAL;
	memcpy(to, &attr->data, size);
	return 0;
}

/*
 * An input structure of @size bytes, inline or not; a shorter attribute
 * (as its spec allows) leaves the rest zero, the bytes of a longer one
 * beyond @size were checked to be zero.  -ENOENT without the attribute.
 */
static int ioa_copy_from(const struct uverbs_ioctl_call *call, u16 id,
			 void *to, size_t size)
{
	const struct ib_uverbs_attr *attr = ioa_get(call, id);
	size_t len;

	memset(to, 0, size);
	if (!attr)
		return -ENOENT;
	len = min_t(size_t, attr->len, size);
	if (attr->len <= sizeof(attr->data)) {
		memcpy(to, &attr->data, len);
		return 0;
	}
	if (copy_from_user(to, u64_to_user_ptr(attr->data), len))
		return -EFAULT;
	return 0;
}

/*
 * Look up the object named by handle attribute @id and hold it for
 * reading until the call ends.  Return: the ib_* object, or ERR_PTR():
 * -ENOENT without the attribute or for an unknown handle, -EINVAL for a
 * handle of another type, -EBUSY for an object being destroyed.
 */
static void *ioa_get_obj(struct uverbs_ioctl_call *call, u16 id,
			 const struct uverbs_obj_type *type)
{
	struct ib_uobject *uobj;
	u32 handle;
	int ret;

	ret = ioa_get_handle(call, id, &handle);
	if (ret)
		return ERR_PTR(ret);
	/* a method looking up more than it declared is our bug */
	if (WARN_ON_ONCE(call->num_held == ARRAY_SIZE(call->held)))
		return ERR_PTR(-EINVAL);
	uobj = uobj_get_read(type, call->ufile, handle);
	if (IS_ERR(uobj))
		return uobj;
	call->held[call->num_held++] = uobj;
	return uobj->object;
}

/* A descriptor attribute; -ENOENT without it, -EINVAL if not an int. */
static int ioa_get_fd(const struct uverbs_ioctl_call *call, u16 id, int *fd)
{
	const struct ib_uverbs_attr *attr = ioa_get(call, id);

	if (!attr)
		return -ENOENT;
	if (attr->data_s64 < INT_MIN || attr->data_s64 > INT_MAX)
		return -EINVAL;
	*fd = attr->data_s64;
	return 0;
}

/*
 * The EVENT_FD attribute of a create method.  Without it the object's
 * async events go to the context's async event file, if any; with it,
 * it must be that file: there is only one per context here.
 */
static int ioa_check_event_fd(const struct uverbs_ioctl_call *call, u16 id)
{
	int ret;
	int fd;

	ret = ioa_get_fd(call, id, &fd);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	return ib_uverbs_async_fd_check(call->ufile, fd);
}

/*
 * A create method made @uobj: write its handle into attribute @id of the
 * user's array; run() makes it visible if the whole call succeeds.
 */
static int ioa_new_uobj(struct uverbs_ioctl_call *call, u16 id,
			struct ib_uobject *uobj)
{
	call->new_uobj = uobj;
	return ioa_put_data(call, id, uobj->id);
}

static struct ib_ucontext *ioa_ucontext(struct uverbs_ioctl_call *call)
{
	return uverbs_get_ucontext(call->ufile);
}

/* ------------------------------------------------------------------ */
/* DEVICE                                                              */
/* ------------------------------------------------------------------ */

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
/* ASYNC_EVENT                                                         */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Create methods                                                      */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Destroy methods: attribute 0 is the handle                          */
/* ------------------------------------------------------------------ */

static int uverbs_ioctl_destroy(struct uverbs_ioctl_call *call,
				const struct uverbs_obj_type *type)
{
	u32 handle;
	int ret;

	ret = ioa_get_handle(call, 0, &handle);
	if (ret)
		return ret;
	return uobj_destroy(type, call->ufile, handle, &call->driver_udata);
}

static int uverbs_ioctl_pd_destroy(struct uverbs_ioctl_call *call)
{
	return uverbs_ioctl_destroy(call, &uverbs_type_pd);
}

static int uverbs_ioctl_mr_destroy(struct uverbs_ioctl_call *call)
{
	return uverbs_ioctl_destroy(call, &uverbs_type_mr);
}

static int uverbs_ioctl_ah_destroy(struct uverbs_ioctl_call *call)
{
	return uverbs_ioctl_destroy(call, &uverbs_type_ah);
}

static const struct uverbs_ioa_spec uverbs_destroy_specs[] = {
	IOA_OBJ(0, IOA_MANDATORY),
};

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

static int uverbs_ioctl_srq_destroy(struct uverbs_ioctl_call *call)
{
	return uverbs_ioctl_uevent_destroy(call, &uverbs_type_srq);
}

static const struct uverbs_ioa_spec uverbs_qp_destroy_specs[] = {
	IOA_OBJ(UVERBS_ATTR_DESTROY_QP_HANDLE, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_DESTROY_QP_RESP,
		     struct ib_uverbs_destroy_qp_resp, IOA_MANDATORY),
};

static const struct uverbs_ioa_spec uverbs_srq_destroy_specs[] = {
	IOA_OBJ(UVERBS_ATTR_DESTROY_SRQ_HANDLE, IOA_MANDATORY),
	IOA_TYPE_OUT(UVERBS_ATTR_DESTROY_SRQ_RESP,
		     struct ib_uverbs_destroy_srq_resp, IOA_MANDATORY),
};

/* ------------------------------------------------------------------ */
/* The methods                                                         */
/* ------------------------------------------------------------------ */

static const struct uverbs_ioctl_method uverbs_ioctl_methods[] = {
	{
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_INVOKE_WRITE,
		.has_udata = true,
		.handler = uverbs_ioctl_invoke_write,
		.specs = uverbs_invoke_write_specs,
		.num_specs = ARRAY_SIZE(uverbs_invoke_write_specs),
	},
	{
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_GET_CONTEXT,
		.has_udata = true,
		.handler = uverbs_ioctl_get_context,
		.specs = uverbs_get_context_specs,
		.num_specs = ARRAY_SIZE(uverbs_get_context_specs),
	},
	{
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_QUERY_PORT,
		.handler = uverbs_ioctl_query_port,
		.specs = uverbs_query_port_specs,
		.num_specs = ARRAY_SIZE(uverbs_query_port_specs),
	},
	{
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_QUERY_GID_ENTRY,
		.handler = uverbs_ioctl_query_gid_entry,
		.specs = uverbs_query_gid_entry_specs,
		.num_specs = ARRAY_SIZE(uverbs_query_gid_entry_specs),
	},
	{
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_QUERY_GID_TABLE,
		.handler = uverbs_ioctl_query_gid_table,
		.specs = uverbs_query_gid_table_specs,
		.num_specs = ARRAY_SIZE(uverbs_query_gid_table_specs),
	},
	{
		.object_id = UVERBS_OBJECT_ASYNC_EVENT,
		.method_id = UVERBS_METHOD_ASYNC_EVENT_ALLOC,
		.handler = uverbs_ioctl_async_event_alloc,
		.specs = uverbs_async_event_alloc_specs,
		.num_specs = ARRAY_SIZE(uverbs_async_event_alloc_specs),
	},
	{
		.object_id = UVERBS_OBJECT_PD,
		.method_id = UVERBS_METHOD_PD_DESTROY,
		.handler = uverbs_ioctl_pd_destroy,
		.specs = uverbs_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_destroy_specs),
	},
	{
		.object_id = UVERBS_OBJECT_MR,
		.method_id = UVERBS_METHOD_MR_DESTROY,
		.handler = uverbs_ioctl_mr_destroy,
		.specs = uverbs_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_destroy_specs),
	},
	{
		.object_id = UVERBS_OBJECT_AH,
		.method_id = UVERBS_METHOD_AH_DESTROY,
		.handler = uverbs_ioctl_ah_destroy,
		.specs = uverbs_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_destroy_specs),
	},
	{
		.object_id = UVERBS_OBJECT_CQ,
		.method_id = UVERBS_METHOD_CQ_CREATE,
		.has_udata = true,
		.handler = uverbs_ioctl_cq_create,
		.specs = uverbs_cq_create_specs,
		.num_specs = ARRAY_SIZE(uverbs_cq_create_specs),
	},
	{
		.object_id = UVERBS_OBJECT_CQ,
		.method_id = UVERBS_METHOD_CQ_DESTROY,
		.handler = uverbs_ioctl_cq_destroy,
		.specs = uverbs_cq_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_cq_destroy_specs),
	},
	{
		.object_id = UVERBS_OBJECT_QP,
		.method_id = UVERBS_METHOD_QP_CREATE,
		.has_udata = true,
		.handler = uverbs_ioctl_qp_create,
		.specs = uverbs_qp_create_specs,
		.num_specs = ARRAY_SIZE(uverbs_qp_create_specs),
	},
	{
		.object_id = UVERBS_OBJECT_QP,
		.method_id = UVERBS_METHOD_QP_DESTROY,
		.handler = uverbs_ioctl_qp_destroy,
		.specs = uverbs_qp_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_qp_destroy_specs),
	},
	{
		.object_id = UVERBS_OBJECT_SRQ,
		.method_id = UVERBS_METHOD_SRQ_CREATE,
		.has_udata = true,
		.handler = uverbs_ioctl_srq_create,
		.specs = uverbs_srq_create_specs,
		.num_specs = ARRAY_SIZE(uverbs_srq_create_specs),
	},
	{
		.object_id = UVERBS_OBJECT_SRQ,
		.method_id = UVERBS_METHOD_SRQ_DESTROY,
		.handler = uverbs_ioctl_srq_destroy,
		.specs = uverbs_srq_destroy_specs,
		.num_specs = ARRAY_SIZE(uverbs_srq_destroy_specs),
	},
};

static const struct uverbs_ioctl_method *uverbs_ioctl_find(u16 object_id,
							   u16 method_id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(uverbs_ioctl_methods); i++)
		if (uverbs_ioctl_methods[i].object_id == object_id &&
		    uverbs_ioctl_methods[i].method_id == method_id)
			return &uverbs_ioctl_methods[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Framing                                                             */
/* ------------------------------------------------------------------ */

/* Whether input bytes from @from to the end of the attribute are zero. */
static bool ioa_trailing_zero(const struct ib_uverbs_attr *attr, u16 from)
{
	const u8 __user *p;
	u8 buf[32];
	size_t n;
	u16 left;

	if (attr->len <= sizeof(attr->data))
		return !memchr_inv((const u8 *)&attr->data + from, 0,
				   attr->len - from);
	p = u64_to_user_ptr(attr->data) + from;
	for (left = attr->len - from; left; left -= n, p += n) {
		n = min_t(size_t, left, sizeof(buf));
		if (copy_from_user(buf, p, n) || memchr_inv(buf, 0, n))
			return false;
	}
	return true;
}

/* Check attribute @idx of the call against the method's specs. */
static int ioa_check(struct uverbs_ioctl_call *call, unsigned int idx)
{
	const struct ib_uverbs_attr *attr = &call->uattrs[idx];
	const struct uverbs_ioa_spec *spec;
	int s;

	s = ioa_spec_index(call->method, attr->attr_id);
	if (s < 0)
		return attr->flags & UVERBS_ATTR_F_MANDATORY ?
		       -EPROTONOSUPPORT : 0;
	if (call->attr_idx[s] >= 0)
		return -EINVAL;
	spec = &call->method->specs[s];

	switch (spec->kind) {
	case UVERBS_IOA_PTR_IN:
		if (attr->len > spec->max_len && spec->zero_trailing &&
		    !ioa_trailing_zero(attr, spec->max_len))
			return -EOPNOTSUPP;
		fallthrough;
	case UVERBS_IOA_PTR_OUT:
		if (attr->len < spec->min_len ||
		    (!spec->zero_trailing && attr->len > spec->max_len))
			return -EINVAL;
		if (attr->attr_data.reserved)
			return -EINVAL;
		break;
	default:
		if (attr->attr_data.reserved || attr->len)
			return -EINVAL;
		break;
	}
	call->attr_idx[s] = idx;
	return 0;
}

static int uverbs_ioctl_run(struct uverbs_ioctl_call *call,
			    unsigned int num_attrs)
{
	const struct uverbs_ioctl_method *method = call->method;
	unsigned int i;
	int ret;

	/* a table too big for attr_idx[] is our bug */
	if (WARN_ON_ONCE(method->num_specs > UVERBS_IOA_MAX_SPECS))
		return -EINVAL;
	for (i = 0; i < method->num_specs; i++)
		call->attr_idx[i] = -1;
	for (i = 0; i < num_attrs; i++) {
		ret = ioa_check(call, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < method->num_specs; i++)
		if (method->specs[i].mandatory && call->attr_idx[i] < 0)
			return -EINVAL;

	if (method->has_udata)
		ioa_fill_udata(call, &call->driver_udata, UVERBS_ATTR_UHW_IN,
			       UVERBS_ATTR_UHW_OUT);

	ret = method->handler(call);
	/* the driver may have written its output: say so, as upstream */
	if (!ret && method->has_udata) {
		int idx = ioa_index(call, UVERBS_ATTR_UHW_OUT);

		if (idx >= 0)
			ret = ioa_set_output(call, idx);
	}
	/* a new object appears only if the whole call succeeded */
	if (call->new_uobj) {
		if (ret)
			uobj_alloc_destroy(call->new_uobj);
		else
			uobj_alloc_commit(call->new_uobj);
	}
	for (i = 0; i < call->num_held; i++)
		uobj_put_read(call->held[i]);
	/* reserved for "no such method or attribute": see the top */
	if (WARN_ON_ONCE(ret == -EPROTONOSUPPORT))
		ret = -EINVAL;
	return ret;
}

static int uverbs_ioctl_call(struct ib_uverbs_file *ufile,
			     struct ib_device *ib_dev,
			     const struct ib_uverbs_ioctl_hdr *hdr,
			     struct ib_uverbs_attr __user *user_attrs)
{
	struct uverbs_ioctl_call call = {
		.ufile = ufile,
		.ib_dev = ib_dev,
		.user_attrs = user_attrs,
	};
	int ret;

	if (hdr->driver_id != ib_dev->ops->driver_id)
		return -EINVAL;
	call.method = uverbs_ioctl_find(hdr->object_id, hdr->method_id);
	if (!call.method)
		return -EPROTONOSUPPORT;

	if (hdr->num_attrs) {
		call.uattrs = memdup_user(user_attrs,
					  array_size(hdr->num_attrs,
						     sizeof(*user_attrs)));
		if (IS_ERR(call.uattrs))
			return PTR_ERR(call.uattrs);
	}
	ret = uverbs_ioctl_run(&call, hdr->num_attrs);
	kfree(call.uattrs);
	return ret;
}

/**
 * ib_uverbs_ioctl - the ioctl of a uverbs file
 * @filp: the file
 * @cmd: must be RDMA_VERBS_IOCTL
 * @arg: user pointer to struct ib_uverbs_ioctl_hdr and its attributes
 *
 * Return: 0 or a negative errno (see the top of this file); -ENOIOCTLCMD
 * for other commands, -EIO once the device is gone.
 */
long ib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct ib_uverbs_ioctl_hdr __user *user_hdr =
		(struct ib_uverbs_ioctl_hdr __user *)arg;
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_device *udev = ufile->device;
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_device *ib_dev;
	int srcu_key;
	long ret;

	if (cmd != RDMA_VERBS_IOCTL)
		return -ENOIOCTLCMD;
	if (copy_from_user(&hdr, user_hdr, sizeof(hdr)))
		return -EFAULT;
	if (hdr.length > PAGE_SIZE ||
	    hdr.length != struct_size(&hdr, attrs, hdr.num_attrs))
		return -EINVAL;
	if (hdr.reserved1 || hdr.reserved2)
		return -EPROTONOSUPPORT;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	ib_dev = srcu_dereference(udev->ib_dev, &udev->disassociate_srcu);
	if (ib_dev)
		ret = uverbs_ioctl_call(ufile, ib_dev, &hdr, user_hdr->attrs);
	else
		ret = -EIO;
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}
