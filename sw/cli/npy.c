/* NumPy .npy reader and writer; see npy.h for the contract.
 *
 * Format (numpy/lib/format.py): "\x93NUMPY", major, minor, header length (uint16 LE for 1.0,
 * uint32 LE for 2.0 and 3.0), then the header: a Python dict literal with the keys 'descr',
 * 'fortran_order' and 'shape', padded with spaces and ended by '\n', then the raw data.
 * The reader parses that literal itself (no general Python evaluator): exactly the three keys,
 * in any order, string values in single or double quotes without escapes, True/False, a tuple
 * of non-negative integers (a one-element tuple needs its comma, as in Python).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "tpu/outfile.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_MAX_DIMS 32

/* Everything the header says, before it is checked against what this reader supports. */
struct npy_header {
	char descr[40];
	bool fortran;
	unsigned ndim;
	unsigned long long dims[NPY_MAX_DIMS];
	bool have_descr, have_fortran, have_shape;
};

struct cursor {
	const char *p;
	const char *end;
};

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errlen, int code,
						      const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

size_t npy_dtype_size(enum npy_dtype dtype)
{
	return dtype == NPY_INT32 || dtype == NPY_FLOAT32 ? 4 : dtype == NPY_UINT16 ? 2 : 1;
}

const char *npy_dtype_name(enum npy_dtype dtype)
{
	switch (dtype) {
	case NPY_INT8:
		return "int8 ('|i1')";
	case NPY_UINT8:
		return "uint8 ('|u1')";
	case NPY_INT32:
		return "int32 ('<i4')";
	case NPY_FLOAT32:
		return "float32 ('<f4')";
	case NPY_UINT16:
		return "uint16 ('<u2')";
	}
	return "unknown dtype";
}

/* The descr numpy writes for each dtype. */
static const char *dtype_descr(enum npy_dtype dtype)
{
	switch (dtype) {
	case NPY_INT8:
		return "|i1";
	case NPY_UINT8:
		return "|u1";
	case NPY_INT32:
		return "<i4";
	case NPY_FLOAT32:
		return "<f4";
	case NPY_UINT16:
		return "<u2";
	}
	return NULL;
}

static void dims_str(const unsigned long long *dims, unsigned ndim, char *buf, size_t len)
{
	size_t used = 0;
	int n = snprintf(buf, len, "(");
	used = n > 0 ? (size_t)n : 0;
	for (unsigned i = 0; i < ndim && used < len; i++) {
		n = snprintf(buf + used, len - used, "%s%llu", i ? ", " : "", dims[i]);
		used += n > 0 ? (size_t)n : 0;
	}
	if (used < len)
		snprintf(buf + used, len - used, ndim == 1 ? ",)" : ")");
}

char *npy_shape_str(const struct npy_array *a, char *buf, size_t len)
{
	unsigned long long dims[NPY_MAX_RANK];
	unsigned rank = a->rank <= NPY_MAX_RANK ? a->rank : NPY_MAX_RANK;
	for (unsigned i = 0; i < rank; i++)
		dims[i] = a->shape[i];
	dims_str(dims, rank, buf, len);
	return buf;
}

/* ---------------------------------------------------------------- header parser */

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool eat(struct cursor *c, char ch)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* A quoted string without escapes into out (outlen bytes). */
static int parse_string(struct cursor *c, char *out, size_t outlen, const char *what, char *err,
			size_t errlen)
{
	skip_ws(c);
	if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
		return fail(err, errlen, -EINVAL, "header: expected a quoted string for %s", what);
	char quote = *c->p++;
	size_t n = 0;
	while (c->p < c->end && *c->p != quote) {
		unsigned char ch = (unsigned char)*c->p;
		if (ch == '\\')
			return fail(err, errlen, -EINVAL,
				    "header: escape sequences in %s are not supported", what);
		if (ch < 0x20 || ch > 0x7e)
			return fail(err, errlen, -EINVAL, "header: non-printable byte 0x%02x in %s",
				    ch, what);
		if (n + 1 >= outlen)
			return fail(err, errlen, -EINVAL, "header: %s longer than %zu characters",
				    what, outlen - 1);
		out[n++] = (char)ch;
		c->p++;
	}
	if (c->p >= c->end)
		return fail(err, errlen, -EINVAL, "header: unterminated string in %s", what);
	c->p++;
	out[n] = '\0';
	return 0;
}

static int parse_bool(struct cursor *c, bool *out, char *err, size_t errlen)
{
	skip_ws(c);
	size_t left = (size_t)(c->end - c->p);
	if (left >= 4 && !memcmp(c->p, "True", 4)) {
		c->p += 4;
		*out = true;
	} else if (left >= 5 && !memcmp(c->p, "False", 5)) {
		c->p += 5;
		*out = false;
	} else {
		return fail(err, errlen, -EINVAL, "header: 'fortran_order' must be True or False");
	}
	/* "Falsey" is not False */
	if (c->p < c->end && ((*c->p >= 'a' && *c->p <= 'z') || (*c->p >= 'A' && *c->p <= 'Z') ||
			      (*c->p >= '0' && *c->p <= '9') || *c->p == '_'))
		return fail(err, errlen, -EINVAL, "header: 'fortran_order' must be True or False");
	return 0;
}

/* A non-negative decimal integer (Python 2 writers may add an 'L'). */
static int parse_dim(struct cursor *c, unsigned long long *out, char *err, size_t errlen)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == '-')
		return fail(err, errlen, -EINVAL, "header: negative dimension in 'shape'");
	if (c->p >= c->end || *c->p < '0' || *c->p > '9')
		return fail(err, errlen, -EINVAL, "header: expected an integer in 'shape'");
	const char *start = c->p;
	unsigned long long v = 0;
	bool overflow = false;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (v > (~0ull - d) / 10)
			overflow = true;
		else
			v = v * 10 + d;
		c->p++;
	}
	if (c->p - start > 1 && *start == '0')
		return fail(err, errlen, -EINVAL, "header: integer with a leading zero in 'shape'");
	if (c->p < c->end && *c->p == 'L')
		c->p++;
	if (overflow)
		return fail(err, errlen, -EOVERFLOW,
			    "shape: a dimension exceeds 2^64 - 1 (at most %zu elements)",
			    NPY_MAX_ELEMS);
	*out = v;
	return 0;
}

static int parse_shape(struct cursor *c, struct npy_header *h, char *err, size_t errlen)
{
	if (!eat(c, '('))
		return fail(err, errlen, -EINVAL, "header: 'shape' must be a tuple like (3, 4)");
	h->ndim = 0;
	if (eat(c, ')'))
		return 0;
	bool comma = false;
	for (;;) {
		if (h->ndim == NPY_MAX_DIMS)
			return fail(err, errlen, -ENOTSUP, "shape: more than %d dimensions",
				    NPY_MAX_DIMS);
		int rc = parse_dim(c, &h->dims[h->ndim++], err, errlen);
		if (rc)
			return rc;
		comma = eat(c, ',');
		if (eat(c, ')'))
			break;
		if (!comma)
			return fail(err, errlen, -EINVAL, "header: expected ',' or ')' in 'shape'");
	}
	if (h->ndim == 1 && !comma)
		return fail(err, errlen, -EINVAL,
			    "header: 'shape' (%llu) is not a tuple; a 1-D shape is written (%llu,)",
			    h->dims[0], h->dims[0]);
	return 0;
}

static int parse_entry(struct cursor *c, struct npy_header *h, char *err, size_t errlen)
{
	char key[32];
	int rc = parse_string(c, key, sizeof(key), "a key", err, errlen);
	if (rc)
		return rc;
	if (!eat(c, ':'))
		return fail(err, errlen, -EINVAL, "header: expected ':' after '%s'", key);
	bool *seen;
	if (!strcmp(key, "descr")) {
		seen = &h->have_descr;
	} else if (!strcmp(key, "fortran_order")) {
		seen = &h->have_fortran;
	} else if (!strcmp(key, "shape")) {
		seen = &h->have_shape;
	} else {
		return fail(err, errlen, -EINVAL,
			    "header: unexpected key '%s' (only 'descr', 'fortran_order', 'shape')",
			    key);
	}
	if (*seen)
		return fail(err, errlen, -EINVAL, "header: duplicate key '%s'", key);
	*seen = true;
	if (seen == &h->have_descr) {
		skip_ws(c);
		if (c->p < c->end && (*c->p == '[' || *c->p == '{'))
			return fail(err, errlen, -ENOTSUP,
				    "dtype: structured dtypes are not supported (int8 '|i1', uint8 "
				    "'|u1', uint16 '<u2', int32 '<i4', float32 '<f4' are)");
		return parse_string(c, h->descr, sizeof(h->descr), "'descr'", err, errlen);
	}
	if (seen == &h->have_fortran)
		return parse_bool(c, &h->fortran, err, errlen);
	return parse_shape(c, h, err, errlen);
}

/* Parse the header text (hlen bytes, the last one '\n'). */
static int parse_header(const char *text, size_t hlen, struct npy_header *h, char *err,
			size_t errlen)
{
	memset(h, 0, sizeof(*h));
	if (hlen == 0 || text[hlen - 1] != '\n')
		return fail(err, errlen, -EINVAL, "header: does not end with a newline");
	struct cursor c = {text, text + hlen - 1};
	if (!eat(&c, '{'))
		return fail(err, errlen, -EINVAL, "header: does not start with '{'");
	if (!eat(&c, '}')) {
		for (;;) {
			int rc = parse_entry(&c, h, err, errlen);
			if (rc)
				return rc;
			bool comma = eat(&c, ',');
			if (eat(&c, '}'))
				break;
			if (!comma)
				return fail(err, errlen, -EINVAL, "header: expected ',' or '}'");
		}
	}
	/* padding: spaces only, up to the final newline */
	skip_ws(&c);
	if (c.p != c.end)
		return fail(err, errlen, -EINVAL, "header: unexpected text after the dict");
	if (!h->have_descr || !h->have_fortran || !h->have_shape)
		return fail(err, errlen, -EINVAL, "header: missing key '%s'",
			    !h->have_descr     ? "descr"
			    : !h->have_fortran ? "fortran_order"
					       : "shape");
	return 0;
}

static int check_descr(const char *descr, enum npy_dtype *out, char *err, size_t errlen)
{
	static const struct {
		const char *descr;
		enum npy_dtype dtype;
	} ok[] = {
	    {"|i1", NPY_INT8},	{"<i1", NPY_INT8},  {"|u1", NPY_UINT8},
	    {"<u1", NPY_UINT8}, {"<i4", NPY_INT32}, {"<f4", NPY_FLOAT32},
	    {"<u2", NPY_UINT16},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (!strcmp(descr, ok[i].descr)) {
			*out = ok[i].dtype;
			return 0;
		}
	}
	if (descr[0] == '>' &&
	    (!strcmp(descr + 1, "i4") || !strcmp(descr + 1, "f4") || !strcmp(descr + 1, "u2")))
		return fail(err, errlen, -ENOTSUP,
			    "dtype: '%s' is big-endian; only little-endian ('<') data is supported",
			    descr);
	return fail(err, errlen, -ENOTSUP,
		    "dtype: '%s' not supported (int8 '|i1', uint8 '|u1', uint16 '<u2', int32 '<i4', "
		    "float32 '<f4' are)",
		    descr);
}

/* "2-D", "1-D or 2-D", "2-D, 3-D or 4-D": the ranks in the mask, for messages. */
static const char *rank_names(unsigned ranks, char *buf, size_t len)
{
	unsigned n = 0, total = 0;
	size_t used = 0;
	for (unsigned r = 1; r <= NPY_MAX_RANK; r++)
		total += !!(ranks & (1u << r));
	buf[0] = '\0';
	for (unsigned r = 1; r <= NPY_MAX_RANK && used < len; r++) {
		if (!(ranks & (1u << r)))
			continue;
		n++;
		int k = snprintf(buf + used, len - used, "%s%u-D",
				 n == 1	      ? ""
				 : n == total ? " or "
					      : ", ",
				 r);
		used += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* Turn a parsed header into the array description; checks everything but the data. */
static int check_header(const struct npy_header *h, unsigned ranks, struct npy_array *a, char *err,
			size_t errlen)
{
	char shape[128];
	int rc = check_descr(h->descr, &a->dtype, err, errlen);
	if (rc)
		return rc;
	if (h->fortran)
		return fail(err, errlen, -ENOTSUP,
			    "fortran_order: True is not supported; save a C-order array "
			    "(numpy.ascontiguousarray)");
	dims_str(h->dims, h->ndim, shape, sizeof(shape));
	unsigned long long count = 1;
	bool overflow = false;
	for (unsigned i = 0; i < h->ndim; i++)
		if (__builtin_mul_overflow(count, h->dims[i], &count))
			overflow = true;
	if (overflow || count > NPY_MAX_ELEMS || count > SIZE_MAX / 4)
		return fail(err, errlen, -EOVERFLOW, "shape: %s has more than %zu (2^31) elements",
			    shape, NPY_MAX_ELEMS);
	char names[48];
	if (h->ndim < 1 || h->ndim > NPY_MAX_RANK || !(ranks & (1u << h->ndim)))
		return fail(err, errlen, -ENOTSUP, "shape: %s is %u-D; expected %s", shape, h->ndim,
			    rank_names(ranks, names, sizeof(names)));
	a->rank = h->ndim;
	for (unsigned i = 0; i < NPY_MAX_RANK; i++)
		a->shape[i] = i < h->ndim ? (size_t)h->dims[i] : 1;
	a->count = (size_t)count;
	return 0;
}

/* ---------------------------------------------------------------- byte order */

static uint32_t get_le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put_le32(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
	b[2] = (unsigned char)(v >> 16);
	b[3] = (unsigned char)(v >> 24);
}

/* ---------------------------------------------------------------- load */

/* Read exactly len bytes; returns the count read (short only at end of file or error). */
static size_t read_full(FILE *f, void *buf, size_t len)
{
	return len ? fread(buf, 1, len, f) : 0;
}

static int read_preamble(FILE *f, unsigned *major, size_t *hlen, size_t *pre, char *err,
			 size_t errlen)
{
	unsigned char b[12];
	size_t got = read_full(f, b, 8);
	if (ferror(f))
		return fail(err, errlen, -EIO, "read error: %s", strerror(errno));
	if (got < NPY_MAGIC_LEN || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN))
		return fail(err, errlen, -EINVAL,
			    "not a .npy file: bad magic (expected \\x93NUMPY)");
	if (got < 8)
		return fail(err, errlen, -EINVAL, "truncated: file ends inside the preamble");
	if ((b[6] != 1 && b[6] != 2 && b[6] != 3) || b[7] != 0)
		return fail(err, errlen, -EINVAL,
			    "unsupported format version %u.%u (1.0, 2.0 and 3.0 are)", b[6], b[7]);
	*major = b[6];
	size_t lenbytes = *major == 1 ? 2 : 4;
	if (read_full(f, b + 8, lenbytes) != lenbytes)
		return fail(err, errlen, -EINVAL, "truncated: file ends inside the preamble");
	*hlen = lenbytes == 2 ? (size_t)(b[8] | b[9] << 8) : (size_t)get_le32(b + 8);
	*pre = 8 + lenbytes;
	if (*hlen < 2 || *hlen > NPY_MAX_HEADER)
		return fail(err, errlen, -EINVAL, "bad header length %zu (2..%u)", *hlen,
			    NPY_MAX_HEADER);
	return 0;
}

/* Convert count little-endian elements in place to host order. */
static void le_to_host(struct npy_array *a)
{
	unsigned char *b = a->data;

	if (npy_dtype_size(a->dtype) == 2) {
		for (size_t i = 0; i < a->count; i++) {
			uint16_t v = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
			memcpy(b + 2 * i, &v, 2);
		}
		return;
	}
	if (npy_dtype_size(a->dtype) != 4)
		return;
	for (size_t i = 0; i < a->count; i++) {
		uint32_t v = get_le32(b + 4 * i);
		memcpy(b + 4 * i, &v, 4);
	}
}

static int load_file(FILE *f, unsigned ranks, struct npy_array *a, char *err, size_t errlen)
{
	struct stat st;
	bool sized = false;
	if (fstat(fileno(f), &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return fail(err, errlen, -EISDIR, "is a directory");
		sized = S_ISREG(st.st_mode);
	}
	unsigned major = 0;
	size_t hlen = 0, pre = 0;
	int rc = read_preamble(f, &major, &hlen, &pre, err, errlen);
	if (rc)
		return rc;
	if (sized && (unsigned long long)st.st_size < pre + hlen)
		return fail(err, errlen, -EINVAL,
			    "bad header length %zu: only %llu bytes follow the preamble", hlen,
			    (unsigned long long)st.st_size - pre);
	char *text = malloc(hlen);
	if (!text)
		return fail(err, errlen, -ENOMEM, "out of memory");
	if (read_full(f, text, hlen) != hlen) {
		free(text);
		return fail(err, errlen, -EINVAL, "bad header length %zu: the file ends first",
			    hlen);
	}
	struct npy_header h;
	rc = parse_header(text, hlen, &h, err, errlen);
	free(text);
	if (rc)
		return rc;
	rc = check_header(&h, ranks, a, err, errlen);
	if (rc)
		return rc;

	char shape[128];
	size_t bytes = a->count * npy_dtype_size(a->dtype);
	unsigned long long have = sized ? (unsigned long long)st.st_size - pre - hlen : 0;
	if (sized && have < bytes)
		return fail(err, errlen, -EINVAL,
			    "truncated data: shape %s of %s needs %zu bytes, the file has %llu",
			    npy_shape_str(a, shape, sizeof(shape)), npy_dtype_name(a->dtype), bytes,
			    have);
	if (sized && have > bytes)
		return fail(err, errlen, -EINVAL,
			    "trailing data: %llu bytes after the %zu of shape %s", have - bytes,
			    bytes, npy_shape_str(a, shape, sizeof(shape)));
	a->data = malloc(bytes ? bytes : 1);
	if (!a->data)
		return fail(err, errlen, -ENOMEM, "out of memory for %zu bytes", bytes);
	size_t got = read_full(f, a->data, bytes);
	if (got != bytes) {
		rc = ferror(f) ? fail(err, errlen, -EIO, "read error: %s", strerror(errno))
			       : fail(err, errlen, -EINVAL,
				      "truncated data: shape %s of %s needs %zu bytes, the file "
				      "has %zu",
				      npy_shape_str(a, shape, sizeof(shape)),
				      npy_dtype_name(a->dtype), bytes, got);
		goto out_free;
	}
	if (fgetc(f) != EOF) {
		rc = fail(err, errlen, -EINVAL, "trailing data after the %zu bytes of shape %s",
			  bytes, npy_shape_str(a, shape, sizeof(shape)));
		goto out_free;
	}
	le_to_host(a);
	return 0;

out_free:
	free(a->data);
	a->data = NULL;
	return rc;
}

int npy_load(const char *path, unsigned ranks, struct npy_array *out, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return fail(err, errlen, -EINVAL, "no output array");
	memset(out, 0, sizeof(*out));
	if (!path)
		return fail(err, errlen, -EINVAL, "no file name");
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		return fail(err, errlen, -e, "cannot open: %s", strerror(e));
	}
	struct npy_array a = {0};
	int rc = load_file(f, ranks, &a, err, errlen);
	fclose(f);
	if (rc == 0)
		*out = a;
	return rc;
}

void npy_free(struct npy_array *a)
{
	if (!a)
		return;
	free(a->data);
	memset(a, 0, sizeof(*a));
}

/* ---------------------------------------------------------------- save */

/* Build preamble + header (padded to NPY_ALIGN) into buf; returns its length or 0. */
static size_t build_header(const struct npy_array *a, int version, char *buf, size_t len)
{
	char dict[200];
	char shape[128];
	int n =
	    snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
		     dtype_descr(a->dtype), npy_shape_str(a, shape, sizeof(shape)));
	if (n < 0 || (size_t)n >= sizeof(dict))
		return 0;
	size_t pre = version == 1 ? 10 : 12;
	size_t total = pre + (size_t)n + 1;
	total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
	if (total > len)
		return 0;
	size_t hlen = total - pre;
	memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
	buf[6] = (char)version;
	buf[7] = 0;
	if (version == 1) {
		buf[8] = (char)(hlen & 0xff);
		buf[9] = (char)(hlen >> 8);
	} else {
		put_le32((unsigned char *)buf + 8, (uint32_t)hlen);
	}
	memcpy(buf + pre, dict, (size_t)n);
	memset(buf + pre + n, ' ', total - pre - (size_t)n - 1);
	buf[total - 1] = '\n';
	return total;
}

static int write_data(struct tpu_outfile *f, const struct npy_array *a)
{
	if (npy_dtype_size(a->dtype) == 1)
		return tpu_outfile_put(f, a->data, a->count);
	unsigned char chunk[4096];
	const unsigned char *src = a->data;
	size_t done = 0;
	if (npy_dtype_size(a->dtype) == 2) {
		while (done < a->count) {
			size_t k = a->count - done < sizeof(chunk) / 2 ? a->count - done
								       : sizeof(chunk) / 2;
			for (size_t i = 0; i < k; i++) {
				uint16_t v;
				memcpy(&v, src + 2 * (done + i), 2);
				chunk[2 * i] = (unsigned char)v;
				chunk[2 * i + 1] = (unsigned char)(v >> 8);
			}
			int rc = tpu_outfile_put(f, chunk, 2 * k);
			if (rc)
				return rc;
			done += k;
		}
		return 0;
	}
	while (done < a->count) {
		size_t k =
		    a->count - done < sizeof(chunk) / 4 ? a->count - done : sizeof(chunk) / 4;
		for (size_t i = 0; i < k; i++) {
			uint32_t v;
			memcpy(&v, src + 4 * (done + i), 4);
			put_le32(chunk + 4 * i, v);
		}
		int rc = tpu_outfile_put(f, chunk, 4 * k);
		if (rc)
			return rc;
		done += k;
	}
	return 0;
}

int npy_save(const char *path, const struct npy_array *a, int version, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!path || !a)
		return fail(err, errlen, -EINVAL, "no file name or array");
	if (version == 0)
		version = 1;
	if (version < 1 || version > 3)
		return fail(err, errlen, -EINVAL, "format version %d (1, 2 or 3)", version);
	if (a->rank < 1 || a->rank > NPY_MAX_RANK || !dtype_descr(a->dtype))
		return fail(err, errlen, -EINVAL, "array: rank %u or dtype %d not supported",
			    a->rank, (int)a->dtype);
	unsigned long long count = 1;
	for (unsigned i = 0; i < a->rank; i++)
		if (__builtin_mul_overflow(count, (unsigned long long)a->shape[i], &count))
			return fail(err, errlen, -EOVERFLOW, "array: shape overflows");
	if (count != a->count || count > NPY_MAX_ELEMS)
		return fail(err, errlen, -EOVERFLOW,
			    "array: count %zu does not match the shape or exceeds 2^31", a->count);
	if (a->count && !a->data)
		return fail(err, errlen, -EINVAL, "array: no data");

	char head[256];
	size_t hbytes = build_header(a, version, head, sizeof(head));
	if (!hbytes)
		return fail(err, errlen, -EINVAL, "array: header does not fit");
	/* temporary file + rename, or in place for a device or FIFO: tpu/outfile.h */
	struct tpu_outfile *of;
	char why[256];
	int rc = tpu_outfile_open(path, &of, why, sizeof(why));
	if (rc)
		return fail(err, errlen, rc, "cannot create: %s", why);
	/* a failed put is reported (and the temporary file removed) by the commit */
	if (!tpu_outfile_put(of, head, hbytes))
		(void)write_data(of, a);
	rc = tpu_outfile_commit(of, why, sizeof(why));
	if (rc)
		return fail(err, errlen, rc, "%s", why);
	return 0;
}
