/* Model inference (driver/model/model_run.c): random small models (CONV2D + RELU, MAXPOOL2D,
 * DENSE + SIGMOID, and others) on the golden device and on the Verilated one against a naive
 * reference written here (direct convolution loops, max over windows, then tpu_activate), sim
 * byte-identical to golden; batches split for a small DMA arena; the per-layer figures; input
 * quantization and argmax; bad arguments. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model_fixture.h"
#include "sim_fixture.h"
#include "tpu/model.h"
#include "tpu/numerics.h"

/* ------------------------------------------------------------------ reference */

struct ten {
	uint32_t h, w, c;
	int8_t *v;
};

static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)((uint64_t)v & 0xFFFFFFFFu);
}

/* Clamp bounds per ops.h's rule, written out here. */
static void ref_clamp(const struct tpu_layer *l, int32_t *qmin, int32_t *qmax)
{
	*qmin = -128;
	*qmax = 127;
	if (l->act == TPU_ACT_RELU || l->act == TPU_ACT_RELU6)
		*qmin = l->out.zero_point;
	if (l->act == TPU_ACT_RELU6) {
		double top = l->out.zero_point + round(6.0 / l->out.scale);
		*qmax = top > 127 ? 127 : (int32_t)top;
	}
}

static int8_t ref_act(const struct tpu_layer *l, uint32_t j, int64_t acc)
{
	int32_t qmin, qmax;
	ref_clamp(l, &qmin, &qmax);
	struct tpu_act_channel ch = {l->bias[j], l->multiplier[j], l->shift[j]};
	bool lut = l->act == TPU_ACT_SIGMOID || l->act == TPU_ACT_TANH;
	struct tpu_act_output o = {l->out.zero_point, qmin, qmax, lut ? l->lut : NULL,
				   (enum tpu_round)l->round};
	return tpu_activate(wrap32(acc), &ch, &o, NULL);
}

/* Weight j of a layer less its zero point (none, per tensor, or per output channel). */
static int32_t ref_w(const struct tpu_layer *l, size_t t, uint32_t j)
{
	int32_t zb = l->b_zp_count ? l->b_zero_point[l->b_zp_count == 1 ? 0 : j] : 0;
	return l->weights[t * l->out_c + j] - zb;
}

/* A pool's output size along one axis, counted window by window: floor, or with ceil_mode
 * also a last partial window, unless it starts in the end padding. */
static uint32_t ref_pool_out(uint32_t in, uint32_t k, uint32_t s, uint32_t lo, uint32_t hi,
			     uint32_t ceil_mode)
{
	uint32_t n = 0;
	while (n * s + k <= in + lo + hi ||
	       (ceil_mode && n * s + k < in + lo + hi + s && n * s < in + lo))
		n++;
	return n;
}

/* AVGPOOL2D: its arithmetic is tpu_avgpool2d's (checked against references of its own in
 * tests/test_ops_pool.c); here the model's plumbing: shape, quantization, clamp. */
static struct ten ref_avgpool(const struct tpu_layer *l, const struct tpu_quant *q_in,
			      const struct ten *x)
{
	struct ten y = {ref_pool_out(x->h, l->kernel_h, l->stride_h, l->pad_top, l->pad_bottom,
				     l->ceil_mode),
			ref_pool_out(x->w, l->kernel_w, l->stride_w, l->pad_left, l->pad_right,
				     l->ceil_mode),
			x->c, NULL};
	y.v = malloc((size_t)y.h * y.w * y.c);
	ck_assert_ptr_nonnull(y.v);
	struct tpu_pool2d_shape s = {.batch = 1,
				     .in_h = x->h,
				     .in_w = x->w,
				     .channels = x->c,
				     .pool_h = l->kernel_h,
				     .pool_w = l->kernel_w,
				     .stride_h = l->stride_h,
				     .stride_w = l->stride_w,
				     .pad_top = l->pad_top,
				     .pad_bottom = l->pad_bottom,
				     .pad_left = l->pad_left,
				     .pad_right = l->pad_right,
				     .ceil_mode = (int)l->ceil_mode};
	int32_t qmin, qmax;
	ref_clamp(l, &qmin, &qmax);
	struct tpu_avgpool2d_params p = {.mode = (enum tpu_avgpool_mode)l->avg_mode,
					 .flags = l->avg_flags,
					 .in_scale = q_in->scale,
					 .out_scale = l->out.scale,
					 .in_zero_point = q_in->zero_point,
					 .out_zero_point = l->out.zero_point,
					 .clamp_min = qmin,
					 .clamp_max = qmax};
	char err[256];
	ck_assert_msg(tpu_avgpool2d(&s, &p, x->v, y.v, err, sizeof(err)) == 0, "%s", err);
	return y;
}

/* Layer l on x; raw (non-NULL for a CONV2D/DENSE): its int32 sums with the bias instead of
 * the requantized int8 output. */
static struct ten ref_layer(const struct tpu_layer *l, const struct tpu_quant *q_in,
			    const struct ten *x, int32_t *raw)
{
	int32_t z_in = q_in->zero_point;
	if (l->type == TPU_LAYER_AVGPOOL2D)
		return ref_avgpool(l, q_in, x);
	struct ten y;
	if (l->type == TPU_LAYER_DENSE) {
		y.h = y.w = 1;
		y.c = l->out_c;
	}
	uint32_t dh = l->dilation_h ? l->dilation_h : 1, dw = l->dilation_w ? l->dilation_w : 1;
	uint32_t groups = l->groups ? l->groups : 1;
	if (l->type == TPU_LAYER_CONV2D) {
		y.h = (x->h + l->pad_top + l->pad_bottom - (l->kernel_h - 1) * dh - 1) / l->stride_h +
		      1;
		y.w = (x->w + l->pad_left + l->pad_right - (l->kernel_w - 1) * dw - 1) / l->stride_w +
		      1;
		y.c = l->out_c;
	} else if (l->type == TPU_LAYER_MAXPOOL2D) {
		y.h = ref_pool_out(x->h, l->kernel_h, l->stride_h, l->pad_top, l->pad_bottom,
				   l->ceil_mode);
		y.w = ref_pool_out(x->w, l->kernel_w, l->stride_w, l->pad_left, l->pad_right,
				   l->ceil_mode);
		y.c = x->c;
	}
	/* a group's input channels: cg of them from channel (j / (out_c / groups)) * cg */
	uint32_t cg = x->c / groups;
	y.v = malloc((size_t)y.h * y.w * y.c);
	ck_assert_ptr_nonnull(y.v);
	size_t k_in = (size_t)x->h * x->w * x->c;
	for (uint32_t oy = 0; oy < y.h; oy++)
		for (uint32_t ox = 0; ox < y.w; ox++)
			for (uint32_t j = 0; j < y.c; j++) {
				int8_t *dst = &y.v[((size_t)oy * y.w + ox) * y.c + j];
				if (l->type == TPU_LAYER_DENSE) {
					int64_t acc = 0;
					for (size_t i = 0; i < k_in; i++)
						acc += (int64_t)(x->v[i] - z_in) * ref_w(l, i, j);
					if (raw)
						raw[j] = wrap32(acc + l->bias[j]);
					else
						*dst = ref_act(l, j, acc);
					continue;
				}
				int64_t acc = 0;
				int best = -129;
				for (uint32_t ky = 0; ky < l->kernel_h; ky++)
					for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
						long iy = (long)(oy * l->stride_h + ky * dh) -
							  l->pad_top;
						long ix = (long)(ox * l->stride_w + kx * dw) -
							  l->pad_left;
						if (iy < 0 || ix < 0 || iy >= x->h || ix >= x->w)
							continue; /* padding: z_in - z_in = 0 */
						const int8_t *px =
						    &x->v[((size_t)iy * x->w + (size_t)ix) * x->c];
						if (l->type == TPU_LAYER_MAXPOOL2D) {
							best = px[j] > best ? px[j] : best;
							continue;
						}
						uint32_t c0 = j / (l->out_c / groups) * cg;
						for (uint32_t ci = 0; ci < cg; ci++) {
							size_t t =
							    ((size_t)ky * l->kernel_w + kx) * cg + ci;
							acc += (int64_t)(px[c0 + ci] - z_in) *
							       ref_w(l, t, j);
						}
					}
				if (l->type == TPU_LAYER_MAXPOOL2D)
					*dst = (int8_t)best;
				else if (raw)
					raw[((size_t)oy * y.w + ox) * y.c + j] = wrap32(acc + l->bias[j]);
				else
					*dst = ref_act(l, j, acc);
			}
	return y;
}

/* m's outputs on batch examples: int8 into out, or, for an INT32 model, int32 into out32. */
static void ref_run_any(const struct tpu_model *m, size_t batch, const int8_t *in, int8_t *out,
			int32_t *out32)
{
	size_t in_elems = (size_t)m->in_h * m->in_w * m->in_c;
	for (size_t b = 0; b < batch; b++) {
		struct ten x = {m->in_h, m->in_w, m->in_c, malloc(in_elems)};
		ck_assert_ptr_nonnull(x.v);
		memcpy(x.v, in + b * in_elems, in_elems);
		const struct tpu_quant *q = &m->in;
		for (uint32_t i = 0; i < m->n_layers; i++) {
			bool raw = out32 && i + 1 == m->n_layers;
			struct ten y = ref_layer(&m->layers[i], q, &x,
						 raw ? out32 + b * m->num_classes : NULL);
			free(x.v);
			x = y;
			q = &m->layers[i].out;
		}
		ck_assert_uint_eq((size_t)x.h * x.w * x.c, m->num_classes);
		if (out)
			memcpy(out + b * m->num_classes, x.v, m->num_classes);
		free(x.v);
	}
}

static void ref_run(const struct tpu_model *m, size_t batch, const int8_t *in, int8_t *out)
{
	ref_run_any(m, batch, in, out, NULL);
}

/* ------------------------------------------------------------------ helpers */

static int8_t *random_input(uint64_t *seed, const struct tpu_model *m, size_t batch)
{
	size_t n = batch * m->in_h * m->in_w * m->in_c;
	int8_t *in = malloc(n);
	ck_assert_ptr_nonnull(in);
	for (size_t i = 0; i < n; i++)
		in[i] = (int8_t)harness_range(seed, -128, 127);
	return in;
}

/* Run m on uri; returns the malloc'ed output and fills *st. */
static int8_t *run_on(const char *uri, const struct tpu_model *m, size_t batch, const int8_t *in,
		      struct tpu_model_stats *st)
{
	tpu_dev *dev;
	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	int8_t *out = malloc(batch * m->num_classes);
	ck_assert_ptr_nonnull(out);
	int rc = tpu_model_run(dev, m, batch, in, out, st);
	ck_assert_msg(rc == 0, "%s: tpu_model_run: %s (%s)", uri, tpu_strerror(rc),
		      tpu_ops_last_error(dev));
	ck_assert_int_eq(tpu_close(dev), 0);
	return out;
}

static void assert_same(const int8_t *got, const int8_t *want, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(got[i] == want[i], "%s: output %zu is %d, expected %d", what, i,
			      got[i], want[i]);
}

/* The output must not be constant: a model that saturates everything proves little. */
static void assert_varied(const int8_t *v, size_t n)
{
	size_t distinct = 0;
	bool seen[256] = {false};
	for (size_t i = 0; i < n; i++)
		if (!seen[v[i] + 128]) {
			seen[v[i] + 128] = true;
			distinct++;
		}
	ck_assert_msg(distinct >= 3, "only %zu distinct output values", distinct);
}

/* Layer figures: MACs by formula, counters only for device layers, totals the sums. */
static void check_stats(const struct tpu_model *m, size_t batch, const struct tpu_model_stats *st)
{
	ck_assert_uint_eq(st->n_layers, m->n_layers);
	struct tpu_layer_stats sum = {0};
	uint32_t h = m->in_h, w = m->in_w, c = m->in_c;
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct tpu_layer *l = &m->layers[i];
		const struct tpu_layer_stats *s = &st->layer[i];
		uint64_t macs = 0;
		uint32_t oh, ow, oc;
		tpu_model_layer_out_shape(m, i, &oh, &ow, &oc);
		if (l->type == TPU_LAYER_CONV2D)
			macs = (uint64_t)batch * oh * ow * oc * l->kernel_h * l->kernel_w * c;
		else if (l->type == TPU_LAYER_DENSE)
			macs = (uint64_t)batch * h * w * c * oc;
		ck_assert_uint_eq(s->macs, macs);
		if (l->type == TPU_LAYER_MAXPOOL2D) {
			ck_assert_uint_eq(s->cycles | s->mxu_busy_cycles | s->dma_read_bytes, 0);
		} else {
			ck_assert_uint_gt(s->cycles, 0);
			ck_assert_uint_gt(s->mxu_busy_cycles, 0);
			ck_assert_uint_le(s->mxu_busy_cycles, s->cycles);
			ck_assert_uint_gt(s->dma_read_bytes, 0);
			ck_assert_uint_gt(s->dma_write_bytes, 0);
		}
		ck_assert(s->wall_seconds >= 0);
		sum.cycles += s->cycles;
		sum.macs += s->macs;
		sum.dma_read_bytes += s->dma_read_bytes;
		h = oh;
		w = ow;
		c = oc;
	}
	ck_assert_uint_eq(st->total.cycles, sum.cycles);
	ck_assert_uint_eq(st->total.macs, sum.macs);
	ck_assert_uint_eq(st->total.dma_read_bytes, sum.dma_read_bytes);
}

static const struct mfx_spec spec_big[] = {
    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 8, TPU_ACT_RELU, 0, 0, 0, 0, 0},
    {TPU_LAYER_MAXPOOL2D, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {TPU_LAYER_CONV2D, 2, 2, 1, 1, 0, 1, 0, 1, 6, TPU_ACT_RELU6, 0, 0, 0, 0, 0},
    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 12, TPU_ACT_TANH, 0, 0, 0, 0, 0},
    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 10, TPU_ACT_NONE, 0, 0, 0, 0, 0},
};

/* ------------------------------------------------------------------ tests */

START_TEST(golden_matches_reference)
{
	uint64_t seed = harness_seed() ^ 0x3001;
	for (int k = 0; k < 4; k++) {
		struct tpu_model *m =
		    k < 2 ? mfx_small(&seed) : mfx_build(&seed, "big", 8, 8, 3, spec_big, 5);
		size_t batch = (size_t)harness_range(&seed, 1, 9);
		int8_t *in = random_input(&seed, m, batch);
		int8_t *want = malloc(batch * m->num_classes);
		ck_assert_ptr_nonnull(want);
		ref_run(m, batch, in, want);
		struct tpu_model_stats st;
		int8_t *got = run_on(k & 1 ? "golden:n=4" : "golden", m, batch, in, &st);
		assert_same(got, want, batch * m->num_classes, "golden");
		check_stats(m, batch, &st);
		free(got);
		free(want);
		free(in);
		tpu_model_free(m);
	}
}
END_TEST

START_TEST(sim_matches_golden_and_reference)
{
	if (!sim_have(8))
		return;
	uint64_t seed = harness_seed() ^ 0x3002;
	for (int k = 0; k < 2; k++) {
		struct tpu_model *m =
		    k == 0 ? mfx_small(&seed) : mfx_build(&seed, "big", 8, 8, 3, spec_big, 5);
		size_t batch = k == 0 ? 5 : 2;
		int8_t *in = random_input(&seed, m, batch);
		int8_t *want = malloc(batch * m->num_classes);
		ck_assert_ptr_nonnull(want);
		ref_run(m, batch, in, want);
		struct tpu_model_stats sg, ss;
		int8_t *gold = run_on("golden:n=8", m, batch, in, &sg);
		int8_t *sim = run_on("sim:n=8,latency=10", m, batch, in, &ss);
		assert_same(sim, gold, batch * m->num_classes, "sim vs golden");
		assert_same(sim, want, batch * m->num_classes, "sim vs reference");
		check_stats(m, batch, &ss);
		/* the same work: the same useful MACs on both devices */
		ck_assert_uint_eq(ss.total.macs, sg.total.macs);
		free(gold);
		free(sim);
		free(want);
		free(in);
		tpu_model_free(m);
	}
}
END_TEST

/* Layers in the SINGLE and FLOAT rounding modes (format 2.0) run with their own mode on a
 * device with FEATURES.ROUND (golden and sim, each against the reference), and are refused
 * with -ENOTSUP, nothing run, on one without. */
START_TEST(rounding_modes_per_layer)
{
	uint64_t seed = harness_seed() ^ 0x3003;
	static const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 4, TPU_ACT_RELU, 0, 0, 0, 0, 0},
	    {TPU_LAYER_MAXPOOL2D, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 12, TPU_ACT_NONE, 0, 0, 0, 0, 0},
	};
	struct tpu_model *m = mfx_build(&seed, "rounds", 6, 6, 2, spec, 3);
	m->layers[0].round = TPU_ROUND_SINGLE;
	m->layers[2].round = TPU_ROUND_FLOAT;
	mfx_requantize(m, 0);
	mfx_requantize(m, 2);
	size_t batch = 7;
	int8_t *in = random_input(&seed, m, batch);
	int8_t *want = malloc(batch * m->num_classes), *got = malloc(batch * m->num_classes);
	ck_assert(want && got);
	ref_run(m, batch, in, want);
	assert_varied(want, batch * m->num_classes);
	const char *uris[2] = {"golden", sim_have(8) ? "sim:n=8,latency=10" : NULL};
	for (int k = 0; k < 2 && uris[k]; k++) {
		tpu_dev *dev;
		struct tpu_info info;
		ck_assert_int_eq(tpu_open(uris[k], &dev), 0);
		ck_assert_int_eq(tpu_get_info(dev, &info), 0);
		int rc = tpu_model_run(dev, m, batch, in, got, NULL);
		if (info.features & TPU_FEATURES_ROUND_MASK) {
			ck_assert_msg(rc == 0, "%s: %s", uris[k], tpu_ops_last_error(dev));
			assert_same(got, want, batch * m->num_classes, uris[k]);
		} else {
			ck_assert_int_eq(rc, -ENOTSUP);
		}
		ck_assert_int_eq(tpu_close(dev), 0);
	}
	free(got);
	free(want);
	free(in);
	tpu_model_free(m);
}
END_TEST

/* Run m on batch random inputs on golden, sim:n=8 (when built) and extra (NULL: none) and
 * assert each output equals the reference, which must vary. */
static void assert_runs_match_reference(uint64_t *seed, const struct tpu_model *m, size_t batch,
					const char *extra)
{
	char err[256];
	ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
	int8_t *in = random_input(seed, m, batch);
	int8_t *want = malloc(batch * m->num_classes), *got = malloc(batch * m->num_classes);
	ck_assert(want && got);
	ref_run(m, batch, in, want);
	assert_varied(want, batch * m->num_classes);
	const char *uris[3] = {"golden", extra, sim_have(8) ? "sim:n=8,latency=10" : NULL};
	for (int k = 0; k < 3; k++) {
		tpu_dev *dev;
		if (!uris[k])
			continue;
		ck_assert_int_eq(tpu_open(uris[k], &dev), 0);
		ck_assert_msg(tpu_model_run(dev, m, batch, in, got, NULL) == 0, "%s: %s", uris[k],
			      tpu_ops_last_error(dev));
		assert_same(got, want, batch * m->num_classes, uris[k]);
		ck_assert_int_eq(tpu_close(dev), 0);
	}
	free(got);
	free(want);
	free(in);
}

/* Weight zero points (format 2.0): per tensor on a CONV2D, per channel on a DENSE, in FLOAT
 * and DOUBLE rounding; golden and sim against the reference. */
START_TEST(weight_zero_points)
{
	uint64_t seed = harness_seed() ^ 0x3004;
	static const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 4, TPU_ACT_RELU, 0, 0, 0, 0, 0},
	    {TPU_LAYER_MAXPOOL2D, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 12, TPU_ACT_NONE, 0, 0, 0, 0, 0},
	};
	struct tpu_model *m = mfx_build(&seed, "bzp", 6, 6, 2, spec, 3);
	m->layers[2].round = TPU_ROUND_FLOAT;
	mfx_requantize(m, 2);
	struct tpu_layer *c = &m->layers[0], *d = &m->layers[2];
	c->b_zp_count = 1;
	c->b_zero_point = malloc(sizeof(int32_t));
	d->b_zp_count = d->out_c;
	d->b_zero_point = malloc(d->out_c * sizeof(int32_t));
	ck_assert(c->b_zero_point && d->b_zero_point);
	c->b_zero_point[0] = -5;
	for (uint32_t j = 0; j < d->out_c; j++)
		d->b_zero_point[j] = (int32_t)(j * 23 % 256) - 128;
	assert_runs_match_reference(&seed, m, 9, NULL);
	size_t batch = 9;
	int8_t *in = random_input(&seed, m, batch);
	int8_t *want = malloc(batch * m->num_classes), *got = malloc(batch * m->num_classes);
	ck_assert(want && got);
	ref_run(m, batch, in, want);
	/* the zero points matter: without them the outputs differ */
	uint32_t keep = d->b_zp_count;
	d->b_zp_count = 0;
	int32_t *zp = d->b_zero_point;
	d->b_zero_point = NULL;
	tpu_dev *dev;
	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	ck_assert_int_eq(tpu_model_run(dev, m, batch, in, got, NULL), 0);
	ck_assert(memcmp(got, want, batch * m->num_classes));
	ck_assert_int_eq(tpu_close(dev), 0);
	d->b_zp_count = keep;
	d->b_zero_point = zp;
	free(got);
	free(want);
	free(in);
	tpu_model_free(m);
}
END_TEST

/* Grouped, depthwise (with a channel multiplier) and dilated convolutions (format 2.0), with
 * weight zero points on the grouped one; golden and sim against the reference. */
START_TEST(grouped_and_dilated_convolutions)
{
	uint64_t seed = harness_seed() ^ 0x3005;
	static const struct mfx_spec spec[] = {
	    /* depthwise, channel multiplier 2: 4 -> 8 channels */
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 8, TPU_ACT_RELU, 0, 4, 0, 0, 0},
	    /* dilation 2, pads below the dilated extent 5 */
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 2, 3, 4, 1, 6, TPU_ACT_NONE, 2, 0, 0, 0, 0},
	    /* 3 groups, stride 2, dilation 2 */
	    {TPU_LAYER_CONV2D, 2, 2, 2, 2, 1, 0, 0, 1, 9, TPU_ACT_NONE, 2, 3, 0, 0, 0},
	    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 5, TPU_ACT_NONE, 0, 0, 0, 0, 0},
	};
	struct tpu_model *m = mfx_build(&seed, "groups", 9, 8, 4, spec, 4);
	m->layers[1].round = TPU_ROUND_FLOAT;
	mfx_requantize(m, 1);
	struct tpu_layer *g = &m->layers[2];
	g->b_zp_count = g->out_c;
	g->b_zero_point = malloc(g->out_c * sizeof(int32_t));
	ck_assert_ptr_nonnull(g->b_zero_point);
	for (uint32_t j = 0; j < g->out_c; j++)
		g->b_zero_point[j] = (int32_t)(j * 29 % 41) - 20;
	/* also on a 4 x 4 array, where the groups are packed otherwise */
	assert_runs_match_reference(&seed, m, 5, "golden:n=4");
	tpu_model_free(m);
}
END_TEST

/* Pools with padding and ceil_mode, and AVGPOOL2D in both modes (format 2.0): golden and sim
 * against the reference. */
START_TEST(pools_with_padding_and_average)
{
	uint64_t seed = harness_seed() ^ 0x3006;
	static const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 6, TPU_ACT_NONE, 0, 0, 0, 0, 0},
	    /* max 3x3/2, pads 1, 0, 2, 1, ceil: 9 x 8 -> 5 x 5 */
	    {TPU_LAYER_MAXPOOL2D, 3, 3, 2, 2, 1, 0, 2, 1, 0, 0, 0, 0, 1, 0, 0},
	    /* TFLite average 2x2/1 with pads 1 and a fused ReLU6 */
	    {TPU_LAYER_AVGPOOL2D, 2, 2, 1, 1, 1, 1, 0, 1, 0, TPU_ACT_RELU6, 0, 0, 0,
	     TPU_AVGPOOL_TFLITE, 0},
	    /* ONNX Runtime average 3x2/2, ceil, count_include_pad, its own output quantization */
	    {TPU_LAYER_AVGPOOL2D, 3, 2, 2, 2, 1, 2, 1, 0, 0, 0, 0, 0, 1, TPU_AVGPOOL_ONNXRT,
	     TPU_AVGPOOL_COUNT_PAD},
	    {TPU_LAYER_CONV2D, 1, 1, 1, 1, 0, 0, 0, 0, 4, TPU_ACT_NONE, 0, 0, 0, 0, 0},
	    /* ONNX Runtime's global average pool (the window is the whole input) */
	    {TPU_LAYER_AVGPOOL2D, 4, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, TPU_AVGPOOL_ONNXRT, 0},
	};
	struct tpu_model *m = mfx_build(&seed, "pools", 9, 8, 3, spec, 6);
	uint32_t h, w, c;
	tpu_model_layer_out_shape(m, 1, &h, &w, &c);
	ck_assert(h == 5 && w == 5 && c == 6);
	tpu_model_layer_out_shape(m, 4, &h, &w, &c);
	ck_assert(h == 4 && w == 3 && c == 4);
	assert_runs_match_reference(&seed, m, 6, NULL);
	tpu_model_free(m);
}
END_TEST

START_TEST(big_batch_small_arena)
{
	/* 300 examples through a 64 KiB DMA arena: the first conv's im2col alone is
	 * 300 x 64 x 27 bytes */
	uint64_t seed = harness_seed() ^ 0x3003;
	struct tpu_model *m = mfx_build(&seed, "big", 8, 8, 3, spec_big, 5);
	size_t batch = 300;
	int8_t *in = random_input(&seed, m, batch);
	int8_t *want = malloc(batch * m->num_classes);
	ck_assert_ptr_nonnull(want);
	ref_run(m, batch, in, want);
	struct tpu_model_stats st;
	int8_t *got = run_on("golden:n=8,mem=64k", m, batch, in, &st);
	assert_same(got, want, batch * m->num_classes, "golden mem=64k");
	assert_varied(got, batch * m->num_classes);
	check_stats(m, batch, &st);
	free(got);
	free(want);
	free(in);
	tpu_model_free(m);
}
END_TEST

START_TEST(run_rejects_bad_arguments)
{
	uint64_t seed = harness_seed() ^ 0x3004;
	struct tpu_model *m = mfx_small(&seed);
	tpu_dev *dev;
	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	int8_t in[72] = {0}, out[8];
	ck_assert_int_eq(tpu_model_run(NULL, m, 1, in, out, NULL), -EINVAL);
	ck_assert_int_eq(tpu_model_run(dev, NULL, 1, in, out, NULL), -EINVAL);
	ck_assert_int_eq(tpu_model_run(dev, m, 0, in, out, NULL), -EINVAL);
	ck_assert_int_eq(tpu_model_run(dev, m, 1, NULL, out, NULL), -EINVAL);
	ck_assert_int_eq(tpu_model_run(dev, m, 1, in, NULL, NULL), -EINVAL);
	m->layers[2].multiplier[0] ^= 1; /* no longer matches its scales */
	ck_assert_int_eq(tpu_model_run(dev, m, 1, in, out, NULL), -EINVAL);
	m->layers[2].multiplier[0] ^= 1;
	ck_assert_int_eq(tpu_model_run(dev, m, 1, in, out, NULL), 0); /* stats may be NULL */
	ck_assert_int_eq(tpu_close(dev), 0);
	tpu_model_free(m);
}
END_TEST

/* An INT32 model (format 2.2, ONNX MatMulInteger / ConvInteger): its last layer's int32 sums
 * (with bias and weight zero points) equal the reference's on golden, sim and sim:n=8, with a
 * DENSE and with a CONV2D last; tpu_model_run and tpu_model_run_i32 refuse the other's models. */
START_TEST(int32_output_layer)
{
	uint64_t seed = harness_seed() ^ 0x3032;
	static const struct mfx_spec dense_last[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 4, TPU_ACT_RELU, 0, 0, 0, 0, 0},
	    {TPU_LAYER_MAXPOOL2D, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 19, TPU_ACT_RELU, 0, 0, 0, 0, 0},
	};
	static const struct mfx_spec conv_last[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 5, TPU_ACT_NONE, 0, 0, 0, 0, 0},
	    {TPU_LAYER_CONV2D, 2, 3, 2, 1, 1, 0, 1, 1, 18, TPU_ACT_NONE, 0, 0, 0, 0, 0},
	};
	for (int k = 0; k < 2; k++) {
		struct tpu_model *m = k ? mfx_build(&seed, "i32c", 7, 6, 3, conv_last, 2)
					: mfx_build(&seed, "i32d", 6, 6, 2, dense_last, 3);
		mfx_int32_output(&seed, m);
		char err[256];
		ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
		size_t batch = 5, n = batch * m->num_classes;
		int8_t *in = random_input(&seed, m, batch);
		int32_t *want = malloc(n * sizeof(int32_t)), *got = malloc(n * sizeof(int32_t));
		ck_assert(want && got);
		ref_run_any(m, batch, in, NULL, want);
		const char *uris[3] = {"golden", sim_have(16) ? "sim" : NULL,
				       sim_have(8) ? "sim:n=8" : NULL};
		for (int u = 0; u < 3; u++) {
			tpu_dev *dev;
			if (!uris[u])
				continue;
			ck_assert_int_eq(tpu_open(uris[u], &dev), 0);
			memset(got, 0, n * sizeof(int32_t));
			ck_assert_msg(tpu_model_run_i32(dev, m, batch, in, got, NULL) == 0,
				      "%s: %s", uris[u], tpu_ops_last_error(dev));
			for (size_t i = 0; i < n; i++)
				ck_assert_msg(got[i] == want[i], "%s: output %zu is %d, expected %d",
					      uris[u], i, got[i], want[i]);
			/* the int8 entry point refuses the model, and names the other */
			int8_t small[8];
			ck_assert_int_eq(tpu_model_run(dev, m, 1, in, small, NULL), -EINVAL);
			ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "tpu_model_run_i32"));
			ck_assert_int_eq(tpu_close(dev), 0);
		}
		/* the values are not all alike (the bias and zero points matter) */
		size_t same = 0;
		for (size_t i = 1; i < n; i++)
			same += want[i] == want[0];
		ck_assert_uint_lt(same, n / 2);
		free(got);
		free(want);
		free(in);
		tpu_model_free(m);
	}
	struct tpu_model *m = mfx_small(&seed);
	tpu_dev *dev;
	int8_t in[72] = {0};
	int32_t out[8];
	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	ck_assert_int_eq(tpu_model_run_i32(dev, m, 1, in, out, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_ops_last_error(dev), "tpu_model_run"));
	ck_assert_int_eq(tpu_model_run_i32(dev, m, 1, in, NULL, NULL), -EINVAL);
	ck_assert_int_eq(tpu_close(dev), 0);
	tpu_model_free(m);
}
END_TEST

START_TEST(quantize_input_and_argmax)
{
	struct tpu_model m;
	memset(&m, 0, sizeof(m));
	m.in_range = 16.0f;
	m.in.scale = 1.0f / 127.0f;
	m.in.zero_point = -5;
	/* raw / 16 / (1/127) rounded half away from zero, + zero point, saturated */
	const float raw[] = {0.0f, 16.0f, 4.0f, 1.0f, -16.0f, 100.0f, -100.0f, NAN, 0.07f};
	const int8_t want[] = {-5, 122, 27, 3, -128, 127, -128, -5, -4};
	int8_t q[9];
	tpu_model_quantize_input(&m, raw, 9, q);
	for (int i = 0; i < 9; i++)
		ck_assert_msg(q[i] == want[i], "raw %g: %d, expected %d", (double)raw[i], q[i],
			      want[i]);
	/* exact halves round away from zero: 0.5 and -0.5 steps */
	m.in.scale = 1.0f;
	m.in_range = 1.0f;
	m.in.zero_point = 0;
	const float halves[] = {0.5f, -0.5f, 1.5f, -2.5f};
	const int8_t hw[] = {1, -1, 2, -3};
	tpu_model_quantize_input(&m, halves, 4, q);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(q[i], hw[i]);

	const int8_t v[] = {-3, 7, 2, 7, -128};
	ck_assert_uint_eq(tpu_argmax_i8(v, 5), 1);
	ck_assert_uint_eq(tpu_argmax_i8(v, 1), 0);
	ck_assert_uint_eq(tpu_argmax_i8(v + 4, 1), 0);
	const int8_t lo[] = {-128, -128, -127};
	ck_assert_uint_eq(tpu_argmax_i8(lo, 3), 2);
}
END_TEST

static Suite *model_run_suite(void)
{
	Suite *s = suite_create("model_run");
	TCase *tc = tcase_create("model_run");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, golden_matches_reference);
	tcase_add_test(tc, sim_matches_golden_and_reference);
	tcase_add_test(tc, rounding_modes_per_layer);
	tcase_add_test(tc, weight_zero_points);
	tcase_add_test(tc, grouped_and_dilated_convolutions);
	tcase_add_test(tc, pools_with_padding_and_average);
	tcase_add_test(tc, big_batch_small_arena);
	tcase_add_test(tc, run_rejects_bad_arguments);
	tcase_add_test(tc, int32_output_layer);
	tcase_add_test(tc, quantize_input_and_argmax);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(model_run_suite)
