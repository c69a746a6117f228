// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Replies the MAD layer sends itself: what the device's SMA/PMA
 * (process_mad) answered, and the "unsupported" answers to unclaimed Gets
 * and Sets.  Each port has one send-only agent per special QP for them;
 * a reply goes back to where the request came from (the work completion's
 * SLID, SL, path bits, source QP and P_Key index, the GRH reversed), and
 * directed-route replies to the permissive LID with the hop pointer moved
 * by the send rules in ib_post_send_mad().
 */
#include <linux/slab.h>
#include <rdma/ib_smi.h>

#include "core_priv.h"
#include "mad_priv.h"

static void ib_mad_reply_sent(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	struct ib_mad_send_buf *buf = wc->send_buf;

	rdma_destroy_ah(buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(buf);
}

/**
 * ib_mad_reply_agents_create - the reply agents of a port
 * @port: a port whose QPs exist
 *
 * Return: 0 or a negative errno.
 */
int ib_mad_reply_agents_create(struct ib_mad_port *port)
{
	static const enum ib_qp_type types[IB_MAD_QPS] = {
		[IB_MAD_QP0] = IB_QPT_SMI,
		[IB_MAD_QP1] = IB_QPT_GSI,
	};
	struct ib_mad_agent *agent;
	int i;

	for (i = 0; i < IB_MAD_QPS; i++) {
		if (!port->qp_info[i].qp)
			continue;
		agent = ib_register_mad_agent(port->device, port->port_num,
					      types[i], NULL, 0,
					      ib_mad_reply_sent, NULL, NULL,
					      0);
		if (IS_ERR(agent)) {
			ib_mad_reply_agents_destroy(port);
			return PTR_ERR(agent);
		}
		port->qp_info[i].reply_agent = agent;
	}
	return 0;
}

/**
 * ib_mad_reply_agents_destroy - unregister the reply agents of a port
 * @port: the port; no receive processing may be in progress
 *
 * Waits for replies still on the wire.
 */
void ib_mad_reply_agents_destroy(struct ib_mad_port *port)
{
	int i;

	for (i = 0; i < IB_MAD_QPS; i++) {
		if (!port->qp_info[i].reply_agent)
			continue;
		ib_unregister_mad_agent(port->qp_info[i].reply_agent);
		port->qp_info[i].reply_agent = NULL;
	}
}

static void ib_mad_reply_ah_attr(struct ib_mad_qp_info *qp_info,
				 const struct ib_wc *wc,
				 const struct ib_grh *grh,
				 const struct ib_mad *mad,
				 struct rdma_ah_attr *attr)
{
	u32 vtf;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_IB;
	attr->port_num = qp_info->port->port_num;
	if (mad->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		/* the directed part leads back to the requester's port */
		attr->dlid = be16_to_cpu(IB_LID_PERMISSIVE);
		return;
	}
	attr->dlid = wc->slid;
	attr->sl = wc->sl;
	attr->src_path_bits = wc->dlid_path_bits;
	if (!grh)
		return;
	vtf = be32_to_cpu(grh->version_tclass_flow);
	attr->ah_flags = IB_AH_GRH;
	attr->grh.dgid = grh->sgid;
	attr->grh.flow_label = vtf & 0xfffff;
	attr->grh.traffic_class = (vtf >> 20) & 0xff;
	attr->grh.hop_limit = 0xff;
	attr->grh.sgid_index = 0;
}

/**
 * ib_mad_send_reply - send a reply for a received MAD
 * @qp_info: the QP the request came in on
 * @wc: the request's work completion
 * @grh: the request's GRH, or NULL
 * @mad: the reply
 *
 * Failures only lose the reply (the requester will time out); they are
 * counted in the kernel log at debug level.
 *
 * Context: process context.
 */
void ib_mad_send_reply(struct ib_mad_qp_info *qp_info, const struct ib_wc *wc,
		       const struct ib_grh *grh, const struct ib_mad *mad)
{
	struct ib_mad_agent *agent = qp_info->reply_agent;
	struct ib_mad_send_buf *buf;
	struct rdma_ah_attr attr;
	struct ib_ah *ah;
	int ret;

	if (!agent)
		return;
	ib_mad_reply_ah_attr(qp_info, wc, grh, mad, &attr);
	ah = rdma_create_ah(qp_info->port->pd, &attr,
			    RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err;
	}
	buf = ib_create_send_mad(agent, wc->src_qp, wc->pkey_index, 0,
				 IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_SIZE - IB_MGMT_MAD_HDR,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto err_ah;
	}
	memcpy(buf->mad, mad, IB_MGMT_MAD_SIZE);
	buf->ah = ah;
	ret = ib_post_send_mad(buf, NULL);
	if (ret)
		goto err_buf;
	return;

err_buf:
	ib_free_send_mad(buf);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
err:
	dev_dbg(&qp_info->port->device->dev,
		"MAD: port %u: reply not sent: %d\n",
		qp_info->port->port_num, ret);
}
