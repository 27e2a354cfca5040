/* Private helpers shared by the training ops (driver/train/train_*.c). */
#ifndef TPU_DRIVER_TRAIN_PRIV_H
#define TPU_DRIVER_TRAIN_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/train.h"

/* Grow the buffer whose pointer bufp points at (a float ** or uint16_t **; *cap elements of esz
 * bytes) to hold n elements; the contents are not kept. Returns 0 or -ENOMEM (the buffer then
 * NULL and *cap 0). */
int train_reserve(void *bufp, size_t *cap, size_t n, size_t esz);

/* tpu_train_gemm, counting macs (the MACs of the product the op asked for, which a GEMM that
 * computes more than that, the grouped conv2d dW, exceeds) in ctx->stats and the trace. */
int train_gemm_counted(struct tpu_train_ctx *ctx, enum tpu_trans trans_a,
		       enum tpu_trans trans_b, size_t m, size_t n, size_t k, const float *a,
		       const float *b, const float *bias, float *c, uint64_t macs);

/* db (cols) = the column sums of dy (rows x cols), fp32, rows in order. */
void train_col_sums(const float *dy, size_t rows, size_t cols, float *db);

#endif /* TPU_DRIVER_TRAIN_PRIV_H */
