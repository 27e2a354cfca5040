# ONNX export (driver/import/onnx_export.c, `tpu export`, docs/import.md "Export"):
#   make test-onnx-export   (a step of `make test`) the shipped models exported, run in ONNX
#                           Runtime on the 355 digits test images, imported back and run on
#                           golden and sim (tests/onnx/export_check.py, in .venv-onnx)
ONNX_EXPORT_DIR := $(BUILD)/onnx-export
.PHONY: test-onnx-export
test-onnx-export: $(ONNX_VENV_STAMP) $(CLI) shlib
	$(Q)$(ONNX_VENV)/bin/python tests/onnx/export_check.py --tpu $(abspath $(CLI)) \
	  --out $(ONNX_EXPORT_DIR) --devices golden$(if $(filter 1,$(SIM_ON)),$(comma)sim)
TEST_STEPS += test-onnx-export
