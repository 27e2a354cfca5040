/* Ops library (include/tpu/ops.h): conv2d, dense, im2col, max-pool and the activation helpers
 * against naive references written here (direct convolution loops with int64 sums, then
 * tpu_activate), on the golden device and the Verilated one, which must also agree byte for
 * byte; big batches that must be split for a small DMA arena; every bad argument. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_ref.h"
#include "harness.h"
#include "sim_model.h"
#include "tpu/numerics.h"
#include "tpu/ops.h"

/* ------------------------------------------------------------------ references */

static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)((uint64_t)v & 0xFFFFFFFFu);
}

/* One output value from its exact int64 sum (bias included): raw int32 or the int8 pipeline
 * (FLOAT rounding through the host's float arithmetic, the others through tpu_activate). */
static void ref_store(const struct tpu_gemm_params *p, size_t j, int64_t sum, void *out, size_t idx)
{
	struct tpu_act_channel ch;
	struct tpu_act_output o;
	size_t c;

	if (p->quant_channels == 0) {
		((int32_t *)out)[idx] = wrap32(sum);
		return;
	}
	c = p->quant_channels == 1 ? 0 : j;
	if (p->round == TPU_ROUND_FLOAT) {
		int64_t z = (int64_t)ref_float_requant(
				wrap32(sum), ldexpf((float)p->multiplier[c], p->shift[c] - 31)) +
			    p->out_zero_point;
		int64_t v = z < p->clamp_min ? p->clamp_min : z > p->clamp_max ? p->clamp_max : z;
		((int8_t *)out)[idx] = p->lut ? p->lut[v + 128] : (int8_t)v;
		return;
	}
	ch = (struct tpu_act_channel){
	    .bias = 0, .multiplier = p->multiplier[c], .shift = p->shift[c]};
	o = (struct tpu_act_output){.zero_point = p->out_zero_point,
				    .qmin = p->clamp_min,
				    .qmax = p->clamp_max,
				    .lut = p->lut,
				    .round = p->round};
	((int8_t *)out)[idx] = tpu_activate(wrap32(sum), &ch, &o, NULL);
}

/* Direct convolution: padding taps are the input zero point, i.e. contribute nothing. With
 * dilation (tap ky reads row oy * stride + ky * dilation - pad), groups (output channel oc sees
 * its group's input channels; weights K/groups x out_c) and B zero points. */
static void ref_conv(const struct tpu_conv2d_shape *s, const int8_t *in, const int8_t *w,
		     const struct tpu_gemm_params *p, void *out)
{
	size_t dh = s->dilation_h ? s->dilation_h : 1, dw = s->dilation_w ? s->dilation_w : 1;
	size_t groups = s->groups ? s->groups : 1, cin_g = s->in_c / groups;
	size_t oc_g = s->out_c / groups;
	size_t oh =
	    (s->in_h + s->pad_top + s->pad_bottom - (s->kernel_h - 1) * dh - 1) / s->stride_h + 1;
	size_t ow =
	    (s->in_w + s->pad_left + s->pad_right - (s->kernel_w - 1) * dw - 1) / s->stride_w + 1;
	size_t idx = 0;

	for (size_t b = 0; b < s->batch; b++)
		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++)
				for (size_t oc = 0; oc < s->out_c; oc++, idx++) {
					size_t g = oc / oc_g;
					int64_t sum = p->bias ? p->bias[oc] : 0;
					int64_t zb =
					    p->b_zp_channels
						? p->b_zero_point[p->b_zp_channels == 1 ? 0 : oc]
						: 0;
					for (size_t ky = 0; ky < s->kernel_h; ky++)
						for (size_t kx = 0; kx < s->kernel_w; kx++) {
							long iy =
							    (long)(oy * s->stride_h + ky * dh) -
							    (long)s->pad_top;
							long ix =
							    (long)(ox * s->stride_w + kx * dw) -
							    (long)s->pad_left;
							for (size_t ci = 0; ci < cin_g; ci++) {
								/* a padding tap holds the input
								 * zero point */
								int64_t x =
								    iy < 0 || ix < 0 ||
									    iy >= (long)s->in_h ||
									    ix >= (long)s->in_w
									? p->in_zero_point
									: in[((b * s->in_h +
									       (size_t)iy) *
										  s->in_w +
									      (size_t)ix) *
										 s->in_c +
									     g * cin_g + ci];
								int64_t wv =
								    w[((ky * s->kernel_w + kx) *
									   cin_g +
								       ci) *
									  s->out_c +
								      oc];
								sum += (x - p->in_zero_point) *
								       (wv - zb);
							}
						}
					ref_store(p, oc, sum, out, idx);
				}
}

static void ref_dense(size_t batch, size_t in_f, size_t out_f, const int8_t *in, const int8_t *w,
		      const struct tpu_gemm_params *p, void *out)
{
	for (size_t b = 0; b < batch; b++)
		for (size_t j = 0; j < out_f; j++) {
			int64_t sum = p->bias ? p->bias[j] : 0;
			int64_t zb =
			    p->b_zp_channels ? p->b_zero_point[p->b_zp_channels == 1 ? 0 : j] : 0;
			for (size_t i = 0; i < in_f; i++)
				sum += ((int64_t)in[b * in_f + i] - p->in_zero_point) *
				       (w[i * out_f + j] - zb);
			ref_store(p, j, sum, out, b * out_f + j);
		}
}

/* ------------------------------------------------------------------ random cases */

struct ocase {
	struct tpu_conv2d_shape s;
	size_t m, k, n; /* GEMM view: m output pixels (or batch), k taps, n channels */
	bool dense;
	int8_t *in, *w, lut[256];
	int32_t *bias, *mult, *shift, *bzp;
	struct tpu_gemm_params p;
	const char *what; /* activation, for messages */
};

static void fill8(uint64_t *seed, int8_t *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		v[i] = (int8_t)harness_range(seed, -128, 127);
}

static size_t rsz(uint64_t *seed, size_t lo, size_t hi)
{
	return (size_t)harness_range(seed, (int64_t)lo, (int64_t)hi);
}

/* Random conv shape: kernel 1..4 (or 1), stride 1..3, asymmetric padding, batch 1..3; one in
 * four with dilation 1..3, one in three grouped (2 or 3 groups, or depthwise with a channel
 * multiplier of 1 or 2). */
static void random_conv_shape(uint64_t *seed, struct tpu_conv2d_shape *s, size_t max_hw,
			      size_t max_c, size_t max_oc)
{
	memset(s, 0, sizeof(*s));
	s->batch = rsz(seed, 1, 3);
	s->kernel_h = rsz(seed, 1, 4);
	s->kernel_w = rsz(seed, 1, 4);
	if (rsz(seed, 0, 3) == 0) {
		s->dilation_h = rsz(seed, 1, 3);
		s->dilation_w = rsz(seed, 1, 3);
	}
	/* the dilated kernel */
	size_t ekh = (s->kernel_h - 1) * (s->dilation_h ? s->dilation_h : 1) + 1;
	size_t ekw = (s->kernel_w - 1) * (s->dilation_w ? s->dilation_w : 1) + 1;
	s->pad_top = rsz(seed, 0, ekh - 1);
	s->pad_bottom = rsz(seed, 0, ekh - 1);
	s->pad_left = rsz(seed, 0, ekw - 1);
	s->pad_right = rsz(seed, 0, ekw - 1);
	s->stride_h = rsz(seed, 1, 3);
	s->stride_w = rsz(seed, 1, 3);
	{
		size_t lo_h =
		    ekh > s->pad_top + s->pad_bottom ? ekh - s->pad_top - s->pad_bottom : 1;
		size_t lo_w =
		    ekw > s->pad_left + s->pad_right ? ekw - s->pad_left - s->pad_right : 1;
		s->in_h = rsz(seed, lo_h, lo_h > max_hw ? lo_h : max_hw);
		s->in_w = rsz(seed, lo_w, lo_w > max_hw ? lo_w : max_hw);
	}
	s->in_c = rsz(seed, 1, max_c);
	s->out_c = rsz(seed, 1, max_oc);
	switch (rsz(seed, 0, 5)) {
	case 0: /* depthwise */
		s->groups = s->in_c;
		s->out_c = s->in_c * rsz(seed, 1, 2);
		break;
	case 1: { /* 2 or 3 groups */
		size_t g = rsz(seed, 2, 3);
		s->groups = g;
		s->in_c = g * rsz(seed, 1, max_c / g ? max_c / g : 1);
		s->out_c = g * rsz(seed, 1, max_oc / g ? max_oc / g : 1);
		break;
	}
	default:
		break;
	}
}

/* Quantization: raw, or int8 with per-tensor / per-channel multipliers and an activation. */
static void random_params(uint64_t *seed, struct ocase *c, int q8)
{
	struct tpu_gemm_params *p = &c->p;
	size_t n = c->n;
	int act;
	/* the rounding mode (the multipliers of FLOAT are fp32 scales) */
	enum tpu_round round = (enum tpu_round)harness_range(seed, 0, TPU_ROUND_MAX);

	c->bias = malloc(n * 4);
	c->mult = malloc(n * 4);
	c->shift = malloc(n * 4);
	c->bzp = malloc(n * 4);
	ck_assert(c->bias && c->mult && c->shift && c->bzp);
	for (size_t j = 0; j < n; j++) {
		int32_t m;
		int sh;
		/* scale a k-term sum into roughly the int8 range, varying per channel */
		double r = 1.0 / ((double)harness_range(seed, 2, 64) * (double)c->k);
		if (round == TPU_ROUND_FLOAT)
			ck_assert_int_eq(tpu_float_multiplier((float)r, &m, &sh), 0);
		else
			ck_assert_int_eq(tpu_quantize_multiplier(r, &m, &sh), 0);
		c->mult[j] = m;
		c->shift[j] = sh;
		c->bias[j] = (int32_t)harness_range(seed, -5000, 5000);
	}
	tpu_gemm_params_init(p);
	p->in_zero_point = (int32_t)harness_range(seed, -128, 127);
	p->bias = harness_range(seed, 0, 3) ? c->bias : NULL;
	/* B zero points, one case in five (grouped convs then run group by group) */
	for (size_t j = 0; j < n; j++)
		c->bzp[j] = (int32_t)harness_range(seed, -128, 127);
	if (harness_range(seed, 0, 4) == 0) {
		p->b_zero_point = c->bzp;
		p->b_zp_channels = harness_range(seed, 0, 1) ? n : 1;
	}
	c->what = "raw";
	if (!q8)
		return;
	p->quant_channels = harness_range(seed, 0, 1) ? n : 1;
	p->round = round;
	p->multiplier = c->mult;
	p->shift = c->shift;
	p->out_zero_point = (int32_t)harness_range(seed, -20, 20);
	act = (int)harness_range(seed, TPU_ACT_NONE, TPU_ACT_TANH);
	{
		float scale = (float)harness_range(seed, 1, 100) / 400.0f;
		ck_assert_int_eq(tpu_act_clamp((enum tpu_activation)act, scale, p->out_zero_point,
					       &p->clamp_min, &p->clamp_max),
				 0);
		if (act == TPU_ACT_SIGMOID || act == TPU_ACT_TANH) {
			ck_assert_int_eq(tpu_act_lut((enum tpu_activation)act, scale,
						     p->out_zero_point, 1.0f / 256.0f, -128,
						     c->lut),
					 0);
			p->lut = c->lut;
		}
	}
	static const char *const names[] = {"none", "relu", "relu6", "sigmoid", "tanh"};
	c->what = names[act];
}

static void make_conv(uint64_t *seed, struct ocase *c, size_t max_hw, size_t max_c, size_t max_oc,
		      int q8)
{
	memset(c, 0, sizeof(*c));
	random_conv_shape(seed, &c->s, max_hw, max_c, max_oc);
	c->m = c->s.batch * tpu_conv2d_out_h(&c->s) * tpu_conv2d_out_w(&c->s);
	ck_assert_uint_gt(c->m, 0);
	c->k = c->s.kernel_h * c->s.kernel_w * c->s.in_c / (c->s.groups ? c->s.groups : 1);
	c->n = c->s.out_c;
	c->in = malloc(c->s.batch * c->s.in_h * c->s.in_w * c->s.in_c);
	c->w = malloc(c->k * c->n);
	ck_assert(c->in && c->w);
	fill8(seed, c->in, c->s.batch * c->s.in_h * c->s.in_w * c->s.in_c);
	fill8(seed, c->w, c->k * c->n);
	random_params(seed, c, q8);
}

static void make_dense(uint64_t *seed, struct ocase *c, size_t batch, size_t in_f, size_t out_f,
		       int q8)
{
	memset(c, 0, sizeof(*c));
	c->dense = true;
	c->m = batch;
	c->k = in_f;
	c->n = out_f;
	c->in = malloc(batch * in_f);
	c->w = malloc(in_f * out_f);
	ck_assert(c->in && c->w);
	fill8(seed, c->in, batch * in_f);
	fill8(seed, c->w, in_f * out_f);
	random_params(seed, c, q8);
}

static void free_case(struct ocase *c)
{
	free(c->in);
	free(c->w);
	free(c->bias);
	free(c->mult);
	free(c->shift);
	free(c->bzp);
}

static size_t out_len(const struct ocase *c)
{
	return c->m * c->n * (c->p.quant_channels ? 1 : 4);
}

/* Run c on dev into got (out_len bytes); assert success. */
static void run_case(tpu_dev *dev, const struct ocase *c, void *got, const char *uri)
{
	int err;

	memset(got, 0x5A, out_len(c));
	if (c->dense)
		err = tpu_dense(dev, c->m, c->k, c->n, c->in, c->w, &c->p, got);
	else
		err = tpu_conv2d(dev, &c->s, c->in, c->w, &c->p, got);
	ck_assert_msg(err == 0, "%s: %s failed: %s (%s)", uri, c->dense ? "dense" : "conv2d",
		      tpu_strerror(err), tpu_ops_last_error(dev));
	ck_assert_str_eq(tpu_ops_last_error(dev), "");
}

static void expect_ref(const struct ocase *c, const void *got, const char *uri)
{
	size_t len = out_len(c), esz = c->p.quant_channels ? 1 : 4;
	uint8_t *want = malloc(len);
	const struct tpu_conv2d_shape *s = &c->s;

	ck_assert_ptr_nonnull(want);
	if (c->dense)
		ref_dense(c->m, c->k, c->n, c->in, c->w, &c->p, want);
	else
		ref_conv(s, c->in, c->w, &c->p, want);
	for (size_t i = 0; i < len; i += esz)
		if (memcmp((const uint8_t *)got + i, want + i, esz) != 0)
			ck_abort_msg(
			    "%s %s [b%zu %zux%zux%zu k%zux%zu s%zux%zu pad %zu,%zu,%zu,%zu "
			    "oc%zu] q=%zu %s: element %zu differs",
			    uri, c->dense ? "dense" : "conv2d", s->batch, s->in_h, s->in_w, s->in_c,
			    s->kernel_h, s->kernel_w, s->stride_h, s->stride_w, s->pad_top,
			    s->pad_bottom, s->pad_left, s->pad_right, s->out_c, c->p.quant_channels,
			    c->what, i / esz);
	free(want);
}

/* Run c on dev and compare the output with the naive reference. */
static void check_case(tpu_dev *dev, const struct ocase *c, const char *uri)
{
	void *got = malloc(out_len(c));
	ck_assert_ptr_nonnull(got);
	run_case(dev, c, got, uri);
	expect_ref(c, got, uri);
	free(got);
}

static tpu_dev *open_dev(const char *uri)
{
	tpu_dev *dev = NULL;
	int err = tpu_open(uri, &dev);
	ck_assert_msg(err == 0, "%s: %s", uri, tpu_last_open_error());
	return dev;
}

static void random_golden(const char *uri, unsigned cases, size_t max_hw, size_t max_c,
			  size_t max_oc, uint64_t salt)
{
	uint64_t seed = harness_seed() ^ salt;
	tpu_dev *dev = open_dev(uri);

	for (unsigned i = 0; i < cases; i++) {
		struct ocase c;
		if (i % 3 == 2)
			make_dense(&seed, &c, rsz(&seed, 1, 9), rsz(&seed, 1, 3 * max_c),
				   rsz(&seed, 1, max_oc), (int)(i & 1));
		else
			make_conv(&seed, &c, max_hw, max_c, max_oc, (int)(i & 1) || i % 4 == 2);
		check_case(dev, &c, uri);
		free_case(&c);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}

START_TEST(ops_random_golden_n4)
{
	random_golden("golden:n=4,ub_rows=64,acc_rows=32,fifo_tiles=2,mem=2M", 40, 9, 6, 9, 0x40);
}
END_TEST

START_TEST(ops_random_golden_n8)
{
	random_golden("golden:n=8,ub_rows=128,acc_rows=64,mem=4M", 30, 12, 11, 19, 0x80);
}
END_TEST

/* The same cases on the Verilated device and the golden one: equal bytes, and both equal to
 * the reference. Small shapes: the sim runs every cycle. */
START_TEST(ops_sim_equals_golden)
{
	uint64_t seed = harness_seed() ^ 0x5135;
	const char *guri = "golden:n=8,qdepth=64,mem=2M",
		   *suri = "sim:n=8,latency=10,qdepth=64,mem=2M";
	tpu_dev *g, *s;

	if (!tpu_sim_model_find(8, 0)) {
		fprintf(stderr, "note: no Verilated n=8 device model: ops sim test skipped\n");
		return;
	}
	g = open_dev(guri);
	s = open_dev(suri);
	for (unsigned i = 0; i < 6; i++) {
		struct ocase c;
		uint8_t *og, *os;
		if (i == 5)
			make_dense(&seed, &c, rsz(&seed, 2, 5), rsz(&seed, 1, 20),
				   rsz(&seed, 1, 12), 1);
		else
			make_conv(&seed, &c, 5, 4, 10, i != 0);
		og = malloc(out_len(&c));
		os = malloc(out_len(&c));
		ck_assert(og && os);
		run_case(g, &c, og, guri);
		run_case(s, &c, os, suri);
		expect_ref(&c, og, guri);
		ck_assert_msg(memcmp(og, os, out_len(&c)) == 0,
			      "case %u (%s): sim differs from golden", i, c.what);
		free(og);
		free(os);
		free_case(&c);
	}
	ck_assert_int_eq(tpu_close(s), 0);
	ck_assert_int_eq(tpu_close(g), 0);
}
END_TEST

/* A batch whose im2col matrix is far larger than the DMA arena: split into several GEMMs. */
START_TEST(ops_big_batch_is_split)
{
	uint64_t seed = harness_seed() ^ 0xB16;
	const char *uri = "golden:n=8,qdepth=16,mem=128k";
	tpu_dev *dev = open_dev(uri);
	struct ocase c;

	memset(&c, 0, sizeof(c));
	c.s = (struct tpu_conv2d_shape){.batch = 9,
					.in_h = 16,
					.in_w = 16,
					.in_c = 5,
					.out_c = 7,
					.kernel_h = 3,
					.kernel_w = 3,
					.stride_h = 1,
					.stride_w = 1,
					.pad_top = 1,
					.pad_bottom = 1,
					.pad_left = 1,
					.pad_right = 1};
	c.m = 9 * 16 * 16;
	c.k = 45;
	c.n = 7;
	c.in = malloc(9 * 16 * 16 * 5);
	c.w = malloc(45 * 7);
	ck_assert(c.in && c.w);
	fill8(&seed, c.in, 9 * 16 * 16 * 5);
	fill8(&seed, c.w, 45 * 7);
	for (int q8 = 0; q8 < 2; q8++) {
		random_params(&seed, &c, q8);
		ck_assert_uint_gt(c.m * (c.k + c.n * 4), 128u << 10); /* raw: more than the arena */
		check_case(dev, &c, uri);
		free(c.bias);
		free(c.mult);
		free(c.shift);
		free(c.bzp);
	}
	/* a buffer of the caller's takes a third of the arena: the first guess of the slice size
	 * is too large, -ENOMEM makes the slices smaller */
	{
		tpu_buf *hog;
		ck_assert_int_eq(tpu_buf_alloc(dev, 44u << 10, &hog), 0);
		random_params(&seed, &c, 1);
		check_case(dev, &c, uri);
		free(c.bias);
		free(c.mult);
		free(c.shift);
		free(c.bzp);
		ck_assert_int_eq(tpu_buf_free(hog), 0);
	}
	free(c.in);
	free(c.w);

	/* dense with a big batch: the same */
	make_dense(&seed, &c, 3000, 40, 9, 0);
	check_case(dev, &c, uri);
	free_case(&c);

	/* weights alone larger than the arena: -ENOMEM, said so */
	{
		int8_t *big = calloc(1, 400 * 400);
		int32_t out[400];
		ck_assert_ptr_nonnull(big);
		ck_assert_int_eq(tpu_dense(dev, 1, 400, 400, big, big, NULL, out), -ENOMEM);
		ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "arena"));
		free(big);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ------------------------------------------------------------------ im2col, out_h, pooling */

START_TEST(ops_im2col_known)
{
	/* 1 x 2 x 2 x 1 input, 2x2 kernel, padding 1 everywhere, stride 1: 3x3 output */
	struct tpu_conv2d_shape s = {.batch = 1,
				     .in_h = 2,
				     .in_w = 2,
				     .in_c = 1,
				     .out_c = 1,
				     .kernel_h = 2,
				     .kernel_w = 2,
				     .stride_h = 1,
				     .stride_w = 1,
				     .pad_top = 1,
				     .pad_bottom = 1,
				     .pad_left = 1,
				     .pad_right = 1};
	const int8_t in[4] = {1, 2, 3, 4};
	static const int8_t want[9][4] = {
	    {9, 9, 9, 1}, {9, 9, 1, 2}, {9, 9, 2, 9}, {9, 1, 9, 3}, {1, 2, 3, 4},
	    {2, 9, 4, 9}, {9, 3, 9, 9}, {3, 4, 9, 9}, {4, 9, 9, 9},
	};
	int8_t cols[36];

	ck_assert_uint_eq(tpu_conv2d_out_h(&s), 3);
	ck_assert_uint_eq(tpu_conv2d_out_w(&s), 3);
	ck_assert_int_eq(tpu_im2col(&s, in, 9, cols), 0);
	ck_assert_int_eq(memcmp(cols, want, sizeof(cols)), 0);
	/* stride 2, asymmetric: out = (2 + 1 + 0 - 2) / 2 + 1 = 1 */
	s.stride_h = s.stride_w = 2;
	s.pad_bottom = s.pad_right = 0;
	ck_assert_uint_eq(tpu_conv2d_out_h(&s), 1);
	ck_assert_int_eq(tpu_im2col(&s, in, -1, cols), 0);
	ck_assert_int_eq(cols[0], -1);
	ck_assert_int_eq(cols[1], -1);
	ck_assert_int_eq(cols[2], -1);
	ck_assert_int_eq(cols[3], 1);
	/* taps ordered (kh, kw, c): two channels */
	{
		struct tpu_conv2d_shape t = {.batch = 1,
					     .in_h = 1,
					     .in_w = 2,
					     .in_c = 2,
					     .out_c = 1,
					     .kernel_h = 1,
					     .kernel_w = 2,
					     .stride_h = 1,
					     .stride_w = 1};
		const int8_t x[4] = {10, 11, 20, 21};
		int8_t col[4];
		ck_assert_int_eq(tpu_im2col(&t, x, 0, col), 0);
		ck_assert_int_eq(memcmp(col, x, 4), 0);
	}
}
END_TEST

static void ref_maxpool(const struct tpu_pool2d_shape *s, const int8_t *in, int8_t *out)
{
	size_t oh = (s->in_h - s->pool_h) / s->stride_h + 1;
	size_t ow = (s->in_w - s->pool_w) / s->stride_w + 1;

	for (size_t b = 0; b < s->batch; b++)
		for (size_t y = 0; y < oh; y++)
			for (size_t x = 0; x < ow; x++)
				for (size_t c = 0; c < s->channels; c++) {
					int best = -1000;
					for (size_t i = 0; i < s->pool_h; i++)
						for (size_t j = 0; j < s->pool_w; j++) {
							int v = in[((b * s->in_h + y * s->stride_h +
								     i) *
									s->in_w +
								    x * s->stride_w + j) *
								       s->channels +
								   c];
							best = v > best ? v : best;
						}
					*out++ = (int8_t)best;
				}
}

START_TEST(ops_maxpool_random)
{
	uint64_t seed = harness_seed() ^ 0x9001;

	for (int i = 0; i < 60; i++) {
		struct tpu_pool2d_shape s = {.batch = rsz(&seed, 1, 3),
					     .in_h = rsz(&seed, 1, 9),
					     .in_w = rsz(&seed, 1, 9),
					     .channels = rsz(&seed, 1, 5),
					     .stride_h = rsz(&seed, 1, 3),
					     .stride_w = rsz(&seed, 1, 3)};
		size_t in_len, out_len_;
		int8_t *in, *got, *want;
		s.pool_h = rsz(&seed, 1, s.in_h);
		s.pool_w = rsz(&seed, 1, s.in_w);
		in_len = s.batch * s.in_h * s.in_w * s.channels;
		out_len_ = s.batch * ((s.in_h - s.pool_h) / s.stride_h + 1) *
			   ((s.in_w - s.pool_w) / s.stride_w + 1) * s.channels;
		in = malloc(in_len);
		got = malloc(out_len_ + 1);
		want = malloc(out_len_);
		ck_assert(in && got && want);
		fill8(&seed, in, in_len);
		got[out_len_] = 0x33;
		ref_maxpool(&s, in, want);
		ck_assert_int_eq(tpu_maxpool2d(&s, in, got), 0);
		ck_assert_int_eq(memcmp(got, want, out_len_), 0);
		ck_assert_int_eq(got[out_len_], 0x33); /* nothing written past the output */
		free(in);
		free(got);
		free(want);
	}
	/* known: 2x2 pool of a 2x2 image, all -128 but one */
	{
		struct tpu_pool2d_shape s = {1, 2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, 0};
		const int8_t in[4] = {-128, -128, -127, -128};
		int8_t out = 0;
		ck_assert_int_eq(tpu_maxpool2d(&s, in, &out), 0);
		ck_assert_int_eq(out, -127);
	}
}
END_TEST

/* ------------------------------------------------------------------ activations */

START_TEST(ops_act_clamp_known)
{
	int32_t lo = 0, hi = 0;

	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_NONE, 0.1f, 5, &lo, &hi), 0);
	ck_assert_int_eq(lo, -128);
	ck_assert_int_eq(hi, 127);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_SIGMOID, 0.1f, 5, &lo, &hi), 0);
	ck_assert(lo == -128 && hi == 127);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_TANH, 0.1f, 5, &lo, &hi), 0);
	ck_assert(lo == -128 && hi == 127);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU, 0.1f, 5, &lo, &hi), 0);
	ck_assert(lo == 5 && hi == 127);
	/* relu6: z + round(6 / scale) */
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 0.1f, -10, &lo, &hi), 0);
	ck_assert(lo == -10 && hi == 50);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 6.0f / 255.0f, -128, &lo, &hi), 0);
	ck_assert(lo == -128 && hi == 127);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 0.05f, 0, &lo, &hi), 0);
	ck_assert(lo == 0 && hi == 120);
	/* 6 / 0.48 = 12.5: half away from zero gives 13 */
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 0.48f, 0, &lo, &hi), 0);
	ck_assert_int_eq(hi, (int32_t)lround(6.0 / (double)0.48f));
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 16.0f, 0, &lo, &hi), 0);
	ck_assert_int_eq(hi, 0); /* 6 / 16 = 0.375 -> 0 */
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 12.0f, 0, &lo, &hi), 0);
	ck_assert_int_eq(hi, 1); /* 6 / 12 = 0.5 exactly -> 1 (away from zero) */
	/* saturates: tiny scale, large zero point */
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 1e-30f, 100, &lo, &hi), 0);
	ck_assert(lo == 100 && hi == 127);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, 0.01f, 127, &lo, &hi), 0);
	ck_assert(lo == 127 && hi == 127);
}
END_TEST

static void check_monotonic(const int8_t lut[256])
{
	for (int i = 1; i < 256; i++)
		ck_assert_msg(lut[i] >= lut[i - 1], "lut[%d] = %d < lut[%d] = %d", i, lut[i], i - 1,
			      lut[i - 1]);
}

START_TEST(ops_act_lut_sigmoid_known)
{
	int8_t lut[256];

	/* in: 1/16 per step, zero point 0; out: 1/256, zero point -128 (TFLite's sigmoid) */
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_SIGMOID, 1.0f / 16, 0, 1.0f / 256, -128, lut), 0);
	ck_assert_int_eq(lut[128], 0);	      /* sigmoid(0) = 0.5 -> 128 - 128 */
	ck_assert_int_eq(lut[128 + 16], 59);  /* sigmoid(1) * 256 = 187.15 -> 187 - 128 */
	ck_assert_int_eq(lut[128 - 16], -59); /* 68.85 -> 69 - 128 */
	ck_assert_int_eq(lut[0], -128);	      /* sigmoid(-8) * 256 = 0.086 -> 0 */
	ck_assert_int_eq(lut[255], 127);      /* 255.91 -> 256 - 128 = 128: saturated */
	check_monotonic(lut);
	/* the zero crossing follows the input zero point */
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_SIGMOID, 0.1f, -37, 1.0f / 256, -128, lut), 0);
	ck_assert_int_eq(lut[-37 + 128], 0);
	check_monotonic(lut);
	/* ties round away from zero, before the zero point is added: 0.5 / 1 -> 1, + (-3) */
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_SIGMOID, 0.5f, 10, 1.0f, -3, lut), 0);
	ck_assert_int_eq(lut[10 + 128], -2);
	/* a large input scale: a step function between 0 and 1 quanta */
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_SIGMOID, 100.0f, 0, 1.0f / 256, -128, lut), 0);
	ck_assert_int_eq(lut[127], -128);
	ck_assert_int_eq(lut[129], 127);
}
END_TEST

START_TEST(ops_act_lut_tanh_known)
{
	int8_t lut[256];

	ck_assert_int_eq(tpu_act_lut(TPU_ACT_TANH, 1.0f / 32, 0, 1.0f / 127, 0, lut), 0);
	ck_assert_int_eq(lut[128], 0);
	ck_assert_int_eq(lut[128 + 32], 97); /* tanh(1) * 127 = 96.72 */
	ck_assert_int_eq(lut[128 - 32], -97);
	ck_assert_int_eq(lut[255], 127); /* tanh(3.97) * 127 = 126.91 */
	ck_assert_int_eq(lut[0], -127);	 /* tanh(-4) * 127 = -126.92 */
	for (int v = 1; v < 128; v++)	 /* odd, with zero points 0 */
		ck_assert_int_eq(lut[128 + v], -lut[128 - v]);
	check_monotonic(lut);
	/* saturation: out scale so small that most entries clip */
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_TANH, 0.5f, 0, 1e-3f, 0, lut), 0);
	ck_assert_int_eq(lut[0], -128);
	ck_assert_int_eq(lut[255], 127);
	ck_assert_int_eq(lut[128], 0);
	ck_assert_int_eq(lut[129], 127); /* tanh(0.5) / 1e-3 = 462 */
	check_monotonic(lut);
}
END_TEST

/* ------------------------------------------------------------------ bad arguments */

static void expect_conv_reject(tpu_dev *dev, const struct tpu_conv2d_shape *s,
			       const struct tpu_gemm_params *p, const char *field)
{
	int8_t in[64] = {0}, w[64] = {0};
	int32_t out[64];

	ck_assert_int_eq(tpu_conv2d(dev, s, in, w, p, out), -EINVAL);
	ck_assert_msg(strstr(tpu_ops_last_error(dev), field) != NULL,
		      "message '%s' does not name '%s'", tpu_ops_last_error(dev), field);
}

START_TEST(ops_conv_rejects)
{
	tpu_dev *dev = open_dev("golden:n=4,mem=1M");
	const struct tpu_conv2d_shape ok = {.batch = 1,
					    .in_h = 2,
					    .in_w = 2,
					    .in_c = 1,
					    .out_c = 1,
					    .kernel_h = 1,
					    .kernel_w = 1,
					    .stride_h = 1,
					    .stride_w = 1};
	struct tpu_conv2d_shape s;
	struct tpu_gemm_params p;
	int8_t in[64] = {0}, cols[64];
	int32_t out[64];
	size_t *fields[9];
	static const char *const names[9] = {"batch",	 "in_h",     "in_w",	 "in_c",    "out_c",
					     "kernel_h", "kernel_w", "stride_h", "stride_w"};

	s = ok;
	fields[0] = &s.batch;
	fields[1] = &s.in_h;
	fields[2] = &s.in_w;
	fields[3] = &s.in_c;
	fields[4] = &s.out_c;
	fields[5] = &s.kernel_h;
	fields[6] = &s.kernel_w;
	fields[7] = &s.stride_h;
	fields[8] = &s.stride_w;
	for (int i = 0; i < 9; i++) {
		s = ok;
		*fields[i] = 0;
		expect_conv_reject(dev, &s, NULL, names[i]);
		ck_assert_int_eq(tpu_im2col(&s, in, 0, cols), -EINVAL);
		ck_assert_uint_eq(tpu_conv2d_out_h(&s), 0);
		ck_assert_uint_eq(tpu_conv2d_out_w(&s), 0);
	}
	s = ok;
	s.pad_top = 1;
	expect_conv_reject(dev, &s, NULL, "pad_top");
	s = ok;
	s.kernel_w = 3;
	s.pad_right = 3;
	expect_conv_reject(dev, &s, NULL, "pad_right");
	s = ok;
	s.kernel_h = 4; /* 2 + 1 + 0 < 4 */
	s.pad_top = 1;
	expect_conv_reject(dev, &s, NULL, "kernel_h");
	s = ok;
	s.kernel_h = 2;
	s.dilation_h = 2; /* the dilated kernel, 3 rows, does not fit 2 */
	expect_conv_reject(dev, &s, NULL, "kernel_h");
	s.pad_top = 1; /* 2 + 1 >= 3 */
	ck_assert_uint_eq(tpu_conv2d_out_h(&s), 1);
	s.dilation_w = SIZE_MAX;
	s.kernel_w = 3;
	expect_conv_reject(dev, &s, NULL, "dilation_w");
	s = ok;
	s.in_c = 4;
	s.out_c = 6;
	s.groups = 4; /* divides in_c, not out_c */
	expect_conv_reject(dev, &s, NULL, "groups");
	s.groups = 3;
	expect_conv_reject(dev, &s, NULL, "groups");
	s = ok;
	s.batch = SIZE_MAX / 2;
	expect_conv_reject(dev, &s, NULL, "batch");
	s = ok;
	s.in_w = SIZE_MAX - 1;
	s.kernel_w = 3;
	s.pad_left = 2;
	expect_conv_reject(dev, &s, NULL, "in_w");
	s = ok;
	s.kernel_h = s.kernel_w = 2;
	s.in_c = SIZE_MAX / 2;
	expect_conv_reject(dev, &s, NULL, "in_c");
	s = ok;
	s.out_c = SIZE_MAX / 2;
	expect_conv_reject(dev, &s, NULL, "out_c");
	/* parameters: ours, then tpu_gemm's message passed through */
	tpu_gemm_params_init(&p);
	p.in_zero_point = 128;
	expect_conv_reject(dev, &ok, &p, "in_zero_point");
	p.in_zero_point = 0;
	p.quant_channels = 3;
	expect_conv_reject(dev, &ok, &p, "quant_channels");
	/* NULLs */
	ck_assert_int_eq(tpu_conv2d(NULL, &ok, in, in, NULL, out), -EINVAL);
	ck_assert_int_eq(tpu_conv2d(dev, NULL, in, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "shape"));
	ck_assert_int_eq(tpu_conv2d(dev, &ok, NULL, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "in"));
	ck_assert_int_eq(tpu_conv2d(dev, &ok, in, NULL, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "w"));
	ck_assert_int_eq(tpu_conv2d(dev, &ok, in, in, NULL, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "out"));
	ck_assert_int_eq(tpu_im2col(NULL, in, 0, cols), -EINVAL);
	ck_assert_int_eq(tpu_im2col(&ok, NULL, 0, cols), -EINVAL);
	ck_assert_int_eq(tpu_im2col(&ok, in, 0, NULL), -EINVAL);
	ck_assert_uint_eq(tpu_conv2d_out_h(NULL), 0);
	ck_assert_uint_eq(tpu_conv2d_out_w(NULL), 0);
	ck_assert_str_eq(tpu_ops_last_error(NULL), "dev: NULL");
	/* fine again: the message is cleared */
	ck_assert_int_eq(tpu_conv2d(dev, &ok, in, in, NULL, out), 0);
	ck_assert_str_eq(tpu_ops_last_error(dev), "");
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(ops_dense_rejects)
{
	tpu_dev *dev = open_dev("golden:n=4,mem=1M");
	struct tpu_gemm_params p;
	int8_t in[16] = {0};
	int32_t out[16];
	int32_t mult = -1, shift = 0;

	ck_assert_int_eq(tpu_dense(NULL, 1, 1, 1, in, in, NULL, out), -EINVAL);
	ck_assert_int_eq(tpu_dense(dev, 0, 1, 1, in, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "batch"));
	ck_assert_int_eq(tpu_dense(dev, 1, 0, 1, in, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "in_features"));
	ck_assert_int_eq(tpu_dense(dev, 1, 1, 0, in, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "out_features"));
	ck_assert_int_eq(tpu_dense(dev, 1, 1, 1, NULL, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "in"));
	ck_assert_int_eq(tpu_dense(dev, 1, 1, 1, in, NULL, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "w"));
	ck_assert_int_eq(tpu_dense(dev, 1, 1, 1, in, in, NULL, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "out"));
	ck_assert_int_eq(tpu_dense(dev, SIZE_MAX / 2, 4, 1, in, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "batch"));
	ck_assert_int_eq(tpu_dense(dev, 1, SIZE_MAX / 2, 4, in, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "in_features"));
	ck_assert_int_eq(tpu_dense(dev, 4, 1, SIZE_MAX / 2, in, in, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "out_features"));
	tpu_gemm_params_init(&p);
	p.quant_channels = 1;
	p.multiplier = &mult;
	p.shift = &shift;
	ck_assert_int_eq(tpu_dense(dev, 2, 2, 2, in, in, &p, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "multiplier[0]"));
	mult = 1 << 30;
	ck_assert_int_eq(tpu_dense(dev, 2, 2, 2, in, in, &p, out), 0);
	ck_assert_str_eq(tpu_ops_last_error(dev), "");
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(ops_host_ops_reject)
{
	const struct tpu_pool2d_shape ok = {1, 4, 4, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0};
	struct tpu_pool2d_shape s;
	int8_t in[32] = {0}, out[32], lut[256];
	int32_t lo, hi;

	ck_assert_int_eq(tpu_maxpool2d(&ok, in, out), 0);
	ck_assert_int_eq(tpu_maxpool2d(NULL, in, out), -EINVAL);
	ck_assert_int_eq(tpu_maxpool2d(&ok, NULL, out), -EINVAL);
	ck_assert_int_eq(tpu_maxpool2d(&ok, in, NULL), -EINVAL);
	s = ok;
	s.pool_h = 0;
	ck_assert_int_eq(tpu_maxpool2d(&s, in, out), -EINVAL);
	s = ok;
	s.pool_w = 5;
	ck_assert_int_eq(tpu_maxpool2d(&s, in, out), -EINVAL);
	s = ok;
	s.stride_h = 0;
	ck_assert_int_eq(tpu_maxpool2d(&s, in, out), -EINVAL);
	s = ok;
	s.channels = 0;
	ck_assert_int_eq(tpu_maxpool2d(&s, in, out), -EINVAL);
	s = ok;
	s.batch = SIZE_MAX / 4;
	ck_assert_int_eq(tpu_maxpool2d(&s, in, out), -EINVAL);

	ck_assert_int_eq(tpu_act_clamp((enum tpu_activation)99, 0.1f, 0, &lo, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU, 0.0f, 0, &lo, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU, -1.0f, 0, &lo, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, NAN, 0, &lo, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU6, INFINITY, 0, &lo, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU, 0.1f, 128, &lo, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU, 0.1f, -129, &lo, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU, 0.1f, 0, NULL, &hi), -EINVAL);
	ck_assert_int_eq(tpu_act_clamp(TPU_ACT_RELU, 0.1f, 0, &lo, NULL), -EINVAL);

	ck_assert_int_eq(tpu_act_lut(TPU_ACT_RELU, 0.1f, 0, 0.1f, 0, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_NONE, 0.1f, 0, 0.1f, 0, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_SIGMOID, 0.0f, 0, 0.1f, 0, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_SIGMOID, 0.1f, 0, -0.1f, 0, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_TANH, NAN, 0, 0.1f, 0, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_TANH, 0.1f, 0, INFINITY, 0, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_TANH, 0.1f, 200, 0.1f, 0, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_TANH, 0.1f, 0, 0.1f, -200, lut), -EINVAL);
	ck_assert_int_eq(tpu_act_lut(TPU_ACT_TANH, 0.1f, 0, 0.1f, 0, NULL), -EINVAL);
}
END_TEST

TPU_TEST_SUITE(suite_ops)
static Suite *suite_ops(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("ops");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ops_random_golden_n4);
	tcase_add_test(tc, ops_random_golden_n8);
	tcase_add_test(tc, ops_sim_equals_golden);
	tcase_add_test(tc, ops_big_batch_is_split);
	tcase_add_test(tc, ops_im2col_known);
	tcase_add_test(tc, ops_maxpool_random);
	tcase_add_test(tc, ops_act_clamp_known);
	tcase_add_test(tc, ops_act_lut_sigmoid_known);
	tcase_add_test(tc, ops_act_lut_tanh_known);
	tcase_add_test(tc, ops_conv_rejects);
	tcase_add_test(tc, ops_dense_rejects);
	tcase_add_test(tc, ops_host_ops_reject);
	suite_add_tcase(s, tc);
	return s;
}
