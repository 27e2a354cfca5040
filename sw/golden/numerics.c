/* The golden model's exact arithmetic; see include/tpu/numerics.h and docs/spec.md. */
#include <errno.h>
#include <math.h>

#include "tpu/numerics.h"

int32_t tpu_srdhm(int32_t a, int32_t b)
{
	if (a == INT32_MIN && b == INT32_MIN)
		return INT32_MAX;
	int64_t ab = (int64_t)a * (int64_t)b;
	/* gemmlowp's nudge + truncating division equals floor((ab + 2^30) / 2^31). */
	int64_t nudge = ab >= 0 ? (1ll << 30) : (1 - (1ll << 30));
	return (int32_t)((ab + nudge) / (1ll << 31));
}

int32_t tpu_rdbpot(int32_t x, int exponent)
{
	int32_t mask = (int32_t)((1ll << exponent) - 1);
	int32_t remainder = x & mask;
	int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
	/* >> on a negative int32 is arithmetic with GCC and Clang (documented implementation choice). */
	return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t tpu_requantize(int32_t x, int32_t multiplier, int shift)
{
	int left = shift > 0 ? shift : 0;
	int right = shift > 0 ? 0 : -shift;
	int32_t x1 = (int32_t)((uint32_t)x << left); /* wrapping, never UB */
	return tpu_rdbpot(tpu_srdhm(x1, multiplier), right);
}

static int32_t sat32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* TFLite's single rounding: one rounding of the 64-bit product, ties toward +inf. */
static int32_t requantize_single(int32_t x, int32_t multiplier, int shift)
{
	int total = 31 - shift; /* 1..62 */
	int64_t p = (int64_t)x * multiplier; /* |p| <= 2^62: p + 2^61 cannot overflow */
	/* >> on a negative int64 is arithmetic with GCC and Clang (documented implementation
	 * choice), i.e. floor division. */
	return sat32((p + (1ll << (total - 1))) >> total);
}

/* v rounded to 24 significant bits, half to even (an fp32 significand): returns the rounded
 * value's top bits and adds the bits dropped to *e (value = result x 2^*e). */
static uint64_t round_sig24(uint64_t v, int *e)
{
	int bits = 64 - __builtin_clzll(v | 1);
	if (bits <= 24)
		return v;
	int n = bits - 24;
	uint64_t q = v >> n, rem = v & ((1ull << n) - 1), half = 1ull << (n - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++; /* 2^24 is still exact: no renormalisation needed */
	*e += n;
	return q;
}

/* ONNX Runtime's float requantization, in exact integer steps: fp32(x) (x rounded to 24
 * significant bits), times the scale's significand, the product rounded to 24 significant bits
 * (the fp32 multiply; no result is subnormal, as |r| >= 2^-32 when multiplier > 0), then
 * rounded to an integer half to even. The rounding of a magnitude half to even is the same for
 * both signs, so the sign is set aside. */
static int32_t requantize_float(int32_t x, int32_t multiplier, int shift)
{
	if (x == 0 || multiplier <= 0)
		return 0;
	uint64_t mag = x < 0 ? (uint64_t)(-(int64_t)x) : (uint64_t)x;
	int e = 0;
	mag = round_sig24(mag, &e);
	mag = round_sig24(mag * (uint64_t)multiplier, &e); /* < 2^25 x 2^31 */
	/* value = mag x 2^(e + shift - 31) */
	int right = 31 - shift - e;
	int64_t y;
	if (right <= 0) {
		/* an integer already: at least 2^31 when mag << -right overflows int32 */
		y = (-right >= 32 || mag >= (1ull << (32 + right))) ? (1ll << 32) : (int64_t)(mag << -right);
	} else if (right >= 64) {
		y = 0;
	} else {
		uint64_t q = mag >> right, rem = mag & ((1ull << right) - 1), half = 1ull << (right - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		y = (int64_t)q;
	}
	return sat32(x < 0 ? -y : y);
}

int32_t tpu_requantize_mode(int32_t x, int32_t multiplier, int shift, enum tpu_round mode)
{
	switch (mode) {
	case TPU_ROUND_SINGLE:
		return requantize_single(x, multiplier, shift);
	case TPU_ROUND_FLOAT:
		return requantize_float(x, multiplier, shift);
	case TPU_ROUND_DOUBLE:
	default:
		return tpu_requantize(x, multiplier, shift);
	}
}

int tpu_float_multiplier(float r, int32_t *multiplier, int *shift)
{
	if (!(r > 0.0f) || !isfinite(r) || !isnormal(r))
		return -EINVAL;
	int e;
	float q = frexpf(r, &e); /* r = q x 2^e, q in [0.5, 1): q x 2^24 is the significand */
	int32_t m = (int32_t)ldexpf(q, 24) << 7;
	/* r = m x 2^(e - 31) */
	if (e < TPU_SHIFT_MIN) {
		/* r < 2^-32 (|fp32(x) x r| < 0.5 for every int32 x, which rounds to 0): flushed */
		*multiplier = 0;
		*shift = 0;
		return 0;
	}
	if (e > TPU_SHIFT_MAX)
		return -EINVAL;
	*multiplier = m;
	*shift = e;
	return 0;
}

int tpu_quantize_multiplier(double r, int32_t *multiplier, int *shift)
{
	if (!(r >= 0.0) || !isfinite(r))
		return -EINVAL;
	if (r == 0.0) {
		*multiplier = 0;
		*shift = 0;
		return 0;
	}
	int e;
	double q = frexp(r, &e);
	int64_t q_fixed = (int64_t)round(q * (double)(1ll << 31));
	if (q_fixed == (1ll << 31)) {
		q_fixed /= 2;
		e++;
	}
	if (e < -31) {
		*multiplier = 0;
		*shift = 0;
		return 0;
	}
	if (e > TPU_SHIFT_MAX)
		return -EINVAL;
	*multiplier = (int32_t)q_fixed;
	*shift = e;
	return 0;
}

int8_t tpu_activate(int32_t acc, const struct tpu_act_channel *ch, const struct tpu_act_output *out,
		    bool *saturated)
{
	int32_t x = tpu_wrap_add(acc, ch->bias);
	int64_t z = (int64_t)tpu_requantize_mode(x, ch->multiplier, ch->shift, out->round) +
		    out->zero_point;
	int64_t v = z < out->qmin ? out->qmin : z > out->qmax ? out->qmax : z;
	if (saturated)
		*saturated = v != z;
	if (out->lut)
		return out->lut[v + 128];
	return (int8_t)v;
}
