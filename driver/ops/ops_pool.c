/* Max-pool over NHWC int8, on the host (the device has no pooling unit). */
#include <errno.h>
#include <stdint.h>

#include "ops_priv.h"

int tpu_pool2d_out(const struct tpu_pool2d_shape *s, size_t *oh, size_t *ow)
{
	size_t t;

	if (!s || !oh || !ow || !s->batch || !s->in_h || !s->in_w || !s->channels || !s->stride_h || !s->stride_w)
		return -EINVAL;
	if (s->pool_h < 1 || s->pool_h > s->in_h || s->pool_w < 1 || s->pool_w > s->in_w)
		return -EINVAL;
	if (!tpu_ops_mul(s->batch, s->in_h, &t) || !tpu_ops_mul(t, s->in_w, &t) ||
	    !tpu_ops_mul(t, s->channels, &t))
		return -EINVAL;
	*oh = (s->in_h - s->pool_h) / s->stride_h + 1;
	*ow = (s->in_w - s->pool_w) / s->stride_w + 1;
	return 0;
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
			for (size_t ox = 0; ox < ow; ox++, out += c) {
				const int8_t *win =
				    img + (oy * s->stride_h * s->in_w + ox * s->stride_w) * c;
				for (size_t ch = 0; ch < c; ch++)
					out[ch] = INT8_MIN;
				for (size_t py = 0; py < s->pool_h; py++)
					for (size_t px = 0; px < s->pool_w; px++) {
						const int8_t *v = win + (py * s->in_w + px) * c;
						for (size_t ch = 0; ch < c; ch++)
							if (v[ch] > out[ch])
								out[ch] = v[ch];
					}
			}
		}
	}
	return 0;
}
