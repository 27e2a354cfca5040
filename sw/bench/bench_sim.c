/* bench_sim: end-to-end GEMM throughput of the Verilated device through the driver.
 *
 * usage: bench_sim [-d URI] [-o JSON] [-r] [-t NN|TN|NT|TT] [MxKxN ...]
 *   -d URI   device (default "sim:n=16": the default link, 50 ns / 16 GB/s at 1 GHz)
 *   -o JSON  write the results there (default: no JSON)
 *   -r       raw int32 output (default: int8 output, per-tensor requantization)
 *   -t XY    A stored transposed (X = T) and/or B (Y = T) (default NN: neither)
 *   MxKxN    shapes (default: the sweep below)
 *
 * Each GEMM runs through tpu_gemm_ex() with random int8 A and B; the PERF counters are cleared
 * before and read after it, and the output is checked against a plain C reference (int32 dot
 * products, then tpu_activate for int8 output), so a fast but wrong device fails the run.
 * utilization = PERF_MACS / (N^2 x PERF_CYCLES): the fraction of the array's MAC slots used
 * over the whole GEMM, DMA and command overhead included. Exit status 0 when every GEMM ran
 * and matched. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "tpu/outfile.h"
#include "tpu/tpu.h"

/* The measurement itself lives in gemm_bench.h, shared with `tpu bench gemm`. */

static const struct gemm_bench_shape default_shapes[] = {
	{ 64, 64, 64 },   { 128, 128, 128 }, { 256, 256, 256 }, { 512, 512, 512 },
	{ 512, 64, 512 }, { 64, 512, 64 },   { 1024, 256, 32 }, { 200, 300, 100 },
	/* M >= 4N with K, N multiples of N (issue 5's >= 90 % class) */
	{ 64, 256, 256 }, { 128, 512, 128 }, { 256, 128, 512 },
	/* batch-1 dense layers (link-bound: docs/performance.md) */
	{ 1, 512, 512 },  { 1, 64, 64 },
};

static int run_one(tpu_dev *dev, const struct gemm_bench_shape *s, bool raw, unsigned trans,
		   uint64_t *seed, struct gemm_bench_result *r)
{
	char why[256];
	int err = gemm_bench_run(dev, s, raw, trans, seed, r, why, sizeof(why));

	if (err)
		fprintf(stderr, "bench_sim: %s\n", why);
	else if (!r->ok)
		fprintf(stderr, "bench_sim: %zux%zux%zu: output differs from the reference\n",
			s->m, s->k, s->n);
	return err;
}

static double util(const struct gemm_bench_result *r)
{
	return gemm_bench_util(r);
}

static int write_json(const char *path, const char *uri, bool raw, const char *trans,
		      const struct gemm_bench_result *rs, size_t n)
{
	struct tpu_outfile *of;
	char why[256];
	int rc = tpu_outfile_open(path, &of, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "bench_sim: %s: %s\n", path, why);
		return rc;
	}
	FILE *f = tpu_outfile_stream(of);
	fprintf(f, "{\n  \"device\": \"%s\",\n  \"output\": \"%s\",\n", uri,
		raw ? "int32" : "int8");
	if (trans)
		fprintf(f, "  \"trans\": \"%s\",\n", trans);
	fprintf(f, "  \"results\": [\n");
	for (size_t i = 0; i < n; i++) {
		const struct gemm_bench_result *r = &rs[i];
		fprintf(f,
			"    {\"m\": %zu, \"k\": %zu, \"n\": %zu, \"array\": %u, \"cycles\": %llu, "
			"\"mxu_busy_cycles\": %llu, \"macs\": %llu, \"utilization\": %.4f, "
			"\"dma_read_bytes\": %llu, \"dma_write_bytes\": %llu, "
			"\"wall_seconds\": %.3f, \"sim_cycles_per_second\": %.0f, \"correct\": %s}%s\n",
			r->s.m, r->s.k, r->s.n, r->array, (unsigned long long)r->perf.cycles,
			(unsigned long long)r->perf.mxu_busy_cycles,
			(unsigned long long)r->perf.macs, util(r),
			(unsigned long long)r->perf.dma_read_bytes,
			(unsigned long long)r->perf.dma_write_bytes, r->wall,
			gemm_bench_cycles_per_second(r),
			r->ok ? "true" : "false", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	rc = tpu_outfile_commit(of, why, sizeof(why));
	if (rc)
		fprintf(stderr, "bench_sim: %s: %s\n", path, why);
	return rc;
}

static int parse_shape(const char *arg, struct gemm_bench_shape *s)
{
	char *end;
	s->m = strtoul(arg, &end, 10);
	if (*end++ != 'x')
		return -EINVAL;
	s->k = strtoul(end, &end, 10);
	if (*end++ != 'x')
		return -EINVAL;
	s->n = strtoul(end, &end, 10);
	return (*end || !s->m || !s->k || !s->n) ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	const char *uri = "sim:n=16", *json = NULL, *trans = NULL;
	struct gemm_bench_shape *shapes = NULL;
	struct gemm_bench_result *rs = NULL;
	size_t ns = 0;
	bool raw = false, all_ok = true;
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	struct tpu_info info;
	tpu_dev *dev = NULL;
	unsigned tmask = 0;
	int i, err;

	shapes = calloc((size_t)argc + sizeof(default_shapes) / sizeof(default_shapes[0]),
			sizeof(*shapes));
	if (!shapes)
		return 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			uri = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "-r")) {
			raw = true;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc && strlen(argv[i + 1]) == 2 &&
			   strchr("NT", argv[i + 1][0]) && strchr("NT", argv[i + 1][1])) {
			trans = argv[++i];
			tmask = (trans[0] == 'T' ? GEMM_BENCH_A_T : 0) |
				(trans[1] == 'T' ? GEMM_BENCH_B_T : 0);
		} else if (parse_shape(argv[i], &shapes[ns]) == 0) {
			ns++;
		} else {
			fprintf(stderr, "usage: %s [-d URI] [-o JSON] [-r] [-t NN|TN|NT|TT] [MxKxN ...]\n",
				argv[0]);
			free(shapes);
			return 2;
		}
	}
	if (!ns) {
		ns = sizeof(default_shapes) / sizeof(default_shapes[0]);
		memcpy(shapes, default_shapes, sizeof(default_shapes));
	}
	rs = calloc(ns, sizeof(*rs));
	if (!rs || (err = tpu_open(uri, &dev))) {
		fprintf(stderr, "bench_sim: %s: %s\n", uri, rs ? tpu_last_open_error() : "no memory");
		all_ok = false;
		goto out;
	}
	if ((err = tpu_get_info(dev, &info))) {
		all_ok = false;
		goto out;
	}
	printf("end-to-end GEMM on %s (%s output%s%s), N = %u\n", uri, raw ? "int32" : "int8",
	       trans ? ", stored " : "", trans ? trans : "", info.array_n);
	printf("%6s %6s %6s %11s %11s %12s %6s %10s %10s %8s %10s\n", "m", "k", "n", "cycles",
	       "mxu_busy", "macs", "util", "rd_bytes", "wr_bytes", "wall_s", "cyc/s");
	for (size_t j = 0; j < ns; j++) {
		struct gemm_bench_result *r = &rs[j];
		err = run_one(dev, &shapes[j], raw, tmask, &seed, r);
		r->array = info.array_n;
		if (err || !r->ok)
			all_ok = false;
		printf("%6zu %6zu %6zu %11llu %11llu %12llu %5.1f%% %10llu %10llu %8.2f %10.0f%s\n",
		       r->s.m, r->s.k, r->s.n, (unsigned long long)r->perf.cycles,
		       (unsigned long long)r->perf.mxu_busy_cycles,
		       (unsigned long long)r->perf.macs, 100.0 * util(r),
		       (unsigned long long)r->perf.dma_read_bytes,
		       (unsigned long long)r->perf.dma_write_bytes, r->wall,
		       gemm_bench_cycles_per_second(r),
		       err ? "  FAILED" : r->ok ? "" : "  WRONG");
		fflush(stdout);
	}
	if (json && write_json(json, uri, raw, trans, rs, ns))
		all_ok = false;
out:
	if (dev)
		tpu_close(dev);
	free(rs);
	free(shapes);
	return all_ok ? 0 : 1;
}
