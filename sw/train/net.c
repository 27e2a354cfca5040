/* A float network: a chain of dense, conv and max-pool layers over one flat parameter vector
 * (so the optimizer sees a single array), with per-layer output buffers for backward. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

void tr_net_init(struct tr_net *net, size_t in_h, size_t in_w, size_t in_c, size_t max_batch)
{
	memset(net, 0, sizeof(*net));
	net->in_h = in_h;
	net->in_w = in_w;
	net->in_c = in_c;
	net->max_batch = max_batch;
}

size_t tr_layer_out_size(const struct tr_layer *l)
{
	return l->out_h * l->out_w * l->out_c;
}

/* A new layer whose input is the previous layer's output (or the net's input). */
static struct tr_layer *push(struct tr_net *net, enum tr_kind kind)
{
	struct tr_layer *l;

	if (net->n_layers == TR_MAX_LAYERS || net->param)
		return NULL;
	l = &net->layer[net->n_layers];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	if (net->n_layers) {
		const struct tr_layer *p = &net->layer[net->n_layers - 1];

		l->in_h = p->out_h;
		l->in_w = p->out_w;
		l->in_c = p->out_c;
	} else {
		l->in_h = net->in_h;
		l->in_w = net->in_w;
		l->in_c = net->in_c;
	}
	return l;
}

static void add_params(struct tr_net *net, struct tr_layer *l)
{
	l->w_off = net->n_params;
	l->b_off = l->w_off + l->fan_in * l->out_c;
	net->n_params = l->b_off + l->out_c;
	net->n_layers++;
}

int tr_net_add_dense(struct tr_net *net, size_t out, bool relu)
{
	struct tr_layer *l = push(net, TR_DENSE);

	if (!l || !out)
		return -EINVAL;
	l->fan_in = l->in_h * l->in_w * l->in_c;
	l->out_h = 1;
	l->out_w = 1;
	l->out_c = out;
	l->relu = relu;
	add_params(net, l);
	return 0;
}

int tr_net_add_conv(struct tr_net *net, size_t out_c, size_t k, size_t pad, bool relu)
{
	struct tr_layer *l = push(net, TR_CONV);
	struct tr_conv_shape s;

	if (!l || !out_c || !k || pad >= k)
		return -EINVAL;
	s = (struct tr_conv_shape){ l->in_h, l->in_w, l->in_c, out_c, k, 1, pad };
	l->out_h = tr_conv_out_h(&s);
	l->out_w = tr_conv_out_w(&s);
	if (!l->out_h || !l->out_w)
		return -EINVAL;
	l->out_c = out_c;
	l->k = k;
	l->stride = 1;
	l->pad = pad;
	l->relu = relu;
	l->fan_in = k * k * l->in_c;
	add_params(net, l);
	return 0;
}

int tr_net_add_pool(struct tr_net *net, size_t k, size_t stride)
{
	struct tr_layer *l = push(net, TR_POOL);
	struct tr_pool_shape s;

	if (!l)
		return -EINVAL;
	s = (struct tr_pool_shape){ l->in_h, l->in_w, l->in_c, k, stride };
	l->out_h = tr_pool_out_h(&s);
	l->out_w = tr_pool_out_w(&s);
	if (!l->out_h || !l->out_w)
		return -EINVAL;
	l->out_c = l->in_c;
	l->k = k;
	l->stride = stride;
	net->n_layers++;
	return 0;
}

void tr_net_free(struct tr_net *net)
{
	free(net->param);
	free(net->grad);
	for (size_t l = 0; l < TR_MAX_LAYERS; l++)
		free(net->act[l]);
	free(net->scratch[0]);
	free(net->scratch[1]);
	tr_net_init(net, net->in_h, net->in_w, net->in_c, net->max_batch);
}

int tr_net_alloc(struct tr_net *net, uint64_t *rng)
{
	size_t biggest = net->in_h * net->in_w * net->in_c;

	if (!net->n_layers || !net->max_batch || net->param)
		return -EINVAL;
	net->param = calloc(net->n_params, sizeof(double));
	net->grad = calloc(net->n_params, sizeof(double));
	if (!net->param || !net->grad)
		goto out_nomem;
	for (size_t i = 0; i < net->n_layers; i++) {
		const struct tr_layer *l = &net->layer[i];
		size_t sz = tr_layer_out_size(l);

		if (sz > biggest)
			biggest = sz;
		net->act[i] = calloc(net->max_batch * sz, sizeof(double));
		if (!net->act[i])
			goto out_nomem;
		if (l->kind == TR_POOL)
			continue;
		/* He-uniform keeps the ReLU activations' variance level from layer to layer */
		double a = sqrt(6.0 / (double)l->fan_in);

		for (size_t k = 0; k < l->fan_in * l->out_c; k++)
			net->param[l->w_off + k] = (2.0 * tr_rand_unit(rng) - 1.0) * a;
	}
	for (int b = 0; b < 2; b++) {
		net->scratch[b] = calloc(net->max_batch * biggest, sizeof(double));
		if (!net->scratch[b])
			goto out_nomem;
	}
	return 0;

out_nomem:
	tr_net_free(net);
	return -ENOMEM;
}

size_t tr_net_classes(const struct tr_net *net)
{
	return net->n_layers ? tr_layer_out_size(&net->layer[net->n_layers - 1]) : 0;
}

static struct tr_conv_shape conv_shape(const struct tr_layer *l)
{
	return (struct tr_conv_shape){ l->in_h, l->in_w, l->in_c, l->out_c, l->k, l->stride,
				       l->pad };
}

static struct tr_pool_shape pool_shape(const struct tr_layer *l)
{
	return (struct tr_pool_shape){ l->in_h, l->in_w, l->in_c, l->k, l->stride };
}

const double *tr_net_forward(struct tr_net *net, const double *x, size_t n)
{
	for (size_t i = 0; i < net->n_layers; i++) {
		const struct tr_layer *l = &net->layer[i];
		const double *in = i ? net->act[i - 1] : x;
		const double *w = net->param + l->w_off, *b = net->param + l->b_off;
		double *y = net->act[i];

		switch (l->kind) {
		case TR_DENSE:
			tr_dense_forward(in, n, l->fan_in, l->out_c, w, b, y);
			break;
		case TR_CONV: {
			struct tr_conv_shape s = conv_shape(l);

			tr_conv_forward(&s, in, n, w, b, y);
			break;
		}
		case TR_POOL: {
			struct tr_pool_shape s = pool_shape(l);

			tr_pool_forward(&s, in, n, y);
			break;
		}
		}
		if (l->relu)
			tr_relu_forward(y, n * tr_layer_out_size(l));
	}
	return net->act[net->n_layers - 1];
}

void tr_net_backward(struct tr_net *net, const double *x, size_t n, const double *dlogits)
{
	size_t last = net->n_layers - 1;
	double *dy = net->scratch[0], *dx = net->scratch[1];

	memcpy(dy, dlogits, n * tr_layer_out_size(&net->layer[last]) * sizeof(double));
	for (size_t i = net->n_layers; i-- > 0;) {
		const struct tr_layer *l = &net->layer[i];
		const double *in = i ? net->act[i - 1] : x;
		const double *w = net->param + l->w_off;
		double *dw = net->grad + l->w_off, *db = net->grad + l->b_off;
		double *dxi = i ? dx : NULL; /* the input's gradient is never needed */
		double *t;

		if (l->relu)
			tr_relu_backward(net->act[i], dy, n * tr_layer_out_size(l));
		switch (l->kind) {
		case TR_DENSE:
			tr_dense_backward(in, dy, n, l->fan_in, l->out_c, w, dw, db, dxi);
			break;
		case TR_CONV: {
			struct tr_conv_shape s = conv_shape(l);

			tr_conv_backward(&s, in, dy, n, w, dw, db, dxi);
			break;
		}
		case TR_POOL: {
			struct tr_pool_shape s = pool_shape(l);

			if (dxi)
				tr_pool_backward(&s, in, dy, n, dxi);
			break;
		}
		}
		t = dy;
		dy = dx;
		dx = t;
	}
}
