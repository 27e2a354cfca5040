#!/usr/bin/env python3
"""The shipped models exported to ONNX and imported back (docs/import.md, "Export").

For each models/*.tpum: `tpu export` writes it as an ONNX model, ONNX Runtime runs the export on
the 355 quantized digits test images, `tpu import` reads the export back and `tpu run` runs that
on every device of --devices. Checks, with exact counts printed:
  - the imported export on each device equals ONNX Runtime, every element (any difference fails);
  - ONNX Runtime on the export against the original model on golden: the predictions must all
    be equal; the int8 outputs are counted (the original rounds as TFLite's reference kernels,
    ONNX Runtime in float: a value within a rounding step of a tie may differ by one);
  - the imported export's predictions equal the original's on every image.
The images are quantized with the model's own rule (tpu.Model.quantize, libtpu).

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
import tpu  # noqa: E402  (libtpu from the build tree)


def run(cmd):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"export_check: {' '.join(map(str, cmd))} failed ({r.returncode}):\n"
                 f"{r.stdout}{r.stderr}")
    return r


def tpu_outputs(a, device, model, q, out):
    run([a.tpu, "--device", device, "run", model, q, "--quantized", "--outputs", out])
    return np.load(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpu", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--devices", default="golden")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    x = np.load(ROOT / "data" / "digits_test_x.npy")
    bad = 0
    print(f"export_check: ONNX Runtime {ort.__version__}")
    for path in sorted((ROOT / "models").glob("*.tpum")):
        name = path.stem
        base = os.path.join(a.out, name)
        with tpu.Model.load(path) as m:
            q = m.quantize(x)  # (B, h*w*c) int8, H, W, C order
            h, w, c = m.input_shape
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
        if preds != len(want):
            bad += 1
        run([a.tpu, "import", base + ".onnx", "-o", base + "_back.tpum"])
        for dev in a.devices.split(","):
            got = tpu_outputs(a, dev, base + "_back.tpum", base + "_q.npy",
                              f"{base}_back_{dev.replace(':', '_')}.npy")
            eq = int((got == want).sum())
            pe = int((got.argmax(1) == orig.argmax(1)).sum())
            print(f"{name}: imported export on {dev}: {eq} of {want.size} elements equal to "
                  f"ONNX Runtime, {pe} of {len(want)} predictions equal to the original")
            if eq != want.size or pe != len(want):
                bad += 1
    print("export_check: " + ("all equal" if not bad else f"{bad} checks FAILED"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
