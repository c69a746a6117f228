// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad: userspace access to the MAD layer through /dev/infiniband/umadN
 * and the IsSM capability bit through /dev/infiniband/issmN.
 *
 * Every port of every device gets one umadN (major 231, minor N for the
 * first 64 ports, a dynamic region after that) and one issmN (minor
 * 64 + N) in the class "infiniband_mad", whose sysfs files are the ones
 * libibumad reads: /sys/class/infiniband_mad/abi_version (5) and per
 * device ibdev and port.
 *
 * A umad file registers MAD agents by ioctl (up to 32, ids local to the
 * file), sends MADs by write() (a struct ib_user_mad_hdr, or the legacy
 * 56-byte header before IB_USER_MAD_ENABLE_PKEY, then the MAD) and reads
 * received MADs and timeout notifications (the request's header with
 * status ETIMEDOUT) by read().  Opening issmN sets IB_PORT_SM in the
 * port's capability mask, closing it clears it; one opener at a time.
 *
 * RMPP: for an agent registered with rmpp_version 1 (and without
 * IB_USER_MAD_USER_RMPP), a write of an RMPP class MAD with the ACTIVE flag
 * is one RMPP message of any length: the MAD layer splits the data after
 * the class header into segments that each repeat the header.  A received
 * RMPP message comes reassembled: one read returns the header, the class
 * header and all the data; its length is hdr_size + class header + total
 * payload.  A buffer too short for it gets the header and the first
 * segment, -ENOSPC, and the message stays queued for a bigger read.
 * Agents doing their own RMPP send and receive raw segments.
 *
 * Device removal: the client's remove callback deletes the character
 * devices, unregisters every agent of every open file and returns; the
 * files then fail with -EIO (read, write) or report EPOLLERR.
 *
 * Locking: a port's file_mutex guards its device pointer and its list of
 * files and orders agent registration against removal; a file's mutex
 * guards its agents, its recv_lock and send_lock its queues (see struct
 * umad_port and struct umad_file); sm_sem admits one issmN opener.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_ioctl.h>
#include <uapi/rdma/ib_user_mad.h>

MODULE_AUTHOR("The ibstack developers");
MODULE_DESCRIPTION("InfiniBand userspace MAD packet access");
MODULE_LICENSE("Dual BSD/GPL");

#define IB_UMAD_MAJOR			231
#define IB_UMAD_MAX_PORTS		256
#define IB_UMAD_NUM_FIXED_MINOR		64
#define IB_UMAD_NUM_DYNAMIC_MINOR	(IB_UMAD_MAX_PORTS - \
					 IB_UMAD_NUM_FIXED_MINOR)
#define IB_ISSM_MINOR_BASE		64
#define IB_UMAD_MAX_AGENTS		32
/* Received MADs queued on one file at most; more are dropped. */
#define IB_UMAD_MAX_RECV_LIST		4096
/* Bytes of received MADs queued on one file at most; more are dropped. */
#define IB_UMAD_MAX_RECV_BYTES		(64 << 20)
/* The longest write: header and a 16 MiB RMPP message. */
#define IB_UMAD_MAX_WRITE		(16 << 20)

static dev_t umad_fixed_base = MKDEV(IB_UMAD_MAJOR, 0);
static dev_t umad_dynamic_base;

/* Numbers N of umadN/issmN in use; has its own lock. */
static DEFINE_IDA(umad_ida);

static struct ib_client umad_client;

/**
 * struct umad_port - the umad and issm devices of one port
 * @cdev: character device of umadN
 * @dev: class device of umadN
 * @sm_cdev: character device of issmN
 * @sm_dev: class device of issmN
 * @sm_sem: held by the one opener of issmN
 * @file_mutex: protects @ib_dev and @file_list; serializes agent
 *	registration and unregistration with device removal
 * @ib_dev: the device, NULL once it is being removed
 * @file_list: the open umad files of the port
 * @umad_dev: the device's ports, freed with the last class device
 * @dev_num: N
 * @port_num: the port
 */
struct umad_port {
	struct cdev		cdev;
	struct device		dev;
	struct cdev		sm_cdev;
	struct device		sm_dev;
	struct semaphore	sm_sem;
	struct mutex		file_mutex;	/* see @file_mutex above */
	struct ib_device	*ib_dev;
	struct list_head	file_list;
	struct umad_device	*umad_dev;
	int			dev_num;
	u32			port_num;
};

/**
 * struct umad_device - the ports of one device
 * @kref: one reference per initialized class device
 * @ports: indexed by port number - start port
 */
struct umad_device {
	struct kref		kref;
	struct umad_port	ports[];
};

/**
 * struct umad_file - an open umadN
 * @mutex: protects @agent (writes), @agents_dead, @use_pkey_index,
 *	@already_used
 * @recv_lock: protects @recv_list, @recv_count and @recv_bytes
 * @send_lock: protects @send_list
 * @port: the port
 * @port_list: entry in the port's file list (under its file_mutex)
 * @recv_list: packets for read()
 * @recv_count: length of @recv_list
 * @recv_bytes: MAD bytes on @recv_list
 * @send_list: sends in flight
 * @recv_wait: readers wait here
 * @agent: the registered agents, by id
 * @agents_dead: the agents are gone (close or device removal)
 * @use_pkey_index: 64-byte headers with pkey_index
 * @already_used: an agent was registered
 */
struct umad_file {
	struct mutex		mutex;		/* see @mutex above */
	spinlock_t		recv_lock;	/* see @recv_lock above */
	spinlock_t		send_lock;	/* see @send_lock above */
	struct umad_port	*port;
	struct list_head	port_list;
	struct list_head	recv_list;
	unsigned int		recv_count;
	size_t			recv_bytes;
	struct list_head	send_list;
	wait_queue_head_t	recv_wait;
	struct ib_mad_agent	*agent[IB_UMAD_MAX_AGENTS];
	bool			agents_dead;
	bool			use_pkey_index;
	bool			already_used;
};

/**
 * struct umad_packet - a send in flight or a packet for read()
 * @list: entry in a file's send or receive list
 * @msg: the send buffer, for sends
 * @agent: the agent of a send
 * @ref: for a send, held by the writer until ib_post_send_mad() returned
 *	and by the send handler: the core may look at the send buffer after
 *	the send finished, until ib_post_send_mad() returns
 * @timed_out: the send ended with IB_WC_RESP_TIMEOUT_ERR
 * @length: bytes of MAD data in @mad.data
 * @mad: the header and the MAD
 */
struct umad_packet {
	struct list_head	list;
	struct ib_mad_send_buf	*msg;
	struct ib_mad_agent	*agent;
	refcount_t		ref;
	bool			timed_out;
	int			length;
	struct ib_user_mad	mad;
};

static size_t umad_hdr_size(const struct umad_file *file)
{
	return file->use_pkey_index ? sizeof(struct ib_user_mad_hdr) :
				      sizeof(struct ib_user_mad_hdr_old);
}

/*
 * The MAD data of @packet.  Computed from the packet pointer, so that
 * hardened usercopy checks against the allocation, not the flexible array.
 */
static u8 *umad_data(struct umad_packet *packet)
{
	return (u8 *)packet + offsetof(struct umad_packet, mad.data);
}

/* Packets of reassembled RMPP messages can be long: kvfree() them. */
static struct umad_packet *umad_alloc_packet(size_t data_len, gfp_t gfp)
{
	return kvzalloc(sizeof(struct umad_packet) + data_len, gfp);
}

/* ------------------------------------------------------------------ */
/* MAD agent handlers                                                  */
/* ------------------------------------------------------------------ */

/* Queue @packet for read() under the id of @agent; false if it is gone. */
static bool umad_queue_packet(struct umad_file *file,
			      struct ib_mad_agent *agent,
			      struct umad_packet *packet)
{
	unsigned long flags;
	bool queued = false;
	int id;

	spin_lock_irqsave(&file->recv_lock, flags);
	for (id = 0; id < IB_UMAD_MAX_AGENTS; id++) {
		if (READ_ONCE(file->agent[id]) != agent)
			continue;
		if (file->recv_count >= IB_UMAD_MAX_RECV_LIST ||
		    file->recv_bytes + packet->length > IB_UMAD_MAX_RECV_BYTES)
			break;
		packet->mad.hdr.id = id;
		list_add_tail(&packet->list, &file->recv_list);
		file->recv_count++;
		file->recv_bytes += packet->length;
		queued = true;
		break;
	}
	spin_unlock_irqrestore(&file->recv_lock, flags);
	if (queued)
		wake_up_interruptible(&file->recv_wait);
	return queued;
}

/* Drop a reference to a send; the last one ends it. */
static void umad_put_send(struct umad_file *file, struct umad_packet *packet)
{
	if (!refcount_dec_and_test(&packet->ref))
		return;
	rdma_destroy_ah(packet->msg->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(packet->msg);
	packet->msg = NULL;

	if (packet->timed_out) {
		/* echo the request's MAD header with ETIMEDOUT */
		packet->length = IB_MGMT_MAD_HDR;
		packet->mad.hdr.status = ETIMEDOUT;
		packet->mad.hdr.length = umad_hdr_size(file) + IB_MGMT_MAD_HDR;
		if (umad_queue_packet(file, packet->agent, packet))
			return;
	}
	kvfree(packet);
}

static void umad_send_handler(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *send_wc)
{
	struct umad_file *file = agent->context;
	struct umad_packet *packet = send_wc->send_buf->context[0];
	unsigned long flags;

	spin_lock_irqsave(&file->send_lock, flags);
	list_del(&packet->list);
	spin_unlock_irqrestore(&file->send_lock, flags);

	packet->timed_out = send_wc->status == IB_WC_RESP_TIMEOUT_ERR;
	umad_put_send(file, packet);
}

/*
 * The MAD, or the reassembled RMPP message, as read() returns it: the
 * first segment whole, then the data after the class header of the
 * others.  Returns false if the segments do not add up to mad_len.
 */
static bool umad_flatten(u8 *dst, const struct ib_mad_recv_wc *recv_wc)
{
	const struct ib_mad_recv_buf *seg = &recv_wc->recv_buf;
	int left = recv_wc->mad_len, offset, n;

	n = min_t(int, left, recv_wc->mad_seg_size);
	memcpy(dst, seg->mad, n);
	dst += n;
	left -= n;
	offset = ib_get_mad_data_offset(seg->mad->mad_hdr.mgmt_class);
	while (left > 0) {
		if (list_is_last(&seg->list, &recv_wc->rmpp_list))
			return false;
		seg = list_next_entry(seg, list);
		n = min_t(int, left, recv_wc->mad_seg_size - offset);
		memcpy(dst, (const u8 *)seg->mad + offset, n);
		dst += n;
		left -= n;
	}
	return true;
}

static void umad_recv_handler(struct ib_mad_agent *agent,
			      struct ib_mad_send_buf *send_buf,
			      struct ib_mad_recv_wc *recv_wc)
{
	struct umad_file *file = agent->context;
	struct ib_user_mad_hdr *hdr;
	struct umad_packet *packet;
	struct ib_wc *wc = recv_wc->wc;
	int len;

	if (wc->status != IB_WC_SUCCESS)
		goto out;
	len = recv_wc->mad_len;
	if (len <= 0)
		goto out;
	packet = umad_alloc_packet(len, GFP_KERNEL);
	if (!packet)
		goto out;
	if (!umad_flatten(umad_data(packet), recv_wc)) {
		kvfree(packet);
		goto out;
	}
	packet->length = len;

	hdr = &packet->mad.hdr;
	hdr->length = umad_hdr_size(file) + len;
	hdr->qpn = cpu_to_be32(wc->src_qp);
	hdr->lid = cpu_to_be16((u16)wc->slid);
	hdr->sl = wc->sl;
	hdr->path_bits = wc->dlid_path_bits;
	hdr->pkey_index = wc->pkey_index;
	hdr->grh_present = !!(wc->wc_flags & IB_WC_GRH);
	if (hdr->grh_present && recv_wc->recv_buf.grh) {
		const struct ib_grh *grh = recv_wc->recv_buf.grh;
		u32 vtf = be32_to_cpu(grh->version_tclass_flow);

		hdr->gid_index = 0;
		hdr->hop_limit = grh->hop_limit;
		hdr->traffic_class = (vtf >> 20) & 0xff;
		hdr->flow_label = cpu_to_be32(vtf & 0xfffff);
		memcpy(hdr->gid, grh->sgid.raw, sizeof(hdr->gid));
	}
	if (!umad_queue_packet(file, agent, packet))
		kvfree(packet);
out:
	ib_free_recv_mad(recv_wc);
}

/* ------------------------------------------------------------------ */
/* umadN file operations                                               */
/* ------------------------------------------------------------------ */

static int umad_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port = container_of(inode->i_cdev,
					      struct umad_port, cdev);
	struct umad_file *file;
	int ret = 0;

	mutex_lock(&port->file_mutex);
	if (!port->ib_dev) {
		ret = -ENXIO;
		goto out;
	}
	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_init(&file->mutex);
	spin_lock_init(&file->recv_lock);
	spin_lock_init(&file->send_lock);
	INIT_LIST_HEAD(&file->recv_list);
	INIT_LIST_HEAD(&file->send_list);
	init_waitqueue_head(&file->recv_wait);
	file->port = port;
	filp->private_data = file;
	list_add_tail(&file->port_list, &port->file_list);
	stream_open(inode, filp);
out:
	mutex_unlock(&port->file_mutex);
	return ret;
}

static int umad_close(struct inode *inode, struct file *filp)
{
	struct umad_file *file = filp->private_data;
	struct umad_port *port = file->port;
	struct umad_packet *packet, *tmp;
	struct ib_mad_agent *agent;
	int id;

	mutex_lock(&port->file_mutex);
	mutex_lock(&file->mutex);
	file->agents_dead = true;
	mutex_unlock(&file->mutex);
	list_del(&file->port_list);
	/* device removal already unregistered them and cleared the slots */
	for (id = 0; id < IB_UMAD_MAX_AGENTS; id++) {
		agent = file->agent[id];
		if (!agent)
			continue;
		/* waits for the handlers, which may still queue packets */
		ib_unregister_mad_agent(agent);
		WRITE_ONCE(file->agent[id], NULL);
	}
	mutex_unlock(&port->file_mutex);

	list_for_each_entry_safe(packet, tmp, &file->recv_list, list)
		kvfree(packet);
	WARN_ON(!list_empty(&file->send_list));
	mutex_destroy(&file->mutex);
	kfree(file);
	return 0;
}

static ssize_t umad_copy_recv(struct umad_file *file, char __user *buf,
			      struct umad_packet *packet, size_t count)
{
	size_t hdr_size = umad_hdr_size(file);
	size_t seg = min_t(size_t, packet->length, IB_MGMT_MAD_SIZE);

	/* room for the header and the first (or only) segment */
	if (count < hdr_size + seg)
		return -EINVAL;
	if (copy_to_user(buf, &packet->mad.hdr, hdr_size) ||
	    copy_to_user(buf + hdr_size, umad_data(packet), seg))
		return -EFAULT;
	if (seg < packet->length) {
		/* a long message: the caller re-reads with a bigger buffer */
		if (count < hdr_size + packet->length)
			return -ENOSPC;
		if (copy_to_user(buf + hdr_size + seg, umad_data(packet) + seg,
				 packet->length - seg))
			return -EFAULT;
	}
	return hdr_size + packet->length;
}

static ssize_t umad_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	struct umad_packet *packet;
	ssize_t ret;

	if (count < umad_hdr_size(file))
		return -EINVAL;

	for (;;) {
		if (READ_ONCE(file->agents_dead))
			return -EIO;
		spin_lock_irq(&file->recv_lock);
		packet = list_first_entry_or_null(&file->recv_list,
						  struct umad_packet, list);
		if (packet) {
			list_del(&packet->list);
			file->recv_count--;
			file->recv_bytes -= packet->length;
		}
		spin_unlock_irq(&file->recv_lock);
		if (packet)
			break;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->recv_wait,
					     !list_empty(&file->recv_list) ||
					     READ_ONCE(file->agents_dead)))
			return -ERESTARTSYS;
	}

	ret = umad_copy_recv(file, buf, packet, count);
	if (ret < 0) {
		/* keep it for the next read */
		spin_lock_irq(&file->recv_lock);
		list_add(&packet->list, &file->recv_list);
		file->recv_count++;
		file->recv_bytes += packet->length;
		spin_unlock_irq(&file->recv_lock);
	} else {
		kvfree(packet);
	}
	return ret;
}

static bool umad_same_destination(const struct ib_user_mad_hdr *a,
				  const struct ib_user_mad_hdr *b)
{
	if (!a->grh_present && !b->grh_present)
		return a->lid == b->lid;
	if (a->grh_present && b->grh_present)
		return !memcmp(a->gid, b->gid, sizeof(a->gid));
	return false;
}

/* A request with the TID and class of one in flight, or such a response. */
static bool umad_is_duplicate(struct umad_file *file,
			      struct umad_packet *packet)
{
	const struct ib_mad_hdr *hdr = (void *)umad_data(packet);
	const struct ib_mad_hdr *sent_hdr;
	struct umad_packet *sent;

	list_for_each_entry(sent, &file->send_list, list) {
		sent_hdr = (void *)umad_data(sent);
		if (hdr->tid != sent_hdr->tid ||
		    hdr->mgmt_class != sent_hdr->mgmt_class)
			continue;
		if (!ib_response_mad(hdr)) {
			if (!ib_response_mad(sent_hdr))
				return true;
			continue;
		}
		if (!ib_response_mad(sent_hdr))
			continue;
		if (umad_same_destination(&packet->mad.hdr, &sent->mad.hdr))
			return true;
	}
	return false;
}

static struct ib_ah *umad_create_ah(struct umad_file *file,
				    struct ib_mad_agent *agent,
				    const struct ib_user_mad_hdr *hdr)
{
	struct rdma_ah_attr attr = {};

	attr.type = RDMA_AH_ATTR_TYPE_IB;
	attr.dlid = be16_to_cpu(hdr->lid);
	attr.sl = hdr->sl;
	attr.src_path_bits = hdr->path_bits;
	attr.port_num = file->port->port_num;
	if (hdr->grh_present) {
		attr.ah_flags = IB_AH_GRH;
		attr.grh.flow_label = be32_to_cpu(hdr->flow_label);
		attr.grh.sgid_index = hdr->gid_index;
		attr.grh.hop_limit = hdr->hop_limit;
		attr.grh.traffic_class = hdr->traffic_class;
		memcpy(attr.grh.dgid.raw, hdr->gid, sizeof(hdr->gid));
	}
	return rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
}

/* The data of a kernel-RMPP message, into the segments of its send. */
static int umad_copy_segments(struct ib_mad_send_buf *msg,
			      const char __user *buf)
{
	int seg, left, n;

	for (seg = 1, left = msg->data_len; left > 0;
	     seg++, left -= n, buf += n) {
		n = min(left, msg->seg_size);
		if (copy_from_user(ib_get_rmpp_segment(msg, seg), buf, n))
			return -EFAULT;
	}
	return 0;
}

static ssize_t umad_write(struct file *filp, const char __user *buf,
			  size_t count, loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	size_t hdr_size = umad_hdr_size(file);
	struct ib_rmpp_mad *rmpp_mad;
	struct ib_mad_agent *agent;
	struct umad_packet *packet;
	struct ib_mad_hdr *mad_hdr;
	bool rmpp_active = false, user_rmpp;
	int hdr_len, data_len;
	struct ib_ah *ah;
	bool duplicate;
	__be64 *tid;
	ssize_t ret;

	if (count < hdr_size + IB_MGMT_RMPP_HDR ||
	    count > hdr_size + IB_UMAD_MAX_WRITE)
		return -EINVAL;

	packet = umad_alloc_packet(IB_MGMT_MAD_SIZE, GFP_KERNEL);
	if (!packet)
		return -ENOMEM;
	if (copy_from_user(&packet->mad.hdr, buf, hdr_size) ||
	    copy_from_user(umad_data(packet), buf + hdr_size,
			   IB_MGMT_RMPP_HDR)) {
		ret = -EFAULT;
		goto err_free;
	}
	if (packet->mad.hdr.id >= IB_UMAD_MAX_AGENTS) {
		ret = -EINVAL;
		goto err_free;
	}
	buf += hdr_size;
	rmpp_mad = (struct ib_rmpp_mad *)umad_data(packet);
	mad_hdr = &rmpp_mad->mad_hdr;

	mutex_lock(&file->mutex);
	agent = file->agents_dead ? NULL : file->agent[packet->mad.hdr.id];
	if (!agent) {
		ret = -EIO;
		goto err_unlock;
	}

	hdr_len = ib_get_mad_data_offset(mad_hdr->mgmt_class);
	if (ib_is_mad_class_rmpp(mad_hdr->mgmt_class) &&
	    (ib_get_rmpp_flags(&rmpp_mad->rmpp_hdr) &
	     IB_MGMT_RMPP_FLAG_ACTIVE))
		rmpp_active = true;
	/* segments of user RMPP may share a TID: no duplicate check */
	user_rmpp = rmpp_active && !ib_mad_kernel_rmpp_agent(agent);
	if (user_rmpp)
		rmpp_active = false;
	data_len = count - hdr_size - hdr_len;
	if (data_len < 0 ||
	    (!rmpp_active && data_len > IB_MGMT_MAD_SIZE - hdr_len)) {
		ret = -EINVAL;
		goto err_unlock;
	}
	/* the class header; the data of an RMPP message comes later */
	if (copy_from_user(umad_data(packet) + IB_MGMT_RMPP_HDR,
			   buf + IB_MGMT_RMPP_HDR,
			   hdr_len - IB_MGMT_RMPP_HDR +
			   (rmpp_active ? 0 : data_len))) {
		ret = -EFAULT;
		goto err_unlock;
	}

	/* requests carry the agent's hi_tid, by which responses find it */
	if (!ib_response_mad(mad_hdr)) {
		tid = &mad_hdr->tid;
		*tid = cpu_to_be64((u64)agent->hi_tid << 32 |
				   (be64_to_cpu(*tid) & 0xffffffff));
	}

	ah = umad_create_ah(file, agent, &packet->mad.hdr);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_unlock;
	}

	/* a short MAD is padded to a full one on the wire */
	packet->msg = ib_create_send_mad(agent,
					 be32_to_cpu(packet->mad.hdr.qpn),
					 packet->mad.hdr.pkey_index,
					 rmpp_active, hdr_len,
					 rmpp_active ? data_len :
					 IB_MGMT_MAD_SIZE - hdr_len,
					 GFP_KERNEL, mad_hdr->base_version);
	if (IS_ERR(packet->msg)) {
		ret = PTR_ERR(packet->msg);
		packet->msg = NULL;
		goto err_ah;
	}
	packet->msg->ah = ah;
	packet->msg->timeout_ms = packet->mad.hdr.timeout_ms;
	packet->msg->retries = packet->mad.hdr.retries;
	packet->msg->context[0] = packet;
	packet->agent = agent;
	refcount_set(&packet->ref, 2);
	if (rmpp_active) {
		/*
		 * The RMPP header is the MAD layer's: keep what
		 * ib_create_send_mad() put there.
		 */
		memcpy(packet->msg->mad, umad_data(packet), IB_MGMT_MAD_HDR);
		memcpy(packet->msg->mad + IB_MGMT_RMPP_HDR,
		       umad_data(packet) + IB_MGMT_RMPP_HDR,
		       hdr_len - IB_MGMT_RMPP_HDR);
		ret = umad_copy_segments(packet->msg, buf + hdr_len);
		if (ret)
			goto err_msg;
	} else {
		memcpy(packet->msg->mad, umad_data(packet),
		       hdr_len + data_len);
	}
	packet->length = IB_MGMT_MAD_HDR;

	spin_lock_irq(&file->send_lock);
	duplicate = !user_rmpp && umad_is_duplicate(file, packet);
	if (!duplicate)
		list_add_tail(&packet->list, &file->send_list);
	spin_unlock_irq(&file->send_lock);
	if (duplicate) {
		ret = -EINVAL;
		goto err_msg;
	}

	ret = ib_post_send_mad(packet->msg, NULL);
	if (ret)
		goto err_list;
	umad_put_send(file, packet);
	mutex_unlock(&file->mutex);
	return count;

err_list:
	spin_lock_irq(&file->send_lock);
	list_del(&packet->list);
	spin_unlock_irq(&file->send_lock);
err_msg:
	ib_free_send_mad(packet->msg);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
err_unlock:
	mutex_unlock(&file->mutex);
err_free:
	kvfree(packet);
	return ret;
}

static __poll_t umad_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct umad_file *file = filp->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(filp, &file->recv_wait, wait);
	spin_lock_irq(&file->recv_lock);
	if (!list_empty(&file->recv_list))
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&file->recv_lock);
	if (READ_ONCE(file->agents_dead))
		mask = EPOLLERR;
	return mask;
}

/* A free agent id of @file, or -ENOMEM. Called with file->mutex held. */
static int umad_free_agent_id(struct umad_file *file)
{
	int id;

	for (id = 0; id < IB_UMAD_MAX_AGENTS; id++)
		if (!file->agent[id])
			return id;
	return -ENOMEM;
}

/*
 * Register an agent for @file; on success store it under a free id and
 * write the id to @id_out.  @pkey_v2 makes the file use 64-byte headers.
 */
static int umad_register(struct umad_file *file, u32 qpn,
			 struct ib_mad_reg_req *req, u8 rmpp_version,
			 u32 flags, u32 __user *id_out, bool pkey_v2)
{
	struct umad_port *port = file->port;
	struct ib_mad_agent *agent = NULL;
	int id, ret;

	mutex_lock(&port->file_mutex);
	mutex_lock(&file->mutex);
	if (!port->ib_dev || file->agents_dead) {
		ret = -EPIPE;
		goto out;
	}
	if (qpn != 0 && qpn != 1) {
		ret = -EINVAL;
		goto out;
	}
	id = umad_free_agent_id(file);
	if (id < 0) {
		ret = id;
		goto out;
	}
	agent = ib_register_mad_agent(port->ib_dev, port->port_num,
				      qpn ? IB_QPT_GSI : IB_QPT_SMI, req,
				      rmpp_version, umad_send_handler,
				      umad_recv_handler, file, flags);
	if (IS_ERR(agent)) {
		ret = PTR_ERR(agent);
		agent = NULL;
		goto out;
	}
	if (put_user(id, id_out)) {
		ret = -EFAULT;
		goto out;
	}
	if (!file->already_used) {
		file->already_used = true;
		if (pkey_v2)
			file->use_pkey_index = true;
		else if (!file->use_pkey_index)
			dev_warn_once(&port->dev,
				      "process %s did not enable P_Key index support\n",
				      current->comm);
	}
	WRITE_ONCE(file->agent[id], agent);
	ret = 0;
out:
	mutex_unlock(&file->mutex);
	if (ret && agent)
		ib_unregister_mad_agent(agent);
	mutex_unlock(&port->file_mutex);
	return ret;
}

static int umad_reg_agent(struct umad_file *file, void __user *arg)
{
	struct ib_user_mad_reg_req ureq;
	struct ib_mad_reg_req req;

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;
	memset(&req, 0, sizeof(req));
	if (ureq.mgmt_class) {
		req.mgmt_class = ureq.mgmt_class;
		req.mgmt_class_version = ureq.mgmt_class_version;
		memcpy(req.oui, ureq.oui, sizeof(req.oui));
		BUILD_BUG_ON(sizeof(req.method_mask) !=
			     sizeof(ureq.method_mask));
		memcpy(req.method_mask, ureq.method_mask,
		       sizeof(req.method_mask));
	}
	return umad_register(file, ureq.qpn, ureq.mgmt_class ? &req : NULL,
			     ureq.rmpp_version, 0,
			     arg + offsetof(struct ib_user_mad_reg_req, id),
			     false);
}

static int umad_reg_agent2(struct umad_file *file, void __user *arg)
{
	struct ib_user_mad_reg_req2 ureq;
	struct ib_mad_reg_req req;
	u32 __user *flags_out;

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;
	if (ureq.qpn != 0 && ureq.qpn != 1)
		return -EINVAL;
	if (ureq.flags & ~IB_USER_MAD_REG_FLAGS_CAP) {
		/* tell the caller what this kernel supports */
		flags_out = arg + offsetof(struct ib_user_mad_reg_req2, flags);
		if (put_user((u32)IB_USER_MAD_REG_FLAGS_CAP, flags_out))
			return -EFAULT;
		return -EINVAL;
	}
	if (ureq.oui & 0xff000000)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	if (ureq.mgmt_class) {
		req.mgmt_class = ureq.mgmt_class;
		req.mgmt_class_version = ureq.mgmt_class_version;
		req.oui[0] = (ureq.oui >> 16) & 0xff;
		req.oui[1] = (ureq.oui >> 8) & 0xff;
		req.oui[2] = ureq.oui & 0xff;
		BUILD_BUG_ON(sizeof(req.method_mask) !=
			     sizeof(ureq.method_mask));
		memcpy(req.method_mask, ureq.method_mask,
		       sizeof(req.method_mask));
	}
	return umad_register(file, ureq.qpn, ureq.mgmt_class ? &req : NULL,
			     ureq.rmpp_version, ureq.flags,
			     arg + offsetof(struct ib_user_mad_reg_req2, id),
			     true);
}

static int umad_unreg_agent(struct umad_file *file, u32 __user *arg)
{
	struct umad_port *port = file->port;
	struct ib_mad_agent *agent = NULL;
	u32 id;
	int ret = 0;

	if (get_user(id, arg))
		return -EFAULT;
	if (id >= IB_UMAD_MAX_AGENTS)
		return -EINVAL;

	mutex_lock(&port->file_mutex);
	mutex_lock(&file->mutex);
	agent = file->agents_dead ? NULL : file->agent[id];
	if (agent)
		WRITE_ONCE(file->agent[id], NULL);
	else
		ret = -EINVAL;
	mutex_unlock(&file->mutex);
	/* writers no longer find it; its late packets are dropped */
	if (agent)
		ib_unregister_mad_agent(agent);
	mutex_unlock(&port->file_mutex);
	return ret;
}

static int umad_enable_pkey(struct umad_file *file)
{
	int ret = 0;

	mutex_lock(&file->mutex);
	if (file->already_used)
		ret = -EINVAL;
	else
		file->use_pkey_index = true;
	mutex_unlock(&file->mutex);
	return ret;
}

static long umad_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct umad_file *file = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case IB_USER_MAD_REGISTER_AGENT:
		return umad_reg_agent(file, uarg);
	case IB_USER_MAD_UNREGISTER_AGENT:
		return umad_unreg_agent(file, uarg);
	case IB_USER_MAD_ENABLE_PKEY:
		return umad_enable_pkey(file);
	case IB_USER_MAD_REGISTER_AGENT2:
		return umad_reg_agent2(file, uarg);
	default:
		return -ENOIOCTLCMD;
	}
}

static const struct file_operations umad_fops = {
	.owner = THIS_MODULE,
	.open = umad_open,
	.release = umad_close,
	.read = umad_read,
	.write = umad_write,
	.poll = umad_poll,
	.unlocked_ioctl = umad_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

/* ------------------------------------------------------------------ */
/* issmN file operations                                               */
/* ------------------------------------------------------------------ */

static int umad_sm_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port = container_of(inode->i_cdev,
					      struct umad_port, sm_cdev);
	struct ib_port_modify props = { .set_port_cap_mask = IB_PORT_SM };
	int ret;

	if (filp->f_flags & O_NONBLOCK) {
		if (down_trylock(&port->sm_sem))
			return -EAGAIN;
	} else if (down_interruptible(&port->sm_sem)) {
		return -ERESTARTSYS;
	}

	mutex_lock(&port->file_mutex);
	if (port->ib_dev)
		ret = ib_modify_port(port->ib_dev, port->port_num, 0, &props);
	else
		ret = -ENXIO;
	mutex_unlock(&port->file_mutex);
	if (ret)
		goto err_up;
	filp->private_data = port;
	return nonseekable_open(inode, filp);

err_up:
	up(&port->sm_sem);
	return ret;
}

static int umad_sm_close(struct inode *inode, struct file *filp)
{
	struct umad_port *port = filp->private_data;
	struct ib_port_modify props = { .clr_port_cap_mask = IB_PORT_SM };

	mutex_lock(&port->file_mutex);
	if (port->ib_dev)
		ib_modify_port(port->ib_dev, port->port_num, 0, &props);
	mutex_unlock(&port->file_mutex);
	up(&port->sm_sem);
	return 0;
}

static const struct file_operations umad_sm_fops = {
	.owner = THIS_MODULE,
	.open = umad_sm_open,
	.release = umad_sm_close,
	.llseek = no_llseek,
};

/* ------------------------------------------------------------------ */
/* Class and sysfs                                                     */
/* ------------------------------------------------------------------ */

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct umad_port *port = dev_get_drvdata(dev);
	ssize_t ret = -ENODEV;

	mutex_lock(&port->file_mutex);
	if (port->ib_dev)
		ret = sysfs_emit(buf, "%s\n", ib_device_name(port->ib_dev));
	mutex_unlock(&port->file_mutex);
	return ret;
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct umad_port *port = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", port->port_num);
}
static DEVICE_ATTR_RO(port);

static struct attribute *umad_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_port.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_dev);

static ssize_t abi_version_show(struct class *class,
				struct class_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_MAD_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *umad_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_class);

static char *umad_devnode(struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static struct class umad_class = {
	.name = "infiniband_mad",
	.owner = THIS_MODULE,
	.devnode = umad_devnode,
	.class_groups = umad_class_groups,
};

/* ------------------------------------------------------------------ */
/* The client                                                          */
/* ------------------------------------------------------------------ */

static void umad_device_free(struct kref *kref)
{
	kfree(container_of(kref, struct umad_device, kref));
}

static void umad_dev_release(struct device *dev)
{
	struct umad_port *port = dev_get_drvdata(dev);

	kref_put(&port->umad_dev->kref, umad_device_free);
}

static void umad_init_dev(struct umad_port *port, struct device *dev,
			  struct ib_device *ib_dev)
{
	device_initialize(dev);
	kref_get(&port->umad_dev->kref);
	dev->class = &umad_class;
	dev->parent = &ib_dev->dev;
	dev->groups = umad_dev_groups;
	dev->release = umad_dev_release;
	dev_set_drvdata(dev, port);
}

static int umad_init_port(struct ib_device *ib_dev, u32 port_num,
			  struct umad_port *port)
{
	dev_t base_umad, base_issm;
	int devnum, ret;

	devnum = ida_alloc_max(&umad_ida, IB_UMAD_MAX_PORTS - 1, GFP_KERNEL);
	if (devnum < 0)
		return -ENOMEM;
	if (devnum < IB_UMAD_NUM_FIXED_MINOR) {
		base_umad = umad_fixed_base + devnum;
		base_issm = umad_fixed_base + IB_ISSM_MINOR_BASE + devnum;
	} else {
		base_umad = umad_dynamic_base + devnum -
			    IB_UMAD_NUM_FIXED_MINOR;
		base_issm = base_umad + IB_UMAD_NUM_DYNAMIC_MINOR;
	}
	port->dev_num = devnum;
	port->ib_dev = ib_dev;
	port->port_num = port_num;
	sema_init(&port->sm_sem, 1);
	mutex_init(&port->file_mutex);
	INIT_LIST_HEAD(&port->file_list);

	umad_init_dev(port, &port->dev, ib_dev);
	port->dev.devt = base_umad;
	ret = dev_set_name(&port->dev, "umad%d", devnum);
	if (ret)
		goto err_dev;
	cdev_init(&port->cdev, &umad_fops);
	port->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&port->cdev, &port->dev);
	if (ret)
		goto err_dev;

	umad_init_dev(port, &port->sm_dev, ib_dev);
	port->sm_dev.devt = base_issm;
	ret = dev_set_name(&port->sm_dev, "issm%d", devnum);
	if (ret)
		goto err_sm_dev;
	cdev_init(&port->sm_cdev, &umad_sm_fops);
	port->sm_cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&port->sm_cdev, &port->sm_dev);
	if (ret)
		goto err_sm_dev;
	return 0;

err_sm_dev:
	put_device(&port->sm_dev);
	cdev_device_del(&port->cdev, &port->dev);
err_dev:
	put_device(&port->dev);
	ida_free(&umad_ida, devnum);
	return ret;
}

static void umad_kill_port(struct umad_port *port)
{
	struct umad_file *file;
	struct ib_mad_agent *agent;
	int id;

	cdev_device_del(&port->sm_cdev, &port->sm_dev);
	cdev_device_del(&port->cdev, &port->dev);

	mutex_lock(&port->file_mutex);
	/* no system call reaches the device after this */
	port->ib_dev = NULL;
	list_for_each_entry(file, &port->file_list, port_list) {
		mutex_lock(&file->mutex);
		file->agents_dead = true;
		mutex_unlock(&file->mutex);
		wake_up_interruptible(&file->recv_wait);
		for (id = 0; id < IB_UMAD_MAX_AGENTS; id++) {
			agent = file->agent[id];
			if (!agent)
				continue;
			ib_unregister_mad_agent(agent);
			WRITE_ONCE(file->agent[id], NULL);
		}
	}
	mutex_unlock(&port->file_mutex);

	ida_free(&umad_ida, port->dev_num);
	put_device(&port->sm_dev);
	put_device(&port->dev);
}

static int umad_add_one(struct ib_device *ib_dev)
{
	int s = rdma_start_port(ib_dev), e = rdma_end_port(ib_dev), p;
	struct umad_device *umad_dev;
	int ret;

	umad_dev = kzalloc(struct_size(umad_dev, ports, e - s + 1),
			   GFP_KERNEL);
	if (!umad_dev)
		return -ENOMEM;
	kref_init(&umad_dev->kref);
	for (p = s; p <= e; p++) {
		umad_dev->ports[p - s].umad_dev = umad_dev;
		ret = umad_init_port(ib_dev, p, &umad_dev->ports[p - s]);
		if (ret)
			goto err;
	}
	ib_set_client_data(ib_dev, &umad_client, umad_dev);
	return 0;

err:
	while (--p >= s)
		umad_kill_port(&umad_dev->ports[p - s]);
	kref_put(&umad_dev->kref, umad_device_free);
	return ret;
}

static void umad_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct umad_device *umad_dev = client_data;
	u32 s = rdma_start_port(ib_dev), p;

	if (!umad_dev)
		return;
	for (p = s; p <= rdma_end_port(ib_dev); p++)
		umad_kill_port(&umad_dev->ports[p - s]);
	kref_put(&umad_dev->kref, umad_device_free);
}

static int umad_get_nl_info(struct ib_device *ib_dev, void *client_data,
			    struct ib_client_nl_info *res)
{
	struct umad_device *umad_dev = client_data;

	if (!ib_dev || !umad_dev || !rdma_is_port_valid(ib_dev, res->port))
		return -EINVAL;
	res->abi = IB_USER_MAD_ABI_VERSION;
	res->cdev = &umad_dev->ports[res->port - rdma_start_port(ib_dev)].dev;
	return 0;
}

static struct ib_client umad_client = {
	.name = "umad",
	.add = umad_add_one,
	.remove = umad_remove_one,
	.get_nl_info = umad_get_nl_info,
};

static int __init ib_umad_init(void)
{
	int ret;

	ret = register_chrdev_region(umad_fixed_base,
				     IB_UMAD_NUM_FIXED_MINOR * 2,
				     "infiniband_mad");
	if (ret) {
		pr_err("cannot register device numbers\n");
		return ret;
	}
	ret = alloc_chrdev_region(&umad_dynamic_base, 0,
				  IB_UMAD_NUM_DYNAMIC_MINOR * 2,
				  "infiniband_mad");
	if (ret) {
		pr_err("cannot allocate dynamic device numbers\n");
		goto err_fixed;
	}
	ret = class_register(&umad_class);
	if (ret)
		goto err_dynamic;
	ret = ib_register_client(&umad_client);
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&umad_class);
err_dynamic:
	unregister_chrdev_region(umad_dynamic_base,
				 IB_UMAD_NUM_DYNAMIC_MINOR * 2);
err_fixed:
	unregister_chrdev_region(umad_fixed_base, IB_UMAD_NUM_FIXED_MINOR * 2);
	return ret;
}

static void __exit ib_umad_exit(void)
{
	ib_unregister_client(&umad_client);
	class_unregister(&umad_class);
	unregister_chrdev_region(umad_dynamic_base,
				 IB_UMAD_NUM_DYNAMIC_MINOR * 2);
	unregister_chrdev_region(umad_fixed_base, IB_UMAD_NUM_FIXED_MINOR * 2);
	ida_destroy(&umad_ida);
}

module_init(ib_umad_init);
module_exit(ib_umad_exit);
