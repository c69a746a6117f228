/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the files of ib_cm.ko share, and nothing else.
 *
 *   cm.c            the module, the "cm" client (devices, ports, the MAD
 *                   agents, the capability bit), identifiers: creation,
 *                   local IDs, lookups, the remote tables, listening,
 *                   destruction
 *   cm_mad.c        messages out (the transport, their completions) and
 *                   in (the work queue, dispatch by attribute), event
 *                   delivery, counters
 *   cm_connect.c    REQ, MRA, REJ, REP, RTU: making a connection
 *   cm_disconnect.c DREQ, DREP, and LAP/APR answered as not supported
 *   cm_timewait.c   the timewait state and its timer
 *   cm_sidr.c       service ID resolution, SIDR_REQ and SIDR_REP
 *   cm_qp.c         ib_cm_init_qp_attr(), ib_cm_notify(), addresses
 *   cm_msgs.c       paths and timeouts to and from the wire, REJ reasons
 *   cm_sysfs.c      the counter files in each port directory
 *
 * Locking.  Three locks, always taken in this order:
 *   - cm_id_private.lock, an identifier's state and connection fields;
 *     taken with interrupts off (ib_cm_notify() may come from a QP event);
 *   - cm.lock, the global tables: devices, listeners, the remote ID and
 *     remote QPN tables, the SIDR table, the timewait list, and the local
 *     ID xarray's changes (whose own lock nests inside);
 *   - cm_port.lock, the port's MAD agent pointer; messages are posted
 *     under it, so that no post races with the agent going away.
 * No consumer callback runs under any of them.  Callbacks run from the
 * ordered work queue cm.wq only, so there is one at a time.
 *
 * Lifetimes.  An identifier is reference counted: the consumer's
 * reference from ib_create_cm_id() (or from the REQ_RECEIVED event), one
 * per message in flight, one per event being delivered, and short ones
 * of lookups.  ib_destroy_cm_id() drops the consumer's and waits for the
 * others.  Work items waiting in cm.wq never hold one: a received MAD
 * looks its identifier up when it runs, an identifier's own event_work
 * (errors of its requests, ib_cm_notify()) takes one only when it runs,
 * and a timewait looks its identifier up by local ID; so a consumer may
 * destroy an identifier from a callback of another without waiting for
 * the queue.  A cm_device is held by each identifier, received MAD and
 * timewait of its device, and outlives the device's removal until the
 * last goes.
 */
#ifndef CM_PRIV_H
#define CM_PRIV_H

#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_cm.h>

#include "cm_msgs.h"

/* The counter groups of a port (directories of ports/<p>/) */
enum cm_counter_group {
	CM_XMIT,
	CM_XMIT_RETRIES,
	CM_RECV,
	CM_RECV_DUPLICATES,
	CM_RECV_DROPPED,
	CM_COUNTER_GROUPS
};

/* The counters of a group: attribute ID - 0x10, then all other IDs */
enum cm_counter_index {
	CM_REQ_COUNTER,
	CM_MRA_COUNTER,
	CM_REJ_COUNTER,
	CM_REP_COUNTER,
	CM_RTU_COUNTER,
	CM_DREQ_COUNTER,
	CM_DREP_COUNTER,
	CM_SIDR_REQ_COUNTER,
	CM_SIDR_REP_COUNTER,
	CM_LAP_COUNTER,
	CM_APR_COUNTER,
	CM_OTHER_COUNTER,
	CM_COUNTERS
};

struct cm_device;

/**
 * struct cm_port - the CM on one port of a device
 * @cm_dev: its device
 * @port_num: the port number
 * @lock: protects @mad_agent
 * @mad_agent: the CM agent on the port's QP1; NULL once the device is
 *	being removed (then nothing is sent any more)
 * @hi_tid: the agent's hi_tid, the upper half of the TIDs of requests
 * @active: the port has an IB CM (an agent was registered)
 * @cap_set: ib_modify_port() set IB_PORT_CM_SUP, to be cleared at removal
 * @sysfs: the counter files exist
 * @counters: by &enum cm_counter_group and &enum cm_counter_index
 */
struct cm_port {
	struct cm_device	*cm_dev;
	u32			port_num;
	spinlock_t		lock;	/* protects mad_agent */
	struct ib_mad_agent	*mad_agent;
	u32			hi_tid;
	bool			active;
	bool			cap_set;
	bool			sysfs;
	atomic_long_t		counters[CM_COUNTER_GROUPS][CM_COUNTERS];
};

/**
 * struct cm_device - the CM on one device
 * @kref: held by the client (until removal), identifiers, work items,
 *	timewaits
 * @list: in cm.devices while the device is registered (under cm.lock)
 * @ib_device: the device; not dereferenced once @going_down
 * @ca_guid: its node GUID, the Local CA GUID of our messages
 * @ack_delay: its local CA ACK delay (4.096 us * 2^value)
 * @going_down: the device is being removed (under cm.lock)
 * @num_ports: entries in @port
 * @port: by port number - 1
 */
struct cm_device {
	struct kref		kref;
	struct list_head	list;
	struct ib_device	*ib_device;
	__be64			ca_guid;
	u8			ack_delay;
	bool			going_down;
	u32			num_ports;
	struct cm_port		port[];
};

/**
 * struct cm_av - how to reach the other side's CM
 * @port: our port
 * @ah_attr: the address of the other side's port
 * @pkey_index: the P_Key to send with
 */
struct cm_av {
	struct cm_port		*port;
	struct rdma_ah_attr	ah_attr;
	u16			pkey_index;
};

/**
 * struct cm_timewait - the remote identity of a connection
 * @work: ends the timewait
 * @list: in cm.timewaits while @waiting
 * @remote_id_node: in cm.remote_ids, by @remote_id and @remote_ca_guid
 * @remote_qpn_node: in cm.remote_qpns, by @remote_qpn and @remote_ca_guid
 * @cm_dev: the device (a reference, from the start of the timewait)
 * @local_id: the local ID of the identifier
 * @remote_id: the other side's Local Communication ID
 * @remote_ca_guid: the other side's CA GUID
 * @remote_qpn: the other side's QP
 * @id_hashed: in cm.remote_ids
 * @qpn_hashed: in cm.remote_qpns
 * @waiting: the timer runs (under cm.lock)
 * @orphan: the identifier was destroyed during the timewait; its local
 *	ID stays reserved until the end (under cm.lock)
 *
 * Made with the connection (REQ sent or received) and owned by its
 * identifier until the timewait starts; from then on owned by @work,
 * which frees it.  While it exists, the other side's ID and QP cannot
 * start a second connection with us: a REQ or REP reusing them is a
 * duplicate or stale.
 */
struct cm_timewait {
	struct delayed_work	work;
	struct list_head	list;
	struct hlist_node	remote_id_node;
	struct hlist_node	remote_qpn_node;
	struct cm_device	*cm_dev;
	__be32			local_id;
	__be32			remote_id;
	__be64			remote_ca_guid;
	u32			remote_qpn;
	bool			id_hashed;
	bool			qpn_hashed;
	bool			waiting;
	bool			orphan;
};

struct cm_msg;

/**
 * struct cm_id_private - an identifier, with the CM's part of it
 * @id: what the consumer sees
 * @lock: protects the state (@id.state) and all fields below
 * @refcount: see the top of this file
 * @comp: completed when @refcount drops to 0
 * @cm_dev: the device (a reference)
 * @listen_entry: in cm.listens while listening (under cm.lock)
 * @service_mask: the bits of @id.service_id a REQ must match
 * @listen_sharecount: users of a listener from ib_cm_insert_listen()
 *	(under cm.lock)
 * @sidr_node: in cm.sidrs while answering a SIDR_REQ (under cm.lock)
 * @sidr_hashed: in cm.sidrs
 * @sidr_lid: the requester's LID, with @id.remote_id the SIDR key
 * @av: how our CM messages reach the other side
 * @path: the primary path, as seen from this side
 * @msg: the message waiting for an answer (REQ, REP, DREQ, SIDR_REQ)
 * @last: a copy of the last REP, MRA, RTU or DREP sent, resent when the
 *	message it answered comes again; NULL before
 * @last_pending: @last is an MRA not sent yet (IB_CM_MRA_FLAG_DELAY)
 * @tw: the remote identity of the connection, NULL when idle
 * @seq: bumped at every state change; a work item made for one state
 *	checks that it still holds
 * @tid: the TID of the connection's messages (REQ's, or SIDR_REQ's)
 * @remote_ca_guid: the other side's CA GUID
 * @remote_qpn: the other side's QP
 * @local_qpn: our QP
 * @sq_psn: the first PSN we send
 * @rq_psn: the first PSN the other side sends
 * @qp_type: IB_QPT_RC or IB_QPT_UC
 * @pkey_index: of the path's P_Key, for the QP
 * @path_mtu: the path MTU
 * @local_ack_timeout: the QP's local ACK timeout
 * @retry_count: the QP's retry count
 * @rnr_retry_count: the QP's RNR retry count
 * @responder_resources: RDMA reads and atomics we accept
 * @initiator_depth: RDMA reads and atomics we issue
 * @max_cm_retries: resends of our requests
 * @target_ack_delay: the other side's ACK delay
 * @srq: we use an SRQ
 * @timeout_ms: how long to wait for an answer to our requests
 * @event_work: delivers the events below, on cm.wq; holds no reference
 *	while queued (it takes one when it runs, if it still can)
 * @err_pending: @msg ended without its answer, in state @err_seq
 * @err_seq: @seq then
 * @err_status: how it ended
 * @err_counter: what it was (&enum cm_counter_index)
 * @est_pending: ib_cm_notify() established the connection, in @est_seq
 * @est_seq: @seq then
 * @destroying: ib_destroy_cm_id() started; nothing is queued any more
 */
struct cm_id_private {
	struct ib_cm_id		id;
	spinlock_t		lock;	/* protects the state and below */
	refcount_t		refcount;
	struct completion	comp;
	struct cm_device	*cm_dev;

	struct list_head	listen_entry;
	__be64			service_mask;
	int			listen_sharecount;

	struct hlist_node	sidr_node;
	bool			sidr_hashed;
	u32			sidr_lid;

	struct cm_av		av;
	struct sa_path_rec	path;
	struct cm_msg		*msg;
	struct ib_mad		*last;
	bool			last_pending;
	struct cm_timewait	*tw;
	u32			seq;
	__be64			tid;

	__be64			remote_ca_guid;
	u32			remote_qpn;
	u32			local_qpn;
	u32			sq_psn;
	u32			rq_psn;
	enum ib_qp_type		qp_type;
	u16			pkey_index;
	enum ib_mtu		path_mtu;
	u8			local_ack_timeout;
	u8			retry_count;
	u8			rnr_retry_count;
	u8			responder_resources;
	u8			initiator_depth;
	u8			max_cm_retries;
	u8			target_ack_delay;
	bool			srq;
	u32			timeout_ms;

	struct work_struct	event_work;
	bool			err_pending;
	u32			err_seq;
	enum ib_wc_status	err_status;
	u8			err_counter;
	bool			est_pending;
	u32			est_seq;
	bool			destroying;
};

/**
 * struct cm_msg - a CM message going out
 * @cm_id: the identifier it belongs to (a reference), or NULL for an
 *	answer made without one (a REJ to an unknown service...)
 * @port: the port it leaves by
 * @send_buf: the MAD layer's buffer while posted
 * @ah_attr: the destination
 * @pkey_index: the P_Key to send with
 * @remote_qpn: the destination QP (1, or the sender of what we answer)
 * @timeout_ms: how long to wait for the answer before resending, 0 if none
 * @retries: how many times to resend
 * @counter: its &enum cm_counter_index
 * @test_entry: for the KUnit suite's transport
 * @mad: the MAD
 */
struct cm_msg {
	struct cm_id_private	*cm_id;
	struct cm_port		*port;
	struct ib_mad_send_buf	*send_buf;
	struct rdma_ah_attr	ah_attr;
	u16			pkey_index;
	u32			remote_qpn;
	int			timeout_ms;
	int			retries;
	u8			counter;
	struct list_head	test_entry;
	struct ib_mad		mad;
};

/**
 * struct cm_transport - how messages leave (replaceable under KUnit)
 * @post: send @msg; its completion is reported with cm_msg_done()
 * @cancel: stop waiting for the answer of @msg (completes it soon)
 * @modify: wait @timeout_ms more for the answer of @msg
 */
struct cm_transport {
	int (*post)(struct cm_msg *msg);
	void (*cancel)(struct cm_msg *msg);
	int (*modify)(struct cm_msg *msg, u32 timeout_ms);
};

/**
 * struct cm_work - a received MAD, waiting in cm.wq
 * @work: the work
 * @port: the port (its device referenced)
 * @recv_wc: the MAD layer's receive (freed after), NULL for one injected
 *	by the KUnit suite
 * @mad: the MAD received
 * @wc: its work completion
 * @grh: its GRH, valid if @wc has IB_WC_GRH
 * @counter: its &enum cm_counter_index
 * @path: room for the paths of a REQ
 * @event: room for the event
 */
struct cm_work {
	struct work_struct	work;
	struct cm_port		*port;
	struct ib_mad_recv_wc	*recv_wc;
	const struct ib_mad	*mad;
	struct ib_wc		wc;
	struct ib_grh		grh;
	u8			counter;
	struct sa_path_rec	path[2];
	struct ib_cm_event	event;
};

/**
 * struct cm_globals - the CM's global state
 * @lock: see the top of this file
 * @devices: the cm_device of every registered device
 * @listens: the listening identifiers
 * @remote_ids: cm_timewait by the other side's ID and CA GUID
 * @remote_qpns: cm_timewait by the other side's QP and CA GUID
 * @sidrs: identifiers answering a SIDR_REQ, by requester ID and LID
 * @timewaits: cm_timewait in their timewait
 * @local_ids: identifiers by local ID index (see cm_local_id())
 * @next_local_id: the cyclic allocator's position
 * @id_operand: XORed into local ID indexes, so that IDs are not guessable
 * @next_service_id: for IB_CM_ASSIGN_SERVICE_ID
 * @tid: the lower half of the TIDs of our requests
 * @wq: the ordered work queue every callback runs from
 */
struct cm_globals {
	spinlock_t		lock;	/* protects the tables below */
	struct list_head	devices;
	struct list_head	listens;
	DECLARE_HASHTABLE(remote_ids, 8);
	DECLARE_HASHTABLE(remote_qpns, 8);
	DECLARE_HASHTABLE(sidrs, 6);
	struct list_head	timewaits;
	struct xarray		local_ids;
	u32			next_local_id;
	u32			id_operand;
	u64			next_service_id;
	atomic_t		tid;
	struct workqueue_struct	*wq;
};

extern struct cm_globals cm;

/* 4.096 us * 2^@iba_time, in milliseconds, rounded up to at least 1 */
static inline u32 cm_convert_to_ms(u8 iba_time)
{
	return 1U << max_t(int, (int)iba_time - 8, 0);
}

static inline struct cm_id_private *to_cm_id(struct ib_cm_id *id)
{
	return container_of(id, struct cm_id_private, id);
}

/* cm.c */
void cm_id_get(struct cm_id_private *cm_id);
void cm_id_put(struct cm_id_private *cm_id);
struct cm_id_private *cm_id_find(__be32 local_id, __be32 remote_id,
				 bool check_remote);
void cm_dev_put(struct cm_device *cm_dev);
struct cm_id_private *cm_id_alloc(struct cm_device *cm_dev,
				  ib_cm_handler handler, void *context);
void cm_id_destroy(struct cm_id_private *cm_id, bool from_callback);
struct cm_id_private *cm_listen_find(struct cm_device *cm_dev,
				     __be64 service_id);
void cm_set_state(struct cm_id_private *cm_id, enum ib_cm_state state);
struct cm_timewait *cm_timewait_alloc(struct cm_id_private *cm_id,
				      gfp_t gfp);
struct cm_id_private *cm_remote_insert(struct cm_timewait *tw,
				       bool *stale);
void cm_remote_remove(struct cm_timewait *tw);
struct cm_id_private *cm_remote_id_find(__be32 remote_id,
					__be64 remote_ca_guid);
void cm_local_id_erase(__be32 local_id);
void cm_reset_to_idle(struct cm_id_private *cm_id);
__be64 cm_form_tid(struct cm_port *port);

/* cm_mad.c */
extern const struct cm_transport cm_mad_transport;
extern const struct cm_transport *cm_transport;
struct cm_msg *cm_msg_alloc(struct cm_port *port,
			    struct cm_id_private *cm_id, u8 counter);
struct cm_msg *cm_msg_alloc_av(struct cm_id_private *cm_id, u8 counter);
struct cm_msg *cm_msg_alloc_reply(struct cm_work *work, u8 counter);
void cm_msg_free(struct cm_msg *msg);
int cm_msg_post(struct cm_msg *msg);
int cm_msg_post_req(struct cm_id_private *cm_id, struct cm_msg *msg,
		    int timeout_ms, int retries);
void cm_msg_cancel(struct cm_id_private *cm_id);
void cm_format_hdr(struct ib_mad *mad, __be16 attr_id, __be64 tid);
void cm_count(struct cm_port *port, enum cm_counter_group group, u8 counter);
void cm_deliver(struct cm_id_private *cm_id, struct ib_cm_event *event);

/* What a handler decided about a received message */
enum cm_verdict {
	CM_VERDICT_DELIVER,
	CM_VERDICT_DROP,
	CM_VERDICT_DUP,
};

struct cm_work;
void cm_conclude(struct cm_work *work, struct cm_id_private *cm_id,
		 enum cm_verdict verdict);
void cm_id_event_work(struct work_struct *w);
void cm_queue_established(struct cm_id_private *cm_id);
int cm_remember(struct cm_id_private *cm_id, const struct ib_mad *mad,
		bool pending);
void cm_resend_last(struct cm_id_private *cm_id);
void cm_recv_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *recv_wc);
void cm_send_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_wc *send_wc);
void cm_issue_rej(struct cm_work *work, enum ib_cm_rej_reason reason,
		  enum cm_msg_response rejected, const void *ari, u8 ari_len);

/* cm_connect.c */
void cm_req_handler(struct cm_work *work);
void cm_mra_handler(struct cm_work *work);
void cm_rej_handler(struct cm_work *work);
void cm_rep_handler(struct cm_work *work);
void cm_rtu_handler(struct cm_work *work);
bool cm_send_error_locked(struct cm_id_private *cm_id,
			  struct ib_cm_event *event);
int cm_send_rej_locked(struct cm_id_private *cm_id,
		       enum ib_cm_rej_reason reason, const void *ari,
		       u8 ari_length, const void *private_data,
		       u8 private_data_len);

/* cm_disconnect.c */
void cm_dreq_handler(struct cm_work *work);
void cm_drep_handler(struct cm_work *work);
void cm_lap_handler(struct cm_work *work);
void cm_apr_handler(struct cm_work *work);
int cm_send_dreq_locked(struct cm_id_private *cm_id,
			const void *private_data, u8 private_data_len);
int cm_send_drep_locked(struct cm_id_private *cm_id,
			const void *private_data, u8 private_data_len);

/* cm_timewait.c */
void cm_enter_timewait(struct cm_id_private *cm_id);
void cm_timewait_expire_device(struct cm_device *cm_dev);
void cm_timewait_free(struct cm_timewait *tw);

/* cm_sidr.c */
void cm_sidr_req_handler(struct cm_work *work);
void cm_sidr_rep_handler(struct cm_work *work);
int cm_send_sidr_rep_locked(struct cm_id_private *cm_id,
			    struct ib_cm_sidr_rep_param *param);
void cm_sidr_remove(struct cm_id_private *cm_id);

/* cm_qp.c */
int cm_av_from_path(struct cm_device *cm_dev, struct sa_path_rec *path,
		    struct cm_av *av);
int cm_av_from_wc(struct cm_port *port, const struct ib_wc *wc,
		  const struct ib_grh *grh, struct cm_av *av);

/* cm_msgs.c */
void cm_path_to_req(const struct sa_path_rec *path, struct cm_req_path *wire,
		    u8 local_ack_timeout, bool alternate);
void cm_path_from_req(const struct cm_req_path *wire, __be16 pkey,
		      enum ib_mtu mtu, __be64 service_id,
		      struct sa_path_rec *path);
bool cm_req_path_present(const struct cm_req_path *wire);
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time);
enum ib_qp_type cm_req_qp_type(const struct cm_req_msg *req);

/* cm_sysfs.c (and cm.c) */
struct cm_port *cm_sysfs_port(struct ib_device *device, u32 port_num);
void cm_sysfs_init(void);
int cm_sysfs_add(struct cm_port *port);
void cm_sysfs_remove(struct cm_port *port);

/* For the KUnit suites: static without KUnit (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(CM_KUNIT_SUITE)
struct cm_port *cm_port_get(struct ib_device *device, u32 port_num);
void cm_msg_done(struct cm_msg *msg, enum ib_wc_status status);
void cm_recv_inject(struct cm_port *port, const struct ib_mad *mad,
		    const struct ib_wc *wc);
void cm_flush(void);
void cm_set_transport(const struct cm_transport *transport);
#endif

#endif /* CM_PRIV_H */
