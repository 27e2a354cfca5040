# End-to-end GEMM benchmark of the Verilated device through the driver (docs/performance.md).
#   make bench-sim      sw/bench/bench_sim on sim:n=16 with the default link; table on stdout,
#                       JSON in $(BUILD)/bench/sim_gemm.json. BENCH_SIM_ARGS adds options or
#                       replaces the shape sweep (e.g. BENCH_SIM_ARGS="-r 128x128x128").
#   make bench-pack     sw/bench/bench_pack: the host's copy-in of tpu_gemm_ex per operand layout
#                       (NN, TN, NT, TT), table on stdout, JSON in $(BUILD)/bench/host_pack.json;
#                       BENCH_PACK_ARGS as for bench-sim (shapes, -d URI)
# bench-sim needs the sim models (mk/sim.mk); without Verilator it says so and does nothing.

BENCH_SIM      := $(BUILD)/bench/bench_sim
BENCH_SIM_OBJ  := $(OBJDIR)/sw/bench/bench_sim.o
BENCH_SIM_JSON := $(BUILD)/bench/sim_gemm.json
BENCH_SIM_ARGS ?=
# mk/sim.mk is read after this file: name its archive the way it does
BENCH_SIM_LIBS := $(wildcard $(patsubst %/san,%,$(BUILD))/lib/libtpu_sim.a)

$(BENCH_SIM): $(BENCH_SIM_OBJ) $(LIB_A) $(BENCH_SIM_LIBS) | sim-models
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CXX) $(SANFLAGS) -o $@ $(BENCH_SIM_OBJ) $(LIB_A) $(SIM_LINK) $(LDLIBS_ALL)

.PHONY: bench-sim
bench-sim: $(BENCH_SIM)
	$(Q)if [ -z "$(SIM_LINK)" ]; then echo "bench-sim: no sim models built (SIM=0 or no verilator): skipped"; \
	else $(BENCH_SIM) -o $(BENCH_SIM_JSON) $(BENCH_SIM_ARGS); fi
bench: bench-sim

BENCH_PACK      := $(BUILD)/bench/bench_pack
BENCH_PACK_OBJ  := $(OBJDIR)/sw/bench/bench_pack.o
BENCH_PACK_JSON := $(BUILD)/bench/host_pack.json
BENCH_PACK_ARGS ?=

$(BENCH_PACK): $(BENCH_PACK_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $(BENCH_PACK_OBJ) $(LIB_A) $(LDLIBS_ALL)

.PHONY: bench-pack
bench-pack: $(BENCH_PACK)
	$(Q)$(BENCH_PACK) -o $(BENCH_PACK_JSON) $(BENCH_PACK_ARGS)
bench: bench-pack

# Simulation speed (scripts/bench_speed.py): the full device's simulated cycles/s (512^3 GEMM
# at N = 16 and 8, both digits models) beside the datapath alone (bench-rtl's JSON of the same
# run) and the golden model; table on stdout, JSON in $(BUILD)/bench/sim_speed.json.
BENCH_SPEED_JSON := $(BUILD)/bench/sim_speed.json
.PHONY: bench-speed
bench-speed: $(CLI) bench-rtl
	$(Q)if [ "$(SIM_ON)" != 1 ]; then echo "bench-speed: no sim models built (SIM=0 or no verilator): skipped"; \
	else $(PYTHON) scripts/bench_speed.py --cli $(CLI) --rtl-json $(BUILD)/bench/rtl.json \
	  -o $(BENCH_SPEED_JSON); fi
bench: bench-speed

# bf16 GEMM utilization (scripts/bench_bf16.py): bf16 GEMMs on the Verilated bf16 devices beside
# int8 GEMMs of the same shapes: the bench-sim shapes on sim:n=16,bf16=1 and sim:n=16, three
# shapes on sim:bf16=1 (N = 8) and sim:n=8; table on stdout, JSON in
# $(BUILD)/bench/sim_bf16.json. BENCH_BF16_ARGS=--quick: 512x512x512 at N = 16 only.
BENCH_BF16_JSON := $(BUILD)/bench/sim_bf16.json
BENCH_BF16_ARGS ?=
.PHONY: bench-bf16
bench-bf16: $(CLI)
	$(Q)if [ "$(SIM_ON)" != 1 ]; then echo "bench-bf16: no sim models built (SIM=0 or no verilator): skipped"; \
	else mkdir -p $(dir $(BENCH_BF16_JSON)) && $(PYTHON) scripts/bench_bf16.py --cli $(CLI) \
	  -o $(BENCH_BF16_JSON) $(BENCH_BF16_ARGS); fi
bench: bench-bf16

# Training (docs/training.md, "Throughput"): `tpu bench train --json` of the digits MLP and CNN
# on BENCH_TRAIN_DEVICE (default golden:bf16=1, N = 16, whose cycles are its own timing model's,
# not the Verilated device's; BENCH_TRAIN_DEVICE=sim:bf16=1 measures N = 8 on the RTL, about 3x
# the golden N = 8 figures) -> $(BUILD)/bench/train_step_<m>.json
# (cycles per phase and per GEMM, utilization, images/s at 1 GHz), a `tpu train --json` run of
# BENCH_TRAIN_EPOCHS epochs of each -> train_curve_<m>.jsonl, then scripts/plot_train.py: a
# table on stdout, train_summary.json and train_curves.{dat,gp,svg} (loss and accuracy per
# epoch). Needs no sim model.
BENCH_TRAIN_DEVICE ?= golden:bf16=1
BENCH_TRAIN_EPOCHS ?= 60
.PHONY: bench-train
bench-train: $(CLI)
	$(Q)mkdir -p $(BUILD)/bench && for m in mlp cnn; do \
	  out=$(BUILD)/bench/train_step_$$m.json; echo "  BENCH   train $$m -> $$out"; \
	  $(CLI) bench train --model $$m --json --device $(BENCH_TRAIN_DEVICE) > $$out.tmp \
	    || { rm -f $$out.tmp; exit 1; }; mv $$out.tmp $$out; \
	  out=$(BUILD)/bench/train_curve_$$m.jsonl; echo "  TRAIN   $$m x $(BENCH_TRAIN_EPOCHS) -> $$out"; \
	  $(CLI) train --model $$m --json --device $(BENCH_TRAIN_DEVICE) \
	    --epochs $(BENCH_TRAIN_EPOCHS) > $$out.tmp || { rm -f $$out.tmp; exit 1; }; \
	  mv $$out.tmp $$out; \
	done
	$(Q)$(PYTHON) scripts/plot_train.py --dir $(BUILD)/bench $(BENCH_PLOT_ARGS)
bench: bench-train
