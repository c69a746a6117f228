// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The async event file: an anonymous file ("[infinibandevent]") created by
 * GET_CONTEXT, from which the process reads struct ib_uverbs_async_event_desc
 * records, one per read(), blocking or not, with poll() and SIGIO.
 *
 * It receives the device's port events (element = port number) from the
 * moment its context is complete.  When the context is torn down (close
 * of the uverbs file or removal of the device) the file is closed: queued
 * events are dropped and read() fails with -EIO, but the file itself stays
 * until userspace closes it.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs.h"

/**
 * struct ib_uverbs_async_file - the state behind an async event file
 * @ref: held by the anonymous file and by the uverbs file
 * @lock: see below
 * @is_closed: the context is gone; no event will come
 * @event_list: queued struct ib_uverbs_event, oldest first
 * @poll_wait: readers and pollers wait here
 * @async_queue: SIGIO subscribers
 * @handler: the device event handler, registered by
 *	ib_uverbs_async_file_start()
 * @handler_registered: @handler is on the device's list
 */
struct ib_uverbs_async_file {
	struct kref		ref;
	/* protects is_closed and event_list */
	spinlock_t		lock;
	bool			is_closed;
	struct list_head	event_list;
	wait_queue_head_t	poll_wait;
	struct fasync_struct	*async_queue;
	struct ib_event_handler	handler;
	bool			handler_registered;
};

/* One queued event. */
struct ib_uverbs_event {
	struct ib_uverbs_async_event_desc	desc;
	struct list_head			list;
};

static void ib_uverbs_async_file_free(struct kref *ref)
{
	struct ib_uverbs_async_file *async_file =
		container_of(ref, struct ib_uverbs_async_file, ref);

	WARN_ON(!list_empty(&async_file->event_list));
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

/* Mark closed, drop what is queued and wake everybody up. */
static void ib_uverbs_async_file_shut(struct ib_uverbs_async_file *async_file)
{
	struct ib_uverbs_event *ev, *tmp;
	LIST_HEAD(dropped);

	spin_lock_irq(&async_file->lock);
	async_file->is_closed = true;
	list_splice_init(&async_file->event_list, &dropped);
	spin_unlock_irq(&async_file->lock);

	list_for_each_entry_safe(ev, tmp, &dropped, list)
		kfree(ev);
	wake_up_interruptible(&async_file->poll_wait);
	kill_fasync(&async_file->async_queue, SIGIO, POLL_IN);
}

static void ib_uverbs_async_queue(struct ib_uverbs_async_file *async_file,
				  u64 element, u32 event_type)
{
	struct ib_uverbs_event *ev;
	unsigned long flags;

	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev)
		return;
	ev->desc.element = element;
	ev->desc.event_type = event_type;

	spin_lock_irqsave(&async_file->lock, flags);
	if (async_file->is_closed) {
		spin_unlock_irqrestore(&async_file->lock, flags);
		kfree(ev);
		return;
	}
	list_add_tail(&ev->list, &async_file->event_list);
	spin_unlock_irqrestore(&async_file->lock, flags);

	wake_up_interruptible(&async_file->poll_wait);
	kill_fasync(&async_file->async_queue, SIGIO, POLL_IN);
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
				      event->event);
		break;
	default:
		break;
	}
}

static bool ib_uverbs_async_readable(struct ib_uverbs_async_file *async_file)
{
	bool ret;

	spin_lock_irq(&async_file->lock);
	ret = !list_empty(&async_file->event_list) || async_file->is_closed;
	spin_unlock_irq(&async_file->lock);
	return ret;
}

static ssize_t ib_uverbs_async_read(struct file *filp, char __user *buf,
				    size_t count, loff_t *pos)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;
	struct ib_uverbs_event *ev;
	int ret;

	if (count < sizeof(ev->desc))
		return -EINVAL;

	spin_lock_irq(&async_file->lock);
	while (list_empty(&async_file->event_list)) {
		if (async_file->is_closed) {
			spin_unlock_irq(&async_file->lock);
			return -EIO;
		}
		spin_unlock_irq(&async_file->lock);

		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(async_file->poll_wait,
					       ib_uverbs_async_readable(async_file));
		if (ret)
			return ret;
		spin_lock_irq(&async_file->lock);
	}
	ev = list_first_entry(&async_file->event_list, struct ib_uverbs_event,
			      list);
	list_del(&ev->list);
	spin_unlock_irq(&async_file->lock);

	ret = copy_to_user(buf, &ev->desc, sizeof(ev->desc)) ? -EFAULT : 0;
	kfree(ev);
	return ret ? ret : sizeof(ev->desc);
}

static __poll_t ib_uverbs_async_poll(struct file *filp,
				     struct poll_table_struct *wait)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &async_file->poll_wait, wait);

	spin_lock_irq(&async_file->lock);
	if (!list_empty(&async_file->event_list))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (async_file->is_closed)
		mask = EPOLLERR;
	spin_unlock_irq(&async_file->lock);
	return mask;
}

static int ib_uverbs_async_fasync(int fd, struct file *filp, int on)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;

	return fasync_helper(fd, filp, on, &async_file->async_queue);
}

static int ib_uverbs_async_release(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_async_file *async_file = filp->private_data;

	ib_uverbs_async_file_shut(async_file);
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

/**
 * ib_uverbs_alloc_async_file - create the async event file of a context
 * @ufile: the uverbs file whose context it serves
 * @ib_dev: the device whose events it will receive
 * @filp: set to the new anonymous file, not yet installed in a descriptor
 *
 * The result holds two references: one owned by @filp (dropped when it is
 * released, with fput() if it is never installed) and one for @ufile
 * (dropped with ib_uverbs_async_file_close() or, if the context is never
 * made, ib_uverbs_async_file_put()).
 *
 * Return: the state or an ERR_PTR().
 */
struct ib_uverbs_async_file *
ib_uverbs_alloc_async_file(struct ib_uverbs_file *ufile,
			   struct ib_device *ib_dev, struct file **filp)
{
	struct ib_uverbs_async_file *async_file;
	struct file *f;

	async_file = kzalloc(sizeof(*async_file), GFP_KERNEL);
	if (!async_file)
		return ERR_PTR(-ENOMEM);
	kref_init(&async_file->ref);
	spin_lock_init(&async_file->lock);
	INIT_LIST_HEAD(&async_file->event_list);
	init_waitqueue_head(&async_file->poll_wait);
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
 * ib_uverbs_async_file_start - start delivering device events
 * @async_file: the state, of a context that is now complete
 */
void ib_uverbs_async_file_start(struct ib_uverbs_async_file *async_file)
{
	ib_register_event_handler(&async_file->handler);
	async_file->handler_registered = true;
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
	ib_uverbs_async_file_shut(async_file);
	ib_uverbs_async_file_put(async_file);
}
