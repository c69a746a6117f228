// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: the LIO fabric "srpt" and its configfs tree.
 *
 * /sys/kernel/config/target/srpt/<port>: a WWN per HCA port, named by
 * the port's GID ("0x" and 32 hex digits, what rtslib and targetcli use)
 * or GUID ("xxxx:xxxx:xxxx:xxxx"); tpgt_N below it with the attributes
 * srp_max_rdma_size, srp_max_rsp_size, srp_sq_size and use_srq, and the
 * ACLs of initiator port IDs (or, for the GUID form, addresses);
 * discovery_auth/rdma_cm_port moves the RDMA CM listener.  Enabling a
 * TPG lets its port take logins, disabling it disconnects the port's
 * channels.  The WWN slot of a port is set and cleared under the port's
 * mutex (logins look at it under that mutex); a WWN holds a reference to
 * the device, so it may outlive the device's removal.  Every value
 * written is parsed and range-checked before it is used.
 */
#include <linux/configfs.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt.h"

static struct srpt_port_id *srpt_wwn_to_port_id(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_port_id, wwn);
}

static struct srpt_port *srpt_tpg_to_sport(struct se_portal_group *tpg)
{
	return tpg->se_tpg_wwn->priv;
}

static char *srpt_get_fabric_wwn(struct se_portal_group *tpg)
{
	return srpt_wwn_to_port_id(tpg->se_tpg_wwn)->name;
}

static u16 srpt_get_tag(struct se_portal_group *tpg)
{
	return 1;
}

static int srpt_check_false(struct se_portal_group *tpg)
{
	return 0;
}

static int srpt_check_true(struct se_portal_group *tpg)
{
	return 1;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *tpg)
{
	return 1;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

/* A GUID written as four groups of four hex digits. */
static int srpt_parse_guid(u64 *guid, const char *name)
{
	u16 w[4];
	int n;

	if (sscanf(name, "%hx:%hx:%hx:%hx%n", &w[0], &w[1], &w[2], &w[3],
		   &n) != 4 || name[n])
		return -EINVAL;
	*guid = (u64)w[0] << 48 | (u64)w[1] << 32 | (u64)w[2] << 16 | w[3];
	return 0;
}

/* Up to 32 hex digits, with or without "0x", an even number of them. */
static int srpt_parse_port_id(u8 id[16], const char *name)
{
	size_t len;

	if (!strncasecmp(name, "0x", 2))
		name += 2;
	len = strlen(name);
	if (!len || len % 2 || len > 32)
		return -EINVAL;
	memset(id, 0, 16 - len / 2);
	return hex2bin(id + 16 - len / 2, name, len / 2);
}

static int srpt_init_nodeacl(struct se_node_acl *nacl, const char *name)
{
	struct sockaddr_storage sa;
	u8 id[16];
	u64 guid;

	if (!srpt_parse_guid(&guid, name) || !srpt_parse_port_id(id, name) ||
	    !inet_pton_with_scope(&init_net, AF_UNSPEC, name, NULL, &sa))
		return 0;
	pr_err("ACL name %s is no initiator port ID\n", name);
	return -EINVAL;
}

static ssize_t srpt_tpg_attrib_store(struct config_item *item,
				     const char *page, size_t count,
				     unsigned long min, unsigned long max,
				     u32 *dst)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));
	unsigned long val;
	int ret;

	ret = kstrtoul(page, 0, &val);
	if (ret)
		return ret;
	if (val < min || val > max)
		return -EINVAL;
	mutex_lock(&sport->mutex);
	*dst = val;	/* channels logged in keep what they got */
	mutex_unlock(&sport->mutex);
	return count;
}

static ssize_t srpt_tpg_attrib_srp_max_rdma_size_show(struct config_item *item,
						      char *page)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));

	return sysfs_emit(page, "%u\n", sport->port_attrib.srp_max_rdma_size);
}

static ssize_t srpt_tpg_attrib_srp_max_rdma_size_store(struct config_item *item,
						       const char *page,
						       size_t count)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));

	return srpt_tpg_attrib_store(item, page, count, 1, SRPT_MAX_RDMA_SIZE,
				     &sport->port_attrib.srp_max_rdma_size);
}

static ssize_t srpt_tpg_attrib_srp_max_rsp_size_show(struct config_item *item,
						     char *page)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));

	return sysfs_emit(page, "%u\n", sport->port_attrib.srp_max_rsp_size);
}

static ssize_t srpt_tpg_attrib_srp_max_rsp_size_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));

	return srpt_tpg_attrib_store(item, page, count, SRPT_MIN_MAX_RSP_SIZE,
				     SRPT_MAX_RSP_SIZE,
				     &sport->port_attrib.srp_max_rsp_size);
}

static ssize_t srpt_tpg_attrib_srp_sq_size_show(struct config_item *item,
						char *page)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));

	return sysfs_emit(page, "%u\n", sport->port_attrib.srp_sq_size);
}

static ssize_t srpt_tpg_attrib_srp_sq_size_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));

	return srpt_tpg_attrib_store(item, page, count, SRPT_MIN_SQ_SIZE,
				     SRPT_MAX_SRQ_SIZE,
				     &sport->port_attrib.srp_sq_size);
}

static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));

	return sysfs_emit(page, "%d\n", sport->port_attrib.use_srq);
}

static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct srpt_port *sport = srpt_tpg_to_sport(attrib_to_tpg(item));
	bool val;
	int ret;

	ret = kstrtobool(page, &val);
	if (ret)
		return ret;
	/* The SRQ is made when the device is added (module parameter). */
	return val == sport->port_attrib.use_srq ? count : -EBUSY;
}

CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rdma_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rsp_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_sq_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};

static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", srpt_rdma_cm_get_port());
}

static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	u16 port;
	int ret;

	ret = kstrtou16(page, 0, &port);
	if (ret)
		return ret;
	ret = srpt_rdma_cm_set_port(port);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_, rdma_cm_port);

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_attr_rdma_cm_port,
	NULL,
};

static ssize_t srpt_wwn_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "\n");
}

CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

static int srpt_enable_tpg(struct se_portal_group *tpg, bool enable)
{
	struct srpt_port *sport = srpt_tpg_to_sport(tpg);

	mutex_lock(&sport->mutex);
	srpt_set_enabled(sport, enable);
	mutex_unlock(&sport->mutex);
	return 0;
}

static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_port_id *port_id = srpt_wwn_to_port_id(wwn);
	struct srpt_tpg *stpg;
	int ret;

	stpg = kzalloc(sizeof(*stpg), GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->port_id = port_id;
	ret = core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}
	mutex_lock(&port_id->mutex);
	list_add_tail(&stpg->entry, &port_id->tpg_list);
	mutex_unlock(&port_id->mutex);
	return &stpg->tpg;
}

static void srpt_drop_tpg(struct se_portal_group *tpg)
{
	struct srpt_tpg *stpg = container_of(tpg, struct srpt_tpg, tpg);
	struct srpt_port_id *port_id = stpg->port_id;
	struct srpt_port *sport = srpt_tpg_to_sport(tpg);

	mutex_lock(&sport->mutex);
	srpt_set_enabled(sport, false);
	mutex_unlock(&sport->mutex);
	mutex_lock(&port_id->mutex);
	list_del(&stpg->entry);
	mutex_unlock(&port_id->mutex);
	core_tpg_deregister(tpg);
	kfree(stpg);
}

static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_port_id **slot, *port_id;
	struct srpt_port *sport;
	int ret;

	sport = srpt_lookup_port(name, &slot);
	if (!sport)
		return ERR_PTR(-EINVAL);
	port_id = kzalloc(sizeof(*port_id), GFP_KERNEL);
	if (!port_id) {
		ret = -ENOMEM;
		goto err_put;
	}
	mutex_init(&port_id->mutex);
	INIT_LIST_HEAD(&port_id->tpg_list);
	port_id->wwn.priv = sport;
	strscpy(port_id->name, name, sizeof(port_id->name));

	mutex_lock(&sport->mutex);
	if (*slot) {
		mutex_unlock(&sport->mutex);
		ret = -EEXIST;
		goto err_free;
	}
	*slot = port_id;
	mutex_unlock(&sport->mutex);
	return &port_id->wwn;

err_free:
	kfree(port_id);
err_put:
	srpt_sdev_put(sport->sdev);
	return ERR_PTR(ret);
}

static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_port_id *port_id = srpt_wwn_to_port_id(wwn);
	struct srpt_port *sport = wwn->priv;

	mutex_lock(&sport->mutex);
	if (sport->guid_id == port_id)
		sport->guid_id = NULL;
	else if (sport->gid_id == port_id)
		sport->gid_id = NULL;
	mutex_unlock(&sport->mutex);
	srpt_sdev_put(sport->sdev);
	kfree(port_id);
}

const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,
	.release_cmd			= srpt_release_cmd,
	.check_stop_free		= srpt_check_stop_free,
	.close_session			= srpt_close_session,
	.sess_get_index			= srpt_sess_get_index,
	.write_pending			= srpt_write_pending,
	.set_default_node_attributes	= srpt_set_default_node_attrs,
	.get_cmd_state			= srpt_get_tcm_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.fabric_make_tpg		= srpt_make_tpg,
	.fabric_enable_tpg		= srpt_enable_tpg,
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_da_attrs,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
};
