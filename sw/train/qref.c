/* The plain-C int8 reference inference of a quantized model: direct loops, int32 accumulation
 * of (x - z_in) x w (taps outside the image skipped, which is padding with z_in), then the
 * golden activation pipeline tpu_activate (clamp bounds from tpu_act_clamp). It shares no
 * code with the driver's conv/dense/pool ops or tpu_model_run, so it is an independent check
 * of the device path. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "tpu/numerics.h"
#include "train.h"

void tr_quantize_input(const struct tpu_model *m, const uint8_t *raw, size_t count, int8_t *q)
{
	for (size_t i = 0; i < count; i++) {
		float v = roundf((float)raw[i] / m->in_range / m->in.scale);
		float z = v + (float)m->in.zero_point;

		q[i] = (int8_t)(z < -128.0f ? -128 : z > 127.0f ? 127 : (int)z);
	}
}

int tr_qref_out_shape(const struct tpu_model *m, uint32_t i, size_t *h, size_t *w, size_t *c)
{
	size_t ih = m->in_h, iw = m->in_w, ic = m->in_c;

	for (uint32_t k = 0; k <= i && k < m->n_layers; k++) {
		const struct tpu_layer *l = &m->layers[k];
		size_t sh = ih + l->pad_top + l->pad_bottom, sw = iw + l->pad_left + l->pad_right;

		switch (l->type) {
		case TPU_LAYER_DENSE:
			ih = iw = 1;
			ic = l->out_c;
			break;
		case TPU_LAYER_CONV2D:
		case TPU_LAYER_MAXPOOL2D:
			if (!l->kernel_h || !l->kernel_w || !l->stride_h || !l->stride_w ||
			    sh < l->kernel_h || sw < l->kernel_w)
				return -EINVAL;
			ih = (sh - l->kernel_h) / l->stride_h + 1;
			iw = (sw - l->kernel_w) / l->stride_w + 1;
			if (l->type == TPU_LAYER_CONV2D)
				ic = l->out_c;
			break;
		default:
			return -EINVAL;
		}
	}
	*h = ih;
	*w = iw;
	*c = ic;
	return 0;
}

/* Requantize one accumulator of output channel j of layer l. */
static int8_t activate(const struct tpu_layer *l, size_t j, int32_t acc, int32_t qmin,
		       int32_t qmax)
{
	struct tpu_act_channel ch = { l->bias[j], l->multiplier[j], l->shift[j] };
	struct tpu_act_output o = { l->out.zero_point, qmin, qmax, NULL,
				    (enum tpu_round)l->round };

	return tpu_activate(acc, &ch, &o, NULL);
}

/* Two's-complement wrapping multiply-accumulate, as the MXU does. */
static int32_t mac(int32_t acc, int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)acc + (uint32_t)(a * b));
}

static void run_dense(const struct tpu_layer *l, size_t k, int32_t z_in, const int8_t *x,
		      int8_t *y, int32_t qmin, int32_t qmax)
{
	for (size_t j = 0; j < l->out_c; j++) {
		int32_t acc = 0;

		for (size_t i = 0; i < k; i++)
			acc = mac(acc, x[i] - z_in, l->weights[i * l->out_c + j]);
		y[j] = activate(l, j, acc, qmin, qmax);
	}
}

static void run_conv(const struct tpu_layer *l, size_t ih, size_t iw, size_t ic, size_t oh,
		     size_t ow, int32_t z_in, const int8_t *x, int8_t *y, int32_t qmin,
		     int32_t qmax)
{
	size_t oc = l->out_c;

	for (size_t oy = 0; oy < oh; oy++)
		for (size_t ox = 0; ox < ow; ox++)
			for (size_t j = 0; j < oc; j++) {
				int32_t acc = 0;

				for (size_t kh = 0; kh < l->kernel_h; kh++) {
					long iy = (long)(oy * l->stride_h + kh) - (long)l->pad_top;

					if (iy < 0 || iy >= (long)ih)
						continue;
					for (size_t kw = 0; kw < l->kernel_w; kw++) {
						long ix = (long)(ox * l->stride_w + kw) -
							  (long)l->pad_left;

						if (ix < 0 || ix >= (long)iw)
							continue;
						for (size_t c = 0; c < ic; c++)
							acc = mac(acc,
								  x[((size_t)iy * iw + (size_t)ix) *
									    ic + c] - z_in,
								  l->weights[((kh * l->kernel_w + kw) *
									      ic + c) * oc + j]);
					}
				}
				y[(oy * ow + ox) * oc + j] = activate(l, j, acc, qmin, qmax);
			}
}

static void run_pool(const struct tpu_layer *l, size_t iw, size_t c, size_t oh, size_t ow,
		     const int8_t *x, int8_t *y)
{
	for (size_t oy = 0; oy < oh; oy++)
		for (size_t ox = 0; ox < ow; ox++)
			for (size_t ch = 0; ch < c; ch++) {
				int8_t m = -128;

				for (size_t kh = 0; kh < l->kernel_h; kh++)
					for (size_t kw = 0; kw < l->kernel_w; kw++) {
						int8_t v = x[((oy * l->stride_h + kh) * iw +
							      ox * l->stride_w + kw) * c + ch];

						if (v > m)
							m = v;
					}
				y[(oy * ow + ox) * c + ch] = m;
			}
}

int tr_qref_run(const struct tpu_model *m, const int8_t *in, int8_t *out)
{
	size_t ih = m->in_h, iw = m->in_w, ic = m->in_c, biggest = ih * iw * ic;
	int32_t z_in = m->in.zero_point;
	int8_t *buf[2];
	const int8_t *x = in;
	int ret = 0;

	if (!m->n_layers || m->n_layers > TPU_MODEL_MAX_LAYERS)
		return -EINVAL;
	for (uint32_t i = 0; i < m->n_layers; i++) {
		size_t h, w, c;

		if (tr_qref_out_shape(m, i, &h, &w, &c))
			return -EINVAL;
		if (h * w * c > biggest)
			biggest = h * w * c;
	}
	buf[0] = malloc(biggest);
	buf[1] = malloc(biggest);
	if (!buf[0] || !buf[1]) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct tpu_layer *l = &m->layers[i];
		int8_t *y = buf[i & 1];
		int32_t qmin = -128, qmax = 127;
		size_t oh, ow, oc;

		tr_qref_out_shape(m, i, &oh, &ow, &oc);
		if (l->type != TPU_LAYER_MAXPOOL2D &&
		    (!l->weights || !l->bias || !l->multiplier || !l->shift ||
		     tpu_act_clamp((enum tpu_activation)l->act, l->out.scale,
				   l->out.zero_point, &qmin, &qmax))) {
			ret = -EINVAL;
			goto out;
		}
		if (l->type == TPU_LAYER_DENSE)
			run_dense(l, ih * iw * ic, z_in, x, y, qmin, qmax);
		else if (l->type == TPU_LAYER_CONV2D)
			run_conv(l, ih, iw, ic, oh, ow, z_in, x, y, qmin, qmax);
		else
			run_pool(l, iw, ic, oh, ow, x, y);
		x = y;
		ih = oh;
		iw = ow;
		ic = oc;
		z_in = l->out.zero_point;
	}
	if (ih * iw * ic != m->num_classes) {
		ret = -EINVAL;
		goto out;
	}
	for (size_t j = 0; j < m->num_classes; j++)
		out[j] = x[j];
out:
	free(buf[0]);
	free(buf[1]);
	return ret;
}
