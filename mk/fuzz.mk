# libFuzzer harnesses (tests/fuzz/, README "Fuzzing"): the .npy reader (fuzz_npy), the model
# loader (fuzz_model), the command line (fuzz_cli) and the device's command stream (fuzz_stream:
# golden, and with the sim models built the Verilated device "s8" in lockstep). clang from
# Debian (scripts/setup installs it), ASan + UBSan, objects in $(FUZZ_DIR).
#   make fuzz         each harness for FUZZ_SECONDS (60) from its committed corpus; new inputs go
#                     to $(FUZZ_DIR)/corpus/<h>/, a crash to $(FUZZ_DIR)/crash-<h>-* (printed with
#                     the command that replays it; copy it to tests/fuzz/regress/<h>/ to keep it)
#   make test-fuzz    (a step of `make test`) every committed input once (tests/fuzz/corpus/<h>/
#                     and tests/fuzz/regress/<h>/), then FUZZ_CI_SECONDS (3) of fuzzing each
#   FUZZ=h1,h2        only these harnesses (default: all four)
FUZZ_CC         ?= clang
FUZZ_CXX        ?= clang++
FUZZ_SECONDS    ?= 60
FUZZ_CI_SECONDS ?= 3
FUZZ            ?= npy,model,cli,stream
FUZZ_DIR        := $(BUILD)/fuzz
FUZZ_SAN        := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS      = -std=c11 -D_DEFAULT_SOURCE -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(WARN) \
                   -Iinclude -I$(BUILD)/include -Idriver/core -Idriver/backend -Idriver/ops \
                   -Idriver/model -Isim -Isw/golden -Isw -Itests/fuzz
FUZZ_LDFLAGS     = -fsanitize=fuzzer $(FUZZ_SAN)
FUZZ_HARNESSES  := npy model cli stream
FUZZ_OBJ        := $(FUZZ_DIR)/obj
FUZZ_LIB_OBJS   := $(LIB_SRCS:%.c=$(FUZZ_OBJ)/%.o)
# the command line without its process entry and with the device open stubbed (fuzz_cli.c)
FUZZ_CLI_OBJS   := $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(filter-out sw/cli/main.c sw/cli/device.c,$(CLI_SRCS)))
# ... and the trainer behind `tpu train` (mk/train.mk's library, read after this file)
FUZZ_TRAIN_OBJS := $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(filter-out sw/train/main.c,$(wildcard sw/train/*.c)))

$(FUZZ_OBJ)/%.o: %.c $(SPEC_H) $(SETUP_STAMP)
	@mkdir -p $(@D)
	@echo "  FUZZCC  $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

fuzz_objs = $(FUZZ_OBJ)/tests/fuzz/fuzz_$(1).o $(FUZZ_OBJ)/tests/fuzz/fuzz_util.o
$(FUZZ_DIR)/fuzz_npy: $(call fuzz_objs,npy) $(FUZZ_OBJ)/sw/cli/npy.o $(FUZZ_LIB_OBJS)
$(FUZZ_DIR)/fuzz_model: $(call fuzz_objs,model) $(FUZZ_LIB_OBJS)
$(FUZZ_DIR)/fuzz_cli: $(call fuzz_objs,cli) $(FUZZ_CLI_OBJS) $(FUZZ_TRAIN_OBJS) $(FUZZ_LIB_OBJS)
# the Verilated models (compiled by the C++ compiler, not instrumented) come along when built
# (its $(SIM_LIB) prerequisite is in mk/sim.mk, read after this file)
$(FUZZ_DIR)/fuzz_stream: $(call fuzz_objs,stream) $(FUZZ_LIB_OBJS)
$(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_HARNESSES)):
	@mkdir -p $(@D)
	@echo "  FUZZLD  $@"
	$(Q)$(FUZZ_CXX) $(FUZZ_LDFLAGS) -o $@ $(filter %.o,$^) $(if $(filter %fuzz_stream,$@),$(SIM_LINK)) \
	  $(if $(filter %fuzz_cli,$@),-lz -lcrypto) $(LDLIBS_ALL)

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)

FUZZ_BINS := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_HARNESSES))
FUZZ_SEL   = $(subst $(,), ,$(FUZZ))
, := ,
# One harness run: $(1) name, $(2) seconds (0: only the committed inputs). libFuzzer writes new
# inputs into its first corpus directory: a scratch one, never the tree.
define fuzz_run
	mkdir -p $(FUZZ_DIR)/corpus/$(1) $(FUZZ_DIR)/work; \
	dirs="tests/fuzz/corpus/$(1)"; [ -d tests/fuzz/regress/$(1) ] && dirs="$$dirs tests/fuzz/regress/$(1)"; \
	if [ $(2) = 0 ]; then \
	  echo "  FUZZ    $(1): every committed input once"; \
	  ASAN_OPTIONS=detect_leaks=1 $(FUZZ_DIR)/fuzz_$(1) -runs=0 -timeout=60 -rss_limit_mb=4096 \
	    -artifact_prefix=$(FUZZ_DIR)/crash-$(1)- $$dirs >$(FUZZ_DIR)/work/$(1).log 2>&1; \
	else \
	  echo "  FUZZ    $(1): $(2) s"; \
	  ASAN_OPTIONS=detect_leaks=1 $(FUZZ_DIR)/fuzz_$(1) -max_total_time=$(2) -timeout=60 \
	    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crash-$(1)- \
	    $(FUZZ_DIR)/corpus/$(1) $$dirs >$(FUZZ_DIR)/work/$(1).log 2>&1; \
	fi; rc=$$?; \
	grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|Done [0-9]+ runs)' $(FUZZ_DIR)/work/$(1).log | tail -2; \
	if [ $$rc -ne 0 ]; then \
	  tail -40 $(FUZZ_DIR)/work/$(1).log; \
	  for c in $(FUZZ_DIR)/crash-$(1)-*; do [ -f "$$c" ] && \
	    echo "fuzz $(1): input $$c fails; replay: $(FUZZ_DIR)/fuzz_$(1) $$c"; done; \
	  fail=1; \
	fi;
endef

.PHONY: fuzz fuzz-bin test-fuzz
fuzz-bin: $(FUZZ_BINS)
fuzz: fuzz-bin
	$(Q)fail=0; $(foreach h,$(FUZZ_SEL),$(call fuzz_run,$(h),$(FUZZ_SECONDS))) exit $$fail
test-fuzz: fuzz-bin
	$(Q)fail=0; $(foreach h,$(FUZZ_HARNESSES),$(call fuzz_run,$(h),0) $(call fuzz_run,$(h),$(FUZZ_CI_SECONDS))) exit $$fail
TEST_STEPS += test-fuzz
