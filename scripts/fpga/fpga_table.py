#!/usr/bin/env python3
"""Refreshes the GENERATED resource/timing table of docs/fpga.md from <reports>/<profile>/report.json
(one row per FPGA profile run, rtl/profiles.toml).

usage: fpga_table.py --reports build/fpga [--reports other/fpga ...] --doc docs/fpga.md
(several --reports: their rows together, e.g. runs made in different build directories)
"""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from atomicio import write_text  # noqa: E402  (a failed write never destroys the doc)

BEGIN = "<!-- GENERATED: fpga-table (make fpga-all) -->"
END = "<!-- END GENERATED: fpga-table -->"


def fmt(v):
    return "–" if v is None else str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reports", required=True, action="append")
    ap.add_argument("--doc", required=True)
    a = ap.parse_args()
    rows = ["| profile | board | device | design | N | LUT | FF | DSP | BRAM | Fmax MHz | "
            "target MHz | seed | timing | fits | tree | result |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    paths = [p for d in a.reports for p in glob.glob(os.path.join(d, "*", "report.json"))]
    for p in sorted(paths, key=lambda p: (os.path.basename(os.path.dirname(p)), p)):
        with open(p) as f:
            r = json.load(f)
        res = r.get("error") or ("bitstream" if r.get("bitstream") else "")
        res = res.replace("|", "/")[:90]
        prof = r.get("profile") or os.path.basename(os.path.dirname(p))
        rows.append(f"| {prof} | {r['board']} | {r['device']} | {r.get('design', '')} | "
                    f"{fmt(r['n'])} | {fmt(r['luts'])} | {fmt(r['ffs'])} | {fmt(r['dsps'])} | "
                    f"{fmt(r['brams'])} | {fmt(r['fmax_mhz'])} | {r['target_mhz']} | "
                    f"{fmt(r.get('seed'))} | "
                    f"{'met' if r['timing_met'] else 'not met'} | "
                    f"{ {True: 'yes', False: 'no'}.get(r.get('fits'), '–')} | "
                    f"{fmt(r.get('tree'))} | {res} |")
    with open(a.doc) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        print(f"fpga_table: markers not found in {a.doc}", file=sys.stderr)
        return 1
    new = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END),
                 lambda m: BEGIN + "\n" + "\n".join(rows) + "\n" + END, doc, flags=re.S)
    write_text(a.doc, new)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
