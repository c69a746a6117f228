// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory region page mapping helpers.
 *
 * A fast-registration MR describes its memory as a list of equally sized
 * pages plus a start address (iova) and a length.  ULPs hand the core a
 * DMA-mapped scatterlist through ib_map_mr_sg(); the driver's map_mr_sg
 * op normally lets ib_sg_to_pages() cut that scatterlist into pages and
 * stores each one with its own set_page callback.
 *
 * Software devices have no DMA device: for them "DMA addresses" are
 * kernel virtual addresses, which ib_dma_virt_map_sg() fills in.
 */
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

/**
 * ib_map_mr_sg - map the largest possible prefix of a scatterlist to an MR
 * @mr: a fast-registration MR
 * @sg: the DMA-mapped scatterlist
 * @sg_nents: number of entries in @sg
 * @sg_offset: if not NULL, in: the byte offset into the first entry at
 *	which the mapping starts; out: see ib_sg_to_pages()
 * @page_size: size of the MR's pages, a power of two of at least 4 KiB
 *
 * Only the first entry may start inside a page and only the last one may
 * end inside a page, unless an entry continues the previous one without a
 * gap.  The mapping stops before the first entry that breaks this rule
 * and when the MR's page list is full.  Afterwards the MR is ready to be
 * registered with an IB_WR_REG_MR work request.
 *
 * Return: the number of entries of @sg that were mapped completely, or a
 * negative errno: -EOPNOTSUPP if the device cannot map scatterlists,
 * -EINVAL for a bad @page_size or scatterlist.
 */
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size)
{
	const struct ib_device_ops *ops = mr->device->ops;

	if (unlikely(!ops->map_mr_sg))
		return -EOPNOTSUPP;
	if (unlikely(page_size < SZ_4K || !is_power_of_2(page_size)))
		return -EINVAL;

	mr->page_size = page_size;
	return ops->map_mr_sg(mr, sg, sg_nents, sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg);

/**
 * ib_sg_to_pages - cut the largest possible prefix of a scatterlist into
 *	MR pages
 * @mr: the MR; its page_size must be set (ib_map_mr_sg() does it)
 * @sgl: the DMA-mapped scatterlist
 * @sg_nents: number of entries in @sgl
 * @sg_offset: if not NULL, in: the byte offset into @sgl[0] at which the
 *	mapping starts; out: the byte offset, into the entry whose index is
 *	the return value, of the first byte that is not covered by the MR
 *	(0 unless the MR's page list filled up inside that entry)
 * @set_page: the driver's callback that appends one page address to the
 *	MR's page list; it returns a negative errno when the list is full
 *
 * For a driver's map_mr_sg op.  Sets @mr->iova to the first mapped byte
 * (so it keeps the first entry's offset into its page) and @mr->length to
 * the number of bytes covered, and calls @set_page for every page from
 * the one holding the first byte on.  An entry after the first one must
 * start on a page boundary and its predecessor must end on one, unless it
 * starts exactly where its predecessor ends: then the two are merged and
 * the page they share is listed once.  The mapping stops before the
 * first entry that breaks this rule.
 *
 * When @set_page fails inside an entry, the last page that was added is
 * not counted in @mr->length and *@sg_offset points at its start (or at
 * the entry's first mapped byte if that lies inside it), so a following
 * call maps that page again; the bytes before it stay mapped.
 *
 * Return: the number of entries mapped completely; when the page list
 * filled up before a single byte was covered, the error of @set_page if
 * the mapping started at offset 0 of @sgl[0], else 0.  -EINVAL for an
 * empty scatterlist, an offset beyond the first entry or an MR page size
 * that is not a power of two.
 */
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset, int (*set_page)(struct ib_mr *, u64))
{
	u64 page_size = mr->page_size;
	u64 in_page = page_size - 1;	/* mask of the offset in a page */
	unsigned int skip = sg_offset ? *sg_offset : 0;
	u64 prev_end = 0;		/* DMA end of the previous entry */
	struct scatterlist *sg;
	int i, ret;

	if (unlikely(!is_power_of_2(mr->page_size)))
		return -EINVAL;
	if (unlikely(sg_nents <= 0 || skip > sg_dma_len(sgl)))
		return -EINVAL;

	mr->iova = sg_dma_address(sgl) + skip;
	mr->length = 0;

	for_each_sg(sgl, sg, sg_nents, i) {
		u64 start = sg_dma_address(sg) + skip;
		unsigned int len = sg_dma_len(sg) - skip;
		u64 end = start + len;
		u64 page = start & ~in_page;
		/* Where a later call resumes if set_page() fails here. */
		u64 resume = start;
		/* The page holding @start is not listed yet. */
		bool first_pending = true;

		if (i && ((prev_end & in_page) || page != start)) {
			/*
			 * The boundary between this entry and the previous
			 * one is not a page boundary: fine only if there is
			 * no gap, and then the page holding it is listed.
			 */
			if (start != prev_end)
				break;
			page += page_size;
			first_pending = false;
		}

		/*
		 * The page holding @start is listed even if the entry is
		 * empty; the pages after it as long as they hold data.
		 */
		for (; first_pending || page < end; page += page_size) {
			first_pending = false;
			ret = set_page(mr, page);
			if (unlikely(ret < 0)) {
				skip = resume - sg_dma_address(sg);
				mr->length += resume - start;
				if (sg_offset)
					*sg_offset = skip;
				return i || skip ? i : ret;
			}
			resume = max(page, start);
		}

		mr->length += len;
		prev_end = end;
		skip = 0;
	}

	if (sg_offset)
		*sg_offset = 0;
	return i;
}
EXPORT_SYMBOL(ib_sg_to_pages);

/**
 * ib_dma_virt_map_sg - "map" a scatterlist for a software device
 * @dev: the device, one for which ib_uses_virt_dma() is true
 * @sg: the scatterlist
 * @nents: number of entries in @sg
 *
 * A software device reaches memory through kernel virtual addresses, so
 * each entry's DMA address becomes its virtual address and its DMA length
 * its length.  Nothing needs to be undone later.
 *
 * Return: @nents.
 */
int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg,
		       int nents)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sg, s, nents, i) {
		sg_dma_address(s) = (uintptr_t)sg_virt(s);
		sg_dma_len(s) = s->length;
	}
	return nents;
}
EXPORT_SYMBOL(ib_dma_virt_map_sg);
