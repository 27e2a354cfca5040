/* Adam with decoupled weight decay (AdamW, Loshchilov & Hutter 2019) over one flat parameter
 * vector. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

int tr_adam_init(struct tr_adam *a, size_t n, double weight_decay)
{
	memset(a, 0, sizeof(*a));
	a->beta1 = 0.9;
	a->beta2 = 0.999;
	a->eps = 1e-8;
	a->weight_decay = weight_decay;
	a->n = n;
	a->m = calloc(n ? n : 1, sizeof(double));
	a->v = calloc(n ? n : 1, sizeof(double));
	if (!a->m || !a->v) {
		tr_adam_free(a);
		return -ENOMEM;
	}
	return 0;
}

void tr_adam_step(struct tr_adam *a, double *param, const double *grad, double lr)
{
	double c1, c2;

	a->t++;
	c1 = 1.0 - pow(a->beta1, (double)a->t);
	c2 = 1.0 - pow(a->beta2, (double)a->t);
	for (size_t i = 0; i < a->n; i++) {
		double g = grad[i];

		a->m[i] = a->beta1 * a->m[i] + (1.0 - a->beta1) * g;
		a->v[i] = a->beta2 * a->v[i] + (1.0 - a->beta2) * g * g;
		param[i] -= lr * ((a->m[i] / c1) / (sqrt(a->v[i] / c2) + a->eps) +
				  a->weight_decay * param[i]);
	}
}

void tr_adam_free(struct tr_adam *a)
{
	free(a->m);
	free(a->v);
	a->m = NULL;
	a->v = NULL;
	a->n = 0;
}
