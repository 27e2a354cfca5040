/* Float layers with forward and backward passes, over batches of NHWC examples (train.h). Plain
 * loops in a fixed order, so the sums, and hence training, are reproducible. */
#include <math.h>
#include <string.h>

#include "train.h"

void tr_dense_forward(const double *x, size_t n, size_t in, size_t out, const double *w,
		      const double *b, double *y)
{
	for (size_t i = 0; i < n; i++) {
		const double *xi = x + i * in;
		double *yi = y + i * out;

		for (size_t j = 0; j < out; j++)
			yi[j] = b[j];
		for (size_t k = 0; k < in; k++) {
			const double *wk = w + k * out;
			double xv = xi[k];

			for (size_t j = 0; j < out; j++)
				yi[j] += xv * wk[j];
		}
	}
}

void tr_dense_backward(const double *x, const double *dy, size_t n, size_t in, size_t out,
		       const double *w, double *dw, double *db, double *dx)
{
	for (size_t i = 0; i < n; i++) {
		const double *xi = x + i * in;
		const double *dyi = dy + i * out;

		for (size_t j = 0; j < out; j++)
			db[j] += dyi[j];
		for (size_t k = 0; k < in; k++) {
			double *dwk = dw + k * out;
			const double *wk = w + k * out;
			double xv = xi[k], s = 0.0;

			for (size_t j = 0; j < out; j++) {
				dwk[j] += xv * dyi[j];
				s += wk[j] * dyi[j];
			}
			if (dx)
				dx[i * in + k] = s;
		}
	}
}

size_t tr_conv_out_h(const struct tr_conv_shape *s)
{
	size_t span = s->in_h + 2 * s->pad;

	return s->stride && span >= s->k ? (span - s->k) / s->stride + 1 : 0;
}

size_t tr_conv_out_w(const struct tr_conv_shape *s)
{
	size_t span = s->in_w + 2 * s->pad;

	return s->stride && span >= s->k ? (span - s->k) / s->stride + 1 : 0;
}

/* Input row/column of output position o and kernel tap t, or -1 when it falls in the padding. */
static long tap(size_t o, size_t t, const struct tr_conv_shape *s, size_t in)
{
	long v = (long)(o * s->stride + t) - (long)s->pad;

	return v >= 0 && v < (long)in ? v : -1;
}

void tr_conv_forward(const struct tr_conv_shape *s, const double *x, size_t n, const double *w,
		     const double *b, double *y)
{
	size_t oh = tr_conv_out_h(s), ow = tr_conv_out_w(s), oc = s->out_c, ic = s->in_c;

	for (size_t i = 0; i < n; i++) {
		const double *xi = x + i * s->in_h * s->in_w * ic;

		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++) {
				double *yo = y + ((i * oh + oy) * ow + ox) * oc;

				for (size_t o = 0; o < oc; o++)
					yo[o] = b[o];
				for (size_t kh = 0; kh < s->k; kh++) {
					long iy = tap(oy, kh, s, s->in_h);

					if (iy < 0)
						continue;
					for (size_t kw = 0; kw < s->k; kw++) {
						long ix = tap(ox, kw, s, s->in_w);

						if (ix < 0)
							continue;
						for (size_t c = 0; c < ic; c++) {
							double xv = xi[((size_t)iy * s->in_w +
									(size_t)ix) * ic + c];
							const double *wk =
								w + ((kh * s->k + kw) * ic + c) * oc;

							for (size_t o = 0; o < oc; o++)
								yo[o] += xv * wk[o];
						}
					}
				}
			}
	}
}

void tr_conv_backward(const struct tr_conv_shape *s, const double *x, const double *dy, size_t n,
		      const double *w, double *dw, double *db, double *dx)
{
	size_t oh = tr_conv_out_h(s), ow = tr_conv_out_w(s), oc = s->out_c, ic = s->in_c;
	size_t in_size = s->in_h * s->in_w * ic;

	if (dx)
		memset(dx, 0, n * in_size * sizeof(*dx));
	for (size_t i = 0; i < n; i++) {
		const double *xi = x + i * in_size;

		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++) {
				const double *dyo = dy + ((i * oh + oy) * ow + ox) * oc;

				for (size_t o = 0; o < oc; o++)
					db[o] += dyo[o];
				for (size_t kh = 0; kh < s->k; kh++) {
					long iy = tap(oy, kh, s, s->in_h);

					if (iy < 0)
						continue;
					for (size_t kw = 0; kw < s->k; kw++) {
						long ix = tap(ox, kw, s, s->in_w);

						if (ix < 0)
							continue;
						for (size_t c = 0; c < ic; c++) {
							size_t xo = ((size_t)iy * s->in_w +
								     (size_t)ix) * ic + c;
							size_t wo = ((kh * s->k + kw) * ic + c) * oc;
							double xv = xi[xo], g = 0.0;

							for (size_t o = 0; o < oc; o++) {
								dw[wo + o] += xv * dyo[o];
								g += w[wo + o] * dyo[o];
							}
							if (dx)
								dx[i * in_size + xo] += g;
						}
					}
				}
			}
	}
}

size_t tr_pool_out_h(const struct tr_pool_shape *s)
{
	return s->stride && s->k && s->in_h >= s->k ? (s->in_h - s->k) / s->stride + 1 : 0;
}

size_t tr_pool_out_w(const struct tr_pool_shape *s)
{
	return s->stride && s->k && s->in_w >= s->k ? (s->in_w - s->k) / s->stride + 1 : 0;
}

/* Offset (within one example) of the first maximum of output (oy, ox, c)'s window. */
static size_t pool_argmax(const struct tr_pool_shape *s, const double *xi, size_t oy, size_t ox,
			  size_t c)
{
	size_t best = ((oy * s->stride) * s->in_w + ox * s->stride) * s->c + c;

	for (size_t kh = 0; kh < s->k; kh++)
		for (size_t kw = 0; kw < s->k; kw++) {
			size_t o = ((oy * s->stride + kh) * s->in_w + ox * s->stride + kw) * s->c +
				   c;

			if (xi[o] > xi[best])
				best = o;
		}
	return best;
}

void tr_pool_forward(const struct tr_pool_shape *s, const double *x, size_t n, double *y)
{
	size_t oh = tr_pool_out_h(s), ow = tr_pool_out_w(s), in_size = s->in_h * s->in_w * s->c;

	for (size_t i = 0; i < n; i++)
		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++)
				for (size_t c = 0; c < s->c; c++)
					y[((i * oh + oy) * ow + ox) * s->c + c] =
						x[i * in_size + pool_argmax(s, x + i * in_size, oy,
									    ox, c)];
}

void tr_pool_backward(const struct tr_pool_shape *s, const double *x, const double *dy, size_t n,
		      double *dx)
{
	size_t oh = tr_pool_out_h(s), ow = tr_pool_out_w(s), in_size = s->in_h * s->in_w * s->c;

	memset(dx, 0, n * in_size * sizeof(*dx));
	for (size_t i = 0; i < n; i++)
		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++)
				for (size_t c = 0; c < s->c; c++)
					dx[i * in_size + pool_argmax(s, x + i * in_size, oy, ox,
								     c)] +=
						dy[((i * oh + oy) * ow + ox) * s->c + c];
}

void tr_relu_forward(double *y, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!(y[i] > 0.0))
			y[i] = 0.0;
}

void tr_relu_backward(const double *y, double *dy, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!(y[i] > 0.0))
			dy[i] = 0.0;
}

size_t tr_argmax(const double *v, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

double tr_softmax_xent(const double *logits, const uint8_t *labels, size_t n, size_t classes,
		       double *dlogits)
{
	double total = 0.0;

	for (size_t i = 0; i < n; i++) {
		const double *z = logits + i * classes;
		double m = z[tr_argmax(z, classes)], sum = 0.0;

		for (size_t j = 0; j < classes; j++)
			sum += exp(z[j] - m);
		/* -log softmax(z)[label] = log(sum) - (z[label] - m) */
		total += log(sum) - (z[labels[i]] - m);
		if (dlogits)
			for (size_t j = 0; j < classes; j++)
				dlogits[i * classes + j] =
					(exp(z[j] - m) / sum - (j == labels[i] ? 1.0 : 0.0)) /
					(double)n;
	}
	return n ? total / (double)n : 0.0;
}
