/* Pooling on the host (driver/ops/ops_pool.c): max pooling with padding and ceil_mode, and
 * average pooling in TFLite's and ONNX Runtime's arithmetic, against references written here
 * from the runtimes' definitions (the window and output-size rules enumerated tap by tap, the
 * rounding written out), hand-computed cases, and the argument checks. Bit-exactness against
 * ONNX Runtime itself is make test-onnx's (tests/onnx/ort_check.py). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tpu/ops.h"

/* Windows of one axis, enumerated: window o exists when its start o*s lies within the padded
 * input far enough for a whole window (floor), or for any part of one (ceil) that does not
 * start in the end padding. */
static size_t ref_count(size_t in, size_t k, size_t s, size_t lo, size_t hi, int ceil_mode)
{
	size_t n = 0;
	for (size_t o = 0;; o++) {
		size_t start = o * s, padded = in + lo + hi; /* padded coordinates */
		bool whole = start + k <= padded;
		/* ceil: a window reaching past the padded input exists when it would be one
		 * more step of the floor count, unless it starts in the end padding */
		bool part = start + k < padded + s && start < in + lo;
		if (!(ceil_mode ? part : whole))
			return n;
		n++;
	}
}

struct ref_win {
	size_t n;
	size_t idx[64]; /* offsets (y * in_w + x) of the in-bounds taps */
};

static void ref_window(const struct tpu_pool2d_shape *s, size_t oy, size_t ox, struct ref_win *w)
{
	w->n = 0;
	for (size_t ky = 0; ky < s->pool_h; ky++)
		for (size_t kx = 0; kx < s->pool_w; kx++) {
			long y = (long)(oy * s->stride_h + ky) - (long)s->pad_top;
			long x = (long)(ox * s->stride_w + kx) - (long)s->pad_left;
			if (y < 0 || x < 0 || y >= (long)s->in_h || x >= (long)s->in_w)
				continue;
			ck_assert_uint_lt(w->n, 64);
			w->idx[w->n++] = (size_t)y * s->in_w + (size_t)x;
		}
	ck_assert_uint_gt(w->n, 0); /* the rules never leave a window empty */
}

enum ref_kind { REF_MAX, REF_TFLITE, REF_ORT };

/* The reference of every kind over a whole tensor; p for the averages. */
static void ref_pool(enum ref_kind kind, const struct tpu_pool2d_shape *s,
		     const struct tpu_avgpool2d_params *p, const int8_t *in, int8_t *out)
{
	size_t oh = ref_count(s->in_h, s->pool_h, s->stride_h, s->pad_top, s->pad_bottom,
			      s->ceil_mode);
	size_t ow = ref_count(s->in_w, s->pool_w, s->stride_w, s->pad_left, s->pad_right,
			      s->ceil_mode);
	int off = p && (p->flags & TPU_AVGPOOL_UINT8) ? 128 : 0;
	for (size_t b = 0; b < s->batch; b++)
		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++) {
				struct ref_win w;
				ref_window(s, oy, ox, &w);
				for (size_t c = 0; c < s->channels; c++) {
					const int8_t *img = in + b * s->in_h * s->in_w * s->channels;
					long v;
					if (kind == REF_MAX) {
						v = -128;
						for (size_t t = 0; t < w.n; t++)
							if (img[w.idx[t] * s->channels + c] > v)
								v = img[w.idx[t] * s->channels + c];
						*out++ = (int8_t)v;
						continue;
					}
					long acc = 0;
					float sum = 0.0f;
					for (size_t t = 0; t < w.n; t++) {
						int q = img[w.idx[t] * s->channels + c] + off;
						acc += q;
						sum += (float)(q - (p->in_zero_point + off)) *
						       p->in_scale;
					}
					long n = (long)w.n;
					bool global = s->pool_h == s->in_h && s->pool_w == s->in_w &&
						      !s->pad_top && !s->pad_bottom && !s->pad_left &&
						      !s->pad_right;
					if (kind == REF_TFLITE) {
						/* half away from zero: floor((2|acc| + n) / 2n) */
						long m = (2 * labs(acc) + n) / (2 * n);
						v = acc < 0 ? -m : m;
					} else if (global) {
						float den = p->out_scale * (float)n;
						float sc = p->in_scale / den;
						float f = (float)(acc - (long)(p->in_zero_point + off) * n) *
							  sc;
						v = lrintf(f) + p->out_zero_point + off;
					} else {
						float cnt = (p->flags & TPU_AVGPOOL_COUNT_PAD)
								? (float)(s->pool_h * s->pool_w)
								: (float)n;
						float y = sum / cnt;
						float t = y / p->out_scale;
						t += (float)(p->out_zero_point + off);
						v = lrintf(t);
					}
					long lo = p->clamp_min + off, hi = p->clamp_max + off;
					v = v < lo ? lo : v > hi ? hi : v;
					*out++ = (int8_t)(v - off);
				}
			}
}

static size_t rsz(uint64_t *seed, size_t lo, size_t hi)
{
	return (size_t)harness_range(seed, (int64_t)lo, (int64_t)hi);
}

/* A random valid shape: windows up to 4, pads below them, ceil_mode either. */
static void random_shape(uint64_t *seed, struct tpu_pool2d_shape *s)
{
	memset(s, 0, sizeof(*s));
	s->batch = rsz(seed, 1, 3);
	s->channels = rsz(seed, 1, 5);
	s->pool_h = rsz(seed, 1, 4);
	s->pool_w = rsz(seed, 1, 4);
	s->pad_top = rsz(seed, 0, s->pool_h - 1);
	s->pad_bottom = rsz(seed, 0, s->pool_h - 1);
	s->pad_left = rsz(seed, 0, s->pool_w - 1);
	s->pad_right = rsz(seed, 0, s->pool_w - 1);
	size_t min_h = s->pool_h > s->pad_top + s->pad_bottom ? s->pool_h - s->pad_top -
								    s->pad_bottom
							      : 1;
	size_t min_w = s->pool_w > s->pad_left + s->pad_right ? s->pool_w - s->pad_left -
								    s->pad_right
							      : 1;
	s->in_h = rsz(seed, min_h, 9);
	s->in_w = rsz(seed, min_w, 9);
	s->stride_h = rsz(seed, 1, 3);
	s->stride_w = rsz(seed, 1, 3);
	s->ceil_mode = (int)rsz(seed, 0, 1);
	if (rsz(seed, 0, 7) == 0) { /* now and then a window of the whole input */
		memset(&s->pad_top, 0, 4 * sizeof(size_t));
		s->pool_h = s->in_h < 4 ? s->in_h : 4;
		s->pool_w = s->in_w < 4 ? s->in_w : 4;
		s->in_h = s->pool_h;
		s->in_w = s->pool_w;
	}
}

static int8_t *random_i8(uint64_t *seed, size_t n)
{
	int8_t *v = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (int8_t)harness_range(seed, -128, 127);
	return v;
}

START_TEST(pool_random_against_reference)
{
	uint64_t seed = harness_seed() ^ 0x9101;
	size_t global = 0, ceil_dropped = 0;
	for (int i = 0; i < 400; i++) {
		struct tpu_pool2d_shape s;
		random_shape(&seed, &s);
		size_t oh, ow;
		ck_assert_int_eq(tpu_pool2d_out(&s, &oh, &ow), 0);
		ck_assert_uint_eq(oh, ref_count(s.in_h, s.pool_h, s.stride_h, s.pad_top,
						s.pad_bottom, s.ceil_mode));
		ck_assert_uint_eq(ow, ref_count(s.in_w, s.pool_w, s.stride_w, s.pad_left,
						s.pad_right, s.ceil_mode));
		size_t span = s.in_h + s.pad_top + s.pad_bottom - s.pool_h;
		ceil_dropped += s.ceil_mode && oh == (span + s.stride_h - 1) / s.stride_h;
		size_t in_len = s.batch * s.in_h * s.in_w * s.channels;
		size_t out_len = s.batch * oh * ow * s.channels;
		int8_t *in = random_i8(&seed, in_len), *got = malloc(out_len + 1),
		       *want = malloc(out_len);
		ck_assert(got && want);
		got[out_len] = 0x5a;
		ref_pool(REF_MAX, &s, NULL, in, want);
		ck_assert_int_eq(tpu_maxpool2d(&s, in, got), 0);
		ck_assert_msg(!memcmp(got, want, out_len), "maxpool %d differs", i);
		struct tpu_avgpool2d_params p = {
		    .mode = (enum tpu_avgpool_mode)rsz(&seed, 0, 1),
		    .in_scale = (float)rsz(&seed, 1, 1000) / 4096.0f,
		    .out_scale = (float)rsz(&seed, 1, 1000) / 4096.0f,
		    .in_zero_point = (int32_t)harness_range(&seed, -128, 127),
		    .out_zero_point = (int32_t)harness_range(&seed, -128, 127),
		    .clamp_min = -128,
		    .clamp_max = 127,
		};
		p.flags = (unsigned)rsz(&seed, 0, 3) &
			  (p.mode == TPU_AVGPOOL_ONNXRT ? 3u : TPU_AVGPOOL_UINT8);
		if (rsz(&seed, 0, 3) == 0) {
			p.clamp_min = (int32_t)harness_range(&seed, -128, 0);
			p.clamp_max = (int32_t)harness_range(&seed, p.clamp_min, 127);
		}
		global += p.mode == TPU_AVGPOOL_ONNXRT && s.pool_h == s.in_h && s.pool_w == s.in_w &&
			  !s.pad_top && !s.pad_left && !s.pad_bottom && !s.pad_right;
		char err[256];
		ref_pool(p.mode == TPU_AVGPOOL_TFLITE ? REF_TFLITE : REF_ORT, &s, &p, in, want);
		ck_assert_msg(tpu_avgpool2d(&s, &p, in, got, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(!memcmp(got, want, out_len), "avgpool %d (mode %d, flags %u) differs",
			      i, (int)p.mode, p.flags);
		ck_assert_int_eq(got[out_len], 0x5a); /* nothing written past the output */
		free(in);
		free(got);
		free(want);
	}
	ck_assert_uint_gt(global, 0);
	ck_assert_uint_gt(ceil_dropped, 0);
}
END_TEST

/* Worked by hand. */
START_TEST(pool_known_values)
{
	/* 1 x 3 x 3, window 2, stride 2, ceil_mode: out 2 x 2, the last row and column windows
	 * hold the edge only */
	const int8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, -9};
	struct tpu_pool2d_shape s = {.batch = 1, .in_h = 3, .in_w = 3, .channels = 1, .pool_h = 2,
				     .pool_w = 2, .stride_h = 2, .stride_w = 2, .ceil_mode = 1};
	int8_t out[4];
	ck_assert_int_eq(tpu_maxpool2d(&s, in, out), 0);
	const int8_t max_want[4] = {5, 6, 8, -9};
	ck_assert(!memcmp(out, max_want, 4));
	/* TFLite: (1+2+4+5)/4 = 3; (3+6)/2 = 4.5 -> 5; (7+8)/2 = 7.5 -> 8; -9 */
	struct tpu_avgpool2d_params p = {.mode = TPU_AVGPOOL_TFLITE, .clamp_min = -128,
					 .clamp_max = 127};
	char err[256];
	ck_assert_msg(tpu_avgpool2d(&s, &p, in, out, err, sizeof(err)) == 0, "%s", err);
	const int8_t tfl_want[4] = {3, 5, 8, -9};
	ck_assert(!memcmp(out, tfl_want, 4));
	/* -2.5 rounds to -3, away from zero; a fused ReLU clamps at 0 */
	const int8_t neg[2] = {-2, -3};
	struct tpu_pool2d_shape s2 = {.batch = 1, .in_h = 1, .in_w = 2, .channels = 1,
				      .pool_h = 1, .pool_w = 2, .stride_h = 1, .stride_w = 1};
	ck_assert_int_eq(tpu_avgpool2d(&s2, &p, neg, out, err, sizeof(err)), 0);
	ck_assert_int_eq(out[0], -3);
	p.clamp_min = 0;
	ck_assert_int_eq(tpu_avgpool2d(&s2, &p, neg, out, err, sizeof(err)), 0);
	ck_assert_int_eq(out[0], 0);
	/* uint8 in TFLite: 125 and 126 (int8 form -3, -2) average 125.5 -> 126, not 125 */
	p.clamp_min = -128;
	p.flags = TPU_AVGPOOL_UINT8;
	ck_assert_int_eq(tpu_avgpool2d(&s2, &p, neg, out, err, sizeof(err)), 0);
	ck_assert_int_eq(out[0], -2);
	/* ONNX Runtime, scale 0.5 in and out, zero point 0: (1 + 2 + 4 + 5) / 4 = 3 ->
	 * 1.5 / 0.5 = 3; the edge column with count_include_pad: (3 + 6) * 0.5 / 4 = 1.125 ->
	 * 2.25 -> 2, without: 4.5 -> 4 (half to even) */
	p = (struct tpu_avgpool2d_params){.mode = TPU_AVGPOOL_ONNXRT, .in_scale = 0.5f,
					  .out_scale = 0.5f, .clamp_min = -128, .clamp_max = 127};
	ck_assert_int_eq(tpu_avgpool2d(&s, &p, in, out, err, sizeof(err)), 0);
	const int8_t ort_want[4] = {3, 4, 8, -9};
	ck_assert_msg(!memcmp(out, ort_want, 4), "%d %d %d %d", out[0], out[1], out[2], out[3]);
	p.flags = TPU_AVGPOOL_COUNT_PAD;
	ck_assert_int_eq(tpu_avgpool2d(&s, &p, in, out, err, sizeof(err)), 0);
	const int8_t ortc_want[4] = {3, 2, 4, -2};
	ck_assert_msg(!memcmp(out, ortc_want, 4), "%d %d %d %d", out[0], out[1], out[2], out[3]);
	/* the global path: all 9 values, sum 27, zero point 1: (27 - 9) x 0.5 / (0.25 x 9) = 4,
	 * plus the output zero point 3 */
	struct tpu_pool2d_shape g = {.batch = 1, .in_h = 3, .in_w = 3, .channels = 1, .pool_h = 3,
				     .pool_w = 3, .stride_h = 1, .stride_w = 1};
	p = (struct tpu_avgpool2d_params){.mode = TPU_AVGPOOL_ONNXRT, .in_scale = 0.5f,
					  .out_scale = 0.25f, .in_zero_point = 1,
					  .out_zero_point = 3, .clamp_min = -128, .clamp_max = 127};
	const int8_t nine[9] = {1, 2, 3, 4, 5, 6, 0, 3, 3};
	ck_assert_int_eq(tpu_avgpool2d(&g, &p, nine, out, err, sizeof(err)), 0);
	ck_assert_int_eq(out[0], 7);
}
END_TEST

static void expect_avg_err(const struct tpu_pool2d_shape *s, const struct tpu_avgpool2d_params *p,
			   const char *want)
{
	int8_t in[64] = {0}, out[64];
	char err[256];
	ck_assert_int_eq(tpu_avgpool2d(s, p, in, out, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, want), "message '%s' lacks '%s'", err, want);
}

START_TEST(pool_bad_arguments)
{
	struct tpu_pool2d_shape s = {.batch = 1, .in_h = 4, .in_w = 4, .channels = 2, .pool_h = 2,
				     .pool_w = 2, .stride_h = 2, .stride_w = 2};
	struct tpu_avgpool2d_params p = {.mode = TPU_AVGPOOL_ONNXRT, .in_scale = 1.0f,
					 .out_scale = 1.0f, .clamp_min = -128, .clamp_max = 127};
	int8_t in[32] = {0}, out[32];
	size_t oh, ow;
	char err[256];
	ck_assert_int_eq(tpu_avgpool2d(&s, &p, in, out, err, sizeof(err)), 0);
	struct tpu_pool2d_shape t = s;
	t.pad_top = 2;
	ck_assert_int_eq(tpu_pool2d_out(&t, &oh, &ow), -EINVAL);
	ck_assert_int_eq(tpu_maxpool2d(&t, in, out), -EINVAL);
	expect_avg_err(&t, &p, "avgpool2d: shape: window 2 x 2, stride 2 x 2, pads 2, 0, 0, 0");
	t = s;
	t.ceil_mode = 2;
	ck_assert_int_eq(tpu_pool2d_out(&t, &oh, &ow), -EINVAL);
	t = s;
	t.pool_w = 6;
	t.pad_left = t.pad_right = 1; /* 6 > 4 + 1 + 1 is false: fits exactly */
	ck_assert_int_eq(tpu_pool2d_out(&t, &oh, &ow), 0);
	ck_assert_uint_eq(ow, 1);
	t.pad_right = 0;
	ck_assert_int_eq(tpu_pool2d_out(&t, &oh, &ow), -EINVAL);
	struct tpu_avgpool2d_params q = p;
	q.mode = (enum tpu_avgpool_mode)2;
	expect_avg_err(&s, &q, "avgpool2d: mode: 2 (0 TFLITE, 1 ONNXRT)");
	q = p;
	q.mode = TPU_AVGPOOL_TFLITE;
	q.flags = TPU_AVGPOOL_COUNT_PAD;
	expect_avg_err(&s, &q, "avgpool2d: flags: 0x1 (the mode knows 0x2)");
	q = p;
	q.out_scale = NAN;
	expect_avg_err(&s, &q, "out_scale nan (each must be finite and > 0)");
	q = p;
	q.in_zero_point = 128;
	expect_avg_err(&s, &q, "in_zero_point 128, out_zero_point 0 (each must be -128..127)");
	q = p;
	q.clamp_min = 5;
	q.clamp_max = 4;
	expect_avg_err(&s, &q, "avgpool2d: clamp 5..4");
	expect_avg_err(NULL, &p, "avgpool2d: shape is NULL");
	expect_avg_err(&s, NULL, "avgpool2d: params is NULL");
	ck_assert_int_eq(tpu_avgpool2d(&s, &p, NULL, out, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "avgpool2d: in is NULL");
}
END_TEST

static Suite *ops_pool_suite(void)
{
	Suite *s = suite_create("ops_pool");
	TCase *tc = tcase_create("ops_pool");
	tcase_add_test(tc, pool_random_against_reference);
	tcase_add_test(tc, pool_known_values);
	tcase_add_test(tc, pool_bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

TPU_TEST_SUITE(ops_pool_suite)
