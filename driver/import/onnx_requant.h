/* A DOUBLE or SINGLE requantization in ONNX integer operators: written by the export
 * (onnx_requant_export.c, which documents the form) and recognised by the import
 * (onnx_requant_import.c), so that ONNX Runtime reproduces a model quantized for TFLite's
 * rounding bit for bit and the import gives the same model back. Private to driver/import. */
#ifndef TPU_DRIVER_ONNX_REQUANT_H
#define TPU_DRIVER_ONNX_REQUANT_H
#include <stdbool.h>
#include <stdint.h>

#include "onnx_build.h"
#include "onnx_graph.h"
#include "tpu/model.h"
#include "tpu/numerics.h"

/* Layer l's requantization (round DOUBLE or SINGLE) of the int32 tensor acc (NCHW when conv,
 * else (N, C)): its multipliers and shifts, the output zero point and the clamp [qmin, qmax],
 * as int64 operators ending in a Cast to int8. Returns that tensor's name (NULL when out of
 * memory). */
const char *orq_export(struct graph *g, const struct tpu_layer *l, uint32_t layer, const char *acc,
		       bool conv, int32_t qmin, int32_t qmax);

/* What orq_import reads back. */
struct orq {
	enum tpu_round round;
	int32_t *multiplier, *shift; /* out_c each, malloc'ed */
	int32_t zero_point;	     /* -128..127 */
	int32_t lo, hi;		     /* the clamp, -128 <= lo <= hi <= 127 */
	const char *end;	     /* the int8 tensor it ends in */
};

/* The form orq_export writes, from the node cast (a Cast to int64 of the int32 sums of a layer
 * with out_c channels; nchw: the tensor is NCHW, else its channels are its last axis): every
 * node and constant is checked, the per-channel constants' shapes included, and every tensor
 * inside must be read only by the form's nodes. Returns 0, or -EINVAL / -ENOMEM with a message
 * naming the node where the form ends. */
int orq_import(const struct ox *x, const Onnx__NodeProto *cast, uint32_t out_c, bool nchw,
	       struct orq *q);
void orq_free(struct orq *q);

#endif
