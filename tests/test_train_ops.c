/* The training ops of tpu/train.h on a device with the bf16 mode, against independent double
 * references (sw/train's float layers, tr_softmax_xent, tr_adam_step) and finite differences.
 *
 * Devices: $TPU_TRAIN_DEVICES (space-separated URIs), default "golden:bf16=1 golden:n=4,bf16=1";
 * the same tests run unchanged on a sim device with the bf16 mode.
 *
 * Error bound of a device product (docs/training.md "Error bound"): each operand is rounded to
 * bf16 (relative error <= 2^-8 each, so <= 2^-7 + 2^-16 on a product) and the k fp32 additions
 * plus the bias addition each add at most 2^-24 of the running magnitude, so
 *     |got - exact| <= (2^-7 + 2^-16 + (k + 1) 2^-24) (sum_k |a_ik b_kj| + |bias_j|).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "train/train.h"
#include "tpu/train.h"
#include "train_fixture.h"

/* Random dense shapes: 1, N - 1, N + 1, odd sizes. */
static const size_t shapes[][3] = {
	{ 1, 1, 1 }, { 1, 7, 3 }, { 5, 1, 9 }, { 17, 33, 10 }, { 32, 64, 64 }, { 3, 15, 17 },
	{ 31, 5, 1 },
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

struct dense_bufs {
	float *x, *w, *b, *dy, *y, *dw, *db, *dx;
	double *xd, *wd, *bd, *dyd, *yd, *dwd, *dbd, *dxd;
};

static void dense_alloc(struct dense_bufs *t, size_t n, size_t in, size_t out)
{
	t->x = train_zalloc(n * in), t->w = train_zalloc(in * out), t->b = train_zalloc(out);
	t->dy = train_zalloc(n * out), t->y = train_zalloc(n * out);
	t->dw = train_zalloc(in * out), t->db = train_zalloc(out), t->dx = train_zalloc(n * in);
	t->xd = train_zalloc(n * in), t->wd = train_zalloc(in * out), t->bd = train_zalloc(out);
	t->dyd = train_zalloc(n * out), t->yd = train_zalloc(n * out);
	t->dwd = train_zalloc(in * out), t->dbd = train_zalloc(out), t->dxd = train_zalloc(n * in);
}

static void dense_free(struct dense_bufs *t)
{
	void *all[] = { t->x, t->w, t->b, t->dy, t->y, t->dw, t->db, t->dx,
			t->xd, t->wd, t->bd, t->dyd, t->yd, t->dwd, t->dbd, t->dxd };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
}

/* sum_k |a[i*sa1 + k*sa2] * b[k*sb1 + j*sb2]| over k < K */
static double mag(const double *a, size_t ia, size_t sa, const double *b, size_t jb, size_t sb,
		  size_t k, size_t a_step, size_t b_step)
{
	double s = 0.0;

	for (size_t q = 0; q < k; q++)
		s += fabs(a[ia * sa + q * a_step] * b[q * b_step + jb * sb]);
	return s;
}

static void check_dense(const char *uri, size_t n, size_t in, size_t out, uint64_t *st)
{
	struct tpu_train_ctx ctx;
	struct dense_bufs t;
	tpu_dev *dev;

	train_open(uri, &dev, &ctx);
	dense_alloc(&t, n, in, out);
	train_fill(t.x, t.xd, n * in, st);
	train_fill(t.w, t.wd, in * out, st);
	train_fill(t.b, t.bd, out, st);
	train_fill(t.dy, t.dyd, n * out, st);
	ck_assert_int_eq(tpu_train_dense_forward(&ctx, n, in, out, t.x, t.w, t.b, t.y), 0);
	ck_assert_int_eq(tpu_train_dense_backward(&ctx, n, in, out, t.x, t.w, t.dy, t.dw, t.db,
						  t.dx), 0);
	tr_dense_forward(t.xd, n, in, out, t.wd, t.bd, t.yd);
	tr_dense_backward(t.xd, t.dyd, n, in, out, t.wd, t.dwd, t.dbd, t.dxd);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < out; j++) {
			double e = train_bound(mag(t.xd, i, in, t.wd, j, 1, in, 1, out) + fabs(t.bd[j]), in);
			ck_assert_msg(fabs(t.y[i * out + j] - t.yd[i * out + j]) <= e,
				      "%s %zux%zux%zu: y[%zu][%zu] %.9g, reference %.9g, bound %.3g",
				      uri, n, in, out, i, j, (double)t.y[i * out + j],
				      t.yd[i * out + j], e);
		}
	for (size_t k = 0; k < in; k++)
		for (size_t j = 0; j < out; j++) {
			double e = train_bound(mag(t.xd, k, 1, t.dyd, j, 1, n, in, out), n);
			ck_assert_msg(fabs(t.dw[k * out + j] - t.dwd[k * out + j]) <= e,
				      "%s %zux%zux%zu: dw[%zu][%zu] %.9g, reference %.9g, bound %.3g",
				      uri, n, in, out, k, j, (double)t.dw[k * out + j],
				      t.dwd[k * out + j], e);
		}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < in; k++) {
			double e = train_bound(mag(t.dyd, i, out, t.wd, k, out, out, 1, 1), out);
			ck_assert_msg(fabs(t.dx[i * in + k] - t.dxd[i * in + k]) <= e,
				      "%s %zux%zux%zu: dx[%zu][%zu] %.9g, reference %.9g, bound %.3g",
				      uri, n, in, out, i, k, (double)t.dx[i * in + k],
				      t.dxd[i * in + k], e);
		}
	/* db is fp32 sums of fp32 values on the host: n roundings of 2^-24 */
	for (size_t j = 0; j < out; j++) {
		double s = 0.0;

		for (size_t i = 0; i < n; i++)
			s += fabs(t.dyd[i * out + j]);
		ck_assert_msg(fabs(t.db[j] - t.dbd[j]) <= (double)n * ldexp(1, -24) * s + 1e-30,
			      "%s: db[%zu] %.9g, reference %.9g", uri, j, (double)t.db[j],
			      t.dbd[j]);
	}
	dense_free(&t);
	train_close(dev, &ctx);
}

START_TEST(dense_matches_double_reference)
{
	char uris[TRAIN_MAX_DEVS][128];
	int nd = train_devices(uris);
	uint64_t st = harness_seed() ^ 0x7261696e;

	for (int d = 0; d < nd; d++)
		for (size_t s = 0; s < N_SHAPES; s++)
			check_dense(uris[d], shapes[s][0], shapes[s][1], shapes[s][2], &st);
	/* and a few random ones */
	for (int r = 0; r < 6; r++)
		check_dense(uris[r % nd], (size_t)harness_range(&st, 1, 40),
			    (size_t)harness_range(&st, 1, 70), (size_t)harness_range(&st, 1, 20),
			    &st);
}
END_TEST

/* The transposes are real transposes: a product whose operands are exact in bf16 (small
 * integers) and whose sums are exact in fp32 must come out exactly. */
START_TEST(dense_backward_exact_on_integers)
{
	char uris[TRAIN_MAX_DEVS][128];
	int nd = train_devices(uris);
	size_t n = 19, in = 21, out = 5;
	struct dense_bufs t;
	uint64_t st = harness_seed() ^ 0x696e74;

	for (int d = 0; d < nd; d++) {
		struct tpu_train_ctx ctx;
		tpu_dev *dev;

		train_open(uris[d], &dev, &ctx);
		dense_alloc(&t, n, in, out);
		for (size_t i = 0; i < n * in; i++)
			t.xd[i] = t.x[i] = (float)harness_range(&st, -8, 8);
		for (size_t i = 0; i < in * out; i++)
			t.wd[i] = t.w[i] = (float)harness_range(&st, -8, 8);
		for (size_t i = 0; i < n * out; i++)
			t.dyd[i] = t.dy[i] = (float)harness_range(&st, -8, 8);
		ck_assert_int_eq(tpu_train_dense_backward(&ctx, n, in, out, t.x, t.w, t.dy, t.dw,
							  t.db, t.dx), 0);
		tr_dense_backward(t.xd, t.dyd, n, in, out, t.wd, t.dwd, t.dbd, t.dxd);
		for (size_t i = 0; i < in * out; i++)
			ck_assert_msg(t.dw[i] == t.dwd[i], "%s dw[%zu] %g != %g", uris[d], i,
				      (double)t.dw[i], t.dwd[i]);
		for (size_t i = 0; i < n * in; i++)
			ck_assert_msg(t.dx[i] == t.dxd[i], "%s dx[%zu] %g != %g", uris[d], i,
				      (double)t.dx[i], t.dxd[i]);
		dense_free(&t);
		train_close(dev, &ctx);
	}
}
END_TEST

START_TEST(relu_matches_reference)
{
	float y[6] = { -1.0f, 0.0f, 2.0f, -0.0f, 0.5f, -3.0f }, dy[6] = { 1, 2, 3, 4, 5, 6 };
	double yd[6], dyd[6] = { 1, 2, 3, 4, 5, 6 };

	tpu_train_relu_forward(y, 6);
	for (int i = 0; i < 6; i++)
		yd[i] = y[i];
	tpu_train_relu_backward(y, dy, 6);
	tr_relu_backward(yd, dyd, 6);
	for (int i = 0; i < 6; i++)
		ck_assert_msg(dy[i] == dyd[i], "dy[%d] %g != %g", i, (double)dy[i], dyd[i]);
	ck_assert(y[0] == 0.0f && y[2] == 2.0f && y[5] == 0.0f);
}
END_TEST

/* Loss and gradient against the double reference, and the gradient against central finite
 * differences of the op's own loss. */
START_TEST(xent_matches_reference_and_finite_differences)
{
	uint64_t st = harness_seed() ^ 0x78656e74;
	static const size_t sizes[][2] = { { 1, 1 }, { 1, 10 }, { 7, 3 }, { 33, 10 } };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s][0], c = sizes[s][1];
		float *z = train_zalloc(n * c), *dz = train_zalloc(n * c), loss, up, down;
		double *zd = train_zalloc(n * c), *dzd = train_zalloc(n * c), ref;
		uint8_t *lab = train_zalloc(n);

		train_fill(z, zd, n * c, &st);
		for (size_t i = 0; i < n * c; i++)
			zd[i] = z[i] *= 4.0f;
		for (size_t i = 0; i < n; i++)
			lab[i] = (uint8_t)harness_range(&st, 0, (int64_t)c - 1);
		ck_assert_int_eq(tpu_train_softmax_xent(z, lab, n, c, &loss, dz, NULL, 0), 0);
		ref = tr_softmax_xent(zd, lab, n, c, dzd);
		ck_assert_msg(fabs(loss - ref) <= 1e-6 * (1 + fabs(ref)), "loss %.9g, ref %.9g",
			      (double)loss, ref);
		for (size_t i = 0; i < n * c; i++) {
			float keep = z[i], h = 1e-2f;

			ck_assert_msg(fabs(dz[i] - dzd[i]) <= 1e-7, "dz[%zu] %.9g, ref %.9g", i,
				      (double)dz[i], dzd[i]);
			z[i] = keep + h;
			ck_assert_int_eq(tpu_train_softmax_xent(z, lab, n, c, &up, NULL, NULL, 0), 0);
			z[i] = keep - h;
			ck_assert_int_eq(tpu_train_softmax_xent(z, lab, n, c, &down, NULL, NULL, 0), 0);
			z[i] = keep;
			/* truncation O(h^2) ~ 1e-4, float loss rounding ~ 6e-8 / h */
			double fd = ((double)up - (double)down) / (2.0 * (double)h);
			ck_assert_msg(fabs(fd - dz[i]) <= 2e-4 + 1e-5 * (double)n,
				      "n %zu c %zu: dz[%zu] %.9g, finite difference %.9g", n, c, i,
				      (double)dz[i], fd);
		}
		free(z), free(dz), free(zd), free(dzd), free(lab);
	}
}
END_TEST

START_TEST(xent_rejects_bad_labels_and_logits)
{
	float z[6] = { 0, 1, 2, 3, 4, 5 }, loss;
	uint8_t lab[2] = { 1, 3 };
	char err[128];

	ck_assert_int_eq(tpu_train_softmax_xent(z, lab, 2, 3, &loss, NULL, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "row 1") && strstr(err, "3 classes"), "%s", err);
	lab[1] = 0;
	z[4] = NAN;
	ck_assert_int_eq(tpu_train_softmax_xent(z, lab, 2, 3, &loss, NULL, err, sizeof(err)),
			 -EDOM);
	ck_assert_msg(strstr(err, "logit 1 of row 1"), "%s", err);
	z[4] = INFINITY;
	ck_assert_int_eq(tpu_train_softmax_xent(z, lab, 2, 3, &loss, NULL, err, sizeof(err)),
			 -EDOM);
}
END_TEST

/* AdamW against sw/train's double AdamW; SGD against its formula written out here. */
START_TEST(optimizers_match_reference)
{
	enum { N = 37, STEPS = 5 };
	uint64_t st = harness_seed() ^ 0x6f7074;
	float p[N], g[N], ps[N];
	double pd[N], gd[N], vel[N] = { 0 }, psd[N];
	struct tpu_optim a, s;
	struct tr_adam ad;

	ck_assert_int_eq(tpu_optim_init(&a, TPU_OPTIM_ADAMW, N, 0.1), 0);
	ck_assert_int_eq(tpu_optim_init(&s, TPU_OPTIM_SGD, N, 0.01), 0);
	ck_assert_int_eq(tr_adam_init(&ad, N, 0.1), 0);
	train_fill(p, pd, N, &st);
	memcpy(ps, p, sizeof(p));
	memcpy(psd, pd, sizeof(pd));
	for (int t = 0; t < STEPS; t++) {
		train_fill(g, gd, N, &st);
		tpu_optim_step(&a, p, g, 1e-2);
		tr_adam_step(&ad, pd, gd, 1e-2);
		tpu_optim_step(&s, ps, g, 0.05);
		for (int i = 0; i < N; i++) {
			vel[i] = 0.9 * vel[i] + gd[i] + 0.01 * psd[i];
			psd[i] -= 0.05 * vel[i];
		}
		for (int i = 0; i < N; i++) {
			ck_assert_msg(fabs(p[i] - pd[i]) <= 1e-6, "adamw step %d p[%d] %.9g ref %.9g",
				      t, i, (double)p[i], pd[i]);
			ck_assert_msg(fabs(ps[i] - psd[i]) <= 1e-6, "sgd step %d p[%d] %.9g ref %.9g",
				      t, i, (double)ps[i], psd[i]);
		}
	}
	tpu_optim_free(&a);
	tpu_optim_free(&s);
	ck_assert_int_eq(tpu_optim_init(&s, 0, N, 0.0), -EINVAL);
	tr_adam_free(&ad);
}
END_TEST

START_TEST(int8_device_is_refused)
{
	struct tpu_train_ctx ctx;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	ck_assert_int_eq(tpu_train_init(&ctx, dev), -ENOTSUP);
	ck_assert_msg(strstr(ctx.err, "bf16"), "%s", ctx.err);
	tpu_close(dev);
}
END_TEST

TPU_TEST_SUITE(train_ops_suite)
static Suite *train_ops_suite(void)
{
	Suite *s = suite_create("train_ops");
	TCase *tc = tcase_create("ops");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, dense_matches_double_reference);
	tcase_add_test(tc, dense_backward_exact_on_integers);
	tcase_add_test(tc, relu_matches_reference);
	tcase_add_test(tc, xent_matches_reference_and_finite_differences);
	tcase_add_test(tc, xent_rejects_bad_labels_and_logits);
	tcase_add_test(tc, optimizers_match_reference);
	tcase_add_test(tc, int8_device_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

/* The device trainer's wiring (sw/train dev_net.c): one SGD step (lr 1, no momentum, no decay,
 * so the step is the gradient) on a net against sw/train's double forward and backward from
 * the same initial weights. bf16 operands through the layers: checked to 2^-5 of the largest
 * gradient, far below what a wrong layer order, offset, transpose or argmax gives (O(1)). */
static void check_net_gradient(int (*build)(struct tr_net *net), uint64_t salt)
{
	char uris[TRAIN_MAX_DEVS][128];
	int nd = train_devices(uris);
	enum { B = 13 };

	for (int dv = 0; dv < nd; dv++) {
		struct tr_net net;
		struct tr_dev d;
		uint64_t rng = 5, st = harness_seed() ^ salt;
		float x[B * 64];
		double xd[B * 64], dlog[B * 10], loss, gmax = 0.0;
		uint8_t y[B];
		size_t idx[B];
		char err[256];
		tpu_dev *dev;

		tr_net_init(&net, 8, 8, 1, 64);
		ck_assert_int_eq(build(&net), 0);
		ck_assert_int_eq(tr_net_alloc(&net, &rng), 0);
		for (size_t i = 0; i < net.n_params; i++) /* as fp32 master weights hold them */
			net.param[i] = (float)net.param[i];
		for (size_t i = 0; i < net.n_params; i++) /* biases too, so that ReLUs cut */
			if (net.param[i] == 0.0)
				net.param[i] = (float)harness_range(&st, -100, 100) / 1000.0f;
		for (int i = 0; i < B * 64; i++)
			xd[i] = x[i] = (float)harness_range(&st, 0, 16) / 16.0f;
		for (int i = 0; i < B; i++)
			y[i] = (uint8_t)harness_range(&st, 0, 9), idx[i] = (size_t)i;
		ck_assert_int_eq(tpu_open(uris[dv], &dev), 0);
		ck_assert_msg(!tr_dev_init(&d, &net, dev, TPU_OPTIM_SGD, 0.0, err, sizeof(err)),
			      "%s", err);
		d.opt.momentum = 0.0;
		struct tr_dev_data data = { .n = B, .x = x, .y = y };
		ck_assert_msg(!tr_dev_step(&d, &data, idx, B, 1.0, &loss, err, sizeof(err)), "%s",
			      err);
		const double *lg = tr_net_forward(&net, xd, B);
		tr_softmax_xent(lg, y, B, 10, dlog);
		memset(net.grad, 0, net.n_params * sizeof(double));
		tr_net_backward(&net, xd, B, dlog);
		for (size_t i = 0; i < net.n_params; i++)
			gmax = fmax(gmax, fabs(net.grad[i]));
		ck_assert(gmax > 0.0);
		for (size_t i = 0; i < net.n_params; i++) {
			double g = (double)(float)net.param[i] - (double)d.param[i];

			ck_assert_msg(fabs(g - net.grad[i]) <= ldexp(gmax, -5),
				      "%s: grad[%zu] device %.6g, double %.6g (max %.3g)", uris[dv],
				      i, g, net.grad[i], gmax);
		}
		tr_dev_free(&d);
		tr_net_free(&net);
		tpu_close(dev);
	}
}

/* 64 -> dense 64 + ReLU -> dense 10 (the digits MLP) */
static int build_mlp(struct tr_net *net)
{
	int ret = tr_net_add_dense(net, 64, true);

	return ret ? ret : tr_net_add_dense(net, 10, false);
}

/* 8x8x1 -> conv 3x3 x8 pad 1 + ReLU -> max-pool 2x2/2 -> dense 10 (the digits CNN), and a
 * second conv so that a conv layer's dx (col2im) is on the path */
static int build_cnn(struct tr_net *net)
{
	int ret = tr_net_add_conv(net, 8, 3, 1, true);

	if (!ret)
		ret = tr_net_add_conv(net, 5, 3, 0, true);
	if (!ret)
		ret = tr_net_add_pool(net, 2, 2);
	return ret ? ret : tr_net_add_dense(net, 10, false);
}

START_TEST(device_mlp_gradient_matches_double_net)
{
	check_net_gradient(build_mlp, 0x6d6c70);
}
END_TEST

START_TEST(device_cnn_gradient_matches_double_net)
{
	check_net_gradient(build_cnn, 0x636e6e);
}
END_TEST

TPU_TEST_SUITE(train_dev_suite)
static Suite *train_dev_suite(void)
{
	Suite *s = suite_create("train_dev");
	TCase *tc = tcase_create("net");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, device_mlp_gradient_matches_double_net);
	tcase_add_test(tc, device_cnn_gradient_matches_double_net);
	suite_add_tcase(s, tc);
	return s;
}
