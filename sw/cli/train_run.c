/* `tpu train`'s epochs (train_cli.h): the net, the device trainer (sw/train dev_net.c), seeded
 * shuffling, the cosine schedule, a progress line or JSON object per epoch, checkpoints
 * (sw/train ckpt.c) and the int8 model (sw/train quant.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "train_cli.h"

struct run {
	const struct cli_ctx *ctx;
	const struct train_opts *o;
	double lr;       /* o->lr, or the default for the net */
	char name[TPU_MODEL_NAME_MAX]; /* of the -o model */
	struct tr_net net;
	struct tr_dev dev;
	uint64_t rng;
	unsigned epoch;  /* epochs done */
	size_t step;     /* steps done */
	size_t *idx;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t lr_bits(double lr)
{
	uint64_t b;

	memcpy(&b, &lr, sizeof(b));
	return b;
}

static const char *const layer_name[] = { [TPU_LAYER_CONV2D] = "CONV2D",
					   [TPU_LAYER_MAXPOOL2D] = "MAXPOOL2D",
					   [TPU_LAYER_DENSE] = "DENSE" };

/* Layer i of a (validated) model file appended to net: its shape and activation only. */
static int add_file_layer(struct tr_net *net, const struct tpu_model *m, uint32_t i, char *err,
			  size_t errlen)
{
	const struct tpu_layer *l = &m->layers[i];
	const char *name = layer_name[l->type];
	bool last = i + 1 == m->n_layers;

	if (i >= TR_MAX_LAYERS)
		return tr_fail(err, errlen, -EINVAL, "%u layers: at most %d train", m->n_layers,
			       TR_MAX_LAYERS);
	if (l->type != TPU_LAYER_MAXPOOL2D && l->act != TPU_ACT_NONE &&
	    (l->act != TPU_ACT_RELU || last))
		return tr_fail(err, errlen, -EINVAL, "layer %u (%s): activation %u: only %s trains",
			       i, name, l->act, last ? "none (0) on the last layer (the logits)" :
			       "none (0) or relu (1)");
	if (last && l->type == TPU_LAYER_MAXPOOL2D)
		return tr_fail(err, errlen, -EINVAL, "layer %u (MAXPOOL2D): the last layer must be "
			       "CONV2D or DENSE (the logits)", i);
	if (l->type == TPU_LAYER_DENSE)
		return tr_net_add_dense(net, l->out_c, l->act == TPU_ACT_RELU);
	if (l->kernel_h != l->kernel_w)
		return tr_fail(err, errlen, -EINVAL, "layer %u (%s): kernel %ux%u: only square "
			       "kernels train", i, name, l->kernel_h, l->kernel_w);
	if (l->type == TPU_LAYER_MAXPOOL2D) {
		if (l->stride_h != l->stride_w)
			return tr_fail(err, errlen, -EINVAL, "layer %u (MAXPOOL2D): stride %ux%u: "
				       "only equal strides train", i, l->stride_h, l->stride_w);
		return tr_net_add_pool(net, l->kernel_h, l->stride_h);
	}
	if (l->stride_h != 1 || l->stride_w != 1)
		return tr_fail(err, errlen, -EINVAL, "layer %u (CONV2D): stride %ux%u: only stride "
			       "1 trains", i, l->stride_h, l->stride_w);
	if (l->pad_top != l->pad_bottom || l->pad_top != l->pad_left ||
	    l->pad_top != l->pad_right || l->pad_top >= l->kernel_h)
		return tr_fail(err, errlen, -EINVAL, "layer %u (CONV2D): padding %u,%u,%u,%u (top, "
			       "bottom, left, right): only one padding below the kernel size on "
			       "every side trains", i, l->pad_top, l->pad_bottom, l->pad_left,
			       l->pad_right);
	return tr_net_add_conv(net, l->out_c, l->kernel_h, l->pad_top, l->act == TPU_ACT_RELU);
}

/* The layers of the model file at path (its weights are not read into the net). */
static int add_file_layers(struct tr_net *net, const char *path, char *name, char *err,
			   size_t errlen)
{
	struct tpu_model *m;
	int ret = tpu_model_load(path, &m, err, errlen);

	if (ret)
		return ret;
	if (m->in_h != TR_DIGITS_H || m->in_w != TR_DIGITS_W || m->in_c != 1 ||
	    m->num_classes != TR_DIGITS_CLASSES)
		ret = tr_fail(err, errlen, -EINVAL, "input %ux%ux%u, %u classes: only digits "
			      "models train (8x8x1 in, 10 classes)", m->in_h, m->in_w, m->in_c,
			      m->num_classes);
	for (uint32_t i = 0; !ret && i < m->n_layers; i++) {
		ret = add_file_layer(net, m, i, err, errlen);
		if (ret == -EINVAL && !err[0])
			tr_fail(err, errlen, ret, "layer %u (%s): its shape does not train", i,
				layer_name[m->layers[i].type]);
	}
	if (!ret)
		snprintf(name, TPU_MODEL_NAME_MAX, "%s", m->name);
	tpu_model_free(m);
	return ret;
}

int train_build_net(struct tr_net *net, const char *model, size_t batch, uint64_t seed,
		    char *name, char *err, size_t errlen)
{
	uint64_t init = seed;
	int ret = 0;

	err[0] = '\0';
	/* at least 64 rows: evaluation runs in batches of max_batch */
	tr_net_init(net, TR_DIGITS_H, TR_DIGITS_W, 1, batch > 64 ? batch : 64);
	if (!strcmp(model, "mlp")) {
		ret = tr_net_add_dense(net, 64, true);
		if (!ret)
			ret = tr_net_add_dense(net, TR_DIGITS_CLASSES, false);
	} else if (!strcmp(model, "cnn")) {
		ret = tr_net_add_conv(net, 8, 3, 1, true);
		if (!ret)
			ret = tr_net_add_pool(net, 2, 2);
		if (!ret)
			ret = tr_net_add_dense(net, TR_DIGITS_CLASSES, false);
	} else {
		ret = add_file_layers(net, model, name, err, errlen);
	}
	if (!ret && (!strcmp(model, "mlp") || !strcmp(model, "cnn")))
		snprintf(name, TPU_MODEL_NAME_MAX, "digits-%s", model);
	if (!ret)
		ret = tr_net_alloc(net, &init);
	if (ret && !err[0])
		snprintf(err, errlen, "cannot build it (%s)", strerror(-ret));
	return ret;
}

/* AdamW's default peak rate when --lr is not given: the host trainer's, 1e-2 for a net with a
 * conv layer (the CNN), else 3e-3 (the MLP; docs/models.md). */
static double default_lr(const struct tr_net *net)
{
	for (size_t l = 0; l < net->n_layers; l++)
		if (net->layer[l].kind == TR_CONV)
			return 1e-2;
	return 3e-3;
}

static void ckpt_fill(const struct run *r, struct tr_ckpt *c)
{
	memset(c, 0, sizeof(*c));
	c->meta[TR_META_VERSION] = TR_CKPT_VERSION;
	c->meta[TR_META_MODEL] = !strcmp(r->o->model, "mlp")   ? TR_MODEL_MLP
				 : !strcmp(r->o->model, "cnn") ? TR_MODEL_CNN
							       : TR_MODEL_FILE;
	c->meta[TR_META_EPOCH] = r->epoch;
	c->meta[TR_META_STEP] = r->step;
	c->meta[TR_META_OPTIM] = (uint64_t)r->o->optim;
	c->meta[TR_META_OPTIM_T] = r->dev.opt.t;
	c->meta[TR_META_RNG] = r->rng;
	c->meta[TR_META_SEED] = r->o->seed;
	c->meta[TR_META_PARAMS] = r->net.n_params;
	c->meta[TR_META_BATCH] = r->o->batch;
	c->meta[TR_META_EPOCHS] = r->o->epochs;
	c->meta[TR_META_LR_BITS] = lr_bits(r->lr);
	c->n = r->net.n_params;
	c->param = r->dev.param;
	c->m = r->dev.opt.m;
	c->v = r->dev.opt.v;
}

/* The checkpoint must come from the same command: name the first field that differs. */
static int resume(struct run *r, size_t n_train)
{
	static const char *const names[TR_CKPT_META] = {
		[TR_META_MODEL] = "model (--model)", [TR_META_OPTIM] = "optimizer (--optimizer)",
		[TR_META_SEED] = "seed (--seed)", [TR_META_PARAMS] = "parameter count",
		[TR_META_BATCH] = "batch (--batch)", [TR_META_EPOCHS] = "epochs (--epochs)",
		[TR_META_LR_BITS] = "learning rate (--lr)",
	};
	struct tr_ckpt want, c;
	char err[512];
	int ret = tr_ckpt_load(r->o->resume, &c, err, sizeof(err));

	if (ret) {
		cli_error(r->ctx, "--resume: %s", err);
		return CLI_EXIT_USAGE;
	}
	ckpt_fill(r, &want);
	for (int i = 0; i < TR_CKPT_META; i++)
		if (names[i] && c.meta[i] != want.meta[i]) {
			cli_error(r->ctx, "--resume %s: its %s is %llu, this run's is %llu",
				  r->o->resume, names[i], (unsigned long long)c.meta[i],
				  (unsigned long long)want.meta[i]);
			tr_ckpt_free(&c);
			return CLI_EXIT_USAGE;
		}
	memcpy(r->dev.param, c.param, c.n * sizeof(float));
	memcpy(r->dev.opt.m, c.m, c.n * sizeof(float));
	if (c.v)
		memcpy(r->dev.opt.v, c.v, c.n * sizeof(float));
	r->dev.opt.t = c.meta[TR_META_OPTIM_T];
	r->epoch = (unsigned)c.meta[TR_META_EPOCH];
	/* each epoch shuffles the previous permutation: replay them from the seed, which must
	 * land on the checkpoint's RNG state */
	for (unsigned e = 0; e < r->epoch && e < r->o->epochs; e++)
		tr_shuffle(r->idx, n_train, &r->rng);
	if (r->rng != c.meta[TR_META_RNG] || r->epoch > r->o->epochs) {
		cli_error(r->ctx, "--resume %s: its RNG state or epoch (%u) does not follow from "
			  "seed %llu on this data set", r->o->resume, r->epoch, r->o->seed);
		tr_ckpt_free(&c);
		return CLI_EXIT_USAGE;
	}
	r->step = (size_t)c.meta[TR_META_STEP];
	tr_ckpt_free(&c);
	return 0;
}

struct epoch_fig {
	double loss, train_acc, val_acc, host_s, device_s;
	uint64_t cycles, macs;
};

static int run_epoch(struct run *r, const struct train_set *train, struct epoch_fig *f)
{
	const struct tr_dev_data *d = &train->d;
	size_t per_epoch = (d->n + r->o->batch - 1) / r->o->batch;
	size_t steps = per_epoch * r->o->epochs, correct = 0;
	struct tpu_train_stats s0 = r->dev.ctx.stats;
	double loss_sum = 0.0, t0 = now();
	char err[512];

	tr_shuffle(r->idx, d->n, &r->rng);
	for (size_t b0 = 0; b0 < d->n; b0 += r->o->batch) {
		size_t n = d->n - b0 < r->o->batch ? d->n - b0 : r->o->batch;
		double loss;
		int ret = tr_dev_step(&r->dev, d, r->idx + b0, n,
				      tr_cosine_lr(r->lr, r->step, steps), &loss, err,
				      sizeof(err));

		if (ret) {
			cli_error(r->ctx, "epoch %u, step %zu: %s%s", r->epoch + 1, r->step + 1, err,
				  ret == -EDOM ? " (the run diverged: try a lower --lr)" : "");
			return CLI_EXIT_FAIL;
		}
		loss_sum += loss * (double)n;
		/* running training accuracy from the step's own logits */
		const float *lg = r->dev.act[r->net.n_layers - 1];
		for (size_t i = 0; i < n; i++)
			correct += tr_dev_argmax(lg + i * TR_DIGITS_CLASSES, TR_DIGITS_CLASSES) ==
				   r->dev.y[i];
		r->step++;
	}
	r->epoch++;
	f->loss = loss_sum / (double)d->n;
	f->train_acc = (double)correct / (double)d->n;
	f->cycles = r->dev.ctx.stats.cycles - s0.cycles;
	f->macs = r->dev.ctx.stats.macs - s0.macs;
	f->device_s = r->dev.ctx.stats.device_seconds - s0.device_seconds;
	f->host_s = now() - t0 - f->device_s;
	return 0;
}

static void report(const struct run *r, const struct epoch_fig *f)
{
	uint64_t n = r->dev.ctx.array_n;
	double util = f->cycles ? (double)f->macs / ((double)(n * n) * (double)f->cycles) : 0.0;

	if (r->o->json) {
		printf("{\"epoch\": %u, \"step\": %zu, \"loss\": %.6f, \"train_accuracy\": %.6f, "
		       "\"val_accuracy\": %.6f, \"device_cycles\": %llu, \"macs\": %llu, "
		       "\"mxu_utilization\": %.6f, \"device_seconds\": %.4f, "
		       "\"host_seconds\": %.4f}\n",
		       r->epoch, r->step, f->loss, f->train_acc, f->val_acc,
		       (unsigned long long)f->cycles, (unsigned long long)f->macs, util,
		       f->device_s, f->host_s);
	} else {
		printf("epoch %3u/%u  loss %.4f  train %.2f %%  val %.2f %%  cycles %llu  "
		       "util %.1f %%  host %.3f s\n",
		       r->epoch, r->o->epochs, f->loss, 100.0 * f->train_acc, 100.0 * f->val_acc,
		       (unsigned long long)f->cycles, 100.0 * util, f->host_s);
	}
	fflush(stdout);
}

static int save_ckpt(const struct run *r)
{
	struct tr_ckpt c;
	char err[512], sha[65];

	ckpt_fill(r, &c);
	if (tr_ckpt_save(r->o->checkpoint, &c, sha, err, sizeof(err))) {
		cli_error(r->ctx, "--checkpoint: %s", err);
		return CLI_EXIT_FAIL;
	}
	if (!r->o->json)
		printf("checkpoint %s sha256 %s\n", r->o->checkpoint, sha);
	else
		printf("{\"checkpoint\": \"%s\", \"sha256\": \"%s\"}\n", r->o->checkpoint, sha);
	return 0;
}

/* -o: quantize the master weights through sw/train (calibrated on the training pixels). */
static int save_model(struct run *r, const struct train_set *train, const struct train_set *val)
{
	double lo[TR_MAX_LAYERS], hi[TR_MAX_LAYERS], acc = 0.0;
	struct tpu_model *m = NULL;
	char err[512] = "";
	int ret;

	if (!train->pixels.n) {
		cli_error(r->ctx, "-o: the training data must be uint8 pixels 0..16 (the int8 model "
			  "quantizes its input as pixel / 16)");
		return CLI_EXIT_USAGE;
	}
	tr_dev_export(&r->dev);
	tr_calibrate(&r->net, &train->pixels, lo, hi);
	ret = tr_quantize(&r->net, lo, hi, r->name, &m, err, sizeof(err));
	if (!ret && val->pixels.n)
		ret = tr_eval_int8(m, &val->pixels, &acc);
	if (!ret) {
		m->float_accuracy = (float)tr_eval_float(&r->net, &val->pixels, NULL);
		m->int8_accuracy = (float)acc;
		ret = tpu_model_save(m, r->o->output, err, sizeof(err));
	}
	tpu_model_free(m);
	if (ret) {
		cli_error(r->ctx, "-o %s: %s", r->o->output, err[0] ? err : strerror(-ret));
		return CLI_EXIT_FAIL;
	}
	if (r->o->json)
		printf("{\"model\": \"%s\", \"int8_val_accuracy\": %.6f}\n", r->o->output, acc);
	else
		printf("model %s: int8 val %.2f %%\n", r->o->output, 100.0 * acc);
	return 0;
}

int train_run(const struct cli_ctx *ctx, const struct train_opts *o, tpu_dev *dev,
	      const struct train_set *train, const struct train_set *val)
{
	struct run r = { .ctx = ctx, .o = o, .rng = o->seed };
	char err[512];
	int rc = train_build_net(&r.net, o->model, o->batch, o->seed, r.name, err, sizeof(err));

	if (rc) {
		cli_error(ctx, "--model %s: %s", o->model, err);
		tr_net_free(&r.net);
		return rc == -ENOMEM || rc == -EIO ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	r.lr = o->lr ? o->lr : default_lr(&r.net);
	rc = tr_dev_init(&r.dev, &r.net, dev, o->optim, o->weight_decay, err, sizeof(err));
	if (rc) {
		cli_error(ctx, "--model %s: %s", o->model, err);
		rc = rc == -ENOTSUP ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		goto out_net;
	}
	r.idx = malloc(train->d.n * sizeof(*r.idx));
	if (!r.idx) {
		cli_error(ctx, "out of memory");
		rc = CLI_EXIT_FAIL;
		goto out_dev;
	}
	for (size_t i = 0; i < train->d.n; i++)
		r.idx[i] = i;
	rc = o->resume ? resume(&r, train->d.n) : 0;
	unsigned last = o->stop_after && o->stop_after < o->epochs ? o->stop_after : o->epochs;
	while (!rc && r.epoch < last) {
		struct epoch_fig f;

		rc = run_epoch(&r, train, &f);
		if (!rc && tr_dev_eval(&r.dev, &val->d, &f.val_acc, NULL, err, sizeof(err))) {
			cli_error(ctx, "epoch %u: validation: %s", r.epoch, err);
			rc = CLI_EXIT_FAIL;
		}
		if (!rc)
			report(&r, &f);
		if (!rc && o->checkpoint)
			rc = save_ckpt(&r);
	}
	if (!rc && o->output)
		rc = save_model(&r, train, val);
	free(r.idx);
out_dev:
	tr_dev_free(&r.dev);
out_net:
	tr_net_free(&r.net);
	return rc;
}
