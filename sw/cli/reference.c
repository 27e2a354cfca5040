/* Naive reference GEMM and requantization; see reference.h. Every step is exact int64
 * arithmetic written from docs/spec.md §7; no shifts of negative numbers, no shared code. */
#include <errno.h>

#include "reference.h"

#define TWO_31 2147483648ll /* 2^31 */

/* x modulo 2^32 as a two's-complement int32 (the MXU's and the bias adder's wrap-around). */
static int32_t wrap32(int64_t x)
{
	uint32_t u = (uint32_t)(uint64_t)x;
	int64_t v = (int64_t)u - ((u & 0x80000000u) ? 2 * TWO_31 : 0);
	return (int32_t)v;
}

/* floor(n / 2^s) for any sign of n, 0 <= s <= 62. */
static int64_t floor_div_pow2(int64_t n, int s)
{
	int64_t d = (int64_t)1 << s;
	if (n >= 0)
		return n / d;
	return -((-n + d - 1) / d);
}

int32_t ref_srdhm(int32_t a, int32_t b)
{
	if (a == INT32_MIN && b == INT32_MIN)
		return INT32_MAX;
	/* |a*b| <= 2^62, so a*b + 2^30 fits in int64 */
	return (int32_t)floor_div_pow2((int64_t)a * b + (TWO_31 / 2), 31);
}

int32_t ref_rdbpot(int32_t x, int exponent)
{
	if (exponent == 0)
		return x;
	int64_t mag = x < 0 ? -(int64_t)x : (int64_t)x;
	int64_t half = (int64_t)1 << (exponent - 1);
	int64_t q = (mag + half) / ((int64_t)1 << exponent); /* ties go up in magnitude */
	return (int32_t)(x < 0 ? -q : q);
}

int32_t ref_requantize(int32_t x, int32_t multiplier, int shift)
{
	int ls = shift > 0 ? shift : 0;
	int rs = shift < 0 ? -shift : 0;
	int32_t x1 = wrap32((int64_t)x * ((int64_t)1 << ls)); /* |x * 2^30| < 2^62 */
	return ref_rdbpot(ref_srdhm(x1, multiplier), rs);
}

static int check_params(size_t n, const struct tpu_gemm_params *p)
{
	if (p->in_zero_point < -128 || p->in_zero_point > 127)
		return -EINVAL;
	if (!p->quant_channels)
		return 0;
	if (p->quant_channels != 1 && p->quant_channels != n)
		return -EINVAL;
	if (!p->multiplier || !p->shift)
		return -EINVAL;
	for (size_t c = 0; c < p->quant_channels; c++) {
		if (p->multiplier[c] < 0 || p->shift[c] < -31 || p->shift[c] > 30)
			return -EINVAL;
	}
	if (p->out_zero_point < -128 || p->out_zero_point > 127 || p->clamp_min < -128 ||
	    p->clamp_max > 127 || p->clamp_min > p->clamp_max)
		return -EINVAL;
	return 0;
}

int ref_gemm(size_t m, size_t k, size_t n, const int8_t *a, const int8_t *b,
	     const struct tpu_gemm_params *p, void *out)
{
	static const struct tpu_gemm_params raw = {.clamp_min = -128, .clamp_max = 127};
	if (!a || !b || !out || !m || !k || !n)
		return -EINVAL;
	if (!p)
		p = &raw;
	int rc = check_params(n, p);
	if (rc)
		return rc;
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < n; j++) {
			int64_t sum = 0;
			for (size_t kk = 0; kk < k; kk++)
				sum += ((int64_t)a[i * k + kk] - p->in_zero_point) * b[kk * n + j];
			if (p->bias)
				sum += p->bias[j];
			/* the device sums in wrapping int32; only the residue mod 2^32 survives */
			int32_t x = wrap32(sum);
			if (!p->quant_channels) {
				((int32_t *)out)[i * n + j] = x;
				continue;
			}
			size_t c = p->quant_channels == 1 ? 0 : j;
			int64_t z = (int64_t)ref_requantize(x, p->multiplier[c], p->shift[c]) +
				    p->out_zero_point;
			int64_t v = z < p->clamp_min   ? p->clamp_min
				    : z > p->clamp_max ? p->clamp_max
						       : z;
			((int8_t *)out)[i * n + j] = p->lut ? p->lut[v + 128] : (int8_t)v;
		}
	}
	return 0;
}
