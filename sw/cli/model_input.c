/* MODEL and DATA.npy for the model subcommands; see model_input.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_input.h"
#include "npy.h"
#include "tpu/tpu.h"

int cli_model_load(const struct cli_ctx *ctx, const char *path, struct tpu_model **m)
{
	char err[512] = "";
	int rc = tpu_model_load(path, m, err, sizeof(err));
	if (rc) {
		*m = NULL;
		cli_error(ctx, "%s: %s", path, err[0] ? err : tpu_strerror(rc));
	}
	return rc;
}

int cli_reorder(const struct cli_ctx *ctx, void *v, size_t es, size_t batch, uint32_t h,
		uint32_t w, uint32_t c, bool to_nchw)
{
	size_t hw = (size_t)h * w, per = hw * c;
	if (c == 1 || hw == 1)
		return 0; /* the same order */
	char *tmp = malloc(per * es);
	if (!tmp) {
		cli_error(ctx, "out of memory for %zu values", per);
		return -ENOMEM;
	}
	for (size_t b = 0; b < batch; b++) {
		char *e = (char *)v + b * per * es;
		for (size_t p = 0; p < hw; p++)
			for (size_t k = 0; k < c; k++) {
				size_t nchw = k * hw + p, nhwc = p * c + k;
				memcpy(tmp + (to_nchw ? nchw : nhwc) * es,
				       e + (to_nchw ? nhwc : nchw) * es, es);
			}
		memcpy(e, tmp, per * es);
	}
	free(tmp);
	return 0;
}

/* Check the shape of d against the model's input; *batch gets B. */
static int check_shape(const struct cli_ctx *ctx, const char *path, const struct npy_array *d,
		       const struct tpu_model *m, size_t *batch)
{
	char shape[128];
	size_t per = (size_t)m->in_h * m->in_w * m->in_c;
	bool nchw = m->io_layout & TPU_LAYOUT_IN_NCHW, ok;
	switch (d->rank) {
	case 1:
		ok = d->shape[0] == per;
		break;
	case 2:
		ok = d->shape[1] == per;
		break;
	case 3:
		ok = m->in_c == 1 && d->shape[1] == m->in_h && d->shape[2] == m->in_w;
		break;
	default:
		ok = nchw ? d->shape[1] == m->in_c && d->shape[2] == m->in_h &&
				d->shape[3] == m->in_w
			  : d->shape[1] == m->in_h && d->shape[2] == m->in_w &&
				d->shape[3] == m->in_c;
		break;
	}
	npy_shape_str(d, shape, sizeof(shape));
	if (!ok) {
		if (nchw)
			cli_error(ctx,
				  "%s: shape %s does not fit model '%s': expected (B, %u, %u, %u) "
				  "(NCHW, the model's input layout) or (B, %zu), or (%zu,) for one "
				  "example",
				  path, shape, m->name, m->in_c, m->in_h, m->in_w, per, per);
		else if (m->in_c == 1)
			cli_error(ctx,
				  "%s: shape %s does not fit model '%s': expected (B, %u, %u), "
				  "(B, %u, %u, 1) or (B, %zu), or (%zu,) for one example",
				  path, shape, m->name, m->in_h, m->in_w, m->in_h, m->in_w, per,
				  per);
		else
			cli_error(ctx,
				  "%s: shape %s does not fit model '%s': expected (B, %u, %u, %u) "
				  "or (B, %zu), or (%zu,) for one example",
				  path, shape, m->name, m->in_h, m->in_w, m->in_c, per, per);
		return -EINVAL;
	}
	*batch = d->rank == 1 ? 1 : d->shape[0];
	if (*batch == 0) {
		cli_error(ctx, "%s: shape %s holds no examples", path, shape);
		return -EINVAL;
	}
	return 0;
}

int cli_model_input_load(const struct cli_ctx *ctx, const char *path, const struct tpu_model *m,
			 bool quantized, int8_t **q, size_t *batch)
{
	struct npy_array d;
	char err[512];
	float *raw = NULL;
	int rc =
	    npy_load(path, NPY_RANK1 | NPY_RANK2 | NPY_RANK3 | NPY_RANK4, &d, err, sizeof(err));
	*q = NULL;
	if (rc) {
		cli_error(ctx, "%s: %s", path, err);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	rc = check_shape(ctx, path, &d, m, batch);
	if (rc)
		goto out;
	rc = -EINVAL;
	bool u8 = m->in_type == TPU_IO_UINT8;
	if (quantized && d.dtype != (u8 ? NPY_UINT8 : NPY_INT8)) {
		cli_error(ctx, "%s: dtype %s, but --quantized data must be %s", path,
			  npy_dtype_name(d.dtype),
			  u8 ? "uint8 ('|u1'): the model's input is uint8" : "int8 ('|i1')");
		goto out;
	}
	rc = -ENOMEM;
	*q = malloc(d.count);
	raw = quantized ? NULL : malloc(d.count * sizeof(*raw));
	if (!*q || (!quantized && !raw)) {
		cli_error(ctx, "%s: out of memory for %zu values", path, d.count);
		free(*q);
		*q = NULL;
		goto out;
	}
	if (quantized) {
		/* a uint8 tensor u is the int8 tensor u - 128 (docs/model-format.md) */
		for (size_t i = 0; i < d.count; i++)
			(*q)[i] = (int8_t)(((const uint8_t *)d.data)[i] - (u8 ? 128 : 0));
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < d.count; i++) {
		switch (d.dtype) {
		case NPY_INT8:
			raw[i] = (float)((const int8_t *)d.data)[i];
			break;
		case NPY_UINT8:
			raw[i] = (float)((const uint8_t *)d.data)[i];
			break;
		case NPY_INT32:
			raw[i] = (float)((const int32_t *)d.data)[i];
			break;
		case NPY_FLOAT32:
			raw[i] = ((const float *)d.data)[i];
			break;
		case NPY_UINT16:
			raw[i] = (float)((const uint16_t *)d.data)[i];
			break;
		}
	}
	tpu_model_quantize_input(m, raw, d.count, *q);
	rc = 0;
out:
	if (!rc && (m->io_layout & TPU_LAYOUT_IN_NCHW) &&
	    (rc = cli_reorder(ctx, *q, 1, *batch, m->in_h, m->in_w, m->in_c, false))) {
		free(*q);
		*q = NULL;
	}
	free(raw);
	npy_free(&d);
	return rc;
}
