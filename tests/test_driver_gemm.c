/* Driver: tpu_gemm on the golden backend against a naive reference written here (int64 sums,
 * exact requantization), over random shapes that exercise tile edges, M chunks, K streaming,
 * and the parameter checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_ref.h"
#include "harness.h"
#include "sim_model.h"
#include "tpu/tpu.h"

static void check_case(tpu_dev *dev, struct gcase *g, const char *uri)
{
	size_t esz = g->p.quant_channels ? 1 : 4, len = g->m * g->n * esz;
	uint8_t *got = malloc(len), *want = malloc(len);
	int err;

	ck_assert(got && want);
	memset(got, 0x5A, len);
	gemm_ref_plain(g->m, g->k, g->n, g->a, g->b, &g->p, want);
	err = tpu_gemm(dev, g->m, g->k, g->n, g->a, g->b, &g->p, got);
	ck_assert_msg(err == 0, "%s m=%zu k=%zu n=%zu: %s (%s)", uri, g->m, g->k, g->n,
		      tpu_strerror(err), tpu_gemm_last_error(dev));
	for (size_t i = 0; i < len; i += esz)
		if (memcmp(got + i, want + i, esz) != 0)
			ck_abort_msg("%s m=%zu k=%zu n=%zu q=%zu lut=%d round=%d: element %zu "
				     "differs", uri, g->m, g->k, g->n, g->p.quant_channels,
				     g->p.lut != NULL, (int)g->p.round, i / esz);
	free(got);
	free(want);
}

static void random_cases(const char *uri, unsigned cases, size_t max_m, size_t max_k,
			 size_t max_n, uint64_t salt)
{
	uint64_t seed = harness_seed() ^ salt;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	for (unsigned c = 0; c < cases; c++) {
		struct gcase g;
		size_t m = (size_t)harness_range(&seed, 1, (int64_t)max_m);
		size_t k = (size_t)harness_range(&seed, 1, (int64_t)max_k);
		size_t n = (size_t)harness_range(&seed, 1, (int64_t)max_n);
		gemm_ref_make_case(&seed, &g, m, k, n, (int)(c & 1));
		check_case(dev, &g, uri);
		gemm_ref_free_case(&g);
		ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}

START_TEST(gemm_random_n4)
{
	/* UB 64 / ACC 32 rows: M splits into chunks */
	random_cases("golden:n=4,ub_rows=64,acc_rows=32,fifo_tiles=2,mem=2M", 40, 90, 21, 19, 4);
}
END_TEST

START_TEST(gemm_random_n8)
{
	random_cases("golden:n=8,ub_rows=64,acc_rows=32,fifo_tiles=3,qdepth=16,mem=2M", 30, 100,
		     40, 35, 8);
}
END_TEST

START_TEST(gemm_random_n16)
{
	random_cases("golden:n=16,ub_rows=128,acc_rows=64,mem=4M", 20, 150, 70, 70, 16);
}
END_TEST

/* The same random GEMMs on the Verilated device (small shapes: it simulates every cycle). */
START_TEST(gemm_random_sim)
{
	static const uint32_t ns[2] = { 8, 16 };
	char uri[96];

	if (!tpu_sim_model_find(ns[_i], 0))
		return;
	snprintf(uri, sizeof(uri), "sim:n=%u,latency=10,qdepth=64,mem=2M", ns[_i]);
	random_cases(uri, _i ? 2 : 6, 40, 30, 30, 0x51u + _i);
}
END_TEST

/* Small M (<= 64): tpu_gemm's stream schedule (STREAM_MATMUL; fused bias + ACTIVATE for
 * per-tensor int8 output, A's K-tiles in the first command's stream), with column tiles split
 * over several commands where the ACC holds fewer (acc_rows / M), narrow last column tiles and K not a multiple of N; golden and sim
 * against the naive reference. */
START_TEST(gemm_small_m_stream)
{
	static const uint32_t ns[2] = { 8, 16 };
	char uri[96];

	if (_i < 3) {
		static const char *const g[3] = {
			"golden:n=4,ub_rows=64,acc_rows=32,fifo_tiles=2,mem=2M",
			"golden:n=8,ub_rows=256,acc_rows=64,fifo_tiles=3,mem=2M",
			"golden:n=16,ub_rows=256,acc_rows=128,mem=4M",
		};
		random_cases(g[_i], 30, 64, 70, 90, 0x5173u + _i);
		return;
	}
	if (!tpu_sim_model_find(ns[_i - 3], 0))
		return;
	snprintf(uri, sizeof(uri), "sim:n=%u,latency=10,qdepth=64,mem=2M", ns[_i - 3]);
	random_cases(uri, _i == 3 ? 6 : 3, 16, 40, 60, 0x5180u + _i);
}
END_TEST

/* Regression: with the default link, a stream schedule whose K ends in a partial
 * K-tile read that tile's zero padding rows from the weight ring in the cycle the stream wrote
 * the same slot (an RTL assertion, found by `tpu selftest` 1x19x33). Directed shapes with
 * partial last K-tiles, A in the stream, on the default sim link. */
START_TEST(gemm_stream_partial_k_tile_sim)
{
	static const uint32_t ns[2] = { 8, 16 };
	static const size_t shapes[][3] = { { 1, 19, 33 }, { 3, 19, 33 }, { 1, 35, 17 },
					    { 5, 21, 40 } };
	uint64_t seed = harness_seed() ^ 0x19;
	char uri[64];
	tpu_dev *dev;

	if (!tpu_sim_model_find(ns[_i], 0))
		return;
	snprintf(uri, sizeof(uri), "sim:n=%u", ns[_i]);
	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		for (int q8 = 0; q8 < 2; q8++) {
			struct gcase g;
			gemm_ref_make_case(&seed, &g, shapes[s][0], shapes[s][1], shapes[s][2], q8);
			check_case(dev, &g, uri);
			gemm_ref_free_case(&g);
		}
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* Per-tensor int8 GEMMs of the given shapes (the fused stream commands) on the golden device
 * golden_fmt (with %u for N; _i = 0, 1: N = 8, 16) or on sim (_i = 2, 3) against the naive
 * reference; max_cmds > 0: the device ran at most that many commands per GEMM (PERF_CMDS). */
static void fused_shapes(int i, const char *golden_fmt, const size_t (*shapes)[3], size_t count,
			 uint64_t seed, uint32_t max_cmds)
{
	static const uint32_t ns[2] = { 8, 16 };
	char uri[96];
	tpu_dev *dev;

	if (i < 2) {
		snprintf(uri, sizeof(uri), golden_fmt, ns[i]);
	} else {
		if (!tpu_sim_model_find(ns[i - 2], 0))
			return;
		snprintf(uri, sizeof(uri), "sim:n=%u", ns[i - 2]);
	}
	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	for (size_t s = 0; s < count; s++) {
		struct tpu_perf perf;
		struct gcase g;

		gemm_ref_make_case(&seed, &g, shapes[s][0], shapes[s][1], shapes[s][2], 1);
		g.p.quant_channels = 1; /* per tensor: the fused commands */
		g.p.b_zp_channels = 0;  /* (B zero points take the raw, host-corrected path) */
		ck_assert_int_eq(tpu_perf_clear(dev), 0);
		check_case(dev, &g, uri);
		ck_assert_int_eq(tpu_perf_read(dev, &perf), 0);
		ck_assert_msg(!max_cmds || perf.commands <= max_cmds,
			      "%zux%zux%zu on %s: %u commands", shapes[s][0], shapes[s][1],
			      shapes[s][2], uri, (unsigned)perf.commands);
		gemm_ref_free_case(&g);
		ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}

/* The stream schedule's first STREAM_MATMUL holds kg column panels interleaved
 * K-tile by K-tile with A (OP0.K_MAJOR, K_GROUP = kg: 2 at 48..64 rows, 3 at 32 with N = 16;
 * at N = 8 also 2 at 32 rows, 3 at 16), the other panels block by block: per-tensor int8
 * output (the fused commands), K not a multiple of N (a partial last K-tile), N not a
 * multiple of N (a narrow last panel), with and without the LUT, panels split over two
 * commands (acc_rows / M); golden (_i = 0, 1) and sim on the default link (_i = 2, 3) against
 * the naive reference. */
START_TEST(gemm_stream_kmajor)
{
	static const size_t shapes[][3] = { { 64, 40, 48 }, { 48, 35, 70 }, { 32, 64, 64 },
					    { 16, 24, 40 }, { 60, 33, 16 * 9 } };

	fused_shapes(_i, _i ? "golden:n=%u,ub_rows=1024,acc_rows=512,mem=4M"
			    : "golden:n=%u,ub_rows=1024,acc_rows=256,mem=4M",
		     shapes, sizeof(shapes) / sizeof(shapes[0]), harness_seed() ^ 0x1011u, 0);
}
END_TEST

/* With int8 output and per-tensor quantization the fused stream schedule serves
 * any M that fits one chunk (not only M <= 64): M above 64, K and N not multiples of N, a
 * narrow last panel, with and without the LUT; golden (_i = 0, 1) and sim on the default link
 * (_i = 2, 3) against the naive reference. The device's command count shows the stream
 * schedule ran (a handful of commands, where the grouped schedule issues one per tile). */
START_TEST(gemm_stream_large_m)
{
	static const size_t shapes[][3] = { { 128, 128, 128 }, { 100, 100, 100 }, { 200, 40, 48 },
					    { 96, 35, 70 }, { 130, 33, 16 * 3 }, { 256, 16, 32 } };

	fused_shapes(_i, "golden:n=%u,mem=8M", shapes, sizeof(shapes) / sizeof(shapes[0]),
		     harness_seed() ^ 0x1012u, 8);
}
END_TEST

/* The chunk pipeline (driver/gemm/gemm_pipeline.c): int8 GEMMs whose A does not fit one
 * chunk of the grouped schedule, with few column tiles, go in chunks of at most 128 rows (the
 * first 256) with two A regions, each chunk's A read during the chunk before, the last K-tile
 * of A zero-padded to N bytes. Shapes with several chunks, short last chunks (701 = 256 + 3 x
 * 112 + 109, 900 = 256 + 5 x 108 + 104, 600 = 256 + 2 x 115 + 114), K and N not multiples of
 * N, per-tensor and per-channel quantization, with and without the LUT; golden (_i = 0, 1)
 * and sim on the default link (_i = 2, 3) against the naive reference. */
START_TEST(gemm_chunk_pipeline)
{
	static const uint32_t ns[2] = { 8, 16 };
	static const size_t shapes[2][2][3] = { { { 701, 160, 60 }, { 900, 150, 16 } },
						{ { 600, 250, 40 }, { 520, 256, 32 } } };
	uint64_t seed = harness_seed() ^ 0x1101u;
	uint32_t N = ns[_i % 2];
	char uri[64];
	tpu_dev *dev;

	if (_i >= 2 && !tpu_sim_model_find(N, 0))
		return;
	snprintf(uri, sizeof(uri), _i < 2 ? "golden:n=%u,mem=8M" : "sim:n=%u", N);
	ck_assert_int_eq(tpu_open(uri, &dev), 0);
	for (size_t s = 0; s < 2; s++) {
		for (int q = 0; q < 2; q++) {
			const size_t *sh = shapes[_i % 2][s];
			struct gcase g;

			gemm_ref_make_case(&seed, &g, sh[0], sh[1], sh[2], 1);
			g.p.quant_channels = q ? sh[2] : 1; /* per channel, per tensor */
			g.p.lut = (s + (size_t)q) % 2 ? g.lut : NULL;
			check_case(dev, &g, uri);
			gemm_ref_free_case(&g);
			ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
		}
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(gemm_k_streams_through_small_ub)
{
	/* K = 70 is 18 tiles of 4: more than the 16 UB rows hold at once */
	uint64_t seed = harness_seed() ^ 0x57;
	tpu_dev *dev;

	ck_assert_int_eq(tpu_open("golden:n=4,ub_rows=16,acc_rows=16,fifo_tiles=1,mem=2M", &dev),
			 0);
	for (int q8 = 0; q8 < 2; q8++) {
		struct gcase g;
		gemm_ref_make_case(&seed, &g, 37, 70, 9, q8);
		check_case(dev, &g, "n=4,ub_rows=16");
		gemm_ref_free_case(&g);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(gemm_edges_and_defaults)
{
	uint64_t seed = harness_seed() ^ 0xED;
	tpu_dev *dev;
	static const size_t shapes[][3] = { { 1, 1, 1 }, { 1, 8, 8 }, { 8, 8, 8 }, { 9, 9, 9 },
					    { 1, 17, 1 }, { 33, 1, 17 }, { 7, 16, 15 } };

	ck_assert_int_eq(tpu_open("golden:n=8,ub_rows=64,acc_rows=32,mem=2M", &dev), 0);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		for (int q8 = 0; q8 < 2; q8++) {
			struct gcase g;
			gemm_ref_make_case(&seed, &g, shapes[s][0], shapes[s][1], shapes[s][2], q8);
			check_case(dev, &g, "edges");
			gemm_ref_free_case(&g);
		}
	}
	/* p == NULL: raw, no bias, zero points 0 */
	{
		int8_t a[6] = { 1, -2, 3, 127, -128, 5 }, b[6] = { -128, 2, 3, -4, 127, 6 };
		int32_t out[4], want[4];
		struct tpu_gemm_params p;
		tpu_gemm_params_init(&p);
		gemm_ref_plain(2, 3, 2, a, b, &p, want);
		ck_assert_int_eq(tpu_gemm(dev, 2, 3, 2, a, b, NULL, out), 0);
		ck_assert_int_eq(memcmp(out, want, sizeof(out)), 0);
		ck_assert_int_eq(want[0], 1 * -128 + -2 * 3 + 3 * 127);
		ck_assert_str_eq(tpu_gemm_last_error(dev), "");
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(gemm_after_stray_weight_tiles)
{
	/* a tile left in the FIFO by the caller must not be used by the GEMM */
	uint64_t seed = harness_seed() ^ 0xF1F0;
	tpu_dev *dev;
	tpu_buf *w;
	struct tpu_cmd c[2];
	struct gcase g;

	ck_assert_int_eq(tpu_open("golden:n=4,fifo_tiles=2,mem=1M", &dev), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, 16, &w), 0);
	memset(tpu_buf_ptr(w), 0x7F, 16);
	ck_assert_int_eq(tpu_cmd_load_weights(&c[0], w, 0, 0, 4, 4, 0), 0);
	ck_assert_int_eq(tpu_cmd_load_weights(&c[1], w, 0, 0, 4, 4, 0), 0);
	ck_assert_int_eq(tpu_run(dev, c, 2, NULL, 1000), 0);
	gemm_ref_make_case(&seed, &g, 5, 6, 7, 0);
	check_case(dev, &g, "stray tiles");
	gemm_ref_free_case(&g);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(gemm_perf_counts_exact_macs)
{
	uint64_t seed = harness_seed() ^ 0x9E4F;
	tpu_dev *dev;
	struct tpu_perf pf;

	ck_assert_int_eq(tpu_open("golden:n=8,ub_rows=64,acc_rows=32,mem=2M", &dev), 0);
	for (int q8 = 0; q8 < 2; q8++) {
		struct gcase g;
		gemm_ref_make_case(&seed, &g, 45, 19, 13, q8);
		g.p.b_zp_channels = 0; /* the device's own output bytes */
		ck_assert_int_eq(tpu_perf_clear(dev), 0);
		check_case(dev, &g, "perf");
		ck_assert_int_eq(tpu_perf_read(dev, &pf), 0);
		ck_assert_uint_eq(pf.macs, 45u * 19u * 13u);
		ck_assert_uint_eq(pf.dma_write_bytes, 45u * 13u * (q8 ? 1u : 4u));
		ck_assert_uint_eq(pf.errors, 0);
		ck_assert_uint_gt(pf.commands, 0);
		gemm_ref_free_case(&g);
	}
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* ------------------------------------------------------------------ errors */

static void expect_reject(tpu_dev *dev, const struct tpu_gemm_params *p, size_t n,
			  const char *field)
{
	int8_t a[64] = { 0 }, b[64] = { 0 };
	int32_t out[64];

	ck_assert_int_eq(tpu_gemm(dev, 2, 3, n, a, b, p, out), -EINVAL);
	ck_assert_msg(strstr(tpu_gemm_last_error(dev), field) != NULL,
		      "message '%s' does not name '%s'", tpu_gemm_last_error(dev), field);
}

START_TEST(gemm_rejects_bad_params)
{
	tpu_dev *dev;
	struct tpu_gemm_params p;
	int32_t mult[5] = { 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30 };
	int32_t shift[5] = { 0, 0, 0, 0, 0 };
	int8_t a[8] = { 0 }, lut[256] = { 0 };
	int32_t out[8];

	ck_assert_int_eq(tpu_open("golden:n=4,mem=1M", &dev), 0);
	tpu_gemm_params_init(&p);
	p.quant_channels = 5;
	p.multiplier = mult;
	p.shift = shift;

	mult[2] = -1;
	expect_reject(dev, &p, 5, "multiplier[2]");
	mult[2] = 1 << 30;
	shift[4] = 31;
	expect_reject(dev, &p, 5, "shift[4]");
	shift[4] = -32;
	expect_reject(dev, &p, 5, "shift[4]");
	shift[4] = 0;
	p.clamp_min = 10;
	p.clamp_max = 9;
	expect_reject(dev, &p, 5, "clamp_min");
	p.clamp_min = -128;
	p.clamp_max = 128;
	expect_reject(dev, &p, 5, "clamp_max");
	p.clamp_max = 127;
	p.in_zero_point = 200;
	expect_reject(dev, &p, 5, "in_zero_point");
	p.in_zero_point = 0;
	p.out_zero_point = -129;
	expect_reject(dev, &p, 5, "out_zero_point");
	p.out_zero_point = 0;
	p.quant_channels = 3;
	expect_reject(dev, &p, 5, "quant_channels");
	p.quant_channels = 1;
	p.multiplier = NULL;
	expect_reject(dev, &p, 5, "multiplier");
	p.multiplier = mult;
	p.shift = NULL;
	expect_reject(dev, &p, 5, "shift");
	p.shift = shift;
	p.quant_channels = 0;
	p.lut = lut;
	expect_reject(dev, &p, 5, "lut");
	p.lut = NULL;
	p.round = (enum tpu_round)3;
	expect_reject(dev, &p, 5, "round");
	p.round = TPU_ROUND_FLOAT;
	/* the parameters are fine now */
	ck_assert_int_eq(tpu_gemm(dev, 1, 1, 5, a, a, &p, out), 0);
	ck_assert_str_eq(tpu_gemm_last_error(dev), "");

	ck_assert_int_eq(tpu_gemm(dev, 0, 1, 1, a, a, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_gemm_last_error(dev), "m"));
	ck_assert_int_eq(tpu_gemm(dev, 1, 0, 1, a, a, NULL, out), -EINVAL);
	ck_assert_int_eq(tpu_gemm(dev, 1, 1, 0, a, a, NULL, out), -EINVAL);
	ck_assert_int_eq(tpu_gemm(dev, 1, 1, 1, NULL, a, NULL, out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(tpu_gemm_last_error(dev), "a"));
	ck_assert_int_eq(tpu_gemm(dev, 1, 1, 1, a, NULL, NULL, out), -EINVAL);
	ck_assert_int_eq(tpu_gemm(dev, 1, 1, 1, a, a, NULL, NULL), -EINVAL);
	ck_assert_int_eq(tpu_gemm(NULL, 1, 1, 1, a, a, NULL, out), -EINVAL);
	/* too large for host memory: rejected before any allocation */
	ck_assert_int_eq(tpu_gemm(dev, SIZE_MAX / 2, 3, 3, a, a, NULL, out), -EINVAL);
	/* too large for the arena */
	{
		int8_t *big = calloc(1, 1u << 20);
		ck_assert_ptr_nonnull(big);
		ck_assert_int_eq(tpu_gemm(dev, 1024, 1024, 1, big, big, NULL, big), -ENOMEM);
		free(big);
	}
	ck_assert_int_eq(tpu_close(dev), 0);

	/* a device without FEATURES.ROUND (the serial activation of small FPGA builds) */
	ck_assert_int_eq(tpu_open("golden:n=4,mem=1M,round=0", &dev), 0);
	p.quant_channels = 1;
	p.round = TPU_ROUND_SINGLE;
	ck_assert_int_eq(tpu_gemm(dev, 1, 1, 5, a, a, &p, out), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(tpu_gemm_last_error(dev), "FEATURES.ROUND"));
	p.round = TPU_ROUND_DOUBLE;
	ck_assert_int_eq(tpu_gemm(dev, 1, 1, 5, a, a, &p, out), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(gemm_device_errors_and_busy)
{
	tpu_dev *dev;
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	int8_t a[16] = { 1 }, b[16] = { 1 };
	int32_t out[16];

	ck_assert_int_eq(tpu_open("golden:n=4,mem=1M", &dev), 0);
	/* no window: the first DMA fails and the GEMM says so; nothing is left behind */
	ck_assert_int_eq(tpu_window_set(dev, 0, 0, 0, 0), 0);
	for (int i = 0; i < 50; i++)
		ck_assert_int_eq(tpu_gemm(dev, 4, 4, 4, a, b, NULL, out),
				 TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_uint_eq(tpu_outstanding(dev, 0), 0);
	ck_assert_str_eq(tpu_gemm_last_error(dev), "");
	ck_assert_int_eq(tpu_reset(dev), 0);
	ck_assert_int_eq(tpu_gemm(dev, 4, 4, 4, a, b, NULL, out),
			 TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	/* restore the window: works again */
	{
		tpu_buf *probe;
		ck_assert_int_eq(tpu_buf_alloc(dev, 64, &probe), 0);
		ck_assert_int_eq(tpu_window_set(dev, 0, tpu_buf_iova(probe) & ~0xFFFFFull,
						 1u << 20, TPU_WIN_R | TPU_WIN_W),
				 0);
		ck_assert_int_eq(tpu_buf_free(probe), 0);
	}
	ck_assert_int_eq(tpu_gemm(dev, 4, 4, 4, a, b, NULL, out), 0);
	ck_assert_int_eq(out[0], 1);
	/* an outstanding command of the caller: the GEMM does not steal the device */
	ck_assert_int_eq(tpu_cmd_nop(&c), 0);
	ck_assert_int_eq(tpu_submit(dev, 1, &c, 1), 1);
	ck_assert_int_eq(tpu_gemm(dev, 4, 4, 4, a, b, NULL, out), -EBUSY);
	ck_assert_int_eq(tpu_wait(dev, 1, &cpl, 1, 1, 1000), 1);
	ck_assert_int_eq(tpu_gemm(dev, 4, 4, 4, a, b, NULL, out), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

TPU_TEST_SUITE(suite_driver_gemm)
static Suite *suite_driver_gemm(void)
{
	Suite *s = suite_create("driver_gemm");
	TCase *tc = tcase_create("gemm");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, gemm_random_n4);
	tcase_add_test(tc, gemm_random_n8);
	tcase_add_test(tc, gemm_random_n16);
	tcase_add_loop_test(tc, gemm_random_sim, 0, 2);
	tcase_add_loop_test(tc, gemm_small_m_stream, 0, 5);
	tcase_add_loop_test(tc, gemm_stream_partial_k_tile_sim, 0, 2);
	tcase_add_loop_test(tc, gemm_stream_kmajor, 0, 4);
	tcase_add_loop_test(tc, gemm_stream_large_m, 0, 4);
	tcase_add_loop_test(tc, gemm_chunk_pipeline, 0, 4);
	tcase_add_test(tc, gemm_k_streams_through_small_ub);
	tcase_add_test(tc, gemm_edges_and_defaults);
	tcase_add_test(tc, gemm_after_stray_weight_tiles);
	tcase_add_test(tc, gemm_perf_counts_exact_macs);
	tcase_add_test(tc, gemm_rejects_bad_params);
	tcase_add_test(tc, gemm_device_errors_and_busy);
	suite_add_tcase(s, tc);
	return s;
}
