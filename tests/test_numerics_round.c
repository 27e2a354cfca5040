/* The requantization rounding modes (tpu_requantize_mode, include/tpu/numerics.h) against outside
 * references: FLOAT against the host's IEEE-754 binary32 arithmetic (x converted to float,
 * multiplied by the float scale, rounded half to even by nearbyintf in the default rounding
 * mode), SINGLE against the exact rational bounds of "round half toward +inf" in 128-bit
 * integers, and tpu_float_multiplier against the float it encodes. Random cases and edges; a
 * mismatch count with the first case reported. */
#include <errno.h>
#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "gemm_ref.h"
#include "harness.h"
#include "tpu/numerics.h"

#define RANDOM_CASES 200000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random int32, biased toward small magnitudes (where results are not all saturated). */
static int32_t rnd_x(void)
{
	int bits = (int)(rnd() % 32) + 1;
	int64_t v = (int64_t)(rnd() & ((1ull << bits) - 1));
	if (rnd() & 1)
		v = -v - 1;
	return (int32_t)v;
}

/* A random normal float scale in [2^-32, 2^30), log-uniform, random significand. */
static float rnd_scale(void)
{
	int e = (int)(rnd() % 62) - 32;
	float sig = 1.0f + (float)(rnd() & 0x7fffff) / 8388608.0f;
	return ldexpf(sig, e);
}

static int float_mismatches(int32_t x, float scale, int32_t *got, int32_t *want)
{
	int32_t m;
	int s;
	ck_assert_int_eq(tpu_float_multiplier(scale, &m, &s), 0);
	*got = tpu_requantize_mode(x, m, s, TPU_ROUND_FLOAT);
	*want = ref_float_requant(x, scale);
	return *got != *want;
}

START_TEST(float_mode_vs_host_ieee)
{
	ck_assert_int_eq(fegetround(), FE_TONEAREST);
	long bad = 0;
	int32_t first_x = 0, got = 0, want = 0;
	float first_s = 0;
	for (long i = 0; i < RANDOM_CASES; i++) {
		int32_t x = rnd_x();
		float scale = rnd_scale();
		int32_t g, w;
		if (float_mismatches(x, scale, &g, &w) && bad++ == 0) {
			first_x = x, first_s = scale, got = g, want = w;
		}
	}
	printf("numerics_round: FLOAT vs host IEEE: %d random cases, %ld mismatches\n",
	       RANDOM_CASES, bad);
	ck_assert_msg(bad == 0, "%ld mismatches; first x=%" PRId32 " scale=%a: got %" PRId32
		      ", host %" PRId32, bad, first_x, (double)first_s, got, want);
}
END_TEST

/* Ties and the roundings of fp32(x) and of the product, where double rounding shows. */
START_TEST(float_mode_edges)
{
	static const int32_t xs[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 64,
				     16777217, -16777217, 16777219, 33554435, 1, -1, 2, 3, -3, 5,
				     -5, 7, 255, -255, 1000001, -1000001};
	static const float scales[] = {0.5f, 0.25f, 1.0f, 1.5f, 0x1p-32f, 0x1.fffffep-32f,
				       0x1p-31f, 0x1.000002p-1f, 0x1.fffffep-2f, 0.1f, 0.3f,
				       1.0f / 3.0f, 0x1.fffffep29f, 7.5f, 0x1p-24f, 0x1p-25f};
	long bad = 0;
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		for (size_t j = 0; j < sizeof scales / sizeof scales[0]; j++) {
			int32_t g, w;
			if (float_mismatches(xs[i], scales[j], &g, &w)) {
				bad++;
				printf("x=%" PRId32 " scale=%a: got %" PRId32 ", host %" PRId32 "\n",
				       xs[i], (double)scales[j], g, w);
			}
		}
	}
	ck_assert_int_eq(bad, 0);
	/* exact ties go to even */
	int32_t m;
	int s;
	ck_assert_int_eq(tpu_float_multiplier(0.5f, &m, &s), 0);
	ck_assert_int_eq(tpu_requantize_mode(1, m, s, TPU_ROUND_FLOAT), 0);
	ck_assert_int_eq(tpu_requantize_mode(3, m, s, TPU_ROUND_FLOAT), 2);
	ck_assert_int_eq(tpu_requantize_mode(-3, m, s, TPU_ROUND_FLOAT), -2);
	ck_assert_int_eq(tpu_requantize_mode(5, m, s, TPU_ROUND_FLOAT), 2);
	/* fp32(16777217) = 16777216: the input's own rounding */
	ck_assert_int_eq(tpu_float_multiplier(1.0f, &m, &s), 0);
	ck_assert_int_eq(tpu_requantize_mode(16777217, m, s, TPU_ROUND_FLOAT), 16777216);
	ck_assert_int_eq(tpu_requantize_mode(0, m, s, TPU_ROUND_FLOAT), 0);
	ck_assert_int_eq(tpu_requantize_mode(77, 0, 0, TPU_ROUND_FLOAT), 0);
}
END_TEST

START_TEST(float_multiplier_encoding)
{
	long bad = 0;
	for (long i = 0; i < RANDOM_CASES; i++) {
		float r = rnd_scale();
		int32_t m;
		int s;
		ck_assert_int_eq(tpu_float_multiplier(r, &m, &s), 0);
		/* exact: m x 2^(s-31) is r, m in [2^30, 2^31), its low 7 bits zero */
		if (ldexp((double)m, s - 31) != (double)r || m < (1 << 30) || (m & 0x7f))
			bad++;
	}
	ck_assert_int_eq(bad, 0);
	int32_t m;
	int s;
	ck_assert_int_eq(tpu_float_multiplier(0x1.fffffep-33f, &m, &s), 0); /* below 2^-32 */
	ck_assert_int_eq(m, 0);
	ck_assert_int_eq(s, 0);
	ck_assert_int_eq(tpu_float_multiplier(0x1p-32f, &m, &s), 0);
	ck_assert_int_eq(m, 1 << 30);
	ck_assert_int_eq(s, -31);
	ck_assert_int_eq(tpu_float_multiplier(0x1.fffffep29f, &m, &s), 0);
	ck_assert_int_eq(s, 30);
	ck_assert_int_eq(tpu_float_multiplier(0x1p30f, &m, &s), -EINVAL);
	ck_assert_int_eq(tpu_float_multiplier(0.0f, &m, &s), -EINVAL);
	ck_assert_int_eq(tpu_float_multiplier(-1.0f, &m, &s), -EINVAL);
	ck_assert_int_eq(tpu_float_multiplier(0x1p-149f, &m, &s), -EINVAL); /* subnormal */
	ck_assert_int_eq(tpu_float_multiplier(INFINITY, &m, &s), -EINVAL);
	ck_assert_int_eq(tpu_float_multiplier(NAN, &m, &s), -EINVAL);
}
END_TEST

/* SINGLE: y is right iff (2y - 1) 2^t <= 2 x M < (2y + 1) 2^t with t = 31 - shift (round half
 * toward +inf), or y saturated when the exact value is beyond int32. */
static int single_ok(int32_t x, int32_t m, int shift, int32_t y)
{
	int t = 31 - shift;
	__int128 twice = (__int128)2 * x * m;
	__int128 lo = ((__int128)2 * y - 1) * ((__int128)1 << t);
	__int128 hi = ((__int128)2 * y + 1) * ((__int128)1 << t);
	if (y == INT32_MAX && twice >= lo)
		return 1;
	if (y == INT32_MIN && twice < hi)
		return 1;
	return lo <= twice && twice < hi;
}

START_TEST(single_mode_bounds)
{
	long bad = 0;
	int32_t fx = 0, fm = 0, fy = 0;
	int fs = 0;
	for (long i = 0; i < RANDOM_CASES; i++) {
		int32_t x = rnd_x();
		int32_t m = (int32_t)(rnd() & 0x7fffffff);
		if (rnd() & 1)
			m |= 1 << 30;
		int shift = (int)(rnd() % 62) - 31;
		int32_t y = tpu_requantize_mode(x, m, shift, TPU_ROUND_SINGLE);
		if (!single_ok(x, m, shift, y) && bad++ == 0)
			fx = x, fm = m, fs = shift, fy = y;
	}
	/* ties: +0.5 goes up, -0.5 goes up (toward +inf) */
	ck_assert_int_eq(tpu_requantize_mode(1, 1 << 30, 0, TPU_ROUND_SINGLE), 1);
	ck_assert_int_eq(tpu_requantize_mode(-1, 1 << 30, 0, TPU_ROUND_SINGLE), 0);
	ck_assert_int_eq(tpu_requantize_mode(-3, 1 << 30, 0, TPU_ROUND_SINGLE), -1);
	/* (2^31 - 1) / 4 = 536870911.75; saturation at both ends */
	ck_assert_int_eq(tpu_requantize_mode(INT32_MAX, (1 << 30), -1, TPU_ROUND_SINGLE),
			 536870912);
	ck_assert_int_eq(tpu_requantize_mode(INT32_MAX, INT32_MAX, 30, TPU_ROUND_SINGLE), INT32_MAX);
	ck_assert_int_eq(tpu_requantize_mode(INT32_MIN, INT32_MAX, 30, TPU_ROUND_SINGLE), INT32_MIN);
	ck_assert_msg(bad == 0, "%ld mismatches; first x=%" PRId32 " M=%" PRId32 " s=%d: y=%" PRId32,
		      bad, fx, fm, fs, fy);
}
END_TEST

START_TEST(double_mode_is_tpu_requantize)
{
	for (long i = 0; i < RANDOM_CASES / 10; i++) {
		int32_t x = rnd_x(), m = (int32_t)(rnd() & 0x7fffffff);
		int shift = (int)(rnd() % 62) - 31;
		ck_assert_int_eq(tpu_requantize_mode(x, m, shift, TPU_ROUND_DOUBLE),
				 tpu_requantize(x, m, shift));
	}
}
END_TEST

/* The activation pipeline applies the mode of its output parameters. */
START_TEST(activate_uses_mode)
{
	struct tpu_act_channel ch = {.bias = 0, .multiplier = 1 << 30, .shift = 0}; /* x 0.5 */
	struct tpu_act_output o = {.zero_point = 0, .qmin = -128, .qmax = 127};
	o.round = TPU_ROUND_DOUBLE;
	ck_assert_int_eq(tpu_activate(-3, &ch, &o, NULL), -1); /* SRDHM: -1.5 toward +inf */
	o.round = TPU_ROUND_SINGLE;
	ck_assert_int_eq(tpu_activate(-3, &ch, &o, NULL), -1);
	o.round = TPU_ROUND_FLOAT;
	ck_assert_int_eq(tpu_activate(-3, &ch, &o, NULL), -2); /* half to even */
	ck_assert_int_eq(tpu_activate(5, &ch, &o, NULL), 2);
	o.round = TPU_ROUND_DOUBLE;
	ck_assert_int_eq(tpu_activate(5, &ch, &o, NULL), 3);
}
END_TEST

TPU_TEST_SUITE(suite_numerics_round)
static Suite *suite_numerics_round(void)
{
	Suite *s = suite_create("numerics_round");
	TCase *tc = tcase_create("modes");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, float_mode_vs_host_ieee);
	tcase_add_test(tc, float_mode_edges);
	tcase_add_test(tc, float_multiplier_encoding);
	tcase_add_test(tc, single_mode_bounds);
	tcase_add_test(tc, double_mode_is_tpu_requantize);
	tcase_add_test(tc, activate_uses_mode);
	suite_add_tcase(s, tc);
	return s;
}
