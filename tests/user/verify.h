/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by rdma_verify.c (the checks) and verify_lib.c (the plumbing).
 * Between checks every byte of a.buf, b.buf and ro_buf is CANARY; a check
 * writes its target range and restores it afterwards.
 */
#ifndef RDMA_VERIFY_H
#define RDMA_VERIFY_H

#include <infiniband/verbs.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#define ARRAY_SIZE(x)	(sizeof(x) / sizeof(*(x)))

#define GUARD		4096		/* canary bytes around every target */
#define MAX_MSG		(1024u * 1024)
#define BUF_SIZE	(MAX_MSG + 3 * GUARD)
#define RO_SIZE		8192		/* the MR without remote write */
#define CANARY		0xa5
#define WAIT_MS		10000		/* per completion */
#define SQ_DEPTH	128
#define RQ_DEPTH	16
#define IMM		0x12345678u	/* the immediate of every WR */

/* One HCA with its objects; a is the requester, b the responder. */
struct end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;	/* all of buf, every access right */
	unsigned char *buf;	/* BUF_SIZE bytes */
	enum ibv_mtu active_mtu;
	u16 lid;
	u32 psn;
};

extern struct end a, b;
extern unsigned char *exp_buf;		/* expected image, BUF_SIZE */
extern unsigned char *ro_buf;		/* in b's PD, remote read only */
extern struct ibv_mr *ro_mr;
extern enum ibv_mtu path_mtu;
extern unsigned int mtu_bytes;		/* for the report lines */
extern u8 rd_atom;
extern u64 rng;
extern unsigned int passed, failed;
extern int rebuild;			/* rebuild the QPs after a failure */
extern char why[512];			/* first failure of the current check */

u64 rnd(void);
/* Record the first failure detail of the current check; yields -1. */
#define err(...)							\
	(why[0] ? -1 : (snprintf(why, sizeof(why), __VA_ARGS__), -1))

/* End the current check: ok, or not ok with the detail from err(). */
#define report(...)							\
	do {								\
		char what_[256];					\
									\
		snprintf(what_, sizeof(what_), __VA_ARGS__);		\
		report_what(what_);					\
	} while (0)
void report_what(const char *what);

void fill_pattern(unsigned char *p, size_t len);
size_t diff_bytes(const unsigned char *p, const unsigned char *q, size_t len);
int check_buf(const char *which, const unsigned char *buf, size_t size,
	      size_t off, size_t len, const unsigned char *exp);

int wait_wc(struct end *e, struct ibv_wc *wc);
int expect_wc(struct end *e, u64 wr_id, enum ibv_wc_status status,
	      enum ibv_wc_opcode opcode, struct ibv_wc *wc);
int expect_quiet(void);
u64 post_a(enum ibv_wr_opcode op, void *laddr, u32 len,
	   u32 lkey, void *raddr, u32 rkey);
u64 post_atomic(enum ibv_wr_opcode op, u64 *res, u64 *r,
		u64 cmp_add, u64 swap);
u64 post_recv_b(void *addr, u32 len);

int pair_reset(void);
int setup(void);
int cleanup(void);

#endif
