/* The ONNX backend node tests (Debian's libonnx-testdata, ONNX 1.12; docs/import.md) that the
 * importer can express: each model.onnx with its test_data_set_*: inputs 1.. (weights, scales,
 * zero points, given as graph inputs in the node tests) become initializers of the same names,
 * as a quantizer writes them; the model is imported, input_0.pb run on golden, sim (N = 16) and
 * sim:n=8, and every element of output_0.pb compared bit for bit (the counts are printed). The
 * node tests the importer cannot express must be refused, each with the reason docs/import.md
 * gives. The TensorProto files are read with the protobuf-c code generated for the importer. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "onnx.pb-c.h"
#include "sim_fixture.h"
#include "tpu/import.h"
#include "tpu/model.h"

#define NODE_DIR "/usr/share/libonnx-testdata/data/node"
#define MAX_SETS 8
#define MAX_INPUTS 9

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	ck_assert_msg(!ferror(f), "%s: read error", path);
	fclose(f);
	*len = n;
	return buf;
}

static Onnx__TensorProto *read_tensor(const char *dir, const char *kind, int i)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s_%d.pb", dir, kind, i);
	size_t len;
	uint8_t *buf = read_all(path, &len);
	if (!buf)
		return NULL;
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, buf);
	ck_assert_msg(t, "%s: not a TensorProto", path);
	free(buf);
	return t;
}

/* An int8 or uint8 tensor's values in the device's int8 form (uint8 v: v - 128); *count the
 * product of its dims. */
static int8_t *tensor_i8(const Onnx__TensorProto *t, const char *what, size_t *count)
{
	bool u8 = t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
	ck_assert_msg(u8 || t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT8,
		      "%s: element type %d (int8 or uint8 expected)", what, (int)t->data_type);
	size_t n = 1;
	for (size_t d = 0; d < t->n_dims; d++)
		n *= (size_t)t->dims[d];
	size_t have = t->has_raw_data ? t->raw_data.len : t->n_int32_data;
	ck_assert_msg(have == n, "%s: %zu values for %zu elements", what, have, n);
	int8_t *v = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++) {
		int32_t x = t->has_raw_data
				? (u8 ? t->raw_data.data[i] : (int8_t)t->raw_data.data[i])
				: t->int32_data[i];
		v[i] = (int8_t)(u8 ? x - 128 : x);
	}
	*count = n;
	return v;
}

/* An int32 tensor's values (the ConvInteger / MatMulInteger outputs). */
static int32_t *tensor_i32(const Onnx__TensorProto *t, const char *what, size_t *count)
{
	ck_assert_msg(t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT32,
		      "%s: element type %d (int32 expected)", what, (int)t->data_type);
	size_t n = 1;
	for (size_t d = 0; d < t->n_dims; d++)
		n *= (size_t)t->dims[d];
	size_t have = t->has_raw_data ? t->raw_data.len / 4 : t->n_int32_data;
	ck_assert_msg(have == n, "%s: %zu values for %zu elements", what, have, n);
	int32_t *v = malloc(n ? n * sizeof(int32_t) : 1);
	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = t->has_raw_data ? t->raw_data.data + 4 * i : NULL;
		/* raw data is little-endian */
		v[i] = r ? (int32_t)((uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 |
				     (uint32_t)r[3] << 24)
			 : t->int32_data[i];
	}
	*count = n;
	return v;
}

/* An NCHW tensor (rank 4) of elements of size es as NHWC; other ranks are the device's order
 * already. */
static void to_nhwc(void *data, size_t es, const Onnx__TensorProto *t)
{
	if (t->n_dims != 4)
		return;
	char *v = data;
	size_t N = (size_t)t->dims[0], C = (size_t)t->dims[1], H = (size_t)t->dims[2],
	       W = (size_t)t->dims[3], per = C * H * W;
	char *tmp = malloc(per ? per * es : 1);
	ck_assert_ptr_nonnull(tmp);
	for (size_t b = 0; b < N; b++) {
		for (size_t c = 0; c < C; c++)
			for (size_t y = 0; y < H; y++)
				for (size_t x = 0; x < W; x++)
					memcpy(tmp + ((y * W + x) * C + c) * es,
					       v + (b * per + (c * H + y) * W + x) * es, es);
		memcpy(v + b * per * es, tmp, per * es);
	}
	free(tmp);
}

/* A change to folded input i before the import (NULL: none). */
typedef void (*fold_edit)(Onnx__TensorProto *t, size_t i);

/* model.onnx of test with inputs 1.. of data set dir folded into initializers (edited by edit),
 * imported. */
static int import_folded(const char *test, const char *dir, fold_edit edit, struct tpu_model **m,
			 char *err, size_t errlen)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/model.onnx", NODE_DIR, test);
	size_t len;
	uint8_t *buf = read_all(path, &len);
	ck_assert_msg(buf, "%s: cannot read (is libonnx-testdata installed? scripts/setup)", path);
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, buf);
	ck_assert_msg(mp && mp->graph, "%s: not an ONNX model", path);
	free(buf);
	Onnx__GraphProto *g = mp->graph;
	Onnx__TensorProto *folded[MAX_INPUTS] = {0};
	Onnx__TensorProto **inits = calloc(g->n_initializer + MAX_INPUTS, sizeof(*inits));
	ck_assert_ptr_nonnull(inits);
	size_t n_init = g->n_initializer;
	if (n_init) /* (g->initializer is NULL when there are none) */
		memcpy(inits, g->initializer, n_init * sizeof(*inits));
	ck_assert_uint_le(g->n_input, MAX_INPUTS);
	for (size_t i = 1; i < g->n_input; i++) {
		folded[i] = read_tensor(dir, "input", (int)i);
		ck_assert_msg(folded[i], "%s: no input_%zu.pb for graph input '%s'", dir, i,
			      g->input[i]->name);
		free(folded[i]->name);
		folded[i]->name = strdup(g->input[i]->name);
		ck_assert_ptr_nonnull(folded[i]->name);
		if (edit)
			edit(folded[i], i);
		inits[n_init++] = folded[i];
	}
	Onnx__TensorProto **orig = g->initializer;
	size_t orig_n = g->n_initializer;
	g->initializer = inits;
	g->n_initializer = n_init;
	len = onnx__model_proto__get_packed_size(mp);
	buf = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(onnx__model_proto__pack(mp, buf), len);
	g->initializer = orig;
	g->n_initializer = orig_n;
	free(inits);
	for (size_t i = 0; i < MAX_INPUTS; i++)
		if (folded[i])
			onnx__tensor_proto__free_unpacked(folded[i], NULL);
	onnx__model_proto__free_unpacked(mp, NULL);
	int rc = tpu_import_onnx_mem(buf, len, test, m, err, errlen);
	free(buf);
	return rc;
}

/* Equal elements of test's data set dir on device uri; *total gets the element count. */
static size_t run_set(const char *test, const char *dir, const char *uri, size_t *total)
{
	struct tpu_model *m;
	char err[512];
	int rc = import_folded(test, dir, NULL, &m, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s: import: %s", test, err);
	Onnx__TensorProto *x = read_tensor(dir, "input", 0), *y = read_tensor(dir, "output", 0);
	ck_assert_msg(x && y, "%s: no input_0.pb or output_0.pb", dir);
	size_t nx, ny;
	int8_t *in = tensor_i8(x, "input_0", &nx);
	bool i32 = m->out_type == TPU_IO_INT32;
	void *want = i32 ? (void *)tensor_i32(y, "output_0", &ny) : tensor_i8(y, "output_0", &ny);
	size_t es = i32 ? sizeof(int32_t) : 1;
	to_nhwc(in, 1, x);
	to_nhwc(want, es, y);
	/* the model records which of its tensors ONNX gives NCHW (tpu run reorders them) */
	ck_assert_uint_eq(m->io_layout, (x->n_dims == 4 ? TPU_LAYOUT_IN_NCHW : 0u) |
					    (y->n_dims == 4 ? TPU_LAYOUT_OUT_NCHW : 0u));
	size_t per_in = (size_t)m->in_h * m->in_w * m->in_c;
	ck_assert_uint_gt(x->n_dims, 1);
	size_t batch = (size_t)x->dims[0];
	ck_assert_msg(batch * per_in == nx, "%s: input has %zu elements, the model takes %zu x %zu",
		      test, nx, batch, per_in);
	ck_assert_msg(batch * m->num_classes == ny,
		      "%s: output has %zu elements, the model gives %zu x %u", test, ny, batch,
		      m->num_classes);
	tpu_dev *dev;
	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	void *got = malloc(ny * es);
	ck_assert_ptr_nonnull(got);
	rc = i32 ? tpu_model_run_i32(dev, m, batch, in, got, NULL)
		 : tpu_model_run(dev, m, batch, in, got, NULL);
	ck_assert_msg(rc == 0, "%s on %s: tpu_model_run: %s", test, uri, tpu_strerror(rc));
	ck_assert_int_eq(tpu_close(dev), 0);
	size_t equal = 0;
	for (size_t i = 0; i < ny; i++) {
		int32_t g = i32 ? ((int32_t *)got)[i] : ((int8_t *)got)[i];
		int32_t w = i32 ? ((int32_t *)want)[i] : ((int8_t *)want)[i];
		if (g == w)
			equal++;
		else
			fprintf(stderr, "%s on %s: element %zu is %d, ONNX's %d%s\n", test, uri,
				i, g, w, i32 ? "" : " (int8 form)");
	}
	*total = ny;
	free(got);
	free(in);
	free(want);
	onnx__tensor_proto__free_unpacked(x, NULL);
	onnx__tensor_proto__free_unpacked(y, NULL);
	tpu_model_free(m);
	return equal;
}

/* The node tests the importer expresses: every element on every device must equal ONNX's. */
static const char *const runnable[] = {
    "test_qlinearconv",
    "test_qlinearmatmul_2D",
    "test_qlinearmatmul_3D",
    "test_maxpool_2d_uint8",
    "test_matmulinteger",
    "test_basic_convinteger",
    "test_convinteger_with_padding",
    "test_convinteger_without_padding",
};

static void run_node_test(const char *test)
{
	const char *uris[3] = {"golden", sim_have(16) ? "sim" : NULL,
			       sim_have(8) ? "sim:n=8" : NULL};
	for (size_t u = 0; u < 3; u++) {
		if (!uris[u])
			continue;
		size_t equal = 0, total = 0, sets = 0;
		for (int s = 0; s < MAX_SETS; s++) {
			char dir[512];
			snprintf(dir, sizeof(dir), "%s/%s/test_data_set_%d", NODE_DIR, test, s);
			char probe[600];
			snprintf(probe, sizeof(probe), "%s/input_0.pb", dir);
			FILE *f = fopen(probe, "rb");
			if (!f)
				break;
			fclose(f);
			size_t t;
			equal += run_set(test, dir, uris[u], &t);
			total += t;
			sets++;
		}
		ck_assert_msg(sets > 0, "%s: no test_data_set_0 under %s", test, NODE_DIR);
		printf("onnx node %s on %s: %zu of %zu elements equal (%zu data set%s)\n", test,
		       uris[u], equal, total, sets, sets == 1 ? "" : "s");
		ck_assert_msg(equal == total, "%s on %s: %zu of %zu elements equal", test, uris[u],
			      equal, total);
	}
}

START_TEST(expressible_node_tests_are_bit_exact)
{
	run_node_test(runnable[_i]);
}
END_TEST

/* The node tests the importer cannot express (docs/import.md lists them with the same
 * reasons): the import must refuse each, naming why. */
static const struct {
	const char *test, *why;
} refused[] = {
    {"test_maxpool_1d_default", "the float input must be quantized first"},
    {"test_maxpool_2d_ceil", "the float input must be quantized first"},
    {"test_maxpool_2d_default", "the float input must be quantized first"},
    {"test_maxpool_2d_dilations", "the float input must be quantized first"},
    {"test_maxpool_2d_pads", "the float input must be quantized first"},
    {"test_maxpool_2d_precomputed_pads", "the float input must be quantized first"},
    {"test_maxpool_2d_precomputed_same_upper", "the float input must be quantized first"},
    {"test_maxpool_2d_precomputed_strides", "the float input must be quantized first"},
    {"test_maxpool_2d_same_lower", "the float input must be quantized first"},
    {"test_maxpool_2d_same_upper", "the float input must be quantized first"},
    {"test_maxpool_2d_strides", "the float input must be quantized first"},
    {"test_maxpool_3d_default", "graph input 'x': rank 5"},
    {"test_maxpool_with_argmax_2d_precomputed_pads", "the float input must be quantized first"},
    {"test_maxpool_with_argmax_2d_precomputed_strides", "the float input must be quantized first"},
    {"test_globalmaxpool", "opset 1 of the default domain"},
    {"test_globalmaxpool_precomputed", "opset 1 of the default domain"},
    {"../pytorch-operator/test_operator_maxpool", "opset 6 of the default domain"},
};

START_TEST(inexpressible_node_tests_are_refused)
{
	char dir[512], err[512];
	snprintf(dir, sizeof(dir), "%s/%s/test_data_set_0", NODE_DIR, refused[_i].test);
	struct tpu_model *m = (struct tpu_model *)(uintptr_t)1;
	int rc = import_folded(refused[_i].test, dir, NULL, &m, err, sizeof(err));
	ck_assert_msg(rc == -EINVAL, "%s: rc %d (%s)", refused[_i].test, rc, err);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, refused[_i].why), "%s: '%s' lacks '%s'", refused[_i].test, err,
		      refused[_i].why);
}
END_TEST

/* test_qlinearmatmul_3D's B (input 3) with its last element changed: the slices differ. */
static void change_last_b(Onnx__TensorProto *t, size_t i)
{
	if (i != 3)
		return;
	ck_assert(t->has_raw_data && t->raw_data.len > 0);
	t->raw_data.data[t->raw_data.len - 1] ^= 1;
}

START_TEST(batched_weights_must_be_one_matrix)
{
	char dir[512], err[512];
	snprintf(dir, sizeof(dir), "%s/test_qlinearmatmul_3D/test_data_set_0", NODE_DIR);
	struct tpu_model *m = (struct tpu_model *)(uintptr_t)1;
	int rc = import_folded("test_qlinearmatmul_3D", dir, change_last_b, &m, err, sizeof(err));
	ck_assert_msg(rc == -EINVAL, "rc %d (%s)", rc, err);
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err, "node #0 (QLinearMatMul): weights: batch slice 1 differs from slice "
			      "0 (one (K, N) matrix for every batch is supported)");
}
END_TEST

static Suite *onnx_node_suite(void)
{
	Suite *s = suite_create("onnx_node");
	TCase *tc = tcase_create("onnx_node");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, expressible_node_tests_are_bit_exact, 0,
			    (int)(sizeof(runnable) / sizeof(runnable[0])));
	tcase_add_loop_test(tc, inexpressible_node_tests_are_refused, 0,
			    (int)(sizeof(refused) / sizeof(refused[0])));
	tcase_add_test(tc, batched_weights_must_be_one_matrix);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(onnx_node_suite)
