/* TFLite import (include/tpu/import.h, docs/import.md "TFLite"): the model is verified and read
 * by the flatbuffers shim (tflite_fb.h), then its operators are walked as one chain from the
 * subgraph's input; each CONV_2D, DEPTHWISE_CONV_2D (a grouped conv, one input channel a
 * group; both with dilation) and FULLY_CONNECTED becomes a layer, MAX_POOL_2D and
 * AVERAGE_POOL_2D (SAME or VALID) a MAXPOOL2D / AVGPOOL2D layer, RESHAPE only changes the shape
 * the chain carries, and QUANTIZE/DEQUANTIZE at the edges set the model's input and output types.
 *
 * The arithmetic is LiteRT's (tensorflow/lite/kernels): multipliers from (double)in_scale *
 * (double)w_scale / (double)out_scale (PopulateConvolutionQuantizationParams,
 * GetQuantizedConvolutionMultipler), the activation's clamp from CalculateActivationRangeQuantized
 * (zero_point + round(f / scale) in float), bias scale within 1e-6 of in_scale * w_scale; the
 * rounding mode per layer reproduces the kernel set asked for (enum tpu_tflite_kernels). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_util.h"
#include "tflite_fb.h"
#include "tpu/import.h"
#include "tpu/numerics.h"

/* An activation tensor's quantization in int8 form (uint8: q - 128, zero point - 128). */
struct tq {
	float scale;
	int32_t zp;
	bool u8;
};

struct tl {
	const struct tfl_model *f;
	struct tpu_model *m;
	enum tpu_tflite_kernels kernels;
	char *err;
	size_t errlen;
	uint32_t layer_op[TPU_MODEL_MAX_LAYERS]; /* the operator behind each layer */
	int32_t batch;				 /* the input's first dimension */
	/* the tensor the chain has reached */
	int32_t cur;
	bool quantized; /* false: the float graph input, before its QUANTIZE */
	struct tq q;
	uint32_t h, w, c; /* per example, NHWC (a 2-D tensor: 1 x 1 x features) */
	bool spatial;	  /* the shape is what the last layer (or the input) gives: a CONV2D or
			   * pool may follow; false after a RESHAPE that changed it */
};

static const char *op_name(const struct tl *t, uint32_t i)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (op->opcode_index >= t->f->n_opcodes)
		return "?";
	const struct tfl_opcode *oc = &t->f->opcodes[op->opcode_index];
	const char *n = oc->custom ? "CUSTOM" : tfl_op_name(oc->builtin);
	return n[0] ? n : "unknown opcode";
}

__attribute__((format(printf, 2, 3))) static int tl_fail(const struct tl *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	imp_vfail(t->err, t->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define NO_OP UINT32_MAX

/* "operator I (OPCODE): <fmt>"; just <fmt> for i = NO_OP. */
__attribute__((format(printf, 3, 4))) static int op_fail(const struct tl *t, uint32_t i,
							 const char *fmt, ...)
{
	if (!t->err || !t->errlen)
		return -EINVAL;
	int n =
	    i == NO_OP ? 0 : snprintf(t->err, t->errlen, "operator %u (%s): ", i, op_name(t, i));
	if (n >= 0 && (size_t)n < t->errlen) {
		va_list ap;
		va_start(ap, fmt);
		imp_vfail(t->err + n, t->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const struct tfl_tensor *tensor(const struct tl *t, int32_t i)
{
	return i >= 0 && (uint32_t)i < t->f->n_tensors ? &t->f->tensors[i] : NULL;
}

static const char *type_name(int32_t type)
{
	const char *n = tfl_type_name(type);
	return n[0] ? n : "unknown type";
}

/* Input k of operator i (NULL and an error when absent; -1 marks an omitted optional input). */
static const struct tfl_tensor *op_input(const struct tl *t, uint32_t i, uint32_t k,
					 const char *what, int *rc)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (k >= op->n_inputs || op->inputs[k] < 0) {
		*rc = op_fail(t, i, "input %u (%s) is missing", k, what);
		return NULL;
	}
	return tensor(t, op->inputs[k]);
}

/* An activation tensor's per-tensor quantization (int8 or uint8). */
static int act_quant(const struct tl *t, uint32_t i, const struct tfl_tensor *x, const char *what,
		     struct tq *q)
{
	if (x->type != TFL_INT8 && x->type != TFL_UINT8)
		return op_fail(t, i, "%s '%s': type %s (int8 or uint8 expected)", what, x->name,
			       type_name(x->type));
	if (x->n_scale != 1 || x->n_zero_point != 1)
		return op_fail(t, i,
			       "%s '%s': quantization with %u scales and %u zero points (one of "
			       "each expected)",
			       what, x->name, x->n_scale, x->n_zero_point);
	if (x->quant_details)
		return op_fail(t, i, "%s '%s': quantization details type %u are not supported",
			       what, x->name, x->quant_details);
	q->u8 = x->type == TFL_UINT8;
	q->scale = x->scale[0];
	int64_t z = x->zero_point[0], lo = q->u8 ? 0 : -128;
	if (!isfinite(q->scale) || q->scale <= 0.0f)
		return op_fail(t, i, "%s '%s': scale %g (must be finite and > 0)", what, x->name,
			       (double)q->scale);
	if (z < lo || z > lo + 255)
		return op_fail(t, i, "%s '%s': zero point %lld (must be %lld..%lld)", what, x->name,
			       (long long)z, (long long)lo, (long long)lo + 255);
	q->zp = (int32_t)z - (q->u8 ? 128 : 0);
	return 0;
}

/* The quantized zero point as the tensor's type writes it. */
static int zp_user(const struct tq *q)
{
	return (int)q->zp + (q->u8 ? 128 : 0);
}

/* A pooling or reshape keeps the quantization: its output's must be the chain's. */
static int same_q(const struct tl *t, uint32_t i, const struct tq *yq)
{
	const struct tq *q = &t->q;
	if (!memcmp(&yq->scale, &q->scale, sizeof(float)) && yq->zp == q->zp && yq->u8 == q->u8)
		return 0;
	return op_fail(t, i, "output quantization (%g, %d) differs from the input's (%g, %d)",
		       (double)yq->scale, zp_user(yq), (double)q->scale, zp_user(q));
}

/* A constant tensor's data: exactly elems values of elem_size bytes. */
static int const_data(const struct tl *t, uint32_t i, const struct tfl_tensor *x, const char *what,
		      size_t elems, size_t elem_size, const uint8_t **data)
{
	if (!x->buffer || x->buffer >= t->f->n_buffers || !t->f->buffers[x->buffer].size)
		return op_fail(t, i, "%s '%s': not a constant (buffer %u has no data)", what,
			       x->name, x->buffer);
	const struct tfl_buffer *b = &t->f->buffers[x->buffer];
	if (b->size != elems * elem_size)
		return op_fail(t, i, "%s '%s': buffer %u has %zu bytes, the shape needs %zu", what,
			       x->name, x->buffer, b->size, elems * elem_size);
	*data = b->data;
	return 0;
}

/* The output tensor of operator i and its per-example shape check. */
static int check_out_shape(const struct tl *t, uint32_t i, const struct tfl_tensor *y, uint32_t h,
			   uint32_t w, uint32_t c)
{
	uint64_t want = (uint64_t)h * w * c, got = 1;
	bool ok = y->has_shape && y->rank >= 2 && y->shape[0] == t->batch;
	for (uint32_t k = 1; ok && k < y->rank; k++) {
		if (y->shape[k] < 1)
			ok = false;
		else
			got *= (uint64_t)y->shape[k];
	}
	if (ok && y->rank == 4)
		ok = (uint32_t)y->shape[1] == h && (uint32_t)y->shape[2] == w &&
		     (uint32_t)y->shape[3] == c;
	if (!ok || got != want) {
		char s[96] = "";
		size_t n = 0;
		for (uint32_t k = 0; k < y->rank && n < sizeof(s) - 16; k++)
			n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%d", k ? ", " : "",
					      (int)y->shape[k]);
		return op_fail(t, i,
			       "output '%s' has shape [%s], the operator gives [%d, %u, %u, %u] "
			       "(inconsistent shapes)",
			       y->name, s, (int)t->batch, h, w, c);
	}
	return 0;
}

/* The clamp LiteRT applies for a fused activation on an output quantized with q
 * (CalculateActivationRangeQuantized: zero_point + round(f / scale), in float, ties away from
 * zero, within the type's range), as the int8 form's bounds. */
static int tfl_clamp(const struct tl *t, uint32_t i, int32_t act, const struct tq *q, int32_t *lo,
		     int32_t *hi)
{
	int32_t z = zp_user(q), tmin = q->u8 ? 0 : -128, tmax = q->u8 ? 255 : 127;
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
		return op_fail(t, i, "option fused_activation_function = %d is not supported", act);
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
	return op_fail(t, i,
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
		return op_fail(t, i, "option stride_%s = %d (must be 1..65535)", axis, (int)s);
	if (k < 1 || k > 65535)
		return op_fail(t, i, "kernel %s %d (must be 1..65535)",
			       axis[0] == 'h' ? "height" : "width", (int)k);
	int64_t o;
	if (padding == TFL_PAD_VALID)
		o = ((int64_t)in + s - k) / s;
	else if (padding == TFL_PAD_SAME)
		o = ((int64_t)in + s - 1) / s;
	else
		return op_fail(t, i, "option padding = %d (SAME or VALID expected)", (int)padding);
	if (o < 1)
		return op_fail(t, i, "kernel %s %d does not fit the input's %u",
			       axis[0] == 'h' ? "height" : "width", (int)k, in);
	int64_t total = padding == TFL_PAD_SAME ? (o - 1) * s + k - (int64_t)in : 0;
	if (total < 0)
		total = 0;
	*out = (uint32_t)o;
	*lo = (uint32_t)(total / 2);
	*hi = (uint32_t)(total - total / 2);
	return 0;
}

static struct tpu_layer *new_layer(struct tl *t, uint32_t i, uint32_t type)
{
	if (t->m->n_layers == TPU_MODEL_MAX_LAYERS) {
		op_fail(t, i, "more than %d layers", TPU_MODEL_MAX_LAYERS);
		return NULL;
	}
	t->layer_op[t->m->n_layers] = i;
	struct tpu_layer *l = &t->m->layers[t->m->n_layers++];
	l->type = type;
	return l;
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
	const struct tfl_tensor *x = op_input(t, i, 1, "weights", &rc);
	if (!x)
		return rc;
	if (x->type != TFL_INT8 && x->type != TFL_UINT8)
		return op_fail(t, i, "weights '%s': type %s (int8 expected)", x->name,
			       type_name(x->type));
	bool shape_ok = x->has_shape && x->rank == rank;
	for (uint32_t k = 0; shape_ok && k < rank; k++)
		shape_ok = x->shape[k] >= 0 && (uint32_t)x->shape[k] == dims[k];
	if (!shape_ok)
		return op_fail(t, i, "weights '%s': shape of rank %u does not match the %u-D %s",
			       x->name, x->rank, rank, "shape the input and options give");
	uint32_t oc = dims[chan];
	size_t count = 1;
	for (uint32_t k = 0; k < rank; k++)
		count *= dims[k];
	const uint8_t *data;
	if ((rc = const_data(t, i, x, "weights", count, 1, &data)))
		return rc;
	if (x->quant_details || x->n_scale < 1 || (x->n_scale != 1 && x->n_scale != oc))
		return op_fail(t, i, "weights '%s': %u scales (1 or %u expected)", x->name,
			       x->n_scale, oc);
	if (x->n_scale > 1 &&
	    (x->quantized_dimension < 0 || (uint32_t)x->quantized_dimension != chan))
		return op_fail(t, i,
			       "weights '%s': quantized_dimension = %d (per-channel scales must be "
			       "along dimension %u, the output channels)",
			       x->name, (int)x->quantized_dimension, chan);
	if (x->n_zero_point != x->n_scale && x->n_zero_point > 1)
		return op_fail(t, i, "weights '%s': %u zero points for %u scales", x->name,
			       x->n_zero_point, x->n_scale);
	bool u8 = x->type == TFL_UINT8;
	for (uint32_t j = 0; j < x->n_zero_point; j++)
		if (x->zero_point[j] != (u8 ? 128 : 0))
			return op_fail(
			    t, i,
			    "weights '%s': zero point %lld (channel %u): only int8 "
			    "weights with zero point 0 (or uint8 with 128) are supported",
			    x->name, (long long)x->zero_point[j], j);
	if (!(w->scale = malloc(oc * sizeof(float))) || !(w->bias = calloc(oc, sizeof(int32_t))))
		goto nomem;
	for (uint32_t j = 0; j < oc; j++) {
		w->scale[j] = x->scale[x->n_scale == 1 ? 0 : j];
		if (!isfinite(w->scale[j]) || w->scale[j] <= 0.0f) {
			rc = op_fail(t, i, "weights '%s': scale[%u] = %g (must be finite and > 0)",
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
		rc = op_fail(t, i, "%u inputs (at most 3 expected)", op->n_inputs);
		goto fail;
	}
	if (op->n_inputs < 3 || op->inputs[2] < 0)
		return 0;
	const struct tfl_tensor *b = tensor(t, op->inputs[2]);
	if (b->type != TFL_INT32 || !b->has_shape || b->rank != 1 || b->shape[0] != (int32_t)oc) {
		rc = op_fail(t, i, "bias '%s': %s of rank %u (int32 [%u] expected)", b->name,
			     type_name(b->type), b->rank, oc);
		goto fail;
	}
	if ((rc = const_data(t, i, b, "bias", oc, 4, &data)))
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
			rc = op_fail(t, i,
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
				return op_fail(t, i,
					       "output scale in_scale * w_scale[%u] / out_scale = "
					       "%g is outside the requantizer's range",
					       j, (double)(p / yq->scale));
		} else {
			double r = (double)t->q.scale * (double)l->w_scale[j] / (double)yq->scale;
			if (tpu_quantize_multiplier(r, &l->multiplier[j], &shift))
				return op_fail(t, i,
					       "multiplier in_scale * w_scale[%u] / out_scale = %g "
					       "is outside the requantizer's range",
					       j, r);
		}
		l->shift[j] = shift;
		if (l->round == TPU_ROUND_SINGLE && l->multiplier[j]) {
			int e = 30 - shift - ctz32((uint32_t)l->multiplier[j]);
			double bound = (double)K * 255.0 * 128.0 + fabs((double)l->bias[j]);
			if (e < 62 && ldexp(1.0, e) <= bound)
				return op_fail(
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

/* The output tensor of operator i (one, a new tensor). */
static int op_output(const struct tl *t, uint32_t i, const struct tfl_tensor **y)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (op->n_outputs != 1 || !(*y = tensor(t, op->outputs[0])))
		return op_fail(t, i, "%u outputs (one expected)", op->n_outputs);
	return 0;
}

static int need_options(const struct tl *t, uint32_t i, uint8_t type, const char *name)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (op->options_type != type)
		return op_fail(t, i, "builtin_options of type %u (%s, type %u, expected)",
			       op->options_type, name, type);
	return 0;
}

/* The chain's tensor must have the shape its last layer produced (a CONV2D or pool reads it);
 * before any layer the model's input takes the reshaped shape. */
static int need_spatial(struct tl *t, uint32_t i)
{
	if (!t->spatial && !t->m->n_layers) {
		t->m->in_h = t->h;
		t->m->in_w = t->w;
		t->m->in_c = t->c;
		t->spatial = true;
	}
	if (!t->spatial)
		return op_fail(t, i,
			       "input reshaped to %u x %u x %u after a layer: the model format "
			       "cannot reshape before a convolution or pooling",
			       t->h, t->w, t->c);
	return 0;
}

static int lower_conv(struct tl *t, uint32_t i, bool depthwise)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_options *o = &op->opt;
	const struct tfl_tensor *x, *y, *wt;
	struct tq yq;
	int rc = need_options(t, i, depthwise ? TFL_OPT_DEPTHWISE_CONV2D : TFL_OPT_CONV2D,
			      depthwise ? "DepthwiseConv2DOptions" : "Conv2DOptions");
	if (rc || (rc = need_spatial(t, i)) || (rc = op_output(t, i, &y)) ||
	    (rc = act_quant(t, i, y, "output", &yq)))
		return rc;
	if (!(x = op_input(t, i, 0, "input", &rc)) || !(wt = op_input(t, i, 1, "weights", &rc)))
		return rc;
	if (o->dilation_w < 1 || o->dilation_h < 1 || o->dilation_w > 65535 ||
	    o->dilation_h > 65535)
		return op_fail(t, i,
			       "options dilation_w_factor = %d, dilation_h_factor = %d (must be "
			       "1..65535)",
			       (int)o->dilation_w, (int)o->dilation_h);
	if (!wt->has_shape || wt->rank != 4)
		return op_fail(t, i, "weights '%s': rank %u (4 expected)", wt->name, wt->rank);
	uint32_t oc = (uint32_t)wt->shape[depthwise ? 3 : 0], kh = (uint32_t)wt->shape[1],
		 kw = (uint32_t)wt->shape[2];
	if (depthwise) {
		/* a grouped convolution with one input channel a group (groups = input channels) */
		if (oc % t->c ||
		    (o->depth_multiplier != (int32_t)(oc / t->c) && o->depth_multiplier != 0))
			return op_fail(t, i,
				       "option depth_multiplier = %d does not match the weights' "
				       "%u output channels for %u input channels",
				       (int)o->depth_multiplier, oc, t->c);
	}
	if (wt->shape[0] < 1 || wt->shape[1] < 1 || wt->shape[2] < 1 || wt->shape[3] < 1 ||
	    wt->shape[1] > 65535 || wt->shape[2] > 65535 || oc > 65535)
		return op_fail(t, i, "weights '%s': dimensions outside 1..65535", wt->name);
	uint32_t dims[4] = {depthwise ? 1 : oc, kh, kw, depthwise ? oc : t->c};
	/* the dilated kernel's extent (TFLite's ComputeOutSize / ComputePaddingWithOffset) */
	int64_t ekh = ((int64_t)kh - 1) * o->dilation_h + 1, ekw = ((int64_t)kw - 1) * o->dilation_w + 1;
	if (ekh > 65535 || ekw > 65535)
		return op_fail(t, i, "the dilated kernel %lld x %lld is larger than 65535",
			       (long long)ekh, (long long)ekw);
	uint32_t oh, ow, pt, pb, pl, pr;
	if ((rc = window(t, i, o->padding, t->h, (int32_t)ekh, o->stride_h, "h", &oh, &pt, &pb)) ||
	    (rc = window(t, i, o->padding, t->w, (int32_t)ekw, o->stride_w, "w", &ow, &pl, &pr)) ||
	    (rc = check_out_shape(t, i, y, oh, ow, oc)))
		return rc;
	struct wts w;
	if ((rc = read_weights(t, i, 4, dims, depthwise ? 3 : 0, &w)))
		return rc;
	struct tpu_layer *l = new_layer(t, i, TPU_LAYER_CONV2D);
	size_t K = (size_t)kh * kw * (depthwise ? 1 : t->c); /* the weights' rows */
	if (!l || !(l->weights = malloc(K * oc))) {
		wts_free(&w);
		return l ? (tl_fail(t, "out of memory"), -ENOMEM) : -EINVAL;
	}
	l->kernel_h = kh;
	l->kernel_w = kw;
	l->stride_h = (uint32_t)o->stride_h;
	l->stride_w = (uint32_t)o->stride_w;
	l->pad_top = pt;
	l->pad_bottom = pb;
	l->pad_left = pl;
	l->pad_right = pr;
	if (o->dilation_h > 1 || o->dilation_w > 1) {
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
	t->cur = op->outputs[0];
	return rc;
}

static int lower_fc(struct tl *t, uint32_t i)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_options *o = &op->opt;
	const struct tfl_tensor *y, *wt;
	struct tq yq;
	int rc = need_options(t, i, TFL_OPT_FULLY_CONNECTED, "FullyConnectedOptions");
	if (rc || (rc = op_output(t, i, &y)) || (rc = act_quant(t, i, y, "output", &yq)))
		return rc;
	if (o->weights_format != 0)
		return op_fail(t, i, "option weights_format = %d (only DEFAULT is supported)",
			       (int)o->weights_format);
	if (o->has_quant_spec)
		return op_fail(t, i, "option quant_spec is not supported");
	if (!(wt = op_input(t, i, 1, "weights", &rc)))
		return rc;
	uint32_t K = t->h * t->w * t->c;
	if (!wt->has_shape || wt->rank != 2 || wt->shape[0] < 1 || wt->shape[0] > 65535 ||
	    wt->shape[1] < 1)
		return op_fail(t, i, "weights '%s': not of shape [outputs 1..65535, inputs]",
			       wt->name);
	uint32_t N = (uint32_t)wt->shape[0];
	if ((uint32_t)wt->shape[1] != K)
		return op_fail(t, i,
			       "weights '%s' have %d inputs, the input has %u values per example "
			       "(only a whole-example FULLY_CONNECTED is supported)",
			       wt->name, (int)wt->shape[1], K);
	if ((rc = check_out_shape(t, i, y, 1, 1, N)))
		return rc;
	uint32_t dims[2] = {N, K};
	struct wts w;
	if ((rc = read_weights(t, i, 2, dims, 0, &w)))
		return rc;
	struct tpu_layer *l = new_layer(t, i, TPU_LAYER_DENSE);
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
static int lower_pool(struct tl *t, uint32_t i, bool avg)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_options *o = &op->opt;
	const struct tfl_tensor *y;
	struct tq yq;
	uint32_t act;
	int rc = need_options(t, i, TFL_OPT_POOL2D, "Pool2DOptions");
	if (rc || (rc = need_spatial(t, i)) || (rc = op_output(t, i, &y)) ||
	    (rc = act_quant(t, i, y, "output", &yq)))
		return rc;
	if ((rc = same_q(t, i, &yq)))
		return rc;
	if (avg && t->kernels == TPU_TFLITE_XNNPACK)
		return op_fail(t, i,
			       "XNNPACK's average pooling requantizes in float: no pooling mode of "
			       "the model format reproduces it (--kernels reference does)");
	if ((rc = pick_act(t, i, o->act, &yq, !avg, &act)))
		return rc;
	uint32_t oh, ow, pt, pb, pl, pr;
	if ((rc = window(t, i, o->padding, t->h, o->filter_h, o->stride_h, "h", &oh, &pt, &pb)) ||
	    (rc = window(t, i, o->padding, t->w, o->filter_w, o->stride_w, "w", &ow, &pl, &pr)) ||
	    (rc = check_out_shape(t, i, y, oh, ow, t->c)))
		return rc;
	struct tpu_layer *l = new_layer(t, i, avg ? TPU_LAYER_AVGPOOL2D : TPU_LAYER_MAXPOOL2D);
	if (!l)
		return -EINVAL;
	l->kernel_h = (uint32_t)o->filter_h;
	l->kernel_w = (uint32_t)o->filter_w;
	l->stride_h = (uint32_t)o->stride_h;
	l->stride_w = (uint32_t)o->stride_w;
	l->pad_top = pt;
	l->pad_bottom = pb;
	l->pad_left = pl;
	l->pad_right = pr;
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

static int lower_reshape(struct tl *t, uint32_t i)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_tensor *y;
	struct tq yq;
	int rc = op_output(t, i, &y);
	if (rc || (rc = act_quant(t, i, y, "output", &yq)))
		return rc;
	if (op->options_type != TFL_OPT_NONE && op->options_type != TFL_OPT_RESHAPE)
		return need_options(t, i, TFL_OPT_RESHAPE, "ReshapeOptions");
	if ((rc = same_q(t, i, &yq)))
		return rc;
	/* the new shape is the output tensor's (LiteRT checks it against the shape input or
	 * option when it runs); its first dimension stays the batch */
	if (!y->has_shape || y->rank < 2 || y->rank > 4)
		return op_fail(t, i, "output '%s': rank %u (2 to 4 expected)", y->name, y->rank);
	uint32_t d[3] = {1, 1, 1};
	for (uint32_t k = 1; k < y->rank; k++) {
		if (y->shape[k] < 1 || y->shape[k] > 65535)
			return op_fail(t, i, "output '%s': dimension %u = %d (must be 1..65535)",
				       y->name, k, (int)y->shape[k]);
		d[3 - y->rank + k] = (uint32_t)y->shape[k];
	}
	if ((rc = check_out_shape(t, i, y, d[0], d[1], d[2])))
		return rc;
	if (d[0] != t->h || d[1] != t->w || d[2] != t->c)
		t->spatial = false; /* a DENSE may follow, a CONV2D or pool only before any layer */
	t->h = d[0];
	t->w = d[1];
	t->c = d[2];
	t->cur = op->outputs[0];
	return 0;
}

/* QUANTIZE of the float input, or of a uint8 input/output to the int8 tensor of the same real
 * values (a scale kept, the zero point moved by 128). */
static int lower_quantize(struct tl *t, uint32_t i, bool last)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_tensor *y, *x = tensor(t, t->cur);
	struct tq yq;
	int rc = op_output(t, i, &y);
	if (rc || (rc = act_quant(t, i, y, "output", &yq)))
		return rc;
	if ((rc = check_out_shape(t, i, y, t->h, t->w, t->c)))
		return rc;
	t->cur = op->outputs[0];
	if (!t->quantized) {
		/* measured (tests/tflite/litert_check.py): the reference QUANTIZE rounds
		 * fp32(x / scale) half away from zero, as tpu_model_quantize_input does; the
		 * optimized one and XNNPACK's round x * fp32(1 / scale) half to even */
		if (t->kernels == TPU_TFLITE_XNNPACK)
			return op_fail(t, i,
				       "a float input: LiteRT's optimized QUANTIZE rounds x * (1 / "
				       "scale) half to even, which the model format's input "
				       "quantization (x / scale) does not reproduce; import with "
				       "the reference kernel set, or a model with an int8 input");
		t->m->in.scale = yq.scale;
		t->m->in.zero_point = yq.zp;
		t->m->in_type = yq.u8 ? TPU_IO_UINT8 : TPU_IO_INT8;
		t->m->in_round = TPU_INPUT_ROUND_AWAY; /* TfLiteRound(x / scale) */
		t->quantized = true;
		t->q = yq;
		return 0;
	}
	/* the same real values in the other type: uint8 input -> int8, int8 output -> uint8 */
	bool ok = !memcmp(&yq.scale, &t->q.scale, sizeof(float)) && yq.zp == t->q.zp &&
		  yq.u8 != t->q.u8 && (last ? yq.u8 : !t->m->n_layers);
	if (!ok)
		return op_fail(t, i,
			       "from %s (%g, %d) to %s (%g, %d): only a float input, a uint8 input "
			       "or an int8 output with the same scale and zero points 128 apart is "
			       "supported",
			       type_name(x->type), (double)t->q.scale, zp_user(&t->q),
			       type_name(y->type), (double)yq.scale, zp_user(&yq));
	t->q.u8 = last; /* the model's in_type stays UINT8, its out_type becomes UINT8 */
	return 0;
}

/* The graph's one input: float32, int8 or uint8; [N, H, W, C] or [N, K]. */
static int read_input(struct tl *t)
{
	const struct tfl_model *f = t->f;
	if (f->n_inputs != 1 || f->n_outputs != 1)
		return tl_fail(t,
			       "the subgraph has %u inputs and %u outputs (one of each expected)",
			       f->n_inputs, f->n_outputs);
	const struct tfl_tensor *x = tensor(t, f->inputs[0]);
	if (!x || !tensor(t, f->outputs[0]))
		return tl_fail(t, "the subgraph's input or output is not a tensor index");
	if (x->type != TFL_FLOAT32 && x->type != TFL_INT8 && x->type != TFL_UINT8)
		return tl_fail(t, "input tensor '%s': type %s (float32, int8 or uint8 expected)",
			       x->name, type_name(x->type));
	if (!x->has_shape || (x->rank != 2 && x->rank != 4))
		return tl_fail(t, "input tensor '%s': rank %u (2 or 4 expected)", x->name, x->rank);
	for (uint32_t k = 0; k < x->rank; k++)
		if (x->shape[k] < 1 || x->shape[k] > 65535)
			return tl_fail(t, "input tensor '%s': dimension %u = %d (must be 1..65535)",
				       x->name, k, (int)x->shape[k]);
	t->batch = x->shape[0];
	t->h = x->rank == 4 ? (uint32_t)x->shape[1] : 1;
	t->w = x->rank == 4 ? (uint32_t)x->shape[2] : 1;
	t->c = (uint32_t)x->shape[x->rank - 1];
	t->m->in_h = t->h;
	t->m->in_w = t->w;
	t->m->in_c = t->c;
	t->spatial = true;
	t->cur = f->inputs[0];
	t->quantized = x->type != TFL_FLOAT32;
	if (t->quantized) {
		int rc = act_quant(t, NO_OP, x, "input tensor", &t->q);
		if (rc)
			return rc;
		t->m->in.scale = t->q.scale;
		t->m->in.zero_point = t->q.zp;
		t->m->in_type = t->q.u8 ? TPU_IO_UINT8 : TPU_IO_INT8;
	}
	return 0;
}

/* Every index in range and nothing the importer cannot see through (custom, sparse,
 * variable or external data). */
static int check_refs(struct tl *t)
{
	const struct tfl_model *f = t->f;
	for (uint32_t k = 0; k < f->n_tensors; k++) {
		const struct tfl_tensor *x = &f->tensors[k];
		if (x->buffer >= f->n_buffers)
			return tl_fail(t, "tensor %u '%s': buffer %u (the model has %u)", k,
				       x->name, x->buffer, f->n_buffers);
		const struct tfl_buffer *b = &f->buffers[x->buffer];
		if (x->sparse || x->is_variable || x->external_buffer || b->offset > 1)
			return tl_fail(t, "tensor %u '%s': %s tensors are not supported", k,
				       x->name,
				       x->sparse	? "sparse"
				       : x->is_variable ? "variable"
							: "externally stored");
	}
	for (uint32_t i = 0; i < f->n_ops; i++) {
		const struct tfl_operator *op = &f->ops[i];
		if (op->opcode_index >= f->n_opcodes)
			return tl_fail(t, "operator %u: opcode_index %u (the model has %u)", i,
				       op->opcode_index, f->n_opcodes);
		if (f->opcodes[op->opcode_index].custom || op->has_custom_options)
			return op_fail(t, i, "custom operators are not supported");
		for (uint32_t k = 0; k < op->n_inputs + op->n_outputs; k++) {
			int32_t v =
			    k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
			if (v < -1 || v >= (int32_t)f->n_tensors || (v < 0 && k >= op->n_inputs))
				return op_fail(t, i, "%s %u: tensor index %d (the model has %u)",
					       k < op->n_inputs ? "input" : "output",
					       k < op->n_inputs ? k : k - op->n_inputs, (int)v,
					       f->n_tensors);
		}
	}
	return 0;
}

/* How many operator inputs read tensor v. */
static uint32_t readers(const struct tl *t, int32_t v)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->f->n_ops; i++)
		for (uint32_t k = 0; k < t->f->ops[i].n_inputs; k++)
			n += t->f->ops[i].inputs[k] == v;
	return n;
}

static int walk(struct tl *t)
{
	const struct tfl_model *f = t->f;
	int rc = check_refs(t);
	if (rc || (rc = read_input(t)))
		return rc;
	if (!f->n_ops)
		return tl_fail(t, "the subgraph has no operators");
	for (uint32_t i = 0; i < f->n_ops; i++) {
		const struct tfl_operator *op = &f->ops[i];
		bool last = i + 1 == f->n_ops;
		if (!op->n_inputs || op->inputs[0] != t->cur)
			return op_fail(t, i,
				       "input 0 is not tensor %d, the output of the operator "
				       "before (the import takes one chain, in order)",
				       (int)t->cur);
		if (readers(t, t->cur) != 1 || t->cur == f->outputs[0])
			return op_fail(t, i, "tensor %d is read by %u operators%s (one expected)",
				       (int)t->cur, readers(t, t->cur),
				       t->cur == f->outputs[0] ? " and is the output" : "");
		int32_t code = f->opcodes[op->opcode_index].builtin;
		if (!t->quantized && code != TFL_OP_QUANTIZE)
			return op_fail(t, i, "the float input must be quantized first (QUANTIZE)");
		switch (code) {
		case TFL_OP_QUANTIZE:
			rc = lower_quantize(t, i, last);
			break;
		case TFL_OP_DEQUANTIZE: {
			const struct tfl_tensor *y;
			if (!last)
				return op_fail(t, i, "only a last DEQUANTIZE is supported");
			if ((rc = op_output(t, i, &y)))
				return rc;
			if (y->type != TFL_FLOAT32)
				return op_fail(t, i, "output '%s': type %s (float32 expected)",
					       y->name, type_name(y->type));
			rc = check_out_shape(t, i, y, t->h, t->w, t->c);
			t->cur = op->outputs[0];
			break;
		}
		case TFL_OP_CONV_2D:
		case TFL_OP_DEPTHWISE_CONV_2D:
			rc = lower_conv(t, i, code == TFL_OP_DEPTHWISE_CONV_2D);
			break;
		case TFL_OP_FULLY_CONNECTED:
			rc = lower_fc(t, i);
			break;
		case TFL_OP_MAX_POOL_2D:
		case TFL_OP_AVERAGE_POOL_2D:
			rc = lower_pool(t, i, code == TFL_OP_AVERAGE_POOL_2D);
			break;
		case TFL_OP_RESHAPE:
			rc = lower_reshape(t, i);
			break;
		default:
			return op_fail(t, i, "operator not supported");
		}
		if (rc)
			return rc;
	}
	if (t->cur != f->outputs[0])
		return tl_fail(t, "the last operator's output is not the subgraph's output");
	if (!t->m->n_layers)
		return tl_fail(t, "no layer: the model has no CONV_2D, FULLY_CONNECTED or pooling");
	struct tpu_model *m = t->m;
	m->out_type = t->q.u8 ? TPU_IO_UINT8 : TPU_IO_INT8;
	m->in_range = 1.0f;
	m->num_classes = t->h * t->w * t->c;
	char why[256];
	uint32_t li;
	if (imp_validate(m, why, sizeof(why), &li)) /* name the operator behind the layer */
		return li < m->n_layers ? op_fail(t, t->layer_op[li], "%s", why)
					: tl_fail(t, "%s", why);
	return 0;
}

int tpu_import_tflite_mem(const void *data, size_t len, const char *name,
			  enum tpu_tflite_kernels kernels, struct tpu_model **out, char *err,
			  size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return imp_fail(err, errlen, "no output model");
	*out = NULL;
	if (!data)
		return imp_fail(err, errlen, "no data");
	if (kernels != TPU_TFLITE_REFERENCE && kernels != TPU_TFLITE_XNNPACK)
		return imp_fail(err, errlen, "kernel set %d (reference 0 or XNNPACK 1 expected)",
				(int)kernels);
	struct tfl_model *f;
	int rc = tfl_parse(data, len, &f, err, errlen);
	if (rc)
		return rc;
	struct tl *t = calloc(1, sizeof(*t));
	struct tpu_model *m = calloc(1, sizeof(*m));
	if (!t || !m) {
		rc = -ENOMEM;
		imp_fail(err, errlen, "out of memory");
		goto out;
	}
	*t = (struct tl){.f = f, .m = m, .kernels = kernels, .err = err, .errlen = errlen};
	if (f->n_subgraphs != 1) {
		rc = imp_fail(err, errlen, "%u subgraphs (one expected)", f->n_subgraphs);
		goto out;
	}
	imp_set_name(m, name ? name : f->name, "tflite");
	rc = walk(t);
	if (!rc) {
		*out = m;
		m = NULL;
	}
out:
	tpu_model_free(m);
	free(t);
	tfl_free(f);
	return rc;
}

struct tfl_args {
	const char *name;
	enum tpu_tflite_kernels kernels;
	struct tpu_model **out;
};

static int tflite_mem(const void *data, size_t len, void *ctx, char *err, size_t errlen)
{
	const struct tfl_args *a = ctx;
	return tpu_import_tflite_mem(data, len, a->name, a->kernels, a->out, err, errlen);
}

int tpu_import_tflite(const char *path, const char *name, enum tpu_tflite_kernels kernels,
		      struct tpu_model **out, char *err, size_t errlen)
{
	if (!out)
		return imp_fail(err, errlen, "no output model");
	*out = NULL;
	struct tfl_args a = {name, kernels, out};
	return imp_import_file(path, (1ull << 31) - 1, "flatbuffers' limit", tflite_mem, &a, err,
			       errlen);
}
