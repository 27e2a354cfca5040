/* bench_pack: the host side of tpu_gemm_ex, the copy of A and B into the DMA buffers in the
 * layout of the schedule the driver picks (driver/gemm/gemm_pack.c), for each way A and B can be
 * stored (NN, TN, NT, TT: T = transposed), on the golden device's planning (N = 16 by default).
 *
 * usage: bench_pack [-d URI] [-o JSON] [MxKxN ...]
 *
 * Each figure is the best of 15 runs of gemm_fill_buffers (per-tensor int8 output, input zero
 * point 3, so the bias folding sums B's columns), in microseconds of wall time: what the host
 * adds to a GEMM before its first command. Device cycles of the same GEMMs: bench_sim -t XY. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../driver/gemm/gemm_priv.h"

#define REPS 15

static const struct { size_t m, k, n; } default_shapes[] = {
	{ 64, 64, 64 },	   { 1, 512, 512 },   { 32, 512, 512 },	   { 512, 512, 512 },
	{ 1024, 256, 32 }, { 256, 256, 1024 }, { 1024, 1024, 1024 },
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *schedule(const struct gemm *g)
{
	if (g->stream)
		return g->fused ? "stream(fused)" : "stream";
	if (g->dbl)
		return "pipeline";
	if (g->pairs)
		return g->hyb ? "hybrid" : "grouped";
	return "column";
}

/* Best wall time of the copy-in of an m x k x n GEMM stored as trans says (bit 0: A, bit 1: B). */
static int pack_time(tpu_dev *dev, size_t m, size_t k, size_t n, unsigned trans, const int8_t *a,
		     const int8_t *b, double *best, const char **sched)
{
	static const int32_t mult = 1 << 30, shift = -8;
	struct tpu_gemm_params p;

	tpu_gemm_params_init(&p);
	p.in_zero_point = 3;
	p.quant_channels = 1;
	p.multiplier = &mult;
	p.shift = &shift;
	*best = 1e30;
	for (int rep = 0; rep < REPS; rep++) {
		struct gemm g = { 0 };
		double t0, t;
		int err;

		g.dev = dev;
		g.m = m;
		g.k = k;
		g.n = n;
		g.a = (struct gemm_mat){ (const uint8_t *)a, trans & 1 ? m : k, trans & 1 };
		g.b = (struct gemm_mat){ (const uint8_t *)b, trans & 2 ? k : n, (trans & 2) != 0 };
		g.q8 = g.uniform = true;
		gemm_plan(&g);
		*sched = schedule(&g);
		t0 = now();
		err = gemm_fill_buffers(&g, &p);
		t = now() - t0;
		gemm_free_buffers(&g);
		if (err)
			return err;
		if (t < *best)
			*best = t;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *uri = "golden:n=16,mem=512M", *json = NULL;
	size_t ns = 0, cap = (size_t)argc + sizeof(default_shapes) / sizeof(default_shapes[0]);
	size_t(*shapes)[3] = calloc(cap, sizeof(*shapes));
	FILE *jf = NULL;
	tpu_dev *dev;
	int rc = 0;

	if (!shapes)
		return 1;
	for (int i = 1; i < argc; i++) {
		char x1, x2, end;
		if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			uri = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			json = argv[++i];
		} else if (sscanf(argv[i], "%zu%c%zu%c%zu%c", &shapes[ns][0], &x1, &shapes[ns][1], &x2,
				  &shapes[ns][2], &end) == 5 &&
			   x1 == 'x' && x2 == 'x' && shapes[ns][0] && shapes[ns][1] && shapes[ns][2]) {
			ns++;
		} else {
			fprintf(stderr, "usage: %s [-d URI] [-o JSON] [MxKxN ...]\n", argv[0]);
			free(shapes);
			return 2;
		}
	}
	if (!ns) {
		ns = sizeof(default_shapes) / sizeof(default_shapes[0]);
		for (size_t s = 0; s < ns; s++) {
			shapes[s][0] = default_shapes[s].m;
			shapes[s][1] = default_shapes[s].k;
			shapes[s][2] = default_shapes[s].n;
		}
	}
	if (tpu_open(uri, &dev)) {
		fprintf(stderr, "bench_pack: %s: %s\n", uri, tpu_last_open_error());
		free(shapes);
		return 1;
	}
	if (json && !(jf = fopen(json, "w"))) {
		fprintf(stderr, "bench_pack: %s: %s\n", json, strerror(errno));
		rc = 1;
		goto out;
	}
	printf("host copy-in of tpu_gemm_ex on %s (us, best of %d)\n", uri, REPS);
	printf("%-16s %-14s %9s %9s %9s %9s\n", "m x k x n", "schedule", "NN", "TN", "NT", "TT");
	if (jf)
		fprintf(jf, "{\n  \"device\": \"%s\",\n  \"results\": [\n", uri);
	for (size_t s = 0; s < ns && !rc; s++) {
		size_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
		int8_t *a = malloc(m * k), *b = malloc(k * n);
		const char *sched = "";
		double t[4] = { 0 };
		char name[64];

		for (size_t i = 0; a && i < m * k; i++)
			a[i] = (int8_t)(i * 7);
		for (size_t i = 0; b && i < k * n; i++)
			b[i] = (int8_t)(i * 13);
		for (unsigned c = 0; c < 4 && a && b && !rc; c++)
			rc = pack_time(dev, m, k, n, c, a, b, &t[c], &sched);
		if (!a || !b || rc) {
			fprintf(stderr, "bench_pack: %zux%zux%zu: %s\n", m, k, n,
				tpu_strerror(a && b ? rc : -ENOMEM));
			rc = 1;
		} else {
			snprintf(name, sizeof(name), "%zux%zux%zu", m, k, n);
			printf("%-16s %-14s %9.1f %9.1f %9.1f %9.1f\n", name, sched, t[0] * 1e6,
			       t[1] * 1e6, t[2] * 1e6, t[3] * 1e6);
			if (jf)
				fprintf(jf,
					"    {\"m\": %zu, \"k\": %zu, \"n\": %zu, \"schedule\": \"%s\", "
					"\"us_nn\": %.1f, \"us_tn\": %.1f, \"us_nt\": %.1f, "
					"\"us_tt\": %.1f}%s\n",
					m, k, n, sched, t[0] * 1e6, t[1] * 1e6, t[2] * 1e6, t[3] * 1e6,
					s + 1 < ns ? "," : "");
		}
		free(a);
		free(b);
	}
	if (jf) {
		fprintf(jf, "  ]\n}\n");
		if (fclose(jf))
			rc = 1;
	}
out:
	tpu_close(dev);
	free(shapes);
	return rc;
}
