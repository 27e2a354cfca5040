/* The elementwise training ops on the host: ReLU and softmax cross-entropy. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "tpu/train.h"

void tpu_train_relu_forward(float *y, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!(y[i] > 0.0f))
			y[i] = 0.0f;
}

void tpu_train_relu_backward(const float *y, float *dy, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!(y[i] > 0.0f))
			dy[i] = 0.0f;
}

int tpu_train_softmax_xent(const float *logits, const uint8_t *labels, size_t batch,
			   size_t classes, float *loss, float *dlogits, char *err, size_t errlen)
{
	double sum = 0.0;

	if (!logits || !labels || !loss || !batch || !classes)
		return -EINVAL;
	for (size_t i = 0; i < batch; i++) {
		const float *z = logits + i * classes;
		double mx = z[0], s = 0.0;

		if (labels[i] >= classes) {
			if (err && errlen)
				snprintf(err, errlen, "label of row %zu: %u is not below %zu classes",
					 i, labels[i], classes);
			return -EINVAL;
		}
		for (size_t j = 0; j < classes; j++) {
			if (!isfinite(z[j])) {
				if (err && errlen)
					snprintf(err, errlen, "logit %zu of row %zu is %g", j, i,
						 (double)z[j]);
				return -EDOM;
			}
			if (z[j] > mx)
				mx = z[j];
		}
		for (size_t j = 0; j < classes; j++)
			s += exp((double)z[j] - mx);
		sum += log(s) - ((double)z[labels[i]] - mx);
		if (dlogits)
			for (size_t j = 0; j < classes; j++)
				dlogits[i * classes + j] =
					(float)((exp((double)z[j] - mx) / s -
						 (j == labels[i] ? 1.0 : 0.0)) /
						(double)batch);
	}
	*loss = (float)(sum / (double)batch);
	return 0;
}
