// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test "sa": the SA client and the multicast module of ib_core
 * against a real SA (opensm), from device a (vmlx0) towards device b
 * (vmlx1), port 1 each.
 *
 *   sa path            PathRecord a -> b asked by GIDs and by LIDs (the
 *                      same record), and by GetTable (n= paths at most,
 *                      default 4); the fields printed as "# pr NAME VALUE"
 *                      for the scenario to compare with saquery; the AH
 *                      from ib_init_ah_attr_from_path()
 *   sa cancel [n=N]    N queries cancelled at once: each calls back exactly
 *                      once, with -EINTR unless the answer was first; a
 *                      stale id cancels nothing
 *   sa expect ERRNO    a PathRecord query on a fails with ERRNO (a name:
 *                      ETIMEDOUT, EAGAIN...), from the call or its callback
 *   sa cpi             whether the SA takes send-only full member joins
 *   sa service set|get|delete|absent
 *                      a ServiceRecord of a's port registered, read back
 *                      field by field, deleted, no longer found
 *   sa mcast join U [sendonly]
 *                      user U (0..3) joins the IPoIB broadcast group
 *                      ff12:401b:ffff::ffff:ffff (P_Key 0xffff) on a's
 *                      port as FullMember (or SendOnlyNonMember); the
 *                      membership stays until "sa mcast free U" (or a's
 *                      removal); the callback's first status must be 0,
 *                      the record sane and its AH usable
 *   sa mcast free U    ends user U's membership
 *   sa mcast reset U   waits (wait_ms=) for user U's callback to say
 *                      -ENETRESET and then 0 again (a rejoin)
 *   sa mcast joined [no]
 *                      ib_sa_get_mcmember_rec() finds the group (or not)
 *   sa flood           n= (default 50) PathRecord queries left in flight,
 *                      for device removal to end them
 *   sa flood check     every flooded query called back once, with
 *                      -EINTR (the port went away) or -ETIMEDOUT
 *
 * Queries use timeout_ms= (default 2000) and wait that long plus 10 s for
 * the callback; a callback that never comes is a failure (the query is
 * then cancelled, which must call back).
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_sa.h>

#include "vt.h"

/* the service registered by "sa service" */
#define VTS_SERVICE_ID		0x10000ce1aull
#define VTS_SERVICE_NAME	"ib_verbs_test sa"

static struct ib_sa_client vts_client;

#define VTS_MC_USERS	4
#define VTS_MC_LOG	16

/**
 * struct vts_mc - a membership of "sa mcast", kept between commands
 * @mc: the membership, NULL if none
 * @vdev: the device it is on
 * @log: the statuses its callback was called with, in order
 * @nlog: how many (may exceed VTS_MC_LOG; later ones are not kept)
 *
 * Under vts_mc_lock; the callback also wakes vts_mc_wait.
 */
struct vts_mc {
	struct ib_sa_multicast	*mc;
	struct vt_dev		*vdev;
	int			log[VTS_MC_LOG];
	int			nlog;
};

/* protects vts_mc */
static DEFINE_SPINLOCK(vts_mc_lock);
static DECLARE_WAIT_QUEUE_HEAD(vts_mc_wait);
static struct vts_mc vts_mc[VTS_MC_USERS];

/* the IPoIB broadcast group of P_Key 0xffff */
static const u8 vts_bcast_mgid[16] = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff,
};

/**
 * struct vts_wait - one query and what its callback said
 * @done: completed by the callback
 * @calls: how many times the callback ran
 * @status: its status
 * @num_prs: records handed over
 * @prs: copies of up to 8 path records
 * @service: copy of the service record
 * @ref: the waiter and the callback; the last frees
 */
struct vts_wait {
	struct completion	done;
	atomic_t		calls;
	int			status;
	int			num_prs;
	struct sa_path_rec	prs[8];
	struct ib_sa_service_rec service;
	refcount_t		ref;
};

static struct vts_wait *vts_wait_new(void)
{
	struct vts_wait *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	init_completion(&w->done);
	refcount_set(&w->ref, 2);
	return w;
}

static void vts_wait_put(struct vts_wait *w)
{
	if (refcount_dec_and_test(&w->ref))
		kfree(w);
}

static void vts_path_cb(int status, struct sa_path_rec *resp, int num_prs,
			void *context)
{
	struct vts_wait *w = context;
	int i;

	/* a second call is a bug the waiter counts; it must not free twice */
	if (atomic_inc_return(&w->calls) > 1)
		return;
	w->status = status;
	w->num_prs = num_prs;
	for (i = 0; resp && i < num_prs && i < ARRAY_SIZE(w->prs); i++)
		w->prs[i] = resp[i];
	complete(&w->done);
	vts_wait_put(w);
}

static void vts_service_cb(int status, struct ib_sa_service_rec *resp,
			   void *context)
{
	struct vts_wait *w = context;

	if (atomic_inc_return(&w->calls) > 1)
		return;
	w->status = status;
	if (resp)
		w->service = *resp;
	complete(&w->done);
	vts_wait_put(w);
}

static unsigned long vts_timeout(struct vt_run *run)
{
	return run->timeout_ms ? run->timeout_ms : 2000;
}

/*
 * Wait for the callback of query @id; if it does not come in time, cancel
 * the query (which must call back) and report that.  Returns false if it
 * never came; @w is then leaked on purpose, the callback may still run.
 */
static bool vts_wait_cb(struct vt_run *run, struct vts_wait *w, int id,
			struct ib_sa_query *query)
{
	unsigned long t = msecs_to_jiffies(vts_timeout(run) + 10000);

	if (wait_for_completion_timeout(&w->done, t))
		return true;
	vt_why(run, "query %d: no callback within %lu ms", id,
	       vts_timeout(run) + 10000);
	ib_sa_cancel_query(id, query);
	return wait_for_completion_timeout(&w->done, 10 * HZ);
}

/* Ask for a path from @s to @d; fills @w. Returns false on a failure. */
static bool vts_path(struct vt_run *run, struct vt_side *s, struct vt_side *d,
		     ib_sa_comp_mask mask, int numb_path, struct vts_wait *w)
{
	unsigned long start = jiffies;
	struct sa_path_rec rec = {};
	struct ib_sa_query *query;
	bool ok;
	int id;

	rec.sgid = s->gid;
	rec.dgid = d->gid;
	rec.slid = cpu_to_be16(s->lid);
	rec.dlid = cpu_to_be16(d->lid);
	rec.numb_path = numb_path;
	rec.pkey = cpu_to_be16(0xffff);
	id = ib_sa_path_rec_get(&vts_client, s->dev, s->port, &rec, mask,
				vts_timeout(run), GFP_KERNEL, vts_path_cb, w,
				&query);
	if (id < 0) {
		w->status = id;
		vts_wait_put(w);
		return true;
	}
	ok = vts_wait_cb(run, w, id, query);
	vt_out(run, "# query %d: status %d after %u ms", id, w->status,
	       jiffies_to_msecs(jiffies - start));
	return ok;
}

static void vts_print_path(struct vt_run *run, const char *tag,
			   const struct sa_path_rec *r)
{
	vt_out(run, "# %s service_id 0x%016llx", tag, be64_to_cpu(r->service_id));
	vt_out(run, "# %s dgid %pI6", tag, r->dgid.raw);
	vt_out(run, "# %s sgid %pI6", tag, r->sgid.raw);
	vt_out(run, "# %s dlid %u", tag, be16_to_cpu(r->dlid));
	vt_out(run, "# %s slid %u", tag, be16_to_cpu(r->slid));
	vt_out(run, "# %s raw_traffic %u", tag, r->raw_traffic);
	vt_out(run, "# %s flow_label %u", tag, be32_to_cpu(r->flow_label));
	vt_out(run, "# %s hop_limit %u", tag, r->hop_limit);
	vt_out(run, "# %s traffic_class %u", tag, r->traffic_class);
	vt_out(run, "# %s reversible %u", tag, r->reversible);
	vt_out(run, "# %s numb_path %u", tag, r->numb_path);
	vt_out(run, "# %s pkey 0x%04x", tag, be16_to_cpu(r->pkey));
	vt_out(run, "# %s qos_class %u", tag, be16_to_cpu(r->qos_class));
	vt_out(run, "# %s sl %u", tag, r->sl);
	vt_out(run, "# %s mtu_selector %u", tag, r->mtu_selector);
	vt_out(run, "# %s mtu %u", tag, r->mtu);
	vt_out(run, "# %s rate_selector %u", tag, r->rate_selector);
	vt_out(run, "# %s rate %u", tag, r->rate);
	vt_out(run, "# %s packet_life_time_selector %u", tag,
	       r->packet_life_time_selector);
	vt_out(run, "# %s packet_life_time %u", tag, r->packet_life_time);
	vt_out(run, "# %s preference %u", tag, r->preference);
}

/* The record names the two ports the path joins. */
static void vts_check_ends(struct vt_run *run, const struct sa_path_rec *r,
			   struct vt_side *s, struct vt_side *d)
{
	if (be16_to_cpu(r->slid) != s->lid || be16_to_cpu(r->dlid) != d->lid)
		vt_why(run, "SLID %u DLID %u, not %u and %u",
		       be16_to_cpu(r->slid), be16_to_cpu(r->dlid), s->lid,
		       d->lid);
	if (memcmp(&r->sgid, &s->gid, 16) || memcmp(&r->dgid, &d->gid, 16))
		vt_why(run, "SGID %pI6 DGID %pI6, not the ports'", r->sgid.raw,
		       r->dgid.raw);
	if ((be16_to_cpu(r->pkey) & 0x7fff) != 0x7fff)
		vt_why(run, "P_Key 0x%04x, not the default",
		       be16_to_cpu(r->pkey));
}

static void vts_check_ah(struct vt_run *run, struct vt_side *s,
			 struct sa_path_rec *r)
{
	struct rdma_ah_attr attr;
	struct ib_ah *ah;
	int ret;

	ret = ib_init_ah_attr_from_path(s->dev, s->port, r, &attr);
	if (ret)
		vt_why(run, "ib_init_ah_attr_from_path: %d", ret);
	else if (attr.dlid != be16_to_cpu(r->dlid) || attr.sl != r->sl ||
		 attr.static_rate != r->rate || attr.port_num != s->port ||
		 attr.src_path_bits || attr.type != RDMA_AH_ATTR_TYPE_IB)
		vt_why(run, "AH: dlid %u sl %u rate %u port %u bits %u type %d",
		       attr.dlid, attr.sl, attr.static_rate, attr.port_num,
		       attr.src_path_bits, attr.type);
	else if (!!(attr.ah_flags & IB_AH_GRH) != (r->hop_limit > 1))
		vt_why(run, "AH: GRH %d with hop limit %u",
		       attr.ah_flags & IB_AH_GRH, r->hop_limit);
	vt_result(run, "sa path: ib_init_ah_attr_from_path() of the record");
	if (ret)
		return;
	ah = rdma_create_ah(s->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	vt_check(run, !IS_ERR(ah), "sa path: the AH can be created (%d)",
		 PTR_ERR_OR_ZERO(ah));
	if (!IS_ERR(ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static void vts_cmd_path(struct vt_run *run, struct vt_side *a,
			 struct vt_side *b)
{
	struct sa_path_rec by_gid;
	struct vts_wait *w;
	int i, numb = run->n ? min(run->n, 127U) : 4;

	w = vts_wait_new();
	if (!w)
		return;
	if (!vts_path(run, a, b, IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_DGID |
		      IB_SA_PATH_REC_NUMB_PATH, 1, w))
		return;
	if (w->status || w->num_prs != 1)
		vt_why(run, "status %d, %d records", w->status, w->num_prs);
	else
		vts_check_ends(run, &w->prs[0], a, b);
	by_gid = w->prs[0];
	if (!vt_result(run, "sa path: Get by SGID and DGID: the path %s to %s",
		       ib_device_name(a->dev), ib_device_name(b->dev))) {
		vts_wait_put(w);
		return;
	}
	vts_wait_put(w);
	vts_print_path(run, "pr", &by_gid);
	vts_check_ah(run, a, &by_gid);

	w = vts_wait_new();
	if (!w)
		return;
	if (!vts_path(run, a, b, IB_SA_PATH_REC_SLID | IB_SA_PATH_REC_DLID,
		      0, w))
		return;
	if (w->status || w->num_prs != 1)
		vt_why(run, "status %d, %d records", w->status, w->num_prs);
	else if (memcmp(&w->prs[0], &by_gid, sizeof(by_gid)))
		vt_why(run, "another record than by GIDs");
	vt_result(run, "sa path: Get by SLID and DLID: the same record");
	vts_wait_put(w);

	w = vts_wait_new();
	if (!w)
		return;
	if (!vts_path(run, a, b, IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_DGID |
		      IB_SA_PATH_REC_NUMB_PATH, numb, w))
		return;
	if (w->status || w->num_prs < 1 || w->num_prs > numb)
		vt_why(run, "status %d, %d records", w->status, w->num_prs);
	for (i = 0; !w->status && i < w->num_prs && i < ARRAY_SIZE(w->prs);
	     i++)
		vts_check_ends(run, &w->prs[i], a, b);
	vt_out(run, "# GetTable: %d records", w->num_prs);
	vt_result(run, "sa path: GetTable of at most %d paths: 1..%d records",
		  numb, numb);
	vts_wait_put(w);
}

/* N queries, each cancelled at once. */
static void vts_cmd_cancel(struct vt_run *run, struct vt_side *a,
			   struct vt_side *b)
{
	unsigned int i, n = run->n ? min(run->n, 1000U) : 20;
	unsigned int intr = 0, answered = 0;
	struct sa_path_rec rec = {};
	struct ib_sa_query *query;
	struct vts_wait *w;
	int id;

	rec.sgid = a->gid;
	rec.dgid = b->gid;
	rec.numb_path = 1;
	for (i = 0; i < n && !vt_aborted(run); i++) {
		w = vts_wait_new();
		if (!w)
			return;
		id = ib_sa_path_rec_get(&vts_client, a->dev, a->port, &rec,
					IB_SA_PATH_REC_SGID |
					IB_SA_PATH_REC_DGID |
					IB_SA_PATH_REC_NUMB_PATH,
					vts_timeout(run), GFP_KERNEL,
					vts_path_cb, w, &query);
		if (id < 0) {
			vt_why(run, "query %u: %d", i, id);
			vts_wait_put(w);
			vts_wait_put(w);
			break;
		}
		ib_sa_cancel_query(id, query);
		if (!vts_wait_cb(run, w, id, query))
			break;
		/* a second callback would come about now */
		msleep(20);
		if (atomic_read(&w->calls) != 1)
			vt_why(run, "query %u: %d callbacks", i,
			       atomic_read(&w->calls));
		if (w->status == -EINTR)
			intr++;
		else if (!w->status)
			answered++;
		else
			vt_why(run, "query %u: status %d", i, w->status);
		/* a stale id and query: nothing happens */
		ib_sa_cancel_query(id, query);
		vts_wait_put(w);
	}
	vt_out(run, "# cancel: %u -EINTR, %u answered first", intr, answered);
	if (!intr)
		vt_why(run, "no query ended with -EINTR");
	vt_result(run, "sa cancel: %u queries cancelled, one callback each", n);
}

static const struct {
	const char *name;
	int err;
} vts_errnos[] = {
	{ "ETIMEDOUT", ETIMEDOUT }, { "EAGAIN", EAGAIN },
	{ "EINTR", EINTR }, { "ENODEV", ENODEV }, { "EINVAL", EINVAL },
	{ "EIO", EIO }, { "ENOENT", ENOENT }, { "OK", 0 },
};

static void vts_cmd_expect(struct vt_run *run, struct vt_side *a,
			   struct vt_side *b, const char *name)
{
	unsigned long start = jiffies;
	unsigned int elapsed, i;
	struct vts_wait *w;
	int want = -1;

	for (i = 0; i < ARRAY_SIZE(vts_errnos); i++)
		if (!strcmp(name, vts_errnos[i].name))
			want = -vts_errnos[i].err;
	if (want == -1) {
		vt_check(run, false, "sa expect: unknown errno %s", name);
		return;
	}
	w = vts_wait_new();
	if (!w)
		return;
	if (!vts_path(run, a, b, IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_DGID |
		      IB_SA_PATH_REC_NUMB_PATH, 1, w))
		return;
	elapsed = jiffies_to_msecs(jiffies - start);
	vt_out(run, "# status %d after %u ms", w->status, elapsed);
	if (w->status != want)
		vt_why(run, "status %d, not %d", w->status, want);
	else if (want == -ETIMEDOUT &&
		 (elapsed < vts_timeout(run) * 9 / 10 ||
		  elapsed > vts_timeout(run) + 5000))
		vt_why(run, "timed out after %u ms, asked for %lu", elapsed,
		       vts_timeout(run));
	vt_result(run, "sa expect: a PathRecord query on %s ends with %s",
		  ib_device_name(a->dev), name);
	vts_wait_put(w);
}

static void vts_cmd_cpi(struct vt_run *run, struct vt_side *a)
{
	vt_out(run, "# sendonly_fullmem %d",
	       ib_sa_sendonly_fullmem_support(&vts_client, a->dev, a->port));
	vt_check(run, true, "sa cpi: asked");
}

static void vts_service_fill(struct ib_sa_service_rec *rec,
			     struct vt_side *a)
{
	int i;

	memset(rec, 0, sizeof(*rec));
	rec->id = VTS_SERVICE_ID;
	rec->gid = a->gid;
	rec->pkey = cpu_to_be16(0xffff);
	rec->lease = IB_DEFAULT_SERVICE_LEASE;
	for (i = 0; i < 16; i++) {
		rec->key[i] = 0xa0 + i;
		rec->data8[i] = i + 1;
	}
	strscpy(rec->name, VTS_SERVICE_NAME, sizeof(rec->name));
	for (i = 0; i < 8; i++)
		rec->data16[i] = 0x1000 + i;
	for (i = 0; i < 4; i++)
		rec->data32[i] = 0x20000000 + i;
	for (i = 0; i < 2; i++)
		rec->data64[i] = 0x3000000000000000ull + i;
}

static void vts_cmd_service(struct vt_run *run, struct vt_side *a,
			    const char *what)
{
	ib_sa_comp_mask mask = IB_SA_SERVICE_REC_SERVICE_ID |
			       IB_SA_SERVICE_REC_SERVICE_GID;
	struct ib_sa_service_rec rec, *got;
	struct ib_sa_query *query;
	struct vts_wait *w;
	u8 method;
	int id;

	vts_service_fill(&rec, a);
	if (!strcmp(what, "set")) {
		method = IB_MGMT_METHOD_SET;
		mask |= IB_SA_SERVICE_REC_SERVICE_PKEY |
			IB_SA_SERVICE_REC_SERVICE_LEASE |
			IB_SA_SERVICE_REC_SERVICE_KEY |
			IB_SA_SERVICE_REC_SERVICE_NAME;
	} else if (!strcmp(what, "delete")) {
		method = IB_SA_METHOD_DELETE;
	} else if (!strcmp(what, "get") || !strcmp(what, "absent")) {
		method = IB_MGMT_METHOD_GET;
	} else {
		vt_check(run, false, "sa service: unknown step %s", what);
		return;
	}
	w = vts_wait_new();
	if (!w)
		return;
	id = ib_sa_service_rec_query(&vts_client, a->dev, a->port, method,
				     &rec, mask, vts_timeout(run), GFP_KERNEL,
				     vts_service_cb, w, &query);
	if (id < 0) {
		w->status = id;
		vts_wait_put(w);
	} else if (!vts_wait_cb(run, w, id, query)) {
		vt_result(run, "sa service %s: a callback", what);
		return;
	}
	got = &w->service;
	if (!strcmp(what, "absent")) {
		if (w->status != -EINVAL)
			vt_why(run, "status %d, not -EINVAL (NO_RECORDS)",
			       w->status);
	} else if (w->status) {
		vt_why(run, "status %d", w->status);
	} else if (got->id != rec.id || memcmp(&got->gid, &rec.gid, 16) ||
		   got->pkey != rec.pkey || strcmp(got->name, rec.name)) {
		vt_why(run, "id 0x%llx gid %pI6 pkey 0x%x name '%.64s'",
		       got->id, got->gid.raw, be16_to_cpu(got->pkey),
		       got->name);
	} else if (!strcmp(what, "get") &&
		   (memcmp(got->data8, rec.data8, sizeof(rec.data8)) ||
		    memcmp(got->data16, rec.data16, sizeof(rec.data16)) ||
		    memcmp(got->data32, rec.data32, sizeof(rec.data32)) ||
		    memcmp(got->data64, rec.data64, sizeof(rec.data64)))) {
		vt_why(run, "data %*ph / %*ph / %*ph / %*ph", 16, got->data8,
		       16, got->data16, 16, got->data32, 16, got->data64);
	}
	vt_result(run, "sa service %s: ServiceRecord 0x%llx of %s", what,
		  rec.id, ib_device_name(a->dev));
	vts_wait_put(w);
}

static int vts_mc_cb(int status, struct ib_sa_multicast *multicast)
{
	struct vts_mc *u = multicast->context;
	unsigned long flags;

	spin_lock_irqsave(&vts_mc_lock, flags);
	if (u->nlog < VTS_MC_LOG)
		u->log[u->nlog] = status;
	u->nlog++;
	spin_unlock_irqrestore(&vts_mc_lock, flags);
	wake_up_all(&vts_mc_wait);
	return 0;
}

/* the n-th status of user @u's callback, or 1 if there is none yet */
static int vts_mc_status(struct vts_mc *u, int n)
{
	int ret = 1;

	spin_lock_irq(&vts_mc_lock);
	if (n < u->nlog && n < VTS_MC_LOG)
		ret = u->log[n];
	spin_unlock_irq(&vts_mc_lock);
	return ret;
}

/* Wait for user @u's n-th callback; gives up when the device goes. */
static bool vts_mc_wait_status(struct vt_run *run, struct vts_mc *u, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(run->wait_ms);

	while (!vt_aborted(run)) {
		if (wait_event_timeout(vts_mc_wait, vts_mc_status(u, n) != 1,
				       HZ / 10))
			return true;
		if (time_after(jiffies, end))
			break;
	}
	return false;
}

static void vts_mc_check_rec(struct vt_run *run, struct vt_side *a,
			     struct ib_sa_mcmember_rec *rec)
{
	struct ib_sa_mcmember_rec cached;
	struct rdma_ah_attr attr;
	struct ib_ah *ah;
	int ret;

	vt_out(run, "# mcmember mlid 0x%04x qkey 0x%08x pkey 0x%04x mtu %u",
	       be16_to_cpu(rec->mlid), be32_to_cpu(rec->qkey),
	       be16_to_cpu(rec->pkey), rec->mtu);
	vt_out(run, "# mcmember rate %u sl %u hop_limit %u scope %u join_state %u",
	       rec->rate, rec->sl, rec->hop_limit, rec->scope,
	       rec->join_state);
	if (be16_to_cpu(rec->mlid) < 0xc000 || be16_to_cpu(rec->mlid) == 0xffff)
		vt_why(run, "MLID 0x%04x is not multicast", be16_to_cpu(rec->mlid));
	if (memcmp(rec->mgid.raw, vts_bcast_mgid, 16) ||
	    memcmp(&rec->port_gid, &a->gid, 16))
		vt_why(run, "MGID %pI6 port GID %pI6", rec->mgid.raw,
		       rec->port_gid.raw);
	vt_result(run, "sa mcast: the SA's record of the group");

	ret = ib_sa_get_mcmember_rec(a->dev, a->port, &rec->mgid, &cached);
	if (ret)
		vt_why(run, "ib_sa_get_mcmember_rec: %d", ret);
	else if (cached.mlid != rec->mlid || cached.qkey != rec->qkey)
		vt_why(run, "ib_sa_get_mcmember_rec: MLID 0x%04x Q_Key 0x%x",
		       be16_to_cpu(cached.mlid), be32_to_cpu(cached.qkey));
	vt_result(run, "sa mcast: ib_sa_get_mcmember_rec() has it");

	ret = ib_init_ah_from_mcmember(a->dev, a->port, rec, &attr);
	if (ret)
		vt_why(run, "ib_init_ah_from_mcmember: %d", ret);
	else if (attr.dlid != be16_to_cpu(rec->mlid) ||
		 !(attr.ah_flags & IB_AH_GRH) ||
		 memcmp(&attr.grh.dgid, &rec->mgid, 16) || attr.grh.sgid_index)
		vt_why(run, "AH: dlid 0x%x flags %u dgid %pI6 sgid_index %u",
		       attr.dlid, attr.ah_flags, attr.grh.dgid.raw,
		       attr.grh.sgid_index);
	if (!ret && !run->why[0]) {
		ah = rdma_create_ah(a->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(ah))
			vt_why(run, "rdma_create_ah: %ld", PTR_ERR(ah));
		else
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	}
	vt_result(run, "sa mcast: ib_init_ah_from_mcmember() makes an AH");
}

static void vts_mc_free(struct vts_mc *u)
{
	struct ib_sa_multicast *mc;

	spin_lock_irq(&vts_mc_lock);
	mc = u->mc;
	u->mc = NULL;
	u->vdev = NULL;
	spin_unlock_irq(&vts_mc_lock);
	if (mc)
		ib_sa_free_multicast(mc);
}

static void vts_cmd_mcast(struct vt_run *run, struct vt_side *a)
{
	const char *what = run->argv[1];
	struct ib_sa_mcmember_rec rec = {};
	struct ib_sa_multicast *mc;
	unsigned int n;
	struct vts_mc *u = NULL;
	int ret, i;

	if (run->argc >= 3 && !kstrtouint(run->argv[2], 0, &n) &&
	    n < VTS_MC_USERS)
		u = &vts_mc[n];
	memcpy(rec.mgid.raw, vts_bcast_mgid, 16);

	if (!strcmp(what, "joined")) {
		struct ib_sa_mcmember_rec got;
		bool no = run->argc == 3 && !strcmp(run->argv[2], "no");

		ret = ib_sa_get_mcmember_rec(a->dev, a->port, &rec.mgid, &got);
		vt_check(run, no ? ret == -EADDRNOTAVAIL : !ret,
			 "sa mcast joined: ib_sa_get_mcmember_rec() says %d",
			 ret);
		return;
	}
	if (!u) {
		vt_check(run, false, "sa mcast %s: which user (0..%d)?", what,
			 VTS_MC_USERS - 1);
		return;
	}
	if (!strcmp(what, "free")) {
		vt_check(run, u->mc, "sa mcast free %u: had a membership", n);
		vts_mc_free(u);
		return;
	}
	if (!strcmp(what, "reset")) {
		for (i = 0; i < VTS_MC_LOG; i++) {
			if (!vts_mc_wait_status(run, u, i))
				break;
			if (vts_mc_status(u, i) == -ENETRESET)
				break;
		}
		if (i == VTS_MC_LOG || vts_mc_status(u, i) != -ENETRESET)
			vt_why(run, "no -ENETRESET");
		else if (!vts_mc_wait_status(run, u, i + 1))
			vt_why(run, "no callback after -ENETRESET");
		else if (vts_mc_status(u, i + 1))
			vt_why(run, "rejoin: status %d", vts_mc_status(u, i + 1));
		vt_out(run, "# user %u: %d callbacks", n, u->nlog);
		vt_result(run, "sa mcast reset %u: -ENETRESET, then rejoined",
			  n);
		return;
	}
	if (strcmp(what, "join") || u->mc) {
		vt_check(run, false, "sa mcast %s %u: not understood, or joined",
			 what, n);
		return;
	}

	rec.port_gid = a->gid;
	rec.pkey = cpu_to_be16(0xffff);
	rec.join_state = BIT(FULLMEMBER_JOIN);
	if (run->argc == 4 && !strcmp(run->argv[3], "sendonly"))
		rec.join_state = BIT(SENDONLY_NONMEMBER_JOIN);
	spin_lock_irq(&vts_mc_lock);
	u->nlog = 0;
	spin_unlock_irq(&vts_mc_lock);
	mc = ib_sa_join_multicast(&vts_client, a->dev, a->port, &rec,
				  IB_SA_MCMEMBER_REC_MGID |
				  IB_SA_MCMEMBER_REC_PORT_GID |
				  IB_SA_MCMEMBER_REC_PKEY |
				  IB_SA_MCMEMBER_REC_JOIN_STATE,
				  GFP_KERNEL, vts_mc_cb, u);
	if (IS_ERR(mc)) {
		vt_check(run, false, "sa mcast join %u: %ld", n, PTR_ERR(mc));
		return;
	}
	spin_lock_irq(&vts_mc_lock);
	u->mc = mc;
	u->vdev = a->vdev;
	spin_unlock_irq(&vts_mc_lock);
	if (!vts_mc_wait_status(run, u, 0))
		vt_why(run, "no callback within %u ms", run->wait_ms);
	else if (vts_mc_status(u, 0))
		vt_why(run, "status %d", vts_mc_status(u, 0));
	if (!vt_result(run, "sa mcast join %u: joined ff12:401b:ffff::ffff:ffff",
		       n))
		return;
	vts_mc_check_rec(run, a, &mc->rec);
}

/* what "sa flood" left in flight and what came back */
static atomic_t vts_flood_sent = ATOMIC_INIT(0);
static atomic_t vts_flood_calls = ATOMIC_INIT(0);
static atomic_t vts_flood_intr = ATOMIC_INIT(0);
static atomic_t vts_flood_timedout = ATOMIC_INIT(0);

static void vts_flood_cb(int status, struct sa_path_rec *resp, int num_prs,
			 void *context)
{
	atomic_inc(&vts_flood_calls);
	if (status == -EINTR)
		atomic_inc(&vts_flood_intr);
	else if (status == -ETIMEDOUT)
		atomic_inc(&vts_flood_timedout);
}

static void vts_cmd_flood(struct vt_run *run, struct vt_side *a,
			  struct vt_side *b, bool check)
{
	unsigned int i, n = run->n ? min(run->n, 10000U) : 50;
	struct sa_path_rec rec = {};
	struct ib_sa_query *query;
	int id, sent, calls;

	if (check) {
		sent = atomic_read(&vts_flood_sent);
		calls = atomic_read(&vts_flood_calls);
		vt_out(run, "# flood: %d sent, %d callbacks, %d -EINTR, %d -ETIMEDOUT",
		       sent, calls, atomic_read(&vts_flood_intr),
		       atomic_read(&vts_flood_timedout));
		vt_check(run, sent && calls == sent &&
			 atomic_read(&vts_flood_intr) +
			 atomic_read(&vts_flood_timedout) == sent,
			 "sa flood check: each query called back once, with -EINTR or -ETIMEDOUT");
		return;
	}
	rec.sgid = a->gid;
	rec.dgid = b->gid;
	rec.numb_path = 1;
	for (i = 0; i < n; i++) {
		id = ib_sa_path_rec_get(&vts_client, a->dev, a->port, &rec,
					IB_SA_PATH_REC_SGID |
					IB_SA_PATH_REC_DGID |
					IB_SA_PATH_REC_NUMB_PATH,
					run->timeout_ms ? run->timeout_ms : 60000,
					GFP_KERNEL, vts_flood_cb, NULL, &query);
		if (id < 0)
			break;
		atomic_inc(&vts_flood_sent);
	}
	vt_check(run, i == n, "sa flood: %u of %u queries in flight (%d)", i,
		 n, i == n ? 0 : id);
}

/**
 * vt_sa_remove_dev - end the memberships on a device going away
 * @vdev: the device
 */
void vt_sa_remove_dev(struct vt_dev *vdev)
{
	int i;

	for (i = 0; i < VTS_MC_USERS; i++)
		if (READ_ONCE(vts_mc[i].vdev) == vdev)
			vts_mc_free(&vts_mc[i]);
}

/**
 * vt_cmd_sa - the "sa" command
 * @run: the command
 *
 * Return: 0, or -EINVAL for words it does not know.
 */
int vt_cmd_sa(struct vt_run *run)
{
	struct vt_side a = {}, b = {};
	const char *what = run->argc ? run->argv[0] : "";
	int ret;

	if (!run->argc || run->argc > 4)
		return -EINVAL;
	ret = vt_side_init(run, &a, run->va, false);
	if (!ret)
		ret = vt_side_init(run, &b, run->vb, false);
	if (ret) {
		vt_result(run, "sa: the two ports");
		goto out;
	}
	if (!strcmp(what, "path") && run->argc == 1)
		vts_cmd_path(run, &a, &b);
	else if (!strcmp(what, "cancel") && run->argc == 1)
		vts_cmd_cancel(run, &a, &b);
	else if (!strcmp(what, "expect") && run->argc == 2)
		vts_cmd_expect(run, &a, &b, run->argv[1]);
	else if (!strcmp(what, "cpi") && run->argc == 1)
		vts_cmd_cpi(run, &a);
	else if (!strcmp(what, "service") && run->argc == 2)
		vts_cmd_service(run, &a, run->argv[1]);
	else if (!strcmp(what, "mcast") && run->argc >= 2)
		vts_cmd_mcast(run, &a);
	else if (!strcmp(what, "flood") && run->argc == 1)
		vts_cmd_flood(run, &a, &b, false);
	else if (!strcmp(what, "flood") && run->argc == 2 &&
		 !strcmp(run->argv[1], "check"))
		vts_cmd_flood(run, &a, &b, true);
	else
		ret = -EINVAL;
out:
	vt_side_fini(&b);
	vt_side_fini(&a);
	return ret;
}

/**
 * vt_sa_init - register the SA client of the tests
 */
void vt_sa_init(void)
{
	ib_sa_register_client(&vts_client);
}

/**
 * vt_sa_exit - wait for the tests' queries to end
 */
void vt_sa_exit(void)
{
	ib_sa_unregister_client(&vts_client);
}
