# RTL: the shared RTL file list, lint, Verilated unit tests of the activation path and the RAM,
# and the Yosys synthesis smoke run.
#   make lint          verilator --lint-only -Wall on every module in rtl/ (each as top)
#   make test-rtl-act  Verilated tpu_act_unit (N = 4, 6, 8, 16; serial N = 4 / 1 lane, N = 8 /
#                      2 lanes) and tpu_ram tests (Check)
#   make synth         Yosys (iCE40 -dsp, ECP5, generic) at N = 4 and 8, resource table and checks

# The one RTL file list (package first); every fragment uses it.
RTL_SRCS    := $(SPEC_SV) $(RTL_PKGS) $(RTL_MODS)
RTL_WAIVERS := rtl/lint_waivers.vlt

# ------------------------------------------------------------------ lint
# Each module is linted as the top with its default parameters, then every parameter set of
# rtl/profiles.toml (RTL_LINT_SETS, top:-Gname=value,...: each profile and its [lint] sets).
RTL_LINT_TOPS  := $(basename $(notdir $(RTL_MODS)))

lint: $(SPEC_SV) $(VERILATOR_DEP)
	$(Q)fail=0; \
	for t in $(RTL_LINT_TOPS) $(RTL_LINT_SETS); do \
	  top=$${t%%:*}; params=$$(echo "$${t#$$top}" | sed 's/^://; s/,/ /g'); \
	  echo "  LINT    $$top $$params"; \
	  $(VERILATOR) --lint-only -Wall $(VL_QUIET) --top-module $$top $$params $(RTL_WAIVERS) $(RTL_SRCS) \
	    || fail=1; \
	done; \
	if [ $$fail -ne 0 ]; then echo "lint: FAILED"; exit 1; fi; echo "lint: clean"
TEST_STEPS += lint

# ------------------------------------------------------------------ Verilated models
# One model per parameter set, each with its own --prefix so they link into one binary; the
# Verilator runtime (verilated.o, verilated_threads.o) is compiled once.
RTLACT_VDIR   := $(BUILD)/verilated
RTLACT_VFLAGS := --cc -Wall --assert -x-assign unique -x-initial unique $(VL_QUIET)
RTLACT_VROOT   = $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
RTLACT_CXXFLAGS = -std=c++17 -O1 -g -Wall -Wextra $(SANFLAGS) -Isim/verilated \
                  -isystem $(RTLACT_VROOT)/include -isystem $(RTLACT_VROOT)/include/vltstd
RTLACT_ACT_SV := $(SPEC_SV) rtl/common/tpu_fp_pkg.sv rtl/common/tpu_ram.sv \
                 rtl/act/tpu_act_params.sv rtl/act/tpu_act_fp_params.sv rtl/act/tpu_activation.sv \
                 rtl/act/tpu_act_serial.sv rtl/act/tpu_act_unit.sv
RTLACT_RAM_SV := rtl/common/tpu_ram.sv
RTLACT_HDRS   := sim/verilated/tpu_vact.h sim/verilated/vbits.h
RTLACT_LIBS   :=

# $(1) model prefix, $(2) top, $(3) -G options, $(4) sources, $(5) harness, $(6) harness -D flags
define rtlact_model
$(RTLACT_VDIR)/$(1)/$(1)__ALL.a: $(4) $(RTL_WAIVERS) mk/rtl.mk $(VERILATOR_DEP)
	@echo "  VERILATE $(1)"
	@rm -rf $(RTLACT_VDIR)/$(1) && mkdir -p $(RTLACT_VDIR)/$(1)
	$(Q)$(VERILATOR) $(RTLACT_VFLAGS) --prefix $(1) --top-module $(2) $(3) \
	  -Mdir $(RTLACT_VDIR)/$(1) $(RTL_WAIVERS) $(4)
	$(Q)$$(MAKE) --no-print-directory -s -C $(RTLACT_VDIR)/$(1) -f $(1).mk $(VL_SUBMAKE) \
	  $(1)__ALL.a >/dev/null
$(RTLACT_VDIR)/$(1)/harness.o: $(5) $(RTLACT_HDRS) $(RTLACT_VDIR)/$(1)/$(1)__ALL.a
	@echo "  CXX     $$@"
	$(Q)$(CXX) $(RTLACT_CXXFLAGS) -I$(RTLACT_VDIR)/$(1) -DVMODEL=$(1) '-DVMODEL_H="$(1).h"' \
	  $(6) -c $(5) -o $$@
RTLACT_LIBS += $(RTLACT_VDIR)/$(1)/harness.o $(RTLACT_VDIR)/$(1)/$(1)__ALL.a
endef

RTLACT_ACT_H := sim/verilated/tpu_act_unit_harness.cpp
RTLACT_RAM_H := sim/verilated/tpu_ram_harness.cpp
$(eval $(call rtlact_model,Vact_n4,tpu_act_unit,-GN=4 -GRound=1\'b1,$(RTLACT_ACT_SV),$(RTLACT_ACT_H),-DOPS_NAME=tpu_vact_n4_ops -DMODEL_N=4 -DMODEL_ROUND=1))
# (N = 6 without Round: OP0.ROUND's bits must not matter there)
$(eval $(call rtlact_model,Vact_n6,tpu_act_unit,-GN=6,$(RTLACT_ACT_SV),$(RTLACT_ACT_H),-DOPS_NAME=tpu_vact_n6_ops -DMODEL_N=6))
$(eval $(call rtlact_model,Vact_n8,tpu_act_unit,-GN=8 -GRound=1\'b1,$(RTLACT_ACT_SV),$(RTLACT_ACT_H),-DOPS_NAME=tpu_vact_n8_ops -DMODEL_N=8 -DMODEL_ROUND=1))
$(eval $(call rtlact_model,Vact_n16,tpu_act_unit,-GN=16 -GRound=1\'b1,$(RTLACT_ACT_SV),$(RTLACT_ACT_H),-DOPS_NAME=tpu_vact_n16_ops -DMODEL_N=16 -DMODEL_ROUND=1))
# the small multi-cycle activation (ActLanes < N, tpu_act_serial), as the FPGA boards use it
# (at N = 8 with the board option LutReg: the registered LUT read data, one more cycle per LUT row)
$(eval $(call rtlact_model,Vact_n4_l1,tpu_act_unit,-GN=4 -GActLanes=1,$(RTLACT_ACT_SV),$(RTLACT_ACT_H),-DOPS_NAME=tpu_vact_n4_l1_ops -DMODEL_N=4 -DMODEL_LANES=1))
$(eval $(call rtlact_model,Vact_n8_l2,tpu_act_unit,-GN=8 -GActLanes=2 -GLutReg=1\'b1,$(RTLACT_ACT_SV),$(RTLACT_ACT_H),-DOPS_NAME=tpu_vact_n8_l2_ops -DMODEL_N=8 -DMODEL_LANES=2))
# (and at N = 4 with LutReg + ParOutReg: the parameter RAMs read through their output registers)
$(eval $(call rtlact_model,Vact_n4_l1p,tpu_act_unit,-GN=4 -GActLanes=1 -GLutReg=1\'b1 -GParOutReg=1\'b1,$(RTLACT_ACT_SV),$(RTLACT_ACT_H),-DOPS_NAME=tpu_vact_n4_l1p_ops -DMODEL_N=4 -DMODEL_LANES=1 -DMODEL_PAR_WAIT=1))
$(eval $(call rtlact_model,Vram_w8d256,tpu_ram,-GWidth=8 -GDepth=256,$(RTLACT_RAM_SV),$(RTLACT_RAM_H),-DOPS_NAME=tpu_vram_w8d256_ops -DMODEL_WIDTH=8 -DMODEL_DEPTH=256))
$(eval $(call rtlact_model,Vram_w37d100,tpu_ram,-GWidth=37 -GDepth=100,$(RTLACT_RAM_SV),$(RTLACT_RAM_H),-DOPS_NAME=tpu_vram_w37d100_ops -DMODEL_WIDTH=37 -DMODEL_DEPTH=100))

RTLACT_RT := $(RTLACT_VDIR)/libverilated.a
$(RTLACT_RT): $(RTLACT_VDIR)/Vact_n4/Vact_n4__ALL.a
	@echo "  CXX     verilated runtime"
	$(Q)$(MAKE) --no-print-directory -s -C $(RTLACT_VDIR)/Vact_n4 -f Vact_n4.mk $(VL_SUBMAKE) \
	  verilated.o verilated_threads.o >/dev/null
	$(Q)rm -f $@ && $(AR) rcs $@ $(RTLACT_VDIR)/Vact_n4/verilated.o \
	  $(RTLACT_VDIR)/Vact_n4/verilated_threads.o

# ------------------------------------------------------------------ RTL unit tests
# tests/rtl/test_act_*.c (not globbed into tpu_tests) + tests/main.c + libtpu (golden numerics).
RTLACT_TEST_SRCS := $(sort $(wildcard tests/rtl/test_act_*.c))
RTLACT_TEST_OBJS := $(RTLACT_TEST_SRCS:%.c=$(OBJDIR)/%.o) $(OBJDIR)/tests/main.o
RTLACT_BIN       := $(BUILD)/tests/rtl_act_tests
# Each run: Verilator random initial state, seeds derived from TPU_SEED (printed).
RTLACT_SEEDS     ?= 1 2 3

$(RTLACT_TEST_OBJS): $(SETUP_STAMP)
$(RTLACT_BIN): $(RTLACT_TEST_OBJS) $(RTLACT_LIBS) $(RTLACT_RT) $(LIB_A)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CXX) $(SANFLAGS) -pthread -o $@ $(RTLACT_TEST_OBJS) $(RTLACT_LIBS) $(RTLACT_RT) \
	  $(LIB_A) $(CHECK_LIBS) $(LDLIBS_ALL)

.PHONY: test-rtl-act rtl-act-bin
rtl-act-bin: $(RTLACT_BIN)
test-rtl-act: $(RTLACT_BIN)
	$(Q)fail=0; for s in $(RTLACT_SEEDS); do \
	  TPU_SEED=$$s $(RTLACT_BIN) || fail=1; \
	done; exit $$fail
TEST_STEPS += test-rtl-act

# ------------------------------------------------------------------ synthesis smoke run
# scripts/synth_report.py runs fpga/synth/<target>.ys per design, target and N, checks DSP and
# block-RAM inference and the absence of latches, writes $(BUILD)/synth/report.json and prints
# the resource table. SYNTH_JOBS yosys processes run at once.
SYNTH_JOBS ?= 2
synth: $(SPEC_SV)
	$(Q)$(PYTHON) scripts/synth_report.py --yosys "$(YOSYS)" --pkg $(SPEC_SV) \
	  --out $(BUILD)/synth --jobs $(SYNTH_JOBS)

# The bf16 datapath beside the int8 one (N = 4, ECP5 and generic; docs/datapath.md "Synthesis"):
# a few minutes, so not part of `make test`.
.PHONY: synth-bf16
synth-bf16: $(SPEC_SV)
	$(Q)$(PYTHON) scripts/synth_report.py --yosys "$(YOSYS)" --pkg $(SPEC_SV) \
	  --out $(BUILD)/synth-bf16 --jobs $(SYNTH_JOBS) --set bf16

.PHONY: synth-round
synth-round: $(SPEC_SV)
	$(Q)$(PYTHON) scripts/synth_report.py --yosys "$(YOSYS)" --pkg $(SPEC_SV) \
	  --out $(BUILD)/synth-round --jobs $(SYNTH_JOBS) --set round

# The whole device (host interface included) through Yosys' front end and proc: slow (Yosys'
# proc takes many minutes on the DMA staging buffers), so not part of `make test`.
.PHONY: synth-device
synth-device: $(SPEC_SV)
	@mkdir -p $(BUILD)/synth
	@echo "  YOSYS   tpu_device elaboration check (fpga/synth/device_check.ys)"
	$(Q)$(YOSYS) -q -l $(BUILD)/synth/device_check.log \
	  -p "read_verilog -sv $(RTL_SRCS); script fpga/synth/device_check.ys" >/dev/null
# About 130 s of yosys CPU time (two jobs: about 70 s on two free cores).
TEST_STEPS += synth
