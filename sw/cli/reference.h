/* An independent, naive reference for the device GEMM (docs/spec.md §7), used by
 * `tpu selftest` and the tests. It is written from the spec's formulas with exact 64-bit
 * integer arithmetic and deliberately shares no code with the golden model or the driver
 * (it never calls tpu_requantize or tpu_activate): agreement between the two is the check.
 * Pure functions, thread-safe. */
#ifndef TPU_CLI_REFERENCE_H
#define TPU_CLI_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/tpu.h"

/* SaturatingRoundingDoublingHighMul as the spec writes it: floor((a*b + 2^30) / 2^31), with
 * INT32_MIN * INT32_MIN saturating to INT32_MAX. */
int32_t ref_srdhm(int32_t a, int32_t b);

/* RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero; exponent 0..31. */
int32_t ref_rdbpot(int32_t x, int exponent);

/* MultiplyByQuantizedMultiplier: x * 2^max(shift,0) (wrapping int32), ref_srdhm with
 * multiplier, then ref_rdbpot by max(-shift,0). shift in -31..30. */
int32_t ref_requantize(int32_t x, int32_t multiplier, int shift);

/* out = f((A - p->in_zero_point) · B + bias) exactly as struct tpu_gemm_params documents it:
 * A m x k and B k x n int8 row-major; out int32 m x n (quant_channels 0) or int8 m x n.
 * p may be NULL (raw, no bias, zero points 0). Returns 0, or -EINVAL for NULL pointers,
 * quant_channels not 0, 1 or n, or a parameter out of its documented range. */
int ref_gemm(size_t m, size_t k, size_t n, const int8_t *a, const int8_t *b,
	     const struct tpu_gemm_params *p, void *out);

#endif /* TPU_CLI_REFERENCE_H */
