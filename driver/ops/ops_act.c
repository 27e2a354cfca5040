/* Activation functions as clamp bounds and 256-entry LUTs of the activation pipeline.
 *
 * The LUT is indexed by the pipeline's clamped int8 value v (quantized with the GEMM's output
 * scale and zero point, here called in_scale / in_zero_point) and holds f(in_scale x
 * (v - in_zero_point)) quantized with (out_scale, out_zero_point). Everything is computed in
 * double; q = round(y / out_scale) + out_zero_point rounds half away from zero (C's round())
 * and saturates to -128..127. The only libm calls are exp() and tanh(), which glibc computes
 * to within 1 ulp: a ulp changes an entry only when y / out_scale lies within ~1e-15 of a
 * rounding boundary. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "ops_priv.h"

static bool good_scale(float s)
{
	return isfinite(s) && s > 0.0f;
}

static bool is_i8(int32_t v)
{
	return v >= -128 && v <= 127;
}

/* round half away from zero, then saturate to int8 (NaN never reaches here) */
static int32_t sat_round_i8(double x)
{
	double r = round(x);
	if (r < -128.0)
		return -128;
	if (r > 127.0)
		return 127;
	return (int32_t)r;
}

int tpu_act_clamp(enum tpu_activation act, float scale, int32_t zero_point, int32_t *qmin,
		  int32_t *qmax)
{
	if (!qmin || !qmax || !good_scale(scale) || !is_i8(zero_point))
		return -EINVAL;
	switch (act) {
	case TPU_ACT_NONE:
	case TPU_ACT_SIGMOID:
	case TPU_ACT_TANH:
		*qmin = -128;
		*qmax = 127;
		return 0;
	case TPU_ACT_RELU:
		*qmin = zero_point;
		*qmax = 127;
		return 0;
	case TPU_ACT_RELU6:
		*qmin = zero_point;
		/* zero_point + round(6 / scale), computed in double and saturated */
		*qmax = sat_round_i8((double)zero_point + round(6.0 / (double)scale));
		return 0;
	}
	return -EINVAL;
}

int tpu_act_lut(enum tpu_activation act, float in_scale, int32_t in_zero_point, float out_scale,
		int32_t out_zero_point, int8_t lut[256])
{
	if (!lut || (act != TPU_ACT_SIGMOID && act != TPU_ACT_TANH) || !good_scale(in_scale) ||
	    !good_scale(out_scale) || !is_i8(in_zero_point) || !is_i8(out_zero_point))
		return -EINVAL;
	for (int v = -128; v <= 127; v++) {
		double x = (double)in_scale * (double)(v - in_zero_point);
		double y = act == TPU_ACT_SIGMOID ? 1.0 / (1.0 + exp(-x)) : tanh(x);
		lut[v + 128] =
		    (int8_t)sat_round_i8(round(y / (double)out_scale) + (double)out_zero_point);
	}
	return 0;
}
