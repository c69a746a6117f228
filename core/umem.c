// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User memory pinned for an HCA.
 *
 * A driver registering a user MR (or mapping any user buffer the device
 * will access) pins the pages with ib_umem_get() and releases them with
 * ib_umem_release().  The pinned pages are charged to the process's
 * mm->pinned_vm against RLIMIT_MEMLOCK, as upstream, unless the caller has
 * CAP_IPC_LOCK.  The mm is kept (mmgrab, not mmget) so that the charge can
 * be returned to it even after the process has exited.
 */
#include <linux/capability.h>
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

/* Pages per pin_user_pages_fast() call: one page of page pointers. */
#define IB_UMEM_PIN_BATCH	(PAGE_SIZE / sizeof(struct page *))

/**
 * ib_umem_get - pin a range of the current process's memory
 * @device: the device the memory is pinned for
 * @addr: the first byte, a user virtual address
 * @size: the length in bytes, not 0
 * @access: IB_ACCESS_* flags of the registration; if the HCA may write
 *	(LOCAL_WRITE, REMOTE_WRITE, REMOTE_ATOMIC) the pages are pinned for
 *	writing, which breaks copy-on-write sharing now
 *
 * The pages are pinned long term and charged to mm->pinned_vm.
 *
 * Context: process context; may sleep.
 * Return: the umem, to be released with ib_umem_release(); or
 * ERR_PTR(-EINVAL) for an empty or wrapping range, -ENOMEM if the pages
 * would exceed RLIMIT_MEMLOCK (or memory is short, or the range is
 * beyond 2 GiB worth of page pointers), -EFAULT if part of the
 * range is not mapped (or not writable when it must be).
 */
struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access)
{
	unsigned int gup_flags = FOLL_LONGTERM;
	unsigned long lock_limit, new_pinned;
	unsigned long npages, cur_base;
	struct mm_struct *mm;
	struct ib_umem *umem;
	unsigned long left;
	int pinned;
	int ret;

	if (!size || addr + size < addr ||
	    PAGE_ALIGN(addr + size) < addr + size)
		return ERR_PTR(-EINVAL);
	if (!current->mm)
		return ERR_PTR(-EINVAL);

	npages = (PAGE_ALIGN(addr + size) - (addr & PAGE_MASK)) >> PAGE_SHIFT;
	/*
	 * More than the machine has, or than the page array can hold, can
	 * never be pinned; fail before trying to allocate the array.
	 */
	if (npages > totalram_pages() ||
	    npages > INT_MAX / sizeof(struct page *))
		return ERR_PTR(-ENOMEM);

	umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->device = device;
	umem->address = addr;
	umem->length = size;
	umem->writable = !!(access & (IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_ATOMIC));
	if (umem->writable)
		gup_flags |= FOLL_WRITE;
	mm = current->mm;
	umem->owning_mm = mm;
	mmgrab(mm);

	/* charge first, so that concurrent registrations cannot overshoot */
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	new_pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (new_pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_uncharge;
	}

	/* a user asking for much is no reason for a warning in the log */
	umem->pages = kvcalloc(npages, sizeof(*umem->pages),
			       GFP_KERNEL | __GFP_NOWARN);
	if (!umem->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}

	cur_base = addr & PAGE_MASK;
	for (left = npages; left; left -= pinned) {
		pinned = pin_user_pages_fast(cur_base,
					     min_t(unsigned long, left,
						   IB_UMEM_PIN_BATCH),
					     gup_flags,
					     umem->pages + umem->npages);
		if (pinned <= 0) {
			ret = pinned ? pinned : -EFAULT;
			goto err_unpin;
		}
		umem->npages += pinned;
		cur_base += (unsigned long)pinned << PAGE_SHIFT;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_unpin;
		}
	}
	return umem;

err_unpin:
	unpin_user_pages_dirty_lock(umem->pages, umem->npages, false);
	kvfree(umem->pages);
err_uncharge:
	atomic64_sub(npages, &mm->pinned_vm);
	mmdrop(mm);
	kfree(umem);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_umem_get);

/**
 * ib_umem_release - unpin memory pinned by ib_umem_get()
 * @umem: the umem, or NULL (nothing happens then)
 *
 * Pages pinned for writing are marked dirty.  The pages are uncharged
 * from the mm they were charged to.
 *
 * Context: process context; may sleep.
 */
void ib_umem_release(struct ib_umem *umem)
{
	unsigned long npages;

	if (!umem)
		return;
	npages = (PAGE_ALIGN(umem->address + umem->length) -
		  (umem->address & PAGE_MASK)) >> PAGE_SHIFT;
	unpin_user_pages_dirty_lock(umem->pages, umem->npages, umem->writable);
	kvfree(umem->pages);
	atomic64_sub(npages, &umem->owning_mm->pinned_vm);
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL(ib_umem_release);
