/* A TensorFlow Lite model file as plain C structs: the thin C++ shim tflite_fb.cc verifies the
 * buffer with flatbuffers' Verifier (the reader flatc generates from tflite_schema.fbs), then
 * copies the fields the importer reads. Everything else of the import is C (tflite_import.c).
 * Private to driver/import. */
#ifndef TPU_DRIVER_TFLITE_FB_H
#define TPU_DRIVER_TFLITE_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TFL_MAX_RANK 8

/* Values of the schema's enums that the importer names (tflite_schema.fbs) */
enum {
	TFL_FLOAT32 = 0,
	TFL_INT32 = 2,
	TFL_UINT8 = 3,
	TFL_INT64 = 4,
	TFL_INT8 = 9,
};
enum {
	TFL_OP_AVERAGE_POOL_2D = 1,
	TFL_OP_CONV_2D = 3,
	TFL_OP_DEPTHWISE_CONV_2D = 4,
	TFL_OP_DEQUANTIZE = 6,
	TFL_OP_FULLY_CONNECTED = 9,
	TFL_OP_MAX_POOL_2D = 17,
	TFL_OP_RESHAPE = 22,
	TFL_OP_QUANTIZE = 114,
};
enum {
	TFL_OPT_NONE = 0,
	TFL_OPT_CONV2D = 1,
	TFL_OPT_DEPTHWISE_CONV2D = 2,
	TFL_OPT_POOL2D = 5,
	TFL_OPT_FULLY_CONNECTED = 8,
	TFL_OPT_RESHAPE = 17,
	TFL_OPT_DEQUANTIZE = 38,
	TFL_OPT_QUANTIZE = 89,
};
enum { TFL_PAD_SAME = 0, TFL_PAD_VALID = 1 };
enum {
	TFL_ACT_NONE = 0,
	TFL_ACT_RELU = 1,
	TFL_ACT_RELU_N1_TO_1 = 2,
	TFL_ACT_RELU6 = 3,
};

struct tfl_tensor {
	char name[64];	/* cut to fit, NUL-terminated */
	int32_t type;	/* TensorType */
	uint32_t rank;	/* entries of shape (a larger rank is refused by the shim) */
	bool has_shape; /* the shape field is present */
	int32_t shape[TFL_MAX_RANK];
	uint32_t buffer; /* index into the model's buffers; 0: none (by convention) */
	/* quantization (n_scale = n_zero_point = 0 when absent) */
	uint32_t n_scale, n_zero_point;
	float *scale;
	int64_t *zero_point;
	int32_t quantized_dimension;
	uint8_t quant_details; /* QuantizationDetails type: 0 none */
	bool is_variable;
	bool sparse;		  /* sparsity present */
	uint32_t external_buffer; /* 0: none */
};

/* The options of an operator, by options_type; fields another type does not have stay 0. */
struct tfl_options {
	int32_t padding, stride_w, stride_h;
	int32_t dilation_w, dilation_h; /* Conv2D, DepthwiseConv2D (defaults 1) */
	int32_t depth_multiplier;	/* DepthwiseConv2D */
	int32_t filter_w, filter_h;	/* Pool2D */
	int32_t act;			/* fused_activation_function */
	int32_t weights_format;		/* FullyConnected */
	bool keep_num_dims, asymmetric_quantize_inputs;
	int32_t quantized_bias_type; /* Conv2D, FullyConnected */
	bool has_quant_spec;	     /* FullyConnected quant_spec present */
	uint32_t n_new_shape;	     /* Reshape */
	bool has_new_shape;
	int32_t new_shape[TFL_MAX_RANK];
};

struct tfl_operator {
	uint32_t opcode_index;
	uint32_t n_inputs, n_outputs;
	int32_t *inputs, *outputs;
	uint8_t options_type; /* BuiltinOptions type */
	struct tfl_options opt;
	bool has_custom_options;
};

struct tfl_opcode {
	int32_t builtin; /* max(deprecated_builtin_code, builtin_code), as LiteRT reads it */
	int32_t version;
	bool custom; /* custom_code present */
};

struct tfl_buffer {
	size_t size;		   /* bytes of data */
	uint8_t *data;		   /* NULL when size is 0 */
	uint64_t offset, ext_size; /* data stored outside the flatbuffer (refused) */
};

struct tfl_model {
	uint32_t version;
	uint32_t n_subgraphs;
	char name[64]; /* subgraph 0's name, cut to fit */
	uint32_t n_opcodes, n_buffers;
	struct tfl_opcode *opcodes;
	struct tfl_buffer *buffers;
	/* subgraph 0 */
	uint32_t n_tensors, n_inputs, n_outputs, n_ops;
	struct tfl_tensor *tensors;
	int32_t *inputs, *outputs;
	struct tfl_operator *ops;
};

/* Verify the len bytes at data as a TFLite model (file identifier "TFL3") and copy subgraph 0
 * into *out (free with tfl_free). Returns 0; -EINVAL with a one-line reason in err (a buffer
 * that is not a valid TFLite flatbuffer, a tensor of rank above TFL_MAX_RANK, a model without
 * subgraphs); -ENOMEM. */
int tfl_parse(const void *data, size_t len, struct tfl_model **out, char *err, size_t errlen);
void tfl_free(struct tfl_model *m);

/* Upstream's name of a BuiltinOperator or TensorType value ("" when unknown). */
const char *tfl_op_name(int32_t builtin);
const char *tfl_type_name(int32_t type);

#ifdef __cplusplus
}
#endif
#endif
