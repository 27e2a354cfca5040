/* The parsed ONNX graph as the importer reads it (driver/import): constants, consumers, node
 * attributes, tensor values, and the one-line errors that name a node. Private to
 * driver/import. */
#ifndef TPU_DRIVER_ONNX_GRAPH_H
#define TPU_DRIVER_ONNX_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"

struct ox {
	const Onnx__GraphProto *g;
	char *err;
	size_t errlen;
};

/* Format fmt into the error buffer. Returns -EINVAL. */
__attribute__((format(printf, 2, 3))) int ox_fail(const struct ox *x, const char *fmt, ...);
/* "node 'NAME' (OP): <fmt>", or "node #I (OP): <fmt>" for an unnamed node. Returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int ox_node_fail(const struct ox *x, const Onnx__NodeProto *n,
						       const char *fmt, ...);

/* The initializer or Constant node output called name (NULL if it is neither). */
const Onnx__TensorProto *ox_const(const struct ox *x, const char *name);
/* The node that produces name (NULL for a graph input, an initializer, or none). */
const Onnx__NodeProto *ox_producer(const struct ox *x, const char *name);
/* How many node inputs read name; *first gets the first such node (or NULL). */
size_t ox_consumers(const struct ox *x, const char *name, const Onnx__NodeProto **first);
/* Whether name is one of the graph's outputs. */
bool ox_is_output(const struct ox *x, const char *name);

/* Input i of n, or NULL when absent (beyond n_input, or the empty name of a skipped input). */
const char *ox_input(const Onnx__NodeProto *n, size_t i);

/* Attributes: every attribute of n must be in allowed (NULL-terminated), else an error naming
 * it. */
int ox_attrs_allowed(const struct ox *x, const Onnx__NodeProto *n, const char *const *allowed);
const Onnx__AttributeProto *ox_attr(const Onnx__NodeProto *n, const char *name);
/* Integer attribute (default def when absent); -EINVAL if it has another type. */
int ox_attr_int(const struct ox *x, const Onnx__NodeProto *n, const char *name, int64_t def,
		int64_t *v);
int ox_attr_float(const struct ox *x, const Onnx__NodeProto *n, const char *name, float def,
		  float *v);
/* Integer list attribute: *n_vals values (up to max), or *n_vals = 0 when absent. */
int ox_attr_ints(const struct ox *x, const Onnx__NodeProto *n, const char *name, int64_t *vals,
		 size_t max, size_t *n_vals);
/* String attribute, NUL-terminated into buf (def when absent). */
int ox_attr_string(const struct ox *x, const Onnx__NodeProto *n, const char *name, const char *def,
		   char *buf, size_t len);

/* A tensor's values as numbers: ints for INT8/UINT8/INT32/INT64, floats for FLOAT (the other
 * array NULL). *count = the product of its dims; the data must hold exactly that many. what
 * names it in messages. The caller frees both arrays. */
struct ox_values {
	int32_t type; /* ONNX__TENSOR_PROTO__DATA_TYPE__* */
	size_t count;
	size_t rank;
	int64_t dims[8];
	int64_t *ints;
	float *floats;
};
int ox_tensor_values(const struct ox *x, const Onnx__NodeProto *n, const char *what,
		     const Onnx__TensorProto *t, struct ox_values *v);
void ox_values_free(struct ox_values *v);

/* The constant input i of n as values (an error naming the input when it is missing or not a
 * constant). */
int ox_const_input(const struct ox *x, const Onnx__NodeProto *n, size_t i, const char *what,
		   struct ox_values *v);

const char *ox_type_name(int32_t type);

#endif
