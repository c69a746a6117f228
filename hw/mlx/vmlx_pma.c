// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx PMA: the performance management agents (class 0x04, IBA 16.1) of
 * the HCA ports, reached through process_mad (vmlx_pma()), and of the
 * emulated switch (vmlx_switch_pma.c): ClassPortInfo, PortCounters and
 * PortCountersExtended, read from the port counters the fabric keeps
 * (struct vmlx_port_counters); a Set clears the selected counters.  Both
 * agents share vmlx_pma_answer(); each names its ports' counters as a
 * struct vmlx_pma_set.
 *
 * The port counters only ever grow, and debugfs shows them as they are;
 * a PMA Set does not touch them but remembers, per counter, the value it
 * cleared to (vmlx_pma_set.base: vmlx_port.pma_base under port->lock,
 * vmlx_fport.pma_base under the switch's lock).  Data counters are
 * in 4-byte words of what lies between the start of the LRH and the end
 * of the ICRC, so the 2-byte VCRC of every packet is left out.  The
 * 32-bit and smaller counters of PortCounters stop at their maximum.
 */
#include <linux/string.h>
#include <rdma/ib_pma.h>

#include "vmlx.h"
#include "vmlx_sma.h"

#define VMLX_PMA_RESP_TIME	18

static_assert(sizeof(struct ib_pma_mad) == 256);

/* The counter as the port has counted it since it was created. */
static u64 vmlx_pma_raw(const struct vmlx_port_counters *cnt,
			enum vmlx_pma_counter c)
{
	u64 pkts, bytes, mcast;

	switch (c) {
	case VMLX_PMA_XMIT_DATA:
		/* packets first: the sender adds the bytes after them */
		pkts = atomic64_read(&cnt->xmit_packets);
		bytes = atomic64_read(&cnt->xmit_bytes);
		return (bytes - min(bytes, VMLX_VCRC_BYTES * pkts)) / 4;
	case VMLX_PMA_RCV_DATA:
		pkts = atomic64_read(&cnt->rcv_packets);
		bytes = atomic64_read(&cnt->rcv_bytes);
		return (bytes - min(bytes, VMLX_VCRC_BYTES * pkts)) / 4;
	case VMLX_PMA_XMIT_PKTS:
		return atomic64_read(&cnt->xmit_packets);
	case VMLX_PMA_RCV_PKTS:
		return atomic64_read(&cnt->rcv_packets);
	case VMLX_PMA_XMIT_MCAST:
		return atomic64_read(&cnt->xmit_mcast_packets);
	case VMLX_PMA_RCV_MCAST:
		return atomic64_read(&cnt->rcv_mcast_packets);
	case VMLX_PMA_XMIT_UCAST:
		mcast = atomic64_read(&cnt->xmit_mcast_packets);
		pkts = atomic64_read(&cnt->xmit_packets);
		return pkts - min(pkts, mcast);
	case VMLX_PMA_RCV_UCAST:
		mcast = atomic64_read(&cnt->rcv_mcast_packets);
		pkts = atomic64_read(&cnt->rcv_packets);
		return pkts - min(pkts, mcast);
	case VMLX_PMA_RCV_ERRORS:
		return atomic64_read(&cnt->rcv_errors);
	case VMLX_PMA_XMIT_DISCARDS:
		return atomic64_read(&cnt->xmit_discards);
	case VMLX_PMA_LINK_DOWNED:
		return atomic64_read(&cnt->link_downed);
	case VMLX_PMA_RELAY_ERRORS:
		return atomic64_read(&cnt->relay_errors);
	default:
		return 0;
	}
}

/**
 * vmlx_pma_read() - a counter as the PMA reports it
 * @set: the port's counters
 * @c: the counter
 *
 * Context: any; takes @set->lock.
 * Return: the counter since the last PMA Set that cleared it.
 */
static u64 vmlx_pma_read(const struct vmlx_pma_set *set,
			 enum vmlx_pma_counter c)
{
	unsigned long flags;
	u64 raw, base;

	spin_lock_irqsave(set->lock, flags);
	raw = vmlx_pma_raw(set->cnt, c);
	base = set->base[c];
	spin_unlock_irqrestore(set->lock, flags);
	return raw - min(raw, base);
}

/* Clear the counters of @sel, a mask of bits indexed like @map. */
static void vmlx_pma_clear(const struct vmlx_pma_set *set, u16 sel,
			   const s8 *map, unsigned int n)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(set->lock, flags);
	for (i = 0; i < n; i++)
		if ((sel & BIT(i)) && map[i] >= 0)
			set->base[map[i]] = vmlx_pma_raw(set->cnt, map[i]);
	spin_unlock_irqrestore(set->lock, flags);
}

static int vmlx_pma_reply(struct ib_pma_mad *pmp, u16 status)
{
	pmp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	pmp->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

static int vmlx_pma_class_port_info(struct ib_pma_mad *pmp)
{
	struct ib_class_port_info *cpi = (struct ib_class_port_info *)pmp->data;

	if (pmp->mad_hdr.method != IB_MGMT_METHOD_GET)
		return vmlx_pma_reply(pmp,
				IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH |
			       IB_PMA_CLASS_CAP_XMIT_WAIT;
	cpi->cap_mask2_resp_time = cpu_to_be32(VMLX_PMA_RESP_TIME);
	return vmlx_pma_reply(pmp, 0);
}

static u32 vmlx_sat(u64 v, u32 max)
{
	return v > max ? max : v;
}

static __be16 vmlx_pma_be16(const struct vmlx_pma_set *set,
			    enum vmlx_pma_counter c)
{
	return cpu_to_be16(vmlx_sat(vmlx_pma_read(set, c), U16_MAX));
}

static __be32 vmlx_pma_be32(const struct vmlx_pma_set *set,
			    enum vmlx_pma_counter c)
{
	return cpu_to_be32(vmlx_sat(vmlx_pma_read(set, c), U32_MAX));
}

/* PortCounters:CounterSelect bit n -> counter, -1 for none we keep */
static const s8 vmlx_pc_sel[16] = {
	-1, -1, VMLX_PMA_LINK_DOWNED, VMLX_PMA_RCV_ERRORS, -1,
	VMLX_PMA_RELAY_ERRORS,
	VMLX_PMA_XMIT_DISCARDS, -1, -1, -1, -1, -1,
	VMLX_PMA_XMIT_DATA, VMLX_PMA_RCV_DATA, VMLX_PMA_XMIT_PKTS,
	VMLX_PMA_RCV_PKTS,
};

/* PortCountersExtended:CounterSelect bit n -> counter */
static const s8 vmlx_pcx_sel[8] = {
	VMLX_PMA_XMIT_DATA, VMLX_PMA_RCV_DATA, VMLX_PMA_XMIT_PKTS,
	VMLX_PMA_RCV_PKTS, VMLX_PMA_XMIT_UCAST, VMLX_PMA_RCV_UCAST,
	VMLX_PMA_XMIT_MCAST, VMLX_PMA_RCV_MCAST,
};

static int vmlx_pma_counters(const struct vmlx_pma_set *set,
			     struct ib_pma_mad *pmp,
			     const struct ib_pma_mad *req)
{
	const struct ib_pma_portcounters *r = (const void *)req->data;
	struct ib_pma_portcounters *pc = (void *)pmp->data;

	if (pmp->mad_hdr.method == IB_MGMT_METHOD_SET)
		vmlx_pma_clear(set, be16_to_cpu(r->counter_select),
			       vmlx_pc_sel, ARRAY_SIZE(vmlx_pc_sel));
	pc->port_select = r->port_select;
	pc->counter_select = r->counter_select;
	pc->link_downed_counter =
		vmlx_sat(vmlx_pma_read(set, VMLX_PMA_LINK_DOWNED), U8_MAX);
	pc->port_rcv_errors = vmlx_pma_be16(set, VMLX_PMA_RCV_ERRORS);
	pc->port_rcv_switch_relay_errors =
		vmlx_pma_be16(set, VMLX_PMA_RELAY_ERRORS);
	pc->port_xmit_discards = vmlx_pma_be16(set, VMLX_PMA_XMIT_DISCARDS);
	pc->port_xmit_data = vmlx_pma_be32(set, VMLX_PMA_XMIT_DATA);
	pc->port_rcv_data = vmlx_pma_be32(set, VMLX_PMA_RCV_DATA);
	pc->port_xmit_packets = vmlx_pma_be32(set, VMLX_PMA_XMIT_PKTS);
	pc->port_rcv_packets = vmlx_pma_be32(set, VMLX_PMA_RCV_PKTS);
	return vmlx_pma_reply(pmp, 0);
}

static int vmlx_pma_counters_ext(const struct vmlx_pma_set *set,
				 struct ib_pma_mad *pmp,
				 const struct ib_pma_mad *req)
{
	const struct ib_pma_portcounters_ext *r = (const void *)req->data;
	struct ib_pma_portcounters_ext *pc = (void *)pmp->data;

	if (pmp->mad_hdr.method == IB_MGMT_METHOD_SET)
		vmlx_pma_clear(set, be16_to_cpu(r->counter_select),
			       vmlx_pcx_sel, ARRAY_SIZE(vmlx_pcx_sel));
	pc->port_select = r->port_select;
	pc->counter_select = r->counter_select;
	pc->port_xmit_data =
		cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_XMIT_DATA));
	pc->port_rcv_data = cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_RCV_DATA));
	pc->port_xmit_packets =
		cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_XMIT_PKTS));
	pc->port_rcv_packets =
		cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_RCV_PKTS));
	pc->port_unicast_xmit_packets =
		cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_XMIT_UCAST));
	pc->port_unicast_rcv_packets =
		cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_RCV_UCAST));
	pc->port_multicast_xmit_packets =
		cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_XMIT_MCAST));
	pc->port_multicast_rcv_packets =
		cpu_to_be64(vmlx_pma_read(set, VMLX_PMA_RCV_MCAST));
	return vmlx_pma_reply(pmp, 0);
}

/**
 * vmlx_pma_answer() - answer a PMA Get or Set, for any agent
 * @in: the request
 * @out: a copy of the request, to answer in
 * @find: gives the counters of the port PortSelect names
 * @ctx: passed to @find
 *
 * A class version other than 1 gets status 0x0004, an attribute other
 * than ClassPortInfo, PortCounters and PortCountersExtended 0x000C, a
 * PortSelect @find does not know (and 0xFF: AllPortSelect is not
 * offered) 0x001C.  A Set clears the counters of CounterSelect, then
 * answers like a Get.
 *
 * Context: any; does not sleep.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY.
 */
int vmlx_pma_answer(const struct ib_mad *in, struct ib_mad *out,
		    bool (*find)(void *ctx, u8 sel, struct vmlx_pma_set *set),
		    void *ctx)
{
	const struct ib_pma_mad *req = (const struct ib_pma_mad *)in;
	struct ib_pma_mad *pmp = (struct ib_pma_mad *)out;
	struct vmlx_pma_set set;
	u8 sel = req->data[1];

	if (pmp->mad_hdr.class_version != 1)
		return vmlx_pma_reply(pmp, IB_MGMT_MAD_STATUS_BAD_VERSION);
	memset(pmp->data, 0, sizeof(pmp->data));

	switch (pmp->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		return vmlx_pma_class_port_info(pmp);
	case IB_PMA_PORT_COUNTERS:
	case IB_PMA_PORT_COUNTERS_EXT:
		break;
	default:
		return vmlx_pma_reply(pmp,
				IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	}
	if (sel == 0xff || !find(ctx, sel, &set)) {
		pmp->data[1] = sel;
		return vmlx_pma_reply(pmp,
				IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	}
	if (pmp->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS)
		return vmlx_pma_counters(&set, pmp, req);
	return vmlx_pma_counters_ext(&set, pmp, req);
}

/* The HCA's ports 1..phys_port_cnt. */
static bool vmlx_pma_hca_port(void *ctx, u8 sel, struct vmlx_pma_set *set)
{
	struct vmlx_dev *vdev = ctx;
	struct vmlx_port *port;

	if (!sel || sel > vdev->ibdev.phys_port_cnt)
		return false;
	port = vmlx_port(vdev, sel);
	set->cnt = &port->cnt;
	set->base = port->pma_base;
	set->lock = &port->lock;
	return true;
}

/**
 * vmlx_pma() - answer a PMA Get or Set for an HCA
 * @vdev: the HCA
 * @port_num: the port the MAD arrived on
 * @in: the request
 * @out: a copy of the request, to answer in
 *
 * PortSelect names the port whose counters are meant, 1 to the HCA's
 * number of ports; see vmlx_pma_answer().
 *
 * Context: any; does not sleep.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY.
 */
int vmlx_pma(struct vmlx_dev *vdev, u32 port_num, const struct ib_mad *in,
	     struct ib_mad *out)
{
	return vmlx_pma_answer(in, out, vmlx_pma_hca_port, vdev);
}
