/* Cycle behaviour of the Verilated tpu_datapath (docs/datapath.md "Timing"): with the weight
 * FIFO kept fed, T back-to-back MATMULs with POP of M >= N rows each end (last ACC write,
 * mm_done) exactly T*M + 2N + 2 cycles after the first command was accepted, and the MXU takes
 * a row in every one of the T*M issue cycles. Also checks the results (overwrite then
 * accumulate across tiles) against a plain int64 reference. The board options' model (AccSlice,
 * ProdReg, UbLatency 2: one cycle more each) must keep the tiles back to back too (UbLatency 2:
 * the switch row's two-cycle look-ahead at the shadow tile). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "test_mxu_util.h"
#include "tpu_dp_profiles.h"

typedef const struct tpu_vdp_ops *(*ops_fn)(void);
/* the profiles of rtl/profiles.toml in the "cycles" set */
static const ops_fn models[] = {TPU_VDP_CYCLES_MODELS};
#define N_MODELS (int)(sizeof(models) / sizeof(models[0]))
#define MAXN TPU_VM_MAX_N
#define T_TILES 9

static void run_back_to_back(int model, unsigned m_extra)
{
	const struct tpu_vdp_ops *ops = models[model]();
	unsigned n = ops->n, m = n + m_extra, lat = 2 * n + 2 + ops->mm_extra;
	uint64_t rng = harness_seed() ^ (0xc7c1e5ull * (uint64_t)(model + 1)) ^ m;
	struct mxu_dp d;
	static int8_t ub[256][MAXN], tiles[T_TILES][MAXN * MAXN];
	static int64_t want[256][MAXN];

	printf("cycles[N=%u, M=%u]: seed 0x%" PRIx64 "\n", n, m, rng);
	ck_assert_uint_le(m, 256 / 2);
	mxu_dp_open(&d, ops, rng, 0);
	for (unsigned r = 0; r < m; r++) {
		for (unsigned k = 0; k < n; k++)
			ub[r][k] = (int8_t)harness_rand(&rng);
		mxu_dp_write_ub(&d, r, ub[r]);
	}
	memset(want, 0, sizeof(want));
	for (unsigned t = 0; t < T_TILES; t++) {
		for (unsigned i = 0; i < n * n; i++)
			tiles[t][i] = (int8_t)harness_rand(&rng);
		mxu_dp_push_tile(&d, tiles[t], 0);
		/* tile t, rows into ACC rows (t % 2) * m: even tiles overwrite, then accumulate */
		for (unsigned r = 0; r < m; r++)
			for (unsigned j = 0; j < n; j++) {
				int64_t s = 0;
				for (unsigned k = 0; k < n; k++)
					s += (int64_t)ub[r][k] * tiles[t][k * n + j];
				want[(t % 2) * m + r][j] = (t < 2 ? 0 : want[(t % 2) * m + r][j]) + s;
			}
	}
	/* let the FIFO fill and the first tile reach the shadow registers */
	for (unsigned c = 0; c < 8 * n; c++)
		mxu_dp_step(&d);
	uint64_t busy0 = d.out.perf_mxu_busy, first = 0;
	for (unsigned t = 0; t < T_TILES; t++) {
		mxu_dp_cmd(&d, TPU_VDP_MATMUL, (t >= 2) | 2u, 0, (t % 2) * m, m, NULL, 0);
		if (t == 0)
			first = d.last_accept_cycle;
	}
	mxu_dp_drain(&d);
	ck_assert_uint_eq(d.mm_done, T_TILES);
	ck_assert_uint_eq(d.out.perf_mxu_busy - busy0, (uint64_t)T_TILES * m);
	ck_assert_msg(d.last_mm_done_cycle - first == (uint64_t)T_TILES * m + lat,
		      "%s: N=%u M=%u: last write %" PRIu64 " cycles after the first accept, want %u",
		      ops->name, n, m, d.last_mm_done_cycle - first, T_TILES * m + lat);

	static int32_t got[256 * MAXN];
	mxu_dp_read_acc(&d, 0, 2 * m, got);
	for (unsigned r = 0; r < 2 * m; r++)
		for (unsigned j = 0; j < n; j++)
			ck_assert_int_eq(got[r * n + j], mxu_wrap32(want[r][j]));
	mxu_dp_close(&d);
}

START_TEST(tiles_back_to_back_m_eq_n)
{
	run_back_to_back(_i, 0);
}
END_TEST

START_TEST(tiles_back_to_back_m_gt_n)
{
	run_back_to_back(_i, 3);
	run_back_to_back(_i, 17);
}
END_TEST

TPU_TEST_SUITE(suite_rtl_mxu_cycles)
static Suite *suite_rtl_mxu_cycles(void)
{
	Suite *s = suite_create("rtl_mxu_cycles");
	TCase *tc = tcase_create("cycles");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, tiles_back_to_back_m_eq_n, 0, N_MODELS);
	tcase_add_loop_test(tc, tiles_back_to_back_m_gt_n, 0, N_MODELS);
	suite_add_tcase(s, tc);
	return s;
}
