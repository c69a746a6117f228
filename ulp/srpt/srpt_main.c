// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the module, its parameters, its ib_client and the per-device
 * and per-port state.
 *
 * srpt_add_one() allocates a struct srpt_device with its PD, starts the
 * IB CM listener on the service ID and the device management agent of
 * every port; srpt_remove_one() stops both, disconnects every channel
 * and waits for them to be gone before the device is let go.  The
 * device list and the WWN slots of the ports are protected by
 * srpt_dev_lock; the RDMA CM listener (one for all devices, on
 * rdma_cm_port) by srpt_rdma_cm_mutex.  Port events schedule a refresh
 * of the port's GID and of its agent.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/net_namespace.h>
#include <target/target_core_fabric.h>

#include "srpt.h"

MODULE_AUTHOR("ibstack");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver");
MODULE_LICENSE("GPL");

DEFINE_SPINLOCK(srpt_dev_lock);	/* srpt_dev_list, device, guid_id, gid_id */
static LIST_HEAD(srpt_dev_list);

unsigned int srp_max_req_size = SRPT_DEF_MAX_REQ_SIZE;
module_param(srp_max_req_size, uint, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Maximum size of SRP request messages in bytes.");

static int srpt_srq_size = SRPT_DEF_SRQ_SIZE;
module_param(srpt_srq_size, int, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Shared receive queue (SRQ) size.");

static unsigned int srpt_sq_size = SRPT_DEF_SQ_SIZE;
module_param(srpt_sq_size, uint, 0444);
MODULE_PARM_DESC(srpt_sq_size,
		 "Initial srp_sq_size of the ports: send queue size of a channel.");

static unsigned int srp_max_rsp_size = SRPT_DEF_MAX_RSP_SIZE;
module_param(srp_max_rsp_size, uint, 0444);
MODULE_PARM_DESC(srp_max_rsp_size,
		 "Initial srp_max_rsp_size of the ports: largest SRP_RSP in bytes.");

static bool use_srq;
module_param(use_srq, bool, 0444);
MODULE_PARM_DESC(use_srq,
		 "Channels share one receive queue of srpt_srq_size buffers per HCA.");

u64 srpt_service_guid;

static int srpt_set_u64_x(const char *buf, const struct kernel_param *kp)
{
	return kstrtou64(buf, 16, (u64 *)kp->arg);
}

static int srpt_get_u64_x(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "0x%016llx\n", *(u64 *)kp->arg);
}

module_param_call(srpt_service_guid, srpt_set_u64_x, srpt_get_u64_x,
		  &srpt_service_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "ioc_guid, id_ext and IB CM service ID (default: node GUID of the first HCA).");

static DEFINE_MUTEX(srpt_rdma_cm_mutex); /* srpt_rdma_cm_id, rdma_cm_port */
static struct rdma_cm_id *srpt_rdma_cm_id;
static unsigned short rdma_cm_port;
module_param(rdma_cm_port, ushort, 0444);
MODULE_PARM_DESC(rdma_cm_port,
		 "Port the RDMA CM listens on for logins (0: no RDMA CM).");

static struct rdma_cm_id *srpt_rdma_cm_listen(struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	ret = rdma_bind_addr(id, addr);
	if (ret)
		goto err;
	ret = rdma_listen(id, 128);
	if (ret)
		goto err;
	return id;
err:
	rdma_destroy_id(id);
	return ERR_PTR(ret);
}

/**
 * srpt_rdma_cm_set_port() - listen for RDMA CM logins on another port
 * @port: TCP port space number, 0 to stop listening
 *
 * Return: 0 or a negative errno; the old listener stays on error.
 */
int srpt_rdma_cm_set_port(u16 port)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL;
	int ret = 0;

	mutex_lock(&srpt_rdma_cm_mutex);
	if (port == rdma_cm_port && (!port || srpt_rdma_cm_id))
		goto out;
	if (port) {
		sin6.sin6_port = cpu_to_be16(port);
		id = srpt_rdma_cm_listen((struct sockaddr *)&sin6);
		if (IS_ERR(id)) {
			sin.sin_port = cpu_to_be16(port);
			id = srpt_rdma_cm_listen((struct sockaddr *)&sin);
		}
		if (IS_ERR(id)) {
			ret = PTR_ERR(id);
			pr_err("RDMA CM listen on port %u failed: %d\n", port,
			       ret);
			goto out;
		}
	}
	swap(id, srpt_rdma_cm_id);
	rdma_cm_port = port;
out:
	mutex_unlock(&srpt_rdma_cm_mutex);
	if (!IS_ERR_OR_NULL(id))
		rdma_destroy_id(id);
	return ret;
}

/**
 * srpt_rdma_cm_get_port() - the port RDMA CM logins are taken on
 *
 * Return: the port, 0 if none.
 */
u16 srpt_rdma_cm_get_port(void)
{
	u16 port;

	mutex_lock(&srpt_rdma_cm_mutex);
	port = srpt_rdma_cm_id ? rdma_cm_port : 0;
	mutex_unlock(&srpt_rdma_cm_mutex);
	return port;
}

static void srpt_free_sdev(struct kref *kref)
{
	kfree(container_of(kref, struct srpt_device, refcnt));
}

/**
 * srpt_sdev_put() - drop a reference to a device
 * @sdev: the device
 */
void srpt_sdev_put(struct srpt_device *sdev)
{
	kref_put(&sdev->refcnt, srpt_free_sdev);
}

/**
 * srpt_get_sdev() - the device state of an ib_device, if still served
 * @device: the ib_device
 *
 * Return: the device with a reference for the caller, or NULL.
 */
struct srpt_device *srpt_get_sdev(struct ib_device *device)
{
	struct srpt_device *sdev;

	spin_lock(&srpt_dev_lock);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (sdev->device == device) {
			kref_get(&sdev->refcnt);
			spin_unlock(&srpt_dev_lock);
			return sdev;
		}
	}
	spin_unlock(&srpt_dev_lock);
	return NULL;
}

/**
 * srpt_lookup_port() - the port a WWN name names
 * @name: the configfs directory name
 * @slot: set to the port's guid_id or gid_id, whichever form @name is in
 *
 * Return: the port, with a reference to its device, or NULL.
 */
struct srpt_port *srpt_lookup_port(const char *name,
				   struct srpt_port_id ***slot)
{
	struct srpt_device *sdev;
	u32 i;

	spin_lock(&srpt_dev_lock);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (!sdev->device)
			continue;
		for (i = 0; i < sdev->port_cnt; i++) {
			struct srpt_port *sport = &sdev->port[i];

			if (!strcmp(name, sport->guid_name))
				*slot = &sport->guid_id;
			else if (!strcasecmp(name, sport->gid_name))
				*slot = &sport->gid_id;
			else
				continue;
			kref_get(&sdev->refcnt);
			spin_unlock(&srpt_dev_lock);
			return sport;
		}
	}
	spin_unlock(&srpt_dev_lock);
	return NULL;
}

static int srpt_read_port_gid(struct srpt_port *sport)
{
	union ib_gid gid;
	u64 guid;
	int ret;

	ret = rdma_query_gid(sport->sdev->device, sport->port, 0, &gid);
	if (ret)
		return ret;
	guid = be64_to_cpu(gid.global.interface_id);
	spin_lock(&srpt_dev_lock);
	sport->gid = gid;
	/* The names of existing WWNs stay what they were created as. */
	snprintf(sport->guid_name, sizeof(sport->guid_name),
		 "%04x:%04x:%04x:%04x", (u16)(guid >> 48), (u16)(guid >> 32),
		 (u16)(guid >> 16), (u16)guid);
	snprintf(sport->gid_name, sizeof(sport->gid_name), "0x%016llx%016llx",
		 be64_to_cpu(gid.global.subnet_prefix), guid);
	spin_unlock(&srpt_dev_lock);
	return 0;
}

static void srpt_refresh_port_work(struct work_struct *work)
{
	struct srpt_port *sport = container_of(work, struct srpt_port,
					       refresh_work);

	if (srpt_read_port_gid(sport))
		return;
	mutex_lock(&sport->mutex);
	if (!sport->mad_agent && !sport->removed)
		srpt_dm_register(sport);
	mutex_unlock(&sport->mutex);
}

static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_device *sdev = container_of(handler, struct srpt_device,
						event_handler);
	u32 p = event->element.port_num;

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		if (p >= 1 && p <= sdev->port_cnt)
			schedule_work(&sdev->port[p - 1].refresh_work);
		break;
	default:
		break;
	}
}

static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device *sdev;
	u32 i;
	int ret;

	if (rdma_port_get_link_layer(device, rdma_start_port(device)) !=
	    IB_LINK_LAYER_INFINIBAND)
		return -EOPNOTSUPP;

	sdev = kzalloc(struct_size(sdev, port, device->phys_port_cnt),
		       GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	kref_init(&sdev->refcnt);
	sdev->device = device;
	sdev->port_cnt = device->phys_port_cnt;
	INIT_LIST_HEAD(&sdev->list);

	sdev->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(sdev->pd)) {
		ret = PTR_ERR(sdev->pd);
		goto err_free;
	}

	if (use_srq) {
		ret = srpt_alloc_srq(sdev, min_t(u32, srpt_srq_size,
						 device->attrs.max_srq_wr));
		if (ret)
			goto err_pd;
	}

	spin_lock(&srpt_dev_lock);
	if (!srpt_service_guid)
		srpt_service_guid = be64_to_cpu(device->node_guid);
	spin_unlock(&srpt_dev_lock);

	sdev->cm_id = ib_create_cm_id(device, srpt_ib_cm_handler, sdev);
	if (IS_ERR(sdev->cm_id)) {
		ret = PTR_ERR(sdev->cm_id);
		goto err_srq;
	}
	ret = ib_cm_listen(sdev->cm_id, cpu_to_be64(srpt_service_guid));
	if (ret) {
		pr_err("%s: IB CM listen on 0x%016llx failed: %d\n",
		       dev_name(&device->dev), srpt_service_guid, ret);
		goto err_cm;
	}

	for (i = 0; i < sdev->port_cnt; i++) {
		struct srpt_port *sport = &sdev->port[i];

		sport->sdev = sdev;
		sport->port = i + 1;
		mutex_init(&sport->mutex);
		INIT_LIST_HEAD(&sport->ch_list);
		init_waitqueue_head(&sport->ch_wq);
		INIT_WORK(&sport->refresh_work, srpt_refresh_port_work);
		sport->port_attrib.srp_max_rdma_size = SRPT_DEF_MAX_RDMA_SIZE;
		sport->port_attrib.srp_max_rsp_size = srp_max_rsp_size;
		sport->port_attrib.srp_sq_size = srpt_sq_size;
		sport->port_attrib.use_srq = !!sdev->srq;
		ret = srpt_read_port_gid(sport);
		if (ret)
			goto err_ports;
		mutex_lock(&sport->mutex);
		srpt_dm_register(sport);
		mutex_unlock(&sport->mutex);
	}

	INIT_IB_EVENT_HANDLER(&sdev->event_handler, device, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);

	spin_lock(&srpt_dev_lock);
	list_add_tail(&sdev->list, &srpt_dev_list);
	spin_unlock(&srpt_dev_lock);
	ib_set_client_data(device, &srpt_client, sdev);
	return 0;

err_ports:
	while (i--) {
		mutex_lock(&sdev->port[i].mutex);
		srpt_dm_unregister(&sdev->port[i]);
		mutex_unlock(&sdev->port[i].mutex);
	}
err_cm:
	ib_destroy_cm_id(sdev->cm_id);
err_srq:
	srpt_free_srq(sdev);
err_pd:
	ib_dealloc_pd(sdev->pd);
err_free:
	kfree(sdev);
	return ret;
}

static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_device *sdev = client_data;
	u32 i;

	ib_unregister_event_handler(&sdev->event_handler);
	/* No new IB CM logins; RDMA CM ones see the ports removed. */
	ib_destroy_cm_id(sdev->cm_id);
	for (i = 0; i < sdev->port_cnt; i++) {
		struct srpt_port *sport = &sdev->port[i];

		mutex_lock(&sport->mutex);
		sport->removed = true;
		mutex_unlock(&sport->mutex);
		cancel_work_sync(&sport->refresh_work);
		mutex_lock(&sport->mutex);
		srpt_dm_unregister(sport);
		mutex_unlock(&sport->mutex);
		srpt_close_all_ch(sport);
	}
	srpt_free_srq(sdev);
	ib_dealloc_pd(sdev->pd);

	spin_lock(&srpt_dev_lock);
	list_del(&sdev->list);
	sdev->device = NULL;
	spin_unlock(&srpt_dev_lock);
	srpt_sdev_put(sdev);
}

struct ib_client srpt_client = {
	.name = "srpt",
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

static int __init srpt_init_module(void)
{
	int ret;

	if (srp_max_req_size < SRPT_MIN_MAX_REQ_SIZE ||
	    srp_max_req_size > SRPT_MAX_REQ_SIZE) {
		pr_err("srp_max_req_size %u is not in [%u, %u]\n",
		       srp_max_req_size, SRPT_MIN_MAX_REQ_SIZE,
		       SRPT_MAX_REQ_SIZE);
		return -EINVAL;
	}
	if (srpt_srq_size < SRPT_MIN_SRQ_SIZE ||
	    srpt_srq_size > SRPT_MAX_SRQ_SIZE) {
		pr_err("srpt_srq_size %d is not in [%d, %d]\n", srpt_srq_size,
		       SRPT_MIN_SRQ_SIZE, SRPT_MAX_SRQ_SIZE);
		return -EINVAL;
	}
	if (srpt_sq_size < SRPT_MIN_SQ_SIZE ||
	    srpt_sq_size > SRPT_MAX_SRQ_SIZE) {
		pr_err("srpt_sq_size %u is not in [%d, %d]\n", srpt_sq_size,
		       SRPT_MIN_SQ_SIZE, SRPT_MAX_SRQ_SIZE);
		return -EINVAL;
	}
	if (srp_max_rsp_size < SRPT_MIN_MAX_RSP_SIZE ||
	    srp_max_rsp_size > SRPT_MAX_RSP_SIZE) {
		pr_err("srp_max_rsp_size %u is not in [%zu, %d]\n",
		       srp_max_rsp_size, SRPT_MIN_MAX_RSP_SIZE,
		       SRPT_MAX_RSP_SIZE);
		return -EINVAL;
	}
	ret = target_register_template(&srpt_template);
	if (ret)
		return ret;
	ret = ib_register_client(&srpt_client);
	if (ret)
		goto err_template;
	if (rdma_cm_port) {
		u16 port = rdma_cm_port;

		rdma_cm_port = 0;
		ret = srpt_rdma_cm_set_port(port);
		if (ret)
			goto err_client;
	}
	return 0;

err_client:
	ib_unregister_client(&srpt_client);
err_template:
	target_unregister_template(&srpt_template);
	return ret;
}

static void __exit srpt_cleanup_module(void)
{
	srpt_rdma_cm_set_port(0);
	ib_unregister_client(&srpt_client);
	target_unregister_template(&srpt_template);
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);
