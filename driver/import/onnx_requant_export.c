/* The requantization of a DOUBLE or SINGLE layer in ONNX integer operators (onnx_requant.h), so
 * that ONNX Runtime computes tpu_requantize_mode bit for bit. Everything is int64 after one
 * Cast of the int32 sums; the per-channel constants are (C, 1, 1) for an NCHW tensor, (C) for an
 * (N, C) one. With M the multiplier, s the shift, l = max(s, 0), e = max(-s, 0):
 *
 * DOUBLE (gemmlowp: tpu_srdhm then tpu_rdbpot):
 *   a = x                                         (s <= 0 in every channel)
 *   a = ((x * 2^l + 2^31) mod 2^32) - 2^31        (else: the int32 left shift, wrapping)
 *   p = a * M
 *   r = (p + (p < 0 ? 1 - 2^30 : 2^30)) / 2^31    (Div truncates toward zero, as C's /)
 *   k = r mod 2^e                                 (Mod of a positive divisor is >= 0: r & mask)
 *   y = (r - k) / 2^e + (k > ((2^e - 1) >> 1) + (r < 0))
 * SINGLE (TFLite's single rounding, t = 31 - s):
 *   v = x * M + 2^(t-1);  k = v mod 2^t;  y = (v - k) / 2^t
 * then y + zero point, Clip to the layer's clamp, Cast to int8. The import recognises exactly
 * this form (onnx_requant_import.c). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "onnx_requant.h"

#define I64 ONNX__TENSOR_PROTO__DATA_TYPE__INT64

struct rq {
	struct graph *g;
	uint32_t layer;
	bool conv;
	uint32_t oc;
};

/* An int64 initializer: one value (rank 0) or one per channel. */
static const char *konst(struct rq *q, const char *what, const int64_t *v, bool per_channel)
{
	const char *name = ob_str(q->g->a, "l%u_%s", q->layer, what);
	int64_t dims[3] = {q->oc, 1, 1};
	size_t n = per_channel ? q->oc : 1;
	ob_tensor(q->g, name, dims, per_channel ? (q->conv ? 3 : 1) : 0, I64, v, n * sizeof(*v));
	return name;
}

static const char *scalar(struct rq *q, const char *what, int64_t v)
{
	return konst(q, what, &v, false);
}

/* op(a, b) or op(a) (b NULL) into a new tensor. */
static const char *op(struct rq *q, const char *type, const char *a, const char *b)
{
	const char *out = ob_str(q->g->a, "l%u_t%zu", q->layer, q->g->n_node);
	const char *in[] = {a, b, NULL};
	ob_node(q->g, type, "", out, in);
	return out;
}

static const char *cast(struct rq *q, const char *a, int64_t to)
{
	const char *out = op(q, "Cast", a, NULL);
	Onnx__NodeProto *n = q->g->n_node ? q->g->node[q->g->n_node - 1] : NULL;
	if (n && !q->g->a->oom)
		ob_attr(q->g, n, "to", &to, 0);
	return out;
}

/* floor(v / 2^exp) and v mod 2^exp, per channel (d: the name of 2^exp). */
static const char *floor_div(struct rq *q, const char *v, const char *d, const char **rem)
{
	*rem = op(q, "Mod", v, d);
	const char *t = op(q, "Sub", v, *rem);
	return op(q, "Div", t, d);
}

const char *orq_export(struct graph *g, const struct tpu_layer *l, uint32_t layer, const char *acc,
		       bool conv, int32_t qmin, int32_t qmax)
{
	struct rq q = {.g = g, .layer = layer, .conv = conv, .oc = l->out_c};
	int64_t *c1 = ob_alloc(g->a, 4 * l->out_c * sizeof(int64_t));
	if (!c1)
		return NULL;
	int64_t *c2 = c1 + l->out_c, *c3 = c2 + l->out_c, *c4 = c3 + l->out_c;
	bool left = false;
	for (uint32_t j = 0; j < l->out_c; j++)
		left |= l->shift[j] > 0;
	for (uint32_t j = 0; j < l->out_c; j++) {
		int s = l->shift[j];
		c1[j] = l->multiplier[j];
		if (l->round == TPU_ROUND_SINGLE) {
			c2[j] = 1ll << (31 - s - 1); /* the half */
			c3[j] = 1ll << (31 - s);
		} else {
			int e = s > 0 ? 0 : -s;
			c2[j] = 1ll << (s > 0 ? s : 0);
			c3[j] = 1ll << e;
			c4[j] = ((1ll << e) - 1) >> 1;
		}
	}
	/* one statement a node or constant: the file's order does not depend on the compiler's
	 * order of evaluating arguments */
	const char *a = cast(&q, acc, I64), *rem, *y, *k, *t;
	const char *m = konst(&q, "m", c1, true);
	if (l->round == TPU_ROUND_SINGLE) {
		const char *half = konst(&q, "half", c2, true);
		const char *div = konst(&q, "div", c3, true);
		t = op(&q, "Mul", a, m);
		t = op(&q, "Add", t, half);
		y = floor_div(&q, t, div, &rem);
	} else {
		if (left) {
			const char *ls = konst(&q, "lshift", c2, true);
			const char *c31 = scalar(&q, "wrap", 1ll << 31);
			const char *c32 = scalar(&q, "mod32", 1ll << 32);
			a = op(&q, "Mul", a, ls);
			a = op(&q, "Add", a, c31);
			a = op(&q, "Mod", a, c32);
			a = op(&q, "Sub", a, c31);
		}
		const char *zero = scalar(&q, "zero", 0);
		const char *neg = scalar(&q, "nudge_neg", 1 - (1ll << 30));
		const char *pos = scalar(&q, "nudge_pos", 1ll << 30);
		const char *srdhm = scalar(&q, "srdhm", 1ll << 31);
		const char *div = konst(&q, "div", c3, true);
		const char *thr0 = konst(&q, "thr", c4, true);
		const char *p = op(&q, "Mul", a, m);
		const char *nudge = ob_str(g->a, "l%u_nudge", layer);
		const char *in[] = {op(&q, "Less", p, zero), neg, pos, NULL};
		ob_node(g, "Where", "", nudge, in);
		t = op(&q, "Add", p, nudge);
		const char *r = op(&q, "Div", t, srdhm);
		const char *fl = floor_div(&q, r, div, &rem);
		t = op(&q, "Less", r, zero);
		t = cast(&q, t, I64);
		const char *thr = op(&q, "Add", thr0, t);
		k = op(&q, "Greater", rem, thr);
		k = cast(&q, k, I64);
		y = op(&q, "Add", fl, k);
	}
	const char *zp = scalar(&q, "zp", l->out.zero_point);
	const char *lo = scalar(&q, "lo", qmin), *hi = scalar(&q, "hi", qmax);
	y = op(&q, "Add", y, zp);
	const char *out = ob_str(g->a, "l%u_clip", layer);
	const char *in[] = {y, lo, hi, NULL};
	ob_node(g, "Clip", "", out, in);
	return g->a->oom ? NULL : cast(&q, out, ONNX__TENSOR_PROTO__DATA_TYPE__INT8);
}
