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
	struct sa_path_rec rec = {};
	struct ib_sa_query *query;
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
	return vts_wait_cb(run, w, id, query);
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

	if (!run->argc || run->argc > 2)
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
