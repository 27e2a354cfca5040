/* `tpu train` (cmd_train.c parses the command line and loads the data, train_run.c runs the
 * epochs, writes checkpoints and the model). */
#ifndef TPU_CLI_TRAIN_CLI_H
#define TPU_CLI_TRAIN_CLI_H

#include <stdbool.h>

#include "cli.h"
#include "train/train.h"

struct train_opts {
	const char *model;       /* "mlp", "cnn" or a model file (.tpum) */
	const char *data, *labels, *val_data, *val_labels;
	const char *checkpoint, *resume, *output;
	unsigned epochs;
	unsigned stop_after;      /* stop after this epoch (0: run all) */
	size_t limit;             /* train on the first limit examples (0: all) */
	size_t batch;
	enum tpu_optim_kind optim;
	double lr, weight_decay;  /* lr 0: AdamW's default for the net (train_run.c) */
	unsigned long long seed;
	bool json;
};

/* A loaded data set: fp32 inputs for the trainer and, for uint8 pixel files, the pixels as a
 * tr_digits (what calibration for -o reads). */
struct train_set {
	struct tr_dev_data d;
	float *x;
	uint8_t *y;
	struct tr_digits pixels; /* n = 0 unless the file held uint8 pixels */
};

/* The digits net of model ("mlp": 64 -> dense 64 + ReLU -> dense 10; "cnn": 8x8x1 -> conv 3x3
 * x8 pad 1 + ReLU -> max-pool 2x2/2 -> dense 10, as sw/train's shipped models; otherwise the
 * path of a model file whose layer shapes and activations, not its weights, make the net:
 * 8x8x1 in, 10 classes, CONV2D with a square kernel, stride 1 and one padding on every side,
 * MAXPOOL2D with a square window and equal strides, DENSE; activation none or ReLU, none on the
 * last layer, at most TR_MAX_LAYERS layers) for batches of up to batch, He-uniform weights
 * from seed; name (TPU_MODEL_NAME_MAX bytes) gets the -o model's name ("digits-mlp",
 * "digits-cnn" or the file's). Returns 0 or -EINVAL (err names the layer and field), -ENOENT,
 * -EIO, -ENOMEM (err says so); the net is to be freed (tr_net_free) either way. */
int train_build_net(struct tr_net *net, const char *model, size_t batch, uint64_t seed,
		    char *name, char *err, size_t errlen);

/* Train as o says on dev; returns the exit code (messages printed). */
int train_run(const struct cli_ctx *ctx, const struct train_opts *o, tpu_dev *dev,
	      const struct train_set *train, const struct train_set *val);

#endif /* TPU_CLI_TRAIN_CLI_H */
