/* `tpu run`: a model file (docs/model-format.md) on a data set, with accuracy, predictions,
 * device figures and, with --compare, the agreement with a second device. Every argument and
 * file is checked before a device is opened; each failure is one line naming the file or
 * option. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "model_input.h"
#include "npy.h"
#include "run.h"
#include "tpu/model.h"

static void help(void)
{
	printf(
	    "usage: tpu run [--device URI] MODEL DATA.npy [--labels LABELS.npy] [-o PRED.npy]\n"
	    "               [--outputs OUT.npy] [--json] [--compare URI] [--quantized]\n"
	    "\n"
	    "Run a quantized model (a .tpum file, docs/model-format.md) on every example of\n"
	    "DATA.npy and report the accuracy, the device's cycles and MXU utilization, the\n"
	    "device time at the nominal 1 GHz clock and the images/s it gives, and the float and\n"
	    "int8 accuracy recorded in the model.\n"
	    "\n"
	    "DATA.npy holds raw values, shape (B, H, W), (B, H, W, C) or (B, H*W*C) for the\n"
	    "model's H x W x C input, or one example (H*W*C,), any of int8, uint8, int32,\n"
	    "float32; they are divided by the model's input range and quantized with its input\n"
	    "scale and zero point (with --quantized, int8 values are taken as they are, or\n"
	    "uint8 ones for a model with a uint8 input, e.g. one from `tpu import`). A model\n"
	    "imported from an NCHW ONNX graph takes (B, C, H, W), or (B, C*H*W) in that\n"
	    "order, and reorders it for the device itself.\n"
	    "\n"
	    "Options:\n"
	    "  --labels LABELS.npy  the classes, int8/uint8/int32 of shape (B,): report accuracy\n"
	    "  -o, --output PRED.npy  write the predicted classes (int32, shape (B,))\n"
	    "  --outputs OUT.npy    write the raw quantized outputs, shape (B, outputs), or\n"
	    "                       (B, C, H, W) for a model with an NCHW output: int8,\n"
	    "                       or uint8 for a model with a uint8 output, int32 for one\n"
	    "                       with an int32 output (ONNX MatMulInteger, ConvInteger)\n"
	    "  --json               print one JSON object instead of the text report\n"
	    "  --compare URI        run the same inputs on a second device and compare the\n"
	    "                       predictions and the raw outputs (exit 1 if they differ)\n"
	    "  --quantized          DATA.npy is int8 and already quantized\n"
	    "  --device URI         device to use (default: the global --device)\n"
	    "  -h, --help           this help\n"
	    "\n"
	    "Examples go to the device %d at a time; a progress bar is shown on stderr when it\n"
	    "is a terminal.\n"
	    "\n"
	    "Exit status: 0 success, 1 device failure or --compare disagreement, 2 bad\n"
	    "arguments or input files.\n",
	    RUN_CHUNK);
}

enum {
	OPT_LABELS = 1,
	OPT_OUT,
	OPT_JSON,
	OPT_COMPARE,
	OPT_QUANTIZED,
	OPT_DEVICE,
	OPT_HELP,
	OPT_RAW,
};

static const struct cli_opt opts[] = {
    {"labels", 0, true, OPT_LABELS},	    {"output", 'o', true, OPT_OUT},
    {"json", 0, false, OPT_JSON},	    {"compare", 0, true, OPT_COMPARE},
    {"quantized", 0, false, OPT_QUANTIZED}, {"device", 0, true, OPT_DEVICE},
    {"help", 'h', false, OPT_HELP},	    {"outputs", 0, true, OPT_RAW},
    {NULL, 0, false, 0},
};

struct run_args {
	const char *device, *model, *data, *labels, *out, *compare, *raw;
	bool json, quantized;
};

/* Returns CLI_EXIT_OK to go on, -1 after --help, or CLI_EXIT_USAGE. */
static int parse_args(const struct cli_ctx *ctx, int argc, char **argv, struct run_args *a)
{
	struct cli_pair pos = {.names = {"MODEL", "DATA.npy"}};
	struct cli_scan sc;
	const char *val;
	int id;
	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			if (cli_pair_add(ctx, &pos, val))
				return CLI_EXIT_USAGE;
			break;
		case OPT_LABELS:
			a->labels = val;
			break;
		case OPT_OUT:
			a->out = val;
			break;
		case OPT_RAW:
			a->raw = val;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_COMPARE:
			a->compare = val;
			break;
		case OPT_QUANTIZED:
			a->quantized = true;
			break;
		case OPT_DEVICE:
			a->device = val;
			break;
		case OPT_HELP:
			help();
			return -1;
		}
	}
	if (cli_pair_done(ctx, &pos, "tpu run MODEL DATA.npy [options]"))
		return CLI_EXIT_USAGE;
	a->model = pos.val[0];
	a->data = pos.val[1];
	return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ inputs */

struct run_inputs {
	struct tpu_model *model;
	size_t batch;
	int8_t *q;	 /* batch x in_h*in_w*in_c, quantized */
	int32_t *labels; /* batch, or NULL */
};

static int load_labels(const struct cli_ctx *ctx, const char *path, struct run_inputs *in)
{
	struct npy_array l;
	char err[512], shape[128];
	if (npy_load(path, NPY_RANK1, &l, err, sizeof(err))) {
		cli_error(ctx, "%s: %s", path, err);
		return -1;
	}
	int rc = -1;
	if (l.dtype == NPY_FLOAT32) {
		cli_error(ctx, "%s: dtype %s, but labels must be integers (int8, uint8, int32)",
			  path, npy_dtype_name(l.dtype));
		goto out;
	}
	if (l.count != in->batch) {
		cli_error(ctx, "%s: shape %s, but the data has %zu examples", path,
			  npy_shape_str(&l, shape, sizeof(shape)), in->batch);
		goto out;
	}
	in->labels = malloc(in->batch * sizeof(int32_t));
	if (!in->labels) {
		cli_error(ctx, "%s: out of memory", path);
		goto out;
	}
	for (size_t i = 0; i < l.count; i++) {
		int32_t v = l.dtype == NPY_INT8	   ? ((const int8_t *)l.data)[i]
			    : l.dtype == NPY_UINT8 ? ((const uint8_t *)l.data)[i]
						   : ((const int32_t *)l.data)[i];
		if (v < 0 || (uint32_t)v >= in->model->num_classes) {
			cli_error(ctx, "%s: label[%zu] = %d outside 0..%u (the model's classes)",
				  path, i, (int)v, in->model->num_classes - 1);
			goto out;
		}
		in->labels[i] = v;
	}
	rc = 0;
out:
	npy_free(&l);
	return rc;
}

static int load_inputs(const struct cli_ctx *ctx, const struct run_args *a, struct run_inputs *in)
{
	if (cli_model_load(ctx, a->model, &in->model) ||
	    cli_model_input_load(ctx, a->data, in->model, a->quantized, &in->q, &in->batch))
		return -1;
	if (a->labels && load_labels(ctx, a->labels, in))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ running */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(bool on, const char *what, size_t done, size_t total)
{
	if (!on)
		return;
	const int width = 30;
	int fill = total ? (int)((double)width * (double)done / (double)total) : width;
	fprintf(stderr, "\r%-8.8s [%.*s%*s] %zu/%zu", what, fill, "##############################",
		width - fill, "", done, total);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

static void add_stats(struct tpu_layer_stats *to, const struct tpu_layer_stats *s)
{
	to->cycles += s->cycles;
	to->mxu_busy_cycles += s->mxu_busy_cycles;
	to->macs += s->macs;
	to->dma_read_bytes += s->dma_read_bytes;
	to->dma_write_bytes += s->dma_write_bytes;
	to->wall_seconds += s->wall_seconds;
}

/* Bytes of one output value: 4 for an INT32 model, else 1. */
static size_t out_size(const struct tpu_model *m)
{
	return m->out_type == TPU_IO_INT32 ? sizeof(int32_t) : 1;
}

/* Output i of out (int8, or int32 for an INT32 model). */
static int32_t out_at(const struct tpu_model *m, const void *out, size_t i)
{
	return m->out_type == TPU_IO_INT32 ? ((const int32_t *)out)[i] : ((const int8_t *)out)[i];
}

/* Index of the largest of example b's outputs (the first on ties). */
static int32_t argmax(const struct tpu_model *m, const void *out, size_t b)
{
	size_t n = m->num_classes, best = 0;
	for (size_t i = 1; i < n; i++)
		if (out_at(m, out, b * n + i) > out_at(m, out, b * n + best))
			best = i;
	return (int32_t)best;
}

/* Run every example on uri into out (batch x num_classes of out_size bytes); stats and info may
 * be NULL. Returns 0 or the exit code (one line printed). */
static int run_device(const struct cli_ctx *ctx, const char *uri, const struct run_inputs *in,
		      void *out, struct tpu_model_stats *stats, struct tpu_info *info,
		      double *wall)
{
	struct tpu_info local;
	tpu_dev *dev;
	int err = cli_open(ctx, uri, &dev, info ? info : &local);
	if (err)
		return cli_open_exit(err);
	const struct tpu_model *m = in->model;
	size_t per = (size_t)m->in_h * m->in_w * m->in_c;
	bool bar = isatty(STDERR_FILENO);
	struct tpu_model_stats st;
	if (stats) {
		memset(stats, 0, sizeof(*stats));
		stats->n_layers = m->n_layers;
	}
	double t0 = now_seconds();
	int rc = 0;
	for (size_t done = 0; done < in->batch;) {
		size_t cnt = in->batch - done < RUN_CHUNK ? in->batch - done : RUN_CHUNK;
		progress(bar, uri, done, in->batch);
		const int8_t *x = in->q + done * per;
		void *y = (char *)out + done * m->num_classes * out_size(m);
		rc = m->out_type == TPU_IO_INT32 ? tpu_model_run_i32(dev, m, cnt, x, y, &st)
						 : tpu_model_run(dev, m, cnt, x, y, &st);
		if (rc) {
			const char *why = tpu_ops_last_error(dev);
			if (bar)
				fputs("\r\033[K", stderr);
			cli_error(ctx, "device '%s': examples %zu..%zu: %s%s%s%s", uri, done,
				  done + cnt - 1, tpu_strerror(rc), *why ? " (" : "", why,
				  *why ? ")" : "");
			break;
		}
		if (stats)
			for (uint32_t i = 0; i < m->n_layers; i++) {
				add_stats(&stats->layer[i], &st.layer[i]);
				add_stats(&stats->total, &st.layer[i]);
			}
		done += cnt;
		progress(bar, uri, done, in->batch);
	}
	if (wall)
		*wall = now_seconds() - t0;
	tpu_close(dev);
	return rc ? CLI_EXIT_FAIL : 0;
}

static int write_predictions(const struct cli_ctx *ctx, const char *path, const int32_t *pred,
			     size_t n)
{
	struct npy_array a = {
	    .dtype = NPY_INT32, .rank = 1, .shape = {n, 1, 1, 1}, .count = n, .data = (void *)pred};
	char err[512];
	if (npy_save(path, &a, 0, err, sizeof(err))) {
		cli_error(ctx, "%s: %s", path, err);
		return -1;
	}
	return 0;
}

/* The raw outputs (batch x num_classes, in the user's order) as int8, uint8 (+ 128) for a uint8
 * output, int32 for an int32 one; (B, C, H, W) for an NCHW output. */
static int write_outputs(const struct cli_ctx *ctx, const char *path, const struct tpu_model *m,
			 void *outv, size_t batch)
{
	size_t n = batch * m->num_classes;
	int8_t *out = outv;
	bool u8 = m->out_type == TPU_IO_UINT8;
	struct npy_array a = {.dtype = m->out_type == TPU_IO_INT32 ? NPY_INT32
				       : u8		       ? NPY_UINT8
							       : NPY_INT8,
			      .rank = 2,
			      .shape = {batch, m->num_classes, 1, 1},
			      .count = n,
			      .data = out};
	if (m->io_layout & TPU_LAYOUT_OUT_NCHW) {
		uint32_t h, w, c;
		tpu_model_layer_out_shape(m, m->n_layers - 1, &h, &w, &c);
		a.rank = 4;
		a.shape[1] = c;
		a.shape[2] = h;
		a.shape[3] = w;
	}
	char err[512];
	if (u8)
		for (size_t i = 0; i < n; i++)
			((uint8_t *)out)[i] = (uint8_t)(out[i] + 128);
	int rc = npy_save(path, &a, 0, err, sizeof(err));
	if (u8)
		for (size_t i = 0; i < n; i++)
			out[i] = (int8_t)(((uint8_t *)out)[i] - 128);
	if (rc) {
		cli_error(ctx, "%s: %s", path, err);
		return -1;
	}
	return 0;
}

/* The device's NHWC outputs in the model's output layout (NCHW: reordered in place). */
static int to_user_order(const struct cli_ctx *ctx, const struct tpu_model *m, void *out,
			 size_t batch)
{
	uint32_t h, w, c;
	if (!(m->io_layout & TPU_LAYOUT_OUT_NCHW))
		return 0;
	tpu_model_layer_out_shape(m, m->n_layers - 1, &h, &w, &c);
	return cli_reorder(ctx, out, out_size(m), batch, h, w, c, true);
}

static int run_all(const struct cli_ctx *ctx, const struct run_args *a, struct run_inputs *in)
{
	const struct tpu_model *m = in->model;
	size_t nout = in->batch * m->num_classes, per = m->num_classes * out_size(m);
	char *out = malloc(nout * out_size(m)), *cmp = a->compare ? malloc(nout * out_size(m)) : NULL;
	int32_t *pred = malloc(in->batch * sizeof(int32_t));
	struct run_result *r = calloc(1, sizeof(*r));
	struct tpu_info info;
	int ret = CLI_EXIT_FAIL;
	if (!out || !pred || !r || (a->compare && !cmp)) {
		cli_error(ctx, "out of memory for %zu outputs", nout);
		goto out_free;
	}
	if ((ret = run_device(ctx, a->device, in, out, &r->stats, &info, &r->wall_seconds)))
		goto out_free;
	ret = CLI_EXIT_FAIL;
	if (to_user_order(ctx, m, out, in->batch))
		goto out_free;
	r->model_path = a->model;
	r->model = m;
	r->device = a->device;
	snprintf(r->backend, sizeof(r->backend), "%s", info.backend);
	r->array_n = info.array_n;
	r->examples = in->batch;
	r->pred_path = a->out;
	for (size_t b = 0; b < in->batch; b++) {
		pred[b] = argmax(m, out, b);
		if (in->labels && pred[b] == in->labels[b])
			r->correct++;
	}
	r->have_labels = in->labels != NULL;
	if (a->compare) {
		/* --trace is for the device under test only */
		struct cli_ctx cctx = *ctx;
		cctx.trace = NULL;
		if ((ret = run_device(&cctx, a->compare, in, cmp, NULL, NULL, NULL)))
			goto out_free;
		ret = CLI_EXIT_FAIL;
		if (to_user_order(ctx, m, cmp, in->batch))
			goto out_free;
		r->compare = a->compare;
		for (size_t b = 0; b < in->batch; b++) {
			r->raw_agree += !memcmp(out + b * per, cmp + b * per, per);
			r->pred_agree += pred[b] == argmax(m, cmp, b);
		}
	}
	if (a->out && write_predictions(ctx, a->out, pred, in->batch))
		goto out_free;
	if (a->raw && write_outputs(ctx, a->raw, m, out, in->batch))
		goto out_free;
	if (a->json)
		run_print_json(r);
	else
		run_print_text(r);
	ret = CLI_EXIT_OK;
	if (a->compare && (r->pred_agree != in->batch || r->raw_agree != in->batch)) {
		fflush(stdout);
		cli_error(ctx,
			  "%s and %s disagree: %zu of %zu predictions and %zu of %zu raw "
			  "outputs differ",
			  a->device, a->compare, in->batch - r->pred_agree, in->batch,
			  in->batch - r->raw_agree, in->batch);
		ret = CLI_EXIT_FAIL;
	}
out_free:
	free(r);
	free(pred);
	free(cmp);
	free(out);
	return ret;
}

int cmd_run(const struct cli_ctx *ctx, int argc, char **argv)
{
	struct run_args a = {.device = ctx->device};
	int rc = parse_args(ctx, argc, argv, &a);
	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	struct run_inputs in = {0};
	rc = load_inputs(ctx, &a, &in) ? CLI_EXIT_USAGE : run_all(ctx, &a, &in);
	free(in.q);
	free(in.labels);
	tpu_model_free(in.model);
	return rc;
}
