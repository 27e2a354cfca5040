/* Driver: tpu_gemm_ex, the general GEMM entry point, on golden and sim against the plain C
 * reference of gemm_ref.c: all four transpose combinations, leading dimensions larger than the
 * row (the bytes between C's rows untouched), accumulate into C, shapes of 1, non-multiples of
 * N, K tiling, A longer than the UB, and every schedule (stream, grouped, hybrid, pipeline,
 * column order); the argument checks and the bf16 dtype a device lacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_ref.h"
#include "harness.h"
#include "sim_model.h"
#include "tpu/tpu.h"

/* Output kinds of a case. */
enum out_kind { OUT_RAW, OUT_PER_TENSOR, OUT_PER_CHANNEL };

struct excase {
	struct gcase g;
	struct tpu_gemm_desc d;
	int8_t *a, *b;   /* stored A and B (d.a, d.b) */
	uint8_t *c0;     /* C before the call (padding and, with accumulate, the addend) */
	size_t c_bytes;
};

/* op(X) (rows x cols, packed in x) stored transposed or not with pad extra elements per stored
 * row, the padding random (a GEMM that reads it gives wrong results). */
static int8_t *store(uint64_t *seed, const int8_t *x, size_t rows, size_t cols, enum tpu_trans t,
		     size_t pad, size_t *ld)
{
	size_t srows = t == TPU_TRANS_T ? cols : rows, scols = t == TPU_TRANS_T ? rows : cols;
	int8_t *s = malloc(srows * (scols + pad));

	ck_assert_ptr_nonnull(s);
	*ld = scols + pad;
	for (size_t i = 0; i < srows * *ld; i++)
		s[i] = (int8_t)harness_range(seed, -128, 127);
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			s[t == TPU_TRANS_T ? c * *ld + r : r * *ld + c] = x[r * cols + c];
	return s;
}

/* A random case of m x k x n with the given transposes, extra elements per row of A, B, C (0:
 * the descriptor says 0 = packed) and accumulate; C filled with random bytes. */
static void make_ex(uint64_t *seed, struct excase *e, size_t m, size_t k, size_t n,
		    enum out_kind out, enum tpu_trans ta, enum tpu_trans tb, const size_t pad[3],
		    bool acc)
{
	size_t esz = out == OUT_RAW ? 4 : 1, ldc;

	gemm_ref_make_case(seed, &e->g, m, k, n, out != OUT_RAW);
	if (out != OUT_RAW)
		e->g.p.quant_channels = out == OUT_PER_TENSOR ? 1 : n;
	memset(&e->d, 0, sizeof(e->d));
	e->d.trans_a = ta;
	e->d.trans_b = tb;
	e->d.m = m;
	e->d.n = n;
	e->d.k = k;
	e->a = store(seed, e->g.a, m, k, ta, pad[0], &e->d.lda);
	e->b = store(seed, e->g.b, k, n, tb, pad[1], &e->d.ldb);
	e->d.a = e->a;
	e->d.b = e->b;
	if (!pad[0])
		e->d.lda = 0;
	if (!pad[1])
		e->d.ldb = 0;
	ldc = n + pad[2];
	e->d.ldc = pad[2] ? ldc : 0;
	e->d.flags = acc ? TPU_GEMM_ACCUMULATE : 0;
	e->c_bytes = m * ldc * esz;
	e->c0 = malloc(e->c_bytes);
	e->d.c = malloc(e->c_bytes);
	ck_assert(e->c0 && e->d.c);
	for (size_t i = 0; i < e->c_bytes; i++)
		e->c0[i] = (uint8_t)harness_rand(seed);
	memcpy(e->d.c, e->c0, e->c_bytes);
}

static void free_ex(struct excase *e)
{
	gemm_ref_free_case(&e->g);
	free(e->a);
	free(e->b);
	free(e->c0);
	free(e->d.c);
}

/* Run e on dev and compare all of C (the padding too) with the reference's. */
static void check_ex(tpu_dev *dev, struct excase *e, const char *uri)
{
	struct tpu_gemm_desc want = e->d;
	int err;

	want.c = malloc(e->c_bytes);
	ck_assert_ptr_nonnull(want.c);
	memcpy(want.c, e->c0, e->c_bytes);
	gemm_ref(&want, &e->g.p);
	err = tpu_gemm_ex(dev, &e->d, &e->g.p);
	ck_assert_msg(err == 0, "%s %zux%zux%zu t=%d%d: %s (%s)", uri, e->d.m, e->d.k, e->d.n,
		      e->d.trans_a, e->d.trans_b, tpu_strerror(err), tpu_gemm_last_error(dev));
	for (size_t i = 0; i < e->c_bytes; i++)
		if (((uint8_t *)e->d.c)[i] != ((uint8_t *)want.c)[i])
			ck_abort_msg("%s %zux%zux%zu t=%d%d ld=%zu,%zu,%zu q=%zu acc=%u: C byte %zu "
				     "differs",
				     uri, e->d.m, e->d.k, e->d.n, e->d.trans_a, e->d.trans_b, e->d.lda,
				     e->d.ldb, e->d.ldc, e->g.p.quant_channels, e->d.flags, i);
	free(want.c);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
}

/* Every shape x the four transpose combinations x the output kinds, leading dimensions padded
 * in every other case, on one device. */
static void sweep(const char *uri, const size_t (*shapes)[3], size_t count, int kinds,
		  uint64_t salt)
{
	uint64_t seed = harness_seed() ^ salt;
	unsigned i = 0;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	for (size_t s = 0; s < count; s++) {
		for (int t = 0; t < 4; t++) {
			for (int o = 0; o < kinds; o++, i++) {
				size_t pad[3] = { 0, 0, 0 };
				struct excase e;

				if (i % 2) {
					pad[0] = (size_t)harness_range(&seed, 1, 9);
					pad[1] = (size_t)harness_range(&seed, 1, 9);
					pad[2] = (size_t)harness_range(&seed, 1, 5);
				}
				make_ex(&seed, &e, shapes[s][0], shapes[s][1], shapes[s][2],
					(enum out_kind)o, (enum tpu_trans)(t & 1),
					(enum tpu_trans)(t >> 1), pad, o == OUT_RAW && i % 4 == 0);
				check_ex(dev, &e, uri);
				free_ex(&e);
			}
		}
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}

/* Shapes that reach every schedule on golden: 1 x 1 x 1; batch 1; K and N not multiples of N;
 * the stream schedule (small M; any M with per-tensor output, K-major first command); the
 * grouped (per-channel, M of N..256), the hybrid (more than 8 column tiles), the pipeline (M
 * beyond one chunk, few column tiles) and the column order (int32 output over chunks). */
static const size_t golden_shapes[][3] = {
	{ 1, 1, 1 },	{ 1, 19, 33 },	{ 7, 16, 15 },	{ 33, 1, 17 },	 { 37, 70, 9 },
	{ 64, 40, 48 }, { 130, 33, 48 }, { 100, 90, 40 }, { 96, 50, 150 }, { 600, 250, 40 },
};

START_TEST(gemm_ex_golden)
{
	static const char *const uris[] = {
		"golden:n=16,mem=16M",
		"golden:n=8,mem=16M",
		"golden:n=4,ub_rows=64,acc_rows=32,fifo_tiles=2,mem=8M",
	};

	size_t count = sizeof(golden_shapes) / sizeof(golden_shapes[0]);

	/* (the small UB: chunks of a row or two; the pipeline shape would be ~10^5 commands) */
	sweep(uris[_i], golden_shapes, _i == 2 ? count - 1 : count, 3, 0xE100u + (uint64_t)_i);
}
END_TEST

/* A longer than the UB holds (K-tile by K-tile into one slot): the column order. */
START_TEST(gemm_ex_k_beyond_ub)
{
	static const size_t shapes[][3] = { { 37, 70, 9 }, { 5, 70, 3 } };

	sweep("golden:n=4,ub_rows=16,acc_rows=16,fifo_tiles=1,mem=2M", shapes, 2, 3, 0xE200u);
}
END_TEST

/* The Verilated device: the stream schedule (M <= 64) and, at M above 64, the grouped schedule
 * (per-channel int8) and the column order (int32) with LOAD_WEIGHTS' transpose. */
START_TEST(gemm_ex_sim)
{
	static const uint32_t ns[2] = { 8, 16 };
	static const size_t small[][3] = { { 1, 1, 1 }, { 3, 19, 33 }, { 20, 35, 17 } };
	static const size_t large[][3] = { { 80, 40, 24 } };
	char uri[64];

	if (!tpu_sim_model_find(ns[_i / 2], 0))
		return;
	snprintf(uri, sizeof(uri), "sim:n=%u,mem=4M", ns[_i / 2]);
	if (_i % 2 == 0)
		sweep(uri, small, 3, 2, 0xE300u + (uint64_t)_i);
	else
		sweep(uri, large, 1, 3, 0xE300u + (uint64_t)_i);
}
END_TEST

/* ------------------------------------------------------------------ errors */

static void expect_fail(tpu_dev *dev, const struct tpu_gemm_desc *d,
			const struct tpu_gemm_params *p, int want, const char *field)
{
	int32_t before[16];

	memcpy(before, d->c, sizeof(before));
	ck_assert_int_eq(tpu_gemm_ex(dev, d, p), want);
	ck_assert_msg(strstr(tpu_gemm_last_error(dev), field) != NULL,
		      "message '%s' does not name '%s'", tpu_gemm_last_error(dev), field);
	ck_assert_int_eq(memcmp(before, d->c, sizeof(before)), 0);
}

START_TEST(gemm_ex_rejects)
{
	int8_t a[64] = { 1 }, b[64] = { 2 };
	int32_t c[16] = { 7 }, mult = 1 << 30, shift = 0;
	struct tpu_gemm_desc ok = { .m = 2, .n = 3, .k = 4, .a = a, .b = b, .c = c }, d;
	struct tpu_gemm_params q8;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open("golden:n=4,mem=1M", &dev), 0);
	tpu_gemm_params_init(&q8);
	q8.quant_channels = 1;
	q8.multiplier = &mult;
	q8.shift = &shift;

	d = ok;
	d.dtype = TPU_DTYPE_BF16;
	expect_fail(dev, &d, NULL, -ENOTSUP, "dtype");
	ck_assert_ptr_nonnull(strstr(tpu_gemm_last_error(dev), "bf16"));
	ck_assert_str_ne(tpu_strerror(-ENOTSUP), tpu_strerror(-EINVAL));
	d.dtype = (enum tpu_dtype)7;
	expect_fail(dev, &d, NULL, -EINVAL, "dtype");
	d = ok;
	d.trans_a = (enum tpu_trans)2;
	expect_fail(dev, &d, NULL, -EINVAL, "trans_a");
	d = ok;
	d.trans_b = (enum tpu_trans)-1;
	expect_fail(dev, &d, NULL, -EINVAL, "trans_b");
	d = ok;
	d.flags = 2;
	expect_fail(dev, &d, NULL, -EINVAL, "flags");
	d.flags = TPU_GEMM_ACCUMULATE;
	expect_fail(dev, &d, &q8, -EINVAL, "flags");
	/* leading dimensions below the stored row: A 2 x 4 (or 4 x 2 transposed), B 4 x 3 (or
	 * 3 x 4), C 2 x 3 */
	d = ok;
	d.lda = 3;
	expect_fail(dev, &d, NULL, -EINVAL, "lda");
	d.trans_a = TPU_TRANS_T;
	d.lda = 1;
	expect_fail(dev, &d, NULL, -EINVAL, "lda");
	d.lda = 2; /* k x m = 4 x 2: fine */
	ck_assert_int_eq(tpu_gemm_ex(dev, &d, NULL), 0);
	d = ok;
	d.ldb = 2;
	expect_fail(dev, &d, NULL, -EINVAL, "ldb");
	d.trans_b = TPU_TRANS_T;
	d.ldb = 3;
	expect_fail(dev, &d, NULL, -EINVAL, "ldb");
	d = ok;
	d.ldc = 2;
	expect_fail(dev, &d, NULL, -EINVAL, "ldc");
	d = ok;
	d.lda = SIZE_MAX / 2;
	expect_fail(dev, &d, NULL, -EINVAL, "lda");
	d = ok;
	d.c = NULL;
	ck_assert_int_eq(tpu_gemm_ex(dev, &d, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_gemm_last_error(dev), "c"));
	d = ok;
	d.k = 0;
	expect_fail(dev, &d, NULL, -EINVAL, "k");
	ck_assert_int_eq(tpu_gemm_ex(dev, NULL, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_gemm_last_error(dev), "d"));
	ck_assert_int_eq(tpu_gemm_ex(NULL, &ok, NULL), -EINVAL);
	/* fine again, and the message is cleared */
	ck_assert_int_eq(tpu_gemm_ex(dev, &ok, NULL), 0);
	ck_assert_str_eq(tpu_gemm_last_error(dev), "");
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* A device error in an accumulating GEMM leaves C as it was. */
START_TEST(gemm_ex_accumulate_keeps_c_on_failure)
{
	int8_t a[16], b[16];
	int32_t c[16], before[16];
	struct tpu_gemm_desc d = { .trans_a = TPU_TRANS_T, .m = 4, .n = 4, .k = 4, .a = a, .b = b,
				   .c = c, .flags = TPU_GEMM_ACCUMULATE };
	tpu_dev *dev;

	for (int i = 0; i < 16; i++) {
		a[i] = (int8_t)(i - 8);
		b[i] = (int8_t)(3 * i - 20);
		c[i] = before[i] = 1000 * i - 7;
	}
	ck_assert_int_eq(tpu_open("golden:n=4,mem=1M", &dev), 0);
	ck_assert_int_eq(tpu_window_set(dev, 0, 0, 0, 0), 0);
	ck_assert_int_eq(tpu_gemm_ex(dev, &d, NULL), TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_int_eq(memcmp(c, before, sizeof(c)), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

TPU_TEST_SUITE(suite_driver_gemm_ex)
static Suite *suite_driver_gemm_ex(void)
{
	Suite *s = suite_create("driver_gemm_ex");
	TCase *tc = tcase_create("gemm_ex");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, gemm_ex_golden, 0, 3);
	tcase_add_test(tc, gemm_ex_k_beyond_ub);
	tcase_add_loop_test(tc, gemm_ex_sim, 0, 4);
	tcase_add_test(tc, gemm_ex_rejects);
	tcase_add_test(tc, gemm_ex_accumulate_keeps_c_on_failure);
	suite_add_tcase(s, tc);
	return s;
}
