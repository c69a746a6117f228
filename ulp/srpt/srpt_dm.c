// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the device management agent of each port.
 *
 * While a port is served its CapabilityMask carries IsDeviceManagement
 * and a GSI agent of class 0x06 version 1 answers Get of ClassPortInfo,
 * IOUnitInfo (one I/O controller, in slot 1), IOControllerProfile and
 * ServiceEntries (one entry, "SRP.T10:<service GUID>"), which srp_daemon
 * and ibsrpdm turn into the target line of ib_srp's add_target.  Set and
 * other attributes are answered with a status, responses are dropped.
 * Answers are built in the MAD layer's receive handler (process context)
 * and sent through the same agent.  The agent and the capability bit are
 * changed under the port's mutex.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "srpt.h"

static void srpt_dm_iou_info(struct srpt_dm_mad *mad)
{
	struct srpt_iou_info *iou = (void *)mad->data;

	memset(iou, 0, sizeof(*iou));
	iou->change_id = cpu_to_be16(1);
	iou->max_controllers = 16;
	/* Slot 1 present (1), slots 2 to 16 not installed (0). */
	iou->controller_list[0] = 0x10;
}

static u16 srpt_dm_ioc_profile(struct srpt_port *sport, u32 slot,
			       struct srpt_dm_mad *mad)
{
	struct srpt_ioc_profile *iocp = (void *)mad->data;
	const struct ib_device_attr *attrs = &sport->sdev->device->attrs;

	if (!slot || slot > 16)
		return SRPT_DM_STATUS_INVALID_FIELD;
	if (slot > 2)
		return SRPT_DM_STATUS_NO_IOC;

	memset(iocp, 0, sizeof(*iocp));
	iocp->guid = cpu_to_be64(srpt_service_guid);
	iocp->vendor_id = cpu_to_be32(attrs->vendor_id);
	iocp->device_id = cpu_to_be32(attrs->vendor_part_id);
	iocp->device_version = cpu_to_be16(attrs->hw_ver);
	iocp->subsys_vendor_id = cpu_to_be32(attrs->vendor_id);
	iocp->io_class = cpu_to_be16(SRP_REV16A_IB_IO_CLASS);
	iocp->io_subclass = cpu_to_be16(SRPT_IO_SUBCLASS);
	iocp->protocol = cpu_to_be16(SRPT_PROTOCOL);
	iocp->protocol_version = cpu_to_be16(SRPT_PROTOCOL_VERSION);
	iocp->send_queue_depth = cpu_to_be16(sport->sdev->srq ?
					     sport->sdev->srq_size :
					     min_t(u32, SRPT_MAX_RQ_SIZE,
						   attrs->max_qp_wr));
	iocp->rdma_read_depth = SRPT_RDMA_READ_DEPTH;
	iocp->send_size = cpu_to_be32(srp_max_req_size);
	iocp->rdma_size = cpu_to_be32(min(sport->port_attrib.srp_max_rdma_size,
					  SRPT_MAX_RDMA_SIZE));
	iocp->op_cap_mask = SRPT_SEND_TO_IOC | SRPT_SEND_FROM_IOC |
			    SRPT_RDMA_READ_FROM_IOC | SRPT_RDMA_WRITE_FROM_IOC;
	iocp->num_svc_entries = 1;
	strscpy(iocp->id_string, SRPT_ID_STRING, sizeof(iocp->id_string));
	return 0;
}

static u16 srpt_dm_svc_entries(u32 attr_mod, struct srpt_dm_mad *mad)
{
	struct srpt_svc_entry *entry = (void *)mad->data;
	u16 slot = attr_mod >> 16;
	u8 hi = attr_mod >> 8;
	u8 lo = attr_mod;

	if (!slot || slot > 16)
		return SRPT_DM_STATUS_INVALID_FIELD;
	if (slot > 2 || lo > hi || hi > 1)
		return SRPT_DM_STATUS_NO_IOC;

	memset(mad->data, 0, sizeof(mad->data));
	entry->id = cpu_to_be64(srpt_service_guid);
	snprintf(entry->name, sizeof(entry->name), "%s%016llx",
		 SRPT_SERVICE_NAME_PREFIX, srpt_service_guid);
	return 0;
}

static u16 srpt_dm_get(struct srpt_port *sport, const struct ib_mad_hdr *req,
		       struct srpt_dm_mad *rsp)
{
	u32 attr_mod = be32_to_cpu(req->attr_mod);

	switch (be16_to_cpu(req->attr_id)) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO: {
		struct ib_class_port_info *cpi = (void *)rsp->data;

		memset(cpi, 0, sizeof(*cpi));
		cpi->base_version = 1;
		cpi->class_version = 1;
		ib_set_cpi_resp_time(cpi, 20);
		return 0;
	}
	case SRPT_DM_ATTR_IOU_INFO:
		srpt_dm_iou_info(rsp);
		return 0;
	case SRPT_DM_ATTR_IOC_PROFILE:
		return srpt_dm_ioc_profile(sport, attr_mod, rsp);
	case SRPT_DM_ATTR_SVC_ENTRIES:
		return srpt_dm_svc_entries(attr_mod, rsp);
	default:
		return SRPT_DM_STATUS_UNSUP_ATTR;
	}
}

static void srpt_dm_send_handler(struct ib_mad_agent *agent,
				 struct ib_mad_send_wc *send_wc)
{
	rdma_destroy_ah(send_wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(send_wc->send_buf);
}

static void srpt_dm_recv_handler(struct ib_mad_agent *agent,
				 struct ib_mad_send_buf *send_buf,
				 struct ib_mad_recv_wc *recv_wc)
{
	struct srpt_port *sport = agent->context;
	const struct ib_mad_hdr *req = &recv_wc->recv_buf.mad->mad_hdr;
	struct ib_mad_send_buf *rsp;
	struct srpt_dm_mad *dm;
	struct ib_ah *ah;
	u16 status;

	/* The agent takes Get and Set only; answers are never ours. */
	if (req->method & IB_MGMT_METHOD_RESP ||
	    req->class_version != IB_MGMT_BASE_VERSION)
		goto out;

	ah = ib_create_ah_from_wc(agent->qp->pd, recv_wc->wc,
				  recv_wc->recv_buf.grh, agent->port_num);
	if (IS_ERR(ah))
		goto out;
	rsp = ib_create_send_mad(agent, recv_wc->wc->src_qp,
				 recv_wc->wc->pkey_index, 0, IB_MGMT_DEVICE_HDR,
				 IB_MGMT_DEVICE_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp))
		goto err_ah;

	dm = rsp->mad;
	memcpy(dm, recv_wc->recv_buf.mad, sizeof(*dm));
	dm->hdr.method = IB_MGMT_METHOD_GET_RESP;
	switch (req->method) {
	case IB_MGMT_METHOD_GET:
		status = srpt_dm_get(sport, req, dm);
		break;
	case IB_MGMT_METHOD_SET:
		status = SRPT_DM_STATUS_UNSUP_ATTR;
		break;
	default:
		status = SRPT_DM_STATUS_UNSUP_METHOD;
		break;
	}
	dm->hdr.status = cpu_to_be16(status);

	rsp->ah = ah;
	if (ib_post_send_mad(rsp, NULL))
		goto err_mad;
	goto out;

err_mad:
	ib_free_send_mad(rsp);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out:
	ib_free_recv_mad(recv_wc);
}

static void srpt_dm_cap(struct srpt_port *sport, bool set)
{
	struct ib_port_modify pm = {};

	if (set)
		pm.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	else
		pm.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	if (ib_modify_port(sport->sdev->device, sport->port, 0, &pm))
		return;
	sport->dm_cap_set = set;
}

/**
 * srpt_dm_register() - serve device management on a port
 * @sport: the port; its mutex is held
 *
 * Failure is logged, not fatal: the target still takes logins from
 * initiators told its address by other means.
 *
 * Return: 0 or a negative errno.
 */
int srpt_dm_register(struct srpt_port *sport)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = IB_MGMT_BASE_VERSION,
	};
	struct ib_mad_agent *agent;

	lockdep_assert_held(&sport->mutex);
	if (sport->mad_agent)
		return 0;
	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	set_bit(IB_MGMT_METHOD_SET, req.method_mask);
	agent = ib_register_mad_agent(sport->sdev->device, sport->port,
				      IB_QPT_GSI, &req, 0, srpt_dm_send_handler,
				      srpt_dm_recv_handler, sport, 0);
	if (IS_ERR(agent)) {
		pr_warn("%s-%u: device management agent: %ld\n",
			dev_name(&sport->sdev->device->dev), sport->port,
			PTR_ERR(agent));
		return PTR_ERR(agent);
	}
	sport->mad_agent = agent;
	srpt_dm_cap(sport, true);
	return 0;
}

/**
 * srpt_dm_unregister() - stop device management on a port
 * @sport: the port; its mutex is held
 */
void srpt_dm_unregister(struct srpt_port *sport)
{
	lockdep_assert_held(&sport->mutex);
	if (sport->dm_cap_set)
		srpt_dm_cap(sport, false);
	if (sport->mad_agent) {
		ib_unregister_mad_agent(sport->mad_agent);
		sport->mad_agent = NULL;
	}
}
