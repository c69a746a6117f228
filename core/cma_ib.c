// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA CM over the IB CM: listening on a device, connection requests
 * turned into new ids, connecting, accepting, rejecting, disconnecting,
 * UD ids through SIDR, and the QP attributes of each step.
 *
 * The private data of every REQ and SIDR REQ of an IP port space starts
 * with the IP addressing header of IBTA Annex A11 (struct cma_hdr): the
 * requester's port and both addresses; the consumer's private data
 * follows it.  The service ID is the port space and the destination
 * port (rdma_get_service_id()).  SDP's port space is the exception
 * (struct cma_sdp_hello): its REQ private data is the consumer's Hello,
 * whose addressing fields the CM fills in and parses.
 *
 * All of it runs in process context: the IB CM's handlers from its work
 * queue, with the id's handler_mutex taken here; the consumer's calls
 * with it held where the API says so (rdma_accept()).  Locking as in
 * cma_priv.h; qp_mutex is taken inside handler_mutex.
 */
#include <linux/slab.h>
#include <rdma/ib.h>

#include "cma_priv.h"

#define CMA_CM_RESPONSE_TIMEOUT	20
#define CMA_MAX_CM_RETRIES	15
#define CMA_CM_MRA_SETTING	(IB_CM_MRA_FLAG_DELAY | 24)
#define CMA_VERSION		0x00

/* An IPv4 address sits in the last word of the 16 bytes. */
union cma_ip_addr {
	struct in6_addr ip6;
	struct {
		__be32 pad[3];
		__be32 addr;
	} ip4;
};

/**
 * struct cma_hdr - the IP addressing header of a REQ's private data
 * @cma_version: CMA_VERSION
 * @ip_version: 4 or 6, in bits 7:4
 * @port: the requester's port
 * @src_addr: the requester's address
 * @dst_addr: the responder's address
 */
struct cma_hdr {
	u8 cma_version;
	u8 ip_version;
	__be16 port;
	union cma_ip_addr src_addr;
	union cma_ip_addr dst_addr;
};

static_assert(sizeof(struct cma_hdr) == 36);

/* The major version of SDP's Hello the CM accepts (OFED's 0x22). */
#define CMA_SDP_MAJOR		2

/**
 * struct cma_sdp_hello - what the CM reads and writes of SDP's Hello
 * @bsdh: SDP's base header, the consumer's
 * @version: major version in bits 7:4, minor in 3:0
 * @ip_version: 4 or 6 in bits 7:4, the consumer's capability bits in 3:0
 * @rsvd1: the consumer's
 * @max_adverts: the consumer's
 * @des_rem_rcv_sz: the consumer's
 * @local_rcv_sz: the consumer's
 * @port: the requester's port
 * @rsvd2: reserved
 * @src_addr: the requester's address (IPv4 in the last word)
 * @dst_addr: the responder's address
 * @rsvd3: reserved, up to RDMA_SDP_HELLO_SIZE
 */
struct cma_sdp_hello {
	u8 bsdh[16];
	u8 version;
	u8 ip_version;
	u8 rsvd1;
	u8 max_adverts;
	__be32 des_rem_rcv_sz;
	__be32 local_rcv_sz;
	__be16 port;
	__be16 rsvd2;
	union cma_ip_addr src_addr;
	union cma_ip_addr dst_addr;
	u8 rsvd3[12];
};

static_assert(sizeof(struct cma_sdp_hello) == RDMA_SDP_HELLO_SIZE);

static bool cma_ip_service(__be64 service_id)
{
	return (service_id & IB_CMA_SERVICE_ID_MASK) == IB_CMA_SERVICE_ID;
}

static bool cma_sdp_service(__be64 service_id)
{
	return (be64_to_cpu(service_id) & RDMA_IB_IP_PS_MASK) ==
	       (u64)RDMA_PS_SDP << 16;
}

/* Where the consumer's private data starts in a REQ's. */
static int cma_user_data_offset(struct rdma_id_private *id_priv)
{
	if (cma_family(id_priv) == AF_IB || id_priv->id.ps == RDMA_PS_SDP)
		return 0;
	return sizeof(struct cma_hdr);
}

/* The IP version, port and addresses of an SDP Hello the consumer made. */
static void cma_format_sdp_hello(struct cma_sdp_hello *hh,
				 struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	struct sockaddr *dst = cma_dst_addr(id_priv);

	hh->ip_version &= 0x0f;
	memset(&hh->src_addr, 0, sizeof(hh->src_addr));
	memset(&hh->dst_addr, 0, sizeof(hh->dst_addr));
	if (src->sa_family == AF_INET) {
		hh->ip_version |= 4 << 4;
		hh->src_addr.ip4.addr =
			((struct sockaddr_in *)src)->sin_addr.s_addr;
		hh->dst_addr.ip4.addr =
			((struct sockaddr_in *)dst)->sin_addr.s_addr;
		hh->port = ((struct sockaddr_in *)src)->sin_port;
	} else {
		hh->ip_version |= 6 << 4;
		hh->src_addr.ip6 = ((struct sockaddr_in6 *)src)->sin6_addr;
		hh->dst_addr.ip6 = ((struct sockaddr_in6 *)dst)->sin6_addr;
		hh->port = ((struct sockaddr_in6 *)src)->sin6_port;
	}
}

static void cma_format_hdr(struct cma_hdr *hdr,
			   struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	struct sockaddr *dst = cma_dst_addr(id_priv);

	hdr->cma_version = CMA_VERSION;
	if (src->sa_family == AF_INET) {
		hdr->ip_version = 4 << 4;
		hdr->src_addr.ip4.addr =
			((struct sockaddr_in *)src)->sin_addr.s_addr;
		hdr->dst_addr.ip4.addr =
			((struct sockaddr_in *)dst)->sin_addr.s_addr;
		hdr->port = ((struct sockaddr_in *)src)->sin_port;
	} else {
		hdr->ip_version = 6 << 4;
		hdr->src_addr.ip6 = ((struct sockaddr_in6 *)src)->sin6_addr;
		hdr->dst_addr.ip6 = ((struct sockaddr_in6 *)dst)->sin6_addr;
		hdr->port = ((struct sockaddr_in6 *)src)->sin6_port;
	}
}

/*
 * The addresses of a request from its header: @local is ours (with the
 * service ID's port), @remote the requester's.
 */
static int cma_parse_hdr(const struct cma_hdr *hdr, __be64 service_id,
			 struct sockaddr_storage *local,
			 struct sockaddr_storage *remote)
{
	__be16 port = htons((u16)be64_to_cpu(service_id));
	struct sockaddr_in6 *l6 = (struct sockaddr_in6 *)local;
	struct sockaddr_in6 *r6 = (struct sockaddr_in6 *)remote;
	struct sockaddr_in *l4 = (struct sockaddr_in *)local;
	struct sockaddr_in *r4 = (struct sockaddr_in *)remote;

	if (hdr->cma_version != CMA_VERSION)
		return -EINVAL;
	memset(local, 0, sizeof(*local));
	memset(remote, 0, sizeof(*remote));
	switch (hdr->ip_version >> 4) {
	case 4:
		l4->sin_family = AF_INET;
		l4->sin_addr.s_addr = hdr->dst_addr.ip4.addr;
		l4->sin_port = port;
		r4->sin_family = AF_INET;
		r4->sin_addr.s_addr = hdr->src_addr.ip4.addr;
		r4->sin_port = hdr->port;
		return 0;
	case 6:
		l6->sin6_family = AF_INET6;
		l6->sin6_addr = hdr->dst_addr.ip6;
		l6->sin6_port = port;
		r6->sin6_family = AF_INET6;
		r6->sin6_addr = hdr->src_addr.ip6;
		r6->sin6_port = hdr->port;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The addresses of an SDP request from its Hello, as cma_parse_hdr();
 * a Hello of another major version or IP version is refused.
 */
static int cma_parse_sdp_hello(const struct cma_sdp_hello *hh,
			       __be64 service_id,
			       struct sockaddr_storage *local,
			       struct sockaddr_storage *remote)
{
	struct cma_hdr hdr = {
		.cma_version = CMA_VERSION,
		.ip_version = hh->ip_version & 0xf0,
		.port = hh->port,
		.src_addr = hh->src_addr,
		.dst_addr = hh->dst_addr,
	};

	if (hh->version >> 4 != CMA_SDP_MAJOR)
		return -EINVAL;
	return cma_parse_hdr(&hdr, service_id, local, remote);
}

/* ------------------------------------------------------------------ */
/* QP attributes                                                       */
/* ------------------------------------------------------------------ */

/* The Q_Key of a UD id: @qkey if given, else its port space's. */
int cma_set_qkey(struct rdma_id_private *id_priv, u32 qkey)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct ib_sa_mcmember_rec rec;
	union ib_gid mgid;
	int ret;

	if (id_priv->qkey)
		return qkey && qkey != id_priv->qkey ? -EINVAL : 0;
	if (qkey) {
		id_priv->qkey = qkey;
		return 0;
	}
	switch (id_priv->id.ps) {
	case RDMA_PS_UDP:
	case RDMA_PS_IB:
		id_priv->qkey = RDMA_UDP_QKEY;
		return 0;
	case RDMA_PS_IPOIB:
		/* the broadcast group's, as IPoIB's own QP has */
		ib_addr_get_mgid(dev_addr, &mgid);
		ret = ib_sa_get_mcmember_rec(id_priv->id.device,
					     id_priv->id.port_num, &mgid, &rec);
		if (ret)
			return ret;
		id_priv->qkey = be32_to_cpu(rec.qkey);
		return 0;
	default:
		return -EINVAL;
	}
}

/* INIT attributes of a QP not connected through the IB CM (yet). */
static int cma_ib_init_qp_attr(struct rdma_id_private *id_priv,
			       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	u16 pkey_index;
	int ret;

	ret = ib_find_pkey(id_priv->id.device, id_priv->id.port_num,
			   ib_addr_get_pkey(dev_addr), &pkey_index);
	if (ret)
		return ret;
	qp_attr->pkey_index = pkey_index;
	qp_attr->port_num = id_priv->id.port_num;
	*qp_attr_mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (id_priv->id.qp_type == IB_QPT_UD) {
		ret = cma_set_qkey(id_priv, 0);
		if (ret)
			return ret;
		qp_attr->qkey = id_priv->qkey;
		*qp_attr_mask |= IB_QP_QKEY;
	} else {
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask |= IB_QP_ACCESS_FLAGS;
	}
	return 0;
}

/**
 * rdma_init_qp_attr() - the attributes that take an id's QP to a state
 * @id: the id
 * @qp_attr: its qp_state says which state; the rest is filled in
 * @qp_attr_mask: set to the attributes to modify
 *
 * Before the IB CM is involved (and always for UD): the INIT attributes
 * (P_Key index, port, access flags or Q_Key).  Once it is: the IB CM's
 * attributes for the state, with the receive PSN of the id and its ACK
 * timeout and RNR timer if they were set.
 *
 * Return: 0 or a negative errno (-EINVAL for a state the IB CM has no
 * attributes for yet).
 */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	if (!id->device)
		return -EINVAL;
	if (!id_priv->cm_id || id->qp_type == IB_QPT_UD)
		ret = cma_ib_init_qp_attr(id_priv, qp_attr, qp_attr_mask);
	else
		ret = ib_cm_init_qp_attr(id_priv->cm_id, qp_attr,
					 qp_attr_mask);
	if (ret)
		return ret;
	if (qp_attr->qp_state == IB_QPS_RTR)
		qp_attr->rq_psn = id_priv->seq_num;
	if ((*qp_attr_mask & IB_QP_TIMEOUT) && id_priv->timeout_set)
		qp_attr->timeout = id_priv->timeout;
	if ((*qp_attr_mask & IB_QP_MIN_RNR_TIMER) &&
	    id_priv->min_rnr_timer_set)
		qp_attr->min_rnr_timer = id_priv->min_rnr_timer;
	return 0;
}
EXPORT_SYMBOL(rdma_init_qp_attr);

static int cma_modify_qp(struct rdma_id_private *id_priv,
			 enum ib_qp_state state, int rd_atomic, bool dest)
{
	struct ib_qp_attr qp_attr = { .qp_state = state };
	int mask, ret;

	ret = rdma_init_qp_attr(&id_priv->id, &qp_attr, &mask);
	if (ret)
		return ret;
	if (rd_atomic >= 0) {
		if (dest)
			qp_attr.max_dest_rd_atomic = rd_atomic;
		else
			qp_attr.max_rd_atomic = rd_atomic;
	}
	return ib_modify_qp(id_priv->id.qp, &qp_attr, mask);
}

/* The kernel QP of a connecting id to RTR (through INIT again) and RTS. */
static int cma_modify_qp_rtr_rts(struct rdma_id_private *id_priv,
				 struct rdma_conn_param *conn_param)
{
	int ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp)
		goto out;
	ret = cma_modify_qp(id_priv, IB_QPS_INIT, -1, false);
	if (ret)
		goto out;
	ret = cma_modify_qp(id_priv, IB_QPS_RTR,
			    conn_param ? conn_param->responder_resources : -1,
			    true);
	if (ret)
		goto out;
	ret = cma_modify_qp(id_priv, IB_QPS_RTS,
			    conn_param ? conn_param->initiator_depth : -1,
			    false);
out:
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

static void cma_modify_qp_err(struct rdma_id_private *id_priv)
{
	struct ib_qp_attr qp_attr = { .qp_state = IB_QPS_ERR };

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ib_modify_qp(id_priv->id.qp, &qp_attr, IB_QP_STATE);
	mutex_unlock(&id_priv->qp_mutex);
}

/**
 * rdma_create_qp() - create the QP of an id, in INIT (UD: in RTS)
 * @id: an id bound to a device
 * @pd: a PD of that device
 * @qp_init_attr: as for ib_create_qp(); its port is the id's
 *
 * Return: 0, -EINVAL for a PD of another device, or what creating or
 * modifying the QP returns.
 */
int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct ib_qp_attr attr;
	struct ib_qp *qp;
	int mask, ret;

	if (!id->device || id->device != pd->device)
		return -EINVAL;
	qp_init_attr->port_num = id->port_num;
	qp = ib_create_qp(pd, qp_init_attr);
	if (IS_ERR(qp))
		return PTR_ERR(qp);

	attr.qp_state = IB_QPS_INIT;
	ret = rdma_init_qp_attr(id, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(qp, &attr, mask);
	if (!ret && id->qp_type == IB_QPT_UD) {
		attr.qp_state = IB_QPS_RTR;
		ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
		if (!ret) {
			attr.qp_state = IB_QPS_RTS;
			attr.sq_psn = 0;
			ret = ib_modify_qp(qp, &attr,
					   IB_QP_STATE | IB_QP_SQ_PSN);
		}
	}
	if (ret) {
		ib_destroy_qp(qp);
		return ret;
	}
	mutex_lock(&id_priv->qp_mutex);
	id->qp = qp;
	id_priv->qp_num = qp->qp_num;
	id_priv->srq = !!qp->srq;
	mutex_unlock(&id_priv->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_create_qp);

/**
 * rdma_destroy_qp() - destroy the QP rdma_create_qp() made
 * @id: the id
 */
void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	mutex_lock(&id_priv->qp_mutex);
	if (id->qp)
		ib_destroy_qp(id->qp);
	id->qp = NULL;
	mutex_unlock(&id_priv->qp_mutex);
}
EXPORT_SYMBOL(rdma_destroy_qp);

/* ------------------------------------------------------------------ */
/* Events of connected ids                                             */
/* ------------------------------------------------------------------ */

static void cma_rep_event(struct rdma_cm_event *event,
			  const struct ib_cm_rep_event_param *rep,
			  void *private_data)
{
	event->param.conn.private_data = private_data;
	event->param.conn.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	event->param.conn.responder_resources = rep->responder_resources;
	event->param.conn.initiator_depth = rep->initiator_depth;
	event->param.conn.flow_control = rep->flow_control;
	event->param.conn.rnr_retry_count = rep->rnr_retry_count;
	event->param.conn.srq = rep->srq;
	event->param.conn.qp_num = rep->remote_qpn;
	event->ece = rep->ece;
}

/* The active side's kernel QP after a REP: RTR, RTS, then the RTU. */
static int cma_rep_recv(struct rdma_id_private *id_priv)
{
	int ret;

	ret = cma_modify_qp_rtr_rts(id_priv, NULL);
	if (!ret)
		ret = ib_send_cm_rtu(id_priv->cm_id, NULL, 0);
	if (ret) {
		cma_modify_qp_err(id_priv);
		ib_send_cm_rej(id_priv->cm_id, IB_CM_REJ_CONSUMER_DEFINED,
			       NULL, 0, NULL, 0);
	}
	return ret;
}

/*
 * Deliver an event of an IB CM handler, handler_mutex held and released
 * here.  Return: what the IB CM handler returns: non-zero when the
 * consumer wants the id destroyed (the IB CM then destroys its cm_id).
 */
static int cma_cm_deliver(struct rdma_id_private *id_priv,
			  struct rdma_cm_event *event)
{
	if (cma_deliver(id_priv, event)) {
		id_priv->cm_id = NULL;
		cma_destroy_from_handler(id_priv);
		return -ECONNABORTED;
	}
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

static int cma_ib_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ib_event)
{
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_event event = {};
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (ib_event->event == IB_CM_TIMEWAIT_EXIT ?
	    state != RDMA_CM_DISCONNECT : state != RDMA_CM_CONNECT)
		goto out;

	switch (ib_event->event) {
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		event.event = RDMA_CM_EVENT_UNREACHABLE;
		event.status = -ETIMEDOUT;
		break;
	case IB_CM_REP_RECEIVED:
		if (id_priv->id.qp) {
			event.status = cma_rep_recv(id_priv);
			event.event = event.status ? RDMA_CM_EVENT_CONNECT_ERROR :
						     RDMA_CM_EVENT_ESTABLISHED;
		} else {
			/* the consumer moves its QP and sends the RTU */
			event.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
		}
		cma_rep_event(&event, &ib_event->param.rep_rcvd,
			      ib_event->private_data);
		break;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		event.event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	case IB_CM_DREQ_ERROR:
		event.status = -ETIMEDOUT;
		fallthrough;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
		if (!cma_comp_exch(id_priv, RDMA_CM_CONNECT,
				   RDMA_CM_DISCONNECT))
			goto out;
		event.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case IB_CM_TIMEWAIT_EXIT:
		event.event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		break;
	case IB_CM_REJ_RECEIVED:
		cma_modify_qp_err(id_priv);
		event.event = RDMA_CM_EVENT_REJECTED;
		event.status = ib_event->param.rej_rcvd.reason;
		event.param.conn.private_data = ib_event->private_data;
		event.param.conn.private_data_len =
			IB_CM_REJ_PRIVATE_DATA_SIZE;
		break;
	default:
		/* MRA, LAP, APR: nothing to tell */
		goto out;
	}

	return cma_cm_deliver(id_priv, &event);
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

static int cma_sidr_rep_handler(struct ib_cm_id *cm_id,
				const struct ib_cm_event *ib_event)
{
	const struct ib_cm_sidr_rep_event_param *rep =
		&ib_event->param.sidr_rep_rcvd;
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_event event = {};
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	if (cma_state(id_priv) != RDMA_CM_CONNECT)
		goto out;

	switch (ib_event->event) {
	case IB_CM_SIDR_REQ_ERROR:
		event.event = RDMA_CM_EVENT_UNREACHABLE;
		event.status = -ETIMEDOUT;
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		event.param.ud.private_data = ib_event->private_data;
		event.param.ud.private_data_len =
			IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
		if (rep->status != IB_SIDR_SUCCESS) {
			event.event = RDMA_CM_EVENT_UNREACHABLE;
			event.status = rep->status;
			break;
		}
		ret = cma_set_qkey(id_priv, rep->qkey);
		if (!ret)
			ret = ib_init_ah_attr_from_path(id_priv->id.device,
							id_priv->id.port_num,
							id_priv->id.route.path_rec,
							&event.param.ud.ah_attr);
		if (ret) {
			event.event = RDMA_CM_EVENT_ADDR_ERROR;
			event.status = ret;
			break;
		}
		event.param.ud.qp_num = rep->qpn;
		event.param.ud.qkey = rep->qkey;
		event.event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	default:
		goto out;
	}

	return cma_cm_deliver(id_priv, &event);
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Requests to a listener                                              */
/* ------------------------------------------------------------------ */

/* What a REQ or SIDR REQ says about where it came and what it wants. */
struct cma_req_info {
	struct ib_device *device;
	u32 port;
	u16 pkey;
	const union ib_gid *local_gid;
	__be64 service_id;
	struct sockaddr_storage local;
	struct sockaddr_storage remote;
};

static int cma_req_info(struct ib_cm_id *cm_id,
			const struct ib_cm_event *ib_event,
			struct cma_req_info *req)
{
	const struct ib_cm_req_event_param *rp = &ib_event->param.req_rcvd;
	const struct ib_cm_sidr_req_event_param *sp =
		&ib_event->param.sidr_req_rcvd;

	req->device = cm_id->device;
	req->service_id = cm_id->service_id;
	if (ib_event->event == IB_CM_REQ_RECEIVED) {
		req->port = rp->port;
		req->pkey = be16_to_cpu(rp->primary_path->pkey);
		req->local_gid = &rp->primary_path->sgid;
	} else {
		req->port = sp->port;
		req->pkey = sp->pkey;
		req->local_gid = NULL;
	}
	if (!ib_event->private_data)
		return -EINVAL;
	if (cma_sdp_service(req->service_id)) {
		if (ib_event->event != IB_CM_REQ_RECEIVED)
			return -EINVAL;
		return cma_parse_sdp_hello(ib_event->private_data,
					   req->service_id, &req->local,
					   &req->remote);
	}
	if (!cma_ip_service(req->service_id))
		return -EINVAL;
	return cma_parse_hdr(ib_event->private_data, req->service_id,
			     &req->local, &req->remote);
}

/* A new id for a request to @listener: its addresses, device and path. */
static struct rdma_id_private *
cma_req_new_id(struct rdma_id_private *listener,
	       const struct ib_cm_event *ib_event, struct cma_req_info *req,
	       struct net_device *ndev)
{
	struct rdma_id_private *owner = listener->internal_id ?
					listener->parent : listener;
	const struct ib_cm_req_event_param *rp = &ib_event->param.req_rcvd;
	bool ud = ib_event->event == IB_CM_SIDR_REQ_RECEIVED;
	struct sa_path_rec *paths = NULL;
	struct rdma_id_private *conn;
	struct rdma_route *route;
	int npaths = 0, ret;

	if (!ud) {
		npaths = rp->alternate_path ? 2 : 1;
		paths = kcalloc(npaths, sizeof(*paths), GFP_KERNEL);
		if (!paths)
			return ERR_PTR(-ENOMEM);
		paths[0] = *rp->primary_path;
		if (rp->alternate_path)
			paths[1] = *rp->alternate_path;
	}
	conn = cma_new_id(listener->net, owner->id.event_handler,
			  owner->id.context, listener->id.ps,
			  ud ? IB_QPT_UD : rp->qp_type, owner);
	if (IS_ERR(conn)) {
		kfree(paths);
		return conn;
	}
	route = &conn->id.route;
	route->path_rec = paths;
	route->num_pri_alt_paths = npaths;
	memcpy(&route->addr.src_addr, &req->local, sizeof(req->local));
	memcpy(&route->addr.dst_addr, &req->remote, sizeof(req->remote));
	rdma_copy_src_l2_addr(&route->addr.dev_addr, ndev);
	if (!ud) {
		rdma_addr_set_dgid(&route->addr.dev_addr,
				   &rp->primary_path->dgid);
	}
	conn->state = RDMA_CM_CONNECT;
	conn->id.port_num = req->port;
	ret = cma_attach_dev(conn, listener->cma_dev);
	if (ret) {
		rdma_destroy_id(&conn->id);
		return ERR_PTR(ret);
	}
	mutex_lock_nested(&conn->handler_mutex, SINGLE_DEPTH_NESTING);
	return conn;
}

static void cma_req_event(struct rdma_cm_event *event,
			  const struct ib_cm_event *ib_event, int offset)
{
	const struct ib_cm_req_event_param *rp = &ib_event->param.req_rcvd;
	u8 *pdata = ib_event->private_data;

	if (ib_event->event == IB_CM_SIDR_REQ_RECEIVED) {
		event->param.ud.private_data = pdata + offset;
		event->param.ud.private_data_len =
			IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - offset;
		return;
	}
	event->param.conn.private_data = pdata + offset;
	event->param.conn.private_data_len =
		IB_CM_REQ_PRIVATE_DATA_SIZE - offset;
	event->param.conn.responder_resources = rp->responder_resources;
	event->param.conn.initiator_depth = rp->initiator_depth;
	event->param.conn.flow_control = rp->flow_control;
	event->param.conn.retry_count = rp->retry_count;
	event->param.conn.rnr_retry_count = rp->rnr_retry_count;
	event->param.conn.srq = rp->srq;
	event->param.conn.qp_num = rp->remote_qpn;
	event->ece = rp->ece;
}

/*
 * A REQ or SIDR REQ for a service some id listens to on this device:
 * find the listener by the namespace of the IPoIB interface the request
 * is addressed to, make a new id for it and tell the listener's
 * consumer.  A non-zero return makes the IB CM reject the request.
 */
static int cma_ib_req_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *ib_event)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_CONNECT_REQUEST };
	struct rdma_id_private *listener, *conn;
	struct cma_req_info req;
	struct net_device *ndev;
	bool ud, listener_ud;
	int ret;

	ret = cma_req_info(cm_id, ib_event, &req);
	if (ret)
		return ret;
	ndev = ib_get_net_dev_by_params(req.device, req.port, req.pkey,
					req.local_gid,
					(struct sockaddr *)&req.local);
	if (!ndev)
		return -EHOSTUNREACH;
	listener = cma_find_listener(dev_net(ndev),
				     (be64_to_cpu(req.service_id) >> 16) &
				     0xffff,
				     ntohs(cma_port((struct sockaddr *)
						    &req.local)),
				     (struct sockaddr *)&req.local,
				     req.device, req.port);
	if (!listener) {
		ret = -EINVAL;
		goto out_ndev;
	}
	listener_ud = listener->id.qp_type == IB_QPT_UD;
	ud = ib_event->event == IB_CM_SIDR_REQ_RECEIVED;
	if (ud ^ listener_ud) {
		ret = -EINVAL;
		goto out_listener;
	}

	mutex_lock(&listener->handler_mutex);
	if (cma_state(listener) != RDMA_CM_LISTEN) {
		ret = -ECONNABORTED;
		goto out_unlock;
	}
	conn = cma_req_new_id(listener, ib_event, &req, ndev);
	if (IS_ERR(conn)) {
		ret = PTR_ERR(conn);
		goto out_unlock;
	}
	conn->cm_id = cm_id;
	cm_id->context = conn;
	cm_id->cm_handler = cma_ib_handler;

	cma_req_event(&event, ib_event, cma_user_data_offset(conn));
	ret = cma_deliver(conn, &event);
	if (ret) {
		/* the IB CM destroys cm_id, rejecting the request */
		conn->cm_id = NULL;
		mutex_unlock(&listener->handler_mutex);
		cma_destroy_from_handler(conn);
		goto out_listener;
	}
	/*
	 * Not accepted yet: ask the requester to wait.  Once the REP is
	 * out, the IB CM refuses the MRA, which is then not needed.
	 */
	if (cma_state(conn) == RDMA_CM_CONNECT &&
	    conn->id.qp_type != IB_QPT_UD)
		ib_send_cm_mra(cm_id, CMA_CM_MRA_SETTING, NULL, 0);
	mutex_unlock(&conn->handler_mutex);
	ret = 0;
out_unlock:
	mutex_unlock(&listener->handler_mutex);
out_listener:
	cma_id_put(listener);
out_ndev:
	dev_put(ndev);
	return ret;
}

/**
 * cma_ib_listen() - listen on the IB CM for the service of an id
 * @id_priv: an id in RDMA_CM_LISTEN, bound to a device
 *
 * Listeners of one service on one device share the IB CM's listener;
 * requests are told apart by address in cma_ib_req_handler().
 *
 * Return: 0 or what the IB CM returns.
 */
int cma_ib_listen(struct rdma_id_private *id_priv)
{
	struct ib_cm_id *cm_id;

	cm_id = ib_cm_insert_listen(id_priv->id.device, cma_ib_req_handler,
				    rdma_get_service_id(&id_priv->id,
							cma_src_addr(id_priv)));
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	id_priv->cm_id = cm_id;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Connecting                                                          */
/* ------------------------------------------------------------------ */

/* The header and the consumer's private data, in a new buffer. */
static void *cma_private_data(struct rdma_id_private *id_priv,
			      const struct rdma_conn_param *conn_param,
			      int max, u8 *len)
{
	int offset = cma_user_data_offset(id_priv);
	int total = offset + conn_param->private_data_len;
	u8 *data;

	if (total > max)
		return ERR_PTR(-EINVAL);
	data = kzalloc(max_t(int, total, 1), GFP_KERNEL);
	if (!data)
		return ERR_PTR(-ENOMEM);
	if (offset)
		cma_format_hdr((struct cma_hdr *)data, id_priv);
	if (conn_param->private_data_len)
		memcpy(data + offset, conn_param->private_data,
		       conn_param->private_data_len);
	if (id_priv->id.ps == RDMA_PS_SDP && cma_family(id_priv) != AF_IB) {
		if (total < RDMA_SDP_HELLO_SIZE) {
			kfree(data);
			return ERR_PTR(-EINVAL);
		}
		cma_format_sdp_hello((struct cma_sdp_hello *)data, id_priv);
	}
	*len = total;
	return data;
}

static int cma_connect_ib(struct rdma_id_private *id_priv,
			  struct rdma_conn_param *conn_param)
{
	struct rdma_route *route = &id_priv->id.route;
	struct ib_cm_req_param req = {};
	struct ib_cm_id *cm_id;
	void *data;
	int ret;

	data = cma_private_data(id_priv, conn_param,
				IB_CM_REQ_PRIVATE_DATA_SIZE,
				&req.private_data_len);
	if (IS_ERR(data))
		return PTR_ERR(data);
	cm_id = ib_create_cm_id(id_priv->id.device, cma_ib_handler, id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_id = cm_id;

	req.primary_path = &route->path_rec[0];
	if (route->num_pri_alt_paths == 2)
		req.alternate_path = &route->path_rec[1];
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.qp_num = id_priv->qp_num;
	req.qp_type = id_priv->id.qp_type;
	req.starting_psn = id_priv->seq_num;
	req.private_data = data;
	req.responder_resources = conn_param->responder_resources;
	req.initiator_depth = conn_param->initiator_depth;
	req.flow_control = conn_param->flow_control;
	req.retry_count = min_t(u8, 7, conn_param->retry_count);
	req.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	req.remote_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.local_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.max_cm_retries = CMA_MAX_CM_RETRIES;
	req.srq = id_priv->srq ? 1 : 0;
	req.ece = id_priv->ece;

	ret = ib_send_cm_req(cm_id, &req);
	if (ret) {
		ib_destroy_cm_id(cm_id);
		id_priv->cm_id = NULL;
	}
out:
	kfree(data);
	return ret;
}

static int cma_connect_ud(struct rdma_id_private *id_priv,
			  struct rdma_conn_param *conn_param)
{
	struct ib_cm_sidr_req_param req = {};
	struct ib_cm_id *cm_id;
	void *data;
	int ret;

	data = cma_private_data(id_priv, conn_param,
				IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE,
				&req.private_data_len);
	if (IS_ERR(data))
		return PTR_ERR(data);
	cm_id = ib_create_cm_id(id_priv->id.device, cma_sidr_rep_handler,
				id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_id = cm_id;

	req.path = id_priv->id.route.path_rec;
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.timeout_ms = 1 << (CMA_CM_RESPONSE_TIMEOUT - 8);
	req.max_cm_retries = CMA_MAX_CM_RETRIES;
	req.private_data = data;

	ret = ib_send_cm_sidr_req(cm_id, &req);
	if (ret) {
		ib_destroy_cm_id(cm_id);
		id_priv->cm_id = NULL;
	}
out:
	kfree(data);
	return ret;
}

/**
 * rdma_connect_locked() - rdma_connect() with the handler mutex held
 * @id: an id in RDMA_CM_ROUTE_RESOLVED
 * @conn_param: what to ask for; its qp_num and srq are used when the id
 *	has no QP of its own
 *
 * For a consumer calling from the id's own event handler.
 *
 * Return: 0 if the REQ (UD: the SIDR REQ) went out; -EINVAL in another
 * state or for private data that does not fit, or the IB CM's error.
 */
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT))
		return -EINVAL;
	if (!id->qp) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}
	if (id->qp_type == IB_QPT_UD)
		ret = cma_connect_ud(id_priv, conn_param);
	else
		ret = cma_connect_ib(id_priv, conn_param);
	if (ret)
		cma_comp_exch(id_priv, RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_connect_locked);

/**
 * rdma_connect() - connect an id, asynchronously
 * @id: an id in RDMA_CM_ROUTE_RESOLVED
 * @conn_param: what to ask for
 *
 * RC/UC: ESTABLISHED follows (CONNECT_RESPONSE for an id without a
 * kernel QP, whose consumer then calls rdma_accept() to send the RTU),
 * or REJECTED (status: the reject reason), UNREACHABLE or
 * CONNECT_ERROR.  UD: ESTABLISHED with the peer's QP number, Q_Key and
 * address handle attributes, or UNREACHABLE.
 *
 * Return: as rdma_connect_locked().
 */
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	ret = rdma_connect_locked(id, conn_param);
	mutex_unlock(&id_priv->handler_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_connect);

/**
 * rdma_connect_ece() - rdma_connect() with enhanced connection options
 * @id: the id
 * @conn_param: what to ask for
 * @ece: the options, sent in the REQ
 *
 * Return: as rdma_connect().
 */
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	id_priv->ece = *ece;
	return rdma_connect(id, conn_param);
}
EXPORT_SYMBOL(rdma_connect_ece);

/* ------------------------------------------------------------------ */
/* Accepting, rejecting, disconnecting                                 */
/* ------------------------------------------------------------------ */

static int cma_send_sidr_rep(struct rdma_id_private *id_priv,
			     enum ib_cm_sidr_status status, u32 qkey,
			     const void *private_data, int private_data_len)
{
	struct ib_cm_sidr_rep_param rep = {};
	int ret;

	if (private_data_len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (status == IB_SIDR_SUCCESS) {
		ret = cma_set_qkey(id_priv, qkey);
		if (ret)
			return ret;
		rep.qp_num = id_priv->qp_num;
		rep.qkey = id_priv->qkey;
		rep.ece = id_priv->ece;
	}
	rep.status = status;
	rep.private_data = private_data;
	rep.private_data_len = private_data_len;
	return ib_send_cm_sidr_rep(id_priv->cm_id, &rep);
}

static int cma_accept_ib(struct rdma_id_private *id_priv,
			 struct rdma_conn_param *conn_param)
{
	struct ib_cm_rep_param rep = {};
	int ret;

	if (conn_param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE)
		return -EINVAL;
	ret = cma_modify_qp_rtr_rts(id_priv, conn_param);
	if (ret)
		return ret;
	rep.qp_num = id_priv->qp_num;
	rep.starting_psn = id_priv->seq_num;
	rep.private_data = conn_param->private_data;
	rep.private_data_len = conn_param->private_data_len;
	rep.responder_resources = conn_param->responder_resources;
	rep.initiator_depth = conn_param->initiator_depth;
	rep.failover_accepted = 0;
	rep.flow_control = conn_param->flow_control;
	rep.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	rep.srq = id_priv->srq ? 1 : 0;
	rep.ece = id_priv->ece;
	return ib_send_cm_rep(id_priv->cm_id, &rep);
}

/**
 * rdma_accept_ece() - rdma_accept() with enhanced connection options
 * @id: the id
 * @conn_param: as for rdma_accept()
 * @ece: the options, sent in the REP
 *
 * Return: as rdma_accept().
 */
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (ece)
		id_priv->ece = *ece;
	return rdma_accept(id, conn_param);
}
EXPORT_SYMBOL(rdma_accept_ece);

/**
 * rdma_accept() - accept a connection request, or finish a connect
 * @id: an id in RDMA_CM_CONNECT; its handler mutex held (from its
 *	handler, or rdma_lock_handler())
 * @conn_param: on the passive side, what is agreed to (its qp_num and
 *	srq when the id has no QP; for UD its qkey); NULL on the active side
 *	of an id without a kernel QP after CONNECT_RESPONSE: the RTU is sent
 *
 * The passive side's kernel QP goes to RTR and RTS and the REP (UD: the
 * SIDR REP) is sent; ESTABLISHED follows when the RTU comes.  A failure
 * rejects the request.
 *
 * Return: 0; -EINVAL in another state or for private data that does not
 * fit, or the error of the QP or the IB CM.
 */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	if (cma_state(id_priv) != RDMA_CM_CONNECT || !id_priv->cm_id)
		return -EINVAL;
	if (!id->qp && conn_param) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}
	if (id->qp_type == IB_QPT_UD) {
		if (conn_param)
			ret = cma_send_sidr_rep(id_priv, IB_SIDR_SUCCESS,
						conn_param->qkey,
						conn_param->private_data,
						conn_param->private_data_len);
		else
			ret = cma_send_sidr_rep(id_priv, IB_SIDR_SUCCESS, 0,
						NULL, 0);
		return ret;
	}
	if (conn_param)
		ret = cma_accept_ib(id_priv, conn_param);
	else
		ret = cma_rep_recv(id_priv);
	if (ret && conn_param) {
		cma_modify_qp_err(id_priv);
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_accept);

/**
 * rdma_reject() - refuse a connection request
 * @id: an id made for a request (CONNECT_REQUEST)
 * @private_data: for the peer, or NULL
 * @private_data_len: up to IB_CM_REJ_PRIVATE_DATA_SIZE (UD: SIDR REP's)
 * @reason: the IB CM reject reason (UD: ignored, the status is REJECT)
 *
 * Return: 0, -EINVAL without a request, or the IB CM's error.
 */
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!id_priv->cm_id)
		return -EINVAL;
	if (id->qp_type == IB_QPT_UD)
		return cma_send_sidr_rep(id_priv, IB_SIDR_REJECT, 0,
					 private_data, private_data_len);
	return ib_send_cm_rej(id_priv->cm_id, reason, NULL, 0, private_data,
			      private_data_len);
}
EXPORT_SYMBOL(rdma_reject);

/**
 * rdma_disconnect() - end a connection
 * @id: a connected id
 *
 * Its kernel QP goes to ERR; a DREQ is sent, or the DREP if the peer's
 * DREQ came first.  DISCONNECTED follows when the DREP comes (or at
 * once on the side that got the DREQ), TIMEWAIT_EXIT later.
 *
 * Return: 0, or -EINVAL if the id has no connection.
 */
int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!id_priv->cm_id || id->qp_type == IB_QPT_UD)
		return -EINVAL;
	cma_modify_qp_err(id_priv);
	if (ib_send_cm_dreq(id_priv->cm_id, NULL, 0))
		ib_send_cm_drep(id_priv->cm_id, NULL, 0);
	return 0;
}
EXPORT_SYMBOL(rdma_disconnect);

/**
 * rdma_notify() - tell the IB CM of a QP event it waits for
 * @id: a connecting id
 * @event: IB_EVENT_COMM_EST (data came before the RTU) or a path event
 *
 * Return: 0, -EINVAL without a connection, or the IB CM's error.
 */
int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!id_priv->cm_id)
		return -EINVAL;
	return ib_cm_notify(id_priv->cm_id, event);
}
EXPORT_SYMBOL(rdma_notify);

/**
 * rdma_is_consumer_reject() - whether a REJECTED came from the consumer
 * @id: the id
 * @reason: the event's status
 *
 * Return: true for IB_CM_REJ_CONSUMER_DEFINED.
 */
bool rdma_is_consumer_reject(struct rdma_cm_id *id, int reason)
{
	return reason == IB_CM_REJ_CONSUMER_DEFINED;
}
EXPORT_SYMBOL(rdma_is_consumer_reject);

/**
 * rdma_consumer_reject_data() - the peer consumer's bytes of a REJ
 * @id: the id
 * @ev: a REJECTED event
 * @data_len: set to their length
 *
 * Return: the bytes, or NULL if the reject did not come from the
 * consumer.
 */
const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	if (!rdma_is_consumer_reject(id, ev->status)) {
		*data_len = 0;
		return NULL;
	}
	*data_len = ev->param.conn.private_data_len;
	return ev->param.conn.private_data;
}
EXPORT_SYMBOL(rdma_consumer_reject_data);

/**
 * rdma_reject_msg() - the name of a reject reason
 * @id: the id
 * @reason: a REJECTED event's status
 *
 * Return: a constant string.
 */
const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason)
{
	return ibcm_reject_msg(reason);
}
EXPORT_SYMBOL(rdma_reject_msg);
