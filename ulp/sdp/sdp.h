/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private to ib_sdp.ko: the SDP wire format (IBTA Annex A4), the socket
 * (struct sdp_sock) and what the module's files share.
 *
 * Locking, from the outside in:
 *   - the socket lock (lock_sock()) serialises the socket calls of user
 *     space with each other and with the teardown work (sdp_destroy_work),
 *     which is the only place that lets go of the connection's resources;
 *   - the RDMA CM's handler mutex of the id (the handler runs under it,
 *     the teardown takes it with rdma_lock_handler()) keeps the event
 *     handler and the teardown apart; the handler never takes the socket
 *     lock;
 *   - sdp_sock.lock (a spinlock, bottom halves off) protects the data path
 *     state: the receive queue, credits, sequence numbers, send slots,
 *     the flags of the connection, a listener's queues, and every post of
 *     a work request.  Completion handlers take only this lock.
 *
 * Lifetime: the socket is referenced by its user (the struct socket, or
 * for a connection not accepted yet its listener's queue) and by its
 * RDMA CM id; the id's reference goes at the end of sdp_destroy_work(),
 * after the QP, CQ and PD are gone and the id is destroyed.
 */
#ifndef SDP_H
#define SDP_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define AF_INET_SDP		27
#define PF_INET_SDP		AF_INET_SDP

/* Message IDs of the BSDH (Annex A4); only these are implemented. */
#define SDP_MID_HELLO		0x00
#define SDP_MID_HELLO_ACK	0x01
#define SDP_MID_DISCONN		0x02
#define SDP_MID_ABORT		0x03
#define SDP_MID_SEND_SM		0x04
#define SDP_MID_RDMA_RD_COMPL	0x06
#define SDP_MID_SRCAVAIL_CANCEL	0x08
#define SDP_MID_SRCAVAIL	0xfe
#define SDP_MID_DATA		0xff

/* Major 2, minor 2: what OFED's SDP sends, and what the CM checks. */
#define SDP_VERSION		0x22
#define SDP_HAH_SIZE		180

/* Send slots per connection, and those kept for control messages. */
#define SDP_TX_SLOTS		16
#define SDP_MIN_BUF_SIZE	4096
#define SDP_MAX_BUF_SIZE	65536
#define SDP_CLOSE_TIMEOUT	(60 * HZ)
/* how long the teardown waits for our AbortConn to go out */
#define SDP_ABORT_TIMEOUT	HZ
/*
 * Zero copy: the user pages one SrcAvail offers (and one RDMA READ of the
 * sink takes) at most, and how long a step of it may take once it can no
 * longer simply be waited for (a cancelled advert, a READ, an invalidation).
 */
#define SDP_ZC_PAGES		64
#define SDP_ZC_TIMEOUT		(10 * HZ)
#define SDP_RESOLVE_MS		2000

/**
 * struct sdp_bsdh - the base header of every SDP message, big-endian
 * @mid: message ID
 * @flags: OOB and pipelining flags, always 0 here
 * @bufs: receive buffers the sender has posted (its credits for us)
 * @len: the message's length, this header included
 * @mseq: the sender's sequence number of this message
 * @mseq_ack: the last sequence number the sender received from us
 */
struct sdp_bsdh {
	u8 mid;
	u8 flags;
	__be16 bufs;
	__be32 len;
	__be32 mseq;
	__be32 mseq_ack;
};

/**
 * struct sdp_hh - Hello, the private data of the CM REQ
 * @bsdh: header, MID Hello
 * @version: SDP_VERSION
 * @ip_version: 4 or 6 in bits 7:4 (the CM's)
 * @rsvd1: reserved
 * @max_adverts: SrcAvails we take at a time: 1 with zero copy on, else 0
 * @des_rem_rcv_sz: the receive buffer size we wish the peer had
 * @local_rcv_sz: our receive buffers' size, header included
 * @port: the requester's port (the CM's)
 * @rsvd2: reserved
 * @src_addr: the requester's address (the CM's)
 * @dst_addr: the responder's address (the CM's)
 * @rsvd3: reserved
 */
struct sdp_hh {
	struct sdp_bsdh bsdh;
	u8 version;
	u8 ip_version;
	u8 rsvd1;
	u8 max_adverts;
	__be32 des_rem_rcv_sz;
	__be32 local_rcv_sz;
	__be16 port;
	__be16 rsvd2;
	u8 src_addr[16];
	u8 dst_addr[16];
	u8 rsvd3[12];
};

/**
 * struct sdp_hah - HelloAck, the private data of the CM REP
 * @bsdh: header, MID HelloAck
 * @version: SDP_VERSION
 * @ip_version: reserved here
 * @rsvd1: reserved
 * @ext_max_adverts: SrcAvails we take at a time: 1 or 0, as @max_adverts
 * @act_rcv_sz: our receive buffers' size, header included
 * @rsvd2: padding to SDP_HAH_SIZE
 */
struct sdp_hah {
	struct sdp_bsdh bsdh;
	u8 version;
	u8 ip_version;
	u8 rsvd1;
	u8 ext_max_adverts;
	__be32 act_rcv_sz;
	u8 rsvd2[SDP_HAH_SIZE - 24];
};

/**
 * struct sdp_srcah - what follows the BSDH of a SrcAvail
 * @len: bytes offered
 * @rkey: the R_Key of the memory that holds them
 * @vaddr: their address in that memory
 */
struct sdp_srcah {
	__be32 len;
	__be32 rkey;
	__be64 vaddr;
};

/**
 * struct sdp_zc_tx - the advert of a zero-copy sender (the data source)
 * @busy: an advert is out, or being made; no other data may be sent
 * @done: the sink's RdmaRdCompl came (or the connection ended)
 * @cancel_pending: a SrcAvailCancel waits for a credit
 * @len: bytes offered
 * @read: bytes the sink says it read (RdmaRdCompl)
 * @pages: the user pages pinned for it, @npages of them, or NULL
 * @npages: their number
 * @sgt: their scatterlist, @nents entries mapped for the device
 * @nents: the mapped entries, 0 if not mapped
 * @mr: the connection's MR for adverts (NULL: no zero copy as a source)
 * @reg_cqe: completion of the REG_MR
 * @inv_cqe: completion of the LOCAL_INV
 * @inv_done: the LOCAL_INV completed
 * @inv_status: its status
 * @answered: @done was set (the sender's wait after a cancel)
 */
struct sdp_zc_tx {
	bool busy;
	bool done;
	bool cancel_pending;
	u32 len;
	u32 read;
	struct page **pages;
	unsigned int npages;
	struct sg_table sgt;
	int nents;
	struct ib_mr *mr;
	struct ib_cqe reg_cqe;
	struct ib_cqe inv_cqe;
	struct completion inv_done;
	enum ib_wc_status inv_status;
	struct completion answered;
};

/**
 * struct sdp_zc_rx - the peer's advert, on the side of the sink
 * @active: a SrcAvail is in and not finished
 * @reading: an RDMA READ of it is in flight
 * @cancelled: the source cancelled it while a READ was in flight
 * @compl_pending: an RdmaRdCompl of @compl_size waits for a credit
 * @len: bytes offered
 * @done: bytes read
 * @rkey: the source's R_Key
 * @vaddr: the source's address
 * @compl_size: the size the pending RdmaRdCompl reports
 * @status: the completion status of the last READ
 * @cqe: completion of the READ
 * @read_done: the READ completed
 */
struct sdp_zc_rx {
	bool active;
	bool reading;
	bool cancelled;
	bool compl_pending;
	u32 len;
	u32 done;
	u32 rkey;
	u64 vaddr;
	u32 compl_size;
	enum ib_wc_status status;
	struct ib_cqe cqe;
	struct completion read_done;
};

/**
 * struct sdp_buf - a registered buffer: a receive buffer or a send slot
 * @cqe: its completion
 * @sdp: its socket
 * @data: the memory, BSDH first
 * @dma: its mapping, while @mapped
 * @mapped: mapped for the device
 * @busy: a send slot in use; a receive buffer posted or holding data
 * @list: a receive buffer holding data, in sdp_sock.rx_queue
 * @off: the next unread byte of a receive buffer (from @data)
 * @len: the message's length, header included
 */
struct sdp_buf {
	struct ib_cqe cqe;
	struct sdp_sock *sdp;
	void *data;
	u64 dma;
	bool mapped;
	bool busy;
	struct list_head list;
	u32 off;
	u32 len;
};

/**
 * struct sdp_sock - an SDP socket
 * @sk: the socket (first, for sk_alloc())
 * @node: in the module's list of sockets (/proc/net/sdp)
 * @family: AF_INET or AF_INET6 once bound or connected, else 0
 * @v6only: IPV6_V6ONLY
 * @tos: IP_TOS, stored only
 * @tclass: IPV6_TCLASS, stored only
 * @bound: bind() succeeded (or listen() bound it)
 * @bound_addr: the address it bound, port included
 * @local: the local address, kept when the id goes
 * @remote: the remote address, kept when the id goes
 * @nodelay: TCP_NODELAY, stored only
 * @id: the RDMA CM id, or NULL
 * @pd: the connection's protection domain
 * @cq: its CQ (sends and receives, polled in a work queue)
 * @qp: its RC QP
 * @lock: the data path state (see the top of the file)
 * @rx: the receive buffers, @rx_count of them
 * @rx_count: their number
 * @rx_size: their size and the send slots', header included
 * @rx_posted: those posted
 * @rx_queue: those holding data not read yet, in order
 * @rx_bytes: the bytes in @rx_queue, unread
 * @rx_seq: the last MSeq received
 * @adv_bufs: the Bufs of the last message we sent
 * @adv_seq: @rx_seq when we sent it
 * @tx: the send slots
 * @tx_size: the largest message we may send (the peer's buffer size)
 * @tx_free: free send slots
 * @tx_credits: credits not yet used nor reserved
 * @tx_reserved: credits reserved by a sender copying its data
 * @tx_seq: the MSeq of our next message
 * @tx_queued: data bytes posted and not completed (SIOCOUTQ)
 * @connected: the connection was established once
 * @peer_fin: the peer's DisConn arrived
 * @fin_pending: our DisConn is to be sent when a credit allows
 * @fin_posted: our DisConn was posted
 * @fin_done: our DisConn completed
 * @qp_dead: no more work requests may be posted
 * @destroy_queued: sdp_destroy_work is queued or running
 * @destroying: the teardown has begun; the event handler ignores events
 * @parent: a passive connection not accepted yet: its listener, referenced
 * @accept_list: in the listener's @syn_queue or @accept_queue
 * @syn_queue: a listener's connections being established
 * @accept_queue: a listener's connections ready for accept()
 * @backlog_len: the length of both queues
 * @destroy_work: sdp_destroy_work()
 * @close_work: the timeout of a graceful close
 * @bytes_sent: data bytes sent by buffered copy
 * @bytes_rcvd: data bytes received by buffered copy
 * @zc_peer: the peer takes SrcAvails (its Hello or HelloAck said so, and
 *	no SendSM since)
 * @zc_tx: our advert, as a source (under @lock, but its pages and MR are
 *	the socket lock's owner's)
 * @zc_rx: the peer's advert, as a sink (@lock)
 * @zc_sent: data bytes the peer read from us by RDMA READ
 * @zc_rcvd: data bytes we read from the peer by RDMA READ
 * @ka_work: sdp_keepalive_work(), armed while SO_KEEPALIVE is on and the
 *	connection is up
 * @ka_cqe: the completion of the keepalive probe
 * @ka_posted: a probe is in flight (@lock)
 * @ka_idle: TCP_KEEPIDLE in seconds, 0 for the namespace's default
 * @ka_intvl: TCP_KEEPINTVL in seconds, 0 for the namespace's default
 * @ka_cnt: TCP_KEEPCNT, 0 for the namespace's default (kept for
 *	getsockopt(); the RC transport's retries decide)
 * @last_rx: jiffies when the peer was last heard of (@lock)
 * @abort_posted: our AbortConn was posted (@lock)
 * @abort_done: it completed, or was flushed
 */
struct sdp_sock {
	struct sock sk;
	struct list_head node;
	sa_family_t family;
	bool v6only;
	u8 tos;
	u8 tclass;
	bool bound;
	struct sockaddr_storage bound_addr;
	struct sockaddr_storage local;
	struct sockaddr_storage remote;
	bool nodelay;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;

	spinlock_t lock;	/* data path state, queues, posting */
	struct sdp_buf *rx;
	u32 rx_count;
	u32 rx_size;
	u32 rx_posted;
	struct list_head rx_queue;
	u32 rx_bytes;
	u32 rx_seq;
	u32 adv_bufs;
	u32 adv_seq;
	struct sdp_buf *tx;
	u32 tx_size;
	u32 tx_free;
	int tx_credits;
	int tx_reserved;
	u32 tx_seq;
	u32 tx_queued;
	bool connected;
	bool peer_fin;
	bool fin_pending;
	bool fin_posted;
	bool fin_done;
	bool qp_dead;
	bool destroy_queued;
	bool destroying;

	struct sdp_sock *parent;
	struct list_head accept_list;
	struct list_head syn_queue;
	struct list_head accept_queue;
	int backlog_len;

	struct work_struct destroy_work;
	struct delayed_work close_work;
	u64 bytes_sent;
	u64 bytes_rcvd;
	bool zc_peer;
	struct sdp_zc_tx zc_tx;
	struct sdp_zc_rx zc_rx;
	u64 zc_sent;
	u64 zc_rcvd;

	struct delayed_work ka_work;
	struct ib_cqe ka_cqe;
	bool ka_posted;
	u16 ka_idle;
	u16 ka_intvl;
	u8 ka_cnt;
	unsigned long last_rx;
	bool abort_posted;
	struct completion abort_done;
};

static inline struct sdp_sock *sdp_sk(const struct sock *sk)
{
	return (struct sdp_sock *)sk;
}

/* module parameters (sdp_main.c) */
extern unsigned int sdp_rx_bufs;
extern unsigned int sdp_buf_size;
extern unsigned int sdp_zcopy_thresh;

/* sdp_main.c */
extern struct workqueue_struct *sdp_wq;
struct sock *sdp_sk_alloc(struct net *net, struct socket *sock, int kern);
void sdp_queue_destroy(struct sdp_sock *sdp);
void sdp_reset_locked(struct sdp_sock *sdp, int err);
void sdp_destroy_work(struct work_struct *work);
void sdp_list_lock(void);
void sdp_list_unlock(void);
struct list_head *sdp_list(void);

/* sdp_cma.c */
int sdp_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);
struct rdma_cm_id *sdp_create_id(struct sdp_sock *sdp);
int sdp_conn_alloc(struct sdp_sock *sdp, struct rdma_cm_id *id);
void sdp_conn_free(struct sdp_sock *sdp);
void sdp_child_unlink(struct sdp_sock *sdp);

/* sdp_rx.c */
int sdp_post_recvs(struct sdp_sock *sdp);
void sdp_rx_done(struct ib_cq *cq, struct ib_wc *wc);
int sdp_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		int flags);
void sdp_rx_consumed_locked(struct sdp_sock *sdp, struct sdp_buf *buf);

/* sdp_tx.c */
void sdp_tx_done(struct ib_cq *cq, struct ib_wc *wc);
int sdp_sendmsg(struct socket *sock, struct msghdr *msg, size_t len);
void sdp_tx_flush_locked(struct sdp_sock *sdp);
void sdp_credits_locked(struct sdp_sock *sdp, const struct sdp_bsdh *h);
bool sdp_writable(const struct sdp_sock *sdp);
bool sdp_post_ctrl_locked(struct sdp_sock *sdp, u8 mid, const void *ext,
			  u32 ext_len);
int sdp_wait_writable(struct sock *sk, long *timeo);
struct sdp_buf *sdp_slot_get_locked(struct sdp_sock *sdp);
void sdp_slot_put_locked(struct sdp_sock *sdp, struct sdp_buf *slot);
int sdp_post_locked(struct sdp_sock *sdp, struct sdp_buf *slot, u8 mid,
		    u32 payload);

/* sdp_zcopy.c */
int sdp_zc_conn_alloc(struct sdp_sock *sdp);
void sdp_zc_conn_free(struct sdp_sock *sdp);
bool sdp_zc_usable(const struct sdp_sock *sdp, const struct msghdr *msg,
		   size_t len, long timeo);
ssize_t sdp_zc_send(struct sdp_sock *sdp, struct msghdr *msg, size_t len,
		    long *timeo, bool *declined);
ssize_t sdp_zc_recv(struct sdp_sock *sdp, struct msghdr *msg, size_t len);
void sdp_zc_decline_locked(struct sdp_sock *sdp);
void sdp_zc_flush_locked(struct sdp_sock *sdp);
bool sdp_zc_rx_msg_locked(struct sdp_sock *sdp, u8 mid, const void *ext,
			  u32 ext_len);

/* sdp_keepalive.c */
void sdp_keepalive_init(struct sdp_sock *sdp);
void sdp_keepalive_set(struct sock *sk, int on);
void sdp_keepalive_arm_locked(struct sdp_sock *sdp);
void sdp_keepalive_stop(struct sdp_sock *sdp);
int sdp_keepalive_setsockopt(struct sdp_sock *sdp, int optname, int val);
int sdp_keepalive_getsockopt(const struct sdp_sock *sdp, int optname);

/* sdp_proc.c */

/*
 * The counters of a network namespace, /proc/net/sdpstats: they outlive
 * the sockets, so that what went over SDP can be told afterwards.
 */
enum sdp_stat {
	SDP_STAT_ACTIVE_OPENS,		/* connect()s established */
	SDP_STAT_PASSIVE_OPENS,		/* connections a listener established */
	SDP_STAT_ATTEMPT_FAILS,		/* connections reset while being set up */
	SDP_STAT_RESETS,		/* established connections reset */
	SDP_STAT_TX_BCOPY,		/* data bytes sent by buffered copy */
	SDP_STAT_RX_BCOPY,		/* data bytes received by buffered copy */
	SDP_STAT_TX_ZCOPY,		/* data bytes the peer read by RDMA */
	SDP_STAT_RX_ZCOPY,		/* data bytes we read by RDMA */
	SDP_STAT_KA_PROBES,		/* keepalive probes sent */
	SDP_STAT_KA_TIMEOUTS,		/* connections a probe found dead */
	SDP_STAT_ABORTS_SENT,		/* AbortConn sent (abortive closes) */
	SDP_STAT_ABORTS_RCVD,		/* AbortConn received */
	SDP_STAT_NR
};

void sdp_stat_add(const struct sdp_sock *sdp, enum sdp_stat stat, u64 n);
int sdp_proc_init(void);
void sdp_proc_exit(void);

#endif /* SDP_H */
