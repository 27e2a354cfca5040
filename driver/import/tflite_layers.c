/* The TFLite importer's layers (tflite_priv.h): CONV_2D and DEPTHWISE_CONV_2D (a grouped conv,
 * one input channel a group) with dilation, FULLY_CONNECTED, MAX_POOL_2D and AVERAGE_POOL_2D:
 * the weights and their scales read and checked, the fused activation's clamp, TFLite's
 * padding rule, and the rounding mode that reproduces the kernel set asked for. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflite_priv.h"
#include "tpu/numerics.h"
#include "tpu/ops.h"

/* The clamp LiteRT applies for a fused activation on an output quantized with q
 * (CalculateActivationRangeQuantized: zero_point + round(f / scale), in float, ties away from
 * zero, within the type's range), as the int8 form's bounds. */
static int tfl_clamp(const struct tl *t, uint32_t i, int32_t act, const struct tq *q, int32_t *lo,
		     int32_t *hi)
{
	int32_t z = tl_zp_user(q), tmin = q->u8 ? 0 : -128, tmax = q->u8 ? 255 : 127;
	float s = q->scale;
	int32_t a = tmin, b = tmax;
	/* zero_point + round(f / scale), in float; beyond the type's range it does not matter
	 * how far (and the conversion to int32 must not overflow) */
#define QUANT(f) (z + (int32_t)fmaxf(-1e6f, fminf(1e6f, roundf((f) / s))))
	switch (act) {
	case TFL_ACT_NONE:
		break;
	case TFL_ACT_RELU:
		a = z;
		break;
	case TFL_ACT_RELU6:
		a = z;
		b = QUANT(6.0f);
		break;
	case TFL_ACT_RELU_N1_TO_1:
		a = QUANT(-1.0f);
		b = QUANT(1.0f);
		break;
	default:
		return tl_op_fail(t, i, "option fused_activation_function = %d is not supported",
				  act);
	}
#undef QUANT
	*lo = (a > tmin ? a : tmin) - (q->u8 ? 128 : 0);
	*hi = (b < tmax ? b : tmax) - (q->u8 ? 128 : 0);
	return 0;
}

static const char *const tfl_act_names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6"};

/* The model's activation whose clamp equals LiteRT's for act (pool: only one that clamps
 * nothing). */
static int pick_act(const struct tl *t, uint32_t i, int32_t act, const struct tq *q, bool pool,
		    uint32_t *out)
{
	int32_t lo = 0, hi = 0;
	int rc = tfl_clamp(t, i, act, q, &lo, &hi);
	if (rc)
		return rc;
	static const enum tpu_activation cand[] = {TPU_ACT_NONE, TPU_ACT_RELU, TPU_ACT_RELU6};
	for (size_t k = 0; k < (pool ? 1 : 3); k++) {
		int32_t a, b;
		if (!tpu_act_clamp(cand[k], q->scale, q->zp, &a, &b) && a == lo && b == hi) {
			*out = cand[k];
			return 0;
		}
	}
	return tl_op_fail(
	    t, i,
	    "option fused_activation_function = %s clamps the output to %d..%d, which "
	    "no activation of the model format%s gives",
	    tfl_act_names[act], (int)lo + (q->u8 ? 128 : 0), (int)hi + (q->u8 ? 128 : 0),
	    pool ? " for a pooling layer (none)" : " (NONE, RELU, RELU6)");
}

/* Output size and padding along one axis (TFLite's ComputeOutSize and
 * ComputePaddingWithOffset: the odd pixel of SAME padding goes to the end). */
static int window(const struct tl *t, uint32_t i, int32_t padding, uint32_t in, int32_t k,
		  int32_t s, const char *axis, uint32_t *out, uint32_t *lo, uint32_t *hi)
{
	if (s < 1 || s > 65535)
		return tl_op_fail(t, i, "option stride_%s = %d (must be 1..65535)", axis, (int)s);
	if (k < 1 || k > 65535)
		return tl_op_fail(t, i, "kernel %s %d (must be 1..65535)",
				  axis[0] == 'h' ? "height" : "width", (int)k);
	int64_t o;
	if (padding == TFL_PAD_VALID)
		o = ((int64_t)in + s - k) / s;
	else if (padding == TFL_PAD_SAME)
		o = ((int64_t)in + s - 1) / s;
	else
		return tl_op_fail(t, i, "option padding = %d (SAME or VALID expected)",
				  (int)padding);
	if (o < 1)
		return tl_op_fail(t, i, "kernel %s %d does not fit the input's %u",
				  axis[0] == 'h' ? "height" : "width", (int)k, in);
	int64_t total = padding == TFL_PAD_SAME ? (o - 1) * s + k - (int64_t)in : 0;
	if (total < 0)
		total = 0;
	*out = (uint32_t)o;
	*lo = (uint32_t)(total / 2);
	*hi = (uint32_t)(total - total / 2);
	return 0;
}

/* Weights, their scales and the bias of a CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED. */
struct wts {
	const int8_t *w; /* as stored (int8, or uint8 with zero point 128 converted) */
	int8_t *owned;
	float *scale;  /* out_c */
	int32_t *bias; /* out_c (zeros when absent) */
};

static void wts_free(struct wts *w)
{
	free(w->owned);
	free(w->scale);
	free(w->bias);
}

/* Read input 1 (weights of dims, out_c channels along axis chan) and input 2 (bias). */
static int read_weights(struct tl *t, uint32_t i, uint32_t rank, const uint32_t *dims,
			uint32_t chan, struct wts *w)
{
	int rc = 0;
	memset(w, 0, sizeof(*w));
	const struct tfl_tensor *x = tl_op_input(t, i, 1, "weights", &rc);
	if (!x)
		return rc;
	if (x->type != TFL_INT8 && x->type != TFL_UINT8)
		return tl_op_fail(t, i, "weights '%s': type %s (int8 expected)", x->name,
				  tl_type_name(x->type));
	bool shape_ok = x->has_shape && x->rank == rank;
	for (uint32_t k = 0; shape_ok && k < rank; k++)
		shape_ok = x->shape[k] >= 0 && (uint32_t)x->shape[k] == dims[k];
	if (!shape_ok)
		return tl_op_fail(t, i, "weights '%s': shape of rank %u does not match the %u-D %s",
				  x->name, x->rank, rank, "shape the input and options give");
	uint32_t oc = dims[chan];
	size_t count = 1;
	for (uint32_t k = 0; k < rank; k++)
		count *= dims[k];
	const uint8_t *data;
	if ((rc = tl_const_data(t, i, x, "weights", count, 1, &data)))
		return rc;
	if (x->quant_details || x->n_scale < 1 || (x->n_scale != 1 && x->n_scale != oc))
		return tl_op_fail(t, i, "weights '%s': %u scales (1 or %u expected)", x->name,
				  x->n_scale, oc);
	if (x->n_scale > 1 &&
	    (x->quantized_dimension < 0 || (uint32_t)x->quantized_dimension != chan))
		return tl_op_fail(
		    t, i,
		    "weights '%s': quantized_dimension = %d (per-channel scales must be "
		    "along dimension %u, the output channels)",
		    x->name, (int)x->quantized_dimension, chan);
	if (x->n_zero_point != x->n_scale && x->n_zero_point > 1)
		return tl_op_fail(t, i, "weights '%s': %u zero points for %u scales", x->name,
				  x->n_zero_point, x->n_scale);
	bool u8 = x->type == TFL_UINT8;
	for (uint32_t j = 0; j < x->n_zero_point; j++)
		if (x->zero_point[j] != (u8 ? 128 : 0))
			return tl_op_fail(
			    t, i,
			    "weights '%s': zero point %lld (channel %u): only int8 "
			    "weights with zero point 0 (or uint8 with 128) are supported",
			    x->name, (long long)x->zero_point[j], j);
	if (!(w->scale = malloc(oc * sizeof(float))) || !(w->bias = calloc(oc, sizeof(int32_t))))
		goto nomem;
	for (uint32_t j = 0; j < oc; j++) {
		w->scale[j] = x->scale[x->n_scale == 1 ? 0 : j];
		if (!isfinite(w->scale[j]) || w->scale[j] <= 0.0f) {
			rc = tl_op_fail(t, i,
					"weights '%s': scale[%u] = %g (must be finite and > 0)",
					x->name, j, (double)w->scale[j]);
			goto fail;
		}
	}
	if (u8) {
		if (!(w->owned = malloc(count)))
			goto nomem;
		for (size_t k = 0; k < count; k++)
			w->owned[k] = (int8_t)(data[k] - 128);
		w->w = w->owned;
	} else {
		w->w = (const int8_t *)data;
	}
	const struct tfl_operator *op = &t->f->ops[i];
	if (op->n_inputs > 3) {
		rc = tl_op_fail(t, i, "%u inputs (at most 3 expected)", op->n_inputs);
		goto fail;
	}
	if (op->n_inputs < 3 || op->inputs[2] < 0)
		return 0;
	const struct tfl_tensor *b = tl_tensor(t, op->inputs[2]);
	if (b->type != TFL_INT32 || !b->has_shape || b->rank != 1 || b->shape[0] != (int32_t)oc) {
		rc = tl_op_fail(t, i, "bias '%s': %s of rank %u (int32 [%u] expected)", b->name,
				tl_type_name(b->type), b->rank, oc);
		goto fail;
	}
	if ((rc = tl_const_data(t, i, b, "bias", oc, 4, &data)))
		goto fail;
	for (uint32_t j = 0; j < oc; j++) {
		const uint8_t *p = data + 4 * j;
		w->bias[j] = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				       (uint32_t)p[3] << 24);
	}
	/* LiteRT's check of the bias scale (GetQuantizedConvolutionMultipler and
	 * PopulateConvolutionQuantizationParams) */
	for (uint32_t j = 0; j < oc && b->n_scale; j++) {
		double ps = (double)t->q.scale * (double)w->scale[j];
		double bs = b->scale[b->n_scale == 1 ? 0 : (j < b->n_scale ? j : 0)];
		if (!(fabs(ps - bs) <= 1e-6 * fmin(ps, bs))) {
			rc = tl_op_fail(
			    t, i,
			    "bias '%s': scale[%u] = %g is not input scale x weight scale "
			    "= %g (LiteRT refuses it)",
			    b->name, j, bs, ps);
			goto fail;
		}
	}
	return 0;
nomem:
	rc = tl_fail(t, "out of memory");
	rc = -ENOMEM;
fail:
	wts_free(w);
	return rc;
}

/* The trailing zeros of m (> 0). */
static int ctz32(uint32_t m)
{
	int n = 0;
	while (!(m & 1)) {
		m >>= 1;
		n++;
	}
	return n;
}

/* Per-channel arrays, quantization and rounding mode of a CONV2D/DENSE layer l built from
 * operator i with weights w, K taps per output, output y quantized with yq. */
static int finish_layer(struct tl *t, uint32_t i, struct tpu_layer *l, struct wts *w, uint32_t oc,
			uint64_t K, int32_t act, const struct tq *yq, bool fc)
{
	int rc = pick_act(t, i, act, yq, false, &l->act);
	if (rc)
		return rc;
	l->out_c = oc;
	l->out.scale = yq->scale;
	l->out.zero_point = yq->zp;
	l->bias = w->bias;
	l->w_scale = w->scale;
	w->bias = NULL;
	w->scale = NULL;
	l->multiplier = malloc(oc * sizeof(int32_t));
	l->shift = malloc(oc * sizeof(int32_t));
	if (!l->multiplier || !l->shift) {
		tl_fail(t, "out of memory");
		return -ENOMEM;
	}
	/* LiteRT's reference FULLY_CONNECTED rounds x * M / 2^(31 - s) once, ties away from
	 * zero; SINGLE rounds ties up. They agree unless x * M can be an odd multiple of
	 * 2^(30 - s): x would have to be a multiple of 2^(30 - s - ctz(M)), and |x| is at most
	 * K x 255 x 128 + |bias|. */
	l->round = t->kernels == TPU_TFLITE_XNNPACK ? TPU_ROUND_FLOAT
		   : fc				    ? TPU_ROUND_SINGLE
						    : TPU_ROUND_DOUBLE;
	for (uint32_t j = 0; j < oc; j++) {
		int shift;
		if (l->round == TPU_ROUND_FLOAT) {
			float p = t->q.scale * l->w_scale[j];
			if (tpu_float_multiplier(p / yq->scale, &l->multiplier[j], &shift))
				return tl_op_fail(
				    t, i,
				    "output scale in_scale * w_scale[%u] / out_scale = "
				    "%g is outside the requantizer's range",
				    j, (double)(p / yq->scale));
		} else {
			double r = (double)t->q.scale * (double)l->w_scale[j] / (double)yq->scale;
			if (tpu_quantize_multiplier(r, &l->multiplier[j], &shift))
				return tl_op_fail(
				    t, i,
				    "multiplier in_scale * w_scale[%u] / out_scale = %g "
				    "is outside the requantizer's range",
				    j, r);
		}
		l->shift[j] = shift;
		if (l->round == TPU_ROUND_SINGLE && l->multiplier[j]) {
			int e = 30 - shift - ctz32((uint32_t)l->multiplier[j]);
			double bound = (double)K * 255.0 * 128.0 + fabs((double)l->bias[j]);
			if (e < 62 && ldexp(1.0, e) <= bound)
				return tl_op_fail(
				    t, i,
				    "channel %u: multiplier %d, shift %d allow a rounding tie, "
				    "where LiteRT's reference FULLY_CONNECTED (ties away from "
				    "zero) and the device's SINGLE rounding (ties up) differ; "
				    "import with the XNNPACK kernel set instead",
				    j, (int)l->multiplier[j], shift);
		}
	}
	t->q = *yq;
	return 0;
}

/* A CONV2D's or pool's window: kernel kh x kw, the options' strides, pads top, bottom, left,
 * right. */
static void set_window(struct tpu_layer *l, uint32_t kh, uint32_t kw, const struct tfl_options *o,
		       const uint32_t pads[4])
{
	l->kernel_h = kh;
	l->kernel_w = kw;
	l->stride_h = (uint32_t)o->stride_h;
	l->stride_w = (uint32_t)o->stride_w;
	l->pad_top = pads[0];
	l->pad_bottom = pads[1];
	l->pad_left = pads[2];
	l->pad_right = pads[3];
}

/* The output tensor of operator i (one, a new tensor). A CONV_2D with a 1 x 1 kernel on a
 * tensor reshaped to 1 x 1 x K after a layer is a DENSE over that layer's output (in H, W, C
 * order, the RESHAPE's), requantized as LiteRT's CONV_2D kernels do. */
int tl_lower_conv(struct tl *t, uint32_t i, bool depthwise)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_options *o = &op->opt;
	const struct tfl_tensor *x, *y, *wt;
	struct tq yq;
	int rc = tl_need_options(t, i, depthwise ? TFL_OPT_DEPTHWISE_CONV2D : TFL_OPT_CONV2D,
				 depthwise ? "DepthwiseConv2DOptions" : "Conv2DOptions");
	wt = rc ? NULL : tl_op_input(t, i, 1, "weights", &rc);
	bool dense = wt && !depthwise && !t->spatial && t->m->n_layers && t->h == 1 && t->w == 1 &&
		     wt->has_shape && wt->rank == 4 && wt->shape[1] == 1 && wt->shape[2] == 1;
	if (rc || (!dense && (rc = tl_need_spatial(t, i))) || (rc = tl_op_output(t, i, &y)) ||
	    (rc = tl_act_quant(t, i, y, "output", &yq)))
		return rc;
	if (!(x = tl_op_input(t, i, 0, "input", &rc)) ||
	    !(wt = tl_op_input(t, i, 1, "weights", &rc)))
		return rc;
	if (o->dilation_w < 1 || o->dilation_h < 1 || o->dilation_w > 65535 ||
	    o->dilation_h > 65535)
		return tl_op_fail(t, i,
				  "options dilation_w_factor = %d, dilation_h_factor = %d (must be "
				  "1..65535)",
				  (int)o->dilation_w, (int)o->dilation_h);
	if (!wt->has_shape || wt->rank != 4)
		return tl_op_fail(t, i, "weights '%s': rank %u (4 expected)", wt->name, wt->rank);
	uint32_t oc = (uint32_t)wt->shape[depthwise ? 3 : 0], kh = (uint32_t)wt->shape[1],
		 kw = (uint32_t)wt->shape[2];
	if (depthwise) {
		/* a grouped convolution with one input channel a group (groups = input channels) */
		if (oc % t->c ||
		    (o->depth_multiplier != (int32_t)(oc / t->c) && o->depth_multiplier != 0))
			return tl_op_fail(
			    t, i,
			    "option depth_multiplier = %d does not match the weights' "
			    "%u output channels for %u input channels",
			    (int)o->depth_multiplier, oc, t->c);
	}
	if (wt->shape[0] < 1 || wt->shape[1] < 1 || wt->shape[2] < 1 || wt->shape[3] < 1 ||
	    wt->shape[1] > 65535 || wt->shape[2] > 65535 || oc > 65535)
		return tl_op_fail(t, i, "weights '%s': dimensions outside 1..65535", wt->name);
	uint32_t dims[4] = {depthwise ? 1 : oc, kh, kw, depthwise ? oc : t->c};
	/* the dilated kernel's extent (TFLite's ComputeOutSize / ComputePaddingWithOffset) */
	int64_t ekh = ((int64_t)kh - 1) * o->dilation_h + 1,
		ekw = ((int64_t)kw - 1) * o->dilation_w + 1;
	if (ekh > 65535 || ekw > 65535)
		return tl_op_fail(t, i, "the dilated kernel %lld x %lld is larger than 65535",
				  (long long)ekh, (long long)ekw);
	uint32_t oh, ow, pt, pb, pl, pr;
	if ((rc = window(t, i, o->padding, t->h, (int32_t)ekh, o->stride_h, "h", &oh, &pt, &pb)) ||
	    (rc = window(t, i, o->padding, t->w, (int32_t)ekw, o->stride_w, "w", &ow, &pl, &pr)) ||
	    (rc = tl_check_out_shape(t, i, y, oh, ow, oc)))
		return rc;
	struct wts w;
	if ((rc = read_weights(t, i, 4, dims, depthwise ? 3 : 0, &w)))
		return rc;
	struct tpu_layer *l = tl_new_layer(t, i, dense ? TPU_LAYER_DENSE : TPU_LAYER_CONV2D);
	size_t K = (size_t)kh * kw * (depthwise ? 1 : t->c); /* the weights' rows */
	if (!l || !(l->weights = malloc(K * oc))) {
		wts_free(&w);
		return l ? (tl_fail(t, "out of memory"), -ENOMEM) : -EINVAL;
	}
	if (!dense)
		set_window(l, kh, kw, o, (uint32_t[4]){pt, pb, pl, pr});
	if (!dense && (o->dilation_h > 1 || o->dilation_w > 1)) {
		l->dilation_h = (uint32_t)o->dilation_h;
		l->dilation_w = (uint32_t)o->dilation_w;
	}
	if (depthwise && t->c > 1)
		l->groups = t->c;
	if (depthwise) /* [1, kh, kw, oc]: one input channel a group, HWIO already */
		memcpy(l->weights, w.w, K * oc);
	else /* OHWI -> HWIO */
		for (size_t m = 0; m < oc; m++)
			for (size_t k = 0; k < K; k++)
				l->weights[k * oc + m] = w.w[m * K + k];
	rc = finish_layer(t, i, l, &w, oc, K, o->act, &yq, false);
	wts_free(&w);
	t->h = oh;
	t->w = ow;
	t->c = oc;
	t->spatial = true;
	t->cur = op->outputs[0];
	return rc;
}

int tl_lower_fc(struct tl *t, uint32_t i)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_options *o = &op->opt;
	const struct tfl_tensor *y, *wt;
	struct tq yq;
	int rc = tl_need_options(t, i, TFL_OPT_FULLY_CONNECTED, "FullyConnectedOptions");
	if (rc || (rc = tl_op_output(t, i, &y)) || (rc = tl_act_quant(t, i, y, "output", &yq)))
		return rc;
	if (o->weights_format != 0)
		return tl_op_fail(t, i, "option weights_format = %d (only DEFAULT is supported)",
				  (int)o->weights_format);
	if (o->has_quant_spec)
		return tl_op_fail(t, i, "option quant_spec is not supported");
	if (!(wt = tl_op_input(t, i, 1, "weights", &rc)))
		return rc;
	uint32_t K = t->h * t->w * t->c;
	if (!wt->has_shape || wt->rank != 2 || wt->shape[0] < 1 || wt->shape[0] > 65535 ||
	    wt->shape[1] < 1)
		return tl_op_fail(t, i, "weights '%s': not of shape [outputs 1..65535, inputs]",
				  wt->name);
	uint32_t N = (uint32_t)wt->shape[0];
	if ((uint32_t)wt->shape[1] != K)
		return tl_op_fail(
		    t, i,
		    "weights '%s' have %d inputs, the input has %u values per example "
		    "(only a whole-example FULLY_CONNECTED is supported)",
		    wt->name, (int)wt->shape[1], K);
	if ((rc = tl_check_out_shape(t, i, y, 1, 1, N)))
		return rc;
	uint32_t dims[2] = {N, K};
	struct wts w;
	if ((rc = read_weights(t, i, 2, dims, 0, &w)))
		return rc;
	struct tpu_layer *l = tl_new_layer(t, i, TPU_LAYER_DENSE);
	if (!l || !(l->weights = malloc((size_t)K * N))) {
		wts_free(&w);
		return l ? (tl_fail(t, "out of memory"), -ENOMEM) : -EINVAL;
	}
	for (size_t n = 0; n < N; n++) /* [N, K] -> K x N */
		for (size_t k = 0; k < K; k++)
			l->weights[k * N + n] = w.w[n * K + k];
	rc = finish_layer(t, i, l, &w, N, K, o->act, &yq, true);
	wts_free(&w);
	t->h = t->w = 1;
	t->c = N;
	t->spatial = true;
	t->cur = op->outputs[0];
	return rc;
}

/* MAX_POOL_2D (padded taps ignored, as LiteRT's kernels do) or AVERAGE_POOL_2D (avg: TFLite's
 * reference kernel, tpu_avgpool2d TFLITE: the in-bounds taps' sum divided by their count,
 * rounded half away from zero, then the fused activation's clamp). */
int tl_lower_pool(struct tl *t, uint32_t i, bool avg)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_options *o = &op->opt;
	const struct tfl_tensor *y;
	struct tq yq;
	uint32_t act;
	int rc = tl_need_options(t, i, TFL_OPT_POOL2D, "Pool2DOptions");
	if (rc || (rc = tl_need_spatial(t, i)) || (rc = tl_op_output(t, i, &y)) ||
	    (rc = tl_act_quant(t, i, y, "output", &yq)))
		return rc;
	if ((rc = tl_same_q(t, i, &yq)))
		return rc;
	if (avg && t->kernels == TPU_TFLITE_XNNPACK)
		return tl_op_fail(
		    t, i,
		    "XNNPACK's average pooling requantizes in float: no pooling mode of "
		    "the model format reproduces it (--kernels reference does)");
	if ((rc = pick_act(t, i, o->act, &yq, !avg, &act)))
		return rc;
	uint32_t oh, ow, pt, pb, pl, pr;
	if ((rc = window(t, i, o->padding, t->h, o->filter_h, o->stride_h, "h", &oh, &pt, &pb)) ||
	    (rc = window(t, i, o->padding, t->w, o->filter_w, o->stride_w, "w", &ow, &pl, &pr)) ||
	    (rc = tl_check_out_shape(t, i, y, oh, ow, t->c)))
		return rc;
	struct tpu_layer *l = tl_new_layer(t, i, avg ? TPU_LAYER_AVGPOOL2D : TPU_LAYER_MAXPOOL2D);
	if (!l)
		return -EINVAL;
	set_window(l, (uint32_t)o->filter_h, (uint32_t)o->filter_w, o,
		   (uint32_t[4]){pt, pb, pl, pr});
	if (avg) {
		l->act = act;
		l->avg_mode = TPU_AVGPOOL_TFLITE;
		l->avg_flags = yq.u8 ? TPU_AVGPOOL_UINT8 : 0;
	}
	l->out.scale = yq.scale;
	l->out.zero_point = yq.zp;
	t->h = oh;
	t->w = ow;
	t->cur = op->outputs[0];
	return 0;
}
