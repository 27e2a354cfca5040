/* Golden device DMA windows (docs/spec.md §5) at their edges: canary bytes around buffers and the
 * host-memory hook recording every device access prove that nothing outside an allowed span is
 * read or written; a window write takes effect at a command boundary, on both devices alike. */
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"
#include "sim_device.h"
#include "tpu/tpu_spec.h"

#define RW (TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK)
#define RO (TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK)
#define WO (TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_W_MASK)
#define CANARY 0xA7
#define BUF 4096

static struct gfx F;
static uint64_t buf;
static uint8_t *bufp;

static void setup(void)
{
	gfx_setup(&F, NULL);
	bufp = gfx_alloc(&F, BUF, &buf);
	memset(bufp, CANARY, BUF);
	/* window 3 covers the rings only; window 0 is reprogrammed by each test */
	gfx_window(&F, 3, F.q[0].sq_iova, F.q[0].cq_iova + 16 * TPU_CQE_BYTES - 1, RW);
	gfx_window(&F, 0, 0, 0, 0);
}

static void teardown(void)
{
	gfx_teardown(&F);
}

/* Written without iova + len, which wraps for accesses that end at 2^64 - 1. */
static bool in_rings(const struct gfx_access *a)
{
	return (a->iova >= F.q[0].sq_iova && a->iova - F.q[0].sq_iova + a->len <= 16 * 64) ||
	       (a->iova >= F.q[0].cq_iova && a->iova - F.q[0].cq_iova + a->len <= 16 * 16);
}

/* Every non-ring access recorded lies inside [lo, lo + len). Returns the data bytes accessed. */
static uint64_t accesses_within(uint64_t lo, uint64_t len)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < F.nlog; i++) {
		const struct gfx_access *a = &F.log[i];

		if (in_rings(a))
			continue;
		ck_assert_msg(a->iova >= lo && a->iova - lo + a->len <= len,
			      "access 0x%llx+%zu outside 0x%llx+%llu", (unsigned long long)a->iova,
			      a->len, (unsigned long long)lo, (unsigned long long)len);
		total += a->len;
	}
	return total;
}

/* Canary bytes everywhere in the buffer except [off, off + len). */
static void check_canaries_except(uint64_t off, uint64_t len)
{
	uint64_t bad = BUF;

	for (uint64_t i = 0; i < BUF && bad == BUF; i++)
		if ((i < off || i >= off + len) && bufp[i] != CANARY)
			bad = i;
	ck_assert_msg(bad == BUF, "byte %llu touched", (unsigned long long)bad);
}

/* WRITE_HOST of `len` bytes (one int8 row per 8 bytes, N = 8) at buf + off. */
static uint32_t write_at(int64_t off, uint32_t len)
{
	struct gfx_sqe s = gfx_write_host(buf + (uint64_t)off, len / 8, 8, 0, 0, false);

	gfx_record(&F);
	return gfx_exec(&F, &s, NULL);
}

static uint32_t read_at(int64_t off, uint32_t len)
{
	struct gfx_sqe s = gfx_read_host(buf + (uint64_t)off, len / 8, 8, 0, 0);

	gfx_record(&F);
	return gfx_exec(&F, &s, NULL);
}

START_TEST(edges_of_one_window)
{
	/* window [buf + 64, buf + 319] */
	gfx_window(&F, 0, buf + 64, buf + 319, RW);
	ck_assert_uint_eq(write_at(64, 256), TPU_SC_SUCCESS); /* exactly the window */
	ck_assert_uint_eq(accesses_within(buf + 64, 256), 256);
	check_canaries_except(64, 256);
	memset(bufp, CANARY, BUF);
	ck_assert_uint_eq(write_at(64, 8), TPU_SC_SUCCESS); /* first bytes */
	ck_assert_uint_eq(write_at(312, 8), TPU_SC_SUCCESS); /* last bytes */
	check_canaries_except(64, 256);
	memset(bufp, CANARY, BUF);
	ck_assert_uint_eq(write_at(63, 8), TPU_SC_DMA_ACCESS_VIOLATION); /* one byte before */
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	ck_assert_uint_eq(write_at(313, 8), TPU_SC_DMA_ACCESS_VIOLATION); /* one byte after */
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	ck_assert_uint_eq(write_at(56, 272), TPU_SC_DMA_ACCESS_VIOLATION); /* both sides */
	ck_assert_uint_eq(read_at(63, 8), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	ck_assert_uint_eq(read_at(312, 8), TPU_SC_SUCCESS);
	ck_assert_uint_eq(accesses_within(buf + 312, 8), 8);
	check_canaries_except(0, 0);
}
END_TEST

START_TEST(straddling_two_windows)
{
	gfx_window(&F, 0, buf, buf + 127, RW);
	gfx_window(&F, 1, buf + 128, buf + 255, RW);
	ck_assert_uint_eq(write_at(120, 16), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	check_canaries_except(0, 0);
	ck_assert_uint_eq(write_at(120, 8), TPU_SC_SUCCESS);
	ck_assert_uint_eq(write_at(128, 8), TPU_SC_SUCCESS);
	check_canaries_except(120, 16);
}
END_TEST

START_TEST(permissions_and_valid)
{
	gfx_window(&F, 0, buf, buf + BUF - 1, RO);
	ck_assert_uint_eq(write_at(0, 8), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(read_at(0, 8), TPU_SC_SUCCESS);
	gfx_window(&F, 0, buf, buf + BUF - 1, WO);
	ck_assert_uint_eq(read_at(0, 8), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	ck_assert_uint_eq(write_at(0, 8), TPU_SC_SUCCESS);
	memset(bufp, CANARY, BUF);
	/* R and W but not VALID */
	gfx_window(&F, 0, buf, buf + BUF - 1, TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK);
	ck_assert_uint_eq(write_at(0, 8), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(read_at(0, 8), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	/* limit below base matches nothing */
	gfx_window(&F, 0, buf + 64, buf + 63, RW);
	ck_assert_uint_eq(write_at(64, 8), TPU_SC_DMA_ACCESS_VIOLATION);
	/* an R-only and a W-only window over the same bytes: each direction finds its window */
	gfx_window(&F, 0, buf, buf + BUF - 1, RO);
	gfx_window(&F, 1, buf, buf + BUF - 1, WO);
	ck_assert_uint_eq(write_at(0, 8), TPU_SC_SUCCESS);
	ck_assert_uint_eq(read_at(0, 8), TPU_SC_SUCCESS);
	check_canaries_except(0, 8);
}
END_TEST

START_TEST(span_past_2_64)
{
	struct gfx_sqe s;

	gfx_window(&F, 0, 0xFFFFFFFFFFFFF000ull, UINT64_MAX, RW);
	/* addr + len wraps past 2^64: never matches, nothing moves */
	s = gfx_write_host(0xFFFFFFFFFFFFFFF8ull, 2, 8, 0, 0, false);
	gfx_record(&F);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	s = gfx_read_host(0xFFFFFFFFFFFFFFFFull, 1, 2, 0, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	/* strided rows whose span passes 2^64 */
	s = gfx_write_host(0xFFFFFFFFFFFFF000ull, 2, 8, 0x80000000u, 0, false);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_HI), 0xFFFFFFFFu);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_LO), 0xFFFFF000u);
	/* ending exactly at 2^64 - 1 matches; host memory refuses the unmapped IOVA, but the write
	 * is posted: the device sends it, cannot see the refusal, and the command succeeds with its
	 * RESULT (spec §5, §6.1 item 7). The error log still shows the last real error. */
	gfx_record(&F);
	s = gfx_write_host(0xFFFFFFFFFFFFFFF8ull, 1, 8, 0, 0, false);
	ck_assert_uint_eq(gfx_ok(&F, &s), 8);
	ck_assert_uint_eq(accesses_within(0xFFFFFFFFFFFFFFF8ull, 8), 8);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_ERRLOG_ADDR_LO), 0xFFFFF000u);
	/* a FENCE semaphore is window-checked too, and posted like data */
	gfx_record(&F);
	s = gfx_fence(0xFFFFFFFFFFFFFFF8ull, 1);
	ck_assert_uint_eq(gfx_ok(&F, &s), 0);
	ck_assert_uint_eq(accesses_within(0xFFFFFFFFFFFFFFF8ull, 8), 8);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), TPU_GSTAT_CMD_ERROR_MASK |
							 TPU_GSTAT_DMA_VIOLATION_MASK);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_WR_LO), 16);
	/* IDENTIFY's 4096-byte page passes 2^64 - 1 from here: violation, nothing sent */
	gfx_record(&F);
	s = gfx_identify(0xFFFFFFFFFFFFF008ull);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(accesses_within(0, 0), 0);
	check_canaries_except(0, 0);
}
END_TEST

START_TEST(stride_gaps_untouched)
{
	struct gfx_sqe s;

	gfx_window(&F, 0, buf, buf + BUF - 1, RW);
	/* 4 rows of 5 bytes, 13 apart: only those 20 bytes may change */
	s = gfx_write_host(buf + 100, 4, 5, 13, 0, false);
	gfx_record(&F);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SUCCESS);
	ck_assert_uint_eq(accesses_within(buf + 100, 3 * 13 + 5), 20);
	for (unsigned i = 0; i < BUF; i++) {
		bool row = i >= 100 && (i - 100) % 13 < 5 && (i - 100) / 13 < 4;

		if (!row)
			ck_assert_msg(bufp[i] == CANARY, "byte %u touched", i);
		else
			ck_assert_uint_eq(bufp[i], 0); /* UB starts at zero */
	}
	/* ACC rows: 4-byte elements */
	memset(bufp, CANARY, BUF);
	s = gfx_write_host(buf + 200, 3, 2, 20, 0, true);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SUCCESS);
	check_canaries_except(200, 48);
	for (unsigned i = 200; i < 248; i++)
		ck_assert_uint_eq(bufp[i], (i - 200) % 20 < 8 ? 0 : CANARY);
}
END_TEST

START_TEST(random_windows)
{
	/* Random window and span inside the buffer: the status follows the containment rule
	 * computed here, and no byte outside the allowed span moves. */
	uint64_t seed = harness_seed() ^ 0x77696eu;

	for (unsigned it = 0; it < 300; it++) {
		int64_t wb = harness_range(&seed, 0, BUF - 1), wl = harness_range(&seed, 0, BUF - 1);
		uint32_t rows = (uint32_t)harness_range(&seed, 1, 6);
		uint32_t cols = (uint32_t)harness_range(&seed, 1, 8);
		uint32_t stride = harness_range(&seed, 0, 1) ? 0 : (uint32_t)harness_range(&seed, cols, 40);
		uint64_t span = (uint64_t)(rows - 1) * (stride ? stride : cols) + cols;
		int64_t off = harness_range(&seed, 0, BUF - (int64_t)span);
		bool wr = harness_range(&seed, 0, 1), inside = off >= wb && off + (int64_t)span - 1 <= wl;
		struct gfx_sqe s = wr ? gfx_write_host(buf + off, rows, cols, stride, 0, false) :
					gfx_read_host(buf + off, rows, cols, stride, 0);

		memset(bufp, CANARY, BUF);
		gfx_window(&F, 0, buf + wb, buf + wl, wr ? WO : RO);
		gfx_window(&F, 1, buf + wb, buf + wl, wr ? RO : WO); /* wrong direction */
		gfx_record(&F);
		ck_assert_uint_eq(gfx_exec(&F, &s, NULL),
				  inside ? TPU_SC_SUCCESS : TPU_SC_DMA_ACCESS_VIOLATION);
		ck_assert_uint_eq(accesses_within(buf + off, span), inside ? rows * cols : 0);
		if (!inside || !wr)
			check_canaries_except(0, 0);
		else
			check_canaries_except((uint64_t)off, span);
	}
}
END_TEST

/* spec §5 "Window updates": an IDENTIFY rung just before window 0 is narrowed to another,
 * read-only buffer runs whole with the old window (golden: the window write runs it first; sim:
 * the device holds the write until the command is done), and the next commands see the new
 * window only. Loop i gives the sim device a head start of 0, 40, 120 or 400 cycles before the
 * window writes arrive (the IDENTIFY is then being fetched or is writing its 64 chunks); the
 * settle compares both devices' memory and completions after it. */
START_TEST(window_update_waits_for_command)
{
	static const unsigned head_start[] = { 0, 40, 120, 400 };
	uint64_t other;
	uint8_t *op = gfx_alloc(&F, BUF, &other);
	struct gfx_sqe s = gfx_identify(buf);
	struct gfx_cqe c;
	uint16_t cid = F.next_cid++;

	memset(op, CANARY, BUF);
	gfx_window(&F, 0, buf, buf + BUF - 1, RW);
	GFX_SET(&s, CID, cid);
	gfx_push(&F, 0, &s);
	gfx_hold(&F, true); /* on sim the window writes follow the doorbell without a settle */
	gfx_ring(&F, 0);
	if (F.sim)
		(void)tpu_sim_advance(F.sim, head_start[_i]);
	gfx_window(&F, 0, other, other + BUF - 1, RO);
	gfx_hold(&F, false);
	ck_assert_uint_eq(gfx_run(&F, 1), 1);
	ck_assert(gfx_reap(&F, 0, &c));
	ck_assert_uint_eq(c.cid, cid);
	ck_assert_msg(c.sc == TPU_SC_SUCCESS, "IDENTIFY: status 0x%x (the window changed under it)",
		      c.sc);
	ck_assert_uint_eq((uint32_t)bufp[0] | (uint32_t)bufp[1] << 8 | (uint32_t)bufp[2] << 16 |
				  (uint32_t)bufp[3] << 24,
			  TPU_ID);
	for (unsigned i = 0; i < BUF; i++)
		ck_assert_uint_eq(op[i], CANARY);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS) & TPU_CSTS_WPEND_MASK, 0);
	/* the new window only: the old buffer is outside it, the new one read-only */
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	s = gfx_identify(other);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	for (unsigned i = 0; i < BUF; i++)
		ck_assert_uint_eq(op[i], CANARY);
}
END_TEST

static Suite *build(const char *name, enum gfx_backend be)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("windows");

	if (!gfx_backend_has(be, NULL))
		return s;
	tcase_set_timeout(tc, 120); /* sim: random_windows takes a few seconds on a busy machine */
	tcase_add_checked_fixture(tc, be == GFX_SIM ? gfx_use_sim : gfx_use_golden, NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, edges_of_one_window);
	tcase_add_test(tc, straddling_two_windows);
	tcase_add_test(tc, permissions_and_valid);
	tcase_add_test(tc, span_past_2_64);
	tcase_add_test(tc, stride_gaps_untouched);
	tcase_add_test(tc, random_windows);
	tcase_add_loop_test(tc, window_update_waits_for_command, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

TPU_TEST_SUITE(suite_golden_dma)
static Suite *suite_golden_dma(void)
{
	return build("golden_dma", GFX_GOLDEN);
}

/* The same tests on the Verilated device, checked against a golden shadow (golden_fixture.h). */
TPU_TEST_SUITE(suite_sim_golden_dma)
static Suite *suite_sim_golden_dma(void)
{
	return build("sim_golden_dma", GFX_SIM);
}
