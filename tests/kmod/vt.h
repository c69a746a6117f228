/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_verbs_test: a kernel client of the RDMA core that moves data between
 * two devices (normally vmlx0 and vmlx1, port 1 each) and checks every
 * byte, completion and error status.  Shared declarations.
 *
 *   vt_main.c     the ib_client, the device list, debugfs control, output
 *   vt_res.c      buffers, CQs, QPs, connecting, posting and polling
 *   vt_ops.c      every operation of RC, UC and UD, multicast, SRQ,
 *                 fast registration
 *   vt_loss.c     delivery guarantees under injected loss and corruption
 *   vt_errors.c   each error completion status, produced on purpose
 *   vt_loop.c     create/destroy loops and resource-tracking balance
 *   vt_traffic.c  background traffic (for device removal under load) and
 *                 the bandwidth benchmark
 *   vt_mad.c      the MAD layer
 *   vt_sa.c       the SA client and the multicast module
 */
#ifndef VT_H
#define VT_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#define VT_MAX_ARGS	8

/**
 * struct vt_dev - a device the core told us about
 * @list: entry in vt_devs
 * @ibdev: the device
 * @removing: its remove callback has started; tests using it give up
 */
struct vt_dev {
	struct list_head	list;
	struct ib_device	*ibdev;
	bool			removing;
};

/**
 * struct vt_run - one command being run
 * @out: its result text
 * @len: bytes used in @out
 * @size: room in @out
 * @passed: "ok" lines written
 * @failed: "not ok" lines written
 * @va: first device (the requester side)
 * @vb: second device (the responder side)
 * @argv: the words after the command that are not options
 * @argc: how many
 * @n: option n= (message or iteration count, 0 if not given)
 * @secs: option secs= (duration, 0 if not given)
 * @mtu: option mtu= (path MTU in bytes, 0 if not given)
 * @ack_timeout: option ack_timeout= (local ACK timeout exponent, 0: default)
 * @lossy: option lossy: the fabric drops or corrupts, expect UC/UD losses
 * @wait_ms: how long to wait for one completion
 * @timeout_ms: option timeout_ms= (SA query timeout, 0 if not given)
 * @why: the first problem found by the check in progress, "" if none
 */
struct vt_run {
	char			*out;
	size_t			len;
	size_t			size;
	unsigned int		passed;
	unsigned int		failed;
	struct vt_dev		*va;
	struct vt_dev		*vb;
	char			*argv[VT_MAX_ARGS];
	int			argc;
	unsigned int		n;
	unsigned int		secs;
	unsigned int		mtu;
	unsigned int		ack_timeout;
	bool			lossy;
	unsigned int		wait_ms;
	unsigned int		timeout_ms;
	char			why[200];
};

__printf(2, 3) void vt_out(struct vt_run *run, const char *fmt, ...);
__printf(3, 4) bool vt_check(struct vt_run *run, bool ok,
			     const char *fmt, ...);
__printf(2, 3) void vt_why(struct vt_run *run, const char *fmt, ...);
__printf(2, 3) bool vt_result(struct vt_run *run, const char *fmt, ...);
bool vt_aborted(struct vt_run *run);
bool vt_has_arg(struct vt_run *run, const char *word);
bool vt_args_known(struct vt_run *run, const char * const *words, size_t n);

/**
 * struct vt_side - what a test holds on one device
 * @vdev: the device
 * @dev: its ib_device
 * @port: the port used (1)
 * @lid: its LID
 * @gid: its GID 0
 * @pd: a PD with an unsafe global rkey, so that remote ends can reach all
 *	of this side's buffers with @pd->unsafe_global_rkey
 */
struct vt_side {
	struct vt_dev		*vdev;
	struct ib_device	*dev;
	u32			port;
	u16			lid;
	union ib_gid		gid;
	struct ib_pd		*pd;
};

/**
 * struct vt_buf - a buffer mapped for a device
 * @va: kernel address
 * @size: bytes
 * @dma: its address for work requests
 * @dev: the device it is mapped for
 */
struct vt_buf {
	u8			*va;
	size_t			size;
	u64			dma;
	struct ib_device	*dev;
};

/**
 * struct vt_cq - a CQ from ib_create_cq(), polled by the test
 * @cq: the CQ
 * @wait: a wait queue for @waitp
 * @waitp: the wait queue the completion handler wakes (normally @wait)
 * @events: completion handler calls
 */
struct vt_cq {
	struct ib_cq		*cq;
	wait_queue_head_t	wait;
	wait_queue_head_t	*waitp;
	atomic_t		events;
};

/**
 * struct vt_qp - a QP with its own send and receive CQs
 * @side: the device side it lives on
 * @qp: the QP
 * @scq: send CQ
 * @rcq: receive CQ
 * @events: bitmask of the affiliated async events seen (BIT(type))
 */
struct vt_qp {
	struct vt_side		*side;
	struct ib_qp		*qp;
	struct vt_cq		scq;
	struct vt_cq		rcq;
	atomic_t		events;
};

/**
 * struct vt_conn - connection parameters of a QP
 * @mtu: path MTU
 * @timeout: local ACK timeout exponent
 * @retry_cnt: transport retries
 * @rnr_retry: RNR retries (7: without limit)
 * @min_rnr_timer: RNR NAK timer code the responder advertises
 * @qkey: Q_Key (UD)
 * @psn: first PSN of each direction
 */
struct vt_conn {
	enum ib_mtu		mtu;
	u8			timeout;
	u8			retry_cnt;
	u8			rnr_retry;
	u8			min_rnr_timer;
	u32			qkey;
	u32			psn;
};

#define VT_QKEY		0x11111111
#define VT_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
/* UD receive buffers start with room for a GRH. */
#define VT_GRH_BYTES	40

/* vt_res.c */
int vt_side_init(struct vt_run *run, struct vt_side *s, struct vt_dev *vdev,
		 bool need_active);
void vt_side_fini(struct vt_side *s);
int vt_buf_alloc(struct vt_run *run, struct vt_buf *b, struct ib_device *dev,
		 size_t size);
void vt_buf_free(struct vt_buf *b);
void vt_conn_default(struct vt_run *run, struct vt_conn *c);
int vt_qp_create(struct vt_run *run, struct vt_qp *q, struct vt_side *s,
		 enum ib_qp_type type, struct ib_srq *srq, u32 max_send,
		 u32 max_recv);
void vt_qp_destroy(struct vt_qp *q);
int vt_qp_connect(struct vt_run *run, struct vt_qp *q, u16 dlid, u32 dqpn,
		  const struct vt_conn *c);
int vt_qp_modify_state(struct vt_qp *q, enum ib_qp_state state);
int vt_qp_state(struct vt_qp *q);
bool vt_wait_qp_state(struct vt_run *run, struct vt_qp *q,
		      enum ib_qp_state state, unsigned int ms);
bool vt_wait_event(struct vt_run *run, atomic_t *mask, int type,
		   unsigned int ms);
int vt_pair_create(struct vt_run *run, struct vt_qp *a, struct vt_side *sa,
		   struct vt_qp *b, struct vt_side *sb, enum ib_qp_type type,
		   const struct vt_conn *c, u32 depth);
void vt_pair_destroy(struct vt_qp *a, struct vt_qp *b);
int vt_poll(struct vt_run *run, struct vt_cq *cq, struct ib_wc *wc,
	    unsigned int ms);
int vt_poll_quiet(struct vt_cq *cq, struct ib_wc *wc);
int vt_post_recv(struct vt_qp *q, u64 wr_id, u64 addr, u32 len, u32 lkey);
int vt_post_send(struct vt_qp *q, u64 wr_id, enum ib_wr_opcode op,
		 u64 addr, u32 len, u32 lkey, u32 imm, u64 raddr, u32 rkey);
int vt_expect(struct vt_run *run, struct vt_cq *cq, u64 wr_id,
	      enum ib_wc_status status, struct ib_wc *wc, const char *what);
void vt_fill(u8 *p, size_t len, u32 seed);
long vt_verify(const u8 *p, size_t len, u32 seed);
long vt_verify_byte(const u8 *p, size_t len, u8 val);
const char *vt_wc_opcode_str(enum ib_wc_opcode op);
const char *vt_state_str(int state);

#define VT_CANARY	0x5a

/**
 * struct vt_frmr - a fast-registration MR and the pages behind it
 * @mr: the MR
 * @dev: its device
 * @pages: the pages, allocated one by one
 * @sg: a scatterlist over them
 * @npages: how many
 * @nents: scatterlist entries after DMA mapping
 */
struct vt_frmr {
	struct ib_mr		*mr;
	struct ib_device	*dev;
	struct page		**pages;
	struct scatterlist	*sg;
	int			npages;
	int			nents;
};

int vt_frmr_alloc(struct vt_run *run, struct vt_frmr *f, struct vt_side *s,
		  int npages);
void vt_frmr_free(struct vt_frmr *f);
u8 *vt_frmr_byte(struct vt_frmr *f, size_t off);
int vt_frmr_reg(struct vt_run *run, struct vt_qp *q, struct vt_frmr *f,
		int access, u64 wr_id);
int vt_frmr_inv(struct vt_run *run, struct vt_qp *q, struct vt_frmr *f,
		u64 wr_id);
int vt_post_ud(struct vt_qp *q, u64 wr_id, enum ib_wr_opcode op, u64 addr,
	       u32 len, u32 lkey, u32 imm, struct ib_ah *ah, u32 rqpn);
struct ib_ah *vt_create_ah(struct vt_run *run, struct vt_side *s, u16 dlid,
			   const union ib_gid *dgid);

/* vt_ops.c, vt_loss.c, vt_errors.c, vt_loop.c, vt_traffic.c */
int vt_cmd_ops(struct vt_run *run);
int vt_cmd_loss(struct vt_run *run);
int vt_cmd_errors(struct vt_run *run);
int vt_cmd_unreachable(struct vt_run *run);
int vt_cmd_loop(struct vt_run *run);
int vt_cmd_traffic(struct vt_run *run);
int vt_cmd_bench(struct vt_run *run);
int vt_cmd_mad(struct vt_run *run);
int vt_cmd_sa(struct vt_run *run);
void vt_sa_init(void);
void vt_sa_remove_dev(struct vt_dev *vdev);
void vt_sa_exit(void);
void vt_traffic_remove_dev(struct vt_dev *vdev);
void vt_traffic_exit(void);

#endif /* VT_H */
