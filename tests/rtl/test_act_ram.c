/* Verilated rtl/common/tpu_ram.sv against a C array: random writes and reads on both ports (reads
 * often hit the word written the cycle before), read data held while re_i is low, and the
 * assertions on out-of-range addresses and on a read and write of one address in one cycle. Two parameter sets: the default 8 x 256
 * and a 37-bit x 100-word RAM (wide word, non-power-of-two depth). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../harness.h"
#include "verilated/tpu_vact.h"

static const struct tpu_vram_ops *const rams[] = {
	&tpu_vram_w8d256_ops,
	&tpu_vram_w37d100_ops,
};
#define N_RAMS ((int)(sizeof(rams) / sizeof(rams[0])))

#define MAX_DEPTH 256

START_TEST(ram_random_vs_array)
{
	const struct tpu_vram_ops *ops = rams[_i];
	uint64_t rng = harness_seed() ^ (0x7261ull << 16) ^ (uint64_t)_i;
	struct tpu_vram *h = ops->create(harness_rand(&rng));
	ck_assert_ptr_nonnull(h);
	uint64_t mask = ops->width >= 64 ? ~0ull : (1ull << ops->width) - 1;
	uint64_t mem[MAX_DEPTH];
	bool known[MAX_DEPTH] = { false };
	bool rd_known = false; /* rdata_o holds a word the model knows */
	uint64_t rd_expect = 0;
	unsigned checked = 0;

	uint32_t last_waddr = 0;
	for (int cyc = 0; cyc < 20000; cyc++) {
		bool we = harness_range(&rng, 0, 1);
		bool re = harness_range(&rng, 0, 2) != 0;
		uint32_t waddr = (uint32_t)harness_range(&rng, 0, ops->depth - 1);
		/* a third of the reads hit the address written the cycle before */
		uint32_t raddr = harness_range(&rng, 0, 2) == 0 ? last_waddr
			       : (uint32_t)harness_range(&rng, 0, ops->depth - 1);
		uint64_t wdata = harness_rand(&rng) & mask;
		if (we && re && waddr == raddr) /* not allowed: see ram_assertions_fire */
			we = false;
		if (we)
			last_waddr = waddr;

		ops->poke(h, we, waddr, wdata, re, raddr);
		if (rd_known) {
			uint64_t got = ops->peek(h);
			if (got != rd_expect)
				ck_abort_msg("%s cycle %d: rdata 0x%" PRIx64 ", want 0x%" PRIx64,
					     ops->name, cyc, got, rd_expect);
			checked++;
		}
		ck_assert_int_eq(ops->tick(h), 0);
		if (re) {
			rd_known = known[raddr];
			rd_expect = mem[raddr];
		}
		if (we) {
			mem[waddr] = wdata;
			known[waddr] = true;
		}
	}
	ck_assert_uint_gt(checked, 10000);
	ops->destroy(h);
}
END_TEST

START_TEST(ram_holds_without_re)
{
	const struct tpu_vram_ops *ops = rams[_i];
	uint64_t rng = harness_seed() ^ 0x686f6c64ull ^ (uint64_t)_i;
	struct tpu_vram *h = ops->create(harness_rand(&rng));
	ck_assert_ptr_nonnull(h);
	uint64_t mask = ops->width >= 64 ? ~0ull : (1ull << ops->width) - 1;
	uint64_t a = 0x5a5a5a5a5a5aull & mask, b = ~a & mask;

	ops->poke(h, true, 3, a, false, 0);
	ck_assert_int_eq(ops->tick(h), 0);
	ops->poke(h, true, 4, b, true, 3);
	ck_assert_int_eq(ops->tick(h), 0);
	ck_assert_uint_eq(ops->peek(h), a);
	/* re low: rdata keeps the word even when that address is overwritten */
	for (int i = 0; i < 5; i++) {
		ops->poke(h, true, 3, (uint64_t)i & mask, false, 4);
		ck_assert_int_eq(ops->tick(h), 0);
		ck_assert_uint_eq(ops->peek(h), a);
	}
	ops->poke(h, false, 0, 0, true, 4);
	ck_assert_int_eq(ops->tick(h), 0);
	ck_assert_uint_eq(ops->peek(h), b);
	ops->destroy(h);
}
END_TEST

/* The assertions are live: an address >= Depth (100), and a read and a write of one address
 * in one cycle, make tick() fail. */
START_TEST(ram_assertions_fire)
{
	const struct tpu_vram_ops *ops = &tpu_vram_w37d100_ops;
	printf("ram_assertions_fire: the two RTL assertion failures below are expected\n");
	struct tpu_vram *h = ops->create(harness_seed());
	ck_assert_ptr_nonnull(h);
	ops->poke(h, true, 99, 1, true, 98);
	ck_assert_int_eq(ops->tick(h), 0);
	ops->poke(h, false, 0, 0, true, 100);
	ck_assert_int_eq(ops->tick(h), -1);
	ops->destroy(h);

	h = ops->create(harness_seed() + 1);
	ck_assert_ptr_nonnull(h);
	ops->poke(h, true, 7, 1, true, 7);
	ck_assert_int_eq(ops->tick(h), -1);
	ops->destroy(h);
}
END_TEST

TPU_TEST_SUITE(suite_rtl_ram)
static Suite *suite_rtl_ram(void)
{
	Suite *s = suite_create("rtl_ram");
	TCase *tc = tcase_create("verilated");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, ram_random_vs_array, 0, N_RAMS);
	tcase_add_loop_test(tc, ram_holds_without_re, 0, N_RAMS);
	tcase_add_test(tc, ram_assertions_fire);
	suite_add_tcase(s, tc);
	return s;
}
