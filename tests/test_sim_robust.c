/* Robustness of the device + driver on the simulated link, named after the guarantees:
 *   G1 every accepted command gets exactly one completion (CQE or host-synthesised)
 *   G2 no DMA outside the windows, and none after reset / disable (the link asserts it)
 *   G3 data before its CQE, CQE before its interrupt
 *   G4 bounded recovery (reset after a ring fault; -ENODEV after surprise removal)
 *   G5 deterministic replay: same seed and configuration, same link trace and cycle count
 * Tests marked "both" run on the golden model and on the Verilated device; the fault tests
 * need the link model and run on sim only. Each skips (with a note) when no n=8 model is
 * built. Shapes are small: the Verilated device runs at a few hundred thousand cycles/s. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "link.h"
#include "sim_device.h"
#include "sim_fixture.h"

#define SIM_URI "sim:n=8,latency=10,qdepth=16,mem=1M"
static const char *const both[2] = { "golden:n=8,qdepth=16,mem=1M", SIM_URI };

static bool skip(int i)
{
	return i == 1 && !sim_have(8);
}

static tpu_dev *open_dev(const char *uri)
{
	tpu_dev *dev = NULL;
	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	return dev;
}

static void nop(struct tpu_cmd *c, uint32_t tag, unsigned flags)
{
	ck_assert_int_eq(tpu_cmd_nop(c), 0);
	tpu_cmd_set_tag(c, tag);
	tpu_cmd_set_flags(c, flags);
}

/* Wait for n completions; on failure show the link's state first. */
static void wait_n(tpu_dev *dev, struct tpu_cpl *out, unsigned n)
{
	int got = tpu_wait(dev, 0, out, n, n, 30000);
	if (got != (int)n)
		sim_dump(dev, tpu_strerror(got));
	ck_assert_int_eq(got, (int)n);
}

static void run1(tpu_dev *dev, struct tpu_cmd *c, struct tpu_cpl *out)
{
	ck_assert_int_eq(tpu_submit(dev, 0, c, 1), 1);
	wait_n(dev, out, 1);
}

/* ---------------------------------------------------------------- G1 */

/* both: queue sizes 2..256, four passes each; every tag once, in order, SQ head monotone. */
START_TEST(g1_ring_wrap_sizes)
{
	static const unsigned depths[] = { 2, 3, 5, 256 };
	uint64_t seed = harness_seed();

	if (skip(_i))
		return;
	for (unsigned d = 0; d < 4; d++) {
		char uri[96];
		tpu_dev *dev;
		uint32_t tag = 0, next = 0, total = 4 * depths[d];
		uint16_t head = 0;

		snprintf(uri, sizeof(uri), "%s:n=8,%sqdepth=%u,mem=1M", _i ? "sim" : "golden",
			 _i ? "latency=10," : "", depths[d]);
		dev = open_dev(uri);
		while (next < total) {
			unsigned room = depths[d] - 1 - tpu_outstanding(dev, 0);
			struct tpu_cmd c[16];
			struct tpu_cpl cpl[16];
			unsigned n = room > 16 ? 16 : room;
			int got;
			n = n ? (unsigned)harness_range(&seed, 0, n) : 0;
			if (n > total - tag)
				n = total - tag;
			for (unsigned i = 0; i < n; i++)
				nop(&c[i], tag + i, 0);
			if (n) {
				ck_assert_int_eq(tpu_submit(dev, 0, c, n), (int)n);
				tag += n;
			}
			if (!tpu_outstanding(dev, 0))
				continue;
			got = tpu_wait(dev, 0, cpl, 1, 16, 30000);
			ck_assert_int_ge(got, 1);
			for (int i = 0; i < got; i++) {
				ck_assert_uint_eq(cpl[i].user_tag, next++);
				ck_assert_uint_eq(cpl[i].status, 0);
				ck_assert_uint_eq(cpl[i].sq_head, (head + 1u) % depths[d]);
				head = cpl[i].sq_head;
			}
		}
		ck_assert_uint_eq(tpu_bogus_cqes(dev), 0);
		sim_check_link_clean(dev);
		ck_assert_int_eq(tpu_close(dev), 0);
	}
}
END_TEST

/* both: the device holds completions while the host does not reap (the CQ fills), then every
 * one arrives exactly once. */
START_TEST(g1_cq_backpressure)
{
	tpu_dev *dev;
	struct tpu_cmd c[15];
	struct tpu_cpl cpl[15];
	uint32_t tail;

	if (skip(_i))
		return;
	dev = open_dev(both[_i]);
	for (unsigned i = 0; i < 15; i++)
		nop(&c[i], i, 0);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 15), 15);
	/* Let the device run without reaping: it may post at most 15 (CQ size - 1). */
	for (int k = 0; k < 50; k++)
		(void)dev->ops->advance(dev->impl);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_Q_CQ_TAIL(0), &tail), 0);
	ck_assert_uint_eq(tail & 0xFFFFu, 15);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 15, 15, 30000), 15);
	for (unsigned i = 0; i < 15; i++)
		ck_assert_uint_eq(cpl[i].user_tag, i);
	/* and again across the wrap */
	ck_assert_int_eq(tpu_submit(dev, 0, c, 15), 15);
	ck_assert_int_eq(tpu_wait(dev, 0, cpl, 15, 15, 30000), 15);
	ck_assert_int_eq(tpu_poll(dev, 0, cpl, 15), 0);
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* both: a bad doorbell (SQ tail >= size, CQ head >= size, CQ head beyond the device's tail)
 * breaks the queue (GSTAT, Q_STATUS.BROKEN, -EIO); reset recovers. */
static const struct {
	uint32_t reg, val;
} bad_doorbells[] = {
	{ TPU_REG_SQ_TAIL_DB(0), 16 }, /* the rings have 16 entries */
	{ TPU_REG_CQ_HEAD_DB(0), 16 },
	{ TPU_REG_CQ_HEAD_DB(0), 5 },  /* one CQE posted and consumed: tail = head = 1 */
};

START_TEST(g4_bad_doorbell_then_reset)
{
	for (unsigned b = 0; b < sizeof(bad_doorbells) / sizeof(bad_doorbells[0]); b++) {
		tpu_dev *dev;
		struct tpu_cmd c;
		struct tpu_cpl cpl;
		uint32_t v;

		if (skip(_i))
			return;
		dev = open_dev(both[_i]);
		nop(&c, 1, 0);
		run1(dev, &c, &cpl);
		ck_assert_int_eq(tpu_reg_write(dev, bad_doorbells[b].reg, bad_doorbells[b].val), 0);
		/* the driver sees the broken queue: nothing more is accepted */
		for (int k = 0; k < 20; k++)
			(void)dev->ops->advance(dev->impl);
		ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), -EIO);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_GSTAT, &v), 0);
		ck_assert(v & TPU_GSTAT_BAD_DOORBELL_MASK);
		ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_Q_STATUS(0), &v), 0);
		ck_assert(v & TPU_Q_STATUS_BROKEN_MASK);
		ck_assert_int_eq(tpu_reset(dev), 0);
		ck_assert_int_eq(tpu_poll(dev, 0, &cpl, 1), 0);
		nop(&c, 2, 0);
		run1(dev, &c, &cpl);
		ck_assert_uint_eq(cpl.status, 0);
		sim_check_link_clean(dev);
		ck_assert_int_eq(tpu_close(dev), 0);
	}
}
END_TEST

/* ---------------------------------------------------------------- G2 */

/* both: window edges with canaries: just inside works; one byte over either edge is
 * DMA_ACCESS_VIOLATION and no byte changes anywhere in the buffer. */
START_TEST(g2_window_edges_with_canaries)
{
	tpu_dev *dev;
	tpu_buf *b;
	uint8_t *p, before[1024];
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	uint64_t w0;

	if (skip(_i))
		return;
	dev = open_dev(both[_i]);
	ck_assert_int_eq(tpu_buf_alloc(dev, 1024, &b), 0);
	p = tpu_buf_ptr(b);
	for (unsigned i = 0; i < 1024; i++)
		p[i] = (uint8_t)(0xA5 ^ i);
	w0 = tpu_buf_iova(b) + 256;
	/* window 1: [b+256, b+512) RW, window 0 off */
	ck_assert_int_eq(tpu_window_set(dev, 1, w0, 256, TPU_WIN_R | TPU_WIN_W), 0);
	ck_assert_int_eq(tpu_window_set(dev, 0, 0, 0, 0), 0);
	/* inside: read 4 rows of 8 at +256, write them back at +448 (last byte 511) */
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 256, 0, 0, 4, 8), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 480, 0, 0, 4, 8, 0), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_mem_eq(p + 480, p + 256, 32);
	memcpy(before, p, sizeof(before));
	/* straddling the start and the end, by one byte */
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 255, 0, 0, 4, 8, 0), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 481, 0, 0, 4, 8, 0), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 481, 0, 0, 4, 8), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_mem_eq(p, before, sizeof(before));
	/* read-only window: the write is refused */
	ck_assert_int_eq(tpu_window_set(dev, 1, w0, 256, TPU_WIN_R), 0);
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 256, 0, 0, 1, 8, 0), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_mem_eq(p, before, sizeof(before));
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* Traffic that keeps the device busy: reads, matmuls and writes on local rows 0..15. */
static unsigned load(tpu_dev *dev, tpu_buf *in, tpu_buf *out, struct tpu_cmd *c, unsigned n,
		     uint64_t *seed)
{
	for (unsigned i = 0; i < n; i++) {
		int r = (int)harness_range(seed, 0, 3), err = 0;
		uint32_t row = (uint32_t)harness_range(seed, 0, 12);
		if (r == 0)
			err = tpu_cmd_read_host(&c[i], in, 64 * (i % 16), 0, row, 4, 8);
		else if (r == 1)
			err = tpu_cmd_write_host(&c[i], out, 64 * (i % 16), 0, row, 4, 8, 0);
		else if (r == 2)
			err = tpu_cmd_matmul(&c[i], row, row, 4, 0);
		else
			err = tpu_cmd_nop(&c[i]);
		ck_assert_int_eq(err, 0);
		tpu_cmd_set_tag(&c[i], i);
		(void)dev;
	}
	return n;
}

/* sim: reset at random moments under load: every submitted command completes exactly once
 * (its status or ABORTED_RESET), no DMA after the reset, the device works afterwards. */
START_TEST(g1_g2_reset_under_load)
{
	tpu_dev *dev;
	tpu_buf *in, *out;
	uint64_t seed = harness_seed() ^ 0x5157;
	struct tpu_cmd c[15], w;
	struct tpu_cpl cpl[15];

	if (!sim_have(8))
		return;
	dev = open_dev(SIM_URI);
	ck_assert_int_eq(tpu_buf_alloc(dev, 1024, &in), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 1024, &out), 0);
	/* a weight tile so that MATMUL has one (SEQUENCE_ERROR otherwise, which is fine too) */
	ck_assert_int_eq(tpu_cmd_load_weights(&w, in, 0, 0, 8, 8, 0), 0);
	run1(dev, &w, cpl);
	for (unsigned it = 0; it < 12; it++) {
		unsigned n = (unsigned)harness_range(&seed, 1, 15), got = 0;
		bool seen[15] = { false };
		load(dev, in, out, c, n, &seed);
		ck_assert_int_eq(tpu_submit(dev, 0, c, n), (int)n);
		(void)tpu_sim_advance(tpu_backend_sim_of(dev),
				      (uint64_t)harness_range(&seed, 0, 3000));
		if (it % 3 == 2)
			ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_CC, 0), 0); /* disable first */
		ck_assert_int_eq(tpu_reset(dev), 0);
		while (got < n) {
			int k = tpu_wait(dev, 0, cpl, 1, 15, 30000);
			ck_assert_int_ge(k, 1);
			for (int j = 0; j < k; j++) {
				ck_assert_uint_lt(cpl[j].user_tag, n);
				ck_assert(!seen[cpl[j].user_tag]);
				seen[cpl[j].user_tag] = true;
				ck_assert(cpl[j].status == 0 ||
					  cpl[j].status == TPU_STATUS(TPU_SC_ABORTED_RESET, 0) ||
					  cpl[j].status == TPU_STATUS(TPU_SC_SEQUENCE_ERROR, 0));
			}
			got += (unsigned)k;
		}
		ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	}
	nop(&w, 99, 0);
	run1(dev, &w, cpl);
	ck_assert_uint_eq(cpl[0].status, 0);
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ---------------------------------------------------------------- link faults on data DMA */

static void add_fault(tpu_dev *dev, enum tpu_link_fault_kind k, uint64_t lo, uint64_t hi,
		      uint64_t nth)
{
	struct tpu_link_fault f = { .kind = k, .nth = nth, .ppm = 1000000, .lo = lo, .hi = hi };
	ck_assert_int_eq(tpu_link_add_fault(tpu_sim_link(tpu_backend_sim_of(dev)), &f), 0);
}

/* sim: drop / UR / CA / poison on a READ_HOST or LOAD_WEIGHTS: DMA_XFER_ERROR for that command
 * only, the UB rows keep their contents, the next commands are fine. */
START_TEST(g2_data_dma_fault_fails_only_that_command)
{
	static const enum tpu_link_fault_kind kinds[4] = { TPU_FAULT_UR_CPL, TPU_FAULT_CA_CPL,
							   TPU_FAULT_POISON_CPL,
							   TPU_FAULT_DROP_CPL };
	tpu_dev *dev;
	tpu_buf *good, *bad, *out;
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	struct tpu_err_info ei;
	uint8_t *g;

	if (!sim_have(8))
		return;
	dev = open_dev(SIM_URI);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &good), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &bad), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &out), 0);
	g = tpu_buf_ptr(good);
	for (unsigned i = 0; i < 256; i++) {
		g[i] = (uint8_t)(i * 3 + 1);
		((uint8_t *)tpu_buf_ptr(bad))[i] = 0x77;
	}
	/* UB rows 0..3 <- good */
	ck_assert_int_eq(tpu_cmd_read_host(&c, good, 0, 0, 0, 4, 8), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, 0);
	add_fault(dev, kinds[_i], tpu_buf_iova(bad), tpu_buf_iova(bad) + 255, 0);
	/* READ_HOST from the faulty buffer into rows 0..3 */
	ck_assert_int_eq(tpu_cmd_read_host(&c, bad, 0, 0, 0, 4, 8), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_XFER_ERROR, 0));
	ck_assert_uint_eq(cpl.dnr, 0);
	ck_assert_int_eq(tpu_error_info(dev, &ei), 0);
	ck_assert(ei.gstat & TPU_GSTAT_DMA_XFER_ERR_MASK);
	ck_assert_uint_eq(ei.addr, tpu_buf_iova(bad));
	ck_assert_uint_eq(ei.status, TPU_STATUS(TPU_SC_DMA_XFER_ERROR, 0));
	/* LOAD_WEIGHTS from it fails too */
	ck_assert_int_eq(tpu_cmd_load_weights(&c, bad, 0, 0, 8, 8, 0), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_XFER_ERROR, 0));
	/* the rows still hold the good data, and the link works for others */
	ck_assert_int_eq(tpu_cmd_write_host(&c, out, 0, 0, 0, 4, 8, 0), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_mem_eq(tpu_buf_ptr(out), g, 32);
	ck_assert_int_eq(tpu_cmd_read_host(&c, good, 32, 0, 4, 4, 8), 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_uint_eq(tpu_link_stats(tpu_sim_link(tpu_backend_sim_of(dev)))->dma_after_reset,
			  0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ---------------------------------------------------------------- G4 */

/* sim: a fault on the SQ fetch sets CSTS.CFS; the driver sees -EIO, resets within its budget,
 * the command is completed once as ABORTED_RESET, and the device works afterwards. */
START_TEST(g4_ring_fault_sets_cfs_reset_recovers)
{
	tpu_dev *dev;
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	uint32_t csts;
	uint64_t c0;

	if (!sim_have(8))
		return;
	dev = open_dev(SIM_URI);
	add_fault(dev, _i ? TPU_FAULT_POISON_CPL : TPU_FAULT_UR_CPL, dev->q[0].sq_iova,
		  dev->q[0].sq_iova + 16u * TPU_SQE_BYTES - 1u, 1);
	nop(&c, 7, 0);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), 1);
	ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, 5000), -EIO);
	ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_CSTS, &csts), 0);
	ck_assert(csts & TPU_CSTS_CFS_MASK);
	c0 = tpu_sim_cycles(tpu_backend_sim_of(dev));
	ck_assert_int_eq(tpu_reset(dev), 0);
	/* bounded: the reset took well under one watchdog period of the device */
	ck_assert_uint_lt(tpu_sim_cycles(tpu_backend_sim_of(dev)) - c0, 64u * 1024u);
	ck_assert_int_eq(tpu_poll(dev, 0, &cpl, 1), 1);
	ck_assert_uint_eq(cpl.user_tag, 7);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
	ck_assert_int_eq(tpu_poll(dev, 0, &cpl, 1), 0);
	nop(&c, 8, 0);
	run1(dev, &c, &cpl);
	ck_assert_uint_eq(cpl.status, 0);
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* sim: a persistent fault on a later SQ entry of a batch (entry 3 of 6): the device stops with
 * CFS before it runs that entry or any after it. The entries before it may have completed (one
 * SQE fetch at a time, as the golden model reads them) or not (the device read them in the same
 * block as entry 3, docs/device.md "SQE prefetch"): each tag completes once, SUCCESS or
 * ABORTED_RESET, and none from entry 3 on succeeds. */
START_TEST(g4_later_sq_entry_fault_stops_there)
{
	tpu_dev *dev;
	struct tpu_cmd c[6];
	struct tpu_cpl cpl[6];
	bool seen[6] = { false };
	uint32_t csts;
	unsigned got = 0;

	if (!sim_have(8))
		return;
	dev = open_dev(SIM_URI);
	add_fault(dev, _i ? TPU_FAULT_POISON_CPL : TPU_FAULT_UR_CPL,
		  dev->q[0].sq_iova + 3u * TPU_SQE_BYTES, dev->q[0].sq_iova + 4u * TPU_SQE_BYTES - 1u,
		  0);
	for (unsigned i = 0; i < 6; i++)
		nop(&c[i], i, 0);
	ck_assert_int_eq(tpu_submit(dev, 0, c, 6), 6);
	while (got < 6) {
		int k = tpu_wait(dev, 0, cpl, 1, 6, 5000);
		if (k == -EIO) { /* CFS: the driver's reset completes the rest */
			ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_CSTS, &csts), 0);
			ck_assert(csts & TPU_CSTS_CFS_MASK);
			ck_assert_int_eq(tpu_reset(dev), 0);
			continue;
		}
		ck_assert_int_ge(k, 1);
		for (int j = 0; j < k; j++) {
			ck_assert_uint_lt(cpl[j].user_tag, 6);
			ck_assert(!seen[cpl[j].user_tag]);
			seen[cpl[j].user_tag] = true;
			if (cpl[j].user_tag >= 3)
				ck_assert_uint_eq(cpl[j].status, TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
			else
				ck_assert(cpl[j].status == 0 ||
					  cpl[j].status == TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
		}
		got += (unsigned)k;
	}
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	nop(&c[0], 9, 0);
	run1(dev, &c[0], cpl);
	ck_assert_uint_eq(cpl[0].status, 0);
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* sim: surprise removal: from the Nth MMIO read on everything reads all-ones; every call
 * returns -ENODEV promptly and close succeeds. */
START_TEST(g4_all_ones_gives_enodev)
{
	tpu_dev *dev;
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	uint64_t t0;
	int err;

	if (!sim_have(8))
		return;
	dev = open_dev(SIM_URI);
	nop(&c, 1, 0);
	run1(dev, &c, &cpl);
	add_fault(dev, TPU_FAULT_ALL_ONES, 0, UINT64_MAX, 3);
	t0 = tpu_now_ms();
	nop(&c, 2, 0);
	err = tpu_submit(dev, 0, &c, 1);
	ck_assert(err == 1 || err == -ENODEV);
	if (err == 1)
		ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, 10000), -ENODEV);
	/* an idle poll may not touch the device at all; anything that does says -ENODEV */
	err = tpu_poll(dev, 0, &cpl, 1);
	ck_assert(err == 0 || err == -ENODEV);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), -ENODEV);
	ck_assert_int_eq(tpu_get_info(dev, &(struct tpu_info){ 0 }), -ENODEV);
	ck_assert_int_eq(tpu_reset(dev), -ENODEV);
	ck_assert_uint_lt(tpu_now_ms() - t0, 2000);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ---------------------------------------------------------------- G3 */

struct g3_ctx {
	tpu_dev *dev;
	uint64_t msi_iova;
	unsigned data_len;
	const uint8_t *want;
	const uint8_t *out;
	bool armed;
	int n_armed;
	int cqe_ok_at_msi, msi_seen, data_before_cqe, cqe_writes;
};

/* Called by host memory for every device access, before it is performed. */
static int g3_hook(void *ctx, enum hostmem_dir dir, uint64_t iova, size_t len)
{
	struct g3_ctx *x = ctx;
	const struct tpu_queue *q = &x->dev->q[0];

	if (dir != HOSTMEM_WRITE)
		return 0;
	if (x->armed && iova >= q->cq_iova &&
	    iova < q->cq_iova + (uint64_t)q->depth * TPU_CQE_BYTES) {
		/* the CQE of a WRITE_HOST: its data must already be in host memory */
		x->cqe_writes++;
		x->data_before_cqe += memcmp(x->out, x->want, x->data_len) == 0;
	}
	if (iova == x->msi_iova && len == 4) {
		/* the MSI: the CQE of the command that asked for it is already written */
		x->cqe_ok_at_msi += x->cqe_writes >= x->n_armed;
		x->msi_seen++;
	}
	return 0;
}

/* sim: MSI enabled, interrupts lost or duplicated: every completion still arrives exactly
 * once by polling; when the MSI arrives its CQE is already there, and the data before it. */
START_TEST(g3_lost_and_duplicate_interrupts)
{
	tpu_dev *dev;
	tpu_buf *msi, *in, *out;
	struct tpu_cmd c[2];
	struct tpu_cpl cpl[2];
	struct g3_ctx x = { 0 };
	struct sim_counts sc;

	if (!sim_have(8))
		return;
	dev = open_dev(SIM_URI);
	ck_assert_int_eq(tpu_buf_alloc(dev, 64, &msi), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &in), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &out), 0);
	memset(tpu_buf_ptr(in), 0x42, 256);
	ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_MSI_ADDR_LO, (uint32_t)tpu_buf_iova(msi)), 0);
	ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_MSI_ADDR_HI,
				       (uint32_t)(tpu_buf_iova(msi) >> 32)), 0);
	ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_MSI_DATA, 0xC0DE), 0);
	ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_MSI_CTRL, 1), 0);
	add_fault(dev, TPU_FAULT_DROP_MSI, 0, UINT64_MAX, 1);
	add_fault(dev, TPU_FAULT_DUP_MSI, 0, UINT64_MAX, 2);
	x.dev = dev;
	x.msi_iova = tpu_buf_iova(msi);
	x.data_len = 32;
	x.want = tpu_buf_ptr(in);
	x.out = tpu_buf_ptr(out);
	hostmem_set_hook(dev->hm, g3_hook, &x);
	ck_assert_int_eq(tpu_cmd_read_host(&c[0], in, 0, 0, 0, 4, 8), 0);
	run1(dev, &c[0], cpl);
	for (unsigned k = 0; k < 3; k++) {
		ck_assert_int_eq(tpu_cmd_write_host(&c[0], out, 0, 0, 0, 4, 8, 0), 0);
		tpu_cmd_set_flags(&c[0], TPU_SQE_FLAG_IRQ);
		tpu_cmd_set_tag(&c[0], k);
		memset(tpu_buf_ptr(out), 0, 32);
		x.armed = true;
		x.n_armed++;
		run1(dev, &c[0], cpl);
		/* let the MSI (which follows the CQE) arrive before disarming */
		(void)tpu_sim_advance(tpu_backend_sim_of(dev), 300);
		x.armed = false;
		ck_assert_uint_eq(cpl[0].status, 0);
		ck_assert_uint_eq(cpl[0].user_tag, k);
		ck_assert_int_eq(tpu_poll(dev, 0, cpl, 2), 0); /* nothing twice */
		/* clear INT_STATUS so the next IRQ command sends a fresh MSI */
		ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_INT_STATUS, 1), 0);
	}
	ck_assert_mem_eq(tpu_buf_ptr(out), tpu_buf_ptr(in), 32);
	sim_counts(dev, &sc);
	/* three MSIs sent: the first lost, the second twice, the third once */
	ck_assert_uint_eq(sc.irqs, 3);
	ck_assert_int_eq(x.msi_seen, 3);
	ck_assert_int_eq(x.cqe_ok_at_msi, 3);
	ck_assert_int_ge(x.cqe_writes, 3);
	ck_assert_int_eq(x.data_before_cqe, x.cqe_writes);
	ck_assert_uint_eq(sc.faults_fired, 2);
	hostmem_set_hook(dev->hm, NULL, NULL);
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ---------------------------------------------------------------- G5 */

struct g5_arg {
	uint64_t seed;
	bool faults;
};

static uint64_t g5_run(void *argp)
{
	struct g5_arg *a = argp;
	char uri[192];
	tpu_dev *dev;
	tpu_buf *in, *out;
	struct tpu_cmd c[15];
	struct tpu_cpl cpl[15];
	uint64_t s = a->seed, h;
	struct sim_counts sc;

	snprintf(uri, sizeof(uri), "%s,seed=%llu,reorder=1,jitter=30%s", SIM_URI,
		 (unsigned long long)a->seed, a->faults ? ",faults=delay=40%0.3+msi_dup%0.5" : "");
	dev = open_dev(uri);
	ck_assert_int_eq(tpu_buf_alloc(dev, 1024, &in), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 1024, &out), 0);
	for (unsigned i = 0; i < 1024; i++)
		((uint8_t *)tpu_buf_ptr(in))[i] = (uint8_t)harness_rand(&s);
	ck_assert_int_eq(tpu_cmd_load_weights(&c[0], in, 0, 0, 8, 8, 0), 0);
	run1(dev, &c[0], cpl);
	for (unsigned r = 0; r < 3; r++) {
		unsigned n = load(dev, in, out, c, 12, &s);
		ck_assert_int_eq(tpu_submit(dev, 0, c, n), (int)n);
		wait_n(dev, cpl, n);
	}
	sim_counts(dev, &sc);
	h = sc.trace_hash ^ (sc.cycles * 0x9E3779B97F4A7C15ull);
	ck_assert_int_eq(tpu_close(dev), 0);
	return h;
}

/* sim: the same seed twice (in two children from the same state): identical link trace and
 * cycle count; a different seed differs. */
START_TEST(g5_deterministic_replay)
{
	struct g5_arg a = { harness_seed() & 0xFFFFFFu, _i == 1 }, b = a;
	uint64_t h1, h2, h3;

	if (!sim_have(8))
		return;
	h1 = sim_run_in_child(g5_run, &a);
	h2 = sim_run_in_child(g5_run, &a);
	b.seed++;
	h3 = sim_run_in_child(g5_run, &b);
	ck_assert_uint_eq(h1, h2);
	ck_assert_uint_ne(h1, h3);
}
END_TEST

/* sim: URI errors name the option (and the built models). */
START_TEST(sim_uri_errors)
{
	static const char *const bad[] = { "sim:n=12", "sim:n=8,ub_rows=64", "sim:n=8,latency=x",
					   "sim:n=8,bw=1.2345", "sim:n=8,faults=bogus",
					   "sim:n=8,frobnicate=1", "sim:n=8,reorder=2" };
	tpu_dev *dev;

	if (!sim_have(8))
		return;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(tpu_open(bad[i], &dev) == -EINVAL, "%s", bad[i]);
		ck_assert_msg(strstr(tpu_last_open_error(), "sim") != NULL, "%s: %s", bad[i],
			      tpu_last_open_error());
	}
	ck_assert_int_eq(tpu_open("sim:n=12", &dev), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_last_open_error(), "n=8"));
	dev = open_dev("sim:n=8,latency=0,bw=0,clock=500,seed=5,mem=256k");
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* The CLI's --trace: an FST file from a sim device; a clear usage error for other devices. */
START_TEST(cli_trace_option)
{
	const char *cli = getenv("TPU_CLI");
	char cmd[1024], path[] = "/tmp/tpu_trace_XXXXXX";
	int fd, rc;
	FILE *f;
	long size;

	if (!cli || !sim_have(8))
		return;
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s' --trace %s --device golden info >/dev/null 2>&1", cli,
		 path);
	rc = system(cmd);
	ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) != 0);
	snprintf(cmd, sizeof(cmd), "'%s' --trace %s --device sim:n=8 info >/dev/null 2>&1", cli,
		 path);
	rc = system(cmd);
	ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	unlink(path);
	ck_assert_int_gt(size, 1000);
}
END_TEST

TPU_TEST_SUITE(sim_robust_suite)
static Suite *sim_robust_suite(void)
{
	Suite *s = suite_create("sim_robust");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, g1_ring_wrap_sizes, 0, 2);
	tcase_add_loop_test(tc, g1_cq_backpressure, 0, 2);
	tcase_add_loop_test(tc, g4_bad_doorbell_then_reset, 0, 2);
	tcase_add_loop_test(tc, g2_window_edges_with_canaries, 0, 2);
	tcase_add_test(tc, g1_g2_reset_under_load);
	tcase_add_loop_test(tc, g2_data_dma_fault_fails_only_that_command, 0, 4);
	tcase_add_loop_test(tc, g4_ring_fault_sets_cfs_reset_recovers, 0, 2);
	tcase_add_loop_test(tc, g4_later_sq_entry_fault_stops_there, 0, 2);
	tcase_add_test(tc, g4_all_ones_gives_enodev);
	tcase_add_test(tc, g3_lost_and_duplicate_interrupts);
	tcase_add_loop_test(tc, g5_deterministic_replay, 0, 2);
	tcase_add_test(tc, sim_uri_errors);
	tcase_add_test(tc, cli_trace_option);
	suite_add_tcase(s, tc);
	return s;
}
