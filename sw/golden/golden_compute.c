/* Golden device: MATMUL, ACTIVATE and STREAM_MATMUL (docs/spec.md §6.6, §6.7, §6.11, §7). All
 * int32 arithmetic is done in uint32_t so that it wraps in two's complement exactly as the MXU
 * does, without UB. */
#include <string.h>

#include "golden_internal.h"

/* Make the next FIFO tile active. Swaps buffers instead of copying N x N bytes. */
static void pop_tile(struct golden *g)
{
	struct golden_tile tmp = g->active;

	g->active = g->fifo[g->fifo_head];
	g->fifo[g->fifo_head] = tmp;
	g->fifo_head = (g->fifo_head + 1) % g->cfg.fifo_tiles;
	g->fifo_count--;
	g->active_valid = true;
}

static void matmul_row(struct golden *g, const int8_t *a, int32_t *acc, bool accumulate)
{
	const struct golden_tile *t = &g->active;
	uint32_t n = g->cfg.array_n, k, j;
	uint32_t *sum = g->rowsum;

	for (j = 0; j < n; j++)
		sum[j] = 0;
	/* Rows k >= t->k and columns j >= t->cols of the tile are 0, so they add nothing. */
	for (k = 0; k < t->k; k++) {
		const int8_t *w = t->w + (size_t)k * n;
		int32_t ak = a[k];

		if (ak == 0)
			continue;
		for (j = 0; j < t->cols; j++)
			sum[j] += (uint32_t)(ak * w[j]);
	}
	for (j = 0; j < n; j++)
		acc[j] = (int32_t)(accumulate ? (uint32_t)acc[j] + sum[j] : sum[j]);
}

void golden_cmd_matmul(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	uint32_t n = g->cfg.array_n, rows = SQE(c, ROWS), op0 = SQE(c, OP0), i;
	uint32_t src = SQE(c, LOCAL_ADDR), dst = SQE(c, LOCAL_ADDR2);
	bool pop = op0 & TPU_MATMUL_POP, bf16 = golden_cmd_bf16(c);

	if (SQE(c, HOST_ADDR_LO) || SQE(c, HOST_ADDR_HI) || SQE(c, LENGTH) || SQE(c, STRIDE) ||
	    SQE(c, COLS) || SQE(c, OP1) || SQE(c, OP2) || SQE(c, OP3) || rows == 0 ||
	    (op0 & ~(TPU_MATMUL_ACCUMULATE | TPU_MATMUL_POP))) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	if (!golden_range_ok(src, rows, g->cfg.ub_rows) ||
	    !golden_range_ok(dst, rows, g->cfg.acc_rows)) {
		r->sc = TPU_SC_LOCAL_RANGE;
		return;
	}
	/* ... and the tile it would use must have its type (spec 6.12); nothing is popped else */
	if ((pop ? g->fifo_count == 0 : !g->active_valid) ||
	    (pop ? g->fifo[g->fifo_head].bf16 : g->active.bf16) != bf16) {
		r->sc = TPU_SC_SEQUENCE_ERROR;
		return;
	}
	if (pop)
		pop_tile(g);
	for (i = 0; i < rows; i++) {
		const int8_t *a = golden_ub_row(g, src + i);
		int32_t *acc = g->acc + (size_t)(dst + i) * n;

		if (bf16)
			golden_bf16_matmul_row(g, a, acc, op0 & TPU_MATMUL_ACCUMULATE);
		else
			matmul_row(g, a, acc, op0 & TPU_MATMUL_ACCUMULATE);
	}
	r->result = rows;
	g->perf[GOLDEN_PERF_MACS].val += (uint64_t)rows * g->active.k * g->active.cols;
	g->perf[GOLDEN_PERF_MXU_BUSY].val += rows;
	r->cycles = (uint64_t)rows + 2ull * n;
}

static uint32_t activate_int8(struct golden *g, uint32_t src, uint32_t dst, uint32_t rows,
			      bool use_lut)
{
	uint32_t n = g->cfg.array_n, i, j, saturated = 0;
	struct tpu_act_output out = {
		.zero_point = g->out_zp,
		.qmin = g->out_min,
		.qmax = g->out_max,
		.lut = use_lut ? g->lut : NULL,
		.round = (enum tpu_round)g->out_round,
	};

	for (i = 0; i < rows; i++) {
		const int32_t *a = g->acc + (size_t)(src + i) * n;
		int8_t *u = golden_ub_row(g, dst + i);

		for (j = 0; j < n; j++) {
			struct tpu_act_channel ch = { g->bias[j], g->mult[j], g->shift[j] };
			bool sat;

			u[j] = tpu_activate(a[j], &ch, &out, &sat);
			saturated += sat;
		}
		golden_ub_int8_written(g, u);
	}
	return saturated;
}

void golden_cmd_activate(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	uint32_t n = g->cfg.array_n, rows = SQE(c, ROWS), op0 = SQE(c, OP0), i, j;
	uint32_t src = SQE(c, LOCAL_ADDR), dst = SQE(c, LOCAL_ADDR2);
	bool raw = op0 & TPU_ACTIVATE_RAW32, lut = op0 & TPU_ACTIVATE_LUT;

	if (golden_cmd_bf16(c)) {
		golden_bf16_activate(g, c, r);
		return;
	}
	/* (OP0.SCALE and CLAMP are bf16-only: refused as unknown bits) */
	r->sc = golden_activate_status(g, c, TPU_ACTIVATE_LUT | TPU_ACTIVATE_RAW32, raw && lut);
	if (r->sc)
		return;
	if (!g->loaded[TPU_PARAM_BIAS] ||
	    (!raw && (!g->loaded[TPU_PARAM_MULT] || !g->loaded[TPU_PARAM_SHIFT] ||
		      !g->loaded[TPU_PARAM_OUTPUT] || (lut && !g->loaded[TPU_PARAM_LUT])))) {
		r->sc = TPU_SC_SEQUENCE_ERROR;
		return;
	}
	r->cycles = rows;
	if (!raw) {
		r->result = activate_int8(g, src, dst, rows, lut);
		return;
	}
	/* Identical or disjoint ranges (checked above), so element-wise in place is exact. */
	for (i = 0; i < rows; i++) {
		const int32_t *a = g->acc + (size_t)(src + i) * n;
		int32_t *d = g->acc + (size_t)(dst + i) * n;

		for (j = 0; j < n; j++)
			d[j] = tpu_wrap_add(a[j], g->bias[j]);
	}
}

/* The stream's rows (§6.11): C blocks of K (+ 4 bias) rows, A's T x R rows with A_STREAM, the
 * MULT/SHIFT rows with PARAMS. (< 2^34: every field is 32 bits at most.) */
static uint64_t stream_rows(const struct golden *g, const struct golden_cmd *c)
{
	uint64_t n = g->cfg.array_n, k = SQE(c, ROWS), op0 = SQE(c, OP0);
	uint64_t per_block = k + (op0 & TPU_STREAM_MATMUL_ACTIVATE ? TPU_STREAM_MATMUL_BIAS_ROWS : 0);

	return SQE(c, OP2) * per_block +
	       (op0 & TPU_STREAM_MATMUL_A_STREAM ? (k + n - 1) / n * SQE(c, OP1) : 0) +
	       (op0 & TPU_STREAM_MATMUL_PARAMS ? TPU_STREAM_MATMUL_PARAMS_ROWS : 0);
}

/* STREAM_MATMUL field checks, steps 2..5 of spec §6.1 in order (§6.11). */
static uint32_t stream_matmul_checks(const struct golden *g, const struct golden_cmd *c)
{
	uint64_t n = g->cfg.array_n, k = SQE(c, ROWS), cols = SQE(c, COLS), rr = SQE(c, OP1);
	uint64_t blocks = SQE(c, OP2), stride = SQE(c, STRIDE), tiles = (k + n - 1) / n;
	uint32_t op0 = SQE(c, OP0);
	bool act = op0 & TPU_STREAM_MATMUL_ACTIVATE, lut = op0 & TPU_STREAM_MATMUL_LUT;
	bool astr = op0 & TPU_STREAM_MATMUL_A_STREAM, wb = op0 & TPU_STREAM_MATMUL_WRITE_BACK;
	bool kmaj = op0 & TPU_STREAM_MATMUL_K_MAJOR, prm = op0 & TPU_STREAM_MATMUL_PARAMS;
	uint64_t kg = (op0 & TPU_STREAM_MATMUL_K_GROUP_MASK) >> TPU_STREAM_MATMUL_K_GROUP_SHIFT;
	uint64_t rows = stream_rows(g, c);

	if ((op0 & ~(TPU_STREAM_MATMUL_ACCUMULATE | TPU_STREAM_MATMUL_ACTIVATE |
		     TPU_STREAM_MATMUL_LUT | TPU_STREAM_MATMUL_A_STREAM |
		     TPU_STREAM_MATMUL_WRITE_BACK | TPU_STREAM_MATMUL_K_MAJOR |
		     TPU_STREAM_MATMUL_K_GROUP_MASK | TPU_STREAM_MATMUL_PARAMS |
		     TPU_STREAM_MATMUL_W_FIRST)) ||
	    (!kmaj && (op0 & TPU_STREAM_MATMUL_K_GROUP_MASK)) ||
	    ((op0 & TPU_STREAM_MATMUL_W_FIRST) && !astr) ||
	    ((lut || wb || prm) && !act) || (!act && SQE(c, OP3)) ||
	    (!wb && (SQE(c, HOST_ADDR2_LO) || SQE(c, HOST_ADDR2_HI))))
		return TPU_SC_INVALID_FIELD;
	if (k == 0 || k > TPU_STREAM_MATMUL_MAX_K || cols == 0 || cols > n ||
	    ((act || astr) && cols != n) ||
	    rr == 0 || rr > TPU_STREAM_MATMUL_MAX_R || blocks == 0 ||
	    blocks > TPU_STREAM_MATMUL_MAX_BLOCKS || (stride != 0 && stride < cols) ||
	    (rows - 1) * (stride ? stride : cols) + cols != SQE(c, LENGTH) ||
	    (wb && blocks * rr * n > UINT32_MAX) || kg > blocks)
		return TPU_SC_INVALID_FIELD;
	if (!golden_range_ok(SQE(c, LOCAL_ADDR), tiles * rr, g->cfg.ub_rows) ||
	    !golden_range_ok(SQE(c, LOCAL_ADDR2), blocks * rr, g->cfg.acc_rows) ||
	    (act && !golden_range_ok(SQE(c, OP3), blocks * rr, g->cfg.ub_rows)))
		return TPU_SC_LOCAL_RANGE;
	/* K_MAJOR: an ACTIVATE may run while later blocks still read A, so its output rows must
	 * not meet A's rows (no order to define) */
	if (kmaj && act && SQE(c, OP3) < SQE(c, LOCAL_ADDR) + tiles * rr &&
	    SQE(c, LOCAL_ADDR) < SQE(c, OP3) + blocks * rr)
		return TPU_SC_LOCAL_RANGE;
	if (g->fifo_count != 0 ||
	    (act && ((!prm && (!g->loaded[TPU_PARAM_MULT] || !g->loaded[TPU_PARAM_SHIFT])) ||
		     !g->loaded[TPU_PARAM_OUTPUT] || (lut && !g->loaded[TPU_PARAM_LUT]))))
		return TPU_SC_SEQUENCE_ERROR;
	return TPU_SC_SUCCESS;
}

/* G, the blocks interleaved K-tile by K-tile at the stream's start: OP0.K_GROUP (0 = all C)
 * with OP0.K_MAJOR, else 1 (block 0 alone: the block-major order). */
static uint64_t stream_kgroup(const struct golden_cmd *c)
{
	uint32_t op0 = SQE(c, OP0), kg = (op0 & TPU_STREAM_MATMUL_K_GROUP_MASK) >>
					 TPU_STREAM_MATMUL_K_GROUP_SHIFT;

	if (!(op0 & TPU_STREAM_MATMUL_K_MAJOR))
		return 1;
	return kg ? kg : SQE(c, OP2);
}

/* Stream row of block b's K-tile t (t = tiles: its bias vector), docs/spec.md 6.11: blocks
 * b < G interleaved, K-tile t of them a round of (A_STREAM) R rows of A's K-tile t, then each
 * block's K-tile t (in the last round: its K - (T - 1) x N rows, then its bias vector); blocks
 * b >= G after them, P = K (+ 4) rows each. G = 1 is the block-major order (A before block 0's
 * K-tiles, every later block T x R rows later). W_FIRST: block 0's K-tile 0 weight rows and
 * A's K-tile 0 swap places (the weight rows first). */
static uint64_t stream_row(const struct golden *g, const struct golden_cmd *c, uint32_t b,
			   uint32_t t)
{
	uint64_t n = g->cfg.array_n, k = SQE(c, ROWS), rr = SQE(c, OP1), tiles = (k + n - 1) / n;
	bool act = SQE(c, OP0) & TPU_STREAM_MATMUL_ACTIVATE;
	bool astr = SQE(c, OP0) & TPU_STREAM_MATMUL_A_STREAM;
	uint64_t per_block = k + (act ? TPU_STREAM_MATMUL_BIAS_ROWS : 0), gn = stream_kgroup(c);
	uint64_t a = astr ? rr : 0, tl = t < tiles ? t : tiles - 1;
	uint64_t last = k - (tiles - 1) * n + (act ? TPU_STREAM_MATMUL_BIAS_ROWS : 0);
	uint64_t p0 = SQE(c, OP0) & TPU_STREAM_MATMUL_PARAMS ? TPU_STREAM_MATMUL_PARAMS_ROWS : 0;

	if (b >= gn)
		return p0 + tiles * a + (uint64_t)b * per_block + (t < tiles ? (uint64_t)t * n : k);
	if (b == 0 && t == 0 && (SQE(c, OP0) & TPU_STREAM_MATMUL_W_FIRST))
		return p0;
	return p0 + tl * (a + gn * n) + a + (uint64_t)b * (tl + 1 < tiles ? n : last) +
	       (t < tiles ? 0 : k - (tiles - 1) * n);
}

/* PARAMS: the MULT and SHIFT vectors (4 stream rows each, N int32) at the stream's start, each
 * checked as LOAD_PARAMS checks it, then loaded into channels 0 .. N - 1. The status (0,
 * DMA_XFER_ERROR or INVALID_FIELD). */
static uint32_t stream_params(struct golden *g, const struct golden_cmd *c)
{
	uint32_t n = g->cfg.array_n, v, i, j;
	uint64_t stride = SQE(c, STRIDE) ? SQE(c, STRIDE) : n;

	for (v = 0; v < 2; v++) {
		uint32_t kind = v ? TPU_PARAM_SHIFT : TPU_PARAM_MULT;

		for (i = 0; i < TPU_STREAM_MATMUL_PARAMS_ROWS / 2; i++)
			if (golden_dma_read(g, sqe_host_addr(c) + ((uint64_t)v * 4 + i) * stride,
					    g->scratch + i * n, n))
				return TPU_SC_DMA_XFER_ERROR;
		if (!golden_param_values_ok(kind, g->scratch, n))
			return TPU_SC_INVALID_FIELD;
		for (j = 0; j < n; j++)
			(v ? g->shift : g->mult)[j] = (int32_t)get_le32(g->scratch + 4 * j);
		g->loaded[kind] = true;
	}
	return TPU_SC_SUCCESS;
}

/* A_STREAM: the R rows of A's K-tile t (before block 0's K-tile t in the stream; W_FIRST: K-tile
 * 0's right after block 0's K-tile 0 weight rows) into UB rows LOCAL_ADDR + t x R .. + R - 1. */
static int stream_a(struct golden *g, const struct golden_cmd *c, uint32_t t)
{
	uint32_t n = g->cfg.array_n, rr = SQE(c, OP1), k = SQE(c, ROWS), i;
	uint64_t stride = SQE(c, STRIDE) ? SQE(c, STRIDE) : n;
	uint64_t row0 = stream_row(g, c, 0, t) - rr; /* (the round's first rows) */

	if (t == 0 && (SQE(c, OP0) & TPU_STREAM_MATMUL_W_FIRST))
		row0 = stream_row(g, c, 0, 0) + (k > n ? n : k);

	for (i = 0; i < rr; i++) {
		int8_t *dst = golden_ub_row(g, (uint64_t)SQE(c, LOCAL_ADDR) + (uint64_t)t * rr + i);

		if (golden_dma_read(g, sqe_host_addr(c) + (row0 + i) * stride, dst, n))
			return -1;
		golden_ub_int8_written(g, dst);
	}
	return 0;
}

/* WRITE_BACK: the write-back host address (HOST_ADDR2). */
static uint64_t stream_wb_addr(const struct golden_cmd *c)
{
	return (uint64_t)SQE(c, HOST_ADDR2_HI) << 32 | SQE(c, HOST_ADDR2_LO);
}

/* ACTIVATE option: block b's bias vector (the 4 stream rows after its K weight rows, N int32)
 * into the bias channels, then its ACC rows through the activation into UB rows OP3 + b x R. */
static int stream_activate(struct golden *g, const struct golden_cmd *c, uint64_t row0,
			   uint32_t b)
{
	uint32_t n = g->cfg.array_n, rr = SQE(c, OP1), i, j;
	uint64_t stride = SQE(c, STRIDE) ? SQE(c, STRIDE) : n;

	for (i = 0; i < TPU_STREAM_MATMUL_BIAS_ROWS; i++)
		if (golden_dma_read(g, sqe_host_addr(c) + (row0 + i) * stride, g->scratch + i * n, n))
			return -1;
	for (j = 0; j < n; j++)
		g->bias[j] = (int32_t)get_le32(g->scratch + 4 * j);
	(void)activate_int8(g, SQE(c, LOCAL_ADDR2) + b * rr, SQE(c, OP3) + b * rr, rr,
			    SQE(c, OP0) & TPU_STREAM_MATMUL_LUT);
	return 0;
}

/* Weight rows b x K + k0 .. + kn - 1 of the stream into the active tile (rows >= kn zero). */
static int stream_tile(struct golden *g, const struct golden_cmd *c, uint64_t row0, uint32_t kn)
{
	uint32_t n = g->cfg.array_n, cols = SQE(c, COLS), k;
	uint64_t stride = SQE(c, STRIDE) ? SQE(c, STRIDE) : cols;
	struct golden_tile *t = &g->active;

	memset(t->w, 0, (size_t)n * n);
	for (k = 0; k < kn; k++)
		if (golden_dma_read(g, sqe_host_addr(c) + (row0 + k) * stride, t->w + (size_t)k * n,
				    cols))
			return -1;
	t->k = kn;
	t->cols = cols;
	t->bf16 = false;
	return 0;
}

/* WRITE_BACK of block b: its R output UB rows (N int8 each) packed to HOST_ADDR2 + b x R x N,
 * one posted write. On a bf16 device the UB rows are 2N bytes apart: gathered first. */
static void stream_write_back(struct golden *g, const struct golden_cmd *c, uint32_t b)
{
	uint32_t n = g->cfg.array_n, rr = SQE(c, OP1), i;
	uint64_t first = (uint64_t)SQE(c, OP3) + (uint64_t)b * rr;
	const void *src = golden_ub_row(g, first);

	if (g->ub_row_bytes != n) {
		/* (C x R <= UB_ROWS rows, so R x N bytes fit the scratch) */
		for (i = 0; i < rr; i++)
			memcpy(g->scratch + (size_t)i * n, golden_ub_row(g, first + i), n);
		src = g->scratch;
	}
	golden_dma_post(g, stream_wb_addr(c) + (uint64_t)b * rr * n, src, (size_t)rr * n);
}

/* Block b's K-tile t: its weight rows into the active tile, its MATMUL, and after the last
 * K-tile with ACTIVATE the block's bias, ACTIVATE and (WRITE_BACK) output write. -1 when a read
 * of the stream fails. */
static int stream_step(struct golden *g, const struct golden_cmd *c, uint32_t b, uint32_t t)
{
	uint32_t n = g->cfg.array_n, k = SQE(c, ROWS), rr = SQE(c, OP1), i;
	uint32_t tiles = (k + n - 1) / n, kn = t + 1 < tiles ? n : k - t * n;
	bool acc0 = SQE(c, OP0) & TPU_STREAM_MATMUL_ACCUMULATE;
	bool act = SQE(c, OP0) & TPU_STREAM_MATMUL_ACTIVATE;

	if (stream_tile(g, c, stream_row(g, c, b, t), kn))
		return -1;
	for (i = 0; i < rr; i++)
		matmul_row(g, golden_ub_row(g, (uint64_t)SQE(c, LOCAL_ADDR) + (uint64_t)t * rr + i),
			   g->acc + ((size_t)SQE(c, LOCAL_ADDR2) + (size_t)b * rr + i) * n,
			   t > 0 || acc0);
	if (t + 1 < tiles || !act)
		return 0;
	if (stream_activate(g, c, stream_row(g, c, b, tiles), b))
		return -1;
	/* (posted: a refused write is not seen) */
	if (SQE(c, OP0) & TPU_STREAM_MATMUL_WRITE_BACK)
		stream_write_back(g, c, b);
	return 0;
}

void golden_cmd_stream_matmul(struct golden *g, const struct golden_cmd *c,
			      struct golden_result *r)
{
	uint32_t n = g->cfg.array_n, k = SQE(c, ROWS), rr = SQE(c, OP1), blocks = SQE(c, OP2);
	uint32_t tiles = (k + n - 1) / n, b, t, gn;
	bool act = SQE(c, OP0) & TPU_STREAM_MATMUL_ACTIVATE;
	bool astr = SQE(c, OP0) & TPU_STREAM_MATMUL_A_STREAM;
	bool prm = SQE(c, OP0) & TPU_STREAM_MATMUL_PARAMS;
	uint64_t rows = stream_rows(g, c);
	bool wb = SQE(c, OP0) & TPU_STREAM_MATMUL_WRITE_BACK;

	r->sc = stream_matmul_checks(g, c);
	if (!r->sc)
		r->sc = golden_window_status(g, c, false);
	if (!r->sc && wb &&
	    !golden_window_ok(g, stream_wb_addr(c), (uint64_t)blocks * rr * n, true))
		r->sc = TPU_SC_DMA_ACCESS_VIOLATION;
	if (r->sc)
		return;
	/* The tiles pass through the active tile: none is active afterwards (also after a failed
	 * read, which leaves the ACC rows of every block unspecified; here: partly updated, and
	 * with ACTIVATE the output UB rows and the bias channels too, with A_STREAM A's UB rows). */
	g->active_valid = false;
	if (act)
		g->loaded[TPU_PARAM_BIAS] = true;
	/* in stream order: the G interleaved blocks K-tile by K-tile (each block's epilogue after
	 * its last K-tile), then the others block by block */
	gn = (uint32_t)stream_kgroup(c);
	if (prm && (r->sc = stream_params(g, c)))
		return;
	for (t = 0; t < tiles; t++) {
		if (astr && stream_a(g, c, t)) {
			r->sc = TPU_SC_DMA_XFER_ERROR;
			return;
		}
		for (b = 0; b < gn; b++)
			if (stream_step(g, c, b, t)) {
				r->sc = TPU_SC_DMA_XFER_ERROR;
				return;
			}
	}
	for (b = gn; b < blocks; b++)
		for (t = 0; t < tiles; t++)
			if (stream_step(g, c, b, t)) {
				r->sc = TPU_SC_DMA_XFER_ERROR;
				return;
			}
	r->result = (uint32_t)(rows * SQE(c, COLS));
	r->rd_bytes = r->result;
	r->wr_bytes = wb ? (uint64_t)blocks * rr * n : 0;
	g->perf[GOLDEN_PERF_MACS].val += (uint64_t)blocks * rr * k * SQE(c, COLS);
	g->perf[GOLDEN_PERF_MXU_BUSY].val += (uint64_t)blocks * tiles * rr;
	r->cycles = (uint64_t)blocks * (tiles * (rr > n ? rr : n) + (act ? n + rr : 0)) + 2ull * n +
		    (astr ? (uint64_t)tiles * rr : 0);
}
