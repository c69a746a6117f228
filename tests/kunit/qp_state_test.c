// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the QP state transition rules, ib_modify_qp_is_ok().
 *
 * The expected rules are written out below as text, one row per
 * transition and QP type, in the words of the IBA specification's "QP
 * state transition properties" table (vol. 1, 11.2.5) as Linux 6.1 applies
 * it.  They are deliberately not the implementation's table: the tests
 * parse the rows and check every QP type, every pair of states and every
 * attribute bit against ib_modify_qp_is_ok(), so a slip in either place
 * shows up as a failure.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#define QPT_ROW_LINES	3

/**
 * struct qpt_row - what one transition takes for some QP types
 * @trans: "FROM>TO", state names as in enum ib_qp_state without IB_QPS_
 * @types: QP type names separated by spaces (enum ib_qp_type without
 *	IB_QPT_), or "all" for every type in qpt_types[]
 * @req: the attributes that must be given: enum ib_qp_attr_mask names
 *	without IB_QP_, separated by spaces, on up to QPT_ROW_LINES lines
 * @opt: the attributes that may be given as well, the same way
 *
 * A transition is valid if and only if it has rows, and then it has
 * exactly one row for each type in qpt_types[].
 */
struct qpt_row {
	const char *trans;
	const char *types;
	const char *req[QPT_ROW_LINES];
	const char *opt[QPT_ROW_LINES];
};

static const struct qpt_row qpt_rows[] = {
	/*
	 * Every state may be reset, and every state but RESET may be moved
	 * to ERR, without attributes.  (RESET -> ERR is not a transition
	 * in Linux.)
	 */
	{ "RESET>RESET",	"all" },
	{ "INIT>RESET",		"all" },
	{ "RTR>RESET",		"all" },
	{ "RTS>RESET",		"all" },
	{ "SQD>RESET",		"all" },
	{ "SQE>RESET",		"all" },
	{ "ERR>RESET",		"all" },
	{ "INIT>ERR",		"all" },
	{ "RTR>ERR",		"all" },
	{ "RTS>ERR",		"all" },
	{ "SQD>ERR",		"all" },
	{ "SQE>ERR",		"all" },
	{ "ERR>ERR",		"all" },

	{ "RESET>INIT", "UD",
	  .req = { "PKEY_INDEX PORT QKEY" } },
	{ "RESET>INIT", "UC",
	  .req = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "RESET>INIT", "RC",
	  .req = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "RESET>INIT", "SMI",
	  .req = { "PKEY_INDEX QKEY" } },
	{ "RESET>INIT", "GSI",
	  .req = { "PKEY_INDEX QKEY" } },
	{ "RESET>INIT", "XRC_INI",
	  .req = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "RESET>INIT", "XRC_TGT",
	  .req = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "RESET>INIT", "RAW_PACKET",
	  .req = { "PORT" } },

	{ "INIT>INIT", "UD",
	  .opt = { "PKEY_INDEX PORT QKEY" } },
	{ "INIT>INIT", "UC",
	  .opt = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "INIT>INIT", "RC",
	  .opt = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "INIT>INIT", "SMI",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "INIT>INIT", "GSI",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "INIT>INIT", "XRC_INI",
	  .opt = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "INIT>INIT", "XRC_TGT",
	  .opt = { "PKEY_INDEX PORT ACCESS_FLAGS" } },
	{ "INIT>INIT", "RAW_PACKET" },

	{ "INIT>RTR", "UD",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "INIT>RTR", "UC",
	  .req = { "AV PATH_MTU DEST_QPN RQ_PSN" },
	  .opt = { "ALT_PATH ACCESS_FLAGS PKEY_INDEX" } },
	{ "INIT>RTR", "RC",
	  .req = { "AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC",
		   "MIN_RNR_TIMER" },
	  .opt = { "ALT_PATH ACCESS_FLAGS PKEY_INDEX" } },
	{ "INIT>RTR", "SMI",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "INIT>RTR", "GSI",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "INIT>RTR", "XRC_INI",
	  .req = { "AV PATH_MTU DEST_QPN RQ_PSN" },
	  .opt = { "ALT_PATH ACCESS_FLAGS PKEY_INDEX" } },
	{ "INIT>RTR", "XRC_TGT",
	  .req = { "AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC",
		   "MIN_RNR_TIMER" },
	  .opt = { "ALT_PATH ACCESS_FLAGS PKEY_INDEX" } },
	{ "INIT>RTR", "RAW_PACKET" },

	{ "RTR>RTS", "UD",
	  .req = { "SQ_PSN" },
	  .opt = { "CUR_STATE QKEY" } },
	{ "RTR>RTS", "UC",
	  .req = { "SQ_PSN" },
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE" } },
	{ "RTR>RTS", "RC",
	  .req = { "SQ_PSN TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC" },
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER",
		   "PATH_MIG_STATE" } },
	{ "RTR>RTS", "SMI",
	  .req = { "SQ_PSN" },
	  .opt = { "CUR_STATE QKEY" } },
	{ "RTR>RTS", "GSI",
	  .req = { "SQ_PSN" },
	  .opt = { "CUR_STATE QKEY" } },
	{ "RTR>RTS", "XRC_INI",
	  .req = { "SQ_PSN TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC" },
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE" } },
	{ "RTR>RTS", "XRC_TGT",
	  .req = { "SQ_PSN TIMEOUT" },
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER",
		   "PATH_MIG_STATE" } },
	{ "RTR>RTS", "RAW_PACKET",
	  .opt = { "RATE_LIMIT" } },

	{ "RTS>RTS", "UD",
	  .opt = { "CUR_STATE QKEY" } },
	{ "RTS>RTS", "UC",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE" } },
	{ "RTS>RTS", "RC",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER",
		   "PATH_MIG_STATE" } },
	{ "RTS>RTS", "SMI",
	  .opt = { "CUR_STATE QKEY" } },
	{ "RTS>RTS", "GSI",
	  .opt = { "CUR_STATE QKEY" } },
	{ "RTS>RTS", "XRC_INI",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE" } },
	{ "RTS>RTS", "XRC_TGT",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER",
		   "PATH_MIG_STATE" } },
	{ "RTS>RTS", "RAW_PACKET",
	  .opt = { "RATE_LIMIT" } },

	{ "RTS>SQD", "UD",
	  .opt = { "EN_SQD_ASYNC_NOTIFY" } },
	{ "RTS>SQD", "UC",
	  .opt = { "EN_SQD_ASYNC_NOTIFY" } },
	{ "RTS>SQD", "RC",
	  .opt = { "EN_SQD_ASYNC_NOTIFY" } },
	{ "RTS>SQD", "SMI",
	  .opt = { "EN_SQD_ASYNC_NOTIFY" } },
	{ "RTS>SQD", "GSI",
	  .opt = { "EN_SQD_ASYNC_NOTIFY" } },
	{ "RTS>SQD", "XRC_INI",
	  .opt = { "EN_SQD_ASYNC_NOTIFY" } },
	{ "RTS>SQD", "XRC_TGT",
	  .opt = { "EN_SQD_ASYNC_NOTIFY" } },
	{ "RTS>SQD", "RAW_PACKET" },

	{ "SQD>RTS", "UD",
	  .opt = { "CUR_STATE QKEY" } },
	{ "SQD>RTS", "UC",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE" } },
	{ "SQD>RTS", "RC",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER",
		   "PATH_MIG_STATE" } },
	{ "SQD>RTS", "SMI",
	  .opt = { "CUR_STATE QKEY" } },
	{ "SQD>RTS", "GSI",
	  .opt = { "CUR_STATE QKEY" } },
	{ "SQD>RTS", "XRC_INI",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE" } },
	{ "SQD>RTS", "XRC_TGT",
	  .opt = { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER",
		   "PATH_MIG_STATE" } },
	{ "SQD>RTS", "RAW_PACKET" },

	{ "SQD>SQD", "UD",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "SQD>SQD", "UC",
	  .opt = { "AV ALT_PATH ACCESS_FLAGS PKEY_INDEX PATH_MIG_STATE" } },
	{ "SQD>SQD", "RC",
	  .opt = { "PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC",
		   "MAX_DEST_RD_ATOMIC ALT_PATH ACCESS_FLAGS PKEY_INDEX",
		   "MIN_RNR_TIMER PATH_MIG_STATE" } },
	{ "SQD>SQD", "SMI",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "SQD>SQD", "GSI",
	  .opt = { "PKEY_INDEX QKEY" } },
	{ "SQD>SQD", "XRC_INI",
	  .opt = { "PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC",
		   "ALT_PATH ACCESS_FLAGS PKEY_INDEX PATH_MIG_STATE" } },
	{ "SQD>SQD", "XRC_TGT",
	  .opt = { "PORT AV TIMEOUT MAX_DEST_RD_ATOMIC ALT_PATH ACCESS_FLAGS",
		   "PKEY_INDEX MIN_RNR_TIMER PATH_MIG_STATE" } },
	{ "SQD>SQD", "RAW_PACKET" },

	/*
	 * The specification has SQE only for unreliable QPs; Linux lets the
	 * other types make the transition too, without attributes.
	 */
	{ "SQE>RTS", "UD",
	  .opt = { "CUR_STATE QKEY" } },
	{ "SQE>RTS", "UC",
	  .opt = { "CUR_STATE ACCESS_FLAGS" } },
	{ "SQE>RTS", "RC" },
	{ "SQE>RTS", "SMI",
	  .opt = { "CUR_STATE QKEY" } },
	{ "SQE>RTS", "GSI",
	  .opt = { "CUR_STATE QKEY" } },
	{ "SQE>RTS", "XRC_INI" },
	{ "SQE>RTS", "XRC_TGT" },
	{ "SQE>RTS", "RAW_PACKET" },
};

/* Names used in the rows, and what they stand for. */
struct qpt_name {
	const char *name;
	u32 val;
};

#define QPT_STATE(s)	{ #s, IB_QPS_##s }
static const struct qpt_name qpt_state_names[] = {
	QPT_STATE(RESET), QPT_STATE(INIT), QPT_STATE(RTR), QPT_STATE(RTS),
	QPT_STATE(SQD), QPT_STATE(SQE), QPT_STATE(ERR),
};

#define QPT_TYPE(t)	{ #t, IB_QPT_##t }
/* The QP types whose rules the rows give; "all" means these. */
static const struct qpt_name qpt_types[] = {
	QPT_TYPE(UD), QPT_TYPE(UC), QPT_TYPE(RC), QPT_TYPE(SMI),
	QPT_TYPE(GSI), QPT_TYPE(XRC_INI), QPT_TYPE(XRC_TGT),
	QPT_TYPE(RAW_PACKET),
};

#define QPT_ATTR(a)	{ #a, IB_QP_##a }
static const struct qpt_name qpt_attr_names[] = {
	QPT_ATTR(CUR_STATE), QPT_ATTR(EN_SQD_ASYNC_NOTIFY),
	QPT_ATTR(ACCESS_FLAGS), QPT_ATTR(PKEY_INDEX), QPT_ATTR(PORT),
	QPT_ATTR(QKEY), QPT_ATTR(AV), QPT_ATTR(PATH_MTU), QPT_ATTR(TIMEOUT),
	QPT_ATTR(RETRY_CNT), QPT_ATTR(RNR_RETRY), QPT_ATTR(RQ_PSN),
	QPT_ATTR(MAX_QP_RD_ATOMIC), QPT_ATTR(ALT_PATH),
	QPT_ATTR(MIN_RNR_TIMER), QPT_ATTR(SQ_PSN),
	QPT_ATTR(MAX_DEST_RD_ATOMIC), QPT_ATTR(PATH_MIG_STATE),
	QPT_ATTR(CAP), QPT_ATTR(DEST_QPN), QPT_ATTR(RATE_LIMIT),
};

/* The attribute bits a caller could name: bits 0..20 and RATE_LIMIT. */
#define QPT_KNOWN_BITS	(IB_QP_ATTR_STANDARD_BITS | IB_QP_RATE_LIMIT)

static bool qpt_lookup(const struct qpt_name *names, size_t n,
		       const char *word, size_t len, u32 *val)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strlen(names[i].name) == len &&
		    !strncmp(names[i].name, word, len)) {
			*val = names[i].val;
			return true;
		}
	}
	return false;
}

static const char *qpt_state_name(u32 state)
{
	return state < ARRAY_SIZE(qpt_state_names) ?
		qpt_state_names[state].name : "?";
}

static const char *qpt_type_name(u32 type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(qpt_types); i++)
		if (qpt_types[i].val == type)
			return qpt_types[i].name;
	return "?";
}

/*
 * The names in the space-separated list @s, ORed together: their values,
 * or BIT(value) each if @as_bits.  A name not in @names fails the test.
 */
static u32 qpt_parse_list(struct kunit *test, const char *s,
			  const struct qpt_name *names, size_t n, bool as_bits)
{
	u32 bits = 0, val;
	size_t len;

	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		len = strcspn(s, " ");
		if (qpt_lookup(names, n, s, len, &val))
			bits |= as_bits ? BIT(val) : val;
		else
			KUNIT_FAIL(test, "unknown name '%.*s'", (int)len, s);
		s += len;
	}
	return bits;
}

/* The attributes named on the lines of a row's @req or @opt. */
static u32 qpt_parse_attrs(struct kunit *test,
			   const char * const lines[QPT_ROW_LINES])
{
	u32 bits = 0;
	size_t i;

	for (i = 0; i < QPT_ROW_LINES && lines[i]; i++)
		bits |= qpt_parse_list(test, lines[i], qpt_attr_names,
				       ARRAY_SIZE(qpt_attr_names), false);
	return bits;
}

/* The types of a row, as BIT(enum ib_qp_type) each. */
static u32 qpt_row_types(struct kunit *test, const struct qpt_row *row)
{
	u32 bits = 0;
	size_t i;

	if (strcmp(row->types, "all"))
		return qpt_parse_list(test, row->types, qpt_types,
				      ARRAY_SIZE(qpt_types), true);
	for (i = 0; i < ARRAY_SIZE(qpt_types); i++)
		bits |= BIT(qpt_types[i].val);
	return bits;
}

/* Whether @row is about the transition @cur -> @next. */
static bool qpt_row_is(struct kunit *test, const struct qpt_row *row,
		       u32 cur, u32 next)
{
	const char *sep = strchr(row->trans, '>');
	u32 from, to;

	if (!sep ||
	    !qpt_lookup(qpt_state_names, ARRAY_SIZE(qpt_state_names),
			row->trans, sep - row->trans, &from) ||
	    !qpt_lookup(qpt_state_names, ARRAY_SIZE(qpt_state_names),
			sep + 1, strlen(sep + 1), &to)) {
		KUNIT_FAIL(test, "bad transition '%s'", row->trans);
		return false;
	}
	return from == cur && to == next;
}

/**
 * struct qpt_expect - what the rows say about one transition of one type
 * @valid: the transition exists
 * @req: the attributes it requires
 * @opt: the attributes it allows besides
 */
struct qpt_expect {
	bool valid;
	u32 req;
	u32 opt;
};

static struct qpt_expect qpt_expected(struct kunit *test, u32 cur, u32 next,
				      u32 type)
{
	struct qpt_expect e = { };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(qpt_rows); i++) {
		const struct qpt_row *row = &qpt_rows[i];

		if (!qpt_row_is(test, row, cur, next))
			continue;
		e.valid = true;
		if (qpt_row_types(test, row) & BIT(type)) {
			e.req = qpt_parse_attrs(test, row->req);
			e.opt = qpt_parse_attrs(test, row->opt);
			break;
		}
	}
	return e;
}

/* Every (current state, next state) pair, 49 of them. */
#define QPT_NSTATES	(IB_QPS_ERR + 1)
#define QPT_NPAIRS	(QPT_NSTATES * QPT_NSTATES)
#define QPT_CUR(pair)	((pair) / QPT_NSTATES)
#define QPT_NEXT(pair)	((pair) % QPT_NSTATES)

static bool qpt_ok(u32 cur, u32 next, u32 type, u32 mask)
{
	return ib_modify_qp_is_ok((enum ib_qp_state)cur,
				  (enum ib_qp_state)next,
				  (enum ib_qp_type)type,
				  (enum ib_qp_attr_mask)mask);
}

/* Expects ib_modify_qp_is_ok() to say @want of @mask on @pair for @type. */
static void qpt_expect(struct kunit *test, bool want, unsigned int pair,
		       u32 type, u32 mask, const char *why)
{
	u32 cur = QPT_CUR(pair), next = QPT_NEXT(pair);

	KUNIT_EXPECT_EQ_MSG(test, qpt_ok(cur, next, type, mask), want,
			    "%s %s>%s mask %#x: %s", qpt_type_name(type),
			    qpt_state_name(cur), qpt_state_name(next), mask,
			    why);
}

static void qpt_type_desc(const struct qpt_name *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qpt_type, qpt_types, qpt_type_desc);

static u32 qpt_param_type(struct kunit *test)
{
	return ((const struct qpt_name *)test->param_value)->val;
}

/* The rows of @cur -> @next, if any, give each QP type exactly once. */
static void qpt_check_rows_of(struct kunit *test, u32 cur, u32 next)
{
	unsigned int nrows = 0, count[ARRAY_SIZE(qpt_types)] = { };
	size_t i, t;

	for (i = 0; i < ARRAY_SIZE(qpt_rows); i++) {
		u32 types;

		if (!qpt_row_is(test, &qpt_rows[i], cur, next))
			continue;
		nrows++;
		types = qpt_row_types(test, &qpt_rows[i]);
		for (t = 0; t < ARRAY_SIZE(qpt_types); t++)
			if (types & BIT(qpt_types[t].val))
				count[t]++;
	}
	if (!nrows)
		return;
	for (t = 0; t < ARRAY_SIZE(qpt_types); t++)
		KUNIT_EXPECT_EQ_MSG(test, count[t], 1U, "%s>%s: rows for %s",
				    qpt_state_name(cur), qpt_state_name(next),
				    qpt_types[t].name);
}

/*
 * The rows themselves: every name is known, no attribute is both
 * required and optional, and each transition that has rows has exactly
 * one for each QP type.
 */
static void qp_rules_rows_consistent(struct kunit *test)
{
	unsigned int pair;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(qpt_rows); i++) {
		const struct qpt_row *row = &qpt_rows[i];

		qpt_row_is(test, row, 0, 0);
		KUNIT_EXPECT_NE_MSG(test, qpt_row_types(test, row), 0U,
				    "row %zu has no type", i);
		KUNIT_EXPECT_EQ_MSG(test, qpt_parse_attrs(test, row->req) &
				    qpt_parse_attrs(test, row->opt), 0U,
				    "row %zu: required and optional", i);
	}

	for (pair = 0; pair < QPT_NPAIRS; pair++)
		qpt_check_rows_of(test, QPT_CUR(pair), QPT_NEXT(pair));
}

/*
 * Which of the 49 state pairs are transitions: with the required
 * attributes they are accepted; the others are refused whatever the mask.
 */
static void qp_transition_validity(struct kunit *test)
{
	u32 type = qpt_param_type(test), b;
	unsigned int pair, nvalid = 0;

	for (pair = 0; pair < QPT_NPAIRS; pair++) {
		struct qpt_expect e = qpt_expected(test, QPT_CUR(pair),
						   QPT_NEXT(pair), type);

		if (e.valid) {
			nvalid++;
			qpt_expect(test, true, pair, type, e.req,
				   "a transition");
			continue;
		}
		qpt_expect(test, false, pair, type, 0, "not a transition");
		qpt_expect(test, false, pair, type, QPT_KNOWN_BITS,
			   "not a transition");
		for (b = 0; b < 32; b++)
			qpt_expect(test, false, pair, type, BIT(b),
				   "not a transition");
	}
	KUNIT_EXPECT_EQ(test, nvalid, 22U);
}

/*
 * (a) the required attributes alone are accepted, with or without
 * IB_QP_STATE; (b) leaving out any one of them is refused, even with
 * every optional attribute given.
 */
static void qp_required_attrs(struct kunit *test)
{
	u32 type = qpt_param_type(test), b;
	unsigned int pair;

	for (pair = 0; pair < QPT_NPAIRS; pair++) {
		struct qpt_expect e = qpt_expected(test, QPT_CUR(pair),
						   QPT_NEXT(pair), type);

		if (!e.valid)
			continue;
		qpt_expect(test, true, pair, type, e.req,
			   "required attributes only");
		qpt_expect(test, true, pair, type, e.req | IB_QP_STATE,
			   "required attributes and STATE");
		for (b = 0; b < 32; b++) {
			if (!(e.req & BIT(b)))
				continue;
			qpt_expect(test, false, pair, type, e.req & ~BIT(b),
				   "a required attribute missing");
			qpt_expect(test, false, pair, type,
				   (e.req | e.opt | IB_QP_STATE) & ~BIT(b),
				   "a required attribute missing");
		}
	}
}

/*
 * (c) each optional attribute may be added to the required ones, and so
 * may all of them together.
 */
static void qp_optional_attrs(struct kunit *test)
{
	u32 type = qpt_param_type(test), b;
	unsigned int pair;

	for (pair = 0; pair < QPT_NPAIRS; pair++) {
		struct qpt_expect e = qpt_expected(test, QPT_CUR(pair),
						   QPT_NEXT(pair), type);

		if (!e.valid)
			continue;
		for (b = 0; b < 32; b++)
			if (e.opt & BIT(b))
				qpt_expect(test, true, pair, type,
					   e.req | BIT(b),
					   "an optional attribute");
		qpt_expect(test, true, pair, type,
			   e.req | e.opt | IB_QP_STATE,
			   "every optional attribute");
	}
}

/*
 * (d) any other attribute is refused: each of bits 0..20 and RATE_LIMIT
 * that the transition does not take, and the reserved and unknown bits,
 * added to the required attributes or to everything allowed.
 */
static void qp_disallowed_attrs(struct kunit *test)
{
	u32 type = qpt_param_type(test), b;
	unsigned int pair;

	for (pair = 0; pair < QPT_NPAIRS; pair++) {
		struct qpt_expect e = qpt_expected(test, QPT_CUR(pair),
						   QPT_NEXT(pair), type);
		u32 allowed = e.req | e.opt | IB_QP_STATE;

		if (!e.valid)
			continue;
		for (b = 0; b < 32; b++) {
			if (allowed & BIT(b))
				continue;
			qpt_expect(test, false, pair, type, e.req | BIT(b),
				   QPT_KNOWN_BITS & BIT(b) ?
				   "an attribute not allowed" :
				   "a reserved or unknown bit");
			qpt_expect(test, false, pair, type, allowed | BIT(b),
				   "an attribute not allowed");
		}
	}
}

/*
 * IB_QP_CUR_STATE is refused from RESET, INIT and ERR, whatever the
 * transition and the other attributes.
 */
static void qp_cur_state_attr(struct kunit *test)
{
	unsigned int pair;
	size_t t;

	for (pair = 0; pair < QPT_NPAIRS; pair++) {
		if (QPT_CUR(pair) != IB_QPS_RESET &&
		    QPT_CUR(pair) != IB_QPS_INIT &&
		    QPT_CUR(pair) != IB_QPS_ERR)
			continue;
		for (t = 0; t < ARRAY_SIZE(qpt_types); t++) {
			u32 type = qpt_types[t].val;
			struct qpt_expect e = qpt_expected(test, QPT_CUR(pair),
							   QPT_NEXT(pair),
							   type);

			qpt_expect(test, false, pair, type,
				   e.req | e.opt | IB_QP_CUR_STATE,
				   "CUR_STATE from this state");
		}
	}
}

/*
 * The QP types below IB_QPT_MAX that the rows do not list (the raw IPv6
 * and Ethertype QPs of old, and the unused value 7) make the same
 * transitions and take no attribute, as in Linux.
 */
static void qp_unlisted_types(struct kunit *test)
{
	static const u32 types[] = { IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHERTYPE,
				     IB_QPT_RAW_ETHERTYPE + 1 };
	unsigned int pair;
	size_t t;
	u32 b;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (pair = 0; pair < QPT_NPAIRS; pair++) {
			bool valid = qpt_expected(test, QPT_CUR(pair),
						  QPT_NEXT(pair),
						  IB_QPT_UD).valid;

			qpt_expect(test, valid, pair, types[t], 0,
				   "unlisted type");
			qpt_expect(test, valid, pair, types[t], IB_QP_STATE,
				   "unlisted type");
			for (b = 1; b < 32; b++)
				qpt_expect(test, false, pair, types[t], BIT(b),
					   "unlisted type");
		}
	}
}

static void qpt_expect_refused(struct kunit *test, u32 cur, u32 next,
			       u32 type, u32 mask)
{
	KUNIT_EXPECT_FALSE_MSG(test, qpt_ok(cur, next, type, mask),
			       "states %#x>%#x type %#x mask %#x",
			       cur, next, type, mask);
}

/*
 * States past ERR and types from IB_QPT_MAX on are refused, never looked
 * up: these values come from userspace.
 */
static void qp_out_of_range(struct kunit *test)
{
	static const u32 bad_states[] = { IB_QPS_ERR + 1, 8, 0xff, 0x100,
					  INT_MAX, 0x80000000u, U32_MAX };
	static const u32 bad_types[] = { IB_QPT_MAX, IB_QPT_MAX + 1,
					 IB_QPT_DRIVER, 0x100, INT_MAX,
					 0x80000000u, U32_MAX };
	static const u32 masks[] = { 0, IB_QP_STATE, IB_QP_PORT,
				     QPT_KNOWN_BITS, U32_MAX };
	unsigned int pair, s;
	size_t m, i, t;

	for (m = 0; m < ARRAY_SIZE(masks); m++) {
		for (i = 0; i < ARRAY_SIZE(bad_states); i++) {
			u32 bad = bad_states[i];

			qpt_expect_refused(test, bad, bad, IB_QPT_RC, masks[m]);
			/* With every good state on the other side. */
			for (s = 0; s < QPT_NSTATES; s++) {
				qpt_expect_refused(test, bad, s, IB_QPT_UD,
						   masks[m]);
				qpt_expect_refused(test, s, bad, IB_QPT_RC,
						   masks[m]);
			}
		}
		for (t = 0; t < ARRAY_SIZE(bad_types); t++)
			for (pair = 0; pair < QPT_NPAIRS; pair++)
				qpt_expect_refused(test, QPT_CUR(pair),
						   QPT_NEXT(pair),
						   bad_types[t], masks[m]);
	}
}

static struct kunit_case qp_state_test_cases[] = {
	KUNIT_CASE(qp_rules_rows_consistent),
	KUNIT_CASE_PARAM(qp_transition_validity, qpt_type_gen_params),
	KUNIT_CASE_PARAM(qp_required_attrs, qpt_type_gen_params),
	KUNIT_CASE_PARAM(qp_optional_attrs, qpt_type_gen_params),
	KUNIT_CASE_PARAM(qp_disallowed_attrs, qpt_type_gen_params),
	KUNIT_CASE(qp_cur_state_attr),
	KUNIT_CASE(qp_unlisted_types),
	KUNIT_CASE(qp_out_of_range),
	{}
};

static struct kunit_suite qp_state_test_suite = {
	.name = "ib_core_qp_state",
	.test_cases = qp_state_test_cases,
};

kunit_test_suite(qp_state_test_suite);
