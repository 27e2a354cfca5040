/* ONNX import's errors (driver/import, docs/import.md): a small QLinearMatMul model built here
 * with protobuf-c (the same generated code the importer reads with) imports to the expected
 * layer; truncated and corrupted files, an unsupported operator, attribute or zero point, a
 * missing initializer and inconsistent shapes give one clear line and no model; `tpu import`
 * writes nothing then. Bit-exactness against ONNX Runtime is make test-onnx's
 * (tests/onnx/ort_check.py). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_fixture.h"
#include "harness.h"
#include "onnx.pb-c.h"
#include "tpu/import.h"
#include "tpu/numerics.h"

/* ------------------------------------------------------------------ a model built here */

#define K_IN 4
#define N_OUT 3

struct fx {
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset;
	Onnx__OperatorSetIdProto *opsets[1];
	Onnx__NodeProto node, node2; /* node2: a second node, only where a test adds it */
	Onnx__NodeProto *nodes[2];
	char *node_in[8], *node_out[1], *node2_in[2], *node2_out[1];
	Onnx__AttributeProto attr;
	Onnx__AttributeProto *attrs[1];
	Onnx__TensorProto t[8]; /* t[7]: the addend of fx_add_node */
	Onnx__TensorProto *inits[8];
	int64_t w_dims[2], b_dims[1];
	float f[4];
	int32_t i[4], b[N_OUT];
	int32_t w[K_IN * N_OUT];
	Onnx__ValueInfoProto vin, vout;
	Onnx__ValueInfoProto *ins[1], *outs[1];
	Onnx__TypeProto tin, tout;
	Onnx__TypeProto__Tensor ttin, ttout;
	Onnx__TensorShapeProto sin, sout;
	Onnx__TensorShapeProto__Dimension din[2], dout[2];
	Onnx__TensorShapeProto__Dimension *pdin[2], *pdout[2];
};

/* A scalar initializer: one float (fv) or one int8 (iv). */
static void scalar(Onnx__TensorProto *t, const char *name, float *fv, int32_t *iv)
{
	*t = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type =
	    fv ? ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT : ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
	t->n_float_data = fv ? 1 : 0;
	t->float_data = fv;
	t->n_int32_data = iv ? 1 : 0;
	t->int32_data = iv;
}

static void value_info(Onnx__ValueInfoProto *v, Onnx__TypeProto *t, Onnx__TypeProto__Tensor *tt,
		       Onnx__TensorShapeProto *s, Onnx__TensorShapeProto__Dimension *d,
		       Onnx__TensorShapeProto__Dimension **pd, const char *name, int64_t n)
{
	*v = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	*t = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
	*tt = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
	*s = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
	for (int k = 0; k < 2; k++) {
		d[k] = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
		pd[k] = &d[k];
	}
	d[0].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
	d[0].dim_param = (char *)"N";
	d[1].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
	d[1].dim_value = n;
	s->n_dim = 2;
	s->dim = pd;
	tt->has_elem_type = 1;
	tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
	tt->shape = s;
	t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	t->tensor_type = tt;
	v->name = (char *)name;
	v->type = t;
}

/* x (N, 4) int8 -> QLinearMatMul 'mm' with constant B (4 x 3) -> y (N, 3) int8. */
static void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	static const char *const in_names[8] = {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"};
	f->f[0] = 0.05f; /* xs */
	f->f[1] = 0.01f; /* ws */
	f->f[2] = 0.3f;	 /* ys */
	f->i[0] = 3;	 /* xz */
	f->i[1] = 0;	 /* wz */
	f->i[2] = -7;	 /* yz */
	for (int k = 0; k < K_IN * N_OUT; k++)
		f->w[k] = (k * 37) % 255 - 127;
	scalar(&f->t[0], "xs", &f->f[0], NULL);
	scalar(&f->t[1], "xz", NULL, &f->i[0]);
	f->t[2] = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
	f->t[2].name = (char *)"w";
	f->t[2].has_data_type = 1;
	f->t[2].data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
	f->w_dims[0] = K_IN;
	f->w_dims[1] = N_OUT;
	f->t[2].n_dims = 2;
	f->t[2].dims = f->w_dims;
	f->t[2].n_int32_data = K_IN * N_OUT;
	f->t[2].int32_data = f->w;
	scalar(&f->t[3], "ws", &f->f[1], NULL);
	scalar(&f->t[4], "wz", NULL, &f->i[1]);
	scalar(&f->t[5], "ys", &f->f[2], NULL);
	scalar(&f->t[6], "yz", NULL, &f->i[2]);
	for (int k = 0; k < 7; k++)
		f->inits[k] = &f->t[k];
	f->node = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
	for (int k = 0; k < 8; k++)
		f->node_in[k] = (char *)in_names[k];
	f->node_out[0] = (char *)"y";
	f->node.n_input = 8;
	f->node.input = f->node_in;
	f->node.n_output = 1;
	f->node.output = f->node_out;
	f->node.name = (char *)"mm";
	f->node.op_type = (char *)"QLinearMatMul";
	f->nodes[0] = &f->node;
	f->attr = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
	f->attrs[0] = &f->attr;
	value_info(&f->vin, &f->tin, &f->ttin, &f->sin, f->din, f->pdin, "x", K_IN);
	value_info(&f->vout, &f->tout, &f->ttout, &f->sout, f->dout, f->pdout, "y", N_OUT);
	f->ins[0] = &f->vin;
	f->outs[0] = &f->vout;
	f->graph = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
	f->graph.name = (char *)"fx";
	f->graph.n_node = 1;
	f->graph.node = f->nodes;
	f->graph.n_initializer = 7;
	f->graph.initializer = f->inits;
	f->graph.n_input = 1;
	f->graph.input = f->ins;
	f->graph.n_output = 1;
	f->graph.output = f->outs;
	f->opset = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
	f->opset.has_version = 1;
	f->opset.version = 13;
	f->opsets[0] = &f->opset;
	f->model = (Onnx__ModelProto)ONNX__MODEL_PROTO__INIT;
	f->model.has_ir_version = 1;
	f->model.ir_version = 8;
	f->model.n_opset_import = 1;
	f->model.opset_import = f->opsets;
	f->model.graph = &f->graph;
}

/* The node's one attribute: the INT name = v. */
static void fx_int_attr(struct fx *f, const char *name, int64_t v)
{
	f->attr.name = (char *)name;
	f->attr.has_type = 1;
	f->attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	f->attr.has_i = 1;
	f->attr.i = v;
	f->node.n_attribute = 1;
	f->node.attribute = f->attrs;
}

/* f as MatMulInteger 'mm' (x, w, xz, wz) -> y int32. */
static void fx_integer(struct fx *f)
{
	static const char *const in_names[4] = {"x", "w", "xz", "wz"};
	for (int k = 0; k < 4; k++)
		f->node_in[k] = (char *)in_names[k];
	f->node.n_input = 4;
	f->node.op_type = (char *)"MatMulInteger";
	f->ttout.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
}

/* A second node 'add' of type op reading y and the int32 (N_OUT,) initializer "b" (after
 * it when b_first is false), writing the graph output "z". */
static void fx_add_node(struct fx *f, const char *op, bool b_first)
{
	for (int j = 0; j < N_OUT; j++)
		f->b[j] = 1000 * (j + 1) - 7;
	f->t[7] = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
	f->t[7].name = (char *)"b";
	f->t[7].has_data_type = 1;
	f->t[7].data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
	f->b_dims[0] = N_OUT;
	f->t[7].n_dims = 1;
	f->t[7].dims = f->b_dims;
	f->t[7].n_int32_data = N_OUT;
	f->t[7].int32_data = f->b;
	f->inits[7] = &f->t[7];
	f->graph.n_initializer = 8;
	f->node2 = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
	f->node2_in[b_first ? 1 : 0] = (char *)"y";
	f->node2_in[b_first ? 0 : 1] = (char *)"b";
	f->node2_out[0] = (char *)"z";
	f->node2.n_input = 2;
	f->node2.input = f->node2_in;
	f->node2.n_output = 1;
	f->node2.output = f->node2_out;
	f->node2.name = (char *)"add";
	f->node2.op_type = (char *)op;
	f->nodes[1] = &f->node2;
	f->graph.n_node = 2;
	f->vout.name = (char *)"z";
}

/* The serialized model (malloc'ed). */
static uint8_t *fx_pack(const struct fx *f, size_t *len)
{
	*len = onnx__model_proto__get_packed_size(&f->model);
	uint8_t *buf = malloc(*len);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(onnx__model_proto__pack(&f->model, buf), *len);
	return buf;
}

/* Import must fail with -EINVAL and one line containing want. */
static void expect_fail(const struct fx *f, const char *want)
{
	size_t len;
	uint8_t *buf = fx_pack(f, &len);
	struct tpu_model *m = (struct tpu_model *)(uintptr_t)1;
	char err[512];
	int rc = tpu_import_onnx_mem(buf, len, NULL, &m, err, sizeof(err));
	ck_assert_msg(rc == -EINVAL, "rc %d for '%s': %s", rc, want, err);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, want), "message '%s' lacks '%s'", err, want);
	ck_assert_msg(!strchr(err, '\n'), "message has a newline: '%s'", err);
	free(buf);
}

/* ------------------------------------------------------------------ tests */

START_TEST(imports_the_fixture)
{
	struct fx f;
	fx_init(&f);
	size_t len;
	uint8_t *buf = fx_pack(&f, &len);
	struct tpu_model *m;
	char err[512];
	ck_assert_msg(tpu_import_onnx_mem(buf, len, NULL, &m, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(m->name, "fx");
	ck_assert_uint_eq(m->n_layers, 1);
	ck_assert_uint_eq(m->in_c * m->in_h * m->in_w, K_IN);
	ck_assert_int_eq(m->in.zero_point, 3);
	ck_assert_uint_eq(m->in_type, TPU_IO_INT8);
	const struct tpu_layer *l = &m->layers[0];
	ck_assert_uint_eq(l->type, TPU_LAYER_DENSE);
	ck_assert_uint_eq(l->round, TPU_ROUND_FLOAT);
	ck_assert_uint_eq(l->out_c, N_OUT);
	ck_assert_int_eq(l->out.zero_point, -7);
	for (int k = 0; k < K_IN * N_OUT; k++)
		ck_assert_int_eq(l->weights[k], f.w[k]);
	/* 0.05 x 0.01 / 0.3 in fp32, encoded exactly */
	float p = 0.05f * 0.01f, r = p / 0.3f;
	int32_t mult;
	int shift;
	ck_assert_int_eq(tpu_float_multiplier(r, &mult, &shift), 0);
	ck_assert_int_eq(l->multiplier[2], mult);
	ck_assert_int_eq(l->shift[2], shift);
	ck_assert_uint_eq(l->b_zp_count, 0);
	ck_assert_ptr_null(l->b_zero_point);
	tpu_model_free(m);
	/* a name given wins; unprintable bytes are dropped */
	ck_assert_int_eq(tpu_import_onnx_mem(buf, len, "my\tnet", &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m->name, "mynet");
	tpu_model_free(m);
	free(buf);
}
END_TEST

/* Weight zero points: int8 with a nonzero one, uint8 with any (stored as w - 128, z - 128),
 * uint8 without the input (ONNX's default 0), and uint8 with 128 (none at all). */
START_TEST(weight_zero_points)
{
	struct fx f;
	struct tpu_model *m;
	char err[512];
	size_t len;
	static const struct {
		int32_t type, zp;
		bool given;
		uint32_t count;
		int32_t want;
	} cases[] = {
	    {ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 3, true, 1, 3},
	    {ONNX__TENSOR_PROTO__DATA_TYPE__INT8, -128, true, 1, -128},
	    {ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 255, true, 1, 127},
	    {ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 0, false, 1, -128},
	    {ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 128, true, 0, 0},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		fx_init(&f);
		bool u8 = cases[c].type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
		f.t[2].data_type = f.t[4].data_type = cases[c].type;
		for (int k = 0; u8 && k < K_IN * N_OUT; k++)
			f.w[k] += 128;
		f.i[1] = cases[c].zp;
		if (!cases[c].given)
			f.node_in[5] = (char *)"";
		uint8_t *buf = fx_pack(&f, &len);
		ck_assert_msg(tpu_import_onnx_mem(buf, len, NULL, &m, err, sizeof(err)) == 0,
			      "case %zu: %s", c, err);
		const struct tpu_layer *l = &m->layers[0];
		ck_assert_uint_eq(l->b_zp_count, cases[c].count);
		if (cases[c].count)
			ck_assert_int_eq(l->b_zero_point[0], cases[c].want);
		for (int k = 0; k < K_IN * N_OUT; k++)
			ck_assert_int_eq(l->weights[k], f.w[k] - (u8 ? 128 : 0));
		tpu_model_free(m);
		free(buf);
	}
}
END_TEST

/* MatMulInteger imports to the int32 output layer (out_type INT32, multiplier and shift 0, out
 * (1, 0)); an Add of an int32 (N_OUT,) constant after it, in either input order, becomes its
 * bias. Errors: a zero point per row that differs, one of another type than the input, an
 * attribute, an addend of another type or shape, a node other than Add after the int32
 * output, an Add after an int8 layer, DynamicQuantizeLinear. */
START_TEST(integer_ops_and_add)
{
	struct fx f;
	struct tpu_model *m;
	char err[512];
	size_t len;
	for (int k = 0; k < 3; k++) {
		fx_init(&f);
		fx_integer(&f);
		if (k)
			fx_add_node(&f, "Add", k == 2);
		uint8_t *buf = fx_pack(&f, &len);
		ck_assert_msg(tpu_import_onnx_mem(buf, len, NULL, &m, err, sizeof(err)) == 0,
			      "case %d: %s", k, err);
		ck_assert_uint_eq(m->out_type, TPU_IO_INT32);
		ck_assert_int_eq(m->in.zero_point, 3);
		ck_assert(m->in.scale == 1.0f);
		const struct tpu_layer *l = &m->layers[0];
		ck_assert_uint_eq(l->type, TPU_LAYER_DENSE);
		ck_assert_uint_eq(l->round, TPU_ROUND_DOUBLE);
		ck_assert(l->out.scale == 1.0f && l->out.zero_point == 0);
		for (int j = 0; j < N_OUT; j++) {
			ck_assert_int_eq(l->multiplier[j], 0);
			ck_assert_int_eq(l->shift[j], 0);
			ck_assert_int_eq(l->bias[j], k ? f.b[j] : 0);
		}
		for (int j = 0; j < K_IN * N_OUT; j++)
			ck_assert_int_eq(l->weights[j], f.w[j]);
		tpu_model_free(m);
		free(buf);
	}
	/* a zero point per row (here 2 of them) must be one value */
	fx_init(&f);
	fx_integer(&f);
	int32_t rows[2] = {3, 4};
	int64_t rdims[1] = {2};
	f.t[1].n_int32_data = 2;
	f.t[1].int32_data = rows;
	f.t[1].n_dims = 1;
	f.t[1].dims = rdims;
	expect_fail(&f, "node 'mm' (MatMulInteger): input zero point: row 1 has 4, row 0 3 (one "
			"zero point for every row is supported)");
	fx_init(&f);
	fx_integer(&f);
	f.t[1].data_type = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
	expect_fail(&f, "input zero point: 1 uint8 values (one int8, the input's type, "
			"expected)");
	fx_init(&f);
	fx_integer(&f);
	fx_int_attr(&f, "transB", 0);
	expect_fail(&f, "node 'mm' (MatMulInteger): attribute 'transB' is not supported");
	fx_init(&f);
	fx_integer(&f);
	fx_add_node(&f, "Add", false);
	f.t[7].data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
	expect_fail(&f, "node 'add' (Add): addend: int8 (int32 expected)");
	fx_init(&f);
	fx_integer(&f);
	fx_add_node(&f, "Add", false);
	f.b_dims[0] = 2;
	f.t[7].n_int32_data = 2;
	expect_fail(&f, "node 'add' (Add): addend of 2 values does not broadcast as one value per "
			"output channel (3) or one in all");
	fx_init(&f);
	fx_integer(&f);
	fx_add_node(&f, "Relu", false);
	f.node2.n_input = 1;
	expect_fail(&f, "node 'add' (Relu): reads the int32 output 'y' of MatMulInteger: only an "
			"Add of an int32 constant");
	fx_init(&f);
	fx_add_node(&f, "Add", false);
	expect_fail(&f, "node 'add' (Add): an Add folds only into the int32 output of "
			"MatMulInteger or ConvInteger");
	fx_init(&f);
	f.node.op_type = (char *)"DynamicQuantizeLinear";
	expect_fail(&f, "node 'mm' (DynamicQuantizeLinear): operator not supported: its scale and "
			"zero point are computed from each input at run time");
}
END_TEST

/* Every truncation fails cleanly (a prefix that parses is an incomplete graph) and so does the
 * empty file; run under ASan by make test-san. */
START_TEST(truncated_at_every_offset)
{
	struct fx f;
	fx_init(&f);
	size_t len;
	uint8_t *buf = fx_pack(&f, &len);
	for (size_t n = 0; n < len; n++) {
		uint8_t *cut = malloc(n ? n : 1);
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, buf, n);
		struct tpu_model *m = NULL;
		char err[512] = "";
		int rc = tpu_import_onnx_mem(cut, n, NULL, &m, err, sizeof(err));
		ck_assert_msg(rc == -EINVAL && !m, "cut to %zu of %zu bytes: rc %d", n, len, rc);
		ck_assert_msg(err[0] && !strchr(err, '\n'), "cut to %zu: message '%s'", n, err);
		free(cut);
	}
	free(buf);
}
END_TEST

/* Random byte changes: an error with a message, or a model that validates (a changed weight
 * is still a model); never a crash. */
START_TEST(corrupted_bytes)
{
	struct fx f;
	fx_init(&f);
	size_t len;
	uint8_t *buf = fx_pack(&f, &len);
	uint8_t *b = malloc(len);
	ck_assert_ptr_nonnull(b);
	uint64_t seed = harness_seed() ^ 0x1a;
	int refused = 0;
	for (int trial = 0; trial < 3000; trial++) {
		memcpy(b, buf, len);
		int edits = (int)harness_range(&seed, 1, 4);
		for (int e = 0; e < edits; e++)
			b[harness_range(&seed, 0, (int64_t)len - 1)] =
			    (uint8_t)harness_range(&seed, 0, 255);
		struct tpu_model *m = NULL;
		char err[512] = "";
		int rc = tpu_import_onnx_mem(b, len, NULL, &m, err, sizeof(err));
		if (rc) {
			ck_assert_msg(rc == -EINVAL && !m && err[0], "trial %d: rc %d '%s'", trial,
				      rc, err);
			refused++;
		} else {
			ck_assert_int_eq(tpu_model_validate(m, err, sizeof(err)), 0);
			tpu_model_free(m);
		}
	}
	ck_assert_int_gt(refused, 100);
	free(b);
	free(buf);
}
END_TEST

START_TEST(unsupported_and_inconsistent)
{
	struct fx f;
	fx_init(&f);
	f.node.op_type = (char *)"Softmax";
	expect_fail(&f, "node 'mm' (Softmax): operator not supported");
	fx_init(&f);
	f.node.name = NULL;
	f.node.op_type = (char *)"QLinearConv";
	fx_int_attr(&f, "group", 2);
	/* the 2-D weights of a matmul are not a convolution's */
	expect_fail(&f, "node #0 (QLinearConv): weights: rank 2 (4 expected)");
	fx_init(&f);
	fx_int_attr(&f, "transA", 0);
	expect_fail(&f, "node 'mm' (QLinearMatMul): attribute 'transA' is not supported");
	fx_init(&f);
	f.node.domain = (char *)"com.microsoft";
	expect_fail(&f, "node 'mm' (QLinearMatMul): operator domain 'com.microsoft'");
	/* a weight zero point of another type than the weights' */
	fx_init(&f);
	f.t[4].data_type = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
	expect_fail(&f, "node 'mm' (QLinearMatMul): weight zero point: 1 uint8 values (1 or 3 of "
			"the weights' type int8 expected)");
	/* a missing initializer */
	fx_init(&f);
	f.graph.n_initializer = 2; /* xs, xz only */
	expect_fail(&f, "input 6 (y scale) 'ys' is not an initializer or Constant (missing "
			"initializer)");
	fx_init(&f);
	f.inits[2] = f.inits[6];
	f.graph.n_initializer = 6;
	expect_fail(&f, "input 3 (weights) 'w' is not an initializer or Constant");
	/* shapes: weights of 4 rows against 5 input features; data that do not fill the dims */
	fx_init(&f);
	f.din[1].dim_value = 5;
	expect_fail(&f, "node 'mm' (QLinearMatMul): weights have 4 rows, the input 5 features");
	fx_init(&f);
	f.w_dims[0] = 5;
	expect_fail(&f, "weights: 12 values stored for 15 elements");
	fx_init(&f);
	f.f[2] = -1.0f;
	expect_fail(&f, "y scale: -1 (must be finite and > 0)");
	/* two consumers of the input: not a chain */
	fx_init(&f);
	f.node_in[4] = (char *)"x";
	expect_fail(&f, "tensor 'x' is read by 2 nodes");
	/* the graph's input of an unsupported type and rank */
	fx_init(&f);
	f.ttin.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
	expect_fail(&f, "graph input 'x': element type int32");
	fx_init(&f);
	f.sin.n_dim = 1;
	expect_fail(&f, "graph input 'x': rank 1 (2, 3 or 4 expected)");
	/* no opset of the default domain, or one older than the QLinear operators */
	fx_init(&f);
	f.model.n_opset_import = 0;
	expect_fail(&f, "no opset import of the default domain");
	fx_init(&f);
	f.opset.version = 9;
	expect_fail(&f, "opset 9 of the default domain (10 or later expected");
	/* not an ONNX model at all */
	struct tpu_model *m;
	char err[512];
	ck_assert_int_eq(tpu_import_onnx_mem("TPUM\1\0\0\0", 8, NULL, &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not an ONNX model"));
	ck_assert_int_eq(tpu_import_onnx("/nonexistent/m.onnx", NULL, &m, err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/m.onnx: cannot open"));
}
END_TEST

/* `tpu import` on a bad file: exit 2, one line naming the node, no output file. On a good one:
 * a model file tpu run accepts. */
START_TEST(cli_writes_nothing_on_error)
{
	struct cli_dir d;
	struct cli_run r;
	struct fx f;
	cli_dir_init(&d, "import");
	const char *bad = cli_dir_path(&d, "bad.onnx"), *good = cli_dir_path(&d, "good.onnx"),
		   *out = cli_dir_path(&d, "m.tpum");
	fx_init(&f);
	size_t len;
	uint8_t *buf = fx_pack(&f, &len);
	FILE *fp = fopen(good, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(buf, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
	fp = fopen(bad, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(buf, 1, len / 2, fp), len / 2);
	ck_assert_int_eq(fclose(fp), 0);
	CLI_RUN(&r, "import", bad, "-o", out);
	cli_expect_fail(&r, 2, "tpu import: ", bad, NULL);
	ck_assert_int_ne(access(out, F_OK), 0);
	f.node.op_type = (char *)"Softmax";
	free(buf);
	buf = fx_pack(&f, &len);
	fp = fopen(bad, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(buf, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
	CLI_RUN(&r, "import", bad, "-o", out);
	cli_expect_fail(&r, 2, "tpu import: ", "node 'mm' (Softmax): operator not supported", NULL);
	ck_assert_int_ne(access(out, F_OK), 0);
	CLI_RUN(&r, "import", good);
	cli_expect_fail(&r, 2, "tpu import: ", "missing -o MODEL.tpum", NULL);
	CLI_RUN(&r, "import", good, "-o", out);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "model 'fx', 1 layers"));
	ck_assert_int_eq(access(out, F_OK), 0);
	free(buf);
	cli_dir_fini(&d);
}
END_TEST

static Suite *import_onnx_suite(void)
{
	Suite *s = suite_create("import_onnx");
	TCase *tc = tcase_create("import_onnx");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, imports_the_fixture);
	tcase_add_test(tc, weight_zero_points);
	tcase_add_test(tc, integer_ops_and_add);
	tcase_add_test(tc, truncated_at_every_offset);
	tcase_add_test(tc, corrupted_bytes);
	tcase_add_test(tc, unsupported_and_inconsistent);
	tcase_add_test(tc, cli_writes_nothing_on_error);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(import_onnx_suite)
