/* Building an ONNX model with protobuf-c (the export, driver/import/onnx_export.c): one arena
 * for every allocation, a graph of nodes and initializers appended in order. Private to
 * driver/import. */
#ifndef TPU_DRIVER_ONNX_BUILD_H
#define TPU_DRIVER_ONNX_BUILD_H
#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"

/* Every allocation of one export, freed together. */
struct arena {
	void **p;
	size_t n, cap;
	int oom;
};

/* The graph under construction: nodes and initializers, appended (capacities fixed by the
 * model's size). */
struct graph {
	struct arena *a;
	Onnx__NodeProto **node;
	size_t n_node, cap_node;
	Onnx__TensorProto **init;
	size_t n_init, cap_init;
};

/* size zeroed bytes owned by a (NULL, and a->oom set, when out of memory or already out). */
void *ob_alloc(struct arena *a, size_t size);
void ob_arena_free(struct arena *a);
/* A formatted string of up to 63 characters, owned by a. */
__attribute__((format(printf, 2, 3))) char *ob_str(struct arena *a, const char *fmt, ...);

/* An initializer: dims, ONNX data type and raw little-endian bytes (copied). */
void ob_tensor(struct graph *g, const char *name, const int64_t *dims, size_t n_dims, int type,
	       const void *data, size_t bytes);

/* Scalar (rank 0) initializers. */
void ob_scalar_f32(struct graph *g, const char *name, float v);
void ob_scalar_i8(struct graph *g, const char *name, int32_t v);

/* A node with inputs (a NULL-terminated list), one output and the attributes added after. */
Onnx__NodeProto *ob_node(struct graph *g, const char *op, const char *domain, const char *out,
			 const char *const *in);

/* An INTS attribute (count values) or, with count 0, the INT attribute v[0]. */
void ob_attr(struct graph *g, Onnx__NodeProto *n, const char *name, const int64_t *v, size_t count);

#endif
