/* The one matrix product of the training ops: fp32 operands rounded to bf16 into staging
 * buffers, tpu_gemm_ex() with TPU_DTYPE_BF16 and the caller's transposes, fp32 out. The device's
 * counters are read around each GEMM and summed into ctx->stats (and, when asked, traced). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpu/bf16.h"
#include "tpu/train.h"
#include "tpu/tpu_spec.h"
#include "train_priv.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int tpu_train_init(struct tpu_train_ctx *ctx, tpu_dev *dev)
{
	struct tpu_info info;
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	if (!dev)
		return -EINVAL;
	ret = tpu_get_info(dev, &info);
	if (ret)
		return ret;
	if (!(info.features & TPU_FEATURES_BF16_MASK)) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "device: no bf16 mode (FEATURES.BF16 = 0; use e.g. golden:bf16=1)");
		return -ENOTSUP;
	}
	ctx->dev = dev;
	ctx->array_n = info.array_n;
	return 0;
}

void tpu_train_free(struct tpu_train_ctx *ctx)
{
	free(ctx->a16);
	free(ctx->b16);
	free(ctx->col);
	free(ctx->dcol);
	ctx->a16 = ctx->b16 = NULL;
	ctx->col = ctx->dcol = NULL;
	ctx->a_cap = ctx->b_cap = ctx->col_cap = ctx->dcol_cap = 0;
}

int train_reserve(void *bufp, size_t *cap, size_t n, size_t esz)
{
	void *p;

	if (n <= *cap)
		return 0;
	if (n > SIZE_MAX / esz)
		return -ENOMEM;
	/* the contents need not survive: free first, so the peak is one buffer; the pointer is
	 * read and written through memcpy, as bufp points at a pointer of the caller's type */
	memcpy(&p, bufp, sizeof(p));
	free(p);
	p = malloc(n * esz);
	memcpy(bufp, &p, sizeof(p));
	*cap = p ? n : 0;
	return p ? 0 : -ENOMEM;
}

static void to_bf16(const float *src, size_t n, uint16_t *dst)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t bits;

		memcpy(&bits, &src[i], sizeof(bits));
		dst[i] = tpu_f32_to_bf16(bits);
	}
}

static void perf_add(struct tpu_train_stats *s, const struct tpu_perf *a,
		     const struct tpu_perf *b, uint64_t macs)
{
	s->cycles += b->cycles - a->cycles;
	s->mxu_busy_cycles += b->mxu_busy_cycles - a->mxu_busy_cycles;
	s->macs += macs;
}

int tpu_train_gemm(struct tpu_train_ctx *ctx, enum tpu_trans trans_a, enum tpu_trans trans_b,
		   size_t m, size_t n, size_t k, const float *a, const float *b, const float *bias,
		   float *c)
{
	return train_gemm_counted(ctx, trans_a, trans_b, m, n, k, a, b, bias, c,
				  (uint64_t)m * n * k);
}

int train_gemm_counted(struct tpu_train_ctx *ctx, enum tpu_trans trans_a,
		       enum tpu_trans trans_b, size_t m, size_t n, size_t k, const float *a,
		       const float *b, const float *bias, float *c, uint64_t macs)
{
	struct tpu_gemm_params p;
	struct tpu_perf p0, p1;
	double t0 = now(), t1;
	int ret;

	if (!ctx || !ctx->dev || !a || !b || !c)
		return -EINVAL;
	if (!m || !n || !k) {
		snprintf(ctx->err, sizeof(ctx->err), "gemm: m %zu, n %zu, k %zu: each must be >= 1",
			 m, n, k);
		return -EINVAL;
	}
	if (m > SIZE_MAX / k || n > SIZE_MAX / k)
		return -ENOMEM;
	ret = train_reserve(&ctx->a16, &ctx->a_cap, m * k, sizeof(uint16_t));
	if (!ret)
		ret = train_reserve(&ctx->b16, &ctx->b_cap, k * n, sizeof(uint16_t));
	if (ret)
		return ret;
	to_bf16(a, m * k, ctx->a16);
	to_bf16(b, k * n, ctx->b16);
	tpu_gemm_params_init(&p);
	/* the fp32 bias travels as its bit patterns (tpu_gemm_ex, TPU_DTYPE_BF16) */
	p.bias = (const int32_t *)(const void *)bias;
	struct tpu_gemm_desc d = {
		.dtype = TPU_DTYPE_BF16, .trans_a = trans_a, .trans_b = trans_b,
		.m = m, .n = n, .k = k, .a = ctx->a16, .b = ctx->b16, .c = c,
	};
	t1 = now();
	ctx->stats.host_seconds += t1 - t0;
	ret = tpu_perf_read(ctx->dev, &p0);
	if (!ret)
		ret = tpu_gemm_ex(ctx->dev, &d, &p);
	if (ret == -EINVAL || ret == -ENOTSUP)
		snprintf(ctx->err, sizeof(ctx->err), "%s", tpu_gemm_last_error(ctx->dev));
	if (!ret)
		ret = tpu_perf_read(ctx->dev, &p1);
	ctx->stats.device_seconds += now() - t1;
	if (ret)
		return ret;
	perf_add(&ctx->stats, &p0, &p1, macs);
	ctx->stats.gemms++;
	if (ctx->trace && ctx->trace_len < ctx->trace_cap)
		ctx->trace[ctx->trace_len++] = (struct tpu_train_gemm_rec){
			.trans_a = trans_a, .trans_b = trans_b, .m = m, .n = n, .k = k,
			.cycles = p1.cycles - p0.cycles, .macs = macs,
		};
	return 0;
}
