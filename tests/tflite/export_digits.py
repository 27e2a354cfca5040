#!/usr/bin/env python3
"""The shipped digits models (models/digits-*.tpum, docs/models.md) exported to TFLite and
imported back (docs/import.md, "TFLite").

Each model file is read (docs/model-format.md, format 1.0 and 2.0) and written as a TFLite
model with the flatbuffers builder through the maintained generated code (tflgen.py): CONV_2D
(SAME: the models pad 1 around a 3 x 3 kernel), MAX_POOL_2D, RESHAPE and, for each DENSE layer,
a CONV_2D with a 1 x 1 kernel on the (1, 1, features) tensor, with the same int8 weights,
per-channel scales, int32 biases and output quantizations (LiteRT's reference CONV_2D
requantizes with the double rounding the shipped models use, its FULLY_CONNECTED with single
rounding), in two forms:
an int8 input, and a float input (the pixels / in_range, the model's input) with its QUANTIZE. Each TFLite model runs in LiteRT on all 355 test images (reference
kernels; the XNNPACK set too for the int8 input), is imported with `tpu import --kernels` and
run with `tpu run` on every device of --devices; every int8 output and prediction must equal
LiteRT's. The shipped model runs on the same devices too, and its outputs are compared with the
imported model's: every prediction and, with the reference kernels, every int8 output must
agree (XNNPACK requantizes in float: its int8 outputs are counted). Prints exact counts and
exits 1 on any difference.

usage: export_digits.py --tpu build/bin/tpu --out build/tflite-check/digits
                        [--devices golden,sim,sim:n=8] [--models models] [--data data]
"""
import argparse
import os
import struct
import subprocess
import sys

import numpy as np

import tflgen as tg
from tflgen import ACT, OP, OPT, T

CONV2D, MAXPOOL2D, DENSE = 1, 2, 3
TFL_ACT = {0: ACT.NONE, 1: ACT.RELU, 2: ACT.RELU6}


def read_tpum(path):
    """The model file's fields (docs/model-format.md); CRCs are the loader's business (the
    import of the export is compared with the file as `tpu run` loads it)."""
    b = open(path, "rb").read()
    assert b[:4] == b"TPUM", path
    major = struct.unpack_from("<H", b, 4)[0]
    pos = 16

    def section(tag):
        nonlocal pos
        assert b[pos:pos + 4] == tag, (path, pos, b[pos:pos + 4])
        n = struct.unpack_from("<I", b, pos + 4)[0]
        body = b[pos + 8:pos + 8 + n]
        pos += 12 + n
        return body

    m = section(b"MODL")
    name = m[:32].split(b"\0")[0].decode()
    in_h, in_w, in_c = struct.unpack_from("<III", m, 32)
    in_scale, in_zp, in_range = struct.unpack_from("<fif", m, 44)
    n_layers = struct.unpack_from("<I", m, 68)[0]
    model = dict(name=name, in_shape=[in_h, in_w, in_c], in_scale=in_scale, in_zp=in_zp,
                 in_range=in_range, layers=[])
    for _ in range(n_layers):
        body = section(b"LAYR")
        f = struct.unpack_from("<II8IIIfi", body, 0)
        layer = dict(type=f[1], kernel=f[2:4], stride=f[4:6], pads=f[6:10], out_c=f[10],
                     act=f[11], out_scale=f[12], out_zp=f[13])
        p = 56
        for key, dt in (("weights", "<i1"), ("bias", "<i4"), ("w_scale", "<f4"),
                        ("multiplier", "<i4"), ("shift", "<i4"), ("lut", "<i1")):
            n = struct.unpack_from("<I", body, p)[0]
            arr = np.frombuffer(body, dt, n, p + 4)
            layer[key] = arr
            p += 4 + n * arr.itemsize
        layer["round"] = struct.unpack_from("<I", body, p)[0] if major >= 2 else 0
        assert layer["round"] == 0 and not len(layer["lut"]), "only DOUBLE, no LUT"
        model["layers"].append(layer)
    return model


def export(model, float_input):
    """The model as TFLite bytes (see the module's doc)."""
    g = tg.Model(model["name"])
    h, w, c = model["in_shape"]
    s, z = np.float32(model["in_scale"]), model["in_zp"]
    if float_input:
        x_t = g.tensor([1, h, w, c], T.FLOAT32, name="pixels")
        cur = g.tensor([1, h, w, c], T.INT8, s, z)
        g.op(OP.QUANTIZE, [x_t], [cur], OPT.QuantizeOptions, None)
    else:
        x_t = cur = g.tensor([1, h, w, c], T.INT8, s, z, name="pixels")
    for L in model["layers"]:
        oc, ys, yz = L["out_c"], np.float32(L["out_scale"]), L["out_zp"]
        if L["type"] == MAXPOOL2D:
            kh, kw = L["kernel"]
            assert kh == kw and L["stride"][0] == L["stride"][1] and not any(L["pads"])
            h, w = (h - kh) // L["stride"][0] + 1, (w - kw) // L["stride"][1] + 1
            y = g.tensor([1, h, w, c], T.INT8, s, z)
            g.op(OP.MAX_POOL_2D, [cur], [y], OPT.Pool2DOptions,
                 tg.pool_options(1, kh, L["stride"][0]))
            cur = y
            continue
        ws = L["w_scale"].astype(np.float32)
        bias = g.tensor([oc], T.INT32, (s * ws).astype(np.float32), np.zeros(oc, int), 0,
                        L["bias"])
        if L["type"] == CONV2D:
            kh, kw = L["kernel"]
            st = L["stride"][0]
            # the models pad (k - 1) / 2 on every side: TFLite's SAME at stride 1
            assert st == 1 and kh % 2 and list(L["pads"]) == [kh // 2] * 4 and kh == kw
            wt = L["weights"].reshape(kh * kw * c, oc).T.reshape(oc, kh, kw, c)  # HWIO -> OHWI
            w_t = g.tensor([oc, kh, kw, c], T.INT8, ws, np.zeros(oc, int), 0, wt)
            y = g.tensor([1, h, w, oc], T.INT8, ys, yz)
            g.op(OP.CONV_2D, [cur, w_t, bias], [y], OPT.Conv2DOptions,
                 tg.conv_options(0, 1, TFL_ACT[L["act"]]))
            c = oc
        else:
            k = h * w * c
            if h * w > 1:  # flatten (H, W, C order, the DENSE weights' rows) to (1, 1, k)
                shp = g.tensor([4], T.INT32, data=np.array([-1, 1, 1, k], np.int32))
                y = g.tensor([1, 1, 1, k], T.INT8, s, z)
                g.op(OP.RESHAPE, [cur, shp], [y], OPT.ReshapeOptions,
                     tg.reshape_options([-1, 1, 1, k]))
                cur, h, w, c = y, 1, 1, k
            # a 1 x 1 CONV_2D: OHWI weights (oc, 1, 1, k)
            w_t = g.tensor([oc, 1, 1, k], T.INT8, ws, np.zeros(oc, int), 0,
                           L["weights"].reshape(k, oc).T.reshape(oc, 1, 1, k))
            y = g.tensor([1, 1, 1, oc], T.INT8, ys, yz)
            g.op(OP.CONV_2D, [cur, w_t, bias], [y], OPT.Conv2DOptions,
                 tg.conv_options(0, 1, TFL_ACT[L["act"]]))
            c = oc
        cur, s, z = y, ys, yz
    return g.finish([x_t], [cur])


def tpu(args, *cmd):
    r = subprocess.run([args.tpu, *cmd], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"tpu {' '.join(cmd)}: {r.stderr.strip()}")
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpu", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--devices", default="golden,sim,sim:n=8")
    ap.add_argument("--models", default="models")
    ap.add_argument("--data", default="data")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    devices = [d for d in a.devices.split(",") if d]
    pixels = np.load(os.path.join(a.data, "digits_test_x.npy"))
    n = len(pixels)
    failures = 0
    for mname in ("digits-mlp", "digits-cnn"):
        src = os.path.join(a.models, mname + ".tpum")
        model = read_tpum(src)
        h, w, c = model["in_shape"]
        # the float input: pixels / in_range, in float as tpu_model_quantize_input divides
        raw = pixels.reshape(n, h, w, c).astype(np.float32) / np.float32(model["in_range"])
        # the shipped model's input quantization (roundf, in float)
        q = raw / np.float32(model["in_scale"])
        q8 = np.clip(np.sign(q) * np.floor(np.abs(q) + np.float32(0.5)) + model["in_zp"],
                     -128, 127).astype(np.int8)
        # flat (B, H*W*C): what tpu run takes for either model (the MLP's import starts with
        # the RESHAPE to (1, 1, 64), so its input is 1 x 1 x 64)
        np.save(os.path.join(a.out, "pixels_f32.npy"), raw.reshape(n, -1))
        np.save(os.path.join(a.out, "pixels_q.npy"), q8.reshape(n, -1))
        shipped = {}
        for d in devices:
            outp = os.path.join(a.out, f"{mname}_shipped_{d.replace(':', '_')}.npy")
            tpu(a, "--device", d, "run", src, os.path.join(a.data, "digits_test_x.npy"),
                "--outputs", outp)
            shipped[d] = np.load(outp)
        for form in ("int8", "float"):
            tfl = os.path.join(a.out, f"{mname}_{form}.tflite")
            with open(tfl, "wb") as f:
                f.write(export(model, form == "float"))
            x = raw if form == "float" else q8
            kernel_sets = ["reference"] + (["xnnpack"] if form == "int8" else [])
            for kset in kernel_sets:
                ref = tg.run(open(tfl, "rb").read(), x, tg.RESOLVER[kset]).reshape(n, -1)
                tpum = os.path.join(a.out, f"{mname}_{form}_{kset}.tpum")
                tpu(a, "import", tfl, "-o", tpum, "--kernels", kset)
                for d in devices:
                    outp = os.path.join(a.out, f"{mname}_{form}_{kset}_{d.replace(':', '_')}.npy")
                    inp = os.path.join(a.out, "pixels_f32.npy" if form == "float"
                                       else "pixels_q.npy")
                    tpu(a, "--device", d, "run", tpum, inp, "--outputs", outp,
                        *([] if form == "float" else ["--quantized"]))
                    got = np.load(outp)
                    eq = int(np.sum(got == ref))
                    preds = int(np.sum(got.argmax(1) == ref.argmax(1)))
                    eq_s = int(np.sum(got == shipped[d]))
                    preds_s = int(np.sum(got.argmax(1) == shipped[d].argmax(1)))
                    print(f"{mname} {form} input, {kset}, {d}: LiteRT: {eq} of {ref.size} "
                          f"outputs, {preds} of {n} predictions equal; shipped model: {eq_s} "
                          f"of {ref.size} outputs, {preds_s} of {n} predictions equal")
                    failures += eq != ref.size or preds != n or preds_s != n or (
                        kset == "reference" and eq_s != ref.size)
    if failures:
        print(f"FAILED: {failures} runs differ")
        return 1
    print("all equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
