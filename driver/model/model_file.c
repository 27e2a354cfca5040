/* The model file format (docs/model-format.md): writer, strict reader and tpu_model_free.
 *
 * A file is a 16-byte header (magic, version, total length, CRC-32) followed by one MODL section
 * and n_layers LAYR sections; each section is tag, body length, body, CRC-32 of the three. The
 * reader checks the framing before it looks at a field, every count against the shape the
 * previous layers give before it allocates, and the finished model with tpu_model_validate, so
 * no input can make it read out of bounds, allocate more than the file justifies, or return a
 * model other than the one that was saved. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_priv.h"
#include "tpu/outfile.h"

#define MODEL_MAGIC "TPUM"
#define HEADER_BYTES 16u
#define SECTION_FRAMING 12u    /* tag, body length, CRC */
#define MODEL_BODY_BYTES 72u   /* name[32] + 10 x 4 */
#define MODEL_BODY2_BYTES 12u  /* format 2 appends in_type, out_type, in_round */
#define MODEL_BODY21_BYTES 4u  /* format 2.1 appends io_layout */
#define LAYER_FIXED_BYTES 56u  /* index, 11 u32 fields, out.scale, out.zero_point */
#define LAYER_FIXED2_BYTES 24u /* format 2 inserts dilation_h, dilation_w, groups, ceil_mode,
				* avg_mode, avg_flags after the fixed fields (the arrays' sizes
				* depend on them) */
#define LAYER_BODY2_BYTES 8u   /* and appends the b_zero_point count (and its values), then
				* round, after the arrays */
#define LAYER_COUNTS_BYTES 24u /* one u32 count per array */

/* ---------------------------------------------------------------- CRC-32 (IEEE 802.3, zlib) */

uint32_t tpu_model_crc32(uint32_t crc, const void *data, size_t len)
{
	/* reflected polynomial 0xEDB88320, one nibble at a time: small table, no state */
	static const uint32_t tab[16] = {
	    0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4,
	    0x4DB26158, 0x5005713C, 0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C,
	    0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
	};
	const uint8_t *p = data;
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ tab[crc & 15];
		crc = (crc >> 4) ^ tab[crc & 15];
	}
	return ~crc;
}

/* ---------------------------------------------------------------- little-endian bytes */

static uint32_t get_u32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put_u32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static float u32_to_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t f32_to_u32(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

/* ---------------------------------------------------------------- writer */

struct wbuf {
	uint8_t *p;
	size_t off;
};

static void w_u32(struct wbuf *w, uint32_t v)
{
	put_u32(w->p + w->off, v);
	w->off += 4;
}

static void w_f32(struct wbuf *w, float v)
{
	w_u32(w, f32_to_u32(v));
}

static void w_bytes(struct wbuf *w, const void *src, size_t len)
{
	if (len)
		memcpy(w->p + w->off, src, len);
	w->off += len;
}

/* A count, then count 32-bit values (int32_t or float, both stored as their bits). */
static void w_array32(struct wbuf *w, const void *src, uint32_t count)
{
	const uint8_t *s = src;
	w_u32(w, count);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t v;
		memcpy(&v, s + 4 * (size_t)i, 4);
		w_u32(w, v);
	}
}

/* Start a section: tag and body length; returns the offset of the tag. */
static size_t w_section_begin(struct wbuf *w, const char *tag, uint32_t body_len)
{
	size_t start = w->off;
	w_bytes(w, tag, 4);
	w_u32(w, body_len);
	return start;
}

static void w_section_end(struct wbuf *w, size_t start)
{
	w_u32(w, tpu_model_crc32(0, w->p + start, w->off - start));
}

static uint64_t layer_body_bytes(const struct tpu_layer *l, const struct tpu_layer_geom *g,
				 uint32_t major)
{
	return LAYER_FIXED_BYTES + LAYER_COUNTS_BYTES + g->n_weights + 16ull * g->n_chan + g->n_lut +
	       (major >= 2 ? LAYER_FIXED2_BYTES + LAYER_BODY2_BYTES + 4ull * l->b_zp_count : 0);
}

static void write_layer(struct wbuf *w, const struct tpu_layer *l, uint32_t i,
			const struct tpu_layer_geom *g, uint32_t major)
{
	size_t start = w_section_begin(w, "LAYR", (uint32_t)layer_body_bytes(l, g, major));
	const uint32_t fixed[] = {i,	       l->type,	     l->kernel_h, l->kernel_w,
				  l->stride_h, l->stride_w,  l->pad_top,  l->pad_bottom,
				  l->pad_left, l->pad_right, l->out_c,	  l->act};
	for (size_t f = 0; f < sizeof(fixed) / sizeof(fixed[0]); f++)
		w_u32(w, fixed[f]);
	w_f32(w, l->out.scale);
	w_u32(w, (uint32_t)l->out.zero_point);
	if (major >= 2) {
		w_u32(w, l->dilation_h);
		w_u32(w, l->dilation_w);
		w_u32(w, l->groups);
		w_u32(w, l->ceil_mode);
		w_u32(w, l->avg_mode);
		w_u32(w, l->avg_flags);
	}
	w_u32(w, (uint32_t)g->n_weights);
	w_bytes(w, l->weights, (size_t)g->n_weights);
	w_array32(w, l->bias, g->n_chan);
	w_array32(w, l->w_scale, g->n_chan);
	w_array32(w, l->multiplier, g->n_chan);
	w_array32(w, l->shift, g->n_chan);
	w_u32(w, g->n_lut);
	w_bytes(w, l->lut, g->n_lut);
	if (major >= 2) {
		w_array32(w, l->b_zero_point, l->b_zp_count);
		w_u32(w, l->round);
	}
	w_section_end(w, start);
}

uint32_t tpu_model_format_major(const struct tpu_model *m)
{
	if (m->in_type || m->out_type || m->in_round || m->io_layout)
		return 2;
	for (uint32_t i = 0; i < m->n_layers && i < TPU_MODEL_MAX_LAYERS; i++) {
		const struct tpu_layer *l = &m->layers[i];
		bool pool_pads = tpu_layer_is_pool(l->type) &&
				 (l->pad_top || l->pad_bottom || l->pad_left || l->pad_right);
		if (l->round || l->b_zp_count || l->dilation_h || l->dilation_w || l->groups ||
		    l->ceil_mode || l->avg_mode || l->avg_flags || pool_pads ||
		    l->type == TPU_LAYER_AVGPOOL2D)
			return 2;
	}
	return 1;
}

int tpu_model_serialize(const struct tpu_model *m, uint8_t **out, size_t *out_len, char *err,
			size_t errlen)
{
	struct tpu_layer_geom geom[TPU_MODEL_MAX_LAYERS];
	if (!out || !out_len)
		return tpu_model_fail(err, errlen, -EINVAL, "no output buffer");
	*out = NULL;
	*out_len = 0;
	int rc = tpu_model_validate(m, err, errlen);
	if (rc)
		return rc;
	uint32_t major = tpu_model_format_major(m);
	/* 2.1 (io_layout) and 2.2 (an INT32 output) only where they are used: other models are
	 * written as before; 2.2 adds no field, only the value, so that a 2.1 reader refuses it
	 * by naming out_type */
	uint32_t minor = m->out_type == TPU_IO_INT32 ? 2 : m->io_layout ? 1 : 0;
	uint32_t model_body = MODEL_BODY_BYTES + (major >= 2 ? MODEL_BODY2_BYTES : 0) +
			      (minor >= 1 ? MODEL_BODY21_BYTES : 0);
	uint64_t total = HEADER_BYTES + SECTION_FRAMING + model_body;
	uint32_t h = m->in_h, wd = m->in_w, c = m->in_c;
	for (uint32_t i = 0; i < m->n_layers; i++) {
		rc = tpu_model_layer_geom(&m->layers[i], i, h, wd, c, &geom[i], err, errlen);
		if (rc)
			return rc;
		total += SECTION_FRAMING + layer_body_bytes(&m->layers[i], &geom[i], major);
		h = geom[i].out_h;
		wd = geom[i].out_w;
		c = geom[i].out_c;
	}
	if (total > UINT32_MAX)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: %llu bytes do not fit the format (at most 2^32 - 1)",
				      (unsigned long long)total);
	struct wbuf w = {.p = malloc((size_t)total), .off = 0};
	if (!w.p)
		return tpu_model_fail(err, errlen, -ENOMEM, "out of memory for %llu bytes",
				      (unsigned long long)total);
	w_bytes(&w, MODEL_MAGIC, 4);
	w_u32(&w, major | minor << 16);
	w_u32(&w, (uint32_t)total);
	w_u32(&w, tpu_model_crc32(0, w.p, 12));

	size_t start = w_section_begin(&w, "MODL", model_body);
	char name[TPU_MODEL_NAME_MAX] = {0}; /* zero padding after the NUL: one encoding */
	memcpy(name, m->name, strnlen(m->name, TPU_MODEL_NAME_MAX));
	w_bytes(&w, name, sizeof(name));
	w_u32(&w, m->in_h);
	w_u32(&w, m->in_w);
	w_u32(&w, m->in_c);
	w_f32(&w, m->in.scale);
	w_u32(&w, (uint32_t)m->in.zero_point);
	w_f32(&w, m->in_range);
	w_u32(&w, m->num_classes);
	w_f32(&w, m->float_accuracy);
	w_f32(&w, m->int8_accuracy);
	w_u32(&w, m->n_layers);
	if (major >= 2) {
		w_u32(&w, m->in_type);
		w_u32(&w, m->out_type);
		w_u32(&w, m->in_round);
	}
	if (minor >= 1)
		w_u32(&w, m->io_layout);
	w_section_end(&w, start);
	for (uint32_t i = 0; i < m->n_layers; i++)
		write_layer(&w, &m->layers[i], i, &geom[i], major);
	*out = w.p;
	*out_len = (size_t)total;
	return 0;
}

int tpu_model_save(const struct tpu_model *m, const char *path, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!path)
		return tpu_model_fail(err, errlen, -EINVAL, "no file name");
	uint8_t *buf;
	size_t len;
	int rc = tpu_model_serialize(m, &buf, &len, err, errlen);
	if (rc)
		return rc == -ENOMEM ? rc : -EINVAL;
	/* temporary file, fsync, rename: a failure never destroys what was at path */
	char why[256];
	rc = tpu_outfile_write(path, buf, len, why, sizeof(why));
	if (rc)
		rc = tpu_model_fail(err, errlen, -EIO, "%s: %s", path, why);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------- reader */

struct rd {
	const uint8_t *p;
	size_t len, off;
};

static uint32_t r_u32(struct rd *r)
{
	uint32_t v = get_u32(r->p + r->off);
	r->off += 4;
	return v;
}

/* A section's framing: tag, a body length that fits what is left, the CRC. On success *body is
 * a reader over the body (the CRC is consumed). what names the section in messages. */
static int read_section(struct rd *r, const char *tag, const char *what, struct rd *body, char *err,
			size_t errlen)
{
	size_t left = r->len - r->off;
	if (left < SECTION_FRAMING)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "%s: truncated: %zu bytes left, a section needs at least %u",
				      what, left, SECTION_FRAMING);
	const uint8_t *start = r->p + r->off;
	if (memcmp(start, tag, 4)) {
		char got[5];
		for (int i = 0; i < 4; i++)
			got[i] = start[i] >= 0x20 && start[i] <= 0x7e ? (char)start[i] : '?';
		got[4] = '\0';
		return tpu_model_fail(err, errlen, -EINVAL, "%s: tag '%s' (expected '%s')", what,
				      got, tag);
	}
	uint32_t blen = get_u32(start + 4);
	if (blen > left - SECTION_FRAMING)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "%s: body of %u bytes, but only %zu bytes are left", what,
				      blen, left - SECTION_FRAMING);
	uint32_t stored = get_u32(start + 8 + blen);
	uint32_t crc = tpu_model_crc32(0, start, 8 + (size_t)blen);
	if (stored != crc)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "%s: checksum mismatch (stored 0x%08x, computed 0x%08x)",
				      what, stored, crc);
	*body = (struct rd){.p = start + 8, .len = blen, .off = 0};
	r->off += SECTION_FRAMING + blen;
	return 0;
}

/* The body's bytes after what this reader knows: none, unless the file is a newer minor
 * version (which may append fields; they are covered by the CRC and ignored). */
struct version {
	uint32_t major, minor;
};

static int check_body_end(const struct rd *b, struct version v, const char *what, char *err,
			  size_t errlen)
{
	if (b->off == b->len || v.minor > TPU_MODEL_FORMAT_MINOR)
		return 0;
	return tpu_model_fail(err, errlen, -EINVAL,
			      "%s: %zu bytes after the last field (format %u.%u has none)", what,
			      b->len - b->off, v.major, v.minor);
}

static int parse_model(struct rd *b, struct version v, struct tpu_model *m, char *err,
		       size_t errlen)
{
	bool v21 = v.major >= 2 && v.minor >= 1;
	uint32_t want = MODEL_BODY_BYTES + (v.major >= 2 ? MODEL_BODY2_BYTES : 0) +
			(v21 ? MODEL_BODY21_BYTES : 0);
	if (b->len < want)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model section: body of %zu bytes (format %u.%u expects %u)",
				      b->len, v.major, v.minor, want);
	memcpy(m->name, b->p, TPU_MODEL_NAME_MAX);
	b->off = TPU_MODEL_NAME_MAX;
	size_t nlen = strnlen(m->name, TPU_MODEL_NAME_MAX);
	for (size_t i = nlen; i < TPU_MODEL_NAME_MAX; i++)
		if (m->name[i])
			return tpu_model_fail(err, errlen, -EINVAL,
					      "model: name: byte %zu after the terminating NUL is "
					      "0x%02x (must be 0)",
					      i, (unsigned char)m->name[i]);
	m->in_h = r_u32(b);
	m->in_w = r_u32(b);
	m->in_c = r_u32(b);
	m->in.scale = u32_to_f32(r_u32(b));
	m->in.zero_point = (int32_t)r_u32(b);
	m->in_range = u32_to_f32(r_u32(b));
	m->num_classes = r_u32(b);
	m->float_accuracy = u32_to_f32(r_u32(b));
	m->int8_accuracy = u32_to_f32(r_u32(b));
	m->n_layers = r_u32(b);
	if (v.major >= 2) {
		m->in_type = r_u32(b);
		m->out_type = r_u32(b);
		m->in_round = r_u32(b);
	}
	if (v21)
		m->io_layout = r_u32(b);
	if (m->out_type == TPU_IO_INT32 && v.minor < 2)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "model: out_type: 2 (INT32) needs format 2.2, the file is "
				      "%u.%u",
				      v.major, v.minor);
	int rc = check_body_end(b, v, "model section", err, errlen);
	if (!rc)
		rc = tpu_model_check_header(m, err, errlen);
	return rc;
}

/* One array: its count must be want, its bytes must be in the body. *dst gets a malloc'ed copy
 * (NULL for count 0) of count elements of esize bytes (4-byte ones are little-endian). */
static int read_array(struct rd *b, uint32_t i, uint32_t type, const char *field, uint64_t want,
		      size_t esize, void **dst, char *err, size_t errlen)
{
	if (b->len - b->off < 4)
		return tpu_model_layer_fail(err, errlen, i, type,
					    "%s: truncated: no room for its count", field);
	uint32_t count = r_u32(b);
	if (count != want)
		return tpu_model_layer_fail(err, errlen, i, type, "%s: count %u (expected %llu)",
					    field, count, (unsigned long long)want);
	uint64_t bytes = (uint64_t)count * esize;
	if (bytes > b->len - b->off)
		return tpu_model_layer_fail(err, errlen, i, type,
					    "%s: need %llu bytes, the section has %zu left", field,
					    (unsigned long long)bytes, b->len - b->off);
	if (!count)
		return 0;
	uint8_t *a = malloc((size_t)bytes);
	if (!a)
		return tpu_model_fail(err, errlen, -ENOMEM, "out of memory for %llu bytes",
				      (unsigned long long)bytes);
	if (esize == 4) {
		for (uint32_t k = 0; k < count; k++) {
			uint32_t v = r_u32(b);
			memcpy(a + 4 * (size_t)k, &v, 4);
		}
	} else {
		memcpy(a, b->p + b->off, (size_t)bytes);
		b->off += (size_t)bytes;
	}
	*dst = a;
	return 0;
}

static int parse_layer(struct rd *b, struct version v, uint32_t i, struct tpu_layer *l, uint32_t *h,
		       uint32_t *w, uint32_t *c, char *err, size_t errlen)
{
	char what[32];
	snprintf(what, sizeof(what), "layer %u section", i);
	uint32_t fixed = LAYER_FIXED_BYTES + (v.major >= 2 ? LAYER_FIXED2_BYTES : 0);
	if (b->len < fixed)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "%s: body of %zu bytes (at least %u expected)", what, b->len,
				      fixed);
	uint32_t index = r_u32(b);
	l->type = r_u32(b);
	if (index != i)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "index: %u (sections out of order)", index);
	uint32_t *fields[] = {&l->kernel_h, &l->kernel_w,   &l->stride_h, &l->stride_w,
			      &l->pad_top,  &l->pad_bottom, &l->pad_left, &l->pad_right,
			      &l->out_c,    &l->act};
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		*fields[f] = r_u32(b);
	l->out.scale = u32_to_f32(r_u32(b));
	l->out.zero_point = (int32_t)r_u32(b);
	if (v.major >= 2) {
		l->dilation_h = r_u32(b);
		l->dilation_w = r_u32(b);
		l->groups = r_u32(b);
		l->ceil_mode = r_u32(b);
		l->avg_mode = r_u32(b);
		l->avg_flags = r_u32(b);
	}
	if (v.major < 2 && l->type == TPU_LAYER_AVGPOOL2D)
		return tpu_model_layer_fail(err, errlen, i, l->type,
					    "type: %u needs format 2 (this file is %u.%u)", l->type,
					    v.major, v.minor);
	if (v.major < 2 && tpu_layer_is_pool(l->type)) {
		/* pads of a pool are format 2's; a 1.0 file has none */
		const uint32_t pads[4] = {l->pad_top, l->pad_bottom, l->pad_left, l->pad_right};
		static const char *const names[4] = {"pad_top", "pad_bottom", "pad_left",
						     "pad_right"};
		for (int k = 0; k < 4; k++)
			if (pads[k])
				return tpu_model_layer_fail(err, errlen, i, l->type,
							    "%s: %u (must be 0 for a pool in a "
							    "format %u.%u file)",
							    names[k], pads[k], v.major, v.minor);
	}
	struct tpu_layer_geom g;
	int rc = tpu_model_layer_geom(l, i, *h, *w, *c, &g, err, errlen);
	if (rc)
		return rc;
	void *lut = NULL;
	if ((rc = read_array(b, i, l->type, "weights", g.n_weights, 1, (void **)&l->weights, err,
			     errlen)) ||
	    (rc = read_array(b, i, l->type, "bias", g.n_chan, 4, (void **)&l->bias, err, errlen)) ||
	    (rc = read_array(b, i, l->type, "w_scale", g.n_chan, 4, (void **)&l->w_scale, err,
			     errlen)) ||
	    (rc = read_array(b, i, l->type, "multiplier", g.n_chan, 4, (void **)&l->multiplier, err,
			     errlen)) ||
	    (rc = read_array(b, i, l->type, "shift", g.n_chan, 4, (void **)&l->shift, err,
			     errlen)) ||
	    (rc = read_array(b, i, l->type, "lut", g.n_lut, 1, &lut, err, errlen)))
		return rc;
	if (lut) {
		memcpy(l->lut, lut, sizeof(l->lut));
		free(lut);
	}
	if (v.major >= 2) {
		/* the zero points' count, checked before anything is allocated for them */
		if (b->len - b->off < 4)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "b_zero_point: truncated: no room for its count");
		uint32_t nzp = get_u32(b->p + b->off);
		if (nzp && !g.n_chan)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "b_zero_point: count %u (must be 0 for a pool)",
						    nzp);
		if (nzp > 1 && nzp != g.n_chan)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "b_zero_point: count %u (must be 0, 1 or out_c = "
						    "%u)",
						    nzp, g.n_chan);
		if ((rc = read_array(b, i, l->type, "b_zero_point", nzp, 4,
				     (void **)&l->b_zero_point, err, errlen)))
			return rc;
		l->b_zp_count = nzp;
		if (b->len - b->off < 4)
			return tpu_model_layer_fail(err, errlen, i, l->type,
						    "round: truncated: no room for it");
		l->round = r_u32(b);
	}
	rc = check_body_end(b, v, what, err, errlen);
	*h = g.out_h;
	*w = g.out_w;
	*c = g.out_c;
	return rc;
}

int tpu_model_load_mem(const void *data, size_t len, struct tpu_model **out, char *err,
		       size_t errlen)
{
	return tpu_model_load_mem_major(data, len, TPU_MODEL_FORMAT_MAJOR_MAX, out, err, errlen);
}

int tpu_model_load_mem_major(const void *data, size_t len, uint32_t max_major,
			     struct tpu_model **out, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return tpu_model_fail(err, errlen, -EINVAL, "no output model");
	*out = NULL;
	if (!data && len)
		return tpu_model_fail(err, errlen, -EINVAL, "no data");
	const uint8_t *p = data;
	size_t mlen = len < 4 ? len : 4;
	if (mlen && memcmp(p, MODEL_MAGIC, mlen))
		return tpu_model_fail(err, errlen, -EINVAL,
				      "not a tpu model file: bad magic (expected \"TPUM\")");
	if (len < HEADER_BYTES)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "truncated: %zu bytes, the file header alone has %u", len,
				      HEADER_BYTES);
	uint32_t version = get_u32(p + 4);
	struct version v = {.major = version & 0xFFFF, .minor = version >> 16};
	if (v.major < TPU_MODEL_FORMAT_MAJOR_MIN || v.major > max_major) {
		/* a 1.0 reader's words exactly, so that old and new readers refuse alike */
		char reads[32] = "1.x";
		for (uint32_t k = TPU_MODEL_FORMAT_MAJOR_MIN + 1; k <= max_major; k++)
			snprintf(reads + strlen(reads), sizeof(reads) - strlen(reads), " and %u.x",
				 k);
		return tpu_model_fail(err, errlen, -EINVAL,
				      "unsupported format version %u.%u (this reader reads %s)",
				      v.major, v.minor, reads);
	}
	uint32_t stored = get_u32(p + 12), crc = tpu_model_crc32(0, p, 12);
	if (stored != crc)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "file header: checksum mismatch (stored 0x%08x, computed "
				      "0x%08x)",
				      stored, crc);
	uint32_t file_len = get_u32(p + 8);
	if (len < file_len)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "truncated: the header says %u bytes, the file has %zu",
				      file_len, len);
	if (len > file_len)
		return tpu_model_fail(err, errlen, -EINVAL,
				      "trailing data: %zu bytes after the %u the header says",
				      len - file_len, file_len);

	struct tpu_model *m = calloc(1, sizeof(*m));
	if (!m)
		return tpu_model_fail(err, errlen, -ENOMEM, "out of memory");
	struct rd r = {.p = p, .len = len, .off = HEADER_BYTES}, b;
	int rc = read_section(&r, "MODL", "model section", &b, err, errlen);
	if (!rc)
		rc = parse_model(&b, v, m, err, errlen);
	uint32_t n = rc ? 0 : m->n_layers;
	if (rc)
		m->n_layers = 0; /* nothing allocated yet; keep tpu_model_free away from layers */
	uint32_t h = m->in_h, w = m->in_w, c = m->in_c;
	for (uint32_t i = 0; i < n && !rc; i++) {
		char what[32];
		snprintf(what, sizeof(what), "layer %u section", i);
		rc = read_section(&r, "LAYR", what, &b, err, errlen);
		if (!rc)
			rc = parse_layer(&b, v, i, &m->layers[i], &h, &w, &c, err, errlen);
	}
	if (!rc && r.off != r.len)
		rc = tpu_model_fail(err, errlen, -EINVAL,
				    "trailing data: %zu bytes after the last layer section",
				    r.len - r.off);
	if (!rc)
		rc = tpu_model_validate(m, err, errlen);
	if (rc) {
		tpu_model_free(m);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	*out = m;
	return 0;
}

int tpu_model_load(const char *path, struct tpu_model **out, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return tpu_model_fail(err, errlen, -EINVAL, "no output model");
	*out = NULL;
	if (!path)
		return tpu_model_fail(err, errlen, -EINVAL, "no file name");
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		return tpu_model_fail(err, errlen, e == ENOENT ? -ENOENT : -EIO, "cannot open: %s",
				      strerror(e));
	}
	int rc;
	uint8_t *buf = NULL;
	struct stat st;
	if (fstat(fileno(f), &st)) {
		rc = tpu_model_fail(err, errlen, -EIO, "cannot stat: %s", strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = tpu_model_fail(err, errlen, -EINVAL, "not a regular file");
		goto out_close;
	}
	if ((unsigned long long)st.st_size > UINT32_MAX) {
		rc = tpu_model_fail(err, errlen, -EINVAL,
				    "%llu bytes: larger than any model file (at most 2^32 - 1)",
				    (unsigned long long)st.st_size);
		goto out_close;
	}
	size_t len = (size_t)st.st_size;
	buf = malloc(len ? len : 1);
	if (!buf) {
		rc = tpu_model_fail(err, errlen, -ENOMEM, "out of memory for %zu bytes", len);
		goto out_close;
	}
	if (fread(buf, 1, len, f) != len || ferror(f)) {
		rc = tpu_model_fail(err, errlen, -EIO, "read error: %s",
				    ferror(f) ? strerror(errno) : "the file shrank");
		goto out_close;
	}
	if (fgetc(f) != EOF) {
		rc = tpu_model_fail(err, errlen, -EIO, "read error: the file grew while read");
		goto out_close;
	}
	rc = tpu_model_load_mem(buf, len, out, err, errlen);
out_close:
	free(buf);
	fclose(f);
	return rc;
}

void tpu_model_free(struct tpu_model *m)
{
	if (!m)
		return;
	uint32_t n = m->n_layers <= TPU_MODEL_MAX_LAYERS ? m->n_layers : TPU_MODEL_MAX_LAYERS;
	for (uint32_t i = 0; i < n; i++) {
		struct tpu_layer *l = &m->layers[i];
		free(l->weights);
		free(l->bias);
		free(l->w_scale);
		free(l->multiplier);
		free(l->shift);
		free(l->b_zero_point);
	}
	free(m);
}
