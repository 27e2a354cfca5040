#!/usr/bin/env python3
"""Plots of `make bench` (docs/performance.md, "Plots"): reads the benchmark JSON in DIR and
writes gnuplot data files, gnuplot scripts and, when gnuplot is installed, the figures.

  DIR/sim_gemm.json      (sw/bench/bench_sim)   -> gemm_utilization.{dat,gp,svg}
      utilization of each GEMM of the sweep against its size (MACs, log), beside the
      analytical bound of sw/bench/gemm_bounds.py for the same shape, array and link
  DIR/model_<name>.json  (tpu bench model --json) -> model_roofline.{dat,gp,svg}
      classic roofline: arithmetic intensity = MACs per byte on the busier direction of the
      full-duplex link, max(DMA read, DMA write) (log) against MACs per cycle (log); the
      compute roof N^2 and the link roof = link bytes/cycle x intensity, one labelled point
      per device layer of each model (host-only layers, e.g. max-pool, have no MACs)

usage: plot_bench.py [--dir DIR] [--png] [--no-gnuplot] [--gnuplot PROG]
A missing input skips its plot with a message; no gnuplot leaves the data and the scripts
(exit status 0 in both cases). Exit status 1 on an unreadable or malformed JSON file.
Python 3 standard library only."""
import argparse, glob, json, math, os, shutil, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sw", "bench"))
import gemm_bounds  # noqa: E402  (sw/bench/gemm_bounds.py: the analytical model)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atomicio import atomic_open  # noqa: E402  (a failed write never destroys a plot file)

DEFAULT_BPC = 16.0  # the sim link's default: 16 GB/s at 1 GHz (sim/link.c)


class BenchError(Exception):
    pass


def uri_bpc(uri):
    """Link bytes per cycle of a device URI, as `tpu bench model` derives it: sim's bw= (GB/s)
    and clock= (MHz) options, else the default."""
    name, _, opts = uri.partition(":")
    if name != "sim":
        return DEFAULT_BPC
    kv = dict(o.partition("=")[::2] for o in opts.split(",") if o)
    try:
        return float(kv.get("bw", 16)) * 1000.0 / float(kv.get("clock", 1000))
    except ValueError:
        return DEFAULT_BPC


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise BenchError(f"{path}: {e}")


def need(obj, key, path, kind=(int, float)):
    v = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(v, kind) or isinstance(v, bool):
        raise BenchError(f"{path}: missing or bad '{key}'")
    return v


def gemm_rows(doc, path):
    """One row per GEMM of a sim_gemm.json, sorted by MACs: shape, MACs, measured and bound
    utilization (fractions), measured, compute-bound and link-bound cycles."""
    res = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(res, list):
        raise BenchError(f"{path}: no 'results' list")
    bpc = uri_bpc(str(doc.get("device", "sim")))
    rows = []
    for r in res:
        m, k, n = (need(r, x, path, int) for x in ("m", "k", "n"))
        N = need(r, "array", path, int)
        b = gemm_bounds.bounds(m, k, n, N=N, bpc=bpc)
        rows.append(dict(shape=f"{m}x{k}x{n}", m=m, k=k, n=n, macs=m * k * n, array=N,
                         util=float(need(r, "utilization", path)), bound=b["ideal_util"],
                         cycles=need(r, "cycles", path, int), compute=b["compute_cycles"],
                         link=b["link_cycles"], square=(m == k == n),
                         correct=r.get("correct", True) is True))
    rows.sort(key=lambda x: (x["macs"], x["m"], x["k"], x["n"]))
    return rows, bpc


def model_points(doc, path):
    """The plotted layers of one `tpu bench model --json`: those with MACs, DMA bytes and
    cycles (a host-only layer has none and no place on a log-log roofline)."""
    name = doc.get("model") if isinstance(doc, dict) else None
    layers = doc.get("layers") if isinstance(doc, dict) else None
    if not isinstance(name, str) or not isinstance(layers, list):
        raise BenchError(f"{path}: no 'model' name or 'layers' list")
    pts = []
    for L in layers:
        macs = need(L, "macs", path, int)
        cycles = need(L, "cycles", path, int)
        byts = max(need(L, "dma_read_bytes", path, int), need(L, "dma_write_bytes", path, int))
        if macs <= 0 or cycles <= 0 or byts <= 0:
            continue
        bound = max(need(L, "compute_bound_cycles", path, int),
                    need(L, "link_bound_cycles", path, int))
        pts.append(dict(label=f"{name}:{need(L, 'index', path, int)} {L.get('type', '?')}",
                        intensity=macs / byts, perf=macs / cycles,
                        bound_perf=macs / bound if bound > 0 else float("nan"),
                        util=float(need(L, "utilization", path))))
    return dict(name=name, array=need(doc, "array", path, int),
                bpc=float(need(doc, "link_bytes_per_cycle", path)),
                batch=need(doc, "batch", path, int), device=str(doc.get("device", "?")),
                points=pts)


def gp_str(s):
    """A gnuplot double-quoted string; '_' and '^' would be enhanced-text markup."""
    s = s.replace("\\", "\\\\").replace('"', '\\"').replace("_", "\\\\_")
    return '"' + s.replace("\n", "\\n") + '"'


TERMS = {"svg": 'set terminal svg size 1000,640 dynamic enhanced font "Sans,12" '
                'background rgb "white"',
         "png": 'set terminal pngcairo size 1000,640 enhanced font "Sans,11" '
                'background rgb "white"'}


def with_outputs(setup, plot, base, png):
    """The gnuplot script: setup, then plot drawn as base.svg (and base.png)."""
    lines = setup + [TERMS["svg"], f'set output "{base}.svg"'] + plot + ["unset output"]
    if png:
        lines += [TERMS["png"], f'set output "{base}.png"', "replot", "unset output"]
    return lines


def write_gemm(dirn, rows, bpc, png):
    arrays = "/".join(str(a) for a in sorted({r["array"] for r in rows}))
    dat = os.path.join(dirn, "gemm_utilization.dat")
    with atomic_open(dat) as f:
        f.write("# generated by scripts/plot_bench.py from sim_gemm.json\n"
                "# shape m k n macs measured_util_% bound_util_% measured_cycles "
                "compute_bound_cycles link_bound_cycles\n")
        blocks = [(name, [r for r in rows if r["square"] == sel])
                  for name, sel in (("square", True), ("other", False))]
        blocks = [(name, rs) for name, rs in blocks if rs]
        for name, rs in blocks:  # one gnuplot index per non-empty kind
            f.write(f"# {name} shapes\n")
            for r in rs:
                f.write(f"{r['shape']} {r['m']} {r['k']} {r['n']} {r['macs']} "
                        f"{100 * r['util']:.3f} {100 * r['bound']:.3f} {r['cycles']} "
                        f"{r['compute']} {r['link']}\n")
            f.write("\n\n")
    xs = [r["macs"] for r in rows]
    top = max([100 * r["bound"] for r in rows] + [100 * r["util"] for r in rows] + [10])
    lo, hi = min(xs) / 2.5, max(xs) * 4
    bad = [r["shape"] for r in rows if not r["correct"]]
    title = (f"End-to-end int8 GEMM on the simulated device (N = {arrays}, link {bpc:g} bytes/cycle)"
             + (f"\n(WRONG OUTPUT: {', '.join(bad)})" if bad else ""))
    gp = ["# generated by scripts/plot_bench.py; run in this folder: gnuplot gemm_utilization.gp",
          f"set title {gp_str(title)}",
          'set xlabel "GEMM size m·k·n (MACs, log scale)"',
          'set ylabel "MXU utilization = MACs / (N^2 × cycles)  (%)"',
          "set logscale x", f"set xrange [{lo:g}:{hi:g}]", f"set yrange [0:{min(108, top * 1.25):g}]",
          'set format x "10^{%L}"', "set grid xtics ytics mxtics", "set key bottom right box opaque",
          "set style line 1 lc rgb '#1f77b4' pt 7 ps 1.2 lw 2",
          "set style line 2 lc rgb '#d62728' pt 6 ps 1.4 lw 1 dt 2",
          "set style line 3 lc rgb '#ff7f0e' pt 5 ps 1.1",
          "set style line 4 lc rgb '#d62728' pt 8 ps 1.4",
          ]
    plot = []
    for i, (name, _) in enumerate(blocks):
        if name == "square":
            plot += [f"index {i} using 5:6 with linespoints ls 1 title \"measured, square "
                     "(m = k = n)\"",
                     f"index {i} using 5:7 with linespoints ls 2 title \"analytical bound "
                     "(gemm_bounds.py), square\" noenhanced"]
        else:
            plot += [f"index {i} using 5:6 with points ls 3 title \"measured, other shapes\"",
                     f"index {i} using 5:7 with points ls 4 title \"analytical bound, other "
                     "shapes\"",
                     f"index {i} using 5:6:(0):($7-$6) with vectors nohead lw 1.5 "
                     "lc rgb '#888888' dt 2 notitle"]
    plot += ["using 5:6:1 with labels left offset char 1,-0.4 font \",9\" noenhanced notitle"]
    plot = (["plot \"gemm_utilization.dat\" " + plot[0] + ", \\"]
            + [f"     \"\" {p}, \\" for p in plot[1:-1]] + [f"     \"\" {plot[-1]}"])
    gp = with_outputs(gp, plot, "gemm_utilization", png)
    path = os.path.join(dirn, "gemm_utilization.gp")
    with atomic_open(path) as f:
        f.write("\n".join(gp) + "\n")
    return path


def write_roofline(dirn, models, png):
    arrays = sorted({m["array"] for m in models})
    bpcs = sorted({m["bpc"] for m in models})
    if len(arrays) > 1 or len(bpcs) > 1:
        print(f"plot_bench: models ran on different arrays {arrays} or links {bpcs}: "
              f"the roofs drawn are those of {models[0]['name']}", file=sys.stderr)
    N2, bpc = models[0]["array"] ** 2, models[0]["bpc"]
    dat = os.path.join(dirn, "model_roofline.dat")
    pts = []
    with atomic_open(dat) as f:
        f.write("# generated by scripts/plot_bench.py from model_*.json\n"
                "# one block per model: label intensity_macs_per_byte macs_per_cycle "
                "bound_macs_per_cycle utilization\n")
        for m in models:
            f.write(f"# model {m['name']} on {m['device']}, batch {m['batch']}\n")
            for p in m["points"]:
                pts.append(p)
                f.write(f"\"{p['label']}\" {p['intensity']:.6g} {p['perf']:.6g} "
                        f"{p['bound_perf']:.6g} {p['util']:.6f}\n")
            f.write("\n\n")
    ridge = N2 / bpc
    xs = [p["intensity"] for p in pts] + [ridge]
    ys = [p["perf"] for p in pts] + [N2]
    xlo, xhi = min(xs) / 3, max(xs) * 3
    ylo, yhi = min(ys) / 3, N2 * 3
    colors = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
    devs = sorted({m["device"] for m in models})
    title = (f"Roofline of the shipped models' layers on {', '.join(devs)} "
             f"(N = {math.isqrt(N2)}, link {bpc:g} bytes/cycle)")
    gp = ["# generated by scripts/plot_bench.py; run in this folder: gnuplot model_roofline.gp",
          f"set title {gp_str(title)}",
          'set xlabel "arithmetic intensity (MACs per byte on the busier link direction, log)"',
          'set ylabel "throughput (MACs per cycle, log)"',
          "set logscale xy", f"set xrange [{xlo:g}:{xhi:g}]", f"set yrange [{ylo:g}:{yhi:g}]",
          "set grid xtics ytics mxtics mytics", "set key bottom right box opaque",
          "set samples 400", f"N2 = {N2}", f"BPC = {bpc:g}",
          "roof(x) = BPC * x < N2 ? BPC * x : N2",
          f'set label 1 sprintf("compute roof N^2 = %d MACs/cycle", N2) at {xhi / 1.1:g}, N2 * 1.25 '
          'right font ",10"',
          f'set label 2 sprintf("link roof %g bytes/cycle × intensity", BPC) at {xlo * 1.2:g}, '
          f'BPC * {xlo * 1.2:g} * 1.6 left rotate by 30 font ",10"',
          f'set arrow 1 from {ridge:g}, {ylo:g} to {ridge:g}, N2 nohead dt 3 lc rgb "#999999"',
          ]
    plot = ["plot roof(x) with lines lw 3 lc rgb '#333333' title \"roofline min(N^2, link × I)\", \\",
          "     N2 with lines dt 2 lc rgb '#d62728' notitle, \\",
          "     BPC * x with lines dt 2 lc rgb '#ff7f0e' notitle"]
    for i, m in enumerate(models):
        c = colors[i % len(colors)]
        name = m["name"].replace('"', "'")
        plot[-1] += ", \\"
        plot += [f"     \"model_roofline.dat\" index {i} using 2:3 with points pt 7 ps 1.4 "
               f"lc rgb '{c}' title \"{name} (batch {m['batch']}): measured\" noenhanced, \\",
               f"     \"\" index {i} using 2:4 with points pt 6 ps 1.6 lc rgb '{c}' "
               f"title \"{name}: layer bound\" noenhanced, \\",
               f"     \"\" index {i} using 2:3:1 with labels left offset char 1,0.2 "
               f"font \",9\" tc rgb '{c}' noenhanced notitle"]
    gp = with_outputs(gp, plot, "model_roofline", png)
    path = os.path.join(dirn, "model_roofline.gp")
    with atomic_open(path) as f:
        f.write("\n".join(gp) + "\n")
    return path


def run_gnuplot(prog, script):
    d, base = os.path.split(script)
    r = subprocess.run([prog, base], cwd=d, capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError(f"gnuplot {script} failed:\n{r.stderr.strip()}")
    for line in r.stderr.splitlines():  # warnings
        print(f"plot_bench: gnuplot: {line}", file=sys.stderr)


def add_plot_args(ap):
    """The options of the bench plot scripts (this one, plot_train.py)."""
    ap.add_argument("--dir", default="build/bench", help="benchmark JSON folder, also the output")
    ap.add_argument("--png", action="store_true", help="also write PNG (gnuplot's pngcairo)")
    ap.add_argument("--no-gnuplot", action="store_true", help="write data and scripts only")
    ap.add_argument("--gnuplot", default="gnuplot", help="gnuplot program (default: gnuplot)")


def main(argv=None):
    ap = argparse.ArgumentParser(description="plots of make bench (docs/performance.md)")
    add_plot_args(ap)
    a = ap.parse_args(argv)
    scripts = []
    try:
        gj = os.path.join(a.dir, "sim_gemm.json")
        if os.path.exists(gj):
            rows, bpc = gemm_rows(load_json(gj), gj)
            if rows:
                scripts.append(write_gemm(a.dir, rows, bpc, a.png))
            else:
                print(f"plot_bench: {gj}: no results: no GEMM plot")
        else:
            print(f"plot_bench: {gj} is missing (make bench-sim): no GEMM plot")
        mj = sorted(glob.glob(os.path.join(a.dir, "model_*.json")))
        models = [model_points(load_json(p), p) for p in mj]
        models = [m for m in models if m["points"]]
        if models:
            scripts.append(write_roofline(a.dir, models, a.png))
        else:
            print(f"plot_bench: no model_*.json with device layers in {a.dir} "
                  "(make bench-models): no roofline plot")
        if not scripts:
            return 0
        prog = None if a.no_gnuplot else shutil.which(a.gnuplot)
        if not prog:
            if not a.no_gnuplot:
                print(f"plot_bench: '{a.gnuplot}' not found (scripts/setup installs "
                      "gnuplot-nox): wrote the data and scripts only; draw them with")
            for s in scripts:
                print(f"  (cd {os.path.dirname(s)} && gnuplot {os.path.basename(s)})")
            return 0
        for s in scripts:
            run_gnuplot(prog, s)
            base = s[:-3]
            print(f"plot_bench: wrote {base}.svg" + (f" and {base}.png" if a.png else ""))
        return 0
    except BenchError as e:
        print(f"plot_bench: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
