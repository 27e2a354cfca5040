/* B zero points (struct tpu_gemm_params b_zero_point): the device computes the raw int32
 * (A - z) . B + bias; the host subtracts zb[j] x S[i], S[i] = sum_k (A[i][k] - z), in wrapping
 * int32 arithmetic (exact whenever the true sum fits int32, which the K limit ensures), and
 * requantizes with the golden numerics (tpu_activate: the device's own pipeline, in C).
 * Why not on the device: zb[j] x S[i] differs per row and per column, so no bias can carry it,
 * and B - zb spans -255..255, which no int8 weight tile holds (two tiles cannot hold 255 either:
 * 127 + 127 is the most). */
#include <errno.h>
#include <stdlib.h>

#include "gemm_priv.h"
#include "tpu/numerics.h"

/* S[i] for every row of op(A), stored m x k (lda) or, transposed, k x m. */
static void row_sums(const struct tpu_gemm_desc *d, size_t lda, int32_t z, int64_t *s)
{
	const int8_t *a = d->a;

	for (size_t i = 0; i < d->m; i++)
		s[i] = 0;
	if (d->trans_a == TPU_TRANS_T) {
		for (size_t kk = 0; kk < d->k; kk++)
			for (size_t i = 0; i < d->m; i++)
				s[i] += a[kk * lda + i] - z;
	} else {
		for (size_t i = 0; i < d->m; i++)
			for (size_t kk = 0; kk < d->k; kk++)
				s[i] += a[i * lda + kk] - z;
	}
}

int gemm_bzp_run(tpu_dev *dev, const struct tpu_gemm_desc *d, const size_t ld[3],
		 const struct tpu_gemm_params *p)
{
	bool q8 = p->quant_channels != 0;
	size_t m = d->m, n = d->n, ldc = ld[2];
	int64_t *sums = malloc(m * sizeof(*sums));
	int32_t *raw = q8 ? malloc(m * n * sizeof(*raw)) : NULL;
	int err;

	if (!sums || (q8 && !raw)) {
		free(sums);
		free(raw);
		return -ENOMEM;
	}
	/* the device's part: raw int32, into C itself when C is raw (with ACCUMULATE too) */
	struct tpu_gemm_desc dr = *d;
	struct tpu_gemm_params pr;
	size_t ldr[3] = {ld[0], ld[1], q8 ? n : ldc};
	tpu_gemm_params_init(&pr);
	pr.in_zero_point = p->in_zero_point;
	pr.bias = p->bias;
	if (q8) {
		dr.c = raw;
		dr.ldc = n;
	}
	err = gemm_run_checked(dev, &dr, ldr, &pr);
	if (err)
		goto out;
	row_sums(d, ld[0], p->in_zero_point, sums);
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < n; j++) {
			int32_t zb = p->b_zero_point[p->b_zp_channels == 1 ? 0 : j];
			int32_t *c = q8 ? &raw[i * n + j] : &((int32_t *)d->c)[i * ldc + j];
			/* wrapping int32: c - zb x S[i] */
			uint32_t x = (uint32_t)*c - (uint32_t)((int64_t)zb * sums[i]);
			if (!q8) {
				*c = (int32_t)x;
				continue;
			}
			size_t qc = p->quant_channels == 1 ? 0 : j;
			struct tpu_act_channel ch = {0, p->multiplier[qc], p->shift[qc]};
			struct tpu_act_output o = {p->out_zero_point, p->clamp_min, p->clamp_max,
						   p->lut, p->round};
			((int8_t *)d->c)[i * ldc + j] = tpu_activate((int32_t)x, &ch, &o, NULL);
		}
	}
out:
	free(sums);
	free(raw);
	return err;
}
