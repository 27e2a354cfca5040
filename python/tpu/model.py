"""tpu.Model: a quantized model file (.tpum, docs/model-format.md) run on a device, with the
input rules of `tpu run`."""
import ctypes
from dataclasses import dataclass

import numpy as np

from ._owner import Owner
from ._lib import (LAYER_STAT_FIELDS, ModelHead, ModelStats, check, lib, ptr, text)

# enum tpu_tflite_kernels (include/tpu/import.h)
TFLITE_KERNELS = {"reference": 0, "xnnpack": 1}
# struct tpu_model io_layout flags (include/tpu/model.h enum tpu_io_layout)
LAYOUT_IN_NCHW, LAYOUT_OUT_NCHW = 1, 2
# struct tpu_model out_type TPU_IO_INT32 (include/tpu/model.h enum tpu_model_io_type)
OUT_INT32 = 2

# raw input dtypes `tpu run` accepts (sw/cli/model_input.c), each value taken as a float
_RAW_DTYPES = (np.int8, np.uint8, np.int32, np.float32, np.uint16)


@dataclass
class RunResult:
    """What Model.run returns: outputs, the last layer's int8 values (batch, num_classes),
    int32 ones for a model with an int32 output (Model.output_int32: ONNX MatMulInteger,
    ConvInteger), or (batch, C, H, W) for a model whose output is NCHW (Model.output_nchw);
    predictions, their argmax (int32, batch; the first on ties, as `tpu run -o` writes them);
    stats, the device's figures (cycles, mxu_busy_cycles, macs, dma_read_bytes,
    dma_write_bytes, wall_seconds) in all under "total" and per layer under "layers"."""
    outputs: np.ndarray
    predictions: np.ndarray
    stats: dict


def _stats_dict(s):
    return {name: getattr(s, name) for name in LAYER_STAT_FIELDS + ("wall_seconds",)}


class Model(Owner):
    """A model loaded and validated by tpu_model_load (Model.load)."""

    def __init__(self, handle, path):
        self._m = handle
        self._live = True
        self.path = path
        head = ctypes.cast(handle, ctypes.POINTER(ModelHead)).contents
        self.name = text(head.name)
        self.input_shape = (head.in_h, head.in_w, head.in_c)
        self.num_classes = head.num_classes
        layout = lib.tpu_model_io_layout(handle)
        # NCHW tensors (a model imported from ONNX): the user's order, reordered here
        self.input_nchw = bool(layout & LAYOUT_IN_NCHW)
        self.output_nchw = bool(layout & LAYOUT_OUT_NCHW)
        self.output_int32 = lib.tpu_model_out_type(handle) == OUT_INT32
        oh, ow, oc = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_uint32()
        lib.tpu_model_layer_out_shape(handle, head.n_layers - 1, ctypes.byref(oh),
                                      ctypes.byref(ow), ctypes.byref(oc))
        self.output_shape = (oh.value, ow.value, oc.value)
        self.n_layers = head.n_layers
        self.input_scale, self.input_zero_point = head.in_.scale, head.in_.zero_point
        self.input_range = head.in_range
        self.float_accuracy, self.int8_accuracy = head.float_accuracy, head.int8_accuracy

    @classmethod
    def load(cls, path):
        """Load path (str or os.PathLike); TpuError with the loader's reason otherwise."""
        path = str(path)
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = lib.tpu_model_load(path.encode(), ctypes.byref(handle), err, len(err))
        check(rc, f"load '{path}'", err.value)
        return cls(handle, path)

    @classmethod
    def import_onnx(cls, path, name=None):
        """Import a quantized ONNX model (tpu_import_onnx, docs/import.md): QOperator or QDQ,
        requantized as ONNX Runtime does. name: the model's name (default: the graph's).
        TpuError naming the node, op type and attribute for anything unsupported."""
        path = str(path)
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = lib.tpu_import_onnx(path.encode(), None if name is None else name.encode(),
                                 ctypes.byref(handle), err, len(err))
        check(rc, f"import '{path}'", err.value)
        return cls(handle, path)

    @classmethod
    def import_tflite(cls, path, name=None, kernels="reference"):
        """Import an int8 TFLite model (tpu_import_tflite, docs/import.md "TFLite"), rounding as
        the LiteRT kernel set `kernels` does: "reference" (BUILTIN_REF, the default) or
        "xnnpack" (the default interpreter). TpuError naming the operator and option for
        anything unsupported."""
        if kernels not in TFLITE_KERNELS:
            raise ValueError(f"kernels: {kernels!r}, expected one of "
                             f"{', '.join(map(repr, TFLITE_KERNELS))}")
        path = str(path)
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = lib.tpu_import_tflite(path.encode(), None if name is None else name.encode(),
                                   TFLITE_KERNELS[kernels], ctypes.byref(handle), err, len(err))
        check(rc, f"import '{path}'", err.value)
        return cls(handle, path)

    def save(self, path):
        """Write the model to path (str or os.PathLike) as a .tpum file (tpu_model_save:
        the old file stays untouched on any failure)."""
        path = str(path)
        err = ctypes.create_string_buffer(512)
        rc = lib.tpu_model_save(self._handle(), path.encode(), err, len(err))
        check(rc, f"save '{path}'", err.value)

    def _release(self):
        lib.tpu_model_free(self._m)

    def _handle(self):
        if not self._live:
            raise ValueError(f"model '{self.path}' is closed")
        return self._m

    def _examples(self, name, x):
        """x reshaped to (batch, h*w*c) under `tpu run`'s shape rules: (h*w*c,) for one
        example, (B, h*w*c), (B, h, w) when c is 1, (B, h, w, c); for a model whose input is
        NCHW (B, c, h, w) instead, and the flat forms in c, h, w order, reordered to the
        device's h, w, c."""
        h, w, c = self.input_shape
        per = h * w * c
        if not isinstance(x, np.ndarray):
            raise ValueError(f"{name}: {type(x).__name__}, expected a NumPy array")
        full = (c, h, w) if self.input_nchw else (h, w, c)
        ok = {1: x.shape == (per,), 2: x.ndim == 2 and x.shape[1] == per,
              3: c == 1 and x.shape[1:] == (h, w), 4: x.shape[1:] == full}.get(x.ndim)
        if not ok:
            raise ValueError(f"{name}: shape {x.shape} does not fit model '{self.name}': "
                             f"expected (B, {full[0]}, {full[1]}, {full[2]})"
                             + (" (NCHW, the model's input layout)" if self.input_nchw else "")
                             + f", (B, {per}) or ({per},)"
                             + (f" or (B, {h}, {w})" if c == 1 else ""))
        if self.input_nchw:
            x = x.reshape(-1, c, h, w).transpose(0, 2, 3, 1)
        x = x.reshape(-1, per)
        if x.shape[0] == 0:
            raise ValueError(f"{name}: shape {x.shape} holds no examples")
        return x

    def quantize(self, x):
        """Raw inputs (int8, uint8, int32, float32 or uint16, any shape Model.run takes) as
        the model's int8 inputs (batch, h*w*c, the device's order): divided by the input range,
        quantized with the input scale and zero point (tpu_model_quantize_input), as `tpu run`
        does."""
        x = self._examples("x", x)
        if x.dtype not in [np.dtype(t) for t in _RAW_DTYPES]:
            raise ValueError(f"x: dtype {x.dtype.name}, expected one of "
                             + ", ".join(np.dtype(t).name for t in _RAW_DTYPES))
        raw = np.ascontiguousarray(x, dtype=np.float32)
        q = np.empty(raw.shape, np.int8)
        lib.tpu_model_quantize_input(self._handle(), ptr(raw, ctypes.c_float), raw.size,
                                     ptr(q, ctypes.c_int8))
        return q

    def run(self, device, x, *, quantized=False):
        """Run every example of x on device (tpu_model_run, or tpu_model_run_i32 for an int32
        output) and return a RunResult.

        x holds raw values, quantized as Model.quantize says, or with quantized=True int8
        values taken as they are."""
        if quantized:
            q = self._examples("x", x)
            if q.dtype != np.int8:
                raise ValueError(f"x: dtype {q.dtype.name}, but quantized inputs must be int8")
            q = np.ascontiguousarray(q)
        else:
            q = self.quantize(x)
        batch = q.shape[0]
        st = ModelStats()
        if self.output_int32:
            out = np.empty((batch, self.num_classes), np.int32)
            rc = lib.tpu_model_run_i32(device.handle, self._handle(), batch,
                                       ptr(q, ctypes.c_int8), ptr(out, ctypes.c_int32),
                                       ctypes.byref(st))
        else:
            out = np.empty((batch, self.num_classes), np.int8)
            rc = lib.tpu_model_run(device.handle, self._handle(), batch, ptr(q, ctypes.c_int8),
                                   ptr(out, ctypes.c_int8), ctypes.byref(st))
        check(rc, f"run '{self.name}' on '{device.uri}'",
              lambda: lib.tpu_ops_last_error(device.handle))
        stats = {"total": _stats_dict(st.total),
                 "layers": [_stats_dict(st.layer[i]) for i in range(st.n_layers)]}
        if self.output_nchw:
            oh, ow, oc = self.output_shape
            out = np.ascontiguousarray(out.reshape(batch, oh, ow, oc).transpose(0, 3, 1, 2))
        pred = np.argmax(out.reshape(batch, -1), axis=1).astype(np.int32)
        return RunResult(out, pred, stats)
