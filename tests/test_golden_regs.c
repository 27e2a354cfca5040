/* Golden device BAR0 register file: identity and configuration registers, power-on and RESET
 * state, unmapped offsets, enable flow, W1C registers, error log, locks on queue configuration
 * and windows, PERF counters with the LO/HI latch. */
#include <errno.h>
#include <stdlib.h>

#include "golden_fixture.h"
#include "harness.h"
#include "tpu/tpu_spec.h"

static struct gfx F;

static void bare_setup(void)
{
	gfx_setup_bare(&F, NULL);
}

static void full_setup(void)
{
	gfx_setup(&F, NULL);
}

static void teardown(void)
{
	gfx_teardown(&F);
}

START_TEST(config_check_names_field)
{
	struct golden_config c;
	const char *what = NULL;
	struct {
		uint32_t *field;
		uint32_t lo, hi;
		const char *name;
	} t[] = {
		{ &c.array_n, TPU_ARRAY_N_MIN, TPU_ARRAY_N_MAX, "array_n" },
		{ &c.ub_rows, TPU_UB_ROWS_MIN, TPU_UB_ROWS_MAX, "ub_rows" },
		{ &c.acc_rows, TPU_ACC_ROWS_MIN, TPU_ACC_ROWS_MAX, "acc_rows" },
		{ &c.fifo_tiles, TPU_FIFO_TILES_MIN, TPU_FIFO_TILES_MAX, "fifo_tiles" },
		{ &c.num_queues, TPU_NUM_QUEUES_MIN, TPU_NUM_QUEUES_MAX, "num_queues" },
		{ &c.num_windows, TPU_NUM_WINDOWS_MIN, TPU_NUM_WINDOWS_MAX, "num_windows" },
		{ &c.max_queue_entries, TPU_MAX_QUEUE_ENTRIES_MIN, TPU_MAX_QUEUE_ENTRIES_MAX,
		  "max_queue_entries" },
	};
	unsigned i;

	golden_config_default(&c);
	ck_assert_int_eq(golden_config_check(&c, &what), 0);
	ck_assert_ptr_null(what);
	ck_assert_uint_eq(c.array_n, TPU_ARRAY_N_DEFAULT);
	ck_assert_uint_eq(c.ub_rows, TPU_UB_ROWS_DEFAULT);
	ck_assert_uint_eq(c.stream_mm, 1);
	c.stream_mm = 2;
	ck_assert_int_eq(golden_config_check(&c, &what), -EINVAL);
	ck_assert_str_eq(what, "stream");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		golden_config_default(&c);
		*t[i].field = t[i].lo;
		ck_assert_int_eq(golden_config_check(&c, NULL), 0);
		*t[i].field = t[i].hi;
		ck_assert_int_eq(golden_config_check(&c, NULL), 0);
		*t[i].field = t[i].lo - 1;
		ck_assert_int_eq(golden_config_check(&c, &what), -EINVAL);
		ck_assert_str_eq(what, t[i].name);
		*t[i].field = t[i].hi + 1;
		ck_assert_int_eq(golden_config_check(&c, &what), -EINVAL);
		ck_assert_str_eq(what, t[i].name);
	}
}
END_TEST

static int no_dma(void *ctx, uint64_t iova, void *dst, size_t len)
{
	(void)ctx, (void)iova, (void)dst, (void)len;
	return -EFAULT;
}

START_TEST(create_rejects_bad_input)
{
	struct golden_config c;
	struct golden_dma_port port = { .read = no_dma, .write = NULL };
	struct golden *g;

	golden_config_default(&c);
	ck_assert_int_eq(golden_create(&c, &port, &g), -EINVAL);
	ck_assert_int_eq(golden_create(&c, NULL, &g), -EINVAL);
	c.array_n = 3;
	port.write = (int (*)(void *, uint64_t, const void *, size_t))no_dma;
	ck_assert_int_eq(golden_create(&c, &port, &g), -EINVAL);
	golden_config_default(&c);
	ck_assert_int_eq(golden_create(&c, &port, &g), 0);
	golden_destroy(g);
	golden_destroy(NULL);
}
END_TEST

START_TEST(identity_registers)
{
	struct golden_config c;
	struct gfx f;

	golden_config_default(&c);
	c.array_n = 6;
	c.ub_rows = 100;
	c.acc_rows = 37;
	c.fifo_tiles = 3;
	c.num_queues = 5;
	c.num_windows = 15;
	c.max_queue_entries = 65536;
	gfx_setup_bare(&f, &c);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_ID), TPU_ID);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_VERSION),
			  TPU_VERSION_MAJOR << 16 | TPU_VERSION_MINOR << 8 | TPU_VERSION_PATCH);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_HWCFG0), 6u | 3u << 16 | 5u << 24 | 15u << 28);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_HWCFG1), 100);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_HWCFG2), 37);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_CAP) & TPU_CAP_MQES_MASK, 65535);
	/* the golden model documents a non-zero watchdog budget of 64 x 1024 cycles */
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_CAP) >> TPU_CAP_TIMEOUT_SHIFT, 64);
	/* registers of the fifth queue and fifteenth window exist, the sixth queue's not */
	gfx_wr(&f, TPU_REG_SQ_SIZE(4), 9);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_SQ_SIZE(4)), 9);
	gfx_wr(&f, TPU_REG_SQ_SIZE(5), 9);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_SQ_SIZE(5)), 0);
	gfx_wr(&f, TPU_REG_WIN_LIMIT_LO(14), 0x1234);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_WIN_LIMIT_LO(14)), 0x1234);
	gfx_teardown(&f);
}
END_TEST

START_TEST(power_on_state_and_unmapped)
{
	static const uint32_t zero_regs[] = {
		TPU_REG_CC, TPU_REG_CSTS, TPU_REG_GSTAT, TPU_REG_INT_MASK, TPU_REG_INT_STATUS,
		TPU_REG_ERRLOG0, TPU_REG_ERRLOG1, TPU_REG_ERRLOG_ADDR_LO, TPU_REG_ERRLOG_ADDR_HI,
		TPU_REG_MSI_ADDR_LO, TPU_REG_MSI_ADDR_HI, TPU_REG_MSI_DATA, TPU_REG_MSI_CTRL,
		TPU_REG_PERF_CMDS, TPU_REG_PERF_ERRORS, TPU_REG_RESET, TPU_REG_PERF_CTRL,
		TPU_REG_SQ_TAIL_DB(0), TPU_REG_CQ_HEAD_DB(1),
		/* unmapped */
		0x050, 0x0FC, 0x140, 0x280, 0x3FC, 0x430, 0x434, 0x438, 0x440, 0x1010, 0x1FFC,
		0x2000, 0xFFFFFFFC,
	};
	unsigned i, off;

	for (i = 0; i < sizeof(zero_regs) / sizeof(zero_regs[0]); i++) {
		/* the sim link carries 16-bit BAR0 offsets (a 64 KiB BAR): nothing beyond */
		if (zero_regs[i] > 0xFFFF && gfx_backend() == GFX_SIM)
			continue;
		ck_assert_uint_eq(gfx_rd(&F, zero_regs[i]), 0);
	}
	for (off = 0x100; off < 0x140; off += 4)
		ck_assert_uint_eq(gfx_rd(&F, off), 0);
	for (off = 0x200; off < 0x280; off += 4)
		ck_assert_uint_eq(gfx_rd(&F, off), 0);
	for (off = 0x400; off < 0x440; off += 4)
		ck_assert_uint_eq(gfx_rd(&F, off), 0);
	/* writes to unmapped or misaligned offsets change nothing */
	gfx_wr(&F, 0x050, 0xFFFFFFFF);
	gfx_wr(&F, TPU_REG_SQ_SIZE(0) + 1, 0xFF);
	gfx_wr(&F, 0x140, 5);
	ck_assert_uint_eq(gfx_rd(&F, 0x050), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_SQ_SIZE(0)), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ID + 1), 0);
	ck_assert_uint_eq(gfx_rd(&F, 0x140), 0);
	/* read-only registers ignore writes */
	gfx_wr(&F, TPU_REG_ID, 0);
	gfx_wr(&F, TPU_REG_CSTS, 3);
	gfx_wr(&F, TPU_REG_HWCFG1, 1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ID), TPU_ID);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_HWCFG1), 64);
}
END_TEST

START_TEST(enable_disable_flow)
{
	ck_assert_uint_eq(gfx_run(&F, 10), 0);
	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CC), 1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)), TPU_Q_STATUS_ACTIVE_MASK);
	/* queue 1 unused: neither active nor broken */
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(1)), 0);
	gfx_disable(&F);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)), 0);
	/* CC keeps only EN */
	gfx_wr(&F, TPU_REG_CC, 0xFFFFFFFE);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CC), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), 0);
}
END_TEST

START_TEST(queue_config_frozen_while_enabled)
{
	uint32_t base = gfx_rd(&F, TPU_REG_SQ_BASE_LO(0));

	gfx_wr(&F, TPU_REG_SQ_SIZE(0), 4);
	gfx_wr(&F, TPU_REG_CQ_SIZE(0), 4);
	gfx_wr(&F, TPU_REG_SQ_BASE_LO(0), 0x40);
	gfx_wr(&F, TPU_REG_CQ_BASE_HI(0), 1);
	gfx_wr(&F, TPU_REG_SQ_SIZE(1), 4);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_SQ_SIZE(0)), 16);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CQ_SIZE(0)), 16);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_SQ_BASE_LO(0)), base);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CQ_BASE_HI(0)), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_SQ_SIZE(1)), 0);
	/* the queue still works with its original configuration */
	struct gfx_sqe s = gfx_cmd(TPU_OP_NOP);
	gfx_ok(&F, &s);
	gfx_disable(&F);
	gfx_wr(&F, TPU_REG_SQ_SIZE(1), 4);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_SQ_SIZE(1)), 4);
}
END_TEST

START_TEST(window_lock_while_valid)
{
	const uint32_t valid = TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK;

	gfx_window(&F, 1, 0x1000, 0x1FFF, valid);
	gfx_wr(&F, TPU_REG_WIN_BASE_LO(1), 0x5000);
	gfx_wr(&F, TPU_REG_WIN_BASE_HI(1), 7);
	gfx_wr(&F, TPU_REG_WIN_LIMIT_LO(1), 0x5FFF);
	gfx_wr(&F, TPU_REG_WIN_LIMIT_HI(1), 7);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_WIN_BASE_LO(1)), 0x1000);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_WIN_BASE_HI(1)), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_WIN_LIMIT_LO(1)), 0x1FFF);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_WIN_LIMIT_HI(1)), 0);
	/* WIN_PERM stays writable (undefined bits read 0) */
	gfx_wr(&F, TPU_REG_WIN_PERM(1), 0xFFFFFFFF);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_WIN_PERM(1)), 0x80000003u);
	gfx_wr(&F, TPU_REG_WIN_PERM(1), TPU_WIN_PERM_W_MASK);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_WIN_PERM(1)), TPU_WIN_PERM_W_MASK);
	gfx_wr(&F, TPU_REG_WIN_BASE_HI(1), 7);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_WIN_BASE_HI(1)), 7);
}
END_TEST

START_TEST(reset_magic)
{
	uint64_t buf;

	gfx_alloc(&F, 64, &buf);
	gfx_wr(&F, TPU_REG_INT_MASK, 1);
	gfx_wr(&F, TPU_REG_MSI_ADDR_LO, 0x40);
	gfx_wr(&F, TPU_REG_MSI_DATA, 0x99);
	gfx_wr(&F, TPU_REG_MSI_CTRL, 1);
	struct gfx_sqe s = gfx_cmd(0x77);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_INVALID_OPCODE);
	s = gfx_read_host(buf, 1, 8, 0, 0);
	gfx_ok(&F, &s);
	gfx_wr(&F, TPU_REG_SQ_TAIL_DB(0), 99); /* bad doorbell -> broken */
	ck_assert_uint_ne(gfx_rd(&F, TPU_REG_GSTAT), 0);
	/* any other value is ignored */
	gfx_wr(&F, TPU_REG_RESET, TPU_RESET_MAGIC + 1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), TPU_CSTS_RDY_MASK);
	gfx_wr(&F, TPU_REG_RESET, TPU_RESET_MAGIC);
	for (uint32_t off = 0x018; off < 0x440; off += 4) {
		/* constants */
		if (off == TPU_REG_CAP || off == TPU_REG_OPCODES || off == TPU_REG_FEATURES)
			continue;
		ck_assert_msg(gfx_rd(&F, off) == 0, "register 0x%x not 0 after reset", off);
	}
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ID), TPU_ID);
}
END_TEST

START_TEST(gstat_and_int_status_w1c)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_NOP);

	GFX_SET(&s, FLAGS, TPU_SQE_FLAG_IRQ);
	GFX_SET(&s, OP3, 1);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_INVALID_FIELD);
	gfx_wr(&F, TPU_REG_SQ_TAIL_DB(1), 0); /* queue 1 not active -> bad doorbell */
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT),
			  TPU_GSTAT_CMD_ERROR_MASK | TPU_GSTAT_BAD_DOORBELL_MASK);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), TPU_INT_STATUS_CQE_MASK);
	gfx_wr(&F, TPU_REG_GSTAT, 0);
	gfx_wr(&F, TPU_REG_GSTAT, TPU_GSTAT_CMD_ERROR_MASK);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), TPU_GSTAT_BAD_DOORBELL_MASK);
	gfx_wr(&F, TPU_REG_GSTAT, 0xFFFFFFFF);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	gfx_wr(&F, TPU_REG_INT_STATUS, 0xFFFFFFFE);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 1);
	gfx_wr(&F, TPU_REG_INT_STATUS, 1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 0);
}
END_TEST

START_TEST(errlog_fields_and_count)
{
	uint64_t buf;
	struct gfx_sqe s;
	unsigned i;

	gfx_alloc(&F, 64, &buf);
	s = gfx_cmd(0xFE);
	GFX_SET(&s, CID, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_INVALID_OPCODE);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG0), 1u | 0xFEu << 16);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1), TPU_SC_INVALID_OPCODE | 1u << 16);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_LO), 0);
	/* a DMA error logs HOST_ADDR */
	s = gfx_read_host(0xABCD00000040ull, 1, 4, 0, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG0), 2u | (uint32_t)TPU_OP_READ_HOST << 16);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1), TPU_SC_DMA_ACCESS_VIOLATION | 2u << 16);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_LO), 0x00000040);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_HI), 0xABCD);
	/* success does not touch the log */
	s = gfx_read_host(buf, 1, 4, 0, 0);
	gfx_ok(&F, &s);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_HI), 0xABCD);
	/* a later non-DMA error zeroes ERRLOG_ADDR; any ERRLOG1 write clears only COUNT */
	s = gfx_matmul(0, 0, 1, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_HI), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1), TPU_SC_SEQUENCE_ERROR | 3u << 16);
	gfx_wr(&F, TPU_REG_ERRLOG1, 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1), TPU_SC_SEQUENCE_ERROR);
	/* COUNT saturates at 0xFFFF */
	/* in batches of 1023 on a queue of 1024, the CQ head doorbells back to back (the error
	 * log survives a disable) */
	gfx_disable(&F);
	gfx_queue_setup(&F, 0, 1024, 1024);
	gfx_enable(&F);
	s = gfx_cmd(0x10);
	for (i = 0; i < 0x10001;) {
		unsigned n = 0x10001 - i < 1023 ? 0x10001 - i : 1023, k;
		struct gfx_cqe c;

		for (k = 0; k < n; k++) {
			GFX_SET(&s, CID, i + k);
			gfx_push(&F, 0, &s);
		}
		gfx_ring(&F, 0);
		ck_assert_uint_eq(gfx_run(&F, n), n);
		gfx_hold(&F, true);
		for (k = 0; k < n; k++) {
			ck_assert(gfx_reap(&F, 0, &c));
			ck_assert_uint_eq(c.sc, TPU_SC_INVALID_OPCODE);
		}
		gfx_hold(&F, false);
		i += n;
	}
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG1) >> 16, 0xFFFF);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG0), ((i - 1) & 0xFFFFu) | 0x10u << 16);
}
END_TEST

START_TEST(perf_counters_latch_and_clear)
{
	/* N = 256 and 65536 rows: one full MATMUL is 2^32 MACs, so the HI words carry. */
	struct golden_config c;
	struct gfx f;
	uint64_t w;
	struct gfx_sqe s;

	gfx_config_small(&c);
	c.array_n = 256;
	c.ub_rows = 65536;
	c.acc_rows = 65536;
	gfx_setup(&f, &c);
	gfx_alloc(&f, 256 * 256, &w);
	s = gfx_load_weights(w, 256, 256, 0, false);
	ck_assert_uint_eq(gfx_ok(&f, &s), 65536);
	s = gfx_load_weights(w, 256, 256, 0, true);
	gfx_ok(&f, &s);
	s = gfx_matmul(0, 0, 65536, TPU_MATMUL_POP);
	ck_assert_uint_eq(gfx_ok(&f, &s), 65536);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_PERF_MACS_LO), 0);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_PERF_MACS_HI), 1);
	s = gfx_matmul(0, 0, 65536, TPU_MATMUL_POP);
	gfx_ok(&f, &s);
	/* HI still returns the half latched by the last LO read */
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_PERF_MACS_HI), 1);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_PERF_MACS_LO), 0);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_PERF_MACS_HI), 2);
	ck_assert_uint_eq(gfx_perf(&f, TPU_REG_PERF_MXU_BUSY_LO), 2 * 65536);
	ck_assert_uint_eq(gfx_perf(&f, TPU_REG_PERF_DMA_RD_LO), 2 * 65536);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_PERF_CMDS), 4);
	ck_assert(gfx_perf(&f, TPU_REG_PERF_CYCLES_LO) >= 2 * 65536);
	/* PERF_CTRL: only bit 0 clears */
	gfx_wr(&f, TPU_REG_PERF_CTRL, 2);
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_PERF_CMDS), 4);
	gfx_wr(&f, TPU_REG_PERF_CTRL, 1);
	for (uint32_t off = 0x400; off < 0x430; off += 4)
		ck_assert_uint_eq(gfx_rd(&f, off), 0);
	gfx_teardown(&f);
}
END_TEST

static Suite *build(const char *name, enum gfx_backend be)
{
	Suite *s = suite_create(name);
	TCase *bare = tcase_create("bare");
	TCase *full = tcase_create("enabled");
	void (*use)(void) = be == GFX_SIM ? gfx_use_sim : gfx_use_golden;

	if (!gfx_backend_has(be, NULL))
		return s;
	/* Golden-only: the first two test the golden model's C API (config check, create), the
	 * other two build devices no Verilated model has (N = 6 with 5 queues and 15 windows;
	 * N = 256 with 65536 UB and ACC rows). */
	if (be == GFX_GOLDEN) {
		TCase *plain = tcase_create("plain");

		tcase_add_test(plain, config_check_names_field);
		tcase_add_test(plain, create_rejects_bad_input);
		tcase_add_test(plain, identity_registers);
		tcase_add_test(plain, perf_counters_latch_and_clear);
		tcase_set_timeout(plain, 60);
		suite_add_tcase(s, plain);
	}
	tcase_add_checked_fixture(bare, use, NULL);
	tcase_add_checked_fixture(bare, bare_setup, teardown);
	tcase_add_test(bare, power_on_state_and_unmapped);
	tcase_add_test(bare, enable_disable_flow);
	tcase_add_test(bare, window_lock_while_valid);
	tcase_add_checked_fixture(full, use, NULL);
	tcase_add_checked_fixture(full, full_setup, teardown);
	tcase_add_test(full, queue_config_frozen_while_enabled);
	tcase_add_test(full, reset_magic);
	tcase_add_test(full, gstat_and_int_status_w1c);
	tcase_add_test(full, errlog_fields_and_count);
	tcase_set_timeout(full, 60);
	suite_add_tcase(s, bare);
	suite_add_tcase(s, full);
	return s;
}

TPU_TEST_SUITE(suite_golden_regs)
static Suite *suite_golden_regs(void)
{
	return build("golden_regs", GFX_GOLDEN);
}

/* The same tests on the Verilated device, checked against a golden shadow (golden_fixture.h). */
TPU_TEST_SUITE(suite_sim_golden_regs)
static Suite *suite_sim_golden_regs(void)
{
	return build("sim_golden_regs", GFX_SIM);
}
