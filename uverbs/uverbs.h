/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_uverbs: private structures of the user verbs module.
 *
 * Who does what:
 *   main.c   the module, the "uverbs" client, the character devices
 *            /dev/infiniband/uverbsN, their class and file operations,
 *            device removal (disassociation)
 *   handles.c the per-file handle table: handles, types, lookup, and
 *            the destruction of everything at close or removal
 *   cmd.c    the write() command ABI: header checks, context, device
 *            and PD commands, the command table; the ioctl's DEVICE
 *            (INVOKE_WRITE into the command table among them),
 *            ASYNC_EVENT and PD methods
 *   ioctl.c  the ioctl command ABI (RDMA_VERBS_IOCTL): header and
 *            attribute checks against the method's table, the lookup of
 *            the method among the objects of ioctl.h, the accessors of
 *            the attributes, the end of a call (new object committed or
 *            destroyed, held objects released)
 *   cmd_cq.c completion channels and CQs; the CQ methods
 *   cmd_qp.c QPs, SRQs and their doorbells; the QP and SRQ methods
 *   cmd_mr.c MRs and AHs; their DESTROY methods
 *   ioctl.h  what the methods share: attribute specs, method and object
 *            tables, the call and its accessors
 *   event.c  the event files: the async one (GET_CONTEXT write command
 *            or ASYNC_EVENT/ALLOC method) and the completion channels
 *   marshall.c QP attributes, address handles and path records in the
 *            user structures, for rdma_ucm.ko (<rdma/ib_marshall.h>)
 *
 * Lifetime and locking, from the outside in:
 *
 * A struct ib_uverbs_device exists for every ib_device the client
 * accepted; its struct device (the class device uverbsN) is reference
 * counted and each open file holds a reference, so it outlives the
 * ib_device.  Its @ib_dev pointer is cleared when the ib_device goes away.
 * Every system call on a uverbs file runs inside an SRCU read section of
 * @disassociate_srcu and fails with -EIO if @ib_dev is NULL; the client's
 * remove callback clears @ib_dev, waits with synchronize_srcu() for the
 * calls in flight and then destroys the objects of every open file
 * ("disassociation"), so that the driver can go.  The files stay open and
 * keep failing with -EIO until they are closed.
 *
 * Since no command runs during a file's teardown (close has no callers
 * left, removal waited for them), commands never race with the
 * destruction of all objects; commands of one file may race with each
 * other, which the per-object use count handles.
 */
#ifndef UVERBS_H
#define UVERBS_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

/*
 * Character device numbers, as upstream: 32 fixed minors 192..223 of major
 * 231, then a dynamically allocated region for further devices.
 */
#define IB_UVERBS_MAJOR			231
#define IB_UVERBS_BASE_MINOR		192
#define IB_UVERBS_NUM_FIXED_MINOR	32
#define IB_UVERBS_MAX_DEVICES		1024
#define IB_UVERBS_NUM_DYNAMIC_MINOR	\
	(IB_UVERBS_MAX_DEVICES - IB_UVERBS_NUM_FIXED_MINOR)

/**
 * struct ib_uverbs_device - the character device of one ib_device
 * @dev: the class device uverbsN; its reference count is the lifetime
 * @cdev: the character device
 * @ib_dev: the ib_device, NULL once it has been removed; read under
 *	@disassociate_srcu
 * @disassociate_srcu: every system call on a file of this device is a
 *	read section; removal waits for them
 * @lists_mutex: see below
 * @file_list: the open files (struct ib_uverbs_file.list)
 * @devnum: N of uverbsN
 * @abi_ver: the driver's uverbs ABI version, for sysfs and netlink
 */
struct ib_uverbs_device {
	struct device			dev;
	struct cdev			cdev;
	struct ib_device __rcu		*ib_dev;
	struct srcu_struct		disassociate_srcu;
	/* protects file_list; held across the teardown of all files */
	struct mutex			lists_mutex;
	struct list_head		file_list;
	u32				devnum;
	u32				abi_ver;
};

struct ib_uverbs_async_file;

/**
 * struct ib_uverbs_file - one open file of /dev/infiniband/uverbsN
 * @ref: held by the open file; the state is freed with the last one
 * @device: the uverbs device; the file holds a reference on its @dev
 * @ctx_mutex: see below
 * @ucontext: the context created by GET_CONTEXT, NULL before and after;
 *	published with smp_store_release() once complete, read by commands
 *	with smp_load_acquire()
 * @async_file: the async event file of @ucontext
 * @destroyed: the file's objects and context are gone for good; no new
 *	context may be created
 * @objects: handle -> struct ib_uobject; its own lock protects it
 * @uobj_lock: see below
 * @uobj_list: the committed objects, newest first
 * @comp_lock: see below
 * @comp_files: the completion channels created by the file, open or not
 *	yet released (struct ib_uverbs_comp_file)
 * @driver_module: the driver's module, referenced from the first mmap()
 *	until the file is freed; set once, with cmpxchg()
 * @list: entry in the device's file_list
 */
struct ib_uverbs_file {
	struct kref			ref;
	struct ib_uverbs_device		*device;
	/*
	 * serialises GET_CONTEXT against itself and against the teardown of
	 * the file; protects the writing of ucontext, async_file, destroyed
	 */
	struct mutex			ctx_mutex;
	struct ib_ucontext		*ucontext;
	struct ib_uverbs_async_file	*async_file;
	bool				destroyed;
	struct xarray			objects;
	/* protects uobj_list */
	spinlock_t			uobj_lock;
	struct list_head		uobj_list;
	/* protects comp_files */
	spinlock_t			comp_lock;
	struct list_head		comp_files;
	struct module			*driver_module;
	struct list_head		list;
};

/* Why an object is destroyed. */
enum uverbs_remove_reason {
	UVERBS_REMOVE_DESTROY,		/* a user command */
	UVERBS_REMOVE_CLOSE,		/* the file is closed */
	UVERBS_REMOVE_DRIVER_REMOVE,	/* the device goes away */
};

struct ib_uobject;

/**
 * struct uverbs_obj_type - a kind of user object
 * @name: for messages
 * @obj_size: size of the structure that embeds struct ib_uobject first
 * @destroy: free the hardware object behind @uobj.  May fail (e.g. with
 *	-EBUSY while other objects use it) only for UVERBS_REMOVE_DESTROY,
 *	or for the other reasons while objects that depend on it are still
 *	there; the object then stays.
 */
struct uverbs_obj_type {
	const char *name;
	size_t obj_size;
	int (*destroy)(struct ib_uobject *uobj,
		       enum uverbs_remove_reason why,
		       struct ib_udata *udata);
};

extern const struct uverbs_obj_type uverbs_type_pd;
extern const struct uverbs_obj_type uverbs_type_cq;
extern const struct uverbs_obj_type uverbs_type_qp;
extern const struct uverbs_obj_type uverbs_type_srq;
extern const struct uverbs_obj_type uverbs_type_ah;
extern const struct uverbs_obj_type uverbs_type_mr;

/**
 * struct ib_uobject - a user object: what a handle of a file names
 * @ufile: the file it belongs to
 * @context: the user context it was created in
 * @type: what kind of object
 * @object: the ib_* object (struct ib_pd, ...)
 * @user_handle: the user's cookie, echoed in events
 * @id: the handle
 * @usecnt: commands using the object: > 0 shared users, -1 one exclusive
 *	user (a destroy)
 * @ref: lookups in flight and the table's own reference
 * @list: entry in the file's uobj_list
 * @rcu: the object is freed after a grace period, for lockless lookup
 * @cg_obj: its charge (one hca_object) to the rdma cgroup of its creator,
 *	from uobj_alloc_begin() until it leaves the handle table
 */
struct ib_uobject {
	struct ib_uverbs_file		*ufile;
	struct ib_ucontext		*context;
	const struct uverbs_obj_type	*type;
	void				*object;
	u64				user_handle;
	u32				id;
	atomic_t			usecnt;
	struct kref			ref;
	struct list_head		list;
	struct rcu_head			rcu;
	struct ib_rdmacg_object		cg_obj;
};

/**
 * struct ib_uevent_object - a user object that has async events (QP, SRQ;
 *	the base of a CQ's)
 * @uobject: the object
 * @event_list: its unread events on the async event file; protected by
 *	that file's queue lock
 * @events_reported: its async events read so far; written under the same
 *	lock
 */
struct ib_uevent_object {
	struct ib_uobject	uobject;
	struct list_head	event_list;
	u32			events_reported;
};

struct ib_uverbs_comp_file;

/**
 * struct ib_ucq_object - a user CQ
 * @uevent: the object and its async events
 * @comp_file: its completion channel (referenced), or NULL
 * @comp_list: its unread completion events; protected by @comp_file's
 *	queue lock
 * @comp_events_reported: its completion events read so far; written under
 *	the same lock
 */
struct ib_ucq_object {
	struct ib_uevent_object		uevent;
	struct ib_uverbs_comp_file	*comp_file;
	struct list_head		comp_list;
	u32				comp_events_reported;
};

/**
 * struct uverbs_cmd_ctx - one write() command being executed, from write()
 *	or from the ioctl's INVOKE_WRITE
 * @ufile: the file
 * @ib_dev: the device, valid for the command's duration (SRCU)
 * @inbuf: the core request, after the header(s)
 * @inlen: its length
 * @outbuf: the core response (user pointer from the request, or the
 *	CORE_OUT attribute)
 * @outlen: its length
 * @driver_udata: the driver's part of request and response
 * @responded: uverbs_response() wrote the core response
 */
struct uverbs_cmd_ctx {
	struct ib_uverbs_file	*ufile;
	struct ib_device	*ib_dev;
	const void __user	*inbuf;
	size_t			inlen;
	void __user		*outbuf;
	size_t			outlen;
	struct ib_udata		driver_udata;
	bool			responded;
};

/**
 * struct uverbs_async_fd - an async event file being created
 * @async_file: its state
 * @filp: the file
 * @fd: the descriptor reserved for it
 */
struct uverbs_async_fd {
	struct ib_uverbs_async_file	*async_file;
	struct file			*filp;
	int				fd;
};

/* main.c */
void ib_uverbs_release_file(struct kref *ref);

/* cmd.c */
ssize_t ib_uverbs_write_cmd(struct ib_uverbs_file *ufile,
			    struct ib_device *ib_dev,
			    const char __user *buf, size_t count);
int uverbs_request(struct uverbs_cmd_ctx *ctx, void *req, size_t req_len);
int uverbs_response(struct uverbs_cmd_ctx *ctx, const void *resp,
		    size_t resp_len);

/* ioctl.c (the methods: ioctl.h) */
long ib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

/* cmd_cq.c, cmd_qp.c, cmd_mr.c: the commands, see cmd.c's table */
int uverbs_cmd_create_comp_channel(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_create_cq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_ex_create_cq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_destroy_cq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_req_notify_cq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_create_qp(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_ex_create_qp(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_modify_qp(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_ex_modify_qp(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_query_qp(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_destroy_qp(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_attach_mcast(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_detach_mcast(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_post_send(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_post_recv(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_post_srq_recv(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_create_srq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_modify_srq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_query_srq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_destroy_srq(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_reg_mr(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_dereg_mr(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_create_ah(struct uverbs_cmd_ctx *ctx);
int uverbs_cmd_destroy_ah(struct uverbs_cmd_ctx *ctx);

/* handles.c */
void uverbs_ufile_init(struct ib_uverbs_file *ufile);
struct ib_ucontext *uverbs_get_ucontext(struct ib_uverbs_file *ufile);
struct ib_uobject *uobj_alloc_begin(const struct uverbs_obj_type *type,
				    struct ib_uverbs_file *ufile);
void uobj_alloc_commit(struct ib_uobject *uobj);
void uobj_alloc_abort(struct ib_uobject *uobj);
void uobj_alloc_destroy(struct ib_uobject *uobj);
struct ib_uobject *uobj_get_read(const struct uverbs_obj_type *type,
				 struct ib_uverbs_file *ufile, u32 id);
void uobj_put_read(struct ib_uobject *uobj);
int uobj_destroy(const struct uverbs_obj_type *type,
		 struct ib_uverbs_file *ufile, u32 id,
		 struct ib_udata *udata);
struct ib_uobject *uobj_get_destroy(const struct uverbs_obj_type *type,
				    struct ib_uverbs_file *ufile, u32 id);
int uobj_destroy_locked(struct ib_uobject *uobj, struct ib_udata *udata);
void uobj_put_destroy(struct ib_uobject *uobj);
void uverbs_destroy_ufile(struct ib_uverbs_file *ufile,
			  enum uverbs_remove_reason why);

/* event.c */
int ib_uverbs_async_fd_create(struct ib_device *ib_dev,
			      struct uverbs_async_fd *afd);
void ib_uverbs_async_fd_abort(struct uverbs_async_fd *afd);
void ib_uverbs_async_fd_install(struct ib_uverbs_file *ufile,
				struct uverbs_async_fd *afd);
void ib_uverbs_async_file_close(struct ib_uverbs_async_file *async_file);
void ib_uverbs_async_file_put(struct ib_uverbs_async_file *async_file);
int ib_uverbs_async_fd_check(struct ib_uverbs_file *ufile, int fd);
void ib_uverbs_object_event(struct ib_uevent_object *uevent, u32 event_type);
void ib_uverbs_object_forget_events(struct ib_uevent_object *uevent);
struct ib_uverbs_comp_file *
ib_uverbs_alloc_comp_file(struct ib_uverbs_file *ufile, struct file **filp);
struct ib_uverbs_comp_file *
ib_uverbs_comp_file_get(struct ib_uverbs_file *ufile, int fd);
void ib_uverbs_comp_file_hold(struct ib_uverbs_comp_file *comp_file);
void ib_uverbs_comp_file_put(struct ib_uverbs_comp_file *comp_file);
void ib_uverbs_comp_event(struct ib_ucq_object *ucq);
void ib_uverbs_cq_forget_events(struct ib_ucq_object *ucq);
void ib_uverbs_comp_files_close(struct ib_uverbs_file *ufile);

#endif /* UVERBS_H */
