/* Exact int8 numerics of the tpu (docs/spec.md "Numerics"): TFLite-Micro integer semantics with
 * gemmlowp double rounding by default, and the two other requantization roundings that
 * frameworks use (enum tpu_round). This is the golden model's arithmetic; the RTL activation
 * pipeline and the device backends must agree with it bit for bit. Pure functions,
 * thread-safe. */
#ifndef TPU_NUMERICS_H
#define TPU_NUMERICS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SaturatingRoundingDoublingHighMul: round(a*b / 2^31) with ties toward +inf; the only overflow
 * case, INT32_MIN * INT32_MIN, saturates to INT32_MAX. */
int32_t tpu_srdhm(int32_t a, int32_t b);

/* RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero. exponent in 0..31. */
int32_t tpu_rdbpot(int32_t x, int exponent);

/* MultiplyByQuantizedMultiplier (double rounding): for shift > 0 the input is first multiplied by
 * 2^shift in wrapping int32 arithmetic, then tpu_srdhm(., multiplier), then tpu_rdbpot(., -shift)
 * for shift < 0. multiplier in 0..INT32_MAX, shift in TPU_SHIFT_MIN..TPU_SHIFT_MAX. */
int32_t tpu_requantize(int32_t x, int32_t multiplier, int shift);

#define TPU_SHIFT_MIN (-31)
#define TPU_SHIFT_MAX 30

/* How the activation pipeline requantizes x by the real multiplier r = multiplier x 2^(shift-31)
 * (docs/spec.md 7, "Rounding modes"). Each mode reproduces one family of kernels exactly:
 * - DOUBLE: TFLite's reference kernels (gemmlowp: SaturatingRoundingDoublingHighMul, then
 *   RoundingDivideByPOT); the default and the contract of the shipped models.
 * - SINGLE: TFLite built with TFLITE_SINGLE_ROUNDING and ruy (LiteRT's optimized kernels):
 *   one rounding of the 64-bit product, (x * multiplier + 2^(30-shift)) >> (31-shift), ties
 *   toward +inf.
 * - FLOAT: ONNX Runtime's QLinear kernels (MLAS): fp32(fp32(x) * r), then rounded to an integer
 *   half to even; r is an fp32 value (tpu_float_multiplier gives its exact multiplier/shift). */
enum tpu_round {
	TPU_ROUND_DOUBLE = 0,
	TPU_ROUND_SINGLE = 1,
	TPU_ROUND_FLOAT = 2,
};
#define TPU_ROUND_MAX TPU_ROUND_FLOAT

/* x requantized by multiplier x 2^(shift-31) with rounding mode mode (an unknown mode is taken
 * as DOUBLE); a result beyond int32 saturates. tpu_requantize_mode(x, M, s, TPU_ROUND_DOUBLE)
 * = tpu_requantize(x, M, s). */
int32_t tpu_requantize_mode(int32_t x, int32_t multiplier, int shift, enum tpu_round mode);

/* The fp32 scale r as (multiplier, shift) with r = multiplier x 2^(shift-31) exactly: the
 * multiplier is r's 24-bit significand << 7 (in [2^30, 2^31-1]); r below 2^-32 (which rounds
 * every int32 to 0 in FLOAT mode) gives (0, 0). Returns 0, or -EINVAL when r is negative, zero,
 * subnormal, not finite, or needs a shift above TPU_SHIFT_MAX (r >= 2^30). */
int tpu_float_multiplier(float r, int32_t *multiplier, int *shift);

/* QuantizeMultiplier: the real multiplier r >= 0 as (multiplier, shift) with multiplier in
 * [2^30, 2^31-1] (or 0), round half away from zero, tiny values flushed to 0.
 * Returns 0, or -EINVAL when r is negative, not finite, or needs a shift above TPU_SHIFT_MAX. */
int tpu_quantize_multiplier(double r, int32_t *multiplier, int *shift);

/* Per-channel activation parameters of one output channel, plus the layer-wide output values. */
struct tpu_act_channel {
	int32_t bias;
	int32_t multiplier;
	int32_t shift;
};
struct tpu_act_output {
	int32_t zero_point; /* -128..127 */
	int32_t qmin;       /* -128..127, qmin <= qmax */
	int32_t qmax;
	const int8_t *lut;  /* 256 entries, out = lut[v + 128]; NULL = no LUT */
	enum tpu_round round; /* requantization rounding (0 = TPU_ROUND_DOUBLE) */
};

/* The whole activation pipeline for one accumulator value:
 * x = acc + bias (wrapping), y = tpu_requantize_mode(x, M, s, round), z = y + zero_point (exact),
 * v = clamp(z, qmin, qmax), out = lut ? lut[v + 128] : v.
 * *saturated (may be NULL) is set when the clamp changed z. */
int8_t tpu_activate(int32_t acc, const struct tpu_act_channel *ch, const struct tpu_act_output *out,
		    bool *saturated);

/* Two's-complement wrapping int32 add and multiply-accumulate (the MXU's accumulator). */
static inline int32_t tpu_wrap_add(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* Largest K for which a K-term int8 dot product can never overflow int32:
 * 128 * 128 * K <= 2^31 - 1. */
#define TPU_K_NO_OVERFLOW 131071u

#ifdef __cplusplus
}
#endif
#endif /* TPU_NUMERICS_H */
