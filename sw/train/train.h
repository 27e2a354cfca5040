/* Training and post-training int8 quantization of the digits models (docs/models.md).
 *
 * Private to sw/train and its tests. Everything here is deterministic: one seeded PRNG, no
 * threads, plain double arithmetic (no -ffast-math). Float results still depend on the
 * platform's libm (exp, log, sqrt) and FP unit, so trained weights are reproducible on one
 * machine and toolchain, not necessarily across them.
 *
 * Layouts follow include/tpu/model.h: activations NHWC, one example after the other; dense and
 * conv weights K x out_c row-major, K ordered (kh, kw, c) for conv (HWIO); a dense layer
 * flattens its input in H, W, C order.
 */
#ifndef TPU_TRAIN_TRAIN_H
#define TPU_TRAIN_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tpu/model.h"

/* ------------------------------------------------------------------ errors (err.c) */

/* Format a message into err (errlen bytes; nothing when err is NULL or errlen 0) and return
 * code: `return tr_fail(err, errlen, -EINVAL, "...", ...);`. */
__attribute__((format(printf, 4, 5))) int tr_fail(char *err, size_t errlen, int code,
						  const char *fmt, ...);

/* ------------------------------------------------------------------ PRNG (rng.c) */

/* splitmix64: the next 64 random bits of *state. */
uint64_t tr_rand_u64(uint64_t *state);
/* Uniform double in [0, 1) with 53 random bits. */
double tr_rand_unit(uint64_t *state);
/* Fisher-Yates shuffle of idx[0..n-1]. */
void tr_shuffle(size_t *idx, size_t n, uint64_t *state);

/* ------------------------------------------------------------------ data (digits.c) */

#define TR_DIGITS_H 8
#define TR_DIGITS_W 8
#define TR_DIGITS_PIXELS 64
#define TR_DIGITS_CLASSES 10
#define TR_DIGITS_MAX_PIXEL 16
/* Split: per class, the examples of that class in file order are numbered 0, 1, 2, ...; those
 * with number % TR_TEST_EVERY == TR_TEST_EVERY - 1 (every 5th) form the test set. */
#define TR_TEST_EVERY 5
/* Refuse files with more rows than this (the real file has 1797). */
#define TR_DIGITS_MAX_ROWS 100000u

struct tr_digits {
	size_t n;   /* examples */
	uint8_t *x; /* n x 64 pixels, 0..16, row-major 8 x 8 */
	uint8_t *y; /* n labels, 0..9 */
};

/* Read a gzip'ed (or plain) CSV of rows "p0,...,p63,label". Returns 0, or -ENOENT/-EIO (cannot
 * read), -EINVAL (a malformed row; err names the line and field), -ENOMEM. On failure *out is
 * empty (nothing to free). */
int tr_digits_load(const char *path, struct tr_digits *out, char *err, size_t errlen);

/* The fixed split above: train and test keep file order. Returns 0 or -ENOMEM (-EINVAL for a
 * label out of range). On failure both outputs are empty. */
int tr_digits_split(const struct tr_digits *all, struct tr_digits *train,
		    struct tr_digits *test);

/* Free the arrays of d and zero it (fine on an empty set). */
void tr_digits_free(struct tr_digits *d);

/* Per-class counts of d's labels into counts[TR_DIGITS_CLASSES]. */
void tr_digits_count(const struct tr_digits *d, size_t counts[TR_DIGITS_CLASSES]);

/* The float input of example i: pixel / 16 for each of the 64 pixels. */
void tr_digits_input(const struct tr_digits *d, size_t i, double *x);

/* ------------------------------------------------------------------ float layers (layers.c) */

/* Dense: y[i][j] = b[j] + sum_k x[i][k] w[k][j], for n examples. */
void tr_dense_forward(const double *x, size_t n, size_t in, size_t out, const double *w,
		      const double *b, double *y);
/* Adds dL/dw into dw and dL/db into db; writes dL/dx into dx unless dx is NULL. */
void tr_dense_backward(const double *x, const double *dy, size_t n, size_t in, size_t out,
		       const double *w, double *dw, double *db, double *dx);

/* 2-D convolution over NHWC with a square kernel, equal stride and zero padding on all sides
 * (in float, padding with 0 is what padding with the input zero point means in int8). */
struct tr_conv_shape {
	size_t in_h, in_w, in_c, out_c;
	size_t k, stride, pad;
};
size_t tr_conv_out_h(const struct tr_conv_shape *s);
size_t tr_conv_out_w(const struct tr_conv_shape *s);
void tr_conv_forward(const struct tr_conv_shape *s, const double *x, size_t n, const double *w,
		     const double *b, double *y);
void tr_conv_backward(const struct tr_conv_shape *s, const double *x, const double *dy, size_t n,
		      const double *w, double *dw, double *db, double *dx);

/* Max-pool, window k x k, stride s, no padding, over NHWC. Backward routes each output's
 * gradient to the first maximum of its window (scan order row, column). */
struct tr_pool_shape {
	size_t in_h, in_w, c;
	size_t k, stride;
};
size_t tr_pool_out_h(const struct tr_pool_shape *s);
size_t tr_pool_out_w(const struct tr_pool_shape *s);
void tr_pool_forward(const struct tr_pool_shape *s, const double *x, size_t n, double *y);
void tr_pool_backward(const struct tr_pool_shape *s, const double *x, const double *dy, size_t n,
		      double *dx);

/* ReLU in place, and its backward given the ReLU's output y: dy[i] = 0 where y[i] <= 0. */
void tr_relu_forward(double *y, size_t count);
void tr_relu_backward(const double *y, double *dy, size_t count);

/* Mean softmax cross-entropy of n rows of logits against labels; writes dL/dlogits (of the
 * mean) into dlogits unless it is NULL. */
double tr_softmax_xent(const double *logits, const uint8_t *labels, size_t n, size_t classes,
		       double *dlogits);

/* Index of the largest of n values (the first on ties). */
size_t tr_argmax(const double *v, size_t n);

/* ------------------------------------------------------------------ network (net.c) */

#define TR_MAX_LAYERS 8

enum tr_kind {
	TR_DENSE = 1,
	TR_CONV = 2,
	TR_POOL = 3,
};

struct tr_layer {
	enum tr_kind kind;
	size_t in_h, in_w, in_c;
	size_t out_h, out_w, out_c;
	size_t k, stride, pad;   /* CONV (kernel, stride, padding), POOL (window, stride) */
	bool relu;               /* CONV, DENSE */
	size_t w_off, b_off;     /* offsets of the weights (K x out_c) and bias in the parameters */
	size_t fan_in;           /* K */
};

struct tr_net {
	size_t in_h, in_w, in_c;
	size_t n_layers;
	struct tr_layer layer[TR_MAX_LAYERS];
	size_t n_params;
	double *param;              /* n_params */
	double *grad;               /* n_params, accumulated by tr_net_backward */
	size_t max_batch;
	double *act[TR_MAX_LAYERS]; /* max_batch x output size of each layer, after ReLU */
	double *scratch[2];         /* backward buffers, max_batch x largest tensor */
};

/* Start an empty network over in_h x in_w x in_c inputs, run in batches of up to max_batch. */
void tr_net_init(struct tr_net *net, size_t in_h, size_t in_w, size_t in_c, size_t max_batch);
/* Append a layer; returns 0 or -EINVAL (too many layers, shape does not fit). */
int tr_net_add_dense(struct tr_net *net, size_t out, bool relu);
int tr_net_add_conv(struct tr_net *net, size_t out_c, size_t k, size_t pad, bool relu);
int tr_net_add_pool(struct tr_net *net, size_t k, size_t stride);
/* Allocate parameters and buffers; weights He-uniform (U(-a, a), a = sqrt(6 / fan_in)) from
 * *rng, biases 0. Returns 0, -EINVAL (no layers) or -ENOMEM. */
int tr_net_alloc(struct tr_net *net, uint64_t *rng);
void tr_net_free(struct tr_net *net);
/* Elements of one example's output of layer l (l < n_layers). */
size_t tr_layer_out_size(const struct tr_layer *l);
/* Run n <= max_batch examples (n x in_h*in_w*in_c); returns the logits (n x classes), valid
 * until the next call. net->act[l] holds every layer's output. */
const double *tr_net_forward(struct tr_net *net, const double *x, size_t n);
/* Backward of the last forward (same x, n): adds the gradients into net->grad. */
void tr_net_backward(struct tr_net *net, const double *x, size_t n, const double *dlogits);
/* Classes of the net (the last layer's output size). */
size_t tr_net_classes(const struct tr_net *net);

/* ------------------------------------------------------------------ optimizer (optim.c) */

/* Adam (Kingma & Ba) with decoupled weight decay (AdamW) applied to every parameter. */
struct tr_adam {
	double beta1, beta2, eps, weight_decay;
	uint64_t t;
	size_t n;
	double *m, *v;
};
int tr_adam_init(struct tr_adam *a, size_t n, double weight_decay);
/* One step with learning rate lr on param given grad. */
void tr_adam_step(struct tr_adam *a, double *param, const double *grad, double lr);
void tr_adam_free(struct tr_adam *a);

/* ------------------------------------------------------------------ training (fit.c) */

struct tr_train_cfg {
	unsigned epochs;
	size_t batch;        /* <= net->max_batch */
	double lr;           /* peak learning rate; cosine decay to 0 over the epochs */
	double weight_decay; /* AdamW decay (times lr) */
	uint64_t seed;       /* shuffling */
	unsigned log_every;  /* print a log line every this many epochs (and the last); 0 none */
};

/* The learning rate of step (0-based) of steps: cosine decay from lr to 0. */
double tr_cosine_lr(double lr, size_t step, size_t steps);

/* Train net on train; logs "epoch, loss, train accuracy, test accuracy" to log (may be NULL).
 * Returns 0 or -ENOMEM/-EINVAL. */
int tr_train(struct tr_net *net, const struct tr_digits *train, const struct tr_digits *test,
	     const struct tr_train_cfg *cfg, FILE *log);

/* ------------------------------------------------------------------ evaluation (eval.c) */

/* Float accuracy of net on d, in [0, 1]; *loss (may be NULL) gets the mean cross-entropy. */
double tr_eval_float(struct tr_net *net, const struct tr_digits *d, double *loss);
/* int8 accuracy of m on d through the reference inference (qref.c). Returns 0 or -errno. */
int tr_eval_int8(const struct tpu_model *m, const struct tr_digits *d, double *accuracy);

/* ------------------------------------------------------------------ quantization (quant.c) */

/* Input quantization of the digits models: pixel / 16 in [0, 1] with scale 1/240 and zero
 * point -128, so a pixel p becomes exactly 15 p - 128 (no rounding tie anywhere). */
#define TR_IN_RANGE 16.0f
#define TR_IN_SCALE (1.0f / 240.0f)
#define TR_IN_ZERO_POINT (-128)

/* Activation quantization from a calibrated range [lo, hi] (0 is added to it):
 * scale = (hi - lo) / 255, zero_point = round(-128 - lo / scale) clamped to int8. */
int tr_quant_range(double lo, double hi, struct tpu_quant *q);

/* Per-channel symmetric weights: w_scale[j] = max_k |w[k][j]| / 127 (1/127 for an all-zero
 * channel), q[k][j] = round(w[k][j] / w_scale[j]) in -127..127. */
void tr_quant_weights(const double *w, size_t k, size_t out_c, int8_t *q, float *w_scale);

/* Bias in int32 at scale in_scale * w_scale[j] (saturated). */
void tr_quant_bias(const double *b, size_t out_c, float in_scale, const float *w_scale,
		   int32_t *q);

/* Per-layer output ranges of net over d (float forward, after ReLU), 0 included:
 * lo[l], hi[l] for each layer. */
void tr_calibrate(struct tr_net *net, const struct tr_digits *d, double *lo, double *hi);

/* Build the int8 model of net (ReLU where the float layer has one, the last layer linear) from
 * the calibrated ranges. *out is malloc'ed (free with tpu_model_free). Returns 0, -EINVAL (err
 * says why) or -ENOMEM. */
int tr_quantize(const struct tr_net *net, const double *lo, const double *hi, const char *name,
		struct tpu_model **out, char *err, size_t errlen);

/* ------------------------------------------------------------------ int8 reference (qref.c) */

/* Quantize raw pixels as tpu_model_quantize_input does: (raw / in_range) / in.scale, rounded
 * half away from zero, + zero point, saturated to int8. */
void tr_quantize_input(const struct tpu_model *m, const uint8_t *raw, size_t count, int8_t *q);

/* Shape of layer i's output. Returns 0 or -EINVAL (unknown type, kernel does not fit). */
int tr_qref_out_shape(const struct tpu_model *m, uint32_t i, size_t *h, size_t *w, size_t *c);

/* Run m on one example with plain loops: int32 accumulation of (x - z_in) * w over the taps
 * inside the image (the same as padding with z_in), then tpu_activate. in has
 * in_h*in_w*in_c values, out gets num_classes. Returns 0, -EINVAL (a layer it cannot run) or
 * -ENOMEM. */
int tr_qref_run(const struct tpu_model *m, const int8_t *in, int8_t *out);

/* ------------------------------------------------------------------ on the device (dev_*.c) */

#include "tpu/train.h"

/* Where the steps' time went, per phase of tr_dev_step: the GEMMs' device figures (summed from
 * ctx.stats) and the phase's wall clock (host work and device together). */
enum tr_dev_phase_id { TR_PHASE_FORWARD, TR_PHASE_BACKWARD, TR_PHASE_UPDATE, TR_PHASES };
struct tr_dev_phase {
	uint64_t gemms, cycles, macs;
	double wall_seconds;
};

/* A net trained on a tpu device in mixed precision (docs/training.md): fp32 master weights
 * (param, laid out as net->param), bf16 copies to the device in every GEMM (tpu/train.h), the
 * optimizer on the host. The net gives the layers (dense, conv, max-pool), the initial weights
 * and, for quantization, the double parameters (tr_dev_export). */
struct tr_dev {
	struct tr_net *net;
	struct tpu_train_ctx ctx;
	struct tpu_optim opt;
	float *param, *grad;        /* net->n_params each */
	float *x;                   /* max_batch x input */
	float *act[TR_MAX_LAYERS];  /* max_batch x each layer's output */
	size_t *argmax[TR_MAX_LAYERS]; /* pool layers: the forward's argmax per output */
	float *d[2];                /* gradient buffers, max_batch x largest tensor */
	uint8_t *y;                 /* max_batch labels */
	struct tr_dev_phase phase[TR_PHASES]; /* summed over every tr_dev_step */
};

/* A data set as the device trainer reads it: n examples of the net's input size, fp32. */
struct tr_dev_data {
	size_t n;
	const float *x;
	const uint8_t *y; /* labels, each below the net's classes */
};

/* Bind net (allocated: tr_net_alloc) to dev with an optimizer. Returns 0, -ENOTSUP (no bf16
 * mode: err says so), -EINVAL, -ENOMEM. */
int tr_dev_init(struct tr_dev *d, struct tr_net *net, tpu_dev *dev, enum tpu_optim_kind opt,
		double weight_decay, char *err, size_t errlen);
void tr_dev_free(struct tr_dev *d);

/* One optimizer step on examples idx[0..n-1] of data (n <= max_batch) at learning rate lr;
 * *loss the batch's mean loss. Returns 0, -EDOM (a non-finite loss: the run diverged), or an
 * error of the device (err says what). */
int tr_dev_step(struct tr_dev *d, const struct tr_dev_data *data, const size_t *idx, size_t n,
		double lr, double *loss, char *err, size_t errlen);

/* Accuracy (and mean loss, may be NULL) of the device forward pass over all of data. */
int tr_dev_eval(struct tr_dev *d, const struct tr_dev_data *data, double *accuracy, double *loss,
		char *err, size_t errlen);

/* Index of the largest of n fp32 values (the first on ties), as tr_argmax. */
size_t tr_dev_argmax(const float *v, size_t n);

/* Copy the fp32 master weights into net->param (for tr_calibrate / tr_quantize). */
void tr_dev_export(struct tr_dev *d);

/* ------------------------------------------------------------------ checkpoints (ckpt.c) */

/* A training checkpoint (docs/training.md "Checkpoint format"): a NumPy .npz (zip, stored)
 * holding meta.npy (uint64, TR_CKPT_META values), param.npy (float32 master weights), m.npy
 * (float32: SGD velocity or Adam's first moment) and, for AdamW, v.npy (second moment). */
#define TR_CKPT_VERSION 1
enum tr_ckpt_meta {
	TR_META_VERSION, TR_META_MODEL, TR_META_EPOCH, TR_META_STEP, TR_META_OPTIM,
	TR_META_OPTIM_T, TR_META_RNG, TR_META_SEED, TR_META_PARAMS, TR_META_BATCH,
	TR_META_EPOCHS, TR_META_LR_BITS, /* the learning rate, IEEE double bits */
	TR_CKPT_META
};
/* TR_META_MODEL values */
#define TR_MODEL_MLP 1
#define TR_MODEL_CNN 2
#define TR_MODEL_FILE 3 /* the layer shapes of a model file (tpu train --model FILE) */

struct tr_ckpt {
	uint64_t meta[TR_CKPT_META];
	size_t n;                  /* meta[TR_META_PARAMS] */
	float *param, *m, *v;      /* n each; v NULL unless meta[TR_META_OPTIM] is AdamW */
};

/* Write c to path atomically (temp file and rename: the old file stays whole on any failure);
 * sha256 (may be NULL) gets the file's SHA-256 as 64 hex digits. Returns 0 or -errno (err
 * says why). */
int tr_ckpt_save(const char *path, const struct tr_ckpt *c, char sha256[65], char *err,
		 size_t errlen);

/* Read and validate path into *c (arrays malloc'ed: tr_ckpt_free). Every structural fault is
 * -EINVAL with err naming it: not a zip, a truncated file, a CRC mismatch, a missing member,
 * a member whose header is not the expected dtype and shape, an unknown version, model or
 * optimizer. -ENOENT/-EIO when the file cannot be read, -ENOMEM. */
int tr_ckpt_load(const char *path, struct tr_ckpt *c, char *err, size_t errlen);
void tr_ckpt_free(struct tr_ckpt *c);

/* The SHA-256 of len bytes as 64 hex digits and a NUL. */
void tr_sha256_hex(const void *data, size_t len, char out[65]);

#endif /* TPU_TRAIN_TRAIN_H */
