/* tpu_gemm_ex / tpu_gemm: the argument checks, then one run: plan (gemm_plan.c), copy in
 * (gemm_pack.c), build the schedule's commands, run them on queue 0, copy out. The input zero
 * point is folded into the bias on the host. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_limits.h"
#include "gemm_priv.h"

void tpu_gemm_params_init(struct tpu_gemm_params *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof(*p));
	p->clamp_min = -128;
	p->clamp_max = 127;
}

const char *tpu_gemm_last_error(tpu_dev *dev)
{
	return dev ? dev->gemm_err : "dev is NULL";
}

__attribute__((format(printf, 3, 4))) static int fail(tpu_dev *dev, int err, const char *fmt,
						      ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dev->gemm_err, sizeof(dev->gemm_err), fmt, ap);
	va_end(ap);
	return err;
}

#define reject(dev, ...) fail(dev, -EINVAL, __VA_ARGS__)

static int check_i8(tpu_dev *dev, const char *what, int32_t v)
{
	if (v < -128 || v > 127)
		return reject(dev, "%s: %d is outside -128..127", what, (int)v);
	return 0;
}

static int check_quant(tpu_dev *dev, size_t n, const struct tpu_gemm_params *p)
{
	if (p->quant_channels != 0 && p->quant_channels != 1 && p->quant_channels != n)
		return reject(dev, "quant_channels: %zu must be 0 (raw), 1 or n (%zu)",
			      p->quant_channels, n);
	if (p->quant_channels == 0) {
		if (p->lut)
			return reject(dev, "lut: needs int8 output (quant_channels 1 or n)");
		return 0;
	}
	if (!p->multiplier)
		return reject(dev, "multiplier: NULL with quant_channels %zu", p->quant_channels);
	if (!p->shift)
		return reject(dev, "shift: NULL with quant_channels %zu", p->quant_channels);
	for (size_t j = 0; j < p->quant_channels; j++) {
		if (p->multiplier[j] < 0)
			return reject(dev, "multiplier[%zu]: %d is negative (must be 0..2147483647)",
				      j, (int)p->multiplier[j]);
		if (p->shift[j] < -31 || p->shift[j] > 30)
			return reject(dev, "shift[%zu]: %d is outside -31..30", j,
				      (int)p->shift[j]);
	}
	return 0;
}

static int check_args(tpu_dev *dev, size_t m, size_t k, size_t n, const void *a, const void *b,
		      const struct tpu_gemm_params *p, const void *out)
{
	uint32_t N = dev->info.array_n;
	int err;

	if (!a)
		return reject(dev, "a: NULL");
	if (!b)
		return reject(dev, "b: NULL");
	if (!out)
		return reject(dev, "c (out): NULL");
	if (m == 0 || k == 0 || n == 0)
		return reject(dev, "%s: 0 (every dimension must be >= 1)",
			      m == 0 ? "m" : k == 0 ? "k" : "n");
	/* Strides and tile spans are 32-bit SQE fields. */
	if (k > UINT32_MAX - N)
		return reject(dev, "k: %zu is too large (row stride must fit 32 bits)", k);
	if (n > (UINT32_MAX - 4u * N) / N)
		return reject(dev, "n: %zu is too large (tile span must fit 32 bits)", n);
	if (m > SIZE_MAX / 4 / k || m > SIZE_MAX / 4 / n || k > SIZE_MAX / n)
		return reject(dev, "m x k x n: too large for host memory");
	if ((err = check_i8(dev, "in_zero_point", p->in_zero_point)) ||
	    (err = check_i8(dev, "out_zero_point", p->out_zero_point)) ||
	    (err = check_i8(dev, "clamp_min", p->clamp_min)) ||
	    (err = check_i8(dev, "clamp_max", p->clamp_max)))
		return err;
	if (p->clamp_min > p->clamp_max)
		return reject(dev, "clamp_min: %d is above clamp_max %d", (int)p->clamp_min,
			      (int)p->clamp_max);
	if ((unsigned)p->round > TPU_ROUND_MAX)
		return reject(dev, "round: %u is not a rounding mode (0 DOUBLE, 1 SINGLE, 2 FLOAT)",
			      (unsigned)p->round);
	if (p->round != TPU_ROUND_DOUBLE && !(dev->info.features & TPU_FEATURES_ROUND_MASK))
		return fail(dev, -ENOTSUP, "round: %s rounding needs a device with FEATURES.ROUND; "
				     "this one rounds as TFLite's reference kernels only (DOUBLE)",
			    p->round == TPU_ROUND_SINGLE ? "SINGLE" : "FLOAT");
	if ((err = check_quant(dev, n, p)))
		return err;
	if (p->b_zp_channels) {
		if (p->b_zp_channels != 1 && p->b_zp_channels != n)
			return reject(dev, "b_zp_channels: %zu must be 0, 1 or n (%zu)",
				      p->b_zp_channels, n);
		if (!p->b_zero_point)
			return reject(dev, "b_zero_point: NULL with b_zp_channels %zu",
				      p->b_zp_channels);
		for (size_t j = 0; j < p->b_zp_channels; j++)
			if (p->b_zero_point[j] < -128 || p->b_zero_point[j] > 127)
				return reject(dev, "b_zero_point[%zu]: %d is outside -128..127", j,
					      (int)p->b_zero_point[j]);
		return tpu_gemm_check_range_bzp(dev, k, p->in_zero_point, p->b_zero_point,
						p->b_zp_channels);
	}
	return tpu_gemm_check_range(dev, k, p->in_zero_point);
}

/* TPU_DTYPE_BF16: the device has the mode, the shape fits, and of the parameters only the
 * bias (fp32 bit patterns) is used: everything of the int8 requantization must keep its
 * default (docs/ops.md "bf16 GEMM"). */
static int check_bf16(tpu_dev *dev, const struct tpu_gemm_desc *d, const struct tpu_gemm_params *p)
{
	uint32_t N = dev->info.array_n;

	if (!(dev->info.features & TPU_FEATURES_BF16_MASK))
		return fail(dev, -ENOTSUP, "dtype: TPU_DTYPE_BF16 needs a device with the bf16 "
				     "MXU (FEATURES.BF16); this one computes int8 only");
	if (!d->a)
		return reject(dev, "a: NULL");
	if (!d->b)
		return reject(dev, "b: NULL");
	if (!d->c)
		return reject(dev, "c: NULL");
	if (d->m == 0 || d->k == 0 || d->n == 0)
		return reject(dev, "%s: 0 (every dimension must be >= 1)",
			      d->m == 0 ? "m" : d->k == 0 ? "k" : "n");
	if (d->k > (UINT32_MAX - 2u * N) / 2u)
		return reject(dev, "k: %zu is too large (a bf16 row of 2 x k bytes must fit 32 bits)",
			      d->k);
	if (d->n > (UINT32_MAX - 4u * N) / N)
		return reject(dev, "n: %zu is too large (tile span must fit 32 bits)", d->n);
	if (d->m > SIZE_MAX / 4 / d->k || d->m > SIZE_MAX / 4 / d->n || d->k > SIZE_MAX / 4 / d->n)
		return reject(dev, "m x k x n: too large for host memory");
	if (p->in_zero_point != 0)
		return reject(dev, "in_zero_point: %d must be 0 with TPU_DTYPE_BF16",
			      (int)p->in_zero_point);
	if (p->quant_channels != 0)
		return reject(dev, "quant_channels: %zu must be 0 with TPU_DTYPE_BF16 (fp32 output, "
				   "no requantization)", p->quant_channels);
	if (p->multiplier)
		return reject(dev, "multiplier: must be NULL with TPU_DTYPE_BF16");
	if (p->shift)
		return reject(dev, "shift: must be NULL with TPU_DTYPE_BF16");
	if (p->out_zero_point != 0)
		return reject(dev, "out_zero_point: %d must be 0 with TPU_DTYPE_BF16",
			      (int)p->out_zero_point);
	if (p->clamp_min != -128 || p->clamp_max != 127)
		return reject(dev, "clamp_min, clamp_max: %d, %d must keep the defaults -128, 127 "
				   "with TPU_DTYPE_BF16", (int)p->clamp_min, (int)p->clamp_max);
	if (p->lut)
		return reject(dev, "lut: must be NULL with TPU_DTYPE_BF16 (no LUT on fp32 output)");
	if (p->round != TPU_ROUND_DOUBLE)
		return reject(dev, "round: must be TPU_ROUND_DOUBLE with TPU_DTYPE_BF16 (no "
				   "requantization)");
	if (p->b_zp_channels)
		return reject(dev, "b_zp_channels: must be 0 with TPU_DTYPE_BF16");
	return 0;
}

/* A stored matrix of `rows` rows of `cols` elements, `*ld` apart (0: packed, set to cols). */
static int check_ld(tpu_dev *dev, const char *name, size_t *ld, size_t rows, size_t cols,
		    const char *what)
{
	if (*ld == 0)
		*ld = cols;
	if (*ld < cols)
		return reject(dev, "%s: %zu is below the %zu elements of a stored row (%s)", name,
			      *ld, cols, what);
	if (rows - 1 > (SIZE_MAX / 4 - cols) / *ld)
		return reject(dev, "%s: %zu x %zu rows is too large for host memory", name, *ld,
			      rows);
	return 0;
}

/* What only the general entry point can ask for: the dtype, the transposes, the leading
 * dimensions (made explicit in *ld) and the flags. */
static int check_layout(tpu_dev *dev, const struct tpu_gemm_desc *d,
			const struct tpu_gemm_params *p, size_t ld[3])
{
	bool ta = d->trans_a == TPU_TRANS_T, tb = d->trans_b == TPU_TRANS_T;
	int err;

	if (d->dtype != TPU_DTYPE_INT8 && d->dtype != TPU_DTYPE_BF16)
		return reject(dev, "dtype: %d is not a tpu_dtype", (int)d->dtype);
	if (d->trans_a != TPU_TRANS_N && !ta)
		return reject(dev, "trans_a: %d is not TPU_TRANS_N or TPU_TRANS_T",
			      (int)d->trans_a);
	if (d->trans_b != TPU_TRANS_N && !tb)
		return reject(dev, "trans_b: %d is not TPU_TRANS_N or TPU_TRANS_T",
			      (int)d->trans_b);
	if (d->flags & ~TPU_GEMM_ACCUMULATE)
		return reject(dev, "flags: 0x%x has unknown bits (known: TPU_GEMM_ACCUMULATE)",
			      d->flags);
	if ((d->flags & TPU_GEMM_ACCUMULATE) && p->quant_channels != 0 &&
	    d->dtype == TPU_DTYPE_INT8)
		return reject(dev, "flags: TPU_GEMM_ACCUMULATE needs raw int32 output "
				   "(quant_channels 0)");
	ld[0] = d->lda;
	ld[1] = d->ldb;
	ld[2] = d->ldc;
	if ((err = check_ld(dev, "lda", &ld[0], ta ? d->k : d->m, ta ? d->m : d->k,
			    ta ? "k x m, trans_a" : "m x k")) ||
	    (err = check_ld(dev, "ldb", &ld[1], tb ? d->n : d->k, tb ? d->k : d->n,
			    tb ? "n x k, trans_b" : "k x n")))
		return err;
	return check_ld(dev, "ldc", &ld[2], d->m, d->n, "m x n");
}

/* After a host-side failure in the middle of the run: bring the device back and collect the
 * ABORTED_RESET completions of our commands, so that nothing of this call is left outstanding. */
void gemm_recover(struct gemm *g, size_t submitted)
{
	struct tpu_cpl cpl;

	if (tpu_reset(g->dev) != 0)
		return;
	for (size_t i = 0; i < submitted; i++)
		(void)tpu_queue_take(g->dev, 0,
				     (uint16_t)((g->cmds[i].dw[TPU_SQE_CID_DW] >> TPU_SQE_CID_SHIFT) &
						TPU_SQE_CID_MASK),
				     &cpl);
}

/* One run of a checked GEMM (ld: the explicit leading dimensions of A, B, C). */
int gemm_run_checked(tpu_dev *dev, const struct tpu_gemm_desc *d, const size_t ld[3],
		     const struct tpu_gemm_params *p)
{
	struct gemm g = { 0 };
	size_t submitted = 0;
	int err;

	for (unsigned q = 0; q < dev->info.num_queues; q++)
		if (tpu_outstanding(dev, q))
			return -EBUSY; /* the weight FIFO and local memory are shared */
	g.dev = dev;
	g.m = d->m;
	g.k = d->k;
	g.n = d->n;
	g.a = (struct gemm_mat){ d->a, ld[0], d->trans_a == TPU_TRANS_T };
	g.b = (struct gemm_mat){ d->b, ld[1], d->trans_b == TPU_TRANS_T };
	g.q8 = p->quant_channels != 0;
	g.lut = g.q8 && p->lut;
	g.uniform = g.q8; /* one multiplier and shift for all channels (the plan needs it) */
	for (size_t j = 0; g.q8 && j < g.n; j++) {
		size_t c = p->quant_channels == 1 ? 0 : j;
		if (p->multiplier[c] != p->multiplier[0] || p->shift[c] != p->shift[0])
			g.uniform = false;
	}
	gemm_plan(&g);
	err = gemm_fill_buffers(&g, p);
	if (err)
		goto out;
	gemm_build(&g, p);
	err = g.err;
	if (err)
		goto out;
	err = tpu_queue_run(dev, 0, g.cmds, g.ncmd, NULL, GEMM_TIMEOUT_MS, &submitted);
	if (err < 0 && tpu_outstanding(dev, 0)) {
		gemm_recover(&g, submitted);
		goto out;
	}
	if (err == 0)
		gemm_unpack_out(&g, d->c, ld[2], d->flags & TPU_GEMM_ACCUMULATE);
out:
	gemm_free_buffers(&g);
	free(g.cmds);
	return err;
}

int tpu_gemm_ex(tpu_dev *dev, const struct tpu_gemm_desc *d, const struct tpu_gemm_params *p)
{
	struct tpu_gemm_params defaults;
	size_t ld[3];
	int err;

	if (!dev)
		return -EINVAL;
	dev->gemm_err[0] = '\0';
	if (!d)
		return reject(dev, "d: NULL");
	if (!p) {
		tpu_gemm_params_init(&defaults);
		p = &defaults;
	}
	if (d->dtype == TPU_DTYPE_BF16) {
		err = check_bf16(dev, d, p);
		if (!err)
			err = check_layout(dev, d, p, ld);
		if (err)
			return err;
		return gemm_bf16_run(dev, d, ld, p);
	}
	err = check_args(dev, d->m, d->k, d->n, d->a, d->b, p, d->c);
	if (!err)
		err = check_layout(dev, d, p, ld);
	if (err)
		return err;
	if (p->b_zp_channels)
		return gemm_bzp_run(dev, d, ld, p);
	return gemm_run_checked(dev, d, ld, p);
}

int tpu_gemm(tpu_dev *dev, size_t m, size_t k, size_t n, const int8_t *a, const int8_t *b,
	     const struct tpu_gemm_params *p, void *out)
{
	struct tpu_gemm_desc d = { .m = m, .n = n, .k = k, .a = a, .b = b, .c = out };

	return tpu_gemm_ex(dev, &d, p);
}
