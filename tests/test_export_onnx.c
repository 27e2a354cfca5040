/* tpu_export_onnx (driver/import/onnx_export.c): an exported model imported back with
 * tpu_import_onnx is the same model but for the rounding mode (FLOAT, ONNX Runtime's) and the
 * multipliers that follow from it, across conv padding and strides, max pooling, dense layers
 * after a 4-D tensor and ReLU; what ONNX cannot express is refused
 * with the layer named and no file written. (ONNX Runtime runs the shipped models' exports in
 * tests/onnx/export_check.py.) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "model_fixture.h"
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
	    {.type = TPU_LAYER_DENSE, .out_c = 7, .act = TPU_ACT_RELU},
	    {.type = TPU_LAYER_DENSE, .out_c = 3, .act = TPU_ACT_NONE},
	};
	uint64_t seed = harness_seed() ^ 0xe4907;

	for (int rep = 0; rep < 8; rep++) {
		struct tpu_model *m = mfx_build(&seed, "exported", 7, 6, 3, spec, 4);
		/* ReLU at the saturation (zero point -128), as the quantizers write it: the form
		 * tpu_import_onnx reads back (the export's DequantizeLinear -> Relu ->
		 * QuantizeLinear for another zero point is ONNX Runtime's float ReLU) */
		for (uint32_t i = 0; i < m->n_layers; i++)
			if (m->layers[i].act == TPU_ACT_RELU)
				m->layers[i].out.zero_point = -128;
		if (m->layers[1].type == TPU_LAYER_MAXPOOL2D)
			m->layers[1].out = m->layers[0].out;
		/* every other time, weight zero points per channel on the conv and a dense layer */
		for (uint32_t i = 0; rep & 1 && i < m->n_layers; i += 2) {
			struct tpu_layer *l = &m->layers[i];
			l->b_zp_count = l->out_c;
			l->b_zero_point = malloc(l->out_c * sizeof(int32_t));
			ck_assert_ptr_nonnull(l->b_zero_point);
			for (uint32_t j = 0; j < l->out_c; j++)
				l->b_zero_point[j] = (int32_t)harness_range(&seed, -128, 127);
		}
		struct tpu_model *back = round_trip(m);
		ck_assert_str_eq(back->name, m->name);
		ck_assert_uint_eq(back->n_layers, m->n_layers);
		/* the export is the model, ONNX's rounding aside: set it and compare everything */
		for (uint32_t i = 0; i < m->n_layers; i++) {
			ck_assert_uint_eq(back->layers[i].round,
					  m->layers[i].type == TPU_LAYER_MAXPOOL2D ? 0
										   : TPU_ROUND_FLOAT);
			if (m->layers[i].type != TPU_LAYER_MAXPOOL2D) {
				m->layers[i].round = TPU_ROUND_FLOAT;
				mfx_requantize(m, i);
			}
			/* ReLU at zero point -128 comes back as the same clamp, act NONE */
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
		mfx_assert_equal(m, back);
		tpu_model_free(back);
		tpu_model_free(m);
	}
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
	suite_add_tcase(s, tc);
	return s;
}
