#!/usr/bin/env python3
"""Post-synthesis equivalence by simulation (docs/fpga.md): tpu_datapath synthesized for a
board's family (same synth command as the board flow), simulated with the vendor cell models
in iverilog, against the RTL in Verilator, on the same random GEMM traffic
(fpga/common/equiv_tb.v). The two traces (every read beat, completion and status change, with
its cycle) must be identical.

usage: equiv.py --board icebreaker --pkg build/rtl/tpu_pkg.sv --out build/fpga/equiv
                [--seeds 1,2] [--rounds 4] [--budget] [--broken] [--set N=4 ...]
  --budget  apply the board's DSP budget (LUT multipliers) as the board flow does
  --dsp K=V a DSP budget entry (implies --budget), e.g. pe_lut_rows_from=2: those PE rows get
            LUT multipliers (on ECP5 through the MULT18X18D model, board.json "dsp_soft")
  --broken  a deliberately mis-mapped netlist, the check must FAIL (its self-test): the PEs
            are flattened (no keep_hierarchy; Yosys' bug 1 of shared/reference/fpga.md did not
            hit the current PE, which registers its operands) and every PE multiplier DSP has
            its B operand's signedness flipped, as a DSP rewrite like bug 2 would leave it
Prints one line "fpga-equiv <board>: PASS|FAIL ..." and exits 0 on PASS.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import flow  # noqa: E402
from synth_report import rtl_closure  # noqa: E402

# behavioural models of DSP and block RAM cells yosys ships only as black boxes (ECP5: the
# DP16KD tiles of fpga/ecp5/tpu_ram.sv with OutReg; -nobram leaves inferred memories in LUTs)
EXTRA_MODELS = {"ice40": [], "ecp5": ["fpga/common/sim/ecp5_dsp.v", "fpga/common/sim/ecp5_bram.v"],
                "gowin": ["fpga/common/sim/gowin_dsp.v"]}


def cell_library(family, out):
    """The vendor cell models for iverilog. Yosys 0.70's lattice/cells_sim_ecp5.v does not
    compile in iverilog 11: common_sim.vh has an elaboration-time $error in a generate branch,
    and both it and cells_sim_ecp5.v include cells_ff.vh/cells_io.vh (every FF model declared
    twice). A sanitised copy goes to <out>/cells/: the $error branch becomes empty (the MODE
    values yosys writes are all handled), the second includes are dropped, and so is the
    DP16KD black box (fpga/common/sim/ecp5_bram.v models it)."""
    src = os.path.join(flow.yosys_datdir(family), flow.FAMILIES[family]["cells"])
    if family != "ecp5":
        return src, os.path.dirname(src)
    sdir = os.path.dirname(src)
    ddir = os.path.join(out, "cells")
    os.makedirs(ddir, exist_ok=True)
    for name in os.listdir(sdir):
        if not (name.endswith(".vh") or name == os.path.basename(src)):
            continue
        with open(os.path.join(sdir, name)) as f:
            text = f.read()
        if name == "common_sim.vh":
            text = re.sub(r'\$error\("unsupported COMB mode %s", MODE\);', "", text)
        if name == os.path.basename(src):
            text = text.replace('`include "cells_ff.vh"', "").replace('`include "cells_io.vh"', "")
            text, k = re.subn(r"\(\* blackbox \*\)\s*module DP16KD\b.*?\bendmodule\b", "", text,
                              flags=re.S)
            if k != 1:
                raise SystemExit(f"equiv: no DP16KD black box in {src} to replace by the model")
        with open(os.path.join(ddir, name), "w") as f:
            f.write(text)
    return os.path.join(ddir, os.path.basename(src)), ddir


def sh(cmd, log):
    with open(log, "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default=None, help="an FPGA profile of rtl/profiles.toml")
    ap.add_argument("--board", default=None, help="without --profile: the board's default")
    ap.add_argument("--pkg", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--budget", action="store_true")
    ap.add_argument("--broken", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="keep an existing net.v (debugging)")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--dsp", action="append", default=[],
                    help="KEY=VALUE DSP budget entry (implies --budget)")
    a = ap.parse_args()
    os.chdir(ROOT)
    if a.profile is None and a.board is None:
        ap.error("--profile or --board is needed")
    try:
        pname, cfg = flow.board_config(a.profile, a.board)
    except (flow.profiles.ProfileError, OSError, KeyError) as e:
        print(f"equiv: {e}", file=sys.stderr)
        return 2
    family = cfg["family"]
    # the datapath at the profile's equivalence sizes with the profile's datapath options
    p = dict(cfg["equiv"])
    p.update(cfg["module_params"].pop("tpu_datapath", {}))
    for s in a.set:
        flow.apply_set(cfg, p, s, "tpu_datapath")
    if p.get("Bf16"):
        # fpga/common/equiv_tb.v drives 8-bit lanes and int8 commands only
        print(f"equiv: {pname}: a Bf16 datapath is not covered (the testbench is int8 only)",
              file=sys.stderr)
        return 2
    for s in a.dsp:
        k, v = s.split("=", 1)
        cfg.setdefault("dsp", {})[k] = int(v)
        a.budget = True
    if not a.budget:
        cfg["dsp"] = {}
    # board.json "equiv_synth": the synth command for the equivalence netlist when it must
    # differ from the board's (ECP5/Gowin: -nobram, yosys ships only black boxes for their
    # block RAMs, so memories become LUT RAM there; DSP and logic mapping are as on the board)
    if "equiv_synth" in cfg:
        cfg["synth"] = cfg["equiv_synth"]
    tag = f"{pname}_n{p['N']}" + ("_budget" if a.budget else "") + ("_broken" if a.broken else "")
    out = os.path.join(a.out, tag)
    os.makedirs(out, exist_ok=True)
    name = f"fpga-equiv {pname} (N={p['N']}{', DSP budget' if a.budget else ''}" \
           f"{', BROKEN netlist' if a.broken else ''})"

    def fail(msg):
        print(f"{name}: FAIL: {msg}")
        return 1

    files = [a.pkg] + rtl_closure("tpu_datapath")
    t0 = time.time()
    # ---------------------------------------------------------------- netlist
    net = os.path.join(out, "net.v")
    ys = os.path.join(out, "synth.ys")
    with open(ys, "w") as f:
        f.write(flow.synth_script(family, cfg, "tpu_datapath", files, p, verilog_out=net,
                                  keep_pe=not a.broken))
    if os.path.exists(net) and not a.reuse:
        os.remove(net)
    yosys = flow.tool(flow.FAMILIES[family]["yosys"][0])
    if os.path.exists(net):
        pass
    elif sh([yosys, "-q", "-l", os.path.join(out, "yosys.log"), "-s", ys],
          os.path.join(out, "yosys.out")) != 0 or not os.path.exists(net):
        return fail(f"synthesis failed, see {out}/yosys.log")
    t_syn = time.time() - t0
    if a.broken:
        with open(net) as f:
            text = f.read()
        # the PE products are the DSPs with a signed 8-bit B operand; flip B's signedness
        pat = re.compile(r"\.(B_SIGNED)\((?:32'd1|1'h1)\)|\.(SIGNEDB)\(1'h1\)|\.(BSIGN)\(1'h1\)")
        text, k = pat.subn(lambda m: "." + next(g for g in m.groups() if g) + "(1'b0)", text)
        if k == 0:
            return fail("--broken: no DSP cell with a signed B operand in the netlist")
        with open(net, "w") as f:
            f.write(text)
    cells, cells_dir = cell_library(family, out)
    # the test bench's own parameters are the sizes; the RTL's datapath gets every parameter
    # through equiv_dut_params.vh (the netlist has them built in)
    sizes = {k: p[k] for k in ("N", "UbRows", "AccRows", "Tiles")}
    gparams = [f"-Pequiv_tb.{k}={v}" for k, v in sizes.items()]
    with open(os.path.join(out, "equiv_dut_params.vh"), "w") as f:
        f.write("#(" + ", ".join(f".{k}({v})" for k, v in p.items()) + ")\n")
    vvp = os.path.join(out, "net.vvp")
    if sh(["iverilog", "-g2012", "-DNETLIST", "-DNO_ICE40_DEFAULT_ASSIGNMENTS", "-o", vvp,
           "-I", cells_dir,
           "-s", "equiv_tb"] + gparams + ["fpga/common/equiv_tb.v", net, cells]
          + EXTRA_MODELS[family], os.path.join(out, "iverilog.log")) != 0:
        return fail(f"iverilog failed, see {out}/iverilog.log")
    # ---------------------------------------------------------------- RTL (Verilator)
    vdir = os.path.join(out, "rtl")
    vbin = os.path.join(vdir, "vtb")
    vflags = ["verilator", "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
              "--top-module", "equiv_tb", "-Mdir", vdir, "-o", "vtb", "-j", "1", f"-I{out}"] + \
        [f"-G{k}={v}" for k, v in sizes.items()] + files + ["fpga/common/equiv_tb.v"]
    if sh(vflags, os.path.join(out, "verilator.log")) != 0:
        return fail(f"verilator failed, see {out}/verilator.log")
    # ---------------------------------------------------------------- traces
    lines = 0
    for seed in a.seeds.split(","):
        tr = {}
        for kind, cmd in (("rtl", [vbin]), ("net", ["vvp", "-n", vvp])):
            tr[kind] = os.path.join(out, f"trace_{kind}_{seed}.txt")
            args = cmd + [f"+seed={seed}", f"+rounds={a.rounds}", f"+trace={tr[kind]}"]
            if sh(args, os.path.join(out, f"sim_{kind}_{seed}.log")) != 0:
                return fail(f"{kind} simulation failed, see {out}/sim_{kind}_{seed}.log")
        with open(tr["rtl"]) as f:
            r = f.read().splitlines()
        with open(tr["net"]) as f:
            n = f.read().splitlines()
        if not r or not r[-1].startswith("END"):
            return fail(f"RTL trace incomplete ({tr['rtl']})")
        if r != n:
            bad = next((i for i in range(min(len(r), len(n))) if r[i] != n[i]), min(len(r), len(n)))
            diff = sum(1 for x, y in zip(r, n) if x != y) + abs(len(r) - len(n))
            return fail(f"seed {seed}: {diff} of {len(r)} trace lines differ; first at line "
                        f"{bad + 1}: RTL '{r[bad] if bad < len(r) else 'EOF'}' netlist "
                        f"'{n[bad] if bad < len(n) else 'EOF'}'")
        lines += len(r)
    print(f"{name}: PASS ({len(a.seeds.split(','))} seeds, {lines} trace lines identical, "
          f"synth {t_syn:.0f} s, total {time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
