/* Shared by the training op tests (test_train_ops.c, test_train_conv.c): the devices under test,
 * a device with a training context, random fills and the error bound of a device product. */
#ifndef TPU_TESTS_TRAIN_FIXTURE_H
#define TPU_TESTS_TRAIN_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/train.h"

#define TRAIN_MAX_DEVS 4

/* The URIs of $TPU_TRAIN_DEVICES (space-separated), default "golden:bf16=1
 * golden:n=4,bf16=1"; returns how many. */
int train_devices(char uris[TRAIN_MAX_DEVS][128]);

/* Open uri and bind a training context to it (failing the test if either fails). */
void train_open(const char *uri, tpu_dev **dev, struct tpu_train_ctx *ctx);
void train_close(tpu_dev *dev, struct tpu_train_ctx *ctx);

/* n values uniform in [-1, 1] as float, and the same values in double. */
void train_fill(float *f, double *d, size_t n, uint64_t *st);

/* calloc of n 8-byte elements (at least one), failing the test when it fails. */
void *train_zalloc(size_t n);

/* The bound of docs/training.md "Error bound" on a device product of k terms whose absolute
 * products (and bias) sum to mag. */
double train_bound(double mag, size_t k);

#endif /* TPU_TESTS_TRAIN_FIXTURE_H */
