// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The multicast module: kernel users' memberships of IB multicast groups,
 * made with the SA (MCMemberRecord Set and Delete, IBA 15.2.5.17) and
 * shared, so that the SA sees one membership per port, group and join
 * state however many kernel users join.
 *
 * Groups.  An internal client ("multicast") keeps per IB port a tree of
 * groups by MGID.  A group remembers the SA's record and the JoinState
 * bits the port holds at the SA, and two lists of members (the
 * ib_sa_multicast of each kernel user): those waiting for their join
 * state and those joined.  The first member of a join state makes the
 * group send a Set for that bit; later ones of the same bit get the
 * cached record.  When the last member of a bit is freed, the group sends
 * a Delete with that bit.  A join with a zero MGID (the SA picks one)
 * gets a group of its own that no other join shares.
 *
 * Everything a group does happens in its work item, on one ordered work
 * queue: the queries to the SA (one at a time per group) and every call
 * of a member's callback, so a callback never runs inside
 * ib_sa_join_multicast() and two never run at once.  A join whose SA
 * answer is an error tells every member waiting for that bit; those
 * members are dead and wait to be freed.  A port event that can lose the
 * memberships (PORT_ACTIVE, PORT_ERR, LID_CHANGE, SM_CHANGE,
 * CLIENT_REREGISTER, and PKEY_CHANGE for groups whose P_Key moved) resets
 * every group: its joined members are told -ENETRESET and wait again, and
 * once the port is ACTIVE the group joins anew and tells them 0 with the
 * new record.  A callback returning non-zero frees its membership.
 *
 * Lifetimes.  A group is referenced by its members, by a query in flight
 * and by its queued work; the last reference takes it out of the tree.
 * A port is referenced by its groups; removing the device waits for them.
 * A member is referenced by its user and while its callback runs;
 * ib_sa_free_multicast() waits for the callback.
 *
 * Locking.  A port's lock guards its tree; a group's lock its lists, the
 * states of its members and its own state.  A group's lock may be taken
 * under its port's lock, never the other way round.  No lock is held
 * while a callback runs or a query is sent.
 */
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>
#include <rdma/ib_sa.h>

#include "core_priv.h"
#include "sa.h"

/* how long an SA query of a group may take */
#define MCAST_QUERY_TIMEOUT_MS	3000
/* while the SM's address is unknown, a join waits this long between tries */
#define MCAST_RETRY_MS		200
#define MCAST_RETRIES		50

/**
 * struct mcast_port - the multicast groups of one port
 * @device: the device
 * @port_num: the port
 * @lock: see below
 * @table: the groups by the MGID they were made for
 * @refcount: one for the device, one per group
 * @comp: completed when @refcount drops to zero
 * @active: the port is ACTIVE, as the last port event said (read and
 *	written with READ_ONCE()/WRITE_ONCE())
 */
struct mcast_port {
	struct ib_device	*device;
	u32			port_num;
	/* protects table */
	spinlock_t		lock;
	struct rb_root		table;
	refcount_t		refcount;
	struct completion	comp;
	bool			active;
};

/**
 * struct mcast_device - the multicast module on one device
 * @event_handler: the device's port events
 * @num_ports: entries in @port
 * @port: by port number - 1; @device NULL on a port without SA
 */
struct mcast_device {
	struct ib_event_handler	event_handler;
	u32			num_ports;
	struct mcast_port	port[];
};

/**
 * struct mcast_group - one multicast group on one port
 * @rec: the SA's record of the group, valid while @join_state is not 0
 * @key: the MGID the group was made for, its key in the port's table
 *	(zero for a group whose MGID the SA picks; such groups are never
 *	looked up)
 * @node: in the port's table
 * @port: the port
 * @lock: see below
 * @pending: members waiting for their join state
 * @active: members joined
 * @join_state: the JoinState bits the port holds at the SA
 * @busy: a query is in flight
 * @query_method: its method (Set or Delete)
 * @query_bits: the JoinState bits it is for
 * @query_id: its id, for cancelling it
 * @query: its handle
 * @error_bit: a join for this bit failed: tell its waiting members
 * @error_status: with this status
 * @retries: tries left while the SM's address is unknown
 * @reset: a port event lost the memberships: tell the joined members
 * @pkey_index: the index of @rec's P_Key when it was joined
 * @refcount: members, a query in flight, a queued work
 * @work: does everything the group does
 */
struct mcast_group {
	struct ib_sa_mcmember_rec rec;
	union ib_gid		key;
	struct rb_node		node;
	struct mcast_port	*port;
	/* protects everything below but refcount and work */
	spinlock_t		lock;
	struct list_head	pending;
	struct list_head	active;
	u8			join_state;
	bool			busy;
	u8			query_method;
	u8			query_bits;
	int			query_id;
	struct ib_sa_query	*query;
	u8			error_bit;
	int			error_status;
	int			retries;
	bool			reset;
	u16			pkey_index;
	refcount_t		refcount;
	struct delayed_work	work;
};

enum mcast_member_state {
	MCAST_MEMBER_PENDING,	/* on the group's pending list */
	MCAST_MEMBER_ACTIVE,	/* on the group's active list */
	MCAST_MEMBER_ERROR,	/* its join failed; on no list */
	MCAST_MEMBER_FREED,	/* being freed; on no list */
};

/**
 * struct mcast_member - a kernel user's membership
 * @multicast: what the user sees
 * @client: the user's SA client, referenced
 * @group: the group, referenced
 * @list: in the group's pending or active list
 * @state: an &enum mcast_member_state, under the group's lock
 * @join_bit: the JoinState bit it wants (one of them)
 * @refcount: the user's, and one while a callback runs
 * @comp: completed when @refcount drops to zero
 */
struct mcast_member {
	struct ib_sa_multicast	multicast;
	struct ib_sa_client	*client;
	struct mcast_group	*group;
	struct list_head	list;
	enum mcast_member_state	state;
	u8			join_bit;
	refcount_t		refcount;
	struct completion	comp;
};

static struct workqueue_struct *mcast_wq;
static struct ib_client mcast_client;
/* the multicast module's own queries */
static struct ib_sa_client mcast_sa_client;

/* the MCMemberRecord query; a KUnit suite may put a fake SA here */
static ib_mcast_query_fn mcast_query = ib_sa_mcmember_rec_query;

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * ib_mcast_set_query_fn - replace the SA, for the suites
 * @fn: the fake MCMemberRecord query, NULL for the real one
 */
void ib_mcast_set_query_fn(ib_mcast_query_fn fn)
{
	WRITE_ONCE(mcast_query, fn ? fn : ib_sa_mcmember_rec_query);
}
EXPORT_SYMBOL_IF_KUNIT(ib_mcast_set_query_fn);

/**
 * ib_mcast_flush - wait until no group has work queued, for the suites
 */
void ib_mcast_flush(void)
{
	flush_workqueue(mcast_wq);
}
EXPORT_SYMBOL_IF_KUNIT(ib_mcast_flush);
#endif

static void mcast_port_put(struct mcast_port *port)
{
	if (refcount_dec_and_test(&port->refcount))
		complete(&port->comp);
}

static void mcast_group_put(struct mcast_group *group)
{
	struct mcast_port *port = group->port;
	unsigned long flags;

	if (!refcount_dec_and_lock_irqsave(&group->refcount, &port->lock,
					   &flags))
		return;
	rb_erase(&group->node, &port->table);
	spin_unlock_irqrestore(&port->lock, flags);
	kfree(group);
	mcast_port_put(port);
}

/* Run the group's work after @delay, with a reference for it. */
static void mcast_group_kick(struct mcast_group *group, unsigned long delay)
{
	refcount_inc(&group->refcount);
	if (mod_delayed_work(mcast_wq, &group->work, delay))
		mcast_group_put(group);	/* it was queued already */
}

static void mcast_member_put(struct mcast_member *member)
{
	if (refcount_dec_and_test(&member->refcount))
		complete(&member->comp);
}

/* Caller holds the port's lock. */
static struct mcast_group *mcast_find(struct mcast_port *port,
				      const union ib_gid *mgid)
{
	struct rb_node *node = port->table.rb_node;
	struct mcast_group *group;
	int cmp;

	while (node) {
		group = rb_entry(node, struct mcast_group, node);
		cmp = memcmp(mgid->raw, group->key.raw, sizeof(*mgid));
		if (!cmp)
			return group;
		node = cmp < 0 ? node->rb_left : node->rb_right;
	}
	return NULL;
}

/* Caller holds the port's lock; equal keys go right (zero MGIDs). */
static void mcast_insert(struct mcast_port *port, struct mcast_group *group)
{
	struct rb_node **link = &port->table.rb_node, *parent = NULL;
	struct mcast_group *cur;

	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct mcast_group, node);
		if (memcmp(group->key.raw, cur->key.raw, sizeof(group->key)) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&group->node, parent, link);
	rb_insert_color(&group->node, &port->table);
}

static void mcast_group_work(struct work_struct *work);

/*
 * Take a member off its group's lists for good.  Returns false if that
 * was done already (it is being freed).
 */
static bool mcast_member_detach(struct mcast_member *member)
{
	struct mcast_group *group = member->group;
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&group->lock, flags);
	first = member->state != MCAST_MEMBER_FREED;
	list_del_init(&member->list);
	member->state = MCAST_MEMBER_FREED;
	spin_unlock_irqrestore(&group->lock, flags);
	return first;
}

/* Free a detached member once no callback of it runs. */
static void mcast_member_end(struct mcast_member *member)
{
	struct mcast_group *group = member->group;
	struct ib_sa_client *client = member->client;

	/* the group leaves the join state if this was its last member */
	mcast_group_kick(group, 0);
	mcast_member_put(member);
	wait_for_completion(&member->comp);
	kfree(member);
	mcast_group_put(group);
	if (atomic_dec_and_test(&client->users))
		complete(&client->comp);
}

/*
 * The group of @mgid with a reference, made if there is none (and
 * always for a zero MGID).
 */
static struct mcast_group *mcast_get_group(struct mcast_port *port,
					   const union ib_gid *mgid,
					   gfp_t gfp_mask)
{
	struct mcast_group *group, *found;
	bool shared = memchr_inv(mgid->raw, 0, sizeof(*mgid));
	unsigned long flags;

	/* a group in the table has a reference while the lock is held */
	if (shared) {
		spin_lock_irqsave(&port->lock, flags);
		group = mcast_find(port, mgid);
		if (group)
			refcount_inc(&group->refcount);
		spin_unlock_irqrestore(&port->lock, flags);
		if (group)
			return group;
	}

	group = kzalloc(sizeof(*group), gfp_mask);
	if (!group)
		return NULL;
	group->port = port;
	group->rec.mgid = *mgid;
	group->key = *mgid;
	spin_lock_init(&group->lock);
	INIT_LIST_HEAD(&group->pending);
	INIT_LIST_HEAD(&group->active);
	refcount_set(&group->refcount, 1);
	INIT_DELAYED_WORK(&group->work, mcast_group_work);

	spin_lock_irqsave(&port->lock, flags);
	if (shared) {
		/* someone may have made it meanwhile */
		found = mcast_find(port, mgid);
		if (found) {
			refcount_inc(&found->refcount);
			spin_unlock_irqrestore(&port->lock, flags);
			kfree(group);
			return found;
		}
	}
	mcast_insert(port, group);
	refcount_inc(&port->refcount);
	spin_unlock_irqrestore(&port->lock, flags);
	return group;
}

/* The members of either list wanting @bit; caller holds the group lock. */
static bool mcast_wanted(struct mcast_group *group, u8 bit)
{
	struct mcast_member *member;

	list_for_each_entry(member, &group->pending, list)
		if (member->join_bit == bit)
			return true;
	list_for_each_entry(member, &group->active, list)
		if (member->join_bit == bit)
			return true;
	return false;
}

static void mcast_query_done(int status, struct ib_sa_mcmember_rec *rec,
			     void *context)
{
	struct mcast_group *group = context;
	unsigned long flags;

	spin_lock_irqsave(&group->lock, flags);
	group->busy = false;
	group->query = NULL;
	if (group->query_method == IB_SA_METHOD_DELETE) {
		/* left whatever the answer: the SA forgets us in time */
		group->join_state &= ~group->query_bits;
	} else if (!status && rec) {
		group->rec = *rec;
		group->join_state |= group->query_bits;
		ib_find_pkey(group->port->device, group->port->port_num,
			     be16_to_cpu(rec->pkey), &group->pkey_index);
	} else {
		group->error_bit = group->query_bits;
		group->error_status = status ? status : -EIO;
	}
	spin_unlock_irqrestore(&group->lock, flags);
	mcast_group_kick(group, 0);
	mcast_group_put(group);		/* the query's reference */
}

/*
 * Send a Set or Delete for @bits with @rec and @comp_mask.  Caller holds
 * the group lock and marked the group busy; the lock is dropped.
 */
static void mcast_send(struct mcast_group *group, u8 method, u8 bits,
		       struct ib_sa_mcmember_rec *rec,
		       ib_sa_comp_mask comp_mask)
{
	struct mcast_port *port = group->port;
	unsigned long delay = 0;
	struct ib_sa_query *query;
	int id;

	group->query_method = method;
	group->query_bits = bits;
	rec->join_state = bits;
	refcount_inc(&group->refcount);
	spin_unlock_irq(&group->lock);

	id = READ_ONCE(mcast_query)(&mcast_sa_client, port->device,
				    port->port_num, method, rec,
				    comp_mask | IB_SA_MCMEMBER_REC_JOIN_STATE,
				    MCAST_QUERY_TIMEOUT_MS, GFP_KERNEL,
				    mcast_query_done, group, &query);
	spin_lock_irq(&group->lock);
	if (id >= 0) {
		/* unless it already ended */
		if (group->busy) {
			group->query_id = id;
			group->query = query;
		}
		spin_unlock_irq(&group->lock);
		return;
	}
	group->busy = false;
	if (method == IB_SA_METHOD_DELETE) {
		group->join_state &= ~bits;
	} else if (id == -EAGAIN && group->retries > 0) {
		/* no SM address yet (it is being rebuilt): try again */
		group->retries--;
		delay = msecs_to_jiffies(MCAST_RETRY_MS);
	} else {
		group->error_bit = bits;
		group->error_status = id;
	}
	spin_unlock_irq(&group->lock);
	mcast_group_kick(group, delay);
	mcast_group_put(group);	/* the query's, never made */
}

/*
 * Call a member's callback.  Caller holds the group lock, which is
 * dropped around the call.  A non-zero return frees the membership.
 */
static void mcast_tell(struct mcast_group *group, struct mcast_member *member,
		       int status)
{
	int ret;

	refcount_inc(&member->refcount);
	spin_unlock_irq(&group->lock);
	ret = member->multicast.callback(status, &member->multicast);
	mcast_member_put(member);
	/* unless its user is freeing it already */
	if (ret && mcast_member_detach(member))
		mcast_member_end(member);
	spin_lock_irq(&group->lock);
}

/* The first waiting member of join state @bit, or NULL. */
static struct mcast_member *mcast_next_of(struct mcast_group *group, u8 bit)
{
	struct mcast_member *member;

	list_for_each_entry(member, &group->pending, list)
		if (member->join_bit == bit)
			return member;
	return NULL;
}

/* The first waiting member whose state is joined, or NULL. */
static struct mcast_member *mcast_next_joined(struct mcast_group *group)
{
	struct mcast_member *member;

	list_for_each_entry(member, &group->pending, list)
		if (group->join_state & member->join_bit)
			return member;
	return NULL;
}

static void mcast_group_work(struct work_struct *work)
{
	struct mcast_group *group = container_of(to_delayed_work(work),
						 struct mcast_group, work);
	struct mcast_port *port = group->port;
	struct ib_sa_mcmember_rec rec;
	struct mcast_member *member;
	ib_sa_comp_mask comp_mask;
	bool active;
	u8 bit, leave;
	int status;

	spin_lock_irq(&group->lock);
	while (!group->busy) {
		if (group->reset) {
			/* the SA may have forgotten us: all must join again */
			group->reset = false;
			group->join_state = 0;
			while (!list_empty(&group->active)) {
				member = list_first_entry(&group->active,
							  struct mcast_member,
							  list);
				list_move_tail(&member->list, &group->pending);
				member->state = MCAST_MEMBER_PENDING;
				mcast_tell(group, member, -ENETRESET);
			}
			continue;
		}
		if (group->error_bit) {
			bit = group->error_bit;
			status = group->error_status;
			group->error_bit = 0;
			while ((member = mcast_next_of(group, bit))) {
				list_del_init(&member->list);
				member->state = MCAST_MEMBER_ERROR;
				mcast_tell(group, member, status);
			}
			continue;
		}
		member = mcast_next_joined(group);
		if (member) {
			list_move_tail(&member->list, &group->active);
			member->state = MCAST_MEMBER_ACTIVE;
			member->multicast.rec = group->rec;
			member->multicast.rec.join_state = member->join_bit;
			mcast_tell(group, member, 0);
			continue;
		}
		active = READ_ONCE(port->active);
		if (!list_empty(&group->pending) && active) {
			member = list_first_entry(&group->pending,
						  struct mcast_member, list);
			rec = member->multicast.rec;
			comp_mask = member->multicast.comp_mask;
			group->busy = true;
			mcast_send(group, IB_MGMT_METHOD_SET, member->join_bit,
				   &rec, comp_mask);
			goto out;
		}
		leave = 0;
		for (bit = 1; bit < BIT(NUM_JOIN_MEMBERSHIP_TYPES); bit <<= 1)
			if ((group->join_state & bit) &&
			    !mcast_wanted(group, bit))
				leave |= bit;
		if (leave && active) {
			rec = group->rec;
			group->busy = true;
			mcast_send(group, IB_SA_METHOD_DELETE, leave, &rec,
				   IB_SA_MCMEMBER_REC_MGID |
				   IB_SA_MCMEMBER_REC_PORT_GID);
			goto out;
		}
		/* the port is down: the SA has lost it anyway */
		if (leave)
			group->join_state &= ~leave;
		break;
	}
	spin_unlock_irq(&group->lock);
out:
	mcast_group_put(group);		/* the work's reference */
}

/**
 * ib_sa_join_multicast - join a multicast group
 * @client: the user's SA client
 * @device: the device
 * @port_num: the port
 * @rec: the group's record as far as known; its join_state must be one
 *	bit: BIT(FULLMEMBER_JOIN), BIT(NONMEMBER_JOIN),
 *	BIT(SENDONLY_NONMEMBER_JOIN) or BIT(SENDONLY_FULLMEMBER_JOIN) (only
 *	if ib_sa_sendonly_fullmem_support())
 * @comp_mask: which fields of @rec count (IB_SA_MCMEMBER_REC_*)
 * @gfp_mask: allocation flags
 * @callback: told, from a work item, of the join's result: 0 with the
 *	SA's record in multicast->rec, or an errno (the membership is then
 *	dead and waits for ib_sa_free_multicast()); later -ENETRESET when a
 *	port event lost the membership, and 0 again once it is joined anew.
 *	A non-zero return frees the membership; the callback must not call
 *	ib_sa_free_multicast() on its own membership
 * @context: for the user, in multicast->context
 *
 * The port joins the group at the SA once for every join state, whatever
 * the number of users: a join after the first gets the record the SA gave
 * the first.
 *
 * Return: the membership, or ERR_PTR(-EINVAL) for bad arguments,
 * -ENODEV for a port without SA, -ENOMEM.
 */
struct ib_sa_multicast *
ib_sa_join_multicast(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, struct ib_sa_mcmember_rec *rec,
		     ib_sa_comp_mask comp_mask, gfp_t gfp_mask,
		     int (*callback)(int status,
				     struct ib_sa_multicast *multicast),
		     void *context)
{
	struct mcast_device *dev = ib_get_client_data(device, &mcast_client);
	struct mcast_member *member;
	struct mcast_group *group;
	struct mcast_port *port;
	unsigned long flags;

	if (!client || !rec || !callback || !rec->join_state ||
	    hweight8(rec->join_state) != 1 ||
	    rec->join_state >= BIT(NUM_JOIN_MEMBERSHIP_TYPES))
		return ERR_PTR(-EINVAL);
	if (!dev || port_num < 1 || port_num > dev->num_ports ||
	    !dev->port[port_num - 1].device)
		return ERR_PTR(-ENODEV);
	port = &dev->port[port_num - 1];

	member = kzalloc(sizeof(*member), gfp_mask);
	if (!member)
		return ERR_PTR(-ENOMEM);
	group = mcast_get_group(port, &rec->mgid, gfp_mask);
	if (!group) {
		kfree(member);
		return ERR_PTR(-ENOMEM);
	}
	member->multicast.rec = *rec;
	member->multicast.comp_mask = comp_mask;
	member->multicast.callback = callback;
	member->multicast.context = context;
	member->client = client;
	member->group = group;
	member->join_bit = rec->join_state;
	refcount_set(&member->refcount, 1);
	init_completion(&member->comp);
	atomic_inc(&client->users);

	spin_lock_irqsave(&group->lock, flags);
	member->state = MCAST_MEMBER_PENDING;
	list_add_tail(&member->list, &group->pending);
	group->retries = MCAST_RETRIES;
	spin_unlock_irqrestore(&group->lock, flags);
	mcast_group_kick(group, 0);
	return &member->multicast;
}
EXPORT_SYMBOL(ib_sa_join_multicast);

/**
 * ib_sa_free_multicast - end a membership
 * @multicast: from ib_sa_join_multicast()
 *
 * Waits for a callback of the membership in progress; the last member of
 * a join state makes the port leave it at the SA (later, from the group's
 * work).  Not to be called from the membership's own callback (return
 * non-zero there instead).
 *
 * Context: process context; may sleep.
 */
void ib_sa_free_multicast(struct ib_sa_multicast *multicast)
{
	struct mcast_member *member = container_of(multicast,
						   struct mcast_member,
						   multicast);

	if (mcast_member_detach(member))
		mcast_member_end(member);
}
EXPORT_SYMBOL(ib_sa_free_multicast);

/**
 * ib_sa_get_mcmember_rec - the record of a group the port has joined
 * @device: the device
 * @port_num: the port
 * @mgid: the group
 * @rec: filled in with the SA's record
 *
 * Return: 0, -ENODEV for a port without SA, -EADDRNOTAVAIL if no kernel
 * user has the group joined (a group joined with a zero MGID is not
 * found by the MGID the SA gave it).
 */
int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   union ib_gid *mgid, struct ib_sa_mcmember_rec *rec)
{
	struct mcast_device *dev = ib_get_client_data(device, &mcast_client);
	struct mcast_group *group;
	struct mcast_port *port;
	unsigned long flags;
	int ret = -EADDRNOTAVAIL;

	if (!dev || port_num < 1 || port_num > dev->num_ports ||
	    !dev->port[port_num - 1].device)
		return -ENODEV;
	port = &dev->port[port_num - 1];
	spin_lock_irqsave(&port->lock, flags);
	group = mcast_find(port, mgid);
	if (group) {
		spin_lock(&group->lock);
		if (group->join_state) {
			*rec = group->rec;
			ret = 0;
		}
		spin_unlock(&group->lock);
	}
	spin_unlock_irqrestore(&port->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_sa_get_mcmember_rec);

/* ------------------------------------------------------------------ */
/* Port events and devices                                             */
/* ------------------------------------------------------------------ */

/* Has @group's P_Key left the index it was joined at?  Under its lock. */
static bool mcast_pkey_moved(struct mcast_group *group)
{
	u16 index;

	return ib_find_pkey(group->port->device, group->port->port_num,
			    be16_to_cpu(group->rec.pkey), &index) ||
	       index != group->pkey_index;
}

/*
 * Reset the groups of a port (all of them, or with @pkey_only those whose
 * P_Key moved) and kick them all.
 */
static void mcast_port_reset(struct mcast_port *port, bool active,
			     bool pkey_only)
{
	struct mcast_group *group;
	struct rb_node *node;
	unsigned long flags;

	WRITE_ONCE(port->active, active);
	spin_lock_irqsave(&port->lock, flags);
	for (node = rb_first(&port->table); node; node = rb_next(node)) {
		group = rb_entry(node, struct mcast_group, node);
		spin_lock(&group->lock);
		if (!pkey_only || mcast_pkey_moved(group)) {
			group->reset = true;
			group->retries = MCAST_RETRIES;
		}
		spin_unlock(&group->lock);
		/* with the port lock held this never drops the last reference */
		mcast_group_kick(group, 0);
	}
	spin_unlock_irqrestore(&port->lock, flags);
}

static void mcast_event(struct ib_device *device, u32 port_num,
			struct mcast_device *dev, enum ib_event_type type)
{
	enum ib_port_state state = IB_PORT_DOWN;
	struct mcast_port *port;

	if (port_num < 1 || port_num > dev->num_ports)
		return;
	port = &dev->port[port_num - 1];
	if (!port->device)
		return;
	ib_get_cached_port_state(device, port_num, &state);

	switch (type) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
		mcast_port_reset(port, state == IB_PORT_ACTIVE, false);
		break;
	case IB_EVENT_PKEY_CHANGE:
		mcast_port_reset(port, state == IB_PORT_ACTIVE, true);
		break;
	default:
		break;
	}
}

static void mcast_event_handler(struct ib_event_handler *handler,
				struct ib_event *event)
{
	struct mcast_device *dev = container_of(handler, struct mcast_device,
						event_handler);

	mcast_event(handler->device, event->element.port_num, dev,
		    event->event);
}

static int mcast_add_one(struct ib_device *device)
{
	struct mcast_device *dev;
	struct mcast_port *port;
	enum ib_port_state state;
	u32 p, count = 0;

	dev = kzalloc(struct_size(dev, port, device->phys_port_cnt),
		      GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->num_ports = device->phys_port_cnt;
	for (p = 1; p <= dev->num_ports; p++) {
		if (!(ib_port_immutable_read(device, p)->core_cap_flags &
		      RDMA_CORE_CAP_IB_SA))
			continue;
		port = &dev->port[p - 1];
		port->device = device;
		port->port_num = p;
		spin_lock_init(&port->lock);
		port->table = RB_ROOT;
		refcount_set(&port->refcount, 1);
		init_completion(&port->comp);
		port->active = !ib_get_cached_port_state(device, p, &state) &&
			       state == IB_PORT_ACTIVE;
		count++;
	}
	if (!count) {
		kfree(dev);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(device, &mcast_client, dev);
	INIT_IB_EVENT_HANDLER(&dev->event_handler, device,
			      mcast_event_handler);
	ib_register_event_handler(&dev->event_handler);
	return 0;
}

/* Cancel the query of every group of @port, to be done sooner. */
static void mcast_port_cancel(struct mcast_port *port)
{
	struct mcast_group *group;
	struct rb_node *node;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	for (node = rb_first(&port->table); node; node = rb_next(node)) {
		group = rb_entry(node, struct mcast_group, node);
		spin_lock(&group->lock);
		if (group->busy && group->query)
			ib_sa_cancel_query(group->query_id, group->query);
		spin_unlock(&group->lock);
	}
	spin_unlock_irqrestore(&port->lock, flags);
}

static void mcast_remove_one(struct ib_device *device, void *client_data)
{
	struct mcast_device *dev = client_data;
	struct mcast_port *port;
	u32 p;

	ib_unregister_event_handler(&dev->event_handler);
	for (p = 1; p <= dev->num_ports; p++) {
		port = &dev->port[p - 1];
		if (!port->device)
			continue;
		/* every user is gone; groups may still be leaving */
		WRITE_ONCE(port->active, false);
		mcast_port_cancel(port);
		mcast_port_put(port);
		wait_for_completion(&port->comp);
	}
	flush_workqueue(mcast_wq);
	kfree(dev);
}

static struct ib_client mcast_client = {
	.name = "multicast",
	.add = mcast_add_one,
	.remove = mcast_remove_one,
};

int ib_mcast_init(void)
{
	int ret;

	mcast_wq = alloc_ordered_workqueue("ib_mcast", WQ_MEM_RECLAIM);
	if (!mcast_wq)
		return -ENOMEM;
	ib_sa_register_client(&mcast_sa_client);
	ret = ib_register_client(&mcast_client);
	if (ret)
		goto err;
	return 0;

err:
	ib_sa_unregister_client(&mcast_sa_client);
	destroy_workqueue(mcast_wq);
	return ret;
}

void ib_mcast_cleanup(void)
{
	ib_unregister_client(&mcast_client);
	ib_sa_unregister_client(&mcast_sa_client);
	destroy_workqueue(mcast_wq);
}
