/* Post-training int8 quantization (design.md §3, docs/models.md): activation ranges calibrated
 * on the training set, per-channel symmetric weights, int32 bias at in_scale x w_scale, and
 * (multiplier, shift) from tpu_quantize_multiplier. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpu/numerics.h"
#include "train.h"

int tr_quant_range(double lo, double hi, struct tpu_quant *q)
{
	double zp;

	/* 0 must be exactly representable: ReLU outputs and padding are 0 */
	if (lo > 0.0)
		lo = 0.0;
	if (hi < 0.0)
		hi = 0.0;
	if (!isfinite(lo) || !isfinite(hi))
		return -EINVAL;
	if (!(hi > lo))
		hi = lo + 1.0; /* a tensor that is always 0: any scale will do */
	q->scale = (float)((hi - lo) / 255.0);
	if (!(q->scale > 0.0f) || !isfinite(q->scale))
		return -EINVAL;
	zp = round(-128.0 - lo / (double)q->scale);
	q->zero_point = zp < -128.0 ? -128 : zp > 127.0 ? 127 : (int32_t)zp;
	return 0;
}

void tr_quant_weights(const double *w, size_t k, size_t out_c, int8_t *q, float *w_scale)
{
	for (size_t j = 0; j < out_c; j++) {
		double m = 0.0;

		for (size_t i = 0; i < k; i++)
			if (fabs(w[i * out_c + j]) > m)
				m = fabs(w[i * out_c + j]);
		w_scale[j] = m > 0.0 ? (float)(m / 127.0) : 1.0f / 127.0f;
		for (size_t i = 0; i < k; i++) {
			/* the stored (float) scale is what the device uses, so divide by it */
			double v = round(w[i * out_c + j] / (double)w_scale[j]);

			q[i * out_c + j] = (int8_t)(v > 127.0 ? 127 : v < -127.0 ? -127 : v);
		}
	}
}

void tr_quant_bias(const double *b, size_t out_c, float in_scale, const float *w_scale,
		   int32_t *q)
{
	for (size_t j = 0; j < out_c; j++) {
		double v = round(b[j] / ((double)in_scale * (double)w_scale[j]));

		q[j] = v > (double)INT32_MAX ? INT32_MAX : v < (double)INT32_MIN ? INT32_MIN :
									  (int32_t)v;
	}
}

void tr_calibrate(struct tr_net *net, const struct tr_digits *d, double *lo, double *hi)
{
	double x[TR_DIGITS_PIXELS];

	for (size_t l = 0; l < net->n_layers; l++)
		lo[l] = hi[l] = 0.0;
	for (size_t i = 0; i < d->n; i++) {
		tr_digits_input(d, i, x);
		tr_net_forward(net, x, 1);
		for (size_t l = 0; l < net->n_layers; l++) {
			size_t sz = tr_layer_out_size(&net->layer[l]);

			for (size_t k = 0; k < sz; k++) {
				double v = net->act[l][k];

				if (v < lo[l])
					lo[l] = v;
				if (v > hi[l])
					hi[l] = v;
			}
		}
	}
}

/* Fill the weighted layer ql from the float layer fl; in is the quantization of its input. */
static int quantize_weighted(const struct tr_net *net, const struct tr_layer *fl,
			     struct tpu_layer *ql, const struct tpu_quant *in, size_t idx,
			     char *err, size_t errlen)
{
	size_t k = fl->fan_in, oc = fl->out_c;

	ql->weights = malloc(k * oc);
	ql->bias = malloc(oc * sizeof(int32_t));
	ql->w_scale = malloc(oc * sizeof(float));
	ql->multiplier = malloc(oc * sizeof(int32_t));
	ql->shift = malloc(oc * sizeof(int32_t));
	if (!ql->weights || !ql->bias || !ql->w_scale || !ql->multiplier || !ql->shift)
		return tr_fail(err, errlen, -ENOMEM, "layer %zu: out of memory", idx);
	tr_quant_weights(net->param + fl->w_off, k, oc, ql->weights, ql->w_scale);
	tr_quant_bias(net->param + fl->b_off, oc, in->scale, ql->w_scale, ql->bias);
	for (size_t j = 0; j < oc; j++) {
		/* the per-channel formula of TFLite, in double from the stored float scales */
		double r = (double)in->scale * (double)ql->w_scale[j] / (double)ql->out.scale;
		int shift;

		if (tpu_quantize_multiplier(r, &ql->multiplier[j], &shift))
			return tr_fail(err, errlen, -EINVAL,
				       "layer %zu: channel %zu: multiplier %g out of range", idx, j,
				       r);
		ql->shift[j] = shift;
	}
	return 0;
}

int tr_quantize(const struct tr_net *net, const double *lo, const double *hi, const char *name,
		struct tpu_model **out, char *err, size_t errlen)
{
	struct tpu_model *m;
	struct tpu_quant in;
	int ret;

	*out = NULL;
	if (!net->n_layers || net->n_layers > TPU_MODEL_MAX_LAYERS || !net->param ||
	    strlen(name) >= TPU_MODEL_NAME_MAX)
		return tr_fail(err, errlen, -EINVAL, "%s: bad network or name", name);
	m = calloc(1, sizeof(*m));
	if (!m)
		return tr_fail(err, errlen, -ENOMEM, "out of memory");
	strcpy(m->name, name);
	m->in_h = (uint32_t)net->in_h;
	m->in_w = (uint32_t)net->in_w;
	m->in_c = (uint32_t)net->in_c;
	m->in.scale = TR_IN_SCALE;
	m->in.zero_point = TR_IN_ZERO_POINT;
	m->in_range = TR_IN_RANGE;
	m->num_classes = (uint32_t)tr_net_classes(net);
	m->n_layers = (uint32_t)net->n_layers;
	in = m->in;
	for (size_t i = 0; i < net->n_layers; i++) {
		const struct tr_layer *fl = &net->layer[i];
		struct tpu_layer *ql = &m->layers[i];

		if (fl->kind == TR_POOL) {
			ql->type = TPU_LAYER_MAXPOOL2D;
			ql->kernel_h = ql->kernel_w = (uint32_t)fl->k;
			ql->stride_h = ql->stride_w = (uint32_t)fl->stride;
			ql->out = in; /* max-pool keeps its input's quantization */
			continue;
		}
		ql->type = fl->kind == TR_CONV ? TPU_LAYER_CONV2D : TPU_LAYER_DENSE;
		if (fl->kind == TR_CONV) {
			ql->kernel_h = ql->kernel_w = (uint32_t)fl->k;
			ql->stride_h = ql->stride_w = (uint32_t)fl->stride;
			ql->pad_top = ql->pad_bottom = (uint32_t)fl->pad;
			ql->pad_left = ql->pad_right = (uint32_t)fl->pad;
		}
		ql->out_c = (uint32_t)fl->out_c;
		ql->act = fl->relu ? TPU_ACT_RELU : TPU_ACT_NONE;
		ret = tr_quant_range(lo[i], hi[i], &ql->out);
		if (ret) {
			tr_fail(err, errlen, ret, "layer %zu: bad calibrated range [%g, %g]", i,
				lo[i], hi[i]);
			goto out_free;
		}
		ret = quantize_weighted(net, fl, ql, &in, i, err, errlen);
		if (ret)
			goto out_free;
		in = ql->out;
	}
	*out = m;
	return 0;

out_free:
	tpu_model_free(m);
	return ret;
}
