// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Conversions between the CM's wire formats (cm_msgs.h) and the host
 * structures of its interface: paths in a REQ to and from a struct
 * sa_path_rec, the transport of a REQ, and the ACK timeout a connection
 * uses.  Pure functions: no state, no lock.
 */
#include <kunit/visibility.h>

#include "cm_priv.h"

/**
 * cm_ack_timeout - a QP's local ACK timeout for a path
 * @ca_ack_delay: the responder's ACK delay, 4.096 us * 2^value
 * @packet_life_time: the path's packet life time, same unit
 *
 * The time an ACK may take: the packet there and the ACK back (twice the
 * life time) plus the responder's delay.  Sums of powers of two are
 * rounded to the larger exponent, plus one when the two are close.
 *
 * Return: the exponent, at most 31.
 */
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time)
{
	u8 round_trip = min_t(u8, packet_life_time + 1, 31);
	u8 hi = max(round_trip, ca_ack_delay);
	u8 lo = min(round_trip, ca_ack_delay);

	return min_t(u8, hi + (hi - lo <= 1), 31);
}
EXPORT_SYMBOL_IF_KUNIT(cm_ack_timeout);

/**
 * cm_path_to_req - write a path into a REQ
 * @path: the path, from the requester's side (SLID and SGID are ours)
 * @wire: the REQ's primary or alternate path
 * @local_ack_timeout: the LocalACKTimeout to announce
 * @alternate: @wire is the alternate path (no other difference now)
 */
void cm_path_to_req(const struct sa_path_rec *path, struct cm_req_path *wire,
		    u8 local_ack_timeout, bool alternate)
{
	cm_set(wire, CM_PATH_LOCAL_LID, be16_to_cpu(path->slid));
	cm_set(wire, CM_PATH_REMOTE_LID, be16_to_cpu(path->dlid));
	wire->local_gid = path->sgid;
	wire->remote_gid = path->dgid;
	cm_set(wire, CM_PATH_FLOW_LABEL, be32_to_cpu(path->flow_label));
	cm_set(wire, CM_PATH_PACKET_RATE, path->rate);
	cm_set(wire, CM_PATH_TRAFFIC_CLASS, path->traffic_class);
	cm_set(wire, CM_PATH_HOP_LIMIT, path->hop_limit);
	cm_set(wire, CM_PATH_SL, path->sl);
	cm_set(wire, CM_PATH_SUBNET_LOCAL, path->hop_limit <= 1);
	cm_set(wire, CM_PATH_LOCAL_ACK_TIMEOUT, local_ack_timeout);
}
EXPORT_SYMBOL_IF_KUNIT(cm_path_to_req);

/**
 * cm_path_from_req - a path of a received REQ, from the responder's side
 * @wire: the REQ's primary or alternate path
 * @pkey: the REQ's P_Key
 * @mtu: the REQ's path MTU
 * @service_id: the REQ's service ID
 * @path: filled in: the requester is the destination; the packet life
 *	time is what the LocalACKTimeout leaves of it (one less)
 */
void cm_path_from_req(const struct cm_req_path *wire, __be16 pkey,
		      enum ib_mtu mtu, __be64 service_id,
		      struct sa_path_rec *path)
{
	u8 ack = cm_get(wire, CM_PATH_LOCAL_ACK_TIMEOUT);

	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_IB;
	path->dlid = cpu_to_be16(cm_get(wire, CM_PATH_LOCAL_LID));
	path->slid = cpu_to_be16(cm_get(wire, CM_PATH_REMOTE_LID));
	path->dgid = wire->local_gid;
	path->sgid = wire->remote_gid;
	path->flow_label = cpu_to_be32(cm_get(wire, CM_PATH_FLOW_LABEL));
	path->hop_limit = cm_get(wire, CM_PATH_HOP_LIMIT);
	path->traffic_class = cm_get(wire, CM_PATH_TRAFFIC_CLASS);
	path->reversible = 1;
	path->numb_path = 1;
	path->pkey = pkey;
	path->sl = cm_get(wire, CM_PATH_SL);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = mtu;
	path->rate_selector = IB_SA_EQ;
	path->rate = cm_get(wire, CM_PATH_PACKET_RATE);
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = ack ? ack - 1 : 0;
	path->service_id = service_id;
}
EXPORT_SYMBOL_IF_KUNIT(cm_path_from_req);

/**
 * cm_req_path_present - whether a REQ's alternate path is given
 * @wire: the alternate path
 *
 * Return: true if it names a port (a LID or a GID).
 */
bool cm_req_path_present(const struct cm_req_path *wire)
{
	return cm_get(wire, CM_PATH_LOCAL_LID) ||
	       memchr_inv(&wire->local_gid, 0, sizeof(wire->local_gid));
}

/**
 * cm_req_qp_type - the QP type a REQ asks for
 * @req: the REQ
 *
 * Return: IB_QPT_RC or IB_QPT_UC, or IB_QPT_MAX for a transport this CM
 * does not connect (RD, XRC, reserved values).
 */
enum ib_qp_type cm_req_qp_type(const struct cm_req_msg *req)
{
	switch (cm_get(req, CM_REQ_TRANSPORT_SERVICE_TYPE)) {
	case CM_TRANSPORT_RC:
		return IB_QPT_RC;
	case CM_TRANSPORT_UC:
		return IB_QPT_UC;
	default:
		return IB_QPT_MAX;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cm_req_qp_type);

static const char * const cm_rej_reasons[] = {
	[IB_CM_REJ_NO_QP]			= "no QP",
	[IB_CM_REJ_NO_EEC]			= "no EEC",
	[IB_CM_REJ_NO_RESOURCES]		= "no resources",
	[IB_CM_REJ_TIMEOUT]			= "timeout",
	[IB_CM_REJ_UNSUPPORTED]			= "unsupported request",
	[IB_CM_REJ_INVALID_COMM_ID]		= "invalid comm ID",
	[IB_CM_REJ_INVALID_COMM_INSTANCE]	= "invalid comm instance",
	[IB_CM_REJ_INVALID_SERVICE_ID]		= "invalid service ID",
	[IB_CM_REJ_INVALID_TRANSPORT_TYPE]	= "invalid transport type",
	[IB_CM_REJ_STALE_CONN]			= "stale conn",
	[IB_CM_REJ_RDC_NOT_EXIST]		= "RDC not exist",
	[IB_CM_REJ_INVALID_GID]			= "invalid GID",
	[IB_CM_REJ_INVALID_LID]			= "invalid LID",
	[IB_CM_REJ_INVALID_SL]			= "invalid SL",
	[IB_CM_REJ_INVALID_TRAFFIC_CLASS]	= "invalid traffic class",
	[IB_CM_REJ_INVALID_HOP_LIMIT]		= "invalid hop limit",
	[IB_CM_REJ_INVALID_PACKET_RATE]		= "invalid packet rate",
	[IB_CM_REJ_INVALID_ALT_GID]		= "invalid alt GID",
	[IB_CM_REJ_INVALID_ALT_LID]		= "invalid alt LID",
	[IB_CM_REJ_INVALID_ALT_SL]		= "invalid alt SL",
	[IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS]	= "invalid alt traffic class",
	[IB_CM_REJ_INVALID_ALT_HOP_LIMIT]	= "invalid alt hop limit",
	[IB_CM_REJ_INVALID_ALT_PACKET_RATE]	= "invalid alt packet rate",
	[IB_CM_REJ_PORT_CM_REDIRECT]		= "port CM redirect",
	[IB_CM_REJ_PORT_REDIRECT]		= "port redirect",
	[IB_CM_REJ_INVALID_MTU]			= "invalid MTU",
	[IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES]	= "insufficient resp resources",
	[IB_CM_REJ_CONSUMER_DEFINED]		= "consumer defined",
	[IB_CM_REJ_INVALID_RNR_RETRY]		= "invalid RNR retry",
	[IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID]	= "duplicate local comm ID",
	[IB_CM_REJ_INVALID_CLASS_VERSION]	= "invalid class version",
	[IB_CM_REJ_INVALID_FLOW_LABEL]		= "invalid flow label",
	[IB_CM_REJ_INVALID_ALT_FLOW_LABEL]	= "invalid alt flow label",
	[IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED]	= "vendor option not supported",
};

/**
 * ibcm_reject_msg - the name of a REJ reason, for messages
 * @reason: the Reason of a REJ
 *
 * Return: a constant string; "unrecognized reason" for values the IBA
 * does not define.
 */
const char *__attribute_const__ ibcm_reject_msg(int reason)
{
	if (reason >= 0 && reason < ARRAY_SIZE(cm_rej_reasons) &&
	    cm_rej_reasons[reason])
		return cm_rej_reasons[reason];
	return "unrecognized reason";
}
EXPORT_SYMBOL(ibcm_reject_msg);
