/* Import of quantized ONNX and TFLite models into tpu models (docs/import.md).
 *
 * ONNX:
 *
 * The graph must be one chain from one input to one output, in either of ONNX's quantized
 * forms: QOperator (QuantizeLinear of a float input, or an int8/uint8 input; QLinearConv,
 * QLinearMatMul with a constant B, com.microsoft QGemm, MaxPool, com.microsoft
 * QLinearAveragePool and QLinearGlobalAveragePool, Flatten/Reshape to 2-D, a trailing
 * DequantizeLinear) or QDQ (DequantizeLinear -> Conv/MatMul/Gemm with DequantizeLinear'd
 * constant weights and int32 bias -> optional Relu/Clip -> QuantizeLinear; DequantizeLinear ->
 * AveragePool/GlobalAveragePool -> QuantizeLinear). These layers requantize with
 * TPU_ROUND_FLOAT, ONNX Runtime's arithmetic, so that tpu_model_run gives ONNX Runtime's
 * outputs element for element. MatMulInteger and ConvInteger (then optionally an Add of an
 * int32 constant, folded into the bias) become the model's int32 output layer (out_type
 * INT32, tpu_model_run_i32), or, followed by the integer requantization that tpu_export_onnx
 * writes, a DOUBLE or SINGLE layer again. Tensors stay NHWC on the device: the
 * model's input and output are the ONNX tensors transposed from NCHW (DENSE weights are
 * permuted so that a Flatten of an NCHW tensor computes the same products), and the model's
 * io_layout records which of them ONNX has as NCHW (4-D), for tpu run and tpu.Model to
 * reorder. A MatMul of a
 * batched 3-D input (batch, M, K) by a constant B (K, N) is a 1x1 CONV2D over the example held
 * as M x 1 x K, giving (batch, M, N) as M x 1 x N.
 *
 * The file is parsed with protobuf-c from ONNX's own schema; a file that is not an ONNX model,
 * is truncated or corrupt, or uses anything outside what is listed above gives -EINVAL and
 * one line naming the node (its name, or #index when it has none), its op type and the
 * attribute or input at fault; nothing is ever partly imported. */
#ifndef TPU_IMPORT_H
#define TPU_IMPORT_H

#include <stddef.h>

#include "tpu/model.h"
#include "tpu/tpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Import the ONNX model in the len bytes at data. name (NULL: the graph's name, else "onnx")
 * becomes the model's name, cut to TPU_MODEL_NAME_MAX - 1 printable bytes. On success *out is
 * a valid model (tpu_model_validate) for tpu_model_save / tpu_model_run, to be freed with
 * tpu_model_free; on failure *out is NULL and err (if non-NULL, errlen > 0) says why.
 * Returns 0, -EINVAL or -ENOMEM. */
TPU_MUST_CHECK int tpu_import_onnx_mem(const void *data, size_t len, const char *name,
				       struct tpu_model **out, char *err, size_t errlen);

/* The same from a file. Returns 0, -ENOENT, -EIO, -EINVAL or -ENOMEM. */
TPU_MUST_CHECK int tpu_import_onnx(const char *path, const char *name, struct tpu_model **out,
				   char *err, size_t errlen);

/* TFLite: an int8 (or legacy uint8) model of one subgraph that is one chain from one input to
 * one output: an optional QUANTIZE of a float input (or of a uint8 input to int8 with the same
 * scale), then CONV_2D and DEPTHWISE_CONV_2D (any dilation), FULLY_CONNECTED, MAX_POOL_2D,
 * AVERAGE_POOL_2D (TFLite's reference kernel) and RESHAPE with fused NONE/RELU/RELU6/RELU_N1_TO_1 activations (where the model format's
 * clamps give the same bounds), per-tensor or per-channel int8 weights, and an optional
 * trailing DEQUANTIZE (or QUANTIZE of the int8 output to uint8 with the same scale). Tensors are
 * NHWC as in TFLite. The file is verified with flatbuffers' Verifier against TFLite's own schema
 * (the subset that is read) before any field is read; anything outside the above gives -EINVAL
 * and one line naming the operator's index, its opcode name and the option, field or tensor at
 * fault; nothing is ever partly imported.
 *
 * Each layer's rounding mode is chosen so that tpu_model_run gives the outputs of the LiteRT
 * kernel set named by kernels, element for element (docs/import.md, "TFLite"): */
enum tpu_tflite_kernels {
	/* LiteRT's reference kernels (the BUILTIN_REF op resolver), the default: CONV_2D
	 * requantizes with TPU_ROUND_DOUBLE; FULLY_CONNECTED rounds once, ties away from zero,
	 * which TPU_ROUND_SINGLE reproduces where no tie can occur (a layer whose multipliers
	 * allow a tie is refused) */
	TPU_TFLITE_REFERENCE = 0,
	/* LiteRT's default CPU path (the BUILTIN op resolver with its default XNNPACK delegate):
	 * every layer TPU_ROUND_FLOAT */
	TPU_TFLITE_XNNPACK = 1,
};

/* Import the TFLite model in the len bytes at data (see above). name (NULL: the subgraph's
 * name, else "tflite") becomes the model's name. As tpu_import_onnx_mem otherwise. */
TPU_MUST_CHECK int tpu_import_tflite_mem(const void *data, size_t len, const char *name,
					 enum tpu_tflite_kernels kernels, struct tpu_model **out,
					 char *err, size_t errlen);

/* The same from a file. Returns 0, -ENOENT, -EIO, -EINVAL or -ENOMEM. */
TPU_MUST_CHECK int tpu_import_tflite(const char *path, const char *name,
				     enum tpu_tflite_kernels kernels, struct tpu_model **out,
				     char *err, size_t errlen);

/* Export m (validated first) as an ONNX model that ONNX Runtime runs with m's arithmetic, bit
 * for bit (docs/import.md "Export"): an int8 NCHW input; FLOAT layers as QLinearConv or
 * Flatten and com.microsoft QGemm (ReLU through the output saturation or DequantizeLinear ->
 * Relu -> QuantizeLinear); DOUBLE and SINGLE layers as ConvInteger or MatMulInteger, the bias
 * Add and the requantization in int64 operators, with the float scales in metadata_props
 * "tpu.scales"; MaxPool; the last layer's int8 output. tpu_import_onnx reads every form back
 * into the same model. *data (malloc'd, the caller frees it) holds the serialized model.
 * Returns 0, -EINVAL (a layer ONNX cannot express, e.g. a SIGMOID LUT; err names it) or
 * -ENOMEM. */
TPU_MUST_CHECK int tpu_export_onnx_mem(const struct tpu_model *m, void **data, size_t *len,
				       char *err, size_t errlen);

/* The same into a file, replaced only when the whole export is written (tpu/outfile.h).
 * Returns 0, -EINVAL, -ENOMEM or -EIO. */
TPU_MUST_CHECK int tpu_export_onnx(const struct tpu_model *m, const char *path, char *err,
				   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* TPU_IMPORT_H */
