/* Private state of the golden device model, shared by its source files:
 *   golden.c        lifecycle, configuration, BAR0 register file
 *   golden_queue.c  enable, doorbells, the fetch/execute/complete loop, interrupts
 *   golden_dma.c    window checks and the DMA port wrappers
 *   golden_cmd.c    command decoding, the common checks, NOP, FENCE, IDENTIFY
 *   golden_xfer.c   READ_HOST, LOAD_WEIGHTS, LOAD_PARAMS, WRITE_HOST
 *   golden_compute.c MATMUL, ACTIVATE, STREAM_MATMUL
 *   golden_bf16.c   the bf16 mode's command bodies (FLAGS.BF16, SCALE and FCLAMP; spec 6.12)
 *
 * The golden model has no clock and no in-flight state: golden_run() fetches, executes and
 * completes one command at a time, atomically with respect to BAR0 accesses. So it never produces
 * ABORTED_RESET (synthesised by the driver), CMD_TIMEOUT (no watchdog can fire) or
 * INTERNAL_ERROR (every buffer it needs is allocated at creation). */
#ifndef TPU_GOLDEN_INTERNAL_H
#define TPU_GOLDEN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "golden.h"
#include "tpu/numerics.h"

/* CAP.TIMEOUT advertised by the golden model (units of 1024 cycles). It has no watchdog and never
 * times out, but drivers size their waits from this value, so it reports a realistic budget. */
#define GOLDEN_CAP_TIMEOUT 64u

/* Analytical schedule behind PERF_CYCLES (the golden model has no clock; see docs/spec.md §2):
 * every command costs GOLDEN_CYC_CMD cycles of fetch, decode and completion, plus one cycle per
 * GOLDEN_CYC_DMA_BYTES bytes it moved over the link (rounded up), plus, for MATMUL, one cycle per
 * row and a pipeline fill/drain of 2N, and for ACTIVATE one cycle per row. A bf16 command costs
 * what its int8 counterpart costs (its transfers move 2 bytes an element, counted as bytes). */
#define GOLDEN_CYC_CMD 16u
#define GOLDEN_CYC_DMA_BYTES 64u

#define GOLDEN_SUPPORTED_OPS ((1u << TPU_OP_COUNT) - 1u)
struct golden_queue {
	/* Configuration registers (writable only while CC.EN = 0). */
	uint64_t sq_base, cq_base;
	uint32_t sq_size, cq_size;
	/* Ring state, reset by CC.EN 0 -> 1. */
	uint32_t sq_head, sq_tail, cq_head, cq_tail;
	uint32_t phase;
	bool configured; /* SQ_SIZE != 0 and the configuration passed the enable check */
	bool broken;
};

struct golden_window {
	uint64_t base, limit;
	uint32_t perm;
};

struct golden_tile {
	int8_t *w;      /* int8 tiles: N x N, row k holds W[k][0..N-1] */
	uint16_t *w16;  /* bf16 tiles (cfg.bf16 only, else NULL): N x N bf16 bit patterns stored
			 * by column, W[k][j] = w16[j * N + k], so a PE column is contiguous */
	uint32_t k;     /* valid rows (reduction depth) */
	uint32_t cols;  /* valid columns */
	bool bf16;      /* the tile's type, set by the LOAD_WEIGHTS that pushed it */
};

/* A PERF counter: live 64-bit value and the high half latched by the last LO read. */
struct golden_perf {
	uint64_t val;
	uint32_t hi_latch;
};

enum golden_perf_id {
	GOLDEN_PERF_CYCLES,
	GOLDEN_PERF_MXU_BUSY,
	GOLDEN_PERF_MACS,
	GOLDEN_PERF_DMA_RD,
	GOLDEN_PERF_DMA_WR,
	GOLDEN_PERF_NUM64,
};

struct golden {
	struct golden_config cfg;
	struct golden_dma_port dma;

	/* Registers. */
	uint32_t cc, csts, gstat, int_mask, int_status;
	uint32_t errlog0, errlog1;
	uint64_t errlog_addr;
	uint64_t msi_addr;
	uint32_t msi_data, msi_ctrl;
	struct golden_perf perf[GOLDEN_PERF_NUM64];
	uint32_t perf_cmds, perf_errors;

	struct golden_queue *q;    /* cfg.num_queues */
	struct golden_window *win; /* cfg.num_windows */
	unsigned rr;               /* next queue the round robin looks at */

	/* Local memories: never reset (RAMs), zero at creation. */
	int8_t *ub;   /* ub_rows x ub_row_bytes */
	int32_t *acc; /* acc_rows x N (int32, or fp32 bits for bf16 commands) */
	uint32_t ub_row_bytes; /* N, or 2N on a bf16 device (spec 6.12 "Storage") */

	/* Weight FIFO (ring of fifo_tiles tiles) and the active tile. */
	struct golden_tile *fifo;
	uint32_t fifo_head, fifo_count;
	struct golden_tile active;
	bool active_valid;

	/* Activation parameters, per channel (N) plus the layer-wide values. */
	int32_t *bias, *mult, *shift;
	int8_t lut[TPU_LUT_ENTRIES];
	int32_t out_zp, out_min, out_max;
	uint32_t out_round; /* OP0.ROUND of the last OUTPUT load (enum tpu_round) */
	uint32_t *scale;   /* fp32 SCALE per channel (cfg.bf16 only, else NULL) */
	uint32_t fmin, fmax; /* FCLAMP limits, fp32 after the input rules */
	bool loaded[TPU_PARAM_KIND_COUNT];

	/* Scratch for transfers into the device, read completely before anything is committed;
	 * sized at creation for the largest transfer so that execution never allocates. */
	uint8_t *scratch;
	size_t scratch_len;
	uint32_t *rowsum; /* N wrapping int32 sums of one MATMUL row */
};

/* The implemented opcodes (OPCODES, IDENTIFY byte 24): all, or all but STREAM_MATMUL. */
static inline uint32_t golden_opcodes(const struct golden *g)
{
	return GOLDEN_SUPPORTED_OPS & ~(g->cfg.stream_mm ? 0u : 1u << TPU_OP_STREAM_MATMUL);
}

/* A decoded SQE (the raw dwords) and the outcome of executing it. */
struct golden_cmd {
	uint32_t dw[TPU_SQE_BYTES / 4];
	uint32_t qid;
};

struct golden_result {
	uint32_t sc;       /* TPU_SC_* */
	uint32_t result;   /* CQE RESULT on success */
	uint64_t rd_bytes; /* data bytes moved, counted only on success */
	uint64_t wr_bytes;
	uint64_t cycles;   /* analytical compute cycles beyond the per-command cost */
};

static inline uint32_t sqe_get(const struct golden_cmd *c, unsigned dw, unsigned shift,
			       uint32_t mask)
{
	return (c->dw[dw] >> shift) & mask;
}

#define SQE(c, F) sqe_get((c), TPU_SQE_##F##_DW, TPU_SQE_##F##_SHIFT, TPU_SQE_##F##_MASK)

static inline uint64_t sqe_host_addr(const struct golden_cmd *c)
{
	return (uint64_t)SQE(c, HOST_ADDR_HI) << 32 | SQE(c, HOST_ADDR_LO);
}

/* UB row `row` (its int8 element k is byte k; a bf16 element k is bytes 2k, 2k + 1). */
static inline int8_t *golden_ub_row(const struct golden *g, uint64_t row)
{
	return g->ub + (size_t)row * g->ub_row_bytes;
}

/* An int8 write of a UB row sets its bytes N .. 2N - 1 to 0 on a bf16 device (spec 6.12). */
static inline void golden_ub_int8_written(const struct golden *g, int8_t *row)
{
	uint32_t n = g->cfg.array_n;

	if (g->ub_row_bytes > n)
		for (uint32_t i = n; i < g->ub_row_bytes; i++)
			row[i] = 0;
}

static inline bool golden_cmd_bf16(const struct golden_cmd *c)
{
	return sqe_get(c, TPU_SQE_FLAGS_DW, TPU_SQE_FLAGS_SHIFT, TPU_SQE_FLAGS_MASK) &
	       TPU_SQE_FLAG_BF16;
}

/* golden.c */
void golden_power_on_state(struct golden *g);

/* golden_queue.c */
void golden_enable(struct golden *g);
void golden_disable(struct golden *g);
void golden_sq_doorbell(struct golden *g, uint32_t qid, uint32_t val);
void golden_cq_doorbell(struct golden *g, uint32_t qid, uint32_t val);
bool golden_queue_active(const struct golden *g, uint32_t qid);
void golden_unmask_irq(struct golden *g);

/* golden_dma.c: dir_write = true for a device write to host memory. */
bool golden_window_ok(const struct golden *g, uint64_t addr, uint64_t len, bool dir_write);
int golden_dma_read(struct golden *g, uint64_t iova, void *dst, size_t len);
/* Returns the host memory result (0 or -errno); for internal use only, since every device write
 * to host memory is posted: command code uses golden_dma_post, which ignores refusals. */
int golden_dma_write(struct golden *g, uint64_t iova, const void *src, size_t len);
/* A posted write (data, FENCE semaphore, IDENTIFY page, CQE, MSI): a refusal is lost silently. */
void golden_dma_post(struct golden *g, uint64_t iova, const void *src, size_t len);

/* golden_cmd.c: execute one command completely (checks, effects); fills *res. */
void golden_execute(struct golden *g, const struct golden_cmd *c, struct golden_result *res);

/* Helpers shared by the command files. */
bool golden_range_ok(uint64_t first, uint64_t count, uint64_t size);
/* ACTIVATE's field and range checks, int8 and bf16 alike (spec 6.7, 6.12): unused fields, OP0
 * bits outside `allowed`, `bad` (a further step-3 rule of the caller's) and RAW32 ranges that
 * are neither identical nor disjoint -> INVALID_FIELD; the ACC source or the UB (RAW32: ACC)
 * destination out of bounds -> LOCAL_RANGE. Returns TPU_SC_SUCCESS when they pass. */
uint32_t golden_activate_status(const struct golden *g, const struct golden_cmd *c,
				uint32_t allowed, bool bad);
/* LOAD_PARAMS step 8 (and STREAM_MATMUL OP0.PARAMS): count MULT (>= 0), SHIFT (in
 * TPU_SHIFT_MIN..MAX) or SCALE (not NaN) values, little-endian 32-bit at p, all legal; other
 * kinds always are. */
bool golden_param_values_ok(uint32_t kind, const uint8_t *p, uint32_t count);
/* Common DMA-shape checks of step 3: ROWS >= 1, STRIDE, LENGTH == span. row_bytes > 0. */
bool golden_span_ok(const struct golden_cmd *c, uint64_t row_bytes);
uint64_t golden_stride(const struct golden_cmd *c, uint64_t row_bytes);
/* Steps 6 and 7 for one whole-span transfer direction; returns TPU_SC_SUCCESS or the status. */
uint32_t golden_window_status(const struct golden *g, const struct golden_cmd *c, bool dir_write);

void golden_cmd_read_host(struct golden *g, const struct golden_cmd *c, struct golden_result *r);
void golden_cmd_load_weights(struct golden *g, const struct golden_cmd *c,
			     struct golden_result *r);
void golden_cmd_load_params(struct golden *g, const struct golden_cmd *c,
			    struct golden_result *r);
void golden_cmd_write_host(struct golden *g, const struct golden_cmd *c, struct golden_result *r);
void golden_cmd_matmul(struct golden *g, const struct golden_cmd *c, struct golden_result *r);
void golden_cmd_activate(struct golden *g, const struct golden_cmd *c, struct golden_result *r);
void golden_cmd_stream_matmul(struct golden *g, const struct golden_cmd *c,
			      struct golden_result *r);

/* golden_bf16.c: the bf16 parts, called by the commands above once their checks passed (the
 * fill and the row) or for the whole command (ACTIVATE with FLAGS.BF16, FCLAMP). */
/* Fill tile t from the scratch: a rows x cols bf16 matrix X (little-endian, packed), W = X or
 * with transpose W = X^T, every other element +0. Sets t->k, t->cols and the type. */
void golden_bf16_fill_tile(const struct golden *g, struct golden_tile *t, uint32_t rows,
			   uint32_t cols, bool transpose);
/* One bf16 MATMUL row: acc[j] (+)= tpu_bf16_dot(+0, ub row, active tile column j), j < N. */
void golden_bf16_matmul_row(const struct golden *g, const int8_t *ub_row, int32_t *acc,
			    bool accumulate);
void golden_bf16_activate(struct golden *g, const struct golden_cmd *c, struct golden_result *r);
void golden_bf16_load_fclamp(struct golden *g, const struct golden_cmd *c,
			     struct golden_result *r);

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif /* TPU_GOLDEN_INTERNAL_H */
