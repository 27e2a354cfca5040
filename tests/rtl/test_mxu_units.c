/* Unit tests of the MXU building blocks, Verilated, against models written from their header
 * contracts: tpu_pe (Row 1), tpu_systolic_array (N = 6: every output row = sum_k A[r][k] W[k][j]
 * in int64 wrapped to int32, exactly 2N cycles after its input, tiles switched by the wavefront
 * bit while the next tile shifts in; with Bf16 also bf16 tiles whose columns are the fp32 sums
 * of docs/spec.md 7.1, tpu_bf16_dot), tpu_weight_fifo (N = 6, 4 tiles, plain and transposed
 * tiles, random idle and back-pressure, capacity). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "test_mxu_util.h"
#include "tpu/bf16.h"

#define MAXN TPU_VM_MAX_N

static uint64_t unit_seed(const char *what)
{
	uint64_t s = harness_seed() ^ (uint64_t)what[0] << 32 ^ (uint64_t)what[1] << 24;
	printf("%s: seed 0x%" PRIx64 "\n", what, s);
	return s;
}

/* ---------------------------------------------------------------- PE */
START_TEST(pe_random)
{
	const struct tpu_vpe_ops *ops = tpu_vpe_ops();
	uint64_t rng = unit_seed("pe_random");
	void *m = ops->create(rng);
	struct tpu_vpe_in in = {.rst = 1};
	struct tpu_vpe_out out;
	/* model registers; w_* known only once loaded */
	int8_t a_q = 0, w_act = 0, w_sh = 0;
	int act_known = 0, sh_known = 0, checked = 0;
	int32_t psum_q = 0;
	int psum_known = 0;

	ops->step(m, &in, &out);
	ops->step(m, &in, &out);
	in.rst = 0;
	for (int c = 0; c < 4000; c++) {
		in.a = (int8_t)harness_rand(&rng);
		in.v = (int)harness_range(&rng, 0, 1);
		in.swap = in.v && harness_range(&rng, 0, 5) == 0;
		in.psum = (int32_t)harness_rand(&rng);
		in.wp = (int8_t)harness_rand(&rng);
		in.take = harness_range(&rng, 0, 3) == 0;
		if (c < 2) { /* start with a known shadow and active weight */
			in.take = 1, in.v = c, in.swap = c;
		}
		ops->step(m, &in, &out);
		if (c > 0)
			ck_assert_int_eq(out.a, a_q);
		if (psum_known) {
			ck_assert_int_eq(out.psum, psum_q);
			checked++;
		}
		/* the clock edge, as the header describes it */
		psum_known = act_known && c > 0;
		psum_q = mxu_wrap32((int64_t)in.psum + (int64_t)a_q * w_act);
		if (in.swap) {
			w_act = w_sh;
			act_known = sh_known;
		}
		if (in.take) {
			w_sh = in.wp;
			sh_known = 1;
		}
		a_q = in.a;
	}
	ck_assert_int_gt(checked, 3000);
	ops->destroy(m);
}
END_TEST

/* ---------------------------------------------------------------- systolic array */
#define ARR_TILES 12
#define ARR_MAXQ 4096

/* _i = 0: the PEs' own multipliers; 1: PairMul (tpu_mul_pair); 2: the iCEBreaker's array
 * (PairMul = 2, ProdReg: one cycle more; NarrowSum: operands often -128 / 127, so the partial
 * sums reach the ends of their narrow widths); 3: the bf16 array (Bf16 = 1): each tile is
 * int8 or bf16 at random and its rows have its type; bf16 columns must equal tpu_bf16_dot
 * from +0 (the spec's order), int8 lanes carry random high bytes that must not matter */
static int8_t arr_val(uint64_t *rng, int extreme)
{
	if (extreme) {
		unsigned r = (unsigned)harness_range(rng, 0, 3);
		if (r == 0)
			return -128;
		if (r == 1)
			return 127;
	}
	return (int8_t)harness_rand(rng);
}

/* A bf16 operand: mostly normal values near 1 (so that sums cancel and round), sometimes a
 * zero, subnormal, infinity, NaN or a value whose products overflow or underflow. */
static uint16_t arr_bf16(uint64_t *rng)
{
	static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x807F, 0x7F80, 0xFF80,
					   0x7FC0, 0xFF81, 0x7F7F, 0xFF00, 0x0080, 0x1000};
	uint32_t r = (uint32_t)harness_rand(rng);
	if (r % 64 == 0)
		return special[(r >> 6) % (sizeof(special) / sizeof(special[0]))];
	uint32_t e = (uint32_t)harness_range(rng, 118, 136);
	return (uint16_t)((r >> 16 & 0x8000u) | e << 7 | (r >> 8 & 0x7Fu));
}

/* One lane of a row or tile of type bf: a bf16 value, or an int8 value with a random high byte
 * (bf16 models) that the int8 product must ignore. */
static uint16_t arr_lane(uint64_t *rng, int bf, int bf_model, int ext)
{
	if (bf)
		return arr_bf16(rng);
	uint16_t hi = bf_model ? (uint16_t)(harness_rand(rng) << 8) : 0;
	return (uint16_t)(hi | (uint8_t)arr_val(rng, ext));
}

START_TEST(array_random_tiles)
{
	const struct tpu_varr_ops *ops = _i == 3   ? tpu_varr_n6_bf16_ops()
				       : _i == 2 ? tpu_varr_n4_narrow_ops()
				       : _i	 ? tpu_varr_n6_pair_ops()
						 : tpu_varr_n6_ops();
	unsigned n = ops->n, lat = 2 * n + (_i == 2);
	int ext = _i == 2, bfm = ops->lane_bits == 16;
	uint64_t rng = unit_seed("array_random_tiles");
	void *m = ops->create(rng);
	struct tpu_varr_in in;
	struct tpu_varr_out out;
	static uint16_t w[ARR_TILES][MAXN][MAXN];
	int tbf[ARR_TILES]; /* tile t is bf16 */
	unsigned bf_rows = 0;
	static int32_t want[ARR_MAXQ][MAXN];
	static uint64_t want_cycle[ARR_MAXQ];
	unsigned q_head = 0, q_tail = 0;
	int cur = -1, loading = 0;          /* active tile; tile being loaded */
	unsigned order[MAXN], w_sent = 0, rows_left = 0, m_rows = 0;
	uint64_t load_done = 0;
	int loaded_full = 0;

	memset(&in, 0, sizeof(in));
	in.rst = 1;
	ops->step(m, &in, &out);
	ops->step(m, &in, &out);
	in.rst = 0;
	for (unsigned t = 0; t < ARR_TILES; t++) {
		tbf[t] = bfm && harness_range(&rng, 0, 1);
		for (unsigned k = 0; k < n; k++)
			for (unsigned j = 0; j < n; j++)
				w[t][k][j] = arr_lane(&rng, tbf[t], bfm, ext);
	}
	for (unsigned k = 0; k < n; k++)
		order[k] = k;

	for (uint64_t cyc = 0; cur < ARR_TILES; cyc++) {
		ck_assert_uint_lt(cyc, 100000);
		/* weights of tile `loading`, any order, random gaps; only after the previous switch */
		memset(&in, 0, sizeof(in));
		for (unsigned j = 0; j < n; j++) {
			in.wt_lane[j] = (uint16_t)harness_rand(&rng);
			in.in_lane[j] = (uint16_t)harness_rand(&rng);
		}
		in.in_bf = (int)harness_range(&rng, 0, 1); /* ignored without in_valid */
		in.wt_k = (unsigned)harness_range(&rng, 0, n - 1);
		in.in_sw = (int)harness_range(&rng, 0, 1); /* ignored without in_valid */
		if (loading == cur + 1 && loading < ARR_TILES && !loaded_full) {
			if (w_sent == 0) /* a fresh random order for this tile */
				for (unsigned k = n - 1; k > 0; k--) {
					unsigned x = (unsigned)harness_range(&rng, 0, k), t = order[k];
					order[k] = order[x], order[x] = t;
				}
			if (harness_range(&rng, 0, 3) != 0) {
				unsigned k = order[w_sent++];
				in.wt_valid = 1;
				in.wt_k = k;
				memcpy(in.wt_lane, w[loading][k], n * sizeof(w[0][0][0]));
				if (w_sent == n) {
					loaded_full = 1;
					load_done = cyc;
				}
			}
		}
		/* activation rows: the current tile's, or the next tile's switch row */
		if (harness_range(&rng, 0, 3) != 0) {
			int sw = 0;
			if (rows_left == 0 && loaded_full && cyc > load_done) {
				sw = 1;
				cur++;
				loading = cur + 1;
				loaded_full = 0;
				w_sent = 0;
				m_rows = (unsigned)harness_range(&rng, 1, 2 * n + 2);
				rows_left = m_rows;
			}
			if (rows_left > 0 && cur < ARR_TILES) {
				in.in_valid = 1;
				in.in_sw = sw;
				in.in_bf = tbf[cur];
				bf_rows += (unsigned)tbf[cur];
				rows_left--;
				ck_assert_uint_lt(q_tail - q_head, ARR_MAXQ);
				for (unsigned k = 0; k < n; k++)
					in.in_lane[k] = arr_lane(&rng, tbf[cur], bfm, ext);
				for (unsigned j = 0; j < n; j++) {
					uint16_t col[MAXN];
					int64_t s = 0;
					for (unsigned k = 0; k < n; k++) {
						col[k] = w[cur][k][j];
						s += (int64_t)(int8_t)in.in_lane[k] * (int8_t)col[k];
					}
					want[q_tail % ARR_MAXQ][j] =
						tbf[cur] ? (int32_t)tpu_bf16_dot(in.in_lane, col, n, 0)
							 : mxu_wrap32(s);
				}
				want_cycle[q_tail % ARR_MAXQ] = cyc + lat;
				q_tail++;
			}
		}
		for (unsigned j = 0; j < n; j++) { /* the 8-bit models' view of the lanes */
			in.in_row[j] = (int8_t)in.in_lane[j];
			in.wt_row[j] = (int8_t)in.wt_lane[j];
		}
		ops->step(m, &in, &out);
		if (out.out_valid) {
			ck_assert_msg(q_head != q_tail, "unexpected output row");
			ck_assert_uint_eq(cyc, want_cycle[q_head % ARR_MAXQ]);
			for (unsigned j = 0; j < n; j++)
				ck_assert_int_eq(out.out_row[j], want[q_head % ARR_MAXQ][j]);
			q_head++;
		} else {
			ck_assert_msg(q_head == q_tail || want_cycle[q_head % ARR_MAXQ] != cyc,
				      "missing output row");
		}
		if (cur == ARR_TILES - 1 && rows_left == 0 && q_head == q_tail)
			break;
	}
	ck_assert_uint_gt(q_tail, ARR_TILES);
	if (bfm) /* both kinds of tile ran */
		ck_assert(bf_rows > 0 && bf_rows < q_tail);
	ops->destroy(m);
}
END_TEST

/* ---------------------------------------------------------------- weight FIFO */
#define WF_TILES_TOTAL 40

START_TEST(fifo_random)
{
	const struct tpu_vwf_ops *ops = tpu_vwf_n6_ops();
	unsigned n = ops->n;
	uint64_t rng = unit_seed("fifo_random");
	void *m = ops->create(rng);
	struct tpu_vwf_in in;
	struct tpu_vwf_out out;
	static int8_t x[WF_TILES_TOTAL][MAXN][MAXN], w[WF_TILES_TOTAL][MAXN][MAXN];
	int tr[WF_TILES_TOTAL];
	unsigned in_rows = 0, out_rows = 0, offer = 0;
	int idle_in = (int)harness_range(&rng, 0, 60), idle_out = (int)harness_range(&rng, 0, 60);

	for (unsigned t = 0; t < WF_TILES_TOTAL; t++) {
		tr[t] = (int)harness_range(&rng, 0, 1);
		for (unsigned r = 0; r < n; r++)
			for (unsigned c = 0; c < n; c++)
				x[t][r][c] = (int8_t)harness_rand(&rng);
		for (unsigned k = 0; k < n; k++)
			for (unsigned j = 0; j < n; j++)
				w[t][k][j] = tr[t] ? x[t][j][k] : x[t][k][j];
	}
	memset(&in, 0, sizeof(in));
	in.rst = 1;
	ops->step(m, &in, &out);
	ops->step(m, &in, &out);
	in.rst = 0;
	for (uint64_t cyc = 0; out_rows < WF_TILES_TOTAL * n; cyc++) {
		ck_assert_uint_lt(cyc, 100000);
		if (!offer && in_rows < WF_TILES_TOTAL * n && harness_range(&rng, 0, 99) >= idle_in)
			offer = 1;
		in.in_valid = (int)offer;
		if (offer) {
			memcpy(in.in_row, x[in_rows / n][in_rows % n], n);
			in.in_transpose = tr[in_rows / n];
		} else {
			for (unsigned j = 0; j < n; j++)
				in.in_row[j] = (int8_t)harness_rand(&rng);
			in.in_transpose = (int)harness_range(&rng, 0, 1);
		}
		/* drain in bursts so the FIFO also runs full */
		in.out_ready = harness_range(&rng, 0, 99) >= idle_out && (cyc / 64) % 3 != 1;
		ops->step(m, &in, &out);
		ck_assert_uint_le(out.used, ops->tiles);
		/* the promised capacity: Tiles tiles in, beyond the one leaving */
		unsigned held = (in_rows + n - 1) / n - out_rows / n;
		if (in_rows % n == 0 && held < ops->tiles)
			ck_assert_msg(out.in_ready, "FIFO refused a row with %u tiles held", held);
		if (in.in_valid && out.in_ready) {
			in_rows++;
			offer = 0;
		}
		if (out.out_valid && in.out_ready) {
			unsigned t = out_rows / n, k = out_rows % n;
			ck_assert_msg(t * n + n <= in_rows, "row of an incomplete tile read");
			ck_assert_uint_eq(out.out_k, k);
			for (unsigned j = 0; j < n; j++)
				ck_assert_msg(out.out_row[j] == w[t][k][j], "tile %u (tr %d) W[%u][%u]",
					      t, tr[t], k, j);
			out_rows++;
		}
	}
	ops->destroy(m);
}
END_TEST

TPU_TEST_SUITE(suite_rtl_mxu_units)
static Suite *suite_rtl_mxu_units(void)
{
	Suite *s = suite_create("rtl_mxu_units");
	TCase *tc = tcase_create("units");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pe_random);
	tcase_add_loop_test(tc, array_random_tiles, 0, 4);
	tcase_add_test(tc, fifo_random);
	suite_add_tcase(s, tc);
	return s;
}
