#!/usr/bin/env python3
"""Cross-check of `tpu import` of TFLite models against LiteRT (docs/import.md, "TFLite").

Builds small random int8 TFLite models of every supported operator with the flatbuffers Python
builder through the maintained generated code (tflgen.py): CONV_2D (SAME and VALID padding,
strides 1 and 2, even and odd kernels, dilation, per-tensor and per-channel weights,
RELU/RELU6), DEPTHWISE_CONV_2D (depth multipliers, strides, dilation), FULLY_CONNECTED
(per-tensor and per-channel, RELU_N1_TO_1), MAX_POOL_2D and AVERAGE_POOL_2D (VALID and SAME,
padding or not), a MobileNet-like block, RESHAPE, QUANTIZE of a
float input and DEQUANTIZE of the output, a legacy uint8 input and output, chains of all of
them, and models whose scales are powers of two so that requantization hits exact rounding ties.
Each model runs in LiteRT 2.3 with the op resolver that each kernel set of `tpu import
--kernels` claims (reference: BUILTIN_REF; xnnpack: BUILTIN, the default interpreter with its
XNNPACK delegate), is imported with that set and runs with `tpu run` on every device of
--devices; every output element is compared (bitwise for a float output). Models a kernel set
cannot reproduce must be refused by the import with the reason given in EXPECT_REFUSED. Prints
exact counts ("N of N elements equal") and exits 1 on any difference or failure.

For information it also counts how many elements of LiteRT's optimized kernels without the
delegate (BUILTIN_WITHOUT_DEFAULT_DELEGATES, ruy: the second rounding step ties up) equal the
reference import's, which no rounding mode reproduces.

usage: litert_check.py --tpu build/bin/tpu --out build/tflite-check [--devices golden,sim,sim:n=8]
                       [--seed N] [--batch B]
"""
import argparse
import os
import subprocess
import sys

import numpy as np
from ai_edge_litert.interpreter import OpResolverType

import tflgen as tg
from tflgen import ACT, OP, OPT, T

SAME, VALID = 0, 1


class Chain:
    """The tensor a model has reached: index, per-example NHWC shape, quantization."""

    def __init__(self, t, shape, scale, zp, u8=False):
        self.t, self.shape, self.scale, self.zp, self.u8 = t, list(shape), scale, zp, u8


class Gen:
    def __init__(self, rng, pow2=False):
        self.rng, self.pow2, self.m = rng, pow2, tg.Model()

    def scale(self, lo, hi):
        if self.pow2:
            return np.float32(2.0 ** -int(self.rng.integers(4, 8)))
        return np.float32(self.rng.uniform(lo, hi))

    def w_scales(self, n, per_channel):
        if self.pow2:
            s = 2.0 ** -self.rng.integers(6, 9, n if per_channel else 1)
        else:
            s = self.rng.uniform(0.002, 0.02, n if per_channel else 1)
        return s.astype(np.float32)

    def out_q(self, c, ws, k):
        if self.pow2:
            return np.float32(2.0 ** -int(self.rng.integers(2, 5))), int(self.rng.integers(-20, 21))
        s = c.scale * float(np.mean(ws)) * np.sqrt(k) * self.rng.uniform(30.0, 110.0)
        return np.float32(s), int(self.rng.integers(-40, 41))

    def bias(self, c, ws, n):
        b = self.rng.integers(-3000, 3000, n).astype(np.int32)
        bs = (np.float32(c.scale) * ws).astype(np.float32)  # one per weight scale
        return self.m.tensor([n], T.INT32, bs, np.zeros(len(bs), int), 0, b)

    def conv(self, c, out_c, k, stride, padding, per_channel, act, bias=True, dilation=1):
        h, w, ci = c.shape
        wts = self.rng.integers(-127, 128, (out_c, k, k, ci)).astype(np.int8)
        ws = self.w_scales(out_c, per_channel)
        ys, yz = self.out_q(c, ws, ci * k * k)
        wt = self.m.tensor([out_c, k, k, ci], T.INT8, ws, np.zeros(len(ws), int), 0, wts)
        oh, ow = out_hw(h, w, (k - 1) * dilation + 1, stride, padding)
        y = self.m.tensor([1, oh, ow, out_c], T.INT8, ys, yz)
        ins = [c.t, wt] + ([self.bias(c, ws, out_c)] if bias else [])
        self.m.op(OP.CONV_2D, ins, [y], OPT.Conv2DOptions,
                  tg.conv_options(padding, stride, act, dilation))
        return Chain(y, [oh, ow, out_c], ys, yz)

    def depthwise(self, c, mult, k, padding, per_channel, act, stride=1, dilation=1):
        h, w, ci = c.shape
        n = ci * mult
        wts = self.rng.integers(-127, 128, (1, k, k, n)).astype(np.int8)
        ws = self.w_scales(n, per_channel)
        ys, yz = self.out_q(c, ws, k * k)
        wt = self.m.tensor([1, k, k, n], T.INT8, ws, np.zeros(len(ws), int), 3, wts)
        oh, ow = out_hw(h, w, (k - 1) * dilation + 1, stride, padding)
        y = self.m.tensor([1, oh, ow, n], T.INT8, ys, yz)
        self.m.op(OP.DEPTHWISE_CONV_2D, [c.t, wt, self.bias(c, ws, n)], [y],
                  OPT.DepthwiseConv2DOptions,
                  tg.depthwise_options(padding, stride, mult, act, dilation))
        return Chain(y, [oh, ow, n], ys, yz)

    def avgpool(self, c, k, stride, padding=VALID, act=ACT.NONE):
        h, w, ch = c.shape
        oh, ow = out_hw(h, w, k, stride, padding)
        y = self.m.tensor([1, oh, ow, ch], T.INT8, c.scale, c.zp)
        self.m.op(OP.AVERAGE_POOL_2D, [c.t], [y], OPT.Pool2DOptions,
                  tg.pool_options(padding, k, stride, act))
        return Chain(y, [oh, ow, ch], c.scale, c.zp)

    def fc(self, c, n, per_channel, act, out_q=None):
        k = int(np.prod(c.shape))
        wts = self.rng.integers(-127, 128, (n, k)).astype(np.int8)
        ws = self.w_scales(n, per_channel)
        ys, yz = out_q or self.out_q(c, ws, k)
        wt = self.m.tensor([n, k], T.INT8, ws, np.zeros(len(ws), int), 0, wts)
        y = self.m.tensor([1, n], T.INT8, ys, yz)
        self.m.op(OP.FULLY_CONNECTED, [c.t, wt, self.bias(c, ws, n)], [y],
                  OPT.FullyConnectedOptions, tg.fc_options(act))
        return Chain(y, [1, 1, n], ys, yz)

    def maxpool(self, c, k, stride, padding=VALID):
        h, w, ch = c.shape
        oh, ow = out_hw(h, w, k, stride, padding)
        y = self.m.tensor([1, oh, ow, ch], T.INT8, c.scale, c.zp)
        self.m.op(OP.MAX_POOL_2D, [c.t], [y], OPT.Pool2DOptions, tg.pool_options(padding, k, stride))
        return Chain(y, [oh, ow, ch], c.scale, c.zp)

    def reshape(self, c):
        f = int(np.prod(c.shape))
        shp = self.m.tensor([2], T.INT32, data=np.array([-1, f], np.int32))
        y = self.m.tensor([1, f], T.INT8, c.scale, c.zp)
        self.m.op(OP.RESHAPE, [c.t, shp], [y], OPT.ReshapeOptions, tg.reshape_options([-1, f]))
        return Chain(y, [1, 1, f], c.scale, c.zp)


def out_hw(h, w, k, stride, padding):
    """TFLite's output size for a (dilated) kernel of extent k."""
    if padding == SAME:
        return -(-h // stride), -(-w // stride)
    return (h - k) // stride + 1, (w - k) // stride + 1


def quantized_input(g, shape, u8=False):
    s, z = g.scale(0.01, 0.05), int(g.rng.integers(-40, 41))
    if u8:
        x = g.m.tensor([1] + shape, T.UINT8, s, z + 128)
        c = Chain(x, shape, s, z)
        y = g.m.tensor([1] + shape, T.INT8, s, z)
        g.m.op(OP.QUANTIZE, [x], [y], OPT.QuantizeOptions, None)
        return x, Chain(y, shape, s, z)
    x = g.m.tensor([1] + shape, T.INT8, s, z)
    return x, Chain(x, shape, s, z)


def float_input(g, shape):
    s, z = g.scale(0.01, 0.05), int(g.rng.integers(-40, 41))
    x = g.m.tensor([1] + shape, T.FLOAT32)
    y = g.m.tensor([1] + shape, T.INT8, s, z)
    g.m.op(OP.QUANTIZE, [x], [y], OPT.QuantizeOptions, None)
    return x, Chain(y, shape, s, z)


def dequantize(g, c):
    y = g.m.tensor([1] + c.shape if c.shape[:2] != [1, 1] else [1, c.shape[2]], T.FLOAT32)
    g.m.op(OP.DEQUANTIZE, [c.t], [y], OPT.DequantizeOptions, None)
    return y


def to_uint8(g, c):
    y = g.m.tensor([1, int(np.prod(c.shape))], T.UINT8, c.scale, c.zp + 128)
    g.m.op(OP.QUANTIZE, [c.t], [y], OPT.QuantizeOptions, None)
    return y


# name: (input shape, input kind, body); kind: "i8", "u8" (uint8 in and out), "f32" (QUANTIZE
# in, DEQUANTIZE out)
def case_conv_valid(g, c):
    return g.conv(c, 8, 3, 1, VALID, False, ACT.RELU)


def case_conv_same_s2(g, c):
    return g.conv(c, 12, 3, 2, SAME, True, ACT.RELU6)


def case_conv_same_even(g, c):
    return g.conv(c, 6, 4, 1, SAME, True, ACT.NONE)


def case_depthwise(g, c):
    return g.depthwise(c, 6, 3, VALID, True, ACT.RELU)


def case_depthwise_multi(g, c):  # 3 channels, multiplier 2, stride 2, SAME
    return g.depthwise(c, 2, 3, SAME, True, ACT.RELU6, stride=2)


def case_dilated(g, c):
    c = g.conv(c, 6, 3, 1, VALID, True, ACT.RELU, dilation=2)
    return g.depthwise(c, 1, 3, SAME, True, ACT.NONE, dilation=2)


def case_pools(g, c):  # padded max pooling, average pooling with and without padding
    c = g.maxpool(c, 3, 2, SAME)
    c = g.avgpool(c, 2, 1, VALID)
    return g.avgpool(c, 3, 2, SAME, ACT.RELU)


def case_mobilenet(g, c):  # a MobileNet-like block and a global average pool
    c = g.conv(c, 8, 3, 2, SAME, True, ACT.RELU6)
    c = g.depthwise(c, 1, 3, SAME, True, ACT.RELU6)
    c = g.conv(c, 16, 1, 1, VALID, True, ACT.RELU6)
    c = g.avgpool(c, c.shape[0], 1, VALID)
    return g.fc(g.reshape(c), 10, True, ACT.NONE)


def case_fc(g, c):
    return g.fc(g.reshape(c) if c.shape[:2] != [1, 1] else c, 24, False, ACT.NONE)


def case_fc_pc_relu(g, c):
    return g.fc(c, 20, True, ACT.RELU)


def case_fc_n1(g, c):  # RELU_N1_TO_1 on an output of scale 2^-7: the full int8 range
    return g.fc(c, 10, True, ACT.RELU_N1_TO_1, out_q=(np.float32(2.0 ** -7), 0))


def case_pool_chain(g, c):
    c = g.conv(c, 8, 3, 1, SAME, True, ACT.RELU)
    c = g.maxpool(c, 2, 2)
    c = g.conv(c, 16, 3, 2, SAME, True, ACT.RELU)
    return g.fc(g.reshape(c), 10, True, ACT.NONE)


def case_cnn(g, c):  # the digits CNN's shape
    c = g.conv(c, 8, 3, 1, SAME, True, ACT.RELU)
    c = g.maxpool(c, 2, 2, SAME)  # SAME that pads nothing (8 x 8 by 2)
    c = g.conv(c, 16, 3, 1, VALID, True, ACT.RELU6)
    c = g.reshape(c)
    c = g.fc(c, 32, True, ACT.RELU)
    return g.fc(c, 10, True, ACT.NONE)


# name, per-example input shape, input type, output type (f32: QUANTIZE of a float input,
# DEQUANTIZE of the output; u8: uint8 with the same scale), scales powers of two, body
CASES = [
    ("conv_valid_relu", [9, 9, 5], "i8", "i8", False, case_conv_valid),
    ("conv_same_s2_relu6", [10, 11, 4], "i8", "i8", False, case_conv_same_s2),
    ("conv_same_k4", [7, 7, 3], "f32", "f32", False, case_conv_same_even),
    ("conv_same_k4_i8", [7, 7, 3], "i8", "f32", False, case_conv_same_even),
    ("depthwise_1ch", [8, 8, 1], "i8", "i8", False, case_depthwise),
    ("fc_reshape", [4, 4, 3], "i8", "f32", False, case_fc),
    ("fc_perchannel_relu", [1, 1, 40], "i8", "i8", False, case_fc_pc_relu),
    ("fc_relu_n1_to_1", [1, 1, 30], "i8", "i8", False, case_fc_n1),
    ("pool_chain", [12, 12, 3], "i8", "i8", False, case_pool_chain),
    ("cnn_uint8", [8, 8, 1], "u8", "u8", False, case_cnn),
    ("cnn_float", [8, 8, 1], "f32", "f32", False, case_cnn),
    ("cnn_dequantize", [8, 8, 1], "i8", "f32", False, case_cnn),
    ("ties_conv", [9, 9, 4], "i8", "i8", True, case_conv_valid),
    ("ties_conv_s2", [10, 11, 4], "i8", "f32", True, case_conv_same_s2),
    ("ties_depthwise", [8, 8, 1], "i8", "i8", True, case_depthwise),
    ("ties_chain", [12, 12, 3], "u8", "u8", True, case_pool_chain),
    ("ties_fc", [1, 1, 40], "i8", "i8", True, case_fc_pc_relu),
    ("depthwise_3ch_m2", [9, 9, 3], "i8", "i8", False, case_depthwise_multi),
    ("dilated", [12, 11, 3], "i8", "i8", False, case_dilated),
    ("pools", [9, 10, 4], "i8", "i8", False, case_pools),
    ("pools_uint8", [9, 10, 4], "u8", "u8", False, case_pools),
    ("mobilenet_block", [10, 10, 3], "i8", "f32", False, case_mobilenet),
]
# (case, kernel set): the words the import's refusal must contain
TIE = "allow a rounding tie"
FLOAT_IN = "QUANTIZE rounds x * (1 / scale) half to even"
AVG_XNN = "XNNPACK's average pooling requantizes in float"
EXPECT_REFUSED = {
    ("ties_fc", "reference"): TIE,
    ("ties_chain", "reference"): TIE,
    ("conv_same_k4", "xnnpack"): FLOAT_IN,
    ("cnn_float", "xnnpack"): FLOAT_IN,
    ("pools", "xnnpack"): AVG_XNN,
    ("pools_uint8", "xnnpack"): AVG_XNN,
    ("mobilenet_block", "xnnpack"): AVG_XNN,
}


def build(name, shape, kin, kout, pow2, fn, rng, batch):
    g = Gen(rng, pow2)
    if kin == "f32":
        x_t, c = float_input(g, shape)
    else:
        x_t, c = quantized_input(g, shape, kin == "u8")
    in_scale = c.scale
    c = fn(g, c)
    y_t = dequantize(g, c) if kout == "f32" else to_uint8(g, c) if kout == "u8" else c.t
    model = g.m.finish([x_t], [y_t])
    if kin == "f32":
        s = np.float32(in_scale)
        x = (rng.uniform(-1.2, 1.2, [batch] + shape) * 127 * s).astype(np.float32)
        flat = x.reshape(-1)  # a few inputs exactly half-way between two steps
        flat[::7] = (np.round(flat[::7] / s) + np.float32(0.5)) * s
    elif kin == "u8":
        x = rng.integers(0, 256, [batch] + shape).astype(np.uint8)
    else:
        x = rng.integers(-128, 128, [batch] + shape).astype(np.int8)
    return model, x, (c.scale, c.zp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpu", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--devices", default="golden,sim,sim:n=8")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    devices = [d for d in a.devices.split(",") if d]
    import ai_edge_litert
    print(f"LiteRT (ai-edge-litert) {ai_edge_litert.__version__}, numpy {np.__version__}; "
          f"seed {a.seed}, batch {a.batch}")
    totals = {(k, d): [0, 0, 0] for k in tg.RESOLVER for d in devices}
    info = [0, 0]
    failures = 0
    for idx, (name, shape, kin, kout, pow2, fn) in enumerate(CASES):
        model, x, (oscale, ozp) = build(name, shape, kin, kout, pow2, fn,
                                        np.random.default_rng([a.seed, idx]), a.batch)
        base = os.path.join(a.out, name)
        with open(base + ".tflite", "wb") as f:
            f.write(model)
        np.save(base + "_in.npy", x)
        for kset, resolver in tg.RESOLVER.items():
            ref = tg.run(model, x, resolver)
            np.save(f"{base}_litert_{kset}.npy", ref)
            tpum = f"{base}_{kset}.tpum"
            if os.path.exists(tpum):
                os.remove(tpum)
            r = subprocess.run([a.tpu, "import", base + ".tflite", "-o", tpum, "--kernels", kset],
                               capture_output=True, text=True)
            want_refusal = EXPECT_REFUSED.get((name, kset))
            if want_refusal:
                ok = r.returncode == 2 and want_refusal in r.stderr and not os.path.exists(tpum)
                print(f"{name}: {kset}: import refused as expected: {r.stderr.strip()}" if ok
                      else f"{name}: {kset}: expected a refusal ('{want_refusal}'), got exit "
                      f"{r.returncode}: {r.stderr.strip()}")
                failures += not ok
                continue
            if r.returncode:
                print(f"{name}: {kset}: tpu import failed: {r.stderr.strip()}")
                failures += 1
                continue
            want = ref.reshape(a.batch, -1)
            for d in devices:
                outp = f"{base}_{kset}_{d.replace(':', '_').replace('=', '')}.npy"
                cmd = [a.tpu, "--device", d, "run", tpum, base + "_in.npy", "--outputs", outp,
                       "--json"]
                if x.dtype != np.float32:
                    cmd.append("--quantized")
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode:
                    print(f"{name}: {kset}: {d}: tpu run failed: {r.stderr.strip()}")
                    failures += 1
                    continue
                got = np.load(outp)
                if want.dtype == np.float32:  # the trailing DEQUANTIZE, in fp32
                    got = (got.astype(np.int32) - ozp).astype(np.float32) * np.float32(oscale)
                    eq = int(np.sum(got.view(np.uint32) == want.view(np.uint32)))
                else:
                    eq = int(np.sum(got == want))
                t = totals[(kset, d)]
                t[0] += eq
                t[1] += want.size
                t[2] += 1
                print(f"{name}: {kset}: {d}: {eq} of {want.size} elements equal")
                if eq != want.size:
                    failures += 1
                if kset == "reference" and d == devices[0]:
                    opt = tg.run(model, x, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
                    opt = opt.reshape(a.batch, -1)
                    if want.dtype == np.float32:
                        info[0] += int(np.sum(opt.view(np.uint32) == got.view(np.uint32)))
                    else:
                        info[0] += int(np.sum(opt == got))
                    info[1] += want.size
    for (kset, d), (eq, n, models) in totals.items():
        print(f"total {kset} ({tg.RESOLVER[kset].name}) {d}: {eq} of {n} elements equal "
              f"({models} models)")
    print(f"for information: LiteRT BUILTIN_WITHOUT_DEFAULT_DELEGATES equals the reference "
          f"import on {info[0]} of {info[1]} elements (not a kernel set `tpu import` claims)")
    if failures:
        print(f"FAILED: {failures} case runs differ or failed")
        return 1
    print("all equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
