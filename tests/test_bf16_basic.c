/* Directed cases of the bf16 numerics, each computed by hand: the worked examples of docs/spec.md
 * "7.1 bf16 numerics" plus one case per special-value rule. They do not use the host's float, so
 * they fail on their own if the model and the host reference (test_bf16_ieee.c) share a mistake.
 * Values in hex; 1.0 is 0x3F80 in bf16 and 0x3F800000 in fp32. */
#include "harness.h"
#include "tpu/bf16.h"

#define ck_f32(got, want) ck_assert_uint_eq((got), (want))

START_TEST(product_is_exact)
{
	/* (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14: fraction bits 17 and 9, beyond bf16's 7 */
	ck_f32(tpu_bf16_mul(0x3F81, 0x3F81), 0x3F820200u);
	/* 1.5 * -3 = -4.5 */
	ck_f32(tpu_bf16_mul(0x3FC0, 0xC040), 0xC0900000u);
	/* (2 - 2^-7)^2 = 4 - 2^-5 + 2^-14: the [2, 4) case, 16 significant bits */
	ck_f32(tpu_bf16_mul(0x3FFF, 0x3FFF), 0x407E0100u);
	/* rounding it back to bf16 is where precision is lost */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x3F820200u), 0x3F82);
}
END_TEST

START_TEST(product_range)
{
	ck_f32(tpu_bf16_mul(0x7F00, 0x4000), TPU_F32_INF); /* 2^127 * 2 */
	ck_f32(tpu_bf16_mul(0xFF00, 0x4000), 0xFF800000u); /* -inf */
	ck_f32(tpu_bf16_mul(0x7F7F, 0x3F80), 0x7F7F0000u); /* in range */
	ck_f32(tpu_bf16_mul(0x0080, 0x3F00), 0x00000000u); /* 2^-127 flushed */
	ck_f32(tpu_bf16_mul(0x8080, 0x3F00), 0x80000000u); /* keeps its sign */
	ck_f32(tpu_bf16_mul(0x0080, 0x3F80), 0x00800000u); /* 2^-126 stays */
	ck_f32(tpu_bf16_mul(0x0001, 0x7F00), 0x00000000u); /* subnormal in: 0 */
	ck_f32(tpu_bf16_mul(0x807F, 0x3F80), 0x80000000u); /* -subnormal: -0 */
}
END_TEST

START_TEST(product_specials)
{
	ck_f32(tpu_bf16_mul(0x0000, 0x7F80), TPU_F32_CANONICAL_NAN); /* 0 * inf */
	ck_f32(tpu_bf16_mul(0x0001, 0xFF80), TPU_F32_CANONICAL_NAN); /* flushed subnormal * inf */
	ck_f32(tpu_bf16_mul(0xBF80, 0x7F80), 0xFF800000u);	     /* -1 * inf */
	ck_f32(tpu_bf16_mul(0xFFA5, 0x3F80), TPU_F32_CANONICAL_NAN); /* NaN payload dropped */
	ck_f32(tpu_bf16_mul(0x7F81, 0x0000), TPU_F32_CANONICAL_NAN);
	ck_f32(tpu_bf16_mul(0x8000, 0x3F80), 0x80000000u); /* -0 * 1 = -0 */
	ck_f32(tpu_bf16_mul(0x8000, 0xBF80), 0x00000000u); /* -0 * -1 = +0 */
}
END_TEST

START_TEST(add_ties_to_even)
{
	/* 1 + 2^-24 is half an ulp: tie, the even neighbour 1.0 wins */
	ck_f32(tpu_f32_add(0x3F800000u, 0x33800000u), 0x3F800000u);
	/* (1 + 2^-23) + 2^-24: tie, odd LSB, rounds up to 1 + 2^-22 */
	ck_f32(tpu_f32_add(0x3F800001u, 0x33800000u), 0x3F800002u);
	/* (2 - 2^-23) + 2^-24: tie, odd, the carry out gives 2.0 */
	ck_f32(tpu_f32_add(0x3FFFFFFFu, 0x33800000u), 0x40000000u);
	/* a hair above the tie: rounds up */
	ck_f32(tpu_f32_add(0x3F800000u, 0x33800001u), 0x3F800001u);
}
END_TEST

START_TEST(add_sticky_only)
{
	/* 1 - 2^-30: b is 30 places down, only the sticky bit is left; the result rounds to 1.0 */
	ck_f32(tpu_f32_add(0x3F800000u, 0xB0800000u), 0x3F800000u);
	/* 1 + 2^-30 likewise */
	ck_f32(tpu_f32_add(0x3F800000u, 0x30800000u), 0x3F800000u);
	/* 1 - 2^-25 lies halfway between 1 - 2^-24 (odd fraction) and 1.0 (even): 1.0 */
	ck_f32(tpu_f32_add(0x3F800000u, 0xB3000000u), 0x3F800000u);
	/* 1 - 2^-25 - 2^-48 is below that tie: 1 - 2^-24 */
	ck_f32(tpu_f32_add(0x3F800000u, 0xB3000001u), 0x3F7FFFFFu);
}
END_TEST

START_TEST(add_cancellation)
{
	ck_f32(tpu_f32_add(0x3F800001u, 0xBF800000u), 0x34000000u); /* 2^-23, exact */
	ck_f32(tpu_f32_add(0x3F800000u, 0xBF7FFFFFu), 0x33800000u); /* 2^-24, exact */
	ck_f32(tpu_f32_add(0x3F800000u, 0xBF800000u), 0x00000000u); /* x + -x = +0 */
	ck_f32(tpu_f32_add(0xBF800000u, 0x3F800000u), 0x00000000u);
	ck_f32(tpu_f32_add(0x00000000u, 0x80000000u), 0x00000000u); /* +0 + -0 = +0 */
	ck_f32(tpu_f32_add(0x80000000u, 0x80000000u), 0x80000000u); /* -0 + -0 = -0 */
	ck_f32(tpu_f32_add(0x80000000u, 0x80000001u), 0x80000000u); /* -0 + -subnormal */
	ck_f32(tpu_f32_add(0x00000000u, 0x80000001u), 0x00000000u); /* +0 + -subnormal */
	/* 1.5 * 2^-126 - 2^-126 = 2^-127, subnormal: flushed, sign of the exact value */
	ck_f32(tpu_f32_add(0x00C00000u, 0x80800000u), 0x00000000u);
	ck_f32(tpu_f32_add(0x80C00000u, 0x00800000u), 0x80000000u);
	/* a zero addend returns the other one unchanged (normal) or flushed (subnormal) */
	ck_f32(tpu_f32_add(0x80000000u, 0x12345678u), 0x12345678u);
	ck_f32(tpu_f32_add(0x00000000u, 0x00400000u), 0x00000000u);
}
END_TEST

START_TEST(add_range_and_specials)
{
	/* largest normal + half its ulp (2^103): tie, odd LSB, rounds up to 2^128 = inf */
	ck_f32(tpu_f32_add(0x7F7FFFFFu, 0x73000000u), TPU_F32_INF);
	ck_f32(tpu_f32_add(0x7F7FFFFFu, 0x72FFFFFFu), 0x7F7FFFFFu);
	ck_f32(tpu_f32_add(0x7F000000u, 0x7F000000u), TPU_F32_INF); /* 2^127 + 2^127 */
	ck_f32(tpu_f32_add(0xFF000000u, 0xFF000000u), 0xFF800000u);
	ck_f32(tpu_f32_add(TPU_F32_INF, 0xFF800000u), TPU_F32_CANONICAL_NAN); /* inf - inf */
	ck_f32(tpu_f32_add(TPU_F32_INF, TPU_F32_INF), TPU_F32_INF);
	ck_f32(tpu_f32_add(0xFF800000u, 0x7F7FFFFFu), 0xFF800000u);
	ck_f32(tpu_f32_add(0xFFA5A5A5u, 0x3F800000u), TPU_F32_CANONICAL_NAN);
	ck_f32(tpu_f32_add(0x7F800001u, TPU_F32_INF), TPU_F32_CANONICAL_NAN);
}
END_TEST

/* fp32 x fp32 (ACTIVATE's scale step): one rounding of the exact 48-bit product. */
START_TEST(mul32_rounding)
{
	/* (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: below half an ulp, down */
	ck_f32(tpu_f32_mul(0x3F800001u, 0x3F800001u), 0x3F800002u);
	/* (1 + 2^-23) * 1.5 = 1.5 + 2^-23 + 2^-24: a tie with an odd LSB, up */
	ck_f32(tpu_f32_mul(0x3F800001u, 0x3FC00000u), 0x3FC00002u);
	/* (1 + 3 * 2^-23) * 1.5 = 1.5 + 4 * 2^-23 + 2^-24: a tie with an even LSB, kept */
	ck_f32(tpu_f32_mul(0x3F800003u, 0x3FC00000u), 0x3FC00004u);
	/* (2 - 2^-23)(1 + 2^-23) = 2 + 2^-23 - 2^-46: into [2, 4), under half its ulp: 2.0 */
	ck_f32(tpu_f32_mul(0x3FFFFFFFu, 0x3F800001u), 0x40000000u);
	/* 6.0 * 0.5 = 3.0, -1.5 * 4 = -6 */
	ck_f32(tpu_f32_mul(0x40C00000u, 0x3F000000u), 0x40400000u);
	ck_f32(tpu_f32_mul(0xBFC00000u, 0x40800000u), 0xC0C00000u);
}
END_TEST

START_TEST(mul32_range_and_specials)
{
	/* 2^-126 (1 - 2^-24): exactly below 2^-126, a zero (IEEE: 0x00800000, rounded up) */
	ck_f32(tpu_f32_mul(0x00800000u, 0x3F7FFFFFu), 0x00000000u);
	ck_f32(tpu_f32_mul(0x80800000u, 0x3F7FFFFFu), 0x80000000u);
	ck_f32(tpu_f32_mul(0x00800000u, 0x3F800000u), 0x00800000u); /* 2^-126 stays */
	/* (2 - 2^-22)(1 + 2^-23) 2^127 = 2^128 - 2^82: rounds to 2^128, infinity */
	ck_f32(tpu_f32_mul(0x7F7FFFFEu, 0x3F800001u), TPU_F32_INF);
	ck_f32(tpu_f32_mul(0xFF7FFFFEu, 0x3F800001u), 0xFF800000u);
	ck_f32(tpu_f32_mul(0x7F7FFFFFu, 0x3F800000u), 0x7F7FFFFFu); /* largest * 1 */
	ck_f32(tpu_f32_mul(0x7F000000u, 0x40000000u), TPU_F32_INF); /* 2^127 * 2 */
	ck_f32(tpu_f32_mul(0x00000000u, 0x7F800000u), TPU_F32_CANONICAL_NAN); /* 0 * inf */
	ck_f32(tpu_f32_mul(0x007FFFFFu, 0xFF800000u), TPU_F32_CANONICAL_NAN); /* subnormal * inf */
	ck_f32(tpu_f32_mul(0x7F800000u, 0xC0000000u), 0xFF800000u);	      /* inf * -2 */
	ck_f32(tpu_f32_mul(0xFFA5A5A5u, 0x3F800000u), TPU_F32_CANONICAL_NAN); /* NaN payload */
	ck_f32(tpu_f32_mul(0x80000000u, 0x40A00000u), 0x80000000u);	      /* -0 * 5 = -0 */
	ck_f32(tpu_f32_mul(0x807FFFFFu, 0xBF800000u), 0x00000000u);	      /* -subnormal * -1 */
}
END_TEST

START_TEST(to_bf16_rounding)
{
	ck_assert_uint_eq(tpu_f32_to_bf16(0x3F808000u), 0x3F80); /* tie, even stays */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x3F818000u), 0x3F82); /* tie, odd rounds up */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x3F808001u), 0x3F81); /* above the tie */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x3F807FFFu), 0x3F80); /* below it */
	ck_assert_uint_eq(tpu_f32_to_bf16(0xBF818000u), 0xBF82); /* symmetric in the sign */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x3FFF8000u), 0x4000); /* carry into the exponent */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x7F7FFFFFu), 0x7F80); /* overflow by rounding */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x7F7F7FFFu), 0x7F7F);
	ck_assert_uint_eq(tpu_f32_to_bf16(0xFF7F8000u), 0xFF80);
	ck_assert_uint_eq(tpu_f32_to_bf16(0x7F800000u), 0x7F80);
}
END_TEST

START_TEST(to_bf16_specials)
{
	/* an fp32 subnormal is flushed before rounding, so 0x007FFFFF is 0 (not 0x0080) */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x007FFFFFu), 0x0000);
	ck_assert_uint_eq(tpu_f32_to_bf16(0x807FFFFFu), 0x8000);
	ck_assert_uint_eq(tpu_f32_to_bf16(0x00800000u), 0x0080);
	/* (x + 0x7FFF + lsb) >> 16 alone would give inf here, and 0 for 0xFFFFFFFF */
	ck_assert_uint_eq(tpu_f32_to_bf16(0x7F800001u), TPU_BF16_CANONICAL_NAN);
	ck_assert_uint_eq(tpu_f32_to_bf16(0xFFFFFFFFu), TPU_BF16_CANONICAL_NAN);
	ck_assert_uint_eq(tpu_f32_to_bf16(0xFFC00000u), TPU_BF16_CANONICAL_NAN);
}
END_TEST

START_TEST(bf16_to_f32_rules)
{
	ck_f32(tpu_bf16_to_f32(0x3F81), 0x3F810000u);
	ck_f32(tpu_bf16_to_f32(0x0080), 0x00800000u);
	ck_f32(tpu_bf16_to_f32(0x007F), 0x00000000u);
	ck_f32(tpu_bf16_to_f32(0x8001), 0x80000000u);
	ck_f32(tpu_bf16_to_f32(0xFF80), 0xFF800000u);
	ck_f32(tpu_bf16_to_f32(0xFFC1), TPU_F32_CANONICAL_NAN);
	ck_f32(tpu_f32_canon(0x80400000u), 0x80000000u);
	ck_f32(tpu_f32_canon(0x7FC00001u), TPU_F32_CANONICAL_NAN);
	ck_assert(tpu_f32_is_canonical_nan(tpu_f32_add(TPU_F32_INF, 0xFF800000u)));
	ck_assert(!tpu_f32_is_canonical_nan(0xFFC00000u));
	ck_assert(tpu_f32_is_nan(0xFFC00000u));
	ck_assert(!tpu_f32_is_nan(TPU_F32_INF));
	ck_assert(tpu_bf16_is_canonical_nan(tpu_f32_to_bf16(0x7FFFFFFFu)));
}
END_TEST

START_TEST(mac_flushes_the_product_first)
{
	/* -2^-126 * 0.5 = -2^-127 flushes to -0, and +0 + -0 = +0 (an FMA would give -0) */
	ck_f32(tpu_bf16_mac(0x00000000u, 0x8080, 0x3F00), 0x00000000u);
	ck_f32(tpu_bf16_mac(0x80000000u, 0x8080, 0x3F00), 0x80000000u);
	/* 1 + 1.5 * -3 = -3.5 */
	ck_f32(tpu_bf16_mac(0x3F800000u, 0x3FC0, 0xC040), 0xC0600000u);
}
END_TEST

START_TEST(dot_column_order)
{
	/* 1 + 2^-24 + 2^-24 in the column order: each step is a tie to the even 1.0 */
	static const uint16_t a[] = {0x3F80, 0x3380, 0x3380};
	static const uint16_t b[] = {0x3F80, 0x3F80, 0x3F80};
	static const uint16_t a_rev[] = {0x3380, 0x3380, 0x3F80};
	ck_f32(tpu_bf16_dot(a, b, 3, 0), 0x3F800000u);
	/* the other order sums 2^-23 first, which 1.0 then keeps: 1 + 2^-23 */
	ck_f32(tpu_bf16_dot(a_rev, b, 3, 0), 0x3F800001u);
	ck_f32(tpu_bf16_dot(a, b, 0, 0x12345678u), 0x12345678u);
	ck_f32(tpu_bf16_dot(a, b, 1, 0x3F800000u), 0x40000000u); /* partial sum fed in */
}
END_TEST

START_TEST(dot_signed_zeros)
{
	/* all products -0: from +0 the column gives +0, from a fed-in -0 it stays -0 */
	static const uint16_t a[] = {0x8000, 0x3F80};
	static const uint16_t b[] = {0x3F80, 0x8000};
	ck_f32(tpu_bf16_dot(a, b, 2, 0x00000000u), 0x00000000u);
	ck_f32(tpu_bf16_dot(a, b, 2, 0x80000000u), 0x80000000u);
	/* the tiled form: overwrite stores the tile's +0 sum; accumulating it into -0 gives +0 */
	ck_f32(tpu_bf16_dot_tiled(a, b, 2, 2, 0, false), 0x00000000u);
	ck_f32(tpu_bf16_dot_tiled(a, b, 2, 2, 0x80000000u, true), 0x00000000u);
	/* a -0 from +0: -1.5 * 2^-126 + 2^-126 = -2^-127 is flushed to -0 */
	static const uint16_t c[] = {0x80C0, 0x0080};
	static const uint16_t ones[] = {0x3F80, 0x3F80};
	ck_f32(tpu_bf16_dot(c, ones, 2, 0), 0x80000000u);
	ck_f32(tpu_bf16_dot_tiled(c, ones, 2, 2, 0, false), 0x80000000u);
	/* with a tile of 3 the padded PE adds +0: -0 + +0 = +0 */
	ck_f32(tpu_bf16_dot_tiled(c, ones, 2, 3, 0, false), 0x00000000u);
}
END_TEST

START_TEST(dot_tiled_order)
{
	/* tile 2: s_0 = 1 + 2^-24 = 1.0 (tie), s_1 = 2^-24 + 2^-24 = 2^-23, acc = 1 + 2^-23 */
	static const uint16_t a[] = {0x3F80, 0x3380, 0x3380, 0x3380};
	static const uint16_t b[] = {0x3F80, 0x3F80, 0x3F80, 0x3F80};
	ck_f32(tpu_bf16_dot_tiled(a, b, 4, 2, 0, false), 0x3F800001u);
	/* one tile of 4 is one column: every 2^-24 is lost */
	ck_f32(tpu_bf16_dot_tiled(a, b, 4, 4, 0, false), 0x3F800000u);
	ck_f32(tpu_bf16_dot(a, b, 4, 0), 0x3F800000u);
	/* accumulate into 2.0: 2 + 1 = 3, then 3 + 2^-23 is a tie (half of 3's ulp 2^-22) and
	 * 3 = 0x40400000 is the even neighbour */
	ck_f32(tpu_bf16_dot_tiled(a, b, 4, 2, 0x40000000u, true), 0x40400000u);
	/* K = 3 with tile 2: the last tile has one padded PE, s_1 = 2^-24 */
	ck_f32(tpu_bf16_dot_tiled(a, b, 3, 2, 0, false), 0x3F800000u);
	ck_f32(tpu_bf16_dot_tiled(a, b, 0, 2, 0x3F800000u, true), 0x3F800000u);
	ck_f32(tpu_bf16_dot_tiled(a, b, 0, 2, 0x3F800000u, false), 0x00000000u);
}
END_TEST

START_TEST(host_float_bits)
{
	ck_f32(tpu_f32_from_float(1.0f), 0x3F800000u);
	ck_f32(tpu_f32_from_float(-0.0f), 0x80000000u);
	ck_assert(tpu_f32_to_float(0xC0900000u) == -4.5f);
}
END_TEST

TPU_TEST_SUITE(suite_bf16_basic)
static Suite *suite_bf16_basic(void)
{
	Suite *s = suite_create("bf16_basic");
	TCase *tc = tcase_create("directed");
	tcase_add_test(tc, product_is_exact);
	tcase_add_test(tc, product_range);
	tcase_add_test(tc, product_specials);
	tcase_add_test(tc, add_ties_to_even);
	tcase_add_test(tc, add_sticky_only);
	tcase_add_test(tc, add_cancellation);
	tcase_add_test(tc, add_range_and_specials);
	tcase_add_test(tc, mul32_rounding);
	tcase_add_test(tc, mul32_range_and_specials);
	tcase_add_test(tc, to_bf16_rounding);
	tcase_add_test(tc, to_bf16_specials);
	tcase_add_test(tc, bf16_to_f32_rules);
	tcase_add_test(tc, mac_flushes_the_product_first);
	tcase_add_test(tc, dot_column_order);
	tcase_add_test(tc, dot_signed_zeros);
	tcase_add_test(tc, dot_tiled_order);
	tcase_add_test(tc, host_float_bits);
	suite_add_tcase(s, tc);
	return s;
}
