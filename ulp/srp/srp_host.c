// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: SCSI hosts: logging in through add_target, the host template
 * and its error handlers, the host's sysfs attributes, the SRP transport
 * class callbacks (reconnect, terminating I/O, deleting the remote port)
 * and taking a target apart.
 *
 * add_target parses the options, makes the target's channels and logs in
 * on every one of them, then adds the SCSI host (one blk-mq hardware
 * queue per channel), its SRP remote port and scans its LUNs; the write
 * returns when all that is done.  A target whose scan fails, that is
 * deleted through srp_remote_ports/port-N:1/delete, whose dev_loss_tmo
 * expires or whose device goes away is removed by srp_remove_work() on
 * srp_remove_wq, queued once (srp_queue_remove_work()).
 *
 * Locking: host->add_target_mutex serialises add_target on a port, so
 * the check for an existing login and the insertion into the host's
 * target_list cannot race; host->target_lock protects that list and the
 * targets' state.  Reconnects, the transport's timers and rport deletion
 * run under the rport's mutex (scsi_transport_srp), so a reconnect never
 * runs concurrently with another one or with the remote port's deletion;
 * task management functions of a target are serialised by its
 * tsk_mgmt_mutex.
 */

#include <linux/blk-mq.h>
#include <linux/slab.h>
#include <linux/nsproxy.h>
#include <linux/topology.h>
#include <net/net_namespace.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_tcq.h>
#include <scsi/scsi_transport_srp.h>

#include "srp.h"

struct scsi_transport_template *srp_transport_template;

static const char *srp_target_info(struct Scsi_Host *host)
{
	return host_to_target(host)->target_name;
}

static int srp_target_alloc(struct scsi_target *starget)
{
	struct Scsi_Host *shost = dev_to_shost(starget->dev.parent);
	struct srp_target_port *target = host_to_target(shost);

	if (target->target_can_queue)
		starget->can_queue = target->target_can_queue;
	return 0;
}

static int srp_slave_configure(struct scsi_device *sdev)
{
	struct srp_target_port *target = host_to_target(sdev->host);

	if (sdev->type == TYPE_DISK)
		blk_queue_rq_timeout(sdev->request_queue,
				     max_t(unsigned long, 30 * HZ,
					   target->rq_tmo_jiffies));
	return 0;
}

static int srp_change_queue_depth(struct scsi_device *sdev, int qdepth)
{
	if (!sdev->tagged_supported)
		qdepth = 1;
	return scsi_change_queue_depth(sdev, qdepth);
}

static int srp_abort(struct scsi_cmnd *scmnd)
{
	struct srp_target_port *target = host_to_target(scmnd->device->host);
	struct srp_request *req = scsi_cmd_priv(scmnd);
	u32 tag = blk_mq_unique_tag(scsi_cmd_to_rq(scmnd));
	struct srp_rdma_ch *ch;
	int ret;

	shost_printk(KERN_ERR, target->scsi_host, "SRP abort called\n");

	ch = &target->ch[blk_mq_unique_tag_to_hwq(tag)];
	/* until its MRs are back, a reconnect must not destroy the QP */
	mutex_lock(&target->tsk_mgmt_mutex);
	if (!srp_claim_req(ch, req, scmnd)) {
		mutex_unlock(&target->tsk_mgmt_mutex);
		return SUCCESS;
	}

	if (__srp_send_tsk_mgmt(ch, tag, scmnd->device->lun,
				SRP_TSK_ABORT_TASK, NULL) == 0)
		ret = SUCCESS;
	else if (target->rport->state == SRP_RPORT_LOST)
		ret = FAST_IO_FAIL;
	else
		ret = FAILED;

	/* the command is ours now: its MRs are invalidated either way */
	srp_free_req(ch, req, scmnd, 0);
	mutex_unlock(&target->tsk_mgmt_mutex);
	if (ret == SUCCESS) {
		scmnd->result = DID_ABORT << 16;
		scsi_done(scmnd);
	}
	return ret;
}

static int srp_reset_device(struct scsi_cmnd *scmnd)
{
	struct srp_target_port *target = host_to_target(scmnd->device->host);
	u8 status;

	shost_printk(KERN_ERR, target->scsi_host, "SRP reset_device called\n");

	if (srp_send_tsk_mgmt(&target->ch[0], SRP_TAG_NO_REQ,
			      scmnd->device->lun, SRP_TSK_LUN_RESET, &status) ||
	    status)
		return FAILED;
	/* the reset cleared the LUN's task set: its commands get no response */
	srp_finish_all(target, scmnd->device, DID_RESET << 16);
	return SUCCESS;
}

static int srp_reset_host(struct scsi_cmnd *scmnd)
{
	struct srp_target_port *target = host_to_target(scmnd->device->host);

	shost_printk(KERN_ERR, target->scsi_host, "SRP reset_host called\n");

	return srp_reconnect_rport(target->rport) == 0 ? SUCCESS : FAILED;
}

/* Host attributes, with upstream ib_srp's names and formats. */

static struct srp_target_port *dev_to_target(struct device *dev)
{
	return host_to_target(class_to_shost(dev));
}

static ssize_t id_ext_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "0x%016llx\n",
			  be64_to_cpu(dev_to_target(dev)->id_ext));
}
static DEVICE_ATTR_RO(id_ext);

static ssize_t ioc_guid_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "0x%016llx\n",
			  be64_to_cpu(dev_to_target(dev)->ioc_guid));
}
static DEVICE_ATTR_RO(ioc_guid);

static ssize_t service_id_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct srp_target_port *target = dev_to_target(dev);

	if (target->using_rdma_cm)
		return -ENOENT;
	return sysfs_emit(buf, "0x%016llx\n", be64_to_cpu(target->service_id));
}
static DEVICE_ATTR_RO(service_id);

static ssize_t pkey_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct srp_target_port *target = dev_to_target(dev);

	if (target->using_rdma_cm)
		return -ENOENT;
	return sysfs_emit(buf, "0x%04x\n", target->pkey);
}
static DEVICE_ATTR_RO(pkey);

static ssize_t sgid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pI6\n", dev_to_target(dev)->sgid.raw);
}
static DEVICE_ATTR_RO(sgid);

static ssize_t dgid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct srp_target_port *target = dev_to_target(dev);

	if (target->using_rdma_cm)
		return -ENOENT;
	return sysfs_emit(buf, "%pI6\n", target->ch[0].path.dgid.raw);
}
static DEVICE_ATTR_RO(dgid);

static ssize_t orig_dgid_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct srp_target_port *target = dev_to_target(dev);

	if (target->using_rdma_cm)
		return -ENOENT;
	return sysfs_emit(buf, "%pI6\n", target->orig_dgid.raw);
}
static DEVICE_ATTR_RO(orig_dgid);

static ssize_t req_lim_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct srp_target_port *target = dev_to_target(dev);
	int req_lim = INT_MAX;
	unsigned int i;

	for (i = 0; i < target->ch_count; i++)
		req_lim = min(req_lim, READ_ONCE(target->ch[i].req_lim));
	return sysfs_emit(buf, "%d\n", req_lim);
}
static DEVICE_ATTR_RO(req_lim);

static ssize_t zero_req_lim_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(dev_to_target(dev)->zero_req_lim));
}
static DEVICE_ATTR_RO(zero_req_lim);

static ssize_t local_ib_port_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_target(dev)->srp_host->port);
}
static DEVICE_ATTR_RO(local_ib_port);

static ssize_t local_ib_device_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct srp_target_port *target = dev_to_target(dev);

	return sysfs_emit(buf, "%s\n",
			  dev_name(&target->srp_host->srp_dev->dev->dev));
}
static DEVICE_ATTR_RO(local_ib_device);

static ssize_t ch_count_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_target(dev)->ch_count);
}
static DEVICE_ATTR_RO(ch_count);

static ssize_t comp_vector_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", dev_to_target(dev)->comp_vector);
}
static DEVICE_ATTR_RO(comp_vector);

static ssize_t tl_retry_count_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_target(dev)->tl_retry_count);
}
static DEVICE_ATTR_RO(tl_retry_count);

static ssize_t cmd_sg_entries_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_target(dev)->cmd_sg_cnt);
}
static DEVICE_ATTR_RO(cmd_sg_entries);

static ssize_t allow_ext_sg_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  dev_to_target(dev)->allow_ext_sg ? "true" : "false");
}
static DEVICE_ATTR_RO(allow_ext_sg);

static struct attribute *srp_host_attrs[] = {
	&dev_attr_id_ext.attr,
	&dev_attr_ioc_guid.attr,
	&dev_attr_service_id.attr,
	&dev_attr_pkey.attr,
	&dev_attr_sgid.attr,
	&dev_attr_dgid.attr,
	&dev_attr_orig_dgid.attr,
	&dev_attr_req_lim.attr,
	&dev_attr_zero_req_lim.attr,
	&dev_attr_local_ib_port.attr,
	&dev_attr_local_ib_device.attr,
	&dev_attr_ch_count.attr,
	&dev_attr_comp_vector.attr,
	&dev_attr_tl_retry_count.attr,
	&dev_attr_cmd_sg_entries.attr,
	&dev_attr_allow_ext_sg.attr,
	NULL
};
ATTRIBUTE_GROUPS(srp_host);

static struct scsi_host_template srp_template = {
	.module			= THIS_MODULE,
	.name			= "InfiniBand SRP initiator",
	.proc_name		= "ib_srp",
	.target_alloc		= srp_target_alloc,
	.slave_configure	= srp_slave_configure,
	.info			= srp_target_info,
	.init_cmd_priv		= srp_init_cmd_priv,
	.exit_cmd_priv		= srp_exit_cmd_priv,
	.queuecommand		= srp_queuecommand,
	.change_queue_depth	= srp_change_queue_depth,
	.eh_timed_out		= srp_timed_out,
	.eh_abort_handler	= srp_abort,
	.eh_device_reset_handler = srp_reset_device,
	.eh_host_reset_handler	= srp_reset_host,
	.skip_settle_delay	= true,
	.sg_tablesize		= SRP_DEF_SG_TABLESIZE,
	.can_queue		= SRP_DEFAULT_CMD_SQ_SIZE,
	.this_id		= -1,
	.cmd_per_lun		= SRP_DEFAULT_CMD_SQ_SIZE,
	.shost_groups		= srp_host_groups,
	.track_queue_depth	= 1,
	.cmd_size		= sizeof(struct srp_request),
};

/* Transport class callbacks */

static void srp_tl_err_work(struct work_struct *work)
{
	struct srp_target_port *target =
		container_of(work, struct srp_target_port, tl_err_work);

	if (target->rport)
		srp_start_tl_fail_timers(target->rport);
}

static int srp_rport_reconnect(struct srp_rport *rport)
{
	struct srp_target_port *target = rport->lld_data;
	unsigned int i, j;
	int ret = 0;

	srp_disconnect_target(target);

	if (target->state == SRP_TARGET_SCANNING)
		return -ENODEV;

	/*
	 * The target will not answer the commands of the old channels.  An
	 * abort in progress holds its command, and the command's MRs, until
	 * its task management function is over: wait for it, so that every
	 * MR is back before the old QPs go.
	 */
	mutex_lock(&target->tsk_mgmt_mutex);
	srp_finish_all(target, NULL, DID_RESET << 16);

	for (i = 0; i < target->ch_count; i++) {
		struct srp_rdma_ch *ch = &target->ch[i];

		ret = srp_create_ch_ib(ch);
		if (ret)
			break;
		INIT_LIST_HEAD(&ch->free_tx);
		for (j = 0; ch->tx_ring && j < target->queue_size; j++)
			list_add(&ch->tx_ring[j]->list, &ch->free_tx);
	}
	target->qp_in_error = false;
	mutex_unlock(&target->tsk_mgmt_mutex);

	for (i = 0; i < target->ch_count && !ret; i++)
		ret = srp_connect_ch(&target->ch[i], target->max_iu_len, i > 0);

	if (ret)
		shost_printk(KERN_INFO, target->scsi_host,
			     "reconnect attempt failed (%d)\n", ret);
	else
		shost_printk(KERN_INFO, target->scsi_host,
			     "reconnect succeeded\n");
	return ret;
}

static void srp_terminate_io(struct srp_rport *rport)
{
	srp_finish_all(rport->lld_data, NULL, DID_TRANSPORT_FAILFAST << 16);
}

static void srp_rport_delete(struct srp_rport *rport)
{
	srp_queue_remove_work(rport->lld_data);
}

struct srp_function_template srp_transport_functions = {
	.has_rport_state	= true,
	.reset_timer_if_blocked	= true,
	.reconnect_delay	= &srp_reconnect_delay,
	.fast_io_fail_tmo	= &srp_fast_io_fail_tmo,
	.dev_loss_tmo		= &srp_dev_loss_tmo,
	.reconnect		= srp_rport_reconnect,
	.rport_delete		= srp_rport_delete,
	.terminate_rport_io	= srp_terminate_io,
};

/* Channels */

static void srp_free_channels(struct srp_target_port *target)
{
	unsigned int i;

	if (!target->ch)
		return;
	for (i = 0; i < target->ch_count; i++) {
		srp_free_ch_ib(target, &target->ch[i]);
		srp_free_iu_bufs(&target->ch[i]);
	}
	kfree(target->ch);
	target->ch = NULL;
}

static void srp_remove_work(struct work_struct *work)
{
	struct srp_target_port *target =
		container_of(work, struct srp_target_port, remove_work);
	struct srp_host *host = target->srp_host;
	struct srp_rport *rport = target->rport;

	WARN_ON_ONCE(target->state != SRP_TARGET_REMOVED);

	/* let an add_target that is still scanning this target finish */
	mutex_lock(&host->add_target_mutex);
	mutex_unlock(&host->add_target_mutex);

	srp_rport_get(rport);
	srp_remove_host(target->scsi_host);
	scsi_remove_host(target->scsi_host);
	srp_stop_rport_timers(rport);
	srp_disconnect_target(target);
	/* nothing is outstanding any more; this drains the QPs */
	srp_free_channels(target);
	cancel_work_sync(&target->tl_err_work);
	srp_rport_put(rport);

	spin_lock_irq(&host->target_lock);
	list_del(&target->list);
	spin_unlock_irq(&host->target_lock);

	put_net(target->net);
	scsi_host_put(target->scsi_host);
}

/**
 * srp_queue_remove_work() - have a target taken apart, once
 * @target: the target
 */
void srp_queue_remove_work(struct srp_target_port *target)
{
	struct srp_host *host = target->srp_host;
	bool queue = false;

	spin_lock_irq(&host->target_lock);
	if (target->state != SRP_TARGET_REMOVED) {
		target->state = SRP_TARGET_REMOVED;
		queue = true;
	}
	spin_unlock_irq(&host->target_lock);

	if (queue)
		queue_work(srp_remove_wq, &target->remove_work);
}

/* Whether no other live login of @host has the I_T nexus of @target. */
static bool srp_conn_unique(struct srp_host *host,
			    struct srp_target_port *target)
{
	struct srp_target_port *t;
	bool ret = true;

	spin_lock_irq(&host->target_lock);
	list_for_each_entry(t, &host->target_list, list) {
		if (t != target && t->state != SRP_TARGET_REMOVED &&
		    t->id_ext == target->id_ext &&
		    t->ioc_guid == target->ioc_guid &&
		    t->initiator_ext == target->initiator_ext) {
			ret = false;
			break;
		}
	}
	spin_unlock_irq(&host->target_lock);
	return ret;
}

/* Sizes of queues, descriptor tables and MR pools, from the options. */
static int srp_size_target(struct srp_target_port *target)
{
	struct srp_device *dev = target->srp_host->srp_dev;
	struct Scsi_Host *shost = target->scsi_host;
	unsigned int sectors_per_page, pages, max_wr;

	if (!dev->use_fast_reg && !target->allow_ext_sg &&
	    target->cmd_sg_cnt < target->sg_tablesize) {
		pr_warn_ratelimited("No MR pool and no external indirect descriptors, limiting sg_tablesize to cmd_sg_cnt\n");
		target->sg_tablesize = target->cmd_sg_cnt;
	}

	shost->max_sectors = target->max_sectors;
	shost->sg_tablesize = target->sg_tablesize;
	target->mr_per_cmd = 0;
	if (dev->use_fast_reg) {
		sectors_per_page = dev->mr_page_size >> SECTOR_SHIFT;
		/*
		 * One page more than the data for a buffer that is not page
		 * aligned, and one MR more for the page two MRs may share.
		 */
		pages = DIV_ROUND_UP(shost->max_sectors, sectors_per_page) + 1;
		target->mr_per_cmd = DIV_ROUND_UP(pages, dev->max_pages_per_mr) + 1;
		if (target->mr_per_cmd > target->cmd_sg_cnt) {
			target->mr_per_cmd = max(target->cmd_sg_cnt, 2U);
			shost->max_sectors = ((target->mr_per_cmd - 1) *
					      dev->max_pages_per_mr - 1) *
					     sectors_per_page;
		}
		/* and one for the descriptor table itself */
		if (target->allow_ext_sg && !target->global_rkey)
			target->mr_per_cmd++;
		shost->virt_boundary_mask = ~dev->mr_page_mask;
	}

	/* every command may need a SEND, a REG_MR and a LOCAL_INV per MR */
	max_wr = dev->dev->attrs.max_qp_wr / (1 + 2 * target->mr_per_cmd);
	if (target->can_queue + SRP_RSP_SQ_SIZE + SRP_TSK_MGMT_SQ_SIZE > max_wr) {
		if (max_wr <= SRP_RSP_SQ_SIZE + SRP_TSK_MGMT_SQ_SIZE)
			return -EINVAL;
		target->can_queue = max_wr - SRP_RSP_SQ_SIZE -
				    SRP_TSK_MGMT_SQ_SIZE;
		pr_warn_ratelimited("%s: queue_size limited to %u\n",
				    dev_name(&dev->dev->dev), target->can_queue);
	}
	target->queue_size = target->can_queue + SRP_RSP_SQ_SIZE +
			     SRP_TSK_MGMT_SQ_SIZE;
	shost->can_queue = target->can_queue;
	shost->cmd_per_lun = min(target->cmd_per_lun, target->can_queue);
	target->mr_pool_size = target->can_queue * target->mr_per_cmd;
	target->indirect_size = max(target->sg_tablesize, target->mr_per_cmd) *
				sizeof(struct srp_direct_buf);
	target->max_iu_len = srp_max_it_iu_len(target);
	if (target->max_iu_len < sizeof(struct srp_cmd) + SRP_MAX_ADD_CDB_LEN +
	    sizeof(struct srp_indirect_buf) +
	    target->cmd_sg_cnt * sizeof(struct srp_direct_buf)) {
		pr_warn_ratelimited("max_it_iu_size=%u is too small for cmd_sg_entries=%u\n",
				    target->max_it_iu_size, target->cmd_sg_cnt);
		return -EINVAL;
	}
	return 0;
}

static unsigned int srp_default_ch_count(struct srp_target_port *target)
{
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	unsigned int n;

	if (target->ch_count)
		return target->ch_count;
	n = srp_ch_count ?: min_t(unsigned int, 4 * num_online_nodes(),
				  ibdev->num_comp_vectors);
	return clamp_t(unsigned int, min_t(unsigned int, n, num_online_cpus()),
		       1, SRP_MAX_CH_COUNT);
}

/* Make and log in every channel of @target. */
static int srp_connect_target(struct srp_target_port *target)
{
	struct ib_device *ibdev = target->srp_host->srp_dev->dev;
	unsigned int i;
	int ret;

	target->ch_count = srp_default_ch_count(target);
	target->ch = kcalloc(target->ch_count, sizeof(*target->ch),
			     GFP_KERNEL);
	if (!target->ch)
		return -ENOMEM;

	for (i = 0; i < target->ch_count; i++) {
		struct srp_rdma_ch *ch = &target->ch[i];

		ch->target = target;
		spin_lock_init(&ch->lock);
		INIT_LIST_HEAD(&ch->free_tx);
		init_completion(&ch->done);
		init_completion(&ch->tsk_mgmt_done);
		ch->comp_vector = (target->comp_vector + i) %
				  max(ibdev->num_comp_vectors, 1);
	}

	for (i = 0; i < target->ch_count; i++) {
		struct srp_rdma_ch *ch = &target->ch[i];

		ret = srp_create_ch_ib(ch);
		if (ret)
			return ret;
		ret = srp_connect_ch(ch, target->max_iu_len, i > 0);
		if (ret) {
			if (i == 0)
				return ret;
			/* fewer channels than asked for will do */
			shost_printk(KERN_INFO, target->scsi_host,
				     "using %u of %u channels: login failed (%d)\n",
				     i, target->ch_count, ret);
			srp_free_ch_ib(target, ch);
			srp_free_iu_bufs(ch);
			target->ch_count = i;
			break;
		}
	}
	return 0;
}

/* Add the SCSI host, its remote port and scan it. */
static int srp_add_scsi_host(struct srp_host *host,
			     struct srp_target_port *target)
{
	struct srp_rport_identifiers ids = {};
	struct srp_rport *rport;
	unsigned int i;
	bool connected = true;
	int ret;

	sprintf(target->target_name, "SRP.T10:%016llX",
		be64_to_cpu(target->id_ext));

	ret = scsi_add_host(target->scsi_host, host->srp_dev->dev->dev.parent);
	if (ret)
		return ret;

	memcpy(ids.port_id, &target->id_ext, 8);
	memcpy(ids.port_id + 8, &target->ioc_guid, 8);
	ids.roles = SRP_RPORT_ROLE_TARGET;
	rport = srp_rport_add(target->scsi_host, &ids);
	if (IS_ERR(rport)) {
		scsi_remove_host(target->scsi_host);
		return PTR_ERR(rport);
	}
	rport->lld_data = target;
	target->rport = rport;

	spin_lock_irq(&host->target_lock);
	list_add_tail(&target->list, &host->target_list);
	spin_unlock_irq(&host->target_lock);

	if (target->using_rdma_cm)
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "new target: id_ext %016llx ioc_guid %016llx dest %pISpc\n",
			     be64_to_cpu(target->id_ext),
			     be64_to_cpu(target->ioc_guid),
			     &target->rdma_dst);
	else
		shost_printk(KERN_DEBUG, target->scsi_host,
			     "new target: id_ext %016llx ioc_guid %016llx sgid %pI6 dgid %pI6 pkey %04x service_id %016llx\n",
			     be64_to_cpu(target->id_ext),
			     be64_to_cpu(target->ioc_guid),
			     target->sgid.raw, target->orig_dgid.raw,
			     target->pkey,
			     be64_to_cpu(target->service_id));

	scsi_scan_target(&target->scsi_host->shost_gendev, 0, 0,
			 SCAN_WILD_CARD, SCSI_SCAN_INITIAL);

	for (i = 0; i < target->ch_count; i++)
		connected &= target->ch[i].connected;
	if (!connected || target->qp_in_error) {
		shost_printk(KERN_INFO, target->scsi_host,
			     "SCSI scan failed - removing SCSI host\n");
		srp_queue_remove_work(target);
		return 0;
	}

	spin_lock_irq(&host->target_lock);
	if (target->state == SRP_TARGET_SCANNING)
		target->state = SRP_TARGET_LIVE;
	spin_unlock_irq(&host->target_lock);
	return 0;
}

/**
 * srp_add_target() - log in to a target (a write to add_target)
 * @host: the port to log in through
 * @buf: the option string
 *
 * Return: 0 when the SCSI host is there, -EINVAL for bad options,
 * -EEXIST for a second login with the same identifiers, or the error of
 * the path lookup, the login or the SCSI midlayer.
 */
int srp_add_target(struct srp_host *host, const char *buf)
{
	struct srp_device *srp_dev = host->srp_dev;
	struct srp_target_port *target;
	struct Scsi_Host *shost;
	int ret;

	shost = scsi_host_alloc(&srp_template, sizeof(*target));
	if (!shost)
		return -ENOMEM;

	shost->transportt = srp_transport_template;
	shost->max_channel = 0;
	shost->max_id = 1;
	shost->max_lun = -1LL;
	shost->max_cmd_len = sizeof(((struct srp_cmd *)NULL)->cdb) +
			     SRP_MAX_ADD_CDB_LEN;

	target = host_to_target(shost);
	target->scsi_host = shost;
	target->srp_host = host;
	target->io_class = SRP_REV16A_IB_IO_CLASS;
	target->global_rkey = srp_dev->global_rkey;
	target->cmd_sg_cnt = srp_cmd_sg_entries;
	target->sg_tablesize = srp_indirect_sg_entries ?: srp_cmd_sg_entries;
	target->allow_ext_sg = srp_allow_ext_sg;
	target->tl_retry_count = 7;
	target->can_queue = SRP_DEFAULT_CMD_SQ_SIZE;
	target->cmd_per_lun = SRP_DEFAULT_CMD_SQ_SIZE;
	target->max_sectors = 1024;
	target->state = SRP_TARGET_SCANNING;
	target->rq_tmo_jiffies = 30 * HZ;
	atomic_set(&target->bad_iu_count, 0);
	target->net = get_net(current->nsproxy->net_ns);
	mutex_init(&target->tsk_mgmt_mutex);
	INIT_LIST_HEAD(&target->list);
	INIT_WORK(&target->tl_err_work, srp_tl_err_work);
	INIT_WORK(&target->remove_work, srp_remove_work);

	if (mutex_lock_interruptible(&host->add_target_mutex)) {
		ret = -EINTR;
		goto put;
	}

	ret = srp_parse_options(target->net, buf, target);
	if (ret)
		goto unlock;

	ret = srp_size_target(target);
	if (ret)
		goto unlock;

	if (!srp_conn_unique(host, target)) {
		shost_printk(KERN_INFO, shost,
			     "Already connected to target port with id_ext=%016llx;ioc_guid=%016llx;initiator_ext=%016llx\n",
			     be64_to_cpu(target->id_ext),
			     be64_to_cpu(target->ioc_guid),
			     be64_to_cpu(target->initiator_ext));
		ret = -EEXIST;
		goto unlock;
	}

	ret = rdma_query_gid(srp_dev->dev, host->port, 0, &target->sgid);
	if (ret)
		goto unlock;

	ret = srp_connect_target(target);
	if (ret)
		goto disconnect;
	shost->nr_hw_queues = target->ch_count;

	ret = srp_add_scsi_host(host, target);
	if (ret)
		goto disconnect;

	mutex_unlock(&host->add_target_mutex);
	return 0;

disconnect:
	srp_disconnect_target(target);
	srp_free_channels(target);
unlock:
	mutex_unlock(&host->add_target_mutex);
put:
	put_net(target->net);
	scsi_host_put(shost);
	return ret;
}
