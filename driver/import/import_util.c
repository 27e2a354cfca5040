/* Helpers shared by the importers (import_util.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import_util.h"

int imp_vfail(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	return -EINVAL;
}

int imp_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	imp_vfail(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int imp_read_file(const char *path, size_t max, const char *limit, uint8_t **buf, size_t *len,
		  char *err, size_t errlen)
{
	*buf = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		imp_fail(err, errlen, "%s: cannot open: %s", path, strerror(e));
		return e == ENOENT ? -ENOENT : -EIO;
	}
	struct stat st;
	int rc = -EIO;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		rc = imp_fail(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if ((unsigned long long)st.st_size > max) {
		rc = imp_fail(err, errlen, "%s: %lld bytes (at most %zu, %s)", path,
			      (long long)st.st_size, max, limit);
		goto out;
	}
	size_t n = (size_t)st.st_size;
	if (!(*buf = malloc(n ? n : 1))) {
		imp_fail(err, errlen, "%s: out of memory for %zu bytes", path, n);
		rc = -ENOMEM;
		goto out;
	}
	if (fread(*buf, 1, n, f) != n) {
		imp_fail(err, errlen, "%s: read error", path);
		free(*buf);
		*buf = NULL;
		goto out;
	}
	*len = n;
	rc = 0;
out:
	fclose(f);
	return rc;
}

void imp_set_name(struct tpu_model *m, const char *name, const char *fallback)
{
	size_t k = 0;
	for (const char *p = name; p && *p && k < TPU_MODEL_NAME_MAX - 1; p++)
		if (*p >= 0x20 && *p <= 0x7e)
			m->name[k++] = *p;
	m->name[k] = '\0';
	if (!k)
		snprintf(m->name, sizeof(m->name), "%s", fallback);
}

int imp_validate(const struct tpu_model *m, char *why, size_t whylen, uint32_t *layer)
{
	unsigned li;
	*layer = UINT32_MAX;
	int rc = tpu_model_validate(m, why, whylen);
	if (rc && sscanf(why, "layer %u", &li) == 1 && li < m->n_layers)
		*layer = li;
	return rc;
}

int imp_import_file(const char *path, size_t max, const char *limit, imp_mem_fn mem, void *ctx,
		    char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!path)
		return imp_fail(err, errlen, "no file name");
	uint8_t *buf;
	size_t len;
	int rc = imp_read_file(path, max, limit, &buf, &len, err, errlen);
	if (rc)
		return rc;
	char why[512];
	why[0] = '\0';
	rc = mem(buf, len, ctx, why, sizeof(why));
	if (rc)
		imp_fail(err, errlen, "%s: %s", path, why);
	free(buf);
	return rc;
}
