// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The per-file handle table: every object a process creates through a
 * uverbs file gets a handle (the lowest free number from 0, as upstream),
 * a type that every lookup checks, and a use count that lets commands use
 * an object concurrently while a destroy waits for nobody: a destroy of an
 * object in use fails with -EBUSY.  The objects themselves are made and
 * destroyed by the core (core/verbs.c); this file only names them.
 *
 * A new object is invisible (its handle reserved, lookups fail) until
 * uobj_alloc_commit(), so a command that fails after creating the
 * hardware object can take it back without anyone having seen it.
 *
 * At close or device removal uverbs_destroy_ufile() destroys all objects,
 * newest first, and repeats while it makes progress, so that an object
 * that another one still uses is freed after it; the user context goes
 * last.
 *
 * Locking: the handle table (the objects xarray of the file) has its own
 * lock, lookups run under RCU and take a reference (ref) of the object;
 * the file's uobj_lock protects its list of committed objects; an
 * object's usecnt (atomic: readers count up, a destroy holds it at -1)
 * arbitrates between its users and its destroyer.  The teardown runs
 * under the file's ctx_mutex, with no command running on the file.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "uverbs.h"

/**
 * uverbs_ufile_init - set up the object table of a new file
 * @ufile: the file
 */
void uverbs_ufile_init(struct ib_uverbs_file *ufile)
{
	xa_init_flags(&ufile->objects, XA_FLAGS_ALLOC);
	spin_lock_init(&ufile->uobj_lock);
	INIT_LIST_HEAD(&ufile->uobj_list);
	spin_lock_init(&ufile->comp_lock);
	INIT_LIST_HEAD(&ufile->comp_files);
}

/**
 * uverbs_get_ucontext - the user context of a file
 * @ufile: the file
 *
 * Return: the context, or NULL before GET_CONTEXT (and after teardown).
 */
struct ib_ucontext *uverbs_get_ucontext(struct ib_uverbs_file *ufile)
{
	/* pairs with the release store of GET_CONTEXT */
	return smp_load_acquire(&ufile->ucontext);
}

/* Give back the object's charge to its creator's rdma cgroup. */
static void uobj_uncharge(struct ib_uobject *uobj)
{
	ib_rdmacg_uncharge(&uobj->cg_obj, uobj->context->device,
			   RDMACG_RESOURCE_HCA_OBJECT);
}

static void uobj_free(struct kref *ref)
{
	struct ib_uobject *uobj = container_of(ref, struct ib_uobject, ref);

	/* lookups may still be looking at it under RCU */
	kfree_rcu(uobj, rcu);
}

/**
 * uobj_alloc_begin - start creating a user object
 * @type: its type
 * @ufile: the file it will belong to
 *
 * Reserves a handle.  The caller creates the hardware object, sets
 * @object and then calls uobj_alloc_commit(), or uobj_alloc_abort().
 *
 * The object is charged to the rdma cgroup of the calling process.
 *
 * Return: the object, ERR_PTR(-EINVAL) if the file has no context yet,
 * ERR_PTR(-EAGAIN) if the cgroup is at its limit of objects for the
 * device, or another ERR_PTR().
 */
struct ib_uobject *uobj_alloc_begin(const struct uverbs_obj_type *type,
				    struct ib_uverbs_file *ufile)
{
	struct ib_ucontext *uctx = uverbs_get_ucontext(ufile);
	struct ib_uobject *uobj;
	int ret;

	if (!uctx)
		return ERR_PTR(-EINVAL);

	uobj = kzalloc(max(type->obj_size, sizeof(*uobj)), GFP_KERNEL);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	ret = ib_rdmacg_try_charge(&uobj->cg_obj, uctx->device,
				   RDMACG_RESOURCE_HCA_OBJECT);
	if (ret) {
		kfree(uobj);
		return ERR_PTR(ret);
	}
	uobj->ufile = ufile;
	uobj->context = uctx;
	uobj->type = type;
	/* nobody can look it up yet; keep it locked until committed anyway */
	atomic_set(&uobj->usecnt, -1);
	kref_init(&uobj->ref);
	INIT_LIST_HEAD(&uobj->list);

	/* a NULL entry reserves the handle: lookups see nothing there */
	ret = xa_alloc(&ufile->objects, &uobj->id, NULL, xa_limit_31b,
		       GFP_KERNEL);
	if (ret) {
		uobj_uncharge(uobj);
		kfree(uobj);
		return ERR_PTR(ret == -EBUSY ? -ENFILE : ret);
	}
	return uobj;
}

/**
 * uobj_alloc_commit - make a new object visible under its handle
 * @uobj: from uobj_alloc_begin(), with @object set
 */
void uobj_alloc_commit(struct ib_uobject *uobj)
{
	struct ib_uverbs_file *ufile = uobj->ufile;
	void *old;

	spin_lock(&ufile->uobj_lock);
	list_add(&uobj->list, &ufile->uobj_list);
	spin_unlock(&ufile->uobj_lock);

	atomic_set(&uobj->usecnt, 0);
	/* the slot exists, so this allocates nothing and cannot fail */
	old = xa_store(&ufile->objects, uobj->id, uobj, GFP_KERNEL);
	WARN_ON(old);
}

/**
 * uobj_alloc_abort - give up creating an object
 * @uobj: from uobj_alloc_begin(); its hardware object is already gone
 */
void uobj_alloc_abort(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->objects, uobj->id);
	uobj_uncharge(uobj);
	kfree(uobj);
}

/**
 * uobj_alloc_destroy - give up creating an object whose hardware object
 *	exists
 * @uobj: from uobj_alloc_begin(), with @object set, not committed
 *
 * For a command that failed after creating the hardware object (e.g.
 * writing its response): the type's destroy frees it as for a user's
 * destroy, then the handle is released.  Nobody has seen the object, so
 * nothing uses it and no event of it was read.
 */
void uobj_alloc_destroy(struct ib_uobject *uobj)
{
	struct ib_udata no_udata = {};

	WARN_ON(uobj->type->destroy(uobj, UVERBS_REMOVE_DESTROY, &no_udata));
	uobj_alloc_abort(uobj);
}

/* Find the object behind a handle and take a reference to it. */
static struct ib_uobject *uobj_find(const struct uverbs_obj_type *type,
				    struct ib_uverbs_file *ufile, u32 id)
{
	struct ib_uobject *uobj;

	rcu_read_lock();
	uobj = xa_load(&ufile->objects, id);
	if (uobj && !kref_get_unless_zero(&uobj->ref))
		uobj = NULL;
	rcu_read_unlock();

	if (!uobj)
		return ERR_PTR(-ENOENT);
	if (uobj->type != type) {
		kref_put(&uobj->ref, uobj_free);
		return ERR_PTR(-EINVAL);
	}
	return uobj;
}

/**
 * uobj_get_read - look up an object to use it
 * @type: the type the handle must have
 * @ufile: the file
 * @id: the handle
 *
 * Return: the object, to be released with uobj_put_read(); or
 * ERR_PTR(-ENOENT) for an unknown handle, -EINVAL for one of another type,
 * -EBUSY for an object being destroyed.
 */
struct ib_uobject *uobj_get_read(const struct uverbs_obj_type *type,
				 struct ib_uverbs_file *ufile, u32 id)
{
	struct ib_uobject *uobj = uobj_find(type, ufile, id);

	if (IS_ERR(uobj))
		return uobj;
	if (!atomic_add_unless(&uobj->usecnt, 1, -1)) {
		kref_put(&uobj->ref, uobj_free);
		return ERR_PTR(-EBUSY);
	}
	return uobj;
}

/**
 * uobj_put_read - stop using an object from uobj_get_read()
 * @uobj: the object
 */
void uobj_put_read(struct ib_uobject *uobj)
{
	atomic_dec(&uobj->usecnt);
	kref_put(&uobj->ref, uobj_free);
}

/* Take a destroyed object out of the table and drop the table's reference. */
static void uobj_remove(struct ib_uobject *uobj)
{
	struct ib_uverbs_file *ufile = uobj->ufile;

	xa_erase(&ufile->objects, uobj->id);
	spin_lock(&ufile->uobj_lock);
	list_del(&uobj->list);
	spin_unlock(&ufile->uobj_lock);
	uobj_uncharge(uobj);
	kref_put(&uobj->ref, uobj_free);
}

/**
 * uobj_get_destroy - look up an object to destroy it
 * @type: the type the handle must have
 * @ufile: the file
 * @id: the handle
 *
 * Return: the object, locked exclusively and referenced, for
 * uobj_destroy_locked() and then uobj_put_destroy(); or ERR_PTR() as
 * uobj_get_read(), -EBUSY also while a command uses the object.
 */
struct ib_uobject *uobj_get_destroy(const struct uverbs_obj_type *type,
				    struct ib_uverbs_file *ufile, u32 id)
{
	struct ib_uobject *uobj = uobj_find(type, ufile, id);

	if (IS_ERR(uobj))
		return uobj;
	if (atomic_cmpxchg(&uobj->usecnt, 0, -1) != 0) {
		kref_put(&uobj->ref, uobj_free);
		return ERR_PTR(-EBUSY);
	}
	return uobj;
}

/**
 * uobj_destroy_locked - destroy an object from uobj_get_destroy()
 * @uobj: the object
 * @udata: the command's driver data
 *
 * On success the handle is gone but @uobj stays readable until
 * uobj_put_destroy(); on failure the object stays and is unlocked.
 *
 * Return: 0 or the error of the type's destroy.
 */
int uobj_destroy_locked(struct ib_uobject *uobj, struct ib_udata *udata)
{
	int ret;

	ret = uobj->type->destroy(uobj, UVERBS_REMOVE_DESTROY, udata);
	if (ret) {
		atomic_set(&uobj->usecnt, 0);
		return ret;
	}
	uobj_remove(uobj);
	return 0;
}

/**
 * uobj_put_destroy - drop the reference of uobj_get_destroy()
 * @uobj: the object
 */
void uobj_put_destroy(struct ib_uobject *uobj)
{
	kref_put(&uobj->ref, uobj_free);
}

/**
 * uobj_destroy - destroy an object at the user's request
 * @type: the type the handle must have
 * @ufile: the file
 * @id: the handle
 * @udata: the command's driver data
 *
 * Return: 0; or as uobj_get_read(), -EBUSY also while a command uses the
 * object; or the error of the type's destroy, the object then stays.
 */
int uobj_destroy(const struct uverbs_obj_type *type,
		 struct ib_uverbs_file *ufile, u32 id,
		 struct ib_udata *udata)
{
	struct ib_uobject *uobj = uobj_get_destroy(type, ufile, id);
	int ret;

	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = uobj_destroy_locked(uobj, udata);
	uobj_put_destroy(uobj);
	return ret;
}

/*
 * One pass over the file's objects, newest first.  Returns true if it
 * destroyed anything.  No command runs on the file (see uverbs.h), so the
 * list cannot change under us except by our own removals.
 */
static bool uverbs_destroy_pass(struct ib_uverbs_file *ufile,
				enum uverbs_remove_reason why)
{
	struct ib_udata no_udata = {};
	struct ib_uobject *uobj, *next;
	bool progress = false;

	list_for_each_entry_safe(uobj, next, &ufile->uobj_list, list) {
		WARN_ON(atomic_read(&uobj->usecnt));
		atomic_set(&uobj->usecnt, -1);
		if (uobj->type->destroy(uobj, why, &no_udata)) {
			atomic_set(&uobj->usecnt, 0);
			continue;
		}
		uobj_remove(uobj);
		progress = true;
	}
	return progress;
}

/**
 * uverbs_destroy_ufile - destroy every object and the context of a file
 * @ufile: the file
 * @why: UVERBS_REMOVE_CLOSE or UVERBS_REMOVE_DRIVER_REMOVE
 *
 * Called when the file is closed and when its device goes away, with no
 * command running on the file; whichever comes first does the work, the
 * other finds nothing to do.  The async event file is closed too.  An
 * object that cannot be destroyed is a bug of its type (dependencies are
 * resolved by the repeated passes): it is reported and its handle
 * dropped, leaving the hardware object to the core's leak report.
 */
void uverbs_destroy_ufile(struct ib_uverbs_file *ufile,
			  enum uverbs_remove_reason why)
{
	struct ib_uverbs_async_file *async_file;
	struct ib_ucontext *uctx;
	struct ib_uobject *uobj, *next;

	mutex_lock(&ufile->ctx_mutex);
	if (ufile->destroyed)
		goto out_unlock;
	ufile->destroyed = true;
	uctx = ufile->ucontext;
	if (!uctx)
		goto out_unlock;

	while (!list_empty(&ufile->uobj_list) &&
	       uverbs_destroy_pass(ufile, why))
		;
	list_for_each_entry_safe(uobj, next, &ufile->uobj_list, list) {
		WARN(1, "uverbs: %s object %u cannot be destroyed\n",
		     uobj->type->name, uobj->id);
		uobj_remove(uobj);
	}

	/* no CQ is left to queue completion events */
	ib_uverbs_comp_files_close(ufile);

	async_file = ufile->async_file;
	WRITE_ONCE(ufile->async_file, NULL);
	if (async_file)
		ib_uverbs_async_file_close(async_file);
	WRITE_ONCE(ufile->ucontext, NULL);
	ib_dealloc_ucontext(uctx);
out_unlock:
	mutex_unlock(&ufile->ctx_mutex);
}

/* ------------------------------------------------------------------ */
/* Object types                                                        */
/* ------------------------------------------------------------------ */

static int uverbs_free_pd(struct ib_uobject *uobj,
			  enum uverbs_remove_reason why,
			  struct ib_udata *udata)
{
	return ib_dealloc_pd_user(uobj->object, udata);
}

const struct uverbs_obj_type uverbs_type_pd = {
	.name = "PD",
	.destroy = uverbs_free_pd,
};
