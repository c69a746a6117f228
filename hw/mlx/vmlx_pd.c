// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx protection domains and address handles.
 *
 * A PD is little more than a count against the device limit: MRs, AHs,
 * SRQs and QPs point at it, and a check is a pointer comparison.  It
 * remembers whether it is a user process's, so that kernel MRs and user
 * MRs never meet in one PD.
 *
 * Every AH gets a number (ah_num, 1..VMLX_MAX_AH, handed out cyclically
 * so that a stale number rarely names a new AH at once) by which UD work
 * requests in the soft-RoCE layout name it.  The requester resolves that
 * number with vmlx_ah_lookup() under RCU.  Because the core frees an AH as
 * soon as destroy_ah returns, and may destroy it in atomic context, the
 * table does not hold the AH itself but a small entry with a copy of its
 * address that is freed after a grace period.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "vmlx.h"

int vmlx_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(ibpd->device);

	if (!atomic_add_unless(&vdev->num_pds, 1, VMLX_MAX_PD))
		return -ENOMEM;
	/* uverbs always passes a udata, kernel callers never */
	to_vpd(ibpd)->user = !!udata;
	return 0;
}

int vmlx_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_vmlx(ibpd->device)->num_pds);
	return 0;
}

/**
 * vmlx_av_from_attr() - an address vector from the core's AH attributes
 * @av: filled in
 * @attr: the attributes, already checked
 */
void vmlx_av_from_attr(struct vmlx_av *av, const struct rdma_ah_attr *attr)
{
	memset(av, 0, sizeof(*av));
	av->port_num = attr->port_num;
	av->dlid = attr->dlid;
	av->src_path_bits = attr->src_path_bits;
	av->sl = attr->sl;
	av->global = attr->ah_flags & IB_AH_GRH;
	if (av->global)
		av->grh = attr->grh;
}

/**
 * vmlx_av_to_attr() - the core's AH attributes from an address vector
 * @av: the address vector
 * @attr: filled in completely
 */
static void vmlx_av_to_attr(const struct vmlx_av *av,
			    struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_IB;
	attr->port_num = av->port_num;
	attr->dlid = av->dlid;
	attr->src_path_bits = av->src_path_bits;
	attr->sl = av->sl;
	if (av->global) {
		attr->ah_flags = IB_AH_GRH;
		attr->grh = av->grh;
	}
}

/* What an IB address may hold; uverbs passes user values through. */
static int vmlx_check_ah_attr(struct vmlx_dev *vdev,
			      const struct rdma_ah_attr *attr)
{
	struct ib_device *ibdev = &vdev->ibdev;

	if (attr->type != RDMA_AH_ATTR_TYPE_IB &&
	    attr->type != RDMA_AH_ATTR_TYPE_UNDEFINED) {
		vmlx_dbg_refusal(ibdev, "create_ah: address type %d, not IB\n",
				 attr->type);
		return -EINVAL;
	}
	if (!rdma_is_port_valid(ibdev, attr->port_num)) {
		vmlx_dbg_refusal(ibdev, "create_ah: no port %u\n",
				 attr->port_num);
		return -EINVAL;
	}
	/* LIDs are 16 bits, SLs 4, path bits at most LMC = 7 */
	if (attr->dlid > 0xffff || attr->sl > 15 ||
	    attr->src_path_bits > 0x7f) {
		vmlx_dbg_refusal(ibdev,
				 "create_ah: DLID 0x%x, SL %u, path bits 0x%x: at most 0xffff, 15, 0x7f\n",
				 attr->dlid, attr->sl, attr->src_path_bits);
		return -EINVAL;
	}
	if (attr->ah_flags & ~IB_AH_GRH) {
		vmlx_dbg_refusal(ibdev, "create_ah: ah_flags 0x%x\n",
				 attr->ah_flags);
		return -EINVAL;
	}
	if ((attr->ah_flags & IB_AH_GRH) &&
	    (attr->grh.sgid_index >= VMLX_GID_TBL_LEN ||
	     attr->grh.flow_label > 0xfffff)) {
		vmlx_dbg_refusal(ibdev,
				 "create_ah: sgid_index %u, flow label 0x%x: at most %u, 0xfffff\n",
				 attr->grh.sgid_index, attr->grh.flow_label,
				 VMLX_GID_TBL_LEN - 1);
		return -EINVAL;
	}
	return 0;
}

int vmlx_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(ibah->device);
	struct vmlx_ah *ah = to_vah(ibah);
	gfp_t gfp = init_attr->flags & RDMA_CREATE_AH_SLEEPABLE ?
		    GFP_KERNEL : GFP_ATOMIC;
	struct vmlx_ah_entry *entry;
	int ret;

	ret = vmlx_check_ah_attr(vdev, init_attr->ah_attr);
	if (ret)
		return ret;

	vmlx_av_from_attr(&ah->av, init_attr->ah_attr);
	entry = kzalloc(sizeof(*entry), gfp);
	if (!entry)
		return -ENOMEM;
	entry->pd = ibah->pd;
	entry->av = ah->av;
	ah->entry = entry;

	ret = xa_alloc_cyclic(&vdev->ahs, &ah->ah_num, entry,
			      XA_LIMIT(1, VMLX_MAX_AH), &vdev->next_ah, gfp);
	if (ret < 0) {
		/* a full table is a resource limit like any other */
		if (ret == -EBUSY)
			ret = -ENOMEM;
		goto err_free;
	}

	if (udata && udata->outlen >= sizeof(struct rxe_create_ah_resp)) {
		struct rxe_create_ah_resp resp = { .ah_num = ah->ah_num };

		if (copy_to_user(udata->outbuf, &resp, sizeof(resp))) {
			ret = -EFAULT;
			goto err_erase;
		}
	}
	return 0;

err_erase:
	xa_erase(&vdev->ahs, ah->ah_num);
err_free:
	/* lookups may have seen it after xa_alloc_cyclic() */
	kfree_rcu(entry, rcu);
	return ret;
}

int vmlx_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	vmlx_av_to_attr(&to_vah(ibah)->av, attr);
	return 0;
}

int vmlx_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct vmlx_ah *ah = to_vah(ibah);

	xa_erase(&to_vmlx(ibah->device)->ahs, ah->ah_num);
	kfree_rcu(ah->entry, rcu);
	ah->entry = NULL;
	return 0;
}

/**
 * vmlx_ah_lookup() - the address of an AH named by its number
 * @vdev: the HCA
 * @ah_num: the number from a UD work request
 * @pd: the PD of the QP that posted the request
 * @av: where to copy the address
 *
 * Context: any; takes no lock.
 * Return: true if an AH with that number exists and belongs to @pd.
 */
bool vmlx_ah_lookup(struct vmlx_dev *vdev, u32 ah_num, struct ib_pd *pd,
		    struct vmlx_av *av)
{
	struct vmlx_ah_entry *entry;
	bool found = false;

	rcu_read_lock();
	entry = xa_load(&vdev->ahs, ah_num);
	if (entry && entry->pd == pd) {
		*av = entry->av;
		found = true;
	}
	rcu_read_unlock();
	return found;
}
