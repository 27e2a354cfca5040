/* The training loop: shuffled mini-batches, softmax cross-entropy, AdamW with a cosine learning
 * rate schedule, a log line every few epochs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

/* Cosine decay from lr at the first step to 0 after the last (smooth, no tuning knobs). */
double tr_cosine_lr(double lr, size_t step, size_t steps)
{
	return 0.5 * lr * (1.0 + cos(M_PI * (double)step / (double)steps));
}

int tr_train(struct tr_net *net, const struct tr_digits *train, const struct tr_digits *test,
	     const struct tr_train_cfg *cfg, FILE *log)
{
	size_t in_size = net->in_h * net->in_w * net->in_c, classes = tr_net_classes(net);
	size_t per_epoch, steps, step = 0;
	uint64_t rng = cfg->seed;
	struct tr_adam adam;
	size_t *idx = NULL;
	double *x = NULL, *dlogits = NULL;
	uint8_t *y = NULL;
	int ret;

	if (!cfg->batch || cfg->batch > net->max_batch || !train->n || !cfg->epochs ||
	    in_size != TR_DIGITS_PIXELS)
		return -EINVAL;
	ret = tr_adam_init(&adam, net->n_params, cfg->weight_decay);
	if (ret)
		return ret;
	idx = malloc(train->n * sizeof(*idx));
	x = malloc(cfg->batch * in_size * sizeof(*x));
	dlogits = malloc(cfg->batch * classes * sizeof(*dlogits));
	y = malloc(cfg->batch);
	if (!idx || !x || !dlogits || !y) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < train->n; i++)
		idx[i] = i;
	per_epoch = (train->n + cfg->batch - 1) / cfg->batch;
	steps = per_epoch * cfg->epochs;

	for (unsigned e = 1; e <= cfg->epochs; e++) {
		double loss_sum = 0.0;

		tr_shuffle(idx, train->n, &rng);
		for (size_t b0 = 0; b0 < train->n; b0 += cfg->batch) {
			size_t n = train->n - b0 < cfg->batch ? train->n - b0 : cfg->batch;
			const double *logits;

			for (size_t i = 0; i < n; i++) {
				tr_digits_input(train, idx[b0 + i], x + i * in_size);
				y[i] = train->y[idx[b0 + i]];
			}
			logits = tr_net_forward(net, x, n);
			loss_sum += (double)n * tr_softmax_xent(logits, y, n, classes, dlogits);
			memset(net->grad, 0, net->n_params * sizeof(double));
			tr_net_backward(net, x, n, dlogits);
			tr_adam_step(&adam, net->param, net->grad, tr_cosine_lr(cfg->lr, step++, steps));
		}
		if (log && cfg->log_every && (e % cfg->log_every == 0 || e == cfg->epochs)) {
			double train_acc = tr_eval_float(net, train, NULL);
			double test_acc = test && test->n ? tr_eval_float(net, test, NULL) : 0.0;

			fprintf(log, "  epoch %3u  loss %.4f  train %.2f %%  test %.2f %%\n", e,
				loss_sum / (double)train->n, 100.0 * train_acc, 100.0 * test_acc);
		}
	}
	ret = 0;
out:
	free(idx);
	free(x);
	free(dlogits);
	free(y);
	tr_adam_free(&adam);
	return ret;
}
