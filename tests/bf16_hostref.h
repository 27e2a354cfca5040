/* The host-float reference of the bf16 numerics (docs/spec.md 7.1), shared by the tests that
 * check the model against it (test_bf16_ieee.c, test_golden_bf16.c): every operation recomputed
 * with the host's IEEE-754 binary32 arithmetic (x86-64 SSE, round to nearest even, no FMA
 * contraction: each host operation is a single +, * stored to a volatile), with the documented
 * flush-to-zero applied to its inputs and results and NaNs made canonical. Values are bit
 * patterns, as in tpu/bf16.h; nothing here calls the model's arithmetic. */
#ifndef TPU_TESTS_BF16_HOSTREF_H
#define TPU_TESTS_BF16_HOSTREF_H

#include <stdint.h>

#include "tpu/bf16.h"

/* The input rule with the host's classification: a subnormal becomes the zero of its sign. */
float hr_ftz(float f);
/* A host result as the model returns it: flushed, any NaN canonical. */
uint32_t hr_result(float f);
/* A bf16 operand as the host float it reads as (flushed). */
float hr_bf16_in(uint16_t a);

uint32_t hr_add(uint32_t a, uint32_t b);                /* tpu_f32_add */
uint32_t hr_mul(uint16_t a, uint16_t b);                /* tpu_bf16_mul */
uint32_t hr_mac(uint32_t acc, uint16_t a, uint16_t b);  /* tpu_bf16_mac */
uint32_t hr_mul32(uint32_t a, uint32_t b);              /* tpu_f32_mul */
uint32_t hr_bf16_to_f32(uint16_t a);                    /* tpu_bf16_to_f32 */
uint16_t hr_to_bf16(uint32_t u);                        /* tpu_f32_to_bf16 */

#endif /* TPU_TESTS_BF16_HOSTREF_H */
