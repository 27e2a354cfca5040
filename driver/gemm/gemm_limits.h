/* The overflow limit of a GEMM (docs/ops.md "Overflow"), checked on the host before a command is
 * built, by every entry point (tpu_gemm; conv2d and dense reach the device through it). */
#ifndef TPU_GEMM_LIMITS_H
#define TPU_GEMM_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* The largest K for which sum_k (a - z) . b over int8 a, b can never leave int32: 131071
 * (TPU_K_NO_OVERFLOW) for z = 0, 65793 for z = 127 and for z = -128. */
uint64_t tpu_gemm_k_limit(int32_t in_zero_point);

/* 0, or -ERANGE with the reason in dev->gemm_err when k exceeds tpu_gemm_k_limit(z). */
int tpu_gemm_check_range(tpu_dev *dev, size_t k, int32_t in_zero_point);

/* The same for sum_k (a - z) . (b - zb) with B zero points zb (count values): K times the
 * largest |a - z| times the largest |b - zb| must fit int32, and the device's own sum
 * (tpu_gemm_check_range) too. */
int tpu_gemm_check_range_bzp(tpu_dev *dev, size_t k, int32_t in_zero_point, const int32_t *zb,
			     size_t count);

#endif /* TPU_GEMM_LIMITS_H */
