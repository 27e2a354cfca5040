/* tpu-train: trains the digits models, quantizes them to int8 and writes the files `make demo`
 * uses (docs/models.md):
 *   models/digits-mlp.tpum, models/digits-cnn.tpum    the int8 models (tpu_model_save)
 *   data/digits_test_x.npy, data/digits_test_y.npy    the test split (uint8 pixels, labels)
 *   data/digits_train_x.npy, data/digits_train_y.npy  the training split (`tpu train`)
 *   a JSON summary of the figures.
 * Deterministic: a fixed seed per model, one PRNG, no threads. Exits 1 when a model misses its
 * accuracy target, 2 on bad usage or input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/npy.h"
#include "tpu/outfile.h"
#include "train.h"

struct model_spec {
	const char *name;
	int (*build)(struct tr_net *net);
	struct tr_train_cfg cfg;
	double target; /* minimum int8 test accuracy */
};

/* 64 -> dense 64 + ReLU -> dense 10 */
static int build_mlp(struct tr_net *net)
{
	int ret = tr_net_add_dense(net, 64, true);

	return ret ? ret : tr_net_add_dense(net, TR_DIGITS_CLASSES, false);
}

/* 8x8x1 -> conv 3x3 x8, pad 1 + ReLU -> max-pool 2x2/2 -> 4x4x8 -> dense 10 */
static int build_cnn(struct tr_net *net)
{
	int ret = tr_net_add_conv(net, 8, 3, 1, true);

	if (!ret)
		ret = tr_net_add_pool(net, 2, 2);
	return ret ? ret : tr_net_add_dense(net, TR_DIGITS_CLASSES, false);
}

static const struct model_spec specs[] = {
	{ "digits-mlp", build_mlp,
	  { .epochs = 60, .batch = 32, .lr = 3e-3, .weight_decay = 0.1, .seed = 1,
	    .log_every = 10 },
	  0.96 },
	{ "digits-cnn", build_cnn,
	  { .epochs = 60, .batch = 32, .lr = 1e-2, .weight_decay = 0.1, .seed = 1,
	    .log_every = 10 },
	  0.975 },
};
#define N_SPECS (sizeof(specs) / sizeof(specs[0]))

struct result {
	double float_train, float_test, int8_train, int8_test, seconds;
	size_t params;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tpu-train [-d DATA.csv.gz] [-m MODEL_DIR] [-t TEST_DIR] [-j SUMMARY.json]\n"
		   "                 [-s SEED]\n"
		   "  trains, quantizes and writes MODEL_DIR/digits-{mlp,cnn}.tpum and\n"
		   "  TEST_DIR/digits_{test,train}_{x,y}.npy (defaults: data/digits.csv.gz, models, data)\n"
		   "  -s SEED trains with another seed than each model's own (docs/training.md)\n");
}

/* Write a uint8 array to dir/name as a .npy (the CLI's writer, sw/cli/npy.c), atomically
 * (tpu/outfile.h), so an interrupted `make models` leaves the old file intact. */
static int save_u8(const char *dir, const char *name, const uint8_t *data, const size_t *shape,
		   unsigned rank)
{
	struct npy_array a = { .dtype = NPY_UINT8, .rank = rank, .count = 1, .data = (void *)data };
	char path[4096], err[256];
	int ret;

	for (unsigned i = 0; i < NPY_MAX_RANK; i++) {
		a.shape[i] = i < rank ? shape[i] : 1;
		a.count *= a.shape[i];
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* npy_save replaces the file only when the new one is complete (tpu/outfile.h) */
	ret = npy_save(path, &a, 1, err, sizeof(err));
	if (ret)
		fprintf(stderr, "tpu-train: %s: %s\n", path, err);
	return ret;
}

/* dir/digits_<split>_x.npy (uint8 pixels, N x 8 x 8) and dir/digits_<split>_y.npy. */
static int write_split(const struct tr_digits *d, const char *dir, const char *split)
{
	size_t xs[3] = { d->n, TR_DIGITS_H, TR_DIGITS_W }, ys[1] = { d->n };
	char xname[64], yname[64];

	snprintf(xname, sizeof(xname), "digits_%s_x.npy", split);
	snprintf(yname, sizeof(yname), "digits_%s_y.npy", split);
	int ret = save_u8(dir, xname, d->x, xs, 3);

	return ret ? ret : save_u8(dir, yname, d->y, ys, 1);
}

/* Train, quantize, evaluate and save one model. */
static int make_model(const struct model_spec *spec, const struct tr_digits *train,
		      const struct tr_digits *test, const char *dir, uint64_t seed, struct result *r)
{
	struct model_spec sp = *spec;
	const struct model_spec *s = &sp;
	double lo[TR_MAX_LAYERS], hi[TR_MAX_LAYERS], t0 = now();
	struct tpu_model *m = NULL;
	char path[4096], err[256] = "";
	struct tr_net net;
	uint64_t rng;
	int ret;

	if (seed)
		sp.cfg.seed = seed;
	rng = s->cfg.seed;
	tr_net_init(&net, TR_DIGITS_H, TR_DIGITS_W, 1, 64);
	ret = s->build(&net);
	if (!ret)
		ret = tr_net_alloc(&net, &rng);
	if (ret) {
		fprintf(stderr, "tpu-train: %s: cannot build the network (%s)\n", s->name,
			strerror(-ret));
		return ret;
	}
	r->params = net.n_params;
	printf("%s: %zu parameters, %u epochs, batch %zu, AdamW lr %g wd %g, seed %llu\n",
	       s->name, net.n_params, s->cfg.epochs, s->cfg.batch, s->cfg.lr, s->cfg.weight_decay,
	       (unsigned long long)s->cfg.seed);
	ret = tr_train(&net, train, test, &s->cfg, stdout);
	if (ret) {
		fprintf(stderr, "tpu-train: %s: training failed (%s)\n", s->name, strerror(-ret));
		goto out;
	}
	r->float_train = tr_eval_float(&net, train, NULL);
	r->float_test = tr_eval_float(&net, test, NULL);
	tr_calibrate(&net, train, lo, hi);
	ret = tr_quantize(&net, lo, hi, s->name, &m, err, sizeof(err));
	if (!ret)
		ret = tr_eval_int8(m, train, &r->int8_train);
	if (!ret)
		ret = tr_eval_int8(m, test, &r->int8_test);
	if (ret) {
		fprintf(stderr, "tpu-train: %s: quantization failed: %s\n", s->name,
			err[0] ? err : strerror(-ret));
		goto out;
	}
	m->float_accuracy = (float)r->float_test;
	m->int8_accuracy = (float)r->int8_test;
	snprintf(path, sizeof(path), "%s/%s.tpum", dir, s->name);
	ret = tpu_model_save(m, path, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "tpu-train: %s: %s\n", path, err);
		goto out;
	}
	r->seconds = now() - t0;
	printf("%s: float train %.2f %% test %.2f %%, int8 train %.2f %% test %.2f %% (%.1f s) -> "
	       "%s\n",
	       s->name, 100.0 * r->float_train, 100.0 * r->float_test, 100.0 * r->int8_train,
	       100.0 * r->int8_test, r->seconds, path);
out:
	tpu_model_free(m);
	tr_net_free(&net);
	return ret;
}

static int write_summary(const char *path, const struct tr_digits *train,
			 const struct tr_digits *test, const struct result *r)
{
	struct tpu_outfile *of;
	char why[256];
	int rc = tpu_outfile_open(path, &of, why, sizeof(why));

	if (rc) {
		fprintf(stderr, "tpu-train: %s: %s\n", path, why);
		return rc;
	}
	FILE *f = tpu_outfile_stream(of);
	fprintf(f, "{\n  \"train_examples\": %zu,\n  \"test_examples\": %zu,\n  \"models\": [\n",
		train->n, test->n);
	for (size_t i = 0; i < N_SPECS; i++)
		fprintf(f,
			"    {\"name\": \"%s\", \"params\": %zu, \"epochs\": %u, \"seed\": %llu, "
			"\"float_train_accuracy\": %.6f, \"float_accuracy\": %.6f, "
			"\"int8_train_accuracy\": %.6f, \"int8_accuracy\": %.6f, "
			"\"target_int8_accuracy\": %.4f, \"seconds\": %.2f}%s\n",
			specs[i].name, r[i].params, specs[i].cfg.epochs,
			(unsigned long long)specs[i].cfg.seed, r[i].float_train, r[i].float_test,
			r[i].int8_train, r[i].int8_test, specs[i].target, r[i].seconds,
			i + 1 < N_SPECS ? "," : "");
	fprintf(f, "  ]\n}\n");
	rc = tpu_outfile_commit(of, why, sizeof(why));
	if (rc)
		fprintf(stderr, "tpu-train: %s: %s\n", path, why);
	return rc;
}

int main(int argc, char **argv)
{
	const char *data = "data/digits.csv.gz", *model_dir = "models", *test_dir = "data";
	const char *summary = NULL;
	struct tr_digits all, train, test;
	struct result res[N_SPECS] = { 0 };
	char err[256];
	unsigned long long seed = 0;
	int opt, status = 0;

	while ((opt = getopt(argc, argv, "d:m:t:j:s:h")) != -1) {
		switch (opt) {
		case 'd': data = optarg; break;
		case 'm': model_dir = optarg; break;
		case 't': test_dir = optarg; break;
		case 'j': summary = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (tr_digits_load(data, &all, err, sizeof(err))) {
		fprintf(stderr, "tpu-train: %s\n", err);
		return 2;
	}
	if (tr_digits_split(&all, &train, &test)) {
		fprintf(stderr, "tpu-train: out of memory\n");
		tr_digits_free(&all);
		return 1;
	}
	printf("digits: %zu examples, %zu train, %zu test (every %dth of each class)\n", all.n,
	       train.n, test.n, TR_TEST_EVERY);
	if (write_split(&test, test_dir, "test") || write_split(&train, test_dir, "train")) {
		status = 1;
		goto out;
	}
	for (size_t i = 0; i < N_SPECS; i++) {
		if (make_model(&specs[i], &train, &test, model_dir, seed, &res[i])) {
			status = 1;
			goto out;
		}
		if (res[i].int8_test < specs[i].target) {
			fprintf(stderr, "tpu-train: %s: int8 accuracy %.2f %% below the target %.2f %%\n",
				specs[i].name, 100.0 * res[i].int8_test, 100.0 * specs[i].target);
			status = 1;
		}
	}
	if (summary && write_summary(summary, &train, &test, res))
		status = 1;
out:
	tr_digits_free(&all);
	tr_digits_free(&train);
	tr_digits_free(&test);
	return status;
}
