// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LSM hooks of InfiniBand: which P_Keys a QP or a MAD agent may use
 * (security_ib_pkey_access(), SELinux's infiniband_pkey class) and who
 * may manage a subnet through a port's QP0 (security_ib_endport_manage_
 * subnet(), infiniband_endport).  Built only with CONFIG_SECURITY_INFINIBAND;
 * core_priv.h gives the stubs.
 *
 * QPs: every RC, UC and UD QP has an LSM blob, allocated with its
 * creator's credentials.  A modify that sets the port or P_Key index of
 * the primary or alternate path is refused (-EACCES) unless the LSM
 * allows the P_Key at that index, under the port's subnet prefix.  The
 * (port, index) pairs in force are listed per port, so that when a port's
 * P_Key table or subnet prefix changes, or the LSM's policy, every QP
 * using it is checked again and moved to the error state (with
 * IB_EVENT_QP_FATAL) if it may no longer use its P_Key.
 *
 * MAD agents: every agent has a blob.  A QP0 agent needs the right to
 * manage the subnet through its port, at registration and whenever the
 * policy changes (agent->smp_allowed); a QP1 agent may send and receive
 * only with P_Keys the LSM allows.
 *
 * Locking: ib_sec_lock (a mutex) protects the per-port lists, the pairs of
 * every QP and the fields of struct ib_qp_security.  It is never held
 * while a QP is modified by the enforcement: QPs to move to the error
 * state are collected under it, counted in error_pending, and handled
 * after it is dropped; a QP being destroyed waits for that count to drop.
 * The lock order is qp->mutex, then ib_sec_lock.  ib_sec_agents_lock (a
 * spinlock) protects the list of QP0 agents.
 */
#include <linux/security.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "core_priv.h"

/* protects the qp_pkeys lists of every port and struct ib_qp_security */
static DEFINE_MUTEX(ib_sec_lock);
/* protects ib_sec_agents */
static DEFINE_SPINLOCK(ib_sec_agents_lock);
/* the MAD agents of QP0, for policy changes */
static LIST_HEAD(ib_sec_agents);

static struct list_head *ib_sec_port_list(struct ib_device *device, u32 port)
{
	return &device->port_data[port].qp_pkeys;
}

/* May @lsm use the P_Key at @pkey_index of @port? */
static int ib_sec_pkey_access(struct ib_device *device, u32 port,
			      u16 pkey_index, void *lsm)
{
	u64 prefix;
	u16 pkey;
	int ret;

	if (rdma_port_get_link_layer(device, port) != IB_LINK_LAYER_INFINIBAND)
		return 0;
	ret = ib_get_cached_pkey(device, port, pkey_index, &pkey);
	if (ret)
		return ret;
	ret = ib_get_cached_subnet_prefix(device, port, &prefix);
	if (ret)
		return ret;
	return security_ib_pkey_access(lsm, prefix, pkey);
}

static void ib_sec_list_add(struct ib_qp_pkey *pp)
{
	if (pp->valid)
		list_add_tail(&pp->entry,
			      ib_sec_port_list(pp->sec->qp->device, pp->port));
}

static void ib_sec_list_del(struct ib_qp_pkey *pp)
{
	if (pp->valid)
		list_del(&pp->entry);
}

/**
 * ib_qp_security_create() - give a new QP its LSM blob
 * @qp: a QP just created, RC, UC or UD; the special QPs belong to the
 *	MAD layer, whose agents are checked instead
 *
 * Context: process context, of the QP's creator.
 * Return: 0, or a negative errno (the LSM's, or -ENOMEM).
 */
int ib_qp_security_create(struct ib_qp *qp)
{
	struct ib_qp_security *sec;
	int ret;

	if (qp->qp_type == IB_QPT_SMI || qp->qp_type == IB_QPT_GSI)
		return 0;
	sec = kzalloc(sizeof(*sec), GFP_KERNEL);
	if (!sec)
		return -ENOMEM;
	ret = security_ib_alloc_security(&sec->lsm);
	if (ret) {
		kfree(sec);
		return ret;
	}
	sec->qp = qp;
	sec->main.sec = sec;
	sec->alt.sec = sec;
	INIT_LIST_HEAD(&sec->error_entry);
	init_completion(&sec->error_done);
	qp->qp_sec = sec;
	return 0;
}

/**
 * ib_qp_security_destroy_begin() - take a QP about to be destroyed out of
 *	the enforcement's reach
 * @qp: the QP
 *
 * Waits until no enforcement is moving it to the error state.  The
 * destroy then either succeeds (ib_qp_security_destroy_end()) or not
 * (ib_qp_security_destroy_abort()).
 */
void ib_qp_security_destroy_begin(struct ib_qp *qp)
{
	struct ib_qp_security *sec = qp->qp_sec;
	bool wait;

	if (!sec)
		return;
	mutex_lock(&ib_sec_lock);
	sec->destroying = true;
	ib_sec_list_del(&sec->main);
	ib_sec_list_del(&sec->alt);
	wait = sec->error_pending;
	mutex_unlock(&ib_sec_lock);
	if (wait)
		wait_for_completion(&sec->error_done);
}

/**
 * ib_qp_security_destroy_abort() - the destroy failed: the QP stays
 * @qp: the QP, after ib_qp_security_destroy_begin()
 *
 * Its pairs are enforced again, and checked now, since a change may have
 * been missed meanwhile.
 */
void ib_qp_security_destroy_abort(struct ib_qp *qp)
{
	struct ib_qp_security *sec = qp->qp_sec;
	struct ib_device *device = qp->device;
	bool denied = false;

	if (!sec)
		return;
	mutex_lock(&ib_sec_lock);
	sec->destroying = false;
	reinit_completion(&sec->error_done);
	ib_sec_list_add(&sec->main);
	ib_sec_list_add(&sec->alt);
	if (sec->main.valid)
		denied |= !!ib_sec_pkey_access(device, sec->main.port,
					       sec->main.pkey_index, sec->lsm);
	if (sec->alt.valid)
		denied |= !!ib_sec_pkey_access(device, sec->alt.port,
					       sec->alt.pkey_index, sec->lsm);
	mutex_unlock(&ib_sec_lock);
	if (denied)
		ib_security_qp_to_error(qp);
}

/**
 * ib_qp_security_destroy_end() - free the LSM state of a destroyed QP
 * @qp: the QP, after ib_qp_security_destroy_begin() and a destroy that
 *	succeeded
 */
void ib_qp_security_destroy_end(struct ib_qp *qp)
{
	struct ib_qp_security *sec = qp->qp_sec;

	if (!sec)
		return;
	security_ib_free_security(sec->lsm);
	kfree(sec);
	qp->qp_sec = NULL;
}

/* The pair a modify leaves in force for one path. */
static void ib_sec_new_pair(struct ib_qp_pkey *new, const struct ib_qp_pkey *cur,
			    bool set_port, u32 port, bool set_index,
			    u16 index)
{
	*new = *cur;
	INIT_LIST_HEAD(&new->entry);
	if (set_port)
		new->port = port;
	if (set_index)
		new->pkey_index = index;
	new->valid = new->valid || (set_port && set_index);
}

/**
 * ib_qp_security_modify() - modify a QP, with the LSM's say on its P_Keys
 * @qp: the QP; qp->mutex held
 * @attr: the attributes
 * @mask: which of them apply
 * @udata: the user's driver data, or NULL
 *
 * When the modify sets a port or a P_Key index, the LSM must allow the
 * P_Keys of the paths that result; the new pairs are listed before the
 * check, so that a cache change racing with it sees them.  Calls the
 * driver's modify_qp.
 *
 * Return: 0, -EACCES if the LSM refuses a P_Key, or the driver's error.
 */
int ib_qp_security_modify(struct ib_qp *qp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct ib_qp_security *sec = qp->qp_sec;
	struct ib_device *device = qp->device;
	struct ib_qp_pkey main, alt;
	int ret = 0;

	lockdep_assert_held(&qp->mutex);
	if (!sec || !(mask & (IB_QP_PORT | IB_QP_PKEY_INDEX | IB_QP_ALT_PATH)))
		return device->ops->modify_qp(qp, attr, mask, udata);

	mutex_lock(&ib_sec_lock);
	ib_sec_new_pair(&main, &sec->main, mask & IB_QP_PORT, attr->port_num,
			mask & IB_QP_PKEY_INDEX, attr->pkey_index);
	/* a primary pair starts from the QP's port once the index is set */
	if (!main.valid && mask & IB_QP_PKEY_INDEX) {
		main.port = qp->port;
		main.valid = true;
	}
	ib_sec_new_pair(&alt, &sec->alt, mask & IB_QP_ALT_PATH,
			attr->alt_port_num, mask & IB_QP_ALT_PATH,
			attr->alt_pkey_index);
	ib_sec_list_add(&main);
	ib_sec_list_add(&alt);
	mutex_unlock(&ib_sec_lock);

	if (main.valid)
		ret = ib_sec_pkey_access(device, main.port, main.pkey_index,
					 sec->lsm);
	if (!ret && alt.valid)
		ret = ib_sec_pkey_access(device, alt.port, alt.pkey_index,
					 sec->lsm);
	if (!ret)
		ret = device->ops->modify_qp(qp, attr, mask, udata);

	mutex_lock(&ib_sec_lock);
	ib_sec_list_del(&main);
	ib_sec_list_del(&alt);
	if (!ret) {
		ib_sec_list_del(&sec->main);
		ib_sec_list_del(&sec->alt);
		sec->main = main;
		sec->alt = alt;
		INIT_LIST_HEAD(&sec->main.entry);
		INIT_LIST_HEAD(&sec->alt.entry);
		ib_sec_list_add(&sec->main);
		ib_sec_list_add(&sec->alt);
	}
	mutex_unlock(&ib_sec_lock);
	return ret;
}

/**
 * ib_security_qp_to_error() - a QP may no longer use its P_Key
 * @qp: the QP, which the caller keeps alive
 *
 * Moves it to the error state and tells its consumer with
 * IB_EVENT_QP_FATAL.
 */
void ib_security_qp_to_error(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_event event = {
		.device = qp->device,
		.event = IB_EVENT_QP_FATAL,
		.element.qp = qp,
	};

	ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (qp->event_handler)
		qp->event_handler(&event, qp->qp_context);
}

/* Check every QP using @port again; those refused go to ERR. */
static void ib_sec_enforce_port(struct ib_device *device, u32 port)
{
	struct ib_qp_security *sec, *next;
	struct ib_qp_pkey *pp;
	LIST_HEAD(to_error);

	mutex_lock(&ib_sec_lock);
	list_for_each_entry(pp, ib_sec_port_list(device, port), entry) {
		sec = pp->sec;
		if (sec->destroying || !list_empty(&sec->error_entry))
			continue;
		if (!ib_sec_pkey_access(device, port, pp->pkey_index,
					sec->lsm))
			continue;
		sec->error_pending++;
		list_add_tail(&sec->error_entry, &to_error);
	}
	mutex_unlock(&ib_sec_lock);

	list_for_each_entry_safe(sec, next, &to_error, error_entry) {
		ib_security_qp_to_error(sec->qp);
		mutex_lock(&ib_sec_lock);
		list_del_init(&sec->error_entry);
		if (!--sec->error_pending && sec->destroying)
			complete(&sec->error_done);
		mutex_unlock(&ib_sec_lock);
	}
}

/**
 * ib_security_cache_change() - a port's P_Key table or GIDs changed
 * @device: the device
 * @port: the port, whose cache is already updated
 *
 * Context: process context (the event work).
 */
void ib_security_cache_change(struct ib_device *device, u32 port)
{
	ib_sec_enforce_port(device, port);
}

/* The LSM's policy changed: check every QP0 agent and every QP again. */
static void ib_sec_policy_work_fn(struct work_struct *work)
{
	struct ib_mad_agent *agent;
	struct ib_device *device;
	unsigned long index = 0;
	u32 port;

	spin_lock(&ib_sec_agents_lock);
	list_for_each_entry(agent, &ib_sec_agents, mad_agent_sec_list)
		WRITE_ONCE(agent->smp_allowed,
			   !security_ib_endport_manage_subnet(agent->security,
				dev_name(&agent->device->dev),
				agent->port_num));
	spin_unlock(&ib_sec_agents_lock);

	while ((device = ib_device_get_next(&index))) {
		for (port = rdma_start_port(device);
		     port <= rdma_end_port(device); port++)
			ib_sec_enforce_port(device, port);
		ib_device_put(device);
		index++;
	}
}

static DECLARE_WORK(ib_sec_policy_work, ib_sec_policy_work_fn);

static int ib_sec_lsm_notify(struct notifier_block *nb, unsigned long event,
			     void *data)
{
	if (event == LSM_POLICY_CHANGE)
		schedule_work(&ib_sec_policy_work);
	return NOTIFY_DONE;
}

static struct notifier_block ib_sec_lsm_nb = {
	.notifier_call = ib_sec_lsm_notify,
};

/**
 * ib_security_init() - follow the LSM's policy changes
 *
 * Return: 0 or a negative errno.
 */
int ib_security_init(void)
{
	return register_blocking_lsm_notifier(&ib_sec_lsm_nb);
}

/**
 * ib_security_cleanup() - stop following them
 */
void ib_security_cleanup(void)
{
	unregister_blocking_lsm_notifier(&ib_sec_lsm_nb);
	flush_work(&ib_sec_policy_work);
}

/**
 * ib_mad_agent_security_setup() - the LSM's side of a new MAD agent
 * @agent: the agent, with its device, port and QP set
 * @qp_type: IB_QPT_SMI for an agent of QP0, else IB_QPT_GSI
 *
 * An agent of QP0 needs the right to manage the subnet through the port.
 *
 * Context: process context, of the registering task.
 * Return: 0, -EACCES, or another negative errno.
 */
int ib_mad_agent_security_setup(struct ib_mad_agent *agent,
				enum ib_qp_type qp_type)
{
	int ret;

	INIT_LIST_HEAD(&agent->mad_agent_sec_list);
	ret = security_ib_alloc_security(&agent->security);
	if (ret)
		return ret;
	if (qp_type != IB_QPT_SMI)
		return 0;

	ret = security_ib_endport_manage_subnet(agent->security,
						dev_name(&agent->device->dev),
						agent->port_num);
	if (ret) {
		security_ib_free_security(agent->security);
		agent->security = NULL;
		return ret;
	}
	WRITE_ONCE(agent->smp_allowed, true);
	spin_lock(&ib_sec_agents_lock);
	list_add(&agent->mad_agent_sec_list, &ib_sec_agents);
	spin_unlock(&ib_sec_agents_lock);
	return 0;
}

/**
 * ib_mad_agent_security_cleanup() - free the LSM's side of an agent
 * @agent: an agent that ib_mad_agent_security_setup() accepted
 */
void ib_mad_agent_security_cleanup(struct ib_mad_agent *agent)
{
	spin_lock(&ib_sec_agents_lock);
	list_del_init(&agent->mad_agent_sec_list);
	spin_unlock(&ib_sec_agents_lock);
	security_ib_free_security(agent->security);
	agent->security = NULL;
}

/**
 * ib_mad_enforce_security() - may an agent send or receive a MAD
 * @agent: the agent
 * @pkey_index: the P_Key index of the MAD (QP1)
 *
 * Return: 0, or -EACCES (or another errno of the P_Key lookup).
 */
int ib_mad_enforce_security(struct ib_mad_agent *agent, u16 pkey_index)
{
	if (agent->qp->qp_type == IB_QPT_SMI)
		return READ_ONCE(agent->smp_allowed) ? 0 : -EACCES;
	return ib_sec_pkey_access(agent->device, agent->port_num, pkey_index,
				  agent->security);
}
