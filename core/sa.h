/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the SA client (sa_query.c) offers the multicast module
 * (multicast.c) and the core's start and end, and nothing else: the
 * MCMemberRecord query, which is not exported (kernel users join groups
 * through ib_sa_join_multicast()), and what the KUnit suites reach of
 * both files.
 */
#ifndef IB_CORE_SA_H
#define IB_CORE_SA_H

#include <rdma/ib_sa.h>

/* the record sizes on the wire (IBA 15.2.5), in bytes */
#define IB_SA_PATH_REC_SIZE		64
#define IB_SA_MCMEMBER_REC_SIZE		52
#define IB_SA_SERVICE_REC_SIZE		176
#define IB_SA_CLASS_PORT_INFO_SIZE	72

int ib_sa_mcmember_rec_query(struct ib_sa_client *client,
			     struct ib_device *device, u32 port_num,
			     u8 method, struct ib_sa_mcmember_rec *rec,
			     ib_sa_comp_mask comp_mask,
			     unsigned long timeout_ms, gfp_t gfp_mask,
			     void (*callback)(int status,
					      struct ib_sa_mcmember_rec *resp,
					      void *context),
			     void *context, struct ib_sa_query **query);

/*
 * The MCMemberRecord query multicast.c calls; a suite replaces it with a
 * fake SA and puts it back with NULL.
 */
typedef int (*ib_mcast_query_fn)(struct ib_sa_client *client,
				 struct ib_device *device, u32 port_num,
				 u8 method, struct ib_sa_mcmember_rec *rec,
				 ib_sa_comp_mask comp_mask,
				 unsigned long timeout_ms, gfp_t gfp_mask,
				 void (*callback)(int status,
						  struct ib_sa_mcmember_rec *resp,
						  void *context),
				 void *context, struct ib_sa_query **query);

int ib_sa_init(void);
void ib_sa_cleanup(void);
int ib_mcast_init(void);
void ib_mcast_cleanup(void);

/**
 * struct ib_sa_resp - the records of a checked SA response
 * @recv_wc: the response (all its RMPP segments)
 * @num_recs: how many records it holds, at least 1
 * @stride: bytes from one record to the next (AttributeOffset * 8 in a
 *	GetTableResp)
 */
struct ib_sa_resp {
	struct ib_mad_recv_wc	*recv_wc;
	int			num_recs;
	size_t			stride;
};

/* Static without KUnit, for the suites (see tests/kunit/Kbuild). */
#if IS_ENABLED(CONFIG_KUNIT) || defined(IB_CORE_KUNIT_SUITE)
void ib_sa_pack_mcmember(const struct ib_sa_mcmember_rec *rec,
			 void *attribute);
void ib_sa_unpack_mcmember(const void *attribute,
			   struct ib_sa_mcmember_rec *rec);
void ib_sa_pack_service(const struct ib_sa_service_rec *rec,
			void *attribute);
void ib_sa_unpack_service(const void *attribute,
			  struct ib_sa_service_rec *rec);

int ib_sa_check_resp(const struct ib_sa_mad *req,
		     struct ib_mad_recv_wc *recv_wc, size_t rec_size,
		     struct ib_sa_resp *resp);
void ib_sa_resp_record(const struct ib_sa_resp *resp, int i, void *buf,
		       size_t len);
unsigned int ib_sa_query_count(void);

void ib_mcast_set_query_fn(ib_mcast_query_fn fn);
void ib_mcast_flush(void);
#endif

#endif /* IB_CORE_SA_H */
