"""Shared set-up of the Python package's tests (mk/python.mk runs them with .venv-python's
pytest): the package from python/ of this tree, libtpu.so from $TPU_LIBDIR (the build tree),
the CLI from $TPU_CLI, and which sim models the build has ($TPU_SIM_MODELS)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TPU_BUILD", ROOT / "build"))
CLI = Path(os.environ.get("TPU_CLI", BUILD / "bin" / "tpu"))
os.environ.setdefault("TPU_LIBDIR", str(BUILD / "lib"))
sys.path.insert(0, str(ROOT / "python"))

import tpu  # noqa: E402  (after the path above)

# the sim models this build has, by name (mk/sim.mk SIM_MODELS; empty without Verilator)
SIM_MODELS = os.environ.get("TPU_SIM_MODELS", "").split() if tpu.HAVE_SIM else []


def sim_uri(model):
    """The sim URI of a built model ("n16" -> "sim:n=16", "b8" -> "sim:bf16=1"), or a pytest
    param that is skipped when the build has no such model."""
    uri = {"n16": "sim:n=16", "n8": "sim:n=8", "b8": "sim:bf16=1"}[model]
    marks = [] if model in SIM_MODELS else [pytest.mark.skip(reason=f"no sim model {model}")]
    return pytest.param(uri, marks=marks, id=uri)


def run_cli(*args, check=True):
    """Run the tpu CLI; its CompletedProcess (text). A non-zero exit fails the test with
    check."""
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode:
        pytest.fail(f"tpu {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p


@pytest.fixture
def rng(request):
    """A generator seeded from the test's name: the same data on every run."""
    return np.random.default_rng(list(request.node.nodeid.encode()))
