/* One measured GEMM: random int8 operands, tpu_gemm_ex() between a PERF clear and a PERF read, the
 * output checked against a plain C reference. Shared by sw/bench/bench_sim.c and `tpu bench`
 * (sw/cli/cmd_bench.c); header-only (static inline) because the two are linked separately and
 * neither build should need a list of extra sources.
 *
 * Figures: utilization = PERF_MACS / (N^2 x PERF_CYCLES), the fraction of the array's MAC slots
 * used over the whole GEMM, DMA and command overhead included; simulated cycles per second =
 * PERF_CYCLES / wall seconds of the tpu_gemm_ex() call (the host's copies in and out included). */
#ifndef TPU_BENCH_GEMM_BENCH_H
#define TPU_BENCH_GEMM_BENCH_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpu/bf16.h"
#include "tpu/numerics.h"
#include "tpu/tpu.h"

struct gemm_bench_shape {
	size_t m, k, n;
};

/* How A and B are stored (gemm_bench_run's trans): either may be transposed. */
#define GEMM_BENCH_A_T 1u
#define GEMM_BENCH_B_T 2u

struct gemm_bench_result {
	struct gemm_bench_shape s;
	uint32_t array;	      /* N of the device */
	struct tpu_perf perf; /* counters over the tpu_gemm_ex() call */
	double wall;	      /* seconds of the tpu_gemm_ex() call */
	bool ok;	      /* the output matched the reference */
};

static inline double gemm_bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift64*: the benchmark's own data, independent of the library (seed must not be 0) */
static inline uint64_t gemm_bench_rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* The reference: int32 dot products, then the activation of the int8 path. */
static inline bool gemm_bench_check(const struct gemm_bench_shape *s, const int8_t *a,
				    const int8_t *b, const void *out, bool raw, int32_t mult,
				    int32_t shift)
{
	struct tpu_act_channel ch = {.bias = 0, .multiplier = mult, .shift = shift};
	struct tpu_act_output o = {.zero_point = 0, .qmin = -128, .qmax = 127, .lut = NULL};

	for (size_t i = 0; i < s->m; i++) {
		for (size_t j = 0; j < s->n; j++) {
			int32_t acc = 0;
			for (size_t kk = 0; kk < s->k; kk++)
				acc =
				    tpu_wrap_add(acc, (int32_t)a[i * s->k + kk] * b[kk * s->n + j]);
			if (raw) {
				if (((const int32_t *)out)[i * s->n + j] != acc)
					return false;
			} else if (((const int8_t *)out)[i * s->n + j] !=
				   tpu_activate(acc, &ch, &o, NULL)) {
				return false;
			}
		}
	}
	return true;
}

/* x (rows x cols, packed) stored transposed into a new buffer (NULL when out of memory). */
static inline int8_t *gemm_bench_transposed(const int8_t *x, size_t rows, size_t cols)
{
	int8_t *t = malloc(rows * cols);

	for (size_t r = 0; t && r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			t[c * rows + r] = x[r * cols + c];
	return t;
}

/* Run one GEMM of shape s on dev with data from *seed (advanced). raw: int32 output, else int8
 * with one per-tensor multiplier that scales a K-term dot product into the int8 range. trans
 * (GEMM_BENCH_*_T) stores A and/or B transposed (copies made before the measured call). The
 * caller bounds m*k, k*n and m*n*4. Returns 0 (r->ok says whether it matched), or the error of
 * the failing call with a one-line reason in err. */
static inline int gemm_bench_run(tpu_dev *dev, const struct gemm_bench_shape *s, bool raw,
				 unsigned trans, uint64_t *seed, struct gemm_bench_result *r, char *err,
				 size_t errlen)
{
	struct tpu_gemm_params p;
	struct tpu_info info;
	int32_t mult = 0, shift = 0;
	int8_t *a = malloc(s->m * s->k), *b = malloc(s->k * s->n), *at = NULL, *bt = NULL;
	void *out = malloc(s->m * s->n * 4);
	struct tpu_gemm_desc d = { .m = s->m, .n = s->n, .k = s->k, .a = a, .b = b, .c = out };
	double t0;
	int rc = -ENOMEM, sh = 0;

	memset(r, 0, sizeof(*r));
	r->s = *s;
	snprintf(err, errlen, "out of host memory");
	if (!a || !b || !out)
		goto out;
	if ((rc = tpu_get_info(dev, &info))) {
		snprintf(err, errlen, "cannot read the device's identity: %s", tpu_strerror(rc));
		goto out;
	}
	r->array = info.array_n;
	for (size_t i = 0; i < s->m * s->k; i++)
		a[i] = (int8_t)gemm_bench_rng(seed);
	for (size_t i = 0; i < s->k * s->n; i++)
		b[i] = (int8_t)gemm_bench_rng(seed);
	if (((trans & GEMM_BENCH_A_T) && !(d.a = at = gemm_bench_transposed(a, s->m, s->k))) ||
	    ((trans & GEMM_BENCH_B_T) && !(d.b = bt = gemm_bench_transposed(b, s->k, s->n)))) {
		rc = -ENOMEM;
		goto out;
	}
	d.trans_a = (trans & GEMM_BENCH_A_T) ? TPU_TRANS_T : TPU_TRANS_N;
	d.trans_b = (trans & GEMM_BENCH_B_T) ? TPU_TRANS_T : TPU_TRANS_N;
	tpu_gemm_params_init(&p);
	if (!raw) {
		if ((rc = tpu_quantize_multiplier(1.0 / (8.0 * (double)s->k), &mult, &sh))) {
			snprintf(err, errlen, "k: %zu gives no representable multiplier", s->k);
			goto out;
		}
		shift = sh;
		p.quant_channels = 1;
		p.multiplier = &mult;
		p.shift = &shift;
	}
	if ((rc = tpu_perf_clear(dev))) {
		snprintf(err, errlen, "cannot clear the performance counters: %s",
			 tpu_strerror(rc));
		goto out;
	}
	t0 = gemm_bench_now();
	rc = tpu_gemm_ex(dev, &d, &p);
	r->wall = gemm_bench_now() - t0;
	if (rc) {
		const char *why = tpu_gemm_last_error(dev);
		snprintf(err, errlen, "%zux%zux%zu: %s%s%s", s->m, s->k, s->n, tpu_strerror(rc),
			 *why ? ": " : "", why);
		goto out;
	}
	if ((rc = tpu_perf_read(dev, &r->perf))) {
		snprintf(err, errlen, "cannot read the performance counters: %s", tpu_strerror(rc));
		goto out;
	}
	r->ok = gemm_bench_check(s, a, b, out, raw, mult, shift);
	err[0] = '\0';
out:
	free(a);
	free(b);
	free(at);
	free(bt);
	free(out);
	return rc;
}

/* A random bf16 of magnitude 2^-4 .. 2^4 (either sign; no zeros, subnormals or specials). */
static inline uint16_t gemm_bench_bf16(uint64_t *seed)
{
	uint64_t r = gemm_bench_rng(seed);

	return (uint16_t)((r & 0x807Fu) | ((123u + (unsigned)((r >> 16) % 9u)) << 7));
}

/* The bf16 form of gemm_bench_run (tpu_gemm_ex with TPU_DTYPE_BF16, fp32 output, no
 * transposes): random bf16 operands, the output checked bit for bit against
 * tpu_bf16_dot_tiled in the device's tile order (tiles of the array's N). The caller bounds
 * 2 m*k, 2 k*n and 4 m*n. Returns as gemm_bench_run. */
static inline int gemm_bench_run_bf16(tpu_dev *dev, const struct gemm_bench_shape *s,
				      uint64_t *seed, struct gemm_bench_result *r, char *err,
				      size_t errlen)
{
	struct tpu_info info;
	uint16_t *a = malloc(s->m * s->k * 2), *b = malloc(s->k * s->n * 2), *col = malloc(s->k * 2);
	uint32_t *out = malloc(s->m * s->n * 4);
	struct tpu_gemm_desc d = { .dtype = TPU_DTYPE_BF16, .m = s->m, .n = s->n, .k = s->k,
				   .a = a, .b = b, .c = out };
	double t0;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->s = *s;
	snprintf(err, errlen, "out of host memory");
	if (!a || !b || !col || !out)
		goto out;
	if ((rc = tpu_get_info(dev, &info))) {
		snprintf(err, errlen, "cannot read the device's identity: %s", tpu_strerror(rc));
		goto out;
	}
	r->array = info.array_n;
	for (size_t i = 0; i < s->m * s->k; i++)
		a[i] = gemm_bench_bf16(seed);
	for (size_t i = 0; i < s->k * s->n; i++)
		b[i] = gemm_bench_bf16(seed);
	if ((rc = tpu_perf_clear(dev))) {
		snprintf(err, errlen, "cannot clear the performance counters: %s",
			 tpu_strerror(rc));
		goto out;
	}
	t0 = gemm_bench_now();
	rc = tpu_gemm_ex(dev, &d, NULL);
	r->wall = gemm_bench_now() - t0;
	if (rc) {
		const char *why = tpu_gemm_last_error(dev);
		snprintf(err, errlen, "%zux%zux%zu bf16: %s%s%s", s->m, s->k, s->n,
			 tpu_strerror(rc), *why ? ": " : "", why);
		goto out;
	}
	if ((rc = tpu_perf_read(dev, &r->perf))) {
		snprintf(err, errlen, "cannot read the performance counters: %s", tpu_strerror(rc));
		goto out;
	}
	r->ok = true;
	for (size_t j = 0; j < s->n && r->ok; j++) {
		for (size_t kk = 0; kk < s->k; kk++)
			col[kk] = b[kk * s->n + j];
		for (size_t i = 0; i < s->m && r->ok; i++)
			r->ok = out[i * s->n + j] == tpu_bf16_dot_tiled(a + i * s->k, col,
									 (unsigned)s->k, r->array,
									 0, false);
	}
	err[0] = '\0';
out:
	free(a);
	free(b);
	free(col);
	free(out);
	return rc;
}

static inline double gemm_bench_util(const struct gemm_bench_result *r)
{
	double slots = (double)r->array * r->array * (double)r->perf.cycles;
	return slots > 0 ? (double)r->perf.macs / slots : 0.0;
}

static inline double gemm_bench_cycles_per_second(const struct gemm_bench_result *r)
{
	return r->wall > 0 ? (double)r->perf.cycles / r->wall : 0.0;
}

#endif /* TPU_BENCH_GEMM_BENCH_H */
