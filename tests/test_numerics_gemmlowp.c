/* The golden numerics (sw/golden/numerics.c) and the CLI's naive reference (sw/cli/reference.c)
 * against gemmlowp's own fixed-point primitives (tests/gemmlowp_ref.cc): random cases and every
 * edge, plus tpu_quantize_multiplier against an independent normalisation loop.
 * Mismatches are counted and the first one is reported, so that 10^5 cases cost no per-case
 * Check bookkeeping. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "harness.h"
#include "tpu/numerics.h"
#include "cli/reference.h"

int32_t gemmlowp_ref_srdhm(int32_t a, int32_t b);
int32_t gemmlowp_ref_rdbpot(int32_t x, int exponent);
int32_t gemmlowp_ref_requantize(int32_t x, int32_t multiplier, int shift);

#define RANDOM_CASES 100000

static const int32_t edges[] = {
    INT32_MIN,
    INT32_MIN + 1,
    INT32_MIN + 2,
    -(1 << 30) - 1,
    -(1 << 30),
    -(1 << 30) + 1,
    -65536,
    -46341,
    -32768,
    -32767,
    -257,
    -256,
    -255,
    -129,
    -128,
    -127,
    -3,
    -2,
    -1,
    0,
    1,
    2,
    3,
    127,
    128,
    255,
    256,
    32767,
    32768,
    46341,
    65536,
    (1 << 30) - 1,
    1 << 30,
    (1 << 30) + 1,
    INT32_MAX - 2,
    INT32_MAX - 1,
    INT32_MAX,
};
#define N_EDGES (sizeof(edges) / sizeof(edges[0]))

/* First mismatch of a comparison loop. */
struct miss {
	long count;
	char first[200];
};

static void note(struct miss *m, const char *what, int64_t x, int64_t y, int64_t z, int32_t got,
		 int32_t want)
{
	if (m->count++ == 0)
		snprintf(m->first, sizeof(m->first),
			 "%s(%" PRId64 ", %" PRId64 ", %" PRId64 ") = %" PRId32
			 ", gemmlowp %" PRId32,
			 what, x, y, z, got, want);
}

#define ck_no_miss(m)                                                                              \
	ck_assert_msg((m).count == 0, "%ld mismatches, first: %s", (m).count, (m).first)

/* A random int32: half uniform over the whole range, half of random magnitude (small values
 * and values near powers of two matter most for rounding). */
static int32_t rand_i32(uint64_t *st)
{
	if (harness_rand(st) & 1)
		return (int32_t)harness_range(st, INT32_MIN, INT32_MAX);
	int bits = (int)harness_range(st, 0, 31);
	int64_t lim = ((int64_t)1 << bits) - 1;
	int64_t v = harness_range(st, -lim - 1, lim);
	return (int32_t)v;
}

/* A random Q31 multiplier: mostly normalised [2^30, 2^31-1] as QuantizeMultiplier makes them. */
static int32_t rand_mult(uint64_t *st)
{
	if (harness_rand(st) % 4)
		return (int32_t)harness_range(st, 1 << 30, INT32_MAX);
	return (int32_t)harness_range(st, 0, INT32_MAX);
}

/* ---------------------------------------------------------------- SRDHM */

static void cmp_srdhm(struct miss *m, int32_t a, int32_t b)
{
	int32_t want = gemmlowp_ref_srdhm(a, b);
	int32_t got = tpu_srdhm(a, b);
	if (got != want)
		note(m, "tpu_srdhm", a, b, 0, got, want);
}

START_TEST(srdhm_random)
{
	uint64_t st = harness_seed() ^ 0x5344;
	struct miss m = {0};
	for (int i = 0; i < RANDOM_CASES; i++)
		cmp_srdhm(&m, rand_i32(&st), rand_i32(&st));
	ck_no_miss(m);
}
END_TEST

START_TEST(srdhm_edges_and_ties)
{
	uint64_t st = harness_seed() ^ 0x5345;
	struct miss m = {0};
	for (size_t i = 0; i < N_EDGES; i++)
		for (size_t j = 0; j < N_EDGES; j++)
			cmp_srdhm(&m, edges[i], edges[j]);
	/* exact ties: a*b = odd * 2^30, i.e. the fraction is exactly one half, both signs */
	for (int i = 0; i < 20000; i++) {
		int32_t u = (int32_t)harness_range(&st, -32768, 32767) | 1;
		int32_t v = (int32_t)harness_range(&st, -32768, 32767) | 1;
		cmp_srdhm(&m, u * 32768, v * 32768);
		cmp_srdhm(&m, 1 << 30, (int32_t)harness_range(&st, INT32_MIN, INT32_MAX) | 1);
		cmp_srdhm(&m, -(1 << 30), (int32_t)harness_range(&st, INT32_MIN, INT32_MAX) | 1);
	}
	ck_no_miss(m);
	ck_assert_int_eq(tpu_srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
}
END_TEST

/* ---------------------------------------------------------------- RDBPOT */

static void cmp_rdbpot(struct miss *m, int32_t x, int e)
{
	int32_t want = gemmlowp_ref_rdbpot(x, e);
	int32_t got = tpu_rdbpot(x, e);
	if (got != want)
		note(m, "tpu_rdbpot", x, e, 0, got, want);
}

START_TEST(rdbpot_random)
{
	uint64_t st = harness_seed() ^ 0x5244;
	struct miss m = {0};
	for (int i = 0; i < RANDOM_CASES; i++)
		cmp_rdbpot(&m, rand_i32(&st), (int)harness_range(&st, 0, 31));
	ck_no_miss(m);
}
END_TEST

START_TEST(rdbpot_edges_and_ties)
{
	uint64_t st = harness_seed() ^ 0x5245;
	struct miss m = {0};
	for (int e = 0; e <= 31; e++) {
		for (size_t i = 0; i < N_EDGES; i++)
			cmp_rdbpot(&m, edges[i], e);
		if (e == 0)
			continue;
		/* exact ties (2j+1) * 2^(e-1) and their neighbours, both signs */
		for (int i = 0; i < 500; i++) {
			int64_t lim = ((int64_t)1 << (31 - e)) - 1;
			int64_t odd = 2 * harness_range(&st, -lim / 2 - 1, lim / 2) + 1;
			int64_t t = odd * ((int64_t)1 << (e - 1));
			if (t < INT32_MIN || t > INT32_MAX)
				continue;
			for (int d = -1; d <= 1; d++)
				if (t + d >= INT32_MIN && t + d <= INT32_MAX)
					cmp_rdbpot(&m, (int32_t)(t + d), e);
		}
	}
	ck_no_miss(m);
	ck_assert_int_eq(tpu_rdbpot(INT32_MIN, 31), -1);
	ck_assert_int_eq(tpu_rdbpot(INT32_MAX, 31), 1);
}
END_TEST

/* ---------------------------------------------------------------- requantize */

static void cmp_requant(struct miss *m, int32_t x, int32_t mult, int shift)
{
	int32_t want = gemmlowp_ref_requantize(x, mult, shift);
	int32_t got = tpu_requantize(x, mult, shift);
	if (got != want)
		note(m, "tpu_requantize", x, mult, shift, got, want);
}

START_TEST(requantize_random)
{
	uint64_t st = harness_seed() ^ 0x5251;
	struct miss m = {0};
	for (int i = 0; i < RANDOM_CASES; i++)
		cmp_requant(&m, rand_i32(&st), rand_mult(&st),
			    (int)harness_range(&st, TPU_SHIFT_MIN, TPU_SHIFT_MAX));
	ck_no_miss(m);
}
END_TEST

START_TEST(requantize_all_shifts_edges)
{
	static const int32_t mults[] = {
	    0, 1, 2, (1 << 30) - 1, 1 << 30, (1 << 30) + 1, 1518500250, INT32_MAX - 1, INT32_MAX};
	struct miss m = {0};
	for (int s = TPU_SHIFT_MIN; s <= TPU_SHIFT_MAX; s++)
		for (size_t i = 0; i < N_EDGES; i++)
			for (size_t j = 0; j < sizeof(mults) / sizeof(mults[0]); j++)
				cmp_requant(&m, edges[i], mults[j], s);
	ck_no_miss(m);
}
END_TEST

/* ---------------------------------------------------------------- reference.c */

START_TEST(reference_vs_gemmlowp)
{
	uint64_t st = harness_seed() ^ 0x5246;
	struct miss m = {0};
	for (int i = 0; i < RANDOM_CASES; i++) {
		int32_t a = rand_i32(&st), b = rand_i32(&st), mult = rand_mult(&st);
		int e = (int)harness_range(&st, 0, 31);
		int s = (int)harness_range(&st, TPU_SHIFT_MIN, TPU_SHIFT_MAX);
		int32_t want = gemmlowp_ref_srdhm(a, b), got = ref_srdhm(a, b);
		if (got != want)
			note(&m, "ref_srdhm", a, b, 0, got, want);
		want = gemmlowp_ref_rdbpot(a, e);
		got = ref_rdbpot(a, e);
		if (got != want)
			note(&m, "ref_rdbpot", a, e, 0, got, want);
		want = gemmlowp_ref_requantize(a, mult, s);
		got = ref_requantize(a, mult, s);
		if (got != want)
			note(&m, "ref_requantize", a, mult, s, got, want);
	}
	for (int s = TPU_SHIFT_MIN; s <= TPU_SHIFT_MAX; s++)
		for (size_t i = 0; i < N_EDGES; i++)
			for (size_t j = 0; j < N_EDGES; j++) {
				int32_t mult = edges[j] < 0 ? -(edges[j] + 1) : edges[j];
				int32_t want = gemmlowp_ref_requantize(edges[i], mult, s);
				int32_t got = ref_requantize(edges[i], mult, s);
				if (got != want)
					note(&m, "ref_requantize", edges[i], mult, s, got, want);
			}
	ck_no_miss(m);
}
END_TEST

/* ---------------------------------------------------------------- QuantizeMultiplier */

/* Independent QuantizeMultiplier: normalise r into [0.5, 1) by exact halving and doubling,
 * then round q * 2^31 half away from zero (q * 2^31 + 0.5 is exact: it is below 2^32 with at
 * most 22 fraction bits). Returns 0 or -EINVAL like the function under test. */
static int indep_quantize(double r, int32_t *mult, int *shift)
{
	if (isnan(r) || isinf(r) || r < 0)
		return -EINVAL;
	if (r == 0) {
		*mult = 0;
		*shift = 0;
		return 0;
	}
	double q = r;
	int e = 0;
	while (q >= 1.0) {
		q /= 2;
		e++;
	}
	while (q < 0.5) {
		q *= 2;
		e--;
	}
	int64_t fixed = (int64_t)floor(q * 2147483648.0 + 0.5);
	if (fixed == 2147483648ll) {
		fixed = 1 << 30;
		e++;
	}
	if (e < -31) {
		*mult = 0;
		*shift = 0;
		return 0;
	}
	if (e > 30)
		return -EINVAL;
	*mult = (int32_t)fixed;
	*shift = e;
	return 0;
}

static void cmp_quantize(struct miss *m, double r)
{
	int32_t m1 = -7, m2 = -7;
	int s1 = -99, s2 = -99;
	int rc1 = tpu_quantize_multiplier(r, &m1, &s1);
	int rc2 = indep_quantize(r, &m2, &s2);
	if (rc1 != rc2 || (rc1 == 0 && (m1 != m2 || s1 != s2))) {
		if (m->count++ == 0)
			snprintf(m->first, sizeof(m->first),
				 "r=%a: got rc %d (%" PRId32 ", %d), want rc %d (%" PRId32 ", %d)",
				 r, rc1, m1, s1, rc2, m2, s2);
	}
}

START_TEST(quantize_multiplier_random)
{
	uint64_t st = harness_seed() ^ 0x514d;
	struct miss m = {0};
	for (int i = 0; i < RANDOM_CASES; i++) {
		/* log-uniform over 2^-40 .. 2^34: crosses both the flush and the -EINVAL limits */
		double mant = 0.5 + (double)(harness_rand(&st) >> 11) * 0x1p-54;
		cmp_quantize(&m, ldexp(mant, (int)harness_range(&st, -40, 34)));
	}
	ck_no_miss(m);
}
END_TEST

static void expect_q(double r, int rc, int32_t mult, int shift)
{
	int32_t got_m = -7;
	int got_s = -99;
	int got = tpu_quantize_multiplier(r, &got_m, &got_s);
	ck_assert_msg(got == rc, "r=%a: rc %d, want %d", r, got, rc);
	if (rc == 0)
		ck_assert_msg(got_m == mult && got_s == shift,
			      "r=%a: (%" PRId32 ", %d), want (%" PRId32 ", %d)", r, got_m, got_s,
			      mult, shift);
}

START_TEST(quantize_multiplier_edges)
{
	expect_q(0.0, 0, 0, 0);
	expect_q(-0.0, 0, 0, 0);
	expect_q(0.5, 0, 1 << 30, 0);
	expect_q(1.0, 0, 1 << 30, 1);
	expect_q(0.75, 0, 3 << 29, 0);
	expect_q(nextafter(0.5, 0.0), 0, 1 << 30, 0); /* just below 0.5 rounds back up to it */
	expect_q(0.5 + 0x1p-32, 0, (1 << 30) + 1, 0); /* q*2^31 = 2^30 + 0.5: tie, away */
	expect_q(0.5 + 0x1p-33, 0, 1 << 30, 0);	      /* 2^30 + 0.25: down */
	expect_q(0.5 + 0x3p-33, 0, (1 << 30) + 1, 0); /* 2^30 + 0.75: up */
	expect_q(1.0 - 0x1p-40, 0, 1 << 30, 1);	      /* rounds to 2^31 -> 2^30, shift + 1 */
	expect_q(0x1p-32, 0, 1 << 30, -31);	      /* smallest exponent kept */
	expect_q(0x1p-33, 0, 0, 0);		      /* one below: flushed */
	expect_q(0x1p-40, 0, 0, 0);
	expect_q(0x1p-1074, 0, 0, 0);		      /* denormal */
	expect_q(0x1p-32 - 0x1p-80, 0, 1 << 30, -31); /* rounds up into the kept range */
	expect_q(0x1p29, 0, 1 << 30, 30);
	expect_q(0x1p30 - 0x1p-1, 0, INT32_MAX, 30); /* largest representable multiplier */
	expect_q(0x1p30 - 0x1p-10, -EINVAL, 0, 0);   /* rounds up to 2^30: shift 31 */
	expect_q(0x1p30, -EINVAL, 0, 0);
	expect_q(1e300, -EINVAL, 0, 0);
	expect_q(-1.0, -EINVAL, 0, 0);
	expect_q(-0x1p-1074, -EINVAL, 0, 0);
	expect_q(INFINITY, -EINVAL, 0, 0);
	expect_q(NAN, -EINVAL, 0, 0);
}
END_TEST

TPU_TEST_SUITE(suite_numerics_gemmlowp)
static Suite *suite_numerics_gemmlowp(void)
{
	Suite *s = suite_create("numerics_gemmlowp");
	TCase *tc = tcase_create("gemmlowp");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, srdhm_random);
	tcase_add_test(tc, srdhm_edges_and_ties);
	tcase_add_test(tc, rdbpot_random);
	tcase_add_test(tc, rdbpot_edges_and_ties);
	tcase_add_test(tc, requantize_random);
	tcase_add_test(tc, requantize_all_shifts_edges);
	tcase_add_test(tc, reference_vs_gemmlowp);
	suite_add_tcase(s, tc);
	TCase *tq = tcase_create("quantize_multiplier");
	tcase_add_test(tq, quantize_multiplier_random);
	tcase_add_test(tq, quantize_multiplier_edges);
	suite_add_tcase(s, tq);
	return s;
}
