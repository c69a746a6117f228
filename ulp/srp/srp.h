/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_srp: what the files of the SRP initiator share.
 *
 * Objects and their lifetimes:
 *
 * - struct srp_device: one per RDMA device, the ib_client's data.  It owns
 *   the protection domain and the memory registration limits, and the list
 *   of its srp_hosts.  Created by the client's add, freed by its remove
 *   after every host and target on it is gone.
 * - struct srp_host: one per IB port, the class device
 *   /sys/class/infiniband_srp/srp-<ibdev>-<port>.  Its targets are on
 *   target_list under target_lock.  Freed by the release of its device.
 * - struct srp_target_port: the hostdata of one SCSI host, one per login
 *   made through add_target.  It lives as long as its Scsi_Host; it is
 *   taken apart by srp_remove_work() (srp_host.c), which only ever runs
 *   once (the state SRP_TARGET_REMOVED, set under the host's target_lock,
 *   says it has been queued).
 * - struct srp_rdma_ch: one RDMA channel (QP, CQs, CM ID, rings) of a
 *   target; target->ch[] has target->ch_count of them, the SCSI host has
 *   as many hardware queues.
 * - struct srp_request: the private part of every scsi_cmnd (cmd_size),
 *   with the descriptor table and the MRs of one command.
 *
 * Locking:
 * - srp_rdma_ch.lock (spinlock, IRQ-safe) protects the channel's credits
 *   (req_lim), its list of free send IUs and which command every
 *   srp_request belongs to (req->scmnd): whoever clears req->scmnd under
 *   it owns the completion of that command (response, abort, reconnect).
 * - srp_host.add_target_mutex serialises add_target writes on one port.
 * - srp_host.target_lock protects the host's target_list and the targets'
 *   state field.
 * - srp_target_port.tsk_mgmt_mutex serialises task management functions
 *   of a target (one outstanding at a time), and keeps a reconnect from
 *   tearing the channels down while srp_abort() holds a command it has
 *   claimed, whose MRs come from the QP's pool.
 * - The reconnects, the transport layer timers and rport deletion are
 *   serialised by the transport class (rport->mutex).
 */
#ifndef _SRP_H
#define _SRP_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_host.h>
#include <scsi/srp.h>

enum {
	SRP_PATH_REC_TIMEOUT_MS	= 1000,
	SRP_ABORT_TIMEOUT_MS	= 5000,
	SRP_CONN_TIMEOUT_MS	= 60000,

	SRP_PORT_REDIRECT	= 1,
	SRP_DLID_REDIRECT	= 2,
	SRP_STALE_CONN		= 3,
	SRP_MAX_LOGIN_TRIES	= 4,

	SRP_DEF_SG_TABLESIZE	= 12,
	SRP_MAX_CMD_SG_ENTRIES	= 255,

	SRP_DEFAULT_QUEUE_SIZE	= 64,
	SRP_RSP_SQ_SIZE		= 1,
	SRP_TSK_MGMT_SQ_SIZE	= 1,
	SRP_DEFAULT_CMD_SQ_SIZE	= SRP_DEFAULT_QUEUE_SIZE - SRP_RSP_SQ_SIZE -
				  SRP_TSK_MGMT_SQ_SIZE,
	SRP_MAX_QUEUE_SIZE	= 4096,
	SRP_MAX_CH_COUNT	= 64,

	SRP_MAX_PAGES_PER_MR	= 512,
	SRP_MAX_ADD_CDB_LEN	= 16,

	/* a 32-byte CDB still fits in front of the immediate data */
	SRP_IMM_DATA_OFFSET	= sizeof(struct srp_cmd) +
				  SRP_MAX_ADD_CDB_LEN +
				  sizeof(struct srp_imm_buf),
	/* what we accept as max_ti_iu_len from a target */
	SRP_MAX_TI_IU_LEN	= 65536,
	SRP_MAX_IT_IU_LEN	= 65536,
};

/* The tag of a task management IU; commands use blk-mq unique tags. */
#define SRP_TAG_TSK_MGMT	BIT_ULL(31)
#define SRP_TAG_NO_REQ		(~0ULL)

enum srp_target_state {
	SRP_TARGET_SCANNING,
	SRP_TARGET_LIVE,
	SRP_TARGET_REMOVED,
};

enum srp_iu_type {
	SRP_IU_CMD,
	SRP_IU_TSK_MGMT,
	SRP_IU_RSP,
};

/**
 * struct srp_device - an RDMA device the initiator uses
 * @dev_list: its srp_hosts
 * @dev: the device
 * @pd: the protection domain of every channel on it
 * @global_rkey: the PD's rkey for all memory, 0 if memory is registered
 * @mr_page_mask: mask of the MR page size
 * @mr_page_size: page size of the fast-registration MRs
 * @mr_max_size: the largest region one MR covers
 * @max_pages_per_mr: page list length of the MRs
 * @use_fast_reg: register memory with fast-registration work requests
 */
struct srp_device {
	struct list_head	dev_list;
	struct ib_device	*dev;
	struct ib_pd		*pd;
	u32			global_rkey;
	u64			mr_page_mask;
	int			mr_page_size;
	u64			mr_max_size;
	int			max_pages_per_mr;
	bool			use_fast_reg;
};

/**
 * struct srp_host - one port of an RDMA device, with its class device
 * @srp_dev: the device
 * @port: the port number
 * @dev: /sys/class/infiniband_srp/srp-<ibdev>-<port>
 * @target_list: the targets logged in to through this port
 * @target_lock: protects @target_list and the targets' state
 * @list: in srp_dev->dev_list
 * @add_target_mutex: serialises add_target on this port
 */
struct srp_host {
	struct srp_device	*srp_dev;
	u32			port;
	struct device		dev;
	struct list_head	target_list;
	/* protects target_list and srp_target_port.state */
	spinlock_t		target_lock;
	struct list_head	list;
	/* serialises add_target writes */
	struct mutex		add_target_mutex;
};

/**
 * struct srp_request - the SRP part of a SCSI command
 * @scmnd: the command while it is outstanding, NULL otherwise (ch->lock)
 * @mr_list: the MRs registered for it
 * @nmdesc: how many of @mr_list are in use
 * @indirect_desc: the descriptor table for indirect data buffers
 * @indirect_dma_addr: its DMA address
 * @nents: entries of the mapped scatterlist, 0 if it is not mapped
 * @reg_cqe: completion entry of its registration work requests (errors)
 * @inv_cqe: completion entry of its invalidation work requests (errors)
 */
struct srp_request {
	struct scsi_cmnd	*scmnd;
	struct ib_mr		**mr_list;
	unsigned int		nmdesc;
	struct srp_direct_buf	*indirect_desc;
	u64			indirect_dma_addr;
	int			nents;
	struct ib_cqe		reg_cqe;
	struct ib_cqe		inv_cqe;
};

/**
 * struct srp_iu - an information unit buffer
 * @list: on the channel's free send list
 * @dma: its DMA address
 * @buf: the buffer
 * @size: its size
 * @direction: DMA_TO_DEVICE for sends, DMA_FROM_DEVICE for receives
 * @cqe: its completion entry
 */
struct srp_iu {
	struct list_head	list;
	u64			dma;
	void			*buf;
	size_t			size;
	enum dma_data_direction	direction;
	struct ib_cqe		cqe;
};

/**
 * struct srp_rdma_ch - one RDMA channel to a target
 * @target: its target
 * @lock: protects @req_lim, @free_tx and srp_request.scmnd
 * @req_lim: credits: requests the target still accepts
 * @free_tx: free send IUs
 * @send_cq: send completion queue
 * @recv_cq: receive completion queue
 * @qp: the RC QP
 * @cm_id: the IB CM ID (IB CM mode)
 * @rdma_cm_id: the RDMA CM ID (RDMA CM mode)
 * @path: the path to the target (IB CM mode)
 * @path_query: the SA query in flight
 * @path_query_id: its ID
 * @tx_ring: send IUs
 * @rx_ring: receive IUs
 * @comp_vector: completion vector of the CQs
 * @max_it_iu_len: the longest IU the target accepts
 * @max_ti_iu_len: the longest IU the target sends
 * @max_imm_data: the most immediate data a command carries, 0 for none
 * @use_imm_data: the target accepts immediate data
 * @connected: logged in
 * @done: signalled when a login, path query or disconnect is over
 * @status: its result
 * @tsk_mgmt_tag: tag of the last task management IU sent
 * @tsk_mgmt_done: signalled by its response
 * @tsk_mgmt_status: the task management function's response code
 * @mr_count: MRs in the QP's pool
 */
struct srp_rdma_ch {
	struct srp_target_port	*target;
	/* protects req_lim, free_tx and srp_request.scmnd */
	spinlock_t		lock;
	s32			req_lim;
	struct list_head	free_tx;

	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_qp		*qp;
	struct ib_cm_id		*cm_id;
	struct rdma_cm_id	*rdma_cm_id;
	struct sa_path_rec	path;
	struct ib_sa_query	*path_query;
	int			path_query_id;

	struct srp_iu		**tx_ring;
	struct srp_iu		**rx_ring;
	int			comp_vector;
	u32			max_it_iu_len;
	u32			max_ti_iu_len;
	u32			max_imm_data;
	bool			use_imm_data;
	bool			connected;

	struct completion	done;
	int			status;

	u64			tsk_mgmt_tag;
	struct completion	tsk_mgmt_done;
	u8			tsk_mgmt_status;
	int			mr_count;
};

/*
 * struct srp_target_port - a target logged in to (the SCSI host's data).
 * The add_target options (see srp_opts.c) are first; then what the
 * login decided and the state.
 */
struct srp_target_port {
	/* from add_target */
	__be64			id_ext;
	__be64			ioc_guid;
	__be64			initiator_ext;
	__be64			service_id;
	union ib_gid		orig_dgid;
	u16			pkey;
	u16			io_class;
	unsigned int		max_sectors;
	unsigned int		cmd_per_lun;
	unsigned int		can_queue;
	unsigned int		target_can_queue;
	unsigned int		cmd_sg_cnt;
	unsigned int		sg_tablesize;
	bool			allow_ext_sg;
	int			comp_vector;
	unsigned int		tl_retry_count;
	unsigned int		max_it_iu_size;
	unsigned int		ch_count;
	bool			using_rdma_cm;
	bool			has_src;
	/* the network namespace of the writer, for the RDMA CM */
	struct net		*net;
	struct sockaddr_storage	rdma_src;
	struct sockaddr_storage	rdma_dst;

	/* set up by add_target */
	struct Scsi_Host	*scsi_host;
	struct srp_host		*srp_host;
	struct srp_rport	*rport;
	struct srp_rdma_ch	*ch;
	char			target_name[32];
	union ib_gid		sgid;
	u32			global_rkey;
	unsigned int		queue_size;
	unsigned int		req_ring_size;
	unsigned int		indirect_size;
	unsigned int		mr_per_cmd;
	unsigned int		mr_pool_size;
	u32			max_iu_len;
	unsigned long		rq_tmo_jiffies;
	int			zero_req_lim;
	/* IUs from the target that were malformed and dropped */
	atomic_t		bad_iu_count;
	bool			qp_in_error;

	/* protected by srp_host.target_lock */
	enum srp_target_state	state;
	struct list_head	list;

	/* one task management function at a time */
	struct mutex		tsk_mgmt_mutex;
	struct work_struct	tl_err_work;
	struct work_struct	remove_work;
};

static inline struct srp_target_port *host_to_target(struct Scsi_Host *host)
{
	return (struct srp_target_port *)host->hostdata;
}

/* srp_main.c: module parameters and objects */
extern unsigned int srp_cmd_sg_entries;
extern unsigned int srp_indirect_sg_entries;
extern bool srp_allow_ext_sg;
extern bool srp_register_always;
extern bool srp_never_register;
extern int srp_topspin_workarounds;
extern int srp_reconnect_delay;
extern int srp_fast_io_fail_tmo;
extern int srp_dev_loss_tmo;
extern bool srp_use_imm_data;
extern unsigned int srp_max_imm_data;
extern unsigned int srp_ch_count;
extern struct ib_sa_client srp_sa_client;
extern struct workqueue_struct *srp_remove_wq;

/* srp_opts.c */
int srp_parse_options(struct net *net, const char *buf,
		      struct srp_target_port *target);

/* srp_cm.c */
int srp_create_ch_ib(struct srp_rdma_ch *ch);
void srp_free_ch_ib(struct srp_target_port *target, struct srp_rdma_ch *ch);
int srp_connect_ch(struct srp_rdma_ch *ch, u32 max_iu_len, bool multich);
void srp_disconnect_target(struct srp_target_port *target);
u32 srp_max_it_iu_len(const struct srp_target_port *target);
void srp_handle_qp_err(struct ib_cq *cq, struct ib_wc *wc, const char *op);
int srp_alloc_iu_bufs(struct srp_rdma_ch *ch);
void srp_free_iu_bufs(struct srp_rdma_ch *ch);

/* srp_io.c */
int srp_queuecommand(struct Scsi_Host *shost, struct scsi_cmnd *scmnd);
void srp_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void srp_send_done(struct ib_cq *cq, struct ib_wc *wc);
int srp_post_recv(struct srp_rdma_ch *ch, struct srp_iu *iu);
int srp_init_cmd_priv(struct Scsi_Host *shost, struct scsi_cmnd *cmd);
int srp_exit_cmd_priv(struct Scsi_Host *shost, struct scsi_cmnd *cmd);
struct scsi_cmnd *srp_claim_req(struct srp_rdma_ch *ch,
				struct srp_request *req,
				struct scsi_cmnd *scmnd);
void srp_free_req(struct srp_rdma_ch *ch, struct srp_request *req,
		  struct scsi_cmnd *scmnd, s32 req_lim_delta);
int __srp_send_tsk_mgmt(struct srp_rdma_ch *ch, u64 req_tag, u64 lun,
			u8 func, u8 *status);
int srp_send_tsk_mgmt(struct srp_rdma_ch *ch, u64 req_tag, u64 lun,
		      u8 func, u8 *status);
void srp_finish_all(struct srp_target_port *target, struct scsi_device *sdev,
		    int result);

/* srp_host.c */
int srp_add_target(struct srp_host *host, const char *buf);
void srp_queue_remove_work(struct srp_target_port *target);
extern struct srp_function_template srp_transport_functions;
extern struct scsi_transport_template *srp_transport_template;

#endif /* _SRP_H */
