// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nldev: the RDMA_NL_NLDEV netlink client.  Devices, ports, the character
 * devices of the user access modules, the system settings and the tracked
 * resources, as libibverbs, librdmacm and iproute2's "rdma" ask for them.
 *
 * Values go out in host order, GUIDs included (libibverbs turns
 * NODE_GUID back into network order itself).  Replies to a request
 * carry its sequence number and go to its port id; netlink_rcv_skb()
 * adds the ACK or the error.  Dumps put one device (or one port) per
 * message, and for resources as many objects of one device as fit, and
 * remember in the netlink_callback where to go on.
 *
 * A request that is malformed, names no device or port where its command
 * needs one, or one that does not exist, fails with -EINVAL and an
 * extended ACK message saying why (iproute2's "rdma" prints it after
 * "Error:"); the doit commands share nldev_doit() for this and for their
 * reply.
 *
 * Locking: none of its own.  netlink.c runs the callbacks under the
 * client's rw_semaphore; a request holds the device it names
 * (ib_device_get_by_index()) until it is answered, a dump one device at
 * a time (ib_device_get_next()); the privileged Q_Key mode is a byte
 * read and written with READ_ONCE()/WRITE_ONCE().
 */
#include <linux/types.h>
#include <linux/kdev_t.h>
#include <linux/pid_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "cma_priv.h"
#include "core_priv.h"

/* Longest CHARDEV_TYPE, NUL included */
#define NLDEV_CHARDEV_TYPE_SIZE	32

/*
 * Every attribute with its type, so that a malformed request is refused
 * by the parser.  Strings the kernel only sends are limited to the
 * longest the kernel would send.
 */
static const struct nla_policy nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME]		= { .type = NLA_NUL_STRING,
						    .len = IB_DEVICE_NAME_MAX - 1 },
	[RDMA_NLDEV_ATTR_PORT_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CAP_FLAGS]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_FW_VERSION]		= { .type = NLA_NUL_STRING,
						    .len = IB_FW_VERSION_NAME_MAX - 1 },
	[RDMA_NLDEV_ATTR_NODE_GUID]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]	= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SUBNET_PREFIX]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_LID]			= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_SM_LID]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LMC]			= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_STATE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_SUMMARY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] = { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_QP]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_QP_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_LQPN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQPN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQ_PSN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SQ_PSN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_STATE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_PID]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_KERN_NAME]		= { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_RES_CM_ID]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PS]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SRC_ADDR]		= { .type = NLA_BINARY,
			.len = sizeof(struct __kernel_sockaddr_storage) },
	[RDMA_NLDEV_ATTR_RES_DST_ADDR]		= { .type = NLA_BINARY,
			.len = sizeof(struct __kernel_sockaddr_storage) },
	[RDMA_NLDEV_ATTR_RES_CQ]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQ_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_USECNT]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_POLL_CTX]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_MR]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_MR_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_RKEY]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_LKEY]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_IOVA]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_MRLEN]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_PD]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PD_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_NAME]		= { .type = NLA_NUL_STRING,
						    .len = IFNAMSIZ - 1 },
	[RDMA_NLDEV_ATTR_DRIVER]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER_STRING]		= { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_S32]		= { .type = NLA_S32 },
	[RDMA_NLDEV_ATTR_DRIVER_U32]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DRIVER_S64]		= { .type = NLA_S64 },
	[RDMA_NLDEV_ATTR_DRIVER_U64]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_PDN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_MRN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CM_IDN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CTXN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LINK_TYPE]		= { .type = NLA_NUL_STRING,
						    .len = IFNAMSIZ - 1 },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_PROTOCOL]		= { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_NET_NS_FD]			= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE]		= { .type = NLA_NUL_STRING,
				.len = NLDEV_CHARDEV_TYPE_SIZE - 1 },
	[RDMA_NLDEV_ATTR_CHARDEV_NAME]		= { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_CHARDEV_ABI]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_CHARDEV]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_MODE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_RES]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_COUNTER]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_DEV_DIM]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_RAW]		= { .type = NLA_BINARY },
	[RDMA_NLDEV_ATTR_RES_CTX]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CTX_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MIN_RANGE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MAX_RANGE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] = { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_DETAILS]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_SUBTYPE]		= { .type = NLA_NUL_STRING },
};

/*
 * The attributes of a request; any malformed one fails it with -EINVAL.
 * The parser says what was wrong with most; the rest get a message here.
 */
static int nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb,
		       struct netlink_ext_ack *extack)
{
	if (nlmsg_parse_deprecated(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1,
				   nldev_policy, extack)) {
		if (extack && !extack->_msg)
			NL_SET_ERR_MSG_MOD(extack, "malformed attributes");
		return -EINVAL;
	}
	return 0;
}

/*
 * Start a message of the command @nlh asked for, to its sender: a
 * reply of a doit (@flags 0) or one of a dump (NLM_F_MULTI).
 */
static struct nlmsghdr *nldev_put_hdr(struct sk_buff *skb, u32 portid,
				      const struct nlmsghdr *req, int flags)
{
	u16 type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
				    RDMA_NL_GET_OP(req->nlmsg_type));

	return nlmsg_put(skb, portid, req->nlmsg_seq, type, 0, flags);
}

/* Finish a doit reply and send it. */
static int nldev_reply(struct sk_buff *req_skb, struct sk_buff *msg,
		       struct nlmsghdr *nlh)
{
	nlmsg_end(msg, nlh);
	return rdma_nl_unicast(sock_net(req_skb->sk), msg,
			       NETLINK_CB(req_skb).portid);
}

/* What a request must or may name, for nldev_request_get(). */
enum nldev_request_names {
	NLDEV_NEEDS_DEVICE	= BIT(0),	/* DEV_INDEX is required */
	NLDEV_MAY_NAME_DEVICE	= BIT(1),	/* DEV_INDEX is optional */
	NLDEV_NEEDS_PORT	= BIT(2),	/* PORT_INDEX is required */
	NLDEV_MAY_NAME_PORT	= BIT(3),	/* PORT_INDEX is optional */
};

/**
 * struct nldev_request - a request, parsed, with what it names
 * @tb: its attributes
 * @device: the device DEV_INDEX names, held; NULL if it names none (or
 *	its command does not look at it)
 * @port: the port PORT_INDEX names, a port of @device; 0 if none
 * @extack: where to say what is wrong with the request
 * @net: the requester's network namespace
 */
struct nldev_request {
	struct nlattr		*tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device	*device;
	u32			port;
	struct netlink_ext_ack	*extack;
	struct net		*net;
};

/*
 * Parse @nlh into @req and look up the device and port it names, as
 * @names (enum nldev_request_names) asks: a PORT_INDEX is only taken with
 * a DEV_INDEX.  Return: 0, with the device held until
 * nldev_request_put(), or -EINVAL with a message saying why.
 */
static int nldev_request_get(struct nldev_request *req,
			     const struct nlmsghdr *nlh, unsigned int names)
{
	struct netlink_ext_ack *extack = req->extack;
	struct nlattr *dev_attr, *port_attr;
	int ret;

	req->device = NULL;
	req->port = 0;
	ret = nldev_parse(nlh, req->tb, extack);
	if (ret)
		return ret;
	dev_attr = req->tb[RDMA_NLDEV_ATTR_DEV_INDEX];
	port_attr = req->tb[RDMA_NLDEV_ATTR_PORT_INDEX];
	if (!(names & (NLDEV_NEEDS_PORT | NLDEV_MAY_NAME_PORT)))
		port_attr = NULL;	/* the command does not look at it */

	if ((names & NLDEV_NEEDS_PORT) && !port_attr) {
		NL_SET_ERR_MSG_MOD(extack, "no PORT_INDEX: the command needs a port");
		return -EINVAL;
	}
	if (!(names & (NLDEV_NEEDS_DEVICE | NLDEV_MAY_NAME_DEVICE)))
		return 0;
	if (!dev_attr) {
		if (names & NLDEV_NEEDS_DEVICE) {
			NL_SET_ERR_MSG_MOD(extack,
					   "no DEV_INDEX: the command needs a device");
			return -EINVAL;
		}
		if (port_attr) {
			NL_SET_ERR_MSG_MOD(extack,
					   "PORT_INDEX without DEV_INDEX: a port of which device?");
			NL_SET_BAD_ATTR(extack, port_attr);
			return -EINVAL;
		}
		return 0;
	}

	req->device = ib_device_get_by_index(nla_get_u32(dev_attr));
	if (!req->device) {
		NL_SET_ERR_MSG_MOD(extack, "no device has this DEV_INDEX");
		NL_SET_BAD_ATTR(extack, dev_attr);
		return -EINVAL;
	}
	if (!port_attr)
		return 0;
	req->port = nla_get_u32(port_attr);
	if (!rdma_is_port_valid(req->device, req->port)) {
		NL_SET_ERR_MSG_MOD(extack, "the device has no port of this PORT_INDEX");
		NL_SET_BAD_ATTR(extack, port_attr);
		ib_device_put(req->device);
		req->device = NULL;
		return -EINVAL;
	}
	return 0;
}

static void nldev_request_put(struct nldev_request *req)
{
	if (req->device)
		ib_device_put(req->device);
}

/*
 * A doit command: parse the request, look up what it names (@names, see
 * nldev_request_get()), and answer with one message that @fill fills in
 * after its header.
 */
static int nldev_doit(struct sk_buff *skb, const struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack, unsigned int names,
		      int (*fill)(struct sk_buff *msg,
				  const struct nldev_request *req))
{
	struct nldev_request req = {
		.extack = extack,
		.net = sock_net(skb->sk),
	};
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int ret;

	ret = nldev_request_get(&req, nlh, names);
	if (ret)
		return ret;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}
	rnlh = nldev_put_hdr(msg, NETLINK_CB(skb).portid, nlh, 0);
	ret = rnlh ? fill(msg, &req) : -EMSGSIZE;
	if (ret)
		nlmsg_free(msg);
	else
		ret = nldev_reply(skb, msg, rnlh);
out_put:
	nldev_request_put(&req);
	return ret;
}

static int nldev_put_handle(struct sk_buff *msg, struct ib_device *device)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, device->index) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME,
			   dev_name(&device->dev)))
		return -EMSGSIZE;
	return 0;
}

/* The link protocol name of the device's first port, or NULL. */
static const char *nldev_protocol(struct ib_device *device)
{
	const struct ib_port_immutable *imm;
	u32 caps;

	imm = ib_port_immutable_read(device, rdma_start_port(device));
	if (!imm)
		return NULL;
	caps = imm->core_cap_flags;
	if (caps & RDMA_CORE_CAP_PROT_IB)
		return "ib";
	if (caps & (RDMA_CORE_CAP_PROT_ROCE | RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP))
		return "roce";
	if (caps & RDMA_CORE_CAP_PROT_IWARP)
		return "iw";
	if (caps & RDMA_CORE_CAP_PROT_USNIC)
		return "usnic";
	return NULL;
}

static int nldev_put_dev(struct sk_buff *msg, struct ib_device *device)
{
	char fw[IB_FW_VERSION_NAME_MAX];
	const char *protocol;

	if (nldev_put_handle(msg, device))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, rdma_end_port(device)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS,
			      device->attrs.device_cap_flags,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	ib_get_device_fw_str(device, fw);
	if (fw[0] && nla_put_string(msg, RDMA_NLDEV_ATTR_FW_VERSION, fw))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_NODE_GUID,
			      be64_to_cpu(device->node_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			      be64_to_cpu(device->attrs.sys_image_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, device->node_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, 0))
		return -EMSGSIZE;
	protocol = nldev_protocol(device);
	if (protocol &&
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL, protocol))
		return -EMSGSIZE;
	return 0;
}

/*
 * The port's net device, as upstream: only to a requester in the network
 * namespace the net device lives in.
 */
static int nldev_put_port_netdev(struct sk_buff *msg,
				 struct ib_device *device, u32 port,
				 struct net *net)
{
	struct net_device *ndev;
	int ret = 0;

	ndev = ib_device_get_netdev(device, port);
	if (!ndev)
		return 0;
	if (net_eq(dev_net(ndev), net) &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX, ndev->ifindex) ||
	     nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, ndev->name)))
		ret = -EMSGSIZE;
	dev_put(ndev);
	return ret;
}

static int nldev_put_port(struct sk_buff *msg, struct ib_device *device,
			  u32 port, struct net *net)
{
	const struct ib_port_immutable *imm;
	struct ib_port_attr attr;
	int ret;

	if (nldev_put_handle(msg, device) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -EMSGSIZE;

	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;

	imm = ib_port_immutable_read(device, port);
	if (imm && (imm->core_cap_flags & RDMA_CORE_CAP_PROT_IB)) {
		u64 caps = attr.port_cap_flags |
			   (u64)attr.port_cap_flags2 << 32;

		if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, caps,
				      RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SUBNET_PREFIX,
				      attr.subnet_prefix,
				      RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_LID, attr.lid) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_SM_LID, attr.sm_lid) ||
		    nla_put_u8(msg, RDMA_NLDEV_ATTR_LMC, attr.lmc))
			return -EMSGSIZE;
	}
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, attr.state) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, attr.phys_state))
		return -EMSGSIZE;
	return nldev_put_port_netdev(msg, device, port, net);
}

static int nldev_fill_dev(struct sk_buff *msg, const struct nldev_request *req)
{
	return nldev_put_dev(msg, req->device);
}

/* RDMA_NLDEV_CMD_GET with DEV_INDEX: that device. */
static int nldev_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	return nldev_doit(skb, nlh, extack, NLDEV_NEEDS_DEVICE, nldev_fill_dev);
}

/*
 * A dump of every device, one message each filled by @fill.
 * cb->args[0]: the index of the next device.
 */
static int nldev_dump_devices(struct sk_buff *skb, struct netlink_callback *cb,
			      int (*fill)(struct sk_buff *skb,
					  struct ib_device *device))
{
	unsigned long index = cb->args[0];
	struct ib_device *device;
	struct nlmsghdr *nlh;
	int ret;

	while ((device = ib_device_get_next(&index))) {
		nlh = nldev_put_hdr(skb, NETLINK_CB(cb->skb).portid, cb->nlh,
				    NLM_F_MULTI);
		ret = nlh ? fill(skb, device) : -EMSGSIZE;
		ib_device_put(device);
		if (ret) {
			if (nlh)
				nlmsg_cancel(skb, nlh);
			break;
		}
		nlmsg_end(skb, nlh);
		index++;
	}
	cb->args[0] = index;
	return skb->len;
}

static int nldev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nldev_dump_devices(skb, cb, nldev_put_dev);
}

static int nldev_fill_port(struct sk_buff *msg,
			   const struct nldev_request *req)
{
	return nldev_put_port(msg, req->device, req->port, req->net);
}

/* RDMA_NLDEV_CMD_PORT_GET with DEV_INDEX and PORT_INDEX: that port. */
static int nldev_port_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	return nldev_doit(skb, nlh, extack,
			  NLDEV_NEEDS_DEVICE | NLDEV_NEEDS_PORT,
			  nldev_fill_port);
}

/*
 * RDMA_NLDEV_CMD_PORT_GET dump: every port of the device DEV_INDEX names,
 * or of every device.  cb->args[0]: index of the device, cb->args[1]: the
 * next port of it (0: its first).
 */
static int nldev_port_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	unsigned long index = cb->args[0];
	u32 port = cb->args[1];
	struct ib_device *device;
	bool one_device = false;
	struct nlmsghdr *nlh;
	int ret = 0;

	if (nldev_parse(cb->nlh, tb, cb->extack))
		return -EINVAL;
	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		one_device = true;
		if (!cb->args[2]) {
			index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
			cb->args[2] = 1;
		}
	}

	while ((device = ib_device_get_next(&index))) {
		if (one_device &&
		    index != nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX])) {
			ib_device_put(device);
			break;
		}
		if (port < rdma_start_port(device))
			port = rdma_start_port(device);
		for (; port <= rdma_end_port(device); port++) {
			nlh = nldev_put_hdr(skb, NETLINK_CB(cb->skb).portid,
					    cb->nlh, NLM_F_MULTI);
			ret = nlh ? nldev_put_port(skb, device, port,
						   sock_net(skb->sk)) :
				    -EMSGSIZE;
			if (ret) {
				if (nlh)
					nlmsg_cancel(skb, nlh);
				break;
			}
			nlmsg_end(skb, nlh);
		}
		ib_device_put(device);
		if (ret == -EMSGSIZE)
			break;
		if (ret) {
			/* a port the driver could not query ends the dump */
			index = ULONG_MAX;
			break;
		}
		if (one_device) {
			index = ULONG_MAX;
			break;
		}
		index++;
		port = 0;
	}
	cb->args[0] = index;
	cb->args[1] = port;
	return ret && ret != -EMSGSIZE ? ret : skb->len;
}

/*
 * RDMA_NLDEV_CMD_GET_CHARDEV: the character device a client (CHARDEV_TYPE,
 * e.g. "uverbs") offers for a device (DEV_INDEX) and port (PORT_INDEX,
 * optional), or without a DEV_INDEX the one a client offers for all
 * devices (librdmacm asks "rdma_cm" so; the client's get_global_nl_info).
 * The reply has CHARDEV (dev_t), CHARDEV_ABI and CHARDEV_NAME, and only
 * with a device its PORT_INDEX (a per-port character device) and
 * UVERBS_DRIVER_ID (uverbs).  An unknown CHARDEV_TYPE is -ENOENT, a client
 * without such a character device -EOPNOTSUPP, with or without a device.
 */
static int nldev_fill_chardev(struct sk_buff *msg,
			      const struct nldev_request *req)
{
	struct netlink_ext_ack *extack = req->extack;
	struct nlattr *type_attr = req->tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE];
	char type[NLDEV_CHARDEV_TYPE_SIZE];
	struct ib_device *device = req->device;
	struct ib_client_nl_info info;
	int ret;

	if (!type_attr) {
		NL_SET_ERR_MSG_MOD(extack,
				   "no CHARDEV_TYPE: which client's character device?");
		return -EINVAL;
	}
	nla_strscpy(type, type_attr, sizeof(type));

	ret = ib_get_client_nl_info(device, type, &info);
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack,
				   "no client offers a character device of this CHARDEV_TYPE here");
		NL_SET_BAD_ATTR(extack, type_attr);
		return ret;
	}
	/* a client with one character device per port offers another port's */
	if (req->port && info.port && info.port != req->port) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the client's character device is another port's");
		ret = -ENOENT;
		goto out_cdev;
	}

	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV,
			      huge_encode_dev(info.cdev->devt),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, info.abi,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME,
			   dev_name(info.cdev)) ||
	    (device && info.port &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, info.port)) ||
	    (device && !strcmp(type, "uverbs") &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
			 device->ops->driver_id)))
		ret = -EMSGSIZE;
out_cdev:
	put_device(info.cdev);
	return ret;
}

static int nldev_get_chardev(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	return nldev_doit(skb, nlh, extack,
			  NLDEV_MAY_NAME_DEVICE | NLDEV_MAY_NAME_PORT,
			  nldev_fill_chardev);
}

/*
 * Whether Q_Keys with the high bit set (IBA 10.2.4: controlled Q_Keys,
 * such as the GSI's 0x80010000) may be given to the QPs of processes
 * without CAP_NET_RAW.  Off unless an administrator turns it on with
 * RDMA_NLDEV_CMD_SYS_SET; a byte, read without a lock.
 */
static bool nldev_privileged_qkey;

/**
 * rdma_nl_get_privileged_qkey() - may the caller use a controlled Q_Key
 *
 * Context: the requesting task, in a user access module about to give a
 * user QP a Q_Key with bit 31 set.
 * Return: true if the system setting allows it to everyone or the task
 * has CAP_NET_RAW.
 */
bool rdma_nl_get_privileged_qkey(void)
{
	return READ_ONCE(nldev_privileged_qkey) || capable(CAP_NET_RAW);
}
EXPORT_SYMBOL(rdma_nl_get_privileged_qkey);

static int nldev_fill_sys(struct sk_buff *msg, const struct nldev_request *req)
{
	if (nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE,
		       READ_ONCE(nldev_privileged_qkey)) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1))
		return -EMSGSIZE;
	return 0;
}

/*
 * RDMA_NLDEV_CMD_SYS_GET: devices are shared by all network namespaces,
 * user memory stays pinned across fork() (pin_user_pages), and whether
 * controlled Q_Keys are open to everyone.
 */
static int nldev_sys_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	return nldev_doit(skb, nlh, extack, 0, nldev_fill_sys);
}

/*
 * RDMA_NLDEV_CMD_SYS_SET (CAP_NET_ADMIN): the network namespace mode, of
 * which only the shared mode exists, so setting it is all that succeeds;
 * else the privileged Q_Key mode, 0 or 1.
 */
static int nldev_sys_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nlattr *mode_attr;
	u8 mode;
	int ret;

	ret = nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	mode_attr = tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE];
	if (mode_attr) {
		if (nla_get_u8(mode_attr) == 1)
			return 0;
		NL_SET_ERR_MSG_MOD(extack,
				   "only the shared network namespace mode (1) exists");
		NL_SET_BAD_ATTR(extack, mode_attr);
		return -EOPNOTSUPP;
	}
	mode_attr = tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE];
	if (!mode_attr) {
		NL_SET_ERR_MSG_MOD(extack,
				   "nothing to set: no NETNS_MODE or PRIVILEGED_QKEY_MODE");
		return -EINVAL;
	}
	mode = nla_get_u8(mode_attr);
	if (mode > 1) {
		NL_SET_ERR_MSG_MOD(extack, "PRIVILEGED_QKEY_MODE is 0 or 1");
		NL_SET_BAD_ATTR(extack, mode_attr);
		return -EINVAL;
	}
	WRITE_ONCE(nldev_privileged_qkey, mode);
	return 0;
}

/* What the resource commands show, per restrack type; see below. */
struct nldev_res_type {
	const char	*name;
	int		table_attr;
	int		entry_attr;
	int		(*fill)(struct sk_buff *msg, bool admin,
				struct rdma_restrack_entry *res, u32 port);
};

/*
 * The owner of an object: the kernel module, or the process id as the
 * requester's pid namespace sees it.  -ENOENT for a process the
 * requester cannot see: the object is not shown.
 */
static int nldev_put_owner(struct sk_buff *msg,
			   struct rdma_restrack_entry *res)
{
	pid_t pid;

	if (rdma_is_kernel_res(res))
		return nla_put_string(msg, RDMA_NLDEV_ATTR_RES_KERN_NAME,
				      res->kern_name ? : "unknown") ?
			-EMSGSIZE : 0;
	pid = task_pid_nr_ns(res->task, task_active_pid_ns(current));
	if (!pid)
		return -ENOENT;
	return nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PID, pid) ? -EMSGSIZE : 0;
}

static int nldev_fill_qp(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr;
	bool connected;

	if (port && port != READ_ONCE(qp->port))
		return -ENOENT;
	/* a QP the driver cannot answer for (e.g. being destroyed): skip */
	if (ib_query_qp(qp, &attr, 0, &init_attr))
		return -ENOENT;

	connected = qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC;
	if ((READ_ONCE(qp->port) &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, READ_ONCE(qp->port))) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp->qp_num) ||
	    (connected &&
	     (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQPN, attr.dest_qp_num) ||
	      nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQ_PSN, attr.rq_psn))) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SQ_PSN, attr.sq_psn) ||
	    (connected &&
	     nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE,
			attr.path_mig_state)) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, qp->qp_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE, attr.qp_state) ||
	    (qp->pd &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, qp->pd->res.id)))
		return -EMSGSIZE;
	return nldev_put_owner(msg, res);
}

/*
 * An RDMA CM id (rdma_cm.ko's, read through its private structure, as
 * upstream's nldev does: no call into rdma_cm).
 */
static int nldev_fill_cm_id(struct sk_buff *msg, bool admin,
			    struct rdma_restrack_entry *res, u32 port)
{
	struct rdma_id_private *id_priv =
		container_of(res, struct rdma_id_private, res);
	struct rdma_cm_id *id = &id_priv->id;
	struct sockaddr_storage *src = &id->route.addr.src_addr;
	struct sockaddr_storage *dst = &id->route.addr.dst_addr;
	u32 qp_num = READ_ONCE(id_priv->qp_num);

	if (port && port != id->port_num)
		return -ENOENT;
	if ((id->port_num &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, id->port_num)) ||
	    (qp_num &&
	     (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp_num) ||
	      nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, id->qp_type))) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PS, id->ps) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE,
		       READ_ONCE(id_priv->state)) ||
	    (src->ss_family &&
	     nla_put(msg, RDMA_NLDEV_ATTR_RES_SRC_ADDR, sizeof(*src), src)) ||
	    (dst->ss_family &&
	     nla_put(msg, RDMA_NLDEV_ATTR_RES_DST_ADDR, sizeof(*dst), dst)) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CM_IDN, res->id))
		return -EMSGSIZE;
	return nldev_put_owner(msg, res);
}

static int nldev_fill_cq(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_cq *cq = container_of(res, struct ib_cq, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQE, cq->cqe) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&cq->usecnt), RDMA_NLDEV_ATTR_PAD) ||
	    (rdma_is_kernel_res(res) &&
	     nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_POLL_CTX, cq->poll_ctx)) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, res->id))
		return -EMSGSIZE;
	return nldev_put_owner(msg, res);
}

static int nldev_fill_mr(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);

	if (admin &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RKEY, mr->rkey) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey) ||
	     nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_IOVA, mr->iova,
			       RDMA_NLDEV_ATTR_PAD)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_MRN, res->id) ||
	    (mr->pd &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, mr->pd->res.id)))
		return -EMSGSIZE;
	return nldev_put_owner(msg, res);
}

static int nldev_fill_pd(struct sk_buff *msg, bool admin,
			 struct rdma_restrack_entry *res, u32 port)
{
	struct ib_pd *pd = container_of(res, struct ib_pd, res);

	if (admin &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY,
			 pd->local_dma_lkey) ||
	     ((pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) &&
	      nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY,
			  pd->unsafe_global_rkey))))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&pd->usecnt), RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, res->id))
		return -EMSGSIZE;
	return nldev_put_owner(msg, res);
}

static int nldev_fill_ctx(struct sk_buff *msg, bool admin,
			  struct rdma_restrack_entry *res, u32 port)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN, res->id))
		return -EMSGSIZE;
	return nldev_put_owner(msg, res);
}

static int nldev_fill_srq(struct sk_buff *msg, bool admin,
			  struct rdma_restrack_entry *res, u32 port)
{
	struct ib_srq *srq = container_of(res, struct ib_srq, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SRQN, res->id) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, srq->srq_type) ||
	    (srq->pd &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, srq->pd->res.id)))
		return -EMSGSIZE;
	return nldev_put_owner(msg, res);
}

/* The names are those of upstream's "rdma res" summary. */
static const struct nldev_res_type nldev_res_types[RDMA_RESTRACK_MAX] = {
	[RDMA_RESTRACK_PD] = { "pd", RDMA_NLDEV_ATTR_RES_PD,
			       RDMA_NLDEV_ATTR_RES_PD_ENTRY, nldev_fill_pd },
	[RDMA_RESTRACK_CQ] = { "cq", RDMA_NLDEV_ATTR_RES_CQ,
			       RDMA_NLDEV_ATTR_RES_CQ_ENTRY, nldev_fill_cq },
	[RDMA_RESTRACK_QP] = { "qp", RDMA_NLDEV_ATTR_RES_QP,
			       RDMA_NLDEV_ATTR_RES_QP_ENTRY, nldev_fill_qp },
	[RDMA_RESTRACK_CM_ID] = { "cm_id", RDMA_NLDEV_ATTR_RES_CM_ID,
				  RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY,
				  nldev_fill_cm_id },
	[RDMA_RESTRACK_MR] = { "mr", RDMA_NLDEV_ATTR_RES_MR,
			       RDMA_NLDEV_ATTR_RES_MR_ENTRY, nldev_fill_mr },
	[RDMA_RESTRACK_CTX] = { "ctx", RDMA_NLDEV_ATTR_RES_CTX,
				RDMA_NLDEV_ATTR_RES_CTX_ENTRY, nldev_fill_ctx },
	[RDMA_RESTRACK_SRQ] = { "srq", RDMA_NLDEV_ATTR_RES_SRQ,
				RDMA_NLDEV_ATTR_RES_SRQ_ENTRY, nldev_fill_srq },
};

/* RES_GET: the number of objects of each type, as "rdma res" shows. */
static int nldev_put_res_summary(struct sk_buff *msg, struct ib_device *device)
{
	struct nlattr *table, *entry;
	int i;

	if (nldev_put_handle(msg, device))
		return -EMSGSIZE;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < RDMA_RESTRACK_MAX; i++) {
		if (!nldev_res_types[i].name)
			continue;
		entry = nla_nest_start_noflag(msg,
					      RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
		if (!entry ||
		    nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
				   nldev_res_types[i].name) ||
		    nla_put_u64_64bit(msg,
				      RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR,
				      rdma_restrack_count(device, i),
				      RDMA_NLDEV_ATTR_PAD))
			goto err;
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, table);
	return 0;

err:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

static int nldev_fill_res_summary(struct sk_buff *msg,
				  const struct nldev_request *req)
{
	return nldev_put_res_summary(msg, req->device);
}

/* RDMA_NLDEV_CMD_RES_GET with DEV_INDEX: that device's summary. */
static int nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	return nldev_doit(skb, nlh, extack, NLDEV_NEEDS_DEVICE,
			  nldev_fill_res_summary);
}

/* RES_GET dump: the summary of every device */
static int nldev_res_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return nldev_dump_devices(skb, cb, nldev_put_res_summary);
}

/*
 * The RES_*_GET dumps: the objects of one type of the device DEV_INDEX
 * names (required), on port PORT_INDEX if given (QPs).  Each message
 * holds as many objects as fit; cb->args[0] is the id of the next one.
 */
static int nldev_res_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			    enum rdma_restrack_type type)
{
	const struct nldev_res_type *rt = &nldev_res_types[type];
	struct nldev_request req = { .extack = cb->extack };
	struct rdma_restrack_entry *res;
	unsigned long id = cb->args[0];
	struct nlattr *table, *entry;
	struct ib_device *device;
	struct nlmsghdr *nlh;
	unsigned int filled = 0;
	bool admin;
	u32 port;
	int ret;

	ret = nldev_request_get(&req, cb->nlh,
				NLDEV_NEEDS_DEVICE | NLDEV_MAY_NAME_PORT);
	if (ret)
		return ret;
	device = req.device;
	port = req.port;
	if (id > U32_MAX)
		goto out_put;	/* done */

	nlh = nldev_put_hdr(skb, NETLINK_CB(cb->skb).portid, cb->nlh,
			    NLM_F_MULTI);
	if (!nlh || nldev_put_handle(skb, device))
		goto err_cancel;
	table = nla_nest_start_noflag(skb, rt->table_attr);
	if (!table)
		goto err_cancel;

	admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	while ((res = rdma_restrack_get_next(device, type, &id))) {
		entry = nla_nest_start_noflag(skb, rt->entry_attr);
		ret = entry ? rt->fill(skb, admin, res, port) : -EMSGSIZE;
		rdma_restrack_put(res);
		if (ret == -EMSGSIZE) {
			if (entry)
				nla_nest_cancel(skb, entry);
			break;
		}
		if (ret) {
			nla_nest_cancel(skb, entry);	/* not shown */
		} else {
			nla_nest_end(skb, entry);
			filled++;
		}
		id++;
	}
	cb->args[0] = res ? id : (unsigned long)U32_MAX + 1;
	ret = 0;
	if (!filled)
		goto err_cancel;	/* nothing (more): the dump ends */
	nla_nest_end(skb, table);
	nlmsg_end(skb, nlh);
	ib_device_put(device);
	return skb->len;

err_cancel:
	if (nlh)
		nlmsg_cancel(skb, nlh);
out_put:
	ib_device_put(device);
	return ret;
}

/* nldev_res_<name>_dumpit(): the dump of one kind of tracked object */
#define NLDEV_RES_DUMPIT(name, type)					\
static int nldev_res_##name##_dumpit(struct sk_buff *skb,		\
				     struct netlink_callback *cb)	\
{									\
	return nldev_res_dumpit(skb, cb, type);				\
}

NLDEV_RES_DUMPIT(qp, RDMA_RESTRACK_QP);
NLDEV_RES_DUMPIT(cq, RDMA_RESTRACK_CQ);
NLDEV_RES_DUMPIT(mr, RDMA_RESTRACK_MR);
NLDEV_RES_DUMPIT(pd, RDMA_RESTRACK_PD);
NLDEV_RES_DUMPIT(ctx, RDMA_RESTRACK_CTX);
NLDEV_RES_DUMPIT(srq, RDMA_RESTRACK_SRQ);
NLDEV_RES_DUMPIT(cm_id, RDMA_RESTRACK_CM_ID);

static const struct rdma_nl_cbs nldev_cbs[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = {
		.doit = nldev_get_doit,
		.dump = nldev_get_dumpit,
	},
	[RDMA_NLDEV_CMD_PORT_GET] = {
		.doit = nldev_port_get_doit,
		.dump = nldev_port_get_dumpit,
	},
	[RDMA_NLDEV_CMD_SYS_GET] = {
		.doit = nldev_sys_get_doit,
	},
	[RDMA_NLDEV_CMD_SYS_SET] = {
		.doit = nldev_sys_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_RES_GET] = {
		.doit = nldev_res_get_doit,
		.dump = nldev_res_get_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET] = {
		.dump = nldev_res_qp_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_CQ_GET] = {
		.dump = nldev_res_cq_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_MR_GET] = {
		.dump = nldev_res_mr_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_PD_GET] = {
		.dump = nldev_res_pd_dumpit,
	},
	[RDMA_NLDEV_CMD_GET_CHARDEV] = {
		.doit = nldev_get_chardev,
	},
	[RDMA_NLDEV_CMD_RES_CTX_GET] = {
		.dump = nldev_res_ctx_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = {
		.dump = nldev_res_srq_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = {
		.dump = nldev_res_cm_id_dumpit,
	},
};

int nldev_init(void)
{
	return rdma_nl_register(RDMA_NL_NLDEV, nldev_cbs,
				ARRAY_SIZE(nldev_cbs));
}

void nldev_exit(void)
{
	rdma_nl_unregister(RDMA_NL_NLDEV);
}
