// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx PortInfo: what the SMA of the HCA ports (vmlx_sma.c) and the
 * switch's (vmlx_switch_sma.c) share about a port as a subnet manager
 * sees it.  PortInfo (IBA 14.2.5.6) between the wire and struct vmlx_pi,
 * with the fields every vmlx port has in common; the logical port state
 * machine of a SubnSet; the rules a Set of the link fields, the LIDs and
 * the states must follow, checked as a whole before anything changes;
 * the M_Key check (IBA 14.2.4) of an SMP against a port's or the
 * switch's M_Key.  Also the small parts of an answer both SMAs give
 * alike: the response header, the status of a Get-only attribute, the
 * NodeInfo fields that are not GUIDs.
 *
 * Locking: none here.  Everything works on values and buffers it is
 * given; the callers hold the lock of what those come from (port->lock
 * of an HCA port, the switch's lock) and apply the results under it.
 */
#include <linux/export.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "vmlx.h"
#include "vmlx_sma.h"

/* Byte 60 on: CapabilityMask2 and the extended speeds, past ib_port_info */
#define VMLX_PI_OFF_CAP_MASK2	60
#define VMLX_PI_OFF_SPEED_EXT	62
#define VMLX_PI_OFF_SPEED_EXT_EN 63

static_assert(sizeof(struct ib_smp) == 256);
static_assert(sizeof(struct ib_port_info) <= IB_SMP_DATA_SIZE);
static_assert(sizeof(struct ib_node_info) <= IB_SMP_DATA_SIZE);

/**
 * vmlx_link_init() - the link settings of a port that comes out of reset
 * @link: what to fill in
 *
 * Everything enabled that is supported, NeighborMTU = MTUCap and
 * OperationalVLs = VLCap, so that a subnet manager computes the values it
 * finds and has no reason to bounce the link.
 */
void vmlx_link_init(struct vmlx_link *link)
{
	memset(link, 0, sizeof(*link));
	link->width_enabled = VMLX_PI_WIDTH_SUPPORTED;
	link->speed_enabled = VMLX_PI_SPEED_SUPPORTED;
	link->speed_ext_enabled = VMLX_PI_SPEED_EXT_SUPPORTED;
	link->down_default = IB_PORT_PHYS_STATE_POLLING;
	link->neighbor_mtu = VMLX_PI_MTU_CAP;
	link->op_vls = VMLX_PI_VL_CAP;
}

/**
 * vmlx_port_state_next() - the logical port state machine of a SubnSet
 * @cur: the port's state
 * @req: PortInfo:PortState of the Set
 * @next: where the state the port goes to is stored
 *
 * 0 (no change) is always valid; DOWN is valid from any state and makes
 * the link retrain; ARMED is valid from INIT, ACTIVE from ARMED, and a
 * state to itself is accepted as no change (IBA 14.2.5.6 table 149;
 * opensm relies on nothing else).  INIT and everything else are invalid.
 *
 * Return: 0, or -EINVAL for a transition the port does not make.
 */
int vmlx_port_state_next(enum ib_port_state cur, u8 req,
			 enum ib_port_state *next)
{
	*next = cur;
	switch (req) {
	case IB_PORT_NOP:
		return 0;
	case IB_PORT_DOWN:
		*next = IB_PORT_DOWN;
		return 0;
	case IB_PORT_ARMED:
		if (cur != IB_PORT_INIT && cur != IB_PORT_ARMED)
			return -EINVAL;
		*next = IB_PORT_ARMED;
		return 0;
	case IB_PORT_ACTIVE:
		if (cur != IB_PORT_ARMED && cur != IB_PORT_ACTIVE)
			return -EINVAL;
		*next = IB_PORT_ACTIVE;
		return 0;
	default:
		return -EINVAL;
	}
}

/* An "enabled" field: 0 keeps, @all means everything supported. */
static int vmlx_enabled_field(u8 req, u8 all, u8 supported, u8 *cur)
{
	if (!req)
		return 0;
	if (req == all) {
		*cur = supported;
		return 0;
	}
	if (req & ~supported)
		return -EINVAL;
	*cur = req;
	return 0;
}

/**
 * vmlx_link_set() - the link fields of a PortInfo Set
 * @req: the Set, decoded
 * @link: the port's link settings; updated only on success
 *
 * LinkWidthEnabled (0 keeps, 255 = supported, else a subset of the
 * supported widths), LinkSpeedEnabled (0 keeps, 15 = supported, else a
 * subset), LinkSpeedExtEnabled (0 keeps, 31 = supported, 30 = none, else
 * a subset), LinkDownDefaultState (0 keeps, 1 sleep, 2 polling),
 * NeighborMTU (0 keeps, else 256..MTUCap), OperationalVLs (0 keeps, else
 * 1..VLCap), and the fields that take any value: VLHighLimit,
 * VLStallCount/HOQLife, the enforcement bits, the error thresholds.  A
 * violation counter written as 0 is reset.
 *
 * Return: 0, or -EINVAL if a field is out of range (nothing changes).
 */
int vmlx_link_set(const struct vmlx_pi *req, struct vmlx_link *link)
{
	const struct vmlx_link *r = &req->link;
	struct vmlx_link n = *link;

	if (vmlx_enabled_field(r->width_enabled, 0xff,
			       VMLX_PI_WIDTH_SUPPORTED, &n.width_enabled) ||
	    vmlx_enabled_field(r->speed_enabled, 0x0f,
			       VMLX_PI_SPEED_SUPPORTED, &n.speed_enabled))
		return -EINVAL;
	if (r->speed_ext_enabled == 30)
		n.speed_ext_enabled = 0;
	else if (vmlx_enabled_field(r->speed_ext_enabled, 31,
				    VMLX_PI_SPEED_EXT_SUPPORTED,
				    &n.speed_ext_enabled))
		return -EINVAL;
	if (r->down_default > IB_PORT_PHYS_STATE_POLLING)
		return -EINVAL;
	if (r->down_default)
		n.down_default = r->down_default;
	if (r->neighbor_mtu > VMLX_PI_MTU_CAP)
		return -EINVAL;
	if (r->neighbor_mtu)
		n.neighbor_mtu = r->neighbor_mtu;
	if (r->op_vls > VMLX_PI_VL_CAP)
		return -EINVAL;
	if (r->op_vls)
		n.op_vls = r->op_vls;
	n.vl_high_limit = r->vl_high_limit;
	n.vlstall_hoq = r->vlstall_hoq;
	n.enforce = r->enforce;
	n.err_thresholds = r->err_thresholds;
	if (!r->mkey_violations)
		n.mkey_violations = 0;
	if (!r->pkey_violations)
		n.pkey_violations = 0;
	if (!r->qkey_violations)
		n.qkey_violations = 0;
	*link = n;
	return 0;
}

/**
 * vmlx_pi_encode() - PortInfo on the wire (IBA 14.2.5.6)
 * @pi: the port's variable fields
 * @data: 64 bytes to fill in
 *
 * The fields every vmlx port has in common (supported and active widths
 * and speeds, VLCap, MTUCap, VL arbitration caps, RespTimeValue) come from
 * the VMLX_PI_* constants; ClientReregister always reads 0.
 */
VISIBLE_IF_KUNIT void vmlx_pi_encode(const struct vmlx_pi *pi, u8 *data)
{
	struct ib_port_info *w = (struct ib_port_info *)data;
	const struct vmlx_link *l = &pi->link;

	memset(data, 0, IB_SMP_DATA_SIZE);
	w->mkey = cpu_to_be64(pi->mkey);
	w->gid_prefix = cpu_to_be64(pi->gid_prefix);
	w->lid = cpu_to_be16(pi->lid);
	w->sm_lid = cpu_to_be16(pi->sm_lid);
	w->cap_mask = cpu_to_be32(pi->cap_mask);
	w->mkey_lease_period = cpu_to_be16(pi->mkey_lease);
	w->local_port_num = pi->local_port;
	w->link_width_enabled = l->width_enabled;
	w->link_width_supported = VMLX_PI_WIDTH_SUPPORTED;
	w->link_width_active = VMLX_PI_WIDTH_ACTIVE;
	w->linkspeed_portstate = VMLX_PI_SPEED_SUPPORTED << 4 |
				 (pi->state & 0xf);
	w->portphysstate_linkdown = pi->phys_state << 4 |
				    (l->down_default & 0xf);
	w->mkeyprot_resv_lmc = pi->mkey_protect << 6 | (pi->lmc & 7);
	w->linkspeedactive_enabled = VMLX_PI_SPEED_ACTIVE << 4 |
				     (l->speed_enabled & 0xf);
	w->neighbormtu_mastersmsl = l->neighbor_mtu << 4 | (pi->sm_sl & 0xf);
	w->vlcap_inittype = VMLX_PI_VL_CAP << 4;
	w->vl_high_limit = l->vl_high_limit;
	w->vl_arb_high_cap = VMLX_PI_VL_ARB_CAP;
	w->vl_arb_low_cap = VMLX_PI_VL_ARB_CAP;
	w->inittypereply_mtucap = VMLX_PI_MTU_CAP;
	w->vlstallcnt_hoqlife = l->vlstall_hoq;
	w->operationalvl_pei_peo_fpi_fpo = l->op_vls << 4 | (l->enforce & 0xf);
	w->mkey_violations = cpu_to_be16(l->mkey_violations);
	w->pkey_violations = cpu_to_be16(l->pkey_violations);
	w->qkey_violations = cpu_to_be16(l->qkey_violations);
	w->guid_cap = pi->guid_cap;
	w->clientrereg_resv_subnetto = (pi->mcast_trap_supp & 3) << 5 |
				       (pi->subnet_timeout & 0x1f);
	w->resv_resptimevalue = VMLX_PI_RESP_TIME;
	w->localphyerrors_overrunerrors = l->err_thresholds;
	data[VMLX_PI_OFF_SPEED_EXT] = VMLX_PI_SPEED_EXT_ACTIVE << 4 |
				      VMLX_PI_SPEED_EXT_SUPPORTED;
	data[VMLX_PI_OFF_SPEED_EXT_EN] = l->speed_ext_enabled & 0x1f;
}
EXPORT_SYMBOL_IF_KUNIT(vmlx_pi_encode);

/**
 * vmlx_pi_decode() - the fields of a PortInfo from the wire
 * @data: 64 bytes of PortInfo
 * @pi: where to store them
 */
void vmlx_pi_decode(const u8 *data, struct vmlx_pi *pi)
{
	const struct ib_port_info *w = (const struct ib_port_info *)data;
	struct vmlx_link *l = &pi->link;

	memset(pi, 0, sizeof(*pi));
	pi->mkey = be64_to_cpu(w->mkey);
	pi->gid_prefix = be64_to_cpu(w->gid_prefix);
	pi->lid = be16_to_cpu(w->lid);
	pi->sm_lid = be16_to_cpu(w->sm_lid);
	pi->cap_mask = be32_to_cpu(w->cap_mask);
	pi->mkey_lease = be16_to_cpu(w->mkey_lease_period);
	pi->local_port = w->local_port_num;
	pi->state = w->linkspeed_portstate & 0xf;
	pi->phys_state = w->portphysstate_linkdown >> 4;
	pi->mkey_protect = w->mkeyprot_resv_lmc >> 6;
	pi->lmc = w->mkeyprot_resv_lmc & 7;
	pi->sm_sl = w->neighbormtu_mastersmsl & 0xf;
	pi->client_rereg = w->clientrereg_resv_subnetto & 0x80;
	pi->mcast_trap_supp = (w->clientrereg_resv_subnetto >> 5) & 3;
	pi->subnet_timeout = w->clientrereg_resv_subnetto & 0x1f;
	pi->guid_cap = w->guid_cap;
	l->width_enabled = w->link_width_enabled;
	l->speed_enabled = w->linkspeedactive_enabled & 0xf;
	l->speed_ext_enabled = data[VMLX_PI_OFF_SPEED_EXT_EN] & 0x1f;
	l->down_default = w->portphysstate_linkdown & 0xf;
	l->neighbor_mtu = w->neighbormtu_mastersmsl >> 4;
	l->op_vls = w->operationalvl_pei_peo_fpi_fpo >> 4;
	l->vl_high_limit = w->vl_high_limit;
	l->vlstall_hoq = w->vlstallcnt_hoqlife;
	l->enforce = w->operationalvl_pei_peo_fpi_fpo & 0xf;
	l->err_thresholds = w->localphyerrors_overrunerrors;
	l->mkey_violations = be16_to_cpu(w->mkey_violations);
	l->pkey_violations = be16_to_cpu(w->pkey_violations);
	l->qkey_violations = be16_to_cpu(w->qkey_violations);
}

/**
 * vmlx_smp_reply() - turn a request SMP into its response
 * @smp: the SMP, a copy of the request with the response data in place
 * @status: the MAD status
 *
 * Method GetResp (for a Set too), @status, and for a directed-route SMP
 * the direction bit; hop pointer, count and paths are left to whoever
 * sends the response.
 *
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY.
 */
int vmlx_smp_reply(struct ib_smp *smp, u16 status)
{
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status);
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		smp->status |= IB_SMP_DIRECTION;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/**
 * vmlx_pi_reply() - answer a PortInfo Get or Set
 * @smp: the SMP to answer in
 * @pi: the PortInfo to answer with; its M_Key is cleared if @hide_mkey
 * @hide_mkey: the M_Key check passed only with the M_Key hidden
 * @status: the MAD status
 *
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY.
 */
int vmlx_pi_reply(struct ib_smp *smp, struct vmlx_pi *pi, bool hide_mkey,
		  u16 status)
{
	if (hide_mkey)
		pi->mkey = 0;
	vmlx_pi_encode(pi, smp->data);
	return vmlx_smp_reply(smp, status);
}

/**
 * vmlx_smp_get_only_status() - the status of an SMP for a Get-only attribute
 * @smp: the SMP
 *
 * For NodeInfo and NodeDescription: only SubnGet, attribute modifier 0.
 *
 * Return: 0 if the SMP may be answered, else the MAD status to answer with.
 */
u16 vmlx_smp_get_only_status(const struct ib_smp *smp)
{
	if (smp->method != IB_MGMT_METHOD_GET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	if (smp->attr_mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	return 0;
}

/**
 * vmlx_node_info_fill() - the NodeInfo fields that are not GUIDs
 * @ni: the NodeInfo, zeroed
 * @node_type: RDMA_NODE_IB_CA or RDMA_NODE_IB_SWITCH
 * @num_ports: NumPorts
 * @partition_cap: PartitionCap
 * @device_id: DeviceID
 * @local_port: LocalPortNum, the port the SMP came in on
 *
 * BaseVersion, ClassVersion and VendorID are those of every vmlx node;
 * the GUIDs are for the caller to fill in.
 */
void vmlx_node_info_fill(struct ib_node_info *ni, u8 node_type, u8 num_ports,
			 u16 partition_cap, u16 device_id, u8 local_port)
{
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = 1;
	ni->node_type = node_type;
	ni->num_ports = num_ports;
	ni->partition_cap = cpu_to_be16(partition_cap);
	ni->device_id = cpu_to_be16(device_id);
	ni->local_port_num = local_port;
	ni->vendor_id[0] = (VMLX_VENDOR_ID >> 16) & 0xff;
	ni->vendor_id[1] = (VMLX_VENDOR_ID >> 8) & 0xff;
	ni->vendor_id[2] = VMLX_VENDOR_ID & 0xff;
}

/**
 * vmlx_smp_mkey_ok() - the M_Key check of an SMP (IBA 14.2.4)
 * @mkey: the node's or port's M_Key
 * @mkey_protect: its M_KeyProtectBits
 * @smp: the SMP
 * @hide: set if the SMP passes only with the M_Key hidden in the answer
 *
 * Passes when there is no M_Key or the SMP carries it; with a mismatch a
 * Get still passes with protection bits 0, and with 1 it passes with the
 * M_Key hidden.
 *
 * Return: true if the SMP is to be answered, false for an M_Key violation.
 */
bool vmlx_smp_mkey_ok(u64 mkey, u8 mkey_protect, const struct ib_smp *smp,
		      bool *hide)
{
	*hide = false;
	if (!mkey || be64_to_cpu(smp->mkey) == mkey)
		return true;
	if (smp->method != IB_MGMT_METHOD_GET || mkey_protect > 1)
		return false;
	*hide = mkey_protect == 1;
	return true;
}

/* A unicast LID, or the one there is (LID 0 may stay 0). */
static bool vmlx_lid_ok(u16 lid, u16 cur)
{
	return lid == cur || (lid && lid <= VMLX_LID_UCAST_MAX);
}

/**
 * vmlx_pi_lids_ok() - the LID and MasterSMLID of a PortInfo Set
 * @req: the Set, decoded
 * @lid: the LID there is
 * @sm_lid: the MasterSMLID there is
 *
 * Each is valid if it is unchanged or a unicast LID.
 *
 * Return: true if both are valid.
 */
bool vmlx_pi_lids_ok(const struct vmlx_pi *req, u16 lid, u16 sm_lid)
{
	return vmlx_lid_ok(req->lid, lid) && vmlx_lid_ok(req->sm_lid, sm_lid);
}

/**
 * vmlx_pi_port_set() - the state and link fields of a PortInfo Set
 * @req: the Set, decoded
 * @cur: the port's logical state
 * @next: where the state the port goes to is stored
 * @link: the port's link settings; updated only on success
 *
 * PortState by vmlx_port_state_next(), PortPhysicalState (0 keeps, else
 * POLLING or DISABLED) and the link fields by vmlx_link_set().  What the
 * port does about a new physical state is for the caller.
 *
 * Return: 0, or -EINVAL if a field is invalid (nothing changes).
 */
int vmlx_pi_port_set(const struct vmlx_pi *req, enum ib_port_state cur,
		     enum ib_port_state *next, struct vmlx_link *link)
{
	if (vmlx_port_state_next(cur, req->state, next) ||
	    (req->phys_state &&
	     req->phys_state != IB_PORT_PHYS_STATE_POLLING &&
	     req->phys_state != IB_PORT_PHYS_STATE_DISABLED))
		return -EINVAL;
	return vmlx_link_set(req, link);
}
