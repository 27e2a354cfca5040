/* Verilated tpu_datapath with the bf16 mode (Bf16: 16-bit UB and weight lanes) against a
 * reference written from docs/spec.md 6.12 and 7.1: random streams that mix bf16 and int8
 * MATMULs (overwrite, fp32 ACCUMULATE over several tiles, POP and tile reuse, transposed tiles),
 * with special values (NaN, infinities, signed zeros, subnormals, products that overflow or
 * underflow), accumulate hazards on consecutive rows, int8 MATMULs reading bf16-written UB rows
 * (int8 element k is byte k of the 2N-byte row) and UB_READ of bf16 rows; the float ACTIVATE
 * (fp32 bias add, SCALE, CLAMP, bf16 out to the UB or fp32 RAW32 to the ACC, the clamp count)
 * against the host's IEEE float arithmetic with the spec's rules. The column sums come from
 * tpu_bf16_dot (sw/golden/bf16.c, itself checked against the host's IEEE arithmetic in
 * tests/test_bf16_ieee.c); the RTL's fp functions are checked alone in test_mxu_fp.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bf16_hostref.h"
#include "../harness.h"
#include "test_mxu_util.h"
#include "tpu/bf16.h"
#include "tpu_dp_profiles.h"

typedef const struct tpu_vdp_ops *(*ops_fn)(void);
static const ops_fn models[] = {TPU_VDP_BF16_MODELS};
#define N_MODELS (int)(sizeof(models) / sizeof(models[0]))

#define MAXN TPU_VM_MAX_N
#define REF_UB 64
#define REF_ACC 64
#define REF_TILES 16
#define MM_BF16 0x8u /* datapath MATMUL flags[3] */
/* datapath ACTIVATE flags of a float row: [3] BF16, [0] SCALE, [1] RAW32, [2] CLAMP */
#define ACT_BF16 0x8u
#define ACT_SCALE 0x1u
#define ACT_RAW32 0x2u
#define ACT_CLAMP 0x4u
#define PARAM_BIAS 0u
#define PARAM_SCALE 5u
#define PARAM_FCLAMP 6u

struct ref {
	unsigned n;
	uint8_t ub[REF_UB][2 * MAXN]; /* the 2N bytes of each UB row */
	uint32_t acc[REF_ACC][MAXN];
	uint16_t tiles[REF_TILES][MAXN][MAXN]; /* W[k][j] lanes of the queued tiles */
	int tile_bf[REF_TILES];
	unsigned t_head, t_tail;
	uint16_t active[MAXN][MAXN];
	int active_bf;
};

static uint16_t ub_bf16(const struct ref *ref, unsigned row, unsigned k)
{
	return (uint16_t)(ref->ub[row][2 * k] | ref->ub[row][2 * k + 1] << 8);
}

/* Mostly normal values near 1 (cancellations, ties), sometimes a special value. */
static uint16_t rand_bf16(uint64_t *rng)
{
	static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x807F, 0x7F80, 0xFF80,
					   0x7FC0, 0xFF81, 0x7F7F, 0xFF7F, 0x0080, 0x0100, 0x1F80};
	uint32_t r = (uint32_t)harness_rand(rng);
	if (r % 32 == 0)
		return special[(r >> 5) % (sizeof(special) / sizeof(special[0]))];
	uint32_t e = (uint32_t)harness_range(rng, 116, 138);
	return (uint16_t)((r >> 16 & 0x8000u) | e << 7 | (r >> 8 & 0x7Fu));
}

static void push_tile(struct mxu_dp *d, struct ref *ref, uint64_t *rng, int bf)
{
	unsigned n = ref->n, slot = ref->t_tail % REF_TILES;
	int tr = (int)harness_range(rng, 0, 1);
	uint16_t rows16[MAXN * MAXN];
	int8_t rows8[MAXN * MAXN];

	ck_assert_uint_lt(ref->t_tail - ref->t_head, REF_TILES);
	for (unsigned i = 0; i < n * n; i++) {
		rows16[i] = rand_bf16(rng);
		rows8[i] = (int8_t)harness_rand(rng);
	}
	/* W[k][j] = X[k][j] or, transposed, X[j][k] (an int8 tile: the value, any high byte) */
	for (unsigned k = 0; k < n; k++)
		for (unsigned j = 0; j < n; j++) {
			unsigned i = tr ? j * n + k : k * n + j;
			ref->tiles[slot][k][j] = bf ? rows16[i] : (uint16_t)(uint8_t)rows8[i];
		}
	ref->tile_bf[slot] = bf;
	ref->t_tail++;
	if (bf)
		mxu_dp_push_tile16(d, rows16, tr);
	else
		mxu_dp_push_tile(d, rows8, tr);
}

static void fill_ub_row(struct mxu_dp *d, struct ref *ref, uint64_t *rng, unsigned row, int bf)
{
	unsigned n = ref->n;
	memset(ref->ub[row], 0, sizeof(ref->ub[row]));
	if (bf) {
		uint16_t v[MAXN];
		for (unsigned k = 0; k < n; k++) {
			v[k] = rand_bf16(rng);
			ref->ub[row][2 * k] = (uint8_t)v[k];
			ref->ub[row][2 * k + 1] = (uint8_t)(v[k] >> 8);
		}
		mxu_dp_write_ub16(d, row, v);
	} else {
		int8_t v[MAXN];
		for (unsigned k = 0; k < n; k++) {
			v[k] = (int8_t)harness_rand(rng);
			ref->ub[row][k] = (uint8_t)v[k]; /* bytes N..2N-1 stay 0 */
		}
		mxu_dp_write_ub(d, row, v);
	}
}

/* MATMUL of type bf on the active tile (after POP): the spec's column order from +0 over all N
 * PE rows, ACC = add(ACC, sum) with ACCUMULATE; int8: bytes 0..N-1, int32 wrap. */
static void do_matmul(struct mxu_dp *d, struct ref *ref, unsigned ub, unsigned accr,
		      unsigned rows, int accum, int pop, int bf)
{
	unsigned n = ref->n;
	if (pop) {
		ck_assert_uint_gt(ref->t_tail, ref->t_head);
		unsigned slot = ref->t_head++ % REF_TILES;
		memcpy(ref->active, ref->tiles[slot], sizeof(ref->active));
		ref->active_bf = ref->tile_bf[slot];
	}
	ck_assert_int_eq(ref->active_bf, bf); /* the command processor's type rule */
	for (unsigned r = 0; r < rows; r++)
		for (unsigned j = 0; j < n; j++) {
			uint32_t *acc = &ref->acc[accr + r][j];
			if (bf) {
				uint16_t x[MAXN], w[MAXN];
				for (unsigned k = 0; k < n; k++) {
					x[k] = ub_bf16(ref, ub + r, k);
					w[k] = ref->active[k][j];
				}
				uint32_t s = tpu_bf16_dot(x, w, n, 0);
				*acc = accum ? tpu_f32_add(*acc, s) : s;
			} else {
				int64_t s = 0;
				for (unsigned k = 0; k < n; k++)
					s += (int64_t)(int8_t)ref->ub[ub + r][k] *
					     (int8_t)(uint8_t)ref->active[k][j];
				*acc = (uint32_t)mxu_wrap32(accum ? (int64_t)(int32_t)*acc + s : s);
			}
		}
	mxu_dp_cmd(d, TPU_VDP_MATMUL,
		   (unsigned)accum | (unsigned)pop << 1 | (bf ? MM_BF16 : 0), ub, accr, rows, NULL,
		   0);
}

static void check_acc(struct mxu_dp *d, struct ref *ref, unsigned rows)
{
	static int32_t got[REF_ACC * MAXN];
	mxu_dp_read_acc(d, 0, rows, got);
	for (unsigned r = 0; r < rows; r++)
		for (unsigned j = 0; j < ref->n; j++)
			ck_assert_msg((uint32_t)got[r * ref->n + j] == ref->acc[r][j],
				      "N=%u ACC[%u][%u] = 0x%08x, want 0x%08x", ref->n, r, j,
				      (uint32_t)got[r * ref->n + j], ref->acc[r][j]);
}

static uint64_t test_seed(const char *what, int model)
{
	uint64_t s = harness_seed() ^ (0xb16u * (uint64_t)(model + 1)) ^ (uint64_t)what[0] << 40;
	printf("%s[%d]: seed 0x%" PRIx64 "\n", what, model, s);
	return s;
}

/* Random mixed streams. The tile types are chosen at push time; a MATMUL takes the type of the
 * tile it uses, as the command processor's SEQUENCE_ERROR rule makes every accepted one do.
 * idle: the chance of an idle cycle in each stream (0: accumulate hazards back to back). */
static void run_mix(int model, const char *what, int idle, int bf_pct)
{
	const struct tpu_vdp_ops *ops = models[model]();
	uint64_t rng = test_seed(what, model);
	struct mxu_dp d;
	struct ref *ref = calloc(1, sizeof(*ref));
	unsigned n = ops->n, mms = 0;

	ck_assert_ptr_nonnull(ref);
	ck_assert_uint_eq(ops->lane_bits, 16);
	ref->n = n;
	mxu_dp_open(&d, ops, rng, idle);
	for (unsigned r = 0; r < REF_UB; r++)
		fill_ub_row(&d, ref, &rng, r, (int)harness_range(&rng, 0, 99) < bf_pct);
	/* every ACC row gets defined contents first (the RAM starts random) */
	push_tile(&d, ref, &rng, 1);
	do_matmul(&d, ref, 0, 0, REF_ACC, 0, 1, 1);
	mms++;
	for (int c = 0; c < 60; c++) {
		int pop = ref->t_tail == ref->t_head ? 1 : (int)harness_range(&rng, 0, 1);
		if (pop && ref->t_tail == ref->t_head)
			push_tile(&d, ref, &rng, (int)harness_range(&rng, 0, 99) < bf_pct);
		else if (ref->t_tail - ref->t_head < 3 && harness_range(&rng, 0, 2) == 0)
			push_tile(&d, ref, &rng, (int)harness_range(&rng, 0, 99) < bf_pct);
		int bf = pop ? ref->tile_bf[ref->t_head % REF_TILES] : ref->active_bf;
		unsigned rows = (unsigned)harness_range(&rng, 1, 2 * n + 3);
		unsigned ub = (unsigned)harness_range(&rng, 0, REF_UB - rows);
		/* accumulate into a narrow ACC window, so rows hit recent ones */
		unsigned accr = (unsigned)harness_range(&rng, 0, (c % 3 ? 8 : REF_ACC) - 1);
		if (accr + rows > REF_ACC)
			accr = REF_ACC - rows;
		do_matmul(&d, ref, ub, accr, rows, (int)harness_range(&rng, 0, 3) != 0, pop, bf);
		mms++;
		if (c % 20 == 19) {
			/* rewrite some UB rows between MATMULs, of the other type too (after
			 * the MATMULs that read them: the command processor's order) */
			mxu_dp_drain(&d);
			for (int i = 0; i < 4; i++)
				fill_ub_row(&d, ref, &rng, (unsigned)harness_range(&rng, 0, REF_UB - 1),
					    (int)harness_range(&rng, 0, 1));
		}
	}
	mxu_dp_drain(&d);
	check_acc(&d, ref, REF_ACC);
	ck_assert_uint_eq(d.mm_done, mms);
	mxu_dp_close(&d);
	free(ref);
}

START_TEST(bf16_matmul_mixed)
{
	run_mix(_i, "bf16_matmul_mixed", 30, 60);
}
END_TEST

START_TEST(bf16_matmul_back_to_back)
{
	run_mix(_i, "bf16_matmul_back_to_back", 0, 100);
}
END_TEST

/* bf16 UB rows come back as written (all 2N bytes); an int8 write clears bytes N..2N-1. */
START_TEST(bf16_ub_roundtrip)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("bf16_ub_roundtrip", _i);
	struct mxu_dp d;
	struct ref *ref = calloc(1, sizeof(*ref));
	static uint16_t got[REF_UB * MAXN];
	unsigned n = ops->n;

	ck_assert_ptr_nonnull(ref);
	ref->n = n;
	mxu_dp_open(&d, ops, rng, 30);
	for (unsigned r = 0; r < 16; r++)
		fill_ub_row(&d, ref, &rng, r, 1);
	for (unsigned r = 0; r < 16; r += 3)
		fill_ub_row(&d, ref, &rng, r, 0);
	mxu_dp_read_ub16(&d, 0, 16, got);
	for (unsigned r = 0; r < 16; r++)
		for (unsigned k = 0; k < n; k++)
			ck_assert_msg(got[r * n + k] == ub_bf16(ref, r, k),
				      "UB[%u] element %u = 0x%04x, want 0x%04x", r, k, got[r * n + k],
				      ub_bf16(ref, r, k));
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* An fp32 parameter: a value of either sign near 1, sometimes zero, infinite, subnormal or huge
 * (never NaN: the command processor refuses NaN scales and limits). */
static uint32_t rand_f32_param(uint64_t *rng)
{
	static const uint32_t special[] = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000,
					   0x00000001, 0x7F7FFFFF, 0x00800000, 0x3F800000};
	uint32_t r = (uint32_t)harness_rand(rng);
	if (r % 8 == 0)
		return special[(r >> 3) % (sizeof(special) / sizeof(special[0]))];
	return (r & 0x807FFFFFu) | (uint32_t)harness_range(rng, 100, 150) << 23;
}

/* One float ACTIVATE value (spec 6.12): x = add(a, bias), x = mul(x, scale), clamp. */
static uint32_t ref_activate(uint32_t a, uint32_t bias, uint32_t scale, uint32_t fmin,
			     uint32_t fmax, unsigned flags, unsigned *clamped)
{
	uint32_t x = tpu_f32_add(a, bias);
	if (flags & ACT_SCALE)
		x = hr_mul32(x, scale);
	if (flags & ACT_CLAMP) {
		float v = hr_ftz(tpu_f32_to_float(x));
		if (!isnan(v) && v < hr_ftz(tpu_f32_to_float(fmin))) {
			x = fmin;
			++*clamped;
		} else if (!isnan(v) && v > hr_ftz(tpu_f32_to_float(fmax))) {
			x = fmax;
			++*clamped;
		}
	}
	return x;
}

START_TEST(bf16_activate)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("bf16_activate", _i);
	struct mxu_dp d;
	struct ref *ref = calloc(1, sizeof(*ref));
	static uint16_t got_ub[REF_UB * MAXN];
	static int32_t got_acc[REF_ACC * MAXN];
	unsigned n = ops->n;
	uint32_t bias[MAXN], scale[MAXN], lim[2];

	ck_assert_ptr_nonnull(ref);
	ref->n = n;
	mxu_dp_open(&d, ops, rng, 30);
	/* ACC rows 0..31 of fp32 column sums, specials included */
	for (unsigned r = 0; r < 32; r++)
		fill_ub_row(&d, ref, &rng, r, 1);
	push_tile(&d, ref, &rng, 1);
	do_matmul(&d, ref, 0, 0, 32, 0, 1, 1);
	for (int c = 0; c < 24; c++) {
		unsigned flags = ACT_BF16 | (unsigned)harness_range(&rng, 0, 7);
		unsigned rows = (unsigned)harness_range(&rng, 1, 12), clamped = 0;
		unsigned src = (unsigned)harness_range(&rng, 0, 32 - rows);
		/* RAW32: in place or into ACC rows 32.. (identical or disjoint, as the spec says) */
		unsigned dst = (flags & ACT_RAW32) ? (harness_range(&rng, 0, 1) ? src : 32 + src)
						   : (unsigned)harness_range(&rng, 32, REF_UB - rows);
		mxu_dp_drain(&d);
		for (unsigned j = 0; j < n; j++) {
			bias[j] = c % 4 == 0 ? 0 : rand_f32_param(&rng);
			scale[j] = rand_f32_param(&rng);
			mxu_dp_param(&d, PARAM_BIAS, j, bias[j]);
			mxu_dp_param(&d, PARAM_SCALE, j, scale[j]);
		}
		lim[0] = c % 3 == 0 ? 0 : rand_f32_param(&rng); /* ReLU every third */
		lim[1] = c % 3 == 0 ? 0x7F800000u : rand_f32_param(&rng);
		if (hr_ftz(tpu_f32_to_float(lim[0])) > hr_ftz(tpu_f32_to_float(lim[1]))) {
			uint32_t t = lim[0];
			lim[0] = lim[1];
			lim[1] = t;
		}
		/* (the command processor stores a limit after the input rules) */
		lim[0] = tpu_f32_canon(lim[0]);
		lim[1] = tpu_f32_canon(lim[1]);
		mxu_dp_param(&d, PARAM_FCLAMP, 0, lim[0]);
		mxu_dp_param(&d, PARAM_FCLAMP, 1, lim[1]);
		uint32_t want[16][MAXN];
		for (unsigned r = 0; r < rows; r++)
			for (unsigned j = 0; j < n; j++)
				want[r][j] = ref_activate(ref->acc[src + r][j], bias[j], scale[j],
							  lim[0], lim[1], flags, &clamped);
		unsigned done = d.act_done;
		mxu_dp_cmd(&d, TPU_VDP_ACTIVATE, flags, src, dst, rows, NULL, 0);
		mxu_dp_drain(&d);
		ck_assert_uint_eq(d.act_done, done + 1);
		ck_assert_msg(d.act_result == clamped, "ACTIVATE flags 0x%x: %u clamped, want %u",
			      flags, d.act_result, clamped);
		if (flags & ACT_RAW32) {
			for (unsigned r = 0; r < rows; r++)
				memcpy(ref->acc[dst + r], want[r], n * sizeof(uint32_t));
			mxu_dp_read_acc(&d, dst, rows, got_acc);
			for (unsigned r = 0; r < rows; r++)
				for (unsigned j = 0; j < n; j++)
					ck_assert_msg((uint32_t)got_acc[r * n + j] == want[r][j],
						      "RAW32 flags 0x%x ACC[%u][%u] = 0x%08x, want 0x%08x",
						      flags, dst + r, j, (uint32_t)got_acc[r * n + j],
						      want[r][j]);
		} else {
			mxu_dp_read_ub16(&d, dst, rows, got_ub);
			for (unsigned r = 0; r < rows; r++)
				for (unsigned j = 0; j < n; j++)
					ck_assert_msg(got_ub[r * n + j] == tpu_f32_to_bf16(want[r][j]),
						      "flags 0x%x UB[%u][%u] = 0x%04x, want 0x%04x (fp32 "
						      "0x%08x)", flags, dst + r, j, got_ub[r * n + j],
						      tpu_f32_to_bf16(want[r][j]), want[r][j]);
		}
	}
	ck_assert_uint_eq(d.out.params_loaded >> 5 & 3u, 3u); /* SCALE and FCLAMP loaded */
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

TPU_TEST_SUITE(suite_rtl_mxu_dp_bf16)
static Suite *suite_rtl_mxu_dp_bf16(void)
{
	Suite *s = suite_create("rtl_mxu_dp_bf16");
	TCase *tc = tcase_create("bf16");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, bf16_matmul_mixed, 0, N_MODELS);
	tcase_add_loop_test(tc, bf16_matmul_back_to_back, 0, N_MODELS);
	tcase_add_loop_test(tc, bf16_ub_roundtrip, 0, N_MODELS);
	tcase_add_loop_test(tc, bf16_activate, 0, N_MODELS);
	suite_add_tcase(s, tc);
	return s;
}
