/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A fake one-port IB device for the suites of the SA client and the
 * multicast module (sa_fake.c): its port is ACTIVE with LID 2 and the SM
 * at LID 1, and it carries MADs for real: the MAD layer's sends complete,
 * are kept for the test to look at (the requests to the SA), and the test
 * hands the MAD layer answers as if they came from the SM's QP1.  The
 * SA's ClassPortInfo is answered by the device itself.
 */
#ifndef SA_FAKE_H
#define SA_FAKE_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>

#define KSA_LID		2
#define KSA_SM_LID	1

/**
 * struct ksa_dev - the fake device
 * @ibdev: the device
 * @lock: protects the lists and counters below
 * @reqs: the SA requests sent (struct ksa_req), oldest first
 * @nsent: MADs sent
 * @recvs: receive work requests posted, not used yet (struct ksa_recv)
 * @wcs: completions not polled yet (struct ksa_wc)
 * @gsi: QP1
 * @wait: woken when a request arrives
 * @cpi_capmask2: CapabilityMask2 of the ClassPortInfo it answers with
 * @cpi_answered: ClassPortInfo Gets it answered
 */
struct ksa_dev {
	struct ib_device	ibdev;
	/* protects everything below but wait */
	spinlock_t		lock;
	struct list_head	reqs;
	unsigned int		nsent;
	struct list_head	recvs;
	struct list_head	wcs;
	struct ib_qp		*gsi;
	wait_queue_head_t	wait;
	u32			cpi_capmask2;
	unsigned int		cpi_answered;
};

/**
 * struct ksa_req - a request the SA got
 * @list: in ksa_dev.reqs
 * @mad: a copy of it
 */
struct ksa_req {
	struct list_head	list;
	struct ib_sa_mad	mad;
};

struct ksa_dev *ksa_register(void);
void ksa_unregister(struct ksa_dev *kd);
bool ksa_wait_sm(struct ksa_dev *kd);
struct ksa_req *ksa_next_req(struct ksa_dev *kd, unsigned int ms);
unsigned int ksa_count_reqs(struct ksa_dev *kd);
void ksa_flush_reqs(struct ksa_dev *kd);
int ksa_deliver(struct ksa_dev *kd, const void *mad);
void ksa_resp_init(struct ib_sa_mad *resp, const struct ib_sa_mad *req,
		   u16 status);
int ksa_deliver_table(struct ksa_dev *kd, const struct ib_sa_mad *req,
		      const void *data, size_t len, u16 attr_offset);

#endif /* SA_FAKE_H */
