# `make demo`: the CLI on the default device: its identity, the GEMM self-test against the
# independent reference (exits non-zero on any mismatch), then each shipped digits model
# (docs/models.md) on the test split with `tpu run`: accuracy, cycles, MXU utilization, device
# time at 1 GHz, and every prediction and raw int8 output compared with the golden model (a
# disagreement fails the demo). DEMO_DEVICE picks the device (default: sim when the Verilated
# device is built, else golden).
DEMO_MODELS  := models/digits-mlp.tpum models/digits-cnn.tpum
DEMO_X       := data/digits_test_x.npy
DEMO_Y       := data/digits_test_y.npy
DEMO_DEVICE   = $(if $(filter 1,$(SIM_ON)),sim,golden)

.PHONY: demo
demo: $(SETUP_STAMP) all
	$(Q)$(CLI) info
	$(Q)$(CLI) selftest
	$(Q)for f in $(DEMO_MODELS) $(DEMO_X) $(DEMO_Y); do \
	  if [ ! -f "$$f" ]; then \
	    echo "make demo: $$f is missing (\`make models\` trains the models and writes the" \
	         "test split; see docs/models.md)" >&2; \
	    exit 1; \
	  fi; \
	done
	$(Q)for m in $(DEMO_MODELS); do \
	  echo; echo "== tpu run --device $(DEMO_DEVICE) $$m $(DEMO_X) --labels $(DEMO_Y)" \
	    "--compare golden"; \
	  $(CLI) run --device $(DEMO_DEVICE) $$m $(DEMO_X) --labels $(DEMO_Y) \
	    --compare golden || exit 1; \
	done
