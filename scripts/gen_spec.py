#!/usr/bin/env python3
"""Generate the C header, the SystemVerilog package and the docs tables from spec/tpu.toml.

usage: gen_spec.py SPEC --c OUT.h --sv OUT.sv --md OUT.md
       gen_spec.py SPEC --update-doc docs/spec.md   (rewrite the GENERATED blocks in place)
       gen_spec.py SPEC --check-doc docs/spec.md    (exit 1 if the doc is stale)
"""
import argparse
import re
import sys
import tomllib

from atomicio import atomic_open  # a failed write never destroys the old file


def load(path):
    with open(path, "rb") as f:
        spec = tomllib.load(f)
    check(spec)
    return spec


def check(spec):
    """Reject a spec that contradicts itself: overlapping registers or fields, fields out of a word."""
    seen = {}
    params = {p["name"]: p for p in spec["param"]}
    for r in spec["reg"]:
        n = params[r["count"]]["max"] if "count" in r else 1
        for i in range(n):
            off = r["offset"] + i * r.get("stride", 0)
            if off in seen:
                sys.exit(f"gen_spec: register {r['name']}[{i}] at 0x{off:x} overlaps {seen[off]}")
            if off % 4 or off >= spec["meta"]["bar0_size"]:
                sys.exit(f"gen_spec: register {r['name']} offset 0x{off:x} misaligned or beyond BAR0")
            seen[off] = r["name"]
        check_fields(r["name"], r.get("fields", []), lambda f: 0)
    check_fields("SQE", spec["sqe"], lambda f: f["dw"])
    check_fields("CQE", spec["cqe"], lambda f: f["dw"])
    for table in ("opcode", "status", "param_kind"):
        vals = [e["value"] for e in spec[table]]
        if len(vals) != len(set(vals)):
            sys.exit(f"gen_spec: duplicate value in {table}")


def check_fields(what, fields, dw_of):
    used = {}
    for f in fields:
        if f["lsb"] + f["width"] > 32:
            sys.exit(f"gen_spec: {what}.{f['name']} does not fit in 32 bits")
        for b in range(f["lsb"], f["lsb"] + f["width"]):
            key = (dw_of(f), b)
            if key in used:
                sys.exit(f"gen_spec: {what}.{f['name']} overlaps {used[key]}")
            used[key] = f["name"]


def mask(width):
    return (1 << width) - 1


def gen_c(spec):
    m = spec["meta"]
    o = []
    w = o.append
    w("/* Generated from spec/tpu.toml by scripts/gen_spec.py: do not edit. */")
    w("#ifndef TPU_SPEC_H")
    w("#define TPU_SPEC_H")
    w("")
    w(f"#define TPU_ID 0x{m['id']:08X}u")
    w(f"#define TPU_VERSION_MAJOR {m['version_major']}")
    w(f"#define TPU_VERSION_MINOR {m['version_minor']}")
    w(f"#define TPU_VERSION_PATCH {m['version_patch']}")
    w(f"#define TPU_BAR0_SIZE 0x{m['bar0_size']:X}u")
    w(f"#define TPU_SQE_BYTES {m['sqe_bytes']}")
    w(f"#define TPU_CQE_BYTES {m['cqe_bytes']}")
    w(f"#define TPU_RESET_MAGIC 0x{m['reset_magic']:08X}u")
    w(f"#define TPU_IDENTIFY_BYTES {m['identify_bytes']}")
    w(f"#define TPU_QUEUE_ALIGN {m['queue_align']}")
    w(f"#define TPU_LUT_ENTRIES {m['lut_entries']}")
    w("")
    w("/* Hardware parameters: default, minimum, maximum. */")
    for p in spec["param"]:
        w(f"#define TPU_{p['name']}_DEFAULT {p['default']}u /* {p['doc']} */")
        w(f"#define TPU_{p['name']}_MIN {p['min']}u")
        w(f"#define TPU_{p['name']}_MAX {p['max']}u")
    w("")
    w("/* BAR0 registers. Arrays: TPU_REG_X(i) = base + i * stride. */")
    for r in spec["reg"]:
        if "stride" in r:
            w(f"#define TPU_REG_{r['name']}(i) (0x{r['offset']:03X}u + (unsigned)(i) * 0x{r['stride']:X}u)")
        else:
            w(f"#define TPU_REG_{r['name']} 0x{r['offset']:03X}u")
        for f in r.get("fields", []):
            base = f"TPU_{r['name']}_{f['name']}"
            w(f"#define {base}_SHIFT {f['lsb']}")
            w(f"#define {base}_MASK 0x{mask(f['width']) << f['lsb']:08X}u")
    w("")
    for kind in ("sqe", "cqe"):
        w(f"/* {kind.upper()} fields: dword index, shift, mask (unshifted). */")
        for f in spec[kind]:
            base = f"TPU_{kind.upper()}_{f['name']}"
            w(f"#define {base}_DW {f['dw']}")
            w(f"#define {base}_SHIFT {f['lsb']}")
            w(f"#define {base}_MASK 0x{mask(f['width']):X}u")
        w("")
    for k, v in spec["sqe_flags"].items():
        w(f"#define TPU_SQE_FLAG_{k} 0x{v:02X}u")
    w(f"#define TPU_SQE_FLAGS_VALID 0x{sum(spec['sqe_flags'].values()):02X}u")
    for k, v in spec["op_bits"].items():
        w(f"#define TPU_{k} 0x{v:X}u")
    w("")
    w("enum tpu_opcode {")
    for e in spec["opcode"]:
        w(f"\tTPU_OP_{e['name']} = 0x{e['value']:02X}, /* {e['doc']} */")
    w("};")
    w(f"#define TPU_OP_COUNT {len(spec['opcode'])}")
    w("#define TPU_OPCODE_LIST(X) \\")
    w(" \\\n".join(f"\tX({e['name']}, 0x{e['value']:02X})" for e in spec["opcode"]))
    w("")
    w("enum tpu_param_kind {")
    for e in spec["param_kind"]:
        w(f"\tTPU_PARAM_{e['name']} = {e['value']}, /* {e['doc']} */")
    w("};")
    w(f"#define TPU_PARAM_KIND_COUNT {len(spec['param_kind'])}")
    w("")
    w("/* Device status codes (SCT 0). X(name, value, dnr, text) */")
    w("enum tpu_status_code {")
    for e in spec["status"]:
        w(f"\tTPU_SC_{e['name']} = 0x{e['value']:02X},")
    w("};")
    w("#define TPU_STATUS_LIST(X) \\")
    w(" \\\n".join(f"\tX({e['name']}, 0x{e['value']:02X}, {e['dnr']}, \"{e['doc']}\")" for e in spec["status"]))
    w("")
    w("#endif /* TPU_SPEC_H */")
    return "\n".join(o) + "\n"


def sv_name(name):
    return "".join(part.capitalize() for part in name.lower().split("_"))


def gen_sv(spec):
    m = spec["meta"]
    o = []
    w = o.append
    w("// Generated from spec/tpu.toml by scripts/gen_spec.py: do not edit.")
    w("package tpu_pkg;")
    w(f"  localparam logic [31:0] IdMagic = 32'h{m['id']:08X};")
    w(f"  localparam logic [31:0] VersionWord = 32'h{(m['version_major'] << 16) | (m['version_minor'] << 8) | m['version_patch']:08X};")
    w(f"  localparam logic [31:0] ResetMagic = 32'h{m['reset_magic']:08X};")
    w(f"  localparam int unsigned SqeBytes = {m['sqe_bytes']};")
    w(f"  localparam int unsigned CqeBytes = {m['cqe_bytes']};")
    w(f"  localparam int unsigned LutEntries = {m['lut_entries']};")
    w(f"  localparam int unsigned IdentifyBytes = {m['identify_bytes']};")
    w(f"  localparam int unsigned QueueAlign = {m['queue_align']};")
    # Numerics limits the C side keeps in include/tpu/numerics.h (hand-written there).
    w(f"  localparam int ShiftMin = {m['shift_min']};")
    w(f"  localparam int ShiftMax = {m['shift_max']};")
    w(f"  localparam logic [31:0] KNoOverflow = 32'd{m['k_no_overflow']};")
    w(f"  localparam int unsigned OpCount = {len(spec['opcode'])};")
    w(f"  localparam logic [7:0] SqeFlagsValid = 8'h{sum(spec['sqe_flags'].values()):02X};")
    dnr = sum(1 << e["value"] for e in spec["status"] if e["dnr"])
    w(f"  localparam logic [255:0] ScDnrMap = 256'h{dnr:064X};  // bit sc = DNR of status sc")
    for p in spec["param"]:
        w(f"  localparam int unsigned {sv_name(p['name'])}Default = {p['default']};")
    for r in spec["reg"]:
        w(f"  localparam logic [15:0] Reg{sv_name(r['name'])} = 16'h{r['offset']:04X};")
        if "stride" in r:
            w(f"  localparam logic [15:0] Reg{sv_name(r['name'])}Stride = 16'h{r['stride']:04X};")
        for f in r.get("fields", []):
            w(f"  localparam int unsigned {sv_name(r['name'])}{sv_name(f['name'])}Lsb = {f['lsb']};")
    for kind in ("sqe", "cqe"):
        for f in spec[kind]:
            pre = sv_name(kind) + sv_name(f["name"])
            w(f"  localparam int unsigned {pre}Lsb = {f['dw'] * 32 + f['lsb']};")
            w(f"  localparam int unsigned {pre}Width = {f['width']};")
    for k, v in spec["sqe_flags"].items():
        w(f"  localparam logic [7:0] SqeFlag{sv_name(k)} = 8'h{v:02X};")
    for k, v in spec["op_bits"].items():
        w(f"  localparam logic [31:0] {sv_name(k)} = 32'h{v:X};")
    for k, v in spec["dp_cmd"].items():
        w(f"  localparam int unsigned DpCmd{sv_name(k)}Lsb = {v};")
    for k, v in spec["dp_op"].items():
        w(f"  localparam logic [3:0] DpOp{sv_name(k)} = 4'd{v};")
    w("  typedef enum logic [7:0] {")
    w(",\n".join(f"    Op{sv_name(e['name'])} = 8'h{e['value']:02X}" for e in spec["opcode"]))
    w("  } opcode_e;")
    w("  typedef enum logic [2:0] {")
    w(",\n".join(f"    Param{sv_name(e['name'])} = 3'd{e['value']}" for e in spec["param_kind"]))
    w("  } param_kind_e;")
    w("  typedef enum logic [7:0] {")
    w(",\n".join(f"    Sc{sv_name(e['name'])} = 8'h{e['value']:02X}" for e in spec["status"]))
    w("  } status_e;")
    w("endpackage")
    return "\n".join(o) + "\n"


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def bits(f):
    hi = f["lsb"] + f["width"] - 1
    return f"[{f['lsb']}]" if hi == f["lsb"] else f"[{hi}:{f['lsb']}]"


def gen_md_blocks(spec):
    params = md_table(["parameter", "default", "min", "max", "meaning"],
                      [(p["name"], p["default"], p["min"], p["max"], p["doc"]) for p in spec["param"]])
    regs = []
    for r in spec["reg"]:
        off = f"0x{r['offset']:03X}"
        if "stride" in r:
            off += f" + i·0x{r['stride']:X} (i < {r['count']})"
        fields = "; ".join(f"{bits(f)} {f['name']}" + (f": {f['doc']}" if f.get("doc") else "")
                           for f in r.get("fields", []))
        regs.append((off, r["name"], r["access"].upper(), r["doc"] + ("<br>" + fields if fields else "")))
    regs = md_table(["offset", "name", "access", "meaning"], regs)
    sqe = md_table(["DW", "bits", "field", "meaning"],
                   [(f["dw"], bits(f), f["name"], f["doc"]) for f in spec["sqe"]])
    cqe = md_table(["DW", "bits", "field", "meaning"],
                   [(f["dw"], bits(f), f["name"], f["doc"]) for f in spec["cqe"]])
    ops = md_table(["opcode", "name", "summary"],
                   [(f"0x{e['value']:02X}", e["name"], e["doc"]) for e in spec["opcode"]])
    kinds = md_table(["OP0", "kind", "meaning"],
                     [(e["value"], e["name"], e["doc"]) for e in spec["param_kind"]])
    st = md_table(["SC", "name", "DNR", "meaning"],
                  [(f"0x{e['value']:02X}", e["name"], e["dnr"], e["doc"]) for e in spec["status"]])
    return {"params": params, "registers": regs, "sqe": sqe, "cqe": cqe, "opcodes": ops,
            "param_kinds": kinds, "status": st}


BLOCK = re.compile(r"(<!-- BEGIN GENERATED: (\w+) -->\n)(.*?)(<!-- END GENERATED -->)", re.S)


def render_doc(text, blocks):
    def sub(mo):
        name = mo.group(2)
        if name not in blocks:
            sys.exit(f"gen_spec: unknown generated block '{name}'")
        return mo.group(1) + blocks[name] + "\n" + mo.group(4)
    return BLOCK.sub(sub, text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--c")
    ap.add_argument("--sv")
    ap.add_argument("--update-doc")
    ap.add_argument("--check-doc")
    a = ap.parse_args()
    spec = load(a.spec)
    if a.c:
        with atomic_open(a.c) as f:
            f.write(gen_c(spec))
    if a.sv:
        with atomic_open(a.sv) as f:
            f.write(gen_sv(spec))
    for path, update in ((a.update_doc, True), (a.check_doc, False)):
        if not path:
            continue
        with open(path) as f:
            text = f.read()
        new = render_doc(text, gen_md_blocks(spec))
        if update:
            with atomic_open(path) as f:
                f.write(new)
        elif new != text:
            sys.exit(f"gen_spec: {path} is stale; run 'make spec-doc'")


if __name__ == "__main__":
    main()
