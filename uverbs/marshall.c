// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel structures in the layouts of the user ABI, for the modules that
 * hand them to userspace (rdma_ucm.ko).  Each function fills every byte
 * of its destination, reserved ones with zero, so that a destination on
 * the stack can be copied to userspace as it is.
 *
 * There is no OPA here: LIDs are 16 bits and a path record is always an
 * IB one, so no conversion is needed.
 */
#include <linux/export.h>
#include <linux/string.h>

#include <rdma/ib_marshall.h>

/**
 * ib_copy_ah_attr_to_user - an address vector as struct ib_uverbs_ah_attr
 * @dst: filled in completely
 * @src: the address vector
 *
 * The GRH fields are copied only if @src has one (IB_AH_GRH), else they
 * are zero.
 */
void ib_copy_ah_attr_to_user(struct ib_uverbs_ah_attr *dst,
			     const struct rdma_ah_attr *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->port_num = src->port_num;
	if (!(src->ah_flags & IB_AH_GRH))
		return;
	dst->is_global = 1;
	memcpy(dst->grh.dgid, src->grh.dgid.raw, sizeof(dst->grh.dgid));
	dst->grh.flow_label = src->grh.flow_label;
	dst->grh.sgid_index = src->grh.sgid_index;
	dst->grh.hop_limit = src->grh.hop_limit;
	dst->grh.traffic_class = src->grh.traffic_class;
}
EXPORT_SYMBOL(ib_copy_ah_attr_to_user);

/**
 * ib_copy_qp_attr_to_user - QP attributes as struct ib_uverbs_qp_attr
 * @dst: filled in completely, except @dst->qp_attr_mask, which the caller
 *	sets (it says which of the attributes count)
 * @src: the attributes
 */
void ib_copy_qp_attr_to_user(struct ib_uverbs_qp_attr *dst,
			     const struct ib_qp_attr *src)
{
	u32 mask = dst->qp_attr_mask;

	memset(dst, 0, sizeof(*dst));
	dst->qp_attr_mask = mask;
	dst->qp_state = src->qp_state;
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;

	ib_copy_ah_attr_to_user(&dst->ah_attr, &src->ah_attr);
	ib_copy_ah_attr_to_user(&dst->alt_ah_attr, &src->alt_ah_attr);

	dst->max_send_wr = src->cap.max_send_wr;
	dst->max_recv_wr = src->cap.max_recv_wr;
	dst->max_send_sge = src->cap.max_send_sge;
	dst->max_recv_sge = src->cap.max_recv_sge;
	dst->max_inline_data = src->cap.max_inline_data;

	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}
EXPORT_SYMBOL(ib_copy_qp_attr_to_user);

/**
 * ib_copy_path_rec_to_user - a path record as struct ib_user_path_rec
 * @dst: filled in completely
 * @src: the path record
 *
 * The service ID and QoS class have no place in the user structure.
 */
void ib_copy_path_rec_to_user(struct ib_user_path_rec *dst,
			      const struct sa_path_rec *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->reversible = src->reversible;
	dst->mtu = src->mtu;
	dst->pkey = src->pkey;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->numb_path = src->numb_path;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}
EXPORT_SYMBOL(ib_copy_path_rec_to_user);
