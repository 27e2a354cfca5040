/* Host memory model: allocator (alignment, zeroing, first fit, coalescing) and the IOMMU-lite
 * rules of device access (one live allocation, overflow-safe, hook first). */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "hostmem.h"

#define BASE 0x40000000ull
#define SIZE (1u << 20)

static struct hostmem *hm;

static void setup(void)
{
	ck_assert_int_eq(hostmem_create(SIZE, BASE, &hm), 0);
}

static void teardown(void)
{
	hostmem_destroy(hm);
	hm = NULL;
}

START_TEST(create_rejects_bad_args)
{
	struct hostmem *h;

	ck_assert_int_eq(hostmem_create(4096, 0, &h), -EINVAL);
	ck_assert_int_eq(hostmem_create(4096, 0x1001, &h), -EINVAL);
	ck_assert_int_eq(hostmem_create(0, 0x1000, &h), -EINVAL);
	/* last byte's IOVA would pass 2^64 - 1 */
	ck_assert_int_eq(hostmem_create(8192, 0xFFFFFFFFFFFFF000ull, &h), -EINVAL);
	ck_assert_int_eq(hostmem_create(4096, 0xFFFFFFFFFFFFF000ull, &h), 0);
	hostmem_destroy(h);
	ck_assert_uint_eq(hostmem_iova_base(hm), BASE);
	ck_assert_uint_eq(hostmem_size(hm), SIZE);
}
END_TEST

START_TEST(alloc_alignment_and_zero)
{
	uint64_t iova[8];
	void *p;
	size_t aligns[] = { 64, 128, 4096, 65536 };
	unsigned i;

	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(hostmem_alloc(hm, 100 + i, aligns[i], &iova[i], &p), 0);
		ck_assert_uint_eq(iova[i] % aligns[i], 0);
		ck_assert_uint_eq((uintptr_t)p % (aligns[i] > 4096 ? 4096 : aligns[i]), 0);
		memset(p, 0xAB, 100 + i);
		/* the host pointer and the IOVA name the same bytes */
		uint8_t b = 0;
		ck_assert_int_eq(hostmem_dma_read(hm, iova[i] + 99, &b, 1), 0);
		ck_assert_uint_eq(b, 0xAB);
	}
	ck_assert_int_eq(hostmem_alloc(hm, 10, 32, &iova[4], &p), -EINVAL);
	ck_assert_int_eq(hostmem_alloc(hm, 10, 96, &iova[4], &p), -EINVAL);
	ck_assert_int_eq(hostmem_alloc(hm, 0, 64, &iova[4], &p), -EINVAL);
	/* freed memory comes back zeroed */
	ck_assert_int_eq(hostmem_free(hm, iova[0]), 0);
	ck_assert_int_eq(hostmem_alloc(hm, 100, 64, &iova[4], &p), 0);
	ck_assert_uint_eq(iova[4], iova[0]);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(((uint8_t *)p)[i], 0);
}
END_TEST

START_TEST(first_fit_and_coalesce)
{
	uint64_t a, b, c, d, e;
	void *p;

	ck_assert_int_eq(hostmem_alloc(hm, 4096, 64, &a, &p), 0);
	ck_assert_int_eq(hostmem_alloc(hm, 4096, 64, &b, &p), 0);
	ck_assert_int_eq(hostmem_alloc(hm, 4096, 64, &c, &p), 0);
	ck_assert_uint_eq(a, BASE);
	ck_assert_uint_eq(b, BASE + 4096);
	ck_assert_uint_eq(c, BASE + 8192);
	ck_assert_int_eq(hostmem_free(hm, a), 0);
	ck_assert_int_eq(hostmem_free(hm, b), 0);
	/* the two freed neighbours form one 8 KiB hole, found first */
	ck_assert_int_eq(hostmem_alloc(hm, 8192, 64, &d, &p), 0);
	ck_assert_uint_eq(d, BASE);
	ck_assert_int_eq(hostmem_free(hm, d), 0);
	ck_assert_int_eq(hostmem_free(hm, c), 0);
	/* everything free again: the whole arena in one piece */
	ck_assert_int_eq(hostmem_alloc(hm, SIZE, 64, &e, &p), 0);
	ck_assert_uint_eq(e, BASE);
	ck_assert_int_eq(hostmem_alloc(hm, 1, 64, &a, &p), -ENOMEM);
	ck_assert_int_eq(hostmem_free(hm, e), 0);
	ck_assert_int_eq(hostmem_alloc(hm, SIZE + 1, 64, &a, &p), -ENOMEM);
}
END_TEST

START_TEST(free_rejects_non_start)
{
	uint64_t a;
	void *p;

	ck_assert_int_eq(hostmem_alloc(hm, 256, 64, &a, &p), 0);
	ck_assert_int_eq(hostmem_free(hm, a + 1), -EINVAL);
	ck_assert_int_eq(hostmem_free(hm, 0), -EINVAL);
	ck_assert_int_eq(hostmem_free(hm, BASE + SIZE), -EINVAL);
	ck_assert_int_eq(hostmem_free(hm, a), 0);
	ck_assert_int_eq(hostmem_free(hm, a), -EINVAL);
}
END_TEST

START_TEST(dma_bounds)
{
	uint64_t a, b;
	uint8_t *pa, *pb, buf[512];
	void *p;

	ck_assert_int_eq(hostmem_alloc(hm, 256, 64, &a, &p), 0);
	pa = p;
	ck_assert_int_eq(hostmem_alloc(hm, 256, 64, &b, &p), 0);
	pb = p;
	ck_assert_uint_eq(b, a + 256); /* adjacent: a straddling access spans two allocations */
	memset(pa, 1, 256);
	memset(pb, 2, 256);
	ck_assert_int_eq(hostmem_dma_read(hm, a, buf, 256), 0);
	ck_assert_int_eq(hostmem_dma_read(hm, a + 255, buf, 1), 0);
	ck_assert_int_eq(hostmem_dma_read(hm, a + 200, buf, 100), -EFAULT);
	ck_assert_int_eq(hostmem_dma_read(hm, a - 1, buf, 2), -EFAULT);
	ck_assert_int_eq(hostmem_dma_read(hm, b + 256, buf, 1), -EFAULT);
	ck_assert_int_eq(hostmem_dma_read(hm, 0, buf, 1), -EFAULT);
	ck_assert_int_eq(hostmem_dma_read(hm, UINT64_MAX, buf, 2), -EFAULT);
	ck_assert_int_eq(hostmem_dma_read(hm, a + 1, buf, SIZE_MAX), -EFAULT);
	ck_assert_int_eq(hostmem_dma_read(hm, a, buf, 0), -EFAULT);
	memset(buf, 9, sizeof(buf));
	ck_assert_int_eq(hostmem_dma_write(hm, a + 250, buf, 12), -EFAULT);
	ck_assert_uint_eq(pa[255], 1);
	ck_assert_uint_eq(pb[0], 2);
	ck_assert_int_eq(hostmem_dma_write(hm, b + 250, buf, 6), 0);
	ck_assert_uint_eq(pb[255], 9);
	ck_assert_uint_eq(pb[249], 2);
	/* after free the range is unmapped */
	ck_assert_int_eq(hostmem_free(hm, a), 0);
	ck_assert_int_eq(hostmem_dma_read(hm, a, buf, 1), -EFAULT);
}
END_TEST

struct hook_log {
	int calls;
	enum hostmem_dir dir;
	uint64_t iova;
	size_t len;
	int refuse;
};

static int hook(void *ctx, enum hostmem_dir dir, uint64_t iova, size_t len)
{
	struct hook_log *l = ctx;

	l->calls++;
	l->dir = dir;
	l->iova = iova;
	l->len = len;
	return l->refuse;
}

START_TEST(hook_first_and_refusal)
{
	struct hook_log l = { 0 };
	uint64_t a;
	uint8_t *pa, buf[16] = { 7 };
	void *p;

	ck_assert_int_eq(hostmem_alloc(hm, 64, 64, &a, &p), 0);
	pa = p;
	hostmem_set_hook(hm, hook, &l);
	ck_assert_int_eq(hostmem_dma_write(hm, a, buf, 16), 0);
	ck_assert_int_eq(l.calls, 1);
	ck_assert_int_eq(l.dir, HOSTMEM_WRITE);
	ck_assert_uint_eq(l.iova, a);
	ck_assert_uint_eq(l.len, 16);
	/* the hook sees accesses that then fail the range check too */
	ck_assert_int_eq(hostmem_dma_read(hm, a + 60, buf, 16), -EFAULT);
	ck_assert_int_eq(l.calls, 2);
	ck_assert_int_eq(l.dir, HOSTMEM_READ);
	l.refuse = 1;
	buf[0] = 99;
	ck_assert_int_eq(hostmem_dma_write(hm, a, buf, 16), -EIO);
	ck_assert_uint_eq(pa[0], 7);
	ck_assert_int_eq(hostmem_dma_read(hm, a, buf, 16), -EIO);
	ck_assert_uint_eq(buf[0], 99);
	hostmem_set_hook(hm, NULL, NULL);
	ck_assert_int_eq(hostmem_dma_read(hm, a, buf, 16), 0);
	ck_assert_uint_eq(buf[0], 7);
}
END_TEST

START_TEST(random_alloc_free_model)
{
	/* Random alloc/free against a shadow list: live allocations never overlap, stay aligned
	 * and inside the arena, and every access rule matches the shadow. */
	uint64_t seed = harness_seed() ^ 0x686d656dull;
	uint64_t iova[64];
	size_t len[64];
	int live[64] = { 0 };
	unsigned step, i, j;

	for (step = 0; step < 2000; step++) {
		i = (unsigned)harness_range(&seed, 0, 63);
		if (live[i]) {
			ck_assert_int_eq(hostmem_free(hm, iova[i]), 0);
			live[i] = 0;
			continue;
		}
		void *p;
		size_t align = (size_t)64 << harness_range(&seed, 0, 4);
		len[i] = (size_t)harness_range(&seed, 1, 40000);
		if (hostmem_alloc(hm, len[i], align, &iova[i], &p) != 0)
			continue;
		live[i] = 1;
		ck_assert_uint_eq(iova[i] % align, 0);
		ck_assert(iova[i] >= BASE && iova[i] + len[i] <= BASE + SIZE);
		for (j = 0; j < 64; j++)
			if (j != i && live[j])
				ck_assert(iova[i] + len[i] <= iova[j] || iova[j] + len[j] <= iova[i]);
		uint8_t b;
		ck_assert_int_eq(hostmem_dma_read(hm, iova[i] + len[i] - 1, &b, 1), 0);
	}
}
END_TEST

TPU_TEST_SUITE(suite_hostmem)
static Suite *suite_hostmem(void)
{
	Suite *s = suite_create("hostmem");
	TCase *tc = tcase_create("hostmem");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, create_rejects_bad_args);
	tcase_add_test(tc, alloc_alignment_and_zero);
	tcase_add_test(tc, first_fit_and_coalesce);
	tcase_add_test(tc, free_rejects_non_start);
	tcase_add_test(tc, dma_bounds);
	tcase_add_test(tc, hook_first_and_refusal);
	tcase_add_test(tc, random_alloc_free_model);
	suite_add_tcase(s, tc);
	return s;
}
