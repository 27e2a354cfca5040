/* RTL benchmark (make bench-rtl): a Verilated tpu_datapath streams a GEMM (T tiles of R rows,
 * MATMUL with POP, accumulating) at N = 16 and 32, single-threaded and with verilator
 * --threads 2, and reports simulated cycles/s, simulated MACs/s (array MACs per wall second)
 * and MXU utilization, next to two software baselines doing the same number of MACs: the golden
 * device (tpu_gemm on "golden:n=N", M = R, K = T*N, driver overhead included) and a plain C int8
 * GEMM. A model with the bf16 mode (lane_bits 16) runs the GEMM twice, int8 and bf16 (bf16 x
 * bf16 -> fp32 MATMULs), the bf16 one against the C model of the numerics (sw/golden/bf16.c:
 * the column sums and fp32 accumulation of docs/spec.md 7.1) as its software baseline; the
 * golden device's bf16 GEMM is not timed here.
 * Usage: rtl_bench OUT.json. Prints a table; writes the same figures as JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpu/bf16.h"
#include "tpu/outfile.h"
#include "tpu/tpu.h"
#include "tpu_dp_profiles.h"
#include "verilated/tpu_vmodels.h"

#define BENCH_ROWS 512
#define BENCH_TILES 16

struct result {
	const char *model;
	unsigned n, threads, bf16;
	uint64_t cycles, macs;
	double wall_s, c_wall_s, golden_wall_s;
	int ok;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* data: one UB row of n elements of `bytes` bytes each (1 int8, 2 bf16), or NULL */
static void set_cmd(struct tpu_vdp_in *in, unsigned n, unsigned op, unsigned flags, uint32_t a,
		    uint32_t b, uint32_t rows, const void *data, unsigned bytes)
{
	const uint8_t *d = data;
	uint32_t *c = in->cmd;
	memset(c, 0, sizeof(in->cmd));
	c[0] = (op & 0xf) | (flags & 0xf) << 4 | (a & 0xffffff) << 8;
	c[1] = a >> 24 | (b & 0xffffff) << 8;
	c[2] = b >> 24 | (rows & 0xffffff) << 8;
	c[3] = rows >> 24;
	for (unsigned i = 0; d && i < n * bytes; i++) {
		unsigned bit = 104 + 8 * i;
		c[bit / 32] |= (uint32_t)d[i] << (bit % 32);
	}
	in->cmd_valid = 1;
}

/* The naive C GEMM of the same work: out[r][j] += sum_k a[r][k] * w[t][k][j] for every tile. */
static double c_gemm(unsigned n, const int8_t *a, const int8_t *w, int32_t *out)
{
	double t0 = now_s();
	memset(out, 0, sizeof(int32_t) * BENCH_ROWS * n);
	for (unsigned t = 0; t < BENCH_TILES; t++)
		for (unsigned r = 0; r < BENCH_ROWS; r++)
			for (unsigned k = 0; k < n; k++) {
				int32_t av = a[r * n + k];
				const int8_t *wr = w + ((size_t)t * n + k) * n;
				for (unsigned j = 0; j < n; j++)
					out[r * n + j] += av * wr[j];
			}
	return now_s() - t0;
}

/* The C model of the bf16 numerics on the same work (tile by tile: each tile's column sums from
 * +0, accumulated in fp32), the reference and the software baseline of the bf16 run. */
static double c_gemm_bf16(unsigned n, const uint16_t *a, const uint16_t *w, uint32_t *out)
{
	uint16_t col[256];
	double t0 = now_s();
	for (unsigned t = 0; t < BENCH_TILES; t++)
		for (unsigned j = 0; j < n; j++) {
			for (unsigned k = 0; k < n; k++)
				col[k] = w[((size_t)t * n + k) * n + j];
			for (unsigned r = 0; r < BENCH_ROWS; r++) {
				uint32_t s = tpu_bf16_dot(a + (size_t)r * n, col, n, 0);
				out[r * n + j] = t ? tpu_f32_add(out[r * n + j], s) : s;
			}
		}
	return now_s() - t0;
}

/* A bf16 operand near 1 (sums that cancel and round) */
static uint16_t rand_bf16(uint64_t *rng)
{
	uint64_t r = rng_next(rng);
	return (uint16_t)((r & 0x8000u) | (uint32_t)(120 + r % 16) << 7 | (r >> 8 & 0x7Fu));
}

/* The golden device on a GEMM with the same MAC count (R x T*N x N); -1 on failure. */
static double golden_gemm(unsigned n, const int8_t *a_tile)
{
	size_t m = BENCH_ROWS, k = (size_t)n * BENCH_TILES;
	int8_t *a = malloc(m * k), *b = malloc(k * n);
	int32_t *c = malloc(sizeof(int32_t) * m * n);
	char uri[64];
	tpu_dev *dev = NULL;
	double t0, t = -1;

	if (!a || !b || !c)
		goto out;
	for (size_t r = 0; r < m; r++)
		for (size_t i = 0; i < k; i++)
			a[r * k + i] = a_tile[r * n + i % n];
	for (size_t i = 0; i < k * n; i++)
		b[i] = (int8_t)(i * 37u + 11u);
	snprintf(uri, sizeof(uri), "golden:n=%u,mem=16M", n);
	if (tpu_open(uri, &dev))
		goto out;
	t0 = now_s();
	if (tpu_gemm(dev, m, k, n, a, b, NULL, c) == 0)
		t = now_s() - t0;
	tpu_close(dev);
out:
	free(a);
	free(b);
	free(c);
	return t;
}

/* One GEMM on the model: int8, or bf16 (bf16 = 1, a model with 16-bit lanes). */
static int run(const struct tpu_vdp_ops *ops, int bf16, struct result *res)
{
	unsigned n = ops->n, wide = ops->lane_bits == 16;
	uint64_t rng = 0x7470755f62656e63ull;
	size_t na = (size_t)BENCH_ROWS * n, nw = (size_t)BENCH_TILES * n * n;
	int8_t *a = malloc(na), *w = malloc(nw);
	uint16_t *a16 = malloc(2 * na), *w16 = malloc(2 * nw);
	int32_t *ref = malloc(sizeof(int32_t) * BENCH_ROWS * n);
	struct tpu_vdp_in in;
	struct tpu_vdp_out out;
	void *m;
	unsigned w_rows = 0, cmds = 0;
	uint64_t cycles = 0, macs0;
	double t0;

	if (!a || !w || !a16 || !w16 || !ref)
		return -1;
	for (size_t i = 0; i < na; i++) {
		a[i] = (int8_t)rng_next(&rng);
		a16[i] = rand_bf16(&rng);
	}
	for (size_t i = 0; i < nw; i++) {
		w[i] = (int8_t)rng_next(&rng);
		/* an int8 weight in a 16-bit lane's low byte */
		w16[i] = bf16 ? rand_bf16(&rng) : (uint16_t)(uint8_t)w[i];
	}
	memset(res, 0, sizeof(*res));
	res->model = ops->name;
	res->n = n;
	res->threads = ops->threads;
	res->bf16 = (unsigned)bf16;
	if (bf16) {
		res->c_wall_s = c_gemm_bf16(n, a16, w16, (uint32_t *)ref);
		res->golden_wall_s = -1;
	} else {
		res->c_wall_s = c_gemm(n, a, w, ref);
		res->golden_wall_s = golden_gemm(n, a);
	}

	m = ops->create(1);
	memset(&in, 0, sizeof(in));
	in.rst = 1;
	for (int i = 0; i < 3; i++)
		ops->step(m, &in, &out);
	in.rst = 0;
	in.rd_ready = 1;
	/* load the activations */
	for (unsigned r = 0; r < BENCH_ROWS;) {
		if (bf16)
			set_cmd(&in, n, TPU_VDP_UB_WRITE, 0, r, 0, 0, a16 + (size_t)r * n, 2);
		else
			set_cmd(&in, n, TPU_VDP_UB_WRITE, 0, r, 0, 0, a + (size_t)r * n, 1);
		ops->step(m, &in, &out);
		r += (unsigned)out.cmd_ready;
	}
	in.cmd_valid = 0;
	/* the GEMM: weights stream in beside the MATMULs */
	macs0 = out.perf_macs;
	t0 = now_s();
	while (cmds < BENCH_TILES || !out.idle || w_rows < BENCH_TILES * n) {
		in.wpush_valid = w_rows < BENCH_TILES * n;
		if (in.wpush_valid && wide)
			memcpy(in.wpush_lane, w16 + (size_t)w_rows * n, 2 * n);
		else if (in.wpush_valid)
			memcpy(in.wpush_row, w + (size_t)w_rows * n, n);
		/* MATMUL: ACCUMULATE after the first tile, POP, flag 3 BF16 */
		if (cmds < BENCH_TILES)
			set_cmd(&in, n, TPU_VDP_MATMUL, (cmds > 0) | 2u | (bf16 ? 8u : 0u), 0, 0,
				BENCH_ROWS, NULL, 0);
		else
			in.cmd_valid = 0;
		ops->step(m, &in, &out);
		cycles++;
		w_rows += in.wpush_valid && out.wpush_ready;
		cmds += in.cmd_valid && out.cmd_ready;
		if (cycles > 100ull * BENCH_ROWS * BENCH_TILES)
			break;
	}
	res->wall_s = now_s() - t0;
	res->cycles = cycles;
	res->macs = out.perf_macs - macs0;
	/* spot-check the result against the C GEMM */
	res->ok = 1;
	in.cmd_valid = 0;
	for (unsigned r = 0; r < BENCH_ROWS; r += BENCH_ROWS / 8) {
		set_cmd(&in, n, TPU_VDP_ACC_READ, 0, r, 0, 1, NULL, 0);
		do
			ops->step(m, &in, &out);
		while (!out.cmd_ready);
		in.cmd_valid = 0;
		do
			ops->step(m, &in, &out);
		while (!out.rd_valid);
		for (unsigned j = 0; j < n; j++)
			res->ok &= (int32_t)out.rd_data[j] == ref[r * n + j];
	}
	ops->destroy(m);
	free(a);
	free(w);
	free(a16);
	free(w16);
	free(ref);
	return 0;
}

static void print_row(const struct result *r)
{
	double work = (double)r->n * r->n * BENCH_ROWS * BENCH_TILES;
	double cmacs = work / r->c_wall_s, simmacs = r->macs / r->wall_s;
	char golden[32] = "-";
	if (r->golden_wall_s > 0)
		snprintf(golden, sizeof(golden), "%.3g", work / r->golden_wall_s);
	printf("%-18s %-4s %3u %3u %9" PRIu64 " %11.3g %11.3g %5.1f%% %12s %11.3g %8.0f %s\n",
	       r->model, r->bf16 ? "bf16" : "int8", r->n, r->threads, r->cycles,
	       r->cycles / r->wall_s, simmacs, 100.0 * r->macs / ((double)r->n * r->n * r->cycles),
	       golden, cmacs, cmacs / simmacs, r->ok ? "ok" : "MISMATCH");
}

static void json_row(FILE *f, const struct result *r, int last)
{
	double work = (double)r->n * r->n * BENCH_ROWS * BENCH_TILES;
	double cmacs = work / r->c_wall_s, simmacs = r->macs / r->wall_s;
	char golden[32] = "null";
	if (r->golden_wall_s > 0)
		snprintf(golden, sizeof(golden), "%.1f", work / r->golden_wall_s);
	fprintf(f,
		"    {\"model\": \"%s\", \"dtype\": \"%s\", \"n\": %u, \"threads\": %u, "
		"\"cycles\": %" PRIu64 ", \"macs\": %" PRIu64 ", \"wall_s\": %.6f, "
		"\"sim_cycles_per_s\": %.1f, \"sim_macs_per_s\": %.1f, \"utilization\": %.4f, "
		"\"golden_macs_per_s\": %s, \"c_gemm_macs_per_s\": %.1f, \"c_over_rtl\": %.1f, "
		"\"check\": \"%s\"}%s\n",
		r->model, r->bf16 ? "bf16" : "int8", r->n, r->threads, r->cycles, r->macs, r->wall_s,
		r->cycles / r->wall_s, simmacs, (double)r->macs / ((double)r->n * r->n * r->cycles),
		golden, cmacs, cmacs / simmacs, r->ok ? "ok" : "mismatch", last ? "" : ",");
}

int main(int argc, char **argv)
{
	/* the profiles of rtl/profiles.toml in the "bench" set; a bf16 model runs twice */
	typedef const struct tpu_vdp_ops *(*ops_fn)(void);
	static const ops_fn fns[] = {TPU_VDP_BENCH_MODELS};
	enum { NM = sizeof(fns) / sizeof(fns[0]) };
	struct result res[2 * NM];
	int fail = 0, nr = 0;
	struct tpu_outfile *of;
	char why[256];
	FILE *f;

	printf("RTL datapath GEMM: %u tiles x %u rows (MATMUL+POP, accumulate)\n", BENCH_TILES,
	       BENCH_ROWS);
	printf("%-18s %-4s %3s %3s %9s %11s %11s %6s %12s %11s %8s %s\n", "model", "type", "N",
	       "thr", "cycles", "sim cyc/s", "sim MAC/s", "util", "golden MAC/s", "C MAC/s",
	       "C/RTL", "check");
	for (int i = 0; i < NM; i++) {
		const struct tpu_vdp_ops *ops = fns[i]();
		for (int bf = 0; bf <= (ops->lane_bits == 16); bf++) {
			struct result *r = &res[nr++];
			if (run(ops, bf, r)) {
				fprintf(stderr, "rtl_bench: out of memory\n");
				return 1;
			}
			print_row(r);
			fail |= !r->ok;
		}
	}
	const char *json = argc > 1 ? argv[1] : "rtl.json";
	if (tpu_outfile_open(json, &of, why, sizeof(why))) {
		fprintf(stderr, "rtl_bench: %s: %s\n", json, why);
		return 1;
	}
	f = tpu_outfile_stream(of);
	fprintf(f, "{\n  \"bench\": \"rtl\",\n  \"tiles\": %u,\n  \"rows\": %u,\n  \"results\": [\n",
		BENCH_TILES, BENCH_ROWS);
	for (int i = 0; i < nr; i++)
		json_row(f, &res[i], i == nr - 1);
	fprintf(f, "  ]\n}\n");
	if (tpu_outfile_commit(of, why, sizeof(why))) {
		fprintf(stderr, "rtl_bench: %s: %s\n", json, why);
		return 1;
	}
	return fail;
}
