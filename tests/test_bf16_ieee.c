/* The bf16 numerics (sw/golden/bf16.c) against the host's IEEE-754 binary32 arithmetic, an
 * independent implementation: every operation of the model is recomputed with C float (x86-64
 * SSE, round to nearest even), the documented flush-to-zero is applied to its inputs and its
 * result and NaNs are made canonical, and the two must agree bit for bit.
 *
 * Cases: the cross product of the edge-value tables (zeros, subnormals of both signs, smallest and
 * largest normals and their neighbours, powers of two, values next to overflow, infinities, NaNs
 * with payloads), every bf16 against the bf16 edge table, every bf16 high half with each rounding
 * position of the low half, and 2^20 random cases per operation drawn to hit exponent differences
 * 0..40, near and exact cancellation, ties and carries. Mismatches are counted; the first one is
 * reported in hex. The random stream starts from harness_seed() (a fixed default; TPU_SEED=n
 * reproduces another run) mixed with a constant per test.
 *
 * The host side must really be IEEE single: no x87 excess precision (FLT_EVAL_METHOD 0), no
 * fast-math, round to nearest, the MXCSR's FTZ/DAZ off (checked at run time below), and no FMA
 * contraction. The build compiles with -std=c11, where GCC's default is -ffp-contract=off; in
 * addition every host operation is a single +, * or fmaf stored to a volatile, so there is no
 * expression a compiler could contract or reassociate. */
#include <fenv.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bf16_hostref.h"
#include "harness.h"
#include "tpu/bf16.h"

#if defined(__FAST_MATH__)
#error "test_bf16_ieee.c needs IEEE float semantics: build without -ffast-math"
#endif
#if FLT_EVAL_METHOD != 0
#error "test_bf16_ieee.c needs float evaluated in binary32 (SSE), not x87 extended precision"
#endif
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#define RANDOM_CASES (1u << 20)

/* (the host reference, ftz and the ref_* of each operation: bf16_hostref.h) */

/* ------------------------------------------------------------------ tallies */

struct tally {
	const char *what;
	unsigned long cases;
	unsigned long fails;
	char first[200];
};

static void expect(struct tally *t, int nops, uint32_t x, uint32_t y, uint32_t z, uint32_t got,
		   uint32_t want)
{
	t->cases++;
	if (got == want)
		return;
	if (!t->fails++) {
		if (nops == 1)
			snprintf(t->first, sizeof(t->first), "%s(0x%08" PRIX32 ")", t->what, x);
		else if (nops == 2)
			snprintf(t->first, sizeof(t->first), "%s(0x%08" PRIX32 ", 0x%08" PRIX32 ")",
				 t->what, x, y);
		else
			snprintf(t->first, sizeof(t->first),
				 "%s(0x%08" PRIX32 ", 0x%08" PRIX32 ", 0x%08" PRIX32 ")", t->what,
				 x, y, z);
		size_t len = strlen(t->first);
		snprintf(t->first + len, sizeof(t->first) - len,
			 " = 0x%08" PRIX32 ", host says 0x%08" PRIX32, got, want);
	}
}

static void tally_done(const struct tally *t, unsigned long min_cases)
{
	ck_assert_msg(t->fails == 0, "%lu of %lu %s cases differ (seed 0x%" PRIx64 "); first: %s",
		      t->fails, t->cases, t->what, harness_seed(), t->first);
	ck_assert_msg(t->cases >= min_cases, "%s: only %lu cases", t->what, t->cases);
}

static void check_add(struct tally *t, uint32_t a, uint32_t b)
{
	expect(t, 2, a, b, 0, tpu_f32_add(a, b), hr_add(a, b));
}

static void check_mul(struct tally *t, uint16_t a, uint16_t b)
{
	expect(t, 2, a, b, 0, tpu_bf16_mul(a, b), hr_mul(a, b));
}

static void check_mul32(struct tally *t, uint32_t a, uint32_t b)
{
	expect(t, 2, a, b, 0, tpu_f32_mul(a, b), hr_mul32(a, b));
}

static void check_to_bf16(struct tally *t, uint32_t x)
{
	expect(t, 1, x, 0, 0, tpu_f32_to_bf16(x), hr_to_bf16(x));
}

/* ------------------------------------------------------------------ inputs */

/* Both signs come from the loop in add_edges. In order: subnormals (smallest, largest) and the
 * smallest normals; 2^-24 and its neighbours around 1.0; ties at bf16 rounding, 2 - ulp, 2^23;
 * powers of two up to 2^127 and the largest normals; inf; NaNs with payloads. */
static const uint32_t f32_edges[] = {
    0x00000000, 0x00000001, 0x00000002, 0x00400000, 0x007FFFFF, 0x00800000, 0x00800001,
    0x00FFFFFF, 0x01000000, 0x01000001, 0x0C000000, 0x33800000, 0x33800001, 0x34000000,
    0x3EFFFFFF, 0x3F000000, 0x3F7FFFFF, 0x3F800000, 0x3F800001, 0x3F808000, 0x3F818000,
    0x3FC00000, 0x3FFFFFFF, 0x40000000, 0x4B000000, 0x4B7FFFFF, 0x5F000000, 0x7E800000,
    0x7EFFFFFF, 0x7F000000, 0x7F000001, 0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFE, 0x7F7FFFFF,
    0x7F800000, 0x7F800001, 0x7FA5A5A5, 0x7FC00000, 0x7FC00001, 0x7FFFFFFF,
};
#define N_F32_EDGES (sizeof(f32_edges) / sizeof(f32_edges[0]))

static const uint16_t bf16_edges[] = {
    0x0000, 0x0001, 0x007F, 0x0080, 0x0081, 0x00FF, 0x0100, 0x1F80, 0x2000,
    0x3F00, 0x3F7F, 0x3F80, 0x3F81, 0x3FFF, 0x4000, 0x4040, 0x5F80, 0x6000,
    0x7F00, 0x7F7F, 0x7F80, 0x7F81, 0x7FA5, 0x7FC0, 0x7FC1, 0x7FFF,
};
#define N_BF16_EDGES (sizeof(bf16_edges) / sizeof(bf16_edges[0]))

static uint32_t rand32(uint64_t *s)
{
	return (uint32_t)harness_rand(s);
}

/* A finite normal fp32 with a random sign and fraction and the biased exponent e (clamped). */
static uint32_t make_f32(uint64_t *s, int e)
{
	if (e < 1)
		e = 1;
	if (e > 254)
		e = 254;
	return (rand32(s) & 0x807FFFFFu) | (uint32_t)e << 23;
}

/* An exponent that lands near the interesting places half of the time. */
static int rand_exp(uint64_t *s)
{
	static const int picks[] = {1,	 2,   3,   25,	26,  27,  100, 126,
				    127, 128, 228, 229, 252, 253, 254};
	if (harness_rand(s) & 1)
		return picks[harness_rand(s) % (sizeof(picks) / sizeof(picks[0]))];
	return (int)harness_range(s, 1, 254);
}

/* A second addend for a, drawn to exercise one part of the adder. */
static uint32_t partner(uint64_t *s, uint32_t a)
{
	int ea = (int)((a >> 23) & 0xFF);
	uint32_t sign = rand32(s) & 0x80000000u;
	switch (harness_rand(s) % 8) {
	case 0:
		return rand32(s); /* anything, mostly a large exponent difference */
	case 1:
	case 2:
	case 3: /* alignment: exponent differences 0 .. 40, both ways round */
		return make_f32(s, ea - (int)harness_range(s, -3, 40));
	case 4: /* near cancellation: -a plus or minus a few ulps */
		return (a ^ 0x80000000u) + (uint32_t)harness_range(s, -4, 4);
	case 5: /* exact half-ulp ties (2^(ea-24)) and a hair either side */
		return (sign | (uint32_t)(ea > 24 ? ea - 24 : 1) << 23) +
		       (uint32_t)harness_range(s, 0, 1);
	case 6: /* one ulp of a, or one and a half (a tie after the LSB moves) */
		return sign | (uint32_t)(ea > 23 ? ea - 23 : 1) << 23 |
		       (harness_rand(s) & 1 ? 0x400000u : 0);
	default: /* results that fall below 2^-126 */
		return make_f32(s, (int)harness_range(s, 1, 3));
	}
}

/* ------------------------------------------------------------------ tests */

START_TEST(host_is_ieee_single)
{
	volatile float tiny = 0x1p-126f, half = 0.5f;
	volatile float sub = tiny * half;
	ck_assert_msg(fegetround() == FE_TONEAREST, "host rounding mode is not round-to-nearest");
	ck_assert_msg(tpu_f32_from_float(sub) == 0x00400000u, "host flushes subnormals (MXCSR FTZ/DAZ set?)");
	volatile float one = 1.0f, u = 0x1p-24f;
	volatile float s = one + u;
	ck_assert_msg(tpu_f32_from_float(s) == 0x3F800000u, "host float addition is not binary32 RNE");
}
END_TEST

START_TEST(add_edges)
{
	struct tally t = {.what = "tpu_f32_add"};
	/* Each edge, its neighbours one ulp either side and both signs, against all the others. */
	uint32_t v[N_F32_EDGES * 6];
	unsigned n = 0;
	for (unsigned i = 0; i < N_F32_EDGES; i++)
		for (unsigned neg = 0; neg < 2; neg++) {
			uint32_t sign = neg ? 0x80000000u : 0;
			v[n++] = f32_edges[i] | sign;
			v[n++] = (f32_edges[i] + 1) | sign;
			v[n++] = (f32_edges[i] - 1) | sign;
		}
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			check_add(&t, v[i], v[j]);
	tally_done(&t, (unsigned long)n * n);
}
END_TEST

START_TEST(add_random)
{
	struct tally t = {.what = "tpu_f32_add"};
	uint64_t s = harness_seed() ^ 0xadd0add0u;
	for (unsigned i = 0; i < RANDOM_CASES; i++) {
		uint32_t a = harness_rand(&s) & 1 ? make_f32(&s, rand_exp(&s)) : rand32(&s);
		uint32_t b = partner(&s, a);
		if (harness_rand(&s) & 1)
			check_add(&t, a, b);
		else
			check_add(&t, b, a);
	}
	tally_done(&t, RANDOM_CASES);
}
END_TEST

START_TEST(mul_every_bf16_by_edges)
{
	struct tally t = {.what = "tpu_bf16_mul"};
	for (uint32_t a = 0; a <= 0xFFFF; a++)
		for (unsigned j = 0; j < N_BF16_EDGES; j++) {
			check_mul(&t, (uint16_t)a, bf16_edges[j]);
			check_mul(&t, (uint16_t)a, bf16_edges[j] | 0x8000u);
		}
	tally_done(&t, 65536ul * 2 * N_BF16_EDGES);
}
END_TEST

START_TEST(mul_random)
{
	struct tally t = {.what = "tpu_bf16_mul"};
	uint64_t s = harness_seed() ^ 0x3a173a17u;
	for (unsigned i = 0; i < RANDOM_CASES; i++) {
		uint16_t a = (uint16_t)rand32(&s), b = (uint16_t)rand32(&s);
		if (i & 1) {
			/* Half of them with a product exponent next to 0 or 254: the flush and
			 * overflow edges (raw random bits reach them rarely). */
			int ea = (a >> 7) & 0xFF;
			int ep = (int)harness_range(&s, -3, 3) + (harness_rand(&s) & 1 ? 254 : 0);
			int eb = ep - ea + 127;
			eb = eb < 0 ? 0 : eb > 255 ? 255 : eb;
			b = (uint16_t)((b & 0x807Fu) | (uint32_t)eb << 7);
		}
		check_mul(&t, a, b);
	}
	tally_done(&t, RANDOM_CASES);
}
END_TEST

START_TEST(mul32_edges)
{
	struct tally t = {.what = "tpu_f32_mul"};
	uint32_t v[N_F32_EDGES * 6];
	unsigned n = 0;
	for (unsigned i = 0; i < N_F32_EDGES; i++)
		for (unsigned neg = 0; neg < 2; neg++) {
			uint32_t sign = neg ? 0x80000000u : 0;
			v[n++] = f32_edges[i] | sign;
			v[n++] = (f32_edges[i] + 1) | sign;
			v[n++] = (f32_edges[i] - 1) | sign;
		}
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			check_mul32(&t, v[i], v[j]);
	tally_done(&t, (unsigned long)n * n);
}
END_TEST

/* A second factor for a, drawn to exercise one part of the multiplier. */
static uint32_t mul32_partner(uint64_t *s, uint32_t a)
{
	int ea = (int)((a >> 23) & 0xFF);
	uint32_t sign = rand32(s) & 0x80000000u;
	volatile float fa = fabsf(tpu_f32_to_float(a)), q;
	switch (harness_rand(s) % 8) {
	case 0:
		return rand32(s); /* anything */
	case 1: /* product exponent next to the flush (0) or the overflow (254) edge */
		return make_f32(s, (int)harness_range(s, -3, 3) + (harness_rand(s) & 1 ? 254 : 0) -
					   ea + 127);
	case 2: /* a short significand (up to 4 bits): exact products of <= 28 bits, ties */
		return sign | (uint32_t)harness_range(s, 100, 154) << 23 |
		       (rand32(s) & 0x00780000u);
	case 3: /* 1 + a few ulps, or 2 - a few ulps: carries out of the rounding */
		return sign | (harness_rand(s) & 1 ? 0x3F800000u + (uint32_t)harness_range(s, 0, 3)
						   : 0x3FFFFFFFu - (uint32_t)harness_range(s, 0, 3));
	case 4: /* 2^-126 / |a| and its neighbours: exact products just either side of 2^-126 */
		if (ea == 0 || ea == 255)
			return rand32(s);
		q = 0x1p-126f / fa;
		return sign | (tpu_f32_from_float(q) + (uint32_t)harness_range(s, -2, 2));
	case 5: /* FLT_MAX / |a| and its neighbours: products that round to 2^128 or just not */
		if (ea == 0 || ea == 255)
			return rand32(s);
		q = FLT_MAX / fa;
		return sign | ((tpu_f32_from_float(q) & 0x7FFFFFFFu) + (uint32_t)harness_range(s, -2, 2));
	default: /* normal numbers of any exponent */
		return make_f32(s, rand_exp(s));
	}
}

START_TEST(mul32_random)
{
	struct tally t = {.what = "tpu_f32_mul"};
	uint64_t s = harness_seed() ^ 0x3a3232a3u;
	for (unsigned i = 0; i < RANDOM_CASES; i++) {
		uint32_t a = harness_rand(&s) & 1 ? make_f32(&s, rand_exp(&s)) : rand32(&s);
		if (harness_rand(&s) % 4 == 0) /* all-ones significands: carries */
			a = (a & 0xFF800000u) | (0x7FFFFFu - (uint32_t)harness_range(&s, 0, 15));
		uint32_t b = mul32_partner(&s, a);
		if (harness_rand(&s) & 1)
			check_mul32(&t, a, b);
		else
			check_mul32(&t, b, a);
	}
	tally_done(&t, RANDOM_CASES);
}
END_TEST

/* Every bf16 (as an fp32 high half) times the fp32 edge values: all signs, exponents and short
 * significands against the special cases. */
START_TEST(mul32_every_bf16_by_edges)
{
	struct tally t = {.what = "tpu_f32_mul"};
	for (uint32_t a = 0; a <= 0xFFFF; a++)
		for (unsigned j = 0; j < N_F32_EDGES; j++)
			check_mul32(&t, a << 16 | (a & 0x7u), f32_edges[j] ^ (a & 0x8u ? 0x80000000u : 0));
	tally_done(&t, 65536ul * N_F32_EDGES);
}
END_TEST

START_TEST(mac_random)
{
	struct tally t = {.what = "tpu_bf16_mac"};
	uint64_t s = harness_seed() ^ 0x3ac03ac0u;
	for (unsigned i = 0; i < RANDOM_CASES / 4; i++) {
		uint16_t a = (uint16_t)rand32(&s), b = (uint16_t)rand32(&s);
		uint32_t p = tpu_bf16_mul(a, b);
		uint32_t acc = i & 1 ? partner(&s, p) : rand32(&s);
		expect(&t, 3, acc, a, b, tpu_bf16_mac(acc, a, b), hr_mac(acc, a, b));
	}
	tally_done(&t, RANDOM_CASES / 4);
}
END_TEST

/* Where the product is a normal number the PE's step is a fused multiply-add: the host's fmaf is
 * a second reference that also proves the product was not rounded. */
START_TEST(mac_is_fma_for_normal_products)
{
	struct tally t = {.what = "tpu_bf16_mac"};
	uint64_t s = harness_seed() ^ 0xf3af3au;
	while (t.cases < RANDOM_CASES / 4) {
		uint16_t a = (uint16_t)rand32(&s), b = (uint16_t)rand32(&s);
		volatile float x = hr_bf16_in(a), y = hr_bf16_in(b);
		volatile float p = x * y;
		if (fpclassify(p) != FP_NORMAL)
			continue;
		uint32_t acc = partner(&s, tpu_f32_from_float(p) ^ 0x80000000u);
		volatile float c = hr_ftz(tpu_f32_to_float(acc));
		volatile float r = fmaf(x, y, c);
		expect(&t, 3, acc, a, b, tpu_bf16_mac(acc, a, b), hr_result(r));
	}
	tally_done(&t, RANDOM_CASES / 4);
}
END_TEST

START_TEST(bf16_to_f32_every_value)
{
	struct tally t = {.what = "tpu_bf16_to_f32"};
	for (uint32_t a = 0; a <= 0xFFFF; a++)
		expect(&t, 1, a, 0, 0, tpu_bf16_to_f32((uint16_t)a), hr_bf16_to_f32((uint16_t)a));
	tally_done(&t, 65536);
}
END_TEST

START_TEST(to_bf16_every_high_half)
{
	/* Every rounding position for every sign, exponent and bf16 fraction: zero, just below,
	 * at and just above the tie, the largest low half. */
	static const uint32_t lows[] = {0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF};
	struct tally t = {.what = "tpu_f32_to_bf16"};
	for (uint32_t hi = 0; hi <= 0xFFFF; hi++)
		for (unsigned j = 0; j < sizeof(lows) / sizeof(lows[0]); j++)
			check_to_bf16(&t, hi << 16 | lows[j]);
	for (unsigned i = 0; i < N_F32_EDGES; i++) {
		check_to_bf16(&t, f32_edges[i]);
		check_to_bf16(&t, f32_edges[i] | 0x80000000u);
	}
	tally_done(&t, 65536ul * 7);
}
END_TEST

START_TEST(to_bf16_random)
{
	struct tally t = {.what = "tpu_f32_to_bf16"};
	uint64_t s = harness_seed() ^ 0xbf16bf16u;
	for (unsigned i = 0; i < RANDOM_CASES; i++)
		check_to_bf16(&t, rand32(&s));
	tally_done(&t, RANDOM_CASES);
}
END_TEST

/* The rounding of an accumulator to bf16 (ACTIVATE's float path) after real sums. */
START_TEST(to_bf16_of_sums)
{
	struct tally t = {.what = "tpu_f32_to_bf16"};
	uint64_t s = harness_seed() ^ 0x5a5a0bf1u;
	for (unsigned i = 0; i < RANDOM_CASES / 4; i++) {
		uint32_t a = make_f32(&s, rand_exp(&s));
		check_to_bf16(&t, tpu_f32_add(a, partner(&s, a)));
	}
	tally_done(&t, RANDOM_CASES / 4);
}
END_TEST

/* The column and tile order, replayed with host float one operation at a time. */
static uint32_t ref_dot(const uint16_t *a, const uint16_t *b, unsigned n, uint32_t acc)
{
	for (unsigned k = 0; k < n; k++)
		acc = hr_mac(acc, a[k], b[k]);
	return acc;
}

static uint32_t ref_dot_tiled(const uint16_t *a, const uint16_t *b, unsigned k, unsigned tile,
			      uint32_t acc, bool accumulate)
{
	static const uint16_t zero[256];
	if (!accumulate)
		acc = 0;
	for (unsigned k0 = 0; k0 < k; k0 += tile) {
		unsigned rows = k - k0 < tile ? k - k0 : tile;
		uint32_t sum = ref_dot(a + k0, b + k0, rows, 0);
		sum = ref_dot(zero, zero, tile - rows, sum);
		acc = k0 == 0 && !accumulate ? sum : hr_add(acc, sum);
	}
	return acc;
}

/* Mostly near 1 (exponents 120..127), one in eight tiny or subnormal: sums that round, cancel
 * and flush. */
static uint16_t column_operand(uint64_t *s)
{
	uint32_t e = harness_rand(s) % 8 ? (uint32_t)harness_range(s, 120, 127)
					 : (uint32_t)harness_range(s, 0, 15);
	return (uint16_t)((rand32(s) & 0x807Fu) | e << 7);
}

START_TEST(dot_order_is_sequential_float)
{
	static uint16_t a[300], b[300];
	static const unsigned tiles[] = {1, 3, 8, 16, 256};
	struct tally t = {.what = "tpu_bf16_dot"};
	struct tally tt = {.what = "tpu_bf16_dot_tiled"};
	uint64_t s = harness_seed() ^ 0xc01c01u;
	for (unsigned i = 0; i < 2000; i++) {
		unsigned n = (unsigned)harness_range(&s, 1, 300);
		for (unsigned k = 0; k < n; k++) {
			a[k] = column_operand(&s);
			b[k] = (uint16_t)((rand32(&s) & 0x807Fu) |
					  (uint32_t)harness_range(&s, 118, 136) << 7);
		}
		uint32_t acc = i % 3 ? 0 : partner(&s, 0x3F800000u);
		expect(&t, 3, i, n, acc, tpu_bf16_dot(a, b, n, acc), ref_dot(a, b, n, acc));
		unsigned tile = tiles[i % (sizeof(tiles) / sizeof(tiles[0]))];
		bool accumulate = i & 1;
		expect(&tt, 3, n, tile, acc, tpu_bf16_dot_tiled(a, b, n, tile, acc, accumulate),
		       ref_dot_tiled(a, b, n, tile, acc, accumulate));
	}
	tally_done(&t, 2000);
	tally_done(&tt, 2000);
}
END_TEST

TPU_TEST_SUITE(suite_bf16_ieee)
static Suite *suite_bf16_ieee(void)
{
	Suite *s = suite_create("bf16_ieee");
	TCase *tc = tcase_create("host_float");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, host_is_ieee_single);
	tcase_add_test(tc, add_edges);
	tcase_add_test(tc, add_random);
	tcase_add_test(tc, mul_every_bf16_by_edges);
	tcase_add_test(tc, mul_random);
	tcase_add_test(tc, mul32_edges);
	tcase_add_test(tc, mul32_random);
	tcase_add_test(tc, mul32_every_bf16_by_edges);
	tcase_add_test(tc, mac_random);
	tcase_add_test(tc, mac_is_fma_for_normal_products);
	tcase_add_test(tc, bf16_to_f32_every_value);
	tcase_add_test(tc, to_bf16_every_high_half);
	tcase_add_test(tc, to_bf16_random);
	tcase_add_test(tc, to_bf16_of_sums);
	tcase_add_test(tc, dot_order_is_sequential_float);
	suite_add_tcase(s, tc);
	return s;
}
