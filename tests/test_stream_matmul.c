/* STREAM_MATMUL (docs/spec.md §6.11) on the golden model and on the Verilated device (checked
 * against its golden twin, golden_fixture.h): random shapes against a naive reference computed
 * here (blocks, K not a multiple of N, COLS < N, strides, the ACCUMULATE flag), every field
 * check and the order of the checks, and a read fault in the middle of the stream (the error
 * status, no active tile, the weight FIFO empty and usable, the next STREAM_MATMUL correct). */
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"
#include "tpu/numerics.h"
#include "tpu/tpu.h" /* TPU_STREAM_MATMUL_K_GROUP */
#include "tpu/tpu_spec.h"

#define MAXN 16
#define ROWS 64

static struct gfx F;
static uint64_t hbuf;
static uint8_t *hp; /* 64 KiB of host scratch */
static uint64_t rng;

/* Host offsets: A rows, weights (two blocks sets), the ACC write-back. */
#define A_OFF 0
#define W_OFF 4096
#define W2_OFF 20480
#define OUT_OFF 40960

static void config_n(struct golden_config *c, uint32_t n)
{
	gfx_config_small(c);
	c->array_n = n;
	c->ub_rows = ROWS;
	c->acc_rows = ROWS;
	c->fifo_tiles = 4;
}

static void setup_cfg(const struct golden_config *c)
{
	gfx_setup(&F, c);
	hp = gfx_alloc(&F, 65536, &hbuf);
	rng = harness_seed() ^ (0x73747265ull + c->array_n);
}

static void setup_n(uint32_t n)
{
	struct golden_config c;

	config_n(&c, n);
	setup_cfg(&c);
}

/* The small device (gfx_config_small: N = 8, 64 UB rows, 32 ACC rows, 2 FIFO tiles), whose
 * limits the check and fault cases run into. */
static void setup_small(struct golden_config *c)
{
	gfx_config_small(c);
	setup_cfg(c);
}

/* A device of N = n with rows UB and ACC rows (link latency lat ns on sim) and an arena of
 * arena bytes whose bytes from par_off hold random per-channel MULT (mult) and SHIFT (shift)
 * vectors, loaded together with o's OUTPUT parameters: what an ACTIVATE needs besides a bias.
 * NULL when the backend has no such device (the test is skipped). */
static uint8_t *setup_act_device(uint32_t n, uint32_t rows, uint32_t lat, size_t arena,
				 size_t par_off, const struct tpu_act_output *o, int32_t *mult,
				 int32_t *shift, uint64_t *hb)
{
	struct golden_config c;
	struct gfx_sqe q;
	uint8_t *h;

	config_n(&c, n);
	c.ub_rows = rows;
	c.acc_rows = rows;
	if (!gfx_backend_has(gfx_backend(), &c))
		return NULL;
	gfx_sim_latency(lat);
	setup_cfg(&c);
	h = gfx_alloc(&F, arena, hb);
	for (uint32_t j = 0; j < n; j++) {
		mult[j] = (int32_t)harness_range(&rng, 1 << 29, (1 << 30) - 1);
		shift[j] = (int32_t)harness_range(&rng, -9, -7);
		memcpy(h + par_off + 4 * j, &mult[j], 4);
		memcpy(h + par_off + 256 + 4 * j, &shift[j], 4);
	}
	q = gfx_load_vec(TPU_PARAM_MULT, *hb + par_off, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_vec(TPU_PARAM_SHIFT, *hb + par_off + 256, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_output(o->zero_point, o->qmin, o->qmax);
	gfx_ok(&F, &q);
	return h;
}

static void teardown(void)
{
	gfx_teardown(&F);
}

static int8_t rand8(void)
{
	return (int8_t)harness_range(&rng, -128, 127);
}

/* A STREAM_MATMUL SQE with LENGTH from the shape: blocks x k rows of cols bytes, stride apart. */
static struct gfx_sqe sm(uint64_t iova, uint32_t k, uint32_t cols, uint32_t stride,
			 uint32_t blocks, uint32_t la, uint32_t r, uint32_t la2, uint32_t op0)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_STREAM_MATMUL);
	uint64_t step = stride ? stride : cols;
	uint64_t per = k + (op0 & TPU_STREAM_MATMUL_ACTIVATE ? TPU_STREAM_MATMUL_BIAS_ROWS : 0);

	gfx_set_addr(&s, iova);
	GFX_SET(&s, LENGTH, ((uint64_t)blocks * per - 1) * step + cols);
	GFX_SET(&s, STRIDE, stride);
	GFX_SET(&s, ROWS, k);
	GFX_SET(&s, COLS, cols);
	GFX_SET(&s, LOCAL_ADDR, la);
	GFX_SET(&s, LOCAL_ADDR2, la2);
	GFX_SET(&s, OP0, op0);
	GFX_SET(&s, OP1, r);
	GFX_SET(&s, OP2, blocks);
	return s;
}

/* The same with OP0.A_STREAM (COLS = N): LENGTH also counts the T x R rows of A. */
static struct gfx_sqe sm_a(uint64_t iova, uint32_t n, uint32_t k, uint32_t stride, uint32_t blocks,
			   uint32_t la, uint32_t r, uint32_t la2, uint32_t op0)
{
	struct gfx_sqe s = sm(iova, k, n, stride, blocks, la, r, la2,
			      op0 | TPU_STREAM_MATMUL_A_STREAM);
	uint64_t step = stride ? stride : n;
	uint64_t per = k + (op0 & TPU_STREAM_MATMUL_ACTIVATE ? TPU_STREAM_MATMUL_BIAS_ROWS : 0);
	uint64_t rows = (uint64_t)blocks * per + (uint64_t)(k + n - 1) / n * r;

	GFX_SET(&s, LENGTH, (rows - 1) * step + n);
	return s;
}

struct shape {
	uint32_t k, cols, stride, blocks, la, r, la2;
};

/* acc[b x r + i][j] (+)= sum over the stream's tiles of block b of A (UB rows la + t x r + i,
 * host copy ub[][]) times the block's weight rows (zero beyond cols). */
static void reference(uint32_t n, const struct shape *s, const int8_t ub[ROWS][MAXN],
		      const uint8_t *w, bool acc0, uint32_t acc[ROWS][MAXN])
{
	uint32_t step = s->stride ? s->stride : s->cols;

	for (uint32_t b = 0; b < s->blocks; b++)
		for (uint32_t i = 0; i < s->r; i++)
			for (uint32_t j = 0; j < n; j++) {
				uint32_t sum = acc0 ? acc[s->la2 + b * s->r + i][j] : 0;

				for (uint32_t kk = 0; kk < s->k && j < s->cols; kk++) {
					uint32_t t = kk / n;
					int8_t a = ub[s->la + t * s->r + i][kk % n];
					int8_t x = (int8_t)w[((size_t)b * s->k + kk) * step + j];

					sum += (uint32_t)((int32_t)a * x);
				}
				acc[s->la2 + b * s->r + i][j] = sum;
			}
}

/* A random shape that fits ROWS UB and ACC rows and the host areas. */
static struct shape random_shape(uint32_t n)
{
	struct shape s;
	uint32_t tiles;

	s.k = (uint32_t)harness_range(&rng, 1, 4 * n + 3);
	s.cols = (uint32_t)harness_range(&rng, 1, n);
	s.stride = harness_range(&rng, 0, 2) ? 0 : s.cols + (uint32_t)harness_range(&rng, 0, 5);
	s.blocks = (uint32_t)harness_range(&rng, 1, 3);
	tiles = (s.k + n - 1) / n;
	s.r = (uint32_t)harness_range(&rng, 1, (int64_t)(ROWS / tiles < 6 ? ROWS / tiles : 6));
	if (s.r * s.blocks > ROWS)
		s.blocks = 1;
	s.la = (uint32_t)harness_range(&rng, 0, ROWS - tiles * s.r);
	s.la2 = (uint32_t)harness_range(&rng, 0, ROWS - s.blocks * s.r);
	return s;
}

/* Random shapes: a STREAM_MATMUL that overwrites, then one over other weights with a random
 * ACCUMULATE flag; the ACC rows, RESULT and PERF_MACS against the reference. */
START_TEST(stream_matmul_random)
{
	const uint32_t n = _i ? 16 : 8;
	static int8_t ub[ROWS][MAXN];
	static uint32_t acc[ROWS][MAXN];
	struct golden_config c;

	config_n(&c, n);
	if (!gfx_backend_has(gfx_backend(), &c))
		return;
	gfx_sim_latency(_i ? 50 : 0);
	setup_n(n);
	for (int rep = 0; rep < 4; rep++) {
		struct shape s = random_shape(n);
		uint32_t step = s.stride ? s.stride : s.cols;
		size_t wbytes = ((size_t)s.blocks * s.k - 1) * step + s.cols;
		bool acc0 = harness_range(&rng, 0, 1);
		uint64_t macs0, macs1;

		for (uint32_t i = 0; i < ROWS; i++)
			for (uint32_t j = 0; j < n; j++)
				hp[A_OFF + i * n + j] = (uint8_t)(ub[i][j] = rand8());
		{
			struct gfx_sqe rh = gfx_read_host(hbuf + A_OFF, ROWS, n, 0, 0);

			gfx_ok(&F, &rh);
		}
		for (size_t i = 0; i < wbytes; i++) {
			hp[W_OFF + i] = (uint8_t)rand8();
			hp[W2_OFF + i] = (uint8_t)rand8();
		}
		memset(acc, 0, sizeof(acc));
		reference(n, &s, (const int8_t(*)[MAXN])ub, hp + W_OFF, false, acc);
		reference(n, &s, (const int8_t(*)[MAXN])ub, hp + W2_OFF, acc0, acc);
		macs0 = gfx_perf(&F, TPU_REG_PERF_MACS_LO);
		{
			struct gfx_sqe a = sm(hbuf + W_OFF, s.k, s.cols, s.stride, s.blocks, s.la, s.r,
					      s.la2, 0);
			struct gfx_sqe b = sm(hbuf + W2_OFF, s.k, s.cols, s.stride, s.blocks, s.la, s.r,
					      s.la2, acc0 ? TPU_STREAM_MATMUL_ACCUMULATE : 0);
			struct gfx_sqe wb = gfx_write_host(hbuf + OUT_OFF, s.blocks * s.r, n, 0, s.la2,
							   true);

			ck_assert_uint_eq(gfx_ok(&F, &a), s.blocks * s.k * s.cols);
			ck_assert_uint_eq(gfx_ok(&F, &b), s.blocks * s.k * s.cols);
			gfx_ok(&F, &wb);
		}
		macs1 = gfx_perf(&F, TPU_REG_PERF_MACS_LO);
		ck_assert_uint_eq(macs1 - macs0, 2ull * s.blocks * s.r * s.k * s.cols);
		for (uint32_t i = 0; i < s.blocks * s.r; i++)
			for (uint32_t j = 0; j < n; j++) {
				uint32_t got;

				memcpy(&got, hp + OUT_OFF + ((size_t)i * n + j) * 4, 4);
				ck_assert_msg(got == acc[s.la2 + i][j],
					      "rep %d k=%u cols=%u stride=%u blocks=%u r=%u acc0=%d: "
					      "acc row %u col %u = %u, expected %u",
					      rep, s.k, s.cols, s.stride, s.blocks, s.r, acc0, i, j, got,
					      acc[s.la2 + i][j]);
			}
		/* no tile is active afterwards */
		{
			struct gfx_sqe m = gfx_matmul(0, 0, 1, 0);

			ck_assert_uint_eq(gfx_exec(&F, &m, NULL), TPU_SC_SEQUENCE_ERROR);
		}
	}
	teardown();
}
END_TEST

/* OP0.ACTIVATE: each block's bias vector follows its K weight rows in the stream; the block's
 * ACC rows (checked too) go through the activation (random MULT/SHIFT/OUTPUT, with or without
 * the LUT) into UB rows OP3 + b x R; against the reference with tpu_activate. */
START_TEST(stream_matmul_activate)
{
	const uint32_t n = _i ? 16 : 8;
	static int8_t ub[ROWS][MAXN], lut[256];
	static uint32_t acc[ROWS][MAXN];
	int32_t mult[MAXN], shift[MAXN];
	struct golden_config c;
	struct gfx_sqe q;

	config_n(&c, n);
	if (!gfx_backend_has(gfx_backend(), &c))
		return;
	gfx_sim_latency(_i ? 50 : 0);
	setup_n(n);
	for (uint32_t j = 0; j < n; j++) {
		mult[j] = (int32_t)harness_range(&rng, 1 << 29, (1 << 30) - 1);
		shift[j] = (int32_t)harness_range(&rng, -12, -4);
		memcpy(hp + 60000 + 4 * j, &mult[j], 4);
		memcpy(hp + 60200 + 4 * j, &shift[j], 4);
	}
	for (uint32_t i = 0; i < 256; i++)
		hp[60400 + i] = (uint8_t)(lut[i] = rand8());
	q = gfx_load_vec(TPU_PARAM_MULT, hbuf + 60000, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_vec(TPU_PARAM_SHIFT, hbuf + 60200, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_lut(hbuf + 60400);
	gfx_ok(&F, &q);
	for (int rep = 0; rep < 4; rep++) {
		struct shape s = random_shape(n);
		uint32_t step, per = s.k + TPU_STREAM_MATMUL_BIAS_ROWS, out_row;
		bool acc0 = harness_range(&rng, 0, 1), use_lut = harness_range(&rng, 0, 1);
		int32_t zp = (int32_t)harness_range(&rng, -20, 20);
		struct tpu_act_output o = { zp, (int32_t)harness_range(&rng, -128, -60),
					    (int32_t)harness_range(&rng, 60, 127), use_lut ? lut : NULL,
					    TPU_ROUND_DOUBLE };

		s.cols = n;
		if (s.stride)
			s.stride = n + (uint32_t)harness_range(&rng, 0, 3);
		step = s.stride ? s.stride : n;
		/* output rows apart from A's (a later block would read them), else one block */
		{
			uint32_t a_end = s.la + (s.k + n - 1) / n * s.r, ob = s.blocks * s.r;

			if (s.la >= ob)
				out_row = (uint32_t)harness_range(&rng, 0, s.la - ob);
			else if (a_end + ob <= ROWS)
				out_row = (uint32_t)harness_range(&rng, a_end, ROWS - ob);
			else {
				s.blocks = 1;
				out_row = (uint32_t)harness_range(&rng, 0, ROWS - s.r);
			}
		}
		for (uint32_t i = 0; i < ROWS; i++)
			for (uint32_t j = 0; j < n; j++)
				hp[A_OFF + i * n + j] = (uint8_t)(ub[i][j] = rand8());
		q = gfx_read_host(hbuf + A_OFF, ROWS, n, 0, 0);
		gfx_ok(&F, &q);
		q = gfx_load_output(o.zero_point, o.qmin, o.qmax);
		gfx_ok(&F, &q);
		/* blocks x (k weight rows, 4 bias rows), stride apart */
		for (size_t i = 0; i < ((size_t)s.blocks * per - 1) * step + n; i++)
			hp[W_OFF + i] = (uint8_t)rand8();
		/* the ACC rows before (for acc0): a plain STREAM_MATMUL over the same rows */
		memset(acc, 0, sizeof(acc));
		if (acc0) {
			struct shape s0 = s;

			s0.k = per; /* its blocks: the same rows, bias rows as weights */
			s0.stride = step;
			q = sm(hbuf + W_OFF, per, n, step, s.blocks, s.la, s.r, s.la2, 0);
			if ((per + n - 1) / n * s.r + s.la > ROWS) {
				acc0 = false;
			} else {
				gfx_ok(&F, &q);
				reference(n, &s0, (const int8_t(*)[MAXN])ub, hp + W_OFF, false, acc);
			}
		}
		{
			/* the weights of the fused command: block b's rows at b x per */
			for (uint32_t b = 0; b < s.blocks; b++)
				for (uint32_t i = 0; i < s.r; i++)
					for (uint32_t j = 0; j < n; j++) {
						uint32_t sum = acc0 ? acc[s.la2 + b * s.r + i][j] : 0;

						for (uint32_t kk = 0; kk < s.k; kk++) {
							int8_t a = ub[s.la + kk / n * s.r + i][kk % n];
							int8_t x = (int8_t)hp[W_OFF + ((size_t)b * per + kk) * step + j];

							sum += (uint32_t)((int32_t)a * x);
						}
						acc[s.la2 + b * s.r + i][j] = sum;
					}
		}
		q = sm(hbuf + W_OFF, s.k, n, s.stride, s.blocks, s.la, s.r, s.la2,
		       TPU_STREAM_MATMUL_ACTIVATE | (use_lut ? TPU_STREAM_MATMUL_LUT : 0) |
			       (acc0 ? TPU_STREAM_MATMUL_ACCUMULATE : 0));
		GFX_SET(&q, OP3, out_row);
		ck_assert_uint_eq(gfx_ok(&F, &q), s.blocks * per * n);
		q = gfx_write_host(hbuf + OUT_OFF, s.blocks * s.r, n, 0, s.la2, true);
		gfx_ok(&F, &q);
		q = gfx_write_host(hbuf + OUT_OFF + 8192, s.blocks * s.r, n, 0, out_row, false);
		gfx_ok(&F, &q);
		for (uint32_t b = 0; b < s.blocks; b++)
			for (uint32_t i = 0; i < s.r; i++)
				for (uint32_t j = 0; j < n; j++) {
					uint32_t row = b * s.r + i, got;
					int32_t bias;
					struct tpu_act_channel ch;
					bool sat;
					int8_t want;

					memcpy(&got, hp + OUT_OFF + ((size_t)row * n + j) * 4, 4);
					ck_assert_msg(got == acc[s.la2 + row][j],
						      "rep %d k=%u blocks=%u r=%u acc0=%d: acc %u/%u",
						      rep, s.k, s.blocks, s.r, acc0, row, j);
					memcpy(&bias, hp + W_OFF + ((size_t)b * per + s.k + 4 * j / n) * step +
							      4 * j % n, 4);
					ch = (struct tpu_act_channel){ bias, mult[j], shift[j] };
					want = tpu_activate((int32_t)acc[s.la2 + row][j], &ch, &o, &sat);
					ck_assert_msg((int8_t)hp[OUT_OFF + 8192 + row * n + j] == want,
						      "rep %d k=%u blocks=%u r=%u stride=%u lut=%d: out %u/%u "
						      "= %d, expected %d", rep, s.k, s.blocks, s.r, s.stride,
						      use_lut, row, j, (int8_t)hp[OUT_OFF + 8192 + row * n + j],
						      want);
				}
	}
	teardown();
}
END_TEST

/* OP0.ACTIVATE with the output rows meeting A's rows (spec 6.11: block b's ACTIVATE comes before
 * block b + 1, which reads what it wrote): OP3 = LOCAL_ADDR + _i/2 x R, so block b overwrites
 * A's K-tile (b + 1) x OP3 / R, which the next block's first or second MATMUL reads (the last case
 * apart). The device runs a block's ACTIVATE beside the next block's MATMULs only where their UB
 * rows lie apart. Against a reference that runs the blocks in order on a copy of the UB. */
START_TEST(stream_matmul_activate_overlap)
{
	static const uint32_t cases[][3] = { /* R, blocks, OP3 */
		{ 3, 3, 0 }, { 3, 3, 3 }, { 3, 3, 6 }, { 20, 2, 0 }, { 20, 2, 20 }, { 3, 3, 40 },
	};
	const uint32_t n = 16, k = 2 * n + 3;
	const uint32_t r = cases[_i][0], blocks = cases[_i][1], out_row = cases[_i][2];
	const uint32_t per = k + TPU_STREAM_MATMUL_BIAS_ROWS;
	static int8_t ub[ROWS][MAXN];
	int32_t mult[MAXN], shift[MAXN];
	struct tpu_act_output o = { 3, -100, 110, NULL, TPU_ROUND_DOUBLE };
	struct golden_config c;
	struct gfx_sqe q;

	config_n(&c, n);
	if (!gfx_backend_has(gfx_backend(), &c))
		return;
	gfx_sim_latency(0);
	setup_n(n);
	for (uint32_t j = 0; j < n; j++) {
		mult[j] = (int32_t)harness_range(&rng, 1 << 29, (1 << 30) - 1);
		shift[j] = (int32_t)harness_range(&rng, -9, -7);
		memcpy(hp + 60000 + 4 * j, &mult[j], 4);
		memcpy(hp + 60200 + 4 * j, &shift[j], 4);
	}
	q = gfx_load_vec(TPU_PARAM_MULT, hbuf + 60000, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_vec(TPU_PARAM_SHIFT, hbuf + 60200, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_output(o.zero_point, o.qmin, o.qmax);
	gfx_ok(&F, &q);
	for (uint32_t i = 0; i < ROWS; i++)
		for (uint32_t j = 0; j < n; j++)
			hp[A_OFF + i * n + j] = (uint8_t)(ub[i][j] = rand8());
	q = gfx_read_host(hbuf + A_OFF, ROWS, n, 0, 0);
	gfx_ok(&F, &q);
	for (size_t i = 0; i < (size_t)blocks * per * n; i++)
		hp[W_OFF + i] = (uint8_t)rand8();
	/* small biases (random int32 ones would saturate every output, whatever A holds) */
	for (uint32_t b = 0; b < blocks; b++)
		for (uint32_t j = 0; j < n; j++) {
			int32_t bias = (int32_t)harness_range(&rng, -3000, 3000);

			memcpy(hp + W_OFF + ((size_t)b * per + k) * n + 4 * j, &bias, 4);
		}
	q = sm(hbuf + W_OFF, k, n, 0, blocks, 0, r, 0, TPU_STREAM_MATMUL_ACTIVATE);
	GFX_SET(&q, OP3, out_row);
	ck_assert_uint_eq(gfx_ok(&F, &q), blocks * per * n);
	q = gfx_write_host(hbuf + OUT_OFF, ROWS, n, 0, 0, false);
	gfx_ok(&F, &q);
	/* the reference: block by block, each ACTIVATE into the UB copy before the next block */
	for (uint32_t b = 0; b < blocks; b++) {
		static int8_t out[ROWS][MAXN];

		for (uint32_t i = 0; i < r; i++)
			for (uint32_t j = 0; j < n; j++) {
				uint32_t sum = 0;
				int32_t bias;
				struct tpu_act_channel ch;
				bool sat;

				for (uint32_t kk = 0; kk < k; kk++)
					sum += (uint32_t)((int32_t)ub[kk / n * r + i][kk % n] *
							  (int8_t)hp[W_OFF + ((size_t)b * per + kk) * n + j]);
				memcpy(&bias, hp + W_OFF + ((size_t)b * per + k + 4 * j / n) * n + 4 * j % n,
				       4);
				ch = (struct tpu_act_channel){ bias, mult[j], shift[j] };
				out[i][j] = tpu_activate((int32_t)sum, &ch, &o, &sat);
			}
		for (uint32_t i = 0; i < r; i++)
			memcpy(ub[out_row + b * r + i], out[i], n);
	}
	for (uint32_t i = 0; i < ROWS; i++)
		for (uint32_t j = 0; j < n; j++)
			ck_assert_msg((int8_t)hp[OUT_OFF + i * n + j] == ub[i][j],
				      "case %d (r=%u, out_row=%u): UB %u/%u = %d, expected %d", _i, r,
				      out_row, i, j, (int8_t)hp[OUT_OFF + i * n + j], ub[i][j]);
	teardown();
}
END_TEST

/* Each field check with its status, and the order of the steps, on the small device (64 UB,
 * 32 ACC rows): a valid command (K = 2N + 3, two blocks of R = 3) mutated one way per case;
 * the FIFO holds a tile where a case says so. */
struct check_case {
	const char *what;
	int field; /* SQE dword to set, or -1 */
	uint32_t val;
	int field2;
	uint32_t val2;
	bool fifo_tile; /* a LOAD_WEIGHTS first (and a MATMUL POP after, to empty it again) */
	uint32_t want;
};

#define DW(F) TPU_SQE_##F##_DW

START_TEST(stream_matmul_checks)
{
	const uint32_t n = 8, k = 2 * n + 3, r = 3, blocks = 2, ub_rows = 64, acc_rows = 32;
	const struct check_case cases[] = {
		{ "ok", -1, 0, -1, 0, false, TPU_SC_SUCCESS },
		{ "flags bit 2", DW(FLAGS), 0x4, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "HOST_ADDR2_LO without WRITE_BACK", DW(HOST_ADDR2_LO), 1, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "HOST_ADDR2_HI without WRITE_BACK", DW(HOST_ADDR2_HI), 1, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "WRITE_BACK without ACTIVATE", DW(OP0), TPU_STREAM_MATMUL_WRITE_BACK, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "OP0 bit 6", DW(OP0), 0x40, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "W_FIRST without A_STREAM", DW(OP0), TPU_STREAM_MATMUL_W_FIRST, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "OP0 bit 16", DW(OP0), 0x10000, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "K_GROUP without K_MAJOR", DW(OP0), 1u << TPU_STREAM_MATMUL_K_GROUP_SHIFT, -1, 0,
		  false, TPU_SC_INVALID_FIELD },
		{ "K_MAJOR", DW(OP0), TPU_STREAM_MATMUL_K_MAJOR, -1, 0, false, TPU_SC_SUCCESS },
		{ "PARAMS without ACTIVATE", DW(OP0), TPU_STREAM_MATMUL_PARAMS, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "K_GROUP = C", DW(OP0), TPU_STREAM_MATMUL_K_GROUP(blocks), -1, 0, false,
		  TPU_SC_SUCCESS },
		{ "K_GROUP = C + 1", DW(OP0), TPU_STREAM_MATMUL_K_GROUP(blocks + 1), -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "K_GROUP = C + 1 + UB range", DW(OP0), TPU_STREAM_MATMUL_K_GROUP(blocks + 1),
		  DW(LOCAL_ADDR), 0xFFFFFFFFu, false, TPU_SC_INVALID_FIELD },
		{ "OP3 without ACTIVATE", DW(OP3), 1, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "ROWS 0", DW(ROWS), 0, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "ROWS > max", DW(ROWS), TPU_STREAM_MATMUL_MAX_K + 1, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "COLS 0", DW(COLS), 0, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "COLS N+1", DW(COLS), n + 1, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "R 0", DW(OP1), 0, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "R > max", DW(OP1), TPU_STREAM_MATMUL_MAX_R + 1, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "C 0", DW(OP2), 0, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "C > max", DW(OP2), TPU_STREAM_MATMUL_MAX_BLOCKS + 1, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "stride < cols", DW(STRIDE), n - 1, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "LENGTH + 1", DW(LENGTH), 2 * k * n + 1, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "LENGTH of one block", DW(LENGTH), k * n, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "UB: T x R past the end", DW(LOCAL_ADDR), ub_rows - 3 * r + 1, -1, 0, false,
		  TPU_SC_LOCAL_RANGE },
		{ "UB: huge LOCAL_ADDR", DW(LOCAL_ADDR), 0xFFFFFFFFu, -1, 0, false,
		  TPU_SC_LOCAL_RANGE },
		{ "ACC: C x R past the end", DW(LOCAL_ADDR2), acc_rows - blocks * r + 1, -1, 0, false,
		  TPU_SC_LOCAL_RANGE },
		{ "UB and ACC fit exactly", DW(LOCAL_ADDR), ub_rows - 3 * r, DW(LOCAL_ADDR2),
		  acc_rows - blocks * r, false, TPU_SC_SUCCESS },
		{ "FIFO not empty", -1, 0, -1, 0, true, TPU_SC_SEQUENCE_ERROR },
		{ "window", DW(HOST_ADDR_LO), 0x1000, DW(HOST_ADDR_HI), 0, false,
		  TPU_SC_DMA_ACCESS_VIOLATION },
		/* order: step 3 before 4, 4 before 5, 5 before 6 */
		{ "COLS + UB range", DW(COLS), 0, DW(LOCAL_ADDR), 0xFFFFFFFFu, false,
		  TPU_SC_INVALID_FIELD },
		{ "UB range + FIFO", DW(LOCAL_ADDR), 0xFFFFFFFFu, -1, 0, true, TPU_SC_LOCAL_RANGE },
		{ "FIFO + window", DW(HOST_ADDR_LO), 0x1000, DW(HOST_ADDR_HI), 0, true,
		  TPU_SC_SEQUENCE_ERROR },
	};
	struct gfx_sqe base, s, lw = gfx_load_weights(0, n, n, 0, false);
	struct gfx_sqe pop = gfx_matmul(0, 0, 1, TPU_MATMUL_POP);
	struct gfx_cqe c;
	struct golden_config cfg;

	setup_small(&cfg);
	ck_assert_uint_eq(cfg.ub_rows, ub_rows);
	ck_assert_uint_eq(cfg.acc_rows, acc_rows);
	for (uint32_t i = 0; i < 4096; i++)
		hp[W_OFF + i] = (uint8_t)rand8();
	gfx_set_addr(&lw, hbuf + W_OFF);
	GFX_SET(&lw, LENGTH, n * n);
	/* OP0.ACTIVATE: first without MULT/SHIFT/OUTPUT loaded, then with them (no LUT) */
	const struct check_case act_cases[] = {
		{ "ACT: params not loaded", -1, 0, -1, 0, false, TPU_SC_SEQUENCE_ERROR },
		{ "ACT ok", -1, 0, -1, 0, false, TPU_SC_SUCCESS },
		{ "ACT|LUT: LUT not loaded", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_LUT, -1, 0, false,
		  TPU_SC_SEQUENCE_ERROR },
		{ "LUT without ACT", DW(OP0), TPU_STREAM_MATMUL_LUT, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "ACT: COLS < N", DW(COLS), n - 1, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "ACT: UB out past the end", DW(OP3), ub_rows - blocks * r + 1, -1, 0, false,
		  TPU_SC_LOCAL_RANGE },
		{ "ACT: UB out fits", DW(OP3), ub_rows - blocks * r, -1, 0, false, TPU_SC_SUCCESS },
		{ "ACT: out range + FIFO", DW(OP3), 0xFFFFFFFFu, -1, 0, true, TPU_SC_LOCAL_RANGE },
		{ "ACT: LUT + FIFO", DW(OP0), TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_LUT, -1, 0,
		  true, TPU_SC_SEQUENCE_ERROR },
		/* K_MAJOR: the output rows OP3 .. + C x R must not meet A's LOCAL_ADDR .. + T x R
		 * (0 .. 8 here); without K_MAJOR they may ("ACT ok": OP3 = LOCAL_ADDR = 0) */
		{ "ACT|PARAMS: LENGTH without the 8 rows", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_PARAMS, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "ACT|K_MAJOR: out meets A", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_K_MAJOR, -1, 0, false,
		  TPU_SC_LOCAL_RANGE },
		{ "ACT|K_MAJOR: out meets A's last row", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_K_MAJOR, DW(OP3), 3 * r - 1, false,
		  TPU_SC_LOCAL_RANGE },
		{ "ACT|K_MAJOR: out right after A", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_K_MAJOR, DW(OP3), 3 * r, false,
		  TPU_SC_SUCCESS },
		{ "ACT|K_GROUP 1: out meets A", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_K_GROUP(1), DW(OP3), 1, false,
		  TPU_SC_LOCAL_RANGE },
		{ "ACT|K_MAJOR: out meets A + FIFO", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_K_MAJOR, -1, 0, true,
		  TPU_SC_LOCAL_RANGE },
		{ "ACT|K_MAJOR: out range past the end (meets nothing)", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_K_MAJOR, DW(OP3),
		  ub_rows - blocks * r + 1, false, TPU_SC_LOCAL_RANGE },
		/* WRITE_BACK: HOST_ADDR2 (OUT_OFF) needs W over C x R x N bytes */
		{ "WB ok", DW(OP0), TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_WRITE_BACK,
		  DW(HOST_ADDR2_LO), (uint32_t)(hbuf + OUT_OFF), false, TPU_SC_SUCCESS },
		{ "WB: HOST_ADDR2 outside the windows", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_WRITE_BACK, DW(HOST_ADDR2_LO), 0x1000,
		  false, TPU_SC_DMA_ACCESS_VIOLATION },
		{ "WB: HOST_ADDR2 0", DW(OP0), TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_WRITE_BACK,
		  -1, 0, false, TPU_SC_DMA_ACCESS_VIOLATION },
		{ "WB: FIFO + write window", DW(OP0),
		  TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_WRITE_BACK, DW(HOST_ADDR2_LO), 0x1000,
		  true, TPU_SC_SEQUENCE_ERROR },
	};
	/* OP0.A_STREAM (T = 3 K-tiles of R = 3 rows of A in block 0), with MULT/SHIFT/OUTPUT
	 * loaded; LENGTH counts A's rows */
	const uint32_t a_len = (blocks * k + 3 * r) * n;
	const struct check_case a_cases[] = {
		{ "A ok", -1, 0, -1, 0, false, TPU_SC_SUCCESS },
		{ "A: COLS < N", DW(COLS), n - 1, DW(LENGTH), (blocks * k + 3 * r) * (n - 1), false,
		  TPU_SC_INVALID_FIELD },
		{ "A: LENGTH without A", DW(LENGTH), blocks * k * n, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "A: LENGTH - 1", DW(LENGTH), a_len - 1, -1, 0, false, TPU_SC_INVALID_FIELD },
		{ "A: OP0 bit 6", DW(OP0), TPU_STREAM_MATMUL_A_STREAM | 0x40, -1, 0, false,
		  TPU_SC_INVALID_FIELD },
		{ "A: K_MAJOR", DW(OP0), TPU_STREAM_MATMUL_A_STREAM | TPU_STREAM_MATMUL_K_MAJOR, -1, 0,
		  false, TPU_SC_SUCCESS },
		{ "A: W_FIRST", DW(OP0), TPU_STREAM_MATMUL_A_STREAM | TPU_STREAM_MATMUL_W_FIRST, -1, 0,
		  false, TPU_SC_SUCCESS },
		{ "A: UB T x R past the end", DW(LOCAL_ADDR), ub_rows - 3 * r + 1, -1, 0, false,
		  TPU_SC_LOCAL_RANGE },
		{ "A: UB fits", DW(LOCAL_ADDR), ub_rows - 3 * r, -1, 0, false, TPU_SC_SUCCESS },
		{ "A: COLS < N + FIFO", DW(COLS), n - 1, -1, 0, true, TPU_SC_INVALID_FIELD },
		{ "A: FIFO + window", DW(HOST_ADDR_LO), 0x1000, DW(HOST_ADDR_HI), 0, true,
		  TPU_SC_SEQUENCE_ERROR },
		{ "A: window", DW(HOST_ADDR_LO), 0x1000, DW(HOST_ADDR_HI), 0, false,
		  TPU_SC_DMA_ACCESS_VIOLATION },
	};
	unsigned ncase = sizeof(cases) / sizeof(cases[0]);
	unsigned nact = ncase + sizeof(act_cases) / sizeof(act_cases[0]);
	uint32_t want_result = blocks * k * n;

	base = sm(hbuf + W_OFF, k, n, 0, blocks, 0, r, 0, 0);
	for (unsigned i = 0; i < nact + sizeof(a_cases) / sizeof(a_cases[0]); i++) {
		const struct check_case *t = i < ncase ? &cases[i] : i < nact ? &act_cases[i - ncase]
									  : &a_cases[i - nact];
		uint32_t sc;

		if (i == ncase) { /* the ACTIVATE variant's stream: K + 4 rows per block */
			base = sm(hbuf + W_OFF, k, n, 0, blocks, 0, r, 0, TPU_STREAM_MATMUL_ACTIVATE);
			want_result = blocks * (k + 4) * n;
		}
		if (i == nact) {
			base = sm_a(hbuf + W_OFF, n, k, 0, blocks, 0, r, 0, 0);
			want_result = a_len;
		}
		if (i == ncase + 1) {
			struct gfx_sqe q = gfx_load_vec(TPU_PARAM_MULT, hbuf, n, 0);

			memset(hp, 0, 64);
			gfx_ok(&F, &q);
			q = gfx_load_vec(TPU_PARAM_SHIFT, hbuf, n, 0);
			gfx_ok(&F, &q);
			q = gfx_load_output(0, -128, 127);
			gfx_ok(&F, &q);
		}
		s = base;
		if (t->field >= 0)
			s.dw[t->field] = t->val;
		if (t->field2 >= 0)
			s.dw[t->field2] = t->val2;
		if (t->fifo_tile)
			gfx_ok(&F, &lw);
		sc = gfx_exec(&F, &s, &c);
		ck_assert_msg(sc == t->want, "%s: status 0x%x, expected 0x%x", t->what, sc, t->want);
		if (sc == TPU_SC_SUCCESS)
			ck_assert_uint_eq(c.result, want_result);
		if (t->fifo_tile)
			gfx_ok(&F, &pop); /* the tile was still there: the command took nothing */
		ck_assert_uint_eq(gfx_exec(&F, &pop, NULL), TPU_SC_SEQUENCE_ERROR);
	}
	teardown();
}
END_TEST

/* The fault cases' common part: s fails with DMA_XFER_ERROR (RESULT 0, PERF_MACS unchanged)
 * when the host byte at bad cannot be read; then no tile is active (a MATMUL without POP is a
 * SEQUENCE_ERROR) and the weight FIFO is empty (exactly tiles LOAD_WEIGHTS of N x N fit, and s
 * is a SEQUENCE_ERROR until they are popped); then s succeeds with RESULT result. */
static void fail_then_recover(const struct gfx_sqe *s, uint64_t bad, uint32_t n, uint32_t tiles,
			      uint32_t result)
{
	struct gfx_sqe lw, m;
	struct gfx_cqe c;
	uint64_t macs = gfx_perf(&F, TPU_REG_PERF_MACS_LO);

	gfx_fail_range(&F, bad, 1, HOSTMEM_READ, false);
	ck_assert_uint_eq(gfx_exec(&F, s, &c), TPU_SC_DMA_XFER_ERROR);
	ck_assert_uint_eq(c.result, 0);
	gfx_fail_off(&F);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO), macs);
	m = gfx_matmul(0, 0, 1, 0);
	ck_assert_uint_eq(gfx_exec(&F, &m, NULL), TPU_SC_SEQUENCE_ERROR);
	lw = gfx_load_weights(hbuf + W_OFF, n, n, 0, false);
	for (uint32_t i = 0; i < tiles; i++)
		gfx_ok(&F, &lw);
	ck_assert_uint_eq(gfx_exec(&F, &lw, NULL), TPU_SC_SEQUENCE_ERROR);
	ck_assert_uint_eq(gfx_exec(&F, s, NULL), TPU_SC_SEQUENCE_ERROR);
	m = gfx_matmul(0, 20, 1, TPU_MATMUL_POP);
	for (uint32_t i = 0; i < tiles; i++)
		gfx_ok(&F, &m);
	ck_assert_uint_eq(gfx_ok(&F, s), result);
}

/* A read fault in the stream: _i = 0 in the first tile, 1 in the middle of block 1, 2 in the
 * last row. The command fails with DMA_XFER_ERROR (RESULT 0, PERF_MACS unchanged); no tile is
 * active; the FIFO is empty (exactly FIFO_TILES LOAD_WEIGHTS fit, the STREAM_MATMUL after them
 * is a SEQUENCE_ERROR until they are popped); then the same STREAM_MATMUL succeeds with the
 * right result. */
START_TEST(stream_matmul_fault)
{
	const uint32_t n = 8, k = 3 * n, r = 2, blocks = 3;
	const uint64_t bad[] = { 2 * n, (1ull * k + n + 3) * n, (blocks * k - 1ull) * n };
	static int8_t ub[ROWS][MAXN];
	static uint32_t acc[ROWS][MAXN];
	struct shape sh = { k, n, 0, blocks, 4, r, 8 };
	struct gfx_sqe s, rh, wb;
	struct golden_config cfg;

	gfx_sim_latency(50);
	setup_small(&cfg);
	for (uint32_t i = 0; i < ROWS; i++)
		for (uint32_t j = 0; j < n; j++)
			hp[A_OFF + i * n + j] = (uint8_t)(ub[i][j] = rand8());
	rh = gfx_read_host(hbuf + A_OFF, ROWS, n, 0, 0);
	gfx_ok(&F, &rh);
	for (uint32_t i = 0; i < blocks * k * n; i++)
		hp[W_OFF + i] = (uint8_t)rand8();
	s = sm(hbuf + W_OFF, k, n, 0, blocks, 4, r, 8, 0);
	fail_then_recover(&s, hbuf + W_OFF + bad[_i], n, cfg.fifo_tiles, blocks * k * n);
	memset(acc, 0, sizeof(acc));
	reference(n, &sh, (const int8_t(*)[MAXN])ub, hp + W_OFF, false, acc);
	wb = gfx_write_host(hbuf + OUT_OFF, blocks * r, n, 0, 8, true);
	gfx_ok(&F, &wb);
	for (uint32_t i = 0; i < blocks * r; i++)
		for (uint32_t j = 0; j < n; j++) {
			uint32_t got;

			memcpy(&got, hp + OUT_OFF + ((size_t)i * n + j) * 4, 4);
			ck_assert_uint_eq(got, acc[8 + i][j]);
		}
	teardown();
}
END_TEST

/* Run q (RESULT = result bytes), check that PERF_MACS grew by macs, then read ACC rows la2 ..
 * la2 + rows - 1 back through host memory at hb + 256 KiB (h: its CPU view, 256 KiB lower)
 * and compare them with acc; ctx names the case in a failure. */
static void run_check_acc(struct gfx_sqe *q, uint32_t result, uint64_t macs, uint64_t hb,
			  const uint8_t *h, uint32_t la2, uint32_t rows, uint32_t n,
			  uint32_t (*acc)[MAXN], const char *ctx)
{
	uint64_t before = gfx_perf(&F, TPU_REG_PERF_MACS_LO);
	struct gfx_sqe rd;

	ck_assert_uint_eq(gfx_ok(&F, q), result);
	ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO) - before, macs);
	rd = gfx_write_host(hb + 256 * 1024, rows, n, 0, la2, true);
	gfx_ok(&F, &rd);
	for (uint32_t i = 0; i < rows; i++)
		for (uint32_t j = 0; j < n; j++) {
			uint32_t got;

			memcpy(&got, h + 256 * 1024 + ((size_t)i * n + j) * 4, 4);
			ck_assert_msg(got == acc[i][j], "%s: acc row %u col %u = %u, expected %u",
				      ctx, i, j, got, acc[i][j]);
		}
}

/* A's UB rows (tiles K-tiles of r rows of n bytes from UB row la) against the stream, K-tile t
 * at host row arow(t) (step bytes per row), read back through host memory at hb + off. */
static void check_a_rows(uint64_t hb, const uint8_t *h, size_t off, uint32_t la, uint32_t tiles,
			 uint32_t r, uint32_t n, const uint32_t *arow, size_t step, const char *ctx)
{
	struct gfx_sqe rd = gfx_write_host(hb + off, tiles * r, n, 0, la, false);

	gfx_ok(&F, &rd);
	for (uint32_t t = 0; t < tiles; t++)
		for (uint32_t i = 0; i < r; i++)
			ck_assert_msg(!memcmp(h + off + ((size_t)t * r + i) * n,
					      h + ((size_t)arow[t] + i) * step, n),
				      "%s: UB row of A %u/%u", ctx, t, i);
}

/* OP0.A_STREAM on a device with 512 UB and ACC rows: the stream holds block 0's K-tile t
 * preceded by the R rows of A's K-tile t, the other blocks as before; the UB rows of A hold
 * other data before the command. Random shapes (_i & 1: N = 16, else 8; _i >= 2: R of
 * 200..240, two K-tiles, or one with ACTIVATE), with or without ACTIVATE (output rows apart
 * from A's). (512 UB rows, so R stays below the device's 512-row staging ring here; A's rows
 * advance the ring like a tile's anyway. With 1024 UB rows the fixture's zeroing READ_HOST hit
 * the long-READ_HOST timeout that tests/test_sim_read_host.c now covers.)
 * Checked against a reference computed from the stream bytes here: the ACC rows,
 * A's UB rows afterwards, the int8 outputs, RESULT and PERF_MACS. */
START_TEST(stream_matmul_astream)
{
	const uint32_t n = _i & 1 ? 16 : 8, rows = 512;
	static uint32_t acc[512][MAXN];
	int32_t mult[MAXN], shift[MAXN];
	struct tpu_act_output o = { -2, -120, 115, NULL, TPU_ROUND_DOUBLE };
	uint32_t arow[8]; /* (k <= 4n + 3: at most 5 K-tiles) */
	char ctx[128];
	uint64_t hb;
	uint8_t *h;
	struct gfx_sqe q;

	/* 0: the stream; 256 KiB: ACC rows back; 384 KiB: UB rows back; 448 KiB: MULT/SHIFT */
	h = setup_act_device(n, rows, _i & 1 ? 50 : 0, 512 * 1024, 448 * 1024, &o, mult, shift,
			     &hb);
	if (!h)
		return;
	for (int rep = 0; rep < (_i >= 2 ? 1 : 4); rep++) {
		bool act = harness_range(&rng, 0, 1);
		uint32_t k = _i >= 2 ? (uint32_t)(act ? harness_range(&rng, 1, n)
						      : harness_range(&rng, n + 1, 2 * n))
				     : (uint32_t)harness_range(&rng, 1, 4 * n + 3);
		uint32_t tiles = (k + n - 1) / n;
		uint32_t r = _i >= 2 ? (uint32_t)harness_range(&rng, 200, 240)
				     : (uint32_t)harness_range(&rng, 1, 6);
		uint32_t blocks = _i >= 2 ? (act ? 1 : 2) : (uint32_t)harness_range(&rng, 1, 3);
		uint32_t stride = harness_range(&rng, 0, 1) ? 0 : n + (uint32_t)harness_range(&rng, 0, 5);
		uint32_t step = stride ? stride : n, per = k + (act ? TPU_STREAM_MATMUL_BIAS_ROWS : 0);
		uint32_t arows = tiles * r, srows = blocks * per + arows;
		/* the output rows after A's */
		uint32_t la = (uint32_t)harness_range(&rng, 0, rows - arows - (act ? blocks * r : 0));
		uint32_t out_row = (uint32_t)harness_range(&rng, la + arows,
							   rows - (act ? blocks * r : 0));
		uint32_t la2 = (uint32_t)harness_range(&rng, 0, rows - blocks * r);

		ck_assert_uint_le(((uint64_t)srows - 1) * step + n, 256 * 1024);
		for (size_t i = 0; i < ((size_t)srows - 1) * step + n; i++)
			h[i] = (uint8_t)rand8();
		/* small biases: random int32 ones would saturate every output */
		for (uint32_t b = 0; b < blocks && act; b++) {
			uint32_t row0 = (b ? b * per + arows : tiles * r) + k;

			for (uint32_t j = 0; j < n; j++) {
				int32_t bias = (int32_t)harness_range(&rng, -3000, 3000);

				memcpy(h + (size_t)(row0 + 4 * j / n) * step + 4 * j % n, &bias, 4);
			}
		}
		/* the UB rows of A hold garbage before: the command writes them */
		q = gfx_read_host(hb + 256 * 1024, arows, n, 0, la);
		gfx_ok(&F, &q);
		/* the reference: A's K-tile t row i is stream row t x (R + N) + i, block 0's weight
		 * row kk is t x (R + N) + R + kk % N (t = kk / N), block b > 0's is T x R + b x P + kk */
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++) {
					uint32_t sum = 0;

					for (uint32_t kk = 0; kk < k; kk++) {
						uint32_t t = kk / n;
						size_t ar = (size_t)t * (r + n) + i;
						size_t wr = b ? (size_t)arows + (size_t)b * per + kk
							      : (size_t)t * (r + n) + r + kk % n;

						sum += (uint32_t)((int32_t)(int8_t)h[ar * step + kk % n] *
								  (int8_t)h[wr * step + j]);
					}
					acc[b * r + i][j] = sum;
				}
		q = sm_a(hb, n, k, stride, blocks, la, r, la2,
			 act ? TPU_STREAM_MATMUL_ACTIVATE : 0);
		if (act)
			GFX_SET(&q, OP3, out_row);
		snprintf(ctx, sizeof(ctx), "case %d rep %d k=%u r=%u blocks=%u stride=%u act=%d", _i,
			 rep, k, r, blocks, stride, act);
		run_check_acc(&q, srows * n, (uint64_t)blocks * r * k * n, hb, h, la2, blocks * r, n,
			      acc, ctx);
		for (uint32_t t = 0; t < tiles; t++)
			arow[t] = t * (r + n);
		check_a_rows(hb, h, 384 * 1024, la, tiles, r, n, arow, step, ctx);
		if (!act)
			continue;
		q = gfx_write_host(hb + 384 * 1024, blocks * r, n, 0, out_row, false);
		gfx_ok(&F, &q);
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++) {
					uint32_t row0 = (b ? b * per + arows : tiles * r) + k;
					int32_t bias;
					struct tpu_act_channel ch;
					bool sat;
					int8_t want, got = (int8_t)h[384 * 1024 + ((size_t)b * r + i) * n + j];

					memcpy(&bias, h + (size_t)(row0 + 4 * j / n) * step + 4 * j % n, 4);
					ch = (struct tpu_act_channel){ bias, mult[j], shift[j] };
					want = tpu_activate((int32_t)acc[b * r + i][j], &ch, &o, &sat);
					ck_assert_msg(got == want,
						      "case %d rep %d k=%u r=%u: out %u/%u/%u = %d, "
						      "expected %d", _i, rep, k, r, b, i, j, got, want);
				}
	}
	teardown();
}
END_TEST

/* A read fault in the A part of an A_STREAM stream (small device, N = 8, K = 3N, R = 2, three
 * blocks): _i = 0 in A's first row, 1 in the middle of A's second K-tile, 2 in A's last row.
 * DMA_XFER_ERROR with RESULT 0 and PERF_MACS unchanged, no active tile, the weight FIFO empty,
 * and the same command then succeeds: ACC rows and A's UB rows against the reference. */
START_TEST(stream_matmul_astream_fault)
{
	const uint32_t n = 8, k = 3 * n, r = 2, blocks = 3, tiles = 3, la = 4, la2 = 8;
	const uint64_t bad[] = { 3, (1ull * (r + n) + 1) * n + 5, (2ull * (r + n) + 1) * n + 7 };
	const uint32_t srows = blocks * k + tiles * r;
	static uint32_t acc[ROWS][MAXN];
	struct gfx_sqe s, wb;
	struct golden_config cfg;

	gfx_sim_latency(50);
	setup_small(&cfg);
	for (uint32_t i = 0; i < srows * n; i++)
		hp[W_OFF + i] = (uint8_t)rand8();
	s = sm_a(hbuf + W_OFF, n, k, 0, blocks, la, r, la2, 0);
	fail_then_recover(&s, hbuf + W_OFF + bad[_i], n, cfg.fifo_tiles, srows * n);
	for (uint32_t b = 0; b < blocks; b++)
		for (uint32_t i = 0; i < r; i++)
			for (uint32_t j = 0; j < n; j++) {
				uint32_t sum = 0;

				for (uint32_t kk = 0; kk < k; kk++) {
					uint32_t t = kk / n;
					size_t ar = (size_t)t * (r + n) + i;
					size_t wr = b ? (size_t)tiles * r + (size_t)b * k + kk
						      : (size_t)t * (r + n) + r + kk % n;

					sum += (uint32_t)((int32_t)(int8_t)hp[W_OFF + ar * n + kk % n] *
							  (int8_t)hp[W_OFF + wr * n + j]);
				}
				acc[b * r + i][j] = sum;
			}
	wb = gfx_write_host(hbuf + OUT_OFF, blocks * r, n, 0, la2, true);
	gfx_ok(&F, &wb);
	for (uint32_t i = 0; i < blocks * r; i++)
		for (uint32_t j = 0; j < n; j++) {
			uint32_t got;

			memcpy(&got, hp + OUT_OFF + ((size_t)i * n + j) * 4, 4);
			ck_assert_uint_eq(got, acc[i][j]);
		}
	wb = gfx_write_host(hbuf + OUT_OFF, tiles * r, n, 0, la, false);
	gfx_ok(&F, &wb);
	for (uint32_t t = 0; t < tiles; t++)
		for (uint32_t i = 0; i < r; i++)
			ck_assert(!memcmp(hp + OUT_OFF + ((size_t)t * r + i) * n,
					  hp + W_OFF + ((size_t)t * (r + n) + i) * n, n));
	teardown();
}
END_TEST

/* A_STREAM right behind a long MATMUL (500 rows, queued with it) whose last rows A overwrites
 * (the stream's first row comes ~130 cycles after the MATMUL starts, which reads those rows
 * ~490 cycles in): the MATMUL reads the UB rows as they were (the device holds A's UB writes
 * until the MATMULs accepted before the command are done). N = 16, 512 UB and ACC rows.
 * _i = 1: with OP0.W_FIRST (the stream's chained MATMUL waits behind the long one, A's rows
 * behind both). */
START_TEST(stream_matmul_astream_after_matmul)
{
	const uint32_t n = 16, mrows = 500, r = 8, la = 490, la2 = 500;
	static int8_t ub[500][MAXN];
	struct golden_config c;
	struct gfx_sqe q[2];
	struct gfx_cqe cq;
	uint64_t hb;
	uint8_t *h;

	config_n(&c, n);
	c.ub_rows = 512;
	c.acc_rows = 512;
	if (!gfx_backend_has(gfx_backend(), &c))
		return;
	gfx_sim_latency(50);
	setup_cfg(&c);
	/* 0: UB rows; 64 KiB: the weight tile; 128 KiB: the stream; 256 KiB: ACC rows back */
	h = gfx_alloc(&F, 512 * 1024, &hb);
	for (uint32_t i = 0; i < mrows; i++)
		for (uint32_t j = 0; j < n; j++)
			h[i * n + j] = (uint8_t)(ub[i][j] = rand8());
	for (uint32_t i = 0; i < n * n; i++)
		h[65536 + i] = (uint8_t)rand8();
	for (uint32_t i = 0; i < (r + n) * n; i++)
		h[131072 + i] = (uint8_t)rand8();
	q[0] = gfx_read_host(hb, mrows, n, 0, 0);
	gfx_ok(&F, &q[0]);
	q[0] = gfx_load_weights(hb + 65536, n, n, 0, false);
	gfx_ok(&F, &q[0]);
	q[0] = gfx_matmul(0, 0, mrows, TPU_MATMUL_POP);
	q[1] = sm_a(hb + 131072, n, n, 0, 1, la, r, la2, _i ? TPU_STREAM_MATMUL_W_FIRST : 0);
	for (int i = 0; i < 2; i++) {
		GFX_SET(&q[i], CID, 0x100 + i);
		gfx_push(&F, 0, &q[i]);
	}
	gfx_ring(&F, 0);
	ck_assert_uint_eq(gfx_run(&F, 2), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert(gfx_reap(&F, 0, &cq));
		ck_assert_uint_eq(cq.sc, TPU_SC_SUCCESS);
	}
	q[0] = gfx_write_host(hb + 262144, mrows, n, 0, 0, true);
	gfx_ok(&F, &q[0]);
	for (uint32_t i = 0; i < mrows; i++)
		for (uint32_t j = 0; j < n; j++) {
			uint32_t sum = 0, got;

			for (uint32_t kk = 0; kk < n; kk++)
				sum += (uint32_t)((int32_t)ub[i][kk] * (int8_t)h[65536 + kk * n + j]);
			memcpy(&got, h + 262144 + ((size_t)i * n + j) * 4, 4);
			ck_assert_msg(got == sum, "MATMUL row %u col %u = %u, expected %u", i, j, got,
				      sum);
		}
	teardown();
}
END_TEST

/* OP0.WRITE_BACK (with ACTIVATE): block b's R output rows reach host memory at HOST_ADDR2 +
 * (b x R + r) x N, and nothing around them; the UB output rows, RESULT and PERF_DMA_WR too.
 * Random shapes on a device with 512 UB and ACC rows (_i & 1: N = 16, else 8; _i >= 2: with
 * A_STREAM), against a reference computed here; the last rep has a read fault in the stream's
 * first row (DMA_XFER_ERROR: no block was read, none is written back; a fault later in the
 * stream leaves the write region unspecified, spec 6.11), then the same command again. */
START_TEST(stream_matmul_write_back)
{
	const uint32_t n = _i & 1 ? 16 : 8, rows = 512;
	const bool astr = _i >= 2;
	static uint32_t acc[512][MAXN];
	static int8_t ub[512][MAXN];
	int32_t mult[MAXN], shift[MAXN];
	struct tpu_act_output o = { 5, -110, 120, NULL, TPU_ROUND_DOUBLE };
	uint64_t hb;
	uint8_t *h;
	struct gfx_sqe q;

	/* 0: the stream; 128 KiB: A rows; 192 KiB: MULT/SHIFT; 256 KiB: the write-back */
	h = setup_act_device(n, rows, _i & 1 ? 50 : 0, 320 * 1024, 192 * 1024, &o, mult, shift,
			     &hb);
	if (!h)
		return;
	for (int rep = 0; rep < 4; rep++) {
		uint32_t k = (uint32_t)harness_range(&rng, 1, 4 * n + 3), tiles = (k + n - 1) / n;
		uint32_t r = (uint32_t)harness_range(&rng, 1, 8);
		uint32_t blocks = (uint32_t)harness_range(&rng, 1, 4);
		uint32_t stride = harness_range(&rng, 0, 1) ? 0 : n + (uint32_t)harness_range(&rng, 0, 5);
		uint32_t step = stride ? stride : n, per = k + TPU_STREAM_MATMUL_BIAS_ROWS;
		uint32_t arows = astr ? tiles * r : 0, srows = blocks * per + arows;
		uint32_t la = (uint32_t)harness_range(&rng, 0, rows / 2 - tiles * r);
		uint32_t out_row = (uint32_t)harness_range(&rng, rows / 2, rows - blocks * r);
		uint32_t la2 = (uint32_t)harness_range(&rng, 0, rows - blocks * r);
		uint32_t wlen = blocks * r * n, op0;
		uint64_t wr0;

		for (size_t i = 0; i < ((size_t)srows - 1) * step + n; i++)
			h[i] = (uint8_t)rand8();
		for (uint32_t b = 0; b < blocks; b++) {
			uint32_t row0 = (b ? b * per + arows : arows) + k;

			for (uint32_t j = 0; j < n; j++) {
				int32_t bias = (int32_t)harness_range(&rng, -3000, 3000);

				memcpy(h + (size_t)(row0 + 4 * j / n) * step + 4 * j % n, &bias, 4);
			}
		}
		/* A in the UB (without A_STREAM), the write-back area with a sentinel around it */
		for (uint32_t i = 0; i < tiles * r; i++)
			for (uint32_t j = 0; j < n; j++)
				h[128 * 1024 + i * n + j] = (uint8_t)(ub[la + i][j] = rand8());
		q = gfx_read_host(hb + 128 * 1024, tiles * r, n, 0, la);
		gfx_ok(&F, &q);
		memset(h + 256 * 1024, 0xA5, 64 * 1024);
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++) {
					uint32_t sum = 0;

					for (uint32_t kk = 0; kk < k; kk++) {
						uint32_t t = kk / n;
						int8_t a = astr ? (int8_t)h[((size_t)t * (r + n) + i) * step + kk % n]
								: ub[la + t * r + i][kk % n];
						size_t wr = astr ? (b ? (size_t)arows + (size_t)b * per + kk
								      : (size_t)t * (r + n) + r + kk % n)
								 : (size_t)b * per + kk;

						sum += (uint32_t)((int32_t)a * (int8_t)h[wr * step + j]);
					}
					acc[b * r + i][j] = sum;
				}
		op0 = TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_WRITE_BACK;
		q = astr ? sm_a(hb, n, k, stride, blocks, la, r, la2, op0)
			 : sm(hb, k, n, stride, blocks, la, r, la2, op0);
		GFX_SET(&q, OP3, out_row);
		GFX_SET(&q, HOST_ADDR2_LO, (uint32_t)(hb + 256 * 1024 + 64));
		GFX_SET(&q, HOST_ADDR2_HI, (uint32_t)((hb + 256 * 1024 + 64) >> 32));
		if (rep == 3) { /* a read fault in the stream's first row, then again */
			gfx_fail_range(&F, hb + (size_t)harness_range(&rng, 0, n - 1), 1, HOSTMEM_READ,
				       false);
			ck_assert_uint_eq(gfx_exec(&F, &q, NULL), TPU_SC_DMA_XFER_ERROR);
			gfx_fail_off(&F);
			memset(h + 256 * 1024, 0xA5, 64 * 1024);
		}
		wr0 = gfx_perf(&F, TPU_REG_PERF_DMA_WR_LO);
		ck_assert_uint_eq(gfx_ok(&F, &q), srows * n);
		ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_DMA_WR_LO) - wr0, wlen);
		for (uint32_t i = 0; i < 64; i++) {
			ck_assert_uint_eq(h[256 * 1024 + i], 0xA5);
			ck_assert_uint_eq(h[256 * 1024 + 64 + wlen + i], 0xA5);
		}
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++) {
					uint32_t row0 = (b ? b * per + arows : arows) + k;
					int32_t bias;
					struct tpu_act_channel ch;
					bool sat;
					int8_t want, got;

					memcpy(&bias, h + (size_t)(row0 + 4 * j / n) * step + 4 * j % n, 4);
					ch = (struct tpu_act_channel){ bias, mult[j], shift[j] };
					want = tpu_activate((int32_t)acc[b * r + i][j], &ch, &o, &sat);
					got = (int8_t)h[256 * 1024 + 64 + ((size_t)b * r + i) * n + j];
					ck_assert_msg(got == want,
						      "case %d rep %d k=%u r=%u blocks=%u stride=%u: out "
						      "%u/%u/%u = %d, expected %d", _i, rep, k, r, blocks, stride,
						      b, i, j, got, want);
				}
		/* the UB output rows hold the same */
		q = gfx_write_host(hb + 128 * 1024, blocks * r, n, 0, out_row, false);
		gfx_ok(&F, &q);
		ck_assert(!memcmp(h + 128 * 1024, h + 256 * 1024 + 64, wlen));
	}
	teardown();
}
END_TEST

/* WRITE_BACK's window check: the write region in a window with R only fails with
 * DMA_ACCESS_VIOLATION (RESULT 0, nothing written), also one byte of it inside the R/W window;
 * with W it succeeds. Small device (N = 8): window 0 (R/W) ends below the write region, window 1
 * covers it. */
START_TEST(stream_matmul_write_back_window)
{
	const uint32_t n = 8, k = 2 * n + 3, r = 3, blocks = 2, per = k + 4;
	const uint64_t rw = TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK;
	struct golden_config cfg;
	struct gfx_sqe q;
	struct gfx_cqe cq;

	setup_small(&cfg);
	memset(hp, 0, 256);
	q = gfx_load_vec(TPU_PARAM_MULT, hbuf, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_vec(TPU_PARAM_SHIFT, hbuf, n, 0);
	gfx_ok(&F, &q);
	q = gfx_load_output(1, -128, 127);
	gfx_ok(&F, &q);
	for (uint32_t i = 0; i < blocks * per * n; i++)
		hp[W_OFF + i] = (uint8_t)rand8();
	memset(hp + OUT_OFF, 0x5A, blocks * r * n);
	gfx_window(&F, 0, GFX_IOVA_BASE, hbuf + OUT_OFF - 1, (uint32_t)rw);
	gfx_window(&F, 1, hbuf + OUT_OFF, hbuf + 65535,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_VALID_MASK);
	q = sm(hbuf + W_OFF, k, n, 0, blocks, 0, r, 0,
	       TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_WRITE_BACK);
	GFX_SET(&q, OP3, 20);
	GFX_SET(&q, HOST_ADDR2_LO, (uint32_t)(hbuf + OUT_OFF));
	ck_assert_uint_eq(gfx_exec(&F, &q, &cq), TPU_SC_DMA_ACCESS_VIOLATION);
	ck_assert_uint_eq(cq.result, 0);
	for (uint32_t i = 0; i < blocks * r * n; i++)
		ck_assert_uint_eq(hp[OUT_OFF + i], 0x5A);
	/* the write region one byte into window 0 */
	GFX_SET(&q, HOST_ADDR2_LO, (uint32_t)(hbuf + OUT_OFF - 1));
	ck_assert_uint_eq(gfx_exec(&F, &q, NULL), TPU_SC_DMA_ACCESS_VIOLATION);
	GFX_SET(&q, HOST_ADDR2_LO, (uint32_t)(hbuf + OUT_OFF));
	gfx_window(&F, 1, hbuf + OUT_OFF, hbuf + 65535, (uint32_t)rw);
	ck_assert_uint_eq(gfx_ok(&F, &q), blocks * per * n);
	{
		struct gfx_sqe wh = gfx_write_host(hbuf + OUT_OFF + 4096, blocks * r, n, 0, 20, false);

		gfx_ok(&F, &wh);
		ck_assert(!memcmp(hp + OUT_OFF, hp + OUT_OFF + 4096, blocks * r * n));
	}
	teardown();
}
END_TEST

/* OP0.W_FIRST: block 0's weight tile (K = N, T = 1) before A's R = 256 rows, then block 1's
 * tile; N = 16, 1024 UB and ACC rows, link latency 50. A's UB rows hold other (stale) values
 * before each command, so a MATMUL row that read its A row before the stream wrote it would
 * give a wrong ACC row (and trip tpu_datapath's MmChain assertion). _i = 1: rows 2N bytes
 * apart (STRIDE), so the link brings A's rows at a third of the MXU's rate and the chained
 * MATMUL keeps catching up with them (packed, _i = 0, they come about as fast as it issues
 * them). Both orders (plain A_STREAM, then W_FIRST) against a reference; on sim W_FIRST must
 * also be faster by at least R / 2 cycles (PERF_CYCLES), as its first MATMUL follows A's rows
 * as they come in instead of starting after all of them. Then W_FIRST with a read fault in
 * the middle of A's rows (the chained MATMUL has started and waits for the rest): the command
 * ends with DMA_XFER_ERROR, RESULT 0, PERF_MACS unchanged, no active tile, and runs again. */
START_TEST(stream_matmul_wfirst)
{
	const uint32_t n = 16, r = 256, blocks = 2, la = 100, la2 = 40, stride = _i ? 2 * n : 0;
	const size_t step = stride ? stride : n;
	static int8_t a[256][MAXN], w[2][MAXN][MAXN];
	struct golden_config c;
	uint64_t hb, cyc[2];
	uint8_t *h;

	config_n(&c, n);
	c.ub_rows = 1024;
	c.acc_rows = 1024;
	if (!gfx_backend_has(gfx_backend(), &c))
		return;
	gfx_sim_latency(50);
	setup_cfg(&c);
	/* 0: the stream; 64 KiB: the stale UB rows; 128 KiB: ACC rows back */
	h = gfx_alloc(&F, 256 * 1024, &hb);
	memset(h, 0, 65536);
	for (uint32_t i = 0; i < r; i++)
		for (uint32_t j = 0; j < n; j++)
			a[i][j] = rand8();
	for (uint32_t b = 0; b < blocks; b++)
		for (uint32_t kk = 0; kk < n; kk++)
			for (uint32_t j = 0; j < n; j++)
				w[b][kk][j] = rand8();
	for (int wf = 0; wf < 2; wf++) {
		/* stream rows: plain A (r), W0 (n), W1 (n); W_FIRST W0, A, W1 */
		uint32_t arow = wf ? n : 0, w0 = wf ? 0 : r, w1 = r + n;
		struct gfx_sqe q;
		uint64_t t0;

		for (uint32_t i = 0; i < r; i++)
			memcpy(h + (arow + i) * step, a[i], n);
		for (uint32_t kk = 0; kk < n; kk++) {
			memcpy(h + (w0 + kk) * step, w[0][kk], n);
			memcpy(h + (w1 + kk) * step, w[1][kk], n);
		}
		for (uint32_t i = 0; i < r * n; i++)
			h[65536 + i] = (uint8_t)rand8();
		q = gfx_read_host(hb + 65536, r, n, 0, la);
		gfx_ok(&F, &q);
		q = sm_a(hb, n, n, stride, blocks, la, r, la2, wf ? TPU_STREAM_MATMUL_W_FIRST : 0);
		t0 = gfx_perf(&F, TPU_REG_PERF_CYCLES_LO);
		ck_assert_uint_eq(gfx_ok(&F, &q), (r + blocks * n) * n);
		cyc[wf] = gfx_perf(&F, TPU_REG_PERF_CYCLES_LO) - t0;
		q = gfx_write_host(hb + 131072, blocks * r, n, 0, la2, true);
		gfx_ok(&F, &q);
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++) {
					uint32_t sum = 0, got;

					for (uint32_t kk = 0; kk < n; kk++)
						sum += (uint32_t)((int32_t)a[i][kk] * w[b][kk][j]);
					memcpy(&got, h + 131072 + (((size_t)b * r + i) * n + j) * 4, 4);
					ck_assert_msg(got == sum, "wf=%d block %u row %u col %u = %u, "
						      "expected %u", wf, b, i, j, got, sum);
				}
	}
	if (gfx_backend() == GFX_SIM)
		ck_assert_msg(cyc[1] + r / 2 < cyc[0], "W_FIRST %llu cycles, plain %llu",
			      (unsigned long long)cyc[1], (unsigned long long)cyc[0]);
	{
		struct gfx_sqe q = sm_a(hb, n, n, stride, blocks, la, r, la2,
					TPU_STREAM_MATMUL_W_FIRST);
		struct gfx_sqe m = gfx_matmul(0, 0, 1, 0);
		struct gfx_cqe cq;
		uint64_t macs = gfx_perf(&F, TPU_REG_PERF_MACS_LO);

		gfx_fail_range(&F, hb + (uint64_t)(n + r / 2) * step, 1, HOSTMEM_READ, false);
		ck_assert_uint_eq(gfx_exec(&F, &q, &cq), TPU_SC_DMA_XFER_ERROR);
		ck_assert_uint_eq(cq.result, 0);
		gfx_fail_off(&F);
		ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO), macs);
		ck_assert_uint_eq(gfx_exec(&F, &m, NULL), TPU_SC_SEQUENCE_ERROR);
		ck_assert_uint_eq(gfx_ok(&F, &q), (r + blocks * n) * n);
		ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO),
				  macs + (uint64_t)blocks * r * n * n);
	}
	teardown();
}
END_TEST

/* OP0.K_MAJOR: the stream order of a K_GROUP of G blocks, walked here row by row (independent
 * of the device's and the golden model's closed forms): K-tile t of the first G blocks is a
 * round (A_STREAM: A's R rows of K-tile t first), then K-tile t of each of them (its last
 * K-tile followed by its bias vector with ACTIVATE), then the other blocks one after the
 * other. tile[b][t] = the first stream row of block b's K-tile t, bias[b] its bias vector,
 * arow[t] A's K-tile t; the stream's row count. With OP0.PARAMS the MULT and SHIFT vectors
 * come first. With OP0.W_FIRST (wf) block 0's K-tile 0 weight rows and A's K-tile 0 swap
 * places. */
#define KM_BLOCKS 4
#define KM_TILES 8
static uint32_t km_layout(uint32_t n, uint32_t k, uint32_t r, uint32_t blocks, uint32_t g,
			  bool astr, bool wf, bool act, bool prm, uint32_t tile[KM_BLOCKS][KM_TILES],
			  uint32_t bias[KM_BLOCKS], uint32_t arow[KM_TILES])
{
	/* (OP0.PARAMS: MULT's and SHIFT's 4 rows each first) */
	uint32_t tiles = (k + n - 1) / n, row = prm ? TPU_STREAM_MATMUL_PARAMS_ROWS : 0;

	for (uint32_t t = 0; t < tiles; t++) {
		uint32_t kn = t + 1 < tiles ? n : k - t * n;

		if (astr && !(wf && t == 0)) {
			arow[t] = row;
			row += r;
		}
		for (uint32_t b = 0; b < g; b++) {
			tile[b][t] = row;
			row += kn;
			if (wf && t == 0 && b == 0) {
				arow[0] = row;
				row += r;
			}
			if (t + 1 == tiles && act) {
				bias[b] = row;
				row += TPU_STREAM_MATMUL_BIAS_ROWS;
			}
		}
	}
	for (uint32_t b = g; b < blocks; b++) {
		for (uint32_t t = 0; t < tiles; t++) {
			tile[b][t] = row;
			row += t + 1 < tiles ? n : k - t * n;
		}
		if (act) {
			bias[b] = row;
			row += TPU_STREAM_MATMUL_BIAS_ROWS;
		}
	}
	return row;
}

/* OP0.K_MAJOR with a random K_GROUP (0 = all blocks) on a device with 512 UB and ACC rows,
 * random shapes (_i & 1: N = 16, else 8; _i >= 4: R of 100..120 over two K-tiles and two
 * blocks), with or without A_STREAM, ACTIVATE, LUT, WRITE_BACK and ACCUMULATE (the ACC rows
 * first filled by a block-major STREAM_MATMUL of other weights), output rows apart from A's.
 * With ACTIVATE also with OP0.PARAMS (new random MULT and SHIFT at the stream's start).
 * Against a reference computed from the stream bytes with km_layout: the ACC rows, A's UB
 * rows, the int8 outputs in the UB and written back (nothing around them), RESULT and
 * PERF_MACS. _i < 4: the last rep first fails with a read fault at a random stream row (the
 * first with WRITE_BACK): DMA_XFER_ERROR, RESULT 0, PERF_MACS unchanged, no active tile; then
 * it runs again. With A_STREAM also with OP0.W_FIRST (a fault in A's K-tile 0 rows then lands
 * while the chained first MATMUL waits for them: the command must still end). */
START_TEST(stream_matmul_kmajor)
{
	const uint32_t n = _i & 1 ? 16 : 8, rows = 512;
	const bool big = _i >= 4;
	static uint32_t acc[512][MAXN];
	static int8_t ub[512][MAXN], lut[256];
	uint32_t tile[KM_BLOCKS][KM_TILES], bias[KM_BLOCKS], arow[KM_TILES];
	int32_t mult[MAXN], shift[MAXN];
	struct tpu_act_output o = { 3, -118, 121, NULL, TPU_ROUND_DOUBLE };
	char ctx[160];
	uint64_t hb;
	uint8_t *h;
	struct gfx_sqe q;

	/* 0: the stream; 64 KiB: the ACC prefill's stream; 128 KiB: UB rows in; 192 KiB: the
	 * write-back; 256 KiB: ACC rows back; 320 KiB: UB rows back; 384 KiB: LUT; 448 KiB:
	 * MULT/SHIFT */
	h = setup_act_device(n, rows, _i & 1 ? 50 : 0, 512 * 1024, 448 * 1024, &o, mult, shift,
			     &hb);
	if (!h)
		return;
	for (uint32_t i = 0; i < 256; i++)
		h[384 * 1024 + i] = (uint8_t)(lut[i] = rand8());
	q = gfx_load_lut(hb + 384 * 1024);
	gfx_ok(&F, &q);
	for (int rep = 0; rep < (big ? 2 : 4); rep++) {
		bool fault = !big && rep == 3;
		bool astr = harness_range(&rng, 0, 1), act = harness_range(&rng, 0, 2) != 0;
		bool wf = astr && harness_range(&rng, 0, 1);
		bool wb = act && harness_range(&rng, 0, 1), use_lut = act && harness_range(&rng, 0, 1);
		bool prm = act && harness_range(&rng, 0, 1);
		bool acc0 = !fault && harness_range(&rng, 0, 1);
		uint32_t k = big ? (uint32_t)harness_range(&rng, n + 1, 2 * n)
				 : (uint32_t)harness_range(&rng, 1, 4 * n + 3);
		uint32_t tiles = (k + n - 1) / n;
		uint32_t r = big ? (uint32_t)harness_range(&rng, 100, 120)
				 : (uint32_t)harness_range(&rng, 1, 8);
		uint32_t blocks = big ? 2 : (uint32_t)harness_range(&rng, 1, KM_BLOCKS);
		uint32_t g = (uint32_t)harness_range(&rng, 0, blocks);
		uint32_t stride = harness_range(&rng, 0, 1) ? 0 : n + (uint32_t)harness_range(&rng, 0, 5);
		uint32_t step = stride ? stride : n, arows = tiles * r;
		uint32_t srows = km_layout(n, k, r, blocks, g ? g : blocks, astr, wf, act, prm, tile,
					   bias, arow);
		/* A's rows below 256 (or up to 272 with big R), the output rows above them */
		uint32_t la = (uint32_t)harness_range(&rng, 0, rows - arows - blocks * r);
		uint32_t out_row = (uint32_t)harness_range(&rng, la + arows, rows - blocks * r);
		uint32_t la2 = (uint32_t)harness_range(&rng, 0, rows - blocks * r);
		uint32_t op0 = TPU_STREAM_MATMUL_K_GROUP(g) |
			       (act ? TPU_STREAM_MATMUL_ACTIVATE : 0) |
			       (wb ? TPU_STREAM_MATMUL_WRITE_BACK : 0) |
			       (prm ? TPU_STREAM_MATMUL_PARAMS : 0) |
			       (wf ? TPU_STREAM_MATMUL_W_FIRST : 0) |
			       (use_lut ? TPU_STREAM_MATMUL_LUT : 0) |
			       (acc0 ? TPU_STREAM_MATMUL_ACCUMULATE : 0);
		struct tpu_act_output o2 = o;
		uint64_t macs;

		o2.lut = use_lut ? lut : NULL;
		ck_assert_uint_le(((uint64_t)srows - 1) * step + n, 64 * 1024);
		for (size_t i = 0; i < ((size_t)srows - 1) * step + n; i++)
			h[i] = (uint8_t)rand8();
		for (uint32_t b = 0; b < blocks && act; b++)
			for (uint32_t j = 0; j < n; j++) {
				int32_t v = (int32_t)harness_range(&rng, -3000, 3000);

				memcpy(h + (size_t)(bias[b] + 4 * j / n) * step + 4 * j % n, &v, 4);
			}
		/* PARAMS: new MULT and SHIFT in the stream (the ones the device holds from then on) */
		for (uint32_t j = 0; j < n && prm; j++) {
			mult[j] = (int32_t)harness_range(&rng, 1 << 29, (1 << 30) - 1);
			shift[j] = (int32_t)harness_range(&rng, -9, -7);
			memcpy(h + (size_t)(4 * j / n) * step + 4 * j % n, &mult[j], 4);
			memcpy(h + (size_t)(4 + 4 * j / n) * step + 4 * j % n, &shift[j], 4);
		}
		/* UB rows of A (the data without A_STREAM; overwritten with it) */
		for (uint32_t i = 0; i < arows; i++)
			for (uint32_t j = 0; j < n; j++)
				h[128 * 1024 + i * n + j] = (uint8_t)(ub[la + i][j] = rand8());
		q = gfx_read_host(hb + 128 * 1024, arows, n, 0, la);
		gfx_ok(&F, &q);
		/* ACCUMULATE: the ACC rows from a block-major command over other weights first */
		memset(acc, 0, sizeof(acc));
		if (acc0) {
			for (size_t i = 0; i < (size_t)blocks * k * n; i++)
				h[64 * 1024 + i] = (uint8_t)rand8();
			q = sm(hb + 64 * 1024, k, n, 0, blocks, la, r, la2, 0);
			gfx_ok(&F, &q);
			for (uint32_t b = 0; b < blocks; b++)
				for (uint32_t i = 0; i < r; i++)
					for (uint32_t j = 0; j < n; j++)
						for (uint32_t kk = 0; kk < k; kk++)
							acc[b * r + i][j] += (uint32_t)(
								(int32_t)ub[la + kk / n * r + i][kk % n] *
								(int8_t)h[64 * 1024 + ((size_t)b * k + kk) * n + j]);
		}
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++)
					for (uint32_t kk = 0; kk < k; kk++) {
						uint32_t t = kk / n;
						int8_t a = astr ? (int8_t)h[((size_t)arow[t] + i) * step + kk % n]
								: ub[la + t * r + i][kk % n];
						int8_t w = (int8_t)h[((size_t)tile[b][t] + kk % n) * step + j];

						acc[b * r + i][j] += (uint32_t)((int32_t)a * w);
					}
		q = astr ? sm_a(hb, n, k, stride, blocks, la, r, la2, op0)
			 : sm(hb, k, n, stride, blocks, la, r, la2, op0);
		GFX_SET(&q, OP3, act ? out_row : 0);
		GFX_SET(&q, LENGTH, ((uint64_t)srows - 1) * step + n); /* (with PARAMS' rows) */
		if (wb) {
			GFX_SET(&q, HOST_ADDR2_LO, (uint32_t)(hb + 192 * 1024 + 64));
			GFX_SET(&q, HOST_ADDR2_HI, (uint32_t)((hb + 192 * 1024 + 64) >> 32));
		}
		memset(h + 192 * 1024, 0xA5, 64 * 1024);
		if (fault) {
			struct gfx_cqe c;
			struct gfx_sqe m = gfx_matmul(0, 0, 1, 0);
			/* (with WRITE_BACK in the first row: the blocks written back after a later
			 * fault are unspecified, and the device loses a whole read request's rows,
			 * the golden model only the failed row's) */
			uint32_t bad = wb ? 0 : (uint32_t)harness_range(&rng, 0, srows - 1);

			macs = gfx_perf(&F, TPU_REG_PERF_MACS_LO);
			gfx_fail_range(&F, hb + (uint64_t)bad * step, 1, HOSTMEM_READ, false);
			ck_assert_uint_eq(gfx_exec(&F, &q, &c), TPU_SC_DMA_XFER_ERROR);
			ck_assert_uint_eq(c.result, 0);
			gfx_fail_off(&F);
			ck_assert_uint_eq(gfx_perf(&F, TPU_REG_PERF_MACS_LO), macs);
			ck_assert_uint_eq(gfx_exec(&F, &m, NULL), TPU_SC_SEQUENCE_ERROR);
			/* A's UB rows may have been written: put them back for the rerun */
			{
				struct gfx_sqe rh = gfx_read_host(hb + 128 * 1024, arows, n, 0, la);

				gfx_ok(&F, &rh);
			}
			memset(h + 192 * 1024, 0xA5, 64 * 1024);
		}
		snprintf(ctx, sizeof(ctx), "case %d rep %d k=%u r=%u blocks=%u g=%u astr=%d wf=%d "
			 "act=%d acc0=%d", _i, rep, k, r, blocks, g, astr, wf, act, acc0);
		run_check_acc(&q, srows * n, (uint64_t)blocks * r * k * n, hb, h, la2, blocks * r, n,
			      acc, ctx);
		if (astr)
			check_a_rows(hb, h, 320 * 1024, la, tiles, r, n, arow, step, ctx);
		for (uint32_t i = 0; i < 64; i++)
			ck_assert_uint_eq(h[192 * 1024 + i], 0xA5);
		if (!act)
			continue;
		q = gfx_write_host(hb + 320 * 1024, blocks * r, n, 0, out_row, false);
		gfx_ok(&F, &q);
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++) {
					int32_t bv;
					struct tpu_act_channel ch;
					bool sat;
					int8_t want, got = (int8_t)h[320 * 1024 + ((size_t)b * r + i) * n + j];

					memcpy(&bv, h + (size_t)(bias[b] + 4 * j / n) * step + 4 * j % n, 4);
					ch = (struct tpu_act_channel){ bv, mult[j], shift[j] };
					want = tpu_activate((int32_t)acc[b * r + i][j], &ch, &o2, &sat);
					ck_assert_msg(got == want,
						      "case %d rep %d k=%u r=%u blocks=%u g=%u lut=%d: out "
						      "%u/%u/%u = %d, expected %d", _i, rep, k, r, blocks, g,
						      use_lut, b, i, j, got, want);
				}
		if (wb) {
			ck_assert(!memcmp(h + 320 * 1024, h + 192 * 1024 + 64, (size_t)blocks * r * n));
			for (uint32_t i = 0; i < 64; i++)
				ck_assert_uint_eq(h[192 * 1024 + 64 + blocks * r * n + i], 0xA5);
		} else {
			ck_assert_uint_eq(h[192 * 1024 + 64], 0xA5);
		}
	}
	teardown();
}
END_TEST

/* OP0.PARAMS on a small device (N = 8) with only OUTPUT loaded: ACTIVATE without it is a
 * SEQUENCE_ERROR (MULT/SHIFT not loaded); with it the stream's first 8 rows are MULT and SHIFT:
 * a negative MULT or a SHIFT out of range is INVALID_FIELD with RESULT 0 (and the vector does
 * not count as loaded: the command without PARAMS is still a SEQUENCE_ERROR); valid ones give
 * the outputs of a reference with those values, RESULT counts the 8 rows, and afterwards the
 * command without PARAMS runs with them. */
START_TEST(stream_matmul_params)
{
	const uint32_t n = 8, k = n + 3, r = 3, blocks = 2, per = k + 4, out = 40;
	const uint32_t prows = TPU_STREAM_MATMUL_PARAMS_ROWS, srows = prows + blocks * per;
	int8_t ub[2 * 3][MAXN];
	int32_t mult[MAXN], shift[MAXN];
	struct tpu_act_output o = { -3, -100, 110, NULL, TPU_ROUND_DOUBLE };
	struct golden_config cfg;
	struct gfx_sqe q, qp;
	struct gfx_cqe c;

	setup_small(&cfg);
	for (uint32_t i = 0; i < 2 * r; i++)
		for (uint32_t j = 0; j < n; j++)
			hp[A_OFF + i * n + j] = (uint8_t)(ub[i][j] = rand8());
	q = gfx_read_host(hbuf + A_OFF, 2 * r, n, 0, 0);
	gfx_ok(&F, &q);
	q = gfx_load_output(o.zero_point, o.qmin, o.qmax);
	gfx_ok(&F, &q);
	for (uint32_t i = 0; i < srows * n; i++)
		hp[W_OFF + i] = (uint8_t)rand8();
	for (uint32_t b = 0; b < blocks; b++)
		for (uint32_t j = 0; j < n; j++) {
			int32_t v = (int32_t)harness_range(&rng, -2000, 2000);

			memcpy(hp + W_OFF + (prows + b * per + k) * n + 4 * j, &v, 4);
		}
	for (uint32_t j = 0; j < n; j++) {
		mult[j] = (int32_t)harness_range(&rng, 1 << 29, (1 << 30) - 1);
		shift[j] = (int32_t)harness_range(&rng, -9, -6);
		memcpy(hp + W_OFF + 4 * j, &mult[j], 4);
		memcpy(hp + W_OFF + 4 * n + 4 * j, &shift[j], 4);
	}
	/* the same blocks without PARAMS: the stream from row 8 */
	q = sm(hbuf + W_OFF + prows * n, k, n, 0, blocks, 0, r, 8, TPU_STREAM_MATMUL_ACTIVATE);
	GFX_SET(&q, OP3, out);
	qp = sm(hbuf + W_OFF, k, n, 0, blocks, 0, r, 8,
		TPU_STREAM_MATMUL_ACTIVATE | TPU_STREAM_MATMUL_PARAMS);
	GFX_SET(&qp, LENGTH, srows * n);
	GFX_SET(&qp, OP3, out);
	ck_assert_uint_eq(gfx_exec(&F, &q, NULL), TPU_SC_SEQUENCE_ERROR);
	/* a negative MULT (channel 3), then a SHIFT above the range (channel 5) */
	for (int bad = 0; bad < 2; bad++) {
		int32_t v = bad ? TPU_SHIFT_MAX + 1 : -1;

		memcpy(hp + W_OFF + (bad ? 4 * n + 20 : 12), &v, 4);
		ck_assert_uint_eq(gfx_exec(&F, &qp, &c), TPU_SC_INVALID_FIELD);
		ck_assert_uint_eq(c.result, 0);
		ck_assert_uint_eq(gfx_exec(&F, &q, NULL), TPU_SC_SEQUENCE_ERROR);
		memcpy(hp + W_OFF + (bad ? 4 * n + 20 : 12), bad ? &shift[5] : &mult[3], 4);
	}
	ck_assert_uint_eq(gfx_ok(&F, &qp), srows * n);
	for (int pass = 0; pass < 2; pass++) {
		struct gfx_sqe wh = gfx_write_host(hbuf + OUT_OFF, blocks * r, n, 0, out, false);

		memset(hp + OUT_OFF, 0, blocks * r * n);
		gfx_ok(&F, &wh);
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < r; i++)
				for (uint32_t j = 0; j < n; j++) {
					uint32_t sum = 0;
					int32_t bv;
					struct tpu_act_channel ch;
					bool sat;
					int8_t want;

					for (uint32_t kk = 0; kk < k; kk++)
						sum += (uint32_t)((int32_t)ub[kk / n * r + i][kk % n] *
								  (int8_t)hp[W_OFF + (prows + b * per + kk) * n + j]);
					memcpy(&bv, hp + W_OFF + (prows + b * per + k) * n + 4 * j, 4);
					ch = (struct tpu_act_channel){ bv, mult[j], shift[j] };
					want = tpu_activate((int32_t)sum, &ch, &o, &sat);
					ck_assert_msg((int8_t)hp[OUT_OFF + (b * r + i) * n + j] == want,
						      "pass %d out %u/%u/%u = %d, expected %d", pass, b, i, j,
						      (int8_t)hp[OUT_OFF + (b * r + i) * n + j], want);
				}
		if (!pass) /* now without PARAMS: MULT and SHIFT are loaded */
			ck_assert_uint_eq(gfx_ok(&F, &q), blocks * per * n);
	}
	teardown();
}
END_TEST

static Suite *build_on(const char *name, enum gfx_backend be, void (*use)(void))
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("stream_matmul");
	struct golden_config c;

	tcase_add_checked_fixture(tc, use, NULL);
	tcase_add_loop_test(tc, stream_matmul_random, 0, 2);
	tcase_add_loop_test(tc, stream_matmul_activate, 0, 2);
	tcase_add_loop_test(tc, stream_matmul_activate_overlap, 0, 6);
	tcase_add_loop_test(tc, stream_matmul_astream, 0, 4);
	tcase_add_loop_test(tc, stream_matmul_astream_after_matmul, 0, 2);
	tcase_add_loop_test(tc, stream_matmul_wfirst, 0, 2);
	tcase_add_loop_test(tc, stream_matmul_write_back, 0, 4);
	tcase_add_loop_test(tc, stream_matmul_kmajor, 0, 6);
	gfx_config_small(&c);
	if (gfx_backend_has(be, &c)) {
		tcase_add_test(tc, stream_matmul_params); /* (the small device) */
		tcase_add_test(tc, stream_matmul_checks);
		tcase_add_loop_test(tc, stream_matmul_fault, 0, 3);
		tcase_add_loop_test(tc, stream_matmul_astream_fault, 0, 3);
		tcase_add_test(tc, stream_matmul_write_back_window);
	}
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *build(const char *name, enum gfx_backend be)
{
	return build_on(name, be, be == GFX_SIM ? gfx_use_sim : gfx_use_golden);
}

TPU_TEST_SUITE(suite_golden_stream_matmul)
static Suite *suite_golden_stream_matmul(void)
{
	return build("golden_stream_matmul", GFX_GOLDEN);
}

TPU_TEST_SUITE(suite_sim_stream_matmul)
static Suite *suite_sim_stream_matmul(void)
{
	return build("sim_stream_matmul", GFX_SIM);
}

/* The same tests on a golden device with the bf16 mode: its UB rows are 2N bytes, which the
 * stream's A rows, ACTIVATE output and write-back must not notice (spec 6.12). */
TPU_TEST_SUITE(suite_golden_stream_matmul_bf16dev)
static Suite *suite_golden_stream_matmul_bf16dev(void)
{
	return build_on("golden_stream_matmul_bf16dev", GFX_GOLDEN, gfx_use_golden_bf16);
}
