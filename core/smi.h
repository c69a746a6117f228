/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Directed-route SMP rules (IBA 14.2.2.2, C14-6 to C14-13) as pure
 * functions of the SMP, the node kind and the port: smi.c.
 */
#ifndef IB_CORE_SMI_H
#define IB_CORE_SMI_H

#include <rdma/ib_smi.h>

/* What to do with a directed-route SMP at this step */
enum smi_action {
	IB_SMI_DISCARD,
	IB_SMI_HANDLE,
};

/* Where a received directed-route SMP goes next */
enum smi_forward_action {
	IB_SMI_LOCAL,	/* to the local SMA/SM (process_mad, agents) */
	IB_SMI_SEND,	/* end of the directed part: back through the send rules */
	IB_SMI_FORWARD,	/* on to the next hop (switches only) */
};

enum smi_action smi_handle_dr_smp_send(struct ib_smp *smp, bool is_switch,
				       u32 port_num);
enum smi_action smi_handle_dr_smp_recv(struct ib_smp *smp, bool is_switch,
				       u32 port_num, int phys_port_cnt);
enum smi_forward_action smi_check_forward_dr_smp(const struct ib_smp *smp);
int smi_get_fwd_port(const struct ib_smp *smp);
bool smi_is_local_request(const struct ib_smp *smp);
bool smi_is_local_response(const struct ib_smp *smp);
enum smi_action smi_ca_outgoing(struct ib_smp *smp, u32 port_num);
enum smi_action smi_ca_incoming(struct ib_smp *smp, u32 port_num,
				int phys_port_cnt);

#endif /* IB_CORE_SMI_H */
