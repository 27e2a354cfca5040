/* Private to driver/gemm/: the state of one GEMM being built, and the tile and command helpers
 * every schedule shares.
 *
 * A GEMM is planned (gemm_plan.c picks one of the schedules below from the shape and the
 * device), its operands are copied into DMA buffers in the layout the schedule reads
 * (gemm_pack.c), the schedule emits the whole command list (one file each), and gemm.c runs it
 * on queue 0 and copies the output back.
 *
 *   column    gemm_column.c    column tile by column tile, each tile's K-tiles in order
 *   grouped   gemm_grouped.c   gp column tiles at a time, K-tile outer; A read in K-tile groups
 *   hybrid    gemm_hybrid.c    the first group grouped, then column tile by column tile
 *   pipeline  gemm_pipeline.c  grouped over several chunks, the next chunk's A read meanwhile
 *   stream    gemm_stream.c    STREAM_MATMUL: weight panels streamed, small or one-chunk M
 *
 * Layout per chunk of R rows of A (R chosen so that the UB and ACC hold it):
 *   UB rows [kt*rows, kt*rows + rows)  A[r0.., kt*N .. kt*N+N) (every K-tile resident), or, when
 *                             K is too long for that, one slot at row 0 reloaded before each
 *                             MATMUL;
 *   UB rows after the A slots the int8 output of ACTIVATE;
 *   ACC rows [0, R)           the output column tile being accumulated.
 * The DMA buffers hold the matrices tile by tile so that every row stream is packed (STRIDE ==
 * COLS) and the device merges its rows into few large MRDs/MWRs (see gemm_pack.c). */
#ifndef TPU_DRIVER_GEMM_PRIV_H
#define TPU_DRIVER_GEMM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define GEMM_TIMEOUT_MS 60000

/* the device's read-ahead limit for a READ_HOST (StageRows of the sim and ASIC builds); a
 * device with less just runs the READ_HOST in the command chain */
#define GEMM_RA_ROWS 256u

/* A stored operand: element (r, c) of op(X) is p[r * ld + c], or with t (stored transposed)
 * p[c * ld + r]. */
struct gemm_mat {
	const uint8_t *p;
	size_t ld;
	bool t;
};

/* A column tile of the grouped schedules whose ACTIVATE (ACC rows acc -> UB rows out) and
 * write-back are still to come, and a piece of such a write-back (rows lo..hi of pe[pe]). */
struct gemm_pend {
	size_t r0;
	uint32_t rows, nt, acc, out;
};

struct gemm_wpiece {
	uint32_t pe, lo, hi;
};

/* A chunk of the grouped schedules: rows r0.. of A (rows of them), its K-tile kt at UB rows
 * abase + kt x rows, its first pre A groups read by the chunk before (pipeline); nrows > 0:
 * the next chunk (rows nr0.., K-tile 0 at UB row nbase), whose first npf A groups this chunk
 * reads (pipeline). */
struct gemm_chunkx {
	size_t r0, nr0;
	uint32_t rows, abase, nrows, nbase;
	uint32_t pre, npf; /* A groups of this chunk read before it, of the next read in it */
};

struct gemm {
	tpu_dev *dev;
	size_t m, k, n;
	struct gemm_mat a, b; /* the caller's operands */
	bool b_dev_t;         /* B's tiles hold op(B)^T: LOAD_WEIGHTS transposes them */
	uint32_t N, KT, NT, R, slots, out_row;
	bool q8, resident, lut;
	bool pairs;   /* the grouped schedules (grouped, hybrid, pipeline) */
	uint32_t gp;  /* pairs: column tiles per group */
	bool hyb;     /* pairs: only the first group, then column tiles one by one (hybrid) */
	uint32_t ag;  /* pairs: full-width K-tiles of A per READ_HOST (after the first) */
	bool uniform; /* one multiplier and shift for every channel: loaded once */
	bool stream;  /* the stream schedule */
	bool fused;   /* stream, int8 out, uniform MULT/SHIFT: bias + ACTIVATE in the command, A,
		       * MULT and SHIFT in the first command's stream, output written back by it */
	uint32_t kg;  /* fused: the first command's leading panels interleaved K-tile by K-tile
		       * (OP0.K_MAJOR, K_GROUP = kg; 1 = block-major) */
	bool dbl;     /* the pipeline: two A regions */
	uint32_t R0;  /* dbl: rows of the first chunk (R0 >= R; else R0 = R) */
	uint32_t gseq; /* pairs: groups, hyb: tiles begun (over the chunks with dbl) */
	struct gemm_pend pe[4]; /* pairs: the column tiles whose ACTIVATE / write-back is to come */
	uint32_t npe, pa;       /* their count, their ACTIVATEs emitted */
	struct gemm_wpiece w[4 * 3]; /* their write-back pieces (gp <= 4 tiles of <= 256 rows) */
	uint32_t nw, iw;
	uint32_t pf_n, pf_q, pf_q_tot; /* dbl: the next chunk's A groups read; quiet slots */
	tpu_buf *abuf, *bbuf, *bias, *mult, *shift, *lutb, *out;
	struct tpu_cmd *cmds;
	size_t ncmd, cap;
	size_t w_issued, w_popped, w_total;
	int err; /* first builder error */
};

/* ------------------------------------------------------------------ gemm_cmds.c */

struct tpu_cmd *gemm_next_cmd(struct gemm *g);
void gemm_note(struct gemm *g, int err);
/* After a host-side failure in the middle of a run: reset the device and collect the
 * ABORTED_RESET completions of the first `submitted` commands, so that nothing of the call is
 * left outstanding (gemm.c). */
void gemm_recover(struct gemm *g, size_t submitted);

/* Append one command built by builder(cmd, ...); the first failure is kept in g->err. */
#define EMIT(g, builder, ...)                                          \
	do {                                                           \
		struct tpu_cmd *c_ = gemm_next_cmd(g);                  \
		if (c_)                                                \
			gemm_note(g, builder(c_, __VA_ARGS__));        \
	} while (0)

/* Elements of tile t of a dimension of `total` in tiles of N. */
static inline uint32_t gemm_span(size_t total, uint32_t N, uint32_t t)
{
	size_t left = total - (size_t)t * N;
	return left < N ? (uint32_t)left : N;
}

/* Tiles left in the FIFO by earlier work would be popped in place of ours: one MATMUL POP
 * each (of the tile's type, int8 or bf16), into ACC row 0 and UB row 0. */
void gemm_drain_fifo(struct gemm *g);
size_t gemm_b_off(const struct gemm *g, uint32_t nt, uint32_t kt);
void gemm_refill(struct gemm *g);
size_t gemm_a_off(const struct gemm *g, size_t r0, uint32_t rows, uint32_t kt);
uint32_t gemm_a_full(const struct gemm *g);
uint32_t gemm_chunk_rows(const struct gemm *g, size_t r0);
void gemm_read_chunk(struct gemm *g, size_t r0, uint32_t rows);
void gemm_column_tile_params(struct gemm *g, uint32_t nt);
void gemm_first_params(struct gemm *g, const struct tpu_gemm_params *p, uint32_t kt);

/* ------------------------------------------------------------------ the schedules */

/* gemm_plan.c: chunking and the schedule for g's shape on g->dev (fills every plan field). */
void gemm_plan(struct gemm *g);
/* gemm_plan.c: the whole command list of the planned schedule into g->cmds. */
void gemm_build(struct gemm *g, const struct tpu_gemm_params *p);

/* gemm_column.c */
void gemm_column_chunk(struct gemm *g, const struct tpu_gemm_params *p, size_t r0, uint32_t rows);

/* gemm_grouped.c: the choice rule (g->pairs), the schedule and the helpers it shares with the
 * hybrid and the pipeline. */
bool gemm_grouped_fits(const struct gemm *g);
void gemm_grouped_chunk(struct gemm *g, const struct tpu_gemm_params *p,
			const struct gemm_chunkx *cx);
uint32_t gemm_ag_of(uint32_t rows);
uint32_t gemm_a_groups(const struct gemm *g);
void gemm_read_group(struct gemm *g, size_t r0, uint32_t rows, uint32_t base, uint32_t grp);
uint32_t gemm_a_group_of(const struct gemm *g, uint32_t kt);
uint32_t gemm_acc_group(const struct gemm *g, uint32_t rows, uint32_t gi, uint32_t nt,
			uint32_t ts);
uint32_t gemm_group_prologue(struct gemm *g, const struct tpu_gemm_params *p,
			     const struct gemm_chunkx *cx);
void gemm_group_matmul(struct gemm *g, const struct gemm_chunkx *cx, uint32_t kt, uint32_t acc);
/* MATMUL slot s of a group of np column tiles (into ACC rows acc): its MATMUL, the first
 * chunk's SHIFT after the second MATMUL, A's next groups (first_group), a step of the previous
 * group's end, at bias_slot column tile bias_nt's bias. Returns whether it read A itself. */
bool gemm_group_slot(struct gemm *g, const struct gemm_chunkx *cx, uint32_t s, uint32_t np,
		     uint32_t acc, bool first_group, uint32_t bias_slot, uint32_t bias_nt,
		     uint32_t *next_grp);
void gemm_tile_pend(struct gemm *g, size_t r0, uint32_t rows, uint32_t nt, uint32_t acc,
		    uint32_t ts, struct gemm_pend *pe);
void gemm_activate_pend(struct gemm *g, const struct gemm_pend *pe);
void gemm_write_piece(struct gemm *g, const struct gemm_wpiece *w);
uint32_t gemm_pieces_of(uint32_t rows);
void gemm_pend_pieces(struct gemm *g);
void gemm_pend_step(struct gemm *g, uint32_t s);
void gemm_pend_flush(struct gemm *g);
void gemm_pend_activate(struct gemm *g);

/* gemm_hybrid.c: the choice rule (g->hyb, among the grouped shapes) and the schedule. */
bool gemm_hybrid_fits(const struct gemm *g);
void gemm_hybrid_chunk(struct gemm *g, const struct tpu_gemm_params *p,
		       const struct gemm_chunkx *cx);

/* gemm_pipeline.c: the choice rule and chunk sizes (sets g->dbl, R0, R, out_row, pairs), and
 * the next chunk's A read beside this chunk's MATMULs. */
void gemm_pipeline_plan(struct gemm *g);
bool gemm_quiet_slot(uint32_t s, uint32_t lead, uint32_t nslots);
uint32_t gemm_quiet_groups(const struct gemm *g, uint32_t rows);
void gemm_prefetch_step(struct gemm *g, const struct gemm_chunkx *cx, bool quiet, bool defer);
void gemm_prefetch_rest(struct gemm *g, const struct gemm_chunkx *cx);

/* gemm_stream.c: the choice rule (g->stream), the first command's K group, the schedule and
 * the layout of its B buffer. */
bool gemm_stream_fits(const struct gemm *g);
uint32_t gemm_stream_kgroup(const struct gemm *g);
void gemm_stream_schedule(struct gemm *g, const struct tpu_gemm_params *p);
size_t gemm_stream_b_len(const struct gemm *g);
size_t gemm_stream_bias_off(const struct gemm *g, uint32_t c);
void gemm_stream_pack(const struct gemm *g, uint8_t *dst);

/* gemm_bf16.c: a checked TPU_DTYPE_BF16 GEMM (ld: the explicit leading dimensions). */
/* An int8 GEMM whose arguments were checked (gemm.c), and the same with B zero points
 * (gemm_bzp.c: the device's raw product, corrected and requantized on the host). */
int gemm_run_checked(tpu_dev *dev, const struct tpu_gemm_desc *d, const size_t ld[3],
		     const struct tpu_gemm_params *p);
int gemm_bzp_run(tpu_dev *dev, const struct tpu_gemm_desc *d, const size_t ld[3],
		 const struct tpu_gemm_params *p);
int gemm_bf16_run(tpu_dev *dev, const struct tpu_gemm_desc *d, const size_t ld[3],
		  const struct tpu_gemm_params *p);

/* ------------------------------------------------------------------ gemm_pack.c */

/* op(X)[r0 + r][c0 + c] for r < rows, c < cols into dst + r * dst_stride + c. */
void gemm_copy_block(uint8_t *dst, size_t dst_stride, const struct gemm_mat *x, size_t r0,
		     size_t c0, size_t rows, size_t cols);
int gemm_fill_buffers(struct gemm *g, const struct tpu_gemm_params *p);
void gemm_free_buffers(struct gemm *g);
/* The output panels into C (m x n, ldc elements apart), added to C with accumulate. */
void gemm_unpack_out(const struct gemm *g, void *c, size_t ldc, bool accumulate);

#endif /* TPU_DRIVER_GEMM_PRIV_H */
