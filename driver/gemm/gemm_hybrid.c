/* The hybrid schedule: the grouped schedule's shapes (gemm_grouped.c) with more than 8 column
 * tiles. The first group (gp tiles, K-outer) runs while A comes in, then the other column tiles
 * one by one (A resident), tile t's ACTIVATE beside tile t + 2's first MATMUL (three ACC
 * buffers), its write-back beside the MATMULs after it, tile t + 1's bias after that: one
 * ACTIVATE per column-tile transition, as in the column-tile order. */
#include "gemm_priv.h"

/* Choice rule (among the grouped shapes): with many column tiles the pairs' transitions (two
 * ACTIVATEs, a bias load between them, two write-backs) cost more than one per tile (measured
 * at N = 16: 64x256x256 78.8 -> 80.4 %, 256x128x512 93.2 -> 93.8 %, 512^3 98.0 -> 98.2 %); with
 * few (64x512x64, 4: 73.1 vs 71.4 %; 128x512x128, 8: 92.0 vs 91.6 %) the pairs are better. */
bool gemm_hybrid_fits(const struct gemm *g)
{
	return g->NT > 8;
}

void gemm_hybrid_chunk(struct gemm *g, const struct tpu_gemm_params *p,
		       const struct gemm_chunkx *cx)
{
	uint32_t next_grp, np = g->NT < g->gp ? g->NT : g->gp;
	uint32_t rows = cx->rows, nslots = np * g->KT, bias_slot = nslots - 1 < 5 ? nslots - 1 : 5;
	uint32_t ts0 = g->gseq;
	struct gemm_pend tp[3]; /* the tiles not yet activated, by ts % 3 */

	g->gseq += g->NT;
	if (bias_slot < g->npe)
		bias_slot = g->npe < nslots ? g->npe : nslots - 1;
	g->pa = 0;
	next_grp = gemm_group_prologue(g, p, cx);
	for (uint32_t s = 0; s < nslots; s++)
		(void)gemm_group_slot(g, cx, s, np, gemm_acc_group(g, rows, 0, s % np, ts0 + s % np),
				      true, bias_slot, 0, &next_grp);
	gemm_pend_flush(g);
	g->npe = g->nw = g->iw = g->pa = 0;
	for (uint32_t t = 0; t < np; t++)
		gemm_tile_pend(g, cx->r0, rows, t, gemm_acc_group(g, rows, 0, t, ts0 + t), ts0 + t,
			       &tp[t % 3]);
	for (uint32_t t = np; t < g->NT; t++) {
		uint32_t bias_kt = g->KT - 1 < 4 ? g->KT - 1 : 4;

		gemm_tile_pend(g, cx->r0, rows, t, gemm_acc_group(g, rows, 0, t, ts0 + t), ts0 + t,
			       &tp[t % 3]);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			gemm_group_matmul(g, cx, kt, tp[t % 3].acc);
			if (kt == 0) {
				g->pe[0] = tp[(t - 2) % 3];
				gemm_activate_pend(g, &g->pe[0]);
				g->npe = 1;
				gemm_pend_pieces(g);
				g->npe = 0;
			} else if (g->iw < g->nw) {
				gemm_write_piece(g, &g->w[g->iw++]);
			}
			if (kt == bias_kt)
				gemm_column_tile_params(g, t - 1);
		}
		while (g->iw < g->nw)
			gemm_write_piece(g, &g->w[g->iw++]);
	}
	/* the last two tiles (or the one) */
	g->npe = 0;
	for (uint32_t t = g->NT >= 2 ? g->NT - 2 : 0; t < g->NT; t++)
		g->pe[g->npe++] = tp[t % 3];
	gemm_pend_pieces(g);
	for (uint32_t t = 0; t < g->npe; t++) {
		gemm_activate_pend(g, &g->pe[t]);
		if (t + 1 < g->npe)
			gemm_column_tile_params(g, g->pe[t + 1].nt);
	}
	g->pa = g->npe;
	gemm_pend_flush(g);
	g->npe = g->nw = g->iw = g->pa = 0;
}
