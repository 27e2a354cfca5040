/* `tpu bench model MODEL DATA.npy`: a quantized model (include/tpu/model.h) run on the device
 * with per-layer figures from the performance counters and each layer's roofline bound:
 *   compute bound = MXU rows = M x ceil(K / N) x ceil(N_out / N): one array row per cycle over
 *                   every zero-padded weight tile (the same count as gemm_bounds.py);
 *   link bound    = max(DMA read, DMA write bytes) / link bytes per cycle (a full-duplex link).
 * The larger is the layer's bound; max-pool runs on the host and has none. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "json.h"
#include "model_input.h"
#include "tpu/model.h"
#include "tpu/tpu.h"

#define LINK_BPC_DEFAULT 16.0 /* the sim link's default: 16 GB/s at 1 GHz */

static void help(void)
{
	printf("usage: tpu bench model MODEL DATA.npy [options]\n"
	       "\n"
	       "Run a model file on the examples of DATA.npy and report, per layer, the device's\n"
	       "cycles, MXU busy cycles, MACs, utilization = MACs / (N^2 x cycles), DMA bytes and\n"
	       "the layer's roofline bound: compute (MXU rows over the padded weight tiles) or\n"
	       "link (DMA bytes / link bytes per cycle), whichever is larger.\n"
	       "\n"
	       "DATA.npy holds raw values, shape (B, H, W), (B, H, W, C) or (B, H*W*C) for the\n"
	       "model's H x W x C input, or one example (H*W*C,), any of int8, uint8, int32,\n"
	       "float32; they are divided by the model's input range and quantized with its input\n"
	       "scale and zero point, as `tpu run` does.\n"
	       "\n"
	       "Options:\n"
	       "  --batch B        run the first B examples in one call (default: all)\n"
	       "  --quantized      DATA.npy is int8 and already quantized\n"
	       "  --link-bpc X     link bytes per cycle for the link bound (default: from the sim\n"
	       "                   URI's bw= and clock=, else %.0f)\n"
	       "  --json           print one JSON object instead of the table\n"
	       "  --device URI     device to use (default: the global --device)\n"
	       "  -h, --help       this help\n"
	       "\n"
	       "Exit status: 0 success, 1 device failure, 2 bad arguments or files.\n",
	       LINK_BPC_DEFAULT);
}

enum { OPT_BATCH = 1, OPT_BPC, OPT_JSON, OPT_QUANTIZED, OPT_DEVICE, OPT_HELP };

static const struct cli_opt model_opts[] = {
    {"batch", 0, true, OPT_BATCH},
    {"link-bpc", 0, true, OPT_BPC},
    {"json", 0, false, OPT_JSON},
    {"quantized", 0, false, OPT_QUANTIZED},
    {"device", 0, true, OPT_DEVICE},
    {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

struct model_args {
	const char *device, *model, *data;
	long batch; /* 0: all */
	double bpc; /* 0: from the URI */
	bool json, quantized;
};

/* Per-layer GEMM view and bounds. */
struct layer_row {
	const char *type;
	uint32_t oh, ow, oc;
	uint64_t m, k, n;
	uint64_t compute, link;
	const char *bound;
};

static int parse_model_args(const struct cli_ctx *ctx, int argc, char **argv, struct model_args *a)
{
	struct cli_scan sc;
	const char *val;
	struct cli_pair pos = {.names = {"MODEL", "DATA.npy"}};
	int id;

	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, model_opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			if (cli_pair_add(ctx, &pos, val))
				return CLI_EXIT_USAGE;
			break;
		case OPT_BATCH:
			if (cli_parse_long(val, 1, 1L << 30, &a->batch)) {
				cli_error(ctx, "--batch '%s': not an integer in 1..%ld", val,
					  1L << 30);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_BPC: {
			if (cli_parse_double(val, &a->bpc) || a->bpc <= 0) {
				cli_error(ctx, "--link-bpc '%s': not a number > 0", val);
				return CLI_EXIT_USAGE;
			}
			break;
		}
		case OPT_JSON:
			a->json = true;
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
	if (cli_pair_done(ctx, &pos, "tpu bench model MODEL DATA.npy"))
		return CLI_EXIT_USAGE;
	a->model = pos.val[0];
	a->data = pos.val[1];
	return CLI_EXIT_OK;
}

/* The value of option key (e.g. "bw") in a URI "name:k=v,k=v", as a double; def when absent
 * or not a number. */
static double uri_option(const char *uri, const char *key, double def)
{
	const char *p = strchr(uri, ':');
	size_t klen = strlen(key);

	while (p && *p) {
		p++;
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			char *end;
			double v = strtod(p + klen + 1, &end);
			return end != p + klen + 1 && (*end == ',' || !*end) && v > 0 ? v : def;
		}
		p = strchr(p, ',');
	}
	return def;
}

/* Link bytes per device cycle of uri: bw (GB/s) x 1000 / clock (MHz) for a sim device. */
static double link_bpc(const char *uri)
{
	if (strncmp(uri, "sim", 3) != 0 || (uri[3] != ':' && uri[3] != '\0'))
		return LINK_BPC_DEFAULT;
	return uri_option(uri, "bw", 16.0) * 1000.0 / uri_option(uri, "clock", 1000.0);
}

/* GEMM view, bounds and output shape of every layer for batch examples. */
static void layer_rows(const struct tpu_model *m, size_t batch, uint32_t array,
		       const struct tpu_model_stats *st, double bpc, struct layer_row *rows)
{
	uint32_t h = m->in_h, w = m->in_w, c = m->in_c;

	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct tpu_layer *l = &m->layers[i];
		const struct tpu_layer_stats *s = &st->layer[i];
		struct layer_row *r = &rows[i];
		uint64_t bytes;

		memset(r, 0, sizeof(*r));
		tpu_model_layer_out_shape(m, i, &r->oh, &r->ow, &r->oc);
		switch (l->type) {
		case TPU_LAYER_CONV2D:
			r->type = "CONV2D";
			r->m = (uint64_t)batch * r->oh * r->ow;
			r->k = (uint64_t)l->kernel_h * l->kernel_w * (c / (l->groups ? l->groups : 1));
			break;
		case TPU_LAYER_DENSE:
			r->type = "DENSE";
			r->m = batch;
			r->k = (uint64_t)h * w * c;
			break;
		default:
			r->type = l->type == TPU_LAYER_AVGPOOL2D ? "AVGPOOL2D" : "MAXPOOL2D";
			break;
		}
		if (r->k) {
			r->n = l->out_c;
			r->compute =
			    r->m * ((r->k + array - 1) / array) * ((r->n + array - 1) / array);
			bytes = s->dma_read_bytes > s->dma_write_bytes ? s->dma_read_bytes
								       : s->dma_write_bytes;
			r->link = (uint64_t)ceil((double)bytes / bpc);
			r->bound = r->compute >= r->link ? "compute" : "link";
		} else {
			r->bound = "host";
		}
		h = r->oh;
		w = r->ow;
		c = r->oc;
	}
}

static void print_json(const char *device, const struct tpu_model *m, size_t batch, uint32_t array,
		       double bpc, const struct tpu_model_stats *st, const struct layer_row *rows)
{
	uint64_t compute = 0, link = 0;

	printf("{\"device\": ");
	cli_json_str(device);
	printf(", \"model\": ");
	cli_json_str(m->name);
	printf(", \"batch\": %zu, \"array\": %u, \"link_bytes_per_cycle\": %.3f, \"layers\": [",
	       batch, array, bpc);
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct layer_row *r = &rows[i];
		printf("%s{\"index\": %u, \"type\": \"%s\", \"out_shape\": [%u, %u, %u], "
		       "\"m\": %llu, \"k\": %llu, \"n\": %llu, ",
		       i ? ", " : "", i, r->type, r->oh, r->ow, r->oc, (unsigned long long)r->m,
		       (unsigned long long)r->k, (unsigned long long)r->n);
		cli_json_layer_stats(&st->layer[i], array, "utilization");
		printf(", \"compute_bound_cycles\": %llu, \"link_bound_cycles\": %llu, "
		       "\"bound\": \"%s\"}",
		       (unsigned long long)r->compute, (unsigned long long)r->link, r->bound);
		compute += r->compute;
		link += r->link;
	}
	printf("], \"total\": {");
	cli_json_layer_stats(&st->total, array, "utilization");
	printf(", \"compute_bound_cycles\": %llu, \"link_bound_cycles\": %llu}}\n",
	       (unsigned long long)compute, (unsigned long long)link);
}

static void print_table(const char *device, const struct tpu_model *m, size_t batch, uint32_t array,
			double bpc, const struct tpu_model_stats *st, const struct layer_row *rows)
{
	printf("model %s on %s (N = %u), batch %zu, link %.2f bytes/cycle\n", m->name, device,
	       array, batch, bpc);
	printf("%2s %-9s %-12s %12s %10s %10s %6s %10s %10s %10s %10s %-7s\n", "#", "layer",
	       "output", "macs", "cycles", "mxu_busy", "util", "dma_rd", "dma_wr", "compute",
	       "link", "bound");
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct layer_row *r = &rows[i];
		const struct tpu_layer_stats *s = &st->layer[i];
		char shape[48];
		snprintf(shape, sizeof(shape), "%ux%ux%u", r->oh, r->ow, r->oc);
		printf("%2u %-9s %-12s %12llu %10llu %10llu %5.1f%% %10llu %10llu %10llu %10llu "
		       "%-7s\n",
		       i, r->type, shape, (unsigned long long)s->macs,
		       (unsigned long long)s->cycles, (unsigned long long)s->mxu_busy_cycles,
		       100.0 * cli_mxu_util(s, array), (unsigned long long)s->dma_read_bytes,
		       (unsigned long long)s->dma_write_bytes, (unsigned long long)r->compute,
		       (unsigned long long)r->link, r->bound);
	}
	printf("%2s %-9s %-12s %12llu %10llu %10llu %5.1f%% %10llu %10llu\n", "", "total", "",
	       (unsigned long long)st->total.macs, (unsigned long long)st->total.cycles,
	       (unsigned long long)st->total.mxu_busy_cycles,
	       100.0 * cli_mxu_util(&st->total, array),
	       (unsigned long long)st->total.dma_read_bytes,
	       (unsigned long long)st->total.dma_write_bytes);
	printf("wall %.3f s, %.0f examples/s\n", st->total.wall_seconds,
	       st->total.wall_seconds > 0 ? (double)batch / st->total.wall_seconds : 0.0);
}

int cli_bench_model(const struct cli_ctx *ctx, int argc, char **argv)
{
	struct model_args a = {.device = ctx->device};
	struct tpu_model *m = NULL;
	struct tpu_model_stats *st = NULL;
	struct layer_row *rows = NULL;
	struct tpu_info info;
	tpu_dev *dev = NULL;
	int8_t *in = NULL, *out = NULL;
	size_t batch = 0;
	int rc = parse_model_args(ctx, argc, argv, &a);

	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	rc = cli_model_load(ctx, a.model, &m);
	if (!rc)
		rc = cli_model_input_load(ctx, a.data, m, a.quantized, &in, &batch);
	if (rc) {
		rc = rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
		goto out;
	}
	if (a.batch && (size_t)a.batch > batch) {
		cli_error(ctx, "--batch %ld: %s holds only %zu examples", a.batch, a.data, batch);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (a.batch)
		batch = (size_t)a.batch;
	st = calloc(1, sizeof(*st));
	rows = calloc(TPU_MODEL_MAX_LAYERS, sizeof(*rows));
	out = malloc(batch * m->num_classes);
	if (!st || !rows || !out) {
		cli_error(ctx, "out of memory");
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	if ((rc = cli_open(ctx, a.device, &dev, &info))) {
		rc = cli_open_exit(rc);
		goto out;
	}
	rc = tpu_model_run(dev, m, batch, in, out, st);
	if (rc) {
		const char *why = tpu_ops_last_error(dev);
		cli_error(ctx, "model %s: %s%s%s", m->name, tpu_strerror(rc), *why ? ": " : "",
			  why);
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	if (!a.bpc)
		a.bpc = link_bpc(a.device);
	layer_rows(m, batch, info.array_n, st, a.bpc, rows);
	if (a.json)
		print_json(a.device, m, batch, info.array_n, a.bpc, st, rows);
	else
		print_table(a.device, m, batch, info.array_n, a.bpc, st, rows);
	rc = CLI_EXIT_OK;
out:
	if (dev)
		tpu_close(dev);
	free(in);
	free(out);
	free(st);
	free(rows);
	tpu_model_free(m);
	return rc;
}
