// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SA client: queries of the kernel to the subnet administrator (the
 * SA of the subnet manager, IBA 15.4) for PathRecords, MCMemberRecords,
 * ServiceRecords and its ClassPortInfo, the wire form of those records,
 * and the address handles built from a PathRecord.
 *
 * Ports.  An internal client ("sa") attaches to every device with IB SA
 * ports.  On each such port it registers a GSI agent that only sends
 * (class SA, version 2, kernel RMPP so that multi-segment answers arrive
 * reassembled; it claims no request method, so an SM on the same port
 * keeps them) and keeps the SM's address: an AH to the SM LID and SL of
 * ib_query_port(), QP1, the P_Key index of the default P_Key.  The AH is
 * reference counted: every query holds the one it was sent with.  Port
 * events that can move the SM (PORT_ACTIVE, PORT_ERR, LID_CHANGE,
 * PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER) drop it at once and rebuild
 * it from a work item; those after which the SA may be another fetch its
 * ClassPortInfo again (ib_sa_sendonly_fullmem_support() answers from it).
 *
 * Queries.  Each query sends one request MAD to the SA and ends with one
 * call of its callback: with the records of the answer, or with -EINVAL
 * when the SA answered with a non-zero status (as Linux does), -EIO for
 * an answer that is malformed (wrong class, method or attribute, shorter
 * than a record), -ENOENT for a GetTable answer without records,
 * -ETIMEDOUT when the MAD layer's retries ran out, -EINTR when it was
 * cancelled or the port went away.  Every query in flight has an id in
 * ib_sa_queries, the handle of ib_sa_cancel_query(), and holds a
 * reference on its ib_sa_client, so that ib_sa_unregister_client() can
 * wait for the client's queries to call back.
 *
 * Locking.  ib_sa_queries' own lock (irq safe) guards the ids and keeps a
 * query alive for ib_sa_cancel_query(); a port's ah_lock guards its SM
 * AH pointer, its cpi_lock its ClassPortInfo cache.  Queries may be
 * started in atomic context (with an atomic gfp mask); no lock is held
 * while a callback runs, so callbacks may start queries again.
 */
#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <asm/unaligned.h>
#include <kunit/visibility.h>
#include <rdma/ib_sa.h>

#include "core_priv.h"
#include "sa.h"

/* a query's timeout is spread over this many sends of the request */
#define IB_SA_QUERY_TRIES	10
/* longest timeout a query may ask for: an hour */
#define IB_SA_MAX_TIMEOUT_MS	(3600UL * 1000)
/* the ClassPortInfo of the SA: how long to wait, how often to try */
#define IB_SA_CPI_TIMEOUT_MS	3000
#define IB_SA_CPI_RETRIES	3
#define IB_SA_CPI_RETRY_MS	1000
/* the SA's port GUID when a GRH is required (IBA 15.4.1) */
#define IB_SA_WELL_KNOWN_GUID	0x0200000000000002ULL

static_assert(sizeof(struct ib_class_port_info) == IB_SA_CLASS_PORT_INFO_SIZE);
static_assert(IB_SA_SERVICE_REC_SIZE <= IB_MGMT_SA_DATA);

/**
 * struct ib_sa_sm_ah - the address of a port's SM
 * @ah: the address handle
 * @ref: the port's pointer and every query sent with it
 * @free_work: destroys @ah; the last reference may be dropped in atomic
 *	context
 * @pkey_index: the P_Key index queries are sent with
 */
struct ib_sa_sm_ah {
	struct ib_ah		*ah;
	struct kref		ref;
	struct work_struct	free_work;
	u16			pkey_index;
};

struct ib_sa_device;

/**
 * struct ib_sa_port - the SA client on one port
 * @agent: the GSI agent; NULL on a port without SA
 * @sa_dev: the device's SA client
 * @port_num: the port
 * @ah_lock: see below
 * @sm_ah: the SM's address, NULL until known
 * @update_task: rebuilds @sm_ah (and fetches the ClassPortInfo if wanted)
 * @cpi_lock: see below
 * @cpi: the SA's ClassPortInfo, valid with @cpi_valid
 * @cpi_valid: @cpi is the current SA's
 * @cpi_busy: a ClassPortInfo query is in flight
 * @cpi_wanted: @update_task is to fetch the ClassPortInfo
 * @cpi_dying: the port goes away: no more ClassPortInfo queries
 * @cpi_gen: counts events that invalidate @cpi; an answer to a query
 *	sent before the last one is not kept
 * @cpi_retries: failed fetches since the last event
 * @cpi_work: sends the ClassPortInfo query
 */
struct ib_sa_port {
	struct ib_mad_agent	*agent;
	struct ib_sa_device	*sa_dev;
	u32			port_num;
	/* protects sm_ah */
	spinlock_t		ah_lock;
	struct ib_sa_sm_ah	*sm_ah;
	struct work_struct	update_task;
	/* protects cpi and the cpi_* fields after it */
	spinlock_t		cpi_lock;
	struct ib_class_port_info cpi;
	bool			cpi_valid;
	bool			cpi_busy;
	bool			cpi_wanted;
	bool			cpi_dying;
	unsigned int		cpi_gen;
	unsigned int		cpi_retries;
	struct delayed_work	cpi_work;
};

/**
 * struct ib_sa_device - the SA client on one device
 * @device: the device
 * @event_handler: the device's port events
 * @num_ports: entries in @port
 * @port: by port number - 1
 */
struct ib_sa_device {
	struct ib_device	*device;
	struct ib_event_handler	event_handler;
	u32			num_ports;
	struct ib_sa_port	port[];
};

/* the query's user has been called back */
#define IB_SA_QUERY_DONE	0

struct ib_sa_query;

/**
 * struct ib_sa_query_kind - what a kind of query asks for and how it ends
 * @attr_id: the SA attribute asked for
 * @rec_size: wire size of that record
 * @callback: hands the answer (or the error) to the typed query's user
 * @release: frees the typed query
 */
struct ib_sa_query_kind {
	u16	attr_id;
	size_t	rec_size;
	void (*callback)(struct ib_sa_query *query, int status,
			 const struct ib_sa_resp *resp);
	void (*release)(struct ib_sa_query *query);
};

/**
 * struct ib_sa_query - a query in flight
 * @kind: its attribute and its ends
 * @client: the user's client, referenced until the query ends (NULL for
 *	the SA client's own ClassPortInfo queries)
 * @port: the port it was sent on
 * @sm_ah: the SM address it was sent to, referenced
 * @mad_buf: the request
 * @flags: IB_SA_QUERY_DONE
 * @id: in ib_sa_queries
 */
struct ib_sa_query {
	const struct ib_sa_query_kind *kind;
	struct ib_sa_client	*client;
	struct ib_sa_port	*port;
	struct ib_sa_sm_ah	*sm_ah;
	struct ib_mad_send_buf	*mad_buf;
	unsigned long		flags;
	int			id;
};

/* id -> query in flight; its lock also keeps a query from being freed */
static DEFINE_XARRAY_FLAGS(ib_sa_queries, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
static u32 ib_sa_next_id;
/* the low 32 bits of the TIDs of our requests */
static atomic_t ib_sa_tid = ATOMIC_INIT(0);
/* rebuilds SM AHs, fetches ClassPortInfos, destroys old AHs */
static struct workqueue_struct *ib_sa_wq;

static struct ib_client sa_client;

/* ------------------------------------------------------------------ */
/* Records on the wire (IBA 15.2.5, shared/abi/mgmt.md section 3.3)   */
/* ------------------------------------------------------------------ */

/* a selector in bits 7:6 and a 6-bit value below it, as in one byte */
static u8 ib_sa_sel_val(u8 selector, u8 value)
{
	return (selector & 0x3) << 6 | (value & 0x3f);
}

/**
 * ib_sa_pack_path - a PathRecord in its wire form
 * @rec: the record
 * @attribute: 64 bytes to fill
 *
 * Each field is cut to its width on the wire; reserved bits are zero.
 */
void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute)
{
	u8 *p = attribute;
	u32 word;

	memset(p, 0, IB_SA_PATH_REC_SIZE);
	memcpy(p, &rec->service_id, 8);
	memcpy(p + 8, rec->dgid.raw, 16);
	memcpy(p + 24, rec->sgid.raw, 16);
	memcpy(p + 40, &rec->dlid, 2);
	memcpy(p + 42, &rec->slid, 2);
	word = (rec->raw_traffic & 1) << 31 |
	       (be32_to_cpu(rec->flow_label) & 0xfffff) << 8 | rec->hop_limit;
	put_unaligned_be32(word, p + 44);
	p[48] = rec->traffic_class;
	p[49] = (rec->reversible & 1) << 7 | (rec->numb_path & 0x7f);
	memcpy(p + 50, &rec->pkey, 2);
	put_unaligned_be16((be16_to_cpu(rec->qos_class) & 0xfff) << 4 |
			   (rec->sl & 0xf), p + 52);
	p[54] = ib_sa_sel_val(rec->mtu_selector, rec->mtu);
	p[55] = ib_sa_sel_val(rec->rate_selector, rec->rate);
	p[56] = ib_sa_sel_val(rec->packet_life_time_selector,
			      rec->packet_life_time);
	p[57] = rec->preference;
}
EXPORT_SYMBOL(ib_sa_pack_path);

/**
 * ib_sa_unpack_path - a PathRecord from its wire form
 * @attribute: the 64 bytes of the record
 * @rec: filled in (an IB record, no flags)
 */
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec)
{
	const u8 *p = attribute;
	u32 word;
	u16 half;

	memset(rec, 0, sizeof(*rec));
	memcpy(&rec->service_id, p, 8);
	memcpy(rec->dgid.raw, p + 8, 16);
	memcpy(rec->sgid.raw, p + 24, 16);
	memcpy(&rec->dlid, p + 40, 2);
	memcpy(&rec->slid, p + 42, 2);
	word = get_unaligned_be32(p + 44);
	rec->raw_traffic = word >> 31;
	rec->flow_label = cpu_to_be32((word >> 8) & 0xfffff);
	rec->hop_limit = word & 0xff;
	rec->traffic_class = p[48];
	rec->reversible = p[49] >> 7;
	rec->numb_path = p[49] & 0x7f;
	memcpy(&rec->pkey, p + 50, 2);
	half = get_unaligned_be16(p + 52);
	rec->qos_class = cpu_to_be16(half >> 4);
	rec->sl = half & 0xf;
	rec->mtu_selector = p[54] >> 6;
	rec->mtu = p[54] & 0x3f;
	rec->rate_selector = p[55] >> 6;
	rec->rate = p[55] & 0x3f;
	rec->packet_life_time_selector = p[56] >> 6;
	rec->packet_life_time = p[56] & 0x3f;
	rec->preference = p[57];
	rec->rec_type = SA_PATH_REC_TYPE_IB;
}
EXPORT_SYMBOL(ib_sa_unpack_path);

/**
 * ib_sa_pack_mcmember - an MCMemberRecord in its wire form
 * @rec: the record
 * @attribute: 52 bytes to fill
 */
VISIBLE_IF_KUNIT void ib_sa_pack_mcmember(const struct ib_sa_mcmember_rec *rec,
					  void *attribute)
{
	u8 *p = attribute;

	memset(p, 0, IB_SA_MCMEMBER_REC_SIZE);
	memcpy(p, rec->mgid.raw, 16);
	memcpy(p + 16, rec->port_gid.raw, 16);
	memcpy(p + 32, &rec->qkey, 4);
	memcpy(p + 36, &rec->mlid, 2);
	p[38] = ib_sa_sel_val(rec->mtu_selector, rec->mtu);
	p[39] = rec->traffic_class;
	memcpy(p + 40, &rec->pkey, 2);
	p[42] = ib_sa_sel_val(rec->rate_selector, rec->rate);
	p[43] = ib_sa_sel_val(rec->packet_life_time_selector,
			      rec->packet_life_time);
	put_unaligned_be32((rec->sl & 0xf) << 28 |
			   (be32_to_cpu(rec->flow_label) & 0xfffff) << 8 |
			   rec->hop_limit, p + 44);
	p[48] = (rec->scope & 0xf) << 4 | (rec->join_state & 0xf);
	p[49] = (rec->proxy_join & 1) << 7;
}
EXPORT_SYMBOL_IF_KUNIT(ib_sa_pack_mcmember);

/**
 * ib_sa_unpack_mcmember - an MCMemberRecord from its wire form
 * @attribute: the 52 bytes of the record
 * @rec: filled in
 */
VISIBLE_IF_KUNIT void ib_sa_unpack_mcmember(const void *attribute,
					    struct ib_sa_mcmember_rec *rec)
{
	const u8 *p = attribute;
	u32 word;

	memset(rec, 0, sizeof(*rec));
	memcpy(rec->mgid.raw, p, 16);
	memcpy(rec->port_gid.raw, p + 16, 16);
	memcpy(&rec->qkey, p + 32, 4);
	memcpy(&rec->mlid, p + 36, 2);
	rec->mtu_selector = p[38] >> 6;
	rec->mtu = p[38] & 0x3f;
	rec->traffic_class = p[39];
	memcpy(&rec->pkey, p + 40, 2);
	rec->rate_selector = p[42] >> 6;
	rec->rate = p[42] & 0x3f;
	rec->packet_life_time_selector = p[43] >> 6;
	rec->packet_life_time = p[43] & 0x3f;
	word = get_unaligned_be32(p + 44);
	rec->sl = word >> 28;
	rec->flow_label = cpu_to_be32((word >> 8) & 0xfffff);
	rec->hop_limit = word & 0xff;
	rec->scope = p[48] >> 4;
	rec->join_state = p[48] & 0xf;
	rec->proxy_join = p[49] >> 7;
}
EXPORT_SYMBOL_IF_KUNIT(ib_sa_unpack_mcmember);

/**
 * ib_sa_pack_service - a ServiceRecord in its wire form
 * @rec: the record
 * @attribute: 176 bytes to fill
 */
VISIBLE_IF_KUNIT void ib_sa_pack_service(const struct ib_sa_service_rec *rec,
					 void *attribute)
{
	u8 *p = attribute;
	int i;

	memset(p, 0, IB_SA_SERVICE_REC_SIZE);
	put_unaligned_be64(rec->id, p);
	memcpy(p + 8, rec->gid.raw, 16);
	memcpy(p + 24, &rec->pkey, 2);
	put_unaligned_be32(rec->lease, p + 28);
	memcpy(p + 32, rec->key, 16);
	memcpy(p + 48, rec->name, 64);
	memcpy(p + 112, rec->data8, 16);
	for (i = 0; i < 8; i++)
		put_unaligned_be16(rec->data16[i], p + 128 + 2 * i);
	for (i = 0; i < 4; i++)
		put_unaligned_be32(rec->data32[i], p + 144 + 4 * i);
	for (i = 0; i < 2; i++)
		put_unaligned_be64(rec->data64[i], p + 160 + 8 * i);
}
EXPORT_SYMBOL_IF_KUNIT(ib_sa_pack_service);

/**
 * ib_sa_unpack_service - a ServiceRecord from its wire form
 * @attribute: the 176 bytes of the record
 * @rec: filled in
 */
VISIBLE_IF_KUNIT void ib_sa_unpack_service(const void *attribute,
					   struct ib_sa_service_rec *rec)
{
	const u8 *p = attribute;
	int i;

	memset(rec, 0, sizeof(*rec));
	rec->id = get_unaligned_be64(p);
	memcpy(rec->gid.raw, p + 8, 16);
	memcpy(&rec->pkey, p + 24, 2);
	rec->lease = get_unaligned_be32(p + 28);
	memcpy(rec->key, p + 32, 16);
	memcpy(rec->name, p + 48, 64);
	memcpy(rec->data8, p + 112, 16);
	for (i = 0; i < 8; i++)
		rec->data16[i] = get_unaligned_be16(p + 128 + 2 * i);
	for (i = 0; i < 4; i++)
		rec->data32[i] = get_unaligned_be32(p + 144 + 4 * i);
	for (i = 0; i < 2; i++)
		rec->data64[i] = get_unaligned_be64(p + 160 + 8 * i);
}
EXPORT_SYMBOL_IF_KUNIT(ib_sa_unpack_service);

/* ------------------------------------------------------------------ */
/* Answers                                                             */
/* ------------------------------------------------------------------ */

/* the method of the answer to a request (a Set is answered by GetResp) */
static u8 ib_sa_resp_method(u8 method)
{
	if (method == IB_MGMT_METHOD_SET)
		method = IB_MGMT_METHOD_GET;
	return method | IB_MGMT_METHOD_RESP;
}

/**
 * ib_sa_check_resp - check an answer of the SA against its request
 * @req: the request
 * @recv_wc: the answer, all its segments
 * @rec_size: wire size of the record asked for
 * @resp: filled in with where the records are
 *
 * The answer must be an SA MAD of class version 2 with the method that
 * answers the request and the same attribute; its segments must hold the
 * data its length claims.  A GetTableResp holds as many records as fit
 * its data at AttributeOffset * 8 bytes apart, which must be at least
 * @rec_size; any other answer one record.
 *
 * Return: 0 with @resp filled in; -EINVAL if the SA's status is not 0;
 * -ENOENT for a table without records; -EIO for a malformed answer.
 */
VISIBLE_IF_KUNIT int ib_sa_check_resp(const struct ib_sa_mad *req,
				      struct ib_mad_recv_wc *recv_wc,
				      size_t rec_size, struct ib_sa_resp *resp)
{
	const struct ib_mad_recv_buf *seg;
	const struct ib_sa_mad *mad;
	size_t data_len, room = 0, stride;
	u8 method;

	if (!recv_wc->wc || recv_wc->wc->status != IB_WC_SUCCESS ||
	    !recv_wc->recv_buf.mad || !recv_wc->rmpp_list.next ||
	    recv_wc->mad_seg_size != IB_MGMT_MAD_SIZE ||
	    recv_wc->mad_len < IB_MGMT_SA_HDR)
		return -EIO;
	mad = (const struct ib_sa_mad *)recv_wc->recv_buf.mad;
	method = ib_sa_resp_method(req->mad_hdr.method);
	if (mad->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    mad->mad_hdr.mgmt_class != IB_MGMT_CLASS_SUBN_ADM ||
	    mad->mad_hdr.class_version != IB_SA_CLASS_VERSION ||
	    mad->mad_hdr.method != method ||
	    mad->mad_hdr.attr_id != req->mad_hdr.attr_id ||
	    mad->mad_hdr.tid != req->mad_hdr.tid)
		return -EIO;
	if (mad->mad_hdr.status)
		return -EINVAL;

	data_len = recv_wc->mad_len - IB_MGMT_SA_HDR;
	list_for_each_entry(seg, &recv_wc->rmpp_list, list) {
		if (!seg->mad)
			return -EIO;
		room += IB_MGMT_SA_DATA;
		if (room >= data_len)
			break;
	}
	if (room < data_len)
		return -EIO;

	if (method != IB_SA_METHOD_GET_TABLE_RESP) {
		if (data_len < rec_size)
			return -EIO;
		resp->num_recs = 1;
		resp->stride = rec_size;
	} else {
		if (!data_len)
			return -ENOENT;
		stride = (size_t)be16_to_cpu(mad->sa_hdr.attr_offset) * 8;
		if (stride < rec_size || data_len < rec_size)
			return -EIO;
		/* the last record needs only its own bytes, not the stride */
		resp->num_recs = min_t(size_t, (data_len - rec_size) / stride + 1,
				       INT_MAX);
		resp->stride = stride;
	}
	resp->recv_wc = recv_wc;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ib_sa_check_resp);

/**
 * ib_sa_resp_record - copy a record out of a checked answer
 * @resp: from ib_sa_check_resp()
 * @i: the record, below @resp->num_recs
 * @buf: where to copy it
 * @len: its wire size (at most the rec_size of the check)
 *
 * A record may straddle two RMPP segments.
 */
VISIBLE_IF_KUNIT void ib_sa_resp_record(const struct ib_sa_resp *resp, int i,
					void *buf, size_t len)
{
	struct ib_mad_recv_wc *recv_wc = resp->recv_wc;
	const struct ib_mad_recv_buf *seg;
	size_t off = (size_t)i * resp->stride, n;
	u8 *dst = buf;

	seg = list_first_entry(&recv_wc->rmpp_list, struct ib_mad_recv_buf,
			       list);
	while (off >= IB_MGMT_SA_DATA) {
		seg = list_next_entry(seg, list);
		off -= IB_MGMT_SA_DATA;
	}
	while (len) {
		n = min_t(size_t, len, IB_MGMT_SA_DATA - off);
		memcpy(dst, (const u8 *)seg->mad + IB_MGMT_SA_HDR + off, n);
		dst += n;
		len -= n;
		off = 0;
		if (len)
			seg = list_next_entry(seg, list);
	}
}
EXPORT_SYMBOL_IF_KUNIT(ib_sa_resp_record);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * ib_sa_query_count - queries in flight, for the suites
 *
 * Return: how many queries have not ended yet.
 */
unsigned int ib_sa_query_count(void)
{
	unsigned long index, flags;
	unsigned int n = 0;
	void *entry;

	xa_lock_irqsave(&ib_sa_queries, flags);
	xa_for_each(&ib_sa_queries, index, entry)
		n++;
	xa_unlock_irqrestore(&ib_sa_queries, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ib_sa_query_count);
#endif

/* ------------------------------------------------------------------ */
/* Clients                                                             */
/* ------------------------------------------------------------------ */

/**
 * ib_sa_register_client - make an SA client usable
 * @client: the client, usually static in the user's module
 */
void ib_sa_register_client(struct ib_sa_client *client)
{
	atomic_set(&client->users, 1);
	init_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_register_client);

static void ib_sa_client_put(struct ib_sa_client *client)
{
	if (atomic_dec_and_test(&client->users))
		complete(&client->comp);
}

/**
 * ib_sa_unregister_client - wait for a client's queries to end
 * @client: a registered client
 *
 * Returns once every query the client started has called back; the
 * client must start no more.
 *
 * Context: process context; sleeps.
 */
void ib_sa_unregister_client(struct ib_sa_client *client)
{
	ib_sa_client_put(client);
	wait_for_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_unregister_client);

/* ------------------------------------------------------------------ */
/* The SM's address                                                    */
/* ------------------------------------------------------------------ */

static void ib_sa_sm_ah_free_work(struct work_struct *work)
{
	struct ib_sa_sm_ah *sm_ah = container_of(work, struct ib_sa_sm_ah,
						 free_work);

	rdma_destroy_ah(sm_ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
	kfree(sm_ah);
}

static void ib_sa_sm_ah_release(struct kref *ref)
{
	struct ib_sa_sm_ah *sm_ah = container_of(ref, struct ib_sa_sm_ah, ref);

	queue_work(ib_sa_wq, &sm_ah->free_work);
}

static void ib_sa_sm_ah_put(struct ib_sa_sm_ah *sm_ah)
{
	if (sm_ah)
		kref_put(&sm_ah->ref, ib_sa_sm_ah_release);
}

/* Replace a port's SM address; NULL forgets it. */
static void ib_sa_set_sm_ah(struct ib_sa_port *port, struct ib_sa_sm_ah *new)
{
	struct ib_sa_sm_ah *old;
	unsigned long flags;

	spin_lock_irqsave(&port->ah_lock, flags);
	old = port->sm_ah;
	port->sm_ah = new;
	spin_unlock_irqrestore(&port->ah_lock, flags);
	ib_sa_sm_ah_put(old);
}

/* The SM's address from the port's attributes; NULL if it has none. */
static struct ib_sa_sm_ah *ib_sa_make_sm_ah(struct ib_sa_port *port)
{
	struct ib_device *device = port->agent->device;
	struct rdma_ah_attr ah_attr = {};
	struct ib_port_attr attr = {};
	struct ib_sa_sm_ah *sm_ah;

	if (ib_query_port(device, port->port_num, &attr))
		return NULL;
	/* no SM yet (LID 0), or nonsense: queries get -EAGAIN */
	if (!attr.sm_lid || attr.sm_lid >= 0xc000)
		return NULL;
	sm_ah = kzalloc(sizeof(*sm_ah), GFP_KERNEL);
	if (!sm_ah)
		return NULL;
	kref_init(&sm_ah->ref);
	INIT_WORK(&sm_ah->free_work, ib_sa_sm_ah_free_work);
	if (ib_find_pkey(device, port->port_num, IB_DEFAULT_PKEY_FULL,
			 &sm_ah->pkey_index)) {
		dev_warn_ratelimited(&device->dev,
				     "SA: port %u has no default P_Key, using index 0\n",
				     port->port_num);
		sm_ah->pkey_index = 0;
	}

	ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	ah_attr.dlid = attr.sm_lid;
	ah_attr.sl = attr.sm_sl;
	ah_attr.port_num = port->port_num;
	if (ib_port_immutable_read(device, port->port_num)->core_cap_flags &
	    RDMA_CORE_CAP_IB_GRH_REQUIRED) {
		ah_attr.ah_flags = IB_AH_GRH;
		put_unaligned_be64(attr.subnet_prefix, ah_attr.grh.dgid.raw);
		put_unaligned_be64(IB_SA_WELL_KNOWN_GUID,
				   ah_attr.grh.dgid.raw + 8);
		ah_attr.grh.hop_limit = 1;
	}
	sm_ah->ah = rdma_create_ah(port->agent->qp->pd, &ah_attr,
				   RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(sm_ah->ah)) {
		dev_warn_ratelimited(&device->dev,
				     "SA: no address handle for SM LID 0x%x on port %u: %ld\n",
				     attr.sm_lid, port->port_num,
				     PTR_ERR(sm_ah->ah));
		kfree(sm_ah);
		return NULL;
	}
	return sm_ah;
}

static void ib_sa_update_task(struct work_struct *work)
{
	struct ib_sa_port *port = container_of(work, struct ib_sa_port,
					       update_task);
	bool fetch;

	ib_sa_set_sm_ah(port, ib_sa_make_sm_ah(port));

	spin_lock_irq(&port->cpi_lock);
	fetch = port->cpi_wanted && !port->cpi_dying;
	port->cpi_wanted = false;
	spin_unlock_irq(&port->cpi_lock);
	if (fetch)
		mod_delayed_work(ib_sa_wq, &port->cpi_work, 0);
}

static void ib_sa_event(struct ib_event_handler *handler,
			struct ib_event *event)
{
	struct ib_sa_device *sa_dev = container_of(handler, struct ib_sa_device,
						   event_handler);
	u32 port_num = event->element.port_num;
	struct ib_sa_port *port;
	bool refetch = false;

	switch (event->event) {
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PORT_ACTIVE:
		refetch = true;
		fallthrough;
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PKEY_CHANGE:
		break;
	default:
		return;
	}
	if (port_num < 1 || port_num > sa_dev->num_ports)
		return;
	port = &sa_dev->port[port_num - 1];
	if (!port->agent)
		return;

	/* until rebuilt, queries wait for the new SM rather than the old */
	ib_sa_set_sm_ah(port, NULL);
	if (refetch) {
		spin_lock_irq(&port->cpi_lock);
		port->cpi_valid = false;
		port->cpi_gen++;
		port->cpi_retries = 0;
		port->cpi_wanted = true;
		spin_unlock_irq(&port->cpi_lock);
	}
	queue_work(ib_sa_wq, &port->update_task);
}

/* ------------------------------------------------------------------ */
/* Queries                                                             */
/* ------------------------------------------------------------------ */

static struct ib_sa_port *ib_sa_get_port(struct ib_device *device,
					 u32 port_num)
{
	struct ib_sa_device *sa_dev = ib_get_client_data(device, &sa_client);

	if (!sa_dev || port_num < 1 || port_num > sa_dev->num_ports ||
	    !sa_dev->port[port_num - 1].agent)
		return NULL;
	return &sa_dev->port[port_num - 1];
}

/* Free what ib_sa_query_init() took, for a query never posted. */
static void ib_sa_query_unmake(struct ib_sa_query *query)
{
	ib_free_send_mad(query->mad_buf);
	ib_sa_sm_ah_put(query->sm_ah);
}

/*
 * Prepare a query of @kind: the SM's address, a MAD with the SA header
 * filled in.  -EAGAIN while the port has no SM address.
 */
static int ib_sa_query_init(struct ib_sa_query *query,
			    const struct ib_sa_query_kind *kind,
			    struct ib_sa_port *port, u8 method,
			    ib_sa_comp_mask comp_mask, gfp_t gfp_mask)
{
	struct ib_mad_agent *agent = port->agent;
	struct ib_sa_mad *mad;
	unsigned long flags;

	spin_lock_irqsave(&port->ah_lock, flags);
	query->sm_ah = port->sm_ah;
	if (query->sm_ah)
		kref_get(&query->sm_ah->ref);
	spin_unlock_irqrestore(&port->ah_lock, flags);
	if (!query->sm_ah)
		return -EAGAIN;

	query->mad_buf = ib_create_send_mad(agent, 1, query->sm_ah->pkey_index,
					    0, IB_MGMT_SA_HDR, IB_MGMT_SA_DATA,
					    gfp_mask, IB_MGMT_BASE_VERSION);
	if (IS_ERR(query->mad_buf)) {
		int ret = PTR_ERR(query->mad_buf);

		ib_sa_sm_ah_put(query->sm_ah);
		return ret;
	}
	query->mad_buf->ah = query->sm_ah->ah;
	query->mad_buf->context[0] = query;
	query->port = port;
	query->kind = kind;
	query->flags = 0;

	mad = query->mad_buf->mad;
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
	mad->mad_hdr.class_version = IB_SA_CLASS_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.attr_id = cpu_to_be16(kind->attr_id);
	mad->mad_hdr.tid = cpu_to_be64((u64)agent->hi_tid << 32 |
				       (u32)atomic_inc_return(&ib_sa_tid));
	mad->sa_hdr.comp_mask = comp_mask;
	return 0;
}

/* Spread a timeout over the sends of the request, as the MAD layer does. */
static void ib_sa_set_timeout(struct ib_mad_send_buf *mad_buf,
			      unsigned long timeout_ms)
{
	timeout_ms = min(timeout_ms, IB_SA_MAX_TIMEOUT_MS);
	if (timeout_ms >= IB_SA_QUERY_TRIES) {
		mad_buf->timeout_ms = timeout_ms / IB_SA_QUERY_TRIES;
		mad_buf->retries = IB_SA_QUERY_TRIES - 1;
	} else {
		mad_buf->timeout_ms = 1;
		mad_buf->retries = timeout_ms ? timeout_ms - 1 : 0;
	}
}

/*
 * Give a prepared query an id and post it.  From here on it ends with
 * exactly one callback.  Returns the id, or an errno with what
 * ib_sa_query_init() took freed and the typed query still the caller's.
 */
static int ib_sa_query_send(struct ib_sa_query *query,
			    struct ib_sa_client *client,
			    unsigned long timeout_ms, gfp_t gfp_mask,
			    struct ib_sa_query **out)
{
	unsigned long flags;
	u32 id;
	int ret;

	ib_sa_set_timeout(query->mad_buf, timeout_ms);
	xa_lock_irqsave(&ib_sa_queries, flags);
	ret = __xa_alloc_cyclic(&ib_sa_queries, &id, query, xa_limit_31b,
				&ib_sa_next_id, gfp_mask);
	xa_unlock_irqrestore(&ib_sa_queries, flags);
	if (ret < 0)
		goto err_unmake;
	query->id = id;
	query->client = client;
	if (client)
		atomic_inc(&client->users);
	if (out)
		*out = query;

	/* the query may end and be freed before this returns */
	ret = ib_post_send_mad(query->mad_buf, NULL);
	if (ret) {
		xa_lock_irqsave(&ib_sa_queries, flags);
		__xa_erase(&ib_sa_queries, id);
		xa_unlock_irqrestore(&ib_sa_queries, flags);
		if (client)
			ib_sa_client_put(client);
		if (out)
			*out = NULL;
		goto err_unmake;
	}
	return id;

err_unmake:
	ib_sa_query_unmake(query);
	return ret;
}

/* Tell the query's user, once whatever happens. */
static void ib_sa_query_finish(struct ib_sa_query *query, int status,
			       const struct ib_sa_resp *resp)
{
	if (test_and_set_bit(IB_SA_QUERY_DONE, &query->flags))
		return;
	query->kind->callback(query, status, resp);
}

static void ib_sa_recv_handler(struct ib_mad_agent *agent,
			       struct ib_mad_send_buf *send_buf,
			       struct ib_mad_recv_wc *recv_wc)
{
	struct ib_sa_query *query;
	struct ib_sa_resp resp;
	int status;

	/* requests are not ours to answer; only responses have a send */
	if (send_buf) {
		query = send_buf->context[0];
		status = ib_sa_check_resp(send_buf->mad, recv_wc,
					  query->kind->rec_size, &resp);
		ib_sa_query_finish(query, status, status ? NULL : &resp);
	}
	ib_free_recv_mad(recv_wc);
}

static void ib_sa_send_handler(struct ib_mad_agent *agent,
			       struct ib_mad_send_wc *send_wc)
{
	struct ib_sa_query *query = send_wc->send_buf->context[0];
	struct ib_sa_client *client = query->client;
	unsigned long flags;
	int status;

	switch (send_wc->status) {
	case IB_WC_SUCCESS:
		/* the answer came first: the user has it */
		status = -EIO;
		break;
	case IB_WC_RESP_TIMEOUT_ERR:
		status = -ETIMEDOUT;
		break;
	case IB_WC_WR_FLUSH_ERR:
		status = -EINTR;
		break;
	default:
		status = -EIO;
		break;
	}
	ib_sa_query_finish(query, status, NULL);

	xa_lock_irqsave(&ib_sa_queries, flags);
	__xa_erase(&ib_sa_queries, query->id);
	xa_unlock_irqrestore(&ib_sa_queries, flags);

	ib_sa_query_unmake(query);
	query->kind->release(query);
	if (client)
		ib_sa_client_put(client);
}

/**
 * ib_sa_cancel_query - cancel a query in flight
 * @id: the id the query was started with
 * @query: the query it handed back
 *
 * If the query has not called back yet, it soon does, with -EINTR.  A
 * query that already ended (its id may be another's by now) is left
 * alone.
 *
 * Context: any.
 */
void ib_sa_cancel_query(int id, struct ib_sa_query *query)
{
	unsigned long flags;

	xa_lock_irqsave(&ib_sa_queries, flags);
	if (id >= 0 && query && xa_load(&ib_sa_queries, id) == query)
		ib_cancel_mad(query->mad_buf);
	xa_unlock_irqrestore(&ib_sa_queries, flags);
}
EXPORT_SYMBOL(ib_sa_cancel_query);

/* --- PathRecord --- */

struct ib_sa_path_query {
	struct ib_sa_query	sa_query;
	void (*callback)(int status, struct sa_path_rec *resp, int num_prs,
			 void *context);
	void			*context;
	int			max_recs;
};

static void ib_sa_path_done(struct ib_sa_query *sa_query, int status,
			    const struct ib_sa_resp *resp)
{
	struct ib_sa_path_query *query =
		container_of(sa_query, struct ib_sa_path_query, sa_query);
	u8 wire[IB_SA_PATH_REC_SIZE];
	struct sa_path_rec rec, *recs;
	int i, n;

	if (status) {
		query->callback(status, NULL, 0, query->context);
		return;
	}
	n = min(resp->num_recs, query->max_recs);
	if (n == 1) {
		ib_sa_resp_record(resp, 0, wire, sizeof(wire));
		ib_sa_unpack_path(wire, &rec);
		query->callback(0, &rec, 1, query->context);
		return;
	}
	recs = kcalloc(n, sizeof(*recs), GFP_KERNEL);
	if (!recs) {
		query->callback(-ENOMEM, NULL, 0, query->context);
		return;
	}
	for (i = 0; i < n; i++) {
		ib_sa_resp_record(resp, i, wire, sizeof(wire));
		ib_sa_unpack_path(wire, &recs[i]);
	}
	query->callback(0, recs, n, query->context);
	kfree(recs);
}

static void ib_sa_path_release(struct ib_sa_query *sa_query)
{
	kfree(container_of(sa_query, struct ib_sa_path_query, sa_query));
}

static const struct ib_sa_query_kind ib_sa_path_kind = {
	.attr_id	= IB_SA_ATTR_PATH_REC,
	.rec_size	= IB_SA_PATH_REC_SIZE,
	.callback	= ib_sa_path_done,
	.release	= ib_sa_path_release,
};

/**
 * ib_sa_path_rec_get - ask the SA for a path
 * @client: the user's SA client
 * @device: the device
 * @port_num: the port to ask through
 * @rec: the path's known fields
 * @comp_mask: which fields of @rec count (IB_SA_PATH_REC_*)
 * @timeout_ms: how long to wait for the answer
 * @gfp_mask: allocation flags (atomic ones in atomic context)
 * @callback: called once with the result: status 0 with @num_prs
 *	records at @resp (valid only during the call), or a negative errno
 *	with no record (see the top of sa_query.c for which)
 * @context: for @callback
 * @query: set to the query, the handle for ib_sa_cancel_query()
 *
 * A Get, or a GetTable when @comp_mask has IB_SA_PATH_REC_NUMB_PATH and
 * @rec->numb_path is above 1; then up to numb_path records are handed
 * over.  The callback may run before this function returns.
 *
 * Return: the query's id (>= 0), or -EINVAL for bad arguments, -ENODEV
 * for a port without SA, -EAGAIN while the SM is unknown, -ENOMEM, or
 * the MAD layer's error; the callback is then not called.
 */
int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					int num_prs, void *context),
		       void *context, struct ib_sa_query **query)
{
	struct ib_sa_path_query *q;
	struct ib_sa_port *port;
	struct ib_sa_mad *mad;
	bool table;
	int ret;

	if (!rec || !callback || !query)
		return -EINVAL;
	port = ib_sa_get_port(device, port_num);
	if (!port)
		return -ENODEV;
	q = kzalloc(sizeof(*q), gfp_mask);
	if (!q)
		return -ENOMEM;
	table = (comp_mask & IB_SA_PATH_REC_NUMB_PATH) && rec->numb_path > 1;
	ret = ib_sa_query_init(&q->sa_query, &ib_sa_path_kind, port,
			       table ? IB_SA_METHOD_GET_TABLE :
				       IB_MGMT_METHOD_GET,
			       comp_mask, gfp_mask);
	if (ret)
		goto err_free;
	q->callback = callback;
	q->context = context;
	q->max_recs = table ? min_t(int, rec->numb_path, 0x7f) : 1;
	mad = q->sa_query.mad_buf->mad;
	ib_sa_pack_path(rec, mad->data);

	ret = ib_sa_query_send(&q->sa_query, client, timeout_ms, gfp_mask,
			       query);
	if (ret < 0)
		goto err_free;
	return ret;

err_free:
	kfree(q);
	return ret;
}
EXPORT_SYMBOL(ib_sa_path_rec_get);

/* --- MCMemberRecord --- */

struct ib_sa_mcmember_query {
	struct ib_sa_query	sa_query;
	void (*callback)(int status, struct ib_sa_mcmember_rec *resp,
			 void *context);
	void			*context;
};

static void ib_sa_mcmember_done(struct ib_sa_query *sa_query, int status,
				const struct ib_sa_resp *resp)
{
	struct ib_sa_mcmember_query *query =
		container_of(sa_query, struct ib_sa_mcmember_query, sa_query);
	u8 wire[IB_SA_MCMEMBER_REC_SIZE];
	struct ib_sa_mcmember_rec rec;

	if (status) {
		query->callback(status, NULL, query->context);
		return;
	}
	ib_sa_resp_record(resp, 0, wire, sizeof(wire));
	ib_sa_unpack_mcmember(wire, &rec);
	query->callback(0, &rec, query->context);
}

static void ib_sa_mcmember_release(struct ib_sa_query *sa_query)
{
	kfree(container_of(sa_query, struct ib_sa_mcmember_query, sa_query));
}

static const struct ib_sa_query_kind ib_sa_mcmember_kind = {
	.attr_id	= IB_SA_ATTR_MC_MEMBER_REC,
	.rec_size	= IB_SA_MCMEMBER_REC_SIZE,
	.callback	= ib_sa_mcmember_done,
	.release	= ib_sa_mcmember_release,
};

/**
 * ib_sa_mcmember_rec_query - join, leave or look up a multicast group
 * @client: the caller's SA client
 * @device: the device
 * @port_num: the port
 * @method: IB_MGMT_METHOD_SET (join), IB_SA_METHOD_DELETE (leave the
 *	JoinState bits of @rec) or IB_MGMT_METHOD_GET
 * @rec: the record
 * @comp_mask: which fields of @rec count (IB_SA_MCMEMBER_REC_*)
 * @timeout_ms: how long to wait for the answer
 * @gfp_mask: allocation flags
 * @callback: called once: status 0 and the SA's record, or an errno and
 *	NULL
 * @context: for @callback
 * @query: set to the query, for ib_sa_cancel_query()
 *
 * For multicast.c only; kernel users join through ib_sa_join_multicast().
 *
 * Return: the query's id, or an errno as ib_sa_path_rec_get().
 */
int ib_sa_mcmember_rec_query(struct ib_sa_client *client,
			     struct ib_device *device, u32 port_num,
			     u8 method, struct ib_sa_mcmember_rec *rec,
			     ib_sa_comp_mask comp_mask,
			     unsigned long timeout_ms, gfp_t gfp_mask,
			     void (*callback)(int status,
					      struct ib_sa_mcmember_rec *resp,
					      void *context),
			     void *context, struct ib_sa_query **query)
{
	struct ib_sa_mcmember_query *q;
	struct ib_sa_port *port;
	struct ib_sa_mad *mad;
	int ret;

	if (!rec || !callback || !query ||
	    (method != IB_MGMT_METHOD_SET && method != IB_SA_METHOD_DELETE &&
	     method != IB_MGMT_METHOD_GET))
		return -EINVAL;
	port = ib_sa_get_port(device, port_num);
	if (!port)
		return -ENODEV;
	q = kzalloc(sizeof(*q), gfp_mask);
	if (!q)
		return -ENOMEM;
	ret = ib_sa_query_init(&q->sa_query, &ib_sa_mcmember_kind, port, method,
			       comp_mask, gfp_mask);
	if (ret)
		goto err_free;
	q->callback = callback;
	q->context = context;
	mad = q->sa_query.mad_buf->mad;
	ib_sa_pack_mcmember(rec, mad->data);

	ret = ib_sa_query_send(&q->sa_query, client, timeout_ms, gfp_mask,
			       query);
	if (ret < 0)
		goto err_free;
	return ret;

err_free:
	kfree(q);
	return ret;
}

/* --- ServiceRecord --- */

struct ib_sa_service_query {
	struct ib_sa_query	sa_query;
	void (*callback)(int status, struct ib_sa_service_rec *resp,
			 void *context);
	void			*context;
};

static void ib_sa_service_done(struct ib_sa_query *sa_query, int status,
			       const struct ib_sa_resp *resp)
{
	struct ib_sa_service_query *query =
		container_of(sa_query, struct ib_sa_service_query, sa_query);
	struct ib_sa_service_rec *rec;
	u8 *wire;

	if (status) {
		query->callback(status, NULL, query->context);
		return;
	}
	/* about 400 bytes together: not on the stack */
	wire = kmalloc(IB_SA_SERVICE_REC_SIZE, GFP_KERNEL);
	rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	if (!wire || !rec) {
		query->callback(-ENOMEM, NULL, query->context);
		goto out;
	}
	ib_sa_resp_record(resp, 0, wire, IB_SA_SERVICE_REC_SIZE);
	ib_sa_unpack_service(wire, rec);
	query->callback(0, rec, query->context);
out:
	kfree(rec);
	kfree(wire);
}

static void ib_sa_service_release(struct ib_sa_query *sa_query)
{
	kfree(container_of(sa_query, struct ib_sa_service_query, sa_query));
}

static const struct ib_sa_query_kind ib_sa_service_kind = {
	.attr_id	= IB_SA_ATTR_SERVICE_REC,
	.rec_size	= IB_SA_SERVICE_REC_SIZE,
	.callback	= ib_sa_service_done,
	.release	= ib_sa_service_release,
};

/**
 * ib_sa_service_rec_query - register, unregister or look up a service
 * @client: the user's SA client
 * @device: the device
 * @port_num: the port
 * @method: IB_MGMT_METHOD_GET, IB_SA_METHOD_GET_TABLE (the first record
 *	of the table is handed over), IB_MGMT_METHOD_SET (register) or
 *	IB_SA_METHOD_DELETE (unregister)
 * @rec: the record
 * @comp_mask: which fields of @rec count (IB_SA_SERVICE_REC_*)
 * @timeout_ms: how long to wait for the answer
 * @gfp_mask: allocation flags
 * @callback: called once: status 0 and the SA's record (valid during the
 *	call), or an errno and NULL
 * @context: for @callback
 * @sa_query: set to the query, for ib_sa_cancel_query()
 *
 * Return: the query's id, or an errno as ib_sa_path_rec_get().
 */
int ib_sa_service_rec_query(struct ib_sa_client *client,
			    struct ib_device *device, u32 port_num, u8 method,
			    struct ib_sa_service_rec *rec,
			    ib_sa_comp_mask comp_mask,
			    unsigned long timeout_ms, gfp_t gfp_mask,
			    void (*callback)(int status,
					     struct ib_sa_service_rec *resp,
					     void *context),
			    void *context, struct ib_sa_query **sa_query)
{
	struct ib_sa_service_query *q;
	struct ib_sa_port *port;
	struct ib_sa_mad *mad;
	int ret;

	if (!rec || !callback || !sa_query ||
	    (method != IB_MGMT_METHOD_GET && method != IB_SA_METHOD_GET_TABLE &&
	     method != IB_MGMT_METHOD_SET && method != IB_SA_METHOD_DELETE))
		return -EINVAL;
	port = ib_sa_get_port(device, port_num);
	if (!port)
		return -ENODEV;
	q = kzalloc(sizeof(*q), gfp_mask);
	if (!q)
		return -ENOMEM;
	ret = ib_sa_query_init(&q->sa_query, &ib_sa_service_kind, port, method,
			       comp_mask, gfp_mask);
	if (ret)
		goto err_free;
	q->callback = callback;
	q->context = context;
	mad = q->sa_query.mad_buf->mad;
	ib_sa_pack_service(rec, mad->data);

	ret = ib_sa_query_send(&q->sa_query, client, timeout_ms, gfp_mask,
			       sa_query);
	if (ret < 0)
		goto err_free;
	return ret;

err_free:
	kfree(q);
	return ret;
}
EXPORT_SYMBOL(ib_sa_service_rec_query);

/* --- ClassPortInfo --- */

struct ib_sa_cpi_query {
	struct ib_sa_query	sa_query;
	unsigned int		gen;
};

static void ib_sa_cpi_store(struct ib_sa_port *port, unsigned int gen,
			    int status, const struct ib_class_port_info *cpi)
{
	unsigned long flags, delay = 0;
	bool again = false;

	spin_lock_irqsave(&port->cpi_lock, flags);
	port->cpi_busy = false;
	if (gen != port->cpi_gen) {
		/* an event came meanwhile: ask the SA now there */
		again = true;
	} else if (!status) {
		port->cpi = *cpi;
		port->cpi_valid = true;
	} else if (port->cpi_retries++ < IB_SA_CPI_RETRIES) {
		again = true;
		delay = msecs_to_jiffies(IB_SA_CPI_RETRY_MS);
	}
	if (again && !port->cpi_dying)
		mod_delayed_work(ib_sa_wq, &port->cpi_work, delay);
	spin_unlock_irqrestore(&port->cpi_lock, flags);
}

static void ib_sa_cpi_done(struct ib_sa_query *sa_query, int status,
			   const struct ib_sa_resp *resp)
{
	struct ib_sa_cpi_query *query =
		container_of(sa_query, struct ib_sa_cpi_query, sa_query);
	struct ib_class_port_info cpi;

	if (!status)
		ib_sa_resp_record(resp, 0, &cpi, sizeof(cpi));
	ib_sa_cpi_store(sa_query->port, query->gen, status, &cpi);
}

static void ib_sa_cpi_release(struct ib_sa_query *sa_query)
{
	kfree(container_of(sa_query, struct ib_sa_cpi_query, sa_query));
}

static const struct ib_sa_query_kind ib_sa_cpi_kind = {
	.attr_id	= IB_SA_ATTR_CLASS_PORTINFO,
	.rec_size	= IB_SA_CLASS_PORT_INFO_SIZE,
	.callback	= ib_sa_cpi_done,
	.release	= ib_sa_cpi_release,
};

static void ib_sa_cpi_work(struct work_struct *work)
{
	struct ib_sa_port *port = container_of(to_delayed_work(work),
					       struct ib_sa_port, cpi_work);
	struct ib_sa_query *sa_query;
	struct ib_sa_cpi_query *q;
	unsigned int gen;
	int ret;

	spin_lock_irq(&port->cpi_lock);
	if (port->cpi_valid || port->cpi_busy || port->cpi_dying) {
		spin_unlock_irq(&port->cpi_lock);
		return;
	}
	port->cpi_busy = true;
	gen = port->cpi_gen;
	spin_unlock_irq(&port->cpi_lock);

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		ret = -ENOMEM;
		goto err;
	}
	q->gen = gen;
	ret = ib_sa_query_init(&q->sa_query, &ib_sa_cpi_kind, port,
			       IB_MGMT_METHOD_GET, 0, GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = ib_sa_query_send(&q->sa_query, NULL, IB_SA_CPI_TIMEOUT_MS,
			       GFP_KERNEL, &sa_query);
	if (ret < 0)
		goto err_free;
	return;

err_free:
	kfree(q);
err:
	ib_sa_cpi_store(port, gen, ret, NULL);
}

/**
 * ib_sa_sendonly_fullmem_support - may a port join send-only full member
 * @client: the caller's SA client
 * @device: the device
 * @port_num: the port
 *
 * Return: true if the SA's ClassPortInfo, as last fetched, has
 * IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT in its CapabilityMask2;
 * false if not or not known.
 */
bool ib_sa_sendonly_fullmem_support(struct ib_sa_client *client,
				    struct ib_device *device, u32 port_num)
{
	struct ib_sa_port *port = ib_sa_get_port(device, port_num);
	unsigned long flags;
	bool ret = false;

	if (!port)
		return false;
	spin_lock_irqsave(&port->cpi_lock, flags);
	if (port->cpi_valid)
		ret = ib_get_cpi_capmask2(&port->cpi) &
		      IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT;
	spin_unlock_irqrestore(&port->cpi_lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_sa_sendonly_fullmem_support);

/* ------------------------------------------------------------------ */
/* Address handles from records                                        */
/* ------------------------------------------------------------------ */

/* The index of @gid in one port's GID table. */
static int ib_sa_find_port_gid(struct ib_device *device, u32 port_num,
			       const union ib_gid *gid, u8 *index)
{
	int i, len = ib_port_immutable_read(device, port_num)->gid_tbl_len;
	union ib_gid entry;

	for (i = 0; i < len && i <= U8_MAX; i++) {
		if (rdma_query_gid(device, port_num, i, &entry))
			break;
		if (!memcmp(&entry, gid, sizeof(entry))) {
			*index = i;
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * ib_init_ah_attr_from_path - the address of a path's destination
 * @device: the device
 * @port_num: the local port of the path
 * @rec: the path
 * @ah_attr: filled in
 *
 * DLID, SL and static rate from the path; the source path bits are the
 * SLID's bits under the port's LMC; a GRH (DGID, flow label, hop limit,
 * traffic class, the index of the path's SGID) only when the hop limit
 * is above 1, i.e. the path leaves the subnet.
 *
 * Return: 0; -EINVAL for a bad port; -ENOENT if a GRH is needed and the
 * port does not have the path's SGID.
 */
int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr)
{
	u8 lmc, index;
	int ret;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	ret = ib_get_cached_lmc(device, port_num, &lmc);
	if (ret)
		return ret;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = RDMA_AH_ATTR_TYPE_IB;
	ah_attr->port_num = port_num;
	ah_attr->dlid = be16_to_cpu(rec->dlid);
	ah_attr->sl = rec->sl;
	ah_attr->static_rate = rec->rate;
	ah_attr->src_path_bits = be16_to_cpu(rec->slid) &
				 ((1U << min_t(u8, lmc, 7)) - 1);
	if (rec->hop_limit <= 1)
		return 0;

	ret = ib_sa_find_port_gid(device, port_num, &rec->sgid, &index);
	if (ret)
		return ret;
	ah_attr->ah_flags = IB_AH_GRH;
	ah_attr->grh.dgid = rec->dgid;
	ah_attr->grh.flow_label = be32_to_cpu(rec->flow_label);
	ah_attr->grh.hop_limit = rec->hop_limit;
	ah_attr->grh.traffic_class = rec->traffic_class;
	ah_attr->grh.sgid_index = index;
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_path);

/**
 * ib_init_ah_from_mcmember - the address of a multicast group
 * @device: the device
 * @port_num: the member port
 * @rec: the group's record, as the SA answered the join
 * @ah_attr: filled in: the MLID, SL and rate of the group and a GRH to
 *	the MGID from the port's GID (which must be in the port's table)
 *
 * Return: 0, -EINVAL for a bad port, -ENOENT if the port does not have
 * the record's port GID.
 */
int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     struct ib_sa_mcmember_rec *rec,
			     struct rdma_ah_attr *ah_attr)
{
	u8 index;
	int ret;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	ret = ib_sa_find_port_gid(device, port_num, &rec->port_gid, &index);
	if (ret)
		return ret;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = RDMA_AH_ATTR_TYPE_IB;
	ah_attr->port_num = port_num;
	ah_attr->dlid = be16_to_cpu(rec->mlid);
	ah_attr->sl = rec->sl;
	ah_attr->static_rate = rec->rate;
	ah_attr->ah_flags = IB_AH_GRH;
	ah_attr->grh.dgid = rec->mgid;
	ah_attr->grh.flow_label = be32_to_cpu(rec->flow_label);
	ah_attr->grh.hop_limit = rec->hop_limit;
	ah_attr->grh.traffic_class = rec->traffic_class;
	ah_attr->grh.sgid_index = index;
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_mcmember);

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

static void ib_sa_port_stop(struct ib_sa_port *port)
{
	spin_lock_irq(&port->cpi_lock);
	port->cpi_dying = true;
	spin_unlock_irq(&port->cpi_lock);
	cancel_work_sync(&port->update_task);
	cancel_delayed_work_sync(&port->cpi_work);
	/* flushes the queries in flight: they call back with -EINTR */
	ib_unregister_mad_agent(port->agent);
	port->agent = NULL;
	ib_sa_set_sm_ah(port, NULL);
}

static int ib_sa_add_one(struct ib_device *device)
{
	struct ib_sa_device *sa_dev;
	struct ib_sa_port *port;
	u32 p, count = 0;
	int ret;

	sa_dev = kzalloc(struct_size(sa_dev, port, device->phys_port_cnt),
			 GFP_KERNEL);
	if (!sa_dev)
		return -ENOMEM;
	sa_dev->device = device;
	sa_dev->num_ports = device->phys_port_cnt;

	for (p = 1; p <= sa_dev->num_ports; p++) {
		port = &sa_dev->port[p - 1];
		port->sa_dev = sa_dev;
		port->port_num = p;
		spin_lock_init(&port->ah_lock);
		spin_lock_init(&port->cpi_lock);
		INIT_WORK(&port->update_task, ib_sa_update_task);
		INIT_DELAYED_WORK(&port->cpi_work, ib_sa_cpi_work);
		if (!(ib_port_immutable_read(device, p)->core_cap_flags &
		      RDMA_CORE_CAP_IB_SA))
			continue;
		port->agent = ib_register_mad_agent(device, p, IB_QPT_GSI,
						    NULL, IB_MGMT_RMPP_VERSION,
						    ib_sa_send_handler,
						    ib_sa_recv_handler,
						    port, 0);
		if (IS_ERR(port->agent)) {
			ret = PTR_ERR(port->agent);
			port->agent = NULL;
			/* a port without MAD QPs has no SA either */
			if (ret == -ENODEV || ret == -EPROTONOSUPPORT)
				continue;
			goto err;
		}
		count++;
	}
	if (!count) {
		ret = -EOPNOTSUPP;
		goto err;
	}
	ib_set_client_data(device, &sa_client, sa_dev);

	/* events first, so that no change between the two is missed */
	INIT_IB_EVENT_HANDLER(&sa_dev->event_handler, device, ib_sa_event);
	ib_register_event_handler(&sa_dev->event_handler);
	for (p = 1; p <= sa_dev->num_ports; p++) {
		enum ib_port_state state;

		port = &sa_dev->port[p - 1];
		if (!port->agent)
			continue;
		/* an active port may already have its SA: ask it */
		if (!ib_get_cached_port_state(device, p, &state) &&
		    state == IB_PORT_ACTIVE) {
			spin_lock_irq(&port->cpi_lock);
			port->cpi_wanted = true;
			spin_unlock_irq(&port->cpi_lock);
		}
		queue_work(ib_sa_wq, &port->update_task);
	}
	return 0;

err:
	while (p-- > 1)
		if (sa_dev->port[p - 1].agent)
			ib_unregister_mad_agent(sa_dev->port[p - 1].agent);
	kfree(sa_dev);
	return ret;
}

static void ib_sa_remove_one(struct ib_device *device, void *client_data)
{
	struct ib_sa_device *sa_dev = client_data;
	u32 p;

	ib_unregister_event_handler(&sa_dev->event_handler);
	for (p = 1; p <= sa_dev->num_ports; p++)
		if (sa_dev->port[p - 1].agent)
			ib_sa_port_stop(&sa_dev->port[p - 1]);
	/* the last AHs are destroyed there */
	flush_workqueue(ib_sa_wq);
	kfree(sa_dev);
}

static struct ib_client sa_client = {
	.name = "sa",
	.add = ib_sa_add_one,
	.remove = ib_sa_remove_one,
};

int ib_sa_init(void)
{
	int ret;

	ib_sa_wq = alloc_ordered_workqueue("ib_sa", WQ_MEM_RECLAIM);
	if (!ib_sa_wq)
		return -ENOMEM;
	ret = ib_register_client(&sa_client);
	if (ret)
		goto err_wq;
	/* registered after the SA client, so removed before it */
	ret = ib_mcast_init();
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&sa_client);
err_wq:
	destroy_workqueue(ib_sa_wq);
	return ret;
}

void ib_sa_cleanup(void)
{
	ib_mcast_cleanup();
	ib_unregister_client(&sa_client);
	destroy_workqueue(ib_sa_wq);
	WARN_ON(!xa_empty(&ib_sa_queries));
}
