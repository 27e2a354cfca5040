#!/usr/bin/env python3
"""Check driver/import/tflite_schema.fbs, the subset of TensorFlow Lite's schema that the
importer reads, against the maintained schema as the pinned LiteRT ships it
(ai_edge_litert.schema_py_generated, flatc's Python output of tensorflow/lite/schema/schema.fbs).

flatc compiles the subset to Python into a scratch folder; then, for every table of the subset,
each field accessor must read the same vtable slot with the same scalar, vector, string, table or
union access and the same default as upstream's accessor of that name, and every field upstream
has before the subset's last one must be in the subset (a skipped field would shift the slots);
every enum and union value of the subset must have upstream's name and value, and the enums the
importer prints (TensorType, BuiltinOperator) must be complete. Prints what it compared and exits
1 on any difference.

usage: schema_check.py --fbs driver/import/tflite_schema.fbs [--flatc flatc]
"""
import argparse
import importlib
import inspect
import os
import re
import subprocess
import sys
import tempfile

from ai_edge_litert import schema_py_generated as upstream

# enums whose every value the importer names (in messages), not only the ones it reads
COMPLETE = {"TensorType", "BuiltinOperator"}
ACCESS = re.compile(r"number_types\.(\w+Flags)|\b(Indirect|Vector|String|Union)\b"
                    r"|obj = (\w+)\(\)|^\s*return (\S+)\s*$", re.M)


def fields(cls):
    """{accessor name: (vtable slot, access tokens)} of a generated table class."""
    out = {}
    for name, fn in inspect.getmembers(cls, inspect.isfunction):
        if name.endswith(("Length", "IsNone", "AsNumpy", "AsString")):
            continue
        src = inspect.getsource(fn)
        m = re.search(r"self\._tab\.Offset\((\d+)\)", src)
        if m:
            toks = [t for tup in ACCESS.findall(src) for t in tup if t]
            out[name] = ((int(m.group(1)) - 4) // 2, toks)
    return out


def values(cls):
    return {k: v for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fbs", required=True)
    ap.add_argument("--flatc", default="flatc")
    a = ap.parse_args()
    bad = 0
    n_fields = n_values = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([a.flatc, "--python", "-o", tmp, a.fbs], check=True)
        sys.path.insert(0, tmp)
        pkg = os.path.join(tmp, "tflite")
        names = sorted(f[:-3] for f in os.listdir(pkg) if f.endswith(".py") and f != "__init__.py")
        tables = enums = 0
        for name in names:
            mod = importlib.import_module(f"tflite.{name}")
            mine = getattr(mod, name)
            up = getattr(upstream, name, None)
            if up is None:
                print(f"{name}: not in the maintained schema")
                bad += 1
                continue
            if hasattr(mine, "Init"):  # a table
                tables += 1
                f_mine, f_up = fields(mine), fields(up)
                last = max((slot for slot, _ in f_mine.values()), default=-1)
                for fname, (slot, toks) in sorted(f_mine.items(), key=lambda x: x[1][0]):
                    n_fields += 1
                    if fname not in f_up:
                        print(f"{name}.{fname}: not in the maintained schema")
                        bad += 1
                    elif f_up[fname] != (slot, toks):
                        print(f"{name}.{fname}: slot {slot} {toks}, maintained: slot "
                              f"{f_up[fname][0]} {f_up[fname][1]}")
                        bad += 1
                for fname, (slot, _) in f_up.items():
                    if slot <= last and fname not in f_mine:
                        print(f"{name}.{fname}: slot {slot} is missing from the subset")
                        bad += 1
            else:  # an enum or a union's type enum
                enums += 1
                v_mine, v_up = values(mine), values(up)
                for k, v in v_mine.items():
                    n_values += 1
                    if v_up.get(k) != v:
                        print(f"{name}.{k} = {v}, maintained: {v_up.get(k)}")
                        bad += 1
                if name in COMPLETE and v_mine.keys() != v_up.keys():
                    print(f"{name}: values missing: {sorted(set(v_up) - set(v_mine))}")
                    bad += 1
    print(f"schema subset: {tables} tables ({n_fields} fields), {enums} enums and unions "
          f"({n_values} values) compared with ai_edge_litert.schema_py_generated: "
          f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
