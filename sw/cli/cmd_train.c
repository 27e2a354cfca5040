/* `tpu train`: train the digits MLP, CNN or a model file's net on the device in bf16 mixed
 * precision (docs/training.md).
 *   tpu train [--device URI] --model mlp|cnn|FILE [--data X.npy --labels Y.npy]
 *       [--val-data X.npy --val-labels Y.npy] [--epochs E] [--batch B] [--optimizer sgd|adamw]
 *       [--lr LR] [--weight-decay WD] [--seed S] [--checkpoint FILE] [--resume FILE]
 *       [--stop-after E] [--limit N] [-o MODEL.tpum] [--json]
 * This file: the command line and the data sets; train_run.c the training itself. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "train_cli.h"
#include "tpu/tpu.h"

#define DEFAULT_TRAIN_X "data/digits_train_x.npy"
#define DEFAULT_TRAIN_Y "data/digits_train_y.npy"
#define DEFAULT_TEST_X "data/digits_test_x.npy"
#define DEFAULT_TEST_Y "data/digits_test_y.npy"
#define MAX_EPOCHS 100000
#define MAX_BATCH 4096

enum {
	OPT_MODEL = 1, OPT_DATA, OPT_LABELS, OPT_VAL_DATA, OPT_VAL_LABELS, OPT_EPOCHS, OPT_BATCH,
	OPT_OPTIM, OPT_LR, OPT_WD, OPT_SEED, OPT_CKPT, OPT_RESUME, OPT_OUT, OPT_JSON, OPT_DEVICE,
	OPT_STOP, OPT_LIMIT, OPT_HELP,
};

static const struct cli_opt opts[] = {
    {"model", 0, true, OPT_MODEL},	   {"data", 0, true, OPT_DATA},
    {"labels", 0, true, OPT_LABELS},	   {"val-data", 0, true, OPT_VAL_DATA},
    {"val-labels", 0, true, OPT_VAL_LABELS}, {"epochs", 0, true, OPT_EPOCHS},
    {"batch", 0, true, OPT_BATCH},	   {"optimizer", 0, true, OPT_OPTIM},
    {"lr", 0, true, OPT_LR},		   {"weight-decay", 0, true, OPT_WD},
    {"seed", 0, true, OPT_SEED},	   {"checkpoint", 0, true, OPT_CKPT},
    {"resume", 0, true, OPT_RESUME},	   {"output", 'o', true, OPT_OUT},
    {"json", 0, false, OPT_JSON},	   {"device", 0, true, OPT_DEVICE},
    {"stop-after", 0, true, OPT_STOP},	   {"limit", 0, true, OPT_LIMIT},
    {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tpu train [--device URI] --model mlp|cnn|FILE\n"
		"                 [--data X.npy --labels Y.npy] [--val-data X.npy --val-labels Y.npy]\n"
		"                 [--epochs E] [--batch B]\n"
		"                 [--optimizer sgd|adamw] [--lr LR] [--weight-decay WD] [--seed S]\n"
		"                 [--checkpoint FILE.npz] [--resume FILE.npz] [--stop-after E]\n"
		"                 [--limit N] [-o MODEL.tpum] [--json]\n"
		"Trains on the device in bf16 x bf16 -> fp32 (a device with the bf16 mode, e.g.\n"
		"golden:bf16=1), fp32 master weights on the host. Without --data: the shipped digits\n"
		"training split (" DEFAULT_TRAIN_X "), validated on the test split.\n"
		"  FILE     a .tpum model file: its layer shapes (not its weights) make the net\n"
		"  X.npy    uint8 pixels 0..16 (N x 8 x 8 or N x 64) or float32 inputs (N x 64)\n"
		"  Y.npy    uint8 or int32 labels 0..9 (N)\n"
		"  defaults: --epochs 60 --batch 32 --optimizer adamw --lr 0.003 (a net with a\n"
		"            conv layer: 0.01; sgd: 0.05)\n"
		"            --weight-decay 0.1 (sgd: 0) --seed 1; cosine learning-rate decay\n"
		"  --checkpoint   written (atomically) after every epoch; its SHA-256 is printed\n"
		"  --resume       continue a run from its checkpoint (same options)\n"
		"  --stop-after E stop after epoch E of the plan (resume later with --resume)\n"
		"  --limit N      train on the first N examples of the training data only\n"
		"  -o             quantize to an int8 model file for `tpu run` (uint8 pixel data)\n"
		"  --json         one JSON object per epoch instead of the progress line\n");
}

static int parse_opt(const struct cli_ctx *ctx, struct train_opts *o, int id, const char *val,
		     bool *lr_set, bool *wd_set)
{
	long l;

	switch (id) {
	case OPT_MODEL: o->model = val; return 0;
	case OPT_DATA: o->data = val; return 0;
	case OPT_LABELS: o->labels = val; return 0;
	case OPT_VAL_DATA: o->val_data = val; return 0;
	case OPT_VAL_LABELS: o->val_labels = val; return 0;
	case OPT_CKPT: o->checkpoint = val; return 0;
	case OPT_RESUME: o->resume = val; return 0;
	case OPT_OUT: o->output = val; return 0;
	case OPT_JSON: o->json = true; return 0;
	case OPT_EPOCHS:
		if (cli_parse_long(val, 1, MAX_EPOCHS, &l))
			break;
		o->epochs = (unsigned)l;
		return 0;
	case OPT_STOP:
		if (cli_parse_long(val, 1, MAX_EPOCHS, &l))
			break;
		o->stop_after = (unsigned)l;
		return 0;
	case OPT_LIMIT:
		if (cli_parse_long(val, 1, TR_DIGITS_MAX_ROWS, &l))
			break;
		o->limit = (size_t)l;
		return 0;
	case OPT_BATCH:
		if (cli_parse_long(val, 1, MAX_BATCH, &l))
			break;
		o->batch = (size_t)l;
		return 0;
	case OPT_OPTIM:
		if (!strcmp(val, "sgd"))
			o->optim = TPU_OPTIM_SGD;
		else if (!strcmp(val, "adamw"))
			o->optim = TPU_OPTIM_ADAMW;
		else
			break;
		return 0;
	case OPT_LR:
		*lr_set = true;
		if (cli_parse_double(val, &o->lr) || !(o->lr > 0.0))
			break;
		return 0;
	case OPT_WD:
		*wd_set = true;
		if (cli_parse_double(val, &o->weight_decay) || o->weight_decay < 0.0)
			break;
		return 0;
	case OPT_SEED:
		if (cli_parse_u64(val, &o->seed))
			break;
		return 0;
	}
	static const char *const limits[] = {
		[OPT_EPOCHS] = "an integer 1..100000", [OPT_STOP] = "an integer 1..100000",
		[OPT_BATCH] = "an integer 1..4096", [OPT_LIMIT] = "an integer 1..100000",
		[OPT_OPTIM] = "sgd or adamw", [OPT_LR] = "a number > 0",
		[OPT_WD] = "a number >= 0", [OPT_SEED] = "an unsigned 64-bit integer",
	};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].id == id)
			cli_error(ctx, "--%s '%s': must be %s", opts[i].name, val, limits[id]);
	return CLI_EXIT_USAGE;
}

static int parse(const struct cli_ctx *ctx, int argc, char **argv, struct train_opts *o,
		 const char **device)
{
	bool lr_set = false, wd_set = false;
	struct cli_scan sc;
	const char *val;
	int id, rc;

	*o = (struct train_opts){ .epochs = 60, .batch = 32, .optim = TPU_OPTIM_ADAMW, .seed = 1 };
	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, opts, &val)) != CLI_OPT_END) {
		if (id == CLI_OPT_ERROR)
			return CLI_EXIT_USAGE;
		if (id == CLI_OPT_POSITIONAL) {
			cli_error(ctx, "unexpected argument '%s' (see tpu train --help)", val);
			return CLI_EXIT_USAGE;
		}
		if (id == OPT_HELP) {
			usage(stdout);
			return -1;
		}
		if (id == OPT_DEVICE) {
			*device = val;
			continue;
		}
		rc = parse_opt(ctx, o, id, val, &lr_set, &wd_set);
		if (rc)
			return rc;
	}
	if (!o->model) {
		cli_error(ctx, "--model is missing: give mlp, cnn or a model file");
		return CLI_EXIT_USAGE;
	}
	if (!o->data != !o->labels) {
		cli_error(ctx, "--data and --labels go together: give both or neither");
		return CLI_EXIT_USAGE;
	}
	if (!o->val_data != !o->val_labels) {
		cli_error(ctx, "--val-data and --val-labels go together: give both or neither");
		return CLI_EXIT_USAGE;
	}
	if (!lr_set) /* the host trainer's peak rates (docs/models.md) */
		o->lr = o->optim == TPU_OPTIM_SGD ? 0.05 : 0.0; /* 0: the net's (train_run.c) */
	if (!wd_set)
		o->weight_decay = o->optim == TPU_OPTIM_SGD ? 0.0 : 0.1;
	return 0;
}

static void set_free(struct train_set *s)
{
	free(s->x);
	free(s->y);
	tr_digits_free(&s->pixels);
	memset(s, 0, sizeof(*s));
}

/* The inputs of a into s->x: uint8 pixels (0..16, also kept as s->pixels) or float32. */
static int load_inputs(const struct cli_ctx *ctx, const char *path, const struct npy_array *a,
		       struct train_set *s)
{
	size_t n = a->shape[0], per = a->count / (n ? n : 1);

	if (!n || per != TR_DIGITS_PIXELS || (a->dtype != NPY_UINT8 && a->dtype != NPY_FLOAT32)) {
		cli_error(ctx, "%s: must be uint8 or float32 of shape (N, 8, 8) or (N, 64), N >= 1 "
			  "(it is %s with %zu values per example)", path, npy_dtype_name(a->dtype),
			  per);
		return CLI_EXIT_USAGE;
	}
	s->x = malloc(a->count * sizeof(float));
	if (a->dtype == NPY_UINT8) {
		s->pixels.x = malloc(a->count);
		s->pixels.y = malloc(n);
		s->pixels.n = n;
	}
	if (!s->x || (a->dtype == NPY_UINT8 && (!s->pixels.x || !s->pixels.y))) {
		cli_error(ctx, "%s: out of memory", path);
		return CLI_EXIT_FAIL;
	}
	for (size_t i = 0; i < a->count; i++) {
		if (a->dtype == NPY_UINT8) {
			uint8_t p = ((const uint8_t *)a->data)[i];

			if (p > TR_DIGITS_MAX_PIXEL) {
				cli_error(ctx, "%s: example %zu, pixel %zu is %u: pixels are 0..16",
					  path, i / per, i % per, p);
				return CLI_EXIT_USAGE;
			}
			s->pixels.x[i] = p;
			s->x[i] = (float)p / (float)TR_DIGITS_MAX_PIXEL;
		} else {
			float v = ((const float *)a->data)[i];

			if (!isfinite(v)) {
				cli_error(ctx, "%s: example %zu, value %zu is %g: inputs must be "
					  "finite", path, i / per, i % per, (double)v);
				return CLI_EXIT_USAGE;
			}
			s->x[i] = v;
		}
	}
	s->d.n = n;
	return 0;
}

static int load_labels(const struct cli_ctx *ctx, const char *path, const char *xpath,
		       const struct npy_array *a, struct train_set *s)
{
	if (a->dtype != NPY_UINT8 && a->dtype != NPY_INT32) {
		cli_error(ctx, "%s: labels must be uint8 or int32 (it is %s)", path,
			  npy_dtype_name(a->dtype));
		return CLI_EXIT_USAGE;
	}
	if (a->count != s->d.n) {
		cli_error(ctx, "%s has %zu labels but %s has %zu examples", path, a->count, xpath,
			  s->d.n);
		return CLI_EXIT_USAGE;
	}
	s->y = malloc(s->d.n);
	if (!s->y) {
		cli_error(ctx, "%s: out of memory", path);
		return CLI_EXIT_FAIL;
	}
	for (size_t i = 0; i < a->count; i++) {
		long v = a->dtype == NPY_UINT8 ? ((const uint8_t *)a->data)[i]
					       : ((const int32_t *)a->data)[i];

		if (v < 0 || v >= TR_DIGITS_CLASSES) {
			cli_error(ctx, "%s: label %zu is %ld: labels are 0..%d", path, i, v,
				  TR_DIGITS_CLASSES - 1);
			return CLI_EXIT_USAGE;
		}
		s->y[i] = (uint8_t)v;
		if (s->pixels.y)
			s->pixels.y[i] = (uint8_t)v;
	}
	s->d.x = s->x;
	s->d.y = s->y;
	return 0;
}

static int load_set(const struct cli_ctx *ctx, const char *xpath, const char *ypath,
		    struct train_set *s)
{
	struct npy_array a, b;
	char err[256];
	int rc;

	memset(s, 0, sizeof(*s));
	if (npy_load(xpath, NPY_RANK2 | NPY_RANK3, &a, err, sizeof(err))) {
		cli_error(ctx, "%s", err);
		return CLI_EXIT_USAGE;
	}
	rc = load_inputs(ctx, xpath, &a, s);
	npy_free(&a);
	if (!rc && npy_load(ypath, NPY_RANK1, &b, err, sizeof(err))) {
		cli_error(ctx, "%s", err);
		rc = CLI_EXIT_USAGE;
	} else if (!rc) {
		rc = load_labels(ctx, ypath, xpath, &b, s);
		npy_free(&b);
	}
	if (rc)
		set_free(s);
	return rc;
}

int cmd_train(const struct cli_ctx *ctx, int argc, char **argv)
{
	const char *uri = ctx->device;
	struct train_set train, val;
	struct train_opts o;
	tpu_dev *dev = NULL;
	int rc = parse(ctx, argc, argv, &o, &uri);

	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	rc = load_set(ctx, o.data ? o.data : DEFAULT_TRAIN_X, o.labels ? o.labels : DEFAULT_TRAIN_Y,
		      &train);
	if (rc)
		return rc;
	if (o.limit && o.limit < train.d.n) /* the first examples; the pixels keep pace */
		train.d.n = train.pixels.n ? (train.pixels.n = o.limit) : o.limit;
	rc = load_set(ctx, o.val_data ? o.val_data : DEFAULT_TEST_X,
		      o.val_labels ? o.val_labels : DEFAULT_TEST_Y, &val);
	if (rc)
		goto out_train;
	rc = cli_open(ctx, uri, &dev, NULL);
	if (rc) {
		rc = cli_open_exit(rc);
		goto out_val;
	}
	rc = train_run(ctx, &o, dev, &train, &val);
	tpu_close(dev);
out_val:
	set_free(&val);
out_train:
	set_free(&train);
	return rc;
}
