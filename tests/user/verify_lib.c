// SPDX-License-Identifier: GPL-2.0
/*
 * The plumbing of rdma-verify: the two HCAs, the RC QP pair between them,
 * posting and polling with a deadline, buffer comparison and the report of
 * each check.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify.h"

struct end a = { .name = "vmlx0" }, b = { .name = "vmlx1" };
unsigned char *exp_buf, *ro_buf;
struct ibv_mr *ro_mr;
enum ibv_mtu path_mtu = IBV_MTU_4096;
unsigned int mtu_bytes;
u8 rd_atom = 16;
u64 rng;
unsigned int passed, failed;
int rebuild;
char why[512];

static u64 next_id = 1;

u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * End the current check: "ok WHAT", or "not ok WHAT" and the first detail
 * as a "# " comment (the convention of tests/scenarios/checker.py).  After
 * a failure the buffers are refilled and the QPs rebuilt, so that the next
 * check starts clean.
 */
void report_what(const char *what)
{
	if (!why[0]) {
		passed++;
		printf("ok [mtu %u] %s\n", mtu_bytes, what);
		return;
	}
	failed++;
	printf("not ok [mtu %u] %s\n# %s\n", mtu_bytes, what, why);
	why[0] = 0;
	if (!rebuild)
		return;
	memset(a.buf, CANARY, BUF_SIZE);
	memset(b.buf, CANARY, BUF_SIZE);
	memset(ro_buf, CANARY, RO_SIZE);
	if (pair_reset())
		printf("not ok [mtu %u] rebuild the QPs\n# %s\n", mtu_bytes,
		       why);
	why[0] = 0;
}

void fill_pattern(unsigned char *p, size_t len)
{
	u64 v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = rnd();
		p[i] = v >> (8 * (i & 7));
	}
}

/* Index of the first byte of p[0..len) that differs from q, else len. */
size_t diff_bytes(const unsigned char *p, const unsigned char *q, size_t len)
{
	size_t i, n;

	for (i = 0; i < len; i += n) {
		n = len - i < 4096 ? len - i : 4096;
		if (memcmp(p + i, q + i, n))
			break;
	}
	for (; i < len; i++)
		if (p[i] != q[i])
			break;
	return i;
}

static size_t diff_canary(const unsigned char *p, size_t len)
{
	static unsigned char canary[4096];
	size_t i, n;

	if (!canary[0])
		memset(canary, CANARY, sizeof(canary));
	for (i = 0; i < len; i += n) {
		n = len - i < 4096 ? len - i : 4096;
		if (memcmp(p + i, canary, n))
			break;
	}
	for (; i < len; i++)
		if (p[i] != CANARY)
			break;
	return i;
}

/* A byte of buf that differs from what check_buf expected. */
static int bad_byte(const char *which, size_t off, size_t len,
		    const char *where, size_t pos, u8 exp, u8 got)
{
	return err("%s, target %zu+%zu: %s differs at offset %zu: expected 0x%02x, got 0x%02x",
		   which, off, len, where, pos, exp, got);
}

/* buf[0..size) must be CANARY except [off, off + len), which must be exp. */
int check_buf(const char *which, const unsigned char *buf, size_t size,
	      size_t off, size_t len, const unsigned char *exp)
{
	size_t i, end = off + len;

	i = diff_canary(buf, off);
	if (i < off)
		return bad_byte(which, off, len, "guard before", i, CANARY,
				buf[i]);
	i = diff_bytes(buf + off, exp, len);
	if (i < len)
		return bad_byte(which, off, len, "target", off + i, exp[i],
				buf[off + i]);
	i = end + diff_canary(buf + end, size - end);
	if (i < size)
		return bad_byte(which, off, len, "guard after", i, CANARY,
				buf[i]);
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Wait up to WAIT_MS for one completion on e's CQ. */
int wait_wc(struct end *e, struct ibv_wc *wc)
{
	struct timespec t0;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(e->cq, 1, wc);
		if (n < 0)
			return err("%s: ibv_poll_cq: %d", e->name, n);
		if (n == 1)
			return 0;
		if (ms_since(&t0) > WAIT_MS)
			return err("%s: no completion within %d s", e->name,
				   WAIT_MS / 1000);
		sched_yield();
	}
}

/* Wait for a completion and check its wr_id, status and (if OK) opcode. */
int expect_wc(struct end *e, u64 wr_id, enum ibv_wc_status status,
	      enum ibv_wc_opcode opcode, struct ibv_wc *wc)
{
	if (wait_wc(e, wc))
		return -1;
	if (wc->status != status)
		return err("%s: wr_id %llu: status %s (%d), expected %s",
			   e->name, (unsigned long long)wc->wr_id,
			   ibv_wc_status_str(wc->status), wc->status,
			   ibv_wc_status_str(status));
	if (wc->wr_id != wr_id)
		return err("%s: wr_id %llu, expected %llu", e->name,
			   (unsigned long long)wc->wr_id,
			   (unsigned long long)wr_id);
	if (status == IBV_WC_SUCCESS && wc->opcode != opcode)
		return err("%s: wr_id %llu: opcode %d, expected %d", e->name,
			   (unsigned long long)wr_id, wc->opcode, opcode);
	if (wc->qp_num != e->qp->qp_num)
		return err("%s: qp_num 0x%x, expected 0x%x", e->name,
			   wc->qp_num, e->qp->qp_num);
	return 0;
}

/* Neither CQ may hold a completion nobody asked for. */
int expect_quiet(void)
{
	struct ibv_wc wc;
	struct end *e;

	for (e = &a; e; e = e == &a ? &b : NULL)
		if (ibv_poll_cq(e->cq, 1, &wc) != 0)
			return err("%s: unexpected completion wr_id %llu status %s",
				   e->name, (unsigned long long)wc.wr_id,
				   ibv_wc_status_str(wc.status));
	return 0;
}

/* Post one signalled WR (not an atomic) on a's QP; returns its wr_id. */
u64 post_a(enum ibv_wr_opcode op, void *laddr, u32 len,
	   u32 lkey, void *raddr, u32 rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)laddr, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = next_id++, .sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	wr.wr.rdma.remote_addr = (uintptr_t)raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(IMM);
	ret = ibv_post_send(a.qp, &wr, &bad);
	if (ret) {
		err("ibv_post_send opcode %d: %s", op, strerror(ret));
		return 0;
	}
	return wr.wr_id;
}

/* Atomics need compare_add and swap: set them on a prepared WR and post. */
u64 post_atomic(enum ibv_wr_opcode op, u64 *res, u64 *r,
		u64 cmp_add, u64 swap)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)res, .length = 8, .lkey = a.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = next_id++, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	wr.wr.atomic.remote_addr = (uintptr_t)r;
	wr.wr.atomic.rkey = b.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	ret = ibv_post_send(a.qp, &wr, &bad);
	if (ret) {
		err("ibv_post_send atomic: %s", strerror(ret));
		return 0;
	}
	return wr.wr_id;
}

u64 post_recv_b(void *addr, u32 len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = b.mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = next_id++, .sg_list = &sge, .num_sge = len ? 1 : 0,
	}, *bad;
	int ret;

	ret = ibv_post_recv(b.qp, &wr, &bad);
	if (ret) {
		err("ibv_post_recv: %s", strerror(ret));
		return 0;
	}
	return wr.wr_id;
}

/* --- connection -------------------------------------------------------- */

static int qp_create(struct end *e)
{
	struct ibv_qp_init_attr ia = {
		.cap = {
			.max_send_wr = SQ_DEPTH, .max_recv_wr = RQ_DEPTH,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};

	e->cq = ibv_create_cq(e->ctx, SQ_DEPTH + RQ_DEPTH, NULL, NULL, 0);
	if (!e->cq)
		return err("%s: ibv_create_cq: %s", e->name, strerror(errno));
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &ia);
	if (!e->qp)
		return err("%s: ibv_create_qp: %s", e->name, strerror(errno));
	return 0;
}

static int qp_connect(struct end *e, const struct end *peer)
{
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	int ret;

	ret = ibv_modify_qp(e->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return err("%s: modify QP to INIT: %s", e->name, strerror(ret));
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = path_mtu;
	at.dest_qp_num = peer->qp->qp_num;
	at.rq_psn = peer->psn;
	at.max_dest_rd_atomic = rd_atom;
	at.min_rnr_timer = 12;
	at.ah_attr.dlid = peer->lid;
	at.ah_attr.port_num = 1;
	ret = ibv_modify_qp(e->qp, &at, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return err("%s: modify QP to RTR: %s", e->name, strerror(ret));
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.sq_psn = e->psn;
	at.max_rd_atomic = rd_atom;
	ret = ibv_modify_qp(e->qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return err("%s: modify QP to RTS: %s", e->name, strerror(ret));
	return 0;
}

/* Destroy QPs and CQs (the CQs may hold flushed completions); 0 if clean. */
static int pair_destroy(void)
{
	struct end *e;
	int ret = 0;

	for (e = &a; e; e = e == &a ? &b : NULL) {
		if (e->qp && ibv_destroy_qp(e->qp))
			ret = err("%s: ibv_destroy_qp failed", e->name);
		e->qp = NULL;
		if (e->cq && ibv_destroy_cq(e->cq))
			ret = err("%s: ibv_destroy_cq failed", e->name);
		e->cq = NULL;
	}
	return ret;
}

/* The first pair starts just below the 24-bit PSN wrap, later ones anywhere. */
static int pair_setup(void)
{
	static int first = 1;

	if (qp_create(&a) || qp_create(&b))
		return -1;
	a.psn = first ? 0xffffff - 40 : rnd() & 0xffffff;
	b.psn = first ? 0xffffff - 20 : rnd() & 0xffffff;
	first = 0;
	return qp_connect(&a, &b) || qp_connect(&b, &a) ? -1 : 0;
}

int pair_reset(void)
{
	pair_destroy();
	return pair_setup();
}

/* --- setup ------------------------------------------------------------- */

static int open_end(struct ibv_device **list, struct end *e)
{
	struct ibv_port_attr pa;
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), e->name))
			break;
	if (!list[i])
		return err("device %s not found", e->name);
	e->ctx = ibv_open_device(list[i]);
	if (!e->ctx)
		return err("%s: ibv_open_device: %s", e->name, strerror(errno));
	if (ibv_query_port(e->ctx, 1, &pa))
		return err("%s: ibv_query_port failed", e->name);
	if (pa.state != IBV_PORT_ACTIVE || !pa.lid)
		return err("%s: port 1 state %d, LID %u: not active",
			   e->name, pa.state, pa.lid);
	e->lid = pa.lid;
	e->active_mtu = pa.active_mtu;
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd)
		return err("%s: ibv_alloc_pd: %s", e->name, strerror(errno));
	if (posix_memalign((void **)&e->buf, 4096, BUF_SIZE))
		return err("out of memory");
	memset(e->buf, CANARY, BUF_SIZE);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!e->mr)
		return err("%s: ibv_reg_mr: %s", e->name, strerror(errno));
	return 0;
}

int setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr da;
	int ret;

	if (!list)
		return err("ibv_get_device_list: %s", strerror(errno));
	ret = open_end(list, &a) || open_end(list, &b) ? -1 : 0;
	ibv_free_device_list(list);
	if (ret)
		return -1;
	if (ibv_query_device(a.ctx, &da))
		return err("ibv_query_device failed");
	if (da.max_qp_rd_atom < rd_atom)
		rd_atom = da.max_qp_rd_atom;
	if (posix_memalign((void **)&ro_buf, 4096, RO_SIZE) ||
	    posix_memalign((void **)&exp_buf, 4096, BUF_SIZE))
		return err("out of memory");
	memset(ro_buf, CANARY, RO_SIZE);
	ro_mr = ibv_reg_mr(b.pd, ro_buf, RO_SIZE, IBV_ACCESS_REMOTE_READ);
	if (!ro_mr)
		return err("%s: ibv_reg_mr read-only: %s", b.name,
			   strerror(errno));
	return pair_setup();
}

/* Free everything; every destroy must succeed. */
int cleanup(void)
{
	struct end *e;
	int ret = pair_destroy();

	if (ro_mr && ibv_dereg_mr(ro_mr))
		ret = err("ibv_dereg_mr read-only failed");
	for (e = &a; e; e = e == &a ? &b : NULL) {
		if (e->mr && ibv_dereg_mr(e->mr))
			ret = err("%s: ibv_dereg_mr failed", e->name);
		if (e->pd && ibv_dealloc_pd(e->pd))
			ret = err("%s: ibv_dealloc_pd failed", e->name);
		if (e->ctx && ibv_close_device(e->ctx))
			ret = err("%s: ibv_close_device failed", e->name);
		free(e->buf);
	}
	free(ro_buf);
	free(exp_buf);
	return ret;
}
