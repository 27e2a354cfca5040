/* Training operators on the tpu: the forward and backward passes of dense and conv2d layers,
 * max-pool, ReLU, softmax cross-entropy, and the optimizers (SGD with momentum, AdamW) on fp32
 * master weights (docs/training.md).
 *
 * Mixed precision as design.md §8: tensors on the host are fp32 (float); every matrix product
 * runs on the device through tpu_gemm_ex() with TPU_DTYPE_BF16 (operands rounded to bf16 with
 * tpu_f32_to_bf16, fp32 sums in the device's order, docs/spec.md 7.1); elementwise work runs on
 * the host in fp32 in a fixed order. The host part is the same code on every backend, so the same
 * calls on golden:bf16=1 and on a sim device with the bf16 mode give the same bits whenever the
 * devices do. Layouts: row-major, one example after the other; dense weights in x out.
 *
 * Conventions as in tpu.h: 0 / -errno / positive device status; on -EINVAL ctx->err names the
 * field and the limit. Not thread-safe: one context per device and thread.
 */
#ifndef TPU_TRAIN_H
#define TPU_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/ops.h"
#include "tpu/tpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a step's time went: the device's counters summed over every GEMM, and host seconds
 * (wall clock of everything else the ops did: conversions, elementwise work, optimizer). */
struct tpu_train_stats {
	uint64_t gemms;
	uint64_t cycles;          /* PERF_CYCLES summed over the GEMMs */
	uint64_t mxu_busy_cycles;
	uint64_t macs;            /* of the products the ops compute: m x n x k of each GEMM, but
				   * k x out_c x pixels for conv2d's grouped dW (whose GEMM does
				   * g times that, see tpu_train_conv2d_backward) */
	double device_seconds;    /* wall clock spent inside tpu_gemm_ex */
	double host_seconds;      /* wall clock of the ops' host work */
};

/* One GEMM as tpu_train_gemm ran it (the optional trace of struct tpu_train_ctx); macs as
 * in struct tpu_train_stats. */
struct tpu_train_gemm_rec {
	enum tpu_trans trans_a, trans_b;
	size_t m, n, k;
	uint64_t cycles, macs;
};

/* A device, the bf16 staging buffers of its GEMMs and the conv ops' im2col buffers. */
struct tpu_train_ctx {
	tpu_dev *dev;
	uint32_t array_n;
	uint16_t *a16, *b16;      /* bf16 copies of the operands */
	size_t a_cap, b_cap;      /* elements */
	float *col, *dcol;        /* im2col matrix and its gradient (conv2d) */
	size_t col_cap, dcol_cap; /* elements */
	struct tpu_train_stats stats;
	/* When trace is not NULL, each GEMM appends its record while trace_len < trace_cap (the
	 * caller owns the array; the ops only fill it). */
	struct tpu_train_gemm_rec *trace;
	size_t trace_len, trace_cap;
	char err[256];
};

/* Bind ctx to dev (which must have the bf16 mode: FEATURES.BF16). Returns 0, -ENOTSUP (no bf16
 * mode; ctx->err says so), or the error of tpu_get_info. ctx owns nothing of dev. */
TPU_MUST_CHECK int tpu_train_init(struct tpu_train_ctx *ctx, tpu_dev *dev);
/* Free the staging buffers (fine on a zeroed or failed ctx). */
void tpu_train_free(struct tpu_train_ctx *ctx);

/* C (m x n, fp32) = op(A) · op(B) on the device in bf16 x bf16 -> fp32, A and B fp32 rounded
 * to bf16 on the way: op(A) m x k (stored k x m with trans_a), op(B) k x n (stored n x k with
 * trans_b), packed rows. bias (n values or NULL) is added on the device after the last K-tile.
 * Returns 0, -EINVAL (a dimension 0, a NULL pointer), -ENOMEM, or tpu_gemm_ex's error. */
TPU_MUST_CHECK int tpu_train_gemm(struct tpu_train_ctx *ctx, enum tpu_trans trans_a,
				  enum tpu_trans trans_b, size_t m, size_t n, size_t k,
				  const float *a, const float *b, const float *bias, float *c);

/* Dense forward: y (batch x out) = x (batch x in) · w (in x out) + b. */
TPU_MUST_CHECK int tpu_train_dense_forward(struct tpu_train_ctx *ctx, size_t batch, size_t in,
					   size_t out, const float *x, const float *w,
					   const float *b, float *y);

/* Dense backward given dy (batch x out): dw (in x out) = xᵀ · dy and dx (batch x in) = dy · wᵀ
 * on the device (trans_a / trans_b, no host transpose); db (out) = the column sums of dy on the
 * host (fp32, rows in order). dw, db and dx are written, not accumulated; dx may be NULL (the
 * first layer). */
TPU_MUST_CHECK int tpu_train_dense_backward(struct tpu_train_ctx *ctx, size_t batch, size_t in,
					    size_t out, const float *x, const float *w,
					    const float *dy, float *dw, float *db, float *dx);

/* ------------------------------------------------------------------ conv2d and max-pool */

/* conv2d over fp32 NHWC tensors, shaped as include/tpu/ops.h's struct tpu_conv2d_shape (batch
 * included; padding taps are 0): the im2col matrix on the host, col (batch*out_h*out_w rows,
 * kernel_h*kernel_w*in_c columns, taps ordered (kh, kw, c)), its products on the device.
 * Weights (kernel_h*kernel_w*in_c) x out_c, HWIO, as the int8 tpu_conv2d. The output rows of
 * the GEMM are already NHWC. Flatten (conv or pool output into a dense layer) is no op: an NHWC
 * example is the dense layer's input row, in H, W, C order.
 *
 * tpu_train_im2col writes col; tpu_train_col2im writes dx (NHWC, batch x in_h x in_w x in_c) =
 * the sum, per input element, of the col entries that read it (its adjoint). Both return 0 or
 * -EINVAL (a NULL pointer, a shape tpu_conv2d_out_h rejects, dilation or groups: the training
 * convolutions have neither). */
TPU_MUST_CHECK int tpu_train_im2col(const struct tpu_conv2d_shape *s, const float *x,
				    float *col);
TPU_MUST_CHECK int tpu_train_col2im(const struct tpu_conv2d_shape *s, const float *col,
				    float *dx);

/* conv2d forward: y (batch*out_h*out_w x out_c, NHWC) = im2col(x) · w + b on the device (b may
 * be NULL). Returns 0, -EINVAL (a bad shape or NULL pointer: ctx->err names the field), -ENOMEM,
 * or tpu_gemm_ex's error. */
TPU_MUST_CHECK int tpu_train_conv2d_forward(struct tpu_train_ctx *ctx,
					    const struct tpu_conv2d_shape *s, const float *x,
					    const float *w, const float *b, float *y);

/* conv2d backward given dy (as y): dw = im2col(x)ᵀ · dy (trans_a) and dcol = dy · wᵀ
 * (trans_b) on the device, then dx = col2im(dcol) on the host; db = the column sums of dy
 * (host, fp32, rows in order). im2col(x) is recomputed, not kept from the forward pass. When
 * out_c leaves array columns idle, dw's GEMM reads g consecutive output pixels as one row
 * (g = the most, up to N / out_c, dividing the pixel count and leaving a full K-tile): each
 * entry is then the fp32 sum, in order, of the g device sums over the pixels of one residue
 * mod g (docs/training.md "Backward against forward"). dw, db and dx are written, not
 * accumulated; dx may be NULL (the first layer). Returns as the forward. */
TPU_MUST_CHECK int tpu_train_conv2d_backward(struct tpu_train_ctx *ctx,
					     const struct tpu_conv2d_shape *s, const float *x,
					     const float *w, const float *dy, float *dw, float *db,
					     float *dx);

/* Max-pool over fp32 NHWC on the host (struct tpu_pool2d_shape, no padding, output
 * (in - pool) / stride + 1 per axis): y the maximum of each window and argmax its offset in x
 * (the first maximum in scan order row, column; a NaN is never the maximum unless the whole
 * window is). Backward: dx (as x) = 0 but dx[argmax[i]] += dy[i], in output order. Both return
 * 0 or -EINVAL (a NULL pointer, a pad or ceil_mode, a shape tpu_pool2d_out rejects; backward
 * also an argmax outside the input, dx then partly written). */
TPU_MUST_CHECK int tpu_train_maxpool_forward(const struct tpu_pool2d_shape *s, const float *x,
					     float *y, size_t *argmax);
TPU_MUST_CHECK int tpu_train_maxpool_backward(const struct tpu_pool2d_shape *s,
					      const size_t *argmax, const float *dy, float *dx);

/* ReLU in place, and its backward given the ReLU's output y: dy[i] = 0 where y[i] <= 0. */
void tpu_train_relu_forward(float *y, size_t count);
void tpu_train_relu_backward(const float *y, float *dy, size_t count);

/* Mean softmax cross-entropy of batch rows of logits (batch x classes) against labels; *loss
 * the mean, dlogits (may be NULL) its gradient (softmax - onehot) / batch. Computed in double
 * per row, stored as fp32. Returns 0, -EINVAL (a label >= classes: err names the row), -EDOM (a
 * logit is NaN or infinite: err names the row). err may be NULL. */
TPU_MUST_CHECK int tpu_train_softmax_xent(const float *logits, const uint8_t *labels,
					  size_t batch, size_t classes, float *loss,
					  float *dlogits, char *err, size_t errlen);

/* ------------------------------------------------------------------ optimizers */

enum tpu_optim_kind {
	TPU_OPTIM_SGD = 1,   /* v = momentum v + g + wd p; p -= lr v */
	TPU_OPTIM_ADAMW = 2, /* Adam (Kingma & Ba) with decoupled weight decay (Loshchilov) */
};

/* Optimizer state over one flat fp32 parameter vector of n values. m is SGD's velocity or
 * Adam's first moment, v Adam's second moment (NULL for SGD). */
struct tpu_optim {
	enum tpu_optim_kind kind;
	size_t n;
	double momentum;     /* SGD */
	double beta1, beta2, eps;
	double weight_decay;
	uint64_t t;          /* steps taken */
	float *m, *v;
};

/* Defaults: SGD momentum 0.9; Adam betas 0.9, 0.999, eps 1e-8; weight_decay as given; state
 * zero. Returns 0, -EINVAL (unknown kind, n 0), -ENOMEM. */
TPU_MUST_CHECK int tpu_optim_init(struct tpu_optim *o, enum tpu_optim_kind kind, size_t n,
				  double weight_decay);
/* One step with learning rate lr: param (fp32 master weights) updated from grad in a fixed
 * order (index order, double arithmetic per element, stored as fp32). */
void tpu_optim_step(struct tpu_optim *o, float *param, const float *grad, double lr);
void tpu_optim_free(struct tpu_optim *o);

#ifdef __cplusplus
}
#endif
#endif /* TPU_TRAIN_H */
