// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fake device of the SA and multicast suites (see sa_fake.h).  It
 * keeps work requests and completions in lists under one lock: a send is
 * completed at once and, if it is a request of the SA class, kept for the
 * test; a delivered MAD fills the oldest receive buffer the MAD layer
 * posted.  Each new completion runs the CQ's handler, which polls from a
 * work item.
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "sa_fake.h"

struct ksa_recv {
	struct list_head	list;
	struct ib_cqe		*cqe;
	u64			addr;
	u32			length;
};

struct ksa_wc {
	struct list_head	list;
	struct ib_cq		*cq;
	struct ib_wc		wc;
};

static struct ksa_dev *to_ksa(struct ib_device *ibdev)
{
	return container_of(ibdev, struct ksa_dev, ibdev);
}

static int ksa_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	attr->max_cqe = 4096;
	attr->max_qp_wr = 4096;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static int ksa_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	attr->state = IB_PORT_ACTIVE;
	attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	attr->lid = KSA_LID;
	attr->sm_lid = KSA_SM_LID;
	attr->pkey_tbl_len = 2;
	attr->gid_tbl_len = 2;
	attr->active_mtu = IB_MTU_2048;
	attr->max_mtu = IB_MTU_2048;
	attr->subnet_prefix = 0xfe80000000000000ULL;
	return 0;
}

static int ksa_port_immutable(struct ib_device *ibdev, u32 port,
			      struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = 2;
	immutable->gid_tbl_len = 2;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	return 0;
}

/* P_Key 0xffff at index 1, so that index 0 is not the default's */
static int ksa_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	*pkey = index == 1 ? 0xffff : 0x8001;
	return 0;
}

/* GIDs fe80::2:<index> */
static int ksa_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->raw[13] = KSA_LID;
	gid->raw[15] = index;
	return 0;
}

static int ksa_ok_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int ksa_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	cq->cqe = attr->cqe;
	return 0;
}

static int ksa_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	struct ksa_dev *kd = to_ksa(cq->device);
	struct ksa_wc *w, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&kd->lock, flags);
	list_for_each_entry_safe(w, tmp, &kd->wcs, list) {
		if (w->cq == cq) {
			list_del(&w->list);
			kfree(w);
		}
	}
	spin_unlock_irqrestore(&kd->lock, flags);
	return 0;
}

static int ksa_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	struct ksa_dev *kd = to_ksa(cq->device);
	struct ksa_wc *w, *tmp;
	unsigned long flags;
	int i = 0;

	spin_lock_irqsave(&kd->lock, flags);
	list_for_each_entry_safe(w, tmp, &kd->wcs, list) {
		if (i == n)
			break;
		if (w->cq != cq)
			continue;
		wc[i++] = w->wc;
		list_del(&w->list);
		kfree(w);
	}
	spin_unlock_irqrestore(&kd->lock, flags);
	return i;
}

static int ksa_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int ksa_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata)
{
	struct ksa_dev *kd = to_ksa(qp->device);

	if (init->qp_type != IB_QPT_SMI && init->qp_type != IB_QPT_GSI)
		return -EOPNOTSUPP;
	qp->qp_num = init->qp_type == IB_QPT_SMI ? 0 : 1;
	if (init->qp_type == IB_QPT_GSI)
		kd->gsi = qp;
	return 0;
}

static int ksa_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			 struct ib_udata *udata)
{
	return 0;
}

static int ksa_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	struct ksa_dev *kd = to_ksa(qp->device);
	struct ksa_recv *r, *tmp;
	unsigned long flags;

	if (qp != kd->gsi)
		return 0;
	spin_lock_irqsave(&kd->lock, flags);
	list_for_each_entry_safe(r, tmp, &kd->recvs, list) {
		list_del(&r->list);
		kfree(r);
	}
	kd->gsi = NULL;
	spin_unlock_irqrestore(&kd->lock, flags);
	return 0;
}

/* Queue a completion and run the CQ's handler.  Caller holds the lock. */
static void ksa_complete(struct ksa_dev *kd, struct ib_cq *cq,
			 const struct ib_wc *wc)
{
	struct ksa_wc *w = kzalloc(sizeof(*w), GFP_ATOMIC);

	if (!w)
		return;
	w->cq = cq;
	w->wc = *wc;
	list_add_tail(&w->list, &kd->wcs);
	cq->comp_handler(cq, cq->cq_context);
}

/* Put @mad in the oldest receive buffer of QP1.  Caller holds the lock. */
static int ksa_deliver_locked(struct ksa_dev *kd, const void *mad)
{
	struct ib_wc wc = {};
	struct ksa_recv *r;

	if (!kd->gsi || list_empty(&kd->recvs))
		return -ENOBUFS;
	r = list_first_entry(&kd->recvs, struct ksa_recv, list);
	list_del(&r->list);
	if (r->length < sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE) {
		kfree(r);
		return -EMSGSIZE;
	}
	memcpy((void *)(uintptr_t)r->addr + sizeof(struct ib_grh), mad,
	       IB_MGMT_MAD_SIZE);
	wc.wr_cqe = r->cqe;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE;
	wc.qp = kd->gsi;
	wc.src_qp = 1;
	wc.slid = KSA_SM_LID;
	wc.port_num = 1;
	wc.pkey_index = 1;
	kfree(r);
	ksa_complete(kd, kd->gsi->recv_cq, &wc);
	return 0;
}

/**
 * ksa_deliver - hand the MAD layer a MAD from the SM's QP1
 * @kd: the device
 * @mad: 256 bytes
 *
 * Return: 0, or -ENOBUFS without a receive buffer.
 */
int ksa_deliver(struct ksa_dev *kd, const void *mad)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&kd->lock, flags);
	ret = ksa_deliver_locked(kd, mad);
	spin_unlock_irqrestore(&kd->lock, flags);
	return ret;
}

/**
 * ksa_resp_init - the header of an answer to @req
 * @resp: zeroed and filled in (the method answering @req's)
 * @req: the request
 * @status: the MAD status
 */
void ksa_resp_init(struct ib_sa_mad *resp, const struct ib_sa_mad *req,
		   u16 status)
{
	memset(resp, 0, sizeof(*resp));
	resp->mad_hdr = req->mad_hdr;
	resp->mad_hdr.method = (req->mad_hdr.method == IB_MGMT_METHOD_SET ?
				IB_MGMT_METHOD_GET : req->mad_hdr.method) |
			       IB_MGMT_METHOD_RESP;
	resp->mad_hdr.status = cpu_to_be16(status);
	resp->sa_hdr.comp_mask = req->sa_hdr.comp_mask;
}

/* The SA's ClassPortInfo, answered at once.  Caller holds the lock. */
static void ksa_answer_cpi(struct ksa_dev *kd, const struct ib_sa_mad *req)
{
	struct ib_class_port_info *cpi;
	struct ib_sa_mad *resp;

	resp = kzalloc(sizeof(*resp), GFP_ATOMIC);
	if (!resp)
		return;
	ksa_resp_init(resp, req, 0);
	cpi = (struct ib_class_port_info *)resp->data;
	cpi->base_version = 1;
	cpi->class_version = 2;
	ib_set_cpi_capmask2(cpi, kd->cpi_capmask2);
	ib_set_cpi_resp_time(cpi, 18);
	if (!ksa_deliver_locked(kd, resp))
		kd->cpi_answered++;
	kfree(resp);
}

static int ksa_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad)
{
	struct ksa_dev *kd = to_ksa(qp->device);
	const struct ib_sa_mad *mad;
	struct ib_wc wc = {};
	struct ksa_req *req;
	unsigned long flags;

	spin_lock_irqsave(&kd->lock, flags);
	for (; wr; wr = wr->next) {
		kd->nsent++;
		wc.wr_cqe = wr->wr_cqe;
		wc.status = IB_WC_SUCCESS;
		wc.opcode = IB_WC_SEND;
		wc.qp = qp;
		ksa_complete(kd, qp->send_cq, &wc);

		mad = (const struct ib_sa_mad *)(uintptr_t)wr->sg_list[0].addr;
		if (mad->mad_hdr.mgmt_class != IB_MGMT_CLASS_SUBN_ADM ||
		    ib_response_mad(&mad->mad_hdr) ||
		    mad->rmpp_hdr.rmpp_type == IB_MGMT_RMPP_TYPE_ACK)
			continue;
		if (mad->mad_hdr.attr_id == IB_MGMT_CLASSPORTINFO_ATTR_ID) {
			ksa_answer_cpi(kd, mad);
			continue;
		}
		req = kmalloc(sizeof(*req), GFP_ATOMIC);
		if (!req)
			continue;
		memcpy(&req->mad, mad, sizeof(req->mad));
		list_add_tail(&req->list, &kd->reqs);
	}
	spin_unlock_irqrestore(&kd->lock, flags);
	wake_up_all(&kd->wait);
	return 0;
}

static int ksa_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	struct ksa_dev *kd = to_ksa(qp->device);
	struct ksa_recv *r;
	unsigned long flags;

	spin_lock_irqsave(&kd->lock, flags);
	for (; wr; wr = wr->next) {
		if (qp != kd->gsi)
			continue;
		r = kzalloc(sizeof(*r), GFP_ATOMIC);
		if (!r) {
			*bad = wr;
			spin_unlock_irqrestore(&kd->lock, flags);
			return -ENOMEM;
		}
		r->cqe = wr->wr_cqe;
		r->addr = wr->sg_list[0].addr;
		r->length = wr->sg_list[0].length;
		list_add_tail(&r->list, &kd->recvs);
	}
	spin_unlock_irqrestore(&kd->lock, flags);
	return 0;
}

static int ksa_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			 struct ib_udata *udata)
{
	return 0;
}

static int ksa_destroy_ah(struct ib_ah *ah, u32 flags)
{
	return 0;
}

static const struct ib_device_ops ksa_ops = {
	.query_device = ksa_query_device,
	.query_port = ksa_query_port,
	.get_port_immutable = ksa_port_immutable,
	.query_pkey = ksa_query_pkey,
	.query_gid = ksa_query_gid,
	.alloc_pd = ksa_ok_pd,
	.dealloc_pd = ksa_ok_pd,
	.create_cq = ksa_create_cq,
	.destroy_cq = ksa_destroy_cq,
	.poll_cq = ksa_poll_cq,
	.req_notify_cq = ksa_req_notify_cq,
	.create_qp = ksa_create_qp,
	.modify_qp = ksa_modify_qp,
	.destroy_qp = ksa_destroy_qp,
	.post_send = ksa_post_send,
	.post_recv = ksa_post_recv,
	.create_ah = ksa_create_ah,
	.destroy_ah = ksa_destroy_ah,
};

/**
 * ksa_register - make and register a fake device
 *
 * Return: the device, or NULL.
 */
struct ksa_dev *ksa_register(void)
{
	struct ksa_dev *kd = ib_alloc_device(struct ksa_dev, ibdev);

	if (!kd)
		return NULL;
	spin_lock_init(&kd->lock);
	INIT_LIST_HEAD(&kd->reqs);
	INIT_LIST_HEAD(&kd->recvs);
	INIT_LIST_HEAD(&kd->wcs);
	init_waitqueue_head(&kd->wait);
	kd->cpi_capmask2 = IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT;
	kd->ibdev.ops = &ksa_ops;
	kd->ibdev.node_type = RDMA_NODE_IB_CA;
	kd->ibdev.phys_port_cnt = 1;
	if (ib_register_device(&kd->ibdev, "ksa%d", NULL)) {
		ib_dealloc_device(&kd->ibdev);
		return NULL;
	}
	return kd;
}

/**
 * ksa_unregister - unregister and free a fake device
 * @kd: the device
 */
void ksa_unregister(struct ksa_dev *kd)
{
	ib_unregister_device(&kd->ibdev);
	ksa_flush_reqs(kd);
	ib_dealloc_device(&kd->ibdev);
}

/**
 * ksa_wait_sm - wait until the SA client knows the SM of the device
 * @kd: the device
 *
 * The SA client builds the SM's address from a work item and then asks
 * for the ClassPortInfo, which the device answers with send-only full
 * member support: once ib_sa_sendonly_fullmem_support() says so, both
 * are done.
 *
 * Return: true if that happened within 5 s.
 */
bool ksa_wait_sm(struct ksa_dev *kd)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (ib_sa_sendonly_fullmem_support(NULL, &kd->ibdev, 1))
			return true;
		msleep(20);
	}
	return false;
}

static struct ksa_req *ksa_pop_req(struct ksa_dev *kd)
{
	struct ksa_req *req = NULL;
	unsigned long flags;

	spin_lock_irqsave(&kd->lock, flags);
	if (!list_empty(&kd->reqs)) {
		req = list_first_entry(&kd->reqs, struct ksa_req, list);
		list_del(&req->list);
	}
	spin_unlock_irqrestore(&kd->lock, flags);
	return req;
}

/**
 * ksa_next_req - the oldest request the SA got, waiting for one
 * @kd: the device
 * @ms: how long to wait
 *
 * Return: the request (kfree() it), or NULL if none came.
 */
struct ksa_req *ksa_next_req(struct ksa_dev *kd, unsigned int ms)
{
	struct ksa_req *req = NULL;

	wait_event_timeout(kd->wait, (req = ksa_pop_req(kd)),
			   msecs_to_jiffies(ms));
	return req;
}

/**
 * ksa_count_reqs - requests not taken yet
 * @kd: the device
 *
 * Return: how many.
 */
unsigned int ksa_count_reqs(struct ksa_dev *kd)
{
	struct ksa_req *req;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&kd->lock, flags);
	list_for_each_entry(req, &kd->reqs, list)
		n++;
	spin_unlock_irqrestore(&kd->lock, flags);
	return n;
}

/**
 * ksa_flush_reqs - forget the requests not taken yet
 * @kd: the device
 */
void ksa_flush_reqs(struct ksa_dev *kd)
{
	struct ksa_req *req;

	while ((req = ksa_pop_req(kd)))
		kfree(req);
}

/**
 * ksa_deliver_table - answer @req with a GetTableResp in RMPP segments
 * @kd: the device
 * @req: the GetTable
 * @data: the records
 * @len: their bytes (at most 20 segments' worth)
 * @attr_offset: the AttributeOffset to announce
 *
 * Return: 0 or the error of a delivery.
 */
int ksa_deliver_table(struct ksa_dev *kd, const struct ib_sa_mad *req,
		      const void *data, size_t len, u16 attr_offset)
{
	int segs = len ? DIV_ROUND_UP(len, IB_MGMT_SA_DATA) : 1;
	int pad = segs * IB_MGMT_SA_DATA - len, i, ret = 0;
	struct ib_sa_mad *seg;
	u8 flags;

	seg = kzalloc(sizeof(*seg), GFP_KERNEL);
	if (!seg)
		return -ENOMEM;
	for (i = 1; i <= segs && !ret; i++) {
		ksa_resp_init(seg, req, 0);
		seg->sa_hdr.attr_offset = cpu_to_be16(attr_offset);
		seg->rmpp_hdr.rmpp_version = IB_MGMT_RMPP_VERSION;
		seg->rmpp_hdr.rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
		flags = IB_MGMT_RMPP_FLAG_ACTIVE;
		if (i == 1)
			flags |= IB_MGMT_RMPP_FLAG_FIRST;
		if (i == segs)
			flags |= IB_MGMT_RMPP_FLAG_LAST;
		ib_set_rmpp_flags(&seg->rmpp_hdr, flags);
		seg->rmpp_hdr.seg_num = cpu_to_be32(i);
		if (i == 1)
			seg->rmpp_hdr.paylen_newwin =
				cpu_to_be32(segs * IB_MGMT_RMPP_DATA - pad);
		else if (i == segs)
			seg->rmpp_hdr.paylen_newwin =
				cpu_to_be32(IB_MGMT_RMPP_DATA - pad);
		if (i == 1 && segs == 1)
			seg->rmpp_hdr.paylen_newwin =
				cpu_to_be32(IB_MGMT_RMPP_DATA - pad);
		memcpy(seg->data, data + (i - 1) * IB_MGMT_SA_DATA,
		       min_t(size_t, IB_MGMT_SA_DATA,
			     len - (i - 1) * IB_MGMT_SA_DATA));
		ret = ksa_deliver(kd, seg);
	}
	kfree(seg);
	return ret;
}
