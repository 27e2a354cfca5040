/* Accuracy of a float network and of an int8 model (through the reference inference) on a
 * digits set. */
#include <errno.h>
#include <stdlib.h>

#include "train.h"

double tr_eval_float(struct tr_net *net, const struct tr_digits *d, double *loss)
{
	size_t in_size = net->in_h * net->in_w * net->in_c, classes = tr_net_classes(net);
	size_t correct = 0;
	double loss_sum = 0.0;
	double *x;

	if (loss)
		*loss = 0.0;
	if (!d->n || in_size != TR_DIGITS_PIXELS)
		return 0.0;
	x = malloc(net->max_batch * in_size * sizeof(*x));
	if (!x)
		return 0.0;
	for (size_t b0 = 0; b0 < d->n; b0 += net->max_batch) {
		size_t n = d->n - b0 < net->max_batch ? d->n - b0 : net->max_batch;
		const double *logits;

		for (size_t i = 0; i < n; i++)
			tr_digits_input(d, b0 + i, x + i * in_size);
		logits = tr_net_forward(net, x, n);
		loss_sum += (double)n * tr_softmax_xent(logits, d->y + b0, n, classes, NULL);
		for (size_t i = 0; i < n; i++)
			correct += tr_argmax(logits + i * classes, classes) == d->y[b0 + i];
	}
	free(x);
	if (loss)
		*loss = loss_sum / (double)d->n;
	return (double)correct / (double)d->n;
}

int tr_eval_int8(const struct tpu_model *m, const struct tr_digits *d, double *accuracy)
{
	size_t in_size = (size_t)m->in_h * m->in_w * m->in_c, correct = 0;
	int8_t in[TR_DIGITS_PIXELS];
	int8_t *out;
	int ret = 0;

	*accuracy = 0.0;
	if (in_size != TR_DIGITS_PIXELS || !m->num_classes || !d->n)
		return -EINVAL;
	out = malloc(m->num_classes);
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++) {
		size_t best = 0;

		tr_quantize_input(m, d->x + i * TR_DIGITS_PIXELS, TR_DIGITS_PIXELS, in);
		ret = tr_qref_run(m, in, out);
		if (ret)
			goto out;
		for (size_t j = 1; j < m->num_classes; j++)
			if (out[j] > out[best])
				best = j;
		correct += best == d->y[i];
	}
	*accuracy = (double)correct / (double)d->n;
out:
	free(out);
	return ret;
}
