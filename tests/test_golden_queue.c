/* Golden device queue engine: ring wrap and phase, SQ full, CQ back-pressure, round robin, bad
 * doorbells and BROKEN queues, queue configuration checks at enable, a fatal fetch error, and a
 * refused (posted) CQE write that the device does not notice. */
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"
#include "tpu/tpu_spec.h"

static struct gfx F;

static void bare_setup(void)
{
	gfx_setup_bare(&F, NULL);
	gfx_window(&F, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
}

static void teardown(void)
{
	gfx_teardown(&F);
}

static struct gfx_sqe nop(uint32_t cid, uint32_t tag)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_NOP);

	GFX_SET(&s, CID, cid);
	GFX_SET(&s, USER_TAG, tag);
	return s;
}

/* Drive one queue of the given sizes through `total` commands with random batching; check
 * every completion in order, the phase of each pass and the SQ head it reports. */
static void ring_stress(uint32_t sq_size, uint32_t cq_size, unsigned total, uint64_t *seed)
{
	unsigned submitted = 0, completed = 0, outstanding = 0, fetched = 0;
	uint32_t expect_head = 0;

	gfx_queue_setup(&F, 0, sq_size, cq_size);
	gfx_enable(&F);
	while (completed < total) {
		/* the host may own at most size - 1 SQ entries */
		unsigned room = sq_size - 1 - outstanding, n;
		n = room ? (unsigned)harness_range(seed, 0, room) : 0;
		for (unsigned i = 0; i < n && submitted < total; i++, submitted++, outstanding++) {
			struct gfx_sqe s = nop(submitted & 0xFFFF, submitted * 7u + 1);
			gfx_push(&F, 0, &s);
		}
		gfx_ring(&F, 0);
		fetched += gfx_run(&F, (unsigned)harness_range(seed, 0, sq_size + 1));
		/* the device SQ head advances by one per fetched command, modulo the size (checked
		 * before reaping: on sim, a CQ head doorbell lets the device go on at once) */
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)) & 0xFFFF, fetched % sq_size);
		/* the device never posts more than cq_size - 1 unconsumed entries */
		ck_assert_uint_le(fetched - completed, cq_size - 1);
		unsigned reap = (unsigned)harness_range(seed, 0, cq_size);
		struct gfx_cqe c;
		for (unsigned i = 0; i < reap && gfx_reap(&F, 0, &c); i++) {
			/* the pass through the CQ decides the phase */
			ck_assert_uint_eq(c.phase, (completed / cq_size) % 2 ? 0 : 1);
			ck_assert_uint_eq(c.cid, completed & 0xFFFF);
			ck_assert_uint_eq(c.user_tag, completed * 7u + 1);
			ck_assert_uint_eq(c.sc, TPU_SC_SUCCESS);
			ck_assert_uint_eq(c.sq_id, 0);
			expect_head = (expect_head + 1) % sq_size;
			ck_assert_uint_eq(c.sq_head, expect_head);
			completed++;
			outstanding--;
		}
		ck_assert_uint_le(completed, submitted);
	}
	ck_assert_uint_eq(submitted, total);
	struct gfx_cqe c;
	ck_assert(!gfx_reap(&F, 0, &c));
	ck_assert_uint_eq(gfx_run(&F, 10), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_CQ_TAIL(0)), total % cq_size);
}

START_TEST(ring_wrap_sizes)
{
	static const uint32_t sizes[] = { 2, 3, 4, 256 };
	uint64_t seed = harness_seed() ^ 0x72696e67u;
	uint32_t size = sizes[_i];

	ring_stress(size, size, 6 * size + 5, &seed);
}
END_TEST

START_TEST(ring_mixed_sizes)
{
	uint64_t seed = harness_seed() ^ 0x6d6978u;

	ring_stress(5, 2, 40, &seed);
	gfx_disable(&F);
	ring_stress(2, 7, 40, &seed);
}
END_TEST

START_TEST(sq_full_is_size_minus_one)
{
	struct gfx_cqe c;
	unsigned i;

	gfx_queue_setup(&F, 0, 4, 8);
	gfx_enable(&F);
	for (i = 0; i < 3; i++) {
		struct gfx_sqe s = nop(i, i);
		gfx_push(&F, 0, &s);
	}
	gfx_ring(&F, 0); /* tail 3: head 0 .. 2 owned by the device */
	ck_assert_uint_eq(gfx_run(&F, 100), 3);
	for (i = 0; i < 3; i++) {
		ck_assert(gfx_reap(&F, 0, &c));
		ck_assert_uint_eq(c.cid, i);
		ck_assert_uint_eq(c.sq_head, i + 1);
	}
	/* tail == head means empty: writing it again fetches nothing */
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 100), 0);
}
END_TEST

START_TEST(cq_backpressure)
{
	struct gfx_cqe c;
	unsigned i, got = 0;

	gfx_queue_setup(&F, 0, 8, 3);
	gfx_enable(&F);
	for (i = 0; i < 7; i++) {
		struct gfx_sqe s = nop(100 + i, i);
		gfx_push(&F, 0, &s);
	}
	gfx_ring(&F, 0);
	/* CQ of 3 holds 2: the device stalls instead of overwriting */
	ck_assert_uint_eq(gfx_run(&F, 100), 2);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)) & 0xFFFF, 2);
	ck_assert_uint_eq(gfx_run(&F, 100), 0);
	static const uint8_t zero[TPU_CQE_BYTES];
	ck_assert_int_eq(memcmp(F.q[0].cq + 2 * TPU_CQE_BYTES, zero, TPU_CQE_BYTES), 0);
	/* release one: exactly one more is fetched */
	ck_assert(gfx_reap(&F, 0, &c));
	ck_assert_uint_eq(c.cid, 100);
	got++;
	ck_assert_uint_eq(gfx_run(&F, 100), 1);
	ck_assert_uint_eq(gfx_run(&F, 100), 0);
	while (got < 7) {
		gfx_run(&F, 100);
		ck_assert(gfx_reap(&F, 0, &c));
		ck_assert_uint_eq(c.cid, 100 + got);
		ck_assert_uint_eq(c.sq_head, got + 1);
		got++;
	}
	ck_assert(!gfx_reap(&F, 0, &c));
	ck_assert_uint_eq(gfx_run(&F, 100), 0);
}
END_TEST

START_TEST(round_robin_one_at_a_time)
{
	unsigned i, q0 = 0, q1 = 0;
	int last = -1;

	gfx_queue_setup(&F, 0, 8, 8);
	gfx_queue_setup(&F, 1, 8, 8);
	gfx_enable(&F);
	for (i = 0; i < 3; i++) {
		struct gfx_sqe s = nop(i, 0);
		gfx_push(&F, 0, &s);
	}
	for (i = 0; i < 6; i++) {
		struct gfx_sqe s = nop(i, 1);
		gfx_push(&F, 1, &s);
	}
	/* both doorbells reach the device before it starts (sim) */
	gfx_record(&F);
	gfx_hold(&F, true);
	gfx_ring(&F, 0);
	gfx_ring(&F, 1);
	gfx_hold(&F, false);
	ck_assert_uint_eq(gfx_run(&F, 100), 9);
	/* Commands are served one at a time, alternating while both queues have work, then
	 * queue 1 drains: seen in the order of the CQE PHASE dword writes (the RTL may fetch
	 * several SQEs in one read, so fetches do not show it) */
	for (i = 0; i < F.nlog; i++) {
		const struct gfx_access *a = &F.log[i];
		int q;

		if (a->dir != HOSTMEM_WRITE || a->len != 4)
			continue;
		ck_assert_uint_eq((a->iova - F.q[a->iova >= F.q[1].cq_iova].cq_iova) % 16, 12);
		q = a->iova >= F.q[1].cq_iova && a->iova < F.q[1].cq_iova + 8 * 16;
		if (q0 < 3 && q1 < 3 && last >= 0)
			ck_assert_int_ne(q, last);
		q ? q1++ : q0++;
		last = q;
	}
	ck_assert_uint_eq(q0, 3);
	ck_assert_uint_eq(q1, 6);
	for (i = 0; i < 3; i++) {
		struct gfx_cqe c;
		ck_assert(gfx_reap(&F, 0, &c));
		ck_assert_uint_eq(c.sq_id, 0);
	}
	for (i = 0; i < 6; i++) {
		struct gfx_cqe c;
		ck_assert(gfx_reap(&F, 1, &c));
		ck_assert_uint_eq(c.sq_id, 1);
		ck_assert_uint_eq(c.cid, i);
	}
}
END_TEST

static void expect_broken(unsigned q)
{
	uint32_t st = gfx_rd(&F, TPU_REG_Q_STATUS(q));

	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT) & TPU_GSTAT_BAD_DOORBELL_MASK,
			  TPU_GSTAT_BAD_DOORBELL_MASK);
	ck_assert_uint_eq(st & TPU_Q_STATUS_BROKEN_MASK, TPU_Q_STATUS_BROKEN_MASK);
	ck_assert_uint_eq(st & TPU_Q_STATUS_ACTIVE_MASK, 0);
}

/* Push three NOPs on queue 0 without ringing, apply a doorbell write, and check that the queue
 * is broken and nothing was fetched, while queue 1 still works. */
static void bad_doorbell_case(uint32_t reg, uint32_t val, unsigned pre_completions)
{
	struct gfx_cqe c;
	unsigned i;

	gfx_queue_setup(&F, 0, 4, 4);
	gfx_queue_setup(&F, 1, 4, 4);
	gfx_enable(&F);
	for (i = 0; i < pre_completions; i++) {
		struct gfx_sqe s = nop(i, 0);
		gfx_push(&F, 0, &s);
	}
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 10), pre_completions);
	for (i = 0; i < 2; i++) {
		struct gfx_sqe s = nop(50 + i, 0);
		gfx_push(&F, 0, &s);
	}
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	gfx_wr(&F, reg, val);
	expect_broken(0);
	/* a good doorbell now is also bad (queue not active) and nothing is fetched */
	gfx_wr(&F, TPU_REG_GSTAT, TPU_GSTAT_BAD_DOORBELL_MASK);
	gfx_ring(&F, 0);
	expect_broken(0);
	gfx_record(&F);
	ck_assert_uint_eq(gfx_run(&F, 10), 0);
	ck_assert_uint_eq(F.nlog, 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)) & 0xFFFF, pre_completions % 4);
	/* the other queue is unaffected */
	struct gfx_sqe s = nop(9, 9);
	gfx_push(&F, 1, &s);
	gfx_ring(&F, 1);
	ck_assert_uint_eq(gfx_run(&F, 10), 1);
	ck_assert(gfx_reap(&F, 1, &c));
	ck_assert_uint_eq(c.cid, 9);
	/* recovery: CC.EN 0 -> 1 clears BROKEN and the ring pointers */
	gfx_disable(&F);
	gfx_enable(&F);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)), TPU_Q_STATUS_ACTIVE_MASK);
	s = nop(77, 0);
	gfx_push(&F, 0, &s);
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 10), 1);
	ck_assert(gfx_reap(&F, 0, &c));
	ck_assert_uint_eq(c.cid, 77);
	ck_assert_uint_eq(c.phase, 1);
}

START_TEST(bad_sq_tail)
{
	bad_doorbell_case(TPU_REG_SQ_TAIL_DB(0), 4, 0);
}
END_TEST

START_TEST(bad_sq_tail_huge)
{
	bad_doorbell_case(TPU_REG_SQ_TAIL_DB(0), 0xFFFFFFFF, 1);
}
END_TEST

START_TEST(bad_cq_head_size)
{
	bad_doorbell_case(TPU_REG_CQ_HEAD_DB(0), 4, 2);
}
END_TEST

START_TEST(bad_cq_head_beyond_tail)
{
	/* two posted (tail 2, head 0): head 3 would release an entry never posted */
	bad_doorbell_case(TPU_REG_CQ_HEAD_DB(0), 3, 2);
}
END_TEST

START_TEST(cq_head_legal_values)
{
	struct gfx_cqe c;
	unsigned i;

	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	for (i = 0; i < 3; i++) {
		struct gfx_sqe s = nop(i, 0);
		gfx_push(&F, 0, &s);
	}
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 10), 3);
	/* head may move anywhere in [old head, tail] */
	gfx_wr(&F, TPU_REG_CQ_HEAD_DB(0), 0);
	gfx_wr(&F, TPU_REG_CQ_HEAD_DB(0), 2);
	gfx_wr(&F, TPU_REG_CQ_HEAD_DB(0), 3);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	/* from head 3 == tail 3, going back to 2 would be 3 entries ahead: bad */
	gfx_wr(&F, TPU_REG_CQ_HEAD_DB(0), 2);
	expect_broken(0);
	(void)c;
}
END_TEST

START_TEST(doorbell_unconfigured_queue)
{
	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	gfx_wr(&F, TPU_REG_CQ_HEAD_DB(1), 0);
	expect_broken(1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)), TPU_Q_STATUS_ACTIVE_MASK);
}
END_TEST

START_TEST(doorbell_ignored_while_disabled)
{
	gfx_queue_setup(&F, 0, 4, 4);
	gfx_wr(&F, TPU_REG_SQ_TAIL_DB(0), 99);
	gfx_wr(&F, TPU_REG_CQ_HEAD_DB(0), 99);
	gfx_wr(&F, TPU_REG_SQ_TAIL_DB(1), 1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)), 0);
	/* a tail written while disabled is not remembered */
	struct gfx_sqe s = nop(1, 1);
	gfx_push(&F, 0, &s);
	gfx_wr(&F, TPU_REG_SQ_TAIL_DB(0), 1);
	gfx_enable(&F);
	ck_assert_uint_eq(gfx_run(&F, 10), 0);
}
END_TEST

START_TEST(disable_stops_fetching)
{
	struct gfx_sqe s = nop(1, 1);

	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	gfx_push(&F, 0, &s);
	gfx_hold(&F, true); /* on sim the disable follows the doorbell at once */
	gfx_ring(&F, 0);
	gfx_wr(&F, TPU_REG_CC, 0);
	gfx_hold(&F, false);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS) & TPU_CSTS_RDY_MASK, 0);
	gfx_record(&F);
	ck_assert_uint_eq(gfx_run(&F, 10), 0);
	ck_assert_uint_eq(F.nlog, 0);
}
END_TEST

struct cfg_case {
	uint32_t sq_size, cq_size, sq_off, cq_off;
	int ok;
};

START_TEST(queue_config_checked_at_enable)
{
	/* max_queue_entries = 16 for this test */
	static const struct cfg_case cases[] = {
		{ 2, 2, 0, 0, 1 },   { 16, 16, 0, 0, 1 }, { 1, 4, 0, 0, 0 },  { 4, 1, 0, 0, 0 },
		{ 17, 4, 0, 0, 0 },  { 4, 17, 0, 0, 0 },  { 4, 0, 0, 0, 0 },  { 4, 4, 32, 0, 0 },
		{ 4, 4, 0, 16, 0 },  { 4, 4, 64, 128, 1 }, { 0x80000004u, 4, 0, 0, 0 },
	};
	const struct cfg_case *t = &cases[_i];
	struct golden_config cfg;
	struct gfx f;
	uint64_t ring;
	uint32_t sq_size, cq_size;

	/* one device at a time: with two live Verilated instances, destroying one deadlocks in
	 * the Verilator runtime; the fixture's is recreated for its teardown at the end */
	gfx_teardown(&F);
	gfx_config_small(&cfg);
	cfg.max_queue_entries = 16;
	gfx_setup_bare(&f, &cfg);
	/* 16 and 17 stand for MAX_QUEUE_ENTRIES and one more: 16 on golden, the Verilated
	 * model's own limit on sim (its configuration replaced cfg) */
	sq_size = t->sq_size == 16 ? f.cfg.max_queue_entries :
		  t->sq_size == 17 ? f.cfg.max_queue_entries + 1 : t->sq_size;
	cq_size = t->cq_size == 16 ? f.cfg.max_queue_entries :
		  t->cq_size == 17 ? f.cfg.max_queue_entries + 1 : t->cq_size;
	gfx_alloc(&f, 8192, &ring);
	gfx_queue_setup(&f, 1, 4, 4); /* a good neighbour */
	gfx_wr(&f, TPU_REG_SQ_BASE_LO(0), (uint32_t)(ring + t->sq_off));
	gfx_wr(&f, TPU_REG_SQ_BASE_HI(0), (uint32_t)((ring + t->sq_off) >> 32));
	gfx_wr(&f, TPU_REG_CQ_BASE_LO(0), (uint32_t)(ring + 4096 + t->cq_off));
	gfx_wr(&f, TPU_REG_CQ_BASE_HI(0), (uint32_t)((ring + 4096) >> 32));
	gfx_wr(&f, TPU_REG_SQ_SIZE(0), sq_size);
	gfx_wr(&f, TPU_REG_CQ_SIZE(0), cq_size);
	gfx_enable(&f);
	if (t->ok) {
		ck_assert_uint_eq(gfx_rd(&f, TPU_REG_GSTAT), 0);
		ck_assert_uint_eq(gfx_rd(&f, TPU_REG_Q_STATUS(0)), TPU_Q_STATUS_ACTIVE_MASK);
	} else {
		ck_assert_uint_eq(gfx_rd(&f, TPU_REG_GSTAT), TPU_GSTAT_QUEUE_CONFIG_ERR_MASK);
		ck_assert_uint_eq(gfx_rd(&f, TPU_REG_Q_STATUS(0)), TPU_Q_STATUS_BROKEN_MASK);
	}
	ck_assert_uint_eq(gfx_rd(&f, TPU_REG_Q_STATUS(1)), TPU_Q_STATUS_ACTIVE_MASK);
	struct gfx_sqe s = nop(3, 3);
	struct gfx_cqe c;
	gfx_push(&f, 1, &s);
	gfx_ring(&f, 1);
	ck_assert_uint_eq(gfx_run(&f, 10), 1);
	ck_assert(gfx_reap(&f, 1, &c));
	gfx_teardown(&f);
	bare_setup();
}
END_TEST

START_TEST(unused_queue_not_checked)
{
	gfx_wr(&F, TPU_REG_CQ_SIZE(1), 1); /* nonsense, but SQ_SIZE = 0: queue unused */
	gfx_wr(&F, TPU_REG_CQ_BASE_LO(1), 3);
	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(1)), 0);
}
END_TEST

START_TEST(sq_fetch_error_is_fatal)
{
	uint64_t hole = GFX_IOVA_BASE + GFX_ARENA_SIZE - 4096; /* never allocated */
	struct gfx_sqe s = nop(1, 1);

	gfx_queue_setup(&F, 1, 4, 4);
	gfx_wr(&F, TPU_REG_SQ_BASE_LO(0), (uint32_t)hole);
	gfx_wr(&F, TPU_REG_SQ_BASE_HI(0), (uint32_t)(hole >> 32));
	gfx_wr(&F, TPU_REG_SQ_SIZE(0), 4);
	gfx_wr(&F, TPU_REG_CQ_BASE_LO(0), (uint32_t)hole);
	gfx_wr(&F, TPU_REG_CQ_BASE_HI(0), (uint32_t)(hole >> 32));
	gfx_wr(&F, TPU_REG_CQ_SIZE(0), 4);
	gfx_enable(&F);
	gfx_wr(&F, TPU_REG_SQ_TAIL_DB(0), 1);
	gfx_push(&F, 1, &s);
	gfx_ring(&F, 1);
	ck_assert_uint_eq(gfx_run(&F, 10), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), TPU_GSTAT_SQ_FETCH_ERR_MASK);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), TPU_CSTS_CFS_MASK);
	ck_assert_uint_eq(gfx_run(&F, 10), 0);
	/* only RESET clears CFS: re-enabling leaves the device stopped */
	gfx_wr(&F, TPU_REG_CC, 0);
	gfx_wr(&F, TPU_REG_CC, 1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), TPU_CSTS_CFS_MASK);
	gfx_wr(&F, TPU_REG_RESET, TPU_RESET_MAGIC);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), 0);
	gfx_window(&F, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	gfx_push(&F, 0, &s);
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 10), 1);
}
END_TEST

/* CQE writes are posted (spec §3 item 6): a CQE host memory refuses is lost, the device does not
 * notice (no CQ_POST_ERR, no CFS) and goes on; the driver's timeout and reset recover. */
START_TEST(cq_post_refused_is_lost)
{
	struct gfx_sqe s1 = nop(1, 0x11), s2 = nop(2, 0x22), s3 = nop(3, 0x33);
	struct gfx_cqe c;
	uint32_t dw3;
	unsigned i;

	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	gfx_fail_range(&F, F.q[0].cq_iova, TPU_CQE_BYTES, HOSTMEM_WRITE, false); /* slot 0 only */
	gfx_push(&F, 0, &s1);
	gfx_push(&F, 0, &s2);
	gfx_record(&F);
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 10), 2);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), TPU_CSTS_RDY_MASK);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_STATUS(0)), TPU_Q_STATUS_ACTIVE_MASK | 2);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_Q_CQ_TAIL(0)), 2);
	/* both CQEs were sent (12 + 4 bytes each, inside their slots), after two SQE fetches */
	ck_assert_uint_eq(F.nlog, 6);
	for (i = 0; i < F.nlog; i++) {
		const struct gfx_access *a = &F.log[i];

		if (a->dir == HOSTMEM_READ) {
			ck_assert_uint_ge(a->iova, F.q[0].sq_iova);
			ck_assert_uint_le(a->iova + a->len, F.q[0].sq_iova + 2 * TPU_SQE_BYTES);
		} else {
			ck_assert_uint_ge(a->iova, F.q[0].cq_iova);
			ck_assert_uint_le(a->iova + a->len, F.q[0].cq_iova + 2 * TPU_CQE_BYTES);
		}
	}
	/* the refused slot is untouched, the next one holds the second CQE, the rest is 0 */
	for (i = 0; i < TPU_CQE_BYTES; i++)
		ck_assert_uint_eq(F.q[0].cq[i], 0);
	for (i = 2 * TPU_CQE_BYTES; i < 4 * TPU_CQE_BYTES; i++)
		ck_assert_uint_eq(F.q[0].cq[i], 0);
	memcpy(&dw3, F.q[0].cq + TPU_CQE_BYTES + 12, 4); /* little-endian host, as the spec */
	ck_assert_uint_eq(dw3 >> TPU_CQE_CID_SHIFT & TPU_CQE_CID_MASK, 2);
	ck_assert_uint_eq(dw3 >> TPU_CQE_PHASE_SHIFT & 1, 1);
	/* the host waits at slot 0 and never sees a completion: its timeout fires */
	ck_assert(!gfx_peek(&F, 0, &c));
	/* recovery: RESET, reprogram, enable; commands complete again */
	gfx_fail_off(&F);
	gfx_wr(&F, TPU_REG_RESET, TPU_RESET_MAGIC);
	gfx_window(&F, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
	gfx_queue_setup(&F, 0, 4, 4);
	gfx_enable(&F);
	gfx_push(&F, 0, &s3);
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 10), 1);
	ck_assert(gfx_reap(&F, 0, &c));
	ck_assert_uint_eq(c.cid, 3);
	ck_assert_uint_eq(c.user_tag, 0x33);
	ck_assert_uint_eq(c.sc, TPU_SC_SUCCESS);
}
END_TEST

static Suite *build(const char *name, enum gfx_backend be)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("queue");

	if (!gfx_backend_has(be, NULL))
		return s;
	tcase_add_checked_fixture(tc, be == GFX_SIM ? gfx_use_sim : gfx_use_golden, NULL);
	tcase_add_checked_fixture(tc, bare_setup, teardown);
	/* the ring stress cases run ~1 s each on the Verilated device: Check's default 4 s
	 * limit is too close on a loaded 2-core machine */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, ring_wrap_sizes, 0, 4);
	tcase_add_test(tc, ring_mixed_sizes);
	tcase_add_test(tc, sq_full_is_size_minus_one);
	tcase_add_test(tc, cq_backpressure);
	tcase_add_test(tc, round_robin_one_at_a_time);
	tcase_add_test(tc, bad_sq_tail);
	tcase_add_test(tc, bad_sq_tail_huge);
	tcase_add_test(tc, bad_cq_head_size);
	tcase_add_test(tc, bad_cq_head_beyond_tail);
	tcase_add_test(tc, cq_head_legal_values);
	tcase_add_test(tc, doorbell_unconfigured_queue);
	tcase_add_test(tc, doorbell_ignored_while_disabled);
	tcase_add_test(tc, disable_stops_fetching);
	tcase_add_loop_test(tc, queue_config_checked_at_enable, 0, 11);
	tcase_add_test(tc, unused_queue_not_checked);
	tcase_add_test(tc, sq_fetch_error_is_fatal);
	tcase_add_test(tc, cq_post_refused_is_lost);
	suite_add_tcase(s, tc);
	return s;
}

TPU_TEST_SUITE(suite_golden_queue)
static Suite *suite_golden_queue(void)
{
	return build("golden_queue", GFX_GOLDEN);
}

/* The same tests on the Verilated device, checked against a golden shadow (golden_fixture.h). */
TPU_TEST_SUITE(suite_sim_golden_queue)
static Suite *suite_sim_golden_queue(void)
{
	return build("sim_golden_queue", GFX_SIM);
}
