// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx profile: where the data path's time goes, stage by stage.
 *
 * perf's sampling does not work in the TCG guests the project runs in
 * (Documentation/performance.rst), so the transport times itself: while
 * /sys/kernel/debug/vmlx/profile is switched on, each stage of the data
 * path (enum vmlx_prof_stage) adds one count and the nanoseconds it took
 * by local_clock() to per-CPU sums, which the file prints.  Switched off,
 * the hooks cost a static branch each and nothing is counted.
 *
 * Locking: the sums are per CPU and added with this_cpu_add(), which is
 * safe against preemption and interrupts, so the data path takes no
 * lock; a reader sums the CPUs without one and may see a stage's count
 * and its time from slightly different moments.  vmlx_prof_mutex
 * serialises switching on and off and the clearing of the sums.
 */
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "vmlx.h"

DEFINE_STATIC_KEY_FALSE(vmlx_prof_on);

struct vmlx_prof_sum {
	u64	count;
	u64	ns;
};

static DEFINE_PER_CPU(struct vmlx_prof_sum, vmlx_prof_sums[VMLX_PROF_NR]);

/* serialises switching the profile on and off and clearing its sums */
static DEFINE_MUTEX(vmlx_prof_mutex);

static const char * const vmlx_prof_names[VMLX_PROF_NR] = {
	[VMLX_PROF_KICK]	= "kick",
	[VMLX_PROF_WAKEUP]	= "wakeup",
	[VMLX_PROF_WORK]	= "work_run",
	[VMLX_PROF_QUEUED]	= "rx_queued",
	[VMLX_PROF_REQ_PKT]	= "req_packet",
	[VMLX_PROF_XMIT]	= "xmit",
	[VMLX_PROF_RESP_PKT]	= "resp_packet",
	[VMLX_PROF_COMP_PKT]	= "comp_packet",
	[VMLX_PROF_CQ_HANDLER]	= "cq_handler",
	[VMLX_PROF_HANDOFF]	= "handoff",
};

static const char * const vmlx_prof_help[VMLX_PROF_NR] = {
	[VMLX_PROF_KICK]	= "a QP's work item queued (was not pending): queue_work()",
	[VMLX_PROF_WAKEUP]	= "from that queueing to the run's start",
	[VMLX_PROF_WORK]	= "a run of a QP's work item, whole",
	[VMLX_PROF_QUEUED]	= "a packet from its QP's receive queue to its handling",
	[VMLX_PROF_REQ_PKT]	= "the requester builds and sends a packet",
	[VMLX_PROF_XMIT]	= "a QP's packet through the fabric to its QP's queue",
	[VMLX_PROF_RESP_PKT]	= "the responder handles a request",
	[VMLX_PROF_COMP_PKT]	= "the completer handles a response or ACK",
	[VMLX_PROF_CQ_HANDLER]	= "a consumer's CQ event handler",
	[VMLX_PROF_HANDOFF]	= "a QP run by a doorbell or by the run of a QP that sent to it",
};

/**
 * vmlx_prof_add() - add one event of a stage to the profile
 * @stage: the stage
 * @ns: what it took
 *
 * Context: any.
 */
void vmlx_prof_add(enum vmlx_prof_stage stage, u64 ns)
{
	this_cpu_add(vmlx_prof_sums[stage].count, 1);
	this_cpu_add(vmlx_prof_sums[stage].ns, ns);
}

static void vmlx_prof_clear(void)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < VMLX_PROF_NR; i++)
			*per_cpu_ptr(&vmlx_prof_sums[i], cpu) =
				(struct vmlx_prof_sum){};
}

static int vmlx_prof_show(struct seq_file *m, void *v)
{
	struct vmlx_prof_sum sum, *s;
	int cpu, i;

	seq_printf(m, "# profile %s\n",
		   static_key_enabled(&vmlx_prof_on) ? "on" : "off");
	seq_printf(m, "# %-12s %12s %14s %10s  %s\n", "stage", "count",
		   "total_us", "avg_ns", "what");
	for (i = 0; i < VMLX_PROF_NR; i++) {
		sum = (struct vmlx_prof_sum){};
		for_each_possible_cpu(cpu) {
			s = per_cpu_ptr(&vmlx_prof_sums[i], cpu);
			sum.count += READ_ONCE(s->count);
			sum.ns += READ_ONCE(s->ns);
		}
		seq_printf(m, "%-14s %12llu %14llu %10llu  %s\n",
			   vmlx_prof_names[i], sum.count,
			   div_u64(sum.ns, NSEC_PER_USEC),
			   sum.count ? div64_u64(sum.ns, sum.count) : 0,
			   vmlx_prof_help[i]);
	}
	return 0;
}

static int vmlx_prof_open(struct inode *inode, struct file *file)
{
	return single_open(file, vmlx_prof_show, NULL);
}

/* 1: clear the sums and count from now on; 0: stop counting */
static ssize_t vmlx_prof_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(buf, count, &on);
	if (ret)
		return ret;
	mutex_lock(&vmlx_prof_mutex);
	if (on) {
		static_branch_disable(&vmlx_prof_on);
		vmlx_prof_clear();
		static_branch_enable(&vmlx_prof_on);
	} else {
		static_branch_disable(&vmlx_prof_on);
	}
	mutex_unlock(&vmlx_prof_mutex);
	return count;
}

static const struct file_operations vmlx_prof_fops = {
	.owner		= THIS_MODULE,
	.open		= vmlx_prof_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= vmlx_prof_write,
};

/**
 * vmlx_prof_debugfs_init() - create the profile file
 * @dir: /sys/kernel/debug/vmlx
 */
void vmlx_prof_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("profile", 0644, dir, NULL, &vmlx_prof_fops);
}
