/* Host memory model (see hostmem.h): one arena, a first-fit allocator and an IOMMU-lite check on
 * every device access.
 *
 * The allocation table holds the live allocations sorted by IOVA. Free space is never stored: it
 * is exactly the gaps between neighbouring table entries (and the arena ends), so freeing an entry
 * coalesces its space with both neighbours' free space by construction, and first fit is a walk
 * over the gaps in address order. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hostmem.h"

#define HOSTMEM_PAGE 4096u
#define HOSTMEM_MIN_ALIGN 64u

struct hostmem_alloc {
	uint64_t off; /* offset from the arena start */
	uint64_t len;
};

struct hostmem {
	uint8_t *mem;
	size_t size;
	uint64_t iova_base;
	struct hostmem_alloc *tab; /* live allocations, sorted by off */
	size_t n, cap;
	hostmem_hook hook;
	void *hook_ctx;
};

int hostmem_create(size_t size, uint64_t iova_base, struct hostmem **out)
{
	struct hostmem *hm;
	size_t rounded;

	if (!out || size == 0 || iova_base == 0 || iova_base % HOSTMEM_PAGE)
		return -EINVAL;
	/* The last arena byte must have an IOVA that fits in 64 bits. */
	if ((uint64_t)size - 1 > UINT64_MAX - iova_base)
		return -EINVAL;
	if (size > SIZE_MAX - (HOSTMEM_PAGE - 1))
		return -ENOMEM;
	rounded = (size + HOSTMEM_PAGE - 1) / HOSTMEM_PAGE * HOSTMEM_PAGE;
	hm = calloc(1, sizeof(*hm));
	if (!hm)
		return -ENOMEM;
	/* Page-aligned host memory so that host pointers share the IOVAs' alignment (up to 4 KiB). */
	hm->mem = aligned_alloc(HOSTMEM_PAGE, rounded);
	if (!hm->mem)
		goto out_free_hm;
	/* Not zeroed here: hostmem_alloc zeroes each allocation, and the device can reach nothing
	 * else, so a large arena costs only the pages that are used. */
	hm->size = size;
	hm->iova_base = iova_base;
	*out = hm;
	return 0;

out_free_hm:
	free(hm);
	return -ENOMEM;
}

void hostmem_destroy(struct hostmem *hm)
{
	if (!hm)
		return;
	free(hm->tab);
	free(hm->mem);
	free(hm);
}

uint64_t hostmem_iova_base(const struct hostmem *hm)
{
	return hm->iova_base;
}

size_t hostmem_size(const struct hostmem *hm)
{
	return hm->size;
}

void hostmem_set_hook(struct hostmem *hm, hostmem_hook hook, void *ctx)
{
	hm->hook = hook;
	hm->hook_ctx = ctx;
}

static int tab_reserve(struct hostmem *hm)
{
	struct hostmem_alloc *t;
	size_t cap;

	if (hm->n < hm->cap)
		return 0;
	cap = hm->cap ? hm->cap * 2 : 16;
	if (cap > SIZE_MAX / sizeof(*t))
		return -ENOMEM;
	t = realloc(hm->tab, cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	hm->tab = t;
	hm->cap = cap;
	return 0;
}

/* First aligned offset >= off (IOVA alignment), or false when it would pass the arena end. */
static bool align_off(const struct hostmem *hm, uint64_t off, uint64_t align, uint64_t *res)
{
	uint64_t iova = hm->iova_base + off; /* cannot overflow: off <= size, checked at create */
	uint64_t pad = (align - (iova & (align - 1))) & (align - 1);

	if (pad > hm->size - off)
		return false;
	*res = off + pad;
	return true;
}

int hostmem_alloc(struct hostmem *hm, size_t len, size_t align, uint64_t *iova, void **ptr)
{
	uint64_t gap_start = 0, start;
	size_t i;
	int err;

	if (!hm || !iova || !ptr || len == 0 || align < HOSTMEM_MIN_ALIGN || (align & (align - 1)))
		return -EINVAL;
	err = tab_reserve(hm);
	if (err)
		return err;
	/* Gap i lies before table entry i; gap n runs to the arena end. */
	for (i = 0; i <= hm->n; i++) {
		uint64_t gap_end = i < hm->n ? hm->tab[i].off : hm->size;

		if (align_off(hm, gap_start, align, &start) && start <= gap_end &&
		    len <= gap_end - start) {
			memmove(&hm->tab[i + 1], &hm->tab[i], (hm->n - i) * sizeof(*hm->tab));
			hm->tab[i].off = start;
			hm->tab[i].len = len;
			hm->n++;
			memset(hm->mem + start, 0, len);
			*iova = hm->iova_base + start;
			*ptr = hm->mem + start;
			return 0;
		}
		if (i < hm->n)
			gap_start = hm->tab[i].off + hm->tab[i].len;
	}
	return -ENOMEM;
}

/* Index of the last allocation starting at or below off, or -1. */
static long find_below(const struct hostmem *hm, uint64_t off)
{
	size_t lo = 0, hi = hm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hm->tab[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

int hostmem_free(struct hostmem *hm, uint64_t iova)
{
	uint64_t off;
	long i;

	if (!hm || iova < hm->iova_base || iova - hm->iova_base >= hm->size)
		return -EINVAL;
	off = iova - hm->iova_base;
	i = find_below(hm, off);
	if (i < 0 || hm->tab[i].off != off)
		return -EINVAL;
	memmove(&hm->tab[i], &hm->tab[i + 1], (hm->n - (size_t)i - 1) * sizeof(*hm->tab));
	hm->n--;
	return 0;
}

/* Host pointer of [iova, iova + len) when it lies inside one live allocation, else NULL. An empty
 * access is refused too: no device transfer has zero length, so one is a bug worth surfacing. */
static uint8_t *lookup(const struct hostmem *hm, uint64_t iova, size_t len)
{
	const struct hostmem_alloc *a;
	uint64_t off;
	long i;

	if (len == 0 || iova < hm->iova_base || iova - hm->iova_base >= hm->size)
		return NULL;
	off = iova - hm->iova_base;
	i = find_below(hm, off);
	if (i < 0)
		return NULL;
	a = &hm->tab[i];
	/* off >= a->off; written so that nothing can overflow. */
	if (off - a->off >= a->len || (uint64_t)len > a->len - (off - a->off))
		return NULL;
	return hm->mem + off;
}

static int access_check(struct hostmem *hm, enum hostmem_dir dir, uint64_t iova, size_t len,
			uint8_t **p)
{
	if (hm->hook && hm->hook(hm->hook_ctx, dir, iova, len))
		return -EIO;
	*p = lookup(hm, iova, len);
	return *p ? 0 : -EFAULT;
}

int hostmem_dma_read(void *ctx, uint64_t iova, void *dst, size_t len)
{
	struct hostmem *hm = ctx;
	uint8_t *p;
	int err = access_check(hm, HOSTMEM_READ, iova, len, &p);

	if (err)
		return err;
	memcpy(dst, p, len);
	return 0;
}

int hostmem_dma_write(void *ctx, uint64_t iova, const void *src, size_t len)
{
	struct hostmem *hm = ctx;
	uint8_t *p;
	int err = access_check(hm, HOSTMEM_WRITE, iova, len, &p);

	if (err)
		return err;
	memcpy(p, src, len);
	return 0;
}
