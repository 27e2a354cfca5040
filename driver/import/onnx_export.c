/* Export of a tpu model to ONNX (include/tpu/import.h, docs/import.md), written with protobuf-c
 * from ONNX's own schema (the parser's generated code, mk/onnx.mk), so that ONNX Runtime gives
 * the model's outputs bit for bit.
 *
 * The graph takes the int8 input NCHW and gives the last layer's int8 output:
 *   CONV2D     FLOAT rounding: QLinearConv (weights OIHW, per-channel scales and zero points,
 *              int32 bias), ONNX Runtime's own arithmetic; DOUBLE or SINGLE rounding:
 *              ConvInteger, an Add of the bias and the requantization in int64 operators
 *              (onnx_requant.h)
 *   MAXPOOL2D  MaxPool on the int8 tensor
 *   DENSE      Flatten (axis 1) when the input is 4-D, then (FLOAT) com.microsoft QGemm (what
 *              ONNX Runtime's own quantizer writes for a Gemm: per-column scales, int32 bias)
 *              or (DOUBLE, SINGLE) MatMulInteger and the integer requantization; the weight
 *              rows are permuted from the device's H, W, C order to ONNX's C, H, W
 *   ReLU       in the integer form the Clip of the requantization; with QLinear nodes nothing
 *              where the output zero point is -128 (the saturation already clamps), else
 *              DequantizeLinear -> Relu -> QuantizeLinear (exact: the value is an integer
 *              multiple of the scale)
 * The integer form has no float scales: metadata_props "tpu.scales" records the input's and
 * each such layer's (output and weight scales, as C99 hex floats: "in S" then "LAYER OUT W0 W1
 * ..." lines), which tpu import needs to restore the model. Layers the graph cannot express
 * (SIGMOID/TANH LUTs, RELU6 with FLOAT rounding, per-channel weight zero points of an integer
 * CONV2D) give -EINVAL naming the layer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "tpu/import.h"
#include "tpu/outfile.h"

#include "import_util.h"
#include "model_priv.h"
#include "onnx_build.h"
#include "onnx_requant.h"

/* An int8 graph input or output: (N, dims...) with N symbolic. */
static Onnx__ValueInfoProto *value_info(struct arena *a, const char *name, const int64_t *dims,
					size_t n_dims)
{
	Onnx__ValueInfoProto *v = ob_alloc(a, sizeof(*v));
	Onnx__TypeProto *tp = ob_alloc(a, sizeof(*tp));
	Onnx__TypeProto__Tensor *tt = ob_alloc(a, sizeof(*tt));
	Onnx__TensorShapeProto *sh = ob_alloc(a, sizeof(*sh));
	Onnx__TensorShapeProto__Dimension **dim = ob_alloc(a, (n_dims + 1) * sizeof(*dim));
	if (!v || !tp || !tt || !sh || !dim)
		return NULL;
	for (size_t i = 0; i <= n_dims; i++) {
		Onnx__TensorShapeProto__Dimension *d = ob_alloc(a, sizeof(*d));
		if (!d)
			return NULL;
		onnx__tensor_shape_proto__dimension__init(d);
		if (i == 0) {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = ob_str(a, "N");
		} else {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = dims[i - 1];
		}
		dim[i] = d;
	}
	onnx__value_info_proto__init(v);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(sh);
	sh->n_dim = n_dims + 1;
	sh->dim = dim;
	tt->has_elem_type = 1;
	tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
	tt->shape = sh;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	v->name = (char *)name;
	v->type = tp;
	return v;
}

/* Layer i's weights in ONNX's order: OIHW for CONV2D (from HWIO), K x N with the rows in C, H,
 * W order for DENSE (from H, W, C; h, w, c the input's shape). */
static int8_t *onnx_weights(struct arena *a, const struct tpu_layer *l, uint32_t h, uint32_t w,
			    uint32_t c)
{
	size_t oc = l->out_c;
	if (l->type == TPU_LAYER_CONV2D) {
		size_t kh = l->kernel_h, kw = l->kernel_w, n = kh * kw * c * oc;
		int8_t *o = ob_alloc(a, n);
		if (o)
			for (size_t y = 0; y < kh; y++)
				for (size_t x = 0; x < kw; x++)
					for (size_t i = 0; i < c; i++)
						for (size_t j = 0; j < oc; j++)
							o[((j * c + i) * kh + y) * kw + x] =
							    l->weights[((y * kw + x) * c + i) * oc +
								       j];
		return o;
	}
	size_t k = (size_t)h * w * c;
	int8_t *o = ob_alloc(a, k * oc);
	if (o)
		for (size_t i = 0; i < c; i++)
			for (size_t y = 0; y < h; y++)
				for (size_t x = 0; x < w; x++)
					memcpy(o + ((i * h + y) * w + x) * oc,
					       l->weights + ((y * w + x) * c + i) * oc, oc);
	return o;
}

/* The graph of m; *out_model set on success (its memory in a). */
/* A tensor's quantization, whose scale and zero point initializers (NAME_scale,
 * NAME_zero_point) are written when a node first reads them. */
struct qn {
	const char *name;
	float scale;
	int32_t zp;
	const char *s, *z;
};

static const char *qn_scale(struct graph *g, struct qn *q)
{
	if (!q->s && (q->s = ob_str(g->a, "%s_scale", q->name)))
		ob_scalar_f32(g, q->s, q->scale);
	return q->s;
}

static const char *qn_zp(struct graph *g, struct qn *q)
{
	if (!q->z && (q->z = ob_str(g->a, "%s_zero_point", q->name)))
		ob_scalar_i8(g, q->z, q->zp);
	return q->z;
}

/* metadata_props "tpu.scales" (see the top of the file). */
static int scales_metadata(const struct tpu_model *m, struct arena *a, Onnx__ModelProto *mp)
{
	size_t cap = 64;
	for (uint32_t i = 0; i < m->n_layers; i++)
		cap += 40 + 24 * (size_t)m->layers[i].out_c;
	char *v = ob_alloc(a, cap);
	Onnx__StringStringEntryProto *e = ob_alloc(a, sizeof(*e));
	Onnx__StringStringEntryProto **ep = ob_alloc(a, sizeof(*ep));
	if (!v || !e || !ep)
		return -ENOMEM;
	size_t n = (size_t)snprintf(v, cap, "in %a\n", (double)m->in.scale);
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct tpu_layer *l = &m->layers[i];
		if ((l->type == TPU_LAYER_MAXPOOL2D || l->type == TPU_LAYER_AVGPOOL2D) ||
		    l->round == TPU_ROUND_FLOAT)
			continue;
		n += (size_t)snprintf(v + n, cap - n, "%u %a", i, (double)l->out.scale);
		for (uint32_t j = 0; j < l->out_c; j++)
			n += (size_t)snprintf(v + n, cap - n, " %a", (double)l->w_scale[j]);
		n += (size_t)snprintf(v + n, cap - n, "\n");
	}
	onnx__string_string_entry_proto__init(e);
	e->key = ob_str(a, "tpu.scales");
	e->value = v;
	ep[0] = e;
	mp->n_metadata_props = 1;
	mp->metadata_props = ep;
	return e->key ? 0 : -ENOMEM;
}

static int build(const struct tpu_model *m, struct arena *a, Onnx__ModelProto **out_model,
		 char *err, size_t errlen)
{
	/* a layer in integer form: up to 32 nodes and 24 initializers */
	size_t cap = 32 * (size_t)m->n_layers + 4;
	struct graph g = {.a = a, .cap_node = cap, .cap_init = 24 * (size_t)m->n_layers + 4};
	g.node = ob_alloc(a, g.cap_node * sizeof(*g.node));
	g.init = ob_alloc(a, g.cap_init * sizeof(*g.init));
	const char *cur = "x";
	struct qn cq = {"x", m->in.scale, m->in.zero_point, NULL, NULL};
	uint32_t h = m->in_h, w = m->in_w, c = m->in_c;
	int flat = 0; /* the current tensor is 2-D (N, features) */

	if (m->in_type != TPU_IO_INT8 || m->out_type != TPU_IO_INT8)
		return imp_fail(err, errlen, "export: %s model %s (int8 only)",
				m->in_type == TPU_IO_INT8 && m->out_type == TPU_IO_INT32 ? "int32"
											 : "uint8",
				m->in_type != TPU_IO_INT8 ? "input" : "output");
	for (uint32_t i = 0; i < m->n_layers && !a->oom; i++) {
		const struct tpu_layer *l = &m->layers[i];
		const char *tname = tpu_layer_type_name(l->type);
		/* format-2 layer fields the export does not write yet */
		if (l->type == TPU_LAYER_AVGPOOL2D || l->groups > 1 || l->dilation_h > 1 ||
		    l->dilation_w > 1 || l->ceil_mode ||
		    (l->type == TPU_LAYER_MAXPOOL2D &&
		     (l->pad_top || l->pad_bottom || l->pad_left || l->pad_right)))
			return imp_fail(err, errlen,
					"export: layer %u (%s): %s is not exported (yet)", i, tname,
					l->type == TPU_LAYER_AVGPOOL2D		 ? "average pooling"
					: l->groups > 1				 ? "groups"
					: l->dilation_h > 1 || l->dilation_w > 1 ? "dilation"
					: l->ceil_mode				 ? "ceil_mode"
										 : "a padded pool");
		if (l->type == TPU_LAYER_MAXPOOL2D) {
			const char *in[] = {cur, NULL};
			const char *o = ob_str(a, "t%u", i);
			Onnx__NodeProto *n = ob_node(&g, "MaxPool", "", o, in);
			int64_t k[2] = {l->kernel_h, l->kernel_w},
				s[2] = {l->stride_h, l->stride_w};
			ob_attr(&g, n, "kernel_shape", k, 2);
			ob_attr(&g, n, "strides", s, 2);
			cur = o;
			tpu_model_layer_out_shape(m, i, &h, &w, &c);
			continue;
		}
		/* FLOAT layers as ONNX Runtime's QLinear kernels compute them; DOUBLE and
		 * SINGLE ones in integer operators (onnx_requant.h) */
		bool qlinear = l->round == TPU_ROUND_FLOAT, conv = l->type == TPU_LAYER_CONV2D;
		int32_t qmin, qmax;
		if (l->act == TPU_ACT_SIGMOID || l->act == TPU_ACT_TANH ||
		    (qlinear && l->act == TPU_ACT_RELU6))
			return imp_fail(
			    err, errlen,
			    "export: layer %u (%s): activation %u has no ONNX form (NONE, "
			    "RELU%s only)",
			    i, tname, l->act, qlinear ? "" : ", RELU6");
		if (!qlinear && conv && l->b_zp_count > 1)
			return imp_fail(
			    err, errlen,
			    "export: layer %u (%s): per-channel weight zero points in %s "
			    "rounding (ConvInteger takes one)",
			    i, tname, l->round == TPU_ROUND_SINGLE ? "SINGLE" : "DOUBLE");
		if (tpu_act_clamp((enum tpu_activation)l->act, l->out.scale, l->out.zero_point,
				  &qmin, &qmax))
			return imp_fail(err, errlen,
					"export: layer %u (%s): bad output quantization", i, tname);
		const char *ws = ob_str(a, "w%u_scale", i), *wz = ob_str(a, "w%u_zero_point", i);
		const char *wn = ob_str(a, "w%u", i), *bn = ob_str(a, "b%u", i);
		struct qn yq = {ob_str(a, "y%u", i), l->out.scale, l->out.zero_point, NULL, NULL};
		const char *cs = qlinear ? qn_scale(&g, &cq) : NULL, *cz = qn_zp(&g, &cq);
		const char *ys = qlinear ? qn_scale(&g, &yq) : NULL;
		const char *yz = qlinear ? qn_zp(&g, &yq) : NULL;
		int8_t *wo = onnx_weights(a, l, h, w, c);
		/* the weight zero points: one per output channel (0 when the layer has none); one
		 * in all for the integer form's per-tensor ones */
		int8_t *zps = ob_alloc(a, l->out_c);
		int64_t oc = l->out_c, bdims[3] = {oc, 1, 1};
		if (!wo || !zps || !ws)
			break;
		for (uint32_t j = 0; j < l->b_zp_count && j < l->out_c; j++)
			zps[j] = (int8_t)l->b_zero_point[l->b_zp_count == 1 ? 0 : j];
		for (uint32_t j = 1; l->b_zp_count == 1 && j < l->out_c; j++)
			zps[j] = zps[0];
		if (qlinear)
			ob_tensor(&g, ws, &oc, 1, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, l->w_scale,
				  4 * oc);
		if (qlinear || l->b_zp_count > 1)
			ob_tensor(&g, wz, &oc, 1, ONNX__TENSOR_PROTO__DATA_TYPE__INT8, zps, oc);
		else
			ob_scalar_i8(&g, wz, zps[0]);
		/* the integer form adds the bias to an NCHW tensor: (C, 1, 1) */
		ob_tensor(&g, bn, bdims, qlinear || !conv ? 1 : 3,
			  ONNX__TENSOR_PROTO__DATA_TYPE__INT32, l->bias, 4 * oc);
		const char *o = ob_str(a, qlinear ? "q%u" : "acc%u", i);
		if (conv) {
			int64_t dims[4] = {oc, c, l->kernel_h, l->kernel_w};
			ob_tensor(&g, wn, dims, 4, ONNX__TENSOR_PROTO__DATA_TYPE__INT8, wo,
				  (size_t)(oc * c * l->kernel_h * l->kernel_w));
			const char *in[] = {cur, cs, cz, wn, ws, wz, ys, yz, bn, NULL};
			const char *in_int[] = {cur, wn, cz, wz, NULL};
			Onnx__NodeProto *n = ob_node(&g, qlinear ? "QLinearConv" : "ConvInteger",
						     "", o, qlinear ? in : in_int);
			int64_t k[2] = {l->kernel_h, l->kernel_w},
				s[2] = {l->stride_h, l->stride_w};
			int64_t p[4] = {l->pad_top, l->pad_left, l->pad_bottom, l->pad_right};
			ob_attr(&g, n, "kernel_shape", k, 2);
			ob_attr(&g, n, "strides", s, 2);
			ob_attr(&g, n, "pads", p, 4);
		} else {
			int64_t kk = (int64_t)h * w * c, dims[2] = {kk, oc};
			if (!flat) {
				const char *in[] = {cur, NULL};
				const char *f = ob_str(a, "f%u", i);
				int64_t axis = 1;
				ob_attr(&g, ob_node(&g, "Flatten", "", f, in), "axis", &axis, 0);
				cur = f;
				flat = 1;
			}
			ob_tensor(&g, wn, dims, 2, ONNX__TENSOR_PROTO__DATA_TYPE__INT8, wo,
				  (size_t)(kk * oc));
			const char *in[] = {cur, cs, cz, wn, ws, wz, bn, ys, yz, NULL};
			const char *in_int[] = {cur, wn, cz, wz, NULL};
			if (qlinear)
				ob_node(&g, "QGemm", "com.microsoft", o, in);
			else
				ob_node(&g, "MatMulInteger", "", o, in_int);
		}
		if (!qlinear) {
			const char *sum = ob_str(a, "sum%u", i), *in[] = {o, bn, NULL};
			ob_node(&g, "Add", "", sum, in);
			o = orq_export(&g, l, i, sum, conv, qmin, qmax);
			if (!o)
				break;
		}
		cur = o;
		cq = yq;
		if (qlinear && (qmin > -128 || qmax < 127)) {
			/* a clamp beyond the saturation: ReLU in float between DQ and Q */
			const char *d = ob_str(a, "d%u", i), *r = ob_str(a, "r%u", i),
				   *t = ob_str(a, "t%u", i);
			cs = qn_scale(&g, &cq);
			cz = qn_zp(&g, &cq);
			const char *dq[] = {cur, cs, cz, NULL}, *rl[] = {d, NULL},
				   *q[] = {r, cs, cz, NULL};
			ob_node(&g, "DequantizeLinear", "", d, dq);
			ob_node(&g, "Relu", "", r, rl);
			ob_node(&g, "QuantizeLinear", "", t, q);
			cur = t;
		}
		tpu_model_layer_out_shape(m, i, &h, &w, &c);
	}
	if (!flat) {
		const char *in[] = {cur, NULL};
		int64_t axis = 1;
		ob_attr(&g, ob_node(&g, "Flatten", "", "y", in), "axis", &axis, 0);
	} else {
		/* the last node writes y */
		if (g.n_node)
			g.node[g.n_node - 1]->output[0] = ob_str(a, "y");
	}
	if (a->oom)
		return -ENOMEM;

	Onnx__GraphProto *gp = ob_alloc(a, sizeof(*gp));
	Onnx__ModelProto *mp = ob_alloc(a, sizeof(*mp));
	Onnx__OperatorSetIdProto *ops = ob_alloc(a, 2 * sizeof(*ops));
	Onnx__OperatorSetIdProto **opp = ob_alloc(a, 2 * sizeof(*opp));
	Onnx__ValueInfoProto **gin = ob_alloc(a, sizeof(*gin)), **gout = ob_alloc(a, sizeof(*gout));
	int64_t in_dims[3] = {m->in_c, m->in_h, m->in_w}, out_dims[1] = {m->num_classes};
	if (!gp || !mp || !ops || !opp || !gin || !gout)
		return -ENOMEM;
	gin[0] = value_info(a, "x", in_dims, 3);
	gout[0] = value_info(a, "y", out_dims, 1);
	if (!gin[0] || !gout[0])
		return -ENOMEM;
	onnx__graph_proto__init(gp);
	gp->name = (char *)m->name;
	gp->n_node = g.n_node;
	gp->node = g.node;
	gp->n_initializer = g.n_init;
	gp->initializer = g.init;
	gp->n_input = 1;
	gp->input = gin;
	gp->n_output = 1;
	gp->output = gout;
	for (int i = 0; i < 2; i++) {
		onnx__operator_set_id_proto__init(&ops[i]);
		ops[i].domain = ob_str(a, "%s", i ? "com.microsoft" : "");
		ops[i].has_version = 1;
		ops[i].version = i ? 1 : 13;
		opp[i] = &ops[i];
	}
	onnx__model_proto__init(mp);
	mp->has_ir_version = 1;
	mp->ir_version = 8;
	mp->n_opset_import = 2;
	mp->opset_import = opp;
	mp->producer_name = ob_str(a, "tpu export");
	mp->graph = gp;
	if (scales_metadata(m, a, mp))
		return -ENOMEM;
	*out_model = mp;
	return 0;
}

int tpu_export_onnx_mem(const struct tpu_model *m, void **data, size_t *len, char *err,
			size_t errlen)
{
	struct arena a = {0};
	Onnx__ModelProto *mp = NULL;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!m || !data || !len)
		return imp_fail(err, errlen, "export: NULL argument");
	*data = NULL;
	*len = 0;
	if ((rc = tpu_model_validate(m, err, errlen)))
		return rc;
	rc = build(m, &a, &mp, err, errlen);
	if (!rc) {
		size_t n = onnx__model_proto__get_packed_size(mp);
		uint8_t *buf = malloc(n ? n : 1);
		if (!buf) {
			rc = -ENOMEM;
		} else {
			onnx__model_proto__pack(mp, buf);
			*data = buf;
			*len = n;
		}
	}
	if (rc == -ENOMEM)
		imp_fail(err, errlen, "export: out of memory");
	ob_arena_free(&a);
	return rc;
}

int tpu_export_onnx(const struct tpu_model *m, const char *path, char *err, size_t errlen)
{
	void *data;
	size_t len;
	struct tpu_outfile *of;
	int rc;

	if (!path)
		return imp_fail(err, errlen, "export: path: NULL");
	if ((rc = tpu_export_onnx_mem(m, &data, &len, err, errlen)))
		return rc;
	rc = tpu_outfile_open(path, &of, err, errlen);
	if (!rc) {
		tpu_outfile_put(of, data, len);
		rc = tpu_outfile_commit(of, err, errlen);
	}
	free(data);
	return rc;
}
