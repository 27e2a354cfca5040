/* Driver: tpu_gemm_ex with TPU_DTYPE_BF16 on the golden device with the mode (golden:bf16=1).
 * Each random GEMM is checked twice: bit for bit against the result the test computes with
 * tpu_bf16_dot_tiled in the device's tile order (docs/ops.md "bf16 GEMM": the old C with
 * accumulate, then the bias with tpu_f32_add), and against a double-precision dot product within
 * docs/spec.md 7.1's error bound. Shapes of 1, non-multiples of N, K over several tiles, A longer
 * than the UB, all four transpose combinations, padded leading dimensions (the bytes between C's
 * rows untouched), M over several chunks, accumulate, a K split into accumulating calls, bias, NaN and infinity
 * inputs, int8 and bf16 calls (and weight tiles of both types left in the FIFO) on one device;
 * the parameters bf16 refuses; -ENOTSUP on the int8-only default golden device. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sim_model.h"
#include "tpu/bf16.h"
#include "tpu/tpu.h"

/* A random bf16: mostly normal values of magnitude 2^-8 .. 2^8, some zeros of either sign and
 * some subnormals (read as zero); with specials also infinities and NaNs of any payload. */
static uint16_t rand_bf16(uint64_t *seed, bool specials)
{
	uint64_t r = harness_rand(seed);
	uint16_t sign = (uint16_t)((r & 1u) << 15), frac = (uint16_t)((r >> 1) & 0x7Fu);
	unsigned pick = (unsigned)((r >> 8) % 64u);

	if (pick == 0)
		return sign; /* +-0 */
	if (pick == 1)
		return (uint16_t)(sign | (frac ? frac : 1u)); /* subnormal */
	if (specials && pick == 2)
		return (uint16_t)(sign | 0x7F80u); /* inf */
	if (specials && pick == 3)
		return (uint16_t)(sign | 0x7F80u | (frac ? frac : 0x40u)); /* NaN */
	return (uint16_t)(sign | ((uint16_t)harness_range(seed, 127 - 8, 127 + 8) << 7) | frac);
}

/* A random fp32 of magnitude 2^-8 .. 2^8 (or a special). */
static uint32_t rand_f32(uint64_t *seed, bool specials)
{
	uint32_t r = (uint32_t)harness_rand(seed);

	if (specials && r % 16u == 0)
		return (r & 0x80000000u) | TPU_F32_INF;
	return (r & 0x807FFFFFu) | ((uint32_t)harness_range(seed, 127 - 8, 127 + 8) << 23);
}

struct bcase {
	size_t m, k, n;
	enum tpu_trans ta, tb;
	uint16_t *opa, *opb; /* op(A) m x k, op(B) k x n, packed */
	uint16_t *a, *b;     /* as stored (random padding) */
	size_t lda, ldb, ldc;
	uint32_t *c0;        /* C before the call: m x ldc, the padding random */
	uint32_t *bias;      /* n or NULL */
	bool acc;
};

/* op(X) (rows x cols) stored transposed or not with pad random elements per stored row. */
static uint16_t *store16(uint64_t *seed, const uint16_t *x, size_t rows, size_t cols,
			 enum tpu_trans t, size_t pad, size_t *ld)
{
	size_t srows = t == TPU_TRANS_T ? cols : rows, scols = t == TPU_TRANS_T ? rows : cols;
	uint16_t *s = malloc(srows * (scols + pad) * 2u);

	ck_assert_ptr_nonnull(s);
	*ld = scols + pad;
	for (size_t i = 0; i < srows * *ld; i++)
		s[i] = (uint16_t)harness_rand(seed);
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			s[t == TPU_TRANS_T ? c * *ld + r : r * *ld + c] = x[r * cols + c];
	return s;
}

static void make_case(uint64_t *seed, struct bcase *e, size_t m, size_t k, size_t n,
		      enum tpu_trans ta, enum tpu_trans tb, size_t pad, bool acc, bool bias,
		      bool specials)
{
	memset(e, 0, sizeof(*e));
	e->m = m;
	e->k = k;
	e->n = n;
	e->ta = ta;
	e->tb = tb;
	e->acc = acc;
	e->opa = malloc(m * k * 2u);
	e->opb = malloc(k * n * 2u);
	ck_assert(e->opa && e->opb);
	for (size_t i = 0; i < m * k; i++)
		e->opa[i] = rand_bf16(seed, specials);
	for (size_t i = 0; i < k * n; i++)
		e->opb[i] = rand_bf16(seed, specials);
	e->a = store16(seed, e->opa, m, k, ta, pad, &e->lda);
	e->b = store16(seed, e->opb, k, n, tb, pad ? pad + 1 : 0, &e->ldb);
	e->ldc = n + (pad ? pad + 2 : 0);
	e->c0 = malloc(m * e->ldc * 4u);
	ck_assert_ptr_nonnull(e->c0);
	for (size_t i = 0; i < m * e->ldc; i++)
		e->c0[i] = (i % e->ldc) < n ? rand_f32(seed, specials) : (uint32_t)harness_rand(seed);
	if (bias) {
		e->bias = malloc(n * 4u);
		ck_assert_ptr_nonnull(e->bias);
		for (size_t j = 0; j < n; j++)
			e->bias[j] = rand_f32(seed, specials);
	}
}

static void free_case(struct bcase *e)
{
	free(e->opa);
	free(e->opb);
	free(e->a);
	free(e->b);
	free(e->c0);
	free(e->bias);
}

/* The documented result of element (i, j) on an array of N. */
static uint32_t expect_elem(const struct bcase *e, unsigned N, size_t i, size_t j, uint16_t *col)
{
	uint32_t s;

	for (size_t kk = 0; kk < e->k; kk++)
		col[kk] = e->opb[kk * e->n + j];
	s = tpu_bf16_dot_tiled(e->opa + i * e->k, col, (unsigned)e->k, N, e->c0[i * e->ldc + j],
			       e->acc);
	return e->bias ? tpu_f32_add(s, e->bias[j]) : s;
}

static double f32d(uint32_t x)
{
	return (double)tpu_f32_to_float(tpu_f32_canon(x));
}

/* docs/spec.md 7.1 "Error bound" over T tiles of N: a column adds at most N products, the ACC
 * T tile sums (one of them the old C with accumulate), the bias one more addition:
 * gamma_{N+T+1} (|c| + sum |p_k| + |bias|) + F (1 + gamma) 2^-126 with F = K + T (N + 1) + 2,
 * plus the double reference's own error gamma_{K+2} with u = 2^-53. Returns whether the
 * element is finite enough to be checked (no infinity or NaN anywhere, no overflow). */
static bool within_bound(const struct bcase *e, unsigned N, size_t i, size_t j, uint32_t got,
			 double *err, double *bound)
{
	size_t T = (e->k + N - 1) / N;
	double sum = 0, mag = 0, u = ldexp(1, -24), ud = ldexp(1, -53);
	double n_add = (double)(N + T + 1), g = n_add * u / (1 - n_add * u);
	double gd = (double)(e->k + 2) * ud / (1 - (double)(e->k + 2) * ud);
	double F = (double)(e->k + T * (N + 1) + 2);

	for (size_t kk = 0; kk < e->k; kk++) {
		double p = f32d(tpu_bf16_to_f32(e->opa[i * e->k + kk])) *
			   f32d(tpu_bf16_to_f32(e->opb[kk * e->n + j]));
		if (!isfinite(p))
			return false;
		sum += p;
		mag += fabs(p);
	}
	if (e->acc) {
		double c = f32d(e->c0[i * e->ldc + j]);
		if (!isfinite(c))
			return false;
		sum += c;
		mag += fabs(c);
	}
	if (e->bias) {
		double b = f32d(e->bias[j]);
		if (!isfinite(b))
			return false;
		sum += b;
		mag += fabs(b);
	}
	if (!isfinite(f32d(got)))
		return false;
	*err = fabs(f32d(got) - sum);
	*bound = g * mag + F * (1 + g) * ldexp(1, -126) + gd * mag;
	return true;
}

/* Run e on dev (array N) and check every byte of C. Returns the number of elements checked
 * against the error bound. */
static size_t check_case(tpu_dev *dev, unsigned N, const struct bcase *e, const char *what)
{
	uint32_t *c = malloc(e->m * e->ldc * 4u);
	uint16_t *col = malloc(e->k * 2u);
	struct tpu_gemm_params p;
	struct tpu_gemm_desc d = { .dtype = TPU_DTYPE_BF16, .trans_a = e->ta, .trans_b = e->tb,
				   .m = e->m, .n = e->n, .k = e->k, .a = e->a, .lda = e->lda,
				   .b = e->b, .ldb = e->ldb, .c = c, .ldc = e->ldc,
				   .flags = e->acc ? TPU_GEMM_ACCUMULATE : 0 };
	size_t checked = 0;
	int err;

	ck_assert(c && col);
	tpu_gemm_params_init(&p);
	p.bias = (const int32_t *)e->bias;
	memcpy(c, e->c0, e->m * e->ldc * 4u);
	err = tpu_gemm_ex(dev, &d, &p);
	ck_assert_msg(err == 0, "%s %zux%zux%zu t=%d%d: %s (%s)", what, e->m, e->k, e->n, e->ta,
		      e->tb, tpu_strerror(err), tpu_gemm_last_error(dev));
	for (size_t i = 0; i < e->m; i++) {
		for (size_t j = 0; j < e->ldc; j++) {
			uint32_t want = j < e->n ? expect_elem(e, N, i, j, col) : e->c0[i * e->ldc + j];
			double er, bd;

			ck_assert_msg(c[i * e->ldc + j] == want,
				      "%s %zux%zux%zu t=%d%d ld=%zu,%zu,%zu acc=%d bias=%d: C[%zu][%zu] "
				      "= 0x%08x, want 0x%08x",
				      what, e->m, e->k, e->n, e->ta, e->tb, e->lda, e->ldb, e->ldc,
				      e->acc, e->bias != NULL, i, j, c[i * e->ldc + j], want);
			if (j < e->n && within_bound(e, N, i, j, want, &er, &bd)) {
				ck_assert_msg(er <= bd, "%s C[%zu][%zu]: error %g above the bound %g",
					      what, i, j, er, bd);
				checked++;
			}
		}
	}
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	free(c);
	free(col);
	return checked;
}

/* Every shape x the four transpose combinations, padding, accumulate and bias in turn. */
static void sweep(const char *uri, const size_t (*shapes)[3], size_t count, uint64_t salt)
{
	uint64_t seed = harness_seed() ^ salt;
	struct tpu_info info;
	size_t checked = 0, total = 0;
	unsigned i = 0;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, &info), 0);
	ck_assert_uint_ne(info.features & TPU_FEATURES_BF16_MASK, 0);
	for (size_t s = 0; s < count; s++) {
		for (int t = 0; t < 4; t++, i++) {
			struct bcase e;

			make_case(&seed, &e, shapes[s][0], shapes[s][1], shapes[s][2],
				  (enum tpu_trans)(t & 1), (enum tpu_trans)(t >> 1),
				  i % 2 ? (size_t)harness_range(&seed, 1, 5) : 0, i % 3 == 1,
				  i % 4 >= 2, false);
			checked += check_case(dev, info.array_n, &e, uri);
			total += e.m * e.n;
			free_case(&e);
		}
	}
	/* finite inputs: (almost) every element is checked against the bound too */
	ck_assert_msg(checked * 10 >= total * 9, "%s: only %zu of %zu elements bounded", uri,
		      checked, total);
	ck_assert_int_eq(tpu_close(dev), 0);
}

/* K <= N with several column tiles (37 x 3 x 23 at N = 4 and 8, 33 x 10 x 130 at N = 16): the
 * full-width column tiles written back in groups, the narrow last one alone. */
static const size_t shapes[][3] = {
	{ 1, 1, 1 }, { 1, 19, 33 }, { 7, 16, 15 }, { 5, 9, 3 }, { 33, 70, 17 }, { 40, 33, 48 },
	{ 37, 3, 23 }, { 33, 10, 130 },
};

START_TEST(gemm_bf16_golden)
{
	static const char *const uris[] = {
		"golden:bf16=1,n=16,mem=16M",
		"golden:bf16=1,n=4,mem=8M",
		/* chunks of 16 rows or fewer, a FIFO of 2, A longer than the UB at K = 70 (K-tiles
		 * reloaded before each MATMUL) */
		"golden:bf16=1,n=4,ub_rows=16,acc_rows=16,fifo_tiles=2,mem=8M",
		/* chunks of 13 rows and groups of two column tiles in two ACC regions (37 x 3 x 23) */
		"golden:bf16=1,n=4,ub_rows=16,acc_rows=64,mem=8M",
	};

	sweep(uris[_i], shapes, sizeof(shapes) / sizeof(shapes[0]), 0xBF00u + (uint64_t)_i);
}
END_TEST

/* M beyond one chunk of the default device (R = 2048 ACC rows): two chunks of 1050 rows, with
 * accumulate (two commands per row and column tile) and bias, both operands transposed. */
START_TEST(gemm_bf16_chunks)
{
	uint64_t seed = harness_seed() ^ 0xBF40u;
	struct bcase e;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open("golden:bf16=1,mem=16M", &dev), 0);
	make_case(&seed, &e, 2100, 40, 20, TPU_TRANS_T, TPU_TRANS_T, 3, true, true, false);
	ck_assert_uint_ge(check_case(dev, 16, &e, "chunks"), 2100 * 20 * 9 / 10);
	free_case(&e);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* NaN and infinity operands, in A, B, the old C and the bias: still bit for bit. */
static void specials(const char *uri)
{
	uint64_t seed = harness_seed() ^ 0xBF10u;
	tpu_dev *dev;
	struct tpu_info info;

	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, &info), 0);
	for (int t = 0; t < 8; t++) {
		struct bcase e;

		make_case(&seed, &e, 9, 13, 7, (enum tpu_trans)(t & 1), (enum tpu_trans)(t >> 1 & 1),
			  (size_t)(t % 3), t >= 4, t % 2 == 0, true);
		(void)check_case(dev, info.array_n, &e, uri);
		free_case(&e);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}

START_TEST(gemm_bf16_specials)
{
	specials("golden:bf16=1,n=4,mem=4M");
}
END_TEST

/* K split at a multiple of N: an overwrite call over the first K-tiles, then accumulating calls,
 * give the bits of one call (the accumulate rule is the ACC's order). */
START_TEST(gemm_bf16_k_split)
{
	enum { M = 6, K = 22, NN = 5, N = 4 };
	uint64_t seed = harness_seed() ^ 0xBF20u;
	uint16_t a[M * K], b[K * NN];
	uint16_t ones[K];
	uint32_t one[M * NN], split[M * NN];
	struct tpu_gemm_desc d = { .dtype = TPU_DTYPE_BF16, .m = M, .n = NN, .k = K, .a = a,
				   .b = b, .c = one };
	tpu_dev *dev;
	bool differs = false;

	for (size_t i = 0; i < M * K; i++)
		a[i] = rand_bf16(&seed, false);
	for (size_t i = 0; i < K * NN; i++)
		b[i] = rand_bf16(&seed, false);
	/* row 0 x column 0, order-sensitive: 1.0, then 2^-24 in each K-tile from the second on
	 * (each lost to a tie to even in the ACC: 1.0); column 0 of B all 1.0 */
	for (size_t kk = 0; kk < K; kk++) {
		a[kk] = kk == 0 ? 0x3F80u : kk % N == 0 ? 0x3380u : 0;
		b[kk * NN] = 0x3F80u;
		ones[kk] = 0x3F80u;
	}
	ck_assert_int_eq(tpu_open("golden:bf16=1,n=4,mem=4M", &dev), 0);
	ck_assert_int_eq(tpu_gemm_ex(dev, &d, NULL), 0);
	/* K = 8 + 12 + 2: overwrite, accumulate, accumulate */
	static const size_t cuts[] = { 0, 8, 20, K };
	for (int s = 0; s < 3; s++) {
		struct tpu_gemm_desc p = d;

		p.k = cuts[s + 1] - cuts[s];
		p.a = a + cuts[s];
		p.lda = K;
		p.b = b + cuts[s] * NN;
		p.c = split;
		p.flags = s ? TPU_GEMM_ACCUMULATE : 0;
		ck_assert_int_eq(tpu_gemm_ex(dev, &p, NULL), 0);
	}
	ck_assert_int_eq(memcmp(one, split, sizeof(one)), 0);
	ck_assert_uint_eq(one[0], 0x3F800000u);
	ck_assert_uint_eq(one[0], tpu_bf16_dot_tiled(a, ones, K, N, 0, false));
	/* adding C on the host after a fresh product of the rest would not be the same */
	differs = tpu_f32_add(tpu_bf16_dot_tiled(a, ones, 8, N, 0, false),
			      tpu_bf16_dot_tiled(a + 8, ones, K - 8, N, 0, false)) != one[0];
	ck_assert_msg(differs, "the order-sensitive column does not tell the orders apart");
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* int8 and bf16 GEMMs on one device, and weight tiles of either type left in the FIFO by raw
 * commands: each GEMM pops them with a MATMUL of their type. */
static void raw_tile(tpu_dev *dev, tpu_buf *buf, bool bf16)
{
	struct tpu_cmd cmd;

	ck_assert_int_eq(tpu_cmd_load_weights(&cmd, buf, 0, 0, 2, bf16 ? 4 : 2, 0), 0);
	if (bf16) {
		cmd.dw[TPU_SQE_COLS_DW] &= ~(TPU_SQE_COLS_MASK << TPU_SQE_COLS_SHIFT);
		cmd.dw[TPU_SQE_COLS_DW] |= 2u << TPU_SQE_COLS_SHIFT;
		tpu_cmd_set_flags(&cmd, TPU_SQE_FLAG_BF16);
	}
	ck_assert_int_eq(tpu_run(dev, &cmd, 1, NULL, 5000), 0);
}

static void mixed_int8(const char *uri)
{
	int8_t a8[6] = { 1, -2, 3, 4, 5, -6 }, b8[6] = { 7, 8, -9, 10, 11, 12 };
	int32_t c8[4];
	const int32_t want8[4] = { 1 * 7 - 2 * -9 + 3 * 11, 1 * 8 - 2 * 10 + 3 * 12,
				   4 * 7 + 5 * -9 - 6 * 11, 4 * 8 + 5 * 10 - 6 * 12 };
	uint64_t seed = harness_seed() ^ 0xBF30u;
	struct tpu_info info;
	tpu_buf *buf;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, &info), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 64, &buf), 0);
	for (int round = 0; round < 4; round++) {
		struct bcase e;

		/* leftovers: int8 then bf16, bf16 then int8, ... */
		raw_tile(dev, buf, round % 2);
		raw_tile(dev, buf, !(round % 2));
		if (round % 2) {
			memset(c8, 0x55, sizeof(c8));
			ck_assert_int_eq(tpu_gemm(dev, 2, 3, 2, a8, b8, NULL, c8), 0);
			ck_assert_int_eq(memcmp(c8, want8, sizeof(c8)), 0);
		}
		make_case(&seed, &e, 5, 9, 6, TPU_TRANS_N, (enum tpu_trans)(round / 2), 1, round == 2,
			  false, false);
		(void)check_case(dev, info.array_n, &e, uri);
		free_case(&e);
		memset(c8, 0x55, sizeof(c8));
		ck_assert_int_eq(tpu_gemm(dev, 2, 3, 2, a8, b8, NULL, c8), 0);
		ck_assert_int_eq(memcmp(c8, want8, sizeof(c8)), 0);
	}
	ck_assert_int_eq(tpu_buf_free(buf), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}

START_TEST(gemm_bf16_mixed_int8)
{
	mixed_int8("golden:bf16=1,n=4,fifo_tiles=4,mem=4M");
}
END_TEST

/* The Verilated bf16 device (sim:bf16=1, N = 8): the shape sweep, the special values and the
 * mixed int8 / bf16 calls, each element bit for bit against the reference above (the golden
 * device's results: tests/test_sim_diff.c checks the two in lockstep). */
START_TEST(gemm_bf16_sim)
{
	static const char *const uri = "sim:bf16=1,mem=16M";

	if (!tpu_sim_model_find(8, 1))
		return;
	if (_i == 0)
		sweep(uri, shapes, sizeof(shapes) / sizeof(shapes[0]), 0xBF50u);
	else if (_i == 1)
		specials(uri);
	else
		mixed_int8(uri);
}
END_TEST

/* The schedule's pieces (gemm_bf16.c): the write-back in pieces after the next column tile's
 * MATMULs (struct wb: chunks of at least 128 rows, two ACC regions), and A double-buffered in
 * the UB, the next chunk's READ_HOSTs of 64 rows among this chunk's MATMULs (struct apend).
 * On golden: two chunks of 167 and 166 rows with the write-back in pieces (the regions
 * alternate from chunk to chunk: the first chunk's last tile leaves from region 0 beside the
 * shorter chunk's first tile in region 1, which starts at row R = 167, not 166), and the same
 * with A double-buffered (ub_rows = 2048). On the Verilated N = 16 bf16 device
 * (sim:n=16,bf16=1), whose ACC_READs run beside those MATMULs (AccReadPort2) and which reads
 * the READ_HOSTs ahead: one chunk of 200 rows in pieces of 50, 40 x 33 x 48 (R = 40: each
 * write-back whole after the next tile's first MATMUL), and three chunks of 87 rows with A
 * double-buffered (260 x 512 x 20, one case: the slowest). Each shape as given, with
 * accumulate and bias, and transposed with padding (list[s][3] of those). */
static void pieces(const char *uri, const size_t (*list)[4], size_t count, uint64_t salt)
{
	uint64_t seed = harness_seed() ^ salt;
	struct tpu_info info;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	ck_assert_int_eq(tpu_get_info(dev, &info), 0);
	for (size_t s = 0; s < count; s++) {
		for (size_t t = 0; t < list[s][3]; t++) {
			struct bcase e;

			make_case(&seed, &e, list[s][0], list[s][1], list[s][2],
				  t == 2 ? TPU_TRANS_T : TPU_TRANS_N,
				  t == 2 ? TPU_TRANS_T : TPU_TRANS_N, t == 2 ? 3 : 0, t == 1, t == 1,
				  false);
			check_case(dev, info.array_n, &e, uri);
			free_case(&e);
		}
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}

START_TEST(gemm_bf16_pieces)
{
	static const size_t golden_shapes[][4] = { { 333, 20, 10, 3 } };
	static const size_t sim_shapes[][4] = { { 200, 64, 48, 3 }, { 40, 33, 48, 3 },
						{ 260, 512, 20, 1 } };

	if (_i == 0)
		pieces("golden:bf16=1,n=4,ub_rows=1024,acc_rows=512,mem=8M", golden_shapes, 1,
		       0xBF60u);
	else if (_i == 1)
		pieces("golden:bf16=1,n=4,ub_rows=2048,acc_rows=512,mem=8M", golden_shapes, 1,
		       0xBF68u);
	else if (tpu_sim_model_find(16, 1))
		pieces("sim:n=16,bf16=1,mem=16M", sim_shapes, 3, 0xBF70u);
}
END_TEST

/* ------------------------------------------------------------------ errors */

static void expect_fail(tpu_dev *dev, const struct tpu_gemm_desc *d,
			const struct tpu_gemm_params *p, int want, const char *field)
{
	uint32_t before[16];

	memcpy(before, d->c, sizeof(before));
	ck_assert_int_eq(tpu_gemm_ex(dev, d, p), want);
	ck_assert_msg(strstr(tpu_gemm_last_error(dev), field) != NULL,
		      "message '%s' does not name '%s'", tpu_gemm_last_error(dev), field);
	ck_assert_int_eq(memcmp(before, d->c, sizeof(before)), 0);
}

START_TEST(gemm_bf16_rejects)
{
	uint16_t a[64] = { 0x3F80 }, b[64] = { 0x4000 };
	uint32_t c[16] = { 7 };
	int32_t mult = 1 << 30, shift = 0;
	int8_t lut[256] = { 0 };
	struct tpu_gemm_desc ok = { .dtype = TPU_DTYPE_BF16, .m = 2, .n = 3, .k = 4, .a = a,
				    .b = b, .c = c },
			     d;
	struct tpu_gemm_params p;
	tpu_dev *dev;

	/* the int8-only default golden device */
	ck_assert_int_eq(tpu_open("golden:n=4,mem=1M", &dev), 0);
	expect_fail(dev, &ok, NULL, -ENOTSUP, "dtype");
	ck_assert_ptr_nonnull(strstr(tpu_gemm_last_error(dev), "int8 only"));
	ck_assert_int_eq(tpu_close(dev), 0);

	ck_assert_int_eq(tpu_open("golden:bf16=1,n=4,mem=1M", &dev), 0);
#define PARAM_FAIL(stmt, field)                                   \
	do {                                                      \
		tpu_gemm_params_init(&p);                         \
		stmt;                                             \
		expect_fail(dev, &ok, &p, -EINVAL, field);        \
	} while (0)
	PARAM_FAIL(p.in_zero_point = 1, "in_zero_point");
	PARAM_FAIL((p.quant_channels = 1, p.multiplier = &mult, p.shift = &shift), "quant_channels");
	PARAM_FAIL(p.multiplier = &mult, "multiplier");
	PARAM_FAIL(p.shift = &shift, "shift");
	PARAM_FAIL(p.out_zero_point = -3, "out_zero_point");
	PARAM_FAIL(p.clamp_min = 0, "clamp_min");
	PARAM_FAIL(p.clamp_max = 6, "clamp_max");
	PARAM_FAIL(p.lut = lut, "lut");
#undef PARAM_FAIL
	d = ok;
	d.ldb = 2;
	expect_fail(dev, &d, NULL, -EINVAL, "ldb");
	d = ok;
	d.trans_a = TPU_TRANS_T;
	d.lda = 1;
	expect_fail(dev, &d, NULL, -EINVAL, "lda");
	d = ok;
	d.ldc = 2;
	expect_fail(dev, &d, NULL, -EINVAL, "ldc");
	d = ok;
	d.flags = 4;
	expect_fail(dev, &d, NULL, -EINVAL, "flags");
	d = ok;
	d.n = 0;
	expect_fail(dev, &d, NULL, -EINVAL, "n");
	d = ok;
	d.b = NULL;
	expect_fail(dev, &d, NULL, -EINVAL, "b");
	/* fine again, the message cleared: 1.0 x 2.0 (the rest 0) */
	ck_assert_int_eq(tpu_gemm_ex(dev, &ok, NULL), 0);
	ck_assert_str_eq(tpu_gemm_last_error(dev), "");
	ck_assert_uint_eq(c[0], 0x40000000u);
	ck_assert_uint_eq(c[1], 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* A device error in an accumulating bf16 GEMM leaves C as it was. */
START_TEST(gemm_bf16_accumulate_keeps_c_on_failure)
{
	uint16_t a[16], b[16];
	uint32_t c[16], before[16];
	struct tpu_gemm_desc d = { .dtype = TPU_DTYPE_BF16, .m = 4, .n = 4, .k = 4, .a = a, .b = b,
				   .c = c, .flags = TPU_GEMM_ACCUMULATE };
	tpu_dev *dev;

	for (int i = 0; i < 16; i++) {
		a[i] = (uint16_t)(0x3F80 + i);
		b[i] = (uint16_t)(0xBF80 + 3 * i);
		c[i] = before[i] = 0x40000000u + (uint32_t)i;
	}
	ck_assert_int_eq(tpu_open("golden:bf16=1,n=4,mem=1M", &dev), 0);
	ck_assert_int_eq(tpu_window_set(dev, 0, 0, 0, 0), 0);
	ck_assert_int_eq(tpu_gemm_ex(dev, &d, NULL), TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_int_eq(memcmp(c, before, sizeof(c)), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

TPU_TEST_SUITE(suite_driver_gemm_bf16)
static Suite *suite_driver_gemm_bf16(void)
{
	Suite *s = suite_create("driver_gemm_bf16");
	TCase *tc = tcase_create("gemm_bf16");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, gemm_bf16_golden, 0, 4);
	tcase_add_test(tc, gemm_bf16_chunks);
	tcase_add_test(tc, gemm_bf16_specials);
	tcase_add_test(tc, gemm_bf16_k_split);
	tcase_add_test(tc, gemm_bf16_mixed_int8);
	tcase_add_loop_test(tc, gemm_bf16_sim, 0, 3);
	tcase_add_loop_test(tc, gemm_bf16_pieces, 0, 3);
	tcase_add_test(tc, gemm_bf16_rejects);
	tcase_add_test(tc, gemm_bf16_accumulate_keeps_c_on_failure);
	suite_add_tcase(s, tc);
	return s;
}
