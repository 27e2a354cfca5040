/* Driver: device URIs, open/close/info, raw registers, windows and tpu_strerror. */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "sim_model.h"
#include "tpu/tpu.h"

#define URI_SMALL "golden:n=8,ub_rows=64,acc_rows=32,fifo_tiles=2,queues=3,windows=5,qdepth=16,mem=1M"

START_TEST(open_default_and_info)
{
	struct tpu_info in;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open("golden:mem=1M", &dev), 0);
	ck_assert_str_eq(tpu_last_open_error(), "");
	ck_assert_int_eq(tpu_get_info(dev, &in), 0);
	ck_assert_uint_eq(in.id, TPU_ID);
	ck_assert_uint_eq(in.version, (TPU_VERSION_MAJOR << 16) | (TPU_VERSION_MINOR << 8) |
					      TPU_VERSION_PATCH);
	ck_assert_uint_eq(in.array_n, TPU_ARRAY_N_DEFAULT);
	ck_assert_uint_eq(in.ub_rows, TPU_UB_ROWS_DEFAULT);
	ck_assert_uint_eq(in.acc_rows, TPU_ACC_ROWS_DEFAULT);
	ck_assert_uint_eq(in.fifo_tiles, TPU_FIFO_TILES_DEFAULT);
	ck_assert_uint_eq(in.num_queues, TPU_NUM_QUEUES_DEFAULT);
	ck_assert_uint_eq(in.num_windows, TPU_NUM_WINDOWS_DEFAULT);
	ck_assert_uint_eq(in.max_queue_entries, TPU_MAX_QUEUE_ENTRIES_DEFAULT);
	ck_assert_uint_eq(in.queue_depth, 256);
	ck_assert_str_eq(in.backend, "golden");
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(open_with_options)
{
	struct tpu_info in;
	uint32_t v;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open(URI_SMALL, &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, &in), 0);
	ck_assert_uint_eq(in.array_n, 8);
	ck_assert_uint_eq(in.ub_rows, 64);
	ck_assert_uint_eq(in.acc_rows, 32);
	ck_assert_uint_eq(in.fifo_tiles, 2);
	ck_assert_uint_eq(in.num_queues, 3);
	ck_assert_uint_eq(in.num_windows, 5);
	ck_assert_uint_eq(in.queue_depth, 16);
	/* every queue programmed with the driver's depth, and the controller live */
	for (unsigned q = 0; q < 3; q++) {
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_SQ_SIZE(q), &v), 0);
		ck_assert_uint_eq(v, 16);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_CQ_SIZE(q), &v), 0);
		ck_assert_uint_eq(v, 16);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_Q_STATUS(q), &v), 0);
		ck_assert_uint_eq(v & TPU_Q_STATUS_ACTIVE_MASK, TPU_Q_STATUS_ACTIVE_MASK);
	}
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_CSTS, &v), 0);
	ck_assert_uint_eq(v, TPU_CSTS_RDY_MASK);
	/* window 0 covers the arena, read and write */
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_PERM(0), &v), 0);
	ck_assert_uint_eq(v, TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK);
	ck_assert_int_eq(tpu_close(dev), 0);

	/* hex values, suffixes of mem, a small queue depth */
	ck_assert_int_eq(tpu_open("golden:n=0x10,mem=256k,qdepth=2", &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, &in), 0);
	ck_assert_uint_eq(in.array_n, 16);
	ck_assert_uint_eq(in.queue_depth, 2);
	ck_assert_int_eq(tpu_close(dev), 0);
	/* qdepth defaults to the device's largest queue when that is smaller */
	ck_assert_int_eq(tpu_open("golden:max_queue_entries=64,mem=1M", &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, &in), 0);
	ck_assert_uint_eq(in.queue_depth, 64);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

struct bad_uri {
	const char *uri;
	int err;
	const char *msg_has; /* substring of tpu_last_open_error() */
};

static const struct bad_uri bad_uris[] = {
	{ "gold", -ENOENT, "gold" },
	{ "", -ENOENT, "unknown backend" },
	{ "nosuch:n=4", -ENOENT, "nosuch" },
	{ "golden:n=3", -EINVAL, "'n': 3 is out of range 4..256" },
	{ "golden:n=257", -EINVAL, "4..256" },
	{ "golden:ub_rows=15", -EINVAL, "'ub_rows'" },
	{ "golden:acc_rows=2000000", -EINVAL, "'acc_rows'" },
	{ "golden:fifo_tiles=0", -EINVAL, "'fifo_tiles': 0 is out of range 1..16" },
	{ "golden:fifo_tiles=17", -EINVAL, "1..16" },
	{ "golden:queues=9", -EINVAL, "'queues'" },
	{ "golden:windows=16", -EINVAL, "'windows'" },
	{ "golden:qdepth=1", -EINVAL, "'qdepth': 1 is out of range 2..65536" },
	{ "golden:qdepth=65537", -EINVAL, "'qdepth'" },
	{ "golden:mem=1", -EINVAL, "'mem'" },
	{ "golden:mem=8G", -EINVAL, "'mem'" },
	{ "golden:mem=12X", -EINVAL, "'mem': '12X' is not a number" },
	{ "golden:n=abc", -EINVAL, "'n': 'abc' is not a number" },
	{ "golden:n=", -EINVAL, "'n'" },
	{ "golden:n=-4", -EINVAL, "'n'" },
	{ "golden:n=99999999999999999999999", -EINVAL, "'n'" },
	{ "golden:n", -EINVAL, "key=value" },
	{ "golden:n=8,,ub_rows=64", -EINVAL, "empty option" },
	{ "golden:n=8,n=8", -EINVAL, "'n' given twice" },
	{ "golden:bogus=1", -EINVAL, "bogus=1" },
	{ "golden:bf16=2", -EINVAL, "'bf16': '2' is not 0 or 1" },
	{ "golden:bf16=", -EINVAL, "'bf16': '' is not 0 or 1" },
	{ "golden:bf16=yes", -EINVAL, "'bf16': 'yes' is not 0 or 1" },
	{ "golden:bf16=1,bf16=0", -EINVAL, "'bf16' given twice" },
	{ "golden:bf16", -EINVAL, "key=value" },
	{ "golden:max_queue_entries=64,qdepth=128", -EINVAL, "'qdepth': 128 exceeds" },
	{ NULL, -EINVAL, "NULL" },
};

START_TEST(open_rejects_bad_uris)
{
	for (size_t i = 0; i < sizeof(bad_uris) / sizeof(bad_uris[0]); i++) {
		const struct bad_uri *b = &bad_uris[i];
		tpu_dev *dev = (tpu_dev *)&dev; /* must be cleared */
		int err = tpu_open(b->uri, &dev);
		ck_assert_msg(err == b->err, "%s: got %d, want %d", b->uri ? b->uri : "NULL", err,
			      b->err);
		ck_assert_ptr_null(dev);
		ck_assert_msg(strstr(tpu_last_open_error(), b->msg_has) != NULL,
			      "%s: message '%s' lacks '%s'", b->uri ? b->uri : "NULL",
			      tpu_last_open_error(), b->msg_has);
	}
	ck_assert_int_eq(tpu_open("golden", NULL), -EINVAL);
	ck_assert_ptr_nonnull(tpu_last_open_error());
}
END_TEST

START_TEST(null_device_everywhere)
{
	struct tpu_info in;
	struct tpu_perf pf;
	struct tpu_err_info ei;
	struct tpu_cmd cmd;
	struct tpu_cpl cpl;
	tpu_buf *buf;
	uint32_t v;

	ck_assert_int_eq(tpu_close(NULL), -EINVAL);
	ck_assert_int_eq(tpu_get_info(NULL, &in), -EINVAL);
	ck_assert_int_eq(tpu_reset(NULL), -EINVAL);
	ck_assert_int_eq(tpu_buf_alloc(NULL, 64, &buf), -EINVAL);
	ck_assert_int_eq(tpu_buf_free(NULL), -EINVAL);
	ck_assert_ptr_null(tpu_buf_ptr(NULL));
	ck_assert_uint_eq(tpu_buf_iova(NULL), 0);
	ck_assert_uint_eq(tpu_buf_len(NULL), 0);
	ck_assert_int_eq(tpu_window_set(NULL, 0, 0, 1, TPU_WIN_R), -EINVAL);
	ck_assert_int_eq(tpu_cmd_nop(&cmd), 0);
	ck_assert_int_eq(tpu_submit(NULL, 0, &cmd, 1), -EINVAL);
	ck_assert_int_eq(tpu_poll(NULL, 0, &cpl, 1), -EINVAL);
	ck_assert_int_eq(tpu_wait(NULL, 0, &cpl, 1, 1, 0), -EINVAL);
	ck_assert_int_eq(tpu_run(NULL, &cmd, 1, NULL, 0), -EINVAL);
	ck_assert_uint_eq(tpu_outstanding(NULL, 0), 0);
	ck_assert_uint_eq(tpu_bogus_cqes(NULL), 0);
	ck_assert_int_eq(tpu_reg_read(NULL, 0, &v), -EINVAL);
	ck_assert_int_eq(tpu_reg_write(NULL, 0, 0), -EINVAL);
	ck_assert_int_eq(tpu_error_info(NULL, &ei), -EINVAL);
	ck_assert_int_eq(tpu_error_clear(NULL, 0), -EINVAL);
	ck_assert_int_eq(tpu_perf_read(NULL, &pf), -EINVAL);
	ck_assert_int_eq(tpu_perf_clear(NULL), -EINVAL);
	ck_assert_ptr_nonnull(tpu_gemm_last_error(NULL));
	tpu_cmd_set_tag(NULL, 1);
	tpu_cmd_set_flags(NULL, 1);
	tpu_gemm_params_init(NULL);
}
END_TEST

START_TEST(null_outputs_and_ranges)
{
	struct tpu_cmd cmd;
	struct tpu_cpl cpl;
	tpu_dev *dev;
	uint32_t v;

	ck_assert_int_eq(tpu_open(URI_SMALL, &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, NULL), -EINVAL);
	ck_assert_int_eq(tpu_buf_alloc(dev, 64, NULL), -EINVAL);
	ck_assert_int_eq(tpu_error_info(dev, NULL), -EINVAL);
	ck_assert_int_eq(tpu_perf_read(dev, NULL), -EINVAL);
	ck_assert_int_eq(tpu_reg_read(dev, 0, NULL), -EINVAL);
	ck_assert_int_eq(tpu_reg_read(dev, 2, &v), -EINVAL);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_BAR0_SIZE, &v), -EINVAL);
	ck_assert_int_eq(tpu_reg_write(dev, 1, 0), -EINVAL);
	ck_assert_int_eq(tpu_reg_write(dev, TPU_BAR0_SIZE, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_nop(&cmd), 0);
	ck_assert_int_eq(tpu_submit(dev, 0, NULL, 1), -EINVAL);
	ck_assert_int_eq(tpu_submit(dev, 0, &cmd, 0), -EINVAL);
	ck_assert_int_eq(tpu_submit(dev, 3, &cmd, 1), -EINVAL); /* queues=3 */
	ck_assert_int_eq(tpu_poll(dev, 3, &cpl, 1), -EINVAL);
	ck_assert_int_eq(tpu_poll(dev, 0, NULL, 1), -EINVAL);
	ck_assert_int_eq(tpu_wait(dev, 3, &cpl, 1, 1, 0), -EINVAL);
	ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 2, 1, 0), -EINVAL);
	ck_assert_int_eq(tpu_wait(dev, 0, NULL, 1, 1, 0), -EINVAL);
	/* waiting for more than is outstanding could never end */
	ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, -1), -EINVAL);
	ck_assert_int_eq(tpu_run(dev, NULL, 1, NULL, 0), -EINVAL);
	ck_assert_int_eq(tpu_run(dev, &cmd, 0, NULL, 0), -EINVAL);
	ck_assert_uint_eq(tpu_outstanding(dev, 7), 0);
	ck_assert_int_eq(tpu_poll(dev, 2, &cpl, 1), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* golden:bf16=1 is the golden device with the bf16 mode (FEATURES.BF16); sim:bf16=1 picks the
 * Verilated model built with it (n=8), FEATURES and IDENTIFY byte 32 say so, and a size that has
 * no bf16 model is refused with a message naming it. */
START_TEST(open_bf16_option)
{
	static const char *const uris[] = { "golden:mem=1M", "golden:bf16=0,mem=1M",
					    "golden:mem=1M,bf16=1,n=8", "sim:bf16=1,mem=1M" };
	tpu_dev *dev;
	uint32_t v;

	for (unsigned i = 0; i < 4; i++) {
		if (i == 3 && !tpu_sim_model_find(8, 1))
			break;
		ck_assert_int_eq(tpu_open(uris[i], &dev), 0);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_FEATURES, &v), 0);
		ck_assert_uint_eq(v, (i >= 2 ? TPU_FEATURES_BF16_MASK : 0) | TPU_FEATURES_ROUND_MASK);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_HWCFG0, &v), 0);
		if (i >= 2)
			ck_assert_uint_eq(v & 0xFFFFu, 8);
		ck_assert_int_eq(tpu_close(dev), 0);
	}
	if (tpu_sim_model_find(16, 0)) {
		ck_assert_int_eq(tpu_open("sim:bf16=0", &dev), 0);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_FEATURES, &v), 0);
		ck_assert_uint_eq(v, TPU_FEATURES_ROUND_MASK);
		ck_assert_int_eq(tpu_close(dev), 0);
		ck_assert_int_eq(tpu_open("sim:bf16=1,n=4", &dev), -EINVAL);
		ck_assert_ptr_null(dev);
		ck_assert_ptr_nonnull(strstr(tpu_last_open_error(), "n=4 with bf16=1"));
		ck_assert_int_eq(tpu_open("sim:bf16=2", &dev), -EINVAL);
		ck_assert_ptr_null(dev);
	}
	/* n=16 names the N = 16 bf16 model; without n, bf16=1 stays the N = 8 one (above) */
	if (tpu_sim_model_find(16, 1)) {
		ck_assert_int_eq(tpu_open("sim:bf16=1,n=16,mem=1M", &dev), 0);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_FEATURES, &v), 0);
		ck_assert_uint_eq(v, TPU_FEATURES_BF16_MASK | TPU_FEATURES_ROUND_MASK);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_HWCFG0, &v), 0);
		ck_assert_uint_eq(v & 0xFFFFu, 16);
		ck_assert_int_eq(tpu_close(dev), 0);
	}
}
END_TEST

/* golden:stream=0 is a device built without STREAM_MATMUL (as the small boards and the bf16 sim
 * model): OPCODES and IDENTIFY byte 24 lack bit 9 and the opcode is INVALID_OPCODE, nothing else
 * changes; stream=2 is refused naming the option. */
START_TEST(open_stream_option)
{
	struct tpu_info info;
	struct tpu_cmd cmd;
	tpu_buf *buf;
	tpu_dev *dev;
	uint32_t ident;

	for (unsigned st = 0; st < 2; st++) {
		ck_assert_int_eq(tpu_open(st ? "golden:stream=1,n=8,mem=1M" : "golden:n=8,stream=0,mem=1M",
					  &dev), 0);
		ck_assert_int_eq(tpu_get_info(dev, &info), 0);
		ck_assert_uint_eq(info.opcodes >> TPU_OP_STREAM_MATMUL & 1u, st);
		ck_assert_uint_eq(info.opcodes | 1u << TPU_OP_STREAM_MATMUL, (1u << TPU_OP_COUNT) - 1u);
		ck_assert_int_eq(tpu_buf_alloc(dev, TPU_IDENTIFY_BYTES, &buf), 0);
		ck_assert_int_eq(tpu_cmd_identify(&cmd, buf, 0), 0);
		ck_assert_int_eq(tpu_run(dev, &cmd, 1, NULL, 5000), 0);
		memcpy(&ident, (const uint8_t *)tpu_buf_ptr(buf) + 24, 4);
		ck_assert_uint_eq(ident, info.opcodes);
		memset(&cmd, 0, sizeof(cmd));
		cmd.dw[0] = TPU_OP_STREAM_MATMUL;
		ck_assert_int_eq(tpu_run(dev, &cmd, 1, NULL, 5000),
				 st ? TPU_STATUS(TPU_SC_INVALID_FIELD, 0) : TPU_STATUS(TPU_SC_INVALID_OPCODE, 0));
		ck_assert_int_eq(tpu_buf_free(buf), 0);
		ck_assert_int_eq(tpu_close(dev), 0);
	}
	ck_assert_int_eq(tpu_open("golden:stream=2", &dev), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_last_open_error(), "'stream'"));
}
END_TEST

START_TEST(registers_read_write)
{
	tpu_dev *dev;
	uint32_t v;

	ck_assert_int_eq(tpu_open(URI_SMALL, &dev), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_ID, &v), 0);
	ck_assert_uint_eq(v, TPU_ID);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_HWCFG1, &v), 0);
	ck_assert_uint_eq(v, 64);
	ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_MSI_DATA, 0xFFFFFFFFu), 0);
	/* all-ones is a legal value of MSI_DATA: the device is still there */
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_MSI_DATA, &v), 0);
	ck_assert_uint_eq(v, 0xFFFFFFFFu);
	ck_assert_int_eq(tpu_reg_read(dev, 0xFFC, &v), 0); /* unmapped reads 0 */
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(two_devices_are_independent)
{
	tpu_dev *a, *b;
	tpu_buf *ba, *bb;
	struct tpu_info ia, ib;

	ck_assert_int_eq(tpu_open("golden:n=4,mem=1M", &a), 0);
	ck_assert_int_eq(tpu_open("golden:n=8,mem=1M", &b), 0);
	ck_assert_int_eq(tpu_get_info(a, &ia), 0);
	ck_assert_int_eq(tpu_get_info(b, &ib), 0);
	ck_assert_uint_eq(ia.array_n, 4);
	ck_assert_uint_eq(ib.array_n, 8);
	ck_assert_int_eq(tpu_buf_alloc(a, 100, &ba), 0);
	ck_assert_int_eq(tpu_buf_alloc(b, 100, &bb), 0);
	/* distinct IOVA spaces: a buffer of one device is never one of the other */
	ck_assert_uint_ne(tpu_buf_iova(ba), tpu_buf_iova(bb));
	ck_assert_int_eq(tpu_close(a), 0);
	/* b's buffers are untouched by a's close */
	memset(tpu_buf_ptr(bb), 7, 100);
	ck_assert_int_eq(tpu_buf_free(bb), 0);
	ck_assert_int_eq(tpu_close(b), 0);
}
END_TEST

START_TEST(buffers_alloc_and_free)
{
	tpu_dev *dev;
	tpu_buf *b[8];

	ck_assert_int_eq(tpu_open("golden:mem=256k,qdepth=4", &dev), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 0, &b[0]), -EINVAL);
	for (int i = 0; i < 8; i++) {
		const uint8_t *p;
		ck_assert_int_eq(tpu_buf_alloc(dev, 1000 + (size_t)i, &b[i]), 0);
		p = tpu_buf_ptr(b[i]);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(tpu_buf_iova(b[i]) % 64, 0);
		ck_assert_uint_eq((uintptr_t)p % 64, 0);
		ck_assert_uint_eq(tpu_buf_len(b[i]), 1000 + (size_t)i);
		for (int j = 0; j < 1000 + i; j++)
			ck_assert_uint_eq(p[j], 0);
		memset(tpu_buf_ptr(b[i]), 0xA5, 1000);
	}
	/* arena exhausted -> -ENOMEM, nothing leaked */
	{
		tpu_buf *big = (tpu_buf *)&big;
		ck_assert_int_eq(tpu_buf_alloc(dev, 1u << 20, &big), -ENOMEM);
		ck_assert_ptr_null(big);
	}
	for (int i = 0; i < 8; i += 2)
		ck_assert_int_eq(tpu_buf_free(b[i]), 0);
	/* double free: caught, not a crash */
	ck_assert_int_eq(tpu_buf_free(b[0]), -EINVAL);
	ck_assert_ptr_null(tpu_buf_ptr(b[0]));
	/* freed memory is reusable and comes back zeroed */
	{
		tpu_buf *again;
		const uint8_t *p;
		ck_assert_int_eq(tpu_buf_alloc(dev, 1000, &again), 0);
		p = tpu_buf_ptr(again);
		for (int j = 0; j < 1000; j++)
			ck_assert_uint_eq(p[j], 0);
	}
	/* the rest is freed by close */
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(window_set_checks_and_shadow)
{
	tpu_dev *dev;
	uint32_t v;

	ck_assert_int_eq(tpu_open(URI_SMALL, &dev), 0); /* windows=5 */
	ck_assert_int_eq(tpu_window_set(dev, 5, 0x1000, 0x1000, TPU_WIN_R), -EINVAL);
	ck_assert_int_eq(tpu_window_set(dev, 1, 0x1000, 0x1000, 4), -EINVAL);
	ck_assert_int_eq(tpu_window_set(dev, 1, UINT64_MAX - 10, 12, TPU_WIN_R), -EINVAL);
	/* a window that ends exactly at 2^64 - 1 is fine */
	ck_assert_int_eq(tpu_window_set(dev, 1, UINT64_MAX - 10, 11, TPU_WIN_R), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_LIMIT_HI(1), &v), 0);
	ck_assert_uint_eq(v, 0xFFFFFFFFu);
	ck_assert_int_eq(tpu_window_set(dev, 4, 0x123456789000ull, 0x2000, TPU_WIN_W), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_BASE_LO(4), &v), 0);
	ck_assert_uint_eq(v, 0x56789000u);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_BASE_HI(4), &v), 0);
	ck_assert_uint_eq(v, 0x1234u);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_LIMIT_LO(4), &v), 0);
	ck_assert_uint_eq(v, 0x5678AFFFu);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_PERM(4), &v), 0);
	ck_assert_uint_eq(v, TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_W_MASK);
	/* rewriting a valid window works (the driver clears VALID first) */
	ck_assert_int_eq(tpu_window_set(dev, 4, 0x4000, 0x1000, TPU_WIN_R | TPU_WIN_W), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_BASE_LO(4), &v), 0);
	ck_assert_uint_eq(v, 0x4000u);
	ck_assert_int_eq(tpu_window_set(dev, 1, 0, 0, 0), 0); /* len 0 disables */
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_PERM(1), &v), 0);
	ck_assert_uint_eq(v, 0);
	/* the reset restores the shadow */
	ck_assert_int_eq(tpu_reset(dev), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_BASE_LO(4), &v), 0);
	ck_assert_uint_eq(v, 0x4000u);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_PERM(4), &v), 0);
	ck_assert_uint_eq(v, TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_PERM(1), &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_WIN_PERM(0), &v), 0);
	ck_assert_uint_eq(v, TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(strerror_covers_every_code)
{
	static const int errs[] = { -EINVAL, -ENOENT, -ENODEV, -ENOMEM, -EBUSY,
				    -EAGAIN, -EIO,    -ETIMEDOUT, -ERANGE, -ENOTSUP };
	const char *texts[64];
	int n = 0;

	texts[n++] = tpu_strerror(0);
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		texts[n++] = tpu_strerror(errs[i]);
#define X(name, value, dnr, text)                                         \
	if ((value) != 0) {                                               \
		texts[n] = tpu_strerror(TPU_STATUS(value, 0));            \
		ck_assert_ptr_nonnull(strstr(texts[n], text));            \
		n++;                                                      \
	}
	TPU_STATUS_LIST(X)
#undef X
	texts[n++] = tpu_strerror(-12345);            /* unknown errno */
	texts[n++] = tpu_strerror(TPU_STATUS(0x7F, 0)); /* unknown status */
	for (int i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(texts[i]);
		ck_assert_uint_gt(strlen(texts[i]), 0);
		for (int j = 0; j < i; j++)
			ck_assert_msg(strcmp(texts[i], texts[j]) != 0, "codes %d and %d share '%s'",
				      i, j, texts[i]);
	}
	ck_assert_ptr_nonnull(tpu_strerror(TPU_STATUS(0x02, 3)));
	ck_assert_ptr_nonnull(tpu_strerror(0x7FFFFFFF));
	ck_assert_ptr_nonnull(tpu_strerror(-2147483647 - 1));
	ck_assert_ptr_nonnull(tpu_strerror(-EXDEV));
}
END_TEST

TPU_TEST_SUITE(suite_driver_open)
static Suite *suite_driver_open(void)
{
	Suite *s = suite_create("driver_open");
	TCase *tc = tcase_create("open");
	tcase_add_test(tc, open_default_and_info);
	tcase_add_test(tc, open_with_options);
	tcase_add_test(tc, open_rejects_bad_uris);
	tcase_add_test(tc, null_device_everywhere);
	tcase_add_test(tc, null_outputs_and_ranges);
	tcase_add_test(tc, open_bf16_option);
	tcase_add_test(tc, open_stream_option);
	tcase_add_test(tc, registers_read_write);
	tcase_add_test(tc, two_devices_are_independent);
	tcase_add_test(tc, buffers_alloc_and_free);
	tcase_add_test(tc, window_set_checks_and_shadow);
	tcase_add_test(tc, strerror_covers_every_code);
	suite_add_tcase(s, tc);
	return s;
}
