#!/usr/bin/env python3
"""The small TFLite models tests/test_import_tflite.c imports (tests/tflite/fixtures/), built
deterministically with tflgen.py: one good chain and variants that the import must refuse.
With --check it rebuilds them in memory and fails when a committed file differs (make
test-tflite runs that), so the fixtures stay what this script writes.

usage: make_fixtures.py [--dir tests/tflite/fixtures] [--check]
"""
import argparse
import os
import sys

import numpy as np

import litert_check as lc
import tflgen as tg
from tflgen import ACT, OP, OPT, T


def chain(bad=None):
    """float input -> QUANTIZE -> CONV_2D (SAME, RELU) -> MAX_POOL_2D -> RESHAPE ->
    FULLY_CONNECTED -> DEQUANTIZE; bad names one thing to break."""
    g = lc.Gen(np.random.default_rng(27))
    x_t, c = lc.float_input(g, [6, 6, 1])
    c = g.conv(c, 4, 3, 1, lc.SAME, True, ACT.RELU)
    if bad == "avgpool":  # an average pool that would requantize (output scale x 2)
        g.m.op(OP.AVERAGE_POOL_2D, [c.t], [g.m.tensor([1, 3, 3, 4], T.INT8, 2 * c.scale, c.zp)],
               OPT.Pool2DOptions, tg.pool_options(lc.VALID, 2, 2))
        c = lc.Chain(len(g.m.tensors) - 1, [3, 3, 4], c.scale, c.zp)
    else:
        c = g.maxpool(c, 2, 2)
    c = g.reshape(c)
    c = g.fc(c, 5, False, ACT.RELU_N1_TO_1 if bad == "relu_n1" else ACT.NONE)
    y = lc.dequantize(g, c)
    m = g.m
    conv = m.ops[1]
    if bad == "add":  # an operator the import does not know
        m.codes[m.ops[2].opcodeIndex].builtinCode = OP.ADD
        m.codes[m.ops[2].opcodeIndex].deprecatedBuiltinCode = OP.ADD
    elif bad == "shape":  # the convolution's output declared 6 x 5
        m.tensors[conv.outputs[0]].shape = [1, 6, 5, 4]
    elif bad == "no_buffer":  # the weights without data
        m.tensors[conv.inputs[1]].buffer = 0
    elif bad == "dilation":
        conv.builtinOptions.dilationHFactor = 0
    elif bad == "weight_zp":
        m.tensors[conv.inputs[1]].quantization.zeroPoint = [0, 3, 0, 0]
    elif bad == "two_readers":  # the pool's input also read by the FULLY_CONNECTED's bias slot
        m.ops[4].inputs[2] = conv.outputs[0]
    return m.finish([x_t], [y])


FIXTURES = {"chain": chain()}
for b in ("add", "shape", "no_buffer", "dilation", "weight_zp", "two_readers", "avgpool",
          "relu_n1"):
    FIXTURES[f"bad_{b}"] = chain(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "fixtures"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    bad = 0
    for name, data in FIXTURES.items():
        path = os.path.join(a.dir, name + ".tflite")
        if a.check:
            same = os.path.exists(path) and open(path, "rb").read() == data
            if not same:
                print(f"{path}: differs from what make_fixtures.py builds (rerun it)")
                bad += 1
        else:
            os.makedirs(a.dir, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    print(f"{len(FIXTURES)} fixtures {'checked' if a.check else 'written'}, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
