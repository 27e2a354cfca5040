/* bf16 x bf16 -> fp32 numerics of the tpu (docs/spec.md "7.1 bf16 numerics"): exact products,
 * fp32 sums rounded to nearest even in the array's column order, subnormals flushed to zero, one
 * canonical NaN. This is the golden model's arithmetic for the mixed-precision mode; the RTL and
 * the device backends must agree with it bit for bit.
 *
 * Values are bit patterns: a bf16 is a uint16_t (1 sign, 8 exponent, 7 fraction bits), an fp32
 * is a uint32_t (1-8-23). The arithmetic is integer-only and does not depend on the host's float
 * unit, its rounding mode or its flush-to-zero setting. Pure functions, thread-safe. */
#ifndef TPU_BF16_H
#define TPU_BF16_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one NaN every operation returns (quiet, positive, zero payload). */
#define TPU_F32_CANONICAL_NAN 0x7FC00000u
#define TPU_BF16_CANONICAL_NAN 0x7FC0u
#define TPU_F32_INF 0x7F800000u
#define TPU_BF16_INF 0x7F80u

static inline bool tpu_f32_is_canonical_nan(uint32_t x)
{
	return x == TPU_F32_CANONICAL_NAN;
}

static inline bool tpu_bf16_is_canonical_nan(uint16_t x)
{
	return x == TPU_BF16_CANONICAL_NAN;
}

/* Any NaN (exponent all ones, fraction non-zero), canonical or not. */
static inline bool tpu_f32_is_nan(uint32_t x)
{
	return (x & 0x7FFFFFFFu) > TPU_F32_INF;
}

/* An fp32 as every operation reads it: a subnormal becomes the zero of its sign, any NaN becomes
 * TPU_F32_CANONICAL_NAN, everything else is returned unchanged. */
uint32_t tpu_f32_canon(uint32_t x);

/* bf16 -> fp32, exact (the bf16 bits become the fp32's high half) after the input rules: a
 * subnormal bf16 gives the zero of its sign, any NaN gives TPU_F32_CANONICAL_NAN. */
uint32_t tpu_bf16_to_f32(uint16_t a);

/* fp32 -> bf16, round to nearest, ties to even, on the 16 low bits. The input is read through
 * tpu_f32_canon (a subnormal fp32 gives a signed zero, never a bf16 subnormal nor the smallest
 * normal it would round to); a finite value that rounds to 2^128 or beyond gives infinity of its
 * sign; any NaN gives TPU_BF16_CANONICAL_NAN. */
uint16_t tpu_f32_to_bf16(uint32_t x);

/* fp32 a + b, one rounding to nearest even. Inputs through tpu_f32_canon. Results: NaN in, or
 * inf + -inf, gives TPU_F32_CANONICAL_NAN; a sum whose exact value is below 2^-126 in magnitude
 * gives the zero of the exact value's sign; an exact zero is +0 unless both addends are -0
 * (IEEE 754 round to nearest: x + -x = +0, -0 + -0 = -0); a rounded magnitude of 2^128 or beyond
 * gives infinity. Commutative. */
uint32_t tpu_f32_add(uint32_t a, uint32_t b);

/* bf16 a * b as fp32. The significand product (8 x 8 bits) is exact in fp32, so there is no
 * rounding: a product of 2^128 or beyond gives infinity, one below 2^-126 gives the zero of the
 * product's sign. Inputs through the bf16 input rules (tpu_bf16_to_f32). 0 * inf gives
 * TPU_F32_CANONICAL_NAN; inf * (non-zero) gives infinity of the product's sign; NaN in gives
 * TPU_F32_CANONICAL_NAN. */
uint32_t tpu_bf16_mul(uint16_t a, uint16_t b);

/* fp32 a * b (the scale step of ACTIVATE's float path, spec 6.12): inputs through
 * tpu_f32_canon, the exact product rounded once to nearest even. An exact product below 2^-126
 * in magnitude gives the zero of its sign (decided before rounding: a product just below 2^-126
 * that would round up to it is still a zero); a rounded magnitude of 2^128 or beyond gives
 * infinity of the product's sign; 0 * inf and NaN in give TPU_F32_CANONICAL_NAN; inf * (non-zero)
 * gives infinity of the product's sign. Commutative. */
uint32_t tpu_f32_mul(uint32_t a, uint32_t b);

/* One PE's step: tpu_f32_add(acc, tpu_bf16_mul(a, b)). At most one rounding, the addition's: the
 * product is exact except where it leaves fp32's range, where it becomes infinity or a signed zero
 * before the addition. Where the product is a normal number this equals a fused multiply-add
 * (with the flush-to-zero of acc and of the result); where it underflows it does not: +0 plus a
 * tiny negative product is +0 here (the product is -0), -0 after an FMA's flush. */
uint32_t tpu_bf16_mac(uint32_t acc, uint16_t a, uint16_t b);

/* One column of the array over one weight tile: acc = acc_in, then for k = 0 .. n-1 in that order
 * acc = tpu_bf16_mac(acc, a[k], b[k]). acc_in is +0 (0x00000000) for a fresh column sum, or the
 * partial sum fed into the column's top. n = 0 returns acc_in unchanged. */
uint32_t tpu_bf16_dot(const uint16_t *a, const uint16_t *b, unsigned n, uint32_t acc_in);

/* A K-long dot product as a MATMUL sequence over weight tiles of `tile` rows does it: tile t
 * covers k = t*tile .. t*tile+tile-1; its column sum s_t = tpu_bf16_dot(.., +0) runs over all
 * `tile` PEs, the rows beyond K of the last tile being zero padding (+0 x +0 products). Then
 * tile by tile into the accumulator: without `accumulate` the first tile's s_0 is stored as is
 * (acc_in is ignored), with it acc = tpu_f32_add(acc_in, s_0); every later tile adds
 * acc = tpu_f32_add(acc, s_t). k = 0 returns acc_in with `accumulate`, +0 without.
 * tile 0 is one tile of all k rows. */
uint32_t tpu_bf16_dot_tiled(const uint16_t *a, const uint16_t *b, unsigned k, unsigned tile,
			    uint32_t acc_in, bool accumulate);

/* Host float <-> fp32 bits for the driver and the CLI (memcpy, no arithmetic; a host with
 * IEEE-754 binary32 float is assumed). The model itself never uses host float. */
uint32_t tpu_f32_from_float(float f);
float tpu_f32_to_float(uint32_t x);

#ifdef __cplusplus
}
#endif
#endif /* TPU_BF16_H */
