/* Golden device: the transfer commands READ_HOST, LOAD_WEIGHTS, LOAD_PARAMS and WRITE_HOST
 * (docs/spec.md §6.3-§6.5, §6.8), with their bf16 forms and the SCALE kind (§6.12). Each runs
 * the checks of §6.1 in order; a transfer into the device reads the whole span into the scratch
 * buffer before committing anything, so a failed DMA leaves local state untouched. */
#include <string.h>

#include "golden_internal.h"
#include "tpu/bf16.h"

/* Bytes per UB element of a transfer: 2 with FLAGS.BF16 (spec 6.12), else 1. */
static uint32_t ub_esize(const struct golden_cmd *c)
{
	return golden_cmd_bf16(c) ? 2 : 1;
}

/* Step 7 for reads: ROWS rows of row_bytes from HOST_ADDR (STRIDE apart) into the scratch,
 * packed. The window check passed, so no row address can overflow. */
static uint32_t read_rows(struct golden *g, const struct golden_cmd *c, uint64_t row_bytes)
{
	uint64_t addr = sqe_host_addr(c), stride = golden_stride(c, row_bytes);
	uint32_t i, rows = SQE(c, ROWS);

	for (i = 0; i < rows; i++)
		if (golden_dma_read(g, addr + i * stride, g->scratch + i * row_bytes, row_bytes))
			return TPU_SC_DMA_XFER_ERROR;
	return TPU_SC_SUCCESS;
}

void golden_cmd_read_host(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	uint32_t n = g->cfg.array_n, rows = SQE(c, ROWS), cols = SQE(c, COLS), i;
	uint32_t rb = cols * ub_esize(c); /* (cols <= N once checked) */

	if (SQE(c, LOCAL_ADDR2) || SQE(c, OP0) || SQE(c, OP1) || SQE(c, OP2) || SQE(c, OP3) ||
	    cols == 0 || cols > n || !golden_span_ok(c, rb)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	if (!golden_range_ok(SQE(c, LOCAL_ADDR), rows, g->cfg.ub_rows)) {
		r->sc = TPU_SC_LOCAL_RANGE;
		return;
	}
	r->sc = golden_window_status(g, c, false);
	if (!r->sc)
		r->sc = read_rows(g, c, rb);
	if (r->sc)
		return;
	/* The rest of the row is 0: int8 bytes COLS .. N - 1 (and N .. 2N - 1 on a bf16 device),
	 * or the bf16 elements COLS .. N - 1 as +0. */
	for (i = 0; i < rows; i++) {
		int8_t *dst = golden_ub_row(g, SQE(c, LOCAL_ADDR) + i);

		memcpy(dst, g->scratch + (size_t)i * rb, rb);
		memset(dst + rb, 0, g->ub_row_bytes - rb);
	}
	r->result = rows * rb;
	r->rd_bytes = (uint64_t)rows * rb;
}

void golden_cmd_load_weights(struct golden *g, const struct golden_cmd *c,
			     struct golden_result *r)
{
	uint32_t n = g->cfg.array_n, rows = SQE(c, ROWS), cols = SQE(c, COLS), op0 = SQE(c, OP0);
	bool transpose = op0 & TPU_LOAD_WEIGHTS_TRANSPOSE;
	uint32_t rb = cols * ub_esize(c); /* (cols <= N once checked) */
	struct golden_tile *t;
	uint32_t k, j;

	if (SQE(c, LOCAL_ADDR) || SQE(c, LOCAL_ADDR2) || SQE(c, OP1) || SQE(c, OP2) ||
	    SQE(c, OP3) || rows == 0 || rows > n || cols == 0 || cols > n ||
	    (op0 & ~TPU_LOAD_WEIGHTS_TRANSPOSE) || !golden_span_ok(c, rb)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	if (g->fifo_count == g->cfg.fifo_tiles) {
		r->sc = TPU_SC_SEQUENCE_ERROR;
		return;
	}
	r->sc = golden_window_status(g, c, false);
	if (!r->sc)
		r->sc = read_rows(g, c, rb);
	if (r->sc)
		return;
	t = &g->fifo[(g->fifo_head + g->fifo_count) % g->cfg.fifo_tiles];
	r->result = rows * rb;
	r->rd_bytes = (uint64_t)rows * rb;
	g->fifo_count++;
	if (golden_cmd_bf16(c)) {
		golden_bf16_fill_tile(g, t, rows, cols, transpose);
		return;
	}
	memset(t->w, 0, (size_t)n * n);
	/* Host matrix X is rows x cols, X[a][b] = scratch[a * cols + b]. */
	for (k = 0; k < rows; k++)
		for (j = 0; j < cols; j++) {
			int8_t x = (int8_t)g->scratch[(size_t)k * cols + j];

			if (transpose)
				t->w[(size_t)j * n + k] = x; /* W[j][k] = X[k][j] */
			else
				t->w[(size_t)k * n + j] = x;
		}
	t->k = transpose ? cols : rows;
	t->cols = transpose ? rows : cols;
	t->bf16 = false;
}

static bool int8_range(uint32_t v)
{
	int32_t s = (int32_t)v;

	return s >= -128 && s <= 127;
}

static void load_output(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	uint32_t round = (SQE(c, OP0) & TPU_LOAD_PARAMS_ROUND_MASK) >> TPU_LOAD_PARAMS_ROUND_SHIFT;

	if (round > TPU_ROUND_MAX || (round != TPU_ROUND_DOUBLE && !g->cfg.round) ||
	    SQE(c, HOST_ADDR_LO) || SQE(c, HOST_ADDR_HI) || SQE(c, LENGTH) || SQE(c, STRIDE) ||
	    SQE(c, LOCAL_ADDR) || SQE(c, LOCAL_ADDR2) || SQE(c, ROWS) || SQE(c, COLS) ||
	    !int8_range(SQE(c, OP1)) || !int8_range(SQE(c, OP2)) || !int8_range(SQE(c, OP3)) ||
	    (int32_t)SQE(c, OP2) > (int32_t)SQE(c, OP3)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	g->out_zp = (int32_t)SQE(c, OP1);
	g->out_min = (int32_t)SQE(c, OP2);
	g->out_max = (int32_t)SQE(c, OP3);
	g->out_round = round;
	g->loaded[TPU_PARAM_OUTPUT] = true;
}

bool golden_param_values_ok(uint32_t kind, const uint8_t *p, uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count; i++) {
		int32_t v = (int32_t)get_le32(p + 4 * i);

		if (kind == TPU_PARAM_MULT && v < 0)
			return false;
		if (kind == TPU_PARAM_SHIFT && (v < TPU_SHIFT_MIN || v > TPU_SHIFT_MAX))
			return false;
		if (kind == TPU_PARAM_SCALE && tpu_f32_is_nan((uint32_t)v))
			return false;
	}
	return true;
}

void golden_cmd_load_params(struct golden *g, const struct golden_cmd *c,
			    struct golden_result *r)
{
	uint32_t kind = SQE(c, OP0), cols = SQE(c, COLS), first = SQE(c, LOCAL_ADDR), i;
	bool lut = kind == TPU_PARAM_LUT;
	int32_t *dst;

	if ((kind & ~TPU_LOAD_PARAMS_ROUND_MASK) == TPU_PARAM_OUTPUT) {
		load_output(g, c, r);
		return;
	}
	/* SCALE and FCLAMP exist on bf16 devices only (spec 6.12; else step 3) */
	if (kind == TPU_PARAM_FCLAMP && g->cfg.bf16) {
		golden_bf16_load_fclamp(g, c, r);
		return;
	}
	if ((kind > TPU_PARAM_OUTPUT && !(kind == TPU_PARAM_SCALE && g->cfg.bf16)) ||
	    SQE(c, LOCAL_ADDR2) || SQE(c, OP1) || SQE(c, OP2) ||
	    SQE(c, OP3) || SQE(c, ROWS) != 1 || SQE(c, STRIDE) != 0 ||
	    (lut && (cols != TPU_LUT_ENTRIES || SQE(c, LENGTH) != TPU_LUT_ENTRIES || first != 0)) ||
	    (!lut && (cols == 0 || cols > g->cfg.array_n || SQE(c, LENGTH) != 4 * cols))) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	if (!lut && !golden_range_ok(first, cols, g->cfg.array_n)) {
		r->sc = TPU_SC_LOCAL_RANGE;
		return;
	}
	r->sc = golden_window_status(g, c, false);
	if (!r->sc && golden_dma_read(g, sqe_host_addr(c), g->scratch, SQE(c, LENGTH)))
		r->sc = TPU_SC_DMA_XFER_ERROR;
	if (!r->sc && !lut && !golden_param_values_ok(kind, g->scratch, cols))
		r->sc = TPU_SC_INVALID_FIELD;
	if (r->sc)
		return;
	if (lut) {
		memcpy(g->lut, g->scratch, TPU_LUT_ENTRIES);
	} else {
		if (kind == TPU_PARAM_SCALE) {
			for (i = 0; i < cols; i++)
				g->scale[first + i] = get_le32(g->scratch + 4 * i);
		} else {
			dst = kind == TPU_PARAM_BIAS ? g->bias :
			      kind == TPU_PARAM_MULT ? g->mult : g->shift;
			for (i = 0; i < cols; i++)
				dst[first + i] = (int32_t)get_le32(g->scratch + 4 * i);
		}
	}
	g->loaded[kind] = true;
	r->result = SQE(c, LENGTH);
	r->rd_bytes = SQE(c, LENGTH);
}

void golden_cmd_write_host(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	uint32_t n = g->cfg.array_n, rows = SQE(c, ROWS), cols = SQE(c, COLS), op0 = SQE(c, OP0);
	uint32_t first = SQE(c, LOCAL_ADDR), i, j;
	bool from_acc = op0 & TPU_WRITE_HOST_FROM_ACC;
	uint64_t rb = (uint64_t)cols * (from_acc ? 4 : ub_esize(c)), stride;
	uint64_t addr = sqe_host_addr(c);

	/* (FROM_ACC moves 32-bit words whatever they hold: FLAGS.BF16 is refused there, step 2) */
	if ((from_acc && golden_cmd_bf16(c)) ||
	    SQE(c, LOCAL_ADDR2) || SQE(c, OP1) || SQE(c, OP2) || SQE(c, OP3) || cols == 0 ||
	    cols > n || (op0 & ~TPU_WRITE_HOST_FROM_ACC) || !golden_span_ok(c, rb)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	if (!golden_range_ok(first, rows, from_acc ? g->cfg.acc_rows : g->cfg.ub_rows)) {
		r->sc = TPU_SC_LOCAL_RANGE;
		return;
	}
	r->sc = golden_window_status(g, c, true);
	if (r->sc)
		return;
	stride = golden_stride(c, rb);
	for (i = 0; i < rows; i++) {
		size_t row = (size_t)(first + i) * n;

		if (from_acc)
			for (j = 0; j < cols; j++)
				put_le32(g->scratch + 4 * j, (uint32_t)g->acc[row + j]);
		else
			memcpy(g->scratch, golden_ub_row(g, first + i), rb);
		/* Posted: a row host memory refuses is lost and the command still succeeds. */
		golden_dma_post(g, addr + i * stride, g->scratch, rb);
	}
	r->result = (uint32_t)(rows * rb);
	r->wr_bytes = rows * rb;
}
