#!/usr/bin/env python3
"""Check one board build's report.json (scripts/fpga/flow.py): the fields the issue names are
there with sane values, the design fits and the bitstream was written. Timing is printed, not
checked: Fmax is a reported figure (docs/fpga.md), and a test must not depend on it.

usage: report_check.py build/fpga/ice40_n4/report.json
Prints "fpga-report <board> (...): PASS (...)" or "FAIL: <field>: <why>" and exits 0 / 1.
"""
import json
import os
import sys

# field -> (type, must be > 0)
FIELDS = {"profile": (str, False), "board": (str, False), "device": (str, False), "design": (str, False),
          "n": (int, True), "luts": (int, True), "ffs": (int, True), "dsps": (int, False),
          "brams": (int, False), "fmax_mhz": ((int, float), True),
          "target_mhz": ((int, float), True), "timing_met": (bool, False),
          "fits": (bool, False), "bitstream": (str, False)}


def check(rep):
    if rep.get("error"):
        return f"error: {rep['error']}"
    for k, (ty, positive) in FIELDS.items():
        v = rep.get(k)
        # bool is an int in Python: only the bool fields may hold one
        if v is None or not isinstance(v, ty) or (isinstance(v, bool) and ty is not bool):
            return f"{k}: missing or not {getattr(ty, '__name__', 'a number')} ({v!r})"
        if positive and v <= 0:
            return f"{k}: {v} (must be > 0)"
    if not rep["fits"]:
        return "fits: false (a resource is over its count, see utilization)"
    if rep["timing_met"] != (rep["fmax_mhz"] >= rep["target_mhz"]):
        return (f"timing_met: {rep['timing_met']} but fmax_mhz {rep['fmax_mhz']} vs "
                f"target_mhz {rep['target_mhz']}")
    bit = rep["bitstream"]
    if not os.path.isfile(bit) or os.path.getsize(bit) == 0:
        return f"bitstream: {bit} missing or empty"
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    path = sys.argv[1]
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        print(f"fpga-report {path}: FAIL: {e}")
        return 1
    what = f"{rep.get('board')} ({rep.get('design')}, N={rep.get('n')})"
    why = check(rep)
    if why:
        print(f"fpga-report {what}: FAIL: {why}")
        return 1
    print(f"fpga-report {what}: PASS ({rep['luts']} LUT, {rep['ffs']} FF, {rep['dsps']} DSP, "
          f"{rep['brams']} BRAM, Fmax {rep['fmax_mhz']} MHz against {rep['target_mhz']}: "
          f"{'met' if rep['timing_met'] else 'not met'}; {os.path.getsize(rep['bitstream'])} "
          f"byte bitstream)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
