/* Golden device datapath against naive references computed here: READ_HOST zero fill,
 * LOAD_WEIGHTS (with transpose) + MATMUL (overwrite, accumulate, weight reuse, wrapping int32),
 * ACTIVATE per channel (int8 via tpu_activate, which is verified against gemmlowp elsewhere, and
 * RAW32), WRITE_HOST from UB and ACC, at N = 4, 6, 8, 16 with random shapes. Also IDENTIFY,
 * FENCE, RESET/disable effects on the FIFO and parameters, and exact PERF counters. */
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"
#include "tpu/numerics.h"
#include "tpu/tpu_spec.h"

#define MAXN 16
#define ROWS 64

static const uint32_t sizes[] = { 4, 6, 8, 16 };

/* Host-side model of the parts of device state the tests touch. */
struct ref {
	uint32_t n;
	int8_t ub[ROWS][MAXN];
	uint32_t acc[ROWS][MAXN];
	int8_t w[MAXN][MAXN];
	uint32_t wk, wc;
	int32_t bias[MAXN], mult[MAXN], shift[MAXN];
	int8_t lut[256];
	int32_t zp, qmin, qmax;
};

static struct gfx F;
static struct ref R;
static uint64_t hbuf;
static uint8_t *hp; /* 64 KiB of scratch host memory */
static uint64_t rng;

static void config_n(struct golden_config *c, uint32_t n)
{
	gfx_config_small(c);
	c->array_n = n;
	c->ub_rows = ROWS;
	c->acc_rows = ROWS;
	c->fifo_tiles = 4;
}

static void setup_n(uint32_t n)
{
	struct golden_config c;

	config_n(&c, n);
	gfx_setup(&F, &c);
	hp = gfx_alloc(&F, 65536, &hbuf);
	memset(&R, 0, sizeof(R));
	R.n = n;
	rng = harness_seed() ^ (0x636f6d70ull + n);
}

static void teardown(void)
{
	gfx_teardown(&F);
}

static int8_t rand8(void)
{
	return (int8_t)harness_range(&rng, -128, 127);
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

/* Random per-channel MULT (2^29..2^30-1) at host offset 4608, SHIFT -5 at 4864 and BIAS
 * (-20000..20000) at 5120: the vectors of the read-ahead tests. */
static void put_requant_vectors(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		put32(hp + 4608 + 4 * i, (uint32_t)harness_range(&rng, 1 << 29, (1 << 30) - 1));
		put32(hp + 4864 + 4 * i, (uint32_t)-5);
		put32(hp + 5120 + 4 * i, (uint32_t)harness_range(&rng, -20000, 20000));
	}
}

/* READ_HOST random int8 rows (random cols and stride) into UB rows [row, row + rows). */
static void ref_read_host(uint32_t row, uint32_t rows, uint32_t cols)
{
	uint32_t stride = harness_range(&rng, 0, 1) ? 0 : (uint32_t)harness_range(&rng, cols, 3 * MAXN);
	uint32_t st = stride ? stride : cols;
	struct gfx_sqe s = gfx_read_host(hbuf, rows, cols, stride, row);

	memset(hp, 0x5A, 4096);
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < R.n; j++) {
			int8_t v = rand8();

			if (j < cols)
				hp[r * st + j] = (uint8_t)v;
			R.ub[row + r][j] = j < cols ? v : 0; /* bytes COLS..N-1 become 0 */
		}
	ck_assert_uint_eq(gfx_ok(&F, &s), rows * cols);
}

/* LOAD_WEIGHTS a random K x C tile, transposed in host memory or not. */
static void ref_load_weights(uint32_t k, uint32_t c, bool transpose)
{
	uint32_t hr = transpose ? c : k, hc = transpose ? k : c;
	uint32_t stride = harness_range(&rng, 0, 1) ? 0 : (uint32_t)harness_range(&rng, hc, 2 * MAXN);
	uint32_t st = stride ? stride : hc;
	struct gfx_sqe s = gfx_load_weights(hbuf + 8192, hr, hc, stride, transpose);

	memset(R.w, 0, sizeof(R.w));
	for (uint32_t a = 0; a < hr; a++)
		for (uint32_t b = 0; b < hc; b++) {
			int8_t v = rand8();

			hp[8192 + a * st + b] = (uint8_t)v;
			if (transpose)
				R.w[b][a] = v; /* host holds X = W^T */
			else
				R.w[a][b] = v;
		}
	R.wk = k;
	R.wc = c;
	ck_assert_uint_eq(gfx_ok(&F, &s), hr * hc);
}

static void ref_matmul(uint32_t ub, uint32_t acc, uint32_t rows, bool accumulate)
{
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < R.n; j++) {
			uint32_t sum = 0;

			for (uint32_t k = 0; k < R.n; k++)
				sum += (uint32_t)((int32_t)R.ub[ub + r][k] * R.w[k][j]);
			R.acc[acc + r][j] = accumulate ? R.acc[acc + r][j] + sum : sum;
		}
}

/* WRITE_HOST of ACC rows (all N columns, random stride) compared with the reference. */
static void check_acc(uint32_t row, uint32_t rows)
{
	uint32_t stride = harness_range(&rng, 0, 1) ? 0 : 4 * R.n + 4 * (uint32_t)harness_range(&rng, 0, 3);
	uint32_t st = stride ? stride : 4 * R.n;
	struct gfx_sqe s = gfx_write_host(hbuf + 16384, rows, R.n, stride, row, true);

	ck_assert_uint_eq(gfx_ok(&F, &s), rows * 4 * R.n);
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < R.n; j++)
			ck_assert_msg(get32(hp + 16384 + r * st + 4 * j) == R.acc[row + r][j],
				      "N=%u acc[%u][%u] = %d, expected %d", R.n, row + r, j,
				      (int32_t)get32(hp + 16384 + r * st + 4 * j),
				      (int32_t)R.acc[row + r][j]);
}

static void check_ub(uint32_t row, uint32_t rows, uint32_t cols)
{
	struct gfx_sqe s = gfx_write_host(hbuf + 32768, rows, cols, 0, row, false);

	ck_assert_uint_eq(gfx_ok(&F, &s), rows * cols);
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < cols; j++)
			ck_assert_msg((int8_t)hp[32768 + r * cols + j] == R.ub[row + r][j],
				      "N=%u ub[%u][%u] = %d, expected %d", R.n, row + r, j,
				      (int8_t)hp[32768 + r * cols + j], R.ub[row + r][j]);
}

START_TEST(matmul_random)
{
	setup_n(sizes[_i]);
	uint32_t n = R.n;
	uint64_t macs = 0;

	for (unsigned it = 0; it < 25; it++) {
		uint32_t rows = (uint32_t)harness_range(&rng, 1, 16);
		uint32_t ub = (uint32_t)harness_range(&rng, 0, ROWS - rows);
		uint32_t acc = (uint32_t)harness_range(&rng, 0, ROWS - rows);
		uint32_t k = (uint32_t)harness_range(&rng, 1, n), c = (uint32_t)harness_range(&rng, 1, n);
		struct gfx_sqe s;

		ref_read_host(ub, rows, (uint32_t)harness_range(&rng, 1, n));
		ref_load_weights(k, c, harness_range(&rng, 0, 1));
		s = gfx_matmul(ub, acc, rows, TPU_MATMUL_POP);
		ck_assert_uint_eq(gfx_ok(&F, &s), rows);
		ref_matmul(ub, acc, rows, false);
		macs += (uint64_t)rows * k * c;
		check_acc(acc, rows);
		/* reuse the active tile on other UB rows, accumulating */
		uint32_t ub2 = (uint32_t)harness_range(&rng, 0, ROWS - rows);
		ref_read_host(ub2, rows, (uint32_t)harness_range(&rng, 1, n));
		s = gfx_matmul(ub2, acc, rows, TPU_MATMUL_ACCUMULATE);
		gfx_ok(&F, &s);
		ref_matmul(ub2, acc, rows, true);
		macs += (uint64_t)rows * k * c;
		check_acc(acc, rows);
		check_ub(ub2, rows, n);
	}
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO), macs);
	teardown();
}
END_TEST

START_TEST(matmul_fifo_order)
{
	/* Several tiles queued: POPs take them in FIFO order. */
	setup_n(sizes[_i]);
	struct ref tiles[4];
	struct gfx_sqe s;
	unsigned t;

	ref_read_host(0, 8, R.n);
	for (t = 0; t < 4; t++) {
		ref_load_weights((uint32_t)harness_range(&rng, 1, R.n), R.n, t & 1);
		memcpy(tiles[t].w, R.w, sizeof(R.w));
	}
	for (t = 0; t < 4; t++) {
		memcpy(R.w, tiles[t].w, sizeof(R.w));
		s = gfx_matmul(0, 8 * t, 8, TPU_MATMUL_POP);
		gfx_ok(&F, &s);
		ref_matmul(0, 8 * t, 8, false);
	}
	for (t = 0; t < 4; t++)
		check_acc(8 * t, 8);
	teardown();
}
END_TEST

START_TEST(matmul_wraps)
{
	setup_n(sizes[_i]);
	uint32_t n = R.n, j;
	struct gfx_sqe s;

	/* ACC row 0 = bias (near INT32_MAX) via RAW32 of a zero row, then accumulate a positive
	 * product: the sum wraps to negative, as two's complement */
	for (j = 0; j < n; j++)
		put32(hp + 4 * j, (uint32_t)(INT32_MAX - (int32_t)j));
	s = gfx_load_vec(TPU_PARAM_BIAS, hbuf, n, 0);
	gfx_ok(&F, &s);
	s = gfx_activate(10, 0, 1, TPU_ACTIVATE_RAW32);
	gfx_ok(&F, &s);
	for (j = 0; j < n; j++)
		R.acc[0][j] = (uint32_t)(INT32_MAX - (int32_t)j);
	memset(hp, 0x80, 4096); /* -128 everywhere */
	s = gfx_read_host(hbuf, 1, n, 0, 0);
	gfx_ok(&F, &s);
	s = gfx_load_weights(hbuf, n, n, 0, false);
	gfx_ok(&F, &s);
	for (j = 0; j < n; j++)
		R.ub[0][j] = -128;
	for (uint32_t k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			R.w[k][j] = -128;
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP | TPU_MATMUL_ACCUMULATE);
	gfx_ok(&F, &s);
	ref_matmul(0, 0, 1, true);
	ck_assert_int_lt((int32_t)R.acc[0][0], 0);
	check_acc(0, 1);
	/* and RAW32 itself wraps: ACC row 1 = row 0 + bias */
	s = gfx_activate(0, 1, 1, TPU_ACTIVATE_RAW32);
	gfx_ok(&F, &s);
	for (j = 0; j < n; j++)
		R.acc[1][j] = R.acc[0][j] + (uint32_t)(INT32_MAX - (int32_t)j);
	check_acc(0, 2);
	teardown();
}
END_TEST

/* Load per-channel vectors of `kind` from vals, in two random pieces (partial loads). */
static void load_vec_split(uint32_t kind, const int32_t *vals)
{
	uint32_t n = R.n, cut = (uint32_t)harness_range(&rng, 1, n);
	struct gfx_sqe s;

	for (uint32_t j = 0; j < n; j++)
		put32(hp + 40960 + 4 * j, (uint32_t)vals[j]);
	s = gfx_load_vec(kind, hbuf + 40960, cut, 0);
	ck_assert_uint_eq(gfx_ok(&F, &s), 4 * cut);
	if (cut < n) {
		s = gfx_load_vec(kind, hbuf + 40960 + 4 * cut, n - cut, cut);
		gfx_ok(&F, &s);
	}
}

static void random_params(void)
{
	uint32_t n = R.n, j;

	for (j = 0; j < n; j++) {
		R.bias[j] = (int32_t)harness_range(&rng, -100000, 100000);
		if (harness_range(&rng, 0, 9) == 0)
			R.bias[j] = (int32_t)harness_range(&rng, INT32_MIN, INT32_MAX);
		R.mult[j] = (int32_t)harness_range(&rng, 1 << 30, INT32_MAX);
		if (harness_range(&rng, 0, 9) == 0)
			R.mult[j] = (int32_t)harness_range(&rng, 0, INT32_MAX);
		R.shift[j] = (int32_t)harness_range(&rng, -14, 2);
		if (harness_range(&rng, 0, 9) == 0)
			R.shift[j] = (int32_t)harness_range(&rng, TPU_SHIFT_MIN, TPU_SHIFT_MAX);
	}
	for (j = 0; j < 256; j++)
		R.lut[j] = rand8();
	R.zp = (int32_t)harness_range(&rng, -128, 127);
	R.qmin = (int32_t)harness_range(&rng, -128, 127);
	R.qmax = (int32_t)harness_range(&rng, R.qmin, 127);
	load_vec_split(TPU_PARAM_BIAS, R.bias);
	load_vec_split(TPU_PARAM_MULT, R.mult);
	load_vec_split(TPU_PARAM_SHIFT, R.shift);
	memcpy(hp + 45056, R.lut, 256);
	struct gfx_sqe s = gfx_load_lut(hbuf + 45056);
	ck_assert_uint_eq(gfx_ok(&F, &s), 256);
	s = gfx_load_output(R.zp, R.qmin, R.qmax);
	ck_assert_uint_eq(gfx_ok(&F, &s), 0);
}

static uint32_t ref_activate(uint32_t acc, uint32_t dst, uint32_t rows, bool lut)
{
	struct tpu_act_output out = { R.zp, R.qmin, R.qmax, lut ? R.lut : NULL,
				      TPU_ROUND_DOUBLE };
	uint32_t sat_count = 0;

	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t j = 0; j < R.n; j++) {
			struct tpu_act_channel ch = { R.bias[j], R.mult[j], R.shift[j] };
			bool sat;

			R.ub[dst + r][j] = tpu_activate((int32_t)R.acc[acc + r][j], &ch, &out, &sat);
			sat_count += sat;
		}
	return sat_count;
}

START_TEST(activate_random)
{
	setup_n(sizes[_i]);
	uint32_t n = R.n;
	struct gfx_sqe s;
	struct gfx_cqe c;

	for (unsigned it = 0; it < 12; it++) {
		uint32_t rows = (uint32_t)harness_range(&rng, 1, 20);
		uint32_t acc = (uint32_t)harness_range(&rng, 0, ROWS - rows);
		uint32_t dst = (uint32_t)harness_range(&rng, 0, ROWS - rows);
		bool lut = harness_range(&rng, 0, 1);

		random_params();
		/* fresh accumulators from a random product */
		ref_read_host(0, rows, n);
		ref_load_weights(n, n, false);
		s = gfx_matmul(0, acc, rows, TPU_MATMUL_POP);
		gfx_ok(&F, &s);
		ref_matmul(0, acc, rows, false);
		s = gfx_activate(acc, dst, rows, lut ? TPU_ACTIVATE_LUT : 0);
		ck_assert_uint_eq(gfx_exec(&F, &s, &c), TPU_SC_SUCCESS);
		ck_assert_uint_eq(c.result, ref_activate(acc, dst, rows, lut));
		check_ub(dst, rows, (uint32_t)harness_range(&rng, 1, n));
		/* RAW32 in place (identical ranges) */
		s = gfx_activate(acc, acc, rows, TPU_ACTIVATE_RAW32);
		ck_assert_uint_eq(gfx_ok(&F, &s), 0);
		for (uint32_t r = 0; r < rows; r++)
			for (uint32_t j = 0; j < n; j++)
				R.acc[acc + r][j] += (uint32_t)R.bias[j];
		check_acc(acc, rows);
	}
	teardown();
}
END_TEST

START_TEST(failed_param_load_keeps_old_values)
{
	setup_n(sizes[_i]);
	uint32_t n = R.n;
	struct gfx_sqe s;
	struct gfx_cqe c;
	int32_t bad[MAXN];

	random_params();
	ref_read_host(0, 4, n);
	ref_load_weights(n, n, true);
	s = gfx_matmul(0, 0, 4, TPU_MATMUL_POP);
	gfx_ok(&F, &s);
	ref_matmul(0, 0, 4, false);
	/* different MULT and SHIFT vectors with one illegal channel each: refused whole */
	for (uint32_t j = 0; j < n; j++)
		bad[j] = 12345 + (int32_t)j;
	bad[n / 2] = -7;
	for (uint32_t j = 0; j < n; j++)
		put32(hp + 4 * j, (uint32_t)bad[j]);
	s = gfx_load_vec(TPU_PARAM_MULT, hbuf, n, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_INVALID_FIELD);
	for (uint32_t j = 0; j < n; j++)
		put32(hp + 4 * j, (uint32_t)(j == 1 ? 31 : 0));
	s = gfx_load_vec(TPU_PARAM_SHIFT, hbuf, n, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_INVALID_FIELD);
	/* an OUTPUT with qmin > qmax is refused too */
	s = gfx_load_output(0, 5, 4);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_INVALID_FIELD);
	s = gfx_activate(0, 10, 4, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, &c), TPU_SC_SUCCESS);
	ck_assert_uint_eq(c.result, ref_activate(0, 10, 4, false));
	check_ub(10, 4, n);
	teardown();
}
END_TEST

START_TEST(identify_page)
{
	/* N = 6 on golden; sim has Verilated models of N = 8 and 16 only */
	setup_n(gfx_backend() == GFX_SIM ? 8 : 6);
	struct gfx_sqe s = gfx_identify(hbuf + 4096);
	uint8_t *p = hp + 4096;

	memset(hp, 0xEE, 3 * 4096);
	ck_assert_uint_eq(gfx_ok(&F, &s), 4096);
	ck_assert_uint_eq(get32(p + 0), TPU_ID);
	ck_assert_uint_eq(get32(p + 4), gfx_rd(&F, TPU_REG_VERSION));
	ck_assert_uint_eq(get32(p + 8), F.cfg.array_n | 4u << 16 | 2u << 24 | 4u << 28);
	ck_assert_uint_eq(get32(p + 12), F.cfg.ub_rows); /* ROWS on golden */
	ck_assert_uint_eq(get32(p + 16), F.cfg.acc_rows);
	ck_assert_uint_eq(get32(p + 20), gfx_rd(&F, TPU_REG_CAP));
	ck_assert_uint_eq(get32(p + 24), 0x3FF);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_OPCODES), 0x3FF); /* the same mask as a register */
	ck_assert_uint_eq(get32(p + 28), 131071);
	ck_assert_uint_eq(get32(p + 32), (F.cfg.bf16 ? TPU_FEATURES_BF16_MASK : 0) |
					     (F.cfg.round ? TPU_FEATURES_ROUND_MASK : 0)); /* FEATURES */
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_FEATURES), get32(p + 32));
	for (unsigned i = 36; i < 4096; i++)
		ck_assert_uint_eq(p[i], 0);
	ck_assert_uint_eq(hp[4095], 0xEE);
	ck_assert_uint_eq(hp[8192], 0xEE);
	teardown();
}
END_TEST

START_TEST(fence_semaphore)
{
	setup_n(gfx_backend() == GFX_SIM ? 8 : 4); /* sim: N = 8 and 16 only */
	struct gfx_sqe s = gfx_fence(hbuf + 8, 0x0123456789ABCDEFull);

	memset(hp, 0xEE, 32);
	gfx_ok(&F, &s);
	ck_assert_uint_eq(get32(hp + 8), 0x89ABCDEF);
	ck_assert_uint_eq(get32(hp + 12), 0x01234567);
	ck_assert_uint_eq(hp[7], 0xEE);
	ck_assert_uint_eq(hp[16], 0xEE);
	s = gfx_fence(0, 0);
	GFX_SET(&s, FLAGS, TPU_SQE_FLAG_FENCE);
	gfx_ok(&F, &s);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_WR_LO), 8);
	teardown();
}
END_TEST

START_TEST(reset_clears_fifo_and_params)
{
	setup_n(8);
	struct gfx_sqe s;

	random_params();
	ref_load_weights(8, 8, false);
	ref_load_weights(8, 8, false);
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	gfx_ok(&F, &s);
	/* disable/enable keeps FIFO, active tile and parameters */
	gfx_disable(&F);
	gfx_enable(&F);
	s = gfx_matmul(0, 0, 1, 0);
	gfx_ok(&F, &s);
	s = gfx_activate(0, 0, 1, TPU_ACTIVATE_LUT);
	gfx_ok(&F, &s);
	/* RESET forgets all of them */
	gfx_wr(&F, TPU_REG_RESET, TPU_RESET_MAGIC);
	gfx_window(&F, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
	gfx_queue_setup(&F, 0, 16, 16);
	gfx_enable(&F);
	s = gfx_matmul(0, 0, 1, 0);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	s = gfx_activate(0, 0, 1, TPU_ACTIVATE_RAW32);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	/* the FIFO is empty again: it takes fifo_tiles (4) new tiles */
	for (unsigned t = 0; t < 4; t++)
		ref_load_weights(2, 2, false);
	s = gfx_load_weights(hbuf, 1, 1, 0, false);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SEQUENCE_ERROR);
	teardown();
}
END_TEST

START_TEST(perf_counters_exact)
{
	setup_n(8);
	struct gfx_sqe s;
	uint64_t rd = 0, wr = 0, macs = 0;
	uint32_t cmds = 0, errs = 0;

	s = gfx_read_host(hbuf, 3, 5, 9, 0);
	gfx_ok(&F, &s), rd += 15, cmds++;
	s = gfx_load_weights(hbuf, 3, 7, 0, true); /* K = 7, columns = 3 */
	gfx_ok(&F, &s), rd += 21, cmds++;
	s = gfx_load_vec(TPU_PARAM_BIAS, hbuf, 5, 1);
	gfx_ok(&F, &s), rd += 20, cmds++;
	s = gfx_load_lut(hbuf);
	gfx_ok(&F, &s), rd += 256, cmds++;
	s = gfx_load_output(1, -2, 3);
	gfx_ok(&F, &s), cmds++;
	s = gfx_matmul(0, 0, 10, TPU_MATMUL_POP);
	gfx_ok(&F, &s), macs += 10 * 7 * 3, cmds++;
	s = gfx_matmul(0, 0, 4, 0);
	gfx_ok(&F, &s), macs += 4 * 7 * 3, cmds++;
	s = gfx_write_host(hbuf + 1024, 2, 3, 0, 0, false);
	gfx_ok(&F, &s), wr += 6, cmds++;
	s = gfx_write_host(hbuf + 1024, 2, 3, 100, 0, true);
	gfx_ok(&F, &s), wr += 24, cmds++;
	s = gfx_identify(hbuf + 4096);
	gfx_ok(&F, &s), wr += 4096, cmds++;
	s = gfx_fence(hbuf + 8192, 5);
	gfx_ok(&F, &s), wr += 8, cmds++;
	/* failures: nothing counted but the command and the error */
	s = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	gfx_exec(&F, &s, NULL), cmds++, errs++;
	gfx_fail_range(&F, hbuf, 65536, HOSTMEM_READ, true);
	s = gfx_read_host(hbuf, 3, 5, 9, 0);
	gfx_exec(&F, &s, NULL), cmds++, errs++;
	/* a refused write is posted: the device sent its bytes and the command succeeds */
	s = gfx_write_host(hbuf + 1024, 2, 3, 0, 0, false);
	gfx_ok(&F, &s), wr += 6, cmds++;
	gfx_fail_off(&F);
	s = gfx_cmd(0xFF);
	gfx_exec(&F, &s, NULL), cmds++, errs++;
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_RD_LO), rd);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_WR_LO), wr);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO), macs);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MXU_BUSY_LO), 14);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_PERF_CMDS), cmds);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_PERF_ERRORS), errs);
	ck_assert_uint_gt(gfx_perf(&F, TPU_REG_PERF_CYCLES_LO), 0);
	teardown();
}
END_TEST

/* Push s[0..k-1] (CID = index) on queue 0 as one batch, run them and check that command i
 * completes, in order, with want[i]; _case names the loop case in a failure message. */
static void run_batch_expect(struct gfx_sqe *s, unsigned k, const uint32_t *want, int _case)
{
	struct gfx_cqe c;
	unsigned i;

	for (i = 0; i < k; i++) {
		GFX_SET(&s[i], CID, i);
		gfx_push(&F, 0, &s[i]);
	}
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 100), k);
	for (i = 0; i < k; i++) {
		ck_assert(gfx_reap(&F, 0, &c));
		ck_assert_uint_eq(c.cid, i);
		ck_assert_msg(c.sc == want[i], "case %d command %u: status 0x%x, expected 0x%x", _case,
			      i, c.sc, want[i]);
	}
}

/* Two LOAD_WEIGHTS whose tiles lie back to back in host memory, queued behind a LOAD_PARAMS
 * (a command that waits): the device may fetch both tiles ahead in one row stream. A read
 * failure inside the first tile (_i = 1), inside the second (_i = 2) or none (_i = 0) must give
 * exactly the statuses and effects of executing the commands one by one (on sim, the golden
 * twin checks every byte and register as well). */
START_TEST(chained_weight_tiles_fault)
{
	const uint32_t n = 8, tile = n * n;
	struct gfx_sqe s[6];
	uint32_t want[6];
	uint64_t wa, wb;
	unsigned i;

	setup_n(n);
	wa = hbuf + 1024;
	wb = wa + tile;
	for (i = 0; i < 2 * tile; i++)
		hp[1024 + i] = (uint8_t)rand8();
	for (i = 0; i < 4 * n; i++)
		hp[4096 + i] = (uint8_t)rand8();
	s[0] = gfx_load_vec(TPU_PARAM_BIAS, hbuf + 4096, n, 0);
	s[1] = gfx_load_weights(wa, n, n, n, false);
	s[2] = gfx_load_weights(wb, n, n, n, false);
	s[3] = gfx_matmul(0, 0, 4, TPU_MATMUL_POP);
	s[4] = gfx_matmul(0, 4, 4, TPU_MATMUL_POP);
	s[5] = gfx_write_host(hbuf + 8192, 8, n, 0, 0, true);
	if (_i == 1)
		gfx_fail_range(&F, wa + 3 * n, n, HOSTMEM_READ, false);
	else if (_i == 2)
		gfx_fail_range(&F, wb + 5 * n, n, HOSTMEM_READ, false);
	for (i = 0; i < 6; i++) {
		want[i] = TPU_SC_SUCCESS;
		if ((_i == 1 && i == 1) || (_i == 2 && i == 2))
			want[i] = TPU_SC_DMA_XFER_ERROR;
		else if (_i && i == 4)
			want[i] = TPU_SC_SEQUENCE_ERROR; /* only one tile reached the FIFO */
	}
	run_batch_expect(s, 6, want, _i);
	gfx_fail_off(&F);
	teardown();
}
END_TEST

/* Five LOAD_WEIGHTS whose tiles lie back to back in host memory: READ_HOST, LW0 LW1 LW2 LW3
 * MATMUL LW4, four MATMULs, WRITE_HOST of the ACC rows. While LW0 pushes its tile the device may queue the next tiles' reads in one
 * row stream (LW1..LW3 from the peek, LW4 past the MATMUL as an extension of the running
 * stream), several tiles in flight at once. A read failure in tile _i - 1 (_i = 1..5; the fault
 * may hit while later tiles of the stream are still incomplete, or in the stream's last tile)
 * or none (_i = 0) must give exactly the statuses and effects of executing the commands one by
 * one: the failing LOAD_WEIGHTS gets DMA_XFER_ERROR, every other one succeeds, and the last
 * MATMUL then finds the FIFO empty (on sim, the golden twin checks every byte and register). */
START_TEST(weight_tile_queue_fault)
{
	const uint32_t n = 8, tile = n * n, ntiles = 5;
	struct gfx_sqe s[13];
	uint32_t want[13];
	unsigned i, k = 0, fail_cmd = ~0u;
	unsigned lw_cmd[5];
	uint64_t wa;

	gfx_sim_latency(50); /* several tiles in flight when a read fails */
	setup_n(n);
	wa = hbuf + 1024;
	for (i = 0; i < ntiles * tile; i++)
		hp[1024 + i] = (uint8_t)rand8();
	for (i = 0; i < 4 * n; i++)
		hp[4096 + i] = (uint8_t)rand8();
	s[k++] = gfx_read_host(hbuf + 4096, 4, n, 0, 0); /* the MATMULs' input rows */
	for (i = 0; i < 4; i++) {
		lw_cmd[i] = k;
		s[k++] = gfx_load_weights(wa + i * tile, n, n, n, false);
	}
	s[k++] = gfx_matmul(0, 0, 4, TPU_MATMUL_POP);
	lw_cmd[4] = k;
	s[k++] = gfx_load_weights(wa + 4 * tile, n, n, n, false);
	for (i = 1; i < 5; i++)
		s[k++] = gfx_matmul(0, 4 * i, 4, TPU_MATMUL_POP);
	s[k++] = gfx_write_host(hbuf + 8192, 20, n, 0, 0, true);
	if (_i) {
		gfx_fail_range(&F, wa + (uint64_t)(_i - 1) * tile + 5 * n, n, HOSTMEM_READ, false);
		fail_cmd = lw_cmd[_i - 1];
	}
	for (i = 0; i < k; i++) {
		want[i] = TPU_SC_SUCCESS;
		if (i == fail_cmd)
			want[i] = TPU_SC_DMA_XFER_ERROR;
		else if (_i && i == k - 2)
			want[i] = TPU_SC_SEQUENCE_ERROR; /* one tile fewer reached the FIFO */
	}
	run_batch_expect(s, k, want, _i);
	gfx_fail_off(&F);
	teardown();
}
END_TEST

/* A LOAD_PARAMS behind long commands (MATMUL, ACTIVATE, WRITE_HOST) with the nominal 50 ns
 * link: the device may read its vector ahead while they run. Whatever it does, statuses and
 * effects must be those of executing the commands one by one (on sim, the golden twin checks
 * every byte and register; the second ACTIVATE's output shows which bias it used):
 * _i = 0 plain; 1 a read fault in the vector (DMA_XFER_ERROR, the old bias stays); 2 the
 * WRITE_HOST before it overwrites the vector (the load must see the new bytes); 3 a MULT vector
 * with a negative entry (INVALID_FIELD); 4 a LOAD_PARAMS that fails its checks comes first (a
 * read ahead for it is dropped; the next one reads its own vector). */
START_TEST(param_read_ahead)
{
	const uint32_t n = 8, rows = 16;
	struct gfx_sqe s[16];
	uint32_t want[16];
	unsigned i, k = 0, lp_cmd;
	uint64_t in, b0, b1, mv, sv, bad, out;

	gfx_sim_latency(50); /* the vector's round trip spans the commands before it */
	setup_n(n);
	in = hbuf + 2048;
	b0 = hbuf + 4096;
	b1 = hbuf + 4352;
	mv = hbuf + 4608;
	sv = hbuf + 4864;
	bad = hbuf + 5120;
	out = hbuf + 8192;
	for (i = 0; i < n * n; i++)
		hp[1024 + i] = (uint8_t)rand8();
	for (i = 0; i < rows * n; i++)
		hp[2048 + i] = (uint8_t)rand8();
	for (i = 0; i < n; i++) {
		put32(hp + 4096 + 4 * i, (uint32_t)harness_range(&rng, -20000, 20000));
		put32(hp + 4352 + 4 * i, (uint32_t)harness_range(&rng, -20000, 20000));
		put32(hp + 4608 + 4 * i, (uint32_t)harness_range(&rng, 1 << 29, (1 << 30) - 1));
		put32(hp + 4864 + 4 * i, (uint32_t)-6);
	}
	memcpy(hp + 5120, hp + 4608, 4 * n);
	put32(hp + 5120 + 4 * (n - 1), 0x80000000u); /* a negative multiplier */
	s[k++] = gfx_load_output(3, -128, 127);
	s[k++] = gfx_load_vec(TPU_PARAM_MULT, mv, n, 0);
	s[k++] = gfx_load_vec(TPU_PARAM_SHIFT, sv, n, 0);
	s[k++] = gfx_load_vec(TPU_PARAM_BIAS, b0, n, 0);
	s[k++] = gfx_read_host(in, rows, n, 0, 0);
	s[k++] = gfx_load_weights(hbuf + 1024, n, n, n, false);
	s[k++] = gfx_matmul(0, 0, rows, TPU_MATMUL_POP);
	s[k++] = gfx_activate(0, rows, rows, 0);
	/* int8 rows 16.. out: apart from the vector, or (_i = 2) over it */
	s[k++] = gfx_write_host(_i == 2 ? b1 : out, 4, n, 0, rows, false);
	if (_i == 4)
		s[k++] = gfx_load_vec(TPU_PARAM_BIAS, b1, n, 1); /* channels 1..n: LOCAL_RANGE */
	lp_cmd = k;
	if (_i == 3)
		s[k++] = gfx_load_vec(TPU_PARAM_MULT, bad, n, 0); /* the old MULT stays */
	else
		s[k++] = gfx_load_vec(TPU_PARAM_BIAS, b1, n, 0);
	s[k++] = gfx_activate(0, 2 * rows, rows, 0);
	s[k++] = gfx_write_host(out + 256, rows, n, 0, 2 * rows, false);
	for (i = 0; i < k; i++)
		want[i] = TPU_SC_SUCCESS;
	if (_i == 1) {
		gfx_fail_range(&F, b1 + 8, 4, HOSTMEM_READ, false);
		want[lp_cmd] = TPU_SC_DMA_XFER_ERROR;
	} else if (_i == 3) {
		want[lp_cmd] = TPU_SC_INVALID_FIELD;
	} else if (_i == 4) {
		want[lp_cmd - 1] = TPU_SC_LOCAL_RANGE;
	}
	run_batch_expect(s, k, want, _i);
	gfx_fail_off(&F);
	teardown();
}
END_TEST

/* READ_HOST, two LOAD_WEIGHTS and three parameter loads behind it, with the nominal 50 ns link:
 * the device may read the first parameter vector while the READ_HOST streams and the weight
 * tiles while it commits its last rows. A read failure in the first tile (_i = 1), the second
 * tile (2), the MULT vector (3) or the READ_HOST's last rows (4), or none (0), must give exactly
 * the statuses and effects of executing the commands one by one (on sim, the golden twin checks
 * every byte and register). */
START_TEST(read_host_tail_read_ahead)
{
	const uint32_t n = 8, tile = n * n, rows = 48;
	struct gfx_sqe s[12];
	uint32_t want[12];
	unsigned i, k = 0;
	uint64_t in, wa, mv, sv, bv, out;

	gfx_sim_latency(50);
	setup_n(n);
	in = hbuf + 2048;
	wa = hbuf + 1024;
	mv = hbuf + 4608;
	sv = hbuf + 4864;
	bv = hbuf + 5120;
	out = hbuf + 8192;
	for (i = 0; i < 2 * tile; i++)
		hp[1024 + i] = (uint8_t)rand8();
	for (i = 0; i < rows * n; i++)
		hp[2048 + i] = (uint8_t)rand8();
	put_requant_vectors(n);
	s[k++] = gfx_load_output(-2, -100, 120);
	s[k++] = gfx_read_host(in, rows, n, 0, 0);
	s[k++] = gfx_load_weights(wa, n, n, n, false);
	s[k++] = gfx_load_weights(wa + tile, n, n, n, false);
	s[k++] = gfx_load_vec(TPU_PARAM_MULT, mv, n, 0);
	s[k++] = gfx_load_vec(TPU_PARAM_SHIFT, sv, n, 0);
	s[k++] = gfx_load_vec(TPU_PARAM_BIAS, bv, n, 0);
	s[k++] = gfx_matmul(0, 0, 16, TPU_MATMUL_POP);
	s[k++] = gfx_matmul(16, 16, 32, TPU_MATMUL_POP);
	s[k++] = gfx_activate(8, rows, 16, 0);
	s[k++] = gfx_write_host(out, 16, n, 0, rows, false);
	for (i = 0; i < k; i++)
		want[i] = TPU_SC_SUCCESS;
	if (_i == 1 || _i == 2) {
		gfx_fail_range(&F, wa + (uint64_t)(_i - 1) * tile + 3 * n, n, HOSTMEM_READ, false);
		want[_i + 1] = TPU_SC_DMA_XFER_ERROR;
		want[8] = TPU_SC_SEQUENCE_ERROR; /* one tile reached the FIFO */
	} else if (_i == 3) {
		gfx_fail_range(&F, mv + 4, 4, HOSTMEM_READ, false);
		want[4] = TPU_SC_DMA_XFER_ERROR;
		want[9] = TPU_SC_SEQUENCE_ERROR; /* no multiplier loaded */
	} else if (_i == 4) {
		gfx_fail_range(&F, in + (rows - 2) * n, n, HOSTMEM_READ, false);
		want[1] = TPU_SC_DMA_XFER_ERROR;
	}
	run_batch_expect(s, k, want, _i);
	gfx_fail_off(&F);
	teardown();
}
END_TEST

/* READ_HOST background commit: once every row of a READ_HOST is in, the device completes it and
 * commits the rest beside the next commands; a MATMUL reading other UB rows and LOAD_WEIGHTS may
 * run at once, a MATMUL reading its rows, a WRITE_HOST of them and an ACTIVATE wait. UB rows
 * 0..47 hold old data, the READ_HOST under test writes new rows over them. _i = 0: a MATMUL of
 * other rows right after it, then one of its rows; 1: a read failure in its last rows, 2: in its
 * first row (it fails, the old rows stay); 3: a WRITE_HOST of its rows right after it; 4: the
 * MATMUL of its rows right after it; 5: the weight tiles loaded after it (pushed beside the
 * commit); 6: no link latency, a MATMUL of the old rows right before it and a READ_HOST of only
 * the last of them (its commit must wait until that MATMUL has read the row). Statuses and every byte and register must be those of executing the commands one by
 * one (on sim, the golden twin checks). */
START_TEST(read_host_background_commit)
{
	const uint32_t n = 8, tile = n * n, rows = 48;
	struct gfx_sqe s[16];
	uint32_t want[16];
	unsigned i, k = 0, rh;
	uint64_t old, a1, in, wa, mv, sv, bv, out, out2;

	gfx_sim_latency(_i == 6 ? 0 : 50);
	setup_n(n);
	old = hbuf;
	a1 = hbuf + 512;
	wa = hbuf + 1024;
	in = hbuf + 2048;
	mv = hbuf + 4608;
	sv = hbuf + 4864;
	bv = hbuf + 5120;
	out = hbuf + 8192;
	out2 = hbuf + 12288;
	for (i = 0; i < rows * n; i++) {
		hp[i] = (uint8_t)rand8();
		hp[2048 + i] = (uint8_t)rand8();
	}
	for (i = 0; i < 16 * n; i++)
		hp[512 + i] = (uint8_t)rand8();
	for (i = 0; i < 3 * tile; i++)
		hp[1024 + i] = (uint8_t)rand8();
	put_requant_vectors(n);
	s[k++] = gfx_load_output(-2, -100, 120);
	s[k++] = gfx_read_host(old, rows, n, 0, 0);
	s[k++] = gfx_read_host(a1, 16, n, 0, rows);
	s[k++] = gfx_load_vec(TPU_PARAM_MULT, mv, n, 0);
	s[k++] = gfx_load_vec(TPU_PARAM_SHIFT, sv, n, 0);
	s[k++] = gfx_load_vec(TPU_PARAM_BIAS, bv, n, 0);
	if (_i != 5) {
		s[k++] = gfx_load_weights(wa, n, n, n, false);
		s[k++] = gfx_load_weights(wa + tile, n, n, n, false);
	}
	if (_i == 6) {
		s[k++] = gfx_load_weights(wa + 2 * tile, n, n, n, false);
		s[k++] = gfx_matmul(0, 0, 64, TPU_MATMUL_POP); /* every old row */
	}
	rh = k;
	if (_i == 6) /* one row, quickly in: the MATMUL before it has not read that row yet */
		s[k++] = gfx_read_host(in, 1, n, 0, 63);
	else
		s[k++] = gfx_read_host(in, rows, n, 0, 0);
	if (_i == 3)
		s[k++] = gfx_write_host(out2, rows, n, 0, 0, false);
	if (_i == 5) {
		s[k++] = gfx_load_weights(wa, n, n, n, false);
		s[k++] = gfx_load_weights(wa + tile, n, n, n, false);
	}
	if (_i == 4)
		s[k++] = gfx_matmul(0, 0, 32, TPU_MATMUL_POP); /* the new rows */
	s[k++] = gfx_matmul(rows, 32, 16, TPU_MATMUL_POP); /* other rows */
	if (_i != 4 && _i != 6) /* (the queue holds 15) */
		s[k++] = gfx_matmul(0, 0, 32, TPU_MATMUL_POP); /* the new rows */
	s[k++] = gfx_activate(0, rows, 16, 0);
	s[k++] = gfx_write_host(out, 16, n, 0, rows, false);
	if (_i == 6) /* the ACC rows of the MATMUL before it that read the row */
		s[k++] = gfx_write_host(out2 + 1024, 16, n, 0, rows, true);
	else
		s[k++] = gfx_write_host(out2 + 1024, rows, n, 0, 0, false);
	for (i = 0; i < k; i++)
		want[i] = TPU_SC_SUCCESS;
	if (_i == 1 || _i == 2) {
		gfx_fail_range(&F, in + (_i == 1 ? (rows - 2) * n : 0), n, HOSTMEM_READ, false);
		want[rh] = TPU_SC_DMA_XFER_ERROR;
	}
	run_batch_expect(s, k, want, _i);
	gfx_fail_off(&F);
	teardown();
}
END_TEST

/* READ_HOST read-ahead: the device may read a READ_HOST of at most StageRows rows while the
 * commands before it run (here two 48-row MATMULs), on the weight tiles' row stream (the tile
 * before it in command order first, the one after it behind), and the READ_HOST then completes
 * at once and commits its rows beside the next commands. UB rows 48..63 get the new rows, the
 * MATMULs after it read them, the ACC and those UB rows are written back. _i = 0 plain; 1 a read
 * fault in its rows (it fails, the old rows stay); 2 a WRITE_HOST before it overwrites its
 * source bytes (it must read the new bytes); 3 its source is the completion ring (it must read
 * the CQEs posted before it runs); 4 a read fault in the tile before it in the stream; 5 in the
 * tile after it. Statuses and every byte and register must be those of executing the commands
 * one by one (on sim, the golden twin checks). */
START_TEST(read_host_read_ahead)
{
	const uint32_t n = 8, tile = n * n, rows = 16;
	struct gfx_sqe s[16];
	uint32_t want[16];
	unsigned i, k = 0, rh, lw2, lw3;
	uint64_t old, wa, in, out;

	gfx_sim_latency(50);
	setup_n(n);
	old = hbuf;
	wa = hbuf + 1024;
	in = _i == 3 ? F.q[0].cq_iova : hbuf + 2048;
	out = hbuf + 8192;
	for (i = 0; i < 48 * n; i++)
		hp[i] = (uint8_t)rand8();
	for (i = 0; i < 4 * tile; i++)
		hp[1024 + i] = (uint8_t)rand8();
	for (i = 0; i < rows * n; i++)
		hp[2048 + i] = (uint8_t)rand8();
	s[k++] = gfx_read_host(old, 48, n, 0, 0);
	s[k++] = gfx_load_weights(wa, n, n, n, false);
	s[k++] = gfx_load_weights(wa + tile, n, n, n, false);
	s[k++] = gfx_matmul(0, 0, 48, TPU_MATMUL_POP);
	s[k++] = gfx_matmul(0, 0, 48, TPU_MATMUL_POP | TPU_MATMUL_ACCUMULATE);
	lw2 = k;
	s[k++] = gfx_load_weights(wa + 2 * tile, n, n, n, false);
	if (_i == 2) /* the old rows 0..15 over its source */
		s[k++] = gfx_write_host(in, rows, n, 0, 0, false);
	rh = k;
	s[k++] = gfx_read_host(in, rows, n, 0, 48);
	lw3 = k;
	s[k++] = gfx_load_weights(wa + 3 * tile, n, n, n, false);
	s[k++] = gfx_matmul(48, 48, rows, TPU_MATMUL_POP);
	s[k++] = gfx_matmul(48, 48, rows, TPU_MATMUL_POP | TPU_MATMUL_ACCUMULATE);
	s[k++] = gfx_write_host(out - 1024, rows, n, 0, 48, false);
	s[k++] = gfx_write_host(out, 64, n, 0, 0, true);
	for (i = 0; i < k; i++)
		want[i] = TPU_SC_SUCCESS;
	if (_i == 1) {
		gfx_fail_range(&F, in + 5 * n, n, HOSTMEM_READ, false);
		want[rh] = TPU_SC_DMA_XFER_ERROR;
	} else if (_i == 4 || _i == 5) {
		gfx_fail_range(&F, wa + (_i == 4 ? 2 : 3) * tile + 3 * n, n, HOSTMEM_READ, false);
		want[_i == 4 ? lw2 : lw3] = TPU_SC_DMA_XFER_ERROR;
		want[lw3 + 2] = TPU_SC_SEQUENCE_ERROR; /* one tile fewer reached the FIFO */
	}
	run_batch_expect(s, k, want, _i);
	gfx_fail_off(&F);
	teardown();
}
END_TEST

/* READ_HOST read-ahead, depth 2 (tpu_device RhDepth = 2, the sim devices): while a READ_HOST
 * read ahead is held (its rows due or in, its command not yet run), the device may read the
 * next READ_HOST ahead too, on the same row stream right behind it, into a third staging
 * region, and the third once the first has committed. Here three 8-row READ_HOSTs a, b, c
 * (into UB rows 40..63, over old rows) follow two 40-row MATMULs (the time to read them
 * ahead); the MATMULs after them read their UB rows, and the UB and ACC rows are written back.
 * _i = 0 plain; 1 a read fault in b's rows (b fails and its old UB rows stay; a, dropped with
 * it while its rows are due, reads its own); 2 in a's rows (a fails; b, read ahead behind it,
 * is dropped with it and reads its own rows); 3 a WRITE_HOST between a and b overwrites b's
 * source (b must read the new bytes); 4 b's source is the completion ring (b must read the
 * CQEs posted before it runs); 5 a WRITE_HOST between a and b apart from both; 6 a read fault
 * in c's rows; 7 the same with a long WRITE_HOST (64 ACC rows) between a and b, apart from
 * them (c fails while held second behind b, whose rows are all in: b stays and commits); 8 a
 * WRITE_HOST before a overwrites b's source (b is dropped while held second). Statuses and
 * every byte and register must be those of executing the commands one by one (on sim, the
 * golden twin checks). */
START_TEST(read_host_read_ahead2)
{
	const uint32_t n = 8, tile = n * n, rows = 8, mr = 40;
	struct gfx_sqe s[15]; /* (the ring holds 15) */
	uint32_t want[15];
	unsigned i, k = 0, ra, rb, rc;
	uint64_t old, wa, in[3], out;

	gfx_sim_latency(50);
	setup_n(n);
	old = hbuf;
	wa = hbuf + 1536;
	in[0] = hbuf + 2048;
	in[1] = _i == 4 ? F.q[0].cq_iova : hbuf + 2048 + 256;
	in[2] = hbuf + 2048 + 512;
	out = hbuf + 8192;
	for (i = 0; i < ROWS * n; i++)
		hp[i] = (uint8_t)rand8();
	for (i = 0; i < 3 * tile; i++)
		hp[1536 + i] = (uint8_t)rand8();
	for (i = 0; i < 768; i++)
		hp[2048 + i] = (uint8_t)rand8();
	s[k++] = gfx_read_host(old, ROWS, n, 0, 0); /* (the old rows a, b, c replace) */
	s[k++] = gfx_load_weights(wa, n, n, n, false);
	s[k++] = gfx_load_weights(wa + tile, n, n, n, false);
	s[k++] = gfx_matmul(0, 0, mr, TPU_MATMUL_POP);
	s[k++] = gfx_matmul(0, 0, mr, TPU_MATMUL_POP | TPU_MATMUL_ACCUMULATE);
	s[k++] = gfx_load_weights(wa + 2 * tile, n, n, n, false);
	if (_i == 8) /* the old rows 0..7 over b's source, before a */
		s[k++] = gfx_write_host(in[1], rows, n, 0, 0, false);
	ra = k;
	s[k++] = gfx_read_host(in[0], rows, n, 0, mr);
	if (_i == 3) /* ... between a and b */
		s[k++] = gfx_write_host(in[1], rows, n, 0, 0, false);
	else if (_i == 5) /* ... elsewhere */
		s[k++] = gfx_write_host(hbuf + 4096, rows, n, 0, 0, false);
	else if (_i == 7) /* (b waits for it, c is read ahead meanwhile) */
		s[k++] = gfx_write_host(hbuf + 12288, ROWS, n, 0, 0, true);
	rb = k;
	s[k++] = gfx_read_host(in[1], rows, n, 0, mr + rows);
	rc = k;
	s[k++] = gfx_read_host(in[2], rows, n, 0, mr + 2 * rows);
	s[k++] = gfx_matmul(mr, mr, 3 * rows, TPU_MATMUL_POP);
	s[k++] = gfx_matmul(mr, mr, 3 * rows, TPU_MATMUL_ACCUMULATE);
	s[k++] = gfx_write_host(out - 1024, 3 * rows, n, 0, mr, false);
	s[k++] = gfx_write_host(out, ROWS, n, 0, 0, true);
	for (i = 0; i < k; i++)
		want[i] = TPU_SC_SUCCESS;
	if (_i == 1 || _i == 2 || _i == 6 || _i == 7) {
		unsigned f = _i == 1 ? 1 : _i == 2 ? 0 : 2;

		gfx_fail_range(&F, in[f] + 5 * n, n, HOSTMEM_READ, false);
		want[f == 0 ? ra : f == 1 ? rb : rc] = TPU_SC_DMA_XFER_ERROR;
	}
	run_batch_expect(s, k, want, _i);
	gfx_fail_off(&F);
	teardown();
}
END_TEST

/* Loop tests over sizes[]: on sim only the sizes with a Verilated model (N = 8 and 16 with the
 * default UB/ACC rows, which hold this file's ROWS and are otherwise the same device). */
static void add_sized(TCase *tc, const TTest *t, enum gfx_backend be)
{
	for (int i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		struct golden_config c;

		config_n(&c, sizes[i]);
		if (gfx_backend_has(be, &c))
			tcase_add_loop_test(tc, t, i, i + 1);
	}
}

static Suite *build_on(const char *name, enum gfx_backend be, void (*use)(void))
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("compute");
	struct golden_config c;

	tcase_add_checked_fixture(tc, use, NULL);
	add_sized(tc, matmul_random, be);
	add_sized(tc, matmul_fifo_order, be);
	add_sized(tc, matmul_wraps, be);
	add_sized(tc, activate_random, be);
	add_sized(tc, failed_param_load_keeps_old_values, be);
	config_n(&c, 8);
	if (gfx_backend_has(be, &c)) {
		tcase_add_test(tc, identify_page);
		tcase_add_test(tc, fence_semaphore);
		tcase_add_test(tc, reset_clears_fifo_and_params);
		tcase_add_test(tc, perf_counters_exact);
		tcase_add_loop_test(tc, chained_weight_tiles_fault, 0, 3);
		tcase_add_loop_test(tc, weight_tile_queue_fault, 0, 6);
		tcase_add_loop_test(tc, param_read_ahead, 0, 5);
		tcase_add_loop_test(tc, read_host_tail_read_ahead, 0, 5);
		tcase_add_loop_test(tc, read_host_background_commit, 0, 7);
		tcase_add_loop_test(tc, read_host_read_ahead, 0, 6);
		tcase_add_loop_test(tc, read_host_read_ahead2, 0, 9);
	}
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *build(const char *name, enum gfx_backend be)
{
	return build_on(name, be, be == GFX_SIM ? gfx_use_sim : gfx_use_golden);
}

TPU_TEST_SUITE(suite_golden_compute)
static Suite *suite_golden_compute(void)
{
	return build("golden_compute", GFX_GOLDEN);
}

/* The same tests on the Verilated device, checked against a golden shadow (golden_fixture.h). */
TPU_TEST_SUITE(suite_sim_golden_compute)
static Suite *suite_sim_golden_compute(void)
{
	return build("sim_golden_compute", GFX_SIM);
}

/* The same int8 tests on a golden device with the bf16 mode (UB rows of 2N bytes): without
 * FLAGS.BF16 every command must behave as on an int8 device (spec 6.12). */
TPU_TEST_SUITE(suite_golden_compute_bf16dev)
static Suite *suite_golden_compute_bf16dev(void)
{
	return build_on("golden_compute_bf16dev", GFX_GOLDEN, gfx_use_golden_bf16);
}
