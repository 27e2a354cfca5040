/* The bf16 dot product in the array's order (tpu_bf16_dot, tpu_bf16_dot_tiled) against a
 * double-precision dot product, within the error bound of docs/spec.md "7.1 bf16 numerics":
 *   |computed - exact| <= gamma_D * (|c| + sum |a_k b_k|) + F * (1 + gamma_D) * 2^-126,
 *   gamma_D = D u / (1 - D u), u = 2^-24,
 * D the most rounded additions any term goes through (n for one column, tile + tiles for the
 * tiled form), F the number of products and additions (each may flush once). The reference is
 * computed from the flushed inputs; its own error, at most gamma_n with u = 2^-53, is added to the
 * tolerance. Lengths include 1 and non-multiples of 8 and 16; the random stream starts from
 * harness_seed() (fixed default, TPU_SEED=n for another). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "harness.h"
#include "tpu/bf16.h"

#define MAX_N 1100

static double f32_value(uint32_t x)
{
	float f;
	memcpy(&f, &x, sizeof(f));
	return (double)f;
}

static double gamma_of(double d, double u)
{
	return d * u / (1.0 - d * u);
}

struct ref {
	double exact;	/* c + sum a_k b_k, in double */
	double abs;	/* |c| + sum |a_k b_k| */
	double err_ref; /* bound on the double sum's own error */
};

/* The reference on the inputs as the model reads them (subnormals flushed). */
static struct ref ref_dot(const uint16_t *a, const uint16_t *b, unsigned n, uint32_t c)
{
	struct ref r;
	r.exact = f32_value(tpu_f32_canon(c));
	r.abs = fabs(r.exact);
	for (unsigned k = 0; k < n; k++) {
		double p = f32_value(tpu_bf16_to_f32(a[k])) * f32_value(tpu_bf16_to_f32(b[k]));
		r.exact += p; /* p is exact in double: 16 significant bits */
		r.abs += fabs(p);
	}
	r.err_ref = gamma_of(n + 1, 0x1p-53) * r.abs;
	return r;
}

static double bound(const struct ref *r, double depth, double flushes)
{
	double g = gamma_of(depth, 0x1p-24);
	double b = g * r->abs + flushes * (1.0 + g) * 0x1p-126 + r->err_ref;
	return b * (1.0 + 0x1p-40); /* the bound's own double rounding */
}

/* A random bf16 with a random sign and fraction and a biased exponent in [lo, hi]. */
static uint16_t rand_bf16(uint64_t *s, int lo, int hi)
{
	uint32_t e = (uint32_t)harness_range(s, lo, hi);
	return (uint16_t)(((uint32_t)harness_rand(s) & 0x807Fu) | e << 7);
}

enum dist { DIST_NEAR_ONE, DIST_POSITIVE, DIST_WIDE, DIST_TINY, DIST_COUNT };

static void fill(uint64_t *s, enum dist d, uint16_t *a, uint16_t *b, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		switch (d) {
		case DIST_NEAR_ONE:
			a[k] = rand_bf16(s, 119, 135);
			b[k] = rand_bf16(s, 119, 135);
			break;
		case DIST_POSITIVE: /* no cancellation: the bound is closest here */
			a[k] = rand_bf16(s, 120, 134) & 0x7FFF;
			b[k] = rand_bf16(s, 120, 134) & 0x7FFF;
			break;
		case DIST_WIDE:
			a[k] = rand_bf16(s, 87, 167);
			b[k] = rand_bf16(s, 87, 167);
			break;
		default: /* products around 2^-126: many flush, some sums too */
			a[k] = rand_bf16(s, 60, 66);
			b[k] = rand_bf16(s, 60, 66);
			break;
		}
	}
}

static const unsigned lengths[] = {1,  2,  3,  5,  7,	8,   9,	  15,  16,  17,	 24,  31,
				   32, 33, 63, 65, 100, 127, 128, 129, 255, 256, 257, 1000};
#define N_LENGTHS (sizeof(lengths) / sizeof(lengths[0]))

static unsigned pick_length(uint64_t *s, unsigned i)
{
	return i < N_LENGTHS ? lengths[i] : (unsigned)harness_range(s, 1, 600);
}

static uint32_t pick_acc(uint64_t *s, enum dist d)
{
	if (harness_rand(s) & 1)
		return 0;
	return (uint32_t)(d == DIST_TINY ? rand_bf16(s, 0, 6) : rand_bf16(s, 120, 134)) << 16;
}

START_TEST(dot_within_bound)
{
	static uint16_t a[MAX_N], b[MAX_N];
	uint64_t s = harness_seed() ^ 0xd07d07u;
	unsigned checked = 0;
	for (unsigned i = 0; i < 400; i++) {
		unsigned n = pick_length(&s, i % (N_LENGTHS + 8));
		enum dist d = (enum dist)(i % DIST_COUNT);
		fill(&s, d, a, b, n);
		uint32_t c = pick_acc(&s, d);
		struct ref r = ref_dot(a, b, n, c);
		double got = f32_value(tpu_bf16_dot(a, b, n, c));
		double tol = bound(&r, n, 2.0 * n);
		ck_assert_msg(fabs(got - r.exact) <= tol,
			      "n=%u dist=%d acc=0x%08" PRIX32 " seed 0x%" PRIx64
			      ": |%.17g - %.17g| > %.3g",
			      n, d, c, harness_seed(), got, r.exact, tol);
		checked++;
	}
	ck_assert_uint_eq(checked, 400);
}
END_TEST

START_TEST(dot_tiled_within_bound)
{
	static const unsigned tiles[] = {4, 8, 16, 32, 256};
	static uint16_t a[MAX_N], b[MAX_N];
	uint64_t s = harness_seed() ^ 0x711ed0u;
	for (unsigned i = 0; i < 400; i++) {
		unsigned k = pick_length(&s, i % (N_LENGTHS + 8));
		unsigned tile = tiles[i % (sizeof(tiles) / sizeof(tiles[0]))];
		unsigned n_tiles = (k + tile - 1) / tile;
		enum dist d = (enum dist)((i / 5) % DIST_COUNT);
		bool accumulate = (i / 2) & 1;
		fill(&s, d, a, b, k);
		uint32_t c = accumulate ? pick_acc(&s, d) : 0;
		struct ref r = ref_dot(a, b, k, c);
		double got = f32_value(tpu_bf16_dot_tiled(a, b, k, tile, c, accumulate));
		double tol = bound(&r, tile + n_tiles, k + (double)n_tiles * (tile + 1));
		ck_assert_msg(
		    fabs(got - r.exact) <= tol,
		    "k=%u tile=%u acc=0x%08" PRIX32 "%s seed 0x%" PRIx64 ": |%.17g - %.17g| > %.3g",
		    k, tile, c, accumulate ? " accumulate" : "", harness_seed(), got, r.exact, tol);
	}
}
END_TEST

/* One tile holding the whole K is one column: the tiled form is then the plain dot. */
START_TEST(dot_tiled_one_tile_is_dot)
{
	static uint16_t a[MAX_N], b[MAX_N];
	uint64_t s = harness_seed() ^ 0x0e7117u;
	for (unsigned i = 0; i < 200; i++) {
		unsigned k = pick_length(&s, i % (N_LENGTHS + 8));
		fill(&s, (enum dist)(i % DIST_COUNT), a, b, k);
		ck_assert_uint_eq(tpu_bf16_dot_tiled(a, b, k, k, 0, false),
				  tpu_bf16_dot(a, b, k, 0));
	}
}
END_TEST

/* The bound is sharp to first order: 1 + n * 2^-24 in the column order loses every 2^-24 (each
 * addition is a tie to the even 1.0), an error of n u against a bound of about n u. */
START_TEST(dot_bound_is_attained)
{
	static uint16_t a[1000], b[1000];
	for (unsigned k = 0; k < 1000; k++) {
		a[k] = 0x3380; /* 2^-24 */
		b[k] = 0x3F80;
	}
	struct ref r = ref_dot(a, b, 1000, 0x3F800000u);
	uint32_t got = tpu_bf16_dot(a, b, 1000, 0x3F800000u);
	ck_assert_uint_eq(got, 0x3F800000u);
	double err = fabs(f32_value(got) - r.exact);
	double tol = bound(&r, 1000, 0);
	ck_assert(err == 1000 * 0x1p-24);
	ck_assert(err <= tol && err > 0.99 * tol);
}
END_TEST

TPU_TEST_SUITE(suite_bf16_dot)
static Suite *suite_bf16_dot(void)
{
	Suite *s = suite_create("bf16_dot");
	TCase *tc = tcase_create("vs_double");
	tcase_add_test(tc, dot_within_bound);
	tcase_add_test(tc, dot_tiled_within_bound);
	tcase_add_test(tc, dot_tiled_one_tile_is_dot);
	tcase_add_test(tc, dot_bound_is_attained);
	suite_add_tcase(s, tc);
	return s;
}
