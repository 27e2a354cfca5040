/* Golden device: the bf16 mode's command bodies (docs/spec.md §6.12): bf16 weight tiles, the bf16
 * MATMUL row, ACTIVATE's float path and LOAD_PARAMS FCLAMP. The arithmetic is sw/golden/bf16.c
 * (spec §7.1); ACC words hold fp32 bits here, read and written through uint32_t. */
#include <string.h>

#include "golden_internal.h"
#include "tpu/bf16.h"

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* IEEE a < b for two fp32 that are not NaN: -0 and +0 compare equal. Sign-magnitude bits map to
 * a monotonic integer key (both zeros to 0). */
static int64_t f32_key(uint32_t x)
{
	int64_t mag = x & 0x7FFFFFFFu;

	return x & 0x80000000u ? -mag : mag;
}

static bool f32_lt(uint32_t a, uint32_t b)
{
	return f32_key(a) < f32_key(b);
}

void golden_bf16_fill_tile(const struct golden *g, struct golden_tile *t, uint32_t rows,
			   uint32_t cols, bool transpose)
{
	uint32_t n = g->cfg.array_n, a, b;

	memset(t->w16, 0, (size_t)n * n * sizeof(uint16_t)); /* padding: +0 */
	/* Host matrix X is rows x cols bf16, X[a][b] at scratch bytes 2 (a * cols + b). W[k][j] is
	 * w16[j * n + k]: without transpose W[a][b] = X[a][b], with it W[b][a] = X[a][b]. */
	for (a = 0; a < rows; a++)
		for (b = 0; b < cols; b++) {
			uint16_t x = get_le16(g->scratch + 2 * ((size_t)a * cols + b));

			if (transpose)
				t->w16[(size_t)a * n + b] = x;
			else
				t->w16[(size_t)b * n + a] = x;
		}
	t->k = transpose ? cols : rows;
	t->cols = transpose ? rows : cols;
	t->bf16 = true;
}

void golden_bf16_matmul_row(const struct golden *g, const int8_t *ub_row, int32_t *acc,
			    bool accumulate)
{
	const struct golden_tile *t = &g->active;
	uint32_t n = g->cfg.array_n, k, j;
	uint16_t a[TPU_ARRAY_N_MAX];

	for (k = 0; k < n; k++)
		a[k] = get_le16((const uint8_t *)ub_row + 2 * k);
	/* Every column over all N PE rows, padding included (spec 6.12): a padded row or column
	 * adds +0 x +0, or NaN where an inf or NaN meets the padding. */
	for (j = 0; j < n; j++) {
		uint32_t dot = tpu_bf16_dot(a, t->w16 + (size_t)j * n, n, 0);

		acc[j] = (int32_t)(accumulate ? tpu_f32_add((uint32_t)acc[j], dot) : dot);
	}
}

/* One channel of the float path, steps 1-3; *clamped counts a changed value. */
static uint32_t activate_value(const struct golden *g, uint32_t a, uint32_t j, uint32_t op0,
			       uint32_t *clamped)
{
	uint32_t x = tpu_f32_add(a, (uint32_t)g->bias[j]);

	if (op0 & TPU_ACTIVATE_SCALE)
		x = tpu_f32_mul(x, g->scale[j]);
	if ((op0 & TPU_ACTIVATE_CLAMP) && !tpu_f32_is_nan(x)) {
		if (f32_lt(x, g->fmin)) {
			x = g->fmin;
			++*clamped;
		} else if (f32_lt(g->fmax, x)) {
			x = g->fmax;
			++*clamped;
		}
	}
	return x;
}

void golden_bf16_activate(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	uint32_t n = g->cfg.array_n, rows = SQE(c, ROWS), op0 = SQE(c, OP0), i, j, clamped = 0;
	uint32_t src = SQE(c, LOCAL_ADDR), dst = SQE(c, LOCAL_ADDR2);
	bool raw = op0 & TPU_ACTIVATE_RAW32;

	r->sc = golden_activate_status(
		g, c, TPU_ACTIVATE_RAW32 | TPU_ACTIVATE_SCALE | TPU_ACTIVATE_CLAMP, false);
	if (r->sc)
		return;
	if (!g->loaded[TPU_PARAM_BIAS] ||
	    ((op0 & TPU_ACTIVATE_SCALE) && !g->loaded[TPU_PARAM_SCALE]) ||
	    ((op0 & TPU_ACTIVATE_CLAMP) && !g->loaded[TPU_PARAM_FCLAMP])) {
		r->sc = TPU_SC_SEQUENCE_ERROR;
		return;
	}
	/* (RAW32: identical or disjoint ranges, so element-wise in place is exact) */
	for (i = 0; i < rows; i++) {
		const int32_t *a = g->acc + (size_t)(src + i) * n;

		for (j = 0; j < n; j++) {
			uint32_t x = activate_value(g, (uint32_t)a[j], j, op0, &clamped);

			if (raw)
				g->acc[(size_t)(dst + i) * n + j] = (int32_t)x;
			else
				put_le16((uint8_t *)golden_ub_row(g, dst + i) + 2 * j,
					 tpu_f32_to_bf16(x));
		}
	}
	r->result = clamped;
	r->cycles = rows; /* as the int8 ACTIVATE */
}

void golden_bf16_load_fclamp(struct golden *g, const struct golden_cmd *c,
			     struct golden_result *r)
{
	uint32_t lo = tpu_f32_canon(SQE(c, OP2)), hi = tpu_f32_canon(SQE(c, OP3));

	/* The limits are compared as stored, after the input rules: a subnormal is a zero. */
	if (SQE(c, HOST_ADDR_LO) || SQE(c, HOST_ADDR_HI) || SQE(c, LENGTH) || SQE(c, STRIDE) ||
	    SQE(c, LOCAL_ADDR) || SQE(c, LOCAL_ADDR2) || SQE(c, ROWS) || SQE(c, COLS) ||
	    SQE(c, OP1) || tpu_f32_is_nan(lo) || tpu_f32_is_nan(hi) || f32_lt(hi, lo)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	g->fmin = lo;
	g->fmax = hi;
	g->loaded[TPU_PARAM_FCLAMP] = true;
}
