// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: the option string written to add_target.
 *
 * The string is a list of key=value pairs separated by commas or
 * newlines, with upstream ib_srp's keys and value formats, e.g. what
 * srp_daemon and ibsrpdm -c print:
 *
 *   id_ext=<hex64>,ioc_guid=<hex64>,dgid=<32 hex digits>,pkey=<hex16>,
 *   service_id=<hex64>[,max_sect=...][,queue_size=...]...
 *
 * or, for a login through the RDMA CM, id_ext, ioc_guid and
 * dest=<ip>:<port> (an IPv6 address in brackets) with an optional
 * src=<ip>.  Every key may appear once; an unknown key, a key given twice,
 * a value that does not parse or is out of range, and a string without
 * the mandatory keys all make the write fail with -EINVAL and log one
 * rate-limited line saying why.
 *
 * srp_parse_options() only fills the srp_target_port it is given; it
 * takes no locks and touches nothing else, so it can be tested alone.
 */

#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "srp.h"

enum srp_opt {
	SRP_OPT_ID_EXT,
	SRP_OPT_IOC_GUID,
	SRP_OPT_DGID,
	SRP_OPT_PKEY,
	SRP_OPT_SERVICE_ID,
	SRP_OPT_MAX_SECT,
	SRP_OPT_MAX_CMD_PER_LUN,
	SRP_OPT_TARGET_CAN_QUEUE,
	SRP_OPT_IO_CLASS,
	SRP_OPT_INITIATOR_EXT,
	SRP_OPT_CMD_SG_ENTRIES,
	SRP_OPT_ALLOW_EXT_SG,
	SRP_OPT_SG_TABLESIZE,
	SRP_OPT_COMP_VECTOR,
	SRP_OPT_TL_RETRY_COUNT,
	SRP_OPT_QUEUE_SIZE,
	SRP_OPT_IP_SRC,
	SRP_OPT_IP_DEST,
	SRP_OPT_MAX_IT_IU_SIZE,
	SRP_OPT_CH_COUNT,
	SRP_OPT_NR,
};

#define SRP_OPTS_IB	(BIT(SRP_OPT_ID_EXT) | BIT(SRP_OPT_IOC_GUID) | \
			 BIT(SRP_OPT_DGID) | BIT(SRP_OPT_PKEY) | \
			 BIT(SRP_OPT_SERVICE_ID))
#define SRP_OPTS_RDMA	(BIT(SRP_OPT_ID_EXT) | BIT(SRP_OPT_IOC_GUID) | \
			 BIT(SRP_OPT_IP_DEST))

/* How the value of a key is written. */
enum srp_opt_fmt {
	SRP_FMT_HEX64,		/* up to 16 hex digits, an optional 0x */
	SRP_FMT_GID,		/* exactly 32 hex digits */
	SRP_FMT_HEX,		/* a hex number in [min, max] */
	SRP_FMT_UINT,		/* a decimal number in [min, max] */
	SRP_FMT_ADDR,		/* ip:port or [ipv6]:port */
	SRP_FMT_IP,		/* an address without port */
};

struct srp_opt_desc {
	const char		*key;
	enum srp_opt_fmt	fmt;
	u32			min;
	u32			max;
};

static const struct srp_opt_desc srp_opt_table[SRP_OPT_NR] = {
	[SRP_OPT_ID_EXT]	   = { "id_ext",	   SRP_FMT_HEX64 },
	[SRP_OPT_IOC_GUID]	   = { "ioc_guid",	   SRP_FMT_HEX64 },
	[SRP_OPT_DGID]		   = { "dgid",		   SRP_FMT_GID },
	[SRP_OPT_PKEY]		   = { "pkey",		   SRP_FMT_HEX,
				       1, 0xffff },
	[SRP_OPT_SERVICE_ID]	   = { "service_id",	   SRP_FMT_HEX64 },
	[SRP_OPT_MAX_SECT]	   = { "max_sect",	   SRP_FMT_UINT,
				       1, 1 << 20 },
	[SRP_OPT_MAX_CMD_PER_LUN]  = { "max_cmd_per_lun",  SRP_FMT_UINT,
				       1, SRP_MAX_QUEUE_SIZE },
	[SRP_OPT_TARGET_CAN_QUEUE] = { "target_can_queue", SRP_FMT_UINT,
				       1, SRP_MAX_QUEUE_SIZE },
	[SRP_OPT_IO_CLASS]	   = { "io_class",	   SRP_FMT_HEX,
				       0, 0xffff },
	[SRP_OPT_INITIATOR_EXT]	   = { "initiator_ext",	   SRP_FMT_HEX64 },
	[SRP_OPT_CMD_SG_ENTRIES]   = { "cmd_sg_entries",   SRP_FMT_UINT,
				       1, SRP_MAX_CMD_SG_ENTRIES },
	[SRP_OPT_ALLOW_EXT_SG]	   = { "allow_ext_sg",	   SRP_FMT_UINT,
				       0, 1 },
	[SRP_OPT_SG_TABLESIZE]	   = { "sg_tablesize",	   SRP_FMT_UINT,
				       1, SG_MAX_SEGMENTS },
	[SRP_OPT_COMP_VECTOR]	   = { "comp_vector",	   SRP_FMT_UINT,
				       0, 65535 },
	[SRP_OPT_TL_RETRY_COUNT]   = { "tl_retry_count",   SRP_FMT_UINT,
				       2, 7 },
	[SRP_OPT_QUEUE_SIZE]	   = { "queue_size",	   SRP_FMT_UINT,
				       1, SRP_MAX_QUEUE_SIZE },
	[SRP_OPT_IP_SRC]	   = { "src",		   SRP_FMT_IP },
	[SRP_OPT_IP_DEST]	   = { "dest",		   SRP_FMT_ADDR },
	[SRP_OPT_MAX_IT_IU_SIZE]   = { "max_it_iu_size",   SRP_FMT_UINT,
				       sizeof(struct srp_cmd),
				       SRP_MAX_IT_IU_LEN },
	[SRP_OPT_CH_COUNT]	   = { "ch_count",	   SRP_FMT_UINT,
				       1, SRP_MAX_CH_COUNT },
};

static int srp_parse_hex64(const char *val, __be64 *out)
{
	const char *digits = val;
	u64 v;

	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		digits += 2;
	if (!*digits || strlen(digits) > 16)
		return -EINVAL;
	if (kstrtou64(digits, 16, &v))
		return -EINVAL;
	*out = cpu_to_be64(v);
	return 0;
}

static int srp_parse_gid(const char *val, union ib_gid *gid)
{
	if (strlen(val) != 2 * sizeof(gid->raw))
		return -EINVAL;
	return hex2bin(gid->raw, val, sizeof(gid->raw));
}

/*
 * An IPv4 or IPv6 address, IPv6 optionally in brackets and with a
 * %scope, and a port when @port is not NULL.
 */
static int srp_parse_addr(struct net *net, char *val, bool want_port,
			  struct sockaddr_storage *sa)
{
	char *port = NULL;
	char *host = val;
	size_t len;
	int ret;

	if (want_port) {
		port = strrchr(val, ':');
		if (!port || !port[1])
			return -EINVAL;
		*port++ = '\0';
	}
	len = strlen(host);
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		host[len - 1] = '\0';
		host++;
	}
	if (!*host)
		return -EINVAL;
	ret = inet_pton_with_scope(net, AF_UNSPEC, host, port ?: "0", sa);
	/* the kernel's IPv4 parser stops at a colon: "1.2.3.4:5" is no address */
	if (!ret && sa->ss_family == AF_INET && strchr(host, ':'))
		ret = -EINVAL;
	return ret;
}

static int srp_parse_one(struct net *net, struct srp_target_port *target,
			 enum srp_opt opt, char *val)
{
	const struct srp_opt_desc *d = &srp_opt_table[opt];
	__be64 v64 = 0;
	u32 v = 0;
	int ret;

	switch (d->fmt) {
	case SRP_FMT_HEX64:
		ret = srp_parse_hex64(val, &v64);
		break;
	case SRP_FMT_GID:
		ret = srp_parse_gid(val, &target->orig_dgid);
		break;
	case SRP_FMT_HEX:
		ret = kstrtou32(val, 16, &v);
		break;
	case SRP_FMT_UINT:
		ret = kstrtou32(val, 10, &v);
		break;
	case SRP_FMT_ADDR:
		ret = srp_parse_addr(net, val, true, &target->rdma_dst);
		break;
	case SRP_FMT_IP:
		ret = srp_parse_addr(net, val, false, &target->rdma_src);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret)
		return -EINVAL;
	if ((d->fmt == SRP_FMT_HEX || d->fmt == SRP_FMT_UINT) &&
	    (v < d->min || v > d->max))
		return -ERANGE;

	switch (opt) {
	case SRP_OPT_ID_EXT:
		target->id_ext = v64;
		break;
	case SRP_OPT_IOC_GUID:
		target->ioc_guid = v64;
		break;
	case SRP_OPT_SERVICE_ID:
		target->service_id = v64;
		break;
	case SRP_OPT_INITIATOR_EXT:
		target->initiator_ext = v64;
		break;
	case SRP_OPT_PKEY:
		target->pkey = v;
		break;
	case SRP_OPT_MAX_SECT:
		target->max_sectors = v;
		break;
	case SRP_OPT_MAX_CMD_PER_LUN:
		target->cmd_per_lun = v;
		break;
	case SRP_OPT_TARGET_CAN_QUEUE:
		target->target_can_queue = v;
		break;
	case SRP_OPT_QUEUE_SIZE:
		target->can_queue = v;
		break;
	case SRP_OPT_IO_CLASS:
		if (v != SRP_REV10_IB_IO_CLASS && v != SRP_REV16A_IB_IO_CLASS)
			return -ERANGE;
		target->io_class = v;
		break;
	case SRP_OPT_CMD_SG_ENTRIES:
		target->cmd_sg_cnt = v;
		break;
	case SRP_OPT_ALLOW_EXT_SG:
		target->allow_ext_sg = v;
		break;
	case SRP_OPT_SG_TABLESIZE:
		target->sg_tablesize = v;
		break;
	case SRP_OPT_COMP_VECTOR:
		target->comp_vector = v;
		break;
	case SRP_OPT_TL_RETRY_COUNT:
		target->tl_retry_count = v;
		break;
	case SRP_OPT_MAX_IT_IU_SIZE:
		target->max_it_iu_size = v;
		break;
	case SRP_OPT_CH_COUNT:
		target->ch_count = v;
		break;
	case SRP_OPT_IP_DEST:
		target->using_rdma_cm = true;
		break;
	case SRP_OPT_IP_SRC:
		target->has_src = true;
		break;
	default:
		break;
	}
	return 0;
}

/**
 * srp_parse_options() - parse an add_target option string
 * @net: the network namespace IP addresses are parsed in
 * @buf: the string, NUL-terminated
 * @target: where the values go; fields of keys not given are left alone
 *
 * Return: 0, or -EINVAL (logged, rate-limited) for an unknown, repeated
 * or malformed key or value or when a mandatory key is missing;
 * -ENOMEM.
 */
int srp_parse_options(struct net *net, const char *buf,
		      struct srp_target_port *target)
{
	unsigned long seen = 0;
	char *options, *sep_opt, *p;
	enum srp_opt opt;
	int ret = 0;

	options = kstrdup(buf, GFP_KERNEL);
	if (!options)
		return -ENOMEM;

	sep_opt = options;
	while ((p = strsep(&sep_opt, ",\n")) != NULL) {
		char *val;

		if (!*p)
			continue;
		val = strchr(p, '=');
		if (!val) {
			pr_warn_ratelimited("missing value for '%s' in target creation request\n",
					    p);
			ret = -EINVAL;
			goto out;
		}
		*val++ = '\0';
		for (opt = 0; opt < SRP_OPT_NR; opt++)
			if (!strcmp(p, srp_opt_table[opt].key))
				break;
		if (opt == SRP_OPT_NR) {
			pr_warn_ratelimited("unknown parameter '%s' in target creation request\n",
					    p);
			ret = -EINVAL;
			goto out;
		}
		if (seen & BIT(opt)) {
			pr_warn_ratelimited("parameter '%s' given twice in target creation request\n",
					    p);
			ret = -EINVAL;
			goto out;
		}
		seen |= BIT(opt);
		ret = srp_parse_one(net, target, opt, val);
		if (ret == -ERANGE) {
			const struct srp_opt_desc *d = &srp_opt_table[opt];

			if (opt == SRP_OPT_IO_CLASS)
				pr_warn_ratelimited("unknown io_class '%s' (expected %#x or %#x)\n",
						    val, SRP_REV10_IB_IO_CLASS,
						    SRP_REV16A_IB_IO_CLASS);
			else
				pr_warn_ratelimited("%s=%s out of range [%u, %u]\n",
						    p, val, d->min, d->max);
			ret = -EINVAL;
			goto out;
		} else if (ret) {
			pr_warn_ratelimited("bad value '%s' for parameter '%s'\n",
					    val, p);
			ret = -EINVAL;
			goto out;
		}
	}

	if ((seen & SRP_OPTS_RDMA) != SRP_OPTS_RDMA &&
	    (seen & SRP_OPTS_IB) != SRP_OPTS_IB) {
		for (opt = 0; opt < SRP_OPT_NR; opt++)
			if ((SRP_OPTS_IB & BIT(opt)) && !(seen & BIT(opt)))
				pr_warn_ratelimited("target creation request is missing parameter '%s'\n",
						    srp_opt_table[opt].key);
		ret = -EINVAL;
		goto out;
	}
	if (target->has_src && !target->using_rdma_cm) {
		pr_warn_ratelimited("src= needs dest= in target creation request\n");
		ret = -EINVAL;
		goto out;
	}
	if (target->has_src &&
	    target->rdma_src.ss_family != target->rdma_dst.ss_family) {
		pr_warn_ratelimited("src= and dest= of different address families\n");
		ret = -EINVAL;
	}
out:
	kfree(options);
	return ret;
}
