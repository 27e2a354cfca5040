/* Reading a parsed ONNX graph (onnx_graph.h): lookups, attributes, tensor values, and errors
 * that name the node. Nothing here trusts a count or a length it has not checked. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_graph.h"

int ox_fail(const struct ox *x, const char *fmt, ...)
{
	if (x->err && x->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(x->err, x->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int ox_node_fail(const struct ox *x, const Onnx__NodeProto *n, const char *fmt, ...)
{
	if (!x->err || !x->errlen)
		return -EINVAL;
	size_t idx = 0;
	while (idx < x->g->n_node && x->g->node[idx] != n)
		idx++;
	const char *op = n->op_type ? n->op_type : "?";
	int k = n->name && n->name[0] ? snprintf(x->err, x->errlen, "node '%s' (%s): ", n->name, op)
				      : snprintf(x->err, x->errlen, "node #%zu (%s): ", idx, op);
	if (k >= 0 && (size_t)k < x->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(x->err + k, x->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

const Onnx__TensorProto *ox_const(const struct ox *x, const char *name)
{
	if (!name || !name[0])
		return NULL;
	for (size_t i = 0; i < x->g->n_initializer; i++)
		if (same(x->g->initializer[i]->name, name))
			return x->g->initializer[i];
	const Onnx__NodeProto *p = ox_producer(x, name);
	if (p && same(p->op_type, "Constant") && (!p->domain || !p->domain[0])) {
		const Onnx__AttributeProto *a = ox_attr(p, "value");
		if (a && a->t)
			return a->t;
	}
	return NULL;
}

const Onnx__NodeProto *ox_producer(const struct ox *x, const char *name)
{
	for (size_t i = 0; i < x->g->n_node; i++) {
		const Onnx__NodeProto *n = x->g->node[i];
		for (size_t o = 0; o < n->n_output; o++)
			if (same(n->output[o], name))
				return n;
	}
	return NULL;
}

size_t ox_consumers(const struct ox *x, const char *name, const Onnx__NodeProto **first)
{
	size_t count = 0;
	*first = NULL;
	for (size_t i = 0; i < x->g->n_node; i++) {
		const Onnx__NodeProto *n = x->g->node[i];
		for (size_t k = 0; k < n->n_input; k++)
			if (same(n->input[k], name)) {
				if (!count)
					*first = n;
				count++;
			}
	}
	return count;
}

bool ox_is_output(const struct ox *x, const char *name)
{
	for (size_t i = 0; i < x->g->n_output; i++)
		if (same(x->g->output[i]->name, name))
			return true;
	return false;
}

const char *ox_input(const Onnx__NodeProto *n, size_t i)
{
	return i < n->n_input && n->input[i] && n->input[i][0] ? n->input[i] : NULL;
}

const Onnx__AttributeProto *ox_attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (same(n->attribute[i]->name, name))
			return n->attribute[i];
	return NULL;
}

int ox_attrs_allowed(const struct ox *x, const Onnx__NodeProto *n, const char *const *allowed)
{
	for (size_t i = 0; i < n->n_attribute; i++) {
		const char *name = n->attribute[i]->name ? n->attribute[i]->name : "";
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = !strcmp(*a, name);
		if (!ok)
			return ox_node_fail(x, n, "attribute '%s' is not supported", name);
	}
	return 0;
}

static int attr_typed(const struct ox *x, const Onnx__NodeProto *n, const char *name,
		      Onnx__AttributeProto__AttributeType type, const char *tname,
		      const Onnx__AttributeProto **a)
{
	*a = ox_attr(n, name);
	if (*a && (*a)->type != type)
		return ox_node_fail(x, n, "attribute '%s': type %d (expected %s)", name,
				    (int)(*a)->type, tname);
	return 0;
}

int ox_attr_int(const struct ox *x, const Onnx__NodeProto *n, const char *name, int64_t def,
		int64_t *v)
{
	const Onnx__AttributeProto *a;
	int rc = attr_typed(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, "INT", &a);
	*v = a ? a->i : def;
	return rc;
}

int ox_attr_float(const struct ox *x, const Onnx__NodeProto *n, const char *name, float def,
		  float *v)
{
	const Onnx__AttributeProto *a;
	int rc = attr_typed(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, "FLOAT", &a);
	*v = a ? a->f : def;
	return rc;
}

int ox_attr_ints(const struct ox *x, const Onnx__NodeProto *n, const char *name, int64_t *vals,
		 size_t max, size_t *n_vals)
{
	const Onnx__AttributeProto *a;
	int rc = attr_typed(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, "INTS", &a);
	*n_vals = 0;
	if (rc || !a)
		return rc;
	if (a->n_ints > max)
		return ox_node_fail(x, n, "attribute '%s': %zu values (at most %zu supported)",
				    name, a->n_ints, max);
	memcpy(vals, a->ints, a->n_ints * sizeof(*vals));
	*n_vals = a->n_ints;
	return 0;
}

int ox_attr_string(const struct ox *x, const Onnx__NodeProto *n, const char *name, const char *def,
		   char *buf, size_t len)
{
	const Onnx__AttributeProto *a;
	int rc =
	    attr_typed(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, "STRING", &a);
	if (rc)
		return rc;
	if (!a) {
		snprintf(buf, len, "%s", def);
		return 0;
	}
	size_t l = a->s.len < len - 1 ? a->s.len : len - 1;
	memcpy(buf, a->s.data, l);
	buf[l] = '\0';
	return 0;
}

const char *ox_type_name(int32_t type)
{
	switch (type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		return "float";
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
		return "uint8";
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
		return "int8";
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
		return "int32";
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
		return "int64";
	}
	return "an unsupported type";
}

static size_t elem_size(int32_t type)
{
	switch (type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
		return 1;
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
		return 4;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
		return 8;
	}
	return 0;
}

/* Element i of little-endian raw data of type. */
static int64_t raw_int(const uint8_t *p, int32_t type, size_t i)
{
	switch (type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
		return p[i];
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
		return (int8_t)p[i];
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: {
		const uint8_t *b = p + 4 * i;
		return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				 (uint32_t)b[3] << 24);
	}
	default: {
		const uint8_t *b = p + 8 * i;
		uint64_t u = 0;
		for (int k = 7; k >= 0; k--)
			u = u << 8 | b[k];
		return (int64_t)u;
	}
	}
}

/* Largest tensor the importer reads (elements): far above any layer the format takes. */
#define OX_MAX_ELEMS (1u << 28)

int ox_tensor_values(const struct ox *x, const Onnx__NodeProto *n, const char *what,
		     const Onnx__TensorProto *t, struct ox_values *v)
{
	memset(v, 0, sizeof(*v));
	v->type = t->data_type;
	size_t es = elem_size(t->data_type);
	if (!es)
		return ox_node_fail(x, n, "%s: element type %d is %s", what, (int)t->data_type,
				    ox_type_name(t->data_type));
	if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return ox_node_fail(x, n, "%s: external data is not supported", what);
	if (t->n_dims > 8)
		return ox_node_fail(x, n, "%s: rank %zu (at most 8)", what, t->n_dims);
	uint64_t count = 1;
	for (size_t d = 0; d < t->n_dims; d++) {
		if (t->dims[d] < 0 || (uint64_t)t->dims[d] > OX_MAX_ELEMS)
			return ox_node_fail(x, n, "%s: dimension %zu is %lld", what, d,
					    (long long)t->dims[d]);
		count *= (uint64_t)t->dims[d];
		if (count > OX_MAX_ELEMS)
			return ox_node_fail(x, n, "%s: more than %u elements", what, OX_MAX_ELEMS);
		v->dims[d] = t->dims[d];
	}
	v->rank = t->n_dims;
	v->count = (size_t)count;
	bool is_float = t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	size_t have;
	if (t->has_raw_data)
		have = t->raw_data.len / es;
	else if (is_float)
		have = t->n_float_data;
	else if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
		have = t->n_int64_data;
	else
		have = t->n_int32_data;
	if (have != v->count || (t->has_raw_data && t->raw_data.len % es))
		return ox_node_fail(x, n, "%s: %zu values stored for %zu elements (dims)", what,
				    t->has_raw_data ? t->raw_data.len / es : have, v->count);
	size_t bytes = (v->count ? v->count : 1) * (is_float ? sizeof(float) : sizeof(int64_t));
	void *buf = malloc(bytes);
	if (!buf) {
		ox_fail(x, "out of memory for %zu bytes", bytes);
		return -ENOMEM;
	}
	if (is_float) {
		v->floats = buf;
		if (t->has_raw_data)
			for (size_t i = 0; i < v->count; i++) {
				uint32_t u = (uint32_t)raw_int(
				    t->raw_data.data, ONNX__TENSOR_PROTO__DATA_TYPE__INT32, i);
				memcpy(&v->floats[i], &u, 4);
			}
		else if (v->count)
			memcpy(v->floats, t->float_data, v->count * sizeof(float));
		return 0;
	}
	v->ints = buf;
	for (size_t i = 0; i < v->count; i++) {
		if (t->has_raw_data)
			v->ints[i] = raw_int(t->raw_data.data, t->data_type, i);
		else if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
			v->ints[i] = t->int64_data[i];
		else if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8)
			v->ints[i] = (uint8_t)t->int32_data[i];
		else if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT8)
			v->ints[i] = (int8_t)t->int32_data[i];
		else
			v->ints[i] = t->int32_data[i];
	}
	return 0;
}

void ox_values_free(struct ox_values *v)
{
	free(v->ints);
	free(v->floats);
	v->ints = NULL;
	v->floats = NULL;
}

int ox_const_input(const struct ox *x, const Onnx__NodeProto *n, size_t i, const char *what,
		   struct ox_values *v)
{
	memset(v, 0, sizeof(*v));
	const char *name = ox_input(n, i);
	if (!name)
		return ox_node_fail(x, n, "input %zu (%s) is missing", i, what);
	const Onnx__TensorProto *t = ox_const(x, name);
	if (!t)
		return ox_node_fail(x, n,
				    "input %zu (%s) '%s' is not an initializer or Constant "
				    "(missing initializer)",
				    i, what, name);
	return ox_tensor_values(x, n, what, t, v);
}
