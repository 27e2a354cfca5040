# The simulated FPGA board of the "uart-sim" backend: rtl/board/tpu_board_top.sv (tpu_uart_bridge +
# tpu_device) Verilated once per configuration in UART_BOARDS with
# sim/verilated/tpu_board_harness.cpp, into $(UART_LIB). The test runner links it
# (TEST_EXTRA_LIBS); -u pulls each board's symbol (tpu_uart_board_<name>), which sim/uart_sim.c
# references weakly. The Verilator runtime comes from $(SIM_LIB) (mk/sim.mk), so the boards are
# built only when the sim models are (SIM_ON = 1).
# The boards are the profiles of rtl/profiles.toml with a "uart" name (sim_board_n4: a fast
# divider, 4 clock cycles per UART bit, "1 MBd at 4 MHz", so tests stay quick; everything else
# is the board top's default configuration: N = 4, LinkBytes = 4, ...).

UART_VDIR   := $(SIM_VBUILD)/verilated-uart
UART_LIB    := $(SIM_VBUILD)/lib/libtpu_uart_board.a
UART_BOARDS ?= $(foreach p,$(PROFILES_UART),$(PROFILE_$(p)_UART))
UART_VFLAGS := --cc --assert -x-assign unique -x-initial unique $(VL_OPT) -Wno-fatal -Wno-lint \
               -Wno-style
uart_prof   = $(UART_PROFILE_$(1))
uart_pv     = $(PROFILE_$(call uart_prof,$(1))_P_$(2))
uart_dflags = -DP_N=$(call uart_pv,$(1),N) -DP_CLK_HZ=$(call uart_pv,$(1),ClkHz) \
              -DP_BAUD=$(call uart_pv,$(1),Baud)

UART_OBJS :=
# $(1) name (n4)
define uart_board
$(UART_VDIR)/Vboard_$(1)/Vboard_$(1)__ALL.a: $$(SIM_RTL) $(SIM_WAIVE) mk/uart.mk $(VERILATOR_DEP) \
  $(call profile_stamp,$(call uart_prof,$(1)))
	@echo "  VERILATE Vboard_$(1) (profile $(call uart_prof,$(1)))"
	@rm -rf $(UART_VDIR)/Vboard_$(1) && mkdir -p $(UART_VDIR)/Vboard_$(1)
	$(Q)$(VERILATOR) $(UART_VFLAGS) --prefix Vboard_$(1) --top-module tpu_board_top \
	  $(PROFILE_$(call uart_prof,$(1))_GFLAGS) -Mdir $(UART_VDIR)/Vboard_$(1) $(SIM_WAIVE) $$(SIM_RTL) \
	  >$(UART_VDIR)/Vboard_$(1).log 2>&1 || { cat $(UART_VDIR)/Vboard_$(1).log; exit 1; }
	$(Q)$$(MAKE) --no-print-directory -s -C $(UART_VDIR)/Vboard_$(1) -f Vboard_$(1).mk $(VL_SUBMAKE) \
	  OPT_FAST='$(VL_OPT_FAST)' OPT_SLOW=-O1 Vboard_$(1)__ALL.a >/dev/null
$(UART_VDIR)/Vboard_$(1)/harness.o: sim/verilated/tpu_board_harness.cpp sim/uart_board.h \
  $(UART_VDIR)/Vboard_$(1)/Vboard_$(1)__ALL.a
	@echo "  CXX     $$@"
	$(Q)$(CXX) $$(SIM_CXXFLAGS) -I$(UART_VDIR)/Vboard_$(1) -DVMODEL=Vboard_$(1) \
	  '-DVMODEL_H="Vboard_$(1).h"' -DBOARD_SYM=tpu_uart_board_$(1) '-DBOARD_NAME="$(1)"' \
	  $(call uart_dflags,$(1)) -c $$< -o $$@
UART_OBJS += $(UART_VDIR)/Vboard_$(1)/harness.o $(UART_VDIR)/Vboard_$(1)/Vboard_$(1)__ALL.a
endef

$(foreach b,$(UART_BOARDS),$(eval $(call uart_board,$(b))))

$(UART_LIB): $(UART_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && { echo "CREATE $@"; \
	  for f in $(filter %.a,$(UART_OBJS)); do echo "ADDLIB $$f"; done; \
	  for f in $(filter %.o,$(UART_OBJS)); do echo "ADDMOD $$f"; done; \
	  echo SAVE; echo END; } | $(AR) -M

ifeq ($(SIM_ON),1)
TEST_EXTRA_LIBS += $(foreach b,$(UART_BOARDS),-Wl,-u,tpu_uart_board_$(b)) $(UART_LIB)
$(TEST_BIN): $(UART_LIB)
# the CLI too, so that `tpu --device uart-sim ...` works
CLI_EXTRA_LIBS += $(foreach b,$(UART_BOARDS),-Wl,-u,tpu_uart_board_$(b)) $(UART_LIB)
$(CLI): $(UART_LIB)
endif

.PHONY: uart-boards
uart-boards: $(if $(filter 1,$(SIM_ON)),$(UART_LIB))
