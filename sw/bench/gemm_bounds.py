#!/usr/bin/env python3
"""Analytical bounds of an end-to-end int8-output tpu_gemm() on the sim link (docs/performance.md).

Replays driver/gemm.c's schedule (resident A, even chunks of R rows, weights per chunk, 3
LOAD_PARAMS + ACTIVATE + WRITE_HOST per column tile) and counts link bytes as sim/link.c charges
them: 16 bytes of header per packet and whole LinkBytes (32) beats of data:
  compute bound  = MXU busy cycles = sum of MATMUL rows = m x KT x NT (one row per cycle)
  link bound     = max(host->device, device->host bytes) / bytes per cycle
of bound = max(compute, link bound) / measured cycles (100 % = at the bound).
usage: gemm_bounds.py [--json sim_gemm.json] [--n 16] [--bpc 16] [MxKxN ...]"""
import argparse, json, math

HDR = 16
LB = 32

def pkt(data):
    return HDR + -(-data // LB) * LB

def bounds(m, k, n, N=16, ub_rows=8192, acc_rows=2048, bpc=16.0):
    KT, NT = math.ceil(k / N), math.ceil(n / N)
    slots = KT if KT + 1 <= ub_rows else 1
    R = min(ub_rows // (slots + 1), acc_rows, m)
    chunks = math.ceil(m / R)
    R = math.ceil(m / chunks)
    span = lambda tot, t: min(N, tot - t * N)
    h2d = d2h = 0
    cmds = 1  # LOAD_PARAMS OUTPUT
    for c in range(chunks):
        rows = min(R, m - c * R)
        for kt in range(KT):  # READ_HOST of A, one packet per row each way
            h2d += rows * pkt(span(k, kt)); d2h += rows * HDR; cmds += 1
        for nt in range(NT):
            for kt in range(KT):  # LOAD_WEIGHTS + MATMUL
                kr = span(k, kt)
                h2d += kr * pkt(span(n, nt)); d2h += kr * HDR; cmds += 2
            nc = span(n, nt)
            h2d += 3 * pkt(4 * nc); d2h += 3 * HDR; cmds += 5
            d2h += rows * pkt(nc)  # WRITE_HOST MWRs
    h2d += cmds * 64 + math.ceil(cmds / 4) * HDR  # SQEs, 4 per prefetch block
    d2h += math.ceil(cmds / 4) * HDR + cmds * pkt(16)  # SQE MRDs, CQEs
    compute = m * KT * NT
    link = max(h2d, d2h) / bpc
    return dict(m=m, k=k, n=n, R=R, compute_cycles=compute, link_cycles=round(link),
                h2d_bytes=h2d, d2h_bytes=d2h, commands=cmds,
                ideal_util=m * k * n / (N * N * max(compute, link)))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json"); ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--bpc", type=float, default=16.0); ap.add_argument("shapes", nargs="*")
    a = ap.parse_args()
    meas = {}
    shapes = [tuple(int(x) for x in s.split("x")) for s in a.shapes]
    if a.json:
        for r in json.load(open(a.json))["results"]:
            meas[(r["m"], r["k"], r["n"])] = r
            if not a.shapes: shapes.append((r["m"], r["k"], r["n"]))
    print("| m x k x n | R | commands | compute bound | link bound | bound util | measured cycles | measured util | of bound |")
    print("|---|---|---|---|---|---|---|---|---|")
    for m, k, n in shapes:
        b = bounds(m, k, n, N=a.n, bpc=a.bpc)
        r = meas.get((m, k, n))
        mc = f"{r['cycles']}" if r else "-"
        mu = f"{100 * r['utilization']:.1f}%" if r else "-"
        # measured against the bound: bound cycles / measured cycles (1 = at the bound)
        ob = f"{100 * max(b['compute_cycles'], b['link_cycles']) / r['cycles']:.1f}%" if r else "-"
        print(f"| {m}x{k}x{n} | {b['R']} | {b['commands']} | {b['compute_cycles']} | {b['link_cycles']} | "
              f"{100 * b['ideal_util']:.1f}% | {mc} | {mu} | {ob} |")

if __name__ == "__main__":
    main()
