#!/usr/bin/env python3
"""bf16 GEMM utilization of the Verilated bf16 devices beside int8 GEMMs of the same shapes.

make bench-bf16 (part of make bench) runs each GEMM with `tpu bench gemm --json` (a fresh
device per run; each result checked by the CLI against its reference: bit for bit in the
device's tile order for bf16, exact for int8), one after the other on one core:
  - N = 16, the shapes of make bench-sim (sw/bench/bench_sim.c): --dtype bf16 on
    sim:n=16,bf16=1 (the bf16 mode at the spec's sizes, docs/device.md "The bf16 device")
    beside --dtype int8 on sim:n=16 (the default options: the read-aheads, STREAM_MATMUL);
  - N = 8: --dtype bf16 on sim:bf16=1 and --dtype int8 on sim:n=8, and --dtype int8 on the
    bf16 device too, so the cost of its missing read-aheads and STREAM_MATMUL shows apart from
    the cost of the bf16 data (2 bytes an element in, 4 out).
It prints device cycles, utilization (MACs / (N^2 x cycles)) and the cycle ratio to the int8
GEMM of the same shape on the int8 device of the same N, and writes the figures as JSON.

Usage: bench_bf16.py --cli build/bin/tpu -o OUT.json [--quick]
(--quick: 512x512x512 at N = 16 only)
"""
import argparse
import json
import subprocess
import sys

# (shapes, runs: (dtype, device), the int8 device the ratio is to)
N16_SHAPES = ((64, 64, 64), (128, 128, 128), (256, 256, 256), (512, 512, 512),
              (512, 64, 512), (64, 512, 64), (1024, 256, 32), (200, 300, 100),
              (64, 256, 256), (128, 512, 128), (256, 128, 512), (1, 512, 512), (1, 64, 64))
SETS = (
    (N16_SHAPES, (("bf16", "sim:n=16,bf16=1"), ("int8", "sim:n=16")), "sim:n=16"),
    (((64, 64, 64), (128, 128, 128), (256, 256, 256)),
     (("bf16", "sim:bf16=1"), ("int8", "sim:bf16=1"), ("int8", "sim:n=8")), "sim:n=8"),
)
QUICK = ((((512, 512, 512),), (("bf16", "sim:n=16,bf16=1"), ("int8", "sim:n=16")), "sim:n=16"),)


def gemm(cli, shape, dtype, device):
    m, k, n = shape
    out = subprocess.run([cli, "bench", "gemm", "--m", str(m), "--k", str(k), "--n", str(n),
                          "--dtype", dtype, "--device", device, "--json"],
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    if not r.get("correct"):
        sys.exit(f"bench_bf16: {dtype} {m}x{k}x{n} on {device}: wrong result")
    return {"shape": f"{m}x{k}x{n}", "dtype": dtype, "device": device, "array": r["array"],
            "cycles": r["cycles"], "mxu_busy_cycles": r["mxu_busy_cycles"],
            "utilization": r["utilization"], "commands": r["commands"],
            "wall_s": r["wall_seconds"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--quick", action="store_true", help="512x512x512 at N = 16 only")
    args = ap.parse_args()

    rows = []
    print(f"{'shape':<14} {'dtype':<5} {'device':<16} {'cycles':>9} {'util':>7} "
          f"{'vs int8':>8}")
    for shapes, runs, base_dev in QUICK if args.quick else SETS:
        for s in shapes:
            got = [gemm(args.cli, s, d, dev) for d, dev in runs]
            base = next(r for r in got if r["device"] == base_dev and r["dtype"] == "int8")
            for r in got:
                r["vs_int8"] = round(r["cycles"] / base["cycles"], 3)
                print(f"{r['shape']:<14} {r['dtype']:<5} {r['device']:<16} {r['cycles']:>9} "
                      f"{100 * r['utilization']:>6.1f}% {r['vs_int8']:>7.2f}x", flush=True)
            rows += got
    with open(args.output, "w") as f:
        json.dump({"bench": "bf16_gemm", "results": rows}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
