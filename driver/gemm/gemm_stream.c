/* The stream schedule: M in one chunk (R = m rows), weight panels streamed by STREAM_MATMUL.
 *
 * With few rows no weight tile is reused across MATMULs of many rows, so a LOAD_WEIGHTS +
 * MATMUL pair per tile costs ~58 cycles of command overhead against ~17 link cycles of data
 * (and its SQEs a third of the link). Instead one STREAM_MATMUL (docs/spec.md 6.11) streams the
 * column panels of B (contiguous: panel nt is k rows of its width) of up to min(255, ACC rows /
 * R) column tiles through the FIFO at link rate into ACC rows (tile c of the group at (c - c0)
 * x R), then each tile's bias and ACTIVATE (int8: into UB rows out_row + nt x R, written back
 * at the end with one WRITE_HOST, since the output panels of R rows are contiguous too; int32:
 * in place and written back per tile).
 *
 * Fused (int8 output, one multiplier and shift, at least one full panel): each full panel's
 * bias vector follows it in the stream and the command activates each block itself
 * (OP0.ACTIVATE); the first command's stream also carries MULT and SHIFT (OP0.PARAMS) and A's
 * K-tiles (OP0.A_STREAM, panel 0's first K-tile ahead of A's K-tile 0: OP0.W_FIRST, so the MXU
 * starts after one tile of the link instead of after A's whole K-tile 0), its first kg panels
 * interleaved K-tile by K-tile with A (OP0.K_MAJOR), and every command writes its output panels
 * back itself (OP0.WRITE_BACK). At 1x512x512 the separate BIAS + ACTIVATE per tile cost ~158
 * cycles each, most of it the bias read's round trip.
 *
 * Choice rule, measured at N = 16 (cycles, stream vs the grouped schedule): 16x512x512 20703 vs
 * 58633, 32x512x512 38653 vs 60120, 48x256x256 16707 vs 18586; with A in the first command's
 * stream, at 64 rows 64x512x64 10580 vs 11306, 64x128x128 6378 vs 6822, 64x512x512 69916 vs
 * 71975; with the fused output (every option above) the stream schedule wins at every row
 * count where it fits one chunk (128x128x128 9433 vs 10868, 128x512x128 34009 vs 35447,
 * 256x256x256 68066 vs 68974, 1000x64x16 8014 vs 11233, 100x100x100 6484 vs 7441, no shape
 * worse), so the row limit GEMM_STREAM_M holds only where the output is not fused (int32: the
 * stream schedule ~100-250 cycles slower at 128..1024 rows). */
#include <string.h>

#include "gemm_priv.h"

#define GEMM_STREAM_M 64

/* Small M in one chunk, every K-tile of A and every output tile in the UB, a device that
 * implements STREAM_MATMUL. */
bool gemm_stream_fits(const struct gemm *g)
{
	const struct tpu_info *in = &g->dev->info;

	return ((in->opcodes >> TPU_OP_STREAM_MATMUL) & 1u) &&
	       (g->m <= GEMM_STREAM_M || (g->q8 && g->uniform && g->n >= g->N)) &&
	       g->R == g->m && g->resident && (uint64_t)(g->slots + g->NT) * g->R <= in->ub_rows &&
	       g->k <= TPU_STREAM_MATMUL_MAX_K && g->R <= TPU_STREAM_MATMUL_MAX_R;
}

/* Panels of the first fused command interleaved K-tile by K-tile with A (OP0.K_MAJOR): block
 * by block, block 0 carries A (R rows per K-tile) beside its own MATMULs and is link-bound when
 * R + N rows (+ the MRD headers) take longer than R MXU cycles; kg panels share each K-tile's
 * A rows (R + kg x N rows per kg x R cycles). Each interleaved panel but the last pays ~R + 2N
 * MXU-idle cycles for its ACTIVATE (it needs the ACC read port, which the next panel's
 * accumulating MATMUL uses), so kg is the fewest panels that bring the link under the MXU with
 * 1/8 to spare: 8 x (R + kg x N) <= 7 x kg x R (docs/performance.md, "Stream schedule"). */
uint32_t gemm_stream_kgroup(const struct gemm *g)
{
	uint32_t full = (uint32_t)(g->n / g->N), cmax = g->dev->info.acc_rows / g->R, kg;

	if (cmax > TPU_STREAM_MATMUL_MAX_BLOCKS)
		cmax = TPU_STREAM_MATMUL_MAX_BLOCKS;
	if (full > cmax)
		full = cmax;
	if (!g->fused || g->KT < 2)
		return 1;
	for (kg = 2; kg <= full && kg <= 4; kg++)
		if (8ull * (g->R + (uint64_t)kg * g->N) <= 7ull * kg * g->R)
			return kg;
	return 1;
}

/* Rows of MULT and SHIFT at the first fused command's stream start. */
static size_t stream_prows(const struct gemm *g)
{
	return g->fused ? TPU_STREAM_MATMUL_PARAMS_ROWS : 0;
}

/* Rows of A in the first fused panel's stream (the KT K-tiles of R rows, N bytes each). */
static size_t stream_arows(const struct gemm *g)
{
	return g->fused ? (size_t)g->KT * g->R : 0;
}

/* Offset of column panel c in the B buffer of the stream schedule: fused, each full panel
 * (k rows of N) is followed by its bias vector (TPU_STREAM_MATMUL_BIAS_ROWS rows); panel 0
 * also holds A's K-tiles, K-tile t's R rows before the panel's K-tile t (so the device loads A
 * beside block 0's MATMULs instead of before the stream). Not fused: column panels. */
static size_t stream_off(const struct gemm *g, uint32_t c)
{
	if (!g->fused)
		return gemm_b_off(g, c, 0);
	return ((size_t)c * (g->k + TPU_STREAM_MATMUL_BIAS_ROWS) +
		(c ? stream_arows(g) + stream_prows(g) : 0)) * g->N;
}

/* Offset of the fused panel c's row kk (kk = k: its bias vector). Panels c < kg (kg = 1:
 * panel 0) are interleaved K-tile by K-tile (docs/spec.md 6.11): K-tile t is a round of A's
 * K-tile t (R rows), then K-tile t of each panel (in the last round its rows and its bias
 * vector); panel 0's K-tile 0 rows and A's K-tile 0 swap places (W_FIRST). */
static size_t stream_row_off(const struct gemm *g, uint32_t c, size_t kk)
{
	size_t a = g->R, tl = kk < g->k ? kk / g->N : g->KT - 1;
	size_t lastk = g->k - (size_t)(g->KT - 1) * g->N;

	if (c >= g->kg)
		return stream_off(g, c) + kk * g->N;
	if (c == 0 && kk < g->k && kk < g->N)
		return (stream_prows(g) + kk) * g->N;
	return (stream_prows(g) + tl * (a + (size_t)g->kg * g->N) + a +
		(size_t)c * (tl + 1 < g->KT ? g->N : lastk + TPU_STREAM_MATMUL_BIAS_ROWS) +
		(kk - tl * g->N)) * g->N;
}

/* Bytes of the B buffer: fused, the full panels with their bias vectors, the narrower last
 * panel, A's K-tiles and MULT/SHIFT; else k x n. */
size_t gemm_stream_b_len(const struct gemm *g)
{
	size_t full = g->n / g->N;

	if (!g->fused)
		return g->k * g->n;
	return full * (g->k + TPU_STREAM_MATMUL_BIAS_ROWS) * g->N + (g->n - full * g->N) * g->k +
	       (stream_arows(g) + stream_prows(g)) * g->N;
}

/* Offset of full panel c's bias vector in the fused B buffer. */
size_t gemm_stream_bias_off(const struct gemm *g, uint32_t c)
{
	return stream_row_off(g, c, g->k);
}

/* B for the fused stream schedule: each full column panel (k rows of N), then room for its
 * bias vector (written by gemm_fill_buffers), then the narrower last panel (k rows of its
 * width); A's K-tiles in panel 0 (stream_row_off; bytes past k in the last K-tile zero).
 * STREAM_MATMUL has no transpose: a transposed B is gathered here, N x N blocks at a time. */
void gemm_stream_pack(const struct gemm *g, uint8_t *dst)
{
	for (uint32_t c = 0; c < g->NT; c++) {
		uint32_t nc = gemm_span(g->n, g->N, c);

		if (c >= g->n / g->N) { /* the narrow last panel: k rows of nc */
			gemm_copy_block(dst + stream_off(g, c), nc, &g->b, 0, (size_t)c * g->N, g->k,
					nc);
			continue;
		}
		for (uint32_t t = 0; t < g->KT; t++) {
			size_t kk = (size_t)t * g->N;
			/* the K-tile's rows are consecutive (N bytes apart) but for panel 0's
			 * K-tile 0, whose rows swap places with A's */
			gemm_copy_block(dst + stream_row_off(g, c, kk), g->N, &g->b, kk,
					(size_t)c * g->N, gemm_span(g->k, g->N, t), nc);
		}
	}
	for (uint32_t t = 0; t < g->KT; t++) {
		uint32_t w = gemm_span(g->k, g->N, t);
		uint8_t *d = dst + stream_row_off(g, 0, (size_t)t * g->N) - (size_t)g->R * g->N;

		/* (A's K-tile 0 right after panel 0's K-tile 0) */
		if (t == 0)
			d = dst + (stream_prows(g) + (g->k < g->N ? g->k : g->N)) * g->N;
		gemm_copy_block(d, g->N, &g->a, 0, (size_t)t * g->N, g->R, w);
		for (size_t r = 0; r < g->R; r++)
			memset(d + r * g->N + w, 0, g->N - w);
	}
}

static void stream_group(struct gemm *g, const struct tpu_gemm_params *p, uint32_t c0,
			 uint32_t cn, bool first)
{
	uint32_t nc = gemm_span(g->n, g->N, c0), R = g->R;

	if (g->fused && nc == g->N) {
		/* the bias and the ACTIVATE of each tile in the command, into UB rows out_row +
		 * c x R */
		EMIT(g, tpu_cmd_stream_matmul, g->bbuf, stream_off(g, c0), 0, (uint32_t)g->k, nc,
		     cn, 0, R, 0, g->out_row + c0 * R,
		     TPU_STREAM_MATMUL_ACTIVATE | (g->lut ? TPU_STREAM_MATMUL_LUT : 0) |
			     (first ? TPU_STREAM_MATMUL_A_STREAM | TPU_STREAM_MATMUL_W_FIRST |
					      TPU_STREAM_MATMUL_PARAMS
				    : 0) |
			     (first && g->kg > 1 ? TPU_STREAM_MATMUL_K_GROUP(g->kg) : 0));
		/* the group's output panels (R = m rows of N each) straight to their place in the
		 * output buffer, beside the next blocks' MATMULs (no WRITE_HOST after the stream) */
		if (!g->err)
			gemm_note(g, tpu_cmd_stream_write_back(&g->cmds[g->ncmd - 1], g->out,
							       (size_t)c0 * g->N * g->m));
		return;
	}
	EMIT(g, tpu_cmd_stream_matmul, g->bbuf, stream_off(g, c0), 0, (uint32_t)g->k, nc, cn, 0, R,
	     0, 0, 0);
	/* (after the stream: the device reads MULT/SHIFT and the first bias ahead meanwhile) */
	if (first && g->q8) {
		EMIT(g, tpu_cmd_load_output_round, p->out_zero_point, p->clamp_min, p->clamp_max,
		     p->round);
		if (g->uniform) {
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_MULT, g->mult, 0, 0, nc);
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0, nc);
		}
	}
	for (uint32_t c = c0; c < c0 + cn; c++) {
		uint32_t acc = (c - c0) * R, w = gemm_span(g->n, g->N, c);

		gemm_column_tile_params(g, c);
		if (g->q8) {
			EMIT(g, tpu_cmd_activate, acc, g->out_row + c * R, R,
			     g->lut ? TPU_ACTIVATE_LUT : 0);
		} else {
			EMIT(g, tpu_cmd_activate, acc, acc, R, TPU_ACTIVATE_RAW32);
			EMIT(g, tpu_cmd_write_host, g->out, (size_t)c * g->N * g->m * 4u, w * 4u, acc,
			     R, w, 1);
		}
	}
}

void gemm_stream_schedule(struct gemm *g, const struct tpu_gemm_params *p)
{
	uint32_t full = (uint32_t)(g->n / g->N), cmax = g->dev->info.acc_rows / g->R, c0;

	if (cmax > TPU_STREAM_MATMUL_MAX_BLOCKS)
		cmax = TPU_STREAM_MATMUL_MAX_BLOCKS;
	if (!g->fused)
		gemm_read_chunk(g, 0, g->R);
	/* (checked by the fused STREAM_MATMUL: loaded before it; MULT and SHIFT come in the first
	 * command's stream, no read round trip each) */
	if (g->fused)
		EMIT(g, tpu_cmd_load_output_round, p->out_zero_point, p->clamp_min, p->clamp_max,
		     p->round);
	/* (first: the group that loads OUTPUT/MULT/SHIFT when not fused, carries A when fused) */
	for (c0 = 0; c0 < full; c0 += cmax)
		stream_group(g, p, c0, full - c0 < cmax ? full - c0 : cmax, c0 == 0);
	if (full < g->NT)
		stream_group(g, p, full, 1, full == 0 && !g->fused);
	if (!g->q8)
		return;
	if (full && !g->fused)
		EMIT(g, tpu_cmd_write_host, g->out, 0, g->N, g->out_row, full * g->R, g->N, 0);
	if (full < g->NT)
		EMIT(g, tpu_cmd_write_host, g->out, (size_t)full * g->N * g->m,
		     gemm_span(g->n, g->N, full), g->out_row + full * g->R, g->R,
		     gemm_span(g->n, g->N, full), 0);
}
