/* Max-pool forward and backward on the host in fp32: the forward records each window's argmax,
 * the backward routes each output's gradient there. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "tpu/train.h"

/* The training pools have no padding and no ceil_mode. */
static bool unpadded(const struct tpu_pool2d_shape *s)
{
	return s && !s->pad_top && !s->pad_bottom && !s->pad_left && !s->pad_right &&
	       !s->ceil_mode;
}

int tpu_train_maxpool_forward(const struct tpu_pool2d_shape *s, const float *x, float *y,
			      size_t *argmax)
{
	size_t oh, ow, c, i = 0;

	if (!x || !y || !argmax || !unpadded(s) || tpu_pool2d_out(s, &oh, &ow))
		return -EINVAL;
	c = s->channels;
	for (size_t b = 0; b < s->batch; b++) {
		size_t img = b * s->in_h * s->in_w * c;

		for (size_t oy = 0; oy < oh; oy++)
			for (size_t ox = 0; ox < ow; ox++)
				for (size_t ch = 0; ch < c; ch++, i++) {
					size_t y0 = oy * s->stride_h, x0 = ox * s->stride_w;
					size_t best = img + (y0 * s->in_w + x0) * c + ch;

					for (size_t py = 0; py < s->pool_h; py++)
						for (size_t px = 0; px < s->pool_w; px++) {
							size_t o = img + ((y0 + py) * s->in_w + x0 +
									  px) * c + ch;

							if (x[o] > x[best] ||
							    (isnan(x[best]) && !isnan(x[o])))
								best = o;
						}
					y[i] = x[best];
					argmax[i] = best;
				}
	}
	return 0;
}

int tpu_train_maxpool_backward(const struct tpu_pool2d_shape *s, const size_t *argmax,
			       const float *dy, float *dx)
{
	size_t oh, ow, in_len, out_len;

	if (!argmax || !dy || !dx || !unpadded(s) || tpu_pool2d_out(s, &oh, &ow))
		return -EINVAL;
	in_len = s->batch * s->in_h * s->in_w * s->channels;
	out_len = s->batch * oh * ow * s->channels;
	memset(dx, 0, in_len * sizeof(*dx));
	for (size_t i = 0; i < out_len; i++) {
		if (argmax[i] >= in_len)
			return -EINVAL;
		dx[argmax[i]] += dy[i];
	}
	return 0;
}
