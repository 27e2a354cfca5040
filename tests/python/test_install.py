"""`make install` into a temporary prefix: a C program built with `pkg-config --cflags --libs
tpu` against the installed files alone opens golden and runs a GEMM (and, with the sim models,
sim through tpu-sim.pc); the installed CLI and Python package work; DESTDIR stages under a
root with the prefix written into the files; `make uninstall` removes exactly what was
installed."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, ROOT, SIM_MODELS

PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include <tpu/tpu.h>

int main(int argc, char **argv)
{
	enum { M = 5, K = 37, N = 19 };
	int8_t a[M * K], b[K * N];
	int32_t c[M * N];
	tpu_dev *dev;
	int rc = tpu_open(argc > 1 ? argv[1] : "golden:n=8", &dev);

	if (rc) {
		fprintf(stderr, "open: %s (%s)\n", tpu_strerror(rc), tpu_last_open_error());
		return 1;
	}
	for (int i = 0; i < M * K; i++)
		a[i] = (int8_t)(i * 37 % 251 - 125);
	for (int i = 0; i < K * N; i++)
		b[i] = (int8_t)(i * 91 % 253 - 126);
	rc = tpu_gemm(dev, M, K, N, a, b, NULL, c);
	if (rc) {
		fprintf(stderr, "gemm: %s\n", tpu_strerror(rc));
		return 1;
	}
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			int32_t s = 0;
			for (int k = 0; k < K; k++)
				s += a[i * K + k] * b[k * N + j];
			if (s != c[i * N + j]) {
				fprintf(stderr, "c[%d][%d] = %d, want %d\n", i, j, c[i * N + j], s);
				return 1;
			}
		}
	struct tpu_info info;
	if (tpu_get_info(dev, &info) == 0)
		printf("gemm ok on %s n=%u\n", info.backend, info.array_n);
	tpu_close(dev);
	return 0;
}
"""

SIM = "1" if SIM_MODELS else "0"


def make(*args):
    """make in the tree with this build, as a fresh invocation (not the test step's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    subprocess.run(["make", "--no-print-directory", "-s", "-C", str(ROOT), f"BUILD={BUILD}",
                    f"SIM={SIM}", *args], check=True, env=env)


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*") if not p.is_dir())


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """A prefix holding a file of someone else's in each directory we install into, then the
    installed tree."""
    p = tmp_path_factory.mktemp("prefix")
    for d in ("bin", "include", "lib/pkgconfig"):
        (p / d).mkdir(parents=True)
        (p / d / "other.txt").write_text("not ours\n")
    make("install", f"PREFIX={p}")
    return p


def pkg_config(prefix, *args):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    return subprocess.run(["pkg-config", *args], capture_output=True, text=True, check=True,
                          env=env).stdout.split()


def build_program(prefix, tmp_path, packages):
    src = tmp_path / "gemm.c"
    src.write_text(PROGRAM)
    flags = pkg_config(prefix, "--cflags", "--libs", *packages)
    assert not any(str(ROOT) in f for f in flags), "flags point into the source tree"
    exe = tmp_path / "gemm"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(src),
                    *flags], check=True)
    return exe


def run_program(prefix, exe, *args):
    env = dict(os.environ, LD_LIBRARY_PATH=str(prefix / "lib"))
    env.pop("TPU_LIBDIR", None)
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_installed_files(prefix):
    for f in ("include/tpu/tpu.h", "include/tpu/model.h", "include/tpu/tpu_spec.h",
              "lib/libtpu.a", "lib/pkgconfig/tpu.pc", "bin/tpu"):
        assert (prefix / f).is_file(), f
    real = os.path.realpath(prefix / "lib" / "libtpu.so")
    assert Path(real).parent == prefix / "lib" and Path(real).name.startswith("libtpu.so.0.")
    assert os.readlink(prefix / "lib" / "libtpu.so.0") == Path(real).name
    assert f"prefix={prefix}" in (prefix / "lib" / "pkgconfig" / "tpu.pc").read_text()


def test_c_program_through_pkg_config(prefix, tmp_path):
    exe = build_program(prefix, tmp_path, ["tpu"])
    needed = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True,
                            check=True).stdout
    assert "[libtpu.so.0]" in needed
    assert run_program(prefix, exe, "golden:n=8") == "gemm ok on golden n=8\n"


@pytest.mark.skipif("n16" not in SIM_MODELS, reason="no sim model n16")
def test_c_program_on_sim_through_tpu_sim_pc(prefix, tmp_path):
    exe = build_program(prefix, tmp_path, ["tpu-sim", "tpu"])
    assert run_program(prefix, exe, "sim:n=16") == "gemm ok on sim n=16\n"


def test_installed_cli(prefix):
    p = subprocess.run([str(prefix / "bin" / "tpu"), "--device", "golden:n=8", "info"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and "golden" in p.stdout


def test_installed_python_package(prefix, tmp_path):
    (pkg,) = prefix.glob("lib/python*/site-packages/tpu")
    code = ("import numpy as np, tpu\n"
            "with tpu.Device('golden:n=8') as d:\n"
            "    c = d.matmul(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8))\n"
            "print(tpu.__file__, tpu._lib.lib._name, int(c.sum()))\n")
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    env.pop("TPU_LIBDIR", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    file, lib, total = p.stdout.split()
    assert file == str(pkg / "__init__.py")
    assert lib == str(prefix / "lib" / "libtpu.so.0") and total == "24"


def test_destdir_stages_with_the_prefix(tmp_path):
    stage = tmp_path / "stage"
    make("install", f"DESTDIR={stage}", "PREFIX=/opt/tpu")
    assert sorted({f.split("/")[0] for f in files_under(stage)}) == ["opt"]
    pc = (stage / "opt/tpu/lib/pkgconfig/tpu.pc").read_text()
    assert "prefix=/opt/tpu\n" in pc and str(stage) not in pc
    (libdir,) = stage.glob("opt/tpu/lib/python*/site-packages/tpu/_libdir.py")
    assert 'LIBDIR = "/opt/tpu/lib"' in libdir.read_text()
    make("uninstall", f"DESTDIR={stage}", "PREFIX=/opt/tpu")
    assert files_under(stage) == []


def test_uninstall_removes_exactly_what_was_installed(prefix):
    make("uninstall", f"PREFIX={prefix}")
    assert files_under(prefix) == ["bin/other.txt", "include/other.txt",
                                   "lib/pkgconfig/other.txt"]
    assert not (prefix / "include" / "tpu").exists()
    assert not list(prefix.glob("lib/python*/site-packages/tpu"))
