/* Training checkpoints as NumPy .npz files (train.h, docs/training.md "Checkpoint format"):
 * a zip of stored (uncompressed) members, each a version 1.0 .npy of one little-endian 1-D
 * array. The whole file is built in memory, then written through tpu/outfile.h (temp file and
 * rename). Loading is strict: each member's .npy header must be byte-identical to the one this
 * writer makes for the expected dtype and length, so any other file is refused by name. */
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tpu/outfile.h"
#include "train.h"

#define MAX_FILE (256u << 20)
#define NPY_ALIGN 64

static const char *const member_names[] = { "meta.npy", "param.npy", "m.npy", "v.npy" };
#define N_MEMBERS 4

/* A growable byte buffer. */
struct buf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void put(struct buf *b, const void *data, size_t len)
{
	if (b->err)
		return;
	if (b->len + len > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 4096) + len;
		uint8_t *p = realloc(b->p, cap);

		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void put_le(struct buf *b, uint64_t v, unsigned bytes)
{
	uint8_t t[8];

	for (unsigned i = 0; i < bytes; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	put(b, t, bytes);
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* The fields a zip local header and central directory entry share, from the flags to the
 * extra-field length: stored, no flags, a fixed DOS time (1980-01-01), no extra field. */
static void put_entry(struct buf *b, uint32_t crc, size_t len, size_t name_len)
{
	put_le(b, 0, 2);
	put_le(b, 0, 2);
	put_le(b, 0, 2);
	put_le(b, 0x21, 2);
	put_le(b, crc, 4);
	put_le(b, len, 4);
	put_le(b, len, 4);
	put_le(b, name_len, 2);
	put_le(b, 0, 2);
}

/* The .npy v1.0 header of a 1-D array of count values of descr, padded to NPY_ALIGN. */
static size_t npy_header(char *out, size_t outlen, const char *descr, size_t count)
{
	char dict[128];
	int n = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }",
			 descr, count);
	size_t total = (10 + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
	size_t hlen = total - 10;

	if (total > outlen)
		return 0;
	memcpy(out, "\x93NUMPY\x01\x00", 8);
	out[8] = (char)(hlen & 0xff);
	out[9] = (char)(hlen >> 8);
	memcpy(out + 10, dict, (size_t)n);
	memset(out + 10 + n, ' ', hlen - (size_t)n - 1);
	out[total - 1] = '\n';
	return total;
}

/* The .npy bytes of member i of c into *m. */
static void member_bytes(const struct tr_ckpt *c, int i, struct buf *m)
{
	char hdr[256];
	size_t hl;

	if (i == 0) {
		hl = npy_header(hdr, sizeof(hdr), "<u8", TR_CKPT_META);
		put(m, hdr, hl);
		for (size_t k = 0; k < TR_CKPT_META; k++)
			put_le(m, c->meta[k], 8);
		return;
	}
	const float *a = i == 1 ? c->param : i == 2 ? c->m : c->v;
	hl = npy_header(hdr, sizeof(hdr), "<f4", c->n);
	put(m, hdr, hl);
	for (size_t k = 0; k < c->n; k++) {
		uint32_t bits;

		memcpy(&bits, &a[k], sizeof(bits));
		put_le(m, bits, 4);
	}
}

void tr_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	SHA256(data, len, md);
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int tr_ckpt_save(const char *path, const struct tr_ckpt *c, char sha256[65], char *err,
		 size_t errlen)
{
	struct buf z = { 0 }, cd = { 0 };
	int members = c->v ? 4 : 3, ret;
	uint64_t offs[N_MEMBERS];

	for (int i = 0; i < members; i++) {
		struct buf m = { 0 };
		size_t nl = strlen(member_names[i]);
		uint32_t crc;

		member_bytes(c, i, &m);
		if (m.err) {
			free(m.p);
			z.err = m.err;
			break;
		}
		crc = (uint32_t)crc32(0L, m.p, (uInt)m.len);
		offs[i] = z.len;
		/* local file header */
		put_le(&z, 0x04034b50, 4);
		put_le(&z, 20, 2);
		put_entry(&z, crc, m.len, nl);
		put(&z, member_names[i], nl);
		put(&z, m.p, m.len);
		/* its central directory entry */
		put_le(&cd, 0x02014b50, 4);
		put_le(&cd, 20, 2);
		put_le(&cd, 20, 2);
		put_entry(&cd, crc, m.len, nl);
		put_le(&cd, 0, 2);
		put_le(&cd, 0, 2);
		put_le(&cd, 0, 2);
		put_le(&cd, 0, 4);
		put_le(&cd, offs[i], 4);
		put(&cd, member_names[i], nl);
		free(m.p);
	}
	uint64_t cd_off = z.len;
	put(&z, cd.p, cd.len);
	put_le(&z, 0x06054b50, 4);
	put_le(&z, 0, 2);
	put_le(&z, 0, 2);
	put_le(&z, (uint64_t)members, 2);
	put_le(&z, (uint64_t)members, 2);
	put_le(&z, cd.len, 4);
	put_le(&z, cd_off, 4);
	put_le(&z, 0, 2);
	ret = z.err ? z.err : cd.err;
	if (!ret && z.len > MAX_FILE)
		ret = -EFBIG;
	if (ret) {
		tr_fail(err, errlen, ret, "%s: cannot build the checkpoint (%s)", path,
			strerror(-ret));
	} else {
		ret = tpu_outfile_write(path, z.p, z.len, err, errlen);
		if (!ret && sha256)
			tr_sha256_hex(z.p, z.len, sha256);
	}
	free(z.p);
	free(cd.p);
	return ret;
}

static int read_all(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct buf b = { 0 };
	uint8_t chunk[65536];
	size_t n;

	if (!f)
		return tr_fail(err, errlen, errno == ENOENT ? -ENOENT : -EIO, "%s: %s", path,
			       strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && !b.err) {
		put(&b, chunk, n);
		if (b.len > MAX_FILE)
			b.err = -EFBIG;
	}
	if (ferror(f) && !b.err)
		b.err = -EIO;
	fclose(f);
	if (b.err) {
		free(b.p);
		return tr_fail(err, errlen, b.err == -EFBIG ? -EINVAL : b.err,
			       "%s: cannot read it (%s)", path,
			       b.err == -EFBIG ? "larger than 256 MiB" : strerror(-b.err));
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* Find member name in the zip z (len bytes) through its central directory; *data and *size
 * its stored bytes, CRC checked. */
static int find_member(const char *path, const uint8_t *z, size_t len, const char *name,
		       const uint8_t **data, size_t *size, char *err, size_t errlen)
{
	const uint8_t *e = z + len - 22;
	size_t nl = strlen(name);

	if (len < 22 || get_le(e, 4) != 0x06054b50)
		return tr_fail(err, errlen, -EINVAL,
			       "%s: not a checkpoint (no zip end record: truncated or not an .npz)",
			       path);
	size_t count = get_le(e + 10, 2), cd_size = get_le(e + 12, 4), cd_off = get_le(e + 16, 4);
	if (cd_off > len - 22 || cd_size > len - 22 - cd_off)
		return tr_fail(err, errlen, -EINVAL, "%s: zip central directory out of the file",
			       path);
	const uint8_t *p = z + cd_off, *end = p + cd_size;
	for (size_t i = 0; i < count; i++) {
		if (end - p < 46 || get_le(p, 4) != 0x02014b50)
			return tr_fail(err, errlen, -EINVAL, "%s: zip central directory entry %zu is "
				       "malformed", path, i);
		size_t enl = get_le(p + 28, 2), extra = get_le(p + 30, 2), com = get_le(p + 32, 2);
		size_t method = get_le(p + 10, 2), csize = get_le(p + 20, 4);
		size_t usize = get_le(p + 24, 4), off = get_le(p + 42, 4);
		uint32_t crc = (uint32_t)get_le(p + 16, 4);

		if ((size_t)(end - p) < 46 + enl + extra + com)
			return tr_fail(err, errlen, -EINVAL, "%s: zip entry %zu is truncated", path, i);
		if (enl == nl && !memcmp(p + 46, name, nl)) {
			if (method != 0 || csize != usize)
				return tr_fail(err, errlen, -EINVAL,
					       "%s: member %s is compressed (method %zu); only "
					       "stored members are read", path, name, method);
			if (off > len || len - off < 30 + nl ||
			    get_le(z + off, 4) != 0x04034b50)
				return tr_fail(err, errlen, -EINVAL, "%s: member %s: bad local header",
					       path, name);
			size_t start = off + 30 + get_le(z + off + 26, 2) + get_le(z + off + 28, 2);
			if (start > len || len - start < usize)
				return tr_fail(err, errlen, -EINVAL, "%s: member %s is truncated",
					       path, name);
			if ((uint32_t)crc32(0L, z + start, (uInt)usize) != crc)
				return tr_fail(err, errlen, -EINVAL, "%s: member %s: CRC mismatch "
					       "(the file is corrupt)", path, name);
			*data = z + start;
			*size = usize;
			return 0;
		}
		p += 46 + enl + extra + com;
	}
	return tr_fail(err, errlen, -EINVAL, "%s: member %s is missing", path, name);
}

/* Member name as count values of descr (elem bytes each) into out, checking its header. */
static int load_member(const char *path, const uint8_t *z, size_t len, const char *name,
		       const char *descr, size_t count, size_t elem, void *out, char *err,
		       size_t errlen)
{
	const uint8_t *data = NULL;
	char hdr[256];
	size_t size = 0, hl = npy_header(hdr, sizeof(hdr), descr, count);
	int ret = find_member(path, z, len, name, &data, &size, err, errlen);

	if (ret)
		return ret;
	if (size != hl + count * elem || memcmp(data, hdr, hl))
		return tr_fail(err, errlen, -EINVAL, "%s: member %s is not a %s array of shape "
			       "(%zu,)", path, name, descr, count);
	data += hl;
	for (size_t k = 0; k < count; k++) {
		uint64_t v = get_le(data + k * elem, (unsigned)elem);

		if (elem == 8) {
			((uint64_t *)out)[k] = v;
		} else {
			uint32_t bits = (uint32_t)v;

			memcpy((float *)out + k, &bits, sizeof(bits));
		}
	}
	return 0;
}

static int check_meta(const char *path, const uint64_t *m, char *err, size_t errlen)
{
	if (m[TR_META_VERSION] != TR_CKPT_VERSION)
		return tr_fail(err, errlen, -EINVAL, "%s: meta version %llu: only version %d is "
			       "known", path, (unsigned long long)m[TR_META_VERSION],
			       TR_CKPT_VERSION);
	if (m[TR_META_MODEL] != TR_MODEL_MLP && m[TR_META_MODEL] != TR_MODEL_CNN &&
	    m[TR_META_MODEL] != TR_MODEL_FILE)
		return tr_fail(err, errlen, -EINVAL, "%s: meta model %llu: not 1 (mlp), 2 (cnn) or "
			       "3 (model file)",
			       path, (unsigned long long)m[TR_META_MODEL]);
	if (m[TR_META_OPTIM] != TPU_OPTIM_SGD && m[TR_META_OPTIM] != TPU_OPTIM_ADAMW)
		return tr_fail(err, errlen, -EINVAL, "%s: meta optimizer %llu: not 1 (sgd) or 2 "
			       "(adamw)", path, (unsigned long long)m[TR_META_OPTIM]);
	if (!m[TR_META_PARAMS] || m[TR_META_PARAMS] > MAX_FILE / 4)
		return tr_fail(err, errlen, -EINVAL, "%s: meta params %llu out of range 1..%u",
			       path, (unsigned long long)m[TR_META_PARAMS], MAX_FILE / 4);
	return 0;
}

int tr_ckpt_load(const char *path, struct tr_ckpt *c, char *err, size_t errlen)
{
	uint8_t *z;
	size_t len;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = read_all(path, &z, &len, err, errlen);
	if (ret)
		return ret;
	ret = load_member(path, z, len, "meta.npy", "<u8", TR_CKPT_META, 8, c->meta, err,
			  errlen);
	if (!ret)
		ret = check_meta(path, c->meta, err, errlen);
	if (ret)
		goto out;
	c->n = (size_t)c->meta[TR_META_PARAMS];
	c->param = malloc(c->n * sizeof(float));
	c->m = malloc(c->n * sizeof(float));
	if (c->meta[TR_META_OPTIM] == TPU_OPTIM_ADAMW)
		c->v = malloc(c->n * sizeof(float));
	if (!c->param || !c->m || (c->meta[TR_META_OPTIM] == TPU_OPTIM_ADAMW && !c->v)) {
		ret = tr_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	ret = load_member(path, z, len, "param.npy", "<f4", c->n, 4, c->param, err, errlen);
	if (!ret)
		ret = load_member(path, z, len, "m.npy", "<f4", c->n, 4, c->m, err, errlen);
	if (!ret && c->v)
		ret = load_member(path, z, len, "v.npy", "<f4", c->n, 4, c->v, err, errlen);
out:
	free(z);
	if (ret)
		tr_ckpt_free(c);
	return ret;
}

void tr_ckpt_free(struct tr_ckpt *c)
{
	free(c->param);
	free(c->m);
	free(c->v);
	c->param = c->m = c->v = NULL;
}
