/* The ONNX builder's arena and graph helpers (onnx_build.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_build.h"

void *ob_alloc(struct arena *a, size_t size)
{
	if (a->oom)
		return NULL;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		void **p = realloc(a->p, cap * sizeof(*p));
		if (!p) {
			a->oom = 1;
			return NULL;
		}
		a->p = p;
		a->cap = cap;
	}
	void *m = calloc(1, size ? size : 1);
	if (!m) {
		a->oom = 1;
		return NULL;
	}
	return a->p[a->n++] = m;
}

void ob_arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->p[i]);
	free(a->p);
}

__attribute__((format(printf, 2, 3))) char *ob_str(struct arena *a, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char *s = ob_alloc(a, strlen(buf) + 1);
	if (s)
		strcpy(s, buf);
	return s;
}

/* An initializer: dims, ONNX data type and raw little-endian bytes (copied). */
void ob_tensor(struct graph *g, const char *name, const int64_t *dims, size_t n_dims, int type,
	       const void *data, size_t bytes)
{
	Onnx__TensorProto *t = ob_alloc(g->a, sizeof(*t));
	int64_t *d = ob_alloc(g->a, n_dims * sizeof(*d));
	uint8_t *raw = ob_alloc(g->a, bytes);
	if (!t || !d || !raw || g->n_init == g->cap_init) {
		g->a->oom = 1;
		return;
	}
	onnx__tensor_proto__init(t);
	if (n_dims) /* a scalar has no dims (NULL) */
		memcpy(d, dims, n_dims * sizeof(*d));
	memcpy(raw, data, bytes);
	t->name = (char *)name;
	t->n_dims = n_dims;
	t->dims = d;
	t->has_data_type = 1;
	t->data_type = type;
	t->has_raw_data = 1;
	t->raw_data.len = bytes;
	t->raw_data.data = raw;
	g->init[g->n_init++] = t;
}

void ob_scalar_f32(struct graph *g, const char *name, float v)
{
	ob_tensor(g, name, NULL, 0, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &v, 4);
}

void ob_scalar_i8(struct graph *g, const char *name, int32_t v)
{
	int8_t b = (int8_t)v;
	ob_tensor(g, name, NULL, 0, ONNX__TENSOR_PROTO__DATA_TYPE__INT8, &b, 1);
}

/* A node with inputs (a NULL-terminated list), one output and the attributes added after. */
Onnx__NodeProto *ob_node(struct graph *g, const char *op, const char *domain, const char *out,
			 const char *const *in)
{
	Onnx__NodeProto *n = ob_alloc(g->a, sizeof(*n));
	size_t k = 0;
	while (in[k])
		k++;
	char **ins = ob_alloc(g->a, k * sizeof(*ins));
	char **outs = ob_alloc(g->a, sizeof(*outs));
	Onnx__AttributeProto **attrs = ob_alloc(g->a, 4 * sizeof(*attrs));
	if (!n || !ins || !outs || !attrs || g->n_node == g->cap_node) {
		g->a->oom = 1;
		return NULL;
	}
	onnx__node_proto__init(n);
	for (size_t i = 0; i < k; i++)
		ins[i] = (char *)in[i];
	outs[0] = (char *)out;
	n->n_input = k;
	n->input = ins;
	n->n_output = 1;
	n->output = outs;
	n->op_type = (char *)op;
	n->domain = (char *)domain;
	n->name = ob_str(g->a, "%s_%zu", op, g->n_node);
	n->attribute = attrs;
	g->node[g->n_node++] = n;
	return n;
}

/* An INTS attribute (count values) or, with count 0, the INT attribute v[0]. */
void ob_attr(struct graph *g, Onnx__NodeProto *n, const char *name, const int64_t *v, size_t count)
{
	Onnx__AttributeProto *at = ob_alloc(g->a, sizeof(*at));
	int64_t *ints = ob_alloc(g->a, (count ? count : 1) * sizeof(*ints));
	if (!n || !at || !ints)
		return;
	onnx__attribute_proto__init(at);
	at->name = (char *)name;
	at->has_type = 1;
	if (count) {
		at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
		memcpy(ints, v, count * sizeof(*ints));
		at->n_ints = count;
		at->ints = ints;
	} else {
		at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
		at->has_i = 1;
		at->i = v[0];
	}
	n->attribute[n->n_attribute++] = at;
}
