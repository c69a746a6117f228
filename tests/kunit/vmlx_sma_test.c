// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of vmlx's management agents, against the HCAs vmlx0 and
 * vmlx1 and the switch that the built-in driver created at boot (default
 * parameters: two HCAs of one port on one switch, no static LIDs):
 *
 *   - the HCA SMA through the driver's process_mad: NodeInfo, the PortInfo
 *     layout, Set of LIDs and the port state machine with its events and
 *     what query_port reports afterwards, P_KeyTable, GUIDInfo, M_Key,
 *     what is declined;
 *   - the PMA: ClassPortInfo, PortCounters and PortCountersExtended from
 *     known port counters, Set to clear, PortSelect;
 *   - the switch SMA: NodeInfo, SwitchInfo, PortInfo and its state machine,
 *     LFT and MFT Set/Get, and packets forwarded by what was set;
 *   - the directed-route rules of the switch, as a pure function and with
 *     SMPs sent through the fabric;
 *   - the switch PMA: PortCounters from known switch port counters, Set
 *     to clear, PortSelect, other classes, methods and versions;
 *   - end to end through the core's MAD layer: a directed-route SubnGet
 *     from vmlx0 through the switch to vmlx1 and back.
 *
 * Every test puts back what it changed (LIDs, states, tables).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>
#include <asm/unaligned.h>

#include "vmlx_test.h"

#define VSMA_DR		IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE
#define VSMA_LR		IB_MGMT_CLASS_SUBN_LID_ROUTED
#define VSMA_REPLY	(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)
#define VSMA_D		0x8000
#define VSMA_BAD_ATTR	IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE
#define VSMA_UNSUP	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB

struct vsma_ctx {
	struct ib_device *ibdev;
	struct ib_device *ibdev1;
	struct vmlx_port *port;
	struct vmlx_port *port1;
	struct vmlx_switch *sw;
	struct ib_event_handler handler;
	bool registered;
	atomic_t events[IB_EVENT_GID_CHANGE + 1];
	struct ib_smp in;
	struct ib_smp out;
};

static void vsma_event(struct ib_event_handler *h, struct ib_event *e)
{
	struct vsma_ctx *ctx = container_of(h, struct vsma_ctx, handler);

	if (e->element.port_num == 1 && e->event < ARRAY_SIZE(ctx->events))
		atomic_inc(&ctx->events[e->event]);
}

/* Wait up to a second for @n events of @type (they come from a work). */
static bool vsma_wait_event(struct vsma_ctx *ctx, enum ib_event_type type,
			    int n)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (atomic_read(&ctx->events[type]) >= n)
			return true;
		msleep(20);
	}
	return false;
}

static void vsma_reset_events(struct vsma_ctx *ctx)
{
	unsigned int i;

	/* let events of earlier steps arrive first */
	msleep(50);
	for (i = 0; i < ARRAY_SIZE(ctx->events); i++)
		atomic_set(&ctx->events[i], 0);
}

static int vsma_init(struct kunit *test)
{
	struct vsma_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	ctx->ibdev = ib_device_get_by_name("vmlx0");
	KUNIT_ASSERT_NOT_NULL_MSG(test, ctx->ibdev, "vmlx0 is not registered");
	ctx->ibdev1 = ib_device_get_by_name("vmlx1");
	KUNIT_ASSERT_NOT_NULL_MSG(test, ctx->ibdev1, "vmlx1 is not registered");
	ctx->port = vmlx_port(to_vmlx(ctx->ibdev), 1);
	ctx->port1 = vmlx_port(to_vmlx(ctx->ibdev1), 1);
	ctx->sw = vmlx_fabric_switch();
	KUNIT_ASSERT_NOT_NULL(test, ctx->sw);
	KUNIT_ASSERT_EQ(test, READ_ONCE(ctx->port->phys_state),
			IB_PORT_PHYS_STATE_LINK_UP);
	vmlx_test_port_reset(ctx->port);
	vmlx_test_port_reset(ctx->port1);
	ib_init_event_handler(&ctx->handler, ctx->ibdev, vsma_event);
	ib_register_event_handler(&ctx->handler);
	ctx->registered = true;
	vsma_reset_events(ctx);
	return 0;
}

static void vsma_exit(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;

	if (!ctx)
		return;
	if (ctx->registered)
		ib_unregister_event_handler(&ctx->handler);
	if (ctx->port)
		vmlx_test_port_reset(ctx->port);
	if (ctx->port1)
		vmlx_test_port_reset(ctx->port1);
	if (ctx->sw)
		vmlx_test_switch_reset(ctx->sw);
	if (ctx->ibdev1)
		ib_device_put(ctx->ibdev1);
	if (ctx->ibdev)
		ib_device_put(ctx->ibdev);
}

/* A request SMP in ctx->in. */
static struct ib_smp *vsma_req(struct vsma_ctx *ctx, u8 class, u8 method,
			       __be16 attr, u32 am)
{
	struct ib_smp *smp = &ctx->in;

	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = class;
	smp->class_version = 1;
	smp->method = method;
	smp->tid = cpu_to_be64(0x1234);
	smp->attr_id = attr;
	smp->attr_mod = cpu_to_be32(am);
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	return smp;
}

/* The driver's process_mad on vmlx0 port 1; the answer in ctx->out. */
static int vsma_mad(struct vsma_ctx *ctx, int flags)
{
	size_t size = sizeof(struct ib_mad);
	u16 pkey_index = 0;

	memset(&ctx->out, 0xa5, sizeof(ctx->out));
	return ctx->ibdev->ops->process_mad(ctx->ibdev, flags, 1, NULL, NULL,
					    (const struct ib_mad *)&ctx->in,
					    (struct ib_mad *)&ctx->out,
					    &size, &pkey_index);
}

static u16 vsma_status(struct vsma_ctx *ctx)
{
	return be16_to_cpu(ctx->out.status);
}

/*
 * PortInfo Get of vmlx0 port 1 into ctx->out; @pi decoded, with PortState
 * and PortPhysicalState 0 (no change), ready to be changed and Set.
 */
static void vsma_get_pi(struct kunit *test, struct vmlx_pi *pi)
{
	struct vsma_ctx *ctx = test->priv;

	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_ASSERT_EQ(test, vsma_status(ctx), VSMA_D);
	vmlx_pi_decode(ctx->out.data, pi);
	pi->state = 0;
	pi->phys_state = 0;
}

/* PortInfo Set of vmlx0 port 1 from @pi; returns the status (D masked). */
static u16 vsma_set_pi(struct kunit *test, const struct vmlx_pi *pi)
{
	struct vsma_ctx *ctx = test->priv;
	struct ib_smp *smp;

	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PORT_INFO, 1);
	vmlx_pi_encode(pi, smp->data);
	/* the encoder writes what a Get answers: ClientReregister 0 */
	if (pi->client_rereg)
		smp->data[51] |= 0x80;
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->out.method, IB_MGMT_METHOD_GET_RESP);
	return vsma_status(ctx) & ~VSMA_D;
}

static void vmlx_sma_node_info_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	const u8 *d = ctx->out.data;

	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->out.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ctx->out.tid), 0x1234ULL);
	KUNIT_EXPECT_EQ(test, d[0], 1);			/* BaseVersion */
	KUNIT_EXPECT_EQ(test, d[1], 1);			/* ClassVersion */
	KUNIT_EXPECT_EQ(test, d[2], 1);			/* NodeType CA */
	KUNIT_EXPECT_EQ(test, d[3], 1);			/* NumPorts */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 12),
			be64_to_cpu(ctx->ibdev->node_guid));
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 20),
			be64_to_cpu(ctx->port->guid));
	KUNIT_EXPECT_NE(test, get_unaligned_be64(d + 20),
			get_unaligned_be64(d + 12));
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 28), VMLX_PKEY_TBL_LEN);
	KUNIT_EXPECT_EQ(test, d[36], 1);		/* LocalPortNum */

	/* LID routed: no direction bit */
	vsma_req(ctx, VSMA_LR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), 0);

	/* bad modifier, Set of a read-only attribute */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D | VSMA_BAD_ATTR);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D | VSMA_UNSUP);

	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_DESC, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_STREQ(test, (char *)ctx->out.data, ctx->ibdev->node_desc);
}

/* Byte offsets of IBA 14.2.5.6 (mgmt.md 2.5.3), from a port at boot. */
static void vmlx_sma_port_info_layout_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	const u8 *d = ctx->out.data;

	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 0), 0ULL);	/* M_Key */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8),
			0xfe80000000000000ULL);			/* GidPrefix */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 16), 0);	/* LID */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 18), 0);	/* SM LID */
	/* CapabilityMask; IsCM is ib_cm's to set (built in here) */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 20) & ~IB_PORT_CM_SUP,
			0x02404840U);
	KUNIT_EXPECT_EQ(test, d[28], 1);		/* LocalPortNum */
	KUNIT_EXPECT_EQ(test, d[30], 3);		/* width supported */
	KUNIT_EXPECT_EQ(test, d[31], 2);		/* width active 4X */
	KUNIT_EXPECT_EQ(test, d[32], 0x72);		/* speeds, INIT */
	KUNIT_EXPECT_EQ(test, d[33], 0x52);		/* LinkUp, Polling */
	KUNIT_EXPECT_EQ(test, d[34], 0);		/* protect, LMC */
	KUNIT_EXPECT_EQ(test, d[35] >> 4, 4);		/* speed active */
	KUNIT_EXPECT_EQ(test, d[36], 0x50);		/* NeighborMTU, SMSL */
	KUNIT_EXPECT_EQ(test, d[37] >> 4, 1);		/* VLCap */
	KUNIT_EXPECT_EQ(test, d[41] & 0xf, 5);		/* MTUCap 4096 */
	KUNIT_EXPECT_EQ(test, d[43] >> 4, 1);		/* OperationalVLs */
	KUNIT_EXPECT_EQ(test, d[50], VMLX_GID_TBL_LEN);	/* GUIDCap */
	KUNIT_EXPECT_EQ(test, d[51], 18);		/* CR 0, timeout */
	KUNIT_EXPECT_EQ(test, d[62], 0x23);		/* ext speed EDR */

	/* AM 0 and AM 1 are the same port; 2 does not exist */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 2);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D | VSMA_BAD_ATTR);
	/* bit 31 (SM supports extended speeds) is allowed */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO,
		 BIT(31) | 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D);
}

static void vmlx_sma_set_lid_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct ib_port_attr attr;
	struct vmlx_pi pi;

	vsma_get_pi(test, &pi);
	pi.lid = 5;
	pi.sm_lid = 1;
	pi.sm_sl = 3;
	pi.subnet_timeout = 17;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	/* the answer is the resulting PortInfo */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(ctx->out.data + 16), 5);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(ctx->out.data + 18), 1);
	KUNIT_EXPECT_EQ(test, ctx->out.data[36] & 0xf, 3);

	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_port(ctx->ibdev, 1,
							  &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.lid, 5);
	KUNIT_EXPECT_EQ(test, attr.sm_lid, 1);
	KUNIT_EXPECT_EQ(test, attr.sm_sl, 3);
	KUNIT_EXPECT_EQ(test, attr.subnet_timeout, 17);
	KUNIT_EXPECT_EQ(test, attr.state, IB_PORT_INIT);
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx, IB_EVENT_LID_CHANGE, 1));
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx, IB_EVENT_SM_CHANGE, 1));

	/* the data path sees the LID: a packet for LID 5 is for the port */
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->lid), 5);

	/* a multicast LID, a bad NeighborMTU: 0x001C and nothing changes */
	vsma_get_pi(test, &pi);
	pi.lid = 0xc000;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	vsma_get_pi(test, &pi);
	pi.lid = 6;
	pi.link.neighbor_mtu = 6;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(ctx->out.data + 16), 5);
	vsma_get_pi(test, &pi);
	pi.link.op_vls = 2;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->lid), 5);

	/* NeighborMTU 2048 is what query_port calls the active MTU */
	vsma_get_pi(test, &pi);
	pi.link.neighbor_mtu = IB_MTU_2048;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_port(ctx->ibdev, 1,
							  &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.active_mtu, IB_MTU_2048);

	/* ClientReregister: an event, and it reads back as 0 */
	vsma_reset_events(ctx);
	vsma_get_pi(test, &pi);
	pi.client_rereg = true;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	KUNIT_EXPECT_EQ(test, ctx->out.data[51] & 0x80, 0);
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx,
						IB_EVENT_CLIENT_REREGISTER, 1));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->events[IB_EVENT_LID_CHANGE]),
			0);

	/* GidPrefix: GID_CHANGE, and query_gid follows */
	vsma_get_pi(test, &pi);
	pi.gid_prefix = 0xfe80000000000001ULL;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx, IB_EVENT_GID_CHANGE, 1));
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_port(ctx->ibdev, 1,
							  &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.subnet_prefix, 0xfe80000000000001ULL);
}

static void vmlx_sma_state_machine_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct ib_port_attr attr;
	struct vmlx_pi pi;

	vsma_get_pi(test, &pi);
	pi.lid = 9;
	KUNIT_ASSERT_EQ(test, vsma_set_pi(test, &pi), 0);

	/* INIT -> ACTIVE and INIT -> INIT are not transitions */
	pi.state = IB_PORT_ACTIVE;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	KUNIT_EXPECT_EQ(test, ctx->out.data[32] & 0xf, IB_PORT_INIT);
	pi.state = IB_PORT_INIT;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	pi.state = 5;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->state), IB_PORT_INIT);

	/* INIT -> ARMED -> ACTIVE, each answered with the new state */
	pi.state = IB_PORT_ARMED;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	KUNIT_EXPECT_EQ(test, ctx->out.data[32] & 0xf, IB_PORT_ARMED);
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);	/* no-op */
	pi.state = IB_PORT_ACTIVE;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	KUNIT_EXPECT_EQ(test, ctx->out.data[32] & 0xf, IB_PORT_ACTIVE);
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx, IB_EVENT_PORT_ACTIVE, 1));
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_port(ctx->ibdev, 1,
							  &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.state, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, attr.lid, 9);

	/* ACTIVE -> ARMED is not a transition */
	pi.state = IB_PORT_ARMED;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->state), IB_PORT_ACTIVE);

	/* DOWN: PORT_ERR; the link retrains and the port is back in INIT */
	pi.state = IB_PORT_DOWN;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	KUNIT_EXPECT_EQ(test, ctx->out.data[32] & 0xf, IB_PORT_DOWN);
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx, IB_EVENT_PORT_ERR, 1));
	vmlx_fabric_flush();
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_port(ctx->ibdev, 1,
							  &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.state, IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, attr.phys_state, IB_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, attr.lid, 9);

	/* PhysState Disabled: DOWN/Disabled, the switch port Polling */
	vsma_get_pi(test, &pi);
	pi.phys_state = IB_PORT_PHYS_STATE_DISABLED;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	KUNIT_EXPECT_EQ(test, ctx->out.data[33] >> 4,
			IB_PORT_PHYS_STATE_DISABLED);
	vmlx_fabric_flush();
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->state), IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->sw->ports[1].phys),
			IB_PORT_PHYS_STATE_POLLING);
	/* an invalid PhysState, then enable again: INIT */
	vsma_get_pi(test, &pi);
	pi.phys_state = 4;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), VSMA_BAD_ATTR);
	pi.phys_state = IB_PORT_PHYS_STATE_POLLING;
	KUNIT_EXPECT_EQ(test, vsma_set_pi(test, &pi), 0);
	vmlx_fabric_flush();
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->state), IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->sw->ports[1].state),
			IB_PORT_INIT);
}

/* The pure state machine, every pair. */
static void vmlx_sma_state_next_test(struct kunit *test)
{
	static const struct {
		enum ib_port_state cur;
		u8 req;
		int ret;
		enum ib_port_state next;
	} cases[] = {
		{ IB_PORT_INIT, 0, 0, IB_PORT_INIT },
		{ IB_PORT_INIT, IB_PORT_ARMED, 0, IB_PORT_ARMED },
		{ IB_PORT_INIT, IB_PORT_ACTIVE, -EINVAL, IB_PORT_INIT },
		{ IB_PORT_INIT, IB_PORT_INIT, -EINVAL, IB_PORT_INIT },
		{ IB_PORT_ARMED, IB_PORT_ACTIVE, 0, IB_PORT_ACTIVE },
		{ IB_PORT_ARMED, IB_PORT_ARMED, 0, IB_PORT_ARMED },
		{ IB_PORT_ACTIVE, IB_PORT_ACTIVE, 0, IB_PORT_ACTIVE },
		{ IB_PORT_ACTIVE, IB_PORT_ARMED, -EINVAL, IB_PORT_ACTIVE },
		{ IB_PORT_ACTIVE, IB_PORT_DOWN, 0, IB_PORT_DOWN },
		{ IB_PORT_DOWN, IB_PORT_ARMED, -EINVAL, IB_PORT_DOWN },
		{ IB_PORT_DOWN, IB_PORT_ACTIVE, -EINVAL, IB_PORT_DOWN },
		{ IB_PORT_ARMED, 5, -EINVAL, IB_PORT_ARMED },
		{ IB_PORT_ARMED, 15, -EINVAL, IB_PORT_ARMED },
	};
	enum ib_port_state next;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = vmlx_port_state_next(cases[i].cur, cases[i].req,
					       &next);

		KUNIT_EXPECT_EQ_MSG(test, ret, cases[i].ret, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, next, cases[i].next, "case %u", i);
	}
}

static void vmlx_sma_pkey_guid_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct ib_smp *smp;
	union ib_gid gid;
	u16 pkey;

	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PKEY_TABLE, 0);
	put_unaligned_be16(0xffff, smp->data);
	put_unaligned_be16(0x8001, smp->data + 2);
	put_unaligned_be16(0x0002, smp->data + 30);	/* entry 15 */
	put_unaligned_be16(0x7777, smp->data + 32);	/* beyond the table */
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(ctx->out.data + 2), 0x8001);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(ctx->out.data + 32), 0);
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx, IB_EVENT_PKEY_CHANGE, 1));
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_pkey(ctx->ibdev, 1, 1,
							  &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, 0x8001);
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_pkey(ctx->ibdev, 1, 15,
							  &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, 0x0002);

	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PKEY_TABLE, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(ctx->out.data), 0xffff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(ctx->out.data + 30), 2);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PKEY_TABLE, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D | VSMA_BAD_ATTR);

	/* GUIDInfo: entry 0 is the port GUID and stays it; 1 is an alias */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_GUID_INFO, 0);
	put_unaligned_be64(0x1111, smp->data);
	put_unaligned_be64(0x0200000000000042ULL, smp->data + 8);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(ctx->out.data),
			be64_to_cpu(ctx->port->guid));
	KUNIT_EXPECT_TRUE(test, vsma_wait_event(ctx, IB_EVENT_GID_CHANGE, 1));
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_gid(ctx->ibdev, 1, 1,
							 &gid), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(gid.global.subnet_prefix),
			0xfe80000000000000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(gid.global.interface_id),
			0x0200000000000042ULL);
	KUNIT_ASSERT_EQ(test, ctx->ibdev->ops->query_gid(ctx->ibdev, 1, 0,
							 &gid), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(gid.global.interface_id),
			be64_to_cpu(ctx->port->guid));
}

static void vmlx_sma_mkey_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct ib_smp *smp;
	struct vmlx_pi pi;

	vsma_get_pi(test, &pi);
	pi.mkey = 0xabcdef;
	pi.mkey_protect = 1;
	KUNIT_ASSERT_EQ(test, vsma_set_pi(test, &pi), 0);

	/* Get with the wrong key: answered, the M_Key hidden */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(ctx->out.data), 0ULL);
	/* with the right key it shows */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		       IB_SMP_ATTR_PORT_INFO, 1);
	smp->mkey = cpu_to_be64(0xabcdef);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(ctx->out.data), 0xabcdefULL);

	/* Set with the wrong key: no answer, a violation counted */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PORT_INFO, 1);
	pi.lid = 77;
	vmlx_pi_encode(&pi, smp->data);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0),
			IB_MAD_RESULT_FAILURE | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->lid), 0);
	KUNIT_EXPECT_EQ(test, ctx->port->link.mkey_violations, 1);
	/* the MAD core may say to ignore it */
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, IB_MAD_IGNORE_MKEY), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port->lid), 77);
	/* and with the key the SM takes protection off again */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PORT_INFO, 1);
	smp->mkey = cpu_to_be64(0xabcdef);
	pi.mkey = 0;
	pi.mkey_protect = 0;
	vmlx_pi_encode(&pi, smp->data);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->port->mkey, 0ULL);
}

/* What the SMA leaves to others, and the status of what it cannot do. */
static void vmlx_sma_decline_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct ib_smp *smp;

	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_SM_INFO, 0);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0), IB_MAD_RESULT_SUCCESS);
	vsma_req(ctx, VSMA_LR, IB_MGMT_METHOD_TRAP_REPRESS,
		 IB_SMP_ATTR_NOTICE, 0);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET_RESP,
		 IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0), IB_MAD_RESULT_SUCCESS);
	/* SA, CM: not the driver's */
	vsma_req(ctx, IB_MGMT_CLASS_SUBN_ADM, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0), IB_MAD_RESULT_SUCCESS);
	vsma_req(ctx, IB_MGMT_CLASS_CM, IB_MGMT_METHOD_SEND,
		 IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0), IB_MAD_RESULT_SUCCESS);

	/* an attribute the SMA does not have; a bad class version */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_VENDOR_DIAG, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D | VSMA_UNSUP);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D | VSMA_UNSUP);
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		       IB_SMP_ATTR_NODE_INFO, 0);
	smp->class_version = 2;
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx),
			VSMA_D | IB_MGMT_MAD_STATUS_BAD_VERSION);

	/* SL2VL and VLArb tables are kept */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_SL_TO_VL_TABLE, 0);
	smp->data[0] = 0x01;
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->out.data[0], 0x01);
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_VL_ARB_TABLE, 3 << 16 | 1);
	smp->data[1] = 0x40;
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_VL_ARB_TABLE,
		 3 << 16);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->out.data[1], 0x40);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_VL_ARB_TABLE,
		 5 << 16);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_D | VSMA_BAD_ATTR);
	memset(ctx->port->sl2vl, 0, sizeof(ctx->port->sl2vl));
	memset(ctx->port->vlarb, 0, sizeof(ctx->port->vlarb));
}

/* ------------------------------------------------------------------ */
/* PMA                                                                 */
/* ------------------------------------------------------------------ */

static struct ib_pma_mad *vsma_pma_req(struct vsma_ctx *ctx, u8 method,
				       __be16 attr, u8 port_select)
{
	struct ib_pma_mad *p = (struct ib_pma_mad *)&ctx->in;

	memset(p, 0, sizeof(*p));
	p->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	p->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	p->mad_hdr.class_version = 1;
	p->mad_hdr.method = method;
	p->mad_hdr.attr_id = attr;
	p->data[1] = port_select;
	return p;
}

/* Traffic of known size: @n packets of @words 4-byte words plus VCRC. */
static void vsma_traffic(struct vmlx_port *port, u64 n, u64 words, u64 mc)
{
	atomic64_add(n, &port->cnt.xmit_packets);
	atomic64_add(n * (words * 4 + VMLX_VCRC_BYTES), &port->cnt.xmit_bytes);
	atomic64_add(mc, &port->cnt.xmit_mcast_packets);
	atomic64_add(2 * n, &port->cnt.rcv_packets);
	atomic64_add(2 * n * (words * 4 + VMLX_VCRC_BYTES),
		     &port->cnt.rcv_bytes);
}

static void vmlx_pma_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct ib_pma_portcounters *pc;
	struct ib_pma_portcounters_ext *px;
	struct ib_pma_mad *p;
	const u8 *d = ctx->out.data;

	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_CLASS_PORT_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), 0);
	p = (struct ib_pma_mad *)&ctx->out;
	KUNIT_EXPECT_EQ(test, p->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, p->data[0], 1);
	KUNIT_EXPECT_EQ(test, p->data[1], 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(p->data + 2), 0x1200);

	/* clear everything, then traffic of known size */
	p = vsma_pma_req(ctx, IB_MGMT_METHOD_SET, IB_PMA_PORT_COUNTERS, 1);
	put_unaligned_be16(0xffff, p->data + 2);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	p = vsma_pma_req(ctx, IB_MGMT_METHOD_SET, IB_PMA_PORT_COUNTERS_EXT, 1);
	put_unaligned_be16(0xff, p->data + 2);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	p = (struct ib_pma_mad *)&ctx->out;
	px = (struct ib_pma_portcounters_ext *)p->data;
	KUNIT_EXPECT_EQ(test, be64_to_cpu(px->port_xmit_packets), 0ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(px->port_xmit_data), 0ULL);
	vsma_traffic(ctx->port, 10, 75, 4);

	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), 0);
	d = ((struct ib_pma_mad *)&ctx->out)->data;
	KUNIT_EXPECT_EQ(test, d[1], 1);				/* PortSelect */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 24), 750U);	/* XmitData */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 28), 1500U);	/* RcvData */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32), 10U);	/* XmitPkts */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 36), 20U);	/* RcvPkts */
	pc = (struct ib_pma_portcounters *)d;
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_xmit_packets), 10U);

	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS_EXT, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	d = ((struct ib_pma_mad *)&ctx->out)->data;
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8), 750ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 16), 1500ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 24), 10ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 32), 20ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 40), 6ULL);	/* ucast */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 56), 4ULL);	/* mcast */

	/* 32-bit data counters stop at the maximum; the 64-bit ones go on */
	vsma_traffic(ctx->port, 1, 0x100000000ULL, 0);
	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	d = ((struct ib_pma_mad *)&ctx->out)->data;
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 24), U32_MAX);
	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS_EXT, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	d = ((struct ib_pma_mad *)&ctx->out)->data;
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8),
			0x100000000ULL + 750);

	/* Set clears only what CounterSelect selects: PortXmitData */
	p = vsma_pma_req(ctx, IB_MGMT_METHOD_SET, IB_PMA_PORT_COUNTERS, 1);
	put_unaligned_be16(0x1000, p->data + 2);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	d = ((struct ib_pma_mad *)&ctx->out)->data;
	KUNIT_EXPECT_EQ(test, ctx->out.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 24), 0U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32), 11U);

	/* a port the HCA does not have, AllPortSelect, another attribute */
	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 2);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_BAD_ATTR);
	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 0xff);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_BAD_ATTR);
	vsma_pma_req(ctx, IB_MGMT_METHOD_GET, IB_PMA_PORT_SAMPLES_CONTROL, 1);
	KUNIT_ASSERT_EQ(test, vsma_mad(ctx, 0), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, vsma_status(ctx), VSMA_UNSUP);
	/* other methods are not the PMA's */
	vsma_pma_req(ctx, IB_MGMT_METHOD_GET_RESP, IB_PMA_PORT_COUNTERS, 1);
	KUNIT_EXPECT_EQ(test, vsma_mad(ctx, 0), IB_MAD_RESULT_SUCCESS);
}

/* ------------------------------------------------------------------ */
/* The switch                                                          */
/* ------------------------------------------------------------------ */

/* The switch SMA on ctx->in, as if it came in on @in; reply in ctx->in. */
static int vsma_sw(struct vsma_ctx *ctx, u8 in)
{
	return vmlx_switch_sma(ctx->sw, in, &ctx->in);
}

static void vmlx_switch_sma_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct vmlx_switch *sw = ctx->sw;
	const u8 *d = ctx->in.data;
	struct ib_smp *smp;
	struct vmlx_pi pi;

	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 2), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status), VSMA_D);
	KUNIT_EXPECT_EQ(test, d[2], 2);				/* switch */
	KUNIT_EXPECT_EQ(test, d[3], sw->num_ports);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 12), sw->guid);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 20), sw->guid);
	KUNIT_EXPECT_EQ(test, d[36], 2);			/* LocalPortNum */
	KUNIT_EXPECT_NE(test, sw->guid, be64_to_cpu(ctx->port->guid));

	/* SwitchInfo: the links came up at boot, so PortStateChange is set */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_SWITCH_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 0), 0xc000);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 4), VMLX_SW_MFT_CAP);
	KUNIT_EXPECT_EQ(test, d[11] & 4, 4);
	memcpy(ctx->out.data, d, IB_SMP_DATA_SIZE);
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_SWITCH_INFO, 0);
	memcpy(smp->data, ctx->out.data, IB_SMP_DATA_SIZE);
	put_unaligned_be16(10, smp->data + 6);		/* LinearFDBTop */
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status), VSMA_D);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 6), 10);
	KUNIT_EXPECT_EQ(test, d[11] & 4, 0);		/* PSC cleared */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_SWITCH_INFO, 0);
	put_unaligned_be16(0xc000, smp->data + 6);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status),
			VSMA_D | VSMA_BAD_ATTR);

	/* PortInfo of port 0: ACTIVE, LinkUp; a LID makes it the switch's */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, d[32] & 0xf, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, d[33] >> 4, IB_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, d[28], 1);
	vmlx_pi_decode(d, &pi);
	pi.phys_state = 0;
	pi.lid = 0x20;
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PORT_INFO, 0);
	vmlx_pi_encode(&pi, smp->data);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 16), 0x20);
	KUNIT_EXPECT_TRUE(test, vmlx_switch_own_lid(sw, 0x20));
	KUNIT_EXPECT_FALSE(test, vmlx_switch_own_lid(sw, 0x21));

	/* external port 2: INIT; ACTIVE only through ARMED */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 2);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, d[32] & 0xf, IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, d[33] >> 4, IB_PORT_PHYS_STATE_LINK_UP);
	vmlx_pi_decode(d, &pi);
	pi.phys_state = 0;
	pi.state = IB_PORT_ACTIVE;
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PORT_INFO, 2);
	vmlx_pi_encode(&pi, smp->data);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status),
			VSMA_D | VSMA_BAD_ATTR);
	pi.state = IB_PORT_ARMED;
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PORT_INFO, 2);
	vmlx_pi_encode(&pi, smp->data);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, d[32] & 0xf, IB_PORT_ARMED);
	pi.state = IB_PORT_ACTIVE;
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_PORT_INFO, 2);
	vmlx_pi_encode(&pi, smp->data);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, d[32] & 0xf, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sw->ports[2].state), IB_PORT_ACTIVE);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO,
		 sw->num_ports + 1);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status),
			VSMA_D | VSMA_BAD_ATTR);

	/* P_KeyTable of port 0 only; no SL2VL */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PKEY_TABLE, 0);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d), 0xffff);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PKEY_TABLE,
		 1 << 16);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status),
			VSMA_D | VSMA_BAD_ATTR);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_SL_TO_VL_TABLE, 0);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status), VSMA_D | VSMA_UNSUP);
}

static void vmlx_switch_tables_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct vmlx_switch *sw = ctx->sw;
	const u8 *d = ctx->in.data;
	struct ib_smp *smp;

	/* LFT block 0: LID 5 -> port 2, LID 6 -> port 1 */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0);
	memset(smp->data, 0xff, IB_SMP_DATA_SIZE);
	smp->data[5] = 2;
	smp->data[6] = 1;
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status), VSMA_D);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, d[5], 2);
	KUNIT_EXPECT_EQ(test, d[6], 1);
	KUNIT_EXPECT_EQ(test, d[7], 0xff);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sw->lft[5]), 2);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0xc000 / 64);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status),
			VSMA_D | VSMA_BAD_ATTR);

	/* MFT: MLID 0xC001 to ports 1 and 2 (position 0, block 0) */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_MCAST_FORWARD_TABLE, 0);
	put_unaligned_be16(0x0006, smp->data + 2);
	put_unaligned_be16(0xfff8, smp->data + 4);	/* ports that are not */
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status), VSMA_D);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sw->mft[1]), 0x6ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sw->mft[2]), 0ULL);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_MCAST_FORWARD_TABLE, 0);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 2), 0x0006);
	/* position 1 holds ports 16..31, which this switch does not have */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_MCAST_FORWARD_TABLE, 1U << 28);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status),
			VSMA_D | VSMA_BAD_ATTR);
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET,
		 IB_SMP_ATTR_MCAST_FORWARD_TABLE, VMLX_SW_MFT_CAP / 32);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->in.status),
			VSMA_D | VSMA_BAD_ATTR);
}

/* ------------------------------------------------------------------ */
/* Directed route                                                      */
/* ------------------------------------------------------------------ */

static void vsma_dr(struct ib_smp *smp, bool d, u8 hop_ptr, u8 hop_cnt)
{
	memset(smp, 0, sizeof(*smp));
	smp->mgmt_class = VSMA_DR;
	smp->status = d ? IB_SMP_DIRECTION : 0;
	smp->hop_ptr = hop_ptr;
	smp->hop_cnt = hop_cnt;
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
}

static void vmlx_switch_dr_rules_test(struct kunit *test)
{
	struct ib_smp *smp = kunit_kzalloc(test, sizeof(*smp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, smp);

	/* outgoing, the switch in the middle: in 1, out InitialPath[2] */
	vsma_dr(smp, false, 1, 2);
	smp->initial_path[1] = 1;
	smp->initial_path[2] = 3;
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), 3);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 2);
	KUNIT_EXPECT_EQ(test, smp->return_path[1], 1);

	/* outgoing, the switch is the target: the SMA's */
	vsma_dr(smp, false, 1, 1);
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 4, 4), 0);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 2);
	KUNIT_EXPECT_EQ(test, smp->return_path[1], 4);
	/* its response goes back where the request came from */
	smp->status = IB_SMP_DIRECTION;
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_reply(smp, 4), 4);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 1);

	/* returning through the switch: in by InitialPath[2], out by RP[1] */
	vsma_dr(smp, true, 2, 2);
	smp->initial_path[2] = 3;
	smp->return_path[1] = 1;
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 3, 4), 1);
	KUNIT_EXPECT_EQ(test, smp->hop_ptr, 1);
	/* ... but not if it comes in by another port */
	vsma_dr(smp, true, 2, 2);
	smp->initial_path[2] = 3;
	smp->return_path[1] = 1;
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 2, 4), -EINVAL);

	/* what is dropped */
	vsma_dr(smp, false, 0, 2);			/* sender did not move */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, false, 3, 2);			/* past the end */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, false, 1, 0);			/* local, not wire */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, false, 1, 64);			/* C14-6 */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, false, 1, 2);
	smp->initial_path[2] = 5;			/* no such port */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, false, 1, 2);
	smp->initial_path[2] = 0;			/* port 0 */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, false, 1, 1);
	smp->dr_dlid = cpu_to_be16(3);			/* LID-routed part */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, true, 1, 2);			/* the SM's end */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_recv(smp, 1, 4), -EINVAL);
	vsma_dr(smp, true, 2, 2);			/* not at the end */
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_reply(smp, 4), -EINVAL);
	vsma_dr(smp, true, 2, 1);
	smp->return_path[1] = 0;
	KUNIT_EXPECT_EQ(test, vmlx_dr_switch_reply(smp, 4), -EINVAL);
}

/* An SMP packet from vmlx0 port 1, as its QP0 would send it. */
static struct sk_buff *vsma_smp_packet(const struct ib_smp *smp, u16 dlid,
				       u16 slid)
{
	unsigned int len = VMLX_LRH_BYTES + VMLX_BTH_BYTES + VMLX_DETH_BYTES +
			   sizeof(*smp);
	struct vmlx_lrh *lrh;
	struct vmlx_bth *bth;
	struct sk_buff *skb;
	int total;

	skb = alloc_skb(len + VMLX_CRC_BYTES, GFP_KERNEL);
	if (!skb)
		return NULL;
	memset(skb_put(skb, len), 0, len);
	lrh = (struct vmlx_lrh *)skb->data;
	vmlx_lrh_set_vl(lrh, 15);
	vmlx_lrh_set_lnh(lrh, VMLX_LNH_IBA_LOCAL);
	vmlx_lrh_set_dlid(lrh, dlid);
	vmlx_lrh_set_slid(lrh, slid);
	vmlx_lrh_set_pktlen(lrh, (len + VMLX_ICRC_BYTES) / 4);
	bth = (struct vmlx_bth *)(skb->data + VMLX_LRH_BYTES);
	vmlx_bth_set_opcode(bth, VMLX_OPC_UD_SEND_ONLY);
	vmlx_bth_set_pkey(bth, 0xffff);
	vmlx_bth_set_qpn(bth, 0);
	memcpy(skb->data + len - sizeof(*smp), smp, sizeof(*smp));
	total = vmlx_pkt_finalize(skb->data, skb->len);
	if (total < 0) {
		kfree_skb(skb);
		return NULL;
	}
	skb_put(skb, total - skb->len);
	return skb;
}

static void vsma_xmit(struct kunit *test, const struct ib_smp *smp,
		      u16 dlid, u16 slid)
{
	struct vsma_ctx *ctx = test->priv;
	struct sk_buff *skb = vsma_smp_packet(smp, dlid, slid);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, vmlx_port_xmit(ctx->port, skb), 0);
}

static s64 vsma_rcv(struct vmlx_port *port)
{
	return atomic64_read(&port->cnt.rcv_packets);
}

/* SMPs through the fabric: to the switch, through it, and dropped. */
static void vmlx_switch_dr_fabric_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct vmlx_switch *sw = ctx->sw;
	struct ib_smp *smp = &ctx->in;
	s64 rcv0, rcv1, smps, discards;
	u8 far = ctx->port1->fport->peer->num;

	/* hop count 1: NodeInfo of the switch, answered to vmlx0 */
	vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0);
	smp->hop_cnt = 1;
	smp->hop_ptr = 1;
	smp->initial_path[1] = 1;
	rcv0 = vsma_rcv(ctx->port);
	rcv1 = vsma_rcv(ctx->port1);
	smps = atomic64_read(&sw->smps);
	vsma_xmit(test, smp, VMLX_LID_PERMISSIVE, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sw->smps), smps + 1);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port), rcv0 + 1);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port1), rcv1);

	/* hop count 2: on to vmlx1 by InitialPath[2] */
	smp->hop_cnt = 2;
	smp->initial_path[2] = far;
	vsma_xmit(test, smp, VMLX_LID_PERMISSIVE, 0);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port1), rcv1 + 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sw->smps), smps + 1);

	/* the response of vmlx1 comes back to vmlx0 by ReturnPath */
	smp->status = IB_SMP_DIRECTION;
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->hop_ptr = 2;
	smp->return_path[1] = ctx->port->fport->peer->num;
	rcv0 = vsma_rcv(ctx->port);
	{
		struct sk_buff *skb = vsma_smp_packet(smp, VMLX_LID_PERMISSIVE,
						      0);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ(test, vmlx_port_xmit(ctx->port1, skb), 0);
	}
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port), rcv0 + 1);

	/* a broken hop pointer is dropped and counted */
	discards = atomic64_read(&sw->smp_discards);
	smp->status = 0;
	smp->method = IB_MGMT_METHOD_GET;
	smp->hop_ptr = 0;
	rcv0 = vsma_rcv(ctx->port);
	rcv1 = vsma_rcv(ctx->port1);
	vsma_xmit(test, smp, VMLX_LID_PERMISSIVE, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sw->smp_discards), discards + 1);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port), rcv0);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port1), rcv1);
}

/*
 * LID-routed packets go where the LFT that a Set programmed says, traps
 * too.
 */
static void vmlx_switch_lft_forwarding_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct vmlx_switch *sw = ctx->sw;
	u8 far = ctx->port1->fport->peer->num;
	u8 near = ctx->port->fport->peer->num;
	s64 rcv0, rcv1, relay, traps;
	struct ib_smp *smp;

	KUNIT_ASSERT_EQ(test, vmlx_port_set_lid(ctx->port1, 7, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, vmlx_port_set_lid(ctx->port, 3, 0, 0), 0);
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0);
	memset(smp->data, 0xff, IB_SMP_DATA_SIZE);
	smp->data[7] = far;
	smp->data[3] = near;
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_SWITCH_INFO, 0);
	put_unaligned_be16(7, smp->data + 6);
	smp->data[8] = 0xff;
	smp->data[9] = 0xff;
	smp->data[10] = 0xff;
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	KUNIT_ASSERT_EQ(test, be16_to_cpu(ctx->in.status), VSMA_D);

	/* a LID-routed SMP for LID 7 reaches vmlx1 */
	smp = vsma_req(ctx, VSMA_LR, IB_MGMT_METHOD_GET,
		       IB_SMP_ATTR_NODE_INFO, 0);
	rcv1 = vsma_rcv(ctx->port1);
	vsma_xmit(test, smp, 7, 3);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port1), rcv1 + 1);

	/* unrouted: dropped at the switch, a relay error */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0);
	memset(smp->data, 0xff, IB_SMP_DATA_SIZE);
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	smp = vsma_req(ctx, VSMA_LR, IB_MGMT_METHOD_GET,
		       IB_SMP_ATTR_NODE_INFO, 0);
	relay = atomic64_read(&sw->ports[near].cnt.relay_errors);
	vsma_xmit(test, smp, 7, 3);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port1), rcv1 + 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sw->ports[near].cnt.relay_errors),
			relay + 1);

	/* LID routed to the switch's own LID: its SMA answers by the LFT */
	smp = vsma_req(ctx, VSMA_DR, IB_MGMT_METHOD_SET,
		       IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0);
	memset(smp->data, 0xff, IB_SMP_DATA_SIZE);
	smp->data[3] = near;
	smp->data[7] = far;
	KUNIT_ASSERT_EQ(test, vsma_sw(ctx, 1), VSMA_REPLY);
	spin_lock_irq(&sw->lock);
	WRITE_ONCE(sw->lid, 5);
	spin_unlock_irq(&sw->lock);
	smp = vsma_req(ctx, VSMA_LR, IB_MGMT_METHOD_GET,
		       IB_SMP_ATTR_NODE_INFO, 0);
	rcv0 = vsma_rcv(ctx->port);
	vsma_xmit(test, smp, 5, 3);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port), rcv0 + 1);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port1), rcv1 + 1);

	/*
	 * With an SM at LID 3 (vmlx0), pulling vmlx1's link sends it Trap
	 * 128 when the link goes down and again when it comes back; the
	 * switch port's state follows, PortStateChange is set.
	 */
	spin_lock_irq(&sw->lock);
	sw->sm_lid = 3;
	sw->psc = false;
	spin_unlock_irq(&sw->lock);
	traps = atomic64_read(&sw->traps);
	rcv0 = vsma_rcv(ctx->port);
	KUNIT_ASSERT_EQ(test, vmlx_port_set_link(ctx->port1, false), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sw->traps), traps + 1);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port), rcv0 + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sw->ports[far].state), IB_PORT_DOWN);
	KUNIT_EXPECT_TRUE(test, sw->psc);
	KUNIT_ASSERT_EQ(test, vmlx_port_set_link(ctx->port1, true), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sw->traps), traps + 2);
	KUNIT_EXPECT_EQ(test, vsma_rcv(ctx->port), rcv0 + 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sw->ports[far].state), IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->port1->state), IB_PORT_INIT);
	spin_lock_irq(&sw->lock);
	sw->sm_lid = 0;
	spin_unlock_irq(&sw->lock);
}

/* What an SMI agent of the core's MAD layer saw. */
struct vsma_agent {
	struct completion done;
	enum ib_wc_status status;
	int nresp;
	struct ib_smp resp;
};

static void vsma_send_handler(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	struct vsma_agent *va = agent->context;

	va->status = wc->status;
	complete(&va->done);
}

static void vsma_recv_handler(struct ib_mad_agent *agent,
			      struct ib_mad_send_buf *send_buf,
			      struct ib_mad_recv_wc *rwc)
{
	struct vsma_agent *va = agent->context;

	if (send_buf) {
		memcpy(&va->resp, rwc->recv_buf.mad, sizeof(va->resp));
		va->nresp++;
	}
	ib_free_recv_mad(rwc);
}

/*
 * A directed-route SubnGet(@attr, @am) from vmlx0 port 1 by InitialPath
 * [_, 1, @out2] (@hops 1 or 2), through the core's MAD layer; the
 * response in va->resp.
 */
static void vsma_core_get(struct kunit *test, struct ib_mad_agent *agent,
			  struct vsma_agent *va, int hops, u8 out2,
			  __be16 attr, u32 am)
{
	struct rdma_ah_attr ah_attr = {
		.type = RDMA_AH_ATTR_TYPE_IB,
		.port_num = 1,
		.dlid = 0xffff,
	};
	struct ib_mad_send_buf *buf;
	struct ib_smp *smp;
	struct ib_ah *ah;

	init_completion(&va->done);
	va->nresp = 0;
	ah = rdma_create_ah(agent->qp->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	buf = ib_create_send_mad(agent, 0, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		KUNIT_FAIL(test, "ib_create_send_mad: %ld", PTR_ERR(buf));
		return;
	}
	smp = buf->mad;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = VSMA_DR;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_GET;
	smp->tid = cpu_to_be64((u64)agent->hi_tid << 32 | 0x5a00 | hops);
	smp->attr_id = attr;
	smp->attr_mod = cpu_to_be32(am);
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	smp->hop_cnt = hops;
	smp->initial_path[1] = 1;
	smp->initial_path[2] = out2;
	buf->ah = ah;
	buf->timeout_ms = 1000;
	buf->retries = 1;
	KUNIT_EXPECT_EQ(test, ib_post_send_mad(buf, NULL), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&va->done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, va->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, va->nresp, 1);
	ib_free_send_mad(buf);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static void vmlx_sma_mad_core_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	u8 near = ctx->port->fport->peer->num;
	u8 far = ctx->port1->fport->peer->num;
	struct ib_mad_agent *agent;
	struct vsma_agent *va;
	const u8 *d;

	va = kunit_kzalloc(test, sizeof(*va), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	d = va->resp.data;
	agent = ib_register_mad_agent(ctx->ibdev, 1, IB_QPT_SMI, NULL, 0,
				      vsma_send_handler, vsma_recv_handler,
				      va, 0);
	if (IS_ERR(agent))
		kunit_skip(test, "no SMI agent on vmlx0 (%ld)", PTR_ERR(agent));

	/* two hops: the far HCA answers, by its own port */
	vsma_core_get(test, agent, va, 2, far, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, va->resp.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(va->resp.status), VSMA_D);
	KUNIT_EXPECT_EQ(test, va->resp.hop_ptr, 0);
	KUNIT_EXPECT_EQ(test, va->resp.hop_cnt, 2);
	KUNIT_EXPECT_EQ(test, va->resp.return_path[1], near);
	KUNIT_EXPECT_EQ(test, va->resp.return_path[2], 1);
	KUNIT_EXPECT_EQ(test, d[2], RDMA_NODE_IB_CA);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 12),
			be64_to_cpu(ctx->ibdev1->node_guid));
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 20),
			be64_to_cpu(ctx->port1->guid));

	/* one hop: the switch, PortInfo of the far HCA's switch port */
	vsma_core_get(test, agent, va, 1, 0, IB_SMP_ATTR_PORT_INFO, far);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(va->resp.status), VSMA_D);
	KUNIT_EXPECT_EQ(test, d[28], near);		/* LocalPortNum */
	KUNIT_EXPECT_EQ(test, d[32] & 0xf, IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, d[33] >> 4, IB_PORT_PHYS_STATE_LINK_UP);

	ib_unregister_mad_agent(agent);
}

/* A PerfMgt request to the switch's PMA in ctx->in; the answer's status. */
static int vsma_sw_pma(struct vsma_ctx *ctx, u8 class, u8 method, u16 attr,
		       u8 sel, u16 *status)
{
	struct ib_mad *in = (struct ib_mad *)&ctx->in;
	struct ib_mad *out = (struct ib_mad *)&ctx->out;
	int ret;

	memset(in, 0, sizeof(*in));
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = class;
	in->mad_hdr.class_version = 1;
	in->mad_hdr.method = method;
	in->mad_hdr.attr_id = cpu_to_be16(attr);
	in->data[40 + 1] = sel;
	put_unaligned_be16(0xffff, in->data + 40 + 2);
	ret = vmlx_switch_pma(ctx->sw, in, out);
	*status = be16_to_cpu(out->mad_hdr.status);
	return ret;
}

static void vmlx_switch_pma_test(struct kunit *test)
{
	struct vsma_ctx *ctx = test->priv;
	struct vmlx_switch *sw = ctx->sw;
	struct vmlx_fport *end = &sw->ports[1];
	const u8 *d = ((struct ib_pma_mad *)&ctx->out)->data;
	u64 base[VMLX_PMA_NUM];
	unsigned long flags;
	u16 st;

	spin_lock_irqsave(&sw->lock, flags);
	memcpy(base, end->pma_base, sizeof(base));
	spin_unlock_irqrestore(&sw->lock, flags);

	/* clear, then traffic of known size on switch port 1 */
	KUNIT_ASSERT_EQ(test, vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT,
					  IB_MGMT_METHOD_SET, 0x12, 1, &st),
			VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, st, 0);
	KUNIT_EXPECT_EQ(test, ctx->out.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32), 0U);
	KUNIT_ASSERT_EQ(test, vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT,
					  IB_MGMT_METHOD_SET, 0x1d, 1, &st),
			VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 40), 0ULL);
	atomic64_add(5, &end->cnt.xmit_packets);
	atomic64_add(5 * (100 + VMLX_VCRC_BYTES), &end->cnt.xmit_bytes);
	atomic64_add(3, &end->cnt.rcv_packets);
	atomic64_add(3 * (40 + VMLX_VCRC_BYTES), &end->cnt.rcv_bytes);
	atomic64_add(2, &end->cnt.relay_errors);

	KUNIT_ASSERT_EQ(test, vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT,
					  IB_MGMT_METHOD_GET, 0x12, 1, &st),
			VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, st, 0);
	KUNIT_EXPECT_EQ(test, d[1], 1);				/* PortSelect */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 12), 2);	/* relay */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 24), 125U);	/* XmitData */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 28), 30U);	/* RcvData */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32), 5U);	/* XmitPkts */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 36), 3U);	/* RcvPkts */
	KUNIT_ASSERT_EQ(test, vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT,
					  IB_MGMT_METHOD_GET, 0x1d, 1, &st),
			VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8), 125ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 40), 5ULL);	/* ucast */

	/* PortSelect: 0 is port 0, past the last port and 0xFF are not */
	vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_GET, 0x12, 0,
		    &st);
	KUNIT_EXPECT_EQ(test, st, 0);
	vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_GET, 0x12,
		    sw->num_ports + 1, &st);
	KUNIT_EXPECT_EQ(test, st, VSMA_BAD_ATTR);
	vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_GET, 0x12,
		    0xff, &st);
	KUNIT_EXPECT_EQ(test, st, VSMA_BAD_ATTR);
	/* ClassPortInfo; an unknown attribute, method, class, version */
	vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_GET, 0x01, 0,
		    &st);
	KUNIT_EXPECT_EQ(test, st, 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 2), 0x1200);
	vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_GET, 0x16, 1,
		    &st);
	KUNIT_EXPECT_EQ(test, st, VSMA_UNSUP);
	vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_SEND, 0x12,
		    1, &st);
	KUNIT_EXPECT_EQ(test, st, IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
	vsma_sw_pma(ctx, IB_MGMT_CLASS_SUBN_ADM, IB_MGMT_METHOD_GET, 0x12, 1,
		    &st);
	KUNIT_EXPECT_EQ(test, st, VSMA_UNSUP);
	KUNIT_EXPECT_EQ(test, ctx->out.method, IB_MGMT_METHOD_GET_RESP);
	ctx->in.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	ctx->in.class_version = 2;
	KUNIT_EXPECT_EQ(test, vmlx_switch_pma(sw, (struct ib_mad *)&ctx->in,
					      (struct ib_mad *)&ctx->out),
			VSMA_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->out.status),
			IB_MGMT_MAD_STATUS_BAD_VERSION);
	/* responses and traps are not answered */
	KUNIT_EXPECT_EQ(test, vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT,
					  IB_MGMT_METHOD_GET_RESP, 0x12, 1,
					  &st),
			IB_MAD_RESULT_FAILURE);
	KUNIT_EXPECT_EQ(test, vsma_sw_pma(ctx, IB_MGMT_CLASS_PERF_MGMT,
					  IB_MGMT_METHOD_TRAP, 0x12, 1, &st),
			IB_MAD_RESULT_FAILURE);

	/* put back what the test added */
	atomic64_sub(5, &end->cnt.xmit_packets);
	atomic64_sub(5 * (100 + VMLX_VCRC_BYTES), &end->cnt.xmit_bytes);
	atomic64_sub(3, &end->cnt.rcv_packets);
	atomic64_sub(3 * (40 + VMLX_VCRC_BYTES), &end->cnt.rcv_bytes);
	atomic64_sub(2, &end->cnt.relay_errors);
	spin_lock_irqsave(&sw->lock, flags);
	memcpy(end->pma_base, base, sizeof(base));
	spin_unlock_irqrestore(&sw->lock, flags);
}

static struct kunit_case vmlx_sma_cases[] = {
	KUNIT_CASE(vmlx_sma_node_info_test),
	KUNIT_CASE(vmlx_sma_port_info_layout_test),
	KUNIT_CASE(vmlx_sma_set_lid_test),
	KUNIT_CASE(vmlx_sma_state_machine_test),
	KUNIT_CASE(vmlx_sma_state_next_test),
	KUNIT_CASE(vmlx_sma_pkey_guid_test),
	KUNIT_CASE(vmlx_sma_mkey_test),
	KUNIT_CASE(vmlx_sma_decline_test),
	KUNIT_CASE(vmlx_pma_test),
	KUNIT_CASE(vmlx_switch_sma_test),
	KUNIT_CASE(vmlx_switch_tables_test),
	KUNIT_CASE(vmlx_switch_dr_rules_test),
	KUNIT_CASE(vmlx_switch_dr_fabric_test),
	KUNIT_CASE(vmlx_switch_lft_forwarding_test),
	KUNIT_CASE(vmlx_switch_pma_test),
	KUNIT_CASE(vmlx_sma_mad_core_test),
	{}
};

static struct kunit_suite vmlx_sma_suite = {
	.name = "vmlx_sma",
	.init = vsma_init,
	.exit = vsma_exit,
	.test_cases = vmlx_sma_cases,
};

kunit_test_suites(&vmlx_sma_suite);

/* what the driver exports for the suites alone (VISIBLE_IF_KUNIT) */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
