// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the MR page mapping helpers: ib_sg_to_pages() over
 * hand-made scatterlists (which entries it maps, the pages it lists, the
 * MR's iova and length, the offset it hands back when the page list is
 * full), ib_map_mr_sg()'s checks and ib_dma_virt_map_sg().
 *
 * No driver is involved: a fake MR records the pages its set_page
 * callback receives, up to a limit that plays the size of its page list.
 * The DMA addresses are made up and never dereferenced.  Every expected
 * value is written out by hand.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

#define MRT_MAX_PAGES	16
#define MRT_MAX_ENTS	8

struct mrt_mr {
	struct ib_mr mr;
	u64 pages[MRT_MAX_PAGES];
	int npages;
	int limit;		/* set_page fails once this many are listed */
	int calls;		/* set_page calls, the failing ones included */
	struct scatterlist sgl[MRT_MAX_ENTS];
};

struct mrt_ent {
	u64 addr;
	unsigned int len;
};

static int mrt_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mrt_mr *m = container_of(ibmr, struct mrt_mr, mr);

	m->calls++;
	if (m->npages >= m->limit)
		return -ENOMEM;
	m->pages[m->npages++] = addr;
	return 0;
}

/* A fresh MR of @page_size with room for @limit pages. */
static struct mrt_mr *mrt_new(struct kunit *test, unsigned int page_size,
			      int limit)
{
	struct mrt_mr *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->mr.page_size = page_size;
	m->limit = limit;
	/* Poison what ib_sg_to_pages() must set. */
	m->mr.iova = 0xdead;
	m->mr.length = 0xbeef;
	return m;
}

/* Builds @m's scatterlist from @n (DMA address, DMA length) pairs. */
static struct scatterlist *mrt_sg(struct mrt_mr *m, const struct mrt_ent *e,
				  int n)
{
	int i;

	sg_init_table(m->sgl, n);
	for (i = 0; i < n; i++) {
		sg_dma_address(&m->sgl[i]) = e[i].addr;
		sg_dma_len(&m->sgl[i]) = e[i].len;
	}
	return m->sgl;
}

static void mrt_expect_pages(struct kunit *test, struct mrt_mr *m,
			     const u64 *pages, int n)
{
	int i;

	KUNIT_EXPECT_EQ(test, m->npages, n);
	for (i = 0; i < min(n, m->npages); i++)
		KUNIT_EXPECT_EQ_MSG(test, m->pages[i], pages[i], "page %d", i);
}

/* One page-aligned entry of three pages. */
static void ib_sg_to_pages_one_aligned(struct kunit *test)
{
	static const struct mrt_ent e[] = { { 0x100000, 0x3000 } };
	static const u64 pages[] = { 0x100000, 0x101000, 0x102000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 1), 1, &off,
					     mrt_set_page), 1);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x3000ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);

	/* Without an offset pointer: the same. */
	m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 1), 1, NULL,
					     mrt_set_page), 1);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x3000ULL);
}

/* The first entry may start inside a page; iova keeps that offset. */
static void ib_sg_to_pages_first_offset(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100200, 0x2e00 },	/* 0x100200..0x103000: 3 pages */
		{ 0x200000, 0x1000 },
	};
	static const u64 pages[] = { 0x100000, 0x101000, 0x102000, 0x200000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 2);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100200ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x3e00ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/* A middle entry starting inside a page, after a gap: mapping stops. */
static void ib_sg_to_pages_middle_unaligned(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x1000 },
		{ 0x200000, 0x1000 },
		{ 0x300100, 0x1000 },
		{ 0x400000, 0x1000 },
	};
	static const u64 pages[] = { 0x100000, 0x200000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 4), 4, &off,
					     mrt_set_page), 2);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x2000ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/*
 * An entry that is not the last one ends inside a page: the next entry,
 * page aligned but elsewhere, is not mapped.  The last entry may end
 * inside a page.
 */
static void ib_sg_to_pages_ends_mid_page(struct kunit *test)
{
	static const struct mrt_ent bad[] = {
		{ 0x100000, 0x1800 },
		{ 0x200000, 0x1000 },
	};
	static const u64 bad_pages[] = { 0x100000, 0x101000 };
	static const struct mrt_ent good[] = {
		{ 0x100000, 0x1000 },
		{ 0x200000, 0x800 },
	};
	static const u64 good_pages[] = { 0x100000, 0x200000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, bad, 2), 2,
					     &off, mrt_set_page), 1);
	mrt_expect_pages(test, m, bad_pages, ARRAY_SIZE(bad_pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1800ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);

	m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, good, 2), 2,
					     &off, mrt_set_page), 2);
	mrt_expect_pages(test, m, good_pages, ARRAY_SIZE(good_pages));
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1800ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/* *sg_offset skips into the first entry; it is reset to 0 at the end. */
static void ib_sg_to_pages_sg_offset(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x3000 },
		{ 0x200000, 0x1000 },
	};
	/* 0x101100..0x103000, then the second entry */
	static const u64 pages[] = { 0x101000, 0x102000, 0x200000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0x1100;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 2);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x101100ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x2f00ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/*
 * An offset equal to the first entry's length is allowed (nothing of it
 * is left, yet the page holding its end is listed, as upstream does); a
 * larger one, or no entries at all, is -EINVAL.
 */
static void ib_sg_to_pages_sg_offset_limits(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x1000 },
		{ 0x200000, 0x1000 },
	};
	static const u64 pages[] = { 0x101000, 0x200000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0x1000;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 2);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x101000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);

	m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	off = 0x1001;
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), -EINVAL);
	KUNIT_EXPECT_EQ(test, off, 0x1001U);
	KUNIT_EXPECT_EQ(test, m->calls, 0);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 0, NULL,
					     mrt_set_page), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), -1, NULL,
					     mrt_set_page), -EINVAL);
	KUNIT_EXPECT_EQ(test, m->calls, 0);
}

/*
 * The page list fills up inside an aligned entry: the last page listed
 * is left out of the length and the returned offset points at it, so the
 * next MR starts with it again.  No entry is complete: the result is 0.
 */
static void ib_sg_to_pages_full_mid_entry(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x3000 },
		{ 0x200000, 0x1000 },
	};
	static const u64 pages[] = { 0x100000, 0x101000 };
	static const u64 rest[] = { 0x101000, 0x102000, 0x200000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, 2);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 0);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->calls, 3);
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, off, 0x1000U);

	/* A second MR continues from there. */
	m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 2);
	mrt_expect_pages(test, m, rest, ARRAY_SIZE(rest));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x101000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x3000ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/* The same with a first entry that starts inside its first page. */
static void ib_sg_to_pages_full_mid_unaligned(struct kunit *test)
{
	/* 0x100200..0x103200: pages 0x100000..0x103000 */
	static const struct mrt_ent e[] = { { 0x100200, 0x3000 } };
	static const u64 pages[] = { 0x100000, 0x101000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, 2);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 1), 1, &off,
					     mrt_set_page), 0);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100200ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0xe00ULL);
	KUNIT_EXPECT_EQ(test, off, 0xe00U);
}

/*
 * Full right after the first page, which holds the first mapped byte but
 * does not start there.  Upstream resumes at that page's start, before
 * the first mapped byte, which makes the MR length wrap to nearly 2^64
 * (and the offset too when the mapping started at offset 0).  Here the
 * first mapped byte is the resume point, which makes this the "nothing
 * mapped" case: the error of set_page without an offset, 0 with one.
 */
static void ib_sg_to_pages_full_first_page(struct kunit *test)
{
	static const struct mrt_ent e[] = { { 0x100200, 0x2000 } };
	static const u64 pages[] = { 0x100000 };
	static const struct mrt_ent e2[] = { { 0x100000, 0x3000 } };
	static const u64 pages2[] = { 0x101000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, 1);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 1), 1, &off,
					     mrt_set_page), -ENOMEM);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100200ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);

	/* The same page, reached through an offset: 0, offset unchanged. */
	m = mrt_new(test, SZ_4K, 1);
	off = 0x1100;
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e2, 1), 1, &off,
					     mrt_set_page), 0);
	mrt_expect_pages(test, m, pages2, ARRAY_SIZE(pages2));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x101100ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0ULL);
	KUNIT_EXPECT_EQ(test, off, 0x1100U);
}

/*
 * No room at all: set_page's error comes back if the mapping started at
 * offset 0, else 0 with the offset unchanged (as upstream).
 */
static void ib_sg_to_pages_full_at_once(struct kunit *test)
{
	static const struct mrt_ent e[] = { { 0x100000, 0x2000 } };
	struct mrt_mr *m = mrt_new(test, SZ_4K, 0);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 1), 1, &off,
					     mrt_set_page), -ENOMEM);
	KUNIT_EXPECT_EQ(test, m->calls, 1);
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);

	m = mrt_new(test, SZ_4K, 0);
	off = 0x200;
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 1), 1, &off,
					     mrt_set_page), 0);
	KUNIT_EXPECT_EQ(test, m->calls, 1);
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100200ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0ULL);
	KUNIT_EXPECT_EQ(test, off, 0x200U);
}

/*
 * Full at the first page of a later entry: the complete entries count,
 * and the offset into the next one is 0.
 */
static void ib_sg_to_pages_full_between(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x1000 },
		{ 0x200000, 0x1000 },
	};
	static const u64 pages[] = { 0x100000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, 1);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 1);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/*
 * Entries without a gap between them are merged even where they meet
 * inside a page: the shared page is listed once.
 */
static void ib_sg_to_pages_merge(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x1800 },	/* ends mid-page... */
		{ 0x101800, 0x800 },	/* ...continued up to a boundary */
		{ 0x102000, 0x1000 },
		{ 0x103000, 0x1200 },	/* ends mid-page... */
		{ 0x104200, 0x2000 },	/* ...continued, the last one */
	};
	static const u64 pages[] = {
		0x100000, 0x101000, 0x102000, 0x103000, 0x104000, 0x105000,
		0x106000,
	};
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 5), 5, &off,
					     mrt_set_page), 5);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x6200ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/* A small gap inside a page is a gap: no merging across it. */
static void ib_sg_to_pages_merge_gap(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x1200 },
		{ 0x101400, 0x100 },
	};
	static const u64 pages[] = { 0x100000, 0x101000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, MRT_MAX_PAGES);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 1);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1200ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/*
 * The page list fills up inside a merged entry: before its first own
 * page (offset 0 into it), then after one (offset of that page's start).
 */
static void ib_sg_to_pages_full_in_merged(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x100000, 0x1800 },
		{ 0x101800, 0x2000 },	/* 0x101800..0x103800 */
	};
	static const u64 pages[] = { 0x100000, 0x101000, 0x102000 };
	struct mrt_mr *m = mrt_new(test, SZ_4K, 2);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 1);
	mrt_expect_pages(test, m, pages, 2);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1800ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);

	m = mrt_new(test, SZ_4K, 3);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 1);
	mrt_expect_pages(test, m, pages, 3);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x2000ULL);
	KUNIT_EXPECT_EQ(test, off, 0x800U);
}

/* 64 KiB pages: alignment is judged against them, not against 4 KiB. */
static void ib_sg_to_pages_64k(struct kunit *test)
{
	static const struct mrt_ent e[] = {
		{ 0x31000, 0x1f000 },	/* 0x31000..0x50000 */
		{ 0x80000, 0x14000 },	/* the last one may end mid-page */
	};
	static const u64 pages[] = { 0x30000, 0x40000, 0x80000, 0x90000 };
	static const struct mrt_ent bad[] = {
		{ 0x30000, 0x10000 },
		{ 0x41000, 0x1000 },	/* 4 KiB aligned only */
	};
	static const u64 bad_pages[] = { 0x30000 };
	struct mrt_mr *m = mrt_new(test, SZ_64K, MRT_MAX_PAGES);
	unsigned int off = 0;

	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, e, 2), 2, &off,
					     mrt_set_page), 2);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x31000ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x33000ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);

	m = mrt_new(test, SZ_64K, MRT_MAX_PAGES);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, mrt_sg(m, bad, 2), 2,
					     &off, mrt_set_page), 1);
	mrt_expect_pages(test, m, bad_pages, ARRAY_SIZE(bad_pages));
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x10000ULL);
	KUNIT_EXPECT_EQ(test, off, 0U);
}

/* A page size that is not a power of two is refused, never looped on. */
static void ib_sg_to_pages_bad_page_size(struct kunit *test)
{
	static const struct mrt_ent e[] = { { 0x100000, 0x1000 } };
	static const unsigned int sizes[] = { 0, 3000, SZ_4K + 1 };
	int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct mrt_mr *m = mrt_new(test, sizes[i], MRT_MAX_PAGES);

		KUNIT_EXPECT_EQ_MSG(test,
				    ib_sg_to_pages(&m->mr, mrt_sg(m, e, 1), 1,
						   NULL, mrt_set_page),
				    -EINVAL, "page size %u", sizes[i]);
		KUNIT_EXPECT_EQ(test, m->calls, 0);
	}
}

static int mrt_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg,
			 int sg_nents, unsigned int *sg_offset)
{
	return ib_sg_to_pages(mr, sg, sg_nents, sg_offset, mrt_set_page);
}

static const struct ib_device_ops mrt_ops = {
	.map_mr_sg = mrt_map_mr_sg,
};

static const struct ib_device_ops mrt_no_ops;

/* ib_map_mr_sg(): the op's presence, the page size, the call through. */
static void ib_map_mr_sg_checks(struct kunit *test)
{
	static const struct mrt_ent e[] = { { 0x100200, 0x1000 } };
	static const u64 pages[] = { 0x100000, 0x101000 };
	static const unsigned int bad[] = { 0, SZ_2K, 3000, SZ_4K + SZ_2K };
	struct ib_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct mrt_mr *m;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, dev);

	dev->ops = &mrt_no_ops;
	m = mrt_new(test, 0, MRT_MAX_PAGES);
	m->mr.device = dev;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(&m->mr, mrt_sg(m, e, 1), 1, NULL,
					   SZ_4K), -EOPNOTSUPP);

	dev->ops = &mrt_ops;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    ib_map_mr_sg(&m->mr, mrt_sg(m, e, 1), 1,
						 NULL, bad[i]),
				    -EINVAL, "page size %u", bad[i]);
		KUNIT_EXPECT_EQ(test, m->mr.page_size, 0U);
	}
	KUNIT_EXPECT_EQ(test, m->calls, 0);

	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(&m->mr, mrt_sg(m, e, 1), 1, NULL,
					   SZ_4K), 1);
	KUNIT_EXPECT_EQ(test, m->mr.page_size, SZ_4K);
	mrt_expect_pages(test, m, pages, ARRAY_SIZE(pages));
	KUNIT_EXPECT_EQ(test, m->mr.iova, 0x100200ULL);
	KUNIT_EXPECT_EQ(test, m->mr.length, 0x1000ULL);

	m = mrt_new(test, 0, MRT_MAX_PAGES);
	m->mr.device = dev;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(&m->mr, mrt_sg(m, e, 1), 1, NULL,
					   SZ_2M), 1);
	KUNIT_EXPECT_EQ(test, m->mr.page_size, SZ_2M);
	KUNIT_EXPECT_EQ(test, m->npages, 1);
	KUNIT_EXPECT_EQ(test, m->pages[0], 0ULL);
}

/*
 * ib_dma_virt_map_sg() gives each entry its kernel address and length;
 * ib_dma_map_sg() uses it for a device without a DMA device.
 */
static void ib_dma_virt_map_sg_kmalloc(struct kunit *test)
{
	static const unsigned int lens[] = { 100, 4096, 10000 };
	struct ib_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct scatterlist sgl[ARRAY_SIZE(lens)];
	void *bufs[ARRAY_SIZE(lens)];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_TRUE(test, ib_uses_virt_dma(dev));
	sg_init_table(sgl, ARRAY_SIZE(lens));
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		bufs[i] = kunit_kmalloc(test, lens[i], GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, bufs[i]);
		sg_set_buf(&sgl[i], bufs[i], lens[i]);
	}

	KUNIT_EXPECT_EQ(test, ib_dma_virt_map_sg(dev, sgl, ARRAY_SIZE(lens)),
			(int)ARRAY_SIZE(lens));
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		KUNIT_EXPECT_EQ(test, sg_dma_address(&sgl[i]),
				(dma_addr_t)(uintptr_t)bufs[i]);
		KUNIT_EXPECT_EQ(test, sg_dma_len(&sgl[i]), lens[i]);
		sg_dma_address(&sgl[i]) = 0;
	}

	/* Only the first two, through the generic helper. */
	KUNIT_EXPECT_EQ(test, ib_dma_map_sg(dev, sgl, 2, DMA_TO_DEVICE), 2);
	KUNIT_EXPECT_EQ(test, sg_dma_address(&sgl[0]),
			(dma_addr_t)(uintptr_t)bufs[0]);
	KUNIT_EXPECT_EQ(test, sg_dma_address(&sgl[1]),
			(dma_addr_t)(uintptr_t)bufs[1]);
	KUNIT_EXPECT_EQ(test, sg_dma_address(&sgl[2]), (dma_addr_t)0);
	ib_dma_unmap_sg(dev, sgl, 2, DMA_TO_DEVICE);
}

/* Virtually mapped pages, then cut into MR pages: their addresses. */
static void ib_dma_virt_map_sg_to_pages(struct kunit *test)
{
	struct ib_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct mrt_mr *m = mrt_new(test, PAGE_SIZE, MRT_MAX_PAGES);
	struct page *p = alloc_pages(GFP_KERNEL, 1);
	struct page *q = alloc_page(GFP_KERNEL);
	struct scatterlist *sgl = m->sgl;
	u64 a, b;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	if (!p || !q) {
		if (p)
			__free_pages(p, 1);
		if (q)
			__free_page(q);
		KUNIT_FAIL(test, "no pages");
		return;
	}
	a = (uintptr_t)page_address(p);
	b = (uintptr_t)page_address(q);

	sg_init_table(sgl, 2);
	sg_set_page(&sgl[0], p, 2 * PAGE_SIZE - 100, 100);
	sg_set_page(&sgl[1], q, PAGE_SIZE, 0);
	KUNIT_EXPECT_EQ(test, ib_dma_virt_map_sg(dev, sgl, 2), 2);
	KUNIT_EXPECT_EQ(test, ib_sg_to_pages(&m->mr, sgl, 2, NULL,
					     mrt_set_page), 2);
	KUNIT_EXPECT_EQ(test, m->npages, 3);
	KUNIT_EXPECT_EQ(test, m->pages[0], a);
	KUNIT_EXPECT_EQ(test, m->pages[1], a + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, m->pages[2], b);
	KUNIT_EXPECT_EQ(test, m->mr.iova, a + 100);
	KUNIT_EXPECT_EQ(test, m->mr.length, (u64)(3 * PAGE_SIZE - 100));

	__free_pages(p, 1);
	__free_page(q);
}

static struct kunit_case ib_mr_test_cases[] = {
	KUNIT_CASE(ib_sg_to_pages_one_aligned),
	KUNIT_CASE(ib_sg_to_pages_first_offset),
	KUNIT_CASE(ib_sg_to_pages_middle_unaligned),
	KUNIT_CASE(ib_sg_to_pages_ends_mid_page),
	KUNIT_CASE(ib_sg_to_pages_sg_offset),
	KUNIT_CASE(ib_sg_to_pages_sg_offset_limits),
	KUNIT_CASE(ib_sg_to_pages_full_mid_entry),
	KUNIT_CASE(ib_sg_to_pages_full_mid_unaligned),
	KUNIT_CASE(ib_sg_to_pages_full_first_page),
	KUNIT_CASE(ib_sg_to_pages_full_at_once),
	KUNIT_CASE(ib_sg_to_pages_full_between),
	KUNIT_CASE(ib_sg_to_pages_merge),
	KUNIT_CASE(ib_sg_to_pages_merge_gap),
	KUNIT_CASE(ib_sg_to_pages_full_in_merged),
	KUNIT_CASE(ib_sg_to_pages_64k),
	KUNIT_CASE(ib_sg_to_pages_bad_page_size),
	KUNIT_CASE(ib_map_mr_sg_checks),
	KUNIT_CASE(ib_dma_virt_map_sg_kmalloc),
	KUNIT_CASE(ib_dma_virt_map_sg_to_pages),
	{}
};

static struct kunit_suite ib_mr_test_suite = {
	.name = "ib_core_mr",
	.test_cases = ib_mr_test_cases,
};

kunit_test_suite(ib_mr_test_suite);

MODULE_DESCRIPTION("KUnit tests of InfiniBand MR page mapping helpers");
MODULE_LICENSE("Dual BSD/GPL");
