/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IP over InfiniBand (RFC 4391, 4392): what the files of ib_ipoib share.
 *
 * One net device (struct ipoib_dev_priv) per InfiniBand port, named ib%d,
 * and any number of P_Key children under it.  Each has its own UD QP, its
 * own paths and multicast groups, and its own ordered work queue on which
 * every slow-path task runs: joins, path resolution, flushes after port
 * events, garbage collection, MTU changes.
 *
 * Locking, from the outside in:
 *   - RTNL: net device registration, the children of a parent, MTU and
 *     address changes; no work item waits for it (they try it and come
 *     back later), so that ndo_stop and ndo_uninit may wait for them.
 *   - priv->state_mutex: serialises bringing the transport and the
 *     multicast machinery up and down (ndo_open, ndo_stop and the flushes
 *     after port events).
 *   - priv->lock: the paths, the neighbours and the multicast groups (see
 *     struct ipoib_dev_priv); taken with interrupts off.
 *   - priv->ah_lock: the address handles waiting to be destroyed.
 *   - the TX lock of the net device serialises the send ring's producer;
 *     its consumer is the send NAPI.
 *   - idev->lock: the net devices of one HCA (for its event handler, and
 *     for the RDMA CM's question which of them a request is for, which
 *     takes priv->lock inside it).
 */
#ifndef IPOIB_H
#define IPOIB_H

#include <linux/bitops.h>
#include <linux/hashtable.h>
#include <linux/if_infiniband.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rbtree.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#define IPOIB_DRV_NAME		"ib_ipoib"

/* The 4-byte encapsulation header that precedes every IPoIB payload. */
struct ipoib_header {
	__be16	proto;
	__be16	reserved;
};

/*
 * The destination hardware address, pushed in front of the encapsulation
 * header by header_ops->create and taken off again by ndo_start_xmit: it
 * never goes on the wire.  On receive it is zero.
 */
struct ipoib_pseudo_header {
	u8	hwaddr[INFINIBAND_ALEN];
};

enum {
	IPOIB_ENCAP_LEN		= sizeof(struct ipoib_header),
	IPOIB_PSEUDO_LEN	= sizeof(struct ipoib_pseudo_header),
	IPOIB_HARD_LEN		= IPOIB_ENCAP_LEN + IPOIB_PSEUDO_LEN,
	/* a UD receive buffer starts with room for the GRH */
	IPOIB_GRH_BYTES		= 40,
	/* the largest MTU of connected mode, and the net device's max_mtu */
	IPOIB_CM_MTU		= 0x10000 - 0x10,
	IPOIB_MIN_MTU		= 68,

	IPOIB_RX_RING_DEFAULT	= 256,
	IPOIB_TX_RING_DEFAULT	= 128,
	IPOIB_MIN_QUEUE_SIZE	= 2,
	IPOIB_MAX_QUEUE_SIZE	= 8192,
	/* completions taken from a CQ in one ib_poll_cq() call */
	IPOIB_NUM_WC		= 16,
	/* received frames no longer than this are copied (the buffer stays) */
	IPOIB_RX_COPYBREAK	= 256,

	/* packets held for a path being resolved, and for a group joining */
	IPOIB_MAX_PATH_QUEUE	= 8,
	IPOIB_MAX_MCAST_QUEUE	= 64,
	/* groups joined to send only, at most */
	IPOIB_MAX_SENDONLY	= 256,
	/* the SA's time to answer a PathRecord query, and join back-off */
	IPOIB_PATH_TIMEOUT_MS	= 1000,
	IPOIB_MAX_BACKOFF_SEC	= 16,
	/* neighbours unused this long are collected, this often */
	IPOIB_NEIGH_IDLE_SEC	= 120,
	IPOIB_GC_INTERVAL_SEC	= 30,
	/* how long ndo_stop waits for the QP's outstanding work requests */
	IPOIB_DRAIN_TIMEOUT_MS	= 5000,

	IPOIB_NEIGH_HASH_BITS	= 8,

	/* connected mode (ipoib_cm.c) */
	/* the largest RC message: the largest MTU and the encap. header */
	IPOIB_CM_BUF_SIZE	= IPOIB_CM_MTU + IPOIB_ENCAP_LEN,
	/* the linear part of a receive buffer; the rest are pages */
	IPOIB_CM_HEAD_SIZE	= 512,
	IPOIB_CM_RX_PAGES	= DIV_ROUND_UP(IPOIB_CM_BUF_SIZE -
					       IPOIB_CM_HEAD_SIZE, PAGE_SIZE),
	IPOIB_CM_RX_SGE		= IPOIB_CM_RX_PAGES + 1,
	/* receive buffers on the SRQ that every passive connection shares */
	IPOIB_CM_RX_RING	= 128,
	/* passive connections an interface accepts, at most */
	IPOIB_CM_MAX_RX		= 128,
	/* a passive connection that received nothing this long is ended */
	IPOIB_CM_RX_IDLE_SEC	= 256,
	/* the smallest message a peer may say it receives */
	IPOIB_CM_MIN_MSG	= IPOIB_MIN_MTU + IPOIB_ENCAP_LEN,
};

/* The service ID of a port's connected mode: this | its UD QPN (draft). */
#define IPOIB_CM_IETF_ID	0x1000000ULL
/* wr_id bit of the requests of connected mode on the shared CQs */
#define IPOIB_OP_CM		BIT_ULL(31)

/**
 * struct ipoib_cm_data - the private data of a connected mode REQ and REP
 * @qpn: the sender's UD QPN
 * @mtu: the largest message the sender receives, the encapsulation
 *	header included
 */
struct ipoib_cm_data {
	__be32	qpn;
	__be32	mtu;
};

/* The QPN that addresses a multicast group, and the flags byte's bits. */
#define IPOIB_MCAST_QPN		0xffffffU
#define IPOIB_QPN_MASK		0xffffffU
#define IPOIB_HWADDR_RC		0x80	/* connected mode offered */

/* Send and receive Q_Key of a port before the broadcast group names one. */
#define IPOIB_INIT_QKEY		0

/* The payload an IB MTU leaves for IP: the encapsulation header is off. */
#define IPOIB_UD_MTU(ib_mtu)	((ib_mtu) - IPOIB_ENCAP_LEN)
/* A receive buffer: the GRH's room, then the largest IB payload. */
#define IPOIB_UD_BUF_SIZE(ib_mtu) (IPOIB_GRH_BYTES + (ib_mtu))

/* bits of priv->flags */
enum {
	IPOIB_FLAG_ADMIN_UP,		/* ndo_open'ed */
	IPOIB_FLAG_OPER_UP,		/* transport up, paths may resolve */
	IPOIB_FLAG_MCAST_UP,		/* groups may be joined */
	IPOIB_FLAG_INITIALIZED,		/* QP in RTS with receives posted */
	IPOIB_FLAG_PKEY_ASSIGNED,	/* our P_Key is in the port's table */
	IPOIB_FLAG_UMCAST,		/* leave groups userspace joined alone */
	IPOIB_FLAG_DYING,		/* being unregistered: no more work */
	IPOIB_FLAG_DRAINING,		/* ndo_stop drains the rings */
	IPOIB_FLAG_GROUP_MTU,		/* the link task sets the MTU */
	IPOIB_FLAG_ADMIN_CM,		/* connected mode chosen */
};

/* how deep a flush after a port event goes (see ipoib_event.c) */
enum ipoib_flush_level {
	IPOIB_FLUSH_LIGHT,	/* paths stale, groups rejoined */
	IPOIB_FLUSH_NORMAL,	/* everything down and up again */
	IPOIB_FLUSH_HEAVY,	/* and the P_Key looked up again */
};

/**
 * struct ipoib_flush_work - a flush of one level
 * @work: on the interface's work queue
 * @priv: the interface
 * @level: how deep it goes
 */
struct ipoib_flush_work {
	struct work_struct	work;
	struct ipoib_dev_priv	*priv;
	enum ipoib_flush_level	level;
};

/* how a net device came to be */
enum ipoib_child_type {
	IPOIB_PARENT,		/* one per port, made at ib_client add */
	IPOIB_LEGACY_CHILD,	/* made through create_child */
	IPOIB_RTNL_CHILD,	/* made through ip link add */
};

/* bits of ipoib_mcast->flags */
enum {
	IPOIB_MCAST_SENDONLY,	/* joined to send only */
	IPOIB_MCAST_BUSY,	/* a join is in flight */
	IPOIB_MCAST_JOINED,	/* the SA said yes; mcmember is valid */
	IPOIB_MCAST_READY,	/* attached (unless send-only), AH made */
	IPOIB_MCAST_ATTACHED,	/* the QP is attached */
	IPOIB_MCAST_FOUND,	/* still in the device's list (rx mode sync) */
};

/**
 * enum ipoib_rx_verdict - what becomes of a received frame
 * @IPOIB_RX_OK: passed up the stack
 * @IPOIB_RX_SHORT: shorter than the GRH's room and the encapsulation
 *	header, or than the ARP packet its header announces
 * @IPOIB_RX_BAD_PROTO: an EtherType IPoIB does not carry (RFC 4391
 *	carries IPv4, ARP and IPv6)
 * @IPOIB_RX_BAD_SOURCE: a source QPN or LID no port can have, or a
 *	multicast GID as the source
 * @IPOIB_RX_BAD_ARP: an ARP packet that is not IPoIB's (hardware type 32,
 *	20-byte addresses, IPv4), or whose sender address names another QP
 *	or port than the one that sent it
 * @IPOIB_RX_OWN: our own multicast frame, looped back by the fabric
 */
enum ipoib_rx_verdict {
	IPOIB_RX_OK,
	IPOIB_RX_SHORT,
	IPOIB_RX_BAD_PROTO,
	IPOIB_RX_BAD_SOURCE,
	IPOIB_RX_BAD_ARP,
	IPOIB_RX_OWN,
};

/**
 * struct ipoib_rx_info - what a receive completion says about a frame
 * @byte_len: bytes in the buffer, the GRH's 40 included
 * @src_qp: the sender's QPN
 * @slid: the sender's LID
 * @grh: whether the frame came with a GRH (multicast does)
 * @local_lid: our port's LID
 * @local_qpn: our QP's number
 */
struct ipoib_rx_info {
	u32	byte_len;
	u32	src_qp;
	u32	slid;
	bool	grh;
	u32	local_lid;
	u32	local_qpn;
};

/**
 * struct ipoib_counters - frames dropped and why, for ethtool -S
 * @rx_short: enum ipoib_rx_verdict
 * @rx_bad_proto: enum ipoib_rx_verdict
 * @rx_bad_source: enum ipoib_rx_verdict
 * @rx_bad_arp: enum ipoib_rx_verdict
 * @rx_own_mcast: our own multicast frames (not errors)
 * @rx_no_buffer: no buffer to replace the one received into
 * @rx_wc_error: receive completions in error, flushes excepted
 * @tx_no_path: no path to the destination (the SA said no)
 * @tx_path_queue_full: dropped while the path was being resolved
 * @tx_mcast_queue_full: dropped while a group was being joined
 * @tx_mcast_no_group: dropped: the group could not be joined
 * @tx_too_big: longer than the broadcast group's MTU allows
 * @tx_bad_frame: too short to hold the pseudo and encapsulation headers
 * @tx_post_error: refused by ib_post_send()
 * @tx_wc_error: send completions in error, flushes excepted
 * @tx_ring_full: the send ring stopped the queue
 * @cm_tx_conns: active connections (ours) now
 * @cm_rx_conns: passive connections (the peers') now
 * @cm_tx_established: active connections made
 * @cm_rx_accepted: passive connections accepted
 * @cm_tx_rejected: connections refused or failed: the peer is sent
 *	datagrams
 * @cm_rx_refused: REQs refused (bad private data, too many, not ours)
 * @cm_rx_stale: passive connections ended because they were idle
 * @cm_rx_drop: frames received on a connection and dropped
 * @cm_tx_drop: frames too long for a connection or refused by it
 *
 * Each counter has its own atomic: they are counted from the data path,
 * the work queue and the SA's callbacks alike.
 */
struct ipoib_counters {
	atomic_long_t	rx_short;
	atomic_long_t	rx_bad_proto;
	atomic_long_t	rx_bad_source;
	atomic_long_t	rx_bad_arp;
	atomic_long_t	rx_own_mcast;
	atomic_long_t	rx_no_buffer;
	atomic_long_t	rx_wc_error;
	atomic_long_t	tx_no_path;
	atomic_long_t	tx_path_queue_full;
	atomic_long_t	tx_mcast_queue_full;
	atomic_long_t	tx_mcast_no_group;
	atomic_long_t	tx_too_big;
	atomic_long_t	tx_bad_frame;
	atomic_long_t	tx_post_error;
	atomic_long_t	tx_wc_error;
	atomic_long_t	tx_ring_full;
	atomic_long_t	cm_tx_conns;
	atomic_long_t	cm_rx_conns;
	atomic_long_t	cm_tx_established;
	atomic_long_t	cm_rx_accepted;
	atomic_long_t	cm_tx_rejected;
	atomic_long_t	cm_rx_refused;
	atomic_long_t	cm_rx_stale;
	atomic_long_t	cm_rx_drop;
	atomic_long_t	cm_tx_drop;
};

#define ipoib_count(priv, what)	atomic_long_inc(&(priv)->counters.what)

/**
 * struct ipoib_ah - an address handle shared by the sends that use it
 * @priv: the net device's private part
 * @ah: the verbs AH
 * @ref: one per holder: a path, a neighbour, a group, every posted send
 * @dead: entry in priv->dead_ahs once the last reference is gone
 *
 * The last reference may go in softirq context (a send completion), where
 * an AH cannot be destroyed: the AH then waits on priv->dead_ahs for the
 * reaper work.
 */
struct ipoib_ah {
	struct ipoib_dev_priv	*priv;
	struct ib_ah		*ah;
	struct kref		ref;
	struct list_head	dead;
};

/**
 * struct ipoib_path - the way to one destination port GID
 * @priv: the net device's private part
 * @node: entry in priv->path_tree, by @dgid
 * @list: entry in priv->path_list
 * @dgid: the destination
 * @rec: the SA's answer, once there was one
 * @ah: the AH made from @rec, or NULL (a reference)
 * @valid: @ah is current; a light flush clears it, and the next send asks
 *	the SA again while @ah keeps being used
 * @querying: a PathRecord query is in flight (@query, @query_id)
 * @want_query: a send asked for a query that has not started yet
 * @result_ready: the SA answered (@status, @rec); the path task uses it
 * @status: the answer's status
 * @query: the SA query, for ib_sa_cancel_query()
 * @query_id: its id
 * @done: completed when no query is in flight
 * @queue: packets waiting for @ah, at most IPOIB_MAX_PATH_QUEUE
 * @neighs: the neighbours using this path
 * @ref: the tree's reference and one per user outside priv->lock
 *
 * Everything but @ref is protected by priv->lock.
 */
struct ipoib_path {
	struct ipoib_dev_priv	*priv;
	struct rb_node		node;
	struct list_head	list;
	union ib_gid		dgid;
	struct sa_path_rec	rec;
	struct ipoib_ah		*ah;
	bool			valid;
	bool			querying;
	bool			want_query;
	bool			result_ready;
	int			status;
	struct ib_sa_query	*query;
	int			query_id;
	struct completion	done;
	struct sk_buff_head	queue;
	struct list_head	neighs;
	struct kref		ref;
};

/**
 * struct ipoib_neigh - a destination hardware address (QPN and GID)
 * @daddr: the 20-byte address
 * @hnode: entry in priv->neigh_hash
 * @path_entry: entry in @path's neighs
 * @path: the path to the address's GID (the path outlives the neighbour)
 * @ah: the path's AH when the neighbour last saw it, or NULL (a reference)
 * @alive: jiffies of the last send to it
 * @cm: its connection in connected mode, or NULL (RCU readers)
 * @cm_failed: the peer refused a connection: datagrams only
 * @rcu: the neighbour is freed after a grace period
 *
 * Looked up under RCU by the send path; added, changed and removed under
 * priv->lock.  @ah is only read under RCU: a removed neighbour's reference
 * is dropped after the grace period.
 */
struct ipoib_neigh {
	u8			daddr[INFINIBAND_ALEN];
	struct hlist_node	hnode;
	struct list_head	path_entry;
	struct ipoib_path	*path;
	struct ipoib_ah __rcu	*ah;
	unsigned long		alive;
	struct ipoib_cm_tx __rcu *cm;
	bool			cm_failed;
	struct rcu_head		rcu;
};

/**
 * struct ipoib_mcast - a multicast group the device sends to or receives
 * @priv: the net device's private part
 * @node: entry in priv->mcast_tree, by @mgid
 * @list: entry in priv->mcast_list
 * @mgid: the group
 * @mcmember: the SA's record of our membership, while JOINED
 * @mc: the membership, while JOINED (set by the join callback)
 * @ah: the AH to the group, while READY (a reference)
 * @flags: IPOIB_MCAST_* bits
 * @backoff: seconds to wait after the next failed join
 * @delay_until: jiffies before which no join is tried again
 * @alive: jiffies of the last send to a send-only group
 * @done: completed when no join callback is due
 * @pkt_queue: packets sent before the group was ready
 *
 * Protected by priv->lock; @done and the BUSY bit order the join
 * callback against the group's end.
 */
struct ipoib_mcast {
	struct ipoib_dev_priv	*priv;
	struct rb_node		node;
	struct list_head	list;
	union ib_gid		mgid;
	struct ib_sa_mcmember_rec mcmember;
	struct ib_sa_multicast	*mc;
	struct ipoib_ah		*ah;
	unsigned long		flags;
	unsigned int		backoff;
	unsigned long		delay_until;
	unsigned long		alive;
	struct completion	done;
	struct sk_buff_head	pkt_queue;
};

/**
 * struct ipoib_rx_buf - one receive buffer
 * @skb: the buffer
 * @mapping: its DMA address
 * @posted: on the receive queue, its completion still to come
 */
struct ipoib_rx_buf {
	struct sk_buff	*skb;
	u64		mapping;
	bool		posted;
};

/**
 * struct ipoib_tx_buf - one posted send
 * @skb: the packet
 * @ah: the AH it was sent with (a reference)
 * @mapping: DMA addresses of the linear part and of each fragment
 * @nr_maps: entries of @mapping in use
 */
struct ipoib_tx_buf {
	struct sk_buff	*skb;
	struct ipoib_ah	*ah;
	u64		mapping[MAX_SKB_FRAGS + 1];
	unsigned int	nr_maps;
};

/**
 * struct ipoib_cm_rx_buf - one receive buffer of the SRQ
 * @skb: the linear part, IPOIB_CM_HEAD_SIZE bytes
 * @pages: the rest, a page each
 * @mapping: DMA addresses of @skb's data and of each page
 */
struct ipoib_cm_rx_buf {
	struct sk_buff	*skb;
	struct page	*pages[IPOIB_CM_RX_PAGES];
	u64		mapping[IPOIB_CM_RX_SGE];
};

/**
 * struct ipoib_cm_rx - a passive connection: a peer sends to us
 * @priv: the interface
 * @list: entry in priv->cm.rx_list or rx_dead
 * @id: its CM identifier
 * @qp: its RC QP, on the SRQ
 * @remote_qpn: the peer's UD QPN (REQ private data)
 * @alive: jiffies of the last frame received
 * @dead: on rx_dead (priv->lock)
 * @drained: the QP, in error, takes no more WQEs from the SRQ (its Last
 *	WQE Reached event came)
 */
struct ipoib_cm_rx {
	struct ipoib_dev_priv	*priv;
	struct list_head	list;
	struct ib_cm_id		*id;
	struct ib_qp		*qp;
	u32			remote_qpn;
	unsigned long		alive;
	bool			dead;
	bool			drained;
};

/* the life of an active connection (struct ipoib_cm_tx) */
enum ipoib_cm_tx_state {
	IPOIB_CM_TX_NEW,	/* on the start list */
	IPOIB_CM_TX_REQ,	/* REQ sent */
	IPOIB_CM_TX_UP,		/* RTU sent: frames go over it */
	IPOIB_CM_TX_DEAD,	/* on tx_dead */
};

/**
 * struct ipoib_cm_tx - an active connection: we send to a peer
 * @priv: the interface
 * @list: entry in priv->cm.tx_list or tx_dead
 * @start: entry in priv->cm.start_list while NEW
 * @neigh: the neighbour it serves, NULL once detached (priv->lock)
 * @daddr: the neighbour's hardware address
 * @id: its CM identifier, once the REQ is to be sent
 * @qp: its RC QP
 * @state: enum ipoib_cm_tx_state (priv->lock)
 * @mtu: the largest message the peer receives (REP private data)
 * @queue: frames waiting for the connection, with pseudo header
 * @ring: priv->tx_size posted sends
 * @tx_head: sends posted (TX lock)
 * @tx_tail: sends completed (send NAPI)
 */
struct ipoib_cm_tx {
	struct ipoib_dev_priv	*priv;
	struct list_head	list;
	struct list_head	start;
	struct ipoib_neigh	*neigh;
	u8			daddr[INFINIBAND_ALEN];
	struct ib_cm_id		*id;
	struct ib_qp		*qp;
	enum ipoib_cm_tx_state	state;
	unsigned int		mtu;
	struct sk_buff_head	queue;
	struct ipoib_tx_buf	*ring;
	unsigned int		tx_head;
	unsigned int		tx_tail;
};

/**
 * struct ipoib_cm_dev - an interface's connected mode
 * @mutex: serialises starting connections and reaping dead ones (which
 *	quiesces the NAPI instances), and opening and stopping
 * @running: the SRQ and listener exist (under @mutex and priv->lock)
 * @listen_id: the listener on IPOIB_CM_IETF_ID | UD QPN
 * @srq: the shared receive queue of the passive connections
 * @rx_ring: its buffers
 * @rx_size: IPOIB_CM_RX_RING, or fewer if the HCA allows fewer
 * @rx_list: passive connections (priv->lock)
 * @rx_dead: passive connections to destroy (priv->lock)
 * @n_rx: entries on @rx_list (priv->lock)
 * @tx_list: active connections (priv->lock)
 * @tx_dead: active connections to destroy (priv->lock)
 * @start_list: active connections to start (priv->lock)
 * @tx_outstanding: sends posted on every active connection and not
 *	completed; bounded by priv->tx_size (the send CQ's room)
 * @start_task: starts connections
 * @reap_task: destroys dead connections
 */
struct ipoib_cm_dev {
	/* serialises start, reap, open and stop */
	struct mutex		mutex;
	bool			running;
	struct ib_cm_id		*listen_id;
	struct ib_srq		*srq;
	struct ipoib_cm_rx_buf	*rx_ring;
	unsigned int		rx_size;
	struct list_head	rx_list;
	struct list_head	rx_dead;
	unsigned int		n_rx;
	struct list_head	tx_list;
	struct list_head	tx_dead;
	struct list_head	start_list;
	atomic_t		tx_outstanding;
	struct work_struct	start_task;
	struct work_struct	reap_task;
};

/**
 * struct ipoib_device - ib_ipoib's part of one HCA (its client data)
 * @ca: the HCA
 * @event_handler: its port events
 * @lock: protects @privs
 * @privs: every net device on the HCA, parents and children
 * @parents: the parent net devices, in port order (made at add)
 */
struct ipoib_device {
	struct ib_device	*ca;
	struct ib_event_handler	event_handler;
	/* protects privs and parents */
	struct mutex		lock;
	struct list_head	privs;
	struct list_head	parents;
};

/**
 * struct ipoib_dev_priv - one IPoIB net device
 * @dev: the net device
 * @idev: the HCA's part
 * @ca: the HCA
 * @port: the port
 * @parent: the parent of a child, NULL for a parent
 * @children: a parent's children (under RTNL)
 * @child_entry: entry in the parent's @children
 * @child_type: enum ipoib_child_type
 * @dev_entry: entry in idev->privs
 * @parent_entry: entry in idev->parents (parents only)
 * @pkey: the P_Key, full membership bit set
 * @pkey_index: its index in the port's table, while PKEY_ASSIGNED
 * @flags: IPOIB_FLAG_* bits
 * @state_mutex: serialises up and down (see the top of this file)
 * @pd: the protection domain
 * @recv_cq: receive completions, polled by @recv_napi
 * @send_cq: send completions, polled by @send_napi
 * @qp: the UD QP
 * @qkey: the broadcast group's Q_Key (IPOIB_INIT_QKEY before it)
 * @recv_napi: the receive poller
 * @send_napi: the send completion poller
 * @rx_ring: @rx_size receive buffers
 * @rx_size: a power of two
 * @tx_ring: @tx_size posted sends
 * @tx_size: a power of two
 * @tx_head: sends posted (TX lock)
 * @tx_tail: sends completed (send NAPI)
 * @max_send_sge: gather entries a send may have
 * @max_ib_mtu: the port's largest IB MTU in bytes; sizes @rx_ring
 * @mcast_mtu: the broadcast group's IB MTU less the encapsulation header
 * @admin_mtu: the MTU the administrator asked for
 * @local_lid: the port's LID, as last seen
 * @local_gid: the port's GID 0, as last seen
 * @lock: protects the paths, neighbours and groups below
 * @path_tree: paths by destination GID
 * @path_list: the same paths
 * @neigh_hash: neighbours by hardware address (RCU readers)
 * @mcast_tree: groups by MGID
 * @mcast_list: the same groups
 * @broadcast: the broadcast group, or NULL
 * @sendonly_full: the SA takes send-only full member joins
 * @n_sendonly: groups joined to send only
 * @ah_lock: protects @dead_ahs
 * @dead_ahs: AHs whose last reference is gone, for @reap_task
 * @wq: the device's ordered work queue
 * @mcast_task: joins what needs joining
 * @restart_task: follows the device's multicast list
 * @path_task: starts PathRecord queries and uses their answers
 * @reap_task: destroys dead AHs
 * @gc_task: collects idle neighbours and paths
 * @link_task: the address, MTU and carrier the port and broadcast group
 *	allow (needs RTNL)
 * @flush: one per enum ipoib_flush_level
 * @counters: drops and their causes
 * @cm: connected mode
 */
struct ipoib_dev_priv {
	struct net_device	*dev;
	struct ipoib_device	*idev;
	struct ib_device	*ca;
	u32			port;
	struct net_device	*parent;
	struct list_head	children;
	struct list_head	child_entry;
	enum ipoib_child_type	child_type;
	struct list_head	dev_entry;
	struct list_head	parent_entry;

	u16			pkey;
	u16			pkey_index;
	unsigned long		flags;
	/* serialises bringing the interface up and down */
	struct mutex		state_mutex;

	struct ib_pd		*pd;
	struct ib_cq		*recv_cq;
	struct ib_cq		*send_cq;
	struct ib_qp		*qp;
	u32			qkey;
	struct napi_struct	recv_napi;
	struct napi_struct	send_napi;
	struct ipoib_rx_buf	*rx_ring;
	unsigned int		rx_size;
	struct ipoib_tx_buf	*tx_ring;
	unsigned int		tx_size;
	unsigned int		tx_head;
	unsigned int		tx_tail;
	unsigned int		max_send_sge;
	unsigned int		max_ib_mtu;
	unsigned int		mcast_mtu;
	unsigned int		admin_mtu;
	u32			local_lid;
	union ib_gid		local_gid;

	/* protects the paths, neighbours and groups */
	spinlock_t		lock;
	struct rb_root		path_tree;
	struct list_head	path_list;
	DECLARE_HASHTABLE(neigh_hash, IPOIB_NEIGH_HASH_BITS);
	struct rb_root		mcast_tree;
	struct list_head	mcast_list;
	struct ipoib_mcast	*broadcast;
	bool			sendonly_full;
	unsigned int		n_sendonly;

	/* protects dead_ahs */
	spinlock_t		ah_lock;
	struct list_head	dead_ahs;

	struct workqueue_struct	*wq;
	struct delayed_work	mcast_task;
	struct work_struct	restart_task;
	struct work_struct	path_task;
	struct work_struct	reap_task;
	struct delayed_work	gc_task;
	struct delayed_work	link_task;
	struct ipoib_flush_work	flush[IPOIB_FLUSH_HEAVY + 1];

	struct ipoib_counters	counters;
	struct ipoib_cm_dev	cm;
};

static inline struct ipoib_dev_priv *ipoib_priv(const struct net_device *dev)
{
	return netdev_priv(dev);
}

/* A destination hardware address names a multicast group. */
static inline bool ipoib_is_mcast_addr(const u8 *daddr)
{
	return daddr[4] == 0xff;
}

/* The QPN in a hardware address. */
static inline u32 ipoib_addr_qpn(const u8 *addr)
{
	return ((u32)addr[1] << 16) | ((u32)addr[2] << 8) | addr[3];
}

/* ipoib_main.c */
extern struct ib_sa_client ipoib_sa_client;
extern unsigned int ipoib_recvq_size;
extern unsigned int ipoib_sendq_size;

void ipoib_setup(struct net_device *dev);
int ipoib_init_netdev(struct net_device *dev, struct ib_device *ca, u32 port);
struct net_device *ipoib_alloc_netdev(struct ib_device *ca, u32 port,
				      const char *name,
				      unsigned char name_assign_type);
int ipoib_register_netdev(struct net_device *dev, struct ipoib_device *idev,
			  u16 pkey);
bool ipoib_is_ipoib_dev(const struct net_device *dev);
int ipoib_set_mode(struct net_device *dev, u16 mode);
void ipoib_set_umcast(struct net_device *dev, bool on);

void ipoib_build_hw_addr(u8 *addr, u8 flags, u32 qpn,
			 const union ib_gid *gid);
void ipoib_build_bcast_addr(u8 *addr, u16 pkey);

/* ipoib_ib.c */
int ipoib_tx_map(struct ipoib_dev_priv *priv, struct ipoib_tx_buf *buf,
		 struct ib_sge *sge);
void ipoib_tx_unmap(struct ipoib_dev_priv *priv, struct ipoib_tx_buf *buf);
bool ipoib_tx_may_wake(struct ipoib_dev_priv *priv);
void ipoib_sweep_cqs(struct ipoib_dev_priv *priv);
enum ipoib_rx_verdict ipoib_rx_check_arp(const u8 *arp, u32 len,
					 const struct ib_grh *grh,
					 u32 src_qp);
void ipoib_rx_drop(struct ipoib_dev_priv *priv,
		   enum ipoib_rx_verdict verdict);
int ipoib_transport_init(struct ipoib_dev_priv *priv);
void ipoib_transport_cleanup(struct ipoib_dev_priv *priv);
int ipoib_ib_open(struct ipoib_dev_priv *priv);
void ipoib_ib_stop(struct ipoib_dev_priv *priv);
int ipoib_set_qkey(struct ipoib_dev_priv *priv, u32 qkey);
void ipoib_send(struct ipoib_dev_priv *priv, struct sk_buff *skb,
		struct ipoib_ah *ah, u32 qpn);
struct ipoib_ah *ipoib_create_ah(struct ipoib_dev_priv *priv,
				 struct rdma_ah_attr *attr);
void ipoib_put_ah(struct ipoib_ah *ah);
void ipoib_reap_task(struct work_struct *work);
void ipoib_reap_ahs(struct ipoib_dev_priv *priv);

static inline void ipoib_get_ah(struct ipoib_ah *ah)
{
	kref_get(&ah->ref);
}

/* ipoib_path.c */
void ipoib_path_init(struct ipoib_dev_priv *priv);
void ipoib_unicast_send(struct ipoib_dev_priv *priv, struct sk_buff *skb,
			const u8 *daddr);
void ipoib_path_task(struct work_struct *work);
void ipoib_gc_task(struct work_struct *work);
void ipoib_mark_paths_invalid(struct ipoib_dev_priv *priv);
void ipoib_flush_paths(struct ipoib_dev_priv *priv);

/* ipoib_multicast.c */
void ipoib_mcast_init(struct ipoib_dev_priv *priv);
void ipoib_mcast_send(struct ipoib_dev_priv *priv, struct sk_buff *skb,
		      const u8 *daddr);
void ipoib_mcast_join_task(struct work_struct *work);
void ipoib_mcast_restart_task(struct work_struct *work);
void ipoib_mcast_start(struct ipoib_dev_priv *priv);
void ipoib_mcast_stop(struct ipoib_dev_priv *priv);
void ipoib_mcast_flush(struct ipoib_dev_priv *priv);
void ipoib_mcast_gc(struct ipoib_dev_priv *priv);

/* ipoib_event.c */
void ipoib_event(struct ib_event_handler *handler, struct ib_event *event);
void ipoib_flush_task(struct work_struct *work);
void ipoib_link_task(struct work_struct *work);
int ipoib_up(struct ipoib_dev_priv *priv);
void ipoib_down(struct ipoib_dev_priv *priv);
bool ipoib_pkey_lookup(struct ipoib_dev_priv *priv);

/* ipoib_cm.c */
void ipoib_cm_init(struct ipoib_dev_priv *priv);
bool ipoib_cm_supported(struct ipoib_dev_priv *priv);
int ipoib_cm_dev_open(struct ipoib_dev_priv *priv);
void ipoib_cm_dev_stop(struct ipoib_dev_priv *priv);
bool ipoib_cm_xmit(struct ipoib_dev_priv *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb);
void ipoib_cm_neigh_unlink(struct ipoib_dev_priv *priv,
			   struct ipoib_neigh *neigh);
void ipoib_cm_rx_completion(struct ipoib_dev_priv *priv, struct ib_wc *wc);
void ipoib_cm_tx_completion(struct ipoib_dev_priv *priv, struct ib_wc *wc);
void ipoib_cm_skb_too_long(struct ipoib_dev_priv *priv, struct sk_buff *skb,
			   unsigned int mtu);
void ipoib_cm_gc(struct ipoib_dev_priv *priv);
unsigned int ipoib_max_mtu(struct ipoib_dev_priv *priv);

static inline bool ipoib_cm_admin(const struct ipoib_dev_priv *priv)
{
	return test_bit(IPOIB_FLAG_ADMIN_CM, &priv->flags);
}

/* ipoib_child.c */
int ipoib_add_child(struct net_device *pdev, struct net_device *dev,
		    u16 pkey, enum ipoib_child_type type);
int ipoib_add_legacy_child(struct net_device *pdev, u16 pkey);
int ipoib_del_legacy_child(struct net_device *pdev, u16 pkey);
void ipoib_unlink_child(struct ipoib_dev_priv *priv);

/* ipoib_ethtool.c, ipoib_sysfs.c, ipoib_netlink.c */
extern const struct ethtool_ops ipoib_ethtool_ops;
extern const struct attribute_group ipoib_attr_group;
extern struct rtnl_link_ops ipoib_link_ops;
int ipoib_netlink_init(void);
void ipoib_netlink_exit(void);

/* Static without KUnit, for the suites (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(IPOIB_KUNIT_SUITE)
int ipoib_push_headers(struct sk_buff *skb, u16 type, const void *daddr);
enum ipoib_rx_verdict ipoib_rx_check(const void *buf,
				     const struct ipoib_rx_info *info);
void ipoib_cm_build_data(struct ipoib_cm_data *data, u32 qpn, u32 mtu);
int ipoib_cm_parse_data(const void *buf, u32 *qpn, u32 *mtu);
__be64 ipoib_cm_service_id(u32 qpn);
#endif

#endif /* IPOIB_H */
