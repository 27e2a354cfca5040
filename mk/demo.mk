# `make demo`: the CLI on the default device: its identity, the GEMM self-test against the
# independent reference (exits non-zero on any mismatch), then each shipped digits model
# (docs/models.md) on the test split with `tpu run`: accuracy, cycles, MXU utilization, device
# time at 1 GHz, and every prediction and raw int8 output compared with the golden model (a
# disagreement fails the demo). DEMO_DEVICE picks the device (default: sim when the Verilated
# device is built, else golden). Last, a short training run (docs/training.md): the MLP trained
# with `tpu train` on DEMO_TRAIN_DEVICE (the Verilated bf16 device sim:bf16=1, else
# golden:bf16=1,n=8, which gives the same bits) on the first 600 training examples for 3 epochs
# (about 20-30 s on sim), its loss per epoch, then `tpu run` of the int8 model it wrote (-o)
# on the test split on DEMO_DEVICE.
DEMO_MODELS  := models/digits-mlp.tpum models/digits-cnn.tpum
DEMO_X       := data/digits_test_x.npy
DEMO_Y       := data/digits_test_y.npy
DEMO_DEVICE   = $(if $(filter 1,$(SIM_ON)),sim,golden)
DEMO_TRAIN_GOLDEN := golden:bf16=1,n=8
DEMO_TRAIN_DEVICE = $(if $(filter 1,$(SIM_ON)),sim:bf16=1,$(DEMO_TRAIN_GOLDEN))
DEMO_TRAIN_ARGS  ?= --model mlp --epochs 3 --limit 600 --batch 16 --lr 0.01
DEMO_TRAINED      = $(BUILD)/demo/mlp-trained.tpum

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
	$(Q)mkdir -p $(dir $(DEMO_TRAINED))
	$(Q)echo; echo "== tpu train --device $(DEMO_TRAIN_DEVICE) $(DEMO_TRAIN_ARGS)" \
	  "-o $(DEMO_TRAINED)"; \
	$(CLI) train --device $(DEMO_TRAIN_DEVICE) $(DEMO_TRAIN_ARGS) -o $(DEMO_TRAINED)
	$(Q)echo; echo "== tpu run --device $(DEMO_DEVICE) $(DEMO_TRAINED) $(DEMO_X) --labels $(DEMO_Y)"; \
	$(CLI) run --device $(DEMO_DEVICE) $(DEMO_TRAINED) $(DEMO_X) --labels $(DEMO_Y)
