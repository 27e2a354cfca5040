# The "sim" backend's Verilated device: rtl/top/tpu_device.sv built once per configuration in
# SIM_MODELS, each with sim/verilated/tpu_device_harness.cpp, into $(SIM_LIB) (harnesses, models
# and the Verilator runtime in one archive). The CLI and the test runner link it through
# $(SIM_LINK); -u pulls each model's registry symbol (tpu_sim_model_<name>), which
# sim/sim_models.c references weakly, so libtpu.a alone still links and "sim" then says that no
# model is built.
#   SIM=auto (default)  build the models when verilator and rtl/top/tpu_device.sv exist
#   SIM=0               never (golden only, no Verilator builds)
#   SIM_MODELS="n8 b8"  models to build (rtl/profiles.toml "sim" names, default all of them;
#                       each costs minutes of C++ compilation)
#   make soak SEEDS=N   N seeds of the golden-vs-sim differential test (tests/test_sim_diff.c)
# The ASan build ($(BUILD)/san) reuses the models of $(BUILD): they are not instrumented.

SIM        ?= auto
SIM_TOP_SV := rtl/top/tpu_device.sv
ifeq ($(SIM),auto)
SIM_ON := $(if $(wildcard $(SIM_TOP_SV)),$(if $(VERILATOR_DEP)$(shell command -v $(VERILATOR) 2>/dev/null),1,0),0)
else
SIM_ON := $(SIM)
endif

SIM_VBUILD := $(patsubst %/san,%,$(BUILD))
SIM_VDIR   := $(SIM_VBUILD)/verilated-sim
SIM_LIB    := $(SIM_VBUILD)/lib/libtpu_sim.a
# The package of the build that owns the models: the ASan build ($(BUILD)/san) generates its own
# copy, which must not make the (uninstrumented, shared) models look out of date.
SIM_PKG    := $(SIM_VBUILD)/rtl/tpu_pkg.sv
SIM_RTL     = $(SIM_PKG) $(RTL_PKGS) $(RTL_MODS)
ifneq ($(SIM_PKG),$(SPEC_SV))
$(SIM_PKG): $(SPEC) scripts/gen_spec.py
	@mkdir -p $(@D)
	$(Q)$(PYTHON) scripts/gen_spec.py $(SPEC) --sv $@
endif
SIM_WAIVE  := $(wildcard rtl/*.vlt)
SIM_VFLAGS := --cc --assert -x-assign unique -x-initial unique $(VL_OPT) --trace-fst -Wno-fatal \
              -Wno-lint -Wno-style
SIM_VROOT   = $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
# Position-independent, so that the same objects go into the static archive (linked into the CLI
# and the tests, where the linker relaxes the GOT and TLS accesses back to direct ones) and into
# the shared libtpu_sim.so (mk/shlib.mk); no semantic interposition, so calls inside a model
# still inline.
SIM_PIC    := -fPIC -fno-semantic-interposition
SIM_CXXFLAGS = $(SIM_PIC) -std=c++17 -O2 -g -Wall -Wextra -Wno-unused-parameter -Isim -Isim/verilated \
               -Iinclude -I$(BUILD)/include -isystem $(SIM_VROOT)/include -isystem $(SIM_VROOT)/include/vltstd

# Configurations: the profiles of rtl/profiles.toml with a "sim" name (PROFILES_SIM): sim_n16
# and sim_n8 (the spec's defaults but N, so "golden:n=8" and "sim:n=8" are the same device) and
# sim_small ("s8", the small configuration of the device-level golden suites, which
# tests/golden_fixture.c finds by name and the sim backend does not list). SIM_MODELS names
# the models to build (default: all of them).
SIM_MODELS ?= $(foreach p,$(PROFILES_SIM),$(PROFILE_$(p)_SIM))
sim_prof    = $(SIM_PROFILE_$(1))
sim_pv      = $(PROFILE_$(call sim_prof,$(1))_P_$(2))
sim_gflags  = $(PROFILE_$(call sim_prof,$(1))_GFLAGS)
sim_dflags  = -DP_N=$(call sim_pv,$(1),N) -DP_UB_ROWS=$(call sim_pv,$(1),UbRows) \
              -DP_ACC_ROWS=$(call sim_pv,$(1),AccRows) -DP_TILES=$(call sim_pv,$(1),Tiles) \
              -DP_NUM_QUEUES=$(call sim_pv,$(1),NumQueues) \
              -DP_NUM_WINDOWS=$(call sim_pv,$(1),NumWindows) \
              -DP_MAX_QUEUE_ENTRIES=$(call sim_pv,$(1),MaxQueueEntries) \
              -DP_LINK_BYTES=$(call sim_pv,$(1),LinkBytes) \
              -DP_MAX_PAYLOAD=$(call sim_pv,$(1),MaxPayload) \
              -DP_MAX_READ_REQ=$(call sim_pv,$(1),MaxReadReq) -DP_TAGS=$(call sim_pv,$(1),Tags) \
              -DP_BF16=$(or $(call sim_pv,$(1),Bf16),0)

SIM_OBJS :=
# $(1) name (n8)
define sim_model
$(SIM_VDIR)/Vdev_$(1)/Vdev_$(1)__ALL.a: $$(SIM_RTL) $(SIM_WAIVE) mk/sim.mk $(VERILATOR_DEP) \
  $(call profile_stamp,$(call sim_prof,$(1)))
	@echo "  VERILATE Vdev_$(1) (profile $(call sim_prof,$(1)))"
	@rm -rf $(SIM_VDIR)/Vdev_$(1) && mkdir -p $(SIM_VDIR)/Vdev_$(1)
	$(Q)$(VERILATOR) $(SIM_VFLAGS) --prefix Vdev_$(1) --top-module tpu_device \
	  $(call sim_gflags,$(1)) -Mdir $(SIM_VDIR)/Vdev_$(1) $(SIM_WAIVE) $$(SIM_RTL) \
	  >$(SIM_VDIR)/Vdev_$(1).log 2>&1 || { cat $(SIM_VDIR)/Vdev_$(1).log; exit 1; }
	$(Q)$$(MAKE) --no-print-directory -s -C $(SIM_VDIR)/Vdev_$(1) -f Vdev_$(1).mk $(VL_SUBMAKE) \
	  USER_CPPFLAGS='$(SIM_PIC)' OPT_FAST='$(VL_OPT_FAST)' OPT_SLOW=-O1 Vdev_$(1)__ALL.a verilated.o verilated_threads.o verilated_fst_c.o >/dev/null
$(SIM_VDIR)/Vdev_$(1)/harness.o: sim/verilated/tpu_device_harness.cpp sim/sim_model.h sim/link.h \
  $(SIM_VDIR)/Vdev_$(1)/Vdev_$(1)__ALL.a
	@echo "  CXX     $$@"
	$(Q)$(CXX) $$(SIM_CXXFLAGS) -I$(SIM_VDIR)/Vdev_$(1) -DVMODEL=Vdev_$(1) \
	  '-DVMODEL_H="Vdev_$(1).h"' -DSIM_MODEL_SYM=tpu_sim_model_$(1) '-DSIM_NAME="$(1)"' \
	  -DSIM_TRACE=1 $(call sim_dflags,$(1)) -c $$< -o $$@
SIM_OBJS += $(SIM_VDIR)/Vdev_$(1)/harness.o $(SIM_VDIR)/Vdev_$(1)/Vdev_$(1)__ALL.a
endef

$(foreach m,$(SIM_MODELS),$(eval $(call sim_model,$(m))))

SIM_FIRST := $(firstword $(SIM_MODELS))
SIM_RT_OBJS = $(addprefix $(SIM_VDIR)/Vdev_$(SIM_FIRST)/,verilated.o verilated_threads.o \
              verilated_fst_c.o)

# One archive: harness objects, every model's objects and the runtime (from the first model's
# build; every model uses the same flags).
$(SIM_LIB): $(SIM_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && { echo "CREATE $@"; \
	  for f in $(filter %.a,$(SIM_OBJS)); do echo "ADDLIB $$f"; done; \
	  for f in $(filter %.o,$(SIM_OBJS)) $(SIM_RT_OBJS); do echo "ADDMOD $$f"; done; \
	  echo SAVE; echo END; } | $(AR) -M

ifeq ($(SIM_ON),1)
SIM_LINK = $(foreach m,$(SIM_MODELS),-Wl,-u,tpu_sim_model_$(m)) $(SIM_LIB) $(VL_LDLIBS) -lstdc++ -pthread
$(CLI) $(BUILD)/tests/tpu_tests $(FUZZ_DIR)/fuzz_stream: $(SIM_LIB)
else
SIM_LINK =
endif

.PHONY: sim-models soak
sim-models: $(if $(filter 1,$(SIM_ON)),$(SIM_LIB))

# Long differential runs: SEEDS cases, each a fresh random stream on golden and sim, from a
# base seed drawn afresh for every run (printed with the command that repeats the run; set
# TPU_SEED to choose it). A failing case prints the one command that replays it alone:
# `make soak SOAK_SEED=S SOAK_CMDS=N` (N random commands per case, default 80). SOAK_BF16=1:
# the bf16 device's streams (sim:bf16=1 against golden:bf16=1,stream=0).
SEEDS     ?= 20
SOAK_BF16 ?= 0
SOAK_SEED ?=
SOAK_CMDS ?= 80
soak: tests-bin
	$(Q)base=$${TPU_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "soak: base seed $$base, $(SEEDS) cases (repeat this run: TPU_SEED=$$base make soak SEEDS=$(SEEDS))"; \
	TPU_SEED=$$base TPU_SIM_VERBOSE=1 TPU_SOAK_SEEDS=$(SEEDS) TPU_SOAK_SEED=$(SOAK_SEED) \
	  TPU_SOAK_CMDS=$(SOAK_CMDS) TPU_SOAK_BF16=$(SOAK_BF16) $(TEST_BIN) sim_soak

# `make soak` itself: two runs pick two base seeds and print them (no case runs: SEEDS=0)
.PHONY: test-soak-seed
test-soak-seed: tests-bin
	$(Q)a=$$($(MAKE) --no-print-directory -s soak SEEDS=0 | sed -n 's/^soak: base seed \([0-9]*\),.*/\1/p'); \
	b=$$($(MAKE) --no-print-directory -s soak SEEDS=0 | sed -n 's/^soak: base seed \([0-9]*\),.*/\1/p'); \
	if [ -z "$$a" ] || [ "$$a" = "$$b" ]; then \
	  echo "test-soak-seed: make soak did not print a fresh base seed ('$$a', '$$b')"; exit 1; fi; \
	echo "test-soak-seed: base seeds $$a and $$b"
TEST_STEPS += test-soak-seed
