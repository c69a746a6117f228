// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The timewait state (IBA 12.9.7.3): after a connection ends, its QP
 * number and the other side's IDs stay unusable for a while, so that
 * packets still in the fabric cannot reach a new connection.  Here the
 * connection's cm_timewait stays in the remote tables (a REQ or REP
 * reusing the remote QP is then stale) and its identifier in TIMEWAIT
 * until a timer of twice the path's packet life time ends; then the
 * identifier is IDLE again and its consumer gets IB_CM_TIMEWAIT_EXIT.
 * An identifier destroyed meanwhile leaves its local ID reserved to the
 * end.  When the device goes away its timewaits end at once.
 *
 * Locking: cm.lock for the list and the tables, the identifier's lock
 * for its state; the timer is a delayed work of cm.wq.
 */
#include "cm_priv.h"

/**
 * cm_timewait_free - free a remote identity that never waited
 * @tw: the identity, in no table, or NULL
 */
void cm_timewait_free(struct cm_timewait *tw)
{
	kfree(tw);
}

static void cm_timewait_work(struct work_struct *w)
{
	struct cm_timewait *tw =
		container_of(to_delayed_work(w), struct cm_timewait, work);
	struct ib_cm_event event = {};
	struct cm_id_private *cm_id = NULL;
	unsigned long flags;
	bool deliver = false;

	spin_lock_irq(&cm.lock);
	tw->waiting = false;
	list_del_init(&tw->list);
	cm_remote_remove(tw);
	if (tw->orphan)
		cm_local_id_erase(tw->local_id);
	else
		cm_id = cm_id_find(tw->local_id, 0, false);
	spin_unlock_irq(&cm.lock);

	if (cm_id) {
		spin_lock_irqsave(&cm_id->lock, flags);
		if (cm_id->tw == tw) {
			cm_id->tw = NULL;
			if (cm_id->id.state == IB_CM_TIMEWAIT) {
				cm_set_state(cm_id, IB_CM_IDLE);
				deliver = !cm_id->destroying;
			}
		}
		spin_unlock_irqrestore(&cm_id->lock, flags);
		if (deliver) {
			event.event = IB_CM_TIMEWAIT_EXIT;
			cm_deliver(cm_id, &event);
		} else {
			cm_id_put(cm_id);
		}
	}
	cm_dev_put(tw->cm_dev);
	kfree(tw);
}

/**
 * cm_enter_timewait - an identifier's connection is over
 * @cm_id: the identifier, locked; any request of it already cancelled
 *
 * From here on its cm_timewait belongs to the timer.
 */
void cm_enter_timewait(struct cm_id_private *cm_id)
{
	struct cm_timewait *tw = cm_id->tw;
	struct cm_device *cm_dev = cm_id->cm_dev;
	/* twice the packet life time */
	u8 wait = min_t(u8, cm_id->path.packet_life_time + 1, 31);
	unsigned long delay;

	lockdep_assert_held(&cm_id->lock);
	cm_msg_cancel(cm_id);
	if (cm_id->id.state == IB_CM_TIMEWAIT)
		return;
	if (!tw) {
		cm_set_state(cm_id, IB_CM_IDLE);
		return;
	}
	cm_set_state(cm_id, IB_CM_TIMEWAIT);
	kref_get(&cm_dev->kref);
	tw->cm_dev = cm_dev;
	INIT_DELAYED_WORK(&tw->work, cm_timewait_work);
	spin_lock(&cm.lock);
	delay = cm_dev->going_down ? 0 :
		msecs_to_jiffies(cm_convert_to_ms(wait));
	tw->waiting = true;
	list_add_tail(&tw->list, &cm.timewaits);
	queue_delayed_work(cm.wq, &tw->work, delay);
	spin_unlock(&cm.lock);
}

/**
 * cm_timewait_expire_device - end the timewaits of a device now
 * @cm_dev: the device, being removed (later timewaits of it end at once)
 */
void cm_timewait_expire_device(struct cm_device *cm_dev)
{
	struct cm_timewait *tw;

	spin_lock_irq(&cm.lock);
	list_for_each_entry(tw, &cm.timewaits, list)
		if (tw->cm_dev == cm_dev)
			mod_delayed_work(cm.wq, &tw->work, 0);
	spin_unlock_irq(&cm.lock);
}
