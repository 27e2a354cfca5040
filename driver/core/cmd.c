/* Command builders: pure functions that fill one SQE. They check only what the host can know
 * (NULL, zero counts, flags, the span against the buffer, 32-bit fields); the device checks the
 * rest against its configuration. -EINVAL for a bad argument, -ERANGE when a span does not fit
 * the buffer or a 32-bit field. */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define SET(cmd, F, v)                                                                    \
	((cmd)->dw[TPU_SQE_##F##_DW] =                                                    \
		 ((cmd)->dw[TPU_SQE_##F##_DW] & ~(TPU_SQE_##F##_MASK << TPU_SQE_##F##_SHIFT)) | \
		 (((uint32_t)(v) & TPU_SQE_##F##_MASK) << TPU_SQE_##F##_SHIFT))

static void start(struct tpu_cmd *cmd, enum tpu_opcode op)
{
	memset(cmd, 0, sizeof(*cmd));
	SET(cmd, OPCODE, op);
}

void tpu_cmd_set_tag(struct tpu_cmd *cmd, uint32_t user_tag)
{
	if (cmd)
		SET(cmd, USER_TAG, user_tag);
}

void tpu_cmd_set_flags(struct tpu_cmd *cmd, unsigned flags)
{
	if (cmd)
		SET(cmd, FLAGS, flags);
}

/* Span of rows rows of row_bytes, stride apart (0 = packed), at buf + off: checks the stride,
 * the 32-bit LENGTH and the buffer bounds, and fills HOST_ADDR, LENGTH, STRIDE. */
static int set_span(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off, uint32_t stride,
		    uint32_t rows, uint64_t row_bytes)
{
	uint64_t step = stride ? stride : row_bytes;
	uint64_t span;

	if (!tpu_buf_is_live(buf))
		return -EINVAL;
	if (stride && stride < row_bytes)
		return -EINVAL;
	if (row_bytes > UINT32_MAX || (uint64_t)(rows - 1) > (UINT32_MAX - row_bytes) / step)
		return -ERANGE;
	span = (uint64_t)(rows - 1) * step + row_bytes;
	if (off > buf->len || span > buf->len - off)
		return -ERANGE;
	SET(cmd, HOST_ADDR_LO, (uint32_t)(buf->iova + off));
	SET(cmd, HOST_ADDR_HI, (uint32_t)((buf->iova + off) >> 32));
	SET(cmd, LENGTH, (uint32_t)span);
	SET(cmd, STRIDE, stride);
	return 0;
}

int tpu_cmd_nop(struct tpu_cmd *cmd)
{
	if (!cmd)
		return -EINVAL;
	start(cmd, TPU_OP_NOP);
	return 0;
}

int tpu_cmd_read_host(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off, uint32_t stride,
		      uint32_t ub_row, uint32_t rows, uint32_t cols)
{
	int err;

	if (!cmd || !buf || rows == 0 || cols == 0)
		return -EINVAL;
	start(cmd, TPU_OP_READ_HOST);
	err = set_span(cmd, buf, off, stride, rows, cols);
	if (err)
		return err;
	SET(cmd, LOCAL_ADDR, ub_row);
	SET(cmd, ROWS, rows);
	SET(cmd, COLS, cols);
	return 0;
}

int tpu_cmd_load_weights(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off, uint32_t stride,
			 uint32_t rows, uint32_t cols, int transpose)
{
	int err;

	if (!cmd || !buf || rows == 0 || cols == 0)
		return -EINVAL;
	start(cmd, TPU_OP_LOAD_WEIGHTS);
	err = set_span(cmd, buf, off, stride, rows, cols);
	if (err)
		return err;
	SET(cmd, ROWS, rows);
	SET(cmd, COLS, cols);
	SET(cmd, OP0, transpose ? TPU_LOAD_WEIGHTS_TRANSPOSE : 0);
	return 0;
}

int tpu_cmd_load_params(struct tpu_cmd *cmd, enum tpu_param_kind kind, const tpu_buf *buf,
			size_t off, uint32_t first, uint32_t count)
{
	uint64_t bytes;
	int err;

	if (!cmd || !buf || count == 0)
		return -EINVAL;
	switch (kind) {
	case TPU_PARAM_BIAS:
	case TPU_PARAM_MULT:
	case TPU_PARAM_SHIFT:
		bytes = 4ull * count;
		break;
	case TPU_PARAM_LUT:
		if (count != TPU_LUT_ENTRIES || first != 0)
			return -EINVAL;
		bytes = TPU_LUT_ENTRIES;
		break;
	default:
		return -EINVAL; /* OUTPUT has no DMA: tpu_cmd_load_output */
	}
	start(cmd, TPU_OP_LOAD_PARAMS);
	err = set_span(cmd, buf, off, 0, 1, bytes);
	if (err)
		return err;
	SET(cmd, LOCAL_ADDR, first);
	SET(cmd, ROWS, 1);
	SET(cmd, COLS, count);
	SET(cmd, OP0, kind);
	return 0;
}

int tpu_cmd_load_output(struct tpu_cmd *cmd, int32_t zero_point, int32_t qmin, int32_t qmax)
{
	return tpu_cmd_load_output_round(cmd, zero_point, qmin, qmax, TPU_ROUND_DOUBLE);
}

int tpu_cmd_load_output_round(struct tpu_cmd *cmd, int32_t zero_point, int32_t qmin, int32_t qmax,
			      enum tpu_round round)
{
	if (!cmd || zero_point < -128 || zero_point > 127 || qmin < -128 || qmin > 127 ||
	    qmax < -128 || qmax > 127 || qmin > qmax || (unsigned)round > TPU_ROUND_MAX)
		return -EINVAL;
	start(cmd, TPU_OP_LOAD_PARAMS);
	SET(cmd, OP0, TPU_PARAM_OUTPUT | (uint32_t)round << TPU_LOAD_PARAMS_ROUND_SHIFT);
	SET(cmd, OP1, (uint32_t)zero_point);
	SET(cmd, OP2, (uint32_t)qmin);
	SET(cmd, OP3, (uint32_t)qmax);
	return 0;
}

int tpu_cmd_matmul(struct tpu_cmd *cmd, uint32_t ub_row, uint32_t acc_row, uint32_t rows,
		   unsigned flags)
{
	if (!cmd || rows == 0 || (flags & ~(TPU_MATMUL_ACCUMULATE | TPU_MATMUL_POP)))
		return -EINVAL;
	start(cmd, TPU_OP_MATMUL);
	SET(cmd, LOCAL_ADDR, ub_row);
	SET(cmd, LOCAL_ADDR2, acc_row);
	SET(cmd, ROWS, rows);
	SET(cmd, OP0, flags);
	return 0;
}

int tpu_cmd_stream_matmul(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off, uint32_t stride,
			  uint32_t k, uint32_t cols, uint32_t blocks, uint32_t ub_row,
			  uint32_t rows, uint32_t acc_row, uint32_t out_row, unsigned flags)
{
	bool act = flags & TPU_STREAM_MATMUL_ACTIVATE;
	uint64_t total = (uint64_t)blocks * (k + (act ? TPU_STREAM_MATMUL_BIAS_ROWS : 0));
	int err;

	/* (A_STREAM needs cols = N, so A's K-tiles are k / cols rounded up) */
	if ((flags & TPU_STREAM_MATMUL_A_STREAM) && cols)
		total += (uint64_t)((k + cols - 1) / cols) * rows;
	if (flags & TPU_STREAM_MATMUL_PARAMS)
		total += TPU_STREAM_MATMUL_PARAMS_ROWS;
	if (!cmd || !buf || k == 0 || cols == 0 || blocks == 0 || rows == 0 ||
	    (flags & ~(TPU_STREAM_MATMUL_ACCUMULATE | TPU_STREAM_MATMUL_ACTIVATE |
		       TPU_STREAM_MATMUL_LUT | TPU_STREAM_MATMUL_A_STREAM |
		       TPU_STREAM_MATMUL_K_MAJOR | TPU_STREAM_MATMUL_K_GROUP_MASK |
		       TPU_STREAM_MATMUL_PARAMS | TPU_STREAM_MATMUL_W_FIRST)) ||
	    ((flags & TPU_STREAM_MATMUL_PARAMS) && !act) ||
	    ((flags & TPU_STREAM_MATMUL_W_FIRST) && !(flags & TPU_STREAM_MATMUL_A_STREAM)) ||
	    (!(flags & TPU_STREAM_MATMUL_K_MAJOR) && (flags & TPU_STREAM_MATMUL_K_GROUP_MASK)) ||
	    ((flags & TPU_STREAM_MATMUL_K_GROUP_MASK) >> TPU_STREAM_MATMUL_K_GROUP_SHIFT) > blocks ||
	    ((flags & TPU_STREAM_MATMUL_LUT) && !act) || (!act && out_row))
		return -EINVAL;
	if (k > TPU_STREAM_MATMUL_MAX_K || rows > TPU_STREAM_MATMUL_MAX_R ||
	    blocks > TPU_STREAM_MATMUL_MAX_BLOCKS)
		return -ERANGE;
	start(cmd, TPU_OP_STREAM_MATMUL);
	err = set_span(cmd, buf, off, stride, (uint32_t)total, cols);
	if (err)
		return err;
	SET(cmd, LOCAL_ADDR, ub_row);
	SET(cmd, LOCAL_ADDR2, acc_row);
	SET(cmd, ROWS, k);
	SET(cmd, COLS, cols);
	SET(cmd, OP0, flags);
	SET(cmd, OP1, rows);
	SET(cmd, OP2, blocks);
	SET(cmd, OP3, out_row);
	return 0;
}

int tpu_cmd_stream_write_back(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off)
{
	uint64_t len, iova;

	if (!cmd || !tpu_buf_is_live(buf) ||
	    ((cmd->dw[TPU_SQE_OPCODE_DW] >> TPU_SQE_OPCODE_SHIFT) & TPU_SQE_OPCODE_MASK) !=
		    TPU_OP_STREAM_MATMUL ||
	    !(((cmd->dw[TPU_SQE_OP0_DW] >> TPU_SQE_OP0_SHIFT) & TPU_SQE_OP0_MASK) &
	      TPU_STREAM_MATMUL_ACTIVATE))
		return -EINVAL;
	/* C x R rows of COLS (= N with ACTIVATE) bytes */
	len = (uint64_t)((cmd->dw[TPU_SQE_OP2_DW] >> TPU_SQE_OP2_SHIFT) & TPU_SQE_OP2_MASK) *
	      ((cmd->dw[TPU_SQE_OP1_DW] >> TPU_SQE_OP1_SHIFT) & TPU_SQE_OP1_MASK) *
	      ((cmd->dw[TPU_SQE_COLS_DW] >> TPU_SQE_COLS_SHIFT) & TPU_SQE_COLS_MASK);
	if (len > UINT32_MAX || off > buf->len || len > buf->len - off)
		return -ERANGE;
	iova = buf->iova + off;
	SET(cmd, OP0, ((cmd->dw[TPU_SQE_OP0_DW] >> TPU_SQE_OP0_SHIFT) & TPU_SQE_OP0_MASK) |
			      TPU_STREAM_MATMUL_WRITE_BACK);
	SET(cmd, HOST_ADDR2_LO, (uint32_t)iova);
	SET(cmd, HOST_ADDR2_HI, (uint32_t)(iova >> 32));
	return 0;
}

int tpu_cmd_activate(struct tpu_cmd *cmd, uint32_t acc_row, uint32_t dst_row, uint32_t rows,
		     unsigned flags)
{
	const unsigned both = TPU_ACTIVATE_LUT | TPU_ACTIVATE_RAW32;

	if (!cmd || rows == 0 || (flags & ~both) || (flags & both) == both)
		return -EINVAL;
	start(cmd, TPU_OP_ACTIVATE);
	SET(cmd, LOCAL_ADDR, acc_row);
	SET(cmd, LOCAL_ADDR2, dst_row);
	SET(cmd, ROWS, rows);
	SET(cmd, OP0, flags);
	return 0;
}

int tpu_cmd_write_host(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off, uint32_t stride,
		       uint32_t local_row, uint32_t rows, uint32_t cols, int from_acc)
{
	int err;

	if (!cmd || !buf || rows == 0 || cols == 0)
		return -EINVAL;
	start(cmd, TPU_OP_WRITE_HOST);
	err = set_span(cmd, buf, off, stride, rows, (uint64_t)cols * (from_acc ? 4u : 1u));
	if (err)
		return err;
	SET(cmd, LOCAL_ADDR, local_row);
	SET(cmd, ROWS, rows);
	SET(cmd, COLS, cols);
	SET(cmd, OP0, from_acc ? TPU_WRITE_HOST_FROM_ACC : 0);
	return 0;
}

int tpu_cmd_fence(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off, uint64_t value)
{
	int err;

	if (!cmd)
		return -EINVAL;
	start(cmd, TPU_OP_FENCE);
	if (!buf)
		return 0;
	if (!tpu_buf_is_live(buf) || ((buf->iova + off) & 7u))
		return -EINVAL;
	err = set_span(cmd, buf, off, 0, 1, 8);
	if (err)
		return err;
	SET(cmd, OP0, (uint32_t)value);
	SET(cmd, OP1, (uint32_t)(value >> 32));
	return 0;
}

int tpu_cmd_identify(struct tpu_cmd *cmd, const tpu_buf *buf, size_t off)
{
	int err;

	if (!cmd || !buf)
		return -EINVAL;
	start(cmd, TPU_OP_IDENTIFY);
	err = set_span(cmd, buf, off, 0, 1, TPU_IDENTIFY_BYTES);
	if (err)
		return err;
	return 0;
}
