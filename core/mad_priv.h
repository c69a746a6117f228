/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private structures of the MAD layer: mad.c (ports, agents, send and
 * receive paths), mad_rmpp.c (kernel RMPP, IBA 13.6) and agent.c (replies
 * the core sends itself).
 */
#ifndef IB_CORE_MAD_PRIV_H
#define IB_CORE_MAD_PRIV_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_mad.h>

#define IB_MAD_QP_SEND_SIZE	128
#define IB_MAD_QP_RECV_SIZE	256
#define IB_MAD_MAX_CLASS_VERSION 8
#define IB_MAD_MAX_CLASS	0x50	/* classes below this may register */

/* the two special QPs of a port, as an index */
enum {
	IB_MAD_QP0,
	IB_MAD_QP1,
	IB_MAD_QPS,
};

struct ib_mad_port;
struct ib_mad_redirect;

/**
 * struct ib_mad_qp_info - QP0, QP1 or a redirect QP of a port
 * @port: its port
 * @qp: the QP, NULL if the port has no such QP
 * @cq: the CQ of @qp (the port's, or the redirect's own)
 * @redirect: the redirect this QP serves, NULL for QP0 and QP1
 * @stopping: the QP is going away: receive buffers are not reposted
 * @busy: receive completions of @qp being processed
 * @recv_lock: see below
 * @recv_list: receive buffers posted on @qp (struct ib_mad_private)
 * @send_lock: see below
 * @send_count: sends posted on @qp and not completed yet
 * @overflow_list: sends waiting for room on @qp
 * @reply_agent: send-only agent for the replies the core sends
 */
struct ib_mad_qp_info {
	struct ib_mad_port	*port;
	struct ib_qp		*qp;
	struct ib_cq		*cq;
	struct ib_mad_redirect	*redirect;
	/* stopping and busy are protected by the port's reg_lock */
	bool			stopping;
	int			busy;
	/* protects recv_list */
	spinlock_t		recv_lock;
	struct list_head	recv_list;
	/* protects send_count and overflow_list */
	spinlock_t		send_lock;
	int			send_count;
	struct list_head	overflow_list;
	struct ib_mad_agent	*reply_agent;
};

/**
 * struct ib_mad_port - the MAD layer of one port
 * @device: the device
 * @port_num: the port
 * @pd: PD of the special QPs and of the AHs of agents
 * @cq: CQ of both QPs, polled in a work queue
 * @qp_info: QP0 and QP1
 * @reg_lock: see below
 * @class_list: struct ib_mad_method_table of the registered requests
 * @stopping: the port is going away: receive buffers are not reposted
 * @busy: receive completions being processed
 * @idle: woken when @busy drops to zero while @stopping (or a QP's busy
 *	while it is stopping)
 * @redirect_mutex: see below
 * @redirect: the redirected GSI classes, by class (QP1 redirection)
 * @redirect_closed: the port is closing: no new redirects
 */
struct ib_mad_port {
	struct ib_device	*device;
	u32			port_num;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_mad_qp_info	qp_info[IB_MAD_QPS];
	/* protects class_list and the method tables on it, stopping, busy */
	spinlock_t		reg_lock;
	struct list_head	class_list;
	bool			stopping;
	int			busy;
	wait_queue_head_t	idle;
	/*
	 * serialises redirecting and unredirecting (creating and destroying
	 * the redirect QPs) and protects redirect_closed; the redirect[]
	 * entries are written under it and reg_lock, read under either
	 */
	struct mutex		redirect_mutex;
	struct ib_mad_redirect	*redirect[IB_MAD_MAX_CLASS];
	bool			redirect_closed;
};

/**
 * struct ib_mad_redirect - a GSI class of a port moved off QP1
 *	(IBA 13.5.3.3), see ib_mad_redirect_class()
 * @qp_info: the redirect QP, a UD QP with Q_Key IB_MAD_REDIRECT_QKEY
 * @mgmt_class: the class
 * @cpi: the ClassPortInfo QP1 answers with, RedirectLID still zero
 * @redirected: requests on QP1 answered with status 0x0002
 * @received: MADs of @mgmt_class received on the redirect QP
 * @dropped: MADs of other classes (or malformed) dropped on it
 */
struct ib_mad_redirect {
	struct ib_mad_qp_info	qp_info;
	u8			mgmt_class;
	struct ib_class_port_info cpi;
	atomic_t		redirected;
	atomic_t		received;
	atomic_t		dropped;
};

/**
 * struct ib_mad_method_table - agents by method for one class/version
 *	(and OUI, for vendor range 2)
 * @list: entry in the port's class_list
 * @mgmt_class: the class
 * @class_version: the class version
 * @oui: the OUI (vendor range 2 only, else zero)
 * @count: methods in use
 * @agent: the agent per method
 */
struct ib_mad_method_table {
	struct list_head	list;
	u8			mgmt_class;
	u8			class_version;
	u8			oui[3];
	unsigned int		count;
	struct ib_mad_agent_private *agent[IB_MGMT_MAX_METHODS];
};

/**
 * struct ib_mad_agent_private - what the core keeps per agent
 * @agent: the user's view
 * @reg_req: copy of the registration request, NULL for a send-only agent
 * @qp_info: the QP it uses
 * @lock: see below
 * @send_list: sends posted and not completed (or delivered locally), and
 *	sends whose response is being delivered
 * @wait_list: sends waiting for their response, by deadline
 * @dead: unregistration started; no new sends, no timer
 * @timed_work: response timeouts, retries and cancelled sends
 * @refcount: the registration, each tracked send and each callback in
 *	progress hold one
 * @comp: completed when @refcount drops to zero
 * @rmpp_recvs: kernel RMPP reassemblies (struct ib_rmpp_recv, mad_rmpp.c),
 *	oldest first
 * @rmpp_active: reassemblies on @rmpp_recvs still receiving
 * @rmpp_done: finished reassemblies kept to answer repeated segments
 * @rmpp_segs: segments held by the reassemblies still receiving
 * @rmpp_work: expires reassemblies (see mad_rmpp.c)
 * @rmpp_next: when @rmpp_work is due, while it is pending
 */
struct ib_mad_agent_private {
	struct ib_mad_agent	agent;
	struct ib_mad_reg_req	*reg_req;
	struct ib_mad_qp_info	*qp_info;
	/* protects send_list, wait_list, dead and the sends' state */
	spinlock_t		lock;
	struct list_head	send_list;
	struct list_head	wait_list;
	bool			dead;
	struct delayed_work	timed_work;
	refcount_t		refcount;
	struct completion	comp;
	/* the rmpp_* members are protected by @lock as well */
	struct list_head	rmpp_recvs;
	unsigned int		rmpp_active;
	unsigned int		rmpp_done;
	unsigned int		rmpp_segs;
	struct delayed_work	rmpp_work;
	unsigned long		rmpp_next;
};

/**
 * struct ib_mad_send_wr_private - a send buffer and its state
 * @agent_list: entry in the agent's send_list or wait_list while tracked
 * @qp_list: entry in the QP's overflow_list while waiting for room
 * @mad_agent_priv: its agent
 * @send_buf: the user's view
 * @send_wr: the work request
 * @sge: its data
 * @cqe: completion callback
 * @local_work: delivery of a directed-route SMP that stays in this node
 * @mapping: DMA address of the MAD while mapped
 * @mapped: @mapping is valid
 * @local: a directed-route SMP handled in this node, never on the wire
 * @tid: TID of the MAD when posted
 * @dlid: destination LID, for matching the response's source
 * @check_lid: compare @dlid with the response's SLID
 * @deadline: when the response timer expires (jiffies)
 * @retries_left: resends left after a timeout
 * @tracked: on the agent's lists (posted and not finished)
 * @posted: on the QP (or delivered locally) and not completed
 * @awaiting: a response is expected and has not come
 * @in_recv: its response is being delivered to the agent
 * @status: how the send ends, unless it is still IB_WC_SUCCESS
 * @rmpp_data: kernel RMPP: the data of all segments, seg_count times
 *	seg_size bytes; NULL for a send created without RMPP
 * @pad: kernel RMPP: unused bytes at the end of the last segment
 * @seg_num: kernel RMPP: the segment now in @mad (0 before the first)
 * @last_ack: kernel RMPP: the last segment the receiver acknowledged
 * @newwin: kernel RMPP: the last segment the receiver allows (its window)
 * @max_retries: kernel RMPP: retries after an ACK timeout, renewed by
 *	every ACK that moves @last_ack
 * @rmpp_pending: kernel RMPP: DATA segments not all acknowledged yet
 * @mad: the MAD; with RMPP the header the caller writes, and the segment
 *	being sent
 */
struct ib_mad_send_wr_private {
	struct list_head	agent_list;
	struct list_head	qp_list;
	struct ib_mad_agent_private *mad_agent_priv;
	struct ib_mad_send_buf	send_buf;
	struct ib_ud_wr		send_wr;
	struct ib_sge		sge;
	struct ib_cqe		cqe;
	struct work_struct	local_work;
	u64			mapping;
	bool			mapped;
	bool			local;
	__be64			tid;
	u32			dlid;
	bool			check_lid;
	unsigned long		deadline;
	int			retries_left;
	bool			tracked;
	bool			posted;
	bool			awaiting;
	bool			in_recv;
	enum ib_wc_status	status;
	u8			*rmpp_data;
	int			pad;
	int			seg_num;
	int			last_ack;
	int			newwin;
	int			max_retries;
	bool			rmpp_pending;
	u8			mad[IB_MGMT_MAD_SIZE] __aligned(8);
};

/**
 * struct ib_mad_private - a receive buffer, and a received MAD
 * @recv_wc: the user's view, when delivered
 * @wc: its work completion
 * @cqe: completion callback
 * @list: entry in the QP's recv_list while posted
 * @qp_info: the QP it was posted on
 * @mapping: DMA address of @buf while posted
 * @buf: GRH area and MAD, contiguous as the hardware fills them
 * @buf.grh: the GRH, valid if @wc says IB_WC_GRH
 * @buf.mad: the MAD
 */
struct ib_mad_private {
	struct ib_mad_recv_wc	recv_wc;
	struct ib_wc		wc;
	struct ib_cqe		cqe;
	struct list_head	list;
	struct ib_mad_qp_info	*qp_info;
	u64			mapping;
	struct {
		struct ib_grh	grh;
		u8		mad[IB_MGMT_MAD_SIZE];
	} __packed buf;
};

/* mad.c */
struct ib_mad_port *ib_mad_port_get(struct ib_device *device, u32 port_num);
void ib_mad_prepare_recv_wc(struct ib_mad_private *mp);
struct ib_mad_send_wr_private *
ib_mad_match_send(struct ib_mad_agent_private *priv,
		  const struct ib_mad_private *mp);
void ib_mad_wait_insert(struct ib_mad_agent_private *priv,
			struct ib_mad_send_wr_private *wr);
void ib_mad_finish_send(struct ib_mad_send_wr_private *wr);
void ib_mad_repost(struct ib_mad_send_wr_private *wr);
int ib_mad_redirect_cpi_offset(u8 mgmt_class);
bool ib_mad_build_redirect(const struct ib_mad *in,
			   const struct ib_class_port_info *cpi,
			   struct ib_mad *out);

/*
 * mad_rmpp.c: kernel RMPP (IBA 13.6) for agents with
 * ib_mad_kernel_rmpp_agent().  Sender: a send created with rmpp_active
 * keeps its data in @rmpp_data; ib_mad_rmpp_send_start() decides at post
 * time whether it travels as RMPP DATA segments and puts the first one in
 * wr->mad; after each send completion ib_mad_rmpp_next_seg() puts the next
 * one there while the receiver's window allows; an ACK timeout rewinds
 * with ib_mad_rmpp_rewind().  Receiver: ib_mad_rmpp_recv() takes every
 * MAD delivered to such an agent and returns what the agent gets.
 */

/* Window the receiver grants: IB_MAD_QP_RECV_SIZE / 8 segments. */
#define IB_RMPP_WINDOW		(IB_MAD_QP_RECV_SIZE / 8)
/* Reassemblies receiving at once per agent; a new one ends the oldest. */
#define IB_RMPP_MAX_ACTIVE	16
/* Finished reassemblies remembered per agent (to re-ACK repeats). */
#define IB_RMPP_MAX_DONE	64
/* Segments held by the reassemblies of one agent (and of one message). */
#define IB_RMPP_MAX_SEGS	16384
/* Segments of one send (ib_create_send_mad()). */
#define IB_RMPP_MAX_SEND_SEGS	65536
/* A reassembly without progress for this long is aborted. */
#define IB_RMPP_RECV_TIMEOUT_MS	40000
/* A finished reassembly is remembered for this long. */
#define IB_RMPP_DONE_LINGER_MS	10000
/* The longest wait for an ACK. */
#define IB_RMPP_ACK_TIMEOUT_MS	2000

int ib_mad_rmpp_send_alloc(struct ib_mad_send_wr_private *wr, int hdr_len,
			   int data_len, gfp_t gfp);
void *ib_mad_rmpp_segment(struct ib_mad_send_wr_private *wr, int seg_num);
void ib_mad_rmpp_send_start(struct ib_mad_send_wr_private *wr);
bool ib_mad_rmpp_next_seg(struct ib_mad_send_wr_private *wr);
void ib_mad_rmpp_rewind(struct ib_mad_send_wr_private *wr);
bool ib_mad_rmpp_all_acked(const struct ib_mad_send_wr_private *wr);
unsigned long ib_mad_rmpp_ack_timeout(const struct ib_mad_send_wr_private *wr);
struct ib_mad_private *ib_mad_rmpp_recv(struct ib_mad_agent_private *priv,
					struct ib_mad_private *mp);
void ib_mad_rmpp_agent_init(struct ib_mad_agent_private *priv);
void ib_mad_rmpp_agent_cleanup(struct ib_mad_agent_private *priv);

/* The arithmetic and checks of mad_rmpp.c, for the KUnit tests. */
int ib_rmpp_seg_count(int hdr_len, int data_len, int *pad);
u32 ib_rmpp_send_paylen(int seg_num, int seg_count, int pad);
int ib_rmpp_recv_len(int hdr_len, int seg_count, u32 last_paylen);
int ib_rmpp_check_data(const struct ib_rmpp_hdr *rmpp_hdr, int hdr_len);
int ib_rmpp_check_last(int hdr_len, u32 first_paylen, int seg_count,
		       u32 last_paylen);

/**
 * enum ib_rmpp_ack_verdict - what a sender does with an ACK
 * @IB_RMPP_ACK_OLD: an old or repeated ACK: ignore it
 * @IB_RMPP_ACK_MORE: progress or a larger window: send on
 * @IB_RMPP_ACK_ALL: every segment is acknowledged
 * @IB_RMPP_ACK_W2S: NewWindowLast below SegmentNumber: abort
 * @IB_RMPP_ACK_S2B: SegmentNumber beyond what was sent: abort
 */
enum ib_rmpp_ack_verdict {
	IB_RMPP_ACK_OLD,
	IB_RMPP_ACK_MORE,
	IB_RMPP_ACK_ALL,
	IB_RMPP_ACK_W2S,
	IB_RMPP_ACK_S2B,
};

enum ib_rmpp_ack_verdict ib_rmpp_ack_verdict(u32 seg_num, u32 newwin,
					     int sent, int last_ack,
					     int cur_newwin, int seg_count);

/**
 * enum ib_rmpp_seg_verdict - what a receiver does with a DATA segment
 *	(other than the first) of a message it is reassembling
 * @IB_RMPP_SEG_STORE: new and inside the window: keep it
 * @IB_RMPP_SEG_REACK: already acknowledged (or the message is complete):
 *	send the last ACK again
 * @IB_RMPP_SEG_DUP: already held, not acknowledged yet: drop it
 * @IB_RMPP_SEG_DROP: beyond the window: drop it
 */
enum ib_rmpp_seg_verdict {
	IB_RMPP_SEG_STORE,
	IB_RMPP_SEG_REACK,
	IB_RMPP_SEG_DUP,
	IB_RMPP_SEG_DROP,
};

enum ib_rmpp_seg_verdict ib_rmpp_seg_verdict(u32 seg_num, int in_order,
					     int last_ack, int newwin,
					     bool done);

/* agent.c */
int ib_mad_reply_agents_create(struct ib_mad_port *port);
void ib_mad_reply_agents_destroy(struct ib_mad_port *port);
void ib_mad_send_reply(struct ib_mad_qp_info *qp_info, const struct ib_wc *wc,
		       const struct ib_grh *grh, const struct ib_mad *mad);

#endif /* IB_CORE_MAD_PRIV_H */
