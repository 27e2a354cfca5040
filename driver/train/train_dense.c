/* Dense layers forward and backward on the device (docs/training.md): three GEMMs per layer,
 * the transposed operands passed as stored (trans_a for xᵀ · dy, trans_b for dy · wᵀ). */
#include <errno.h>
#include <string.h>

#include "tpu/train.h"
#include "train_priv.h"

int tpu_train_dense_forward(struct tpu_train_ctx *ctx, size_t batch, size_t in, size_t out,
			    const float *x, const float *w, const float *b, float *y)
{
	return tpu_train_gemm(ctx, TPU_TRANS_N, TPU_TRANS_N, batch, out, in, x, w, b, y);
}

int tpu_train_dense_backward(struct tpu_train_ctx *ctx, size_t batch, size_t in, size_t out,
			     const float *x, const float *w, const float *dy, float *dw,
			     float *db, float *dx)
{
	int ret;

	if (!db)
		return -EINVAL;
	/* dw = xᵀ · dy: x is stored batch x in, which is op(A) = xᵀ (in x batch) transposed */
	ret = tpu_train_gemm(ctx, TPU_TRANS_T, TPU_TRANS_N, in, out, batch, x, dy, NULL, dw);
	if (ret)
		return ret;
	/* dx = dy · wᵀ: w is stored in x out, which is op(B) = wᵀ (out x in) transposed */
	if (dx) {
		ret = tpu_train_gemm(ctx, TPU_TRANS_N, TPU_TRANS_T, batch, in, out, dy, w, NULL,
				     dx);
		if (ret)
			return ret;
	}
	train_col_sums(dy, batch, out, db);
	return 0;
}

void train_col_sums(const float *dy, size_t rows, size_t cols, float *db)
{
	memset(db, 0, cols * sizeof(*db));
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			db[j] += dy[i * cols + j];
}
