#!/usr/bin/env python3
"""Analytical bounds of an end-to-end int8-output tpu_gemm() on the sim link (docs/performance.md).

Replays driver/gemm/'s schedules (resident A as one READ_HOST per chunk, even chunks of R rows,
weights per chunk, one BIAS LOAD_PARAMS + ACTIVATE + WRITE_HOST (in pieces) per column tile, MULT/SHIFT once
for per-tensor requantization; for m in one chunk the stream schedule: one STREAM_MATMUL per group of
full-width column tiles with each tile's bias vector in its stream and its ACTIVATE in the
command, A's K-tiles in the first one's stream (OP0.A_STREAM) and each block's output rows
written back by it (OP0.WRITE_BACK); a narrower last tile: its own STREAM_MATMUL, BIAS,
ACTIVATE and WRITE_HOST) and counts link bytes as sim/link.c charges them: 16 bytes of
header per packet and whole LinkBytes (32) beats of data. Packed full rows (N bytes) are merged
by the device into MRDs of up to MaxReadReq (512) bytes; packed output rows into write jobs of up
to WrBytes (max(4N, 256) with ReadAhead) bytes; narrower rows cost one packet each.
  compute bound  = MXU busy cycles = sum of MATMUL rows = m x KT x NT (one row per cycle)
  link bound     = max(host->device, device->host bytes) / bytes per cycle
  data bound     = the same without the command bytes (SQE fetches, CQEs): the pure data
                   roofline of the schedule's transfers
  phased bound   = (stream schedule with A in the stream) the first command's A-carrying part
                   bounded on its own: max(its link, its MXU cycles) + max(the rest's link,
                   the rest's MXU cycles). In the block order block 0 carries A (KT x (R + N)
                   rows per KT x R MXU cycles); with OP0.K_MAJOR the first kg
                   blocks share each K-tile of A (KT x R + kg x (k + 4) rows per kg x KT x R),
                   kg chosen as driver/gemm/gemm_stream.c's gemm_stream_kgroup does (column "kg")
  latency floor  = max(compute, data bound) + 10 L + 2N + 2 (L = the link's one-way latency,
                   --latency, 50 cycles on sim): what no schedule can hide, on the critical path
                   of one tpu_gemm from the PERF_CTRL write to the PERF_CYCLES read. The health
                   read's answer reaches the host at L, the doorbell the device at 2L; the SQE
                   block's read is back at 4L, the first command's first data at 6L; then the
                   MXU or the link for max(compute, data) cycles, the last row in the ACC 2N + 2
                   cycles after it enters the MXU; the CQE reaches host memory L later, the
                   reap's CQ_TAIL read takes 2L, the PERF_CYCLES read L. (The health read
                   before the doorbell and the CQ_TAIL read are the driver's contract:
                   driver/core/queue.c, tpu_queue_submit and tpu_queue_reap; without them the
                   floor would be 6L + 2N + 2.)
                   floor util = macs / (N^2 x latency floor): the most any schedule can measure;
                   best of bound = max(compute, link bound) / latency floor: the most "of bound"
                   can be (the batch-1 goal is "of bound" >= 90 %).
The chunk pipeline (driver/gemm/gemm_pipeline.c: int8 output, A resident but the grouped
schedule's one region does not fit it in one chunk of <= 256 rows (R > 256: the column order),
at most 8 column tiles): chunks of R <= 128 rows (r = min(128, ub_rows / (2 KT + 2),
acc_rows / 4)), the first R0 = min(2r, 256) rows where the UB (KT (R0 + r) + 2 R0 rows) and
the ACC (4 R0) hold it, the rest in even chunks of at most r; each chunk's A (the last K-tile
zero-padded to N bytes) as READ_HOSTs of K-tile groups (K-tile 0 alone, then ag =
min(2, 256 // rows) K-tiles each), read during the chunk before; per chunk the same weight
tiles, MATMULs, BIAS, ACTIVATE and write-back pieces as the column order (model column "R"
marked "(dbl)": R0/R).
of bound = max(compute, link bound) / measured cycles (100 % = at the bound); of phased the same
with the phased bound.
usage: gemm_bounds.py [--json sim_gemm.json] [--n 16] [--bpc 16] [--latency 50] [MxKxN ...]"""
import argparse, json, math

HDR = 16
LB = 32
MAX_READ_REQ = 512

def pkt(data):
    return HDR + -(-data // LB) * LB

def kgroup(R, N, full, KT):
    # driver/gemm/gemm_stream.c gemm_stream_kgroup: the fewest panels (2..4) with 8 (R + kg N) <= 7 kg R
    if KT < 2:
        return 1
    for kg in range(2, min(full, 4) + 1):
        if 8 * (R + kg * N) <= 7 * kg * R:
            return kg
    return 1

def bounds(m, k, n, N=16, ub_rows=8192, acc_rows=2048, bpc=16.0, kmajor=True, lat=50):
    KT, NT = math.ceil(k / N), math.ceil(n / N)
    slots = KT if KT + 1 <= ub_rows else 1
    R = min(ub_rows // (slots + 1), acc_rows // 2, m)  # int8 output: two ACC buffers
    chunks = math.ceil(m / R)
    R = math.ceil(m / chunks)
    span = lambda tot, t: min(N, tot - t * N)
    wr_bytes = max(4 * N, 256)  # the device with ReadAhead: MaxPayload (256) bytes
    h2d = d2h = 0
    kg, p1_link, p1_comp = 1, 0.0, 0

    def stream(rows, rb):  # a packed row stream: (host->device, device->host) bytes
        if rb != N:
            return rows * pkt(rb), rows * HDR
        full, rem = divmod(rows * rb, MAX_READ_REQ)
        return full * pkt(MAX_READ_REQ) + (pkt(rem) if rem else 0), (full + (rem > 0)) * HDR

    def writes(rows, rb):  # packed output rows gathered into write jobs
        g = max(1, wr_bytes // rb)
        full, rem = divmod(rows, g)
        return full * pkt(g * rb) + (pkt(rem * rb) if rem else 0)

    cmds = 3  # LOAD_PARAMS OUTPUT, MULT, SHIFT (per-tensor: once)
    # driver/gemm/gemm_stream.c's stream schedule: one chunk, A and the output in the UB; any such m
    # with the fused (int8, per-tensor) commands, which is what this model assumes
    # (GEMM_STREAM_M = 64 limits only the int32 output)
    stream_sched = R == m and (slots + NT) * R <= ub_rows and slots == KT
    # driver/gemm/gemm_pipeline.c's chunk pipeline: instead of the column order (R > 256, the
    # grouped schedule's read-ahead limit) with few column tiles
    rd = min(128, ub_rows // (2 * slots + 2), acc_rows // 4)
    dbl = (not stream_sched and slots == KT and R > 256 and NT <= 8 and rd >= N and m > rd)
    sizes = None
    if dbl:
        R0 = min(2 * rd, 256)
        if R0 >= m or KT * (R0 + rd) + 2 * R0 > ub_rows or 4 * R0 > acc_rows:
            R0 = rd
        rest = m - R0
        R = math.ceil(rest / math.ceil(rest / rd))
        sizes = [R0] + [min(R, rest - i) for i in range(0, rest, R)]
        chunks = len(sizes)
    # OP0.PARAMS (fused: n >= N): MULT and SHIFT as the first command's first 8
    # stream rows instead of two LOAD_PARAMS
    prows = 8 if stream_sched and n >= N else 0
    if prows:
        cmds = 1
    else:
        h2d += 2 * pkt(4 * span(n, 0)); d2h += 2 * HDR
    if stream_sched:
        full = k // N
        ntf, cmax = n // N, min(255, acc_rows // R)
        # A_STREAM (fused: n >= N): A's K-tiles (KT x R rows of N bytes) in the first
        # STREAM_MATMUL's stream instead of READ_HOSTs before it
        astream = ntf >= 1
        if full and not astream:
            a, b = stream(full * R, N); h2d += a; d2h += b; cmds += 1
        if full < KT and not astream:
            a, b = stream(R, k - full * N); h2d += a; d2h += b; cmds += 1
        groups = [(c0, min(cmax, ntf - c0), N) for c0 in range(0, ntf, cmax)]
        if ntf < NT:
            groups.append((ntf, 1, n - ntf * N))
        if astream:  # the A-carrying part of the first command (see "phased bound")
            kg = kgroup(R, N, groups[0][1], KT) if kmajor else 1
            p1_link = stream(prows + KT * R + kg * (k + 4), N)[0] / bpc
            p1_comp = kg * KT * R
        for c0, cn, nc in groups:
            if nc == N:  # fused: each tile's bias (4 rows) in the stream, its ACTIVATE in the command
                a, b = stream(cn * (k + 4) + (KT * R + prows if astream and c0 == 0 else 0), nc)
                h2d += a; d2h += b; cmds += 1
                d2h += cn * writes(R, N)  # WRITE_BACK: each block's R output rows
                continue
            a, b = stream(cn * k, nc); h2d += a; d2h += b; cmds += 1  # then BIAS + ACTIVATE
            h2d += cn * pkt(4 * nc); d2h += cn * HDR; cmds += 2 * cn
        if ntf < NT:
            d2h += writes(R, n - ntf * N); cmds += 1
        chunks = 0
    for c in range(chunks):
        rows = sizes[c] if dbl else min(R, m - c * R)
        full = KT if dbl else k // N  # (dbl: the last K-tile padded to N bytes)
        ag = min(2, max(1, 256 // rows))
        if full and dbl:  # K-tile groups: K-tile 0 alone, then ag each
            for kt0 in [0] + list(range(1, full, ag)):
                nk = 1 if kt0 == 0 else min(ag, full - kt0)
                a, b = stream(nk * rows, N); h2d += a; d2h += b; cmds += 1
        elif full:  # READ_HOST of the full-width K-tiles
            a, b = stream(full * rows, N); h2d += a; d2h += b; cmds += 1
        if full < KT:
            a, b = stream(rows, k - full * N); h2d += a; d2h += b; cmds += 1
        for nt in range(NT):
            nc = span(n, nt)
            for kt in range(KT):  # LOAD_WEIGHTS (one packed tile) + MATMUL
                a, b = stream(span(k, kt), nc)
                h2d += a; d2h += b; cmds += 2
            # BIAS, ACTIVATE, WRITE_HOST (beside the next tile's MATMULs in pieces of at most
            # 96 rows, one per MATMUL; the chunk's last tile in one)
            pieces = 1 if nt == NT - 1 or rows < 96 else min(-(-rows // 96), max(KT - 1, 1))
            if dbl:  # every tile's write-back in pieces of at most 96 rows
                pieces = 1 if rows < 96 else -(-rows // 96)
            h2d += pkt(4 * nc); d2h += HDR; cmds += 2 + pieces
            for q in range(pieces):
                d2h += writes(rows * (q + 1) // pieces - rows * q // pieces, nc)
    data = max(h2d, d2h) / bpc
    h2d += cmds * 64 + math.ceil(cmds / 8) * HDR  # SQEs, 8 per prefetch block (PrefetchSqes)
    d2h += math.ceil(cmds / 8) * HDR + cmds * pkt(16)  # SQE MRDs, CQEs
    compute = m * KT * NT
    link = max(h2d, d2h) / bpc
    phased = (max(p1_link, p1_comp) + max(link - p1_link, compute - p1_comp) if p1_comp
              else max(compute, link))
    floor = max(compute, data) + 10 * lat + 2 * N + 2
    return dict(m=m, k=k, n=n, R=f"{sizes[0]}/{R}" if dbl else R, compute_cycles=compute,
                link_cycles=round(link),
                floor_cycles=round(floor), floor_util=m * k * n / (N * N * floor),
                kg=kg, phased_cycles=round(phased),
                data_cycles=round(data), stream=stream_sched, dbl=dbl,
                h2d_bytes=h2d, d2h_bytes=d2h, commands=cmds,
                ideal_util=m * k * n / (N * N * max(compute, link)))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json"); ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--bpc", type=float, default=16.0); ap.add_argument("shapes", nargs="*")
    ap.add_argument("--latency", type=int, default=50,
                    help="the link's one-way latency in device cycles (sim: 50)")
    ap.add_argument("--block-major", action="store_true",
                    help="model the stream schedule without OP0.K_MAJOR")
    a = ap.parse_args()
    meas = {}
    shapes = [tuple(int(x) for x in s.split("x")) for s in a.shapes]
    if a.json:
        for r in json.load(open(a.json))["results"]:
            meas[(r["m"], r["k"], r["n"])] = r
            if not a.shapes: shapes.append((r["m"], r["k"], r["n"]))
    print("| m x k x n | R | kg | commands | compute bound | link bound | data bound | phased bound | bound util | measured cycles | measured util | of bound | of data bound | of phased | latency floor | floor util | best of bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m, k, n in shapes:
        b = bounds(m, k, n, N=a.n, bpc=a.bpc, kmajor=not a.block_major, lat=a.latency)
        r = meas.get((m, k, n))
        mc = f"{r['cycles']}" if r else "-"
        mu = f"{100 * r['utilization']:.1f}%" if r else "-"
        # measured against the bound: bound cycles / measured cycles (1 = at the bound)
        ob = f"{100 * max(b['compute_cycles'], b['link_cycles']) / r['cycles']:.1f}%" if r else "-"
        od = f"{100 * max(b['compute_cycles'], b['data_cycles']) / r['cycles']:.1f}%" if r else "-"
        op = f"{100 * b['phased_cycles'] / r['cycles']:.1f}%" if r else "-"
        print(f"| {m}x{k}x{n} | {b['R']}{' (stream)' if b['stream'] else ' (dbl)' if b['dbl'] else ''} | {b['kg']} | "
              f"{b['commands']} | {b['compute_cycles']} | {b['link_cycles']} | "
              f"{b['data_cycles']} | {b['phased_cycles']} | "
              f"{100 * b['ideal_util']:.1f}% | {mc} | {mu} | {ob} | {od} | {op} | "
              f"{b['floor_cycles']} | {100 * b['floor_util']:.1f}% | "
              f"{100 * max(b['compute_cycles'], b['link_cycles']) / b['floor_cycles']:.1f}% |")

if __name__ == "__main__":
    main()
