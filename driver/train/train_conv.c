/* conv2d forward and backward on the device (docs/training.md): im2col on the host, one GEMM
 * forward, two backward (dW = colᵀ · dY with trans_a, over g pixels per row, and
 * dcol = dY · Wᵀ with trans_b), col2im of dcol on the host. im2col and col2im are one walk
 * over the (row, tap) pairs of the im2col matrix: a gather and its adjoint, a scatter-add. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tpu/train.h"
#include "train_priv.h"

/* The GEMM sizes of s: m rows (output pixels), k columns (taps); false for a shape that
 * tpu_conv2d_out_h / _w reject or whose matrix size overflows, and for dilation or groups
 * (the training ops have neither). */
static bool conv_dims(const struct tpu_conv2d_shape *s, size_t *m, size_t *k)
{
	size_t oh, ow;

	if (!s || s->dilation_h > 1 || s->dilation_w > 1 || s->groups > 1)
		return false;
	oh = tpu_conv2d_out_h(s);
	ow = tpu_conv2d_out_w(s);
	if (!oh || !ow)
		return false;
	/* tpu_conv2d_out_* checked batch*oh*ow, kernel_h*kernel_w*in_c and each times out_c */
	*m = s->batch * oh * ow;
	*k = s->kernel_h * s->kernel_w * s->in_c;
	return *m <= SIZE_MAX / *k;
}

/* Gather x into col (scatter == false), or add col into x (scatter == true). */
static void walk(const struct tpu_conv2d_shape *s, float *x, float *col, bool scatter)
{
	size_t oh = tpu_conv2d_out_h(s), ow = tpu_conv2d_out_w(s), c = s->in_c;

	for (size_t b = 0; b < s->batch; b++) {
		float *img = x + b * s->in_h * s->in_w * c;

		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++)
				for (size_t ky = 0; ky < s->kernel_h; ky++) {
					/* y, xx: coordinates in the padded input */
					size_t y = oy * s->stride_h + ky;
					bool row_in = y >= s->pad_top && y - s->pad_top < s->in_h;

					for (size_t kx = 0; kx < s->kernel_w; kx++, col += c) {
						size_t xx = ox * s->stride_w + kx;
						float *p = NULL;

						if (row_in && xx >= s->pad_left &&
						    xx - s->pad_left < s->in_w)
							p = img + ((y - s->pad_top) * s->in_w + xx -
								   s->pad_left) * c;
						for (size_t ch = 0; ch < c; ch++) {
							if (scatter && p)
								p[ch] += col[ch];
							else if (!scatter)
								col[ch] = p ? p[ch] : 0.0f;
						}
					}
				}
	}
}

int tpu_train_im2col(const struct tpu_conv2d_shape *s, const float *x, float *col)
{
	size_t m, k;

	if (!x || !col || !conv_dims(s, &m, &k))
		return -EINVAL;
	/* a gather only reads x */
	walk(s, (float *)(uintptr_t)x, col, false);
	return 0;
}

int tpu_train_col2im(const struct tpu_conv2d_shape *s, const float *col, float *dx)
{
	size_t m, k;

	if (!col || !dx || !conv_dims(s, &m, &k))
		return -EINVAL;
	memset(dx, 0, s->batch * s->in_h * s->in_w * s->in_c * sizeof(*dx));
	/* a scatter only reads col */
	walk(s, dx, (float *)(uintptr_t)col, true);
	return 0;
}

/* Validate s and fill ctx->col with im2col(x); *m, *k the GEMM's sizes. */
static int load_col(struct tpu_train_ctx *ctx, const struct tpu_conv2d_shape *s, const float *x,
		    size_t *m, size_t *k)
{
	int ret;

	if (!ctx || !x)
		return -EINVAL;
	if (s && (s->dilation_h > 1 || s->dilation_w > 1 || s->groups > 1)) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "conv2d: dilation %zux%zu, groups %zu: training convolutions have neither "
			 "(1 or 0 each)", s->dilation_h, s->dilation_w, s->groups);
		return -EINVAL;
	}
	if (!conv_dims(s, m, k)) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "conv2d: shape batch %zu, in %zux%zux%zu, kernel %zux%zu, stride %zux%zu, "
			 "pad %zu/%zu/%zu/%zu, out_c %zu: a size is 0 or the kernel does not fit",
			 s ? s->batch : 0, s ? s->in_h : 0, s ? s->in_w : 0, s ? s->in_c : 0,
			 s ? s->kernel_h : 0, s ? s->kernel_w : 0, s ? s->stride_h : 0,
			 s ? s->stride_w : 0, s ? s->pad_top : 0, s ? s->pad_bottom : 0,
			 s ? s->pad_left : 0, s ? s->pad_right : 0, s ? s->out_c : 0);
		return -EINVAL;
	}
	ret = train_reserve(&ctx->col, &ctx->col_cap, *m * *k, sizeof(float));
	if (ret)
		return ret;
	return tpu_train_im2col(s, x, ctx->col);
}

int tpu_train_conv2d_forward(struct tpu_train_ctx *ctx, const struct tpu_conv2d_shape *s,
			     const float *x, const float *w, const float *b, float *y)
{
	size_t m, k;
	int ret = load_col(ctx, s, x, &m, &k);

	if (ret)
		return ret;
	return tpu_train_gemm(ctx, TPU_TRANS_N, TPU_TRANS_N, m, s->out_c, k, ctx->col, w, b, y);
}

/* How many consecutive output pixels dW's GEMM puts side by side (see weight_grad): the most
 * whose out_c columns fit the array's N, dividing m, and leaving at least one full K-tile. */
static size_t dw_groups(size_t n_array, size_t m, size_t out_c)
{
	for (size_t g = n_array / out_c; g > 1; g--)
		if (m % g == 0 && m / g >= n_array)
			return g;
	return 1;
}

/* dw (k x out_c) = colᵀ · dy, col m x k in ctx->col. The GEMM's K is the m output pixels, and
 * each of its K-tiles costs about the same whatever the (few) out_c columns it fills. So col and
 * dy are read as g pixels per row, (m/g) x (g k) and (m/g) x (g out_c) (the same memory, no
 * copy): their product P, (g k) x (g out_c), holds in its g diagonal blocks the products of
 * the pixels of each residue mod g, whose sum, on the host in block order, is dw; the GEMM has
 * 1/g of the K-tiles. With g = 1 it is the plain product. */
static int weight_grad(struct tpu_train_ctx *ctx, size_t m, size_t k, size_t out_c,
		       const float *dy, float *dw)
{
	size_t g = dw_groups(ctx->array_n, m, out_c), gk = g * k, gn = g * out_c;
	int ret;

	/* col is stored m x k, which is op(A) = colᵀ (k x m) transposed */
	if (g == 1)
		return tpu_train_gemm(ctx, TPU_TRANS_T, TPU_TRANS_N, k, out_c, m, ctx->col, dy,
				      NULL, dw);
	ret = train_reserve(&ctx->dcol, &ctx->dcol_cap, gk * gn, sizeof(float));
	if (!ret)
		ret = train_gemm_counted(ctx, TPU_TRANS_T, TPU_TRANS_N, gk, gn, m / g, ctx->col,
					 dy, NULL, ctx->dcol, (uint64_t)k * out_c * m);
	if (ret)
		return ret;
	for (size_t t = 0; t < k; t++)
		for (size_t o = 0; o < out_c; o++) {
			float sum = ctx->dcol[t * gn + o];

			for (size_t i = 1; i < g; i++)
				sum += ctx->dcol[(i * k + t) * gn + i * out_c + o];
			dw[t * out_c + o] = sum;
		}
	return 0;
}

int tpu_train_conv2d_backward(struct tpu_train_ctx *ctx, const struct tpu_conv2d_shape *s,
			      const float *x, const float *w, const float *dy, float *dw,
			      float *db, float *dx)
{
	size_t m, k;
	int ret;

	if (!dy || !dw || !db)
		return -EINVAL;
	ret = load_col(ctx, s, x, &m, &k);
	if (!ret)
		ret = weight_grad(ctx, m, k, s->out_c, dy, dw);
	if (ret)
		return ret;
	if (dx) {
		ret = train_reserve(&ctx->dcol, &ctx->dcol_cap, m * k, sizeof(float));
		/* dcol = dy · wᵀ: w is stored k x out_c, which is op(B) = wᵀ transposed */
		if (!ret)
			ret = tpu_train_gemm(ctx, TPU_TRANS_N, TPU_TRANS_T, m, k, s->out_c, dy, w,
					     NULL, ctx->dcol);
		if (!ret)
			ret = tpu_train_col2im(s, ctx->dcol, dx);
		if (ret)
			return ret;
	}
	train_col_sums(dy, m, s->out_c, db);
	return 0;
}
