/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel structures in the layouts of the user ABI (uverbs/marshall.c,
 * part of ib_uverbs.ko): QP and address handle attributes as
 * <rdma/ib_user_verbs.h> defines them for rdma_ucm's INIT_QP_ATTR and
 * its UD events, path records as <rdma/ib_user_sa.h> defines them for its
 * QUERY_ROUTE.
 */
#ifndef IB_USER_MARSHALL_H
#define IB_USER_MARSHALL_H

#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/ib_user_sa.h>
#include <uapi/rdma/ib_user_verbs.h>

void ib_copy_ah_attr_to_user(struct ib_uverbs_ah_attr *dst,
			     const struct rdma_ah_attr *src);
void ib_copy_qp_attr_to_user(struct ib_uverbs_qp_attr *dst,
			     const struct ib_qp_attr *src);
void ib_copy_path_rec_to_user(struct ib_user_path_rec *dst,
			      const struct sa_path_rec *src);

#endif /* IB_USER_MARSHALL_H */
