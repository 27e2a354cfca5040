/* The model file format (docs/model-format.md, driver/model/model_file.c, driver/model/model_check.c):
 * round trips of hand-built models, the documented byte layout (checked with a CRC-32 and
 * offsets written here), byte-for-byte reproducible output, truncation at every offset, every
 * single-bit flip, trailing bytes, and each kind of inconsistency, both in memory
 * (tpu_model_validate) and in a file whose checksums were recomputed after the edit (so that the
 * loader's own checks, not the CRC, must catch it). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "model_fixture.h"
#include "model_priv.h"
#include "tpu/model.h"
#include "tpu/numerics.h"

/* ------------------------------------------------------------------ independent helpers */

/* Bitwise CRC-32 (IEEE): the reference for the file's checksums. */
static uint32_t ref_crc32(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
	}
	return ~crc;
}

static uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void wr32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

struct tmp {
	char dir[64];
	char path[128];
};

static void tmp_init(struct tmp *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/tpu-model-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/m.tpum", t->dir);
}

static void tmp_fini(struct tmp *t)
{
	unlink(t->path);
	ck_assert_int_eq(rmdir(t->dir), 0); /* also proves no temporary file was left behind */
}

/* The bytes of path (malloc'ed). */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	uint8_t *buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* Save m through a temporary file and return the bytes. */
static uint8_t *image_of(const struct tpu_model *m, size_t *len)
{
	struct tmp t;
	char err[256];
	tmp_init(&t);
	ck_assert_msg(tpu_model_save(m, t.path, err, sizeof(err)) == 0, "%s", err);
	uint8_t *buf = slurp(t.path, len);
	tmp_fini(&t);
	return buf;
}

/* Offset of section s's body (0 = MODL, 1 + i = layer i), walking the documented framing. */
static size_t body_at(const uint8_t *buf, size_t len, unsigned s)
{
	size_t off = 16;
	for (unsigned k = 0; k < s; k++) {
		ck_assert_uint_le(off + 8, len);
		off += 12 + rd32(buf + off + 4);
	}
	ck_assert_uint_le(off + 8, len);
	return off + 8;
}

/* Recompute the header CRC and every section's CRC (after a deliberate edit). */
static void fix_crcs(uint8_t *buf, size_t len)
{
	wr32(buf + 12, ref_crc32(buf, 12));
	size_t off = 16;
	while (off + 12 <= len) {
		uint32_t blen = rd32(buf + off + 4);
		if (off + 12 + blen > len)
			break;
		wr32(buf + off + 8 + blen, ref_crc32(buf + off, 8 + blen));
		off += 12 + blen;
	}
}

/* Load must fail with rc and a one-line message containing want; *out stays NULL. */
static void expect_load_err(const uint8_t *buf, size_t len, int rc, const char *want)
{
	struct tpu_model *m = (struct tpu_model *)(uintptr_t)1;
	char err[256];
	int got = tpu_model_load_mem(buf, len, &m, err, sizeof(err));
	ck_assert_msg(got == rc, "load gave %d (want %d): %s", got, rc, err);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, want), "message '%s' lacks '%s'", err, want);
	ck_assert_msg(!strchr(err, '\n'), "message has a newline: '%s'", err);
}

static void expect_invalid(const struct tpu_model *m, const char *want)
{
	char err[256];
	int rc = tpu_model_validate(m, err, sizeof(err));
	ck_assert_msg(rc == -EINVAL, "validate gave %d for '%s': %s", rc, want, err);
	ck_assert_msg(strstr(err, want), "message '%s' lacks '%s'", err, want);
	/* save refuses it too, and writes nothing */
	struct tmp t;
	tmp_init(&t);
	ck_assert_int_eq(tpu_model_save(m, t.path, err, sizeof(err)), -EINVAL);
	ck_assert_int_ne(access(t.path, F_OK), 0);
	tmp_fini(&t);
}

/* Layer fixed-field offsets inside a LAYR body (docs/model-format.md). */
enum {
	L_INDEX = 0,
	L_TYPE = 4,
	L_KH = 8,
	L_KW = 12,
	L_SH = 16,
	L_SW = 20,
	L_PT = 24,
	L_PB = 28,
	L_PL = 32,
	L_PR = 36,
	L_OUTC = 40,
	L_ACT = 44,
	L_OSCALE = 48,
	L_OZP = 52,
	L_NW = 56,
	L_W = 60,
};
/* MODL body offsets. */
enum {
	M_NAME = 0,
	M_IN_H = 32,
	M_IN_W = 36,
	M_IN_C = 40,
	M_SCALE = 44,
	M_ZP = 48,
	M_RANGE = 52,
	M_CLASSES = 56,
	M_FACC = 60,
	M_IACC = 64,
	M_NLAYERS = 68,
};

/* Edit one u32 of a copy of img at off, fix the CRCs, and expect the load to fail with want. */
static void expect_edit_err(const uint8_t *img, size_t len, size_t off, uint32_t v,
			    const char *want)
{
	uint8_t *b = malloc(len);
	ck_assert_ptr_nonnull(b);
	memcpy(b, img, len);
	wr32(b + off, v);
	fix_crcs(b, len);
	expect_load_err(b, len, -EINVAL, want);
	free(b);
}

/* ------------------------------------------------------------------ tests */

START_TEST(crc32_known_value)
{
	/* the check value of CRC-32/ISO-HDLC */
	ck_assert_uint_eq(ref_crc32((const uint8_t *)"123456789", 9), 0xCBF43926u);
}
END_TEST

START_TEST(round_trip_and_layout)
{
	uint64_t seed = harness_seed() ^ 0x70e1;
	static const struct mfx_spec specs[][4] = {
	    {{TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 3, TPU_ACT_NONE, 0, 0, 0, 0, 0}},
	    {{TPU_LAYER_CONV2D, 2, 3, 1, 2, 1, 0, 2, 1, 5, TPU_ACT_RELU6, 0, 0, 0, 0, 0},
	     {TPU_LAYER_MAXPOOL2D, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	     {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 7, TPU_ACT_TANH, 0, 0, 0, 0, 0},
	     {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 2, TPU_ACT_SIGMOID, 0, 0, 0, 0, 0}},
	};
	struct tpu_model *models[3] = {
	    mfx_build(&seed, "d", 1, 1, 9, specs[0], 1),
	    mfx_build(&seed, "conv-pool-dense-dense", 5, 7, 3, specs[1], 4),
	    mfx_small(&seed),
	};
	for (int k = 0; k < 3; k++) {
		struct tpu_model *m = models[k], *back;
		char err[256];
		ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
		size_t len, len2;
		uint8_t *img = image_of(m, &len);
		/* header: magic, version 1.0, length, CRC of the first 12 bytes */
		ck_assert(!memcmp(img, "TPUM", 4));
		ck_assert_uint_eq(rd32(img + 4), 1); /* major 1 (u16), minor 0 (u16) */
		ck_assert_uint_eq(rd32(img + 8), len);
		ck_assert_uint_eq(rd32(img + 12), ref_crc32(img, 12));
		/* MODL then one LAYR per layer, each with a correct CRC, and nothing after */
		size_t off = 16;
		for (uint32_t s = 0; s <= m->n_layers; s++) {
			ck_assert(!memcmp(img + off, s ? "LAYR" : "MODL", 4));
			uint32_t blen = rd32(img + off + 4);
			ck_assert_uint_eq(rd32(img + off + 8 + blen),
					  ref_crc32(img + off, 8 + blen));
			if (s) {
				ck_assert_uint_eq(rd32(img + off + 8 + L_INDEX), s - 1);
				ck_assert_uint_eq(rd32(img + off + 8 + L_TYPE),
						  m->layers[s - 1].type);
			} else {
				ck_assert_uint_eq(blen, 72);
				ck_assert_str_eq((const char *)img + off + 8, m->name);
				ck_assert_uint_eq(rd32(img + off + 8 + M_NLAYERS), m->n_layers);
				ck_assert_uint_eq(rd32(img + off + 8 + M_CLASSES), m->num_classes);
			}
			off += 12 + blen;
		}
		ck_assert_uint_eq(off, len);

		ck_assert_msg(tpu_model_load_mem(img, len, &back, err, sizeof(err)) == 0, "%s",
			      err);
		mfx_assert_equal(m, back);
		/* reproducible: the loaded copy saves to the same bytes */
		uint8_t *img2 = image_of(back, &len2);
		ck_assert_uint_eq(len, len2);
		ck_assert(!memcmp(img, img2, len));
		/* and through a file */
		struct tmp t;
		tmp_init(&t);
		spit(t.path, img, len);
		tpu_model_free(back);
		ck_assert_msg(tpu_model_load(t.path, &back, err, sizeof(err)) == 0, "%s", err);
		mfx_assert_equal(m, back);
		tpu_model_free(back);
		tmp_fini(&t);
		free(img);
		free(img2);
		tpu_model_free(m);
	}
}
END_TEST

START_TEST(name_padding_is_canonical)
{
	uint64_t seed = harness_seed() ^ 0x11;
	struct tpu_model *m = mfx_small(&seed);
	size_t len, len2;
	uint8_t *a = image_of(m, &len);
	/* garbage after the NUL in memory does not reach the file */
	memset(m->name + 6, 'x', TPU_MODEL_NAME_MAX - 6);
	m->name[5] = '\0';
	uint8_t *b = image_of(m, &len2);
	ck_assert_uint_eq(len, len2);
	ck_assert(!memcmp(a, b, len));
	/* and a file with such garbage is refused */
	b[16 + 8 + 7] = 'x';
	fix_crcs(b, len);
	expect_load_err(b, len, -EINVAL, "after the terminating NUL");
	free(a);
	free(b);
	tpu_model_free(m);
}
END_TEST

START_TEST(truncated_at_every_offset)
{
	uint64_t seed = harness_seed() ^ 0x7a;
	/* _i = 0: format 1.0, 1: format 2.0 */
	struct tpu_model *m = _i ? mfx_small_v2(&seed) : mfx_small(&seed);
	size_t len;
	uint8_t *img = image_of(m, &len);
	for (size_t n = 0; n < len; n++) {
		struct tpu_model *out = NULL;
		char err[256] = "";
		/* a copy of exactly n bytes, so ASan sees any read past them */
		uint8_t *cut = malloc(n ? n : 1);
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, img, n);
		int rc = tpu_model_load_mem(cut, n, &out, err, sizeof(err));
		ck_assert_msg(rc == -EINVAL, "truncated to %zu of %zu bytes: rc %d", n, len, rc);
		ck_assert_ptr_null(out);
		ck_assert_msg(err[0], "no message at %zu", n);
		if (n >= 16)
			ck_assert_msg(strstr(err, "truncated"), "at %zu: '%s'", n, err);
		free(cut);
	}
	/* the same through a file, at a few offsets */
	struct tmp t;
	tmp_init(&t);
	for (size_t n = 0; n < len; n += len / 7 + 1) {
		struct tpu_model *out;
		char err[256];
		spit(t.path, img, n);
		ck_assert_int_eq(tpu_model_load(t.path, &out, err, sizeof(err)), -EINVAL);
		ck_assert_ptr_null(out);
	}
	tmp_fini(&t);
	free(img);
	tpu_model_free(m);
}
END_TEST

START_TEST(trailing_bytes)
{
	uint64_t seed = harness_seed() ^ 0x7b;
	struct tpu_model *m = mfx_small(&seed);
	size_t len;
	uint8_t *img = image_of(m, &len);
	uint8_t *b = calloc(len + 5, 1);
	ck_assert_ptr_nonnull(b);
	memcpy(b, img, len);
	expect_load_err(b, len + 1, -EINVAL, "trailing data: 1 bytes");
	/* the header's length agrees, but bytes follow the last layer section */
	wr32(b + 8, (uint32_t)len + 5);
	fix_crcs(b, len + 5);
	expect_load_err(b, len + 5, -EINVAL, "after the last layer section");
	/* a section longer than its fields (format 1.0 has nothing after them) */
	memcpy(b, img, len);
	size_t modl = body_at(b, len, 0);
	memmove(b + modl + 76, b + modl + 72, len - modl - 72);
	wr32(b + modl - 4, 76);
	wr32(b + 8, (uint32_t)len + 4);
	fix_crcs(b, len + 4);
	expect_load_err(b, len + 4, -EINVAL, "model section: 4 bytes after the last field");
	/* ... which a newer minor version may append, and a 1.0 reader then skips */
	wr32(b + 4, 1u | 3u << 16);
	fix_crcs(b, len + 4);
	struct tpu_model *back;
	char err[256];
	ck_assert_msg(tpu_model_load_mem(b, len + 4, &back, err, sizeof(err)) == 0, "%s", err);
	mfx_assert_equal(m, back);
	tpu_model_free(back);
	free(b);
	free(img);
	tpu_model_free(m);
}
END_TEST

START_TEST(every_single_bit_flip)
{
	uint64_t seed = harness_seed() ^ 0x7c;
	static const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 2, 2, 1, 1, 0, 1, 1, 0, 2, TPU_ACT_RELU, 0, 0, 0, 0, 0},
	    {TPU_LAYER_MAXPOOL2D, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	    {TPU_LAYER_DENSE, 0, 0, 0, 0, 0, 0, 0, 0, 2, TPU_ACT_TANH, 0, 0, 0, 0, 0},
	};
	struct tpu_model *m = mfx_build(&seed, "flip", 3, 3, 1, spec, 3);
	size_t len;
	uint8_t *img = image_of(m, &len);
	uint8_t *b = malloc(len);
	ck_assert_ptr_nonnull(b);
	for (size_t bit = 0; bit < 8 * len; bit++) {
		memcpy(b, img, len);
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		struct tpu_model *out = NULL;
		char err[256] = "";
		int rc = tpu_model_load_mem(b, len, &out, err, sizeof(err));
		ck_assert_msg(rc == -EINVAL && !out, "bit %zu (byte %zu) flipped: loaded (rc %d)",
			      bit, bit / 8, rc);
		ck_assert_msg(err[0], "bit %zu: no message", bit);
	}
	free(b);
	free(img);
	tpu_model_free(m);
}
END_TEST

/* Random edits with the checksums recomputed, so that only the loader's own checks stand
 * between the bytes and the model: it must refuse, or load a valid model that saves back to
 * exactly these bytes. Run under ASan (make test-san) this also proves it reads nothing out of
 * bounds. */
START_TEST(random_edits_with_valid_crcs)
{
	uint64_t seed = harness_seed() ^ 0x7c2;
	struct tpu_model *m = mfx_small(&seed);
	size_t len;
	uint8_t *img = image_of(m, &len);
	uint8_t *b = malloc(len);
	ck_assert_ptr_nonnull(b);
	unsigned loaded = 0;
	for (int trial = 0; trial < 3000; trial++) {
		memcpy(b, img, len);
		int edits = (int)harness_range(&seed, 1, 3);
		for (int e = 0; e < edits; e++) {
			size_t at = (size_t)harness_range(&seed, 12, (int64_t)len - 1);
			switch (harness_range(&seed, 0, 3)) {
			case 0: /* a random byte */
				b[at] = (uint8_t)harness_range(&seed, 0, 255);
				break;
			case 1: /* a small change of a field's low byte */
				b[at & ~(size_t)3] += (uint8_t)harness_range(&seed, 1, 3);
				break;
			case 2: /* an extreme 32-bit value */
				if (at + 4 <= len)
					wr32(b + (at & ~(size_t)3), harness_range(&seed, 0, 1)
									? 0xFFFFFFFFu
									: 0x80000000u);
				break;
			default: /* a zero */
				b[at] = 0;
				break;
			}
		}
		fix_crcs(b, len);
		struct tpu_model *out = NULL;
		char err[256] = "";
		int rc = tpu_model_load_mem(b, len, &out, err, sizeof(err));
		if (rc) {
			ck_assert_msg(rc == -EINVAL && !out && err[0], "trial %d: rc %d '%s'",
				      trial, rc, err);
			continue;
		}
		loaded++;
		ck_assert_int_eq(tpu_model_validate(out, err, sizeof(err)), 0);
		size_t len2;
		uint8_t *again = image_of(out, &len2);
		ck_assert_uint_eq(len2, len);
		ck_assert_msg(!memcmp(again, b, len), "trial %d: loaded a different model", trial);
		free(again);
		tpu_model_free(out);
	}
	/* edits of weights and biases are legal: some files must load */
	ck_assert_uint_gt(loaded, 0);
	free(b);
	free(img);
	tpu_model_free(m);
}
END_TEST

START_TEST(bad_header)
{
	uint64_t seed = harness_seed() ^ 0x7d;
	struct tpu_model *m = mfx_small(&seed);
	size_t len;
	uint8_t *img = image_of(m, &len);
	expect_load_err((const uint8_t *)"PK\3\4", 4, -EINVAL, "bad magic");
	expect_load_err((const uint8_t *)"TPU", 3, -EINVAL, "truncated");
	expect_load_err(NULL, 0, -EINVAL, "truncated");
	expect_edit_err(img, len, 4, 3, "unsupported format version 3.0 (this reader reads 1.x "
					"and 2.x)");
	expect_edit_err(img, len, 4, 0, "unsupported format version 0.0");
	expect_edit_err(img, len, 4, 0xFFFF, "unsupported format version 65535.0");
	/* a 1.0 file that says 2.0 lacks the format-2 fields */
	expect_edit_err(img, len, 4, 2, "model section: body of 72 bytes (format 2.0 expects 84)");
	/* a version change without the CRC fixed is still a version error: the version is read
	 * first, so files of a future layout get the right message */
	uint8_t *b = malloc(len);
	ck_assert_ptr_nonnull(b);
	memcpy(b, img, len);
	b[4] = 3;
	expect_load_err(b, len, -EINVAL, "unsupported format version 3.0");
	memcpy(b, img, len);
	b[13] ^= 1;
	expect_load_err(b, len, -EINVAL, "file header: checksum mismatch");
	memcpy(b, img, len);
	b[len - 1] ^= 0x80;
	expect_load_err(b, len, -EINVAL, "layer 2 section: checksum mismatch");
	memcpy(b, img, len);
	b[16] = 'X';
	fix_crcs(b, len);
	expect_load_err(b, len, -EINVAL, "model section: tag 'XODL' (expected 'MODL')");
	free(b);
	/* a length that says more than the file has */
	expect_edit_err(img, len, 8, (uint32_t)len + 1, "truncated: the header says");
	size_t l1 = body_at(img, len, 1);
	expect_edit_err(img, len, l1 - 4, 0xFFFFFFF0u, "layer 0 section: body of 4294967280 bytes");
	free(img);
	tpu_model_free(m);
}
END_TEST

START_TEST(bad_model_fields_in_file)
{
	uint64_t seed = harness_seed() ^ 0x7e;
	struct tpu_model *m = mfx_small(&seed);
	size_t len;
	uint8_t *img = image_of(m, &len);
	size_t mb = body_at(img, len, 0);
	expect_edit_err(img, len, mb + M_IN_H, 0xFFFFFFFFu, "model: in_h: 4294967295");
	expect_edit_err(img, len, mb + M_IN_C, 0, "model: in_c: 0");
	expect_edit_err(img, len, mb + M_ZP, 200, "model: in.zero_point: 200");
	expect_edit_err(img, len, mb + M_SCALE, 0x7FC00000u, "model: in.scale: nan");
	expect_edit_err(img, len, mb + M_SCALE, 0xBF800000u, "model: in.scale: -1");
	expect_edit_err(img, len, mb + M_RANGE, 0, "model: in_range: 0");
	expect_edit_err(img, len, mb + M_FACC, 0x3FC00000u, "model: float_accuracy: 1.5");
	expect_edit_err(img, len, mb + M_NLAYERS, 33, "model: n_layers: 33");
	expect_edit_err(img, len, mb + M_NLAYERS, 0, "model: n_layers: 0");
	expect_edit_err(img, len, mb + M_NLAYERS, 2, "trailing data");
	expect_edit_err(img, len, mb + M_NLAYERS, 4, "layer 3 section: truncated");
	expect_edit_err(img, len, mb + M_CLASSES, 5,
			"num_classes: 5, but the last layer 2 (DENSE)");
	expect_edit_err(img, len, mb + M_NAME, 0, "model: name: byte 4 after the terminating NUL");
	/* the input shape changes the chain: conv still fits, the dense weights do not */
	expect_edit_err(img, len, mb + M_IN_H, 8,
			"layer 2 (DENSE): weights: count 108 (expected 144)");
	free(img);
	tpu_model_free(m);
}
END_TEST

START_TEST(bad_layer_fields_in_file)
{
	uint64_t seed = harness_seed() ^ 0x7f;
	struct tpu_model *m = mfx_small(&seed);
	size_t len;
	uint8_t *img = image_of(m, &len);
	size_t c = body_at(img, len, 1), p = body_at(img, len, 2), d = body_at(img, len, 3);
	/* framing of the layer records */
	expect_edit_err(img, len, c + L_INDEX, 1,
			"layer 0 (CONV2D): index: 1 (sections out of order)");
	expect_edit_err(img, len, c + L_TYPE, 9, "layer 0 (type 9): type: unknown layer type 9");
	expect_edit_err(img, len, c + L_TYPE, 0, "unknown layer type 0");
	expect_edit_err(img, len, d + L_TYPE, TPU_LAYER_CONV2D,
			"layer 2 (CONV2D): kernel_h: 0 (must be 1..65535)");
	/* shapes */
	expect_edit_err(img, len, c + L_KH, 9,
			"layer 0 (CONV2D): kernel_h: 9 does not fit the padded input height 8");
	expect_edit_err(img, len, c + L_PT, 3,
			"layer 0 (CONV2D): pad_top: 3 (must be below kernel_h 3)");
	expect_edit_err(img, len, c + L_SW, 0, "layer 0 (CONV2D): stride_w: 0 (must be 1..65535)");
	expect_edit_err(img, len, c + L_OUTC, 70000,
			"layer 0 (CONV2D): out_c: 70000 (must be 1..65535)");
	expect_edit_err(img, len, c + L_OUTC, 4,
			"layer 0 (CONV2D): weights: count 54 (expected 72)");
	expect_edit_err(img, len, c + L_ACT, 7, "layer 0 (CONV2D): act: unknown activation 7");
	expect_edit_err(img, len, p + L_PT, 1,
			"layer 1 (MAXPOOL2D): pad_top: 1 (must be 0 for a pool in a format 1.0 "
			"file)");
	expect_edit_err(img, len, p + L_TYPE, TPU_LAYER_AVGPOOL2D,
			"layer 1 (AVGPOOL2D): type: 4 needs format 2 (this file is 1.0)");
	expect_edit_err(img, len, p + L_KW, 7,
			"layer 1 (MAXPOOL2D): kernel_w: 7 does not fit the input width 6");
	expect_edit_err(img, len, p + L_OUTC, 3,
			"layer 1 (MAXPOOL2D): out_c: 3 (must be 0 for MAXPOOL2D)");
	/* dense input = the pool's output flattened: a 3x2 window gives 2 x 3 x 3 = 18 values */
	expect_edit_err(img, len, p + L_KH, 3, "layer 2 (DENSE): weights: count 108 (expected 72)");
	expect_edit_err(img, len, d + L_KH, 1,
			"layer 2 (DENSE): kernel_h: 1 (must be 0 for DENSE)");
	/* arrays */
	expect_edit_err(img, len, c + L_NW, 0xFFFFFFFFu,
			"layer 0 (CONV2D): weights: count 4294967295 (expected 54)");
	size_t nb = d + L_W + 108; /* dense bias count */
	expect_edit_err(img, len, nb, 5, "layer 2 (DENSE): bias: count 5 (expected 4)");
	size_t nlut = nb + 4 * (4 + 16); /* four arrays of 4 channels, each with its count */
	ck_assert_uint_eq(rd32(img + nlut), 256);
	expect_edit_err(img, len, d + L_ACT, TPU_ACT_RELU,
			"layer 2 (DENSE): lut: count 256 (expected 0)");
	expect_edit_err(img, len, c + L_ACT, TPU_ACT_TANH,
			"layer 0 (CONV2D): lut: count 0 (expected 256)");
	/* values */
	expect_edit_err(img, len, c + L_OZP, 200, "layer 0 (CONV2D): out.zero_point = 200");
	expect_edit_err(img, len, c + L_OZP, 0xFFFFFF00u,
			"layer 0 (CONV2D): out.zero_point = -256");
	expect_edit_err(img, len, d + L_OSCALE, 0xFF800000u, "layer 2 (DENSE): out.scale = -inf");
	size_t ws = nb + 4 + 16, mult = ws + 4 + 16, sh = mult + 4 + 16;
	expect_edit_err(img, len, ws + 4 + 4, 0, "layer 2 (DENSE): w_scale[1] = 0");
	char want[128];
	snprintf(want, sizeof(want),
		 "layer 2 (DENSE): multiplier[3] = 5 does not match scales (expected %d)",
		 (int)m->layers[2].multiplier[3]);
	expect_edit_err(img, len, mult + 4 + 12, 5, want);
	expect_edit_err(img, len, mult + 4, 0x80000000u,
			"layer 2 (DENSE): multiplier[0] = -2147483648 (must be 0..2147483647)");
	snprintf(want, sizeof(want),
		 "layer 2 (DENSE): shift[2] = %d does not match scales (expected %d)",
		 (int)m->layers[2].shift[2] + 1, (int)m->layers[2].shift[2]);
	expect_edit_err(img, len, sh + 4 + 8, (uint32_t)(m->layers[2].shift[2] + 1), want);
	expect_edit_err(img, len, sh + 4, 31, "layer 2 (DENSE): shift[0] = 31 (must be -31..30)");
	/* a pool whose output quantization differs from its input's */
	expect_edit_err(img, len, p + L_OZP, (uint32_t)m->layers[0].out.zero_point + 1,
			"layer 1 (MAXPOOL2D): out = ");
	free(img);
	tpu_model_free(m);
}
END_TEST

START_TEST(bad_models_in_memory)
{
	uint64_t seed = harness_seed() ^ 0x80;
	struct tpu_model *m = mfx_small(&seed);
	struct tpu_layer *c = &m->layers[0], *p = &m->layers[1], *d = &m->layers[2];
	char err[256];
	ck_assert_int_eq(tpu_model_validate(NULL, err, sizeof(err)), -EINVAL);

	memset(m->name, 'a', sizeof(m->name));
	expect_invalid(m, "model: name: not NUL-terminated");
	strcpy(m->name, "tab\there");
	expect_invalid(m, "model: name: byte 3 is 0x09");
	strcpy(m->name, "small");

	m->in_w = 70000;
	expect_invalid(m, "model: in_w: 70000 (must be 1..65535)");
	m->in_w = 6;
	m->in_h = 65535;
	m->in_c = 65535;
	expect_invalid(m, "model: input 65535 x 6 x 65535");
	m->in_h = 6;
	m->in_c = 2;

	int32_t zp = c->out.zero_point;
	c->out.zero_point = -129;
	expect_invalid(m, "layer 0 (CONV2D): out.zero_point = -129 (must be -128..127)");
	c->out.zero_point = zp;

	float s = d->out.scale;
	d->out.scale = NAN;
	expect_invalid(m, "layer 2 (DENSE): out.scale = nan");
	d->out.scale = s;

	int32_t mult = d->multiplier[3];
	d->multiplier[3] = 5;
	snprintf(err, sizeof(err),
		 "layer 2 (DENSE): multiplier[3] = 5 does not match scales (expected %d)",
		 (int)mult);
	char want[256];
	strcpy(want, err);
	expect_invalid(m, want);
	d->multiplier[3] = mult;

	/* an input scale change makes every multiplier of layer 0 stale */
	float in_scale = m->in.scale;
	m->in.scale *= 3;
	expect_invalid(m, "layer 0 (CONV2D): multiplier[0]");
	m->in.scale = in_scale;

	/* a real multiplier that needs a left shift above 30 */
	float w0 = c->w_scale[0];
	c->w_scale[0] = 1e30f;
	expect_invalid(m, "layer 0 (CONV2D): w_scale[0]: in.scale x w_scale / out.scale");
	c->w_scale[0] = w0;

	c->act = TPU_ACT_RELU;
	c->lut[7] = 1;
	expect_invalid(m, "layer 0 (CONV2D): lut[7] = 1: act RELU has no LUT");
	c->lut[7] = 0;

	p->weights = malloc(1);
	expect_invalid(m, "layer 1 (MAXPOOL2D): weights: must be NULL");
	free(p->weights);
	p->weights = NULL;

	int32_t *bias = d->bias;
	d->bias = NULL;
	expect_invalid(m, "layer 2 (DENSE): bias: NULL");
	d->bias = bias;

	p->out.scale *= 2;
	expect_invalid(m, "layer 1 (MAXPOOL2D): out = (");
	p->out.scale = c->out.scale;

	m->num_classes = 3;
	expect_invalid(m, "model: num_classes: 3, but the last layer 2 (DENSE) outputs 1 x 1 x 4");
	m->num_classes = 4;

	/* K above the int32 accumulator limit */
	m->in_h = 8;
	m->in_w = 8;
	m->in_c = 4096;
	c->kernel_h = c->kernel_w = 6;
	c->pad_top = c->pad_bottom = c->pad_left = c->pad_right = 0;
	expect_invalid(m, "exceeds 131071");
	ck_assert_msg(tpu_model_validate(NULL, err, sizeof(err)) == -EINVAL, "NULL");
	tpu_model_free(m);
}
END_TEST

START_TEST(load_and_save_errors)
{
	struct tpu_model *m = (struct tpu_model *)(uintptr_t)1;
	char err[256];
	ck_assert_int_eq(tpu_model_load("/nonexistent/dir/m.tpum", &m, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_null(m);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
	ck_assert_int_eq(tpu_model_load("/tmp", &m, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_eq(tpu_model_load(NULL, &m, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(tpu_model_load_mem("x", 1, NULL, err, sizeof(err)), -EINVAL);
	uint64_t seed = harness_seed() ^ 0x81;
	struct tpu_model *good = mfx_small(&seed);
	ck_assert_int_eq(tpu_model_save(good, "/nonexistent/dir/m.tpum", err, sizeof(err)), -EIO);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/dir/m.tpum"));
	ck_assert_int_eq(tpu_model_save(NULL, "/tmp/x.tpum", err, sizeof(err)), -EINVAL);
	/* no message buffer is fine */
	ck_assert_int_eq(tpu_model_load_mem("TPUM", 4, &m, NULL, 0), -EINVAL);
	/* saving over an existing file replaces it */
	struct tmp t;
	tmp_init(&t);
	spit(t.path, (const uint8_t *)"old", 3);
	ck_assert_msg(tpu_model_save(good, t.path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(tpu_model_load(t.path, &m, err, sizeof(err)) == 0, "%s", err);
	mfx_assert_equal(good, m);
	tpu_model_free(m);
	tmp_fini(&t);
	tpu_model_free(good);
	tpu_model_free(NULL);
}
END_TEST

START_TEST(layer_out_shapes)
{
	uint64_t seed = harness_seed() ^ 0x82;
	struct tpu_model *m = mfx_small(&seed);
	uint32_t h, w, c;
	static const uint32_t want[3][3] = {{6, 6, 3}, {3, 3, 3}, {1, 1, 4}};
	for (uint32_t i = 0; i < 3; i++) {
		tpu_model_layer_out_shape(m, i, &h, &w, &c);
		ck_assert_uint_eq(h, want[i][0]);
		ck_assert_uint_eq(w, want[i][1]);
		ck_assert_uint_eq(c, want[i][2]);
	}
	tpu_model_layer_out_shape(m, 3, &h, &w, &c);
	ck_assert_uint_eq(h | w | c, 0);
	tpu_model_free(m);
}
END_TEST


/* ------------------------------------------------------------------ format 2 */

/* A model with a format-2 field is written as 2.0: the MODL body grows by in_type, out_type
 * and in_round, each LAYR body by round after the LUT; it loads back equal and saves to the
 * same bytes. */
START_TEST(format2_round_trip_and_layout)
{
	uint64_t seed = harness_seed() ^ 0x90;
	struct tpu_model *m = mfx_small_v2(&seed), *back;
	char err[256];
	size_t len, len2;
	uint8_t *img = image_of(m, &len);
	ck_assert_uint_eq(rd32(img + 4), 2); /* major 2, minor 0 */
	size_t mb = body_at(img, len, 0);
	ck_assert_uint_eq(rd32(img + mb - 4), 84);
	ck_assert_uint_eq(rd32(img + mb + 72), TPU_IO_UINT8);
	ck_assert_uint_eq(rd32(img + mb + 76), TPU_IO_UINT8);
	ck_assert_uint_eq(rd32(img + mb + 80), TPU_INPUT_ROUND_EVEN);
	static const uint32_t want_round[3] = {TPU_ROUND_SINGLE, 0, TPU_ROUND_FLOAT};
	for (unsigned s = 1; s <= 3; s++) {
		size_t b = body_at(img, len, s);
		uint32_t blen = rd32(img + b - 4);
		ck_assert_uint_eq(rd32(img + b + blen - 4), want_round[s - 1]);
	}
	ck_assert_msg(tpu_model_load_mem(img, len, &back, err, sizeof(err)) == 0, "%s", err);
	mfx_assert_equal(m, back);
	uint8_t *img2 = image_of(back, &len2);
	ck_assert_uint_eq(len, len2);
	ck_assert(!memcmp(img, img2, len));
	/* one format-2 field alone is enough for 2.0; none gives 1.0 */
	tpu_model_free(back);
	back = mfx_small(&seed);
	ck_assert_uint_eq(tpu_model_format_major(back), 1);
	back->out_type = TPU_IO_UINT8;
	ck_assert_uint_eq(tpu_model_format_major(back), 2);
	back->out_type = 0;
	back->layers[0].round = TPU_ROUND_SINGLE;
	ck_assert_uint_eq(tpu_model_format_major(back), 2);
	back->layers[0].round = 0;
	back->layers[0].b_zp_count = 1;
	ck_assert_uint_eq(tpu_model_format_major(back), 2);
	back->layers[0].b_zp_count = 0;
	tpu_model_free(back);
	free(img2);
	free(img);
	tpu_model_free(m);
}
END_TEST

/* The shipped models use only format-1 fields: they load and save to their own bytes, 1.0. */
/* io_layout (format 2.1): written as 2.1 with the MODL body grown by it, only when set (other
 * models keep their 1.0 or 2.0 bytes); loads back equal; a value outside the flags, a 2.1
 * MODL body without it, and a 2.0 body with it are refused. */
START_TEST(format21_io_layout)
{
	uint64_t seed = harness_seed() ^ 0x21;
	struct tpu_model *m = mfx_small(&seed), *back;
	char err[256];
	size_t len;
	m->io_layout = TPU_LAYOUT_IN_NCHW | TPU_LAYOUT_OUT_NCHW;
	ck_assert_uint_eq(tpu_model_format_major(m), 2);
	uint8_t *img = image_of(m, &len);
	ck_assert_uint_eq(rd32(img + 4), 2u | 1u << 16); /* major 2, minor 1 */
	size_t mb = body_at(img, len, 0);
	ck_assert_uint_eq(rd32(img + mb - 4), 88);
	ck_assert_uint_eq(rd32(img + mb + 84), 3);
	ck_assert_msg(tpu_model_load_mem(img, len, &back, err, sizeof(err)) == 0, "%s", err);
	mfx_assert_equal(m, back);
	ck_assert_uint_eq(tpu_model_io_layout(back), 3);
	tpu_model_free(back);
	expect_edit_err(img, len, mb + 84, 4,
			"model: io_layout: 4 (flags 1 input NCHW, 2 output NCHW)");
	/* the same file called 2.0: its MODL body is 4 bytes too long */
	expect_edit_err(img, len, 4, 2,
			"model section: 4 bytes after the last field (format 2.0 has none)");
	free(img);
	/* a 2.1 header over a 2.0 body: 4 bytes short */
	m->io_layout = 0;
	m->in_type = TPU_IO_UINT8;
	img = image_of(m, &len);
	ck_assert_uint_eq(rd32(img + 4), 2); /* no 2.1 field: 2.0 */
	expect_edit_err(img, len, 4, 2u | 1u << 16,
			"model section: body of 84 bytes (format 2.1 expects 88)");
	free(img);
	m->io_layout = 5;
	expect_invalid(m, "model: io_layout: 5");
	ck_assert_uint_eq(tpu_model_io_layout(NULL), 0);
	tpu_model_free(m);
}
END_TEST

/* Each neutral field of m's int32 output layer (m valid) changed in turn is refused. */
static void expect_invalid_fields(struct tpu_model *m)
{
	struct tpu_layer *l = &m->layers[m->n_layers - 1];
	l->act = TPU_ACT_RELU;
	expect_invalid(m, "layer 2 (DENSE): act RELU: an int32 output layer has none");
	l->act = TPU_ACT_NONE;
	l->round = TPU_ROUND_FLOAT;
	expect_invalid(m, "layer 2 (DENSE): round 2: an int32 output layer has none");
	l->round = 0;
	l->out.zero_point = 3;
	expect_invalid(m, "layer 2 (DENSE): out = (1, 3): an int32 output layer has none");
	l->out.zero_point = 0;
	l->shift[1] = -2;
	expect_invalid(m, "layer 2 (DENSE): shift[1] = -2 (must be 0: the int32 output is not "
			  "requantized)");
	l->shift[1] = 0;
	l->multiplier[0] = 1 << 30;
	expect_invalid(m, "layer 2 (DENSE): multiplier[0] = 1073741824 (must be 0");
	l->multiplier[0] = 0;
	m->out_type = 3;
	expect_invalid(m, "model: out_type: 3 (0 INT8, 1 UINT8, 2 INT32)");
	m->out_type = TPU_IO_INT32;
	char err[256];
	ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
}

/* An INT32 output (format 2.2): written as 2.2 with a 2.1 body, only then; loads back equal; a
 * 2.1 or 2.0 file that says INT32 is refused naming the version, and so is each field that an
 * int32 output layer must leave at its neutral value. */
START_TEST(format22_int32_output)
{
	uint64_t seed = harness_seed() ^ 0x22;
	struct tpu_model *m = mfx_small(&seed), *back;
	char err[256];
	size_t len;
	mfx_int32_output(&seed, m);
	ck_assert_uint_eq(tpu_model_format_major(m), 2);
	uint8_t *img = image_of(m, &len);
	ck_assert_uint_eq(rd32(img + 4), 2u | 2u << 16); /* major 2, minor 2 */
	size_t mb = body_at(img, len, 0);
	ck_assert_uint_eq(rd32(img + mb - 4), 88); /* the 2.1 body */
	ck_assert_uint_eq(rd32(img + mb + 76), TPU_IO_INT32);
	ck_assert_msg(tpu_model_load_mem(img, len, &back, err, sizeof(err)) == 0, "%s", err);
	mfx_assert_equal(m, back);
	tpu_model_free(back);
	expect_edit_err(img, len, 4, 2u | 1u << 16,
			"model: out_type: 2 (INT32) needs format 2.2, the file is 2.1");
	free(img);
	expect_invalid_fields(m);
	tpu_model_free(m);
}
END_TEST

START_TEST(format1_models_unchanged)
{
	static const char *const paths[] = {"models/digits-mlp.tpum", "models/digits-cnn.tpum"};
	for (size_t k = 0; k < 2; k++) {
		struct tpu_model *m;
		char err[256];
		size_t len, len2;
		uint8_t *file = slurp(paths[k], &len);
		ck_assert_uint_eq(rd32(file + 4), 1);
		ck_assert_msg(tpu_model_load_mem(file, len, &m, err, sizeof(err)) == 0, "%s: %s",
			      paths[k], err);
		uint8_t *img = image_of(m, &len2);
		ck_assert_uint_eq(len, len2);
		ck_assert_msg(!memcmp(file, img, len), "%s: saved bytes differ", paths[k]);
		free(img);
		free(file);
		tpu_model_free(m);
	}
}
END_TEST

/* A reader of format 1.0 only (the rules of the releases before format 2) refuses a 2.0 file
 * with the message those readers give. */
START_TEST(format2_refused_by_format1_reader)
{
	uint64_t seed = harness_seed() ^ 0x91;
	struct tpu_model *m = mfx_small_v2(&seed), *out = NULL;
	size_t len;
	uint8_t *img = image_of(m, &len);
	char err[256];
	ck_assert_int_eq(tpu_model_load_mem_major(img, len, 1, &out, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(err, "unsupported format version 2.0 (this reader reads 1.x)");
	free(img);
	tpu_model_free(m);
	m = mfx_small(&seed);
	img = image_of(m, &len);
	ck_assert_msg(tpu_model_load_mem_major(img, len, 1, &out, err, sizeof(err)) == 0, "%s", err);
	tpu_model_free(out);
	free(img);
	tpu_model_free(m);
}
END_TEST

START_TEST(format2_bad_fields)
{
	uint64_t seed = harness_seed() ^ 0x92;
	struct tpu_model *m = mfx_small_v2(&seed);
	size_t len;
	uint8_t *img = image_of(m, &len);
	size_t mb = body_at(img, len, 0), c = body_at(img, len, 1), p = body_at(img, len, 2),
	       d = body_at(img, len, 3);
	size_t c_round = c + rd32(img + c - 4) - 4, p_round = p + rd32(img + p - 4) - 4,
	       d_round = d + rd32(img + d - 4) - 4;
	/* in a file, with the checksums fixed */
	expect_edit_err(img, len, mb + 72, 2, "model: in_type: 2 (0 INT8, 1 UINT8)");
	expect_edit_err(img, len, mb + 76, 9, "model: out_type: 9 (0 INT8, 1 UINT8, 2 INT32)");
	expect_edit_err(img, len, mb + 80, 2, "model: in_round: 2");
	expect_edit_err(img, len, c_round, 3, "layer 0 (CONV2D): round: unknown rounding mode 3");
	expect_edit_err(img, len, p_round, 1, "layer 1 (MAXPOOL2D): round: 1 (must be 0");
	/* the weight zero points: a count other than 0, 1 or out_c (before anything is
	 * allocated), a value outside int8; the CONV2D's one value sits before its round */
	expect_edit_err(img, len, c_round - 8, 2,
			"layer 0 (CONV2D): b_zero_point: count 2 (must be 0, 1 or out_c = 3)");
	expect_edit_err(img, len, c_round - 8, 0x7fffffff, "b_zero_point: count 2147483647");
	expect_edit_err(img, len, c_round - 4, 128,
			"layer 0 (CONV2D): b_zero_point[0] = 128 (must be -128..127)");
	expect_edit_err(img, len, p_round - 4, 1, "layer 1 (MAXPOOL2D): b_zero_point: count 1");
	/* DOUBLE checks the multiplier in double: the fp32 ratio's encoding differs */
	expect_edit_err(img, len, d_round, TPU_ROUND_DOUBLE,
			"layer 2 (DENSE): multiplier[0] = ");
	/* in memory */
	char err[256];
	ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
	m->in_type = 2;
	expect_invalid(m, "model: in_type: 2");
	m->in_type = TPU_IO_UINT8;
	m->layers[2].b_zero_point[3] = -129;
	expect_invalid(m, "layer 2 (DENSE): b_zero_point[3] = -129 (must be -128..127)");
	m->layers[2].b_zero_point[3] = 0;
	m->layers[2].b_zp_count = 2;
	expect_invalid(m, "layer 2 (DENSE): b_zp_count: 2 (must be 0, 1 or out_c = 4)");
	m->layers[2].b_zp_count = 0;
	expect_invalid(m, "layer 2 (DENSE): b_zero_point: set with b_zp_count 0");
	m->layers[2].b_zp_count = 4;
	m->layers[1].b_zp_count = 1;
	expect_invalid(m, "layer 1 (MAXPOOL2D): b_zp_count: 1 (must be 0 for a pool)");
	m->layers[1].b_zp_count = 0;
	m->layers[2].round = 7;
	expect_invalid(m, "layer 2 (DENSE): round: unknown rounding mode 7 (0 DOUBLE, 1 SINGLE, "
			  "2 FLOAT)");
	/* FLOAT: the multiplier of the fp32 ratio, not of the double one */
	m->layers[2].round = TPU_ROUND_FLOAT;
	int32_t keep = m->layers[2].multiplier[1];
	m->layers[2].multiplier[1] = keep ^ 0x40;
	expect_invalid(m, "layer 2 (DENSE): multiplier[1] = ");
	m->layers[2].multiplier[1] = keep;
	/* a ratio below the normal floats has no FLOAT encoding */
	m->layers[2].w_scale[0] = 1e-37f;
	m->layers[2].out.scale = 1e6f;
	expect_invalid(m, "layer 2 (DENSE): w_scale[0]: in.scale x w_scale / out.scale");
	free(img);
	tpu_model_free(m);
}
END_TEST

/* Dilation and groups (format 2.0, inserted after out.zero_point because the weights' size
 * depends on groups): a grouped, dilated model round-trips; bad values are refused in a file
 * and in memory. */
START_TEST(format2_dilation_and_groups)
{
	uint64_t seed = harness_seed() ^ 0x95;
	static const struct mfx_spec spec[] = {
	    {TPU_LAYER_CONV2D, 3, 3, 1, 1, 1, 1, 1, 1, 8, TPU_ACT_RELU, 0, 4, 0, 0, 0},
	    {TPU_LAYER_CONV2D, 3, 2, 1, 2, 2, 3, 1, 1, 6, TPU_ACT_NONE, 2, 2, 0, 0, 0},
	    {TPU_LAYER_MAXPOOL2D, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	};
	struct tpu_model *m = mfx_build(&seed, "dg", 7, 7, 4, spec, 3), *back;
	char err[256];
	size_t len, len2;
	uint8_t *img = image_of(m, &len);
	ck_assert_uint_eq(rd32(img + 4), 2);
	size_t c0 = body_at(img, len, 1), c1 = body_at(img, len, 2), p = body_at(img, len, 3);
	ck_assert_uint_eq(rd32(img + c1 + 56), 2); /* dilation_h */
	ck_assert_uint_eq(rd32(img + c1 + 60), 2); /* dilation_w */
	ck_assert_uint_eq(rd32(img + c1 + 64), 2); /* groups */
	ck_assert_uint_eq(rd32(img + c1 + 80), 3 * 2 * 4 * 6); /* weights: K = 3 x 2 x 8 / 2 */
	ck_assert_msg(tpu_model_load_mem(img, len, &back, err, sizeof(err)) == 0, "%s", err);
	mfx_assert_equal(m, back);
	uint8_t *img2 = image_of(back, &len2);
	ck_assert(len == len2 && !memcmp(img, img2, len));
	free(img2);
	tpu_model_free(back);
	/* in a file: groups that do not divide, a dilation that pushes the kernel out of the
	 * input, dilation or groups on a pool */
	expect_edit_err(img, len, c0 + 64, 3,
			"layer 0 (CONV2D): groups: 3 does not divide in_c 4 and out_c 8");
	expect_edit_err(img, len, c1 + 56, 9,
			"layer 1 (CONV2D): kernel_h: 3 (dilated) does not fit the padded input "
			"height 12");
	expect_edit_err(img, len, c1 + 60, 70000, "layer 1 (CONV2D): dilation_w: 70000");
	expect_edit_err(img, len, p + 64, 1, "layer 2 (MAXPOOL2D): groups: 1 (must be 0 for "
					     "MAXPOOL2D)");
	expect_edit_err(img, len, p + 56, 2, "layer 2 (MAXPOOL2D): dilation_h: 2 (must be 0");
	/* in memory: a pad at the dilated extent (5) */
	ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
	m->layers[1].pad_top = 5;
	expect_invalid(m, "layer 1 (CONV2D): pad_top: 5 (must be below the dilated kernel_h 5)");
	m->layers[1].pad_top = 2;
	free(img);
	tpu_model_free(m);
}
END_TEST

/* Pools of format 2.0: pads, ceil_mode, AVGPOOL2D in both modes round-trip; bad values are
 * refused in a file and in memory. */
START_TEST(format2_pools)
{
	uint64_t seed = harness_seed() ^ 0x96;
	static const struct mfx_spec spec[] = {
	    {TPU_LAYER_MAXPOOL2D, 3, 3, 2, 2, 1, 0, 2, 1, 0, 0, 0, 0, 1, 0, 0},
	    {TPU_LAYER_AVGPOOL2D, 2, 2, 1, 1, 1, 1, 0, 1, 0, TPU_ACT_RELU, 0, 0, 0,
	     TPU_AVGPOOL_TFLITE, TPU_AVGPOOL_UINT8},
	    {TPU_LAYER_AVGPOOL2D, 3, 2, 2, 2, 1, 2, 1, 0, 0, 0, 0, 0, 1, TPU_AVGPOOL_ONNXRT,
	     TPU_AVGPOOL_COUNT_PAD},
	};
	struct tpu_model *m = mfx_build(&seed, "pools", 9, 8, 3, spec, 3), *back;
	char err[256];
	size_t len, len2;
	uint8_t *img = image_of(m, &len);
	ck_assert_uint_eq(rd32(img + 4), 2);
	size_t p0 = body_at(img, len, 1), a1 = body_at(img, len, 2), a2 = body_at(img, len, 3);
	ck_assert_uint_eq(rd32(img + p0 + 68), 1); /* ceil_mode */
	ck_assert_uint_eq(rd32(img + a2 + 72), TPU_AVGPOOL_ONNXRT);
	ck_assert_uint_eq(rd32(img + a2 + 76), TPU_AVGPOOL_COUNT_PAD);
	ck_assert_msg(tpu_model_load_mem(img, len, &back, err, sizeof(err)) == 0, "%s", err);
	mfx_assert_equal(m, back);
	uint8_t *img2 = image_of(back, &len2);
	ck_assert(len == len2 && !memcmp(img, img2, len));
	free(img2);
	tpu_model_free(back);
	expect_edit_err(img, len, p0 + 68, 2, "layer 0 (MAXPOOL2D): ceil_mode: 2 (must be 0..1)");
	expect_edit_err(img, len, p0 + 72, 1, "layer 0 (MAXPOOL2D): avg_mode: 1 (must be 0");
	expect_edit_err(img, len, a1 + 72, 2, "layer 1 (AVGPOOL2D): avg_mode: 2 (0 TFLITE, 1 ONNXRT)");
	expect_edit_err(img, len, a1 + 76, 1,
			"layer 1 (AVGPOOL2D): avg_flags: 0x1 (avg_mode TFLITE knows 0x2)");
	expect_edit_err(img, len, a2 + 44, TPU_ACT_RELU,
			"layer 2 (AVGPOOL2D): act: 1 (avg_mode ONNXRT takes 0 NONE)");
	expect_edit_err(img, len, a1 + 24, 2, "layer 1 (AVGPOOL2D): pad_top: 2 (must be below "
					      "kernel_h 2)");
	/* TFLite's average keeps its input's quantization; ONNX Runtime's need not */
	expect_edit_err(img, len, a1 + 52, (uint32_t)m->layers[1].out.zero_point + 1,
			"layer 1 (AVGPOOL2D): out = ");
	ck_assert_msg(tpu_model_validate(m, err, sizeof(err)) == 0, "%s", err);
	m->layers[2].round = 1;
	expect_invalid(m, "layer 2 (AVGPOOL2D): round: 1 (must be 0 for AVGPOOL2D)");
	m->layers[2].round = 0;
	m->layers[0].ceil_mode = 0;
	ck_assert_uint_eq(tpu_model_format_major(m), 2); /* the pads and the AVGPOOL2D */
	free(img);
	tpu_model_free(m);
}
END_TEST

/* The FLOAT check computes in.scale x w_scale / out.scale in fp32, in that order: a case where
 * the fp32 and double ratios have different encodings, each accepted in its own mode only. */
START_TEST(format2_float_ratio)
{
	uint64_t seed = harness_seed() ^ 0x93;
	struct tpu_model *m = mfx_small_v2(&seed);
	struct tpu_layer *d = &m->layers[2];
	const struct tpu_quant *q = &m->layers[1].out;
	float pf = q->scale * d->w_scale[0];
	float rf = pf / d->out.scale;
	double rd = (double)q->scale * (double)d->w_scale[0] / (double)d->out.scale;
	/* the fp32 ratio encoded exactly: significand << 7 and the binary exponent */
	int e;
	float sig = frexpf(rf, &e);
	ck_assert_int_eq(d->multiplier[0], (int32_t)ldexpf(sig, 24) << 7);
	ck_assert_int_eq(d->shift[0], e);
	if ((double)rf != rd) { /* almost always: the double ratio is not an fp32 value */
		int32_t mq;
		int sq;
		ck_assert_int_eq(tpu_quantize_multiplier(rd, &mq, &sq), 0);
		ck_assert(mq != d->multiplier[0] || sq != d->shift[0]);
	}
	tpu_model_free(m);
}
END_TEST

/* Input rounding: half away from zero (1.0 models), half to even (ONNX). */
START_TEST(input_rounding)
{
	uint64_t seed = harness_seed() ^ 0x94;
	struct tpu_model *m = mfx_small(&seed);
	m->in.scale = 1.0f;
	m->in.zero_point = 0;
	m->in_range = 1.0f;
	const float raw[6] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 300.0f};
	static const int8_t away[6] = {1, 2, 3, -1, -3, 127}, even[6] = {0, 2, 2, 0, -2, 127};
	int8_t q[6];
	tpu_model_quantize_input(m, raw, 6, q);
	ck_assert(!memcmp(q, away, 6));
	m->in_round = TPU_INPUT_ROUND_EVEN;
	tpu_model_quantize_input(m, raw, 6, q);
	ck_assert(!memcmp(q, even, 6));
	tpu_model_free(m);
}
END_TEST

static Suite *model_file_suite(void)
{
	Suite *s = suite_create("model_file");
	TCase *tc = tcase_create("model_file");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, crc32_known_value);
	tcase_add_test(tc, round_trip_and_layout);
	tcase_add_test(tc, name_padding_is_canonical);
	tcase_add_loop_test(tc, truncated_at_every_offset, 0, 2);
	tcase_add_test(tc, trailing_bytes);
	tcase_add_test(tc, every_single_bit_flip);
	tcase_add_test(tc, random_edits_with_valid_crcs);
	tcase_add_test(tc, bad_header);
	tcase_add_test(tc, bad_model_fields_in_file);
	tcase_add_test(tc, bad_layer_fields_in_file);
	tcase_add_test(tc, bad_models_in_memory);
	tcase_add_test(tc, load_and_save_errors);
	tcase_add_test(tc, layer_out_shapes);
	tcase_add_test(tc, format2_round_trip_and_layout);
	tcase_add_test(tc, format21_io_layout);
	tcase_add_test(tc, format22_int32_output);
	tcase_add_test(tc, format1_models_unchanged);
	tcase_add_test(tc, format2_refused_by_format1_reader);
	tcase_add_test(tc, format2_bad_fields);
	tcase_add_test(tc, format2_float_ratio);
	tcase_add_test(tc, format2_dilation_and_groups);
	tcase_add_test(tc, format2_pools);
	tcase_add_test(tc, input_rounding);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(model_file_suite)
