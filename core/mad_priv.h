/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private structures of the MAD layer: mad.c (ports, agents, send and
 * receive paths) and agent.c (replies the core sends itself).
 */
#ifndef IB_CORE_MAD_PRIV_H
#define IB_CORE_MAD_PRIV_H

#include <linux/completion.h>
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

/**
 * struct ib_mad_qp_info - QP0 or QP1 of a port
 * @port: its port
 * @qp: the QP, NULL if the port has no such QP
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
 * @idle: woken when @busy drops to zero while @stopping
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
 * @mad: the MAD
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

/* agent.c */
int ib_mad_reply_agents_create(struct ib_mad_port *port);
void ib_mad_reply_agents_destroy(struct ib_mad_port *port);
void ib_mad_send_reply(struct ib_mad_qp_info *qp_info, const struct ib_wc *wc,
		       const struct ib_grh *grh, const struct ib_mad *mad);

#endif /* IB_CORE_MAD_PRIV_H */
