/* Golden device command checks (docs/spec.md §6.1-§6.10): every status the golden model can
 * produce, reached by a crafted command; each command's "must be 0" fields; the range checks;
 * the order of the checks when two fail at once; and "a failing command changes nothing". */
#include <stdlib.h>
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"
#include "tpu/tpu_spec.h"

#define N 8
#define UB_ROWS 64
#define ACC_ROWS 32

static struct gfx F;
static uint64_t buf; /* 8 KiB of host memory inside window 0 */
static uint8_t *bufp;

static void setup(void)
{
	struct golden_config c;

	gfx_config_small(&c);
	c.acc_rows = ACC_ROWS;
	gfx_setup(&F, &c);
	bufp = gfx_alloc(&F, 8192, &buf);
}

static void teardown(void)
{
	gfx_teardown(&F);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* the test host is little-endian, as the spec's byte order */
}

/* Load all activation parameters with harmless values. */
static void load_all_params(void)
{
	struct gfx_sqe s;
	unsigned j;

	for (j = 0; j < N; j++) {
		put32(bufp + 4 * j, 0);
		put32(bufp + 64 + 4 * j, 1u << 30);
		put32(bufp + 128 + 4 * j, 0);
	}
	s = gfx_load_vec(TPU_PARAM_BIAS, buf, N, 0);
	gfx_ok(&F, &s);
	s = gfx_load_vec(TPU_PARAM_MULT, buf + 64, N, 0);
	gfx_ok(&F, &s);
	s = gfx_load_vec(TPU_PARAM_SHIFT, buf + 128, N, 0);
	gfx_ok(&F, &s);
	s = gfx_load_lut(buf + 256);
	gfx_ok(&F, &s);
	s = gfx_load_output(0, -128, 127);
	gfx_ok(&F, &s);
}

static void expect(const struct gfx_sqe *s, uint32_t sc)
{
	struct gfx_cqe c;
	static const uint32_t dnr1[] = { TPU_SC_INVALID_OPCODE, TPU_SC_INVALID_FIELD,
					 TPU_SC_SEQUENCE_ERROR, TPU_SC_DMA_ACCESS_VIOLATION,
					 TPU_SC_LOCAL_RANGE };
	uint32_t dnr = 0;

	ck_assert_uint_eq(gfx_exec(&F, s, &c), sc);
	for (unsigned i = 0; i < 5; i++)
		if (sc == dnr1[i])
			dnr = 1;
	ck_assert_uint_eq(c.dnr, dnr);
}

/* ------------------------------------------------------------------ valid base commands */

enum base_id {
	B_NOP, B_READ, B_WEIGHTS, B_BIAS, B_MULT, B_SHIFT, B_LUT, B_OUTPUT, B_MATMUL, B_ACT,
	B_RAW, B_WRITE, B_WRITE_ACC, B_FENCE0, B_FENCE, B_IDENTIFY, B_COUNT
};

static struct gfx_sqe base_cmd(enum base_id id)
{
	switch (id) {
	case B_NOP: return gfx_cmd(TPU_OP_NOP);
	case B_READ: return gfx_read_host(buf, 3, 5, 7, 2);
	case B_WEIGHTS: return gfx_load_weights(buf, 4, 6, 9, true);
	case B_BIAS: return gfx_load_vec(TPU_PARAM_BIAS, buf, 3, 5);
	case B_MULT: return gfx_load_vec(TPU_PARAM_MULT, buf + 64, N, 0);
	case B_SHIFT: return gfx_load_vec(TPU_PARAM_SHIFT, buf + 128, 2, 1);
	case B_LUT: return gfx_load_lut(buf + 256);
	case B_OUTPUT: return gfx_load_output(-3, -100, 100);
	case B_MATMUL: return gfx_matmul(1, 2, 3, TPU_MATMUL_ACCUMULATE);
	case B_ACT: return gfx_activate(1, 40, 3, TPU_ACTIVATE_LUT);
	case B_RAW: return gfx_activate(1, 1, 3, TPU_ACTIVATE_RAW32);
	case B_WRITE: return gfx_write_host(buf + 1024, 3, 5, 6, 60, false);
	case B_WRITE_ACC: return gfx_write_host(buf + 1024, 3, 5, 0, 29, true);
	case B_FENCE0: return gfx_fence(0, 0);
	case B_FENCE: return gfx_fence(buf + 2048, 0x1122334455667788ull);
	default: return gfx_identify(buf + 4096);
	}
}

/* DWs each base command requires to be 0 (spec's "must be 0" lists, plus DMA-less fields). */
static const struct {
	enum base_id id;
	uint8_t dws[12];
	unsigned n;
} must_be_zero[] = {
	{ B_NOP, { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 }, 12 },
	{ B_READ, { 7, 10, 11, 12, 13 }, 5 },
	{ B_WEIGHTS, { 6, 7, 11, 12, 13 }, 5 },
	{ B_BIAS, { 7, 11, 12, 13 }, 4 },
	{ B_MULT, { 7, 11, 12, 13 }, 4 },
	{ B_SHIFT, { 7, 11, 12, 13 }, 4 },
	{ B_LUT, { 7, 11, 12, 13 }, 4 },
	{ B_OUTPUT, { 2, 3, 4, 5, 6, 7, 8, 9 }, 8 },
	{ B_MATMUL, { 2, 3, 4, 5, 9, 11, 12, 13 }, 8 },
	{ B_ACT, { 2, 3, 4, 5, 9, 11, 12, 13 }, 8 },
	{ B_RAW, { 2, 3, 4, 5, 9, 11, 12, 13 }, 8 },
	{ B_WRITE, { 7, 11, 12, 13 }, 4 },
	{ B_WRITE_ACC, { 7, 11, 12, 13 }, 4 },
	{ B_FENCE0, { 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 }, 10 },
	{ B_FENCE, { 5, 6, 7, 8, 9, 12, 13 }, 7 },
	{ B_IDENTIFY, { 5, 6, 7, 8, 9, 10, 11, 12, 13 }, 9 },
};

static void prepare_state(void)
{
	struct gfx_sqe s;

	load_all_params();
	s = gfx_load_weights(buf, N, N, 0, false);
	gfx_ok(&F, &s);
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	gfx_ok(&F, &s);
}

START_TEST(must_be_zero_fields)
{
	const uint32_t values[] = { 1, 0x80000000u, 0xFFFFFFFFu };
	unsigned t = (unsigned)_i, i, v;
	struct gfx_sqe base = base_cmd(must_be_zero[t].id), s;

	prepare_state();
	for (i = 0; i < must_be_zero[t].n; i++)
		for (v = 0; v < 3; v++) {
			s = base;
			s.dw[must_be_zero[t].dws[i]] = values[v];
			expect(&s, TPU_SC_INVALID_FIELD);
		}
	/* reserved FLAGS bits and HOST_ADDR2_LO/HI (reserved but for STREAM_MATMUL.WRITE_BACK), for every command */
	for (i = 2; i < 8; i++) {
		s = base;
		GFX_SET(&s, FLAGS, 1u << i);
		expect(&s, TPU_SC_INVALID_FIELD);
	}
	s = base;
	GFX_SET(&s, HOST_ADDR2_LO, 1);
	expect(&s, TPU_SC_INVALID_FIELD);
	s = base;
	GFX_SET(&s, HOST_ADDR2_HI, 0x80000000u);
	expect(&s, TPU_SC_INVALID_FIELD);
	/* nothing above changed state: the base command itself succeeds, also with FENCE|IRQ */
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_PERF_ERRORS), 3 * must_be_zero[t].n + 8);
	s = base;
	GFX_SET(&s, FLAGS, TPU_SQE_FLAG_FENCE | TPU_SQE_FLAG_IRQ);
	expect(&s, TPU_SC_SUCCESS);
}
END_TEST

START_TEST(invalid_opcode)
{
	struct gfx_sqe s;
	uint32_t op;

	for (op = TPU_OP_COUNT; op < 256; op++) {
		s = gfx_cmd(op);
		expect(&s, TPU_SC_INVALID_OPCODE);
	}
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), TPU_GSTAT_CMD_ERROR_MASK);
}
END_TEST

/* ------------------------------------------------------------------ step 3: ranges */

struct mut {
	enum base_id id;
	unsigned dw;
	uint32_t val;
};

static const struct mut range_bad[] = {
	/* READ_HOST: ROWS 0, COLS 0 / N+1, STRIDE < row bytes, LENGTH off by one */
	{ B_READ, TPU_SQE_ROWS_DW, 0 },
	{ B_READ, TPU_SQE_COLS_DW, 0 },
	{ B_READ, TPU_SQE_COLS_DW, N + 1 },
	{ B_READ, TPU_SQE_STRIDE_DW, 4 },
	{ B_READ, TPU_SQE_LENGTH_DW, 2 * 7 + 5 + 1 },
	{ B_READ, TPU_SQE_LENGTH_DW, 2 * 7 + 5 - 1 },
	{ B_READ, TPU_SQE_LENGTH_DW, 0 },
	/* LOAD_WEIGHTS */
	{ B_WEIGHTS, TPU_SQE_ROWS_DW, 0 },
	{ B_WEIGHTS, TPU_SQE_ROWS_DW, N + 1 },
	{ B_WEIGHTS, TPU_SQE_COLS_DW, 0 },
	{ B_WEIGHTS, TPU_SQE_COLS_DW, N + 1 },
	{ B_WEIGHTS, TPU_SQE_STRIDE_DW, 5 },
	{ B_WEIGHTS, TPU_SQE_LENGTH_DW, 3 * 9 + 6 + 1 },
	{ B_WEIGHTS, TPU_SQE_OP0_DW, 2 },
	{ B_WEIGHTS, TPU_SQE_OP0_DW, 0x80000001u },
	/* LOAD_PARAMS vectors */
	{ B_BIAS, TPU_SQE_ROWS_DW, 0 },
	{ B_BIAS, TPU_SQE_ROWS_DW, 2 },
	{ B_BIAS, TPU_SQE_COLS_DW, 0 },
	{ B_MULT, TPU_SQE_COLS_DW, N + 1 },
	{ B_BIAS, TPU_SQE_LENGTH_DW, 3 },
	{ B_SHIFT, TPU_SQE_LENGTH_DW, 12 },
	{ B_BIAS, TPU_SQE_STRIDE_DW, 12 },
	{ B_BIAS, TPU_SQE_OP0_DW, 5 },
	{ B_BIAS, TPU_SQE_OP0_DW, 0xFFFFFFFFu },
	/* LUT */
	{ B_LUT, TPU_SQE_COLS_DW, 255 },
	{ B_LUT, TPU_SQE_LENGTH_DW, 255 },
	{ B_LUT, TPU_SQE_LOCAL_ADDR_DW, 1 },
	{ B_LUT, TPU_SQE_STRIDE_DW, 256 },
	{ B_LUT, TPU_SQE_ROWS_DW, 0 },
	/* OUTPUT: int8 range and min <= max */
	{ B_OUTPUT, TPU_SQE_OP1_DW, 128 },
	{ B_OUTPUT, TPU_SQE_OP1_DW, (uint32_t)-129 },
	{ B_OUTPUT, TPU_SQE_OP2_DW, (uint32_t)-129 },
	{ B_OUTPUT, TPU_SQE_OP3_DW, 128 },
	{ B_OUTPUT, TPU_SQE_OP3_DW, 0x100 | 5 },
	{ B_OUTPUT, TPU_SQE_OP2_DW, 101 },
	/* MATMUL, ACTIVATE */
	{ B_MATMUL, TPU_SQE_ROWS_DW, 0 },
	{ B_MATMUL, TPU_SQE_OP0_DW, 4 },
	{ B_ACT, TPU_SQE_ROWS_DW, 0 },
	{ B_ACT, TPU_SQE_OP0_DW, 4 },
	{ B_ACT, TPU_SQE_OP0_DW, TPU_ACTIVATE_LUT | TPU_ACTIVATE_RAW32 },
	{ B_RAW, TPU_SQE_LOCAL_ADDR2_DW, 2 }, /* overlapping, not identical */
	{ B_RAW, TPU_SQE_LOCAL_ADDR2_DW, 0 },
	{ B_RAW, TPU_SQE_LOCAL_ADDR2_DW, 3 },
	/* WRITE_HOST */
	{ B_WRITE, TPU_SQE_ROWS_DW, 0 },
	{ B_WRITE, TPU_SQE_COLS_DW, 0 },
	{ B_WRITE, TPU_SQE_COLS_DW, N + 1 },
	{ B_WRITE, TPU_SQE_OP0_DW, 2 },
	{ B_WRITE, TPU_SQE_STRIDE_DW, 4 },
	{ B_WRITE, TPU_SQE_LENGTH_DW, 2 * 6 + 5 + 1 },
	{ B_WRITE_ACC, TPU_SQE_STRIDE_DW, 19 }, /* >= COLS but < 4 x COLS */
	{ B_WRITE_ACC, TPU_SQE_LENGTH_DW, 15 },  /* the int8 span */
	/* FENCE, IDENTIFY */
	{ B_FENCE, TPU_SQE_LENGTH_DW, 4 },
	{ B_FENCE, TPU_SQE_LENGTH_DW, 16 },
	{ B_FENCE, TPU_SQE_HOST_ADDR_LO_DW, 0 }, /* upper word still set: addr != 0 */
	{ B_IDENTIFY, TPU_SQE_LENGTH_DW, 4095 },
	{ B_IDENTIFY, TPU_SQE_LENGTH_DW, 0 },
};

START_TEST(range_checks)
{
	const struct mut *m = &range_bad[_i];
	struct gfx_sqe s = base_cmd(m->id);

	prepare_state();
	if (m->id == B_FENCE && m->dw == TPU_SQE_HOST_ADDR_LO_DW) {
		/* a semaphore address that is not 8-byte aligned */
		gfx_set_addr(&s, buf + 2048 + 4);
	} else {
		s.dw[m->dw] = m->val;
	}
	expect(&s, TPU_SC_INVALID_FIELD);
	expect(&s, TPU_SC_INVALID_FIELD); /* and again: DNR, same result */
	s = base_cmd(m->id);
	expect(&s, TPU_SC_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------ step 4: local ranges */

static const struct mut local_bad[] = {
	{ B_READ, TPU_SQE_LOCAL_ADDR_DW, UB_ROWS - 2 },      /* rows 3: one past the end */
	{ B_READ, TPU_SQE_LOCAL_ADDR_DW, 0xFFFFFFFFu },      /* first + count overflows 32 bits */
	{ B_READ, TPU_SQE_LOCAL_ADDR_DW, UB_ROWS },
	{ B_BIAS, TPU_SQE_LOCAL_ADDR_DW, N - 2 },            /* cols 3 */
	{ B_BIAS, TPU_SQE_LOCAL_ADDR_DW, 0xFFFFFFFEu },
	{ B_MATMUL, TPU_SQE_LOCAL_ADDR_DW, UB_ROWS - 2 },
	{ B_MATMUL, TPU_SQE_LOCAL_ADDR2_DW, ACC_ROWS - 2 },
	{ B_MATMUL, TPU_SQE_LOCAL_ADDR2_DW, 0xFFFFFFFFu },
	{ B_ACT, TPU_SQE_LOCAL_ADDR_DW, ACC_ROWS - 2 },
	{ B_ACT, TPU_SQE_LOCAL_ADDR2_DW, UB_ROWS - 2 },
	{ B_ACT, TPU_SQE_LOCAL_ADDR2_DW, 0xFFFFFFFFu },
	{ B_WRITE, TPU_SQE_LOCAL_ADDR_DW, UB_ROWS - 2 },
	{ B_WRITE, TPU_SQE_LOCAL_ADDR_DW, 0xFFFFFFFEu },
	{ B_WRITE_ACC, TPU_SQE_LOCAL_ADDR_DW, ACC_ROWS - 2 }, /* fine for UB, not for ACC */
	{ B_WRITE_ACC, TPU_SQE_LOCAL_ADDR_DW, 0xFFFFFFFFu },
};

START_TEST(local_range_checks)
{
	const struct mut *m = &local_bad[_i];
	struct gfx_sqe s = base_cmd(m->id);

	prepare_state();
	s.dw[m->dw] = m->val;
	expect(&s, TPU_SC_LOCAL_RANGE);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1) & 0xFF, TPU_SC_LOCAL_RANGE);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_LO), 0);
}
END_TEST

START_TEST(local_range_edges_succeed)
{
	struct gfx_sqe s;

	prepare_state();
	s = gfx_read_host(buf, 3, 5, 0, UB_ROWS - 3);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_load_vec(TPU_PARAM_BIAS, buf, 3, N - 3);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_matmul(UB_ROWS - 3, ACC_ROWS - 3, 3, 0);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_activate(ACC_ROWS - 3, UB_ROWS - 3, 3, 0);
	expect(&s, TPU_SC_SUCCESS);
	/* RAW32 writes ACC rows: the UB bound does not apply, the ACC bound does */
	s = gfx_activate(0, ACC_ROWS - 3, 3, TPU_ACTIVATE_RAW32);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_activate(0, ACC_ROWS - 2, 3, TPU_ACTIVATE_RAW32);
	expect(&s, TPU_SC_LOCAL_RANGE);
	s = gfx_activate(0, UB_ROWS - 3, 3, 0);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_write_host(buf, 3, 5, 0, UB_ROWS - 3, false);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_write_host(buf, 3, 5, 0, ACC_ROWS - 3, true);
	expect(&s, TPU_SC_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------ step 5: sequence */

START_TEST(sequence_weight_fifo)
{
	struct gfx_sqe s;

	s = gfx_matmul(0, 0, 1, 0);
	expect(&s, TPU_SC_SEQUENCE_ERROR); /* no active tile */
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	expect(&s, TPU_SC_SEQUENCE_ERROR); /* FIFO empty */
	s = gfx_load_weights(buf, 2, 2, 0, false);
	expect(&s, TPU_SC_SUCCESS);
	expect(&s, TPU_SC_SUCCESS);
	expect(&s, TPU_SC_SEQUENCE_ERROR); /* FIFO (2 tiles) full */
	s = gfx_matmul(0, 0, 1, 0);
	expect(&s, TPU_SC_SEQUENCE_ERROR); /* tiles queued, but none active */
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_load_weights(buf, 2, 2, 0, false);
	expect(&s, TPU_SC_SUCCESS); /* the active tile does not count against the FIFO */
	expect(&s, TPU_SC_SEQUENCE_ERROR);
	s = gfx_matmul(0, 0, 1, 0);
	expect(&s, TPU_SC_SUCCESS); /* reuse */
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	expect(&s, TPU_SC_SUCCESS);
	expect(&s, TPU_SC_SUCCESS);
	expect(&s, TPU_SC_SEQUENCE_ERROR);
	s = gfx_matmul(0, 0, 1, 0);
	expect(&s, TPU_SC_SUCCESS); /* the last popped tile stays active */
}
END_TEST

START_TEST(sequence_params)
{
	/* Load the kinds one by one: ACTIVATE fails until everything it needs is there. */
	struct gfx_sqe act = gfx_activate(0, 0, 1, 0), lut = gfx_activate(0, 0, 1, TPU_ACTIVATE_LUT);
	struct gfx_sqe raw = gfx_activate(0, 0, 1, TPU_ACTIVATE_RAW32), s;
	unsigned j;

	for (j = 0; j < N; j++)
		put32(bufp + 64 + 4 * j, 1u << 30);
	expect(&raw, TPU_SC_SEQUENCE_ERROR);
	expect(&act, TPU_SC_SEQUENCE_ERROR);
	s = gfx_load_vec(TPU_PARAM_MULT, buf + 64, N, 0);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_load_vec(TPU_PARAM_SHIFT, buf, N, 0);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_load_output(0, -128, 127);
	expect(&s, TPU_SC_SUCCESS);
	expect(&act, TPU_SC_SEQUENCE_ERROR); /* no BIAS */
	expect(&raw, TPU_SC_SEQUENCE_ERROR);
	s = gfx_load_vec(TPU_PARAM_BIAS, buf, 1, 7); /* a partial load sets the flag */
	expect(&s, TPU_SC_SUCCESS);
	expect(&raw, TPU_SC_SUCCESS);
	expect(&act, TPU_SC_SUCCESS);
	expect(&lut, TPU_SC_SEQUENCE_ERROR); /* no LUT */
	s = gfx_load_lut(buf);
	expect(&s, TPU_SC_SUCCESS);
	expect(&lut, TPU_SC_SUCCESS);
}
END_TEST

START_TEST(sequence_params_each_kind_missing)
{
	/* With every kind but one loaded, int8 ACTIVATE fails. */
	static const uint32_t kinds[] = { TPU_PARAM_BIAS, TPU_PARAM_MULT, TPU_PARAM_SHIFT,
					  TPU_PARAM_OUTPUT };
	uint32_t skip = kinds[_i];
	struct gfx_sqe s;

	for (unsigned j = 0; j < N; j++)
		put32(bufp + 4 * j, 0);
	for (unsigned k = 0; k < 4; k++) {
		if (kinds[k] == skip)
			continue;
		s = kinds[k] == TPU_PARAM_OUTPUT ? gfx_load_output(0, -1, 1) :
						  gfx_load_vec(kinds[k], buf, N, 0);
		expect(&s, TPU_SC_SUCCESS);
	}
	s = gfx_activate(0, 0, 1, 0);
	expect(&s, TPU_SC_SEQUENCE_ERROR);
}
END_TEST

/* ------------------------------------------------------------------ steps 6-8 */

START_TEST(dma_violation_each_command)
{
	static const enum base_id ids[] = { B_READ, B_WEIGHTS, B_BIAS, B_LUT, B_WRITE,
					    B_WRITE_ACC, B_FENCE, B_IDENTIFY };
	unsigned i;

	prepare_state();
	/* window 0 now covers only the rings */
	gfx_window(&F, 0, F.q[0].sq_iova, F.q[0].cq_iova + 16 * 16 - 1,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct gfx_sqe s = base_cmd(ids[i]);
		uint64_t addr = (uint64_t)s.dw[3] << 32 | s.dw[2];

		gfx_record(&F);
		gfx_wr(&F, TPU_REG_GSTAT, 0xFFFFFFFF);
		expect(&s, TPU_SC_DMA_ACCESS_VIOLATION);
		ck_assert_uint_eq(F.nlog, 3); /* SQE fetch + CQE only */
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT),
				  TPU_GSTAT_CMD_ERROR_MASK | TPU_GSTAT_DMA_VIOLATION_MASK);
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_LO), (uint32_t)addr);
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_HI), (uint32_t)(addr >> 32));
	}
}
END_TEST

START_TEST(dma_xfer_error_each_read_command)
{
	static const enum base_id ids[] = { B_READ, B_WEIGHTS, B_BIAS, B_LUT };
	unsigned i;

	prepare_state();
	gfx_wr(&F, TPU_REG_PERF_CTRL, 1);
	gfx_fail_range(&F, buf, 8192, HOSTMEM_READ, true);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct gfx_sqe s = base_cmd(ids[i]);

		gfx_wr(&F, TPU_REG_GSTAT, 0xFFFFFFFF);
		expect(&s, TPU_SC_DMA_XFER_ERROR);
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT),
				  TPU_GSTAT_CMD_ERROR_MASK | TPU_GSTAT_DMA_XFER_ERR_MASK);
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_LO), (uint32_t)s.dw[2]);
	}
	/* no byte counted for failed commands */
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_RD_LO), 0);
	gfx_fail_off(&F);
	/* an address inside the window but not in any live buffer: the IOMMU refuses it */
	struct gfx_sqe s = gfx_read_host(GFX_IOVA_BASE + GFX_ARENA_SIZE - 64, 1, 8, 0, 0);
	expect(&s, TPU_SC_DMA_XFER_ERROR);
}
END_TEST

/* Writes to host memory are posted (spec §5, §6.1 item 7): a write host memory refuses is lost,
 * the command completes with SUCCESS and its normal RESULT, PERF_DMA_WR counts the bytes sent,
 * no error is logged, and no byte of host memory changes. */
START_TEST(refused_writes_are_posted)
{
	static const struct {
		enum base_id id;
		uint32_t result, bytes;
	} t[] = {
		{ B_WRITE, 15, 15 }, { B_WRITE_ACC, 60, 60 }, { B_FENCE, 0, 8 },
		{ B_IDENTIFY, 4096, 4096 },
	};
	uint8_t *copy = malloc(8192);
	uint64_t wr = 0, sent;
	unsigned i, j;

	ck_assert_ptr_nonnull(copy);
	prepare_state();
	for (j = 0; j < 8192; j++)
		bufp[j] = (uint8_t)(j * 7 + 3);
	memcpy(copy, bufp, 8192);
	gfx_wr(&F, TPU_REG_PERF_CTRL, 1);
	gfx_fail_range(&F, buf, 8192, HOSTMEM_WRITE, false);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gfx_sqe s = base_cmd(t[i].id);
		uint64_t addr = (uint64_t)s.dw[3] << 32 | s.dw[2];
		struct gfx_cqe c;

		gfx_wr(&F, TPU_REG_GSTAT, 0xFFFFFFFF);
		gfx_record(&F);
		ck_assert_uint_eq(gfx_exec(&F, &s, &c), TPU_SC_SUCCESS);
		ck_assert_uint_eq(c.result, t[i].result);
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), TPU_CSTS_RDY_MASK);
		/* the device sent the data, every write inside the command's span */
		sent = 0;
		for (j = 0; j < F.nlog; j++) {
			const struct gfx_access *a = &F.log[j];

			if (a->iova >= buf && a->iova < buf + 8192) {
				ck_assert_int_eq(a->dir, HOSTMEM_WRITE);
				ck_assert_uint_ge(a->iova, addr);
				ck_assert_uint_le(a->iova + a->len, addr + s.dw[4]);
				sent += a->len;
			}
		}
		ck_assert_uint_eq(sent, t[i].bytes);
		ck_assert_int_eq(memcmp(bufp, copy, 8192), 0);
		wr += t[i].bytes;
		ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_WR_LO), wr);
	}
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_PERF_ERRORS), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1), 0);
	/* with the fault gone the same commands land */
	gfx_fail_off(&F);
	{
		struct gfx_sqe s = base_cmd(B_FENCE);

		gfx_ok(&F, &s);
		ck_assert_uint_eq(bufp[2048], 0x88);
		ck_assert_uint_eq(bufp[2055], 0x11);
	}
	free(copy);
}
END_TEST

/* Read UB rows back through WRITE_HOST into a fresh buffer. */
static void read_ub(uint32_t row, uint32_t rows, uint8_t *out)
{
	uint64_t o;
	uint8_t *p = gfx_alloc(&F, (size_t)rows * N, &o);
	struct gfx_sqe s = gfx_write_host(o, rows, N, 0, row, false);

	gfx_ok(&F, &s);
	memcpy(out, p, (size_t)rows * N);
	gfx_free(&F, o);
}

START_TEST(xfer_error_commits_nothing)
{
	uint8_t before[4 * N], after[4 * N];
	struct gfx_sqe s;
	unsigned i;

	for (i = 0; i < 64; i++)
		bufp[i] = (uint8_t)(i + 1);
	s = gfx_read_host(buf, 4, N, 0, 10);
	gfx_ok(&F, &s);
	read_ub(10, 4, before);
	/* only the third row of a strided read fails: rows 0 and 1 must not be committed */
	memset(bufp + 1024, 0x55, 1024);
	gfx_fail_range(&F, buf + 1024 + 2 * 100, 1, HOSTMEM_READ, false);
	s = gfx_read_host(buf + 1024, 4, N, 100, 10);
	expect(&s, TPU_SC_DMA_XFER_ERROR);
	gfx_fail_off(&F);
	read_ub(10, 4, after);
	ck_assert_int_eq(memcmp(before, after, sizeof(before)), 0);
	/* LOAD_WEIGHTS: nothing pushed */
	gfx_fail_range(&F, buf + 1024, 1024, HOSTMEM_READ, false);
	s = gfx_load_weights(buf + 1024, N, N, 0, false);
	expect(&s, TPU_SC_DMA_XFER_ERROR);
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	expect(&s, TPU_SC_SEQUENCE_ERROR);
	/* LOAD_PARAMS: flag not set */
	s = gfx_load_vec(TPU_PARAM_BIAS, buf + 1024, N, 0);
	expect(&s, TPU_SC_DMA_XFER_ERROR);
	s = gfx_activate(0, 0, 1, TPU_ACTIVATE_RAW32);
	expect(&s, TPU_SC_SEQUENCE_ERROR);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_RD_LO), 4 * N);
}
END_TEST

START_TEST(param_value_checks)
{
	/* bias 1000 everywhere: RAW32 of a zero ACC row shows the bias values */
	static const struct {
		uint32_t kind;
		int32_t bad, good_edge;
	} t[] = {
		{ TPU_PARAM_MULT, -1, 0 },
		{ TPU_PARAM_MULT, INT32_MIN, INT32_MAX },
		{ TPU_PARAM_SHIFT, 31, 30 },
		{ TPU_PARAM_SHIFT, -32, -31 },
		{ TPU_PARAM_SHIFT, INT32_MIN, 0 },
	};
	unsigned i, j;
	struct gfx_sqe s;

	for (i = 0; i < 5; i++) {
		for (j = 0; j < N; j++)
			put32(bufp + 4 * j, (uint32_t)t[i].good_edge);
		put32(bufp + 4 * (N - 1), (uint32_t)t[i].bad); /* one bad channel */
		s = gfx_load_vec(t[i].kind, buf, N, 0);
		expect(&s, TPU_SC_INVALID_FIELD);
		put32(bufp + 4 * (N - 1), (uint32_t)t[i].good_edge);
		expect(&s, TPU_SC_SUCCESS);
	}
	/* the value check runs after the DMA, and a failed load commits nothing: with a LUT-free
	 * ACTIVATE of a zero ACC the output is zp, unless a bad MULT/SHIFT had been committed */
	for (j = 0; j < N; j++)
		put32(bufp + 4 * j, 0);
	s = gfx_load_vec(TPU_PARAM_BIAS, buf, N, 0);
	expect(&s, TPU_SC_SUCCESS);
	s = gfx_load_output(5, -128, 127);
	expect(&s, TPU_SC_SUCCESS);
	/* OUTPUT's OP0.ROUND: SINGLE and FLOAT (FEATURES.ROUND), not the reserved 3, and no OP0
	 * bit beside it */
	ck_assert(gfx_rd(&F, TPU_REG_FEATURES) & TPU_FEATURES_ROUND_MASK);
	GFX_SET(&s, OP0, TPU_PARAM_OUTPUT | 1u << TPU_LOAD_PARAMS_ROUND_SHIFT);
	expect(&s, TPU_SC_SUCCESS);
	GFX_SET(&s, OP0, TPU_PARAM_OUTPUT | 2u << TPU_LOAD_PARAMS_ROUND_SHIFT);
	expect(&s, TPU_SC_SUCCESS);
	GFX_SET(&s, OP0, TPU_PARAM_OUTPUT | 3u << TPU_LOAD_PARAMS_ROUND_SHIFT);
	expect(&s, TPU_SC_INVALID_FIELD);
	GFX_SET(&s, OP0, TPU_PARAM_OUTPUT | 1u << 10);
	expect(&s, TPU_SC_INVALID_FIELD);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_PERF_ERRORS), 7);
}
END_TEST

START_TEST(first_load_failing_value_sets_no_flag)
{
	struct gfx_sqe s;
	unsigned j;

	for (j = 0; j < N; j++)
		put32(bufp + 4 * j, 0);
	s = gfx_load_vec(TPU_PARAM_BIAS, buf, N, 0);
	gfx_ok(&F, &s);
	s = gfx_load_output(0, -128, 127);
	gfx_ok(&F, &s);
	s = gfx_load_vec(TPU_PARAM_SHIFT, buf, N, 0);
	gfx_ok(&F, &s);
	put32(bufp, (uint32_t)-5);
	s = gfx_load_vec(TPU_PARAM_MULT, buf, N, 0);
	expect(&s, TPU_SC_INVALID_FIELD);
	s = gfx_activate(0, 0, 1, 0);
	expect(&s, TPU_SC_SEQUENCE_ERROR);
}
END_TEST

/* ------------------------------------------------------------------ order of the checks */

START_TEST(check_order)
{
	struct gfx_sqe s;

	/* 1 before 2: unknown opcode with reserved bits set */
	s = gfx_cmd(TPU_OP_COUNT);
	GFX_SET(&s, HOST_ADDR2_LO, 1);
	GFX_SET(&s, FLAGS, 0xFC);
	expect(&s, TPU_SC_INVALID_OPCODE);
	/* 2/3 before 4: unused field set and local range bad */
	s = gfx_read_host(buf, 2, 4, 0, UB_ROWS);
	GFX_SET(&s, OP0, 1);
	expect(&s, TPU_SC_INVALID_FIELD);
	s = gfx_read_host(buf, 2, 4, 0, UB_ROWS);
	GFX_SET(&s, LENGTH, 9);
	expect(&s, TPU_SC_INVALID_FIELD);
	/* RAW32 overlap (3) before local range (4) */
	s = gfx_activate(ACC_ROWS, ACC_ROWS + 1, 2, TPU_ACTIVATE_RAW32);
	expect(&s, TPU_SC_INVALID_FIELD);
	/* 4 before 5: no tile and ACC range bad */
	s = gfx_matmul(0, ACC_ROWS, 1, 0);
	expect(&s, TPU_SC_LOCAL_RANGE);
	/* 4 before 6: local range bad and host address outside every window */
	s = gfx_read_host(0x1000, 2, 4, 0, UB_ROWS - 1);
	expect(&s, TPU_SC_LOCAL_RANGE);
	s = gfx_load_vec(TPU_PARAM_BIAS, 0x1000, 4, N - 3);
	expect(&s, TPU_SC_LOCAL_RANGE);
	/* 5 before 6: FIFO full and address outside */
	s = gfx_load_weights(buf, 2, 2, 0, false);
	gfx_ok(&F, &s);
	gfx_ok(&F, &s);
	s = gfx_load_weights(0x1000, 2, 2, 0, false);
	expect(&s, TPU_SC_SEQUENCE_ERROR);
	/* 6 before 7: outside the window and failing on the link: the link is never used */
	gfx_window(&F, 1, buf, buf + 63, TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK);
	gfx_window(&F, 0, F.q[0].sq_iova, F.q[0].cq_iova + 255,
		   TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK);
	gfx_fail_range(&F, buf, 8192, HOSTMEM_READ, true);
	s = gfx_read_host(buf + 60, 1, 8, 0, 0);
	gfx_record(&F);
	expect(&s, TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(F.nlog, 3);
	s = gfx_read_host(buf + 56, 1, 8, 0, 0);
	expect(&s, TPU_SC_DMA_XFER_ERROR);
	/* 7 before 8: a bad MULT value that also fails on the link */
	put32(bufp, (uint32_t)-1);
	s = gfx_load_vec(TPU_PARAM_MULT, buf, 1, 0);
	expect(&s, TPU_SC_DMA_XFER_ERROR);
	gfx_fail_off(&F);
	expect(&s, TPU_SC_INVALID_FIELD);
}
END_TEST

START_TEST(results_of_successful_commands)
{
	struct gfx_sqe s;
	struct gfx_cqe c;

	prepare_state();
	static const struct {
		enum base_id id;
		uint32_t result;
	} t[] = {
		{ B_NOP, 0 },      { B_READ, 15 },   { B_BIAS, 12 },     { B_MULT, 4 * N },
		{ B_LUT, 256 },    { B_OUTPUT, 0 },  { B_MATMUL, 3 },    { B_RAW, 0 },
		{ B_WRITE, 15 },   { B_WRITE_ACC, 60 }, { B_FENCE0, 0 }, { B_FENCE, 0 },
		{ B_IDENTIFY, 4096 }, { B_WEIGHTS, 24 },
	};
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s = base_cmd(t[i].id);
		GFX_SET(&s, USER_TAG, 0xA5A50000u + i);
		ck_assert_uint_eq(gfx_exec(&F, &s, &c), TPU_SC_SUCCESS);
		ck_assert_uint_eq(c.result, t[i].result);
		ck_assert_uint_eq(c.user_tag, 0xA5A50000u + i);
		ck_assert_uint_eq(c.dnr, 0);
	}
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1), 0);
}
END_TEST

static Suite *build(const char *name, enum gfx_backend be)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("status");
	struct golden_config c;

	gfx_config_small(&c);
	c.acc_rows = ACC_ROWS;
	if (!gfx_backend_has(be, &c))
		return s;
	tcase_add_checked_fixture(tc, be == GFX_SIM ? gfx_use_sim : gfx_use_golden, NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, must_be_zero_fields, 0,
			    sizeof(must_be_zero) / sizeof(must_be_zero[0]));
	tcase_add_test(tc, invalid_opcode);
	tcase_add_loop_test(tc, range_checks, 0, sizeof(range_bad) / sizeof(range_bad[0]));
	tcase_add_loop_test(tc, local_range_checks, 0, sizeof(local_bad) / sizeof(local_bad[0]));
	tcase_add_test(tc, local_range_edges_succeed);
	tcase_add_test(tc, sequence_weight_fifo);
	tcase_add_test(tc, sequence_params);
	tcase_add_loop_test(tc, sequence_params_each_kind_missing, 0, 4);
	tcase_add_test(tc, dma_violation_each_command);
	tcase_add_test(tc, dma_xfer_error_each_read_command);
	tcase_add_test(tc, refused_writes_are_posted);
	tcase_add_test(tc, xfer_error_commits_nothing);
	tcase_add_test(tc, param_value_checks);
	tcase_add_test(tc, first_load_failing_value_sets_no_flag);
	tcase_add_test(tc, check_order);
	tcase_add_test(tc, results_of_successful_commands);
	suite_add_tcase(s, tc);
	return s;
}

TPU_TEST_SUITE(suite_golden_status)
static Suite *suite_golden_status(void)
{
	return build("golden_status", GFX_GOLDEN);
}

/* The same tests on the Verilated device, checked against a golden shadow (golden_fixture.h). */
TPU_TEST_SUITE(suite_sim_golden_status)
static Suite *suite_sim_golden_status(void)
{
	return build("sim_golden_status", GFX_SIM);
}
