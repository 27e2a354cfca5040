/* ONNX import (include/tpu/import.h, docs/import.md): the graph is walked as one chain from its
 * input; each node, or each QDQ group (DequantizeLinear -> Conv/MatMul/Gemm -> [Relu/Clip] ->
 * QuantizeLinear), becomes one layer, or changes only the shape or quantization that the chain
 * carries. MatMulInteger and ConvInteger become the model's int32 output layer, an Add of an
 * int32 constant after them its bias. Layers requantize with TPU_ROUND_FLOAT: ONNX Runtime's
 * QLinearConv, QLinearMatMul and QGemm compute the output scale as x_scale * w_scale / y_scale in
 * fp32 (onnxruntime/core/ providers/cpu/quantization/qlinearconv.cc, quantize_linear_matmul.cc,
 * contrib_ops/cpu/ quantization/quant_gemm.cc) and round in fp32, half to even (MLAS), which FLOAT
 * reproduces. */
#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_util.h"
#include "onnx_graph.h"
#include "onnx_quant.h"
#include "onnx_requant.h"
#include "onnx_window.h"
#include "tpu/import.h"
#include "tpu/numerics.h"

/* The float scales that metadata_props "tpu.scales" records for the integer form of tpu export
 * (onnx_export.c): the input's and, per layer index, the output and weight scales. */
struct scales {
	bool have_in;
	float in;
	float out[TPU_MODEL_MAX_LAYERS];
	float *w[TPU_MODEL_MAX_LAYERS]; /* NULL: no line for the layer */
	uint32_t n[TPU_MODEL_MAX_LAYERS];
};

/* The tensor the chain has reached. */
struct chain {
	struct scales sc;
	struct ox x;
	struct tpu_model *m;
	const Onnx__NodeProto *layer_node[TPU_MODEL_MAX_LAYERS]; /* for messages */
	const char *cur;					 /* its name */
	bool quantized; /* false: the float graph input, before its QuantizeLinear */
	bool have_q;	/* q known (the model's input quantization is set) */
	bool q_assumed; /* q is a stand-in: only pools precede (scale 1, zero point 0) */
	bool in_u8;	/* the graph input is uint8 */
	bool raw;	/* the last layer outputs int32 (MatMulInteger, ConvInteger) */
	struct oq_params q;
	uint32_t rank;	  /* 4: NCHW (c, h, w); 3: (batch, rows, columns); 2: (batch, features) */
	uint32_t c, h, w; /* rank 4: the tensor; rank 3: h rows of c columns, w = 1 (held as
			   * h x 1 x c); rank 2: the NCHW tensor it flattens (h = w = 1 for a
			   * 2-D input: c features) */
};

static bool op_is(const Onnx__NodeProto *n, const char *op)
{
	return n && n->op_type && !strcmp(n->op_type, op) &&
	       (!n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx"));
}

/* The single node reading name (its only consumer), or an error. */
static int next_node(struct chain *ch, const Onnx__NodeProto *from, const char *name,
		     const Onnx__NodeProto **out)
{
	size_t count = ox_consumers(&ch->x, name, out);
	if (count == 1 && !ox_is_output(&ch->x, name))
		return 0;
	if (from)
		return ox_node_fail(&ch->x, from,
				    "output '%s' is read by %zu nodes%s (the import takes one "
				    "chain)",
				    name, count,
				    ox_is_output(&ch->x, name) ? " and the graph" : "");
	return ox_fail(&ch->x, "tensor '%s' is read by %zu nodes (the import takes one chain)",
		       name, count);
}

/* Set or check the quantization of the tensor x of n against the chain's. */
static int take_input_q(struct chain *ch, const Onnx__NodeProto *n, const struct oq_params *q,
			const char *what)
{
	if (ch->q_assumed) {
		/* only pools so far: they carry the input's quantization, now known */
		for (uint32_t i = 0; i < ch->m->n_layers; i++) {
			ch->m->layers[i].out.scale = q->scale;
			ch->m->layers[i].out.zero_point = q->zp;
		}
		ch->have_q = ch->q_assumed = false;
	}
	if (!ch->have_q) {
		ch->q = *q;
		ch->have_q = true;
		ch->m->in.scale = q->scale;
		ch->m->in.zero_point = q->zp;
		ch->m->in_type = q->u8 ? TPU_IO_UINT8 : TPU_IO_INT8;
		return 0;
	}
	if (!oq_same(q, &ch->q))
		return ox_node_fail(
		    &ch->x, n, "%s quantization (%g, %d%s) differs from the tensor's (%g, %d%s)",
		    what, (double)q->scale, (int)(q->zp + (q->u8 ? 128 : 0)), q->u8 ? " uint8" : "",
		    (double)ch->q.scale, (int)(ch->q.zp + (ch->q.u8 ? 128 : 0)),
		    ch->q.u8 ? " uint8" : "");
	return 0;
}

static struct tpu_layer *new_layer(struct chain *ch, const Onnx__NodeProto *n, uint32_t type)
{
	if (ch->m->n_layers == TPU_MODEL_MAX_LAYERS) {
		ox_node_fail(&ch->x, n, "more than %d layers", TPU_MODEL_MAX_LAYERS);
		return NULL;
	}
	ch->layer_node[ch->m->n_layers] = n;
	struct tpu_layer *l = &ch->m->layers[ch->m->n_layers++];
	l->type = type;
	return l;
}

/* Per-channel arrays of a CONV2D/DENSE layer from w (its scales), bias (NULL: zeros) and the
 * output quantization; the requantization is FLOAT, as ONNX Runtime's. yq NULL: the int32
 * output layer (no requantization: multiplier and shift 0, out (1, 0)). */
static int finish_layer(struct chain *ch, const Onnx__NodeProto *n, struct tpu_layer *l,
			struct oq_weights *w, int32_t *bias, const struct oq_params *yq)
{
	uint32_t oc = (uint32_t)w->out_c;
	l->out_c = oc;
	l->act = TPU_ACT_NONE;
	l->round = yq ? TPU_ROUND_FLOAT : TPU_ROUND_DOUBLE;
	l->out.scale = yq ? yq->scale : 1.0f;
	l->out.zero_point = yq ? yq->zp : 0;
	l->bias = bias ? bias : calloc(oc, sizeof(int32_t));
	l->w_scale = w->scale;
	w->scale = NULL;
	l->b_zero_point = w->zp;
	l->b_zp_count = (uint32_t)w->zp_count;
	w->zp = NULL;
	l->multiplier = calloc(oc, sizeof(int32_t));
	l->shift = calloc(oc, sizeof(int32_t));
	if (!l->bias || !l->multiplier || !l->shift) {
		ox_fail(&ch->x, "out of memory");
		return -ENOMEM;
	}
	if (!yq) {
		ch->raw = true;
		return 0;
	}
	for (uint32_t j = 0; j < oc; j++) {
		/* fp32, in ONNX Runtime's order; each assignment rounds to float */
		float p = ch->q.scale * l->w_scale[j];
		float r = p / yq->scale;
		int shift;
		if (tpu_float_multiplier(r, &l->multiplier[j], &shift))
			return ox_node_fail(&ch->x, n,
					    "output scale x_scale * w_scale[%u] / y_scale = %g is "
					    "outside the requantizer's range",
					    j, (double)r);
		l->shift[j] = shift;
	}
	ch->q = *yq;
	return 0;
}

/* CONV2D from weights w (M, C, kh, kw) of node n (its window attributes). */
static int lower_conv(struct chain *ch, const Onnx__NodeProto *n, struct oq_weights *w,
		      int32_t *bias, const struct oq_params *yq)
{
	static const char *const attrs[] = {"auto_pad", "dilations", "group", "kernel_shape",
					    "pads",	"strides",   NULL};
	int64_t group;
	struct ow_window win;
	int rc = ox_attrs_allowed(&ch->x, n, attrs);
	if (!rc)
		rc = ox_attr_int(&ch->x, n, "group", 1, &group);
	if (rc)
		goto fail;
	rc = -EINVAL;
	if (ch->rank != 4) {
		ox_node_fail(&ch->x, n, "input of rank %u (a 4-D NCHW tensor expected)", ch->rank);
		goto fail;
	}
	if (group < 1 || group > ch->c || ch->c % group || w->out_c % (size_t)group) {
		ox_node_fail(&ch->x, n,
			     "attribute 'group' = %lld does not divide the %u input and %zu "
			     "output channels",
			     (long long)group, ch->c, w->out_c);
		goto fail;
	}
	if (w->dims[1] * group != ch->c) {
		ox_node_fail(&ch->x, n,
			     "weights have %lld input channels per group, the input %u in %lld "
			     "group(s)",
			     (long long)w->dims[1], ch->c, (long long)group);
		goto fail;
	}
	if ((rc = ow_window(&ch->x, n, ch->h, ch->w, w->dims[2], w->dims[3], false, &win)))
		goto fail;
	struct tpu_layer *l = new_layer(ch, n, TPU_LAYER_CONV2D);
	rc = -EINVAL;
	if (!l)
		goto fail;
	l->kernel_h = win.kernel_h;
	l->kernel_w = win.kernel_w;
	l->stride_h = win.stride_h;
	l->stride_w = win.stride_w;
	l->pad_top = win.pad_top;
	l->pad_bottom = win.pad_bottom;
	l->pad_left = win.pad_left;
	l->pad_right = win.pad_right;
	l->dilation_h = win.dilation_h;
	l->dilation_w = win.dilation_w;
	l->groups = group > 1 ? (uint32_t)group : 0;
	/* C: the input channels of one group (all of them without groups) */
	size_t M = w->out_c, C = ch->c / (size_t)group, KH = win.kernel_h, KW = win.kernel_w;
	l->weights = malloc(w->count ? w->count : 1);
	if (!l->weights) {
		free(bias);
		return -ENOMEM;
	}
	/* OIHW -> HWIO; with groups, I is the channel within the output channel's group */
	for (size_t m = 0; m < M; m++)
		for (size_t c = 0; c < C; c++)
			for (size_t y = 0; y < KH; y++)
				for (size_t x = 0; x < KW; x++)
					l->weights[((y * KW + x) * C + c) * M + m] =
					    w->w[((m * C + c) * KH + y) * KW + x];
	ch->c = (uint32_t)M;
	ch->h = win.out_h;
	ch->w = win.out_w;
	return finish_layer(ch, n, l, w, bias, yq);
fail:
	free(bias);
	return rc;
}

/* A MatMul of a 3-D input (batch, M, K), held as M x 1 x K, by weights w (K, N): each row's
 * product is a 1x1 CONV2D, the output (batch, M, N) held as M x 1 x N. */
static int lower_matmul3d(struct chain *ch, const Onnx__NodeProto *n, struct oq_weights *w,
			  int32_t *bias, const struct oq_params *yq)
{
	size_t K = (size_t)w->dims[0], N = (size_t)w->dims[1];
	if (K != ch->c) {
		free(bias);
		return ox_node_fail(&ch->x, n, "weights have %zu rows, the input %u columns", K,
				    ch->c);
	}
	struct tpu_layer *l = new_layer(ch, n, TPU_LAYER_CONV2D);
	if (!l) {
		free(bias);
		return -EINVAL;
	}
	l->kernel_h = l->kernel_w = l->stride_h = l->stride_w = 1;
	/* HWIO with H = W = 1 is (K, N), ONNX's order */
	l->weights = malloc(K * N);
	if (!l->weights) {
		free(bias);
		return -ENOMEM;
	}
	memcpy(l->weights, w->w, K * N);
	ch->c = (uint32_t)N;
	return finish_layer(ch, n, l, w, bias, yq);
}

/* DENSE from weights w: (K, N), or (N, K) when trans. Row k of ONNX's flattened NCHW input is
 * row (h, w, c) of the model's NHWC one. A MatMul of a 3-D input: lower_matmul3d. */
static int lower_dense(struct chain *ch, const Onnx__NodeProto *n, struct oq_weights *w, bool trans,
		       int32_t *bias, const struct oq_params *yq)
{
	size_t K = (size_t)w->dims[trans ? 1 : 0], N = (size_t)w->dims[trans ? 0 : 1];
	size_t C = ch->c, H = ch->h, W = ch->w;
	if (ch->rank == 3 &&
	    (op_is(n, "MatMul") || op_is(n, "QLinearMatMul") || op_is(n, "MatMulInteger")))
		return lower_matmul3d(ch, n, w, bias, yq);
	if (ch->rank != 2) {
		free(bias);
		return ox_node_fail(&ch->x, n,
				    "input of rank %u (a 2-D tensor expected: Flatten "
				    "or Reshape first)",
				    ch->rank);
	}
	if (K != C * H * W) {
		free(bias);
		return ox_node_fail(&ch->x, n, "weights have %zu rows, the input %zu features", K,
				    C * H * W);
	}
	struct tpu_layer *l = new_layer(ch, n, TPU_LAYER_DENSE);
	if (!l) {
		free(bias);
		return -EINVAL;
	}
	l->weights = malloc(K * N);
	if (!l->weights) {
		free(bias);
		return -ENOMEM;
	}
	for (size_t c = 0; c < C; c++)
		for (size_t y = 0; y < H; y++)
			for (size_t x = 0; x < W; x++) {
				size_t k = (c * H + y) * W + x, kk = (y * W + x) * C + c;
				for (size_t j = 0; j < N; j++)
					l->weights[kk * N + j] =
					    w->w[trans ? j * K + k : k * N + j];
			}
	ch->rank = 2;
	ch->c = (uint32_t)N;
	ch->h = ch->w = 1;
	return finish_layer(ch, n, l, w, bias, yq);
}

/* A pool layer's window fields. */
static void pool_window(struct tpu_layer *l, const struct ow_window *win)
{
	l->kernel_h = win->kernel_h;
	l->kernel_w = win->kernel_w;
	l->stride_h = win->stride_h;
	l->stride_w = win->stride_w;
	l->pad_top = win->pad_top;
	l->pad_bottom = win->pad_bottom;
	l->pad_left = win->pad_left;
	l->pad_right = win->pad_right;
	l->ceil_mode = win->ceil_mode;
}

static int lower_maxpool(struct chain *ch, const Onnx__NodeProto *n)
{
	static const char *const attrs[] = {"auto_pad",	    "ceil_mode", "dilations",
					    "kernel_shape", "pads",	 "storage_order",
					    "strides",	    NULL};
	struct ow_window win;
	int rc = ox_attrs_allowed(&ch->x, n, attrs);
	if (rc)
		return rc;
	if (n->n_output > 1 && n->output[1] && n->output[1][0])
		return ox_node_fail(&ch->x, n, "output 'Indices' is not supported");
	if (ch->rank != 4)
		return ox_node_fail(&ch->x, n, "input of rank %u (a 4-D NCHW tensor expected)",
				    ch->rank);
	if (!ch->have_q) {
		/* a stand-in until a later node gives the quantization (a pool keeps it) */
		struct oq_params q = {.scale = 1.0f, .zp = ch->in_u8 ? -128 : 0, .u8 = ch->in_u8};
		take_input_q(ch, n, &q, "input");
		ch->q_assumed = true;
	}
	if ((rc = ow_window(&ch->x, n, ch->h, ch->w, 0, 0, true, &win)))
		return rc;
	struct tpu_layer *l = new_layer(ch, n, TPU_LAYER_MAXPOOL2D);
	if (!l)
		return -EINVAL;
	pool_window(l, &win);
	l->out.scale = ch->q.scale;
	l->out.zero_point = ch->q.zp;
	ch->h = win.out_h;
	ch->w = win.out_w;
	return 0;
}

/* AveragePool (QDQ), com.microsoft QLinearAveragePool (QOperator), GlobalAveragePool (QDQ) and
 * com.microsoft QLinearGlobalAveragePool: AVGPOOL2D in ONNX Runtime's arithmetic, from the
 * chain's quantization to yq (QLinearAveragePool's kernel, onnxruntime/contrib_ops/cpu/
 * quantization/qlinear_pool.cc, which ONNX Runtime also runs for a QDQ AveragePool; a global
 * pool takes its integer path, qlinear_global_average_pool.cc). */
static int lower_avgpool(struct chain *ch, const Onnx__NodeProto *n, const struct oq_params *yq)
{
	static const char *const attrs[] = {
	    "auto_pad",	 "ceil_mode",	 "channels_last", "count_include_pad",
	    "dilations", "kernel_shape", "pads",	  "strides",
	    NULL};
	bool global = !strcmp(n->op_type, "GlobalAveragePool") ||
		      !strcmp(n->op_type, "QLinearGlobalAveragePool");
	int64_t count_pad, nhwc;
	struct ow_window win;
	int rc = ox_attrs_allowed(&ch->x, n, attrs);
	if (!rc)
		rc = ox_attr_int(&ch->x, n, "count_include_pad", 0, &count_pad);
	if (!rc)
		rc = ox_attr_int(&ch->x, n, "channels_last", 0, &nhwc);
	if (rc)
		return rc;
	if (nhwc)
		return ox_node_fail(&ch->x, n,
				    "attribute 'channels_last' = %lld (only 0 is "
				    "supported)",
				    (long long)nhwc);
	if (ch->rank != 4)
		return ox_node_fail(&ch->x, n, "input of rank %u (a 4-D NCHW tensor expected)",
				    ch->rank);
	if (yq->u8 != ch->q.u8)
		return ox_node_fail(&ch->x, n,
				    "output type %s differs from the input's %s (ONNX Runtime's "
				    "kernel takes one type)",
				    yq->u8 ? "uint8" : "int8", ch->q.u8 ? "uint8" : "int8");
	if (global) {
		memset(&win, 0, sizeof(win));
		if (n->n_attribute > (size_t)(ox_attr(n, "channels_last") ? 1 : 0))
			return ox_node_fail(&ch->x, n, "attribute '%s' is not supported",
					    n->attribute[0]->name);
		win.kernel_h = ch->h;
		win.kernel_w = ch->w;
		win.stride_h = win.stride_w = 1;
		win.out_h = win.out_w = 1;
	} else if ((rc = ow_window(&ch->x, n, ch->h, ch->w, 0, 0, true, &win))) {
		return rc;
	}
	struct tpu_layer *l = new_layer(ch, n, TPU_LAYER_AVGPOOL2D);
	if (!l)
		return -EINVAL;
	pool_window(l, &win);
	l->avg_mode = TPU_AVGPOOL_ONNXRT;
	l->avg_flags = (count_pad ? TPU_AVGPOOL_COUNT_PAD : 0) | (yq->u8 ? TPU_AVGPOOL_UINT8 : 0);
	l->out.scale = yq->scale;
	l->out.zero_point = yq->zp;
	ch->q = *yq;
	ch->h = win.out_h;
	ch->w = win.out_w;
	return 0;
}

/* Flatten (axis 1) or Reshape to (batch, features). */
static int lower_flatten(struct chain *ch, const Onnx__NodeProto *n)
{
	size_t feat = (size_t)ch->c * ch->h * ch->w;
	int rc;
	if (op_is(n, "Flatten")) {
		static const char *const attrs[] = {"axis", NULL};
		int64_t axis;
		if ((rc = ox_attrs_allowed(&ch->x, n, attrs)) ||
		    (rc = ox_attr_int(&ch->x, n, "axis", 1, &axis)))
			return rc;
		if (axis != 1 && axis != -(int64_t)ch->rank + 1)
			return ox_node_fail(&ch->x, n,
					    "attribute 'axis' = %lld (only 1 is "
					    "supported)",
					    (long long)axis);
	} else {
		static const char *const attrs[] = {"allowzero", NULL};
		struct ox_values s;
		int64_t allowzero;
		if ((rc = ox_attrs_allowed(&ch->x, n, attrs)) ||
		    (rc = ox_attr_int(&ch->x, n, "allowzero", 0, &allowzero)) ||
		    (rc = ox_const_input(&ch->x, n, 1, "shape", &s)))
			return rc;
		bool ok = s.type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 && s.count == 2 &&
			  !allowzero && s.ints[0] >= -1 &&
			  ((s.ints[0] != -1 && s.ints[1] == -1) || s.ints[1] == (int64_t)feat);
		long long a = s.count > 0 && s.ints ? s.ints[0] : 0,
			  b = s.count > 1 && s.ints ? s.ints[1] : 0;
		size_t cnt = s.count;
		ox_values_free(&s);
		if (!ok)
			return ox_node_fail(&ch->x, n,
					    "input 1 (shape): %zu values (%lld, %lld, ...): only a "
					    "reshape to (batch, %zu) is supported",
					    cnt, a, b, feat);
	}
	if (ch->rank == 3) {
		/* (batch, M, N) held as M x 1 x N is already in the flattened order */
		ch->c = ch->c * ch->h;
		ch->h = 1;
	}
	ch->rank = 2;
	return 0;
}

/* The Relu or Clip of a QDQ group before its QuantizeLinear q (whose parameters are yq):
 * accepted only where ONNX Runtime removes it (onnxruntime/core/optimizer/qdq_transformer/
 * relu_quantizelinear.cc: Relu when the zero point is the type's minimum; clip_quantizelinear.cc:
 * Clip when its range holds the quantized range, to within FLT_EPSILON), so that the output is
 * the requantized value saturated to the type, as without the activation. */
static int check_activation(struct chain *ch, const Onnx__NodeProto *act,
			    const struct oq_params *yq)
{
	int32_t zp = yq->zp + (yq->u8 ? 128 : 0), qmin = yq->u8 ? 0 : -128,
		qmax = yq->u8 ? 255 : 127;
	if (op_is(act, "Relu")) {
		if (act->n_attribute)
			return ox_node_fail(&ch->x, act, "attribute '%s' is not supported",
					    act->attribute[0]->name);
		if (zp != qmin)
			return ox_node_fail(
			    &ch->x, act,
			    "the output zero point %d is not the type's minimum %d: "
			    "ONNX Runtime keeps this Relu and runs the group in float",
			    (int)zp, (int)qmin);
		return 0;
	}
	static const char *const attrs[] = {"min", "max", NULL};
	float lo = -FLT_MAX, hi = FLT_MAX;
	int rc = ox_attrs_allowed(&ch->x, act, attrs);
	if (!rc)
		rc = ox_attr_float(&ch->x, act, "min", lo, &lo);
	if (!rc)
		rc = ox_attr_float(&ch->x, act, "max", hi, &hi);
	for (size_t i = 1; !rc && i < 3; i++) {
		struct ox_values v;
		if (!ox_input(act, i))
			continue;
		if ((rc = ox_const_input(&ch->x, act, i, i == 1 ? "min" : "max", &v)))
			break;
		if (v.type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || v.count != 1)
			rc = ox_node_fail(&ch->x, act, "input %zu: one float expected", i);
		else if (i == 1)
			lo = v.floats[0];
		else
			hi = v.floats[0];
		ox_values_free(&v);
	}
	if (rc)
		return rc;
	float lower = yq->scale * (float)(qmin - zp), upper = yq->scale * (float)(qmax - zp);
	float dl = lo - lower, du = upper - hi;
	if (FLT_EPSILON < dl || FLT_EPSILON < du)
		return ox_node_fail(&ch->x, act,
				    "range [%g, %g] cuts into the quantized range [%g, %g]: ONNX "
				    "Runtime keeps this Clip and runs the group in float",
				    (double)lo, (double)hi, (double)lower, (double)upper);
	return 0;
}

/* A QuantizeLinear node's output quantization (y_scale, y_zero_point; axis only per tensor). */
static int quantize_params(struct chain *ch, const Onnx__NodeProto *q, struct oq_params *yq)
{
	static const char *const attrs[] = {"axis", "saturate", NULL};
	int rc = ox_attrs_allowed(&ch->x, q, attrs);
	return rc ? rc : oq_params(&ch->x, q, 1, 2, "y", yq);
}

/* DequantizeLinear dq of the chain's tensor, then op, then [Relu/Clip], then QuantizeLinear:
 * one layer (Conv/MatMul/Gemm) or a quantized MaxPool/Flatten/Reshape whose DQ/Q pair ONNX
 * Runtime drops. *end gets the QuantizeLinear's output. */
static int lower_qdq(struct chain *ch, const Onnx__NodeProto *op, const char **end)
{
	const Onnx__NodeProto *next, *q;
	int rc = next_node(ch, op, op->n_output ? op->output[0] : "", &next);
	if (rc)
		return rc;
	const Onnx__NodeProto *act = NULL;
	if (op_is(next, "Relu") || op_is(next, "Clip")) {
		act = next;
		if ((rc = next_node(ch, act, act->n_output ? act->output[0] : "", &next)))
			return rc;
	}
	q = next;
	if (!op_is(q, "QuantizeLinear"))
		return ox_node_fail(&ch->x, q,
				    "after %s '%s' a QuantizeLinear is expected (a QDQ group)",
				    op->op_type, op->name ? op->name : "");
	struct oq_params yq;
	if ((rc = quantize_params(ch, q, &yq)))
		return rc;
	*end = q->n_output ? q->output[0] : "";
	bool compute = op_is(op, "Conv") || op_is(op, "MatMul") || op_is(op, "Gemm");
	if (act && !compute)
		return ox_node_fail(&ch->x, act, "an activation after %s is not supported",
				    op->op_type);
	if (act && (rc = check_activation(ch, act, &yq)))
		return rc;
	if (op_is(op, "AveragePool") || op_is(op, "GlobalAveragePool"))
		return lower_avgpool(ch, op, &yq);
	if (!compute) {
		/* ONNX Runtime drops the DQ/Q pair only when both quantize alike */
		if (!oq_same(&yq, &ch->q))
			return ox_node_fail(&ch->x, q,
					    "quantization differs from the DequantizeLinear before "
					    "%s (ONNX Runtime would run it in float)",
					    op->op_type);
		return op_is(op, "MaxPool") ? lower_maxpool(ch, op) : lower_flatten(ch, op);
	}
	/* the weights: DequantizeLinear of a constant */
	const Onnx__NodeProto *wdq = ox_producer(&ch->x, ox_input(op, 1) ? op->input[1] : "");
	if (!op_is(wdq, "DequantizeLinear"))
		return ox_node_fail(&ch->x, op,
				    "input 1 (weights) must come from a DequantizeLinear of an "
				    "initializer");
	bool gemm = op_is(op, "Gemm"), conv = op_is(op, "Conv");
	int64_t trans_b = 0, trans_a = 0, axis;
	float alpha = 1.0f, beta = 1.0f;
	if (gemm) {
		static const char *const attrs[] = {"alpha", "beta", "transA", "transB", NULL};
		if ((rc = ox_attrs_allowed(&ch->x, op, attrs)) ||
		    (rc = ox_attr_int(&ch->x, op, "transA", 0, &trans_a)) ||
		    (rc = ox_attr_int(&ch->x, op, "transB", 0, &trans_b)) ||
		    (rc = ox_attr_float(&ch->x, op, "alpha", 1.0f, &alpha)) ||
		    (rc = ox_attr_float(&ch->x, op, "beta", 1.0f, &beta)))
			return rc;
		if (trans_a)
			return ox_node_fail(&ch->x, op,
					    "attribute 'transA' = %lld (only 0 is "
					    "supported)",
					    (long long)trans_a);
		if (alpha != 1.0f || beta != 1.0f)
			return ox_node_fail(&ch->x, op, "attribute '%s' = %g (only 1 is supported)",
					    alpha != 1.0f ? "alpha" : "beta",
					    (double)(alpha != 1.0f ? alpha : beta));
	} else if (!conv && op->n_attribute) {
		return ox_node_fail(&ch->x, op, "attribute '%s' is not supported",
				    op->attribute[0]->name);
	}
	static const char *const dq_attrs[] = {"axis", NULL};
	const Onnx__AttributeProto *ax = ox_attr(wdq, "axis");
	if ((rc = ox_attrs_allowed(&ch->x, wdq, dq_attrs)) ||
	    (rc = ox_attr_int(&ch->x, wdq, "axis", 1, &axis)))
		return rc;
	struct oq_weight_src src = {.node = wdq,
				    .i_w = 0,
				    .i_scale = 1,
				    .i_zp = 2,
				    .rank = conv ? 4 : 2,
				    .chan_axis = conv || trans_b ? 0 : 1,
				    .axis_given = ax != NULL,
				    .axis = axis,
				    .batch_ok = op_is(op, "MatMul") && ch->rank == 3};
	struct oq_weights w;
	if ((rc = oq_weights(&ch->x, &src, &w)))
		return rc;
	int32_t *bias = NULL;
	const char *bname = ox_input(op, 2);
	if (bname) {
		const Onnx__NodeProto *bdq = ox_producer(&ch->x, bname);
		if (!op_is(bdq, "DequantizeLinear")) {
			oq_weights_free(&w);
			return ox_node_fail(
			    &ch->x, op,
			    "input 2 (bias) must come from a DequantizeLinear of an "
			    "int32 initializer");
		}
		rc = oq_bias(&ch->x, bdq, 0, w.out_c, &bias);
		if (!rc && ox_input(bdq, 2)) {
			struct ox_values z;
			rc = ox_const_input(&ch->x, bdq, 2, "bias zero point", &z);
			for (size_t j = 0; !rc && j < z.count; j++)
				if (z.ints && z.ints[j])
					rc = ox_node_fail(&ch->x, bdq,
							  "bias zero point %lld (must be 0)",
							  (long long)z.ints[j]);
			ox_values_free(&z);
		}
		if (rc) {
			free(bias);
			oq_weights_free(&w);
			return rc;
		}
	}
	rc = conv ? lower_conv(ch, op, &w, bias, &yq)
		  : lower_dense(ch, op, &w, gemm && trans_b, bias, &yq);
	oq_weights_free(&w);
	return rc;
}

/* QLinearConv, QLinearMatMul and com.microsoft QGemm (QOperator form; ONNX Runtime's quantizer
 * writes QGemm for Gemm). */
static int lower_qlinear(struct chain *ch, const Onnx__NodeProto *n)
{
	bool conv = op_is(n, "QLinearConv"), qgemm = !conv && !op_is(n, "QLinearMatMul");
	struct oq_params xq, yq;
	int64_t trans_a = 0, trans_b = 0;
	float alpha = 1.0f;
	/* inputs: x, x_scale, x_zp, w, w_scale, w_zp, then y_scale, y_zp[, B] (QLinearConv) or
	 * C, y_scale, y_zp (QGemm) */
	size_t i_y = qgemm ? 7 : 6, i_bias = conv ? 8 : qgemm ? 6 : SIZE_MAX;
	int rc = oq_params(&ch->x, n, 1, 2, "x", &xq);
	if (!rc)
		rc = take_input_q(ch, n, &xq, "input");
	if (!rc && !ox_input(n, i_y))
		rc = ox_node_fail(&ch->x, n, "no y_scale: a float output is not supported");
	if (!rc)
		rc = oq_params(&ch->x, n, i_y, i_y + 1, "y", &yq);
	if (!rc && qgemm) {
		static const char *const attrs[] = {"alpha", "transA", "transB", NULL};
		if (!(rc = ox_attrs_allowed(&ch->x, n, attrs)) &&
		    !(rc = ox_attr_int(&ch->x, n, "transA", 0, &trans_a)) &&
		    !(rc = ox_attr_int(&ch->x, n, "transB", 0, &trans_b)) &&
		    !(rc = ox_attr_float(&ch->x, n, "alpha", 1.0f, &alpha)) &&
		    (trans_a || alpha != 1.0f))
			rc = ox_node_fail(&ch->x, n,
					  "attribute '%s' (only transA 0 and alpha 1 are "
					  "supported)",
					  trans_a ? "transA" : "alpha");
	} else if (!rc && !conv && n->n_attribute) {
		rc = ox_node_fail(&ch->x, n, "attribute '%s' is not supported",
				  n->attribute[0]->name);
	}
	if (rc)
		return rc;
	if (!conv && ch->rank != 2 && (qgemm || ch->rank != 3))
		return ox_node_fail(&ch->x, n,
				    "input of rank %u (a 2-D tensor%s expected: Flatten "
				    "or Reshape first)",
				    ch->rank, qgemm ? "" : ", or a 3-D one,");
	struct oq_weight_src src = {.node = n,
				    .i_w = 3,
				    .i_scale = 4,
				    .i_zp = 5,
				    .rank = conv ? 4 : 2,
				    .chan_axis = conv || trans_b ? 0 : 1,
				    .batch_ok = !conv && !qgemm && ch->rank == 3};
	struct oq_weights w;
	if ((rc = oq_weights(&ch->x, &src, &w)))
		return rc;
	int32_t *bias = NULL;
	if (ox_input(n, i_bias) && (rc = oq_bias(&ch->x, n, i_bias, w.out_c, &bias))) {
		oq_weights_free(&w);
		return rc;
	}
	if (!conv && !qgemm && n->n_input > 8) {
		oq_weights_free(&w);
		return ox_node_fail(&ch->x, n, "%zu inputs (8 expected)", n->n_input);
	}
	rc = conv ? lower_conv(ch, n, &w, bias, &yq) : lower_dense(ch, n, &w, trans_b, bias, &yq);
	oq_weights_free(&w);
	return rc;
}

/* The input zero point of MatMulInteger / ConvInteger (input 2; absent: 0 of the input's
 * type), as the chain's quantization: the scale is the chain's, or at the graph input (also
 * behind pools, whose scale is then a stand-in) tpu.scales' input scale, else 1 (the int32
 * output has no scale). */
static int integer_input_q(struct chain *ch, const Onnx__NodeProto *n)
{
	bool u8 = ch->have_q ? ch->q.u8 : ch->in_u8;
	bool known = ch->have_q && !ch->q_assumed;
	float scale = known ? ch->q.scale : ch->sc.have_in ? ch->sc.in : 1.0f;
	struct oq_params q = {.scale = scale, .zp = u8 ? -128 : 0, .u8 = u8};
	if (ox_input(n, 2)) {
		struct ox_values z;
		int rc = ox_const_input(&ch->x, n, 2, "input zero point", &z);
		if (rc)
			return rc;
		int32_t want =
		    u8 ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 : ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
		if (z.type != want || !z.count)
			rc = ox_node_fail(&ch->x, n,
					  "input zero point: %zu %s values (one %s, the input's "
					  "type, expected)",
					  z.count, ox_type_name(z.type), ox_type_name(want));
		for (size_t i = 1; !rc && i < z.count; i++)
			if (z.ints[i] != z.ints[0])
				rc = ox_node_fail(&ch->x, n,
						  "input zero point: row %zu has %lld, row 0 %lld "
						  "(one zero point for every row is supported)",
						  i, (long long)z.ints[i], (long long)z.ints[0]);
		if (!rc)
			q.zp = (int32_t)z.ints[0] - (u8 ? 128 : 0);
		ox_values_free(&z);
		if (rc)
			return rc;
	}
	return take_input_q(ch, n, &q, "input");
}

/* MatMulInteger (A, B[, a_zero_point, b_zero_point]) and ConvInteger (x, w[, x_zero_point,
 * w_zero_point]): (x - zx) . (w - zw) in int32, without requantization, so the model's int32
 * output layer (struct tpu_model out_type INT32). Weight zero points per tensor or per output
 * channel (B's columns), as the other layers'. */
static int lower_integer(struct chain *ch, const Onnx__NodeProto *n)
{
	bool conv = op_is(n, "ConvInteger");
	if (n->n_input > 4)
		return ox_node_fail(&ch->x, n, "%zu inputs (at most 4 expected)", n->n_input);
	if (!conv && n->n_attribute)
		return ox_node_fail(&ch->x, n, "attribute '%s' is not supported",
				    n->attribute[0]->name);
	if (!conv && ch->rank != 2 && ch->rank != 3)
		return ox_node_fail(&ch->x, n,
				    "input of rank %u (a 2-D or 3-D tensor expected: Flatten or "
				    "Reshape first)",
				    ch->rank);
	int rc = integer_input_q(ch, n);
	if (rc)
		return rc;
	struct oq_weight_src src = {.node = n,
				    .i_w = 1,
				    .i_scale = SIZE_MAX,
				    .i_zp = 3,
				    .rank = conv ? 4 : 2,
				    .chan_axis = conv ? 0 : 1,
				    .batch_ok = !conv && ch->rank == 3};
	struct oq_weights w;
	if ((rc = oq_weights(&ch->x, &src, &w)))
		return rc;
	rc = conv ? lower_conv(ch, n, &w, NULL, NULL) : lower_dense(ch, n, &w, false, NULL, NULL);
	oq_weights_free(&w);
	return rc;
}

/* Whether an addend of dims d (rank r) broadcast onto the chain's tensor gives one value per
 * output channel or one in all: every dim 1, except the channel axis (NCHW's C, the last axis
 * of a 2-D or 3-D tensor), which may be the channel count; no more dims than the tensor. */
static bool per_channel_addend(const struct chain *ch, const int64_t *d, size_t r)
{
	size_t trank = ch->rank, chan = ch->rank == 4 ? 1 : ch->rank - 1;
	if (r > trank)
		return false;
	for (size_t i = 0; i < r; i++) {
		size_t axis = trank - r + i; /* right-aligned, as ONNX broadcasts */
		if (d[i] != 1 && !(axis == chan && d[i] == ch->c))
			return false;
	}
	return true;
}

/* An Add of an int32 constant to the int32 output layer, folded into its bias: the int32 sums
 * wrap alike in either order (ONNX Runtime's int32 Add, the device's bias addition), so the
 * fold is exact. */
static int fold_add(struct chain *ch, const Onnx__NodeProto *n)
{
	if (!ch->raw)
		return ox_node_fail(&ch->x, n,
				    "an Add folds only into the int32 output of MatMulInteger or "
				    "ConvInteger (a constant int32 addend)");
	if (n->n_attribute)
		return ox_node_fail(&ch->x, n, "attribute '%s' is not supported",
				    n->attribute[0]->name);
	if (n->n_input != 2)
		return ox_node_fail(&ch->x, n, "%zu inputs (2 expected)", n->n_input);
	size_t other = strcmp(n->input[0], ch->cur) ? 0 : 1;
	struct ox_values c;
	int rc = ox_const_input(&ch->x, n, other, "addend", &c);
	if (rc)
		return rc;
	struct tpu_layer *l = &ch->m->layers[ch->m->n_layers - 1];
	if (c.type != ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
		rc = ox_node_fail(&ch->x, n, "addend: %s (int32 expected)", ox_type_name(c.type));
	else if (!c.count || !per_channel_addend(ch, c.dims, c.rank))
		rc = ox_node_fail(&ch->x, n,
				  "addend of %zu values does not broadcast as one value per "
				  "output channel (%u) or one in all",
				  c.count, l->out_c);
	for (uint32_t j = 0; !rc && j < l->out_c; j++)
		l->bias[j] =
		    (int32_t)((uint32_t)l->bias[j] + (uint32_t)c.ints[c.count == 1 ? 0 : j]);
	ox_values_free(&c);
	return rc;
}

/* DequantizeLinear -> Relu (relu) -> QuantizeLinear of the same quantization q right after a
 * CONV2D or DENSE layer without an activation (what tpu export writes for a FLOAT layer's RELU
 * clamp above the saturation): max(y, zero point) exactly (y - z is an integer, scaled and
 * unscaled in fp32 it stays one), which is the layer's RELU clamp; *end gets the
 * QuantizeLinear's output. */
static int fold_qdq_relu(struct chain *ch, const Onnx__NodeProto *relu, const struct oq_params *q,
			 const char **end)
{
	struct tpu_layer *l = ch->m->n_layers ? &ch->m->layers[ch->m->n_layers - 1] : NULL;
	const Onnx__NodeProto *qn;
	struct oq_params yq;
	int rc;
	if (!l || (l->type != TPU_LAYER_CONV2D && l->type != TPU_LAYER_DENSE) ||
	    l->act != TPU_ACT_NONE || ch->raw)
		return ox_node_fail(&ch->x, relu,
				    "between DequantizeLinear and QuantizeLinear a Relu folds "
				    "only into the CONV2D or DENSE layer right before it, one "
				    "without an activation");
	if (relu->n_attribute || relu->n_input != 1 || relu->n_output != 1)
		return ox_node_fail(&ch->x, relu,
				    "attributes, or inputs or outputs other than one");
	if ((rc = next_node(ch, relu, relu->output[0], &qn)))
		return rc;
	if (!op_is(qn, "QuantizeLinear"))
		return ox_node_fail(&ch->x, qn,
				    "operator not supported after a Relu (QuantizeLinear is)");
	if ((rc = quantize_params(ch, qn, &yq)))
		return rc;
	if (!oq_same(&yq, q))
		return ox_node_fail(&ch->x, qn,
				    "quantization differs from the DequantizeLinear's before the "
				    "Relu");
	l->act = TPU_ACT_RELU;
	*end = qn->output[0];
	return 0;
}

/* The requantization in integer operators that tpu export writes after the int32 output layer
 * (onnx_requant.h), from its Cast node: the layer becomes an int8 one, rounded DOUBLE or SINGLE,
 * with the scales of metadata_props "tpu.scales" (which the model validation then checks
 * against the multipliers); *end gets the int8 tensor. */
static int requantize_integer(struct chain *ch, const Onnx__NodeProto *cast, const char **end)
{
	uint32_t li = ch->m->n_layers - 1;
	struct tpu_layer *l = &ch->m->layers[li];
	if (!ch->sc.w[li])
		return ox_node_fail(&ch->x, cast,
				    "integer requantization of layer %u: its float scales are not "
				    "in the model (metadata_props 'tpu.scales', which tpu export "
				    "writes)",
				    li);
	if (ch->sc.n[li] != l->out_c)
		return ox_fail(&ch->x,
			       "metadata_props 'tpu.scales': layer %u has %u weight scales, the "
			       "layer %u channels",
			       li, ch->sc.n[li], l->out_c);
	struct orq q;
	int rc = orq_import(&ch->x, cast, l->out_c, ch->rank == 4, &q);
	if (rc)
		return rc;
	free(l->multiplier);
	free(l->shift);
	l->multiplier = q.multiplier;
	l->shift = q.shift;
	l->round = q.round;
	l->out.scale = ch->sc.out[li];
	l->out.zero_point = q.zero_point;
	memcpy(l->w_scale, ch->sc.w[li], l->out_c * sizeof(float));
	/* the activation whose clamp is the Clip's */
	static const uint32_t acts[] = {TPU_ACT_NONE, TPU_ACT_RELU, TPU_ACT_RELU6};
	l->act = UINT32_MAX;
	for (size_t k = 0; k < 3 && l->act == UINT32_MAX; k++) {
		int32_t lo, hi;
		if (!tpu_act_clamp((enum tpu_activation)acts[k], l->out.scale, q.zero_point, &lo,
				   &hi) &&
		    lo == q.lo && hi == q.hi)
			l->act = acts[k];
	}
	if (l->act == UINT32_MAX)
		return ox_node_fail(
		    &ch->x, cast,
		    "integer requantization: the clamp %d..%d is that of no "
		    "activation (NONE, RELU, RELU6) for output scale %g, zero point "
		    "%d",
		    (int)q.lo, (int)q.hi, (double)l->out.scale, (int)q.zero_point);
	ch->raw = false;
	ch->q = (struct oq_params){.scale = l->out.scale, .zp = q.zero_point, .u8 = false};
	*end = q.end;
	return 0;
}

/* metadata_props "tpu.scales" of mp into sc (nothing when absent): "in S" and "LAYER OUT W0 W1
 * ..." lines of C99 hex floats. */
static int read_scales(struct chain *ch, const Onnx__ModelProto *mp)
{
	struct scales *sc = &ch->sc;
	const char *v = NULL;
	for (size_t i = 0; i < mp->n_metadata_props; i++)
		if (mp->metadata_props[i]->key && !strcmp(mp->metadata_props[i]->key, "tpu.scales"))
			v = mp->metadata_props[i]->value;
	if (!v)
		return 0;
	enum { MAX = 1 + 65535 }; /* the output scale and one per channel */
	float *f = malloc(MAX * sizeof(*f));
	int rc = 0;
	if (!f) {
		ox_fail(&ch->x, "out of memory");
		return -ENOMEM;
	}
	while (*v && !rc) {
		char *e;
		unsigned long li = 0;
		bool in = !strncmp(v, "in ", 3);
		if (!in)
			li = strtoul(v, &e, 10);
		else
			e = (char *)v + 2;
		if ((!in && (e == v || li >= TPU_MODEL_MAX_LAYERS || sc->w[li])) || *e != ' ') {
			rc = ox_fail(&ch->x, "metadata_props 'tpu.scales': bad line '%.40s'", v);
			break;
		}
		uint32_t n = 0;
		for (v = e; !rc && *v == ' ' && n < MAX; n++) {
			f[n] = strtof(v + 1, &e);
			if (e == v + 1 || !(f[n] > 0.0f) || f[n] > FLT_MAX)
				rc = ox_fail(&ch->x,
					     "metadata_props 'tpu.scales': bad scale '%.20s'",
					     v + 1);
			v = e;
		}
		if (!rc && *v && *v++ != '\n')
			rc = ox_fail(&ch->x, "metadata_props 'tpu.scales': bad line end");
		else if (!rc && in && n != 1)
			rc = ox_fail(&ch->x, "metadata_props 'tpu.scales': 'in' takes one scale");
		else if (!rc && !in && n < 2)
			rc = ox_fail(
			    &ch->x, "metadata_props 'tpu.scales': layer %lu: no weight scales", li);
		if (rc)
			break;
		if (in) {
			sc->have_in = true;
			sc->in = f[0];
			continue;
		}
		sc->out[li] = f[0];
		sc->n[li] = n - 1;
		if (!(sc->w[li] = malloc((n - 1) * sizeof(float)))) {
			ox_fail(&ch->x, "out of memory");
			rc = -ENOMEM;
			break;
		}
		memcpy(sc->w[li], f + 1, (n - 1) * sizeof(float));
	}
	free(f);
	return rc;
}

/* The graph's one input: float, int8 or uint8; NCHW (N, C, H, W), (N, M, K) or (N, K), N any. */
static int read_input(struct chain *ch, const Onnx__ValueInfoProto **in)
{
	const Onnx__GraphProto *g = ch->x.g;
	*in = NULL;
	for (size_t i = 0; i < g->n_input; i++) {
		if (ox_const(&ch->x, g->input[i]->name))
			continue; /* an initializer also listed as an input (IR < 4) */
		if (*in)
			return ox_fail(&ch->x, "graph inputs '%s' and '%s': only one is supported",
				       (*in)->name, g->input[i]->name);
		*in = g->input[i];
	}
	if (!*in)
		return ox_fail(&ch->x, "the graph has no input");
	const Onnx__ValueInfoProto *v = *in;
	const char *name = v->name ? v->name : "";
	if (!v->type || v->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !v->type->tensor_type || !v->type->tensor_type->shape)
		return ox_fail(&ch->x, "graph input '%s': not a tensor of known shape", name);
	const Onnx__TypeProto__Tensor *t = v->type->tensor_type;
	int32_t et = t->elem_type;
	if (et != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT &&
	    et != ONNX__TENSOR_PROTO__DATA_TYPE__INT8 && et != ONNX__TENSOR_PROTO__DATA_TYPE__UINT8)
		return ox_fail(&ch->x,
			       "graph input '%s': element type %s (float, int8 or uint8 "
			       "expected)",
			       name, ox_type_name(et));
	const Onnx__TensorShapeProto *s = t->shape;
	if (s->n_dim < 2 || s->n_dim > 4)
		return ox_fail(&ch->x, "graph input '%s': rank %zu (2, 3 or 4 expected)", name,
			       s->n_dim);
	uint32_t d[4] = {1, 1, 1, 1};
	for (size_t k = 1; k < s->n_dim; k++) {
		const Onnx__TensorShapeProto__Dimension *dim = s->dim[k];
		if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
		    dim->dim_value < 1 || dim->dim_value > 65535)
			return ox_fail(&ch->x,
				       "graph input '%s': dimension %zu is not a number "
				       "in 1..65535",
				       name, k);
		d[k] = (uint32_t)dim->dim_value;
	}
	ch->rank = (uint32_t)s->n_dim;
	/* (N, C, H, W); (N, M, K) as M x 1 x K; (N, K) */
	ch->c = ch->rank == 3 ? d[2] : d[1];
	ch->h = ch->rank == 4 ? d[2] : ch->rank == 3 ? d[1] : 1;
	ch->w = ch->rank == 4 ? d[3] : 1;
	ch->m->io_layout = ch->rank == 4 ? TPU_LAYOUT_IN_NCHW : 0;
	ch->m->in_c = ch->c;
	ch->m->in_h = ch->h;
	ch->m->in_w = ch->w;
	ch->quantized = et != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	ch->in_u8 = et == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
	ch->cur = name;
	return 0;
}

/* One step from the chain's tensor: *done when it reached the graph output. */
static int step(struct chain *ch, bool *done)
{
	const Onnx__NodeProto *n;
	*done = false;
	size_t users = ox_consumers(&ch->x, ch->cur, &n);
	if (!users && ox_is_output(&ch->x, ch->cur)) {
		if (!ch->quantized || !ch->m->n_layers)
			return ox_fail(&ch->x, "the graph output '%s' is reached before any layer",
				       ch->cur);
		*done = true;
		return 0;
	}
	int rc = next_node(ch, NULL, ch->cur, &n);
	if (rc)
		return rc;
	if (ch->raw && op_is(n, "Cast")) {
		const char *end = NULL;
		if (!(rc = requantize_integer(ch, n, &end)))
			ch->cur = end;
		return rc;
	}
	if (ch->raw && !op_is(n, "Add"))
		return ox_node_fail(&ch->x, n,
				    "reads the int32 output '%s' of %s: only an Add of an int32 "
				    "constant (folded into the bias), the graph output or the "
				    "integer requantization of tpu export may follow",
				    ch->cur, ch->layer_node[ch->m->n_layers - 1]->op_type);
	bool first = ox_input(n, 0) && !strcmp(n->input[0], ch->cur);
	if (!first && !(op_is(n, "Add") && ox_input(n, 1) && !strcmp(n->input[1], ch->cur)))
		return ox_node_fail(&ch->x, n, "reads '%s' as an input other than its first",
				    ch->cur);
	const char *out = n->n_output ? n->output[0] : "";
	bool ms = n->domain && !strcmp(n->domain, "com.microsoft");
	if (ms && n->op_type && !strcmp(n->op_type, "QGemm")) {
		rc = lower_qlinear(ch, n);
		if (!rc)
			ch->cur = out;
		return rc;
	}
	if (ms && n->op_type &&
	    (!strcmp(n->op_type, "QLinearAveragePool") ||
	     !strcmp(n->op_type, "QLinearGlobalAveragePool"))) {
		/* X, x_scale, x_zero_point, y_scale, y_zero_point */
		struct oq_params xq, yq;
		if ((rc = oq_params(&ch->x, n, 1, 2, "x", &xq)) ||
		    (rc = take_input_q(ch, n, &xq, "input")) ||
		    (rc = oq_params(&ch->x, n, 3, 4, "y", &yq)) || (rc = lower_avgpool(ch, n, &yq)))
			return rc;
		ch->cur = out;
		return 0;
	}
	if (!n->op_type || (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx")))
		return ox_node_fail(&ch->x, n, "operator domain '%s' is not supported",
				    n->domain ? n->domain : "");
	if (op_is(n, "DynamicQuantizeLinear"))
		return ox_node_fail(&ch->x, n,
				    "operator not supported: its scale and zero point are "
				    "computed from each input at run time (quantize the model "
				    "statically)");
	if (!ch->quantized) {
		if (!op_is(n, "QuantizeLinear"))
			return ox_node_fail(&ch->x, n,
					    "the float input must be quantized first "
					    "(QuantizeLinear)");
		struct oq_params q;
		if ((rc = quantize_params(ch, n, &q)) || (rc = take_input_q(ch, n, &q, "input")))
			return rc;
		ch->m->in_round = TPU_INPUT_ROUND_EVEN;
		ch->quantized = true;
	} else if (op_is(n, "QLinearConv") || op_is(n, "QLinearMatMul")) {
		rc = lower_qlinear(ch, n);
	} else if (op_is(n, "MatMulInteger") || op_is(n, "ConvInteger")) {
		rc = lower_integer(ch, n);
	} else if (op_is(n, "Add")) {
		rc = fold_add(ch, n);

	} else if (op_is(n, "MaxPool")) {
		rc = lower_maxpool(ch, n);
	} else if (op_is(n, "Flatten") || op_is(n, "Reshape")) {
		rc = lower_flatten(ch, n);
	} else if (op_is(n, "DequantizeLinear")) {
		static const char *const attrs[] = {"axis", NULL};
		struct oq_params q;
		if ((rc = ox_attrs_allowed(&ch->x, n, attrs)) ||
		    (rc = oq_params(&ch->x, n, 1, 2, "x", &q)) ||
		    (rc = take_input_q(ch, n, &q, "input")))
			return rc;
		const Onnx__NodeProto *op;
		if (!ox_consumers(&ch->x, out, &op) && ox_is_output(&ch->x, out)) {
			/* a trailing DequantizeLinear: the model outputs the quantized values */
			if (!ch->m->n_layers)
				return ox_node_fail(&ch->x, n, "no layer before the graph output");
			*done = true;
			return 0;
		}
		if ((rc = next_node(ch, n, out, &op)))
			return rc;
		if (op_is(op, "Relu") && ox_input(op, 0) && !strcmp(op->input[0], out)) {
			if (!(rc = fold_qdq_relu(ch, op, &q, &out)))
				ch->cur = out;
			return rc;
		}
		if (!(op_is(op, "Conv") || op_is(op, "MatMul") || op_is(op, "Gemm") ||
		      op_is(op, "MaxPool") || op_is(op, "AveragePool") ||
		      op_is(op, "GlobalAveragePool") || op_is(op, "Flatten") ||
		      op_is(op, "Reshape")))
			return ox_node_fail(
			    &ch->x, op,
			    "operator not supported after a DequantizeLinear (Conv, "
			    "MatMul, Gemm, MaxPool, AveragePool, GlobalAveragePool, Flatten, "
			    "Reshape are)");
		if (!ox_input(op, 0) || strcmp(op->input[0], out))
			return ox_node_fail(&ch->x, op,
					    "reads '%s' as an input other than its "
					    "first",
					    out);
		rc = lower_qdq(ch, op, &out);
	} else {
		return ox_node_fail(&ch->x, n, "operator not supported");
	}
	if (rc)
		return rc;
	ch->cur = out;
	return 0;
}

/* Walk the chain of g into m. */
static int import_graph(struct chain *ch)
{
	const Onnx__ValueInfoProto *in;
	int rc = read_input(ch, &in);
	for (size_t steps = 0; !rc; steps++) {
		bool done;
		if (steps > ch->x.g->n_node)
			return ox_fail(&ch->x, "the graph has a cycle");
		if ((rc = step(ch, &done)) || done)
			break;
	}
	if (rc)
		return rc;
	if (ch->x.g->n_output != 1)
		return ox_fail(&ch->x, "the graph has %zu outputs (one expected)",
			       ch->x.g->n_output);
	struct tpu_model *m = ch->m;
	m->out_type = ch->raw ? TPU_IO_INT32 : ch->q.u8 ? TPU_IO_UINT8 : TPU_IO_INT8;
	/* the user's tensors are ONNX's: NCHW where they are 4-D (format 2.1) */
	m->io_layout =
	    (m->io_layout & TPU_LAYOUT_IN_NCHW) | (ch->rank == 4 ? TPU_LAYOUT_OUT_NCHW : 0);
	m->in_range = 1.0f;
	m->num_classes = ch->c * ch->h * ch->w;
	char why[256];
	uint32_t li;
	if (imp_validate(m, why, sizeof(why), &li)) /* name the node behind the layer */
		return li < m->n_layers ? ox_node_fail(&ch->x, ch->layer_node[li], "%s", why)
					: ox_fail(&ch->x, "%s", why);
	return 0;
}

int tpu_import_onnx_mem(const void *data, size_t len, const char *name, struct tpu_model **out,
			char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	struct ox x0 = {.g = NULL, .err = err, .errlen = errlen};
	if (!out)
		return ox_fail(&x0, "no output model");
	*out = NULL;
	if (!data && len)
		return ox_fail(&x0, "no data");
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, data);
	if (!mp)
		return ox_fail(&x0,
			       "not an ONNX model: the protobuf data is truncated or corrupt "
			       "(%zu bytes)",
			       len);
	int rc;
	struct chain *ch = calloc(1, sizeof(*ch));
	struct tpu_model *m = calloc(1, sizeof(*m));
	if (!ch || !m) {
		rc = -ENOMEM;
		ox_fail(&x0, "out of memory");
		goto out;
	}
	if (!mp->graph || !mp->graph->n_node) {
		rc = ox_fail(&x0, "not an ONNX model: no graph%s", mp->graph ? " nodes" : "");
		goto out;
	}
	int64_t opset = -1;
	for (size_t i = 0; i < mp->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
		if (!o->domain || !o->domain[0] || !strcmp(o->domain, "ai.onnx"))
			opset = o->version;
	}
	if (opset < 10) {
		rc = opset < 0 ? ox_fail(&x0, "not a valid ONNX model: no opset import of the "
					      "default domain")
			       : ox_fail(&x0,
					 "opset %lld of the default domain (10 or later "
					 "expected: the QLinear operators)",
					 (long long)opset);
		goto out;
	}
	ch->x = (struct ox){.g = mp->graph, .err = err, .errlen = errlen};
	ch->m = m;
	imp_set_name(m, name ? name : mp->graph->name, "onnx");
	rc = read_scales(ch, mp);
	if (!rc)
		rc = import_graph(ch);
	if (!rc) {
		*out = m;
		m = NULL;
	}
out:
	tpu_model_free(m);
	for (size_t i = 0; ch && i < TPU_MODEL_MAX_LAYERS; i++)
		free(ch->sc.w[i]);
	free(ch);
	onnx__model_proto__free_unpacked(mp, NULL);
	return rc;
}

/* the graph's name, unless given (ctx: the name) */
static int onnx_mem(const void *data, size_t len, void *ctx, char *err, size_t errlen)
{
	void **a = ctx;
	return tpu_import_onnx_mem(data, len, a[0], a[1], err, errlen);
}

int tpu_import_onnx(const char *path, const char *name, struct tpu_model **out, char *err,
		    size_t errlen)
{
	if (!out)
		return imp_fail(err, errlen, "no output model");
	*out = NULL;
	void *ctx[2] = {(void *)name, out};
	return imp_import_file(path, 1ull << 31, "protobuf's limit", onnx_mem, ctx, err, errlen);
}
