// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: RDMA channels, and logging in and out through the IB CM or the
 * RDMA CM.
 *
 * A channel is an RC QP with a send and a receive CQ (both polled in
 * softirq context), a pool of fast-registration MRs when the device
 * registers memory, and two rings of IUs.  Logging in (srp_connect_ch())
 * is, with the IB CM: a PathRecord from the SA for (SGID, DGID, P_Key,
 * ServiceID), then a REQ carrying an SRP_LOGIN_REQ; the REP carries the
 * SRP_LOGIN_RSP, whose limits are checked before the QP goes to RTR and
 * RTS and the RTU goes out.  A REJ with reason "consumer defined" carries
 * an SRP_LOGIN_REJ; a redirect makes us try again with the new port, a
 * stale connection makes us try again a few times.  With the RDMA CM
 * (dest=), the address and route are resolved first, the QP is made on
 * the cm_id and the login request travels in the RDMA CM's private data.
 *
 * Every CM event arrives in process context from the CM's work queue, one
 * at a time per ID; the waiter in srp_connect_ch() sleeps on ch->done and
 * reads ch->status, which the handlers write before completing it.  A
 * target that disconnects (DREQ, or RDMA CM DISCONNECTED) makes the
 * transport's timers start (tl_err_work): reconnecting is the transport
 * class's decision (srp_host.c).
 *
 * Everything here that comes from the wire (the login response's limits,
 * the redirect information) is checked before it is used.
 */

#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/mr_pool.h>
#include <scsi/scsi_device.h>

#include "srp.h"

static void srp_qp_event(struct ib_event *event, void *context)
{
	pr_debug("QP event %d\n", event->event);
}

static struct srp_iu *srp_alloc_iu(struct ib_device *ibdev, size_t size,
				   enum dma_data_direction dir)
{
	struct srp_iu *iu;

	iu = kzalloc(sizeof(*iu), GFP_KERNEL);
	if (!iu)
		return NULL;
	iu->buf = kzalloc(size, GFP_KERNEL);
	if (!iu->buf)
		goto free_iu;
	iu->dma = ib_dma_map_single(ibdev, iu->buf, size, dir);
	if (ib_dma_mapping_error(ibdev, iu->dma))
		goto free_buf;
	iu->size = size;
	iu->direction = dir;
	return iu;

free_buf:
	kfree(iu->buf);
free_iu:
	kfree(iu);
	return NULL;
}

static void srp_free_iu(struct ib_device *ibdev, struct srp_iu *iu)
{
	if (!iu)
		return;
	ib_dma_unmap_single(ibdev, iu->dma, iu->size, iu->direction);
	kfree(iu->buf);
	kfree(iu);
}

/**
 * srp_free_iu_bufs() - free the IU rings of a channel
 * @ch: the channel, whose QP no longer uses them
 */
void srp_free_iu_bufs(struct srp_rdma_ch *ch)
{
	struct srp_target_port *target = ch->target;
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	unsigned int i;

	if (ch->rx_ring) {
		for (i = 0; i < target->queue_size; i++)
			srp_free_iu(ibdev, ch->rx_ring[i]);
		kfree(ch->rx_ring);
		ch->rx_ring = NULL;
	}
	if (ch->tx_ring) {
		for (i = 0; i < target->queue_size; i++)
			srp_free_iu(ibdev, ch->tx_ring[i]);
		kfree(ch->tx_ring);
		ch->tx_ring = NULL;
	}
	INIT_LIST_HEAD(&ch->free_tx);
}

/**
 * srp_alloc_iu_bufs() - allocate the IU rings of a channel
 * @ch: the channel; ch->max_ti_iu_len says how large receives are
 *
 * Return: 0 or -ENOMEM.
 */
int srp_alloc_iu_bufs(struct srp_rdma_ch *ch)
{
	struct srp_target_port *target = ch->target;
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	unsigned int i;

	ch->rx_ring = kcalloc(target->queue_size, sizeof(*ch->rx_ring),
			      GFP_KERNEL);
	ch->tx_ring = kcalloc(target->queue_size, sizeof(*ch->tx_ring),
			      GFP_KERNEL);
	if (!ch->rx_ring || !ch->tx_ring)
		goto err;

	for (i = 0; i < target->queue_size; i++) {
		ch->rx_ring[i] = srp_alloc_iu(ibdev, ch->max_ti_iu_len,
					      DMA_FROM_DEVICE);
		if (!ch->rx_ring[i])
			goto err;
		ch->rx_ring[i]->cqe.done = srp_recv_done;
	}

	INIT_LIST_HEAD(&ch->free_tx);
	for (i = 0; i < target->queue_size; i++) {
		ch->tx_ring[i] = srp_alloc_iu(ibdev, target->max_iu_len,
					      DMA_TO_DEVICE);
		if (!ch->tx_ring[i])
			goto err;
		ch->tx_ring[i]->cqe.done = srp_send_done;
		list_add(&ch->tx_ring[i]->list, &ch->free_tx);
	}
	return 0;

err:
	srp_free_iu_bufs(ch);
	return -ENOMEM;
}

/* The QP to INIT with the target's P_Key (IB CM mode). */
static int srp_init_ib_qp(struct srp_target_port *target, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};
	u16 pkey_index;
	int ret;

	ret = ib_find_pkey(target->srp_host->srp_dev->dev,
			   target->srp_host->port, target->pkey, &pkey_index);
	if (ret) {
		shost_printk(KERN_WARNING, target->scsi_host,
			     "P_Key %#06x not in the port's table\n",
			     target->pkey);
		return ret;
	}
	attr.qp_state = IB_QPS_INIT;
	attr.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	attr.port_num = target->srp_host->port;
	attr.pkey_index = pkey_index;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_ACCESS_FLAGS | IB_QP_PORT);
}

static int srp_rdma_cm_handler(struct rdma_cm_id *cm_id,
			       struct rdma_cm_event *event);

/*
 * A new RDMA CM ID for @ch with the target's address and route resolved
 * (RDMA CM mode); the old one, if any, is destroyed once the new one is
 * ready.
 */
static int srp_new_rdma_cm_id(struct srp_rdma_ch *ch)
{
	struct srp_target_port *target = ch->target;
	struct rdma_cm_id *new_cm_id;
	int ret;

	new_cm_id = rdma_create_id(target->net, srp_rdma_cm_handler, ch,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(new_cm_id))
		return PTR_ERR(new_cm_id);

	init_completion(&ch->done);
	ret = rdma_resolve_addr(new_cm_id, target->has_src ?
				(struct sockaddr *)&target->rdma_src : NULL,
				(struct sockaddr *)&target->rdma_dst,
				SRP_PATH_REC_TIMEOUT_MS);
	if (ret) {
		pr_warn_ratelimited("resolving %pISpc failed: %d\n",
				    &target->rdma_dst, ret);
		goto destroy;
	}
	wait_for_completion(&ch->done);
	ret = ch->status;
	if (ret) {
		pr_warn_ratelimited("resolving address or route of %pISpc failed: %d\n",
				    &target->rdma_dst, ret);
		goto destroy;
	}
	if (new_cm_id->device != target->srp_host->srp_dev->dev ||
	    new_cm_id->port_num != target->srp_host->port) {
		pr_warn_ratelimited("%pISpc is not reached through %s port %u\n",
				    &target->rdma_dst,
				    dev_name(&target->srp_host->srp_dev->dev->dev),
				    target->srp_host->port);
		ret = -ENETUNREACH;
		goto destroy;
	}

	swap(ch->rdma_cm_id, new_cm_id);
destroy:
	if (new_cm_id)
		rdma_destroy_id(new_cm_id);
	return ret;
}

/**
 * srp_create_ch_ib() - create the QP, CQs and MR pool of a channel
 * @ch: the channel; its old QP, if any, is destroyed first
 *
 * Return: 0 or a negative errno.
 */
int srp_create_ch_ib(struct srp_rdma_ch *ch)
{
	struct srp_target_port *target = ch->target;
	struct srp_device *dev = target->srp_host->srp_dev;
	struct ib_device *ibdev = dev->dev;
	struct ib_qp_init_attr init_attr = {};
	unsigned int m = 1;
	struct ib_qp *qp;
	int ret;

	srp_free_ch_ib(target, ch);

	if (dev->use_fast_reg)
		m = 1 + 2 * target->mr_per_cmd;

	ch->recv_cq = ib_alloc_cq(ibdev, ch, target->queue_size + 1,
				  ch->comp_vector, IB_POLL_SOFTIRQ);
	if (IS_ERR(ch->recv_cq)) {
		ret = PTR_ERR(ch->recv_cq);
		ch->recv_cq = NULL;
		return ret;
	}
	ch->send_cq = ib_alloc_cq(ibdev, ch, m * target->queue_size + 1,
				  ch->comp_vector, IB_POLL_SOFTIRQ);
	if (IS_ERR(ch->send_cq)) {
		ret = PTR_ERR(ch->send_cq);
		ch->send_cq = NULL;
		goto free_recv_cq;
	}

	init_attr.event_handler = srp_qp_event;
	init_attr.cap.max_send_wr = m * target->queue_size;
	init_attr.cap.max_recv_wr = target->queue_size + 1;
	init_attr.cap.max_recv_sge = 1;
	init_attr.cap.max_send_sge = 1;
	init_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	init_attr.qp_type = IB_QPT_RC;
	init_attr.send_cq = ch->send_cq;
	init_attr.recv_cq = ch->recv_cq;

	if (target->using_rdma_cm) {
		ret = srp_new_rdma_cm_id(ch);
		if (ret)
			goto free_send_cq;
		ret = rdma_create_qp(ch->rdma_cm_id, dev->pd, &init_attr);
		qp = ch->rdma_cm_id->qp;
	} else {
		qp = ib_create_qp(dev->pd, &init_attr);
		if (IS_ERR(qp)) {
			ret = PTR_ERR(qp);
		} else {
			ret = srp_init_ib_qp(target, qp);
			if (ret)
				ib_destroy_qp(qp);
		}
	}
	if (ret) {
		pr_warn_ratelimited("QP creation failed: %d\n", ret);
		goto free_send_cq;
	}
	ch->qp = qp;

	if (dev->use_fast_reg) {
		ret = ib_mr_pool_init(qp, &qp->rdma_mrs, target->mr_pool_size,
				      IB_MR_TYPE_MEM_REG,
				      dev->max_pages_per_mr, 0);
		if (ret) {
			pr_warn_ratelimited("allocating %u MRs failed: %d\n",
					    target->mr_pool_size, ret);
			goto destroy_qp;
		}
		ch->mr_count = target->mr_pool_size;
	}
	return 0;

destroy_qp:
	if (target->using_rdma_cm)
		rdma_destroy_qp(ch->rdma_cm_id);
	else
		ib_destroy_qp(qp);
	ch->qp = NULL;
free_send_cq:
	ib_free_cq(ch->send_cq);
	ch->send_cq = NULL;
free_recv_cq:
	ib_free_cq(ch->recv_cq);
	ch->recv_cq = NULL;
	return ret;
}

/**
 * srp_free_ch_ib() - destroy the CM ID, QP, MRs and CQs of a channel
 * @target: its target
 * @ch: the channel; no command may hold its MRs any more
 *
 * The CM ID goes first, so that no CM event arrives for a QP that is
 * gone; the QP is drained before it is destroyed.  The IU rings stay.
 */
void srp_free_ch_ib(struct srp_target_port *target, struct srp_rdma_ch *ch)
{
	ch->connected = false;

	if (ch->cm_id) {
		ib_destroy_cm_id(ch->cm_id);
		ch->cm_id = NULL;
	}
	if (ch->qp) {
		ib_drain_qp(ch->qp);
		if (ch->mr_count)
			ib_mr_pool_destroy(ch->qp, &ch->qp->rdma_mrs);
		ch->mr_count = 0;
		if (target->using_rdma_cm)
			rdma_destroy_qp(ch->rdma_cm_id);
		else
			ib_destroy_qp(ch->qp);
		ch->qp = NULL;
	}
	if (ch->rdma_cm_id) {
		rdma_destroy_id(ch->rdma_cm_id);
		ch->rdma_cm_id = NULL;
	}
	if (ch->send_cq) {
		ib_free_cq(ch->send_cq);
		ch->send_cq = NULL;
	}
	if (ch->recv_cq) {
		ib_free_cq(ch->recv_cq);
		ch->recv_cq = NULL;
	}
}

/**
 * srp_max_it_iu_len() - the longest IU the initiator sends to a target
 * @target: the target
 *
 * Return: room for a command with a 32-byte CDB and cmd_sg_entries
 * descriptors, or for the immediate data, but no more than max_it_iu_size.
 */
u32 srp_max_it_iu_len(const struct srp_target_port *target)
{
	u32 len = sizeof(struct srp_cmd) + SRP_MAX_ADD_CDB_LEN +
		  sizeof(struct srp_indirect_buf) +
		  target->cmd_sg_cnt * sizeof(struct srp_direct_buf);

	if (srp_use_imm_data)
		len = max_t(u32, len, SRP_IMM_DATA_OFFSET +
			    min_t(u32, srp_max_imm_data, SRP_MAX_IT_IU_LEN));
	if (target->max_it_iu_size)
		len = min_t(u32, len, target->max_it_iu_size);
	return len;
}

/* The smallest IU the initiator cannot do without. */
static u32 srp_min_it_iu_len(const struct srp_target_port *target)
{
	return sizeof(struct srp_cmd) + SRP_MAX_ADD_CDB_LEN +
	       sizeof(struct srp_indirect_buf) +
	       target->cmd_sg_cnt * sizeof(struct srp_direct_buf);
}

static void srp_path_rec_completion(int status, struct sa_path_rec *pathrec,
				    int num_paths, void *context)
{
	struct srp_rdma_ch *ch = context;

	if (!status && pathrec && num_paths > 0)
		ch->path = *pathrec;
	else if (!status)
		status = -EHOSTUNREACH;
	ch->status = status;
	complete(&ch->done);
}

static int srp_ib_lookup_path(struct srp_rdma_ch *ch)
{
	struct srp_target_port *target = ch->target;
	struct sa_path_rec rec = {};
	int ret;

	rec.rec_type = SA_PATH_REC_TYPE_IB;
	rec.dgid = target->orig_dgid;
	rec.sgid = target->sgid;
	rec.numb_path = 1;
	rec.reversible = 1;
	rec.pkey = cpu_to_be16(target->pkey);
	rec.service_id = target->service_id;

	reinit_completion(&ch->done);
	ch->status = 0;
	ret = ib_sa_path_rec_get(&srp_sa_client, target->srp_host->srp_dev->dev,
				 target->srp_host->port, &rec,
				 IB_SA_PATH_REC_SERVICE_ID | IB_SA_PATH_REC_DGID |
				 IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_NUMB_PATH |
				 IB_SA_PATH_REC_PKEY,
				 SRP_PATH_REC_TIMEOUT_MS, GFP_KERNEL,
				 srp_path_rec_completion, ch, &ch->path_query);
	if (ret < 0)
		return ret;
	ch->path_query_id = ret;

	ret = wait_for_completion_interruptible(&ch->done);
	if (ret < 0) {
		ib_sa_cancel_query(ch->path_query_id, ch->path_query);
		wait_for_completion(&ch->done);
		return -EINTR;
	}
	if (ch->status < 0)
		shost_printk(KERN_WARNING, target->scsi_host,
			     "Path record query failed: sgid %pI6, dgid %pI6, pkey %#06x, service_id %#016llx: %d\n",
			     target->sgid.raw, target->orig_dgid.raw,
			     target->pkey, be64_to_cpu(target->service_id),
			     ch->status);
	return ch->status;
}

static bool srp_target_is_topspin(struct srp_target_port *target)
{
	static const u8 topspin_oui[3] = { 0x00, 0x05, 0xad };
	static const u8 cisco_oui[3] = { 0x00, 0x1b, 0x0d };

	return srp_topspin_workarounds &&
	       (!memcmp(&target->ioc_guid, topspin_oui, sizeof(topspin_oui)) ||
		!memcmp(&target->ioc_guid, cisco_oui, sizeof(cisco_oui)));
}

/* The port IDs of a login request (ports are swapped for rev. 10). */
static void srp_fill_port_ids(struct srp_target_port *target, u8 *ipi, u8 *tpi)
{
	if (target->io_class == SRP_REV10_IB_IO_CLASS) {
		memcpy(ipi, &target->sgid.global.interface_id, 8);
		memcpy(ipi + 8, &target->initiator_ext, 8);
		memcpy(tpi, &target->ioc_guid, 8);
		memcpy(tpi + 8, &target->id_ext, 8);
	} else {
		memcpy(ipi, &target->initiator_ext, 8);
		memcpy(ipi + 8, &target->sgid.global.interface_id, 8);
		memcpy(tpi, &target->id_ext, 8);
		memcpy(tpi + 8, &target->ioc_guid, 8);
	}

	/*
	 * Topspin/Cisco targets only accept logins from an initiator port
	 * ID of zero followed by the node GUID; rebuild it when the
	 * initiator extension is zero.
	 */
	if (srp_target_is_topspin(target) && !target->initiator_ext) {
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "Topspin/Cisco initiator port ID workaround activated for target GUID %016llx\n",
			     be64_to_cpu(target->ioc_guid));
		memset(ipi, 0, 8);
		memcpy(ipi + 8, &target->srp_host->srp_dev->dev->node_guid, 8);
	}
}

static u8 srp_get_subnet_timeout(struct srp_host *host)
{
	struct ib_port_attr attr;
	u8 subnet_timeout = 18;

	if (!ib_query_port(host->srp_dev->dev, host->port, &attr))
		subnet_timeout = attr.subnet_timeout;
	if (unlikely(subnet_timeout < 15))
		pr_warn("%s: subnet timeout %d may cause SRP login to fail.\n",
			dev_name(&host->srp_dev->dev->dev), subnet_timeout);
	return min_t(u8, subnet_timeout, 29);
}

static int srp_ib_cm_handler(struct ib_cm_id *cm_id,
			     const struct ib_cm_event *event);

/* The SRP_LOGIN_REQ fields both CMs carry, in their own layouts. */
static u8 srp_login_req_flags(bool multich)
{
	u8 req_flags = multich ? SRP_MULTICHAN_MULTI : SRP_MULTICHAN_SINGLE;

	if (srp_use_imm_data)
		req_flags |= SRP_IMMED_REQUESTED;
	return req_flags;
}

static int srp_send_req_rdma(struct srp_rdma_ch *ch, u32 max_iu_len,
			     bool multich)
{
	struct srp_target_port *target = ch->target;
	struct srp_login_req_rdma req = {};
	struct rdma_conn_param param = {};

	req.opcode = SRP_LOGIN_REQ;
	req.req_it_iu_len = cpu_to_be32(max_iu_len);
	req.req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				      SRP_BUF_FORMAT_INDIRECT);
	req.req_flags = srp_login_req_flags(multich);
	req.imm_data_offset = cpu_to_be16(SRP_IMM_DATA_OFFSET);
	srp_fill_port_ids(target, req.initiator_port_id, req.target_port_id);

	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.flow_control = 1;
	param.responder_resources = 4;
	param.initiator_depth = 4;
	param.retry_count = target->tl_retry_count;
	param.rnr_retry_count = 7;
	return rdma_connect(ch->rdma_cm_id, &param);
}

static int srp_send_req_ib(struct srp_rdma_ch *ch, u32 max_iu_len,
			   bool multich)
{
	struct srp_target_port *target = ch->target;
	u8 subnet_timeout = srp_get_subnet_timeout(target->srp_host);
	struct ib_cm_req_param param = {};
	struct srp_login_req req = {};
	struct ib_cm_id *new_cm_id;

	req.opcode = SRP_LOGIN_REQ;
	req.req_it_iu_len = cpu_to_be32(max_iu_len);
	req.req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				      SRP_BUF_FORMAT_INDIRECT);
	req.req_flags = srp_login_req_flags(multich);
	req.imm_data_offset = cpu_to_be16(SRP_IMM_DATA_OFFSET);
	srp_fill_port_ids(target, req.initiator_port_id, req.target_port_id);

	/* every login attempt gets a fresh CM ID */
	new_cm_id = ib_create_cm_id(target->srp_host->srp_dev->dev,
				    srp_ib_cm_handler, ch);
	if (IS_ERR(new_cm_id))
		return PTR_ERR(new_cm_id);
	if (ch->cm_id)
		ib_destroy_cm_id(ch->cm_id);
	ch->cm_id = new_cm_id;

	param.primary_path = &ch->path;
	param.service_id = target->service_id;
	param.qp_num = ch->qp->qp_num;
	param.qp_type = IB_QPT_RC;
	param.starting_psn = get_random_u32() & 0xffffff;
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.responder_resources = 4;
	param.remote_cm_response_timeout = subnet_timeout + 2;
	param.local_cm_response_timeout = subnet_timeout + 2;
	param.flow_control = 1;
	param.retry_count = target->tl_retry_count;
	param.rnr_retry_count = 7;
	param.max_cm_retries = 15;
	return ib_send_cm_req(ch->cm_id, &param);
}

/**
 * srp_connect_ch() - log in on one channel
 * @ch: the channel, with its QP created
 * @max_iu_len: the request's it_iu_len
 * @multich: other channels of the same I_T nexus exist and must stay
 *
 * Return: 0 once the channel is logged in, else a negative errno
 * (-ECONNRESET for a rejection, -EINTR if a signal interrupted the wait).
 */
int srp_connect_ch(struct srp_rdma_ch *ch, u32 max_iu_len, bool multich)
{
	struct srp_target_port *target = ch->target;
	int tries = 0;
	int ret;

	init_completion(&ch->done);
	if (!target->using_rdma_cm) {
		ret = srp_ib_lookup_path(ch);
		if (ret)
			return ret;
	}

	while (tries++ < SRP_MAX_LOGIN_TRIES) {
		reinit_completion(&ch->done);
		ch->status = 0;
		ret = target->using_rdma_cm ?
			srp_send_req_rdma(ch, max_iu_len, multich) :
			srp_send_req_ib(ch, max_iu_len, multich);
		if (ret)
			return ret;
		ret = wait_for_completion_interruptible(&ch->done);
		if (ret < 0)
			return -EINTR;

		switch (ch->status) {
		case 0:
			ch->connected = true;
			return 0;
		case SRP_PORT_REDIRECT:
			ret = srp_ib_lookup_path(ch);
			if (ret)
				return ret;
			break;
		case SRP_DLID_REDIRECT:
			break;
		case SRP_STALE_CONN:
			/* an RDMA CM ID connects once: no retry there */
			if (tries >= SRP_MAX_LOGIN_TRIES || target->using_rdma_cm) {
				shost_printk(KERN_ERR, target->scsi_host,
					     "giving up on stale connection\n");
				return -ECONNRESET;
			}
			break;
		default:
			return ch->status;
		}
	}
	return -ECONNRESET;
}

/*
 * The SRP_LOGIN_RSP of @ch's login: its limits are checked, the rings are
 * allocated the first time, and the QP is made ready for the target's
 * messages.  Return: 0 or a negative errno (login refused).
 */
static int srp_login_rsp(struct srp_rdma_ch *ch,
			 const struct srp_login_rsp *lrsp)
{
	struct srp_target_port *target = ch->target;
	u32 max_ti = be32_to_cpu(lrsp->max_ti_iu_len);
	u32 max_it = be32_to_cpu(lrsp->max_it_iu_len);
	s32 req_lim = be32_to_cpu(lrsp->req_lim_delta);
	unsigned long flags;

	if (max_ti < sizeof(struct srp_rsp) || max_ti > SRP_MAX_TI_IU_LEN) {
		shost_printk(KERN_ERR, target->scsi_host,
			     "login response with max_ti_iu_len %u refused\n",
			     max_ti);
		return -EPROTO;
	}
	if (max_it < srp_min_it_iu_len(target)) {
		shost_printk(KERN_ERR, target->scsi_host,
			     "login response with max_it_iu_len %u < %u refused\n",
			     max_it, srp_min_it_iu_len(target));
		return -EPROTO;
	}
	if (req_lim < 1) {
		shost_printk(KERN_ERR, target->scsi_host,
			     "login response with req_lim_delta %d refused\n",
			     req_lim);
		return -EPROTO;
	}
	if (!(be16_to_cpu(lrsp->buf_fmt) & SRP_BUF_FORMAT_DIRECT))
		shost_printk(KERN_WARNING, target->scsi_host,
			     "target does not announce direct buffers\n");

	if (!ch->rx_ring)
		ch->max_ti_iu_len = max_ti;
	ch->max_it_iu_len = min(max_it, target->max_iu_len);
	ch->use_imm_data = srp_use_imm_data &&
			   (lrsp->rsp_flags & SRP_LOGIN_RSP_IMMED_SUPP) &&
			   ch->max_it_iu_len > SRP_IMM_DATA_OFFSET;
	ch->max_imm_data = ch->use_imm_data ?
		min_t(u32, srp_max_imm_data,
		      ch->max_it_iu_len - SRP_IMM_DATA_OFFSET) : 0;
	if (ch->use_imm_data)
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "using immediate data of up to %u bytes\n",
			     ch->max_imm_data);

	spin_lock_irqsave(&ch->lock, flags);
	ch->req_lim = req_lim;
	spin_unlock_irqrestore(&ch->lock, flags);

	if (!ch->rx_ring)
		return srp_alloc_iu_bufs(ch);
	return 0;
}

/* Post every receive IU of @ch. */
static int srp_post_all_recvs(struct srp_rdma_ch *ch)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ch->target->queue_size; i++) {
		ret = srp_post_recv(ch, ch->rx_ring[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * How long a request may take before the SCSI layer should give up on it:
 * the QP's transport retries (4.096 us * 2^timeout each, retry_cnt of
 * them, over up to four hops) plus a second.
 */
static unsigned long srp_compute_rq_tmo(const struct ib_qp_attr *attr,
					int mask)
{
	u64 t_ns, ms;

	if (!(mask & IB_QP_TIMEOUT) || !(mask & IB_QP_RETRY_CNT))
		return 30 * HZ;
	t_ns = 4096ULL << min_t(u8, attr->timeout, 31);
	ms = div_u64(attr->retry_cnt * 4 * t_ns, NSEC_PER_MSEC);
	return msecs_to_jiffies(min_t(u64, ms + 1000, 3600 * MSEC_PER_SEC));
}

static void srp_ib_cm_rep_handler(struct ib_cm_id *cm_id,
				  const struct ib_cm_event *event,
				  struct srp_rdma_ch *ch)
{
	const struct srp_login_rsp *lrsp = event->private_data;
	struct srp_target_port *target = ch->target;
	struct ib_qp_attr attr = {};
	int mask;
	int ret;

	if (!lrsp || lrsp->opcode != SRP_LOGIN_RSP) {
		shost_printk(KERN_WARNING, target->scsi_host,
			     "unhandled RSP opcode %#x\n",
			     lrsp ? lrsp->opcode : 0);
		ret = -ECONNRESET;
		goto reject;
	}
	ret = srp_login_rsp(ch, lrsp);
	if (ret)
		goto reject;

	attr.qp_state = IB_QPS_RTR;
	ret = ib_cm_init_qp_attr(cm_id, &attr, &mask);
	if (ret)
		goto reject;
	ret = ib_modify_qp(ch->qp, &attr, mask);
	if (ret)
		goto reject;
	ret = srp_post_all_recvs(ch);
	if (ret)
		goto reject;

	attr.qp_state = IB_QPS_RTS;
	ret = ib_cm_init_qp_attr(cm_id, &attr, &mask);
	if (ret)
		goto reject;
	ret = ib_modify_qp(ch->qp, &attr, mask);
	if (ret)
		goto reject;
	target->rq_tmo_jiffies = srp_compute_rq_tmo(&attr, mask);

	ret = ib_send_cm_rtu(cm_id, NULL, 0);
	ch->status = ret;
	return;

reject:
	ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
	ch->status = ret;
}

static const char *srp_login_rej_reason(u32 reason)
{
	switch (reason) {
	case SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL:
		return "unable to establish RDMA channel";
	case SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES:
		return "insufficient resources";
	case SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE:
		return "requested max_it_iu_len too large";
	case SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL:
		return "unable to associate RDMA channel with I_T nexus";
	case SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT:
		return "unsupported descriptor format";
	case SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED:
		return "multichannel RDMA action unsupported";
	case SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED:
		return "channel limit reached";
	default:
		return "unknown reason";
	}
}

/* An SRP_LOGIN_REJ in a consumer-defined rejection; Return: -ECONNRESET. */
static int srp_login_rej(struct srp_rdma_ch *ch, const void *data)
{
	struct srp_target_port *target = ch->target;
	const struct srp_login_rej *rej = data;
	u32 reason;

	if (!rej || rej->opcode != SRP_LOGIN_REJ) {
		shost_printk(KERN_WARNING, target->scsi_host,
			     "CONSUMER_DEFINED REJ, opcode %#04x\n",
			     rej ? rej->opcode : 0);
		return -ECONNRESET;
	}
	reason = be32_to_cpu(rej->reason);
	shost_printk(KERN_WARNING, target->scsi_host,
		     "SRP LOGIN from %pI6 to %pI6 REJECTED, reason %#010x (%s)\n",
		     target->sgid.raw, target->orig_dgid.raw, reason,
		     srp_login_rej_reason(reason));
	return -ECONNRESET;
}

static void srp_ib_cm_rej_handler(const struct ib_cm_event *event,
				  struct srp_rdma_ch *ch)
{
	const struct ib_cm_rej_event_param *rej = &event->param.rej_rcvd;
	struct srp_target_port *target = ch->target;
	struct Scsi_Host *shost = target->scsi_host;

	switch (rej->reason) {
	case IB_CM_REJ_PORT_REDIRECT:
		if (rej->ari && rej->ari_length >= sizeof(union ib_gid)) {
			memcpy(target->orig_dgid.raw, rej->ari,
			       sizeof(union ib_gid));
			shost_printk(KERN_DEBUG, shost,
				     "port redirect to %pI6\n",
				     target->orig_dgid.raw);
			ch->status = SRP_PORT_REDIRECT;
		} else {
			shost_printk(KERN_WARNING, shost,
				     "REJ reason: IB_CM_REJ_PORT_REDIRECT without a GID\n");
			ch->status = -ECONNRESET;
		}
		break;
	case IB_CM_REJ_PORT_CM_REDIRECT:
		shost_printk(KERN_WARNING, shost,
			     "REJ reason: IB_CM_REJ_PORT_CM_REDIRECT not supported\n");
		ch->status = -ECONNRESET;
		break;
	case IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID:
		shost_printk(KERN_WARNING, shost,
			     "REJ reason: IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID\n");
		ch->status = -ECONNRESET;
		break;
	case IB_CM_REJ_CONSUMER_DEFINED:
		ch->status = srp_login_rej(ch, event->private_data);
		break;
	case IB_CM_REJ_STALE_CONN:
		shost_printk(KERN_WARNING, shost, "  REJ reason: stale connection\n");
		ch->status = SRP_STALE_CONN;
		break;
	case IB_CM_REJ_INVALID_SERVICE_ID:
		shost_printk(KERN_WARNING, shost,
			     "REJ reason: invalid service ID %#016llx\n",
			     be64_to_cpu(target->service_id));
		ch->status = -ECONNREFUSED;
		break;
	default:
		shost_printk(KERN_WARNING, shost, "REJ reason %#x\n",
			     rej->reason);
		ch->status = -ECONNRESET;
	}
}

static int srp_ib_cm_handler(struct ib_cm_id *cm_id,
			     const struct ib_cm_event *event)
{
	struct srp_rdma_ch *ch = cm_id->context;
	struct srp_target_port *target = ch->target;
	bool comp = false;

	switch (event->event) {
	case IB_CM_REQ_ERROR:
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "Sending CM REQ failed\n");
		comp = true;
		ch->status = -ECONNRESET;
		break;
	case IB_CM_REP_RECEIVED:
		comp = true;
		srp_ib_cm_rep_handler(cm_id, event, ch);
		break;
	case IB_CM_REJ_RECEIVED:
		shost_printk(KERN_DEBUG, target->scsi_host, "REJ received\n");
		comp = true;
		srp_ib_cm_rej_handler(event, ch);
		break;
	case IB_CM_DREQ_RECEIVED:
		shost_printk(KERN_WARNING, target->scsi_host,
			     "DREQ received - connection closed\n");
		ch->connected = false;
		if (ib_send_cm_drep(cm_id, NULL, 0))
			shost_printk(KERN_ERR, target->scsi_host,
				     "Sending CM DREP failed\n");
		queue_work(system_long_wq, &target->tl_err_work);
		break;
	case IB_CM_TIMEWAIT_EXIT:
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "connection closed\n");
		comp = true;
		ch->status = 0;
		break;
	case IB_CM_MRA_RECEIVED:
	case IB_CM_DREQ_ERROR:
	case IB_CM_DREP_RECEIVED:
		break;
	default:
		shost_printk(KERN_WARNING, target->scsi_host,
			     "Unhandled CM event %d\n", event->event);
		break;
	}

	if (comp)
		complete(&ch->done);
	return 0;
}

static void srp_rdma_cm_established(struct srp_rdma_ch *ch,
				    struct rdma_cm_event *event)
{
	const struct srp_login_rsp *lrsp = event->param.conn.private_data;
	int ret;

	if (!lrsp || event->param.conn.private_data_len < sizeof(*lrsp) ||
	    lrsp->opcode != SRP_LOGIN_RSP) {
		shost_printk(KERN_WARNING, ch->target->scsi_host,
			     "no login response in the RDMA CM's private data\n");
		ch->status = -ECONNRESET;
		return;
	}
	ret = srp_login_rsp(ch, lrsp);
	if (!ret)
		ret = srp_post_all_recvs(ch);
	ch->status = ret;
}

static int srp_rdma_cm_handler(struct rdma_cm_id *cm_id,
			       struct rdma_cm_event *event)
{
	struct srp_rdma_ch *ch = cm_id->context;
	struct srp_target_port *target = ch->target;
	bool comp = false;
	int ret;

	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(cm_id, SRP_PATH_REC_TIMEOUT_MS);
		if (ret) {
			ch->status = ret;
			comp = true;
		}
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ch->status = 0;
		comp = true;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		ch->status = -EHOSTUNREACH;
		comp = true;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "connecting failed: event %d status %d\n",
			     event->event, event->status);
		ch->status = -ECONNRESET;
		comp = true;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		srp_rdma_cm_established(ch, event);
		comp = true;
		break;
	case RDMA_CM_EVENT_REJECTED:
		if (rdma_is_consumer_reject(cm_id, event->status)) {
			const void *rej;
			u8 len;

			rej = rdma_consumer_reject_data(cm_id, event, &len);
			ch->status = srp_login_rej(ch, len >= sizeof(struct srp_login_rej) ?
						   rej : NULL);
		} else {
			shost_printk(KERN_WARNING, target->scsi_host,
				     "rejected: %s\n",
				     rdma_reject_msg(cm_id, event->status));
			ch->status = event->status == IB_CM_REJ_STALE_CONN ?
				     SRP_STALE_CONN : -ECONNRESET;
		}
		comp = true;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (ch->connected) {
			shost_printk(KERN_WARNING, target->scsi_host,
				     "received DREQ\n");
			ch->connected = false;
			rdma_disconnect(cm_id);
			queue_work(system_long_wq, &target->tl_err_work);
		}
		ch->status = 0;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		ch->status = 0;
		comp = true;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* the ib_client's remove takes the target apart */
		break;
	default:
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "unhandled RDMA CM event %d\n", event->event);
		break;
	}

	if (comp)
		complete(&ch->done);
	return 0;
}

/**
 * srp_disconnect_target() - log out of every channel of a target
 * @target: the target
 *
 * Sends a DREQ (IB CM) or disconnects (RDMA CM) on every channel; on one
 * that never got connected that fails, which is only worth a debug line.
 * The target's answer is not waited for.
 */
void srp_disconnect_target(struct srp_target_port *target)
{
	unsigned int i;

	for (i = 0; i < target->ch_count; i++) {
		struct srp_rdma_ch *ch = &target->ch[i];

		ch->connected = false;
		if (target->using_rdma_cm) {
			if (ch->rdma_cm_id)
				rdma_disconnect(ch->rdma_cm_id);
		} else if (ch->cm_id &&
			   ib_send_cm_dreq(ch->cm_id, NULL, 0)) {
			shost_printk(KERN_DEBUG, target->scsi_host,
				     "Sending CM DREQ failed\n");
		}
	}
}

/**
 * srp_handle_qp_err() - a work request of a channel failed
 * @cq: the CQ of the completion
 * @wc: the completion
 * @op: what the work request did
 *
 * The first error of a connected channel is logged and starts the
 * transport's timers; flushes after that are silent.
 */
void srp_handle_qp_err(struct ib_cq *cq, struct ib_wc *wc, const char *op)
{
	struct srp_rdma_ch *ch = cq->cq_context;
	struct srp_target_port *target = ch->target;

	if (ch->connected && !target->qp_in_error) {
		shost_printk(KERN_ERR, target->scsi_host,
			     "failed %s status %s (%d) for CQE %p\n", op,
			     ib_wc_status_msg(wc->status), wc->status,
			     wc->wr_cqe);
		queue_work(system_long_wq, &target->tl_err_work);
	}
	target->qp_in_error = true;
}
