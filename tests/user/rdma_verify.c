// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_verify - payload integrity of RC traffic through libibverbs.
 *
 * One process opens two HCAs (default vmlx0 and vmlx1), connects an RC QP
 * of each to the other in-process and, with the first as requester,
 * checks every byte that RDMA WRITE, RDMA READ, SEND, WRITE with
 * immediate and the atomics move, plus the canary bytes around them, and
 * that access violations complete with IBV_WC_REM_ACCESS_ERR.
 *
 *   rdma-verify [-m MTU] [-s SEED] [DEV_A DEV_B]
 *
 * Output: one line per check, "ok <what>" or "not ok <what>" followed by
 * "# <detail>"; "# " lines are notes (the convention of the checkers of
 * tests/scenarios, checker.py).  Exit status 0 iff every check passed.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify.h"

#define NR_MANY		64
#define MANY_SPAN	8192

/* --- the checks -------------------------------------------------------- */

/*
 * RDMA WRITE (a -> b) or READ (b -> a) of len bytes at three unaligned
 * remote offsets; destination and source are checked whole.
 */
static void xfer(enum ibv_wr_opcode op, size_t len)
{
	static const size_t offs[] = { 0, 1, GUARD - 3 };
	int write = op == IBV_WR_RDMA_WRITE;
	struct end *src = write ? &a : &b, *dst = write ? &b : &a;
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(offs) && !why[0]; i++) {
		size_t ro = GUARD + offs[i];
		size_t lo = GUARD + (offs[i] * 7 + 5) % GUARD;
		size_t so = write ? lo : ro, dof = write ? ro : lo;
		u64 id;

		fill_pattern(exp_buf, len);
		memcpy(src->buf + so, exp_buf, len);
		id = post_a(op, a.buf + lo, len, a.mr->lkey, b.buf + ro,
			    b.mr->rkey);
		if (!id || expect_wc(&a, id, IBV_WC_SUCCESS, write ?
				     IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ, &wc))
			break;
		check_buf(write ? "remote" : "local", dst->buf, BUF_SIZE, dof,
			  len, exp_buf);
		check_buf(write ? "local source" : "remote source", src->buf,
			  BUF_SIZE, so, len, exp_buf);
		expect_quiet();
		memset(src->buf + so, CANARY, len);
		memset(dst->buf + dof, CANARY, len);
	}
	report("RDMA %s %zu bytes at 3 unaligned offsets",
	       write ? "WRITE" : "READ", len);
}

/* SEND (with immediate, or not) of len bytes into a larger receive. */
static void send_recv(size_t len, int imm)
{
	size_t ro = GUARD + 3, lo = GUARD + 11;
	u64 rid, sid;
	struct ibv_wc wc;

	fill_pattern(exp_buf, len);
	memcpy(a.buf + lo, exp_buf, len);
	rid = post_recv_b(b.buf + ro, len + 64);
	sid = rid ? post_a(imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
			   a.buf + lo, len, a.mr->lkey, NULL, 0) : 0;
	if (sid && !expect_wc(&a, sid, IBV_WC_SUCCESS, IBV_WC_SEND, &wc) &&
	    !expect_wc(&b, rid, IBV_WC_SUCCESS, IBV_WC_RECV, &wc)) {
		if (wc.byte_len != len)
			err("byte_len %u, expected %zu", wc.byte_len, len);
		if (!!(wc.wc_flags & IBV_WC_WITH_IMM) != imm)
			err("wc_flags 0x%x: IBV_WC_WITH_IMM %s", wc.wc_flags,
			    imm ? "missing" : "set");
		if (imm && wc.imm_data != htonl(IMM))
			err("imm_data 0x%08x, expected 0x%08x",
			    ntohl(wc.imm_data), IMM);
		check_buf("receive buffer", b.buf, BUF_SIZE, ro, len, exp_buf);
		expect_quiet();
	}
	memset(a.buf + lo, CANARY, len);
	memset(b.buf + ro, CANARY, len);
	report("SEND%s %zu bytes: both completions, byte_len, payload",
	       imm ? " with immediate" : "", len);
}

/* RDMA WRITE with immediate: payload lands, the receive carries the imm. */
static void write_imm(size_t len)
{
	size_t ro = GUARD + 1, lo = GUARD + 7;
	u64 rid, sid;
	struct ibv_wc wc;

	fill_pattern(exp_buf, len);
	memcpy(a.buf + lo, exp_buf, len);
	rid = post_recv_b(NULL, 0);
	sid = rid ? post_a(IBV_WR_RDMA_WRITE_WITH_IMM, a.buf + lo, len,
			   a.mr->lkey, b.buf + ro, b.mr->rkey) : 0;
	if (sid &&
	    !expect_wc(&a, sid, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, &wc) &&
	    !expect_wc(&b, rid, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
		       &wc)) {
		if (wc.byte_len != len)
			err("byte_len %u, expected %zu", wc.byte_len, len);
		if (!(wc.wc_flags & IBV_WC_WITH_IMM))
			err("wc_flags 0x%x: IBV_WC_WITH_IMM missing",
			    wc.wc_flags);
		else if (wc.imm_data != htonl(IMM))
			err("imm_data 0x%08x, expected 0x%08x",
			    ntohl(wc.imm_data), IMM);
		check_buf("remote", b.buf, BUF_SIZE, ro, len, exp_buf);
		expect_quiet();
	}
	memset(a.buf + lo, CANARY, len);
	memset(b.buf + ro, CANARY, len);
	report("RDMA WRITE with immediate %zu bytes: both completions, byte_len, imm, payload",
	       len);
}

/* One atomic on the 8 bytes at b.buf + GUARD; result to a.buf + GUARD. */
static void atomic(const char *what, enum ibv_wr_opcode op, u64 orig,
		   u64 cmp_add, u64 swap, u64 result)
{
	u64 *r = (u64 *)(b.buf + GUARD);
	u64 *res = (u64 *)(a.buf + GUARD);
	struct ibv_wc wc;
	u64 id;

	*r = orig;
	id = post_atomic(op, res, r, cmp_add, swap);
	if (id && !expect_wc(&a, id, IBV_WC_SUCCESS,
			     op == IBV_WR_ATOMIC_FETCH_AND_ADD ?
			     IBV_WC_FETCH_ADD : IBV_WC_COMP_SWAP, &wc)) {
		if (*res != orig)
			err("returned 0x%016llx, expected the original 0x%016llx",
			    (unsigned long long)*res, (unsigned long long)orig);
		if (*r != result)
			err("remote now 0x%016llx, expected 0x%016llx",
			    (unsigned long long)*r, (unsigned long long)result);
		check_buf("local", a.buf, BUF_SIZE, GUARD, 8,
			  (unsigned char *)&orig);
		check_buf("remote", b.buf, BUF_SIZE, GUARD, 8,
			  (unsigned char *)&result);
		expect_quiet();
	}
	memset(r, CANARY, 8);
	memset(res, CANARY, 8);
	report("%s", what);
}

/* 16 FETCH_AND_ADDs of 1 in flight: results orig..orig+15 in order. */
static void atomics_in_flight(void)
{
	u64 *r = (u64 *)(b.buf + GUARD);
	u64 *res = (u64 *)(a.buf + GUARD);
	u64 orig = 0x00000000fffffff8ull, id[16];
	struct ibv_wc wc;
	int i;

	*r = orig;
	for (i = 0; i < 16; i++)
		id[i] = post_atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, res + i, r,
				    1, 0);
	for (i = 0; i < 16 && !why[0]; i++) {
		if (expect_wc(&a, id[i], IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, &wc))
			break;
		if (res[i] != orig + i)
			err("result %d: 0x%016llx, expected 0x%016llx", i,
			    (unsigned long long)res[i],
			    (unsigned long long)(orig + i));
	}
	if (!why[0] && *r != orig + 16)
		err("remote now 0x%016llx, expected 0x%016llx",
		    (unsigned long long)*r, (unsigned long long)(orig + 16));
	expect_quiet();
	memset(r, CANARY, 8);
	memset(res, CANARY, 16 * 8);
	report("16 FETCH_AND_ADD in flight: ordered results, sum");
}

/*
 * NR_MANY WRITEs (or READs) of distinct patterns and lengths to distinct
 * offsets, all posted before the first poll; then the whole destination
 * is compared with the expected image.
 */
static void many(enum ibv_wr_opcode op)
{
	int write = op == IBV_WR_RDMA_WRITE;
	struct end *src = write ? &a : &b, *dst = write ? &b : &a;
	u64 id[NR_MANY];
	struct ibv_wc wc;
	size_t i, k;

	memset(exp_buf, CANARY, BUF_SIZE);
	for (i = 0; i < NR_MANY; i++) {
		size_t off = GUARD + i * MANY_SPAN + i, len = 100 + i * 61;

		fill_pattern(exp_buf + off, len);
		memcpy(src->buf + off, exp_buf + off, len);
	}
	for (i = 0; i < NR_MANY; i++) {
		size_t off = GUARD + i * MANY_SPAN + i, len = 100 + i * 61;

		id[i] = post_a(op, a.buf + off, len, a.mr->lkey, b.buf + off,
			       b.mr->rkey);
	}
	for (i = 0; i < NR_MANY && !why[0]; i++)
		expect_wc(&a, id[i], IBV_WC_SUCCESS,
			  write ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ, &wc);
	if (!why[0]) {
		k = diff_bytes(dst->buf, exp_buf, BUF_SIZE);
		if (k < BUF_SIZE)
			err("%s differs at offset %zu: expected 0x%02x, got 0x%02x",
			    dst->name, k, exp_buf[k], dst->buf[k]);
		expect_quiet();
	}
	memset(a.buf, CANARY, BUF_SIZE);
	memset(b.buf, CANARY, BUF_SIZE);
	report("%d RDMA %s in flight, distinct offsets and patterns",
	       NR_MANY, write ? "WRITEs" : "READs");
}

/*
 * A WR that the responder must refuse: REM_ACCESS_ERR at the requester,
 * nothing at the responder, no byte changed anywhere.  Then fresh QPs.
 */
static void refused(const char *what, enum ibv_wr_opcode op, size_t len,
		    void *raddr, u32 rkey)
{
	struct ibv_wc wc;
	u64 id;

	fill_pattern(exp_buf, len);
	if (op == IBV_WR_RDMA_WRITE)
		memcpy(a.buf + GUARD, exp_buf, len);
	id = post_a(op, a.buf + GUARD, len, a.mr->lkey, raddr, rkey);
	if (id && !expect_wc(&a, id, IBV_WC_REM_ACCESS_ERR, 0, &wc)) {
		if (op == IBV_WR_RDMA_WRITE)
			check_buf("local", a.buf, BUF_SIZE, GUARD, len, exp_buf);
		else
			check_buf("local", a.buf, BUF_SIZE, 0, 0, exp_buf);
		check_buf("remote", b.buf, BUF_SIZE, 0, 0, exp_buf);
		check_buf("read-only MR", ro_buf, RO_SIZE, 0, 0, exp_buf);
		expect_quiet();
	}
	memset(a.buf, CANARY, BUF_SIZE);
	report("%s: IBV_WC_REM_ACCESS_ERR, memory unchanged", what);
	if (pair_reset())
		report("rebuild the QPs after \"%s\"", what);
}

static void negatives(void)
{
	u32 bad = b.mr->rkey ^ 0x5a5a5a00;
	struct ibv_wc wc;
	u64 id;

	if (bad == ro_mr->rkey)
		bad ^= 0x01010100;
	refused("RDMA WRITE with a bad rkey", IBV_WR_RDMA_WRITE, 4096,
		b.buf + GUARD, bad);

	/* The read-only MR serves a READ, then refuses a WRITE. */
	fill_pattern(ro_buf + 100, 1000);
	memcpy(exp_buf, ro_buf + 100, 1000);
	id = post_a(IBV_WR_RDMA_READ, a.buf + GUARD, 1000, a.mr->lkey,
		    ro_buf + 100, ro_mr->rkey);
	if (id && !expect_wc(&a, id, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, &wc))
		check_buf("local", a.buf, BUF_SIZE, GUARD, 1000, exp_buf);
	memset(ro_buf, CANARY, RO_SIZE);
	memset(a.buf, CANARY, BUF_SIZE);
	report("RDMA READ from an MR without remote write");
	refused("RDMA WRITE to an MR without remote write", IBV_WR_RDMA_WRITE,
		1000, ro_buf + 100, ro_mr->rkey);

	refused("RDMA READ beyond the end of the MR", IBV_WR_RDMA_READ, 200,
		b.buf + BUF_SIZE - 100, b.mr->rkey);
	refused("RDMA WRITE beyond the end of the MR (multi-packet)",
		IBV_WR_RDMA_WRITE, 1000, b.buf + BUF_SIZE - 500, b.mr->rkey);
	refused("RDMA READ before the start of the MR", IBV_WR_RDMA_READ, 64,
		b.buf - 32, b.mr->rkey);
}

static int parse_mtu(const char *s, enum ibv_mtu *mtu)
{
	static const struct { unsigned int n; enum ibv_mtu m; } t[] = {
		{ 256, IBV_MTU_256 }, { 512, IBV_MTU_512 },
		{ 1024, IBV_MTU_1024 }, { 2048, IBV_MTU_2048 },
		{ 4096, IBV_MTU_4096 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		if (t[i].n == strtoul(s, NULL, 0)) {
			*mtu = t[i].m;
			return 0;
		}
	return -1;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {
		1, 2, 3, 7, 64, 255, 256, 257, 4095, 4096, 4097, 65536, MAX_MSG,
	};
	enum ibv_mtu want = 0;
	unsigned long seed = 1;
	unsigned int i;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "m:s:")) != -1) {
		switch (opt) {
		case 'm':
			if (parse_mtu(optarg, &want)) {
				fprintf(stderr, "bad MTU %s\n", optarg);
				return 2;
			}
			break;
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-m MTU] [-s SEED] [DEV_A DEV_B]\n",
				argv[0]);
			return 2;
		}
	}
	if (argc - optind == 2) {
		a.name = argv[optind];
		b.name = argv[optind + 1];
	} else if (argc != optind) {
		fprintf(stderr, "give both devices or none\n");
		return 2;
	}
	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	mtu_bytes = want ? 128u << want : 0;
	printf("# seed %lu, requester %s, responder %s\n", seed, a.name, b.name);

	if (!setup()) {
		path_mtu = a.active_mtu < b.active_mtu ? a.active_mtu :
			   b.active_mtu;
		if (want && want < path_mtu)
			path_mtu = want;
		mtu_bytes = 128u << path_mtu;
		printf("# LIDs %u and %u, path MTU %u, rd_atomic %u\n", a.lid,
		       b.lid, mtu_bytes, rd_atom);
	}
	report("open %s and %s, connect an RC QP pair", a.name, b.name);
	rebuild = 1;
	if (failed) {
		cleanup();
		return 1;
	}

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		xfer(IBV_WR_RDMA_WRITE, sizes[i]);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		xfer(IBV_WR_RDMA_READ, sizes[i]);
	for (i = 0; i < 6; i++) {
		size_t len = 1 + rnd() % (256 * 1024);

		xfer(IBV_WR_RDMA_WRITE, len);
		xfer(IBV_WR_RDMA_READ, len);
	}

	send_recv(0, 1);
	send_recv(1, 0);
	send_recv(1, 1);
	send_recv(4097, 1);
	send_recv(65536, 0);
	write_imm(0);
	write_imm(257);
	write_imm(65536);

	atomic("FETCH_AND_ADD with a carry across 32 bits",
	       IBV_WR_ATOMIC_FETCH_AND_ADD, 0x01020304fffffff0ull,
	       0x0000000100000020ull, 0, 0x0102030600000010ull);
	atomic("CMP_AND_SWP hit: swapped", IBV_WR_ATOMIC_CMP_AND_SWP,
	       0x1122334455667788ull, 0x1122334455667788ull,
	       0xdeadbeefcafef00dull, 0xdeadbeefcafef00dull);
	atomic("CMP_AND_SWP miss: unchanged", IBV_WR_ATOMIC_CMP_AND_SWP,
	       0x1122334455667788ull, 0x1122334455667789ull,
	       0xdeadbeefcafef00dull, 0x1122334455667788ull);
	atomics_in_flight();

	many(IBV_WR_RDMA_WRITE);
	many(IBV_WR_RDMA_READ);

	negatives();
	/* After all the errors, the rebuilt pair still moves data. */
	xfer(IBV_WR_RDMA_WRITE, 4097);

	rebuild = 0;
	cleanup();
	report("destroy every object");
	printf("# %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
