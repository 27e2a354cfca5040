/* The GEMM reference of the driver tests: a naive C implementation written from the contract
 * in include/tpu/tpu.h and the requantization in docs/spec.md §7 (int64 sums, exact
 * requantization, nothing of the driver's code), and random cases for it. */
#ifndef TPU_TESTS_GEMM_REF_H
#define TPU_TESTS_GEMM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/tpu.h"

/* A random GEMM: A m x k, B k x n (row-major, packed), the parameter vectors and p using them. */
struct gcase {
	size_t m, k, n;
	int8_t *a, *b, lut[256];
	int32_t *bias, *mult, *shift, *bzp;
	struct tpu_gemm_params p;
};

/* Random operands and parameters (q8: int8 output, per tensor or per channel, sometimes the
 * LUT; else int32 output; any rounding mode; sometimes B zero points), from *seed (advanced). */
void gemm_ref_make_case(uint64_t *seed, struct gcase *g, size_t m, size_t k, size_t n, int q8);
void gemm_ref_free_case(struct gcase *g);

/* d's C from d's stored A and B (leading dimensions 0 = packed, transposes, accumulate into
 * what C holds), writing only the m x n elements of C. */
void gemm_ref(const struct tpu_gemm_desc *d, const struct tpu_gemm_params *p);

/* FLOAT rounding by the host's IEEE binary32 arithmetic (the outside reference of
 * TPU_ROUND_FLOAT): fp32(x) times scale, rounded half to even (nearbyintf in the default
 * rounding mode), saturated to int32. */
int32_t ref_float_requant(int32_t x, float scale);

/* gemm_ref of packed, untransposed A (m x k) and B (k x n) into out (m x n). */
void gemm_ref_plain(size_t m, size_t k, size_t n, const int8_t *a, const int8_t *b,
		    const struct tpu_gemm_params *p, void *out);

#endif /* TPU_TESTS_GEMM_REF_H */
