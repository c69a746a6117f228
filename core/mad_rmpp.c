// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel RMPP (IBA 13.6): the sender and receiver state machines the MAD
 * layer runs for agents registered with an RMPP version and without
 * IB_MAD_USER_RMPP.
 *
 * Sender.  A send created with rmpp_active keeps its data apart, in
 * seg_count pieces of seg_size (256 - hdr_len) bytes.  Posted as an active
 * DATA message, its segments go out one at a time through the send's own
 * MAD buffer: the header, the segment's data and an RMPP header with
 * SegmentNumber, FIRST/LAST and PayloadLength (on the first segment the
 * whole payload counted from byte 36, seg_count * 220 - pad; on the last
 * one 220 - pad; 0 in between).  It sends while the segment number is
 * within the receiver's window (at first only segment 1, then up to the
 * NewWindowLast of the last ACK), then waits for an ACK for at most
 * min(timeout_ms, 2 s) (2 s without a timeout).  On an ACK timeout it
 * resends from the segment after the last acknowledged one, as long as
 * the send's retries last; an ACK that moves forward renews them.  The
 * ACK of the last segment completes the send, or for a request starts the
 * wait for its response (timeout_ms).  STOP or ABORT from the receiver,
 * and bad ACKs (which the sender answers with ABORT), end the send with
 * IB_WC_REM_ABORT_ERR.
 *
 * Receiver.  Segments are reassembled per transaction, keyed by TID,
 * class, class version, method, source LID and source QP.  The first
 * segment (seg 1, FIRST) starts a reassembly (for a response only if a
 * request is waiting for it) and is acknowledged with a window of
 * IB_RMPP_WINDOW segments; later segments inside the window are kept,
 * also out of order, and each time the in-order part reaches the end of
 * the window it is acknowledged with the next window.  Segments already
 * acknowledged are answered with the last ACK again, others outside the
 * window are dropped.  The LAST segment completes the message: it is
 * acknowledged, checked against the PayloadLength of the first segment,
 * and handed to the agent as one ib_mad_recv_wc whose rmpp_list holds the
 * segments in order and whose mad_len is hdr_len + segments * (256 -
 * hdr_len) - (220 - PayloadLength of the last).  A reassembly without
 * progress for IB_RMPP_RECV_TIMEOUT_MS is aborted (ABORT, T2L) and freed;
 * a finished one is remembered IB_RMPP_DONE_LINGER_MS to re-ACK repeated
 * segments.  An agent has at most IB_RMPP_MAX_ACTIVE reassemblies and
 * IB_RMPP_MAX_SEGS segments in them: a new message ends the oldest
 * reassembly (STOP, resources exhausted), a message too long gets STOP.
 * Malformed segments are answered with ABORT (bad version, segment
 * number, PayloadLength, status or type) and end their reassembly.
 *
 * ACK, STOP and ABORT go back to the source of the MAD they answer, with
 * its header and the response bit of the method flipped (so that an ACK
 * of a response reaches the agent that registered the request method,
 * and an ACK of a request the sender's hi_tid), through the port's reply
 * agent.  Everything here is under the agent's lock.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "core_priv.h"
#include "mad_priv.h"

/**
 * struct ib_rmpp_recv - a message being received (or just received)
 * @list: entry in the agent's rmpp_recvs
 * @first: the first segment; its recv_wc.rmpp_list holds the segments
 *	received so far in order of their numbers; NULL once delivered
 * @cur: the last segment received in order
 * @tid: key: TID
 * @src_qp: key: source QP
 * @slid: key: source LID
 * @mgmt_class: key: class
 * @class_version: key: class version
 * @method: key: method
 * @done: delivered; kept to re-ACK repeated segments
 * @seg_num: segments received in order
 * @last_ack: SegmentNumber of the last ACK sent
 * @newwin: NewWindowLast of the last ACK sent
 * @nsegs: segments held
 * @first_paylen: PayloadLength of the first segment (0 if unknown)
 * @expires: when it is aborted (or forgotten, once @done)
 * @end_type: how it is ended if ended by force (STOP or ABORT)
 * @end_status: and with which RMPP status
 */
struct ib_rmpp_recv {
	struct list_head	list;
	struct ib_mad_private	*first;
	struct ib_mad_recv_buf	*cur;
	__be64			tid;
	u32			src_qp;
	u32			slid;
	u8			mgmt_class;
	u8			class_version;
	u8			method;
	bool			done;
	int			seg_num;
	int			last_ack;
	int			newwin;
	int			nsegs;
	u32			first_paylen;
	unsigned long		expires;
	u8			end_type;
	u8			end_status;
};

/* An ACK, STOP or ABORT to send once the agent's lock is dropped. */
struct ib_rmpp_reply {
	struct ib_rmpp_mad	mad;
	struct ib_wc		wc;
	struct ib_grh		grh;
	bool			grh_valid;
	bool			armed;
};

/* ------------------------------------------------------------------ */
/* Arithmetic and checks                                               */
/* ------------------------------------------------------------------ */

/**
 * ib_rmpp_seg_count - segments of an RMPP send
 * @hdr_len: header bytes repeated in every segment (36 to 255)
 * @data_len: data bytes
 * @pad: set to the unused bytes of the last segment
 *
 * A message without data still has one segment (all of it padding).
 *
 * Return: the number of segments, or -EINVAL.
 */
int ib_rmpp_seg_count(int hdr_len, int data_len, int *pad)
{
	int seg_size = IB_MGMT_MAD_SIZE - hdr_len;
	int rest;

	if (hdr_len < IB_MGMT_RMPP_HDR || seg_size <= 0 || data_len < 0)
		return -EINVAL;
	rest = data_len % seg_size;
	*pad = !data_len ? seg_size : rest ? seg_size - rest : 0;
	if (data_len > INT_MAX - *pad)
		return -EINVAL;
	return (data_len + *pad) / seg_size;
}
EXPORT_SYMBOL_GPL(ib_rmpp_seg_count);

/**
 * ib_rmpp_send_paylen - PayloadLength of a DATA segment
 * @seg_num: the segment, from 1
 * @seg_count: segments of the message
 * @pad: unused bytes of the last segment
 *
 * Counted from byte 36 of each segment, class header included.
 *
 * Return: the whole payload on the first segment, the last segment's
 * payload on the last (a message of one segment is its last), else 0.
 */
u32 ib_rmpp_send_paylen(int seg_num, int seg_count, int pad)
{
	if (seg_num == seg_count)
		return IB_MGMT_RMPP_DATA - pad;
	if (seg_num == 1)
		return seg_count * IB_MGMT_RMPP_DATA - pad;
	return 0;
}
EXPORT_SYMBOL_GPL(ib_rmpp_send_paylen);

/**
 * ib_rmpp_recv_len - mad_len of a reassembled message
 * @hdr_len: the class's header bytes
 * @seg_count: segments received
 * @last_paylen: PayloadLength of the last segment (checked by
 *	ib_rmpp_check_data())
 *
 * Return: one header plus the data of all segments.
 */
int ib_rmpp_recv_len(int hdr_len, int seg_count, u32 last_paylen)
{
	return hdr_len + seg_count * (IB_MGMT_MAD_SIZE - hdr_len) -
	       (IB_MGMT_RMPP_DATA - (int)last_paylen);
}
EXPORT_SYMBOL_GPL(ib_rmpp_recv_len);

/* Segments a first PayloadLength announces. */
static u32 ib_rmpp_announced(u32 paylen)
{
	return DIV_ROUND_UP(paylen, IB_MGMT_RMPP_DATA);
}

/**
 * ib_rmpp_check_data - check the RMPP header of a received DATA segment
 * @rmpp_hdr: the header (version and ACTIVE already checked)
 * @hdr_len: the class's header bytes
 *
 * SegmentNumber must be 1 exactly on the FIRST segment; PayloadLength of
 * a LAST segment must lie between the class header's share (hdr_len - 36)
 * and 220; a FIRST segment that is not the last announces 0 (unknown) or
 * more than one segment's payload, with a plausible last segment.
 *
 * Return: 0, or the RMPP status of the ABORT to answer with.
 */
int ib_rmpp_check_data(const struct ib_rmpp_hdr *rmpp_hdr, int hdr_len)
{
	u8 flags = rmpp_hdr->rmpp_rtime_flags & 0x7;
	u32 seg = be32_to_cpu(rmpp_hdr->seg_num);
	u32 paylen = be32_to_cpu(rmpp_hdr->paylen_newwin);
	u32 min_last = hdr_len - IB_MGMT_RMPP_HDR;
	bool seg_one = seg == 1;
	bool first;
	u32 n;

	if (rmpp_hdr->rmpp_status)
		return IB_MGMT_RMPP_STATUS_BAD_STATUS;
	/* segment 1 and only segment 1 is FIRST */
	first = flags & IB_MGMT_RMPP_FLAG_FIRST;
	if (!seg || first != seg_one)
		return IB_MGMT_RMPP_STATUS_BAD_SEG;
	if (flags & IB_MGMT_RMPP_FLAG_LAST) {
		if (paylen < min_last || paylen > IB_MGMT_RMPP_DATA)
			return IB_MGMT_RMPP_STATUS_BAD_LEN;
	} else if ((flags & IB_MGMT_RMPP_FLAG_FIRST) && paylen) {
		n = ib_rmpp_announced(paylen);
		if (n < 2 || paylen - (n - 1) * IB_MGMT_RMPP_DATA < min_last)
			return IB_MGMT_RMPP_STATUS_BAD_LEN;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(ib_rmpp_check_data);

/**
 * ib_rmpp_check_last - check a complete message against its first segment
 * @hdr_len: the class's header bytes
 * @first_paylen: PayloadLength of the first segment, 0 if unknown
 * @seg_count: segments received
 * @last_paylen: PayloadLength of the last segment
 *
 * Return: 0, or IB_MGMT_RMPP_STATUS_BAD_LEN if the first segment
 * announced another number of segments or another last payload.
 */
int ib_rmpp_check_last(int hdr_len, u32 first_paylen, int seg_count,
		       u32 last_paylen)
{
	if (!first_paylen || seg_count == 1)
		return 0;
	if (ib_rmpp_announced(first_paylen) != seg_count ||
	    first_paylen - (seg_count - 1) * IB_MGMT_RMPP_DATA != last_paylen)
		return IB_MGMT_RMPP_STATUS_BAD_LEN;
	return 0;
}
EXPORT_SYMBOL_GPL(ib_rmpp_check_last);

/**
 * ib_rmpp_ack_verdict - judge an ACK at the sender
 * @seg_num: its SegmentNumber
 * @newwin: its NewWindowLast
 * @sent: the highest segment sent so far
 * @last_ack: the highest segment acknowledged so far
 * @cur_newwin: the window granted so far (at most @seg_count)
 * @seg_count: segments of the message
 *
 * Return: the verdict, see enum ib_rmpp_ack_verdict.
 */
enum ib_rmpp_ack_verdict ib_rmpp_ack_verdict(u32 seg_num, u32 newwin,
					     int sent, int last_ack,
					     int cur_newwin, int seg_count)
{
	u32 win = min_t(u32, newwin, seg_count);

	if (newwin < seg_num)
		return IB_RMPP_ACK_W2S;
	if (seg_num > (u32)sent)
		return IB_RMPP_ACK_S2B;
	if (seg_num < (u32)last_ack || win < (u32)cur_newwin)
		return IB_RMPP_ACK_OLD;
	if (seg_num == (u32)seg_count)
		return IB_RMPP_ACK_ALL;
	if (seg_num == (u32)last_ack && win == (u32)cur_newwin)
		return IB_RMPP_ACK_OLD;
	return IB_RMPP_ACK_MORE;
}
EXPORT_SYMBOL_GPL(ib_rmpp_ack_verdict);

/**
 * ib_rmpp_seg_verdict - judge a later DATA segment at the receiver
 * @seg_num: its SegmentNumber
 * @in_order: segments received in order so far
 * @last_ack: SegmentNumber of the last ACK sent
 * @newwin: NewWindowLast of the last ACK sent
 * @done: the message is complete
 *
 * Return: the verdict, see enum ib_rmpp_seg_verdict.
 */
enum ib_rmpp_seg_verdict ib_rmpp_seg_verdict(u32 seg_num, int in_order,
					     int last_ack, int newwin,
					     bool done)
{
	if (done || seg_num <= (u32)last_ack)
		return IB_RMPP_SEG_REACK;
	if (seg_num > (u32)newwin)
		return IB_RMPP_SEG_DROP;
	if (seg_num <= (u32)in_order)
		return IB_RMPP_SEG_DUP;
	return IB_RMPP_SEG_STORE;
}
EXPORT_SYMBOL_GPL(ib_rmpp_seg_verdict);

/* ------------------------------------------------------------------ */
/* Sender                                                              */
/* ------------------------------------------------------------------ */

/* Set up the segments of a send created with rmpp_active. */
int ib_mad_rmpp_send_alloc(struct ib_mad_send_wr_private *wr, int hdr_len,
			   int data_len, gfp_t gfp)
{
	struct ib_mad_send_buf *buf = &wr->send_buf;
	struct ib_rmpp_mad *rmpp = (struct ib_rmpp_mad *)wr->mad;
	int count, pad;

	count = ib_rmpp_seg_count(hdr_len, data_len, &pad);
	if (count < 0 || count > IB_RMPP_MAX_SEND_SEGS)
		return -EINVAL;
	buf->seg_count = count;
	buf->seg_size = IB_MGMT_MAD_SIZE - hdr_len;
	buf->seg_rmpp_size = IB_MGMT_RMPP_DATA;
	wr->pad = pad;
	wr->rmpp_data = kvzalloc(array_size(count, buf->seg_size), gfp);
	if (!wr->rmpp_data)
		return -ENOMEM;
	rmpp->rmpp_hdr.rmpp_version = buf->mad_agent->rmpp_version;
	rmpp->rmpp_hdr.rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
	ib_set_rmpp_flags(&rmpp->rmpp_hdr, IB_MGMT_RMPP_FLAG_ACTIVE);
	return 0;
}

/* The data of segment @seg_num (from 1), or NULL. */
void *ib_mad_rmpp_segment(struct ib_mad_send_wr_private *wr, int seg_num)
{
	struct ib_mad_send_buf *buf = &wr->send_buf;

	if (seg_num < 1 || seg_num > buf->seg_count)
		return NULL;
	return wr->rmpp_data + (size_t)(seg_num - 1) * buf->seg_size;
}

/* Put DATA segment @seg_num in wr->mad, after the caller's header. */
static void ib_mad_rmpp_build(struct ib_mad_send_wr_private *wr, int seg_num)
{
	struct ib_mad_send_buf *buf = &wr->send_buf;
	struct ib_rmpp_mad *rmpp = (struct ib_rmpp_mad *)wr->mad;
	u8 flags = IB_MGMT_RMPP_FLAG_ACTIVE;

	memcpy(wr->mad + buf->hdr_len, ib_mad_rmpp_segment(wr, seg_num),
	       buf->seg_size);
	if (seg_num == 1)
		flags |= IB_MGMT_RMPP_FLAG_FIRST;
	if (seg_num == buf->seg_count)
		flags |= IB_MGMT_RMPP_FLAG_LAST;
	ib_set_rmpp_flags(&rmpp->rmpp_hdr, flags);
	rmpp->rmpp_hdr.rmpp_status = 0;
	rmpp->rmpp_hdr.seg_num = cpu_to_be32(seg_num);
	rmpp->rmpp_hdr.paylen_newwin =
		cpu_to_be32(ib_rmpp_send_paylen(seg_num, buf->seg_count,
						wr->pad));
	wr->seg_num = seg_num;
}

/*
 * At post time: an active DATA message starts with segment 1 and a window
 * of one segment; anything else goes out as one MAD, header and segment 1.
 */
void ib_mad_rmpp_send_start(struct ib_mad_send_wr_private *wr)
{
	struct ib_rmpp_mad *rmpp = (struct ib_rmpp_mad *)wr->mad;
	struct ib_mad_send_buf *buf = &wr->send_buf;

	if (!(ib_get_rmpp_flags(&rmpp->rmpp_hdr) & IB_MGMT_RMPP_FLAG_ACTIVE) ||
	    rmpp->rmpp_hdr.rmpp_type != IB_MGMT_RMPP_TYPE_DATA) {
		memcpy(wr->mad + buf->hdr_len, ib_mad_rmpp_segment(wr, 1),
		       buf->seg_size);
		wr->last_ack = 0;
		return;
	}
	rmpp->rmpp_hdr.rmpp_version = IB_MGMT_RMPP_VERSION;
	wr->rmpp_pending = true;
	wr->last_ack = 0;
	wr->newwin = 1;
	wr->max_retries = wr->retries_left;
	ib_mad_rmpp_build(wr, 1);
}

/*
 * After a segment was sent: put the next one in wr->mad if the window
 * allows.  Caller holds the agent's lock; the send is not on the wire.
 */
bool ib_mad_rmpp_next_seg(struct ib_mad_send_wr_private *wr)
{
	if (wr->seg_num >= wr->newwin ||
	    wr->seg_num >= wr->send_buf.seg_count)
		return false;
	ib_mad_rmpp_build(wr, wr->seg_num + 1);
	return true;
}

/*
 * Whether every DATA segment of an RMPP send was acknowledged.  Such a
 * request is not sent again when its response does not come.
 */
bool ib_mad_rmpp_all_acked(const struct ib_mad_send_wr_private *wr)
{
	return wr->rmpp_data && !wr->rmpp_pending &&
	       wr->last_ack == wr->send_buf.seg_count;
}

/* ACK timeout: start again after the last acknowledged segment. */
void ib_mad_rmpp_rewind(struct ib_mad_send_wr_private *wr)
{
	ib_mad_rmpp_build(wr, wr->last_ack + 1);
}

/* How long to wait for an ACK, in jiffies. */
unsigned long ib_mad_rmpp_ack_timeout(const struct ib_mad_send_wr_private *wr)
{
	int ms = wr->send_buf.timeout_ms;

	if (ms <= 0 || ms > IB_RMPP_ACK_TIMEOUT_MS)
		ms = IB_RMPP_ACK_TIMEOUT_MS;
	return msecs_to_jiffies(ms);
}

/* The RMPP send an ACK, STOP or ABORT is about; caller holds the lock. */
static struct ib_mad_send_wr_private *
ib_rmpp_find_send(struct ib_mad_agent_private *priv,
		  const struct ib_mad_private *mp)
{
	const struct ib_mad_hdr *hdr = (const struct ib_mad_hdr *)mp->buf.mad;
	struct list_head *lists[] = { &priv->wait_list, &priv->send_list };
	struct ib_mad_send_wr_private *wr;
	const struct ib_mad_hdr *sent;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry(wr, lists[i], agent_list) {
			sent = (const struct ib_mad_hdr *)wr->mad;
			if (!wr->rmpp_pending || wr->status != IB_WC_SUCCESS ||
			    wr->tid != hdr->tid ||
			    sent->mgmt_class != hdr->mgmt_class)
				continue;
			if (wr->check_lid && wr->dlid != mp->wc.slid)
				continue;
			return wr;
		}
	}
	return NULL;
}

/* End an RMPP send with an error; caller holds the lock. */
static void ib_rmpp_fail_send(struct ib_mad_agent_private *priv,
			      struct ib_mad_send_wr_private *wr)
{
	wr->status = IB_WC_REM_ABORT_ERR;
	wr->rmpp_pending = false;
	wr->awaiting = false;
	if (!wr->posted) {
		/* the timed work reports it */
		wr->deadline = jiffies;
		ib_mad_wait_insert(priv, wr);
	}
}

/* The receiver of @mp's transaction gave up, or talks nonsense. */
static void ib_rmpp_abort_send(struct ib_mad_agent_private *priv,
			       const struct ib_mad_private *mp)
{
	struct ib_mad_send_wr_private *wr;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	wr = ib_rmpp_find_send(priv, mp);
	if (wr)
		ib_rmpp_fail_send(priv, wr);
	spin_unlock_irqrestore(&priv->lock, flags);
}

/* ------------------------------------------------------------------ */
/* Replies                                                             */
/* ------------------------------------------------------------------ */

/* An ACK, STOP or ABORT answering @mp, sent by ib_rmpp_reply_send(). */
static void ib_rmpp_reply_set(struct ib_rmpp_reply *rp,
			      const struct ib_mad_private *mp, u8 type,
			      u8 status, u32 seg_num, u32 newwin)
{
	const struct ib_mad_hdr *hdr = (const struct ib_mad_hdr *)mp->buf.mad;
	int hdr_len = ib_get_mad_data_offset(hdr->mgmt_class);

	memset(&rp->mad, 0, sizeof(rp->mad));
	memcpy(&rp->mad, mp->buf.mad, hdr_len);
	rp->mad.mad_hdr.method ^= IB_MGMT_METHOD_RESP;
	rp->mad.rmpp_hdr.rmpp_version = IB_MGMT_RMPP_VERSION;
	rp->mad.rmpp_hdr.rmpp_type = type;
	rp->mad.rmpp_hdr.rmpp_rtime_flags = IB_MGMT_RMPP_FLAG_ACTIVE;
	rp->mad.rmpp_hdr.rmpp_status = status;
	rp->mad.rmpp_hdr.seg_num = cpu_to_be32(seg_num);
	rp->mad.rmpp_hdr.paylen_newwin = cpu_to_be32(newwin);
	rp->wc = mp->wc;
	rp->grh_valid = mp->wc.wc_flags & IB_WC_GRH;
	if (rp->grh_valid)
		rp->grh = mp->buf.grh;
	rp->armed = true;
}

static void ib_rmpp_reply_send(struct ib_mad_agent_private *priv,
			       struct ib_rmpp_reply *rp)
{
	if (!rp->armed)
		return;
	ib_mad_send_reply(priv->qp_info, &rp->wc,
			  rp->grh_valid ? &rp->grh : NULL,
			  (const struct ib_mad *)&rp->mad);
	rp->armed = false;
}

/* ------------------------------------------------------------------ */
/* Receiver                                                            */
/* ------------------------------------------------------------------ */

static u32 ib_rmpp_buf_seg(const struct ib_mad_recv_buf *buf)
{
	return be32_to_cpu(((const struct ib_rmpp_mad *)buf->mad)->rmpp_hdr.seg_num);
}

static bool ib_rmpp_buf_last(const struct ib_mad_recv_buf *buf)
{
	return ib_get_rmpp_flags(&((struct ib_rmpp_mad *)buf->mad)->rmpp_hdr) &
	       IB_MGMT_RMPP_FLAG_LAST;
}

/* Caller holds the lock. */
static struct ib_rmpp_recv *ib_rmpp_find_recv(struct ib_mad_agent_private *priv,
					      const struct ib_mad_private *mp)
{
	const struct ib_mad_hdr *hdr = (const struct ib_mad_hdr *)mp->buf.mad;
	struct ib_rmpp_recv *r;

	list_for_each_entry(r, &priv->rmpp_recvs, list) {
		if (r->tid == hdr->tid && r->src_qp == mp->wc.src_qp &&
		    r->slid == mp->wc.slid &&
		    r->mgmt_class == hdr->mgmt_class &&
		    r->class_version == hdr->class_version &&
		    r->method == hdr->method)
			return r;
	}
	return NULL;
}

/* Run the expiry work by @expires at the latest; caller holds the lock. */
static void ib_rmpp_arm(struct ib_mad_agent_private *priv,
			unsigned long expires)
{
	if (priv->dead)
		return;
	if (delayed_work_pending(&priv->rmpp_work) &&
	    !time_before(expires, priv->rmpp_next))
		return;
	priv->rmpp_next = expires;
	mod_delayed_work(system_wq, &priv->rmpp_work,
			 time_after(expires, jiffies) ? expires - jiffies : 0);
}

/* Take a reassembly off the agent onto @kill; caller holds the lock. */
static void ib_rmpp_unlink(struct ib_mad_agent_private *priv,
			   struct ib_rmpp_recv *r, struct list_head *kill)
{
	list_move_tail(&r->list, kill);
	if (r->done) {
		priv->rmpp_done--;
	} else {
		priv->rmpp_active--;
		priv->rmpp_segs -= r->nsegs;
	}
}

/* Free reassemblies taken off, telling the senders of unfinished ones. */
static void ib_rmpp_kill(struct ib_mad_agent_private *priv,
			 struct list_head *kill, bool tell)
{
	struct ib_rmpp_recv *r, *tmp;
	struct ib_rmpp_reply rp;

	list_for_each_entry_safe(r, tmp, kill, list) {
		list_del(&r->list);
		if (r->first) {
			if (tell && r->end_type) {
				ib_rmpp_reply_set(&rp, r->first, r->end_type,
						  r->end_status, 0, 0);
				ib_rmpp_reply_send(priv, &rp);
			}
			ib_free_recv_mad(&r->first->recv_wc);
		}
		kfree(r);
	}
}

/* Make room for a new reassembly; caller holds the lock. */
static void ib_rmpp_make_room(struct ib_mad_agent_private *priv,
			      struct list_head *kill)
{
	struct ib_rmpp_recv *r, *tmp;
	bool full_active, full_done;

	list_for_each_entry_safe(r, tmp, &priv->rmpp_recvs, list) {
		full_active = priv->rmpp_active >= IB_RMPP_MAX_ACTIVE ||
			      priv->rmpp_segs >= IB_RMPP_MAX_SEGS;
		full_done = priv->rmpp_done >= IB_RMPP_MAX_DONE;
		if (!full_active && !full_done)
			return;
		if (r->done ? !full_done : !full_active)
			continue;
		/* the oldest goes */
		r->end_type = IB_MGMT_RMPP_TYPE_STOP;
		r->end_status = IB_MGMT_RMPP_STATUS_RESX;
		ib_rmpp_unlink(priv, r, kill);
	}
}

static void ib_rmpp_expire(struct work_struct *work)
{
	struct ib_mad_agent_private *priv =
		container_of(to_delayed_work(work), struct ib_mad_agent_private,
			     rmpp_work);
	struct ib_rmpp_recv *r, *tmp;
	unsigned long flags, next = 0;
	bool arm = false;
	LIST_HEAD(kill);

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry_safe(r, tmp, &priv->rmpp_recvs, list) {
		if (!time_before(jiffies, r->expires)) {
			r->end_type = IB_MGMT_RMPP_TYPE_ABORT;
			r->end_status = IB_MGMT_RMPP_STATUS_T2L;
			ib_rmpp_unlink(priv, r, &kill);
			continue;
		}
		if (!arm || time_before(r->expires, next)) {
			next = r->expires;
			arm = true;
		}
	}
	if (arm)
		ib_rmpp_arm(priv, next);
	spin_unlock_irqrestore(&priv->lock, flags);
	ib_rmpp_kill(priv, &kill, true);
}

/*
 * Put segment @mp of @r where its number belongs.  Returns false for a
 * segment already held.  Caller holds the lock.
 */
static bool ib_rmpp_insert(struct ib_rmpp_recv *r, struct ib_mad_private *mp,
			   u32 seg)
{
	struct list_head *head = &r->first->recv_wc.rmpp_list;
	struct ib_mad_recv_buf *buf, *nbuf = &mp->recv_wc.recv_buf;
	struct list_head *after = head;
	u32 n;

	list_for_each_entry_reverse(buf, head, list) {
		n = ib_rmpp_buf_seg(buf);
		if (n == seg)
			return false;
		if (n < seg) {
			after = &buf->list;
			break;
		}
	}
	nbuf->grh = &mp->buf.grh;
	nbuf->mad = (struct ib_mad *)mp->buf.mad;
	list_add(&nbuf->list, after);
	r->nsegs++;
	/* move the in-order end forward, up to a LAST segment */
	while (!ib_rmpp_buf_last(r->cur) && !list_is_last(&r->cur->list, head)) {
		buf = list_next_entry(r->cur, list);
		if (ib_rmpp_buf_seg(buf) != r->seg_num + 1)
			break;
		r->cur = buf;
		r->seg_num++;
	}
	return true;
}

/* A new reassembly starting with @mp (segment 1); caller holds the lock. */
static void ib_rmpp_start(struct ib_mad_agent_private *priv,
			  struct ib_rmpp_recv *r, struct ib_mad_private *mp)
{
	const struct ib_rmpp_mad *rmpp = (const struct ib_rmpp_mad *)mp->buf.mad;

	r->tid = rmpp->mad_hdr.tid;
	r->src_qp = mp->wc.src_qp;
	r->slid = mp->wc.slid;
	r->mgmt_class = rmpp->mad_hdr.mgmt_class;
	r->class_version = rmpp->mad_hdr.class_version;
	r->method = rmpp->mad_hdr.method;
	ib_mad_prepare_recv_wc(mp);
	r->first = mp;
	r->cur = &mp->recv_wc.recv_buf;
	r->seg_num = 1;
	r->nsegs = 1;
	r->newwin = 1;
	if (!(ib_get_rmpp_flags((struct ib_rmpp_hdr *)&rmpp->rmpp_hdr) &
	      IB_MGMT_RMPP_FLAG_LAST))
		r->first_paylen = be32_to_cpu(rmpp->rmpp_hdr.paylen_newwin);
	list_add_tail(&r->list, &priv->rmpp_recvs);
	priv->rmpp_active++;
	priv->rmpp_segs++;
}

/*
 * After a segment was stored: complete the message, or acknowledge the
 * window.  Returns the message to deliver.  Caller holds the lock.
 */
static struct ib_mad_private *ib_rmpp_progress(struct ib_mad_agent_private *priv,
					       struct ib_rmpp_recv *r,
					       struct ib_mad_private *mp,
					       int hdr_len,
					       struct ib_rmpp_reply *rp,
					       struct list_head *kill)
{
	struct ib_mad_recv_buf *buf, *tmp;
	struct ib_mad_private *msg;
	u32 last_paylen;

	r->expires = jiffies + msecs_to_jiffies(IB_RMPP_RECV_TIMEOUT_MS);
	if (!ib_rmpp_buf_last(r->cur)) {
		if (r->seg_num == r->newwin) {
			r->newwin = r->seg_num + IB_RMPP_WINDOW;
			r->last_ack = r->seg_num;
			ib_rmpp_reply_set(rp, mp, IB_MGMT_RMPP_TYPE_ACK, 0,
					  r->last_ack, r->newwin);
		}
		ib_rmpp_arm(priv, r->expires);
		return NULL;
	}

	last_paylen = be32_to_cpu(((struct ib_rmpp_mad *)r->cur->mad)->rmpp_hdr.paylen_newwin);
	if (ib_rmpp_check_last(hdr_len, r->first_paylen, r->seg_num,
			       last_paylen)) {
		ib_rmpp_reply_set(rp, mp, IB_MGMT_RMPP_TYPE_ABORT,
				  IB_MGMT_RMPP_STATUS_BAD_LEN, 0, 0);
		ib_rmpp_unlink(priv, r, kill);
		return NULL;
	}
	/* segments beyond LAST are bogus */
	msg = r->first;
	list_for_each_entry_safe_reverse(buf, tmp, &msg->recv_wc.rmpp_list,
					 list) {
		if (buf == r->cur)
			break;
		list_del(&buf->list);
		r->nsegs--;
		priv->rmpp_segs--;
		kfree(container_of(buf, struct ib_mad_private,
				   recv_wc.recv_buf));
	}
	msg->recv_wc.mad_len = ib_rmpp_recv_len(hdr_len, r->seg_num,
						last_paylen);
	r->last_ack = r->seg_num;
	ib_rmpp_reply_set(rp, mp, IB_MGMT_RMPP_TYPE_ACK, 0, r->last_ack,
			  r->newwin);
	priv->rmpp_active--;
	priv->rmpp_segs -= r->nsegs;
	priv->rmpp_done++;
	r->done = true;
	r->first = NULL;
	r->cur = NULL;
	r->nsegs = 0;
	r->expires = jiffies + msecs_to_jiffies(IB_RMPP_DONE_LINGER_MS);
	ib_rmpp_arm(priv, r->expires);
	return msg;
}

/* A DATA segment; returns a complete message or NULL. */
static struct ib_mad_private *ib_rmpp_data(struct ib_mad_agent_private *priv,
					   struct ib_mad_private *mp,
					   int hdr_len)
{
	struct ib_rmpp_mad *rmpp = (struct ib_rmpp_mad *)mp->buf.mad;
	struct ib_mad_private *msg = NULL;
	struct ib_rmpp_recv *r, *fresh = NULL;
	struct ib_rmpp_reply rp = {};
	bool first, kept = false;
	unsigned long flags;
	LIST_HEAD(kill);
	int status;
	u32 seg;

	seg = be32_to_cpu(rmpp->rmpp_hdr.seg_num);
	first = ib_get_rmpp_flags(&rmpp->rmpp_hdr) & IB_MGMT_RMPP_FLAG_FIRST;
	status = ib_rmpp_check_data(&rmpp->rmpp_hdr, hdr_len);
	if (!status && first) {
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh)
			goto out;
	}

	spin_lock_irqsave(&priv->lock, flags);
	r = ib_rmpp_find_recv(priv, mp);
	if (status) {
		/* the whole message is lost */
		ib_rmpp_reply_set(&rp, mp, IB_MGMT_RMPP_TYPE_ABORT, status, 0,
				  0);
		if (r && !r->done)
			ib_rmpp_unlink(priv, r, &kill);
		goto unlock;
	}
	if (!r) {
		if (!first)
			goto unlock;	/* no such message: dropped */
		/* a response nobody waits for is not worth reassembling */
		if (ib_response_mad(&rmpp->mad_hdr) &&
		    !ib_mad_match_send(priv, mp))
			goto unlock;
		if (ib_rmpp_announced(be32_to_cpu(rmpp->rmpp_hdr.paylen_newwin)) >
		    IB_RMPP_MAX_SEGS) {
			ib_rmpp_reply_set(&rp, mp, IB_MGMT_RMPP_TYPE_STOP,
					  IB_MGMT_RMPP_STATUS_RESX, 0, 0);
			goto unlock;
		}
		ib_rmpp_make_room(priv, &kill);
		r = fresh;
		fresh = NULL;
		ib_rmpp_start(priv, r, mp);
		kept = true;
		msg = ib_rmpp_progress(priv, r, mp, hdr_len, &rp, &kill);
		goto unlock;
	}

	switch (ib_rmpp_seg_verdict(seg, r->seg_num, r->last_ack, r->newwin,
				    r->done)) {
	case IB_RMPP_SEG_REACK:
		ib_rmpp_reply_set(&rp, mp, IB_MGMT_RMPP_TYPE_ACK, 0,
				  r->last_ack, r->newwin);
		goto unlock;
	case IB_RMPP_SEG_DUP:
	case IB_RMPP_SEG_DROP:
		goto unlock;
	case IB_RMPP_SEG_STORE:
		break;
	}
	if (r->first_paylen && seg > ib_rmpp_announced(r->first_paylen)) {
		ib_rmpp_reply_set(&rp, mp, IB_MGMT_RMPP_TYPE_ABORT,
				  IB_MGMT_RMPP_STATUS_BAD_SEG, 0, 0);
		ib_rmpp_unlink(priv, r, &kill);
		goto unlock;
	}
	if (priv->rmpp_segs >= IB_RMPP_MAX_SEGS) {
		ib_rmpp_reply_set(&rp, mp, IB_MGMT_RMPP_TYPE_STOP,
				  IB_MGMT_RMPP_STATUS_RESX, 0, 0);
		ib_rmpp_unlink(priv, r, &kill);
		goto unlock;
	}
	if (!ib_rmpp_insert(r, mp, seg))
		goto unlock;	/* held already */
	priv->rmpp_segs++;
	kept = true;
	msg = ib_rmpp_progress(priv, r, mp, hdr_len, &rp, &kill);
unlock:
	spin_unlock_irqrestore(&priv->lock, flags);
	ib_rmpp_reply_send(priv, &rp);
	ib_rmpp_kill(priv, &kill, true);
out:
	kfree(fresh);
	if (!kept)
		kfree(mp);
	return msg;
}

/* An ACK at the sender. */
static void ib_rmpp_ack(struct ib_mad_agent_private *priv,
			struct ib_mad_private *mp, struct ib_rmpp_reply *rp)
{
	struct ib_rmpp_mad *rmpp = (struct ib_rmpp_mad *)mp->buf.mad;
	u32 seg = be32_to_cpu(rmpp->rmpp_hdr.seg_num);
	u32 newwin = be32_to_cpu(rmpp->rmpp_hdr.paylen_newwin);
	struct ib_mad_send_wr_private *wr;
	bool finish = false, post = false;
	unsigned long flags;
	int count;

	if (rmpp->rmpp_hdr.rmpp_status) {
		ib_rmpp_abort_send(priv, mp);
		ib_rmpp_reply_set(rp, mp, IB_MGMT_RMPP_TYPE_ABORT,
				  IB_MGMT_RMPP_STATUS_BAD_STATUS, 0, 0);
		return;
	}

	spin_lock_irqsave(&priv->lock, flags);
	wr = ib_rmpp_find_send(priv, mp);
	if (!wr)
		goto unlock;	/* unknown transaction: dropped */
	count = wr->send_buf.seg_count;
	switch (ib_rmpp_ack_verdict(seg, newwin, wr->seg_num, wr->last_ack,
				    wr->newwin, count)) {
	case IB_RMPP_ACK_OLD:
		break;
	case IB_RMPP_ACK_W2S:
		ib_rmpp_fail_send(priv, wr);
		ib_rmpp_reply_set(rp, mp, IB_MGMT_RMPP_TYPE_ABORT,
				  IB_MGMT_RMPP_STATUS_W2S, 0, 0);
		break;
	case IB_RMPP_ACK_S2B:
		ib_rmpp_fail_send(priv, wr);
		ib_rmpp_reply_set(rp, mp, IB_MGMT_RMPP_TYPE_ABORT,
				  IB_MGMT_RMPP_STATUS_S2B, 0, 0);
		break;
	case IB_RMPP_ACK_ALL:
		wr->last_ack = count;
		wr->newwin = count;
		wr->rmpp_pending = false;
		if (wr->posted)
			break;	/* the send completion goes on */
		if (wr->awaiting) {
			/* a request: now its response */
			wr->deadline = jiffies +
				msecs_to_jiffies(wr->send_buf.timeout_ms);
			ib_mad_wait_insert(priv, wr);
			break;
		}
		list_del(&wr->agent_list);
		finish = true;
		break;
	case IB_RMPP_ACK_MORE:
		if (seg > (u32)wr->last_ack) {
			wr->last_ack = seg;
			wr->retries_left = wr->max_retries;
		}
		wr->newwin = min_t(u32, newwin, count);
		if (wr->posted)
			break;
		if (ib_mad_rmpp_next_seg(wr)) {
			wr->posted = true;
			list_move_tail(&wr->agent_list, &priv->send_list);
			post = true;
		} else {
			wr->deadline = jiffies + ib_mad_rmpp_ack_timeout(wr);
			ib_mad_wait_insert(priv, wr);
		}
		break;
	}
unlock:
	spin_unlock_irqrestore(&priv->lock, flags);
	if (finish)
		ib_mad_finish_send(wr);
	if (post)
		ib_mad_repost(wr);
}

/* The sender ended a message we were receiving. */
static void ib_rmpp_sender_gone(struct ib_mad_agent_private *priv,
				const struct ib_mad_private *mp)
{
	struct ib_rmpp_recv *r;
	unsigned long flags;
	LIST_HEAD(kill);

	spin_lock_irqsave(&priv->lock, flags);
	r = ib_rmpp_find_recv(priv, mp);
	if (r && !r->done)
		ib_rmpp_unlink(priv, r, &kill);
	spin_unlock_irqrestore(&priv->lock, flags);
	ib_rmpp_kill(priv, &kill, false);
}

/**
 * ib_mad_rmpp_recv - kernel RMPP for a MAD received by a kernel-RMPP agent
 * @priv: the agent (referenced by the caller)
 * @mp: the MAD, not prepared for delivery yet
 *
 * Context: process context, may sleep.
 * Return: @mp if it is no active RMPP MAD, a complete message (its recv_wc
 * prepared), or NULL if the MAD was consumed.
 */
struct ib_mad_private *ib_mad_rmpp_recv(struct ib_mad_agent_private *priv,
					struct ib_mad_private *mp)
{
	struct ib_rmpp_mad *rmpp = (struct ib_rmpp_mad *)mp->buf.mad;
	u8 type = rmpp->rmpp_hdr.rmpp_type;
	u8 status = rmpp->rmpp_hdr.rmpp_status;
	struct ib_rmpp_reply rp = {};

	if (!ib_is_mad_class_rmpp(rmpp->mad_hdr.mgmt_class) ||
	    !(ib_get_rmpp_flags(&rmpp->rmpp_hdr) & IB_MGMT_RMPP_FLAG_ACTIVE))
		return mp;

	if (rmpp->rmpp_hdr.rmpp_version != IB_MGMT_RMPP_VERSION) {
		ib_rmpp_abort_send(priv, mp);
		/* never answer a STOP or ABORT: no ping-pong */
		if (type != IB_MGMT_RMPP_TYPE_STOP &&
		    type != IB_MGMT_RMPP_TYPE_ABORT)
			ib_rmpp_reply_set(&rp, mp, IB_MGMT_RMPP_TYPE_ABORT,
					  IB_MGMT_RMPP_STATUS_UNV, 0, 0);
		goto out;
	}

	switch (type) {
	case IB_MGMT_RMPP_TYPE_DATA:
		return ib_rmpp_data(priv, mp,
				    ib_get_mad_data_offset(rmpp->mad_hdr.mgmt_class));
	case IB_MGMT_RMPP_TYPE_ACK:
		ib_rmpp_ack(priv, mp, &rp);
		break;
	case IB_MGMT_RMPP_TYPE_STOP:
	case IB_MGMT_RMPP_TYPE_ABORT:
		/* from a receiver: ends our send; from a sender: its message */
		ib_rmpp_abort_send(priv, mp);
		ib_rmpp_sender_gone(priv, mp);
		if (type == IB_MGMT_RMPP_TYPE_STOP &&
		    status != IB_MGMT_RMPP_STATUS_RESX)
			dev_dbg_ratelimited(&priv->agent.device->dev,
					    "RMPP STOP with status %u\n",
					    status);
		break;
	default:
		ib_rmpp_abort_send(priv, mp);
		ib_rmpp_reply_set(&rp, mp, IB_MGMT_RMPP_TYPE_ABORT,
				  IB_MGMT_RMPP_STATUS_BADT, 0, 0);
		break;
	}
out:
	ib_rmpp_reply_send(priv, &rp);
	kfree(mp);
	return NULL;
}

/* Set up the RMPP receiver state of a new agent. */
void ib_mad_rmpp_agent_init(struct ib_mad_agent_private *priv)
{
	INIT_LIST_HEAD(&priv->rmpp_recvs);
	INIT_DELAYED_WORK(&priv->rmpp_work, ib_rmpp_expire);
}

/*
 * Free every reassembly of an agent being unregistered, once nothing
 * delivers to it any more.
 */
void ib_mad_rmpp_agent_cleanup(struct ib_mad_agent_private *priv)
{
	struct ib_rmpp_recv *r, *tmp;
	LIST_HEAD(kill);

	cancel_delayed_work_sync(&priv->rmpp_work);
	spin_lock_irq(&priv->lock);
	list_for_each_entry_safe(r, tmp, &priv->rmpp_recvs, list)
		ib_rmpp_unlink(priv, r, &kill);
	WARN_ON(priv->rmpp_active || priv->rmpp_segs || priv->rmpp_done);
	spin_unlock_irq(&priv->lock);
	ib_rmpp_kill(priv, &kill, false);
}
