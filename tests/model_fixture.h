/* Hand-built quantized models for the model tests (tests/test_model_*.c): random weights, biases
 * and scales, multipliers from tpu_quantize_multiplier, a LUT for SIGMOID/TANH layers, every
 * array malloc'ed so that tpu_model_free releases it. */
#ifndef TPU_TESTS_MODEL_FIXTURE_H
#define TPU_TESTS_MODEL_FIXTURE_H

#include <stdint.h>

#include "tpu/model.h"

/* One layer: type and the shape fields of struct tpu_layer (DENSE/MAXPOOL2D leave what they do
 * not use at 0). */
struct mfx_spec {
	uint32_t type;
	uint32_t kernel_h, kernel_w, stride_h, stride_w;
	uint32_t pad_top, pad_bottom, pad_left, pad_right;
	uint32_t out_c, act;
	uint32_t dilation, groups; /* CONV2D: both axes' dilation and the groups (0: none) */
	uint32_t ceil_mode, avg_mode, avg_flags; /* pools (AVGPOOL2D in ONNXRT mode gets an
						  * output quantization of its own) */
};

/* A valid model of the given layers on an in_h x in_w x in_c input, random values from *seed.
 * Asserts (Check) on failure. */
struct tpu_model *mfx_build(uint64_t *seed, const char *name, uint32_t in_h, uint32_t in_w,
			    uint32_t in_c, const struct mfx_spec *spec, uint32_t n_layers);

/* The standard small model: CONV2D 3x3 pad 1 (+RELU, 3 channels) on 6x6x2, MAXPOOL2D 2x2/2,
 * DENSE 27 -> 4 with SIGMOID (LUT). */
struct tpu_model *mfx_small(uint64_t *seed);

/* mfx_small with every format-2 field set: CONV2D in SINGLE, DENSE in FLOAT rounding, uint8
 * input and output, input rounded half to even, weight zero points (per tensor on the CONV2D,
 * per channel on the DENSE). */
struct tpu_model *mfx_small_v2(uint64_t *seed);

/* Recompute layer i's multiplier/shift from its scales and rounding mode (after a test changed
 * one). */
void mfx_requantize(struct tpu_model *m, uint32_t i);

/* Make m's last layer (a CONV2D or DENSE) the int32 output layer (out_type INT32, format 2.2),
 * with a random bias and per-channel weight zero points that the sums must include. */
void mfx_int32_output(uint64_t *seed, struct tpu_model *m);

/* Assert that a and b are the same model, field by field and array by array. */
void mfx_assert_equal(const struct tpu_model *a, const struct tpu_model *b);

#endif
