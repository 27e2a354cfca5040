/* Quantization parameters, weights and biases of ONNX nodes in the tpu model's terms. Private
 * to driver/import. */
#ifndef TPU_DRIVER_ONNX_QUANT_H
#define TPU_DRIVER_ONNX_QUANT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "onnx_graph.h"

/* An activation's quantization in int8 form: a uint8 tensor (u8) with zero point z is the int8
 * tensor q - 128 with zero point z - 128. */
struct oq_params {
	float scale;
	int32_t zp; /* -128..127 */
	bool u8;
};

/* Inputs i_scale (one finite float > 0) and i_zp (one int8/uint8; absent: uint8 0, ONNX's
 * default) of n; what names them ("x", "y"). */
int oq_params(const struct ox *x, const Onnx__NodeProto *n, size_t i_scale, size_t i_zp,
	      const char *what, struct oq_params *q);
/* The same parameters, bit for bit. */
bool oq_same(const struct oq_params *a, const struct oq_params *b);

/* Where a weight tensor and its quantization are: constant inputs i_w, i_scale (SIZE_MAX: none,
 * scale 1), i_zp (the zero point may be absent) of node, rank the weights must have, chan_axis their output-channel
 * axis, and the node's 'axis' attribute when given (per-channel scales must follow
 * chan_axis). */
struct oq_weight_src {
	const Onnx__NodeProto *node;
	size_t i_w, i_scale, i_zp;
	size_t rank, chan_axis;
	bool axis_given;
	int64_t axis;
	/* rank 2 only: a 3-D (batch, K, N) tensor whose batch slices are all equal (a batched
	 * MatMul's B that is one matrix) is taken as that (K, N) matrix */
	bool batch_ok;
};
/* Weights as int8 in their ONNX order, with out_c scales and their zero points in int8 form
 * (uint8 weights w with zero point z: w - 128 and z - 128): zp_count 0 when every zero point is
 * 0 (zp NULL), 1 per tensor, out_c per output channel. */
struct oq_weights {
	int8_t *w;
	float *scale;
	int32_t *zp;
	size_t out_c, count, rank, zp_count;
	int64_t dims[8];
};
/* Read the weights: int8 or uint8 with any zero point of their type, per tensor or per output
 * channel. */
int oq_weights(const struct ox *x, const struct oq_weight_src *src, struct oq_weights *w);
void oq_weights_free(struct oq_weights *w);

/* Constant int32 bias input i of n with out_c values into *bias (malloc'ed). */
int oq_bias(const struct ox *x, const Onnx__NodeProto *n, size_t i, size_t out_c, int32_t **bias);

#endif
