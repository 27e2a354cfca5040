"""tpu.Device: an open tpu device (tpu_open), its identity, counters and GEMMs."""
import ctypes

import numpy as np

from . import _args
from ._owner import Owner
from ._lib import (FEATURES_BF16_MASK, FEATURES_ROUND_MASK, GemmParams, Info, Perf, check, fields,
                   lib, ptr, text)

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
_INT8_ONLY = ("multiplier", "shift", "out_zero_point", "clamp", "lut", "round", "b_zero_point")
# enum tpu_round (include/tpu/numerics.h)
ROUNDING = {"double": 0, "single": 1, "float": 2}


class Device(Owner):
    """A device opened by URI, as the CLI's --device takes it ("golden:n=16",
    "golden:bf16=1", "sim:n=8", ...; include/tpu/tpu.h, README "Device URIs").

    Use it as a context manager, or call close(). Not thread-safe: one thread at a time per
    device, as the C library."""

    def __init__(self, uri="golden"):
        if not isinstance(uri, str):
            raise ValueError(f"uri: {uri!r} is not a string")
        self.uri = uri
        self._train = None  # the TrainContext of bf16 matmuls, made on first use
        self._dev = ctypes.c_void_p()
        check(lib.tpu_open(uri.encode(), ctypes.byref(self._dev)), f"open '{uri}'",
              lib.tpu_last_open_error)
        self._live = True

    # ------------------------------------------------------------------ lifecycle
    def _release(self):
        if self._train is not None:
            self._train.close()
        lib.tpu_close(self._dev)

    @property
    def handle(self):
        """The tpu_dev pointer (ctypes.c_void_p); ValueError once closed."""
        if not self._live:
            raise ValueError(f"device '{self.uri}' is closed")
        return self._dev

    # ------------------------------------------------------------------ identity and counters
    def info(self):
        """struct tpu_info as a dict (id, version, array_n, ub_rows, acc_rows, fifo_tiles,
        num_queues, num_windows, max_queue_entries, timeout_units, queue_depth, opcodes,
        features, backend), plus bf16: whether the device has the bf16 mode, and rounding:
        the requantization roundings it has ("double" always, "single" and "float" with
        FEATURES.ROUND)."""
        i = Info()
        check(lib.tpu_get_info(self.handle, ctypes.byref(i)), "info")
        d = fields(i)
        d["backend"] = text(i.backend)
        d["bf16"] = bool(i.features & FEATURES_BF16_MASK)
        d["rounding"] = list(ROUNDING) if i.features & FEATURES_ROUND_MASK else ["double"]
        return d

    def perf(self):
        """The performance counters (struct tpu_perf) as a dict."""
        p = Perf()
        check(lib.tpu_perf_read(self.handle, ctypes.byref(p)), "perf")
        return fields(p)

    def perf_clear(self):
        check(lib.tpu_perf_clear(self.handle), "perf_clear")

    # ------------------------------------------------------------------ GEMM
    def matmul(self, a, b, *, dtype="int8", bias=None, in_zero_point=0, multiplier=None,
               shift=None, out_zero_point=None, clamp=None, lut=None, round=None,
               b_zero_point=None):
        """C = A·B on the device.

        dtype "int8" (tpu_gemm): a int8 (m, k), b int8 (k, n), bias None or n integers.
        Without multiplier C is int32 (m, n): (A - in_zero_point)·B + bias. With multiplier
        (one value or n, 0..2**31-1) and shift (one or n, -31..30, default 0) C is int8,
        requantized per tensor or per channel, + out_zero_point (default 0), clamped to clamp
        (lo, hi) (default (-128, 127)), then through lut (256 int8) when given. round: the
        requantization rounding, "double" (TFLite reference, default), "single" (LiteRT's
        optimized kernels) or "float" (ONNX Runtime; multiplier/shift from an fp32 scale,
        tpu_float_multiplier). b_zero_point (one value or n, -128..127): B's zero points,
        C = f((A - in_zero_point)·(B - b_zero_point) + bias).

        dtype "bf16" (a device with the bf16 mode): a, b float32, rounded to bf16 to nearest
        even, fp32 sums in the device's tile order; bias None or n float32 added after the
        last K-tile; C float32 (m, n). The int8 parameters are refused.

        ValueError for a wrong dtype, shape or range (naming the argument); TpuError when the
        library refuses or the device fails (the K limit, a device without bf16, ...)."""
        if dtype == "int8":
            return self._matmul_int8(a, b, bias, in_zero_point, multiplier, shift,
                                     out_zero_point, clamp, lut, round, b_zero_point)
        if dtype == "bf16":
            given = dict(multiplier=multiplier, shift=shift, out_zero_point=out_zero_point,
                         clamp=clamp, lut=lut, round=round, b_zero_point=b_zero_point)
            for name in _INT8_ONLY:
                if given[name] is not None:
                    raise ValueError(f"{name}: int8 only (not with dtype='bf16')")
            if in_zero_point != 0:
                raise ValueError("in_zero_point: int8 only (not with dtype='bf16')")
            return self._matmul_bf16(a, b, bias)
        raise ValueError(f"dtype: {dtype!r}, expected 'int8' or 'bf16'")

    def _matmul_int8(self, a, b, bias, in_zero_point, multiplier, shift, out_zero_point,
                     clamp, lut, round, b_zero_point):
        a = _args.array("a", a, np.int8, 2)
        b = _args.array("b", b, np.int8, 2)
        m, k, n = _args.matmul_shapes(a, b)
        p = GemmParams()
        lib.tpu_gemm_params_init(ctypes.byref(p))
        p.in_zero_point = _args.int_scalar("in_zero_point", in_zero_point, -128, 127)
        keep = []  # the arrays p points into
        if b_zero_point is not None:
            keep.append(_args.int_vector("b_zero_point", b_zero_point, n, -128, 127,
                                         scalar_ok=True))
            p.b_zero_point = ptr(keep[-1], ctypes.c_int32)
            p.b_zp_channels = keep[-1].size
        if bias is not None:
            keep.append(_args.int_vector("bias", bias, n, INT32_MIN, INT32_MAX))
            p.bias = ptr(keep[-1], ctypes.c_int32)
        if multiplier is None:
            for name, val in (("shift", shift), ("out_zero_point", out_zero_point),
                              ("clamp", clamp), ("lut", lut), ("round", round)):
                if val is not None:
                    raise ValueError(f"{name}: needs multiplier (requantized int8 output)")
            out = np.empty((m, n), np.int32)
        else:
            mult = _args.int_vector("multiplier", multiplier, n, 0, INT32_MAX, scalar_ok=True)
            sh = _args.int_vector("shift", 0 if shift is None else shift, n, -31, 30,
                                  scalar_ok=True)
            channels = max(mult.size, sh.size)
            mult, sh = (np.ascontiguousarray(np.broadcast_to(v, channels), np.int32)
                        for v in (mult, sh))
            keep += [mult, sh]
            p.quant_channels = channels
            p.multiplier, p.shift = ptr(mult, ctypes.c_int32), ptr(sh, ctypes.c_int32)
            if round is not None:
                if round not in ROUNDING:
                    raise ValueError(f"round: {round!r}, expected one of "
                                     f"{', '.join(map(repr, ROUNDING))}")
                p.round = ROUNDING[round]
            p.out_zero_point = _args.int_scalar(
                "out_zero_point", 0 if out_zero_point is None else out_zero_point, -128, 127)
            lo, hi = self._clamp((-128, 127) if clamp is None else clamp)
            p.clamp_min, p.clamp_max = lo, hi
            if lut is not None:
                keep.append(_args.array("lut", lut, np.int8, 1))
                if keep[-1].shape != (256,):
                    raise ValueError(f"lut: shape {keep[-1].shape}, expected (256,)")
                p.lut = ptr(keep[-1], ctypes.c_int8)
            out = np.empty((m, n), np.int8)
        rc = lib.tpu_gemm(self.handle, m, k, n, ptr(a, ctypes.c_int8), ptr(b, ctypes.c_int8),
                          ctypes.byref(p), out.ctypes.data)
        check(rc, "matmul", lambda: lib.tpu_gemm_last_error(self.handle))
        return out

    @staticmethod
    def _clamp(clamp):
        try:
            lo, hi = clamp
        except (TypeError, ValueError):
            raise ValueError(f"clamp: {clamp!r}, expected (lo, hi)") from None
        lo = _args.int_scalar("clamp", lo, -128, 127)
        hi = _args.int_scalar("clamp", hi, -128, 127)
        if lo > hi:
            raise ValueError(f"clamp: ({lo}, {hi}): lo above hi")
        return lo, hi

    def _matmul_bf16(self, a, b, bias):
        from .train import TrainContext  # train.py builds on this module
        if self._train is None:
            self._train = TrainContext(self)
        return self._train.gemm(a, b, bias=bias)
