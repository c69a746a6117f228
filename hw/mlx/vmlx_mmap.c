// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx mmap entries: the rings of user CQs, QPs and SRQs, offered to the
 * process that created them and mapped by the mmap op.
 *
 * Creating a user object registers its ring buffer as an entry of the HCA
 * (vmlx_dev.mmaps), under a page-aligned offset that the response to the
 * create command carries in a struct mminfo, together with the address
 * space of the creating process.  The process then mmap()s the uverbs
 * file at that offset; the mmap op finds the entry, checks that the
 * mapping is made in the creator's address space and has the entry's
 * size, and inserts the pages of the buffer (zeroed vmalloc() memory,
 * charged to the creator's memory cgroup: vmlx_queue_init()).
 *
 * Why the address space and not the user context: the driver ops of the
 * create commands receive no context (struct ib_udata carries none), so
 * the entries cannot be filed under one.  Two contexts of one process may
 * thus map each other's rings, which gives the process nothing it does
 * not already have; another process never can.
 *
 * Lifetime: the entry (and its buffer) is referenced by the object that
 * owns the ring and by every VMA mapping it (vm_ops open/close), so that a
 * process may munmap after destroying the object, or never.  uverbs
 * destroys every object of a context before the context, and destroying
 * the object removes the entry from the HCA, so no new mapping can be
 * made, and drops the object's reference; the last reference frees the
 * buffer.  Each entry can be mapped once, as with soft-RoCE.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "vmlx.h"

/* Offsets are entry ids in pages; id 0 is never used. */
#define VMLX_MMAP_MAX_ID	(U32_MAX >> PAGE_SHIFT)

static void vmlx_mmap_free(struct kref *ref)
{
	struct vmlx_mmap *m = container_of(ref, struct vmlx_mmap, ref);

	vfree(m->buf);
	if (m->mm)
		mmdrop(m->mm);
	kfree(m);
}

/**
 * vmlx_mmap_put() - drop a reference to an entry
 * @m: the entry; the last reference frees it and its buffer
 */
static void vmlx_mmap_put(struct vmlx_mmap *m)
{
	kref_put(&m->ref, vmlx_mmap_free);
}

/**
 * vmlx_mmap_add() - offer a ring buffer to the current process
 * @vdev: the HCA
 * @buf: the buffer, from vmlx_queue_init(); the entry owns it from now on,
 *	whether this succeeds or not
 * @size: its size in bytes
 * @mi: filled in with the offset and size the process maps
 *
 * Return: the entry, holding one reference for the caller, or an
 * ERR_PTR() (the buffer has then been freed).
 */
struct vmlx_mmap *vmlx_mmap_add(struct vmlx_dev *vdev, void *buf,
				size_t size, struct mminfo *mi)
{
	struct vmlx_mmap *m;
	u32 id;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		vfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&m->ref);
	m->buf = buf;
	m->size = PAGE_ALIGN(size);
	if (!current->mm) {
		vmlx_mmap_put(m);
		return ERR_PTR(-EINVAL);
	}
	m->mm = current->mm;
	mmgrab(m->mm);

	ret = xa_alloc_cyclic(&vdev->mmaps, &id, m,
			      XA_LIMIT(1, VMLX_MMAP_MAX_ID), &vdev->next_mmap,
			      GFP_KERNEL);
	if (ret < 0) {
		vmlx_mmap_put(m);
		return ERR_PTR(ret == -EBUSY ? -ENOMEM : ret);
	}
	m->vdev = vdev;
	m->id = id;
	mi->offset = (u64)id << PAGE_SHIFT;
	mi->size = m->size;
	mi->pad = 0;
	return m;
}

/**
 * vmlx_mmap_remove() - withdraw an entry and drop the owner's reference
 * @m: the entry, or NULL
 *
 * Mappings already made stay valid until they are unmapped.
 */
void vmlx_mmap_remove(struct vmlx_mmap *m)
{
	if (!m)
		return;
	xa_erase(&m->vdev->mmaps, m->id);
	vmlx_mmap_put(m);
}

static void vmlx_vma_open(struct vm_area_struct *vma)
{
	struct vmlx_mmap *m = vma->vm_private_data;

	kref_get(&m->ref);
}

static void vmlx_vma_close(struct vm_area_struct *vma)
{
	vmlx_mmap_put(vma->vm_private_data);
}

static const struct vm_operations_struct vmlx_vm_ops = {
	.open = vmlx_vma_open,
	.close = vmlx_vma_close,
};

/*
 * Map the pages of @m's buffer at @vma, which has its size.  (Not
 * remap_vmalloc_range(): that wants vmalloc_user() memory, which cannot
 * be charged to a memory cgroup.)
 */
static int vmlx_mmap_insert(struct vm_area_struct *vma,
			    const struct vmlx_mmap *m)
{
	unsigned long off;
	int ret;

	for (off = 0; off < m->size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(m->buf + off));
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vmlx_mmap() - the mmap op: map a ring offered to this context
 * @ibuc: the calling process's context
 * @vma: the mapping; vm_pgoff names the entry, its length must be the
 *	entry's size, it must be shared and in the creator's address space
 *
 * Return: 0, -EINVAL for an unknown, already mapped or differently sized
 * entry or a private mapping, or vm_insert_page()'s error.
 */
int vmlx_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct vmlx_dev *vdev = to_vmlx(ibuc->device);
	unsigned long size = vma->vm_end - vma->vm_start;
	struct vmlx_mmap *m;
	int ret;

	if (!(vma->vm_flags & VM_SHARED) || vma->vm_pgoff > VMLX_MMAP_MAX_ID) {
		vmlx_dbg_refusal(&vdev->ibdev,
				 "mmap: a private mapping or offset %lu > %u pages\n",
				 vma->vm_pgoff, VMLX_MMAP_MAX_ID);
		return -EINVAL;
	}

	/* claim the entry: it is mapped at most once */
	xa_lock(&vdev->mmaps);
	m = xa_load(&vdev->mmaps, vma->vm_pgoff);
	if (!m || m->mapped || m->size != size || m->mm != vma->vm_mm) {
		xa_unlock(&vdev->mmaps);
		vmlx_dbg_refusal(&vdev->ibdev,
				 "mmap: offset %lu: no ring, mapped already, not %lu bytes or another process's\n",
				 vma->vm_pgoff, size);
		return -EINVAL;
	}
	m->mapped = true;
	kref_get(&m->ref);
	xa_unlock(&vdev->mmaps);

	ret = vmlx_mmap_insert(vma, m);
	if (ret) {
		/* the failed mapping is torn down: it may be made again */
		xa_lock(&vdev->mmaps);
		m->mapped = false;
		xa_unlock(&vdev->mmaps);
		vmlx_mmap_put(m);
		return ret;
	}
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_private_data = m;
	vma->vm_ops = &vmlx_vm_ops;
	return 0;
}
