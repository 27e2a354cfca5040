/* TFLite import's structure and errors (driver/import/tflite_*, docs/import.md "TFLite"): the
 * fixtures of tests/tflite/fixtures/ (written by tests/tflite/make_fixtures.py, checked against
 * it by make test-tflite) import to the expected layers and rounding modes; truncated and
 * corrupted files, unsupported operators and options, inconsistent shapes and missing buffers
 * give one clear line naming the operator and no model, and `tpu import` writes nothing then.
 * Bit-exactness against LiteRT is make test-tflite's (tests/tflite/litert_check.py). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_fixture.h"
#include "harness.h"
#include "tpu/import.h"
#include "tpu/numerics.h"

#define FIXTURES "tests/tflite/fixtures/"

static uint8_t *slurp(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), FIXTURES "%s.tflite", name);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: cannot open", path);
	uint8_t *buf = malloc(4096);
	ck_assert_ptr_nonnull(buf);
	*len = fread(buf, 1, 4096, f);
	ck_assert_msg(*len > 0 && *len < 4096 && feof(f), "%s: %zu bytes", path, *len);
	fclose(f);
	return buf;
}

/* Import of len bytes at buf must fail with -EINVAL, no model and one line containing want. */
static void expect_fail_mem(const uint8_t *buf, size_t len, enum tpu_tflite_kernels k,
			    const char *want)
{
	struct tpu_model *m = (struct tpu_model *)(uintptr_t)1;
	char err[512];
	int rc = tpu_import_tflite_mem(buf, len, NULL, k, &m, err, sizeof(err));
	ck_assert_msg(rc == -EINVAL, "rc %d for '%s': %s", rc, want, err);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, want), "message '%s' lacks '%s'", err, want);
	ck_assert_msg(!strchr(err, '\n'), "message has a newline: '%s'", err);
}

static void expect_fail(const char *fixture, const char *want)
{
	size_t len;
	uint8_t *buf = slurp(fixture, &len);
	expect_fail_mem(buf, len, TPU_TFLITE_REFERENCE, want);
	free(buf);
}

START_TEST(imports_the_chain)
{
	size_t len;
	uint8_t *buf = slurp("chain", &len);
	struct tpu_model *m;
	char err[512];
	ck_assert_msg(
	    !tpu_import_tflite_mem(buf, len, NULL, TPU_TFLITE_REFERENCE, &m, err, sizeof(err)),
	    "%s", err);
	/* QUANTIZE, CONV_2D (SAME 3 x 3), MAX_POOL_2D, RESHAPE, FULLY_CONNECTED, DEQUANTIZE */
	ck_assert_str_eq(m->name, "main");
	ck_assert_uint_eq(m->n_layers, 3);
	ck_assert_uint_eq(m->in_h, 6);
	ck_assert_uint_eq(m->in_w, 6);
	ck_assert_uint_eq(m->in_c, 1);
	ck_assert_uint_eq(m->in_type, TPU_IO_INT8);
	ck_assert_uint_eq(m->out_type, TPU_IO_INT8);
	ck_assert_uint_eq(m->in_round, TPU_INPUT_ROUND_AWAY);
	ck_assert_uint_eq(m->num_classes, 5);
	const struct tpu_layer *c = &m->layers[0], *p = &m->layers[1], *d = &m->layers[2];
	ck_assert_uint_eq(c->type, TPU_LAYER_CONV2D);
	ck_assert_uint_eq(c->round, TPU_ROUND_DOUBLE);
	ck_assert_uint_eq(c->act, TPU_ACT_RELU);
	ck_assert_uint_eq(c->pad_top + c->pad_bottom + c->pad_left + c->pad_right, 4);
	ck_assert_uint_eq(p->type, TPU_LAYER_MAXPOOL2D);
	ck_assert_uint_eq(d->type, TPU_LAYER_DENSE);
	ck_assert_uint_eq(d->round, TPU_ROUND_SINGLE);
	ck_assert_uint_eq(d->out_c, 5);
	/* the multipliers are LiteRT's: (double)in x (double)w / (double)out */
	int32_t mult;
	int shift;
	double r = (double)c->out.scale * (double)d->w_scale[3] / (double)d->out.scale;
	ck_assert_int_eq(tpu_quantize_multiplier(r, &mult, &shift), 0);
	ck_assert_int_eq(d->multiplier[3], mult);
	ck_assert_int_eq(d->shift[3], shift);
	tpu_model_free(m);
	/* the XNNPACK set: FLOAT everywhere, and a float input refused */
	expect_fail_mem(buf, len, TPU_TFLITE_XNNPACK,
			"operator 0 (QUANTIZE): a float input: LiteRT's optimized QUANTIZE");
	expect_fail_mem(buf, len, (enum tpu_tflite_kernels)7, "kernel set 7");
	ck_assert_int_eq(
	    tpu_import_tflite_mem(buf, len, "my\tnet", TPU_TFLITE_REFERENCE, &m, err, sizeof(err)),
	    0);
	ck_assert_str_eq(m->name, "mynet");
	tpu_model_free(m);
	free(buf);
}
END_TEST

/* Every truncation fails cleanly with the Verifier's or the identifier's message; run under
 * ASan by make test-san. */
START_TEST(truncated_at_every_offset)
{
	size_t len;
	uint8_t *buf = slurp("chain", &len);
	for (size_t n = 0; n < len; n++) {
		uint8_t *cut = malloc(n ? n : 1); /* exactly n bytes: ASan sees an overread */
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, buf, n);
		expect_fail_mem(cut, n, TPU_TFLITE_REFERENCE, "not a");
		free(cut);
	}
	free(buf);
}
END_TEST

/* Random byte corruption: an error or a valid model, never a crash (and never a model that
 * does not validate). */
START_TEST(corrupted_bytes)
{
	size_t len;
	uint8_t *buf = slurp("chain", &len);
	uint8_t *bad = malloc(len);
	ck_assert_ptr_nonnull(bad);
	uint64_t s = 27;
	unsigned refused = 0, imported = 0;
	for (int trial = 0; trial < 3000; trial++) {
		memcpy(bad, buf, len);
		for (int k = 0; k < 1 + trial % 4; k++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			bad[(s >> 33) % len] ^= (uint8_t)(1u << ((s >> 20) & 7));
		}
		struct tpu_model *m;
		char err[512];
		int rc = tpu_import_tflite_mem(bad, len, NULL, TPU_TFLITE_REFERENCE, &m, err,
					       sizeof(err));
		if (rc) {
			ck_assert_int_eq(rc, -EINVAL);
			ck_assert_ptr_null(m);
			ck_assert(err[0] && !strchr(err, '\n'));
			refused++;
		} else {
			ck_assert_int_eq(tpu_model_validate(m, err, sizeof(err)), 0);
			tpu_model_free(m);
			imported++;
		}
	}
	ck_assert_uint_gt(refused, 0);
	free(bad);
	free(buf);
}
END_TEST

START_TEST(unsupported_and_inconsistent)
{
	expect_fail("bad_add", "operator 2 (ADD): operator not supported");
	expect_fail("bad_avgpool", "operator 2 (AVERAGE_POOL_2D): output quantization (0.221426, "
				   "-4) differs from the input's (0.110713, -4)");
	expect_fail("bad_dilation", "operator 1 (CONV_2D): options dilation_w_factor = 1, "
				    "dilation_h_factor = 0 (must be 1..65535)");
	expect_fail("bad_no_buffer", "operator 1 (CONV_2D): weights 't2': not a constant");
	expect_fail("bad_relu_n1", "operator 4 (FULLY_CONNECTED): option fused_activation_function "
				   "= RELU_N1_TO_1 clamps the output to");
	expect_fail("bad_shape", "operator 1 (CONV_2D): output 't3' has shape [1, 6, 5, 4], the "
				 "operator gives [1, 6, 6, 4]");
	expect_fail("bad_two_readers", "operator 2 (MAX_POOL_2D): tensor 3 is read by 2 operators");
	expect_fail("bad_weight_zp",
		    "operator 1 (CONV_2D): weights 't2': zero point 3 (channel 1)");
	/* not a TFLite model at all */
	struct tpu_model *m;
	char err[512];
	static const uint8_t tpum[16] = "TPUM\2\0\0\0";
	expect_fail_mem(tpum, sizeof(tpum), TPU_TFLITE_REFERENCE,
			"not a TFLite model: no \"TFL3\" file identifier");
	ck_assert_int_eq(tpu_import_tflite("/nonexistent/m.tflite", NULL, TPU_TFLITE_REFERENCE, &m,
					   err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/m.tflite: cannot open"));
}
END_TEST

/* `tpu import` on a bad file: exit 2, one line naming the operator, no output file; on the good
 * one a model file. The format is told by the content. */
START_TEST(cli_writes_nothing_on_error)
{
	struct cli_dir d;
	struct cli_run r;
	cli_dir_init(&d, "import-tflite");
	const char *bad = cli_dir_path(&d, "bad.bin"), *out = cli_dir_path(&d, "m.tpum");
	size_t len;
	uint8_t *buf = slurp("chain", &len);
	FILE *fp = fopen(bad, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(buf, 1, len - 8, fp), len - 8);
	ck_assert_int_eq(fclose(fp), 0);
	CLI_RUN(&r, "import", bad, "-o", out);
	cli_expect_fail(&r, 2, "tpu import: ", "not a valid TFLite model", NULL);
	ck_assert_int_ne(access(out, F_OK), 0);
	CLI_RUN(&r, "import", FIXTURES "bad_add.tflite", "-o", out);
	cli_expect_fail(&r, 2, "tpu import: ", "operator 2 (ADD): operator not supported", NULL);
	ck_assert_int_ne(access(out, F_OK), 0);
	CLI_RUN(&r, "import", FIXTURES "chain.tflite", "-o", out, "--kernels", "xnnpack");
	cli_expect_fail(&r, 2, "tpu import: ", "operator 0 (QUANTIZE)", NULL);
	ck_assert_int_ne(access(out, F_OK), 0);
	CLI_RUN(&r, "import", FIXTURES "chain.tflite", "-o", out, "--kernels", "fast");
	cli_expect_fail(&r, 2, "tpu import: ", "--kernels fast: reference or xnnpack expected",
			NULL);
	CLI_RUN(&r, "import", FIXTURES "chain.tflite", "-o", out);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "model 'main', 3 layers"));
	ck_assert_int_eq(access(out, F_OK), 0);
	free(buf);
	cli_dir_fini(&d);
}
END_TEST

static Suite *import_tflite_suite(void)
{
	Suite *s = suite_create("import_tflite");
	TCase *tc = tcase_create("import_tflite");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, imports_the_chain);
	tcase_add_test(tc, truncated_at_every_offset);
	tcase_add_test(tc, corrupted_bytes);
	tcase_add_test(tc, unsupported_and_inconsistent);
	tcase_add_test(tc, cli_writes_nothing_on_error);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(import_tflite_suite)
