/* `tpu bench` end to end (the binary from $TPU_CLI, which `make test-c` sets): the JSON object's
 * fields against what the shape implies (MACs, output bytes, per-layer MXU rows of a small
 * model built here), --quantized, the table, help, and every bad argument giving exit 2 (or 1 for a
 * device failure) and one line on stderr naming the field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/npy.h"
#include "cli_fixture.h"
#include "harness.h"
#include "sim_model.h"
#include "tpu/model.h"
#include "tpu/numerics.h"

/* Exit code want, nothing on stdout, one line on stderr naming field. */
static void expect_fail(const struct cli_run *r, int want, const char *field)
{
	cli_expect_fail(r, want, "tpu bench: ", field, NULL);
}

/* The number after "\"key\": " in a one-object JSON line. */
static double json_num(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	ck_assert_msg(p != NULL, "no '%s' in %s", key, json);
	return strtod(p + strlen(pat), NULL);
}

START_TEST(bench_gemm_json_fields)
{
	struct cli_run r;
	static const char *const keys[] = {"m",
					   "k",
					   "n",
					   "array",
					   "cycles",
					   "mxu_busy_cycles",
					   "macs",
					   "utilization",
					   "dma_read_bytes",
					   "dma_write_bytes",
					   "wall_seconds",
					   "sim_cycles_per_second"};

	CLI_RUN(&r, "bench", "gemm", "--m", "37", "--k", "21", "--n", "13", "--json", "--device",
		"golden:n=8", "--seed", "5");
	cli_expect_ok(&r);
	ck_assert_msg(r.out[0] == '{' && strchr(r.out, '\n') == r.out + strlen(r.out) - 1 &&
			  r.out[strlen(r.out) - 2] == '}',
		      "not one JSON object on one line: '%s'", r.out);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		(void)json_num(r.out, keys[i]);
	ck_assert_int_eq((int)json_num(r.out, "m"), 37);
	ck_assert_int_eq((int)json_num(r.out, "k"), 21);
	ck_assert_int_eq((int)json_num(r.out, "n"), 13);
	ck_assert_int_eq((int)json_num(r.out, "array"), 8);
	ck_assert_int_eq((long)json_num(r.out, "macs"), 37 * 21 * 13);
	ck_assert_int_eq((long)json_num(r.out, "dma_write_bytes"), 37 * 13);
	/* A and B are read at least once each */
	ck_assert_int_ge((long)json_num(r.out, "dma_read_bytes"), 37 * 21 + 21 * 13);
	{
		double u = json_num(r.out, "utilization");
		double want = 37.0 * 21 * 13 / (64.0 * json_num(r.out, "cycles"));
		ck_assert_msg(u > 0 && u <= 1 && u - want < 1e-5 && want - u < 1e-5,
			      "utilization %f, want %f", u, want);
	}
	ck_assert_ptr_nonnull(strstr(r.out, "\"correct\": true"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"output\": \"int8\""));

	/* raw output: four bytes a value */
	CLI_RUN(&r, "bench", "gemm", "--m=5", "--k=300", "--n=3", "--raw", "--json", "--device",
		"golden:n=4");
	cli_expect_ok(&r);
	ck_assert_int_eq((long)json_num(r.out, "dma_write_bytes"), 5 * 3 * 4);
	ck_assert_int_eq((long)json_num(r.out, "macs"), 5 * 300 * 3);
	ck_assert_ptr_nonnull(strstr(r.out, "\"output\": \"int32\""));
}
END_TEST

START_TEST(bench_gemm_table_and_seed)
{
	struct cli_run r;
	char first[8192];

	CLI_RUN(&r, "bench", "gemm", "--m", "1", "--k", "1", "--n", "1", "--device", "golden:n=4",
		"--seed", "0x1234");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "utilization"));
	ck_assert_ptr_nonnull(strstr(r.out, "matches the reference"));
	ck_assert_ptr_nonnull(strstr(r.out, "seed 4660"));
	/* the same seed gives the same counters (the golden device is deterministic) */
	CLI_RUN(&r, "bench", "gemm", "--m", "20", "--k", "9", "--n", "30", "--json", "--device",
		"golden:n=4", "--seed", "99");
	cli_expect_ok(&r);
	memcpy(first, r.out, sizeof(first));
	CLI_RUN(&r, "bench", "gemm", "--m", "20", "--k", "9", "--n", "30", "--json", "--device",
		"golden:n=4", "--seed", "99");
	cli_expect_ok(&r);
	ck_assert(json_num(first, "cycles") == json_num(r.out, "cycles"));
	ck_assert(json_num(first, "dma_read_bytes") == json_num(r.out, "dma_read_bytes"));
}
END_TEST

START_TEST(bench_help)
{
	struct cli_run r;

	CLI_RUN(&r, "bench", "--help");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "usage: tpu bench"));
	CLI_RUN(&r, "help", "bench");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "gemm"));
	CLI_RUN(&r, "bench", "gemm", "--help");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "usage: tpu bench gemm"));
	CLI_RUN(&r, "--help");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "bench"));
}
END_TEST

START_TEST(bench_bad_arguments)
{
	struct cli_run r;

	CLI_RUN(&r, "bench");
	expect_fail(&r, 2, "no benchmark");
	CLI_RUN(&r, "bench", "nosuch");
	expect_fail(&r, 2, "nosuch");
	CLI_RUN(&r, "bench", "gemm", "--k", "2", "--n", "2");
	expect_fail(&r, 2, "--m");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--n", "2");
	expect_fail(&r, 2, "--k");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2");
	expect_fail(&r, 2, "--n");
	CLI_RUN(&r, "bench", "gemm", "--m", "0", "--k", "2", "--n", "2");
	expect_fail(&r, 2, "--m");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "65537", "--n", "2");
	expect_fail(&r, 2, "--k");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "x1");
	expect_fail(&r, 2, "--n");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "-3");
	expect_fail(&r, 2, "--n");
	CLI_RUN(&r, "bench", "gemm", "--m", "65536", "--k", "65536", "--n", "2");
	expect_fail(&r, 2, "bytes");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "2", "--seed", "0");
	expect_fail(&r, 2, "--seed");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "2", "--seed", "abc");
	expect_fail(&r, 2, "--seed");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "2", "--bogus");
	expect_fail(&r, 2, "--bogus");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "2", "extra");
	expect_fail(&r, 2, "extra");
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "2", "--json=1");
	expect_fail(&r, 2, "--json");
	CLI_RUN(&r, "bench", "gemm", "--m");
	expect_fail(&r, 2, "--m");
	/* the device: a bad URI, and a GEMM too large for its DMA arena */
	CLI_RUN(&r, "bench", "gemm", "--m", "2", "--k", "2", "--n", "2", "--device", "golden:n=3");
	expect_fail(&r, 2, "golden:n=3"); /* a bad URI is bad usage */
	CLI_RUN(&r, "bench", "gemm", "--m", "2000", "--k", "2000", "--n", "2", "--device",
		"golden:n=4,mem=1M");
	expect_fail(&r, 1, "2000x2000x2");
}
END_TEST

/* ------------------------------------------------------------------ bench model */

struct mfix {
	char dir[64], model[96], data[96], data8[96], one[96], bad[96], junk[96];
};

static void set_quant(struct tpu_layer *l, float in_scale, uint32_t n, float w_scale)
{
	l->w_scale = malloc(n * sizeof(float));
	l->multiplier = malloc(n * 4);
	l->shift = malloc(n * 4);
	l->bias = malloc(n * 4);
	ck_assert(l->w_scale && l->multiplier && l->shift && l->bias);
	for (uint32_t j = 0; j < n; j++) {
		int sh;
		l->w_scale[j] = w_scale;
		l->bias[j] = (int32_t)(j * 37) - 50;
		ck_assert_int_eq(tpu_quantize_multiplier((double)in_scale * (double)w_scale /
							     (double)l->out.scale,
							 &l->multiplier[j], &sh),
				 0);
		l->shift[j] = sh;
	}
}

/* in 6x6x1 -> CONV2D 3x3 pad 1, 4 channels, RELU -> MAXPOOL 2x2/2 -> DENSE 36 -> 5 */
static void make_model_files(struct mfix *f)
{
	struct tpu_model *m = calloc(1, sizeof(*m));
	struct tpu_layer *c, *p, *d;
	char err[256];
	uint64_t seed = harness_seed() ^ 0xBE4C;

	ck_assert_ptr_nonnull(m);
	snprintf(f->dir, sizeof(f->dir), "/tmp/tpu-bench-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->model, sizeof(f->model), "%s/m.tpum", f->dir);
	snprintf(f->data, sizeof(f->data), "%s/x.npy", f->dir);
	snprintf(f->data8, sizeof(f->data8), "%s/x8.npy", f->dir);
	snprintf(f->one, sizeof(f->one), "%s/one.npy", f->dir);
	snprintf(f->bad, sizeof(f->bad), "%s/bad.npy", f->dir);
	snprintf(f->junk, sizeof(f->junk), "%s/junk.tpum", f->dir);
	snprintf(m->name, sizeof(m->name), "bench-test");
	m->in_h = m->in_w = 6;
	m->in_c = 1;
	m->in = (struct tpu_quant){1.0f / 128, -128};
	m->in_range = 16.0f;
	m->num_classes = 5;
	m->float_accuracy = m->int8_accuracy = 0.5f;
	m->n_layers = 3;
	c = &m->layers[0];
	p = &m->layers[1];
	d = &m->layers[2];
	*c = (struct tpu_layer){.type = TPU_LAYER_CONV2D,
				.kernel_h = 3,
				.kernel_w = 3,
				.stride_h = 1,
				.stride_w = 1,
				.pad_top = 1,
				.pad_bottom = 1,
				.pad_left = 1,
				.pad_right = 1,
				.out_c = 4,
				.act = TPU_ACT_RELU,
				.out = {0.05f, -10}};
	c->weights = malloc(9 * 4);
	ck_assert_ptr_nonnull(c->weights);
	for (int i = 0; i < 36; i++)
		c->weights[i] = (int8_t)harness_range(&seed, -127, 127);
	set_quant(c, m->in.scale, 4, 0.01f);
	*p = (struct tpu_layer){.type = TPU_LAYER_MAXPOOL2D,
				.kernel_h = 2,
				.kernel_w = 2,
				.stride_h = 2,
				.stride_w = 2,
				.out = c->out};
	*d = (struct tpu_layer){
	    .type = TPU_LAYER_DENSE, .out_c = 5, .act = TPU_ACT_NONE, .out = {0.1f, 3}};
	d->weights = malloc(36 * 5);
	ck_assert_ptr_nonnull(d->weights);
	for (int i = 0; i < 180; i++)
		d->weights[i] = (int8_t)harness_range(&seed, -127, 127);
	set_quant(d, c->out.scale, 5, 0.02f);
	ck_assert_msg(tpu_model_save(m, f->model, err, sizeof(err)) == 0, "%s", err);
	tpu_model_free(m);

	/* 7 examples of raw float pixels 0..16, the same as int8 NHWC, and a wrong shape */
	{
		float x[7 * 36];
		int8_t q[7 * 36];
		struct npy_array a = {
		    .dtype = NPY_FLOAT32, .rank = 2, .shape = {7, 36}, .count = 7 * 36, .data = x};
		for (int i = 0; i < 7 * 36; i++) {
			x[i] = (float)harness_range(&seed, 0, 16);
			q[i] = (int8_t)harness_range(&seed, -128, 127);
		}
		ck_assert_msg(npy_save(f->data, &a, 0, err, sizeof(err)) == 0, "%s", err);
		a = (struct npy_array){.dtype = NPY_INT8,
				       .rank = 4,
				       .shape = {7, 6, 6, 1},
				       .count = 7 * 36,
				       .data = q};
		ck_assert_msg(npy_save(f->data8, &a, 0, err, sizeof(err)) == 0, "%s", err);
		a = (struct npy_array){
		    .dtype = NPY_FLOAT32, .rank = 1, .shape = {36}, .count = 36, .data = x};
		ck_assert_msg(npy_save(f->one, &a, 0, err, sizeof(err)) == 0, "%s", err);
		a = (struct npy_array){
		    .dtype = NPY_FLOAT32, .rank = 2, .shape = {6, 42}, .count = 6 * 42, .data = x};
		ck_assert_msg(npy_save(f->bad, &a, 0, err, sizeof(err)) == 0, "%s", err);
	}
	{
		FILE *fp = fopen(f->junk, "wb");
		ck_assert_ptr_nonnull(fp);
		fputs("not a model", fp);
		fclose(fp);
	}
}

static void rm_model_files(struct mfix *f)
{
	unlink(f->model);
	unlink(f->data);
	unlink(f->data8);
	unlink(f->one);
	unlink(f->bad);
	unlink(f->junk);
	rmdir(f->dir);
}

/* The number after "\"key\": " in the text of layer i's object ("\"index\": i"). */
static double layer_num(const char *json, int i, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "{\"index\": %d,", i);
	p = strstr(json, pat);
	ck_assert_msg(p != NULL, "no layer %d in %s", i, json);
	return json_num(p, key);
}

START_TEST(bench_model_json)
{
	struct mfix f;
	struct cli_run r;
	const char *bound;

	make_model_files(&f);
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--json", "--device", "golden:n=4");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "\"model\": \"bench-test\""));
	ck_assert_int_eq((int)json_num(r.out, "batch"), 7);
	ck_assert(json_num(r.out, "link_bytes_per_cycle") == 16.0);
	/* conv: M = 7 x 36, K = 9 (3 tiles of 4), N = 4 (1 tile) */
	ck_assert_int_eq((long)layer_num(r.out, 0, "macs"), 7 * 36 * 9 * 4);
	ck_assert_int_eq((long)layer_num(r.out, 0, "compute_bound_cycles"), 7 * 36 * 3);
	ck_assert_int_eq((long)layer_num(r.out, 0, "dma_write_bytes"), 7 * 36 * 4);
	ck_assert_int_eq((long)layer_num(r.out, 0, "m"), 7 * 36);
	/* pool: host, nothing on the device */
	ck_assert_int_eq((long)layer_num(r.out, 1, "cycles"), 0);
	ck_assert_ptr_nonnull(strstr(strstr(r.out, "{\"index\": 1,"), "\"bound\": \"host\""));
	/* dense: M = 7, K = 36 (9 tiles), N = 5 (2 tiles) */
	ck_assert_int_eq((long)layer_num(r.out, 2, "macs"), 7 * 36 * 5);
	ck_assert_int_eq((long)layer_num(r.out, 2, "compute_bound_cycles"), 7 * 9 * 2);
	for (int i = 0; i < 3; i += 2) {
		double rd = layer_num(r.out, i, "dma_read_bytes");
		double wr = layer_num(r.out, i, "dma_write_bytes");
		double link = layer_num(r.out, i, "link_bound_cycles");
		double comp = layer_num(r.out, i, "compute_bound_cycles");
		ck_assert(link == ceil((rd > wr ? rd : wr) / 16.0));
		bound =
		    strstr(strstr(r.out, i ? "{\"index\": 2," : "{\"index\": 0,"), "\"bound\": ");
		ck_assert_ptr_nonnull(bound);
		ck_assert_msg(!strncmp(bound + 9, comp >= link ? "\"compute\"" : "\"link\"",
				       comp >= link ? 9 : 6),
			      "layer %d: %s", i, bound);
		/* a layer cannot beat its own bound */
		ck_assert_msg(layer_num(r.out, i, "cycles") >= comp, "layer %d faster than MXU", i);
	}
	ck_assert_int_eq((long)json_num(strstr(r.out, "\"total\""), "macs"),
			 7 * 36 * 9 * 4 + 7 * 36 * 5);

	/* int8 NHWC data already quantized, first 3 examples, a slower link */
	CLI_RUN(&r, "bench", "model", f.model, f.data8, "--quantized", "--json", "--batch", "3",
		"--link-bpc", "0.5", "--device", "golden:n=4");
	cli_expect_ok(&r);
	ck_assert_int_eq((int)json_num(r.out, "batch"), 3);
	ck_assert_int_eq((long)layer_num(r.out, 2, "macs"), 3 * 36 * 5);
	ck_assert_ptr_nonnull(strstr(strstr(r.out, "{\"index\": 0,"), "\"bound\": \"link\""));
	/* the same int8 values as raw data (quantized as tpu run does), and one example (36,) */
	CLI_RUN(&r, "bench", "model", f.model, f.data8, "--json", "--batch", "2", "--device",
		"golden:n=4");
	cli_expect_ok(&r);
	ck_assert_int_eq((int)json_num(r.out, "batch"), 2);
	CLI_RUN(&r, "bench", "model", f.model, f.one, "--json", "--device", "golden:n=4");
	cli_expect_ok(&r);
	ck_assert_int_eq((int)json_num(r.out, "batch"), 1);
	ck_assert_int_eq((long)layer_num(r.out, 2, "macs"), 36 * 5);

	/* the Verilated device: the same MACs; the link from the URI (8 GB/s at 500 MHz) */
	if (tpu_sim_model_find(8, 0)) {
		CLI_RUN(&r, "bench", "model", f.model, f.data, "--json", "--device",
			"sim:n=8,bw=8,clock=500");
		cli_expect_ok(&r);
		ck_assert(json_num(r.out, "link_bytes_per_cycle") == 16.0);
		ck_assert_int_eq((long)layer_num(r.out, 0, "macs"), 7 * 36 * 9 * 4);
		ck_assert_int_eq((long)layer_num(r.out, 2, "compute_bound_cycles"), 7 * 5 * 1);
	}

	/* the table */
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--device", "golden:n=8");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "CONV2D"));
	ck_assert_ptr_nonnull(strstr(r.out, "MAXPOOL2D"));
	ck_assert_ptr_nonnull(strstr(r.out, "total"));
	rm_model_files(&f);
}
END_TEST

START_TEST(bench_model_bad_arguments)
{
	struct mfix f;
	struct cli_run r;

	make_model_files(&f);
	CLI_RUN(&r, "bench", "model");
	expect_fail(&r, 2, "MODEL");
	CLI_RUN(&r, "bench", "model", f.model);
	expect_fail(&r, 2, "DATA.npy");
	CLI_RUN(&r, "bench", "model", f.model, f.data, "third");
	expect_fail(&r, 2, "third");
	CLI_RUN(&r, "bench", "model", "/nonexistent/m.tpum", f.data);
	expect_fail(&r, 2, "/nonexistent/m.tpum");
	CLI_RUN(&r, "bench", "model", f.junk, f.data);
	expect_fail(&r, 2, f.junk);
	CLI_RUN(&r, "bench", "model", f.model, "/nonexistent/x.npy");
	expect_fail(&r, 2, "/nonexistent/x.npy");
	CLI_RUN(&r, "bench", "model", f.model, f.bad);
	expect_fail(&r, 2, "does not fit model 'bench-test'");
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--quantized");
	expect_fail(&r, 2, "--quantized data must be int8");
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--batch", "8");
	expect_fail(&r, 2, "--batch");
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--batch", "0");
	expect_fail(&r, 2, "--batch");
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--link-bpc", "-1");
	expect_fail(&r, 2, "--link-bpc");
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--link-bpc", "fast");
	expect_fail(&r, 2, "--link-bpc");
	CLI_RUN(&r, "bench", "model", f.model, f.data, "--device", "nosuch");
	expect_fail(&r, 2, "nosuch");
	CLI_RUN(&r, "bench", "model", "--help");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "usage: tpu bench model"));
	rm_model_files(&f);
}
END_TEST

START_TEST(bench_cli_not_set)
{
	printf("test_cli_bench: TPU_CLI is not set; skipping (make test-c sets it)\n");
}
END_TEST

TPU_TEST_SUITE(suite_cli_bench)
static Suite *suite_cli_bench(void)
{
	Suite *s = suite_create("cli_bench");
	TCase *tc = tcase_create("bench");
	const char *cli = getenv("TPU_CLI");

	if (!cli || !*cli) {
		tcase_add_test(tc, bench_cli_not_set);
		suite_add_tcase(s, tc);
		return s;
	}
	unsetenv("TPU_DEVICE");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, bench_gemm_json_fields);
	tcase_add_test(tc, bench_gemm_table_and_seed);
	tcase_add_test(tc, bench_help);
	tcase_add_test(tc, bench_bad_arguments);
	tcase_add_test(tc, bench_model_json);
	tcase_add_test(tc, bench_model_bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}
