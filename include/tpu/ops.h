/* Neural-network operators on the tpu, built on tpu_gemm_ex() (include/tpu/tpu.h).
 *
 * Tensors are int8, NHWC (batch, height, width, channels), densely packed, with TFLite int8
 * semantics (design.md §3): weights symmetric (zero point 0, per-channel or per-tensor scales),
 * activations with a zero point. Every device op runs on any backend (golden, sim) and gives the
 * same bytes on each; host-side ops (max-pool, im2col, LUT construction) are plain C.
 *
 * Conventions as in tpu.h: 0 / -errno / positive device status; on -EINVAL,
 * tpu_ops_last_error(dev) (or the op's err buffer for host-only ops) names the field and limit.
 */
#ifndef TPU_OPS_H
#define TPU_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/tpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shape of a 2-D convolution over an NHWC input. Padding is filled with the input zero point
 * (params->in_zero_point), so that padded taps contribute nothing after zero-point folding. */
struct tpu_conv2d_shape {
	size_t batch;                  /* >= 1 */
	size_t in_h, in_w, in_c;       /* >= 1 */
	size_t out_c;                  /* >= 1 */
	size_t kernel_h, kernel_w;     /* >= 1 */
	size_t stride_h, stride_w;     /* >= 1 */
	size_t pad_top, pad_bottom;    /* < the dilated kernel's height, (kernel_h-1)*dil_h+1 */
	size_t pad_left, pad_right;    /* < the dilated kernel's width */
	size_t dilation_h, dilation_w; /* 0 or 1: none; tap (ky, kx) reads input pixel
					* (oy*stride_h - pad_top + ky*dilation_h, ...) */
	size_t groups;                 /* 0 or 1: one; else in_c and out_c are multiples of it and
					* output channel o sees input channels [g*in_c/groups,
					* (g+1)*in_c/groups) of its group g = o / (out_c/groups);
					* depthwise: groups = in_c */
};

/* Output height/width of s (0 when the shape is invalid or the kernel does not fit). */
size_t tpu_conv2d_out_h(const struct tpu_conv2d_shape *s);
size_t tpu_conv2d_out_w(const struct tpu_conv2d_shape *s);

/* im2col on the host: in (NHWC) -> cols, a (batch*out_h*out_w) x (kernel_h*kernel_w*in_c)
 * row-major matrix, taps ordered (kh, kw, c), padding taps = pad_value; with dilation; every
 * input channel (groups do not change it). Returns 0 or -EINVAL (NULL, bad shape). */
TPU_MUST_CHECK int tpu_im2col(const struct tpu_conv2d_shape *s, const int8_t *in, int8_t pad_value,
			      int8_t *cols);

/* conv2d on the device: out (NHWC, batch x out_h x out_w x out_c) =
 * tpu_gemm(im2col(in), w, p), w being (kernel_h*kernel_w*in_c/groups) x out_c row-major (taps
 * ordered (kh, kw, c), HWIO; column o holds the taps of its group's channels). p as for tpu_gemm
 * (bias / multiplier / shift per output channel or per tensor, quant_channels 0 gives int32
 * output). With groups, as many groups as fill the array's width run as one GEMM with a
 * block-diagonal weight matrix (one group at a time with B zero points, where the zeros would
 * not be zeros). Returns as tpu_gemm. */
TPU_MUST_CHECK int tpu_conv2d(tpu_dev *dev, const struct tpu_conv2d_shape *s, const int8_t *in,
			      const int8_t *w, const struct tpu_gemm_params *p, void *out);

/* Dense (fully connected) layer: out[b][j] = f(sum_i (in[b][i] - z_in) * w[i][j] + bias[j]),
 * w in_features x out_features row-major. Same as tpu_gemm(dev, batch, in_f, out_f, ...). */
TPU_MUST_CHECK int tpu_dense(tpu_dev *dev, size_t batch, size_t in_features, size_t out_features,
			     const int8_t *in, const int8_t *w, const struct tpu_gemm_params *p,
			     void *out);

/* Pooling over NHWC int8 on the host (the device has no pooling unit yet). Output (oy, ox)
 * pools input rows oy*stride_h - pad_top .. + pool_h - 1 and the columns likewise, clipped to
 * the input: padded taps are never part of a window. out_h = floor((in_h + pad_top +
 * pad_bottom - pool_h) / stride_h) + 1, or with ceil_mode the ceiling, less one when that last
 * window would start at or after in_h + pad_top (ONNX's rule: no window starts in the end
 * padding); likewise out_w. The fields after stride_w are new; zero keeps the plain pool. */
struct tpu_pool2d_shape {
	size_t batch, in_h, in_w, channels;
	size_t pool_h, pool_w;         /* >= 1; pool_h <= in_h + pad_top + pad_bottom, likewise w */
	size_t stride_h, stride_w;     /* >= 1 */
	size_t pad_top, pad_bottom;    /* each < pool_h */
	size_t pad_left, pad_right;    /* each < pool_w */
	int ceil_mode;                 /* 0 or 1 */
};
/* Max-pool: the largest in-bounds value of each window. Returns 0 or -EINVAL. */
TPU_MUST_CHECK int tpu_maxpool2d(const struct tpu_pool2d_shape *s, const int8_t *in, int8_t *out);
/* Output height and width of s: 0, or -EINVAL (s NULL, a size 0, a pad not below its window, a
 * window larger than the padded input, ceil_mode not 0/1, a tensor whose size overflows). */
TPU_MUST_CHECK int tpu_pool2d_out(const struct tpu_pool2d_shape *s, size_t *out_h, size_t *out_w);

/* Average pooling: whose arithmetic, bit for bit (docs/ops.md "Pooling"). */
enum tpu_avgpool_mode {
	/* TFLite's reference AVERAGE_POOL_2D (int8 and uint8): the integer sum of the window's
	 * in-bounds taps divided by their count, rounded half away from zero, then clamped.
	 * Input and output share one quantization (TFLite requires it); scales and zero points
	 * are not used. */
	TPU_AVGPOOL_TFLITE = 0,
	/* ONNX Runtime's QLinearAveragePool (com.microsoft; what it runs for a QDQ AveragePool):
	 * fp32 dequantization, an fp32 sum divided by the tap count, requantized with
	 * nearbyintf(y / out_scale + out_zero_point) in fp32; a window of the whole input
	 * without padding takes ONNX Runtime's integer global average pool instead. */
	TPU_AVGPOOL_ONNXRT = 1,
};
#define TPU_AVGPOOL_COUNT_PAD 1u /* ONNXRT: divide by pool_h * pool_w (count_include_pad) */
#define TPU_AVGPOOL_UINT8 2u	 /* the runtime's tensors are uint8: the int8 values here are
				  * q - 128 and the zero points and clamp their int8 form, but
				  * the rounding is done on the uint8 values, as the runtime does */
struct tpu_avgpool2d_params {
	enum tpu_avgpool_mode mode;
	unsigned flags;                        /* TPU_AVGPOOL_*; TFLITE: UINT8 only */
	float in_scale, out_scale;             /* ONNXRT: finite, > 0 */
	int32_t in_zero_point, out_zero_point; /* ONNXRT: -128..127 (int8 form) */
	int32_t clamp_min, clamp_max;          /* -128 <= min <= max <= 127 (int8 form): TFLite's
						* fused activation; -128, 127 for none */
};
/* Average-pool in (NHWC, s's shape) into out (batch x out_h x out_w x channels). Returns 0 or
 * -EINVAL with err (if non-NULL, errlen > 0) naming the field and its limit. */
TPU_MUST_CHECK int tpu_avgpool2d(const struct tpu_pool2d_shape *s,
				 const struct tpu_avgpool2d_params *p, const int8_t *in,
				 int8_t *out, char *err, size_t errlen);

/* Activation functions applied through the activation pipeline's clamp and LUT. */
enum tpu_activation {
	TPU_ACT_NONE = 0,
	TPU_ACT_RELU = 1,    /* clamp at the output zero point */
	TPU_ACT_RELU6 = 2,   /* clamp to [z, z + round(6 / scale)] within int8 */
	TPU_ACT_SIGMOID = 3, /* LUT */
	TPU_ACT_TANH = 4,    /* LUT */
};

/* Clamp bounds of act for an output quantized with (scale, zero_point): NONE/SIGMOID/TANH give
 * -128..127, RELU zero_point..127, RELU6 zero_point..min(127, zero_point + round(6/scale)).
 * Returns 0 or -EINVAL. */
TPU_MUST_CHECK int tpu_act_clamp(enum tpu_activation act, float scale, int32_t zero_point,
				 int32_t *qmin, int32_t *qmax);

/* The 256-entry LUT of a sigmoid or tanh: entry v + 128 (v = the int8 pre-activation, quantized
 * with (in_scale, in_zero_point)) = the function's value quantized with (out_scale,
 * out_zero_point), rounded half away from zero and saturated to int8. Deterministic (double
 * arithmetic). Returns 0 or -EINVAL (act not SIGMOID/TANH, a scale <= 0 or not finite). */
TPU_MUST_CHECK int tpu_act_lut(enum tpu_activation act, float in_scale, int32_t in_zero_point,
			       float out_scale, int32_t out_zero_point, int8_t lut[256]);

/* Why the last op on dev rejected its arguments (empty string if it did not). */
const char *tpu_ops_last_error(tpu_dev *dev);

#ifdef __cplusplus
}
#endif
#endif /* TPU_OPS_H */
