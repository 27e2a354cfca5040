# The shared libraries, beside the static ones (README "Using the library", docs/python.md):
#   libtpu.so.$(TPU_VERSION)      soname libtpu.so.$(TPU_SO_MAJOR): libtpu.a's sources compiled
#                                 again position-independent into $(PIC_OBJDIR); the version
#                                 script driver/libtpu.map exports the functions that
#                                 include/tpu/ declares and hides everything else (checked by
#                                 tests/python/test_exports.py)
#   libtpu_sim.so.$(TPU_VERSION)  soname libtpu_sim.so.$(TPU_SO_MAJOR): the Verilated devices of
#                                 $(SIM_LIB) (built position-independent, mk/sim.mk) with the
#                                 Verilator runtime, exporting only the models' registry symbols
#                                 (sim/libtpu_sim.map); built when the sim models are (SIM_ON)
# with the links libtpu.so -> libtpu.so.0 -> libtpu.so.$(TPU_VERSION) (the same for libtpu_sim).
# libtpu.so refers to the models weakly (sim/sim_models.c): in a process that loaded
# libtpu_sim.so before it (the Python package does; a C program links it through tpu-sim.pc)
# the "sim" backend finds them, in any other it says that no model is built.

TPU_SO_MAJOR  := $(firstword $(subst ., ,$(TPU_VERSION)))
SHLIB_DIR     := $(BUILD)/lib
SHLIB         := $(SHLIB_DIR)/libtpu.so.$(TPU_VERSION)
SHLIB_SIM     := $(SHLIB_DIR)/libtpu_sim.so.$(TPU_VERSION)
SHLIB_MAP     := driver/libtpu.map
SHLIB_SIM_MAP := sim/libtpu_sim.map
PIC_OBJDIR    := $(BUILD)/obj-pic
# (PIC_CXX_SRCS: C++ sources of libtpu.a that fragments add, e.g. mk/tflite.mk's shim)
PIC_OBJS      := $(LIB_SRCS:%.c=$(PIC_OBJDIR)/%.o) $(PIC_CXX_SRCS:%.cc=$(PIC_OBJDIR)/%.o)
# -z defs: every reference resolved inside the library or its libraries (the weak references to
# the sim models excepted, as the linker allows)
SHLIB_LDFLAGS  = -shared -Wl,-z,defs -Wl,-soname,$(notdir $(basename $(basename $(1))))

$(PIC_OBJDIR)/%.o: %.c $(SPEC_H)
	@mkdir -p $(@D)
	@echo "  CC PIC  $<"
	$(Q)$(CC) $(CFLAGS_ALL) -fPIC -MMD -MP -c $< -o $@

$(PIC_OBJDIR)/%.o: %.cc $(SPEC_H)
	@mkdir -p $(@D)
	@echo "  CXX PIC $<"
	$(Q)$(CXX) $(CXXFLAGS_ALL) -fPIC -MMD -MP -c $< -o $@

# $(1) the real name: the command that makes the soname link and the development link beside it
shlib_links = ln -sfn $(notdir $(1)) $(basename $(basename $(1))) && ln -sfn \
              $(notdir $(basename $(basename $(1)))) $(basename $(basename $(basename $(1))))

$(SHLIB): $(PIC_OBJS) $(SHLIB_MAP)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(call SHLIB_LDFLAGS,$@) -Wl,--version-script=$(SHLIB_MAP) -o $@ $(PIC_OBJS) \
	  $(LDLIBS_ALL)
	$(Q)$(call shlib_links,$@)

$(SHLIB_SIM): $(SIM_LIB) $(SHLIB_SIM_MAP)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CXX) $(call SHLIB_LDFLAGS,$@) -Wl,--version-script=$(SHLIB_SIM_MAP) -o $@ \
	  -Wl,--whole-archive $(SIM_LIB) -Wl,--no-whole-archive $(VL_LDLIBS) -pthread
	$(Q)$(call shlib_links,$@)

SHLIBS := $(SHLIB) $(if $(filter 1,$(SIM_ON)),$(SHLIB_SIM))
.PHONY: shlib
shlib: $(SHLIBS)
all: shlib

-include $(shell find $(PIC_OBJDIR) -name '*.d' 2>/dev/null)
