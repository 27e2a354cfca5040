/* Hand-built models for the model tests (model_fixture.h). Shapes are computed here with the
 * plain formulas, independently of driver/model/model_check.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model_fixture.h"
#include "tpu/numerics.h"

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	ck_assert_ptr_nonnull(p);
	return p;
}

static double urand(uint64_t *seed, double lo, double hi)
{
	return lo + (hi - lo) * (double)harness_range(seed, 0, 1000000) / 1e6;
}

void mfx_requantize(struct tpu_model *m, uint32_t i)
{
	const struct tpu_quant *q_in = i ? &m->layers[i - 1].out : &m->in;
	struct tpu_layer *l = &m->layers[i];
	for (uint32_t j = 0; j < l->out_c; j++) {
		int shift;
		if (l->round == TPU_ROUND_FLOAT) {
			float p = q_in->scale * l->w_scale[j];
			float r = p / l->out.scale;
			ck_assert_int_eq(tpu_float_multiplier(r, &l->multiplier[j], &shift), 0);
		} else {
			double r =
			    (double)q_in->scale * (double)l->w_scale[j] / (double)l->out.scale;
			ck_assert_int_eq(tpu_quantize_multiplier(r, &l->multiplier[j], &shift),
					 0);
		}
		l->shift[j] = shift;
	}
}

/* Weights, bias, scales and requantization of a CONV2D/DENSE layer with depth k. */
static void fill_params(uint64_t *seed, struct tpu_model *m, uint32_t i, uint32_t k)
{
	struct tpu_layer *l = &m->layers[i];
	const struct tpu_quant *q_in = i ? &m->layers[i - 1].out : &m->in;
	size_t nw = (size_t)k * l->out_c;
	l->weights = xcalloc(nw, 1);
	l->bias = xcalloc(l->out_c, sizeof(int32_t));
	l->w_scale = xcalloc(l->out_c, sizeof(float));
	l->multiplier = xcalloc(l->out_c, sizeof(int32_t));
	l->shift = xcalloc(l->out_c, sizeof(int32_t));
	for (size_t t = 0; t < nw; t++)
		l->weights[t] = (int8_t)harness_range(seed, -127, 127);
	double ws = 0;
	for (uint32_t j = 0; j < l->out_c; j++) {
		l->w_scale[j] = (float)urand(seed, 0.004, 0.02);
		l->bias[j] = (int32_t)harness_range(seed, -3000, 3000);
		ws += l->w_scale[j];
	}
	ws /= l->out_c;
	/* about 40 output steps per standard deviation of a random sum of k products */
	l->out.scale = (float)((double)q_in->scale * ws * sqrt((double)k) * 73.0 * 73.0 / 40.0);
	l->out.zero_point = (int32_t)harness_range(seed, -20, 20);
	mfx_requantize(m, i);
	if (l->act == TPU_ACT_SIGMOID || l->act == TPU_ACT_TANH)
		ck_assert_int_eq(tpu_act_lut((enum tpu_activation)l->act, l->out.scale,
					     l->out.zero_point, l->out.scale, l->out.zero_point,
					     l->lut),
				 0);
}

/* A pool's output size along one axis: floor, or ceil without a window that starts in the end
 * padding. */
static uint32_t pool_out(uint32_t in, uint32_t k, uint32_t s, uint32_t lo, uint32_t hi,
			 uint32_t ceil_mode)
{
	uint32_t span = in + lo + hi - k;
	uint32_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
	return ceil_mode && (out - 1) * s >= in + lo ? out - 1 : out;
}

struct tpu_model *mfx_build(uint64_t *seed, const char *name, uint32_t in_h, uint32_t in_w,
			    uint32_t in_c, const struct mfx_spec *spec, uint32_t n_layers)
{
	struct tpu_model *m = xcalloc(1, sizeof(*m));
	strncpy(m->name, name, TPU_MODEL_NAME_MAX - 1);
	m->in_h = in_h;
	m->in_w = in_w;
	m->in_c = in_c;
	m->in.scale = (float)urand(seed, 0.02, 0.08);
	m->in.zero_point = (int32_t)harness_range(seed, -20, 20);
	m->in_range = 16.0f;
	m->float_accuracy = 0.96875f;
	m->int8_accuracy = 0.9375f;
	m->n_layers = n_layers;
	uint32_t h = in_h, w = in_w, c = in_c;
	for (uint32_t i = 0; i < n_layers; i++) {
		const struct mfx_spec *s = &spec[i];
		struct tpu_layer *l = &m->layers[i];
		l->type = s->type;
		l->kernel_h = s->kernel_h;
		l->kernel_w = s->kernel_w;
		l->stride_h = s->stride_h;
		l->stride_w = s->stride_w;
		l->pad_top = s->pad_top;
		l->pad_bottom = s->pad_bottom;
		l->pad_left = s->pad_left;
		l->pad_right = s->pad_right;
		l->out_c = s->out_c;
		l->act = s->act;
		switch (s->type) {
		case TPU_LAYER_CONV2D: {
			uint32_t d = s->dilation ? s->dilation : 1, gr = s->groups ? s->groups : 1;
			uint32_t k = s->kernel_h * s->kernel_w * (c / gr);
			l->dilation_h = l->dilation_w = s->dilation;
			l->groups = s->groups;
			h = (h + s->pad_top + s->pad_bottom - (s->kernel_h - 1) * d - 1) / s->stride_h +
			    1;
			w = (w + s->pad_left + s->pad_right - (s->kernel_w - 1) * d - 1) / s->stride_w +
			    1;
			c = s->out_c;
			fill_params(seed, m, i, k);
			break;
		}
		case TPU_LAYER_MAXPOOL2D:
		case TPU_LAYER_AVGPOOL2D:
			h = pool_out(h, s->kernel_h, s->stride_h, s->pad_top, s->pad_bottom,
				     s->ceil_mode);
			w = pool_out(w, s->kernel_w, s->stride_w, s->pad_left, s->pad_right,
				     s->ceil_mode);
			l->ceil_mode = s->ceil_mode;
			l->avg_mode = s->avg_mode;
			l->avg_flags = s->avg_flags;
			l->out = i ? m->layers[i - 1].out : m->in;
			if (s->type == TPU_LAYER_AVGPOOL2D && s->avg_mode == TPU_AVGPOOL_ONNXRT) {
				l->out.scale *= (float)urand(seed, 0.5, 2.0);
				l->out.zero_point = (int32_t)harness_range(seed, -20, 20);
			}
			break;
		case TPU_LAYER_DENSE: {
			uint32_t k = h * w * c;
			h = w = 1;
			c = s->out_c;
			fill_params(seed, m, i, k);
			break;
		}
		default:
			ck_abort_msg("mfx_build: bad layer type %u", s->type);
		}
	}
	m->num_classes = h * w * c;
	return m;
}

struct tpu_model *mfx_small(uint64_t *seed)
{
	static const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 3, TPU_ACT_RELU, 0, 0, 0, 0, 0},
	    {TPU_LAYER_MAXPOOL2D, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 4, TPU_ACT_SIGMOID, 0, 0, 0, 0, 0},
	};
	return mfx_build(seed, "small", 6, 6, 2, spec, 3);
}

struct tpu_model *mfx_small_v2(uint64_t *seed)
{
	struct tpu_model *m = mfx_small(seed);
	m->layers[0].round = TPU_ROUND_SINGLE;
	m->layers[2].round = TPU_ROUND_FLOAT;
	mfx_requantize(m, 2);
	m->in_type = TPU_IO_UINT8;
	m->out_type = TPU_IO_UINT8;
	m->in_round = TPU_INPUT_ROUND_EVEN;
	/* weight zero points: per tensor on the CONV2D, per channel on the DENSE */
	struct tpu_layer *c = &m->layers[0], *d = &m->layers[2];
	c->b_zp_count = 1;
	c->b_zero_point = malloc(sizeof(int32_t));
	d->b_zp_count = d->out_c;
	d->b_zero_point = malloc(d->out_c * sizeof(int32_t));
	ck_assert(c->b_zero_point && d->b_zero_point);
	c->b_zero_point[0] = 7;
	for (uint32_t j = 0; j < d->out_c; j++)
		d->b_zero_point[j] = (int32_t)j * 50 - 128;
	return m;
}

/* Array sizes of layer i, from the shapes of the layers before it. */
static void layer_sizes(const struct tpu_model *m, uint32_t i, size_t *nw, size_t *nc)
{
	uint32_t h = m->in_h, w = m->in_w, c = m->in_c;
	for (uint32_t k = 0; k < i; k++) {
		const struct tpu_layer *l = &m->layers[k];
		if (l->type == TPU_LAYER_DENSE) {
			h = w = 1;
			c = l->out_c;
			continue;
		}
		uint32_t d = l->dilation_h ? l->dilation_h : 1, dw = l->dilation_w ? l->dilation_w : 1;
		if (l->type == TPU_LAYER_CONV2D) {
			h = (h + l->pad_top + l->pad_bottom - (l->kernel_h - 1) * d - 1) /
				l->stride_h +
			    1;
			w = (w + l->pad_left + l->pad_right - (l->kernel_w - 1) * dw - 1) /
				l->stride_w +
			    1;
			c = l->out_c;
		} else {
			h = pool_out(h, l->kernel_h, l->stride_h, l->pad_top, l->pad_bottom,
				     l->ceil_mode);
			w = pool_out(w, l->kernel_w, l->stride_w, l->pad_left, l->pad_right,
				     l->ceil_mode);
		}
	}
	const struct tpu_layer *l = &m->layers[i];
	uint32_t gr = l->groups ? l->groups : 1;
	*nc = l->type == TPU_LAYER_MAXPOOL2D || l->type == TPU_LAYER_AVGPOOL2D ? 0 : l->out_c;
	*nw = l->type == TPU_LAYER_CONV2D  ? (size_t)l->kernel_h * l->kernel_w * (c / gr) * l->out_c
	      : l->type == TPU_LAYER_DENSE ? (size_t)h * w * c * l->out_c
					   : 0;
}

static void assert_same_bits(const void *a, const void *b, size_t len, uint32_t i, const char *what)
{
	if (!len)
		return;
	ck_assert_msg(a && b, "layer %u: %s: NULL", i, what);
	ck_assert_msg(!memcmp(a, b, len), "layer %u: %s differ", i, what);
}

void mfx_assert_equal(const struct tpu_model *a, const struct tpu_model *b)
{
	ck_assert_str_eq(a->name, b->name);
	ck_assert_uint_eq(a->in_h, b->in_h);
	ck_assert_uint_eq(a->in_w, b->in_w);
	ck_assert_uint_eq(a->in_c, b->in_c);
	ck_assert_msg(!memcmp(&a->in, &b->in, sizeof(a->in)), "in quantization differs");
	ck_assert_msg(!memcmp(&a->in_range, &b->in_range, 4), "in_range differs");
	ck_assert_uint_eq(a->num_classes, b->num_classes);
	ck_assert_msg(!memcmp(&a->float_accuracy, &b->float_accuracy, 4), "float_accuracy");
	ck_assert_msg(!memcmp(&a->int8_accuracy, &b->int8_accuracy, 4), "int8_accuracy");
	ck_assert_uint_eq(a->n_layers, b->n_layers);
	ck_assert_uint_eq(a->in_type, b->in_type);
	ck_assert_uint_eq(a->out_type, b->out_type);
	ck_assert_uint_eq(a->in_round, b->in_round);
	ck_assert_uint_eq(a->io_layout, b->io_layout);
	for (uint32_t i = 0; i < a->n_layers; i++) {
		const struct tpu_layer *x = &a->layers[i], *y = &b->layers[i];
		const uint32_t fx[] = {x->type,	     x->kernel_h, x->kernel_w,	 x->stride_h,
				       x->stride_w,  x->pad_top,  x->pad_bottom, x->pad_left,
				       x->pad_right, x->out_c,	  x->act,	 x->dilation_h,
				       x->dilation_w, x->groups,  x->ceil_mode,	 x->avg_mode,
				       x->avg_flags};
		const uint32_t fy[] = {y->type,	     y->kernel_h, y->kernel_w,	 y->stride_h,
				       y->stride_w,  y->pad_top,  y->pad_bottom, y->pad_left,
				       y->pad_right, y->out_c,	  y->act,	 y->dilation_h,
				       y->dilation_w, y->groups,  y->ceil_mode,	 y->avg_mode,
				       y->avg_flags};
		ck_assert_msg(!memcmp(fx, fy, sizeof(fx)), "layer %u: shape fields differ", i);
		ck_assert_uint_eq(x->round, y->round);
		ck_assert_uint_eq(x->b_zp_count, y->b_zp_count);
		assert_same_bits(x->b_zero_point, y->b_zero_point, 4 * (size_t)x->b_zp_count, i,
				 "b_zero_point");
		ck_assert_msg(!memcmp(&x->out, &y->out, sizeof(x->out)), "layer %u: out", i);
		size_t nw, nc;
		layer_sizes(a, i, &nw, &nc);
		assert_same_bits(x->weights, y->weights, nw, i, "weights");
		assert_same_bits(x->bias, y->bias, 4 * nc, i, "bias");
		assert_same_bits(x->w_scale, y->w_scale, 4 * nc, i, "w_scale");
		assert_same_bits(x->multiplier, y->multiplier, 4 * nc, i, "multiplier");
		assert_same_bits(x->shift, y->shift, 4 * nc, i, "shift");
		assert_same_bits(x->lut, y->lut, 256, i, "lut");
		if (!nc)
			ck_assert_msg(!y->weights && !y->bias && !y->w_scale && !y->multiplier &&
					  !y->shift,
				      "layer %u: a pool with arrays", i);
	}
}

/* Make the last layer of m (a CONV2D or DENSE) the int32 output layer (out_type INT32), with a
 * bias and per-channel weight zero points that the sums must include. */
void mfx_int32_output(uint64_t *seed, struct tpu_model *m)
{
	struct tpu_layer *l = &m->layers[m->n_layers - 1];
	m->out_type = TPU_IO_INT32;
	l->act = TPU_ACT_NONE;
	l->round = TPU_ROUND_DOUBLE;
	l->out = (struct tpu_quant){1.0f, 0};
	memset(l->lut, 0, sizeof(l->lut));
	free(l->b_zero_point);
	l->b_zp_count = l->out_c;
	l->b_zero_point = malloc(l->out_c * sizeof(int32_t));
	ck_assert_ptr_nonnull(l->b_zero_point);
	for (uint32_t j = 0; j < l->out_c; j++) {
		l->multiplier[j] = l->shift[j] = 0;
		l->b_zero_point[j] = (int32_t)harness_range(seed, -128, 127);
		l->bias[j] = (int32_t)harness_range(seed, -100000, 100000);
	}
}
