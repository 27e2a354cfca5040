/* SGD with momentum and AdamW over one flat fp32 parameter vector (the master weights). Each
 * element is updated in double and stored as fp32, in index order: deterministic. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpu/train.h"

int tpu_optim_init(struct tpu_optim *o, enum tpu_optim_kind kind, size_t n, double weight_decay)
{
	memset(o, 0, sizeof(*o));
	if ((kind != TPU_OPTIM_SGD && kind != TPU_OPTIM_ADAMW) || !n)
		return -EINVAL;
	o->kind = kind;
	o->n = n;
	o->momentum = 0.9;
	o->beta1 = 0.9;
	o->beta2 = 0.999;
	o->eps = 1e-8;
	o->weight_decay = weight_decay;
	o->m = calloc(n, sizeof(float));
	if (kind == TPU_OPTIM_ADAMW)
		o->v = calloc(n, sizeof(float));
	if (!o->m || (kind == TPU_OPTIM_ADAMW && !o->v)) {
		tpu_optim_free(o);
		return -ENOMEM;
	}
	return 0;
}

static void sgd_step(struct tpu_optim *o, float *param, const float *grad, double lr)
{
	for (size_t i = 0; i < o->n; i++) {
		double g = (double)grad[i] + o->weight_decay * (double)param[i];
		double v = o->momentum * (double)o->m[i] + g;

		o->m[i] = (float)v;
		param[i] = (float)((double)param[i] - lr * v);
	}
}

static void adamw_step(struct tpu_optim *o, float *param, const float *grad, double lr)
{
	double c1 = 1.0 - pow(o->beta1, (double)o->t), c2 = 1.0 - pow(o->beta2, (double)o->t);

	for (size_t i = 0; i < o->n; i++) {
		double g = grad[i], p = param[i];
		double m = o->beta1 * (double)o->m[i] + (1.0 - o->beta1) * g;
		double v = o->beta2 * (double)o->v[i] + (1.0 - o->beta2) * g * g;

		o->m[i] = (float)m;
		o->v[i] = (float)v;
		param[i] = (float)(p - lr * ((m / c1) / (sqrt(v / c2) + o->eps) +
					    o->weight_decay * p));
	}
}

void tpu_optim_step(struct tpu_optim *o, float *param, const float *grad, double lr)
{
	o->t++;
	if (o->kind == TPU_OPTIM_SGD)
		sgd_step(o, param, grad, lr);
	else
		adamw_step(o, param, grad, lr);
}

void tpu_optim_free(struct tpu_optim *o)
{
	free(o->m);
	free(o->v);
	o->m = o->v = NULL;
	o->n = 0;
}
