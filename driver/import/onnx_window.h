/* The window of a 2-D Conv or MaxPool node (kernel, strides, pads, auto_pad, dilations,
 * ceil_mode) in the model format's terms. Private to driver/import. */
#ifndef TPU_DRIVER_ONNX_WINDOW_H
#define TPU_DRIVER_ONNX_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "onnx_graph.h"

struct ow_window {
	uint32_t kernel_h, kernel_w, stride_h, stride_w;
	uint32_t dilation_h, dilation_w; /* Conv: 0 none (1), else 2.. */
	uint32_t pad_top, pad_bottom, pad_left, pad_right;
	uint32_t ceil_mode; /* pools */
	uint32_t out_h, out_w;
};

/* The window of n over an in_h x in_w input. Conv (pool false): the kernel is the weights'
 * kh x kw, kernel_shape must agree, any dilations; MaxPool / AveragePool (pool true):
 * kernel_shape gives it, dilations must be 1, ceil_mode 0 or 1 (ONNX's output size: no window
 * starts in the end padding). Each pad must be below its (dilated) kernel size (the format's
 * limit; ONNX Runtime's too for pools). */
int ow_window(const struct ox *x, const Onnx__NodeProto *n, uint32_t in_h, uint32_t in_w,
	      int64_t kh, int64_t kw, bool pool, struct ow_window *win);

#endif
