/* Which schedule a GEMM runs, and its command list. The chunking (rows per chunk, A resident or
 * not) is common; each schedule's choice rule lives beside it. In order of preference: stream
 * (gemm_stream.c), grouped or hybrid (gemm_grouped.c, gemm_hybrid.c), pipeline
 * (gemm_pipeline.c), and the column order (gemm_column.c) for the rest. */
#include "gemm_priv.h"

/* Rows per chunk: every K-tile of A (and for int8 output the output tile) in the UB, two ACC
 * buffers for int8 output, 32-bit transfer lengths, chunks of even size. */
static void plan_chunks(struct gemm *g)
{
	const struct tpu_info *in = &g->dev->info;
	uint64_t r, esz = g->q8 ? 1 : 4;
	uint32_t o = g->q8 ? 1 : 0;

	g->N = in->array_n;
	g->KT = (uint32_t)((g->k + g->N - 1) / g->N);
	g->NT = (uint32_t)((g->n + g->N - 1) / g->N);
	g->resident = (uint64_t)g->KT + o <= in->ub_rows;
	g->slots = g->resident ? g->KT : 1;
	r = in->ub_rows / (g->slots + o);
	if (r > (g->q8 ? in->acc_rows / 2 : in->acc_rows))
		r = g->q8 ? in->acc_rows / 2 : in->acc_rows; /* int8: two ACC buffers */
	if (r > g->m)
		r = g->m;
	/* LENGTH of a READ_HOST and a WRITE_HOST of r rows must fit 32 bits. */
	if (r > (UINT32_MAX - g->N) / g->k + 1)
		r = (UINT32_MAX - g->N) / g->k + 1;
	if (r > (UINT32_MAX - g->N * esz) / (g->n * esz) + 1)
		r = (UINT32_MAX - g->N * esz) / (g->n * esz) + 1;
	/* Even chunks: a short last chunk would pay a weight load per MATMUL of a few rows. */
	if (r > 0)
		r = (g->m + (g->m + r - 1) / r - 1) / ((g->m + r - 1) / r);
	g->R = (uint32_t)r;
	g->out_row = g->slots * g->R;
}

void gemm_plan(struct gemm *g)
{
	plan_chunks(g);
	g->gp = 2;
	g->hyb = gemm_hybrid_fits(g);
	g->pairs = gemm_grouped_fits(g);
	g->stream = gemm_stream_fits(g);
	if (g->stream)
		g->pairs = false;
	gemm_pipeline_plan(g);
	g->fused = g->stream && g->q8 && g->uniform && g->n >= g->N;
	g->kg = gemm_stream_kgroup(g);
	g->ag = gemm_ag_of(g->R);
	/* STREAM_MATMUL has no transpose: there the host gathers a transposed B */
	g->b_dev_t = g->b.t && !g->stream;
}

void gemm_build(struct gemm *g, const struct tpu_gemm_params *p)
{
	uint32_t pre = 0;

	gemm_drain_fifo(g);
	/* Uniform MULT/SHIFT: every column tile reads the same values, so one load serves them
	 * all (gemm_first_params); OUTPUT goes with them. The LUT is not read ahead: first. */
	if (g->lut)
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_LUT, g->lutb, 0, 0, TPU_LUT_ENTRIES);
	if (g->stream) {
		gemm_stream_schedule(g, p);
		return;
	}
	for (size_t r0 = 0, c = 0; r0 < g->m && !g->err; r0 += gemm_chunk_rows(g, r0), c++) {
		struct gemm_chunkx cx = { 0 };

		cx.r0 = r0;
		cx.rows = gemm_chunk_rows(g, r0);
		if (!g->pairs) {
			gemm_column_chunk(g, p, r0, cx.rows);
			continue;
		}
		if (!g->dbl)
			g->gseq = 0;
		/* (region 0 holds the first chunk's KT x R0 rows, region 1 KT x R after it) */
		cx.abase = g->dbl ? (uint32_t)(c % 2) * g->slots * g->R0 : 0;
		cx.pre = pre;
		if (g->dbl && r0 + cx.rows < g->m) {
			cx.nr0 = r0 + cx.rows;
			cx.nrows = gemm_chunk_rows(g, cx.nr0);
			cx.nbase = (uint32_t)((c + 1) % 2) * g->slots * g->R0;
			g->ag = gemm_ag_of(cx.nrows);
			cx.npf = gemm_a_groups(g);
		}
		pre = cx.npf;
		if (g->dbl)
			g->ag = gemm_ag_of(cx.rows);
		if (g->hyb)
			gemm_hybrid_chunk(g, p, &cx);
		else
			gemm_grouped_chunk(g, p, &cx);
	}
}
