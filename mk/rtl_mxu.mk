# RTL matrix path: Verilated unit tests of tpu_pe, tpu_systolic_array, tpu_weight_fifo,
# tpu_datapath and the fp functions (tpu_fp_pkg), and the RTL benchmark.
#   make test-rtl-mxu   tests/rtl/test_mxu_*.c against Verilated models (N = 4, 6, 8, 16)
#   make bench-rtl      Verilated datapath GEMM throughput at N = 16 and 32, 1 and 2 threads,
#                       vs. the golden device and a C GEMM; table + $(BUILD)/bench/rtl.json
# One model per module and parameter set (verilator --prefix), all linked into one binary with
# one Verilator runtime.

RTLMXU_RTL    := $(SPEC_SV) $(RTL_PKGS) $(RTL_MODS)
RTLMXU_WAIVE  := $(wildcard rtl/*.vlt)
RTLMXU_VDIR   := $(BUILD)/verilated-mxu
RTLMXU_VFLAGS := --cc -Wall --assert -x-assign unique -x-initial unique $(VL_OPT) $(VL_QUIET)
RTLMXU_VROOT   = $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
RTLMXU_CXXFLAGS = -std=c++17 -O2 -g -Wall -Wextra -Wno-unused-parameter $(SANFLAGS) -Isim/verilated -Iinclude \
                  -isystem $(RTLMXU_VROOT)/include -isystem $(RTLMXU_VROOT)/include/vltstd
RTLMXU_HDRS   := sim/verilated/tpu_vmodels.h sim/verilated/tpu_vharness.h
RTLMXU_TLIBS  :=
RTLMXU_BLIBS  :=

# $(1) prefix, $(2) top, $(3) -G/extra verilator options, $(4) harness, $(5) harness -D flags,
# $(6) list to add to (RTLMXU_TLIBS tests, RTLMXU_BLIBS bench), $(7) more prerequisites
define rtlmxu_model
$(RTLMXU_VDIR)/$(1)/$(1)__ALL.a: $(RTLMXU_RTL) $(RTLMXU_WAIVE) mk/rtl_mxu.mk $(VERILATOR_DEP) $(7)
	@echo "  VERILATE $(1)"
	@rm -rf $(RTLMXU_VDIR)/$(1) && mkdir -p $(RTLMXU_VDIR)/$(1)
	$(Q)$(VERILATOR) $(RTLMXU_VFLAGS) --prefix $(1) --top-module $(2) $(3) \
	  -Mdir $(RTLMXU_VDIR)/$(1) $(RTLMXU_WAIVE) $(RTLMXU_RTL)
	$(Q)$$(MAKE) --no-print-directory -s -C $(RTLMXU_VDIR)/$(1) -f $(1).mk $(VL_SUBMAKE) OPT_FAST='$(VL_OPT_FAST)' \
	  OPT_SLOW=-O1 $(1)__ALL.a >/dev/null
$(RTLMXU_VDIR)/$(1)/harness.o: $(4) $(RTLMXU_HDRS) $(RTLMXU_VDIR)/$(1)/$(1)__ALL.a
	@echo "  CXX     $$@"
	$(Q)$(CXX) $(RTLMXU_CXXFLAGS) -I$(RTLMXU_VDIR)/$(1) -DVMODEL=$(1) $(5) -c $(4) -o $$@
$(6) += $(RTLMXU_VDIR)/$(1)/harness.o $(RTLMXU_VDIR)/$(1)/$(1)__ALL.a
endef

RTLMXU_DPH := sim/verilated/tpu_datapath_harness.cpp

$(eval $(call rtlmxu_model,Vtpu_pe_m,tpu_pe,-GRow=1,sim/verilated/tpu_pe_harness.cpp,,RTLMXU_TLIBS))
RTLMXU_ARH := sim/verilated/tpu_systolic_array_harness.cpp
$(eval $(call rtlmxu_model,Vtpu_array_n6,tpu_systolic_array,-GN=6,$(RTLMXU_ARH),-DOPS_FN=tpu_varr_n6_ops -DARR_N=6,RTLMXU_TLIBS))
$(eval $(call rtlmxu_model,Vtpu_array_n6p,tpu_systolic_array,-GN=6 -GPairMul=1,$(RTLMXU_ARH),-DOPS_FN=tpu_varr_n6_pair_ops -DARR_N=6,RTLMXU_TLIBS))
$(eval $(call rtlmxu_model,Vtpu_array_n6b,tpu_systolic_array,-GN=6 -GBf16=1\'b1,$(RTLMXU_ARH),-DOPS_FN=tpu_varr_n6_bf16_ops -DARR_N=6 -DARR_BF16,RTLMXU_TLIBS))
$(eval $(call rtlmxu_model,Vtpu_array_n4q,tpu_systolic_array,-GN=4 -GPairMul=2 -GProdReg=1\'b1 -GNarrowSum=1\'b1,$(RTLMXU_ARH),-DOPS_FN=tpu_varr_n4_narrow_ops -DARR_N=4,RTLMXU_TLIBS))
# The fp functions of rtl/common/tpu_fp_pkg.sv through a test-only wrapper.
$(eval $(call rtlmxu_model,Vtpu_fp_probe,tpu_fp_probe,tests/rtl/tpu_fp_probe.sv,sim/verilated/tpu_fp_probe_harness.cpp,,RTLMXU_TLIBS,tests/rtl/tpu_fp_probe.sv))
$(eval $(call rtlmxu_model,Vtpu_wfifo_n6,tpu_weight_fifo,-GN=6 -GTiles=4,sim/verilated/tpu_weight_fifo_harness.cpp,,RTLMXU_TLIBS))
# The datapath models: one per profile of rtl/profiles.toml with tests (PROFILES_DP_TEST), and
# the benchmark's (PROFILES_DP_BENCH), each depending on its profile's stamp.
rtlmxu_dp = $(call rtlmxu_model,V$(1),tpu_datapath,$(PROFILE_$(1)_GFLAGS) \
  $(if $(filter-out 1,$(PROFILE_$(1)_THREADS)),--threads $(PROFILE_$(1)_THREADS)),$(RTLMXU_DPH),$(PROFILE_$(1)_DFLAGS),$(2),$(call profile_stamp,$(1)))
$(foreach p,$(PROFILES_DP_TEST),$(eval $(call rtlmxu_dp,$(p),RTLMXU_TLIBS)))

# The Verilator runtime, compiled once (from the PE model's makefile, same flags).
RTLMXU_RT := $(RTLMXU_VDIR)/libverilated.a
$(RTLMXU_RT): $(RTLMXU_VDIR)/Vtpu_pe_m/Vtpu_pe_m__ALL.a
	@echo "  CXX     verilated runtime"
	$(Q)$(MAKE) --no-print-directory -s -C $(RTLMXU_VDIR)/Vtpu_pe_m -f Vtpu_pe_m.mk $(VL_SUBMAKE) \
	  verilated.o verilated_threads.o >/dev/null
	$(Q)rm -f $@ && $(AR) rcs $@ $(RTLMXU_VDIR)/Vtpu_pe_m/verilated.o \
	  $(RTLMXU_VDIR)/Vtpu_pe_m/verilated_threads.o

# ------------------------------------------------------------------ tests
RTLMXU_TEST_SRCS := $(sort $(wildcard tests/rtl/test_mxu_*.c))
# (tests/bf16_hostref.c: the host-float reference of the bf16 numerics)
RTLMXU_TEST_OBJS := $(RTLMXU_TEST_SRCS:%.c=$(OBJDIR)/%.o) $(OBJDIR)/tests/main.o \
                    $(OBJDIR)/tests/bf16_hostref.o
RTLMXU_BIN       := $(BUILD)/tests/rtl_mxu_tests
# Each seed is one run: Verilator's random initial state and the test data follow TPU_SEED.
RTLMXU_SEEDS     ?= 1 2 3

$(RTLMXU_TEST_OBJS): $(SETUP_STAMP) sim/verilated/tpu_vmodels.h $(PROFILES_MK)
$(RTLMXU_BIN): $(RTLMXU_TEST_OBJS) $(RTLMXU_TLIBS) $(RTLMXU_RT) $(LIB_A)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CXX) $(SANFLAGS) -pthread -o $@ $(RTLMXU_TEST_OBJS) $(RTLMXU_TLIBS) $(RTLMXU_RT) \
	  $(LIB_A) $(CHECK_LIBS) $(LDLIBS_ALL) -latomic

.PHONY: test-rtl-mxu rtl-mxu-bin bench-rtl
rtl-mxu-bin: $(RTLMXU_BIN)
test-rtl-mxu: $(RTLMXU_BIN)
	$(Q)fail=0; for s in $(RTLMXU_SEEDS); do \
	  TPU_SEED=$$s $(RTLMXU_BIN) || fail=1; \
	done; exit $$fail
TEST_STEPS += test-rtl-mxu

# ------------------------------------------------------------------ benchmark
$(foreach p,$(PROFILES_DP_BENCH),$(eval $(call rtlmxu_dp,$(p),RTLMXU_BLIBS)))

RTLMXU_BENCH     := $(BUILD)/bench/rtl_bench
RTLMXU_BENCH_OBJ := $(OBJDIR)/sim/verilated/rtl_bench.o
$(RTLMXU_BENCH_OBJ): sim/verilated/rtl_bench.c sim/verilated/tpu_vmodels.h $(SPEC_H) $(PROFILES_MK)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@
$(RTLMXU_BENCH): $(RTLMXU_BENCH_OBJ) $(RTLMXU_BLIBS) $(RTLMXU_RT) $(LIB_A)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CXX) -pthread -o $@ $(RTLMXU_BENCH_OBJ) $(RTLMXU_BLIBS) $(RTLMXU_RT) $(LIB_A) $(LDLIBS_ALL) -latomic
bench-rtl: $(RTLMXU_BENCH)
	$(Q)$(RTLMXU_BENCH) $(BUILD)/bench/rtl.json
bench: bench-rtl

# `make bench` must not rot (README): CI builds everything it builds (the four RTL bench models,
# rtl_bench, bench_sim) and runs the shortest bench once: bench_sim on one 32 x 32 x 32 GEMM
# (checked against its C reference; JSON in $(BUILD)/bench/ci_sim.json).
.PHONY: test-bench
test-bench: $(RTLMXU_BENCH) $(BENCH_SIM)
	$(Q)if [ -z "$(SIM_LINK)" ]; then echo "test-bench: no sim models (SIM=0 or no verilator): bench_sim not run"; \
	else $(BENCH_SIM) -o $(BUILD)/bench/ci_sim.json 32x32x32; fi
TEST_STEPS += test-bench
