/* G2 for window updates (docs/spec.md §5 "Window updates"): once tpu_window_set has returned the
 * device makes no access through the old window. The commands submitted before the call run to
 * completion with the old window, whole, whatever the timing (on sim the window write reaches
 * the device while an IDENTIFY's 64 page chunks are being written); the commands after it see
 * the new window. After a disable or a reset has returned nothing lands either. Both backends
 * for the first (golden, where the write runs the pending commands first, and the Verilated
 * device behind the link model); the timing tests need the link and run on sim only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "sim_device.h"
#include "sim_fixture.h"

#define SIM_URI "sim:n=8,latency=10,qdepth=16,mem=1M"
#define PAGE 4096u
#define CANARY 0xA7

static const char *const both[2] = { "golden:n=8,qdepth=16,mem=1M", SIM_URI };

static tpu_dev *open_dev(const char *uri)
{
	tpu_dev *dev = NULL;

	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	return dev;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void whole_arena(tpu_dev *dev)
{
	ck_assert_int_eq(tpu_window_set(dev, 0, hostmem_iova_base(dev->hm), hostmem_size(dev->hm),
					TPU_WIN_R | TPU_WIN_W),
			 0);
}

static void submit_identify(tpu_dev *dev, tpu_buf *b, uint32_t tag)
{
	struct tpu_cmd c;

	ck_assert_int_eq(tpu_cmd_identify(&c, b, 0), 0);
	tpu_cmd_set_tag(&c, tag);
	ck_assert_int_eq(tpu_submit(dev, 0, &c, 1), 1);
}

static struct tpu_cpl wait1(tpu_dev *dev)
{
	struct tpu_cpl cpl;

	ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, 30000), 1);
	return cpl;
}

/* The device's DMA of a sim device gets this many more cycles to land late writes. */
static void settle(tpu_dev *dev)
{
	struct tpu_sim *s = tpu_backend_sim_of(dev);

	if (s)
		(void)tpu_sim_advance(s, 20000);
}

/* both: an IDENTIFY into A (window 0 = the arena), then window 0 narrowed to B, read-only. Sim
 * rounds give the command a random head start (round 0: until its first chunk has landed).
 * The page must be whole when tpu_window_set returns and unchanged afterwards, the command
 * SUCCESS; afterwards IDENTIFY into A or B is refused and touches neither. */
START_TEST(g2_window_narrowed_mid_command)
{
	uint64_t seed = harness_seed() ^ 0x57494e44ull;
	static uint8_t snap[PAGE];
	tpu_buf *a, *b;
	tpu_dev *dev;
	struct tpu_sim *sim;

	if (_i == 1 && !sim_have(8))
		return;
	dev = open_dev(both[_i]);
	sim = tpu_backend_sim_of(dev);
	ck_assert_int_eq(tpu_buf_alloc(dev, PAGE, &a), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, PAGE, &b), 0);
	uint8_t *ap = tpu_buf_ptr(a), *bp = tpu_buf_ptr(b);
	for (unsigned round = 0; round < (sim ? 8u : 1u); round++) {
		struct tpu_cpl cpl;

		memset(ap, CANARY, PAGE);
		memset(bp, CANARY, PAGE);
		whole_arena(dev);
		submit_identify(dev, a, round);
		if (sim && round == 0) {
			for (unsigned c = 0; c < 100000 && get32(ap) != TPU_ID; c++)
				(void)tpu_sim_advance(sim, 1);
			ck_assert_uint_eq(get32(ap), TPU_ID);
		} else if (sim) {
			(void)tpu_sim_advance(sim, (uint64_t)harness_range(&seed, 0, 400));
		}
		ck_assert_int_eq(tpu_window_set(dev, 0, tpu_buf_iova(b), PAGE, TPU_WIN_R), 0);
		memcpy(snap, ap, PAGE);
		settle(dev);
		size_t late = 0;
		for (unsigned i = 0; i < PAGE; i++)
			late += snap[i] != ap[i];
		ck_assert_msg(late == 0, "round %u: %zu bytes of the page landed after tpu_window_set "
					 "returned", round, late);
		cpl = wait1(dev);
		ck_assert_uint_eq(cpl.user_tag, round);
		ck_assert_msg(cpl.status == 0, "round %u: IDENTIFY %s", round,
			      tpu_strerror(cpl.status));
		ck_assert_uint_eq(get32(ap), TPU_ID);
		for (unsigned i = 0; i < PAGE; i++)
			ck_assert_msg(ap[i] != CANARY, "round %u: page byte %u never written", round,
				      i);
		/* the new window only: A is outside it, B is read-only */
		memcpy(snap, ap, PAGE);
		submit_identify(dev, a, 100);
		ck_assert_uint_eq(wait1(dev).status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
		submit_identify(dev, b, 101);
		ck_assert_uint_eq(wait1(dev).status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
		ck_assert(!memcmp(snap, ap, PAGE));
		for (unsigned i = 0; i < PAGE; i++)
			ck_assert_uint_eq(bp[i], CANARY);
	}
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* both: several commands queued when the window is removed (len 0): every one completes with
 * the old window (the call waits for them), in order, and the next one is refused. */
START_TEST(g2_window_removed_with_queue)
{
	tpu_buf *a[4];
	tpu_dev *dev;

	if (_i == 1 && !sim_have(8))
		return;
	dev = open_dev(both[_i]);
	for (unsigned k = 0; k < 4; k++) {
		ck_assert_int_eq(tpu_buf_alloc(dev, PAGE, &a[k]), 0);
		submit_identify(dev, a[k], k);
	}
	ck_assert_int_eq(tpu_window_set(dev, 0, 0, 0, 0), 0);
	for (unsigned k = 0; k < 4; k++) {
		struct tpu_cpl cpl;
		/* already posted: a poll, no waiting */
		ck_assert_int_eq(tpu_poll(dev, 0, &cpl, 1), 1);
		ck_assert_uint_eq(cpl.user_tag, k);
		ck_assert_uint_eq(cpl.status, 0);
		ck_assert_uint_eq(get32(tpu_buf_ptr(a[k])), TPU_ID);
	}
	submit_identify(dev, a[0], 9);
	ck_assert_uint_eq(wait1(dev).status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* sim: a disable (CC.EN = 0, then CSTS.RDY read 0) or a reset while IDENTIFYs are being written:
 * once it has returned, no byte lands any more. */
START_TEST(g2_nothing_lands_after_stop)
{
	uint64_t seed = harness_seed() ^ 0x53544f50ull;
	static uint8_t snap[4][PAGE];
	tpu_buf *a[4];
	tpu_dev *dev;
	struct tpu_sim *sim;

	if (!sim_have(8))
		return;
	dev = open_dev(SIM_URI);
	sim = tpu_backend_sim_of(dev);
	for (unsigned k = 0; k < 4; k++)
		ck_assert_int_eq(tpu_buf_alloc(dev, PAGE, &a[k]), 0);
	for (unsigned round = 0; round < 8; round++) {
		for (unsigned k = 0; k < 4; k++) {
			memset(tpu_buf_ptr(a[k]), CANARY, PAGE);
			submit_identify(dev, a[k], k);
		}
		(void)tpu_sim_advance(sim, (uint64_t)harness_range(&seed, 20, 600));
		if (round & 1) {
			uint32_t csts = 1;
			ck_assert_int_eq(tpu_reg_write(dev, TPU_REG_CC, 0), 0);
			for (unsigned t = 0; t < 100000 && (csts & TPU_CSTS_RDY_MASK); t++)
				ck_assert_int_eq(tpu_reg_read(dev, TPU_REG_CSTS, &csts), 0);
			ck_assert_uint_eq(csts & TPU_CSTS_RDY_MASK, 0);
		} else {
			ck_assert_int_eq(tpu_reset(dev), 0);
		}
		for (unsigned k = 0; k < 4; k++)
			memcpy(snap[k], tpu_buf_ptr(a[k]), PAGE);
		settle(dev);
		for (unsigned k = 0; k < 4; k++)
			ck_assert_msg(!memcmp(snap[k], tpu_buf_ptr(a[k]), PAGE),
				      "round %u: buffer %u changed after the %s returned", round, k,
				      round & 1 ? "disable" : "reset");
		if (round & 1)
			ck_assert_int_eq(tpu_reset(dev), 0);
		for (unsigned got = 0; got < 4; got++)
			(void)wait1(dev);
		ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	}
	sim_check_link_clean(dev);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

TPU_TEST_SUITE(sim_windows_suite)
static Suite *sim_windows_suite(void)
{
	Suite *s = suite_create("sim_windows");
	TCase *tc = tcase_create("g2");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, g2_window_narrowed_mid_command, 0, 2);
	tcase_add_loop_test(tc, g2_window_removed_with_queue, 0, 2);
	tcase_add_test(tc, g2_nothing_lands_after_stop);
	suite_add_tcase(s, tc);
	return s;
}
