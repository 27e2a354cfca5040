/* The `tpu` binary's bf16 mode end to end (path from $TPU_CLI): `tpu matmul --dtype bf16` with
 * float32 and uint16 (bf16 bits) inputs and an fp32 bias, its OUT.npy compared bit for bit with
 * tpu_bf16_dot_tiled in the device's tile order; its input errors (a dtype it does not take,
 * named with the file; the int8-only options); an int8-only device; `tpu bench gemm --dtype
 * bf16` (table and JSON with the dtype); the same OUT bits from the Verilated bf16 device; `tpu selftest` covering bf16 on golden:bf16=1 and
 * saying it skipped bf16 on the int8 golden device; `tpu info`'s features line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fixture.h"
#include "harness.h"
#include "sim_model.h"
#include "cli/npy.h"
#include "tpu/bf16.h"

static const char *save(struct cli_dir *f, const char *name, enum npy_dtype dt, unsigned rank,
			size_t rows, size_t cols, const void *data)
{
	const char *p = cli_dir_path(f, name);
	struct npy_array a = {.dtype = dt, .rank = rank, .shape = {rows, rank == 2 ? cols : 1}};
	a.count = a.shape[0] * a.shape[1];
	a.data = (void *)(uintptr_t)data;
	char err[256];
	ck_assert_msg(npy_save(p, &a, 0, err, sizeof(err)) == 0, "%s", err);
	return p;
}

enum { M = 5, K = 37, N = 19, ARRAY = 8 };

/* The expected OUT of A (m x k bf16) x B (k x n bf16) + bias (fp32 bits or NULL) on an array of
 * ARRAY. */
static void expect_out(const uint16_t *a, const uint16_t *b, const uint32_t *bias, uint32_t *want)
{
	uint16_t col[K];

	for (size_t j = 0; j < N; j++) {
		for (size_t kk = 0; kk < K; kk++)
			col[kk] = b[kk * N + j];
		for (size_t i = 0; i < M; i++) {
			uint32_t s = tpu_bf16_dot_tiled(a + i * K, col, K, ARRAY, 0, false);
			want[i * N + j] = bias ? tpu_f32_add(s, bias[j]) : s;
		}
	}
}

static void check_out(const char *p, const uint32_t *want)
{
	struct npy_array o;
	char err[256];

	ck_assert_msg(npy_load(p, NPY_RANK2, &o, err, sizeof(err)) == 0, "%s: %s", p, err);
	ck_assert_int_eq(o.dtype, NPY_FLOAT32);
	ck_assert_uint_eq(o.shape[0], M);
	ck_assert_uint_eq(o.shape[1], N);
	for (size_t i = 0; i < M * N; i++)
		ck_assert_msg(((const uint32_t *)o.data)[i] == want[i], "OUT[%zu] = 0x%08x, want 0x%08x",
			      i, ((const uint32_t *)o.data)[i], want[i]);
	npy_free(&o);
}

START_TEST(matmul_bf16_matches_tile_order)
{
	struct cli_dir f;
	struct cli_run r;
	uint64_t st = harness_seed() ^ 0xB16u;
	float af[M * K], biasf[N];
	uint16_t a[M * K], b[K * N];
	uint32_t bias[N], want[M * N];

	cli_dir_init(&f, "clibf");
	for (size_t i = 0; i < M * K; i++) {
		/* float32 with bits below bf16's: the CLI rounds them (to nearest even) */
		af[i] = (float)harness_range(&st, -100000, 100000) / 4096.0f;
		a[i] = tpu_f32_to_bf16(tpu_f32_from_float(af[i]));
	}
	for (size_t i = 0; i < K * N; i++)
		b[i] = (uint16_t)((harness_rand(&st) & 0x807Fu) |
				  (uint16_t)harness_range(&st, 120, 134) << 7);
	b[3] = 0x7FC1; /* a NaN (non-canonical) in B's bits: column 3 is NaN */
	for (size_t j = 0; j < N; j++) {
		biasf[j] = (float)harness_range(&st, -1000, 1000) / 7.0f;
		bias[j] = tpu_f32_from_float(biasf[j]);
	}
	const char *pa = save(&f, "A.npy", NPY_FLOAT32, 2, M, K, af);
	const char *pa16 = save(&f, "A16.npy", NPY_UINT16, 2, M, K, a);
	const char *pb = save(&f, "B.npy", NPY_UINT16, 2, K, N, b);
	const char *pbias = save(&f, "bias.npy", NPY_FLOAT32, 1, N, 1, biasf);
	const char *out = cli_dir_path(&f, "OUT.npy");

	/* float32 A (rounded), bf16-bit B */
	expect_out(a, b, NULL, want);
	ck_assert_uint_eq(want[3], TPU_F32_CANONICAL_NAN);
	CLI_RUN(&r, "--device", "golden:bf16=1,n=8", "matmul", "--dtype", "bf16", pa, pb, "-o", out);
	cli_expect_ok(&r);
	check_out(out, want);
	/* the same A as bf16 bits: the same bits out; with the fp32 bias */
	expect_out(a, b, bias, want);
	CLI_RUN(&r, "matmul", pa16, pb, "-o", out, "--dtype", "bf16", "--bias", pbias, "--device",
		"golden:bf16=1,n=8");
	cli_expect_ok(&r);
	check_out(out, want);
	/* the Verilated bf16 device (N = 8): the same bits */
	if (tpu_sim_model_find(ARRAY, 1)) {
		CLI_RUN(&r, "matmul", pa, pb, "-o", out, "--dtype", "bf16", "--bias", pbias,
			"--device", "sim:bf16=1");
		cli_expect_ok(&r);
		check_out(out, want);
	}
	cli_dir_fini(&f);
}
END_TEST

START_TEST(matmul_bf16_errors)
{
	struct cli_dir f;
	struct cli_run r;
	static const int8_t a8[2 * 3] = {1, 2, 3, 4, 5, 6};
	static const int32_t a32[2 * 3] = {1, 2, 3, 4, 5, 6};
	static const int32_t bias32[2] = {1, 2};
	static const float a_f[2 * 3] = {1, 2, 3, 4, 5, 6}, b_f[3 * 2] = {1, 0, 0, 1, 1, 1};

	cli_dir_init(&f, "clibf");
	const char *pa = save(&f, "A.npy", NPY_FLOAT32, 2, 2, 3, a_f);
	const char *pb = save(&f, "B.npy", NPY_FLOAT32, 2, 3, 2, b_f);
	const char *pa8 = save(&f, "A8.npy", NPY_INT8, 2, 2, 3, a8);
	const char *pa32 = save(&f, "A32.npy", NPY_INT32, 2, 2, 3, a32);
	const char *pbias32 = save(&f, "bias32.npy", NPY_INT32, 1, 2, 1, bias32);
	const char *out = cli_dir_path(&f, "OUT.npy");
	const char *dev = "golden:bf16=1,n=4";

	CLI_RUN(&r, "--device", dev, "matmul", "--dtype", "bf16", pa8, pb, "-o", out);
	cli_expect_fail(&r, 2, "tpu matmul:", pa8, "dtype int8 ('|i1'), but A must be float32");
	ck_assert_ptr_nonnull(strstr(r.err, "uint16 ('<u2'"));
	CLI_RUN(&r, "--device", dev, "matmul", "--dtype", "bf16", pa, pa32, "-o", out);
	cli_expect_fail(&r, 2, "tpu matmul:", pa32, "dtype int32 ('<i4'), but B must be float32");
	CLI_RUN(&r, "--device", dev, "matmul", "--dtype", "bf16", pa, pb, "-o", out, "--bias",
		pbias32);
	cli_expect_fail(&r, 2, "tpu matmul:", pbias32, "float32");
	CLI_RUN(&r, "--device", dev, "matmul", "--dtype", "fp8", pa, pb, "-o", out);
	cli_expect_fail(&r, 2, "tpu matmul:", "--dtype 'fp8'", "int8 or bf16");
	CLI_RUN(&r, "--device", dev, "matmul", "--dtype", "bf16", pa, pb, "-o", out,
		"--in-zero-point", "3");
	cli_expect_fail(&r, 2, "tpu matmul:", "--in-zero-point", "--dtype int8 only");
	CLI_RUN(&r, "--device", dev, "matmul", "--dtype", "bf16", pa, pb, "-o", out, "--clamp",
		"0,5");
	cli_expect_fail(&r, 2, "tpu matmul:", "--clamp", "--dtype int8 only");
	/* float32 without --dtype bf16 stays an int8 error */
	CLI_RUN(&r, "--device", dev, "matmul", pa, pb, "-o", out);
	cli_expect_fail(&r, 2, "tpu matmul:", pa, "must be int8");
	/* an int8-only device: a device failure naming the missing mode, no output */
	CLI_RUN(&r, "--device", "golden:n=4", "matmul", "--dtype", "bf16", pa, pb, "-o", out);
	cli_expect_fail(&r, 1, "tpu matmul:", "bf16 GEMM", "FEATURES.BF16");
	{
		FILE *o = fopen(out, "rb");
		ck_assert_ptr_null(o);
	}
	/* and it works: [[1 2 3] [4 5 6]] x [[1 0] [0 1] [1 1]] = [[4 5] [10 11]] */
	CLI_RUN(&r, "--device", dev, "matmul", "--dtype", "bf16", pa, pb, "-o", out);
	cli_expect_ok(&r);
	{
		struct npy_array o;
		char err[256];
		const float want[4] = {4, 5, 10, 11};
		ck_assert_int_eq(npy_load(out, NPY_RANK2, &o, err, sizeof(err)), 0);
		ck_assert_int_eq(o.dtype, NPY_FLOAT32);
		ck_assert_mem_eq(o.data, want, sizeof(want));
		npy_free(&o);
	}
	cli_dir_fini(&f);
}
END_TEST

START_TEST(bench_gemm_bf16)
{
	struct cli_dir f;
	struct cli_run r;

	cli_dir_init(&f, "clibf");
	CLI_RUN(&r, "bench", "gemm", "--m", "20", "--k", "37", "--n", "19", "--dtype", "bf16",
		"--device", "golden:bf16=1,n=8");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "bf16 x bf16, fp32 output"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "matches the reference"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "utilization"), "%s", r.out);
	CLI_RUN(&r, "bench", "gemm", "--m", "20", "--k", "37", "--n", "19", "--dtype", "bf16",
		"--json", "--device", "golden:bf16=1,n=8");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "\"dtype\": \"bf16\", \"output\": \"fp32\""), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"correct\": true"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"macs\": 14060"), "%s", r.out); /* 20 x 37 x 19 */
	/* (bf16 A, B: 2 bytes an element) */
	ck_assert_msg(strstr(r.out, "\"dma_read_bytes\": 2886"), "%s", r.out);
	CLI_RUN(&r, "bench", "gemm", "--m", "4", "--k", "4", "--n", "4", "--json", "--device",
		"golden:n=8");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "\"dtype\": \"int8\", \"output\": \"int8\""), "%s", r.out);
	CLI_RUN(&r, "bench", "gemm", "--m", "4", "--k", "4", "--n", "4", "--dtype", "bf16",
		"--device", "golden:n=8");
	cli_expect_fail(&r, 1, "tpu bench:", "bf16", "int8 only");
	CLI_RUN(&r, "bench", "gemm", "--m", "4", "--k", "4", "--n", "4", "--dtype", "bf16", "--raw",
		"--device", "golden:bf16=1");
	cli_expect_fail(&r, 2, "tpu bench:", "--raw", "int8 only");
	cli_dir_fini(&f);
}
END_TEST

START_TEST(selftest_bf16)
{
	struct cli_dir f;
	struct cli_run r;

	cli_dir_init(&f, "clibf");
	CLI_RUN(&r, "selftest", "--quick", "--device", "golden:bf16=1,n=4", "--seed", "5");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "bf16 bias acc"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "selftest: bf16: 9 of 9"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "selftest: PASS: 27 of 27"), "%s", r.out);
	ck_assert_ptr_null(strstr(r.out, "FAIL"));
	CLI_RUN(&r, "selftest", "--quick", "--device", "golden:n=4", "--seed", "5");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "selftest: bf16 skipped"), "%s", r.out);
	ck_assert_ptr_null(strstr(r.out, "bf16 bias acc"));
	ck_assert_msg(strstr(r.out, "selftest: PASS: 18 of 18"), "%s", r.out);
	cli_dir_fini(&f);
}
END_TEST

START_TEST(info_reports_bf16)
{
	struct cli_dir f;
	struct cli_run r;

	cli_dir_init(&f, "clibf");
	CLI_RUN(&r, "info", "--device", "golden:bf16=1");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "0x3 (bf16 implemented"), "%s", r.out);
	CLI_RUN(&r, "info", "--device", "golden");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "0x2 (bf16 not implemented: int8 only; requantization rounding double, single or float)"), "%s", r.out);
	cli_dir_fini(&f);
}
END_TEST

START_TEST(cli_not_set)
{
	printf("test_cli_bf16: TPU_CLI is not set; skipping the CLI tests (make test-c sets it)\n");
}
END_TEST

TPU_TEST_SUITE(suite_cli_bf16)
static Suite *suite_cli_bf16(void)
{
	Suite *s = suite_create("cli_bf16");
	TCase *tc = tcase_create("cli_bf16");
	const char *cli = getenv("TPU_CLI");
	if (!cli || !*cli) {
		tcase_add_test(tc, cli_not_set);
		suite_add_tcase(s, tc);
		return s;
	}
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, matmul_bf16_matches_tile_order);
	tcase_add_test(tc, matmul_bf16_errors);
	tcase_add_test(tc, bench_gemm_bf16);
	tcase_add_test(tc, selftest_bf16);
	tcase_add_test(tc, info_reports_bf16);
	suite_add_tcase(s, tc);
	return s;
}
