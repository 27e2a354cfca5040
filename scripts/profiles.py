#!/usr/bin/env python3
"""The design's named configuration profiles (rtl/profiles.toml): load, check, and generate
what the build needs from them.

usage: profiles.py [--file rtl/profiles.toml] --mk OUT.mk      make variables (mk/*.mk use them)
       profiles.py --stamps DIR                                DIR/<profile>.json, rewritten on change
       profiles.py --header OUT.h                              the datapath test models (C)
       profiles.py --list                                      one line per profile
       profiles.py --show NAME                                 one profile as JSON

As a module (scripts/fpga/flow.py, equiv.py): load(), get(name), vlog(value).
"""
import argparse
import json
import os
import sys
import tomllib

from atomicio import atomic_open

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "rtl", "profiles.toml")

TOPS = ("tpu_device", "tpu_board_top", "tpu_datapath", "fpga")
FIELDS = {"doc", "top", "params", "modules", "sim", "uart", "tests", "threads", "board",
          "design", "variant", "mhz", "seed", "dsp", "equiv"}
TEST_SETS = ("datapath", "cycles", "stream", "bench", "bf16")
# the parameters a profile of each top must name (complete profiles)
REQUIRED = {
    "tpu_device": ("N", "UbRows", "AccRows", "Tiles", "NumQueues", "NumWindows",
                   "MaxQueueEntries", "LinkBytes", "MaxPayload", "MaxReadReq", "Tags"),
    "tpu_board_top": ("N",),
    "tpu_datapath": ("N", "UbRows", "AccRows", "Tiles"),
    "fpga": ("N", "UbRows", "AccRows", "Tiles"),
}


class ProfileError(Exception):
    pass


def vlog(v):
    """A parameter value as Verilator's -G and Verilog source take it."""
    if isinstance(v, bool):
        return "1'b1" if v else "1'b0"
    return str(v)


def plain(v):
    """A parameter value as yosys' chparam and iverilog's -P take it."""
    return str(int(v)) if isinstance(v, bool) else str(v)


def check(name, p):
    where = f"rtl/profiles.toml [{name}]"
    extra = set(p) - FIELDS
    if extra:
        raise ProfileError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
    for f in ("doc", "top", "params"):
        if f not in p:
            raise ProfileError(f"{where}: field '{f}' is missing")
    if p["top"] not in TOPS:
        raise ProfileError(f"{where}: top '{p['top']}' is not one of {', '.join(TOPS)}")
    missing = [k for k in REQUIRED[p["top"]] if k not in p["params"]]
    if missing:
        raise ProfileError(f"{where}: params must name {', '.join(missing)} (profiles are "
                           "complete)")
    for t in p.get("tests", []):
        if t not in TEST_SETS:
            raise ProfileError(f"{where}: tests entry '{t}' is not one of {', '.join(TEST_SETS)}")
    if p.get("tests") and p["top"] != "tpu_datapath":
        raise ProfileError(f"{where}: tests need top = tpu_datapath")
    if p.get("sim") and p["top"] != "tpu_device":
        raise ProfileError(f"{where}: sim needs top = tpu_device")
    if p.get("uart") and p["top"] != "tpu_board_top":
        raise ProfileError(f"{where}: uart needs top = tpu_board_top")
    if p["top"] == "fpga":
        for f in ("board", "design", "mhz", "seed", "equiv"):
            if f not in p:
                raise ProfileError(f"{where}: an fpga profile needs '{f}'")
        if p["design"] not in ("board_top", "stub"):
            raise ProfileError(f"{where}: design must be board_top or stub")
        if not os.path.exists(os.path.join(ROOT, "fpga", p["board"], "board.json")):
            raise ProfileError(f"{where}: no fpga/{p['board']}/board.json")


def load(path=DEFAULT):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    lint = data.pop("lint", {}).get("sets", [])
    for name, p in data.items():
        check(name, p)
    return data, lint


def get(name, path=DEFAULT):
    profiles, _ = load(path)
    if name not in profiles:
        raise ProfileError(f"no profile '{name}' in rtl/profiles.toml (profiles: "
                           f"{', '.join(profiles)})")
    return profiles[name]


def lint_sets(profiles, extra):
    """top:-GA=1,-GB=2 entries (mk/rtl.mk's lint loop): each profile's top with its params, each
    module of `modules` with its params at the profile's N, and the [lint] sets."""
    out = []
    for p in profiles.values():
        top = "tpu_datapath" if p["top"] == "fpga" else p["top"]
        params = dict(p["params"])
        if p["top"] == "fpga":
            keep = set(REQUIRED["fpga"])
            params = {k: v for k, v in params.items() if k in keep}
            params.update(p.get("modules", {}).get("tpu_datapath", {}))
        out.append(top + ":" + ",".join(f"-G{k}={vlog(v)}" for k, v in params.items()))
        for mod, ps in p.get("modules", {}).items():
            if mod == top:
                continue
            mp = {"N": p["params"]["N"]} if mod != "tpu_weight_fifo" else {}
            mp.update(ps)
            out.append(mod + ":" + ",".join(f"-G{k}={vlog(v)}" for k, v in mp.items()))
    for s in extra:
        top, _, rest = s.partition(":")
        out.append(top + ":" + ",".join(f"-G{kv}" for kv in rest.split(",") if kv))
    seen, uniq = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    return uniq


def write_mk(profiles, extra, out):
    lines = ["# generated by scripts/profiles.py from rtl/profiles.toml: do not edit", ""]

    def var(k, v):
        lines.append(f"{k} := {v}")

    var("PROFILES", " ".join(profiles))
    var("PROFILES_SIM", " ".join(n for n, p in profiles.items() if p.get("sim")))
    var("PROFILES_UART", " ".join(n for n, p in profiles.items() if p.get("uart")))
    var("PROFILES_DP_TEST", " ".join(n for n, p in profiles.items()
                                     if set(p.get("tests", [])) - {"bench"}))
    var("PROFILES_DP_BENCH", " ".join(n for n, p in profiles.items()
                                      if "bench" in p.get("tests", [])))
    var("PROFILES_FPGA", " ".join(n for n, p in profiles.items() if p["top"] == "fpga"))
    for n, p in profiles.items():
        if p.get("tests"):
            # the datapath harness's build flags (sim/verilated/tpu_datapath_harness.cpp); the
            # MATMUL latency beyond 2N + 2 that the options add (tpu_datapath header)
            q = p["params"]
            mm_extra = int(q.get("AccSlice", 0)) + int(q.get("ProdReg", 0)) + \
                q.get("UbLatency", 1) - 1
            var(f"PROFILE_{n}_DFLAGS", f"-DOPS_FN=tpu_vdp_{n}_ops -DDP_N={q['N']} "
                f"-DDP_UB={q['UbRows']} -DDP_ACC={q['AccRows']} -DDP_TILES={q['Tiles']} "
                f"-DDP_THREADS={p.get('threads', 1)} -DDP_MM_EXTRA={mm_extra} "
                f"-DDP_STREAM_MM={int(q.get('StreamMm', 0))} "
                f"-DDP_LANE={16 if q.get('Bf16') else 8}")
    for n, p in profiles.items():
        var(f"PROFILE_{n}_TOP", p["top"])
        # (the quote escaped for the shell of the recipes)
        var(f"PROFILE_{n}_GFLAGS", " ".join(f"-G{k}={vlog(v)}".replace("'", "\\'")
                                            for k, v in p["params"].items()))
        var(f"PROFILE_{n}_THREADS", str(p.get("threads", 1)))
        for k in ("sim", "uart", "board"):
            if p.get(k):
                var(f"PROFILE_{n}_{k.upper()}", p[k])
        for k, v in p["params"].items():
            var(f"PROFILE_{n}_P_{k}", plain(v))
    # every profile's name by its sim / uart model name (mk/sim.mk's SIM_MODELS are the names)
    for n, p in profiles.items():
        if p.get("sim"):
            var(f"SIM_PROFILE_{p['sim']}", n)
        if p.get("uart"):
            var(f"UART_PROFILE_{p['uart']}", n)
    var("RTL_LINT_SETS", " ".join(s.replace("'", "\\'") for s in lint_sets(profiles, extra)))
    # (always written: make re-reads its makefiles when this one is newer)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with atomic_open(out) as f:
        f.write("\n".join(lines) + "\n")


def write_header(profiles, out):
    """Declarations of the datapath test models' ops functions and one list per test set
    (tests/rtl/test_mxu_*.c iterate them)."""
    dp = {n: p for n, p in profiles.items() if p.get("tests")}
    lines = ["/* generated by scripts/profiles.py from rtl/profiles.toml: do not edit */",
             "#ifndef TPU_DP_PROFILES_H", "#define TPU_DP_PROFILES_H", "",
             "#include \"verilated/tpu_vmodels.h\"", "",
             "#ifdef __cplusplus", "extern \"C\" {", "#endif"]
    for n, p in dp.items():
        lines.append(f"/* {n}: {p['doc']} */")
        lines.append(f"const struct tpu_vdp_ops *tpu_vdp_{n}_ops(void);")
    lines.append("")
    for t in TEST_SETS:
        names = [n for n, p in dp.items() if t in p["tests"]]
        lines.append(f"#define TPU_VDP_{t.upper()}_MODELS " +
                     ", ".join(f"tpu_vdp_{n}_ops" for n in names))
    lines += ["", "#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    write_if_changed(out, "\n".join(lines))


def write_stamps(profiles, outdir):
    """One file per profile with its whole content, rewritten only when that profile changes:
    what a model built from the profile depends on (so editing one profile rebuilds only its
    models)."""
    for n, p in profiles.items():
        write_if_changed(os.path.join(outdir, f"{n}.json"),
                         json.dumps(p, indent=1, sort_keys=True) + "\n")


def write_if_changed(path, text):
    """Leave an unchanged file alone, so that make does not rebuild what depends on it."""
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_open(path) as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=DEFAULT)
    ap.add_argument("--mk")
    ap.add_argument("--header")
    ap.add_argument("--stamps", help="a folder: one <profile>.json per profile")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--show")
    a = ap.parse_args()
    try:
        profiles, extra = load(a.file)
        if a.mk:
            write_mk(profiles, extra, a.mk)
        if a.header:
            write_header(profiles, a.header)
        if a.stamps:
            write_stamps(profiles, a.stamps)
        if a.list:
            for n, p in profiles.items():
                print(f"{n:20s} {p['top']:14s} {p['doc']}")
        if a.show:
            print(json.dumps(get(a.show, a.file), indent=2))
    except (ProfileError, tomllib.TOMLDecodeError, OSError) as e:
        print(f"profiles: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
