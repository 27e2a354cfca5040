/* The host-float reference of the bf16 numerics (docs/spec.md 7.1); see bf16_hostref.h. */
#include <float.h>
#include <math.h>

#include "bf16_hostref.h"

#if defined(__FAST_MATH__)
#error "bf16_hostref.c needs IEEE float semantics: build without -ffast-math"
#endif
#if FLT_EVAL_METHOD != 0
#error "bf16_hostref.c needs float evaluated in binary32 (SSE), not x87 extended precision"
#endif
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* The documented input and output rules, written with the host's classification. */
float hr_ftz(float f)
{
	return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

uint32_t hr_result(float f)
{
	f = hr_ftz(f);
	return isnan(f) ? TPU_F32_CANONICAL_NAN : tpu_f32_from_float(f);
}

float hr_bf16_in(uint16_t a)
{
	return hr_ftz(tpu_f32_to_float((uint32_t)a << 16));
}

uint32_t hr_add(uint32_t a, uint32_t b)
{
	volatile float x = hr_ftz(tpu_f32_to_float(a)), y = hr_ftz(tpu_f32_to_float(b));
	volatile float s = x + y;
	return hr_result(s);
}

uint32_t hr_mul(uint16_t a, uint16_t b)
{
	volatile float x = hr_bf16_in(a), y = hr_bf16_in(b);
	volatile float p = x * y;
	return hr_result(p);
}

uint32_t hr_mac(uint32_t acc, uint16_t a, uint16_t b)
{
	volatile float x = hr_bf16_in(a), y = hr_bf16_in(b);
	volatile float p = hr_ftz(x * y);
	volatile float c = hr_ftz(tpu_f32_to_float(acc));
	volatile float s = c + p;
	return hr_result(s);
}

/* fp32 x fp32: the host's float product, with the flush decided on the exact value as the spec
 * says (an IEEE product just below 2^-126 may round up to the smallest normal; the model gives a
 * zero there). The exact product of two floats (24 + 24 significant bits, exponents -252..256)
 * is a double without rounding, so it tells which side of 2^-126 the exact value lies. */
uint32_t hr_mul32(uint32_t a, uint32_t b)
{
	volatile float x = hr_ftz(tpu_f32_to_float(a)), y = hr_ftz(tpu_f32_to_float(b));
	volatile float p = x * y;
	volatile double exact = (double)x * (double)y;
	if (isfinite(exact) && fabs(exact) < 0x1p-126)
		return signbit(exact) ? 0x80000000u : 0;
	return hr_result(p);
}

uint32_t hr_bf16_to_f32(uint16_t a)
{
	return hr_result(hr_bf16_in(a));
}

/* fp32 -> bf16 by float additions, not by bit manipulation: for 2^e <= m < 2^(e+1), the float
 * sum m + 2^(e+16) has an ulp of 2^(e-7), bf16's ulp in m's binade, so the addition rounds m to
 * bf16 precision with the host's own round-to-nearest-even; subtracting 2^(e+16) again is exact
 * (Sterbenz). Large m are scaled by 2^-64 first (exact) so that 2^(e+16) stays finite, and scaled
 * back, which overflows to inf exactly when the rounded value reaches 2^128. */
uint16_t hr_to_bf16(uint32_t u)
{
	float x = hr_ftz(tpu_f32_to_float(u));
	if (isnan(x))
		return TPU_BF16_CANONICAL_NAN;
	if (x == 0.0f || isinf(x))
		return (uint16_t)(tpu_f32_from_float(x) >> 16);
	volatile float m = fabsf(x);
	float scale = 1.0f;
	int e = ilogbf(m);
	if (e > 100) {
		m = m * 0x1p-64f;
		scale = 0x1p64f;
		e -= 64;
	}
	volatile float c = ldexpf(1.0f, e + 16);
	volatile float t = m + c;
	volatile float r = t - c;
	volatile float out = r * scale;
	uint32_t ob = tpu_f32_from_float(out);
	if (ob & 0xFFFFu) /* cannot happen: out has 8 significant bits */
		return 0xDEADu;
	return (uint16_t)((ob >> 16) | ((u >> 16) & 0x8000u));
}
