/* `tpu bench`: measured workloads on the device, from its performance counters.
 *   tpu bench gemm --m M --k K --n N [--seed S] [--raw] [--dtype int8|bf16] [--json]
 *                  [--device URI]
 *   tpu bench model MODEL DATA.npy [--batch B] [--quantized] [--json] [--device URI]
 *                                                                          (bench_model.c)
 *   tpu bench train --model mlp|cnn [--batch B] [--steps S] [--json] [--device URI]
 *                                                                          (bench_train.c)
 * The GEMM runs on random int8 data and is checked against a plain C reference (exit 1 on a
 * mismatch); the measurement is sw/bench/gemm_bench.h, shared with sw/bench/bench_sim. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bench/gemm_bench.h"
#include "cli.h"
#include "json.h"
#include "tpu/tpu.h"

/* Each dimension, and the host and DMA bytes of one run (A + B + int32 output), are bounded so
 * that every size product fits and the run stays a benchmark, not a memory exhaustion test. */
#define BENCH_DIM_MAX 65536L
#define BENCH_BYTES_MAX (1ull << 31)

static void help(void)
{
	printf("usage: tpu bench gemm --m M --k K --n N [options]\n"
	       "\n"
	       "Run one M x K x N int8 GEMM (tpu_gemm) on random data, check it against a plain C\n"
	       "reference (with --dtype bf16: a bf16 x bf16 -> fp32 GEMM, checked bit for bit\n"
	       "against tpu_bf16_dot_tiled in the device's tile order) and report the device's performance counters over the call: cycles, MXU\n"
	       "busy cycles, MACs, utilization = MACs / (N^2 x cycles), DMA bytes, wall time and\n"
	       "simulated cycles per second.\n"
	       "\n"
	       "Options:\n"
	       "  --m M, --k K, --n N   the shape, each 1..%ld (required)\n"
	       "  --seed S              data seed, a non-zero 64-bit integer (default fixed)\n"
	       "  --raw                 int32 output (default: int8, per-tensor requantization)\n"
	       "  --dtype int8|bf16     element type (default int8); bf16 needs FEATURES.BF16\n"
	       "                        (golden:bf16=1), its output is fp32 (no --raw)\n"
	       "  --json                print one JSON object instead of the table\n"
	       "  --device URI          device to use (default: the global --device)\n"
	       "  -h, --help            this help\n"
	       "\n"
	       "Exit status: 0 success, 1 device failure or wrong result, 2 bad arguments.\n",
	       BENCH_DIM_MAX);
}

enum { OPT_M = 1, OPT_K, OPT_N, OPT_SEED, OPT_RAW, OPT_JSON, OPT_DEVICE, OPT_DTYPE, OPT_HELP };

static const struct cli_opt gemm_opts[] = {
    {"m", 0, true, OPT_M},	     {"k", 0, true, OPT_K},	     {"n", 0, true, OPT_N},
    {"seed", 0, true, OPT_SEED},     {"raw", 0, false, OPT_RAW},     {"json", 0, false, OPT_JSON},
    {"device", 0, true, OPT_DEVICE}, {"dtype", 0, true, OPT_DTYPE},
    {"help", 'h', false, OPT_HELP},  {NULL, 0, false, 0},
};

struct gemm_args {
	const char *device;
	struct gemm_bench_shape s;
	unsigned long long seed;
	bool raw, json, bf16;
};

static int parse_dim(const struct cli_ctx *ctx, const char *opt, const char *val, size_t *out)
{
	long v;
	int rc = cli_parse_long(val, 1, BENCH_DIM_MAX, &v);

	if (rc == -EINVAL)
		cli_error(ctx, "%s '%s': not an integer", opt, val);
	else if (rc)
		cli_error(ctx, "%s '%s': outside 1..%ld", opt, val, BENCH_DIM_MAX);
	else
		*out = (size_t)v;
	return rc;
}

/* CLI_EXIT_OK to go on, -1 after --help, or CLI_EXIT_USAGE. */
static int parse_gemm(const struct cli_ctx *ctx, int argc, char **argv, struct gemm_args *g)
{
	struct cli_scan sc;
	const char *val;
	int id;
	unsigned long long bytes;

	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, gemm_opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			cli_error(ctx, "unexpected argument '%s' (see %s gemm --help)", val,
				  ctx->name);
			return CLI_EXIT_USAGE;
		case OPT_M:
			if (parse_dim(ctx, "--m", val, &g->s.m))
				return CLI_EXIT_USAGE;
			break;
		case OPT_K:
			if (parse_dim(ctx, "--k", val, &g->s.k))
				return CLI_EXIT_USAGE;
			break;
		case OPT_N:
			if (parse_dim(ctx, "--n", val, &g->s.n))
				return CLI_EXIT_USAGE;
			break;
		case OPT_SEED:
			if (cli_parse_u64(val, &g->seed) || g->seed == 0) {
				cli_error(ctx, "--seed '%s': not a non-zero 64-bit integer", val);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_RAW:
			g->raw = true;
			break;
		case OPT_JSON:
			g->json = true;
			break;
		case OPT_DEVICE:
			g->device = val;
			break;
		case OPT_DTYPE:
			if (strcmp(val, "int8") && strcmp(val, "bf16")) {
				cli_error(ctx, "--dtype '%s': expected int8 or bf16", val);
				return CLI_EXIT_USAGE;
			}
			g->bf16 = !strcmp(val, "bf16");
			break;
		case OPT_HELP:
			help();
			return -1;
		}
	}
	if (!g->s.m || !g->s.k || !g->s.n) {
		cli_error(ctx, "missing %s: usage tpu bench gemm --m M --k K --n N",
			  !g->s.m   ? "--m"
			  : !g->s.k ? "--k"
				    : "--n");
		return CLI_EXIT_USAGE;
	}
	if (g->bf16 && g->raw) {
		cli_error(ctx, "--raw applies to --dtype int8 only (bf16 output is always fp32)");
		return CLI_EXIT_USAGE;
	}
	/* each dimension <= 2^16, so these products cannot overflow 64 bits */
	bytes = ((unsigned long long)g->s.m * g->s.k + (unsigned long long)g->s.k * g->s.n) *
			(g->bf16 ? 2u : 1u) +
		4ull * g->s.m * g->s.n;
	if (bytes > BENCH_BYTES_MAX) {
		cli_error(ctx,
			  "--m x --k x --n: %zux%zux%zu needs %llu bytes of operands (limit "
			  "%llu)",
			  g->s.m, g->s.k, g->s.n, bytes, BENCH_BYTES_MAX);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

static const char *out_name(const struct gemm_args *g)
{
	return g->bf16 ? "fp32" : g->raw ? "int32" : "int8";
}

static void print_gemm_json(const char *device, const char *backend, const struct gemm_args *g,
			    const struct gemm_bench_result *r)
{
	printf("{\"device\": ");
	cli_json_str(device);
	printf(", \"backend\": ");
	cli_json_str(backend);
	printf(", \"dtype\": \"%s\", \"output\": \"%s\", \"seed\": %llu, \"m\": %zu, \"k\": %zu, \"n\": %zu, "
	       "\"array\": %u, \"cycles\": %llu, \"mxu_busy_cycles\": %llu, \"macs\": %llu, "
	       "\"utilization\": %.6f, \"dma_read_bytes\": %llu, \"dma_write_bytes\": %llu, "
	       "\"commands\": %u, \"wall_seconds\": %.6f, \"sim_cycles_per_second\": %.0f, "
	       "\"correct\": %s}\n",
	       g->bf16 ? "bf16" : "int8", out_name(g), g->seed, r->s.m, r->s.k, r->s.n, r->array,
	       (unsigned long long)r->perf.cycles, (unsigned long long)r->perf.mxu_busy_cycles,
	       (unsigned long long)r->perf.macs, gemm_bench_util(r),
	       (unsigned long long)r->perf.dma_read_bytes,
	       (unsigned long long)r->perf.dma_write_bytes, r->perf.commands, r->wall,
	       gemm_bench_cycles_per_second(r), r->ok ? "true" : "false");
}

static void print_gemm_table(const char *device, const char *backend, const struct gemm_args *g,
			     const struct gemm_bench_result *r)
{
	printf("%-18s %s (%s)\n", "device", device, backend);
	printf("%-18s m=%zu k=%zu n=%zu, %s x %s, %s output, seed %llu\n", "gemm", r->s.m,
	       r->s.k, r->s.n, g->bf16 ? "bf16" : "int8", g->bf16 ? "bf16" : "int8", out_name(g),
	       g->seed);
	printf("%-18s %u x %u\n", "array", r->array, r->array);
	printf("%-18s %llu\n", "cycles", (unsigned long long)r->perf.cycles);
	printf("%-18s %llu\n", "mxu busy cycles", (unsigned long long)r->perf.mxu_busy_cycles);
	printf("%-18s %llu\n", "macs", (unsigned long long)r->perf.macs);
	printf("%-18s %.1f%%\n", "utilization", 100.0 * gemm_bench_util(r));
	printf("%-18s %llu\n", "dma read bytes", (unsigned long long)r->perf.dma_read_bytes);
	printf("%-18s %llu\n", "dma write bytes", (unsigned long long)r->perf.dma_write_bytes);
	printf("%-18s %u\n", "commands", r->perf.commands);
	printf("%-18s %.3f\n", "wall seconds", r->wall);
	printf("%-18s %.0f\n", "sim cycles/s", gemm_bench_cycles_per_second(r));
	printf("%-18s %s\n", "result", r->ok ? "matches the reference" : "WRONG");
}

static int bench_gemm(const struct cli_ctx *ctx, int argc, char **argv)
{
	struct gemm_args g = {.device = ctx->device, .seed = 0x9E3779B97F4A7C15ULL};
	struct gemm_bench_result r;
	struct tpu_info info;
	uint64_t seed;
	char why[256];
	tpu_dev *dev;
	int rc = parse_gemm(ctx, argc, argv, &g);

	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	if ((rc = cli_open(ctx, g.device, &dev, &info)))
		return cli_open_exit(rc);
	seed = g.seed;
	if (g.bf16)
		rc = gemm_bench_run_bf16(dev, &g.s, &seed, &r, why, sizeof(why));
	else
		rc = gemm_bench_run(dev, &g.s, g.raw, 0, &seed, &r, why, sizeof(why));
	tpu_close(dev);
	if (rc) {
		cli_error(ctx, "gemm %s", why);
		return CLI_EXIT_FAIL;
	}
	if (g.json)
		print_gemm_json(g.device, info.backend, &g, &r);
	else
		print_gemm_table(g.device, info.backend, &g, &r);
	if (!r.ok) {
		cli_error(ctx, "gemm %zux%zux%zu: the device's output differs from the reference",
			  g.s.m, g.s.k, g.s.n);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static void usage(void)
{
	printf("usage: tpu bench BENCHMARK [options]\n"
	       "\n"
	       "Benchmarks:\n"
	       "  gemm    one int8 (or bf16) GEMM on random data, checked, with the device's\n"
	       "          counters\n"
	       "  model   a model file on a data set: per-layer counters and roofline bounds\n"
	       "  train   training steps of the digits MLP or CNN (bf16): cycles per phase and\n"
	       "          per GEMM, utilization, images/s at 1 GHz\n"
	       "\n"
	       "`tpu bench BENCHMARK --help` describes each.\n");
}

int cmd_bench(const struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc < 2) {
		cli_error(ctx, "no benchmark given: usage tpu bench gemm|model|train ... (see %s --help)",
			  ctx->name);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage();
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "gemm"))
		return bench_gemm(ctx, argc - 1, argv + 1);
	if (!strcmp(argv[1], "model"))
		return cli_bench_model(ctx, argc - 1, argv + 1);
	if (!strcmp(argv[1], "train"))
		return cli_bench_train(ctx, argc - 1, argv + 1);
	cli_error(ctx, "unknown benchmark '%s' (see %s --help)", argv[1], ctx->name);
	return CLI_EXIT_USAGE;
}
