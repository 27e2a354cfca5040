/* libtpu: the host driver of the tpu accelerator.
 *
 * Conventions (libnvme style):
 *   - Functions that act return 0 (or a count) on success, -errno on a host-side failure, or a
 *     positive device status (TPU_STATUS(sc, sct)) where documented. tpu_strerror() names both.
 *   - A tpu_dev is not thread-safe: one thread at a time per device (use one device per thread or
 *     serialise calls). Different devices are independent.
 *   - Nothing here keeps global state, except an atomic counter that gives each open device its
 *     own IOVA range (so a buffer of one device is never mistaken for one of another) and the
 *     thread-local message of tpu_last_open_error().
 *
 * Device URIs (tpu_open):
 *   "golden[:opt=val,...]"  the bit-exact C golden model
 *   "sim[:opt=val,...]"     the Verilated RTL (when built)
 * Options shared by every backend: n (array size), ub_rows, acc_rows, fifo_tiles, queues,
 * windows, max_queue_entries, qdepth (SQ/CQ entries the driver uses: 2..65536, default 256 or
 * the device's largest queue if smaller), mem (host DMA arena bytes, k/M/G suffix, 64k..4G,
 * default 64M). Numbers are decimal or 0x-hex. Unknown options go to the backend, which rejects
 * what it does not know.
 */
#ifndef TPU_TPU_H
#define TPU_TPU_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/numerics.h"
#include "tpu/tpu_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TPU_MUST_CHECK __attribute__((warn_unused_result))
#else
#define TPU_MUST_CHECK
#endif

/* A positive device status as returned by the library: SC in [7:0], SCT in [10:8]. */
#define TPU_STATUS(sc, sct) ((int)(((unsigned)(sct) << 8) | (unsigned)(sc)))
#define TPU_STATUS_SC(st) ((unsigned)(st) & 0xFFu)
#define TPU_STATUS_SCT(st) (((unsigned)(st) >> 8) & 0x7u)

typedef struct tpu_dev tpu_dev;
typedef struct tpu_buf tpu_buf;

/* One raw 64-byte submission queue entry (little-endian dwords, layout in tpu_spec.h). */
struct tpu_cmd {
	uint32_t dw[16];
};

/* A reaped completion. */
struct tpu_cpl {
	uint32_t result;   /* command-specific RESULT */
	uint32_t user_tag; /* the command's USER_TAG */
	uint16_t cid;      /* command id the driver gave it */
	uint16_t sq_id;
	uint16_t sq_head;
	uint16_t status;   /* 0, or TPU_STATUS(sc, sct) */
	uint8_t dnr;       /* do not retry */
};

struct tpu_info {
	uint32_t id;        /* TPU_ID */
	uint32_t version;   /* major << 16 | minor << 8 | patch */
	uint32_t array_n;
	uint32_t ub_rows;
	uint32_t acc_rows;
	uint32_t fifo_tiles;
	uint32_t num_queues;
	uint32_t num_windows;
	uint32_t max_queue_entries;
	uint32_t timeout_units; /* CAP.TIMEOUT */
	uint32_t queue_depth;   /* entries the driver uses per queue */
	uint32_t opcodes;       /* OPCODES: bit i = opcode i implemented (0: the register is absent) */
	uint32_t features;      /* FEATURES: TPU_FEATURES_BF16_MASK = the bf16 mode (0: int8 only) */
	char backend[16];       /* "golden", "sim", ... */
};

struct tpu_perf {
	uint64_t cycles;
	uint64_t mxu_busy_cycles;
	uint64_t macs;
	uint64_t dma_read_bytes;
	uint64_t dma_write_bytes;
	uint32_t commands;
	uint32_t errors;
};

struct tpu_err_info {
	uint32_t gstat;     /* GSTAT bits */
	uint32_t csts;      /* CSTS */
	uint16_t cid;       /* last failing command */
	uint8_t opcode;
	uint8_t qid;
	uint16_t status;    /* TPU_STATUS(sc, sct) of that command */
	uint16_t count;     /* errors logged since cleared */
	uint64_t addr;      /* faulting IOVA of a DMA error, else 0 */
};

/* ---------------------------------------------------------------- lifecycle */

/* Open a device by URI. On success *out owns the device and its host DMA arena; the device is
 * enabled with every queue set up (depth from qdepth, default 256) and window 0 covering the
 * whole arena read/write.
 * Errors: -EINVAL bad URI or option (a message naming the option is kept for
 * tpu_last_open_error()), -ENOENT unknown backend, -ENODEV device did not answer, -ENOMEM. */
TPU_MUST_CHECK int tpu_open(const char *uri, tpu_dev **out);

/* The message of the last tpu_open() failure in this thread (static storage; never NULL). */
const char *tpu_last_open_error(void);

/* Disable and release the device. Outstanding commands are dropped. Buffers still allocated are
 * freed. Returns 0, or -EINVAL for NULL. The handle is invalid afterwards (a second close is a
 * use-after-free; do not). */
int tpu_close(tpu_dev *dev);

/* Identity and configuration. Returns 0, -EINVAL, -ENODEV (device reads all-ones). */
TPU_MUST_CHECK int tpu_get_info(tpu_dev *dev, struct tpu_info *out);

/* Controller reset: RESET register, wait for RDY=0 within the timeout, re-program queues and
 * windows 0..n (the driver's shadow copy), enable again. Every outstanding command is completed
 * with TPU_STATUS(TPU_SC_ABORTED_RESET, 0) on the next poll (completions the device had already
 * posted are reaped first and keep their real status). Weight FIFO, parameters and local memory
 * contents are lost; host buffers are kept. Returns 0, -EINVAL, -ETIMEDOUT, -ENODEV. */
TPU_MUST_CHECK int tpu_reset(tpu_dev *dev);

/* ---------------------------------------------------------------- DMA buffers */

/* Allocate len bytes (>= 1) of host memory the device can reach; the memory is zeroed and
 * 64-byte aligned. Returns 0, -EINVAL (len 0, NULL), -ENOMEM (arena full). */
TPU_MUST_CHECK int tpu_buf_alloc(tpu_dev *dev, size_t len, tpu_buf **out);
void *tpu_buf_ptr(const tpu_buf *buf);
uint64_t tpu_buf_iova(const tpu_buf *buf);
size_t tpu_buf_len(const tpu_buf *buf);
/* Free a buffer. Returns 0, -EINVAL (NULL or not a live buffer of a device), -EBUSY (an
 * outstanding command refers to it: submitted and its completion not yet returned by
 * poll/wait/run). A freed handle stays recognisable, so a double free returns -EINVAL, as long as
 * fewer than 1024 other buffers of the device were freed since; after tpu_close every handle of
 * the device is invalid. The pointer/iova/len accessors return NULL/0 for a freed handle. */
int tpu_buf_free(tpu_buf *buf);

/* ---------------------------------------------------------------- DMA windows */

#define TPU_WIN_R 1u
#define TPU_WIN_W 2u

/* Program window idx to [base, base + len) with permissions perm (TPU_WIN_R | TPU_WIN_W); the
 * window is disabled, rewritten and enabled. len 0 disables it. IOMMU semantics: the device
 * applies the change at a command boundary (docs/spec.md section 5), so every command submitted
 * before the call completes with the old window first (the call waits for it), and once the
 * call returns the device makes no access through the old window; later commands see the new
 * one. Returns 0, -EINVAL (idx out of range, bad perm, base + len - 1 passes 2^64 - 1), -ENODEV,
 * -ETIMEDOUT (the commands before it did not finish in time; the device applies the change
 * when they do). The driver keeps a shadow that tpu_reset restores. */
TPU_MUST_CHECK int tpu_window_set(tpu_dev *dev, unsigned idx, uint64_t base, uint64_t len,
				  unsigned perm);

/* ---------------------------------------------------------------- command builders
 * Pure functions: fill *cmd (zeroing it first). They check what is knowable on the host and return
 * 0, -EINVAL (NULL, a freed buffer, zero counts, unknown flags, stride below the row bytes, a
 * value out of its int8 range) or -ERANGE (the span passes the end of the buffer, or LENGTH or
 * the row bytes do not fit 32 bits); the device checks the rest (N, UB/ACC rows).
 * The CID is assigned at submission; the user tag is cmd->dw[1] (tpu_cmd_set_tag). */

void tpu_cmd_set_tag(struct tpu_cmd *cmd, uint32_t user_tag);
void tpu_cmd_set_flags(struct tpu_cmd *cmd, unsigned flags); /* TPU_SQE_FLAG_* */

TPU_MUST_CHECK int tpu_cmd_nop(struct tpu_cmd *cmd);
/* rows host rows of cols int8 (stride bytes apart, 0 = packed) at buf+off -> UB rows ub_row.. */
TPU_MUST_CHECK int tpu_cmd_read_host(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off,
				     uint32_t stride, uint32_t ub_row, uint32_t rows, uint32_t cols);
/* A rows x cols int8 tile at buf+off (row stride, 0 = packed) -> weight FIFO. With transpose the
 * host holds Wᵀ: the tile becomes cols x rows. */
TPU_MUST_CHECK int tpu_cmd_load_weights(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off,
					uint32_t stride, uint32_t rows, uint32_t cols, int transpose);
/* Per-channel parameter vector (TPU_PARAM_BIAS/MULT/SHIFT: count int32; TPU_PARAM_LUT: 256 int8,
 * first must be 0) at buf+off -> channels first..first+count-1. */
TPU_MUST_CHECK int tpu_cmd_load_params(struct tpu_cmd *cmd, enum tpu_param_kind kind,
				       const tpu_buf *buf, size_t off, uint32_t first,
				       uint32_t count);
/* Output zero point and clamp (no DMA); each in -128..127 and qmin <= qmax, else -EINVAL.
 * The rounding mode is TPU_ROUND_DOUBLE. */
TPU_MUST_CHECK int tpu_cmd_load_output(struct tpu_cmd *cmd, int32_t zero_point, int32_t qmin,
				       int32_t qmax);
/* The same with the requantization rounding mode (OP0.ROUND; a mode other than
 * TPU_ROUND_DOUBLE needs FEATURES.ROUND); a mode above TPU_ROUND_MAX is -EINVAL. */
TPU_MUST_CHECK int tpu_cmd_load_output_round(struct tpu_cmd *cmd, int32_t zero_point,
					     int32_t qmin, int32_t qmax, enum tpu_round round);
/* UB rows ub_row.. x active tile -> ACC rows acc_row..; flags TPU_MATMUL_ACCUMULATE|TPU_MATMUL_POP. */
TPU_MUST_CHECK int tpu_cmd_matmul(struct tpu_cmd *cmd, uint32_t ub_row, uint32_t acc_row,
				  uint32_t rows, unsigned flags);
/* STREAM_MATMUL (docs/spec.md 6.11): blocks x k weight rows of cols int8 at buf+off (row i at
 * off + i x stride, 0 = packed), block b's K-tile t (N rows, the last one zero-padded) times UB
 * rows ub_row + t x rows .. (+ rows) -> ACC rows acc_row + b x rows ..; every K-tile after the
 * first accumulates, the first too with TPU_STREAM_MATMUL_ACCUMULATE in flags. With
 * TPU_STREAM_MATMUL_ACTIVATE (cols = N) each block's k rows are followed by its bias vector
 * (TPU_STREAM_MATMUL_BIAS_ROWS rows: N int32) and its ACC rows are activated into UB rows
 * out_row + b x rows (| TPU_STREAM_MATMUL_LUT: through the LUT); out_row must be 0 without it.
 * With TPU_STREAM_MATMUL_A_STREAM (cols = N) block 0's K-tile t is preceded in the stream by the
 * rows rows of A's K-tile t (N bytes each), which go to UB rows ub_row + t x rows first.
 * With TPU_STREAM_MATMUL_K_GROUP(g) the stream holds the first g blocks (0: all) K-tile by
 * K-tile (A's K-tile t, then K-tile t of each of them), the rest block by block; with ACTIVATE
 * the output rows must then lie apart from A's (docs/spec.md 6.11); -EINVAL when g > blocks.
 * With TPU_STREAM_MATMUL_PARAMS (with ACTIVATE) the stream starts with the MULT and SHIFT
 * vectors of channels 0 .. N - 1 (N int32 each, TPU_STREAM_MATMUL_PARAMS_ROWS rows in all),
 * loaded as LOAD_PARAMS would load them.
 * With TPU_STREAM_MATMUL_W_FIRST (with A_STREAM) block 0's K-tile 0 weight rows come before A's
 * K-tile 0 rows in the stream (the two swap places; docs/spec.md 6.11); -EINVAL without A_STREAM.
 * -ERANGE when k, rows or blocks pass their TPU_STREAM_MATMUL_MAX_* limit. */
#define TPU_STREAM_MATMUL_K_GROUP(g) \
	(TPU_STREAM_MATMUL_K_MAJOR | ((unsigned)(g) << TPU_STREAM_MATMUL_K_GROUP_SHIFT))
TPU_MUST_CHECK int tpu_cmd_stream_matmul(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off,
					 uint32_t stride, uint32_t k, uint32_t cols,
					 uint32_t blocks, uint32_t ub_row, uint32_t rows,
					 uint32_t acc_row, uint32_t out_row, unsigned flags);
/* Adds OP0.WRITE_BACK to a STREAM_MATMUL built with TPU_STREAM_MATMUL_ACTIVATE: block b's
 * rows output rows (N int8 each) also go to buf + off + (b x rows + r) x N, after its ACTIVATE
 * (docs/spec.md 6.11). -EINVAL when cmd is not such a command, -ERANGE when the blocks x rows x
 * N bytes do not fit buf. Like the stream's buffer, buf is busy (tpu_buf_free: -EBUSY) from
 * submission until the completion is returned; submission fails with -EINVAL when the region
 * is not inside one live buffer of the device. */
TPU_MUST_CHECK int tpu_cmd_stream_write_back(struct tpu_cmd *cmd, const tpu_buf *buf,
					     size_t off);
/* ACC rows acc_row.. -> dst rows (UB, or ACC with TPU_ACTIVATE_RAW32); flags TPU_ACTIVATE_*. */
TPU_MUST_CHECK int tpu_cmd_activate(struct tpu_cmd *cmd, uint32_t acc_row, uint32_t dst_row,
				    uint32_t rows, unsigned flags);
/* Local rows -> host rows at buf+off; from_acc selects ACC (cols int32) over UB (cols int8). */
TPU_MUST_CHECK int tpu_cmd_write_host(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off,
				      uint32_t stride, uint32_t local_row, uint32_t rows,
				      uint32_t cols, int from_acc);
/* Fence; with buf != NULL the 64-bit value is written at buf+off (8-byte aligned) before the
 * CQE. */
TPU_MUST_CHECK int tpu_cmd_fence(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off,
				 uint64_t value);
/* Identity page (TPU_IDENTIFY_BYTES) -> buf+off. */
TPU_MUST_CHECK int tpu_cmd_identify(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off);

/* ---------------------------------------------------------------- queues */

/* Submit n commands to queue q, all or nothing: assigns each a free CID (written into the
 * command's CID field of the caller's array), copies them to the SQ and rings the doorbell once.
 * A ring of queue_depth entries holds queue_depth - 1 commands; a command holds its slot until
 * its CQE is reaped, and its CID until its completion is returned.
 * Every command with a non-zero HOST_ADDR must have [HOST_ADDR, HOST_ADDR + LENGTH) inside one
 * live buffer of this device (which is then busy until the completion is returned).
 * Returns n, -EAGAIN (not enough free slots or CIDs; nothing submitted), -EINVAL (NULL, n 0,
 * n > queue_depth - 1, q out of range, a DMA span outside this device's buffers; nothing
 * submitted), -EIO (controller fatal, not ready, or queue broken), -ENODEV. */
TPU_MUST_CHECK int tpu_submit(tpu_dev *dev, unsigned q, struct tpu_cmd *cmds, unsigned n);

/* Reap up to max completions of queue q without waiting. Each CQE is validated (phase, SQ id,
 * CID outstanding); a bogus entry is counted (tpu_bogus_cqes) and skipped.
 * Returns the count reaped (>= 0), -EINVAL, -ENODEV. */
TPU_MUST_CHECK int tpu_poll(tpu_dev *dev, unsigned q, struct tpu_cpl *out, unsigned max);

/* Wait until at least min (<= max) completions are reaped or timeout_ms passes (< 0: forever).
 * Returns the count (>= min), -ETIMEDOUT (count reaped so far is lost to nobody: they are kept and
 * returned by the next poll/wait), -EIO (controller fatal or queue broken: call tpu_reset),
 * -EINVAL (also when min exceeds tpu_outstanding(q): it could never be met), -ENODEV. */
TPU_MUST_CHECK int tpu_wait(tpu_dev *dev, unsigned q, struct tpu_cpl *out, unsigned min,
			    unsigned max, int timeout_ms);

/* Submit n commands on queue 0 and wait for all of them (in submission order in out, which may
 * be NULL). n may exceed the ring: the commands go in batches as slots free up; after a batch
 * with a failure no further batch is submitted. Completions of other commands on queue 0 stay
 * queued for poll/wait. timeout_ms bounds the whole call (< 0: forever). Returns 0 when every
 * command succeeded, the first failing command's positive device status, or -errno (on
 * -ETIMEDOUT/-EIO the submitted commands stay outstanding). */
TPU_MUST_CHECK int tpu_run(tpu_dev *dev, struct tpu_cmd *cmds, unsigned n, struct tpu_cpl *out,
			   int timeout_ms);

/* Commands submitted on q whose completion has not been returned yet (0 for a bad q). */
unsigned tpu_outstanding(tpu_dev *dev, unsigned q);
/* CQEs rejected by validation since open. */
uint64_t tpu_bogus_cqes(tpu_dev *dev);

/* ---------------------------------------------------------------- registers and errors */

/* Raw BAR0 access. tpu_reg_read returns 0 or -ENODEV when the read is all-ones on a register
 * that cannot be all-ones (ID), -EINVAL for an offset outside BAR0 or unaligned. */
TPU_MUST_CHECK int tpu_reg_read(tpu_dev *dev, uint32_t off, uint32_t *val);
TPU_MUST_CHECK int tpu_reg_write(tpu_dev *dev, uint32_t off, uint32_t val);

/* Error log and sticky bits; clears nothing. Returns 0, -EINVAL, -ENODEV. */
TPU_MUST_CHECK int tpu_error_info(tpu_dev *dev, struct tpu_err_info *out);
/* Clear GSTAT bits (write-1-to-clear) and the error count. */
TPU_MUST_CHECK int tpu_error_clear(tpu_dev *dev, uint32_t gstat_bits);

TPU_MUST_CHECK int tpu_perf_read(tpu_dev *dev, struct tpu_perf *out);
TPU_MUST_CHECK int tpu_perf_clear(tpu_dev *dev);

/* Text for 0, any -errno the library returns, and any TPU_STATUS value (static storage; unknown
 * codes get a generic text). Never NULL. */
const char *tpu_strerror(int code);

/* ---------------------------------------------------------------- GEMM */

/* out = f((A - in_zero_point) · B + bias), A m x k int8 row-major, B k x n int8 row-major.
 * quant_channels 0: raw, out is int32 m x n.
 * quant_channels 1 or n: out is int8 m x n, per design.md §3 with multiplier/shift per tensor or
 * per channel (shift: positive = left), + out_zero_point, clamp to [clamp_min, clamp_max], then
 * lut[v + 128] when lut != NULL. */
struct tpu_gemm_params {
	int32_t in_zero_point;    /* -128..127 */
	const int32_t *bias;      /* n values or NULL */
	size_t quant_channels;    /* 0, 1 or n */
	const int32_t *multiplier;/* quant_channels values, 0..INT32_MAX */
	const int32_t *shift;     /* quant_channels values, -31..30 */
	int32_t out_zero_point;   /* -128..127 */
	int32_t clamp_min;        /* -128..127 */
	int32_t clamp_max;        /* clamp_min..127 */
	const int8_t *lut;        /* 256 entries or NULL; int8 output only */
	enum tpu_round round;     /* requantization rounding (tpu/numerics.h); TPU_ROUND_DOUBLE
				   * by default; others need FEATURES.ROUND */
	/* B's zero points: C = f((op(A) - in_zero_point) . (op(B) - zb) + bias) with zb =
	 * b_zero_point[0] (b_zp_channels 1) or b_zero_point[j] for column j (n); 0 = none. Each
	 * in -128..127. The device computes (A - in_zero_point) . B; the host subtracts
	 * zb[j] x sum_k (A[i][k] - in_zero_point) exactly and requantizes with the golden
	 * numerics (docs/ops.md "Weight zero points"). */
	const int32_t *b_zero_point;
	size_t b_zp_channels;     /* 0, 1 or n */
};

/* Fill p with the defaults: raw output, no bias, zero points 0, clamp -128..127, no LUT. */
void tpu_gemm_params_init(struct tpu_gemm_params *p);

/* Run the GEMM on the device, tiled onto the N x N array (zero-padded edges, ACC accumulation
 * over K tiles): tpu_gemm_ex() with int8 operands, no transposes, packed rows, no accumulate.
 * p may be NULL (defaults). The sum of products never overflows silently: k above the K limit
 * (TPU_K_NO_OVERFLOW = 131071 in tpu/numerics.h for in_zero_point 0; with a zero point z the
 * bound for (A - z) . B, down to 65793) is refused with -ERANGE before anything runs. The bias
 * (with the folded zero point) is added in int32 with two's-complement wrap-around, as
 * TFLite's int32 arithmetic does (docs/ops.md "Overflow"). Returns 0, -EINVAL (NULL, a
 * dimension 0, a parameter out of range), -ERANGE (tpu_gemm_last_error() says which, for
 * both), -ENOMEM, -ETIMEDOUT, -EIO, or a positive device status. It runs on queue 0 and needs
 * the whole device: -EBUSY while any queue has outstanding commands. A, B, the output and the
 * parameter vectors are copied through DMA buffers of the arena (-ENOMEM when it is too small);
 * UB, ACC, parameters and the weight FIFO are overwritten. On -ETIMEDOUT/-EIO the device is
 * reset. */
TPU_MUST_CHECK int tpu_gemm(tpu_dev *dev, size_t m, size_t k, size_t n, const int8_t *a,
			    const int8_t *b, const struct tpu_gemm_params *p, void *out);

/* Element type of A and B (C's follows from it and from the output parameters). */
enum tpu_dtype {
	TPU_DTYPE_INT8 = 0, /* int8 x int8, int32 sums: C int32 (raw) or int8 (requantized) */
	TPU_DTYPE_BF16 = 1, /* bf16 x bf16, fp32 sums (docs/spec.md 7.1): A, B uint16_t bf16 bit
			     * patterns, C uint32_t fp32 bit patterns; needs FEATURES.BF16
			     * (golden:bf16=1, sim:bf16=1) */
};

/* How an operand is stored: op(X) = X, or op(X) = Xᵀ (the caller holds the transpose). */
enum tpu_trans {
	TPU_TRANS_N = 0,
	TPU_TRANS_T = 1,
};

/* tpu_gemm_desc.flags */
#define TPU_GEMM_ACCUMULATE 1u /* C += the product instead of C = the product */

/* One general GEMM, row-major like CBLAS with CblasRowMajor:
 *   C = f((op(A) - in_zero_point) · op(B) + bias), op(A) m x k, op(B) k x n, C m x n,
 * f and the parameters as in struct tpu_gemm_params. Zero-initialised fields mean int8, no
 * transposes, packed rows and no flags, so a designated initializer names only what differs.
 * Leading dimensions count elements between the starts of consecutive stored rows: A is
 * stored m x k (lda >= k) or, with trans_a, k x m (lda >= m); B k x n (ldb >= n) or, with
 * trans_b, n x k (ldb >= k); C m x n (ldc >= n, elements of C's type); 0 means packed (the
 * stored row length). Bytes between the rows of C are not touched. */
struct tpu_gemm_desc {
	enum tpu_dtype dtype;
	enum tpu_trans trans_a, trans_b;
	size_t m, n, k;  /* each >= 1 */
	const void *a;
	size_t lda;
	const void *b;
	size_t ldb;
	void *c;         /* int32 with raw output (quant_channels 0), else int8; bf16: fp32 */
	size_t ldc;
	unsigned flags;  /* TPU_GEMM_ACCUMULATE: C = C + product, int32 wrapping; raw output only;
			  * bf16: fp32, in the ACC's tile order (see tpu_gemm_ex) */
};

/* Run d on the device (queue 0, the whole device, as tpu_gemm). Neither operand is transposed
 * on the host in a pass of its own: a transposed B goes to the device as blocks of the stored
 * Bᵀ that LOAD_WEIGHTS transposes (its OP0.TRANSPOSE), except in the stream schedule (M in one
 * chunk; STREAM_MATMUL has no transpose), where, as for a transposed A, the copy into the DMA
 * buffer that every operand goes through reads the stored matrix in 16 x 16 squares. Device
 * cycles are those of the same GEMM without transposes (docs/performance.md, "Transposed
 * operands"). With TPU_GEMM_ACCUMULATE, C = C + (op(A) - in_zero_point) · op(B) + bias.
 *
 * TPU_DTYPE_BF16 (a device with FEATURES.BF16, struct tpu_info.features; docs/ops.md "bf16
 * GEMM"): A and B hold bf16 bit patterns (uint16_t; lda, ldb count them), C fp32 bit patterns
 * (uint32_t or float; ldc counts them). Element (i, j) is, bit for bit (include/tpu/bf16.h),
 *     s = tpu_bf16_dot_tiled(row i of op(A), column j of op(B), k, N, C_old[i][j], accumulate)
 *     C[i][j] = bias ? tpu_f32_add(s, bias[j]) : s
 * with N = tpu_info.array_n and accumulate = TPU_GEMM_ACCUMULATE: the device adds the old C
 * into the ACC after the first K-tile and every later K-tile after it, so splitting K at a
 * multiple of N into one call and accumulating calls (a bias only in the last) gives the bits
 * of one call. The bias,
 * when p->bias is not NULL, holds n fp32 bit patterns (the int32_t array read as uint32_t),
 * added once after the last K-tile. Every other parameter must keep its default
 * (in_zero_point 0, quant_channels 0, multiplier, shift and lut NULL, out_zero_point 0,
 * clamp -128..127), else -EINVAL naming the field. No transposes on the host either: B via
 * LOAD_WEIGHTS OP0.TRANSPOSE, A gathered in squares during the copy. STREAM_MATMUL has no
 * bf16 form: the bf16 GEMM runs the column schedule (LOAD_WEIGHTS ahead of MATMUL). The error
 * bound against exact arithmetic is docs/spec.md 7.1 "Error bound". No K limit (fp32 sums do
 * not wrap; an overflowing sum is infinity).
 * C is written only when the call returns 0 (with TPU_GEMM_ACCUMULATE C keeps its old value on
 * any failure); C must not overlap A or B. p may be NULL (defaults).
 * Returns 0; -EINVAL (d or a pointer NULL, a dimension 0, an unknown dtype, trans_* or flag, a
 * leading dimension below its row, ACCUMULATE with int8 output, a parameter out of range:
 * tpu_gemm_last_error() names the field and the limit); -ENOTSUP (a dtype this device does
 * not implement: bf16 on an int8-only device; tpu_gemm_last_error() says so); -ENOMEM;
 * -EBUSY; -ETIMEDOUT; -EIO; or a positive device status, all as for tpu_gemm. Not thread-safe
 * (one call at a time per device). */
TPU_MUST_CHECK int tpu_gemm_ex(tpu_dev *dev, const struct tpu_gemm_desc *d,
			       const struct tpu_gemm_params *p);

/* Why the last tpu_gemm() or tpu_gemm_ex() call on dev rejected its arguments (empty string if
 * it did not). */
const char *tpu_gemm_last_error(tpu_dev *dev);

#ifdef __cplusplus
}
#endif
#endif /* TPU_TPU_H */
