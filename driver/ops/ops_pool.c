/* Max and average pooling over NHWC int8, on the host (the device has no pooling unit).
 *
 * Windows: output (oy, ox) covers input rows oy * stride_h - pad_top .. + pool_h - 1 clipped to
 * the input (likewise columns); padded taps are never read. Average pooling reproduces two
 * runtimes' arithmetic exactly (include/tpu/ops.h, docs/ops.md "Pooling"):
 *  - TFLite's int8/uint8 reference kernel (tensorflow/lite/kernels/internal/reference/
 *    integer_ops/pooling.h, AveragePool): the integer sum of the in-bounds taps divided by their
 *    count, rounded half away from zero, then the activation clamp.
 *  - ONNX Runtime's QLinearAveragePool (onnxruntime/contrib_ops/cpu/quantization/
 *    qlinear_pool.cc): every value dequantized in fp32 (x_scale * (x - x_zero_point)), summed in
 *    fp32 rows first, divided by the tap count (in-bounds taps, or pool_h * pool_w with
 *    count_include_pad), then nearbyintf(y / y_scale + y_zero_point) in fp32 and saturated; the
 *    zero point is the runtime's own (uint8 ones differ from their int8 form before rounding).
 *    When the window is the whole input and there is no padding, ONNX Runtime takes its global
 *    average pool instead (qlinear_pool.cc falls back to qlinear_global_average_pool.cc, MLAS
 *    core/mlas/lib/qlgavgpool.cpp): the int32 sum less x_zero_point * taps, times the fp32 scale
 *    x_scale / (y_scale * taps), rounded half to even, plus y_zero_point, saturated. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ops_priv.h"

/* Output size along one axis; 0 when the window does not fit. */
static size_t pool_axis(size_t in, size_t k, size_t s, size_t lo, size_t hi, int ceil_mode)
{
	if (k < 1 || s < 1 || lo >= k || hi >= k || in + lo + hi < k)
		return 0;
	size_t span = in + lo + hi - k;
	size_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
	/* ONNX's rule: a last window that would start in the end padding is dropped */
	if (ceil_mode && (out - 1) * s >= in + lo)
		out--;
	return out;
}

int tpu_pool2d_out(const struct tpu_pool2d_shape *s, size_t *oh, size_t *ow)
{
	size_t t;

	if (!s || !oh || !ow || !s->batch || !s->in_h || !s->in_w || !s->channels || !s->stride_h ||
	    !s->stride_w || (s->ceil_mode != 0 && s->ceil_mode != 1))
		return -EINVAL;
	/* bounds that keep every sum below far from overflow */
	if (s->in_h > UINT32_MAX || s->in_w > UINT32_MAX || s->pool_h > UINT32_MAX ||
	    s->pool_w > UINT32_MAX || s->stride_h > UINT32_MAX || s->stride_w > UINT32_MAX)
		return -EINVAL;
	if (!tpu_ops_mul(s->batch, s->in_h, &t) || !tpu_ops_mul(t, s->in_w, &t) ||
	    !tpu_ops_mul(t, s->channels, &t))
		return -EINVAL;
	size_t h = pool_axis(s->in_h, s->pool_h, s->stride_h, s->pad_top, s->pad_bottom,
			     s->ceil_mode);
	size_t w = pool_axis(s->in_w, s->pool_w, s->stride_w, s->pad_left, s->pad_right,
			     s->ceil_mode);
	if (!h || !w || !tpu_ops_mul(t / s->in_h / s->in_w, h, &t) || !tpu_ops_mul(t, w, &t))
		return -EINVAL;
	*oh = h;
	*ow = w;
	return 0;
}

/* The in-bounds rows [*y0, *y1) of window o along an axis. */
static void window(size_t o, size_t stride, size_t pad, size_t k, size_t in, size_t *y0,
		   size_t *y1)
{
	size_t start = o * stride; /* in padded coordinates */
	*y0 = start > pad ? start - pad : 0;
	*y1 = start + k - pad < in ? start + k - pad : in;
}

int tpu_maxpool2d(const struct tpu_pool2d_shape *s, const int8_t *in, int8_t *out)
{
	size_t oh, ow, c;

	if (!in || !out || tpu_pool2d_out(s, &oh, &ow))
		return -EINVAL;
	c = s->channels;
	for (size_t b = 0; b < s->batch; b++) {
		const int8_t *img = in + b * s->in_h * s->in_w * c;
		for (size_t oy = 0; oy < oh; oy++) {
			size_t y0, y1;
			window(oy, s->stride_h, s->pad_top, s->pool_h, s->in_h, &y0, &y1);
			for (size_t ox = 0; ox < ow; ox++, out += c) {
				size_t x0, x1;
				window(ox, s->stride_w, s->pad_left, s->pool_w, s->in_w, &x0, &x1);
				for (size_t ch = 0; ch < c; ch++)
					out[ch] = INT8_MIN;
				for (size_t y = y0; y < y1; y++)
					for (size_t x = x0; x < x1; x++) {
						const int8_t *v = img + (y * s->in_w + x) * c;
						for (size_t ch = 0; ch < c; ch++)
							if (v[ch] > out[ch])
								out[ch] = v[ch];
					}
			}
		}
	}
	return 0;
}

static int avg_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int avg_fail(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int check_avg(const struct tpu_pool2d_shape *s, const struct tpu_avgpool2d_params *p,
		     size_t *oh, size_t *ow, char *err, size_t errlen)
{
	if (!s || !p)
		return avg_fail(err, errlen, "avgpool2d: %s is NULL", s ? "params" : "shape");
	if (tpu_pool2d_out(s, oh, ow))
		return avg_fail(err, errlen,
				"avgpool2d: shape: window %zu x %zu, stride %zu x %zu, pads %zu, "
				"%zu, %zu, %zu (each below the window), ceil_mode %d does not fit "
				"the %zu x %zu x %zu input of batch %zu",
				s->pool_h, s->pool_w, s->stride_h, s->stride_w, s->pad_top,
				s->pad_bottom, s->pad_left, s->pad_right, s->ceil_mode, s->in_h,
				s->in_w, s->channels, s->batch);
	if (p->mode != TPU_AVGPOOL_TFLITE && p->mode != TPU_AVGPOOL_ONNXRT)
		return avg_fail(err, errlen, "avgpool2d: mode: %d (0 TFLITE, 1 ONNXRT)",
				(int)p->mode);
	unsigned known = p->mode == TPU_AVGPOOL_ONNXRT ? TPU_AVGPOOL_COUNT_PAD | TPU_AVGPOOL_UINT8
						       : TPU_AVGPOOL_UINT8;
	if (p->flags & ~known)
		return avg_fail(err, errlen, "avgpool2d: flags: 0x%x (the mode knows 0x%x)",
				p->flags, known);
	if (p->clamp_min < -128 || p->clamp_max > 127 || p->clamp_min > p->clamp_max)
		return avg_fail(err, errlen,
				"avgpool2d: clamp %d..%d (must be within -128..127, min <= max)",
				(int)p->clamp_min, (int)p->clamp_max);
	if (p->mode == TPU_AVGPOOL_TFLITE)
		return 0;
	if (!isfinite(p->in_scale) || p->in_scale <= 0.0f || !isfinite(p->out_scale) ||
	    p->out_scale <= 0.0f)
		return avg_fail(err, errlen,
				"avgpool2d: in_scale %g, out_scale %g (each must be finite and > 0)",
				(double)p->in_scale, (double)p->out_scale);
	if (p->in_zero_point < -128 || p->in_zero_point > 127 || p->out_zero_point < -128 ||
	    p->out_zero_point > 127)
		return avg_fail(err, errlen,
				"avgpool2d: in_zero_point %d, out_zero_point %d (each must be "
				"-128..127)",
				(int)p->in_zero_point, (int)p->out_zero_point);
	return 0;
}

/* TFLite: the sum of the in-bounds taps over their count, rounded half away from zero, in the
 * runtime's type (off 128 for uint8). */
static int64_t avg_tflite(int64_t acc, int64_t count)
{
	return acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
}

/* ONNX Runtime: nearbyintf(y / y_scale + y_zero_point) in fp32, cast to int32 (an x86 float
 * outside int32 converts to INT32_MIN, as ONNX Runtime's static_cast does there). */
static int32_t ort_quantize(float y, float y_scale, int32_t zp)
{
	float t = y / y_scale;
	t = t + (float)zp;
	float r = nearbyintf(t);
	return r >= -2147483648.0f && r < 2147483648.0f ? (int32_t)r : INT32_MIN;
}

static int32_t clamp32(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

int tpu_avgpool2d(const struct tpu_pool2d_shape *s, const struct tpu_avgpool2d_params *p,
		  const int8_t *in, int8_t *out, char *err, size_t errlen)
{
	size_t oh, ow;
	if (err && errlen)
		err[0] = '\0';
	int rc = check_avg(s, p, &oh, &ow, err, errlen);
	if (rc)
		return rc;
	if (!in || !out)
		return avg_fail(err, errlen, "avgpool2d: %s is NULL", in ? "out" : "in");
	size_t c = s->channels;
	/* the runtime's type: uint8 values are the int8 form + 128 */
	int32_t off = p->flags & TPU_AVGPOOL_UINT8 ? 128 : 0;
	int32_t lo = p->clamp_min + off, hi = p->clamp_max + off;
	int32_t zin = p->in_zero_point + off, zout = p->out_zero_point + off;
	bool ort = p->mode == TPU_AVGPOOL_ONNXRT;
	bool global = ort && s->pool_h == s->in_h && s->pool_w == s->in_w && !s->pad_top &&
		      !s->pad_bottom && !s->pad_left && !s->pad_right;
	/* fp32 dequantized values, as ONNX Runtime's table: x_scale * (x - x_zero_point) */
	float deq[256];
	for (int v = -128; v < 128; v++)
		deq[v + 128] = p->in_scale * (float)(v - p->in_zero_point);
	/* the global path's fp32 scale: x_scale / (y_scale * taps) */
	float gscale = ort ? p->in_scale / (p->out_scale * (float)(s->in_h * s->in_w)) : 0.0f;
	for (size_t b = 0; b < s->batch; b++) {
		const int8_t *img = in + b * s->in_h * s->in_w * c;
		for (size_t oy = 0; oy < oh; oy++) {
			size_t y0, y1;
			window(oy, s->stride_h, s->pad_top, s->pool_h, s->in_h, &y0, &y1);
			for (size_t ox = 0; ox < ow; ox++, out += c) {
				size_t x0, x1;
				window(ox, s->stride_w, s->pad_left, s->pool_w, s->in_w, &x0, &x1);
				int64_t taps = (int64_t)((y1 - y0) * (x1 - x0));
				for (size_t ch = 0; ch < c; ch++) {
					int64_t acc = 0;
					float sum = 0.0f;
					for (size_t y = y0; y < y1; y++)
						for (size_t x = x0; x < x1; x++) {
							int8_t v = img[(y * s->in_w + x) * c + ch];
							acc += v + off;
							sum += deq[v + 128];
						}
					int64_t q;
					if (global) {
						float f = (float)(acc - zin * taps) * gscale;
						q = (int64_t)nearbyintf(
						    fminf(fmaxf(f, (float)(-128 + off - zout)),
							  (float)(127 + off - zout))) +
						    zout;
					} else if (ort) {
						float n = p->flags & TPU_AVGPOOL_COUNT_PAD
							      ? (float)(s->pool_h * s->pool_w)
							      : (float)taps;
						q = ort_quantize(sum / n, p->out_scale, zout);
					} else {
						q = avg_tflite(acc, taps);
					}
					out[ch] = (int8_t)(clamp32(q, lo, hi) - off);
				}
			}
		}
	}
	return 0;
}
