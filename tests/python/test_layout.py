"""The ctypes mirrors of include/tpu/'s structs (python/tpu/_lib.py) against the C compiler's
layout of the same headers: every field's offset and every struct's size."""
import ctypes
import subprocess

import pytest

from conftest import BUILD, ROOT
from tpu import _lib

# (ctypes mirror, C type, {ctypes field: C member} where the names differ)
STRUCTS = [
    (_lib.Info, "struct tpu_info", {}),
    (_lib.Perf, "struct tpu_perf", {}),
    (_lib.GemmParams, "struct tpu_gemm_params", {}),
    (_lib.Quant, "struct tpu_quant", {}),
    (_lib.LayerStats, "struct tpu_layer_stats", {}),
    (_lib.ModelStats, "struct tpu_model_stats", {}),
    (_lib.TrainStats, "struct tpu_train_stats", {}),
    (_lib.TrainGemmRec, "struct tpu_train_gemm_rec", {}),
    (_lib.TrainCtx, "struct tpu_train_ctx", {}),
    (_lib.Optim, "struct tpu_optim", {}),
    # only the leading fields of struct tpu_model, which must end before its layers
    (_lib.ModelHead, "struct tpu_model", {"in_": "in", None: "layers"}),
]


@pytest.fixture(scope="module")
def c_layout(tmp_path_factory):
    """{(C type, member or None for the size): value} printed by a compiled probe."""
    lines = []
    for _, ctype, rename in STRUCTS:
        lines.append(f'printf("%s|%zu\\n", "{ctype}|", sizeof({ctype}));')
        for mirror, _, _ in [s for s in STRUCTS if s[1] == ctype]:
            for member in [rename.get(n, n) for n, _ in mirror._fields_] + \
                    ([rename[None]] if None in rename else []):
                lines.append(f'printf("%s|%zu\\n", "{ctype}|{member}", '
                             f'offsetof({ctype}, {member}));')
    src = ("#include <stddef.h>\n#include <stdio.h>\n#include \"tpu/model.h\"\n"
           "#include \"tpu/train.h\"\nint main(void)\n{\n" + "\n".join(lines) +
           "\nreturn 0;\n}\n")
    d = tmp_path_factory.mktemp("layout")
    (d / "probe.c").write_text(src)
    subprocess.run(["cc", "-std=c11", f"-I{ROOT / 'include'}", f"-I{BUILD / 'include'}",
                    "-o", str(d / "probe"), str(d / "probe.c")], check=True)
    out = subprocess.run([str(d / "probe")], capture_output=True, text=True, check=True)
    layout = {}
    for line in out.stdout.splitlines():
        ctype, member, value = line.split("|")
        layout[(ctype, member or None)] = int(value)
    return layout


@pytest.mark.parametrize("mirror,ctype,rename", STRUCTS, ids=[s[1] for s in STRUCTS])
def test_struct_layout(c_layout, mirror, ctype, rename):
    for name, _ in mirror._fields_:
        member = rename.get(name, name)
        assert getattr(mirror, name).offset == c_layout[(ctype, member)], f"{ctype}.{member}"
    if None in rename:
        assert ctypes.sizeof(mirror) <= c_layout[(ctype, rename[None])]
    else:
        assert ctypes.sizeof(mirror) == c_layout[(ctype, None)], f"sizeof({ctype})"
