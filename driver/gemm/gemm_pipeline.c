/* The chunk pipeline: the grouped schedule (gemm_grouped.c) over several chunks, each chunk's A
 * read beside the chunk before it.
 *
 * The grouped schedule needs a chunk of at most GEMM_RA_ROWS rows; where A does not fit that in
 * one chunk, the column order loads each chunk's A (KT x R rows) with one READ_HOST while the
 * MXU waits, and finishes each chunk (ACTIVATE, write-back) before the next begins (1024x256x32
 * at R = 342: 60 %). Here (int8 output, resident A, the single-region grouped schedule not
 * applicable, at most 8 column tiles, more than one chunk) the chunks are of at most
 * GEMM_DBL_MAX_R rows (the first R0 = twice that, at most GEMM_RA_ROWS, where the UB and ACC
 * hold it) in the grouped order, their A in two UB regions (region 0 at row 0 for KT x R0 rows,
 * region 1 after it; chunk c's K-tile kt at its region + kt x rows; the output regions after
 * both): chunk c reads chunk c + 1's A groups (READ_HOSTs of <= 256 rows, read ahead and
 * committed beside the MATMULs) into the other region in its "quiet" slots (gemm_prefetch_step),
 * and chunk c's last group ends (its ACTIVATEs and write-back pieces, struct gemm_pend) beside
 * chunk c + 1's first MATMULs, as a group ends beside the next group's within a chunk; the ACC
 * buffers alternate by group over all chunks. Only the first chunk reads its own A (two groups
 * ahead, as in the grouped schedule), and the next chunk's too: the device reads up to two
 * READ_HOSTs ahead (tpu_device RhDepth = 2), each ~105 cycles of round trip plus its rows, so
 * that chunk is READ_HOST-bound, which the longer first chunk evens out; its parameters and
 * weight tiles precede its first READ_HOST (gemm_group_prologue) and the next chunk's
 * READ_HOSTs avoid the slots of its own (gemm_prefetch_step). A's last K-tile is zero-padded to
 * N bytes in the A buffer (gemm_a_full): a READ_HOST of narrower rows costs a link packet per
 * row.
 *
 * Why not the stream schedule per chunk: a STREAM_MATMUL ends only after its last ACTIVATE and
 * write-back, and the next command's stream starts after it (read-aheads are dropped), so an
 * M-chunked stream schedule (each chunk's A in its own command's stream) would leave the MXU
 * idle ~3 cycles per row of A at every chunk boundary (~86 % at 1024x256x32 estimated).
 * Measured (N = 16, default link): GEMM_DBL_MAX_R 128 was the best of 96/128/160/256
 * (1024x256x32 77.7/83.8/78.8/80.7 % with even chunks), the longer first chunk 84.0 -> 84.8 %;
 * a FENCE on each chunk's first MATMUL, a partial first prefetch (the rest read by the next
 * chunk itself) and READ_HOSTs in the write-back slots did not pay; with more column tiles
 * (hybrid) or chunks that fit the single region the grouped schedule stays (512x64x512 92.1 vs
 * 87.3..90.9 %, 512^3 98.2 vs 97.7 %), and with M in one chunk the stream schedule (512x64x64
 * 74.4 vs 66.7 %). */
#include "gemm_priv.h"

#define GEMM_DBL_MAX_R 128u

/* Choice rule and chunk sizes, after the grouped and stream rules: where neither applies to
 * the single-region chunks and the column tiles are few (not hybrid: the hybrid with two
 * regions measured slower), with int8 output, resident A, more than one chunk of at most r
 * rows, two A regions, 2 x gp ACC buffers and gp output regions. */
void gemm_pipeline_plan(struct gemm *g)
{
	const struct tpu_info *in = &g->dev->info;
	uint64_t r = in->ub_rows / (2ull * g->slots + g->gp);

	if (r > GEMM_DBL_MAX_R)
		r = GEMM_DBL_MAX_R;
	if (r > in->acc_rows / (2u * g->gp))
		r = in->acc_rows / (2u * g->gp);
	g->dbl = g->q8 && g->resident && !g->stream && !g->pairs && !g->hyb && r >= g->N &&
		 g->m > r && g->m <= SIZE_MAX / ((size_t)g->KT * g->N);
	g->R0 = g->R;
	if (!g->dbl)
		return;
	/* The first chunk reads its own A beside its MATMULs and the second chunk's too: twice as
	 * long as the others (at most GEMM_RA_ROWS) when the UB and ACC hold it, the rest in even
	 * chunks of at most r rows (measured in one shape list: 1024x256x32 84.0 -> 84.8 %,
	 * 768x256x64 91.2 -> 92.0 %, 601x250x40 63.3 -> 65.5 %). */
	uint64_t r0 = 2 * r > GEMM_RA_ROWS ? GEMM_RA_ROWS : 2 * r, rest;

	if (r0 >= g->m || (uint64_t)g->slots * (r0 + r) + g->gp * r0 > in->ub_rows ||
	    2ull * g->gp * r0 > in->acc_rows)
		r0 = r;
	rest = g->m - r0;
	g->R0 = (uint32_t)r0;
	g->R = (uint32_t)((rest + (rest + r - 1) / r - 1) / ((rest + r - 1) / r));
	g->out_row = g->slots * (g->R0 + g->R);
	g->pairs = true;
}

/* The next chunk's A, read beside this chunk's MATMULs. Its A-group READ_HOSTs go into the
 * chunk's "quiet" slots (after which the next MATMUL slot has no ACTIVATE or write-back: those
 * would wait in the chain for the READ_HOST's commit), spread evenly; what finds no slot
 * follows the chunk's last MATMUL. A slot that already holds a READ_HOST of the chunk's own A
 * (the first chunk) is skipped (defer): two READ_HOSTs in one slot, the second waiting in the
 * chain for the first's commit, held the next MATMUL back (measured 1024x256x32 36544 ->
 * 36197, 768x256x64 53036 -> 52821). */
void gemm_prefetch_step(struct gemm *g, const struct gemm_chunkx *cx, bool quiet, bool defer)
{
	uint32_t ng = cx->npf;

	if (!cx->nrows || !quiet)
		return;
	if (defer) {
		g->pf_q++;
		return;
	}
	uint32_t ag = g->ag;

	g->ag = gemm_ag_of(cx->nrows); /* (the groups of the next chunk) */
	while (g->pf_n < ng && (uint64_t)g->pf_n * g->pf_q_tot <= (uint64_t)g->pf_q * ng)
		gemm_read_group(g, cx->nr0, cx->nrows, cx->nbase, g->pf_n++);
	g->ag = ag;
	g->pf_q++;
}

void gemm_prefetch_rest(struct gemm *g, const struct gemm_chunkx *cx)
{
	uint32_t ag = g->ag;

	g->ag = gemm_ag_of(cx->nrows);
	while (cx->nrows && g->pf_n < cx->npf)
		gemm_read_group(g, cx->nr0, cx->nrows, cx->nbase, g->pf_n++);
	g->ag = ag;
}

/* The slots of a group of np tiles (nslots MATMULs) whose pending end takes lead slots. */
bool gemm_quiet_slot(uint32_t s, uint32_t lead, uint32_t nslots)
{
	return s + 1 >= lead && s + 2 <= nslots;
}

/* Quiet slots of the chunk in the grouped order, given the pending end at its start. */
uint32_t gemm_quiet_groups(const struct gemm *g, uint32_t rows)
{
	uint32_t NG = (g->NT + g->gp - 1) / g->gp, q = 0, lead = g->npe + g->nw;

	for (uint32_t gi = 0; gi < NG; gi++) {
		uint32_t t0 = gi * g->gp, np = g->NT - t0 < g->gp ? g->NT - t0 : g->gp;
		for (uint32_t s = 0; s < np * g->KT; s++)
			q += gemm_quiet_slot(s, lead, np * g->KT);
		lead = np + np * gemm_pieces_of(rows);
	}
	return q;
}
