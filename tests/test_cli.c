/* The `tpu` binary end to end (path from $TPU_CLI, which `make test-c` sets): help at every
 * level, every kind of bad input giving a non-zero exit and exactly one line on stderr that
 * names the file or option, and successful matmuls whose OUT.npy is compared with the naive
 * reference (sw/cli/reference.c, independent of the driver and the golden model). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_fixture.h"
#include "harness.h"
#include "cli/npy.h"
#include "cli/reference.h"

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

/* Exit code != 0, nothing on stdout, one line on stderr starting "tpu" and containing want1 and
 * want2. */
static void expect_fail(const struct cli_run *r, const char *want1, const char *want2)
{
	cli_expect_fail(r, -1, "tpu", want1, want2);
}

/* Standard inputs: A 2 x 5, B 5 x 4, bias 4, multiplier/shift 4, LUT 256. */
struct inputs {
	const char *a, *b, *bias, *mult, *shift, *lut, *out;
};

static void std_inputs(struct cli_dir *f, struct inputs *in)
{
	static const int8_t a[10] = {1, -2, 3, -4, 5, 6, -7, 8, -9, 10};
	static const int8_t b[20] = {1,	 2,  3,	 4,  5,	 6,  7,	 8,  9,	 10,
				     11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	static const int32_t bias[4] = {100, -100, 0, 7};
	static const int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
	static const int32_t shift[4] = {-1, -2, 0, 1};
	int8_t lut[256];
	for (int i = 0; i < 256; i++)
		lut[i] = (int8_t)(127 - i);
	in->a = save(f, "A.npy", NPY_INT8, 2, 2, 5, a);
	in->b = save(f, "B.npy", NPY_INT8, 2, 5, 4, b);
	in->bias = save(f, "bias.npy", NPY_INT32, 1, 4, 1, bias);
	in->mult = save(f, "M.npy", NPY_INT32, 1, 4, 1, mult);
	in->shift = save(f, "S.npy", NPY_INT32, 1, 4, 1, shift);
	in->lut = save(f, "L.npy", NPY_INT8, 1, 256, 1, lut);
	in->out = cli_dir_path(f, "OUT.npy");
}

/* ---------------------------------------------------------------- help and usage */

START_TEST(help_everywhere)
{
	struct cli_dir f;
	struct cli_run r;
	cli_dir_init(&f, "cli");
	static const char *const sub[] = {"info", "matmul", "selftest"};
	CLI_RUN(&r, "--help");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "usage: tpu"));
	CLI_RUN(&r, "-h");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "matmul"));
	for (int i = 0; i < 3; i++) {
		char want[64];
		snprintf(want, sizeof(want), "usage: tpu %s", sub[i]);
		CLI_RUN(&r, sub[i], "--help");
		cli_expect_ok(&r);
		ck_assert_msg(strstr(r.out, want), "%s --help: '%s'", sub[i], r.out);
		CLI_RUN(&r, sub[i], "-h");
		cli_expect_ok(&r);
		ck_assert_msg(strstr(r.out, want), "%s -h: '%s'", sub[i], r.out);
		CLI_RUN(&r, "help", sub[i]);
		cli_expect_ok(&r);
		ck_assert_msg(strstr(r.out, want), "help %s: '%s'", sub[i], r.out);
	}
	CLI_RUN(&r, "--version");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "tpu "));
	cli_dir_fini(&f);
}
END_TEST

START_TEST(usage_errors)
{
	struct cli_dir f;
	struct cli_run r;
	cli_dir_init(&f, "cli");
	CLI_RUN(&r, "--device", "golden");
	expect_fail(&r, "no command", NULL);
	CLI_RUN(&r, "frobnicate");
	expect_fail(&r, "unknown command 'frobnicate'", NULL);
	CLI_RUN(&r, "--frob", "info");
	expect_fail(&r, "unknown option '--frob'", NULL);
	CLI_RUN(&r, "matmul", "--frob");
	expect_fail(&r, "tpu matmul:", "unknown option '--frob'");
	CLI_RUN(&r, "info", "-x");
	expect_fail(&r, "tpu info:", "unknown option '-x'");
	CLI_RUN(&r, "info", "extra");
	expect_fail(&r, "unexpected argument 'extra'", NULL);
	CLI_RUN(&r, "info", "--device");
	expect_fail(&r, "'--device' needs a value", NULL);
	CLI_RUN(&r, "selftest", "--seed", "many");
	expect_fail(&r, "--seed 'many'", NULL);
	CLI_RUN(&r, "selftest", "--quick=yes");
	expect_fail(&r, "'--quick' takes no value", NULL);
	CLI_RUN(&r, "--device", "nosuchbackend", "info");
	expect_fail(&r, "tpu info:", "nosuchbackend");
	CLI_RUN(&r, "info", "--device", "golden:n=3");
	expect_fail(&r, "tpu info:", "golden:n=3");
	cli_dir_fini(&f);
}
END_TEST

/* ---------------------------------------------------------------- matmul input errors */

START_TEST(matmul_file_errors)
{
	struct cli_dir f;
	struct cli_run r;
	struct inputs in;
	cli_dir_init(&f, "cli");
	std_inputs(&f, &in);
	const char *missing = cli_dir_path(&f, "missing.npy");
	CLI_RUN(&r, "matmul", missing, in.b, "-o", in.out);
	expect_fail(&r, missing, "cannot open");
	CLI_RUN(&r, "matmul", in.a, missing, "-o", in.out);
	expect_fail(&r, missing, "cannot open");
	CLI_RUN(&r, "matmul", in.a, "-o", in.out);
	expect_fail(&r, "missing B.npy", NULL);
	CLI_RUN(&r, "matmul", in.a, in.b);
	expect_fail(&r, "-o OUT.npy", NULL);
	CLI_RUN(&r, "matmul", in.a, in.b, in.b, "-o", in.out);
	expect_fail(&r, "unexpected argument", NULL);

	const char *junk = cli_dir_path(&f, "junk.npy");
	FILE *fp = fopen(junk, "wb");
	ck_assert_ptr_nonnull(fp);
	fputs("this is not numpy\n", fp);
	fclose(fp);
	CLI_RUN(&r, "matmul", junk, in.b, "-o", in.out);
	expect_fail(&r, junk, "bad magic");

	const char *outdir = cli_dir_path(&f, "nodir/OUT.npy");
	CLI_RUN(&r, "matmul", in.a, in.b, "-o", outdir);
	expect_fail(&r, outdir, "cannot create");
	ck_assert_int_ne(access(in.out, F_OK), 0); /* nothing written on failure */
	cli_dir_fini(&f);
}
END_TEST

START_TEST(matmul_shape_and_dtype_errors)
{
	struct cli_dir f;
	struct cli_run r;
	struct inputs in;
	cli_dir_init(&f, "cli");
	std_inputs(&f, &in);
	static const int8_t b34[12] = {0};
	static const int32_t a_i32[10] = {0};
	const char *b_bad = save(&f, "B34.npy", NPY_INT8, 2, 3, 4, b34);
	CLI_RUN(&r, "matmul", in.a, b_bad, "-o", in.out);
	char want[600];
	snprintf(want, sizeof(want),
		 "tpu matmul: %s: shape (3, 4) does not fit %s (2, 5): rows of B must equal "
		 "columns of A (5)\n",
		 b_bad, in.a);
	expect_fail(&r, want, NULL);

	const char *a32 = save(&f, "A32.npy", NPY_INT32, 2, 2, 5, a_i32);
	CLI_RUN(&r, "matmul", a32, in.b, "-o", in.out);
	expect_fail(&r, a32, "dtype int32 ('<i4'), but A must be int8 ('|i1')");

	const char *a1 = save(&f, "A1.npy", NPY_INT8, 1, 10, 1, b34);
	CLI_RUN(&r, "matmul", a1, in.b, "-o", in.out);
	expect_fail(&r, a1, "(10,) is 1-D; expected 2-D");

	const char *a0 = save(&f, "A0.npy", NPY_INT8, 2, 0, 5, b34);
	CLI_RUN(&r, "matmul", a0, in.b, "-o", in.out);
	expect_fail(&r, a0, "empty");

	static const int32_t bias3[3] = {0};
	const char *bias3p = save(&f, "bias3.npy", NPY_INT32, 1, 3, 1, bias3);
	CLI_RUN(&r, "matmul", in.a, in.b, "-o", in.out, "--bias", bias3p);
	expect_fail(&r, bias3p, "bias length 3, expected N = 4");

	CLI_RUN(&r, "matmul", in.a, in.b, "-o", in.out, "--bias", in.lut);
	expect_fail(&r, in.lut, "dtype int8 ('|i1'), but --bias must be int32");
	cli_dir_fini(&f);
}
END_TEST

START_TEST(matmul_quant_errors)
{
	struct cli_dir f;
	struct cli_run r;
	struct inputs in;
	cli_dir_init(&f, "cli");
	std_inputs(&f, &in);
	static const int32_t neg[4] = {5, -1, 0, 0};
	static const int32_t sh31[4] = {0, 31, 0, 0};
	static const int32_t shm32[1] = {-32};
	static const int32_t two[2] = {1, 1};
	static const int8_t lut255[255] = {0};
	static const int32_t lut_i32[256] = {0};
	const char *mneg = save(&f, "mneg.npy", NPY_INT32, 1, 4, 1, neg);
	const char *s31 = save(&f, "s31.npy", NPY_INT32, 1, 4, 1, sh31);
	const char *sm32 = save(&f, "sm32.npy", NPY_INT32, 1, 1, 1, shm32);
	const char *m2 = save(&f, "m2.npy", NPY_INT32, 1, 2, 1, two);
	const char *l255 = save(&f, "l255.npy", NPY_INT8, 1, 255, 1, lut255);
	const char *l32 = save(&f, "l32.npy", NPY_INT32, 1, 256, 1, lut_i32);
#define MM(...) CLI_RUN(&r, "matmul", in.a, in.b, "-o", in.out, __VA_ARGS__)
	MM("--multiplier", mneg, "--shift", in.shift);
	expect_fail(&r, mneg, "multiplier[1] = -1 outside 0..2147483647");
	MM("--multiplier", in.mult, "--shift", s31);
	expect_fail(&r, s31, "shift[1] = 31 outside -31..30");
	MM("--multiplier", in.mult, "--shift", sm32);
	expect_fail(&r, sm32, "shift[0] = -32 outside -31..30");
	MM("--multiplier", m2, "--shift", in.shift);
	expect_fail(&r, m2, "multiplier length 2, expected 1 (per tensor) or N = 4");
	MM("--multiplier", in.mult);
	expect_fail(&r, "--multiplier needs --shift", NULL);
	MM("--shift", in.shift);
	expect_fail(&r, "--shift needs --multiplier", NULL);
	MM("--lut", in.lut);
	expect_fail(&r, "--lut", "needs --multiplier");
	MM("--clamp", "0,10");
	expect_fail(&r, "--clamp", "needs --multiplier");
	MM("--out-zero-point", "3");
	expect_fail(&r, "--out-zero-point", "needs --multiplier");
	MM("--multiplier", in.mult, "--shift", in.shift, "--clamp", "5");
	expect_fail(&r, "--clamp '5': expected MIN,MAX", NULL);
	MM("--multiplier", in.mult, "--shift", in.shift, "--clamp", "9,1");
	expect_fail(&r, "--clamp '9,1': MIN 9 is above MAX 1", NULL);
	MM("--multiplier", in.mult, "--shift", in.shift, "--clamp", "0,300");
	expect_fail(&r, "--clamp '0,300': MAX 300 outside -128..127", NULL);
	MM("--multiplier", in.mult, "--shift", in.shift, "--clamp", "x,3");
	expect_fail(&r, "--clamp 'x,3': MIN 'x' is not an integer", NULL);
	MM("--multiplier", in.mult, "--shift", in.shift, "--clamp", "1,2,3");
	expect_fail(&r, "--clamp '1,2,3'", NULL);
	MM("--in-zero-point", "200");
	expect_fail(&r, "--in-zero-point '200': outside -128..127", NULL);
	MM("--in-zero-point", "one");
	expect_fail(&r, "--in-zero-point 'one': not an integer", NULL);
	MM("--multiplier", in.mult, "--shift", in.shift, "--out-zero-point", "-129");
	expect_fail(&r, "--out-zero-point '-129': outside -128..127", NULL);
	MM("--multiplier", in.mult, "--shift", in.shift, "--lut", l255);
	expect_fail(&r, l255, "LUT length 255, expected 256");
	MM("--multiplier", in.mult, "--shift", in.shift, "--lut", l32);
	expect_fail(&r, l32, "but --lut must be int8");
#undef MM
	ck_assert_int_ne(access(in.out, F_OK), 0);
	cli_dir_fini(&f);
}
END_TEST

/* ---------------------------------------------------------------- successful runs */

static void *load_out(const char *p, enum npy_dtype dt, size_t m, size_t n, struct npy_array *o)
{
	char err[256];
	ck_assert_msg(npy_load(p, NPY_RANK2, o, err, sizeof(err)) == 0, "%s: %s", p, err);
	ck_assert_int_eq(o->dtype, dt);
	ck_assert_uint_eq(o->shape[0], m);
	ck_assert_uint_eq(o->shape[1], n);
	return o->data;
}

START_TEST(matmul_raw_matches_reference)
{
	struct cli_dir f;
	struct cli_run r;
	cli_dir_init(&f, "cli");
	uint64_t st = harness_seed() ^ 0x524157;
	enum { M = 5, K = 37, N = 19 };
	int8_t a[M * K], b[K * N];
	int32_t bias[N], want[M * N];
	for (int i = 0; i < M * K; i++)
		a[i] = (int8_t)harness_range(&st, -128, 127);
	for (int i = 0; i < K * N; i++)
		b[i] = (int8_t)harness_range(&st, -128, 127);
	for (int j = 0; j < N; j++)
		bias[j] = (int32_t)harness_range(&st, -100000, 100000);
	const char *pa = save(&f, "A.npy", NPY_INT8, 2, M, K, a);
	const char *pb = save(&f, "B.npy", NPY_INT8, 2, K, N, b);
	const char *pbias = save(&f, "bias.npy", NPY_INT32, 1, N, 1, bias);
	const char *out = cli_dir_path(&f, "OUT.npy");

	struct tpu_gemm_params p = {
	    .in_zero_point = -17, .bias = bias, .clamp_min = -128, .clamp_max = 127};
	ck_assert_int_eq(ref_gemm(M, K, N, a, b, &p, want), 0);
	CLI_RUN(&r, "--device", "golden:n=8", "matmul", pa, pb, "-o", out, "--bias", pbias,
		"--in-zero-point", "-17");
	cli_expect_ok(&r);
	struct npy_array o;
	ck_assert_mem_eq(load_out(out, NPY_INT32, M, N, &o), want, sizeof(want));
	npy_free(&o);

	/* plain A x B, default device */
	p.in_zero_point = 0;
	p.bias = NULL;
	ck_assert_int_eq(ref_gemm(M, K, N, a, b, &p, want), 0);
	CLI_RUN(&r, "matmul", pa, pb, "--output", out);
	cli_expect_ok(&r);
	ck_assert_mem_eq(load_out(out, NPY_INT32, M, N, &o), want, sizeof(want));
	npy_free(&o);
	cli_dir_fini(&f);
}
END_TEST

START_TEST(matmul_requant_lut_matches_reference)
{
	struct cli_dir f;
	struct cli_run r;
	cli_dir_init(&f, "cli");
	uint64_t st = harness_seed() ^ 0x515541;
	enum { M = 9, K = 21, N = 11 };
	int8_t a[M * K], b[K * N], lut[256], want[M * N];
	int32_t bias[N], mult[N], shift[N];
	for (int i = 0; i < M * K; i++)
		a[i] = (int8_t)harness_range(&st, -128, 127);
	for (int i = 0; i < K * N; i++)
		b[i] = (int8_t)harness_range(&st, -128, 127);
	for (int j = 0; j < N; j++) {
		bias[j] = (int32_t)harness_range(&st, -5000, 5000);
		mult[j] = (int32_t)harness_range(&st, 1 << 30, INT32_MAX);
		shift[j] = (int32_t)harness_range(&st, -12, -6);
	}
	shift[0] = 30; /* saturates */
	shift[1] = -31;
	mult[2] = 0;
	for (int i = 0; i < 256; i++)
		lut[i] = (int8_t)harness_range(&st, -128, 127);
	const char *pa = save(&f, "A.npy", NPY_INT8, 2, M, K, a);
	const char *pb = save(&f, "B.npy", NPY_INT8, 2, K, N, b);
	const char *pbias = save(&f, "bias.npy", NPY_INT32, 1, N, 1, bias);
	const char *pm = save(&f, "M.npy", NPY_INT32, 1, N, 1, mult);
	const char *ps = save(&f, "S.npy", NPY_INT32, 1, N, 1, shift);
	const char *pl = save(&f, "L.npy", NPY_INT8, 1, 256, 1, lut);
	const char *out = cli_dir_path(&f, "OUT.npy");

	struct tpu_gemm_params p = {.in_zero_point = 5,
				    .bias = bias,
				    .quant_channels = N,
				    .multiplier = mult,
				    .shift = shift,
				    .out_zero_point = -3,
				    .clamp_min = -100,
				    .clamp_max = 90,
				    .lut = lut};
	ck_assert_int_eq(ref_gemm(M, K, N, a, b, &p, want), 0);
	CLI_RUN(&r, "matmul", pa, pb, "-o", out, "--bias", pbias, "--multiplier", pm, "--shift", ps,
		"--in-zero-point", "5", "--out-zero-point", "-3", "--clamp", "-100,90", "--lut", pl,
		"--device", "golden:n=4");
	cli_expect_ok(&r);
	struct npy_array o;
	ck_assert_mem_eq(load_out(out, NPY_INT8, M, N, &o), want, sizeof(want));
	npy_free(&o);

	/* per-tensor multiplier with per-channel shifts, no LUT */
	const char *pm1 = save(&f, "M1.npy", NPY_INT32, 1, 1, 1, &mult[5]);
	int32_t mult_b[N];
	for (int j = 0; j < N; j++)
		mult_b[j] = mult[5];
	p.multiplier = mult_b;
	p.lut = NULL;
	p.clamp_min = -128;
	p.clamp_max = 127;
	ck_assert_int_eq(ref_gemm(M, K, N, a, b, &p, want), 0);
	CLI_RUN(&r, "matmul", pa, pb, "-o", out, "--bias", pbias, "--multiplier", pm1, "--shift",
		ps, "--in-zero-point", "5", "--out-zero-point", "-3");
	cli_expect_ok(&r);
	ck_assert_mem_eq(load_out(out, NPY_INT8, M, N, &o), want, sizeof(want));
	npy_free(&o);
	cli_dir_fini(&f);
}
END_TEST

/* The "array N" line of `tpu info`. */
static long info_n(const char *out)
{
	const char *line = strstr(out, "array N");
	ck_assert_msg(line != NULL, "no 'array N' in '%s'", out);
	return strtol(line + strlen("array N"), NULL, 10);
}

START_TEST(info_reports_configuration)
{
	struct cli_dir f;
	struct cli_run r;
	cli_dir_init(&f, "cli");
	CLI_RUN(&r, "--device", "golden:n=8", "info");
	cli_expect_ok(&r);
	ck_assert_int_eq(info_n(r.out), 8);
	ck_assert_ptr_nonnull(strstr(r.out, "0x31555054"));
	ck_assert_ptr_nonnull(strstr(r.out, "golden"));
	ck_assert_ptr_nonnull(strstr(r.out, "131071"));
	ck_assert_ptr_nonnull(strstr(r.out, "0x3ff (STREAM_MATMUL implemented)"));
	CLI_RUN(&r, "info", "--device", "golden:n=32,ub_rows=512");
	cli_expect_ok(&r);
	ck_assert_int_eq(info_n(r.out), 32);
	ck_assert_ptr_nonnull(strstr(r.out, "512"));
	setenv("TPU_DEVICE", "golden:n=4", 1);
	CLI_RUN(&r, "info");
	unsetenv("TPU_DEVICE");
	cli_expect_ok(&r);
	ck_assert_int_eq(info_n(r.out), 4);
	cli_dir_fini(&f);
}
END_TEST

START_TEST(selftest_quick_passes)
{
	struct cli_dir f;
	struct cli_run r;
	cli_dir_init(&f, "cli");
	CLI_RUN(&r, "selftest", "--quick", "--device", "golden:n=4", "--seed", "7");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "selftest: PASS"), "%s", r.out);
	ck_assert_ptr_null(strstr(r.out, "FAIL"));
	cli_dir_fini(&f);
}
END_TEST

START_TEST(cli_not_set)
{
	printf("test_cli: TPU_CLI is not set; skipping the CLI tests (make test-c sets it)\n");
}
END_TEST

TPU_TEST_SUITE(suite_cli)
static Suite *suite_cli(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");
	const char *cli = getenv("TPU_CLI");
	if (!cli || !*cli) {
		tcase_add_test(tc, cli_not_set);
		suite_add_tcase(s, tc);
		return s;
	}
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, help_everywhere);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, matmul_file_errors);
	tcase_add_test(tc, matmul_shape_and_dtype_errors);
	tcase_add_test(tc, matmul_quant_errors);
	tcase_add_test(tc, matmul_raw_matches_reference);
	tcase_add_test(tc, matmul_requant_lut_matches_reference);
	tcase_add_test(tc, info_reports_configuration);
	tcase_add_test(tc, selftest_quick_passes);
	suite_add_tcase(s, tc);
	return s;
}
