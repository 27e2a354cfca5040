"""A writer of .tpum model files, format 2.0 (docs/model-format.md), for the export check's random
models: CONV2D, MAXPOOL2D and DENSE layers with any rounding mode, weight zero points and the
multipliers and shifts the C loader recomputes from the scales (tpu_quantize_multiplier for
DOUBLE and SINGLE, tpu_float_multiplier for FLOAT), computed here exactly as C does, so a file
the loader refuses is a failure of the check, not a silent difference."""
import math
import struct
import zlib
from fractions import Fraction

import numpy as np

CONV2D, MAXPOOL2D, DENSE = 1, 2, 3
DOUBLE, SINGLE, FLOAT = 0, 1, 2
SHIFT_MIN, SHIFT_MAX = -31, 30


def quantize_multiplier(r):
    """tpu_quantize_multiplier(r) (sw/golden/numerics.c): frexp, then round(q * 2^31) half
    away from zero, exactly."""
    if r == 0.0:
        return 0, 0
    q, e = math.frexp(r)
    fixed = math.floor(Fraction(q) * 2**31 + Fraction(1, 2))
    if fixed == 2**31:
        fixed //= 2
        e += 1
    if e < -31:
        return 0, 0
    assert e <= SHIFT_MAX, r
    return fixed, e


def float_multiplier(r32):
    """tpu_float_multiplier(r) of an fp32 r: its 24-bit significand << 7, the exponent."""
    q, e = math.frexp(float(r32))
    if e < SHIFT_MIN:
        return 0, 0
    assert e <= SHIFT_MAX, r32
    return int(q * 2**24) << 7, e


def multipliers(in_scale, w_scale, out_scale, rnd):
    """The per-channel multiplier and shift the loader expects (model_check.c check_channels)."""
    ms = []
    for w in w_scale:
        if rnd == FLOAT:
            p = np.float32(np.float32(in_scale) * np.float32(w))
            ms.append(float_multiplier(np.float32(p / np.float32(out_scale))))
        else:
            ms.append(quantize_multiplier(float(np.float32(in_scale)) * float(np.float32(w))
                                          / float(np.float32(out_scale))))
    return [m for m, _ in ms], [s for _, s in ms]


def _section(tag, body):
    head = tag + struct.pack("<I", len(body))
    return head + body + struct.pack("<I", zlib.crc32(head + body))


def _arr(fmt, values):
    values = list(values)
    return struct.pack("<I", len(values)) + struct.pack(f"<{len(values)}{fmt}", *values)


def write(path, name, in_shape, in_scale, in_zp, layers, num_classes):
    """Write a format-2.0 file. layers: dicts with type, kernel (kh, kw), stride, pads (top,
    bottom, left, right), out_c, act, out_scale, out_zp and, for CONV2D/DENSE, weights (K x
    out_c int8, row-major, HWIO for CONV2D), bias, w_scale, round, b_zp (a list: none, one or
    out_c values)."""
    h, w, c = in_shape
    modl = name.encode().ljust(32, b"\0") + struct.pack(
        "<IIIfifIffIIII", h, w, c, in_scale, in_zp, 1.0, num_classes, 0.0, 0.0, len(layers),
        0, 0, 0)
    body = _section(b"MODL", modl)
    scale = in_scale
    for i, L in enumerate(layers):
        pool = L["type"] == MAXPOOL2D
        head = struct.pack("<II8IIIfi", i, L["type"], *L.get("kernel", (0, 0)),
                           *L.get("stride", (0, 0)), *L.get("pads", (0, 0, 0, 0)),
                           0 if pool else L["out_c"], L.get("act", 0),
                           scale if pool else L["out_scale"], L["out_zp"])
        head += struct.pack("<6I", 0, 0, 0, 0, 0, 0)  # dilation, groups, ceil, avg mode/flags
        if pool:
            arrays = _arr("b", []) + _arr("i", []) + _arr("f", []) + _arr("i", []) * 2
            arrays += _arr("b", []) + _arr("i", []) + struct.pack("<I", 0)
        else:
            mult, shift = multipliers(scale, L["w_scale"], L["out_scale"], L["round"])
            arrays = (_arr("b", L["weights"]) + _arr("i", L["bias"]) + _arr("f", L["w_scale"])
                      + _arr("i", mult) + _arr("i", shift) + _arr("b", [])
                      + _arr("i", L.get("b_zp", [])) + struct.pack("<I", L["round"]))
            scale = L["out_scale"]
        body += _section(b"LAYR", head + arrays)
    header = b"TPUM" + struct.pack("<HHI", 2, 0, 16 + len(body))
    data = header + struct.pack("<I", zlib.crc32(header)) + body
    with open(path, "wb") as f:
        f.write(data)
