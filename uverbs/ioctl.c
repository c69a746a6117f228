// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl command ABI of /dev/infiniband/uverbsN, RDMA_VERBS_IOCTL:
 * its parser and dispatcher.  The methods themselves live beside the
 * write() commands of their objects (see ioctl.h); this file owns the
 * call (struct uverbs_ioctl_call), the checks of its attributes, the
 * lookup of its method, the accessors the handlers read and write the
 * attributes with, and what happens to the objects of a call when it
 * ends.  It has no lock of its own: a call belongs to the thread making
 * it, and the objects it uses are held through their use counts.
 *
 * One ioctl calls one method of one object.  Its argument, struct
 * ib_uverbs_ioctl_hdr, names them and is followed by the call's
 * attributes, struct ib_uverbs_attr, each an id, a length, flags and
 * 8 bytes of data: an inline value (length <= 8), a user pointer, an
 * object handle or a file descriptor.
 *
 * Every method declares the attributes it knows in a table (kind,
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
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ioctl.h"

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
int ioa_index(const struct uverbs_ioctl_call *call, u16 id)
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
int ioa_set_output(struct uverbs_ioctl_call *call, int idx)
{
	u16 flags = call->uattrs[idx].flags | UVERBS_ATTR_F_VALID_OUTPUT;

	if (put_user(flags, &call->user_attrs[idx].flags))
		return -EFAULT;
	return 0;
}

/* A u64 value of at most @max; -ENOENT without the attribute. */
int ioa_get_const(const struct uverbs_ioctl_call *call, u16 id,
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
int ioa_get_flags(const struct uverbs_ioctl_call *call, u16 id,
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
int ioa_get_handle(const struct uverbs_ioctl_call *call, u16 id,
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
int ioa_copy_to(struct uverbs_ioctl_call *call, u16 id,
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
int ioa_put_data(struct uverbs_ioctl_call *call, u16 id, s64 value)
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
void ioa_fill_udata(const struct uverbs_ioctl_call *call,
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
bool ioa_has(const struct uverbs_ioctl_call *call, u16 id)
{
	return ioa_index(call, id) >= 0;
}

/*
 * The value of an inline input attribute whose spec fixes its length to
 * @size (IOA_TYPE_IN, at most 8); -ENOENT without the attribute.
 */
int ioa_get_inline(const struct uverbs_ioctl_call *call, u16 id,
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
int ioa_copy_from(const struct uverbs_ioctl_call *call, u16 id,
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
void *ioa_get_obj(struct uverbs_ioctl_call *call, u16 id,
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
int ioa_get_fd(const struct uverbs_ioctl_call *call, u16 id, int *fd)
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
int ioa_check_event_fd(const struct uverbs_ioctl_call *call, u16 id)
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
int ioa_new_uobj(struct uverbs_ioctl_call *call, u16 id,
		 struct ib_uobject *uobj)
{
	call->new_uobj = uobj;
	return ioa_put_data(call, id, uobj->id);
}

/**
 * ioa_destroy - the handler of a DESTROY method whose only attribute is
 *	the handle, attribute 0 (uverbs_ioa_destroy_specs)
 * @call: the call
 * @type: the type of the object
 *
 * Return: 0 or a negative errno: -ENOENT for a missing attribute or an
 * unknown handle, -EINVAL for one of another type, -EBUSY for an object
 * in use, or the driver's error.
 */
int ioa_destroy(struct uverbs_ioctl_call *call,
		const struct uverbs_obj_type *type)
{
	u32 handle;
	int ret;

	ret = ioa_get_handle(call, 0, &handle);
	if (ret)
		return ret;
	return uobj_destroy(type, call->ufile, handle, &call->driver_udata);
}

const struct uverbs_ioa_spec uverbs_ioa_destroy_specs[1] = {
	IOA_OBJ(0, IOA_MANDATORY),
};

/* ------------------------------------------------------------------ */
/* The objects and their methods                                       */
/* ------------------------------------------------------------------ */

static const struct uverbs_ioctl_object *const uverbs_ioctl_objects[] = {
	&uverbs_ioctl_object_device,
	&uverbs_ioctl_object_async_event,
	&uverbs_ioctl_object_pd,
	&uverbs_ioctl_object_mr,
	&uverbs_ioctl_object_ah,
	&uverbs_ioctl_object_cq,
	&uverbs_ioctl_object_qp,
	&uverbs_ioctl_object_srq,
};

static const struct uverbs_ioctl_method *uverbs_ioctl_find(u16 object_id,
							   u16 method_id)
{
	const struct uverbs_ioctl_object *object;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(uverbs_ioctl_objects); i++) {
		object = uverbs_ioctl_objects[i];
		if (object->object_id != object_id)
			continue;
		for (j = 0; j < object->num_methods; j++)
			if (object->methods[j].method_id == method_id)
				return &object->methods[j];
		return NULL;
	}
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
