// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /proc/net/sdp: one line per SDP socket of the reader's network
 * namespace, with its addresses, state and byte counters.  The walk holds
 * sdp_list_lock (sdp_main.c), which keeps every listed socket from being
 * freed; the fields printed are read without the socket's own locks, a
 * snapshot that may be a little stale.
 *
 * /proc/net/sdpstats: the namespace's counters (enum sdp_stat), one
 * "Name value" line each, kept in atomics of the namespace's struct
 * sdp_net and so needing no lock.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp_states.h>

#include "sdp.h"

/**
 * struct sdp_net - what ib_sdp keeps per network namespace
 * @stats: the counters, indexed by enum sdp_stat
 */
struct sdp_net {
	atomic64_t stats[SDP_STAT_NR];
};

static unsigned int sdp_net_id __read_mostly;

static const char *const sdp_stat_names[SDP_STAT_NR] = {
	[SDP_STAT_ACTIVE_OPENS] = "ActiveOpens",
	[SDP_STAT_PASSIVE_OPENS] = "PassiveOpens",
	[SDP_STAT_ATTEMPT_FAILS] = "AttemptFails",
	[SDP_STAT_RESETS] = "Resets",
	[SDP_STAT_TX_BCOPY] = "TxBcopyBytes",
	[SDP_STAT_RX_BCOPY] = "RxBcopyBytes",
	[SDP_STAT_TX_ZCOPY] = "TxZcopyBytes",
	[SDP_STAT_RX_ZCOPY] = "RxZcopyBytes",
	[SDP_STAT_KA_PROBES] = "KeepaliveProbes",
	[SDP_STAT_KA_TIMEOUTS] = "KeepaliveTimeouts",
	[SDP_STAT_ABORTS_SENT] = "AbortsSent",
	[SDP_STAT_ABORTS_RCVD] = "AbortsReceived",
};

/**
 * sdp_stat_add() - count in the namespace of a socket
 * @sdp: the socket
 * @stat: the counter
 * @n: how much to add
 */
void sdp_stat_add(const struct sdp_sock *sdp, enum sdp_stat stat, u64 n)
{
	struct sdp_net *sn = net_generic(sock_net(&sdp->sk), sdp_net_id);

	atomic64_add(n, &sn->stats[stat]);
}

static int sdp_stats_show(struct seq_file *seq, void *v)
{
	struct sdp_net *sn = net_generic(seq_file_single_net(seq), sdp_net_id);
	int i;

	for (i = 0; i < SDP_STAT_NR; i++)
		seq_printf(seq, "%s %lld\n", sdp_stat_names[i],
			   (long long)atomic64_read(&sn->stats[i]));
	return 0;
}

static const char *const sdp_state_names[] = {
	[TCP_ESTABLISHED] = "ESTABLISHED",
	[TCP_SYN_SENT] = "SYN_SENT",
	[TCP_SYN_RECV] = "SYN_RECV",
	[TCP_FIN_WAIT1] = "FIN_WAIT1",
	[TCP_FIN_WAIT2] = "FIN_WAIT2",
	[TCP_TIME_WAIT] = "TIME_WAIT",
	[TCP_CLOSE] = "CLOSE",
	[TCP_CLOSE_WAIT] = "CLOSE_WAIT",
	[TCP_LAST_ACK] = "LAST_ACK",
	[TCP_LISTEN] = "LISTEN",
	[TCP_CLOSING] = "CLOSING",
};

static void *sdp_seq_start(struct seq_file *seq, loff_t *pos)
{
	sdp_list_lock();
	if (!*pos)
		return SEQ_START_TOKEN;
	return seq_list_start(sdp_list(), *pos - 1);
}

static void *sdp_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	if (v == SEQ_START_TOKEN) {
		++*pos;
		return list_empty(sdp_list()) ? NULL : sdp_list()->next;
	}
	return seq_list_next(v, sdp_list(), pos);
}

static void sdp_seq_stop(struct seq_file *seq, void *v)
{
	sdp_list_unlock();
}

static int sdp_seq_show(struct seq_file *seq, void *v)
{
	struct sdp_sock *sdp;
	struct sock *sk;
	const struct sockaddr *src, *dst;
	int state;

	if (v == SEQ_START_TOKEN) {
		seq_puts(seq, "local_address remote_address state uid inode tx_bcopy tx_zcopy rx_bcopy rx_zcopy\n");
		return 0;
	}
	sdp = list_entry(v, struct sdp_sock, node);
	sk = &sdp->sk;
	if (!net_eq(sock_net(sk), seq_file_net(seq)))
		return 0;
	if (READ_ONCE(sdp->id) && !READ_ONCE(sdp->destroying)) {
		src = (struct sockaddr *)&sdp->id->route.addr.src_addr;
		dst = (struct sockaddr *)&sdp->id->route.addr.dst_addr;
	} else {
		src = (struct sockaddr *)&sdp->local;
		dst = (struct sockaddr *)&sdp->remote;
	}
	state = READ_ONCE(sk->sk_state);
	if (src->sa_family == AF_INET || src->sa_family == AF_INET6)
		seq_printf(seq, "%pISpc ", src);
	else
		seq_puts(seq, "- ");
	if (sdp->connected &&
	    (dst->sa_family == AF_INET || dst->sa_family == AF_INET6))
		seq_printf(seq, "%pISpc ", dst);
	else
		seq_puts(seq, "- ");
	seq_printf(seq, "%s %u %lu %llu %llu %llu %llu\n",
		   state < ARRAY_SIZE(sdp_state_names) &&
		   sdp_state_names[state] ? sdp_state_names[state] : "?",
		   from_kuid_munged(seq_user_ns(seq), sock_i_uid(sk)),
		   sk->sk_socket ? SOCK_INODE(sk->sk_socket)->i_ino : 0UL,
		   READ_ONCE(sdp->bytes_sent), READ_ONCE(sdp->zc_sent),
		   READ_ONCE(sdp->bytes_rcvd), READ_ONCE(sdp->zc_rcvd));
	return 0;
}

static const struct seq_operations sdp_seq_ops = {
	.start = sdp_seq_start,
	.next = sdp_seq_next,
	.stop = sdp_seq_stop,
	.show = sdp_seq_show,
};

static int __net_init sdp_proc_net_init(struct net *net)
{
	if (!proc_create_net("sdp", 0444, net->proc_net, &sdp_seq_ops,
			     sizeof(struct seq_net_private)))
		return -ENOMEM;
	if (!proc_create_net_single("sdpstats", 0444, net->proc_net,
				    sdp_stats_show, NULL)) {
		remove_proc_entry("sdp", net->proc_net);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit sdp_proc_net_exit(struct net *net)
{
	remove_proc_entry("sdpstats", net->proc_net);
	remove_proc_entry("sdp", net->proc_net);
}

static struct pernet_operations sdp_proc_ops = {
	.init = sdp_proc_net_init,
	.exit = sdp_proc_net_exit,
	.id = &sdp_net_id,
	.size = sizeof(struct sdp_net),
};

/**
 * sdp_proc_init() - /proc/net/sdp and sdpstats in every network namespace
 *
 * Return: 0 or a negative errno.
 */
int sdp_proc_init(void)
{
	return register_pernet_subsys(&sdp_proc_ops);
}

/**
 * sdp_proc_exit() - undo sdp_proc_init()
 */
void sdp_proc_exit(void)
{
	unregister_pernet_subsys(&sdp_proc_ops);
}
