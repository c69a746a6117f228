/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the suites that talk netlink share: a netlink socket of the test's
 * own in the initial network namespace, and requests over it one at a
 * time, the way a program would send them (rdma's NETLINK_RDMA requests,
 * rtnetlink's "ip link" and "ip addr").
 *
 * The socket is a kernel socket with a file, so that a request that needs
 * CAP_NET_ADMIN is judged by the credentials of the test's thread (a
 * kernel thread, which has them all); netlink looks at the file of the
 * sending socket for that.  Requests are answered while they are sent, so
 * the answers are read without waiting.
 */
#ifndef NL_TEST_H
#define NL_TEST_H

#include <linux/err.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

/* Room for one answer: a reply and an acknowledgment come one by one. */
#define NLT_BUF_SIZE	8192

/**
 * struct nlt_sock - the test's netlink socket
 * @sock: the socket
 * @file: its file; closing it releases the socket
 */
struct nlt_sock {
	struct socket	*sock;
	struct file	*file;
};

/**
 * nlt_open - open a netlink socket in the initial network namespace
 * @nl: filled in
 * @protocol: NETLINK_RDMA, NETLINK_ROUTE...
 *
 * Return: 0 or a negative errno.
 */
static inline int nlt_open(struct nlt_sock *nl, int protocol)
{
	struct socket *sock;
	struct file *file;
	int ret;

	ret = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, protocol,
			       &sock);
	if (ret)
		return ret;
	/* on failure the socket is released with it */
	file = sock_alloc_file(sock, 0, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	nl->sock = sock;
	nl->file = file;
	return 0;
}

/**
 * nlt_close - close a socket from nlt_open()
 * @nl: the socket
 */
static inline void nlt_close(struct nlt_sock *nl)
{
	fput(nl->file);
}

/**
 * nlt_request - send a request and read its answers
 * @nl: the socket
 * @skb: the request, one message built with nlmsg_put(); consumed.
 *	NLM_F_ACK is added, so that every request ends in an
 *	acknowledgment.
 * @reply: where the first answer other than the acknowledgment is
 *	copied (zeroed first), or NULL
 * @size: bytes at @reply
 *
 * Return: the error of the acknowledgment (0 if the request succeeded),
 * or a negative errno of the socket (-EAGAIN: no acknowledgment came).
 */
static inline int nlt_request(struct nlt_sock *nl, struct sk_buff *skb,
			      void *reply, size_t size)
{
	struct msghdr msg = {};
	bool copied = false;
	struct nlmsghdr *nlh;
	struct kvec iov;
	void *buf;
	int len, ret;

	nlmsg_hdr(skb)->nlmsg_flags |= NLM_F_ACK;
	iov.iov_base = skb->data;
	iov.iov_len = skb->len;
	ret = kernel_sendmsg(nl->sock, &msg, &iov, 1, skb->len);
	kfree_skb(skb);
	if (ret < 0)
		return ret;

	if (reply)
		memset(reply, 0, size);
	buf = kmalloc(NLT_BUF_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = buf;
		iov.iov_len = NLT_BUF_SIZE;
		len = kernel_recvmsg(nl->sock, &msg, &iov, 1, NLT_BUF_SIZE,
				     MSG_DONTWAIT);
		if (len < 0) {
			ret = len;
			break;
		}
		for (nlh = buf; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				ret = ((struct nlmsgerr *)nlmsg_data(nlh))->error;
				goto out;
			}
			if (reply && !copied) {
				memcpy(reply, nlh, min_t(size_t, size,
							 nlh->nlmsg_len));
				copied = true;
			}
		}
	}
out:
	kfree(buf);
	return ret;
}

#endif /* NL_TEST_H */
