/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMA READ/WRITE contexts (core/rw.c): the work requests that move the
 * data of one I/O between a local scatterlist and a peer's memory, for
 * ULPs such as storage targets.  A context belongs to its caller, who
 * serialises its calls; the QP must have been created with
 * cap.max_rdma_ctxs set (see struct ib_qp_cap).
 */
#ifndef RDMA_RW_H
#define RDMA_RW_H

#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>

/**
 * struct rdma_rw_reg_ctx - one MR's share of a context that registers
 * @sge: the local side of @wr: the whole MR
 * @wr: the RDMA READ or WRITE through the MR
 * @reg_wr: the registration of the MR, posted before @wr
 * @inv_wr: the invalidation of the MR's previous registration, posted
 *	before @reg_wr when its next is set
 * @mr: the MR, from the QP's pool
 */
struct rdma_rw_reg_ctx {
	struct ib_sge		sge;
	struct ib_rdma_wr	wr;
	struct ib_reg_wr	reg_wr;
	struct ib_send_wr	inv_wr;
	struct ib_mr		*mr;
};

/**
 * struct rdma_rw_ctx - an RDMA READ or WRITE of a scatterlist
 * @nr_ops: RDMA READ or WRITE requests, not counting registrations and
 *	invalidations
 * @type: which member of the union is in use (core private)
 * @single: one request with one SGE
 * @single.sge: its SGE
 * @single.wr: the request
 * @map: requests with the PD's local DMA lkey
 * @map.sges: the SGEs of all of them
 * @map.wrs: the @nr_ops requests
 * @reg: the @nr_ops MRs and their requests
 *
 * Filled in by rdma_rw_ctx_init(), released by rdma_rw_ctx_destroy().
 */
struct rdma_rw_ctx {
	u32			nr_ops;
	u8			type;
	union {
		struct {
			struct ib_sge		sge;
			struct ib_rdma_wr	wr;
		} single;
		struct {
			struct ib_sge		*sges;
			struct ib_rdma_wr	*wrs;
		} map;
		struct rdma_rw_reg_ctx	*reg;
	};
};

int rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir);
void rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			 enum dma_data_direction dir);

struct ib_send_wr *rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr);
int rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct ib_cqe *cqe, struct ib_send_wr *chain_wr);

unsigned int rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
			       unsigned int maxpages);

/* For ib_create_qp() and ib_destroy_qp() (core/verbs.c) alone. */
void rdma_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *attr);
int rdma_rw_init_mrs(struct ib_qp *qp, struct ib_qp_init_attr *attr);
void rdma_rw_cleanup_mrs(struct ib_qp *qp);

#endif /* RDMA_RW_H */
