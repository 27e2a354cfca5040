/* Differential testing: the same random stream of valid and invalid commands (random fields,
 * sizes, strides, window layouts) runs on the golden model and on the Verilated device, and
 * everything observable must agree: every CQE (status, DNR, RESULT, SQ head), the host buffers
 * byte for byte, GSTAT, ERRLOG (address relative to the arena), Q_STATUS, Q_CQ_TAIL and the
 * exact PERF counters (not cycles). Golden is the reference (it is tested against independent
 * references in test_golden_*.c).
 * CI runs a few fixed seeds (suite sim_diff); `make soak SEEDS=N` runs N more (suite sim_soak,
 * TPU_SOAK_SEEDS) from a fresh base seed (mk/sim.mk). A failure prints the seed, the first
 * differing command (with TPU_SIM_DIFF_TRACE=1 also every command before it and both results)
 * and the one command that replays the case: `make soak SOAK_SEED=S SOAK_CMDS=N`
 * (TPU_SOAK_SEED, TPU_SOAK_CMDS; SOAK_BF16=1 / TPU_SOAK_BF16=1: the bf16 device's streams). Each case's sim seed is its own, and so is its Verilator
 * seed (sim/verilated/vseed.h).
 * The bf16 device (sim:n=8,bf16=1, built without STREAM_MATMUL) runs its own streams against
 * golden:bf16=1,stream=0 (suite sim_diff, case bf16): the same generator with FLAGS.BF16 on a
 * third of the data commands (2 x COLS bytes per row), the SCALE and FCLAMP kinds, the float
 * ACTIVATE's OP0 bits, bf16 weight tiles beside int8 ones (type mismatches), and tame bf16
 * values beside random bit patterns (NaN, infinities, subnormals) in the activations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sim_fixture.h"
#include "sim_model.h"
#include "tpu/tpu.h"
#include "verilated/vseed.h"

#define DN 8u          /* array size of both devices */
#define NBUF 4u
#define BUFB 4096u
#define LROWS 64u      /* local rows the random commands address (before corruption) */
#define MAXCMD 112u    /* the preamble (23 commands) and the random ones */

struct acmd {
	uint32_t dw[16];
	int buf;      /* HOST_ADDR = iova(buf) + off, or -1: as in dw */
	uint32_t off;
};

struct awin {
	uint32_t buf, off, len; /* len 0: disabled */
	unsigned perm;
};

struct stream {
	bool bf16; /* the bf16 device's stream (above) */
	uint8_t init[NBUF][BUFB];
	struct awin win[4];
	bool windows;
	unsigned npre, ncmd;
	struct acmd cmd[MAXCMD];
};

struct result {
	int submit[MAXCMD];
	struct tpu_cpl cpl[MAXCMD];
	uint8_t mem[NBUF][BUFB];
	uint32_t regs[16];
	uint64_t errlog_addr;
	struct tpu_perf perf;
};

static uint32_t rnd(uint64_t *s, uint32_t lo, uint32_t hi)
{
	return (uint32_t)harness_range(s, lo, hi);
}

static void set_dma(struct acmd *c, int buf, uint32_t off, uint32_t len, uint32_t stride)
{
	c->buf = buf;
	c->off = off;
	c->dw[TPU_SQE_LENGTH_DW] = len;
	c->dw[TPU_SQE_STRIDE_DW] = stride;
}

/* A transfer of rows x rowbytes (stride apart) placed at random inside buffer b. */
static void place(uint64_t *s, struct acmd *c, int b, uint32_t rows, uint32_t rowbytes,
		  uint32_t stride)
{
	uint32_t st = stride ? stride : rowbytes;
	uint32_t span = (rows - 1) * st + rowbytes;
	set_dma(c, b, rnd(s, 0, BUFB - span), span, stride);
}

/* As place, in the buffer's second half (the bf16 device's tame values). */
static void place_half(uint64_t *s, struct acmd *c, uint32_t rows, uint32_t rowbytes,
		       uint32_t stride)
{
	uint32_t st = stride ? stride : rowbytes;
	uint32_t span = (rows - 1) * st + rowbytes;
	set_dma(c, c->buf, BUFB / 2 + 2 * rnd(s, 0, (BUFB / 2 - span) / 2), span, stride);
}

static struct acmd *add(struct stream *st, uint32_t op)
{
	struct acmd *c = &st->cmd[st->ncmd++];
	memset(c, 0, sizeof(*c));
	c->buf = -1;
	c->dw[0] = op;
	return c;
}

/* A bf16 of magnitude 2^-7 .. 2^7, or now and then a zero. */
static uint16_t tame_bf16(uint64_t *s)
{
	uint32_t r = (uint32_t)harness_rand(s);

	if (r % 32u == 0)
		return (uint16_t)(r & 0x8000u);
	return (uint16_t)((r & 0x807Fu) | rnd(s, 127 - 7, 127 + 7) << 7);
}

static uint32_t f32_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* The bf16 device's additions: tame bf16 activations in buf0's second half and weights in
 * buf2's second half, fp32 SCALE values (buf1 at 384), a bf16 weight tile in the FIFO and the
 * SCALE and FCLAMP kinds loaded. */
static void preamble_bf16(struct stream *st, uint64_t *s)
{
	struct acmd *c;

	for (unsigned i = BUFB / 2; i < BUFB; i += 2) {
		uint16_t a = tame_bf16(s), w = tame_bf16(s);
		memcpy(&st->init[0][i], &a, 2);
		memcpy(&st->init[2][i], &w, 2);
	}
	for (unsigned j = 0; j < DN; j++) {
		uint32_t v = f32_of((float)((int)rnd(s, 0, 64) - 32) / 8.0f);
		memcpy(&st->init[1][384 + 4 * j], &v, 4);
	}
	c = add(st, TPU_OP_LOAD_WEIGHTS);
	c->dw[0] |= TPU_SQE_FLAG_BF16 << TPU_SQE_FLAGS_SHIFT;
	c->dw[TPU_SQE_ROWS_DW] = DN;
	c->dw[TPU_SQE_COLS_DW] = DN;
	set_dma(c, 2, BUFB / 2, 2 * DN * DN, 0);
	c = add(st, TPU_OP_LOAD_PARAMS);
	c->dw[TPU_SQE_ROWS_DW] = 1;
	c->dw[TPU_SQE_COLS_DW] = DN;
	c->dw[TPU_SQE_OP0_DW] = TPU_PARAM_SCALE;
	set_dma(c, 1, 384, 4 * DN, 0);
	c = add(st, TPU_OP_LOAD_PARAMS);
	c->dw[TPU_SQE_OP0_DW] = TPU_PARAM_FCLAMP;
	c->dw[TPU_SQE_OP2_DW] = f32_of(-2.0f);
	c->dw[TPU_SQE_OP3_DW] = f32_of(6.0f);
}

/* An fp32 clamp limit: mostly ordinary values, sometimes a zero of either sign, an infinity,
 * a subnormal (a zero once stored) or a NaN (INVALID_FIELD). */
static uint32_t clamp_limit(uint64_t *s)
{
	static const float pick[] = { -6.0f, -1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 6.0f, 100.0f };
	uint32_t r = rnd(s, 0, 19);

	if (r < 8)
		return f32_of(pick[r]);
	if (r == 8)
		return 0x80000000u;
	if (r == 9)
		return rnd(s, 0, 1) ? 0x7F800000u : 0xFF800000u;
	if (r == 10)
		return (rnd(s, 0, 1) << 31) | rnd(s, 1, 0x7FFFFF);
	if (r == 11)
		return 0x7F800000u | rnd(s, 1, 0x7FFFFF) | (rnd(s, 0, 1) << 31);
	return f32_of((float)((int)rnd(s, 0, 200) - 100) / 16.0f);
}

static void preamble(struct stream *st, uint64_t *s)
{
	struct acmd *c;
	static const uint32_t kinds[3] = { TPU_PARAM_BIAS, TPU_PARAM_MULT, TPU_PARAM_SHIFT };

	/* buf0: activations, buf1: parameters (+ random words), buf2: weights, buf3: output. */
	for (unsigned b = 0; b < NBUF; b++)
		for (unsigned i = 0; i < BUFB; i++)
			st->init[b][i] = b == 3 ? 0xEE : (uint8_t)harness_rand(s);
	for (unsigned j = 0; j < DN; j++) {
		int32_t bias = (int32_t)rnd(s, 0, 4000) - 2000;
		int32_t mult = (int32_t)rnd(s, 1u << 28, 0x7FFFFFFF);
		int32_t shift = (int32_t)rnd(s, 0, 14) - 12;
		memcpy(&st->init[1][4 * j], &bias, 4);
		memcpy(&st->init[1][64 + 4 * j], &mult, 4);
		memcpy(&st->init[1][128 + 4 * j], &shift, 4);
	}
	/* UB and ACC contents are unspecified until written (spec §3) and corrupted fields reach
	 * rows beyond LROWS, so every UB row is written first (buf0 over and over; rows
	 * 0..LROWS-1 get its first bytes) and the MATMUL below covers every ACC row. */
	for (unsigned r = 0; r < TPU_UB_ROWS_DEFAULT; r += BUFB / DN) {
		c = add(st, TPU_OP_READ_HOST);
		c->dw[TPU_SQE_ROWS_DW] = BUFB / DN;
		c->dw[TPU_SQE_COLS_DW] = DN;
		c->dw[TPU_SQE_LOCAL_ADDR_DW] = r;
		set_dma(c, 0, 0, BUFB, 0);
	}
	for (unsigned k = 0; k < 3; k++) {
		c = add(st, TPU_OP_LOAD_PARAMS);
		c->dw[TPU_SQE_ROWS_DW] = 1;
		c->dw[TPU_SQE_COLS_DW] = DN;
		c->dw[TPU_SQE_OP0_DW] = kinds[k];
		set_dma(c, 1, 64 * k, 4 * DN, 0);
	}
	c = add(st, TPU_OP_LOAD_PARAMS);
	c->dw[TPU_SQE_ROWS_DW] = 1;
	c->dw[TPU_SQE_COLS_DW] = 256;
	c->dw[TPU_SQE_OP0_DW] = TPU_PARAM_LUT;
	set_dma(c, 1, 256, 256, 0);
	c = add(st, TPU_OP_LOAD_PARAMS);
	/* (a random rounding mode: both devices have FEATURES.ROUND) */
	c->dw[TPU_SQE_OP0_DW] =
		TPU_PARAM_OUTPUT | rnd(s, 0, TPU_ROUND_MAX) << TPU_LOAD_PARAMS_ROUND_SHIFT;
	c->dw[TPU_SQE_OP1_DW] = (uint32_t)(int32_t)((int)rnd(s, 0, 40) - 20);
	c->dw[TPU_SQE_OP2_DW] = (uint32_t)(int32_t)((int)rnd(s, 0, 100) - 128);
	c->dw[TPU_SQE_OP3_DW] = (uint32_t)(int32_t)rnd(s, 0, 127);
	c = add(st, TPU_OP_LOAD_WEIGHTS);
	c->dw[TPU_SQE_ROWS_DW] = DN;
	c->dw[TPU_SQE_COLS_DW] = DN;
	set_dma(c, 2, 0, DN * DN, 0);
	c = add(st, TPU_OP_MATMUL);
	c->dw[TPU_SQE_ROWS_DW] = TPU_ACC_ROWS_DEFAULT;
	c->dw[TPU_SQE_OP0_DW] = TPU_MATMUL_POP;
	if (st->bf16)
		preamble_bf16(st, s);
	st->npre = st->ncmd;
}

static void random_windows(struct stream *st, uint64_t *s)
{
	st->windows = harness_rand(s) & 1;
	for (unsigned w = 0; w < 4 && st->windows; w++) {
		struct awin *a = &st->win[w];
		if (rnd(s, 0, 9) < 3)
			continue; /* disabled */
		a->buf = rnd(s, 0, NBUF - 1);
		a->off = rnd(s, 0, 3) == 0 ? rnd(s, 0, BUFB - 1) : 0;
		a->len = rnd(s, 1, BUFB - a->off);
		if (rnd(s, 0, 3) == 0)
			a->len = BUFB - a->off;
		a->perm = rnd(s, 1, 3);
	}
}

static void random_cmd(struct stream *st, uint64_t *s)
{
	uint32_t op = rnd(s, 0, 10);
	struct acmd *c;
	uint32_t rows, cols, stride;
	/* the bf16 device: FLAGS.BF16 on a third of the data commands (es: bytes per element) */
	bool bf = false;
	uint32_t es = 1;

	if (op > 8)
		op = rnd(s, 0, 9) < 5 ? TPU_OP_WRITE_HOST : rnd(s, 9, 255);
	c = add(st, op);
	if (rnd(s, 0, 5) == 0)
		c->dw[0] |= (uint32_t)rnd(s, 1, 3) << TPU_SQE_FLAGS_SHIFT;
	/* FLAGS.BF16 on an otherwise valid command: on the int8 devices INVALID_FIELD with nothing
	 * changed (docs/spec.md 6.12) */
	if (!st->bf16 && rnd(s, 0, 15) == 0)
		c->dw[0] |= TPU_SQE_FLAG_BF16 << TPU_SQE_FLAGS_SHIFT;
	if (st->bf16 && rnd(s, 0, 2) == 0) {
		c->dw[0] |= TPU_SQE_FLAG_BF16 << TPU_SQE_FLAGS_SHIFT;
		bf = true;
		es = 2;
	}
	c->dw[TPU_SQE_USER_TAG_DW] = 0; /* set at submission */
	switch (op) {
	case TPU_OP_READ_HOST:
		rows = rnd(s, 1, 6);
		cols = rnd(s, 1, DN);
		stride = rnd(s, 0, 1) ? 0 : es * cols + rnd(s, 0, 9);
		c->dw[TPU_SQE_ROWS_DW] = rows;
		c->dw[TPU_SQE_COLS_DW] = cols;
		c->dw[TPU_SQE_LOCAL_ADDR_DW] = rnd(s, 0, LROWS - rows);
		place(s, c, (int)rnd(s, 0, 3), rows, es * cols, stride);
		if (bf && rnd(s, 0, 1))
			place_half(s, c, rows, es * cols, stride); /* tame values */
		break;
	case TPU_OP_LOAD_WEIGHTS:
		rows = rnd(s, 1, DN);
		cols = rnd(s, 1, DN);
		stride = rnd(s, 0, 1) ? 0 : es * cols + rnd(s, 0, 5);
		c->dw[TPU_SQE_ROWS_DW] = rows;
		c->dw[TPU_SQE_COLS_DW] = cols;
		c->dw[TPU_SQE_OP0_DW] = rnd(s, 0, 1) ? TPU_LOAD_WEIGHTS_TRANSPOSE : 0;
		place(s, c, (int)rnd(s, 0, 2), rows, es * cols, stride);
		if (bf && rnd(s, 0, 1))
			place_half(s, c, rows, es * cols, stride);
		break;
	case TPU_OP_LOAD_PARAMS: {
		uint32_t kind = rnd(s, 0, st->bf16 ? 6 : 4);
		c->dw[TPU_SQE_OP0_DW] = kind;
		if (kind == TPU_PARAM_FCLAMP) {
			uint32_t lo = clamp_limit(s), hi = clamp_limit(s);
			c->dw[TPU_SQE_OP2_DW] = lo;
			c->dw[TPU_SQE_OP3_DW] = hi;
		} else if (kind == TPU_PARAM_OUTPUT) {
			int32_t lo = (int32_t)rnd(s, 0, 255) - 128, hi = (int32_t)rnd(s, 0, 255) - 128;
			/* OP0.ROUND: every mode, and the reserved 3 */
			c->dw[TPU_SQE_OP0_DW] |= rnd(s, 0, 3) << TPU_LOAD_PARAMS_ROUND_SHIFT;
			c->dw[TPU_SQE_OP1_DW] = (uint32_t)((int32_t)rnd(s, 0, 255) - 128);
			c->dw[TPU_SQE_OP2_DW] = (uint32_t)(lo < hi ? lo : hi);
			c->dw[TPU_SQE_OP3_DW] = (uint32_t)(lo < hi ? hi : lo);
		} else if (kind == TPU_PARAM_LUT) {
			c->dw[TPU_SQE_ROWS_DW] = 1;
			c->dw[TPU_SQE_COLS_DW] = 256;
			set_dma(c, 1, rnd(s, 0, 1) ? 256 : 4 * rnd(s, 0, 800), 256, 0);
		} else {
			uint32_t first = rnd(s, 0, DN - 1), cnt = rnd(s, 1, DN - first);
			c->dw[TPU_SQE_ROWS_DW] = 1;
			c->dw[TPU_SQE_COLS_DW] = cnt;
			c->dw[TPU_SQE_LOCAL_ADDR_DW] = first;
			/* the prepared vector (valid values) or random words (maybe invalid) */
			set_dma(c, 1, rnd(s, 0, 2) ? 64 * (kind == TPU_PARAM_SCALE ? 6 : kind)
						   : 4 * rnd(s, 128, 1000), 4 * cnt, 0);
		}
		break;
	}
	case TPU_OP_MATMUL:
		rows = rnd(s, 1, 8);
		c->dw[TPU_SQE_ROWS_DW] = rows;
		c->dw[TPU_SQE_LOCAL_ADDR_DW] = rnd(s, 0, LROWS - rows);
		c->dw[TPU_SQE_LOCAL_ADDR2_DW] = rnd(s, 0, LROWS - rows);
		c->dw[TPU_SQE_OP0_DW] = rnd(s, 0, 3);
		break;
	case TPU_OP_ACTIVATE:
		rows = rnd(s, 1, 8);
		c->dw[TPU_SQE_ROWS_DW] = rows;
		c->dw[TPU_SQE_LOCAL_ADDR_DW] = rnd(s, 0, LROWS - rows);
		c->dw[TPU_SQE_LOCAL_ADDR2_DW] = rnd(s, 0, LROWS - rows);
		c->dw[TPU_SQE_OP0_DW] = rnd(s, 0, 2);
		if (bf) /* RAW32, SCALE, CLAMP in any mix; now and then LUT (INVALID_FIELD) */
			c->dw[TPU_SQE_OP0_DW] = (rnd(s, 0, 7) << 1) | (rnd(s, 0, 9) == 0);
		break;
	case TPU_OP_WRITE_HOST: {
		uint32_t acc = rnd(s, 0, 1);
		rows = rnd(s, 1, 6);
		cols = rnd(s, 1, DN);
		stride = rnd(s, 0, 1) ? 0 : cols * (acc ? 4 : es) + rnd(s, 0, 9);
		c->dw[TPU_SQE_ROWS_DW] = rows;
		c->dw[TPU_SQE_COLS_DW] = cols;
		c->dw[TPU_SQE_LOCAL_ADDR_DW] = rnd(s, 0, LROWS - rows);
		c->dw[TPU_SQE_OP0_DW] = acc ? TPU_WRITE_HOST_FROM_ACC : 0;
		place(s, c, rnd(s, 0, 4) ? 3 : (int)rnd(s, 0, 2), rows, cols * (acc ? 4 : es), stride);
		break;
	}
	case TPU_OP_FENCE:
		if (rnd(s, 0, 1)) {
			set_dma(c, 3, 8 * rnd(s, 0, BUFB / 8 - 1), 8, 0);
			c->dw[TPU_SQE_OP0_DW] = (uint32_t)harness_rand(s);
			c->dw[TPU_SQE_OP1_DW] = (uint32_t)harness_rand(s);
		}
		break;
	case TPU_OP_IDENTIFY:
		set_dma(c, 3, 0, 4096, 0);
		break;
	default:
		break;
	}
	/* One in four: corrupt one field (never the CID, which the driver owns). */
	if (rnd(s, 0, 3) == 0) {
		unsigned dw = rnd(s, 0, 15);
		uint32_t v = rnd(s, 0, 2) == 0 ? (uint32_t)harness_rand(s)
					       : c->dw[dw] ^ (1u << rnd(s, 0, 31));
		if (dw == 0)
			v = (v & 0xFFFFu) | (c->dw[0] & 0xFFFF0000u);
		if (dw == 2 || dw == 3) {
			/* keep the span inside the buffer: nudge the offset instead */
			if (c->buf >= 0 && c->off + c->dw[TPU_SQE_LENGTH_DW] < BUFB)
				c->off += 1;
			return;
		}
		if (dw == TPU_SQE_LENGTH_DW && c->buf >= 0 && c->off + (uint64_t)v > BUFB)
			v = c->dw[dw] ? c->dw[dw] - 1 : 1;
		c->dw[dw] = v;
	}
}

static void make_stream(struct stream *st, uint64_t seed, unsigned ncmd, bool bf16)
{
	uint64_t s = seed;

	memset(st, 0, sizeof(*st));
	st->bf16 = bf16;
	preamble(st, &s);
	random_windows(st, &s);
	while (st->ncmd < st->npre + ncmd && st->ncmd < MAXCMD)
		random_cmd(st, &s);
}

static int run_one(tpu_dev *dev, tpu_buf **bufs, const struct acmd *a, unsigned idx, int *sub)
{
	struct tpu_cmd c;
	uint64_t addr;

	memcpy(c.dw, a->dw, sizeof(c.dw));
	c.dw[TPU_SQE_USER_TAG_DW] = idx;
	if (a->buf >= 0) {
		addr = tpu_buf_iova(bufs[a->buf]) + a->off;
		c.dw[TPU_SQE_HOST_ADDR_LO_DW] = (uint32_t)addr;
		c.dw[TPU_SQE_HOST_ADDR_HI_DW] = (uint32_t)(addr >> 32);
	}
	*sub = tpu_submit(dev, 0, &c, 1);
	return *sub;
}

static void set_windows(tpu_dev *dev, tpu_buf **bufs, const struct stream *st)
{
	for (unsigned w = 0; w < 4; w++) {
		const struct awin *a = &st->win[w];
		unsigned perm = (a->perm & 1 ? TPU_WIN_R : 0) | (a->perm & 2 ? TPU_WIN_W : 0);
		ck_assert_int_eq(tpu_window_set(dev, w, a->len ? tpu_buf_iova(bufs[a->buf]) + a->off : 0,
						a->len, perm), 0);
	}
}

static void run_stream(const char *uri, const struct stream *st, struct result *r)
{
	static const uint32_t regs[] = { TPU_REG_GSTAT, TPU_REG_ERRLOG0, TPU_REG_ERRLOG1,
					 TPU_REG_Q_STATUS(0), TPU_REG_Q_CQ_TAIL(0),
					 TPU_REG_Q_STATUS(1), TPU_REG_CSTS, TPU_REG_INT_STATUS };
	tpu_dev *dev;
	tpu_buf *bufs[NBUF];
	unsigned pending = 0;
	uint32_t lo = 0, hi = 0;

	memset(r, 0, sizeof(*r));
	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	for (unsigned b = 0; b < NBUF; b++) {
		ck_assert_int_eq(tpu_buf_alloc(dev, BUFB, &bufs[b]), 0);
		memcpy(tpu_buf_ptr(bufs[b]), st->init[b], BUFB);
	}
	for (unsigned i = 0; i < st->ncmd; i++) {
		if (i == st->npre) {
			struct tpu_cpl tmp[MAXCMD];
			int n = tpu_wait(dev, 0, tmp, pending, pending, 60000);
			ck_assert_int_eq(n, (int)pending);
			for (int k = 0; k < n; k++)
				r->cpl[tmp[k].user_tag] = tmp[k];
			pending = 0;
			if (st->windows)
				set_windows(dev, bufs, st);
		}
		if (run_one(dev, bufs, &st->cmd[i], i, &r->submit[i]) == 1)
			pending++;
		/* batches of a few commands in flight, then drain */
		if (pending >= 6 || i + 1 == st->ncmd) {
			struct tpu_cpl tmp[MAXCMD];
			int n = tpu_wait(dev, 0, tmp, pending, pending, 60000);
			if (n != (int)pending)
				sim_dump(dev, tpu_strerror(n));
			ck_assert_msg(n == (int)pending, "%s: wait: %s", uri, tpu_strerror(n));
			for (int k = 0; k < n; k++)
				r->cpl[tmp[k].user_tag] = tmp[k];
			pending = 0;
		}
	}
	for (unsigned b = 0; b < NBUF; b++)
		memcpy(r->mem[b], tpu_buf_ptr(bufs[b]), BUFB);
	for (unsigned k = 0; k < sizeof(regs) / sizeof(regs[0]); k++)
		ck_assert_int_eq(tpu_reg_read(dev, regs[k], &r->regs[k]), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_ERRLOG_ADDR_LO, &lo), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_ERRLOG_ADDR_HI, &hi), 0);
	r->errlog_addr = ((uint64_t)hi << 32 | lo);
	if (r->errlog_addr)
		r->errlog_addr -= tpu_buf_iova(bufs[0]);
	ck_assert_int_eq(tpu_perf_read(dev, &r->perf), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}

static const char *const reg_names[] = { "GSTAT", "ERRLOG0", "ERRLOG1", "Q_STATUS0",
					 "Q_CQ_TAIL0", "Q_STATUS1", "CSTS", "INT_STATUS" };

/* Every mismatch message ends with the command that replays the case. */
#define DIFF_ASSERT(cond, fmt, ...)                                                        \
	ck_assert_msg(cond, fmt " (replay: make soak SOAK_SEED=%llu SOAK_CMDS=%u%s)",       \
		      __VA_ARGS__, (unsigned long long)seed, st->ncmd - st->npre,              \
		      st->bf16 ? " SOAK_BF16=1" : "")

static void compare(uint64_t seed, const struct stream *st, const struct result *g,
		    const struct result *v)
{
	for (unsigned i = 0; i < st->ncmd; i++) {
		const struct tpu_cpl *a = &g->cpl[i], *b = &v->cpl[i];
		if (a->status != b->status || a->result != b->result) {
			/* TPU_SIM_DIFF_TRACE=1: the whole stream up to here, for reproducers */
			for (unsigned p = 0; getenv("TPU_SIM_DIFF_TRACE") && p < i; p++) {
				fprintf(stderr, "  cmd %u sc 0x%x/0x%x res %u/%u:", p,
					g->cpl[p].status, v->cpl[p].status, g->cpl[p].result,
					v->cpl[p].result);
				for (unsigned k = 0; k < 16; k++)
					fprintf(stderr, " %08x", st->cmd[p].dw[k]);
				fprintf(stderr, " (buf %d off %u)\n", st->cmd[p].buf,
					st->cmd[p].off);
			}
			fprintf(stderr, "seed %llu cmd %u differs; its dwords:",
				(unsigned long long)seed, i);
			for (unsigned k = 0; k < 16; k++)
				fprintf(stderr, " %08x", st->cmd[i].dw[k]);
			fprintf(stderr, " (buf %d off %u)\n", st->cmd[i].buf, st->cmd[i].off);
		}
		DIFF_ASSERT(g->submit[i] == v->submit[i], "seed %llu cmd %u: submit %d vs %d",
			      (unsigned long long)seed, i, g->submit[i], v->submit[i]);
		DIFF_ASSERT(a->status == b->status && a->result == b->result && a->dnr == b->dnr &&
				      a->sq_head == b->sq_head && a->user_tag == b->user_tag,
			      "seed %llu cmd %u (op 0x%02x dw0 %08x): golden status 0x%x result %u "
			      "head %u, sim status 0x%x result %u head %u",
			      (unsigned long long)seed, i, st->cmd[i].dw[0] & 0xFF, st->cmd[i].dw[0],
			      a->status, a->result, a->sq_head, b->status, b->result, b->sq_head);
	}
	for (unsigned b = 0; b < NBUF; b++)
		for (unsigned i = 0; i < BUFB; i++)
			DIFF_ASSERT(g->mem[b][i] == v->mem[b][i],
				      "seed %llu: buffer %u byte %u: golden 0x%02x sim 0x%02x",
				      (unsigned long long)seed, b, i, g->mem[b][i], v->mem[b][i]);
	for (unsigned k = 0; k < 8; k++)
		DIFF_ASSERT(g->regs[k] == v->regs[k], "seed %llu: %s golden 0x%08x sim 0x%08x",
			      (unsigned long long)seed, reg_names[k], g->regs[k], v->regs[k]);
	DIFF_ASSERT(g->errlog_addr == v->errlog_addr && g->perf.macs == v->perf.macs &&
			    g->perf.dma_read_bytes == v->perf.dma_read_bytes &&
			    g->perf.dma_write_bytes == v->perf.dma_write_bytes &&
			    g->perf.commands == v->perf.commands && g->perf.errors == v->perf.errors,
		    "seed %llu: ERRLOG_ADDR or PERF counters differ (golden/sim: addr %llu/%llu, "
		    "macs %llu/%llu, commands %llu/%llu, errors %llu/%llu)",
		    (unsigned long long)seed, (unsigned long long)g->errlog_addr,
		    (unsigned long long)v->errlog_addr, (unsigned long long)g->perf.macs,
		    (unsigned long long)v->perf.macs, (unsigned long long)g->perf.commands,
		    (unsigned long long)v->perf.commands, (unsigned long long)g->perf.errors,
		    (unsigned long long)v->perf.errors);
}

static void diff_seed(uint64_t seed, unsigned ncmd, bool bf16)
{
	struct stream *st = malloc(sizeof(*st));
	struct result *g = malloc(sizeof(*g)), *v = malloc(sizeof(*v));
	char uri[160];

	ck_assert(st && g && v);
	make_stream(st, seed, ncmd, bf16);
	run_stream(bf16 ? "golden:n=8,bf16=1,stream=0,qdepth=16,mem=1M" : "golden:n=8,qdepth=16,mem=1M",
		   st, g);
	/* Odd seeds: completions reordered across tags, with jitter (timing perturbation). */
	snprintf(uri, sizeof(uri), "sim:n=8,qdepth=16,mem=1M,latency=%u,seed=%llu%s%s",
		 (unsigned)(seed % 3) * 20u, (unsigned long long)seed,
		 seed & 1 ? ",reorder=1,jitter=40" : "", bf16 ? ",bf16=1" : "");
	run_stream(uri, st, v);
	compare(seed, st, g, v);
	free(st);
	free(g);
	free(v);
}

START_TEST(sim_diff_fixed_seeds)
{
	if (!sim_have(DN))
		return;
	diff_seed((uint64_t)(_i + 1) ^ (harness_seed() & 0xFFFF0000u), 60, false);
}
END_TEST

/* The bf16 device against golden:bf16=1,stream=0 (above). */
START_TEST(sim_diff_bf16_seeds)
{
	if (!tpu_sim_model_find(DN, 1))
		return;
	diff_seed((uint64_t)(_i + 1) ^ (harness_seed() & 0xFFFF0000u), 60, true);
}
END_TEST

static unsigned env_uint(const char *name, unsigned def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned)strtoul(v, NULL, 10) : def;
}

/* TPU_SOAK_SEEDS cases from the base seed (TPU_SEED), or with TPU_SOAK_SEED=S only case S:
 * TPU_SOAK_CMDS commands each (80). */
START_TEST(sim_soak_seeds)
{
	const char *one = getenv("TPU_SOAK_SEED");
	unsigned n = env_uint("TPU_SOAK_SEEDS", 0), ncmd = env_uint("TPU_SOAK_CMDS", 80);
	uint64_t base = harness_seed();

	if (!sim_have(DN))
		return;
	if (ncmd < 1 || ncmd > MAXCMD)
		ncmd = 80;
	if (one && *one) {
		n = 1;
		base = strtoull(one, NULL, 0) - 1000u;
	}
	bool bf16 = env_uint("TPU_SOAK_BF16", 0) == 1;

	if (bf16 && !tpu_sim_model_find(DN, 1))
		return;
	for (unsigned i = 0; i < n; i++) {
		uint64_t seed = base + 1000u + i;
		fprintf(stderr, "soak: case seed %llu (replay: make soak SOAK_SEED=%llu SOAK_CMDS=%u%s)\n",
			(unsigned long long)seed, (unsigned long long)seed, ncmd,
			bf16 ? " SOAK_BF16=1" : "");
		diff_seed(seed, ncmd, bf16);
	}
}
END_TEST

/* Consecutive case seeds start the RTL from distinct random states: the old mapping ("| 1")
 * gave seeds 2k and 2k + 1 the same Verilator seed. */
START_TEST(verilator_seeds_distinct)
{
	const uint64_t bases[] = { 0, 1000, harness_seed(), 0x7FFFFFF0ull, 0xFFFFFFFFull - 30,
				   0xFFFFFFFFFFFFFFF0ull };

	for (unsigned b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		unsigned seen[64];
		for (unsigned i = 0; i < 64; i++) {
			seen[i] = tpu_verilator_seed(bases[b] + i);
			ck_assert_uint_ne(seen[i], 0);
			ck_assert_uint_le(seen[i], 0x7FFFFFFFu);
			for (unsigned j = 0; j < i; j++)
				ck_assert_msg(seen[j] != seen[i],
					      "seeds %llu and %llu share Verilator seed %u",
					      (unsigned long long)(bases[b] + j),
					      (unsigned long long)(bases[b] + i), seen[i]);
		}
	}
	/* the bits above 30 count too */
	ck_assert_uint_ne(tpu_verilator_seed(5), tpu_verilator_seed(5 + (1ull << 40)));
}
END_TEST

TPU_TEST_SUITE(sim_diff_suite)
static Suite *sim_diff_suite(void)
{
	Suite *s = suite_create("sim_diff");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, sim_diff_fixed_seeds, 0, 12);
	tcase_add_loop_test(tc, sim_diff_bf16_seeds, 0, 12);
	tcase_add_test(tc, verilator_seeds_distinct);
	suite_add_tcase(s, tc);
	return s;
}

TPU_TEST_SUITE(sim_soak_suite)
static Suite *sim_soak_suite(void)
{
	Suite *s = suite_create("sim_soak");
	TCase *tc = tcase_create("soak");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, sim_soak_seeds);
	suite_add_tcase(s, tc);
	return s;
}
