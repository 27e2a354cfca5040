/* A tr_net trained on a tpu device (train.h "on the device"): the forward and backward passes
 * of its dense, conv and max-pool layers through the training ops of tpu/train.h, the optimizer
 * on fp32 master weights. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train.h"

static size_t layer_in_size(const struct tr_layer *l)
{
	return l->in_h * l->in_w * l->in_c;
}

/* The int8 ops' shape structs of a conv or pool layer over n examples. */
static struct tpu_conv2d_shape conv_of(const struct tr_layer *l, size_t n)
{
	return (struct tpu_conv2d_shape){
		.batch = n, .in_h = l->in_h, .in_w = l->in_w, .in_c = l->in_c, .out_c = l->out_c,
		.kernel_h = l->k, .kernel_w = l->k, .stride_h = l->stride, .stride_w = l->stride,
		.pad_top = l->pad, .pad_bottom = l->pad, .pad_left = l->pad, .pad_right = l->pad,
	};
}

static struct tpu_pool2d_shape pool_of(const struct tr_layer *l, size_t n)
{
	return (struct tpu_pool2d_shape){
		.batch = n, .in_h = l->in_h, .in_w = l->in_w, .channels = l->in_c,
		.pool_h = l->k, .pool_w = l->k, .stride_h = l->stride, .stride_w = l->stride,
	};
}

int tr_dev_init(struct tr_dev *d, struct tr_net *net, tpu_dev *dev, enum tpu_optim_kind opt,
		double weight_decay, char *err, size_t errlen)
{
	size_t in = net->in_h * net->in_w * net->in_c, big = in;
	int ret;

	memset(d, 0, sizeof(*d));
	d->net = net;
	for (size_t l = 0; l < net->n_layers; l++) {
		if (tr_layer_out_size(&net->layer[l]) > big)
			big = tr_layer_out_size(&net->layer[l]);
	}
	ret = tpu_train_init(&d->ctx, dev);
	if (ret)
		return tr_fail(err, errlen, ret, "%s", d->ctx.err[0] ? d->ctx.err : "device");
	ret = tpu_optim_init(&d->opt, opt, net->n_params, weight_decay);
	if (ret)
		goto fail;
	d->param = malloc(net->n_params * sizeof(float));
	d->grad = malloc(net->n_params * sizeof(float));
	d->x = malloc(net->max_batch * in * sizeof(float));
	d->y = malloc(net->max_batch);
	d->d[0] = malloc(net->max_batch * big * sizeof(float));
	d->d[1] = malloc(net->max_batch * big * sizeof(float));
	ret = -ENOMEM;
	if (!d->param || !d->grad || !d->x || !d->y || !d->d[0] || !d->d[1])
		goto fail;
	for (size_t l = 0; l < net->n_layers; l++) {
		size_t sz = net->max_batch * tr_layer_out_size(&net->layer[l]);

		d->act[l] = malloc(sz * sizeof(float));
		if (!d->act[l])
			goto fail;
		if (net->layer[l].kind != TR_POOL)
			continue;
		d->argmax[l] = malloc(sz * sizeof(size_t));
		if (!d->argmax[l])
			goto fail;
	}
	for (size_t i = 0; i < net->n_params; i++)
		d->param[i] = (float)net->param[i];
	return 0;
fail:
	tr_dev_free(d);
	return tr_fail(err, errlen, ret, "cannot set up the trainer (%s)", strerror(-ret));
}

void tr_dev_free(struct tr_dev *d)
{
	tpu_train_free(&d->ctx);
	tpu_optim_free(&d->opt);
	free(d->param);
	free(d->grad);
	free(d->x);
	free(d->y);
	free(d->d[0]);
	free(d->d[1]);
	for (size_t l = 0; l < TR_MAX_LAYERS; l++) {
		free(d->act[l]);
		free(d->argmax[l]);
	}
	memset(d, 0, sizeof(*d));
}

/* Examples idx[0..n-1] of data into d->x and d->y. */
static void gather(struct tr_dev *d, const struct tr_dev_data *data, const size_t *idx,
		   size_t n)
{
	size_t in = d->net->in_h * d->net->in_w * d->net->in_c;

	for (size_t i = 0; i < n; i++) {
		memcpy(d->x + i * in, data->x + idx[i] * in, in * sizeof(float));
		d->y[i] = data->y[idx[i]];
	}
}

static const char *const kind_name[] = { [TR_DENSE] = "dense", [TR_CONV] = "conv2d",
					 [TR_POOL] = "max-pool" };

static int layer_fail(struct tr_dev *d, int ret, size_t l, const char *pass, char *err,
		      size_t errlen)
{
	return tr_fail(err, errlen, ret, "layer %zu (%s) %s on the device: %s", l,
		       kind_name[d->net->layer[l].kind], pass,
		       d->ctx.err[0] ? d->ctx.err : tpu_strerror(ret));
}

/* Layer l's forward of x (n examples) into d->act[l]. */
static int layer_forward(struct tr_dev *d, size_t l, const float *x, size_t n)
{
	const struct tr_layer *ly = &d->net->layer[l];
	const float *w = d->param + ly->w_off, *b = d->param + ly->b_off;

	d->ctx.err[0] = '\0'; /* a message in it afterwards is this op's */
	switch (ly->kind) {
	case TR_DENSE:
		return tpu_train_dense_forward(&d->ctx, n, layer_in_size(ly), ly->out_c, x, w, b,
					       d->act[l]);
	case TR_CONV: {
		struct tpu_conv2d_shape s = conv_of(ly, n);

		return tpu_train_conv2d_forward(&d->ctx, &s, x, w, b, d->act[l]);
	}
	case TR_POOL: {
		struct tpu_pool2d_shape s = pool_of(ly, n);

		return tpu_train_maxpool_forward(&s, x, d->act[l], d->argmax[l]);
	}
	}
	return -EINVAL;
}

/* Forward of d->x (n rows) through every layer into d->act. */
static int forward(struct tr_dev *d, size_t n, char *err, size_t errlen)
{
	const float *x = d->x;

	for (size_t l = 0; l < d->net->n_layers; l++) {
		const struct tr_layer *ly = &d->net->layer[l];
		int ret = layer_forward(d, l, x, n);

		if (ret)
			return layer_fail(d, ret, l, "forward", err, errlen);
		if (ly->relu)
			tpu_train_relu_forward(d->act[l], n * tr_layer_out_size(ly));
		x = d->act[l];
	}
	return 0;
}

/* Layer l's backward given dy (n examples): its weight gradients into d->grad, dx (NULL for
 * the first layer) its input's. */
static int layer_backward(struct tr_dev *d, size_t l, size_t n, const float *dy, float *dx)
{
	const struct tr_layer *ly = &d->net->layer[l];
	const float *x = l ? d->act[l - 1] : d->x, *w = d->param + ly->w_off;
	float *dw = d->grad + ly->w_off, *db = d->grad + ly->b_off;

	d->ctx.err[0] = '\0';
	switch (ly->kind) {
	case TR_DENSE:
		return tpu_train_dense_backward(&d->ctx, n, layer_in_size(ly), ly->out_c, x, w,
						dy, dw, db, dx);
	case TR_CONV: {
		struct tpu_conv2d_shape s = conv_of(ly, n);

		return tpu_train_conv2d_backward(&d->ctx, &s, x, w, dy, dw, db, dx);
	}
	case TR_POOL: {
		struct tpu_pool2d_shape s = pool_of(ly, n);

		return dx ? tpu_train_maxpool_backward(&s, d->argmax[l], dy, dx) : 0;
	}
	}
	return -EINVAL;
}

/* Backward from d->d[0] (dlogits, n rows) into d->grad. */
static int backward(struct tr_dev *d, size_t n, char *err, size_t errlen)
{
	float *dy = d->d[0], *dx = d->d[1];

	for (size_t l = d->net->n_layers; l-- > 0;) {
		const struct tr_layer *ly = &d->net->layer[l];
		int ret;

		if (ly->relu)
			tpu_train_relu_backward(d->act[l], dy, n * tr_layer_out_size(ly));
		ret = layer_backward(d, l, n, dy, l ? dx : NULL);
		if (ret)
			return layer_fail(d, ret, l, "backward", err, errlen);
		float *t = dy;
		dy = dx;
		dx = t;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* acc += the device figures of ctx->stats since s0, and wall seconds since t0. */
static void phase_add(struct tr_dev_phase *acc, const struct tpu_train_stats *s0,
		      const struct tpu_train_stats *s1, double t0)
{
	acc->gemms += s1->gemms - s0->gemms;
	acc->cycles += s1->cycles - s0->cycles;
	acc->macs += s1->macs - s0->macs;
	acc->wall_seconds += now() - t0;
}

int tr_dev_step(struct tr_dev *d, const struct tr_dev_data *data, const size_t *idx, size_t n,
		double lr, double *loss, char *err, size_t errlen)
{
	size_t classes = tr_net_classes(d->net);
	const float *logits;
	char why[160];
	float l;
	int ret;

	struct tpu_train_stats s0 = d->ctx.stats;
	double t0 = now();

	gather(d, data, idx, n);
	ret = forward(d, n, err, errlen);
	if (ret)
		return ret;
	phase_add(&d->phase[TR_PHASE_FORWARD], &s0, &d->ctx.stats, t0);
	s0 = d->ctx.stats;
	t0 = now();
	logits = d->act[d->net->n_layers - 1];
	ret = tpu_train_softmax_xent(logits, d->y, n, classes, &l, d->d[0], why, sizeof(why));
	if (ret)
		return tr_fail(err, errlen, ret, "loss: %s", why);
	if (!isfinite(l))
		return tr_fail(err, errlen, -EDOM, "loss is %g", (double)l);
	ret = backward(d, n, err, errlen);
	if (ret)
		return ret;
	phase_add(&d->phase[TR_PHASE_BACKWARD], &s0, &d->ctx.stats, t0);
	s0 = d->ctx.stats;
	t0 = now();
	tpu_optim_step(&d->opt, d->param, d->grad, lr);
	phase_add(&d->phase[TR_PHASE_UPDATE], &s0, &d->ctx.stats, t0);
	*loss = l;
	return 0;
}

int tr_dev_eval(struct tr_dev *d, const struct tr_dev_data *data, double *accuracy, double *loss,
		char *err, size_t errlen)
{
	size_t classes = tr_net_classes(d->net), correct = 0, *idx;
	double loss_sum = 0.0;
	int ret = 0;

	idx = malloc(d->net->max_batch * sizeof(*idx));
	if (!idx)
		return tr_fail(err, errlen, -ENOMEM, "out of memory");
	for (size_t b0 = 0; b0 < data->n && !ret; b0 += d->net->max_batch) {
		size_t n = data->n - b0 < d->net->max_batch ? data->n - b0 : d->net->max_batch;
		const float *lg = d->act[d->net->n_layers - 1];
		char why[160];
		float l;

		for (size_t i = 0; i < n; i++)
			idx[i] = b0 + i;
		gather(d, data, idx, n);
		ret = forward(d, n, err, errlen);
		if (ret)
			break;
		ret = tpu_train_softmax_xent(lg, d->y, n, classes, &l, NULL, why, sizeof(why));
		if (ret) {
			ret = tr_fail(err, errlen, ret, "evaluation: %s", why);
			break;
		}
		loss_sum += (double)l * (double)n;
		for (size_t i = 0; i < n; i++)
			correct += tr_dev_argmax(lg + i * classes, classes) == d->y[i];
	}
	free(idx);
	if (ret)
		return ret;
	*accuracy = data->n ? (double)correct / (double)data->n : 0.0;
	if (loss)
		*loss = data->n ? loss_sum / (double)data->n : 0.0;
	return 0;
}

size_t tr_dev_argmax(const float *v, size_t n)
{
	size_t best = 0;

	for (size_t j = 1; j < n; j++)
		if (v[j] > v[best])
			best = j;
	return best;
}

void tr_dev_export(struct tr_dev *d)
{
	for (size_t i = 0; i < d->net->n_params; i++)
		d->net->param[i] = d->param[i];
}
