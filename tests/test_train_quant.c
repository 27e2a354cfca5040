/* Post-training quantization of sw/train: a tiny layer with hand-computed scales, zero points,
 * weights, bias and (multiplier, shift); the int8 reference inference on a hand-checked case;
 * and the reference inference against tpu_model_run on the golden device, for a random small
 * CNN and for the shipped models (models/, run from the repository root). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tpu/model.h"
#include "train/train.h"

START_TEST(activation_ranges)
{
	struct tpu_quant q;

	/* a ReLU output [0, 2.55]: scale 0.01, zero point -128 */
	ck_assert_int_eq(tr_quant_range(0.0, 2.55, &q), 0);
	ck_assert(q.scale == (float)(2.55 / 255.0));
	ck_assert_int_eq(q.zero_point, -128);
	/* [-0.5, 2.05]: scale 0.01, -128 + 50 */
	ck_assert_int_eq(tr_quant_range(-0.5, 2.05, &q), 0);
	ck_assert(fabsf(q.scale - 0.01f) < 1e-8f);
	ck_assert_int_eq(q.zero_point, -78);
	/* a range without 0 is widened to include it: [0.5, 5.1] -> [0, 5.1] */
	ck_assert_int_eq(tr_quant_range(0.5, 5.1, &q), 0);
	ck_assert(fabsf(q.scale - 0.02f) < 1e-8f);
	ck_assert_int_eq(q.zero_point, -128);
	/* all negative: [-2.55, -1] -> [-2.55, 0], zero point 127 */
	ck_assert_int_eq(tr_quant_range(-2.55, -1.0, &q), 0);
	ck_assert_int_eq(q.zero_point, 127);
	ck_assert_int_ne(tr_quant_range(-INFINITY, 1.0, &q), 0);
}
END_TEST

START_TEST(weights_and_bias)
{
	/* K = 2, 2 channels: column maxima 1.27 and 2.54 -> scales 0.01 and 0.02 */
	const double w[4] = { 1.27, -0.5, 0.6, 2.54 }, b[2] = { 1.0, -0.03 };
	int8_t q[4];
	float ws[2];
	int32_t qb[2];

	tr_quant_weights(w, 2, 2, q, ws);
	ck_assert(ws[0] == (float)(1.27 / 127.0) && ws[1] == (float)(2.54 / 127.0));
	ck_assert_int_eq(q[0], 127);
	ck_assert_int_eq(q[1], -25);
	ck_assert_int_eq(q[2], 60);
	ck_assert_int_eq(q[3], 127);
	/* bias scale = 0.5 x w_scale: 1.0 / 0.005 = 200, -0.03 / 0.01 = -3 */
	tr_quant_bias(b, 2, 0.5f, ws, qb);
	ck_assert_int_eq(qb[0], 200);
	ck_assert_int_eq(qb[1], -3);
}
END_TEST

/* A one-layer dense net 64 -> 2 with every weight of channel j equal to c[j]. */
static void tiny_net(struct tr_net *net, const double c[2], const double bias[2], bool relu)
{
	uint64_t rng = 1;

	tr_net_init(net, 8, 8, 1, 1);
	ck_assert_int_eq(tr_net_add_dense(net, 2, relu), 0);
	ck_assert_int_eq(tr_net_alloc(net, &rng), 0);
	for (size_t k = 0; k < 64; k++)
		for (size_t j = 0; j < 2; j++)
			net->param[net->layer[0].w_off + k * 2 + j] = c[j];
	net->param[net->layer[0].b_off] = bias[0];
	net->param[net->layer[0].b_off + 1] = bias[1];
}

START_TEST(tiny_layer_model)
{
	const double c[2] = { 1.27, -0.254 }, bias[2] = { 0.0, 1.0 };
	const double lo[1] = { -1.0 }, hi[1] = { 1.55 };
	struct tpu_model *m;
	struct tr_net net;
	char err[128];

	tiny_net(&net, c, bias, false);
	ck_assert_int_eq(tr_quantize(&net, lo, hi, "tiny", &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m->name, "tiny");
	ck_assert(m->in.scale == 1.0f / 240.0f && m->in.zero_point == -128);
	ck_assert(m->in_range == 16.0f && m->num_classes == 2 && m->n_layers == 1);
	{
		const struct tpu_layer *l = &m->layers[0];

		ck_assert_uint_eq(l->type, TPU_LAYER_DENSE);
		ck_assert_uint_eq(l->act, TPU_ACT_NONE);
		ck_assert_uint_eq(l->out_c, 2);
		/* out range [-1, 1.55]: scale 0.01, zero point round(-128 + 100) = -28 */
		ck_assert(fabsf(l->out.scale - 0.01f) < 1e-8f);
		ck_assert_int_eq(l->out.zero_point, -28);
		ck_assert_int_eq(l->weights[0], 127);
		ck_assert_int_eq(l->weights[1], -127);
		ck_assert(l->w_scale[0] == (float)(1.27 / 127.0));
		ck_assert(l->w_scale[1] == (float)(0.254 / 127.0));
		ck_assert_int_eq(l->bias[0], 0);
		/* 1.0 / (in_scale x 0.002) = 1.0 / (1/240 x 0.002) = 120000 */
		ck_assert_int_eq(l->bias[1], 120000);
		/* r0 = (1/240) x 0.01 / 0.01 = 1/240 = 0.5333.. x 2^-7 and r1 = r0 / 5 =
		 * 0.8533.. x 2^-10, rounded into Q31 (computed by hand from the float scales) */
		for (int j = 0; j < 2; j++) {
			double r = (double)m->in.scale * (double)l->w_scale[j] /
				   (double)l->out.scale;
			int e;
			double q = frexp(r, &e);

			ck_assert_int_eq(l->shift[j], e);
			ck_assert_int_eq(l->multiplier[j], (int32_t)round(q * 2147483648.0));
		}
		ck_assert_int_eq(l->shift[0], -7);
		ck_assert_int_eq(l->shift[1], -10);
		ck_assert(fabs(l->multiplier[0] / 2147483648.0 - 0.533333) < 1e-6);
	}
	/* Reference inference, input all 1 (pixel 16): q_in = 112, x - z = 240 each;
	 * channel 0: acc = 64 x 240 x 127 = 1950720 -> real 1950720 x (1/240) x 0.01 = 81.28,
	 * far above 1.55: saturates at 127. Pixel 0: acc 0, bias 0 -> the zero point -28.
	 * Channel 1 with pixel 0: 1.0 / 0.01 = 100 -> -28 + 100 = 72. */
	{
		uint8_t raw[64];
		int8_t in[64], out[2];

		memset(raw, 16, sizeof(raw));
		tr_quantize_input(m, raw, 64, in);
		ck_assert_int_eq(in[0], 112);
		ck_assert_int_eq(tr_qref_run(m, in, out), 0);
		ck_assert_int_eq(out[0], 127);
		memset(raw, 0, sizeof(raw));
		tr_quantize_input(m, raw, 64, in);
		ck_assert_int_eq(in[0], -128);
		ck_assert_int_eq(tr_qref_run(m, in, out), 0);
		ck_assert_int_eq(out[0], -28);
		ck_assert_int_eq(out[1], 72);
	}
	ck_assert_int_eq(tpu_model_validate(m, err, sizeof(err)), 0);
	tpu_model_free(m);
	tr_net_free(&net);
}
END_TEST

START_TEST(relu_layer_zero_point)
{
	const double c[2] = { 0.5, 0.5 }, bias[2] = { 0.0, 0.0 };
	const double lo[1] = { 0.0 }, hi[1] = { 32.0 };
	struct tpu_model *m;
	struct tr_net net;
	char err[128];

	tiny_net(&net, c, bias, true);
	ck_assert_int_eq(tr_quantize(&net, lo, hi, "relu", &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->layers[0].act, TPU_ACT_RELU);
	ck_assert_int_eq(m->layers[0].out.zero_point, -128);
	tpu_model_free(m);
	tr_net_free(&net);
}
END_TEST

/* A synthetic digits set of n random images. */
static void random_digits(struct tr_digits *d, size_t n, uint64_t *st)
{
	d->n = n;
	d->x = malloc(n * TR_DIGITS_PIXELS);
	d->y = malloc(n);
	for (size_t i = 0; i < n * TR_DIGITS_PIXELS; i++)
		d->x[i] = (uint8_t)harness_range(st, 0, 16);
	for (size_t i = 0; i < n; i++)
		d->y[i] = (uint8_t)harness_range(st, 0, 9);
}

/* tr_qref_run on each example of d against one batched tpu_model_run on golden. */
static void compare_with_device(const struct tpu_model *m, const struct tr_digits *d)
{
	size_t classes = m->num_classes;
	int8_t *in = malloc(d->n * TR_DIGITS_PIXELS), *dev_out = malloc(d->n * classes);
	int8_t ref[16];
	tpu_dev *dev;

	ck_assert_uint_le(classes, sizeof(ref));
	tr_quantize_input(m, d->x, d->n * TR_DIGITS_PIXELS, in);
	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	ck_assert_int_eq(tpu_model_run(dev, m, d->n, in, dev_out, NULL), 0);
	for (size_t i = 0; i < d->n; i++) {
		ck_assert_int_eq(tr_qref_run(m, in + i * TR_DIGITS_PIXELS, ref), 0);
		for (size_t j = 0; j < classes; j++)
			ck_assert_msg(ref[j] == dev_out[i * classes + j],
				      "%s: example %zu class %zu: reference %d, device %d", m->name,
				      i, j, ref[j], dev_out[i * classes + j]);
	}
	tpu_close(dev);
	free(in);
	free(dev_out);
}

START_TEST(reference_matches_device_random_cnn)
{
	uint64_t st = harness_seed() ^ 0x66, init = harness_rand(&st);
	double lo[TR_MAX_LAYERS], hi[TR_MAX_LAYERS];
	struct tr_digits d;
	struct tpu_model *m;
	struct tr_net net;
	char err[128];

	/* conv without padding then with, pool, two dense layers: random weights and biases */
	tr_net_init(&net, 8, 8, 1, 16);
	ck_assert_int_eq(tr_net_add_conv(&net, 4, 3, 1, true), 0);
	ck_assert_int_eq(tr_net_add_conv(&net, 5, 2, 0, true), 0);
	ck_assert_int_eq(tr_net_add_pool(&net, 2, 2), 0);
	ck_assert_int_eq(tr_net_add_dense(&net, 12, true), 0);
	ck_assert_int_eq(tr_net_add_dense(&net, 10, false), 0);
	ck_assert_int_eq(tr_net_alloc(&net, &init), 0);
	for (size_t i = 0; i < net.n_layers; i++)
		if (net.layer[i].kind != TR_POOL)
			for (size_t j = 0; j < net.layer[i].out_c; j++)
				net.param[net.layer[i].b_off + j] =
					(double)harness_range(&st, -500, 500) / 1000.0;
	random_digits(&d, 40, &st);
	tr_calibrate(&net, &d, lo, hi);
	ck_assert_int_eq(tr_quantize(&net, lo, hi, "random-cnn", &m, err, sizeof(err)), 0);
	ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
	compare_with_device(m, &d);
	tpu_model_free(m);
	tr_net_free(&net);
	tr_digits_free(&d);
}
END_TEST

START_TEST(shipped_models_match_device_and_figures)
{
	static const char *const paths[2] = { "models/digits-mlp.tpum", "models/digits-cnn.tpum" };
	struct tr_digits all, train, test;
	char err[256] = "";

	ck_assert_msg(tr_digits_load("data/digits.csv.gz", &all, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_int_eq(tr_digits_split(&all, &train, &test), 0);
	for (int i = 0; i < 2; i++) {
		struct tpu_model *m;
		double acc;

		ck_assert_msg(tpu_model_load(paths[i], &m, err, sizeof(err)) == 0, "%s: %s",
			      paths[i], err);
		/* the recorded int8 figure is what the reference inference gives */
		ck_assert_int_eq(tr_eval_int8(m, &test, &acc), 0);
		ck_assert_msg((float)acc == m->int8_accuracy, "%s: int8 accuracy %f, recorded %f",
			      paths[i], acc, (double)m->int8_accuracy);
		ck_assert(acc >= (i == 0 ? 0.96 : 0.975));
		compare_with_device(m, &test);
		tpu_model_free(m);
	}
	tr_digits_free(&all);
	tr_digits_free(&train);
	tr_digits_free(&test);
}
END_TEST

TPU_TEST_SUITE(suite_train_quant)
static Suite *suite_train_quant(void)
{
	Suite *s = suite_create("train_quant");
	TCase *tc = tcase_create("quantize");
	TCase *dev = tcase_create("device");

	tcase_add_test(tc, activation_ranges);
	tcase_add_test(tc, weights_and_bias);
	tcase_add_test(tc, tiny_layer_model);
	tcase_add_test(tc, relu_layer_zero_point);
	tcase_add_test(dev, reference_matches_device_random_cnn);
	tcase_add_test(dev, shipped_models_match_device_and_figures);
	tcase_set_timeout(dev, 60);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, dev);
	return s;
}
