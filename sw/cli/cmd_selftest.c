/* `tpu selftest`: GEMMs of many shapes and parameter sets on the device, each compared element
 * by element with the naive reference (reference.c). Shapes are chosen from the device's N so
 * that edges (1, non-multiples of N, several K tiles) are covered on any array size. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "reference.h"
#include "tpu/bf16.h"
#include "tpu/tpu.h"

static void help(void)
{
	printf(
	    "usage: tpu selftest [--device URI] [--seed S] [--quick]\n"
	    "\n"
	    "Run a set of GEMMs on the device (raw int32 and requantized int8; per-tensor and\n"
	    "per-channel scales; zero points, clamp and LUT; shapes with dimensions of 1, not\n"
	    "multiples of N, and one large 256 x 300 x 200) and compare each with an independent\n"
	    "reference. On a device with the bf16 mode (FEATURES.BF16, e.g. golden:bf16=1) the\n"
	    "same shapes also run as bf16 x bf16 -> fp32 GEMMs (plain, and with an fp32 bias\n"
	    "and accumulate into C), compared bit for bit with tpu_bf16_dot_tiled in the\n"
	    "device's tile order; on an int8-only device a line says bf16 was skipped.\n"
	    "Prints one table row per GEMM and a summary line.\n"
	    "\n"
	    "Options:\n"
	    "  --device URI   device to use (default: the global --device)\n"
	    "  --seed S       seed of the random data (default 1)\n"
	    "  --quick        skip the large cases (for slow devices)\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Exit status: 0 all passed, 1 a mismatch or device error, 2 bad arguments.\n");
}

enum { OPT_DEVICE = 1, OPT_SEED, OPT_QUICK, OPT_HELP };

static const struct cli_opt opts[] = {
    {"device", 0, true, OPT_DEVICE}, {"seed", 0, true, OPT_SEED}, {"quick", 0, false, OPT_QUICK},
    {"help", 'h', false, OPT_HELP},  {NULL, 0, false, 0},
};

/* What a case exercises. */
enum {
	M_QUANT = 1 << 0,   /* int8 output */
	M_CHANNEL = 1 << 1, /* per-channel multiplier and shift */
	M_BIAS = 1 << 2,
	M_ZIN = 1 << 3,
	M_ZOUT = 1 << 4,
	M_CLAMP = 1 << 5,
	M_LUT = 1 << 6,
	M_WRAP = 1 << 7, /* extreme operands and a bias near INT32_MAX: int32 wrap-around */
	M_EDGE = 1 << 8, /* per-channel extremes: shift -31 and 30, multiplier 0 and 2^31-1 */
};

struct mode {
	unsigned flags;
	const char *name;
};

static const struct mode modes[] = {
    {0, "raw"},
    {M_BIAS | M_ZIN, "raw bias za"},
    {M_QUANT, "q8 tensor"},
    {M_QUANT | M_CHANNEL | M_BIAS, "q8 channel bias"},
    {M_QUANT | M_CHANNEL | M_ZIN | M_ZOUT, "q8 channel za zo"},
    {M_QUANT | M_BIAS | M_ZOUT | M_CLAMP, "q8 tensor zo clamp"},
    {M_QUANT | M_CHANNEL | M_LUT, "q8 channel lut"},
    {M_QUANT | M_CHANNEL | M_BIAS | M_ZIN | M_ZOUT | M_CLAMP | M_LUT, "q8 all"},
    {M_BIAS | M_WRAP, "raw wrap"},
    {M_QUANT | M_CHANNEL | M_BIAS | M_EDGE, "q8 edge scales"},
};
#define N_MODES (sizeof(modes) / sizeof(modes[0]))

struct shape {
	size_t m, k, n;
	bool large;
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t rnd_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

static int ilog2(size_t x)
{
	int r = 0;
	while (x > 1) {
		x >>= 1;
		r++;
	}
	return r;
}

/* Buffers of one case. */
struct gemm_case {
	size_t m, k, n;
	int8_t *a, *b;
	int32_t *bias, *mult, *shift;
	int8_t lut[256];
	void *got, *want;
	struct tpu_gemm_params p;
};

static void free_case(struct gemm_case *c)
{
	free(c->a);
	free(c->b);
	free(c->bias);
	free(c->mult);
	free(c->shift);
	free(c->got);
	free(c->want);
}

/* Random requantization scales that keep typical outputs inside int8: the accumulator's
 * spread is about 74^2 * sqrt(K), so shift about -(7 + log2(K)/2), give or take two. */
static void make_scales(struct gemm_case *c, unsigned f, uint64_t *s)
{
	size_t ch = f & M_CHANNEL ? c->n : 1;
	for (size_t j = 0; j < ch; j++) {
		c->mult[j] = (int32_t)rnd_range(s, 1 << 30, INT32_MAX);
		c->shift[j] = (int32_t)(-(7 + ilog2(c->k) / 2) + rnd_range(s, -2, 2));
		if (!(f & M_EDGE))
			continue;
		switch (j % 5) {
		case 0:
			c->shift[j] = -31;
			break;
		case 1:
			c->shift[j] = 30;
			c->mult[j] = (int32_t)rnd_range(s, 0, 3);
			break;
		case 2:
			c->mult[j] = 0;
			break;
		case 3:
			c->mult[j] = INT32_MAX;
			c->shift[j] = (int32_t)rnd_range(s, -31, 30);
			break;
		default:
			break;
		}
	}
}

static int make_case(struct gemm_case *c, const struct shape *sh, unsigned f, uint64_t *s)
{
	memset(c, 0, sizeof(*c));
	c->m = sh->m;
	c->k = sh->k;
	c->n = sh->n;
	size_t esz = f & M_QUANT ? 1 : 4;
	c->a = malloc(c->m * c->k);
	c->b = malloc(c->k * c->n);
	c->bias = calloc(c->n, sizeof(int32_t));
	c->mult = calloc(c->n, sizeof(int32_t));
	c->shift = calloc(c->n, sizeof(int32_t));
	c->got = calloc(c->m * c->n, esz);
	c->want = calloc(c->m * c->n, esz);
	if (!c->a || !c->b || !c->bias || !c->mult || !c->shift || !c->got || !c->want)
		return -ENOMEM;
	for (size_t i = 0; i < c->m * c->k; i++)
		c->a[i] = f & M_WRAP ? (i % 3 ? -128 : 127) : (int8_t)rnd_range(s, -128, 127);
	for (size_t i = 0; i < c->k * c->n; i++)
		c->b[i] = f & M_WRAP ? -128 : (int8_t)rnd_range(s, -128, 127);
	for (size_t j = 0; j < c->n; j++)
		c->bias[j] = f & M_WRAP ? INT32_MAX - (int32_t)rnd_range(s, 0, 1 << 16)
					: (int32_t)rnd_range(s, -(1 << 20), 1 << 20);
	for (int i = 0; i < 256; i++)
		c->lut[i] = (int8_t)rnd_range(s, -128, 127);

	tpu_gemm_params_init(&c->p);
	c->p.bias = f & M_BIAS ? c->bias : NULL;
	c->p.in_zero_point = f & M_ZIN ? (int32_t)rnd_range(s, -128, 127) : 0;
	if (f & M_QUANT) {
		make_scales(c, f, s);
		c->p.quant_channels = f & M_CHANNEL ? c->n : 1;
		c->p.multiplier = c->mult;
		c->p.shift = c->shift;
		c->p.out_zero_point = f & M_ZOUT ? (int32_t)rnd_range(s, -128, 127) : 0;
		if (f & M_CLAMP) {
			c->p.clamp_min = (int32_t)rnd_range(s, -128, 0);
			c->p.clamp_max = (int32_t)rnd_range(s, c->p.clamp_min, 127);
		}
		c->p.lut = f & M_LUT ? c->lut : NULL;
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Largest |got - want| over the output. */
static int64_t max_diff(const struct gemm_case *c, bool quant)
{
	int64_t worst = 0;
	for (size_t i = 0; i < c->m * c->n; i++) {
		int64_t g = quant ? ((const int8_t *)c->got)[i] : ((const int32_t *)c->got)[i];
		int64_t w = quant ? ((const int8_t *)c->want)[i] : ((const int32_t *)c->want)[i];
		int64_t d = g > w ? g - w : w - g;
		if (d > worst)
			worst = d;
	}
	return worst;
}

/* Run one case; prints its row and returns true when it passed. */
static bool run_case(tpu_dev *dev, int idx, const struct shape *sh, const struct mode *md,
		     uint64_t *s)
{
	struct gemm_case c;
	char shape[48];
	snprintf(shape, sizeof(shape), "%zu x %zu x %zu", sh->m, sh->k, sh->n);
	printf("%3d  %-18s %-20s ", idx, shape, md->name);
	fflush(stdout);
	bool ok = false;
	if (make_case(&c, sh, md->flags, s)) {
		printf("%10s  %-6s %s\n", "-", "FAIL", "out of memory");
		goto out;
	}
	int rc = ref_gemm(c.m, c.k, c.n, c.a, c.b, &c.p, c.want);
	if (rc) {
		printf("%10s  %-6s reference rejected the case: %s\n", "-", "FAIL", strerror(-rc));
		goto out;
	}
	double t0 = now_ms();
	rc = tpu_gemm(dev, c.m, c.k, c.n, c.a, c.b, &c.p, c.got);
	double ms = now_ms() - t0;
	if (rc) {
		const char *why = tpu_gemm_last_error(dev);
		printf("%7.2f ms  %-6s %s%s%s%s\n", ms, "FAIL", tpu_strerror(rc), *why ? " (" : "",
		       why, *why ? ")" : "");
		goto out;
	}
	int64_t d = max_diff(&c, md->flags & M_QUANT);
	ok = d == 0;
	printf("%7.2f ms  %-6s %" PRId64 "\n", ms, ok ? "PASS" : "FAIL", d);
out:
	free_case(&c);
	return ok;
}

/* One bf16 GEMM of shape sh (--dtype bf16 of tpu matmul): random bf16 operands of magnitude
 * 2^-4 .. 2^4, with acc_bias an fp32 bias and TPU_GEMM_ACCUMULATE onto a random C. The
 * expected C is the contract (docs/ops.md "bf16 GEMM"): tpu_bf16_dot_tiled over tiles of the
 * array's N, from the old C with accumulate, then tpu_f32_add of the bias. The row's last
 * column is the largest difference in units in the last place (0: bit for bit). */
static bool run_bf16_case(tpu_dev *dev, int idx, const struct shape *sh, bool acc_bias,
			  unsigned N, uint64_t *s)
{
	size_t m = sh->m, k = sh->k, n = sh->n;
	uint16_t *a = malloc(m * k * 2), *b = malloc(k * n * 2), *col = malloc(k * 2);
	uint32_t *c = malloc(m * n * 4), *c0 = malloc(m * n * 4), *bias = malloc(n * 4);
	struct tpu_gemm_desc d = { .dtype = TPU_DTYPE_BF16, .m = m, .n = n, .k = k, .a = a,
				   .b = b, .c = c, .flags = acc_bias ? TPU_GEMM_ACCUMULATE : 0 };
	struct tpu_gemm_params p;
	char shape[48];
	bool ok = false;

	snprintf(shape, sizeof(shape), "%zu x %zu x %zu", m, k, n);
	printf("%3d  %-18s %-20s ", idx, shape, acc_bias ? "bf16 bias acc" : "bf16");
	fflush(stdout);
	if (!a || !b || !col || !c || !c0 || !bias) {
		printf("%10s  %-6s %s\n", "-", "FAIL", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m * k; i++)
		a[i] = (uint16_t)((rnd(s) & 0x807Fu) | (uint64_t)rnd_range(s, 123, 131) << 7);
	for (size_t i = 0; i < k * n; i++)
		b[i] = (uint16_t)((rnd(s) & 0x807Fu) | (uint64_t)rnd_range(s, 123, 131) << 7);
	for (size_t i = 0; i < m * n; i++)
		c[i] = c0[i] = (uint32_t)((rnd(s) & 0x807FFFFFu) | (uint64_t)rnd_range(s, 120, 134) << 23);
	for (size_t j = 0; j < n; j++)
		bias[j] = (uint32_t)((rnd(s) & 0x807FFFFFu) | (uint64_t)rnd_range(s, 120, 134) << 23);
	tpu_gemm_params_init(&p);
	p.bias = acc_bias ? (const int32_t *)bias : NULL;
	double t0 = now_ms();
	int rc = tpu_gemm_ex(dev, &d, &p);
	double ms = now_ms() - t0;
	if (rc) {
		const char *why = tpu_gemm_last_error(dev);
		printf("%7.2f ms  %-6s %s%s%s%s\n", ms, "FAIL", tpu_strerror(rc), *why ? " (" : "",
		       why, *why ? ")" : "");
		goto out;
	}
	int64_t worst = 0;
	for (size_t j = 0; j < n; j++) {
		for (size_t kk = 0; kk < k; kk++)
			col[kk] = b[kk * n + j];
		for (size_t i = 0; i < m; i++) {
			uint32_t w = tpu_bf16_dot_tiled(a + i * k, col, (unsigned)k, N, c0[i * n + j],
							acc_bias);
			if (acc_bias)
				w = tpu_f32_add(w, bias[j]);
			/* (sign-magnitude bits to a monotonic integer line) */
			int64_t g = c[i * n + j] >> 31 ? -(int64_t)(c[i * n + j] & 0x7FFFFFFFu)
						       : (int64_t)c[i * n + j];
			int64_t e = w >> 31 ? -(int64_t)(w & 0x7FFFFFFFu) : (int64_t)w;
			int64_t diff = g > e ? g - e : e - g;
			if (c[i * n + j] != w && diff == 0)
				diff = 1; /* +0 / -0 */
			if (diff > worst)
				worst = diff;
		}
	}
	ok = worst == 0;
	printf("%7.2f ms  %-6s %" PRId64 "%s\n", ms, ok ? "PASS" : "FAIL", worst,
	       worst ? " ulp" : "");
out:
	free(a);
	free(b);
	free(col);
	free(c);
	free(c0);
	free(bias);
	return ok;
}

int cmd_selftest(const struct cli_ctx *ctx, int argc, char **argv)
{
	const char *device = ctx->device;
	unsigned long long seed = 1;
	bool quick = false;
	struct cli_scan sc;
	const char *val;
	int id;
	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			cli_error(ctx, "unexpected argument '%s' (see %s --help)", val, ctx->name);
			return CLI_EXIT_USAGE;
		case OPT_DEVICE:
			device = val;
			break;
		case OPT_SEED:
			if (cli_parse_u64(val, &seed)) {
				cli_error(ctx, "--seed '%s': not an unsigned 64-bit integer", val);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_QUICK:
			quick = true;
			break;
		case OPT_HELP:
			help();
			return CLI_EXIT_OK;
		}
	}

	tpu_dev *dev;
	struct tpu_info info;
	int err = cli_open(ctx, device, &dev, &info);
	if (err)
		return cli_open_exit(err);
	size_t n = info.array_n;
	const struct shape shapes[] = {
	    {1, 1, 1, false},
	    {1, n + 3, 2 * n + 1, false},
	    {7, 1, n, false},
	    {n + 1, 5, 1, false},
	    {n, n, n, false},
	    {n + 1, 2 * n - 1, n + 3, false},
	    {3 * n + 5, 2 * n + 7, n - 1, false},
	    {2 * n, 4 * n + 1, 3 * n, false},
	    {33, 3 * n + 2, 2 * n + 5, false},
	    {256, 300, 200, true},
	};
	const size_t n_shapes = sizeof(shapes) / sizeof(shapes[0]);

	printf("selftest on %s (%s, N = %zu), seed %llu%s\n", device, info.backend, n, seed,
	       quick ? ", quick" : "");
	printf("%3s  %-18s %-20s %10s  %-6s %s\n", "#", "M x K x N", "mode", "time", "result",
	       "max |diff|");
	uint64_t s = seed;
	int total = 0, passed = 0;
	/* Each shape runs two modes; the pairs rotate so that every mode meets several shapes. */
	for (size_t i = 0; i < n_shapes; i++) {
		if (quick && shapes[i].large)
			continue;
		for (size_t r = 0; r < 2; r++) {
			const struct mode *md = &modes[(2 * i + r) % N_MODES];
			if (shapes[i].large)
				md = &modes[r ? N_MODES - 3 : 0]; /* raw and "q8 all" */
			total++;
			passed += run_case(dev, total, &shapes[i], md, &s);
		}
	}
	bool bf16 = info.features & TPU_FEATURES_BF16_MASK;
	int bf_total = 0, bf_passed = 0;
	/* every shape once more as bf16, plain and with bias + accumulate in turn */
	for (size_t i = 0; bf16 && i < n_shapes; i++) {
		if (quick && shapes[i].large)
			continue;
		bf_total++;
		total++;
		bool ok = run_bf16_case(dev, total, &shapes[i], i % 2 == 1, info.array_n, &s);
		passed += ok;
		bf_passed += ok;
	}
	tpu_close(dev);
	if (!bf16)
		printf("selftest: bf16 skipped: the device has no bf16 mode (FEATURES.BF16 = 0, "
		       "int8 only)\n");
	else
		printf("selftest: bf16: %d of %d bf16 x bf16 -> fp32 GEMMs match bit for bit\n",
		       bf_passed, bf_total);
	if (passed == total) {
		printf("selftest: PASS: %d of %d GEMMs match the reference\n", passed, total);
		return CLI_EXIT_OK;
	}
	printf("selftest: FAIL: %d of %d GEMMs differ from the reference\n", total - passed, total);
	return CLI_EXIT_FAIL;
}
