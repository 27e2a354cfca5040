/* tpu_export_onnx (driver/import/onnx_export.c): an exported model imported back with
 * tpu_import_onnx is the same model, in every rounding mode (FLOAT layers as QLinear nodes,
 * DOUBLE and SINGLE ones in integer operators), with left and right shifts, across conv padding
 * and strides, max pooling, dense layers after a 4-D tensor, ReLU, RELU6 and weight zero
 * points; a tampered integer requantization is refused on import; what ONNX cannot express is
 * refused with the layer named and no file written. (ONNX Runtime runs the shipped models' exports in
 * tests/onnx/export_check.py.) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "model_fixture.h"
#include "onnx.pb-c.h"
#include "tpu/import.h"

/* m exported and imported back (asserting both succeed). */
static struct tpu_model *round_trip(const struct tpu_model *m)
{
	void *data;
	size_t len;
	char err[512];
	struct tpu_model *back;

	ck_assert_msg(tpu_export_onnx_mem(m, &data, &len, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(tpu_import_onnx_mem(data, len, NULL, &back, err, sizeof(err)) == 0, "%s",
		      err);
	free(data);
	return back;
}

START_TEST(export_import_is_the_same_model)
{
	static const struct mfx_spec spec[] = {
	    {.type = TPU_LAYER_CONV2D, .kernel_h = 3, .kernel_w = 2, .stride_h = 1, .stride_w = 2,
	     .pad_top = 1, .pad_bottom = 2, .pad_left = 1, .pad_right = 0, .out_c = 5,
	     .act = TPU_ACT_RELU},
	    {.type = TPU_LAYER_MAXPOOL2D, .kernel_h = 2, .kernel_w = 2, .stride_h = 2,
	     .stride_w = 1},
	    {.type = TPU_LAYER_DENSE, .out_c = 7, .act = TPU_ACT_RELU6},
	    {.type = TPU_LAYER_DENSE, .out_c = 3, .act = TPU_ACT_NONE},
	};
	uint64_t seed = harness_seed() ^ 0xe4907;

	for (int rep = 0; rep < 12; rep++) {
		struct tpu_model *m = mfx_build(&seed, "exported", 7, 6, 3, spec, 4);
		/* every rounding mode on every layer over the repetitions: FLOAT layers become
		 * QLinear nodes, DOUBLE and SINGLE ones integer operators */
		for (uint32_t i = 0; i < m->n_layers; i++) {
			if (m->layers[i].type == TPU_LAYER_MAXPOOL2D) {
				m->layers[i].out = m->layers[i - 1].out; /* its input's */
				continue;
			}
			m->layers[i].round = (uint32_t)(rep + i) % 3;
			/* RELU6 only in integer operators (Clip); QLinear nodes take RELU */
			if (m->layers[i].round == TPU_ROUND_FLOAT &&
			    m->layers[i].act == TPU_ACT_RELU6)
				m->layers[i].act = TPU_ACT_RELU;
			if (rep % 4 == 3) /* multipliers above 1: left shifts */
				m->layers[i].out.scale /= 4096.0f;
			mfx_requantize(m, i);
		}
		/* every other time, weight zero points: per channel (per tensor on an integer
		 * CONV2D: ConvInteger takes one) */
		for (uint32_t i = 0; rep & 1 && i < m->n_layers; i += 2) {
			struct tpu_layer *l = &m->layers[i];
			bool one = l->type == TPU_LAYER_CONV2D && l->round != TPU_ROUND_FLOAT;
			l->b_zp_count = one ? 1 : l->out_c;
			l->b_zero_point = malloc(l->out_c * sizeof(int32_t));
			ck_assert_ptr_nonnull(l->b_zero_point);
			for (uint32_t j = 0; j < l->out_c; j++)
				l->b_zero_point[j] = (int32_t)harness_range(&seed, -128, 127);
		}
		struct tpu_model *back = round_trip(m);
		ck_assert_str_eq(back->name, m->name);
		ck_assert_uint_eq(back->n_layers, m->n_layers);
		for (uint32_t i = 0; i < m->n_layers; i++) {
			/* an activation comes back as one with the same clamp (RELU6 whose clamp is
			 * RELU's as RELU; RELU at zero point -128 as NONE) */
			int32_t lo_a, hi_a, lo_b, hi_b;
			const struct tpu_layer *la = &m->layers[i], *lb = &back->layers[i];
			ck_assert_int_eq(tpu_act_clamp((enum tpu_activation)la->act, la->out.scale,
						       la->out.zero_point, &lo_a, &hi_a), 0);
			ck_assert_int_eq(tpu_act_clamp((enum tpu_activation)lb->act, lb->out.scale,
						       lb->out.zero_point, &lo_b, &hi_b), 0);
			ck_assert(lo_a == lo_b && hi_a == hi_b);
			m->layers[i].act = lb->act;
		}
		m->in_round = back->in_round; /* (an int8 input: no QuantizeLinear, not used) */
		/* the export's input is NCHW, which the import records */
		ck_assert_uint_eq(back->io_layout & TPU_LAYOUT_IN_NCHW, TPU_LAYOUT_IN_NCHW);
		m->io_layout = back->io_layout;
		m->in_range = back->in_range;
		m->num_classes = back->num_classes;
		m->float_accuracy = back->float_accuracy;
		m->int8_accuracy = back->int8_accuracy;
		/* everything else, the rounding modes, multipliers and shifts included */
		mfx_assert_equal(m, back);
		tpu_model_free(back);
		tpu_model_free(m);
	}
}
END_TEST

/* An export with DOUBLE layers (integer operators) whose requantization is changed, or whose
 * metadata_props 'tpu.scales' is missing or corrupt, is refused on import naming the node. */
START_TEST(integer_requantization_tampered)
{
	static const struct mfx_spec spec[] = {
	    {.type = TPU_LAYER_DENSE, .out_c = 4, .act = TPU_ACT_RELU},
	};
	uint64_t seed = harness_seed() ^ 0xe4909;
	struct tpu_model *m = mfx_build(&seed, "tamper", 1, 1, 6, spec, 1), *back = NULL;
	void *data;
	size_t len;
	char err[512];
	ck_assert_msg(tpu_export_onnx_mem(m, &data, &len, err, sizeof(err)) == 0, "%s", err);
	static const struct {
		int edit; /* 0 drop the metadata, 1 a bad scale in it, 2 a changed constant, 3
			   * a node of another type */
		const char *want;
	} cases[] = {
	    {0, "its float scales are not in the model (metadata_props 'tpu.scales'"},
	    {1, "metadata_props 'tpu.scales': bad scale"},
	    {2, "integer requantization: a constant of another value"},
	    {3, "integer requantization: no Div follows"},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, data);
		ck_assert_ptr_nonnull(mp);
		Onnx__GraphProto *g = mp->graph;
		char bad_scales[] = "in -1\n";
		size_t nm = mp->n_metadata_props;
		char *keep_v = nm ? mp->metadata_props[0]->value : NULL;
		if (cases[c].edit == 0)
			mp->n_metadata_props = 0;
		if (cases[c].edit == 1)
			mp->metadata_props[0]->value = bad_scales;
		for (size_t i = 0; i < g->n_initializer && cases[c].edit == 2; i++) {
			Onnx__TensorProto *t = g->initializer[i];
			if (!strcmp(t->name, "l0_srdhm")) /* 2^31 -> 2^31 + 1 */
				t->raw_data.data[0] ^= 1;
		}
		char *keep_op = NULL;
		size_t at = 0;
		for (size_t i = 0; i < g->n_node && cases[c].edit == 3; i++)
			if (!strcmp(g->node[i]->op_type, "Div") && !keep_op) {
				keep_op = g->node[i]->op_type;
				g->node[i]->op_type = (char *)"Mul";
				at = i;
			}
		size_t n2 = onnx__model_proto__get_packed_size(mp);
		uint8_t *buf = malloc(n2);
		ck_assert_ptr_nonnull(buf);
		onnx__model_proto__pack(mp, buf);
		if (keep_op)
			g->node[at]->op_type = keep_op;
		if (nm)
			mp->metadata_props[0]->value = keep_v;
		mp->n_metadata_props = nm;
		onnx__model_proto__free_unpacked(mp, NULL);
		int rc = tpu_import_onnx_mem(buf, n2, NULL, &back, err, sizeof(err));
		free(buf);
		ck_assert_msg(rc == -EINVAL, "case %zu: rc %d (%s)", c, rc, err);
		ck_assert_ptr_null(back);
		ck_assert_msg(strstr(err, cases[c].want), "case %zu: '%s' lacks '%s'", c, err,
			      cases[c].want);
	}
	free(data);
	/* a per-channel weight zero point on an integer CONV2D: ConvInteger takes one */
	static const struct mfx_spec conv[] = {
	    {.type = TPU_LAYER_CONV2D, .kernel_h = 1, .kernel_w = 1, .stride_h = 1, .stride_w = 1,
	     .out_c = 3},
	};
	struct tpu_model *mc = mfx_build(&seed, "zp", 2, 2, 2, conv, 1);
	mc->layers[0].b_zp_count = 3;
	mc->layers[0].b_zero_point = calloc(3, sizeof(int32_t));
	ck_assert_ptr_nonnull(mc->layers[0].b_zero_point);
	mc->layers[0].b_zero_point[1] = 5;
	ck_assert_int_eq(tpu_export_onnx_mem(mc, &data, &len, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "export: layer 0 (CONV2D): per-channel weight zero points in DOUBLE "
			      "rounding (ConvInteger takes one)");
	tpu_model_free(mc);
	tpu_model_free(m);
}
END_TEST

START_TEST(export_refuses_what_onnx_cannot_express)
{
	uint64_t seed = harness_seed() ^ 0xe4908;
	struct tpu_model *m = mfx_small(&seed); /* its DENSE layer is a SIGMOID LUT */
	char err[512], path[] = "/tmp/tpu_export_XXXXXX";
	void *data = (void *)1;
	size_t len = 1;

	ck_assert_int_eq(tpu_export_onnx_mem(m, &data, &len, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_null(data);
	ck_assert_msg(strstr(err, "layer 2 (DENSE)") && strstr(err, "activation 3"), "%s", err);
	ck_assert_ptr_nonnull(mkdtemp(path));
	char file[64];
	snprintf(file, sizeof(file), "%s/m.onnx", path);
	ck_assert_int_eq(tpu_export_onnx(m, file, err, sizeof(err)), -EINVAL);
	struct stat st;
	ck_assert_int_ne(stat(file, &st), 0); /* nothing written */
	/* an invalid model is refused by the validator, before any export */
	m->layers[0].out.scale = -1.0f;
	ck_assert_int_eq(tpu_export_onnx(m, file, err, sizeof(err)), -EINVAL);
	ck_assert_int_ne(stat(file, &st), 0);
	ck_assert_int_eq(tpu_export_onnx_mem(NULL, &data, &len, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(tpu_export_onnx(m, NULL, err, sizeof(err)), -EINVAL);
	/* format-2 layers the export does not write: refused, not dropped */
	m->layers[0].out.scale = m->layers[1].out.scale;
	m->layers[2].act = TPU_ACT_NONE;
	memset(m->layers[2].lut, 0, sizeof(m->layers[2].lut));
	m->layers[1].type = TPU_LAYER_AVGPOOL2D;
	ck_assert_int_eq(tpu_export_onnx_mem(m, &data, &len, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "export: layer 1 (AVGPOOL2D): average pooling is not exported (yet)");
	m->layers[1].type = TPU_LAYER_MAXPOOL2D;
	m->layers[0].dilation_h = 2;
	ck_assert_int_eq(tpu_export_onnx_mem(m, &data, &len, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "layer 0 (CONV2D): dilation is not exported"), "%s", err);
	ck_assert_int_eq(rmdir(path), 0);
	tpu_model_free(m);
}
END_TEST

TPU_TEST_SUITE(suite_export_onnx)
static Suite *suite_export_onnx(void)
{
	Suite *s = suite_create("export_onnx");
	TCase *tc = tcase_create("export");
	tcase_add_test(tc, export_import_is_the_same_model);
	tcase_add_test(tc, export_refuses_what_onnx_cannot_express);
	tcase_add_test(tc, integer_requantization_tampered);
	suite_add_tcase(s, tc);
	return s;
}
