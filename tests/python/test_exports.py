"""libtpu.so's ABI: the soname and links, and exactly the functions of include/tpu/ exported
(a public function that driver/libtpu.map leaves out fails here, as does anything exported
that no header declares); libtpu_sim.so exports only the models' registry symbols."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import BUILD, ROOT, SIM_MODELS
from header_decls import declared_functions

LIBDIR = BUILD / "lib"


def dynamic_symbols(path):
    """{name: type letter} of the defined dynamic symbols (nm -D), version suffixes cut."""
    out = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "A":  # A: the version node itself
            syms[parts[2].split("@")[0]] = parts[1]
    return syms


def soname(path):
    out = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"SONAME\s+(\S+)", out)
    return m.group(1) if m else None


def real_name(stem):
    """The versioned file behind LIBDIR/stem.so."""
    return Path(os.path.realpath(LIBDIR / f"{stem}.so"))


def test_exports_are_the_header_functions():
    headers = sorted((ROOT / "include" / "tpu").glob("*.h")) + \
        [BUILD / "include" / "tpu" / "tpu_spec.h"]
    declared = declared_functions(headers)
    assert len(declared) > 80, "the header parser found too few declarations"
    exported = dynamic_symbols(real_name("libtpu"))
    assert sorted(declared - exported.keys()) == [], "declared, not exported (driver/libtpu.map)"
    assert sorted(exported.keys() - declared) == [], "exported, declared in no public header"
    assert {t for t in exported.values()} == {"T"}, "every export is a function"


def test_soname_and_links():
    real = real_name("libtpu")
    assert re.fullmatch(r"libtpu\.so\.\d+\.\d+\.\d+", real.name)
    major = real.name.split(".")[2]
    assert soname(real) == f"libtpu.so.{major}"
    assert os.readlink(LIBDIR / "libtpu.so") == f"libtpu.so.{major}"
    assert os.readlink(LIBDIR / f"libtpu.so.{major}") == real.name


def test_header_parser_sees_what_it_should():
    """The parser behind the export check: file-scope declarations count; static inline
    definitions, macros, struct members and prototypes inside comments do not."""
    src = """
    /* int tpu_commented(void); */
    #define TPU_MACRO(x) tpu_macro_call(x)
    struct s { int (*tpu_member)(void); };
    static inline int tpu_inline(int a) { return tpu_called(a); }
    TPU_MUST_CHECK int tpu_declared(tpu_dev *dev,
                                    int x);
    const char *tpu_text(void);
    #ifdef __cplusplus
    extern "C" {
    #endif
    void tpu_last(void);
    """
    path = BUILD / "tests" / "header_decls_probe.h"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(src)
    assert declared_functions([path]) == {"tpu_declared", "tpu_text", "tpu_last"}


@pytest.mark.skipif(not SIM_MODELS, reason="no sim models built")
def test_sim_library_exports_only_models():
    real = real_name("libtpu_sim")
    assert soname(real) == "libtpu_sim.so." + real.name.split(".")[2]
    exported = dynamic_symbols(real)
    assert sorted(exported) == sorted(f"tpu_sim_model_{m}" for m in SIM_MODELS)
