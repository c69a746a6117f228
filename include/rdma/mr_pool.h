/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Pools of pre-allocated fast-registration MRs kept by a QP
 * (core/mr_pool.c), for users that register memory per I/O in contexts
 * where they cannot allocate an MR, such as the RDMA READ/WRITE contexts
 * of include/rdma/rw.h.  A pool is a list head in the QP (&ib_qp.rdma_mrs
 * or &ib_qp.sig_mrs) whose MRs are linked by &ib_mr.qp_entry; the QP's
 * mr_lock protects every pool of the QP and the count of MRs taken out
 * of them (&ib_qp.mrs_used).
 */
#ifndef RDMA_MR_POOL_H
#define RDMA_MR_POOL_H

#include <rdma/ib_verbs.h>

struct ib_mr *ib_mr_pool_get(struct ib_qp *qp, struct list_head *list);
void ib_mr_pool_put(struct ib_qp *qp, struct list_head *list,
		    struct ib_mr *mr);

int ib_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		    enum ib_mr_type type, u32 max_num_sg, u32 max_num_meta_sg);
void ib_mr_pool_destroy(struct ib_qp *qp, struct list_head *list);

#endif /* RDMA_MR_POOL_H */
