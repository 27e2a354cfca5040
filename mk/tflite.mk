# TFLite import (driver/import/tflite_*, docs/import.md): flatc generates the C++ reader of the
# schema subset driver/import/tflite_schema.fbs into the build tree (nothing generated is
# committed); the thin shim driver/import/tflite_fb.cc verifies and copies a model into C structs
# for the importer (C); it needs nothing of the C++ runtime (no exceptions, no new).
#   make test-tflite   (a step of `make test`) the subset schema checked field by field against
#                      the maintained generated code, then the cross-check against LiteRT: random
#                      small models of every supported operator built and run (reference and
#                      default kernels) by tests/tflite/litert_check.py in the pinned venv
#                      .venv-tflite/ (scripts/setup --tflite), imported with `tpu import` and run
#                      on golden, sim and sim:n=8, every output element compared; and the digits
#                      models exported to TFLite and imported back (tests/tflite/export_digits.py);
#                      the fixtures of tests/test_import_tflite.c are checked against
#                      tests/tflite/make_fixtures.py
TFL_FBS      := driver/import/tflite_schema.fbs
TFL_GEN_DIR  := $(BUILD)/gen/tflite
TFL_GEN_H    := $(TFL_GEN_DIR)/tflite_schema_generated.h
TFL_SHIM     := driver/import/tflite_fb.cc

$(TFL_GEN_H): $(TFL_FBS) $(SETUP_STAMP)
	@mkdir -p $(@D)
	@echo "  FLATC   $<"
	$(Q)flatc --cpp -o $(TFL_GEN_DIR) $<

# the shim in both libraries (PIC_CXX_SRCS: compiled position-independent by mk/shlib.mk)
TFL_SHIM_O := $(OBJDIR)/$(TFL_SHIM:.cc=.o)
$(LIB_A): $(TFL_SHIM_O)
PIC_CXX_SRCS += $(TFL_SHIM)
$(TFL_SHIM_O) $(BUILD)/obj-pic/$(TFL_SHIM:.cc=.o): $(TFL_GEN_H)
CXXFLAGS_ALL += -I$(TFL_GEN_DIR) -Idriver/import

# ... and in the fuzz harnesses, which link every library object (mk/fuzz.mk, read before)
TFL_FUZZ_O := $(FUZZ_OBJ)/$(TFL_SHIM:.cc=.o)
$(TFL_FUZZ_O): $(TFL_SHIM) $(TFL_GEN_H)
	@mkdir -p $(@D)
	@echo "  FUZZCXX $<"
	$(Q)$(FUZZ_CXX) -std=c++17 -g -O1 $(FUZZ_SAN) -Iinclude -I$(BUILD)/include -I$(TFL_GEN_DIR) \
	  -Idriver/import -c $< -o $@
$(FUZZ_BINS): $(TFL_FUZZ_O)

TFL_VENV       := $(CURDIR)/.venv-tflite
TFL_VENV_STAMP := $(TFL_VENV)/.pins
$(TFL_VENV_STAMP): scripts/setup
	$(Q)scripts/setup --tflite

TFL_CHECK_DIR     := $(BUILD)/tflite-check
# (deferred: SIM_ON comes from mk/sim.mk, comma from mk/install.mk, both read later)
TFL_CHECK_DEVICES  = golden$(if $(filter 1,$(SIM_ON)),$(comma)sim$(comma)sim:n=8)
.PHONY: test-tflite
test-tflite: $(TFL_VENV_STAMP) $(CLI) $(SETUP_STAMP)
	$(Q)$(TFL_VENV)/bin/python tests/tflite/schema_check.py --fbs $(TFL_FBS)
	$(Q)$(TFL_VENV)/bin/python tests/tflite/make_fixtures.py --check
	$(Q)$(TFL_VENV)/bin/python tests/tflite/litert_check.py --tpu $(abspath $(CLI)) \
	  --out $(TFL_CHECK_DIR) --devices $(TFL_CHECK_DEVICES)
	$(Q)$(TFL_VENV)/bin/python tests/tflite/export_digits.py --tpu $(abspath $(CLI)) \
	  --out $(TFL_CHECK_DIR)/digits --devices $(TFL_CHECK_DEVICES)
TEST_STEPS += test-tflite
