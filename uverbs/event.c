// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The event files: anonymous files ("[infinibandevent]") from which the
 * process reads one event record per read(), blocking or not, with poll()
 * and SIGIO.
 *
 * The async event file, created by the GET_CONTEXT write command or the
 * ASYNC_EVENT/ALLOC method (after the GET_CONTEXT method), carries struct
 * ib_uverbs_async_event_desc records: the device's port events (element =
 * port number) from the moment its context is complete, and the events of
 * the context's QPs, CQs and SRQs (element = the object's user_handle).
 * A completion channel, created by CREATE_COMP_CHANNEL, carries struct
 * ib_uverbs_comp_event_desc records of the CQs attached to it.
 *
 * Every queued event of an object is also on that object's list, so that
 * destroying the object can take back the events nobody has read, and
 * reading an event counts it in the object's counter: DESTROY_CQ, _QP and
 * _SRQ report the events delivered, which libibverbs waits for the
 * application to acknowledge.  The queue's lock protects both lists.
 *
 * When the context is torn down (close of the uverbs file or removal of
 * the device) the files are closed: queued events are dropped and read()
 * fails with -EIO, but the files stay until userspace closes them.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs.h"

/**
 * struct ib_uverbs_event_queue - the events of one event file
 * @lock: see below
 * @is_closed: the context is gone; no event will come
 * @event_list: queued struct ib_uverbs_event, oldest first
 * @poll_wait: readers and pollers wait here
 * @async_queue: SIGIO subscribers
 */
struct ib_uverbs_event_queue {
	/*
	 * protects is_closed, event_list and the object lists (obj_list) of
	 * the queued events; taken in interrupt context by event handlers
	 */
	spinlock_t		lock;
	bool			is_closed;
	struct list_head	event_list;
	wait_queue_head_t	poll_wait;
	struct fasync_struct	*async_queue;
};

/**
 * struct ib_uverbs_async_file - the state behind an async event file
 * @ref: held by the anonymous file and by the uverbs file
 * @ev_queue: its events
 * @handler: the device event handler, registered by
 *	ib_uverbs_async_fd_install()
 * @handler_registered: @handler is on the device's list
 */
struct ib_uverbs_async_file {
	struct kref			ref;
	struct ib_uverbs_event_queue	ev_queue;
	struct ib_event_handler		handler;
	bool				handler_registered;
};

/**
 * struct ib_uverbs_comp_file - the state behind a completion channel
 * @ref: held by the anonymous file and by every CQ attached to it
 * @ev_queue: its events
 * @ufile: the uverbs file it was created by; referenced
 * @list: entry in @ufile's comp_files
 */
struct ib_uverbs_comp_file {
	struct kref			ref;
	struct ib_uverbs_event_queue	ev_queue;
	struct ib_uverbs_file		*ufile;
	struct list_head		list;
};

/**
 * struct ib_uverbs_event - one queued event
 * @desc: the record read() returns
 * @list: entry in the queue's event_list
 * @obj_list: entry in the list of the object it concerns (self-linked for
 *	port events)
 * @counter: incremented when the event is read, or NULL
 */
struct ib_uverbs_event {
	union {
		struct ib_uverbs_async_event_desc	async;
		struct ib_uverbs_comp_event_desc	comp;
	} desc;
	struct list_head	list;
	struct list_head	obj_list;
	u32			*counter;
};

/* ------------------------------------------------------------------ */
/* Event queues                                                        */
/* ------------------------------------------------------------------ */

static void uverbs_ev_queue_init(struct ib_uverbs_event_queue *ev_queue)
{
	spin_lock_init(&ev_queue->lock);
	INIT_LIST_HEAD(&ev_queue->event_list);
	init_waitqueue_head(&ev_queue->poll_wait);
}

/* Mark closed, drop what is queued and wake everybody up. */
static void uverbs_ev_queue_shut(struct ib_uverbs_event_queue *ev_queue)
{
	struct ib_uverbs_event *ev, *tmp;
	LIST_HEAD(dropped);

	spin_lock_irq(&ev_queue->lock);
	ev_queue->is_closed = true;
	list_for_each_entry_safe(ev, tmp, &ev_queue->event_list, list) {
		list_del_init(&ev->obj_list);
		list_move_tail(&ev->list, &dropped);
	}
	spin_unlock_irq(&ev_queue->lock);

	list_for_each_entry_safe(ev, tmp, &dropped, list)
		kfree(ev);
	wake_up_interruptible(&ev_queue->poll_wait);
	kill_fasync(&ev_queue->async_queue, SIGIO, POLL_IN);
}

/*
 * Queue @ev, on @obj_list too if not NULL.  Any context.  Consumes @ev
 * (freed if the queue is closed).
 */
static void uverbs_ev_queue_add(struct ib_uverbs_event_queue *ev_queue,
				struct ib_uverbs_event *ev,
				struct list_head *obj_list)
{
	unsigned long flags;

	spin_lock_irqsave(&ev_queue->lock, flags);
	if (ev_queue->is_closed) {
		spin_unlock_irqrestore(&ev_queue->lock, flags);
		kfree(ev);
		return;
	}
	list_add_tail(&ev->list, &ev_queue->event_list);
	if (obj_list)
		list_add_tail(&ev->obj_list, obj_list);
	else
		INIT_LIST_HEAD(&ev->obj_list);
	spin_unlock_irqrestore(&ev_queue->lock, flags);

	wake_up_interruptible(&ev_queue->poll_wait);
	kill_fasync(&ev_queue->async_queue, SIGIO, POLL_IN);
}

/* Take back the unread events of an object (@obj_list) from @ev_queue. */
static void uverbs_ev_queue_forget(struct ib_uverbs_event_queue *ev_queue,
				   struct list_head *obj_list)
{
	struct ib_uverbs_event *ev, *tmp;
	LIST_HEAD(dropped);

	spin_lock_irq(&ev_queue->lock);
	list_for_each_entry_safe(ev, tmp, obj_list, obj_list) {
		list_del_init(&ev->obj_list);
		list_move_tail(&ev->list, &dropped);
	}
	spin_unlock_irq(&ev_queue->lock);

	list_for_each_entry_safe(ev, tmp, &dropped, list)
		kfree(ev);
}

static bool uverbs_ev_queue_readable(struct ib_uverbs_event_queue *ev_queue)
{
	bool ret;

	spin_lock_irq(&ev_queue->lock);
	ret = !list_empty(&ev_queue->event_list) || ev_queue->is_closed;
	spin_unlock_irq(&ev_queue->lock);
	return ret;
}

static ssize_t uverbs_ev_queue_read(struct ib_uverbs_event_queue *ev_queue,
				    struct file *filp, char __user *buf,
				    size_t count, size_t eventsz)
{
	struct ib_uverbs_event *ev;
	int ret;

	if (count < eventsz)
		return -EINVAL;

	spin_lock_irq(&ev_queue->lock);
	while (list_empty(&ev_queue->event_list)) {
		if (ev_queue->is_closed) {
			spin_unlock_irq(&ev_queue->lock);
			return -EIO;
		}
		spin_unlock_irq(&ev_queue->lock);

		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(ev_queue->poll_wait,
					       uverbs_ev_queue_readable(ev_queue));
		if (ret)
			return ret;
		spin_lock_irq(&ev_queue->lock);
	}
	ev = list_first_entry(&ev_queue->event_list, struct ib_uverbs_event,
			      list);
	/*
	 * Delivered from now on; the object's destroy, which takes its
	 * events back under this lock, reads the counter after us.
	 */
	list_del(&ev->list);
	list_del(&ev->obj_list);
	if (ev->counter)
		++*ev->counter;
	spin_unlock_irq(&ev_queue->lock);

	ret = copy_to_user(buf, &ev->desc, eventsz) ? -EFAULT : 0;
	kfree(ev);
	return ret ? ret : eventsz;
}

static __poll_t uverbs_ev_queue_poll(struct ib_uverbs_event_queue *ev_queue,
				     struct file *filp,
				     struct poll_table_struct *wait)
{
	__poll_t mask = 0;

	poll_wait(filp, &ev_queue->poll_wait, wait);

	spin_lock_irq(&ev_queue->lock);
	if (!list_empty(&ev_queue->event_list))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (ev_queue->is_closed)
		mask = EPOLLERR;
	spin_unlock_irq(&ev_queue->lock);
	return mask;
}

/* ------------------------------------------------------------------ */
/* The async event file                                                */
/* ------------------------------------------------------------------ */

static void ib_uverbs_async_file_free(struct kref *ref)
{
	struct ib_uverbs_async_file *async_file =
		container_of(ref, struct ib_uverbs_async_file, ref);

	WARN_ON(!list_empty(&async_file->ev_queue.event_list));
	kfree(async_file);
}

/**
 * ib_uverbs_async_file_put - drop a reference to an async event file
 * @async_file: the file's state
 */
void ib_uverbs_async_file_put(struct ib_uverbs_async_file *async_file)
{
	kref_put(&async_file->ref, ib_uverbs_async_file_free);
}

static void ib_uverbs_async_queue(struct ib_uverbs_async_file *async_file,
				  u64 element, u32 event_type,
				  struct list_head *obj_list, u32 *counter)
{
	struct ib_uverbs_event *ev;

	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev)
		return;
	ev->desc.async.element = element;
	ev->desc.async.event_type = event_type;
	ev->counter = counter;
	uverbs_ev_queue_add(&async_file->ev_queue, ev, obj_list);
}

static void ib_uverbs_device_event(struct ib_event_handler *handler,
				   struct ib_event *event)
{
	struct ib_uverbs_async_file *async_file =
		container_of(handler, struct ib_uverbs_async_file, handler);

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_DEVICE_FATAL:
		ib_uverbs_async_queue(async_file, event->element.port_num,
				      event->event, NULL, NULL);
		break;
	default:
		break;
	}
}

/**
 * ib_uverbs_object_event - queue an event of a QP, CQ or SRQ
 * @uevent: the object's uverbs state
 * @event_type: enum ib_event_type
 *
 * Context: any; called by the driver's event handlers.
 */
void ib_uverbs_object_event(struct ib_uevent_object *uevent, u32 event_type)
{
	struct ib_uverbs_async_file *async_file;

	/* set before the context was published, cleared after the objects */
	async_file = READ_ONCE(uevent->uobject.ufile->async_file);
	if (!async_file)
		return;
	ib_uverbs_async_queue(async_file, uevent->uobject.user_handle,
			      event_type, &uevent->event_list,
			      &uevent->events_reported);
}

/**
 * ib_uverbs_object_forget_events - take back the unread async events of
 *	an object being destroyed
 * @uevent: the object's uverbs state; its hardware object is gone, so no
 *	new event comes
 *
 * After this @uevent->events_reported is final.
 */
void ib_uverbs_object_forget_events(struct ib_uevent_object *uevent)
{
	struct ib_uverbs_async_file *async_file =
		READ_ONCE(uevent->uobject.ufile->async_file);

	if (async_file)
		uverbs_ev_queue_forget(&async_file->ev_queue,
				       &uevent->event_list);
}

static ssize_t ib_uverbs_async_read(struct file *filp, char __user *buf,
				    size_t count, loff_t *pos)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;

	return uverbs_ev_queue_read(&async_file->ev_queue, filp, buf, count,
				    sizeof(struct ib_uverbs_async_event_desc));
}

static __poll_t ib_uverbs_async_poll(struct file *filp,
				     struct poll_table_struct *wait)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;

	return uverbs_ev_queue_poll(&async_file->ev_queue, filp, wait);
}

static int ib_uverbs_async_fasync(int fd, struct file *filp, int on)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;

	return fasync_helper(fd, filp, on, &async_file->ev_queue.async_queue);
}

static int ib_uverbs_async_release(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;

	uverbs_ev_queue_shut(&async_file->ev_queue);
	ib_uverbs_async_file_put(async_file);
	return 0;
}

static const struct file_operations ib_uverbs_async_fops = {
	.owner = THIS_MODULE,
	.read = ib_uverbs_async_read,
	.poll = ib_uverbs_async_poll,
	.fasync = ib_uverbs_async_fasync,
	.release = ib_uverbs_async_release,
	.llseek = no_llseek,
};

/*
 * Create the async event file of a context.  The result holds two
 * references: one owned by *@filp (dropped when it is released, with
 * fput() if it is never installed) and one for the uverbs file (dropped
 * with ib_uverbs_async_file_close(), or ib_uverbs_async_file_put() if the
 * file is never installed).
 */
static struct ib_uverbs_async_file *
ib_uverbs_alloc_async_file(struct ib_device *ib_dev, struct file **filp)
{
	struct ib_uverbs_async_file *async_file;
	struct file *f;

	async_file = kzalloc(sizeof(*async_file), GFP_KERNEL);
	if (!async_file)
		return ERR_PTR(-ENOMEM);
	kref_init(&async_file->ref);
	uverbs_ev_queue_init(&async_file->ev_queue);
	INIT_IB_EVENT_HANDLER(&async_file->handler, ib_dev,
			      ib_uverbs_device_event);

	f = anon_inode_getfile("[infinibandevent]", &ib_uverbs_async_fops,
			       async_file, O_RDONLY);
	if (IS_ERR(f)) {
		kfree(async_file);
		return ERR_CAST(f);
	}
	kref_get(&async_file->ref);
	*filp = f;
	return async_file;
}

/**
 * ib_uverbs_async_fd_create - prepare the async event file of a context
 * @ib_dev: the device whose events it will receive
 * @afd: filled with the new file and a reserved, not yet installed,
 *	descriptor for it
 *
 * Shared by the GET_CONTEXT write command and the ASYNC_EVENT/ALLOC
 * method.  The caller holds the uverbs file's ctx_mutex and ends with
 * ib_uverbs_async_fd_install() or ib_uverbs_async_fd_abort().
 *
 * Return: 0 or a negative errno.
 */
int ib_uverbs_async_fd_create(struct ib_device *ib_dev,
			      struct uverbs_async_fd *afd)
{
	int ret;

	afd->fd = get_unused_fd_flags(O_CLOEXEC);
	if (afd->fd < 0)
		return afd->fd;
	afd->async_file = ib_uverbs_alloc_async_file(ib_dev, &afd->filp);
	if (IS_ERR(afd->async_file)) {
		ret = PTR_ERR(afd->async_file);
		put_unused_fd(afd->fd);
		return ret;
	}
	return 0;
}

/**
 * ib_uverbs_async_fd_abort - give up an async event file before install
 * @afd: from ib_uverbs_async_fd_create()
 */
void ib_uverbs_async_fd_abort(struct uverbs_async_fd *afd)
{
	fput(afd->filp);
	ib_uverbs_async_file_put(afd->async_file);
	put_unused_fd(afd->fd);
}

/**
 * ib_uverbs_async_fd_install - make a prepared file the context's async
 *	event file and give the process its descriptor
 * @ufile: the uverbs file, with its ctx_mutex held and no async event
 *	file yet
 * @afd: from ib_uverbs_async_fd_create()
 *
 * Device events are delivered from now on; events of objects from now on
 * too (they read @ufile's async_file).
 */
void ib_uverbs_async_fd_install(struct ib_uverbs_file *ufile,
				struct uverbs_async_fd *afd)
{
	struct ib_uverbs_async_file *async_file = afd->async_file;

	WRITE_ONCE(ufile->async_file, async_file);
	ib_register_event_handler(&async_file->handler);
	async_file->handler_registered = true;
	fd_install(afd->fd, afd->filp);
}

/**
 * ib_uverbs_async_fd_check - whether a descriptor is the async event file
 *	of a uverbs file's context
 * @ufile: the uverbs file; a command of it is running
 * @fd: the descriptor
 *
 * For the EVENT_FD attribute of the create methods: the object's async
 * events go to that file, which must be the context's one (upstream
 * accepts the async event files of the same uverbs file only).
 *
 * Return: 0, or -EBADF if @fd is not open or not that file.
 */
int ib_uverbs_async_fd_check(struct ib_uverbs_file *ufile, int fd)
{
	struct fd f = fdget(fd);
	int ret = -EBADF;

	if (!f.file)
		return -EBADF;
	/* set once under ctx_mutex; cleared only at teardown, not now */
	if (f.file->f_op == &ib_uverbs_async_fops &&
	    f.file->private_data == READ_ONCE(ufile->async_file))
		ret = 0;
	fdput(f);
	return ret;
}

/**
 * ib_uverbs_async_file_close - the context of an async event file is gone
 * @async_file: the state; the uverbs file's reference is dropped
 *
 * Called while the device is still there.  Readers get -EIO from now on.
 */
void ib_uverbs_async_file_close(struct ib_uverbs_async_file *async_file)
{
	if (async_file->handler_registered) {
		ib_unregister_event_handler(&async_file->handler);
		async_file->handler_registered = false;
	}
	uverbs_ev_queue_shut(&async_file->ev_queue);
	ib_uverbs_async_file_put(async_file);
}

/* ------------------------------------------------------------------ */
/* Completion channels                                                 */
/* ------------------------------------------------------------------ */

static void ib_uverbs_comp_file_free(struct kref *ref)
{
	struct ib_uverbs_comp_file *comp_file =
		container_of(ref, struct ib_uverbs_comp_file, ref);

	WARN_ON(!list_empty(&comp_file->ev_queue.event_list));
	kref_put(&comp_file->ufile->ref, ib_uverbs_release_file);
	kfree(comp_file);
}

/**
 * ib_uverbs_comp_file_put - drop a reference to a completion channel
 * @comp_file: the channel's state
 */
void ib_uverbs_comp_file_put(struct ib_uverbs_comp_file *comp_file)
{
	kref_put(&comp_file->ref, ib_uverbs_comp_file_free);
}

static ssize_t ib_uverbs_comp_read(struct file *filp, char __user *buf,
				   size_t count, loff_t *pos)
{
	struct ib_uverbs_comp_file *comp_file = filp->private_data;

	return uverbs_ev_queue_read(&comp_file->ev_queue, filp, buf, count,
				    sizeof(struct ib_uverbs_comp_event_desc));
}

static __poll_t ib_uverbs_comp_poll(struct file *filp,
				    struct poll_table_struct *wait)
{
	struct ib_uverbs_comp_file *comp_file = filp->private_data;

	return uverbs_ev_queue_poll(&comp_file->ev_queue, filp, wait);
}

static int ib_uverbs_comp_fasync(int fd, struct file *filp, int on)
{
	struct ib_uverbs_comp_file *comp_file = filp->private_data;

	return fasync_helper(fd, filp, on, &comp_file->ev_queue.async_queue);
}

static int ib_uverbs_comp_release(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_comp_file *comp_file = filp->private_data;
	struct ib_uverbs_file *ufile = comp_file->ufile;

	spin_lock(&ufile->comp_lock);
	list_del(&comp_file->list);
	spin_unlock(&ufile->comp_lock);

	uverbs_ev_queue_shut(&comp_file->ev_queue);
	ib_uverbs_comp_file_put(comp_file);
	return 0;
}

static const struct file_operations ib_uverbs_comp_fops = {
	.owner = THIS_MODULE,
	.read = ib_uverbs_comp_read,
	.poll = ib_uverbs_comp_poll,
	.fasync = ib_uverbs_comp_fasync,
	.release = ib_uverbs_comp_release,
	.llseek = no_llseek,
};

/**
 * ib_uverbs_alloc_comp_file - create a completion channel
 * @ufile: the uverbs file creating it, which must have a context
 * @filp: set to the new anonymous file, not yet installed in a descriptor
 *
 * The only reference is @filp's (fput() it if it is never installed).
 *
 * Return: the state or an ERR_PTR().
 */
struct ib_uverbs_comp_file *
ib_uverbs_alloc_comp_file(struct ib_uverbs_file *ufile, struct file **filp)
{
	struct ib_uverbs_comp_file *comp_file;
	struct file *f;

	comp_file = kzalloc(sizeof(*comp_file), GFP_KERNEL);
	if (!comp_file)
		return ERR_PTR(-ENOMEM);
	kref_init(&comp_file->ref);
	uverbs_ev_queue_init(&comp_file->ev_queue);
	comp_file->ufile = ufile;
	kref_get(&ufile->ref);

	spin_lock(&ufile->comp_lock);
	list_add_tail(&comp_file->list, &ufile->comp_files);
	spin_unlock(&ufile->comp_lock);

	f = anon_inode_getfile("[infinibandevent]", &ib_uverbs_comp_fops,
			       comp_file, O_RDONLY);
	if (IS_ERR(f)) {
		spin_lock(&ufile->comp_lock);
		list_del(&comp_file->list);
		spin_unlock(&ufile->comp_lock);
		ib_uverbs_comp_file_put(comp_file);
		return ERR_CAST(f);
	}
	*filp = f;
	return comp_file;
}

/**
 * ib_uverbs_comp_file_get - the completion channel behind a descriptor
 * @ufile: the uverbs file that must have created it
 * @fd: the descriptor
 *
 * Return: the channel, referenced (ib_uverbs_comp_file_put()); or
 * ERR_PTR(-EINVAL) if @fd is not a completion channel of @ufile.
 */
struct ib_uverbs_comp_file *
ib_uverbs_comp_file_get(struct ib_uverbs_file *ufile, int fd)
{
	struct ib_uverbs_comp_file *comp_file = ERR_PTR(-EINVAL);
	struct fd f = fdget(fd);

	if (!f.file)
		return ERR_PTR(-EINVAL);
	if (f.file->f_op == &ib_uverbs_comp_fops) {
		comp_file = f.file->private_data;
		if (comp_file->ufile == ufile)
			kref_get(&comp_file->ref);
		else
			comp_file = ERR_PTR(-EINVAL);
	}
	fdput(f);
	return comp_file;
}

/**
 * ib_uverbs_comp_file_hold - take another reference to a completion
 *	channel
 * @comp_file: the channel's state, referenced by the caller
 */
void ib_uverbs_comp_file_hold(struct ib_uverbs_comp_file *comp_file)
{
	kref_get(&comp_file->ref);
}

/**
 * ib_uverbs_comp_event - queue a completion event of a CQ
 * @ucq: the CQ's uverbs state, attached to a channel
 *
 * Context: any; the CQ's completion handler.
 */
void ib_uverbs_comp_event(struct ib_ucq_object *ucq)
{
	struct ib_uverbs_event *ev;

	if (!ucq->comp_file)
		return;
	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev)
		return;
	ev->desc.comp.cq_handle = ucq->uevent.uobject.user_handle;
	ev->counter = &ucq->comp_events_reported;
	uverbs_ev_queue_add(&ucq->comp_file->ev_queue, ev, &ucq->comp_list);
}

/**
 * ib_uverbs_cq_forget_events - take back the unread completion events of
 *	a CQ being destroyed
 * @ucq: the CQ's uverbs state; the CQ is gone, so no new event comes
 *
 * After this @ucq->comp_events_reported is final.
 */
void ib_uverbs_cq_forget_events(struct ib_ucq_object *ucq)
{
	if (ucq->comp_file)
		uverbs_ev_queue_forget(&ucq->comp_file->ev_queue,
				       &ucq->comp_list);
}

/**
 * ib_uverbs_comp_files_close - the context of a file's channels is gone
 * @ufile: the uverbs file; all its CQs are destroyed
 *
 * Readers of the channels get -EIO from now on.
 */
void ib_uverbs_comp_files_close(struct ib_uverbs_file *ufile)
{
	struct ib_uverbs_comp_file *comp_file;

	spin_lock(&ufile->comp_lock);
	list_for_each_entry(comp_file, &ufile->comp_files, list)
		uverbs_ev_queue_shut(&comp_file->ev_queue);
	spin_unlock(&ufile->comp_lock);
}
