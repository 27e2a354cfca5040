/* The inputs of a model subcommand (`tpu run`, `tpu bench model`): the model file and
 * DATA.npy turned into int8 examples for it. One rule for both commands: DATA.npy holds raw
 * values (int8, uint8, int32 or float32), divided by the model's input range and quantized
 * with its input scale and zero point, unless `quantized` says it is already quantized (int8,
 * or uint8 for a model whose input is uint8, taken as the int8 values u - 128). */
#ifndef TPU_CLI_MODEL_INPUT_H
#define TPU_CLI_MODEL_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "tpu/model.h"

/* tpu_model_load(path) into *m. Returns 0, or the library's -errno after printing one line
 * naming the file (and with *m NULL). */
int cli_model_load(const struct cli_ctx *ctx, const char *path, struct tpu_model **m);

/* DATA.npy at path as the int8 inputs of m: *q (malloc'ed, the caller frees it) gets
 * *batch x (in_h * in_w * in_c) values in the device's NHWC order. Shapes accepted: (B, H*W*C),
 * (B, H, W, C), (B, H, W) when C is 1, and one example (H*W*C,); B must be at least 1. For a
 * model whose io_layout has TPU_LAYOUT_IN_NCHW: (B, C, H, W) instead of (B, H, W, C), and the
 * flat forms in C, H, W order (the values are reordered after quantizing). With quantized the
 * dtype must be int8 and the values are copied. Returns 0, -EINVAL (an unreadable file, bad
 * shape or dtype) or -ENOMEM, after printing one line naming the file. */
int cli_model_input_load(const struct cli_ctx *ctx, const char *path, const struct tpu_model *m,
			 bool quantized, int8_t **q, size_t *batch);

/* Reorder batch examples of an h x w x c tensor of es-byte elements in place: NHWC to NCHW
 * (to_nchw) or back. Returns 0 or -ENOMEM (one line printed). */
int cli_reorder(const struct cli_ctx *ctx, void *v, size_t es, size_t batch, uint32_t h,
		uint32_t w, uint32_t c, bool to_nchw);

#endif /* TPU_CLI_MODEL_INPUT_H */
