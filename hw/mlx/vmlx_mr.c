// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx memory regions: the key table, key checks, copies to and from
 * registered memory, and the attaching of registered memory to packets
 * as page fragments (vmlx_sge_attach(), vmlx_mr_attach(): RC payloads
 * and RDMA READ responses go out uncopied).
 *
 * A key is (index << 8) | variant: the index is the MR's slot in
 * vmlx_dev.mrs (1..VMLX_MAX_MR, handed out cyclically so that a stale key
 * rarely names a new MR at once), the variant the low byte a ULP chooses
 * with ib_update_fast_reg_key() before each fast registration.  An MR's
 * lkey and rkey are always equal.
 *
 * The device has no DMA device, so the "DMA addresses" its users hand it
 * are kernel virtual addresses:
 *  - the DMA MR (iova 0, length U64_MAX) maps every address to itself;
 *    only the core makes one, for a kernel PD's local_dma_lkey;
 *  - a fast-registration MR lists the kernel virtual address of each of
 *    its pages (ib_map_mr_sg() -> ib_sg_to_pages() -> vmlx_set_page()),
 *    and becomes usable when the requester meets the IB_WR_REG_MR work
 *    request that registers it (vmlx_mr_fast_reg()), until a LOCAL_INV or
 *    a SEND_WITH_INV invalidates it (vmlx_mr_invalidate()).
 * A user MR (reg_user_mr) pins the process's pages with ib_umem_get() and
 * reaches them through their kernel mapping (no highmem on 64-bit); its
 * iova is the address the process chose.  Kernel PDs hold only the first
 * two kinds, user PDs only user MRs: vmlx_mr_get() refuses a key of the
 * wrong kind for the PD, so a process never reaches kernel memory.
 *
 * Key lookups take no lock but RCU and a reference on the MR (users);
 * dereg removes the key, then waits until no packet uses the MR.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "vmlx.h"
#include "vmlx_pkt.h"

/* Allocate the MR and reserve its index; it is not findable yet. */
static struct vmlx_mr *vmlx_mr_new(struct ib_pd *ibpd, enum vmlx_mr_kind kind)
{
	struct vmlx_dev *vdev = to_vmlx(ibpd->device);
	struct vmlx_mr *mr;
	int ret;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	/* A NULL entry only reserves the index: lookups see nothing. */
	ret = xa_alloc_cyclic(&vdev->mrs, &mr->index, NULL,
			      XA_LIMIT(1, VMLX_MAX_MR), &vdev->next_mr,
			      GFP_KERNEL);
	if (ret < 0) {
		kfree(mr);
		return ERR_PTR(ret == -EBUSY ? -ENOMEM : ret);
	}

	mr->kind = kind;
	spin_lock_init(&mr->lock);
	mr->state = VMLX_MR_INVALID;
	mr->key = mr->index << 8;
	mr->ibmr.device = ibpd->device;
	/* the core sets these too, but only after lookups can find the MR */
	mr->ibmr.pd = ibpd;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	refcount_set(&mr->users, 1);
	init_completion(&mr->released);
	return mr;
}

/* Make the MR findable by its key. */
static void vmlx_mr_publish(struct vmlx_mr *mr)
{
	struct vmlx_dev *vdev = to_vmlx(mr->ibmr.device);

	/* storing into a reserved slot allocates nothing and cannot fail */
	xa_store(&vdev->mrs, mr->index, mr, GFP_KERNEL);
}

struct ib_mr *vmlx_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct vmlx_mr *mr;

	if (to_vpd(ibpd)->user) {
		vmlx_dbg_refusal(ibpd->device, "get_dma_mr: a user PD\n");
		return ERR_PTR(-EINVAL);
	}

	mr = vmlx_mr_new(ibpd, VMLX_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->state = VMLX_MR_VALID;
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;
	vmlx_mr_publish(mr);
	return &mr->ibmr;
}

struct ib_mr *vmlx_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct vmlx_mr *mr;
	u64 *pages;

	if (type != IB_MR_TYPE_MEM_REG || to_vpd(ibpd)->user) {
		vmlx_dbg_refusal(ibpd->device, "alloc_mr: type %d in a %s PD\n",
				 type, to_vpd(ibpd)->user ? "user" : "kernel");
		return ERR_PTR(-EINVAL);
	}
	if (!max_num_sg || max_num_sg > VMLX_MAX_FAST_REG_PAGES) {
		vmlx_dbg_refusal(ibpd->device, "alloc_mr: max_num_sg %u, not 1..%u\n",
				 max_num_sg, VMLX_MAX_FAST_REG_PAGES);
		return ERR_PTR(-EINVAL);
	}

	pages = kcalloc(max_num_sg, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return ERR_PTR(-ENOMEM);
	mr = vmlx_mr_new(ibpd, VMLX_MR_FAST_REG);
	if (IS_ERR(mr)) {
		kfree(pages);
		return ERR_CAST(mr);
	}
	mr->pages = pages;
	mr->max_pages = max_num_sg;
	vmlx_mr_publish(mr);
	return &mr->ibmr;
}

/* The access rights a user MR may have; optional ones are ignored. */
#define VMLX_USER_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)

/**
 * vmlx_reg_user_mr() - the reg_user_mr verb
 * @ibpd: a user PD
 * @start: the process's first byte
 * @length: bytes
 * @virt_addr: the address work requests and peers use for @start
 * @access: IB_ACCESS_* rights
 * @udata: unused, librxe sends no driver data
 *
 * Return: the MR, or ERR_PTR(-EINVAL) for a kernel PD, an empty, too long
 * or wrapping range or remote write or atomic rights without local
 * write; -EOPNOTSUPP for rights the HCA does not offer; ib_umem_get()'s
 * or the key table's errors.
 */
struct ib_mr *vmlx_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access,
			       struct ib_udata *udata)
{
	struct ib_umem *umem;
	struct vmlx_mr *mr;

	if (!to_vpd(ibpd)->user) {
		vmlx_dbg_refusal(ibpd->device, "reg_user_mr: a kernel PD\n");
		return ERR_PTR(-EINVAL);
	}
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~VMLX_USER_MR_ACCESS) {
		vmlx_dbg_refusal(ibpd->device, "reg_user_mr: access bits 0x%x not offered\n",
				 access & ~VMLX_USER_MR_ACCESS);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* IBA 10.6.3.1: remote write and atomic need local write */
	if (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) &&
	    !(access & IB_ACCESS_LOCAL_WRITE)) {
		vmlx_dbg_refusal(ibpd->device,
				 "reg_user_mr: access 0x%x: remote write or atomic without local write\n",
				 access);
		return ERR_PTR(-EINVAL);
	}
	if (!length || length > VMLX_MAX_MR_SIZE ||
	    virt_addr + length < virt_addr || start + length < start) {
		vmlx_dbg_refusal(ibpd->device,
				 "reg_user_mr: %llu bytes at 0x%llx, iova 0x%llx: empty, over %llu or wrapping\n",
				 length, start, virt_addr, VMLX_MAX_MR_SIZE);
		return ERR_PTR(-EINVAL);
	}

	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = vmlx_mr_new(ibpd, VMLX_MR_USER);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->umem = umem;
	mr->state = VMLX_MR_VALID;
	mr->access = access;
	mr->iova = virt_addr;
	mr->length = length;
	mr->page_shift = PAGE_SHIFT;
	mr->page_off = ib_umem_offset(umem);
	mr->ibmr.iova = virt_addr;
	mr->ibmr.length = length;
	mr->ibmr.type = IB_MR_TYPE_USER;
	vmlx_mr_publish(mr);
	return &mr->ibmr;
}

static int vmlx_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct vmlx_mr *mr = to_vmr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

int vmlx_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct vmlx_mr *mr = to_vmr(ibmr);
	int n;

	if (mr->kind != VMLX_MR_FAST_REG) {
		vmlx_dbg_refusal(ibmr->device, "map_mr_sg: not a fast-registration MR\n");
		return -EINVAL;
	}
	mr->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vmlx_set_page);
	/* ib_sg_to_pages() put the first byte's address in iova */
	mr->map_page_off = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/**
 * vmlx_mr_put() - drop a reference taken by vmlx_mr_get()
 * @mr: the MR
 */
void vmlx_mr_put(struct vmlx_mr *mr)
{
	if (refcount_dec_and_test(&mr->users))
		complete(&mr->released);
}

int vmlx_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vmlx_dev *vdev = to_vmlx(ibmr->device);
	struct vmlx_mr *mr = to_vmr(ibmr);

	/* No new lookup finds it; wait for the packets that did. */
	xa_erase(&vdev->mrs, mr->index);
	vmlx_mr_put(mr);
	wait_for_completion(&mr->released);

	kfree(mr->pages);
	if (mr->umem)
		ib_umem_release(mr->umem);
	/* a lookup may still be about to find the count at zero */
	kfree_rcu(mr, rcu);
	return 0;
}

/* A reference on the MR whose key index is that of @key, or NULL. */
static struct vmlx_mr *vmlx_mr_find(struct vmlx_dev *vdev, u32 key)
{
	struct vmlx_mr *mr;

	rcu_read_lock();
	mr = xa_load(&vdev->mrs, key >> 8);
	if (mr && !refcount_inc_not_zero(&mr->users))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/* Whether [iova, iova + len) lies in [start, start + length), overflow-safe. */
static bool vmlx_range_ok(u64 start, u64 length, u64 iova, u64 len)
{
	return iova >= start && len <= length && iova - start <= length - len;
}

/**
 * vmlx_mr_get() - check a key and an access and take a reference on the MR
 * @vdev: the HCA
 * @pd: the PD of the QP that uses the key
 * @key: the key from a work request or a packet
 * @type: whether @key is used as an lkey or an rkey; both are the same
 *	for every vmlx MR, so both lookups ask the same questions
 * @iova: first byte accessed
 * @len: bytes accessed; 0 is allowed anywhere from the MR's start to its
 *	end inclusive
 * @access: the IB_ACCESS_* bits the MR must allow: IB_ACCESS_LOCAL_WRITE
 *	for local writes, 0 for local reads, the remote bit for a remote
 *	access
 * @err: set to -EINVAL (no valid MR with exactly this key in @pd),
 *	-EACCES (access not allowed) or -ERANGE (out of bounds) on failure
 *
 * Context: any; the MR's spinlock is taken briefly.
 * Return: the MR with a reference, to be dropped with vmlx_mr_put(), or
 * NULL.
 */
struct vmlx_mr *vmlx_mr_get(struct vmlx_dev *vdev, struct ib_pd *pd, u32 key,
			    enum vmlx_key_type type, u64 iova, u64 len,
			    int access, int *err)
{
	unsigned long flags;
	struct vmlx_mr *mr;
	int ret = 0;
	bool user;

	mr = vmlx_mr_find(vdev, key);
	if (!mr) {
		*err = -EINVAL;
		return NULL;
	}
	user = mr->kind == VMLX_MR_USER;

	spin_lock_irqsave(&mr->lock, flags);
	/* user MRs only in user PDs, kernel MRs only in kernel PDs */
	if (mr->state != VMLX_MR_VALID || mr->key != key ||
	    mr->ibmr.pd != pd || user != to_vpd(pd)->user)
		ret = -EINVAL;
	else if (access & ~mr->access)
		ret = -EACCES;
	else if (!vmlx_range_ok(mr->iova, mr->length, iova, len))
		ret = -ERANGE;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (ret) {
		vmlx_mr_put(mr);
		*err = ret;
		return NULL;
	}
	return mr;
}

/* Where the byte at @iova of a fast-reg MR is; @iova is in range. */
static void *vmlx_fr_addr(struct vmlx_mr *mr, u64 iova, u32 *room)
{
	unsigned long flags;
	u64 off, page_size;
	u32 shift;

	spin_lock_irqsave(&mr->lock, flags);
	shift = mr->page_shift;
	off = iova - mr->iova + mr->page_off;
	spin_unlock_irqrestore(&mr->lock, flags);

	page_size = 1ULL << shift;
	*room = min_t(u64, page_size - (off & (page_size - 1)), U32_MAX);
	/* stay inside the page list even if the ULP broke its promises */
	if (WARN_ON_ONCE((off >> shift) >= mr->max_pages))
		return NULL;
	return (void *)(uintptr_t)(mr->pages[off >> shift] +
				   (off & (page_size - 1)));
}

/* Where the byte at @iova of a user MR is; @iova is in range. */
static void *vmlx_user_addr(struct vmlx_mr *mr, u64 iova, u32 *room)
{
	/* the registration of a user MR never changes: no lock */
	u64 off = iova - mr->iova + mr->page_off;
	u64 idx = off >> PAGE_SHIFT;

	*room = PAGE_SIZE - (off & ~PAGE_MASK);
	if (WARN_ON_ONCE(idx >= mr->umem->npages))
		return NULL;
	return page_address(mr->umem->pages[idx]) + (off & ~PAGE_MASK);
}

/*
 * Where the bytes from @iova on of an MR are, and in *@room how many of
 * them, at most @len, are contiguous there; @iova is in range.
 */
static void *vmlx_mr_span(struct vmlx_mr *mr, u64 iova, u32 len, u32 *room)
{
	void *addr;

	if (mr->kind == VMLX_MR_DMA) {
		*room = len;
		return (void *)(uintptr_t)iova;
	}
	if (mr->kind == VMLX_MR_USER)
		addr = vmlx_user_addr(mr, iova, room);
	else
		addr = vmlx_fr_addr(mr, iova, room);
	*room = min(*room, len);
	return addr;
}

/**
 * vmlx_mr_copy() - copy to or from a memory region
 * @mr: the MR, from vmlx_mr_get() for a range covering the copy
 * @iova: first byte in the MR
 * @buf: the kernel buffer
 * @len: bytes
 * @dir: %VMLX_TO_MR or %VMLX_FROM_MR
 */
void vmlx_mr_copy(struct vmlx_mr *mr, u64 iova, void *buf, u32 len,
		  enum vmlx_copy_dir dir)
{
	void *addr;
	u32 n;

	while (len) {
		addr = vmlx_mr_span(mr, iova, len, &n);
		if (!addr)
			return;
		if (dir == VMLX_TO_MR)
			memcpy(addr, buf, n);
		else
			memcpy(buf, addr, n);
		iova += n;
		buf += n;
		len -= n;
	}
}

/**
 * vmlx_mr_atomic_addr() - where the 8 bytes of an atomic operation are
 * @mr: the MR, from vmlx_mr_get() for the 8 bytes at @iova
 * @iova: their address in the MR, 8-byte aligned
 *
 * Return: a kernel pointer to them, or NULL if they straddle two pages
 * (only possible if the MR's pages are not aligned like its addresses).
 */
void *vmlx_mr_atomic_addr(struct vmlx_mr *mr, u64 iova)
{
	void *addr;
	u32 room;

	addr = vmlx_mr_span(mr, iova, sizeof(u64), &room);
	if (!addr || room < sizeof(u64))
		return NULL;
	return addr;
}

/* What is done with each piece of the bytes an SG list names. */
typedef int (*vmlx_sge_fn)(struct vmlx_mr *mr, u64 iova, u32 len,
			   void *arg);

/*
 * Calls @fn on each piece of the bytes @offset to @offset + @len of the
 * list @sge, with the piece's MR, checked as the lkey of @pd for
 * @access; entries of length 0 are skipped without looking at their
 * keys.  Returns 0; -EMSGSIZE if the list holds fewer bytes (@fn is not
 * called then); vmlx_mr_get()'s error for the first entry whose key
 * fails, or @fn's, once the pieces before it have been done.
 */
static int vmlx_sge_walk(struct vmlx_dev *vdev, struct ib_pd *pd,
			 const struct rxe_sge *sge, u32 num_sge, u32 offset,
			 u32 len, int access, vmlx_sge_fn fn, void *arg)
{
	struct vmlx_mr *mr;
	u64 total = 0;
	u32 i, n;
	int err;

	for (i = 0; i < num_sge; i++)
		total += sge[i].length;
	if ((u64)offset + len > total)
		return -EMSGSIZE;

	for (i = 0; len; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - offset);
		mr = vmlx_mr_get(vdev, pd, sge[i].lkey, VMLX_LKEY,
				 sge[i].addr + offset, n, access, &err);
		if (!mr)
			return err;
		err = fn(mr, sge[i].addr + offset, n, arg);
		vmlx_mr_put(mr);
		if (err)
			return err;
		len -= n;
		offset = 0;
	}
	return 0;
}

struct vmlx_copy_arg {
	void			*buf;
	enum vmlx_copy_dir	dir;
};

static int vmlx_sge_copy_piece(struct vmlx_mr *mr, u64 iova, u32 len,
			       void *arg)
{
	struct vmlx_copy_arg *c = arg;

	vmlx_mr_copy(mr, iova, c->buf, len, c->dir);
	c->buf += len;
	return 0;
}

/**
 * vmlx_sge_copy() - copy to or from the memory a scatter/gather list names
 * @vdev: the HCA
 * @pd: the PD of the QP whose work request holds the list
 * @sge: the list; each entry's key is checked as an lkey
 * @num_sge: entries in @sge
 * @offset: where in the list's bytes the copy starts
 * @buf: the kernel buffer
 * @len: bytes to copy
 * @dir: %VMLX_TO_MR (needs IB_ACCESS_LOCAL_WRITE) or %VMLX_FROM_MR
 *
 * Entries of length 0 are skipped without looking at their keys.
 *
 * Return: 0; -EMSGSIZE if the list holds fewer than @offset + @len bytes
 * (nothing is copied then); or vmlx_mr_get()'s error for the first entry
 * whose key fails (the entries before it have been copied).
 */
int vmlx_sge_copy(struct vmlx_dev *vdev, struct ib_pd *pd,
		  const struct rxe_sge *sge, u32 num_sge, u32 offset,
		  void *buf, u32 len, enum vmlx_copy_dir dir)
{
	struct vmlx_copy_arg c = { .buf = buf, .dir = dir };

	return vmlx_sge_walk(vdev, pd, sge, num_sge, offset, len,
			     dir == VMLX_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0,
			     vmlx_sge_copy_piece, &c);
}

struct vmlx_skb_arg {
	const struct sk_buff	*skb;
	u32			off;
};

/*
 * Copies the bytes of a packet from skb offset @a->off on into @len bytes
 * of an MR at @iova, wherever the packet keeps them (its head or page
 * fragments).
 */
static int vmlx_mr_copy_skb(struct vmlx_mr *mr, u64 iova, u32 len,
			    void *arg)
{
	struct vmlx_skb_arg *a = arg;
	void *addr;
	u32 n;

	while (len) {
		addr = vmlx_mr_span(mr, iova, len, &n);
		if (!addr)
			return 0;
		if (skb_copy_bits(a->skb, a->off, addr, n))
			return -EMSGSIZE;
		a->off += n;
		iova += n;
		len -= n;
	}
	return 0;
}

/**
 * vmlx_sge_copy_payload() - copy a packet's payload into an SG list's memory
 * @vdev: the HCA
 * @pd: the PD of the QP whose receive WQE (or RDMA READ WQE) holds the list
 * @sge: the list; each entry's key is checked as an lkey with
 *	IB_ACCESS_LOCAL_WRITE
 * @num_sge: entries in @sge
 * @offset: where in the list's bytes the payload goes
 * @skb: the packet, whose payload may be in page fragments
 *	(vmlx_sge_attach(), vmlx_mr_attach()); a burst's is the payload of
 *	all its packets (vmlx_burst.c)
 *
 * Return: as vmlx_sge_copy().
 */
int vmlx_sge_copy_payload(struct vmlx_dev *vdev, struct ib_pd *pd,
			  const struct rxe_sge *sge, u32 num_sge, u32 offset,
			  struct sk_buff *skb)
{
	const struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_skb_arg a = { .skb = skb, .off = pkt->payload };

	return vmlx_sge_walk(vdev, pd, sge, num_sge, offset,
			     vmlx_pkt_bytes(pkt), IB_ACCESS_LOCAL_WRITE,
			     vmlx_mr_copy_skb, &a);
}

/**
 * vmlx_mr_copy_payload() - copy a packet's payload into a memory region
 * @mr: the MR, from vmlx_mr_get() for the payload's range at @iova
 * @iova: where the payload goes
 * @skb: the packet, whose payload may be in page fragments; a burst's is
 *	the payload of all its packets (vmlx_burst.c)
 */
void vmlx_mr_copy_payload(struct vmlx_mr *mr, u64 iova,
			  struct sk_buff *skb)
{
	const struct vmlx_pkt *pkt = vmlx_pkt(skb);
	struct vmlx_skb_arg a = { .skb = skb, .off = pkt->payload };

	vmlx_mr_copy_skb(mr, iova, vmlx_pkt_bytes(pkt), &a);
}

/*
 * Adds the @len bytes at kernel address @addr to @skb as page fragments,
 * each holding a reference on its page.  -EAGAIN if that cannot be done:
 * not in the linear map; slab memory, whose objects a page reference
 * does not keep; a page without a reference count of its own (the tail
 * pages of a multi-page allocation made without __GFP_COMP); no fragment
 * left.  The caller copies instead.
 */
static int vmlx_skb_attach(struct sk_buff *skb, void *addr, u32 len)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	struct page *page;
	u32 off, n;
	int i;

	while (len) {
		if (!virt_addr_valid(addr))
			return -EAGAIN;
		page = virt_to_page(addr);
		if (PageSlab(page) || page_count(page) < 1)
			return -EAGAIN;
		off = offset_in_page(addr);
		n = min_t(u32, len, PAGE_SIZE - off);
		i = shinfo->nr_frags;
		if (i && skb_can_coalesce(skb, i, page, off)) {
			skb_frag_size_add(&shinfo->frags[i - 1], n);
		} else {
			if (i >= MAX_SKB_FRAGS)
				return -EAGAIN;
			get_page(page);
			skb_fill_page_desc(skb, i, page, off, n);
		}
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		addr += n;
		len -= n;
	}
	return 0;
}

static int vmlx_sge_attach_piece(struct vmlx_mr *mr, u64 iova, u32 len,
				 void *arg)
{
	void *addr;
	u32 n;
	int ret;

	while (len) {
		addr = vmlx_mr_span(mr, iova, len, &n);
		if (!addr)
			return -EAGAIN;
		ret = vmlx_skb_attach(arg, addr, n);
		if (ret)
			return ret;
		iova += n;
		len -= n;
	}
	return 0;
}

/**
 * vmlx_sge_attach() - make an SG list's memory a packet's payload, uncopied
 * @vdev: the HCA
 * @pd: the PD of the QP whose send WQE holds the list
 * @sge: the list; each entry's key is checked as an lkey
 * @num_sge: entries in @sge
 * @offset: where in the list's bytes the payload starts
 * @skb: a packet of headers only; the bytes are added as page fragments,
 *	which hold references on their pages until the packet is freed
 * @len: payload bytes
 *
 * Only for RC requests: their WQE completes when the responder has
 * acknowledged them, after it copied the payload out, so the memory is
 * read while the WQE is still the sender's (as a real HCA reads it while
 * it sends).
 *
 * Return: as vmlx_sge_copy(); -EAGAIN if some of the memory cannot be
 * attached (the packet is then of no use: the caller frees it and
 * copies the payload into a new one).
 */
int vmlx_sge_attach(struct vmlx_dev *vdev, struct ib_pd *pd,
		    const struct rxe_sge *sge, u32 num_sge, u32 offset,
		    struct sk_buff *skb, u32 len)
{
	return vmlx_sge_walk(vdev, pd, sge, num_sge, offset, len, 0,
			     vmlx_sge_attach_piece, skb);
}

/**
 * vmlx_mr_attach() - make bytes of a memory region a packet's payload,
 *	uncopied
 * @mr: the MR, from vmlx_mr_get() for the range at @iova
 * @iova: the first byte
 * @skb: a packet of headers only; the bytes are added as page fragments,
 *	which hold references on their pages until the packet is freed
 * @len: payload bytes
 *
 * For RDMA READ responses.  The pages stay allocated while the packet
 * travels, whatever becomes of the MR; the bytes are those the pages
 * hold when the requester copies them out, as they would be if the
 * responder's HCA read them while the response was on the wire.
 *
 * Return: 0, or -EAGAIN if some of the memory cannot be attached (the
 * caller frees the packet and copies the payload into a new one).
 */
int vmlx_mr_attach(struct vmlx_mr *mr, u64 iova, struct sk_buff *skb,
		   u32 len)
{
	return vmlx_sge_attach_piece(mr, iova, len, skb);
}

/**
 * vmlx_mr_fast_reg() - carry out an IB_WR_REG_MR work request
 * @vdev: the HCA
 * @pd: the PD of the QP that posted it
 * @ibmr: the MR, mapped with ib_map_mr_sg()
 * @key: the new key; its index must be the MR's
 * @access: IB_ACCESS_* rights
 *
 * The MR becomes valid with the key, the rights and the mapping of the
 * last ib_map_mr_sg(), whether it was valid before or not.
 *
 * Return: 0, or -EINVAL if @ibmr is not a fast-registration MR of @pd,
 * @key does not belong to it or its mapping is not usable.
 */
int vmlx_mr_fast_reg(struct vmlx_dev *vdev, struct ib_pd *pd,
		     struct ib_mr *ibmr, u32 key, int access)
{
	unsigned long flags;
	struct vmlx_mr *mr;

	if (!ibmr || ibmr->device != &vdev->ibdev)
		return -EINVAL;
	mr = to_vmr(ibmr);
	if (mr->kind != VMLX_MR_FAST_REG || ibmr->pd != pd ||
	    key >> 8 != mr->index)
		return -EINVAL;
	if (!is_power_of_2(ibmr->page_size) ||
	    (u64)mr->npages * ibmr->page_size < mr->map_page_off ||
	    ibmr->length > (u64)mr->npages * ibmr->page_size -
			   mr->map_page_off)
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	mr->key = key;
	mr->access = access;
	mr->iova = ibmr->iova;
	mr->length = ibmr->length;
	mr->page_shift = ilog2(ibmr->page_size);
	mr->page_off = mr->map_page_off;
	mr->state = VMLX_MR_VALID;
	spin_unlock_irqrestore(&mr->lock, flags);
	ibmr->lkey = key;
	ibmr->rkey = key;
	return 0;
}

/**
 * vmlx_mr_invalidate() - carry out a LOCAL_INV or a SEND_WITH_INV
 * @vdev: the HCA
 * @pd: the PD of the QP concerned
 * @key: the key to invalidate
 *
 * Packets already using the MR finish; new lookups fail.
 *
 * Return: 0, or -EINVAL if no fast-registration MR of @pd has the key.
 */
int vmlx_mr_invalidate(struct vmlx_dev *vdev, struct ib_pd *pd, u32 key)
{
	unsigned long flags;
	struct vmlx_mr *mr;
	int ret = -EINVAL;

	mr = vmlx_mr_find(vdev, key);
	if (!mr)
		return -EINVAL;
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->kind == VMLX_MR_FAST_REG && mr->key == key &&
	    mr->ibmr.pd == pd) {
		mr->state = VMLX_MR_INVALID;
		ret = 0;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	vmlx_mr_put(mr);
	return ret;
}
