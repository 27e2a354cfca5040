#!/usr/bin/env python3
"""Simulation speed of the Verilated device beside the datapath alone and the golden model.

make bench-speed (part of make bench) runs, one after the other on one core:
  - a 512 x 512 x 512 int8 GEMM (`tpu bench gemm --json`) on sim:n=16, sim:n=8 and golden;
  - the two shipped digits models over the 355 test images (`tpu bench model --json`) on
    sim:n=16;
and reads the datapath's figure (tpu_datapath alone at N = 16, one thread) from bench-rtl's
JSON of the same `make` run. It prints simulated cycles/s per run and the ratio of each to
the full device's 512^3 GEMM at N = 16, and writes the figures as JSON.

The golden model counts cycles by its own timing model (not the RTL's), so its cycles/s is
not the same unit: its row also gives the wall-time ratio for the same GEMM (sim / golden).

Usage: bench_speed.py --cli build/bin/tpu --rtl-json build/bench/rtl.json -o OUT.json
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

GEMM = (512, 512, 512)
MODELS = ("models/digits-mlp.tpum", "models/digits-cnn.tpum")
MODEL_X = "data/digits_test_x.npy"
GOAL_DEVICE = 1_000_000  # simulated cycles/s of the full device, 512^3 at N = 16


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def gemm(cli, device):
    m, k, n = GEMM
    r = run_json([cli, "bench", "gemm", "--m", str(m), "--k", str(k), "--n", str(n),
                  "--device", device, "--json"])
    if not r.get("correct"):
        sys.exit(f"bench_speed: {device}: the GEMM does not match its reference")
    return {"what": f"gemm {m}x{k}x{n}", "device": device, "cycles": r["cycles"],
            "wall_s": r["wall_seconds"]}


def model(cli, path, device):
    r = run_json([cli, "bench", "model", path, MODEL_X, "--device", device, "--json"])
    t = r["total"]
    return {"what": f"model {r['model']} x{r['batch']}", "device": device,
            "cycles": t["cycles"], "wall_s": t["wall_seconds"]}


def datapath(rtl_json):
    with open(rtl_json) as f:
        d = json.load(f)
    for r in d["results"]:
        if r["n"] == 16 and r["threads"] == 1 and r.get("dtype", "int8") == "int8":
            return {"what": f"datapath alone ({r['model']})", "device": "tpu_datapath n=16",
                    "cycles": r["cycles"], "wall_s": r["wall_s"]}
    sys.exit(f"bench_speed: {rtl_json}: no N = 16 single-thread datapath result")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--rtl-json", required=True)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()

    rows = [gemm(a.cli, "sim:n=16"), gemm(a.cli, "sim:n=8")]
    rows += [model(a.cli, p, "sim:n=16") for p in MODELS]
    rows.append(datapath(a.rtl_json))
    golden = gemm(a.cli, "golden")
    rows.append(golden)
    for r in rows:
        r["cycles_per_s"] = r["cycles"] / r["wall_s"] if r["wall_s"] > 0 else 0.0
    ref = rows[0]["cycles_per_s"]
    for r in rows:
        r["ratio_to_device_n16"] = r["cycles_per_s"] / ref if ref > 0 else 0.0
    golden["sim_wall_over_golden_wall"] = rows[0]["wall_s"] / golden["wall_s"]
    models_wall = sum(r["wall_s"] for r in rows if r["what"].startswith("model"))

    print(f"{'run':<28} {'device':<20} {'cycles':>10} {'wall s':>8} {'cycles/s':>11} "
          f"{'x device':>8}")
    for r in rows:
        print(f"{r['what']:<28} {r['device']:<20} {r['cycles']:>10} {r['wall_s']:>8.3f} "
              f"{r['cycles_per_s']:>11.0f} {r['ratio_to_device_n16']:>8.2f}")
    print(f"golden: the same GEMM in {golden['wall_s']:.3f} s, "
          f"{golden['sim_wall_over_golden_wall']:.0f}x faster than sim:n=16 "
          "(its own timing model: other cycles)")
    print(f"full device 512^3 at N = 16: {ref:.0f} simulated cycles/s "
          f"(goal {GOAL_DEVICE:,}: {ref / GOAL_DEVICE:.0%}); both models {models_wall:.2f} s")

    doc = {"bench": "sim_speed", "goal_device_cycles_per_s": GOAL_DEVICE,
           "models_wall_s": models_wall, "results": rows}
    d = os.path.dirname(os.path.abspath(a.out))
    with tempfile.NamedTemporaryFile("w", dir=d, delete=False, suffix=".tmp") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(f.name, a.out)


if __name__ == "__main__":
    main()
