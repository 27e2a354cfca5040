/* The import of a requantization in ONNX integer operators (onnx_requant.h): the exact form that
 * onnx_requant_export.c writes, node by node and constant by constant, the multiplier and shift
 * of each channel read from its constants. Anything else is refused, naming the node. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_requant.h"

#define I64 ONNX__TENSOR_PROTO__DATA_TYPE__INT64

struct m {
	const struct ox *x;
	const Onnx__NodeProto *at; /* the node last matched, for messages */
	uint32_t oc;
	bool nchw; /* the channels are axis 1 of 4 (else the last axis) */
};

static int bad(struct m *s, const char *what)
{
	return ox_node_fail(s->x, s->at,
			    "integer requantization: %s (the form `tpu export` writes is "
			    "expected)",
			    what);
}

static bool is_op(const Onnx__NodeProto *n, const char *op)
{
	return n->op_type && !strcmp(n->op_type, op) && (!n->domain || !n->domain[0]);
}

/* The one node of type op reading t as its input idx; t read by exactly reads nodes in all
 * and not a graph output. */
static const Onnx__NodeProto *use(struct m *s, const char *t, const char *op, size_t idx,
				  size_t reads)
{
	const Onnx__NodeProto *found = NULL, *first;
	const Onnx__GraphProto *g = s->x->g;
	if (ox_consumers(s->x, t, &first) != reads || ox_is_output(s->x, t)) {
		bad(s, "an intermediate tensor is read elsewhere");
		return NULL;
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		const char *in = ox_input(n, idx);
		if (in && !strcmp(in, t) && is_op(n, op)) {
			if (found) {
				bad(s, "a tensor is read twice by the same operator");
				return NULL;
			}
			found = n;
		}
	}
	if (!found || found->n_output != 1) {
		char why[64];
		snprintf(why, sizeof(why), "no %s follows", op);
		bad(s, why);
		return NULL;
	}
	s->at = found;
	return found;
}

/* Whether dims d (rank r) broadcast as one value per channel: (C, 1, 1) or (1, C, 1, 1) on an
 * NCHW tensor, (C) or (1, C) on the others; or one value in all. */
static bool channel_shape(const struct m *s, const int64_t *d, size_t r, size_t count)
{
	size_t at = s->nchw ? 3 : 1; /* the channel axis counted from the end */
	if (count == 1)
		return r <= (s->nchw ? 4u : 2u);
	if (r < at || r > (s->nchw ? 4u : 2u))
		return false;
	for (size_t k = 0; k < r; k++)
		if (d[k] != (k == r - at ? (int64_t)s->oc : 1))
			return false;
	return true;
}

/* Constant int64 input i of s->at: one value (v[0]), or with per_channel one or out_c values
 * (broadcast into v[0..oc-1]) along the channel axis. */
static int cval(struct m *s, size_t i, bool per_channel, int64_t *v)
{
	struct ox_values c;
	int rc = ox_const_input(s->x, s->at, i, "constant", &c);
	if (rc)
		return rc;
	bool ok = c.type == I64 && (c.count == 1 || (per_channel && c.count == s->oc)) &&
		  channel_shape(s, c.dims, c.rank, c.count);
	for (size_t j = 0; ok && j < (per_channel ? s->oc : 1); j++)
		v[j] = c.ints[c.count == 1 ? 0 : j];
	ox_values_free(&c);
	return ok ? 0 : bad(s, "a constant of another type or size");
}

static int cscalar(struct m *s, size_t i, int64_t want)
{
	int64_t v;
	int rc = cval(s, i, false, &v);
	return rc ? rc : v == want ? 0 : bad(s, "a constant of another value");
}

/* Input i of s->at is the tensor t. */
static int is_input(struct m *s, size_t i, const char *t)
{
	const char *in = ox_input(s->at, i);
	return in && !strcmp(in, t) ? 0 : bad(s, "an operand of another tensor");
}

static int cast_to(struct m *s, int64_t to)
{
	int64_t v;
	int rc = ox_attr_int(s->x, s->at, "to", -1, &v);
	return rc ? rc : v == to && s->at->n_attribute == 1 ? 0 : bad(s, "a Cast to another type");
}

/* log2 of a power of two in 1..2^62, or -1. */
static int log2_exact(int64_t v)
{
	if (v < 1 || (v & (v - 1)))
		return -1;
	return 63 - __builtin_clzll((unsigned long long)v);
}

/* floor(v / d) as Mod, Sub, Div (floor_div in the export), v read by v_reads nodes and the
 * remainder by rem_reads: *rem the Mod's output, *out the Div's; d gets the divisor. */
static int floor_div(struct m *s, const char *v, size_t v_reads, size_t rem_reads, int64_t *d,
		     const char **rem, const char **out)
{
	const Onnx__NodeProto *n;
	int64_t *d2 = malloc(s->oc * sizeof(*d2));
	int rc = -ENOMEM;
	if (!d2)
		goto out;
	rc = -EINVAL;
	if (!(n = use(s, v, "Mod", 0, v_reads)) || (rc = cval(s, 1, true, d)))
		goto out;
	rc = -EINVAL;
	*rem = n->output[0];
	const Onnx__NodeProto *first;
	if (n->n_attribute || ox_consumers(s->x, *rem, &first) != rem_reads ||
	    ox_is_output(s->x, *rem)) {
		rc = bad(s, "a Mod with attributes, or its remainder read elsewhere");
		goto out;
	}
	if (!(n = use(s, v, "Sub", 0, v_reads)) || (rc = is_input(s, 1, *rem)))
		goto out;
	rc = -EINVAL;
	if (!(n = use(s, n->output[0], "Div", 0, 1)) || (rc = cval(s, 1, true, d2)))
		goto out;
	rc = memcmp(d, d2, s->oc * sizeof(*d)) ? bad(s, "two divisors differ") : 0;
	*out = n->output[0];
out:
	free(d2);
	return rc;
}

/* DOUBLE from p = a * M: the nudged Div by 2^31, then the rounding division by 2^e. */
static int match_double(struct m *s, const char *p, int64_t *c, const char **y)
{
	const Onnx__NodeProto *n, *where;
	const char *r, *rem, *fl, *t;
	int rc;
	if (!(n = use(s, p, "Less", 0, 2)) || (rc = cscalar(s, 1, 0)))
		return -EINVAL;
	if (!(where = use(s, n->output[0], "Where", 0, 1)) ||
	    (rc = cscalar(s, 1, 1 - (1ll << 30))) || (rc = cscalar(s, 2, 1ll << 30)))
		return -EINVAL;
	if (!(n = use(s, p, "Add", 0, 2)) || (rc = is_input(s, 1, where->output[0])))
		return -EINVAL;
	if (!(n = use(s, n->output[0], "Div", 0, 1)) || (rc = cscalar(s, 1, 1ll << 31)))
		return -EINVAL;
	r = n->output[0];
	if ((rc = floor_div(s, r, 3, 2, c, &rem, &fl)))
		return rc;
	if (!(n = use(s, r, "Less", 0, 3)) || (rc = cscalar(s, 1, 0)))
		return -EINVAL;
	if (!(n = use(s, n->output[0], "Cast", 0, 1)) || (rc = cast_to(s, I64)))
		return -EINVAL;
	t = n->output[0];
	int64_t *h = malloc(s->oc * sizeof(*h));
	if (!h)
		return -ENOMEM;
	rc = -EINVAL;
	if ((n = use(s, t, "Add", 1, 1)) && !(rc = cval(s, 0, true, h)))
		for (uint32_t j = 0; j < s->oc && !rc; j++)
			if (log2_exact(c[j]) < 0 || log2_exact(c[j]) > 31 ||
			    h[j] != (c[j] - 1) >> 1)
				rc = bad(s, "a rounding threshold or divisor out of place");
	free(h);
	if (rc)
		return rc;
	t = n->output[0];
	if (!(n = use(s, rem, "Greater", 0, 2)) || (rc = is_input(s, 1, t)))
		return -EINVAL;
	if (!(n = use(s, n->output[0], "Cast", 0, 1)) || (rc = cast_to(s, I64)))
		return -EINVAL;
	t = n->output[0];
	if (!(n = use(s, fl, "Add", 0, 1)) || (rc = is_input(s, 1, t)))
		return -EINVAL;
	*y = n->output[0];
	return 0;
}

int orq_import(const struct ox *x, const Onnx__NodeProto *cast, uint32_t out_c, bool nchw,
	       struct orq *q)
{
	struct m s = {.x = x, .at = cast, .oc = out_c, .nchw = nchw};
	memset(q, 0, sizeof(*q));
	int64_t *c = calloc(3 * (size_t)out_c, sizeof(*c)), *m = c + out_c, *l = m + out_c;
	q->multiplier = malloc(out_c * sizeof(int32_t));
	q->shift = malloc(out_c * sizeof(int32_t));
	int rc = -ENOMEM;
	if (!c || !q->multiplier || !q->shift) {
		ox_fail(x, "out of memory");
		goto out;
	}
	const Onnx__NodeProto *n;
	const char *a, *y;
	if ((rc = cast_to(&s, I64)))
		goto out;
	rc = -EINVAL;
	a = cast->output[0];
	for (uint32_t j = 0; j < out_c; j++)
		l[j] = 1;
	if (!(n = use(&s, a, "Mul", 0, 1)) || (rc = cval(&s, 1, true, m)))
		goto out;
	/* after Mul(a, C): DOUBLE reads the product twice (Less, Add); SINGLE adds its half,
	 * which two nodes read (Mod, Sub); the wrapping left shift adds 2^31, which Mod alone
	 * reads (C then was 2^l, and M follows) */
	const char *t = n->output[0];
	const Onnx__NodeProto *next;
	if (ox_consumers(x, t, &next) == 1 && is_op(next, "Add") && next->n_output == 1) {
		const Onnx__NodeProto *after;
		if (ox_consumers(x, next->output[0], &after) == 1) {
			memcpy(l, m, out_c * sizeof(*l));
			if (!(n = use(&s, t, "Add", 0, 1)) || (rc = cscalar(&s, 1, 1ll << 31)) ||
			    !(n = use(&s, n->output[0], "Mod", 0, 1)) ||
			    (rc = cscalar(&s, 1, 1ll << 32)) ||
			    !(n = use(&s, n->output[0], "Sub", 0, 1)) ||
			    (rc = cscalar(&s, 1, 1ll << 31)) ||
			    !(n = use(&s, n->output[0], "Mul", 0, 1)) ||
			    (rc = cval(&s, 1, true, m))) {
				rc = rc ? rc : -EINVAL;
				goto out;
			}
			t = n->output[0];
		} else {
			q->round = TPU_ROUND_SINGLE;
		}
	}
	if (q->round == TPU_ROUND_SINGLE) {
		int64_t *half = calloc(out_c, sizeof(*half));
		const char *rem;
		rc = -ENOMEM;
		if (!half)
			goto out;
		rc = -EINVAL;
		if ((n = use(&s, t, "Add", 0, 1)) && !(rc = cval(&s, 1, true, half)))
			rc = floor_div(&s, n->output[0], 2, 1, c, &rem, &y);
		for (uint32_t j = 0; j < out_c && !rc; j++) {
			int tt = log2_exact(c[j]);
			if (tt < 1 || tt > 62 || half[j] != c[j] / 2)
				rc = bad(&s, "a divisor or its half out of place");
			else
				q->shift[j] = 31 - tt;
		}
		free(half);
		if (rc)
			goto out;
	} else {
		q->round = TPU_ROUND_DOUBLE;
		if ((rc = match_double(&s, t, c, &y)))
			goto out;
		for (uint32_t j = 0; j < out_c; j++) {
			int lt = log2_exact(l[j]), e = log2_exact(c[j]);
			if (lt < 0 || lt > 30 || (lt && e)) {
				rc = bad(&s, "a left shift out of place");
				goto out;
			}
			q->shift[j] = lt ? lt : -e;
		}
	}
	rc = -EINVAL;
	for (uint32_t j = 0; j < out_c; j++) {
		if (m[j] < 0 || m[j] > INT32_MAX) {
			rc = bad(&s, "a multiplier outside 0..2^31-1");
			goto out;
		}
		q->multiplier[j] = (int32_t)m[j];
	}
	int64_t zp, lo, hi;
	if (!(n = use(&s, y, "Add", 0, 1)) || (rc = cval(&s, 1, false, &zp)))
		goto out;
	rc = -EINVAL;
	if (!(n = use(&s, n->output[0], "Clip", 0, 1)) || (rc = cval(&s, 1, false, &lo)) ||
	    (rc = cval(&s, 2, false, &hi)))
		goto out;
	rc = -EINVAL;
	if (zp < -128 || zp > 127 || lo < -128 || hi > 127 || lo > hi) {
		rc = bad(&s, "a zero point or clamp outside int8");
		goto out;
	}
	if (!(n = use(&s, n->output[0], "Cast", 0, 1)) ||
	    (rc = cast_to(&s, ONNX__TENSOR_PROTO__DATA_TYPE__INT8)))
		goto out;
	q->zero_point = (int32_t)zp;
	q->lo = (int32_t)lo;
	q->hi = (int32_t)hi;
	q->end = n->output[0];
	rc = 0;
out:
	free(c);
	if (rc)
		orq_free(q);
	return rc;
}

void orq_free(struct orq *q)
{
	free(q->multiplier);
	free(q->shift);
	q->multiplier = q->shift = NULL;
}
