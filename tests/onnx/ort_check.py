#!/usr/bin/env python3
"""Cross-check of `tpu import` against ONNX Runtime (docs/import.md, "Cross-check").

Builds small random graphs of every pattern the importer supports with onnx's helper API
(QOperator and QDQ forms, int8 and uint8 activations, per-tensor and per-channel weights,
ReLU/Clip, convolutions with strides and pads, max pooling, dense layers, a multi-layer chain,
MatMulInteger / ConvInteger with int32 outputs and folded Adds, compared as int32)
and a float CNN quantized by onnxruntime.quantization.quantize_static in 12 ways,
runs each in ONNX Runtime (default session options, CPU), writes the model, its inputs and
ONNX Runtime's outputs under --out, imports the model with `tpu import` and runs it with
`tpu run` on every device of --devices, comparing every output element. Prints exact counts
("N of N elements equal") and exits 1 on any difference or failure.

usage: ort_check.py --tpu build/bin/tpu --out build/onnx-check [--devices golden,sim,sim:n=8]
                    [--seed N] [--batch B]
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
I8, U8 = TensorProto.INT8, TensorProto.UINT8


class G:
    """A graph under construction: nodes, initializers, unique names."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, base):
        self.k += 1
        return f"{base}{self.k}"

    def const(self, base, arr):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def node(self, op, inputs, n_out=1, domain=None, **attrs):
        outs = [self.name(op.lower() + "_out") for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name(op), domain=domain,
                                           **attrs))
        return outs[0]

    def qparams(self, scale, zp, u8):
        return (self.const("scale", np.float32(scale)),
                self.const("zp", np.uint8(zp) if u8 else np.int8(zp)))


def act_zp(rng, u8):
    return int(rng.integers(90, 166)) if u8 else int(rng.integers(-40, 41))


def weights(rng, shape, u8w):
    """int8 weights, or uint8 ones (the full range of the type)."""
    if u8w:
        return rng.integers(0, 256, size=shape).astype(np.uint8)
    return rng.integers(-128, 128, size=shape).astype(np.int8)


def w_zps(rng, n, per_channel, u8w, asym):
    """Weight zero points: symmetric (int8 0, uint8 128) or asymmetric (any value of the type,
    per tensor or per channel)."""
    shape = n if per_channel else ()
    if not asym:
        return np.full(shape, 128 if u8w else 0, np.uint8 if u8w else np.int8)
    if u8w:
        return rng.integers(0, 256, size=shape).astype(np.uint8)
    return rng.integers(-128, 128, size=shape).astype(np.int8)


def w_scales(rng, n, per_channel):
    s = rng.uniform(0.002, 0.02, size=n if per_channel else 1).astype(np.float32)
    return s if per_channel else s[0]


def out_scale(rng, x_scale, w_scale, k):
    """An output scale that spreads the products over the int8 range, with some saturation."""
    return np.float32(x_scale * float(np.mean(w_scale)) * np.sqrt(k) * rng.uniform(30.0, 110.0))


class Chain:
    """Shape and quantization of the tensor a graph has reached (int32: the int32 sums of
    MatMulInteger / ConvInteger, the graph's output as it is)."""

    def __init__(self, name, shape, scale, zp, u8, int32=False):
        self.name, self.shape, self.scale, self.zp, self.u8 = name, list(shape), scale, zp, u8
        self.int32 = int32


def qop_input(g, rng, shape, u8, float_in):
    scale, zp = np.float32(rng.uniform(0.01, 0.05)), act_zp(rng, u8)
    if float_in:
        s, z = g.qparams(scale, zp, u8)
        t = g.node("QuantizeLinear", ["x", s, z])
        return Chain(t, shape, scale, zp, u8)
    return Chain("x", shape, scale, zp, u8)


def conv_out(c, out_c, k, stride, pads, dil):
    """Output shape of a convolution (dilated kernel extent (k - 1) * dil + 1)."""
    e = (k - 1) * dil + 1
    return [c.shape[0], out_c, (c.shape[2] + pads[0] + pads[2] - e) // stride + 1,
            (c.shape[3] + pads[1] + pads[3] - e) // stride + 1]


def conv_attrs(k, stride, pads, group, dil):
    a = {"kernel_shape": [k, k], "strides": [stride, stride], "pads": pads}
    if group > 1:
        a["group"] = group
    if dil > 1:
        a["dilations"] = [dil, dil]
    return a


def qop_conv(g, rng, c, out_c, k, stride, pads, per_channel, u8w, out_u8, bias=True,
             asym=False, group=1, dil=1):
    cg = c.shape[1] // group
    w = weights(rng, (out_c, cg, k, k), u8w)
    ws = w_scales(rng, out_c, per_channel)
    ys, yz = out_scale(rng, c.scale, ws, cg * k * k), act_zp(rng, out_u8)
    xs, xz = g.qparams(c.scale, c.zp, c.u8)
    wz = w_zps(rng, out_c, per_channel, u8w, asym)
    ins = [c.name, xs, xz, g.const("w", w), g.const("ws", ws), g.const("wz", wz),
           *g.qparams(ys, yz, out_u8)]
    if bias:
        ins.append(g.const("b", rng.integers(-3000, 3000, size=out_c).astype(np.int32)))
    t = g.node("QLinearConv", ins, **conv_attrs(k, stride, pads, group, dil))
    return Chain(t, conv_out(c, out_c, k, stride, pads, dil), ys, yz, out_u8)


def pool_out(n, k, s, lo, hi, ceil_mode):
    """ONNX's pooled size: floor or ceil, no window starting in the end padding."""
    span = n + lo + hi - k
    o = (-(-span // s) if ceil_mode else span // s) + 1
    return o - 1 if ceil_mode and (o - 1) * s >= n + lo else o


def pool_shape(c, k, stride, pads, ceil_mode):
    kh, kw = (k, k) if isinstance(k, int) else k
    return [c.shape[0], c.shape[1], pool_out(c.shape[2], kh, stride, pads[0], pads[2], ceil_mode),
            pool_out(c.shape[3], kw, stride, pads[1], pads[3], ceil_mode)]


def pool_attrs(k, stride, pads, ceil_mode):
    kh, kw = (k, k) if isinstance(k, int) else k
    a = {"kernel_shape": [kh, kw], "strides": [stride, stride]}
    if any(pads):
        a["pads"] = pads
    if ceil_mode:
        a["ceil_mode"] = 1
    return a


def maxpool(g, c, k, stride, pads=(0, 0, 0, 0), ceil_mode=0):
    t = g.node("MaxPool", [c.name], **pool_attrs(k, stride, list(pads), ceil_mode))
    return Chain(t, pool_shape(c, k, stride, pads, ceil_mode), c.scale, c.zp, c.u8)


def requant(rng, c):
    """Another quantization for a pool's output (an average's range is narrower)."""
    return (np.float32(c.scale * rng.uniform(0.4, 1.3)), act_zp(rng, c.u8))


def qop_avgpool(g, rng, c, k, stride, pads, ceil_mode, count_pad, global_=False):
    """com.microsoft QLinearAveragePool / QLinearGlobalAveragePool."""
    ys, yz = requant(rng, c)
    ins = [c.name, *g.qparams(c.scale, c.zp, c.u8), *g.qparams(ys, yz, c.u8)]
    if global_:
        t = g.node("QLinearGlobalAveragePool", ins, domain="com.microsoft", channels_last=0)
        return Chain(t, [c.shape[0], c.shape[1], 1, 1], ys, yz, c.u8)
    a = pool_attrs(k, stride, list(pads), ceil_mode)
    if count_pad:
        a["count_include_pad"] = 1
    t = g.node("QLinearAveragePool", ins, domain="com.microsoft", **a)
    return Chain(t, pool_shape(c, k, stride, pads, ceil_mode), ys, yz, c.u8)


def qdq_avgpool(g, rng, c, k, stride, pads, ceil_mode, count_pad, global_=False):
    """DequantizeLinear -> AveragePool / GlobalAveragePool -> QuantizeLinear."""
    x = dq(g, c)
    ys, yz = requant(rng, c)
    if global_:
        t = g.node("GlobalAveragePool", [x])
        shape = [c.shape[0], c.shape[1], 1, 1]
    else:
        a = pool_attrs(k, stride, list(pads), ceil_mode)
        if count_pad:
            a["count_include_pad"] = 1
        t = g.node("AveragePool", [x], **a)
        shape = pool_shape(c, k, stride, pads, ceil_mode)
    out = Chain(None, shape, ys, yz, c.u8)
    out.name = q(g, t, out)
    return out


def flatten(g, c, reshape=False):
    feat = int(np.prod(c.shape[1:]))
    if reshape:
        t = g.node("Reshape", [c.name, g.const("shape", np.array([-1, feat], np.int64))])
    else:
        t = g.node("Flatten", [c.name], axis=1)
    return Chain(t, [c.shape[0], feat], c.scale, c.zp, c.u8)


def qop_matmul(g, rng, c, n, per_channel, u8w, out_u8, asym=False):
    """QLinearMatMul of c, (batch, K) or (batch, M, K), by a constant (K, n)."""
    k = c.shape[-1]
    w = weights(rng, (k, n), u8w)
    ws = w_scales(rng, n, per_channel)
    ys, yz = out_scale(rng, c.scale, ws, k), act_zp(rng, out_u8)
    wz = w_zps(rng, n, per_channel, u8w, asym)
    t = g.node("QLinearMatMul", [c.name, *g.qparams(c.scale, c.zp, c.u8), g.const("w", w),
                                 g.const("ws", ws), g.const("wz", wz), *g.qparams(ys, yz, out_u8)])
    return Chain(t, [*c.shape[:-1], n], ys, yz, out_u8)


def zp_const(g, zp, u8):
    return g.const("zp", np.uint8(zp) if u8 else np.int8(zp))


def int_matmul(g, rng, c, n, u8w, per_channel, add=None):
    """MatMulInteger of c, (batch, K) or (batch, M, K), by a constant (K, n) with random weight
    zero points; add: None, "channel" (an int32 (n,) addend) or "scalar" (an int32 scalar
    addend given as Add's first input), folded into the bias."""
    k = c.shape[-1]
    w = weights(rng, (k, n), u8w)
    wz = w_zps(rng, n, per_channel, u8w, True)
    t = g.node("MatMulInteger", [c.name, g.const("w", w), zp_const(g, c.zp, c.u8),
                                 g.const("wz", wz)])
    return int_add(g, rng, Chain(t, [*c.shape[:-1], n], 1.0, 0, False, int32=True), n, add,
                   [n])


def int_conv(g, rng, c, out_c, k, stride, pads, u8w, add=None, group=1, dil=1):
    """ConvInteger (ONNX Runtime takes one weight zero point per tensor) with an optional
    per-channel (1, out_c, 1, 1) or scalar int32 Add."""
    cg = c.shape[1] // group
    w = weights(rng, (out_c, cg, k, k), u8w)
    wz = w_zps(rng, out_c, False, u8w, True)
    t = g.node("ConvInteger", [c.name, g.const("w", w), zp_const(g, c.zp, c.u8),
                               g.const("wz", wz)], **conv_attrs(k, stride, pads, group, dil))
    out = Chain(t, conv_out(c, out_c, k, stride, pads, dil), 1.0, 0, False, int32=True)
    return int_add(g, rng, out, out_c, add, [1, out_c, 1, 1])


def int_add(g, rng, c, n, add, shape):
    if add is None:
        return c
    if add == "scalar":
        t = g.node("Add", [g.const("b", np.int32(rng.integers(-50000, 50000))), c.name])
    else:
        b = rng.integers(-50000, 50000, size=shape).astype(np.int32)
        t = g.node("Add", [c.name, g.const("b", b)])
    return Chain(t, c.shape, 1.0, 0, False, int32=True)


def dq(g, c):
    return g.node("DequantizeLinear", [c.name, *g.qparams(c.scale, c.zp, c.u8)])


def q(g, t, c):
    return g.node("QuantizeLinear", [t, *g.qparams(c.scale, c.zp, c.u8)])


def qdq_weights(g, rng, shape, chan_axis, per_channel, u8w, asym=False):
    w = weights(rng, shape, u8w)
    n = shape[chan_axis]
    ws = w_scales(rng, n, per_channel)
    wz = w_zps(rng, n, per_channel, u8w, asym)
    attrs = {"axis": chan_axis} if per_channel else {}
    t = g.node("DequantizeLinear", [g.const("w", w), g.const("ws", ws), g.const("wz", wz)],
               **attrs)
    return t, ws


def qdq_bias(g, rng, c, ws, n):
    """int32 bias with scale x_scale * w_scale, as ONNX Runtime's quantizer writes it."""
    b = rng.integers(-3000, 3000, size=n).astype(np.int32)
    bs = np.asarray(np.float32(c.scale) * np.asarray(ws, np.float32), np.float32)
    ins = [g.const("b", b), g.const("bs", bs)]
    return g.node("DequantizeLinear", ins, axis=0) if bs.ndim else g.node("DequantizeLinear", ins)


def qdq_act(g, rng, t, act, out_u8):
    """ReLU or Clip before the QuantizeLinear; the zero point makes ONNX Runtime drop it."""
    if act == "relu":
        return g.node("Relu", [t]), (0 if out_u8 else -128)
    if act == "clip":
        return g.node("Clip", [t, g.const("lo", np.float32(0.0)),
                               g.const("hi", np.float32(1e4))]), (0 if out_u8 else -128)
    return t, None


def qdq_conv(g, rng, c, out_c, k, stride, pads, per_channel, u8w, out_u8, act=None,
             asym=False, group=1, dil=1):
    x = dq(g, c)
    cg = c.shape[1] // group
    w, ws = qdq_weights(g, rng, (out_c, cg, k, k), 0, per_channel, u8w, asym)
    b = qdq_bias(g, rng, c, ws, out_c)
    t = g.node("Conv", [x, w, b], **conv_attrs(k, stride, pads, group, dil))
    t, zp = qdq_act(g, rng, t, act, out_u8)
    ys = out_scale(rng, c.scale, ws, cg * k * k)
    out = Chain(None, conv_out(c, out_c, k, stride, pads, dil), ys,
                act_zp(rng, out_u8) if zp is None else zp, out_u8)
    out.name = q(g, t, out)
    return out


def qdq_dense(g, rng, c, n, per_channel, u8w, out_u8, gemm, act=None, asym=False):
    x = dq(g, c)
    k = c.shape[-1]
    if gemm:
        w, ws = qdq_weights(g, rng, (n, k), 0, per_channel, u8w, asym)
        t = g.node("Gemm", [x, w, qdq_bias(g, rng, c, ws, n)], transB=1)
    else:
        w, ws = qdq_weights(g, rng, (k, n), 1, per_channel, u8w, asym)
        t = g.node("MatMul", [x, w])
    t, zp = qdq_act(g, rng, t, act, out_u8)
    out = Chain(None, [*c.shape[:-1], n], out_scale(rng, c.scale, ws, k),
                act_zp(rng, out_u8) if zp is None else zp, out_u8)
    out.name = q(g, t, out)
    return out


def qdq_passthrough(g, c, op, k=2, stride=2, pads=(0, 0, 0, 0), ceil_mode=0):
    """MaxPool / Flatten between a DQ and a Q of the same parameters (ONNX Runtime drops them)."""
    x = dq(g, c)
    if op == "maxpool":
        t = g.node("MaxPool", [x], **pool_attrs(k, stride, list(pads), ceil_mode))
        out = Chain(None, pool_shape(c, k, stride, pads, ceil_mode), c.scale, c.zp, c.u8)
    else:
        t = g.node("Flatten", [x], axis=1)
        out = Chain(None, [c.shape[0], int(np.prod(c.shape[1:]))], c.scale, c.zp, c.u8)
    out.name = q(g, t, out)
    return out


# ------------------------------------------------------------------ the cases
# each: (name, input shape without batch, float input?, input uint8?, builder(g, rng, chain))

def c_qop_conv_s8(g, rng, c):
    return qop_conv(g, rng, c, 5, 3, 1, [1, 1, 1, 1], False, False, False)


def c_qop_conv_u8_pc(g, rng, c):
    return qop_conv(g, rng, c, 6, 3, 2, [1, 0, 2, 1], True, False, True)


def c_qop_conv_u8w(g, rng, c):
    return qop_conv(g, rng, c, 4, 2, 1, [0, 1, 1, 0], False, True, True)


def c_qop_conv_nobias_s8(g, rng, c):
    return qop_conv(g, rng, c, 3, 5, 3, [2, 2, 0, 0], True, False, False, bias=False)


def c_qop_matmul_s8(g, rng, c):
    return qop_matmul(g, rng, c, 12, False, False, False)


def c_qop_matmul_u8_pc(g, rng, c):
    return qop_matmul(g, rng, c, 9, True, True, True)


def c_qop_matmul3d_u8_asym_pc(g, rng, c):
    return qop_matmul(g, rng, c, 7, True, True, True, asym=True)


def c_qop_matmul3d_chain_s8(g, rng, c):
    c = qop_matmul(g, rng, c, 9, False, False, False, asym=True)
    c = qop_matmul(g, rng, c, 6, True, False, False)
    return qop_matmul(g, rng, flatten(g, c), 5, False, False, False)


def c_qdq_matmul3d_s8(g, rng, c):
    return qdq_dense(g, rng, c, 10, True, False, False, gemm=False, asym=True)


def c_qop_chain(g, rng, c):
    c = qop_conv(g, rng, c, 4, 3, 1, [1, 1, 1, 1], True, True, True)
    c = maxpool(g, c, 2, 2)
    c = qop_conv(g, rng, c, 6, 3, 1, [0, 0, 0, 0], True, False, True)
    c = flatten(g, c)
    c = qop_matmul(g, rng, c, 16, True, False, True)
    c = qop_matmul(g, rng, c, 10, False, False, True)
    return c


def c_qop_chain_s8(g, rng, c):
    c = qop_conv(g, rng, c, 5, 3, 2, [1, 1, 1, 1], True, False, False)
    c = maxpool(g, c, 3, 1)
    c = flatten(g, c, reshape=True)
    return qop_matmul(g, rng, c, 7, True, False, False)


def c_qdq_conv_relu_s8(g, rng, c):
    return qdq_conv(g, rng, c, 5, 3, 1, [1, 1, 1, 1], True, False, False, act="relu")


def c_qdq_conv_clip_u8(g, rng, c):
    return qdq_conv(g, rng, c, 4, 3, 2, [1, 1, 1, 1], False, False, True, act="clip")


def c_qdq_conv_s8(g, rng, c):
    return qdq_conv(g, rng, c, 6, 2, 1, [0, 0, 1, 1], False, False, False)


def c_qdq_gemm_s8(g, rng, c):
    return qdq_dense(g, rng, c, 11, True, False, False, gemm=True, act="relu")


def c_qdq_matmul_u8(g, rng, c):
    return qdq_dense(g, rng, c, 8, False, False, True, gemm=False)


def c_qdq_chain_u8(g, rng, c):
    c = qdq_conv(g, rng, c, 4, 3, 1, [1, 1, 1, 1], True, False, True, act="relu")
    c = qdq_passthrough(g, c, "maxpool")
    c = qdq_conv(g, rng, c, 8, 3, 1, [1, 1, 1, 1], True, False, True, act="clip")
    c = qdq_passthrough(g, c, "flatten")
    c = qdq_dense(g, rng, c, 16, True, False, True, gemm=True, act="relu")
    return qdq_dense(g, rng, c, 10, True, False, True, gemm=True)


def c_qdq_chain_s8(g, rng, c):
    c = qdq_conv(g, rng, c, 6, 3, 2, [1, 1, 1, 1], True, False, False, act="relu")
    c = qdq_passthrough(g, c, "flatten")
    return qdq_dense(g, rng, c, 10, True, False, False, gemm=False)


def c_qop_conv_asym_u8w(g, rng, c):
    return qop_conv(g, rng, c, 5, 3, 1, [1, 1, 1, 1], False, True, True, asym=True)


def c_qop_conv_asym_s8w_pc(g, rng, c):
    return qop_conv(g, rng, c, 4, 3, 2, [1, 0, 1, 1], True, False, False, asym=True)


def c_qop_matmul_asym_u8w_pc(g, rng, c):
    return qop_matmul(g, rng, c, 10, True, True, True, asym=True)


def c_qop_matmul_asym_s8w(g, rng, c):
    return qop_matmul(g, rng, c, 7, False, False, False, asym=True)


def c_qdq_conv_asym_u8w(g, rng, c):
    return qdq_conv(g, rng, c, 4, 3, 1, [1, 1, 1, 1], False, True, True, act="relu",
                    asym=True)


def c_qdq_gemm_asym_u8w_pc(g, rng, c):
    return qdq_dense(g, rng, c, 9, True, True, True, gemm=True, asym=True)


def c_qop_depthwise_mult2_u8(g, rng, c):
    return qop_conv(g, rng, c, 8, 3, 1, [1, 1, 1, 1], True, True, True, group=4, asym=True)


def c_qop_groups3_dil2_s8(g, rng, c):
    return qop_conv(g, rng, c, 6, 3, 1, [2, 1, 2, 3], True, False, False, group=3, dil=2)


def c_qop_dil2_stride2_u8(g, rng, c):
    return qop_conv(g, rng, c, 5, 3, 2, [1, 1, 0, 2], False, False, True, dil=2)


def c_qdq_depthwise_s8(g, rng, c):
    return qdq_conv(g, rng, c, 3, 3, 2, [1, 1, 1, 1], True, False, False, act="relu",
                    group=3)


def c_qdq_groups2_dil2_u8(g, rng, c):
    return qdq_conv(g, rng, c, 6, 2, 1, [1, 0, 1, 1], True, False, True, group=2, dil=2)


def c_qop_chain_depthwise(g, rng, c):
    c = qop_conv(g, rng, c, 6, 3, 1, [1, 1, 1, 1], True, False, True, group=3)
    c = qop_conv(g, rng, c, 6, 3, 1, [2, 2, 2, 2], True, False, True, group=6, dil=2)
    c = qop_conv(g, rng, c, 4, 1, 1, [0, 0, 0, 0], True, False, True)
    c = flatten(g, c)
    return qop_matmul(g, rng, c, 10, True, False, True)


def c_qop_maxpool_pads_ceil(g, rng, c):
    c = qop_conv(g, rng, c, 4, 3, 1, [1, 1, 1, 1], True, False, True)
    c = maxpool(g, c, 3, 2, (1, 0, 2, 1), 1)
    return maxpool(g, c, 2, 2, (1, 1, 0, 0), 1)


def c_qdq_maxpool_pads_s8(g, rng, c):
    c = qdq_conv(g, rng, c, 5, 3, 1, [1, 1, 1, 1], True, False, False)
    return qdq_passthrough(g, c, "maxpool", 3, 2, (1, 1, 1, 1), 1)


def c_qop_avgpool_u8(g, rng, c):
    c = qop_conv(g, rng, c, 4, 3, 1, [1, 1, 1, 1], True, False, True)
    c = qop_avgpool(g, rng, c, 3, 2, (1, 1, 1, 1), 0, 0)
    return qop_avgpool(g, rng, c, 2, 1, (1, 0, 1, 1), 1, 1)


def c_qop_avgpool_s8_global(g, rng, c):
    c = qop_avgpool(g, rng, c, (2, 3), 2, (0, 1, 1, 2), 1, 0)
    c = qop_avgpool(g, rng, c, 0, 0, None, 0, 0, global_=True)
    c = flatten(g, c)
    return qop_matmul(g, rng, c, 6, True, False, False)


def c_qdq_avgpool_u8(g, rng, c):
    c = qdq_conv(g, rng, c, 6, 3, 1, [1, 1, 1, 1], True, False, True, act="relu")
    c = qdq_avgpool(g, rng, c, 3, 2, (1, 1, 1, 1), 1, 1)
    return qdq_avgpool(g, rng, c, 2, 2, (0, 0, 0, 0), 0, 0)


def c_qdq_avgpool_s8_global(g, rng, c):
    c = qdq_conv(g, rng, c, 8, 3, 2, [1, 1, 1, 1], True, False, False)
    c = qdq_avgpool(g, rng, c, 2, 1, (1, 1, 0, 0), 0, 0)
    c = qdq_avgpool(g, rng, c, 0, 0, None, 0, 0, global_=True)
    c = qdq_passthrough(g, c, "flatten")
    return qdq_dense(g, rng, c, 5, True, False, False, gemm=True)


def c_int_matmul_u8_u8w_pc_add(g, rng, c):
    return int_matmul(g, rng, c, 12, True, True, add="channel")


def c_int_matmul_s8_s8w(g, rng, c):
    return int_matmul(g, rng, c, 9, False, False)


def c_int_matmul3d_s8_u8w_pc(g, rng, c):
    return int_matmul(g, rng, c, 7, True, True, add="scalar")


def c_int_conv_u8_u8w_add(g, rng, c):
    return int_conv(g, rng, c, 5, 3, 2, [1, 0, 1, 1], True, add="channel")


def c_int_conv_s8_s8w(g, rng, c):
    return int_conv(g, rng, c, 4, 3, 1, [0, 0, 0, 0], False)


def c_int_conv_groups2_dil2_u8(g, rng, c):
    return int_conv(g, rng, c, 6, 3, 1, [2, 2, 2, 2], False, add="scalar", group=2, dil=2)


def c_int_chain_u8(g, rng, c):
    """A QLinearConv and a max pool, then MatMulInteger with a bias Add on its output."""
    c = qop_conv(g, rng, c, 4, 3, 1, [1, 1, 1, 1], True, False, True)
    c = maxpool(g, c, 2, 2)
    return int_matmul(g, rng, flatten(g, c), 10, False, True, add="channel")


CASES = [
    # name, (C, H, W), (M, K) or (K,), float input, uint8 activations, QDQ (needs float edges), builder
    ("qop_conv_s8", (3, 8, 8), False, False, c_qop_conv_s8),
    ("qop_conv_u8_perchannel_stride2", (2, 9, 7), False, True, c_qop_conv_u8_pc),
    ("qop_conv_u8_weights_u8", (3, 6, 6), True, True, c_qop_conv_u8w),
    ("qop_conv_nobias_perchannel_s8", (4, 11, 10), True, False, c_qop_conv_nobias_s8),
    ("qop_matmul_s8", (20,), False, False, c_qop_matmul_s8),
    ("qop_matmul_u8_perchannel_u8w", (33,), True, True, c_qop_matmul_u8_pc),
    ("qop_chain_u8", (3, 12, 12), True, True, c_qop_chain),
    ("qop_chain_s8", (2, 10, 10), False, False, c_qop_chain_s8),
    ("qdq_conv_relu_perchannel_s8", (3, 8, 8), True, False, c_qdq_conv_relu_s8),
    ("qdq_conv_clip_u8", (2, 9, 9), True, True, c_qdq_conv_clip_u8),
    ("qdq_conv_s8", (3, 7, 7), True, False, c_qdq_conv_s8),
    ("qdq_gemm_relu_s8", (24,), True, False, c_qdq_gemm_s8),
    ("qdq_matmul_u8", (30,), True, True, c_qdq_matmul_u8),
    ("qdq_chain_u8", (1, 12, 12), True, True, c_qdq_chain_u8),
    ("qdq_chain_s8", (3, 8, 8), True, False, c_qdq_chain_s8),
    ("qop_conv_asym_u8w", (3, 7, 7), False, True, c_qop_conv_asym_u8w),
    ("qop_conv_asym_s8w_perchannel", (2, 9, 8), True, False, c_qop_conv_asym_s8w_pc),
    ("qop_matmul_asym_u8w_perchannel", (26,), False, True, c_qop_matmul_asym_u8w_pc),
    ("qop_matmul_asym_s8w", (19,), True, False, c_qop_matmul_asym_s8w),
    ("qdq_conv_asym_u8w_relu", (2, 8, 8), True, True, c_qdq_conv_asym_u8w),
    ("qdq_gemm_asym_u8w_perchannel", (21,), True, True, c_qdq_gemm_asym_u8w_pc),
    ("qop_depthwise_mult2_u8", (4, 7, 7), False, True, c_qop_depthwise_mult2_u8),
    ("qop_groups3_dilation2_s8", (6, 9, 8), True, False, c_qop_groups3_dil2_s8),
    ("qop_dilation2_stride2_u8", (3, 10, 9), False, True, c_qop_dil2_stride2_u8),
    ("qdq_depthwise_relu_s8", (3, 8, 8), True, False, c_qdq_depthwise_s8),
    ("qdq_groups2_dilation2_u8", (4, 7, 8), True, True, c_qdq_groups2_dil2_u8),
    ("qop_chain_depthwise_u8", (3, 9, 9), True, True, c_qop_chain_depthwise),
    ("qop_maxpool_pads_ceil_u8", (2, 9, 10), False, True, c_qop_maxpool_pads_ceil),
    ("qdq_maxpool_pads_ceil_s8", (3, 8, 7), True, False, c_qdq_maxpool_pads_s8),
    ("qop_avgpool_u8", (3, 9, 9), True, True, c_qop_avgpool_u8),
    ("qop_avgpool_global_s8", (4, 7, 9), False, False, c_qop_avgpool_s8_global),
    ("qdq_avgpool_count_pad_u8", (2, 10, 9), True, True, c_qdq_avgpool_u8),
    ("qdq_avgpool_global_s8", (3, 9, 8), True, False, c_qdq_avgpool_s8_global),
    # batched 3-D inputs (batch, M, K): (M, K)
    ("qop_matmul3d_u8_asym_u8w_perchannel", (5, 13), False, True, c_qop_matmul3d_u8_asym_pc),
    ("qop_matmul3d_chain_flatten_s8", (4, 11), True, False, c_qop_matmul3d_chain_s8),
    ("qdq_matmul3d_asym_perchannel_s8", (6, 9), True, False, c_qdq_matmul3d_s8),
    # int32 outputs: MatMulInteger / ConvInteger, an int32 Add folded into the bias
    ("int_matmul_u8_u8w_perchannel_add", (23,), False, True, c_int_matmul_u8_u8w_pc_add),
    ("int_matmul_s8_s8w_float_in", (17,), True, False, c_int_matmul_s8_s8w),
    ("int_matmul3d_s8_u8w_perchannel_add", (5, 11), False, False, c_int_matmul3d_s8_u8w_pc),
    ("int_conv_u8_u8w_stride2_add", (3, 9, 8), False, True, c_int_conv_u8_u8w_add),
    ("int_conv_s8_s8w", (2, 7, 7), False, False, c_int_conv_s8_s8w),
    ("int_conv_groups2_dilation2_u8", (4, 8, 9), True, True, c_int_conv_groups2_dil2_u8),
    ("int_chain_u8", (2, 8, 8), True, True, c_int_chain_u8),
]


def build(name, in_shape, float_in, u8, fn, rng, batch):
    """The model, its input (NCHW, for ONNX Runtime) and whether it ends in float."""
    g = G(rng)
    shape = [batch, *in_shape]
    qdq = name.startswith("qdq")
    c = qop_input(g, rng, shape, u8, float_in or qdq)
    out = fn(g, rng, c)
    # a trailing DequantizeLinear: float output (int32 sums: as they are)
    out_name = out.name if out.int32 else dq(g, out)
    out_type = TensorProto.INT32 if out.int32 else TensorProto.FLOAT
    in_type = TensorProto.FLOAT if (float_in or qdq) else (U8 if u8 else I8)
    sym = ["N", *in_shape]
    graph = helper.make_graph(
        g.nodes, name, [helper.make_tensor_value_info("x", in_type, sym)],
        [helper.make_tensor_value_info(out_name, out_type, ["N", *out.shape[1:]])],
        g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    if in_type == TensorProto.FLOAT:
        x = rng.uniform(-1.2, 1.2, size=shape).astype(np.float32) * np.float32(
            c.scale * 127)
        # a few values exactly half-way between two quantization steps (ties to even)
        flat = x.reshape(-1)
        flat[::7] = (np.round(flat[::7] / c.scale) + np.float32(0.5)) * np.float32(c.scale)
    else:
        lo, hi = (0, 255) if u8 else (-128, 127)
        x = rng.integers(lo, hi + 1, size=shape).astype(np.uint8 if u8 else np.int8)
    return model, x, out


def tiny_float_cnn(rng):
    """A float CNN (conv, relu, maxpool, strided conv, relu, flatten, gemm) for
    onnxruntime.quantization.quantize_static."""
    def init(n, a):
        return numpy_helper.from_array(a.astype(np.float32), n)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1],
                              strides=[2, 2]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Flatten", ["r2"], ["f"]),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1)]
    inits = [init("w1", rng.normal(0, .3, (8, 1, 3, 3))), init("b1", rng.normal(0, .1, 8)),
             init("w2", rng.normal(0, .2, (16, 8, 3, 3))), init("b2", rng.normal(0, .1, 16)),
             init("w3", rng.normal(0, .2, (10, 64))), init("b3", rng.normal(0, .1, 10))]
    g = helper.make_graph(nodes, "tiny_cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = 8
    return m


def ort_quantized(out_dir, rng, batch):
    """The tiny CNN quantized by ONNX Runtime's own quantize_static: QDQ and QOperator, uint8
    and int8 activations, per-tensor and per-channel int8 weights."""
    import logging
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    logging.getLogger().setLevel(logging.ERROR)  # its advice on pre-processing and formats
    fpath = os.path.join(out_dir, "tiny_cnn_float.onnx")
    onnx.save(tiny_float_cnn(rng), fpath)
    calib = rng.uniform(0, 1, (32, 1, 8, 8)).astype(np.float32)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"x": calib[i:i + 1]} for i in range(len(calib))])

        def get_next(self):
            return next(self.it, None)

    # int8 weights in every combination; uint8 (asymmetric) weights with uint8 activations
    combos = [(f, a, "QInt8", pc) for f in ("QDQ", "QOperator") for a in ("QUInt8", "QInt8")
              for pc in (False, True)]
    combos += [(f, "QUInt8", "QUInt8", pc) for f in ("QDQ", "QOperator") for pc in (False, True)]
    for fmt, act, wt, pc in combos:
        name = (f"ortq_{fmt.lower()}_{act.lower()}_"
                f"{'perchannel' if pc else 'pertensor'}"
                f"{'_u8w' if wt == 'QUInt8' else ''}")
        path = os.path.join(out_dir, name + ".onnx")
        quantize_static(fpath, path, Reader(), quant_format=getattr(QuantFormat, fmt),
                        activation_type=getattr(QuantType, act),
                        weight_type=getattr(QuantType, wt), per_channel=pc)
        x = rng.uniform(0, 1, (batch, 1, 8, 8)).astype(np.float32)
        yield name, onnx.load(path), x


def output_quant(model):
    """Scale and zero point of the graph's trailing DequantizeLinear (None for an int32
    output)."""
    if model.graph.output[0].type.tensor_type.elem_type == TensorProto.INT32:
        return None
    out = model.graph.output[0].name
    node = next(n for n in model.graph.node if out in n.output)
    assert node.op_type == "DequantizeLinear", node.op_type
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    return np.float32(inits[node.input[1]]), int(inits[node.input[2]])


def tpu_input(a):
    """What `tpu run` takes: an NCHW input as it is (the imported model records the layout
    and reorders it); (batch, M, K) as (batch, M*K)."""
    return a if a.ndim == 4 else a.reshape(a.shape[0], -1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpu", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--devices", default="golden,sim,sim:n=8")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    # errors only: ONNX's shape inference sizes some ceil_mode pools without the rule that
    # drops a window starting in the end padding, which ONNX Runtime's kernels apply (and
    # warns about the difference)
    ort.set_default_logger_severity(3)
    devices = [d for d in a.devices.split(",") if d]
    print(f"onnx {onnx.__version__}, onnxruntime {ort.__version__} (CPU, default session "
          f"options), numpy {np.__version__}; seed {a.seed}, batch {a.batch}")
    totals = {d: [0, 0] for d in devices}
    failures = 0
    cases = []
    for idx, (name, in_shape, float_in, u8, fn) in enumerate(CASES):
        rng = np.random.default_rng([a.seed, idx])
        model, x, _ = build(name, in_shape, float_in, u8, fn, rng, a.batch)
        cases.append((name, model, x))
    cases += list(ort_quantized(a.out, np.random.default_rng([a.seed, len(CASES)]), a.batch))
    for name, model, x in cases:
        base = os.path.join(a.out, name)
        onnx.save(model, base + ".onnx")
        sess = ort.InferenceSession(model.SerializeToString(),
                                    providers=["CPUExecutionProvider"])
        ref = sess.run(None, {"x": x})[0]
        np.save(base + "_in.npy", tpu_input(x))
        np.save(base + "_ort.npy", ref)
        r = subprocess.run([a.tpu, "import", base + ".onnx", "-o", base + ".tpum"],
                           capture_output=True, text=True)
        if r.returncode:
            print(f"{name}: tpu import failed: {r.stderr.strip()}")
            failures += 1
            continue
        want = ref.reshape(a.batch, -1)
        want = want if want.dtype == np.int32 else want.astype(np.float32)
        quant = output_quant(model)
        for d in devices:
            outp = f"{base}_{d.replace(':', '_').replace('=', '')}.npy"
            cmd = [a.tpu, "--device", d, "run", base + ".tpum", base + "_in.npy",
                   "--outputs", outp, "--json"]
            if x.dtype != np.float32:
                cmd.append("--quantized")
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                print(f"{name}: {d}: tpu run failed: {r.stderr.strip()}")
                failures += 1
                continue
            # the trailing DequantizeLinear, in fp32 as ONNX Runtime computes it
            got = np.load(outp)
            if got.shape != ref.shape and not (ref.ndim == 3 and got.ndim == 2):
                print(f"{name}: {d}: outputs of shape {got.shape}, ONNX Runtime's {ref.shape}")
                failures += 1
                continue
            got = got.reshape(a.batch, -1)
            if quant is None and got.dtype != np.int32:
                print(f"{name}: {d}: outputs of type {got.dtype}, ONNX Runtime's int32")
                failures += 1
                continue
            if quant is not None:
                scale, zp = quant
                got = (got.astype(np.int32) - zp).astype(np.float32) * scale
            eq = int(np.sum(got.view(np.uint32) == want.view(np.uint32)))
            totals[d][0] += eq
            totals[d][1] += want.size
            print(f"{name}: {d}: {eq} of {want.size} elements equal")
            if eq != want.size:
                failures += 1
    for d in devices:
        eq, n = totals[d]
        print(f"total {d}: {eq} of {n} elements equal ({len(cases)} models)")
    if failures:
        print(f"FAILED: {failures} case/device runs differ or failed")
        return 1
    print("all equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
