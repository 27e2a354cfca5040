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
	int64_t z = (int64_t)tpu_requantize(x, ch->multiplier, ch->shift) + out->zero_point;
	int64_t v = z < out->qmin ? out->qmin : z > out->qmax ? out->qmax : z;
	if (saturated)
		*saturated = v != z;
	if (out->lut)
		return out->lut[v + 128];
	return (int8_t)v;
}
