# Model benchmarks and the plots of `make bench` (docs/performance.md, "Plots").
#   make bench-models   `tpu bench model --json` of each shipped model on the test split, on
#                       BENCH_MODEL_DEVICE (default sim:n=16, the default link):
#                       $(BUILD)/bench/model_<name>.json
#   make bench-plots    runs bench-sim and bench-models, then scripts/plot_bench.py:
#                       $(BUILD)/bench/gemm_utilization.svg (GEMM utilization against size,
#                       measured beside sw/bench/gemm_bounds.py's bound) and
#                       $(BUILD)/bench/model_roofline.svg (the models' layers on the roofline),
#                       with their gnuplot data (.dat) and scripts (.gp)
#   make bench-replot   the plots again from the JSON already there (no benchmark runs)
# BENCH_PLOT_ARGS=--png adds PNG copies. Without gnuplot the data and scripts are still written.
# Without the sim models (SIM=0 or no Verilator) bench-models says so and does nothing.

BENCH_DIR          := $(BUILD)/bench
BENCH_MODELS       := models/digits-mlp.tpum models/digits-cnn.tpum
BENCH_MODEL_X      := data/digits_test_x.npy
BENCH_MODEL_DEVICE ?= sim:n=16
BENCH_MODEL_ARGS   ?=
BENCH_PLOT_ARGS    ?=

.PHONY: bench-models bench-plots bench-replot
bench-models: $(CLI)
	$(Q)if [ "$(SIM_ON)" != 1 ]; then echo "bench-models: no sim models built (SIM=0 or no verilator): skipped"; \
	else mkdir -p $(BENCH_DIR) && for m in $(BENCH_MODELS); do \
	  out=$(BENCH_DIR)/model_$$(basename $$m .tpum).json; \
	  echo "  BENCH   $$m -> $$out"; \
	  $(CLI) bench model $$m $(BENCH_MODEL_X) --json --device $(BENCH_MODEL_DEVICE) \
	    $(BENCH_MODEL_ARGS) > $$out.tmp || { rm -f $$out.tmp; exit 1; }; \
	  mv $$out.tmp $$out; \
	done; fi

# A prerequisite, not a sub-make: each benchmark runs once per make invocation.
bench-plots: bench-sim bench-models
	$(Q)$(PYTHON) scripts/plot_bench.py --dir $(BENCH_DIR) $(BENCH_PLOT_ARGS)
bench-replot:
	$(Q)$(PYTHON) scripts/plot_bench.py --dir $(BENCH_DIR) $(BENCH_PLOT_ARGS)
bench: bench-plots

# The plot script's parsing and data files, on fixtures (well under a second).
.PHONY: test-plot-bench
test-plot-bench:
	$(Q)$(PYTHON) scripts/test_plot_bench.py
TEST_STEPS += test-plot-bench
