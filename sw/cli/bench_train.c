/* `tpu bench train --model mlp|cnn`: training steps of a digits model on the device (the
 * trainer of `tpu train`, sw/train dev_net.c) on random examples, with
 *   per step: device cycles of the forward, backward and update phases (the update runs on the
 *             host: 0 device cycles), MXU utilization = MACs / (N^2 x cycles), images/s at the
 *             nominal 1 GHz clock = batch / (cycles / 1e9), wall seconds per phase;
 *   per layer: each GEMM of the first step (forward y = x·W, backward dW = Xᵀ·dY and
 *             dX = dY·Wᵀ) with its shape and cycles, and each backward GEMM's cycles over the
 *             forward's (docs/training.md "Backward against forward").
 * The cycles depend on the shapes only, not on the values. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "json.h"
#include "train_cli.h"

#define CLOCK_HZ 1e9
#define TRACE_CAP 32

static void help(void)
{
	printf("usage: tpu bench train --model mlp|cnn [options]\n"
	       "\n"
	       "Run training steps of the digits MLP or CNN (the nets of `tpu train`) on random\n"
	       "examples on a device with the bf16 mode and report per step the device cycles of\n"
	       "the forward, backward and update phases, MXU utilization, images/s at the nominal\n"
	       "1 GHz clock and wall seconds per phase; per layer each GEMM of one step (forward,\n"
	       "dW = X^T dY, dX = dY W^T) with its shape, cycles and backward / forward ratio.\n"
	       "\n"
	       "Options:\n"
	       "  --model mlp|cnn  the net (required)\n"
	       "  --batch B        examples per step, 1..4096 (default 32)\n"
	       "  --steps S        steps to run, 1..10000 (default 10)\n"
	       "  --json           print one JSON object instead of the table\n"
	       "  --device URI     device to use (default: the global --device)\n"
	       "  -h, --help       this help\n"
	       "\n"
	       "Exit status: 0 success, 1 device failure, 2 bad arguments or a device without\n"
	       "the bf16 mode.\n");
}

enum { OPT_MODEL = 1, OPT_BATCH, OPT_STEPS, OPT_JSON, OPT_DEVICE, OPT_HELP };

static const struct cli_opt train_opts[] = {
    {"model", 0, true, OPT_MODEL}, {"batch", 0, true, OPT_BATCH},
    {"steps", 0, true, OPT_STEPS}, {"json", 0, false, OPT_JSON},
    {"device", 0, true, OPT_DEVICE}, {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

struct bench_args {
	const char *device, *model;
	long batch, steps;
	bool json;
};

static int parse(const struct cli_ctx *ctx, int argc, char **argv, struct bench_args *a)
{
	struct cli_scan sc;
	const char *val;
	int id;

	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, train_opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			cli_error(ctx, "unexpected argument '%s' (see tpu bench train --help)", val);
			return CLI_EXIT_USAGE;
		case OPT_MODEL:
			a->model = val;
			break;
		case OPT_BATCH:
			if (cli_parse_long(val, 1, 4096, &a->batch)) {
				cli_error(ctx, "--batch '%s': must be an integer 1..4096", val);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_STEPS:
			if (cli_parse_long(val, 1, 10000, &a->steps)) {
				cli_error(ctx, "--steps '%s': must be an integer 1..10000", val);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_DEVICE:
			a->device = val;
			break;
		case OPT_HELP:
			help();
			return -1;
		}
	}
	if (!a->model || (strcmp(a->model, "mlp") && strcmp(a->model, "cnn"))) {
		cli_error(ctx, "--model %s%s%s: must be mlp or cnn", a->model ? "'" : "",
			  a->model ? a->model : "is missing", a->model ? "'" : "");
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

/* One layer's GEMMs in the first step's trace (NULL where the layer has none). */
struct layer_gemms {
	const struct tpu_train_gemm_rec *fwd, *dw, *dx;
};

/* Attribute the trace of one step to the layers: the forward GEMMs in layer order, then the
 * backward in reverse layer order, dW then dX (none for the first layer). Pool layers have
 * none. Returns 0, or -EINVAL when the trace does not have that shape. */
static int attribute(const struct tr_net *net, const struct tpu_train_ctx *c,
		     struct layer_gemms *g)
{
	size_t t = 0;

	memset(g, 0, TR_MAX_LAYERS * sizeof(*g));
	for (size_t l = 0; l < net->n_layers; l++)
		if (net->layer[l].kind != TR_POOL)
			g[l].fwd = t < c->trace_len ? &c->trace[t++] : NULL;
	for (size_t l = net->n_layers; l-- > 0;) {
		if (net->layer[l].kind == TR_POOL)
			continue;
		g[l].dw = t < c->trace_len ? &c->trace[t++] : NULL;
		if (l)
			g[l].dx = t < c->trace_len ? &c->trace[t++] : NULL;
		if (!g[l].fwd || !g[l].dw || (l && !g[l].dx))
			return -EINVAL;
	}
	return t == c->trace_len ? 0 : -EINVAL;
}

static double ratio(const struct tpu_train_gemm_rec *b, const struct tpu_train_gemm_rec *f)
{
	return b && f && f->cycles ? (double)b->cycles / (double)f->cycles : 0.0;
}

static const char *kind_name(enum tr_kind k)
{
	return k == TR_DENSE ? "dense" : k == TR_CONV ? "conv2d" : "max-pool";
}

static void json_gemm(const char *key, const struct tpu_train_gemm_rec *r)
{
	printf(", \"%s\": ", key);
	if (!r) {
		fputs("null", stdout);
		return;
	}
	printf("{\"m\": %zu, \"n\": %zu, \"k\": %zu, \"trans_a\": %s, \"trans_b\": %s, "
	       "\"cycles\": %llu, \"macs\": %llu}",
	       r->m, r->n, r->k, r->trans_a ? "true" : "false", r->trans_b ? "true" : "false",
	       (unsigned long long)r->cycles, (unsigned long long)r->macs);
}

struct figures {
	const struct bench_args *a;
	const char *backend;
	uint32_t n;
	const struct tr_net *net;
	const struct tr_dev *d;
	const struct layer_gemms *g;
};

/* Per step: cycles of each phase, the step's, utilization and images/s at 1 GHz. */
static void step_figures(const struct figures *f, double cyc[TR_PHASES], double *total,
			 double *util, double *ips)
{
	double macs = 0.0;

	*total = 0.0;
	for (int p = 0; p < TR_PHASES; p++) {
		cyc[p] = (double)f->d->phase[p].cycles / (double)f->a->steps;
		*total += cyc[p];
		macs += (double)f->d->phase[p].macs / (double)f->a->steps;
	}
	*util = *total > 0 ? macs / ((double)f->n * f->n * *total) : 0.0;
	*ips = *total > 0 ? (double)f->a->batch * CLOCK_HZ / *total : 0.0;
}

static void print_json(const struct figures *f)
{
	static const char *const phase[TR_PHASES] = { "forward", "backward", "update" };
	double cyc[TR_PHASES], total, util, ips;

	step_figures(f, cyc, &total, &util, &ips);
	printf("{\"device\": ");
	cli_json_str(f->a->device);
	printf(", \"backend\": ");
	cli_json_str(f->backend);
	printf(", \"array\": %u, \"model\": \"%s\", \"batch\": %ld, \"steps\": %ld, "
	       "\"clock_hz\": %.0f, \"step_cycles\": %.1f",
	       f->n, f->a->model, f->a->batch, f->a->steps, CLOCK_HZ, total);
	for (int p = 0; p < TR_PHASES; p++)
		printf(", \"%s_cycles\": %.1f, \"%s_wall_seconds\": %.6f", phase[p], cyc[p], phase[p],
		       f->d->phase[p].wall_seconds / (double)f->a->steps);
	printf(", \"mxu_utilization\": %.6f, \"images_per_second\": %.1f, \"layers\": [", util,
	       ips);
	for (size_t l = 0, first = 1; l < f->net->n_layers; l++) {
		const struct layer_gemms *g = &f->g[l];

		if (!g->fwd)
			continue;
		printf("%s{\"layer\": %zu, \"kind\": \"%s\"", first ? "" : ", ", l,
		       kind_name(f->net->layer[l].kind));
		json_gemm("forward", g->fwd);
		json_gemm("dw", g->dw);
		json_gemm("dx", g->dx);
		printf(", \"dw_ratio\": %.4f, \"dx_ratio\": ", ratio(g->dw, g->fwd));
		if (g->dx)
			printf("%.4f}", ratio(g->dx, g->fwd));
		else
			fputs("null}", stdout);
		first = 0;
	}
	printf("]}\n");
}

static void print_gemm_row(const char *what, const struct tpu_train_gemm_rec *r,
			   const struct tpu_train_gemm_rec *fwd)
{
	if (!r)
		return;
	printf("  %-8s %5zu x %5zu x %5zu  %s%s  %9llu cycles", what, r->m, r->k, r->n,
	       r->trans_a ? "T" : "N", r->trans_b ? "T" : "N", (unsigned long long)r->cycles);
	if (r != fwd)
		printf("  %.2fx forward", ratio(r, fwd));
	printf("\n");
}

static void print_table(const struct figures *f)
{
	static const char *const phase[TR_PHASES] = { "forward", "backward", "update" };
	double cyc[TR_PHASES], total, util, ips;

	step_figures(f, cyc, &total, &util, &ips);
	printf("%-18s %s (%s), %u x %u array\n", "device", f->a->device, f->backend, f->n, f->n);
	printf("%-18s %s, batch %ld, %ld steps\n", "model", f->a->model, f->a->batch, f->a->steps);
	printf("%-18s %.0f cycles\n", "per step", total);
	for (int p = 0; p < TR_PHASES; p++)
		printf("%-18s %.0f cycles (%.1f %%), %.4f s wall\n", phase[p], cyc[p],
		       total > 0 ? 100.0 * cyc[p] / total : 0.0,
		       f->d->phase[p].wall_seconds / (double)f->a->steps);
	printf("%-18s %.1f %%\n", "mxu utilization", 100.0 * util);
	printf("%-18s %.0f (device cycles at 1 GHz)\n", "images/s", ips);
	printf("GEMMs of one step (m x k x n, transposes of A and B):\n");
	for (size_t l = 0; l < f->net->n_layers; l++) {
		const struct layer_gemms *g = &f->g[l];

		if (!g->fwd)
			continue;
		printf("layer %zu (%s)\n", l, kind_name(f->net->layer[l].kind));
		print_gemm_row("forward", g->fwd, g->fwd);
		print_gemm_row("dW", g->dw, g->fwd);
		print_gemm_row("dX", g->dx, g->fwd);
	}
}

/* Random pixel examples (0..16 / 16) and labels from a fixed seed. */
static int make_data(size_t n, float **x, uint8_t **y)
{
	uint64_t st = 0x7472616e;

	*x = malloc(n * TR_DIGITS_PIXELS * sizeof(float));
	*y = malloc(n);
	if (!*x || !*y)
		return -ENOMEM;
	for (size_t i = 0; i < n * TR_DIGITS_PIXELS; i++)
		(*x)[i] = (float)(tr_rand_u64(&st) % (TR_DIGITS_MAX_PIXEL + 1)) / 16.0f;
	for (size_t i = 0; i < n; i++)
		(*y)[i] = (uint8_t)(tr_rand_u64(&st) % TR_DIGITS_CLASSES);
	return 0;
}

/* The steps on dev (its trainer d bound) and the first step's trace in d->ctx. */
static int run_steps(const struct cli_ctx *ctx, const struct bench_args *a, struct tr_dev *d,
		     struct tpu_train_gemm_rec *trace)
{
	size_t n = (size_t)a->batch, *idx = malloc(n * sizeof(*idx));
	struct tr_dev_data data = { .n = n };
	float *x = NULL;
	uint8_t *y = NULL;
	char err[512];
	int rc = CLI_EXIT_OK;

	if (!idx || make_data(n, &x, &y)) {
		cli_error(ctx, "out of memory");
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	data.x = x;
	data.y = y;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (long s = 0; s < a->steps && !rc; s++) {
		double loss;

		d->ctx.trace = s ? NULL : trace;
		d->ctx.trace_cap = s ? 0 : TRACE_CAP;
		if (tr_dev_step(d, &data, idx, n, 1e-3, &loss, err, sizeof(err))) {
			cli_error(ctx, "step %ld: %s", s + 1, err);
			rc = CLI_EXIT_FAIL;
		}
	}
out:
	free(idx);
	free(x);
	free(y);
	return rc;
}

int cli_bench_train(const struct cli_ctx *ctx, int argc, char **argv)
{
	struct bench_args a = { .device = ctx->device, .batch = 32, .steps = 10 };
	struct tpu_gemm_rec_buf { struct tpu_train_gemm_rec r[TRACE_CAP]; } trace;
	struct layer_gemms g[TR_MAX_LAYERS];
	struct tpu_info info;
	struct tr_net net;
	struct tr_dev d;
	char err[512], name[TPU_MODEL_NAME_MAX];
	tpu_dev *dev;
	int rc = parse(ctx, argc, argv, &a);

	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	if ((rc = cli_open(ctx, a.device, &dev, &info)))
		return cli_open_exit(rc);
	if (train_build_net(&net, a.model, (size_t)a.batch, 1, name, err, sizeof(err))) {
		cli_error(ctx, "--model %s: %s", a.model, err);
		rc = CLI_EXIT_FAIL;
		goto out_dev;
	}
	rc = tr_dev_init(&d, &net, dev, TPU_OPTIM_ADAMW, 0.1, err, sizeof(err));
	if (rc) {
		cli_error(ctx, "%s", err);
		rc = rc == -ENOTSUP ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		goto out_net;
	}
	rc = run_steps(ctx, &a, &d, trace.r);
	d.ctx.trace = trace.r; /* the first step's records, kept in trace_len */
	if (!rc && attribute(&net, &d.ctx, g)) {
		cli_error(ctx, "the first step ran %zu GEMMs, not the net's forward and backward",
			  d.ctx.trace_len);
		rc = CLI_EXIT_FAIL;
	}
	if (!rc) {
		struct figures f = { &a, info.backend, d.ctx.array_n, &net, &d, g };

		if (a.json)
			print_json(&f);
		else
			print_table(&f);
	}
	tr_dev_free(&d);
out_net:
	tr_net_free(&net);
out_dev:
	tpu_close(dev);
	return rc;
}
