/* Driver: command builders, submission, completion, reset and robustness, on the golden backend.
 * White-box where a fault must be injected: the test swaps the device's backend vtable for a
 * shim (a frozen or vanished device) and writes into CQ memory (bogus CQEs). */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "sim_model.h"
#include "tpu/tpu.h"

#define URI "golden:n=8,ub_rows=64,acc_rows=32,fifo_tiles=2,qdepth=8,mem=1M"

#define SQE_FIELD(cmd, F) (((cmd)->dw[TPU_SQE_##F##_DW] >> TPU_SQE_##F##_SHIFT) & TPU_SQE_##F##_MASK)

/* ------------------------------------------------------------------ backend shim */

static const struct tpu_backend_ops *real_ops;
static int shim_frozen;  /* advance does nothing */
static int shim_gone;    /* every read is all-ones */

static int shim_create(const struct tpu_backend_opts *o, struct hostmem *hm, void **impl,
		       const char **what)
{
	return real_ops->create(o, hm, impl, what);
}
static void shim_destroy(void *impl)
{
	real_ops->destroy(impl);
}
static uint32_t shim_read(void *impl, uint32_t off)
{
	return shim_gone ? 0xFFFFFFFFu : real_ops->mmio_read(impl, off);
}
static void shim_write(void *impl, uint32_t off, uint32_t val)
{
	if (!shim_gone)
		real_ops->mmio_write(impl, off, val);
}
static int shim_advance(void *impl)
{
	return shim_frozen || shim_gone ? 0 : real_ops->advance(impl);
}

static const struct tpu_backend_ops shim_ops = {
	.name = "shim", .create = shim_create, .destroy = shim_destroy, .mmio_read = shim_read,
	.mmio_write = shim_write, .advance = shim_advance,
};

static tpu_dev *open_shimmed(const char *uri)
{
	tpu_dev *dev;
	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	real_ops = dev->ops;
	shim_frozen = shim_gone = 0;
	dev->ops = &shim_ops;
	return dev;
}

static void nops(struct tpu_cmd *c, unsigned n, uint32_t tag0)
{
	for (unsigned i = 0; i < n; i++) {
		ck_assert_int_eq(tpu_cmd_nop(&c[i]), 0);
		tpu_cmd_set_tag(&c[i], tag0 + i);
	}
}

/* ------------------------------------------------------------------ builders */

START_TEST(builders_fill_fields)
{
	tpu_dev *dev;
	tpu_buf *b;
	struct tpu_cmd c;
	uint64_t iova;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 4096, &b), 0);
	iova = tpu_buf_iova(b);

	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 16, 100, 5, 3, 8), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, OPCODE), TPU_OP_READ_HOST);
	ck_assert_uint_eq(SQE_FIELD(&c, HOST_ADDR_LO) | (uint64_t)SQE_FIELD(&c, HOST_ADDR_HI) << 32,
			  iova + 16);
	ck_assert_uint_eq(SQE_FIELD(&c, LENGTH), 2 * 100 + 8);
	ck_assert_uint_eq(SQE_FIELD(&c, STRIDE), 100);
	ck_assert_uint_eq(SQE_FIELD(&c, LOCAL_ADDR), 5);
	ck_assert_uint_eq(SQE_FIELD(&c, ROWS), 3);
	ck_assert_uint_eq(SQE_FIELD(&c, COLS), 8);
	for (int i = 10; i < 16; i++)
		ck_assert_uint_eq(c.dw[i], 0);

	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 0, 0, 2, 4, 3, 1), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, OPCODE), TPU_OP_WRITE_HOST);
	ck_assert_uint_eq(SQE_FIELD(&c, LENGTH), 4 * 12);
	ck_assert_uint_eq(SQE_FIELD(&c, OP0), TPU_WRITE_HOST_FROM_ACC);

	ck_assert_int_eq(tpu_cmd_load_weights(&c, b, 0, 0, 8, 8, 1), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, OP0), TPU_LOAD_WEIGHTS_TRANSPOSE);
	ck_assert_uint_eq(SQE_FIELD(&c, LENGTH), 64);

	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_SHIFT, b, 32, 2, 5), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, OP0), TPU_PARAM_SHIFT);
	ck_assert_uint_eq(SQE_FIELD(&c, LENGTH), 20);
	ck_assert_uint_eq(SQE_FIELD(&c, COLS), 5);
	ck_assert_uint_eq(SQE_FIELD(&c, ROWS), 1);
	ck_assert_uint_eq(SQE_FIELD(&c, LOCAL_ADDR), 2);

	ck_assert_int_eq(tpu_cmd_load_output(&c, -3, -100, 90), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, OP0), TPU_PARAM_OUTPUT);
	ck_assert_int_eq((int32_t)SQE_FIELD(&c, OP1), -3);
	ck_assert_int_eq((int32_t)SQE_FIELD(&c, OP2), -100);
	ck_assert_int_eq((int32_t)SQE_FIELD(&c, OP3), 90);
	ck_assert_uint_eq(SQE_FIELD(&c, LENGTH), 0);

	ck_assert_int_eq(tpu_cmd_matmul(&c, 1, 2, 3, TPU_MATMUL_POP | TPU_MATMUL_ACCUMULATE), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, LOCAL_ADDR2), 2);
	ck_assert_uint_eq(SQE_FIELD(&c, OP0), 3);
	ck_assert_int_eq(tpu_cmd_fence(&c, b, 8, 0x1122334455667788ull), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, OP0), 0x55667788u);
	ck_assert_uint_eq(SQE_FIELD(&c, OP1), 0x11223344u);
	ck_assert_uint_eq(SQE_FIELD(&c, LENGTH), 8);
	ck_assert_int_eq(tpu_cmd_fence(&c, NULL, 0, 5), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, HOST_ADDR_LO), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, OP0), 0);
	ck_assert_int_eq(tpu_cmd_identify(&c, b, 0), 0);
	ck_assert_uint_eq(SQE_FIELD(&c, LENGTH), TPU_IDENTIFY_BYTES);

	tpu_cmd_set_tag(&c, 0xDEADBEEF);
	tpu_cmd_set_flags(&c, TPU_SQE_FLAG_FENCE | TPU_SQE_FLAG_IRQ);
	ck_assert_uint_eq(SQE_FIELD(&c, USER_TAG), 0xDEADBEEF);
	ck_assert_uint_eq(SQE_FIELD(&c, FLAGS), 3);
	ck_assert_uint_eq(SQE_FIELD(&c, OPCODE), TPU_OP_IDENTIFY);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(builders_host_checks)
{
	tpu_dev *dev;
	tpu_buf *b, *dead;
	struct tpu_cmd c;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &b), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &dead), 0);
	ck_assert_int_eq(tpu_buf_free(dead), 0);

	ck_assert_int_eq(tpu_cmd_nop(NULL), -EINVAL);
	ck_assert_int_eq(tpu_cmd_read_host(NULL, b, 0, 0, 0, 1, 1), -EINVAL);
	ck_assert_int_eq(tpu_cmd_read_host(&c, NULL, 0, 0, 0, 1, 1), -EINVAL);
	ck_assert_int_eq(tpu_cmd_read_host(&c, dead, 0, 0, 0, 1, 1), -EINVAL);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 0, 1), -EINVAL);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 1, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 4, 0, 2, 8), -EINVAL); /* stride < row */
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 32, 8), 0);     /* exactly 256 */
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 1, 0, 0, 32, 8), -ERANGE);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 300, 0, 0, 1, 1), -ERANGE);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0xFFFFFFFFu, 0, 3, 1), -ERANGE);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, SIZE_MAX, 0, 0, 1, 1), -ERANGE);
	ck_assert_int_eq(tpu_cmd_load_weights(&c, b, 0, 0, 0, 4, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_weights(&c, b, 0, 0, 17, 16, 0), -ERANGE);
	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_BIAS, b, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_BIAS, b, 0, 0, 65), -ERANGE);
	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_LUT, b, 0, 0, 255), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_LUT, b, 0, 1, 256), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_LUT, b, 1, 0, 256), -ERANGE);
	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_LUT, b, 0, 0, 256), 0);
	ck_assert_int_eq(tpu_cmd_load_params(&c, TPU_PARAM_OUTPUT, b, 0, 0, 1), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_params(&c, (enum tpu_param_kind)9, b, 0, 0, 1), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_output(&c, 128, 0, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_output(&c, 0, -129, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_output(&c, 0, 5, 4), -EINVAL);
	ck_assert_int_eq(tpu_cmd_load_output(NULL, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_matmul(&c, 0, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_matmul(&c, 0, 0, 1, 4), -EINVAL);
	ck_assert_int_eq(tpu_cmd_activate(&c, 0, 0, 1, TPU_ACTIVATE_LUT | TPU_ACTIVATE_RAW32),
			 -EINVAL);
	ck_assert_int_eq(tpu_cmd_activate(&c, 0, 0, 1, 4), -EINVAL);
	ck_assert_int_eq(tpu_cmd_activate(&c, 0, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 0, 0, 0, 1, 65, 1), -ERANGE);
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 0, 8, 0, 2, 4, 1), -EINVAL); /* 16-byte rows */
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 0, 0, 0, 1, 64, 1), 0);
	ck_assert_int_eq(tpu_cmd_fence(&c, b, 4, 1), -EINVAL); /* not 8-byte aligned */
	ck_assert_int_eq(tpu_cmd_fence(&c, b, 256, 1), -ERANGE);
	ck_assert_int_eq(tpu_cmd_fence(NULL, NULL, 0, 0), -EINVAL);
	ck_assert_int_eq(tpu_cmd_identify(&c, b, 0), -ERANGE); /* 256 < 4096 */
	ck_assert_int_eq(tpu_cmd_identify(&c, NULL, 0), -EINVAL);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ------------------------------------------------------------------ submit and complete */

START_TEST(submit_poll_wait_nops)
{
	tpu_dev *dev;
	struct tpu_cmd c[5];
	struct tpu_cpl cpl[8];

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	nops(c, 5, 100);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 5), 5);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 5);
	/* CIDs are distinct */
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < i; j++)
			ck_assert_uint_ne(SQE_FIELD(&c[i], CID), SQE_FIELD(&c[j], CID));
	/* the golden device only runs when the driver lets it: nothing yet */
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 8), 0);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 2, 2, 1000), 2);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl + 2, 3, 8, 1000), 3);
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(cpl[i].cid, SQE_FIELD(&c[i], CID));
		ck_assert_uint_eq(cpl[i].user_tag, 100 + (unsigned)i);
		ck_assert_uint_eq(cpl[i].status, 0);
		ck_assert_uint_eq(cpl[i].sq_id, 0);
		ck_assert_uint_eq(cpl[i].result, 0);
		ck_assert_uint_eq(cpl[i].sq_head, (unsigned)(i + 1) % 8);
	}
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	ck_assert_uint_eq(tpu_bogus_cqes(dev), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(data_roundtrip_and_identify)
{
	tpu_dev *dev;
	tpu_buf *in, *outb, *id;
	struct tpu_cmd c[3];
	struct tpu_cpl cpl[3];
	uint8_t *pin, *pout;
	const uint32_t *page;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 5 * 10, &in), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 5 * 12, &outb), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, TPU_IDENTIFY_BYTES, &id), 0);
	pin = tpu_buf_ptr(in);
	pout = tpu_buf_ptr(outb);
	for (int i = 0; i < 50; i++)
		pin[i] = (uint8_t)(i * 7 + 1);
	memset(pout, 0xEE, 60);
	/* 5 rows of 6 int8 at stride 10 -> UB rows 3..7 -> host at stride 12 */
	ck_assert_int_eq(tpu_cmd_read_host(&c[0], in, 0, 10, 3, 5, 6), 0);
	ck_assert_int_eq(tpu_cmd_write_host(&c[1], outb, 0, 12, 3, 5, 6, 0), 0);
	ck_assert_int_eq(tpu_cmd_identify(&c[2], id, 0), 0);
	ck_assert_int_eq(tpu_run(dev, c, 3, cpl, 1000), 0);
	ck_assert_uint_eq(cpl[0].result, 30);
	ck_assert_uint_eq(cpl[1].result, 30);
	ck_assert_uint_eq(cpl[2].result, TPU_IDENTIFY_BYTES);
	for (int r = 0; r < 5; r++)
		for (int j = 0; j < 12; j++)
			ck_assert_uint_eq(pout[r * 12 + j], j < 6 ? pin[r * 10 + j] : 0xEE);
	page = tpu_buf_ptr(id);
	ck_assert_uint_eq(page[0], TPU_ID);
	ck_assert_uint_eq(page[3], 64);
	ck_assert_uint_eq(page[4], 32);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(run_returns_first_failure)
{
	tpu_dev *dev;
	struct tpu_cmd c[3];
	struct tpu_cpl cpl[3];

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_cmd_nop(&c[0]), 0);
	/* MATMUL with no weight tile: SEQUENCE_ERROR; then a UB range past the end */
	ck_assert_int_eq(tpu_cmd_matmul(&c[1], 0, 0, 1, 0), 0);
	ck_assert_int_eq(tpu_cmd_matmul(&c[2], 64, 0, 1, TPU_MATMUL_POP), 0);
	ck_assert_int_eq(tpu_run(dev, c, 3, cpl, 1000), TPU_STATUS(TPU_SC_SEQUENCE_ERROR, 0));
	ck_assert_uint_eq(cpl[0].status, 0);
	ck_assert_uint_eq(cpl[1].status, TPU_STATUS(TPU_SC_SEQUENCE_ERROR, 0));
	ck_assert_uint_eq(cpl[1].dnr, 1);
	/* tpu_run stops after the first failing batch; nothing is left behind */
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* Queue sizes 2, 3, 4: many passes through the ring, every command completes once, in order. */
START_TEST(phase_wraps)
{
	/* The same behaviour on the golden model and on the Verilated device (when built). */
	static const char *uris[] = { "golden:qdepth=2,mem=256k", "golden:qdepth=3,mem=256k",
				      "golden:qdepth=4,mem=256k",
				      "sim:n=8,latency=10,qdepth=2,mem=256k",
				      "sim:n=8,latency=10,qdepth=3,mem=256k",
				      "sim:n=8,latency=10,qdepth=4,mem=256k" };
	uint64_t seed = harness_seed();

	for (int u = 0; u < 6; u++) {
		tpu_dev *dev;
		struct tpu_info in;
		uint32_t tag = 0, next = 0;

		if (u >= 3 && !tpu_sim_model_find(8, 0))
			break;
		ck_assert_msg(tpu_open(uris[u], &dev) == 0, "%s", uris[u]);
		ck_assert_int_eq(tpu_get_info(dev, &in), 0);
		while (next < 40) {
			unsigned room = in.queue_depth - 1 - tpu_outstanding(dev, 0);
			struct tpu_cmd c[4];
			struct tpu_cpl cpl[4];
			unsigned n = room ? (unsigned)harness_range(&seed, 0, room) : 0;
			int got;

			if (n) {
				nops(c, n, tag);
				ck_assert_int_eq(tpu_submit(dev, 0, c, n), (int)n);
				tag += n;
			}
			if (!tpu_outstanding(dev, 0))
				continue;
			got = tpu_wait(dev, 0, cpl, 1, 4, 1000);
			ck_assert_int_ge(got, 1);
			for (int i = 0; i < got; i++)
				ck_assert_uint_eq(cpl[i].user_tag, next++);
		}
		ck_assert_uint_eq(tpu_bogus_cqes(dev), 0);
		ck_assert_int_eq(tpu_close(dev), 0);
	}
}
END_TEST

START_TEST(sq_full_is_all_or_nothing)
{
	tpu_dev *dev;
	struct tpu_cmd c[8];
	struct tpu_cpl cpl[8];
	uint8_t before[4 * TPU_SQE_BYTES];
	uint32_t qs;

	static const char *uris[] = { "golden:qdepth=4,mem=256k",
				      "sim:n=8,latency=10,qdepth=4,mem=256k" };

	if (_i == 1 && !tpu_sim_model_find(8, 0))
		return;
	ck_assert_int_eq(tpu_open(uris[_i], &dev), 0);
	nops(c, 8, 0);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 4), -EINVAL); /* more than a ring ever holds */
	ck_assert_int_eq(tpu_submit(dev, 0, c, 2), 2);
	memcpy(before, dev->q[0].sq, sizeof(before));
	ck_assert_int_eq(tpu_submit(dev, 0, c + 2, 2), -EAGAIN); /* 3 usable of 4 */
	ck_assert_int_eq(memcmp(before, dev->q[0].sq, sizeof(before)), 0);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 2);
	ck_assert_int_eq(tpu_submit(dev, 0, c + 2, 1), 1);
	ck_assert_int_eq(tpu_submit(dev, 0, c + 3, 1), -EAGAIN);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 3, 8, 1000), 3);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(cpl[i].user_tag, (unsigned)i);
	/* the device never saw a bad doorbell */
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_Q_STATUS(0), &qs), 0);
	ck_assert_uint_eq(qs & TPU_Q_STATUS_BROKEN_MASK, 0);
	ck_assert_int_eq(tpu_submit(dev, 0, c + 3, 3), 3);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 3, 3, 1000), 3);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(wait_timeout_keeps_completions)
{
	tpu_dev *dev = open_shimmed(URI);
	struct tpu_cmd c[2];
	struct tpu_cpl cpl[2];
	uint64_t t0;

	nops(c, 2, 7);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 1), 1);
	ck_assert_int_eq(tpu_dev_advance(dev, false), 1); /* the device completes the first */
	shim_frozen = 1;
	ck_assert_int_eq(tpu_submit(dev, 0, c + 1, 1), 1);
	t0 = tpu_now_ms();
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 2, 2, 30), -ETIMEDOUT);
	ck_assert_uint_ge(tpu_now_ms() - t0, 30);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 2);
	/* the completion reaped during the failed wait is not lost */
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 2), 1);
	ck_assert_uint_eq(cpl[0].user_tag, 7);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 1, 1, 0), -ETIMEDOUT);
	shim_frozen = 0;
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 1, 2, 1000), 1);
	ck_assert_uint_eq(cpl[0].user_tag, 8);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ------------------------------------------------------------------ buffers in flight */

START_TEST(busy_buffer_and_foreign_buffer)
{
	tpu_dev *dev, *other;
	tpu_buf *b, *ob;
	struct tpu_cmd c;
	struct tpu_cpl cpl;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_open(URI, &other), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 64, &b), 0);
	ck_assert_int_eq(tpu_buf_alloc(other, 64, &ob), 0);

	/* a buffer of another device is refused, nothing submitted */
	ck_assert_int_eq(tpu_cmd_read_host(&c, ob, 0, 0, 0, 1, 8), 0);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), -EINVAL);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);

	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 1, 8), 0);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), 1);
	ck_assert_int_eq(tpu_buf_free(b), -EBUSY);
	ck_assert_ptr_nonnull(tpu_buf_ptr(b));
	ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, 1000), 1);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_int_eq(tpu_buf_free(b), 0);
	ck_assert_int_eq(tpu_buf_free(b), -EINVAL);
	/* a freed buffer cannot be used either */
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 1, 8), -EINVAL);
	/* nor a raw command whose span leaves every buffer */
	ck_assert_int_eq(tpu_cmd_nop(&c), 0);
	c.dw[TPU_SQE_HOST_ADDR_LO_DW] = 0x1000;
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), -EINVAL);
	ck_assert_int_eq(tpu_close(dev), 0);
	ck_assert_int_eq(tpu_close(other), 0);
}
END_TEST

/* A STREAM_MATMUL's write-back region (HOST_ADDR2) is a second DMA span: it must lie in a live
 * buffer of this device, and that buffer is busy until the completion is returned, like the
 * stream's own. */
START_TEST(write_back_buffer_checked_and_busy)
{
	tpu_dev *dev, *other;
	tpu_buf *w, *o, *ob;
	struct tpu_cmd c;
	struct tpu_cpl cpl;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_open(URI, &other), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 128, &w), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 64, &o), 0);
	ck_assert_int_eq(tpu_buf_alloc(other, 64, &ob), 0);
	/* one block: 8 weight rows and the 4 bias rows of 8 bytes; 1 output row */
	ck_assert_int_eq(tpu_cmd_stream_matmul(&c, w, 0, 0, 8, 8, 1, 0, 1, 0, 0,
					       TPU_STREAM_MATMUL_ACTIVATE), 0);
	ck_assert_int_eq(tpu_cmd_stream_write_back(&c, ob, 0), 0);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), -EINVAL);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	/* a region that runs past its buffer's end */
	ck_assert_int_eq(tpu_cmd_stream_write_back(&c, o, 0), 0);
	c.dw[TPU_SQE_HOST_ADDR2_LO_DW] += 60;
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), -EINVAL);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);

	ck_assert_int_eq(tpu_cmd_stream_write_back(&c, o, 0), 0);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), 1);
	ck_assert_int_eq(tpu_buf_free(o), -EBUSY);
	ck_assert_int_eq(tpu_buf_free(w), -EBUSY);
	ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, 1000), 1);
	/* (no MULT/SHIFT/OUTPUT loaded: the device refuses it, which is not the point here) */
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_SEQUENCE_ERROR, 0));
	ck_assert_int_eq(tpu_buf_free(o), 0);
	ck_assert_int_eq(tpu_buf_free(w), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
	ck_assert_int_eq(tpu_close(other), 0);
}
END_TEST

/* ------------------------------------------------------------------ reset and faults */

START_TEST(reset_aborts_outstanding_once)
{
	tpu_dev *dev;
	tpu_buf *b;
	struct tpu_cmd c[6];
	struct tpu_cpl cpl[8];
	uint32_t v;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 64, &b), 0);
	nops(c, 3, 50);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 2), 2);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 2, 2, 1000), 2);
	/* 2 more NOPs and a READ_HOST, never given a chance to run */
	nops(c, 2, 60);
	ck_assert_int_eq(tpu_cmd_read_host(&c[2], b, 0, 0, 0, 1, 8), 0);
	tpu_cmd_set_tag(&c[2], 62);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 3), 3);
	ck_assert_int_eq(tpu_submit(dev, 1, c + 3, 0), -EINVAL);
	nops(c + 3, 1, 70);
	ck_assert_int_eq(tpu_submit(dev, 1, c + 3, 1), 1);
	ck_assert_int_eq(tpu_reset(dev), 0);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_CSTS, &v), 0);
	ck_assert_uint_eq(v, TPU_CSTS_RDY_MASK);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 3);
	ck_assert_int_eq(tpu_buf_free(b), -EBUSY);
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 8), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(cpl[i].user_tag, 60 + (unsigned)i);
		ck_assert_uint_eq(cpl[i].cid, SQE_FIELD(&c[i], CID));
		ck_assert_uint_eq(cpl[i].status, TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
	}
	ck_assert_int_eq(tpu_poll(dev, 1, cpl, 8), 1);
	ck_assert_uint_eq(cpl[0].user_tag, 70);
	ck_assert_uint_eq(cpl[0].status, TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
	/* exactly once: nothing more, ever */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(tpu_dev_advance(dev, false), 0);
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 8), 0);
	ck_assert_int_eq(tpu_poll(dev, 1, cpl, 8), 0);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	ck_assert_int_eq(tpu_buf_free(b), 0);
	/* the queues work again */
	nops(c, 3, 80);
	ck_assert_int_eq(tpu_run(dev, c, 3, cpl, 1000), 0);
	ck_assert_uint_eq(cpl[2].user_tag, 82);
	ck_assert_uint_eq(tpu_bogus_cqes(dev), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

static uint32_t *cqe_at(tpu_dev *dev, unsigned q, uint32_t idx)
{
	return (uint32_t *)(dev->q[q].cq + (size_t)idx * TPU_CQE_BYTES);
}

START_TEST(bogus_cqes_are_skipped)
{
	tpu_dev *dev;
	struct tpu_cmd c[4];
	struct tpu_cpl cpl[4];
	uint32_t *e;
	uint32_t head;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);

	/* 1. a posted CQE whose CID is not outstanding: counted, consumed, nothing completes */
	nops(c, 1, 1);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 1), 1);
	head = dev->q[0].cq_head;
	ck_assert_int_eq(tpu_dev_advance(dev, false), 1);
	e = cqe_at(dev, 0, head);
	e[TPU_CQE_CID_DW] ^= 0x5555u << TPU_CQE_CID_SHIFT;
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 4), 0);
	ck_assert_uint_eq(tpu_bogus_cqes(dev), 1);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 1); /* that NOP's real CQE is gone */

	/* 2. an entry below the device tail that still has the old phase has not landed yet (CQE
	 * writes are posted): nothing is consumed or counted until it does, then both complete */
	ck_assert_int_eq(tpu_reset(dev), 0);
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 4), 1);
	ck_assert_uint_eq(cpl[0].status, TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
	nops(c, 2, 10);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 2), 2);
	ck_assert_int_eq(tpu_dev_advance(dev, false), 1);
	e = cqe_at(dev, 0, 0);
	e[TPU_CQE_PHASE_DW] ^= 1u << TPU_CQE_PHASE_SHIFT;
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 4), 0);
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 2);
	e[TPU_CQE_PHASE_DW] ^= 1u << TPU_CQE_PHASE_SHIFT;
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 4), 2);
	ck_assert_uint_eq(cpl[0].user_tag, 10);
	ck_assert_uint_eq(cpl[1].user_tag, 11);
	ck_assert_uint_eq(tpu_bogus_cqes(dev), 1);

	/* 3. a wrong SQ id */
	nops(c, 1, 20);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 1), 1);
	head = dev->q[0].cq_head;
	ck_assert_int_eq(tpu_dev_advance(dev, false), 1);
	e = cqe_at(dev, 0, head);
	e[TPU_CQE_SQ_ID_DW] ^= 1u << TPU_CQE_SQ_ID_SHIFT;
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 4), 0);
	ck_assert_uint_eq(tpu_bogus_cqes(dev), 2);

	/* 4. a fake CQE planted beyond the device tail, with the right phase and an outstanding
	 * CID: never consumed (the device did not post it), and the real one replaces it */
	ck_assert_int_eq(tpu_reset(dev), 0);
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 4), 1); /* aborted: tag 20 */
	ck_assert_uint_eq(cpl[0].user_tag, 20);
	nops(c, 1, 30);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 1), 1);
	e = cqe_at(dev, 0, dev->q[0].cq_head);
	e[0] = 0xBAD;
	e[1] = 0xBAD;
	e[2] = 0;
	e[3] = (uint32_t)SQE_FIELD(&c[0], CID) | (1u << TPU_CQE_PHASE_SHIFT);
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 4), 0);
	ck_assert_uint_eq(tpu_bogus_cqes(dev), 2);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 1, 4, 1000), 1);
	ck_assert_uint_eq(cpl[0].user_tag, 30);
	ck_assert_uint_eq(cpl[0].result, 0);

	/* the queue was never broken by a head doorbell past the tail */
	{
		uint32_t qs;
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_Q_STATUS(0), &qs), 0);
		ck_assert_uint_eq(qs & TPU_Q_STATUS_BROKEN_MASK, 0);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(broken_queue_and_fatal_give_eio)
{
	tpu_dev *dev;
	struct tpu_cmd c[2];
	struct tpu_cpl cpl[2];
	struct tpu_err_info ei;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	nops(c, 2, 0);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 1), 1);
	/* a doorbell past the ring breaks the queue */
	ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_SQ_TAIL_DB(0), 100), 0);
	ck_assert_int_eq(tpu_error_info(dev, &ei), 0);
	ck_assert_uint_ne(ei.gstat & TPU_GSTAT_BAD_DOORBELL_MASK, 0);
	ck_assert_int_eq(tpu_submit(dev, 0, c + 1, 1), -EIO);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 1, 1, 1000), -EIO);
	ck_assert_int_eq(tpu_error_clear(dev, 0xFFFFFFFFu), 0);
	ck_assert_int_eq(tpu_error_info(dev, &ei), 0);
	ck_assert_uint_eq(ei.gstat, 0);
	/* the reset recovers and reports the stranded command */
	ck_assert_int_eq(tpu_reset(dev), 0);
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 2), 1);
	ck_assert_uint_eq(cpl[0].status, TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
	ck_assert_int_eq(tpu_run(dev, c, 1, cpl, 1000), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(vanished_device_gives_enodev)
{
	tpu_dev *dev = open_shimmed(URI);
	struct tpu_info in;
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	struct tpu_perf pf;
	uint32_t v;

	ck_assert_int_eq(tpu_cmd_nop(&c), 0);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), 1);
	shim_gone = 1;
	ck_assert_int_eq(tpu_get_info(dev, &in), -ENODEV);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_CSTS, &v), -ENODEV);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), -ENODEV);
	ck_assert_int_eq(tpu_poll(dev, 0, &cpl, 1), -ENODEV);
	ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, 100), -ENODEV);
	ck_assert_int_eq(tpu_reset(dev), -ENODEV);
	ck_assert_int_eq(tpu_perf_read(dev, &pf), -ENODEV);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(error_log_of_a_failing_command)
{
	tpu_dev *dev;
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	struct tpu_err_info ei;

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_cmd_matmul(&c, 0, 0, 1, 0), 0);
	ck_assert_int_eq(tpu_run(dev, &c, 1, &cpl, 1000), TPU_STATUS(TPU_SC_SEQUENCE_ERROR, 0));
	ck_assert_int_eq(tpu_error_info(dev, &ei), 0);
	ck_assert_uint_eq(ei.cid, cpl.cid);
	ck_assert_uint_eq(ei.opcode, TPU_OP_MATMUL);
	ck_assert_uint_eq(ei.qid, 0);
	ck_assert_uint_eq(ei.status, TPU_STATUS(TPU_SC_SEQUENCE_ERROR, 0));
	ck_assert_uint_eq(ei.count, 1);
	ck_assert_uint_ne(ei.gstat & TPU_GSTAT_CMD_ERROR_MASK, 0);
	ck_assert_int_eq(tpu_error_clear(dev, TPU_GSTAT_CMD_ERROR_MASK), 0);
	ck_assert_int_eq(tpu_error_info(dev, &ei), 0);
	ck_assert_uint_eq(ei.count, 0);
	ck_assert_uint_eq(ei.gstat & TPU_GSTAT_CMD_ERROR_MASK, 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(windows_are_enforced)
{
	tpu_dev *dev;
	tpu_buf *b;
	struct tpu_cmd c[2];
	struct tpu_cpl cpl[2];

	ck_assert_int_eq(tpu_open(URI, &dev), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 64, &b), 0);
	/* only b, read-only */
	ck_assert_int_eq(tpu_window_set(dev, 0, 0, 0, 0), 0);
	ck_assert_int_eq(tpu_window_set(dev, 1, tpu_buf_iova(b), 64, TPU_WIN_R), 0);
	ck_assert_int_eq(tpu_cmd_read_host(&c[0], b, 0, 0, 0, 8, 8), 0);
	ck_assert_int_eq(tpu_cmd_write_host(&c[1], b, 0, 0, 0, 8, 8, 0), 0);
	ck_assert_int_eq(tpu_run(dev, c, 2, cpl, 1000),
			 TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_uint_eq(cpl[0].status, 0);
	/* and still after a reset (the shadow) */
	ck_assert_int_eq(tpu_reset(dev), 0);
	ck_assert_int_eq(tpu_run(dev, c, 2, cpl, 1000),
			 TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_int_eq(tpu_window_set(dev, 1, tpu_buf_iova(b), 64, TPU_WIN_R | TPU_WIN_W), 0);
	ck_assert_int_eq(tpu_run(dev, c, 2, cpl, 1000), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(run_batches_beyond_the_ring)
{
	tpu_dev *dev;
	struct tpu_cmd c[50];
	struct tpu_cpl cpl[50];

	ck_assert_int_eq(tpu_open("golden:qdepth=4,mem=256k", &dev), 0);
	nops(c, 50, 1000);
	ck_assert_int_eq(tpu_run(dev, c, 50, cpl, 1000), 0);
	for (int i = 0; i < 50; i++)
		ck_assert_uint_eq(cpl[i].user_tag, 1000 + (unsigned)i);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

TPU_TEST_SUITE(suite_driver_queue)
static Suite *suite_driver_queue(void)
{
	Suite *s = suite_create("driver_queue");
	TCase *tc = tcase_create("queue");
	tcase_add_test(tc, builders_fill_fields);
	tcase_add_test(tc, builders_host_checks);
	tcase_add_test(tc, submit_poll_wait_nops);
	tcase_add_test(tc, data_roundtrip_and_identify);
	tcase_add_test(tc, run_returns_first_failure);
	tcase_add_test(tc, phase_wraps);
	tcase_add_loop_test(tc, sq_full_is_all_or_nothing, 0, 2);
	tcase_add_test(tc, wait_timeout_keeps_completions);
	tcase_add_test(tc, busy_buffer_and_foreign_buffer);
	tcase_add_test(tc, write_back_buffer_checked_and_busy);
	tcase_add_test(tc, reset_aborts_outstanding_once);
	tcase_add_test(tc, bogus_cqes_are_skipped);
	tcase_add_test(tc, broken_queue_and_fatal_give_eio);
	tcase_add_test(tc, vanished_device_gives_enodev);
	tcase_add_test(tc, error_log_of_a_failing_command);
	tcase_add_test(tc, windows_are_enforced);
	tcase_add_test(tc, run_batches_beyond_the_ring);
	suite_add_tcase(s, tc);
	return s;
}
