#!/usr/bin/env python3
"""Models exported to ONNX and imported back (docs/import.md, "Export").

For each models/*.tpum (the 355 quantized digits test images) and each of a few random models
written here (tpum_writer.py: CONV2D, MAXPOOL2D and DENSE layers in every rounding mode, with
left and right shifts, RELU and RELU6 clamps and weight zero points; random int8 inputs):
`tpu export` writes it as an ONNX model, ONNX Runtime runs the export, `tpu import` reads the
export back and `tpu run` runs that on every device of --devices. Checks, with exact counts
printed (any difference fails):
  - ONNX Runtime on the export equals the original model on golden, every int8 output;
  - the imported export on each device equals ONNX Runtime, every element, and so the original.
The digits images are quantized with the model's own rule (tpu.Model.quantize, libtpu).

usage: export_check.py --tpu build/bin/tpu --out build/onnx-export [--devices golden,sim]
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tpu  # noqa: E402  (libtpu from the build tree)
import tpum_writer as tw  # noqa: E402


def run(cmd):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"export_check: {' '.join(map(str, cmd))} failed ({r.returncode}):\n"
                 f"{r.stdout}{r.stderr}")
    return r


def tpu_outputs(a, device, model, q, out):
    run([a.tpu, "--device", device, "run", model, q, "--quantized", "--outputs", out])
    return np.load(out)


def random_layer(rng, kind, rnd, in_scale, k, out_c, act=0, left=False, b_zp=0, conv=None):
    """A CONV2D (conv: (kh, kw, stride, pads)) or DENSE layer of k inputs per output; left:
    some channels' multipliers above 1 (a left shift); b_zp: 0 none, 1 per tensor, 2 per
    channel."""
    w_scale = rng.uniform(0.002, 0.02, out_c).astype(np.float32)
    out_scale = np.float32(in_scale * float(np.mean(w_scale)) * np.sqrt(k) * rng.uniform(20, 60))
    if left:  # about half the channels with in_scale * w_scale / out_scale in (1, 8)
        out_scale = np.float32(in_scale * float(np.min(w_scale)) / 1.5)
    L = dict(type=kind, out_c=out_c, act=act, out_scale=float(out_scale),
             out_zp=int(rng.integers(-128, -100) if act == 1 else rng.integers(-30, 30)),
             weights=rng.integers(-128, 128, k * out_c).tolist(),
             bias=rng.integers(-20000, 20000, out_c).tolist(), w_scale=w_scale.tolist(),
             round=rnd, b_zp=[] if not b_zp else rng.integers(-128, 128, 1 if b_zp == 1
                                                              else out_c).tolist())
    if conv:
        kh, kw, st, pads = conv
        L.update(kernel=(kh, kw), stride=(st, st), pads=pads)
    return L


def random_models(out_dir, rng):
    """(name, path, input shape) of the random models (see the module's doc)."""
    D, S, F = tw.DOUBLE, tw.SINGLE, tw.FLOAT
    pool = dict(type=tw.MAXPOOL2D, kernel=(2, 2), stride=(2, 2))
    specs = {
        # conv DOUBLE relu, pool, dense SINGLE relu6 with left shifts, dense DOUBLE
        "mixed_double_single": ((8, 8, 3), [
            ("c", D, 6, dict(act=1, conv=(3, 3, 1, (1, 1, 1, 1)))), ("p",),
            ("d", S, 24, dict(act=2, left=True)), ("d", D, 10, {})]),
        # conv SINGLE with a weight zero point, strided and asymmetric pads; dense FLOAT
        # (QLinear nodes) between integer ones: the scales chain through both forms
        "float_between_integer": ((9, 7, 2), [
            ("c", S, 5, dict(b_zp=1, conv=(3, 2, 2, (1, 0, 0, 1)))),
            ("d", F, 16, dict(act=1)), ("d", D, 12, dict(b_zp=2, left=True))]),
        # a dense chain of a 2-D input, per-column weight zero points, left shifts
        "dense_only": ((1, 1, 40), [
            ("d", D, 30, dict(b_zp=2, act=1, left=True)), ("d", S, 20, dict(b_zp=2)),
            ("d", D, 7, {})]),
        # conv FLOAT with a RELU clamp beyond the saturation (DequantizeLinear, Relu,
        # QuantizeLinear), then integer conv and dense
        "float_relu_then_double": ((6, 6, 4), [
            ("c", F, 8, dict(act=1, conv=(3, 3, 1, (1, 1, 1, 1)))),
            ("c", D, 4, dict(act=2, conv=(1, 1, 1, (0, 0, 0, 0)), left=True)),
            ("d", S, 9, {})]),
    }
    out = []
    for name, (shape, spec) in specs.items():
        h, w, c = shape
        in_scale, in_zp = float(np.float32(rng.uniform(0.01, 0.05))), int(rng.integers(-20, 20))
        scale, zp, layers = in_scale, in_zp, []
        for item in spec:
            if item[0] == "p":
                layers.append(dict(pool, out_zp=zp))
                h, w = h // 2, w // 2
                continue
            kind, rnd, oc, kw = item
            conv = kw.pop("conv", None)
            if conv:
                kh, kwid, st, pads = conv
                k = kh * kwid * c
                h = (h + pads[0] + pads[1] - kh) // st + 1
                w = (w + pads[2] + pads[3] - kwid) // st + 1
            else:
                k, h, w = h * w * c, 1, 1
            L = random_layer(rng, tw.CONV2D if conv else tw.DENSE, rnd, scale, k, oc,
                             conv=conv, **kw)
            if rnd == tw.FLOAT and L["act"] == 1:
                L["out_zp"] = int(rng.integers(-60, -20))  # a clamp beyond the saturation
            layers.append(L)
            c, scale, zp = oc, L["out_scale"], L["out_zp"]
        path = os.path.join(out_dir, f"random_{name}.tpum")
        tw.write(path, name, shape, in_scale, in_zp, layers, h * w * c)
        out.append((f"random_{name}", path, shape))
    return out


def check(a, name, path, q, shape):
    """Export path, run it in ONNX Runtime on the int8 inputs q (B, h*w*c), import it back and
    run that; returns the number of failed checks."""
    h, w, c = shape
    base = os.path.join(a.out, name)
    np.save(base + "_q.npy", q)
    run([a.tpu, "export", path, "-o", base + ".onnx"])
    sess = ort.InferenceSession(base + ".onnx", providers=["CPUExecutionProvider"])
    nchw = q.reshape(-1, h, w, c).transpose(0, 3, 1, 2)
    want = sess.run(None, {"x": np.ascontiguousarray(nchw)})[0]
    orig = tpu_outputs(a, "golden", path, base + "_q.npy", base + "_orig.npy")
    same = int((want == orig).sum())
    preds = int((want.argmax(1) == orig.argmax(1)).sum())
    print(f"{name}: ONNX Runtime on the export vs the original on golden: {same} of "
          f"{want.size} int8 outputs equal, {preds} of {len(want)} predictions equal")
    bad = same != want.size
    run([a.tpu, "import", base + ".onnx", "-o", base + "_back.tpum"])
    # the imported model takes ONNX's NCHW input (flat here: C, H, W order)
    np.save(base + "_q_nchw.npy", np.ascontiguousarray(nchw).reshape(len(q), -1))
    for dev in a.devices.split(","):
        got = tpu_outputs(a, dev, base + "_back.tpum", base + "_q_nchw.npy",
                          f"{base}_back_{dev.replace(':', '_')}.npy")
        eq = int((got == want).sum())
        print(f"{name}: imported export on {dev}: {eq} of {want.size} elements equal to "
              f"ONNX Runtime and the original")
        bad += eq != want.size
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpu", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--devices", default="golden")
    ap.add_argument("--seed", type=int, default=27)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    x = np.load(ROOT / "data" / "digits_test_x.npy")
    bad = 0
    print(f"export_check: ONNX Runtime {ort.__version__}")
    for path in sorted((ROOT / "models").glob("*.tpum")):
        with tpu.Model.load(path) as m:
            q = m.quantize(x)  # (B, h*w*c) int8, H, W, C order
            shape = m.input_shape
        bad += check(a, path.stem, path, q, shape)
    rng = np.random.default_rng(a.seed)
    for name, path, shape in random_models(a.out, rng):
        q = rng.integers(-128, 128, (64, int(np.prod(shape)))).astype(np.int8)
        bad += check(a, name, path, q, shape)
    print("export_check: " + ("all equal" if not bad else f"{bad} checks FAILED"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
