#!/usr/bin/env python3
"""Yosys synthesis smoke run of the RTL: every design x target x N from the table below.

For each run it fills in fpga/synth/<target>.ys, runs yosys, reads the `stat -json` output
before and after synthesis and checks:
  - no latches (the .ys scripts assert it; yosys then fails),
  - multipliers became DSP cells (DSP targets): DSP cells >= the $mul cells before synthesis,
  - every tpu_ram instance (kept as its own module) of BIG_RAM_BITS or more became block RAM:
    at least one RAM cell and no flip-flop beside it (generic: the memory stays a $mem_v2 cell).
Writes <out>/report.json and prints a LUT/FF/DSP/BRAM table. Exit status 1 when a run fails.
usage: synth_report.py --pkg build/rtl/tpu_pkg.sv --out build/synth [--jobs 2] [--yosys yosys]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import string
import subprocess
import sys
import time

from atomicio import atomic_open  # a failed write never destroys the old report

ACT_FILES = ["rtl/common/tpu_fp_pkg.sv", "rtl/common/tpu_ram.sv", "rtl/act/tpu_act_params.sv",
             "rtl/act/tpu_act_fp_params.sv", "rtl/act/tpu_activation.sv", "rtl/act/tpu_act_unit.sv"]

# name, top, files (None = every rtl/*.sv), parameters as a function of N. Buffer depths are
# small so that the run stays short, but large enough to be block RAM on every target.
DESIGNS = [
    ("act_unit", "tpu_act_unit", ACT_FILES, lambda n: {"N": n}),
    ("acc_ram", "tpu_ram", ["rtl/common/tpu_ram.sv"], lambda n: {"Width": 32 * n, "Depth": 512}),
    ("datapath", "tpu_datapath", None,
     lambda n: {"N": n, "UbRows": 512, "AccRows": 256, "Tiles": 2}),
]
TARGETS = ["ice40", "ecp5", "generic"]
# --set bf16 (make synth-bf16, not part of make test: minutes of yosys): the datapath with the
# bf16 mode beside the int8 one, at N = 4 for ECP5 and generic (no iCE40 board takes it)
BF16_DESIGNS = [
    ("datapath", "tpu_datapath", None,
     lambda n: {"N": n, "UbRows": 512, "AccRows": 256, "Tiles": 2}),
    ("dp_bf16", "tpu_datapath", None,
     lambda n: {"N": n, "UbRows": 512, "AccRows": 256, "Tiles": 2, "Bf16": 1}),
]
BF16_TARGETS = ["ecp5", "generic"]
BF16_SIZES = [4]
# --set round (make synth-round, not part of make test): the activation unit with and without
# the SINGLE and FLOAT roundings (Round), at N = 4 for iCE40 and ECP5
ROUND_DESIGNS = [
    ("act_unit", "tpu_act_unit", ACT_FILES, lambda n: {"N": n}),
    ("act_round", "tpu_act_unit", ACT_FILES, lambda n: {"N": n, "Round": 1}),
]
ROUND_TARGETS = ["ice40", "ecp5"]
ROUND_SIZES = [4]
# tpu_ram instances of at least this many bits must become block RAM
BIG_RAM_BITS = 2048
SIZES = [4, 8]

# Cell classes per target: LUT (logic), FF, DSP, BRAM. ECP5's CCU2C is two LUT4s plus carry.
CELLS = {
    "ice40": {"lut": {"SB_LUT4": 1}, "ff": r"^SB_DFF", "dsp": {"SB_MAC16"},
              "bram": {"SB_RAM40_4K", "SB_SPRAM256KA"}},
    "ecp5": {"lut": {"LUT4": 1, "CCU2C": 2}, "ff": r"^TRELLIS_FF$", "dsp": {"MULT18X18D", "ALU54B"},
             "bram": {"DP16KD", "PDPW16KD"}},
    "generic": {"lut": None, "ff": r"DFF", "dsp": {"$mul"}, "bram": {"$mem_v2", "$mem"}},
}


def load_stat(path):
    """Reads a `stat -json` file. Yosys 0.23 prints the hierarchy (lines without quotes) into
    the JSON when -top is given; those lines are dropped."""
    with open(path) as f:
        lines = [l for l in f if '"' in l or l.strip() in ("{", "}", "},", "]", "],")]
    return json.loads("".join(lines))


def classify(target, by_type):
    c = CELLS[target]
    out = {"lut": 0, "ff": 0, "dsp": 0, "bram": 0}
    for t, k in by_type.items():
        if re.search(c["ff"], t):
            out["ff"] += k
        elif t in c["dsp"]:
            out["dsp"] += k
        elif t in c["bram"]:
            out["bram"] += k
        elif c["lut"] is None:
            if t.startswith("$_"):
                out["lut"] += k
        elif t in c["lut"]:
            out["lut"] += k * c["lut"][t]
    return out


def rtl_closure(top):
    """The rtl/*.sv files that `top` needs (one module per file, named like the file): modules
    named in a file's code (comments stripped) are taken in, transitively. Files of modules
    that `top` does not use (perhaps half-written by someone else) are never read."""
    mods = {os.path.basename(f)[:-3]: f for f in glob.glob(os.path.join("rtl", "*", "*.sv"))}
    need, todo = set(), [top]
    while todo:
        m = todo.pop()
        if m in need or m not in mods:
            continue
        need.add(m)
        with open(mods[m]) as f:
            code = re.sub(r"//[^\n]*|/\*.*?\*/", "", f.read(), flags=re.S)
        todo.extend(w for w in set(re.findall(r"\b[A-Za-z_]\w*\b", code)) if w in mods)
    # packages (*_pkg.sv) before the modules that use them
    return sorted((mods[m] for m in need), key=lambda f: (not f.endswith("_pkg.sv"), f))


def run_one(args, design, target, n):
    name, top, files, params = design
    p = params(n)
    tag = f"{name}_{target}_n{n}"
    work = os.path.join(args.out, tag)
    os.makedirs(work, exist_ok=True)
    if files is None:
        files = rtl_closure(top)
    pre, post = os.path.join(work, "pre.json"), os.path.join(work, "post.json")
    for f in (pre, post):
        if os.path.exists(f):
            os.remove(f)
    with open(os.path.join("fpga", "synth", f"{target}.ys")) as f:
        tmpl = string.Template(f.read())
    script = tmpl.substitute(
        READ="read_verilog -sv -DSYNTHESIS " + " ".join([args.pkg] + files),
        TOP=top,
        CHPARAMS=" ".join(f"-chparam {k} {v}" for k, v in p.items()),
        # RAMs stay separate modules so that their mapping can be checked one by one
        KEEP="setattr -mod -set keep_hierarchy 1 *tpu_ram*",
        PRE_JSON=pre, POST_JSON=post)
    ys = os.path.join(work, "synth.ys")
    with open(ys, "w") as f:
        f.write(script)
    log = os.path.join(work, "yosys.log")
    t0 = time.time()
    rc = subprocess.run(args.yosys.split() + ["-q", "-l", log, "-s", ys],
                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode
    res = {"design": name, "top": top, "target": target, "n": n, "params": p,
           "seconds": round(time.time() - t0, 1), "log": log, "errors": []}
    if rc != 0 or not os.path.exists(post):
        res["errors"].append(f"yosys failed (exit {rc}), see {log}")
        return res
    with open(log) as f:
        cpu = re.findall(r"CPU: user ([0-9.]+)s", f.read())
    res["cpu_seconds"] = float(cpu[-1]) if cpu else None
    st_pre, st_post = load_stat(pre), load_stat(post)
    total = st_post["design"]["num_cells_by_type"]
    res["cells"] = {k: v for k, v in total.items() if not k.startswith("$paramod")}
    res.update(classify(target, res["cells"]))
    muls = st_pre["design"]["num_cells_by_type"].get("$mul", 0)
    res["muls"] = muls
    # (generic: constant multipliers fold away, so its $mul count proves nothing)
    if target != "generic" and res["dsp"] < muls:
        res["errors"].append(f"{muls} multipliers but only {res['dsp']} DSP cells")
    # every big tpu_ram module (UB, ACC, LUT replicas; not small FIFOs, which may be distributed
    # RAM or flip-flops): block RAM, storage not in flip-flops
    for mod, st in st_post["modules"].items():
        if "tpu_ram" not in mod:
            continue
        bits = st_pre["modules"].get(mod, {}).get("num_memory_bits", 0)
        if bits < BIG_RAM_BITS:
            continue
        k = classify(target, st["num_cells_by_type"])
        if k["bram"] == 0:
            res["errors"].append(f"{mod}: no block RAM cell ({st['num_cells_by_type']})")
        elif k["ff"] > 0:
            # the read register belongs inside the RAM cell
            res["errors"].append(f"{mod}: {k['ff']} flip-flops beside the RAM")
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pkg", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--yosys", default="yosys")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", choices=("default", "bf16", "round"), default="default")
    args = ap.parse_args()
    designs, sizes, targets = DESIGNS, SIZES, TARGETS
    if args.set == "bf16":
        designs, sizes, targets = BF16_DESIGNS, BF16_SIZES, BF16_TARGETS
    elif args.set == "round":
        designs, sizes, targets = ROUND_DESIGNS, ROUND_SIZES, ROUND_TARGETS
    os.makedirs(args.out, exist_ok=True)

    runs = []
    for d in designs:
        if d[2] is None and not glob.glob(f"rtl/*/{d[1]}.sv"):
            print(f"synth: rtl/*/{d[1]}.sv does not exist yet, skipping {d[0]}")
            continue
        for n in sizes:
            for t in targets:
                runs.append((d, t, n))
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = list(ex.map(lambda r: run_one(args, *r), runs))

    ver = subprocess.run(args.yosys.split() + ["-V"], capture_output=True, text=True).stdout
    with atomic_open(os.path.join(args.out, "report.json")) as f:
        json.dump({"yosys": ver.strip(), "seconds": round(time.time() - t0, 1),
                   "runs": results}, f, indent=1)

    print("LUT = SB_LUT4 (ice40), LUT4 + 2 x CCU2C (ecp5), gate cells before abc (generic);\n"
          "DSP = SB_MAC16 | MULT18X18D | $mul; BRAM = SB_RAM40_4K | DP16KD | $mem_v2")
    hdr = f"{'design':<10} {'target':<8} {'N':>3} {'LUT':>8} {'FF':>7} {'DSP':>5} {'BRAM':>5} " \
          f"{'time':>6}  status"
    print(hdr)
    print("-" * len(hdr))
    bad = 0
    for r in results:
        ok = not r["errors"]
        bad += not ok
        if "cells" in r:
            print(f"{r['design']:<10} {r['target']:<8} {r['n']:>3} {r['lut']:>8} {r['ff']:>7} "
                  f"{r['dsp']:>5} {r['bram']:>5} {r['seconds']:>5}s  {'ok' if ok else 'FAIL'}")
        else:
            print(f"{r['design']:<10} {r['target']:<8} {r['n']:>3} {'-':>8} {'-':>7} {'-':>5} "
                  f"{'-':>5} {r['seconds']:>5}s  FAIL")
        for e in r["errors"]:
            print(f"    {e}")
    cpu = sum(r.get("cpu_seconds") or 0 for r in results)
    print(f"synth: {len(results) - bad} of {len(results)} runs ok in {time.time() - t0:.0f} s "
          f"(yosys CPU {cpu:.0f} s, {args.jobs} jobs); report {os.path.join(args.out, 'report.json')}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
