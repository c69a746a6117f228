// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The QP state machine rules: which Modify QP state transitions exist and,
 * for each of them and each QP type, which attributes the caller must
 * supply and which it may supply (IBA vol. 1, 11.2.5, "QP state transition
 * properties").  Drivers call ib_modify_qp_is_ok() before they act on a
 * modify request, so that every device enforces the same rules.
 *
 * The outcome is that of Linux 6.1 for every input, including its
 * choices where the specification is silent or loose: RESET -> ERR is not
 * a transition, SQE -> RTS is a transition without attributes for the
 * connected and raw packet types, and IB_QP_RATE_LIMIT may be changed on
 * raw packet QPs going to or staying in RTS.
 *
 * The rules are data: a bitmap of the target states each state may move
 * to, and a list of rows giving the required and optional attributes of
 * one transition for a set of QP types.  A valid transition with no row
 * for a QP type takes no attributes for that type.
 */
#include <linux/bits.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#define QPS(s)		BIT(IB_QPS_##s)

/*
 * qp_next_states[cur]: the states a QP in state @cur may be moved to.
 * Any state but RESET may go to ERR; every state may go to RESET.
 */
static const u8 qp_next_states[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET]	= QPS(RESET) | QPS(INIT),
	[IB_QPS_INIT]	= QPS(RESET) | QPS(INIT) | QPS(RTR) | QPS(ERR),
	[IB_QPS_RTR]	= QPS(RESET) | QPS(RTS) | QPS(ERR),
	[IB_QPS_RTS]	= QPS(RESET) | QPS(RTS) | QPS(SQD) | QPS(ERR),
	[IB_QPS_SQD]	= QPS(RESET) | QPS(RTS) | QPS(SQD) | QPS(ERR),
	[IB_QPS_SQE]	= QPS(RESET) | QPS(RTS) | QPS(ERR),
	[IB_QPS_ERR]	= QPS(RESET) | QPS(ERR),
};

/* Sets of QP types, as bits of a row's @types. */
#define QPT(t)		BIT(IB_QPT_##t)
#define QPT_MAD		(QPT(SMI) | QPT(GSI))
#define QPT_DGRAM	(QPT(UD) | QPT_MAD)
#define QPT_CONN	(QPT(UC) | QPT(RC) | QPT(XRC_INI) | QPT(XRC_TGT))
#define QPT_ALL_BUT_RAW	(QPT_DGRAM | QPT_CONN)

/* Attribute groups that recur in the rows below. */
#define ADDR_DGRAM	(IB_QP_PKEY_INDEX | IB_QP_QKEY)
#define ADDR_CONN	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define PATH_RTR	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
			 IB_QP_RQ_PSN)
#define RESP_RTR	(IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define REQ_RETRY	(IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY)
#define REQ_RTS		(REQ_RETRY | IB_QP_SQ_PSN | \
			 IB_QP_MAX_QP_RD_ATOMIC)
#define MIGRATE		(IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | \
			 IB_QP_PATH_MIG_STATE)
#define REPATH_SQD	(IB_QP_PORT | IB_QP_AV | IB_QP_PKEY_INDEX | MIGRATE)

/**
 * struct qp_rule - the attributes of one transition for some QP types
 * @cur: the state the QP is in
 * @next: the state it is moved to
 * @types: the QP types this row is for, BIT(enum ib_qp_type) each
 * @required: the attributes the caller must give
 * @optional: the attributes the caller may give as well
 */
struct qp_rule {
	u8 cur;
	u8 next;
	u16 types;
	u32 required;
	u32 optional;
};

#define RULE(c, n, t, req, opt) {					\
	.cur = IB_QPS_##c, .next = IB_QPS_##n, .types = (t),		\
	.required = (req), .optional = (opt)				\
}

static const struct qp_rule qp_rules[] = {
	/* RESET -> INIT: the QP gets its port, partition and access rights */
	RULE(RESET, INIT, QPT(UD), ADDR_DGRAM | IB_QP_PORT, 0),
	RULE(RESET, INIT, QPT_MAD, ADDR_DGRAM, 0),
	RULE(RESET, INIT, QPT_CONN, ADDR_CONN, 0),
	RULE(RESET, INIT, QPT(RAW_PACKET), IB_QP_PORT, 0),

	/* INIT -> INIT: the same, all of it optional */
	RULE(INIT, INIT, QPT(UD), 0, ADDR_DGRAM | IB_QP_PORT),
	RULE(INIT, INIT, QPT_MAD, 0, ADDR_DGRAM),
	RULE(INIT, INIT, QPT_CONN, 0, ADDR_CONN),

	/* INIT -> RTR: connected QPs learn the remote end */
	RULE(INIT, RTR, QPT_DGRAM, 0, ADDR_DGRAM),
	RULE(INIT, RTR, QPT(UC) | QPT(XRC_INI), PATH_RTR,
	     IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX),
	RULE(INIT, RTR, QPT(RC) | QPT(XRC_TGT), PATH_RTR | RESP_RTR,
	     IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX),

	/* RTR -> RTS: the send side starts */
	RULE(RTR, RTS, QPT_DGRAM, IB_QP_SQ_PSN, IB_QP_CUR_STATE | IB_QP_QKEY),
	RULE(RTR, RTS, QPT(UC), IB_QP_SQ_PSN, IB_QP_CUR_STATE | MIGRATE),
	RULE(RTR, RTS, QPT(RC), REQ_RTS,
	     IB_QP_CUR_STATE | MIGRATE | IB_QP_MIN_RNR_TIMER),
	RULE(RTR, RTS, QPT(XRC_INI), REQ_RTS, IB_QP_CUR_STATE | MIGRATE),
	RULE(RTR, RTS, QPT(XRC_TGT), IB_QP_TIMEOUT | IB_QP_SQ_PSN,
	     IB_QP_CUR_STATE | MIGRATE | IB_QP_MIN_RNR_TIMER),
	RULE(RTR, RTS, QPT(RAW_PACKET), 0, IB_QP_RATE_LIMIT),

	/* RTS -> RTS and SQD -> RTS: only a few things may change */
	RULE(RTS, RTS, QPT_DGRAM, 0, IB_QP_CUR_STATE | IB_QP_QKEY),
	RULE(RTS, RTS, QPT(UC) | QPT(XRC_INI), 0, IB_QP_CUR_STATE | MIGRATE),
	RULE(RTS, RTS, QPT(RC) | QPT(XRC_TGT), 0,
	     IB_QP_CUR_STATE | MIGRATE | IB_QP_MIN_RNR_TIMER),
	RULE(RTS, RTS, QPT(RAW_PACKET), 0, IB_QP_RATE_LIMIT),

	RULE(SQD, RTS, QPT_DGRAM, 0, IB_QP_CUR_STATE | IB_QP_QKEY),
	RULE(SQD, RTS, QPT(UC) | QPT(XRC_INI), 0, IB_QP_CUR_STATE | MIGRATE),
	RULE(SQD, RTS, QPT(RC) | QPT(XRC_TGT), 0,
	     IB_QP_CUR_STATE | MIGRATE | IB_QP_MIN_RNR_TIMER),

	/* RTS -> SQD: drain the send queue, optionally with an event */
	RULE(RTS, SQD, QPT_ALL_BUT_RAW, 0, IB_QP_EN_SQD_ASYNC_NOTIFY),

	/* SQD -> SQD: the send queue is drained, the path may be redone */
	RULE(SQD, SQD, QPT_DGRAM, 0, ADDR_DGRAM),
	RULE(SQD, SQD, QPT(UC), 0, IB_QP_AV | IB_QP_PKEY_INDEX | MIGRATE),
	RULE(SQD, SQD, QPT(RC), 0,
	     REPATH_SQD | REQ_RETRY | IB_QP_MAX_QP_RD_ATOMIC | RESP_RTR),
	RULE(SQD, SQD, QPT(XRC_INI), 0,
	     REPATH_SQD | REQ_RETRY | IB_QP_MAX_QP_RD_ATOMIC),
	RULE(SQD, SQD, QPT(XRC_TGT), 0, REPATH_SQD | IB_QP_TIMEOUT | RESP_RTR),

	/* SQE -> RTS: recovery from a send queue error (other types: none) */
	RULE(SQE, RTS, QPT_DGRAM, 0, IB_QP_CUR_STATE | IB_QP_QKEY),
	RULE(SQE, RTS, QPT(UC), 0, IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS),
};

/**
 * ib_modify_qp_is_ok - check a Modify QP request against the QP state rules
 * @cur_state: the state the QP is in
 * @next_state: the state the request moves it to
 * @type: the QP's type
 * @mask: the attributes the request gives; IB_QP_STATE may be in it or not
 *
 * Checks that @cur_state may go to @next_state for a QP of type @type, that
 * @mask holds every attribute that transition requires for that type and
 * none that it does not allow.  A request that names IB_QP_CUR_STATE is
 * only valid from RTR, RTS, SQD or SQE.  QP types below IB_QPT_MAX that
 * the rules do not name (the raw IPv6 and Ethertype types) take no
 * attributes.  Out of range states or types, which may come from
 * userspace, are refused.
 *
 * Context: any context.
 *
 * Return: true if the request is valid, false otherwise.
 */
bool ib_modify_qp_is_ok(enum ib_qp_state cur_state, enum ib_qp_state next_state,
			enum ib_qp_type type, enum ib_qp_attr_mask mask)
{
	u32 cur = cur_state, next = next_state, qpt = type, attrs = mask;
	u32 required = 0, optional = 0;
	unsigned int i;

	if (cur > IB_QPS_ERR || next > IB_QPS_ERR || qpt >= IB_QPT_MAX)
		return false;

	if ((attrs & IB_QP_CUR_STATE) &&
	    !(BIT(cur) & (QPS(RTR) | QPS(RTS) | QPS(SQD) | QPS(SQE))))
		return false;

	if (!(qp_next_states[cur] & BIT(next)))
		return false;

	for (i = 0; i < ARRAY_SIZE(qp_rules); i++) {
		const struct qp_rule *r = &qp_rules[i];

		if (r->cur == cur && r->next == next && (r->types & BIT(qpt))) {
			required = r->required;
			optional = r->optional;
			break;
		}
	}

	if ((attrs & required) != required)
		return false;

	return !(attrs & ~(required | optional | IB_QP_STATE));
}
EXPORT_SYMBOL(ib_modify_qp_is_ok);
