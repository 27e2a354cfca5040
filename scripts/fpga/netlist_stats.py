#!/usr/bin/env python3
"""Where a synthesized board netlist spends its cells, and its deepest combinational path.

usage: netlist_stats.py build/fpga/ulx3s/top.json [--depth 3] [--top top] [--path] [--delay] [--ends N]

Reads the yosys JSON netlist the board flow writes (scripts/fpga/flow.py: <out>/top.json,
flattened; ECP5, iCE40 or Gowin cells) and prints
  - cell counts per instance path prefix (e.g. u_tpu.u_dev.u_dma), largest first: yosys names
    each mapped cell after the net it drives, which carries the instance path; a cell whose
    net is a port of another block is counted there (a bus between blocks is named after
    one of its ends), so the split is approximate at block boundaries;
  - the longest chain of combinational cells between registers / block RAMs (in cells), and
    with --path the nets along it (their RTL source line where yosys kept one).
Why the path: YoWASP nextpnr-ecp5 0.11 sorts the timing graph with a recursive depth-first
search; a path of about 500 cells (a 32-bit `%` by a variable is 544) overflows the
WebAssembly stack and the tool dies with "wasm trap: out of bounds memory access" right after
the utilisation report (measured: 420 cells pass, 544 crash). Such a path is also far too
slow for any useful clock, so it is a design bug either way (docs/fpga.md, Troubleshooting).
"""
import argparse
import collections
import json
import re
import sys

# combinational cells (inputs -> outputs within the cycle) per family; every other cell
# (flip-flops, block RAM, PLL, IO) ends a path. TRELLIS_DPR16X4: only its read port.
COMB = {"LUT4", "PFUMX", "L6MUX21", "CCU2C", "MULT18X18D", "ALU54B", "TRELLIS_DPR16X4",
        "SB_LUT4", "SB_CARRY", "SB_MAC16", "LUT1", "LUT2", "LUT3", "ALU", "MUX2_LUT5",
        "MUX2_LUT6", "MUX2_LUT7", "MUX2_LUT8", "MULT9X9", "MULT18X18", "MULT36X36"}
SYNC_INPUTS = {"TRELLIS_DPR16X4": {"DI", "WAD", "WRE", "WCK"}}
# LUT sites per cell: ECP5 (a CCU2C is two), iCE40, Gowin (LUT1..LUT4 and an ALU bit each
# take one LUT of a slice)
LUT_EQ = {"LUT4": 1, "CCU2C": 2, "SB_LUT4": 1, "LUT1": 1, "LUT2": 1, "LUT3": 1, "ALU": 1}
LUTS = ("LUT4", "SB_LUT4", "LUT1", "LUT2", "LUT3")
CARRY = ("CCU2C", "ALU")
BRAMS = ("DP16KD", "PDPW16KD", "SB_RAM40_4K", "SDPB", "DPB", "SDPX9B", "DPX9B")


def counts(cells, depth):
    by = collections.defaultdict(collections.Counter)
    for name, c in cells.items():
        parts = name.split(".")
        key = ".".join(parts[:min(depth, len(parts) - 1)]) or "(top)"
        t = c["type"]
        if t.startswith("$paramod"):
            t = t.split("\\")[-1]
        by[key][t] += 1
    return by


# --delay: a rough ECP5 (speed 6) delay per cell input -> output in ns, a net's routing included
# (about 0.5 ns a net): a LUT 0.9, a carry bit in its chain 0.05 (CIN -> COUT), a wide mux 0.3
# (PFUMX / L6MUX21 take their inputs from the LUTs of their slice), a combinational
# MULT18X18D 4.5. Only to rank paths before a place and route; nextpnr's report is the truth.
DELAY = {"LUT4": 0.9, "PFUMX": 0.3, "L6MUX21": 0.3, "TRELLIS_DPR16X4": 1.2, "MULT18X18D": 4.5,
         "ALU54B": 3.0}
# iCE40 UP5K (nextpnr-ice40's reports of the iCEBreaker stand-in, 93-96 % full): a LUT about
# 1.2 ns plus 3-4 ns of routing into it; a carry bit CI -> CO 0.3 ns, a carry entered from the
# fabric 0.6 ns plus the route; a combinational SB_MAC16 about 6 ns. Calibrated on a few
# reported paths (LUT chains: about 5 ns a level), so only good for ranking.
DELAY.update({"SB_LUT4": 4.5, "SB_MAC16": 6.0})


def cell_delay(t, port, out):
    if not DELAY_MODE:
        return 1
    if t == "CCU2C":
        if port == "CIN":
            return 0.05 if out == "COUT" else 0.4
        return 1.0
    if t == "SB_CARRY":
        return 0.3 if port == "CI" else 4.0
    return DELAY.get(t, 1.0)


DELAY_MODE = False
ENDS = {}  # sequential cell -> (worst arrival at one of its inputs, that input bit)
PREV = {}  # net bit -> (the bit before it on its slowest path, the cell between them)


def longest_path(cells):
    succ = collections.defaultdict(list)
    indeg = collections.Counter()
    nodes = set()
    for name, c in cells.items():
        t = c["type"]
        if t not in COMB:
            continue
        dirs, con = c["port_directions"], c["connections"]
        skip = SYNC_INPUTS.get(t, set())
        ins = [(b, p) for p, bs in con.items() if dirs[p] == "input" and p not in skip
               for b in bs if isinstance(b, int)]
        outs = [(b, p) for p, bs in con.items() if dirs[p] == "output"
                for b in bs if isinstance(b, int)]
        for o, op in outs:
            nodes.add(o)
            for i, ip in ins:
                succ[i].append((o, name, cell_delay(t, ip, op)))
                indeg[o] += 1
                nodes.add(i)
    dist = {x: 0 for x in nodes}
    prev = {}
    work = [x for x in nodes if indeg[x] == 0]
    done = 0
    while work:
        x = work.pop()
        done += 1
        for o, cn, d in succ[x]:
            if dist[x] + d > dist[o]:
                dist[o] = dist[x] + d
                prev[o] = (x, cn)
            indeg[o] -= 1
            if indeg[o] == 0:
                work.append(o)
    if not dist:
        return 0, [], done < len(nodes)
    ENDS.clear()
    for name, c in cells.items():
        if c["type"] in COMB and c["type"] not in SYNC_INPUTS:
            continue
        dirs, con = c["port_directions"], c["connections"]
        skip = set(con) - SYNC_INPUTS.get(c["type"], set()) if c["type"] in SYNC_INPUTS else set()
        for p, bs in con.items():
            if dirs[p] != "input" or p in skip:
                continue
            for b in bs:
                if isinstance(b, int) and b in dist and dist[b] > ENDS.get(name, (-1, 0))[0]:
                    ENDS[name] = (dist[b], b)
    PREV.clear()
    PREV.update(prev)
    end = max(dist, key=dist.get)
    return dist[end], trace(end), done < len(nodes)


def trace(end):
    """The slowest path into net bit end (after longest_path): [(bit, cell driving it)]."""
    path = []
    x = end
    while x in PREV:
        p, cn = PREV[x]
        path.append((x, cn))
        x = p
    path.append((x, None))
    return path[::-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("netlist")
    ap.add_argument("--top", default="top")
    ap.add_argument("--depth", type=int, default=3, help="instance path components to group by")
    ap.add_argument("--path", action="store_true", help="print the nets of the longest path")
    ap.add_argument("--ends", type=int, default=0,
                    help="also list the N worst endpoints (flip-flops, RAMs) and their input")
    ap.add_argument("--end", default=None, metavar="REGEX",
                    help="print the path into the worst endpoint whose cell name matches REGEX "
                    "instead of the longest one (e.g. --end hi_a_q)")
    ap.add_argument("--delay", action="store_true",
                    help="rank paths by a rough ECP5 / iCE40 delay estimate (ns) instead of cells")
    a = ap.parse_args()
    global DELAY_MODE
    DELAY_MODE = a.delay
    with open(a.netlist) as f:
        mod = json.load(f)["modules"][a.top]
    cells = mod["cells"]
    by = counts(cells, a.depth)

    def lut(c):
        return sum(c[t] * k for t, k in LUT_EQ.items())
    print(f"{'instance':44s} {'LUT4eq':>7s} {'LUT':>6s} {'carry':>6s} {'FF':>6s} {'DSP':>4s} "
          f"{'BRAM':>4s}")
    for k, c in sorted(by.items(), key=lambda kv: -lut(kv[1])):
        ff = sum(v for t, v in c.items() if "FF" in t or t.startswith("DFF"))
        dsp = sum(v for t, v in c.items() if t.startswith("MULT") or t in ("ALU54B", "SB_MAC16"))
        bram = sum(v for t, v in c.items() if t in BRAMS)
        print(f"{k:44s} {lut(c):7d} {sum(c[t] for t in LUTS):6d} {sum(c[t] for t in CARRY):6d} "
              f"{ff:6d} "
              f"{dsp:4d} {bram:4d}")
    n, path, loops = longest_path(cells)
    if a.end:
        hits = [(d, b) for cn, (d, b) in ENDS.items() if re.search(a.end, cn)]
        if not hits:
            print(f"no endpoint matches {a.end}")
            return 1
        d, b = max(hits)
        print(f"worst endpoint matching {a.end}: {d:.4g}")
        path = trace(b)
        a.path = True
    unit = "ns (rough estimate)" if a.delay else "cells"
    print(f"longest combinational path: {n:.4g} {unit}" + (" (combinational loops found)"
                                                          if loops else ""))
    names = {}
    if (a.path and path) or a.ends:
        for nn, v in mod["netnames"].items():
            src = v.get("attributes", {}).get("src", "").split("|")[0]
            for b in v["bits"]:
                if isinstance(b, int) and (b not in names or len(nn) < len(names[b][0])):
                    names[b] = (nn, src)
    if a.ends:
        print(f"worst {a.ends} endpoints:")
        for cn, (d, b) in sorted(ENDS.items(), key=lambda kv: -kv[1][0])[:a.ends]:
            print(f"  {d:6.1f} {cells[cn]['type']:12s} {cn[:70]} <- {names.get(b, ('?',))[0][:60]}")
    if a.path and path:
        step = max(1, len(path) // 40)
        last_src = None
        for i, (bit, cn) in enumerate(path):
            nn, src = names.get(bit, ("?", ""))
            fsrc = src.split(":")[0]
            # every sampled step, and every step where the path enters another source file
            if i % step == 0 or i == len(path) - 1 or fsrc != last_src:
                last_src = fsrc
                t = cells[cn]["type"] if cn else "start"
                print(f"  {i:4d} {t:10s} {nn[:90]} {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
