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
#include "tflite_priv.h"
#include "tpu/numerics.h"

const char *tl_op_name(const struct tl *t, uint32_t i)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (op->opcode_index >= t->f->n_opcodes)
		return "?";
	const struct tfl_opcode *oc = &t->f->opcodes[op->opcode_index];
	const char *n = oc->custom ? "CUSTOM" : tfl_op_name(oc->builtin);
	return n[0] ? n : "unknown opcode";
}

__attribute__((format(printf, 2, 3))) int tl_fail(const struct tl *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	imp_vfail(t->err, t->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "operator I (OPCODE): <fmt>"; just <fmt> for i = NO_OP. */
__attribute__((format(printf, 3, 4))) int tl_op_fail(const struct tl *t, uint32_t i,
						     const char *fmt, ...)
{
	if (!t->err || !t->errlen)
		return -EINVAL;
	int n =
	    i == NO_OP ? 0 : snprintf(t->err, t->errlen, "operator %u (%s): ", i, tl_op_name(t, i));
	if (n >= 0 && (size_t)n < t->errlen) {
		va_list ap;
		va_start(ap, fmt);
		imp_vfail(t->err + n, t->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

const struct tfl_tensor *tl_tensor(const struct tl *t, int32_t i)
{
	return i >= 0 && (uint32_t)i < t->f->n_tensors ? &t->f->tensors[i] : NULL;
}

const char *tl_type_name(int32_t type)
{
	const char *n = tfl_type_name(type);
	return n[0] ? n : "unknown type";
}

/* Input k of operator i (NULL and an error when absent; -1 marks an omitted optional input). */
const struct tfl_tensor *tl_op_input(const struct tl *t, uint32_t i, uint32_t k, const char *what,
				     int *rc)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (k >= op->n_inputs || op->inputs[k] < 0) {
		*rc = tl_op_fail(t, i, "input %u (%s) is missing", k, what);
		return NULL;
	}
	return tl_tensor(t, op->inputs[k]);
}

/* An activation tensor's per-tensor quantization (int8 or uint8). */
int tl_act_quant(const struct tl *t, uint32_t i, const struct tfl_tensor *x, const char *what,
		 struct tq *q)
{
	if (x->type != TFL_INT8 && x->type != TFL_UINT8)
		return tl_op_fail(t, i, "%s '%s': type %s (int8 or uint8 expected)", what, x->name,
				  tl_type_name(x->type));
	if (x->n_scale != 1 || x->n_zero_point != 1)
		return tl_op_fail(t, i,
				  "%s '%s': quantization with %u scales and %u zero points (one of "
				  "each expected)",
				  what, x->name, x->n_scale, x->n_zero_point);
	if (x->quant_details)
		return tl_op_fail(t, i, "%s '%s': quantization details type %u are not supported",
				  what, x->name, x->quant_details);
	q->u8 = x->type == TFL_UINT8;
	q->scale = x->scale[0];
	int64_t z = x->zero_point[0], lo = q->u8 ? 0 : -128;
	if (!isfinite(q->scale) || q->scale <= 0.0f)
		return tl_op_fail(t, i, "%s '%s': scale %g (must be finite and > 0)", what, x->name,
				  (double)q->scale);
	if (z < lo || z > lo + 255)
		return tl_op_fail(t, i, "%s '%s': zero point %lld (must be %lld..%lld)", what,
				  x->name, (long long)z, (long long)lo, (long long)lo + 255);
	q->zp = (int32_t)z - (q->u8 ? 128 : 0);
	return 0;
}

/* The quantized zero point as the tensor's type writes it. */
int tl_zp_user(const struct tq *q)
{
	return (int)q->zp + (q->u8 ? 128 : 0);
}

/* A pooling or reshape keeps the quantization: its output's must be the chain's. */
int tl_same_q(const struct tl *t, uint32_t i, const struct tq *yq)
{
	const struct tq *q = &t->q;
	if (!memcmp(&yq->scale, &q->scale, sizeof(float)) && yq->zp == q->zp && yq->u8 == q->u8)
		return 0;
	return tl_op_fail(t, i, "output quantization (%g, %d) differs from the input's (%g, %d)",
			  (double)yq->scale, tl_zp_user(yq), (double)q->scale, tl_zp_user(q));
}

/* A constant tensor's data: exactly elems values of elem_size bytes. */
int tl_const_data(const struct tl *t, uint32_t i, const struct tfl_tensor *x, const char *what,
		  size_t elems, size_t elem_size, const uint8_t **data)
{
	if (!x->buffer || x->buffer >= t->f->n_buffers || !t->f->buffers[x->buffer].size)
		return tl_op_fail(t, i, "%s '%s': not a constant (buffer %u has no data)", what,
				  x->name, x->buffer);
	const struct tfl_buffer *b = &t->f->buffers[x->buffer];
	if (b->size != elems * elem_size)
		return tl_op_fail(t, i, "%s '%s': buffer %u has %zu bytes, the shape needs %zu",
				  what, x->name, x->buffer, b->size, elems * elem_size);
	*data = b->data;
	return 0;
}

/* The output tensor of operator i and its per-example shape check. */
int tl_check_out_shape(const struct tl *t, uint32_t i, const struct tfl_tensor *y, uint32_t h,
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
		return tl_op_fail(t, i,
				  "output '%s' has shape [%s], the operator gives [%d, %u, %u, %u] "
				  "(inconsistent shapes)",
				  y->name, s, (int)t->batch, h, w, c);
	}
	return 0;
}

struct tpu_layer *tl_new_layer(struct tl *t, uint32_t i, uint32_t type)
{
	if (t->m->n_layers == TPU_MODEL_MAX_LAYERS) {
		tl_op_fail(t, i, "more than %d layers", TPU_MODEL_MAX_LAYERS);
		return NULL;
	}
	t->layer_op[t->m->n_layers] = i;
	struct tpu_layer *l = &t->m->layers[t->m->n_layers++];
	l->type = type;
	return l;
}

int tl_op_output(const struct tl *t, uint32_t i, const struct tfl_tensor **y)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (op->n_outputs != 1 || !(*y = tl_tensor(t, op->outputs[0])))
		return tl_op_fail(t, i, "%u outputs (one expected)", op->n_outputs);
	return 0;
}

int tl_need_options(const struct tl *t, uint32_t i, uint8_t type, const char *name)
{
	const struct tfl_operator *op = &t->f->ops[i];
	if (op->options_type != type)
		return tl_op_fail(t, i, "builtin_options of type %u (%s, type %u, expected)",
				  op->options_type, name, type);
	return 0;
}

/* The chain's tensor must have the shape its last layer produced (a CONV2D or pool reads it);
 * before any layer the model's input takes the reshaped shape. */
int tl_need_spatial(struct tl *t, uint32_t i)
{
	if (!t->spatial && !t->m->n_layers) {
		t->m->in_h = t->h;
		t->m->in_w = t->w;
		t->m->in_c = t->c;
		t->spatial = true;
	}
	if (!t->spatial)
		return tl_op_fail(t, i,
				  "input reshaped to %u x %u x %u after a layer: the model format "
				  "cannot reshape before a convolution or pooling",
				  t->h, t->w, t->c);
	return 0;
}

static int lower_reshape(struct tl *t, uint32_t i)
{
	const struct tfl_operator *op = &t->f->ops[i];
	const struct tfl_tensor *y;
	struct tq yq;
	int rc = tl_op_output(t, i, &y);
	if (rc || (rc = tl_act_quant(t, i, y, "output", &yq)))
		return rc;
	if (op->options_type != TFL_OPT_NONE && op->options_type != TFL_OPT_RESHAPE)
		return tl_need_options(t, i, TFL_OPT_RESHAPE, "ReshapeOptions");
	if ((rc = tl_same_q(t, i, &yq)))
		return rc;
	/* the new shape is the output tensor's (LiteRT checks it against the shape input or
	 * option when it runs); its first dimension stays the batch */
	if (!y->has_shape || y->rank < 2 || y->rank > 4)
		return tl_op_fail(t, i, "output '%s': rank %u (2 to 4 expected)", y->name, y->rank);
	uint32_t d[3] = {1, 1, 1};
	for (uint32_t k = 1; k < y->rank; k++) {
		if (y->shape[k] < 1 || y->shape[k] > 65535)
			return tl_op_fail(t, i, "output '%s': dimension %u = %d (must be 1..65535)",
					  y->name, k, (int)y->shape[k]);
		d[3 - y->rank + k] = (uint32_t)y->shape[k];
	}
	if ((rc = tl_check_out_shape(t, i, y, d[0], d[1], d[2])))
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
	const struct tfl_tensor *y, *x = tl_tensor(t, t->cur);
	struct tq yq;
	int rc = tl_op_output(t, i, &y);
	if (rc || (rc = tl_act_quant(t, i, y, "output", &yq)))
		return rc;
	if ((rc = tl_check_out_shape(t, i, y, t->h, t->w, t->c)))
		return rc;
	t->cur = op->outputs[0];
	if (!t->quantized) {
		/* measured (tests/tflite/litert_check.py): the reference QUANTIZE rounds
		 * fp32(x / scale) half away from zero, as tpu_model_quantize_input does; the
		 * optimized one and XNNPACK's round x * fp32(1 / scale) half to even */
		if (t->kernels == TPU_TFLITE_XNNPACK)
			return tl_op_fail(
			    t, i,
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
		return tl_op_fail(
		    t, i,
		    "from %s (%g, %d) to %s (%g, %d): only a float input, a uint8 input "
		    "or an int8 output with the same scale and zero points 128 apart is "
		    "supported",
		    tl_type_name(x->type), (double)t->q.scale, tl_zp_user(&t->q),
		    tl_type_name(y->type), (double)yq.scale, tl_zp_user(&yq));
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
	const struct tfl_tensor *x = tl_tensor(t, f->inputs[0]);
	if (!x || !tl_tensor(t, f->outputs[0]))
		return tl_fail(t, "the subgraph's input or output is not a tensor index");
	if (x->type != TFL_FLOAT32 && x->type != TFL_INT8 && x->type != TFL_UINT8)
		return tl_fail(t, "input tensor '%s': type %s (float32, int8 or uint8 expected)",
			       x->name, tl_type_name(x->type));
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
		int rc = tl_act_quant(t, NO_OP, x, "input tensor", &t->q);
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
			return tl_op_fail(t, i, "custom operators are not supported");
		for (uint32_t k = 0; k < op->n_inputs + op->n_outputs; k++) {
			int32_t v =
			    k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
			if (v < -1 || v >= (int32_t)f->n_tensors || (v < 0 && k >= op->n_inputs))
				return tl_op_fail(t, i, "%s %u: tensor index %d (the model has %u)",
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
			return tl_op_fail(t, i,
					  "input 0 is not tensor %d, the output of the operator "
					  "before (the import takes one chain, in order)",
					  (int)t->cur);
		if (readers(t, t->cur) != 1 || t->cur == f->outputs[0])
			return tl_op_fail(t, i,
					  "tensor %d is read by %u operators%s (one expected)",
					  (int)t->cur, readers(t, t->cur),
					  t->cur == f->outputs[0] ? " and is the output" : "");
		int32_t code = f->opcodes[op->opcode_index].builtin;
		if (!t->quantized && code != TFL_OP_QUANTIZE)
			return tl_op_fail(t, i,
					  "the float input must be quantized first (QUANTIZE)");
		switch (code) {
		case TFL_OP_QUANTIZE:
			rc = lower_quantize(t, i, last);
			break;
		case TFL_OP_DEQUANTIZE: {
			const struct tfl_tensor *y;
			if (!last)
				return tl_op_fail(t, i, "only a last DEQUANTIZE is supported");
			if ((rc = tl_op_output(t, i, &y)))
				return rc;
			if (y->type != TFL_FLOAT32)
				return tl_op_fail(t, i, "output '%s': type %s (float32 expected)",
						  y->name, tl_type_name(y->type));
			rc = tl_check_out_shape(t, i, y, t->h, t->w, t->c);
			t->cur = op->outputs[0];
			break;
		}
		case TFL_OP_CONV_2D:
		case TFL_OP_DEPTHWISE_CONV_2D:
			rc = tl_lower_conv(t, i, code == TFL_OP_DEPTHWISE_CONV_2D);
			break;
		case TFL_OP_FULLY_CONNECTED:
			rc = tl_lower_fc(t, i);
			break;
		case TFL_OP_MAX_POOL_2D:
		case TFL_OP_AVERAGE_POOL_2D:
			rc = tl_lower_pool(t, i, code == TFL_OP_AVERAGE_POOL_2D);
			break;
		case TFL_OP_RESHAPE:
			rc = lower_reshape(t, i);
			break;
		default:
			return tl_op_fail(t, i, "operator not supported");
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
		return li < m->n_layers ? tl_op_fail(t, t->layer_op[li], "%s", why)
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
