/* The column-tile schedule: the fallback of every shape no other schedule takes (int32 output
 * over several chunks, chunks of fewer than N rows, A longer than the UB holds, a device
 * without STREAM_MATMUL and too little UB or ACC for the grouped ones).
 *
 * For each column tile nt the K-tiles are multiplied in order (POP, ACCUMULATE for kt > 0); the
 * tile's bias (and per-channel multiplier/shift) are loaded after its fifth MATMUL (overlapping
 * the MXU; the previous tile's ACTIVATE is complete by then), then ACTIVATE puts the result into
 * the UB and WRITE_HOST the valid columns into the output. For int8 output the ACTIVATE comes
 * after the next tile's first MATMUL and the WRITE_HOST (in pieces of at most 96 rows) after its
 * second, third, ...: the device runs them beside those MATMULs (docs/device.md, "Overlap and
 * dependencies"), and the tiles' accumulators alternate between ACC rows [0, rows) and
 * [rows, 2 rows). Weight tiles are loaded ahead of their MATMUL, never more than FIFO_TILES of
 * them waiting in queue order. A non-resident A (K-tiles beyond the UB) is read K-tile by
 * K-tile into one slot before each MATMUL. */
#include "gemm_priv.h"

/* One K-tile into the single slot (non-resident A). */
static void read_a(struct gemm *g, size_t r0, uint32_t rows, uint32_t kt)
{
	uint32_t kc = gemm_span(g->k, g->N, kt);
	EMIT(g, tpu_cmd_read_host, g->abuf, gemm_a_off(g, r0, rows, kt), kc, 0, rows, kc);
}

/* Rows [first, first + count) of column tile nt's int8 output (UB rows after the A slots). */
static void write_out(struct gemm *g, size_t r0, uint32_t first, uint32_t count, uint32_t nt)
{
	uint32_t nc = gemm_span(g->n, g->N, nt);
	size_t off = (size_t)nt * g->N * g->m + (r0 + first) * nc;

	EMIT(g, tpu_cmd_write_host, g->out, off, nc, g->out_row + first, count, nc, 0);
}

/* The write-back of a column tile runs beside the next tile's MATMULs, but a WRITE_HOST holds
 * the command chain for ~1.06 link cycles per packed 16-byte row plus ~30 cycles of command
 * and CQE turn-around, longer than the one MATMUL of `rows` cycles the datapath holds: split
 * into pieces of at most 96 rows, one after each of the next tile's MATMULs from the second on
 * (measured at N = 16: 512^3 (171 rows) 94.7 -> 95.3 %, 512x64x512 88.9 -> 91.4 %; below 96
 * rows the extra commands cost more than they hide). */
static uint32_t wh_pieces(const struct gemm *g, uint32_t rows)
{
	uint32_t p = rows < 96 ? 1 : (rows + 95) / 96, mm = g->KT > 1 ? g->KT - 1 : 1;

	return p < mm ? p : mm;
}

/* The MATMUL (K-tile) after which piece q of the previous tile's write-back is emitted. */
static uint32_t wh_slot(const struct gemm *g, uint32_t q)
{
	return g->KT == 1 ? 0 : 1 + q < g->KT ? 1 + q : g->KT - 1;
}

/* ACC rows of column tile nt's accumulator: int8 output alternates two buffers, so that the
 * next tile's first MATMUL runs beside this tile's ACTIVATE. */
static uint32_t acc_row(const struct gemm *g, uint32_t rows, uint32_t nt)
{
	return g->q8 ? (nt % 2) * rows : 0;
}

static void activate(struct gemm *g, uint32_t rows, uint32_t nt)
{
	EMIT(g, tpu_cmd_activate, acc_row(g, rows, nt), g->out_row, rows,
	     g->lut ? TPU_ACTIVATE_LUT : 0);
}

/* int32 output: ACTIVATE in place in the ACC, then the rows out. */
static void raw_tail(struct gemm *g, size_t r0, uint32_t rows, uint32_t nt)
{
	uint32_t nc = gemm_span(g->n, g->N, nt);
	size_t off = (size_t)nt * g->N * g->m + r0 * nc; /* elements */

	EMIT(g, tpu_cmd_activate, 0, 0, rows, TPU_ACTIVATE_RAW32);
	EMIT(g, tpu_cmd_write_host, g->out, off * 4u, nc * 4u, 0, rows, nc, 1);
}

/* Whether the slot after MATMUL (nt, kt) of a chunk of `rows` rows holds a write-back that is
 * longer than that MATMUL: a single piece of fewer than 96 rows (see wh_pieces). */
static bool long_wh_slot(const struct gemm *g, uint32_t rows, uint32_t nt, uint32_t kt)
{
	return g->q8 && nt > 0 && rows < 96 && g->KT > 2 && kt == wh_slot(g, 0);
}

void gemm_column_chunk(struct gemm *g, const struct tpu_gemm_params *p, size_t r0, uint32_t rows)
{
	bool first = r0 == 0;

	if (g->resident)
		gemm_read_chunk(g, r0, rows);
	g->w_total = (size_t)g->NT * g->KT;
	g->w_issued = g->w_popped = 0;
	gemm_refill(g);
	if (first)
		gemm_first_params(g, p, ~0u);
	for (uint32_t nt = 0; nt < g->NT; nt++) {
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			if (!g->resident)
				read_a(g, r0, rows, kt);
			EMIT(g, tpu_cmd_matmul, (g->resident ? kt : 0) * rows, acc_row(g, rows, nt),
			     rows, TPU_MATMUL_POP | (kt ? TPU_MATMUL_ACCUMULATE : 0));
			uint32_t P = wh_pieces(g, rows);
			bool wh = false;

			for (uint32_t q = 0; q < P; q++)
				wh |= wh_slot(g, q) == kt;
			wh = wh && nt > 0 && g->q8;
			g->w_popped++;
			/* The slot of a write-back longer than its MATMUL leaves its weight load to
			 * the next slot while two tiles are still queued: at R = 64 the
			 * LOAD_WEIGHTS' push (~25 cycles of the command chain) came on top of the
			 * WRITE_HOST's ~90 beside one 64-cycle MATMUL (measured: 59 -> 34 MXU-idle
			 * cycles per column tile; two pushes fit in the next slot). */
			if (!(long_wh_slot(g, rows, nt, kt) && g->w_issued - g->w_popped >= 2))
				gemm_refill(g);
			if (first && nt == 0)
				gemm_first_params(g, p, kt);
			/* int8 output: the previous tile's ACTIVATE runs beside this tile's first
			 * MATMUL (other ACC buffer), its write-back beside the next (wh_pieces), this
			 * tile's bias beside the fifth (read ahead by the device while the MATMULs
			 * before it run; measured best among the third to ninth). */
			if (kt == 0 && nt > 0 && g->q8)
				activate(g, rows, nt - 1);
			for (uint32_t q = 0; q < P && wh; q++) {
				uint32_t lo = (uint32_t)((uint64_t)rows * q / P);
				uint32_t hi = (uint32_t)((uint64_t)rows * (q + 1) / P);
				if (wh_slot(g, q) == kt && hi > lo)
					write_out(g, r0, lo, hi - lo, nt - 1);
			}
			if (kt == (g->KT > 4 ? 4u : g->KT - 1))
				gemm_column_tile_params(g, nt);
		}
		if (!g->q8)
			raw_tail(g, r0, rows, nt);
	}
	if (g->q8) {
		activate(g, rows, g->NT - 1);
		write_out(g, r0, 0, rows, g->NT - 1);
	}
}
