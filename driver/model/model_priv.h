/* Private helpers shared by the model sources (driver/model_*.c): error messages, the shape of
 * each layer, and the limits every model must respect (docs/model-format.md "Limits"). */
#ifndef TPU_DRIVER_MODEL_PRIV_H
#define TPU_DRIVER_MODEL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpu/model.h"

/* Limits that keep every size computation far from overflow. */
#define TPU_MODEL_MAX_DIM 65535u	 /* in_h/in_w/in_c, kernel, stride, out_c */
#define TPU_MODEL_MAX_ELEMS (1u << 24)	 /* elements of any tensor of one example */
#define TPU_MODEL_MAX_WEIGHTS (1u << 28) /* int8 weights of one layer */

/* Versions of the file format this code writes and reads (docs/model-format.md): a model that
 * uses only format-1 fields is written as 1.0, one with a format-2 field (a rounding mode, uint8
 * I/O, input rounding) as 2.0; the reader reads both majors. */
#define TPU_MODEL_FORMAT_MAJOR_MIN 1u
#define TPU_MODEL_FORMAT_MAJOR_MAX 2u
#define TPU_MODEL_FORMAT_MINOR 2u

/* Whether a layer type is a pool (MAXPOOL2D, AVGPOOL2D): no arrays, no requantization. */
static inline bool tpu_layer_is_pool(uint32_t type)
{
	return type == TPU_LAYER_MAXPOOL2D || type == TPU_LAYER_AVGPOOL2D;
}

/* Shape of one layer, from its input shape and its own fields. */
struct tpu_layer_geom {
	uint32_t in_h, in_w, in_c;
	uint32_t out_h, out_w, out_c;
	uint64_t k;	    /* GEMM depth: kernel_h*kernel_w*in_c (CONV2D), in elements (DENSE) */
	uint64_t n_weights; /* k x out_c (CONV2D, DENSE), else 0 */
	uint32_t n_chan;    /* length of bias/w_scale/multiplier/shift: out_c or 0 */
	uint32_t n_lut;	    /* 256 for SIGMOID/TANH, else 0 */
};

/* "CONV2D", "MAXPOOL2D", "DENSE", "AVGPOOL2D" or NULL for an unknown type. */
const char *tpu_layer_type_name(uint32_t type);

/* Format "layer i (TYPE): <fmt>" (or "layer i (type 7): ...") into err. Returns -EINVAL. */
__attribute__((format(printf, 5, 6))) int tpu_model_layer_fail(char *err, size_t errlen, uint32_t i,
							       uint32_t type, const char *fmt, ...);
/* Format fmt into err. Returns code. */
__attribute__((format(printf, 4, 5))) int tpu_model_fail(char *err, size_t errlen, int code,
							 const char *fmt, ...);

/* Check layer i's type and shape fields (type, kernel, stride, pad, out_c, act and every size
 * limit) against its input shape (in_h, in_w, in_c) and fill *g. Values (scales, arrays) are not
 * looked at. Returns 0 or -EINVAL with a message naming the layer and field. */
int tpu_model_layer_geom(const struct tpu_layer *l, uint32_t i, uint32_t in_h, uint32_t in_w,
			 uint32_t in_c, struct tpu_layer_geom *g, char *err, size_t errlen);

/* Check the model-level fields that do not depend on the layers (name, input shape and
 * quantization, in_range, accuracies, n_layers). Returns 0 or -EINVAL. */
int tpu_model_check_header(const struct tpu_model *m, char *err, size_t errlen);

/* CRC-32 (IEEE 802.3 / zlib: reflected 0xEDB88320, initial and final XOR all-ones) of len bytes,
 * continuing crc (0 to start). */
uint32_t tpu_model_crc32(uint32_t crc, const void *data, size_t len);

/* The file image of m (validated first): *out is malloc'ed, *out_len bytes. Returns 0, -EINVAL
 * (err says why) or -ENOMEM. tpu_model_save writes exactly these bytes. */
int tpu_model_serialize(const struct tpu_model *m, uint8_t **out, size_t *out_len, char *err,
			size_t errlen);

/* The major version m's file needs: 1 when every format-2 field is 0, else 2. */
uint32_t tpu_model_format_major(const struct tpu_model *m);

/* tpu_model_load_mem for a reader that knows the majors up to max_major (1: the format-1.0
 * reader's rules, which refuse a 2.0 file; tests/test_model_file.c). */
int tpu_model_load_mem_major(const void *data, size_t len, uint32_t max_major,
			     struct tpu_model **out, char *err, size_t errlen);

#endif /* TPU_DRIVER_MODEL_PRIV_H */
