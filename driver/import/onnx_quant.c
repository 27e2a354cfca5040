/* Quantization parameters and weights of ONNX nodes as the tpu model stores them
 * (onnx_quant.h): uint8 tensors become int8 ones shifted by 128, weights become int8 with zero
 * point 0 and one scale per output channel. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_quant.h"

int oq_params(const struct ox *x, const Onnx__NodeProto *n, size_t i_scale, size_t i_zp,
	      const char *what, struct oq_params *q)
{
	struct ox_values s, z;
	char w[64];
	snprintf(w, sizeof(w), "%s scale", what);
	int rc = ox_const_input(x, n, i_scale, w, &s);
	if (rc)
		return rc;
	if (s.type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || s.count != 1) {
		rc = ox_node_fail(x, n, "%s: %zu %s values (one float expected)", w, s.count,
				  ox_type_name(s.type));
		goto out_s;
	}
	q->scale = s.floats[0];
	if (!isfinite(q->scale) || q->scale <= 0.0f) {
		rc = ox_node_fail(x, n, "%s: %g (must be finite and > 0)", w, (double)q->scale);
		goto out_s;
	}
	snprintf(w, sizeof(w), "%s zero point", what);
	if (!ox_input(n, i_zp)) { /* ONNX's default: uint8 zero point 0 */
		q->u8 = true;
		q->zp = -128;
		goto out_s;
	}
	rc = ox_const_input(x, n, i_zp, w, &z);
	if (rc)
		goto out_s;
	if ((z.type != ONNX__TENSOR_PROTO__DATA_TYPE__INT8 &&
	     z.type != ONNX__TENSOR_PROTO__DATA_TYPE__UINT8) ||
	    z.count != 1)
		rc = ox_node_fail(x, n, "%s: %zu %s values (one int8 or uint8 expected)", w,
				  z.count, ox_type_name(z.type));
	else {
		q->u8 = z.type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
		q->zp = (int32_t)z.ints[0] - (q->u8 ? 128 : 0);
	}
	ox_values_free(&z);
out_s:
	ox_values_free(&s);
	return rc;
}

bool oq_same(const struct oq_params *a, const struct oq_params *b)
{
	return !memcmp(&a->scale, &b->scale, sizeof(float)) && a->zp == b->zp && a->u8 == b->u8;
}

/* Scales (float) or zero points (int) of count 1 or out_c: channel j's value. */
static size_t per(size_t count, size_t j)
{
	return count == 1 ? 0 : j;
}

int oq_weights(const struct ox *x, const struct oq_weight_src *src, struct oq_weights *w)
{
	const Onnx__NodeProto *n = src->node;
	struct ox_values v, s, z = {0};
	memset(w, 0, sizeof(*w));
	int rc = ox_const_input(x, n, src->i_w, "weights", &v);
	if (rc)
		return rc;
	if (src->i_scale == SIZE_MAX) {
		/* no scale (MatMulInteger, ConvInteger): 1 */
		s = (struct ox_values){.type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, .count = 1};
		if (!(s.floats = malloc(sizeof(float)))) {
			ox_values_free(&v);
			ox_fail(x, "out of memory");
			return -ENOMEM;
		}
		s.floats[0] = 1.0f;
	} else if ((rc = ox_const_input(x, n, src->i_scale, "weight scale", &s))) {
		ox_values_free(&v);
		return rc;
	}
	if (ox_input(n, src->i_zp) &&
	    (rc = ox_const_input(x, n, src->i_zp, "weight zero point", &z)))
		goto out;
	rc = -EINVAL;
	bool u8 = v.type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
	if (v.type != ONNX__TENSOR_PROTO__DATA_TYPE__INT8 && !u8) {
		ox_node_fail(x, n, "weights: %s (int8 or uint8 expected)", ox_type_name(v.type));
		goto out;
	}
	int64_t axis = src->axis;
	bool batched = src->batch_ok && src->rank == 2 && v.rank == 3;
	if (batched) {
		size_t slice = (size_t)(v.dims[1] * v.dims[2]);
		for (size_t i = slice; i < v.count; i++)
			if (v.ints[i] != v.ints[i % slice]) {
				ox_node_fail(x, n,
					     "weights: batch slice %zu differs from slice 0 (one "
					     "(K, N) matrix for every batch is supported)",
					     i / slice);
				goto out;
			}
		v.rank = 2;
		v.count = slice;
		v.dims[0] = v.dims[1];
		v.dims[1] = v.dims[2];
		/* the axis in the slice, counted from the end (the batch axis: -3, none) */
		axis = axis < 0 ? axis : axis - 3;
	}
	if (v.rank != src->rank) {
		ox_node_fail(x, n, "weights: rank %zu (%zu expected%s)", v.rank, src->rank,
			     src->batch_ok ? ", or 3 with equal batch slices" : "");
		goto out;
	}
	size_t out_c = (size_t)v.dims[src->chan_axis];
	if (s.type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || (s.count != 1 && s.count != out_c)) {
		ox_node_fail(x, n, "weight scale: %zu %s values (1 or %zu floats expected)",
			     s.count, ox_type_name(s.type), out_c);
		goto out;
	}
	if (z.ints && (z.type != v.type || (z.count != 1 && z.count != out_c))) {
		ox_node_fail(x, n,
			     "weight zero point: %zu %s values (1 or %zu of the weights' "
			     "type %s expected)",
			     z.count, ox_type_name(z.type), out_c, ox_type_name(v.type));
		goto out;
	}
	if (s.count > 1 && src->axis_given && axis != (int64_t)src->chan_axis &&
	    axis != (int64_t)src->chan_axis - (int64_t)src->rank) {
		ox_node_fail(x, n,
			     "attribute 'axis' = %lld: per-channel scales must be along "
			     "axis %zu (the output channels)",
			     (long long)src->axis, src->chan_axis + (size_t)batched);
		goto out;
	}
	for (size_t j = 0; j < out_c; j++) {
		float sc = s.floats[per(s.count, j)];
		if (!isfinite(sc) || sc <= 0.0f) {
			ox_node_fail(x, n, "weight scale[%zu] = %g (must be finite and > 0)", j,
				     (double)sc);
			goto out;
		}
	}
	rc = -ENOMEM;
	w->out_c = out_c;
	w->count = v.count;
	w->rank = v.rank;
	memcpy(w->dims, v.dims, sizeof(w->dims));
	/* zero points in int8 form; none at all when each is 0 (int8 0, uint8 128). Without the
	 * input, ONNX's default 0: for uint8 weights that is -128 in int8 form. */
	size_t nz = z.ints ? z.count : 1;
	bool any_zp = false;
	for (size_t j = 0; j < nz; j++)
		any_zp |= (z.ints ? z.ints[j] : 0) != (u8 ? 128 : 0);
	w->zp_count = any_zp ? nz : 0;
	w->w = malloc(v.count ? v.count : 1);
	w->scale = malloc(out_c * sizeof(float));
	w->zp = any_zp ? malloc(nz * sizeof(int32_t)) : NULL;
	if (!w->w || !w->scale || (any_zp && !w->zp)) {
		ox_fail(x, "out of memory");
		oq_weights_free(w);
		goto out;
	}
	for (size_t i = 0; i < v.count; i++)
		w->w[i] = (int8_t)(v.ints[i] - (u8 ? 128 : 0));
	for (size_t j = 0; j < out_c; j++)
		w->scale[j] = s.floats[per(s.count, j)];
	for (size_t j = 0; j < w->zp_count; j++)
		w->zp[j] = (int32_t)(z.ints ? z.ints[j] : 0) - (u8 ? 128 : 0);
	rc = 0;
out:
	ox_values_free(&v);
	ox_values_free(&s);
	ox_values_free(&z);
	return rc;
}

void oq_weights_free(struct oq_weights *w)
{
	free(w->w);
	free(w->scale);
	free(w->zp);
	w->w = NULL;
	w->scale = NULL;
	w->zp = NULL;
}

int oq_bias(const struct ox *x, const Onnx__NodeProto *n, size_t i, size_t out_c, int32_t **bias)
{
	struct ox_values b;
	*bias = NULL;
	int rc = ox_const_input(x, n, i, "bias", &b);
	if (rc)
		return rc;
	if (b.type != ONNX__TENSOR_PROTO__DATA_TYPE__INT32 || b.count != out_c) {
		rc = ox_node_fail(x, n, "bias: %zu %s values (%zu int32 expected)", b.count,
				  ox_type_name(b.type), out_c);
	} else if (!(*bias = malloc(out_c * sizeof(int32_t)))) {
		rc = ox_fail(x, "out of memory");
		rc = -ENOMEM;
	} else {
		for (size_t j = 0; j < out_c; j++)
			(*bias)[j] = (int32_t)b.ints[j];
	}
	ox_values_free(&b);
	return rc;
}
