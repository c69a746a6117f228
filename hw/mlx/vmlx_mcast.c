// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx multicast: the groups the UD QPs of a port are attached to, and the
 * fan-out of a multicast packet to them.
 *
 * port->mcast maps an MLID to a struct vmlx_mcast_lid: the groups (MGIDs)
 * that use that MLID on the port.  Usually there is one; a subnet manager
 * short of MLIDs may give several MGIDs the same one.  Each group lists
 * its attachments, one per QP.  Every attachment is also on its QP's
 * mcast_list, so that detach and QP destruction find it.
 *
 * Attach, detach and QP destruction are serialised by vmlx_mcast_mutex.
 * Delivery runs under RCU and takes no lock: the group and attachment
 * lists are RCU lists, and what is removed is freed after a grace period.
 * Delivery reaches a QP through vmlx_qp_get() by QP number, so it never
 * touches a QP that is being destroyed.
 */
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* BTH:DestQP of every multicast packet: the multicast QP number. */
#define VMLX_MCAST_QPN		0xffffff

/**
 * struct vmlx_mcast_lid - the groups of one MLID on a port
 * @grps: its groups (struct vmlx_mcast_grp), an RCU list
 * @rcu: to free it after a grace period
 */
struct vmlx_mcast_lid {
	struct list_head	grps;
	struct rcu_head		rcu;
};

/**
 * struct vmlx_mcast_grp - a multicast group on a port
 * @node: entry in vmlx_mcast_lid.grps
 * @mgid: its MGID
 * @atts: the QPs attached (struct vmlx_mcast_att), an RCU list
 * @num_atts: entries in @atts
 * @rcu: to free it after a grace period
 */
struct vmlx_mcast_grp {
	struct list_head	node;
	union ib_gid		mgid;
	struct list_head	atts;
	unsigned int		num_atts;
	struct rcu_head		rcu;
};

/**
 * struct vmlx_mcast_att - a QP attached to a group
 * @grp_node: entry in vmlx_mcast_grp.atts
 * @qp_node: entry in vmlx_qp.mcast_list
 * @port: the port of the group
 * @grp: the group
 * @mlid: the group's MLID
 * @qpn: the QP's number, by which delivery finds it
 * @rcu: to free it after a grace period
 */
struct vmlx_mcast_att {
	struct list_head	grp_node;
	struct list_head	qp_node;
	struct vmlx_port	*port;
	struct vmlx_mcast_grp	*grp;
	u16			mlid;
	u32			qpn;
	struct rcu_head		rcu;
};

/*
 * protects the content of every port's mcast xarray and every QP's
 * mcast_list (delivery reads the former under RCU)
 */
static DEFINE_MUTEX(vmlx_mcast_mutex);

static struct vmlx_mcast_grp *vmlx_mcast_find(struct vmlx_mcast_lid *ml,
					      const union ib_gid *mgid)
{
	struct vmlx_mcast_grp *grp;

	list_for_each_entry(grp, &ml->grps, node)
		if (!memcmp(&grp->mgid, mgid, sizeof(*mgid)))
			return grp;
	return NULL;
}

/* Groups on all ports of an HCA, against VMLX_MAX_MCAST_GRP. */
static unsigned int vmlx_mcast_count(struct vmlx_dev *vdev)
{
	struct vmlx_mcast_grp *grp;
	struct vmlx_mcast_lid *ml;
	unsigned int n = 0;
	unsigned long mlid;
	u32 p;

	for (p = 1; p <= vdev->ibdev.phys_port_cnt; p++)
		xa_for_each(&vmlx_port(vdev, p)->mcast, mlid, ml)
			list_for_each_entry(grp, &ml->grps, node)
				n++;
	return n;
}

/*
 * Take an attachment away and free it, with its group and MLID entry if
 * they are left empty.  Under vmlx_mcast_mutex.
 */
static void vmlx_mcast_unlink(struct vmlx_mcast_att *att)
{
	struct vmlx_mcast_grp *grp = att->grp;
	struct vmlx_port *port = att->port;
	struct vmlx_mcast_lid *ml;
	u16 mlid = att->mlid;

	list_del(&att->qp_node);
	list_del_rcu(&att->grp_node);
	kfree_rcu(att, rcu);
	if (--grp->num_atts)
		return;

	list_del_rcu(&grp->node);
	kfree_rcu(grp, rcu);
	ml = xa_load(&port->mcast, mlid);
	if (ml && list_empty(&ml->grps)) {
		xa_erase(&port->mcast, mlid);
		kfree_rcu(ml, rcu);
	}
}

/**
 * vmlx_attach_mcast() - the attach_mcast verb
 * @ibqp: a UD QP
 * @gid: the group's MGID
 * @lid: the group's MLID
 *
 * The QP is attached on the port it is bound to.  Attaching a QP twice to
 * the same group is not an error.
 *
 * Return: 0; -EINVAL if the QP is not UD or the MGID or MLID is not a
 * multicast one; -ENOMEM if the group is full (%VMLX_MAX_MCAST_QP_ATTACH),
 * the HCA has %VMLX_MAX_MCAST_GRP groups already, or memory runs out.
 */
int vmlx_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct vmlx_mcast_lid *ml, *new_ml = NULL;
	struct vmlx_mcast_grp *grp, *new_grp = NULL;
	struct vmlx_qp *qp = to_vqp(ibqp);
	struct vmlx_dev *vdev = qp->vdev;
	struct vmlx_mcast_att *att;
	struct vmlx_port *port;
	u32 port_num;
	int ret;

	port_num = READ_ONCE(qp->attr.port_num);
	if (ibqp->qp_type != IB_QPT_UD) {
		vmlx_dbg_refusal(ibqp->device, "attach_mcast: QP %u of type %d, not UD\n",
				 ibqp->qp_num, ibqp->qp_type);
		return -EINVAL;
	}
	if (gid->raw[0] != 0xff || lid < VMLX_LID_MCAST_MIN ||
	    lid > VMLX_LID_MCAST_MAX) {
		vmlx_dbg_refusal(ibqp->device,
				 "attach_mcast: QP %u: MGID %pI6 or MLID 0x%x not multicast\n",
				 ibqp->qp_num, gid->raw, lid);
		return -EINVAL;
	}
	if (!rdma_is_port_valid(&vdev->ibdev, port_num)) {
		vmlx_dbg_refusal(ibqp->device, "attach_mcast: QP %u: no port %u\n",
				 ibqp->qp_num, port_num);
		return -EINVAL;
	}
	port = vmlx_port(vdev, port_num);

	mutex_lock(&vmlx_mcast_mutex);
	ml = xa_load(&port->mcast, lid);
	grp = ml ? vmlx_mcast_find(ml, gid) : NULL;
	if (grp) {
		ret = 0;
		list_for_each_entry(att, &grp->atts, grp_node)
			if (att->qpn == ibqp->qp_num)
				goto out;
		ret = -ENOMEM;
		if (grp->num_atts >= VMLX_MAX_MCAST_QP_ATTACH)
			goto out;
	} else if (vmlx_mcast_count(vdev) >= VMLX_MAX_MCAST_GRP) {
		ret = -ENOMEM;
		goto out;
	}

	ret = -ENOMEM;
	att = kzalloc(sizeof(*att), GFP_KERNEL);
	if (!att)
		goto out;
	att->port = port;
	att->mlid = lid;
	att->qpn = ibqp->qp_num;

	if (!grp) {
		new_grp = kzalloc(sizeof(*new_grp), GFP_KERNEL);
		if (!new_grp)
			goto err_att;
		new_grp->mgid = *gid;
		INIT_LIST_HEAD(&new_grp->atts);
		grp = new_grp;
	}
	if (!ml) {
		new_ml = kzalloc(sizeof(*new_ml), GFP_KERNEL);
		if (!new_ml)
			goto err_grp;
		INIT_LIST_HEAD(&new_ml->grps);
		ml = new_ml;
	}

	/* a new group and MLID entry are published only when complete */
	att->grp = grp;
	list_add_tail_rcu(&att->grp_node, &grp->atts);
	grp->num_atts++;
	if (new_grp)
		list_add_tail_rcu(&new_grp->node, &ml->grps);
	if (new_ml) {
		ret = xa_err(xa_store(&port->mcast, lid, new_ml, GFP_KERNEL));
		if (ret)
			goto err_ml;
	}
	list_add_tail(&att->qp_node, &qp->mcast_list);
	mutex_unlock(&vmlx_mcast_mutex);
	return 0;

err_ml:
	/* nothing new was visible: new_ml held new_grp, which held att */
	kfree(new_ml);
err_grp:
	kfree(new_grp);
err_att:
	kfree(att);
out:
	mutex_unlock(&vmlx_mcast_mutex);
	return ret;
}

/**
 * vmlx_detach_mcast() - the detach_mcast verb
 * @ibqp: a UD QP
 * @gid: the group's MGID
 * @lid: the group's MLID
 *
 * Return: 0, or -EINVAL if the QP is not attached to that group.
 */
int vmlx_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct vmlx_qp *qp = to_vqp(ibqp);
	struct vmlx_mcast_att *att;
	int ret = -EINVAL;

	mutex_lock(&vmlx_mcast_mutex);
	list_for_each_entry(att, &qp->mcast_list, qp_node) {
		if (att->mlid == lid &&
		    !memcmp(&att->grp->mgid, gid, sizeof(*gid))) {
			vmlx_mcast_unlink(att);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&vmlx_mcast_mutex);
	if (ret)
		vmlx_dbg_refusal(ibqp->device,
				 "detach_mcast: QP %u not attached to MGID %pI6 MLID 0x%x\n",
				 ibqp->qp_num, gid->raw, lid);
	return ret;
}

/**
 * vmlx_mcast_detach_qp() - detach a QP that is being destroyed from all
 *	its groups
 * @qp: the QP; its mcast_list is initialised
 *
 * Context: process context.
 */
void vmlx_mcast_detach_qp(struct vmlx_qp *qp)
{
	struct vmlx_mcast_att *att, *next;

	mutex_lock(&vmlx_mcast_mutex);
	list_for_each_entry_safe(att, next, &qp->mcast_list, qp_node)
		vmlx_mcast_unlink(att);
	mutex_unlock(&vmlx_mcast_mutex);
}

/**
 * vmlx_mcast_deliver() - hand a multicast packet to the QPs attached
 * @port: the port it arrived on
 * @skb: the packet, checked by vmlx_rcv(); consumed
 *
 * Every QP attached to a group of the packet's MLID whose MGID is the
 * packet's GRH:DGID gets a clone.  A multicast packet without a GRH, not
 * to QP 0xFFFFFF or not UD, and one that no QP takes, count in
 * rcv_discards.
 *
 * Context: under rcu_read_lock(); does not sleep.
 */
void vmlx_mcast_deliver(struct vmlx_port *port, struct sk_buff *skb)
{
	struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_mcast_grp *grp;
	struct vmlx_mcast_att *att;
	struct vmlx_mcast_lid *ml;
	const struct vmlx_grh *grh;
	struct sk_buff *copy;
	struct vmlx_qp *qp;
	bool taken = false;

	if (!pkt->global || pkt->qpn != VMLX_MCAST_QPN ||
	    (pkt->opcode & VMLX_OPC_SERVICE_MASK) != VMLX_OPC_UD)
		goto discard;
	grh = vmlx_pkt_grh(skb);

	rcu_read_lock();
	ml = xa_load(&port->mcast, pkt->dlid);
	if (!ml)
		goto unlock;
	list_for_each_entry_rcu(grp, &ml->grps, node) {
		if (memcmp(grp->mgid.raw, grh->dgid, sizeof(grh->dgid)))
			continue;
		list_for_each_entry_rcu(att, &grp->atts, grp_node) {
			qp = vmlx_qp_get(port, att->qpn);
			if (!qp)
				continue;
			copy = skb_clone(skb, GFP_ATOMIC);
			if (copy) {
				vmlx_qp_rx(qp, copy);
				taken = true;
			}
			vmlx_qp_put(qp);
		}
	}
unlock:
	rcu_read_unlock();
	if (taken) {
		consume_skb(skb);
		return;
	}
discard:
	atomic64_inc(&port->cnt.rcv_discards);
	kfree_skb(skb);
}

/**
 * vmlx_mcast_port_init() - set up a port's multicast table
 * @port: the port
 */
void vmlx_mcast_port_init(struct vmlx_port *port)
{
	xa_init(&port->mcast);
}

/**
 * vmlx_mcast_port_cleanup() - free a port's multicast table
 * @port: the port; its QPs are destroyed, so nothing should be left
 *
 * Context: process context.
 */
void vmlx_mcast_port_cleanup(struct vmlx_port *port)
{
	struct vmlx_mcast_grp *grp, *next_grp;
	struct vmlx_mcast_att *att, *next_att;
	struct vmlx_mcast_lid *ml;
	unsigned long mlid;

	mutex_lock(&vmlx_mcast_mutex);
	WARN_ON_ONCE(!xa_empty(&port->mcast));
	xa_for_each(&port->mcast, mlid, ml) {
		list_for_each_entry_safe(grp, next_grp, &ml->grps, node) {
			list_for_each_entry_safe(att, next_att, &grp->atts,
						 grp_node) {
				/* its QP is gone: leave qp_node alone */
				kfree_rcu(att, rcu);
			}
			kfree_rcu(grp, rcu);
		}
		kfree_rcu(ml, rcu);
	}
	xa_destroy(&port->mcast);
	mutex_unlock(&vmlx_mcast_mutex);
}
