/* conv2d and dense on the device: im2col on the host, then tpu_gemm_ex() over the whole batch.
 *
 * conv2d lowers to one GEMM of M = batch*out_h*out_w rows, K = kernel_h*kernel_w*in_c, N = out_c:
 * each output pixel's receptive field is one row of the im2col matrix (taps ordered kh, kw, c,
 * matching HWIO weights), so the GEMM's row-major output is already NHWC. Padding taps hold the
 * input zero point, which the GEMM's zero-point folding turns into exact zeros. Dilation only
 * changes which input pixel a tap reads.
 *
 * Groups: a GEMM per pack of P consecutive groups, P = the groups whose outputs fill the
 * array's width N (out_c/groups x P <= N, at least 1): A is the im2col of the pack's input
 * channels, B the block-diagonal matrix of their weights (zeros elsewhere, which add nothing),
 * and the output columns land in place through ldc = out_c. A depthwise conv at N = 16 is so
 * one GEMM per 16 channels instead of one per channel. With B zero points P = 1 (a zero weight
 * would then count as -zb).
 *
 * The GEMM copies A, B and its output through the device's DMA arena. When M rows do not fit,
 * the rows are split into slices (first sized from the arena, then halved on -ENOMEM); each slice
 * is a GEMM of its own with the same weights and parameters, so the result is the same bytes.
 * Only one slice of the im2col matrix exists on the host at a time. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ops_priv.h"

/* The shape's derived sizes; every product checked for overflow. */
struct conv_dims {
	size_t oh, ow;
	size_t m;      /* batch * oh * ow */
	size_t k;      /* kernel_h * kernel_w * in_c / groups: the weights' rows */
	size_t in_len; /* batch * in_h * in_w * in_c */
	size_t dh, dw; /* dilation (>= 1) */
	size_t groups, cin_g, oc_g; /* groups (>= 1), input and output channels of one */
};

static const char *const conv_fields[] = {"batch",    "in_h",	  "in_w",     "in_c",	 "out_c",
					  "kernel_h", "kernel_w", "stride_h", "stride_w"};

/* One spatial axis: padded extent and output count, for the dilated kernel
 * (kernel - 1) x dil + 1. 0 or -EINVAL (message in dev). */
static int conv_axis(tpu_dev *dev, const char *axis, size_t in, size_t kernel, size_t dil,
		     size_t stride, size_t pad_a, const char *pad_a_name, size_t pad_b,
		     const char *pad_b_name, size_t *out)
{
	const char *kname = axis[0] == 'h' ? "kernel_h" : "kernel_w";
	size_t padded;

	if ((kernel - 1) > (SIZE_MAX - 1) / dil)
		return tpu_ops_reject(dev, "dilation_%s: %zu x %s overflows", axis, dil, kname);
	kernel = (kernel - 1) * dil + 1; /* the dilated extent; = kernel without dilation */

	if (pad_a >= kernel)
		return tpu_ops_reject(dev, "%s: %zu must be < %s (%zu)", pad_a_name, pad_a, kname,
				      kernel);
	if (pad_b >= kernel)
		return tpu_ops_reject(dev, "%s: %zu must be < %s (%zu)", pad_b_name, pad_b, kname,
				      kernel);
	if (pad_a > SIZE_MAX - pad_b || in > SIZE_MAX - pad_a - pad_b)
		return tpu_ops_reject(dev, "in_%s: %zu plus padding overflows", axis, in);
	padded = in + pad_a + pad_b;
	if (kernel > padded)
		return tpu_ops_reject(dev, "%s: %zu is larger than the padded input (%zu)", kname,
				      kernel, padded);
	*out = (padded - kernel) / stride + 1;
	return 0;
}

/* Validate s; dev (may be NULL) gets the message. */
static int conv_check(tpu_dev *dev, const struct tpu_conv2d_shape *s, struct conv_dims *d)
{
	const size_t v[] = {s->batch,	 s->in_h,     s->in_w,	   s->in_c,    s->out_c,
			    s->kernel_h, s->kernel_w, s->stride_h, s->stride_w};
	size_t t;
	int err;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] == 0)
			return tpu_ops_reject(dev, "%s: 0 (must be >= 1)", conv_fields[i]);
	d->dh = s->dilation_h ? s->dilation_h : 1;
	d->dw = s->dilation_w ? s->dilation_w : 1;
	d->groups = s->groups ? s->groups : 1;
	if (s->in_c % d->groups || s->out_c % d->groups)
		return tpu_ops_reject(dev, "groups: %zu must divide in_c (%zu) and out_c (%zu)",
				      d->groups, s->in_c, s->out_c);
	d->cin_g = s->in_c / d->groups;
	d->oc_g = s->out_c / d->groups;
	if ((err = conv_axis(dev, "h", s->in_h, s->kernel_h, d->dh, s->stride_h, s->pad_top,
			     "pad_top", s->pad_bottom, "pad_bottom", &d->oh)) ||
	    (err = conv_axis(dev, "w", s->in_w, s->kernel_w, d->dw, s->stride_w, s->pad_left,
			     "pad_left", s->pad_right, "pad_right", &d->ow)))
		return err;
	if (!tpu_ops_mul(s->batch, d->oh, &t) || !tpu_ops_mul(t, d->ow, &d->m))
		return tpu_ops_reject(dev, "batch: %zu x %zu x %zu output pixels overflow",
				      s->batch, d->oh, d->ow);
	if (!tpu_ops_mul(s->kernel_h, s->kernel_w, &t) || !tpu_ops_mul(t, s->in_c, &t))
		return tpu_ops_reject(dev, "kernel_h x kernel_w x in_c: %zu x %zu x %zu overflows",
				      s->kernel_h, s->kernel_w, s->in_c);
	d->k = t / d->groups;
	if (!tpu_ops_mul(s->batch, s->in_h, &t) || !tpu_ops_mul(t, s->in_w, &t) ||
	    !tpu_ops_mul(t, s->in_c, &d->in_len))
		return tpu_ops_reject(dev, "batch x in_h x in_w x in_c: input size overflows");
	/* weights K x out_c and the int32 output M x out_c x 4 must be addressable */
	if (!tpu_ops_mul(d->k, s->out_c, &t))
		return tpu_ops_reject(dev, "out_c: %zu x K %zu weights overflow", s->out_c, d->k);
	if (!tpu_ops_mul(d->m, s->out_c, &t) || !tpu_ops_mul(t, 4, &t))
		return tpu_ops_reject(dev, "out_c: %zu x %zu output pixels overflow", s->out_c,
				      d->m);
	return 0;
}

size_t tpu_conv2d_out_h(const struct tpu_conv2d_shape *s)
{
	struct conv_dims d;
	return s && conv_check(NULL, s, &d) == 0 ? d.oh : 0;
}

size_t tpu_conv2d_out_w(const struct tpu_conv2d_shape *s)
{
	struct conv_dims d;
	return s && conv_check(NULL, s, &d) == 0 ? d.ow : 0;
}

/* Rows row0 .. row0 + rows - 1 of the im2col matrix of s over input channels c0 .. c0 + c - 1
 * into cols (rows x kernel_h x kernel_w x c). */
static void im2col_rows(const struct tpu_conv2d_shape *s, const struct conv_dims *d,
			const int8_t *in, int8_t pad, size_t c0, size_t c, size_t row0,
			size_t rows, int8_t *cols)
{
	size_t pix = d->oh * d->ow, ic = s->in_c;

	for (size_t r = row0; r < row0 + rows; r++) {
		size_t b = r / pix, oy = (r % pix) / d->ow, ox = r % d->ow;
		const int8_t *img = in + b * s->in_h * s->in_w * ic + c0;

		for (size_t ky = 0; ky < s->kernel_h; ky++) {
			/* y, x: coordinates in the padded input; padding is [0, pad) and
			 * [pad + in, ...) */
			size_t y = oy * s->stride_h + ky * d->dh;
			bool row_in = y >= s->pad_top && y - s->pad_top < s->in_h;

			for (size_t kx = 0; kx < s->kernel_w; kx++, cols += c) {
				size_t x = ox * s->stride_w + kx * d->dw;

				if (row_in && x >= s->pad_left && x - s->pad_left < s->in_w) {
					size_t iy = y - s->pad_top, ix = x - s->pad_left;
					memcpy(cols, img + (iy * s->in_w + ix) * ic, c);
				} else {
					memset(cols, pad, c);
				}
			}
		}
	}
}

int tpu_im2col(const struct tpu_conv2d_shape *s, const int8_t *in, int8_t pad_value, int8_t *cols)
{
	struct conv_dims d;
	size_t len;

	if (!s || !in || !cols || conv_check(NULL, s, &d) ||
	    !tpu_ops_mul(d.m, d.k * d.groups, &len))
		return -EINVAL;
	im2col_rows(s, &d, in, pad_value, 0, s->in_c, 0, d.m, cols);
	return 0;
}

/* ------------------------------------------------------------------ sliced GEMM */

/* Where the rows of A come from: a dense matrix, or the im2col of a conv input's channels
 * c0 .. c0 + c - 1; and where the output goes: ldc elements apart (0: packed). */
struct rows_src {
	const int8_t *a; /* dense: m x k, or NULL for im2col */
	const struct tpu_conv2d_shape *s;
	const struct conv_dims *d;
	const int8_t *in;
	int8_t pad;
	size_t c0, c;
	size_t ldc;
};

/* A first guess of the rows per GEMM that fit the arena: one call when everything fits
 * (the usual case), slices of about the arena's size otherwise. The GEMM's -ENOMEM is the real
 * test; this only keeps the host's im2col slice and the retries small. */
static size_t initial_rows(tpu_dev *dev, size_t m, size_t k, size_t n, size_t esz)
{
	size_t arena = hostmem_size(dev->hm), fixed, per_row, budget;

	/* B, the bias/multiplier/shift vectors and the LUT; an eighth kept for the queues and
	 * the allocator's alignment */
	if (!tpu_ops_mul(k, n, &fixed) || fixed > SIZE_MAX - 16 * n - 4096)
		return 1;
	fixed += 16 * n + 4096;
	budget = arena - arena / 8;
	if (fixed >= budget)
		return 1;
	if (n > (SIZE_MAX - k) / esz)
		return 1;
	per_row = k + n * esz;
	budget = (budget - fixed) / per_row;
	if (budget == 0)
		return 1;
	return budget < m ? budget : m;
}

static int gemm_rows(tpu_dev *dev, size_t m, size_t k, size_t n, const struct rows_src *src,
		     const int8_t *w, const struct tpu_gemm_params *p, void *out)
{
	size_t esz = p && p->quant_channels ? 1 : 4;
	size_t rows = initial_rows(dev, m, k, n, esz), r0 = 0, ldc = src->ldc ? src->ldc : n;
	int8_t *cols = NULL;
	int err = 0;

	if (!src->a) {
		size_t len;
		/* rows * k <= the arena's size, so this cannot overflow; checked anyway */
		if (!tpu_ops_mul(rows, k, &len))
			return -ENOMEM;
		cols = malloc(len);
		if (!cols)
			return -ENOMEM;
	}
	while (r0 < m) {
		size_t cnt = m - r0 < rows ? m - r0 : rows;
		const int8_t *a = src->a ? src->a + r0 * k : cols;

		if (!src->a)
			im2col_rows(src->s, src->d, src->in, src->pad, src->c0, src->c, r0, cnt,
				    cols);
		struct tpu_gemm_desc d = {.m = cnt,
					  .n = n,
					  .k = k,
					  .a = a,
					  .b = w,
					  .c = (uint8_t *)out + r0 * ldc * esz,
					  .ldc = ldc};

		err = tpu_gemm_ex(dev, &d, p);
		if (err == -ENOMEM && cnt > 1) {
			rows = cnt / 2; /* smaller slices; the cols buffer is large enough */
			continue;
		}
		if (err == -EINVAL) {
			tpu_ops_take_gemm_error(dev);
		} else if (err == -ENOMEM) {
			tpu_ops_reject(dev,
				       "K x N: %zu x %zu weights and one row do not fit the "
				       "device's DMA arena (%zu bytes)",
				       k, n, hostmem_size(dev->hm));
			err = -ENOMEM;
		}
		if (err)
			break;
		r0 += cnt;
	}
	free(cols);
	return err;
}

/* The params of a pack of groups: p's per-channel vectors from output channel o on, n of
 * them. */
static struct tpu_gemm_params params_from(const struct tpu_gemm_params *p, size_t o, size_t n)
{
	struct tpu_gemm_params q = *p;

	if (q.bias)
		q.bias += o;
	if (q.quant_channels > 1) {
		q.multiplier += o;
		q.shift += o;
		q.quant_channels = n;
	}
	if (q.b_zp_channels > 1) {
		q.b_zero_point += o;
		q.b_zp_channels = n;
	}
	return q;
}

/* Grouped conv (see the top): packs of groups, each one GEMM with block-diagonal weights. */
static int conv_groups(tpu_dev *dev, const struct tpu_conv2d_shape *s, const struct conv_dims *d,
		       struct rows_src *src, const int8_t *w, const struct tpu_gemm_params *p,
		       void *out)
{
	size_t taps = s->kernel_h * s->kernel_w, n_arr = dev->info.array_n;
	size_t pack = p->b_zp_channels || d->oc_g >= n_arr ? 1 : n_arr / d->oc_g;
	size_t esz = p->quant_channels ? 1 : 4, bk, bn, len;
	int8_t *b;
	int err = 0;

	if (pack > d->groups)
		pack = d->groups;
	/* the largest pack's B: (taps x pack x cin_g) x (pack x oc_g) */
	bk = taps * pack * d->cin_g;
	bn = pack * d->oc_g;
	if (!tpu_ops_mul(bk, bn, &len) || !(b = malloc(len))) {
		tpu_ops_reject(dev, "groups: a pack's %zu x %zu weights do not fit host memory", bk,
			       bn);
		return -ENOMEM;
	}
	for (size_t g0 = 0; g0 < d->groups && !err; g0 += pack) {
		size_t np = d->groups - g0 < pack ? d->groups - g0 : pack;
		size_t k = taps * np * d->cin_g, n = np * d->oc_g;

		/* block-diagonal: row (tap, gi, ci), column (go, oi) holds w[(tap, ci)][o] for
		 * gi = go, o = (g0 + go) x oc_g + oi */
		memset(b, 0, k * n);
		for (size_t t = 0; t < taps; t++)
			for (size_t gi = 0; gi < np; gi++)
				for (size_t ci = 0; ci < d->cin_g; ci++) {
					size_t row = (t * np + gi) * d->cin_g + ci;
					size_t wrow = t * d->cin_g + ci;
					memcpy(b + row * n + gi * d->oc_g,
					       w + wrow * s->out_c + (g0 + gi) * d->oc_g, d->oc_g);
				}
		struct tpu_gemm_params q = params_from(p, g0 * d->oc_g, n);
		src->c0 = g0 * d->cin_g;
		src->c = np * d->cin_g;
		src->ldc = s->out_c;
		err = gemm_rows(dev, d->m, k, n, src, b, &q, (uint8_t *)out + g0 * d->oc_g * esz);
	}
	free(b);
	return err;
}

int tpu_conv2d(tpu_dev *dev, const struct tpu_conv2d_shape *s, const int8_t *in, const int8_t *w,
	       const struct tpu_gemm_params *p, void *out)
{
	struct tpu_gemm_params defaults;
	struct conv_dims d;
	struct rows_src src;
	int err;

	if (!dev)
		return -EINVAL;
	tpu_ops_clear_error(dev);
	if (!s)
		return tpu_ops_reject(dev, "shape: NULL");
	if (!in)
		return tpu_ops_reject(dev, "in: NULL");
	if (!w)
		return tpu_ops_reject(dev, "w: NULL");
	if (!out)
		return tpu_ops_reject(dev, "out: NULL");
	if (!p) {
		tpu_gemm_params_init(&defaults);
		p = &defaults;
	}
	if ((err = conv_check(dev, s, &d)))
		return err;
	/* the padding value must be an int8 before it is used; tpu_gemm checks the rest */
	if (p->in_zero_point < -128 || p->in_zero_point > 127)
		return tpu_ops_reject(dev, "in_zero_point: %d is outside -128..127",
				      (int)p->in_zero_point);
	src = (struct rows_src){
	    .s = s, .d = &d, .in = in, .pad = (int8_t)p->in_zero_point, .c = s->in_c};
	if (d.groups == 1)
		return gemm_rows(dev, d.m, d.k, s->out_c, &src, w, p, out);
	return conv_groups(dev, s, &d, &src, w, p, out);
}

int tpu_dense(tpu_dev *dev, size_t batch, size_t in_features, size_t out_features, const int8_t *in,
	      const int8_t *w, const struct tpu_gemm_params *p, void *out)
{
	struct rows_src src = {0};
	size_t t;

	if (!dev)
		return -EINVAL;
	tpu_ops_clear_error(dev);
	if (!in)
		return tpu_ops_reject(dev, "in: NULL");
	if (!w)
		return tpu_ops_reject(dev, "w: NULL");
	if (!out)
		return tpu_ops_reject(dev, "out: NULL");
	if (batch == 0 || in_features == 0 || out_features == 0)
		return tpu_ops_reject(dev, "%s: 0 (must be >= 1)",
				      batch == 0	 ? "batch"
				      : in_features == 0 ? "in_features"
							 : "out_features");
	if (!tpu_ops_mul(batch, in_features, &t))
		return tpu_ops_reject(dev, "batch x in_features: %zu x %zu overflows", batch,
				      in_features);
	if (!tpu_ops_mul(in_features, out_features, &t) || !tpu_ops_mul(t, 4, &t))
		return tpu_ops_reject(dev, "in_features x out_features: %zu x %zu overflows",
				      in_features, out_features);
	if (!tpu_ops_mul(batch, out_features, &t) || !tpu_ops_mul(t, 4, &t))
		return tpu_ops_reject(dev, "batch x out_features: %zu x %zu overflows", batch,
				      out_features);
	src.a = in;
	return gemm_rows(dev, batch, in_features, out_features, &src, w, p, out);
}
