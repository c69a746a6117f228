/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User memory pinned for an HCA (core/umem.c).
 */
#ifndef IB_UMEM_H
#define IB_UMEM_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct ib_device;

/**
 * struct ib_umem - a range of a process's memory, pinned
 * @device: the device it was pinned for
 * @owning_mm: the process's mm, referenced (mmgrab) for the accounting
 * @address: the first byte, a user virtual address
 * @length: its length in bytes
 * @writable: pinned for writing (the HCA may write to it)
 * @npages: number of pages in @pages
 * @pages: the pinned pages, in order; the first holds @address
 */
struct ib_umem {
	struct ib_device	*device;
	struct mm_struct	*owning_mm;
	unsigned long		address;
	size_t			length;
	bool			writable;
	unsigned long		npages;
	struct page		**pages;
};

struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access);
void ib_umem_release(struct ib_umem *umem);

/* Offset of @umem's first byte in its first page. */
static inline unsigned long ib_umem_offset(const struct ib_umem *umem)
{
	return umem->address & ~PAGE_MASK;
}

#endif /* IB_UMEM_H */
