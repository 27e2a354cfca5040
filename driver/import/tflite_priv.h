/* The TFLite importer's shared state and helpers (tflite_import.c: the model walk and the
 * operators at the edges; tflite_layers.c: the layers). Private to driver/import. */
#ifndef TPU_TFLITE_PRIV_H
#define TPU_TFLITE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflite_fb.h"
#include "tpu/import.h"

/* An activation tensor's quantization in int8 form (uint8: q - 128, zero point - 128). */
struct tq {
	float scale;
	int32_t zp;
	bool u8;
};

struct tl {
	const struct tfl_model *f;
	struct tpu_model *m;
	enum tpu_tflite_kernels kernels;
	char *err;
	size_t errlen;
	uint32_t layer_op[TPU_MODEL_MAX_LAYERS]; /* the operator behind each layer */
	int32_t batch;				 /* the input's first dimension */
	/* the tensor the chain has reached */
	int32_t cur;
	bool quantized; /* false: the float graph input, before its QUANTIZE */
	struct tq q;
	uint32_t h, w, c; /* per example, NHWC (a 2-D tensor: 1 x 1 x features) */
	bool spatial;	  /* the shape is what the last layer (or the input) gives: a CONV2D or
			   * pool may follow; false after a RESHAPE that changed it */
};

#define NO_OP UINT32_MAX

/* Errors: the whole message, or "operator I (OPCODE): <fmt>" (just <fmt> for i = NO_OP); both
 * return -EINVAL. */
__attribute__((format(printf, 2, 3))) int tl_fail(const struct tl *t, const char *fmt, ...);
__attribute__((format(printf, 3, 4))) int tl_op_fail(const struct tl *t, uint32_t i,
						     const char *fmt, ...);
const char *tl_op_name(const struct tl *t, uint32_t i);
const struct tfl_tensor *tl_tensor(const struct tl *t, int32_t i);
const char *tl_type_name(int32_t type);
/* Input k of operator i (NULL and an error when absent; -1 marks an omitted optional input). */
const struct tfl_tensor *tl_op_input(const struct tl *t, uint32_t i, uint32_t k, const char *what,
				     int *rc);
int tl_op_output(const struct tl *t, uint32_t i, const struct tfl_tensor **y);
int tl_act_quant(const struct tl *t, uint32_t i, const struct tfl_tensor *x, const char *what,
		 struct tq *q);
int tl_zp_user(const struct tq *q);
int tl_same_q(const struct tl *t, uint32_t i, const struct tq *yq);
/* A constant tensor's data: exactly elems values of elem_size bytes. */
int tl_const_data(const struct tl *t, uint32_t i, const struct tfl_tensor *x, const char *what,
		  size_t elems, size_t elem_size, const uint8_t **data);
int tl_check_out_shape(const struct tl *t, uint32_t i, const struct tfl_tensor *y, uint32_t h,
		       uint32_t w, uint32_t c);
int tl_need_options(const struct tl *t, uint32_t i, uint8_t type, const char *name);
int tl_need_spatial(struct tl *t, uint32_t i);
struct tpu_layer *tl_new_layer(struct tl *t, uint32_t i, uint32_t type);

/* The layers (tflite_layers.c): each advances the chain (t->cur, shape) past operator i. */
int tl_lower_conv(struct tl *t, uint32_t i, bool depthwise);
int tl_lower_fc(struct tl *t, uint32_t i);
int tl_lower_pool(struct tl *t, uint32_t i, bool avg);

#endif
