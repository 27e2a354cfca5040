/* Conv and MaxPool window attributes (onnx_window.h). */
#include <errno.h>
#include <string.h>

#include "onnx_window.h"

/* Pads of one axis for auto_pad SAME_UPPER / SAME_LOWER (ONNX: output ceil(in / stride)). */
static void same_pads(int64_t in, int64_t k, int64_t s, bool upper, int64_t *lo, int64_t *hi)
{
	int64_t out = (in + s - 1) / s;
	int64_t total = (out - 1) * s + k - in;
	if (total < 0)
		total = 0;
	*lo = upper ? total / 2 : total - total / 2;
	*hi = total - *lo;
}

int ow_window(const struct ox *x, const Onnx__NodeProto *n, uint32_t in_h, uint32_t in_w,
	      int64_t kh, int64_t kw, bool pool, struct ow_window *win)
{
	int64_t v[8];
	size_t nv;
	int rc;
	memset(win, 0, sizeof(*win));
	int64_t k[2] = {kh, kw};
	if ((rc = ox_attr_ints(x, n, "kernel_shape", v, 8, &nv)))
		return rc;
	if (nv && (nv != 2 || (!pool && (v[0] != kh || v[1] != kw))))
		return ox_node_fail(x, n,
				    "attribute 'kernel_shape': %zu values that do not match "
				    "the 2-D weights (%lld x %lld)",
				    nv, (long long)kh, (long long)kw);
	if (pool) {
		if (nv != 2)
			return ox_node_fail(x, n, "attribute 'kernel_shape': missing or not 2-D");
		k[0] = v[0];
		k[1] = v[1];
	}
	int64_t d[2] = {1, 1};
	if ((rc = ox_attr_ints(x, n, "dilations", v, 8, &nv)))
		return rc;
	if (nv && nv != 2)
		return ox_node_fail(x, n, "attribute 'dilations': %zu values (2 expected)", nv);
	for (size_t i = 0; i < nv; i++) {
		if (pool && v[i] != 1)
			return ox_node_fail(x, n,
					    "attribute 'dilations': %lld (only 1 is supported for "
					    "pooling)",
					    (long long)v[i]);
		if (v[i] < 1 || v[i] > 65535)
			return ox_node_fail(x, n, "attribute 'dilations': %lld (must be 1..65535)",
					    (long long)v[i]);
		d[i] = v[i];
	}
	/* the extent of the dilated kernel along each axis */
	int64_t e[2] = {(k[0] - 1) * d[0] + 1, (k[1] - 1) * d[1] + 1};
	int64_t s[2] = {1, 1};
	if ((rc = ox_attr_ints(x, n, "strides", v, 8, &nv)))
		return rc;
	if (nv && nv != 2)
		return ox_node_fail(x, n, "attribute 'strides': %zu values (2 expected)", nv);
	for (size_t i = 0; i < nv; i++) {
		if (v[i] < 1 || v[i] > 65535)
			return ox_node_fail(x, n, "attribute 'strides': %lld (must be 1..65535)",
					    (long long)v[i]);
		s[i] = v[i];
	}
	int64_t p[4] = {0, 0, 0, 0}; /* top, left, bottom, right */
	char ap[32];
	if ((rc = ox_attr_string(x, n, "auto_pad", "NOTSET", ap, sizeof(ap))))
		return rc;
	if ((rc = ox_attr_ints(x, n, "pads", v, 8, &nv)))
		return rc;
	if (nv && nv != 4)
		return ox_node_fail(x, n, "attribute 'pads': %zu values (4 expected)", nv);
	if (!strcmp(ap, "NOTSET")) {
		for (size_t i = 0; i < nv; i++) {
			if (v[i] < 0 || v[i] > 65535)
				return ox_node_fail(x, n,
						    "attribute 'pads': %lld (must be 0..65535)",
						    (long long)v[i]);
			p[i] = v[i];
		}
	} else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
		bool up = ap[5] == 'U';
		same_pads(in_h, e[0], s[0], up, &p[0], &p[2]);
		same_pads(in_w, e[1], s[1], up, &p[1], &p[3]);
	} else if (strcmp(ap, "VALID")) {
		return ox_node_fail(x, n, "attribute 'auto_pad': '%s' is not supported", ap);
	}
	for (int a = 0; a < 2; a++) {
		int64_t in = a ? in_w : in_h;
		if (k[a] < 1 || k[a] > 65535)
			return ox_node_fail(x, n, "kernel size %lld (must be 1..65535)",
					    (long long)k[a]);
		if (p[a] >= e[a] || p[a + 2] >= e[a])
			return ox_node_fail(
			    x, n,
			    "attribute 'pads': %lld, %lld along %s is not below the "
			    "%skernel size %lld (the model format's limit)",
			    (long long)p[a], (long long)p[a + 2], a ? "W" : "H",
			    d[a] > 1 ? "dilated " : "", (long long)e[a]);
		if (in + p[a] + p[a + 2] < e[a])
			return ox_node_fail(x, n, "kernel %lld does not fit the %s %lld",
					    (long long)e[a], a ? "width" : "height",
					    (long long)(in + p[a] + p[a + 2]));
	}
	int64_t ceil_mode = 0;
	if (pool) {
		int64_t order;
		if ((rc = ox_attr_int(x, n, "ceil_mode", 0, &ceil_mode)) ||
		    (rc = ox_attr_int(x, n, "storage_order", 0, &order)))
			return rc;
		if (order)
			return ox_node_fail(x, n,
					    "attribute 'storage_order': %lld (only 0 is "
					    "supported)",
					    (long long)order);
		if (ceil_mode != 0 && ceil_mode != 1)
			return ox_node_fail(x, n, "attribute 'ceil_mode': %lld (0 or 1 expected)",
					    (long long)ceil_mode);
	}
	win->kernel_h = (uint32_t)k[0];
	win->kernel_w = (uint32_t)k[1];
	win->stride_h = (uint32_t)s[0];
	win->stride_w = (uint32_t)s[1];
	win->pad_top = (uint32_t)p[0];
	win->pad_left = (uint32_t)p[1];
	win->pad_bottom = (uint32_t)p[2];
	win->pad_right = (uint32_t)p[3];
	win->dilation_h = d[0] > 1 ? (uint32_t)d[0] : 0;
	win->dilation_w = d[1] > 1 ? (uint32_t)d[1] : 0;
	win->ceil_mode = (uint32_t)ceil_mode;
	uint32_t out[2];
	for (int a = 0; a < 2; a++) {
		int64_t in = a ? in_w : in_h, span = in + p[a] + p[a + 2] - e[a];
		int64_t o = (ceil_mode ? (span + s[a] - 1) / s[a] : span / s[a]) + 1;
		if (ceil_mode && (o - 1) * s[a] >= in + p[a])
			o--; /* ONNX: no window starts in the end padding */
		out[a] = (uint32_t)o;
	}
	win->out_h = out[0];
	win->out_w = out[1];
	return 0;
}
