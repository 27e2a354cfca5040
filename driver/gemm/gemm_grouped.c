/* The grouped schedule: int8 output with chunks of N..256 rows and A resident.
 *
 * Loading a chunk's A with one READ_HOST before the first MATMUL leaves the MXU idle while it
 * streams (75-86 % of the idle cycles of 64x512x64 and 128x512x128 in the column order). The
 * device reads a READ_HOST of at most StageRows rows ahead, on the weight tiles' row stream,
 * while earlier commands run, and commits it beside the next MATMULs (docs/device.md, "Overlap
 * and dependencies"). So here A comes in groups of K-tiles (the first one alone, then `ag`),
 * each READ_HOST two groups ahead of the first MATMUL that reads it; and the column tiles go in
 * groups of gp, each group's K-tiles in the outer loop (MATMUL (t0, kt), (t0 + 1, kt), ...), so
 * that a K-tile of A is read once per gp MATMULs and the link (A rows, gp weight tiles and the
 * SQEs per K-tile) stays below the compute time. A group's accumulators are ACC buffers
 * 0..gp-1 or gp..2gp-1 (alternating), their int8 outputs gp UB regions. The previous group's
 * ACTIVATEs run beside this group's first MATMULs (K-tile 0: none accumulates), each tile's
 * bias loaded after the ACTIVATE before it, its write-back beside the MATMULs after them.
 *
 * The helpers below (A groups, pending ends, the prologue) also serve the hybrid
 * (gemm_hybrid.c) and the pipeline (gemm_pipeline.c). */
#include "gemm_priv.h"

/* Choice rule: int8 output, A resident and read in groups the device reads ahead (chunks of N
 * to GEMM_RA_ROWS rows), 2 x gp ACC buffers and gp output regions. Below N rows a chunk's A is
 * a few rows and costs little in the chain (batch-1 keeps the column order). */
bool gemm_grouped_fits(const struct gemm *g)
{
	const struct tpu_info *in = &g->dev->info;

	return g->q8 && g->resident && g->R >= g->N && g->R <= GEMM_RA_ROWS &&
	       2ull * g->gp * g->R <= in->acc_rows &&
	       (uint64_t)(g->slots + g->gp) * g->R <= in->ub_rows;
}

/* Full-width K-tile groups: K-tile 0 alone (the first MATMUL waits for it), then ag each. */
static uint32_t a_full_groups(const struct gemm *g)
{
	uint32_t full = gemm_a_full(g);
	return full ? 1 + (full - 1 + g->ag - 1) / g->ag : 0;
}

uint32_t gemm_a_groups(const struct gemm *g)
{
	return a_full_groups(g) + (gemm_a_full(g) < g->KT ? 1 : 0);
}

/* The group holding K-tile kt, and a group's first K-tile. */
uint32_t gemm_a_group_of(const struct gemm *g, uint32_t kt)
{
	uint32_t full = gemm_a_full(g);
	if (kt >= full)
		return a_full_groups(g);
	return kt == 0 ? 0 : 1 + (kt - 1) / g->ag;
}

static uint32_t a_group_first(const struct gemm *g, uint32_t grp)
{
	if (grp >= a_full_groups(g))
		return gemm_a_full(g);
	return grp == 0 ? 0 : 1 + (grp - 1) * g->ag;
}

/* K-tiles per A group after the first for a chunk of `rows` rows: a READ_HOST of at most
 * GEMM_RA_ROWS rows, at most 2 K-tiles. */
uint32_t gemm_ag_of(uint32_t rows)
{
	uint32_t ag = rows ? GEMM_RA_ROWS / rows : 1;

	return ag > 2 ? 2 : ag < 1 ? 1 : ag;
}

/* One group of K-tiles of the chunk into their UB slots (as gemm_read_chunk, a part of it),
 * the chunk's K-tile 0 at UB row base. */
void gemm_read_group(struct gemm *g, size_t r0, uint32_t rows, uint32_t base, uint32_t grp)
{
	uint32_t full = gemm_a_full(g), kt0 = a_group_first(g, grp);

	if (grp < a_full_groups(g)) {
		uint32_t n = grp == 0 ? 1 : full - kt0 < g->ag ? full - kt0 : g->ag;
		EMIT(g, tpu_cmd_read_host, g->abuf, gemm_a_off(g, r0, rows, kt0), g->N,
		     base + kt0 * rows, n * rows, g->N);
	} else {
		uint32_t kc = gemm_span(g->k, g->N, full);
		EMIT(g, tpu_cmd_read_host, g->abuf, gemm_a_off(g, r0, rows, full), kc,
		     base + full * rows, rows, kc);
	}
}

/* Buffer stride of the ACC and output regions: the chunk's rows, or R0 when chunks overlap. */
static uint32_t gstride(const struct gemm *g, uint32_t rows)
{
	return g->dbl ? g->R0 : rows;
}

/* ACC rows of column tile nt (group gi's tile j = nt % gp, or hyb: the tile's sequence
 * number ts): pairs 2 x gp buffers alternating by group (over all chunks with dbl), hyb 3. */
uint32_t gemm_acc_group(const struct gemm *g, uint32_t rows, uint32_t gi, uint32_t nt,
			uint32_t ts)
{
	if (g->hyb)
		return ts % 3u * gstride(g, rows);
	return (gi % 2 * g->gp + nt % g->gp) * gstride(g, rows);
}

void gemm_tile_pend(struct gemm *g, size_t r0, uint32_t rows, uint32_t nt, uint32_t acc,
		    uint32_t ts, struct gemm_pend *pe)
{
	pe->r0 = r0;
	pe->rows = rows;
	pe->nt = nt;
	pe->acc = acc;
	pe->out = g->out_row + (g->hyb ? ts : nt) % g->gp * gstride(g, rows);
}

void gemm_activate_pend(struct gemm *g, const struct gemm_pend *pe)
{
	EMIT(g, tpu_cmd_activate, pe->acc, pe->out, pe->rows, g->lut ? TPU_ACTIVATE_LUT : 0);
}

void gemm_write_piece(struct gemm *g, const struct gemm_wpiece *w)
{
	const struct gemm_pend *pe = &g->pe[w->pe];
	uint32_t nc = gemm_span(g->n, g->N, pe->nt);
	size_t off = (size_t)pe->nt * g->N * g->m + (pe->r0 + w->lo) * nc;

	EMIT(g, tpu_cmd_write_host, g->out, off, nc, pe->out + w->lo, w->hi - w->lo, nc, 0);
}

/* Write-back pieces of at most 96 rows per tile (see gemm_column.c wh_pieces), for a tile of
 * `rows` rows. */
uint32_t gemm_pieces_of(uint32_t rows)
{
	return rows < 96 ? 1 : (rows + 95) / 96;
}

/* The write-back of the pending tiles pe[0 .. npe - 1] in pieces (g->w). */
void gemm_pend_pieces(struct gemm *g)
{
	g->nw = g->iw = 0;
	for (uint32_t t = 0; t < g->npe; t++) {
		uint32_t P = gemm_pieces_of(g->pe[t].rows), rows = g->pe[t].rows;
		for (uint32_t q = 0; q < P; q++) {
			g->w[g->nw].pe = t;
			g->w[g->nw].lo = (uint32_t)((uint64_t)rows * q / P);
			g->w[g->nw].hi = (uint32_t)((uint64_t)rows * (q + 1) / P);
			g->nw++;
		}
	}
}

/* Pending tile pa's ACTIVATE, then the next pending tile's bias. */
void gemm_pend_activate(struct gemm *g)
{
	gemm_activate_pend(g, &g->pe[g->pa]);
	if (g->pa + 1 < g->npe)
		gemm_column_tile_params(g, g->pe[g->pa + 1].nt);
	g->pa++;
}

/* The pending end (ACTIVATEs, then the write-back pieces), one command per MATMUL slot s of a
 * group; flush: all of it. */
void gemm_pend_step(struct gemm *g, uint32_t s)
{
	if (g->pa < g->npe && s == g->pa)
		gemm_pend_activate(g);
	else if (g->pa == g->npe && g->iw < g->nw)
		gemm_write_piece(g, &g->w[g->iw++]);
}

void gemm_pend_flush(struct gemm *g)
{
	while (g->pa < g->npe)
		gemm_pend_activate(g);
	while (g->iw < g->nw)
		gemm_write_piece(g, &g->w[g->iw++]);
}

/* A chunk's start in either grouped order: K-tile 0 of A, the first weight tiles, the first
 * chunk's parameters, then the next A group. Returns the A groups emitted so far. */
uint32_t gemm_group_prologue(struct gemm *g, const struct tpu_gemm_params *p,
			     const struct gemm_chunkx *cx)
{
	uint32_t ng = gemm_a_groups(g), next_grp = 0;

	/* the pipeline's first chunk: the first parameters and weight tiles before A's first
	 * READ_HOST, so that the device reads it ahead (beside the MULT read) and the next one
	 * right behind it (RhDepth = 2) instead of after its own rows (measured 1024x256x32
	 * 36197 -> 36095) */
	bool early = g->dbl && cx->r0 == 0;

	next_grp = cx->pre;
	if (early)
		gemm_first_params(g, p, ~0u);
	else if (next_grp == 0)
		gemm_read_group(g, cx->r0, cx->rows, cx->abase, next_grp++);
	g->w_total = (size_t)g->NT * g->KT;
	g->w_issued = g->w_popped = 0;
	gemm_refill(g);
	if (early && next_grp == 0)
		gemm_read_group(g, cx->r0, cx->rows, cx->abase, next_grp++);
	if (cx->r0 == 0 && !early)
		gemm_first_params(g, p, ~0u);
	while (next_grp < ng && next_grp < 2)
		gemm_read_group(g, cx->r0, cx->rows, cx->abase, next_grp++);
	return next_grp;
}

/* MATMUL of K-tile kt of the chunk into ACC rows acc, popping its weight tile. */
void gemm_group_matmul(struct gemm *g, const struct gemm_chunkx *cx, uint32_t kt, uint32_t acc)
{
	EMIT(g, tpu_cmd_matmul, cx->abase + kt * cx->rows, acc, cx->rows,
	     TPU_MATMUL_POP | (kt ? TPU_MATMUL_ACCUMULATE : 0));
	g->w_popped++;
	gemm_refill(g);
}

bool gemm_group_slot(struct gemm *g, const struct gemm_chunkx *cx, uint32_t s, uint32_t np,
		     uint32_t acc, bool first_group, uint32_t bias_slot, uint32_t bias_nt,
		     uint32_t *next_grp)
{
	uint32_t kt = s / np, nslots = np * g->KT, own0 = *next_grp, ng = gemm_a_groups(g);

	gemm_group_matmul(g, cx, kt, acc);
	if (cx->r0 == 0 && first_group && g->uniform && s == (nslots > 1 ? 1u : 0u))
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0,
		     gemm_span(g->n, g->N, 0));
	/* A: two groups ahead of the first MATMUL that reads them */
	if (first_group && s % np == 0)
		while (*next_grp < ng && *next_grp <= gemm_a_group_of(g, kt) + 2)
			gemm_read_group(g, cx->r0, cx->rows, cx->abase, (*next_grp)++);
	/* the previous group's end beside this group's first MATMULs */
	gemm_pend_step(g, s);
	if (s == bias_slot) {
		while (g->pa < g->npe)
			gemm_pend_activate(g);
		gemm_column_tile_params(g, bias_nt);
	}
	return *next_grp != own0;
}

void gemm_grouped_chunk(struct gemm *g, const struct tpu_gemm_params *p,
			const struct gemm_chunkx *cx)
{
	uint32_t next_grp, NG = (g->NT + g->gp - 1) / g->gp, rows = cx->rows;

	g->pf_n = g->pf_q = 0;
	g->pf_q_tot = gemm_quiet_groups(g, rows);
	next_grp = gemm_group_prologue(g, p, cx);
	for (uint32_t gi = 0; gi < NG; gi++) {
		uint32_t t0 = gi * g->gp, np = g->NT - t0 < g->gp ? g->NT - t0 : g->gp;
		uint32_t G = g->gseq++, lead = g->npe + g->nw;
		/* (the bias late in the group: its read job holds the SQE prefetch off for a round
		 * trip, which early in the first group, with A and the tiles on the link, left the
		 * peek empty; measured 64x512x64 72.1 -> 72.5..73.1 %, 128x512x128 91.6 -> 92.0 %) */
		uint32_t nslots = np * g->KT, bias_slot = nslots > 4 ? nslots - 4 : nslots - 1;

		g->pa = 0;
		if (bias_slot < g->npe)
			bias_slot = g->npe < nslots ? g->npe : nslots - 1;
		for (uint32_t s = 0; s < nslots; s++) {
			uint32_t acc = gemm_acc_group(g, rows, G, t0 + s % np, 0);
			bool own = gemm_group_slot(g, cx, s, np, acc, gi == 0, bias_slot, t0,
						   &next_grp);

			gemm_prefetch_step(g, cx, gemm_quiet_slot(s, lead, nslots), own);
		}
		/* what did not fit beside this group's MATMULs */
		gemm_pend_flush(g);
		g->npe = np;
		for (uint32_t j = 0; j < np; j++)
			gemm_tile_pend(g, cx->r0, rows, t0 + j,
				       gemm_acc_group(g, rows, G, t0 + j, 0), 0, &g->pe[j]);
		gemm_pend_pieces(g);
		g->pa = 0;
	}
	gemm_prefetch_rest(g, cx);
	if (cx->nrows)
		return; /* the last group's end beside the next chunk's first MATMULs */
	gemm_pend_flush(g);
	g->npe = g->nw = g->iw = g->pa = 0;
}
