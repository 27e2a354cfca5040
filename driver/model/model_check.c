/* Validation of an in-memory model (tpu_model_validate) and the layer shape arithmetic shared by
 * the loader and the runner. Every check names the layer, its type and the field, so that a bad
 * file is diagnosed from the message alone. The checks and limits are listed in
 * docs/model-format.md. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model_priv.h"
#include "tpu/numerics.h"

static const char *const act_names[] = {"NONE", "RELU", "RELU6", "SIGMOID", "TANH"};
#define N_ACTS (sizeof(act_names) / sizeof(act_names[0]))
static const char *const round_names[] = {"DOUBLE", "SINGLE", "FLOAT"};

const char *tpu_layer_type_name(uint32_t type)
{
	switch (type) {
	case TPU_LAYER_CONV2D:
		return "CONV2D";
	case TPU_LAYER_MAXPOOL2D:
		return "MAXPOOL2D";
	case TPU_LAYER_DENSE:
		return "DENSE";
	case TPU_LAYER_AVGPOOL2D:
		return "AVGPOOL2D";
	}
	return NULL;
}

int tpu_model_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

int tpu_model_layer_fail(char *err, size_t errlen, uint32_t i, uint32_t type, const char *fmt, ...)
{
	if (!err || !errlen)
		return -EINVAL;
	const char *name = tpu_layer_type_name(type);
	int n = name ? snprintf(err, errlen, "layer %u (%s): ", i, name)
		     : snprintf(err, errlen, "layer %u (type %u): ", i, type);
	if (n >= 0 && (size_t)n < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool good_scale(float s)
{
	return isfinite(s) && s > 0.0f;
}

static bool is_i8(int32_t v)
{
	return v >= -128 && v <= 127;
}

/* A field that must lie in [lo, hi]. */
static int check_range(const struct tpu_layer *l, uint32_t i, const char *field, uint32_t v,
		       uint32_t lo, uint32_t hi, char *err, size_t errlen)
{
	if (v >= lo && v <= hi)
		return 0;
	if (lo == hi)
		return tpu_model_layer_fail(err, errlen, i, l->type, "%s: %u (must be %u)", field,
					    v, lo);
	return tpu_model_layer_fail(err, errlen, i, l->type, "%s: %u (must be %u..%u)", field, v,
				    lo, hi);
}

/* The window/kernel fields of CONV2D and the pools: output size along one axis. */
static int window_axis(const struct tpu_layer *l, uint32_t i, const char *axis, uint32_t in,
		       uint32_t kernel, uint32_t stride, uint32_t dilation, uint32_t pad_lo,
		       uint32_t pad_hi, bool ceil_mode, uint32_t *out, char *err, size_t errlen)
{
	char kname[16], sname[16], dname[16], ename[64];
	snprintf(kname, sizeof(kname), "kernel_%s", axis);
	snprintf(sname, sizeof(sname), "stride_%s", axis);
	snprintf(dname, sizeof(dname), "dilation_%s", axis);
	int rc = check_range(l, i, kname, kernel, 1, TPU_MODEL_MAX_DIM, err, errlen);
	if (!rc)
		rc = check_range(l, i, sname, stride, 1, TPU_MODEL_MAX_DIM, err, errlen);
	if (!rc)
		rc = check_range(l, i, dname, dilation, 0, TPU_MODEL_MAX_DIM, err, errlen);
	if (rc)
		return rc;
	/* the extent of the (dilated) kernel */
	uint64_t ext = (uint64_t)(kernel - 1) * (dilation ? dilation : 1) + 1;
	if (dilation > 1)
		snprintf(ename, sizeof(ename), "the dilated %s %llu", kname,
			 (unsigned long long)ext);
	else
		snprintf(ename, sizeof(ename), "%s %u", kname, kernel);
	const char *lo_name = axis[0] == 'h' ? "pad_top" : "pad_left";
	const char *hi_name = axis[0] == 'h' ? "pad_bottom" : "pad_right";
	if (pad_lo >= ext)
		return tpu_model_layer_fail(err, errlen, i, l->type, "%s: %u (must be below %s)",
					    lo_name, pad_lo, ename);
	if (pad_hi >= ext)
		return tpu_model_layer_fail(err, errlen, i, l->type, "%s: %u (must be below %s)",
					    hi_name, pad_hi, ename);
	uint64_t padded = (uint64_t)in + pad_lo + pad_hi;
	if (padded < ext)
		return tpu_model_layer_fail(
		    err, errlen, i, l->type, "%s: %u%s does not fit the %sinput %s %llu", kname,
		    kernel, dilation > 1 ? " (dilated)" : "", pad_lo || pad_hi ? "padded " : "",
		    axis[0] == 'h' ? "height" : "width", (unsigned long long)padded);
	uint64_t span = padded - ext;
	*out = (uint32_t)((ceil_mode ? (span + stride - 1) / stride : span / stride) + 1);
	/* ONNX's ceil_mode rule: no window starts in the end padding */
	if (ceil_mode && (uint64_t)(*out - 1) * stride >= (uint64_t)in + pad_lo)
		(*out)--;
	return 0;
}

static int check_zero(const struct tpu_layer *l, uint32_t i, const char *const *names,
		      const uint32_t *vals, size_t n, char *err, size_t errlen)
{
	for (size_t f = 0; f < n; f++)
		if (vals[f])
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "%s: %u (must be 0 for %s)", names[f], vals[f],
						    tpu_layer_type_name(l->type));
	return 0;
}

static int geom_conv(const struct tpu_layer *l, uint32_t i, struct tpu_layer_geom *g, char *err,
		     size_t errlen)
{
	static const char *const names[] = {"ceil_mode", "avg_mode", "avg_flags"};
	const uint32_t vals[] = {l->ceil_mode, l->avg_mode, l->avg_flags};
	int rc = check_zero(l, i, names, vals, 3, err, errlen);
	if (!rc)
		rc = window_axis(l, i, "h", g->in_h, l->kernel_h, l->stride_h, l->dilation_h,
				 l->pad_top, l->pad_bottom, false, &g->out_h, err, errlen);
	if (!rc)
		rc = window_axis(l, i, "w", g->in_w, l->kernel_w, l->stride_w, l->dilation_w,
				 l->pad_left, l->pad_right, false, &g->out_w, err, errlen);
	if (!rc)
		rc = check_range(l, i, "out_c", l->out_c, 1, TPU_MODEL_MAX_DIM, err, errlen);
	if (!rc)
		rc = check_range(l, i, "groups", l->groups, 0, TPU_MODEL_MAX_DIM, err, errlen);
	if (rc)
		return rc;
	uint32_t groups = l->groups ? l->groups : 1;
	if (g->in_c % groups || l->out_c % groups)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "groups: %u does not divide in_c %u and out_c %u",
					    groups, g->in_c, l->out_c);
	g->out_c = l->out_c;
	g->k = (uint64_t)l->kernel_h * l->kernel_w * (g->in_c / groups);
	if (g->k > TPU_K_NO_OVERFLOW)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "kernel_h x kernel_w x in_c / groups = %u x %u x %u = "
					    "%llu taps exceeds %u (int32 accumulator limit)",
					    l->kernel_h, l->kernel_w, g->in_c / groups,
					    (unsigned long long)g->k, TPU_K_NO_OVERFLOW);
	return 0;
}

static int geom_pool(const struct tpu_layer *l, uint32_t i, struct tpu_layer_geom *g, char *err,
		     size_t errlen)
{
	static const char *const names[] = {"out_c", "dilation_h", "dilation_w", "groups"};
	const uint32_t vals[] = {l->out_c, l->dilation_h, l->dilation_w, l->groups};
	int rc = check_zero(l, i, names, vals, 4, err, errlen);
	if (!rc)
		rc = check_range(l, i, "ceil_mode", l->ceil_mode, 0, 1, err, errlen);
	if (!rc && l->type == TPU_LAYER_MAXPOOL2D) {
		static const char *const mnames[] = {"act", "avg_mode", "avg_flags"};
		const uint32_t mvals[] = {l->act, l->avg_mode, l->avg_flags};
		rc = check_zero(l, i, mnames, mvals, 3, err, errlen);
	} else if (!rc) {
		bool ort = l->avg_mode == TPU_AVGPOOL_ONNXRT;
		unsigned known = ort ? TPU_AVGPOOL_COUNT_PAD | TPU_AVGPOOL_UINT8 : TPU_AVGPOOL_UINT8;
		if (l->avg_mode > TPU_AVGPOOL_ONNXRT)
			rc = tpu_model_layer_fail(err, errlen, i, l->type,
						  "avg_mode: %u (0 TFLITE, 1 ONNXRT)", l->avg_mode);
		else if (l->avg_flags & ~known)
			rc = tpu_model_layer_fail(err, errlen, i, l->type,
						  "avg_flags: 0x%x (avg_mode %s knows 0x%x)",
						  l->avg_flags, ort ? "ONNXRT" : "TFLITE", known);
		else if (l->act > (ort ? TPU_ACT_NONE : TPU_ACT_RELU6))
			rc = tpu_model_layer_fail(err, errlen, i, l->type,
						  "act: %u (avg_mode %s takes %s)", l->act,
						  ort ? "ONNXRT" : "TFLITE",
						  ort ? "0 NONE" : "0 NONE, 1 RELU, 2 RELU6");
	}
	if (!rc)
		rc = window_axis(l, i, "h", g->in_h, l->kernel_h, l->stride_h, 0, l->pad_top,
				 l->pad_bottom, l->ceil_mode, &g->out_h, err, errlen);
	if (!rc)
		rc = window_axis(l, i, "w", g->in_w, l->kernel_w, l->stride_w, 0, l->pad_left,
				 l->pad_right, l->ceil_mode, &g->out_w, err, errlen);
	g->out_c = g->in_c;
	return rc;
}

static int geom_dense(const struct tpu_layer *l, uint32_t i, struct tpu_layer_geom *g, char *err,
		      size_t errlen)
{
	static const char *const names[] = {
	    "kernel_h",	  "kernel_w",	"stride_h", "stride_w",	 "pad_top",  "pad_bottom", "pad_left",
	    "pad_right", "dilation_h", "dilation_w", "groups", "ceil_mode", "avg_mode", "avg_flags"};
	const uint32_t vals[] = {l->kernel_h,  l->kernel_w,   l->stride_h, l->stride_w,
				 l->pad_top,   l->pad_bottom, l->pad_left, l->pad_right,
				 l->dilation_h, l->dilation_w, l->groups,   l->ceil_mode,
				 l->avg_mode,  l->avg_flags};
	int rc = check_zero(l, i, names, vals, 14, err, errlen);
	if (!rc)
		rc = check_range(l, i, "out_c", l->out_c, 1, TPU_MODEL_MAX_DIM, err, errlen);
	if (rc)
		return rc;
	g->out_h = g->out_w = 1;
	g->out_c = l->out_c;
	g->k = (uint64_t)g->in_h * g->in_w * g->in_c;
	if (g->k > TPU_K_NO_OVERFLOW)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "input of %llu values (flattened %u x %u x %u) exceeds "
					    "%u (int32 accumulator limit)",
					    (unsigned long long)g->k, g->in_h, g->in_w, g->in_c,
					    TPU_K_NO_OVERFLOW);
	return 0;
}

int tpu_model_layer_geom(const struct tpu_layer *l, uint32_t i, uint32_t in_h, uint32_t in_w,
			 uint32_t in_c, struct tpu_layer_geom *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	g->in_h = in_h;
	g->in_w = in_w;
	g->in_c = in_c;
	int rc;
	switch (l->type) {
	case TPU_LAYER_CONV2D:
		rc = geom_conv(l, i, g, err, errlen);
		break;
	case TPU_LAYER_MAXPOOL2D:
	case TPU_LAYER_AVGPOOL2D:
		rc = geom_pool(l, i, g, err, errlen);
		break;
	case TPU_LAYER_DENSE:
		rc = geom_dense(l, i, g, err, errlen);
		break;
	default:
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "type: unknown layer type %u (1 CONV2D, 2 MAXPOOL2D, "
					    "3 DENSE, 4 AVGPOOL2D)",
					    l->type);
	}
	if (rc)
		return rc;
	if (!tpu_layer_is_pool(l->type) && l->act >= N_ACTS)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "act: unknown activation %u (0 NONE, 1 RELU, 2 RELU6, "
					    "3 SIGMOID, 4 TANH)",
					    l->act);
	if (tpu_layer_is_pool(l->type) && l->round)
		return tpu_model_layer_fail(err, errlen, i, l->type, "round: %u (must be 0 for %s)",
					    l->round, tpu_layer_type_name(l->type));
	if (l->round > TPU_ROUND_MAX)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "round: unknown rounding mode %u (0 DOUBLE, 1 SINGLE, "
					    "2 FLOAT)",
					    l->round);
	uint64_t out_elems = (uint64_t)g->out_h * g->out_w * g->out_c;
	if (out_elems > TPU_MODEL_MAX_ELEMS)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "output %u x %u x %u = %llu values exceeds %u",
					    g->out_h, g->out_w, g->out_c,
					    (unsigned long long)out_elems, TPU_MODEL_MAX_ELEMS);
	if (!tpu_layer_is_pool(l->type)) {
		g->n_weights = g->k * g->out_c;
		if (g->n_weights > TPU_MODEL_MAX_WEIGHTS)
			return tpu_model_layer_fail(
			    err, errlen, i, l->type, "weights: %llu x %u = %llu exceeds %u",
			    (unsigned long long)g->k, g->out_c, (unsigned long long)g->n_weights,
			    TPU_MODEL_MAX_WEIGHTS);
		g->n_chan = g->out_c;
		g->n_lut = l->act == TPU_ACT_SIGMOID || l->act == TPU_ACT_TANH ? 256 : 0;
	}
	return 0;
}

int tpu_model_check_header(const struct tpu_model *m, char *err, size_t errlen)
{
	size_t len = strnlen(m->name, TPU_MODEL_NAME_MAX);
	if (len == TPU_MODEL_NAME_MAX)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: name: not NUL-terminated within %d bytes",
				      TPU_MODEL_NAME_MAX);
	if (len == 0)
		return tpu_model_fail(err, errlen, -EINVAL, "model: name: empty");
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)m->name[i];
		if (ch < 0x20 || ch > 0x7e)
			return tpu_model_fail(err, errlen, -EINVAL,
					      "model: name: byte %zu is 0x%02x (printable ASCII "
					      "only)",
					      i, ch);
	}
	const uint32_t dims[3] = {m->in_h, m->in_w, m->in_c};
	static const char *const dim_names[3] = {"in_h", "in_w", "in_c"};
	for (int i = 0; i < 3; i++)
		if (dims[i] < 1 || dims[i] > TPU_MODEL_MAX_DIM)
			return tpu_model_fail(err, errlen, -EINVAL, "model: %s: %u (must be 1..%u)",
					      dim_names[i], dims[i], TPU_MODEL_MAX_DIM);
	uint64_t elems = (uint64_t)m->in_h * m->in_w * m->in_c;
	if (elems > TPU_MODEL_MAX_ELEMS)
		return tpu_model_fail(
		    err, errlen, -EINVAL, "model: input %u x %u x %u = %llu values exceeds %u",
		    m->in_h, m->in_w, m->in_c, (unsigned long long)elems, TPU_MODEL_MAX_ELEMS);
	if (!good_scale(m->in.scale))
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: in.scale: %g (must be finite and > 0)",
				      (double)m->in.scale);
	if (!is_i8(m->in.zero_point))
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: in.zero_point: %d (must be -128..127)",
				      (int)m->in.zero_point);
	if (!good_scale(m->in_range))
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: in_range: %g (must be finite and > 0)",
				      (double)m->in_range);
	if (!(m->float_accuracy >= 0.0f && m->float_accuracy <= 1.0f))
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: float_accuracy: %g (must be 0..1)",
				      (double)m->float_accuracy);
	if (!(m->int8_accuracy >= 0.0f && m->int8_accuracy <= 1.0f))
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: int8_accuracy: %g (must be 0..1)",
				      (double)m->int8_accuracy);
	if (m->n_layers < 1 || m->n_layers > TPU_MODEL_MAX_LAYERS)
		return tpu_model_fail(err, errlen, -EINVAL, "model: n_layers: %u (must be 1..%d)",
				      m->n_layers, TPU_MODEL_MAX_LAYERS);
	if (m->in_type > TPU_IO_UINT8)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: in_type: %u (0 INT8, 1 UINT8)", m->in_type);
	if (m->out_type > TPU_IO_INT32)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: out_type: %u (0 INT8, 1 UINT8, 2 INT32)", m->out_type);
	if (m->in_round > TPU_INPUT_ROUND_EVEN)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: in_round: %u (0 half away from zero, 1 half to even)",
				      m->in_round);
	if (m->io_layout > (TPU_LAYOUT_IN_NCHW | TPU_LAYOUT_OUT_NCHW))
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: io_layout: %u (flags 1 input NCHW, 2 output NCHW)",
				      m->io_layout);
	if (m->num_classes < 1 || m->num_classes > TPU_MODEL_MAX_ELEMS)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: num_classes: %u (must be 1..%u)", m->num_classes,
				      TPU_MODEL_MAX_ELEMS);
	return 0;
}

/* Per-channel values of a CONV2D/DENSE layer whose input is quantized with q_in; raw: the
 * model's int32 output layer (multiplier and shift 0). */
static int check_channels(const struct tpu_layer *l, uint32_t i, const struct tpu_quant *q_in,
			  uint32_t n, bool raw, char *err, size_t errlen)
{
	for (uint32_t j = 0; j < n; j++) {
		if (!good_scale(l->w_scale[j]))
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "w_scale[%u] = %g (must be finite and > 0)", j,
						    (double)l->w_scale[j]);
		if (raw && (l->multiplier[j] || l->shift[j]))
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "%s[%u] = %d (must be 0: the int32 output is "
						    "not requantized)",
						    l->multiplier[j] ? "multiplier" : "shift", j,
						    (int)(l->multiplier[j] ? l->multiplier[j]
									   : l->shift[j]));
		if (raw)
			continue;
		if (l->multiplier[j] < 0)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "multiplier[%u] = %d (must be 0..%d)", j,
						    (int)l->multiplier[j], INT32_MAX);
		if (l->shift[j] < TPU_SHIFT_MIN || l->shift[j] > TPU_SHIFT_MAX)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "shift[%u] = %d (must be %d..%d)", j,
						    (int)l->shift[j], TPU_SHIFT_MIN, TPU_SHIFT_MAX);
		int32_t mult;
		int shift;
		double r;
		int bad;
		if (l->round == TPU_ROUND_FLOAT) {
			/* ONNX Runtime's output scale: x_scale * w_scale / y_scale in fp32, in that
			 * order (onnxruntime/core/providers/cpu/quantization/qlinearconv.cc,
			 * quantize_linear_matmul.cc); each assignment rounds to float */
			float p = q_in->scale * l->w_scale[j];
			float rf = p / l->out.scale;
			r = rf;
			bad = tpu_float_multiplier(rf, &mult, &shift);
		} else {
			/* the same expression the quantizer uses, so the result is bit-identical */
			r = (double)q_in->scale * (double)l->w_scale[j] / (double)l->out.scale;
			bad = tpu_quantize_multiplier(r, &mult, &shift);
		}
		if (bad)
			return tpu_model_layer_fail(
			    err, errlen, i, l->type,
			    "w_scale[%u]: in.scale x w_scale / out.scale = %g "
			    "is not a valid %s multiplier (a shift above %d%s)",
			    j, r, round_names[l->round], TPU_SHIFT_MAX,
			    l->round == TPU_ROUND_FLOAT ? ", or below the normal floats" : "");
		if (l->multiplier[j] != mult)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "multiplier[%u] = %d does not match scales "
						    "(expected %d)",
						    j, (int)l->multiplier[j], (int)mult);
		if (l->shift[j] != shift)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "shift[%u] = %d does not match scales "
						    "(expected %d)",
						    j, (int)l->shift[j], shift);
	}
	return 0;
}

/* The weight zero points of a CONV2D/DENSE layer with n output channels: none, one, or n. */
static int check_b_zero_points(const struct tpu_layer *l, uint32_t i, uint32_t n, char *err,
			       size_t errlen)
{
	if (l->b_zp_count != 0 && l->b_zp_count != 1 && l->b_zp_count != n)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "b_zp_count: %u (must be 0, 1 or out_c = %u)",
					    l->b_zp_count, n);
	if (!l->b_zp_count != !l->b_zero_point)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "b_zero_point: %s with b_zp_count %u",
					    l->b_zero_point ? "set" : "NULL", l->b_zp_count);
	for (uint32_t j = 0; j < l->b_zp_count; j++)
		if (!is_i8(l->b_zero_point[j]))
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "b_zero_point[%u] = %d (must be -128..127)", j,
						    (int)l->b_zero_point[j]);
	return 0;
}

static int check_lut(const struct tpu_layer *l, uint32_t i, bool want, char *err, size_t errlen)
{
	if (want)
		return 0; /* any table is a valid function of the int8 pre-activation */
	for (int v = 0; v < 256; v++)
		if (l->lut[v])
			return tpu_model_layer_fail(
			    err, errlen, i, l->type, "lut[%d] = %d: act %s has no LUT (must be 0)",
			    v, l->lut[v],
			    tpu_layer_is_pool(l->type) ? "(none)" : act_names[l->act]);
	return 0;
}

/* The model's int32 output layer (out_type INT32): a CONV2D or DENSE without activation,
 * rounding or output quantization. */
static int check_raw_layer(const struct tpu_layer *l, uint32_t i, char *err, size_t errlen)
{
	if (tpu_layer_is_pool(l->type))
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "out_type INT32: the last layer must be a CONV2D or "
					    "DENSE");
	if (l->act != TPU_ACT_NONE)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "act %s: an int32 output layer has none (must be NONE)",
					    act_names[l->act]);
	if (l->round)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "round %u: an int32 output layer has none (must be 0)",
					    l->round);
	if (l->out.scale != 1.0f || l->out.zero_point)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "out = (%g, %d): an int32 output layer has none (must "
					    "be (1, 0))",
					    (double)l->out.scale, (int)l->out.zero_point);
	return 0;
}

/* Values of layer i (its shape already checked into g) with its input quantized with q_in; raw:
 * the model's int32 output layer. */
static int check_values(const struct tpu_layer *l, uint32_t i, const struct tpu_layer_geom *g,
			const struct tpu_quant *q_in, bool raw, char *err, size_t errlen)
{
	if (raw) {
		int rc = check_raw_layer(l, i, err, errlen);
		if (rc)
			return rc;
	}
	if (!good_scale(l->out.scale))
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "out.scale = %g (must be finite and > 0)",
					    (double)l->out.scale);
	if (!is_i8(l->out.zero_point))
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "out.zero_point = %d (must be -128..127)",
					    (int)l->out.zero_point);
	if (tpu_layer_is_pool(l->type)) {
		const char *bad = l->weights	  ? "weights"
				  : l->bias	  ? "bias"
				  : l->w_scale	  ? "w_scale"
				  : l->multiplier ? "multiplier"
				  : l->shift	  ? "shift"
						  : NULL;
		if (!bad && l->b_zero_point)
			bad = "b_zero_point";
		if (bad)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "%s: must be NULL (a pool has no parameters)",
						    bad);
		if (l->b_zp_count)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "b_zp_count: %u (must be 0 for a pool)",
						    l->b_zp_count);
		bool same_q = l->type == TPU_LAYER_MAXPOOL2D || l->avg_mode == TPU_AVGPOOL_TFLITE;
		if (same_q &&
		    (l->out.scale != q_in->scale || l->out.zero_point != q_in->zero_point))
			return tpu_model_layer_fail(
			    err, errlen, i, l->type,
			    "out = (%g, %d) differs from its input's quantization (%g, %d)",
			    (double)l->out.scale, (int)l->out.zero_point, (double)q_in->scale,
			    (int)q_in->zero_point);
		int32_t qmin, qmax;
		if (l->type == TPU_LAYER_AVGPOOL2D &&
		    (tpu_act_clamp((enum tpu_activation)l->act, l->out.scale, l->out.zero_point,
				   &qmin, &qmax) ||
		     qmin > qmax))
			return tpu_model_layer_fail(
			    err, errlen, i, l->type, "act %s: no valid clamp for out = (%g, %d)",
			    act_names[l->act], (double)l->out.scale, (int)l->out.zero_point);
		return check_lut(l, i, false, err, errlen);
	}
	const char *missing = !l->weights      ? "weights"
			      : !l->bias       ? "bias"
			      : !l->w_scale    ? "w_scale"
			      : !l->multiplier ? "multiplier"
			      : !l->shift      ? "shift"
					       : NULL;
	if (missing)
		return tpu_model_layer_fail(err, errlen, i, l->type, "%s: NULL", missing);
	int rc = check_channels(l, i, q_in, g->n_chan, raw, err, errlen);
	if (!rc)
		rc = check_b_zero_points(l, i, g->n_chan, err, errlen);
	if (rc)
		return rc;
	int32_t qmin, qmax;
	if (tpu_act_clamp((enum tpu_activation)l->act, l->out.scale, l->out.zero_point, &qmin,
			  &qmax) ||
	    qmin > qmax)
		return tpu_model_layer_fail(
		    err, errlen, i, l->type, "act %s: no valid clamp for out = (%g, %d)",
		    act_names[l->act], (double)l->out.scale, (int)l->out.zero_point);
	return check_lut(l, i, g->n_lut != 0, err, errlen);
}

int tpu_model_validate(const struct tpu_model *m, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!m)
		return tpu_model_fail(err, errlen, -EINVAL, "model: NULL");
	int rc = tpu_model_check_header(m, err, errlen);
	if (rc)
		return rc;
	uint32_t h = m->in_h, w = m->in_w, c = m->in_c;
	struct tpu_quant q = m->in;
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct tpu_layer *l = &m->layers[i];
		struct tpu_layer_geom g;
		rc = tpu_model_layer_geom(l, i, h, w, c, &g, err, errlen);
		if (!rc)
			rc = check_values(l, i, &g, &q,
					  m->out_type == TPU_IO_INT32 && i + 1 == m->n_layers, err,
					  errlen);
		if (rc)
			return rc;
		h = g.out_h;
		w = g.out_w;
		c = g.out_c;
		q = l->out;
	}
	uint64_t out = (uint64_t)h * w * c;
	if (out != m->num_classes) {
		const struct tpu_layer *last = &m->layers[m->n_layers - 1];
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: num_classes: %u, but the last layer %u (%s) outputs "
				      "%u x %u x %u = %llu values",
				      m->num_classes, m->n_layers - 1,
				      tpu_layer_type_name(last->type), h, w, c,
				      (unsigned long long)out);
	}
	return 0;
}

void tpu_model_layer_out_shape(const struct tpu_model *m, uint32_t i, uint32_t *h, uint32_t *w,
			       uint32_t *c)
{
	uint32_t oh = 0, ow = 0, oc = 0;
	if (m && i < m->n_layers && m->n_layers <= TPU_MODEL_MAX_LAYERS) {
		oh = m->in_h;
		ow = m->in_w;
		oc = m->in_c;
		for (uint32_t k = 0; k <= i; k++) {
			struct tpu_layer_geom g;
			if (tpu_model_layer_geom(&m->layers[k], k, oh, ow, oc, &g, NULL, 0)) {
				oh = ow = oc = 0;
				break;
			}
			oh = g.out_h;
			ow = g.out_w;
			oc = g.out_c;
		}
	}
	if (h)
		*h = oh;
	if (w)
		*w = ow;
	if (c)
		*c = oc;
}
