/* The float layers of sw/train: forward passes against hand-computed values, and every backward
 * pass against central finite differences of the forward pass (the loss is sum(r * y) for a
 * fixed random r, so dL/dy = r). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "train/train.h"

#define FD_EPS 1e-6
#define FD_TOL 1e-6

static void fill(double *v, size_t n, uint64_t *st)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (double)harness_range(st, -1000000, 1000000) / 1e6;
}

static double dot(const double *a, const double *b, size_t n)
{
	double s = 0.0;

	for (size_t i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

static void check_close(const char *what, size_t i, double analytic, double numeric)
{
	double tol = FD_TOL * (1.0 + fabs(numeric));

	ck_assert_msg(fabs(analytic - numeric) <= tol, "%s[%zu]: backward %.9g, finite diff %.9g",
		      what, i, analytic, numeric);
}

/* The layer under test as y = f(x, w, b). */
struct layer_case {
	size_t n_x, n_w, n_b, n_y;
	void (*fwd)(const struct layer_case *c, const double *x, const double *w, const double *b,
		    double *y);
	void (*bwd)(const struct layer_case *c, const double *x, const double *dy,
		    const double *w, double *dw, double *db, double *dx);
	struct tr_conv_shape conv;
	struct tr_pool_shape pool;
	size_t n, in, out;
};

/* Compare the backward of c against finite differences of its forward for each of x, w, b. */
static void grad_check(const struct layer_case *c, uint64_t *st)
{
	double *x = malloc(c->n_x * sizeof(double)), *w = malloc((c->n_w + 1) * sizeof(double));
	double *b = malloc((c->n_b + 1) * sizeof(double)), *r = malloc(c->n_y * sizeof(double));
	double *y = malloc(c->n_y * sizeof(double)), *dx = calloc(c->n_x, sizeof(double));
	double *dw = calloc(c->n_w + 1, sizeof(double)), *db = calloc(c->n_b + 1, sizeof(double));
	double *vars[3] = { x, w, b }, *grads[3] = { dx, dw, db };
	size_t sizes[3] = { c->n_x, c->n_w, c->n_b };
	const char *names[3] = { "dx", "dw", "db" };

	fill(x, c->n_x, st);
	fill(w, c->n_w, st);
	fill(b, c->n_b, st);
	fill(r, c->n_y, st);
	c->bwd(c, x, r, w, dw, db, dx);
	for (int v = 0; v < 3; v++)
		for (size_t i = 0; i < sizes[v]; i++) {
			double keep = vars[v][i], up, down;

			vars[v][i] = keep + FD_EPS;
			c->fwd(c, x, w, b, y);
			up = dot(r, y, c->n_y);
			vars[v][i] = keep - FD_EPS;
			c->fwd(c, x, w, b, y);
			down = dot(r, y, c->n_y);
			vars[v][i] = keep;
			check_close(names[v], i, grads[v][i], (up - down) / (2.0 * FD_EPS));
		}
	free(x);
	free(w);
	free(b);
	free(r);
	free(y);
	free(dx);
	free(dw);
	free(db);
}

static void dense_fwd(const struct layer_case *c, const double *x, const double *w,
		      const double *b, double *y)
{
	tr_dense_forward(x, c->n, c->in, c->out, w, b, y);
}

static void dense_bwd(const struct layer_case *c, const double *x, const double *dy,
		      const double *w, double *dw, double *db, double *dx)
{
	tr_dense_backward(x, dy, c->n, c->in, c->out, w, dw, db, dx);
}

static void conv_fwd(const struct layer_case *c, const double *x, const double *w,
		     const double *b, double *y)
{
	tr_conv_forward(&c->conv, x, c->n, w, b, y);
}

static void conv_bwd(const struct layer_case *c, const double *x, const double *dy,
		     const double *w, double *dw, double *db, double *dx)
{
	tr_conv_backward(&c->conv, x, dy, c->n, w, dw, db, dx);
}

static void pool_fwd(const struct layer_case *c, const double *x, const double *w,
		     const double *b, double *y)
{
	(void)w;
	(void)b;
	tr_pool_forward(&c->pool, x, c->n, y);
}

static void pool_bwd(const struct layer_case *c, const double *x, const double *dy,
		     const double *w, double *dw, double *db, double *dx)
{
	(void)w;
	(void)dw;
	(void)db;
	tr_pool_backward(&c->pool, x, dy, c->n, dx);
}

START_TEST(dense_forward_by_hand)
{
	/* x = [1, 2], w = [[1, 2, 3], [4, 5, 6]], b = [0.5, 0, -1] -> [9.5, 12, 14] */
	const double x[2] = { 1, 2 }, w[6] = { 1, 2, 3, 4, 5, 6 }, b[3] = { 0.5, 0, -1 };
	double y[3];

	tr_dense_forward(x, 1, 2, 3, w, b, y);
	ck_assert(y[0] == 9.5 && y[1] == 12.0 && y[2] == 14.0);
}
END_TEST

START_TEST(conv_forward_by_hand)
{
	/* 3x3 input 1..9, one 3x3 kernel of ones, pad 1: each output sums its 3x3 neighbourhood */
	const double x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, b[1] = { 0 };
	const double want[9] = { 12, 21, 16, 27, 45, 33, 24, 39, 28 };
	struct tr_conv_shape s = { 3, 3, 1, 1, 3, 1, 1 };
	double w[9], y[9];

	for (int i = 0; i < 9; i++)
		w[i] = 1.0;
	ck_assert_uint_eq(tr_conv_out_h(&s), 3);
	tr_conv_forward(&s, x, 1, w, b, y);
	for (int i = 0; i < 9; i++)
		ck_assert_msg(y[i] == want[i], "y[%d] = %g, want %g", i, y[i], want[i]);
	/* HWIO order: 2 input channels, 2 output channels, 1x1 kernel: w[c][o] */
	{
		struct tr_conv_shape s2 = { 1, 1, 2, 2, 1, 1, 0 };
		const double x2[2] = { 1, 10 }, w2[4] = { 1, 2, 3, 4 }, b2[2] = { 0, 0 };
		double y2[2];

		tr_conv_forward(&s2, x2, 1, w2, b2, y2);
		ck_assert(y2[0] == 31.0 && y2[1] == 42.0);
	}
}
END_TEST

START_TEST(pool_forward_by_hand)
{
	/* 4x4, 2 channels (c1 = -c0), 2x2 stride 2 */
	struct tr_pool_shape s = { 4, 4, 2, 2, 2 };
	double x[32], y[8];

	for (int i = 0; i < 16; i++) {
		x[2 * i] = i;
		x[2 * i + 1] = -i;
	}
	tr_pool_forward(&s, x, 1, y);
	ck_assert(y[0] == 5 && y[2] == 7 && y[4] == 13 && y[6] == 15);
	ck_assert(y[1] == 0 && y[3] == -2 && y[5] == -8 && y[7] == -10);
}
END_TEST

START_TEST(dense_gradients)
{
	uint64_t st = harness_seed() ^ 0x11;
	struct layer_case c = { .n = 3, .in = 5, .out = 4, .fwd = dense_fwd, .bwd = dense_bwd };

	c.n_x = c.n * c.in;
	c.n_w = c.in * c.out;
	c.n_b = c.out;
	c.n_y = c.n * c.out;
	grad_check(&c, &st);
}
END_TEST

START_TEST(conv_gradients)
{
	uint64_t st = harness_seed() ^ 0x22;
	/* pad 1 stride 1 (the digits CNN), and pad 0 stride 2 with a non-square input */
	const struct tr_conv_shape shapes[2] = { { 5, 5, 2, 3, 3, 1, 1 },
						 { 6, 5, 3, 2, 3, 2, 0 } };

	for (int k = 0; k < 2; k++) {
		struct layer_case c = { .n = 2, .conv = shapes[k], .fwd = conv_fwd,
					.bwd = conv_bwd };
		const struct tr_conv_shape *s = &c.conv;

		c.n_x = c.n * s->in_h * s->in_w * s->in_c;
		c.n_w = s->k * s->k * s->in_c * s->out_c;
		c.n_b = s->out_c;
		c.n_y = c.n * tr_conv_out_h(s) * tr_conv_out_w(s) * s->out_c;
		grad_check(&c, &st);
	}
}
END_TEST

START_TEST(pool_gradients)
{
	uint64_t st = harness_seed() ^ 0x33;
	/* non-overlapping 2x2/2 and overlapping 3x3/1 windows */
	const struct tr_pool_shape shapes[2] = { { 4, 6, 3, 2, 2 }, { 5, 4, 2, 3, 1 } };

	for (int k = 0; k < 2; k++) {
		struct layer_case c = { .n = 2, .pool = shapes[k], .fwd = pool_fwd,
					.bwd = pool_bwd };

		c.n_x = c.n * c.pool.in_h * c.pool.in_w * c.pool.c;
		c.n_y = c.n * tr_pool_out_h(&c.pool) * tr_pool_out_w(&c.pool) * c.pool.c;
		grad_check(&c, &st);
	}
}
END_TEST

START_TEST(softmax_xent_gradient)
{
	uint64_t st = harness_seed() ^ 0x44;
	const uint8_t labels[3] = { 0, 3, 2 };
	double z[12], dz[12];

	fill(z, 12, &st);
	/* uniform logits: loss = log(classes) */
	{
		double flat[4] = { 0.3, 0.3, 0.3, 0.3 };

		ck_assert(fabs(tr_softmax_xent(flat, labels, 1, 4, NULL) - log(4.0)) < 1e-12);
	}
	tr_softmax_xent(z, labels, 3, 4, dz);
	for (size_t i = 0; i < 12; i++) {
		double keep = z[i], up, down;

		z[i] = keep + FD_EPS;
		up = tr_softmax_xent(z, labels, 3, 4, NULL);
		z[i] = keep - FD_EPS;
		down = tr_softmax_xent(z, labels, 3, 4, NULL);
		z[i] = keep;
		check_close("dlogits", i, dz[i], (up - down) / (2.0 * FD_EPS));
	}
}
END_TEST

/* Loss of the whole net on x against labels. */
static double net_loss(struct tr_net *net, const double *x, const uint8_t *y, size_t n)
{
	return tr_softmax_xent(tr_net_forward(net, x, n), y, n, tr_net_classes(net), NULL);
}

START_TEST(network_gradients)
{
	uint64_t st = harness_seed() ^ 0x55, init = 7;
	const uint8_t y[2] = { 1, 4 };
	struct tr_net net;
	double x[2 * 36], dl[2 * 5];
	double *analytic;

	/* conv + ReLU, pool, dense + ReLU, dense: every kind of layer chained */
	tr_net_init(&net, 6, 6, 1, 2);
	ck_assert_int_eq(tr_net_add_conv(&net, 3, 3, 1, true), 0);
	ck_assert_int_eq(tr_net_add_pool(&net, 2, 2), 0);
	ck_assert_int_eq(tr_net_add_dense(&net, 6, true), 0);
	ck_assert_int_eq(tr_net_add_dense(&net, 5, false), 0);
	ck_assert_int_eq(tr_net_alloc(&net, &init), 0);
	ck_assert_uint_eq(net.n_params, (27 + 3) + (27 * 6 + 6) + (6 * 5 + 5));
	fill(x, 72, &st);
	fill(net.param + net.layer[0].b_off, 3, &st); /* nonzero biases, some ReLUs off */
	tr_softmax_xent(tr_net_forward(&net, x, 2), y, 2, 5, dl);
	memset(net.grad, 0, net.n_params * sizeof(double));
	tr_net_backward(&net, x, 2, dl);
	analytic = malloc(net.n_params * sizeof(double));
	memcpy(analytic, net.grad, net.n_params * sizeof(double));
	for (size_t i = 0; i < net.n_params; i++) {
		double keep = net.param[i], up, down;

		net.param[i] = keep + FD_EPS;
		up = net_loss(&net, x, y, 2);
		net.param[i] = keep - FD_EPS;
		down = net_loss(&net, x, y, 2);
		net.param[i] = keep;
		check_close("dparam", i, analytic[i], (up - down) / (2.0 * FD_EPS));
	}
	free(analytic);
	tr_net_free(&net);
}
END_TEST

START_TEST(adam_first_step)
{
	/* Adam's first step moves every parameter by lr against the sign of its gradient */
	struct tr_adam a;
	double p[3] = { 1.0, -2.0, 0.5 };
	const double g[3] = { 0.25, -4.0, 1e-3 };

	ck_assert_int_eq(tr_adam_init(&a, 3, 0.0), 0);
	tr_adam_step(&a, p, g, 0.01);
	ck_assert(fabs(p[0] - 0.99) < 1e-9 && fabs(p[1] + 1.99) < 1e-9 &&
		  fabs(p[2] - 0.49) < 1e-6);
	tr_adam_free(&a);
}
END_TEST

TPU_TEST_SUITE(suite_train_grad)
static Suite *suite_train_grad(void)
{
	Suite *s = suite_create("train_grad");
	TCase *tc = tcase_create("layers");

	/* (the finite-difference checks take seconds under ASan on a loaded machine) */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, dense_forward_by_hand);
	tcase_add_test(tc, conv_forward_by_hand);
	tcase_add_test(tc, pool_forward_by_hand);
	tcase_add_test(tc, dense_gradients);
	tcase_add_test(tc, conv_gradients);
	tcase_add_test(tc, pool_gradients);
	tcase_add_test(tc, softmax_xent_gradient);
	tcase_add_test(tc, network_gradients);
	tcase_add_test(tc, adam_first_step);
	suite_add_tcase(s, tc);
	return s;
}
