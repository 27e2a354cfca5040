/* Quantized models: the in-memory form, the versioned file format (docs/model-format.md), and
 * inference on a tpu device through the ops library (include/tpu/ops.h).
 *
 * A model is a chain of layers over one NHWC int8 tensor: CONV2D, MAXPOOL2D, DENSE, AVGPOOL2D
 * (format 2) (a DENSE
 * layer flattens its input in H, W, C order). Quantization per design.md §3: weights int8
 * with one scale per output channel (and, format 2, optional zero points per tensor or per
 * output channel), activations int8 with (scale, zero point), bias
 * int32 with scale in_scale x w_scale[j] and NOT folded (the input zero point is folded when the
 * layer runs). multiplier/shift are QuantizeMultiplier(in_scale x w_scale[j] / out_scale) and
 * are checked against the scales on load: QuantizeMultiplier(double ratio) for the DOUBLE and
 * SINGLE rounding modes, tpu_float_multiplier(fp32 ratio) for FLOAT (struct tpu_layer.round).
 *
 * Loading validates everything (magic, version, sizes, checksums, shapes chaining from layer to
 * layer, value ranges, multiplier/shift consistency): a truncated, corrupt or inconsistent file
 * gives -EINVAL (or -EIO/-ENOMEM) and a message naming the layer and field, never a crash.
 */
#ifndef TPU_MODEL_H
#define TPU_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/ops.h"
#include "tpu/tpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TPU_MODEL_MAX_LAYERS 32
#define TPU_MODEL_NAME_MAX 32

enum tpu_layer_type {
	TPU_LAYER_CONV2D = 1,
	TPU_LAYER_MAXPOOL2D = 2,
	TPU_LAYER_DENSE = 3,
	TPU_LAYER_AVGPOOL2D = 4, /* format 2: tpu_avgpool2d (include/tpu/ops.h) */
};

/* Element type of the model's quantized input or output as its user sees it. A UINT8 tensor
 * with zero point z is stored and run as the int8 tensor q - 128 with zero point z - 128 (the
 * same real values); tpu run converts at the edges (docs/model-format.md). */
enum tpu_model_io_type {
	TPU_IO_INT8 = 0,
	TPU_IO_UINT8 = 1,
	TPU_IO_INT32 = 2, /* output only (format 2.2): the last layer, a CONV2D or DENSE, is not
			   * requantized: it outputs its int32 sums (x - z_in) . (w - zb) + bias
			   * (ONNX MatMulInteger / ConvInteger); tpu_model_run_i32 runs it */
};

/* The order in which the model's user gives its input and takes its output (struct
 * tpu_model io_layout, format 2.1; tpu run and tpu.Model reorder at the edges). The device
 * always runs NHWC; without a flag a tensor is NHWC (or flat in H, W, C order). */
enum tpu_io_layout {
	TPU_LAYOUT_IN_NCHW = 1,	 /* the input is (B, C, H, W) (flat: C, H, W order), e.g. an
				  * ONNX graph's 4-D input */
	TPU_LAYOUT_OUT_NCHW = 2, /* the output is (B, C, H, W) of the last layer's h x w x c */
};

/* How tpu_model_quantize_input rounds raw / in_range / in.scale to an integer. */
enum tpu_input_round {
	TPU_INPUT_ROUND_AWAY = 0, /* half away from zero (roundf): the shipped models */
	TPU_INPUT_ROUND_EVEN = 1, /* half to even: ONNX QuantizeLinear */
};

/* Quantization of an activation tensor: real = scale x (q - zero_point). */
struct tpu_quant {
	float scale;        /* > 0, finite */
	int32_t zero_point; /* -128..127 */
};

struct tpu_layer {
	uint32_t type;            /* enum tpu_layer_type */
	/* CONV2D: kernel, stride, padding (filled with the input zero point; each pad below the
	 * dilated kernel's size, (kernel - 1) x dilation + 1).
	 * MAXPOOL2D, AVGPOOL2D: kernel = pool window, stride, pads (each below the window; not
	 * part of any window; non-zero pads need format 2). DENSE: all 0. */
	uint32_t kernel_h, kernel_w;
	uint32_t stride_h, stride_w;
	uint32_t pad_top, pad_bottom, pad_left, pad_right;
	uint32_t out_c;           /* CONV2D output channels, DENSE output features; pools 0 */
	uint32_t act;             /* enum tpu_activation (CONV2D, DENSE); MAXPOOL2D 0; AVGPOOL2D
				   * NONE, RELU or RELU6 in TFLITE mode (its clamp), NONE in
				   * ONNXRT mode */
	/* CONV2D / DENSE only (NULL for the pools); owned by the model. */
	int8_t *weights;          /* K x out_c row-major; K = kernel_h*kernel_w*in_c/groups
				   * (HWIO) or in_h*in_w*in_c for DENSE */
	int32_t *bias;            /* out_c */
	float *w_scale;           /* out_c, > 0 */
	int32_t *multiplier;      /* out_c, QuantizeMultiplier(in.scale*w_scale[j]/out.scale) */
	int32_t *shift;           /* out_c */
	struct tpu_quant out;     /* output quantization (MAXPOOL2D and AVGPOOL2D in TFLITE mode:
				   * equal to its input's) */
	int8_t lut[256];          /* act SIGMOID/TANH: tpu_act_lut(); otherwise all 0 */
	uint32_t round;           /* enum tpu_round (tpu/numerics.h) of the requantization,
				   * CONV2D/DENSE; pools 0. Non-zero needs format 2 */
	/* Weight (B) zero points, CONV2D/DENSE (format 2): the layer computes
	 * (x - z_in) . (w - zb[j]) with zb[j] = b_zero_point[0] (b_zp_count 1) or
	 * b_zero_point[j] (b_zp_count out_c); b_zp_count 0 (b_zero_point NULL): none. Each
	 * -128..127 (uint8 weights with zero point z are stored as w - 128 with z - 128).
	 * Owned by the model. */
	uint32_t b_zp_count;
	int32_t *b_zero_point;
	/* CONV2D (format 2; 0 for the other types): dilation 0 or 1 none, else tap (ky, kx) reads
	 * input pixel (oy*stride_h - pad_top + ky*dilation_h, ...); groups 0 or 1 one, else in_c
	 * and out_c are multiples of it and the weights are (kernel_h*kernel_w*in_c/groups) x
	 * out_c, output channel o seeing the input channels of its group (struct
	 * tpu_conv2d_shape; depthwise: groups = in_c). */
	uint32_t dilation_h, dilation_w;
	uint32_t groups;
	/* Pools (format 2; 0 for the other types): ceil_mode 0 or 1 (struct tpu_pool2d_shape);
	 * AVGPOOL2D: avg_mode (enum tpu_avgpool_mode) and avg_flags (TPU_AVGPOOL_*: COUNT_PAD in
	 * ONNXRT mode, UINT8 in both) as tpu_avgpool2d takes them; MAXPOOL2D 0. */
	uint32_t ceil_mode;
	uint32_t avg_mode;
	uint32_t avg_flags;
};

struct tpu_model {
	char name[TPU_MODEL_NAME_MAX];  /* NUL-terminated, e.g. "digits-mlp" */
	uint32_t in_h, in_w, in_c;      /* input tensor per example */
	struct tpu_quant in;            /* input quantization */
	float in_range;                 /* raw input values are divided by this before quantizing
					 * (digits: 16, pixel counts 0..16); > 0 */
	uint32_t num_classes;           /* = elements of the last layer's output */
	/* Figures recorded when the model was built (metadata, not used for inference):
	 * accuracy on the documented test split in float and int8 (golden device), in [0, 1]. */
	float float_accuracy;
	float int8_accuracy;
	uint32_t n_layers;              /* 1..TPU_MODEL_MAX_LAYERS */
	struct tpu_layer layers[TPU_MODEL_MAX_LAYERS];
	/* Format 2 only (all 0 in a 1.0 file): */
	uint32_t in_type;               /* enum tpu_model_io_type of the quantized input */
	uint32_t out_type;              /* enum tpu_model_io_type of the last layer's output
					 * (INT32, format 2.2: an int32 output layer, whose
					 * multiplier and shift are 0, act NONE, round DOUBLE,
					 * out = (1, 0); real value in.scale x w_scale[j] x y) */
	uint32_t in_round;              /* enum tpu_input_round */
	/* Format 2.1 (0 in older files): */
	uint32_t io_layout;             /* enum tpu_io_layout flags; 0: NHWC in and out */
};

/* Load and validate a model file. On failure *out is NULL and err (if non-NULL, errlen > 0)
 * holds a one-line reason ("layer 2 (DENSE): weights: need 640 bytes, file has 12").
 * Returns 0, -EINVAL (bad or inconsistent content), -EIO (read error), -ENOENT, -ENOMEM. */
TPU_MUST_CHECK int tpu_model_load(const char *path, struct tpu_model **out, char *err,
				  size_t errlen);
/* The same from memory (the buffer is not kept). */
TPU_MUST_CHECK int tpu_model_load_mem(const void *data, size_t len, struct tpu_model **out,
				      char *err, size_t errlen);

/* Validate m (everything tpu_model_load checks, except the file framing). */
TPU_MUST_CHECK int tpu_model_validate(const struct tpu_model *m, char *err, size_t errlen);

/* Write m (validated first) to path through tpu/outfile.h: a regular file is replaced by rename
 * only when the new one is complete and synced, a device or FIFO is written in place, and a
 * failure leaves whatever was at path untouched. Byte-for-byte reproducible for the same model.
 * Returns 0, -EINVAL, -EIO. */
TPU_MUST_CHECK int tpu_model_save(const struct tpu_model *m, const char *path, char *err,
				  size_t errlen);

/* Free a model and every array it owns (NULL is fine). Models built by hand must allocate their
 * arrays with malloc for this to apply. */
void tpu_model_free(struct tpu_model *m);

/* Shape of layer i's output (i < n_layers) or, with i = n_layers - 1, of the model's output. */
void tpu_model_layer_out_shape(const struct tpu_model *m, uint32_t i, uint32_t *h, uint32_t *w,
			       uint32_t *c);

/* Quantize count raw input values (divided by in_range, then by in.scale, in float, rounded as
 * in_round says, + zero point, saturated to int8). The result is the int8 form also for a
 * UINT8 input (add 128 for the uint8 values). */
void tpu_model_quantize_input(const struct tpu_model *m, const float *raw, size_t count,
			      int8_t *q);

/* Per-layer figures of a run, from the device's performance counters (tpu_perf). */
struct tpu_layer_stats {
	uint64_t cycles;
	uint64_t mxu_busy_cycles;
	uint64_t macs;            /* useful MACs of the layer (unpadded) */
	uint64_t dma_read_bytes;
	uint64_t dma_write_bytes;
	double wall_seconds;
};
struct tpu_model_stats {
	uint32_t n_layers;
	struct tpu_layer_stats layer[TPU_MODEL_MAX_LAYERS];
	struct tpu_layer_stats total;
};

/* Run m on batch examples: in is batch x (in_h*in_w*in_c) int8 (already quantized), out is
 * batch x num_classes int8 (the last layer's output). Large batches are split as the device's
 * buffers require. stats may be NULL. Returns 0, -EINVAL (NULL, batch 0, a model with an
 * INT32 output: tpu_model_run_i32), -ENOMEM, or what tpu_gemm returns. */
TPU_MUST_CHECK int tpu_model_run(tpu_dev *dev, const struct tpu_model *m, size_t batch,
				 const int8_t *in, int8_t *out, struct tpu_model_stats *stats);
/* The same for a model whose out_type is TPU_IO_INT32: out is batch x num_classes int32 (the
 * last layer's sums). -EINVAL for any other model. */
TPU_MUST_CHECK int tpu_model_run_i32(tpu_dev *dev, const struct tpu_model *m, size_t batch,
				     const int8_t *in, int32_t *out,
				     struct tpu_model_stats *stats);

/* m->io_layout and m->out_type, for bindings that mirror only the leading fields of struct
 * tpu_model (0 for NULL). */
uint32_t tpu_model_io_layout(const struct tpu_model *m);
uint32_t tpu_model_out_type(const struct tpu_model *m);

/* Index of the largest of n values (the first on ties). */
size_t tpu_argmax_i8(const int8_t *v, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* TPU_MODEL_H */
