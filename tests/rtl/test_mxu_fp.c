/* The fp functions of the RTL (rtl/common/tpu_fp_pkg.sv, Verilated through
 * tests/rtl/tpu_fp_probe.sv) against the C reference of the numerics (sw/golden/bf16.c, itself
 * checked against the host's IEEE arithmetic by tests/test_bf16_ieee.c), bit for bit:
 *   f32_add      every pair of the fp32 edge table, and 2^20 pairs drawn to hit every exponent
 *                difference 0..30, cancellations, ties and carries;
 *   bf16_mul     every bf16 against every bf16 edge value, and 2^20 random pairs;
 *   bf16_mac     edge triples and 2^20 random triples with the accumulator near the product;
 *   f32_to_bf16  every bf16 high half with each rounding position of the low half, the edge
 *                table and 2^20 random values;
 *   bf16_to_f32  every bf16;
 * and, against the host's IEEE-754 binary32 arithmetic directly (tests/bf16_hostref.c, with the
 * spec's input rules and flush applied):
 *   f32_mul      every pair of the edge table and 2^20 pairs each with products near 1, in the
 *                flush region around 2^-126 and near overflow (also against tpu_f32_mul);
 *   f32_lt       the same pairs (NaNs left out: the clamp never compares one).
 * Mismatches are counted per function; the first one is reported in hex. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../bf16_hostref.h"
#include "../harness.h"
#include "test_mxu_util.h"
#include "tpu/bf16.h"

#define RANDOM_CASES (1u << 20)

static const uint32_t f32_edges[] = {
	0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00400000, /* zeros, subnormals */
	0x00800000, 0x80800000, 0x00800001, 0x00FFFFFF, 0x01000000, /* smallest normals */
	0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0xBF7FFFFF, /* around 1 */
	0x3F000000, 0x40000000, 0x4B800000, 0x4B7FFFFF, 0x33800000, /* powers of two, 2^-24 */
	0x33000000, 0x34000000, 0x3F8000FF, 0x3F808000, 0x3F818000, /* ties of bf16 rounding */
	0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x7F000000, /* near overflow */
	0x7F800000, 0xFF800000,                                     /* infinities */
	0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF, 0xFFFFFFFF, /* NaNs */
	0x40490FDB, 0xC2F6E979, 0x00FFFFFE, 0x80800001,
};
#define F32_EDGES (sizeof(f32_edges) / sizeof(f32_edges[0]))

static const uint16_t bf16_edges[] = {
	0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x8080, 0x0081, 0x00FF, /* zero, sub, min */
	0x3F80, 0xBF80, 0x3F81, 0x3FFF, 0x4000, 0x3F00, 0x3FC0, 0xBFFF, /* around 1 */
	0x7F7F, 0xFF7F, 0x7F00, 0x5F80, 0x1F80, 0x2000, 0x0100, 0x7E80, /* range edges */
	0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFFFF, 0x7FBF,         /* inf, NaN */
};
#define BF16_EDGES (sizeof(bf16_edges) / sizeof(bf16_edges[0]))

struct tally {
	const char *what;
	unsigned long cases, fails;
	char first[160];
};

static void expect(struct tally *t, uint32_t x, uint32_t y, uint32_t z, uint32_t got,
		   uint32_t want)
{
	t->cases++;
	if (got == want)
		return;
	if (!t->fails++)
		snprintf(t->first, sizeof(t->first),
			 "%s(0x%08" PRIX32 ", 0x%08" PRIX32 ", 0x%08" PRIX32 "): RTL 0x%08" PRIX32
			 ", C 0x%08" PRIX32, t->what, x, y, z, got, want);
}

static void report(const struct tally *t)
{
	printf("%-12s %9lu cases, %lu differ%s%s\n", t->what, t->cases, t->fails,
	       t->fails ? ", first: " : "", t->fails ? t->first : "");
	ck_assert_msg(t->fails == 0, "%s: %lu of %lu differ, first %s", t->what, t->fails,
		      t->cases, t->first);
}

/* An fp32 drawn to reach every path: mostly normal with exponents clustered around `near`
 * (so that pairs align by 0..30 places and cancel), sometimes an edge value, with fractions
 * that are random, all ones, all zeros or one bit. */
static uint32_t draw_f32(uint64_t *rng, int near)
{
	uint32_t r = (uint32_t)harness_rand(rng);
	if (r % 16 == 0)
		return f32_edges[(r >> 4) % F32_EDGES];
	int e = near < 0 ? (int)harness_range(rng, 0, 255) : near - (int)harness_range(rng, 0, 30);
	if (e < 0)
		e = 0;
	if (e > 255)
		e = 255;
	uint32_t frac = (uint32_t)harness_rand(rng) & 0x7FFFFFu;
	switch ((r >> 4) % 8) {
	case 0: frac = 0x7FFFFFu; break;
	case 1: frac = 0; break;
	case 2: frac = 1u << harness_range(rng, 0, 22); break;
	case 3: frac &= ~0xFFu; break; /* few low bits: ties */
	default: break;
	}
	return (r & 0x80000000u) | (uint32_t)e << 23 | frac;
}

static void probe(const struct tpu_vfp_ops *ops, void *m, uint32_t a, uint32_t b, uint32_t c,
		  struct tpu_vfp_out *out)
{
	struct tpu_vfp_in in = {a, b, c};
	ops->eval(m, &in, out);
}

START_TEST(fp_add)
{
	const struct tpu_vfp_ops *ops = tpu_vfp_ops();
	void *m = ops->create(harness_seed());
	uint64_t rng = harness_seed() ^ 0xADD0ADD0ull;
	struct tally t = {.what = "f32_add"};
	struct tpu_vfp_out o;
	for (unsigned i = 0; i < F32_EDGES; i++)
		for (unsigned j = 0; j < F32_EDGES; j++) {
			probe(ops, m, f32_edges[i], f32_edges[j], 0, &o);
			expect(&t, f32_edges[i], f32_edges[j], 0, o.add,
			       tpu_f32_add(f32_edges[i], f32_edges[j]));
		}
	for (unsigned i = 0; i < RANDOM_CASES; i++) {
		int near = (int)harness_range(&rng, 0, 255);
		uint32_t a = draw_f32(&rng, near), b = draw_f32(&rng, near);
		probe(ops, m, a, b, 0, &o);
		expect(&t, a, b, 0, o.add, tpu_f32_add(a, b));
	}
	report(&t);
	ops->destroy(m);
}
END_TEST

START_TEST(fp_mul)
{
	const struct tpu_vfp_ops *ops = tpu_vfp_ops();
	void *m = ops->create(harness_seed());
	uint64_t rng = harness_seed() ^ 0x3A11ull;
	struct tally t = {.what = "bf16_mul"};
	struct tpu_vfp_out o;
	for (uint32_t a = 0; a <= 0xFFFFu; a++)
		for (unsigned j = 0; j < BF16_EDGES; j++) {
			probe(ops, m, a, bf16_edges[j], 0, &o);
			expect(&t, a, bf16_edges[j], 0, o.mul, tpu_bf16_mul((uint16_t)a, bf16_edges[j]));
		}
	for (unsigned i = 0; i < RANDOM_CASES; i++) {
		uint32_t a = (uint32_t)harness_rand(&rng) & 0xFFFFu;
		uint32_t b = (uint32_t)harness_rand(&rng) & 0xFFFFu;
		probe(ops, m, a, b, 0, &o);
		expect(&t, a, b, 0, o.mul, tpu_bf16_mul((uint16_t)a, (uint16_t)b));
	}
	report(&t);
	ops->destroy(m);
}
END_TEST

START_TEST(fp_mac)
{
	const struct tpu_vfp_ops *ops = tpu_vfp_ops();
	void *m = ops->create(harness_seed());
	uint64_t rng = harness_seed() ^ 0x3ACull;
	struct tally t = {.what = "bf16_mac"};
	struct tpu_vfp_out o;
	for (unsigned i = 0; i < BF16_EDGES; i++)
		for (unsigned j = 0; j < BF16_EDGES; j++)
			for (unsigned k = 0; k < F32_EDGES; k += 3) {
				uint16_t a = bf16_edges[i], b = bf16_edges[j];
				probe(ops, m, a, b, f32_edges[k], &o);
				expect(&t, a, b, f32_edges[k], o.mac, tpu_bf16_mac(f32_edges[k], a, b));
			}
	for (unsigned i = 0; i < RANDOM_CASES; i++) {
		/* the accumulator near the product's exponent, so that sums cancel and round */
		uint16_t a = (uint16_t)(draw_f32(&rng, (int)harness_range(&rng, 60, 190)) >> 16);
		uint16_t b = (uint16_t)(draw_f32(&rng, (int)harness_range(&rng, 60, 190)) >> 16);
		int pe = (int)((a >> 7) & 0xFF) + (int)((b >> 7) & 0xFF) - 127;
		uint32_t c = draw_f32(&rng, pe < 0 ? 0 : pe > 255 ? 255 : pe + 15);
		probe(ops, m, a, b, c, &o);
		expect(&t, a, b, c, o.mac, tpu_bf16_mac(c, a, b));
	}
	report(&t);
	ops->destroy(m);
}
END_TEST

START_TEST(fp_convert)
{
	const struct tpu_vfp_ops *ops = tpu_vfp_ops();
	void *m = ops->create(harness_seed());
	uint64_t rng = harness_seed() ^ 0xCB16ull;
	struct tally tb = {.what = "f32_to_bf16"}, tc = {.what = "bf16_to_f32"};
	struct tpu_vfp_out o;
	/* the low halves that decide the rounding: 0, just below/at/above half, the largest */
	static const uint32_t lows[] = {0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF};
	for (uint32_t h = 0; h <= 0xFFFFu; h++) {
		for (unsigned l = 0; l < sizeof(lows) / sizeof(lows[0]); l++) {
			uint32_t x = h << 16 | lows[l];
			probe(ops, m, x, 0, 0, &o);
			expect(&tb, x, 0, 0, o.bf16, tpu_f32_to_bf16(x));
		}
		probe(ops, m, h, 0, 0, &o);
		expect(&tc, h, 0, 0, o.canon, tpu_bf16_to_f32((uint16_t)h));
	}
	for (unsigned i = 0; i < F32_EDGES; i++) {
		probe(ops, m, f32_edges[i], 0, 0, &o);
		expect(&tb, f32_edges[i], 0, 0, o.bf16, tpu_f32_to_bf16(f32_edges[i]));
	}
	for (unsigned i = 0; i < RANDOM_CASES; i++) {
		uint32_t x = (uint32_t)harness_rand(&rng);
		probe(ops, m, x, 0, 0, &o);
		expect(&tb, x, 0, 0, o.bf16, tpu_f32_to_bf16(x));
	}
	report(&tb);
	report(&tc);
	ops->destroy(m);
}
END_TEST

/* f32_lt against the host's < after the input rules (NaNs left out) */
static void expect_lt(struct tally *t, uint32_t a, uint32_t b, int got)
{
	float x = hr_ftz(tpu_f32_to_float(a)), y = hr_ftz(tpu_f32_to_float(b));
	if (!isnan(x) && !isnan(y))
		expect(t, a, b, 0, (uint32_t)got, x < y);
}

START_TEST(fp_mul32_lt)
{
	const struct tpu_vfp_ops *ops = tpu_vfp_ops();
	void *m = ops->create(harness_seed());
	uint64_t rng = harness_seed() ^ 0x3213ull;
	struct tally tm = {.what = "f32_mul"}, tc = {.what = "f32_mul/C"}, tl = {.what = "f32_lt"};
	struct tpu_vfp_out o;
	/* the product's biased exponent lands near `sum`: 127 (near 1), 1 (the flush edge), 254 */
	static const int sums[] = {127, 1, 2, 0, 254, 255, -1};

	for (unsigned i = 0; i < F32_EDGES; i++)
		for (unsigned j = 0; j < F32_EDGES; j++) {
			uint32_t a = f32_edges[i], b = f32_edges[j];
			probe(ops, m, a, b, 0, &o);
			expect(&tm, a, b, 0, o.mul32, hr_mul32(a, b));
		expect(&tc, a, b, 0, o.mul32, tpu_f32_mul(a, b));
			expect(&tc, a, b, 0, o.mul32, tpu_f32_mul(a, b));
			expect_lt(&tl, a, b, o.lt);
		}
	for (unsigned i = 0; i < 3 * RANDOM_CASES; i++) {
		int sum = sums[i % (sizeof(sums) / sizeof(sums[0]))];
		int ea = (int)harness_range(&rng, 1, 254);
		int eb = sum + 127 - ea + (int)harness_range(&rng, -1, 1);
		uint32_t a = draw_f32(&rng, -1), b = draw_f32(&rng, -1);
		if (eb >= 1 && eb <= 254 && harness_range(&rng, 0, 7) != 0) {
			a = (a & 0x807FFFFFu) | (uint32_t)ea << 23;
			b = (b & 0x807FFFFFu) | (uint32_t)eb << 23;
		}
		probe(ops, m, a, b, 0, &o);
		expect(&tm, a, b, 0, o.mul32, hr_mul32(a, b));
		expect(&tc, a, b, 0, o.mul32, tpu_f32_mul(a, b));
		expect_lt(&tl, a, b, o.lt);
	}
	report(&tm);
	report(&tc);
	report(&tl);
	ops->destroy(m);
}
END_TEST

TPU_TEST_SUITE(suite_rtl_mxu_fp)
static Suite *suite_rtl_mxu_fp(void)
{
	Suite *s = suite_create("rtl_mxu_fp");
	TCase *tc = tcase_create("fp");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fp_add);
	tcase_add_test(tc, fp_mul);
	tcase_add_test(tc, fp_mac);
	tcase_add_test(tc, fp_convert);
	tcase_add_test(tc, fp_mul32_lt);
	suite_add_tcase(s, tc);
	return s;
}
