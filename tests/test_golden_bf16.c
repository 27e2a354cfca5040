/* The golden device's bf16 mode (docs/spec.md §6.12) through raw command streams on
 * golden:bf16=1, against references computed here in host float (bf16_hostref.h: the host's
 * IEEE arithmetic with the flush rules of §7.1 applied, one operation at a time):
 *
 *   - random bf16 GEMMs as MATMUL sequences (shapes 1 and non-multiples of N, K over several
 *     tiles with ACCUMULATE, transposed LOAD_WEIGHTS, FIFO batches, an ACC start value), the
 *     reference replaying the spec's column order over all N PE rows and the tile accumulation
 *     straight from the GEMM's matrices, special values (NaN, inf, -0, subnormals) in A and W;
 *   - random streams that mix int8 and bf16 commands, against a reference of the device state
 *     (int8 results exact, the MATMUL type check, UB rows of 2N bytes);
 *   - ACTIVATE's float path (bias, SCALE, FCLAMP as ReLU, ReLU6 and random ranges, bf16 out or
 *     RAW32) on ACC words of any bit pattern;
 *   - every bad input of §6.12, each leaving UB, ACC, the FIFO, the active tile and the
 *     parameters as they were (read back and exercised after the failure);
 *   - FEATURES and IDENTIFY byte 32 on both configurations, the storage rules, the loaded flags
 *     and RESET, the cycle estimates. */
#include <math.h>
#include <string.h>

#include "bf16_hostref.h"
#include "golden_fixture.h"
#include "harness.h"
#include "tpu/bf16.h"
#include "tpu/numerics.h"
#include "tpu/tpu_spec.h"

#define MAXN 16
#define ROWS 64
#define FIFO 4
#define HOST_BYTES (256u << 10)

/* Host memory regions (offsets into hp). */
#define H_A 0x00000u      /* A: up to ROWS x 4N+ bf16 */
#define H_W 0x08000u      /* W, K x C bf16 */
#define H_WT 0x0C000u     /* W^T, C x K bf16 */
#define H_OUT 0x10000u    /* read-backs */
#define H_PAR 0x18000u    /* parameter vectors */
#define H_I8 0x20000u     /* int8 data */
#define H_SNAP 0x28000u   /* snapshots */

static const uint32_t sizes[] = { 4, 8, 16 };

static struct gfx F;
static uint8_t *hp;
static uint64_t hbuf;
static uint64_t rng;
static uint32_t N;

static void setup_dev(uint32_t n, bool bf16)
{
	struct golden_config c;

	gfx_config_small(&c);
	c.array_n = n;
	c.ub_rows = ROWS;
	c.acc_rows = ROWS;
	c.fifo_tiles = FIFO;
	c.bf16 = bf16;
	gfx_setup(&F, &c);
	hp = gfx_alloc(&F, HOST_BYTES, &hbuf);
	N = n;
	rng = harness_seed() ^ (0xbf16bf16ull + n + (bf16 ? 1000 : 0));
}

static void teardown(void)
{
	gfx_teardown(&F);
}

/* ------------------------------------------------------------------ commands */

static struct gfx_sqe flag16(struct gfx_sqe s)
{
	GFX_SET(&s, FLAGS, TPU_SQE_FLAG_BF16);
	return s;
}

static struct gfx_sqe rh16(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
			   uint32_t ub)
{
	struct gfx_sqe s = gfx_read_host(iova, rows, 2 * cols, stride, ub);

	GFX_SET(&s, COLS, cols);
	return flag16(s);
}

static struct gfx_sqe lw16(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
			   bool transpose)
{
	struct gfx_sqe s = gfx_load_weights(iova, rows, 2 * cols, stride, transpose);

	GFX_SET(&s, COLS, cols);
	return flag16(s);
}

static struct gfx_sqe wh16(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
			   uint32_t ub)
{
	struct gfx_sqe s = gfx_write_host(iova, rows, 2 * cols, stride, ub, false);

	GFX_SET(&s, COLS, cols);
	return flag16(s);
}

static struct gfx_sqe fclamp(uint32_t fmin, uint32_t fmax)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_LOAD_PARAMS);

	GFX_SET(&s, OP0, TPU_PARAM_FCLAMP);
	GFX_SET(&s, OP2, fmin);
	GFX_SET(&s, OP3, fmax);
	return s;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Load an N-channel vector of kind from vals (at H_PAR). */
static void load_vec(uint32_t kind, const uint32_t *vals)
{
	for (uint32_t j = 0; j < N; j++)
		put32(hp + H_PAR + 4 * j, vals[j]);
	struct gfx_sqe s = gfx_load_vec(kind, hbuf + H_PAR, N, 0);
	ck_assert_uint_eq(gfx_ok(&F, &s), 4 * N);
}

/* ACC rows [row, row + rows) as words into out[rows][N] (WRITE_HOST FROM_ACC, no flag). */
static void read_acc(uint32_t row, uint32_t rows, uint32_t out[][MAXN])
{
	struct gfx_sqe s = gfx_write_host(hbuf + H_OUT, rows, N, 0, row, true);

	ck_assert_uint_eq(gfx_ok(&F, &s), rows * 4 * N);
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < N; j++)
			out[r][j] = get32(hp + H_OUT + (r * N + j) * 4);
}

/* UB rows [row, row + rows), all 2N bytes (bf16 WRITE_HOST of N elements). */
static void read_ub(uint32_t row, uint32_t rows, uint8_t out[][2 * MAXN])
{
	struct gfx_sqe s = wh16(hbuf + H_OUT, rows, N, 0, row);

	ck_assert_uint_eq(gfx_ok(&F, &s), rows * 2 * N);
	for (uint32_t r = 0; r < rows; r++)
		memcpy(out[r], hp + H_OUT + r * 2 * N, 2 * N);
}

/* ------------------------------------------------------------------ values */

/* Special bf16 operands: zeros, infinities, NaNs (quiet, signalling, payloads), subnormals, the
 * smallest and largest normals. */
static const uint16_t specials[] = {
	0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFFF, 0x7FA5,
	0x0001, 0x807F, 0x0040, 0x0080, 0x8080, 0x7F7F, 0xFF7F,
};

/* A bf16 operand: one in `rare` is a special value; of the rest most are near 1 (sums that
 * round), some tiny (products that flush) or huge (products that overflow). rare = 0: none. */
static uint16_t rand_bf16(unsigned rare)
{
	uint32_t e;

	if (rare && harness_range(&rng, 0, rare - 1) == 0)
		return specials[harness_range(&rng, 0, sizeof(specials) / sizeof(specials[0]) - 1)];
	switch (harness_range(&rng, 0, 15)) {
	case 0: e = (uint32_t)harness_range(&rng, 1, 66); break;   /* tiny */
	case 1: e = (uint32_t)harness_range(&rng, 190, 254); break; /* huge */
	default: e = (uint32_t)harness_range(&rng, 118, 134); break;
	}
	return (uint16_t)((harness_rand(&rng) & 0x807Fu) | e << 7);
}

/* ------------------------------------------------------------------ GEMM reference */

/* C[i][j] of a K-deep GEMM as MATMULs over K-tiles of N compute it (spec 6.12 and 7.1): per
 * tile a column sum from +0 over all N PE rows (a = 0 beyond K, w = 0 beyond K and C), then the
 * accumulator: tile 0 overwrites (or adds to acc_in), later tiles add. Straight from A (M x K)
 * and W (K x C), in host float. */
static uint32_t ref_gemm(const uint16_t *a, const uint16_t *w, uint32_t i, uint32_t j, uint32_t k,
			 uint32_t c, bool accumulate, uint32_t acc_in)
{
	uint32_t acc = acc_in;

	for (uint32_t t = 0; t * N < k; t++) {
		uint32_t s = 0;

		for (uint32_t kk = 0; kk < N; kk++) {
			uint32_t kg = t * N + kk;
			uint16_t x = kg < k ? a[i * k + kg] : 0;
			uint16_t y = kg < k && j < c ? w[kg * c + j] : 0;

			s = hr_mac(s, x, y);
		}
		acc = t == 0 && !accumulate ? s : hr_add(acc, s);
	}
	return acc;
}

static void gemm_case(uint32_t m, uint32_t k, uint32_t c, bool transpose, unsigned rare,
		      bool accumulate, uint32_t acc_row)
{
	static uint16_t a[ROWS * 4 * MAXN], w[4 * MAXN * MAXN];
	static uint32_t got[ROWS][MAXN], before[ROWS][MAXN];
	uint32_t tiles = (k + N - 1) / N, a_stride = 2 * k + 2 * (uint32_t)harness_range(&rng, 0, 3);
	uint32_t w_stride = 2 * c + 2 * (uint32_t)harness_range(&rng, 0, 2);
	uint32_t wt_stride = 2 * k + 2 * (uint32_t)harness_range(&rng, 0, 2);
	uint32_t t, t0, i, j;
	struct gfx_sqe s;

	for (i = 0; i < m * k; i++)
		a[i] = rand_bf16(rare);
	for (i = 0; i < k * c; i++)
		w[i] = rand_bf16(rare);
	memset(hp + H_A, 0xEE, 0x10000);
	for (i = 0; i < m; i++)
		for (uint32_t kk = 0; kk < k; kk++)
			put16(hp + H_A + i * a_stride + 2 * kk, a[i * k + kk]);
	for (uint32_t kk = 0; kk < k; kk++)
		for (j = 0; j < c; j++) {
			put16(hp + H_W + kk * w_stride + 2 * j, w[kk * c + j]);
			put16(hp + H_WT + j * wt_stride + 2 * kk, w[kk * c + j]); /* X = W^T */
		}
	if (accumulate)
		read_acc(acc_row, m, before);
	/* A's K-tile t into UB rows t x M (elements kt .. N - 1 become +0) */
	for (t = 0; t < tiles; t++) {
		uint32_t kt = k - t * N < N ? k - t * N : N;

		s = rh16(hbuf + H_A + 2 * t * N, m, kt, a_stride, t * m);
		ck_assert_uint_eq(gfx_ok(&F, &s), m * 2 * kt);
	}
	/* W's tiles in FIFO batches of 1 .. FIFO, each batch then popped by its MATMULs */
	for (t0 = 0; t0 < tiles;) {
		uint32_t batch = (uint32_t)harness_range(&rng, 1, FIFO);

		if (batch > tiles - t0)
			batch = tiles - t0;
		for (t = t0; t < t0 + batch; t++) {
			uint32_t kt = k - t * N < N ? k - t * N : N;

			if (transpose)
				s = lw16(hbuf + H_WT + 2 * t * N, c, kt, wt_stride, true);
			else
				s = lw16(hbuf + H_W + t * N * w_stride, kt, c, w_stride, false);
			ck_assert_uint_eq(gfx_ok(&F, &s), kt * 2 * c);
		}
		for (t = t0; t < t0 + batch; t++) {
			s = flag16(gfx_matmul(t * m, acc_row, m,
					      TPU_MATMUL_POP |
						      (t > 0 || accumulate ? TPU_MATMUL_ACCUMULATE : 0)));
			ck_assert_uint_eq(gfx_ok(&F, &s), m);
		}
		t0 += batch;
	}
	read_acc(acc_row, m, got);
	for (i = 0; i < m; i++)
		for (j = 0; j < N; j++) {
			uint32_t want = ref_gemm(a, w, i, j, k, c, accumulate,
						 accumulate ? before[i][j] : 0);

			ck_assert_msg(got[i][j] == want,
				      "N=%u M=%u K=%u C=%u%s%s: C[%u][%u] = 0x%08X, host float says "
				      "0x%08X",
				      N, m, k, c, transpose ? " transposed" : "",
				      accumulate ? " accumulating" : "", i, j, got[i][j], want);
		}
}

START_TEST(gemm_shapes)
{
	setup_dev(sizes[_i], true);
	/* the smallest, K of exactly one and several tiles, non-multiples of N everywhere */
	gemm_case(1, 1, 1, false, 0, false, 0);
	gemm_case(1, 1, 1, true, 0, false, 1);
	gemm_case(1, N, N, false, 0, false, 2);
	gemm_case(3, N + 1, N - 1, false, 0, false, 3);
	gemm_case(5, 3 * N - 1, 1, true, 0, false, 8);
	gemm_case(2, 4 * N, N, true, 0, true, 8); /* onto the previous result */
	gemm_case(16, 4 * N - 3, N / 2 + 1, false, 0, false, 20);
	teardown();
}
END_TEST

START_TEST(gemm_random)
{
	uint64_t macs = 0, busy = 0;

	setup_dev(sizes[_i], true);
	for (unsigned it = 0; it < 40; it++) {
		uint32_t k = (uint32_t)harness_range(&rng, 1, 4 * N);
		uint32_t tiles = (k + N - 1) / N;
		uint32_t mmax = ROWS / tiles < 16 ? ROWS / tiles : 16;
		uint32_t m = (uint32_t)harness_range(&rng, 1, mmax);
		uint32_t c = (uint32_t)harness_range(&rng, 1, N);

		gemm_case(m, k, c, harness_range(&rng, 0, 1), 0, it % 3 == 2,
			  (uint32_t)harness_range(&rng, 0, ROWS - m));
		macs += (uint64_t)m * k * c; /* rows x tile K x tile columns, summed over tiles */
		busy += (uint64_t)m * tiles;
	}
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO), macs);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MXU_BUSY_LO), busy);
	teardown();
}
END_TEST

/* NaN, inf, -0 and subnormals in A and W: the input rules, 0 x inf, inf - inf, NaN through the
 * padding, the -0 column sum that the padding PEs turn into +0. */
START_TEST(gemm_special_values)
{
	setup_dev(sizes[_i], true);
	for (unsigned it = 0; it < 40; it++) {
		uint32_t k = (uint32_t)harness_range(&rng, 1, 3 * N);
		uint32_t m = (uint32_t)harness_range(&rng, 1, 8);
		uint32_t c = (uint32_t)harness_range(&rng, 1, N);

		gemm_case(m, k, c, harness_range(&rng, 0, 1), it < 20 ? 4 : 16, it % 4 == 3,
			  (uint32_t)harness_range(&rng, 0, ROWS - m));
	}
	teardown();
}
END_TEST

/* All products -0: the column sum is +0 (it starts from +0), with or without padding. */
START_TEST(gemm_signed_zero_sums)
{
	static const uint16_t neg_tiny[] = { 0x8080, 0x8000, 0x8001 };
	uint32_t got[ROWS][MAXN];
	struct gfx_sqe s;

	setup_dev(8, true);
	for (uint32_t kk = 0; kk < N; kk++) {
		put16(hp + H_A + 2 * kk, neg_tiny[kk % 3]); /* -2^-126, -0, a -subnormal */
		for (uint32_t j = 0; j < N; j++)
			put16(hp + H_W + (kk * N + j) * 2, 0x3F00); /* 0.5 */
	}
	s = rh16(hbuf + H_A, 1, N, 0, 0);
	gfx_ok(&F, &s);
	s = lw16(hbuf + H_W, N, N, 0, false);
	gfx_ok(&F, &s);
	s = flag16(gfx_matmul(0, 0, 1, TPU_MATMUL_POP));
	gfx_ok(&F, &s);
	read_acc(0, 1, got);
	for (uint32_t j = 0; j < N; j++)
		ck_assert_uint_eq(got[0][j], 0x00000000u); /* an IEEE sum from the first product: -0 */
	/* spec 7.1 example 5: -1.5 * 2^-126 + 2^-126 = -2^-127 flushes to -0 over a tile of K = 2;
	 * the N - 2 padding PEs then add +0 x +0: +0. A K = 3 tile of -0 products: +0 too. */
	put16(hp + H_A, 0x80C0);
	put16(hp + H_A + 2, 0x0080);
	put16(hp + H_A + 4, 0x8000);
	for (uint32_t i = 0; i < 3 * N; i++)
		put16(hp + H_W + 2 * i, 0x3F80);
	s = rh16(hbuf + H_A, 1, 2, 0, 0);
	gfx_ok(&F, &s);
	s = lw16(hbuf + H_W, 2, N, 0, false);
	gfx_ok(&F, &s);
	s = flag16(gfx_matmul(0, 1, 1, TPU_MATMUL_POP));
	gfx_ok(&F, &s);
	ck_assert_uint_eq(tpu_bf16_dot((const uint16_t[]){ 0x80C0, 0x0080 },
				       (const uint16_t[]){ 0x3F80, 0x3F80 }, 2, 0), 0x80000000u);
	read_acc(1, 1, got);
	for (uint32_t j = 0; j < N; j++)
		ck_assert_uint_eq(got[0][j], 0x00000000u);
	teardown();
}
END_TEST

/* ------------------------------------------------------------------ mixed streams */

struct rtile {
	bool bf16;
	uint16_t w16[MAXN][MAXN]; /* [k][j] */
	int8_t w8[MAXN][MAXN];
};

/* The reference of the device state the mixed streams touch. */
static struct {
	uint8_t ub[ROWS][2 * MAXN];
	uint32_t acc[ROWS][MAXN];
	struct rtile fifo[FIFO], active;
	unsigned head, count;
	bool active_valid;
	uint32_t bias[MAXN];
	int32_t mult[MAXN], shift[MAXN], zp, qmin, qmax;
} M;

static uint16_t m_ub16(uint32_t r, uint32_t k)
{
	return get16(M.ub[r] + 2 * k);
}

static void mix_read_host(bool bf16)
{
	uint32_t rows = (uint32_t)harness_range(&rng, 1, 8);
	uint32_t row = (uint32_t)harness_range(&rng, 0, ROWS - rows);
	uint32_t cols = (uint32_t)harness_range(&rng, 1, N), es = bf16 ? 2 : 1;
	struct gfx_sqe s;

	for (uint32_t r = 0; r < rows; r++) {
		memset(M.ub[row + r], 0, sizeof(M.ub[0])); /* the whole 2N-byte row is written */
		for (uint32_t j = 0; j < cols; j++) {
			if (bf16)
				put16(M.ub[row + r] + 2 * j, rand_bf16(8));
			else
				M.ub[row + r][j] = (uint8_t)harness_range(&rng, 0, 255);
		}
		memcpy(hp + H_I8 + r * cols * es, M.ub[row + r], cols * es);
	}
	s = bf16 ? rh16(hbuf + H_I8, rows, cols, 0, row) : gfx_read_host(hbuf + H_I8, rows, cols, 0, row);
	ck_assert_uint_eq(gfx_ok(&F, &s), rows * cols * es);
}

static void mix_load_weights(bool bf16)
{
	uint32_t k = (uint32_t)harness_range(&rng, 1, N), c = (uint32_t)harness_range(&rng, 1, N);
	bool tr = harness_range(&rng, 0, 1);
	uint32_t hr = tr ? c : k, hc = tr ? k : c, es = bf16 ? 2 : 1;
	struct rtile *t = &M.fifo[(M.head + M.count) % FIFO];
	struct rtile nt;
	struct gfx_sqe s;

	memset(&nt, 0, sizeof(nt));
	nt.bf16 = bf16;
	for (uint32_t a = 0; a < hr; a++)
		for (uint32_t b = 0; b < hc; b++) {
			uint32_t kk = tr ? b : a, j = tr ? a : b;
			uint8_t *p = hp + H_I8 + (a * hc + b) * es;

			if (bf16) {
				nt.w16[kk][j] = rand_bf16(8);
				put16(p, nt.w16[kk][j]);
			} else {
				nt.w8[kk][j] = (int8_t)harness_range(&rng, -128, 127);
				*p = (uint8_t)nt.w8[kk][j];
			}
		}
	s = bf16 ? lw16(hbuf + H_I8, hr, hc, 0, tr) : gfx_load_weights(hbuf + H_I8, hr, hc, 0, tr);
	if (M.count == FIFO) {
		ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
		return;
	}
	ck_assert_uint_eq(gfx_ok(&F, &s), hr * hc * es);
	*t = nt;
	M.count++;
}

static void mix_matmul(bool bf16)
{
	uint32_t rows = (uint32_t)harness_range(&rng, 1, 8);
	uint32_t src = (uint32_t)harness_range(&rng, 0, ROWS - rows);
	uint32_t dst = (uint32_t)harness_range(&rng, 0, ROWS - rows);
	bool pop = harness_range(&rng, 0, 2) != 0, accum = harness_range(&rng, 0, 1);
	struct gfx_sqe s = gfx_matmul(src, dst, rows,
				      (pop ? TPU_MATMUL_POP : 0) | (accum ? TPU_MATMUL_ACCUMULATE : 0));
	const struct rtile *t;

	if (bf16)
		s = flag16(s);
	if ((pop ? M.count == 0 : !M.active_valid) ||
	    (pop ? M.fifo[M.head].bf16 : M.active.bf16) != bf16) {
		ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
		return;
	}
	ck_assert_uint_eq(gfx_ok(&F, &s), rows);
	if (pop) {
		M.active = M.fifo[M.head];
		M.head = (M.head + 1) % FIFO;
		M.count--;
		M.active_valid = true;
	}
	t = &M.active;
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < N; j++) {
			uint32_t *acc = &M.acc[dst + r][j], sum = 0;

			for (uint32_t kk = 0; kk < N; kk++) {
				if (bf16)
					sum = hr_mac(sum, m_ub16(src + r, kk), t->w16[kk][j]);
				else
					sum += (uint32_t)((int32_t)(int8_t)M.ub[src + r][kk] * t->w8[kk][j]);
			}
			if (bf16)
				*acc = accum ? hr_add(*acc, sum) : sum;
			else
				*acc = accum ? *acc + sum : sum;
		}
}

/* ACTIVATE: int8 (tpu_activate, checked against gemmlowp elsewhere) or float, to UB or RAW32;
 * the float path here without SCALE and CLAMP (activate_float covers them). */
static void mix_activate(bool bf16)
{
	uint32_t rows = (uint32_t)harness_range(&rng, 1, 8);
	uint32_t src = (uint32_t)harness_range(&rng, 0, ROWS - rows);
	bool raw = harness_range(&rng, 0, 2) == 0;
	uint32_t dst = raw ? src : (uint32_t)harness_range(&rng, 0, ROWS - rows);
	struct tpu_act_output out = { M.zp, M.qmin, M.qmax, NULL, TPU_ROUND_DOUBLE };
	struct gfx_sqe s = gfx_activate(src, dst, rows, raw ? TPU_ACTIVATE_RAW32 : 0);
	uint32_t sat = 0, res;

	if (bf16)
		s = flag16(s);
	res = gfx_ok(&F, &s);
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < N; j++) {
			uint32_t a = M.acc[src + r][j];

			if (bf16 && raw) {
				M.acc[dst + r][j] = hr_add(a, M.bias[j]);
			} else if (bf16) {
				put16(M.ub[dst + r] + 2 * j, hr_to_bf16(hr_add(a, M.bias[j])));
			} else if (raw) {
				M.acc[dst + r][j] = a + M.bias[j];
			} else {
				struct tpu_act_channel ch = { (int32_t)M.bias[j], M.mult[j], M.shift[j] };
				bool st;

				M.ub[dst + r][j] = (uint8_t)tpu_activate((int32_t)a, &ch, &out, &st);
				sat += st;
			}
		}
	if (!bf16 && !raw)
		for (uint32_t r = 0; r < rows; r++)
			memset(M.ub[dst + r] + N, 0, N); /* an int8 write zeroes bytes N .. 2N - 1 */
	ck_assert_uint_eq(res, sat);
}

static void mix_check_all(void)
{
	static uint32_t acc[ROWS][MAXN];
	static uint8_t ub[ROWS][2 * MAXN];

	read_acc(0, ROWS, acc);
	read_ub(0, ROWS, ub);
	for (uint32_t r = 0; r < ROWS; r++) {
		for (uint32_t j = 0; j < N; j++)
			ck_assert_msg(acc[r][j] == M.acc[r][j], "N=%u ACC[%u][%u] = 0x%08X, want 0x%08X",
				      N, r, j, acc[r][j], M.acc[r][j]);
		ck_assert_msg(!memcmp(ub[r], M.ub[r], 2 * N), "N=%u UB row %u differs", N, r);
	}
	/* and the int8 view of the UB: bytes 0 .. N - 1 */
	struct gfx_sqe s = gfx_write_host(hbuf + H_OUT, ROWS, N, 0, 0, false);
	ck_assert_uint_eq(gfx_ok(&F, &s), ROWS * N);
	for (uint32_t r = 0; r < ROWS; r++)
		ck_assert(!memcmp(hp + H_OUT + r * N, M.ub[r], N));
}

START_TEST(mixed_stream)
{
	setup_dev(sizes[_i], true);
	memset(&M, 0, sizeof(M));
	for (uint32_t j = 0; j < N; j++) {
		/* one BIAS word per channel, read as int32 by int8 and as fp32 by bf16 commands */
		M.bias[j] = j % 3 ? (uint32_t)rand_bf16(0) << 16 | (uint32_t)harness_range(&rng, 0, 0xFFFF)
				  : (uint32_t)harness_range(&rng, -5000, 5000);
		M.mult[j] = (int32_t)harness_range(&rng, 1 << 29, INT32_MAX);
		M.shift[j] = (int32_t)harness_range(&rng, -20, 0);
	}
	M.zp = (int32_t)harness_range(&rng, -20, 20);
	M.qmin = -128;
	M.qmax = 127;
	load_vec(TPU_PARAM_BIAS, M.bias);
	load_vec(TPU_PARAM_MULT, (const uint32_t *)M.mult);
	load_vec(TPU_PARAM_SHIFT, (const uint32_t *)M.shift);
	struct gfx_sqe s = gfx_load_output(M.zp, M.qmin, M.qmax);
	gfx_ok(&F, &s);
	for (unsigned it = 0; it < 400; it++) {
		bool bf16 = harness_range(&rng, 0, 1);

		switch (harness_range(&rng, 0, 5)) {
		case 0: mix_read_host(bf16); break;
		case 1: case 2: mix_load_weights(bf16); break;
		case 3: case 4: mix_matmul(bf16); break;
		default: mix_activate(bf16); break;
		}
		if (it % 50 == 49)
			mix_check_all();
	}
	mix_check_all();
	teardown();
}
END_TEST

/* ------------------------------------------------------------------ ACTIVATE float path */

/* ACC rows [row, row + rows) := words (a zero ACC row plus BIAS via the int8 RAW32: exact). */
static void set_acc_words(uint32_t row, uint32_t rows, uint32_t words[][MAXN], uint32_t zero_row)
{
	for (uint32_t r = 0; r < rows; r++) {
		load_vec(TPU_PARAM_BIAS, words[r]);
		struct gfx_sqe s = gfx_activate(zero_row, row + r, 1, TPU_ACTIVATE_RAW32);
		gfx_ok(&F, &s);
	}
}

/* fp32 operands for the float path: bf16-like and full fp32 values, specials, subnormals. */
static uint32_t rand_f32(void)
{
	static const uint32_t sp[] = {
		0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC12345,
		0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x40C00000, 0x3F800000,
	};

	switch (harness_range(&rng, 0, 9)) {
	case 0: return sp[harness_range(&rng, 0, sizeof(sp) / sizeof(sp[0]) - 1)];
	case 1: return (uint32_t)harness_rand(&rng);
	case 2: return (uint32_t)rand_bf16(0) << 16 | 0x8000u; /* a bf16 rounding tie */
	default:
		return ((uint32_t)harness_rand(&rng) & 0x807FFFFFu) |
		       (uint32_t)harness_range(&rng, 110, 140) << 23;
	}
}

/* The float path of one value in host float (spec 6.12 steps 1-4 before the output). */
static uint32_t ref_act(uint32_t a, uint32_t b, uint32_t scale, bool use_scale, bool use_clamp,
			float fmin, float fmax, uint32_t *clamped)
{
	uint32_t x = hr_add(a, b);

	if (use_scale)
		x = hr_mul32(x, scale);
	if (use_clamp) {
		float f = tpu_f32_to_float(x);

		if (f < fmin) {
			x = tpu_f32_from_float(fmin);
			++*clamped;
		} else if (f > fmax) {
			x = tpu_f32_from_float(fmax);
			++*clamped;
		}
	}
	return x;
}

START_TEST(activate_float)
{
	static uint32_t words[8][MAXN], got[8][MAXN];
	static uint8_t ub[8][2 * MAXN];
	uint32_t bias[MAXN], scale[MAXN];

	setup_dev(sizes[_i], true);
	for (unsigned it = 0; it < 60; it++) {
		uint32_t rows = (uint32_t)harness_range(&rng, 1, 8), fmin_b, fmax_b;
		uint32_t op0 = (uint32_t)harness_range(&rng, 0, 7) << 1; /* RAW32, SCALE, CLAMP */
		bool raw = op0 & TPU_ACTIVATE_RAW32, sc = op0 & TPU_ACTIVATE_SCALE;
		bool cl = op0 & TPU_ACTIVATE_CLAMP;
		uint32_t clamped = 0, res;
		struct gfx_sqe s;

		for (uint32_t r = 0; r < rows; r++)
			for (uint32_t j = 0; j < N; j++)
				words[r][j] = rand_f32();
		set_acc_words(8, rows, words, 63); /* (ACC row 63 stays zero) */
		for (uint32_t j = 0; j < N; j++) {
			bias[j] = harness_range(&rng, 0, 3) ? rand_f32() : 0;
			do
				scale[j] = harness_range(&rng, 0, 3) ? rand_f32() : 0x3F800000u;
			while (tpu_f32_is_nan(scale[j]));
		}
		load_vec(TPU_PARAM_BIAS, bias);
		load_vec(TPU_PARAM_SCALE, scale);
		switch (it % 4) {
		case 0: fmin_b = 0x00000000u; fmax_b = 0x7F800000u; break; /* ReLU */
		case 1: fmin_b = 0x00000000u; fmax_b = 0x40C00000u; break; /* ReLU6 */
		case 2: fmin_b = 0xBF800000u; fmax_b = 0x3F800000u; break; /* [-1, 1] */
		default:
			do {
				fmin_b = rand_f32();
				fmax_b = rand_f32();
			} while (tpu_f32_is_nan(fmin_b) || tpu_f32_is_nan(fmax_b) ||
				 hr_ftz(tpu_f32_to_float(fmin_b)) > hr_ftz(tpu_f32_to_float(fmax_b)));
			break;
		}
		s = fclamp(fmin_b, fmax_b);
		ck_assert_uint_eq(gfx_ok(&F, &s), 0);
		s = flag16(gfx_activate(8, raw ? 8 : 20, rows, op0));
		res = gfx_ok(&F, &s);
		if (raw)
			read_acc(8, rows, got);
		else
			read_ub(20, rows, ub);
		for (uint32_t r = 0; r < rows; r++)
			for (uint32_t j = 0; j < N; j++) {
				uint32_t x = ref_act(words[r][j], bias[j], scale[j], sc, cl,
						     hr_ftz(tpu_f32_to_float(fmin_b)),
						     hr_ftz(tpu_f32_to_float(fmax_b)), &clamped);

				if (raw)
					ck_assert_msg(got[r][j] == x,
						      "N=%u op0=0x%X: acc 0x%08X bias 0x%08X scale "
						      "0x%08X [0x%08X, 0x%08X] gave 0x%08X, host float says "
						      "0x%08X",
						      N, op0, words[r][j], bias[j], scale[j], fmin_b, fmax_b,
						      got[r][j], x);
				else
					ck_assert_msg(get16(ub[r] + 2 * j) == hr_to_bf16(x),
						      "N=%u op0=0x%X: acc 0x%08X bias 0x%08X scale "
						      "0x%08X [0x%08X, 0x%08X] gave 0x%04X, host float says "
						      "0x%04X",
						      N, op0, words[r][j], bias[j], scale[j], fmin_b, fmax_b,
						      get16(ub[r] + 2 * j), hr_to_bf16(x));
			}
		ck_assert_uint_eq(res, clamped);
	}
	teardown();
}
END_TEST

/* Worked cases of the float path, by hand: bias, scale rounding, ReLU6, -0 kept, NaN kept. */
START_TEST(activate_float_examples)
{
	static const struct {
		uint32_t acc, bias, scale, op0;
		uint16_t out;
	} ex[] = {
		/* 1 + 2^-8 (bias) = 0x3F808000: a bf16 tie, even: 0x3F80 */
		{ 0x3F800000, 0x3B800000, 0, 0, 0x3F80 },
		/* 1 + 2^-8 + 2^-23: above the tie: 0x3F81 */
		{ 0x3F800001, 0x3B800000, 0, 0, 0x3F81 },
		/* 3 * 0.5 = 1.5 */
		{ 0x40400000, 0, 0x3F000000, TPU_ACTIVATE_SCALE, 0x3FC0 },
		/* (7 + 1) * 1 clamped to 6 (ReLU6) */
		{ 0x40E00000, 0x3F800000, 0x3F800000, TPU_ACTIVATE_SCALE | TPU_ACTIVATE_CLAMP, 0x40C0 },
		/* -2 clamped to +0 */
		{ 0xC0000000, 0, 0, TPU_ACTIVATE_CLAMP, 0x0000 },
		/* -0 + -0 = -0 equals FMIN = +0: kept, not counted */
		{ 0x80000000, 0x80000000, 0, TPU_ACTIVATE_CLAMP, 0x8000 },
		/* a NaN stays NaN through the clamp (canonical) */
		{ 0x7F800001, 0, 0, TPU_ACTIVATE_CLAMP, 0x7FC0 },
		/* 2^-126 * 0.5 flushed to +0 by the scale */
		{ 0x00800000, 0, 0x3F000000, TPU_ACTIVATE_SCALE, 0x0000 },
		/* the largest fp32 rounds to bf16 infinity */
		{ 0x7F7FFFFF, 0, 0, 0, 0x7F80 },
	};
	static const uint32_t counted[] = { 0, 0, 0, 1, 1, 0, 0, 0, 0 };
	uint32_t w[1][MAXN], b[MAXN], scl[MAXN];
	uint8_t ub[1][2 * MAXN];

	setup_dev(4, true);
	struct gfx_sqe s = fclamp(0x00000000u, 0x40C00000u); /* ReLU6 */
	gfx_ok(&F, &s);
	for (unsigned i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		for (uint32_t j = 0; j < N; j++) {
			w[0][j] = ex[i].acc;
			b[j] = ex[i].bias;
			scl[j] = ex[i].scale;
		}
		set_acc_words(0, 1, w, 63);
		load_vec(TPU_PARAM_BIAS, b);
		load_vec(TPU_PARAM_SCALE, scl);
		s = flag16(gfx_activate(0, 5, 1, ex[i].op0));
		ck_assert_uint_eq(gfx_ok(&F, &s), counted[i] * N);
		read_ub(5, 1, ub);
		for (uint32_t j = 0; j < N; j++)
			ck_assert_msg(get16(ub[0] + 2 * j) == ex[i].out, "example %u: 0x%04X, want 0x%04X",
				      i, get16(ub[0] + 2 * j), ex[i].out);
	}
	teardown();
}
END_TEST

/* ------------------------------------------------------------------ bad inputs */

/* A device state every bad-input case starts from: random UB bytes and ACC words, BIAS, SCALE
 * and FCLAMP loaded, active tile bf16 (T0), FIFO = bf16 tile T1, int8 tile T2. */
static struct {
	uint8_t ub[ROWS][2 * MAXN];
	uint32_t acc[ROWS][MAXN];
	uint16_t t0[MAXN][MAXN], t1[MAXN][MAXN];
	int8_t t2[MAXN][MAXN];
	uint32_t bias[MAXN], scale[MAXN];
} S;

static void load_tile16(uint16_t t[MAXN][MAXN])
{
	for (uint32_t k = 0; k < N; k++)
		for (uint32_t j = 0; j < N; j++) {
			t[k][j] = rand_bf16(0);
			put16(hp + H_W + (k * N + j) * 2, t[k][j]);
		}
	struct gfx_sqe s = lw16(hbuf + H_W, N, N, 0, false);
	gfx_ok(&F, &s);
}

static void state_setup(void)
{
	uint32_t w[1][MAXN];
	struct gfx_sqe s;

	setup_dev(8, true);
	for (uint32_t r = 0; r < ROWS; r++)
		for (uint32_t j = 0; j < N; j++)
			S.acc[r][j] = rand_f32();
	memset(w, 0, sizeof(w));
	for (uint32_t r = 0; r < ROWS; r++) {
		memcpy(w[0], S.acc[r], sizeof(w[0]));
		set_acc_words(r, 1, w, 63);
	}
	/* (row 63 was the zero source: it is now S.acc[63], written last) */
	for (uint32_t r = 0; r < ROWS; r++)
		for (uint32_t j = 0; j < 2 * N; j++)
			S.ub[r][j] = (uint8_t)harness_range(&rng, 0, 255);
	memcpy(hp + H_A, S.ub, sizeof(S.ub));
	s = rh16(hbuf + H_A, ROWS, N, 2 * MAXN, 0);
	gfx_ok(&F, &s);
	for (uint32_t j = 0; j < N; j++) {
		S.bias[j] = rand_f32();
		do
			S.scale[j] = rand_f32();
		while (tpu_f32_is_nan(S.scale[j]));
	}
	load_vec(TPU_PARAM_BIAS, S.bias);
	load_vec(TPU_PARAM_SCALE, S.scale);
	s = fclamp(0xBF800000u, 0x3F800000u); /* [-1, 1] */
	gfx_ok(&F, &s);
	load_tile16(S.t0);
	s = flag16(gfx_matmul(0, 0, 1, TPU_MATMUL_POP)); /* T0 active; ACC row 0 changes */
	gfx_ok(&F, &s);
	read_acc(0, 1, S.acc); /* (row 0 only) */
	load_tile16(S.t1);
	for (uint32_t k = 0; k < N; k++)
		for (uint32_t j = 0; j < N; j++) {
			S.t2[k][j] = (int8_t)harness_range(&rng, -128, 127);
			hp[H_I8 + k * N + j] = (uint8_t)S.t2[k][j];
		}
	s = gfx_load_weights(hbuf + H_I8, N, N, 0, false);
	gfx_ok(&F, &s);
}

/* After a refused command: UB and ACC as they were, then the parameters, the active tile and
 * the FIFO (its order, types and count) exercised and compared with the reference. */
static void state_check(const char *what)
{
	static uint32_t acc[ROWS][MAXN];
	static uint8_t ub[ROWS][2 * MAXN];
	uint32_t clamped = 0;
	struct gfx_sqe s;

	read_acc(0, ROWS, acc);
	read_ub(0, ROWS, ub);
	for (uint32_t r = 0; r < ROWS; r++) {
		ck_assert_msg(!memcmp(acc[r], S.acc[r], 4 * N), "%s: ACC row %u changed", what, r);
		ck_assert_msg(!memcmp(ub[r], S.ub[r], 2 * N), "%s: UB row %u changed", what, r);
	}
	/* BIAS, SCALE, FCLAMP: ACC rows 1..4 through the whole float path into ACC rows 40.. */
	s = flag16(gfx_activate(1, 40, 4, TPU_ACTIVATE_RAW32 | TPU_ACTIVATE_SCALE |
						  TPU_ACTIVATE_CLAMP));
	uint32_t res = gfx_ok(&F, &s);
	read_acc(40, 4, acc);
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t j = 0; j < N; j++)
			ck_assert_msg(acc[r][j] == ref_act(S.acc[1 + r][j], S.bias[j], S.scale[j], true,
							   true, -1.0f, 1.0f, &clamped),
				      "%s: the parameters changed (channel %u)", what, j);
	ck_assert_uint_eq(res, clamped);
	/* the active tile T0 (no POP), then T1 and T2 popped in order, then an empty FIFO */
	for (unsigned t = 0; t < 3; t++) {
		s = gfx_matmul(2, 48, 1, t ? TPU_MATMUL_POP : 0);
		if (t < 2)
			s = flag16(s);
		gfx_ok(&F, &s);
		read_acc(48, 1, acc);
		for (uint32_t j = 0; j < N; j++) {
			uint32_t want = 0;

			for (uint32_t k = 0; k < N; k++)
				if (t < 2)
					want = hr_mac(want, get16(S.ub[2] + 2 * k),
						      t ? S.t1[k][j] : S.t0[k][j]);
				else
					want += (uint32_t)((int8_t)S.ub[2][k] * S.t2[k][j]);
			ck_assert_msg(acc[0][j] == want, "%s: tile %u changed", what, t);
		}
	}
	s = gfx_matmul(2, 48, 1, TPU_MATMUL_POP);
	ck_assert_msg(gfx_exec(&F, &s, NULL) == TPU_SC_SEQUENCE_ERROR, "%s: FIFO not empty", what);
}

enum { BAD_NOP, BAD_PARAMS_FLAG, BAD_FENCE, BAD_IDENTIFY, BAD_STREAM, BAD_WH_ACC, BAD_ACT_LUT,
       BAD_ACT_SCALE8, BAD_ACT_CLAMP8, BAD_ACT_BITS, BAD_ACT_OVERLAP, BAD_ACT_RANGE,
       BAD_ACT_RANGE_RAW, BAD_MM8_POP, BAD_MM8_ACTIVE, BAD_RH_COLS, BAD_RH_LENGTH, BAD_RH_RANGE,
       BAD_LW_LENGTH, BAD_LW_ROWS, BAD_WH_LENGTH, BAD_SCALE_NAN, BAD_SCALE_NAN_LAST,
       BAD_SCALE_LENGTH, BAD_SCALE_RANGE, BAD_FC_MIN_NAN, BAD_FC_MAX_NAN, BAD_FC_ORDER,
       BAD_FC_HOST, BAD_FC_OP1, BAD_FC_ROWS, BAD_MM_OP0, BAD_COUNT };

/* Case i: the command and the status it must get. */
static struct gfx_sqe bad_cmd(int i, uint32_t *sc)
{
	struct gfx_sqe s;

	*sc = TPU_SC_INVALID_FIELD;
	switch (i) {
	case BAD_NOP: return flag16(gfx_cmd(TPU_OP_NOP));
	case BAD_PARAMS_FLAG:
		for (uint32_t j = 0; j < N; j++)
			put32(hp + H_PAR + 4 * j, 0x3F800000u);
		return flag16(gfx_load_vec(TPU_PARAM_SCALE, hbuf + H_PAR, N, 0));
	case BAD_FENCE: return flag16(gfx_fence(0, 0));
	case BAD_IDENTIFY: return flag16(gfx_identify(hbuf + H_OUT));
	case BAD_STREAM:
		s = gfx_cmd(TPU_OP_STREAM_MATMUL);
		gfx_set_addr(&s, hbuf + H_I8);
		GFX_SET(&s, ROWS, N);
		GFX_SET(&s, COLS, N);
		GFX_SET(&s, OP1, 1);
		GFX_SET(&s, OP2, 1);
		GFX_SET(&s, LENGTH, N * N);
		return flag16(s);
	case BAD_WH_ACC: return flag16(gfx_write_host(hbuf + H_OUT, 1, N, 0, 0, true));
	case BAD_ACT_LUT: return flag16(gfx_activate(1, 1, 1, TPU_ACTIVATE_LUT));
	case BAD_ACT_SCALE8: return gfx_activate(1, 1, 1, TPU_ACTIVATE_RAW32 | TPU_ACTIVATE_SCALE);
	case BAD_ACT_CLAMP8: return gfx_activate(1, 1, 1, TPU_ACTIVATE_CLAMP);
	case BAD_ACT_BITS: return flag16(gfx_activate(1, 1, 1, 0x10));
	case BAD_ACT_OVERLAP: return flag16(gfx_activate(1, 2, 4, TPU_ACTIVATE_RAW32));
	case BAD_ACT_RANGE:
		*sc = TPU_SC_LOCAL_RANGE;
		return flag16(gfx_activate(1, ROWS - 1, 2, 0));
	case BAD_ACT_RANGE_RAW:
		*sc = TPU_SC_LOCAL_RANGE;
		return flag16(gfx_activate(ROWS - 1, ROWS - 1, 2, TPU_ACTIVATE_RAW32));
	case BAD_MM8_POP: /* the FIFO's head is bf16: nothing popped */
		*sc = TPU_SC_SEQUENCE_ERROR;
		return gfx_matmul(0, 0, 4, TPU_MATMUL_POP);
	case BAD_MM8_ACTIVE: /* the active tile is bf16 */
		*sc = TPU_SC_SEQUENCE_ERROR;
		return gfx_matmul(0, 0, 4, TPU_MATMUL_ACCUMULATE);
	case BAD_RH_COLS:
		return rh16(hbuf + H_A, 1, N + 1, 0, 0);
	case BAD_RH_LENGTH: /* the int8 span of COLS bytes */
		s = gfx_read_host(hbuf + H_A, 2, N, 0, 0);
		return flag16(s);
	case BAD_RH_RANGE:
		*sc = TPU_SC_LOCAL_RANGE;
		return rh16(hbuf + H_A, 2, N, 0, ROWS - 1);
	case BAD_LW_LENGTH:
		return flag16(gfx_load_weights(hbuf + H_W, N, N, 0, false));
	case BAD_LW_ROWS:
		return lw16(hbuf + H_W, N + 1, N, 0, false);
	case BAD_WH_LENGTH:
		return flag16(gfx_write_host(hbuf + H_OUT, 2, N, 0, 0, false));
	case BAD_SCALE_NAN: /* every channel new, one NaN: nothing committed */
	case BAD_SCALE_NAN_LAST:
		for (uint32_t j = 0; j < N; j++)
			put32(hp + H_PAR + 4 * j, 0x40000000u + j);
		put32(hp + H_PAR + 4 * (i == BAD_SCALE_NAN ? 0 : N - 1),
		      i == BAD_SCALE_NAN ? 0x7FC00000u : 0xFF800001u);
		return gfx_load_vec(TPU_PARAM_SCALE, hbuf + H_PAR, N, 0);
	case BAD_SCALE_LENGTH:
		s = gfx_load_vec(TPU_PARAM_SCALE, hbuf + H_PAR, N, 0);
		GFX_SET(&s, LENGTH, 4 * N - 1);
		return s;
	case BAD_SCALE_RANGE:
		*sc = TPU_SC_LOCAL_RANGE;
		return gfx_load_vec(TPU_PARAM_SCALE, hbuf + H_PAR, 2, N - 1);
	case BAD_FC_MIN_NAN: return fclamp(0x7FC00000u, 0x3F800000u);
	case BAD_FC_MAX_NAN: return fclamp(0x00000000u, 0xFF800001u);
	case BAD_FC_ORDER: return fclamp(0x40000000u, 0x3F800000u);
	case BAD_FC_HOST:
		s = fclamp(0, 0x3F800000u);
		gfx_set_addr(&s, hbuf);
		return s;
	case BAD_FC_OP1:
		s = fclamp(0, 0x3F800000u);
		GFX_SET(&s, OP1, 1);
		return s;
	case BAD_FC_ROWS:
		s = fclamp(0, 0x3F800000u);
		GFX_SET(&s, ROWS, 1);
		return s;
	default: /* BAD_MM_OP0 */
		return flag16(gfx_matmul(0, 0, 1, 0x4));
	}
}

START_TEST(bad_inputs_change_nothing)
{
	uint32_t sc;
	char what[32];

	state_setup();
	struct gfx_sqe s = bad_cmd(_i, &sc);
	snprintf(what, sizeof(what), "bad case %d", _i);
	uint32_t got = gfx_exec(&F, &s, NULL);
	ck_assert_msg(got == sc, "%s: status 0x%X, want 0x%X", what, got, sc);
	state_check(what);
	teardown();
}
END_TEST

/* The bf16 command set on a device without the mode: FLAGS.BF16 is a reserved bit, SCALE and
 * FCLAMP unknown kinds, OP0.SCALE / CLAMP unknown bits; nothing changes. */
START_TEST(int8_device_refuses_bf16)
{
	static uint32_t acc[ROWS][MAXN];
	uint8_t ub[ROWS * MAXN];
	struct gfx_sqe cmds[10];
	unsigned n = 0;

	setup_dev(8, false);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_FEATURES), TPU_FEATURES_ROUND_MASK);
	for (uint32_t i = 0; i < ROWS * N; i++)
		hp[H_I8 + i] = (uint8_t)harness_range(&rng, 0, 255);
	struct gfx_sqe s = gfx_read_host(hbuf + H_I8, ROWS, N, 0, 0);
	gfx_ok(&F, &s);
	s = gfx_load_weights(hbuf + H_I8, N, N, 0, false);
	gfx_ok(&F, &s);
	s = gfx_matmul(0, 0, ROWS, TPU_MATMUL_POP);
	gfx_ok(&F, &s);
	s = gfx_load_weights(hbuf + H_I8 + 64, N, N, 0, false);
	gfx_ok(&F, &s);
	for (uint32_t j = 0; j < N; j++)
		put32(hp + H_PAR + 4 * j, 0x3F800000u);
	cmds[n++] = rh16(hbuf + H_A, 1, N, 0, 0);
	cmds[n++] = lw16(hbuf + H_W, N, N, 0, false);
	cmds[n++] = flag16(gfx_matmul(0, 0, 1, TPU_MATMUL_POP));
	cmds[n++] = flag16(gfx_activate(0, 0, 1, TPU_ACTIVATE_RAW32));
	cmds[n++] = flag16(gfx_cmd(TPU_OP_NOP));
	cmds[n++] = gfx_load_vec(TPU_PARAM_SCALE, hbuf + H_PAR, N, 0);
	cmds[n++] = fclamp(0, 0x3F800000u);
	cmds[n++] = gfx_activate(0, 1, 1, TPU_ACTIVATE_RAW32 | TPU_ACTIVATE_SCALE);
	cmds[n++] = gfx_activate(0, 1, 1, TPU_ACTIVATE_CLAMP);
	cmds[n++] = wh16(hbuf + H_OUT, 1, N, 0, 0);
	for (unsigned i = 0; i < n; i++)
		ck_assert_msg(gfx_exec(&F, &cmds[i], NULL) == TPU_SC_INVALID_FIELD, "command %u", i);
	/* UB, ACC, the FIFO's int8 tile: as before */
	s = gfx_write_host(hbuf + H_OUT, ROWS, N, 0, 0, false);
	gfx_ok(&F, &s);
	memcpy(ub, hp + H_OUT, sizeof(ub));
	ck_assert(!memcmp(ub, hp + H_I8, ROWS * N));
	read_acc(0, ROWS, acc);
	for (uint32_t r = 0; r < ROWS; r++)
		for (uint32_t j = 0; j < N; j++) {
			uint32_t want = 0;

			for (uint32_t k = 0; k < N; k++)
				want += (uint32_t)((int8_t)hp[H_I8 + r * N + k] *
						   (int8_t)hp[H_I8 + k * N + j]);
			ck_assert_uint_eq(acc[r][j], want);
		}
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	gfx_ok(&F, &s);
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	teardown();
}
END_TEST

/* A bf16 MATMUL on an int8 tile, with POP (the head) and without (the active tile): refused,
 * nothing popped, the ACC rows kept. */
START_TEST(matmul_bf16_on_int8_tile)
{
	uint32_t before[2][MAXN], after[2][MAXN];
	struct gfx_sqe s;

	memset(before, 0, sizeof(before));
	memset(after, 0, sizeof(after));
	setup_dev(8, true);
	for (uint32_t i = 0; i < N * N; i++)
		hp[H_I8 + i] = (uint8_t)harness_range(&rng, 0, 255);
	s = gfx_load_weights(hbuf + H_I8, N, N, 0, false);
	gfx_ok(&F, &s);
	s = gfx_matmul(0, 0, 2, TPU_MATMUL_POP); /* the int8 tile is active now */
	gfx_ok(&F, &s);
	s = gfx_load_weights(hbuf + H_I8, N, N, 0, true);
	gfx_ok(&F, &s);
	read_acc(0, 2, before);
	s = flag16(gfx_matmul(0, 0, 2, TPU_MATMUL_POP));
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	s = flag16(gfx_matmul(0, 0, 2, 0));
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	read_acc(0, 2, after);
	ck_assert(!memcmp(before, after, sizeof(before)));
	s = gfx_matmul(0, 0, 2, TPU_MATMUL_POP); /* the int8 tile is still queued */
	gfx_ok(&F, &s);
	s = gfx_matmul(0, 0, 2, TPU_MATMUL_POP);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO), 2ull * 2 * N * N);
	teardown();
}
END_TEST

/* ACTIVATE's float path needs BIAS, SCALE with OP0.SCALE and FCLAMP with OP0.CLAMP, not the
 * int8 parameters; RESET clears the new kinds' loaded flags as the others'. */
START_TEST(activate_needs_params)
{
	uint32_t ones[MAXN];
	struct gfx_sqe s;

	setup_dev(4, true);
	for (uint32_t j = 0; j < N; j++)
		ones[j] = 0x3F800000u;
	for (int pass = 0; pass < 2; pass++) {
		s = flag16(gfx_activate(0, 0, 1, 0));
		ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
		load_vec(TPU_PARAM_BIAS, ones);
		ck_assert_uint_eq(gfx_ok(&F, &s), 0); /* BIAS alone is enough */
		s = flag16(gfx_activate(0, 0, 1, TPU_ACTIVATE_SCALE));
		ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
		s = flag16(gfx_activate(0, 0, 1, TPU_ACTIVATE_CLAMP | TPU_ACTIVATE_RAW32));
		ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
		load_vec(TPU_PARAM_SCALE, ones);
		s = flag16(gfx_activate(0, 0, 1, TPU_ACTIVATE_SCALE));
		ck_assert_uint_eq(gfx_ok(&F, &s), 0);
		s = fclamp(0x00000000u, 0x3F000000u); /* [0, 0.5]: the 1.0 values are clamped */
		ck_assert_uint_eq(gfx_ok(&F, &s), 0);
		s = flag16(gfx_activate(0, 0, 1, TPU_ACTIVATE_CLAMP | TPU_ACTIVATE_SCALE));
		ck_assert_uint_eq(gfx_ok(&F, &s), N);
		/* the int8 ACTIVATE still needs MULT, SHIFT and OUTPUT */
		s = gfx_activate(0, 0, 1, 0);
		ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
		gfx_disable(&F);
		gfx_wr(&F, TPU_REG_RESET, TPU_RESET_MAGIC);
		gfx_window(&F, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
			   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
		gfx_queue_setup(&F, 0, 16, 16);
		gfx_enable(&F);
	}
	teardown();
}
END_TEST

/* FCLAMP's limits are stored after the input rules and compared as IEEE compares them. */
START_TEST(fclamp_limits)
{
	static const struct {
		uint32_t lo, hi, sc;
	} c[] = {
		{ 0x00000000, 0x80000000, TPU_SC_SUCCESS },	  /* +0 <= -0 */
		{ 0x00000001, 0x80000000, TPU_SC_SUCCESS },	  /* subnormal: +0 */
		{ 0xFF800000, 0x7F800000, TPU_SC_SUCCESS },	  /* -inf, inf */
		{ 0x3F800000, 0x3F800000, TPU_SC_SUCCESS },	  /* a point */
		{ 0x3F800000, 0x007FFFFF, TPU_SC_INVALID_FIELD }, /* 1 > +0 */
		{ 0x7F800001, 0x7F800000, TPU_SC_INVALID_FIELD }, /* a signalling NaN */
		{ 0x00000000, 0x00400000, TPU_SC_SUCCESS },	  /* the last one loaded: [+0, +0] */
	};
	uint32_t w[1][MAXN], zero[MAXN], got[1][MAXN];

	setup_dev(4, true);
	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct gfx_sqe s = fclamp(c[i].lo, c[i].hi);

		ck_assert_msg(gfx_exec(&F, &s, NULL) == c[i].sc, "case %u", i);
	}
	memset(zero, 0, sizeof(zero));
	for (uint32_t j = 0; j < N; j++)
		w[0][j] = j & 1 ? 0xBF800000u : 0x3F800000u; /* -1, 1 */
	set_acc_words(0, 1, w, 63);
	load_vec(TPU_PARAM_BIAS, zero);
	struct gfx_sqe s = flag16(gfx_activate(0, 0, 1, TPU_ACTIVATE_RAW32 | TPU_ACTIVATE_CLAMP));
	ck_assert_uint_eq(gfx_ok(&F, &s), N);
	read_acc(0, 1, got);
	for (uint32_t j = 0; j < N; j++)
		ck_assert_uint_eq(got[0][j], 0x00000000u); /* the stored limit, not the subnormal */
	teardown();
}
END_TEST

/* Storage (spec 6.12): int8 writes zero bytes N .. 2N - 1, bf16 READ_HOST pads with +0, values
 * are stored as they arrive (NaN payloads, subnormals) and RESULT counts 2-byte elements. */
START_TEST(ub_storage_rules)
{
	uint8_t ub[4][2 * MAXN];
	uint32_t bias[MAXN], mult[MAXN], shift[MAXN];
	struct gfx_sqe s;

	setup_dev(8, true);
	for (uint32_t i = 0; i < 4 * 2 * N; i++)
		hp[H_A + i] = (uint8_t)(0x81 + i); /* no zero bytes */
	s = rh16(hbuf + H_A, 4, N, 0, 0);
	ck_assert_uint_eq(gfx_ok(&F, &s), 4 * 2 * N);
	read_ub(0, 4, ub);
	for (uint32_t r = 0; r < 4; r++) /* every bit pattern kept */
		ck_assert(!memcmp(ub[r], hp + H_A + r * 2 * N, 2 * N));
	/* int8 READ_HOST of 3 columns into row 0, bf16 of 3 elements into row 1 */
	s = gfx_read_host(hbuf + H_A, 1, 3, 0, 0);
	ck_assert_uint_eq(gfx_ok(&F, &s), 3);
	s = rh16(hbuf + H_A + 64, 1, 3, 0, 1);
	ck_assert_uint_eq(gfx_ok(&F, &s), 6);
	/* int8 ACTIVATE into row 2 (zero ACC row 10, zero params: out = zero point 5) */
	memset(bias, 0, sizeof(bias));
	memset(mult, 0, sizeof(mult));
	memset(shift, 0, sizeof(shift));
	load_vec(TPU_PARAM_BIAS, bias);
	load_vec(TPU_PARAM_MULT, mult);
	load_vec(TPU_PARAM_SHIFT, shift);
	s = gfx_load_output(5, -128, 127);
	gfx_ok(&F, &s);
	s = gfx_activate(10, 2, 1, 0);
	ck_assert_uint_eq(gfx_ok(&F, &s), 0);
	read_ub(0, 4, ub);
	for (uint32_t j = 0; j < 2 * N; j++) {
		ck_assert_uint_eq(ub[0][j], j < 3 ? hp[H_A + j] : 0);
		ck_assert_uint_eq(ub[1][j], j < 6 ? hp[H_A + 64 + j] : 0);
		ck_assert_uint_eq(ub[2][j], j < N ? 5 : 0);
		ck_assert_uint_eq(ub[3][j], hp[H_A + 3 * 2 * N + j]); /* untouched */
	}
	/* WRITE_HOST of 3 bf16 elements with a stride: 6 bytes a row, the gap untouched */
	memset(hp + H_OUT, 0xEE, 64);
	s = wh16(hbuf + H_OUT, 2, 3, 10, 0);
	ck_assert_uint_eq(gfx_ok(&F, &s), 12);
	ck_assert(!memcmp(hp + H_OUT, ub[0], 6));
	ck_assert(!memcmp(hp + H_OUT + 10, ub[1], 6));
	ck_assert_uint_eq(hp[H_OUT + 6], 0xEE);
	ck_assert_uint_eq(hp[H_OUT + 16], 0xEE);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_WR_LO), 4 * 2 * N * 2 + 12);
	teardown();
}
END_TEST

/* FEATURES and IDENTIFY byte 32 on both configurations. */
START_TEST(features_both_configs)
{
	for (int bf16 = 0; bf16 < 2; bf16++) {
		setup_dev(4, bf16);
		ck_assert_uint_eq(gfx_rd(&F, TPU_REG_FEATURES),
				  (bf16 ? TPU_FEATURES_BF16_MASK : 0) | TPU_FEATURES_ROUND_MASK);
		memset(hp, 0xEE, 4096);
		struct gfx_sqe s = gfx_identify(hbuf);
		ck_assert_uint_eq(gfx_ok(&F, &s), 4096);
		ck_assert_uint_eq(get32(hp + 32),
				  (bf16 ? TPU_FEATURES_BF16_MASK : 0) | TPU_FEATURES_ROUND_MASK);
		for (unsigned i = 36; i < 4096; i++)
			ck_assert_uint_eq(hp[i], 0);
		teardown();
	}
}
END_TEST

/* The cycle estimate of a bf16 MATMUL or ACTIVATE equals its int8 counterpart's (the DMA
 * commands differ only by their doubled bytes, at one cycle per 64). */
static uint64_t cycles_of(struct gfx_sqe s)
{
	uint64_t c0 = gfx_perf(&F, TPU_REG_PERF_CYCLES_LO);

	gfx_ok(&F, &s);
	return gfx_perf(&F, TPU_REG_PERF_CYCLES_LO) - c0;
}

START_TEST(cycles_as_int8)
{
	uint32_t zero[MAXN];
	struct gfx_sqe s;

	setup_dev(16, true);
	memset(zero, 0, sizeof(zero));
	memset(hp + H_A, 0, 0x4000);
	load_vec(TPU_PARAM_BIAS, zero);
	s = gfx_load_weights(hbuf + H_A, N, N, 0, false);
	uint64_t lw8 = cycles_of(s);
	s = lw16(hbuf + H_A, N, N, 0, false);
	uint64_t lw16c = cycles_of(s);
	ck_assert_uint_eq(lw16c - lw8, (2 * N * N + 63) / 64 - (N * N + 63) / 64);
	s = gfx_matmul(0, 0, 40, TPU_MATMUL_POP);
	uint64_t mm8 = cycles_of(s);
	s = flag16(gfx_matmul(0, 0, 40, TPU_MATMUL_POP));
	ck_assert_uint_eq(cycles_of(s), mm8);
	s = gfx_activate(0, 0, 33, TPU_ACTIVATE_RAW32);
	uint64_t act8 = cycles_of(s);
	s = flag16(gfx_activate(0, 0, 33, TPU_ACTIVATE_RAW32));
	ck_assert_uint_eq(cycles_of(s), act8);
	s = flag16(gfx_activate(0, 0, 33, 0));
	ck_assert_uint_eq(cycles_of(s), act8);
	teardown();
}
END_TEST

static void add_sized(TCase *tc, const TTest *t)
{
	tcase_add_loop_test(tc, t, 0, (int)(sizeof(sizes) / sizeof(sizes[0])));
}

TPU_TEST_SUITE(suite_golden_bf16)
static Suite *suite_golden_bf16(void)
{
	Suite *s = suite_create("golden_bf16");
	TCase *tc = tcase_create("bf16");

	tcase_add_checked_fixture(tc, gfx_use_golden, NULL);
	add_sized(tc, gemm_shapes);
	add_sized(tc, gemm_random);
	add_sized(tc, gemm_special_values);
	tcase_add_test(tc, gemm_signed_zero_sums);
	add_sized(tc, mixed_stream);
	add_sized(tc, activate_float);
	tcase_add_test(tc, activate_float_examples);
	tcase_add_loop_test(tc, bad_inputs_change_nothing, 0, BAD_COUNT);
	tcase_add_test(tc, int8_device_refuses_bf16);
	tcase_add_test(tc, matmul_bf16_on_int8_tile);
	tcase_add_test(tc, activate_needs_params);
	tcase_add_test(tc, fclamp_limits);
	tcase_add_test(tc, ub_storage_rules);
	tcase_add_test(tc, features_both_configs);
	tcase_add_test(tc, cycles_as_int8);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
