#!/usr/bin/env python3
"""Pin the systolic array's DSP multipliers to DSP sites that keep neighbours next to each other.

Without it, nextpnr-ecp5 scatters a 12 x 12 array's 144 MULT18X18D over the die's three DSP
rows (156 sites on the LFE5U-85F) with no regard to the array: PE (0, 0) and its east
neighbour may sit 20 DSP columns apart, and each PE's fabric (weight select, partial-sum add)
is then torn between its DSP and its neighbours, which gave the N = 12 build's critical paths
(docs/fpga.md, "DSP budget and placement"). This script gives every PE multiplier a fixed BEL:

  board.json "dsp_place": {"rows_y": [Y, ...], "slots": [[X, Z], ...], "bel": "MULT18_{z}"}
    rows_y  the Y of each DSP row, top to bottom;
    slots   the sites of one DSP row, left to right, as X and the BEL's index z.

The PE rows with a DSP (0 .. R-1; the DSP budget's LUT rows below them have none) are cut
into len(rows_y) bands of ceil(R / len(rows_y)) rows, top to bottom. In its band, PE (r, c)
takes slot c * band + (r - first row of the band): the PEs of one column and band sit side by
side (a partial sum goes south within a few columns), a row's east neighbour is one group of
slots to the right, and only the hop from one band to the next crosses between DSP rows.
Everything else stays with the placer, which follows the pinned DSPs.

The netlist must be flat (flow.py flattens it before write_json when "dsp_place" is set): a
BEL is per instance, and a hierarchical netlist has one cell per module, not per PE.

usage: dsp_place.py NETLIST.json BOARD.json [--out OUT.json]   (board.json's "dsp_place")
"""
import argparse
import json
import re
import sys

PE_MUL = re.compile(r"g_row\[(\d+)\]\.g_col\[(\d+)\]\.u_pe\..*")


def place(netlist, spec, dsp_type="MULT18X18D"):
    """Set the "BEL" attribute of the PE multipliers in the netlist dict (in place).
    Returns (number of cells pinned, None) or (0, why it did not place)."""
    tops = [m for m in netlist["modules"].values() if m.get("attributes", {}).get("top")]
    if len(tops) != 1:
        return 0, "no single top module in the netlist"
    pes = {}
    for name, cell in tops[0]["cells"].items():
        m = PE_MUL.search(name)
        if cell["type"] == dsp_type and m:
            key = (int(m.group(1)), int(m.group(2)))
            if key in pes:
                return 0, f"two {dsp_type} cells in PE {key} (hierarchical netlist?)"
            pes[key] = cell
    if not pes:
        return 0, f"no PE {dsp_type} cells (flattened netlist expected)"
    rows = max(r for r, _ in pes) + 1
    cols = max(c for _, c in pes) + 1
    if len(pes) != rows * cols:
        return 0, f"{len(pes)} PE multipliers do not fill rows 0-{rows - 1} x {cols} columns"
    bands = len(spec["rows_y"])
    band = -(-rows // bands)
    if cols * band > len(spec["slots"]):
        return 0, (f"{cols} columns x {band} rows per DSP row need {cols * band} sites, "
                   f"a DSP row has {len(spec['slots'])}")
    bel = spec.get("bel", "MULT18_{z}")
    for (r, c), cell in pes.items():
        k, j = divmod(r, band)
        x, z = spec["slots"][c * band + j]
        cell["attributes"]["BEL"] = f"X{x}/Y{spec['rows_y'][k]}/" + bel.format(z=z)
    return len(pes), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("netlist")
    ap.add_argument("board_json")
    ap.add_argument("--out", default=None, help="write here (default: the netlist itself)")
    a = ap.parse_args()
    with open(a.board_json) as f:
        spec = json.load(f).get("dsp_place")
    if not spec:
        print(f"dsp_place: {a.board_json} has no \"dsp_place\"", file=sys.stderr)
        return 1
    with open(a.netlist) as f:
        net = json.load(f)
    n, why = place(net, spec)
    if why:
        print(f"dsp_place: not placed: {why}", file=sys.stderr)
        return 1
    with open(a.out or a.netlist, "w") as f:
        json.dump(net, f)
    print(f"dsp_place: {n} PE multipliers pinned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
