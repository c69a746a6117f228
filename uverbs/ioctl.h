/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_uverbs: the methods of the verbs ioctl (RDMA_VERBS_IOCTL) as the
 * files implementing them see them.
 *
 * ioctl.c parses a call, finds its method in the tables of the objects
 * below, checks the call's attributes against the method's table of the
 * attributes it knows (struct uverbs_ioa_spec) and runs the method's
 * handler.  The handlers live beside the write() commands they mirror,
 * as upstream's uverbs_std_types_*.c: cmd.c has the DEVICE, ASYNC_EVENT
 * and PD objects, cmd_cq.c the CQ, cmd_qp.c the QP and SRQ, cmd_mr.c the
 * MR and AH.  Each of those files describes its objects' methods in a
 * struct uverbs_ioctl_object; a handler reads and writes the call's
 * attributes with the ioa_*() accessors of ioctl.c.
 *
 * Locking: none of its own.  A call (struct uverbs_ioctl_call) belongs
 * to the thread making it; the objects a handler looks up with
 * ioa_get_obj() stay held for reading until the call ends, and the whole
 * call runs in the device's disassociation SRCU read section.
 */
#ifndef UVERBS_IOCTL_H
#define UVERBS_IOCTL_H

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
 * @method_id: the object's UVERBS_METHOD_*
 * @has_udata: the method takes UHW_IN/UHW_OUT as the driver's data
 * @handler: executes the call once its attributes passed the checks
 * @specs: the attributes the method knows
 * @num_specs: their number
 */
struct uverbs_ioctl_method {
	u16	method_id;
	bool	has_udata;
	int	(*handler)(struct uverbs_ioctl_call *call);
	const struct uverbs_ioa_spec *specs;
	unsigned int num_specs;
};

/**
 * struct uverbs_ioctl_object - an object of the ioctl and its methods
 * @object_id: UVERBS_OBJECT_*
 * @methods: its methods
 * @num_methods: their number
 */
struct uverbs_ioctl_object {
	u16				object_id;
	const struct uverbs_ioctl_method *methods;
	unsigned int			num_methods;
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

/*
 * The specs of the DESTROY methods whose only attribute is the handle,
 * attribute 0 (PD, MR, AH); their handlers call ioa_destroy().
 */
extern const struct uverbs_ioa_spec uverbs_ioa_destroy_specs[1];

/* ioctl.c: the attributes of a call, for the handlers */
int ioa_index(const struct uverbs_ioctl_call *call, u16 id);
bool ioa_has(const struct uverbs_ioctl_call *call, u16 id);
int ioa_set_output(struct uverbs_ioctl_call *call, int idx);
int ioa_get_const(const struct uverbs_ioctl_call *call, u16 id,
		  u64 max, u64 *val);
int ioa_get_flags(const struct uverbs_ioctl_call *call, u16 id,
		  u64 allowed, u64 *flags);
int ioa_get_handle(const struct uverbs_ioctl_call *call, u16 id,
		   u32 *handle);
int ioa_get_inline(const struct uverbs_ioctl_call *call, u16 id,
		   void *to, size_t size);
int ioa_get_fd(const struct uverbs_ioctl_call *call, u16 id, int *fd);
int ioa_copy_from(const struct uverbs_ioctl_call *call, u16 id,
		  void *to, size_t size);
int ioa_copy_to(struct uverbs_ioctl_call *call, u16 id,
		const void *from, size_t size, bool zero);
int ioa_put_data(struct uverbs_ioctl_call *call, u16 id, s64 value);
void ioa_fill_udata(const struct uverbs_ioctl_call *call,
		    struct ib_udata *udata, u16 in_id, u16 out_id);
void *ioa_get_obj(struct uverbs_ioctl_call *call, u16 id,
		  const struct uverbs_obj_type *type);
int ioa_check_event_fd(const struct uverbs_ioctl_call *call, u16 id);
int ioa_new_uobj(struct uverbs_ioctl_call *call, u16 id,
		 struct ib_uobject *uobj);
int ioa_destroy(struct uverbs_ioctl_call *call,
		const struct uverbs_obj_type *type);

static inline struct ib_ucontext *ioa_ucontext(struct uverbs_ioctl_call *call)
{
	return uverbs_get_ucontext(call->ufile);
}

/* the objects, with their methods */
extern const struct uverbs_ioctl_object uverbs_ioctl_object_device;
extern const struct uverbs_ioctl_object uverbs_ioctl_object_async_event;
extern const struct uverbs_ioctl_object uverbs_ioctl_object_pd;
extern const struct uverbs_ioctl_object uverbs_ioctl_object_mr;
extern const struct uverbs_ioctl_object uverbs_ioctl_object_ah;
extern const struct uverbs_ioctl_object uverbs_ioctl_object_cq;
extern const struct uverbs_ioctl_object uverbs_ioctl_object_qp;
extern const struct uverbs_ioctl_object uverbs_ioctl_object_srq;

#endif /* UVERBS_IOCTL_H */
