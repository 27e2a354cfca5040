/* Private helpers shared by the training ops (driver/train/train_*.c). */
#ifndef TPU_DRIVER_TRAIN_PRIV_H
#define TPU_DRIVER_TRAIN_PRIV_H

#include <stddef.h>

/* Grow the buffer whose pointer bufp points at (a float ** or uint16_t **; *cap elements of esz
 * bytes) to hold n elements; the contents are not kept. Returns 0 or -ENOMEM (the buffer then
 * NULL and *cap 0). */
int train_reserve(void *bufp, size_t *cap, size_t n, size_t esz);

/* db (cols) = the column sums of dy (rows x cols), fp32, rows in order. */
void train_col_sums(const float *dy, size_t rows, size_t cols, float *db);

#endif /* TPU_DRIVER_TRAIN_PRIV_H */
