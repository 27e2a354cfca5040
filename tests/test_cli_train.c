/* `tpu train` on golden:bf16=1 ($TPU_TRAIN_DEVICE, the same tests run on a sim device with
 * the bf16 mode): deterministic checkpoints, resume equal to an uninterrupted run, the
 * checkpoint's format, bad input; golden and the Verilated bf16 device write the same bytes;
 * each for the MLP and the CNN. Small subsets of the digits split keep it fast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/npy.h"
#include "tpu/model.h"
#include "cli_fixture.h"
#include "harness.h"
#include "sim_model.h"

static const char *device(void)
{
	const char *e = getenv("TPU_TRAIN_DEVICE");

	return e && *e ? e : "golden:bf16=1";
}

/* The first n examples of the shipped training split as x.npy / y.npy in d. */
static void subset(struct cli_dir *d, size_t n, const char **x, const char **y)
{
	struct npy_array a, b;
	char err[256];

	ck_assert_msg(!npy_load("data/digits_train_x.npy", NPY_RANK3, &a, err, sizeof(err)), "%s",
		      err);
	ck_assert_msg(!npy_load("data/digits_train_y.npy", NPY_RANK1, &b, err, sizeof(err)), "%s",
		      err);
	a.shape[0] = n, a.count = n * 64, b.shape[0] = n, b.count = n;
	*x = cli_dir_path(d, "x.npy");
	*y = cli_dir_path(d, "y.npy");
	ck_assert(!npy_save(*x, &a, 1, err, sizeof(err)));
	ck_assert(!npy_save(*y, &b, 1, err, sizeof(err)));
	npy_free(&a);
	npy_free(&b);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p;

	ck_assert_msg(f != NULL, "%s missing", path);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(*len + 1);
	ck_assert(fread(p, 1, *len, f) == *len);
	fclose(f);
	return p;
}

static void same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *pa = slurp(a, &la), *pb = slurp(b, &lb);

	ck_assert_msg(la == lb && !memcmp(pa, pb, la), "%s and %s differ", a, b);
	free(pa);
	free(pb);
}

#define TRAIN_MODEL(r, model, x, y, ...)                                                     \
	CLI_RUN(r, "train", "--device", device(), "--model", model, "--data", x, "--labels", y,  \
		"--val-data", x, "--val-labels", y, "--batch", "16", "--seed", "3", __VA_ARGS__)
#define TRAIN(r, x, y, ...) TRAIN_MODEL(r, "mlp", x, y, __VA_ARGS__)

/* Three epochs of model twice (plain and --json), then one epoch resumed for the other two:
 * the same checkpoint bytes each time; another seed gives other bytes. */
static void check_deterministic_and_resume(const char *model)
{
	static struct cli_run r;
	struct cli_dir d;
	const char *x, *y;

	cli_dir_init(&d, "train");
	subset(&d, 80, &x, &y);
	const char *a = cli_dir_path(&d, "a.npz"), *b = cli_dir_path(&d, "b.npz");
	const char *e1 = cli_dir_path(&d, "e1.npz"), *c = cli_dir_path(&d, "c.npz");
	TRAIN_MODEL(&r, model, x, y, "--epochs", "3", "--checkpoint", a);
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "epoch   3/3") && strstr(r.out, "sha256 "), "%s", r.out);
	TRAIN_MODEL(&r, model, x, y, "--epochs", "3", "--checkpoint", b, "--json");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "\"epoch\": 3") && strstr(r.out, "\"mxu_utilization\""),
		      "%s", r.out);
	same_file(a, b);
	/* one epoch of the same plan, then resume for the other two: the same bytes */
	TRAIN_MODEL(&r, model, x, y, "--epochs", "3", "--checkpoint", e1, "--stop-after", "1");
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, "epoch   1/3") && !strstr(r.out, "epoch   2/3"), "%s", r.out);
	TRAIN_MODEL(&r, model, x, y, "--epochs", "3", "--checkpoint", c, "--resume", e1);
	cli_expect_ok(&r);
	ck_assert_msg(!strstr(r.out, "epoch   1/3") && strstr(r.out, "epoch   2/3"), "%s", r.out);
	same_file(a, c);
	/* a different seed gives different weights (the comparison can fail) */
	CLI_RUN(&r, "train", "--device", device(), "--model", model, "--data", x, "--labels", y,
		"--val-data", x, "--val-labels", y, "--batch", "16", "--seed", "4", "--epochs", "3",
		"--checkpoint", c);
	cli_expect_ok(&r);
	size_t la, lc;
	char *pa = slurp(a, &la), *pc = slurp(c, &lc);
	ck_assert(la == lc && memcmp(pa, pc, la));
	free(pa);
	free(pc);
	cli_dir_fini(&d);
}

START_TEST(train_is_deterministic_and_resumes_exactly)
{
	check_deterministic_and_resume("mlp");
}
END_TEST

START_TEST(cnn_is_deterministic_and_resumes_exactly)
{
	check_deterministic_and_resume("cnn");
}
END_TEST

/* The same run of model on the golden model and on the Verilated bf16 device (both N = 8)
 * writes the same checkpoint bytes after each epoch (the whole run is bit-exact,
 * docs/training.md). */
static void check_golden_and_sim(const char *model)
{
	static struct cli_run r;
	static const char *const devs[2] = { "golden:bf16=1,n=8", "sim:bf16=1" };
	struct cli_dir d;
	const char *x, *y, *ck[2][2];

	if (!tpu_sim_model_find(8, 1))
		return;
	cli_dir_init(&d, "train");
	subset(&d, 48, &x, &y);
	for (int i = 0; i < 2; i++) {
		ck[i][0] = cli_dir_path(&d, i ? "s1.npz" : "g1.npz");
		ck[i][1] = cli_dir_path(&d, i ? "s2.npz" : "g2.npz");
		for (int e = 0; e < 2; e++) {
			CLI_RUN(&r, "train", "--device", devs[i], "--model", model, "--data", x,
				"--labels", y, "--val-data", x, "--val-labels", y, "--batch", "16",
				"--seed", "5", "--epochs", "2", "--stop-after", e ? "2" : "1",
				"--checkpoint", ck[i][e]);
			cli_expect_ok(&r);
		}
	}
	same_file(ck[0][0], ck[1][0]);
	same_file(ck[0][1], ck[1][1]);
	cli_dir_fini(&d);
}

START_TEST(golden_and_sim_give_the_same_checkpoint)
{
	check_golden_and_sim("mlp");
}
END_TEST

START_TEST(cnn_golden_and_sim_give_the_same_checkpoint)
{
	check_golden_and_sim("cnn");
}
END_TEST

/* The CNN's int8 model (-o) runs with `tpu run`, and its accuracy there is the one -o
 * printed; what is CNN-specific among bad input: another model's checkpoint, and a diverging
 * CNN run. */
START_TEST(cnn_model_runs_and_bad_input_is_refused)
{
	static struct cli_run r;
	struct cli_dir d;
	const char *x, *y;
	char want[64];

	cli_dir_init(&d, "traincnn");
	subset(&d, 64, &x, &y);
	const char *o = cli_dir_path(&d, "cnn.tpum"), *ck = cli_dir_path(&d, "m.npz");
	const char *o2 = cli_dir_path(&d, "bad.tpum");
	TRAIN_MODEL(&r, "cnn", x, y, "--epochs", "2", "-o", o);
	cli_expect_ok(&r);
	const char *p = strstr(r.out, "int8 val ");
	ck_assert_msg(p != NULL, "%s", r.out);
	double acc = strtod(p + 9, NULL);
	snprintf(want, sizeof(want), "%.2f%%", acc);
	CLI_RUN(&r, "run", "--device", "golden", o, x, "--labels", y);
	cli_expect_ok(&r);
	ck_assert_msg(strstr(r.out, want), "tpu run does not print %s:\n%s", want, r.out);
	/* an MLP checkpoint resumed as a CNN: the field is named, nothing is trained */
	TRAIN(&r, x, y, "--epochs", "2", "--stop-after", "1", "--checkpoint", ck);
	cli_expect_ok(&r);
	TRAIN_MODEL(&r, "cnn", x, y, "--epochs", "2", "--resume", ck);
	cli_expect_fail(&r, 2, "tpu train:", "model (--model)", "is 1, this run's is 2");
	/* a diverging CNN: exit 1 naming the step, no model */
	TRAIN_MODEL(&r, "cnn", x, y, "--epochs", "2", "--lr", "1e30", "-o", o2);
	cli_expect_fail(&r, 1, "tpu train:", "step", "diverged");
	ck_assert_msg(fopen(o2, "rb") == NULL, "a model was written");
	cli_dir_fini(&d);
}
END_TEST

/* A copy of the shipped CNN's model file with layer l's activation set to act. */
static void cnn_file_with_act(const char *path, uint32_t l, uint32_t act)
{
	struct tpu_model *m;
	char err[256];

	ck_assert_msg(!tpu_model_load("models/digits-cnn.tpum", &m, err, sizeof(err)), "%s", err);
	m->layers[l].act = act;
	ck_assert_msg(!tpu_model_save(m, path, err, sizeof(err)), "%s", err);
	tpu_model_free(m);
}

/* --model FILE: the shipped CNN's file trains exactly as --model cnn (the same -o bytes); a
 * layer the trainer has no form for is refused naming it; a cnn checkpoint is not the file's. */
START_TEST(model_file_trains_its_shapes)
{
	static struct cli_run r;
	struct cli_dir d;
	const char *x, *y;

	cli_dir_init(&d, "trainfile");
	subset(&d, 48, &x, &y);
	const char *a = cli_dir_path(&d, "a.tpum"), *b = cli_dir_path(&d, "b.tpum");
	const char *ck = cli_dir_path(&d, "c.npz"), *bad = cli_dir_path(&d, "bad.tpum");
	TRAIN_MODEL(&r, "cnn", x, y, "--epochs", "2", "-o", a, "--checkpoint", ck);
	cli_expect_ok(&r);
	TRAIN_MODEL(&r, "models/digits-cnn.tpum", x, y, "--epochs", "2", "-o", b);
	cli_expect_ok(&r);
	same_file(a, b);
	TRAIN_MODEL(&r, "models/digits-cnn.tpum", x, y, "--epochs", "3", "--resume", ck);
	cli_expect_fail(&r, 2, "tpu train:", "model (--model)", "is 2, this run's is 3");
	cnn_file_with_act(bad, 0, TPU_ACT_RELU6);
	TRAIN_MODEL(&r, bad, x, y, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train:", "layer 0 (CONV2D): activation 2",
			"none (0) or relu (1)");
	cnn_file_with_act(bad, 2, TPU_ACT_RELU);
	TRAIN_MODEL(&r, bad, x, y, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train:", "layer 2 (DENSE): activation 1", "last layer");
	TRAIN_MODEL(&r, "data/digits_test_y.npy", x, y, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train: --model data/digits_test_y.npy", "not a tpu model", NULL);
	cli_dir_fini(&d);
}
END_TEST

START_TEST(bad_input_is_refused)
{
	static struct cli_run r;
	struct cli_dir d;
	const char *x, *y;
	struct npy_array a;
	char err[256];

	cli_dir_init(&d, "trainbad");
	subset(&d, 20, &x, &y);
	const char *ck = cli_dir_path(&d, "c.npz"), *o = cli_dir_path(&d, "m.tpum");
	/* mismatched counts */
	ck_assert(!npy_load(y, NPY_RANK1, &a, err, sizeof(err)));
	a.shape[0] = a.count = 19;
	const char *y19 = cli_dir_path(&d, "y19.npy");
	ck_assert(!npy_save(y19, &a, 1, err, sizeof(err)));
	/* a label out of range */
	a.shape[0] = a.count = 20;
	((uint8_t *)a.data)[7] = 10;
	const char *ybad = cli_dir_path(&d, "ybad.npy");
	ck_assert(!npy_save(ybad, &a, 1, err, sizeof(err)));
	npy_free(&a);
	TRAIN(&r, x, y19, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train:", "19 labels", "20 examples");
	TRAIN(&r, x, ybad, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train:", "label 7 is 10", "0..9");
	/* NaN and inf in float data */
	float xf[20 * 64];
	for (int i = 0; i < 20 * 64; i++)
		xf[i] = 0.25f;
	xf[3 * 64 + 5] = __builtin_nanf("");
	struct npy_array fa = { .dtype = NPY_FLOAT32, .rank = 2, .shape = { 20, 64, 1, 1 },
				.count = 20 * 64, .data = xf };
	const char *xnan = cli_dir_path(&d, "xnan.npy");
	ck_assert(!npy_save(xnan, &fa, 1, err, sizeof(err)));
	TRAIN(&r, xnan, y, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train:", "example 3, value 5", "finite");
	xf[3 * 64 + 5] = __builtin_inff();
	ck_assert(!npy_save(xnan, &fa, 1, err, sizeof(err)));
	TRAIN(&r, xnan, y, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train:", "is inf", "finite");
	/* a diverging run: a clear error naming the step, no model written */
	TRAIN(&r, x, y, "--epochs", "3", "--lr", "1e30", "-o", o);
	cli_expect_fail(&r, 1, "tpu train:", "step", "diverged");
	ck_assert_msg(fopen(o, "rb") == NULL, "a model was written");
	/* an int8-only device */
	CLI_RUN(&r, "train", "--device", "golden", "--model", "mlp", "--data", x, "--labels", y,
		"--val-data", x, "--val-labels", y, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train:", "bf16", NULL);
	/* corrupt and truncated checkpoints */
	TRAIN(&r, x, y, "--epochs", "1", "--checkpoint", ck);
	cli_expect_ok(&r);
	size_t len;
	char *p = slurp(ck, &len);
	FILE *f = fopen(ck, "wb");
	fwrite(p, 1, len / 2, f);
	fclose(f);
	TRAIN(&r, x, y, "--epochs", "1", "--resume", ck);
	cli_expect_fail(&r, 2, "tpu train:", "--resume", "truncated");
	p[200] ^= 0x40; /* inside meta.npy's data */
	f = fopen(ck, "wb");
	fwrite(p, 1, len, f);
	fclose(f);
	TRAIN(&r, x, y, "--epochs", "1", "--resume", ck);
	cli_expect_fail(&r, 2, "tpu train:", "meta.npy", "CRC");
	free(p);
	/* a checkpoint of another run */
	TRAIN(&r, x, y, "--epochs", "1", "--checkpoint", ck);
	cli_expect_ok(&r);
	TRAIN(&r, x, y, "--epochs", "1", "--resume", ck, "--optimizer", "sgd");
	cli_expect_fail(&r, 2, "tpu train:", "optimizer", NULL);
	/* options */
	TRAIN(&r, x, y, "--epochs", "0");
	cli_expect_fail(&r, 2, "tpu train:", "--epochs", "1..100000");
	TRAIN_MODEL(&r, "resnet", x, y, "--epochs", "1");
	cli_expect_fail(&r, 2, "tpu train: --model resnet", "cannot open", NULL);
	cli_dir_fini(&d);
}
END_TEST

/* `tpu bench train`: the CNN's step splits into phases that add up, its GEMMs are attributed
 * to the conv and dense layers (the first without dX), and bad options are refused. */
START_TEST(bench_train_reports_phases_and_layers)
{
	static struct cli_run r;
	double step, fwd, bwd, upd;
	const char *p;

	CLI_RUN(&r, "bench", "train", "--device", device(), "--model", "cnn", "--steps", "2",
		"--json");
	cli_expect_ok(&r);
	ck_assert_msg((p = strstr(r.out, "\"step_cycles\": ")) && sscanf(p, "\"step_cycles\": %lf",
		      &step) == 1, "%s", r.out);
	ck_assert((p = strstr(r.out, "\"forward_cycles\": ")) &&
		  sscanf(p, "\"forward_cycles\": %lf", &fwd) == 1);
	ck_assert((p = strstr(r.out, "\"backward_cycles\": ")) &&
		  sscanf(p, "\"backward_cycles\": %lf", &bwd) == 1);
	ck_assert((p = strstr(r.out, "\"update_cycles\": ")) &&
		  sscanf(p, "\"update_cycles\": %lf", &upd) == 1);
	ck_assert_msg(fwd > 0 && bwd > 0 && upd == 0 && step == fwd + bwd + upd,
		      "step %g, forward %g, backward %g, update %g", step, fwd, bwd, upd);
	ck_assert_msg(strstr(r.out, "{\"layer\": 0, \"kind\": \"conv2d\"") &&
		      strstr(r.out, "{\"layer\": 2, \"kind\": \"dense\"") &&
		      strstr(r.out, "\"dx\": null") && !strstr(r.out, "\"layer\": 1,"),
		      "%s", r.out);
	CLI_RUN(&r, "bench", "train", "--device", device(), "--model", "resnet");
	cli_expect_fail(&r, 2, "tpu bench:", "--model", "mlp or cnn");
	CLI_RUN(&r, "bench", "train", "--device", "golden", "--model", "mlp");
	cli_expect_fail(&r, 2, "tpu bench:", "bf16", NULL);
}
END_TEST

TPU_TEST_SUITE(cli_train_suite)
static Suite *cli_train_suite(void)
{
	Suite *s = suite_create("cli_train");
	TCase *tc = tcase_create("train");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, train_is_deterministic_and_resumes_exactly);
	tcase_add_test(tc, bad_input_is_refused);
	tcase_add_test(tc, golden_and_sim_give_the_same_checkpoint);
	tcase_add_test(tc, cnn_is_deterministic_and_resumes_exactly);
	tcase_add_test(tc, cnn_model_runs_and_bad_input_is_refused);
	tcase_add_test(tc, cnn_golden_and_sim_give_the_same_checkpoint);
	tcase_add_test(tc, bench_train_reports_phases_and_layers);
	tcase_add_test(tc, model_file_trains_its_shapes);
	suite_add_tcase(s, tc);
	return s;
}
