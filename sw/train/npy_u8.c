/* A minimal .npy writer for uint8 arrays of any small rank (the CLI's npy.c handles ranks 1 and
 * 2 only; the test images are (N, 8, 8)). Format 1.0: magic, version, uint16 LE header length,
 * the dict literal padded with spaces to a 64-byte boundary and ended by '\n', the data. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

#define NPY_ALIGN 64

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

int tr_npy_save_u8(const char *path, const uint8_t *data, const size_t *shape, unsigned rank,
		   char *err, size_t errlen)
{
	char dict[256], tmp[4096];
	unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0 };
	size_t len, count = 1, total;
	FILE *f;
	int n, ret;

	if (rank < 1 || rank > 4)
		return fail(err, errlen, -EINVAL, "%s: rank %u out of 1..4", path, rank);
	n = snprintf(dict, sizeof(dict), "{'descr': '|u1', 'fortran_order': False, 'shape': (");
	for (unsigned i = 0; i < rank; i++) {
		n += snprintf(dict + n, sizeof(dict) - (size_t)n, "%zu%s", shape[i],
			      rank == 1 ? "," : i + 1 < rank ? ", " : "");
		count *= shape[i];
	}
	n += snprintf(dict + n, sizeof(dict) - (size_t)n, "), }");
	len = (size_t)n;
	/* pad so that magic (6) + version (2) + length (2) + header is a multiple of 64 */
	total = (sizeof(pre) + len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
	len = total - sizeof(pre);
	if (len >= sizeof(dict))
		return fail(err, errlen, -EINVAL, "%s: header too long", path);
	memset(dict + n, ' ', len - 1 - (size_t)n);
	dict[len - 1] = '\n';
	pre[8] = (unsigned char)(len & 0xff);
	pre[9] = (unsigned char)(len >> 8);

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return fail(err, errlen, -ENAMETOOLONG, "%s: path too long", path);
	f = fopen(tmp, "wb");
	if (!f)
		return fail(err, errlen, -errno, "%s: %s", tmp, strerror(errno));
	if (fwrite(pre, 1, sizeof(pre), f) != sizeof(pre) || fwrite(dict, 1, len, f) != len ||
	    (count && fwrite(data, 1, count, f) != count)) {
		ret = fail(err, errlen, -EIO, "%s: write failed", tmp);
		fclose(f);
		goto out_remove;
	}
	if (fclose(f)) {
		ret = fail(err, errlen, -EIO, "%s: write failed", tmp);
		goto out_remove;
	}
	if (rename(tmp, path)) {
		ret = fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
		goto out_remove;
	}
	return 0;

out_remove:
	remove(tmp);
	return ret;
}
