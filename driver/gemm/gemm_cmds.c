/* The command list of a GEMM and the tile helpers every schedule shares: where a weight tile and
 * a K-tile of A lie in their DMA buffers, the weight FIFO kept full, the whole-chunk A load, the
 * per-column-tile and first output parameters. */
#include <errno.h>
#include <stdlib.h>

#include "gemm_priv.h"

struct tpu_cmd *gemm_next_cmd(struct gemm *g)
{
	if (g->ncmd == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		struct tpu_cmd *c = realloc(g->cmds, cap * sizeof(*c));
		if (!c) {
			g->err = g->err ? g->err : -ENOMEM;
			return NULL;
		}
		g->cmds = c;
		g->cap = cap;
	}
	return &g->cmds[g->ncmd++];
}

void gemm_note(struct gemm *g, int err)
{
	if (err && !g->err)
		g->err = err;
}

void gemm_drain_fifo(struct gemm *g)
{
	const tpu_dev *dev = g->dev;

	for (uint32_t i = 0; i < dev->fifo_occ; i++) {
		bool bf16 = i < 256u && (dev->fifo_bf16[i / 64u] >> (i % 64u) & 1u);

		EMIT(g, tpu_cmd_matmul, 0, 0, 1, TPU_MATMUL_POP);
		if (bf16 && !g->err)
			tpu_cmd_set_flags(&g->cmds[g->ncmd - 1], TPU_SQE_FLAG_BF16);
	}
}

/* Weight tile i of a chunk in the order of use: column-tile major, or (pairs) group by group
 * (gp column tiles), each group's K-tiles in order, the group's tiles per K-tile. */
static void tile_of(const struct gemm *g, size_t i, uint32_t *nt, uint32_t *kt)
{
	if (!g->pairs) {
		*nt = (uint32_t)(i / g->KT);
		*kt = (uint32_t)(i % g->KT);
		return;
	}
	if (g->hyb) {
		uint32_t first = g->NT < g->gp ? g->NT : g->gp;
		if (i < (size_t)first * g->KT) {
			*kt = (uint32_t)(i / first);
			*nt = (uint32_t)(i % first);
		} else {
			i -= (size_t)first * g->KT;
			*nt = first + (uint32_t)(i / g->KT);
			*kt = (uint32_t)(i % g->KT);
		}
		return;
	}
	size_t gi = i / ((size_t)g->gp * g->KT), rem = i - gi * g->gp * g->KT;
	uint32_t t0 = (uint32_t)gi * g->gp, np = g->NT - t0 < g->gp ? g->NT - t0 : g->gp;

	*kt = (uint32_t)(rem / np);
	*nt = t0 + (uint32_t)(rem % np);
}

/* Offset of weight tile (nt, kt) in the B buffer: column panels (panel nt: k rows of its span),
 * or (pairs) group panels, each K-tile's rows of the group's tiles one after the other (only
 * the last column tile can be narrower than N): either way the tiles lie in their order of
 * use, back to back (gemm_pack.c). A tile is kc x nc bytes, or with b_dev_t the same bytes as
 * nc rows of kc (op(B)^T's block), so the offsets hold for both. */
size_t gemm_b_off(const struct gemm *g, uint32_t nt, uint32_t kt)
{
	uint32_t nc = gemm_span(g->n, g->N, nt);

	if (!g->pairs || (g->hyb && nt >= g->gp))
		return (size_t)nt * g->N * g->k + (size_t)kt * g->N * nc;
	uint32_t t0 = nt / g->gp * g->gp;
	size_t gw = (size_t)(g->n - (size_t)t0 * g->N < (size_t)g->gp * g->N ?
			     g->n - (size_t)t0 * g->N : (size_t)g->gp * g->N);

	return (size_t)t0 * g->N * g->k + (size_t)kt * g->N * gw +
	       (size_t)gemm_span(g->k, g->N, kt) * (nt - t0) * g->N;
}

static void load_weights(struct gemm *g)
{
	uint32_t nt, kt;
	tile_of(g, g->w_issued, &nt, &kt);
	uint32_t nc = gemm_span(g->n, g->N, nt), kc = gemm_span(g->k, g->N, kt);
	size_t off = gemm_b_off(g, nt, kt);

	if (g->b_dev_t)
		EMIT(g, tpu_cmd_load_weights, g->bbuf, off, kc, nc, kc, 1);
	else
		EMIT(g, tpu_cmd_load_weights, g->bbuf, off, nc, kc, nc, 0);
	g->w_issued++;
}

/* Keep the FIFO as full as its depth allows, counted in queue order. */
void gemm_refill(struct gemm *g)
{
	while (g->w_issued < g->w_total && g->w_issued - g->w_popped < g->dev->info.fifo_tiles)
		load_weights(g);
}

/* Offset of K-tile kt of the chunk at row r0 (rows rows) in the A buffer (gemm_pack.c). */
size_t gemm_a_off(const struct gemm *g, size_t r0, uint32_t rows, uint32_t kt)
{
	return r0 * (g->dbl ? (size_t)g->KT * g->N : g->k) + (size_t)kt * g->N * rows;
}

/* K-tiles of A that are N bytes wide in the A buffer: with dbl all (the last one zero-padded:
 * a READ_HOST of rows narrower than N costs a packet per row, ~3x the link time), else the
 * full ones. */
uint32_t gemm_a_full(const struct gemm *g)
{
	return g->dbl ? g->KT : (uint32_t)(g->k / g->N);
}

/* Rows of the chunk at row r0 (with dbl the first has R0 rows, the others R). */
uint32_t gemm_chunk_rows(const struct gemm *g, size_t r0)
{
	size_t left = g->m - r0, R = r0 == 0 ? g->R0 : g->R;

	return left < R ? (uint32_t)left : (uint32_t)R;
}

/* The whole chunk, slot kt at UB rows kt x rows: the full-width K-tiles are consecutive in the
 * buffer and in the UB, so they are one READ_HOST (the device streams it without a pause);
 * a narrower last K-tile is a second one. */
void gemm_read_chunk(struct gemm *g, size_t r0, uint32_t rows)
{
	uint32_t full = (uint32_t)(g->k / g->N), kc = gemm_span(g->k, g->N, g->KT - 1);

	if (full)
		EMIT(g, tpu_cmd_read_host, g->abuf, gemm_a_off(g, r0, rows, 0), g->N, 0,
		     full * rows, g->N);
	if (full < g->KT)
		EMIT(g, tpu_cmd_read_host, g->abuf, gemm_a_off(g, r0, rows, full), kc, full * rows,
		     rows, kc);
}

/* The column tile's bias (and multiplier/shift). Emitted after one of the tile's first MATMULs
 * (see the schedules): the previous tile's ACTIVATE has completed by then, and the loads
 * overlap the MXU instead of waiting in the tail. */
void gemm_column_tile_params(struct gemm *g, uint32_t nt)
{
	uint32_t nc = gemm_span(g->n, g->N, nt);
	size_t poff = (size_t)nt * g->N * 4u;

	EMIT(g, tpu_cmd_load_params, TPU_PARAM_BIAS, g->bias, poff, 0, nc);
	if (g->q8 && !g->uniform) {
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_MULT, g->mult, poff, 0, nc);
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, poff, 0, nc);
	}
}

/* The output parameters loaded once (before the first ACTIVATE), placed after the first chunk's
 * READ_HOST and weight tiles and over its first MATMULs: the device reads a BIAS/MULT/SHIFT
 * vector ahead while the commands before it run (one at a time), so MULT is read during the
 * READ_HOST and SHIFT during the first MATMUL instead of one round trip each up front.
 * kt = ~0u: OUTPUT and MULT (before the first MATMUL); else SHIFT after MATMUL kt. */
void gemm_first_params(struct gemm *g, const struct tpu_gemm_params *p, uint32_t kt)
{
	uint32_t nc = gemm_span(g->n, g->N, 0);

	if (!g->q8)
		return;
	if (kt == ~0u) {
		EMIT(g, tpu_cmd_load_output_round, p->out_zero_point, p->clamp_min, p->clamp_max,
		     p->round);
		if (g->uniform)
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_MULT, g->mult, 0, 0, nc);
	} else if (kt == (g->KT > 1 ? 1u : 0u) && g->uniform) {
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0, nc);
	}
}
