/* Private helpers shared by the ops library sources (driver/ops_*.c). */
#ifndef TPU_DRIVER_OPS_PRIV_H
#define TPU_DRIVER_OPS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "tpu/ops.h"

/* Format a message into dev->ops_err (dev may be NULL: then nothing is kept). Returns -EINVAL. */
__attribute__((format(printf, 2, 3))) int tpu_ops_reject(tpu_dev *dev, const char *fmt, ...);

/* Empty dev->ops_err at the start of an op. */
void tpu_ops_clear_error(tpu_dev *dev);

/* Keep the message of a failed tpu_gemm() (its -EINVAL) as the op's own message. */
void tpu_ops_take_gemm_error(tpu_dev *dev);

/* *out = a * b; false (and *out untouched) when the product passes SIZE_MAX. */
static inline bool tpu_ops_mul(size_t a, size_t b, size_t *out)
{
	size_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return false;
	*out = r;
	return true;
}

#endif /* TPU_DRIVER_OPS_PRIV_H */
