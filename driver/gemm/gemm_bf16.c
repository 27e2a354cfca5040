/* tpu_gemm_ex with TPU_DTYPE_BF16 (docs/spec.md 6.12, 7.1; docs/ops.md "bf16 GEMM"): bf16 A and
 * B, fp32 C, on a device with FEATURES.BF16.
 *
 * The schedule is the column order of gemm_column.c with bf16 commands (STREAM_MATMUL has no
 * bf16 form, and the grouped schedules' int8 output interleaving has nothing to interleave
 * with fp32 output): per chunk of R rows of op(A), every K-tile resident in the UB when KT
 * slots fit (else one slot reloaded before each MATMUL). When two chunks' KT slots fit, A is
 * double-buffered: chunk c in UB half c % 2, the first chunk read K-tile by K-tile right before
 * the first column tile's MATMULs, and chunk c + 1 in READ_HOSTs of A_PIECE_ROWS rows spread
 * over chunk c's MATMULs (`struct apend`), which the device reads ahead and commits beside
 * them (docs/device.md "Overlap and dependencies"); per column tile nt its K-tiles in order
 * (MATMUL POP, ACCUMULATE after the first); weight tiles loaded ahead up to the FIFO depth, so
 * the next tile's LOAD_WEIGHTS runs beside this tile's MATMUL (double buffering); column tiles
 * alternate between two ACC regions when 2R ACC rows fit, so a tile's write-back runs beside
 * the next tile's MATMULs: a bf16 device reads the ACC for WRITE_HOST beside MATMULs on other
 * ACC rows (docs/device.md "The bf16 device"), but the command processor runs one command at a
 * time, and one WRITE_HOST of R fp32 rows (4N bytes each: 4R link cycles at N = 16) would keep
 * it from the next MATMULs for longer than the one MATMUL the datapath holds. So the write-back
 * leaves in pieces, one after each MATMUL of the next group (`struct wb`), the regions
 * alternating over the whole GEMM (chunk after chunk). With a single K-tile (K <= N) a column
 * tile is one MATMUL, too short to hide a write-back command of its own beside it: the
 * full-width column tiles then go in groups of up to `grp` tiles, tile i of a group in the ACC
 * rows right after tile i - 1's, and the group's output panels, adjacent in C's buffer, leave
 * in one write-back (golden's timing model, sw/golden/golden_internal.h, charges each command
 * 16 cycles: m x k x n = 32 x 10 x 128 on the 16 x 16 array writes once instead of 8 times).
 * The narrow last column tile is a group of its own. Only the command schedule differs: every
 * element's sum is the same.
 *
 * Result, per element (i, j), bit for bit:
 *   s = tpu_bf16_dot_tiled(op(A)[i][..], op(B)[..][j], k, N, C_old[i][j], accumulate)
 *   C[i][j] = bias ? tpu_f32_add(s, bias[j]) : s
 * The ACC does the tile order itself; with TPU_GEMM_ACCUMULATE the old C enters the ACC right
 * after the first K-tile's MATMUL (ACC = add(s_0, C_old) = add(C_old, s_0), exactly the first
 * step of tpu_bf16_dot_tiled with accumulate): a LOAD_PARAMS BIAS of C's row and a one-row
 * ACTIVATE BF16 | RAW32 in place, per output row and column tile. Every later K-tile adds in
 * the ACC, so a K split at a multiple of N into an overwrite call and accumulate calls gives
 * the same bits as one call. The bias (fp32 bit patterns in tpu_gemm_params.bias) is one
 * ACTIVATE BF16 | RAW32 per column tile after the last K-tile; without a bias there is no
 * ACTIVATE (an add of +0 would turn a -0 sum into +0), WRITE_HOST moves the ACC words as they
 * are.
 *
 * Buffers (bf16 elements of 2 bytes, fp32 of 4): A chunk by chunk, each chunk's K-tiles one
 * after the other (rows of span_k elements); B as weight tiles column panel by column panel
 * (tile (nt, kt): kc rows of nc, or with trans_b the stored Bᵀ's block, nc rows of kc, that
 * LOAD_WEIGHTS OP0.TRANSPOSE turns); C chunk by chunk, each chunk's column panels (its rows of
 * span_n fp32) one after the other, which with accumulate first hold the old C for the
 * LOAD_PARAMS. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_priv.h"

#define T_BLOCK 16u
/* The fewest rows a write-back piece moves: below it the command's own cost dominates
 * (measured on sim:n=16,bf16=1 with pieces at every R, docs/performance.md "bf16 GEMM":
 * 64x256x256 22205 / 21765 / 24236 cycles with 16 / 8 / 4, 512^3 533043 / 533173 / 533209). */
#define WB_MIN_ROWS 8u
/* Write-back pieces and the double-buffered A take chunks of at least this many rows: shorter
 * MATMULs leave the command processor little to gain, and each extra command costs (16 cycles
 * in golden's timing model: the training GEMMs, docs/training.md, keep their schedules). */
#define PIECES_MIN_R 128u

/* Rows of A per READ_HOST of the double-buffered schedule (a piece of a K-tile). */
#define A_PIECE_ROWS 64u /* (measured 32 / 64 / 128: 512^3 534020 / 533173 / 534246) */

/* A chunk's A still to read (double-buffered: the next chunk's, beside this chunk's MATMULs):
 * chunk rows at r0 into the UB half at ub0, K-tile kt from row p0 on; one piece after every
 * `every` MATMULs. */
struct apend {
	size_t r0;
	uint32_t rows, ub0, kt, p0, every, since;
	bool on;
};

/* A group's write-back still to go: ACC rows acc.. to C's buffer at off (bytes), rows of nc
 * fp32, `piece` rows per WRITE_HOST. */
struct wb {
	size_t off;
	uint32_t acc, rows, nc, piece;
};

/* A bf16 GEMM being built (the shared struct gemm carries the device, the command list and
 * the shape; the rest is here). */
struct bgemm {
	struct gemm g;
	bool acc_c;       /* TPU_GEMM_ACCUMULATE */
	bool has_bias;
	bool two_acc;     /* groups alternate between ACC rows [0, grp R) and [grp R, 2 grp R) */
	uint32_t grp;     /* full-width column tiles per write-back (1 unless KT = 1) */
	uint32_t gi;      /* groups so far (over the whole GEMM): the ACC region's parity */
	struct wb wb;     /* the last group's write-back, left in pieces after later MATMULs */
	bool db;          /* A double-buffered: chunk c in UB half c % 2 (rows KT R apart) */
	struct apend ap;  /* the A rows still to read (db) */
	size_t w_issued, w_popped, w_total;
	tpu_buf *abuf, *bbuf, *biasb, *out;
};

/* ---------------------------------------------------------------- commands */

static struct tpu_cmd *last(struct gemm *g)
{
	return g->err || !g->ncmd ? NULL : &g->cmds[g->ncmd - 1];
}

/* FLAGS.BF16 on the last command. */
static void bf16(struct gemm *g)
{
	struct tpu_cmd *c = last(g);

	if (c)
		tpu_cmd_set_flags(c, TPU_SQE_FLAG_BF16);
}

/* The int8 builders check a span of cols bytes per row; a bf16 row is 2 x cols bytes. Build
 * with 2 x cols (the span, LENGTH and STRIDE are then those of the bf16 rows), then put the
 * element count into COLS and set FLAGS.BF16. */
static void bf16_cols(struct gemm *g, uint32_t cols)
{
	struct tpu_cmd *c = last(g);

	if (!c)
		return;
	c->dw[TPU_SQE_COLS_DW] = (c->dw[TPU_SQE_COLS_DW] & ~(TPU_SQE_COLS_MASK << TPU_SQE_COLS_SHIFT)) |
				 ((cols & TPU_SQE_COLS_MASK) << TPU_SQE_COLS_SHIFT);
	tpu_cmd_set_flags(c, TPU_SQE_FLAG_BF16);
}

static void read_host(struct gemm *g, size_t el_off, uint32_t ub_row, uint32_t rows,
		      uint32_t cols, tpu_buf *buf)
{
	EMIT(g, tpu_cmd_read_host, buf, el_off * 2u, 0, ub_row, rows, 2u * cols);
	bf16_cols(g, cols);
}

/* ---------------------------------------------------------------- layout */

static size_t a_off(const struct gemm *g, size_t r0, uint32_t rows, uint32_t kt)
{
	return r0 * g->k + (size_t)kt * g->N * rows; /* elements */
}

static size_t b_off(const struct gemm *g, uint32_t nt, uint32_t kt)
{
	return (size_t)nt * g->N * g->k + (size_t)kt * g->N * gemm_span(g->n, g->N, nt);
}

/* Column panel nt of the chunk of rows at r0 (its row r at + r x span_n), fp32 elements. */
static size_t out_off(const struct gemm *g, size_t r0, uint32_t rows, uint32_t nt)
{
	return r0 * g->n + (size_t)nt * g->N * rows;
}

static uint32_t chunk_rows(const struct gemm *g, size_t r0)
{
	size_t left = g->m - r0;

	return left < g->R ? (uint32_t)left : g->R;
}

/* ---------------------------------------------------------------- plan */

static void plan(struct bgemm *b)
{
	struct gemm *g = &b->g;
	const struct tpu_info *in = &g->dev->info;
	uint64_t r;

	g->N = in->array_n;
	g->KT = (uint32_t)((g->k + g->N - 1) / g->N);
	g->NT = (uint32_t)((g->n + g->N - 1) / g->N);
	g->resident = g->KT <= in->ub_rows;
	g->slots = g->resident ? g->KT : 1;
	r = in->ub_rows / g->slots;
	/* double-buffered A when two chunks' K-tiles fit in the UB with chunks of up to
	 * ub_rows / 2KT >= PIECES_MIN_R rows and M needs more than one: the next chunk's
	 * READ_HOSTs run (read ahead) beside this chunk's MATMULs */
	if (g->resident && in->ub_rows / (2u * g->KT) >= PIECES_MIN_R) {
		uint64_t rd = in->ub_rows / (2u * g->KT);

		if (rd > in->acc_rows)
			rd = in->acc_rows;
		b->db = g->m > rd;
		if (b->db)
			r = rd;
	}
	if (r > in->acc_rows)
		r = in->acc_rows;
	if (r > g->m)
		r = g->m;
	/* LENGTH of a READ_HOST (2 x k bytes a row at most) and of a WRITE_HOST (4 x N) fit 32
	 * bits; LOAD_PARAMS rows are single rows. */
	if (r > (UINT32_MAX - 2u * g->N) / (2u * g->k) + 1)
		r = (UINT32_MAX - 2u * g->N) / (2u * g->k) + 1;
	if (r > (UINT32_MAX - 4u * g->N) / (4u * g->N) + 1)
		r = (UINT32_MAX - 4u * g->N) / (4u * g->N) + 1;
	/* even chunks (as gemm_plan.c) */
	r = (g->m + (g->m + r - 1) / r - 1) / ((g->m + r - 1) / r);
	g->R = (uint32_t)r;
	b->grp = 1;
	if (g->KT == 1 && g->n / g->N > 1) {
		uint64_t cap = in->acc_rows / (2u * r) ? in->acc_rows / (2u * r) : in->acc_rows / r;

		if (cap > (UINT32_MAX - 4u * g->N) / (4u * g->N * r))
			cap = (UINT32_MAX - 4u * g->N) / (4u * g->N * r); /* WRITE_HOST LENGTH */
		b->grp = (uint32_t)(g->n / g->N < cap ? g->n / g->N : cap);
		if (!b->grp)
			b->grp = 1;
	}
	b->two_acc = 2u * (uint64_t)b->grp * g->R <= in->acc_rows && g->NT > b->grp;
}

/* ---------------------------------------------------------------- packing */

/* op(X)[r0 + r][c0 + c] (bf16) for r < rows, c < cols into dst + r * ds + c; a transposed X is
 * read in T_BLOCK squares so that both sides move along rows. */
static void copy16(uint16_t *dst, size_t ds, const struct gemm_mat *x, size_t r0, size_t c0,
		   size_t rows, size_t cols)
{
	const uint16_t *p = (const uint16_t *)(const void *)x->p;

	if (!x->t) {
		for (size_t r = 0; r < rows; r++)
			memcpy(dst + r * ds, p + (r0 + r) * x->ld + c0, cols * 2u);
		return;
	}
	for (size_t cb = 0; cb < cols; cb += T_BLOCK) {
		size_t cn = cols - cb < T_BLOCK ? cols - cb : T_BLOCK;
		for (size_t rb = 0; rb < rows; rb += T_BLOCK) {
			size_t rn = rows - rb < T_BLOCK ? rows - rb : T_BLOCK;
			const uint16_t *s = p + (c0 + cb) * x->ld + r0 + rb;
			uint16_t t[T_BLOCK][T_BLOCK];

			for (size_t c = 0; c < cn; c++)
				memcpy(t[c], s + c * x->ld, rn * 2u);
			for (size_t r = 0; r < rn; r++)
				for (size_t c = 0; c < cn; c++)
					dst[(rb + r) * ds + cb + c] = t[c][r];
		}
	}
}

/* C (m x n fp32, rows ldc apart) into the buffer's layout (to_buf) or back out of it. */
static void move_c(const struct gemm *g, uint32_t *o, uint32_t *c, size_t ldc, bool to_buf)
{
	for (size_t r0 = 0; r0 < g->m; r0 += chunk_rows(g, r0)) {
		uint32_t rows = chunk_rows(g, r0);
		for (uint32_t nt = 0; nt < g->NT; nt++) {
			uint32_t nc = gemm_span(g->n, g->N, nt);
			for (uint32_t r = 0; r < rows; r++) {
				uint32_t *bp = o + out_off(g, r0, rows, nt) + (size_t)r * nc;
				uint32_t *cp = c + (r0 + r) * ldc + (size_t)nt * g->N;

				memcpy(to_buf ? bp : cp, to_buf ? cp : bp, nc * 4u);
			}
		}
	}
}

static int fill(struct bgemm *b, const struct tpu_gemm_desc *d, size_t ldc,
		const struct tpu_gemm_params *p)
{
	struct gemm *g = &b->g;
	struct gemm_mat stored_b = { g->b.p, g->b.ld, false };
	uint16_t *a, *w;
	int err;

	if ((err = tpu_buf_alloc(g->dev, g->m * g->k * 2u, &b->abuf)) ||
	    (err = tpu_buf_alloc(g->dev, g->k * g->n * 2u, &b->bbuf)) ||
	    (err = tpu_buf_alloc(g->dev, g->m * g->n * 4u, &b->out)) ||
	    (b->has_bias && (err = tpu_buf_alloc(g->dev, g->n * 4u, &b->biasb))))
		return err;
	a = tpu_buf_ptr(b->abuf);
	for (size_t r0 = 0; r0 < g->m; r0 += chunk_rows(g, r0)) {
		uint32_t rows = chunk_rows(g, r0);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			uint32_t kc = gemm_span(g->k, g->N, kt);
			copy16(a + a_off(g, r0, rows, kt), kc, &g->a, r0, (size_t)kt * g->N, rows,
			       kc);
		}
	}
	w = tpu_buf_ptr(b->bbuf);
	for (uint32_t nt = 0; nt < g->NT; nt++) {
		uint32_t nc = gemm_span(g->n, g->N, nt);
		for (uint32_t kt = 0; kt < g->KT; kt++) {
			uint32_t kc = gemm_span(g->k, g->N, kt);
			if (g->b.t) /* the stored Bᵀ's block: nc rows of kc, LOAD_WEIGHTS turns it */
				copy16(w + b_off(g, nt, kt), kc, &stored_b, (size_t)nt * g->N,
				       (size_t)kt * g->N, nc, kc);
			else
				copy16(w + b_off(g, nt, kt), nc, &g->b, (size_t)kt * g->N,
				       (size_t)nt * g->N, kc, nc);
		}
	}
	if (b->has_bias)
		memcpy(tpu_buf_ptr(b->biasb), p->bias, g->n * 4u);
	if (!b->acc_c)
		return 0;
	/* the old C, read back by the LOAD_PARAMS of accumulate */
	move_c(g, tpu_buf_ptr(b->out), (uint32_t *)d->c, ldc, true);
	return 0;
}

static void free_bufs(struct bgemm *b)
{
	tpu_buf *all[] = { b->abuf, b->bbuf, b->biasb, b->out };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i])
			(void)tpu_buf_free(all[i]);
}

/* ---------------------------------------------------------------- schedule */

/* The next weight tile in the order of use (column-tile major), bf16. */
static void load_weights(struct bgemm *b)
{
	struct gemm *g = &b->g;
	uint32_t nt = (uint32_t)(b->w_issued / g->KT), kt = (uint32_t)(b->w_issued % g->KT);
	uint32_t nc = gemm_span(g->n, g->N, nt), kc = gemm_span(g->k, g->N, kt);
	size_t off = b_off(g, nt, kt) * 2u;

	if (g->b.t) {
		EMIT(g, tpu_cmd_load_weights, b->bbuf, off, 0, nc, 2u * kc, 1);
		bf16_cols(g, kc);
	} else {
		EMIT(g, tpu_cmd_load_weights, b->bbuf, off, 0, kc, 2u * nc, 0);
		bf16_cols(g, nc);
	}
	b->w_issued++;
}

static void refill(struct bgemm *b)
{
	while (b->w_issued < b->w_total &&
	       b->w_issued - b->w_popped < b->g.dev->info.fifo_tiles)
		load_weights(b);
}

/* The whole chunk, K-tile kt at UB rows kt x rows: the full-width K-tiles in one READ_HOST. */
static void read_chunk(struct bgemm *b, size_t r0, uint32_t rows)
{
	struct gemm *g = &b->g;
	uint32_t full = (uint32_t)(g->k / g->N), kc = gemm_span(g->k, g->N, g->KT - 1);

	if (full)
		read_host(g, a_off(g, r0, rows, 0), 0, full * rows, g->N, b->abuf);
	if (full < g->KT)
		read_host(g, a_off(g, r0, rows, full), full * rows, rows, kc, b->abuf);
}

/* ACC rows acc.. = add(ACC, C_old) for the chunk's rows of column tile nt, one row at a time
 * (the BIAS vector is per channel: one LOAD_PARAMS of C's row, one ACTIVATE of one row). */
static void add_old_c(struct bgemm *b, size_t r0, uint32_t rows, uint32_t nt, uint32_t acc)
{
	struct gemm *g = &b->g;
	uint32_t nc = gemm_span(g->n, g->N, nt);

	for (uint32_t r = 0; r < rows && !g->err; r++) {
		EMIT(g, tpu_cmd_load_params, TPU_PARAM_BIAS, b->out,
		     (out_off(g, r0, rows, nt) + (size_t)r * nc) * 4u, 0, nc);
		EMIT(g, tpu_cmd_activate, acc + r, acc + r, 1, TPU_ACTIVATE_RAW32);
		bf16(g);
	}
}

/* Up to `max` rows of the pending write-back (all of it: UINT32_MAX). */
static void wb_emit(struct bgemm *b, uint32_t max)
{
	struct gemm *g = &b->g;
	struct wb *w = &b->wb;
	uint32_t n = w->rows < max ? w->rows : max;

	if (!n)
		return;
	/* ACC words are 32 bits whatever they hold: the int32 WRITE_HOST moves fp32 */
	EMIT(g, tpu_cmd_write_host, b->out, w->off, w->nc * 4u, w->acc, n, w->nc, 1);
	w->off += (size_t)n * w->nc * 4u;
	w->acc += n;
	w->rows -= n;
}

/* The next piece of A (db): up to A_PIECE_ROWS rows of K-tile kt of the chunk at ap.r0. */
static void a_emit(struct bgemm *b)
{
	struct gemm *g = &b->g;
	struct apend *a = &b->ap;
	uint32_t kc = gemm_span(g->k, g->N, a->kt);
	uint32_t n = a->rows - a->p0 < A_PIECE_ROWS ? a->rows - a->p0 : A_PIECE_ROWS;

	if (!a->on)
		return;
	read_host(g, a_off(g, a->r0, a->rows, a->kt) + (size_t)a->p0 * kc,
		  a->ub0 + a->kt * a->rows + a->p0, n, kc, b->abuf);
	a->p0 += n;
	if (a->p0 == a->rows) {
		a->p0 = 0;
		if (++a->kt == g->KT)
			a->on = false;
	}
}

/* Start reading the chunk at r0 (db) into UB half `half`, a piece after every `every`
 * MATMULs. */
static void a_start(struct bgemm *b, size_t r0, uint32_t half, uint64_t mms)
{
	struct gemm *g = &b->g;
	uint32_t rows = chunk_rows(g, r0);
	uint64_t pieces = (uint64_t)g->KT * ((rows + A_PIECE_ROWS - 1) / A_PIECE_ROWS);

	b->ap = (struct apend){ r0, rows, half * g->KT * g->R, 0, 0,
				(uint32_t)(mms / pieces ? mms / pieces : 1), 0, true };
}

static void chunk(struct bgemm *b, size_t r0, uint32_t rows)
{
	struct gemm *g = &b->g;
	uint32_t half = (uint32_t)(r0 / g->R) % 2u, ub0 = b->db ? half * g->KT * g->R : 0;
	size_t next = r0 + rows;

	if (b->db) {
		/* this chunk's A: the rest of what the previous chunk read beside its MATMULs, or
		 * (the first chunk) K-tile by K-tile before the first column tile's MATMULs */
		while (b->ap.on && b->ap.r0 == r0 && r0)
			a_emit(b);
		if (!r0)
			a_start(b, 0, 0, 0);
		else if (next < g->m)
			a_start(b, next, half ^ 1u, (uint64_t)g->NT * g->KT);
	} else if (g->resident) {
		read_chunk(b, r0, rows);
	}
	b->w_total = (size_t)g->NT * g->KT;
	b->w_issued = b->w_popped = 0;
	refill(b);
	for (uint32_t nt = 0, nt0 = 0; nt < g->NT && !g->err; nt++) {
		uint32_t nc = gemm_span(g->n, g->N, nt);
		/* (regions of grp x R rows: a shorter last chunk's stay apart from the others') */
		uint32_t base = b->two_acc ? (b->gi % 2u) * b->grp * g->R : 0;
		uint32_t acc = base + (nt - nt0) * rows;

		for (uint32_t kt = 0; kt < g->KT; kt++) {
			if (!g->resident)
				read_host(g, a_off(g, r0, rows, kt), 0, rows,
					  gemm_span(g->k, g->N, kt), b->abuf);
			while (b->db && b->ap.on && b->ap.r0 == r0 && b->ap.kt <= kt)
				a_emit(b); /* the first chunk's K-tile kt */
			EMIT(g, tpu_cmd_matmul, ub0 + (g->resident ? kt : 0) * rows, acc, rows,
			     TPU_MATMUL_POP | (kt ? TPU_MATMUL_ACCUMULATE : 0));
			bf16(g);
			b->w_popped++;
			refill(b);
			if (kt == 0 && b->acc_c)
				add_old_c(b, r0, rows, nt, acc);
			wb_emit(b, b->wb.piece);
			if (b->ap.on && b->ap.r0 != r0 && ++b->ap.since >= b->ap.every) {
				b->ap.since = 0;
				a_emit(b); /* the next chunk's A */
			}
		}
		/* the first chunk's A is in: the second's goes beside the other column tiles */
		if (b->db && !r0 && nt == 0 && next < g->m)
			a_start(b, next, 1, (uint64_t)(g->NT - 1) * g->KT);
		if (b->has_bias) {
			EMIT(g, tpu_cmd_load_params, TPU_PARAM_BIAS, b->biasb, (size_t)nt * g->N * 4u,
			     0, nc);
			EMIT(g, tpu_cmd_activate, acc, acc, rows, TPU_ACTIVATE_RAW32);
			bf16(g);
		}
		/* the group ends at grp tiles, and before the narrow last tile and after it */
		if (nt + 1 < g->NT && nt + 1 - nt0 < b->grp &&
		    gemm_span(g->n, g->N, nt + 1) == nc)
			continue;
		/* the previous group's rest, then this group's write-back: in pieces after the
		 * next group's MATMULs (in the other ACC region), else here whole */
		wb_emit(b, UINT32_MAX);
		b->wb = (struct wb){ out_off(g, r0, rows, nt0) * 4u, base, (nt + 1 - nt0) * rows, nc,
				     UINT32_MAX };
		if (!b->two_acc) {
			wb_emit(b, UINT32_MAX);
		} else if (g->R >= PIECES_MIN_R) {
			uint64_t mms = (uint64_t)b->grp * g->KT;
			uint64_t p = (b->wb.rows + mms - 1) / mms;

			b->wb.piece = (uint32_t)(p < WB_MIN_ROWS ? WB_MIN_ROWS : p);
		}
		b->gi++;
		nt0 = nt + 1;
	}
}

int gemm_bf16_run(tpu_dev *dev, const struct tpu_gemm_desc *d, const size_t ld[3],
		  const struct tpu_gemm_params *p)
{
	struct bgemm b = { 0 };
	struct gemm *g = &b.g;
	size_t submitted = 0;
	int err;

	for (unsigned q = 0; q < dev->info.num_queues; q++)
		if (tpu_outstanding(dev, q))
			return -EBUSY; /* the weight FIFO and local memory are shared */
	g->dev = dev;
	g->m = d->m;
	g->k = d->k;
	g->n = d->n;
	g->a = (struct gemm_mat){ d->a, ld[0], d->trans_a == TPU_TRANS_T };
	g->b = (struct gemm_mat){ d->b, ld[1], d->trans_b == TPU_TRANS_T };
	b.acc_c = d->flags & TPU_GEMM_ACCUMULATE;
	b.has_bias = p->bias != NULL;
	plan(&b);
	err = fill(&b, d, ld[2], p);
	if (err)
		goto out;
	gemm_drain_fifo(g);
	for (size_t r0 = 0; r0 < g->m && !g->err; r0 += chunk_rows(g, r0))
		chunk(&b, r0, chunk_rows(g, r0));
	wb_emit(&b, UINT32_MAX);
	err = g->err;
	if (err)
		goto out;
	err = tpu_queue_run(dev, 0, g->cmds, g->ncmd, NULL, GEMM_TIMEOUT_MS, &submitted);
	if (err < 0 && tpu_outstanding(dev, 0)) {
		gemm_recover(g, submitted);
		goto out;
	}
	if (err == 0)
		move_c(g, tpu_buf_ptr(b.out), d->c, ld[2], false);
out:
	free_bufs(&b);
	free(g->cmds);
	return err;
}
