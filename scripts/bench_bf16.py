#!/usr/bin/env python3
"""bf16 GEMM utilization of the Verilated bf16 device beside int8 GEMMs of the same shapes.

make bench-bf16 (part of make bench) runs each shape twice, one after the other on one core,
with `tpu bench gemm --json` (each result checked by the CLI against its reference: bit for bit
in the device's tile order for bf16, exact for int8):
  - --dtype bf16 on sim:bf16=1 (N = 8, the bf16 mode; built without the read-aheads and
    without STREAM_MATMUL, docs/device.md "The bf16 device");
  - --dtype int8 on sim:n=8 (N = 8, the default options);
  - --dtype int8 on the bf16 device too, so the cost of its missing read-aheads shows apart
    from the cost of the bf16 data (2 bytes an element over the link).
It prints device cycles, utilization (MACs / (N^2 x cycles)) and the bf16 / int8 cycle ratio
per shape, and writes the figures as JSON.

Usage: bench_bf16.py --cli build/bin/tpu -o OUT.json
"""
import argparse
import json
import subprocess
import sys

SHAPES = ((64, 64, 64), (128, 128, 128), (256, 256, 256))
RUNS = (("bf16", "sim:bf16=1"), ("int8", "sim:bf16=1"), ("int8", "sim:n=8"))


def gemm(cli, shape, dtype, device):
    m, k, n = shape
    out = subprocess.run([cli, "bench", "gemm", "--m", str(m), "--k", str(k), "--n", str(n),
                          "--dtype", dtype, "--device", device, "--json"],
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    if not r.get("correct"):
        sys.exit(f"bench_bf16: {dtype} {m}x{k}x{n} on {device}: wrong result")
    return {"shape": f"{m}x{k}x{n}", "dtype": dtype, "device": device, "cycles": r["cycles"],
            "utilization": r["utilization"], "wall_s": r["wall_seconds"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()

    rows = [gemm(args.cli, s, d, dev) for s in SHAPES for d, dev in RUNS]
    print(f"{'shape':<12} {'dtype':<5} {'device':<12} {'cycles':>10} {'util':>7} "
          f"{'vs int8 n=8':>11}")
    for r in rows:
        base = next(b for b in rows if b["shape"] == r["shape"] and b["device"] == "sim:n=8")
        print(f"{r['shape']:<12} {r['dtype']:<5} {r['device']:<12} {r['cycles']:>10} "
              f"{100 * r['utilization']:>6.1f}% {r['cycles'] / base['cycles']:>10.2f}x")
    with open(args.output, "w") as f:
        json.dump({"bench": "bf16_gemm", "results": rows}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
