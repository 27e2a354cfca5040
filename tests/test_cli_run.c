/* `tpu run` end to end (the binary from $TPU_CLI): bad paths, corrupt models, every kind of bad
 * .npy shape or dtype, each giving one line on stderr that names the file and a usage exit
 * code; successful runs whose predictions (-o) and accuracy are checked against tpu_model_run
 * on the golden device in this process (itself checked against a naive reference in
 * test_model_run.c), the JSON keys, --quantized, and --compare on golden and sim. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/npy.h"
#include "cli_fixture.h"
#include "harness.h"
#include "model_fixture.h"
#include "sim_fixture.h"
#include "tpu/model.h"

struct fix {
	struct cli_dir d;
	struct tpu_model *m;
	const char *model; /* the saved mfx_small model */
};

static const char *path(struct fix *f, const char *name)
{
	return cli_dir_path(&f->d, name);
}

static void fix_init(struct fix *f, uint64_t salt)
{
	cli_dir_init(&f->d, "run");
	uint64_t seed = harness_seed() ^ salt;
	f->m = mfx_small(&seed);
	f->model = path(f, "small.tpum");
	char err[256];
	ck_assert_msg(tpu_model_save(f->m, f->model, err, sizeof(err)) == 0, "%s", err);
}

static void fix_fini(struct fix *f)
{
	cli_dir_fini(&f->d);
	tpu_model_free(f->m);
}

/* Save an array of up to rank 4 (shape dims, the rest 1). */
static const char *save(struct fix *f, const char *name, enum npy_dtype dt, unsigned rank,
			const size_t *dims, const void *data)
{
	const char *p = path(f, name);
	struct npy_array a = {.dtype = dt, .rank = rank, .shape = {1, 1, 1, 1}, .count = 1};
	for (unsigned i = 0; i < rank; i++) {
		a.shape[i] = dims[i];
		a.count *= dims[i];
	}
	a.data = (void *)(uintptr_t)data;
	char err[256];
	ck_assert_msg(npy_save(p, &a, 0, err, sizeof(err)) == 0, "%s", err);
	return p;
}

/* Exit code code, nothing on stdout, one line on stderr containing want1 and want2. */
static void expect_fail(const struct cli_run *r, int code, const char *want1, const char *want2)
{
	cli_expect_fail(r, code, "tpu run: ", want1, want2);
}

/* B raw examples for the 6x6x2 model: float values 0..16 (the model's in_range). */
static float *raw_data(uint64_t *seed, size_t batch)
{
	float *x = malloc(batch * 72 * sizeof(float));
	ck_assert_ptr_nonnull(x);
	for (size_t i = 0; i < batch * 72; i++)
		x[i] = (float)harness_range(seed, 0, 16);
	return x;
}

/* Predictions of f->m on quantized inputs q, by tpu_model_run on golden. */
static void expected_predictions(struct fix *f, const int8_t *q, size_t batch, int32_t *pred)
{
	tpu_dev *dev;
	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	int8_t *out = malloc(batch * f->m->num_classes);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(tpu_model_run(dev, f->m, batch, q, out, NULL), 0);
	for (size_t b = 0; b < batch; b++)
		pred[b] = (int32_t)tpu_argmax_i8(out + b * f->m->num_classes, f->m->num_classes);
	free(out);
	ck_assert_int_eq(tpu_close(dev), 0);
}

static void expect_pred_file(const char *p, const int32_t *want, size_t batch)
{
	struct npy_array a;
	char err[256];
	ck_assert_msg(npy_load(p, NPY_RANK1, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(a.dtype, NPY_INT32);
	ck_assert_uint_eq(a.count, batch);
	for (size_t b = 0; b < batch; b++)
		ck_assert_msg(((int32_t *)a.data)[b] == want[b], "prediction %zu: %d, expected %d",
			      b, ((int32_t *)a.data)[b], want[b]);
	npy_free(&a);
}

/* ------------------------------------------------------------------ tests */

START_TEST(help_and_usage)
{
	struct fix f;
	struct cli_run r;
	fix_init(&f, 1);
	CLI_RUN(&r, "run", "--help");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "usage: tpu run"));
	CLI_RUN(&r, "--help");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "  run "));
	CLI_RUN(&r, "run");
	expect_fail(&r, 2, "missing MODEL and DATA.npy", NULL);
	CLI_RUN(&r, "run", f.model);
	expect_fail(&r, 2, "missing DATA.npy", NULL);
	CLI_RUN(&r, "run", f.model, "a.npy", "b.npy");
	expect_fail(&r, 2, "unexpected argument 'b.npy'", NULL);
	CLI_RUN(&r, "run", "--bogus", f.model, "a.npy");
	expect_fail(&r, 2, "--bogus", NULL);
	fix_fini(&f);
}
END_TEST

START_TEST(bad_paths_and_models)
{
	struct fix f;
	struct cli_run r;
	fix_init(&f, 2);
	uint64_t seed = 2;
	float *x = raw_data(&seed, 3);
	const size_t d4[] = {3, 6, 6, 2};
	const char *data = save(&f, "x.npy", NPY_FLOAT32, 4, d4, x);
	const char *nofile = path(&f, "nope.tpum");
	CLI_RUN(&r, "run", "--device", "golden", nofile, data);
	expect_fail(&r, 2, nofile, "cannot open");
	CLI_RUN(&r, "run", "--device", "golden", f.model, path(&f, "nope.npy"));
	expect_fail(&r, 2, "nope.npy", "cannot open");
	CLI_RUN(&r, "run", "--device", "golden", f.model, data, "--labels", path(&f, "nol.npy"));
	expect_fail(&r, 2, "nol.npy", "cannot open");
	/* a model file cut short, and a .npy given as the model */
	FILE *in = fopen(f.model, "rb");
	ck_assert_ptr_nonnull(in);
	char buf[400];
	size_t n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	const char *cut = path(&f, "cut.tpum");
	FILE *o = fopen(cut, "wb");
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(fwrite(buf, 1, n / 2, o), n / 2);
	fclose(o);
	CLI_RUN(&r, "run", "--device", "golden", cut, data);
	expect_fail(&r, 2, cut, "truncated");
	CLI_RUN(&r, "run", "--device", "golden", data, data);
	expect_fail(&r, 2, "x.npy", "bad magic");
	/* a bad device URI is a device failure */
	CLI_RUN(&r, "run", "--device", "nosuch", f.model, data);
	expect_fail(&r, 2, "device 'nosuch'", NULL);
	free(x);
	fix_fini(&f);
}
END_TEST

START_TEST(bad_npy_shapes_and_dtypes)
{
	struct fix f;
	struct cli_run r;
	fix_init(&f, 3);
	static int8_t zeros[4 * 72];
	const size_t d_bad2[] = {4, 71}, d_bad3[] = {4, 6, 6}, d_bad4[] = {4, 6, 6, 1}, d1[] = {71},
		     d_empty[] = {0, 72}, d_ok[] = {4, 72};
	const char *bad2 = save(&f, "bad2.npy", NPY_INT8, 2, d_bad2, zeros);
	const char *bad3 = save(&f, "bad3.npy", NPY_INT8, 3, d_bad3, zeros);
	const char *bad4 = save(&f, "bad4.npy", NPY_INT8, 4, d_bad4, zeros);
	const char *r1 = save(&f, "r1.npy", NPY_INT8, 1, d1, zeros);
	const char *empty = save(&f, "empty.npy", NPY_INT8, 2, d_empty, zeros);
	const char *ok_u8 = save(&f, "ok.npy", NPY_UINT8, 2, d_ok, zeros);
	const char *g = "golden";
	CLI_RUN(&r, "run", "--device", g, f.model, bad2);
	expect_fail(&r, 2, "bad2.npy: shape (4, 71) does not fit model 'small'",
		    "expected (B, 6, 6, 2) or (B, 72)");
	CLI_RUN(&r, "run", "--device", g, f.model, bad3);
	expect_fail(&r, 2, "bad3.npy: shape (4, 6, 6)", "(B, 6, 6, 2)");
	CLI_RUN(&r, "run", "--device", g, f.model, bad4);
	expect_fail(&r, 2, "bad4.npy: shape (4, 6, 6, 1)", NULL);
	CLI_RUN(&r, "run", "--device", g, f.model, r1);
	expect_fail(&r, 2, "r1.npy: shape (71,) does not fit model 'small'",
		    "(72,) for one example");
	CLI_RUN(&r, "run", "--device", g, f.model, empty);
	expect_fail(&r, 2, "empty.npy: shape (0, 72) holds no examples", NULL);
	CLI_RUN(&r, "run", "--device", g, f.model, ok_u8, "--quantized");
	expect_fail(&r, 2, "ok.npy: dtype uint8", "--quantized data must be int8");
	/* labels: length, dtype, range, rank */
	const size_t l3[] = {3}, l4[] = {4}, l22[] = {2, 2};
	static const int32_t lab_bad[4] = {0, 9, 1, 2};
	static const float lab_f[4] = {0, 1, 2, 3};
	const char *short_l = save(&f, "short.npy", NPY_INT32, 1, l3, lab_bad);
	const char *range_l = save(&f, "range.npy", NPY_INT32, 1, l4, lab_bad);
	const char *float_l = save(&f, "float.npy", NPY_FLOAT32, 1, l4, lab_f);
	const char *rank2_l = save(&f, "rank2.npy", NPY_INT32, 2, l22, lab_bad);
	CLI_RUN(&r, "run", "--device", g, f.model, ok_u8, "--labels", short_l);
	expect_fail(&r, 2, "short.npy: shape (3,), but the data has 4 examples", NULL);
	CLI_RUN(&r, "run", "--device", g, f.model, ok_u8, "--labels", range_l);
	expect_fail(&r, 2, "range.npy: label[1] = 9 outside 0..3", NULL);
	CLI_RUN(&r, "run", "--device", g, f.model, ok_u8, "--labels", float_l);
	expect_fail(&r, 2, "float.npy: dtype float32", "must be integers");
	CLI_RUN(&r, "run", "--device", g, f.model, ok_u8, "--labels", rank2_l);
	expect_fail(&r, 2, "rank2.npy", "expected 1-D");
	/* an output file that cannot be written: the run happens, the save fails */
	CLI_RUN(&r, "run", "--device", g, f.model, ok_u8, "-o", "/nonexistent/dir/p.npy");
	expect_fail(&r, 1, "/nonexistent/dir/p.npy", NULL);
	fix_fini(&f);
}
END_TEST

START_TEST(predictions_accuracy_and_json)
{
	struct fix f;
	struct cli_run r;
	fix_init(&f, 4);
	uint64_t seed = harness_seed() ^ 4;
	size_t batch = 150; /* more than one chunk of 128 */
	float *x = raw_data(&seed, batch);
	int8_t *q = malloc(batch * 72);
	int32_t *want = malloc(batch * sizeof(int32_t)), *labels = malloc(batch * sizeof(int32_t));
	ck_assert(q && want && labels);
	tpu_model_quantize_input(f.m, x, batch * 72, q);
	expected_predictions(&f, q, batch, want);
	/* labels right for every third example only */
	size_t right = 0;
	for (size_t b = 0; b < batch; b++) {
		labels[b] = b % 3 == 0 ? want[b] : (want[b] + 1) % 4;
		right += b % 3 == 0;
	}
	const size_t d4[] = {batch, 6, 6, 2}, d2[] = {batch, 72}, dl[] = {batch};
	const char *data = save(&f, "x.npy", NPY_FLOAT32, 4, d4, x);
	const char *lab = save(&f, "y.npy", NPY_INT32, 1, dl, labels);
	const char *pred = path(&f, "pred.npy");

	CLI_RUN(&r, "run", "--device", "golden", f.model, data, "--labels", lab, "-o", pred);
	cli_expect_ok(&r);
	expect_pred_file(pred, want, batch);
	char line[128];
	snprintf(line, sizeof(line), "(%zu of %zu)", right, batch);
	ck_assert_msg(strstr(r.out, line), "no '%s' in '%s'", line, r.out);
	static const char *const text_keys[] = {
	    "examples",	   "accuracy", "recorded",    "cycles",	   "mxu util",
	    "device time", "images/s", "CONV2D+relu", "MAXPOOL2D", "DENSE+sigmoid"};
	for (size_t i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++)
		ck_assert_msg(strstr(r.out, text_keys[i]), "text lacks '%s'", text_keys[i]);

	/* the same data as (B, 72) already quantized, with JSON */
	const char *qd = save(&f, "q.npy", NPY_INT8, 2, d2, q);
	unlink(pred);
	CLI_RUN(&r, "run", "--device", "golden", f.model, qd, "--quantized", "--json", "-o", pred,
		"--labels", lab, "--compare", "golden:n=4");
	cli_expect_ok(&r);
	expect_pred_file(pred, want, batch);
	size_t len = strlen(r.out);
	ck_assert_msg(r.out[0] == '{' && len > 2 && !strcmp(r.out + len - 2, "}\n") &&
			  !memchr(r.out, '\n', len - 1),
		      "not one JSON line: '%s'", r.out);
	static const char *const json_keys[] = {
	    "\"model\": \"small\"",
	    "\"examples\": 150",
	    "\"accuracy\": ",
	    "\"correct\": ",
	    "\"cycles\": ",
	    "\"mxu_utilization\": ",
	    "\"macs\": ",
	    "\"device_seconds\": ",
	    "\"images_per_second\": ",
	    "\"clock_hz\": 1000000000",
	    "\"recorded_float_accuracy\": ",
	    "\"recorded_int8_accuracy\": ",
	    "\"dma_read_bytes\": ",
	    "\"layers\": [",
	    "\"compare\": {\"device\": \"golden:n=4\", \"predictions_agree\": 150, "
	    "\"prediction_agreement\": 1.000000, \"outputs_identical\": 150, "
	    "\"output_agreement\": 1.000000}",
	    "\"type\": \"MAXPOOL2D\""};
	for (size_t i = 0; i < sizeof(json_keys) / sizeof(json_keys[0]); i++)
		ck_assert_msg(strstr(r.out, json_keys[i]), "JSON lacks '%s': %s", json_keys[i],
			      r.out);
	snprintf(line, sizeof(line), "\"correct\": %zu,", right);
	ck_assert_msg(strstr(r.out, line), "JSON lacks '%s'", line);
	/* one example of shape (72,) */
	const size_t d1[] = {72};
	const char *one = save(&f, "one.npy", NPY_FLOAT32, 1, d1, x);
	unlink(pred);
	CLI_RUN(&r, "run", "--device", "golden", f.model, one, "-o", pred);
	cli_expect_ok(&r);
	expect_pred_file(pred, want, 1);
	/* no labels: accuracy is null; no compare: null */
	CLI_RUN(&r, "run", "--device", "golden", f.model, qd, "--quantized", "--json");
	cli_expect_ok(&r);
	ck_assert_ptr_nonnull(strstr(r.out, "\"accuracy\": null"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"compare\": null"));
	free(x);
	free(q);
	free(want);
	free(labels);
	fix_fini(&f);
}
END_TEST

START_TEST(compare_with_sim)
{
	if (!sim_have(8))
		return;
	struct fix f;
	struct cli_run r;
	fix_init(&f, 5);
	uint64_t seed = harness_seed() ^ 5;
	size_t batch = 6;
	float *x = raw_data(&seed, batch);
	const size_t d4[] = {batch, 6, 6, 2};
	const char *data = save(&f, "x.npy", NPY_FLOAT32, 4, d4, x);
	CLI_RUN(&r, "run", "--device", "sim:n=8,latency=10", f.model, data, "--compare", "golden",
		"--json");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "\"prediction_agreement\": 1.000000") &&
			  strstr(r.out, "\"output_agreement\": 1.000000") &&
			  strstr(r.out, "\"backend\": \"sim\""),
		      "%s", r.out);
	/* a compare device that fails is a failure of the run (exit 1) */
	CLI_RUN(&r, "run", "--device", "golden", f.model, data, "--compare",
		"sim:n=8,latency=10,faults=ur@1");
	ck_assert_int_eq(r.code, 1);
	ck_assert_msg(strstr(r.err, "device 'sim:n=8,latency=10,faults=ur@1'"), "%s", r.err);
	free(x);
	fix_fini(&f);
}
END_TEST

/* A model whose io_layout says NCHW (as `tpu import` writes for an ONNX graph): tpu run takes
 * (B, C, H, W) and the flat C, H, W order, writes --outputs as (B, C, H, W), and equals
 * tpu_model_run on the same data reordered to NHWC; an NHWC-shaped array is refused. */
START_TEST(nchw_input_and_output)
{
	struct fix f;
	struct cli_run r;
	fix_init(&f, 9);
	uint64_t seed = harness_seed() ^ 0x9c;
	/* one CONV2D 3x3, pad 1, 3 output channels */
	const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 3, TPU_ACT_NONE, 0, 0, 0, 0, 0}};
	struct tpu_model *m = mfx_build(&seed, "nchw", 6, 5, 2, spec, 1);
	m->io_layout = TPU_LAYOUT_IN_NCHW | TPU_LAYOUT_OUT_NCHW;
	const char *model = path(&f, "nchw.tpum");
	char err[256];
	ck_assert_msg(tpu_model_save(m, model, err, sizeof(err)) == 0, "%s", err);
	enum { B = 4, H = 6, W = 5, C = 2, OC = 3, PER = H * W * C, OPER = H * W * OC };
	int8_t nhwc[B * PER], nchw[B * PER], out[B * OPER];
	for (size_t i = 0; i < B * PER; i++)
		nhwc[i] = (int8_t)harness_range(&seed, -128, 127);
	for (size_t b = 0; b < B; b++)
		for (size_t p = 0; p < H * W; p++)
			for (size_t c = 0; c < C; c++)
				nchw[b * PER + c * H * W + p] = nhwc[b * PER + p * C + c];
	tpu_dev *dev;
	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	ck_assert_int_eq(tpu_model_run(dev, m, B, nhwc, out, NULL), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
	const size_t d4[] = {B, C, H, W}, d2[] = {B, PER}, dn[] = {B, H, W, C};
	const char *data4 = save(&f, "x4.npy", NPY_INT8, 4, d4, nchw);
	const char *data2 = save(&f, "x2.npy", NPY_INT8, 2, d2, nchw);
	const char *bad = save(&f, "xn.npy", NPY_INT8, 4, dn, nhwc);
	const char *outp = path(&f, "out.npy");
	for (int k = 0; k < 2; k++) {
		CLI_RUN(&r, "run", "--device", "golden", model, k ? data2 : data4, "--quantized",
			"--outputs", outp);
		cli_expect_ok(&r);
		struct npy_array a;
		ck_assert_msg(npy_load(outp, NPY_RANK4, &a, err, sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(a.rank, 4);
		ck_assert_uint_eq(a.shape[0], B);
		ck_assert_uint_eq(a.shape[1], OC);
		ck_assert_uint_eq(a.shape[2], H);
		ck_assert_uint_eq(a.shape[3], W);
		size_t equal = 0;
		for (size_t b = 0; b < B; b++)
			for (size_t p = 0; p < H * W; p++)
				for (size_t c = 0; c < OC; c++)
					equal += ((int8_t *)a.data)[b * OPER + c * H * W + p] ==
						 out[b * OPER + p * OC + c];
		ck_assert_uint_eq(equal, B * OPER);
		npy_free(&a);
	}
	CLI_RUN(&r, "run", "--device", "golden", model, bad, "--quantized");
	expect_fail(&r, 2, "expected (B, 2, 6, 5) (NCHW, the model's input layout)", NULL);
	tpu_model_free(m);
	fix_fini(&f);
}
END_TEST

/* A model with an int32 output (ONNX MatMulInteger / ConvInteger) and an NCHW output: --outputs
 * is int32 (B, C, H, W) equal to tpu_model_run_i32 on golden, -o the argmax of the int32
 * values, and --compare compares them on sim:n=8. */
START_TEST(int32_output)
{
	struct fix f;
	struct cli_run r;
	fix_init(&f, 10);
	uint64_t seed = harness_seed() ^ 0x32;
	const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 3, TPU_ACT_NONE, 0, 0, 0, 0, 0}};
	struct tpu_model *m = mfx_build(&seed, "i32", 4, 5, 2, spec, 1);
	mfx_int32_output(&seed, m);
	m->io_layout = TPU_LAYOUT_OUT_NCHW;
	const char *model = path(&f, "i32.tpum");
	char err[256];
	ck_assert_msg(tpu_model_save(m, model, err, sizeof(err)) == 0, "%s", err);
	enum { B = 3, H = 4, W = 5, C = 2, OC = 3, PER = H * W * C, OPER = H * W * OC };
	int8_t x[B * PER];
	int32_t out[B * OPER], pred[B];
	for (size_t i = 0; i < B * PER; i++)
		x[i] = (int8_t)harness_range(&seed, -128, 127);
	tpu_dev *dev;
	ck_assert_int_eq(tpu_open("golden", &dev), 0);
	ck_assert_int_eq(tpu_model_run_i32(dev, m, B, x, out, NULL), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
	for (size_t b = 0; b < B; b++) { /* argmax in NHWC order: the first largest */
		pred[b] = 0;
		for (size_t i = 1; i < OPER; i++) {
			size_t p = i % (H * W), c = i / (H * W); /* NCHW index i */
			size_t best = (size_t)pred[b], bp = best % (H * W), bc = best / (H * W);
			if (out[b * OPER + p * OC + c] > out[b * OPER + bp * OC + bc])
				pred[b] = (int32_t)i;
		}
	}
	const size_t d2[] = {B, PER};
	const char *data = save(&f, "x.npy", NPY_INT8, 2, d2, x);
	const char *outp = path(&f, "out.npy"), *predp = path(&f, "pred.npy");
	CLI_RUN(&r, "run", "--device", "golden", model, data, "--quantized", "--outputs", outp, "-o",
		predp);
	cli_expect_ok(&r);
	struct npy_array a;
	ck_assert_msg(npy_load(outp, NPY_RANK4, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(a.dtype, NPY_INT32);
	ck_assert_uint_eq(a.rank, 4);
	ck_assert_uint_eq(a.shape[1], OC);
	size_t equal = 0;
	for (size_t b = 0; b < B; b++)
		for (size_t p = 0; p < H * W; p++)
			for (size_t c = 0; c < OC; c++)
				equal += ((int32_t *)a.data)[b * OPER + c * H * W + p] ==
					 out[b * OPER + p * OC + c];
	ck_assert_uint_eq(equal, B * OPER);
	npy_free(&a);
	expect_pred_file(predp, pred, B);
	if (sim_have(8)) {
		CLI_RUN(&r, "run", "--device", "golden", model, data, "--quantized", "--compare",
			"sim:n=8");
		cli_expect_ok(&r);
		ck_assert_msg(strstr(r.out, "raw outputs 100.00% identical (3 of 3)"), "%s", r.out);
	}
	tpu_model_free(m);
	fix_fini(&f);
}
END_TEST

static Suite *cli_run_suite(void)
{
	Suite *s = suite_create("cli_run");
	TCase *tc = tcase_create("cli_run");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, help_and_usage);
	tcase_add_test(tc, bad_paths_and_models);
	tcase_add_test(tc, bad_npy_shapes_and_dtypes);
	tcase_add_test(tc, predictions_accuracy_and_json);
	tcase_add_test(tc, compare_with_sim);
	tcase_add_test(tc, nchw_input_and_output);
	tcase_add_test(tc, int32_output);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(cli_run_suite)
