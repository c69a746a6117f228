// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test: the client registration, the devices we were given, and
 * the debugfs control files.
 *
 * /sys/kernel/debug/ib_verbs_test/run: writing a command runs it in the
 * writer's context and returns when it is done (-EINVAL for a command or
 * option we do not know, -ENODEV if its devices are missing); reading it
 * (or "result") gives that command's result: "ok ..." and "not ok ..."
 * lines, one per check, and "# ..." lines with figures.
 * /sys/kernel/debug/ib_verbs_test/devices lists the devices we hold.
 *
 * Commands (options: a=DEV b=DEV n=N secs=N mtu=BYTES ack_timeout=N
 * wait_ms=N timeout_ms=N lossy):
 *   ops [rc|uc|ud|mcast|srq|atomic|frmr]...   every operation, verified
 *   loss rc|uc|ud [n=N] [lossy]              delivery under faults
 *   errors [CASE]...                         each error status
 *   unreachable                              RC to a peer it cannot reach
 *   loop [n=N]                               create/destroy balance
 *   traffic start|stop|status                background RC traffic
 *   bench [secs=N]                           RC WRITE vs memcpy bandwidth
 *   mad CASE...                              the MAD layer (vt_mad.c)
 *   sa CASE [ARG]                            the SA client (vt_sa.c)
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vt.h"

#define VT_CMD_MAX	256
#define VT_OUT_SIZE	(256 * 1024)

/* protects vt_devs and the removing flag of its entries */
static DEFINE_MUTEX(vt_dev_lock);
static LIST_HEAD(vt_devs);

/*
 * Serialises commands, and protects vt_last and vt_last_len.  A device's
 * remove callback takes it too, so that it returns only after a command
 * using the device has finished (commands give up early once they see
 * the device's removing flag).
 */
static DEFINE_MUTEX(vt_run_lock);
static char *vt_last;
static size_t vt_last_len;

static struct dentry *vt_debugfs;
static struct ib_client vt_client;

/* --------------------------------------------------------------------- */
/* Output                                                                */
/* --------------------------------------------------------------------- */

static __printf(3, 0) void vt_vout(struct vt_run *run, const char *prefix, const char *fmt,
		    va_list ap)
{
	size_t room = run->size - run->len;
	int n;

	if (room <= 1)
		return;
	n = scnprintf(run->out + run->len, room, "%s", prefix);
	run->len += n;
	room -= n;
	n = vscnprintf(run->out + run->len, room, fmt, ap);
	run->len += n;
	room -= n;
	if (room > 1 && (!run->len || run->out[run->len - 1] != '\n')) {
		run->out[run->len++] = '\n';
		run->out[run->len] = '\0';
	}
}

/**
 * vt_out - add a line to the command's result
 * @run: the command
 * @fmt: printf format; a newline is added if missing
 */
void vt_out(struct vt_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_vout(run, "", fmt, ap);
	va_end(ap);
}

/**
 * vt_check - add an "ok" or "not ok" line to the command's result
 * @run: the command
 * @ok: whether the check passed
 * @fmt: printf format of the description
 *
 * Return: @ok.
 */
bool vt_check(struct vt_run *run, bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_vout(run, ok ? "ok " : "not ok ", fmt, ap);
	va_end(ap);
	if (ok)
		run->passed++;
	else
		run->failed++;
	return ok;
}

/**
 * vt_why - note why the check in progress fails
 * @run: the command
 * @fmt: printf format of the reason
 *
 * Only the first reason is kept, until vt_result() reports it.
 */
void vt_why(struct vt_run *run, const char *fmt, ...)
{
	va_list ap;

	if (run->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(run->why, sizeof(run->why), fmt, ap);
	va_end(ap);
	if (!run->why[0])
		strscpy(run->why, "?", sizeof(run->why));
}

/**
 * vt_result - report the check in progress
 * @run: the command
 * @fmt: printf format of the description
 *
 * Writes "ok DESCRIPTION", or "not ok DESCRIPTION" and "# REASON" if
 * vt_why() was called since the last report (the convention of the
 * checkers in tests/scenarios), and forgets the reason.
 *
 * Return: whether the check passed.
 */
bool vt_result(struct vt_run *run, const char *fmt, ...)
{
	char desc[160];
	bool ok = !run->why[0];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	vt_check(run, ok, "%s", desc);
	if (!ok)
		vt_out(run, "# %s", run->why);
	run->why[0] = '\0';
	return ok;
}

/**
 * vt_aborted - whether the command must stop now
 * @run: the command
 *
 * Return: true if one of its devices is going away or the writer got a
 * fatal signal.
 */
bool vt_aborted(struct vt_run *run)
{
	if (run->va && READ_ONCE(run->va->removing))
		return true;
	if (run->vb && READ_ONCE(run->vb->removing))
		return true;
	return fatal_signal_pending(current);
}

/**
 * vt_has_arg - whether a word was given after the command
 * @run: the command
 * @word: the word
 *
 * Return: true if it was, or if no word was given at all.
 */
bool vt_has_arg(struct vt_run *run, const char *word)
{
	int i;

	if (!run->argc)
		return true;
	for (i = 0; i < run->argc; i++)
		if (!strcmp(run->argv[i], word))
			return true;
	return false;
}

/**
 * vt_args_known - whether every word after the command is one of @words
 * @run: the command
 * @words: the words the command knows
 * @n: how many
 *
 * Return: true if they all are (or none was given).
 */
bool vt_args_known(struct vt_run *run, const char * const *words, size_t n)
{
	size_t j;
	int i;

	for (i = 0; i < run->argc; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(run->argv[i], words[j]))
				break;
		if (j == n)
			return false;
	}
	return true;
}

/* --------------------------------------------------------------------- */
/* Devices                                                               */
/* --------------------------------------------------------------------- */

static int vt_add(struct ib_device *ibdev)
{
	struct vt_dev *vdev;

	vdev = kzalloc(sizeof(*vdev), GFP_KERNEL);
	if (!vdev)
		return -ENOMEM;
	vdev->ibdev = ibdev;
	ib_set_client_data(ibdev, &vt_client, vdev);
	mutex_lock(&vt_dev_lock);
	list_add_tail(&vdev->list, &vt_devs);
	mutex_unlock(&vt_dev_lock);
	return 0;
}

/*
 * The device is going away (its driver unregisters it, or we are being
 * unloaded): stop the background traffic using it, wait for a command
 * using it to give up, and forget it.  Everything we created on it is
 * destroyed by then.
 */
static void vt_remove(struct ib_device *ibdev, void *client_data)
{
	struct vt_dev *vdev = client_data;

	mutex_lock(&vt_dev_lock);
	WRITE_ONCE(vdev->removing, true);
	mutex_unlock(&vt_dev_lock);

	vt_traffic_remove_dev(vdev);
	mutex_lock(&vt_run_lock);
	/* no command runs: nothing joins on the device any more */
	vt_sa_remove_dev(vdev);
	/* a traffic start that raced with the first call is caught here */
	vt_traffic_remove_dev(vdev);
	mutex_lock(&vt_dev_lock);
	list_del(&vdev->list);
	mutex_unlock(&vt_dev_lock);
	mutex_unlock(&vt_run_lock);
	kfree(vdev);
}

static struct ib_client vt_client = {
	.name = "ib_verbs_test",
	.add = vt_add,
	.remove = vt_remove,
};

/* Caller holds vt_dev_lock. */
static struct vt_dev *vt_find(const char *name, struct vt_dev *not)
{
	struct vt_dev *vdev;

	list_for_each_entry(vdev, &vt_devs, list) {
		if (vdev->removing || vdev == not)
			continue;
		if (!name || !strcmp(ib_device_name(vdev->ibdev), name))
			return vdev;
	}
	return NULL;
}

/*
 * Pick the two devices of a command: a= and b= if given, else vmlx0 and
 * vmlx1 if we have them, else the first two we have.
 */
static int vt_pick_devices(struct vt_run *run, const char *a, const char *b)
{
	mutex_lock(&vt_dev_lock);
	run->va = vt_find(a ? a : "vmlx0", NULL);
	if (!run->va && !a)
		run->va = vt_find(NULL, NULL);
	run->vb = vt_find(b ? b : "vmlx1", NULL);
	if (!run->vb && !b)
		run->vb = vt_find(NULL, run->va);
	mutex_unlock(&vt_dev_lock);
	if (!run->va || !run->vb) {
		run->va = NULL;
		run->vb = NULL;
		return -ENODEV;
	}
	return 0;
}

/* --------------------------------------------------------------------- */
/* Commands                                                              */
/* --------------------------------------------------------------------- */

/*
 * A command; those with @devs_optional also run without two devices
 * (run->va and run->vb are then NULL).
 */
struct vt_cmd {
	const char	*name;
	int		(*fn)(struct vt_run *run);
	bool		devs_optional;
};

static const struct vt_cmd vt_cmds[] = {
	{ "ops", vt_cmd_ops },
	{ "loss", vt_cmd_loss },
	{ "errors", vt_cmd_errors },
	{ "unreachable", vt_cmd_unreachable },
	{ "loop", vt_cmd_loop },
	{ "traffic", vt_cmd_traffic, true },
	{ "bench", vt_cmd_bench },
	{ "mad", vt_cmd_mad },
	{ "sa", vt_cmd_sa },
};

static int vt_parse_uint(const char *val, unsigned int *out)
{
	return kstrtouint(val, 0, out);
}

/* Split @cmd in place and run it.  Caller holds vt_run_lock. */
static int vt_run_cmd(struct vt_run *run, char *cmd)
{
	const struct vt_cmd *c = NULL;
	const char *a = NULL, *b = NULL;
	char *word, *name;
	unsigned int i;
	int ret;

	name = strsep(&cmd, " \t\n");
	for (i = 0; i < ARRAY_SIZE(vt_cmds); i++)
		if (!strcmp(name, vt_cmds[i].name))
			c = &vt_cmds[i];
	if (!c)
		return -EINVAL;

	run->wait_ms = 15000;
	while ((word = strsep(&cmd, " \t\n"))) {
		char *val;

		if (!*word)
			continue;
		val = strchr(word, '=');
		if (val)
			*val++ = '\0';
		if (!val && !strcmp(word, "lossy")) {
			run->lossy = true;
		} else if (!val) {
			if (run->argc == VT_MAX_ARGS)
				return -EINVAL;
			run->argv[run->argc++] = word;
		} else if (!strcmp(word, "a")) {
			a = val;
		} else if (!strcmp(word, "b")) {
			b = val;
		} else if (!strcmp(word, "n")) {
			if (vt_parse_uint(val, &run->n))
				return -EINVAL;
		} else if (!strcmp(word, "secs")) {
			if (vt_parse_uint(val, &run->secs) || run->secs > 600)
				return -EINVAL;
		} else if (!strcmp(word, "mtu")) {
			if (vt_parse_uint(val, &run->mtu) ||
			    (run->mtu != 256 && run->mtu != 512 &&
			     run->mtu != 1024 && run->mtu != 2048 &&
			     run->mtu != 4096))
				return -EINVAL;
		} else if (!strcmp(word, "ack_timeout")) {
			if (vt_parse_uint(val, &run->ack_timeout) ||
			    run->ack_timeout > 31)
				return -EINVAL;
		} else if (!strcmp(word, "timeout_ms")) {
			if (vt_parse_uint(val, &run->timeout_ms) ||
			    !run->timeout_ms)
				return -EINVAL;
		} else if (!strcmp(word, "wait_ms")) {
			if (vt_parse_uint(val, &run->wait_ms) ||
			    !run->wait_ms)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}

	ret = vt_pick_devices(run, a, b);
	if (ret && !c->devs_optional) {
		vt_check(run, false, "%s: needs two devices (a=%s b=%s)", name,
			 a ? a : "vmlx0", b ? b : "vmlx1");
		return ret;
	}
	if (run->va)
		vt_out(run, "# %s on %s and %s", name,
		       ib_device_name(run->va->ibdev),
		       ib_device_name(run->vb->ibdev));
	ret = c->fn(run);
	if (ret == -EINVAL)
		return ret;
	if (ret)
		vt_check(run, false, "%s: could not run (%d)", name, ret);
	if (vt_aborted(run))
		vt_check(run, false, "%s: aborted (device going away or signal)",
			 name);
	vt_out(run, "# %s: %u ok, %u not ok", name, run->passed, run->failed);
	return 0;
}

static ssize_t vt_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct vt_run *run;
	char *cmd;
	int ret;

	if (count >= VT_CMD_MAX)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run) {
		ret = -ENOMEM;
		goto out_cmd;
	}
	run->size = VT_OUT_SIZE;
	run->out = kvzalloc(run->size, GFP_KERNEL);
	if (!run->out) {
		ret = -ENOMEM;
		goto out_run;
	}

	mutex_lock(&vt_run_lock);
	ret = vt_run_cmd(run, strim(cmd));
	if (ret == -EINVAL)
		vt_out(run, "not ok command not understood: %s",
		       "see the comment at the top of vt_main.c");
	kvfree(vt_last);
	vt_last = run->out;
	vt_last_len = run->len;
	run->out = NULL;
	mutex_unlock(&vt_run_lock);
	if (!ret)
		ret = count;

	kvfree(run->out);
out_run:
	kfree(run);
out_cmd:
	kfree(cmd);
	return ret;
}

static ssize_t vt_run_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&vt_run_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, vt_last,
				      vt_last ? vt_last_len : 0);
	mutex_unlock(&vt_run_lock);
	return ret;
}

static const struct file_operations vt_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vt_run_read,
	.write = vt_run_write,
	.llseek = default_llseek,
};

static const struct file_operations vt_result_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vt_run_read,
	.llseek = default_llseek,
};

static ssize_t vt_devices_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct vt_dev *vdev;
	size_t len = 0;
	ssize_t ret;
	char *buf;

	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&vt_dev_lock);
	list_for_each_entry(vdev, &vt_devs, list)
		len += scnprintf(buf + len, PAGE_SIZE - len, "%s%s\n",
				 ib_device_name(vdev->ibdev),
				 vdev->removing ? " (removing)" : "");
	mutex_unlock(&vt_dev_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static const struct file_operations vt_devices_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vt_devices_read,
	.llseek = default_llseek,
};

static int __init vt_init(void)
{
	int ret;

	vt_debugfs = debugfs_create_dir("ib_verbs_test", NULL);
	debugfs_create_file("run", 0600, vt_debugfs, NULL, &vt_run_fops);
	debugfs_create_file("result", 0400, vt_debugfs, NULL,
			    &vt_result_fops);
	debugfs_create_file("devices", 0400, vt_debugfs, NULL,
			    &vt_devices_fops);

	vt_sa_init();
	ret = ib_register_client(&vt_client);
	if (ret) {
		vt_sa_exit();
		debugfs_remove_recursive(vt_debugfs);
		return ret;
	}
	return 0;
}

static void __exit vt_exit(void)
{
	/* waits for a command in progress; no new one can start */
	debugfs_remove_recursive(vt_debugfs);
	ib_unregister_client(&vt_client);
	vt_traffic_exit();
	vt_sa_exit();
	kvfree(vt_last);
}

module_init(vt_init);
module_exit(vt_exit);

MODULE_DESCRIPTION("Kernel verbs test client: data, errors and faults over RDMA devices");
MODULE_LICENSE("GPL");
