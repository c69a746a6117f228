/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's subnet administration (SA) client: the records it asks
 * the subnet manager's SA for (PathRecord, MCMemberRecord, ServiceRecord,
 * ClassPortInfo), in host form with the field names of Linux's ib_sa.h,
 * and the calls of core/sa_query.c (queries) and core/multicast.c
 * (multicast memberships shared by all kernel users).
 *
 * Only InfiniBand exists here: there is no OPA or RoCE form of a record,
 * so struct sa_path_rec keeps its LIDs directly, and the address handle
 * helpers take no net device, GID type or GID attribute (Linux's take
 * them for RoCE).  The wire layouts (IBA 15.2.5) are packed and unpacked
 * by sa_query.c alone.
 */
#ifndef IB_SA_H
#define IB_SA_H

#include <linux/completion.h>
#include <linux/atomic.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

enum {
	IB_SA_CLASS_VERSION		= 2,
	IB_SA_METHOD_GET_TABLE		= 0x12,
	IB_SA_METHOD_GET_TABLE_RESP	= 0x92,
	IB_SA_METHOD_DELETE		= 0x15,
	IB_SA_METHOD_DELETE_RESP	= 0x95,
	IB_SA_METHOD_GET_MULTI		= 0x14,
	IB_SA_METHOD_GET_MULTI_RESP	= 0x94,
	IB_SA_METHOD_GET_TRACE_TBL	= 0x13,
};

/* attribute IDs of the SA class (IBA table 207) */
enum {
	IB_SA_ATTR_CLASS_PORTINFO	= 0x01,
	IB_SA_ATTR_NOTICE		= 0x02,
	IB_SA_ATTR_INFORM_INFO		= 0x03,
	IB_SA_ATTR_NODE_REC		= 0x11,
	IB_SA_ATTR_PORT_INFO_REC	= 0x12,
	IB_SA_ATTR_SL2VL_REC		= 0x13,
	IB_SA_ATTR_SWITCH_REC		= 0x14,
	IB_SA_ATTR_LINEAR_FDB_REC	= 0x15,
	IB_SA_ATTR_RANDOM_FDB_REC	= 0x16,
	IB_SA_ATTR_MCAST_FDB_REC	= 0x17,
	IB_SA_ATTR_SM_INFO_REC		= 0x18,
	IB_SA_ATTR_LINK_REC		= 0x20,
	IB_SA_ATTR_GUID_INFO_REC	= 0x30,
	IB_SA_ATTR_SERVICE_REC		= 0x31,
	IB_SA_ATTR_PARTITION_REC	= 0x33,
	IB_SA_ATTR_PATH_REC		= 0x35,
	IB_SA_ATTR_VL_ARB_REC		= 0x36,
	IB_SA_ATTR_MC_MEMBER_REC	= 0x38,
	IB_SA_ATTR_TRACE_REC		= 0x39,
	IB_SA_ATTR_MULTI_PATH_REC	= 0x3a,
	IB_SA_ATTR_SERVICE_ASSOC_REC	= 0x3b,
	IB_SA_ATTR_INFORM_INFO_REC	= 0xf3,
};

/* how a selector field qualifies the value beside it */
enum ib_sa_selector {
	IB_SA_GT	= 0,	/* greater than the value */
	IB_SA_LT	= 1,	/* less than the value */
	IB_SA_EQ	= 2,	/* exactly the value */
	IB_SA_BEST	= 3,	/* the best the SA has; the value is ignored */
};

/* the JoinState bits of an MCMemberRecord */
enum ib_sa_mc_join_states {
	FULLMEMBER_JOIN,
	NONMEMBER_JOIN,
	SENDONLY_NONMEMBER_JOIN,
	SENDONLY_FULLMEMBER_JOIN,
	NUM_JOIN_MEMBERSHIP_TYPES,
};

/* ClassPortInfo CapabilityMask2 of an SA that takes send-only full joins */
#define IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT	BIT(12)

/*
 * The component mask bits of a PathRecord (IBA 15.2.5.16).  The
 * ServiceID is two components, both set or neither.
 */
#define IB_SA_PATH_REC_SERVICE_ID	(IB_SA_COMP_MASK(0) | IB_SA_COMP_MASK(1))
#define IB_SA_PATH_REC_DGID		IB_SA_COMP_MASK(2)
#define IB_SA_PATH_REC_SGID		IB_SA_COMP_MASK(3)
#define IB_SA_PATH_REC_DLID		IB_SA_COMP_MASK(4)
#define IB_SA_PATH_REC_SLID		IB_SA_COMP_MASK(5)
#define IB_SA_PATH_REC_RAW_TRAFFIC	IB_SA_COMP_MASK(6)
/* 7 is reserved */
#define IB_SA_PATH_REC_FLOW_LABEL	IB_SA_COMP_MASK(8)
#define IB_SA_PATH_REC_HOP_LIMIT	IB_SA_COMP_MASK(9)
#define IB_SA_PATH_REC_TRAFFIC_CLASS	IB_SA_COMP_MASK(10)
#define IB_SA_PATH_REC_REVERSIBLE	IB_SA_COMP_MASK(11)
#define IB_SA_PATH_REC_NUMB_PATH	IB_SA_COMP_MASK(12)
#define IB_SA_PATH_REC_PKEY		IB_SA_COMP_MASK(13)
#define IB_SA_PATH_REC_QOS_CLASS	IB_SA_COMP_MASK(14)
#define IB_SA_PATH_REC_SL		IB_SA_COMP_MASK(15)
#define IB_SA_PATH_REC_MTU_SELECTOR	IB_SA_COMP_MASK(16)
#define IB_SA_PATH_REC_MTU		IB_SA_COMP_MASK(17)
#define IB_SA_PATH_REC_RATE_SELECTOR	IB_SA_COMP_MASK(18)
#define IB_SA_PATH_REC_RATE		IB_SA_COMP_MASK(19)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME_SELECTOR IB_SA_COMP_MASK(20)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME	IB_SA_COMP_MASK(21)
#define IB_SA_PATH_REC_PREFERENCE	IB_SA_COMP_MASK(22)

/**
 * enum sa_path_rec_type - the kind of a path record (only IB here)
 * @SA_PATH_REC_TYPE_IB: an InfiniBand path, LIDs of 16 bits
 */
enum sa_path_rec_type {
	SA_PATH_REC_TYPE_IB,
};

/**
 * struct sa_path_rec - a PathRecord, in host form
 * @dlid: destination LID
 * @slid: source LID (with the path bits of an LMC)
 * @raw_traffic: the path is for raw packets (no GRH/BTH)
 * @dgid: destination GID
 * @sgid: source GID
 * @service_id: the service the path is for (0: any)
 * @flow_label: GRH flow label, 20 bits
 * @hop_limit: GRH hop limit; more than 1 means the path needs a GRH
 * @traffic_class: GRH traffic class
 * @reversible: the reverse path is valid too
 * @numb_path: the most paths a GetTable may return
 * @pkey: the partition
 * @qos_class: QoS class, 12 bits
 * @sl: service level, 4 bits
 * @mtu_selector: an &enum ib_sa_selector for @mtu
 * @mtu: an &enum ib_mtu
 * @rate_selector: an &enum ib_sa_selector for @rate
 * @rate: a rate code of PortInfo/PathRecord (3: 10 Gb/s, ...)
 * @packet_life_time_selector: an &enum ib_sa_selector
 * @packet_life_time: 4.096 us * 2^value
 * @preference: the SA's order of preference among several paths
 * @rec_type: SA_PATH_REC_TYPE_IB
 * @flags: IB_PATH_* flags (none used here)
 */
struct sa_path_rec {
	__be16		dlid;
	__be16		slid;
	u8		raw_traffic;
	union ib_gid	dgid;
	union ib_gid	sgid;
	__be64		service_id;
	__be32		flow_label;
	u8		hop_limit;
	u8		traffic_class;
	u8		reversible;
	u8		numb_path;
	__be16		pkey;
	__be16		qos_class;
	u8		sl;
	u8		mtu_selector;
	u8		mtu;
	u8		rate_selector;
	u8		rate;
	u8		packet_life_time_selector;
	u8		packet_life_time;
	u8		preference;
	enum sa_path_rec_type rec_type;
	u32		flags;
};

/* The LIDs of a path, as Linux's accessors give them (32 bits wide). */
static inline __be32 sa_path_get_dlid(const struct sa_path_rec *rec)
{
	return cpu_to_be32(be16_to_cpu(rec->dlid));
}

static inline __be32 sa_path_get_slid(const struct sa_path_rec *rec)
{
	return cpu_to_be32(be16_to_cpu(rec->slid));
}

static inline void sa_path_set_dlid(struct sa_path_rec *rec, u32 dlid)
{
	rec->dlid = cpu_to_be16(dlid);
}

static inline void sa_path_set_slid(struct sa_path_rec *rec, u32 slid)
{
	rec->slid = cpu_to_be16(slid);
}

/* The component mask bits of an MCMemberRecord (IBA 15.2.5.17). */
#define IB_SA_MCMEMBER_REC_MGID			IB_SA_COMP_MASK(0)
#define IB_SA_MCMEMBER_REC_PORT_GID		IB_SA_COMP_MASK(1)
#define IB_SA_MCMEMBER_REC_QKEY			IB_SA_COMP_MASK(2)
#define IB_SA_MCMEMBER_REC_MLID			IB_SA_COMP_MASK(3)
#define IB_SA_MCMEMBER_REC_MTU_SELECTOR		IB_SA_COMP_MASK(4)
#define IB_SA_MCMEMBER_REC_MTU			IB_SA_COMP_MASK(5)
#define IB_SA_MCMEMBER_REC_TRAFFIC_CLASS	IB_SA_COMP_MASK(6)
#define IB_SA_MCMEMBER_REC_PKEY			IB_SA_COMP_MASK(7)
#define IB_SA_MCMEMBER_REC_RATE_SELECTOR	IB_SA_COMP_MASK(8)
#define IB_SA_MCMEMBER_REC_RATE			IB_SA_COMP_MASK(9)
#define IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME_SELECTOR IB_SA_COMP_MASK(10)
#define IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME	IB_SA_COMP_MASK(11)
#define IB_SA_MCMEMBER_REC_SL			IB_SA_COMP_MASK(12)
#define IB_SA_MCMEMBER_REC_FLOW_LABEL		IB_SA_COMP_MASK(13)
#define IB_SA_MCMEMBER_REC_HOP_LIMIT		IB_SA_COMP_MASK(14)
#define IB_SA_MCMEMBER_REC_SCOPE		IB_SA_COMP_MASK(15)
#define IB_SA_MCMEMBER_REC_JOIN_STATE		IB_SA_COMP_MASK(16)
#define IB_SA_MCMEMBER_REC_PROXY_JOIN		IB_SA_COMP_MASK(17)

/**
 * struct ib_sa_mcmember_rec - an MCMemberRecord, in host form
 * @mgid: the group's GID
 * @port_gid: the member port's GID
 * @qkey: the group's Q_Key
 * @mlid: the group's multicast LID
 * @mtu_selector: an &enum ib_sa_selector for @mtu
 * @mtu: an &enum ib_mtu
 * @traffic_class: GRH traffic class
 * @pkey: the group's partition
 * @rate_selector: an &enum ib_sa_selector for @rate
 * @rate: a rate code of PortInfo/PathRecord (3: 10 Gb/s, ...)
 * @packet_life_time_selector: an &enum ib_sa_selector
 * @packet_life_time: 4.096 us * 2^value
 * @sl: service level
 * @flow_label: GRH flow label, 20 bits
 * @hop_limit: GRH hop limit
 * @scope: the MGID's scope, 4 bits
 * @join_state: BIT() of &enum ib_sa_mc_join_states
 * @proxy_join: the join is made for another port
 */
struct ib_sa_mcmember_rec {
	union ib_gid	mgid;
	union ib_gid	port_gid;
	__be32		qkey;
	__be16		mlid;
	u8		mtu_selector;
	u8		mtu;
	u8		traffic_class;
	__be16		pkey;
	u8		rate_selector;
	u8		rate;
	u8		packet_life_time_selector;
	u8		packet_life_time;
	u8		sl;
	__be32		flow_label;
	u8		hop_limit;
	u8		scope;
	u8		join_state;
	u8		proxy_join;
};

/* The component mask bits of a ServiceRecord (IBA 15.2.5.14). */
#define IB_SA_SERVICE_REC_SERVICE_ID		IB_SA_COMP_MASK(0)
#define IB_SA_SERVICE_REC_SERVICE_GID		IB_SA_COMP_MASK(1)
#define IB_SA_SERVICE_REC_SERVICE_PKEY		IB_SA_COMP_MASK(2)
/* 3 is reserved */
#define IB_SA_SERVICE_REC_SERVICE_LEASE		IB_SA_COMP_MASK(4)
#define IB_SA_SERVICE_REC_SERVICE_KEY		IB_SA_COMP_MASK(5)
#define IB_SA_SERVICE_REC_SERVICE_NAME		IB_SA_COMP_MASK(6)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_0	IB_SA_COMP_MASK(7)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_0	IB_SA_COMP_MASK(23)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_0	IB_SA_COMP_MASK(31)
#define IB_SA_SERVICE_REC_SERVICE_DATA64_0	IB_SA_COMP_MASK(35)

#define IB_DEFAULT_SERVICE_LEASE	0xFFFFFFFF

/**
 * struct ib_sa_service_rec - a ServiceRecord, in host form
 * @id: ServiceID
 * @gid: the GID of the port offering the service
 * @pkey: the partition it is offered in
 * @lease: seconds the record lives, IB_DEFAULT_SERVICE_LEASE for ever
 * @key: ServiceKey
 * @name: ServiceName, NUL-padded
 * @data8: ServiceData8
 * @data16: ServiceData16
 * @data32: ServiceData32
 * @data64: ServiceData64
 */
struct ib_sa_service_rec {
	u64		id;
	union ib_gid	gid;
	__be16		pkey;
	u32		lease;
	u8		key[16];
	u8		name[64];
	u8		data8[16];
	u16		data16[8];
	u32		data32[4];
	u64		data64[2];
};

/**
 * struct ib_sa_client - a kernel user of the SA client
 * @users: the client itself and its queries in flight
 * @comp: completed when @users drops to 0 at unregistration
 *
 * ib_sa_unregister_client() waits until every query the client started
 * has called back.
 */
struct ib_sa_client {
	atomic_t		users;
	struct completion	comp;
};

void ib_sa_register_client(struct ib_sa_client *client);
void ib_sa_unregister_client(struct ib_sa_client *client);

struct ib_sa_query;

void ib_sa_cancel_query(int id, struct ib_sa_query *query);

int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					int num_prs, void *context),
		       void *context, struct ib_sa_query **query);

int ib_sa_service_rec_query(struct ib_sa_client *client,
			    struct ib_device *device, u32 port_num, u8 method,
			    struct ib_sa_service_rec *rec,
			    ib_sa_comp_mask comp_mask,
			    unsigned long timeout_ms, gfp_t gfp_mask,
			    void (*callback)(int status,
					     struct ib_sa_service_rec *resp,
					     void *context),
			    void *context, struct ib_sa_query **sa_query);

bool ib_sa_sendonly_fullmem_support(struct ib_sa_client *client,
				    struct ib_device *device, u32 port_num);

/**
 * struct ib_sa_multicast - a kernel user's membership of a multicast group
 * @rec: the group's record once joined (what the SA answered)
 * @comp_mask: the components of @rec the user asked for
 * @callback: told of the join's result (0 or a negative errno), and later
 *	with -ENETRESET when the membership was lost and is being made
 *	again (then with 0 and the new @rec once it is made, or with the
 *	error that prevented it); a non-zero return frees the membership
 * @context: the user's
 */
struct ib_sa_multicast {
	struct ib_sa_mcmember_rec	rec;
	ib_sa_comp_mask			comp_mask;
	int (*callback)(int status, struct ib_sa_multicast *multicast);
	void				*context;
};

struct ib_sa_multicast *
ib_sa_join_multicast(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, struct ib_sa_mcmember_rec *rec,
		     ib_sa_comp_mask comp_mask, gfp_t gfp_mask,
		     int (*callback)(int status,
				     struct ib_sa_multicast *multicast),
		     void *context);
void ib_sa_free_multicast(struct ib_sa_multicast *multicast);
int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   union ib_gid *mgid, struct ib_sa_mcmember_rec *rec);
int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     struct ib_sa_mcmember_rec *rec,
			     struct rdma_ah_attr *ah_attr);

int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr);

void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute);
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec);

#endif /* IB_SA_H */
