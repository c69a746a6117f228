// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: the data path.
 *
 * queuecommand turns a SCSI command into an SRP_CMD on the channel of its
 * blk-mq hardware queue; its tag is the request's blk-mq unique tag, so a
 * response finds its command again with scsi_host_find_tag().  Data is
 * described by one direct descriptor, by an indirect table (the first
 * cmd_sg_entries descriptors inside the SRP_CMD, the whole table in
 * initiator memory for allow_ext_sg), or carried as immediate data in the
 * IU itself when the target accepts it.  Memory is registered with
 * fast-registration MRs from the QP's pool (one IB_WR_REG_MR per MR,
 * unsignalled and invalidated again with IB_WR_LOCAL_INV when the command
 * completes) or, without registration, described through the PD's global
 * rkey.
 *
 * Credits: every SRP_CMD uses one of the target's request slots
 * (req_lim); the last one is kept for task management; SRP_RSP,
 * SRP_CRED_REQ and SRP_AER_REQ give slots back in req_lim_delta.
 *
 * Every IU the target sends is checked against the length it arrived
 * with before anything in it is used: short IUs, unknown opcodes, tags
 * of no outstanding command (or of a command of another channel), sense
 * and response data beyond the IU, residuals beyond the buffer are
 * dropped or clipped, counted and logged (rate-limited).
 *
 * Locking: ch->lock, taken with interrupts saved, protects the credits,
 * the free send IUs and req->scmnd; a command is completed only by whoever
 * took it out of req->scmnd (srp_claim_req()).  Completions run in softirq
 * context.
 */

#include <linux/blk-mq.h>
#include <linux/scatterlist.h>
#include <rdma/mr_pool.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_tcq.h>
#include <scsi/scsi_transport_srp.h>

#include "srp.h"

static struct srp_rdma_ch *srp_ch_of(struct srp_target_port *target,
				     struct scsi_cmnd *scmnd)
{
	u32 tag = blk_mq_unique_tag(scsi_cmd_to_rq(scmnd));

	return &target->ch[blk_mq_unique_tag_to_hwq(tag)];
}

/* Credits returned by the target; they saturate rather than wrap. */
static void srp_add_req_lim(struct srp_rdma_ch *ch, u32 delta)
{
	lockdep_assert_held(&ch->lock);
	ch->req_lim = min_t(s64, (s64)ch->req_lim + delta, S32_MAX);
}

/*
 * A free send IU, and a credit for commands and task management; one
 * credit stays reserved for task management.  Return: the IU or NULL.
 */
static struct srp_iu *__srp_get_tx_iu(struct srp_rdma_ch *ch,
				      enum srp_iu_type type)
{
	s32 rsv = type == SRP_IU_TSK_MGMT ? 0 : SRP_TSK_MGMT_SQ_SIZE;
	struct srp_iu *iu;

	lockdep_assert_held(&ch->lock);
	if (list_empty(&ch->free_tx))
		return NULL;
	if (type != SRP_IU_RSP) {
		if (ch->req_lim <= rsv) {
			ch->target->zero_req_lim++;
			return NULL;
		}
		ch->req_lim--;
	}
	iu = list_first_entry(&ch->free_tx, struct srp_iu, list);
	list_del(&iu->list);
	return iu;
}

static void srp_put_tx_iu(struct srp_rdma_ch *ch, struct srp_iu *iu,
			  enum srp_iu_type type)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	list_add(&iu->list, &ch->free_tx);
	if (type != SRP_IU_RSP)
		ch->req_lim++;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srp_send_done() - completion of an IU sent
 * @cq: the send CQ
 * @wc: the completion
 *
 * The IU goes back to the free list, also when it was flushed.
 */
void srp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srp_iu *iu = container_of(wc->wr_cqe, struct srp_iu, cqe);
	struct srp_rdma_ch *ch = cq->cq_context;
	unsigned long flags;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		srp_handle_qp_err(cq, wc, "SEND");

	spin_lock_irqsave(&ch->lock, flags);
	list_add(&iu->list, &ch->free_tx);
	spin_unlock_irqrestore(&ch->lock, flags);
}

static void srp_reg_mr_err_done(struct ib_cq *cq, struct ib_wc *wc)
{
	srp_handle_qp_err(cq, wc, "FAST REG");
}

static void srp_inv_rkey_err_done(struct ib_cq *cq, struct ib_wc *wc)
{
	srp_handle_qp_err(cq, wc, "INV RKEY");
}

static int srp_post_send(struct srp_rdma_ch *ch, struct srp_iu *iu, u32 len)
{
	struct ib_sge sge = {
		.addr	= iu->dma,
		.length	= len,
		.lkey	= ch->target->srp_host->srp_dev->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &iu->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};

	return ib_post_send(ch->qp, &wr, NULL);
}

/**
 * srp_post_recv() - post a receive IU
 * @ch: the channel
 * @iu: the IU
 *
 * Return: 0 or the error of ib_post_recv().
 */
int srp_post_recv(struct srp_rdma_ch *ch, struct srp_iu *iu)
{
	struct ib_sge sge = {
		.addr	= iu->dma,
		.length	= iu->size,
		.lkey	= ch->target->srp_host->srp_dev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &iu->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	return ib_post_recv(ch->qp, &wr, NULL);
}

/*
 * Register @nents entries of @sg (from byte *@offset of the first) with
 * one MR; the MR is recorded in @req.  Return: the number of entries
 * covered completely, or a negative errno.
 */
static int srp_map_one_mr(struct srp_rdma_ch *ch, struct srp_request *req,
			  struct scatterlist *sg, int nents,
			  unsigned int *offset, struct srp_direct_buf *desc)
{
	struct srp_target_port *target = ch->target;
	struct srp_device *dev = target->srp_host->srp_dev;
	struct ib_reg_wr wr = {};
	struct ib_mr *mr;
	int n, ret;

	if (req->nmdesc >= target->mr_per_cmd)
		return -EIO;
	mr = ib_mr_pool_get(ch->qp, &ch->qp->rdma_mrs);
	if (!mr)
		return -ENOMEM;

	n = ib_map_mr_sg(mr, sg, nents, offset, dev->mr_page_size);
	if (n < 0 || !mr->length) {
		ret = n < 0 ? n : -EIO;
		goto put;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));

	req->reg_cqe.done = srp_reg_mr_err_done;
	wr.wr.wr_cqe = &req->reg_cqe;
	wr.wr.opcode = IB_WR_REG_MR;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		    IB_ACCESS_REMOTE_WRITE;
	ret = ib_post_send(ch->qp, &wr.wr, NULL);
	if (ret)
		goto put;

	req->mr_list[req->nmdesc++] = mr;
	desc->va = cpu_to_be64(mr->iova);
	desc->key = cpu_to_be32(mr->rkey);
	desc->len = cpu_to_be32(mr->length);
	return n;

put:
	ib_mr_pool_put(ch->qp, &ch->qp->rdma_mrs, mr);
	return ret;
}

/*
 * Describe the mapped scatterlist of @scmnd in req->indirect_desc, one
 * descriptor per MR, or per entry with the global rkey.
 * Return: the number of descriptors or a negative errno.
 */
static int srp_map_sg(struct srp_rdma_ch *ch, struct srp_request *req,
		      struct scsi_cmnd *scmnd, int count, u32 max_desc)
{
	struct srp_target_port *target = ch->target;
	struct srp_device *dev = target->srp_host->srp_dev;
	struct scatterlist *sg = scsi_sglist(scmnd);
	unsigned int offset = 0;
	u32 ndesc = 0;
	int i, n;

	if (!dev->use_fast_reg ||
	    (count == 1 && !srp_register_always && target->global_rkey)) {
		if (!target->global_rkey)
			return -EIO;
		for_each_sg(scsi_sglist(scmnd), sg, count, i) {
			if (ndesc >= max_desc)
				return -EIO;
			req->indirect_desc[ndesc].va =
				cpu_to_be64(sg_dma_address(sg));
			req->indirect_desc[ndesc].key =
				cpu_to_be32(target->global_rkey);
			req->indirect_desc[ndesc].len =
				cpu_to_be32(sg_dma_len(sg));
			ndesc++;
		}
		return ndesc;
	}

	while (count > 0) {
		if (ndesc >= max_desc)
			return -EIO;
		n = srp_map_one_mr(ch, req, sg, count, &offset,
				   &req->indirect_desc[ndesc]);
		if (n < 0)
			return n;
		ndesc++;
		count -= n;
		for (i = 0; i < n; i++)
			sg = sg_next(sg);
	}
	return ndesc;
}

/* An MR over the descriptor table itself (allow_ext_sg, no global rkey). */
static int srp_map_idb(struct srp_rdma_ch *ch, struct srp_request *req,
		       u32 table_len, struct srp_direct_buf *desc)
{
	struct scatterlist idb_sg;
	unsigned int offset = 0;
	int n;

	sg_init_table(&idb_sg, 1);
	sg_dma_address(&idb_sg) = req->indirect_dma_addr;
	sg_dma_len(&idb_sg) = table_len;
	idb_sg.length = table_len;
	n = srp_map_one_mr(ch, req, &idb_sg, 1, &offset, desc);
	if (n < 0)
		return n;
	return n == 1 ? 0 : -EIO;
}

static void srp_unmap_data(struct scsi_cmnd *scmnd, struct srp_rdma_ch *ch,
			   struct srp_request *req)
{
	struct ib_device *ibdev = ch->target->srp_host->srp_dev->dev;
	unsigned int i;

	for (i = 0; i < req->nmdesc; i++) {
		struct ib_mr *mr = req->mr_list[i];
		struct ib_send_wr wr = {
			.opcode		    = IB_WR_LOCAL_INV,
			.ex.invalidate_rkey = mr->rkey,
			.wr_cqe		    = &req->inv_cqe,
		};

		if (ch->connected) {
			req->inv_cqe.done = srp_inv_rkey_err_done;
			if (ib_post_send(ch->qp, &wr, NULL))
				shost_printk(KERN_DEBUG, ch->target->scsi_host,
					     "posting LOCAL_INV failed\n");
		}
		ib_mr_pool_put(ch->qp, &ch->qp->rdma_mrs, mr);
	}
	req->nmdesc = 0;

	if (req->nents) {
		ib_dma_unmap_sg(ibdev, scsi_sglist(scmnd), scsi_sg_count(scmnd),
				scmnd->sc_data_direction);
		req->nents = 0;
	}
}

/*
 * Fill in the data part of the SRP_CMD in @iu for @scmnd.
 * Return: the length of the IU or a negative errno.
 */
static int srp_map_data(struct scsi_cmnd *scmnd, struct srp_rdma_ch *ch,
			struct srp_request *req, struct srp_iu *iu)
{
	struct srp_target_port *target = ch->target;
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	struct srp_cmd *cmd = iu->buf;
	void *desc_base = cmd->add_data + cmd->add_cdb_len;
	int len = sizeof(*cmd) + cmd->add_cdb_len;
	enum dma_data_direction dir = scmnd->sc_data_direction;
	unsigned int bufflen = scsi_bufflen(scmnd);
	struct srp_indirect_buf *idb = desc_base;
	u32 table_len, inline_cnt, max_desc;
	u8 fmt;
	int count, ndesc, ret;
	__be32 idb_rkey;

	req->nmdesc = 0;
	req->nents = 0;
	if (!scsi_sglist(scmnd) || dir == DMA_NONE || !bufflen)
		return len;
	if (dir != DMA_FROM_DEVICE && dir != DMA_TO_DEVICE) {
		shost_printk(KERN_WARNING, target->scsi_host,
			     "Unhandled data direction %d\n", dir);
		return -EINVAL;
	}

	if (dir == DMA_TO_DEVICE && ch->use_imm_data &&
	    bufflen <= ch->max_imm_data &&
	    SRP_IMM_DATA_OFFSET + bufflen <= iu->size) {
		struct srp_imm_buf *imm = desc_base;

		imm->len = cpu_to_be32(bufflen);
		if (scsi_sg_copy_to_buffer(scmnd,
					   iu->buf + SRP_IMM_DATA_OFFSET,
					   bufflen) != bufflen)
			return -EIO;
		cmd->buf_fmt = SRP_DATA_DESC_IMM << 4;
		return SRP_IMM_DATA_OFFSET + bufflen;
	}

	count = ib_dma_map_sg(ibdev, scsi_sglist(scmnd), scsi_sg_count(scmnd),
			      dir);
	if (unlikely(!count))
		return -EIO;
	req->nents = count;

	max_desc = target->indirect_size / sizeof(struct srp_direct_buf);
	ib_dma_sync_single_for_cpu(ibdev, req->indirect_dma_addr,
				   target->indirect_size, DMA_TO_DEVICE);
	ndesc = srp_map_sg(ch, req, scmnd, count, max_desc);
	if (ndesc < 0) {
		ret = ndesc;
		goto sync;
	}

	if (ndesc == 1) {
		memcpy(desc_base, &req->indirect_desc[0],
		       sizeof(struct srp_direct_buf));
		fmt = SRP_DATA_DESC_DIRECT;
		len += sizeof(struct srp_direct_buf);
		ret = len;
		goto set_fmt;
	}

	inline_cnt = min_t(u32, ndesc, target->cmd_sg_cnt);
	table_len = ndesc * sizeof(struct srp_direct_buf);
	if (ndesc > target->cmd_sg_cnt) {
		if (!target->allow_ext_sg) {
			dev_err_ratelimited(&target->scsi_host->shost_gendev,
					    "Could not fit S/G list into SRP_CMD\n");
			ret = -EIO;
			goto sync;
		}
		if (target->global_rkey) {
			idb_rkey = cpu_to_be32(target->global_rkey);
		} else {
			struct srp_direct_buf d;

			ret = srp_map_idb(ch, req, table_len, &d);
			if (ret)
				goto sync;
			idb_rkey = d.key;
		}
	} else {
		idb_rkey = cpu_to_be32(target->global_rkey);
	}

	memcpy(idb->desc_list, req->indirect_desc,
	       inline_cnt * sizeof(struct srp_direct_buf));
	idb->table_desc.va = cpu_to_be64(req->indirect_dma_addr);
	idb->table_desc.key = idb_rkey;
	idb->table_desc.len = cpu_to_be32(table_len);
	idb->len = cpu_to_be32(bufflen);
	if (dir == DMA_TO_DEVICE)
		cmd->data_out_desc_cnt = inline_cnt;
	else
		cmd->data_in_desc_cnt = inline_cnt;
	fmt = SRP_DATA_DESC_INDIRECT;
	len += sizeof(*idb) + inline_cnt * sizeof(struct srp_direct_buf);
	ret = len;

set_fmt:
	cmd->buf_fmt = dir == DMA_TO_DEVICE ? fmt << 4 : fmt;
sync:
	ib_dma_sync_single_for_device(ibdev, req->indirect_dma_addr,
				      target->indirect_size, DMA_TO_DEVICE);
	return ret;
}

/**
 * srp_claim_req() - take a command out of its request
 * @ch: the channel of the command
 * @req: its request
 * @scmnd: the command expected there
 *
 * Return: @scmnd if it was still outstanding, in which case the caller now
 * completes it; NULL if someone else did.
 */
struct scsi_cmnd *srp_claim_req(struct srp_rdma_ch *ch,
				struct srp_request *req,
				struct scsi_cmnd *scmnd)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (scmnd && req->scmnd == scmnd)
		req->scmnd = NULL;
	else
		scmnd = NULL;
	spin_unlock_irqrestore(&ch->lock, flags);
	return scmnd;
}

/**
 * srp_free_req() - release the resources of a claimed command
 * @ch: its channel
 * @req: its request
 * @scmnd: the command
 * @req_lim_delta: credits the target returned with it
 */
void srp_free_req(struct srp_rdma_ch *ch, struct srp_request *req,
		  struct scsi_cmnd *scmnd, s32 req_lim_delta)
{
	unsigned long flags;

	srp_unmap_data(scmnd, ch, req);

	spin_lock_irqsave(&ch->lock, flags);
	srp_add_req_lim(ch, req_lim_delta);
	spin_unlock_irqrestore(&ch->lock, flags);
}

struct srp_finish_ctx {
	struct srp_target_port	*target;
	struct scsi_device	*sdev;
	int			result;
};

static bool srp_finish_cmd(struct scsi_cmnd *scmnd, void *data)
{
	struct srp_finish_ctx *ctx = data;
	struct srp_request *req = scsi_cmd_priv(scmnd);
	struct srp_rdma_ch *ch = srp_ch_of(ctx->target, scmnd);

	if (ctx->sdev && scmnd->device != ctx->sdev)
		return true;
	if (srp_claim_req(ch, req, scmnd)) {
		srp_free_req(ch, req, scmnd, 0);
		scmnd->result = ctx->result;
		scsi_done(scmnd);
	}
	return true;
}

/**
 * srp_finish_all() - complete outstanding commands of a target
 * @target: the target
 * @sdev: complete only the commands of this LUN, or NULL for all
 * @result: the SCSI result to complete them with
 *
 * With @sdev NULL the target's channels must not take new commands.  A
 * command completed here got no response, so it returns no credit: the
 * target adds it to the credits of a later response.
 */
void srp_finish_all(struct srp_target_port *target, struct scsi_device *sdev,
		    int result)
{
	struct srp_finish_ctx ctx = {
		.target = target,
		.sdev = sdev,
		.result = result,
	};

	scsi_host_busy_iter(target->scsi_host, srp_finish_cmd, &ctx);
}

/* A bad IU from the target: counted, logged (rate-limited), dropped. */
static void srp_bad_iu(struct srp_rdma_ch *ch, const char *why, u32 v)
{
	struct srp_target_port *target = ch->target;

	atomic_inc(&target->bad_iu_count);
	dev_warn_ratelimited(&target->scsi_host->shost_gendev,
			     "dropped IU from target on ch %td / QP %#x: %s (%#x)\n",
			     ch - target->ch, ch->qp->qp_num, why, v);
}

static void srp_process_tsk_mgmt_rsp(struct srp_rdma_ch *ch,
				     const struct srp_rsp *rsp, u32 len)
{
	u32 resp_len = be32_to_cpu(rsp->resp_data_len);
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	srp_add_req_lim(ch, be32_to_cpu(rsp->req_lim_delta));
	if (rsp->tag == ch->tsk_mgmt_tag) {
		if ((rsp->flags & SRP_RSP_FLAG_RSPVALID) && resp_len >= 4 &&
		    len >= sizeof(*rsp) + 4)
			ch->tsk_mgmt_status = rsp->data[3];
		else
			ch->tsk_mgmt_status = 0;
		complete(&ch->tsk_mgmt_done);
	} else {
		atomic_inc(&ch->target->bad_iu_count);
		dev_err_ratelimited(&ch->target->scsi_host->shost_gendev,
				    "Received tsk mgmt response too late for tag %#llx\n",
				    rsp->tag);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
}

/* Sense data and residuals of an SRP_RSP of @len bytes. */
static void srp_rsp_to_cmd(struct srp_rdma_ch *ch, const struct srp_rsp *rsp,
			   u32 len, struct scsi_cmnd *scmnd)
{
	u32 avail = len - sizeof(*rsp);
	u32 resp_len = 0, sense_len, res;
	unsigned int bufflen = scsi_bufflen(scmnd);

	scmnd->result = rsp->status;

	if (rsp->flags & SRP_RSP_FLAG_SNSVALID) {
		if (rsp->flags & SRP_RSP_FLAG_RSPVALID)
			resp_len = be32_to_cpu(rsp->resp_data_len);
		sense_len = be32_to_cpu(rsp->sense_data_len);
		if (resp_len > avail || sense_len > avail - resp_len) {
			srp_bad_iu(ch, "sense beyond the IU", sense_len);
			sense_len = resp_len > avail ? 0 : avail - resp_len;
			resp_len = min(resp_len, avail);
		}
		memcpy(scmnd->sense_buffer, rsp->data + resp_len,
		       min_t(u32, sense_len, SCSI_SENSE_BUFFERSIZE));
	}

	if (scmnd->sc_data_direction == DMA_FROM_DEVICE &&
	    (rsp->flags & SRP_RSP_FLAG_DIUNDER)) {
		res = be32_to_cpu(rsp->data_in_res_cnt);
		scsi_set_resid(scmnd, min(res, bufflen));
	} else if (scmnd->sc_data_direction == DMA_TO_DEVICE &&
		   (rsp->flags & SRP_RSP_FLAG_DOUNDER)) {
		res = be32_to_cpu(rsp->data_out_res_cnt);
		scsi_set_resid(scmnd, min(res, bufflen));
	}
}

static void srp_process_rsp(struct srp_rdma_ch *ch, const struct srp_rsp *rsp,
			    u32 len)
{
	struct srp_target_port *target = ch->target;
	struct scsi_cmnd *scmnd = NULL;
	struct srp_request *req = NULL;
	unsigned long flags;
	u64 tag = rsp->tag;

	if (len < sizeof(*rsp)) {
		srp_bad_iu(ch, "short SRP_RSP", len);
		return;
	}
	if (tag & SRP_TAG_TSK_MGMT) {
		srp_process_tsk_mgmt_rsp(ch, rsp, len);
		return;
	}

	if (tag <= U32_MAX &&
	    blk_mq_unique_tag_to_hwq(tag) == ch - target->ch)
		scmnd = scsi_host_find_tag(target->scsi_host, tag);
	if (scmnd) {
		req = scsi_cmd_priv(scmnd);
		scmnd = srp_claim_req(ch, req, scmnd);
	}
	if (!scmnd) {
		dev_err_ratelimited(&target->scsi_host->shost_gendev,
				    "Null scmnd for RSP w/tag %#016llx received on ch %td / QP %#x\n",
				    tag, ch - target->ch, ch->qp->qp_num);
		atomic_inc(&target->bad_iu_count);
		spin_lock_irqsave(&ch->lock, flags);
		srp_add_req_lim(ch, be32_to_cpu(rsp->req_lim_delta));
		spin_unlock_irqrestore(&ch->lock, flags);
		return;
	}

	srp_rsp_to_cmd(ch, rsp, len, scmnd);
	srp_free_req(ch, req, scmnd, be32_to_cpu(rsp->req_lim_delta));
	scsi_done(scmnd);
}

/* Send a response IU (CRED_RSP, AER_RSP) of @len bytes from @rsp. */
static int srp_response_common(struct srp_rdma_ch *ch, u32 req_delta,
			       const void *rsp, u32 len)
{
	struct srp_target_port *target = ch->target;
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	unsigned long flags;
	struct srp_iu *iu;
	int err;

	spin_lock_irqsave(&ch->lock, flags);
	srp_add_req_lim(ch, req_delta);
	iu = __srp_get_tx_iu(ch, SRP_IU_RSP);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!iu) {
		dev_err_ratelimited(&target->scsi_host->shost_gendev,
				    "no IU available to send response\n");
		return 1;
	}

	ib_dma_sync_single_for_cpu(ibdev, iu->dma, len, DMA_TO_DEVICE);
	memcpy(iu->buf, rsp, len);
	ib_dma_sync_single_for_device(ibdev, iu->dma, len, DMA_TO_DEVICE);

	err = srp_post_send(ch, iu, len);
	if (err) {
		dev_err_ratelimited(&target->scsi_host->shost_gendev,
				    "unable to post response: %d\n", err);
		srp_put_tx_iu(ch, iu, SRP_IU_RSP);
	}
	return err;
}

static void srp_process_cred_req(struct srp_rdma_ch *ch,
				 const struct srp_cred_req *req, u32 len)
{
	struct srp_cred_rsp rsp = {
		.opcode = SRP_CRED_RSP,
		.tag = req->tag,
	};

	if (len < sizeof(*req)) {
		srp_bad_iu(ch, "short SRP_CRED_REQ", len);
		return;
	}
	if (srp_response_common(ch, be32_to_cpu(req->req_lim_delta), &rsp,
				sizeof(rsp)))
		dev_err_ratelimited(&ch->target->scsi_host->shost_gendev,
				    "problems processing SRP_CRED_REQ\n");
}

static void srp_process_aer_req(struct srp_rdma_ch *ch,
				const struct srp_aer_req *req, u32 len)
{
	struct srp_aer_rsp rsp = {
		.opcode = SRP_AER_RSP,
		.tag = req->tag,
	};
	struct scsi_lun lun;

	if (len < sizeof(*req)) {
		srp_bad_iu(ch, "short SRP_AER_REQ", len);
		return;
	}
	lun = req->lun;
	dev_err_ratelimited(&ch->target->scsi_host->shost_gendev,
			    "ignoring AER for LUN %llu\n", scsilun_to_int(&lun));
	if (srp_response_common(ch, be32_to_cpu(req->req_lim_delta), &rsp,
				sizeof(rsp)))
		dev_err_ratelimited(&ch->target->scsi_host->shost_gendev,
				    "problems processing SRP_AER_REQ\n");
}

/**
 * srp_recv_done() - an IU arrived from the target
 * @cq: the receive CQ
 * @wc: the completion
 */
void srp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srp_iu *iu = container_of(wc->wr_cqe, struct srp_iu, cqe);
	struct srp_rdma_ch *ch = cq->cq_context;
	struct srp_target_port *target = ch->target;
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	u32 len = min_t(u32, wc->byte_len, iu->size);
	int res;
	u8 opcode;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srp_handle_qp_err(cq, wc, "RECV");
		return;
	}

	ib_dma_sync_single_for_cpu(ibdev, iu->dma, iu->size, DMA_FROM_DEVICE);

	opcode = len ? *(u8 *)iu->buf : 0xff;
	switch (opcode) {
	case SRP_RSP:
		srp_process_rsp(ch, iu->buf, len);
		break;
	case SRP_CRED_REQ:
		srp_process_cred_req(ch, iu->buf, len);
		break;
	case SRP_AER_REQ:
		srp_process_aer_req(ch, iu->buf, len);
		break;
	case SRP_T_LOGOUT:
		dev_warn_ratelimited(&target->scsi_host->shost_gendev,
				     "Got target logout request\n");
		ch->connected = false;
		queue_work(system_long_wq, &target->tl_err_work);
		break;
	default:
		srp_bad_iu(ch, "unhandled SRP opcode", opcode);
		break;
	}

	ib_dma_sync_single_for_device(ibdev, iu->dma, iu->size,
				      DMA_FROM_DEVICE);
	res = srp_post_recv(ch, iu);
	if (res && ch->connected)
		dev_err_ratelimited(&target->scsi_host->shost_gendev,
				    "Recv failed with error code %d\n", res);
}

/**
 * srp_queuecommand() - the SCSI host's queuecommand
 * @shost: the host
 * @scmnd: the command
 *
 * Return: 0, or SCSI_MLQUEUE_HOST_BUSY while no credit or send IU is free
 * or the channel is not logged in.
 */
int srp_queuecommand(struct Scsi_Host *shost, struct scsi_cmnd *scmnd)
{
	struct srp_target_port *target = host_to_target(shost);
	struct srp_request *req = scsi_cmd_priv(scmnd);
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	u32 tag = blk_mq_unique_tag(scsi_cmd_to_rq(scmnd));
	struct srp_rdma_ch *ch;
	unsigned long flags;
	struct srp_cmd *cmd;
	struct srp_iu *iu;
	int len, ret;

	scmnd->result = srp_chkready(target->rport);
	if (unlikely(scmnd->result))
		goto done;

	if (WARN_ON_ONCE(blk_mq_unique_tag_to_hwq(tag) >= target->ch_count)) {
		scmnd->result = DID_ERROR << 16;
		goto done;
	}
	ch = &target->ch[blk_mq_unique_tag_to_hwq(tag)];

	spin_lock_irqsave(&ch->lock, flags);
	iu = ch->connected ? __srp_get_tx_iu(ch, SRP_IU_CMD) : NULL;
	if (iu)
		req->scmnd = scmnd;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!iu)
		return SCSI_MLQUEUE_HOST_BUSY;

	ib_dma_sync_single_for_cpu(ibdev, iu->dma, iu->size, DMA_TO_DEVICE);
	cmd = iu->buf;
	memset(cmd, 0, sizeof(*cmd) + SRP_MAX_ADD_CDB_LEN);
	cmd->opcode = SRP_CMD;
	int_to_scsilun(scmnd->device->lun, &cmd->lun);
	cmd->tag = tag;
	if (scmnd->cmd_len > sizeof(cmd->cdb)) {
		u32 extra = scmnd->cmd_len - sizeof(cmd->cdb);

		if (extra > SRP_MAX_ADD_CDB_LEN) {
			scmnd->result = DID_ERROR << 16;
			goto put_iu;
		}
		cmd->add_cdb_len = round_up(extra, 4);
		memcpy(cmd->cdb, scmnd->cmnd, sizeof(cmd->cdb));
		memcpy(cmd->add_data, scmnd->cmnd + sizeof(cmd->cdb), extra);
	} else {
		memcpy(cmd->cdb, scmnd->cmnd, scmnd->cmd_len);
	}

	len = srp_map_data(scmnd, ch, req, iu);
	if (len < 0) {
		dev_err_ratelimited(&target->scsi_host->shost_gendev,
				    "Failed to map data (%d)\n", len);
		/* -ENOMEM: out of MRs for now, the midlayer retries */
		scmnd->result = len == -ENOMEM ?
			DID_OK << 16 | SAM_STAT_TASK_SET_FULL : DID_ERROR << 16;
		goto unmap;
	}

	ib_dma_sync_single_for_device(ibdev, iu->dma, iu->size, DMA_TO_DEVICE);
	ret = srp_post_send(ch, iu, len);
	if (ret) {
		dev_err_ratelimited(&target->scsi_host->shost_gendev,
				    "Send failed (%d)\n", ret);
		scmnd->result = DID_ERROR << 16;
		goto unmap;
	}
	return 0;

unmap:
	srp_unmap_data(scmnd, ch, req);
put_iu:
	srp_claim_req(ch, req, scmnd);
	srp_put_tx_iu(ch, iu, SRP_IU_CMD);
done:
	scsi_done(scmnd);
	return 0;
}

/**
 * __srp_send_tsk_mgmt() - send a task management function and wait for it
 * @ch: the channel
 * @req_tag: the tag of the command it is about (ABORT TASK)
 * @lun: the LUN
 * @func: SRP_TSK_*
 * @status: if not NULL, the response code of the target
 *
 * Context: the target's tsk_mgmt_mutex held.
 * Return: 0 if the target answered within SRP_ABORT_TIMEOUT_MS, else -1.
 */
int __srp_send_tsk_mgmt(struct srp_rdma_ch *ch, u64 req_tag, u64 lun,
			u8 func, u8 *status)
{
	struct srp_target_port *target = ch->target;
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	struct srp_tsk_mgmt *tsk_mgmt;
	unsigned long flags;
	struct srp_iu *iu;

	lockdep_assert_held(&target->tsk_mgmt_mutex);
	if (!ch->connected || target->qp_in_error)
		return -1;

	spin_lock_irqsave(&ch->lock, flags);
	iu = __srp_get_tx_iu(ch, SRP_IU_TSK_MGMT);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!iu)
		return -1;

	ib_dma_sync_single_for_cpu(ibdev, iu->dma, sizeof(*tsk_mgmt),
				   DMA_TO_DEVICE);
	tsk_mgmt = iu->buf;
	memset(tsk_mgmt, 0, sizeof(*tsk_mgmt));
	tsk_mgmt->opcode = SRP_TSK_MGMT;
	int_to_scsilun(lun, &tsk_mgmt->lun);
	tsk_mgmt->tsk_mgmt_func = func;
	tsk_mgmt->task_tag = req_tag;

	spin_lock_irqsave(&ch->lock, flags);
	ch->tsk_mgmt_tag = (ch->tsk_mgmt_tag + 1) | SRP_TAG_TSK_MGMT;
	tsk_mgmt->tag = ch->tsk_mgmt_tag;
	reinit_completion(&ch->tsk_mgmt_done);
	spin_unlock_irqrestore(&ch->lock, flags);

	ib_dma_sync_single_for_device(ibdev, iu->dma, sizeof(*tsk_mgmt),
				      DMA_TO_DEVICE);
	if (srp_post_send(ch, iu, sizeof(*tsk_mgmt))) {
		srp_put_tx_iu(ch, iu, SRP_IU_TSK_MGMT);
		return -1;
	}
	if (!wait_for_completion_timeout(&ch->tsk_mgmt_done,
					 msecs_to_jiffies(SRP_ABORT_TIMEOUT_MS)))
		return -1;
	if (status)
		*status = ch->tsk_mgmt_status;
	return 0;
}

/**
 * srp_send_tsk_mgmt() - send a task management function and wait for it
 * @ch: the channel
 * @req_tag: the tag of the command it is about
 * @lun: the LUN
 * @func: SRP_TSK_*
 * @status: if not NULL, the response code of the target
 *
 * Takes the target's tsk_mgmt_mutex around __srp_send_tsk_mgmt().
 *
 * Return: 0 if the target answered within SRP_ABORT_TIMEOUT_MS, else -1.
 */
int srp_send_tsk_mgmt(struct srp_rdma_ch *ch, u64 req_tag, u64 lun,
		      u8 func, u8 *status)
{
	struct srp_target_port *target = ch->target;
	int ret;

	mutex_lock(&target->tsk_mgmt_mutex);
	ret = __srp_send_tsk_mgmt(ch, req_tag, lun, func, status);
	mutex_unlock(&target->tsk_mgmt_mutex);
	return ret;
}

/**
 * srp_init_cmd_priv() - set up the SRP part of a SCSI command
 * @shost: the host
 * @cmd: the command
 *
 * Return: 0 or -ENOMEM.
 */
int srp_init_cmd_priv(struct Scsi_Host *shost, struct scsi_cmnd *cmd)
{
	struct srp_target_port *target = host_to_target(shost);
	struct srp_device *dev = target->srp_host->srp_dev;
	struct srp_request *req = scsi_cmd_priv(cmd);

	if (dev->use_fast_reg) {
		req->mr_list = kcalloc(target->mr_per_cmd,
				       sizeof(*req->mr_list), GFP_KERNEL);
		if (!req->mr_list)
			return -ENOMEM;
	}
	req->indirect_desc = kzalloc(target->indirect_size, GFP_KERNEL);
	if (!req->indirect_desc)
		goto free_mrs;
	req->indirect_dma_addr = ib_dma_map_single(dev->dev,
						   req->indirect_desc,
						   target->indirect_size,
						   DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev->dev, req->indirect_dma_addr))
		goto free_desc;
	return 0;

free_desc:
	kfree(req->indirect_desc);
	req->indirect_desc = NULL;
free_mrs:
	kfree(req->mr_list);
	req->mr_list = NULL;
	return -ENOMEM;
}

/**
 * srp_exit_cmd_priv() - undo srp_init_cmd_priv()
 * @shost: the host
 * @cmd: the command
 *
 * Return: 0.
 */
int srp_exit_cmd_priv(struct Scsi_Host *shost, struct scsi_cmnd *cmd)
{
	struct srp_target_port *target = host_to_target(shost);
	struct srp_device *dev = target->srp_host->srp_dev;
	struct srp_request *req = scsi_cmd_priv(cmd);

	if (req->indirect_desc) {
		ib_dma_unmap_single(dev->dev, req->indirect_dma_addr,
				    target->indirect_size, DMA_TO_DEVICE);
		kfree(req->indirect_desc);
		req->indirect_desc = NULL;
	}
	kfree(req->mr_list);
	req->mr_list = NULL;
	return 0;
}
