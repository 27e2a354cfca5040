/* tpu_gemm: a whole int8 GEMM tiled onto the N x N array.
 *
 * Schedules: the column-tile order below (chunk); for int8 output with chunks of N..256 rows
 * the grouped one (chunk_groups / chunk_hyb, see "grouped schedule"), which loads A in K-tile
 * groups the device reads ahead beside the MATMULs instead of one READ_HOST up front; its
 * chunk pipeline (dbl, see there) where the column order would load each chunk's A up front
 * with few column tiles to hide it; and STREAM_MATMUL for M in one chunk (stream_schedule).
 *
 * Layout per chunk of R rows of A (R chosen so that the UB and ACC hold it):
 *   UB rows [kt*rows, kt*rows + rows)  A[r0.., kt*N .. kt*N+N)  (every K-tile resident), or, when K is
 *                             too long for that, one slot at row 0 reloaded before each MATMUL;
 *   UB rows after the A slots the int8 output of ACTIVATE;
 *   ACC rows [0, R)           the output column tile being accumulated (int8 output: tiles
 *                             alternate between [0, rows) and [rows, 2 rows)).
 * For each column tile nt the K-tiles are multiplied in order (POP, ACCUMULATE for kt > 0); the
 * tile's bias (and per-channel multiplier/shift) are loaded after its fifth MATMUL (overlapping
 * the MXU; the previous tile's ACTIVATE is complete by then), then ACTIVATE puts the result into
 * the UB and WRITE_HOST the valid columns into the output. For int8 output the ACTIVATE comes
 * after the next tile's first MATMUL and the WRITE_HOST (in pieces of at most 96 rows) after its
 * second, third, ...: the device runs them beside those MATMULs (docs/device.md, "Overlap and
 * dependencies"). Weight tiles are loaded ahead of their MATMUL, never more than
 * FIFO_TILES of them waiting in queue order. Chunks are of even size (R = ceil(m / chunks)).
 * The input zero point is folded into the bias on the host.
 *
 * The DMA buffers hold the matrices tile by tile so that every row stream is packed (STRIDE ==
 * COLS) and the device merges its rows into few large MRDs/MWRs: A chunk by chunk, each chunk
 * as its K-tiles one after the other (K-tile kt: the chunk's rows of span_k bytes), so that all
 * full-width K-tiles of a chunk are one READ_HOST into consecutive UB slots; B as column panels (panel nt: k rows of its span_n bytes, so a
 * weight tile is one contiguous block), the output as column panels (m rows of span_n
 * elements). The host copies in and out. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_limits.h"
#include "internal.h"

#define GEMM_TIMEOUT_MS 60000

/* A column tile of the grouped schedules whose ACTIVATE (ACC rows acc -> UB rows out) and
 * write-back are still to come, and a piece of such a write-back (rows lo..hi of pe[pe]). */
struct pend {
	size_t r0;
	uint32_t rows, nt, acc, out;
};

struct wpiece {
	uint32_t pe, lo, hi;
};

struct gemm {
	tpu_dev *dev;
	size_t m, k, n;
	uint32_t N, KT, NT, R, slots, out_row;
	bool q8, resident, lut;
	bool pairs;   /* the grouped schedule (chunk_groups) */
	uint32_t gp;  /* pairs: column tiles per group (2 or 4) */
	bool hyb;     /* pairs: only the first group, then column tiles one by one (chunk_hyb) */
	uint32_t ag;  /* pairs: full-width K-tiles of A per READ_HOST (after the first) */
	bool uniform; /* one multiplier and shift for every channel: loaded once */
	bool stream;  /* small M: STREAM_MATMUL per group of column tiles (stream_schedule) */
	bool fused;   /* stream, int8 out, uniform MULT/SHIFT: bias + ACTIVATE in the command */
	bool astream; /* fused: A's K-tiles in the first command's stream (OP0.A_STREAM) */
	bool wfirst;  /* astream: panel 0's first K-tile before A's K-tile 0 (OP0.W_FIRST) */
	bool wback;   /* fused: each command writes its output panels back (OP0.WRITE_BACK) */
	uint32_t kg;  /* astream: the first command's leading panels interleaved K-tile by K-tile
		       * (OP0.K_MAJOR, K_GROUP = kg; 1 = block-major) */
	bool sparams; /* fused: MULT and SHIFT at the first command's stream start (OP0.PARAMS) */
	bool dbl;     /* pairs over several chunks: two A regions (see "chunk pipeline") */
	uint32_t R0;  /* dbl: rows of the first chunk (R0 >= R; else R0 = R) */
	uint32_t gseq; /* pairs: groups, hyb: tiles begun (over the chunks with dbl) */
	struct pend pe[4]; /* pairs: the column tiles whose ACTIVATE / write-back is to come */
	uint32_t npe, pa;  /* their count, their ACTIVATEs emitted */
	struct wpiece w[4 * 3]; /* their write-back pieces (gp <= 4 tiles of <= 256 rows) */
	uint32_t nw, iw;
	uint32_t pf_n, pf_q, pf_q_tot; /* dbl: the next chunk's A groups read; quiet slots */
	tpu_buf *a, *b, *bias, *mult, *shift, *lutb, *out;
	struct tpu_cmd *cmds;
	size_t ncmd, cap;
	size_t w_issued, w_popped, w_total;
	int err; /* first builder error */
};

void tpu_gemm_params_init(struct tpu_gemm_params *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof(*p));
	p->clamp_min = -128;
	p->clamp_max = 127;
}

const char *tpu_gemm_last_error(tpu_dev *dev)
{
	return dev ? dev->gemm_err : "dev is NULL";
}

static int reject(tpu_dev *dev, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dev->gemm_err, sizeof(dev->gemm_err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int check_i8(tpu_dev *dev, const char *what, int32_t v)
{
	if (v < -128 || v > 127)
		return reject(dev, "%s: %d is outside -128..127", what, (int)v);
	return 0;
}

static int check_quant(tpu_dev *dev, size_t n, const struct tpu_gemm_params *p)
{
	if (p->quant_channels != 0 && p->quant_channels != 1 && p->quant_channels != n)
		return reject(dev, "quant_channels: %zu must be 0 (raw), 1 or n (%zu)",
			      p->quant_channels, n);
	if (p->quant_channels == 0) {
		if (p->lut)
			return reject(dev, "lut: needs int8 output (quant_channels 1 or n)");
		return 0;
	}
	if (!p->multiplier)
		return reject(dev, "multiplier: NULL with quant_channels %zu", p->quant_channels);
	if (!p->shift)
		return reject(dev, "shift: NULL with quant_channels %zu", p->quant_channels);
	for (size_t j = 0; j < p->quant_channels; j++) {
		if (p->multiplier[j] < 0)
			return reject(dev, "multiplier[%zu]: %d is negative (must be 0..2147483647)",
				      j, (int)p->multiplier[j]);
		if (p->shift[j] < -31 || p->shift[j] > 30)
			return reject(dev, "shift[%zu]: %d is outside -31..30", j,
				      (int)p->shift[j]);
	}
	return 0;
}

static int check_args(tpu_dev *dev, size_t m, size_t k, size_t n, const int8_t *a,
		      const int8_t *b, const struct tpu_gemm_params *p, const void *out)
{
	uint32_t N = dev->info.array_n;
	int err;

	if (!a)
		return reject(dev, "a: NULL");
	if (!b)
		return reject(dev, "b: NULL");
	if (!out)
		return reject(dev, "out: NULL");
	if (m == 0 || k == 0 || n == 0)
		return reject(dev, "%s: 0 (every dimension must be >= 1)",
			      m == 0 ? "m" : k == 0 ? "k" : "n");
	/* Strides and tile spans are 32-bit SQE fields. */
	if (k > UINT32_MAX - N)
		return reject(dev, "k: %zu is too large (row stride must fit 32 bits)", k);
	if (n > (UINT32_MAX - 4u * N) / N)
		return reject(dev, "n: %zu is too large (tile span must fit 32 bits)", n);
	if (m > SIZE_MAX / 4 / k || m > SIZE_MAX / 4 / n || k > SIZE_MAX / n)
		return reject(dev, "m x k x n: too large for host memory");
	if ((err = check_i8(dev, "in_zero_point", p->in_zero_point)) ||
	    (err = check_i8(dev, "out_zero_point", p->out_zero_point)) ||
	    (err = check_i8(dev, "clamp_min", p->clamp_min)) ||
	    (err = check_i8(dev, "clamp_max", p->clamp_max)))
		return err;
	if (p->clamp_min > p->clamp_max)
		return reject(dev, "clamp_min: %d is above clamp_max %d", (int)p->clamp_min,
			      (int)p->clamp_max);
	if ((err = check_quant(dev, n, p)))
		return err;
	return tpu_gemm_check_range(dev, k, p->in_zero_point);
}

/* ------------------------------------------------------------------ command list */

static struct tpu_cmd *next_cmd(struct gemm *g)
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

static void note(struct gemm *g, int err)
{
	if (err && !g->err)
		g->err = err;
}

#define EMIT(g, builder, ...)                                          \
	do {                                                           \
		struct tpu_cmd *c_ = next_cmd(g);                       \
		if (c_)                                                \
			note(g, builder(c_, __VA_ARGS__));             \
	} while (0)

static uint32_t span_of(size_t total, uint32_t N, uint32_t t)
{
	size_t left = total - (size_t)t * N;
	return left < N ? (uint32_t)left : N;
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
 * use, back to back (see to_panels/to_groups). */
static size_t b_off(const struct gemm *g, uint32_t nt, uint32_t kt)
{
	uint32_t nc = span_of(g->n, g->N, nt);

	if (!g->pairs || (g->hyb && nt >= g->gp))
		return (size_t)nt * g->N * g->k + (size_t)kt * g->N * nc;
	uint32_t t0 = nt / g->gp * g->gp;
	size_t gw = (size_t)(g->n - (size_t)t0 * g->N < (size_t)g->gp * g->N ?
			     g->n - (size_t)t0 * g->N : (size_t)g->gp * g->N);

	return (size_t)t0 * g->N * g->k + (size_t)kt * g->N * gw +
	       (size_t)span_of(g->k, g->N, kt) * (nt - t0) * g->N;
}

static void load_weights(struct gemm *g)
{
	uint32_t nt, kt;
	tile_of(g, g->w_issued, &nt, &kt);
	uint32_t nc = span_of(g->n, g->N, nt);
	size_t off = b_off(g, nt, kt);

	EMIT(g, tpu_cmd_load_weights, g->b, off, nc, span_of(g->k, g->N, kt), nc, 0);
	g->w_issued++;
}

/* Keep the FIFO as full as its depth allows, counted in queue order. */
static void refill(struct gemm *g)
{
	while (g->w_issued < g->w_total && g->w_issued - g->w_popped < g->dev->info.fifo_tiles)
		load_weights(g);
}

/* Offset of K-tile kt of the chunk at row r0 (rows rows) in the A buffer (see to_chunks). */
static size_t a_off(const struct gemm *g, size_t r0, uint32_t rows, uint32_t kt)
{
	return r0 * (g->dbl ? (size_t)g->KT * g->N : g->k) + (size_t)kt * g->N * rows;
}

/* K-tiles of A that are N bytes wide in the A buffer: with dbl all (the last one zero-padded:
 * a READ_HOST of rows narrower than N costs a packet per row, ~3x the link time), else the
 * full ones. */
static uint32_t a_full(const struct gemm *g)
{
	return g->dbl ? g->KT : (uint32_t)(g->k / g->N);
}

/* Rows of the chunk at row r0 (with dbl the first has R0 rows, the others R). */
static uint32_t chunk_rows(const struct gemm *g, size_t r0)
{
	size_t left = g->m - r0, R = r0 == 0 ? g->R0 : g->R;

	return left < R ? (uint32_t)left : (uint32_t)R;
}

/* One K-tile into the single slot (non-resident A). */
static void read_a(struct gemm *g, size_t r0, uint32_t rows, uint32_t kt)
{
	uint32_t kc = span_of(g->k, g->N, kt);
	EMIT(g, tpu_cmd_read_host, g->a, a_off(g, r0, rows, kt), kc, 0, rows, kc);
}

/* The whole chunk, slot kt at UB rows kt x rows: the full-width K-tiles are consecutive in the
 * buffer and in the UB, so they are one READ_HOST (the device streams it without a pause);
 * a narrower last K-tile is a second one. */
static void read_chunk(struct gemm *g, size_t r0, uint32_t rows)
{
	uint32_t full = (uint32_t)(g->k / g->N), kc = span_of(g->k, g->N, g->KT - 1);

	if (full)
		EMIT(g, tpu_cmd_read_host, g->a, a_off(g, r0, rows, 0), g->N, 0, full * rows,
		     g->N);
	if (full < g->KT)
		EMIT(g, tpu_cmd_read_host, g->a, a_off(g, r0, rows, full), kc, full * rows, rows,
		     kc);
}

/* The column tile's bias (and multiplier/shift). Emitted after one of the tile's first MATMULs
 * (see chunk): the previous tile's ACTIVATE has completed by then, and the loads overlap the
 * MXU instead of waiting in the tail. */
static void column_tile_params(struct gemm *g, uint32_t nt)
{
	uint32_t nc = span_of(g->n, g->N, nt);
	size_t poff = (size_t)nt * g->N * 4u;

	EMIT(g, tpu_cmd_load_params, TPU_PARAM_BIAS, g->bias, poff, 0, nc);
	if (g->q8 && !g->uniform) {
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_MULT, g->mult, poff, 0, nc);
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, poff, 0, nc);
	}
}

/* Rows [first, first + count) of column tile nt's int8 output (UB rows after the A slots). */
static void write_out(struct gemm *g, size_t r0, uint32_t first, uint32_t count, uint32_t nt)
{
	uint32_t nc = span_of(g->n, g->N, nt);
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
	uint32_t nc = span_of(g->n, g->N, nt);
	size_t off = (size_t)nt * g->N * g->m + r0 * nc; /* elements */

	EMIT(g, tpu_cmd_activate, 0, 0, rows, TPU_ACTIVATE_RAW32);
	EMIT(g, tpu_cmd_write_host, g->out, off * 4u, nc * 4u, 0, rows, nc, 1);
}

/* The output parameters loaded once (before the first ACTIVATE), placed after the first chunk's
 * READ_HOST and weight tiles and over its first MATMULs: the device reads a BIAS/MULT/SHIFT
 * vector ahead while the commands before it run (one at a time), so MULT is read during the
 * READ_HOST and SHIFT during the first MATMUL instead of one round trip each up front. */
static void first_params(struct gemm *g, const struct tpu_gemm_params *p, uint32_t kt)
{
	uint32_t nc = span_of(g->n, g->N, 0);

	if (!g->q8)
		return;
	if (kt == ~0u) {
		EMIT(g, tpu_cmd_load_output, p->out_zero_point, p->clamp_min, p->clamp_max);
		if (g->uniform)
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_MULT, g->mult, 0, 0, nc);
	} else if (kt == (g->KT > 1 ? 1u : 0u) && g->uniform) {
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0, nc);
	}
}

/* Whether the slot after MATMUL (nt, kt) of a chunk of `rows` rows holds a write-back that is
 * longer than that MATMUL: a single piece of fewer than 96 rows (see wh_pieces and chunk). */
static bool long_wh_slot(const struct gemm *g, uint32_t rows, uint32_t nt, uint32_t kt)
{
	return g->q8 && nt > 0 && rows < 96 && g->KT > 2 && kt == wh_slot(g, 0);
}

static void chunk(struct gemm *g, const struct tpu_gemm_params *p, size_t r0, uint32_t rows)
{
	bool first = r0 == 0;

	if (g->resident)
		read_chunk(g, r0, rows);
	g->w_total = (size_t)g->NT * g->KT;
	g->w_issued = g->w_popped = 0;
	refill(g);
	if (first)
		first_params(g, p, ~0u);
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
				refill(g);
			if (first && nt == 0)
				first_params(g, p, kt);
			/* int8 output: the previous tile's ACTIVATE runs beside this tile's first
			 * MATMUL (other ACC buffer), its write-back beside the next (wh_pieces), this tile's
			 * bias beside the fifth (read ahead by the device while the MATMULs before
			 * it run; measured best among the third to ninth). */
			if (kt == 0 && nt > 0 && g->q8)
				activate(g, rows, nt - 1);
			for (uint32_t q = 0; q < P && wh; q++) {
				uint32_t lo = (uint32_t)((uint64_t)rows * q / P);
				uint32_t hi = (uint32_t)((uint64_t)rows * (q + 1) / P);
				if (wh_slot(g, q) == kt && hi > lo)
					write_out(g, r0, lo, hi - lo, nt - 1);
			}
			if (kt == (g->KT > 4 ? 4u : g->KT - 1))
				column_tile_params(g, nt);
		}
		if (!g->q8)
			raw_tail(g, r0, rows, nt);
	}
	if (g->q8) {
		activate(g, rows, g->NT - 1);
		write_out(g, r0, 0, rows, g->NT - 1);
	}
}

/* ------------------------------------------------------------------ grouped schedule
 *
 * tpu_gemm's A load used to be one READ_HOST per chunk before the first MATMUL, with the MXU
 * idle while it streamed (75-86 % of the idle cycles of 64x512x64 and 128x512x128). The
 * device reads a READ_HOST of at most StageRows rows ahead, on the weight tiles' row stream,
 * while earlier commands run, and commits it beside the next MATMULs (docs/device.md, "Overlap
 * and dependencies"). So here A comes in groups of K-tiles (the first one alone, then `ag`),
 * each READ_HOST two groups ahead of the first MATMUL that reads it; and the column tiles go in
 * groups of gp, each group's K-tiles in the outer loop (MATMUL (t0, kt), (t0 + 1, kt), ...), so
 * that a K-tile of A is read once per gp MATMULs and the link (A rows, gp weight tiles and the
 * SQEs per K-tile) stays below the compute time. A group's accumulators are ACC buffers
 * 0..gp-1 or gp..2gp-1 (alternating), their int8 outputs gp UB regions. The previous group's
 * ACTIVATEs run beside this group's first MATMULs (K-tile 0: none accumulates), each tile's
 * bias loaded after the ACTIVATE before it, its write-back beside the MATMULs after them. */

/* the chunk pipeline (dbl); 0 = off */
#ifndef GEMM_DBL
#define GEMM_DBL 1
#endif
#ifndef GEMM_DBL_MAX_R
#define GEMM_DBL_MAX_R 128u
#endif

/* the device's read-ahead limit for a READ_HOST (StageRows of the sim and ASIC builds); a
 * device with less just runs the READ_HOST in the command chain */
#define GEMM_RA_ROWS 256u

/* Full-width K-tile groups: K-tile 0 alone (the first MATMUL waits for it), then ag each. */
static uint32_t a_full_groups(const struct gemm *g)
{
	uint32_t full = a_full(g);
	return full ? 1 + (full - 1 + g->ag - 1) / g->ag : 0;
}

static uint32_t a_groups(const struct gemm *g)
{
	return a_full_groups(g) + (a_full(g) < g->KT ? 1 : 0);
}

/* The group holding K-tile kt, and a group's first K-tile. */
static uint32_t a_group_of(const struct gemm *g, uint32_t kt)
{
	uint32_t full = a_full(g);
	if (kt >= full)
		return a_full_groups(g);
	return kt == 0 ? 0 : 1 + (kt - 1) / g->ag;
}

static uint32_t a_group_first(const struct gemm *g, uint32_t grp)
{
	if (grp >= a_full_groups(g))
		return a_full(g);
	return grp == 0 ? 0 : 1 + (grp - 1) * g->ag;
}

/* K-tiles per A group after the first for a chunk of `rows` rows: a READ_HOST of at most
 * GEMM_RA_ROWS rows, at most 2 K-tiles. */
static uint32_t ag_of(uint32_t rows)
{
	uint32_t ag = rows ? GEMM_RA_ROWS / rows : 1;

	return ag > 2 ? 2 : ag < 1 ? 1 : ag;
}

/* One group of K-tiles of the chunk into their UB slots (as read_chunk, a part of it), the
 * chunk's K-tile 0 at UB row base. */
static void read_group(struct gemm *g, size_t r0, uint32_t rows, uint32_t base, uint32_t grp)
{
	uint32_t full = a_full(g), kt0 = a_group_first(g, grp);

	if (grp < a_full_groups(g)) {
		uint32_t n = grp == 0 ? 1 : full - kt0 < g->ag ? full - kt0 : g->ag;
		EMIT(g, tpu_cmd_read_host, g->a, a_off(g, r0, rows, kt0), g->N, base + kt0 * rows,
		     n * rows, g->N);
	} else {
		uint32_t kc = span_of(g->k, g->N, full);
		EMIT(g, tpu_cmd_read_host, g->a, a_off(g, r0, rows, full), kc, base + full * rows,
		     rows, kc);
	}
}

/* The chunk pipeline (dbl, session 11). The grouped schedule needs a chunk of at most
 * GEMM_RA_ROWS rows; where A does not fit that in one chunk, the column order loaded each
 * chunk's A (KT x R rows) with one READ_HOST while the MXU waited, and finished each chunk
 * (ACTIVATE, write-back) before the next began: 1024x256x32, R = 342, 60 % (docs/performance.md,
 * session 11). With dbl (plan: int8 output, resident A, the single-region grouped schedule not
 * applicable, at most 8 column tiles, more than one chunk) the chunks are of at most
 * GEMM_DBL_MAX_R rows (the first R0 = twice that, at most GEMM_RA_ROWS, where the UB and ACC
 * hold it) in the pairs order, their A in two UB regions (region 0 at row 0 for KT x R0 rows,
 * region 1 after it; chunk c's K-tile kt at its region + kt x rows; the output regions after
 * both): chunk c reads chunk c + 1's A groups (READ_HOSTs of <= 256 rows, read ahead and
 * committed beside the MATMULs) into the other region in its "quiet" slots (prefetch_step),
 * and chunk c's last group ends (its ACTIVATEs and write-back pieces, struct pend) beside
 * chunk c + 1's first MATMULs, as a group ends beside the next group's within a chunk; the ACC
 * buffers alternate by group over all chunks. Only the first chunk reads its own A (two groups
 * ahead, as without dbl), and the next chunk's too: the device reads one READ_HOST ahead at a
 * time, each ~105 cycles of round trip plus its rows, so that chunk is READ_HOST-bound, which
 * the longer first chunk evens out. Since session 12 the sim devices read a second READ_HOST
 * ahead right behind the first (tpu_device RhDepth = 2), the first chunk's parameters and
 * weight tiles precede its first READ_HOST (group_prologue) and the next chunk's READ_HOSTs
 * avoid the slots of its own (prefetch_step): 1024x256x32 38693 -> 36095 cycles (84.7 ->
 * 90.8 %), 768x256x64 53461 -> 52719. A's last K-tile is zero-padded to N bytes in the A buffer
 * (a_full): a READ_HOST of narrower rows costs a link packet per row.
 * The device (checked in session 11): a STREAM_MATMUL ends only after its last ACTIVATE and
 * write-back, and the next command's stream starts after it (read-aheads are dropped), so an
 * M-chunked stream schedule (each chunk's A in its own command's stream) would leave the MXU
 * idle ~3 cycles per row of A at every chunk boundary (the last block's ACTIVATE and
 * write-back, the stream's round trip and A's first K-tile): ~86 % at 1024x256x32 estimated,
 * so this schedule uses the READ_HOST read-ahead and background commit instead.
 * Measured (N = 16, default link; docs/performance.md): GEMM_DBL_MAX_R 128 was the best of
 * 96/128/160/256 (1024x256x32 77.7/83.8/78.8/80.7 % with even chunks), the longer first
 * chunk 84.0 -> 84.8 %; a FENCE on each chunk's first MATMUL (to keep the device's union of
 * rows read by MATMULs in flight to one region), a partial first prefetch (the rest read by
 * the next chunk itself) and READ_HOSTs in the write-back slots did not pay; with more column
 * tiles (hyb) or chunks that fit the single region the grouped schedule stays (512x64x512 92.1
 * vs 87.3..90.9 %, 512^3 98.2 vs 97.7 %), and with M in one chunk the stream schedule
 * (512x64x64 74.4 vs 66.7 %). */

/* A chunk of the grouped schedules: rows r0.. of A (rows of them), its K-tile kt at UB rows
 * abase + kt x rows, its first pre A groups read by the chunk before (dbl); nrows > 0: the
 * next chunk (rows nr0.., K-tile 0 at UB row nbase), whose first npf A groups this chunk
 * reads (dbl). */
struct chunkx {
	size_t r0, nr0;
	uint32_t rows, abase, nrows, nbase;
	uint32_t pre, npf; /* A groups of this chunk read before it, of the next read in it */
};

/* Buffer stride of the ACC and output regions: the chunk's rows, or R when chunks overlap. */
static uint32_t gstride(const struct gemm *g, uint32_t rows)
{
	return g->dbl ? g->R0 : rows;
}

/* ACC rows of column tile nt (group gi's tile j = nt % gp, or hyb: the tile's sequence
 * number ts): pairs 2 x gp buffers alternating by group (over all chunks with dbl), hyb 3. */
static uint32_t acc_group(const struct gemm *g, uint32_t rows, uint32_t gi, uint32_t nt,
			  uint32_t ts)
{
	if (g->hyb)
		return ts % 3u * gstride(g, rows);
	return (gi % 2 * g->gp + nt % g->gp) * gstride(g, rows);
}

static void tile_pend(struct gemm *g, size_t r0, uint32_t rows, uint32_t nt, uint32_t acc,
		      uint32_t ts, struct pend *pe)
{
	pe->r0 = r0;
	pe->rows = rows;
	pe->nt = nt;
	pe->acc = acc;
	pe->out = g->out_row + (g->hyb ? ts : nt) % g->gp * gstride(g, rows);
}

static void activate_pend(struct gemm *g, const struct pend *pe)
{
	EMIT(g, tpu_cmd_activate, pe->acc, pe->out, pe->rows, g->lut ? TPU_ACTIVATE_LUT : 0);
}

static void write_piece(struct gemm *g, const struct wpiece *w)
{
	const struct pend *pe = &g->pe[w->pe];
	uint32_t nc = span_of(g->n, g->N, pe->nt);
	size_t off = (size_t)pe->nt * g->N * g->m + (pe->r0 + w->lo) * nc;

	EMIT(g, tpu_cmd_write_host, g->out, off, nc, pe->out + w->lo, w->hi - w->lo, nc, 0);
}

/* Pieces of at most 96 rows per tile (see wh_pieces), for a tile of `rows` rows. */
static uint32_t pieces_of(uint32_t rows)
{
	return rows < 96 ? 1 : (rows + 95) / 96;
}

/* The write-back of the pending tiles pe[0 .. npe - 1] in pieces (g->w). */
static void pend_pieces(struct gemm *g)
{
	g->nw = g->iw = 0;
	for (uint32_t t = 0; t < g->npe; t++) {
		uint32_t P = pieces_of(g->pe[t].rows), rows = g->pe[t].rows;
		for (uint32_t q = 0; q < P; q++) {
			g->w[g->nw].pe = t;
			g->w[g->nw].lo = (uint32_t)((uint64_t)rows * q / P);
			g->w[g->nw].hi = (uint32_t)((uint64_t)rows * (q + 1) / P);
			g->nw++;
		}
	}
}

/* Pending tile j's ACTIVATE, then the next pending tile's bias. */
static void pend_activate(struct gemm *g)
{
	activate_pend(g, &g->pe[g->pa]);
	if (g->pa + 1 < g->npe)
		column_tile_params(g, g->pe[g->pa + 1].nt);
	g->pa++;
}

/* The pending end (ACTIVATEs, then the write-back pieces), one command per MATMUL slot s of a
 * group; flush: all of it. */
static void pend_step(struct gemm *g, uint32_t s)
{
	if (g->pa < g->npe && s == g->pa)
		pend_activate(g);
	else if (g->pa == g->npe && g->iw < g->nw)
		write_piece(g, &g->w[g->iw++]);
}

static void pend_flush(struct gemm *g)
{
	while (g->pa < g->npe)
		pend_activate(g);
	while (g->iw < g->nw)
		write_piece(g, &g->w[g->iw++]);
}

/* A chunk's start in either grouped order: K-tile 0 of A, the first weight tiles, the first
 * chunk's parameters, then the next A group. Returns the A groups emitted so far. */
static uint32_t group_prologue(struct gemm *g, const struct tpu_gemm_params *p,
			       const struct chunkx *cx)
{
	uint32_t ng = a_groups(g), next_grp = 0;

	/* dbl's first chunk: the first parameters and weight tiles before A's first READ_HOST, so
	 * that the device reads it ahead (beside the MULT read) and the next one right behind it
	 * (RhDepth = 2) instead of after its own rows (measured 1024x256x32 36197 -> 36095) */
	bool early = g->dbl && cx->r0 == 0;

	next_grp = cx->pre;
	if (early)
		first_params(g, p, ~0u);
	else if (next_grp == 0)
		read_group(g, cx->r0, cx->rows, cx->abase, next_grp++);
	g->w_total = (size_t)g->NT * g->KT;
	g->w_issued = g->w_popped = 0;
	refill(g);
	if (early && next_grp == 0)
		read_group(g, cx->r0, cx->rows, cx->abase, next_grp++);
	if (cx->r0 == 0 && !early)
		first_params(g, p, ~0u);
	while (next_grp < ng && next_grp < 2)
		read_group(g, cx->r0, cx->rows, cx->abase, next_grp++);
	return next_grp;
}

/* dbl: the next chunk's A, read beside this chunk's MATMULs. Its a_groups READ_HOSTs go into
 * the chunk's "quiet" slots (after which the next MATMUL slot has no ACTIVATE or write-back:
 * those would wait in the chain for the READ_HOST's commit), spread evenly; what finds no
 * slot follows the chunk's last MATMUL. A slot that already holds a READ_HOST of the chunk's
 * own A (the first chunk) is skipped (defer): two READ_HOSTs in one slot, the second waiting
 * in the chain for the first's commit, held the next MATMUL back (measured 1024x256x32
 * 36544 -> 36197, 768x256x64 53036 -> 52821). */
static void prefetch_step(struct gemm *g, const struct chunkx *cx, bool quiet, bool defer)
{
	uint32_t ng = cx->npf;

	if (!cx->nrows || !quiet)
		return;
	if (defer) {
		g->pf_q++;
		return;
	}
	uint32_t ag = g->ag;

	g->ag = ag_of(cx->nrows); /* (the groups of the next chunk) */
	while (g->pf_n < ng && (uint64_t)g->pf_n * g->pf_q_tot <= (uint64_t)g->pf_q * ng)
		read_group(g, cx->nr0, cx->nrows, cx->nbase, g->pf_n++);
	g->ag = ag;
	g->pf_q++;
}

static void prefetch_rest(struct gemm *g, const struct chunkx *cx)
{
	uint32_t ag = g->ag;

	g->ag = ag_of(cx->nrows);
	while (cx->nrows && g->pf_n < cx->npf)
		read_group(g, cx->nr0, cx->nrows, cx->nbase, g->pf_n++);
	g->ag = ag;
}

/* The slots of a group of np tiles (nslots MATMULs) whose pending end takes lead slots. */
static bool quiet_slot(uint32_t s, uint32_t lead, uint32_t nslots)
{
	return s + 1 >= lead && s + 2 <= nslots;
}

/* Quiet slots of the chunk in the grouped order (pairs), given the pending end at its start. */
static uint32_t quiet_groups(const struct gemm *g, uint32_t rows)
{
	uint32_t NG = (g->NT + g->gp - 1) / g->gp, q = 0, lead = g->npe + g->nw;

	for (uint32_t gi = 0; gi < NG; gi++) {
		uint32_t t0 = gi * g->gp, np = g->NT - t0 < g->gp ? g->NT - t0 : g->gp;
		for (uint32_t s = 0; s < np * g->KT; s++)
			q += quiet_slot(s, lead, np * g->KT);
		lead = np + np * pieces_of(rows);
	}
	return q;
}

/* MATMUL of K-tile kt of the chunk into ACC rows acc, popping its weight tile. */
static void group_matmul(struct gemm *g, const struct chunkx *cx, uint32_t kt, uint32_t acc)
{
	EMIT(g, tpu_cmd_matmul, cx->abase + kt * cx->rows, acc, cx->rows,
	     TPU_MATMUL_POP | (kt ? TPU_MATMUL_ACCUMULATE : 0));
	g->w_popped++;
	refill(g);
}

static void chunk_groups(struct gemm *g, const struct tpu_gemm_params *p, const struct chunkx *cx)
{
	bool first = cx->r0 == 0;
	uint32_t ng = a_groups(g), next_grp, NG = (g->NT + g->gp - 1) / g->gp, rows = cx->rows;

	g->pf_n = g->pf_q = 0;
	g->pf_q_tot = quiet_groups(g, rows);
	next_grp = group_prologue(g, p, cx);
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
			uint32_t kt = s / np, j = s % np;

			group_matmul(g, cx, kt, acc_group(g, rows, G, t0 + j, 0));
			if (first && gi == 0 && g->uniform && s == (nslots > 1 ? 1u : 0u))
				EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0,
				     span_of(g->n, g->N, 0));
			uint32_t own0 = next_grp; /* (a READ_HOST of its own in this slot) */

			/* A: two groups ahead of the first MATMUL that reads them */
			if (gi == 0 && j == 0)
				while (next_grp < ng && next_grp <= a_group_of(g, kt) + 2)
					read_group(g, cx->r0, rows, cx->abase, next_grp++);
			/* the previous group's end beside this group's first MATMULs */
			pend_step(g, s);
			if (s == bias_slot) {
				while (g->pa < g->npe)
					pend_activate(g);
				column_tile_params(g, t0);
			}
			prefetch_step(g, cx, quiet_slot(s, lead, nslots), next_grp != own0);
		}
		/* what did not fit beside this group's MATMULs */
		pend_flush(g);
		g->npe = np;
		for (uint32_t j = 0; j < np; j++)
			tile_pend(g, cx->r0, rows, t0 + j, acc_group(g, rows, G, t0 + j, 0), 0,
				  &g->pe[j]);
		pend_pieces(g);
		g->pa = 0;
	}
	prefetch_rest(g, cx);
	if (cx->nrows)
		return; /* the last group's end beside the next chunk's first MATMULs */
	pend_flush(g);
	g->npe = g->nw = g->iw = g->pa = 0;
}

/* The hybrid: the first group (gp tiles, K-outer) while A comes in, then the other column
 * tiles one by one (A resident), tile t's ACTIVATE beside tile t + 2's first MATMUL (three
 * ACC buffers), its write-back beside the MATMULs after it, tile t + 1's bias after that:
 * one ACTIVATE per column-tile transition, as in the column-tile order. */
static void chunk_hyb(struct gemm *g, const struct tpu_gemm_params *p, const struct chunkx *cx)
{
	bool first = cx->r0 == 0;
	uint32_t ng = a_groups(g), next_grp, np = g->NT < g->gp ? g->NT : g->gp, rows = cx->rows;
	uint32_t nslots = np * g->KT, bias_slot = nslots - 1 < 5 ? nslots - 1 : 5;
	uint32_t ts0 = g->gseq;
	struct pend tp[3]; /* the tiles not yet activated, by ts % 3 */

	g->gseq += g->NT;
	if (bias_slot < g->npe)
		bias_slot = g->npe < nslots ? g->npe : nslots - 1;
	g->pa = 0;
	next_grp = group_prologue(g, p, cx);
	for (uint32_t s = 0; s < nslots; s++) {
		uint32_t kt = s / np, j = s % np;

		group_matmul(g, cx, kt, acc_group(g, rows, 0, j, ts0 + j));
		if (first && g->uniform && s == (nslots > 1 ? 1u : 0u))
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0,
			     span_of(g->n, g->N, 0));
		if (j == 0)
			while (next_grp < ng && next_grp <= a_group_of(g, kt) + 2)
				read_group(g, cx->r0, rows, cx->abase, next_grp++);
		pend_step(g, s);
		if (s == bias_slot) {
			while (g->pa < g->npe)
				pend_activate(g);
			column_tile_params(g, 0);
		}
	}
	pend_flush(g);
	g->npe = g->nw = g->iw = g->pa = 0;
	for (uint32_t t = 0; t < np; t++)
		tile_pend(g, cx->r0, rows, t, acc_group(g, rows, 0, t, ts0 + t), ts0 + t, &tp[t % 3]);
	for (uint32_t t = np; t < g->NT; t++) {
		uint32_t bias_kt = g->KT - 1 < 4 ? g->KT - 1 : 4;

		tile_pend(g, cx->r0, rows, t, acc_group(g, rows, 0, t, ts0 + t), ts0 + t, &tp[t % 3]);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			group_matmul(g, cx, kt, tp[t % 3].acc);
			if (kt == 0) {
				g->pe[0] = tp[(t - 2) % 3];
				activate_pend(g, &g->pe[0]);
				g->npe = 1;
				pend_pieces(g);
				g->npe = 0;
			} else if (g->iw < g->nw) {
				write_piece(g, &g->w[g->iw++]);
			}
			if (kt == bias_kt)
				column_tile_params(g, t - 1);
		}
		while (g->iw < g->nw)
			write_piece(g, &g->w[g->iw++]);
	}
	/* the last two tiles (or the one) */
	g->npe = 0;
	for (uint32_t t = g->NT >= 2 ? g->NT - 2 : 0; t < g->NT; t++)
		g->pe[g->npe++] = tp[t % 3];
	pend_pieces(g);
	for (uint32_t t = 0; t < g->npe; t++) {
		activate_pend(g, &g->pe[t]);
		if (t + 1 < g->npe)
			column_tile_params(g, g->pe[t + 1].nt);
	}
	g->pa = g->npe;
	pend_flush(g);
	g->npe = g->nw = g->iw = g->pa = 0;
}

/* ------------------------------------------------------------------ stream schedule
 *
 * Small M (one chunk of R = m rows, at most GEMM_STREAM_M): no weight tile is reused across
 * MATMULs of many rows, so a LOAD_WEIGHTS + MATMUL pair per tile costs ~58 cycles of command
 * overhead against ~17 link cycles of data (and its SQEs a third of the link). Instead one
 * STREAM_MATMUL (docs/spec.md 6.11) streams the column panels of B (contiguous: panel nt is k
 * rows of its width) of up to min(255, ACC rows / R) column tiles through the FIFO at link rate
 * into ACC rows (tile c of the group at (c - c0) x R), then each tile's bias and ACTIVATE (int8: into
 * UB rows out_row + nt x R, written back at the end with one WRITE_HOST, since the output
 * panels of R rows are contiguous too; int32: in place and written back per tile). */
/* Measured at N = 16 against the other schedules (cycles, stream vs old): 16x512x512 20703 vs
 * 58633, 32x512x512 38653 vs 60120, 48x512x512 56794 vs 61205, 48x256x256 16707 vs 18586,
 * but 64x512x512 74738 vs 71964, 64x256x256 21512 vs 20385: the crossover lay between 48 and
 * 64 rows (above it the grouped schedule reuses each tile for enough rows). Since each block's
 * ACTIVATE runs beside the next block's MATMULs (session 8, second round): 64x256x256 20001 vs
 * 20385, 64x512x512 71579 vs 71964, 64x128x128 6668 vs 6807, 64x256x64 6815 vs 6992, but
 * 64x512x64 12135 vs 11306 (the A load before the stream). Since A comes in the first
 * command's stream (A_STREAM, session 9), stream vs grouped at 64 rows: 64x512x64 10580 vs
 * 11306, 64x256x64 6014 vs 6993, 64x128x128 6378 vs 6822, 64x512x512 69916 vs 71975, 64x64x64
 * 2892 vs 3149, 64x128x64 3762 vs 4342; above 64 rows it pays little or not (80x256x256 23722
 * vs 24259, 96x256x256 28240 vs 28510, 128x256x256 37048 vs 36014, 128x512x128 36281 vs
 * 35713): up to 64 rows. Session 10 (K-major first command, MULT/SHIFT in the stream, the
 * first SQE block, the host side): with int8 output the fused stream schedule wins at every
 * row count where it fits one chunk (grouped vs stream: 128x128x128 10868 vs 9433,
 * 128x512x128 35447 vs 34009, 256x256x256 68974 vs 68066, 256x128x256 36205 vs 35298,
 * 1000x64x16 11233 vs 8014, 100x100x100 7441 vs 6484, no shape worse), so the row limit
 * holds only where the output is not fused (int32: the stream schedule ~100-250 cycles
 * slower at 128..1024 rows). */
#define GEMM_STREAM_M 64
/* A's K-tiles in the first STREAM_MATMUL's stream (session 9); 0 = A by READ_HOST first */
#ifndef GEMM_ASTREAM
#define GEMM_ASTREAM 1
#endif
/* Panel 0's first K-tile before A's K-tile 0 in the first STREAM_MATMUL's stream (session 12,
 * OP0.W_FIRST: the device chains that MATMUL on A's rows as they come in, so the MXU starts
 * after one tile of the link instead of after A's whole K-tile 0); 0 = A's K-tile 0 first */
#ifndef GEMM_WFIRST
#define GEMM_WFIRST 1
#endif
/* Panels interleaved with A in the first STREAM_MATMUL (session 10): 0 = chosen by
 * stream_kgroup, 1 = block-major (none), else at most that many */
#ifndef GEMM_KGROUP
#define GEMM_KGROUP 0
#endif
/* MULT and SHIFT in the first fused STREAM_MATMUL's stream (session 10); 0 = LOAD_PARAMS */
#ifndef GEMM_SPARAMS
#define GEMM_SPARAMS 1
#endif
/* The output panels written back by the STREAM_MATMULs (session 9); 0 = one WRITE_HOST after */
#ifndef GEMM_WBACK
#define GEMM_WBACK 1
#endif

/* Panels of the first fused command interleaved K-tile by K-tile with A (OP0.K_MAJOR): block
 * by block, block 0 carries A (R rows per K-tile) beside its own MATMULs and is link-bound when
 * R + N rows (+ the MRD headers) take longer than R MXU cycles; kg panels share each K-tile's
 * A rows (R + kg x N rows per kg x R cycles). Each interleaved panel but the last pays ~R + 2N
 * MXU-idle cycles for its ACTIVATE (it needs the ACC read port, which the next panel's
 * accumulating MATMUL uses), so kg is the fewest panels that bring the link under the MXU with
 * 1/8 to spare: 8 x (R + kg x N) <= 7 x kg x R. See docs/performance.md, session 10. */
static uint32_t stream_kgroup(const struct gemm *g, const struct tpu_info *in)
{
	uint32_t full = (uint32_t)(g->n / g->N), cmax = in->acc_rows / g->R, kg;

	if (cmax > TPU_STREAM_MATMUL_MAX_BLOCKS)
		cmax = TPU_STREAM_MATMUL_MAX_BLOCKS;
	if (full > cmax)
		full = cmax;
	if (!g->astream || GEMM_KGROUP == 1 || g->KT < 2)
		return 1;
	if (GEMM_KGROUP)
		return GEMM_KGROUP < full ? GEMM_KGROUP : full;
	for (kg = 2; kg <= full && kg <= 4; kg++)
		if (8ull * (g->R + (uint64_t)kg * g->N) <= 7ull * kg * g->R)
			return kg;
	return 1;
}

/* Rows of MULT and SHIFT at the first command's stream start (sparams). */
static size_t stream_prows(const struct gemm *g)
{
	return g->sparams ? TPU_STREAM_MATMUL_PARAMS_ROWS : 0;
}

/* Rows of A in the first panel's stream (astream: the KT K-tiles of R rows, N bytes each). */
static size_t stream_arows(const struct gemm *g)
{
	return g->astream ? (size_t)g->KT * g->R : 0;
}

/* Offset of column panel c in the B buffer of the stream schedule: fused, each full panel
 * (k rows of N) is followed by its bias vector (TPU_STREAM_MATMUL_BIAS_ROWS rows); astream,
 * panel 0 also holds A's K-tiles, K-tile t's R rows before the panel's K-tile t (so the
 * device loads A beside block 0's MATMULs instead of before the stream). */
static size_t stream_off(const struct gemm *g, uint32_t c)
{
	if (!g->fused)
		return b_off(g, c, 0);
	return ((size_t)c * (g->k + TPU_STREAM_MATMUL_BIAS_ROWS) +
		(c ? stream_arows(g) + stream_prows(g) : 0)) * g->N;
}

/* Offset of the fused panel c's row kk (kk = k: its bias vector). Panels c < kg (kg = 1:
 * panel 0) are interleaved K-tile by K-tile (docs/spec.md 6.11): K-tile t is a round of A's
 * K-tile t (astream: R rows), then K-tile t of each panel (in the last round its rows and its
 * bias vector). wfirst: panel 0's K-tile 0 rows and A's K-tile 0 swap places. */
static size_t stream_row_off(const struct gemm *g, uint32_t c, size_t kk)
{
	size_t a = g->astream ? g->R : 0, tl = kk < g->k ? kk / g->N : g->KT - 1;
	size_t lastk = g->k - (size_t)(g->KT - 1) * g->N;

	if (c >= g->kg)
		return stream_off(g, c) + kk * g->N;
	if (g->wfirst && c == 0 && kk < g->k && kk < g->N)
		return (stream_prows(g) + kk) * g->N;
	return (stream_prows(g) + tl * (a + (size_t)g->kg * g->N) + a +
		(size_t)c * (tl + 1 < g->KT ? g->N : lastk + TPU_STREAM_MATMUL_BIAS_ROWS) +
		(kk - tl * g->N)) * g->N;
}

static void stream_group(struct gemm *g, const struct tpu_gemm_params *p, uint32_t c0,
			 uint32_t cn, bool first)
{
	uint32_t nc = span_of(g->n, g->N, c0), R = g->R;

	if (g->fused && nc == g->N) {
		/* the bias and the ACTIVATE of each tile in the command, into UB rows out_row +
		 * c x R (measured at 1x512x512: the separate BIAS + ACTIVATE per tile cost ~158
		 * cycles each, most of it the bias read's round trip) */
		EMIT(g, tpu_cmd_stream_matmul, g->b, stream_off(g, c0), 0, (uint32_t)g->k, nc, cn, 0,
		     R, 0, g->out_row + c0 * R,
		     TPU_STREAM_MATMUL_ACTIVATE | (g->lut ? TPU_STREAM_MATMUL_LUT : 0) |
			     (first && g->astream ? TPU_STREAM_MATMUL_A_STREAM : 0) |
			     (first && g->wfirst ? TPU_STREAM_MATMUL_W_FIRST : 0) |
			     (first && g->kg > 1 ? TPU_STREAM_MATMUL_K_GROUP(g->kg) : 0) |
			     (first && g->sparams ? TPU_STREAM_MATMUL_PARAMS : 0));
		/* the group's output panels (R = m rows of N each) straight to their place in the
		 * output buffer, beside the next blocks' MATMULs (no WRITE_HOST after the stream) */
		if (g->wback && !g->err)
			note(g, tpu_cmd_stream_write_back(&g->cmds[g->ncmd - 1], g->out,
							  (size_t)c0 * g->N * g->m));
		return;
	}
	EMIT(g, tpu_cmd_stream_matmul, g->b, stream_off(g, c0), 0, (uint32_t)g->k, nc, cn, 0, R, 0,
	     0, 0);
	/* (after the stream: the device reads MULT/SHIFT and the first bias ahead meanwhile) */
	if (first && g->q8) {
		EMIT(g, tpu_cmd_load_output, p->out_zero_point, p->clamp_min, p->clamp_max);
		if (g->uniform) {
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_MULT, g->mult, 0, 0, nc);
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0, nc);
		}
	}
	first = first && !g->fused;
	for (uint32_t c = c0; c < c0 + cn; c++) {
		uint32_t acc = (c - c0) * R, w = span_of(g->n, g->N, c);

		column_tile_params(g, c);
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

static void stream_schedule(struct gemm *g, const struct tpu_gemm_params *p)
{
	uint32_t full = (uint32_t)(g->n / g->N), cmax = g->dev->info.acc_rows / g->R, c0;

	if (cmax > TPU_STREAM_MATMUL_MAX_BLOCKS)
		cmax = TPU_STREAM_MATMUL_MAX_BLOCKS;
	if (!g->astream)
		read_chunk(g, 0, g->R);
	if (g->fused) { /* (checked by the fused STREAM_MATMUL: loaded before it) */
		uint32_t nc = span_of(g->n, g->N, 0);

		EMIT(g, tpu_cmd_load_output, p->out_zero_point, p->clamp_min, p->clamp_max);
		/* (sparams: in the first command's stream, no read round trip each) */
		if (!g->sparams) {
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_MULT, g->mult, 0, 0, nc);
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_SHIFT, g->shift, 0, 0, nc);
		}
	}
	/* (first: the group that loads OUTPUT/MULT/SHIFT when not fused, carries A when astream) */
	for (c0 = 0; c0 < full; c0 += cmax)
		stream_group(g, p, c0, full - c0 < cmax ? full - c0 : cmax, c0 == 0);
	if (full < g->NT)
		stream_group(g, p, full, 1, full == 0 && !g->fused);
	if (!g->q8)
		return;
	if (full && !g->wback)
		EMIT(g, tpu_cmd_write_host, g->out, 0, g->N, g->out_row, full * g->R, g->N, 0);
	if (full < g->NT)
		EMIT(g, tpu_cmd_write_host, g->out, (size_t)full * g->N * g->m,
		     span_of(g->n, g->N, full), g->out_row + full * g->R, g->R,
		     span_of(g->n, g->N, full), 0);
}

static void build(struct gemm *g, const struct tpu_gemm_params *p)
{
	/* Tiles left in the FIFO by earlier work would be popped in place of ours. */
	for (uint32_t i = 0; i < g->dev->fifo_occ; i++)
		EMIT(g, tpu_cmd_matmul, 0, 0, 1, TPU_MATMUL_POP);
	/* Uniform MULT/SHIFT: every column tile reads the same values, so one load serves them
	 * all (first_params); OUTPUT goes with them. The LUT is not read ahead: first. */
	if (g->lut)
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_LUT, g->lutb, 0, 0, TPU_LUT_ENTRIES);
	if (g->stream) {
		stream_schedule(g, p);
		return;
	}
	uint32_t pre = 0;

	for (size_t r0 = 0, c = 0; r0 < g->m && !g->err; r0 += chunk_rows(g, r0), c++) {
		struct chunkx cx = { 0 };

		cx.r0 = r0;
		cx.rows = chunk_rows(g, r0);
		if (!g->pairs) {
			chunk(g, p, r0, cx.rows);
			continue;
		}
		if (!g->dbl)
			g->gseq = 0;
		/* (region 0 holds the first chunk's KT x R0 rows, region 1 KT x R after it) */
		cx.abase = g->dbl ? (uint32_t)(c % 2) * g->slots * g->R0 : 0;
		cx.pre = pre;
		if (g->dbl && r0 + cx.rows < g->m) {
			cx.nr0 = r0 + cx.rows;
			cx.nrows = chunk_rows(g, cx.nr0);
			cx.nbase = (uint32_t)((c + 1) % 2) * g->slots * g->R0;
			g->ag = ag_of(cx.nrows);
			cx.npf = a_groups(g);
		}
		pre = cx.npf;
		if (g->dbl)
			g->ag = ag_of(cx.rows);
		if (g->hyb)
			chunk_hyb(g, p, &cx);
		else
			chunk_groups(g, p, &cx);
	}
}

/* ------------------------------------------------------------------ buffers */

static void plan(struct gemm *g)
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
	/* The grouped schedule: int8 output, A resident and read in groups the device reads
	 * ahead (at most GEMM_RA_ROWS rows), 2 x gp ACC buffers and gp output regions. gp = 4 at
	 * up to 64 rows (a K-tile of A, gp weight tiles and the SQEs of 2 x gp commands per gp x
	 * rows MXU cycles: with two tiles the link was nearly full at 64 rows), else 2. Below N
	 * rows a chunk's A is a few rows and costs little in the chain (batch-1 keeps the column
	 * order). */
	g->gp = 2;
	/* With many column tiles the pairs' transitions (two ACTIVATEs, a bias load between
	 * them, two write-backs) cost more than one per tile (measured at N = 16: 64x256x256
	 * 78.8 -> 80.4 %, 256x128x512 93.2 -> 93.8 %, 512^3 98.0 -> 98.2 %); with few (64x512x64,
	 * 4: 73.1 vs 71.4 %; 128x512x128, 8: 92.0 vs 91.6 %) the pairs are better. */
	g->hyb = g->NT > 8;
	g->pairs = g->q8 && g->resident && g->R >= g->N && g->R <= GEMM_RA_ROWS &&
		   2ull * g->gp * g->R <= in->acc_rows &&
		   (uint64_t)(g->slots + g->gp) * g->R <= in->ub_rows;
	/* Small M in one chunk, every K-tile of A and every output tile in the UB: the stream
	 * schedule (B then in column panels, as for the column order). */
	g->stream = ((in->opcodes >> TPU_OP_STREAM_MATMUL) & 1u) &&
		    (g->m <= GEMM_STREAM_M || (g->q8 && g->uniform && g->n >= g->N)) &&
		    g->R == g->m && g->resident &&
		    (uint64_t)(g->slots + g->NT) * g->R <= in->ub_rows &&
		    g->k <= TPU_STREAM_MATMUL_MAX_K && g->R <= TPU_STREAM_MATMUL_MAX_R;
	if (g->stream)
		g->pairs = false;
	/* The chunk pipeline (see there) where the grouped schedule does not apply with one A
	 * region (it would be the column order) and the column tiles are few (pairs, not hyb: the
	 * hybrid with dbl measured slower, and was removed): int8 output, resident A, more than one
	 * chunk of at most r rows, two A regions, 2 x gp ACC buffers and gp output regions. */
	r = in->ub_rows / (2ull * g->slots + g->gp);
	if (r > GEMM_DBL_MAX_R)
		r = GEMM_DBL_MAX_R;
	if (r > in->acc_rows / (2u * g->gp))
		r = in->acc_rows / (2u * g->gp);
	g->dbl = GEMM_DBL && g->q8 && g->resident && !g->stream && !g->pairs && !g->hyb &&
		 r >= g->N && g->m > r && g->m <= SIZE_MAX / ((size_t)g->KT * g->N);
	g->R0 = g->R;
	if (g->dbl) {
		/* The first chunk reads its own A beside its MATMULs and the second chunk's too:
		 * twice as long as the others (at most GEMM_RA_ROWS) when the UB and ACC hold it,
		 * the rest in even chunks of at most r rows (measured in one shape list:
		 * 1024x256x32 84.0 -> 84.8 %, 768x256x64 91.2 -> 92.0 %, 601x250x40 63.3 -> 65.5 %). */
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
	g->fused = g->stream && g->q8 && g->uniform && g->n >= g->N;
	/* A in the first command's stream: a chunk of R = m rows, every K-tile of A in it */
	g->astream = g->fused && ((in->opcodes >> TPU_OP_STREAM_MATMUL) & 1u) && GEMM_ASTREAM;
	g->wfirst = g->astream && GEMM_WFIRST;
	g->wback = g->fused && GEMM_WBACK;
	g->kg = stream_kgroup(g, in);
	g->sparams = g->fused && GEMM_SPARAMS;
	g->ag = g->R ? GEMM_RA_ROWS / g->R : 1;
	if (g->ag > 2)
		g->ag = 2;
	if (g->ag < 1)
		g->ag = 1;
}

static int alloc_copy(tpu_dev *dev, tpu_buf **b, const void *src, size_t len)
{
	int err = tpu_buf_alloc(dev, len, b);
	if (!err && src)
		memcpy(tpu_buf_ptr(*b), src, len);
	return err;
}

/* Row-major rows x cols (element size esz) to/from column panels of width N (panel p: rows
 * rows of span(p) elements, packed). */
static void to_panels(uint8_t *dst, const uint8_t *src, size_t rows, size_t cols, uint32_t N,
		      size_t esz)
{
	for (size_t c0 = 0; c0 < cols; c0 += N) {
		size_t w = cols - c0 < N ? cols - c0 : N;
		uint8_t *p = dst + c0 * rows * esz;
		for (size_t r = 0; r < rows; r++)
			memcpy(p + r * w * esz, src + (r * cols + c0) * esz, w * esz);
	}
}

static void from_panels(uint8_t *dst, const uint8_t *src, size_t rows, size_t cols, uint32_t N,
			size_t esz)
{
	for (size_t c0 = 0; c0 < cols; c0 += N) {
		size_t w = cols - c0 < N ? cols - c0 : N;
		const uint8_t *p = src + c0 * rows * esz;
		for (size_t r = 0; r < rows; r++)
			memcpy(dst + (r * cols + c0) * esz, p + r * w * esz, w * esz);
	}
}

/* Row-major k x n B to weight tiles at b_off (pairs): tile (nt, kt) holds rows kt x N.. of
 * columns nt x N.., packed. */
static void to_groups(const struct gemm *g, uint8_t *dst, const uint8_t *src)
{
	for (uint32_t nt = 0; nt < g->NT; nt++) {
		uint32_t nc = span_of(g->n, g->N, nt);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			uint32_t kc = span_of(g->k, g->N, kt);
			uint8_t *p = dst + b_off(g, nt, kt);
			for (uint32_t r = 0; r < kc; r++)
				memcpy(p + (size_t)r * nc,
				       src + ((size_t)kt * g->N + r) * g->n + (size_t)nt * g->N, nc);
		}
	}
}

/* Row-major m x k A to chunks (chunk_rows), each as its K-tiles one after the other, K-tile kt
 * holding the chunk's rows of span_k bytes, or N bytes zero-padded (a_full; a_off). */
static void to_chunks(const struct gemm *g, uint8_t *dst, const uint8_t *src)
{
	for (size_t r0 = 0; r0 < g->m; r0 += chunk_rows(g, r0)) {
		uint32_t rows = chunk_rows(g, r0);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			uint32_t w = span_of(g->k, g->N, kt), rb = kt < a_full(g) ? g->N : w;
			uint8_t *p = dst + a_off(g, r0, rows, kt);
			for (uint32_t r = 0; r < rows; r++) {
				memcpy(p + (size_t)r * rb, src + (r0 + r) * g->k + (size_t)kt * g->N,
				       w);
				memset(p + (size_t)r * rb + w, 0, rb - w);
			}
		}
	}
}

/* B for the fused stream schedule: each full column panel (k rows of N), then room for its bias
 * vector (written by fill_buffers), then the narrower last panel (k rows of its width);
 * astream: A's K-tiles in panel 0 (stream_row_off; bytes past k in the last K-tile zero). */
static void to_fused(const struct gemm *g, uint8_t *dst, const uint8_t *src, const uint8_t *a)
{
	for (uint32_t c = 0; c < g->NT; c++) {
		uint32_t nc = span_of(g->n, g->N, c);

		for (size_t kk = 0; kk < g->k; kk++)
			memcpy(dst + (c < g->n / g->N ? stream_row_off(g, c, kk)
						     : stream_off(g, c) + kk * nc),
			       src + kk * g->n + (size_t)c * g->N, nc);
	}
	for (uint32_t t = 0; t < g->KT && g->astream; t++) {
		uint32_t w = span_of(g->k, g->N, t);
		uint8_t *d = dst + stream_row_off(g, 0, (size_t)t * g->N) - (size_t)g->R * g->N;

		/* (wfirst: A's K-tile 0 right after panel 0's K-tile 0) */
		if (t == 0 && g->wfirst)
			d = dst + (stream_prows(g) + (g->k < g->N ? g->k : g->N)) * g->N;

		for (size_t r = 0; r < g->R; r++) {
			memcpy(d + r * g->N, a + r * g->k + (size_t)t * g->N, w);
			memset(d + r * g->N + w, 0, g->N - w);
		}
	}
}

static int fill_buffers(struct gemm *g, const int8_t *a, const int8_t *b,
			const struct tpu_gemm_params *p)
{
	size_t n = g->n;
	int32_t *bias, *mult, *shift;
	int err;

	size_t full = n / g->N, blen = g->fused ? full * (g->k + TPU_STREAM_MATMUL_BIAS_ROWS) * g->N +
							 (n - full * g->N) * g->k +
							 (stream_arows(g) + stream_prows(g)) * g->N
					      : g->k * n;

	if ((err = alloc_copy(g->dev, &g->a, NULL, g->m * (g->dbl ? (size_t)g->KT * g->N : g->k))) ||
	    (err = alloc_copy(g->dev, &g->b, NULL, blen)) ||
	    (err = alloc_copy(g->dev, &g->bias, NULL, n * 4)) ||
	    (err = alloc_copy(g->dev, &g->out, NULL, g->m * n * (g->q8 ? 1 : 4))))
		return err;
	to_chunks(g, tpu_buf_ptr(g->a), (const uint8_t *)a);
	if (g->pairs)
		to_groups(g, tpu_buf_ptr(g->b), (const uint8_t *)b);
	else if (g->fused)
		to_fused(g, tpu_buf_ptr(g->b), (const uint8_t *)b, (const uint8_t *)a);
	else
		to_panels(tpu_buf_ptr(g->b), (const uint8_t *)b, g->k, n, g->N, 1);
	bias = tpu_buf_ptr(g->bias);
	for (size_t j = 0; j < n; j++) {
		/* bias'[j] = bias[j] - za * sum_k B[k][j], wrapping like the accumulator. */
		uint32_t s = 0;
		for (size_t kk = 0; kk < g->k; kk++)
			s += (uint32_t)(int32_t)b[kk * n + j];
		bias[j] = (int32_t)((p->bias ? (uint32_t)p->bias[j] : 0u) -
				    (uint32_t)p->in_zero_point * s);
		if (g->fused && j < full * g->N) /* after its panel (see stream_off) */
			memcpy((uint8_t *)tpu_buf_ptr(g->b) +
				       stream_row_off(g, (uint32_t)(j / g->N), g->k) + (j % g->N) * 4u,
			       &bias[j], 4);
	}
	if (!g->q8)
		return 0;
	if ((err = alloc_copy(g->dev, &g->mult, NULL, n * 4)) ||
	    (err = alloc_copy(g->dev, &g->shift, NULL, n * 4)))
		return err;
	mult = tpu_buf_ptr(g->mult);
	shift = tpu_buf_ptr(g->shift);
	for (size_t j = 0; j < n; j++) {
		size_t c = p->quant_channels == 1 ? 0 : j; /* per tensor: broadcast */
		mult[j] = p->multiplier[c];
		shift[j] = p->shift[c];
	}
	if (g->sparams) { /* channels 0 .. N - 1 at the stream's start: MULT's 4 rows, SHIFT's */
		memcpy(tpu_buf_ptr(g->b), mult, (size_t)g->N * 4);
		memcpy((uint8_t *)tpu_buf_ptr(g->b) + (size_t)g->N * 4, shift, (size_t)g->N * 4);
	}
	if (g->lut)
		return alloc_copy(g->dev, &g->lutb, p->lut, TPU_LUT_ENTRIES);
	return 0;
}

static void free_buffers(struct gemm *g)
{
	tpu_buf *all[] = { g->a, g->b, g->bias, g->mult, g->shift, g->lutb, g->out };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i])
			(void)tpu_buf_free(all[i]);
}

/* After a host-side failure in the middle of the run: bring the device back and collect the
 * ABORTED_RESET completions of our commands, so that nothing of this call is left outstanding. */
static void recover(struct gemm *g, size_t submitted)
{
	struct tpu_cpl cpl;

	if (tpu_reset(g->dev) != 0)
		return;
	for (size_t i = 0; i < submitted; i++)
		(void)tpu_queue_take(g->dev, 0,
				     (uint16_t)((g->cmds[i].dw[TPU_SQE_CID_DW] >> TPU_SQE_CID_SHIFT) &
						TPU_SQE_CID_MASK),
				     &cpl);
}

int tpu_gemm(tpu_dev *dev, size_t m, size_t k, size_t n, const int8_t *a, const int8_t *b,
	     const struct tpu_gemm_params *p, void *out)
{
	struct tpu_gemm_params defaults;
	struct gemm g = { 0 };
	size_t submitted = 0;
	int err;

	if (!dev)
		return -EINVAL;
	dev->gemm_err[0] = '\0';
	if (!p) {
		tpu_gemm_params_init(&defaults);
		p = &defaults;
	}
	err = check_args(dev, m, k, n, a, b, p, out);
	if (err)
		return err;
	for (unsigned q = 0; q < dev->info.num_queues; q++)
		if (tpu_outstanding(dev, q))
			return -EBUSY; /* the weight FIFO and local memory are shared */
	g.dev = dev;
	g.m = m;
	g.k = k;
	g.n = n;
	g.q8 = p->quant_channels != 0;
	g.lut = g.q8 && p->lut;
	g.uniform = g.q8; /* one multiplier and shift for all channels (plan needs it) */
	for (size_t j = 0; g.q8 && j < n; j++) {
		size_t c = p->quant_channels == 1 ? 0 : j;
		if (p->multiplier[c] != p->multiplier[0] || p->shift[c] != p->shift[0])
			g.uniform = false;
	}
	plan(&g);
	err = fill_buffers(&g, a, b, p);
	if (err)
		goto out;
	build(&g, p);
	err = g.err;
	if (err)
		goto out;
	err = tpu_queue_run(dev, 0, g.cmds, g.ncmd, NULL, GEMM_TIMEOUT_MS, &submitted);
	if (err < 0 && tpu_outstanding(dev, 0)) {
		recover(&g, submitted);
		goto out;
	}
	if (err == 0)
		from_panels(out, tpu_buf_ptr(g.out), m, n, g.N, g.q8 ? 1 : 4);
out:
	free_buffers(&g);
	free(g.cmds);
	return err;
}
