/* The digits data set (data/digits.csv.gz, data/README.md): loading and the fixed train/test
 * split documented in docs/models.md. zlib reads gzip and plain files alike. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "train.h"

#define LINE_MAX_LEN 1024

void tr_digits_free(struct tr_digits *d)
{
	free(d->x);
	free(d->y);
	d->x = NULL;
	d->y = NULL;
	d->n = 0;
}

/* Parse one row into x[64], *y. Returns 0 or -EINVAL with err naming the field. */
static int parse_row(const char *line, size_t lineno, uint8_t *x, uint8_t *y, char *err,
		     size_t errlen)
{
	const char *p = line;

	for (unsigned f = 0; f <= TR_DIGITS_PIXELS; f++) {
		unsigned max = f < TR_DIGITS_PIXELS ? TR_DIGITS_MAX_PIXEL : TR_DIGITS_CLASSES - 1;
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			return tr_fail(err, errlen, -EINVAL, "line %zu, field %u: not a number",
				       lineno, f + 1);
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v < 0 || v > (long)max)
			return tr_fail(err, errlen, -EINVAL, "line %zu, field %u: %s out of 0..%u",
				       lineno, f + 1, f < TR_DIGITS_PIXELS ? "pixel" : "label",
				       max);
		if (f < TR_DIGITS_PIXELS)
			x[f] = (uint8_t)v;
		else
			*y = (uint8_t)v;
		p = end;
		if (f < TR_DIGITS_PIXELS) {
			if (*p != ',')
				return tr_fail(err, errlen, -EINVAL,
					       "line %zu: %u fields, need %u", lineno, f + 1,
					       TR_DIGITS_PIXELS + 1);
			p++;
		}
	}
	while (*p == '\r' || *p == '\n')
		p++;
	if (*p)
		return tr_fail(err, errlen, -EINVAL, "line %zu: more than %u fields", lineno,
			       TR_DIGITS_PIXELS + 1);
	return 0;
}

/* Grow d to hold at least n rows. */
static int reserve(struct tr_digits *d, size_t *cap, size_t n)
{
	uint8_t *x, *y;
	size_t c;

	if (n <= *cap)
		return 0;
	c = *cap ? *cap * 2 : 2048;
	x = realloc(d->x, c * TR_DIGITS_PIXELS);
	if (!x)
		return -ENOMEM;
	d->x = x;
	y = realloc(d->y, c);
	if (!y)
		return -ENOMEM;
	d->y = y;
	*cap = c;
	return 0;
}

int tr_digits_load(const char *path, struct tr_digits *out, char *err, size_t errlen)
{
	struct tr_digits d = { 0 };
	char line[LINE_MAX_LEN];
	size_t cap = 0, lineno = 0;
	gzFile f;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	errno = 0;
	f = gzopen(path, "rb");
	if (!f)
		return tr_fail(err, errlen, errno ? -errno : -ENOMEM, "%s: %s", path,
			       errno ? strerror(errno) : "out of memory");
	while (gzgets(f, line, sizeof(line))) {
		lineno++;
		if (!strchr(line, '\n') && !gzeof(f)) {
			ret = tr_fail(err, errlen, -EINVAL, "%s: line %zu: longer than %d bytes",
				      path, lineno, LINE_MAX_LEN - 2);
			goto out_free;
		}
		if (line[0] == '\n' || line[0] == '\0')
			continue;
		if (d.n == TR_DIGITS_MAX_ROWS) {
			ret = tr_fail(err, errlen, -EINVAL, "%s: more than %u rows", path,
				      TR_DIGITS_MAX_ROWS);
			goto out_free;
		}
		ret = reserve(&d, &cap, d.n + 1);
		if (ret) {
			tr_fail(err, errlen, ret, "%s: out of memory", path);
			goto out_free;
		}
		ret = parse_row(line, lineno, d.x + d.n * TR_DIGITS_PIXELS, &d.y[d.n], err, errlen);
		if (ret)
			goto out_free;
		d.n++;
	}
	{
		int zerr;
		const char *msg = gzerror(f, &zerr);

		if (zerr != Z_OK && zerr != Z_STREAM_END) {
			ret = tr_fail(err, errlen, -EIO, "%s: %s", path, msg);
			goto out_free;
		}
	}
	if (!d.n) {
		ret = tr_fail(err, errlen, -EINVAL, "%s: no rows", path);
		goto out_free;
	}
	gzclose(f);
	*out = d;
	return 0;

out_free:
	gzclose(f);
	tr_digits_free(&d);
	return ret;
}

static int alloc_set(struct tr_digits *d, size_t n)
{
	d->n = 0;
	d->x = malloc(n ? n * TR_DIGITS_PIXELS : 1);
	d->y = malloc(n ? n : 1);
	if (!d->x || !d->y) {
		tr_digits_free(d);
		return -ENOMEM;
	}
	return 0;
}

static void append(struct tr_digits *dst, const struct tr_digits *src, size_t i)
{
	memcpy(dst->x + dst->n * TR_DIGITS_PIXELS, src->x + i * TR_DIGITS_PIXELS,
	       TR_DIGITS_PIXELS);
	dst->y[dst->n++] = src->y[i];
}

int tr_digits_split(const struct tr_digits *all, struct tr_digits *train,
		    struct tr_digits *test)
{
	size_t seen[TR_DIGITS_CLASSES] = { 0 };

	memset(train, 0, sizeof(*train));
	memset(test, 0, sizeof(*test));
	for (size_t i = 0; i < all->n; i++)
		if (all->y[i] >= TR_DIGITS_CLASSES)
			return -EINVAL;
	if (alloc_set(train, all->n) || alloc_set(test, all->n)) {
		tr_digits_free(train);
		tr_digits_free(test);
		return -ENOMEM;
	}
	for (size_t i = 0; i < all->n; i++) {
		size_t k = seen[all->y[i]]++;

		append(k % TR_TEST_EVERY == TR_TEST_EVERY - 1 ? test : train, all, i);
	}
	return 0;
}

void tr_digits_count(const struct tr_digits *d, size_t counts[TR_DIGITS_CLASSES])
{
	memset(counts, 0, TR_DIGITS_CLASSES * sizeof(counts[0]));
	for (size_t i = 0; i < d->n; i++)
		if (d->y[i] < TR_DIGITS_CLASSES)
			counts[d->y[i]]++;
}

void tr_digits_input(const struct tr_digits *d, size_t i, double *x)
{
	for (size_t k = 0; k < TR_DIGITS_PIXELS; k++)
		x[k] = d->x[i * TR_DIGITS_PIXELS + k] / (double)TR_DIGITS_MAX_PIXEL;
}
