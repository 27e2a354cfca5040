/* The CLI's .npy reader and writer (sw/cli/npy.c): hand-made files in numpy's exact layout load
 * to the expected values; every malformed or unsupported file gets its specific error; every
 * dtype, version and rank round-trips; random corruption never crashes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "cli/npy.h"

#define ANY_RANK (NPY_RANK1 | NPY_RANK2)

struct tmp {
	char dir[64];
	char path[128];
};

static void tmp_init(struct tmp *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/tpu-npy-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/f.npy", t->dir);
}

static void tmp_fini(struct tmp *t)
{
	unlink(t->path);
	rmdir(t->dir);
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* A .npy image: preamble of version major.minor, the dict padded with spaces so that the data
 * starts at a multiple of 64 and ended by '\n' (as numpy writes it), then dlen data bytes. */
static size_t build(unsigned char *out, int major, int minor, const char *dict, const void *data,
		    size_t dlen)
{
	size_t pre = major == 1 ? 10 : 12;
	size_t total = (pre + strlen(dict) + 1 + 63) / 64 * 64;
	size_t hlen = total - pre;
	memcpy(out, "\x93NUMPY", 6);
	out[6] = (unsigned char)major;
	out[7] = (unsigned char)minor;
	out[8] = (unsigned char)hlen;
	out[9] = (unsigned char)(hlen >> 8);
	if (major != 1) {
		out[10] = (unsigned char)(hlen >> 16);
		out[11] = (unsigned char)(hlen >> 24);
	}
	memset(out + pre, ' ', hlen);
	memcpy(out + pre, dict, strlen(dict));
	out[total - 1] = '\n';
	if (dlen)
		memcpy(out + total, data, dlen);
	return total + dlen;
}

/* Load path and expect rc with msg in the message. */
static void expect_err(const char *path, unsigned ranks, int rc, const char *msg)
{
	struct npy_array a;
	char err[256];
	int got = npy_load(path, ranks, &a, err, sizeof(err));
	ck_assert_msg(got == rc, "expected %d (%s), got %d: %s", rc, msg, got, err);
	ck_assert_msg(strstr(err, msg), "message '%s' lacks '%s'", err, msg);
	ck_assert_msg(!strchr(err, '\n'), "message '%s' is not one line", err);
	ck_assert_ptr_null(a.data);
}

static void expect_file_err(struct tmp *t, const void *buf, size_t len, unsigned ranks, int rc,
			    const char *msg)
{
	write_bytes(t->path, buf, len);
	expect_err(t->path, ranks, rc, msg);
}

/* A dict with a 2 x 3 int32 payload (24 bytes) and the expected error. */
static void expect_dict_err(struct tmp *t, const char *dict, unsigned ranks, int rc,
			    const char *msg)
{
	unsigned char buf[1024], data[24] = {0};
	size_t len = build(buf, 1, 0, dict, data, sizeof(data));
	expect_file_err(t, buf, len, ranks, rc, msg);
}

#define I4_23 "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"

START_TEST(numpy_layout_loads)
{
	struct tmp t;
	tmp_init(&t);
	/* exactly the bytes numpy.save writes for np.array([[1,-2,3],[2**31-1,-2**31,0]], '<i4') */
	static const unsigned char data[24] = {1, 0, 0, 0,    0xfe, 0xff, 0xff, 0xff,
					       3, 0, 0, 0,    0xff, 0xff, 0xff, 0x7f,
					       0, 0, 0, 0x80, 0,    0,	  0,	0};
	unsigned char buf[256];
	size_t len = build(buf, 1, 0, I4_23, data, sizeof(data));
	ck_assert_uint_eq(len, 128 + 24);
	write_bytes(t.path, buf, len);
	struct npy_array a;
	char err[256];
	ck_assert_int_eq(npy_load(t.path, NPY_RANK2, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(a.dtype, NPY_INT32);
	ck_assert_uint_eq(a.rank, 2);
	ck_assert_uint_eq(a.shape[0], 2);
	ck_assert_uint_eq(a.shape[1], 3);
	ck_assert_uint_eq(a.count, 6);
	const int32_t want[6] = {1, -2, 3, INT32_MAX, INT32_MIN, 0};
	ck_assert_mem_eq(a.data, want, sizeof(want));
	npy_free(&a);
	ck_assert_ptr_null(a.data);
	npy_free(&a); /* twice is fine */
	tmp_fini(&t);
}
END_TEST

START_TEST(header_variants_load)
{
	static const char *dicts[] = {
	    "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i4'}",
	    "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 3)}",
	    "{ 'descr' : '<i4' ,'fortran_order':False,'shape':(2,3,), }",
	    "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }",
	    "{'descr':\t'<i4', 'fortran_order': False, 'shape': (2, 3)}\t",
	};
	struct tmp t;
	tmp_init(&t);
	for (size_t i = 0; i < sizeof(dicts) / sizeof(dicts[0]); i++) {
		unsigned char buf[256], data[24] = {7};
		size_t len = build(buf, 1, 0, dicts[i], data, sizeof(data));
		write_bytes(t.path, buf, len);
		struct npy_array a;
		char err[256];
		ck_assert_msg(npy_load(t.path, NPY_RANK2, &a, err, sizeof(err)) == 0, "%s: %s",
			      dicts[i], err);
		ck_assert_uint_eq(a.count, 6);
		ck_assert_int_eq(((int32_t *)a.data)[0], 7);
		npy_free(&a);
	}
	tmp_fini(&t);
}
END_TEST

START_TEST(unaligned_header_loads)
{
	/* old numpy aligned to 16, others not at all: the reader must not insist on 64 */
	struct tmp t;
	tmp_init(&t);
	const char *dict = "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }\n";
	unsigned char buf[128];
	size_t hlen = strlen(dict);
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)hlen;
	buf[9] = 0;
	memcpy(buf + 10, dict, hlen);
	memcpy(buf + 10 + hlen, "\x01\x80\x7f", 3);
	write_bytes(t.path, buf, 13 + hlen);
	struct npy_array a;
	char err[256];
	ck_assert_int_eq(npy_load(t.path, NPY_RANK1, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(a.dtype, NPY_INT8);
	ck_assert_int_eq(((int8_t *)a.data)[1], -128);
	ck_assert_int_eq(((int8_t *)a.data)[2], 127);
	npy_free(&a);
	tmp_fini(&t);
}
END_TEST

START_TEST(preamble_errors)
{
	struct tmp t;
	tmp_init(&t);
	unsigned char buf[256], data[24] = {0};
	size_t len = build(buf, 1, 0, I4_23, data, sizeof(data));

	expect_file_err(&t, "", 0, ANY_RANK, -EINVAL, "bad magic");
	expect_file_err(&t, "\x93NUMPX\x01\x00", 8, ANY_RANK, -EINVAL, "bad magic");
	expect_file_err(&t, "PK\x03\x04", 4, ANY_RANK, -EINVAL, "bad magic");
	expect_file_err(&t, "\x93NUMPY", 6, ANY_RANK, -EINVAL, "truncated");
	expect_file_err(&t, "\x93NUMPY\x01\x00\x10", 9, ANY_RANK, -EINVAL, "truncated");

	buf[6] = 4;
	expect_file_err(&t, buf, len, ANY_RANK, -EINVAL, "unsupported format version 4.0");
	buf[6] = 1;
	buf[7] = 1;
	expect_file_err(&t, buf, len, ANY_RANK, -EINVAL, "unsupported format version 1.1");
	buf[7] = 0;

	buf[8] = 0;
	buf[9] = 0;
	expect_file_err(&t, buf, len, ANY_RANK, -EINVAL, "bad header length 0");
	buf[8] = 0xff;
	buf[9] = 0x7f; /* 32767: past the end of the file */
	expect_file_err(&t, buf, len, ANY_RANK, -EINVAL, "bad header length 32767");
	tmp_fini(&t);

	/* version 2 with a 4 GiB header length */
	tmp_init(&t);
	len = build(buf, 2, 0, I4_23, data, sizeof(data));
	memcpy(buf + 8, "\xff\xff\xff\xff", 4);
	expect_file_err(&t, buf, len, ANY_RANK, -EINVAL, "bad header length 4294967295");
	tmp_fini(&t);
}
END_TEST

START_TEST(header_syntax_errors)
{
	struct tmp t;
	tmp_init(&t);
	unsigned char buf[256], data[24] = {0};
	size_t len = build(buf, 1, 0, I4_23, data, sizeof(data));
	buf[127] = ' '; /* the header's final newline */
	expect_file_err(&t, buf, len, ANY_RANK, -EINVAL, "does not end with a newline");

	expect_dict_err(&t, "hello", ANY_RANK, -EINVAL, "does not start with '{'");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False}", ANY_RANK, -EINVAL,
			"missing key 'shape'");
	expect_dict_err(&t, "{'fortran_order': False, 'shape': (2, 3)}", ANY_RANK, -EINVAL,
			"missing key 'descr'");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}",
			ANY_RANK, -EINVAL, "unexpected key 'x'");
	expect_dict_err(&t,
			"{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, "
			"'shape': (2, 3)}",
			ANY_RANK, -EINVAL, "duplicate key 'descr'");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': 0, 'shape': (2, 3)}", ANY_RANK,
			-EINVAL, "True or False");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': Falsey, 'shape': (2, 3)}", ANY_RANK,
			-EINVAL, "True or False");
	expect_dict_err(&t, "{'descr': '<i4' 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-EINVAL, "expected ',' or '}'");
	expect_dict_err(&t, "{'descr' '<i4', 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-EINVAL, "expected ':' after 'descr'");
	expect_dict_err(&t, "{'descr': '<i4, 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-EINVAL, "header:");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)", ANY_RANK,
			-EINVAL, "expected ',' or '}'");
	expect_dict_err(&t, "{'descr': '\\x3ci4', 'fortran_order': False, 'shape': (2, 3)}",
			ANY_RANK, -EINVAL, "escape");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)} junk",
			ANY_RANK, -EINVAL, "unexpected text after the dict");
	expect_dict_err(&t, "{'descr': <i4, 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-EINVAL, "expected a quoted string");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': [2, 3]}", ANY_RANK,
			-EINVAL, "must be a tuple");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (6)}", ANY_RANK,
			-EINVAL, "not a tuple");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (2 3)}", ANY_RANK,
			-EINVAL, "expected ',' or ')'");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, -3)}", ANY_RANK,
			-EINVAL, "negative dimension");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3.0)}", ANY_RANK,
			-EINVAL, "expected ',' or ')'");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (02, 3)}", ANY_RANK,
			-EINVAL, "leading zero");
	tmp_fini(&t);
}
END_TEST

START_TEST(unsupported_content)
{
	struct tmp t;
	tmp_init(&t);
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3)}", ANY_RANK,
			-ENOTSUP, "fortran_order: True is not supported");
	expect_dict_err(&t, "{'descr': '>i4', 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-ENOTSUP, "big-endian");
	expect_dict_err(&t, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-ENOTSUP, "big-endian");
	expect_dict_err(&t, "{'descr': '>u2', 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-ENOTSUP, "big-endian");
	expect_dict_err(&t, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,)}", ANY_RANK,
			-ENOTSUP, "'<f2' not supported");
	expect_dict_err(&t, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", ANY_RANK,
			-ENOTSUP, "'<f8' not supported");
	expect_dict_err(&t, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,)}", ANY_RANK,
			-ENOTSUP, "'<i8' not supported");
	expect_dict_err(&t, "{'descr': '|i4', 'fortran_order': False, 'shape': (2, 3)}", ANY_RANK,
			-ENOTSUP, "'|i4' not supported");
	expect_dict_err(&t, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (6,)}",
			ANY_RANK, -ENOTSUP, "structured");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2, 3)}",
			NPY_RANK2, -ENOTSUP, "(1, 2, 3) is 3-D; expected 2-D");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': ()}", ANY_RANK,
			-ENOTSUP, "() is 0-D; expected 1-D or 2-D");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (6,)}", NPY_RANK2,
			-ENOTSUP, "(6,) is 1-D; expected 2-D");
	expect_dict_err(&t, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}", NPY_RANK1,
			-ENOTSUP, "(2, 3) is 2-D; expected 1-D");
	tmp_fini(&t);
}
END_TEST

START_TEST(shape_overflow)
{
	struct tmp t;
	tmp_init(&t);
	expect_dict_err(&t,
			"{'descr': '|i1', 'fortran_order': False, 'shape': (1099511627776, "
			"1099511627776)}",
			ANY_RANK, -EOVERFLOW, "more than");
	/* 65536 x 32769 = 2^31 + 65536 elements: just over the limit */
	expect_dict_err(&t, "{'descr': '|i1', 'fortran_order': False, 'shape': (65536, 32769)}",
			ANY_RANK, -EOVERFLOW, "2^31");
	expect_dict_err(&t,
			"{'descr': '|i1', 'fortran_order': False, 'shape': "
			"(99999999999999999999999,)}",
			ANY_RANK, -EOVERFLOW, "2^64");
	/* 2^31 elements exactly is allowed by the shape, so this one fails on the data */
	expect_dict_err(&t, "{'descr': '|i1', 'fortran_order': False, 'shape': (65536, 32768)}",
			ANY_RANK, -EINVAL, "truncated data");
	tmp_fini(&t);
}
END_TEST

START_TEST(data_size_errors)
{
	struct tmp t;
	tmp_init(&t);
	unsigned char buf[256], data[25] = {0};
	size_t len = build(buf, 1, 0, I4_23, data, 24);
	expect_file_err(&t, buf, len - 1, ANY_RANK, -EINVAL, "truncated data");
	expect_file_err(&t, buf, len - 24, ANY_RANK, -EINVAL, "needs 24 bytes, the file has 0");
	len = build(buf, 1, 0, I4_23, data, 25);
	expect_file_err(&t, buf, len, ANY_RANK, -EINVAL, "trailing data: 1 bytes");
	tmp_fini(&t);
}
END_TEST

START_TEST(file_errors)
{
	struct tmp t;
	tmp_init(&t);
	expect_err(t.path, ANY_RANK, -ENOENT, "cannot open");
	expect_err(t.dir, ANY_RANK, -EISDIR, "directory");
	struct npy_array a = {.rank = 1, .shape = {1, 1}, .count = 1};
	int8_t one = 1;
	a.data = &one;
	char err[256], bad[200];
	snprintf(bad, sizeof(bad), "%s/no/such/dir.npy", t.dir);
	ck_assert_int_eq(npy_save(bad, &a, 0, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "cannot create"));
	ck_assert_int_eq(npy_save(t.path, &a, 4, err, sizeof(err)), -EINVAL);
	a.count = 2;
	ck_assert_int_eq(npy_save(t.path, &a, 1, err, sizeof(err)), -EOVERFLOW);
	/* a tiny message buffer is truncated, never overrun */
	char small[8];
	ck_assert_int_eq(npy_load(t.path, ANY_RANK, &a, small, sizeof(small)), -ENOENT);
	ck_assert_uint_eq(strlen(small), 7);
	ck_assert_int_eq(npy_load(t.path, ANY_RANK, &a, NULL, 0), -ENOENT);
	tmp_fini(&t);
}
END_TEST

/* Every dtype x version x rank: save, check the header numpy expects, load, compare. */
START_TEST(round_trip)
{
	static const enum npy_dtype dtypes[] = {NPY_INT8, NPY_UINT8, NPY_INT32, NPY_FLOAT32,
						NPY_UINT16};
	static const char *descr[] = {"'descr': '|i1'", "'descr': '|u1'", "'descr': '<i4'",
				      "'descr': '<f4'", "'descr': '<u2'"};
	uint64_t st = harness_seed() ^ 0x4e5059;
	struct tmp t;
	tmp_init(&t);
	for (size_t d = 0; d < 5; d++) {
		for (int version = 1; version <= 3; version++) {
			for (unsigned rank = 1; rank <= 2; rank++) {
				struct npy_array a = {.dtype = dtypes[d], .rank = rank};
				a.shape[0] = (size_t)harness_range(&st, 1, 40);
				a.shape[1] = rank == 2 ? (size_t)harness_range(&st, 1, 40) : 1;
				a.count = a.shape[0] * a.shape[1];
				size_t bytes = a.count * npy_dtype_size(a.dtype);
				unsigned char *src = malloc(bytes);
				ck_assert_ptr_nonnull(src);
				for (size_t i = 0; i < bytes; i++)
					src[i] = (unsigned char)harness_rand(&st);
				if (a.dtype == NPY_FLOAT32) /* avoid NaN payloads: compare values */
					for (size_t i = 0; i < a.count; i++)
						((float *)(void *)src)[i] =
						    (float)harness_range(&st, -1000, 1000) / 8;
				a.data = src;
				char err[256];
				ck_assert_msg(npy_save(t.path, &a, version, err, sizeof(err)) == 0,
					      "%s", err);

				unsigned char head[512];
				FILE *f = fopen(t.path, "rb");
				ck_assert_ptr_nonnull(f);
				size_t got = fread(head, 1, sizeof(head), f);
				fclose(f);
				ck_assert_uint_ge(got, 64);
				ck_assert_int_eq(memcmp(head, "\x93NUMPY", 6), 0);
				ck_assert_int_eq(head[6], version);
				ck_assert_int_eq(head[7], 0);
				size_t pre = version == 1 ? 10 : 12;
				size_t hlen = head[8] | head[9] << 8;
				if (version != 1)
					hlen |= (size_t)head[10] << 16 | (size_t)head[11] << 24;
				ck_assert_uint_eq((pre + hlen) % 64, 0);
				ck_assert_int_eq(head[pre + hlen - 1], '\n');
				char text[256] = {0};
				memcpy(text, head + pre, hlen < 255 ? hlen : 255);
				ck_assert_ptr_nonnull(strstr(text, descr[d]));
				ck_assert_ptr_nonnull(strstr(text, "'fortran_order': False"));

				struct npy_array b;
				ck_assert_msg(npy_load(t.path, ANY_RANK, &b, err, sizeof(err)) == 0,
					      "%s", err);
				ck_assert_int_eq(b.dtype, a.dtype);
				ck_assert_uint_eq(b.rank, rank);
				ck_assert_uint_eq(b.shape[0], a.shape[0]);
				ck_assert_uint_eq(b.shape[1], a.shape[1]);
				ck_assert_mem_eq(b.data, a.data, bytes);
				if (a.dtype == NPY_INT32 || a.dtype == NPY_UINT16) /* little-endian */
					ck_assert_int_eq(head[pre + hlen], src[0]);
				npy_free(&b);
				free(src);
			}
		}
	}
	tmp_fini(&t);
}
END_TEST

START_TEST(empty_array)
{
	struct tmp t;
	tmp_init(&t);
	unsigned char buf[256];
	size_t len =
	    build(buf, 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (0, 3)}", NULL, 0);
	write_bytes(t.path, buf, len);
	struct npy_array a;
	char err[256];
	ck_assert_int_eq(npy_load(t.path, NPY_RANK2, &a, err, sizeof(err)), 0);
	ck_assert_uint_eq(a.count, 0);
	ck_assert_uint_eq(a.shape[0], 0);
	ck_assert_ptr_nonnull(a.data);
	npy_free(&a);
	tmp_fini(&t);
}
END_TEST

/* Random corruption of a valid file: the loader must return cleanly every time. */
START_TEST(corruption_never_crashes)
{
	uint64_t st = harness_seed() ^ 0x435252;
	struct tmp t;
	tmp_init(&t);
	unsigned char good[256], buf[256], data[24] = {0};
	size_t len = build(good, 1, 0, I4_23, data, sizeof(data));
	int ok = 0, bad = 0;
	for (int i = 0; i < 1000; i++) {
		memcpy(buf, good, len);
		int flips = (int)harness_range(&st, 1, 4);
		for (int f = 0; f < flips; f++)
			buf[harness_range(&st, 0, (int64_t)len - 1)] =
			    (unsigned char)harness_rand(&st);
		size_t cut =
		    harness_rand(&st) % 4 ? len : (size_t)harness_range(&st, 0, (int64_t)len);
		write_bytes(t.path, buf, cut);
		struct npy_array a;
		char err[256] = "unset";
		int rc = npy_load(t.path, ANY_RANK, &a, err, sizeof(err));
		if (rc == 0) {
			ok++;
			ck_assert_uint_le(a.count * npy_dtype_size(a.dtype), 24);
			npy_free(&a);
		} else {
			bad++;
			ck_assert_int_lt(rc, 0);
			ck_assert_msg(err[0] && strcmp(err, "unset"), "no message for rc %d", rc);
		}
	}
	ck_assert_int_gt(bad, 0);
	tmp_fini(&t);
	(void)ok;
}
END_TEST

TPU_TEST_SUITE(suite_npy)
static Suite *suite_npy(void)
{
	Suite *s = suite_create("npy");
	TCase *tc = tcase_create("load");
	tcase_add_test(tc, numpy_layout_loads);
	tcase_add_test(tc, header_variants_load);
	tcase_add_test(tc, unaligned_header_loads);
	tcase_add_test(tc, empty_array);
	tcase_add_test(tc, round_trip);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("errors");
	tcase_set_timeout(te, 30); /* thousands of small files: slow on a loaded CI disk */
	tcase_add_test(te, preamble_errors);
	tcase_add_test(te, header_syntax_errors);
	tcase_add_test(te, unsupported_content);
	tcase_add_test(te, shape_overflow);
	tcase_add_test(te, data_size_errors);
	tcase_add_test(te, file_errors);
	tcase_add_test(te, corruption_never_crashes);
	suite_add_tcase(s, te);
	return s;
}
