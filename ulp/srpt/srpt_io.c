// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: information units on a live channel, and LIO's command
 * callbacks.
 *
 * Every IU arrives in a receive context, is checked against what was
 * received (lengths, descriptor counts and table sizes come from the
 * initiator and are trusted no further than the buffer) and is handed to
 * LIO in a send context taken from the session's tag pool; an IU that
 * finds no free send context waits on the channel's wait list until a
 * response completes.  Data moves with the core's rdma_rw contexts, one
 * per remote buffer: RDMA READs for data-out before LIO executes the
 * command, RDMA WRITEs for data-in chained in front of the SRP_RSP.
 * Credits: each SRP_RSP returns the one its request used plus those of
 * IUs that got no answer (dropped, aborted, logout).
 *
 * All completions of a channel come from its one CQ, polled in a work
 * item, so the receive path and the wait list are never run twice at
 * once; LIO's callbacks come from its own threads and only post sends.
 * ch->lock covers the credits and the wait list.
 */
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_fabric.h>

#include "srpt.h"

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);

/* A completion in error: the QP is in the error state, the channel dead. */
static void srpt_wc_error(struct srpt_rdma_ch *ch, struct ib_wc *wc,
			  const char *what)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info_ratelimited("%s: %s failed: %s (%d)\n", ch->sess_name,
				    what, ib_wc_status_msg(wc->status),
				    wc->status);
	srpt_disconnect_ch(ch);
}

static void srpt_drop_iu(struct srpt_rdma_ch *ch, const char *why)
{
	atomic_inc(&ch->dropped);
	spin_lock_bh(&ch->lock);
	ch->req_lim_delta++;
	spin_unlock_bh(&ch->lock);
	pr_debug("%s: dropped an IU: %s\n", ch->sess_name, why);
}

static struct srpt_recv_ioctx *srpt_alloc_recv_ioctx(struct ib_device *dev,
						     u32 size)
{
	struct srpt_recv_ioctx *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	r->cqe.done = srpt_recv_done;
	INIT_LIST_HEAD(&r->wait_list);
	r->buf = kzalloc(size, GFP_KERNEL);
	if (!r->buf)
		goto err;
	r->dma = ib_dma_map_single(dev, r->buf, size, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, r->dma)) {
		kfree(r->buf);
		goto err;
	}
	return r;
err:
	kfree(r);
	return NULL;
}

static void srpt_free_recv_ioctx(struct ib_device *dev,
				 struct srpt_recv_ioctx *r)
{
	if (!r)
		return;
	ib_dma_unmap_single(dev, r->dma, srp_max_req_size, DMA_FROM_DEVICE);
	kfree(r->buf);
	kfree(r);
}

static int __srpt_post_recv(struct ib_pd *pd, struct ib_qp *qp,
			    struct ib_srq *srq, struct srpt_recv_ioctx *ioctx)
{
	struct ib_sge sge = {
		.addr = ioctx->dma,
		.length = srp_max_req_size,
		.lkey = pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &ioctx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return srq ? ib_post_srq_recv(srq, &wr, NULL) :
		     ib_post_recv(qp, &wr, NULL);
}

/**
 * srpt_alloc_srq() - give a device the SRQ its channels share
 * @sdev: the device
 * @size: receive buffers
 *
 * Return: 0 or a negative errno, with nothing left allocated.
 */
int srpt_alloc_srq(struct srpt_device *sdev, u32 size)
{
	struct ib_srq_init_attr init = {
		.attr.max_wr = size,
		.attr.max_sge = 1,
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_device *dev = sdev->device;
	u32 i;

	sdev->srq_ring = kcalloc(size, sizeof(*sdev->srq_ring), GFP_KERNEL);
	if (!sdev->srq_ring)
		return -ENOMEM;
	sdev->srq = ib_create_srq(sdev->pd, &init);
	if (IS_ERR(sdev->srq)) {
		int ret = PTR_ERR(sdev->srq);

		sdev->srq = NULL;
		kfree(sdev->srq_ring);
		sdev->srq_ring = NULL;
		return ret;
	}
	sdev->srq_size = size;
	for (i = 0; i < size; i++) {
		sdev->srq_ring[i] = srpt_alloc_recv_ioctx(dev, srp_max_req_size);
		if (!sdev->srq_ring[i] ||
		    __srpt_post_recv(sdev->pd, NULL, sdev->srq,
				     sdev->srq_ring[i])) {
			srpt_free_srq(sdev);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * srpt_free_srq() - destroy a device's SRQ and its buffers
 * @sdev: the device; no channel uses the SRQ any more
 */
void srpt_free_srq(struct srpt_device *sdev)
{
	u32 i;

	if (!sdev->srq)
		return;
	ib_destroy_srq(sdev->srq);
	for (i = 0; i < sdev->srq_size; i++)
		srpt_free_recv_ioctx(sdev->device, sdev->srq_ring[i]);
	kfree(sdev->srq_ring);
	sdev->srq_ring = NULL;
	sdev->srq = NULL;
}

/**
 * srpt_alloc_ch_ioctxs() - allocate the I/O contexts of a channel
 * @ch: the channel, with rq_size and max_rsp_size set
 * @max_req: size of a receive buffer
 *
 * Return: 0 or -ENOMEM; on error whatever was allocated stays for
 * srpt_free_ch_ioctxs().
 */
int srpt_alloc_ch_ioctxs(struct srpt_rdma_ch *ch, u32 max_req)
{
	struct ib_device *dev = ch->sport->sdev->device;
	u32 i;

	ch->ioctx_ring = kcalloc(ch->rq_size, sizeof(*ch->ioctx_ring),
				 GFP_KERNEL);
	if (!ch->ioctx_ring)
		return -ENOMEM;
	if (!ch->srq) {
		ch->ioctx_recv_ring = kcalloc(ch->rq_size,
					      sizeof(*ch->ioctx_recv_ring),
					      GFP_KERNEL);
		if (!ch->ioctx_recv_ring)
			return -ENOMEM;
	}

	for (i = 0; i < ch->rq_size; i++) {
		struct srpt_send_ioctx *s;

		s = kzalloc(sizeof(*s), GFP_KERNEL);
		if (!s)
			return -ENOMEM;
		ch->ioctx_ring[i] = s;
		s->ch = ch;
		s->cqe.done = srpt_send_done;
		s->rdma_cqe.done = srpt_rdma_read_done;
		s->buf = kzalloc(ch->max_rsp_size, GFP_KERNEL);
		if (!s->buf)
			return -ENOMEM;
		s->dma = ib_dma_map_single(dev, s->buf, ch->max_rsp_size,
					   DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, s->dma)) {
			kfree(s->buf);
			s->buf = NULL;
			return -ENOMEM;
		}

		if (ch->srq)
			continue;
		ch->ioctx_recv_ring[i] = srpt_alloc_recv_ioctx(dev, max_req);
		if (!ch->ioctx_recv_ring[i])
			return -ENOMEM;
	}
	return 0;
}

/**
 * srpt_free_ch_ioctxs() - free the I/O contexts of a channel
 * @ch: the channel; its QP is gone or drained
 */
void srpt_free_ch_ioctxs(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = ch->sport->sdev->device;
	u32 i;

	for (i = 0; i < ch->rq_size; i++) {
		struct srpt_send_ioctx *s = ch->ioctx_ring ?
					    ch->ioctx_ring[i] : NULL;

		if (s && s->buf) {
			ib_dma_unmap_single(dev, s->dma, ch->max_rsp_size,
					    DMA_TO_DEVICE);
			kfree(s->buf);
		}
		kfree(s);
		if (ch->ioctx_recv_ring)
			srpt_free_recv_ioctx(dev, ch->ioctx_recv_ring[i]);
	}
	kfree(ch->ioctx_ring);
	kfree(ch->ioctx_recv_ring);
	ch->ioctx_ring = NULL;
	ch->ioctx_recv_ring = NULL;
}

/**
 * srpt_post_recv() - give a receive buffer to the QP, or back to the SRQ
 * @ch: the channel
 * @ioctx: the buffer
 *
 * Return: 0 or the errno of ib_post_recv().
 */
int srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *ioctx)
{
	return __srpt_post_recv(ch->sport->sdev->pd, ch->qp, ch->srq, ioctx);
}

static struct srpt_send_ioctx *srpt_get_send_ioctx(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ioctx;
	int tag, cpu;

	tag = sbitmap_queue_get(&ch->sess->sess_tag_pool, &cpu);
	if (tag < 0)
		return NULL;
	ioctx = ch->ioctx_ring[tag];
	ioctx->state = SRPT_STATE_NEW;
	ioctx->n_rdma = 0;
	ioctx->n_rw_ctx = 0;
	ioctx->rw_ctxs = NULL;
	ioctx->sgl = NULL;
	ioctx->sgl_cnt = 0;
	ioctx->sgl_own = false;
	ioctx->rdma_len = 0;
	ioctx->queue_status_only = false;
	memset(&ioctx->cmd, 0, sizeof(ioctx->cmd));
	memset(ioctx->sense, 0, sizeof(ioctx->sense));
	ioctx->cmd.map_tag = tag;
	ioctx->cmd.map_cpu = cpu;
	return ioctx;
}

static enum dma_data_direction srpt_rw_dir(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

static void srpt_free_rw_ctxs(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	enum dma_data_direction dir = srpt_rw_dir(ioctx->cmd.data_direction);
	u32 i;

	for (i = 0; i < ioctx->n_rw_ctx; i++) {
		struct srpt_rw_ctx *ctx = &ioctx->rw_ctxs[i];

		rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->sport->port, ctx->sg,
				    ctx->nents, dir);
		target_free_sgl(ctx->sg, ctx->nents);
	}
	if (ioctx->rw_ctxs != &ioctx->s_rw_ctx)
		kfree(ioctx->rw_ctxs);
	if (ioctx->sgl_own)
		kfree(ioctx->sgl);
	ioctx->rw_ctxs = NULL;
	ioctx->n_rw_ctx = 0;
	ioctx->sgl = NULL;
	ioctx->sgl_cnt = 0;
	ioctx->sgl_own = false;
}

/* The data buffer LIO works on: the pages of every remote buffer. */
static int srpt_build_sgl(struct srpt_send_ioctx *ioctx)
{
	struct scatterlist *sg, *dst;
	u32 i, n = 0;

	if (ioctx->n_rw_ctx == 1) {
		ioctx->sgl = ioctx->rw_ctxs[0].sg;
		ioctx->sgl_cnt = ioctx->rw_ctxs[0].nents;
		return 0;
	}
	for (i = 0; i < ioctx->n_rw_ctx; i++)
		n += ioctx->rw_ctxs[i].nents;
	ioctx->sgl = kmalloc_array(n, sizeof(*ioctx->sgl), GFP_KERNEL);
	if (!ioctx->sgl)
		return -ENOMEM;
	ioctx->sgl_own = true;
	ioctx->sgl_cnt = n;
	sg_init_table(ioctx->sgl, n);
	dst = ioctx->sgl;
	for (i = 0; i < ioctx->n_rw_ctx; i++) {
		u32 j;

		for_each_sg(ioctx->rw_ctxs[i].sg, sg, ioctx->rw_ctxs[i].nents,
			    j) {
			sg_set_page(dst, sg_page(sg), sg->length, sg->offset);
			dst = sg_next(dst);
		}
	}
	return 0;
}

/*
 * Checks the data descriptors of an SRP_CMD against the IU's length and
 * our limits, allocates the local pages and the RDMA contexts for them.
 */
static sense_reason_t srpt_parse_data(struct srpt_send_ioctx *ioctx,
				      struct srpt_recv_ioctx *recv,
				      struct srp_cmd *srp_cmd,
				      enum dma_data_direction *dir,
				      u32 *data_len)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	u8 fmt_out = srp_cmd->buf_fmt >> 4;
	u8 fmt_in = srp_cmd->buf_fmt & 0xf;
	u32 off = sizeof(*srp_cmd) + (srp_cmd->add_cdb_len & ~3);
	struct srp_direct_buf *descs;
	u64 total = 0;
	u32 nd, inline_cnt, i;
	u8 fmt;
	int ret;

	*dir = DMA_NONE;
	*data_len = 0;
	if (off > recv->byte_len ||
	    scsi_command_size(srp_cmd->cdb) > 16 + (srp_cmd->add_cdb_len & ~3))
		return TCM_INVALID_CDB_FIELD;
	if (fmt_out && fmt_in)
		return TCM_INVALID_CDB_FIELD;	/* no bidirectional commands */
	if (!fmt_out && !fmt_in)
		return TCM_NO_SENSE;

	fmt = fmt_out ? fmt_out : fmt_in;
	inline_cnt = fmt_out ? srp_cmd->data_out_desc_cnt :
			       srp_cmd->data_in_desc_cnt;
	if (fmt == SRP_DATA_DESC_DIRECT) {
		if (off + sizeof(*descs) > recv->byte_len)
			return TCM_INVALID_CDB_FIELD;
		descs = recv->buf + off;
		nd = 1;
	} else if (fmt == SRP_DATA_DESC_INDIRECT) {
		struct srp_indirect_buf *idb = recv->buf + off;
		u32 tlen;

		if (off + sizeof(*idb) > recv->byte_len)
			return TCM_INVALID_CDB_FIELD;
		tlen = be32_to_cpu(idb->table_desc.len);
		nd = tlen / sizeof(*descs);
		/* The whole table must be in the IU: no external tables. */
		if (!nd || tlen % sizeof(*descs) || nd > inline_cnt ||
		    off + sizeof(*idb) + tlen > recv->byte_len)
			return TCM_INVALID_CDB_FIELD;
		descs = idb->desc_list;
	} else {
		return TCM_INVALID_CDB_FIELD;	/* immediate data: not offered */
	}

	for (i = 0; i < nd; i++)
		total += be32_to_cpu(descs[i].len);
	if (total > SRPT_MAX_DATA_LEN)
		return TCM_INVALID_CDB_FIELD;

	*dir = fmt_out ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	*data_len = total;
	ioctx->rdma_len = total;
	if (!total)
		return TCM_NO_SENSE;

	if (nd == 1) {
		ioctx->rw_ctxs = &ioctx->s_rw_ctx;
	} else {
		ioctx->rw_ctxs = kcalloc(nd, sizeof(*ioctx->rw_ctxs),
					 GFP_KERNEL);
		if (!ioctx->rw_ctxs)
			return TCM_OUT_OF_RESOURCES;
	}

	for (i = 0; i < nd; i++) {
		struct srpt_rw_ctx *ctx = &ioctx->rw_ctxs[ioctx->n_rw_ctx];
		u32 len = be32_to_cpu(descs[i].len);

		if (!len)
			continue;
		/* a short data-in has its tail zeroed (srpt_queue_response) */
		ret = target_alloc_sgl(&ctx->sg, &ctx->nents, len, false,
				       false);
		if (ret)
			goto err;
		ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->sport->port,
				       ctx->sg, ctx->nents, 0,
				       be64_to_cpu(descs[i].va),
				       be32_to_cpu(descs[i].key),
				       srpt_rw_dir(*dir));
		if (ret < 0) {
			target_free_sgl(ctx->sg, ctx->nents);
			goto err;
		}
		ioctx->n_rdma += ret;
		ioctx->n_rw_ctx++;
		if (ioctx->n_rdma > ch->sq_size / 2) {
			ret = -EINVAL;
			goto err;
		}
	}
	ret = srpt_build_sgl(ioctx);
	if (ret)
		goto err;
	return TCM_NO_SENSE;

err:
	/* srpt_free_rw_ctxs() looks at the direction of the command. */
	ioctx->cmd.data_direction = *dir;
	srpt_free_rw_ctxs(ioctx);
	ioctx->n_rdma = 0;
	*dir = DMA_NONE;
	*data_len = 0;
	return ret == -ENOMEM || ret == -EAGAIN ? TCM_OUT_OF_RESOURCES :
						  TCM_INVALID_CDB_FIELD;
}

static int srpt_task_attr(u8 attr)
{
	switch (attr) {
	case SRPT_CMD_SIMPLE_Q:
		return TCM_SIMPLE_TAG;
	case SRPT_CMD_HEAD_OF_Q:
		return TCM_HEAD_TAG;
	case SRPT_CMD_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_ORDERED_TAG;
	}
}

static void srpt_handle_cmd(struct srpt_rdma_ch *ch,
			    struct srpt_recv_ioctx *recv,
			    struct srpt_send_ioctx *ioctx)
{
	struct srp_cmd *srp_cmd = recv->buf;
	struct se_cmd *cmd = &ioctx->cmd;
	enum dma_data_direction dir;
	sense_reason_t sense;
	u32 data_len;
	int attr;

	cmd->tag = srp_cmd->tag;
	attr = srpt_task_attr(srp_cmd->task_attr);
	sense = srpt_parse_data(ioctx, recv, srp_cmd, &dir, &data_len);
	if (target_init_cmd(cmd, ch->sess, ioctx->sense,
			    scsilun_to_int(&srp_cmd->lun), data_len, attr, dir,
			    TARGET_SCF_ACK_KREF)) {
		target_send_busy(cmd);
		return;
	}
	if (sense) {
		atomic_inc(&ch->dropped);
		transport_send_check_condition_and_sense(cmd, sense, 0);
		target_put_sess_cmd(cmd);
		return;
	}
	if (target_submit_prep(cmd, srp_cmd->cdb, ioctx->sgl, ioctx->sgl_cnt,
			       NULL, 0, NULL, 0, GFP_KERNEL))
		return;
	target_submit(cmd);
}

static u8 srpt_tmr_to_tcm(u8 fn)
{
	switch (fn) {
	case SRP_TSK_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRP_TSK_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRP_TSK_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRP_TSK_LUN_RESET:
		return TMR_LUN_RESET;
	case SRP_TSK_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return TMR_UNKNOWN;	/* LIO answers "function rejected" */
	}
}

static void srpt_handle_tsk_mgmt(struct srpt_rdma_ch *ch,
				 struct srpt_recv_ioctx *recv,
				 struct srpt_send_ioctx *ioctx)
{
	struct srp_tsk_mgmt *tsk = recv->buf;
	struct se_cmd *cmd = &ioctx->cmd;

	ioctx->state = SRPT_STATE_MGMT;
	cmd->tag = tsk->tag;
	if (target_submit_tmr(cmd, ch->sess, NULL, scsilun_to_int(&tsk->lun),
			      NULL, srpt_tmr_to_tcm(tsk->tsk_mgmt_func),
			      GFP_KERNEL, tsk->task_tag, TARGET_SCF_ACK_KREF)) {
		/* LIO did not take it: no response, the credit goes back. */
		target_free_tag(ch->sess, cmd);
		srpt_drop_iu(ch, "task management refused by LIO");
	}
}

/*
 * Handles one received IU.  Returns false if it has to wait for a send
 * context, true once the receive buffer has been dealt with.
 */
static bool srpt_handle_iu(struct srpt_rdma_ch *ch,
			   struct srpt_recv_ioctx *recv)
{
	struct ib_device *dev = ch->sport->sdev->device;
	struct srpt_send_ioctx *ioctx = NULL;
	u8 opcode;

	ib_dma_sync_single_for_cpu(dev, recv->dma, srp_max_req_size,
				   DMA_FROM_DEVICE);
	if (!recv->byte_len) {
		srpt_drop_iu(ch, "empty IU");
		goto repost;
	}
	opcode = *(u8 *)recv->buf;
	switch (opcode) {
	case SRP_CMD:
		if (recv->byte_len < sizeof(struct srp_cmd)) {
			srpt_drop_iu(ch, "short SRP_CMD");
			goto repost;
		}
		break;
	case SRP_TSK_MGMT:
		if (recv->byte_len < sizeof(struct srp_tsk_mgmt)) {
			srpt_drop_iu(ch, "short SRP_TSK_MGMT");
			goto repost;
		}
		break;
	case SRP_I_LOGOUT:
		pr_info("%s: initiator logout\n", ch->sess_name);
		srpt_disconnect_ch(ch);
		if (ch->srq)
			goto repost;
		return true;
	default:
		srpt_drop_iu(ch, "unexpected opcode");
		goto repost;
	}

	ioctx = srpt_get_send_ioctx(ch);
	if (!ioctx)
		return false;
	if (opcode == SRP_CMD)
		srpt_handle_cmd(ch, recv, ioctx);
	else
		srpt_handle_tsk_mgmt(ch, recv, ioctx);

repost:
	ib_dma_sync_single_for_device(dev, recv->dma, srp_max_req_size,
				      DMA_FROM_DEVICE);
	if (srpt_post_recv(ch, recv))
		pr_debug("%s: receive buffer not reposted\n", ch->sess_name);
	return true;
}

/**
 * srpt_release_wait_list() - give back what waits on a dead channel
 * @ch: the channel, drained
 *
 * Receive buffers of the channel's own go with it; those of the SRQ go
 * back to the SRQ.
 */
void srpt_release_wait_list(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *recv, *tmp;

	spin_lock_bh(&ch->lock);
	list_for_each_entry_safe(recv, tmp, &ch->cmd_wait_list, wait_list) {
		list_del_init(&recv->wait_list);
		if (ch->srq)
			srpt_post_recv(ch, recv);
	}
	spin_unlock_bh(&ch->lock);
}

/**
 * srpt_process_wait_list() - handle the IUs waiting for send contexts
 * @ch: the channel
 *
 * Called in the channel's CQ context, or before its first completion.
 */
void srpt_process_wait_list(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *recv;

	for (;;) {
		spin_lock_bh(&ch->lock);
		if (ch->state != CH_LIVE) {
			spin_unlock_bh(&ch->lock);
			return;
		}
		recv = list_first_entry_or_null(&ch->cmd_wait_list,
						struct srpt_recv_ioctx,
						wait_list);
		if (recv)
			list_del_init(&recv->wait_list);
		spin_unlock_bh(&ch->lock);
		if (!recv)
			return;
		if (!srpt_handle_iu(ch, recv)) {
			spin_lock_bh(&ch->lock);
			list_add(&recv->wait_list, &ch->cmd_wait_list);
			spin_unlock_bh(&ch->lock);
			return;
		}
	}
}

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_recv_ioctx *recv = container_of(wc->wr_cqe,
						    struct srpt_recv_ioctx,
						    cqe);
	bool established = false;

	if (wc->status != IB_WC_SUCCESS) {
		srpt_wc_error(ch, wc, "receive");
		/* An SRQ's buffer is the device's: it goes back. */
		if (ch->srq && wc->status != IB_WC_WR_FLUSH_ERR)
			srpt_post_recv(ch, recv);
		return;
	}
	recv->byte_len = wc->byte_len;

	spin_lock_bh(&ch->lock);
	if (ch->state == CH_CONNECTING) {
		/* A SEND from the initiator: it has the RTU behind it. */
		ch->state = CH_LIVE;
		established = true;
	}
	if (ch->state != CH_LIVE) {
		spin_unlock_bh(&ch->lock);
		if (ch->srq)
			srpt_post_recv(ch, recv);
		return;
	}
	list_add_tail(&recv->wait_list, &ch->cmd_wait_list);
	spin_unlock_bh(&ch->lock);

	if (established && !ch->using_rdma_cm)
		ib_cm_notify(ch->ib_cm_id, IB_EVENT_COMM_EST);
	srpt_process_wait_list(ch);
}

static void srpt_build_cmd_rsp(struct srpt_send_ioctx *ioctx,
			       struct srp_rsp *rsp, u32 *len)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct se_cmd *cmd = &ioctx->cmd;
	u32 sense_len = 0, max_sense;

	rsp->status = cmd->scsi_status;
	if (cmd->se_cmd_flags & (SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT)) {
		bool under = cmd->se_cmd_flags & SCF_UNDERFLOW_BIT;
		__be32 res = cpu_to_be32(cmd->residual_count);

		if (cmd->data_direction == DMA_TO_DEVICE) {
			rsp->flags |= under ? SRP_RSP_FLAG_DOUNDER :
					      SRP_RSP_FLAG_DOOVER;
			rsp->data_out_res_cnt = res;
		} else if (cmd->data_direction == DMA_FROM_DEVICE) {
			rsp->flags |= under ? SRP_RSP_FLAG_DIUNDER :
					      SRP_RSP_FLAG_DIOVER;
			rsp->data_in_res_cnt = res;
		}
	}
	if (cmd->scsi_status != SAM_STAT_GOOD && cmd->scsi_sense_length) {
		max_sense = min(ch->max_rsp_size, ch->max_ti_iu_len) -
			    sizeof(*rsp);
		sense_len = min_t(u32, cmd->scsi_sense_length, max_sense);
		sense_len = min_t(u32, sense_len, sizeof(ioctx->sense));
		rsp->flags |= SRP_RSP_FLAG_SNSVALID;
		rsp->sense_data_len = cpu_to_be32(sense_len);
		memcpy(rsp->data, ioctx->sense, sense_len);
	}
	*len = sizeof(*rsp) + sense_len;
}

static void srpt_build_tmr_rsp(struct srpt_send_ioctx *ioctx,
			       struct srp_rsp *rsp, u32 *len)
{
	u8 code;

	switch (ioctx->cmd.se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
		code = SRPT_TSK_MGMT_SUCCESS;
		break;
	case TMR_FUNCTION_REJECTED:
		code = SRPT_TSK_MGMT_FUNC_NOT_SUPP;
		break;
	default:
		code = SRPT_TSK_MGMT_FAILED;
		break;
	}
	rsp->flags = SRP_RSP_FLAG_RSPVALID;
	rsp->resp_data_len = cpu_to_be32(4);
	rsp->data[3] = code;
	*len = sizeof(*rsp) + 4;
}

static void srpt_queue_response(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx = container_of(cmd, struct srpt_send_ioctx,
						     cmd);
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct ib_device *dev = ch->sport->sdev->device;
	struct ib_send_wr send_wr = {}, *first_wr = &send_wr;
	struct srp_rsp *rsp = ioctx->buf;
	struct ib_sge sge;
	bool tmr = false;
	u32 len, delta;
	int i, ret;

	switch (ioctx->state) {
	case SRPT_STATE_NEW:
	case SRPT_STATE_DATA_IN:
		ioctx->state = SRPT_STATE_CMD_RSP_SENT;
		break;
	case SRPT_STATE_MGMT:
		ioctx->state = SRPT_STATE_MGMT_RSP_SENT;
		tmr = true;
		break;
	default:
		WARN_ONCE(1, "ib_srpt: response in state %d\n", ioctx->state);
		return;
	}

	if (!tmr && cmd->data_direction == DMA_FROM_DEVICE &&
	    cmd->data_length && !ioctx->queue_status_only) {
		/*
		 * The RDMA WRITEs fill the initiator's buffers whole: where
		 * LIO produced less (an underflow), they carry zeroes, not
		 * what the pages held before.
		 */
		if (cmd->data_length < ioctx->rdma_len)
			sg_zero_buffer(ioctx->sgl, ioctx->sgl_cnt,
				       ioctx->rdma_len - cmd->data_length,
				       cmd->data_length);
		for (i = ioctx->n_rw_ctx - 1; i >= 0; i--)
			first_wr = rdma_rw_ctx_wrs(&ioctx->rw_ctxs[i].rw,
						   ch->qp, ch->sport->port,
						   NULL, first_wr);
	} else {
		ioctx->n_rdma = 0;
	}

	spin_lock_bh(&ch->lock);
	delta = 1 + ch->req_lim_delta;
	ch->req_lim_delta = 0;
	spin_unlock_bh(&ch->lock);

	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRP_RSP;
	rsp->req_lim_delta = cpu_to_be32(delta);
	rsp->tag = cmd->tag;
	if (tmr)
		srpt_build_tmr_rsp(ioctx, rsp, &len);
	else
		srpt_build_cmd_rsp(ioctx, rsp, &len);
	ib_dma_sync_single_for_device(dev, ioctx->dma, len, DMA_TO_DEVICE);

	sge.addr = ioctx->dma;
	sge.length = len;
	sge.lkey = ch->sport->sdev->pd->local_dma_lkey;
	send_wr.wr_cqe = &ioctx->cqe;
	send_wr.sg_list = &sge;
	send_wr.num_sge = 1;
	send_wr.opcode = IB_WR_SEND;
	send_wr.send_flags = IB_SEND_SIGNALED;

	if (atomic_sub_return(1 + ioctx->n_rdma, &ch->sq_wr_avail) < 0) {
		ret = -ENOMEM;
		goto err;
	}
	ret = ib_post_send(ch->qp, first_wr, NULL);
	if (ret)
		goto err;
	return;

err:
	pr_debug("%s: response to tag %#llx not sent: %d\n", ch->sess_name,
		 cmd->tag, ret);
	atomic_add(1 + ioctx->n_rdma, &ch->sq_wr_avail);
	spin_lock_bh(&ch->lock);
	ch->req_lim_delta += delta;
	spin_unlock_bh(&ch->lock);
	ioctx->state = SRPT_STATE_DONE;
	target_put_sess_cmd(cmd);
}

static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *ioctx = container_of(wc->wr_cqe,
						     struct srpt_send_ioctx,
						     cqe);
	enum srpt_cmd_state state = ioctx->state;

	ioctx->state = SRPT_STATE_DONE;
	atomic_add(1 + ioctx->n_rdma, &ch->sq_wr_avail);
	if (wc->status != IB_WC_SUCCESS)
		srpt_wc_error(ch, wc, "sending a response");
	if (state == SRPT_STATE_CMD_RSP_SENT ||
	    state == SRPT_STATE_MGMT_RSP_SENT)
		transport_generic_free_cmd(&ioctx->cmd, 0);
	else
		WARN_ONCE(1, "ib_srpt: send completion in state %d\n", state);
	srpt_process_wait_list(ch);
}

static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *ioctx = container_of(wc->wr_cqe,
						     struct srpt_send_ioctx,
						     rdma_cqe);

	atomic_add(ioctx->n_rdma, &ch->sq_wr_avail);
	ioctx->n_rdma = 0;
	if (WARN_ON_ONCE(ioctx->state != SRPT_STATE_NEED_DATA))
		return;
	ioctx->state = SRPT_STATE_DATA_IN;
	if (wc->status != IB_WC_SUCCESS) {
		srpt_wc_error(ch, wc, "RDMA READ");
		transport_generic_request_failure(&ioctx->cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}
	target_execute_cmd(&ioctx->cmd);
}

/**
 * srpt_write_pending() - fetch the data-out of a command
 * @se_cmd: the command
 *
 * Return: 0, or -ENOMEM for LIO to retry when the send queue is full.
 */
int srpt_write_pending(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = container_of(se_cmd,
						     struct srpt_send_ioctx,
						     cmd);
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct ib_send_wr *first_wr = NULL;
	struct ib_cqe *cqe = &ioctx->rdma_cqe;
	int i, ret;

	if (!ioctx->n_rw_ctx) {
		ioctx->state = SRPT_STATE_DATA_IN;
		target_execute_cmd(se_cmd);
		return 0;
	}
	ioctx->state = SRPT_STATE_NEED_DATA;
	if (atomic_sub_return(ioctx->n_rdma, &ch->sq_wr_avail) < 0) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = ioctx->n_rw_ctx - 1; i >= 0; i--) {
		first_wr = rdma_rw_ctx_wrs(&ioctx->rw_ctxs[i].rw, ch->qp,
					   ch->sport->port, cqe, first_wr);
		cqe = NULL;
	}
	ret = ib_post_send(ch->qp, first_wr, NULL);
	if (ret) {
		/* The channel is going: fail the command, as a flush would. */
		atomic_add(ioctx->n_rdma, &ch->sq_wr_avail);
		ioctx->n_rdma = 0;
		ioctx->state = SRPT_STATE_DATA_IN;
		transport_generic_request_failure(se_cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		return 0;
	}
	return 0;

err:
	atomic_add(ioctx->n_rdma, &ch->sq_wr_avail);
	ioctx->state = SRPT_STATE_NEW;
	return ret;
}

/**
 * srpt_queue_data_in() - send the data-in and the status of a command
 * @se_cmd: the command
 *
 * Return: 0.
 */
int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	srpt_queue_response(se_cmd);
	return 0;
}

/**
 * srpt_queue_status() - send the status of a command without data
 * @se_cmd: the command
 *
 * Return: 0.
 */
int srpt_queue_status(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = container_of(se_cmd,
						     struct srpt_send_ioctx,
						     cmd);

	ioctx->queue_status_only = true;
	srpt_queue_response(se_cmd);
	return 0;
}

/**
 * srpt_queue_tm_rsp() - send the answer to a task management request
 * @se_cmd: the request
 */
void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	srpt_queue_response(se_cmd);
}

/**
 * srpt_aborted_task() - LIO aborted a command: it gets no response
 * @se_cmd: the command
 */
void srpt_aborted_task(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = container_of(se_cmd,
						     struct srpt_send_ioctx,
						     cmd);
	struct srpt_rdma_ch *ch = ioctx->ch;

	spin_lock_bh(&ch->lock);
	ch->req_lim_delta++;
	spin_unlock_bh(&ch->lock);
}

/**
 * srpt_check_stop_free() - LIO is done with a command
 * @se_cmd: the command
 *
 * Return: what target_put_sess_cmd() returns.
 */
int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

/**
 * srpt_release_cmd() - the last reference to a command is gone
 * @se_cmd: the command
 */
void srpt_release_cmd(struct se_cmd *se_cmd)
{
	struct srpt_send_ioctx *ioctx = container_of(se_cmd,
						     struct srpt_send_ioctx,
						     cmd);

	if (ioctx->n_rw_ctx)
		srpt_free_rw_ctxs(ioctx);
	ioctx->state = SRPT_STATE_DONE;
	target_free_tag(se_cmd->se_sess, se_cmd);
}

/**
 * srpt_get_tcm_cmd_state() - the state of a command, for LIO's messages
 * @se_cmd: the command
 *
 * Return: enum srpt_cmd_state.
 */
int srpt_get_tcm_cmd_state(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_send_ioctx, cmd)->state;
}
