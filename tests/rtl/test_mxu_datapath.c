/* Verilated tpu_datapath against an independent reference (plain int64 loops with int32 wrap,
 * and tpu_activate() from the golden numerics) at N = 4, 6, 8, 16: random MATMUL sequences
 * (overwrite, accumulate, POP and weight reuse, transposed tiles) with random idle and
 * back-pressure cycles, accumulate hazards on consecutive rows and commands, -128 x -128 over a
 * long K, accumulator wrap-around, ACTIVATE (int8, LUT, RAW32) and the perf counters; also with
 * the board options AccSlice (a two-stage ACC read-modify-write), ProdReg (PE product
 * registers), CmdSlice, AccLatency and Ub2Latency 2 (ACC / UB_READ read latency 2); and the
 * STREAM_MATMUL devices' overlaps (StreamMm): a chained ACTIVATE, a BIAS PARAM beside it, a
 * chained UB_READ. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "test_mxu_util.h"
#include "tpu_dp_profiles.h"
#include "tpu/numerics.h"

typedef const struct tpu_vdp_ops *(*ops_fn)(void);
/* every profile of rtl/profiles.toml in the "datapath" set (the default options at N = 4, 6,
 * 8, 16, the boards' options, the STREAM_MATMUL overlaps); accumulate_same_row runs the odd
 * indices without idle cycles */
static const ops_fn models[] = {TPU_VDP_DATAPATH_MODELS};
#define N_MODELS (int)(sizeof(models) / sizeof(models[0]))

#define MAXN TPU_VM_MAX_N
#define REF_UB 256
#define REF_ACC 256
#define REF_TILES 64

/* The reference device: what each command must do, written from docs/spec.md 6.6/6.7. */
struct ref {
	unsigned n;
	int8_t ub[REF_UB][MAXN];
	int32_t acc[REF_ACC][MAXN];
	int8_t tiles[REF_TILES][MAXN][MAXN]; /* W[k][j] of the queued tiles */
	unsigned t_head, t_tail;
	int8_t active[MAXN][MAXN];
};

static uint64_t test_seed(const char *what, int model)
{
	uint64_t s = harness_seed() ^ (0x9e37u * (uint64_t)(model + 1)) ^ (uint64_t)what[0] << 40;
	printf("%s[%d]: seed 0x%" PRIx64 "\n", what, model, s);
	return s;
}

static void random_tile(uint64_t *rng, unsigned n, int8_t *rows, int8_t w[MAXN][MAXN], int tr,
			int lo, int hi)
{
	for (unsigned r = 0; r < n; r++)
		for (unsigned c = 0; c < n; c++)
			rows[r * n + c] = (int8_t)harness_range(rng, lo, hi);
	/* W[k][j] = X[k][j] or, transposed, X[j][k] */
	for (unsigned k = 0; k < n; k++)
		for (unsigned j = 0; j < n; j++)
			w[k][j] = tr ? rows[j * n + k] : rows[k * n + j];
}

static void push_tile(struct mxu_dp *d, struct ref *ref, uint64_t *rng, int lo, int hi)
{
	int8_t rows[MAXN * MAXN];
	int tr = (int)harness_range(rng, 0, 1);
	ck_assert_uint_lt(ref->t_tail - ref->t_head, REF_TILES);
	random_tile(rng, ref->n, rows, ref->tiles[ref->t_tail % REF_TILES], tr, lo, hi);
	ref->t_tail++;
	mxu_dp_push_tile(d, rows, tr);
}

static void ref_matmul(struct ref *ref, unsigned ub, unsigned accr, unsigned rows, int accum,
		       int pop)
{
	unsigned n = ref->n;
	if (pop) {
		ck_assert_uint_gt(ref->t_tail, ref->t_head);
		memcpy(ref->active, ref->tiles[ref->t_head % REF_TILES], sizeof(ref->active));
		ref->t_head++;
	}
	for (unsigned r = 0; r < rows; r++)
		for (unsigned j = 0; j < n; j++) {
			int64_t s = 0;
			for (unsigned k = 0; k < n; k++)
				s += (int64_t)ref->ub[ub + r][k] * ref->active[k][j];
			ref->acc[accr + r][j] =
				mxu_wrap32(accum ? (int64_t)ref->acc[accr + r][j] + s : s);
		}
}

static void do_matmul(struct mxu_dp *d, struct ref *ref, unsigned ub, unsigned accr,
		      unsigned rows, int accum, int pop)
{
	ref_matmul(ref, ub, accr, rows, accum, pop);
	mxu_dp_cmd(d, TPU_VDP_MATMUL, (unsigned)accum | (unsigned)pop << 1, ub, accr, rows, NULL, 0);
}

static void fill_ub(struct mxu_dp *d, struct ref *ref, uint64_t *rng, unsigned rows, int lo,
		    int hi)
{
	for (unsigned r = 0; r < rows; r++) {
		for (unsigned k = 0; k < ref->n; k++)
			ref->ub[r][k] = (int8_t)harness_range(rng, lo, hi);
		mxu_dp_write_ub(d, r, ref->ub[r]);
	}
}

static void check_acc(struct mxu_dp *d, struct ref *ref, unsigned addr, unsigned rows)
{
	static int32_t got[REF_ACC * MAXN];
	mxu_dp_read_acc(d, addr, rows, got);
	for (unsigned r = 0; r < rows; r++)
		for (unsigned j = 0; j < ref->n; j++)
			ck_assert_msg(got[r * ref->n + j] == ref->acc[addr + r][j],
				      "N=%u ACC[%u][%u] = %d, want %d", ref->n, addr + r, j,
				      got[r * ref->n + j], ref->acc[addr + r][j]);
}

static struct ref *ref_new(unsigned n)
{
	struct ref *ref = calloc(1, sizeof(*ref));
	ck_assert_ptr_nonnull(ref);
	ref->n = n;
	return ref;
}

/* Random command mix: every MATMUL flavour, overlapping ACC ranges, then read everything. */
START_TEST(matmul_random)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("matmul_random", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);
	unsigned n = ops->n;

	mxu_dp_open(&d, ops, rng, 30);
	fill_ub(&d, ref, &rng, 64, -128, 127);
	/* ACC rows 0..63 get defined contents first (RAM starts random) */
	push_tile(&d, ref, &rng, -128, 127);
	do_matmul(&d, ref, 0, 0, 64, 0, 1);
	for (int c = 0; c < 40; c++) {
		int pop = ref->t_tail == ref->t_head ? 0 : (int)harness_range(&rng, 0, 1);
		if (ref->t_tail - ref->t_head < 3 && harness_range(&rng, 0, 2) == 0)
			push_tile(&d, ref, &rng, -128, 127);
		unsigned rows = (unsigned)harness_range(&rng, 1, 2 * n + 3);
		unsigned ub = (unsigned)harness_range(&rng, 0, 64 - rows);
		unsigned accr = (unsigned)harness_range(&rng, 0, 64 - rows);
		do_matmul(&d, ref, ub, accr, rows, (int)harness_range(&rng, 0, 1), pop);
	}
	mxu_dp_drain(&d);
	check_acc(&d, ref, 0, 64);
	ck_assert_uint_eq(d.mm_done, 41);
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* Short POP MATMULs back to back without idle cycles: a switch row may issue while the previous
 * one is still before the MXU and must then wait for its own tile, not take that one's (with
 * UbLatency 2 the issue looks two cycles ahead and counts the switch row in stage s1). Overwrite,
 * then accumulate into the same rows through the next tiles. */
START_TEST(pop_short_back_to_back)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("pop_short_back_to_back", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);
	unsigned rows[12];

	mxu_dp_open(&d, ops, rng, 0);
	fill_ub(&d, ref, &rng, 16, -128, 127);
	for (int t = 0; t < 24; t++)
		push_tile(&d, ref, &rng, -128, 127);
	for (unsigned c = 0; c < 24; c++) {
		if (c < 12)
			rows[c] = (unsigned)harness_range(&rng, 1, 3);
		do_matmul(&d, ref, (unsigned)harness_range(&rng, 0, 13), 3 * (c % 12), rows[c % 12],
			  c >= 12, 1);
	}
	mxu_dp_drain(&d);
	for (unsigned c = 0; c < 12; c++)
		check_acc(&d, ref, 3 * c, rows[c]);
	ck_assert_uint_eq(d.mm_done, 24);
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* Read-modify-write hazards: one-row accumulates into the same ACC row back to back (each
 * row's read meets the previous row's write), and two-row commands that overlap by one. */
START_TEST(accumulate_same_row)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("accumulate_same_row", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);

	mxu_dp_open(&d, ops, rng, _i & 1 ? 0 : 20); /* also without idle cycles: worst case */
	fill_ub(&d, ref, &rng, 16, -128, 127);
	push_tile(&d, ref, &rng, -128, 127);
	push_tile(&d, ref, &rng, -128, 127);
	do_matmul(&d, ref, 0, 5, 4, 0, 1);
	for (int c = 0; c < 30; c++)
		do_matmul(&d, ref, (unsigned)harness_range(&rng, 0, 15), 5, 1, 1, 0);
	do_matmul(&d, ref, 3, 6, 2, 1, 1);
	for (int c = 0; c < 10; c++)
		do_matmul(&d, ref, (unsigned)c, 6 + (unsigned)(c & 1), 2, 1, 0);
	mxu_dp_drain(&d);
	check_acc(&d, ref, 5, 4);
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* -128 x -128 over a long K (K = 12 N through popped tiles, then 64 N more through weight
 * reuse, one-row commands back to back), then the accumulator wrap: RAW32 moves the sums close
 * to INT32_MAX and further accumulates must wrap in two's complement. */
START_TEST(edge_long_k_and_wrap)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("edge_long_k", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);
	unsigned n = ops->n;
	const int32_t target = INT32_MAX - 3 * 16384 * (int32_t)n;

	mxu_dp_open(&d, ops, rng, 10);
	fill_ub(&d, ref, &rng, 4, -128, -128);
	do {
		push_tile(&d, ref, &rng, -128, -128);
	} while (ref->t_tail < 12);
	for (int t = 0; t < 12; t++)
		do_matmul(&d, ref, 0, 0, 4, t > 0, 1);
	mxu_dp_drain(&d);
	check_acc(&d, ref, 0, 4);
	ck_assert_int_eq(ref->acc[0][0], 12 * (int32_t)n * 16384);
	d.idle_pct = 0;
	for (int t = 0; t < 64; t++)
		do_matmul(&d, ref, 0, 0, 1, 1, 0);
	mxu_dp_drain(&d);
	check_acc(&d, ref, 0, 4);
	ck_assert_int_eq(ref->acc[0][0], 76 * (int32_t)n * 16384);
	/* ACC = ACC + bias moves rows 1..3 (12 N 16384 each) to `target`, 3 steps below the top */
	for (unsigned j = 0; j < n; j++)
		mxu_dp_param(&d, 0, j, (uint32_t)(target - 12 * (int32_t)n * 16384));
	mxu_dp_cmd(&d, TPU_VDP_ACTIVATE, 2, 0, 0, 4, NULL, 0);
	for (unsigned r = 0; r < 4; r++)
		for (unsigned j = 0; j < n; j++)
			ref->acc[r][j] = tpu_wrap_add(ref->acc[r][j], target - 12 * (int32_t)n * 16384);
	ck_assert_int_eq(ref->acc[1][0], target);
	for (int t = 0; t < 5; t++)
		do_matmul(&d, ref, 0, 1, 2, 1, 0);
	mxu_dp_drain(&d);
	check_acc(&d, ref, 0, 4);
	ck_assert_int_lt(ref->acc[1][0], 0); /* wrapped past INT32_MAX */
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* Random activation channels (bias, multiplier, shift in [shift_lo, shift_hi]), written as
 * PARAMs. */
static void write_channels(struct mxu_dp *d, uint64_t *rng, unsigned n, struct tpu_act_channel *ch,
			   int shift_lo, int shift_hi)
{
	for (unsigned j = 0; j < n; j++) {
		ch[j].bias = (int32_t)harness_range(rng, -40000, 40000);
		ch[j].multiplier = (int32_t)harness_range(rng, 1 << 30, INT32_MAX);
		ch[j].shift = (int32_t)harness_range(rng, shift_lo, shift_hi);
		mxu_dp_param(d, 0, j, (uint32_t)ch[j].bias);
		mxu_dp_param(d, 1, j, (uint32_t)ch[j].multiplier);
		mxu_dp_param(d, 2, j, (uint32_t)ch[j].shift);
	}
}

/* ACTIVATE int8 (with and without LUT) and RAW32 against tpu_activate(); saturation counts. */
START_TEST(activate_random)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("activate_random", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);
	unsigned n = ops->n;
	struct tpu_act_channel ch[MAXN];
	int8_t lut[256];
	struct tpu_act_output outp;

	mxu_dp_open(&d, ops, rng, 30);
	fill_ub(&d, ref, &rng, 32, -128, 127);
	push_tile(&d, ref, &rng, -128, 127);
	do_matmul(&d, ref, 0, 0, 32, 0, 1);
	write_channels(&d, &rng, n, ch, -12, 1);
	outp.zero_point = (int32_t)harness_range(&rng, -20, 20);
	outp.qmin = (int32_t)harness_range(&rng, -128, -60);
	outp.qmax = (int32_t)harness_range(&rng, 40, 127);
	outp.lut = NULL;
	mxu_dp_param(&d, 4, 0, (uint32_t)(uint8_t)outp.zero_point |
			       (uint32_t)(uint8_t)outp.qmin << 8 | (uint32_t)(uint8_t)outp.qmax << 16);
	for (unsigned i = 0; i < 256; i++) {
		lut[i] = (int8_t)harness_rand(&rng);
		mxu_dp_param(&d, 3, i, (uint32_t)(uint8_t)lut[i]);
	}
	for (int pass = 0; pass < 2; pass++) {
		static int8_t got[32 * MAXN];
		unsigned rows = 32, sat = 0;
		outp.lut = pass ? lut : NULL;
		mxu_dp_cmd(&d, TPU_VDP_ACTIVATE, (unsigned)pass, 0, 100, rows, NULL, 0);
		mxu_dp_drain(&d);
		ck_assert_uint_eq(d.act_done, (unsigned)pass + 1);
		mxu_dp_read_ub(&d, 100, rows, got);
		for (unsigned r = 0; r < rows; r++)
			for (unsigned j = 0; j < n; j++) {
				bool s = false;
				int8_t want = tpu_activate(ref->acc[r][j], &ch[j], &outp, &s);
				sat += s;
				ck_assert_msg(got[r * n + j] == want, "N=%u act[%u][%u] = %d, want %d",
					      n, r, j, got[r * n + j], want);
			}
		ck_assert_uint_eq(d.act_result, sat);
	}
	/* RAW32 in place: ACC = ACC + bias, then a MATMUL accumulate on top */
	mxu_dp_cmd(&d, TPU_VDP_ACTIVATE, 2, 0, 0, 32, NULL, 0);
	for (unsigned r = 0; r < 32; r++)
		for (unsigned j = 0; j < n; j++)
			ref->acc[r][j] = tpu_wrap_add(ref->acc[r][j], ch[j].bias);
	do_matmul(&d, ref, 0, 0, 32, 1, 0);
	mxu_dp_drain(&d);
	check_acc(&d, ref, 0, 32);
	ck_assert_uint_eq(d.out.params_loaded, 0x1f);
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* The STREAM_MATMUL devices' overlaps, back to back (no idle cycles), against the reference:
 * MATMUL m0 (ACC rows 64..), MATMUL m1 (ACC rows 0..R-1), ACTIVATE A1 of m1's rows (chained
 * on m1: it must skip m0's rows still in flight and see m1's results, not those of m2 below),
 * a UB_READ of A1's output rows (chained on A1: each row
 * once written), MATMUL m2 accumulating into the same ACC rows (beside A1), N BIAS PARAMs
 * (beside A1: A1 must keep the old bias, A2 must see the new one), ACTIVATE A2 of m1 + m2.
 * The "stream" set holds models with the StreamMm overlaps (the test checks that each overlap
 * happened) and without them (same results, in order). */
static const ops_fn chain_models[] = {TPU_VDP_STREAM_MODELS};
#define N_CHAIN_MODELS (int)(sizeof(chain_models) / sizeof(chain_models[0]))

static void act_ref_rows(struct ref *ref, unsigned rows, const struct tpu_act_channel *ch,
			 const struct tpu_act_output *outp, int8_t *want)
{
	for (unsigned r = 0; r < rows; r++)
		for (unsigned j = 0; j < ref->n; j++) {
			bool s = false;
			want[r * ref->n + j] = tpu_activate(ref->acc[r][j], &ch[j], outp, &s);
		}
}

static void check_rows(unsigned n, unsigned rows, const int8_t *got, const int8_t *want,
		       const char *what)
{
	for (unsigned r = 0; r < rows; r++)
		for (unsigned j = 0; j < n; j++)
			ck_assert_msg(got[r * n + j] == want[r * n + j], "%s[%u][%u] = %d, want %d",
				      what, r, j, got[r * n + j], want[r * n + j]);
}

START_TEST(chain_bias_beside)
{
	const struct tpu_vdp_ops *ops = chain_models[_i]();
	uint64_t rng = test_seed("chain_bias_beside", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);
	unsigned n = ops->n;
	const unsigned R = 3 * n; /* rows per MATMUL: UB m0 96.., m1 0.., m2 32..; outputs 128.., 192.. */
	struct tpu_act_channel ch[MAXN], ch2[MAXN];
	struct tpu_act_output outp = {0};
	static int8_t got[64 * MAXN], want1[64 * MAXN], want2[64 * MAXN];

	mxu_dp_open(&d, ops, rng, 0);
	for (unsigned r = 0; r < 128; r++) {
		for (unsigned k = 0; k < n; k++)
			ref->ub[r][k] = (int8_t)harness_range(&rng, -128, 127);
		mxu_dp_write_ub(&d, r, ref->ub[r]);
	}
	write_channels(&d, &rng, n, ch, -12, -6);
	for (unsigned j = 0; j < n; j++) {
		ch2[j] = ch[j];
		ch2[j].bias = (int32_t)harness_range(&rng, -40000, 40000);
	}
	outp.qmin = -128;
	outp.qmax = 127;
	mxu_dp_param(&d, 4, 0, (uint32_t)(uint8_t)outp.qmin << 8 | (uint32_t)(uint8_t)outp.qmax << 16);
	push_tile(&d, ref, &rng, -128, 127);
	push_tile(&d, ref, &rng, -128, 127);
	for (unsigned t = 0; t < 4 * n; t++) /* both tiles in the FIFO */
		mxu_dp_step(&d);

	do_matmul(&d, ref, 96, 64, R, 0, 1);
	do_matmul(&d, ref, 0, 0, R, 0, 0);
	act_ref_rows(ref, R, ch, &outp, want1);
	uint64_t m1_acc = d.last_accept_cycle;
	mxu_dp_cmd(&d, TPU_VDP_ACTIVATE, 0, 0, 128, R, NULL, 0);
	uint64_t a1_acc = d.last_accept_cycle;
	size_t rd_base = d.rd_rows;
	mxu_dp_cmd(&d, TPU_VDP_UB_READ, 0, 128, 0, R, NULL, 0);
	uint64_t r1_acc = d.last_accept_cycle;
	do_matmul(&d, ref, 32, 0, R, 1, 1);
	uint64_t m2_acc = d.last_accept_cycle;
	uint64_t b_acc = 0;
	for (unsigned j = 0; j < n; j++) {
		mxu_dp_param(&d, 0, j, (uint32_t)ch2[j].bias);
		if (j == 0)
			b_acc = d.last_accept_cycle;
	}
	unsigned a1_done = d.act_done;
	uint64_t a1_end = d.last_act_done_cycle;
	mxu_dp_cmd(&d, TPU_VDP_ACTIVATE, 0, 0, 192, R, NULL, 0);
	mxu_dp_drain(&d);
	act_ref_rows(ref, R, ch2, &outp, want2);

	ck_assert_uint_eq(d.act_done, 2);
	ck_assert_uint_ge(d.rd_rows, rd_base + R);
	for (unsigned r = 0; r < R; r++)
		for (unsigned j = 0; j < n; j++)
			got[r * n + j] = (int8_t)(uint8_t)(d.rd[(rd_base + r) * n + j / 4] >> (8 * (j % 4)));
	check_rows(n, R, got, want1, "chained UB_READ of A1");
	mxu_dp_read_ub(&d, 128, R, got);
	check_rows(n, R, got, want1, "A1");
	mxu_dp_read_ub(&d, 192, R, got);
	check_rows(n, R, got, want2, "A2");
	check_acc(&d, ref, 0, R);
	check_acc(&d, ref, 64, R);
	printf("chain_bias_beside[%d]: m1 %" PRIu64 ", A1 %" PRIu64 ", read %" PRIu64
	       ", m2 %" PRIu64 ", bias %" PRIu64 ", A1 done %" PRIu64 " (%u)\n",
	       _i, m1_acc, a1_acc, r1_acc, m2_acc, b_acc, a1_end, a1_done);
	if (ops->stream_mm) {
		/* each overlap happened: A1 right behind m1 (before m1's first row is written,
		 * 2N + 2 cycles after it), the read right behind A1, m2 as m1 issues its last row,
		 * the bias while A1 still ran */
		ck_assert_uint_le(a1_acc, m1_acc + 2);
		ck_assert_uint_le(r1_acc, a1_acc + 2);
		ck_assert_uint_le(m2_acc, m1_acc + R + 2);
		ck_assert_uint_eq(a1_done, 0);
		ck_assert_uint_lt(b_acc, d.last_act_done_cycle);
	}
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* A UB row read as soon as it is written, no idle cycles (UbWrReg registers the UB write):
 * UB_WRITEs each followed at once by a MATMUL of that row, or by a UB_READ of it; then an
 * ACTIVATE of one row followed at once by a MATMUL of its output row, or by a UB_READ of it.
 * A write that lands too late gives the row's old contents (random after reset). (No
 * UB_WRITE into a row a running MATMUL still reads: the device top keeps that order.) */
START_TEST(ub_write_read_back_to_back)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("ub_write_read_back_to_back", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);
	unsigned n = ops->n;
	struct tpu_act_channel ch[MAXN];
	struct tpu_act_output outp = {0};
	static int8_t got[MAXN], want[2 * MAXN];
	const unsigned K = 6, row = 20, out = 8;

	mxu_dp_open(&d, ops, rng, 0);
	push_tile(&d, ref, &rng, -128, 127);
	for (unsigned i = 0; i < K; i++) {
		unsigned a = row + 2 * i;
		for (unsigned k = 0; k < n; k++) {
			ref->ub[a][k] = (int8_t)harness_range(&rng, -128, 127);
			ref->ub[a + 1][k] = (int8_t)harness_range(&rng, -128, 127);
		}
		mxu_dp_write_ub(&d, a, ref->ub[a]);
		do_matmul(&d, ref, a, i, 1, 0, i == 0);
		mxu_dp_write_ub(&d, a + 1, ref->ub[a + 1]);
		mxu_dp_read_ub(&d, a + 1, 1, got);
		check_rows(n, 1, got, ref->ub[a + 1], "UB_READ after UB_WRITE");
	}
	write_channels(&d, &rng, n, ch, -12, -6);
	outp.qmin = -128;
	outp.qmax = 127;
	mxu_dp_param(&d, 4, 0, (uint32_t)(uint8_t)outp.qmin << 8 | (uint32_t)(uint8_t)outp.qmax << 16);
	for (unsigned i = 0; i < 2; i++) {
		/* ACTIVATE of ACC row i into UB row out + i, then at once a MATMUL of that row
		 * (i == 0) or a UB_READ of it (i == 1) */
		act_ref_rows(ref, i + 1, ch, &outp, want);
		memcpy(ref->ub[out + i], &want[i * n], n);
		mxu_dp_cmd(&d, TPU_VDP_ACTIVATE, 0, i, out + i, 1, NULL, 0);
		if (i == 0) {
			do_matmul(&d, ref, out, 16, 1, 0, 0);
		} else {
			mxu_dp_read_ub(&d, out + 1, 1, got);
			check_rows(n, 1, got, ref->ub[out + 1], "UB_READ after ACTIVATE");
		}
	}
	mxu_dp_drain(&d);
	check_acc(&d, ref, 0, K);
	check_acc(&d, ref, 16, 1);
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

/* Performance counters: MACs = N^2 per row, MXU-busy = rows. */
START_TEST(perf_counters)
{
	const struct tpu_vdp_ops *ops = models[_i]();
	uint64_t rng = test_seed("perf_counters", _i);
	struct mxu_dp d;
	struct ref *ref = ref_new(ops->n);
	unsigned n = ops->n, total = 0;

	mxu_dp_open(&d, ops, rng, 25);
	fill_ub(&d, ref, &rng, 32, -128, 127);
	push_tile(&d, ref, &rng, -128, 127);
	for (int c = 0; c < 5; c++) {
		unsigned rows = (unsigned)harness_range(&rng, 1, 32);
		do_matmul(&d, ref, 0, 0, rows, 0, c == 0);
		total += rows;
	}
	mxu_dp_drain(&d);
	ck_assert_uint_eq(d.out.perf_mxu_busy, total);
	ck_assert_uint_eq(d.out.perf_macs, (uint64_t)total * n * n);
	ck_assert_uint_ge(d.out.perf_busy, total);
	ck_assert_uint_le(d.out.perf_busy, d.cycle);
	mxu_dp_close(&d);
	free(ref);
}
END_TEST

TPU_TEST_SUITE(suite_rtl_mxu_datapath)
static Suite *suite_rtl_mxu_datapath(void)
{
	Suite *s = suite_create("rtl_mxu_datapath");
	TCase *tc = tcase_create("datapath");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, matmul_random, 0, N_MODELS);
	tcase_add_loop_test(tc, accumulate_same_row, 0, N_MODELS);
	tcase_add_loop_test(tc, pop_short_back_to_back, 0, N_MODELS);
	tcase_add_loop_test(tc, edge_long_k_and_wrap, 0, N_MODELS);
	tcase_add_loop_test(tc, activate_random, 0, N_MODELS);
	tcase_add_loop_test(tc, perf_counters, 0, N_MODELS);
	tcase_add_loop_test(tc, ub_write_read_back_to_back, 0, N_MODELS);
	tcase_add_loop_test(tc, chain_bias_beside, 0, N_CHAIN_MODELS);
	suite_add_tcase(s, tc);
	return s;
}
