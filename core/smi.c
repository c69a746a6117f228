// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Directed-route SMPs: the hop pointer and path rules of IBA 14.2.2.2
 * (compliance statements C14-6 to C14-13), as pure functions.
 *
 * A directed-route SMP carries a hop count (hop_cnt, at most 63), a hop
 * pointer (hop_ptr), the egress port of every hop of the request
 * (initial_path[1..hop_cnt]) and, filled in on the way, the ingress port
 * of every hop (return_path[1..hop_cnt]).  The direction bit D (status bit
 * 15) is 0 for the request and 1 for the response.  Every node applies the
 * "receive" rules when an SMP arrives on a port and the "send" rules when
 * it sends one out of a port; the end node of the directed part hands it
 * to its SMA (request) or SM (response).
 *
 * Nothing here trusts the SMP: every index into the paths is bounded by
 * the hop count check first, and an SMP whose pointer is not one the
 * rules allow is discarded.
 */
#include <linux/export.h>

#include "smi.h"

static bool smi_dir_response(const struct ib_smp *smp)
{
	return (smp->status & IB_SMP_DIRECTION) == IB_SMP_DIRECTION;
}

/**
 * smi_handle_dr_smp_send - apply the send rules to an outgoing SMP
 * @smp: the directed-route SMP; its hop pointer is updated
 * @is_switch: the sending node is a switch
 * @port_num: the port the SMP is about to leave by
 *
 * Return: IB_SMI_HANDLE if the SMP may be sent (or, at the end of its
 * path, handed to the local SMA/SM), IB_SMI_DISCARD otherwise.
 */
enum smi_action smi_handle_dr_smp_send(struct ib_smp *smp, bool is_switch,
				       u32 port_num)
{
	u8 cnt = smp->hop_cnt;

	/* C14-6: at most 63 hops */
	if (cnt >= IB_SMP_MAX_PATH_HOPS)
		return IB_SMI_DISCARD;

	if (!smi_dir_response(smp)) {
		/* C14-9:1: the originator starts the walk at hop 1 */
		if (cnt && smp->hop_ptr == 0) {
			smp->hop_ptr = 1;
			return smp->initial_path[1] == port_num ?
			       IB_SMI_HANDLE : IB_SMI_DISCARD;
		}
		/* C14-9:2: only a switch passes a request on */
		if (smp->hop_ptr && smp->hop_ptr < cnt) {
			if (!is_switch)
				return IB_SMI_DISCARD;
			smp->hop_ptr++;
			return smp->initial_path[smp->hop_ptr] == port_num ?
			       IB_SMI_HANDLE : IB_SMI_DISCARD;
		}
		/* C14-9:3: the directed part ends here */
		if (smp->hop_ptr == cnt) {
			smp->hop_ptr++;
			return is_switch || smp->dr_dlid == IB_LID_PERMISSIVE ?
			       IB_SMI_HANDLE : IB_SMI_DISCARD;
		}
		/* C14-9:4 and C14-9:5 */
		return smp->hop_ptr == cnt + 1 ?
		       IB_SMI_HANDLE : IB_SMI_DISCARD;
	}

	/* C14-13:1: the responder turns the SMP around */
	if (cnt && smp->hop_ptr == cnt + 1) {
		smp->hop_ptr--;
		return smp->return_path[smp->hop_ptr] == port_num ?
		       IB_SMI_HANDLE : IB_SMI_DISCARD;
	}
	/* C14-13:2: only a switch passes a response on */
	if (smp->hop_ptr >= 2 && smp->hop_ptr <= cnt) {
		if (!is_switch)
			return IB_SMI_DISCARD;
		smp->hop_ptr--;
		return smp->return_path[smp->hop_ptr] == port_num ?
		       IB_SMI_HANDLE : IB_SMI_DISCARD;
	}
	/* C14-13:3: the directed part ends at the requester */
	if (smp->hop_ptr == 1) {
		smp->hop_ptr = 0;
		return is_switch || smp->dr_slid == IB_LID_PERMISSIVE ?
		       IB_SMI_HANDLE : IB_SMI_DISCARD;
	}
	/* C14-13:4 and C14-13:5 */
	return smp->hop_ptr == 0 ? IB_SMI_HANDLE : IB_SMI_DISCARD;
}
EXPORT_SYMBOL_GPL(smi_handle_dr_smp_send);

/**
 * smi_handle_dr_smp_recv - apply the receive rules to an arriving SMP
 * @smp: the directed-route SMP; the return path (request) or the hop
 *	pointer (response reaching the requester) is updated
 * @is_switch: the receiving node is a switch
 * @port_num: the port the SMP came in on
 * @phys_port_cnt: number of ports of the node
 *
 * Return: IB_SMI_HANDLE if the SMP is acceptable here, IB_SMI_DISCARD
 * otherwise.
 */
enum smi_action smi_handle_dr_smp_recv(struct ib_smp *smp, bool is_switch,
				       u32 port_num, int phys_port_cnt)
{
	u8 cnt = smp->hop_cnt;

	if (cnt >= IB_SMP_MAX_PATH_HOPS)
		return IB_SMI_DISCARD;

	if (!smi_dir_response(smp)) {
		/* C14-9:1: the sender should have moved the pointer */
		if (cnt && smp->hop_ptr == 0)
			return IB_SMI_DISCARD;
		/* C14-9:2: a hop in the middle: a switch records the way in */
		if (smp->hop_ptr && smp->hop_ptr < cnt) {
			if (!is_switch)
				return IB_SMI_DISCARD;
			smp->return_path[smp->hop_ptr] = port_num;
			return smp->initial_path[smp->hop_ptr + 1] <=
			       phys_port_cnt ? IB_SMI_HANDLE : IB_SMI_DISCARD;
		}
		/* C14-9:3: last hop of the directed part */
		if (smp->hop_ptr == cnt) {
			if (cnt)
				smp->return_path[smp->hop_ptr] = port_num;
			return is_switch || smp->dr_dlid == IB_LID_PERMISSIVE ?
			       IB_SMI_HANDLE : IB_SMI_DISCARD;
		}
		/* C14-9:4 and C14-9:5 */
		return smp->hop_ptr == cnt + 1 ?
		       IB_SMI_HANDLE : IB_SMI_DISCARD;
	}

	/* C14-13:1 */
	if (cnt && smp->hop_ptr == cnt + 1) {
		smp->hop_ptr--;
		return smp->return_path[smp->hop_ptr] == port_num ?
		       IB_SMI_HANDLE : IB_SMI_DISCARD;
	}
	/* C14-13:2: a hop in the middle of the way back */
	if (smp->hop_ptr >= 2 && smp->hop_ptr <= cnt) {
		if (!is_switch)
			return IB_SMI_DISCARD;
		return smp->return_path[smp->hop_ptr - 1] <= phys_port_cnt ?
		       IB_SMI_HANDLE : IB_SMI_DISCARD;
	}
	/* C14-13:3: back at the requester's end of the directed part */
	if (smp->hop_ptr == 1) {
		if (smp->dr_slid == IB_LID_PERMISSIVE) {
			smp->hop_ptr = 0;
			return IB_SMI_HANDLE;
		}
		return is_switch ? IB_SMI_HANDLE : IB_SMI_DISCARD;
	}
	/* C14-13:4 and C14-13:5 */
	return smp->hop_ptr == 0 ? IB_SMI_HANDLE : IB_SMI_DISCARD;
}
EXPORT_SYMBOL_GPL(smi_handle_dr_smp_recv);

/**
 * smi_check_forward_dr_smp - where a received SMP goes after the receive
 *	rules accepted it
 * @smp: the SMP
 *
 * Return: IB_SMI_FORWARD for a hop in the middle (switches), IB_SMI_SEND
 * at the end of the directed part when the send rules must still move the
 * pointer (or a LID-routed part follows), IB_SMI_LOCAL otherwise.
 */
enum smi_forward_action smi_check_forward_dr_smp(const struct ib_smp *smp)
{
	u8 cnt = smp->hop_cnt;

	if (!smi_dir_response(smp)) {
		if (smp->hop_ptr && smp->hop_ptr < cnt)
			return IB_SMI_FORWARD;
		if (smp->hop_ptr == cnt)
			return smp->dr_dlid == IB_LID_PERMISSIVE ?
			       IB_SMI_SEND : IB_SMI_LOCAL;
		if (smp->hop_ptr == cnt + 1)
			return IB_SMI_SEND;
		return IB_SMI_LOCAL;
	}
	if (smp->hop_ptr >= 2 && smp->hop_ptr <= cnt)
		return IB_SMI_FORWARD;
	if (smp->hop_ptr == 1)
		return smp->dr_slid == IB_LID_PERMISSIVE ?
		       IB_SMI_LOCAL : IB_SMI_SEND;
	return IB_SMI_LOCAL;
}
EXPORT_SYMBOL_GPL(smi_check_forward_dr_smp);

/**
 * smi_get_fwd_port - the egress port of a switch forwarding an SMP
 * @smp: an SMP smi_check_forward_dr_smp() said IB_SMI_FORWARD for
 *
 * Return: the port number from the initial path (request) or the return
 * path (response), or -1 if the hop pointer does not index a path entry.
 */
int smi_get_fwd_port(const struct ib_smp *smp)
{
	if (smp->hop_cnt >= IB_SMP_MAX_PATH_HOPS)
		return -1;
	if (!smi_dir_response(smp)) {
		if (smp->hop_ptr + 1 >= IB_SMP_MAX_PATH_HOPS)
			return -1;
		return smp->initial_path[smp->hop_ptr + 1];
	}
	if (smp->hop_ptr < 1 || smp->hop_ptr > IB_SMP_MAX_PATH_HOPS)
		return -1;
	return smp->return_path[smp->hop_ptr - 1];
}
EXPORT_SYMBOL_GPL(smi_get_fwd_port);

/**
 * smi_is_local_request - whether a request has reached its target node
 * @smp: the SMP after the send or receive rules
 *
 * Return: true if it is for the local SMA (C14-9:4).
 */
bool smi_is_local_request(const struct ib_smp *smp)
{
	return !smi_dir_response(smp) && smp->hop_cnt < IB_SMP_MAX_PATH_HOPS &&
	       smp->hop_ptr == smp->hop_cnt + 1;
}
EXPORT_SYMBOL_GPL(smi_is_local_request);

/**
 * smi_is_local_response - whether a response is back at the requester
 * @smp: the SMP after the send or receive rules
 *
 * Return: true if it is for the local SM (C14-13:4).
 */
bool smi_is_local_response(const struct ib_smp *smp)
{
	return smi_dir_response(smp) && smp->hop_cnt < IB_SMP_MAX_PATH_HOPS &&
	       smp->hop_ptr == 0;
}
EXPORT_SYMBOL_GPL(smi_is_local_response);

/**
 * smi_ca_outgoing - the send rules at a channel adapter
 * @smp: an SMP a local user posts on QP0; its hop pointer is updated
 * @port_num: the port it is posted on
 *
 * The rules apply while the directed part starts at this node, that is
 * when DrSLID (request) or DrDLID (response) is the permissive LID;
 * otherwise a LID-routed part comes first and the SMP is left alone.
 * Afterwards smi_is_local_request() or smi_is_local_response() tell
 * whether it stays in this node (hop count 0) instead of going on the wire.
 *
 * Return: IB_SMI_HANDLE or IB_SMI_DISCARD.
 */
enum smi_action smi_ca_outgoing(struct ib_smp *smp, u32 port_num)
{
	__be16 lid = smi_dir_response(smp) ? smp->dr_dlid : smp->dr_slid;

	if (smp->hop_cnt >= IB_SMP_MAX_PATH_HOPS)
		return IB_SMI_DISCARD;
	if (lid != IB_LID_PERMISSIVE)
		return IB_SMI_HANDLE;
	return smi_handle_dr_smp_send(smp, false, port_num);
}
EXPORT_SYMBOL_GPL(smi_ca_outgoing);

/**
 * smi_ca_incoming - the receive rules at a channel adapter
 * @smp: an SMP received on QP0; its paths and hop pointer are updated
 * @port_num: the port it came in on
 * @phys_port_cnt: number of ports of the CA
 *
 * A CA never forwards: a request must end its directed part here and is
 * then moved on to hop_cnt + 1 for the local SMA; a response must be back
 * at hop pointer 0 for the local SM.
 *
 * Return: IB_SMI_HANDLE to process it locally, IB_SMI_DISCARD to drop it.
 */
enum smi_action smi_ca_incoming(struct ib_smp *smp, u32 port_num,
				int phys_port_cnt)
{
	if (smi_handle_dr_smp_recv(smp, false, port_num, phys_port_cnt) ==
	    IB_SMI_DISCARD)
		return IB_SMI_DISCARD;

	if (smi_check_forward_dr_smp(smp) == IB_SMI_SEND &&
	    smi_handle_dr_smp_send(smp, false, port_num) == IB_SMI_DISCARD)
		return IB_SMI_DISCARD;

	if (smi_is_local_request(smp) || smi_is_local_response(smp))
		return IB_SMI_HANDLE;
	return IB_SMI_DISCARD;
}
EXPORT_SYMBOL_GPL(smi_ca_incoming);
