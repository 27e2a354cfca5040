/* The host side of a GEMM: the caller's operands copied into DMA buffers in the layout the
 * schedule reads, the folded bias and the requantization vectors, and the output copied back.
 *
 * A chunk by chunk, each chunk as its K-tiles one after the other (K-tile kt: the chunk's rows
 * of span_k bytes, or N bytes zero-padded for the pipeline), so that all full-width K-tiles of
 * a chunk are one READ_HOST into consecutive UB slots; B as weight tiles in their order of use
 * (gemm_b_off: column panels, or group panels for the grouped schedules; the stream schedule's
 * own layout in gemm_stream.c); the output as column panels (m rows of span_n elements).
 *
 * Transposed operands are read where they lie: a transposed B's tiles are blocks of the stored
 * op(B)^T that LOAD_WEIGHTS transposes on the device (row copies here); a transposed A (and B
 * for STREAM_MATMUL, which has no transpose) is gathered in squares of GEMM_T_BLOCK bytes a
 * side, each read and written as whole rows. */
#include <stdlib.h>
#include <string.h>

#include "gemm_priv.h"

#define GEMM_T_BLOCK 16u

/* d[r][c] = s[c][r] for one GEMM_T_BLOCK square, rows ds and ls bytes apart: loads and stores of
 * whole rows around a transpose in registers. */
static void transpose_square(uint8_t *d, size_t ds, const uint8_t *s, size_t ls)
{
	uint8_t t[GEMM_T_BLOCK][GEMM_T_BLOCK], row[GEMM_T_BLOCK];

	for (unsigned c = 0; c < GEMM_T_BLOCK; c++)
		memcpy(t[c], s + c * ls, GEMM_T_BLOCK);
	for (unsigned r = 0; r < GEMM_T_BLOCK; r++) {
		for (unsigned c = 0; c < GEMM_T_BLOCK; c++)
			row[c] = t[c][r];
		memcpy(d + r * ds, row, GEMM_T_BLOCK);
	}
}

void gemm_copy_block(uint8_t *dst, size_t dst_stride, const struct gemm_mat *x, size_t r0,
		     size_t c0, size_t rows, size_t cols)
{
	if (!x->t) {
		for (size_t r = 0; r < rows; r++)
			memcpy(dst + r * dst_stride, x->p + (r0 + r) * x->ld + c0, cols);
		return;
	}
	/* op(X)[r][c] = stored[c][r]: squares of GEMM_T_BLOCK, the edges element by element */
	for (size_t cb = 0; cb < cols; cb += GEMM_T_BLOCK) {
		size_t cn = cols - cb < GEMM_T_BLOCK ? cols - cb : GEMM_T_BLOCK;
		for (size_t rb = 0; rb < rows; rb += GEMM_T_BLOCK) {
			size_t rn = rows - rb < GEMM_T_BLOCK ? rows - rb : GEMM_T_BLOCK;
			const uint8_t *s = x->p + (c0 + cb) * x->ld + r0 + rb;
			uint8_t *d = dst + rb * dst_stride + cb;

			if (rn == GEMM_T_BLOCK && cn == GEMM_T_BLOCK) {
				transpose_square(d, dst_stride, s, x->ld);
				continue;
			}
			for (size_t c = 0; c < cn; c++)
				for (size_t r = 0; r < rn; r++)
					d[r * dst_stride + c] = s[c * x->ld + r];
		}
	}
}

/* B's weight tiles at gemm_b_off: tile (nt, kt) is op(B)'s rows kt x N.. by columns nt x N..
 * (kc rows of nc), or with b_dev_t the stored op(B)^T's block (nc rows of kc). */
static void pack_b_tiles(const struct gemm *g, uint8_t *dst)
{
	struct gemm_mat stored = { g->b.p, g->b.ld, false };

	for (uint32_t nt = 0; nt < g->NT; nt++) {
		uint32_t nc = gemm_span(g->n, g->N, nt);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			uint32_t kc = gemm_span(g->k, g->N, kt);
			uint8_t *p = dst + gemm_b_off(g, nt, kt);

			if (g->b_dev_t)
				gemm_copy_block(p, kc, &stored, (size_t)nt * g->N, (size_t)kt * g->N,
						nc, kc);
			else
				gemm_copy_block(p, nc, &g->b, (size_t)kt * g->N, (size_t)nt * g->N,
						kc, nc);
		}
	}
}

/* op(A) to chunks (gemm_chunk_rows), each as its K-tiles one after the other, K-tile kt holding
 * the chunk's rows of span_k bytes, or N bytes zero-padded (gemm_a_full; gemm_a_off). The
 * padding is already zero: DMA buffers are allocated zeroed. */
static void pack_a_chunks(const struct gemm *g, uint8_t *dst)
{
	for (size_t r0 = 0; r0 < g->m; r0 += gemm_chunk_rows(g, r0)) {
		uint32_t rows = gemm_chunk_rows(g, r0);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			uint32_t w = gemm_span(g->k, g->N, kt), rb = kt < gemm_a_full(g) ? g->N : w;

			gemm_copy_block(dst + gemm_a_off(g, r0, rows, kt), rb, &g->a, r0,
					(size_t)kt * g->N, rows, w);
		}
	}
}

/* sums[j] = sum over k of op(B)[k][j], wrapping like the accumulator, read along B's rows. */
static void column_sums(const struct gemm *g, uint32_t *sums)
{
	const int8_t *b = (const int8_t *)g->b.p;

	memset(sums, 0, g->n * sizeof(*sums));
	if (g->b.t) {
		for (size_t j = 0; j < g->n; j++)
			for (size_t kk = 0; kk < g->k; kk++)
				sums[j] += (uint32_t)(int32_t)b[j * g->b.ld + kk];
		return;
	}
	for (size_t kk = 0; kk < g->k; kk++)
		for (size_t j = 0; j < g->n; j++)
			sums[j] += (uint32_t)(int32_t)b[kk * g->b.ld + j];
}

/* bias'[j] = bias[j] - za x sum_k op(B)[k][j], wrapping like the accumulator. */
static void fold_bias(const struct gemm *g, const struct tpu_gemm_params *p, int32_t *bias)
{
	uint32_t *s = (uint32_t *)bias; /* (the sums first, in place) */

	if (p->in_zero_point)
		column_sums(g, s);
	else
		memset(s, 0, g->n * sizeof(*s));
	for (size_t j = 0; j < g->n; j++)
		bias[j] = (int32_t)((p->bias ? (uint32_t)p->bias[j] : 0u) -
				    (uint32_t)p->in_zero_point * s[j]);
}

int gemm_fill_buffers(struct gemm *g, const struct tpu_gemm_params *p)
{
	size_t n = g->n, full = n / g->N, alen = g->m * (g->dbl ? (size_t)g->KT * g->N : g->k);
	uint8_t *b;
	int32_t *bias, *mult, *shift;
	int err;

	if ((err = tpu_buf_alloc(g->dev, alen, &g->abuf)) ||
	    (err = tpu_buf_alloc(g->dev, gemm_stream_b_len(g), &g->bbuf)) ||
	    (err = tpu_buf_alloc(g->dev, n * 4, &g->bias)) ||
	    (err = tpu_buf_alloc(g->dev, g->m * n * (g->q8 ? 1 : 4), &g->out)))
		return err;
	pack_a_chunks(g, tpu_buf_ptr(g->abuf));
	b = tpu_buf_ptr(g->bbuf);
	if (g->fused)
		gemm_stream_pack(g, b);
	else
		pack_b_tiles(g, b);
	bias = tpu_buf_ptr(g->bias);
	fold_bias(g, p, bias);
	if (g->fused) /* each full panel's bias after it (gemm_stream.c) */
		for (size_t j = 0; j < full * g->N; j++)
			memcpy(b + gemm_stream_bias_off(g, (uint32_t)(j / g->N)) + (j % g->N) * 4u,
			       &bias[j], 4);
	if (!g->q8)
		return 0;
	if ((err = tpu_buf_alloc(g->dev, n * 4, &g->mult)) ||
	    (err = tpu_buf_alloc(g->dev, n * 4, &g->shift)))
		return err;
	mult = tpu_buf_ptr(g->mult);
	shift = tpu_buf_ptr(g->shift);
	for (size_t j = 0; j < n; j++) {
		size_t c = p->quant_channels == 1 ? 0 : j; /* per tensor: broadcast */
		mult[j] = p->multiplier[c];
		shift[j] = p->shift[c];
	}
	if (g->fused) { /* channels 0 .. N - 1 at the stream's start: MULT's 4 rows, SHIFT's */
		memcpy(b, mult, (size_t)g->N * 4);
		memcpy(b + (size_t)g->N * 4, shift, (size_t)g->N * 4);
	}
	if (!g->lut)
		return 0;
	if ((err = tpu_buf_alloc(g->dev, TPU_LUT_ENTRIES, &g->lutb)))
		return err;
	memcpy(tpu_buf_ptr(g->lutb), p->lut, TPU_LUT_ENTRIES);
	return 0;
}

void gemm_free_buffers(struct gemm *g)
{
	tpu_buf *all[] = { g->abuf, g->bbuf, g->bias, g->mult, g->shift, g->lutb, g->out };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i])
			(void)tpu_buf_free(all[i]);
}

void gemm_unpack_out(const struct gemm *g, void *c, size_t ldc, bool accumulate)
{
	size_t esz = g->q8 ? 1 : 4;
	const uint8_t *src = tpu_buf_ptr(g->out);

	for (size_t c0 = 0; c0 < g->n; c0 += g->N) {
		size_t w = g->n - c0 < g->N ? g->n - c0 : g->N;
		const uint8_t *p = src + c0 * g->m * esz;

		for (size_t r = 0; r < g->m; r++) {
			uint8_t *d = (uint8_t *)c + (r * ldc + c0) * esz;
			const uint8_t *s = p + r * w * esz;

			if (!accumulate) {
				memcpy(d, s, w * esz);
				continue;
			}
			for (size_t j = 0; j < w; j++) { /* int32, wrapping like the accumulator */
				uint32_t x, y;
				memcpy(&x, d + j * 4, 4);
				memcpy(&y, s + j * 4, 4);
				x += y;
				memcpy(d + j * 4, &x, 4);
			}
		}
	}
}
