/* GEMM overflow limit; see gemm_limits.h. */
#include <errno.h>
#include <stdio.h>

#include "gemm_limits.h"
#include "tpu/numerics.h"

uint64_t tpu_gemm_k_limit(int32_t z)
{
	/* a - z lies in [-128 - z, 127 - z] and b in [-128, 127]: for z >= 0 the largest product
	 * is (-128 - z)(-128) = 128 (128 + z), for z < 0 the most negative one is
	 * (127 - z)(-128) = -128 (127 + |z|), and int32 holds 2^31 - 1 above zero, 2^31 below */
	if (z == 0)
		return TPU_K_NO_OVERFLOW;
	if (z > 0)
		return 0x7FFFFFFFull / (128ull * (uint64_t)(128 + z));
	return 0x80000000ull / (128ull * (uint64_t)(127 - z));
}

int tpu_gemm_check_range(tpu_dev *dev, size_t k, int32_t z)
{
	uint64_t lim = tpu_gemm_k_limit(z);

	if (k <= lim)
		return 0;
	if (z == 0)
		snprintf(dev->gemm_err, sizeof(dev->gemm_err),
			 "k: %zu exceeds the K limit %u (TPU_K_NO_OVERFLOW): a sum of more int8 "
			 "products can overflow int32",
			 k, TPU_K_NO_OVERFLOW);
	else
		snprintf(dev->gemm_err, sizeof(dev->gemm_err),
			 "k: %zu exceeds %llu, the K limit with in_zero_point %d: a sum of more "
			 "(a - z) x b products can overflow int32",
			 k, (unsigned long long)lim, (int)z);
	return -ERANGE;
}

/* The largest |v - z| over int8 v. */
static uint64_t max_offset(int32_t z)
{
	return (uint64_t)(z >= 0 ? 128 + z : 127 - z);
}

int tpu_gemm_check_range_bzp(tpu_dev *dev, size_t k, int32_t z, const int32_t *zb, size_t count)
{
	uint64_t worst = 0;
	int err = tpu_gemm_check_range(dev, k, z);

	if (err)
		return err;
	for (size_t j = 0; j < count; j++)
		if (max_offset(zb[j]) > worst)
			worst = max_offset(zb[j]);
	uint64_t lim = 0x7FFFFFFFull / (max_offset(z) * worst);
	if (k <= lim)
		return 0;
	snprintf(dev->gemm_err, sizeof(dev->gemm_err),
		 "k: %zu exceeds %llu, the K limit with in_zero_point %d and B zero points up to "
		 "%llu away from int8's ends: a sum of more (a - z) x (b - zb) products can "
		 "overflow int32",
		 k, (unsigned long long)lim, (int)z, (unsigned long long)worst);
	return -ERANGE;
}
