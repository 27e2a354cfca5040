/* Golden device: command decoding, the checks every command shares (docs/spec.md §6.1), and the
 * commands without local state: NOP, FENCE, IDENTIFY. */
#include <string.h>

#include "golden_internal.h"

bool golden_range_ok(uint64_t first, uint64_t count, uint64_t size)
{
	return first <= size && count <= size - first;
}

uint32_t golden_activate_status(const struct golden *g, const struct golden_cmd *c,
				uint32_t allowed, bool bad)
{
	uint64_t rows = SQE(c, ROWS), src = SQE(c, LOCAL_ADDR), dst = SQE(c, LOCAL_ADDR2);
	bool raw = SQE(c, OP0) & TPU_ACTIVATE_RAW32;
	bool overlap = src != dst && src + rows > dst && dst + rows > src;

	if (SQE(c, HOST_ADDR_LO) || SQE(c, HOST_ADDR_HI) || SQE(c, LENGTH) || SQE(c, STRIDE) ||
	    SQE(c, COLS) || SQE(c, OP1) || SQE(c, OP2) || SQE(c, OP3) || rows == 0 ||
	    (SQE(c, OP0) & ~allowed) || bad || (raw && overlap))
		return TPU_SC_INVALID_FIELD;
	if (!golden_range_ok(src, rows, g->cfg.acc_rows) ||
	    !golden_range_ok(dst, rows, raw ? g->cfg.acc_rows : g->cfg.ub_rows))
		return TPU_SC_LOCAL_RANGE;
	return TPU_SC_SUCCESS;
}

uint64_t golden_stride(const struct golden_cmd *c, uint64_t row_bytes)
{
	return SQE(c, STRIDE) ? SQE(c, STRIDE) : row_bytes;
}

bool golden_span_ok(const struct golden_cmd *c, uint64_t row_bytes)
{
	uint64_t rows = SQE(c, ROWS), stride = SQE(c, STRIDE), span;

	if (rows == 0 || (stride != 0 && stride < row_bytes))
		return false;
	/* (2^32 - 1)^2 + row_bytes (<= 1024) stays below 2^64: no overflow. */
	span = (rows - 1) * golden_stride(c, row_bytes) + row_bytes;
	return span == SQE(c, LENGTH);
}

uint32_t golden_window_status(const struct golden *g, const struct golden_cmd *c, bool dir_write)
{
	return golden_window_ok(g, sqe_host_addr(c), SQE(c, LENGTH), dir_write) ?
		       TPU_SC_SUCCESS : TPU_SC_DMA_ACCESS_VIOLATION;
}

/* Every field other than OPCODE, FLAGS, CID and USER_TAG must be 0. */
static void cmd_nop(const struct golden_cmd *c, struct golden_result *r)
{
	unsigned i;

	for (i = TPU_SQE_HOST_ADDR_LO_DW; i <= TPU_SQE_OP3_DW; i++)
		if (c->dw[i])
			r->sc = TPU_SC_INVALID_FIELD;
}

static void cmd_fence(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	uint64_t addr = sqe_host_addr(c), val;
	uint8_t buf[8];

	if (SQE(c, STRIDE) || SQE(c, LOCAL_ADDR) || SQE(c, LOCAL_ADDR2) || SQE(c, ROWS) ||
	    SQE(c, COLS) || SQE(c, OP2) || SQE(c, OP3)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	if (addr == 0) {
		/* No semaphore: commands execute in order here, so the fence is already satisfied. */
		if (SQE(c, LENGTH) || SQE(c, OP0) || SQE(c, OP1))
			r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	if (SQE(c, LENGTH) != 8 || (addr & 7)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	r->sc = golden_window_status(g, c, true);
	if (r->sc)
		return;
	val = (uint64_t)SQE(c, OP1) << 32 | SQE(c, OP0);
	put_le32(buf, (uint32_t)val);
	put_le32(buf + 4, (uint32_t)(val >> 32));
	golden_dma_post(g, addr, buf, sizeof(buf)); /* posted: a refusal is not seen */
	r->wr_bytes = sizeof(buf);
}

/* The identity page of spec §6.10, built in the scratch buffer. */
static void identify_page(struct golden *g, uint8_t *p)
{
	static const uint32_t regs[] = { TPU_REG_ID,     TPU_REG_VERSION, TPU_REG_HWCFG0,
					 TPU_REG_HWCFG1, TPU_REG_HWCFG2,  TPU_REG_CAP };
	unsigned i;

	memset(p, 0, TPU_IDENTIFY_BYTES);
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		put_le32(p + 4 * i, golden_mmio_read(g, regs[i]));
	put_le32(p + 24, golden_opcodes(g));
	put_le32(p + 28, TPU_K_NO_OVERFLOW);
	put_le32(p + 32, golden_mmio_read(g, TPU_REG_FEATURES));
}

static void cmd_identify(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	if (SQE(c, STRIDE) || SQE(c, LOCAL_ADDR) || SQE(c, LOCAL_ADDR2) || SQE(c, ROWS) ||
	    SQE(c, COLS) || SQE(c, OP0) || SQE(c, OP1) || SQE(c, OP2) || SQE(c, OP3) ||
	    SQE(c, LENGTH) != TPU_IDENTIFY_BYTES) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	r->sc = golden_window_status(g, c, true);
	if (r->sc)
		return;
	identify_page(g, g->scratch);
	golden_dma_post(g, sqe_host_addr(c), g->scratch, TPU_IDENTIFY_BYTES);
	r->wr_bytes = TPU_IDENTIFY_BYTES;
	r->result = TPU_IDENTIFY_BYTES;
}

void golden_execute(struct golden *g, const struct golden_cmd *c, struct golden_result *r)
{
	memset(r, 0, sizeof(*r));
	if (!(golden_opcodes(g) >> (SQE(c, OPCODE) & 31u) & 1u) || SQE(c, OPCODE) >= TPU_OP_COUNT) {
		r->sc = TPU_SC_INVALID_OPCODE;
		return;
	}
	/* (HOST_ADDR2 is reserved but for STREAM_MATMUL with WRITE_BACK, whose own step 2
	 * checks it) */
	/* FLAGS.BF16 exists only where the mode is built in (spec 6.12) */
	if ((SQE(c, FLAGS) & ~(TPU_SQE_FLAGS_VALID & (g->cfg.bf16 ? 0xFFu : ~TPU_SQE_FLAG_BF16))) ||
	    ((SQE(c, HOST_ADDR2_LO) || SQE(c, HOST_ADDR2_HI)) &&
	     SQE(c, OPCODE) != TPU_OP_STREAM_MATMUL)) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	/* Only the data commands take FLAGS.BF16 (spec 6.12; WRITE_HOST FROM_ACC checks its own) */
	if (golden_cmd_bf16(c) && SQE(c, OPCODE) != TPU_OP_READ_HOST &&
	    SQE(c, OPCODE) != TPU_OP_LOAD_WEIGHTS && SQE(c, OPCODE) != TPU_OP_MATMUL &&
	    SQE(c, OPCODE) != TPU_OP_ACTIVATE && SQE(c, OPCODE) != TPU_OP_WRITE_HOST) {
		r->sc = TPU_SC_INVALID_FIELD;
		return;
	}
	switch (SQE(c, OPCODE)) {
	case TPU_OP_NOP: cmd_nop(c, r); break;
	case TPU_OP_READ_HOST: golden_cmd_read_host(g, c, r); break;
	case TPU_OP_LOAD_WEIGHTS: golden_cmd_load_weights(g, c, r); break;
	case TPU_OP_LOAD_PARAMS: golden_cmd_load_params(g, c, r); break;
	case TPU_OP_MATMUL: golden_cmd_matmul(g, c, r); break;
	case TPU_OP_ACTIVATE: golden_cmd_activate(g, c, r); break;
	case TPU_OP_WRITE_HOST: golden_cmd_write_host(g, c, r); break;
	case TPU_OP_FENCE: cmd_fence(g, c, r); break;
	case TPU_OP_STREAM_MATMUL: golden_cmd_stream_matmul(g, c, r); break;
	default: cmd_identify(g, c, r); break;
	}
	if (r->sc != TPU_SC_SUCCESS) {
		/* A failing command reports RESULT 0 and counts no data bytes (spec §6.1). */
		r->result = 0;
		r->rd_bytes = r->wr_bytes = r->cycles = 0;
	}
}
