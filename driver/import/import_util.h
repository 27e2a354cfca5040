/* What the ONNX and TFLite importers share: reading the model file, the model's name, and the
 * final validation whose message names the layer. Private to driver/import. */
#ifndef TPU_DRIVER_IMPORT_UTIL_H
#define TPU_DRIVER_IMPORT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "tpu/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format fmt into err (when err and errlen). Return -EINVAL. */
__attribute__((format(printf, 3, 4))) int imp_fail(char *err, size_t errlen, const char *fmt, ...);
__attribute__((format(printf, 3, 0))) int imp_vfail(char *err, size_t errlen, const char *fmt,
						    va_list ap);

/* The whole regular file at path, at most max bytes, into *buf (malloc'ed, freed by the caller).
 * Messages start with the path. Returns 0, -ENOENT, -EIO, -EINVAL (not a regular file, too
 * large; limit names what imposes max) or -ENOMEM. */
int imp_read_file(const char *path, size_t max, const char *limit, uint8_t **buf, size_t *len,
		  char *err, size_t errlen);

/* name cut to TPU_MODEL_NAME_MAX - 1 printable bytes into m->name; fallback when nothing is
 * left. */
void imp_set_name(struct tpu_model *m, const char *name, const char *fallback);

/* tpu_model_validate(m); on failure *layer is the layer its message is about (UINT32_MAX: none)
 * and why holds the message. */
int imp_validate(const struct tpu_model *m, char *why, size_t whylen, uint32_t *layer);

/* Import the file at path (at most max bytes, limit naming what imposes it) with
 * mem(data, len, ctx, err, errlen); its message is prefixed with the path. Returns what
 * imp_read_file or mem returns. */
typedef int (*imp_mem_fn)(const void *data, size_t len, void *ctx, char *err, size_t errlen);
int imp_import_file(const char *path, size_t max, const char *limit, imp_mem_fn mem, void *ctx,
		    char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
