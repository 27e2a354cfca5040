/* The CNN training ops of tpu/train.h (conv2d forward and backward through im2col and the
 * device, max-pool forward and backward on the host) against sw/train's independent double
 * layers, on the devices of $TPU_TRAIN_DEVICES (train_fixture.h), and the device CNN's gradient
 * against the double net.
 *
 * Bound (docs/training.md "Error bound"): a device product of k terms is within
 * train_bound(sum of |products|, k) of the exact value. The sums of |products| come from the
 * same double layers run on absolute values. dx adds col2im's fp32 sums (at most
 * kernel_h * kernel_w terms) to dcol's k = out_c terms. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "train/train.h"
#include "tpu/train.h"
#include "train_fixture.h"

/* n, in_h, in_w, in_c, out_c, k, stride, pad: 1s, sizes that are not multiples of N = 16 or 4,
 * the digits CNN's first layer (batch 5) */
static const size_t conv_shapes[][8] = {
	{ 1, 1, 1, 1, 1, 1, 1, 0 }, { 1, 3, 3, 1, 1, 3, 1, 1 }, { 2, 5, 4, 3, 7, 3, 1, 1 },
	{ 3, 6, 7, 2, 17, 2, 2, 1 }, { 5, 8, 8, 1, 8, 3, 1, 1 }, { 1, 9, 5, 5, 3, 3, 2, 2 },
};
#define N_CONV (sizeof(conv_shapes) / sizeof(conv_shapes[0]))

struct conv_case {
	struct tr_conv_shape s;      /* the double layers' shape */
	struct tpu_conv2d_shape t;   /* the ops' */
	size_t n, x_len, w_len, y_len;
};

static void conv_case_init(struct conv_case *c, const size_t v[8])
{
	c->n = v[0];
	c->s = (struct tr_conv_shape){ v[1], v[2], v[3], v[4], v[5], v[6], v[7] };
	c->t = (struct tpu_conv2d_shape){
		.batch = v[0], .in_h = v[1], .in_w = v[2], .in_c = v[3], .out_c = v[4],
		.kernel_h = v[5], .kernel_w = v[5], .stride_h = v[6], .stride_w = v[6],
		.pad_top = v[7], .pad_bottom = v[7], .pad_left = v[7], .pad_right = v[7],
	};
	c->x_len = c->n * v[1] * v[2] * v[3];
	c->w_len = v[5] * v[5] * v[3] * v[4];
	c->y_len = c->n * tr_conv_out_h(&c->s) * tr_conv_out_w(&c->s) * v[4];
	ck_assert_uint_eq(tr_conv_out_h(&c->s), tpu_conv2d_out_h(&c->t));
	ck_assert_uint_eq(tr_conv_out_w(&c->s), tpu_conv2d_out_w(&c->t));
}

static double *absd(const double *v, size_t n)
{
	double *a = train_zalloc(n);

	for (size_t i = 0; i < n; i++)
		a[i] = fabs(v[i]);
	return a;
}

static void expect_within(const char *uri, const char *what, const float *got, const double *ref,
			  const double *mag, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++) {
		double e = train_bound(mag[i], k);

		ck_assert_msg(fabs(got[i] - ref[i]) <= e, "%s: %s[%zu] %.9g, reference %.9g, bound %.3g",
			      uri, what, i, (double)got[i], ref[i], e);
	}
}

static void check_conv(const char *uri, const size_t v[8], uint64_t *st)
{
	struct tpu_train_ctx ctx;
	struct conv_case c;
	tpu_dev *dev;

	conv_case_init(&c, v);
	size_t oc = c.s.out_c, K = c.w_len / oc;
	float *x = train_zalloc(c.x_len), *w = train_zalloc(c.w_len), *b = train_zalloc(oc);
	float *dy = train_zalloc(c.y_len), *y = train_zalloc(c.y_len), *dx = train_zalloc(c.x_len);
	float *dw = train_zalloc(c.w_len), *db = train_zalloc(oc);
	double *xd = train_zalloc(c.x_len), *wd = train_zalloc(c.w_len), *bd = train_zalloc(oc);
	double *dyd = train_zalloc(c.y_len), *yd = train_zalloc(c.y_len);
	double *dxd = train_zalloc(c.x_len), *dwd = train_zalloc(c.w_len), *dbd = train_zalloc(oc);
	double *my = train_zalloc(c.y_len), *mdx = train_zalloc(c.x_len);
	double *mdw = train_zalloc(c.w_len), *mdb = train_zalloc(oc);

	train_fill(x, xd, c.x_len, st);
	train_fill(w, wd, c.w_len, st);
	train_fill(b, bd, oc, st);
	train_fill(dy, dyd, c.y_len, st);
	train_open(uri, &dev, &ctx);
	ck_assert_int_eq(tpu_train_conv2d_forward(&ctx, &c.t, x, w, b, y), 0);
	ck_assert_int_eq(tpu_train_conv2d_backward(&ctx, &c.t, x, w, dy, dw, db, dx), 0);
	train_close(dev, &ctx);
	tr_conv_forward(&c.s, xd, c.n, wd, bd, yd);
	tr_conv_backward(&c.s, xd, dyd, c.n, wd, dwd, dbd, dxd);
	/* the sums of absolute products: the same layers on absolute values */
	double *ax = absd(xd, c.x_len), *aw = absd(wd, c.w_len), *ab = absd(bd, oc);
	double *ady = absd(dyd, c.y_len);
	tr_conv_forward(&c.s, ax, c.n, aw, ab, my);
	tr_conv_backward(&c.s, ax, ady, c.n, aw, mdw, mdb, mdx);
	expect_within(uri, "y", y, yd, my, c.y_len, K);
	expect_within(uri, "dw", dw, dwd, mdw, c.w_len, c.y_len / oc);
	expect_within(uri, "dx", dx, dxd, mdx, c.x_len, oc + c.s.k * c.s.k);
	/* db: fp32 sums of the rows on the host */
	expect_within(uri, "db", db, dbd, mdb, oc, c.y_len / oc);
	void *all[] = { x, w, b, dy, y, dx, dw, db, xd, wd, bd, dyd, yd, dxd, dwd, dbd,
			my, mdx, mdw, mdb, ax, aw, ab, ady };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
}

START_TEST(conv_matches_double_reference)
{
	char uris[TRAIN_MAX_DEVS][128];
	int nd = train_devices(uris);
	uint64_t st = harness_seed() ^ 0x636f6e76;

	for (int d = 0; d < nd; d++)
		for (size_t i = 0; i < N_CONV; i++)
			check_conv(uris[d], conv_shapes[i], &st);
	for (int r = 0; r < 4; r++) {
		size_t k = (size_t)harness_range(&st, 1, 3);
		size_t v[8] = { (size_t)harness_range(&st, 1, 4), (size_t)harness_range(&st, k, 9),
				(size_t)harness_range(&st, k, 9), (size_t)harness_range(&st, 1, 5),
				(size_t)harness_range(&st, 1, 20), k,
				(size_t)harness_range(&st, 1, 2),
				(size_t)harness_range(&st, 0, (int64_t)k - 1) };

		check_conv(uris[r % nd], v, &st);
	}
}
END_TEST

/* On small integers every product and sum is exact in bf16 and fp32: the transposes and col2im
 * must give the double reference exactly. */
START_TEST(conv_backward_exact_on_integers)
{
	char uris[TRAIN_MAX_DEVS][128];
	int nd = train_devices(uris);
	uint64_t st = harness_seed() ^ 0x657861;
	static const size_t v[8] = { 3, 5, 6, 2, 5, 3, 1, 1 };

	for (int d = 0; d < nd; d++) {
		struct tpu_train_ctx ctx;
		struct conv_case c;
		tpu_dev *dev;

		conv_case_init(&c, v);
		float *x = train_zalloc(c.x_len), *w = train_zalloc(c.w_len);
		float *dy = train_zalloc(c.y_len), *dx = train_zalloc(c.x_len);
		float *dw = train_zalloc(c.w_len), *db = train_zalloc(c.s.out_c);
		double *xd = train_zalloc(c.x_len), *wd = train_zalloc(c.w_len);
		double *dyd = train_zalloc(c.y_len), *dxd = train_zalloc(c.x_len);
		double *dwd = train_zalloc(c.w_len), *dbd = train_zalloc(c.s.out_c);

		for (size_t i = 0; i < c.x_len; i++)
			xd[i] = x[i] = (float)harness_range(&st, -8, 8);
		for (size_t i = 0; i < c.w_len; i++)
			wd[i] = w[i] = (float)harness_range(&st, -8, 8);
		for (size_t i = 0; i < c.y_len; i++)
			dyd[i] = dy[i] = (float)harness_range(&st, -8, 8);
		train_open(uris[d], &dev, &ctx);
		ck_assert_int_eq(tpu_train_conv2d_backward(&ctx, &c.t, x, w, dy, dw, db, dx), 0);
		train_close(dev, &ctx);
		tr_conv_backward(&c.s, xd, dyd, c.n, wd, dwd, dbd, dxd);
		for (size_t i = 0; i < c.w_len; i++)
			ck_assert_msg(dw[i] == dwd[i], "%s dw[%zu] %g != %g", uris[d], i,
				      (double)dw[i], dwd[i]);
		for (size_t i = 0; i < c.x_len; i++)
			ck_assert_msg(dx[i] == dxd[i], "%s dx[%zu] %g != %g", uris[d], i,
				      (double)dx[i], dxd[i]);
		for (size_t i = 0; i < c.s.out_c; i++)
			ck_assert_msg(db[i] == dbd[i], "%s db[%zu] %g != %g", uris[d], i,
				      (double)db[i], dbd[i]);
		void *all[] = { x, w, dy, dx, dw, db, xd, wd, dyd, dxd, dwd, dbd };
		for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			free(all[i]);
	}
}
END_TEST

/* col2im is the adjoint of im2col: <col2im(c), x> == <c, im2col(x)>, exactly on integers; and
 * im2col reads the padding as 0 (a 1x1 input under a padded 3x3 kernel). */
START_TEST(col2im_is_the_adjoint_of_im2col)
{
	uint64_t st = harness_seed() ^ 0x636f6c;

	for (size_t i = 0; i < N_CONV; i++) {
		struct conv_case c;

		conv_case_init(&c, conv_shapes[i]);
		size_t cl = c.y_len / c.s.out_c * (c.w_len / c.s.out_c);
		float *x = train_zalloc(c.x_len), *col = train_zalloc(cl);
		float *cx = train_zalloc(cl), *dx = train_zalloc(c.x_len);
		double lhs = 0.0, rhs = 0.0;

		for (size_t j = 0; j < c.x_len; j++)
			x[j] = (float)harness_range(&st, -9, 9);
		for (size_t j = 0; j < cl; j++)
			col[j] = (float)harness_range(&st, -9, 9);
		ck_assert_int_eq(tpu_train_im2col(&c.t, x, cx), 0);
		ck_assert_int_eq(tpu_train_col2im(&c.t, col, dx), 0);
		for (size_t j = 0; j < c.x_len; j++)
			lhs += (double)dx[j] * x[j];
		for (size_t j = 0; j < cl; j++)
			rhs += (double)col[j] * cx[j];
		ck_assert_msg(lhs == rhs, "shape %zu: <col2im(c), x> %g != <c, im2col(x)> %g", i, lhs,
			      rhs);
		free(x), free(col), free(cx), free(dx);
	}
	struct tpu_conv2d_shape s = { .batch = 1, .in_h = 1, .in_w = 1, .in_c = 1, .out_c = 1,
				      .kernel_h = 3, .kernel_w = 3, .stride_h = 1, .stride_w = 1,
				      .pad_top = 1, .pad_bottom = 1, .pad_left = 1,
				      .pad_right = 1 };
	float one = 5.0f, col[9];
	ck_assert_int_eq(tpu_train_im2col(&s, &one, col), 0);
	for (int j = 0; j < 9; j++)
		ck_assert_msg(col[j] == (j == 4 ? 5.0f : 0.0f), "col[%d] %g", j, (double)col[j]);
}
END_TEST

/* n, in_h, in_w, c, k, stride: overlapping windows (stride < k), 1s, odd sizes */
static const size_t pool_shapes[][6] = {
	{ 1, 1, 1, 1, 1, 1 }, { 2, 8, 8, 8, 2, 2 }, { 3, 5, 7, 3, 3, 2 }, { 1, 4, 4, 17, 2, 1 },
	{ 4, 9, 3, 2, 3, 3 },
};

/* Forward and backward exactly as sw/train's double max-pool (same first-maximum rule), on
 * random values and on values with ties (integers 0..2). */
START_TEST(maxpool_matches_double_reference_exactly)
{
	uint64_t st = harness_seed() ^ 0x706f6f6c;

	for (int ties = 0; ties < 2; ties++)
		for (size_t i = 0; i < sizeof(pool_shapes) / sizeof(pool_shapes[0]); i++) {
			const size_t *v = pool_shapes[i];
			struct tr_pool_shape s = { v[1], v[2], v[3], v[4], v[5] };
			struct tpu_pool2d_shape t = { .batch = v[0], .in_h = v[1], .in_w = v[2],
						      .channels = v[3], .pool_h = v[4],
						      .pool_w = v[4], .stride_h = v[5],
						      .stride_w = v[5] };
			size_t in = v[0] * v[1] * v[2] * v[3];
			size_t out = v[0] * tr_pool_out_h(&s) * tr_pool_out_w(&s) * v[3];
			float *x = train_zalloc(in), *y = train_zalloc(out), *dy = train_zalloc(out);
			float *dx = train_zalloc(in);
			double *xd = train_zalloc(in), *yd = train_zalloc(out);
			double *dyd = train_zalloc(out), *dxd = train_zalloc(in);
			size_t *am = train_zalloc(out);

			train_fill(x, xd, in, &st);
			if (ties)
				for (size_t j = 0; j < in; j++)
					xd[j] = x[j] = (float)harness_range(&st, 0, 2);
			/* integer gradients: overlapping windows add them exactly in any order */
			for (size_t j = 0; j < out; j++)
				dyd[j] = dy[j] = (float)harness_range(&st, -100, 100);
			ck_assert_int_eq(tpu_train_maxpool_forward(&t, x, y, am), 0);
			ck_assert_int_eq(tpu_train_maxpool_backward(&t, am, dy, dx), 0);
			tr_pool_forward(&s, xd, v[0], yd);
			tr_pool_backward(&s, xd, dyd, v[0], dxd);
			for (size_t j = 0; j < out; j++) {
				ck_assert_msg(y[j] == yd[j], "shape %zu: y[%zu] %g != %g", i, j,
					      (double)y[j], yd[j]);
				ck_assert_msg(x[am[j]] == y[j], "shape %zu: argmax[%zu]", i, j);
			}
			for (size_t j = 0; j < in; j++)
				ck_assert_msg(dx[j] == dxd[j], "shape %zu ties %d: dx[%zu] %g != %g",
					      i, ties, j, (double)dx[j], dxd[j]);
			free(x), free(y), free(dy), free(dx), free(xd), free(yd), free(dyd);
			free(dxd), free(am);
		}
}
END_TEST

/* Central finite differences of L = sum(r * maxpool(x)) on values without ties: the backward
 * is the derivative (exact up to the float rounding of L). */
START_TEST(maxpool_backward_matches_finite_differences)
{
	struct tpu_pool2d_shape t = { .batch = 2, .in_h = 5, .in_w = 4, .channels = 3,
				      .pool_h = 2, .pool_w = 2, .stride_h = 1, .stride_w = 2 };
	enum { IN = 2 * 5 * 4 * 3, OUT = 2 * 4 * 2 * 3 };
	float x[IN], y[OUT], r[OUT], dx[IN];
	double xd[IN], rd[OUT];
	size_t am[OUT];
	uint64_t st = harness_seed() ^ 0x6664;

	train_fill(r, rd, OUT, &st);
	for (int i = 0; i < IN; i++) /* distinct values 1/64 apart, shuffled */
		x[i] = (float)i / 64.0f;
	for (int i = IN - 1; i > 0; i--) {
		int j = (int)harness_range(&st, 0, i);
		float tmp = x[i];
		x[i] = x[j], x[j] = tmp;
	}
	ck_assert_int_eq(tpu_train_maxpool_forward(&t, x, y, am), 0);
	ck_assert_int_eq(tpu_train_maxpool_backward(&t, am, r, dx), 0);
	for (int i = 0; i < IN; i++) {
		double up = 0.0, down = 0.0, h = 1.0 / 512;
		float keep = x[i];

		x[i] = keep + (float)h;
		ck_assert_int_eq(tpu_train_maxpool_forward(&t, x, y, am), 0);
		for (int j = 0; j < OUT; j++)
			up += rd[j] * y[j];
		x[i] = keep - (float)h;
		ck_assert_int_eq(tpu_train_maxpool_forward(&t, x, y, am), 0);
		for (int j = 0; j < OUT; j++)
			down += rd[j] * y[j];
		x[i] = keep;
		xd[i] = (up - down) / (2 * h);
		ck_assert_msg(fabs(xd[i] - dx[i]) <= 1e-6, "dx[%d] %.9g, finite difference %.9g", i,
			      (double)dx[i], xd[i]);
	}
}
END_TEST

/* A NaN in a window is never its maximum unless the whole window is NaN. */
START_TEST(maxpool_skips_nan)
{
	struct tpu_pool2d_shape t = { .batch = 1, .in_h = 2, .in_w = 4, .channels = 1,
				      .pool_h = 2, .pool_w = 2, .stride_h = 2, .stride_w = 2 };
	float x[8] = { NAN, -3.0f, NAN, NAN, -5.0f, NAN, NAN, NAN }, y[2];
	size_t am[2];

	ck_assert_int_eq(tpu_train_maxpool_forward(&t, x, y, am), 0);
	ck_assert_msg(y[0] == -3.0f && am[0] == 1, "y[0] %g at %zu", (double)y[0], am[0]);
	ck_assert_msg(isnan(y[1]), "y[1] %g", (double)y[1]);
}
END_TEST

START_TEST(bad_shapes_are_refused)
{
	struct tpu_conv2d_shape s = { .batch = 1, .in_h = 2, .in_w = 2, .in_c = 1, .out_c = 1,
				      .kernel_h = 3, .kernel_w = 3, .stride_h = 1, .stride_w = 1 };
	struct tpu_pool2d_shape p = { .batch = 1, .in_h = 2, .in_w = 2, .channels = 1,
				      .pool_h = 3, .pool_w = 1, .stride_h = 1, .stride_w = 1 };
	float x[4] = { 0 }, w[9] = { 0 }, y[4], col[36];
	size_t am[4] = { 0, 1, 2, 99 };
	struct tpu_train_ctx ctx;
	tpu_dev *dev;

	train_open("golden:bf16=1", &dev, &ctx);
	/* a 3x3 kernel on an unpadded 2x2 input does not fit */
	ck_assert_int_eq(tpu_train_conv2d_forward(&ctx, &s, x, w, NULL, y), -EINVAL);
	ck_assert_msg(strstr(ctx.err, "kernel 3x3") && strstr(ctx.err, "does not fit"), "%s",
		      ctx.err);
	ck_assert_int_eq(tpu_train_im2col(&s, x, col), -EINVAL);
	s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
	s.in_c = 0;
	ck_assert_int_eq(tpu_train_conv2d_backward(&ctx, &s, x, w, y, w, y, x), -EINVAL);
	ck_assert_int_eq(tpu_train_conv2d_forward(&ctx, NULL, x, w, NULL, y), -EINVAL);
	/* a fitting shape with groups: the training ops have none */
	s.in_c = 2;
	s.out_c = 2;
	s.groups = 2;
	ck_assert_int_eq(tpu_train_conv2d_forward(&ctx, &s, x, w, NULL, y), -EINVAL);
	ck_assert_msg(strstr(ctx.err, "groups 2"), "%s", ctx.err);
	ck_assert_int_eq(tpu_train_im2col(&s, x, col), -EINVAL);
	train_close(dev, &ctx);
	ck_assert_int_eq(tpu_train_maxpool_forward(&p, x, y, am), -EINVAL);
	p.pool_h = 1;
	ck_assert_int_eq(tpu_train_maxpool_forward(&p, x, y, NULL), -EINVAL);
	/* an argmax outside the input */
	ck_assert_int_eq(tpu_train_maxpool_backward(&p, am, y, x), -EINVAL);
}
END_TEST

TPU_TEST_SUITE(train_conv_suite)
static Suite *train_conv_suite(void)
{
	Suite *s = suite_create("train_conv");
	TCase *tc = tcase_create("conv");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, conv_matches_double_reference);
	tcase_add_test(tc, conv_backward_exact_on_integers);
	tcase_add_test(tc, col2im_is_the_adjoint_of_im2col);
	tcase_add_test(tc, maxpool_matches_double_reference_exactly);
	tcase_add_test(tc, maxpool_backward_matches_finite_differences);
	tcase_add_test(tc, maxpool_skips_nan);
	tcase_add_test(tc, bad_shapes_are_refused);
	suite_add_tcase(s, tc);
	return s;
}
