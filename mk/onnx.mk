# ONNX import (driver/import, docs/import.md): the protobuf-c parser of onnx.proto, generated
# into the build tree from the schema that Debian's libonnx-dev ships (proto2; nothing generated
# is committed), compiled into libtpu.a and libtpu.so, which link libprotobuf-c.
#   make test-onnx   (a step of `make test`) the cross-check against ONNX Runtime: random small
#                    graphs of every supported pattern built and run by tests/onnx/ort_check.py
#                    in the pinned venv .venv-onnx/ (scripts/setup --onnx), imported with
#                    `tpu import` and run on golden, sim and sim:n=8, every output element
#                    compared
ONNX_PROTO    := /usr/include/onnx/onnx.proto
ONNX_GEN_DIR  := $(BUILD)/gen/onnx
ONNX_PB_C     := $(ONNX_GEN_DIR)/onnx.pb-c.c
ONNX_PB_H     := $(ONNX_GEN_DIR)/onnx.pb-c.h
ONNX_PB_O     := $(ONNX_PB_C:%.c=$(OBJDIR)/%.o)

$(ONNX_PB_C) $(ONNX_PB_H) &: $(SETUP_STAMP)
	@mkdir -p $(@D)
	@echo "  PROTOC  $(ONNX_PROTO)"
	$(Q)protoc-c --c_out=$(ONNX_GEN_DIR) --proto_path=$(dir $(ONNX_PROTO)) $(ONNX_PROTO)

# the generated file in the static library and (through LIB_SRCS, read by mk/shlib.mk) the
# shared one; the importer's objects wait for its header
LIB_SRCS += $(ONNX_PB_C)
$(LIB_A): $(ONNX_PB_O)
ONNX_IMPORT_SRCS := $(wildcard driver/import/*.c)
# (obj-pic: PIC_OBJDIR of mk/shlib.mk, read after this file)
$(ONNX_IMPORT_SRCS:%.c=$(OBJDIR)/%.o) $(ONNX_IMPORT_SRCS:%.c=$(BUILD)/obj-pic/%.o): $(ONNX_PB_H)
$(OBJDIR)/tests/test_import_onnx.o: $(ONNX_PB_H)
CFLAGS_ALL += -I$(ONNX_GEN_DIR)
LDLIBS_ALL += -lprotobuf-c
# ... and in the fuzz harnesses, which link every library object (mk/fuzz.mk, read before)
FUZZ_CFLAGS += -I$(ONNX_GEN_DIR)
$(FUZZ_BINS): $(FUZZ_OBJ)/$(ONNX_PB_C:.c=.o)
$(ONNX_IMPORT_SRCS:%.c=$(FUZZ_OBJ)/%.o): $(ONNX_PB_H)

ONNX_VENV       := $(CURDIR)/.venv-onnx
ONNX_VENV_STAMP := $(ONNX_VENV)/.pins
$(ONNX_VENV_STAMP): scripts/setup
	$(Q)scripts/setup --onnx

ONNX_CHECK_DIR     := $(BUILD)/onnx-check
# (deferred: SIM_ON comes from mk/sim.mk, comma from mk/install.mk, both read later)
ONNX_CHECK_DEVICES  = golden$(if $(filter 1,$(SIM_ON)),$(comma)sim$(comma)sim:n=8)
.PHONY: test-onnx
test-onnx: $(ONNX_VENV_STAMP) $(CLI)
	$(Q)$(ONNX_VENV)/bin/python tests/onnx/ort_check.py --tpu $(abspath $(CLI)) \
	  --out $(ONNX_CHECK_DIR) --devices $(ONNX_CHECK_DEVICES)
TEST_STEPS += test-onnx
