/* The driver tests' GEMM reference (gemm_ref.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_ref.h"
#include "harness.h"

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int32_t sat32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

int32_t ref_float_requant(int32_t x, float scale)
{
	/* volatile keeps the compiler from contracting or widening */
	volatile float fx = (float)x, sc = scale;
	volatile float prod = fx * sc;
	float r = nearbyintf(prod);
	return r >= 2147483648.0f ? INT32_MAX : r < -2147483648.0f ? INT32_MIN : (int32_t)r;
}

/* The rounding modes other than DOUBLE, from their definitions in docs/spec.md §7: SINGLE in
 * exact 64-bit arithmetic, FLOAT in the host's IEEE binary32 arithmetic (m an fp32
 * significand, as the random cases make it). */
static int32_t ref_requant_mode(int32_t x, int32_t m, int32_t s, enum tpu_round round)
{
	if (round == TPU_ROUND_SINGLE)
		return sat32(floor_div((int64_t)x * m + (1ll << (30 - s)), 1ll << (31 - s)));
	return ref_float_requant(x, ldexpf((float)m, s - 31));
}

/* MultiplyByQuantizedMultiplier, from its definition in docs/spec.md §7. */
static int32_t ref_requant(int32_t x, int32_t m, int32_t s, enum tpu_round round)
{
	if (round != TPU_ROUND_DOUBLE)
		return ref_requant_mode(x, m, s, round);
	int ls = s > 0 ? s : 0, rs = s > 0 ? 0 : -s;
	int32_t x1 = (int32_t)((uint32_t)x << ls);
	int64_t t = floor_div((int64_t)x1 * m + (1ll << 30), 1ll << 31);
	int64_t mag, q;

	if (rs == 0)
		return (int32_t)t;
	mag = t < 0 ? -t : t;
	q = (mag + (1ll << (rs - 1))) >> rs; /* ties away from zero */
	return (int32_t)(t < 0 ? -q : q);
}

static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)((uint64_t)v & 0xFFFFFFFFu);
}

/* Element (r, c) of op(X), X stored with leading dimension ld (transposed: X[c][r]). */
static int64_t op_at(const void *x, size_t ld, enum tpu_trans t, size_t r, size_t c)
{
	const int8_t *p = x;
	return t == TPU_TRANS_T ? p[c * ld + r] : p[r * ld + c];
}

void gemm_ref(const struct tpu_gemm_desc *d, const struct tpu_gemm_params *p)
{
	bool ta = d->trans_a == TPU_TRANS_T, tb = d->trans_b == TPU_TRANS_T;
	size_t lda = d->lda ? d->lda : ta ? d->m : d->k, ldb = d->ldb ? d->ldb : tb ? d->k : d->n;
	size_t ldc = d->ldc ? d->ldc : d->n;

	for (size_t i = 0; i < d->m; i++) {
		for (size_t j = 0; j < d->n; j++) {
			int64_t acc = p->bias ? p->bias[j] : 0;
			int32_t x;
			int64_t zb = p->b_zp_channels ?
					     p->b_zero_point[p->b_zp_channels == 1 ? 0 : j] : 0;
			for (size_t kk = 0; kk < d->k; kk++)
				acc += (op_at(d->a, lda, d->trans_a, i, kk) - p->in_zero_point) *
				       (op_at(d->b, ldb, d->trans_b, kk, j) - zb);
			if (d->flags & TPU_GEMM_ACCUMULATE)
				acc += ((int32_t *)d->c)[i * ldc + j];
			x = wrap32(acc);
			if (p->quant_channels == 0) {
				((int32_t *)d->c)[i * ldc + j] = x;
			} else {
				size_t c = p->quant_channels == 1 ? 0 : j;
				int64_t z = (int64_t)ref_requant(x, p->multiplier[c], p->shift[c],
								  p->round) +
					    p->out_zero_point;
				int64_t v = z < p->clamp_min ? p->clamp_min :
					    z > p->clamp_max ? p->clamp_max : z;
				((int8_t *)d->c)[i * ldc + j] = p->lut ? p->lut[v + 128] : (int8_t)v;
			}
		}
	}
}

void gemm_ref_plain(size_t m, size_t k, size_t n, const int8_t *a, const int8_t *b,
		    const struct tpu_gemm_params *p, void *out)
{
	struct tpu_gemm_desc d = { .m = m, .n = n, .k = k, .a = a, .b = b, .c = out };

	gemm_ref(&d, p);
}

static void fill8(uint64_t *seed, int8_t *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		v[i] = (int8_t)harness_range(seed, -128, 127);
}

void gemm_ref_make_case(uint64_t *seed, struct gcase *g, size_t m, size_t k, size_t n, int q8)
{
	struct tpu_gemm_params *p = &g->p;

	g->m = m;
	g->k = k;
	g->n = n;
	g->a = malloc(m * k);
	g->b = malloc(k * n);
	g->bias = malloc(n * 4);
	g->mult = malloc(n * 4);
	g->shift = malloc(n * 4);
	g->bzp = malloc(n * 4);
	ck_assert(g->a && g->b && g->bias && g->mult && g->shift && g->bzp);
	fill8(seed, g->a, m * k);
	fill8(seed, g->b, k * n);
	fill8(seed, g->lut, 256);
	tpu_gemm_params_init(p);
	p->in_zero_point = (int32_t)harness_range(seed, -128, 127);
	for (size_t j = 0; j < n; j++) {
		/* mostly realistic biases, sometimes anything (wrap-around) */
		g->bias[j] = harness_range(seed, 0, 7) ? (int32_t)harness_range(seed, -100000, 100000)
						       : (int32_t)harness_rand(seed);
		g->mult[j] = harness_range(seed, 0, 15) ? (int32_t)harness_range(seed, 1 << 30,
										 INT32_MAX)
							: (int32_t)harness_range(seed, 0, INT32_MAX);
		g->shift[j] = harness_range(seed, 0, 9) ? (int32_t)harness_range(seed, -14, -4)
							: (int32_t)harness_range(seed, -31, 30);
	}
	p->bias = harness_range(seed, 0, 4) ? g->bias : NULL;
	/* B zero points in one case of six (the host-corrected path, gemm_bzp.c) */
	for (size_t j = 0; j < n; j++)
		g->bzp[j] = (int32_t)harness_range(seed, -128, 127);
	if (harness_range(seed, 0, 5) == 0) {
		p->b_zero_point = g->bzp;
		p->b_zp_channels = harness_range(seed, 0, 1) ? n : 1;
	}
	if (!q8)
		return;
	p->quant_channels = harness_range(seed, 0, 1) ? n : 1;
	p->multiplier = g->mult;
	p->shift = g->shift;
	p->out_zero_point = (int32_t)harness_range(seed, -128, 127);
	p->clamp_min = (int32_t)harness_range(seed, -128, 127);
	p->clamp_max = (int32_t)harness_range(seed, p->clamp_min, 127);
	if (harness_range(seed, 0, 3) == 0) {
		p->clamp_min = -128;
		p->clamp_max = 127;
	}
	p->lut = harness_range(seed, 0, 2) == 0 ? g->lut : NULL;
	/* a rounding mode; FLOAT's multipliers are fp32 significands (tpu_float_multiplier's) */
	p->round = (enum tpu_round)harness_range(seed, 0, TPU_ROUND_MAX);
	if (p->round == TPU_ROUND_FLOAT)
		for (size_t j = 0; j < n; j++)
			g->mult[j] &= ~0x7f;
}

void gemm_ref_free_case(struct gcase *g)
{
	free(g->a);
	free(g->b);
	free(g->bias);
	free(g->mult);
	free(g->shift);
	free(g->bzp);
}
