/* `tpu matmul`: OUT = f((A - ZA) · B + bias) on the device, with .npy files in and out.
 * Every argument and every file is checked before the device is opened; each failure is one
 * line naming the file or option, the field and the limit. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npy.h"
#include "tpu/bf16.h"
#include "tpu/numerics.h"
#include "tpu/tpu.h"

static void help(void)
{
	printf("usage: tpu matmul A.npy B.npy -o OUT.npy [options]\n"
	       "\n"
	       "Compute OUT = (A - ZA) x B + bias on the device (int8; --dtype bf16 below).\n"
	       "A is int8 M x K, B int8 K x N,\n"
	       "K <= %u (the K limit: a sum of more int8 products can overflow int32; with\n"
	       "--in-zero-point the limit for (A - ZA) x B, down to 65793, see docs/ops.md).\n"
	       "A larger K is refused, never wrapped. The bias adds in int32 as in TFLite.\n"
	       "Without --multiplier OUT is int32 M x N. With --multiplier and --shift OUT is\n"
	       "int8 M x N: each value is requantized (TFLite MultiplyByQuantizedMultiplier),\n"
	       "offset by ZO, clamped to [MIN, MAX] and, with --lut, mapped through the table.\n"
	       "\n"
	       "Options:\n"
	       "  -o, --output OUT.npy      result file (required)\n"
	       "  --bias BIAS.npy           int32, length N\n"
	       "  --multiplier M.npy        int32, length 1 (per tensor) or N, values 0..2^31-1\n"
	       "  --shift S.npy             int32, length 1 or N, -31..30 (positive = left)\n"
	       "  --in-zero-point ZA        -128..127 (default 0): the product uses A - ZA\n"
	       "  --out-zero-point ZO       -128..127 (default 0; needs --multiplier)\n"
	       "  --clamp MIN,MAX           -128 <= MIN <= MAX <= 127 (default -128,127;\n"
	       "                            needs --multiplier)\n"
	       "  --lut L.npy               int8[256], out = L[v + 128] (needs --multiplier)\n"
	       "  --dtype int8|bf16         element type of A and B (default int8). bf16: A and B\n"
	       "                            float32 ('<f4', rounded to bf16 to nearest even) or\n"
	       "                            uint16 ('<u2', bf16 bit patterns); OUT is float32\n"
	       "                            M x N, the fp32 sums of the device's bf16 mode\n"
	       "                            (docs/spec.md 7.1); --bias then float32, length N;\n"
	       "                            no K limit; needs a device with FEATURES.BF16\n"
	       "                            (golden:bf16=1); the int8 options above are refused\n"
	       "  --device URI              device to use (default: the global --device)\n"
	       "  -h, --help                this help\n"
	       "\n"
	       "Exit status: 0 success, 1 device failure, 2 bad arguments or input files (a K\n"
	       "beyond the limit, a bad device URI included).\n",
	       TPU_K_NO_OVERFLOW);
}

enum {
	OPT_OUT = 1,
	OPT_BIAS,
	OPT_MULT,
	OPT_SHIFT,
	OPT_ZIN,
	OPT_ZOUT,
	OPT_CLAMP,
	OPT_LUT,
	OPT_DEVICE,
	OPT_DTYPE,
	OPT_HELP,
};

static const struct cli_opt opts[] = {
    {"output", 'o', true, OPT_OUT},
    {"bias", 0, true, OPT_BIAS},
    {"multiplier", 0, true, OPT_MULT},
    {"shift", 0, true, OPT_SHIFT},
    {"in-zero-point", 0, true, OPT_ZIN},
    {"out-zero-point", 0, true, OPT_ZOUT},
    {"clamp", 0, true, OPT_CLAMP},
    {"lut", 0, true, OPT_LUT},
    {"device", 0, true, OPT_DEVICE},
    {"dtype", 0, true, OPT_DTYPE},
    {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

struct mm_args {
	const char *device;
	const char *a, *b, *out;
	const char *bias, *mult, *shift, *lut;
	const char *zin_text, *zout_text, *clamp_text;
	long zin, zout, qmin, qmax;
	bool bf16; /* --dtype bf16 */
};

/* Everything loaded from the files. */
struct mm_data {
	struct npy_array a, b, bias, mult, shift, lut;
	int32_t *mult_n, *shift_n; /* broadcast copies when the lengths differ */
	uint16_t *a16, *b16;       /* --dtype bf16: A and B as bf16 bit patterns */
};

static int parse_zero_point(const struct cli_ctx *ctx, const char *opt, const char *s, long *out)
{
	int rc = cli_parse_long(s, -128, 127, out);
	if (rc == -EINVAL)
		cli_error(ctx, "%s '%s': not an integer", opt, s);
	else if (rc)
		cli_error(ctx, "%s '%s': outside -128..127", opt, s);
	return rc;
}

/* "MIN,MAX" with -128 <= MIN <= MAX <= 127. */
static int parse_clamp(const struct cli_ctx *ctx, const char *s, long *lo, long *hi)
{
	const char *comma = strchr(s, ',');
	if (!comma || strchr(comma + 1, ',')) {
		cli_error(ctx, "--clamp '%s': expected MIN,MAX (two integers in -128..127)", s);
		return -EINVAL;
	}
	char first[32];
	size_t len = (size_t)(comma - s);
	if (len >= sizeof(first)) {
		cli_error(ctx, "--clamp '%s': MIN is not an integer", s);
		return -EINVAL;
	}
	memcpy(first, s, len);
	first[len] = '\0';
	const char *part[2] = {first, comma + 1};
	const char *name[2] = {"MIN", "MAX"};
	long *dst[2] = {lo, hi};
	for (int i = 0; i < 2; i++) {
		int rc = cli_parse_long(part[i], -128, 127, dst[i]);
		if (rc == -EINVAL) {
			cli_error(ctx, "--clamp '%s': %s '%s' is not an integer", s, name[i],
				  part[i]);
			return rc;
		}
		if (rc) {
			cli_error(ctx, "--clamp '%s': %s %s outside -128..127", s, name[i],
				  part[i]);
			return rc;
		}
	}
	if (*lo > *hi) {
		cli_error(ctx, "--clamp '%s': MIN %ld is above MAX %ld", s, *lo, *hi);
		return -EINVAL;
	}
	return 0;
}

/* Returns CLI_EXIT_OK to go on, -1 after --help, or CLI_EXIT_USAGE. */
static int parse_args(const struct cli_ctx *ctx, int argc, char **argv, struct mm_args *m)
{
	struct cli_scan sc;
	const char *val;
	struct cli_pair pos = {.names = {"A.npy", "B.npy"}};
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
		case OPT_OUT:
			m->out = val;
			break;
		case OPT_BIAS:
			m->bias = val;
			break;
		case OPT_MULT:
			m->mult = val;
			break;
		case OPT_SHIFT:
			m->shift = val;
			break;
		case OPT_LUT:
			m->lut = val;
			break;
		case OPT_DEVICE:
			m->device = val;
			break;
		case OPT_DTYPE:
			if (!strcmp(val, "bf16")) {
				m->bf16 = true;
			} else if (!strcmp(val, "int8")) {
				m->bf16 = false;
			} else {
				cli_error(ctx, "--dtype '%s': expected int8 or bf16", val);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_ZIN:
			m->zin_text = val;
			if (parse_zero_point(ctx, "--in-zero-point", val, &m->zin))
				return CLI_EXIT_USAGE;
			break;
		case OPT_ZOUT:
			m->zout_text = val;
			if (parse_zero_point(ctx, "--out-zero-point", val, &m->zout))
				return CLI_EXIT_USAGE;
			break;
		case OPT_CLAMP:
			m->clamp_text = val;
			if (parse_clamp(ctx, val, &m->qmin, &m->qmax))
				return CLI_EXIT_USAGE;
			break;
		case OPT_HELP:
			help();
			return -1;
		}
	}
	if (cli_pair_done(ctx, &pos, "tpu matmul A.npy B.npy -o OUT.npy [options]"))
		return CLI_EXIT_USAGE;
	m->a = pos.val[0];
	m->b = pos.val[1];
	if (!m->out) {
		cli_error(ctx, "no output file: give -o OUT.npy");
		return CLI_EXIT_USAGE;
	}
	if (m->bf16) {
		const char *int8_only = m->mult	       ? "--multiplier"
					: m->shift     ? "--shift"
					: m->zin_text  ? "--in-zero-point"
					: m->zout_text ? "--out-zero-point"
					: m->clamp_text ? "--clamp"
					: m->lut       ? "--lut"
						       : NULL;
		if (int8_only) {
			cli_error(ctx, "%s applies to --dtype int8 only (bf16 output is fp32, "
				       "not requantized)", int8_only);
			return CLI_EXIT_USAGE;
		}
	}
	if (!m->mult != !m->shift) {
		cli_error(ctx, "%s needs %s as well", m->mult ? "--multiplier" : "--shift",
			  m->mult ? "--shift" : "--multiplier");
		return CLI_EXIT_USAGE;
	}
	const char *needs = m->lut	    ? "--lut"
			    : m->zout_text  ? "--out-zero-point"
			    : m->clamp_text ? "--clamp"
					    : NULL;
	if (needs && !m->mult) {
		cli_error(ctx, "%s applies to int8 output only: it needs --multiplier and --shift",
			  needs);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

/* Load path as a dtype array of the given ranks; "what" names its role in messages. */
static int load(const struct cli_ctx *ctx, const char *path, unsigned ranks, enum npy_dtype want,
		const char *what, struct npy_array *arr)
{
	char err[256];
	if (npy_load(path, ranks, arr, err, sizeof(err))) {
		cli_error(ctx, "%s: %s", path, err);
		return -1;
	}
	if (arr->dtype != want) {
		cli_error(ctx, "%s: dtype %s, but %s must be %s", path, npy_dtype_name(arr->dtype),
			  what, npy_dtype_name(want));
		npy_free(arr);
		return -1;
	}
	return 0;
}

/* A vector parameter: length 1 or N (per_tensor_ok) or exactly N, values in [lo, hi]. */
static int check_vector(const struct cli_ctx *ctx, const char *path, const char *what,
			const struct npy_array *v, size_t n, const char *b_path, bool per_tensor_ok,
			long lo, long hi)
{
	if (v->count != n && !(per_tensor_ok && v->count == 1)) {
		cli_error(ctx, "%s: %s length %zu, expected %sN = %zu (the columns of %s)", path,
			  what, v->count, per_tensor_ok ? "1 (per tensor) or " : "", n, b_path);
		return -1;
	}
	const int32_t *x = v->data;
	for (size_t i = 0; i < v->count; i++) {
		if (x[i] < lo || x[i] > hi) {
			cli_error(ctx, "%s: %s[%zu] = %d outside %ld..%ld", path, what, i,
				  (int)x[i], lo, hi);
			return -1;
		}
	}
	return 0;
}

static int32_t *broadcast(const struct npy_array *v, size_t n)
{
	int32_t *out = malloc(n * sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		out[i] = ((const int32_t *)v->data)[v->count == 1 ? 0 : i];
	return out;
}

/* --dtype bf16: a float32 matrix rounded to bf16 (tpu_f32_to_bf16), or uint16 bf16 bits. */
static int load_bf16(const struct cli_ctx *ctx, const char *path, const char *what,
		     struct npy_array *arr, uint16_t **out)
{
	char err[256];

	if (npy_load(path, NPY_RANK2, arr, err, sizeof(err))) {
		cli_error(ctx, "%s: %s", path, err);
		return -1;
	}
	if (arr->dtype != NPY_FLOAT32 && arr->dtype != NPY_UINT16) {
		cli_error(ctx, "%s: dtype %s, but %s must be float32 ('<f4') or uint16 ('<u2', "
			       "bf16 bit patterns) with --dtype bf16",
			  path, npy_dtype_name(arr->dtype), what);
		return -1;
	}
	*out = malloc((arr->count ? arr->count : 1) * sizeof(**out));
	if (!*out) {
		cli_error(ctx, "%s: out of memory for %zu values", path, arr->count);
		return -1;
	}
	for (size_t i = 0; i < arr->count; i++) {
		if (arr->dtype == NPY_UINT16) {
			(*out)[i] = ((const uint16_t *)arr->data)[i];
		} else {
			uint32_t x;
			memcpy(&x, (const uint32_t *)arr->data + i, 4);
			(*out)[i] = tpu_f32_to_bf16(x);
		}
	}
	return 0;
}

static int load_inputs(const struct cli_ctx *ctx, const struct mm_args *m, struct mm_data *d)
{
	char sa[64], sb[64];
	if (m->bf16 ? load_bf16(ctx, m->a, "A", &d->a, &d->a16) ||
			      load_bf16(ctx, m->b, "B", &d->b, &d->b16)
		    : load(ctx, m->a, NPY_RANK2, NPY_INT8, "A", &d->a) ||
			      load(ctx, m->b, NPY_RANK2, NPY_INT8, "B", &d->b))
		return -1;
	npy_shape_str(&d->a, sa, sizeof(sa));
	npy_shape_str(&d->b, sb, sizeof(sb));
	if (!d->a.count) {
		cli_error(ctx, "%s: shape %s is empty; M and K must be at least 1", m->a, sa);
		return -1;
	}
	if (!d->b.count) {
		cli_error(ctx, "%s: shape %s is empty; K and N must be at least 1", m->b, sb);
		return -1;
	}
	if (d->b.shape[0] != d->a.shape[1]) {
		cli_error(
		    ctx, "%s: shape %s does not fit %s %s: rows of B must equal columns of A (%zu)",
		    m->b, sb, m->a, sa, d->a.shape[1]);
		return -1;
	}
	if (!m->bf16 && d->a.shape[1] > TPU_K_NO_OVERFLOW) {
		cli_error(ctx,
			  "%s: K = %zu (its columns) exceeds the K limit %u: a sum of more int8 "
			  "products can overflow int32",
			  m->a, d->a.shape[1], TPU_K_NO_OVERFLOW);
		return -1;
	}
	size_t rows = d->a.shape[0], n = d->b.shape[1];
	if (rows > NPY_MAX_ELEMS / n) {
		cli_error(ctx, "%s, %s: the output would have %zu x %zu elements, more than 2^31",
			  m->a, m->b, rows, n);
		return -1;
	}
	if (m->bias && m->bf16) {
		if (load(ctx, m->bias, NPY_RANK1, NPY_FLOAT32, "--bias with --dtype bf16",
			 &d->bias))
			return -1;
		if (d->bias.count != n) {
			cli_error(ctx, "%s: bias length %zu, expected N = %zu (the columns of %s)",
				  m->bias, d->bias.count, n, m->b);
			return -1;
		}
		return 0;
	}
	if (m->bias &&
	    (load(ctx, m->bias, NPY_RANK1, NPY_INT32, "--bias", &d->bias) ||
	     check_vector(ctx, m->bias, "bias", &d->bias, n, m->b, false, INT32_MIN, INT32_MAX)))
		return -1;
	if (m->mult &&
	    (load(ctx, m->mult, NPY_RANK1, NPY_INT32, "--multiplier", &d->mult) ||
	     check_vector(ctx, m->mult, "multiplier", &d->mult, n, m->b, true, 0, INT32_MAX) ||
	     load(ctx, m->shift, NPY_RANK1, NPY_INT32, "--shift", &d->shift) ||
	     check_vector(ctx, m->shift, "shift", &d->shift, n, m->b, true, -31, 30)))
		return -1;
	if (m->lut) {
		if (load(ctx, m->lut, NPY_RANK1, NPY_INT8, "--lut", &d->lut))
			return -1;
		if (d->lut.count != 256) {
			cli_error(ctx, "%s: LUT length %zu, expected 256 (int8, out = L[v + 128])",
				  m->lut, d->lut.count);
			return -1;
		}
	}
	if (m->mult && d->mult.count != d->shift.count) {
		/* one per tensor, the other per channel: use per channel for both */
		d->mult_n = broadcast(&d->mult, n);
		d->shift_n = broadcast(&d->shift, n);
		if (!d->mult_n || !d->shift_n) {
			cli_error(ctx, "out of memory");
			return -1;
		}
	}
	return 0;
}

static void free_data(struct mm_data *d)
{
	npy_free(&d->a);
	npy_free(&d->b);
	npy_free(&d->bias);
	npy_free(&d->mult);
	npy_free(&d->shift);
	npy_free(&d->lut);
	free(d->mult_n);
	free(d->shift_n);
	free(d->a16);
	free(d->b16);
}

static int run_gemm(const struct cli_ctx *ctx, const struct mm_args *m, struct mm_data *d)
{
	size_t rows = d->a.shape[0], k = d->a.shape[1], n = d->b.shape[1];
	struct tpu_gemm_params p;
	tpu_gemm_params_init(&p);
	p.in_zero_point = (int32_t)m->zin;
	p.bias = m->bias ? d->bias.data : NULL;
	if (m->mult) {
		p.quant_channels = d->mult_n ? n : d->mult.count;
		p.multiplier = d->mult_n ? d->mult_n : d->mult.data;
		p.shift = d->shift_n ? d->shift_n : d->shift.data;
		p.out_zero_point = (int32_t)m->zout;
		p.clamp_min = (int32_t)m->qmin;
		p.clamp_max = (int32_t)m->qmax;
		p.lut = m->lut ? d->lut.data : NULL;
	}
	struct npy_array out = {
	    .dtype = m->bf16 ? NPY_FLOAT32 : m->mult ? NPY_INT8 : NPY_INT32,
	    .rank = 2,
	    .shape = {rows, n},
	    .count = rows * n,
	};
	out.data = calloc(out.count, npy_dtype_size(out.dtype));
	if (!out.data) {
		cli_error(ctx, "out of memory for the %zu x %zu output", rows, n);
		return CLI_EXIT_FAIL;
	}
	int ret = CLI_EXIT_FAIL;
	tpu_dev *dev;
	int oerr = cli_open(ctx, m->device, &dev, NULL);
	if (oerr) {
		ret = cli_open_exit(oerr);
		goto out_free;
	}
	int rc;
	if (m->bf16) {
		struct tpu_gemm_desc gd = { .dtype = TPU_DTYPE_BF16, .m = rows, .n = n, .k = k,
					    .a = d->a16, .b = d->b16, .c = out.data };
		rc = tpu_gemm_ex(dev, &gd, &p); /* (the bias: fp32 bits, as the file holds) */
	} else {
		rc = tpu_gemm(dev, rows, k, n, d->a.data, d->b.data, &p, out.data);
	}
	if (rc) {
		const char *why = tpu_gemm_last_error(dev);
		if (rc == -ERANGE) { /* the shape itself: an input error */
			cli_error(ctx, "%s, %s: refused, the sum could overflow int32: %s", m->a,
				  m->b, why);
			ret = CLI_EXIT_USAGE;
			goto out_close;
		}
		cli_error(ctx, "device '%s': %sGEMM %zu x %zu x %zu failed: %s%s%s%s", m->device,
			  m->bf16 ? "bf16 " : "", rows, k, n, tpu_strerror(rc), *why ? " (" : "", why, *why ? ")" : "");
		goto out_close;
	}
	char err[256];
	rc = npy_save(m->out, &out, 0, err, sizeof(err));
	if (rc) {
		cli_error(ctx, "%s: %s", m->out, err);
		goto out_close;
	}
	ret = CLI_EXIT_OK;
out_close:
	tpu_close(dev);
out_free:
	free(out.data);
	return ret;
}

int cmd_matmul(const struct cli_ctx *ctx, int argc, char **argv)
{
	struct mm_args m = {.device = ctx->device, .qmin = -128, .qmax = 127};
	int rc = parse_args(ctx, argc, argv, &m);
	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	struct mm_data d;
	memset(&d, 0, sizeof(d));
	if (load_inputs(ctx, &m, &d)) {
		free_data(&d);
		return CLI_EXIT_USAGE;
	}
	rc = run_gemm(ctx, &m, &d);
	free_data(&d);
	return rc;
}
